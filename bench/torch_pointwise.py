#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""bench/torch_pointwise.py: PyTorch's kernels on the shapes of
bench_pointwise.c, so a run on the GPU machine compares clops with PyTorch on
the same GPU in the same session; with no CUDA device (CUDA_VISIBLE_DEVICES=)
or --cpu it measures PyTorch on the CPU, on --threads cores (default: all),
to set beside `bench_pointwise --device pocl` on the same cores.

    python3 bench/torch_pointwise.py [--scale S] [--reps N] [--cpu] [--threads T] --json FILE

Each case is timed with CUDA events over batches of back-to-back calls into a
preallocated output (out=), median of batches, and reported with the bytes the
op must move, exactly as bench_pointwise counts them.  A float4-style copy
(out.copy_(src)) gives PyTorch's own copy figure for reference.
"""
import argparse
import json
import math

import torch

from torch_common import time_call


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--json", required=True)
    ap.add_argument("--cpu", action="store_true", help="PyTorch on the CPU even with CUDA")
    ap.add_argument("--threads", type=int, default=0, help="CPU threads (default: all cores)")
    args = ap.parse_args()
    cuda = torch.cuda.is_available() and not args.cpu
    if not cuda and args.threads > 0:
        torch.set_num_threads(args.threads)
    scale = max(args.scale, 1.0)
    n2 = int(8192 / math.sqrt(scale))
    n1 = int((1 << 26) / scale)
    n1 -= n1 % 4
    dev = "cuda" if cuda else "cpu"
    results = []

    def case(name, fn, nbytes):
        t = time_call(fn, args.reps, cuda)
        results.append({"torch_case": name, "gbs": nbytes / t / 1e9, "us_per_call": t * 1e6})

    src = torch.ones(n1, device=dev)
    dst = torch.empty_like(src)
    case("copy_f32", lambda: dst.copy_(src), 2 * 4 * n1)
    for name, dt in (("add_f32", torch.float32), ("add_f16", torch.float16),
                     ("add_bf16", torch.bfloat16)):
        a = torch.ones(n1, device=dev, dtype=dt)
        b = torch.ones(n1, device=dev, dtype=dt)
        o = torch.empty_like(a)
        case(name, lambda a=a, b=b, o=o: torch.add(a, b, out=o), 3 * n1 * a.element_size())
    a = torch.ones(n2, n2, device=dev)
    b = torch.ones(n2, 1, device=dev)
    o = torch.empty_like(a)
    case("add_bcast", lambda: torch.add(a, b, out=o), 4 * (2 * n2 * n2 + n2))
    at = torch.ones(n2, n2, device=dev).t()
    b2 = torch.ones(n2, n2, device=dev)
    case("add_transposed", lambda: torch.add(at, b2, out=o), 4 * 3 * n2 * n2)
    sl = torch.ones(n2, 2 * n2, device=dev)[:, ::2]
    case("add_sliced", lambda: torch.add(sl, b2, out=o), 4 * 3 * n2 * n2)
    x = torch.ones(n1, device=dev)
    y = torch.empty_like(x)
    case("exp_f32", lambda: torch.exp(x, out=y), 2 * 4 * n1)
    t1 = torch.ones(n1, device=dev)
    t2 = torch.ones(n1, device=dev)
    case("addcmul_f32", lambda: torch.addcmul(x, t1, t2, value=0.5, out=y), 4 * 4 * n1)
    with open(args.json, "w") as f:
        name = torch.cuda.get_device_name() if cuda else f"cpu ({torch.get_num_threads()} threads)"
        json.dump({"device": name, "torch": torch.__version__, "results": results}, f, indent=1)
    print(f"PyTorch {torch.__version__} on {name}")
    for r in results:
        print(f"  {r['torch_case']:16s} {r['gbs']:10.1f} GB/s {r['us_per_call']:10.1f} us")


if __name__ == "__main__":
    main()
