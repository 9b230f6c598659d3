# SPDX-License-Identifier: Apache-2.0
"""torch.optim.Adam/AdamW(fused=True) on clops (clops/torch/_optim.py):
the device kernels against PyTorch's own fused CPU step and its plain
(for-loop) step, over several steps and settings, with no CPU fallback
and three launches per parameter (four with amsgrad) beside the step
counters' increments."""
import pytest
import torch

import clops.torch  # noqa: F401
from conftest import assert_close

SHAPES = [(33, 17), (64,), (5, 3, 7), ()]


def _params(dtype, dev):
    g = torch.Generator().manual_seed(3)
    cpu = [torch.randn(s, generator=g, dtype=torch.float32).to(dtype).requires_grad_()
           for s in SHAPES]
    on = [p.detach().to(dev).requires_grad_() for p in cpu]
    return cpu, on


def _grads(step, dtype):
    g = torch.Generator().manual_seed(100 + step)
    return [torch.randn(s, generator=g, dtype=torch.float32).to(dtype) for s in SHAPES]


def _run(cls, params, steps, dtype, lr_schedule=False, **kw):
    opt = cls(params, **kw)
    sched = torch.optim.lr_scheduler.StepLR(opt, 1, gamma=0.5) if lr_schedule else None
    for s in range(steps):
        for p, gr in zip(params, _grads(s, dtype)):
            p.grad = gr.to(p.device)
        opt.step()
        if sched:
            sched.step()
    return opt


SETTINGS = {
    "adamw": (torch.optim.AdamW, {"lr": 1e-2, "weight_decay": 0.1}),
    "adamw amsgrad maximize": (torch.optim.AdamW, {"lr": 1e-2, "amsgrad": True,
                                                   "maximize": True}),
    "adam weight decay": (torch.optim.Adam, {"lr": 1e-2, "weight_decay": 0.05,
                                             "betas": (0.8, 0.99), "eps": 1e-6}),
    "adam": (torch.optim.Adam, {"lr": 3e-3}),
}


@pytest.mark.parametrize("setting", list(SETTINGS))
def test_fused_step_matches_pytorch(dev, setting, no_fallback):
    """Four steps on clops with fused=True equal PyTorch's CPU fused step
    and its for-loop step within float roundings (the learning rate
    halved each step: a kernel argument, not a new program), parameters
    and both moments; no CPU fallback."""
    cls, kw = SETTINGS[setting]
    cpu, on = _params(torch.float32, dev)
    want = _run(cls, cpu, 4, torch.float32, lr_schedule=True, fused=True, **kw)
    loop_cpu, _ = _params(torch.float32, dev)
    _run(cls, loop_cpu, 4, torch.float32, lr_schedule=True, foreach=False, **kw)
    got = _run(cls, on, 4, torch.float32, lr_schedule=True, fused=True, **kw)
    for a, b, c in zip(on, cpu, loop_cpu):
        assert_close(a.detach(), b.detach(), rtol=2e-6, atol=2e-6)
        assert_close(a.detach(), c.detach(), rtol=2e-6, atol=2e-6)
    for p_on, p_cpu in zip(on, cpu):
        s_on, s_cpu = got.state[p_on], want.state[p_cpu]
        for k in s_cpu:
            assert_close(s_on[k], s_cpu[k], rtol=2e-6, atol=1e-7, msg=lambda m: f"{k}: {m}")


def test_fused_step_launches(dev, no_fallback):
    """Per parameter: the step counter's increment (torch.optim's foreach
    add) and three kernels, and the step counts gathered once; PyTorch's
    default (foreach) step launches at least eight per parameter on
    clops."""
    def launches(**kw):
        _, on = _params(torch.float32, dev)
        opt = torch.optim.AdamW(on, lr=1e-3, **kw)
        for p, gr in zip(on, _grads(0, torch.float32)):
            p.grad = gr.to(dev)
        opt.step()
        torch.clops.synchronize()
        before = torch.clops.device_counters()["launches"]
        opt.step()
        torch.clops.synchronize()
        return torch.clops.device_counters()["launches"] - before
    n = len(SHAPES)
    # + the step counts gathered for the read: a copy, or one kernel
    assert 4 * n <= launches(fused=True) <= 4 * n + 1
    assert launches() >= 8 * n


def test_fused_step_bfloat16(dev, no_fallback):
    """bfloat16 parameters and moments, computed in float as PyTorch's
    fused kernels do: within a bfloat16 rounding of PyTorch's CPU fused
    step."""
    cls, kw = SETTINGS["adamw"]
    cpu, on = _params(torch.bfloat16, dev)
    _run(cls, cpu, 3, torch.bfloat16, fused=True, **kw)
    _run(cls, on, 3, torch.bfloat16, fused=True, **kw)
    for a, b in zip(on, cpu):
        assert_close(a.detach(), b.detach(), rtol=1e-2, atol=1e-2)


def test_grad_scale_and_found_inf(dev, no_fallback):
    """GradScaler's arguments as PyTorch's fused kernels take them: the
    gradients divided by grad_scale (and stored so), and a found_inf of 1
    leaves parameters, moments and gradients as they were; the learning
    rate as a tensor (the .tensor_lr overload) on the device."""
    for inf in (0.0, 1.0):
        cpu, _ = _params(torch.float32, dev)
        on = [p.detach().to(dev) for p in cpu]
        grads = _grads(0, torch.float32)

        def call(ps, device):
            gs = [gr.clone().to(device) for gr in grads]
            ms = [torch.full_like(p, 0.1) for p in ps]
            vs = [torch.full_like(p, 0.2) for p in ps]
            steps = [torch.tensor(3.0, device=device) for _ in ps]
            scale = torch.tensor(4.0, device=device)
            found = torch.tensor(inf, device=device)
            ps = [p.clone() for p in ps]
            lr = torch.tensor(1e-2, device=device)
            torch._fused_adamw_(ps, gs, ms, vs, [], steps, lr=lr, beta1=0.9, beta2=0.999,
                                weight_decay=0.01, eps=1e-8, amsgrad=False, maximize=False,
                                grad_scale=scale, found_inf=found)
            return ps + gs + ms + vs
        for a, b in zip(call(on, dev), call([p.detach() for p in cpu], "cpu")):
            assert_close(a, b, rtol=2e-6, atol=2e-6)
