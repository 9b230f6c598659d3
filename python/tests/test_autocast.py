# SPDX-License-Identifier: Apache-2.0
"""torch.autocast("clops") with PyTorch's op lists (registered by the bridge
for the AutocastPrivateUse1 key), against CPU autocast."""
import copy

import pytest
import torch

import clops.torch  # noqa: F401
from conftest import assert_close


def model(seed=0):
    torch.manual_seed(seed)
    return torch.nn.Sequential(torch.nn.Linear(32, 24), torch.nn.ReLU(), torch.nn.Linear(24, 8))


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
def test_linear_relu_under_autocast(dev, dtype):
    m, x = model(), torch.randn(6, 32)
    md = copy.deepcopy(m).to(dev)
    with torch.autocast("cpu", dtype=dtype):
        ref = m(x)
    with torch.autocast("clops", dtype=dtype):
        out = md(x.to(dev))
        assert torch.is_autocast_enabled("clops")
        assert torch.get_autocast_dtype("clops") == dtype
    assert not torch.is_autocast_enabled("clops")
    assert ref.dtype == dtype and out.dtype == dtype
    eps = torch.finfo(dtype).eps
    assert_close(out.float(), ref.float(), rtol=4 * eps, atol=4 * eps * ref.abs().max().item())
    # the parameters stay float32, and so do their gradients
    out.float().sum().backward()
    assert md[0].weight.dtype == torch.float32 and md[0].weight.grad.dtype == torch.float32
    ref.float().sum().backward()
    assert_close(md[0].weight.grad, m[0].weight.grad, rtol=0.05,
                 atol=0.05 * m[0].weight.grad.abs().max().item())


def test_policies(dev):
    a = torch.randn(4, 4, device=dev)
    h = a.to(torch.bfloat16)
    with torch.autocast("clops", dtype=torch.bfloat16):
        assert (a @ a).dtype == torch.bfloat16            # lower precision
        assert torch.softmax(h, -1).dtype == torch.float32  # float32
        assert torch.exp(h).dtype == torch.float32
        assert h.sum().dtype == torch.float32               # fp32_set_opt_dtype
        assert torch.addcmul(a, h, h).dtype == torch.float32  # promote
        assert (a + 1).dtype == torch.float32               # not listed: unchanged
        with pytest.raises(RuntimeError, match="unsafe to autocast"):
            torch.nn.functional.binary_cross_entropy(torch.rand(3, device=dev),
                                                     torch.rand(3, device=dev))
    assert (a @ a).dtype == torch.float32


def test_unsupported_dtype_is_refused_like_pytorch(dev):
    with pytest.warns(UserWarning):
        with torch.autocast("clops", dtype=torch.float64):
            pass


def test_gpt2_forward_under_autocast(dev):
    """transformers' GPT-2 under bfloat16 autocast against CPU autocast: every
    op on the device (no CPU fallback), logits within 2% of the largest."""
    transformers = pytest.importorskip("transformers")
    cfg = transformers.GPT2Config(n_layer=2, n_head=2, n_embd=64, vocab_size=1000, n_positions=128,
                                  resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0)
    torch.manual_seed(0)
    m = transformers.GPT2LMHeadModel(cfg).eval()
    ids = torch.randint(0, 1000, (2, 16))
    with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16):
        ref = m(ids).logits
    md = copy.deepcopy(m).to(dev)
    torch.clops.reset_fallback_counts()
    with torch.no_grad(), torch.autocast("clops", dtype=torch.bfloat16):
        out = md(ids.to(dev)).logits
    assert torch.clops.fallback_counts() == {}
    assert ref.dtype == out.dtype == torch.bfloat16
    assert_close(out.float(), ref.float(), rtol=0, atol=0.02 * ref.abs().max().item())
