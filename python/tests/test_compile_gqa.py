# SPDX-License-Identifier: Apache-2.0
"""torch.compile(backend="clops"): grouped-query attention written with
HF's repeat_kv (unsqueeze, expand, clone, reshape of the key and value
heads) reads the key and value themselves: clops' fused kernel takes
grouped-query keys and values, so the copies go, with the same bits
(CLOPS_COMPILE_GQA=0 keeps them)."""
import pytest
import torch

import clops.torch  # noqa: F401
from test_compile_rope import compiled_launches

F = torch.nn.functional


def repeat_kv(x, n):
    b, h, L, e = x.shape
    return x[:, :, None, :, :].expand(b, h, n, L, e).reshape(b, h * n, L, e)


def attention(q, k, v):
    return F.scaled_dot_product_attention(q, repeat_kv(k, 3), repeat_kv(v, 3), is_causal=True)


def attention_masked_in_graph(q, k, v):   # PyTorch 2.11's HF graphs: the call
    i = torch.arange(q.shape[-2], device=q.device)   # rewritten by name first
    return F.scaled_dot_product_attention(q, repeat_kv(k, 3), repeat_kv(v, 3),
                                          attn_mask=i[:, None] >= i[None, :])


def attention_and_key(q, k, v):   # the repeated key is also a result: kept
    rk = repeat_kv(k, 3)
    return F.scaled_dot_product_attention(q, rk, repeat_kv(v, 3), is_causal=True), rk


def run(fn, args, monkeypatch, switch):
    return compiled_launches(fn, args, monkeypatch, CLOPS_COMPILE_GQA=switch, CLOPS_COMPILE_ATTENTION="1")


@pytest.mark.parametrize("fn", [attention, attention_masked_in_graph], ids=["is_causal", "mask"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_repeat_kv_copies_go_with_the_same_bits(dev, dtype, fn, monkeypatch):
    g = torch.Generator().manual_seed(0)
    q, k, v = (torch.randn(2, h, 10, 16, generator=g).to(dev, dtype) for h in (6, 2, 2))
    want = fn(q, k, v)
    on, n_on = run(fn, (q, k, v), monkeypatch, "1")
    off, n_off = run(fn, (q, k, v), monkeypatch, "0")
    assert torch.equal(on.cpu(), want.cpu()) and torch.equal(off.cpu(), want.cpu())
    assert n_on <= n_off - 2, (n_on, n_off)
    (o, rk), n_kept = run(attention_and_key, (q, k, v), monkeypatch, "1")
    assert torch.equal(o.cpu(), attention(q, k, v).cpu()) and torch.equal(rk.cpu(), repeat_kv(k, 3).cpu())
    torch._dynamo.reset()
