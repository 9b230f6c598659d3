#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes tests/data/golden_conv.json: PyTorch's CPU results for the
convolution family of clops (dispatch/inventory/conv.yaml): convolution forward
(1-D, 2-D, 3-D; stride, padding, dilation, groups, depthwise, 1x1,
transposed with output_padding, with and without bias, a zero-size batch),
convolution_backward under several output_mask values, im2col and col2im,
and calls PyTorch refuses (weight rank, channel mismatch, kernel larger
than the padded input, output_padding too large).  The format and the case
helper are those of gen_golden_reduce.py; tests/test_conv.c replays the
file.

Usage: python3 gen_golden_conv.py [OUT.json]   (needs torch; CPU only)
"""
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_golden_reduce as g  # noqa: E402


def conv(x, w, b, stride, padding, dilation, transposed, outpad, groups):
    g.case("convolution", x, w, b, stride, padding, dilation, transposed, outpad, groups)


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__),
                                                              "golden_conv.json")
    for dt in (torch.float32, torch.float64):
        d = lambda shape, seed: g.data(dt, shape, special=False, seed=seed)  # noqa: E731
        x2 = d([2, 4, 5, 4], 1)
        conv(x2, d([6, 4, 3, 3], 2), d([6], 3), [1, 1], [1, 1], [1, 1], False, [0, 0], 1)
        conv(x2, d([6, 2, 3, 2], 4), None, [2, 1], [0, 1], [1, 2], False, [0, 0], 2)
        conv(x2, d([8, 1, 3, 3], 5), d([8], 6), [1, 2], [1, 1], [1, 1], False, [0, 0], 4)
        conv(x2, d([5, 4, 1, 1], 7), d([5], 8), [1], [0], [1], False, [0, 0], 1)
        conv(x2, d([4, 3, 3, 3], 9), d([6], 10), [2, 2], [1, 0], [1, 1], True, [1, 0], 2)
        conv(x2, d([4, 2, 2, 3], 11), None, [1, 3], [0, 1], [2, 1], True, [0, 2], 1)
        conv(d([3, 2, 11], 12), d([4, 2, 3], 13), d([4], 14), [2], [1], [1], False, [0], 1)
        conv(d([3, 2, 5], 15), d([2, 3, 4], 16), d([3], 17), [3], [1], [1], True, [2], 1)
        conv(d([2, 2, 4, 5, 3], 18), d([4, 1, 2, 3, 2], 19), d([4], 20), [1, 2, 1],
             [1, 0, 1], [1, 1, 2], False, [0, 0, 0], 2)
        conv(torch.zeros(0, 4, 5, 5, dtype=dt), d([3, 4, 3, 3], 21), d([3], 22), [1, 1],
             [0, 0], [1, 1], False, [0, 0], 1)
        # backward: plain, grouped strided, transposed, depthwise; every mask
        for (x, w, st, pd, dl, tr, op, gr) in (
                (x2, d([6, 4, 3, 3], 2), [1, 1], [1, 1], [1, 1], False, [0, 0], 1),
                (x2, d([6, 2, 3, 2], 4), [2, 1], [0, 1], [1, 2], False, [0, 0], 2),
                (x2, d([4, 3, 3, 3], 9), [2, 2], [1, 0], [1, 1], True, [1, 0], 2),
                (x2, d([8, 1, 3, 3], 5), [1, 2], [1, 1], [1, 1], False, [0, 0], 4)):
            y = torch.ops.aten.convolution(x, w, None, st, pd, dl, tr, op, gr)
            go = d(list(y.shape), 30)
            for mask in ([True, True, True], [False, True, False]):
                g.case("convolution_backward", go, x, w, [y.shape[1]], st, pd, dl, tr, op, gr,
                       mask)
        g.case("im2col", x2, [3, 2], [2, 1], [1, 0], [2, 3])
        g.case("im2col", d([3, 5, 4], 23), [2, 2], [1, 1], [1, 1], [1, 1])
        g.case("col2im", d([2, 18, 48], 24), [6, 7], [3, 2], [1, 1], [1, 1], [1, 1])
        g.case("col2im", d([8, 6], 25), [4, 5], [2, 2], [1, 2], [0, 1], [2, 2])
    # refusals
    x = g.data(torch.float32, [2, 4, 5, 4], special=False, seed=1)
    conv(x, g.data(torch.float32, [6, 4], special=False), None, [1], [0], [1], False, [0], 1)
    conv(x, g.data(torch.float32, [6, 3, 3, 3], special=False), None, [1], [0], [1], False,
         [0], 1)
    conv(x, g.data(torch.float32, [6, 4, 9, 3], special=False), None, [1], [0], [1], False,
         [0], 1)
    conv(x, g.data(torch.float32, [6, 2, 3, 3], special=False), None, [1], [0], [1], False,
         [0], 3)
    conv(x, g.data(torch.float32, [4, 2, 3, 3], special=False), None, [1], [0], [1], True,
         [1], 1)
    g.case("im2col", x, [9, 2], [1, 1], [0, 0], [1, 1])
    g.write(out, g.CASES)


if __name__ == "__main__":
    main()
