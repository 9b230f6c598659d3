# SPDX-License-Identifier: Apache-2.0
"""torch.compile(backend="clops"): key/value caches that start empty.

transformers' DynamicCache holds an empty tensor until its first update, so
a forward with no past concatenates each layer's new keys and values onto
a constant empty tensor (`lift_fresh_copy`, `cat`) and hands the copies to
the attention call.  The compiled graph hands the attention the keys and
values themselves (the fused kernel takes any strides): two launches fewer
per layer, the same bits.  A concatenation whose result is needed anywhere
but as an attention call's key or value stays.
"""
import pytest
import torch

import clops.torch  # noqa: F401
from clops.torch import _compile

F = torch.nn.functional


def launches():
    return torch.clops.device_counters()["launches"]


class CachedAttention(torch.nn.Module):
    """GPT-2's attention with a cache that starts empty, as DynamicCache's."""

    def __init__(self, width=64, heads=2, keep_cache=False, mask_in_graph=False):
        super().__init__()
        self.qkv = torch.nn.Linear(width, 3 * width)
        self.heads, self.keep_cache, self.mask_in_graph = heads, keep_cache, mask_in_graph

    def forward(self, x):
        b, n, c = x.shape
        q, k, v = self.qkv(x).split(c, dim=2)
        q, k, v = (t.view(b, n, self.heads, c // self.heads).transpose(1, 2) for t in (q, k, v))
        empty = torch.tensor([], dtype=x.dtype, device=x.device)
        k = torch.cat([empty, k], dim=-2)
        v = torch.cat([empty, v], dim=-2)
        if self.mask_in_graph:   # as PyTorch 2.11 traces HF GPT-2: the causal
            i = torch.arange(n, device=x.device)   # mask built in the graph
            y = F.scaled_dot_product_attention(q, k, v, attn_mask=i[:, None] >= i[None, :])
        else:
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return (y, k) if self.keep_cache else y


def run(m, x, compiled):
    torch._dynamo.reset()
    f = torch.compile(m, backend="clops") if compiled else m
    with torch.no_grad():
        f(x)
        b = launches()
        out = f(x)
        n = launches() - b
    return out, n


@pytest.mark.parametrize("mask_in_graph", [False, True], ids=["is_causal", "mask_in_graph"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_concatenations_onto_an_empty_cache_are_dropped(dev, dtype, mask_in_graph, monkeypatch):
    """With the causal mask built in the graph, the constant-mask pass
    rewrites the attention call with its arguments by name first (the
    cats were kept so on the GPU host's PyTorch 2.11: 24 per GPT-2 124M
    forward, compile11's job)."""
    torch.manual_seed(0)
    m = CachedAttention(mask_in_graph=mask_in_graph).to(dtype).to(dev)
    x = torch.randn(2, 16, 64).to(dtype).to(dev)
    want, n_eager = run(m, x, False)
    got, n_comp = run(m, x, True)
    again, _ = run(m, x, True)
    torch.testing.assert_close(got.cpu(), want.cpu(), rtol=0, atol=0)
    torch.testing.assert_close(again.cpu(), got.cpu(), rtol=0, atol=0)
    # eager: the product, two cats, the attention (the empty tensor's copy
    # launches nothing); compiled: the product and the attention
    monkeypatch.setattr(_compile, "_drop_empty_cats", lambda gm, label: 0)
    _, n_kept = run(m, x, True)
    assert n_comp == n_kept - 2 and n_kept <= n_eager, (n_comp, n_kept, n_eager)


def test_a_cache_that_is_a_result_keeps_its_concatenation(dev):
    torch.manual_seed(1)
    m = CachedAttention(keep_cache=True).to(dev)
    x = torch.randn(2, 16, 64).to(dev)
    (want, kw), _ = run(m, x, False)
    (got, kg), _ = run(m, x, True)
    torch.testing.assert_close(got.cpu(), want.cpu(), rtol=0, atol=0)
    torch.testing.assert_close(kg.cpu(), kw.cpu(), rtol=0, atol=0)
    assert kg.is_contiguous()             # cat's layout, as eager's
