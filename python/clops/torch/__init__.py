# SPDX-License-Identifier: Apache-2.0
"""The PyTorch device "clops": PyTorch tensors and models on any OpenCL device.

``import clops.torch`` renames PyTorch's PrivateUse1 backend to ``clops``, loads
the bridge (clops/torch/_C), binds every clops operator whose schema matches
PyTorch's, and installs ``torch.clops``::

    import torch, clops.torch
    x = torch.randn(4, 5).to("clops")        # clops:0 = clops' first OpenCL device
    y = (x @ x.T).relu().cpu()
    print(torch.clops.fallback_counts())     # ops that ran on the CPU

Device indices are clops' OpenCL devices in ``clops devices`` order; CLOPS_DEVICE
chooses the default one.  Ops clops lacks run on the CPU through PyTorch's CPU
fallback, counted per op; CLOPS_FALLBACK=warn prints each once, CLOPS_FALLBACK=error
refuses them.  See docs/torch.md.
"""
import atexit
import collections
import os
import threading
import types
import weakref

import torch

torch.utils.rename_privateuse1_backend("clops")

from . import _C  # noqa: E402  (the backend must be named before the bridge loads)
from . import _attention  # noqa: E402
from . import _cuda_backward  # noqa: E402

_C._init()

# Before the interpreter finalizes, let autograd's worker threads of the clops
# devices drop what their last backward left them holding (which can own
# Python objects): releasing one after finalization began aborted the
# process.  See docs/torch.md, "Autograd in any import order".
atexit.register(_C._quiesce_autograd_workers)


def is_available():
    """True when clops found at least one OpenCL device."""
    return _C.device_count() > 0


def device_count():
    """Number of clops OpenCL devices (PyTorch indices clops:0 .. clops:N-1)."""
    return _C.device_count()


def _index(device):
    if device is None:
        return _C.current_device()
    if isinstance(device, int):
        return device
    device = torch.device(device)
    if device.type != "clops":
        raise ValueError(f"clops: expected a clops device, got {device}")
    return _C.current_device() if device.index is None else device.index


def current_device():
    """This thread's current clops device index."""
    return _C.current_device()


def set_device(device):
    """Makes `device` (an index or "clops:K") the current clops device."""
    _C.set_device(_index(device))


class device:
    """Context manager that makes `device` the current clops device."""

    def __init__(self, device):
        self.idx = _index(device)
        self.prev = -1

    def __enter__(self):
        self.prev = _C.current_device()
        if self.idx >= 0:
            _C.set_device(self.idx)

    def __exit__(self, *exc):
        _C.set_device(self.prev)
        return False


def synchronize(device=None):
    """Waits until all queued work on the device has finished."""
    _C.synchronize(_index(device))


def get_device_name(device=None):
    """The OpenCL device name, e.g. "NVIDIA H200" or "cpu-haswell-..." (POCL)."""
    return _C.device_name(_index(device))


# Streams and events (python/csrc/stream.cpp): every stream of a device runs
# on the device's one in-order OpenCL queue, so work on different streams is
# ordered as on one; events are markers on that queue, timed by its
# profiling (docs/torch.md, "Streams and events").
class Stream(torch.Stream):
    """A stream of a clops device (torch.Stream(device="clops")): it has an
    id of its own and can be made current, waited on and queried; its work
    shares the device's one in-order queue with every other stream's."""

    def __new__(cls, device=None, priority=0, **kwargs):
        if kwargs:
            return super().__new__(cls, priority=priority, **kwargs)
        return super().__new__(cls, device=torch.device("clops", _index(device)),
                               priority=priority)


def Event(enable_timing=False, blocking=False, interprocess=False, device=None):
    """An event of the clops device: torch.Event(device="clops", ...) (a
    plain torch.Event, which PyTorch's elapsed_time and wait_event require):
    a marker on the device's queue; with enable_timing=True,
    elapsed_time(end) gives the milliseconds between two recorded events, as
    CUDA's."""
    if interprocess:
        raise RuntimeError("clops: interprocess events are not supported")
    return torch.Event(device=torch.device("clops", _index(device)), enable_timing=enable_timing,
                       blocking=blocking)


_DEVICE_TYPE = None


def _stream_of(stream_id, index):
    global _DEVICE_TYPE
    if _DEVICE_TYPE is None:
        _DEVICE_TYPE = torch.Stream(device=torch.device("clops", index)).device_type
    return Stream(stream_id=stream_id, device_index=index, device_type=_DEVICE_TYPE)


def current_stream(device=None):
    """This thread's current stream of the device (the default stream unless
    set_stream or a `with stream(s)` block chose another)."""
    i = _index(device)
    return _stream_of(_C.current_stream(i), i)


def default_stream(device=None):
    """The device's default stream (id 0)."""
    return _stream_of(0, _index(device))


def set_stream(stream):
    """Makes `stream` the current stream of its device for this thread."""
    if stream is not None:
        _C.set_stream(stream.stream_id, stream.device_index)


class StreamContext:
    """Context manager that makes `stream` current (and its device) for the
    block, as torch.cuda.stream does; None does nothing."""

    def __init__(self, stream):
        self.stream = stream
        self.prev = None
        self.prev_device = None

    def __enter__(self):
        if self.stream is None:
            return self.stream
        self.prev_device = _C.current_device()
        _C.set_device(self.stream.device_index)
        self.prev = _C.set_stream(self.stream.stream_id, self.stream.device_index)
        return self.stream

    def __exit__(self, *exc):
        if self.stream is not None:
            _C.set_stream(self.prev, self.stream.device_index)
            _C.set_device(self.prev_device)
        return False


def stream(stream):
    """`with torch.clops.stream(s):` runs the block with s as current stream."""
    return StreamContext(stream)


def memory_allocated(device=None):
    """Bytes of device memory held by live tensors (clops' allocator)."""
    return _C.memory_allocated(_index(device))


def memory_reserved(device=None):
    """Bytes held by live tensors plus the allocator's cache."""
    i = _index(device)
    return _C.memory_allocated(i) + _C.memory_cached(i)


def empty_cache():
    """Returns cached, unused device buffers to the driver."""
    _C.empty_cache()


def max_memory_allocated(device=None):
    """The most bytes held by live tensors at once since the start or the
    last reset_peak_memory_stats (clops' allocator counts in its size
    classes, as memory_allocated does)."""
    return _C.memory_figures(_index(device), False)[2]


def reset_peak_memory_stats(device=None):
    """Makes max_memory_allocated start again from memory_allocated."""
    _C.memory_figures(_index(device), True)


def max_memory_reserved(device=None):
    """At least the most bytes the allocator held (clops counts the peak of
    its live tensors, not of its cache): the larger of max_memory_allocated
    and memory_reserved."""
    allocated, cached, peak, _ = _C.memory_figures(_index(device), False)
    return max(peak, allocated + cached)


def memory_stats(device=None):
    """The figures clops' allocator keeps, under the names of
    torch.cuda.memory_stats: allocated_bytes / active_bytes (current, peak)
    and reserved_bytes (current, and max_memory_reserved as peak).  clops
    counts no allocation events: the other keys of CUDA's are absent."""
    allocated, cached, peak, _ = _C.memory_figures(_index(device), False)
    reserved = allocated + cached
    return collections.OrderedDict([
        ("active_bytes.all.current", allocated), ("active_bytes.all.peak", peak),
        ("allocated_bytes.all.current", allocated), ("allocated_bytes.all.peak", peak),
        ("reserved_bytes.all.current", reserved),
        ("reserved_bytes.all.peak", max(peak, reserved))])


def mem_get_info(device=None):
    """(free, total) bytes: the device's memory, and that less what clops
    holds (OpenCL cannot tell what other processes use)."""
    allocated, cached, _, total = _C.memory_figures(_index(device), False)
    return max(total - allocated - cached, 0), total


def default_generator(device=None):
    return _C.default_generator(_index(device))


def manual_seed(seed, device=None):
    """Seeds the generator of one clops device (the current one by default)."""
    default_generator(device).manual_seed(int(seed))


def manual_seed_all(seed):
    """Seeds the generators of every clops device."""
    for i in range(device_count()):
        default_generator(i).manual_seed(int(seed))


def seed():
    default_generator().seed()


def initial_seed():
    return default_generator().initial_seed()


def get_rng_state(device=None):
    return default_generator(device).get_state()


def set_rng_state(state, device=None):
    default_generator(device).set_state(state)


def is_initialized():
    return True


def _is_in_bad_fork():
    return False


def fallback_counts():
    """{op: count} of ops that ran on the CPU since start or the last reset:
    PyTorch's CPU fallback for ops clops lacks ("op.overload"), and clops' own
    reference fallback for ops without a kernel for this device
    ("op.overload [clops reference]")."""
    return dict(_C.fallback_counts())


def reset_fallback_counts():
    _C.reset_fallback_counts()


def set_fallback_policy(policy):
    """"allow", "warn" or "error": what happens to ops without a device kernel
    (the same switch as CLOPS_FALLBACK)."""
    _C.set_fallback_policy(policy)


def get_fallback_policy():
    return _C.get_fallback_policy()


def schema_mismatches():
    """["op.overload: reason"] for clops ops not bound to PyTorch because their
    schemas differ (or PyTorch has no such op)."""
    return list(_C.schema_mismatches())


def registered_ops():
    """The clops ops bound to the clops device through the generic kernel."""
    return list(_C.registered_ops())


def fallback_table(counts=None):
    """The fallback counts as an aligned text table, largest first."""
    counts = fallback_counts() if counts is None else counts
    if not counts:
        return "no CPU fallbacks"
    rows = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    w = max(len(k) for k, _ in rows)
    return "\n".join(f"{k:<{w}}  {v:>6}" for k, v in rows)


def device_counters(device=None):
    """{"launches", "programs_built", "programs_loaded", "build_seconds"} of
    the device since the process started (clops_device_get_counters):
    kernels enqueued, programs compiled from source, programs loaded from
    clops' disk cache."""
    c = _C.device_counters(_index(device))
    return {"launches": int(c[0]), "programs_built": int(c[1]), "programs_loaded": int(c[2]),
            "build_seconds": c[3]}


def get_amp_supported_dtype():
    """The dtypes torch.autocast("clops", dtype=...) accepts."""
    return [torch.float16, torch.bfloat16]


def is_bf16_supported(including_emulation=True):
    """clops computes bfloat16 on every device (in float32 where the device
    has no bfloat16 arithmetic)."""
    return True


# Module conversion (module.to("clops"), .clops(), .cpu(), ...).  PyTorch's
# Module._apply changes a parameter in place (`param.data = new`) only when
# the old and new tensors have "compatible shallow-copy types", which CPU and
# PrivateUse1 tensors never have; otherwise it puts a new Parameter object in
# the module.  Every module holding a tied parameter then gets its own copy
# (GPT-2's lm_head and wte come apart), and references held elsewhere (an
# optimizer built before the move) keep the old tensor.  PyTorch's opt-in
# torch.__future__.set_swap_module_params_on_conversion(True) keeps the
# objects but refuses (`Couldn't swap`) any parameter a live autograd graph
# still uses, such as one that just ran a CPU forward.
#
# So PyTorch's conversion runs unchanged, and afterwards, module by module,
# each parameter that got a new object goes back into its old object (the
# tensors are exchanged, torch._C._swap_tensor_impl, as swap_tensors does;
# the old object keeps its class and attributes) where that is safe: nothing
# else holds the old tensor (use count 1, no weak references), as
# torch.utils.swap_tensors requires, but without poisoning a live graph's
# AccumulateGrad node.  A parameter a live graph still uses keeps PyTorch's
# new object (the graph goes on using the old tensor); once the outermost
# conversion is done, parameters that were tied before are tied again.  A
# process that turned PyTorch's swap or overwrite flag on itself gets
# PyTorch's behaviour unchanged.  CLOPS_KEEP_MODULE_CONVERSION=1 before the
# import leaves Module._apply alone.
_torch_module_apply = torch.nn.Module._apply
_conversion = threading.local()


def _can_take_back(old, new):
    return (isinstance(old, torch.nn.Parameter) and type(new) is torch.nn.Parameter
            and old.requires_grad == new.requires_grad
            and not weakref.getweakrefs(old) and not weakref.getweakrefs(new)
            and old._use_count() == 1 and new._use_count() == 1)


def _tied_parameters(module):
    """[[(module, name), ...], ...]: the places of each parameter object held
    in more than one place."""
    places = {}
    for m in module.modules():
        for name, p in m._parameters.items():
            if p is not None:
                places.setdefault(id(p), (p, []))[1].append((m, name))
    return [where for _, where in places.values() if len(where) > 1]


def _module_apply(self, fn, recurse=True):
    if (torch.__future__.get_swap_module_params_on_conversion()
            or torch.__future__.get_overwrite_module_params_on_conversion()):
        return _torch_module_apply(self, fn, recurse)
    outermost = not getattr(_conversion, "active", False)
    tied = []
    if outermost:
        tied = _tied_parameters(self)
        _conversion.active = True
    try:
        before = dict(self._parameters)
        result = _torch_module_apply(self, fn, recurse)
        for name, old in before.items():
            new = self._parameters.get(name)
            if old is not None and new is not None and new is not old and _can_take_back(old, new):
                torch._C._swap_tensor_impl(old, new)
                self._parameters[name] = old
    finally:
        if outermost:
            _conversion.active = False
    for where in tied:
        m0, n0 = where[0]
        first = m0._parameters[n0]
        for m, name in where[1:]:
            if m._parameters[name] is not first:
                m._parameters[name] = first
    return result


if not os.environ.get("CLOPS_KEEP_MODULE_CONVERSION"):
    torch.nn.Module._apply = _module_apply

# A CUDA backward cannot run once clops is PyTorch's accelerator: a clear
# error instead of the engine's internal assert (_cuda_backward.py says why).
_cuda_backward.install()

# Bottom-right causal attention (causal_lower_right) on the fused kernel
# instead of a materialized mask (_attention.py).
_attention.install()

_module = types.ModuleType("torch.clops")
for _name in ("is_available device_count current_device set_device device synchronize get_device_name "
              "memory_allocated memory_reserved empty_cache max_memory_allocated "
              "reset_peak_memory_stats max_memory_reserved memory_stats mem_get_info "
              "default_generator manual_seed "
              "manual_seed_all seed initial_seed get_rng_state set_rng_state is_initialized "
              "_is_in_bad_fork fallback_counts reset_fallback_counts set_fallback_policy "
              "get_fallback_policy schema_mismatches registered_ops fallback_table "
              "get_amp_supported_dtype is_bf16_supported device_counters "
              "Stream Event current_stream default_stream set_stream StreamContext stream").split():
    setattr(_module, _name, globals()[_name])
torch._register_device_module("clops", _module)
torch.utils.generate_methods_for_privateuse1_backend(for_tensor=True, for_module=True,
                                                     for_packed_sequence=True, for_storage=True)

# torch.compile: the backend "clops" (pointwise fusion, _compile.py), and a
# clear refusal from Inductor, which has no code generator for the device
# (without it, the first call fails deep in lowering: "LoweringException ...
# get_backend_features").
from . import _compile  # noqa: E402

_compile.register()
_inductor_wrapper_call = torch._TorchCompileInductorWrapper.__call__


def _inductor_call(self, model_, inputs_):
    if any(isinstance(t, torch.Tensor) and t.device.type == "clops" for t in inputs_):
        raise RuntimeError("clops: Inductor (torch.compile's default backend) generates Triton and "
                           "C++ only, nothing for the clops device; compile with "
                           "torch.compile(model, backend=\"clops\") (docs/torch.md)")
    return _inductor_wrapper_call(self, model_, inputs_)


torch._TorchCompileInductorWrapper.__call__ = _inductor_call

# torch.distributed: the backend "clops", gloo on host copies of the device's
# tensors (_distributed.py; docs/torch.md, "Distributed").
from . import _distributed  # noqa: E402

_distributed.register()

if os.environ.get("CLOPS_DEBUG_SCHEMAS"):
    for _line in schema_mismatches():
        print("clops: not bound:", _line)

# Core ATen ops clops runs as compositions of its own kernels (_core_aten.py;
# docs/torch.md, "Core ATen").
from . import _core_aten  # noqa: E402

_core_aten.register()

# torch.optim.Adam/AdamW(fused=True) on the device (_optim.py; docs/torch.md,
# "The fused Adam and AdamW steps").
from . import _optim  # noqa: E402

_optim.register()
