#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""bench/torch_loss.py: PyTorch on the cases of bench_loss.c, so a run on the
GPU machine compares clops with PyTorch on the same GPU in one session (and,
with --cpu, PyTorch on the host CPU against POCL).

    python3 bench/torch_loss.py [--scale S] [--reps N] [--cpu] [--threads T]
                                [--json FILE]

Each case calls aten's nll_loss_forward / nll_loss_backward into
preallocated outputs (out=) in batches of back-to-back calls, median of
batches (bench/torch_common.py), and reports us/call and the bytes the op
must move, counted exactly as bench_loss counts them, under the same case
names.
"""
import json

import torch

from torch_common import bench_device, bench_parser, time_call

A = torch.ops.aten
SPECS = [("nll_fwd_mean_gpt2_f32", 0, 8 * 512, 50257),
         ("nll_fwd_none_gpt2_f32", 1, 8 * 512, 50257),
         ("nll_bwd_mean_gpt2_f32", 2, 8 * 512, 50257),
         ("nll_fwd_mean_64x1000_f32", 0, 64, 1000),
         ("nll_bwd_mean_64x1000_f32", 2, 64, 1000)]


def main():
    args = bench_parser().parse_args()
    cuda, dev = bench_device(args)
    results = []
    for name, kind, rows, classes in SPECS:
        rows = max(1, int(rows / args.scale))
        x = torch.randn(rows, classes, device=dev)
        t = (torch.arange(rows, dtype=torch.int64) * 2654435761 % classes).to(dev)
        out = torch.empty(rows if kind == 1 else (), device=dev)
        tw = torch.ones((), device=dev)
        small = rows * 12 + (4 * rows if kind == 1 else 8)
        if kind == 2:
            go = torch.ones((), device=dev)
            gi = torch.empty(rows, classes, device=dev)
            fn = lambda: A.nll_loss_backward.grad_input(go, x, t, None, 1, -100, tw,  # noqa: E731
                                                        grad_input=gi)
            nbytes = small + 4 * rows * classes
        else:
            red = 0 if kind == 1 else 1
            fn = lambda: A.nll_loss_forward.output(x, t, None, red, -100,  # noqa: E731
                                                   output=out, total_weight=tw)
            nbytes = small
        s = time_call(fn, args.reps, cuda)
        results.append({"torch_case": name, "gbs": nbytes / s / 1e9, "us_per_call": s * 1e6})
        del x, fn
    name = torch.cuda.get_device_name() if cuda else f"cpu ({torch.get_num_threads()} threads)"
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"device": name, "torch": torch.__version__, "scale": args.scale,
                       "results": results}, f, indent=1)
    print(f"torch {torch.__version__} on {name}, scale {args.scale:g}")
    for r in results:
        print(f"  {r['torch_case']:26s} {r['gbs']:10.1f} GB/s {r['us_per_call']:10.1f} us")


if __name__ == "__main__":
    main()
