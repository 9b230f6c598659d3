#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""bench/torch_pool.py: PyTorch on the cases of bench_pool.c, so a run on the
GPU machine compares clops with PyTorch on the same GPU in one session (and,
with --cpu, PyTorch on the host CPU against POCL).

    python3 bench/torch_pool.py [--scale S] [--reps N] [--cpu] [--threads T]
                                [--json FILE]

ResNet shapes at batch B = 32 (--scale divides it): the stem max pooling
3x3/2/1 of float32 [B, 64, 112, 112] (forward with indices, backward, and
forward on a channels-last input), adaptive average pooling to 1x1 of
[B, 512, 7, 7] and [B, 2048, 7, 7] (forward, backward) and bilinear x2
upsampling of [B, 64, 56, 56] (forward, backward), through the same aten
ops clops implements, with the results allocated per call as clops' bench
does.  Times are medians of batches (torch_common.time_call); the case
names are bench_pool's, so bench/compare_family.py joins the JSON files.
"""
import json

import torch

from torch_common import bench_device, bench_parser, time_call

A = torch.ops.aten


def main():
    args = bench_parser().parse_args()
    cuda, dev = bench_device(args)
    if cuda:
        torch.backends.cudnn.enabled = False
    b = max(1, int(32 / max(args.scale, 1.0)))
    results = []

    def case(name, fn, nbytes):
        t = time_call(fn, args.reps, cuda)
        results.append({"torch_case": name, "gbs": nbytes / t / 1e9, "us_per_call": t * 1e6})

    k, s, p, d = [3, 3], [2, 2], [1, 1], [1, 1]
    x = torch.rand(b, 64, 112, 112, device=dev)
    y, ix = A.max_pool2d_with_indices(x, k, s, p, d, False)
    g = torch.rand_like(y)
    nb = 4 * (x.numel() + y.numel()) + 8 * y.numel()
    case("maxpool3x3s2_fwd_64x112", lambda: A.max_pool2d_with_indices(x, k, s, p, d, False), nb)
    case("maxpool3x3s2_bwd_64x112",
         lambda: A.max_pool2d_with_indices_backward(g, x, k, s, p, d, False, ix), nb)
    xl = x.contiguous(memory_format=torch.channels_last)
    case("maxpool3x3s2_fwd_64x112_nhwc",
         lambda: A.max_pool2d_with_indices(xl, k, s, p, d, False), nb)
    del x, xl, y, ix, g
    for c in (512, 2048):
        xa = torch.rand(b, c, 7, 7, device=dev)
        ga = torch.rand(b, c, 1, 1, device=dev)
        nb = 4 * (xa.numel() + ga.numel())
        case(f"adaptive_avg_fwd_{c}x7", lambda xa=xa: A._adaptive_avg_pool2d(xa, [1, 1]), nb)
        case(f"adaptive_avg_bwd_{c}x7",
             lambda xa=xa, ga=ga: A._adaptive_avg_pool2d_backward(ga, xa), nb)
    xu = torch.rand(b, 64, 56, 56, device=dev)
    gu = torch.rand(b, 64, 112, 112, device=dev)
    nb = 4 * (xu.numel() + gu.numel())
    case("bilinear_x2_fwd_64x56", lambda: A.upsample_bilinear2d(xu, [112, 112], False), nb)
    case("bilinear_x2_bwd_64x56",
         lambda: A.upsample_bilinear2d_backward(gu, [112, 112], [b, 64, 56, 56], False), nb)
    name = torch.cuda.get_device_name() if cuda else f"cpu ({torch.get_num_threads()} threads)"
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"device": name, "torch": torch.__version__, "b": b, "results": results}, f,
                      indent=1)
    print(f"torch {torch.__version__} on {name}, B = {b}")
    for r in results:
        print(f"  {r['torch_case']:30s} {r['gbs']:10.1f} GB/s {r['us_per_call']:10.1f} us")


if __name__ == "__main__":
    main()
