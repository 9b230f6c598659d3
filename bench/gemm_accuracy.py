#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""bench/gemm_accuracy.py: max relative error against a float64 reference of
the float32 products bench/gemm_accuracy.c wrote (clops' CLBlast, 3xTF32 and
TF32 paths: TF32 rounded by a pass and read as staged, truncated, engine13) and of cuBLAS's on the same inputs (TF32 off: PyTorch's
"highest"; TF32 on: "high"), as issue 29 asks of 3xTF32 ("at least as
accurate as an FMA SGEMM against a float64 reference").

    python3 bench/gemm_accuracy.py DIR M N K [--bn] [--uniform] [-- DIR M N K [--bn] [--uniform] ...]

(several sets of arguments separated by "--": one table each, one process,
so that PyTorch starts once.)

(--uniform: the inputs gemm_accuracy --uniform wrote, uniform(0, 1); only
the table's title changes.)

Error of C: max |C - C64| / max |C64|, and the mean of |C - C64| / max |C64|;
C64 = A @ W^T in float64 (on the GPU when there is one).
"""
import sys

import torch


def load(path, rows, cols):
    return torch.from_file(path, shared=False, size=rows * cols, dtype=torch.float32).reshape(rows, cols)


def main():
    groups, cur = [], []
    for a in sys.argv[1:]:
        if a == "--":
            groups.append(cur)
            cur = []
        else:
            cur.append(a)
    groups.append(cur)
    for g in groups:
        if g:
            table(g)


def table(argv):
    d, m, n, k = argv[0], int(argv[1]), int(argv[2]), int(argv[3])
    dev = "cuda" if torch.cuda.is_available() else "cpu"
    a = load(f"{d}/a.f32", m, k).to(dev)
    w = load(f"{d}/w.f32", n, k).to(dev)
    c64 = a.double() @ w.double().t()
    scale = c64.abs().max().item()
    rows = []

    def err(name, c):
        e = (c.double() - c64).abs()
        rows.append((name, e.max().item() / scale, e.mean().item() / scale))

    names = ["clblast", "3xtf32", "3xtf32p", "3xtf32p2", "3xtf32p4", "3xtf32p8",
             "3xtf32p1h2", "3xtf32p2h2", "3xtf32p2h4", "3xtf32p2h4o", "tf32", "tf32trunc"]
    names += ["3xtf32p2h2plain", "tf32xt", "tf32xttrunc"] if "--bn" in argv else ["tf32tma"]
    got = {}
    for name in names:
        try:
            c = load(f"{d}/c_{name}.f32", m, n)
        except (OSError, RuntimeError) as ex:
            print(f"clops {name}: missing ({ex})")
            continue
        got[name] = c
        err(f"clops {name}", c.to(dev))
    # the column passes (x3-13) against the full-width set of the same period;
    # (--bn) x3-13's plain-load staging of the N-major B against x3xt14's
    for name, full in (("3xtf32p1h2", "3xtf32p"), ("3xtf32p2h2", "3xtf32p2"),
                       ("3xtf32p2h4", "3xtf32p2"), ("3xtf32p2h4o", "3xtf32p2"),
                       ("3xtf32p2h2plain", "3xtf32p2h2")):
        if name in got and full in got:
            same = torch.equal(got[name].view(torch.int32), got[full].view(torch.int32))
            print(f"clops {name} bits {'==' if same else '!='} {full}")
    b = w.t().contiguous() if "--bn" in argv else w.t()
    torch.backends.cuda.matmul.allow_tf32 = False
    err("cuBLAS (TF32 off)", a @ b)
    torch.backends.cuda.matmul.allow_tf32 = True
    err("cuBLAS (TF32 on)", a @ b)
    torch.backends.cuda.matmul.allow_tf32 = False
    name = torch.cuda.get_device_name() if dev == "cuda" else "cpu"
    dist = "uniform(0,1)" if "--uniform" in argv else "N(0,1)"
    print(f"# max relative error vs float64, {m} x {n} x {k}, {dist} inputs, {name}")
    print("| product | max abs err / max abs C64 | mean abs err / max abs C64 |")
    print("| --- | ---: | ---: |")
    for r in rows:
        print(f"| {r[0]} | {r[1]:.3e} | {r[2]:.3e} |")


if __name__ == "__main__":
    main()
