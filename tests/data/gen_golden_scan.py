#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes tests/data/golden_scan.json: PyTorch's (CPU) results of the scan
family on inputs that pin down its semantics: NaN and infinities, signed
zeros, ties (cummax/cummin take the later index), integer wrap-around,
bool and integer promotion to int64, float16/bfloat16.

Each case: op, dtype of the input, shape, dim, the input values (row-major;
floats as numbers or the strings "nan", "inf", "-inf", "-0"; integers
beyond 2^53 as decimal strings), and the
result: out_dtype and values (and indices for cummax/cummin).  The C test
tests/test_scan_golden.c replays every case on every device.

Run: /work/torchenv/bin/python tests/data/gen_golden_scan.py
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
        return str(v)  # beyond a double's exact integers: a decimal string
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        if v == 0 and math.copysign(1, v) < 0:
            return "-0"
    return v


DT = {
    "float32": torch.float32, "float64": torch.float64, "float16": torch.float16,
    "bfloat16": torch.bfloat16, "int64": torch.int64, "int32": torch.int32,
    "int8": torch.int8, "uint8": torch.uint8, "bool": torch.bool,
}
NAME = {v: k for k, v in DT.items()}

FLOAT_INPUTS = [
    [1.0, 3.0, 3.0, nan, 2.0, nan, 5.0, -0.0],
    [-0.0, -0.0, 0.0, -0.0],
    [-inf, -inf, 1.0, inf, inf, -inf, 2.0],
    [2.0, 2.0, -1.0, -1.0, 2.0, -1.0, 0.5, 0.5],
    [0.5, -2.0, 4.0, 1e-3, -8.0, 0.25, 3.0, -0.5, 1.5, 2.0],
    [nan, 1.0, nan, -inf, inf],
]
INT_INPUTS = {
    "int64": [[3, -1, 3, 7, 7, -9, 2**62, 2**62, -2**63, 5]],
    "int32": [[2**30, 2**30, 5, -5, 5, 2**31 - 1, -2**31]],
    "int8": [[100, 100, -128, 127, 3, 3, -1]],
    "uint8": [[200, 100, 0, 255, 255, 7]],
    "bool": [[True, False, True, True, False, False]],
}


def cases():
    for dt in ("float32", "float64", "float16", "bfloat16"):
        for x in FLOAT_INPUTS:
            yield dt, [len(x)], 0, x
        # 2-D, scanning along each dim
        x = [1.0, nan, -2.0, 3.0, 3.0, -0.0, inf, 0.5, 0.5, -inf, 2.0, 2.0]
        yield dt, [3, 4], 0, x
        yield dt, [3, 4], 1, x
    for dt, xs in INT_INPUTS.items():
        for x in xs:
            yield dt, [len(x)], 0, x
        x = xs[0][:6]
        yield dt, [2, 3], 0, x
        yield dt, [2, 3], 1, x
    yield "float32", [], 0, [2.5]
    yield "int32", [], 0, [7]


def run(op, t, dim):
    try:
        if op in ("cummax", "cummin"):
            r = getattr(torch, op)(t, dim)
            return {"out_dtype": NAME[r.values.dtype], "values": [enc(v) for v in r.values.flatten().tolist()],
                    "indices": r.indices.flatten().tolist()}
        r = getattr(torch, op)(t, dim)
        return {"out_dtype": NAME[r.dtype], "values": [enc(v) for v in r.flatten().tolist()]}
    except (RuntimeError, NotImplementedError) as e:
        return {"error": str(e).splitlines()[0]}


def main():
    out = []
    for dt, shape, dim, x in cases():
        t = torch.tensor(x, dtype=DT[dt]).reshape(shape)
        for op in ("cumsum", "cumprod", "cummax", "cummin", "logcumsumexp"):
            res = run(op, t, dim)
            out.append({"op": op, "dtype": dt, "shape": shape, "dim": dim,
                        "input": [enc(v) for v in t.flatten().tolist()], **res})
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "golden_scan.json")
    with open(path, "w") as f:
        f.write("[\n" + ",\n".join(json.dumps(c) for c in out) + "\n]\n")
    print(f"{len(out)} cases -> {path} (torch {torch.__version__})")


if __name__ == "__main__":
    main()
