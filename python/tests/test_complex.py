# SPDX-License-Identifier: Apache-2.0
"""The complex pointwise basics on the clops device (python/csrc/complex.cpp):
add, sub, mul, div (complex and real operands, Python numbers, broadcasting,
in-place, out=), neg, abs, exp, fill_/full with complex values and
constant_pad_nd (torch.fft.fft(x, n) with n past the input) against
PyTorch's CPU, each with no CPU fallback."""
import math

import pytest
import torch

import clops.torch  # noqa: F401

DEV = "clops"
CDTYPES = [torch.complex64, torch.complex128]


def cx(*shape, dtype=torch.complex64, seed=0):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, dtype=dtype, generator=g)


@pytest.fixture(autouse=True)
def no_fallback():
    torch.clops.reset_fallback_counts()
    yield
    counts = torch.clops.fallback_counts()
    assert not counts, f"ops left the device: {counts}"


def check(fn, *args, **kw):
    """fn on the CPU tensors args and on their clops copies agree."""
    expected = fn(*args, **kw)
    actual = fn(*[a.to(DEV) if isinstance(a, torch.Tensor) else a for a in args], **kw)
    assert actual.device.type == DEV
    assert actual.dtype == expected.dtype
    torch.testing.assert_close(actual.cpu(), expected, equal_nan=True)
    return actual


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("op", ["add", "sub", "mul", "div"])
def test_binary_complex_complex(op, dtype):
    a, b = cx(3, 5, dtype=dtype, seed=1), cx(3, 5, dtype=dtype, seed=2)
    check(getattr(torch, op), a, b)
    check(getattr(torch, op), a, b[1:2])             # broadcast
    check(getattr(torch, op), a[:, ::2], b.t()[::2].t()[:, :3])  # strided views
    check(getattr(torch, op), a, b[0, 0])            # zero-dim operand
    if op in ("add", "sub"):
        check(getattr(torch, op), a, b, alpha=2.5)
        check(getattr(torch, op), a, b, alpha=-3)


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("op", ["add", "sub", "mul", "div"])
def test_binary_with_real_and_python_numbers(op, dtype):
    a = cx(4, 3, dtype=dtype, seed=3)
    r = torch.randn(4, 3, dtype=torch.float32) + 2
    f = getattr(torch, op)
    check(f, a, r)                       # complex op real tensor
    check(f, r, a)                       # real tensor op complex
    check(f, a, torch.arange(1, 4))      # an integer tensor, broadcast
    check(f, a, 1.5 - 2j)                # a Python complex
    check(f, a, 3)                       # a Python int
    check(f, r, 0.5j)                    # real tensor, complex number: complex64
    check(f, a, torch.tensor(2 + 1j, dtype=torch.complex128))  # 0-dim CPU, dtype of a wins


def test_promotion_to_complex128():
    a = cx(6, dtype=torch.complex64)
    d = torch.randn(6, dtype=torch.float64)
    assert check(torch.mul, a, d).dtype == torch.complex128
    assert check(torch.add, a, cx(6, dtype=torch.complex128)).dtype == torch.complex128


def test_division_follows_c10_scaling():
    # divisors with |re| >= |im|, |re| < |im|, pure real, pure imaginary,
    # and large parts whose squares would overflow float32
    a = torch.tensor([1 + 2j, -3 + 0.5j, 2 - 7j, 1e30 + 1e30j, 5 + 5j], dtype=torch.complex64)
    b = torch.tensor([4 - 1j, 0.25 + 3j, 2 + 0j, 3e30 - 1e30j, 0 - 2j], dtype=torch.complex64)
    r = check(torch.div, a, b)
    assert torch.isfinite(torch.view_as_real(r.cpu())).all()
    # a zero divisor gives inf/nan as PyTorch's CPU
    z = torch.tensor([1 + 1j, 0j], dtype=torch.complex64)
    check(torch.div, z, torch.zeros(2, dtype=torch.complex64))


@pytest.mark.parametrize("dtype", CDTYPES)
def test_inplace_and_out(dtype):
    a, b = cx(5, 4, dtype=dtype, seed=4), cx(5, 4, dtype=dtype, seed=5)
    for op in ("add_", "sub_", "mul_", "div_"):
        x = a.clone()
        getattr(x, op)(b)
        y = a.to(DEV)
        getattr(y, op)(b.to(DEV))
        torch.testing.assert_close(y.cpu(), x)
    out = torch.empty(0, dtype=dtype, device=DEV)
    torch.mul(a.to(DEV), b.to(DEV), out=out)
    torch.testing.assert_close(out.cpu(), a * b)
    out = torch.empty(0, dtype=dtype, device=DEV)
    torch.exp(a.to(DEV), out=out)
    torch.testing.assert_close(out.cpu(), a.exp())
    y = a.to(DEV)
    y.neg_()
    torch.testing.assert_close(y.cpu(), -a)
    y.exp_()
    torch.testing.assert_close(y.cpu(), (-a).exp())
    absout = torch.empty(0, dtype=dtype.to_real(), device=DEV)
    torch.abs(a.to(DEV), out=absout)
    torch.testing.assert_close(absout.cpu(), a.abs())


def test_inplace_errors_as_pytorch():
    # a real tensor cannot hold a complex result: PyTorch's error (through
    # the fallback, which the fixture tolerates here)
    x = torch.randn(3, device=DEV)
    with pytest.raises(RuntimeError, match="can't be cast"):
        x.mul_(torch.ones(3, dtype=torch.complex64, device=DEV))
    torch.clops.reset_fallback_counts()


@pytest.mark.parametrize("dtype", CDTYPES)
def test_unary(dtype):
    a = cx(7, 3, dtype=dtype, seed=6)
    check(torch.neg, a)
    check(torch.abs, a)
    check(torch.exp, a)
    check(torch.exp, a[:, 1])                 # a strided view
    check(torch.abs, a.conj())                # conjugate bit resolved
    check(torch.exp, a.conj())
    check(torch.mul, a.conj(), a)
    # exp of a real value stays real, also where exp overflows
    e = check(torch.exp, torch.tensor([1 + 0j, 100 + 0j, -2 + 0j], dtype=dtype))
    assert (torch.view_as_real(e.cpu())[:, 1] == 0).all()


def test_abs_does_not_overflow():
    a = torch.tensor([3e30 + 4e30j, -1e-30 + 1e-30j], dtype=torch.complex64, device=DEV)
    r = a.abs().cpu()
    assert r.dtype == torch.float32
    assert math.isclose(r[0].item(), 5e30, rel_tol=1e-6)
    assert math.isclose(r[1].item(), math.sqrt(2) * 1e-30, rel_tol=1e-6)


@pytest.mark.parametrize("dtype", CDTYPES)
def test_fill_and_full(dtype):
    x = torch.empty(2, 3, dtype=dtype, device=DEV)
    x.fill_(1.5 - 2j)
    assert (x.cpu() == torch.full((2, 3), 1.5 - 2j, dtype=dtype)).all()
    x.fill_(7)
    assert (x.cpu() == 7).all()
    x.fill_(torch.tensor(2 + 3j))
    assert (x.cpu() == 2 + 3j).all()
    y = torch.full((4,), 0.25 + 1j, dtype=dtype, device=DEV)
    assert y.dtype == dtype and (y.cpu() == 0.25 + 1j).all()
    z = torch.full((2,), 1 + 1j, device=DEV)   # the default complex dtype
    assert z.dtype == torch.complex64 and (z.cpu() == 1 + 1j).all()
    assert (torch.full_like(x, -1j).cpu() == -1j).all()
    assert (torch.zeros_like(x[:, ::2]).cpu() == 0).all()
    assert (torch.ones_like(x).cpu() == 1).all()
    assert torch.zeros_like(torch.ones(2, device=DEV), dtype=dtype).dtype == dtype
    e = torch.empty_like(x.t())
    assert e.dtype == dtype and e.stride() == x.t().stride()
    r = torch.full_like(torch.ones(3, device=DEV), 2 - 1j, dtype=dtype)
    assert r.dtype == dtype and (r.cpu() == 2 - 1j).all()


@pytest.mark.parametrize("dtype", CDTYPES)
def test_constant_pad_nd(dtype):
    a = cx(3, 4, dtype=dtype, seed=7)
    check(torch.constant_pad_nd, a, [1, 2])
    check(torch.constant_pad_nd, a, [0, 3, 2, 1])
    check(torch.constant_pad_nd, a, [-1, 2])        # crop and pad
    check(torch.constant_pad_nd, a, [2, 0], 1.5 - 0.5j)
    check(torch.constant_pad_nd, a, [1, 1], -0.0)


@pytest.mark.parametrize("dtype", CDTYPES)
def test_fft_past_the_input_length_stays_on_the_device(dtype):
    a = cx(2, 5, dtype=dtype, seed=8)
    check(torch.fft.fft, a, n=8)
    check(torch.fft.ifft, a, n=12)
    check(torch.fft.fft2, a, s=(4, 8))


def test_complex_gradients_on_the_device():
    # autograd of complex mul/div/exp: every op of the backward too
    a = cx(6, dtype=torch.complex128, seed=9)
    b = cx(6, dtype=torch.complex128, seed=10)

    def f(x, y):
        return torch.view_as_real((x * y).exp() / (y + 2)).sum()

    ga, gb = torch.autograd.grad(f(a.requires_grad_(), b.requires_grad_()), (a, b))
    A, B = a.detach().to(DEV).requires_grad_(), b.detach().to(DEV).requires_grad_()
    GA, GB = torch.autograd.grad(f(A, B), (A, B))
    torch.testing.assert_close(GA.cpu(), ga)
    torch.testing.assert_close(GB.cpu(), gb)
