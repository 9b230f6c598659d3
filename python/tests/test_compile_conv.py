# SPDX-License-Identifier: Apache-2.0
"""Convolution epilogues: clops' _clops_conv_epilogue op (convolution + bias
+ eval batch norm + activation + residual add; dispatch/inventory/conv.yaml,
docs/conv.md) against PyTorch's CPU modules run one by one, and
torch.compile(backend="clops") lowering a convolution and its consumers onto
it (clops/torch/_compile.py): a residual block, torchvision's ResNet-18 and
MobileNetV3 in eval mode give eager's results in fewer kernel launches."""
import os

import pytest
import torch

import clops.torch  # noqa: F401
from clops.torch import _C
from conftest import assert_close

F = torch.nn.functional

# gemm_act numbers (ops/gemm/gemm.h) and PyTorch's modules
ACTS = {0: torch.nn.Identity(), 1: torch.nn.ReLU(), 2: torch.nn.ReLU6(),
        3: torch.nn.Hardswish(), 4: torch.nn.SiLU(), 5: torch.nn.GELU(),
        6: torch.nn.GELU(approximate="tanh"), 7: torch.nn.Sigmoid()}


def launches():
    return torch.clops.device_counters()["launches"]


def gen(seed):
    return torch.Generator().manual_seed(seed)


def bn_eval(c, seed):
    """A BatchNorm with random statistics and affine, in eval mode."""
    bn = torch.nn.BatchNorm2d(c).eval()
    g = gen(seed)
    with torch.no_grad():
        bn.weight.copy_(torch.rand(c, generator=g) + 0.5)
        bn.bias.copy_(torch.randn(c, generator=g))
        bn.running_mean.copy_(torch.randn(c, generator=g))
        bn.running_var.copy_(torch.rand(c, generator=g) + 0.25)
    return bn


CASES = [
    # (Conv2d kwargs, input shape, activation, residual: 0 none, 1 before the
    # activation, 2 after it)
    (dict(in_channels=8, out_channels=16, kernel_size=3, padding=1, bias=False),
     (2, 8, 9, 7), 1, 1),                                    # ResNet's conv, BN, + x, relu
    (dict(in_channels=16, out_channels=16, kernel_size=3, stride=2, padding=1, groups=16,
          bias=False), (2, 16, 9, 9), 3, 0),                 # MobileNet's depthwise + hardswish
    (dict(in_channels=6, out_channels=8, kernel_size=(3, 2), stride=(2, 1), dilation=(1, 2),
          groups=2), (2, 6, 11, 8), 4, 2),
    (dict(in_channels=8, out_channels=12, kernel_size=1), (1, 8, 5, 6), 2, 0),
    (dict(in_channels=4, out_channels=4, kernel_size=3, padding=1, bias=False),
     (2, 4, 6, 6), 5, 1),
]


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.float16])
@pytest.mark.parametrize("channels_last", [False, True])
@pytest.mark.parametrize("case", range(len(CASES)))
def test_conv_epilogue_matches_the_modules_one_by_one(dev, dtype, channels_last, case,
                                                      no_fallback):
    """Conv2d -> BatchNorm2d (eval) -> [+ residual] -> activation [-> +
    residual] on PyTorch's CPU in float32, against one _clops_conv_epilogue
    call on the clops device (inputs rounded to dtype on both sides)."""
    kw, xs, act, where = CASES[case]
    torch.manual_seed(case)
    conv = torch.nn.Conv2d(**kw).eval()
    bn = bn_eval(kw["out_channels"], case)
    with torch.no_grad():
        for p in list(conv.parameters()) + list(bn.parameters()) + list(bn.buffers()):
            p.copy_(p.to(dtype).float())
        x = torch.randn(*xs, generator=gen(10 + case)).to(dtype).float()
        y0 = conv(x)
        r = torch.randn(*y0.shape, generator=gen(20 + case)).to(dtype).float()
        want = bn(y0)
        if where == 1:
            want = want + r
        want = ACTS[act](want)
        if where == 2:
            want = want + r
    fmt = torch.channels_last if channels_last else torch.contiguous_format
    dx = x.to(dtype).contiguous(memory_format=fmt).to(dev)   # strides kept
    dr = r.to(dev, dtype)
    on = lambda t: None if t is None else t.detach().to(dev, dtype)  # noqa: E731
    args = (dx, on(conv.weight), on(conv.bias), list(conv.stride), list(conv.padding),
            list(conv.dilation), False, [0, 0], conv.groups, on(bn.weight), on(bn.bias),
            on(bn.running_mean), on(bn.running_var), bn.eps, dr if where else None, act,
            where == 2)
    got = _C.conv_epilogue(*args)
    assert got.dtype == dtype and got.shape == want.shape
    assert got.is_contiguous(memory_format=fmt)
    # float32: sums of up to 72 products; half types: the rounding of the
    # result (and, on the engine's path, of the folded weight) in the dtype
    tol = {torch.float32: 1e-4, torch.float16: 2e-2, torch.bfloat16: 8e-2}[dtype]
    scale = want.abs().max().item() + 1
    assert_close(got.float(), want, rtol=tol, atol=tol * scale)
    assert torch.equal(_C.conv_epilogue(*args).cpu(), got.cpu())   # the same bits again


def test_transposed_and_3d_convolutions_take_the_epilogue_too(dev, no_fallback):
    torch.manual_seed(5)
    x = torch.randn(2, 4, 5, 4)
    w = torch.randn(4, 3, 3, 3)
    b = torch.randn(3)
    r = torch.randn(2, 3, 10, 8)
    want = torch.relu(F.conv_transpose2d(x, w, b, stride=2, padding=1, output_padding=1) + r)
    got = _C.conv_epilogue(x.to(dev), w.to(dev), b.to(dev), [2, 2], [1, 1], [1, 1], True,
                           [1, 1], 1, None, None, None, None, 1e-5, r.to(dev), 1, False)
    assert_close(got, want, rtol=1e-4, atol=1e-4)
    x3 = torch.randn(1, 2, 4, 5, 3)
    w3 = torch.randn(4, 2, 2, 3, 2)
    s, t = torch.rand(4) + 0.5, torch.randn(4)
    want = F.silu(F.conv3d(x3, w3, padding=1) * s.view(4, 1, 1, 1) + t.view(4, 1, 1, 1))
    got = _C.conv_epilogue(x3.to(dev), w3.to(dev), None, [1], [1], [1], False, [0], 1,
                           s.to(dev), t.to(dev), None, None, 1e-5, None, 4, False)
    assert_close(got, want, rtol=1e-4, atol=1e-4)


def test_bad_arguments_are_refused(dev):
    x = torch.randn(2, 3, 5, 5).to(dev)
    w = torch.randn(6, 3, 3, 3).to(dev)
    with pytest.raises(RuntimeError, match="scale must be 1-dimensional with 6 elements"):
        _C.conv_epilogue(x, w, None, [1], [0], [1], False, [0], 1, torch.ones(5).to(dev),
                         None, None, None, 1e-5, None, 0, False)
    with pytest.raises(RuntimeError, match="activation 9 is not one of"):
        _C.conv_epilogue(x, w, None, [1], [0], [1], False, [0], 1, None, None, None, None,
                         1e-5, None, 9, False)


# -- compile lowering -----------------------------------------------------------

class Block(torch.nn.Module):
    """A ResNet basic block and a MobileNet-style depthwise/pointwise pair:
    conv-BN-relu, conv-BN + identity then relu, depthwise conv-BN-hardswish,
    1x1 conv-BN + residual (no activation), conv with bias + relu6."""

    def __init__(self, c=8):
        super().__init__()
        self.c1, self.b1 = torch.nn.Conv2d(c, c, 3, padding=1, bias=False), bn_eval(c, 1)
        self.c2, self.b2 = torch.nn.Conv2d(c, c, 3, padding=1, bias=False), bn_eval(c, 2)
        self.c3, self.b3 = torch.nn.Conv2d(c, c, 3, padding=1, groups=c, bias=False), bn_eval(c, 3)
        self.c4, self.b4 = torch.nn.Conv2d(c, c, 1, bias=False), bn_eval(c, 4)
        self.c5 = torch.nn.Conv2d(c, c, 3, padding=1)

    def forward(self, x):
        y = F.relu(self.b1(self.c1(x)))
        y = F.relu(self.b2(self.c2(y)) + x)
        z = F.hardswish(self.b3(self.c3(y)))
        z = self.b4(self.c4(z)) + y
        return F.relu6(self.c5(z))


def compiled_and_eager(model, x, lowered=True):
    """eager's result and launches, the compiled model's (lowering
    convolution epilogues or not: CLOPS_COMPILE_CONV_EPILOGUES), and a
    second compiled result."""
    old = os.environ.pop("CLOPS_COMPILE_CONV_EPILOGUES", None)
    if not lowered:
        os.environ["CLOPS_COMPILE_CONV_EPILOGUES"] = "0"
    try:
        with torch.no_grad():
            model(x)
            before = launches()
            want = model(x)
            n_eager = launches() - before
            compiled = torch.compile(model, backend="clops", dynamic=False)
            compiled(x)
            before = launches()
            got = compiled(x)
            n = launches() - before
            again = compiled(x)
    finally:
        os.environ.pop("CLOPS_COMPILE_CONV_EPILOGUES", None)
        if old is not None:
            os.environ["CLOPS_COMPILE_CONV_EPILOGUES"] = old
        torch._dynamo.reset()
    return want, n_eager, got, n, again


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
@pytest.mark.parametrize("channels_last", [False, True])
def test_a_block_compiles_to_one_call_per_convolution(dev, channels_last, dtype, no_fallback):
    torch.manual_seed(0)
    model = Block().eval().to(dtype)
    x = torch.randn(2, 8, 9, 9).to(dtype)
    if channels_last:   # on the CPU, then moved: .to(device) keeps the strides
        model = model.to(memory_format=torch.channels_last)
        x = x.contiguous(memory_format=torch.channels_last)
    model, x = model.to(dev), x.to(dev)
    want, n_eager, got, n, again = compiled_and_eager(model, x)
    assert got.shape == want.shape and got.stride() == want.stride() and got.dtype == dtype
    # bfloat16: eager rounds after each op, the fused call once (and the
    # folded weight once), through five layers
    tol = 1e-4 if dtype == torch.float32 else 2e-2
    scale = want.float().abs().max().item() + 1
    assert_close(got.float(), want.float(), rtol=tol, atol=tol * scale)
    assert torch.equal(again.cpu(), got.cpu())
    # On the matrix engine (float16/bfloat16, float32 on CPU devices) five
    # convolutions, each one fold (where a batch norm is) and one GEMM at
    # most, where eager runs conv, BN, activation, add separately (and a
    # weight copy for the engine's order): here 9 against 38 in float32, 57
    # in bfloat16.  Elsewhere (float32 on GPUs: im2col + CLBlast) each
    # convolution's launches and one epilogue pass.
    on_engine = os.environ.get("CLOPS_GEMM_ENGINE") != "clblast" and (
        dtype != torch.float32 or not torch.clops.get_device_name().startswith(
            ("NVIDIA", "AMD", "Intel(R) Arc")))
    assert n < n_eager and (n <= 10 or not on_engine), (n, n_eager)


def _torchvision():
    return pytest.importorskip("torchvision")


# POCL on 2 shared cores: the whole networks behind CLOPS_TEST_MODELS (the
# GPU job sets it); a reduced ResNet-18 (its stem and first stage) runs here.
MODELS = os.environ.get("CLOPS_TEST_MODELS") == "1"


def model_case(name):
    tv = _torchvision()
    torch.manual_seed(0)
    if name == "resnet18":
        m = tv.models.resnet18()
        if not MODELS:
            m = torch.nn.Sequential(m.conv1, m.bn1, m.relu, m.maxpool, m.layer1)
    else:
        m = tv.models.mobilenet_v3_large()
        if not MODELS:
            m = m.features[:5]
    # running statistics that are not the identity
    for mod in m.modules():
        if isinstance(mod, torch.nn.BatchNorm2d):
            c = mod.num_features
            with torch.no_grad():
                mod.running_mean.copy_(torch.randn(c) * 0.1)
                mod.running_var.copy_(torch.rand(c) + 0.5)
    return m.eval()


@pytest.mark.parametrize("name", ["resnet18", "mobilenet_v3_large"])
def test_torchvision_models_compile_to_fewer_launches(dev, name, capsys):
    model = model_case(name).to(dev)
    size = 64 if MODELS else 32
    x = torch.randn(1, 3, size, size, generator=gen(0)).to(dev)
    want, n_eager, got, n, again = compiled_and_eager(model, x)
    assert_close(got, want, rtol=1e-3, atol=1e-3)
    assert torch.equal(again.cpu(), got.cpu())
    # the pointwise fusion alone (main's compile) launches more
    _, _, got0, n0, _ = compiled_and_eager(model, x, lowered=False)
    assert_close(got0, want, rtol=1e-3, atol=1e-3)
    assert n < n0 < n_eager, (n, n0, n_eager)
    with capsys.disabled():
        print(f"\n{name}{'' if MODELS else ' (reduced)'} eval, batch 1, {size}x{size}, float32: "
              f"{n_eager} launches eager, {n0} compiled without conv epilogues, {n} with")


def test_dense_and_depthwise_convolutions_are_lowered_on_every_device_kind(dev, monkeypatch):
    """The default: every match is lowered, on CPU devices and on GPUs alike
    (the GPU gate of the fourth stop, depthwise only, went when the fused
    dense epilogue measured faster than the separate ops on the H100:
    _lower_conv_epilogues' docstring); CLOPS_COMPILE_CONV_EPILOGUES=0 none."""
    from clops.torch import _compile
    calls = []
    real = _compile._run_conv_epilogue

    def counting(*args):
        calls.append(args[8])          # groups
        return real(*args)

    monkeypatch.setattr(_compile, "_run_conv_epilogue", counting)
    monkeypatch.delenv("CLOPS_COMPILE_CONV_EPILOGUES", raising=False)
    dense = torch.nn.Sequential(torch.nn.Conv2d(8, 16, 3, padding=1, bias=False), bn_eval(16, 1),
                                torch.nn.ReLU()).to(dev)
    depthwise = torch.nn.Sequential(torch.nn.Conv2d(16, 16, 3, padding=1, groups=16, bias=False),
                                    bn_eval(16, 2), torch.nn.Hardswish()).to(dev)
    x8 = torch.randn(2, 8, 9, 7, generator=gen(3)).to(dev)
    x16 = torch.randn(2, 16, 9, 7, generator=gen(4)).to(dev)
    index = dev.index or 0
    for gpu in (False, True):
        monkeypatch.setitem(_compile._DEVICE_GPU, index, gpu)
        for setting, want in ((None, [1, 16]), ("0", [])):
            if setting is not None:
                monkeypatch.setenv("CLOPS_COMPILE_CONV_EPILOGUES", setting)
            torch._dynamo.reset()
            calls.clear()
            with torch.no_grad():
                assert_close(torch.compile(dense, backend="clops")(x8), dense(x8), rtol=1e-4, atol=1e-4)
                assert_close(torch.compile(depthwise, backend="clops")(x16), depthwise(x16),
                             rtol=1e-4, atol=1e-4)
            assert calls == want, (gpu, setting, calls)
            monkeypatch.delenv("CLOPS_COMPILE_CONV_EPILOGUES", raising=False)
