#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes tests/data/golden_pool.json: PyTorch's CPU results for the pooling
and resampling ops of clops (dispatch/inventory/pool.yaml): max_pool2d/3d with
indices (ceil_mode windows past the edge, dilation, NaN in a window: the
index of the last NaN, an all -inf window, unbatched input) and their
backward ops, avg_pool2d/3d (ceil_mode, count_include_pad,
divisor_override) and backward, adaptive average and max pooling (+
backward), nearest/bilinear/bicubic upsampling (align_corners, scales,
down- and upsampling) and backward, pixel_shuffle/unshuffle, and the calls
PyTorch refuses (a zero kernel, too much padding, an output too small, a
channel count not divisible by r^2).  The format and the case helper are
those of gen_golden_reduce.py; tests/test_pool.c replays the file.

Usage: python3 gen_golden_pool.py [OUT.json]   (needs torch; CPU only)
"""
import math
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_golden_reduce as g  # noqa: E402

A = torch.ops.aten


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__),
                                                              "golden_pool.json")
    for dt in (torch.float32, torch.float64, torch.float16, torch.bfloat16):
        x = g.data(dt, [1, 2, 5, 6], special=False, seed=1)
        nan = g.data(torch.float64, [1, 1, 4, 4], special=False, seed=2)
        nan[0, 0, 0, 1] = math.nan
        nan[0, 0, 1, 0] = math.nan   # two NaNs in the first window: the last one's index
        nan[0, 0, 3, 3] = math.nan
        nan = nan.to(dt)
        ninf = torch.full([1, 1, 3, 3], -math.inf, dtype=dt)
        ninf[0, 0, 2, 2] = 1.0
        for args in (([3, 3], [2, 2], [1, 1], [1, 1], True), ([3, 3], [2, 2], [1, 1], [1, 1], False),
                     ([2, 2], [2, 2], [0, 0], [1, 1], True), ([3, 2], [1, 2], [1, 0], [2, 1], False)):
            g.case("max_pool2d_with_indices", x, *args)
            go = g.data(dt, list(A.max_pool2d_with_indices(x, *args)[0].shape), False, seed=3)
            idx = A.max_pool2d_with_indices(x, *args)[1]
            g.case("max_pool2d_with_indices_backward", go, x, *args, idx)
        g.case("max_pool2d_with_indices", nan, [2, 2], [2, 2], [0, 0], [1, 1], False)
        g.case("max_pool2d_with_indices", nan, [3, 3], [1, 1], [1, 1], [1, 1], True)
        g.case("max_pool2d_with_indices", ninf, [2, 2], [1, 1], [1, 1], [1, 1], False)
        g.case("max_pool2d_with_indices", x[0], [2, 3], [], [0, 1], [1, 1], True)
        full = dt in (torch.float32, torch.float64)   # PyTorch's CPU has no 3-D half pooling
        x3 = g.data(dt, [1, 2, 3, 4, 5], special=False, seed=4)
        if full:
            g.case("max_pool3d_with_indices", x3, [2, 2, 2], [2, 2, 2], [1, 0, 1], [1, 1, 1], True)
        r3 = A.max_pool3d_with_indices(x3.double(), [2, 2, 2], [2, 2, 2], [1, 0, 1], [1, 1, 1], True)
        if full:
            g.case("max_pool3d_with_indices_backward", g.data(dt, list(r3[0].shape), False, seed=5),
                   x3, [2, 2, 2], [2, 2, 2], [1, 0, 1], [1, 1, 1], True, r3[1])
        for ceil in (False, True):
            for cip in (True, False):
                for div in (None, 3):
                    args = ([3, 3], [2, 2], [1, 1], ceil, cip, div)
                    g.case("avg_pool2d", x, *args)
                    go = g.data(dt, list(A.avg_pool2d(x.double(), *args).shape), False, seed=6)
                    g.case("avg_pool2d_backward", go, x, *args)
        g.case("avg_pool2d", x, [2, 4], [3, 3], [1, 2], True, False, None)
        if full:
            g.case("avg_pool3d", x3, [2, 3, 2], [2, 1, 2], [1, 1, 0], True, False, None)
        ar = A.avg_pool3d(x3.double(), [2, 3, 2], [2, 1, 2], [1, 1, 0], True, True, None)
        if full:
            g.case("avg_pool3d_backward", g.data(dt, list(ar.shape), False, seed=7), x3,
                   [2, 3, 2], [2, 1, 2], [1, 1, 0], True, True, None)
        xa = g.data(dt, [1, 2, 7, 5], special=False, seed=8)
        for os_ in ([3, 4], [1, 1], [10, 7]):
            g.case("_adaptive_avg_pool2d", xa, os_)
            g.case("_adaptive_avg_pool2d_backward", g.data(dt, [1, 2] + os_, False, seed=9), xa)
            g.case("adaptive_max_pool2d", xa, os_)
            idx = A.adaptive_max_pool2d(xa, os_)[1]
            g.case("adaptive_max_pool2d_backward", g.data(dt, [1, 2] + os_, False, seed=10), xa,
                   idx)
        g.case("adaptive_max_pool2d", nan, [3, 2])
        xu = g.data(dt, [1, 2, 3, 4], special=False, seed=11)
        sizes = (([7, 9], None, None), ([6, 8], None, None), ([5, 7], 1.7, 1.9),
                 ([2, 3], None, None), ([1, 1], None, None))
        for os_, sh, sw in sizes if full else sizes[:3:2]:
            gu = g.data(dt, [1, 2] + os_, False, seed=12)
            g.case("upsample_nearest2d", xu, os_, sh, sw)
            g.case("upsample_nearest2d_backward", gu, os_, [1, 2, 3, 4], sh, sw)
            for f in ("bilinear", "bicubic"):
                for ac in (False, True):
                    g.case(f"upsample_{f}2d", xu, os_, ac, sh, sw)
                    g.case(f"upsample_{f}2d_backward", gu, os_, [1, 2, 3, 4], ac, sh, sw)
        xs = g.data(dt, [2, 8, 3, 2], special=False, seed=13)
        g.case("pixel_shuffle", xs, 2)
        g.case("pixel_unshuffle", g.data(dt, [2, 2, 4, 6], special=False, seed=14), 2)
    f = torch.float32
    x = g.data(f, [1, 1, 4, 4], special=False, seed=1)
    g.case("max_pool2d_with_indices", x, [0, 0], [], [0, 0], [1, 1], False)
    g.case("max_pool2d_with_indices", x, [3, 3], [1, 1], [2, 2], [1, 1], False)
    g.case("max_pool2d_with_indices", g.data(f, [1, 1, 2, 2], False, 1), [3, 3], [1, 1], [0, 0],
           [1, 1], False)
    g.case("avg_pool2d", x, [2, 2], [2, 2], [0, 0], False, True, 0)
    g.case("pixel_shuffle", g.data(f, [1, 5, 2, 2], False, 1), 2)
    g.case("pixel_unshuffle", g.data(f, [1, 1, 3, 4], False, 1), 2)
    g.case("upsample_bilinear2d", g.data(f, [1, 1, 3], False, 1), [4, 4], False, None, None)
    g.write(out, g.CASES)


if __name__ == "__main__":
    main()
