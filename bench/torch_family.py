#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""bench/torch_family.py: PyTorch on the rows of an op-family descriptor,
bench/cases/<family>.yaml, the file bench_family (bench_<family>) reads, so
both sides time the same ops on the same shapes, dtypes, layouts and
arguments in one job (CUDA when there is a GPU, else the CPU; --cpu forces
the CPU and --threads sets its thread count).

    python3 bench/torch_family.py --family NAME [--scale S] [--reps N] [--cpu]
                                  [--threads T] [--json FILE] [--case GLOB]
                                  [--cases FILE] [--list]
                                  [--clops BENCH_FAMILY [--clops-device SEL]]

Each row calls the same aten overload the clops row names
(torch.ops.aten.<op>), every argument by its schema name: tensors made and
filled as the row says (ones, zeros, a number, uniform in (-1, 1), randint,
bernoulli, the result of another op) with the row's view (permute, step),
out= tensors empty so the first (untimed) call resizes them.  Timing is
torch_common.time_call (one warm-up call, the median of 5 batches of --reps
calls: CUDA events on the GPU), bytes / flop / keys the row's models or, for
bytes, every input read once and every output written once, exactly as
tools/check/check_family.c counts them.  --list prints the rows with their
evaluated shapes without importing torch: the same text as
`bench_family --family NAME --list`, which tests/test_bench_family.sh
compares.  The JSON is {"device", "torch", "family", "scale", "results":
[{"case", "torch_case", "op", "dtype", "us_per_call", "gbs", "gflops",
"rate", ...}]}, what bench/compare_family.py and compare_torch.py join;
"settings" names PyTorch's backend flags (cuDNN, its TF32, benchmark mode).
--clops PATH runs clops' bench_family on the same rows in the same job
after PyTorch's and prints both columns (compare_family.py's table), clops'
float32 precision set as the PyTorch bridge sets it from this PyTorch's
flags (docs/conv.md), so one command gives clops beside PyTorch as users
run it.
"""
import ast
import fnmatch
import json
import math
import operator
import os
import sys

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from torch_common import bench_device, bench_parser, time_call  # noqa: E402


# ---- the descriptor (mirrors tools/check/check_family.c) --------------------

_OPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
        ast.Div: operator.truediv}


class Family:
    """A descriptor with its size symbols evaluated at one --scale."""

    def __init__(self, doc, scale):
        if not isinstance(doc, dict) or "family" not in doc or not isinstance(doc.get("rows"), list):
            raise ValueError("bench descriptor: needs `family` and `rows`")
        self.doc, self.name, self.rows = doc, doc["family"], doc["rows"]
        self.sizes = {}
        scale = max(scale, 1.0)
        for name, s in (doc.get("sizes") or {}).items():
            rule = s.get("scale", "none")
            div = {"sqrt": math.sqrt(scale), "linear": scale, "none": 1.0}[rule]
            x = math.floor(self.eval(s["value"]) / div)
            x = max(x, self.eval(s.get("min", 0)))
            mult = self.eval(s.get("multiple", 1))
            if mult >= 1:
                x -= math.fmod(x, math.floor(mult))
            self.sizes[name] = x

    def eval(self, node):
        """A number, or an expression over the size symbols."""
        if isinstance(node, bool):
            raise ValueError(f"bench descriptor: {node!r} is not a number")
        if isinstance(node, (int, float)):
            return float(node)
        return self._eval(ast.parse(str(node), mode="eval").body, node)

    def _eval(self, n, text):
        if isinstance(n, ast.Constant) and isinstance(n.value, (int, float)):
            return float(n.value)
        if isinstance(n, ast.Name) and n.id in self.sizes:
            return self.sizes[n.id]
        if isinstance(n, ast.BinOp) and type(n.op) in _OPS:
            return _OPS[type(n.op)](self._eval(n.left, text), self._eval(n.right, text))
        if isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.USub):
            return -self._eval(n.operand, text)
        if (isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and
                n.func.id in ("min", "max") and len(n.args) == 2):
            a, b = (self._eval(x, text) for x in n.args)
            return min(a, b) if n.func.id == "min" else max(a, b)
        raise ValueError(f"bench descriptor: expression {text!r}: not understood")

    def size(self, node):
        v = self.eval(node)
        if not 0 <= v < 9e18:
            raise ValueError(f"bench descriptor: size {v:g} out of range")
        return int(v)

    def sizes_text(self):
        return ", ".join(f"{k} = {int(v)}" for k, v in self.sizes.items())

    def peak_elems(self):
        n = self.size(self.doc.get("peak", 1 << 24))
        return max(4, n - n % 4)


def load(args):
    path = args.cases or os.path.join(HERE, "cases", f"{args.family}.yaml")
    with open(path) as f:
        return Family(yaml.safe_load(f), args.scale)


# ---- --list (the text of check_family.c's chk_fam_row_text) -----------------

def value_text(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return "%g" % v
    if isinstance(v, str):
        return v
    if isinstance(v, list):
        return "[" + ",".join(value_text(e) for e in v) + "]"
    return "null"


def spec_shape(spec):
    return spec if isinstance(spec, list) else spec.get("shape")


def spec_text(fam, spec, dt):
    shape = spec_shape(spec)
    if not isinstance(shape, list):
        raise ValueError("bench descriptor: a tensor needs a shape")
    s = "[" + ",".join(str(fam.size(d)) for d in shape) + "]"
    spec = spec if isinstance(spec, dict) else {}
    s += ":" + spec.get("dtype", dt)
    if "permute" in spec:
        s += ".permute" + value_text(spec["permute"])
    if "step" in spec:
        s += ".step" + value_text(spec["step"])
    if "fill" in spec:
        fill = spec["fill"]
        s += "~"
        if isinstance(fill, dict):
            s += ",".join(k + "=" + ("[" + ",".join("%g" % fam.eval(e) for e in v) + "]"
                                     if isinstance(v, list) else value_text(v))
                          for k, v in fill.items())
        else:
            s += value_text(fill)
    return s


def row_text(fam, row):
    dt = row["dtype"]
    s = f"{row['id']} op={row['op']} dtype={dt}"
    for name, spec in (row.get("inputs") or {}).items():
        if isinstance(spec, list) and spec and isinstance(spec[0], (list, dict)):
            s += f" {name}={{" + ";".join(spec_text(fam, e, dt) for e in spec) + "}"
        else:
            s += f" {name}=" + spec_text(fam, spec, dt)
    for name, v in (row.get("args") or {}).items():
        s += f" {name}=" + value_text(v)
    for name, o in (row.get("outs") or {}).items():
        s += f" out:{name}=" + (o if isinstance(o, str) else spec_text(fam, o, dt))
    for m in ("bytes", "flop", "keys"):
        if m in row:
            s += f" {m}=%.12g" % fam.eval(row[m])
    return s


# ---- running a row ------------------------------------------------------------

def torch_op(torch, name):
    base, _, overload = name.partition(".")
    return getattr(getattr(torch.ops.aten, base), overload or "default")


def make_tensor(torch, fam, row, spec, name, dev, gen):
    shape = [fam.size(d) for d in spec_shape(spec)]
    spec = spec if isinstance(spec, dict) else {}
    dt = getattr(torch, spec.get("dtype", row["dtype"]))
    fill = spec.get("fill", "ones")
    if fill == "ones" or fill == "zeros" or (isinstance(fill, (int, float))
                                             and not isinstance(fill, bool)):
        v = 1 if fill == "ones" else 0 if fill == "zeros" else fill
        t = torch.full(shape, v, dtype=dt, device=dev)
    elif fill == "uniform":
        t = (torch.rand(shape, generator=gen) * 2 - 1).to(dt).to(dev)
    elif isinstance(fill, dict) and "randint" in fill:
        lo, hi = (int(fam.eval(e)) for e in fill["randint"])
        t = torch.randint(lo, hi, shape, generator=gen, dtype=dt).to(dev)
    elif isinstance(fill, dict) and "bernoulli" in fill:
        t = (torch.rand(shape, generator=gen) < fill["bernoulli"]).to(dev)
    else:
        raise ValueError(f"{row['id']}: {name}: fill {fill!r} not understood")
    if "permute" in spec:
        t = t.permute(*spec["permute"])
    if "step" in spec:
        d, k = spec["step"]
        t = t[(slice(None),) * d + (slice(None, None, k),)]
    return t


def arg_value(torch, fam, arg, v):
    """A descriptor value as the schema type of arg wants it."""
    ty = str(arg.type)
    if v is None:
        return None
    if "ScalarType" in ty:
        return getattr(torch, v)
    numeric = any(t in ty for t in ("int", "SymInt", "float")) and "Scalar" not in ty
    if numeric and isinstance(v, list):
        return [fam.eval(e) if "float" in ty else int(fam.eval(e)) for e in v]
    if numeric and isinstance(v, str) and v not in ("inf", "-inf", "nan"):
        x = fam.eval(v)
        return x if "float" in ty else int(x)
    if isinstance(v, str) and v in ("inf", "-inf", "nan"):
        return float(v)
    return v


def is_out(arg):
    a = arg.alias_info
    return arg.kwarg_only and a is not None and a.is_write


def is_mutated(arg):
    a = arg.alias_info
    return not arg.kwarg_only and a is not None and a.is_write


class Row:
    """A row's call with every argument made on dev."""

    def __init__(self, torch, fam, row, dev, gen):
        self.torch, self.fam, self.row = torch, fam, row
        self.op = torch_op(torch, row["op"])
        schema = self.op._schema
        inputs, args, outs = (row.get(k) or {} for k in ("inputs", "args", "outs"))
        names = {a.name for a in schema.arguments}
        for field in (inputs, args, outs):
            for k in field:
                if k not in names:
                    raise ValueError(f"{row['id']}: '{k}' is no argument of {row['op']}")
        self.kw, self.schema = {}, schema
        later = []
        for a in schema.arguments:
            spec = inputs.get(a.name)
            if is_out(a):
                o = outs.get(a.name, row["dtype"])
                self.kw[a.name] = (make_tensor(torch, fam, row, o, a.name, dev, gen)
                                   if isinstance(o, dict) else
                                   torch.empty(0, dtype=getattr(torch, o), device=dev))
            elif spec is not None and isinstance(spec, dict) and isinstance(
                    spec.get("fill"), dict) and "result" in spec["fill"]:
                later.append((a, spec["fill"]))
            elif spec is not None and isinstance(spec, list) and spec and isinstance(spec[0], (list, dict)):
                self.kw[a.name] = [make_tensor(torch, fam, row, e, a.name, dev, gen) for e in spec]
            elif spec is not None:
                self.kw[a.name] = make_tensor(torch, fam, row, spec, a.name, dev, gen)
            elif a.name in args:
                self.kw[a.name] = arg_value(torch, fam, a, args[a.name])
            elif (a.type.kind() == "OptionalType" or str(a.type).endswith("?")) and \
                    a.default_value is None:
                self.kw[a.name] = None
        for a, fill in later:
            helper = torch_op(torch, fill["result"])
            hk = {h.name: self.kw[h.name] for h in helper._schema.arguments if h.name in self.kw}
            self.kw[a.name] = helper(**hk)[fill.get("index", 0)]
        self.last = None

    def __call__(self):
        self.last = self.op(**self.kw)
        return self.last

    def model(self):
        fam, row, torch = self.fam, self.row, self.torch
        v = {m: fam.eval(row[m]) if m in row else math.nan for m in ("bytes", "flop", "keys")}
        if "bytes" not in row:
            unread = set(row.get("unread") or [])

            def nbytes(t):
                return t.numel() * t.element_size() if isinstance(t, torch.Tensor) else 0
            b = 0
            for a in self.schema.arguments:
                t = self.kw.get(a.name)
                if is_out(a) or is_mutated(a):
                    b += nbytes(t)
                if a.name in unread or is_out(a):
                    continue
                b += sum(nbytes(x) for x in t) if isinstance(t, list) else nbytes(t)
            rets = self.last if isinstance(self.last, (tuple, list)) else (self.last,)
            for r, t in zip(self.schema.returns, rets):
                if r.alias_info is None:
                    b += nbytes(t)
            v["bytes"] = b
        return v["bytes"], v["flop"], v["keys"]


def parser():
    ap = bench_parser()
    ap.add_argument("--family")
    ap.add_argument("--cases", help="a descriptor file instead of bench/cases/FAMILY.yaml")
    ap.add_argument("--case", help="only the rows whose id matches this glob")
    ap.add_argument("--list", action="store_true", help="print the rows and exit (no torch)")
    ap.add_argument("--no-tf32", action="store_true",
                    help="TF32 off for matmul and cuDNN whatever the descriptor says")
    ap.add_argument("--clops", metavar="BENCH_FAMILY",
                    help="also run clops' bench_family (this path) on the same rows, "
                         "scale and reps, and print both columns with their ratio")
    ap.add_argument("--clops-device", metavar="SEL", help="bench_family's --device")
    ap.add_argument("--clops-json", metavar="FILE", help="where to keep clops' rows")
    return ap


def clops_side(args, torch):
    """bench_family (args.clops) on the rows this run timed, with clops'
    float32 precision as the PyTorch bridge would set it from this run's
    PyTorch (cudnn.allow_tf32 -> convolutions "high" or "highest", the
    matmul precision as is) unless the environment sets it; returns
    (rows, settings text)."""
    import subprocess
    import tempfile
    cmd = [args.clops, "--reps", str(args.reps), "--scale", str(args.scale)]
    cmd += ["--cases", args.cases] if args.cases else ["--family", args.family]
    if args.case:
        cmd += ["--case", args.case]
    if args.clops_device:
        cmd += ["--device", args.clops_device]
    env = dict(os.environ)
    tf32 = torch.backends.cudnn.enabled and torch.backends.cudnn.allow_tf32
    env.setdefault("CLOPS_FLOAT32_CONV_PRECISION", "high" if tf32 else "highest")
    env.setdefault("CLOPS_FLOAT32_MATMUL_PRECISION", torch.get_float32_matmul_precision())
    settings = (f"clops: CLOPS_FLOAT32_CONV_PRECISION={env['CLOPS_FLOAT32_CONV_PRECISION']}, "
                f"CLOPS_FLOAT32_MATMUL_PRECISION={env['CLOPS_FLOAT32_MATMUL_PRECISION']}")
    with tempfile.TemporaryDirectory() as d:
        path = args.clops_json or os.path.join(d, "clops.json")
        r = subprocess.run(cmd + ["--json", path], env=env)
        if r.returncode not in (0, 1):  # 1: some row failed (printed), the rest are there
            raise SystemExit(f"torch_family: {' '.join(cmd)} exited {r.returncode}")
        with open(path) as f:
            return json.load(f), settings


def main(argv=None, hook=None):
    """hook (torch_conv.py's whole-model case): add_arguments(ap),
    rows_wanted(args), device(args, torch), run(args, torch, dev, cuda, record)."""
    ap = parser()
    if hook:
        hook.add_arguments(ap)
    args = ap.parse_args(argv)
    if not args.family and not args.cases:
        ap.error("--family NAME or --cases FILE")
    fam = load(args)
    rows = [r for r in fam.rows if not args.case or fnmatch.fnmatchcase(r["id"], args.case)]
    if args.list:
        print(f"family {fam.name}: {fam.sizes_text()}")
        for r in rows:
            print(row_text(fam, r))
        return 0
    import torch
    cuda, dev = bench_device(args)
    if hook:
        cuda, dev = hook.device(args, torch, cuda, dev)
    opts = fam.doc.get("torch") or {}
    if opts.get("cudnn") is False:
        torch.backends.cudnn.enabled = False
    if opts.get("tf32") is False or args.no_tf32:
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False
    name = torch.cuda.get_device_name() if cuda else f"cpu ({torch.get_num_threads()} threads)"
    settings = (f"PyTorch: cudnn.enabled={torch.backends.cudnn.enabled}, "
                f"cudnn.allow_tf32={torch.backends.cudnn.allow_tf32}, "
                f"cudnn.benchmark={torch.backends.cudnn.benchmark}, "
                f"matmul.allow_tf32={torch.backends.cuda.matmul.allow_tf32}")
    print(f"torch {torch.__version__} on {name}: family {fam.name}, {fam.sizes_text()}")
    results = []

    def record(row_id, torch_case, t, nbytes, flop, keys, op="", dtype=""):
        r = {"case": row_id, "torch_case": torch_case, "op": op, "dtype": dtype,
             "us_per_call": t * 1e6}
        if nbytes > 0:
            r["bytes"], r["gbs"] = nbytes, nbytes / t / 1e9
        if not math.isnan(flop):
            r["flop"], r["gflops"] = flop, flop / t / 1e9
        if not math.isnan(keys):
            r["rate"], r["rate_unit"] = keys / t / 1e6, "Mkeys/s"
        results.append(r)
        extra = (f"{r['gflops']:10.1f} GFLOP/s" if "gflops" in r else
                 f"{r['rate']:10.1f} Mkeys/s" if "rate" in r else "")
        print(f"  {row_id:36s} {t * 1e6:10.1f} us {r.get('gbs', math.nan):10.1f} GB/s {extra}",
              flush=True)

    if not hook or hook.rows_wanted(args):
        for i, row in enumerate(rows):
            gen = torch.Generator(device="cpu").manual_seed(i)
            try:
                call = Row(torch, fam, row, dev, gen)
                t = time_call(call, args.reps, cuda)
                nbytes, flop, keys = call.model()
            except (RuntimeError, ValueError, TypeError, AttributeError, KeyError) as e:
                print(f"  {row['id']:36s} error: {e}", flush=True)
                continue
            record(row["id"], row.get("torch_case", row["id"]), t, nbytes, flop, keys,
                   row["op"], row["dtype"])
            del call
    if hook:
        hook.run(args, torch, dev, cuda, lambda *a: record(*a))
    doc = {"device": name, "torch": torch.__version__, "family": fam.name,
           "scale": args.scale, "sizes": fam.sizes, "settings": settings, "results": results}
    if args.json:
        with open(args.json, "w") as f:
            json.dump(doc, f, indent=1)
    if args.clops:
        from compare_family import table
        rows, csettings = clops_side(args, torch)
        print(f"\n{settings}\n{csettings}\n")
        print(table(rows, doc))
    return 0


if __name__ == "__main__":
    sys.exit(main())
