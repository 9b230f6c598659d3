#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""bench/torch_random.py: PyTorch on the cases of bench_random.c (uniform_,
normal_, native_dropout p=0.1 on 64M float32 elements, float16 uniform_), on
CUDA when available, else on the CPU, so a run on the GPU machine compares
clops with PyTorch on the same device in the same session.

    python3 bench/torch_random.py [--scale S] [--reps N] [--cpu] --json FILE

Timing: CUDA events (or a monotonic clock on the CPU) over batches of
back-to-back calls, median of batches; bytes counted exactly as
bench_random counts them (output written; dropout: input read, output and
bool mask written).  A copy_ of the same size gives PyTorch's copy figure.
"""
import argparse
import json

import torch

from torch_common import time_call


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--cpu", action="store_true", help="measure the CPU even if CUDA is there")
    ap.add_argument("--json", required=True)
    args = ap.parse_args()
    cuda = torch.cuda.is_available() and not args.cpu
    dev = "cuda" if cuda else "cpu"
    n = int((1 << 26) / max(args.scale, 1.0))
    n -= n % 4
    results = []

    def case(name, fn, nbytes):
        t = time_call(fn, args.reps, cuda)
        results.append({"torch_case": name, "gbs": nbytes / t / 1e9, "us_per_call": t * 1e6})

    src = torch.ones(n, device=dev)
    dst = torch.empty_like(src)
    case("copy_f32", lambda: dst.copy_(src), 2 * 4 * n)
    x = torch.ones(n, device=dev)
    case("uniform_f32", lambda: x.uniform_(0.0, 1.0), 4 * n)
    case("normal_f32", lambda: x.normal_(0.0, 1.0), 4 * n)
    case("dropout_p0.1_f32", lambda: torch.native_dropout(x, 0.1, True), (4 + 4 + 1) * n)
    h = torch.ones(n, device=dev, dtype=torch.float16)
    case("uniform_f16", lambda: h.uniform_(0.0, 1.0), 2 * n)
    name = torch.cuda.get_device_name() if cuda else "cpu"
    with open(args.json, "w") as f:
        json.dump({"device": name, "torch": torch.__version__, "threads": torch.get_num_threads(),
                   "results": results}, f, indent=1)
    print(f"PyTorch {torch.__version__} on {name}")
    for r in results:
        print(f"  {r['torch_case']:18s} {r['gbs']:10.1f} GB/s {r['us_per_call']:10.1f} us")


if __name__ == "__main__":
    main()
