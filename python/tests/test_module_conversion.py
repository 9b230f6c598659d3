# SPDX-License-Identifier: Apache-2.0
"""module.to("clops") after the module ran on the CPU, tied weights, and the
Parameter objects a conversion keeps (clops.torch's Module._apply)."""
import copy

import pytest
import torch

import clops.torch  # noqa: F401
from conftest import assert_close


def test_swap_flag_is_not_forced_on():
    assert not torch.__future__.get_swap_module_params_on_conversion()


def test_conv_to_clops_after_a_cpu_forward(dev):
    torch.manual_seed(0)
    conv = torch.nn.Conv2d(32, 48, 3)
    x = torch.randn(2, 32, 17, 19)
    y = conv(x)  # autograd on: the graph holds conv's weight and bias
    w_cpu = conv.weight
    conv.to(dev)
    assert conv.weight.device == dev and conv.bias.device == dev
    out = conv(x.to(dev))
    assert_close(out, y.detach(), rtol=1e-4, atol=1e-4)
    # the CPU graph still runs its backward into the CPU tensors it used
    y.sum().backward()
    assert w_cpu.grad is not None and w_cpu.grad.device.type == "cpu"
    out.sum().backward()
    assert conv.weight.grad.device == dev
    assert_close(conv.weight.grad, w_cpu.grad, rtol=1e-3, atol=1e-3)


def test_parameters_keep_their_objects(dev):
    """Nothing else holds the tensors: the module's Parameter objects stay, so
    an optimizer built before the move updates the moved weights, and
    attributes set on a parameter survive."""
    torch.manual_seed(0)
    lin = torch.nn.Linear(5, 3)
    lin(torch.randn(2, 5)).sum().backward()  # grads exist, the graph is gone
    w = lin.weight
    w.note = "kept"
    opt = torch.optim.SGD(lin.parameters(), lr=0.1)
    lin.to(dev)
    assert lin.weight is w and w.device == dev and w.note == "kept"
    assert w.grad is not None and w.grad.device == dev
    before = w.detach().cpu().clone()
    opt.step()
    assert_close(lin.weight, before - 0.1 * w.grad.cpu())
    lin.cpu()
    assert lin.weight is w and w.device.type == "cpu" and w.grad.device.type == "cpu"


class Tied(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = torch.nn.Embedding(20, 8)
        self.body = torch.nn.Linear(8, 8)
        self.head = torch.nn.Linear(8, 20, bias=False)
        self.head.weight = self.emb.weight

    def forward(self, ids):
        return self.head(torch.tanh(self.body(self.emb(ids))))


@pytest.mark.parametrize("graph_alive", [False, True])
def test_tied_weights_stay_tied(dev, graph_alive):
    torch.manual_seed(0)
    m, ids = Tied(), torch.tensor([[1, 5, 7], [2, 3, 19]])
    ref = m(ids)
    if not graph_alive:
        ref = ref.detach()
    m.to(dev)
    assert m.head.weight is m.emb.weight
    assert m.emb.weight.device == dev
    assert len(list(m.parameters())) == 3
    out = m(ids.to(dev))
    assert_close(out, ref.detach(), rtol=1e-4, atol=1e-5)
    out.sum().backward()  # both uses accumulate into the one parameter
    assert m.emb.weight.grad.device == dev


@pytest.mark.parametrize("graph_alive", [False, True])
def test_gpt2_lm_head_stays_tied(dev, graph_alive):
    transformers = pytest.importorskip("transformers")
    cfg = transformers.GPT2Config(n_layer=1, n_head=2, n_embd=32, vocab_size=100, n_positions=32,
                                  resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0)
    torch.manual_seed(0)
    model = transformers.GPT2LMHeadModel(cfg)
    assert model.lm_head.weight is model.transformer.wte.weight
    ids = torch.randint(0, 100, (1, 8))
    ref = model(ids).logits
    if not graph_alive:
        ref = ref.detach()
    model.to("clops")
    assert model.lm_head.weight is model.transformer.wte.weight
    assert model.lm_head.weight.device == dev
    with torch.no_grad():
        out = model(ids.to(dev)).logits
    assert_close(out, ref.detach(), rtol=1e-4, atol=1e-4 * ref.abs().max().item())


def test_user_swap_flag_is_honoured(dev):
    """A process that turned PyTorch's swap on gets PyTorch's behaviour,
    including its refusal after a CPU forward."""
    conv = torch.nn.Conv2d(2, 2, 1)
    torch.__future__.set_swap_module_params_on_conversion(True)
    try:
        w = conv.weight
        conv.to(dev)
        assert conv.weight is w
        y = conv(torch.randn(1, 2, 3, 3, device=dev))
        with pytest.raises(RuntimeError, match="Couldn't swap"):
            conv.cpu()
        del y
    finally:
        torch.__future__.set_swap_module_params_on_conversion(False)


def test_user_overwrite_flag_is_honoured(dev):
    """set_overwrite_module_params_on_conversion(True) asks for new objects."""
    lin = torch.nn.Linear(2, 2)
    w = lin.weight
    torch.__future__.set_overwrite_module_params_on_conversion(True)
    try:
        lin.to(dev)
        assert lin.weight is not w and lin.weight.device == dev
    finally:
        torch.__future__.set_overwrite_module_params_on_conversion(False)


def test_deepcopy_and_dtype_conversion_unchanged(dev):
    lin = torch.nn.Linear(4, 4).to(dev)
    w = lin.weight
    lin.double()  # compatible types: PyTorch's in-place path, same object
    assert lin.weight is w and w.dtype == torch.float64
    twin = copy.deepcopy(lin)
    assert twin.weight is not w and twin.weight.device == dev
