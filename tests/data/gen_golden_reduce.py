#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes tests/data/golden_reduce.json: PyTorch's CPU results for the
reduction ops of clops (dispatch/inventory/reduce.yaml), for the semantics the
layout sweeps cannot show: result dtypes, NaN propagation and the first
index on ties, empty reductions (identities or errors), dtype= handling,
var/std corrections and large means, logsumexp with infinities, the norm
orders, and the errors (repeated dims, integer mean, empty amax, ...).

Each case calls torch.ops.aten.<name>.<overload> with every argument given
positionally or by keyword in schema order, and records the outputs or
that PyTorch raised.  tests/test_reduce_golden.c replays each case through
clops_call_boxed on the CPU device and on every OpenCL device.

Format: a JSON array, one case per line:
  {"func": "sum.dim_IntList",
   "args": [{"t": {"dtype": "float32", "shape": [2, 3], "values": [...]}},
            {"ints": [1]}, {"bool": false}, {"none": 1}, {"int": 0},
            {"scalar": 2.5}, {"dtype": "float64"}, ...],     # schema order
   "nrets": 1,                                             # schema's return count
   "error": 1,                                             # PyTorch raised
   "outputs": [{"dtype": "int64", "shape": [2], "values": [...]}, ...]}
                                          # ({"none": 1} for a None result;
                                          #  {"bools": [...]} for bool[N] args)
Values are strings: repr() of the float ("nan", "inf", "-0.0") or the
decimal integer.

Usage: python3 gen_golden_reduce.py [OUT.json]   (needs torch; CPU only)
"""
import json
import math
import os
import sys

import torch

NAMES = {torch.bool: "bool", torch.uint8: "uint8", torch.int8: "int8", torch.int16: "int16",
         torch.int32: "int32", torch.int64: "int64", torch.float16: "float16",
         torch.bfloat16: "bfloat16", torch.float32: "float32", torch.float64: "float64"}
BYNAME = {v: k for k, v in NAMES.items()}
ALL = list(NAMES)
FLOATS = [torch.float16, torch.bfloat16, torch.float32, torch.float64]
INTS = [torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64]


def vals(t):
    out = []
    for v in t.reshape(-1).tolist():
        if isinstance(v, bool):
            out.append("1" if v else "0")
        elif isinstance(v, int):
            out.append(str(v))
        else:
            out.append(repr(float(v)))
    return out


def tspec(t):
    return {"t": {"dtype": NAMES[t.dtype], "shape": list(t.shape), "values": vals(t)}}


def enc(a):
    if isinstance(a, torch.Tensor):
        return tspec(a)
    if a is None:
        return {"none": 1}
    if isinstance(a, bool):
        return {"bool": a}
    if isinstance(a, int):
        return {"int": a}
    if isinstance(a, float):
        return {"scalar": repr(a)}
    if isinstance(a, torch.dtype):
        return {"dtype": NAMES[a]}
    if isinstance(a, (list, tuple)) and a and all(isinstance(v, bool) for v in a):
        return {"bools": list(a)}
    if isinstance(a, (list, tuple)):
        return {"ints": list(a)}
    raise TypeError(a)


CASES = []


def case(func, *args, scalar_int=()):
    name, _, ov = func.partition(".")
    fn = getattr(getattr(torch.ops.aten, name), ov or "default")
    row = {"func": func, "args": [enc(a) for a in args], "nrets": len(fn._schema.returns)}
    for i in scalar_int:   # an int passed as a Scalar
        row["args"][i] = {"scalar": str(args[i])}
    pos, kw = [], {}
    for a, v in zip(fn._schema.arguments, args):
        if a.kwarg_only:
            kw[a.name] = v
        else:
            pos.append(v)
    try:
        r = fn(*pos, **kw)
        rs = r if isinstance(r, (tuple, list)) else (r,)
        row["outputs"] = [{"none": 1} if o is None else
                          {"dtype": NAMES[o.dtype], "shape": list(o.shape), "values": vals(o)}
                          for o in rs]
    except Exception:  # noqa: BLE001 - any refusal is what we record
        row["error"] = 1
    CASES.append(row)


def data(dt, shape, special=True, seed=0):
    g = torch.Generator().manual_seed(seed)
    n = math.prod(shape)
    if dt == torch.bool:
        return (torch.rand(n, generator=g) > 0.5).reshape(shape)
    if dt in INTS:
        lo = 0 if dt == torch.uint8 else -9
        return torch.randint(lo, 10, (n,), generator=g).to(dt).reshape(shape)
    x = (torch.rand(n, generator=g, dtype=torch.float64) * 20 - 10)
    if special and n >= 8:
        x[1] = math.nan
        x[3] = math.inf
        x[5] = -math.inf
        x[6] = 0.0
    return x.to(dt).reshape(shape)


def write(out, cases):
    with open(out, "w") as f:
        f.write("[\n")
        f.write(",\n".join(json.dumps(c, sort_keys=True) for c in cases))
        f.write("\n]\n")
    print(f"{out}: {len(cases)} cases")


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__),
                                                              "golden_reduce.json")
    for dt in ALL:
        x = data(dt, [3, 5], special=False, seed=1)
        xs = data(dt, [4, 6], special=True, seed=2)
        e = torch.zeros([0, 3], dtype=dt)
        for t in (x, xs):
            case("sum", t, None)
            case("sum.dim_IntList", t, [1], False, None)
            case("sum.dim_IntList", t, [0, -1], True, None)
            case("nansum", t, [0], False, None)
            case("prod.dim_int", t, 1, False, None)
            case("mean.dim", t, [1], False, None)
            case("nanmean", t, [0], True, None)
            case("amax", t, [1], False)
            case("amin", t, [], False)
            case("max", t)
            case("min", t)
            case("max.dim", t, 1, False)
            case("min.dim", t, 0, True)
            case("argmax", t, None, False)
            case("argmax", t, 1, True)
            case("argmin", t, 0, False)
            case("aminmax", t, None, False)
            case("any.dim", t, 1, False)
            case("all.dims", t, None, False)
            case("count_nonzero", t, None)
            case("count_nonzero.dim_IntList", t, [0])
            case("var.correction", t, [1], None, False)
            case("std.correction", t, None, 0.0, True)
            case("var_mean.correction", t, [0], 2.0, False)
            case("std_mean", t, True)
            case("logsumexp", t, [1], False)
            case("linalg_vector_norm", t, 2.0, [1], False, None)
            case("norm.Scalar", t, 1.0)
        # empty reductions
        case("sum.dim_IntList", e, [0], False, None)
        case("prod.dim_int", e, 0, False, None)
        case("mean.dim", e, [0], False, None)
        case("amax", e, [0], False)
        case("amax", e, [1], False)
        case("max", e)
        case("argmax", e, None, False)
        case("max.dim", e, 0, False)
        case("any.dim", e, 0, False)
        case("all.dim", e, 0, False)
        case("logsumexp", e, [0], False)
        case("var.correction", e, [0], None, False)
        case("count_nonzero.dim_IntList", e, [0])
        # zero-dim
        z = torch.tensor(3, dtype=dt) if dt != torch.bool else torch.tensor(True)
        case("sum.dim_IntList", z, [0], False, None)
        case("amax", z, [-1], True)
        case("argmax", z, 0, False)
        case("max.dim", z, 0, False)
        # dtype=
        for to in (torch.float64, torch.int32, torch.float16):
            case("sum.dim_IntList", x, [1], False, to)
            case("mean.dim", x, [1], False, to)
            if to != torch.float16:   # 15 factors overflow half in either order
                case("prod", x, to)
    # ties and NaN positions
    for dt in FLOATS:
        t = torch.tensor([[1, 3, 3, 2], [math.nan, 5, math.nan, 1], [2, 2, 2, 2],
                          [-math.inf, -math.inf, -math.inf, -math.inf]], dtype=dt)
        for f in ("argmax", "argmin"):
            case(f, t, 1, False)
            case(f, t, None, False)
        case("max.dim", t, 1, False)
        case("min.dim", t, 0, False)
        case("logsumexp", t, [1], False)
        case("logsumexp", torch.tensor([[math.inf, 1.0], [math.inf, -math.inf]], dtype=dt), [1],
             False)
        for o in (0.0, 1.0, 2.0, 3.0, 0.5, -1.0, math.inf, -math.inf):
            case("linalg_vector_norm", t[:3, :], o, [1], False, None)
        case("aminmax", t, 1, False)
        # large mean: var must not lose everything to cancellation
        big = (torch.arange(64, dtype=torch.float64) * 0.01 + 1e4).to(dt)
        case("var.correction", big, None, None, False)
        case("std_mean.correction", big, None, 0.0, False)
    # integer dtypes in float-only reductions and other errors
    ti = torch.arange(6).reshape(2, 3)
    case("mean", ti, None)
    case("mean.dim", ti, [0], False, torch.int64)
    case("var.correction", ti, None, None, False)
    case("nanmean", ti, None, False, None)
    case("linalg_vector_norm", ti, 2.0, None, False, None)
    case("norm.ScalarOpt_dtype", torch.ones(3), 2.0, torch.int64)
    case("argmax", torch.tensor([True, False]), None, False)
    case("sum.dim_IntList", torch.ones(2, 3), [0, -2], False, None)
    case("amax", torch.ones(2, 3), [1, 1], False)
    case("sum.dim_IntList", torch.ones(2, 3), [2], False, None)
    case("aminmax", torch.zeros(0), None, False)
    case("linalg_vector_norm", torch.zeros(0), math.inf, None, False, None)
    case("any.dims", torch.ones(2, 3), [], False)
    case("sum", torch.tensor([2**62, 2**62, 2**62], dtype=torch.int64), None)
    case("prod", torch.tensor([200, 2], dtype=torch.uint8), None)
    case("any", torch.tensor([0, 7], dtype=torch.uint8))
    write(out, CASES)


if __name__ == "__main__":
    main()
