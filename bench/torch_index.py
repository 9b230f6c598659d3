#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""bench/torch_index.py: PyTorch on the cases of bench_index.c (cat, gather,
embedding, index_select, scatter_add, nonzero, masked_select, and the copy they are compared with), so a run on
the GPU machine puts clops and PyTorch side by side in one session.

    python3 bench/torch_index.py [--scale S] [--reps N] [--json FILE]

CUDA when available (timed with CUDA events), else the CPU (wall clock).
Bytes are counted exactly as bench_index.c counts them; the median of five
batches of back-to-back calls is reported.
"""
import argparse
import json
import math

import torch

from torch_common import time_call


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--json")
    a = ap.parse_args()
    cuda = torch.cuda.is_available()
    dev = "cuda" if cuda else "cpu"
    scale = max(a.scale, 1.0)
    n = int(8192 / math.sqrt(scale))
    g = torch.Generator(device="cpu").manual_seed(0)
    f32 = dict(device=dev, dtype=torch.float32)
    cases = []

    x = torch.ones(n, n, **f32)
    y = torch.ones(n, n, **f32)
    out = torch.empty(n, n, **f32)
    cases.append(("copy", lambda: out.copy_(x), 2.0 * n * n * 4))
    cat_out = torch.empty(2 * n, n, **f32)
    cases.append(("cat", lambda: torch.cat([x, y], 0, out=cat_out), 4.0 * n * n * 4))
    gi = torch.randint(0, n, (n, n), generator=g).to(dev)
    g_out = torch.empty(n, n, **f32)
    cases.append(("gather", lambda: torch.gather(x, 1, gi, out=g_out), n * n * (4 + 8 + 4)))
    ids = max(int(32768 / scale), 64)
    table = torch.ones(50000, 1024, **f32)
    ei = torch.randint(0, 50000, (ids,), generator=g).to(dev)
    cases.append(("embedding", lambda: torch.nn.functional.embedding(ei, table),
                  ids * 8 + 2.0 * ids * 1024 * 4))
    rows = min(n, 8192)
    si = torch.randint(0, n, (rows,), generator=g).to(dev)
    s_out = torch.empty(rows, n, **f32)
    cases.append(("index_select", lambda: torch.index_select(x, 0, si, out=s_out),
                  rows * 8 + 2.0 * rows * n * 4))

    r = n // 2
    sa_src = torch.ones(r, 1024, **f32)
    sa_idx = torch.randint(0, 16, (r, 1024), generator=g).to(dev)
    sa_self = torch.ones(r, 16, **f32)
    sa_out = torch.empty(r, 16, **f32)
    cases.append(("scatter_add", lambda: torch.scatter_add(sa_self, 1, sa_idx, sa_src, out=sa_out),
                  r * 1024 * (4 + 8) + 2.0 * r * 16 * 4))
    mask = torch.randint(0, 2, (n, n), generator=g).to(dev) != 0
    nn = float(n * n)
    cases.append(("nonzero", lambda: torch.nonzero(mask), nn + nn / 2 * 2 * 8))
    cases.append(("masked_select", lambda: torch.masked_select(x, mask), nn * (1 + 4) + nn / 2 * 4))

    name = torch.cuda.get_device_name() if cuda else "cpu"
    print(f"torch {torch.__version__} on {name}, N = {n}")
    results = []
    peak = 0.0
    for case, fn, nbytes in cases:
        t = time_call(fn, a.reps, cuda)
        gbs = nbytes / t / 1e9
        if case == "copy":
            peak = gbs
        print(f"  {case:<14} {gbs:10.1f} GB/s {gbs / peak if peak else 0:8.3f} of copy "
              f"{t * 1e6:10.1f} us")
        results.append({"case": case, "device": name, "gbs": gbs, "copy_gbs": peak,
                        "ratio_to_copy": gbs / peak if peak else 0, "us_per_call": t * 1e6})
    if a.json:
        with open(a.json, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
