# SPDX-License-Identifier: Apache-2.0
"""Scaled-dot-product attention on the clops device: F.scaled_dot_product_attention
reaches clops' fused kernel (_scaled_dot_product_fused_attention_overrideable,
python/csrc/attention.cpp) for every case it covers — masks (bool, additive,
broadcast, additive masks needing a gradient), causal with L != S, grouped-query
heads, head dims up to 256, odd lengths, strided inputs,
float32/float16/bfloat16; bottom-right causal (causal_lower_right) through
_efficient_attention_forward — and matches PyTorch's CPU math path, forward and
backward, with no CPU fallback; dropout gives the
same bits for the same seed; what the kernel does not cover runs PyTorch's
math path on the device.  nn.MultiheadAttention and nn.TransformerEncoderLayer
in eval mode under no_grad (the _native_multi_head_attention and
_transformer_encoder_layer_fwd fast paths) and a small torchvision ViT run on
the device too."""
import pytest
import torch
import torch.nn.functional as F

import clops.torch  # noqa: F401
from conftest import assert_close

FUSED = "ScaledDotProductFusedAttentionOverrideableBackward0"
EFFICIENT = "EfficientAttentionBackward0"

# (q shape, k shape, v shape, mask: None | ("bool"|"add", shape), is_causal, enable_gqa)
CASES = [
    ((2, 3, 17, 16), (2, 3, 17, 16), (2, 3, 17, 16), None, False, False),
    ((2, 4, 13, 40), (2, 2, 21, 40), (2, 2, 21, 24), None, True, True),
    ((2, 19, 8), (2, 7, 8), (2, 7, 8), None, True, False),
    ((2, 2, 9, 32), (2, 2, 33, 32), (2, 2, 33, 32), ("bool", (9, 33)), False, False),
    ((2, 3, 18, 64), (2, 3, 20, 64), (2, 3, 20, 48), ("add", (2, 1, 1, 20)), False, False),
    ((1, 2, 10, 256), (1, 2, 12, 256), (1, 2, 12, 200), None, True, False),
    ((37, 128), (29, 128), (29, 96), ("add", (37, 29)), False, False),
]

TOL = {torch.float32: dict(atol=2e-5, rtol=1e-4),
       torch.float16: dict(atol=1e-2, rtol=1e-2),
       torch.bfloat16: dict(atol=6e-2, rtol=3e-2)}


def reaches_fused(t, depth=4, name=FUSED):
    """Whether t's autograd graph has the fused op within a few nodes (3-D
    inputs are unsqueezed to 4-D around it)."""
    fns = [t.grad_fn]
    for _ in range(depth):
        if any(f is not None and f.name() == name for f in fns):
            return True
        fns = [n for f in fns if f is not None for n, _ in f.next_functions]
    return False


def inputs(case, dtype, seed):
    qs, ks, vs, mask, causal, gqa = case
    g = torch.Generator().manual_seed(seed)
    q, k, v = (torch.randn(s, generator=g) for s in (qs, ks, vs))
    m = None
    if mask is not None:
        kind, ms = mask
        m = torch.rand(ms, generator=g) > 0.25 if kind == "bool" else torch.randn(ms, generator=g)
    go = torch.randn(qs[:-1] + vs[-1:], generator=g)
    cast = (lambda t: t.to(dtype)) if dtype != torch.float32 else (lambda t: t)
    return [cast(t) for t in (q, k, v, go)], (cast(m) if m is not None and m.dtype != torch.bool else m)


def run(q, k, v, go, m, causal, gqa, dev=None):
    q, k, v = (t.to(dev) if dev else t for t in (q, k, v))
    q, k, v = (t.detach().requires_grad_(True) for t in (q, k, v))
    m = m.to(dev) if (dev and m is not None) else m
    o = F.scaled_dot_product_attention(q, k, v, attn_mask=m, is_causal=causal, enable_gqa=gqa)
    o.backward(go.to(o.device))
    return o, q.grad, k.grad, v.grad


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.float16])
@pytest.mark.parametrize("ci", range(len(CASES)))
def test_sdpa_fused_matches_cpu(dev, no_fallback, ci, dtype):
    if dtype != torch.float32 and ci % 3 != (1 if dtype == torch.bfloat16 else 2):
        pytest.skip("16-bit dtypes run on a third of the cases each (time)")
    case = CASES[ci]
    (q, k, v, go), m = inputs(case, dtype, ci)
    causal, gqa = case[4], case[5]
    out = run(q, k, v, go, m, causal, gqa, dev)
    assert reaches_fused(out[0])
    mm = m.double() if m is not None and m.dtype != torch.bool else m
    ref = run(q.double(), k.double(), v.double(), go.double(), mm, causal, gqa)
    for a, b in zip(out, ref):
        assert a.device == dev and a.dtype == dtype
        assert_close(a, b.to(dtype), **TOL[dtype])


# Several tiles of the tensor-core backward (NVIDIA devices with mma.sync:
# 64-key blocks, 32/64-row query steps, 128-row dQ tiles; the FMA kernels
# elsewhere): partial tiles, grouped-query heads, masks, head dims 32-128.
MMA_CASES = [
    ((1, 4, 150, 64), (1, 2, 140, 64), (1, 2, 140, 64), None, True, True),
    ((2, 2, 70, 128), (2, 2, 90, 128), (2, 2, 90, 96), ("add", (2, 1, 70, 90)), False, False),
    ((1, 2, 66, 32), (1, 2, 130, 32), (1, 2, 130, 32), ("bool", (66, 130)), False, False),
]


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
@pytest.mark.parametrize("ci", range(len(MMA_CASES)))
def test_sdpa_16bit_backward_tiles(dev, no_fallback, ci, dtype):
    case = MMA_CASES[ci]
    (q, k, v, go), m = inputs(case, dtype, 100 + ci)
    causal, gqa = case[4], case[5]
    out = run(q, k, v, go, m, causal, gqa, dev)
    assert reaches_fused(out[0])
    mm = m.double() if m is not None and m.dtype != torch.bool else m
    ref = run(q.double(), k.double(), v.double(), go.double(), mm, causal, gqa)
    assert_close(out[0], ref[0].to(dtype), **TOL[dtype])
    # a gradient element sums products whose 16-bit rounding (P and dS on
    # the tensor cores, out in D = dO . O) scales with the largest terms
    rel = 2e-2 if dtype == torch.bfloat16 else 4e-3
    for a, b in zip(out[1:], ref[1:]):
        atol = max(TOL[dtype]["atol"], rel * b.abs().max().item())
        assert_close(a, b.to(dtype), atol=atol, rtol=TOL[dtype]["rtol"])


def test_sdpa_strided_inputs(dev, no_fallback):
    g = torch.Generator().manual_seed(5)
    x = torch.randn(2, 11, 3, 3, 16, generator=g)       # [B, L, 3, H, E]: q, k, v of one projection
    q, k, v = (x[:, :, i].transpose(1, 2) for i in range(3))
    out = F.scaled_dot_product_attention(q.to(dev), k.to(dev), v.to(dev), is_causal=True)
    xd = x.to(dev)
    qd, kd, vd = (xd[:, :, i].transpose(1, 2) for i in range(3))
    assert not qd.is_contiguous()
    outd = F.scaled_dot_product_attention(qd, kd, vd, is_causal=True)
    ref = F.scaled_dot_product_attention(q.double(), k.double(), v.double(), is_causal=True)
    assert_close(out, ref.float(), atol=2e-5, rtol=1e-4)
    assert_close(outd, ref.float(), atol=2e-5, rtol=1e-4)


def test_sdpa_dropout_same_seed_same_bits(dev, no_fallback):
    g = torch.Generator().manual_seed(3)
    q, k, v = (torch.randn(2, 3, 9, 16, generator=g).to(dev).requires_grad_(True) for _ in range(3))
    res = []
    for _ in range(2):
        torch.manual_seed(7)
        o = F.scaled_dot_product_attention(q, k, v, dropout_p=0.3)
        o.sum().backward()
        res.append((o.detach().cpu(), q.grad.cpu().clone()))
        q.grad = None
    assert torch.equal(res[0][0], res[1][0]) and torch.equal(res[0][1], res[1][1])
    plain = F.scaled_dot_product_attention(q, k, v).detach().cpu()
    assert not torch.equal(res[0][0], plain)
    assert torch.isfinite(res[0][1]).all()


def test_sdpa_uncovered_cases_run_math_on_device(dev, no_fallback):
    g = torch.Generator().manual_seed(9)
    q, k, v = (torch.randn(1, 2, 5, 300, generator=g) for _ in range(3))   # head dim > 256
    q_, k_, v_ = (t.to(dev).requires_grad_(True) for t in (q, k, v))
    o = F.scaled_dot_product_attention(q_, k_, v_)
    assert not reaches_fused(o)
    assert_close(o, F.scaled_dot_product_attention(q, k, v), atol=1e-5, rtol=1e-4)
    o.sum().backward()
    assert q_.grad is not None and q_.grad.device == dev


# (q shape, k shape, mask shape, is_causal-free additive mask needing a gradient)
MASK_GRAD_CASES = [
    ((2, 3, 9, 16), (2, 3, 13, 16), (9, 13)),
    ((2, 3, 9, 16), (2, 3, 13, 16), (2, 1, 1, 13)),
    ((2, 3, 9, 32), (2, 3, 13, 32), (2, 3, 9, 13)),
    ((11, 24), (7, 24), (11, 1)),
    ((2, 3, 9, 16), (2, 3, 13, 16), (1, 3, 1, 1)),
    ((2, 3, 9, 16), (2, 3, 13, 16), (2, 1, 9, 1)),
    ((2, 3, 21, 16), (2, 3, 19, 16), (1, 1, 1, 19)),
    ((2, 3, 9, 16), (2, 3, 13, 16), (1,)),
]


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
@pytest.mark.parametrize("ci", range(len(MASK_GRAD_CASES)))
def test_sdpa_additive_mask_gradient_fused(dev, no_fallback, ci, dtype):
    if dtype != torch.float32 and ci != 1:
        pytest.skip("bfloat16 on one case (time)")
    qs, ks, ms = MASK_GRAD_CASES[ci]
    g = torch.Generator().manual_seed(20 + ci)
    q, k, v = (torch.randn(s, generator=g).to(dtype) for s in (qs, ks, ks))
    m = torch.randn(ms, generator=g).to(dtype)
    go = torch.randn(qs, generator=g).to(dtype)
    grads = []
    for device, cast in ((dev, lambda t: t), ("cpu", lambda t: t.double())):
        ts = [cast(t).to(device).detach().requires_grad_(True) for t in (q, k, v, m)]
        o = F.scaled_dot_product_attention(*ts[:3], attn_mask=ts[3])
        if device == dev:
            assert reaches_fused(o)
        o.backward(cast(go).to(device))
        grads.append([o] + [t.grad for t in ts])
    for a, b in zip(*grads):
        assert a.device == dev and a.dtype == dtype and a.shape == b.shape
        assert_close(a, b.to(dtype), **TOL[dtype])
    # the mask's gradient is a fixed-order reduction: the same bits twice
    ts = [t.to(dev).detach().requires_grad_(True) for t in (q, k, v, m)]
    F.scaled_dot_product_attention(*ts[:3], attn_mask=ts[3]).backward(go.to(dev))
    assert torch.equal(ts[3].grad.cpu(), grads[0][4].cpu())


LOWER_RIGHT_CASES = [
    ((2, 3, 5, 16), (2, 3, 23, 16), (2, 3, 23, 16), False),   # L < S: decode-like
    ((1, 4, 21, 40), (1, 2, 13, 40), (1, 2, 13, 24), True),   # L > S: first rows masked, GQA
    ((2, 2, 17, 64), (2, 2, 40, 64), (2, 2, 40, 64), False),
]


@pytest.mark.filterwarnings("ignore:Lower right causal bias")   # PyTorch's, for L > S
@pytest.mark.parametrize("dtype", [torch.float32, torch.float16])
@pytest.mark.parametrize("ci", range(len(LOWER_RIGHT_CASES)))
def test_sdpa_causal_lower_right_fused(dev, no_fallback, ci, dtype):
    from torch.nn.attention.bias import causal_lower_right
    if dtype != torch.float32 and ci != 2:
        pytest.skip("float16 on one case (time)")
    qs, ks, vs, gqa = LOWER_RIGHT_CASES[ci]
    g = torch.Generator().manual_seed(40 + ci)
    q, k, v = (torch.randn(s, generator=g).to(dtype) for s in (qs, ks, vs))
    go = torch.randn(qs[:-1] + vs[-1:], generator=g).to(dtype)
    bias = causal_lower_right(qs[-2], ks[-2])
    res = []
    for device, cast in ((dev, lambda t: t), ("cpu", lambda t: t.double())):
        ts = [cast(t).to(device).detach().requires_grad_(True) for t in (q, k, v)]
        o = F.scaled_dot_product_attention(*ts, attn_mask=bias, enable_gqa=gqa)
        if device == dev:
            assert reaches_fused(o, name=EFFICIENT)
        o.backward(cast(go).to(device))
        res.append([o] + [t.grad for t in ts])
    for a, b in zip(*res):
        assert a.device == dev and a.dtype == dtype and a.shape == b.shape
        assert_close(a, b.to(dtype), **TOL[dtype])
    if qs[-2] > ks[-2]:   # rows above the diagonal's start attend to nothing: zeros
        assert not res[0][0][..., : qs[-2] - ks[-2], :].cpu().any()


@pytest.mark.filterwarnings("ignore:Lower right causal bias")
@pytest.mark.parametrize("lower_right", [False, True])
def test_sdpa_decoding_matches_cpu(dev, no_fallback, lower_right):
    """One and three query tokens against a long KV cache: the decoding
    tiles and, on a device with few (batch, head) tiles per compute unit,
    the split-KV forward (docs/attention.md)."""
    from torch.nn.attention.bias import causal_lower_right
    g = torch.Generator().manual_seed(60 + lower_right)
    L = 3 if lower_right else 1
    q = torch.randn(1, 4, L, 64, generator=g)
    k, v = (torch.randn(1, 2, 1500, 64, generator=g) for _ in range(2))
    m = causal_lower_right(L, 1500) if lower_right else None
    o = F.scaled_dot_product_attention(q.to(dev), k.to(dev), v.to(dev), attn_mask=m,
                                       enable_gqa=True)
    ref = F.scaled_dot_product_attention(q.double(), k.double(), v.double(), attn_mask=m,
                                         enable_gqa=True)
    assert_close(o, ref.float(), atol=2e-5, rtol=1e-4)


@pytest.mark.parametrize("need_weights", [False, True])
@pytest.mark.parametrize("padding", [False, True])
def test_multihead_attention_eval_fast_path(dev, no_fallback, need_weights, padding):
    torch.manual_seed(0)
    mha = torch.nn.MultiheadAttention(32, 4, batch_first=True).eval()
    x = torch.randn(3, 10, 32)
    kpm = None
    if padding:
        kpm = torch.zeros(3, 10, dtype=torch.bool)
        kpm[1, 7:] = True
    with torch.no_grad():
        ref = mha(x, x, x, key_padding_mask=kpm, need_weights=need_weights)
        mha_d = mha.to(dev)
        torch.clops.reset_fallback_counts()
        out = mha_d(x.to(dev), x.to(dev), x.to(dev),
                    key_padding_mask=None if kpm is None else kpm.to(dev),
                    need_weights=need_weights)
    assert_close(out[0], ref[0], atol=2e-5, rtol=1e-4)
    if need_weights:
        assert_close(out[1], ref[1], atol=2e-5, rtol=1e-4)
    else:
        assert out[1] is None and ref[1] is None


@pytest.mark.parametrize("norm_first", [False, True])
def test_transformer_encoder_layer_eval_fast_path(dev, no_fallback, norm_first):
    torch.manual_seed(1)
    layer = torch.nn.TransformerEncoderLayer(32, 4, dim_feedforward=48, batch_first=True,
                                             norm_first=norm_first, activation="gelu").eval()
    x = torch.randn(2, 9, 32)
    with torch.no_grad():
        ref = layer(x)
        torch.clops.reset_fallback_counts()
        out = layer.to(dev)(x.to(dev))
    assert_close(out, ref, atol=5e-5, rtol=1e-4)


def test_small_vit_eval_runs_on_the_device(dev, no_fallback):
    torchvision = pytest.importorskip("torchvision")
    torch.manual_seed(2)
    vit = torchvision.models.VisionTransformer(image_size=32, patch_size=16, num_layers=2,
                                               num_heads=2, hidden_dim=32, mlp_dim=64,
                                               num_classes=10).eval()
    x = torch.randn(2, 3, 32, 32)
    with torch.no_grad():
        ref = vit(x)
        torch.clops.reset_fallback_counts()
        out = vit.to(dev)(x.to(dev))
    assert_close(out, ref, atol=1e-4, rtol=1e-4)


def meta_like(t):
    return torch.empty_strided(t.shape, t.stride(), dtype=t.dtype, device="meta")


def heads(x, n):
    """[B, L, n * E] as [B, n, L, E]: the view transformers split heads with."""
    b, l, c = x.shape
    return x.view(b, l, n, c // n).transpose(1, 2)


def layout_cases(dtype):
    g = torch.Generator().manual_seed(7)
    r = lambda *s: torch.randn(*s, generator=g).to(dtype)  # noqa: E731
    qkv = r(2, 11, 3 * 4 * 16)  # GPT-2: one projection split into q, k, v (not dense)
    yield tuple(heads(t, 4) for t in qkv.split(64, -1))
    yield r(2, 4, 11, 16), r(2, 4, 13, 16), r(2, 4, 13, 16)  # contiguous
    # [B, L, H, E] memory, value with another head dim; 3-D (logsumexp [1, H, L])
    yield (heads(r(2, 11, 64), 4), heads(r(2, 13, 64), 4), heads(r(2, 13, 32), 4))
    yield r(11, 4, 16).transpose(0, 1), r(4, 13, 16), r(13, 4, 8).transpose(0, 1)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_sdpa_results_in_pytorchs_layout(dev, no_fallback, dtype):
    """The fused op's output, logsumexp and gradients have the shapes and
    strides of PyTorch's meta functions for the same call (the layout a
    compiled graph is traced with: the output like query, [B, L, H, E]
    memory for heads split by a transpose), and the values of PyTorch's CPU
    math path."""
    fwd = torch.ops.aten._scaled_dot_product_fused_attention_overrideable
    bwd = torch.ops.aten._scaled_dot_product_fused_attention_overrideable_backward
    for q, k, v in layout_cases(dtype):
        res = fwd(q.to(dev), k.to(dev), v.to(dev), None, 0.0, True)
        meta = fwd(meta_like(q), meta_like(k), meta_like(v), None, 0.0, True)
        for a, b in ((res[0], meta[0]), (res[1], meta[1])):
            assert a.shape == b.shape and a.stride() == b.stride(), (a.stride(), b.stride())
        ref = F.scaled_dot_product_attention(q.double(), k.double(), v.double(), is_causal=True)
        assert_close(res[0], ref.to(dtype), **TOL[dtype])
        o = F.scaled_dot_product_attention(q.to(dev), k.to(dev), v.to(dev), is_causal=True)
        assert o.stride() == meta[0].stride()
        go = torch.randn(o.shape, dtype=torch.float32).to(dtype)
        args = lambda qq, kk, vv, oo, ll, gg: (  # noqa: E731
            gg, qq, kk, vv, None, [True, True, True, False], oo, ll, None, None,
            q.size(-2), k.size(-2), 0.0, True, res[6], res[7])
        grads = bwd(*args(q.to(dev), k.to(dev), v.to(dev), res[0], res[1], go.to(dev)))
        mgrads = bwd(*args(meta_like(q), meta_like(k), meta_like(v), meta[0], meta[1],
                           meta_like(go)))
        for a, b in zip(grads[:3], mgrads[:3]):
            assert a.shape == b.shape and a.stride() == b.stride(), (a.stride(), b.stride())
        ts = [t.double().requires_grad_(True) for t in (q, k, v)]
        F.scaled_dot_product_attention(*ts, is_causal=True).backward(go.double())
        for a, t in zip(grads[:3], ts):
            assert_close(a, t.grad.to(dtype), **TOL[dtype])


def test_the_fused_meta_functions_are_pytorchs():
    """clops' meta functions of the fused forward and backward give the
    layouts of PyTorch's own (torch/_meta_registrations.py; 2.15 has both)
    wherever PyTorch's takes the call, and are the ops' Meta kernels exactly
    where PyTorch's are missing or refuse 3-D inputs (2.11: no backward, a
    4-D-only forward), so that fake tensors and torch.compile trace them."""
    from clops.torch import _attention
    fwd = torch.ops.aten._scaled_dot_product_fused_attention_overrideable
    bwd = torch.ops.aten._scaled_dot_product_fused_attention_overrideable_backward
    pytorch = {op: torch._decomp.meta_table.get(op.default) for op in (fwd, bwd)}

    def layout(res):
        return [(t.shape, t.stride(), t.dtype, t.device) if isinstance(t, torch.Tensor) else t
                for t in res]

    def pytorchs(op, args):
        """PyTorch's own meta function's results, or None where it has none
        or it refuses the call."""
        try:
            return pytorch[op] and pytorch[op](*args)
        except (IndexError, RuntimeError):
            return None

    cases = list(layout_cases(torch.float32))
    q, k, v = cases[1]
    cases.append((q, k, v, torch.randn(2, 1, 11, 13).expand(2, 4, 11, 13)))
    cases.append((q, k, v, torch.randn(2, 4, 13, 11).transpose(-1, -2)))
    takes_3d = True
    for q, k, v, *bias in cases:
        bias = meta_like(bias[0]) if bias else None
        fargs = (meta_like(q), meta_like(k), meta_like(v), bias, 0.0, bias is None)
        res = _attention.sdpa_overrideable_meta(*fargs)
        assert layout(fwd(*fargs)) == layout(res)  # the Meta kernel, PyTorch's or clops'
        theirs = pytorchs(fwd, fargs)
        if theirs is not None:
            assert layout(theirs) == layout(res)
        elif q.dim() == 3:
            takes_3d = False
        args = (torch.empty_like(res[0]), *fargs[:3], bias, [True, True, True, bias is not None],
                res[0], res[1], None, None, q.size(-2), k.size(-2), 0.0, bias is None, res[6],
                res[7])
        grads = _attention.sdpa_overrideable_backward_meta(*args)
        assert (grads[3] is None) == (bias is None)
        assert layout(bwd(*args)) == layout(grads)
        theirs = pytorchs(bwd, args)
        if pytorch[bwd] is not None:
            assert layout(theirs) == layout(grads)
    assert (fwd.__name__ in _attention.REPLACED_META) == (pytorch[fwd] is None or not takes_3d)
    assert (bwd.__name__ in _attention.REPLACED_META) == (pytorch[bwd] is None)


def test_sdpa_output_needs_no_copy_to_merge_heads(dev, no_fallback):
    """GPT-2's attention: heads split by a transpose, merged back by
    transpose(1, 2).contiguous().view(...): the fused output is already in
    that memory order, so the merge is a view of it (PyTorch's layout)."""
    qkv = torch.randn(2, 11, 3 * 64).to(dev)
    q, k, v = (heads(t, 4) for t in qkv.split(64, -1))
    o = F.scaled_dot_product_attention(q, k, v, is_causal=True)
    merged = o.transpose(1, 2)
    assert merged.is_contiguous()
    assert merged.contiguous().data_ptr() == o.data_ptr()
