# SPDX-License-Identifier: Apache-2.0
"""Real models from libraries nobody here wrote, on the clops device against
the CPU: GPT-2 (transformers) forward logits and one AdamW training step, and
ResNet-18 (torchvision) forward in eval mode and one SGD training step.
Random weights with fixed seeds, no downloads.  The fallback counts of each run
are printed (pytest -s shows them), recorded in docs/torch.md, and must be
zero: every op of both models has a clops kernel."""
import copy

import pytest
import torch

import clops.torch  # noqa: F401
from conftest import assert_close

transformers = pytest.importorskip("transformers")
torchvision = pytest.importorskip("torchvision")


def gpt2(seed=0):
    cfg = transformers.GPT2Config(n_layer=2, n_head=2, n_embd=64, vocab_size=1000, n_positions=128,
                                  resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0)
    torch.manual_seed(seed)
    return transformers.GPT2LMHeadModel(cfg).eval()


def tokens(seed=1, batch=2, length=16):
    g = torch.Generator().manual_seed(seed)
    return torch.randint(0, 1000, (batch, length), generator=g)


def report(label):
    counts = torch.clops.fallback_counts()
    print(f"\n[{label}] CPU fallbacks: {sum(counts.values())} calls, {len(counts)} ops")
    print(torch.clops.fallback_table(counts))
    assert counts == {}, f"{label}: ops ran on the CPU: {counts}"


def test_gpt2_forward_matches_cpu(dev):
    model, ids = gpt2(), tokens()
    with torch.no_grad():
        ref = model(ids).logits
        torch.clops.reset_fallback_counts()
        out = copy.deepcopy(model).to(dev)(ids.to(dev)).logits
    report("gpt2 forward")
    assert out.device == dev
    assert_close(out, ref, rtol=1e-4, atol=1e-4 * ref.abs().max().item())


def test_gpt2_bfloat16_forward_matches_cpu(dev):
    model, ids = gpt2().to(torch.bfloat16), tokens()
    with torch.no_grad():
        ref = model(ids).logits.float()
        torch.clops.reset_fallback_counts()
        out = copy.deepcopy(model).to(dev)(ids.to(dev)).logits
    report("gpt2 bfloat16 forward")
    assert out.dtype == torch.bfloat16
    # bfloat16 keeps 8 bits of mantissa: both sides round every op's result,
    # in different orders of summation.
    assert_close(out.float(), ref, rtol=0, atol=0.05 * ref.abs().max().item())


def test_gpt2_training_step_matches_cpu(dev):
    model, ids = gpt2(), tokens()
    dmodel = copy.deepcopy(model).to(dev).train()
    model.train()

    lr = 1e-3

    def step(m, x):
        opt = torch.optim.AdamW(m.parameters(), lr=lr, foreach=False)
        loss = m(x, labels=x).loss
        loss.backward()
        grads = [p.grad.detach().clone() for p in m.parameters()]
        opt.step()
        return loss, grads

    ref_loss, ref_grads = step(model, ids)
    torch.clops.reset_fallback_counts()
    loss, grads = step(dmodel, ids.to(dev))
    report("gpt2 training step")
    assert_close(loss, ref_loss, rtol=1e-5, atol=1e-6)
    names = [n for n, _ in model.named_parameters()]
    assert names == [n for n, _ in dmodel.named_parameters()]  # tied weights stay tied
    for name, g, h in zip(names, ref_grads, grads):
        scale = g.abs().max().item()
        assert_close(h, g, rtol=1e-3, atol=1e-5 * scale, msg=lambda m: f"grad of {name}: {m}")
    # AdamW's first step moves each weight by about lr * sign(grad): a
    # gradient element near eps (1e-8) may flip, so compare to a share of lr.
    for (name, p), (_, q) in zip(model.named_parameters(), dmodel.named_parameters()):
        assert_close(q, p, rtol=0, atol=0.05 * lr, msg=lambda m: f"{name}: {m}")


def resnet18(seed=0):
    torch.manual_seed(seed)
    return torchvision.models.resnet18(num_classes=10)


def test_resnet18_eval_forward_matches_cpu(dev):
    model = resnet18().eval()
    x = torch.randn(1, 3, 64, 64, generator=torch.Generator().manual_seed(2))
    with torch.no_grad():
        ref = model(x)
        torch.clops.reset_fallback_counts()
        out = copy.deepcopy(model).to(dev)(x.to(dev))
    report("resnet18 eval forward")
    assert_close(out, ref, rtol=1e-4, atol=1e-4)


def test_resnet18_training_step_matches_cpu(dev):
    model = resnet18().train()
    dmodel = copy.deepcopy(model).to(dev)
    x = torch.randn(2, 3, 64, 64, generator=torch.Generator().manual_seed(3))
    y = torch.tensor([1, 7])

    def step(m, x, y):
        opt = torch.optim.SGD(m.parameters(), lr=0.1, momentum=0.9, foreach=False)
        loss = torch.nn.functional.cross_entropy(m(x), y)
        loss.backward()
        opt.step()
        return loss

    ref_loss = step(model, x, y)
    torch.clops.reset_fallback_counts()
    loss = step(dmodel, x.to(dev), y.to(dev))
    report("resnet18 training step")
    assert_close(loss, ref_loss, rtol=1e-4, atol=1e-5)
    for (name, p), (_, q) in zip(model.named_parameters(), dmodel.named_parameters()):
        assert_close(q, p, rtol=1e-3, atol=1e-4, msg=lambda m: f"{name}: {m}")
    for (name, b), (_, c) in zip(model.named_buffers(), dmodel.named_buffers()):
        assert_close(c, b, rtol=1e-4, atol=1e-5, msg=lambda m: f"{name}: {m}")
