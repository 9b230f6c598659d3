# SPDX-License-Identifier: Apache-2.0
"""torch.distributed for the clops device: the backend "clops".

Gloo, PyTorch's CPU backend, refuses tensors of a PrivateUse1 device.  The
backend "clops" runs every collective through gloo on host copies: tensors of
the clops device are copied to the host when the collective is called
(staging), gloo runs on the host copies, and the results are copied back
into the clops tensors when gloo finishes, before the collective's Work
completes (its wait() and its future both cover the copy back).  CPU tensors
go to gloo unchanged.  So the values are gloo's, bit for bit, on every
device: reductions (SUM, AVG, MIN, MAX, PRODUCT, the bitwise ones), their
dtypes and their errors are gloo's.

    dist.init_process_group("clops", ...)            # clops and CPU tensors
    dist.init_process_group("cpu:gloo,clops:clops")  # CPU tensors through PyTorch's gloo

The backend is registered at `import clops.torch` for the devices "clops" and
"cpu" (PyTorch's gloo stays the default for "cpu" when no backend is named).
Each process group gets its own gloo context over the group's store (under
the prefix "clops/"), so it connects the ranks once more beside any CPU
backend of the group.  Where PyTorch cannot call a Python Backend's methods
from C++ (before 2.15), the backend is a Python ProcessGroup instead
(ClopsProcessGroup).  See docs/torch.md, "Distributed".
"""
import threading

import torch
import torch.distributed as dist
from torch._C import _distributed_c10d as c10d

NAME = "clops"


def _is_clops(t):
    return isinstance(t, torch.Tensor) and t.device.type == "clops"


def _any_clops(*args):
    for a in args:
        if isinstance(a, (list, tuple)):
            if _any_clops(*a):
                return True
        elif _is_clops(a):
            return True
    return False


class _HostBuffers:
    """Host staging buffers kept for reuse, by dtype and shape.

    A fresh host tensor of tens of MB is fresh pages from the kernel, which
    cost more than the copy into them (100 MB: ~0.3-1 s against ~40 ms on
    POCL here); DistributedDataParallel all-reduces the same bucket shapes
    every step.  A buffer goes back to the pool once its collective has
    completed and been copied back; at most KEEP are kept per shape."""

    KEEP = 4

    def __init__(self):
        self._lock = threading.Lock()
        self._free = {}

    def take(self, like):
        key = (like.dtype, tuple(like.shape))
        with self._lock:
            free = self._free.get(key)
            if free:
                return free.pop()
        return torch.empty(like.shape, dtype=like.dtype)

    def give(self, buf):
        key = (buf.dtype, tuple(buf.shape))
        with self._lock:
            free = self._free.setdefault(key, [])
            if len(free) < self.KEEP:
                free.append(buf)


class _Staging:
    """Host copies of a collective's clops tensors, and the copy back.

    in_(t): the host copy gloo reads (a clops tensor's values, on the host);
    out(t): a host buffer gloo writes, copied into t when gloo is done;
    inout(t): both.  CPU tensors pass through untouched.  Host buffers come
    from `pool` (None: fresh ones) and go back to it in finish()."""

    def __init__(self, pool=None):
        self.pool = pool
        self.taken = []
        self.back = []  # (clops tensor, host tensor) to copy back

    def _host(self, t):
        if self.pool is None:
            return torch.empty(t.shape, dtype=t.dtype)
        h = self.pool.take(t)
        self.taken.append(h)
        return h

    def in_(self, t):
        if isinstance(t, (list, tuple)):
            return [self.in_(x) for x in t]
        return self._host(t).copy_(t) if _is_clops(t) else t

    def out(self, t):
        if isinstance(t, (list, tuple)):
            return [self.out(x) for x in t]
        if not _is_clops(t):
            return t
        h = self._host(t)
        self.back.append((t, h))
        return h

    def inout(self, t):
        if isinstance(t, (list, tuple)):
            return [self.inout(x) for x in t]
        if not _is_clops(t):
            return t
        h = self._host(t).copy_(t)
        self.back.append((t, h))
        return h

    def finish(self):
        for dev, host in self.back:
            dev.copy_(host)
        if self.pool is not None:
            for h in self.taken:
                self.pool.give(h)
        return [dev for dev, _ in self.back]


def _complete(work, staging):
    """A Work that completes once gloo's `work` finished and the staged
    results are back on the device.  Gloo's collectives that complete a
    future get the copy back chained to it (it runs on gloo's thread);
    the others (reduce_scatter, send/recv, ...) have a helper thread wait
    for them.  Either way the Work's future, which DistributedDataParallel
    waits on, completes only after the copy back."""
    if not staging.back:
        return work
    try:
        fut = work.get_future()
    except RuntimeError:  # this gloo Work has no future ("getFuture not implemented")
        fut = None
    if fut is not None:
        def done(f):
            f.value()  # raises gloo's error, which then fails the returned future
            return staging.finish()
        return c10d._create_work_from_future(fut.then(done))
    result = torch.futures.Future()

    def wait_then_finish():
        try:
            work.wait()
            value = staging.finish()
        except BaseException as e:  # noqa: B902  (handed to the waiter)
            result.set_exception(e)
            return
        result.set_result(value)

    threading.Thread(target=wait_then_finish, name="clops-distributed", daemon=True).start()
    return c10d._create_work_from_future(result)


class _Collectives:
    """The collectives of the backend: gloo on host copies (module doc).
    Mixed into a c10d Backend, or into a ProcessGroup where PyTorch cannot
    call a Backend's Python methods (below)."""

    def _start(self, store, rank, size, timeout):
        self._gloo = c10d.ProcessGroupGloo(store, rank, size, timeout)
        self._pool = _HostBuffers()

    def getBackendName(self):  # noqa: N802  (the C++ name PyTorch calls)
        return NAME

    # -- collectives ---------------------------------------------------------

    def _staged(name, *roles):
        """The method `name`: gloo's own for CPU tensors; for clops tensors,
        gloo's on host copies, each argument staged by its role ("in_",
        "out", "inout" of _Staging; None: passed as is)."""
        def method(self, *args):
            if not _any_clops(*args):
                return getattr(self._gloo, name)(*args)
            s = _Staging(self._pool)
            staged = [getattr(s, role)(a) if role else a
                      for role, a in zip(roles, args, strict=True)]
            return _complete(getattr(self._gloo, name)(*staged), s)
        method.__name__ = name
        return method

    allreduce = _staged("allreduce", "inout", None)
    allreduce_coalesced = _staged("allreduce_coalesced", "inout", None)
    allgather = _staged("allgather", "out", "in_", None)
    allgather_coalesced = _staged("allgather_coalesced", "out", "in_", None)
    all_gather_single = _staged("all_gather_single", "out", "in_", None)
    all_gather_single_coalesced = _staged("all_gather_single_coalesced", "out", "in_", None)
    gather = _staged("gather", "out", "in_", None)
    scatter = _staged("scatter", "out", "in_", None)
    reduce_scatter = _staged("reduce_scatter", "out", "in_", None)
    reduce_scatter_single = _staged("reduce_scatter_single", "out", "in_", None)
    reduce_scatter_single_coalesced = _staged("reduce_scatter_single_coalesced", "out", "in_",
                                              None)
    all_to_all_single = _staged("all_to_all_single", "out", "in_", None, None, None)
    alltoall = _staged("alltoall", "out", "in_", None)
    recv = _staged("recv", "out", None, None)

    def broadcast(self, tensors, opts):
        if not _any_clops(tensors):
            return self._gloo.broadcast(tensors, opts)
        s = _Staging(self._pool)
        # the root sends its values and keeps them; the others only receive
        host = s.in_(tensors) if self.rank() == opts.rootRank else s.out(tensors)
        return _complete(self._gloo.broadcast(host, opts), s)

    def reduce(self, tensors, opts):
        if not _any_clops(tensors):
            return self._gloo.reduce(tensors, opts)
        s = _Staging(self._pool)
        host = s.inout(tensors) if self.rank() == opts.rootRank else s.in_(tensors)
        return _complete(self._gloo.reduce(host, opts), s)

    def barrier(self, opts):
        # gloo's barrier moves no tensor: the options' device (maybe clops) is
        # of no use to it
        plain = c10d.BarrierOptions()
        plain.timeout = opts.timeout
        return self._gloo.barrier(plain)

    # -- point to point --------------------------------------------------------

    def send(self, tensors, dst, tag):
        if not _any_clops(tensors):
            return self._gloo.send(tensors, dst, tag)
        host = _Staging().in_(tensors)  # fresh buffers: gloo's Work holds them until sent
        return self._gloo.send(host, dst, tag)

    def recv_anysource(self, tensors, tag):
        if not _any_clops(tensors):
            return self._gloo.recv_anysource(tensors, tag)
        raise NotImplementedError(
            f"clops: torch.distributed.recv without src into a tensor on {tensors[0].device} "
            "(the backend stages through gloo, whose sender rank would be lost): name src, or "
            "receive into a CPU tensor")

    # older PyTorch calls the single-tensor forms by their old names
    _allgather_base = _staged("_allgather_base", "out", "in_", None)
    _reduce_scatter_base = _staged("_reduce_scatter_base", "out", "in_", None)
    alltoall_base = _staged("alltoall_base", "out", "in_", None, None, None)
    del _staged


class ClopsBackend(_Collectives, c10d.Backend):
    """The c10d backend of device "clops", one of a process group's backends."""

    def __init__(self, store, rank, size, timeout):
        c10d.Backend.__init__(self, rank, size)
        self._start(store, rank, size, timeout)


class ClopsProcessGroup(_Collectives, dist.ProcessGroup):
    """The same collectives as a whole process group, for CPU and clops
    tensors: PyTorch before 2.15 has no trampoline that lets C++ (the
    process group's dispatch, DDP) call a Python Backend's methods, only a
    Python ProcessGroup's, and register_backend takes a creator that
    returns one (it then serves every device of the group)."""

    def __init__(self, store, rank, size, timeout):
        dist.ProcessGroup.__init__(self, rank, size)
        self._start(store, rank, size, timeout)


def _python_backends_work():
    """True when C++ calls the methods of a Python subclass of c10d.Backend
    (PyTorch's PyBackend trampoline, 2.15).  Before it, PyTorch either binds
    no constructor for c10d.Backend (2.11: pybind11's TypeError "No
    constructor defined!") or calls the base class's method (RuntimeError
    "getBackendName is not implemented")."""
    class Probe(c10d.Backend):
        def getBackendName(self):  # noqa: N802
            return "probe"
    try:
        return Probe(0, 1).name() == "probe"
    except (RuntimeError, TypeError):
        return False


# Which of the two _create makes: a Backend where PyTorch allows it.
as_process_group = None


def _create(store, rank, size, timeout):
    global as_process_group
    if as_process_group is None:
        as_process_group = not _python_backends_work()
    make = ClopsProcessGroup if as_process_group else ClopsBackend
    return make(store, rank, size, timeout)


def register():
    """Registers the backend "clops" for the devices "clops" and "cpu" (once)."""
    if not dist.is_available() or not dist.is_gloo_available():
        return
    if NAME.upper() in dist.Backend._plugins:
        return
    dist.Backend.register_backend(NAME, _create, devices=["clops", "cpu"])
