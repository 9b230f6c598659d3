#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes tests/data/golden_norm_batch.json: PyTorch's CPU results for the
batch and group normalization ops of clops (dispatch/inventory/norm.yaml):
native_batch_norm (training and evaluation, with and without weight, bias
and running stats, 2-dim and 4-dim inputs, a large mean; a channel's
elements are N strided runs),
_native_batch_norm_legit (+ .no_stats, _no_training, and _functional, whose
extra results are the updated running stats), native_batch_norm_backward
(train and eval, output masks), native_group_norm and its backward, and the
calls PyTorch refuses (evaluation without running stats, training on an
empty input, channels not divisible by the groups, a weight of the wrong
size).

float16/bfloat16 inputs come with float32 weights and running stats: that is
the mixed-type case where PyTorch's CPU kernels give float32 statistics, as
its CUDA kernels (and clops) do for every float16/bfloat16 input.  The format
and the case helper are those of gen_golden_reduce.py; tests/test_norm_batch.c
replays the file.

Usage: python3 gen_golden_norm_batch.py [OUT.json]   (needs torch; CPU only)
"""
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_golden_reduce as g  # noqa: E402

A = torch.ops.aten


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__),
                                                              "golden_norm_batch.json")
    for dt in g.FLOATS:
        pdt = torch.float32 if dt in (torch.float16, torch.bfloat16) else dt
        x = g.data(dt, [3, 3, 2, 5], special=False, seed=21)
        x2 = g.data(dt, [6, 4], special=False, seed=22)
        big = (g.data(torch.float64, [3, 3, 2, 5], special=False, seed=23) + 1000).to(dt)
        w = g.data(pdt, [3], special=False, seed=24)
        b = g.data(pdt, [3], special=False, seed=25)
        rm = g.data(pdt, [3], special=False, seed=26)
        rv = g.data(pdt, [3], special=False, seed=27).abs() + 0.5
        for t in (x, big):
            for train in (True, False):
                g.case("native_batch_norm", t, w, b, rm, rv, train, 0.1, 1e-5)
            if dt == pdt:  # no float32 params: PyTorch's CPU gives float16 stats
                g.case("native_batch_norm", t, None, None, None, None, True, 0.1, 1e-5)
            g.case("_native_batch_norm_legit_functional", t, w, b, rm, rv, True, 0.1, 1e-5)
        g.case("native_batch_norm", x2, w[:1].repeat(4), None, None, None, True, 0.3, 1e-3)
        g.case("_native_batch_norm_legit_functional", x2, None, None, rm[:1].repeat(4),
               rv[:1].repeat(4), True, 0.3, 1e-3)
        g.case("_native_batch_norm_legit_functional", x, w, b, rm, rv, False, 0.1, 1e-5)
        g.case("_native_batch_norm_legit", x, w, b, rm, rv, True, 0.1, 1e-5)
        g.case("_native_batch_norm_legit.no_stats", x, w, None, True, 0.1, 1e-5)
        g.case("_native_batch_norm_legit_no_training", x, w, b, rm, rv, 0.1, 1e-5)
        # backward, train (saved stats of the forward) and eval (running stats)
        go = g.data(dt, [3, 3, 2, 5], special=False, seed=28)
        _, sm, si = A.native_batch_norm(x, w, b, None, None, True, 0.1, 1e-5)
        g.case("native_batch_norm_backward", go, x, w, rm, rv, sm, si, True, 1e-5,
               [True, True, True])
        g.case("native_batch_norm_backward", go, x, None, None, None, sm, si, True, 1e-5,
               [True, False, True])
        g.case("native_batch_norm_backward", go, x, w, rm, rv, None, None, False, 1e-5,
               [True, True, True])
        # group norm: [2, 6, 2, 3] in 3 and 2 groups, 3-dim input, no affine
        gx = g.data(dt, [2, 6, 2, 3], special=False, seed=29)
        gbig = (g.data(torch.float64, [2, 6, 2, 3], special=False, seed=30) + 1000).to(dt)
        gw = g.data(dt, [6], special=False, seed=31)
        gb = g.data(dt, [6], special=False, seed=32)
        for t in (gx, gbig):
            g.case("native_group_norm", t, gw, gb, 2, 6, 6, 3, 1e-5)
        g.case("native_group_norm", gx, None, None, 2, 6, 6, 2, 1e-5)
        g.case("native_group_norm", gx, gw, None, 2, 6, 6, 6, 1e-5)
        g.case("native_group_norm", gx.reshape(2, 6, 6), None, gb, 2, 6, 6, 1, 1e-5)
        g.case("native_group_norm", gx, gw.to(pdt), gb.to(pdt), 2, 6, 6, 3, 1e-5)
        ggo = g.data(dt, [2, 6, 2, 3], special=False, seed=33)
        for grp, wt in ((3, gw), (2, None)):
            _, mu, rs = A.native_group_norm(gx, wt, None, 2, 6, 6, grp, 1e-5)
            g.case("native_group_norm_backward", ggo, gx, mu, rs, wt, 2, 6, 6, grp,
                   [True, True, True])
        # empty inputs: evaluation and group norm give empty results, training
        # is refused
        e = torch.zeros(0, 3, 4, dtype=dt)
        g.case("native_batch_norm", e, None, None, rm, rv, False, 0.1, 1e-5)
        g.case("native_batch_norm", e, None, None, rm, rv, True, 0.1, 1e-5)
        g.case("native_group_norm", torch.zeros(0, 6, 4, dtype=dt), None, None, 0, 6, 4, 3, 1e-5)
        # refusals
        g.case("native_batch_norm", x, w, b, None, None, False, 0.1, 1e-5)
        g.case("native_group_norm", gx, None, None, 2, 6, 6, 4, 1e-5)
        g.case("native_group_norm", gx, gw[:5], None, 2, 6, 6, 3, 1e-5)
    g.write(out, g.CASES)


if __name__ == "__main__":
    main()
