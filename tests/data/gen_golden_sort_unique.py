#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes tests/data/golden_sort_unique.json: PyTorch's (CPU) results of
mode, the unique family (_unique2, unique_consecutive, unique_dim,
unique_dim_consecutive, unique_consecutive with a dim), bincount and histc
on inputs that pin down their semantics: ties (mode: the smallest most
frequent value, its last index), NaN (each NaN unique; mode counts a NaN
alone), -0.0 == +0.0 (the first of the group is kept), integer extremes,
bool, float16/bfloat16, empty and one-element inputs, bincount's result
dtypes (int64; float32 weights stay float32, others give float64) and
minlength, histc's data range (min == max), out-of-range and NaN elements,
x == max in the last bin; and the errors PyTorch raises.

mode lines are at most 16 long: PyTorch's CPU sorts them with an insertion
sort (stable), so its index is the last occurrence, as clops documents; a
NaN only where PyTorch's comparison-based sort leaves it behind the other
values (its result is undefined otherwise).

Each case: op, dtype, shape, input (row-major; floats as numbers or "nan",
"inf", "-inf", "-0"; integers beyond 2^53 as strings), args, and either
outputs (a list of {dtype, shape, values}) or error.
tests/test_sort_unique.c replays every case on every device.

Run: /work/torchenv/bin/python tests/data/gen_golden_sort_unique.py
"""
import json
import os

import torch

from gen_golden_sort import DT, enc  # the value encoding and dtype names

nan, inf = float("nan"), float("inf")
A = torch.ops.aten


NAME = {v: k for k, v in DT.items()}


def flat(t):
    return [enc(v) for v in t.reshape(-1).tolist()]


def tensor_of(dt, shape, vals):
    return torch.tensor(vals, dtype=torch.float64 if dt.startswith(("float", "bfloat"))
                        else torch.int64).to(DT[dt]).reshape(shape)


def case(op, dt, shape, vals, args, fn, extra=None):
    c = {"op": op, "dtype": dt, "shape": shape, "input": [enc(v) for v in vals], "args": args}
    if extra:
        c.update(extra)
    x = tensor_of(dt, shape, vals)
    try:
        res = fn(x)
        if isinstance(res, torch.Tensor):
            res = (res,)
        c["outputs"] = [{"dtype": NAME[r.dtype], "shape": list(r.shape), "values": flat(r)}
                        for r in res]
    except (RuntimeError, IndexError, ValueError) as e:
        c["error"] = str(e).split("\n")[0]
    return c


FLOATS = [
    [2.0, 1.0, 2.0, 1.0, 3.0, 3.0],
    [0.0, -0.0, -0.0, 1.0],
    [-0.0, 0.0, 1.0],
    [nan, nan, nan, 1.0, 1.0],
    [nan, nan],
    [1.0] * 9,
    [5.0, 4.0, 3.0, 2.0, 1.0, 0.0, -1.0],
    [inf, -inf, inf, 1e-40, 1e-40, -inf, inf],
    [7.0],
]
UFLOATS = [
    [nan, 1.0, nan, 1.0, 0.0, -0.0],
    [nan, 1.0, nan, 1.0, -0.0, 0.0],
    [nan, nan, 1.0, 1.0, -0.0, 0.0, 2.0, 1.0],
    [3.0, 1.0, 3.0, 2.0, inf, -inf, 2.0, 1e-40],
    [1.0] * 6,
    [4.0],
    [],
]
INTS = {
    "int64": [9, -2**63, 2**63 - 1, 0, -1, 9, -2**63, 3, 2**63 - 1, 9],
    "int32": [2**31 - 1, -2**31, 5, 5, -5, 0, 5],
    "int16": [-32768, 32767, 1, 1, -1],
    "int8": [-128, 127, 0, -1, 127, 3],
    "uint8": [255, 0, 128, 127, 255, 1],
    "bool": [True, False, True, False, False, True],
}


def mode_cases():
    out = []
    for dt in ("float32", "float64", "float16", "bfloat16"):
        for x in FLOATS:
            out.append(case("mode", dt, [len(x)], x, {"dim": -1, "keepdim": False},
                            lambda t: torch.mode(t, -1)))
    for dt, x in INTS.items():
        out.append(case("mode", dt, [len(x)], x, {"dim": 0, "keepdim": False},
                        lambda t: torch.mode(t, 0)))
    m = [1, 2, 2, 1, 3, 3, 4, 4, 0, 0, 0, 5]
    for dim in (0, 1, -1):
        for keep in (False, True):
            out.append(case("mode", "int32", [3, 4], m, {"dim": dim, "keepdim": keep},
                            lambda t, d=dim, k=keep: torch.mode(t, d, k)))
    out.append(case("mode", "float32", [], [3.5], {"dim": -1, "keepdim": False},
                    lambda t: torch.mode(t, -1)))
    out.append(case("mode", "float32", [2, 0], [], {"dim": 0, "keepdim": False},
                    lambda t: torch.mode(t, 0)))
    out.append(case("mode", "float32", [2, 0], [], {"dim": 1, "keepdim": False},
                    lambda t: torch.mode(t, 1)))
    return out


def unique_cases():
    out = []
    for dt in ("float32", "float64", "float16", "bfloat16"):
        for x in UFLOATS:
            out.append(case("_unique2", dt, [len(x)], x, {"inverse": True, "counts": True},
                            lambda t: A._unique2(t, True, True, True)))
            out.append(case("unique_consecutive", dt, [len(x)], x,
                            {"inverse": True, "counts": True},
                            lambda t: A.unique_consecutive(t, True, True, None)))
    for dt, x in INTS.items():
        out.append(case("_unique2", dt, [len(x)], x, {"inverse": True, "counts": True},
                        lambda t: A._unique2(t, True, True, True)))
        out.append(case("unique_consecutive", dt, [len(x)], x, {"inverse": True, "counts": True},
                        lambda t: A.unique_consecutive(t, True, True, None)))
    m = [3, 1, 1, 1, 3, 1, 0, 2, 2, 0, 3, 1]
    out.append(case("_unique2", "int64", [3, 4], m, {"inverse": True, "counts": False},
                    lambda t: A._unique2(t, True, True, False)))
    out.append(case("_unique2", "int64", [3, 4], m, {"inverse": False, "counts": False},
                    lambda t: A._unique2(t, True, False, False)))
    out.append(case("_unique2", "float32", [], [2.5], {"inverse": True, "counts": True},
                    lambda t: A._unique2(t, True, True, True)))
    out.append(case("_unique2", "float32", [2, 0], [], {"inverse": True, "counts": True},
                    lambda t: A._unique2(t, True, True, True)))
    rows = [1, 2, 0, 5, 1, 2, 0, 3, 1, 2, 0, 5]
    for dim in (0, 1, -1):
        out.append(case("unique_dim", "int64", [6, 2], rows, {"dim": dim},
                        lambda t, d=dim: A.unique_dim(t, d, True, True, True)))
        out.append(case("unique_dim_consecutive", "int64", [6, 2], rows, {"dim": dim},
                        lambda t, d=dim: A.unique_dim_consecutive(t, d, True, True)))
        out.append(case("unique_consecutive_dim", "int64", [6, 2], rows, {"dim": dim},
                        lambda t, d=dim: A.unique_consecutive(t, True, True, d)))
    frows = [nan, 2.0, nan, 2.0, -0.0, 1.0, 0.0, 1.0, 2.0, -inf, 2.0, -inf]
    for dt in ("float32", "float16", "bfloat16", "float64"):
        out.append(case("unique_dim", dt, [6, 2], frows, {"dim": 0},
                        lambda t: A.unique_dim(t, 0, True, True, True)))
        out.append(case("unique_dim_consecutive", dt, [6, 2], frows, {"dim": 0},
                        lambda t: A.unique_dim_consecutive(t, 0, True, True)))
    cube = [1, 2, 1, 2, 0, 2, 1, 2, 1, 2, 1, 2, 0, 0, 1, 1, 1, 1]
    for dim in (0, 1, 2):
        out.append(case("unique_dim", "int32", [3, 3, 2], cube, {"dim": dim},
                        lambda t, d=dim: A.unique_dim(t, d, True, True, True)))
    out.append(case("unique_dim", "bool", [4, 2], [1, 0, 0, 0, 1, 0, 1, 1], {"dim": 0},
                    lambda t: A.unique_dim(t, 0, True, True, True)))
    out.append(case("unique_dim", "int64", [0, 3], [], {"dim": 0},
                    lambda t: A.unique_dim(t, 0, True, True, True)))
    out.append(case("unique_dim", "int64", [3, 0], [], {"dim": 0},
                    lambda t: A.unique_dim(t, 0, True, True, True)))
    out.append(case("unique_dim", "int64", [1, 1], [4], {"dim": 1},
                    lambda t: A.unique_dim(t, 1, True, True, True)))
    return out


def count_cases():
    out = []
    base = [1, 1, 3, 0, 7, 3, 3]
    for dt in ("int64", "int32", "int16", "int8", "uint8"):
        out.append(case("bincount", dt, [7], base, {"minlength": 0},
                        lambda t: torch.bincount(t)))
    out.append(case("bincount", "int64", [7], base, {"minlength": 11},
                    lambda t: torch.bincount(t, minlength=11)))
    w = [0.5, 0.25, 1e8, -1.0, 3.0, 1e-8, -1e8]
    for wdt in ("float32", "float64", "float16", "int32", "bool"):
        out.append(case("bincount", "int64", [7], base, {"minlength": 2},
                        lambda t, wd=wdt: torch.bincount(t, tensor_of(wd, [7], w), 2),
                        {"weights": [enc(v) for v in w], "wdtype": wdt}))
    out.append(case("bincount", "int64", [1], [0], {"minlength": 0},
                    lambda t: torch.bincount(t)))
    out.append(case("bincount", "int64", [0], [], {"minlength": 0},
                    lambda t: torch.bincount(t)))
    out.append(case("bincount", "int64", [0], [], {"minlength": 3},
                    lambda t: torch.bincount(t, tensor_of("float32", [0], []), 3),
                    {"weights": [], "wdtype": "float32"}))
    out.append(case("bincount", "int64", [2], [-1, 2], {"minlength": 0},
                    lambda t: torch.bincount(t)))
    out.append(case("bincount", "int64", [1, 2], [1, 2], {"minlength": 0},
                    lambda t: torch.bincount(t)))
    out.append(case("bincount", "int64", [2], [1, 2], {"minlength": -1},
                    lambda t: torch.bincount(t, minlength=-1)))
    out.append(case("bincount", "float32", [2], [1, 2], {"minlength": 0},
                    lambda t: torch.bincount(t)))
    out.append(case("bincount", "bool", [2], [1, 0], {"minlength": 0},
                    lambda t: torch.bincount(t)))
    out.append(case("bincount", "int64", [2], [1, 2], {"minlength": 0},
                    lambda t: torch.bincount(t, tensor_of("float32", [1], [1.0])),
                    {"weights": [1.0], "wdtype": "float32"}))
    h = [1.0, 2.0, 1.0, nan, 5.0, -1.0, 3.0, 0.0, 2.9999, 0.75]
    hs = [1.0, 2.0, 1.0, 4.0, 0.1, 0.7, 3.3, 2.2]
    for dt in ("float32", "float64", "float16", "bfloat16"):
        for bins, lo, hi in ((4, 0, 3), (1, 0, 3), (7, -1.5, 2.25), (100, 0.0, 1.0)):
            out.append(case("histc", dt, [len(h)], h, {"bins": bins, "min": lo, "max": hi},
                            lambda t, b=bins, l=lo, u=hi: torch.histc(t, b, l, u)))
        for bins in (4, 3, 1000):
            out.append(case("histc", dt, [len(hs)], hs, {"bins": bins, "min": 0, "max": 0},
                            lambda t, b=bins: torch.histc(t, b)))
    out.append(case("histc", "float32", [2], [2.0, 2.0], {"bins": 4, "min": 0, "max": 0},
                    lambda t: torch.histc(t, 4)))
    out.append(case("histc", "float32", [0], [], {"bins": 4, "min": 0, "max": 0},
                    lambda t: torch.histc(t, 4)))
    out.append(case("histc", "float32", [1], [5.0], {"bins": 3, "min": 0, "max": 0},
                    lambda t: torch.histc(t, 3)))
    for x, b, lo, hi in (([1.0, nan], 4, 0, 0), ([1.0], 0, 0, 1), ([1.0], 4, 3, 1),
                         ([1.0, inf], 4, 0, 0)):
        out.append(case("histc", "float32", [len(x)], x, {"bins": b, "min": lo, "max": hi},
                        lambda t, b=b, l=lo, u=hi: torch.histc(t, b, l, u)))
    out.append(case("histc", "int32", [2], [1, 2], {"bins": 4, "min": 0, "max": 3},
                    lambda t: torch.histc(t, 4, 0, 3)))
    return out


def main():
    cases = mode_cases() + unique_cases() + count_cases()
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "golden_sort_unique.json"), "w") as f:
        f.write("[\n" + ",\n".join(json.dumps(c) for c in cases) + "\n]\n")
    print(f"{len(cases)} cases")


if __name__ == "__main__":
    main()
