# SPDX-License-Identifier: Apache-2.0
"""Convolutions on the clops device (the conv family, docs/conv.md) against
PyTorch's CPU: conv1d/2d/3d, grouped and depthwise, transposed with
output_padding, channels-last inputs, forward and backward through autograd,
and torchvision's ResNet-18 forward.  No convolution op may run through the
CPU fallback; ops of other families (pooling) still may, and are printed."""
import copy

import pytest
import torch
import torch.nn.functional as F

import clops.torch  # noqa: F401
from conftest import assert_close


def conv_fallbacks():
    """The fallback calls of convolution ops since the last reset."""
    return {k: v for k, v in torch.clops.fallback_counts().items()
            if "conv" in k or "im2col" in k or "col2im" in k}


def randn(*shape, seed=0):
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


CASES = [
    # (function, input shape, weight shape, kwargs)
    (F.conv1d, (2, 4, 11), (6, 4, 3), dict(stride=2, padding=1)),
    (F.conv2d, (2, 4, 9, 8), (6, 2, 3, 3), dict(stride=(2, 1), padding=1, dilation=(1, 2),
                                                 groups=2)),
    (F.conv2d, (2, 6, 7, 7), (6, 1, 3, 3), dict(padding=1, groups=6)),
    (F.conv2d, (2, 8, 5, 5), (4, 8, 1, 1), {}),
    (F.conv3d, (1, 2, 4, 5, 3), (4, 1, 2, 3, 2), dict(padding=(1, 0, 1), groups=2)),
    (F.conv_transpose2d, (2, 4, 5, 4), (4, 3, 3, 3), dict(stride=2, padding=1,
                                                          output_padding=1)),
    (F.conv_transpose1d, (2, 4, 6), (4, 2, 4), dict(stride=3, groups=2, output_padding=2)),
]


@pytest.mark.parametrize("fn,xs,ws,kw", CASES, ids=lambda v: getattr(v, "__name__", None))
def test_conv_forward_and_backward_match_cpu(dev, fn, xs, ws, kw):
    x, w = randn(*xs, seed=1), randn(*ws, seed=2)
    cout = ws[1] * kw.get("groups", 1) if "transpose" in fn.__name__ else ws[0]
    b = randn(cout, seed=3)
    x.requires_grad_(True)
    w.requires_grad_(True)
    b.requires_grad_(True)
    ref = fn(x, w, b, **kw)
    ref.backward(randn(*ref.shape, seed=4))
    dx, dw, db = [t.detach().to(dev).requires_grad_(True) for t in (x, w, b)]
    torch.clops.reset_fallback_counts()
    out = fn(dx, dw, db, **kw)
    out.backward(randn(*ref.shape, seed=4).to(dev))
    assert conv_fallbacks() == {}
    assert out.device == dev
    assert_close(out, ref, rtol=1e-4, atol=1e-4)
    for name, a, e in (("input", dx, x), ("weight", dw, w), ("bias", db, b)):
        assert_close(a.grad, e.grad, rtol=1e-4, atol=1e-4, msg=lambda m: f"grad {name}: {m}")


def test_channels_last_input_matches_cpu(dev):
    x = randn(2, 4, 6, 5, seed=5).to(memory_format=torch.channels_last)
    w = randn(3, 4, 3, 3, seed=6)
    ref = F.conv2d(x, w, padding=1)
    torch.clops.reset_fallback_counts()
    out = F.conv2d(x.to(dev), w.to(dev), padding=1)
    assert conv_fallbacks() == {}
    assert_close(out, ref, rtol=1e-4, atol=1e-4)
    # PyTorch's memory format: channels-last in, channels-last out.
    assert out.is_contiguous(memory_format=torch.channels_last) == \
        ref.is_contiguous(memory_format=torch.channels_last)
    assert out.is_contiguous(memory_format=torch.channels_last)


def test_resnet18_forward_uses_no_conv_fallback(dev):
    torchvision = pytest.importorskip("torchvision")
    torch.manual_seed(0)
    model = torchvision.models.resnet18(num_classes=10).eval()
    x = randn(2, 3, 64, 64, seed=7)
    with torch.no_grad():
        ref = model(x)
        torch.clops.reset_fallback_counts()
        out = copy.deepcopy(model).to(dev)(x.to(dev))
    counts = torch.clops.fallback_counts()
    print(f"\n[resnet18 forward, batch 2] CPU fallbacks: {sum(counts.values())} calls, "
          f"{len(counts)} ops")
    print(torch.clops.fallback_table(counts))
    assert conv_fallbacks() == {}
    assert_close(out, ref, rtol=1e-4, atol=1e-4)


def test_weight_only_backward_matches_cpu(dev):
    """A first layer: the input needs no gradient, so autograd asks
    convolution_backward for grad_weight alone (output_mask [F, T, F])."""
    x, w = randn(2, 3, 9, 9, seed=8), randn(4, 3, 3, 3, seed=9).requires_grad_(True)
    F.conv2d(x, w, stride=2).sum().backward()
    dw = w.detach().to(dev).requires_grad_(True)
    torch.clops.reset_fallback_counts()
    F.conv2d(x.to(dev), dw, stride=2).sum().backward()
    assert conv_fallbacks() == {}
    assert_close(dw.grad, w.grad, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_channels_last_training_gradients_match_cpu(dev, dtype):
    """Channels-last model weights and inputs (model.to(memory_format=
    torch.channels_last)) through autograd: both gradients, the weight's a
    long reduction over batch and positions (the engine's weight gradient,
    split along K where the device would idle)."""
    x = randn(4, 16, 21, 19, seed=10).to(dtype).to(memory_format=torch.channels_last)
    w = randn(24, 16, 3, 3, seed=11).to(dtype).to(memory_format=torch.channels_last)
    g = randn(4, 24, 11, 10, seed=12).to(dtype)
    x.requires_grad_(True)
    w.requires_grad_(True)
    F.conv2d(x, w, stride=2, padding=1).backward(g)
    dx, dw = [t.detach().to(dev).requires_grad_(True) for t in (x, w)]
    torch.clops.reset_fallback_counts()
    F.conv2d(dx, dw, stride=2, padding=1).backward(g.to(dev))
    assert conv_fallbacks() == {}
    tol = 1e-4 if dtype == torch.float32 else 5e-2
    # The weight gradient sums 4 * 11 * 10 products per element.
    assert_close(dw.grad, w.grad, rtol=tol, atol=tol * 10)
    assert_close(dx.grad, x.grad, rtol=tol, atol=tol)
