#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes tests/data/golden_loss.json: PyTorch's CPU results for the loss
ops of clops (dispatch/inventory/loss.yaml): nll_loss_forward, nll_loss_backward,
nll_loss2d_forward and nll_loss2d_backward on every floating dtype, with
and without class weights, every reduction, the default and a class
ignore_index, batches where every target is ignored (mean gives NaN),
1-D inputs (no batch dim), uint8 targets, empty batches, and the calls
PyTorch refuses (out-of-range targets, shape and dtype mismatches); and
the elementwise losses (see elementwise()).  The
format and the case helper are those of gen_golden_reduce.py;
tests/test_loss.c replays the file on every device.

Usage: python3 gen_golden_loss.py [OUT.json]   (needs torch; CPU only)
"""
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_golden_reduce as g  # noqa: E402

A = torch.ops.aten


def both(fwd, bwd, x, t, w, r, ig, go_shape):
    """A forward case and the backward case fed by its total_weight."""
    g.case(fwd, x, t, w, r, ig)
    _, tw = getattr(A, fwd)(x, t, w, r, ig)
    go = g.data(x.dtype, go_shape, special=False, seed=9)
    g.case(bwd, go, x, t, w, r, ig, tw)


def elementwise():
    """mse_loss, binary_cross_entropy, smooth_l1_loss, huber_loss and their
    backward ops: every reduction, broadcasting, weights, beta 0, the
    clamped logs of binary_cross_entropy at 0 and 1, empty inputs, and the
    refusals (input outside [0, 1], negative beta, non-positive delta,
    mismatched dtypes for binary_cross_entropy)."""
    for dt in g.FLOATS:
        x = g.data(dt, [4, 5], special=False, seed=11) / 4
        y = g.data(dt, [4, 5], special=False, seed=12) / 4
        p = torch.rand(4, 5, generator=torch.Generator().manual_seed(13)).to(dt)
        q = torch.rand(4, 5, generator=torch.Generator().manual_seed(14)).to(dt)
        w = torch.rand(5, generator=torch.Generator().manual_seed(15)).to(dt)
        go = g.data(dt, [4, 5], special=False, seed=16)
        for r in (0, 1, 2):
            gr = go if r == 0 else go[0, 0]
            g.case("mse_loss", x, y, r)
            g.case("mse_loss", x, y[1], r)
            g.case("mse_loss_backward", gr, x, y, r)
            g.case("binary_cross_entropy", p, q, None, r)
            g.case("binary_cross_entropy", p, q, w, r)
            g.case("binary_cross_entropy_backward", gr, p, q, w, r)
            g.case("binary_cross_entropy_backward", gr, p, q, None, r)
            for beta in (1.0, 0.5, 0.0):
                g.case("smooth_l1_loss", x, y, r, beta)
                g.case("smooth_l1_loss_backward", gr, x, y, r, beta)
            for delta in (1.0, 0.3):
                g.case("huber_loss", x, y, r, delta)
                g.case("huber_loss_backward", gr, x, y, r, delta)
        edge = torch.tensor([0.0, 1.0, 0.5, 1.0, 0.0], dtype=dt)
        tgt = torch.tensor([1.0, 0.0, 0.5, 1.0, 0.0], dtype=dt)
        g.case("binary_cross_entropy", edge, tgt, None, 0)
        g.case("binary_cross_entropy_backward", torch.ones(5, dtype=dt), edge, tgt, None, 0)
        for f in ("mse_loss", "smooth_l1_loss", "huber_loss"):
            g.case(f, x[:0], y[:0], 1)
            g.case(f, x[:0], y[:0], 2)
    x = g.data(torch.float32, [4, 5], special=False, seed=11)
    p = torch.rand(4, 5, generator=torch.Generator().manual_seed(13))
    g.case("mse_loss", x, x.double(), 1)
    g.case("mse_loss", x, x[:3], 1)
    g.case("mse_loss", x.long(), x.long(), 1)
    g.case("binary_cross_entropy", p * 3, p, None, 1)
    g.case("binary_cross_entropy", p, p.double(), None, 1)
    g.case("smooth_l1_loss", x, x, 1, -1.0)
    g.case("huber_loss", x, x, 1, 0.0)


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__),
                                                              "golden_loss.json")
    L = torch.long
    for dt in g.FLOATS:
        x = g.data(dt, [6, 5], special=False, seed=1)
        w = (g.data(torch.float64, [5], special=False, seed=2).abs() + 0.5).to(dt)
        t = torch.tensor([0, 4, -100, 2, 2, 1], dtype=L)
        ti = torch.tensor([-100] * 6, dtype=L)
        for r in (0, 1, 2):
            for wt in (None, w):
                both("nll_loss_forward", "nll_loss_backward", x, t, wt, r, -100,
                     [6] if r == 0 else [])
            t2 = torch.tensor([0, 4, 2, 3, 2, 1], dtype=L)
            both("nll_loss_forward", "nll_loss_backward", x, t2, None, r, 2, [6] if r == 0 else [])
            both("nll_loss_forward", "nll_loss_backward", x, ti, w, r, -100,
                 [6] if r == 0 else [])
            # 1-D input, 0-D and [1] targets; an ignored one
            for tt in (torch.tensor(3), torch.tensor([1]), torch.tensor(-100)):
                both("nll_loss_forward", "nll_loss_backward", x[0], tt, w, r, -100, [])
            # empty batch
            both("nll_loss_forward", "nll_loss_backward", x[:0], t[:0], None, r, -100,
                 [0] if r == 0 else [])
            # nll_loss2d: [2, 3, 2, 4] with ignored pixels; an all-ignored batch
            x4 = g.data(dt, [2, 3, 2, 4], special=False, seed=3)
            t4 = torch.tensor([[[0, 1, 2, -100], [2, 2, 1, 0]],
                               [[1, -100, 0, 0], [2, 1, 1, 2]]], dtype=L)
            for wt in (None, w[:3]):
                both("nll_loss2d_forward", "nll_loss2d_backward", x4, t4, wt, r, -100,
                     [2, 2, 4] if r == 0 else [])
            both("nll_loss2d_forward", "nll_loss2d_backward", x4, torch.full([2, 2, 4], 1), None,
                 r, 1, [2, 2, 4] if r == 0 else [])
        # a uint8 target
        g.case("nll_loss_forward", x, torch.tensor([0, 4, 3, 2, 2, 1], dtype=torch.uint8), w, 1,
               -100)
    elementwise()
    x = g.data(torch.float32, [6, 5], special=False, seed=1)
    t = torch.tensor([0, 4, -100, 2, 2, 1], dtype=L)
    # refusals: out-of-range targets, shapes, dtypes
    g.case("nll_loss_forward", x, torch.tensor([0, 5, 1, 1, 1, 1]), None, 1, -100)
    g.case("nll_loss_forward", x, torch.tensor([0, -1, 1, 1, 1, 1]), None, 0, -100)
    g.case("nll_loss_forward", x, t, None, 1, 2)
    g.case("nll_loss_forward", x, t[:4], None, 1, -100)
    g.case("nll_loss_forward", x, t.int(), None, 1, -100)
    g.case("nll_loss_forward", x, t, torch.ones(4), 1, -100)
    g.case("nll_loss_forward", x, t, torch.ones(5, dtype=torch.float64), 1, -100)
    g.case("nll_loss_forward", x[None], t, None, 1, -100)
    g.case("nll_loss_forward", x, t[None], None, 1, -100)
    g.case("nll_loss_forward", x[0], t, None, 1, -100)
    g.case("nll_loss_forward", x.long(), t, None, 1, -100)
    g.case("nll_loss2d_forward", x, t, None, 1, -100)
    g.case("nll_loss2d_forward", x.reshape(1, 6, 5, 1), torch.zeros(1, 5, 2, dtype=L), None, 1,
           -100)
    g.case("nll_loss2d_forward", x.reshape(1, 5, 6, 1), torch.full([1, 6, 1], 7), None, 1, -100)
    tw = torch.tensor(3.0)
    g.case("nll_loss_backward", torch.ones(2), x, t, None, 1, -100, tw)
    g.case("nll_loss_backward", torch.ones(5), x, t, None, 0, -100, tw)
    g.case("nll_loss_backward", torch.tensor(1.0), x, t, None, 1, -100, torch.ones(2))
    g.case("nll_loss_backward", torch.tensor(1.0), x, torch.tensor([0, 9, 1, 1, 1, 1]), None, 1,
           -100, tw)
    g.case("nll_loss_backward", torch.tensor(1.0, dtype=torch.float64), x, t, None, 1, -100, tw)
    g.write(out, g.CASES)


if __name__ == "__main__":
    main()
