#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes tests/data/golden_norm.json: PyTorch's CPU results for the
normalization ops of clops (dispatch/inventory/norm.yaml): _softmax, _log_softmax
and their backward ops, native_layer_norm, rms_norm and _fused_rms_norm on
every floating dtype (layer norm also on a large mean and with mismatched
shapes), over the last, first and a
middle dim, with rows holding NaN, +inf and only -inf, zero-dim and empty
inputs, and the calls PyTorch refuses (integer inputs).  The format and the
case helper are those of gen_golden_reduce.py; tests/test_norm.c replays the
file.  half_to_float is a CUDA-only feature in PyTorch (the CPU refuses it),
so it is not in the file; tests/test_norm.c checks it against float32.
_fused_rms_norm_backward has only a CUDA kernel in PyTorch, so it is not
here either (the operator suite checks it against the CPU reference).

Usage: python3 gen_golden_norm.py [OUT.json]   (needs torch; CPU only)
"""
import math
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_golden_reduce as g  # noqa: E402


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__),
                                                              "golden_norm.json")
    for dt in g.FLOATS:
        x = g.data(dt, [3, 4, 5], special=False, seed=3)
        sp = torch.tensor([[1.0, 2.0, 3.0, 4.0], [math.nan, 1.0, 2.0, 3.0],
                           [math.inf, 1.0, 2.0, 3.0], [-math.inf] * 4,
                           [-math.inf, 0.0, -math.inf, 1.0]], dtype=dt)
        for f in ("_softmax", "_log_softmax"):
            for t, d in ((x, -1), (x, 0), (x, 1), (sp, 1), (torch.tensor(2.5, dtype=dt), 0),
                         (torch.zeros(0, 3, dtype=dt), 1)):
                g.case(f, t, d, False)
        for f, fw in (("_softmax_backward_data", torch.softmax),
                      ("_log_softmax_backward_data", torch.log_softmax)):
            for d in (-1, 0, 1):
                y = fw(x.double(), d).to(dt)
                go = g.data(dt, [3, 4, 5], special=False, seed=4)
                g.case(f, go, y, d, dt)
        # layer and rms norm: with and without weight/bias, large means
        w = g.data(dt, [5], special=False, seed=5)
        b = g.data(dt, [5], special=False, seed=6)
        big = (g.data(torch.float64, [3, 4, 5], special=False, seed=7) + 1000).to(dt)
        for t in (x, big):
            g.case("native_layer_norm", t, [5], w, b, 1e-5)
            g.case("native_layer_norm", t, [4, 5], None, None, 1e-5)
            g.case("rms_norm", t, [5], w, None)
            g.case("rms_norm", t, [5], None, 1e-6)
            g.case("_fused_rms_norm", t, [5], w, None)
        for t in (x, big):
            go = g.data(dt, [3, 4, 5], special=False, seed=8)
            _, mu, rs = torch.ops.aten.native_layer_norm(t, [5], w, b, 1e-5)
            g.case("native_layer_norm_backward", go, t, [5], mu, rs, w, b, [True, True, True])
            g.case("native_layer_norm_backward", go, t, [5], mu, rs, None, None,
                   [True, False, False])
        g.case("native_layer_norm", torch.zeros(0, 5, dtype=dt), [5], w, b, 1e-5)
        g.case("native_layer_norm", x, [4], w, b, 1e-5)
        g.case("native_layer_norm", x, [5], w[:4], b, 1e-5)
    g.case("_softmax", torch.arange(6).reshape(2, 3), 1, False)
    g.case("_softmax", torch.ones(2, 3), 2, False)
    g.write(out, g.CASES)


if __name__ == "__main__":
    main()
