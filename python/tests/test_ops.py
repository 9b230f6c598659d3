# SPDX-License-Identifier: Apache-2.0
"""A broad sample of ops on the clops device against the CPU: pointwise
(unary, binary, comparisons, Scalar overloads, type promotion, in-place, out=),
matrix products, factories, and zero-dim CPU tensors mixed with device ones."""
import pytest
import torch

from conftest import assert_close

torch.manual_seed(0)
A = torch.randn(5, 7)
B = torch.randn(5, 7)
POS = torch.rand(5, 7) + 0.1

UNARY = ["abs", "neg", "exp", "log", "sqrt", "sin", "cos", "tanh", "sigmoid", "relu", "floor",
         "ceil", "round", "trunc", "rsqrt", "reciprocal", "erf", "sign", "expm1", "log1p",
         "atan", "square"]


@pytest.mark.parametrize("name", UNARY)
def test_unary_vs_cpu(dev, name, no_fallback):
    x = POS if name in ("log", "sqrt", "rsqrt", "log1p") else A
    f = getattr(torch, name)
    assert_close(f(x.to(dev)), f(x), rtol=1e-5, atol=1e-6)


BINARY = ["add", "sub", "mul", "div", "maximum", "minimum", "atan2", "pow", "fmod",
          "remainder", "eq", "ne", "lt", "le", "gt", "ge", "logical_and"]


@pytest.mark.parametrize("name", BINARY)
def test_binary_vs_cpu(dev, name, no_fallback):
    a, b = (POS, B) if name == "pow" else (A, B)
    f = getattr(torch, name)
    assert_close(f(a.to(dev), b.to(dev)), f(a, b), rtol=1e-5, atol=1e-6)


def test_broadcast_scalar_overloads_and_promotion(dev, no_fallback):
    a = torch.arange(12, dtype=torch.int32).reshape(3, 4)
    f = torch.randn(4, dtype=torch.float16)
    x, y = a.to(dev), f.to(dev)
    for r, e in [(x + y, a + f), (x * 2.5, a * 2.5), (x // 3, a // 3), (x + True, a + True),
                 (torch.add(x, y, alpha=2), torch.add(a, f, alpha=2)), (x.float() / 7, a.float() / 7),
                 (torch.where(x > 5, x, -x), torch.where(a > 5, a, -a))]:
        assert r.dtype == e.dtype
        assert_close(r, e)


def test_zero_dim_cpu_tensor_mixes_with_device_tensor(dev, no_fallback):
    x = A.to(dev)
    s = torch.tensor(3.0)
    assert_close(x * s, A * s)
    assert (x * s).device == dev


def test_inplace_and_out_variants(dev, no_fallback):
    x = A.clone().to(dev)
    x.mul_(2).add_(B.to(dev), alpha=0.5).clamp_(min=-1, max=1)
    c = A.clone().mul_(2).add_(B, alpha=0.5).clamp_(min=-1, max=1)
    assert_close(x, c)
    out = torch.empty(0, device=dev)
    r = torch.mul(A.to(dev), B.to(dev), out=out)
    assert r is out and out.shape == (5, 7)
    assert_close(out, A * B)
    tmp = torch.empty(5, 7, device=dev)
    torch.exp(A.to(dev), out=tmp[:, :])
    assert_close(tmp, A.exp())


@pytest.mark.parametrize("shape", [((4, 6), (6, 5)), ((3, 4, 6), (3, 6, 2)), ((6,), (6, 3))])
def test_matmul_vs_cpu(dev, shape, no_fallback):
    a, b = torch.randn(*shape[0]), torch.randn(*shape[1])
    assert_close(torch.matmul(a.to(dev), b.to(dev)), a @ b, rtol=1e-4, atol=1e-5)


def test_linear_addmm_on_transposed_views(dev, no_fallback):
    x, w, bias = torch.randn(8, 16), torch.randn(10, 16), torch.randn(10)
    assert_close(torch.nn.functional.linear(x.to(dev), w.to(dev), bias.to(dev)),
                 torch.nn.functional.linear(x, w, bias), rtol=1e-4, atol=1e-5)
    assert_close(torch.addmm(bias.to(dev), x.to(dev), w.to(dev).t(), beta=0.5, alpha=2),
                 torch.addmm(bias, x, w.t(), beta=0.5, alpha=2), rtol=1e-4, atol=1e-5)


def test_factories_on_the_device(dev, no_fallback):
    for r, e in [(torch.zeros(3, 4, device=dev), torch.zeros(3, 4)),
                 (torch.ones(2, dtype=torch.int64, device=dev), torch.ones(2, dtype=torch.int64)),
                 (torch.full((2, 3), 1.5, device=dev), torch.full((2, 3), 1.5)),
                 (torch.arange(1, 10, 2, device=dev), torch.arange(1, 10, 2))]:
        assert r.device == dev and r.dtype == e.dtype
        assert_close(r, e)


def test_bfloat16_and_half(dev, no_fallback):
    for dt in (torch.float16, torch.bfloat16):
        a, b = A.to(dt), B.to(dt)
        assert_close((a.to(dev) * b.to(dev)).tanh(), (a * b).tanh())


def test_autograd_through_device_ops(dev):
    w = torch.randn(6, 3, requires_grad=True)
    x = torch.randn(4, 6)
    wd = w.detach().to(dev).requires_grad_()
    (x.to(dev) @ wd).tanh().mul(3).sum().backward()
    (x @ w).tanh().mul(3).sum().backward()
    assert wd.grad.device == dev
    assert_close(wd.grad, w.grad, rtol=1e-4, atol=1e-5)


def test_errors_name_the_op(dev):
    with pytest.raises((RuntimeError, ValueError), match="size|shape"):
        torch.add(torch.ones(3, device=dev), torch.ones(4, device=dev))


def test_reduced_precision_rounds_once(dev, no_fallback):
    """logit in float16 and div(rounding_mode='trunc') in bfloat16 round once,
    from float32, where PyTorch's CPU kernels round an intermediate in the
    reduced dtype (docs/torch.md, OpInfo section): the clops result is the
    float64 result rounded."""
    x = torch.tensor([0.469970703125, 0.55908203125, 0.477294921875], dtype=torch.float16)
    assert torch.equal(torch.logit(x.to(dev)).cpu(), torch.logit(x.double()).half())
    a = torch.full((40,), -3.890625, dtype=torch.bfloat16)
    b = torch.full((40,), -0.216796875, dtype=torch.bfloat16)
    want = torch.div(a.double(), b.double(), rounding_mode="trunc").bfloat16()
    assert torch.equal(torch.div(a.to(dev), b.to(dev), rounding_mode="trunc").cpu(), want)
