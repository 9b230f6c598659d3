# SPDX-License-Identifier: Apache-2.0
"""torch.compile(backend="clops"): prologue fusion into the norms.

RMSNorm written out (HF's LlamaRMSNorm / T5LayerNorm: a cast to float32,
pow(2), mean over the last dimension, + eps, rsqrt, the product, the cast
back, the weight) becomes one call of clops' fused row kernel
(_fused_rms_norm: the squares summed as the row is read): one launch where
the written-out graph made three (pow, mean, a fused kernel of the rest).
Results against float64 within a few times eager's own error, the same bits
on every run; graphs that differ from the pattern stay as written and still
equal eager's.
"""
import pytest
import torch

import clops.torch  # noqa: F401
from conftest import assert_close


def launches():
    return torch.clops.device_counters()["launches"]


class RMSNorm(torch.nn.Module):
    """transformers' LlamaRMSNorm (5.x), optionally without the weight or with
    x * x for the square."""

    def __init__(self, n, dtype, weight=True, square="pow", eps=1e-6):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.randn(n, dtype=dtype)) if weight else None
        self.eps, self.square = eps, square

    def forward(self, x):
        dt = x.dtype
        h = x.to(torch.float32)
        v = (h.pow(2) if self.square == "pow" else h * h).mean(-1, keepdim=True)
        h = h * torch.rsqrt(v + self.eps)
        h = h.to(dt)
        return self.weight * h if self.weight is not None else h


def reference(m, x):
    """The module's arithmetic in float64 on the CPU."""
    h = x.detach().cpu().double()
    h = h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + m.eps)
    if m.weight is not None:
        h = m.weight.detach().cpu().double() * h
    return h


def compiled_and_eager(m, x):
    torch._dynamo.reset()
    f = torch.compile(m, backend="clops")
    with torch.no_grad():
        want = m(x)
        b = launches()
        want = m(x)
        eager_n = launches() - b
        f(x)                     # compiles
        b = launches()
        got = f(x)
        comp_n = launches() - b
        again = f(x)
    return got, want, again, comp_n, eager_n


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
@pytest.mark.parametrize("weight,square", [(True, "pow"), (False, "pow"), (True, "mul")])
def test_rms_norm_written_out_becomes_one_fused_call(dev, dtype, weight, square, no_fallback):
    torch.manual_seed(0)
    m = RMSNorm(96, dtype, weight, square).to(dev)
    x = (torch.randn(3, 5, 96) * 3 + 0.5).to(dtype).to(dev)
    got, want, again, comp_n, eager_n = compiled_and_eager(m, x)
    # the fused row kernel's own launches: 1 (2 for a 16-bit weight on CPU
    # devices, which convert it to float first); written out: pow, mean and
    # one fused kernel at least
    b = launches()
    clops.torch._C.rms_norm_fused(x, [96], m.weight, m.eps)
    assert comp_n == launches() - b <= 2, (comp_n, eager_n)
    assert eager_n >= 4
    assert got.dtype == want.dtype == dtype and got.shape == want.shape
    assert got.is_contiguous()
    torch.testing.assert_close(got.cpu(), again.cpu(), rtol=0, atol=0)   # same bits every run
    ref = reference(m, x)
    err_c = (got.cpu().double() - ref).abs().max().item()
    err_e = (want.cpu().double() - ref).abs().max().item()
    if dtype == torch.float32:
        # the kernel's own order of the sum and 1 / sqrt: a few float32 ulps
        assert err_c <= 3 * err_e + 4e-7 * ref.abs().max().item(), (err_c, err_e)
        assert_close(got, want, rtol=2e-6, atol=2e-6 * ref.abs().max().item())
    else:
        # eager rounds x * rstd to bfloat16 before the weight, the kernel
        # once at the end: within one bfloat16 ulp of eager's
        assert err_c <= 1.5 * err_e + 1e-6, (err_c, err_e)
        assert_close(got.float(), want.float(), rtol=2 ** -7, atol=2 ** -7)


class GemmaRMSNorm(torch.nn.Module):
    """transformers' GemmaRMSNorm: the (1 + weight) factor in float32 before
    the cast back, so the matcher normalises the float32 cast of x and the
    cast back stays a node of its own."""

    def __init__(self, n, eps=1e-6):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.randn(n) * 0.1)
        self.eps = eps

    def forward(self, x):
        h = x.float()
        h = h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + self.eps)
        return (h * (1.0 + self.weight.float())).type_as(x)


def test_gemma_style_weight_in_float32_before_the_cast(dev):
    torch.manual_seed(4)
    m = GemmaRMSNorm(64).to(dev)
    x = torch.randn(4, 7, 64).to(torch.bfloat16).to(dev)
    got, want, again, comp_n, eager_n = compiled_and_eager(m, x)
    # x.float(), the weight's 1 + w, the norm with it, the cast back: as
    # many launches as the written-out norm between the casts (pow, mean,
    # one fused kernel taking 1 + w), so the profile shows the norm call
    assert comp_n <= 4 < eager_n, (comp_n, eager_n)
    f = torch.compile(m, backend="clops")
    with torch.no_grad(), clops.torch._compile.profile() as times:
        f(x)
    assert times.get("clops rms norm", [0])[0] == 1, times
    assert "aten.mean.dim" not in times, times
    torch.testing.assert_close(got.cpu(), again.cpu(), rtol=0, atol=0)
    assert got.dtype == torch.bfloat16
    assert_close(got.float(), want.float(), rtol=2 ** -7, atol=2 ** -7)


def test_off_switch_and_unmatched_graphs_stay_as_written(dev, monkeypatch):
    torch.manual_seed(1)
    m = RMSNorm(64, torch.float32).to(dev)
    x = torch.randn(4, 64).to(dev)
    monkeypatch.setenv("CLOPS_COMPILE_RMS_NORM", "0")
    got, want, _, comp_n, _ = compiled_and_eager(m, x)
    assert comp_n == 3                   # pow, mean, the rest fused: the pass is what fuses
    torch.testing.assert_close(got.cpu(), want.cpu(), rtol=0, atol=0)
    monkeypatch.delenv("CLOPS_COMPILE_RMS_NORM")

    def over_rows(x):                    # the mean over another dimension
        return x * torch.rsqrt(x.pow(2).mean(0, keepdim=True) + 1e-5)

    def variance_used_twice(x):          # the mean is a result too
        v = x.pow(2).mean(-1, keepdim=True)
        return x * torch.rsqrt(v + 1e-5), v

    def negative_eps(x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + (-1e-5))

    for fn in (over_rows, variance_used_twice, negative_eps):
        torch._dynamo.reset()
        f = torch.compile(fn, backend="clops")
        with torch.no_grad():
            got, want = f(x), fn(x)
            b = launches()
            f(x)
            assert launches() - b >= 3, fn.__name__
        for a, e in zip(got if isinstance(got, tuple) else (got,),
                        want if isinstance(want, tuple) else (want,)):
            torch.testing.assert_close(a.cpu(), e.cpu(), rtol=0, atol=0, equal_nan=True)


class Block(torch.nn.Module):
    """Two RMSNorms around a residual linear layer."""

    def __init__(self, dtype=torch.float32):
        super().__init__()
        self.n1, self.n2 = RMSNorm(64, dtype), RMSNorm(64, dtype)
        self.fc = torch.nn.Linear(64, 64, dtype=dtype)

    def forward(self, x):
        return self.n2(x + self.fc(self.n1(x)))


def test_a_block_in_inference_lowers_both_norms(dev, monkeypatch):
    """Each norm becomes one call where the lowering is off takes three
    (pow, mean, the rest fused): counted against the same graph compiled
    with CLOPS_COMPILE_RMS_NORM=0, so that the linear layer's own launches
    cancel (one on POCL; on the H200 the block took 5 launches, against
    the 3 this test once expected of every device)."""
    torch.manual_seed(2)
    m = Block().to(dev)
    x = torch.randn(2, 8, 64).to(dev)
    got, want, _, comp_n, eager_n = compiled_and_eager(m, x)
    assert_close(got, want, rtol=2e-6, atol=1e-5)
    monkeypatch.setenv("CLOPS_COMPILE_RMS_NORM", "0")
    off, _, _, off_n, _ = compiled_and_eager(m, x)
    assert_close(off, want, rtol=2e-6, atol=1e-5)
    assert comp_n <= off_n - 4 and comp_n < eager_n, (comp_n, off_n, eager_n)


def train_step(m, x, compiled):
    torch._dynamo.reset()
    f = torch.compile(m, backend="clops") if compiled else m
    m.zero_grad()
    xg = x.clone().requires_grad_()
    f(xg).float().square().sum().backward()        # compiles
    m.zero_grad()
    xg = x.clone().requires_grad_()
    b = launches()
    f(xg).float().square().sum().backward()
    n = launches() - b
    return [p.grad.clone() for p in m.parameters()] + [xg.grad], n


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_training_lowers_above_autograd_onto_the_fused_forward_and_backward(dev, dtype,
                                                                            monkeypatch):
    """A graph that trains gets clops::rms_norm above autograd: its forward
    and clops' fused backward (_fused_rms_norm_backward), gradients within
    the tolerance of eager's written-out ones, fewer launches than with the
    lowering off (CLOPS_COMPILE_RMS_NORM=0), the same bits every run."""
    torch.manual_seed(3)
    m = Block(dtype).to(dev)
    x = torch.randn(2, 8, 64).to(dtype).to(dev)
    eager, _ = train_step(m, x, False)
    got, n_on = train_step(m, x, True)
    again, _ = train_step(m, x, True)
    monkeypatch.setenv("CLOPS_COMPILE_RMS_NORM", "0")
    off, n_off = train_step(m, x, True)
    assert n_on < n_off, (n_on, n_off)
    tol = 1e-4 if dtype == torch.float32 else 2e-2
    for g, e, a, o in zip(got, eager, again, off):
        torch.testing.assert_close(g.cpu(), a.cpu(), rtol=0, atol=0)
        scale = e.float().abs().max().item()
        assert_close(g.float(), e.float(), rtol=tol, atol=tol * scale)
        assert_close(o.float(), e.float(), rtol=tol, atol=tol * scale)


def test_symbolic_sizes_lower_too_and_a_strided_input_runs_as_written(dev):
    """Once Dynamo makes the graph dynamic (the rows, at their second
    size: the width stays a number), the norm is still one fused call;
    the layout is checked when the graph runs: a strided input takes eager's
    own ops (its result in eager's layout, eager's bits)."""
    torch.manual_seed(5)
    for dtype in (torch.float32, torch.bfloat16):
        m = RMSNorm(64, dtype).to(dev)
        torch._dynamo.reset()
        f = torch.compile(m, backend="clops")
        with torch.no_grad():
            for rows in (5, 9, 12):             # static, then symbolic rows
                x = torch.randn(2, rows, 64).to(dtype).to(dev)
                f(x)
                b = launches()
                got = f(x)
                n = launches() - b
                b = launches()
                clops.torch._C.rms_norm_fused(x, [64], m.weight, m.eps)
                assert n == launches() - b, (rows, n)
                want = m(x)
                assert_close(got.float(), want.float(), rtol=2e-6 if dtype == torch.float32
                             else 2 ** -7, atol=1e-5 if dtype == torch.float32 else 2 ** -7)
            xt = torch.randn(2, 64, 7).to(dtype).to(dev).transpose(1, 2)
            got, want = f(xt), m(xt)
            assert got.stride() == want.stride()
            torch.testing.assert_close(got.cpu(), want.cpu(), rtol=0, atol=0)
        with torch.no_grad(), clops.torch._compile.profile() as times:
            f(torch.randn(2, 6, 64).to(dtype).to(dev))
        assert times.get("clops rms norm", [0])[0] == 1, times
