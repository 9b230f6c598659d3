# SPDX-License-Identifier: Apache-2.0
"""torch.compile(model, backend="clops") on whole models from libraries nobody
here wrote: GPT-2, a Llama-style decoder (grouped-query attention, RoPE,
RMSNorm, SwiGLU), BERT (transformers) and ResNet-18 (torchvision), forward
and one training step (loss.backward, then the optimizer's step), compiled
against the same model run eagerly on the clops device: logits, loss,
gradients and the updated weights within the tolerances below, and no op
through the CPU fallback in either run.

Tiny configurations here (2 layers, 64 wide; ResNet-18 on 32x32 images),
each model well under 30 s on POCL; the published sizes (GPT-2 124M, a
Llama-style decoder of that size, BERT-base, ResNet-18 at 224x224 with 1000
classes) with CLOPS_TEST_MODELS=1 (the GPU job).

Tolerances.  Forward: the compiled graph's fused pointwise kernels are
eager's arithmetic (bit for bit, docs/torch.md), its fused epilogues
(bias, activation, residual in the product's accumulator) and POCL's
vector-vs-scalar built-ins differ in the last float32 bits, and those
differences pass through every later layer: 1e-4 of the largest logit.
Gradients: AOT autograd accumulates them in another order: 1e-3 relative,
1e-5 of each gradient's largest element.  Weights after one AdamW step:
each moves by about lr * sign(grad): within 5% of lr where |grad| >= 1e-6
(100 times AdamW's eps), within 2 lr where a gradient near zero may flip.
"""
import copy
import os

import pytest
import torch

import clops.torch  # noqa: F401
from conftest import assert_close

transformers = pytest.importorskip("transformers")
torchvision = pytest.importorskip("torchvision")

F = torch.nn.functional
FULL = os.environ.get("CLOPS_TEST_MODELS") == "1"
LR = 1e-3


def transformer(name, full, attn="sdpa"):
    """(model, token ids, loss_fn) for gpt2, llama or bert."""
    if name == "gpt2":
        cfg = (transformers.GPT2Config() if full else transformers.GPT2Config(
            n_layer=2, n_head=2, n_embd=64, vocab_size=1000, n_positions=128))
        cfg.resid_pdrop = cfg.embd_pdrop = cfg.attn_pdrop = 0.0
        cls = transformers.GPT2LMHeadModel
    elif name == "llama":
        cfg = transformers.LlamaConfig(
            vocab_size=32000 if full else 1000, hidden_size=768 if full else 64,
            intermediate_size=2048 if full else 128, num_hidden_layers=12 if full else 2,
            num_attention_heads=12 if full else 4, num_key_value_heads=4 if full else 2,
            max_position_embeddings=1024 if full else 128)
        cls = transformers.LlamaForCausalLM
    else:
        cfg = (transformers.BertConfig() if full else transformers.BertConfig(
            vocab_size=1000, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
            num_attention_heads=4, max_position_embeddings=128))
        cfg.hidden_dropout_prob = cfg.attention_probs_dropout_prob = 0.0
        cls = transformers.BertForMaskedLM
    cfg._attn_implementation = attn
    torch.manual_seed(0)
    model = cls(cfg)
    g = torch.Generator().manual_seed(1)
    ids = torch.randint(0, cfg.vocab_size, (2, 128 if full else 16), generator=g)
    return model, ids, (lambda m, x: m(x).logits), (lambda m, x: m(x, labels=x).loss)


def resnet(full):
    torch.manual_seed(0)
    model = torchvision.models.resnet18(num_classes=1000 if full else 10)
    side = 224 if full else 32
    x = torch.randn(2, 3, side, side, generator=torch.Generator().manual_seed(2))
    y = torch.tensor([1, 7])
    return (model, x, (lambda m, x: m(x)),
            (lambda m, x: F.cross_entropy(m(x), y.to(x.device))))


def build(name, full, attn="sdpa"):
    return resnet(full) if name == "resnet18" else transformer(name, full, attn)


def no_fallback(label):
    counts = torch.clops.fallback_counts()
    assert counts == {}, f"{label}: ops ran on the CPU: {counts}"


def forward(name, dev, full, attn="sdpa"):
    model, x, logits, _ = build(name, full, attn)
    model = model.to(dev).eval()
    x = x.to(dev)
    compiled = torch.compile(logits, backend="clops")
    with torch.no_grad():
        torch.clops.reset_fallback_counts()
        want = logits(model, x)
        no_fallback(f"{name} eager forward")
        got = compiled(model, x)
        no_fallback(f"{name} compiled forward")
    assert got.dtype == want.dtype and got.shape == want.shape
    assert_close(got, want, rtol=1e-4, atol=1e-4 * want.abs().max().item())


def train_step(model, x, loss_fn, opt):
    opt.zero_grad()
    loss = loss_fn(model, x)
    loss.backward()
    grads = {n: p.grad.detach().clone() for n, p in model.named_parameters()
             if p.grad is not None}
    opt.step()
    return loss.detach(), grads


def training(name, dev, full, attn="sdpa"):
    """One training step eager and one compiled, from the same weights."""
    model, x, _, loss_fn = build(name, full, attn)
    model = model.to(dev).train()
    twin = copy.deepcopy(model)
    x = x.to(dev)
    compiled = torch.compile(loss_fn, backend="clops")
    torch.clops.reset_fallback_counts()
    l0, g0 = train_step(model, x, loss_fn, torch.optim.AdamW(model.parameters(), lr=LR))
    no_fallback(f"{name} eager training step")
    l1, g1 = train_step(twin, x, compiled, torch.optim.AdamW(twin.parameters(), lr=LR))
    no_fallback(f"{name} compiled training step")
    assert_close(l1, l0, rtol=1e-5, atol=1e-6)
    assert g1.keys() == g0.keys() and g0
    for n, g in g0.items():
        assert_close(g1[n], g, rtol=1e-3, atol=1e-5 * g.abs().max().item(),
                     msg=lambda m: f"grad of {n}: {m}")
    for (n, p), (_, q) in zip(model.named_parameters(), twin.named_parameters()):
        # where |grad| is 100 times AdamW's eps (1e-8) or more the step is
        # lr * sign(grad) within 1%: 5% of lr; nearer zero (GPT-2 124M's
        # tied embedding has such elements) the two gradients' last bits
        # may flip the sign: at most the 2 lr between the two steps
        big = g0[n].abs() >= 1e-6 if n in g0 else torch.ones_like(p, dtype=torch.bool)
        d = (q.detach() - p.detach()).abs()
        assert d[big].max().item() <= 0.05 * LR if big.any() else True, n
        assert d.max().item() <= 2.01 * LR, n
    # batch-norm statistics (ResNet): the compiled graph updates them as eager
    for (n, b), (_, c) in zip(model.named_buffers(), twin.named_buffers()):
        if b.is_floating_point():
            assert_close(c, b, rtol=1e-4, atol=1e-5, msg=lambda m: f"{n}: {m}")
        else:
            assert torch.equal(c.cpu(), b.cpu()), n


MODELS = ["gpt2", "llama", "bert", "resnet18"]


@pytest.fixture(autouse=True)
def fresh_dynamo():
    torch._dynamo.reset()
    yield
    torch._dynamo.reset()


@pytest.mark.parametrize("name", MODELS)
def test_model_forward_compiled_matches_eager(dev, name):
    forward(name, dev, False)


@pytest.mark.parametrize("name", MODELS)
def test_model_training_step_compiled_matches_eager(dev, name):
    training(name, dev, False)


@pytest.mark.skipif(not FULL, reason="the published sizes: CLOPS_TEST_MODELS=1")
@pytest.mark.parametrize("name", MODELS)
def test_full_size_model_forward_compiled_matches_eager(dev, name):
    forward(name, dev, True)


@pytest.mark.skipif(not FULL, reason="the published sizes: CLOPS_TEST_MODELS=1")
@pytest.mark.parametrize("name", MODELS)
def test_full_size_model_training_step_compiled_matches_eager(dev, name):
    training(name, dev, True)


def forward_16bit(name, dev, autocast):
    """bfloat16 weights (or float32 weights under bfloat16 autocast) through
    compile: no CPU fallback, and the compiled logits as close to the same
    model in float64 (from the weights the run reads: rounded to bfloat16
    for a bfloat16 model) as eager's are, within a half: the fused
    epilogues apply the activation to the product's float32 accumulator
    before the one rounding where eager rounds the pre-activation value to
    bfloat16 first, so the two differ by about an ulp of the dtype at the
    largest logit (POCL, small models: 3.4e-3 to 6e-3 of it), each about
    as far from float64 (docs/torch.md)."""
    model, x, logits, _ = build(name, False)
    # biases and norm weights start at 0 and 1: random ones, so that a lost
    # bias or weight shows
    g = torch.Generator().manual_seed(3)
    with torch.no_grad():
        for p in model.parameters():
            if p.dim() == 1:
                p.add_(0.2 * torch.randn(p.shape, generator=g))
    ref = copy.deepcopy(model)
    if not autocast:
        model = model.to(torch.bfloat16)
        ref = ref.to(torch.bfloat16)
    ref = ref.double().eval()
    model = model.to(dev).eval()
    compiled = torch.compile(logits, backend="clops")
    with torch.no_grad(), torch.autocast(dev.type, dtype=torch.bfloat16, enabled=autocast):
        torch.clops.reset_fallback_counts()
        want = logits(model, x.to(dev))
        no_fallback(f"{name} eager forward")
        got = compiled(model, x.to(dev))
        no_fallback(f"{name} compiled forward")
    assert got.dtype == want.dtype == torch.bfloat16 and got.shape == want.shape
    with torch.no_grad():
        exact = logits(ref, x)
    want, got = want.double().cpu(), got.double().cpu()
    top = exact.abs().max().item()
    err_eager = (want - exact).abs().max().item()
    err_compiled = (got - exact).abs().max().item()
    assert err_compiled <= 1.5 * err_eager + 2 ** -9 * top, (
        f"{name}: compiled error {err_compiled:.3g} against float64, eager's {err_eager:.3g}")
    assert (got - want).abs().max().item() <= 2 ** -6 * top, name


@pytest.mark.parametrize("autocast", [False, True], ids=["bfloat16", "autocast"])
@pytest.mark.parametrize("name", ["gpt2", "llama", "bert"])
def test_model_forward_in_bfloat16_compiled_is_as_close_as_eager(dev, name, autocast):
    forward_16bit(name, dev, autocast)
