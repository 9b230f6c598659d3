# SPDX-License-Identifier: Apache-2.0
"""torch.fft on the clops device (docs/fft.md): complex64/complex128 tensors
(creation, copies, view_as_real/view_as_complex, the conjugate bit), the
three FFT primitives (_fft_r2c, _fft_c2r, _fft_c2c) behind torch.fft.fft,
ifft, rfft, irfft, fft2, fftn, rfftn, irfftn, hfft, against PyTorch's CPU,
forward and backward (gradcheck of rfft and irfft), with no CPU fallback."""
import pytest
import torch

from conftest import assert_close


def tols(dtype):
    return dict(rtol=1e-4, atol=1e-4) if dtype in (torch.float32, torch.complex64) \
        else dict(rtol=1e-10, atol=1e-10)


def test_complex_tensors(dev, no_fallback):
    torch.manual_seed(0)
    z = torch.randn(4, 5, dtype=torch.complex64)
    d = z.to(dev)
    assert d.dtype == torch.complex64 and d.device.type == "clops"
    assert torch.equal(d.cpu(), z)
    assert torch.equal(d.t().contiguous().cpu(), z.t().contiguous())   # strided copy
    assert torch.equal(d[:, 1::2].clone().cpu(), z[:, 1::2])
    r = torch.view_as_real(d)
    assert r.dtype == torch.float32 and r.shape == (4, 5, 2)
    assert r.untyped_storage().data_ptr() == d.untyped_storage().data_ptr()
    assert torch.equal(r.cpu(), torch.view_as_real(z))
    back = torch.view_as_complex(r)
    assert torch.equal(back.cpu(), z)
    assert torch.equal(d.real.cpu(), z.real) and torch.equal(d.imag.cpu(), z.imag)
    assert torch.equal(torch.zeros(3, dtype=torch.complex128, device=dev).cpu(),
                       torch.zeros(3, dtype=torch.complex128))
    e = torch.empty(2, 3, dtype=torch.complex64, device=dev)
    e.copy_(torch.ones(2, 3))                                            # real into complex
    assert torch.equal(e.cpu(), torch.ones(2, 3, dtype=torch.complex64))
    assert torch.equal(d.to(torch.complex128).cpu(), z.to(torch.complex128))
    assert torch.equal((d * 2).cpu(), z * 2) and torch.equal((d / 4).cpu(), z / 4)
    assert d[1, 2].item() == z[1, 2].item()


def test_conj_bit(dev, no_fallback):
    torch.manual_seed(0)
    z = torch.randn(3, 4, dtype=torch.complex64)
    c = z.to(dev).conj()
    assert c.is_conj()
    assert torch.equal(c.cpu(), z.conj())                 # the copy resolves the bit
    assert torch.equal(c.resolve_conj().cpu(), z.conj().resolve_conj())
    assert torch.equal(c.clone().cpu(), z.conj())
    assert torch.equal(c.imag.cpu(), z.conj().imag)       # imag of conj: the negative bit
    assert torch.equal(c[1].cpu(), z.conj()[1])           # views keep the bit
    with pytest.raises(RuntimeError, match="view_as_real doesn't work on unresolved conjugated"):
        torch.view_as_real(c)
    assert torch.equal(torch.conj_physical(z.to(dev)).cpu(), torch.conj_physical(z))
    w = z.to(dev)
    w.conj_physical_()
    assert torch.equal(w.cpu(), z.conj())
    h = torch.empty(3, 4, dtype=torch.complex64, device=dev)
    h.copy_(z.conj())                                     # a host src with the bit
    assert torch.equal(h.cpu(), z.conj())


def test_other_ops_fall_back(dev):
    """Ops clops has no complex kernel for run on the CPU, counted."""
    torch.clops.reset_fallback_counts()
    z = torch.randn(5, dtype=torch.complex64)
    got = (z.to(dev).sum()).cpu()
    assert_close(got, z.sum())
    assert any(k.startswith("sum") for k in torch.clops.fallback_counts())


CASES = [
    ("fft", lambda x: torch.fft.fft(x), True),
    ("fft_norm", lambda x: torch.fft.fft(x, norm="ortho"), True),
    ("ifft", lambda x: torch.fft.ifft(x), True),
    ("ifft_fwd", lambda x: torch.fft.ifft(x, norm="forward", dim=0), True),
    ("fft2", lambda x: torch.fft.fft2(x), True),
    ("fftn", lambda x: torch.fft.fftn(x, dim=(0, 2)), True),
    ("fft_real", lambda x: torch.fft.fft(x.real), True),
    ("rfft", lambda x: torch.fft.rfft(x.real), True),
    ("rfft_ortho", lambda x: torch.fft.rfft(x.real, norm="ortho", dim=1), True),
    ("rfftn", lambda x: torch.fft.rfftn(x.real), True),
    ("irfft", lambda x: torch.fft.irfft(x), True),
    ("irfft_odd", lambda x: torch.fft.irfft(x, n=2 * x.shape[-1] - 1), True),
    ("irfftn", lambda x: torch.fft.irfftn(x, dim=(0, 1, 2)), True),
    ("hfft", lambda x: torch.fft.hfft(x), True),
    ("ihfft", lambda x: torch.fft.ihfft(x.real), True),
]


@pytest.mark.parametrize("dtype", [torch.complex64, torch.complex128])
@pytest.mark.parametrize("name,fn,_", CASES, ids=[c[0] for c in CASES])
def test_fft_functions(dev, no_fallback, name, fn, _, dtype):
    torch.manual_seed(0)
    x = torch.randn(3, 7, 10, dtype=dtype)
    want = fn(x)
    got = fn(x.to(dev))
    assert got.device.type == "clops" and got.dtype == want.dtype and got.shape == want.shape
    assert_close(got, want, **tols(dtype))


@pytest.mark.parametrize("n", [1, 2, 3, 7, 8, 60, 97, 256])
def test_lengths(dev, no_fallback, n):
    torch.manual_seed(n)
    x = torch.randn(2, n)
    assert_close(torch.fft.rfft(x.to(dev)), torch.fft.rfft(x), **tols(torch.float32))
    y = torch.randn(2, n, dtype=torch.complex64)
    assert_close(torch.fft.fft(y.to(dev)), torch.fft.fft(y), **tols(torch.float32))
    h = torch.fft.rfft(x)
    assert_close(torch.fft.irfft(h.to(dev), n=n), torch.fft.irfft(h, n=n), **tols(torch.float32))


def test_rfft_irfft_backward(dev, no_fallback):
    """Gradients of rfft and irfft (PyTorch's formulas: _fft_c2c, _fft_r2c,
    real, narrow, mul_) on the device against the CPU."""
    torch.manual_seed(0)
    x = torch.randn(4, 9, dtype=torch.float64)
    grads = []
    for where in ("cpu", dev):
        a = x.to(where).detach().requires_grad_(True)
        y = torch.view_as_real(torch.fft.rfft(a, norm="ortho"))
        (y * y).sum().backward()
        h = torch.fft.rfft(x).to(where).detach().requires_grad_(True)
        z = torch.fft.irfft(h, n=9)
        (z * z).sum().backward()
        grads.append((a.grad, h.grad))
    assert_close(grads[1][0], grads[0][0])
    assert_close(grads[1][1], grads[0][1])


def test_gradcheck(dev):
    torch.manual_seed(0)
    x = torch.randn(3, 8, dtype=torch.float64, device=dev, requires_grad=True)
    assert torch.autograd.gradcheck(lambda t: torch.view_as_real(torch.fft.rfft(t)), (x,))
    h = torch.randn(3, 5, dtype=torch.complex128, device=dev, requires_grad=True)
    assert torch.autograd.gradcheck(lambda t: torch.fft.irfft(t, n=8), (h,))


def test_errors(dev):
    # PyTorch's class (its CPU raises RuntimeError for both)
    with pytest.raises(RuntimeError, match="Only supports complex dtypes"):
        torch.ops.aten._fft_c2c(torch.randn(4, device=dev), [0], 0, True)
    with pytest.raises(RuntimeError, match="Invalid number of data points"):
        torch.ops.aten._fft_r2c(torch.randn(3, 0, device=dev), [1], 0, True)
