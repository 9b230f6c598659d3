#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""bench/torch_sort.py: PyTorch on the cases of bench_sort.c, so a run on the
GPU machine compares clops with PyTorch on the same device in one session.

    python3 bench/torch_sort.py [--scale S] [--reps N] [--device cuda|cpu] [--json FILE]

Cases: sort of 16M float32 keys, sort of each row of [4096, 4096], topk
k=50 per row of [4096, 4096], cumsum along the rows of [8192, 8192] and a
1-D cumsum of 64M float32, all into preallocated outputs (out=).  CUDA
times come from CUDA events (median of batches of back-to-back calls); on
the CPU (no CUDA, or --device cpu) from a wall clock.  Scans report GB/s
counted as bench_sort counts them (one read and one write per element).
"""
import argparse
import json

import torch

from torch_common import time_call


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    ap.add_argument("--json")
    a = ap.parse_args()
    dev = a.device
    s = max(a.scale, 1.0)
    n16m, r4k = int(2**24 / s), int(4096 / s**0.5)
    r8k, n64m = int(8192 / s**0.5), int(2**26 / s)
    g = torch.Generator(device="cpu").manual_seed(0)

    def rnd(*shape):
        return (torch.rand(*shape, generator=g) * 2 - 1).to(dev)

    copy_src, copy_dst = rnd(n64m), torch.empty(n64m, device=dev)
    peak = 8.0 * n64m / time_call(lambda: copy_dst.copy_(copy_src), a.reps, dev == "cuda") / 1e9
    results = []
    x = rnd(n16m)
    v, i = torch.empty_like(x), torch.empty(n16m, dtype=torch.long, device=dev)
    results.append(("sort_16m", "sort 16M float32", n16m, False,
                    time_call(lambda: torch.sort(x, out=(v, i)), a.reps, dev == "cuda")))
    x = rnd(r4k, r4k)
    v, i = torch.empty_like(x), torch.empty(r4k, r4k, dtype=torch.long, device=dev)
    results.append(("sort_rows", "sort rows [4096,4096] float32", r4k * r4k, False,
                    time_call(lambda: torch.sort(x, dim=-1, out=(v, i)), a.reps, dev == "cuda")))
    v, i = torch.empty(r4k, 50, device=dev), torch.empty(r4k, 50, dtype=torch.long, device=dev)
    results.append(("topk_rows", "topk k=50 rows [4096,4096]", r4k * r4k, False,
                    time_call(lambda: torch.topk(x, 50, dim=-1, out=(v, i)), a.reps, dev == "cuda")))
    x = rnd(r8k, r8k)
    o = torch.empty_like(x)
    results.append(("cumsum_rows", "cumsum rows [8192,8192] float32", r8k * r8k, True,
                    time_call(lambda: torch.cumsum(x, 1, out=o), a.reps, dev == "cuda")))
    x = rnd(n64m)
    o = torch.empty_like(x)
    results.append(("cumsum_1d", "cumsum 1-D 64M float32", n64m, True,
                    time_call(lambda: torch.cumsum(x, 0, out=o), a.reps, dev == "cuda")))
    name = torch.cuda.get_device_name() if dev == "cuda" else "cpu"
    print(f"torch {torch.__version__} on {name}: copy {peak:.1f} GB/s")
    rows = []
    for key, label, n, scan, t in results:
        rate = 8.0 * n / t / 1e9 if scan else n / t / 1e6
        print(f"  {label:34s} {t * 1e6:12.1f} us {rate:10.1f} {'GB/s' if scan else 'Mkeys/s'}"
              + (f" {rate / peak:6.3f} of copy" if scan else ""))
        rows.append({"torch_case": key, "case": label, "us_per_call": t * 1e6, "rate": rate,
                     "rate_unit": "GB/s" if scan else "Mkeys/s", "copy_gbs": peak,
                     "device": name, "torch": torch.__version__})
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
