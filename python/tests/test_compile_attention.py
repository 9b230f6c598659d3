# SPDX-License-Identifier: Apache-2.0
"""torch.compile(backend="clops"): attention written out by hand lowered onto
scaled_dot_product_attention (clops/torch/_compile.py, _att_plan).

Each pattern (scaled, divided, unscaled, a causal masked_fill, an additive
mask, a bool mask through where, softmax in float32 between two casts, a
clone of the probabilities (dropout that drops nothing on PyTorch 2.11); 3-D
and 4-D; float32 and bfloat16) gives eager's result within the tolerance of
the fused kernel against PyTorch's SDPA, in one attention call, and in fewer
launches; graphs the kernel would not compute as eager does are left alone
(same bits as eager); HF GPT-2 with attn_implementation="eager" compiles
every layer's attention onto the fused kernel.
"""
import math

import pytest
import torch

import clops.torch  # noqa: F401
import clops.torch._compile as C
from conftest import assert_close

F = torch.nn.functional

# How PyTorch's SDPA tests judge a fused kernel: against the float64 result
# of the same inputs, its error at most a few times the written-out ops' own
# error in the dtype (eager bfloat16 rounds the scores and probabilities,
# the kernel keeps them in float32), plus a floor of the dtype's rounding.
FUDGE, FLOOR = 3.0, {torch.float32: 1e-5, torch.bfloat16: 1e-2}


def sdpa_close(fn, args, got, want):
    """got (compiled) within FUDGE times eager's error (want) against fn in
    float64 on the CPU."""
    ref = fn(*[a.cpu().double() if a.is_floating_point() else a.cpu() for a in args])
    err = (got.cpu().double() - ref).abs().max().item()
    err_eager = (want.cpu().double() - ref).abs().max().item()
    assert err <= FUDGE * err_eager + FLOOR[want.dtype], (err, err_eager)
    return err, err_eager


def launches():
    return torch.clops.device_counters()["launches"]


@pytest.fixture
def lowered(monkeypatch):
    """Counts the attention calls compiled graphs make (_run_attention is
    what _emit_attention puts into the graph), with lowering on whatever
    the device (on CPU devices it is off by default, _att_wanted)."""
    monkeypatch.setenv("CLOPS_COMPILE_ATTENTION", "1")
    calls = []
    inner = C._run_attention

    def counted(*args):
        calls.append(args)
        return inner(*args)
    monkeypatch.setattr(C, "_run_attention", counted)
    torch._dynamo.reset()
    yield calls
    torch._dynamo.reset()


def scaled(q, k, v):
    return torch.softmax((q @ k.transpose(-2, -1)) * q.size(-1) ** -0.5, dim=-1) @ v


def divided(q, k, v):
    s = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(q.size(-1))
    return torch.matmul(F.softmax(s, dim=-1), v)


def unscaled(q, k, v):   # T5
    return torch.softmax(q @ k.transpose(3, 2), dim=-1) @ v


def causal_fill(q, k, v):   # a GPT-2 block written by hand
    t = q.size(-2)
    keep = torch.ones(t, t, dtype=torch.bool, device=q.device).tril()
    s = (q @ k.transpose(-2, -1)) * 0.125
    return torch.softmax(s.masked_fill(~keep, float("-inf")), dim=-1) @ v


def causal_triu(q, k, v):
    t = q.size(-2)
    masked = torch.ones(t, t, dtype=torch.bool, device=q.device).triu(1)
    s = (q @ k.transpose(-2, -1)) / 4
    return torch.softmax(s.masked_fill(masked, float("-inf")), dim=-1) @ v


def float32_softmax(q, k, v):   # HF llama/T5 eager: softmax(dtype=float32).to(q.dtype)
    s = (q @ k.transpose(-2, -1)) * 0.25
    return F.softmax(s, dim=-1, dtype=torch.float32).to(q.dtype) @ v


def eval_dropout(q, k, v):
    """HF's dropout(p, training=False) after the softmax: PyTorch up to 2.14
    decomposes it into a clone of the probabilities (2.15 into nothing), so
    the clone is written here (the GPU host's PyTorch 2.11 graph)."""
    s = (q @ k.transpose(-2, -1)) * 0.125
    return torch.softmax(s, dim=-1).clone() @ v


def float32_softmax_eval_dropout(q, k, v):   # the casts, then the clone
    s = (q @ k.transpose(-2, -1)) * 0.25
    return F.softmax(s, dim=-1, dtype=torch.float32).to(q.dtype).clone() @ v


PATTERNS = {"scaled": scaled, "divided": divided, "unscaled": unscaled,
            "causal_fill": causal_fill, "causal_triu": causal_triu,
            "float32_softmax": float32_softmax, "eval_dropout": eval_dropout,
            "float32_softmax_eval_dropout": float32_softmax_eval_dropout}


def qkv(dev, dtype, b=2, h=4, lq=16, lk=16, e=16, seed=0, transposed=True):
    """q, k, v as a model has them: [B, L, H, E] projections transposed."""
    g = torch.Generator().manual_seed(seed)
    if transposed:
        return [torch.randn(b, n, h, e, generator=g).to(dev, dtype).transpose(1, 2)
                for n in (lq, lk, lk)]
    return [torch.randn(b, h, n, e, generator=g).to(dev, dtype) for n in (lq, lk, lk)]


def check(fn, args, lowered, n_attention=1):
    with torch.no_grad():
        before = launches()
        want = fn(*args)
        n_eager = launches() - before
        compiled = torch.compile(fn, backend="clops", dynamic=False)
        compiled(*args)
        lowered.clear()
        before = launches()
        got = compiled(*args)
        n = launches() - before
    assert len(lowered) == n_attention, len(lowered)
    assert got.dtype == want.dtype and got.shape == want.shape
    assert got.stride() == want.stride()
    err, err_eager = sdpa_close(fn, args, got, want)
    print(f"\n{getattr(fn, '__name__', fn)} {want.dtype}: error {err:.3g} compiled, "
          f"{err_eager:.3g} eager; {n} launches compiled, {n_eager} eager")
    assert n < n_eager, (n, n_eager)
    with torch.no_grad():   # the same bits every run
        assert torch.equal(compiled(*args).cpu(), got.cpu())
    return n, n_eager


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
@pytest.mark.parametrize("name", sorted(PATTERNS))
def test_written_out_attention_becomes_one_sdpa_call(dev, name, dtype, lowered, no_fallback):
    if name.startswith("float32_softmax") and dtype == torch.float32:
        pytest.skip("the casts are no-ops in float32: the scaled pattern")
    check(PATTERNS[name], qkv(dev, dtype), lowered)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_an_additive_mask_and_a_bool_mask_through_where(dev, dtype, lowered, no_fallback):
    """BERT/GPT-2's additive padding mask ([B, 1, 1, S], the dtype's minimum
    where masked) and a [L, S] bool mask through where (every row keeps its
    diagonal, so no row is fully masked: there softmax gives NaN, the
    kernel 0, docs/torch.md)."""
    q, k, v = qkv(dev, dtype, lk=16)
    pad = torch.zeros(2, 1, 1, 16)
    pad[0, ..., 12:] = torch.finfo(dtype).min
    pad = pad.to(dev, dtype)
    g = torch.Generator().manual_seed(5)
    keep = (torch.rand(16, 16, generator=g) < 0.6) | torch.eye(16, dtype=torch.bool)
    keep = keep.to(dev)

    def additive(q, k, v, m):
        s = q @ k.transpose(-1, -2) / 4.0
        return torch.softmax(s + m, dim=-1) @ v

    def where(q, k, v, keep):
        s = (q @ k.transpose(-1, -2)) * 0.3
        return torch.softmax(torch.where(keep, s, float("-inf")), dim=-1) @ v

    def buffer(q, k, v, keep):   # nanoGPT: masked_fill(bias[..] == 0, -inf)
        s = (q @ k.transpose(-1, -2)) * 0.3
        return torch.softmax(s.masked_fill(keep == 0, float("-inf")), dim=-1) @ v

    for fn, args in ((additive, (q, k, v, pad)), (where, (q, k, v, keep)),
                     (buffer, (q, k, v, keep))):
        lowered.clear()
        torch._dynamo.reset()
        check(fn, args, lowered)


def test_3d_inputs_other_lengths_and_value_width(dev, lowered, no_fallback):
    """[B*H, L, E] inputs (bmm directly), a key length other than the
    query's, a value width other than the head dim, a mask broadcasting
    over rows."""
    g = torch.Generator().manual_seed(3)
    q = torch.randn(6, 10, 32, generator=g).to(dev)
    k = torch.randn(6, 24, 32, generator=g).to(dev)
    v = torch.randn(6, 24, 8, generator=g).to(dev)
    m = torch.randn(6, 1, 24, generator=g).to(dev)

    def fn(q, k, v, m):
        return torch.softmax(torch.bmm(q, k.transpose(1, 2)) * 0.2 + m, dim=-1).bmm(v)
    check(fn, (q, k, v, m), lowered)


def test_a_pre_transposed_key(dev, lowered, no_fallback):
    """q @ kt with kt [B, H, E, S] a tensor of its own: the key is kt
    transposed back (a view)."""
    q, k, v = qkv(dev, torch.float32)
    kt = k.transpose(-2, -1).contiguous()
    check(lambda q, kt, v: torch.softmax(q @ kt * 0.25, -1) @ v, (q, kt, v), lowered)


def test_attention_is_lowered_by_default_on_gpus_only(dev, lowered, monkeypatch, no_fallback):
    """Unset, CLOPS_COMPILE_ATTENTION lowers on GPUs, where the fused kernel
    pays, and not on CPU devices, where it is slower than the written-out
    ops (docs/torch.md); =0 never lowers."""
    q, k, v = qkv(dev, torch.float32)
    gpu = C._C.device_is_gpu(dev.index or 0)
    assert gpu == torch.clops.get_device_name(dev).startswith(("NVIDIA", "AMD", "Intel(R) Arc"))
    for setting, want in ((None, 1 if gpu else 0), ("0", 0)):
        if setting is None:
            monkeypatch.delenv("CLOPS_COMPILE_ATTENTION")
        else:
            monkeypatch.setenv("CLOPS_COMPILE_ATTENTION", setting)
        torch._dynamo.reset()
        lowered.clear()
        with torch.no_grad():
            torch.compile(causal_fill, backend="clops", dynamic=False)(q, k, v)
        assert len(lowered) == want, (setting, len(lowered))


# -- left alone ------------------------------------------------------------------

def not_lowered(fn, args, lowered):
    """fn compiled lowers nothing and gives eager's bits."""
    with torch.no_grad():
        want = fn(*args)
        got = torch.compile(fn, backend="clops", dynamic=False)(*args)
    assert lowered == [], len(lowered)
    for a, b in zip(got if isinstance(got, tuple) else (got,),
                    want if isinstance(want, tuple) else (want,)):
        torch.testing.assert_close(a.cpu(), b.cpu(), rtol=0, atol=0, equal_nan=True)


def test_patterns_the_kernel_would_change_are_left_alone(dev, lowered, no_fallback):
    q, k, v = qkv(dev, torch.float32)
    m = torch.randn(16, 16).to(dev)
    mask = (torch.randn(16, 16) > 0).to(dev)
    cases = {
        # the probabilities are a result too (a backward pass would save them)
        "probabilities used": lambda q, k, v: (lambda p: (p @ v, p))(
            torch.softmax(q @ k.transpose(-2, -1), -1)),
        # ... or their copy (dropout that drops nothing, PyTorch 2.11)
        "copy used": lambda q, k, v: (lambda p: (p @ v, p))(
            torch.softmax(q @ k.transpose(-2, -1), -1).clone()),
        # scaled after the mask: (s + m) * c is not s * c + m
        "mask, then scale": lambda q, k, v: torch.softmax(
            (q @ k.transpose(-2, -1) + m) * 0.5, -1) @ v,
        # a finite fill value is not a mask
        "finite fill": lambda q, k, v: torch.softmax(
            (q @ k.transpose(-2, -1)).masked_fill(mask, -1e4), -1) @ v,
        # softmax over another dimension
        "softmax dim": lambda q, k, v: torch.softmax(q @ k.transpose(-2, -1), -2) @ v,
        # a scale that is a tensor of the graph
        "tensor scale": lambda q, k, v: torch.softmax(
            (q @ k.transpose(-2, -1)) * k.amax(), -1) @ v,
    }
    for name, fn in cases.items():
        not_lowered(fn, (q, k, v), lowered)
        torch._dynamo.reset()
    # head dims beyond the kernel's 256
    q, k, v = qkv(dev, torch.float32, lq=4, lk=4, e=264, h=1, b=1)
    not_lowered(scaled, (q, k, v), lowered)
    # float16 scores of float32 inputs... and a float64 graph
    q, k, v = qkv(dev, torch.float64, lq=8, lk=8, e=8)
    not_lowered(scaled, (q, k, v), lowered)


@pytest.fixture
def graphs(monkeypatch):
    """The code of every graph the backend compiles, by label (forward,
    backward, inference), as rewritten."""
    seen = {}
    inner = C._rewrite

    def recorded(gm, label):
        out = inner(gm, label)
        seen.setdefault(label, []).append(out.code)
        return out
    monkeypatch.setattr(C, "_rewrite", recorded)
    return seen


FUSED_FW = "_scaled_dot_product_fused_attention_overrideable.default"
FUSED_BW = "_scaled_dot_product_fused_attention_overrideable_backward.default"


def count(graphs, label, op):
    return sum(code.count(op + "(") for code in graphs.get(label, []))


def test_training_lowers_above_autograd_onto_the_fused_forward_and_backward(
        dev, lowered, graphs, monkeypatch, no_fallback):
    """A graph that trains is lowered before AOT autograd (the probabilities
    the written-out backward saves would stop the match below it): the
    forward graph calls the fused kernel, the backward its backward (which
    takes the forward's logsumexp), and the gradients are SDPA's: within
    FUDGE times eager's error against float64.  With the lowering off the
    graphs keep the written-out ops and eager's gradients."""
    q, k, v = (t.detach().requires_grad_() for t in qkv(dev, torch.float32, transposed=False))

    def grads(fn, args):
        for t in args:
            t.grad = None
        fn(*args).square().sum().backward()
        return [t.grad.clone() for t in args]
    want = grads(causal_fill, (q, k, v))
    ref = grads(causal_fill, [t.detach().cpu().double().requires_grad_() for t in (q, k, v)])
    got = grads(torch.compile(causal_fill, backend="clops", dynamic=False), (q, k, v))
    assert count(graphs, "forward", FUSED_FW) == 1, graphs.get("forward")
    assert count(graphs, "backward", FUSED_BW) == 1, graphs.get("backward")
    assert all("bmm" not in code for code in graphs["forward"] + graphs["backward"])
    for a, b, r in zip(got, want, ref):
        err = (a.cpu().double() - r).abs().max().item()
        err_eager = (b.cpu().double() - r).abs().max().item()
        assert err <= FUDGE * err_eager + FLOOR[torch.float32], (err, err_eager)
    # lowering off: the written-out graph and eager's gradients
    monkeypatch.setenv("CLOPS_COMPILE_ATTENTION", "0")
    torch._dynamo.reset()
    graphs.clear()
    got = grads(torch.compile(causal_fill, backend="clops", dynamic=False), (q, k, v))
    assert count(graphs, "forward", FUSED_FW) == 0 and count(graphs, "backward", FUSED_BW) == 0
    for a, b in zip(got, want):
        assert_close(a, b, rtol=1e-5, atol=1e-6)


def test_training_with_a_probability_used_elsewhere_is_left_alone(dev, lowered, graphs,
                                                                  no_fallback):
    """Above autograd the matcher's conditions hold as below: probabilities
    that are a result too keep the written-out ops."""
    q, k, v = (t.detach().requires_grad_() for t in qkv(dev, torch.float32, transposed=False))

    def both(q, k, v):
        p = torch.softmax(q @ k.transpose(-2, -1), -1)
        return p @ v, p
    out, p = torch.compile(both, backend="clops", dynamic=False)(q, k, v)
    (out.sum() + p.square().sum()).backward()
    assert count(graphs, "forward", FUSED_FW) == 0 and "bmm" in graphs["forward"][0]


# -- HF GPT-2, eager attention ----------------------------------------------------

def hf_gpt2(dev, train):
    transformers = pytest.importorskip("transformers")
    cfg = transformers.GPT2Config(n_layer=2, n_head=2, n_embd=64, vocab_size=1000,
                                  n_positions=128, resid_pdrop=0.0, embd_pdrop=0.0,
                                  attn_pdrop=0.0)
    cfg._attn_implementation = "eager"
    torch.manual_seed(0)
    model = transformers.GPT2LMHeadModel(cfg).train(train).to(dev)
    ids = torch.randint(0, 1000, (2, 16), generator=torch.Generator().manual_seed(1)).to(dev)
    return model, ids, cfg


def test_hf_gpt2_eager_attention_compiles_onto_the_fused_kernel(dev, lowered, no_fallback):
    model, ids, cfg = hf_gpt2(dev, False)
    with torch.no_grad():
        before = launches()
        want = model(ids).logits
        n_eager = launches() - before
        compiled = torch.compile(model, backend="clops", dynamic=False)
        compiled(ids)
        lowered.clear()
        before = launches()
        got = compiled(ids).logits
        n = launches() - before
    assert len(lowered) == cfg.n_layer, len(lowered)
    assert_close(got, want, rtol=1e-4, atol=1e-4)
    assert n < n_eager, (n, n_eager)
    print(f"\nHF GPT-2 (2 layers, eager attention) forward: {n_eager} launches eager, "
          f"{n} compiled")


def test_hf_gpt2_eager_attention_trains_through_the_fused_kernels(dev, lowered, graphs,
                                                                 no_fallback):
    """GPT-2 with attn_implementation="eager", a training step compiled:
    every layer's attention runs the fused kernel forward and backward, and
    the loss and gradients are eager's within the fused kernel's rounding
    (its float32 sums in another order: 1e-4 relative to each gradient's
    largest element, the tolerance test_compile.py's GPT-2 block has)."""
    import copy
    model, ids, cfg = hf_gpt2(dev, True)
    twin = copy.deepcopy(model)

    def step(m, fn):
        m.zero_grad()
        loss = fn(m, ids)
        loss.backward()
        return loss.detach(), {n: p.grad.clone() for n, p in m.named_parameters()
                               if p.grad is not None}

    def loss_fn(m, x):
        return m(x, labels=x).loss
    l0, g0 = step(model, loss_fn)
    l1, g1 = step(twin, torch.compile(loss_fn, backend="clops", dynamic=False))
    assert count(graphs, "forward", FUSED_FW) == cfg.n_layer, graphs.get("forward")
    assert count(graphs, "backward", FUSED_BW) == cfg.n_layer
    assert_close(l1, l0, rtol=1e-5, atol=1e-6)
    assert g1.keys() == g0.keys()
    for n, g in g0.items():
        assert_close(g1[n], g, rtol=1e-4, atol=1e-4 * g.abs().max().item(),
                     msg=lambda m: f"grad of {n}: {m}")


# -- causal masks written out (_causal_masks) --------------------------------------

def _keep(q, k, shift):
    """key j <= query i + shift, built from aranges inside the graph."""
    i = torch.arange(q.size(-2), device=q.device)
    j = torch.arange(k.size(-2), device=q.device)
    return j[None, :] <= i[:, None] + shift


MASKS = {
    "bool": lambda keep, dt: keep,
    "additive -inf": lambda keep, dt: torch.zeros(keep.shape, dtype=dt, device=keep.device)
    .masked_fill(~keep, -math.inf),
    "additive dtype min": lambda keep, dt: torch.zeros(keep.shape, dtype=dt, device=keep.device)
    .masked_fill(~keep, torch.finfo(dt).min),
}


@pytest.mark.parametrize("style", list(MASKS))
def test_a_causal_mask_built_in_the_graph_becomes_is_causal(dev, style, no_fallback):
    """The causal mask computed from no graph input (aranges, a comparison,
    a fill: what transformers builds under tracing on PyTorch 2.11) is
    evaluated once at compile time and the attention gets is_causal instead:
    the same kernel call as eager's is_causal, so the same bits and as few
    launches (the mask's aranges, comparison and fill gone). A mask so
    built that keeps every score (shifted by the length: BERT's
    bidirectional mask without padding under tracing on PyTorch 2.11) is
    dropped: eager's call without a mask, bit for bit. A constant mask that
    is neither (a diagonal shifted by one) stays."""
    torch._dynamo.reset()
    torch.manual_seed(5)
    q, k, v = (torch.randn(2, 4, 16, 32).to(dev) for _ in range(3))

    def attend(shift):
        def fn(q, k, v):
            mask = MASKS[style](_keep(q, k, shift), q.dtype)
            return F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
        return fn

    with torch.no_grad():
        causal = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        before = launches()
        F.scaled_dot_product_attention(q, k, v, is_causal=True)
        n_causal = launches() - before
        unmasked = F.scaled_dot_product_attention(q, k, v)
        before = launches()
        F.scaled_dot_product_attention(q, k, v)
        n_unmasked = launches() - before
        for shift in (0, 1, 16):
            fn = attend(shift)
            want = fn(q, k, v)
            compiled = torch.compile(fn, backend="clops", dynamic=False)
            compiled(q, k, v)
            before = launches()
            got = compiled(q, k, v)
            n = launches() - before
            assert_close(got, want, rtol=1e-5, atol=1e-5)
            if shift == 0:
                assert torch.equal(got.cpu(), causal.cpu())
                assert n == n_causal, (n, n_causal)
            elif shift == 16:
                assert torch.equal(got.cpu(), unmasked.cpu())
                assert n == n_unmasked, (n, n_unmasked)
            else:
                assert n > n_causal and n > n_unmasked, (n, n_causal, n_unmasked)
                assert not torch.equal(got.cpu(), causal.cpu())
                assert not torch.equal(got.cpu(), unmasked.cpu())
            torch._dynamo.reset()


@pytest.mark.parametrize("style", ["bool", "additive dtype min"])
def test_a_causal_mask_built_in_a_training_graph_is_causal_forward_and_backward(
        dev, style, graphs, no_fallback):
    """In a graph that trains, the mask is saved for the backward call below
    autograd, so the pass runs above it (_lower_attention_above_autograd):
    autograd then differentiates an is_causal call, and both the fused
    forward and its backward run causal, no mask built or read: eager
    is_causal's kernels, so eager is_causal's output and gradients bit for
    bit. A mask that keeps every score (shifted by the length) is dropped
    both ways: eager's unmasked output and gradients bit for bit. A mask
    that is neither (shifted by one) stays, masked both ways."""
    torch._dynamo.reset()
    torch.manual_seed(6)
    q, k, v = (torch.randn(2, 4, 16, 32).to(dev).requires_grad_() for _ in range(3))

    def grads(fn):
        for t in (q, k, v):
            t.grad = None
        out = fn(q, k, v)
        out.square().sum().backward()
        return [out.detach()] + [t.grad.clone() for t in (q, k, v)]

    want = grads(lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True))
    want_all = grads(lambda q, k, v: F.scaled_dot_product_attention(q, k, v))
    for shift in (0, 1, 16):
        graphs.clear()

        def fn(q, k, v):
            mask = MASKS[style](_keep(q, k, shift), q.dtype)
            return F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
        got = grads(torch.compile(fn, backend="clops", dynamic=False))
        fw, bw = graphs["forward"][0], graphs["backward"][0]
        assert count(graphs, "forward", FUSED_FW) == 1 and count(graphs, "backward", FUSED_BW) == 1
        if shift == 0:
            # no mask (None after the value) and is_causal, both calls
            assert "arange" not in fw + bw and "primals_3, None, 0.0, True)" in fw, fw
            assert "primals_3, None, [" in bw and ", 0.0, True, " in bw, bw
            for a, b in zip(got, want):
                assert torch.equal(a.cpu(), b.cpu())
        elif shift == 16:
            # no mask and not causal, both calls
            assert "arange" not in fw + bw, fw + bw
            assert "_overrideable.default(primals_1, primals_2, primals_3)" in fw, fw
            assert "primals_3, None, [" in bw and ", 0.0, False, " in bw, bw
            for a, b in zip(got, want_all):
                assert torch.equal(a.cpu(), b.cpu())
        else:
            assert "arange" in fw and "primals_3, None, [" not in bw, bw
            assert not torch.equal(got[0].cpu(), want[0].cpu())
        torch._dynamo.reset()
