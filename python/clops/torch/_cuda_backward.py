# SPDX-License-Identifier: Apache-2.0
"""A clear error instead of PyTorch's internal assert for a CUDA backward in a
process that imported clops.torch.

Naming the PrivateUse1 backend (``rename_privateuse1_backend("clops")``, which
the device needs) makes it PyTorch's one accelerator for the whole process:
``at::getAccelerator()`` returns PrivateUse1 as soon as a PrivateUse1 name is
registered, before CUDA (ATen/DeviceAccelerator.cpp), and cannot be undone.
The autograd engine takes a node's stream from its inputs on *that* device
type only (``Node::stream()``, torch/csrc/autograd/node.h), so every node over
CUDA tensors has no stream, and ``Engine::evaluate_function`` fails
``TORCH_INTERNAL_ASSERT(opt_ready_stream && opt_parent_stream)`` for its CUDA
gradients (PyTorch issue 161129; the fix proposed there was not taken).  No
device guard, stream or hook of the clops device changes that: the CUDA
node's stream is looked up on the clops device type.  CUDA forward passes are
unaffected.

So the bridge wraps ``torch.autograd.graph._engine_run_backward`` (what
``Tensor.backward``, ``torch.autograd.backward`` and ``torch.autograd.grad``
call; PyTorch's own torch.compiler patches it the same way): once CUDA is
initialized in the process, each backward walks its graph, and when a node
receives CUDA gradients it raises a RuntimeError that says why and what to do.
The first time, it runs a one-element CUDA backward with the original
function: if this PyTorch runs it (a release that fixed the engine), the
check switches itself off for the process.  Without CUDA initialized the
check costs one call to ``torch.cuda.is_initialized()``.
"""
import torch

_state = {"broken": None}

MESSAGE = (
    "clops: this backward pass reaches tensors on {device}, and a process that imported "
    "clops.torch cannot run a CUDA backward: PyTorch makes the registered PrivateUse1 "
    "backend ('clops') the process's only accelerator (torch.accelerator.current_accelerator() "
    "is clops now), and its autograd engine then finds no stream for CUDA nodes and fails "
    "an internal assert ('opt_ready_stream && opt_parent_stream', engine.cpp; PyTorch issue "
    "161129). CUDA forward passes work. Run the CUDA training in a process that does "
    "not import clops.torch (a subprocess, or torch.multiprocessing with the 'spawn' start "
    "method), or detach() the CUDA part of the graph. See docs/torch.md, 'CUDA beside "
    "clops'.")


def _node_device(node):
    """The first CUDA device among a node's inputs, or None."""
    try:
        metas = node._input_metadata
    except (AttributeError, RuntimeError):
        return None
    for m in metas:
        if m is not None and m.device.type == "cuda":
            return m.device
    return None


def _graph_device(outputs):
    """Walks the graph behind `outputs`; the first device PyTorch cannot serve."""
    stack, seen = [], set()
    for t in outputs:
        if isinstance(t, torch.Tensor):
            if t.device.type == "cuda":
                return t.device
            node = t.grad_fn
        else:  # a GradientEdge
            node = getattr(t, "node", None)
        if node is not None:
            stack.append(node)
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        dev = _node_device(node)
        if dev is not None:
            return dev
        for nxt, _ in node.next_functions:
            if nxt is not None and nxt not in seen:
                stack.append(nxt)
    return None


def _engine_broken(original):
    """Whether this PyTorch's engine fails a CUDA backward here (tried once)."""
    if _state["broken"] is None:
        a = torch.ones(1, device="cuda", requires_grad=True)
        s = (a * 2).sum()
        try:
            original((s,), (torch.ones_like(s),), False, False, (),
                     allow_unreachable=True, accumulate_grad=True)
            _state["broken"] = False
        except RuntimeError as e:
            _state["broken"] = "opt_parent_stream" in str(e)
    return _state["broken"]


def install():
    original = torch.autograd.graph._engine_run_backward

    def _engine_run_backward(t_outputs, *args, **kwargs):
        if torch.cuda.is_initialized() and _state["broken"] is not False:
            dev = _graph_device(t_outputs)
            if dev is not None and _engine_broken(original):
                raise RuntimeError(MESSAGE.format(device=dev))
        return original(t_outputs, *args, **kwargs)

    _engine_run_backward.__wrapped__ = original
    torch.autograd.graph._engine_run_backward = _engine_run_backward
    torch.autograd._engine_run_backward = _engine_run_backward
