#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes tests/data/golden_sort.json: PyTorch's (CPU) stable sort of inputs
that pin down the order: NaN after +inf ascending and before it
descending, -0.0 equal to +0.0 (input order kept), ties in input order,
integer extremes, bool, float16/bfloat16.  Also msort, and the values (not
the indices: PyTorch's CPU quickselect orders ties its own way) of topk,
kthvalue, median and nanmedian along a dim.

Each case: op, dtype, shape, dim, descending/largest/k, input (row-major;
floats as numbers or "nan", "inf", "-inf", "-0"; integers beyond 2^53 as
strings), values and (for stable sorts) indices.  tests/test_sort_golden.c
replays every case on every device.

Run: /work/torchenv/bin/python tests/data/gen_golden_sort.py
"""
import json
import math
import os

import torch

nan, inf = float("nan"), float("inf")


def enc(v):
    if isinstance(v, bool):
        return int(v)
    if isinstance(v, int) and abs(v) > 2**53:
        return str(v)
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        if v == 0 and math.copysign(1, v) < 0:
            return "-0"
    return v


DT = {"float32": torch.float32, "float64": torch.float64, "float16": torch.float16,
      "bfloat16": torch.bfloat16, "int64": torch.int64, "int32": torch.int32,
      "int16": torch.int16, "int8": torch.int8, "uint8": torch.uint8, "bool": torch.bool}

FLOATS = [
    [2.0, nan, -0.0, 0.0, 1.0, nan, inf, -0.0, 2.0, -inf, -1.0, 0.0],
    [1.0] * 9,
    [nan, nan, nan, 1.0, nan],
    [5.0, 4.0, 3.0, 2.0, 1.0, 0.0, -1.0],
    [1e-45, -1e-45, 0.0, 5e-324, -0.0, 1e-40],
]
INTS = {
    "int64": [9, -2**63, 2**63 - 1, 0, -1, 9, -2**63, 3],
    "int32": [2**31 - 1, -2**31, 5, 5, -5, 0, 5],
    "int16": [-32768, 32767, 1, 1, -1],
    "int8": [-128, 127, 0, -1, 127, 3],
    "uint8": [255, 0, 128, 127, 255, 1],
    "bool": [True, False, True, False, False, True],
}


def cases():
    for dt in ("float32", "float64", "float16", "bfloat16"):
        for x in FLOATS:
            yield dt, [len(x)], x
        yield dt, [3, 4], FLOATS[0]
    for dt, x in INTS.items():
        yield dt, [len(x)], x


def search_cases():
    """searchsorted: left/right/side, NaN values and boundaries, sorter,
    N-D boundaries, integer and float16 dtypes, mixed dtypes."""
    out = []
    b1 = [1.0, 2.0, 2.0, 3.0, nan]
    v1 = [2.0, nan, 0.0, 5.0, -inf, 3.0, 1.0]
    specs = [
        ("float32", [5], b1, "float32", [7], v1, None),
        ("float16", [5], b1, "float16", [7], v1, None),
        ("float64", [2, 3], [1.0, 3.0, 5.0, 2.0, 2.0, 4.0], "float64", [2, 2],
         [3.0, 0.0, 2.0, 9.0], None),
        ("int64", [6], [-5, 0, 0, 7, 7, 100], "int64", [5], [0, 7, -9, 101, 6], None),
        ("float32", [4], [3.0, 1.0, 2.0, 1.0], "float32", [4], [1.0, 2.0, 0.5, 3.0],
         [1, 3, 2, 0]),
        ("int32", [4], [1, 3, 5, 7], "float32", [3], [3.0, 4.5, 7.0], None),
    ]
    for bdt, bshape, bvals, vdt, vshape, vvals, sorter in specs:
        bt = torch.tensor(bvals, dtype=DT[bdt]).reshape(bshape)
        vt = torch.tensor(vvals, dtype=DT[vdt]).reshape(vshape)
        st = torch.tensor(sorter) if sorter else None
        for right, side in ((False, None), (True, None), (False, "right"), (False, "left")):
            r = torch.searchsorted(bt, vt, right=right, side=side, sorter=st)
            out.append({"op": "searchsorted", "dtype": vdt, "shape": vshape, "dim": 0,
                        "input": [enc(x) for x in vt.flatten().tolist()],
                        "bdtype": bdt, "bshape": bshape,
                        "boundaries": [enc(x) for x in bt.flatten().tolist()],
                        "sorter": sorter, "right": right, "side": side,
                        "indices": r.flatten().tolist()})
    return out


def main():
    out = []
    for dt, shape, x in cases():
        t = torch.tensor(x, dtype=DT[dt]).reshape(shape)
        inp = [enc(v) for v in t.flatten().tolist()]
        dims = [0, -1] if len(shape) > 1 else [0]
        for dim in dims:
            for desc in (False, True):
                r = torch.sort(t, dim=dim, descending=desc, stable=True)
                out.append({"op": "sort", "dtype": dt, "shape": shape, "dim": dim,
                            "descending": desc, "input": inp,
                            "values": [enc(v) for v in r.values.flatten().tolist()],
                            "indices": r.indices.flatten().tolist()})
            n = shape[dim]
            for largest in (True, False):
                k = min(3, n)
                c = {"op": "topk", "dtype": dt, "shape": shape, "dim": dim, "k": k,
                     "largest": largest, "input": inp}
                try:
                    r = torch.topk(t, k, dim=dim, largest=largest)
                    c["values"] = [enc(v) for v in r.values.flatten().tolist()]
                except (RuntimeError, NotImplementedError) as e:
                    c["error"] = str(e).splitlines()[0]
                out.append(c)
            for op in ("median", "nanmedian"):
                c = {"op": op, "dtype": dt, "shape": shape, "dim": dim, "input": inp}
                try:
                    r = getattr(torch, op)(t, dim)
                    c["values"] = [enc(v) for v in r.values.flatten().tolist()]
                except (RuntimeError, NotImplementedError) as e:
                    c["error"] = str(e).splitlines()[0]
                out.append(c)
            for k in sorted({1, (n + 1) // 2, n}):
                c = {"op": "kthvalue", "dtype": dt, "shape": shape, "dim": dim, "k": k,
                     "input": inp}
                try:
                    r = torch.kthvalue(t, k, dim=dim)
                    c["values"] = [enc(v) for v in r.values.flatten().tolist()]
                except (RuntimeError, NotImplementedError) as e:
                    c["error"] = str(e).splitlines()[0]
                out.append(c)
    out += search_cases()
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "golden_sort.json")
    with open(path, "w") as f:
        f.write("[\n" + ",\n".join(json.dumps(c) for c in out) + "\n]\n")
    print(f"{len(out)} cases -> {path} (torch {torch.__version__})")


if __name__ == "__main__":
    main()
