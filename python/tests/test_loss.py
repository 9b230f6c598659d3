# SPDX-License-Identifier: Apache-2.0
"""The loss family on the clops device: F.cross_entropy and F.nll_loss,
forward and backward, reach nll_loss_forward/backward (2-D inputs) and
nll_loss2d_forward/backward (4-D inputs, and the 3-D and 5-D inputs that
nll_loss_nd reshapes to 4-D) with no CPU fallback, and match the CPU:
class weights, ignore_index, every reduction, a batch whose targets are all
ignored (mean gives NaN), 1-D inputs, and the out-of-range target error."""
import pytest
import torch
import torch.nn.functional as F

import clops.torch  # noqa: F401
from conftest import assert_close

CASES = [
    ((16, 10), (16,)),
    ((10,), ()),
    ((4, 5, 3, 6), (4, 3, 6)),
    ((4, 5, 7), (4, 7)),
    ((2, 5, 2, 3, 2), (2, 2, 3, 2)),
]


def run(fn, x, *args, **kw):
    """fn(x, *args) and the gradient of x, for a leaf copy of x."""
    x = x.detach().clone().requires_grad_(True)
    y = fn(x, *args, **kw)
    y.backward(torch.ones_like(y) if y.dim() else None)
    return y.detach(), x.grad


@pytest.mark.parametrize("xs,ts", CASES)
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("weighted", [False, True])
def test_cross_entropy_matches_cpu(dev, no_fallback, xs, ts, reduction, weighted):
    g = torch.Generator().manual_seed(len(xs) * 7 + len(reduction))
    C = xs[1] if len(xs) > 1 else xs[0]
    x = torch.randn(xs, generator=g)
    t = torch.randint(0, C, ts, generator=g)
    if t.dim():
        t.view(-1)[::5] = -100
    w = torch.rand(C, generator=g) + 0.5 if weighted else None
    ref = run(F.cross_entropy, x, t, weight=w, reduction=reduction)
    got = run(F.cross_entropy, x.to(dev), t.to(dev), weight=None if w is None else w.to(dev),
              reduction=reduction)
    for a, b in zip(got, ref):
        assert a.device == dev
        assert_close(a, b, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("dtype", [torch.float64, torch.float16, torch.bfloat16])
def test_nll_loss_dtypes_and_ignore_index(dev, no_fallback, dtype):
    g = torch.Generator().manual_seed(3)
    x = torch.randn(32, 7, generator=g).log_softmax(1).to(dtype)
    t = torch.randint(0, 7, (32,), generator=g)
    ref = run(F.nll_loss, x, t, ignore_index=3)
    got = run(F.nll_loss, x.to(dev), t.to(dev), ignore_index=3)
    tol = {torch.float64: 1e-12, torch.float16: 2e-3, torch.bfloat16: 2e-2}[dtype]
    for a, b in zip(got, ref):
        assert a.dtype == dtype
        assert_close(a, b, rtol=tol, atol=tol)


def test_all_ignored_mean_is_nan(dev, no_fallback):
    x = torch.randn(4, 3)
    t = torch.full((4,), -100)
    assert torch.isnan(F.cross_entropy(x.to(dev), t.to(dev)).cpu())
    assert F.cross_entropy(x.to(dev), t.to(dev), reduction="sum").cpu() == 0


def test_out_of_range_target_raises(dev):
    x = torch.randn(4, 3, device=dev)
    with pytest.raises(Exception, match="Target 3 is out of bounds"):
        F.nll_loss(x, torch.tensor([0, 1, 3, 2], device=dev))


ELEMENTWISE = [
    (F.mse_loss, {}),
    (F.smooth_l1_loss, {"beta": 0.5}),
    (F.smooth_l1_loss, {"beta": 0.0}),
    (F.huber_loss, {"delta": 0.7}),
    (F.l1_loss, {}),
]


@pytest.mark.parametrize("fn,kw", ELEMENTWISE)
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_elementwise_losses_match_cpu(dev, no_fallback, fn, kw, reduction):
    g = torch.Generator().manual_seed(5)
    x = torch.randn(6, 7, generator=g)
    y = torch.randn(6, 7, generator=g)
    ref = run(fn, x, y, reduction=reduction, **kw)
    got = run(fn, x.to(dev), y.to(dev), reduction=reduction, **kw)
    for a, b in zip(got, ref):
        assert_close(a, b, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("weighted", [False, True])
def test_binary_cross_entropy_matches_cpu(dev, no_fallback, reduction, weighted):
    g = torch.Generator().manual_seed(6)
    x = torch.rand(5, 4, generator=g).clamp(0.01, 0.99)
    y = torch.rand(5, 4, generator=g)
    w = torch.rand(4, generator=g) if weighted else None
    ref = run(F.binary_cross_entropy, x, y, weight=w, reduction=reduction)
    got = run(F.binary_cross_entropy, x.to(dev), y.to(dev),
              weight=None if w is None else w.to(dev), reduction=reduction)
    for a, b in zip(got, ref):
        assert_close(a, b, rtol=1e-5, atol=1e-6)
    with pytest.raises(Exception, match="between 0 and 1"):
        F.binary_cross_entropy(x.to(dev) * 3, y.to(dev))
