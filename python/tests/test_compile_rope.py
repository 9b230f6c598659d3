# SPDX-License-Identifier: Apache-2.0
"""torch.compile(backend="clops"): rotary embeddings written out (HF's
apply_rotary_pos_emb: q * cos + cat(-q2, q1) * sin, cos and sin from
cat(freqs, freqs)) become one pointwise kernel per query and key
(x0 * [c, s] + x1 * [-s, c] on [..., 2, h] views) with the same bits as
eager, and fewer launches than with the pass off (CLOPS_COMPILE_ROPE=0)."""
import pytest
import torch

import clops.torch  # noqa: F401


def rotate_half(x):
    h = x.shape[-1] // 2
    return torch.cat((-x[..., h:], x[..., :h]), dim=-1)


def rope(q, k, pos, inv_freq, equal_halves=True):
    freqs = pos[:, :, None].float() * inv_freq[None, None, :]
    emb = torch.cat((freqs, freqs), dim=-1) if equal_halves else torch.cat(
        (freqs, 2 * freqs), dim=-1)
    cos, sin = (emb.cos() * 1.0).to(q.dtype), (emb.sin() * 1.0).to(q.dtype)
    cos, sin = cos.unsqueeze(1), sin.unsqueeze(1)
    return q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin


def case(dev, dtype):
    g = torch.Generator().manual_seed(0)
    b, L, hq, hk, d = 2, 12, 4, 2, 16
    # heads split by a view and a transpose of [B, L, H * D], as HF does
    q = torch.randn(b, L, hq * d, generator=g).to(dev, dtype).view(b, L, hq, d).transpose(1, 2)
    k = torch.randn(b, L, hk * d, generator=g).to(dev, dtype).view(b, L, hk, d).transpose(1, 2)
    pos = torch.arange(L, device=dev)[None].expand(b, L)
    inv_freq = (1.0 / (10000 ** (torch.arange(0, d, 2).float() / d))).to(dev)
    return q, k, pos, inv_freq


def compiled_launches(fn, args, monkeypatch, **env):
    """fn compiled by the clops backend with the environment variables env
    set (Dynamo's caches reset first, so the switches read at compile time
    apply): (its second call's result, that call's kernel launches)."""
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    torch._dynamo.reset()
    f = torch.compile(fn, backend="clops")
    f(*args)
    n0 = torch.clops.device_counters()["launches"]
    out = f(*args)
    torch.clops.synchronize()
    return out, torch.clops.device_counters()["launches"] - n0


def run(fn, args, monkeypatch, switch):
    return compiled_launches(fn, args, monkeypatch, CLOPS_COMPILE_ROPE=switch)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_rotary_embedding_is_one_kernel_per_tensor_with_eager_bits(dev, dtype, monkeypatch):
    args = case(dev, dtype)
    want = rope(*args)
    on, n_on = run(rope, args, monkeypatch, "1")
    off, n_off = run(rope, args, monkeypatch, "0")
    for w, a, b in zip(want, on, off):
        assert a.dtype == w.dtype and a.shape == w.shape
        assert torch.equal(a.cpu(), w.cpu()) and torch.equal(b.cpu(), w.cpu())
    # off: a neg and a cat (one copy per operand) per tensor besides the
    # fused rest; on: one kernel per tensor, two for the [c, s] / [-s, c] tables
    assert n_on <= n_off - 2, (n_on, n_off)
    torch._dynamo.reset()


def test_unequal_halves_stay_written_out(dev, monkeypatch):
    args = case(dev, torch.float32)
    fn = lambda *a: rope(*a, equal_halves=False)   # noqa: E731
    want = fn(*args)
    on, n_on = run(fn, args, monkeypatch, "1")
    off, n_off = run(fn, args, monkeypatch, "0")
    for w, a in zip(want, on):
        assert torch.equal(a.cpu(), w.cpu())
    assert n_on == n_off
    torch._dynamo.reset()
