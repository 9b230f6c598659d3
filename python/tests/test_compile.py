# SPDX-License-Identifier: Apache-2.0
"""torch.compile(backend="clops"): pointwise fusion (clops/torch/_compile.py).

Random pointwise graphs with broadcasts and views in float32 and bfloat16
give the same bits compiled as eager on the clops device, in fewer kernel
launches; an MLP and a GPT-2 block train through compile with eager's
gradients; graph breaks, new sequence lengths (no new kernels), repeated
runs (same bits) and a second process (kernels from the disk cache) work,
and `clops warmup` rebuilds the fused kernels a compiled graph recorded;
Inductor refuses the device with a message naming the clops backend.
"""
import json
import os
import random
import shutil
import subprocess
import sys
import textwrap

import pytest
import torch

import clops.torch  # noqa: F401
from conftest import assert_close

F = torch.nn.functional


def same(a, b):
    """Equal values, NaN where NaN (rsqrt of a negative, say)."""
    torch.testing.assert_close(a.cpu(), b.cpu(), rtol=0, atol=0, equal_nan=True)


def launches():
    return torch.clops.device_counters()["launches"]


def run_counted(fn, *args):
    before = launches()
    out = fn(*args)
    return out, launches() - before


# -- random pointwise graphs --------------------------------------------------

# Not here: the ops whose eager kernel on a CPU device (POCL) evaluates one
# OpenCL built-in on whole vectors (the inventory's `lanewise` records: exp,
# tanh, rsqrt, log, ...), where POCL's vector math library and the scalar
# call a fused kernel makes may differ in the last bit (on GPUs both are
# scalar); test_a_long_chain_becomes_one_kernel has tanh.  sigmoid, silu
# and gelu call exp and erfc inside larger expressions: scalar both ways.
UNARY = [torch.sigmoid, torch.relu, torch.neg, torch.abs,
         lambda x: F.gelu(x, approximate="tanh"), F.gelu, F.silu, lambda x: x * 0.125,
         lambda x: x + 1.5, lambda x: torch.pow(x, 3.0), lambda x: torch.clamp(x, -2.0, 2.0),
         lambda x: 1.0 - x, lambda x: x * x]
BINARY = [torch.add, torch.sub, torch.mul, torch.maximum, torch.minimum,
          lambda x, y: torch.where(x > y, x, y * 0.5), lambda x, y: x / (torch.abs(y) + 1.0),
          lambda x, y: x * (y < 0.25).to(x.dtype), lambda x, y: torch.add(x, y, alpha=0.5)]


def random_graph(rng, n_ops):
    """A function of three inputs: n_ops random unary and binary pointwise ops
    over the inputs and earlier results, some of them used twice."""
    plan = []
    for i in range(n_ops):
        if rng.random() < 0.45:
            plan.append((0, rng.randrange(len(UNARY)), rng.randrange(3 + i)))
        else:
            plan.append((1, rng.randrange(len(BINARY)), rng.randrange(3 + i), rng.randrange(3 + i)))

    def fn(x, y, z):
        vals = [x, y.t(), z.unsqueeze(0)]     # views of the inputs feed the ops
        for p in plan:
            if p[0] == 0:
                vals.append(UNARY[p[1]](vals[p[2]]))
            else:
                vals.append(BINARY[p[1]](vals[p[2]], vals[p[3]]))
        return vals[-1] + vals[-2] * 0.5, vals[-3]   # two outputs
    return fn


def on_cpu_device():
    return not torch.clops.get_device_name().startswith(("NVIDIA", "AMD", "Intel(R) Arc"))


def close(got, want, exact):
    """Same bits, or (lanewise built-ins on a CPU device: POCL's vector math
    library in eager kernels, the scalar call in fused ones) within a few
    ulps of the dtype, relative to the largest value.  No contraction
    anywhere (pointwise programs are built with FP_CONTRACT OFF,
    codegen_pointwise/emit.c), so GPUs give the same bits."""
    if exact or not on_cpu_device():
        same(got, want)
        return
    ulp = 2.0 ** -23 if want.dtype == torch.float32 else 2.0 ** -8
    scale = want.float().abs().nan_to_num(0, 0, 0).max().item() + 1.0
    torch.testing.assert_close(got.cpu().float(), want.cpu().float(), rtol=4 * ulp,
                               atol=4 * ulp * scale, equal_nan=True)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_random_pointwise_graphs_match_eager_bit_for_bit(dev, dtype, no_fallback):
    rng = random.Random(1234)
    fused_any = 0
    for case in range(3):
        fn = random_graph(rng, 6 + 2 * case)
        g = torch.Generator().manual_seed(case)
        x = torch.randn(5, 7, generator=g).to(dev, dtype)
        y = torch.randn(7, 1, generator=g).to(dev, dtype)       # .t() broadcasts rows
        z = torch.randn(7, generator=g).to(dev, dtype)
        want, n_eager = run_counted(fn, x, y, z)
        compiled = torch.compile(fn, backend="clops", dynamic=False)
        compiled(x, y, z)
        got, n_compiled = run_counted(compiled, x, y, z)
        for w, o in zip(want, got):
            assert o.dtype == w.dtype and o.shape == w.shape
            same(o, w)
        assert n_compiled <= n_eager, (case, n_compiled, n_eager)
        fused_any += n_compiled < n_eager
        torch._dynamo.reset()
    assert fused_any == 3


def test_a_long_chain_becomes_one_kernel(dev, no_fallback):
    def fn(x, b):
        h = x + b
        return 0.5 * h * (1.0 + torch.tanh(0.7978845608 * (h + 0.044715 * torch.pow(h, 3.0))))
    x = torch.randn(32, 64).to(dev)
    b = torch.randn(64).to(dev)
    want, n_eager = run_counted(fn, x, b)
    compiled = torch.compile(fn, backend="clops")
    compiled(x, b)
    got, n = run_counted(compiled, x, b)
    close(got, want, exact=False)   # tanh
    assert n_eager >= 8 and n == 1, (n_eager, n)


def test_no_multiply_and_add_is_contracted_eager_or_fused(dev, no_fallback):
    """Pointwise programs are built without contraction
    (codegen_pointwise/emit.c): an eager op's multiply and add (add with
    alpha), and in a fused kernel one op's multiply and the next op's add,
    round as written, as PyTorch's CPU ops one by one do; an FMA (what
    POCL's clang makes of one expression on a CPU with FMA, and NVIDIA's
    compiler across statements) gives other bits in many elements."""
    g = torch.Generator().manual_seed(7)
    x = torch.randn(4096, generator=g)
    y = torch.randn(4096, generator=g)
    want = x + y * 0.3                          # two ops on the CPU: two roundings
    same(torch.add(x.to(dev), y.to(dev), alpha=0.3), want)
    fma = (y.double() * torch.tensor(0.3).float().double() + x.double()).float()
    assert (fma != want).sum() > 100            # what a contracted kernel would give

    def fn(x, y):
        return x * 1.1 + y
    want = fn(x, y)
    compiled = torch.compile(fn, backend="clops", dynamic=False)
    xd, yd = x.to(dev), y.to(dev)
    compiled(xd, yd)
    got, n = run_counted(compiled, xd, yd)
    same(got, want)
    assert n == 1, n
    fma = (x.double() * torch.tensor(1.1).float().double() + y.double()).float()
    assert (fma != want).sum() > 100


def test_a_copy_to_contiguous_joins_the_group_and_keeps_eagers_layout(dev, no_fallback):
    def fn(x):
        y = (x.t() * 2.0 + 1.0).contiguous()   # clone: the fused kernel writes contiguously
        return y.view(-1), x.t() * 3.0 - 1.0     # a view of it; a transposed result
    x = torch.randn(6, 10).to(dev)
    want, n_eager = run_counted(fn, x)
    compiled = torch.compile(fn, backend="clops")
    compiled(x)
    got, n = run_counted(compiled, x)
    for o, w in zip(got, want):
        same(o, w)   # x * 2 + 1: no FMA on any device
        assert o.stride() == w.stride()
    assert n == 2 and n_eager == 5, (n, n_eager)


# -- epilogue fusion --------------------------------------------------------------

class Epilogues(torch.nn.Module):
    """Linear layers whose consumers the matrix engine's epilogue takes:
    bias + silu, a bias-less product + a residual (through the view of a
    3-D input), bias + tanh GELU + a residual after it."""

    def __init__(self, d=48):
        super().__init__()
        self.a = torch.nn.Linear(d, 64)
        self.b = torch.nn.Linear(64, d, bias=False)
        self.c = torch.nn.Linear(d, d)

    def forward(self, x):
        y = self.b(F.silu(self.a(x))) + x
        return F.gelu(self.c(y), approximate="tanh") + y


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_products_and_their_epilogues_become_one_engine_gemm_each(dev, dtype, no_fallback,
                                                                  monkeypatch):
    # every activation, also those slower fused on CPU devices (_epi_act_pays)
    monkeypatch.setenv("CLOPS_COMPILE_EPILOGUE_ACTS", "1")
    torch._dynamo.reset()
    torch.manual_seed(0)
    model = Epilogues().to(dev, dtype)
    x = torch.randn(2, 8, 48).to(dev, dtype)
    with torch.no_grad():
        want, n_eager = run_counted(model, x)
        compiled = torch.compile(model, backend="clops", dynamic=False)
        compiled(x)
        got, n = run_counted(compiled, x)
    # eager: addmm (bias in the engine's epilogue), silu, mm, add, addmm,
    # gelu, add; compiled: three GEMMs, where the engine takes the dtype
    # (float32 on CPU devices and under TF32, float16/bfloat16 everywhere;
    # elsewhere the op runs the product, then the add and activation)
    # The eager count is the CPU launch policy's: under the GPU one (a GPU,
    # or POCL with CLOPS_CPU_LAUNCH=gridstride) a float32 product without
    # TF32 runs on CLBlast, one launch each with its bias added apart (9 on
    # POCL with gridstride), and bfloat16 took 8 on the H200.
    gpu_policy = not on_cpu_device() or os.environ.get("CLOPS_CPU_LAUNCH") == "gridstride"
    if not gpu_policy:
        assert n_eager == 7, n_eager
    if dtype != torch.float32 or not gpu_policy:
        assert n == 3, n
    else:
        assert n <= n_eager, (n, n_eager)
    # The same product; the activation in the float32 accumulator (the
    # engine's formula, a few ulps from the pointwise kernel's) before the
    # one rounding, where eager rounds the product first: bfloat16 differs
    # by an ulp of the pre-activation value.
    tol = 1e-5 if dtype == torch.float32 else 3e-2
    assert got.dtype == want.dtype and got.shape == want.shape and got.stride() == want.stride()
    assert_close(got.float(), want.float(), rtol=tol, atol=tol)
    # the same bits on every run
    with torch.no_grad():
        assert torch.equal(compiled(x).cpu(), got.cpu())


def test_cpu_devices_keep_silu_and_tanh_gelu_out_of_the_epilogue(dev, no_fallback, monkeypatch):
    """By default a CPU device lowers the products with their residual or
    relu/exact GELU only (silu, tanh GELU, sigmoid are slower in the GEMM's
    store there, _EPI_ACTS_SLOW_ON_CPU); a GPU lowers all three."""
    import clops.torch._compile as C
    monkeypatch.delenv("CLOPS_COMPILE_EPILOGUE_ACTS", raising=False)
    torch._dynamo.reset()
    torch.manual_seed(0)
    model = Epilogues().to(dev)
    x = torch.randn(2, 8, 48).to(dev)
    with torch.no_grad():
        want = model(x)
        compiled = torch.compile(model, backend="clops", dynamic=False)
        compiled(x)
        got, n = run_counted(compiled, x)
    gpu = C._device_gpu(dev.index or 0)
    # (under the GPU launch policy, CLOPS_CPU_LAUNCH=gridstride, POCL's
    # float32 products run on CLBlast, not the engine)
    if not gpu and os.environ.get("CLOPS_CPU_LAUNCH") != "gridstride":
        # silu and the tanh GELU stay pointwise: 3 products, 2 activations,
        # the mm's residual add in its epilogue, the GELU's add fused with it
        assert n == 5, n
    assert_close(got, want, rtol=1e-5, atol=1e-5)
    torch._dynamo.reset()


def test_a_residual_before_the_activation_and_the_plain_relu(dev, no_fallback):
    """relu(x @ W^T + b + r) and relu(x @ W^T + b): the residual before the
    activation, exact in float32 on a CPU device (the bias and residual
    adds are the eager adds' float32 additions, relu is exact)."""
    torch.manual_seed(1)
    w = torch.randn(40, 24).to(dev)
    b = torch.randn(40).to(dev)
    w2 = torch.randn(40, 24).to(dev)
    b2 = torch.randn(40).to(dev)
    r = torch.randn(16, 40).to(dev)

    def fn(x):
        return torch.relu(F.linear(x, w, b) + r), torch.relu(F.linear(x, w2, b2)) * 2.0

    check_epilogue_launches(fn, torch.randn(16, 24).to(dev), 3, 6)


def check_epilogue_launches(fn, x, n_want, n_eager_want):
    """fn compiled against eager: exact in float32 on a CPU device (within
    1e-5 elsewhere), and n_want launches against eager's n_eager_want on a
    CPU device (under CLOPS_CPU_LAUNCH=gridstride the float32 products run
    on CLBlast: not counted)."""
    want, n_eager = run_counted(fn, x)
    compiled = torch.compile(fn, backend="clops", dynamic=False)
    compiled(x)
    got, n = run_counted(compiled, x)
    for g, w_ in zip(got, want):
        assert g.shape == w_.shape
        if on_cpu_device():
            same(g, w_)
        else:
            assert_close(g, w_, rtol=1e-5, atol=1e-5)
    if on_cpu_device() and os.environ.get("CLOPS_CPU_LAUNCH") != "gridstride":
        assert n == n_want and n_eager == n_eager_want, (n, n_eager)


def test_a_plain_clone_between_product_and_epilogue_is_taken_too(dev, no_fallback):
    """x @ W^T + b, viewed, cloned (what dropout that drops nothing became
    up to PyTorch 2.14: HF GPT-2's resid_dropout), plus a residual; and
    relu of a cloned product: one engine GEMM each, exact in float32 on a
    CPU device as without the clone."""
    torch._dynamo.reset()
    torch.manual_seed(4)
    w = torch.randn(40, 24).to(dev)
    b = torch.randn(40).to(dev)
    w2 = torch.randn(40, 24).to(dev)
    b2 = torch.randn(40).to(dev)
    r = torch.randn(2, 8, 40).to(dev)

    def fn(x):
        return (F.linear(x, w, b).view(2, 8, 40).clone() + r,
                torch.relu(F.linear(x, w2, b2).clone()) * 2.0)

    check_epilogue_launches(fn, torch.randn(16, 24).to(dev), 3, 5)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_hardsigmoid_of_a_product_is_the_epilogue_activation(dev, dtype, no_fallback):
    """hardsigmoid(x @ W^T + b) is one engine GEMM with the epilogue's
    activation 8 (relu6(x + 3) / 6, cl_kernels/act.clh), equal to eager's
    addmm + hardsigmoid within the rounding of the product (float32) or
    one bfloat16 ulp: the activation is applied to the accumulator before
    the one rounding, where eager rounds the product first).  The inputs
    straddle the activation's kinks at -3 and 3, so another activation
    (hardswish, relu6, relu) misses by far more than the tolerance."""
    torch._dynamo.reset()
    torch.manual_seed(3)
    w = (torch.randn(40, 24) / 2).to(dev, dtype)
    b = torch.randn(40).to(dev, dtype)
    x = (torch.randn(16, 24) * 2).to(dev, dtype)

    def fn(x):
        return F.hardsigmoid(F.linear(x, w, b))

    with torch.no_grad():
        want, n_eager = run_counted(fn, x)
        compiled = torch.compile(fn, backend="clops", dynamic=False)
        compiled(x)
        got, n = run_counted(compiled, x)
    pre = F.linear(x, w, b).float()
    assert (pre < -3).any() and (pre > 3).any() and ((pre > -3) & (pre < 3)).any()
    # one GEMM where the engine takes the dtype (as in
    # test_products_and_their_epilogues_become_one_engine_gemm_each); the
    # eager count (addmm, hardsigmoid) is the CPU launch policy's: under the
    # GPU one bfloat16's addmm took 2 launches on the H200 (3 in all), and a
    # float32 product runs on CLBlast (one launch), its bias added apart
    gpu_policy = not on_cpu_device() or os.environ.get("CLOPS_CPU_LAUNCH") == "gridstride"
    if not gpu_policy:
        assert n_eager == 2, n_eager
    if dtype != torch.float32 or not gpu_policy:
        assert n == 1, n
    assert n <= n_eager, (n, n_eager)
    tol = 1e-6 if dtype == torch.float32 else 8e-3
    assert got.dtype == want.dtype and got.shape == want.shape
    assert_close(got.float(), want.float(), rtol=tol, atol=tol)
    torch._dynamo.reset()


# -- training through compile ---------------------------------------------------

def grads_of(model, x, target, compiled):
    model.zero_grad()
    fn = torch.compile(model, backend="clops") if compiled else model
    loss = F.mse_loss(fn(x), target)
    loss.backward()
    return loss.detach(), [p.grad.clone() for p in model.parameters()]


def test_an_mlp_trains_through_compile_with_eager_gradients(dev, no_fallback):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(24, 48), torch.nn.GELU(approximate="tanh"),
                                torch.nn.Linear(48, 48), torch.nn.SiLU(),
                                torch.nn.LayerNorm(48), torch.nn.Linear(48, 8)).to(dev)
    x = torch.randn(16, 24).to(dev)
    target = torch.randn(16, 8).to(dev)
    l0, g0 = grads_of(model, x, target, False)
    l1, g1 = grads_of(model, x, target, True)
    assert_close(l1, l0, rtol=1e-6, atol=1e-6)
    for a, b in zip(g1, g0):
        assert_close(a, b, rtol=1e-5, atol=1e-6)


class Block(torch.nn.Module):
    """A GPT-2 block: pre-norm causal self-attention (masked softmax,
    dropout off) and an MLP with GPT-2's tanh GELU written out as its
    formula, residual adds."""

    def __init__(self, d=64, heads=4):
        super().__init__()
        self.heads = heads
        self.ln1, self.ln2 = torch.nn.LayerNorm(d), torch.nn.LayerNorm(d)
        self.qkv, self.proj = torch.nn.Linear(d, 3 * d), torch.nn.Linear(d, d)
        self.fc, self.out = torch.nn.Linear(d, 4 * d), torch.nn.Linear(4 * d, d)

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(d, dim=2)
        q, k, v = (z.view(b, t, self.heads, d // self.heads).transpose(1, 2) for z in (q, k, v))
        att = (q @ k.transpose(-2, -1)) * (1.0 / (d // self.heads) ** 0.5)
        mask = torch.ones(t, t, dtype=torch.bool, device=x.device).tril()
        att = torch.softmax(att.masked_fill(~mask, float("-inf")), dim=-1)
        x = x + self.proj((att @ v).transpose(1, 2).reshape(b, t, d))
        h = self.fc(self.ln2(x))
        h = 0.5 * h * (1.0 + torch.tanh(0.7978845608028654 * (h + 0.044715 * torch.pow(h, 3.0))))
        return x + self.out(h)


def test_a_gpt2_block_trains_through_compile(dev, no_fallback):
    torch.manual_seed(0)
    model = Block().to(dev)
    x = torch.randn(2, 16, 64).to(dev)

    def loss_and_grads(fn):
        model.zero_grad()
        loss = fn(x).square().mean()
        loss.backward()
        return loss.detach(), [p.grad.clone() for p in model.parameters()]

    l0, g0 = loss_and_grads(model)
    compiled = torch.compile(model, backend="clops")
    l1, g1 = loss_and_grads(compiled)
    assert_close(l1, l0, rtol=1e-5, atol=1e-6)
    for a, b in zip(g1, g0):
        assert_close(a, b, rtol=1e-4, atol=1e-5)
    # the forward alone: fewer kernels than eager
    with torch.no_grad():
        want, n_eager = run_counted(model, x)
        compiled(x)
        got, n = run_counted(compiled, x)
    assert_close(got, want, rtol=1e-5, atol=1e-5)
    assert n <= n_eager, (n, n_eager)


# -- layouts ------------------------------------------------------------------------

def test_attention_output_comes_out_in_the_layout_the_graph_was_traced_with(dev, no_fallback):
    """HF GPT-2's attention: F.scaled_dot_product_attention, then
    transpose(1, 2).contiguous() and a reshape.  PyTorch's meta function of
    the fused op (_scaled_dot_product_fused_attention_overrideable) lays its
    output out as [B, L, H, E], so the graph traces .contiguous() as nothing
    and the reshape as a view; clops' kernel writes it contiguously, and the
    view failed ("view size is not compatible with input tensor's size and
    stride", GPT-2 124M on PyTorch 2.11) until the compiled graph put such
    results in their traced layout."""
    torch.manual_seed(0)
    b, h, t, e = 2, 4, 16, 8
    q, k, v = (torch.randn(b, t, h, e).to(dev).transpose(1, 2) for _ in range(3))

    def fn(q, k, v):
        o = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return o.transpose(1, 2).contiguous().view(b, t, h * e) * 2.0

    want = fn(q, k, v)
    got = torch.compile(fn, backend="clops", dynamic=False)(q, k, v)
    same(got, want)


# -- graph breaks, shapes, determinism ------------------------------------------

def test_graph_breaks_run_both_sides(dev, no_fallback):
    def fn(x):
        y = torch.sigmoid(x) * 2.0 + 1.0
        if y.sum().item() > 0:          # a data-dependent branch: a graph break
            y = torch.tanh(y) - 0.5
        return y * y
    x = torch.randn(9, 10).to(dev)
    want = fn(x)
    got = torch.compile(fn, backend="clops")(x)
    close(got, want, exact=False)   # tanh


def test_new_sequence_lengths_compile_no_new_kernels(dev, no_fallback):
    def fn(x, b):
        return F.gelu(x * 0.5 + b, approximate="tanh") * torch.sigmoid(x)
    b = torch.randn(32).to(dev)
    compiled = torch.compile(fn, backend="clops")
    for seq in (8, 12):                 # the second length recompiles with dynamic shapes
        x = torch.randn(2, seq, 32).to(dev)
        assert torch.equal(compiled(x, b).cpu(), fn(x, b).cpu())
    built = torch.clops.device_counters()["programs_built"]
    for seq in (16, 20, 5):
        x = torch.randn(2, seq, 32).to(dev)
        assert torch.equal(compiled(x, b).cpu(), fn(x, b).cpu())
    assert torch.clops.device_counters()["programs_built"] == built


def test_compiled_results_are_the_same_bits_every_run(dev, no_fallback):
    def fn(x, y):
        return torch.exp(-x * x) * y + torch.tanh(y) / (1.0 + x * x)
    x = torch.randn(64, 33).to(dev)
    y = torch.randn(33).to(dev)
    compiled = torch.compile(fn, backend="clops")
    first = compiled(x, y).cpu()
    for _ in range(3):
        assert torch.equal(compiled(x, y).cpu(), first)


SECOND_PROCESS = textwrap.dedent("""
    import torch, clops.torch
    def fn(x, y):
        return torch.sigmoid(x * 1.25 + y) * torch.tanh(y) - 0.375 * x
    # from host memory: no kernel runs but the compiled one
    x = torch.tensor([[(i * 8 + j) / 10 for j in range(8)] for i in range(6)]).to("clops")
    y = torch.tensor([j / 4 - 1 for j in range(8)]).to("clops")
    c0 = torch.clops.device_counters()
    out = torch.compile(fn, backend="clops")(x, y).cpu()
    c1 = torch.clops.device_counters()
    print(c1["programs_built"] - c0["programs_built"], c1["programs_loaded"] - c0["programs_loaded"],
          float(out.sum()))
""")


def test_a_second_process_takes_the_kernels_from_the_disk_cache(tmp_path):
    env = dict(os.environ, CLOPS_CACHE_DIR=str(tmp_path), CLOPS_CACHE_POCL="1")
    runs = []
    for _ in range(2):
        r = subprocess.run([sys.executable, "-c", SECOND_PROCESS], env=env, capture_output=True,
                           text=True, timeout=300)
        assert r.returncode == 0, r.stderr[-3000:]
        built, loaded, total = r.stdout.split()[-3:]
        runs.append((int(built), int(loaded), total))
    assert runs[0][0] >= 1, runs            # the fused kernel was compiled...
    assert runs[1][0] == 0 and runs[1][1] >= 1, runs   # ...and then only loaded
    assert runs[0][2] == runs[1][2]


def test_clops_warmup_builds_the_fused_kernels_a_compiled_graph_recorded(
        dev, tmp_path, monkeypatch):
    """A compiled graph records its fused ops under <cache>/fused; `clops
    warmup` on a cache folder holding only those records (a driver update
    emptied the kernel cache, say) builds them, so a new process's compiled
    call builds nothing."""
    import clops.torch._compile as C
    root = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
    exe = os.path.join(os.environ.get("CLOPS_BUILD_DIR", os.path.join(root, "build")), "clops")
    if not os.access(exe, os.X_OK):
        pytest.skip(f"no clops program at {exe}")
    # this process records SECOND_PROCESS's fused op into the new folder
    monkeypatch.setenv("CLOPS_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(C, "_recorded", set())
    scope = {}
    exec(SECOND_PROCESS.split("# from host memory")[0], scope)   # its fn
    x, y = torch.randn(6, 8).to(dev), torch.randn(8).to(dev)
    torch.compile(scope["fn"], backend="clops", dynamic=False)(x, y)
    torch._dynamo.reset()
    records = list((tmp_path / "fused").glob("clops_fused_*.json"))
    assert [p.name for p in tmp_path.iterdir()] == ["fused"] and len(records) == 1, records
    doc = json.loads(records[0].read_text())
    assert doc["signatures"] == [{"dtypes": ["float32", "float32"], "rank": 2}], doc
    env = dict(os.environ, CLOPS_CACHE_DIR=str(tmp_path), CLOPS_CACHE_POCL="1",
               CLOPS_PROGRESS="off")
    r = subprocess.run([exe, "warmup", "--op", "neg", "--dtype", "float32", "--jobs", "1"],
                       env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "1 calls of fused ops" in r.stdout, r.stdout
    r = subprocess.run([sys.executable, "-c", SECOND_PROCESS], env=env, capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    built, loaded = (int(v) for v in r.stdout.split()[-3:-1])
    assert built == 0 and loaded >= 1, (built, loaded)   # the fused kernel only loaded


def test_inductor_refuses_the_device_naming_the_clops_backend(dev):
    x = torch.randn(4).to(dev)
    with pytest.raises(Exception, match='backend="clops"'):
        torch.compile(lambda t: t * 2 + 1)(x)


def test_profile_times_a_compiled_graph_node_by_node(dev, no_fallback):
    """clops.torch._compile.profile() runs compiled graphs node by node:
    the same result, each fused kernel, epilogue GEMM and eager op timed
    under its name, and off again after the block."""
    import clops.torch._compile as C
    torch._dynamo.reset()
    torch.manual_seed(2)
    w = torch.randn(32, 16).to(dev)
    b = torch.randn(32).to(dev)

    def fn(x):
        y = F.hardswish(F.linear(x, w, b))
        return (y * 2.0 + 1.0).sum(dim=0)

    x = torch.randn(8, 16).to(dev)
    with torch.no_grad():
        compiled = torch.compile(fn, backend="clops", dynamic=False)
        want = compiled(x)
        with C.profile() as times:
            got = compiled(x)
        same(got, want)
        assert times.get("clops fused pointwise", [0])[0] == 1, times
        assert times.get("clops addmm epilogue (activation 3)", [0])[0] == 1, times
        assert times.get("aten.sum.dim_IntList", [0])[0] == 1, times
        assert all(secs > 0 for _, secs in times.values())
        calls = dict(times)
        compiled(x)
        assert times == calls and C._PROFILE is None
    torch._dynamo.reset()


def test_fake_tensor_fallback_makes_its_real_inputs_on_the_fake_device(dev):
    """PyTorch's fake-tensor fallback (run_fallback_kernel: an ATen op with
    no meta function, as PyTorch 2.11 ran for the fused attention in a
    training graph) makes real inputs with zeros_like(fake,
    device=fake.fake_device) under no_dispatch: the fake's storage is meta,
    and clops' *_like kernels read self's geometry alone (it raised "has a
    storage clops did not allocate" before)."""
    from torch._subclasses.fake_tensor import FakeTensorMode
    from torch.utils._mode_utils import no_dispatch
    mode = FakeTensorMode()
    with mode:
        fake = mode.from_tensor(torch.randn(2, 3, 4, device=dev).transpose(1, 2))
    with no_dispatch():
        z = torch.zeros_like(fake, device=fake.fake_device)
        f = torch.full_like(fake, 2.5, dtype=torch.bfloat16)
        o = torch.ones_like(fake, memory_format=torch.contiguous_format)
        e = torch.empty_like(fake)
    assert z.device == dev and z.stride() == fake.stride() and not z.cpu().any()
    assert f.dtype == torch.bfloat16 and (f.cpu() == 2.5).all()
    assert o.is_contiguous() and (o.cpu() == 1).all()
    assert e.device == dev and e.shape == fake.shape
