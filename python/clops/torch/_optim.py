# SPDX-License-Identifier: Apache-2.0
"""The fused Adam and AdamW steps (`torch.optim.Adam/AdamW(fused=True)`:
aten::_fused_adam_ and aten::_fused_adamw_) on clops devices.

Without them `fused=True` ran on the CPU through the fallback (every
parameter, gradient and state copied there and back each step).  Here
each parameter's update is three generated pointwise kernels (four with
amsgrad), in place, against the eight or nine launches per parameter of
torch.optim's default (foreach) step on a device without foreach kernels:

    exp_avg    = exp_avg * beta1 + grad * (1 - beta1)
    exp_avg_sq = exp_avg_sq * beta2 + (1 - beta2) * grad * grad
    param      = param - lr * weight_decay * param              (AdamW)
    param      = param - (lr / bc1) * exp_avg / (sqrt(exp_avg_sq) / sqrt(bc2) + eps)

with grad negated under maximize, grad + weight_decay * param for Adam,
max_exp_avg_sq = max(max_exp_avg_sq, exp_avg_sq) in place of exp_avg_sq
under amsgrad, bc1 = 1 - beta1^step and bc2 = 1 - beta2^step.  The
formulas and their order are PyTorch's fused kernels' (ATen's
FusedAdamKernel.cpp, fused_adam_utils.cuh): the scalars (1 - beta, lr /
bc1, sqrt(bc2), lr * weight_decay) in double on the host, the rest in the
parameters' compute type (float for float32, bfloat16 and float16):
results agree to a few float roundings (tests/test_optim.py).  Every
scalar is a kernel argument (a learning-rate schedule builds no new
program).  The step counts live on the device (torch.optim's fused path
keeps them there): they are read once per step (one small copy and one
read, a synchronisation), since computing beta^step in the kernel, per
element, made the parameter update 100x slower on POCL.  grad_scale
divides the gradients first (stored back, as PyTorch does); a found_inf of
1 skips the step (read on the host, as PyTorch's CPU kernel reads it).
"""
import math

import torch

_LIB = None
_IDS = {}


def _op(key, n_in, n_params, expr):
    from . import _C
    op_id = _IDS.get(key)
    if op_id is None:
        import hashlib
        name = "_clops_adam_" + hashlib.sha256(expr.encode()).hexdigest()[:16]
        op_id = _C.params_register(name, n_in, n_params, expr, "")
        _IDS[key] = op_id
    return op_id


def _kernels(adamw, maximize, decay):
    """The ids of the three kernels of one setting: exp_avg (operands
    exp_avg, grad and, for Adam with weight decay, param; parameters beta1,
    1 - beta1 and weight_decay), exp_avg_sq (the same with beta2) and param
    (operands param, exp_avg, the denominator's exp_avg_sq; parameters
    lr / bc1, lr * weight_decay, sqrt(bc2) and eps)."""
    g = "(-b)" if maximize else "b"
    n_g = 2
    if not adamw and decay:
        g, n_g = f"({g} + c * p2)", 3   # grad + param * weight_decay (Adam)
    m = _op(("m", g), n_g, n_g, f"a * p0 + {g} * p1")
    v = _op(("v", g), n_g, n_g, f"a * p0 + p1 * {g} * {g}")
    head = "(a - p1 * a)" if adamw else "a"
    p = _op(("p", adamw), 3, 4, f"{head} - p0 * b / (sqrt(c) / p2 + p3)")
    return m, v, p, n_g


def _check(name, lists, state_steps):
    n = len(lists[0])
    for lst in lists[1:] + [state_steps]:
        if len(lst) != n:
            raise RuntimeError(f"{name}: tensor lists of different lengths "
                               f"({', '.join(str(len(x)) for x in lists + [state_steps])})")
    for t in [t for lst in lists for t in lst] + list(state_steps):
        if t.device.type != "clops":
            raise RuntimeError(f"{name}: every tensor must be on a clops device, got one on "
                               f"{t.device}")
    for p in lists[0]:
        if not p.is_floating_point():
            raise RuntimeError(f"{name}: parameters must be floating point, got {p.dtype}")


def _step(adamw, self, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps, *, lr,
          beta1, beta2, weight_decay, eps, amsgrad, maximize, grad_scale=None, found_inf=None):
    from . import _C
    name = "_fused_adamw_" if adamw else "_fused_adam_"
    lists = [list(self), list(grads), list(exp_avgs), list(exp_avg_sqs)]
    if amsgrad:
        lists.append(list(max_exp_avg_sqs))
    _check(name, lists, list(state_steps))
    if not lists[0]:
        return
    if isinstance(lr, torch.Tensor):
        lr = float(lr.item())
    if found_inf is not None and float(found_inf.item()) == 1.0:
        return
    if grad_scale is not None:
        for gr in grads:
            gr.div_(grad_scale)
    wd = float(weight_decay)
    mk, vk, pk, n_g = _kernels(adamw, maximize, wd != 0)
    # the step counts, read once (one small copy and one read per step):
    # the bias corrections in double, as PyTorch's kernels compute them
    steps = torch.stack([s.reshape(()) for s in state_steps]).cpu().tolist()
    for i, p in enumerate(self):
        gr, m, v = grads[i], exp_avgs[i], exp_avg_sqs[i]
        extra = [p] if n_g == 3 else []
        _C.fused_call(mk, [m, gr] + extra, m, [beta1, 1 - beta1] + ([wd] if extra else []))
        _C.fused_call(vk, [v, gr] + extra, v, [beta2, 1 - beta2] + ([wd] if extra else []))
        den = v
        if amsgrad:
            torch.maximum(max_exp_avg_sqs[i], v, out=max_exp_avg_sqs[i])
            den = max_exp_avg_sqs[i]
        bc1 = 1 - beta1 ** steps[i]
        bc2 = 1 - beta2 ** steps[i]
        _C.fused_call(pk, [p, m, den], p, [lr / bc1, lr * wd, math.sqrt(bc2), eps])


def _fused_adamw_(*args, **kwargs):
    _step(True, *args, **kwargs)


def _fused_adam_(*args, **kwargs):
    _step(False, *args, **kwargs)


def register():
    """Registers the fused steps for PrivateUse1 where clops binds nothing."""
    global _LIB
    if _LIB is not None:
        return
    _LIB = torch.library.Library("aten", "IMPL")
    for name, fn in (("_fused_adamw_", _fused_adamw_), ("_fused_adam_", _fused_adam_)):
        for overload in ("", ".tensor_lr"):
            if torch._C._dispatch_has_kernel_for_dispatch_key("aten::" + name + overload,
                                                              "PrivateUse1"):
                continue
            _LIB.impl(name + overload, fn, "PrivateUse1")
