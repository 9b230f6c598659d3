# SPDX-License-Identifier: Apache-2.0
"""torch.compile(model, backend="clops"): pointwise fusion into generated OpenCL kernels.

The backend runs AOT autograd (forward and backward graphs of functionalized
ATen, PyTorch's default decompositions only: layer_norm, softmax, attention,
convolution, addmm stay whole and run clops' fused kernels) and compiles each
graph by rewriting it:

* Pointwise fusion.  Maximal groups of pointwise nodes (the ops listed in
  clops' pointwise inventory, dispatch/inventory/pointwise_*.yaml, with
  their Python-scalar arguments, plus casts, `where`, clamps, gelu and the
  activation gradients, dropout's mask product, and `expand`) become one
  kernel: an op registered once per expression with clops_pointwise_register
  (promotion "none": every operand read in its own dtype, the generated code
  converts exactly as each eager op would, then rounds every intermediate to
  its dtype).  A group has one output, its root: a node's result joins its
  consumer's group only when every user of it is in that group, so results
  needed elsewhere stay materialised (a node used by two groups is the root
  of its own).  A group holds at most 4 distinct tensor operands (the
  pointwise engine's limit): a producer that would bring a fifth starts a
  group of its own.  Views of a group's inputs run eagerly before it (they
  launch nothing); a view of an intermediate ends the group.
* Attention lowering (first of all).  Attention written out (bmm of q and
  k^T, a scale, an additive/masked_fill/where mask, softmax, bmm with v;
  HF's eager attention, nanoGPT) becomes one scaled_dot_product_attention
  call on clops' fused kernel, when every intermediate serves the next
  step alone and the kernel takes the shapes, dtypes and mask (_att_plan).
  In a graph that trains this happens above autograd, on Dynamo's graph
  traced to ATen before AOT autograd (_lower_attention_above_autograd),
  so autograd differentiates the fused kernel (its own backward).
* Epilogue fusion (next).  An addmm/mm whose result (through at most one
  view) feeds only an activation and/or a residual add, or a pointwise
  group computing an engine activation of it alone (GPT-2's tanh GELU
  formula, recognised by evaluating the group on float64 probes), becomes
  one _clops_addmm_epilogue call: the matrix engine's fused epilogue
  (ops/gemm/gemm.h gemm_epilogue).
* Everything else (matrix products, norms, reductions, views, random ops,
  ops with symbolic scalars) runs eagerly through the dispatcher, so every
  graph runs.
* Traced layouts (last).  A new result whose traced (meta) layout is not
  contiguous is copied into it where clops' op laid it out otherwise (the
  fused attention's output), so the graph's views of it hold.

Each eager op's expression is the very text clops' own kernel uses (read
from the inventory), with the operand conversions, scalar roundings and
result dtype of the eager call, each op one statement, in a program built
without contraction like every pointwise program (codegen_pointwise/emit.c:
no compiler fuses a multiply of one op into the next op's add): float32 and
bfloat16 results equal eager clops bit for bit on every device
(python/tests/test_compile.py).

The generated ops are named by a hash of their code, registered once per
process, and their kernels specialise on dtypes and rank like every
pointwise kernel, hitting clops' kernel cache (in memory, and on disk or in
POCL's own cache): shapes stay kernel arguments, so a new sequence length
compiles nothing new.  CLOPS_COMPILE_DEBUG=1 prints every group and its
generated code and every epilogue lowering, =2 the graphs' code too.
docs/torch.md describes the rules.
"""
import hashlib
import math
import operator
import os
import struct
import sys
import typing

import torch
import torch.fx

from . import _C

aten = torch.ops.aten

# --------------------------------------------------------------------------
# The pointwise inventory: clops' op records and the schemas bound to them.

_INVENTORY = None


def _inventory_dir():
    here = os.path.dirname(os.path.abspath(__file__))
    for d in (os.path.join(here, "..", "..", "..", "dispatch", "inventory"),
              os.path.join(here, "_inventory")):
        if os.path.exists(os.path.join(d, "pointwise_unary.yaml")):
            return d
    raise RuntimeError("clops: torch.compile(backend='clops') needs clops' pointwise inventory "
                       "(dispatch/inventory/pointwise_*.yaml), found neither next to the package "
                       "nor in the source tree")


def _inventory():
    """(records, bindings): records[name] is a `pointwise_op:` entry;
    bindings["add.Tensor"] = (record name, [argument names]) for schemas bound
    one to one (`pointwise: NAME`)."""
    global _INVENTORY
    if _INVENTORY is None:
        import yaml
        # libyaml's parser where PyYAML has it: the pure-Python one takes
        # 1-3.5 s for these files, most of a warm process's first compile
        # (bench/compile_first_call.py), libyaml's a tenth of that
        loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
        records, bindings = {}, {}
        d = _inventory_dir()
        for f in ("pointwise_unary.yaml", "pointwise_binary.yaml"):
            with open(os.path.join(d, f)) as fh:
                for e in yaml.load(fh, Loader=loader) or []:
                    if not isinstance(e, dict):
                        continue
                    if "pointwise_op" in e:
                        records[e["pointwise_op"]] = e
                    elif "func" in e and "pointwise" in e:
                        name, _, rest = e["func"].partition("(")
                        args = rest.rsplit(")", 1)[0].split(",")
                        names = []
                        for a in args:
                            a = a.strip()
                            if not a or a == "*":
                                continue
                            names.append(a.split("=")[0].split()[-1])
                        bindings[name] = (e["pointwise"], names)
        _INVENTORY = (records, bindings)
    return _INVENTORY


# --------------------------------------------------------------------------
# dtypes as the pointwise engine sees them (ops/kit/dtypes.def).

_FLOATS = (torch.float16, torch.bfloat16, torch.float32, torch.float64)
_CL = {torch.bool: "uchar", torch.uint8: "uchar", torch.int8: "char", torch.int16: "short",
       torch.int32: "int", torch.int64: "long", torch.float16: "float", torch.bfloat16: "float",
       torch.float32: "float", torch.float64: "double"}
_UNSIGNED = {torch.uint8: "uchar", torch.int8: "uchar", torch.int16: "ushort", torch.int32: "uint",
             torch.int64: "ulong", torch.bool: "uchar"}
_NAMES = {torch.bool: "bool", torch.uint8: "uint8", torch.int8: "int8", torch.int16: "int16",
          torch.int32: "int32", torch.int64: "int64", torch.float16: "float16",
          torch.bfloat16: "bfloat16", torch.float32: "float32", torch.float64: "float64"}


def _compute(dt):
    """The dtype a value of dtype dt is held in (float16/bfloat16 as float32)."""
    return torch.float32 if dt in (torch.float16, torch.bfloat16) else dt


def _opmath(dt):
    return _compute(dt)


def _convert(x, frm, to):
    """x (held in frm's compute type) converted to `to`'s compute type with
    PyTorch's cast rules, as emit.c's emit_convert writes it."""
    cf, ct = _compute(frm), _compute(to)
    if cf == ct:
        return x
    if ct == torch.bool:
        return f"(uchar)(({x}) != 0)"
    if ct == torch.uint8 and cf.is_floating_point:
        return f"(uchar)(long)({x})"
    return f"({_CL[ct]})({x})"


def _round(x, dt):
    """x (a float) rounded to float16/bfloat16 when dt is one."""
    if dt == torch.bfloat16:
        return f"clops_round_bf16({x})"
    if dt == torch.float16:
        return f"clops_round_half({x})"
    return x


def _literal(v, dt):
    """A Python number as an OpenCL literal of dt's compute type."""
    ct = _compute(dt)
    if ct.is_floating_point:
        v = float(v)
        suffix = "f" if ct == torch.float32 else ""
        if math.isnan(v):
            return f"({_CL[ct]})NAN"
        if math.isinf(v):
            return f"({_CL[ct]})({'-' if v < 0 else ''}INFINITY)"
        return f"({_CL[ct]})({v.hex()}{suffix})"
    if ct == torch.bool:
        return "(uchar)1" if v else "(uchar)0"
    v = int(v)
    if v == -(1 << 63):
        return "(long)(-9223372036854775807L - 1)"
    return f"({_CL[ct]})({v}L)"


def _to_f32(v):
    return struct.unpack("f", struct.pack("f", float(v)))[0]


def _scalar_as(v, dt):
    """Python scalar v as the kernel sees it in a call whose common dtype is
    dt: the bridge uploads a Python float as a float32 zero-dim tensor (float64
    when a float64 tensor takes part) and the engine rounds it to a
    float16/bfloat16 common dtype."""
    if isinstance(v, bool) or not isinstance(v, float):
        return v
    if dt == torch.float64:
        return v
    f = _to_f32(v)
    if dt in (torch.float16, torch.bfloat16):
        f = torch.tensor(f, dtype=torch.float32).to(dt).item()
    return f


class _Unfusable(Exception):
    pass


class _Value:
    """A value inside a generated function: its code (a variable or operand
    name, holding the value in the compute type of `dtype`), its dtype, and
    its meta tensor for type promotion (None for Python scalars)."""

    def __init__(self, code, dtype, meta=None, scalar=None):
        self.code, self.dtype, self.meta, self.scalar = code, dtype, meta, scalar

    @property
    def is_scalar(self):
        return self.meta is None


def _promote(values, kind="default"):
    from torch._prims_common import ELEMENTWISE_TYPE_PROMOTION_KIND, elementwise_dtypes
    args = [v.scalar if v.is_scalar else v.meta for v in values]
    if not args:
        return torch.bool
    _, common = elementwise_dtypes(*args,
                                   type_promotion_kind=ELEMENTWISE_TYPE_PROMOTION_KIND.DEFAULT)
    return common


class _Emitter:
    """Writes one generated function: statements, helpers used."""

    def __init__(self):
        self.lines = []
        self.helpers = []
        self.n = 0

    def var(self, ctype, code):
        name = f"t{self.n}"
        self.n += 1
        self.lines.append(f"    {ctype} {name} = {code};")
        return name

    def apply(self, rec_name, operands, params=(), fixed_common=None):
        """Applies clops' pointwise record rec_name to operands (list of
        _Value) and params (Python numbers), as pw_run would: returns the
        result _Value (its dtype is the eager result's)."""
        records, _ = _inventory()
        rec = records.get(rec_name)
        if rec is None:
            raise _Unfusable(f"no pointwise record {rec_name}")
        roles = rec.get("inputs", ["common"] * len(operands))
        if len(roles) != len(operands):
            raise _Unfusable(f"{rec_name}: {len(operands)} operands for {len(roles)}")
        if "own" in roles:
            raise _Unfusable(f"{rec_name}: operands of their own dtype")
        prom = rec.get("promotion", "default")
        common_vals = [v for v, r in zip(operands, roles) if r == "common"]
        common = fixed_common or _promote(common_vals)
        if prom == "int_to_float" and not common.is_floating_point:
            common = torch.float32
        elif prom == "bool_to_long" and common == torch.bool:
            common = torch.int64
        compute = common if prom == "no_opmath" else _opmath(common)
        fixed = rec.get("fixed_result")
        result = torch.bool if prom == "always_bool" else common
        if fixed:
            result = getattr(torch, fixed)
        rc = torch.bool if (prom == "always_bool" or result == torch.bool) else (
            _compute(result) if fixed else compute)
        if compute == torch.float64 or result == torch.float64:
            pass
        scalar_opmath = bool(rec.get("scalar_opmath"))
        codes = []
        for v, role in zip(operands, roles):
            if role == "bool":
                if v.is_scalar:
                    codes.append(_literal(bool(v.scalar), torch.bool))
                else:
                    codes.append(_convert(v.code, v.dtype, torch.bool))
                continue
            if v.is_scalar:
                s = v.scalar
                if isinstance(s, float) and not scalar_opmath:
                    s = _scalar_as(s, common)
                elif isinstance(s, float):
                    s = s if common == torch.float64 else _to_f32(s)
                codes.append(_literal(s, compute))
            elif common in (torch.float16, torch.bfloat16) and v.dtype != common:
                codes.append(_round(_convert(v.code, v.dtype, torch.float32), common))
            else:
                codes.append(_convert(v.code, v.dtype, compute))
        kinds = rec.get("params") or {}
        pcodes = []
        for (pname, pkind), p in zip(kinds.items(), params):
            if pkind == "int":
                pcodes.append(_literal(int(p), torch.int64))
            elif pkind == "float":
                pcodes.append(_literal(p, torch.float64 if compute == torch.float64
                                       else torch.float32))
            else:
                pv = p
                if isinstance(pv, float) and compute != torch.float64:
                    pv = _to_f32(pv)
                pcodes.append(_literal(pv, compute))
        if len(pcodes) != len(kinds):
            raise _Unfusable(f"{rec_name}: parameters missing")
        if compute == torch.bool:
            cls = "expr_bool"
        elif compute == torch.uint8:
            cls = "expr_uint"
        elif compute.is_floating_point:
            cls = "expr_float"
        else:
            cls = "expr_sint"
        expr = rec.get(cls) or rec.get("expr")
        if expr is None:
            raise _Unfusable(f"{rec_name}: no expression for {compute}")
        if compute != torch.bool and not compute.is_floating_point and "$U" in expr:
            expr = expr.replace("$U", _UNSIGNED[compute])
        expr = expr.replace("$T", _CL[compute]).replace("$R", _CL[_compute(rc)])
        expr = _substitute(expr, codes, pcodes)
        helpers = rec.get("helpers")
        if helpers:
            h = "\n".join(helpers) if isinstance(helpers, list) else helpers
            if h not in self.helpers:
                self.helpers.append(h)
        r = self.var(_CL[_compute(rc)], f"({expr})")
        # store: to the result dtype, rounded where it is a 16-bit float
        stored = _convert(r, rc, result)
        if result in (torch.float16, torch.bfloat16):
            stored = _round(stored, result)
        if stored != r:
            r = self.var(_CL[_compute(result)], stored)
        return _Value(r, result, meta=_dummy(result))

    def cast(self, v, dt):
        """_to_copy(v, dtype=dt): PyTorch's cast (copy_)."""
        code = _convert(v.code, v.dtype, dt)
        if dt in (torch.float16, torch.bfloat16) and v.dtype != dt:
            code = _round(code, dt)
        if code == v.code:
            return _Value(v.code, dt, meta=_dummy(dt))
        return _Value(self.var(_CL[_compute(dt)], code), dt, meta=_dummy(dt))


_DUMMIES = {}


def _dummy(dt):
    """A one-dimensional meta tensor of dtype dt: an intermediate value for
    type promotion (every fused intermediate has dimensions, except that a
    zero-dim one promotes like a dimensioned one here; see _fusible)."""
    t = _DUMMIES.get(dt)
    if t is None:
        t = _DUMMIES[dt] = torch.empty(1, dtype=dt, device="meta")
    return t


def _substitute(expr, codes, pcodes):
    """Replaces the operands a..d and parameters p0..p3 of an inventory
    expression by code, token by token."""
    import re

    def sub(m):
        tok = m.group(0)
        if len(tok) == 1 and tok in "abcd":
            j = "abcd".index(tok)
            if j < len(codes):
                return f"({codes[j]})"
        elif tok[0] == "p" and tok[1:].isdigit():
            k = int(tok[1:])
            if k < len(pcodes):
                return f"({pcodes[k]})"
        return tok

    return re.sub(r"\b[A-Za-z_][A-Za-z_0-9]*\b", sub, expr)


# --------------------------------------------------------------------------
# The ATen ops a group may hold and how each one is written.

_POW_MODES = {0.5: 1, -0.5: 2, -1.0: 3, 2.0: 4, 3.0: 5, -2.0: 6}


def _meta(x):
    return x.meta.get("val") if isinstance(x, torch.fx.Node) else None


def _emit_node(em, node, vals):
    """Writes node's op given vals(arg) -> _Value; returns its _Value or
    raises _Unfusable."""
    t = node.target
    a = node.args
    kw = node.kwargs
    name = t.name() if hasattr(t, "name") else str(t)
    short = name.split("::")[-1]
    if short.endswith(".default"):
        short = short[: -len(".default")]
    if t == aten.clone.default or t == aten.expand.default:
        # a copy, or an expand to the shape it has: the value itself (the
        # group's output gets eager's layout, _run_fused)
        return vals(a[0])
    if t == aten._to_copy.default:
        if set(kw) - {"dtype", "layout", "device"} or len(a) != 1:
            raise _Unfusable("_to_copy with options")
        return em.cast(vals(a[0]), kw.get("dtype", _meta(a[0]).dtype))
    if t == aten.where.self:
        return em.apply("where", [vals(a[0]), vals(a[1]), vals(a[2])])
    if t == aten.clamp_min.default:
        return em.apply("clamp_min", [vals(a[0]), vals(a[1])])
    if t == aten.clamp_max.default:
        return em.apply("clamp_max", [vals(a[0]), vals(a[1])])
    if t == aten.clamp.default:
        lo = a[1] if len(a) > 1 else kw.get("min")
        hi = a[2] if len(a) > 2 else kw.get("max")
        if lo is None or hi is None:
            which = "clamp_min" if hi is None else "clamp_max"
            return em.apply(which, [vals(a[0]), vals(lo if hi is None else hi)])
        return em.apply("clamp", [vals(a[0]), vals(lo), vals(hi)])
    if t == aten.gelu.default:
        approx = kw.get("approximate", "none")
        return em.apply("gelu_tanh" if approx == "tanh" else "gelu", [vals(a[0])])
    if t == aten.gelu_backward.default:
        approx = kw.get("approximate", "none")
        return em.apply("gelu_backward_tanh" if approx == "tanh" else "gelu_backward",
                        [vals(a[0]), vals(a[1])])
    if t == aten.threshold_backward.default:
        return em.apply("threshold_backward", [vals(a[0]), vals(a[1])], [a[2]])
    if t == aten.native_dropout_backward.default:
        # PyTorch's composite: grad_output * mask * scale
        return em.apply("mul", [em.apply("mul", [vals(a[0]), vals(a[1])]), vals(float(a[2]))])
    if t == aten.pow.Tensor_Scalar:
        x, e = vals(a[0]), a[1]
        if not isinstance(e, float) or e not in _POW_MODES or not x.dtype.is_floating_point:
            raise _Unfusable("pow exponent")
        return em.apply("pow", [x, vals(e)], [_POW_MODES[e]])
    if t == aten.sub.Tensor or t == aten.add.Tensor:
        alpha = kw.get("alpha", 1)
        return em.apply("sub" if t == aten.sub.Tensor else "add", [vals(a[0]), vals(a[1])],
                        [alpha])
    if t == aten.rsub.Scalar:
        alpha = kw.get("alpha", a[2] if len(a) > 2 else 1)
        return em.apply("sub", [vals(a[1]), vals(a[0])], [alpha])
    if t == aten.div.Tensor_mode:
        mode = kw.get("rounding_mode")
        rec = {None: "div", "trunc": "div_trunc", "floor": "div_floor"}[mode]
        return em.apply(rec, [vals(a[0]), vals(a[1])])
    _, bindings = _inventory()
    bound = bindings.get(short)
    if bound is None:
        raise _Unfusable(f"{short} is not a pointwise op clops fuses")
    rec_name, argnames = bound
    records, _ = _inventory()
    rec = records[rec_name]
    pnames = list((rec.get("params") or {}).keys())
    schema = t._schema
    given = {}
    for i, arg in enumerate(schema.arguments):
        if i < len(a):
            given[arg.name] = a[i]
        elif arg.name in kw:
            given[arg.name] = kw[arg.name]
        elif arg.has_default_value():
            given[arg.name] = arg.default_value
    operands, params = [], []
    for n in argnames:
        if n in pnames:
            continue
        operands.append(vals(given[n]))
    for p in pnames:
        if p not in given:
            raise _Unfusable(f"{short}: parameter {p}")
        params.append(given[p])
    return em.apply(rec_name, operands, params)


def _static(sizes):
    return all(type(s) is int for s in sizes)


def _identity(node, val):
    """clone (any layout but channels-last) or an expand to the input's own
    shape, with plain (not symbolic) sizes and strides: inside a group they
    are the value itself, and a group's output is written in eager's layout."""
    src = _meta(node.args[0]) if node.args else None
    if not isinstance(src, torch.Tensor) or not _static(val.shape) or not _static(val.stride()):
        return False
    if node.target == aten.clone.default:
        return node.kwargs.get("memory_format") in (None, torch.preserve_format,
                                                    torch.contiguous_format)
    return (node.target == aten.expand.default and _static(src.shape)
            and tuple(src.shape) == tuple(val.shape) and not node.kwargs)


def _fusible(node):
    """Whether node may be part of a group (a cheap structural check; the
    emission itself may still refuse it)."""
    if node.op != "call_function" or not isinstance(node.target, torch._ops.OpOverload):
        return False
    val = node.meta.get("val")
    if not isinstance(val, torch.Tensor) or val.device.type != "clops":
        return False
    if val.dtype not in _CL:
        return False
    if node.target in (aten.clone.default, aten.expand.default):
        src = _meta(node.args[0]) if node.args else None
        return (_identity(node, val) and src.device.type == "clops"
                and src.dtype == val.dtype)
    for x in list(node.args) + list(node.kwargs.values()):
        if isinstance(x, torch.fx.Node):
            v = _meta(x)
            if not isinstance(v, torch.Tensor) or v.device.type != "clops" or v.dtype not in _CL:
                return False
        elif isinstance(x, (torch.SymInt, torch.SymFloat, torch.SymBool, list, tuple)):
            return False
    # A dry run decides: emit the node alone on placeholder operands.
    try:
        em = _Emitter()
        _emit_node(em, node, lambda x: x if isinstance(x, _Value) else (
            _Value("x", _meta(x).dtype, _meta(x)) if isinstance(x, torch.fx.Node)
            else _Value(None, None, None, scalar=x)))
        return True
    except (_Unfusable, KeyError, ValueError, TypeError):
        return False


# --------------------------------------------------------------------------
# Grouping and graph rewriting.

_MAX_OPERANDS = 4
_DEBUG = bool(os.environ.get("CLOPS_COMPILE_DEBUG"))
_DEBUG_GRAPHS = os.environ.get("CLOPS_COMPILE_DEBUG") == "2"   # and the graphs' code


class _Group:
    def __init__(self, root):
        self.root = root
        self.members = {root}

    def inputs(self, extra=None):
        """Distinct tensor nodes from outside the group the members read."""
        members = self.members | ({extra} if extra else set())
        seen = []
        for m in members:
            for x in m.all_input_nodes:
                if x not in members and x not in seen:
                    seen.append(x)
        return seen


def _groups(gm):
    nodes = list(gm.graph.nodes)
    order = {n: i for i, n in enumerate(nodes)}
    fusible = {n for n in nodes if _fusible(n)}
    owner = {}
    groups = []
    for n in reversed(nodes):
        if n not in fusible or n in owner:
            continue
        g = _Group(n)
        owner[n] = g
        frontier = [n]
        while frontier:
            m = frontier.pop()
            for p in m.all_input_nodes:
                if p not in fusible or p in owner:
                    continue
                if any(u not in g.members for u in p.users):
                    continue
                if len(g.inputs(extra=p)) > _MAX_OPERANDS:
                    continue
                g.members.add(p)
                owner[p] = g
                frontier.append(p)
        if len(g.inputs()) > _MAX_OPERANDS:
            for m in g.members:
                owner.pop(m, None)
            owner[n] = None
            continue
        groups.append(g)
    work = [g for g in groups if len(g.members) >= 2]
    for g in work:
        g.order = sorted(g.members, key=order.get)
    return work


_registered = {}


def _generate(g):
    """(name, n_in, expr, helpers, result dtype name, input nodes) of a group."""
    inputs = sorted(g.inputs(), key=lambda x: x.name)
    # order operands by first use, so the code does not depend on node names
    first = {}
    for m in g.order:
        for x in m.all_input_nodes:
            if x in inputs and x not in first:
                first[x] = len(first)
    inputs.sort(key=first.get)
    em = _Emitter()
    env = {}
    for j, x in enumerate(inputs):
        env[x] = _Value("abcd"[j], _meta(x).dtype, _meta(x))

    def vals(x):
        if isinstance(x, torch.fx.Node):
            return env[x]
        return _Value(None, None, None, scalar=x)

    for m in g.order:
        v = _emit_node(em, m, vals)
        want = _meta(m).dtype
        if v.dtype != want:
            raise _Unfusable(f"{m.name}: dtype {v.dtype}, eager gives {want}")
        env[m] = _Value(v.code, v.dtype, _meta(m))
    out = env[g.root]
    result = _meta(g.root).dtype
    params = ", ".join(f"{_CL[_compute(_meta(x).dtype)]} {'abcd'[j]}"
                       for j, x in enumerate(inputs))
    body = "\n".join(em.lines)
    key = hashlib.sha256(("\n".join(em.helpers) + params + body + out.code + _NAMES[result])
                         .encode()).hexdigest()[:16]
    fn = f"clops_fused_{key}"
    helpers = "\n".join(em.helpers)
    helpers += (f"\n{_CL[_compute(result)]} {fn}_body({params})\n{{\n{body}\n"
                f"    return {out.code};\n}}\n")
    expr = f"{fn}_body({', '.join('abcd'[j] for j in range(len(inputs)))})"
    return fn, len(inputs), expr, helpers, _NAMES[result], inputs


def _run_fused(op_id, layout, *inputs):
    """Runs fused op op_id; with a static layout (shape, strides, dtype) into
    a new tensor laid out as eager lays out the group's root (its .out
    variant), else into one laid out as the inputs are."""
    if layout is None:
        return _C.fused_call(op_id, list(inputs))
    shape, strides, dtype = layout
    out = torch.empty_strided(shape, strides, dtype=dtype, device=inputs[0].device)
    return _C.fused_call(op_id, list(inputs), out)


def _layout(val):
    """(shape, strides, dtype) of the root when they are plain numbers (not
    symbolic: reading a symbolic one would add a guard) and the strides
    overlap nothing; else None."""
    shape, strides = val.shape, val.stride()
    if not _static(shape) or not _static(strides):
        return None
    if val.numel() > 1 and any(st == 0 and sz > 1 for st, sz in zip(strides, shape)):
        return None
    return tuple(shape), tuple(strides), val.dtype


# --------------------------------------------------------------------------
# Epilogue fusion: a matrix product and its pointwise consumers as one
# engine GEMM (_clops_addmm_epilogue, the matrix engine's fused epilogue).

# The activations the engine's epilogue applies (ops/gemm/gemm.h gemm_act).
_EPI_ACTS = {aten.relu.default: 1, aten.hardswish.default: 3, aten.silu.default: 4,
             aten.sigmoid.default: 7, aten.hardsigmoid.default: 8}
_EPI_VIEWS = (aten.view.default, aten._unsafe_view.default)
_EPI_DTYPES = (torch.float32, torch.float16, torch.bfloat16)


def _epi_act(node, x):
    """The gemm_act number of node when it is an activation of x alone."""
    if node.op != "call_function" or not node.args or node.args[0] is not x:
        return None
    if node.target in _EPI_ACTS and len(node.args) == 1 and not node.kwargs:
        return _EPI_ACTS[node.target]
    if node.target == aten.gelu.default and len(node.args) == 1:
        approx = node.kwargs.get("approximate", "none")
        return {"none": 5, "tanh": 6}.get(approx)
    return None


def _epi_residual(node, x):
    """The other operand of node when node is x + other (alpha 1) of x's
    shape and dtype (no broadcast, no promotion), else None."""
    if node.op != "call_function" or node.target != aten.add.Tensor or len(node.args) != 2:
        return None
    if node.kwargs.get("alpha", 1) != 1:
        return None
    a, b = node.args
    r = b if a is x else a if b is x else None
    if not isinstance(r, torch.fx.Node) or r is x:
        return None
    rv, xv = _meta(r), _meta(x)
    if (not isinstance(rv, torch.Tensor) or rv.device.type != "clops" or rv.dtype != xv.dtype
            or not _static(rv.shape) or tuple(rv.shape) != tuple(xv.shape)):
        return None
    return r


def _act_residual(cur, act_of):
    """The activation and/or residual add (alpha 1, in either order) that
    consume cur, each the only user of the value before: (the nodes taken,
    residual node or None, activation number (act_of: the gemm_act number
    of a node applied to a value, or None), residual after the
    activation).  Nothing taken: ([], None, 0, False)."""
    c = _only_user(cur)
    if c is None:
        return [], None, 0, False
    a = act_of(c, cur)
    if a is not None:
        d = _only_user(c)
        r = _epi_residual(d, c) if d is not None else None
        return ([c, d], r, a, True) if r is not None else ([c], None, a, False)
    r = _epi_residual(c, cur)
    if r is None:
        return [], None, 0, False
    d = _only_user(c)
    a = act_of(d, c) if d is not None else None
    return ([c, d], r, a, False) if a is not None else ([c], r, 0, False)


def _only_user(node):
    users = list(node.users)
    return users[0] if len(users) == 1 else None


def _epilogue_plan(p):
    """For a matrix product node p (addmm or mm), the chain of its consumers
    the engine's epilogue can take: (nodes to replace in order, residual
    node or None, activation, residual after the activation, the view's
    shape or None), or None."""
    if p.op != "call_function" or p.target not in (aten.addmm.default, aten.mm.default):
        return None
    val = _meta(p)
    if (not isinstance(val, torch.Tensor) or val.device.type != "clops"
            or val.dtype not in _EPI_DTYPES or not _static(val.shape)):
        return None
    for k in ("beta", "alpha"):
        if type(p.kwargs.get(k, 1)) not in (int, float):
            return None
    chain = [p]
    cur = p
    view = None
    u = _only_user(cur)
    if u is not None and u.op == "call_function" and u.target in _EPI_VIEWS and u.args[0] is cur:
        uv = _meta(u)
        if not isinstance(uv, torch.Tensor) or not _static(uv.shape):
            return None
        view = tuple(uv.shape)
        chain.append(u)
        cur = u
    # dropout that drops nothing: PyTorch up to 2.14 decomposes it into a
    # clone (HF GPT-2's resid_dropout after c_proj in eval on the GPU host's
    # 2.11: every residual add stayed a pointwise kernel of its own)
    u = _only_user(cur)
    if u is not None and u.args and u.args[0] is cur and _att_identity_clone(u):
        chain.append(u)
        cur = u
    taken, residual, act, after = _act_residual(cur, _epi_act)
    if not taken:
        return None
    chain += taken
    end = _meta(chain[-1])
    # the result is written contiguously: eager's layout must be that
    if (not isinstance(end, torch.Tensor) or end.dtype != val.dtype or not _static(end.stride())
            or not end.is_contiguous()):
        return None
    if residual is not None and residual in chain:
        return None
    return chain, residual, act, after, view


def _run_epilogue(self, mat1, mat2, residual, beta, alpha, act, after):
    """_clops_addmm_epilogue on the graph's tensors (self None for mm)."""
    return _C.addmm_epilogue(self, mat1, mat2, residual, float(beta), float(alpha), act, after)


def _emit_epilogue(gm, p, chain, residual, act, after, view, label):
    """Replaces the nodes of chain (p, its view, its consumers; the last one's
    value is the result) by one _clops_addmm_epilogue call (and the view of
    its [M, N] result)."""
    end = chain[-1]
    m, n = _meta(p).shape
    if p.target == aten.addmm.default:
        self_, mat1, mat2 = p.args[:3]
        beta, alpha = p.kwargs.get("beta", 1), p.kwargs.get("alpha", 1)
    else:
        (mat1, mat2), self_, beta, alpha = p.args[:2], None, 0, 1
    g = gm.graph
    with g.inserting_before(end):
        res = residual
        if residual is not None and view is not None:
            res = g.call_function(aten.reshape.default, (residual, [m, n]))
            res.meta = {"val": _meta(residual).reshape(m, n)}
        new = g.call_function(_run_epilogue, (self_, mat1, mat2, res, beta, alpha, act, after))
        new.meta = dict(p.meta)
        out = new
        if view is not None:
            out = g.call_function(aten.view.default, (new, list(view)))
    out.meta = dict(end.meta)
    end.replace_all_uses_with(out)
    for x in reversed(chain):
        g.erase_node(x)
    if _DEBUG:
        print(f"clops compile [{label}]: epilogue: {len(chain)} nodes from {p.name} "
              f"[{', '.join(str(x.target).replace('aten.', '') for x in chain)}] as one "
              f"_clops_addmm_epilogue (activation {act}, residual "
              f"{'none' if residual is None else ('after' if after else 'before')})",
              file=sys.stderr)


# Activations the epilogue computes slower than eager's own kernel on CPU
# devices: silu, tanh GELU, sigmoid (POCL evaluates exp/tanh in eager
# kernels with its vector math library, in the GEMM's store per element).
# POCL on the 2-core VM, [128, 768] x [768, 3072] float32 with bias, CPU
# time per call: silu 19.3 ms fused against 13.6 ms addmm + silu, tanh
# GELU 23.4 against 14.5, sigmoid 14.1 against 12.0; relu 11.7 against
# 11.4 and exact GELU 34.3 against 43.3 pay or tie.
_EPI_ACTS_SLOW_ON_CPU = (4, 6, 7)


def _epi_act_pays(act, p):
    """Whether the engine's epilogue should take activation act of product
    node p (CLOPS_COMPILE_EPILOGUE_ACTS=1: always): everywhere but the
    _EPI_ACTS_SLOW_ON_CPU ones on CPU devices."""
    if act not in _EPI_ACTS_SLOW_ON_CPU or os.environ.get("CLOPS_COMPILE_EPILOGUE_ACTS") == "1":
        return True
    return _device_gpu(_meta(p).device.index or 0)


def _lower_epilogues(gm, label):
    """Rewrites each addmm/mm whose only consumer chain is [view], then an
    activation and/or a residual add, into one _clops_addmm_epilogue call
    (where the activation pays there, _epi_act_pays)."""
    n = 0
    for p in list(gm.graph.nodes):
        plan = _epilogue_plan(p)
        if plan is not None and not _epi_act_pays(plan[2], p):
            if _DEBUG:
                print(f"clops compile [{label}]: epilogue at {p.name} left as written "
                      f"(activation {plan[2]} is slower fused on a CPU device)", file=sys.stderr)
            continue
        if plan is not None:
            chain, residual, act, after, view = plan
            _emit_epilogue(gm, p, chain, residual, act, after, view, label)
            n += 1
    return n


# --------------------------------------------------------------------------
# Convolution epilogues: a convolution, the eval batch norm after it, an
# activation and a residual add as one _clops_conv_epilogue call (the batch
# norm folded into the matrix engine's weight and bias, the rest in its
# store; docs/conv.md).

_CONV_BN = (aten._native_batch_norm_legit_no_training.default, aten.native_batch_norm.default)


def _conv_act(node, x):
    """_epi_act, plus hardtanh(0, 6) (relu6: gemm_act 2)."""
    a = _epi_act(node, x)
    if a is not None:
        return a
    if (node.op == "call_function" and node.target == aten.hardtanh.default and node.args
            and node.args[0] is x and not node.kwargs and len(node.args) == 3
            and node.args[1] == 0 and node.args[2] == 6):
        return 2
    return None


def _conv_bn(c, x, dtype, channels):
    """For a batch-norm node c of x in eval mode (its statistics and affine
    clops tensors [channels] of dtype, or None for the affine), the nodes
    it takes (c, its getitem 0 and unused getitems), the getitem 0 (its
    value) and (weight, bias, mean, var, eps); else None."""
    import operator
    if c.op != "call_function" or c.target not in _CONV_BN or not c.args or c.args[0] is not x:
        return None
    a = list(c.args) + [None] * 8
    if c.target == aten.native_batch_norm.default:
        if a[5] is not False:
            return None
        w, b, mean, var, eps = a[1], a[2], a[3], a[4], a[7]
    else:
        w, b, mean, var, eps = a[1], a[2], a[3], a[4], a[6]
    if type(eps) not in (int, float) or c.kwargs:
        return None
    for t, optional in ((w, True), (b, True), (mean, False), (var, False)):
        if t is None and optional:
            continue
        v = _meta(t) if isinstance(t, torch.fx.Node) else None
        if (not isinstance(v, torch.Tensor) or v.device.type != "clops" or v.dtype != dtype
                or tuple(v.shape) != (channels,)):
            return None
    taken, out = [c], None
    for u in c.users:
        if (u.op != "call_function" or u.target is not operator.getitem
                or not isinstance(u.args[1], int)):
            return None
        if u.args[1] == 0:
            out = u
        elif u.users:
            return None
        taken.append(u)
    if out is None:
        return None
    return taken, out, (w, b, mean, var, float(eps))


def _conv_epilogue_plan(p):
    """For a convolution node p, the chain of its consumers
    _clops_conv_epilogue takes: an eval batch norm, an activation and/or a
    residual add (before or after it), each the only user of the value
    before: (nodes to replace, batch-norm arguments or None, residual node
    or None, activation, residual after the activation), or None when there
    is nothing to fuse."""
    if p.op != "call_function" or p.target != aten.convolution.default or len(p.args) != 9:
        return None
    val = _meta(p)
    if (not isinstance(val, torch.Tensor) or val.device.type != "clops"
            or val.dtype not in _FLOATS or not _static(val.shape) or not _static(val.stride())):
        return None
    for lst in p.args[3:6] + (p.args[7],):
        if not isinstance(lst, (list, tuple)) or not all(type(v) is int for v in lst):
            return None
    if type(p.args[8]) is not int or type(p.args[6]) is not bool:
        return None
    chain, cur, bn = [p], p, None
    c = _only_user(cur)
    if c is not None and c.op == "call_function" and c.target in _CONV_BN:
        got = _conv_bn(c, cur, val.dtype, val.shape[1])
        if got is None:
            return None
        taken, cur, bn = got
        chain += taken
    taken, residual, act, after = _act_residual(cur, _conv_act)
    chain += taken
    if bn is None and residual is None and act == 0:
        return None
    end = _meta(chain[-1])
    # the op lays its result out as the convolution's: eager's must be that
    if (not isinstance(end, torch.Tensor) or end.dtype != val.dtype
            or tuple(end.shape) != tuple(val.shape) or not _static(end.stride())
            or tuple(end.stride()) != tuple(val.stride())):
        return None
    if residual is not None and residual in chain:
        return None
    return chain, bn, residual, act, after


def _run_conv_epilogue(x, w, b, stride, padding, dilation, transposed, output_padding, groups,
                       scale, shift, mean, var, eps, residual, act, after):
    """_clops_conv_epilogue on the graph's tensors."""
    return _C.conv_epilogue(x, w, b, list(stride), list(padding), list(dilation), transposed,
                            list(output_padding), groups, scale, shift, mean, var, float(eps),
                            residual, act, after)


def _lower_conv_epilogues(gm, label):
    """Rewrites each convolution whose only consumer chain is an eval batch
    norm, an activation and/or a residual add into one _clops_conv_epilogue
    call (none while CLOPS_COMPILE_CONV_EPILOGUES=0, for measurements), on
    every device: on CPU devices fused is faster (POCL: ResNet-18 batch 4,
    128x128, 173 ms fused against 228 ms, docs/conv.md), and on GPUs since
    the engine's store reads a row's bias and residual before its stores
    (H100, bf16 channels-last, batch 32, bench/cases/conv_epilogue.yaml,
    the fifth stop's final job: ResNet-18 layer-3 3x3 conv + batch norm +
    residual + relu 101.9 us fused against 97.9 + 59.9 + 9.8 + 9.5 us as
    separate ops; MobileNetV3 1x1 16->64 + batch norm + relu 484.5 against
    405.9 + 325.4 + 42.2; 1x1 120->40 + batch norm + residual 51.0 against
    38.2 + 69.2 + 10.9; depthwise 3x3 + batch norm + hardswish 219.8
    against 239.5 for the convolution alone)."""
    n = 0
    g = gm.graph
    if os.environ.get("CLOPS_COMPILE_CONV_EPILOGUES") == "0":
        return n
    for p in list(g.nodes):
        plan = _conv_epilogue_plan(p)
        if plan is None:
            continue
        chain, bn, residual, act, after = plan
        end = chain[-1]
        scale, shift, mean, var, eps = bn if bn is not None else (None, None, None, None, 1e-5)
        with g.inserting_before(end):
            new = g.call_function(_run_conv_epilogue,
                                  tuple(p.args) + (scale, shift, mean, var, eps, residual, act,
                                                   after))
        new.meta = dict(end.meta)
        end.replace_all_uses_with(new)
        for x in reversed(chain):
            g.erase_node(x)
        n += 1
        if _DEBUG:
            print(f"clops compile [{label}]: conv epilogue: {len(chain)} nodes from {p.name} "
                  f"[{', '.join(str(x.target).replace('aten.', '') for x in chain)}] as one "
                  f"_clops_conv_epilogue (batch norm {'yes' if bn else 'no'}, activation {act}, "
                  f"residual {'none' if residual is None else ('after' if after else 'before')})",
                  file=sys.stderr)
    return n


# The engine's activations as functions (float64), to recognise a pointwise
# group that computes one of them written out (GPT-2's tanh GELU formula).
_ACT_REFS = {
    1: lambda x: x.clamp_min(0),
    3: lambda x: x * (x + 3).clamp(0, 6) / 6,
    4: lambda x: x * torch.sigmoid(x),
    5: lambda x: 0.5 * x * (1 + torch.erf(x / math.sqrt(2.0))),
    6: lambda x: 0.5 * x * (1 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x ** 3))),
    7: torch.sigmoid,
}


def _group_activation(g, x):
    """The gemm_act number of the engine activation that group g computes
    of its one input x: the group's ops evaluated in float64 on 641 points
    of [-10, 10] equal the activation's formula within 1e-6 relative (the
    constants written to a few digits fail).  None when no activation does."""
    from torch._subclasses.fake_tensor import unset_fake_temporarily
    # the backend runs under the graph's fake mode: the probes are real
    with unset_fake_temporarily():
        try:
            probes = torch.linspace(-10.0, 10.0, 641, dtype=torch.float64)
            env = {x: probes}
            for m in g.order:
                if m.target == aten._to_copy.default:
                    return None
                args = torch.fx.node.map_arg(m.args, lambda a: env[a])
                kwargs = torch.fx.node.map_arg(m.kwargs, lambda a: env[a])
                env[m] = m.target(*args, **kwargs)
            out = env[g.root]
            if (not isinstance(out, torch.Tensor) or out.dtype != torch.float64
                    or out.shape != probes.shape):
                return None
            for act, ref in _ACT_REFS.items():
                if torch.allclose(out, ref(probes), rtol=1e-6, atol=1e-12):
                    return act
        except Exception:   # an op the probe cannot evaluate: no match
            return None
    return None


def _group_as_epilogue(gm, g, label):
    """Lowers a pointwise group whose one input is (a view of) a matrix
    product used by nothing else, and which computes an engine activation,
    onto the product's epilogue; True when done."""
    inputs = g.inputs()
    if len(inputs) != 1:
        return False
    x = inputs[0]
    if any(u not in g.members for u in x.users):
        return False
    p, view = x, None
    if x.op == "call_function" and x.target in _EPI_VIEWS:
        p = x.args[0]
        if not isinstance(p, torch.fx.Node) or list(p.users) != [x]:
            return False
        xv = _meta(x)
        if not isinstance(xv, torch.Tensor) or not _static(xv.shape):
            return False
        view = tuple(xv.shape)
    if not isinstance(p, torch.fx.Node) or p.op != "call_function" or \
            p.target not in (aten.addmm.default, aten.mm.default):
        return False
    val, end = _meta(p), _meta(g.root)
    if (not isinstance(val, torch.Tensor) or val.device.type != "clops"
            or val.dtype not in _EPI_DTYPES or not _static(val.shape)
            or any(type(p.kwargs.get(k, 1)) not in (int, float) for k in ("beta", "alpha"))
            or not isinstance(end, torch.Tensor) or end.dtype != val.dtype
            or tuple(end.shape) != tuple(_meta(x).shape) or not _static(end.stride())
            or not end.is_contiguous()):
        return False
    act = _group_activation(g, x)
    if act is None or not _epi_act_pays(act, p):
        return False
    chain = [p] + ([x] if view is not None else []) + list(g.order)
    _emit_epilogue(gm, p, chain, None, act, False, view, label)
    return True


# --------------------------------------------------------------------------
# Attention pattern lowering: attention written out (HF's eager attention,
# BERT, T5, ViT, nanoGPT) as one scaled_dot_product_attention call, which
# clops runs on its fused kernel (python/csrc/attention.cpp).

_ATT_DTYPES = (torch.float32, torch.float16, torch.bfloat16)
_ATT_RESHAPES = (aten.view.default, aten._unsafe_view.default, aten.reshape.default)
_ATT_CASTS = (aten._to_copy.default,)


def _att_call(node, *targets):
    return (isinstance(node, torch.fx.Node) and node.op == "call_function"
            and node.target in targets)


def _att_tensor(node):
    """node's meta tensor when it is a clops tensor of static shape and
    strides, else None."""
    v = _meta(node)
    if (isinstance(v, torch.Tensor) and v.device.type == "clops" and _static(v.shape)
            and _static(v.stride())):
        return v
    return None


def _att_shape(node):
    v = _att_tensor(node)
    return tuple(v.shape) if v is not None else None


def _att_peel(node, shape, chain):
    """The tensor of shape `shape` (batch dimensions, then a matrix) that a
    bmm operand `node` ([N, M, K]) holds: what matmul of [..., M, K] tensors
    makes of it, a reshape (view/_unsafe_view) of a contiguous clone of an
    expand to its own shape, each step optional.  The nodes passed through
    (used by the next step alone) go to chain; None when node is none of
    that."""
    x = node
    steps = ((_ATT_RESHAPES, None), ((aten.clone.default,), "clone"),
             ((aten.expand.default,), "expand"))
    for targets, kind in steps:
        if not _att_call(x, *targets) or len(x.users) != 1:
            continue
        src = x.args[0]
        if _att_tensor(x) is None or _att_tensor(src) is None:
            return None
        if kind == "clone" and (set(x.kwargs) - {"memory_format"} or x.kwargs.get(
                "memory_format") not in (None, torch.preserve_format, torch.contiguous_format)):
            return None
        if kind is not None and _att_shape(src) != _att_shape(x):
            return None
        chain.append(x)
        x = src
    return x if _att_shape(x) == tuple(shape) else None


def _att_identity_clone(node):
    """Whether node is a clone that keeps its source's shape and memory
    format (a plain copy, one user): what dropout that drops nothing
    becomes."""
    if not _att_call(node, aten.clone.default) or len(node.users) != 1:
        return False
    if set(node.kwargs) - {"memory_format"} or node.kwargs.get("memory_format") not in (
            None, torch.preserve_format, torch.contiguous_format):
        return False
    v, src = _att_tensor(node), _att_tensor(node.args[0])
    return v is not None and src is not None and v.shape == src.shape


def _att_cast(node):
    """The dtype a _to_copy node casts to when it changes nothing else (one
    user), else None."""
    if (not _att_call(node, *_ATT_CASTS) or len(node.args) != 1 or len(node.users) != 1
            or set(node.kwargs) - {"dtype", "layout", "device"}
            or node.kwargs.get("layout", torch.strided) != torch.strided):
        return None
    v, src = _att_tensor(node), _att_tensor(node.args[0])
    if v is None or src is None or v.device != src.device:
        return None
    return node.kwargs.get("dtype")


def _att_number(x):
    """A Python number, or the value of a 0-dim full()/scalar_tensor() node."""
    if type(x) in (int, float):
        return float(x)
    if (_att_call(x, aten.full.default) and list(x.args[0]) == []
            and type(x.args[1]) in (int, float)):
        return float(x.args[1])
    if _att_call(x, aten.scalar_tensor.default) and type(x.args[0]) in (int, float):
        return float(x.args[0])
    return None


def _att_product(x, chain):
    """(bmm node, its [*batch, M, N] result node) when x is a bmm or a view
    of one to [*batch, M, N] (matmul of 3-D or 4-D tensors)."""
    if _att_call(x, aten.bmm.default):
        return x, x
    if not _att_call(x, *_ATT_RESHAPES) or not _att_call(x.args[0], aten.bmm.default):
        return None
    b, v, bv = x.args[0], _att_shape(x), _att_shape(x.args[0])
    if v is None or bv is None or len(b.users) != 1 or len(v) not in (3, 4):
        return None
    if v[-2:] != bv[1:] or math.prod(v[:-2]) != bv[0]:
        return None
    chain.append(x)
    return b, x


def _att_scores(x, chain):
    """(first bmm, scale) when x is bmm(q, k^T) [viewed to 4-D] [times or
    divided by a number]."""
    scale = 1.0
    if _att_call(x, aten.mul.Tensor, aten.div.Tensor) and len(x.users) == 1:
        a, b = x.args[:2]
        c, s = _att_number(b), a
        if c is None and x.target == aten.mul.Tensor:
            c, s = _att_number(a), b
        if c is None or c == 0 or not math.isfinite(c) or not isinstance(s, torch.fx.Node):
            return None
        scale = c if x.target == aten.mul.Tensor else 1.0 / c
        chain.append(x)
        chain.extend(y for y in (a, b) if isinstance(y, torch.fx.Node) and y is not s)
        x = s
    found = _att_product(x, chain)
    if found is None or len(x.users) != 1:
        return None
    chain.append(found[0])
    return found[0], scale


def _att_ones(node):
    """Whether node is a bool tensor of ones: ones(), full(True)."""
    v = _att_tensor(node)
    if v is None or v.dtype != torch.bool:
        return False
    return _att_call(node, aten.ones.default) or (
        _att_call(node, aten.full.default) and node.args[1] in (True, 1))


def _att_triangle(node, target, diagonal, lq, lk, chain):
    """Whether node is target(ones, diagonal) of [.., lq, lk], lq == lk:
    tril(ones) keeps what top-left causal attention keeps, triu(ones, 1)
    is what it masks out (node and the ones go to chain)."""
    if lq != lk or not _att_call(node, target) or len(node.users) != 1:
        return False
    d = node.args[1] if len(node.args) > 1 else node.kwargs.get("diagonal", 0)
    if d != diagonal or not _att_ones(node.args[0]) or _att_shape(node)[-2:] != (lq, lk):
        return False
    chain += [node, node.args[0]]
    return True


def _att_plan(sm):
    """For a softmax node sm, the attention around it, or None (the graph is
    left alone):
        scores = bmm(q, k^T) [viewed to 4-D] [* c | / c]
                 [+ mask | masked_fill(m, -inf) | where(keep, ., -inf)] [to float32]
        out = bmm(softmax(scores, -1) [to q's dtype], v) [viewed to 4-D]
    every intermediate used by the next step alone (so nothing else, such as
    a backward pass, needs it), q, k, v of one dtype (float32, float16,
    bfloat16) with static shapes, head dims up to 256, a float mask of q's
    dtype or a bool mask broadcasting to the scores (python/csrc/attention.cpp
    fused_covers)."""
    if not _att_call(sm, aten._softmax.default, aten._safe_softmax.default):
        return None
    safe = sm.target == aten._safe_softmax.default
    smv = _att_tensor(sm)
    if smv is None or smv.dim() not in (3, 4) or len(sm.users) != 1:
        return None
    rank = smv.dim()
    dim = sm.args[1] if len(sm.args) > 1 else sm.kwargs.get("dim")
    if not isinstance(dim, int) or dim % rank != rank - 1:
        return None
    if (safe and (sm.kwargs.get("dtype") is not None or len(sm.args) > 2)) or (
            not safe and len(sm.args) > 2 and sm.args[2]):
        return None   # a dtype argument, half_to_float
    chain = [sm]
    lq, lk = smv.shape[-2:]
    # forward: [cast to q's dtype], [dropout that drops nothing], then the
    # second product
    p, down = sm, None
    u = _only_user(p)
    if _att_cast(u) is not None:
        down, p = u, u
        chain.append(u)
    b2, end = None, None
    x = p
    for _ in range(4):   # [clone], expand, [clone], view, bmm
        x = _only_user(x)
        if x is None:
            return None
        if _att_call(x, aten.bmm.default):
            b2 = x
            break
    if b2 is None or len(b2.users) != 1 or b2.args[0] is b2.args[1]:
        return None
    sub = []
    got = _att_peel(b2.args[0], tuple(_att_shape(p)), sub)
    if got is not p:
        # dropout in eval mode or with p = 0 (HF's attn_dropout): PyTorch up
        # to 2.14 decomposes it into a clone of the probabilities (2.15 into
        # nothing); a copy that changes nothing, used by the product alone
        if not (_att_identity_clone(got) and got.args[0] is p):
            return None
        chain.append(got)
    u = _only_user(b2)
    if _att_call(u, *_ATT_RESHAPES) and _att_product(u, []) is not None:
        end = u
        chain += sub + [b2]
    else:
        end = b2
        chain += sub
    out_shape = _att_shape(end)
    if out_shape is None or len(out_shape) != rank or out_shape[:-1] != tuple(smv.shape[:-1]):
        return None
    batch, ev = out_shape[:-2], out_shape[-1]
    value = _att_peel(b2.args[1], batch + (lk, ev), chain)
    if value is None:
        return None
    # backward: [cast to float32], [mask], scores
    x, up = sm.args[0], None
    if _att_cast(x) is not None:
        up = x
        chain.append(x)
        x = x.args[0]
    mask, kind = None, None
    found = None
    if _att_call(x, aten.add.Tensor) and len(x.users) == 1 and x.kwargs.get("alpha", 1) == 1:
        for s, m in ((x.args[0], x.args[1]), (x.args[1], x.args[0])):
            sub = []
            if isinstance(m, torch.fx.Node) and isinstance(s, torch.fx.Node):
                found = _att_scores(s, sub)
                if found is not None:
                    chain += [x] + sub
                    mask, kind = m, "add"
                    break
    elif _att_call(x, aten.masked_fill.Scalar) and len(x.users) == 1:
        if x.args[2] != float("-inf"):
            return None
        chain.append(x)
        mask, kind = x.args[1], "fill"
        found = _att_scores(x.args[0], chain)
    elif _att_call(x, aten.where.self) and len(x.users) == 1:
        if _att_number(x.args[2]) != float("-inf") or not isinstance(x.args[1], torch.fx.Node):
            return None
        chain.append(x)
        if isinstance(x.args[2], torch.fx.Node):
            chain.append(x.args[2])
        mask, kind = x.args[0], "where"
        found = _att_scores(x.args[1], chain)
    else:
        found = _att_scores(x, chain)
    if found is None:
        return None
    b1, scale = found
    if _att_shape(b1) != (math.prod(batch), lq, lk) or b1.args[0] is b1.args[1]:
        return None
    e = _att_shape(b1.args[0])[-1]
    query = _att_peel(b1.args[0], batch + (lq, e), chain)
    key_t = _att_peel(b1.args[1], batch + (e, lk), chain)
    if query is None or key_t is None:
        return None
    dt = _att_tensor(query).dtype
    if (dt not in _ATT_DTYPES or any(_att_tensor(t).dtype != dt for t in (key_t, value))
            or e > 256 or ev > 256):
        return None
    # dtypes: scores and probabilities in q's dtype, or in float32 between
    # the two casts (softmax(x.float()).to(q.dtype))
    if up is not None:
        if (dt == torch.float32 or _att_cast(up) != torch.float32 or down is None
                or _att_cast(down) != dt or _att_tensor(up.args[0]).dtype != dt):
            return None
    elif down is not None or smv.dtype != dt:
        return None
    sshape = tuple(_att_tensor(sm.args[0]).shape)
    # the mask as SDPA takes it (true: attend, or added), or causal
    causal, negate = False, False
    if mask is not None:
        mv = _att_tensor(mask)
        if mv is None or mv.dim() > 4:
            return None
        try:
            if tuple(torch.broadcast_shapes(tuple(mv.shape), sshape)) != sshape:
                return None
        except RuntimeError:
            return None
        if kind == "add":
            if mv.dtype != dt:
                return None
        elif mv.dtype != torch.bool:
            return None
        elif kind == "fill":
            if _att_triangle(mask, aten.triu.default, 1, lq, lk, chain):
                mask, causal = None, True
            elif (_att_call(mask, aten.bitwise_not.default, aten.logical_not.default)
                  and len(mask.users) == 1 and _att_tensor(mask.args[0]) is not None
                  and _att_tensor(mask.args[0]).dtype == torch.bool):
                chain.append(mask)
                mask = mask.args[0]
            else:
                negate = True
        if mask is not None and not negate and kind != "add" and _att_triangle(
                mask, aten.tril.default, 0, lq, lk, chain):
            mask, causal = None, True
    # the key: k^T's source transposed back (or k^T transposed)
    key = None
    if _att_call(key_t, aten.transpose.int) and len(key_t.users) == 1:
        r = len(_att_shape(key_t))
        if {key_t.args[1] % r, key_t.args[2] % r} == {r - 2, r - 1}:
            chain.append(key_t)
            key = key_t.args[0]
    return dict(query=query, key=key, key_t=key_t if key is None else None, value=value,
                mask=mask, negate=negate, causal=causal, scale=scale, end=end, chain=chain,
                dtype=dt, softmax="_safe_softmax" if safe else "_softmax")


def _run_attention(query, key, value, mask, scale, is_causal, strides):
    """scaled_dot_product_attention (clops' fused kernel where it takes the
    call: the matcher checked its conditions) with the result in the layout
    the graph was traced with (the written-out pattern's bmm result:
    contiguous)."""
    out = aten.scaled_dot_product_attention.default(query, key, value, mask, 0.0, is_causal,
                                                     scale=scale)
    return _as_layout(out, strides)


def _emit_attention(gm, plan, label):
    g = gm.graph
    end = plan["end"]
    with g.inserting_before(end):
        key = plan["key"]
        if key is None:
            kt = plan["key_t"]
            r = len(_att_shape(kt))
            key = g.call_function(aten.transpose.int, (kt, r - 2, r - 1))
            key.meta = {"val": _meta(kt).transpose(r - 2, r - 1)}
        mask = plan["mask"]
        if plan["negate"]:
            m = g.call_function(aten.logical_not.default, (mask,))
            m.meta = {"val": torch.logical_not(_meta(mask))}
            mask = m
        new = g.call_function(_run_attention, (
            plan["query"], key, plan["value"], mask, plan["scale"], plan["causal"],
            tuple(_meta(end).stride())))
    new.meta = dict(end.meta)
    end.replace_all_uses_with(new)
    dead = [end] + [n for n in plan["chain"] if n is not end]
    order = {n: i for i, n in enumerate(g.nodes)}
    for n in sorted(set(dead), key=order.get, reverse=True):
        if not n.users:
            g.erase_node(n)
    if _DEBUG:
        mask = ("causal" if plan["causal"] else "none" if plan["mask"] is None else
                f"{'not ' if plan['negate'] else ''}{plan['mask'].name}")
        print(f"clops compile [{label}]: attention: {plan['softmax']} at "
              f"{plan['chain'][0].name} and {len(plan['chain'])} nodes around it as one "
              f"scaled_dot_product_attention ({plan['dtype']}, scale {plan['scale']:.6g}, "
              f"mask {mask})", file=sys.stderr)


_DEVICE_GPU = {}


def _device_gpu(index):
    """Whether clops device index is a GPU (cached per process)."""
    if index not in _DEVICE_GPU:
        _DEVICE_GPU[index] = bool(_C.device_is_gpu(index))
    return _DEVICE_GPU[index]


def _att_wanted(plan):
    """Whether to lower on the query's device: CLOPS_COMPILE_ATTENTION=1
    always, =0 never, unset on GPUs only.  On CPU devices (POCL) the fused
    forward (attn_fwd_cpu) no longer loses, but lowering GPT-2 124M's
    written-out attention gained nothing measurable either (compiled/eager
    0.99-1.03x with it, 0.97-1.02x without, 128 and 512 tokens, 2-core VM,
    CPU time; docs/benchmarks.md), and a training graph would need the
    fused backward on the CPU, unmeasured: it stays as written there."""
    force = os.environ.get("CLOPS_COMPILE_ATTENTION")
    if force:
        return force != "0"
    return _device_gpu(_att_tensor(plan["query"]).device.index or 0)


def _att_wanted_on(tensors):
    """_att_wanted for a graph whose inputs are tensors: whether the first
    clops tensor among them is on a device where the lowering pays."""
    force = os.environ.get("CLOPS_COMPILE_ATTENTION")
    if force:
        return force != "0"
    for x in tensors:
        if isinstance(x, torch.Tensor) and x.device.type == "clops":
            return _device_gpu(x.device.index or 0)
    return False


def _lower_attention(gm, label):
    """Rewrites each attention written out as matmul, scale, mask, softmax
    and matmul (_att_plan) into one scaled_dot_product_attention call, on
    devices where that pays (_att_wanted)."""
    n = 0
    for sm in list(gm.graph.nodes):
        if getattr(sm, "_erased", False):
            continue
        plan = _att_plan(sm)
        if plan is not None and not _att_wanted(plan):
            if _DEBUG:
                print(f"clops compile [{label}]: attention at {sm.name} left as written "
                      f"(a CPU device; CLOPS_COMPILE_ATTENTION=1 lowers it)", file=sys.stderr)
            continue
        if plan is not None:
            _emit_attention(gm, plan, label)
            n += 1
    return n


# --------------------------------------------------------------------------
# Prologue fusion: RMSNorm written out (HF's LlamaRMSNorm, T5LayerNorm: a
# cast to float32, pow(2), mean over the last dimension, + eps, rsqrt, the
# product, the cast back, the weight) as one call of clops' fused row kernel
# (_fused_rms_norm: the squares summed as the row is read, no pow or mean
# result written).

_RMS_DTYPES = (torch.float32, torch.float16, torch.bfloat16)


def _rms_cast(node, dtype):
    """Whether node is _to_copy of a tensor to dtype, nothing else changed."""
    return (node.op == "call_function" and node.target == aten._to_copy.default
            and len(node.args) == 1 and set(node.kwargs) <= {"dtype"}
            and node.kwargs.get("dtype") == dtype)


def _rms_other(mul, node):
    """The operand of binary mul.Tensor node mul that is not node (None when
    node is not exactly one of them)."""
    if (mul.op != "call_function" or mul.target != aten.mul.Tensor or mul.kwargs
            or len(mul.args) != 2):
        return None
    a, b = mul.args
    if a is node and b is not node:
        return b
    if b is node and a is not node:
        return a
    return None


def _rms_plan(mean):
    """For a mean.dim node: the RMSNorm written out around it, as a dict
    (input: the tensor normalised, in its own dtype; weight: a node or None;
    eps; end: the node whose value is the result; chain: the nodes the call
    replaces), or None.  Accepted: [x = _to_copy(x0, float32)]; p = x ** 2
    (pow.Tensor_Scalar 2, or x * x); v = mean(p, [-1], keepdim=True); a = v +
    eps (a number); r = rsqrt(a); h = x * r (either order); [h =
    _to_copy(h, x0's dtype)]; [y = w * h (either order), w of shape [N] and
    the result's dtype].  Every intermediate used by the next step alone (x
    aside), float32, float16 or bfloat16, static shapes, x0 and the result
    contiguous."""
    if (mean.op != "call_function" or mean.target != aten.mean.dim or mean.kwargs
            or len(mean.args) != 3 or mean.args[2] is not True):
        return None
    p = mean.args[0]
    if not isinstance(p, torch.fx.Node) or p.op != "call_function" or len(p.users) != 1:
        return None
    if p.target == aten.pow.Tensor_Scalar and not p.kwargs and len(p.args) == 2:
        x = p.args[0]
        if not (type(p.args[1]) in (int, float) and p.args[1] == 2):
            return None
    elif (p.target == aten.mul.Tensor and not p.kwargs and len(p.args) == 2
          and p.args[0] is p.args[1]):
        x = p.args[0]
    else:
        return None
    xv = _meta(x) if isinstance(x, torch.fx.Node) else None
    if (not isinstance(xv, torch.Tensor) or xv.device.type != "clops"
            or xv.dtype != torch.float32 or xv.dim() < 1 or type(xv.shape[-1]) is not int):
        return None
    n = xv.shape[-1]
    dims = mean.args[1]
    if not (isinstance(dims, (list, tuple)) and len(dims) == 1
            and dims[0] in (-1, xv.dim() - 1)) or n < 1:
        return None
    a = _only_user(mean)
    if (a is None or a.op != "call_function" or a.target != aten.add.Tensor or a.kwargs
            or len(a.args) != 2 or a.args[0] is not mean or type(a.args[1]) not in (int, float)
            or not a.args[1] >= 0):
        return None
    eps = float(a.args[1])
    r = _only_user(a)
    if r is None or r.op != "call_function" or r.target != aten.rsqrt.default:
        return None
    h = _only_user(r)
    if h is None or _rms_other(h, r) is not x:
        return None
    chain = [p, mean, a, r, h]
    x0, dtype = x, torch.float32
    if _rms_cast(x, torch.float32) and isinstance(x.args[0], torch.fx.Node):
        src = _meta(x.args[0])
        if isinstance(src, torch.Tensor) and src.dtype in (torch.float16, torch.bfloat16):
            x0, dtype = x.args[0], src.dtype
    end = h
    if dtype != torch.float32:
        c = _only_user(h)
        if c is not None and _rms_cast(c, dtype):
            end = c
            chain.append(c)
        else:   # the float32 result of a 16-bit input: normalise the float32 x
            x0, dtype = x, torch.float32
    weight = None
    u = _only_user(end)
    if u is not None:
        w = _rms_other(u, end)
        wv = _meta(w) if isinstance(w, torch.fx.Node) else None
        uv = _meta(u)
        if (isinstance(wv, torch.Tensor) and wv.device.type == "clops" and wv.dtype == dtype
                and tuple(wv.shape) == (n,) and isinstance(uv, torch.Tensor)
                and uv.dtype == dtype and tuple(uv.shape) == tuple(xv.shape)):
            weight, end = w, u
            chain.append(u)
    ev, x0v = _meta(end), _meta(x0)
    if not isinstance(ev, torch.Tensor) or ev.dtype != dtype:
        return None
    # symbolic sizes (a graph Dynamo made dynamic): the layout is checked
    # when the graph runs (_run_rms_norm_any), reading it here would add
    # guards
    dynamic = not (_static(xv.shape) and _static(ev.stride()) and _static(x0v.stride()))
    if not dynamic and not (ev.is_contiguous() and x0v.is_contiguous()):
        return None
    return {"input": x0, "weight": weight, "eps": eps, "end": end, "chain": chain, "n": n,
            "dtype": dtype, "dynamic": dynamic, "cast": x0 is not x}


def _run_rms_norm(x, n, weight, eps):
    """clops' fused RMSNorm of x's rows of n (_fused_rms_norm), the result."""
    return _C.rms_norm_fused(x, [n], weight, eps)[0]


# Above autograd (graphs that train) the lowering calls clops::rms_norm, an
# opaque op with a gradient: AOT autograd puts it in the forward graph
# (saving x, weight and rstd) and its backward, clops' fused
# _fused_rms_norm_backward, in the backward graph.  (aten::_fused_rms_norm
# itself would not do: PyTorch implements it as CompositeImplicitAutograd
# for PrivateUse1, so autograd's trace writes it out again.)
@torch.library.custom_op("clops::rms_norm", mutates_args=())
def _rms_norm_op(x: torch.Tensor, weight: typing.Optional[torch.Tensor], n: int,
                 eps: float) -> typing.Tuple[torch.Tensor, torch.Tensor]:
    y, rstd = _C.rms_norm_fused(x, [n], weight, eps)
    return y, rstd


@_rms_norm_op.register_fake
def _rms_norm_fake(x, weight, n, eps):
    return (torch.empty_like(x, memory_format=torch.contiguous_format),
            x.new_empty(tuple(x.shape[:-1]) + (1,), dtype=torch.float32))


def _rms_norm_setup(ctx, inputs, output):
    x, weight, n, _ = inputs
    ctx.save_for_backward(x, weight, output[1])
    ctx.n = n


def _rms_norm_grad(ctx, grad, _grad_rstd):
    x, weight, rstd = ctx.saved_tensors
    dx, dw = aten._fused_rms_norm_backward.default(
        grad.contiguous(), x, [ctx.n], rstd, weight, [True, weight is not None])
    return dx, dw if weight is not None else None, None, None


_rms_norm_op.register_autograd(_rms_norm_grad, setup_context=_rms_norm_setup)


def _run_rms_norm_any(x, n, weight, eps, cast):
    """_run_rms_norm for a graph with symbolic sizes: the fused kernel where
    x is contiguous (its result is then laid out as eager's), else eager's
    written-out ops (cast: x is 16-bit and was cast to float32 and back),
    in eager's layout."""
    if x.is_contiguous():
        return _run_rms_norm(x, n, weight, eps)
    h = x.to(torch.float32) if cast else x
    h = h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + eps)
    if cast:
        h = h.to(x.dtype)
    return weight * h if weight is not None else h


def _rms_wanted():
    """CLOPS_COMPILE_RMS_NORM=0 leaves RMSNorm written out (for comparisons)."""
    return os.environ.get("CLOPS_COMPILE_RMS_NORM") != "0"


def _lower_rms_norms(gm, label, above_autograd=False):
    """Rewrites each RMSNorm written out (_rms_plan) into one fused call
    (above autograd: of clops::rms_norm, which autograd differentiates)."""
    if not _rms_wanted():
        return 0
    g = gm.graph
    k = 0
    for mean in list(g.nodes):
        if getattr(mean, "_erased", False):
            continue
        plan = _rms_plan(mean)
        if plan is None or (above_autograd and plan["dynamic"]):
            continue
        end = plan["end"]
        with g.inserting_before(end):
            if above_autograd:
                call = g.call_function(torch.ops.clops.rms_norm.default,
                                       (plan["input"], plan["weight"], plan["n"], plan["eps"]))
                new = g.call_function(operator.getitem, (call, 0))
            elif plan["dynamic"]:
                new = g.call_function(_run_rms_norm_any, (plan["input"], plan["n"],
                                                          plan["weight"], plan["eps"],
                                                          plan["cast"]))
            else:
                new = g.call_function(_run_rms_norm, (plan["input"], plan["n"],
                                                      plan["weight"], plan["eps"]))
        new.meta = dict(end.meta)
        end.replace_all_uses_with(new)
        cast = plan["chain"][0].args[0]   # x = _to_copy(x0): unused now where it is the cast
        for x in reversed(plan["chain"]):
            g.erase_node(x)
        if cast is not plan["input"] and not cast.users:
            g.erase_node(cast)
        k += 1
        if _DEBUG:
            print(f"clops compile [{label}]: rms norm: {len(plan['chain'])} nodes from "
                  f"{mean.name} [{', '.join(str(x.target).replace('aten.', '') for x in plan['chain'])}]"
                  f" as one _fused_rms_norm ({plan['dtype']}, rows of {plan['n']}, eps "
                  f"{plan['eps']:g}, {'weight' if plan['weight'] is not None else 'no weight'}"
                  f"{', symbolic sizes' if plan['dynamic'] else ''})",
                  file=sys.stderr)
    return k


# --------------------------------------------------------------------------
# Rotary embeddings written out.  HF's apply_rotary_pos_emb computes
# q * cos + rotate_half(q) * sin with rotate_half(q) = cat(-q2, q1) (q1, q2
# the halves of the last dimension): a neg and a cat per query and key,
# which no pointwise group takes, before the group of the rest.  Where cos
# and sin are elementwise functions of cat(f, f) (both halves equal: HF's
# `emb = cat(freqs, freqs)`), the same values are, with x viewed as
# [..., 2, h] and c, s the halves of cos and sin,
#   out[..., 0, :] = x0 * c + x1 * (-s)      (eager: x0 * c + (-x1) * s)
#   out[..., 1, :] = x0 * s + x1 * c         (eager: x1 * c + x0 * s)
# so out = x0 * A + x1 * B with A = [c, s], B = [-s, c] per position: one
# pointwise group of four operands (the two halves of x as broadcast views,
# A and B), A and B made once per graph for every query and key that share
# cos and sin.  The same bits: a product with a negated operand is the
# negated product (rounding is symmetric), and a sum of two terms does not
# depend on their order.


def _rope_half_equal(node, last):
    """Whether node's value has equal halves along its last dimension
    (index `last`): elementwise functions of one tensor (numbers besides)
    down to cat([f, f], -1)."""
    for _ in range(8):
        if node.op != "call_function":
            return False
        t = node.target
        if t == aten.cat.default:
            xs = node.args[0]
            dim = node.args[1] if len(node.args) > 1 else node.kwargs.get("dim", 0)
            return (len(xs) == 2 and xs[0] is xs[1] and isinstance(xs[0], torch.fx.Node)
                    and dim in (-1, _meta(node).dim() - 1))
        tensors = [x for x in node.args if isinstance(x, torch.fx.Node)]
        if len(tensors) != 1 or any(isinstance(v, torch.fx.Node) for v in node.kwargs.values()):
            return False
        if t == aten.unsqueeze.default:
            d = node.args[1]
            nd = _meta(node).dim()
            if (d % nd) == nd - 1:
                return False
        elif t == aten._to_copy.default:
            if set(node.kwargs) - {"dtype"}:
                return False
        elif t not in (aten.cos.default, aten.sin.default, aten.mul.Tensor, aten.mul.Scalar,
                       aten.div.Tensor, aten.add.Tensor, aten.sub.Tensor):
            return False
        node = tensors[0]
    return False


def _rope_plan(cat):
    """For a cat node, the written-out rotary embedding around it, or None:
    {x, h, cos, sin, out, nodes to erase}."""
    if cat.op != "call_function" or cat.target != aten.cat.default:
        return None
    xs = cat.args[0]
    dim = cat.args[1] if len(cat.args) > 1 else cat.kwargs.get("dim", 0)
    val = _meta(cat)
    if (len(xs) != 2 or not isinstance(val, torch.Tensor) or val.device.type != "clops"
            or val.dtype not in _FLOATS or not _static(val.shape)
            or dim not in (-1, val.dim() - 1)):
        return None
    neg, s1 = xs
    if (not isinstance(neg, torch.fx.Node) or neg.target != aten.neg.default
            or not isinstance(s1, torch.fx.Node) or s1.target != aten.slice.Tensor):
        return None
    s2 = neg.args[0]
    if not isinstance(s2, torch.fx.Node) or s2.target != aten.slice.Tensor:
        return None
    x = s1.args[0]
    if s2.args[0] is not x or len(neg.users) != 1:
        return None
    xv = _meta(x)
    if not isinstance(xv, torch.Tensor) or xv.dtype != val.dtype:
        return None
    nd = xv.dim()
    d = xv.shape[-1]
    if d % 2 or d != val.shape[-1]:
        return None
    h = d // 2

    def sl(n):   # (dim, start, end, step) of slice.Tensor(x, dim, start, end, step)
        if n.kwargs:
            return None
        a = list(n.args) + [0, None, None, 1][len(n.args) - 1:]
        if not all(isinstance(v, int) for v in (a[1], a[4])):
            return None
        start, end = a[2] or 0, d if a[3] is None else a[3]
        if not isinstance(start, int) or not isinstance(end, int):
            return None
        return (a[1] % nd, start, min(end, d), a[4])
    if sl(s1) != (nd - 1, 0, h, 1) or sl(s2) != (nd - 1, h, d, 1):
        return None
    m2 = _only_user(cat)
    if m2 is None or m2.target != aten.mul.Tensor or len(m2.args) != 2:
        return None
    sin = m2.args[1] if m2.args[0] is cat else m2.args[0]
    add = _only_user(m2)
    if (add is None or add.target != aten.add.Tensor or len(add.args) != 2
            or add.kwargs.get("alpha", 1) != 1):
        return None
    m1 = add.args[1] if add.args[0] is m2 else add.args[0]
    if (not isinstance(m1, torch.fx.Node) or m1.target != aten.mul.Tensor or len(m1.args) != 2
            or _only_user(m1) is not add or m1 is m2):
        return None
    cos = m1.args[1] if m1.args[0] is x else m1.args[0] if m1.args[1] is x else None
    if not isinstance(cos, torch.fx.Node) or not isinstance(sin, torch.fx.Node):
        return None
    for t in (cos, sin):
        tv = _meta(t)
        if (not isinstance(tv, torch.Tensor) or tv.dtype != val.dtype or tv.dim() != nd
                or not _static(tv.shape) or tv.shape[-1] != d
                or not _rope_half_equal(t, nd - 1)):
            return None
    for n in (m1, m2, add):
        v = _meta(n)
        if (not isinstance(v, torch.Tensor) or v.dtype != val.dtype
                or tuple(v.shape) != tuple(xv.shape)):
            return None
    return {"x": x, "h": h, "cos": cos, "sin": sin, "out": add,
            "dead": [add, m2, m1, cat, neg, s2, s1]}


def _rope_wanted():
    """CLOPS_COMPILE_ROPE=0 leaves rotary embeddings written out."""
    return os.environ.get("CLOPS_COMPILE_ROPE") != "0"


def _rope_base(node):
    """(the node under a chain of unsqueezes of node, those unsqueezes'
    dims counted from the front, innermost first)."""
    dims = []
    while (node.op == "call_function" and node.target == aten.unsqueeze.default
           and isinstance(node.args[0], torch.fx.Node)):
        dims.append(node.args[1] % _meta(node).dim())
        node = node.args[0]
    return node, tuple(reversed(dims))


def _lower_ropes(gm, label):
    """Rewrites each written-out rotary embedding (_rope_plan) into the
    four-operand form above, which the pointwise grouping takes whole."""
    if not _rope_wanted():
        return 0
    g = gm.graph
    tables = {}
    k = 0

    def fake(a):
        if isinstance(a, (list, tuple)):
            return type(a)(fake(v) for v in a)
        return _meta(a) if isinstance(a, torch.fx.Node) else a

    def call(target, args, where):
        with g.inserting_after(where):
            n = g.call_function(target, args)
        n.meta = {"val": target(*fake(args))}
        return n

    for cat in list(g.nodes):
        if getattr(cat, "_erased", False) or cat.op != "call_function":
            continue
        plan = _rope_plan(cat)
        if plan is None:
            continue
        x, h, cos, sin, out = plan["x"], plan["h"], plan["cos"], plan["sin"], plan["out"]
        (cb, cdims), (sb, sdims) = _rope_base(cos), _rope_base(sin)
        if cdims != sdims or _meta(cb).shape != _meta(sb).shape:
            continue
        order = {n: i for i, n in enumerate(g.nodes)}
        key = (cb, sb)
        if key not in tables:
            # A = [c, s] and B = [-s, c] along a new dimension before the
            # last ([..., 2, h]), once per cos and sin: one where each
            # (B's neg joins its group), the selector a constant
            last = max(cb, sb, key=order.get)
            nb = _meta(cb).dim()
            c = call(aten.slice.Tensor, (cb, nb - 1, 0, h), last)
            s_ = call(aten.slice.Tensor, (sb, nb - 1, 0, h), c)
            cu = call(aten.unsqueeze.default, (c, nb - 1), s_)
            su = call(aten.unsqueeze.default, (s_, nb - 1), cu)
            name = "_clops_rope_selector"
            if not hasattr(gm, name):
                from torch._subclasses.fake_tensor import unset_fake_temporarily
                with unset_fake_temporarily():
                    gm.register_buffer(name, torch.tensor([[True], [False]],
                                                          device=_meta(cb).device),
                                       persistent=False)
            with g.inserting_after(su):
                sel = g.get_attr(name)
            fm = getattr(_meta(cb), "fake_mode", None)
            sel.meta = {"val": fm.from_tensor(getattr(gm, name)) if fm else getattr(gm, name)}
            a = call(aten.where.self, (sel, cu, su), sel)
            ns = call(aten.neg.default, (su,), a)
            b = call(aten.where.self, (sel, ns, cu), ns)
            tables[key] = (a, b)
            order = {n: i for i, n in enumerate(g.nodes)}
        a, b = tables[key]
        first = max(x, b, key=order.get)
        for d in cdims:   # cos's own unsqueezes, on [..., 2, h]
            a = call(aten.unsqueeze.default, (a, d), first)
            b = call(aten.unsqueeze.default, (b, d), a)
            first = b
        xv = call(aten.view.default, (x, list(_meta(x).shape[:-1]) + [2, h]), first)
        nd = _meta(xv).dim()
        x0 = call(aten.slice.Tensor, (xv, nd - 2, 0, 1), xv)
        x1 = call(aten.slice.Tensor, (xv, nd - 2, 1, 2), x0)
        m1 = call(aten.mul.Tensor, (x0, a), x1)
        m2 = call(aten.mul.Tensor, (x1, b), m1)
        sm = call(aten.add.Tensor, (m1, m2), m2)
        res = call(aten.view.default, (sm, list(_meta(out).shape)), sm)
        out.replace_all_uses_with(res)
        for n in plan["dead"]:
            if not n.users:
                g.erase_node(n)
        k += 1
        if _DEBUG:
            print(f"clops compile [{label}]: rotary embedding of {x.name} ({_meta(x).dtype}, "
                  f"halves of {h}) as x0 * [c, s] + x1 * [-s, c]", file=sys.stderr)
    if k:
        for n in list(g.nodes):   # cos and sin's unsqueezes that nothing reads now
            if n.op == "call_function" and n.target == aten.unsqueeze.default and not n.users:
                g.erase_node(n)
    return k


# --------------------------------------------------------------------------
# The fused ops on record for `clops warmup` (tools/cli/cmd_warmup.c).

_recorded = set()


def _cache_dir():
    """clops' cache folder as host/diskcache.c host_cache_dir finds it; None
    when the cache is off (CLOPS_CACHE=0)."""
    if os.environ.get("CLOPS_CACHE") == "0":
        return None
    if os.environ.get("CLOPS_CACHE_DIR"):
        return os.environ["CLOPS_CACHE_DIR"]
    if os.environ.get("XDG_CACHE_HOME"):
        return os.path.join(os.environ["XDG_CACHE_HOME"], "clops")
    if os.environ.get("HOME"):
        return os.path.join(os.environ["HOME"], ".cache", "clops")
    return None


def _record_fused(name, n_in, expr, helpers, result, inputs, rank):
    """Records a fused op and the signature it is called with (its operands'
    dtypes, the result's rank) in <cache>/fused/<name>.json, so that `clops
    warmup` builds its program in a later process, before any graph runs
    (after a driver update has emptied the kernel cache, say).  A file is
    replaced whole (write, then rename); failures only skip the record."""
    import json
    sig = {"dtypes": [_NAMES[_meta(x).dtype] for x in inputs], "rank": int(rank)}
    key = (name, tuple(sig["dtypes"]), sig["rank"])
    cache = _cache_dir()
    if key in _recorded or cache is None:
        return
    _recorded.add(key)
    folder = os.path.join(cache, "fused")
    path = os.path.join(folder, name + ".json")
    try:
        try:
            with open(path) as fh:
                doc = json.load(fh)
        except (OSError, ValueError):
            doc = {"name": name, "inputs": n_in, "expr": expr, "helpers": helpers,
                   "result": result, "signatures": []}
        if sig in doc.get("signatures", []):
            return
        doc.setdefault("signatures", []).append(sig)
        os.makedirs(folder, exist_ok=True)
        tmp = f"{path}.{os.getpid()}.tmp"
        with open(tmp, "w") as fh:
            json.dump(doc, fh, indent=1)
        os.replace(tmp, path)
    except OSError as e:
        if _DEBUG:
            print(f"clops compile: could not record {name} for clops warmup: {e}",
                  file=sys.stderr)


# --------------------------------------------------------------------------
# Layouts the graph was traced with.

def _as_layout(x, strides):
    """x itself when it has the strides the graph was traced with, else a
    copy laid out so (the graph's views of it were traced on those
    strides)."""
    if x.stride() == strides:
        return x
    out = torch.empty_strided(x.shape, strides, dtype=x.dtype, device=x.device)
    return out.copy_(x)


def _returns_new(node):
    """Whether node's value is a new tensor of an ATen op (not a view or an
    in-place result): an op's own result, or an item of one."""
    import operator
    if node.op != "call_function":
        return False
    t = node.target
    if t is operator.getitem:
        src = node.args[0]
        return isinstance(src, torch.fx.Node) and _returns_new(src)
    if not isinstance(t, torch._ops.OpOverload):
        return False
    return all(r.alias_info is None for r in t._schema.returns)


def _guard_layouts(gm):
    """Makes every new tensor whose traced layout is not contiguous come out
    in that layout at run time.  Fake tensors give an op the strides of
    PyTorch's meta function, and the graph's later views are traced on
    them: clops' fused attention (_scaled_dot_product_fused_attention_
    overrideable) writes its output contiguously where the meta function
    lays it out as [B, L, H, E], so HF GPT-2's transpose(1, 2).contiguous()
    traced as a view and failed ("view size is not compatible") on PyTorch
    2.11, whose GPT-2 graph takes that path.  A contiguous traced layout is
    left alone (clops' ops give it wherever PyTorch's do)."""
    from torch._prims_common import is_non_overlapping_and_dense_or_false as dense
    n = 0
    for node in list(gm.graph.nodes):
        val = node.meta.get("val")
        if (not isinstance(val, torch.Tensor) or val.device.type != "clops"
                or not _returns_new(node) or val.numel() <= 1 or not _static(val.shape)
                or not _static(val.stride()) or val.is_contiguous()
                or not dense(val)):
            continue
        with gm.graph.inserting_after(node):
            fix = gm.graph.call_function(_as_layout, (node, tuple(val.stride())))
        fix.meta = dict(node.meta)
        node.replace_all_uses_with(fix, delete_user_cb=lambda u: u is not fix)
        n += 1
    return n


# ---------------------------------------------------------------------------
# Causal masks written out.  Under tracing, transformers cannot tell that a
# model's attention needs no mask (its check reads tensor values), so on
# some versions (PyTorch 2.11 with transformers 5.x: HF GPT-2 on the H100)
# the compiled graph builds the causal mask from aranges (le, expand) and
# hands it to the fused attention as an additive mask (where(mask, 0, -inf)
# per layer), where eager calls the kernel with is_causal: the masked kernel
# visits every block (on the H100 16.4 ms against 9.8 ms causal per GPT-2
# 124M forward, batch 8 x 512).  A mask computed from no graph input is the
# same tensor on every call: it is evaluated once when the graph is
# compiled, and when it is the causal mask (top-left, as is_causal), the
# call gets is_causal and no mask.

_SDPA_FWD = aten._scaled_dot_product_fused_attention_overrideable.default


def _input_free(node):
    """The nodes node is computed from (node included, in graph order) when
    every one is an ATen op that reads no graph input, mutates nothing, draws
    no random numbers and has static shapes; else None."""
    seen, todo = set(), [node]
    while todo:
        n = todo.pop()
        if n in seen:
            continue
        t = n.target
        if n.op != "call_function" or not isinstance(t, torch._ops.OpOverload):
            return None
        if t._schema.is_mutable or torch.Tag.nondeterministic_seeded in t.tags:
            return None
        v = n.meta.get("val")
        if not isinstance(v, torch.Tensor) or not _static(v.shape) or not _static(v.stride()):
            return None
        seen.add(n)
        todo.extend(n.all_input_nodes)
    return [n for n in node.graph.nodes if n in seen]


def _evaluate(gm, nodes):
    """The value of nodes[-1], running nodes (an input-free subgraph of gm,
    _input_free) once."""
    g = torch.fx.Graph()
    env = {}
    for n in nodes:
        env[n] = g.node_copy(n, lambda x: env[x])
    g.output(env[nodes[-1]])
    with torch.no_grad():
        return torch.fx.GraphModule(gm, g)().cpu()


def _is_causal_mask(mask, lq, lk):
    """Whether mask (bool: True keeps; or additive: 0 keeps, -inf or the
    dtype's minimum drops), broadcast to [..., lq, lk], keeps exactly the
    top-left causal triangle (key j <= query i) in every slice."""
    if mask.dim() < 2 or tuple(mask.shape[-2:]) != (lq, lk):
        return False
    keep = torch.ones(lq, lk, dtype=torch.bool).tril().expand(mask.shape)
    m = mask
    if m.dtype == torch.bool:
        return torch.equal(m, keep)
    if not m.is_floating_point():
        return False
    kept, dropped = m[keep], m[~keep]
    low = torch.finfo(m.dtype).min
    return bool((kept == 0).all()) and bool(((dropped == -math.inf) | (dropped == low)).all())


def _keeps_all(mask):
    """Whether mask (bool: True keeps; or additive) keeps every score as it
    is: all True, or all zeros (a score plus 0 or -0 is the score, the
    softmax of the scores without a mask).  Transformers build such a mask
    under tracing where eager passes none (BERT's bidirectional mask with no
    padding on PyTorch 2.11 / transformers 5.17: arange, ge, expand, where)."""
    if mask.dtype == torch.bool:
        return bool(mask.all())
    return mask.is_floating_point() and bool((mask == 0).all())


def _sdpa_kwargs(node):
    """A fused attention call's arguments, all by name (None when they do
    not bind to its schema)."""
    from torch.fx.operator_schemas import normalize_function
    r = normalize_function(node.target, node.args, node.kwargs,
                           normalize_to_only_use_kwargs=True)
    return None if r is None else dict(r.kwargs)


# The attention calls _causal_masks reads, and the name of their mask: the
# fused call (in AOT autograd's graphs) and scaled_dot_product_attention
# itself (in the trace above autograd of a graph that trains).
_SDPA_MASK_ARG = {_SDPA_FWD: "attn_bias",
                  aten.scaled_dot_product_attention.default: "attn_mask"}


def _causal_masks(gm, label):
    """Gives each attention call whose mask is the causal mask computed
    from no graph input (and used as attention calls' mask alone) is_causal
    and no mask, and each whose mask so computed keeps every score
    (_keeps_all) no mask; returns how many calls changed."""
    n = 0
    masks = {}
    for node in list(gm.graph.nodes):
        if node.op != "call_function" or node.target not in _SDPA_MASK_ARG:
            continue
        arg = _SDPA_MASK_ARG[node.target]
        kw = _sdpa_kwargs(node)
        if kw is None or not isinstance(kw.get(arg), torch.fx.Node):
            continue
        if kw.get("is_causal") or kw.get("dropout_p"):
            continue   # already causal, or dropout: left as they are
        mask = kw[arg]
        uses = [(u, _sdpa_kwargs(u) if u.op == "call_function" and u.target in _SDPA_MASK_ARG
                 else None) for u in mask.users]
        if any(k is None or k.get(_SDPA_MASK_ARG[u.target]) is not mask
               or any(k.get(a) is mask for a in ("query", "key", "value")) for u, k in uses):
            continue
        if mask not in masks:
            nodes = _input_free(mask)
            causal = False   # or "all": the mask keeps every score
            if nodes is not None:
                lq, lk = _meta(kw["query"]).shape[-2], _meta(kw["key"]).shape[-2]
                # on real tensors: the backend compiles inside AOT
                # autograd's fake mode
                from torch._subclasses.fake_tensor import unset_fake_temporarily
                try:
                    with unset_fake_temporarily():
                        value = _evaluate(gm, nodes)
                        causal = _is_causal_mask(value, lq, lk) or (
                            "all" if _keeps_all(value) else False)
                except Exception as e:   # cannot evaluate it: left as it is
                    if _DEBUG:
                        print(f"clops compile [{label}]: mask {mask.name} not evaluated: "
                              f"{type(e).__name__}: {e}", file=sys.stderr)
            masks[mask] = (nodes, causal)
        nodes, causal = masks[mask]
        if not causal:
            continue
        kw[arg] = None
        if causal != "all":
            kw["is_causal"] = True
        node.args, node.kwargs = (), kw
        n += 1
        if _DEBUG:
            what = ("keeps every score: no mask" if causal == "all"
                    else "is the causal mask: is_causal instead")
            print(f"clops compile [{label}]: attention {node.name}: mask {mask.name}, computed "
                  f"from no input, {what}", file=sys.stderr)
    # the masks' subgraphs, where nothing else reads them (they may share nodes)
    dead = {x for nodes, causal in masks.values() if causal for x in nodes}
    for x in reversed(list(gm.graph.nodes)):
        if x in dead and not x.users:
            gm.graph.erase_node(x)
    return n


# --------------------------------------------------------------------------
# Key/value caches that start empty: transformers' DynamicCache holds an
# empty tensor until its first update, so a forward that starts with no
# past concatenates the new keys and values onto a constant empty tensor
# (`lift_fresh_copy` of `_tensor_constant`, then `cat`): a copy of every
# key and value per layer, which the attention call then reads.

_KV_READERS = (_SDPA_FWD, aten.scaled_dot_product_attention.default)


def _reads_as_kv(u, c):
    """Whether node u is a fused attention call that reads c as its key or
    value alone (by position, or by name: _causal_masks rewrites the calls
    it makes causal with every argument by name, as on PyTorch 2.11 where
    HF GPT-2's graph builds its causal mask)."""
    if u.op != "call_function" or u.target not in _KV_READERS:
        return False
    kw = _sdpa_kwargs(u)
    return kw is not None and all(v is not c or k in ("key", "value") for k, v in kw.items())


def _drop_empty_cats(gm, label):
    """Replaces each cat whose operands but one are empty (static shapes;
    the result the one operand's shape and dtype) and whose every user is a
    fused attention call reading it as its key or value (operand 1 or 2:
    the kernel takes any strides, mutates nothing) by that operand itself:
    the same values, no copy.  Returns the number replaced."""
    g = gm.graph
    k = 0
    for c in list(g.nodes):
        if c.op != "call_function" or c.target != aten.cat.default or not c.args:
            continue
        parts = c.args[0]
        if not isinstance(parts, (list, tuple)) or not all(isinstance(p, torch.fx.Node)
                                                           for p in parts):
            continue
        metas = [_meta(p) for p in parts]
        cv = _meta(c)
        if not isinstance(cv, torch.Tensor) or not all(isinstance(m, torch.Tensor) for m in metas):
            continue
        if not all(_static(m.shape) for m in metas) or not _static(cv.shape):
            continue
        full = [p for p, m in zip(parts, metas) if m.numel() > 0]
        if len(full) != 1:
            continue
        keep = full[0]
        kv = _meta(keep)
        if kv.dtype != cv.dtype or tuple(kv.shape) != tuple(cv.shape) or kv.device != cv.device:
            continue
        if not c.users or not all(_reads_as_kv(u, c) for u in c.users):
            continue
        c.replace_all_uses_with(keep)
        g.erase_node(c)
        for p in parts:
            if p is not keep and not p.users and p.op == "call_function" \
                    and p.target == aten.lift_fresh_copy.default:
                src = p.args[0]
                g.erase_node(p)
                if isinstance(src, torch.fx.Node) and src.op == "get_attr" and not src.users:
                    g.erase_node(src)
        k += 1
    if k and _DEBUG:
        print(f"clops compile [{label}]: {k} concatenations onto an empty cache dropped "
              f"(the attention reads the keys and values in place)", file=sys.stderr)
    return k


def _repeated_kv(node):
    """(x, n) when node is HF's repeat_kv(x, n) below autograd,
    view(clone(expand(unsqueeze(x, 2), [B, H, n, L, E])), [B, H * n, L, E])
    with every step used by the next alone; else None."""
    if (node.op != "call_function" or node.target not in (
            aten._unsafe_view.default, aten.view.default, aten.reshape.default)
            or len(node.users) < 1):
        return None
    c = node.args[0]
    if (not isinstance(c, torch.fx.Node) or c.target != aten.clone.default
            or len(c.users) != 1 or set(c.kwargs) - {"memory_format"}):
        return None
    e = c.args[0]
    if not isinstance(e, torch.fx.Node) or e.target != aten.expand.default or len(e.users) != 1:
        return None
    u = e.args[0]
    if (not isinstance(u, torch.fx.Node) or u.target != aten.unsqueeze.default
            or len(u.users) != 1 or u.args[1] not in (2, -3)):
        return None
    x = u.args[0]
    xv, ev, nv = _meta(x), _meta(e), _meta(node)
    if not all(isinstance(t, torch.Tensor) for t in (xv, ev, nv)) or xv.dim() != 4:
        return None
    if not (_static(xv.shape) and _static(ev.shape) and _static(nv.shape)):
        return None
    b, h, L, d = xv.shape
    if ev.dim() != 5 or tuple(ev.shape[:2]) != (b, h) or tuple(ev.shape[3:]) != (L, d):
        return None
    n = ev.shape[2]
    if tuple(nv.shape) != (b, h * n, L, d) or nv.dtype != xv.dtype:
        return None
    return x, n


def _gqa_wanted():
    """CLOPS_COMPILE_GQA=0 keeps repeat_kv's copies."""
    return os.environ.get("CLOPS_COMPILE_GQA") != "0"


def _drop_repeated_kv(gm, label):
    """A fused attention call (_scaled_dot_product_fused_attention_
    overrideable) whose key and value are both repeat_kv of tensors with
    fewer heads (HF's grouped-query attention where transformers does not
    pass enable_gqa: on the GPU host's PyTorch 2.11 and transformers 5.17,
    two copies per Llama layer) reads the tensors themselves: clops' fused
    kernel takes grouped-query key and value (query head i reads key/value
    head i // n, as repeat_kv's copy is laid out), the same bits."""
    if not _gqa_wanted():
        return 0
    g = gm.graph
    k = 0
    for node in list(g.nodes):
        if node.op != "call_function" or node.target != _SDPA_FWD:
            continue
        kw = _sdpa_kwargs(node)   # by name: _causal_masks' calls pass them so
        if kw is None:
            continue
        rk, rv = kw.get("key"), kw.get("value")
        if not isinstance(rk, torch.fx.Node) or not isinstance(rv, torch.fx.Node) or rk is rv:
            continue
        a, b = _repeated_kv(rk), _repeated_kv(rv)
        if a is None or b is None or a[1] != b[1]:
            continue
        if any(u is not node for u in rk.users) or any(u is not node for u in rv.users):
            continue
        qv = _meta(kw["query"])
        if not isinstance(qv, torch.Tensor) or qv.dim() != 4 or qv.shape[1] != _meta(rk).shape[1]:
            continue
        kw["key"], kw["value"] = a[0], b[0]
        node.args, node.kwargs = (), kw
        for r in (rk, rv):
            chain = [r]
            while len(chain) < 4:
                chain.append(chain[-1].args[0])
            for n in chain:
                if not n.users:
                    g.erase_node(n)
        k += 1
    if k and _DEBUG:
        print(f"clops compile [{label}]: {k} attention calls read grouped-query keys and values "
              f"in place of repeat_kv's copies", file=sys.stderr)
    return k


def _rewrite(gm, label):
    if _DEBUG_GRAPHS:
        print(f"clops compile [{label}]: the graph AOT autograd gave:\n{gm.code}", file=sys.stderr)
    ncausal = _causal_masks(gm, label)
    ngqa = _drop_repeated_kv(gm, label)
    ncat = _drop_empty_cats(gm, label)
    natt = _lower_attention(gm, label)
    nrms = _lower_rms_norms(gm, label)
    nrope = _lower_ropes(gm, label)
    nepi = _lower_epilogues(gm, label) + _lower_conv_epilogues(gm, label)
    groups = _groups(gm)
    nfused = 0
    for g in groups:
        if _group_as_epilogue(gm, g, label):
            nepi += 1
            continue
        try:
            name, n_in, expr, helpers, result, inputs = _generate(g)
        except (_Unfusable, KeyError, ValueError, TypeError) as e:
            if _DEBUG:
                print(f"clops compile [{label}]: group at {g.root.name} left eager: {e}",
                      file=sys.stderr)
            continue
        op_id = _registered.get(name)
        if op_id is None:
            try:
                op_id = _C.fused_register(name, n_in, expr, helpers, result)
            except RuntimeError as e:   # beyond clops_pointwise_register's limits
                if _DEBUG:
                    print(f"clops compile [{label}]: group at {g.root.name} left eager: {e}",
                          file=sys.stderr)
                continue
            _registered[name] = op_id
        _record_fused(name, n_in, expr, helpers, result, inputs, _meta(g.root).dim())
        if _DEBUG:
            ops = ", ".join(str(m.target).replace("aten.", "") for m in g.order)
            print(f"clops compile [{label}]: {name}: {len(g.order)} ops [{ops}] -> "
                  f"{result}[{', '.join(str(d) for d in _meta(g.root).shape)}] over "
                  f"{', '.join(x.name for x in inputs)}\n{helpers.rstrip()}", file=sys.stderr)
        with gm.graph.inserting_before(g.root):
            new = gm.graph.call_function(
                _run_fused, (op_id, _layout(_meta(g.root))) + tuple(inputs))
        new.meta = dict(g.root.meta)
        g.root.replace_all_uses_with(new)
        for m in reversed(g.order):
            gm.graph.erase_node(m)
        nfused += 1
    nguard = _guard_layouts(gm)
    gm.graph.lint()
    gm.recompile()
    if _DEBUG_GRAPHS:
        print(f"clops compile [{label}]: rewritten:\n{gm.code}", file=sys.stderr)
    if _DEBUG:
        print(f"clops compile [{label}]: {natt} attentions, {ncausal} constant masks dropped, "
              f"{ncat} empty-cache cats dropped, {ngqa} repeat_kv pairs dropped, {nrms} rms norms, {nrope} rotary embeddings, {nfused} fused kernels, "
              f"{nepi} epilogues, {nguard} layout guards", file=sys.stderr)
    return gm


# --------------------------------------------------------------------------
# The backend.

# The node profile (profile()): None, or {name: [calls, seconds]} while on;
# and None, or {name: kernel launches} (profile(launches=...)).
_PROFILE = None
_PROFILE_LAUNCHES = None


def _node_name(node):
    """A compiled graph node's name in the profile: the fused kernels by
    kind, every other call by its ATen overload."""
    t = node.target
    if t is _run_fused:
        return "clops fused pointwise"
    if t is _run_epilogue:
        return f"clops addmm epilogue (activation {node.args[6]})"
    if t is _run_conv_epilogue:
        return "clops conv epilogue"
    if t in (_run_rms_norm, _run_rms_norm_any):
        return "clops rms norm"
    return str(t)


class _TimedGraph(torch.fx.Interpreter):
    """Runs a compiled graph node by node, the device synchronised before
    and after every call, each call's time added to _PROFILE."""

    def run_node(self, n):
        if n.op not in ("call_function", "call_method") or _PROFILE is None:
            return super().run_node(n)
        import time
        torch.clops.synchronize()
        counted = _PROFILE_LAUNCHES is not None
        if counted:
            l0 = torch.clops.device_counters()["launches"]
        t0 = time.perf_counter()
        out = super().run_node(n)
        torch.clops.synchronize()
        name = _node_name(n)
        entry = _PROFILE.setdefault(name, [0, 0.0])
        entry[0] += 1
        entry[1] += time.perf_counter() - t0
        if counted:
            _PROFILE_LAUNCHES[name] = (_PROFILE_LAUNCHES.get(name, 0)
                                       + torch.clops.device_counters()["launches"] - l0)
        return out


class profile:
    """`with profile() as times:` runs every graph compiled by this backend
    node by node, the device synchronised around each call, and fills
    times = {name: [calls, seconds]}: the fused pointwise kernels, the
    epilogue GEMMs and every op left eager by its ATen name (so the sum
    exceeds the unsynchronised step by the synchronisation cost).  For
    measurements (run_model.py --compile --profile), not for speed.
    profile(launches=d) also adds each node's kernel launches to d[name]
    (the current clops device's counters): what a compiled graph still
    launches, and where."""

    def __init__(self, launches=None):
        self.launches = launches

    def __enter__(self):
        global _PROFILE, _PROFILE_LAUNCHES
        if _PROFILE is not None:
            raise RuntimeError("clops compile: profile() is already on")
        _PROFILE = {}
        _PROFILE_LAUNCHES = self.launches
        return _PROFILE

    def __exit__(self, *exc):
        global _PROFILE, _PROFILE_LAUNCHES
        _PROFILE = None
        _PROFILE_LAUNCHES = None
        return False


def _compiler(label):
    def compile_graph(gm, example_inputs):
        from functorch.compile import make_boxed_func
        gm = _rewrite(gm, label)
        fast = gm.forward

        def run(*args):
            if _PROFILE is None:
                return fast(*args)
            return _TimedGraph(gm).run(*args)
        return make_boxed_func(run)
    return compile_graph


def _has_softmax(gm):
    """Whether Dynamo's graph calls a softmax (torch.softmax, F.softmax,
    Tensor.softmax, their log_ forms excluded)."""
    for n in gm.graph.nodes:
        if n.op in ("call_function", "call_method"):
            name = n.target if isinstance(n.target, str) else getattr(n.target, "__name__", "")
            if name in ("softmax", "_softmax", "_safe_softmax"):
                return True
    return False


def _has_masked_sdpa(gm):
    """Whether Dynamo's graph calls F.scaled_dot_product_attention with a
    mask computed in the graph (PyTorch 2.11's transformers build the causal
    mask so under tracing; a mask that is a graph input cannot be the
    causal one this pass finds)."""
    for n in gm.graph.nodes:
        if n.op == "call_function" and n.target is torch._C._nn.scaled_dot_product_attention:
            m = n.kwargs.get("attn_mask", n.args[3] if len(n.args) > 3 else None)
            if isinstance(m, torch.fx.Node) and m.op != "placeholder":
                return True
    return False


def _has_rsqrt(gm):
    """Whether Dynamo's graph calls rsqrt (RMSNorm written out, which the
    trace above autograd lowers onto clops::rms_norm)."""
    for n in gm.graph.nodes:
        if n.op in ("call_function", "call_method"):
            name = n.target if isinstance(n.target, str) else getattr(n.target, "__name__", "")
            if name == "rsqrt":
                return True
    return False


def _decomposed(op):
    """op's CompositeImplicitAutograd decomposition (what AOT autograd's
    trace makes of it below autograd), for make_fx above it."""
    return lambda *args, **kwargs: op.decompose(*args, **kwargs)


# The composite ops a trace above autograd keeps whole, written out as the
# matcher reads them: matmul as expand/view/bmm, softmax as _softmax,
# dropout with p = 0 (HF's attn_dropout of a model trained without it) and
# a cast to the dtype a tensor has as nothing.
_ABOVE_AUTOGRAD_DECOMPOSED = {op: _decomposed(op) for op in (
    aten.matmul.default, aten.softmax.int, aten.dropout.default, aten.to.dtype)}


def _lower_attention_above_autograd(gm, example_inputs, lower=True, rms=False):
    """Attention written out in a graph that trains: lowered before AOT
    autograd, so that autograd differentiates scaled_dot_product_attention
    itself (clops' fused backward, which takes the forward's logsumexp)
    instead of the written-out ops (whose backward needs the
    probabilities: a forward that saves them does not match _att_plan);
    and a causal mask the graph computes from no input becomes is_causal
    there (_causal_masks), forward and backward: below autograd the mask is
    saved for the backward call, so the forward pass cannot drop it.
    lower=False: the causal masks only.  rms: RMSNorms written out become
    clops::rms_norm there (_lower_rms_norms), whose gradient is clops'
    fused backward.

    Dynamo's graph (torch functions) is traced to ATen above autograd
    (make_fx with pre_dispatch: nothing differentiated, nothing
    functionalised, matmul and softmax decomposed to the bmm and _softmax
    the matcher reads), each attention rewritten
    (_lower_attention), and the result handed to AOT autograd in place of
    Dynamo's graph.  Returns the rewritten graph, or gm itself when there
    is nothing to lower (or the trace fails: the graph then runs as
    before, the written-out ops and their gradients)."""
    from torch._guards import detect_fake_mode
    from torch.fx.experimental.proxy_tensor import make_fx
    fake_mode = detect_fake_mode(example_inputs)
    if fake_mode is None:
        return gm
    # symbolic shapes: the matcher takes static ones only, nothing to lower
    for n in gm.graph.find_nodes(op="placeholder"):
        v = n.meta.get("example_value")
        if isinstance(v, torch.Tensor) and not (_static(v.shape) and _static(v.stride())):
            return gm
    try:
        with fake_mode:
            fakes = [fake_mode.from_tensor(x) if isinstance(x, torch.Tensor) else x
                     for x in example_inputs]
            pgm = make_fx(gm, decomposition_table=_ABOVE_AUTOGRAD_DECOMPOSED,
                          pre_dispatch=True)(*fakes)
    except Exception as e:   # a graph make_fx cannot take: left as Dynamo gave it
        if _DEBUG:
            print(f"clops compile [training]: no attention lowering, the trace above "
                  f"autograd failed: {type(e).__name__}: {e}", file=sys.stderr)
        return gm
    # attention written out (where lowering pays on the device), and the
    # causal masks a graph builds from no input: is_causal here, so that
    # autograd's backward call is causal too (below autograd the forward
    # saves the mask for the backward, which then runs masked)
    n = _lower_attention(pgm, "training") if lower else 0
    n += _lower_rms_norms(pgm, "training", above_autograd=True) if rms else 0
    if n + _causal_masks(pgm, "training") == 0:
        return gm
    pgm.graph.lint()
    pgm.recompile()
    return pgm


def clops_backend(gm, example_inputs, **kwargs):
    """torch.compile's backend "clops" (see the module docstring)."""
    from torch._dynamo.backends.common import aot_autograd
    if (torch.is_grad_enabled()
            and any(isinstance(x, torch.Tensor) and x.requires_grad for x in example_inputs)):
        lower = _has_softmax(gm) and _att_wanted_on(example_inputs)
        rms = _rms_wanted() and _has_rsqrt(gm)
        if lower or rms or _has_masked_sdpa(gm):
            gm = _lower_attention_above_autograd(gm, example_inputs, lower, rms)
    return aot_autograd(fw_compiler=_compiler("forward"), bw_compiler=_compiler("backward"),
                        inference_compiler=_compiler("inference"))(gm, example_inputs, **kwargs)


def register():
    from torch._dynamo.backends.registry import _BACKENDS, register_backend
    if "clops" not in _BACKENDS:
        register_backend(name="clops")(clops_backend)
