# SPDX-License-Identifier: Apache-2.0
"""Streams and events of the device "clops" (docs/torch.md, "Streams and
events"): torch.Stream / torch.Event and torch.clops.Stream / Event,
current stream, waits, queries, and timing events whose elapsed_time
(milliseconds, from the queue's profiling) brackets the work between them."""
import os
import subprocess
import sys
import time

import pytest
import torch

import clops.torch  # noqa: F401

from conftest import assert_close


def chain(x, n):
    """n small pointwise ops on the device."""
    for _ in range(n):
        x = x * 1.0001 + 0.5
    return x


def test_event_timing(dev, no_fallback):
    x = torch.randn(1 << 16, device=dev)
    chain(x, 2)
    torch.clops.synchronize()
    start = torch.clops.Event(enable_timing=True)
    end = torch.clops.Event(enable_timing=True)
    t0 = time.perf_counter()
    start.record()
    y = chain(x, 50)
    end.record()
    end.synchronize()
    wall = (time.perf_counter() - t0) * 1e3
    assert end.query() and start.query()
    ms = start.elapsed_time(end)
    assert isinstance(ms, float)
    # the markers bracket the work: positive, and within the host's own
    # measurement of enqueue-to-completion (1 ms of slack for clock grain)
    assert 0 < ms <= wall + 1.0, (ms, wall)
    assert_close(y, chain(x.cpu(), 50))
    # an empty interval is short; a reversed one is negative
    a = torch.clops.Event(enable_timing=True)
    b = torch.clops.Event(enable_timing=True)
    a.record()
    b.record()
    b.synchronize()         # PyTorch's check, as on CUDA: both must have completed
    assert abs(a.elapsed_time(b)) <= ms
    assert end.elapsed_time(start) == pytest.approx(-ms)


def test_event_more_work_takes_longer(dev):
    x = torch.randn(1 << 18, device=dev)
    chain(x, 2)
    times = {2: [], 100: []}
    for _ in range(3):            # the least of 3: other processes share the CPU
        for n in times:
            e0 = torch.Event(device="clops", enable_timing=True)
            e1 = torch.Event(device="clops", enable_timing=True)
            e0.record()
            chain(x, n)
            e1.record()
            e1.synchronize()
            times[n].append(e0.elapsed_time(e1))
    assert min(times[100]) > min(times[2]), times


def test_event_errors(dev):
    plain = torch.clops.Event()
    timed = torch.clops.Event(enable_timing=True)
    assert plain.query() and timed.query()          # never recorded: done
    plain.synchronize()
    timed.record()
    with pytest.raises((RuntimeError, ValueError), match="recorded"):
        timed.elapsed_time(torch.clops.Event(enable_timing=True))   # end not recorded
    plain.record()
    timed.synchronize()
    with pytest.raises((RuntimeError, ValueError), match="enable_timing"):
        plain.elapsed_time(timed)
    with pytest.raises(RuntimeError, match="interprocess"):
        torch.clops.Event(interprocess=True)


def test_streams(dev, no_fallback):
    default = torch.clops.current_stream()
    assert default == torch.clops.default_stream()
    assert default.stream_id == 0 and default.device.type == "clops"
    s1 = torch.clops.Stream()
    s2 = torch.Stream(device="clops")
    assert isinstance(s1, torch.Stream)
    assert len({default.stream_id, s1.stream_id, s2.stream_id}) == 3
    assert s1.device == torch.device("clops", torch.clops.current_device())
    x = torch.randn(64, 64, device=dev)
    with torch.clops.stream(s1):
        assert torch.clops.current_stream() == s1
        if hasattr(torch.accelerator, "current_stream"):
            assert torch.accelerator.current_stream() == s1
        y = x @ x
        e = s1.record_event()
    assert torch.clops.current_stream() == default
    s2.wait_event(e)
    s2.wait_stream(s1)
    with s2:                                          # torch.Stream as context manager
        assert torch.clops.current_stream() == s2
        z = y + 1
    assert torch.clops.current_stream() == default
    s2.synchronize()
    assert s2.query() and s1.query() and e.query()
    assert_close(z, (x.cpu() @ x.cpu()) + 1, rtol=1e-4, atol=1e-4)
    torch.clops.set_stream(s1)
    assert torch.clops.current_stream() == s1
    torch.clops.set_stream(default)
    with torch.clops.stream(None):                    # None: no change
        assert torch.clops.current_stream() == default


def test_backward_on_another_stream(dev, no_fallback):
    torch.manual_seed(0)
    w = torch.randn(8, 8)
    x = torch.randn(4, 8)
    want = w.clone().requires_grad_(True)
    (x @ want).relu().sum().backward()
    s = torch.clops.Stream()
    leaf = w.to(dev).requires_grad_(True)
    with torch.clops.stream(s):
        (x.to(dev) @ leaf).relu().sum().backward()
    torch.clops.synchronize()
    assert_close(leaf.grad, want.grad)


def test_profiling_off_says_so():
    code = ("import torch, clops.torch\n"
            "a = torch.clops.Event(enable_timing=True); b = torch.clops.Event(enable_timing=True)\n"
            "a.record(); b.record(); b.synchronize()\n"
            "try:\n    a.elapsed_time(b)\nexcept RuntimeError as e:\n    print('ERR', e)\n")
    env = dict(os.environ, CLOPS_QUEUE_PROFILING="0")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr
    assert "ERR" in out.stdout and "without profiling" in out.stdout, out.stdout


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
def test_cuda_and_clops_events_in_one_process(dev):
    """The vendor comparison: CUDA events and clops events time the same
    work in one process (GPU job)."""
    xc = torch.randn(1 << 20, device="cuda")
    xo = xc.to(dev)
    times = {}
    for name, x, mod in (("cuda", xc, torch.cuda), ("clops", xo, torch.clops)):
        chain(x, 2)
        a, b = mod.Event(enable_timing=True), mod.Event(enable_timing=True)
        a.record()
        chain(x, 20)
        b.record()
        b.synchronize()
        times[name] = a.elapsed_time(b)
        assert times[name] > 0
    ea, eb = torch.Event(device="cuda", enable_timing=True), \
        torch.Event(device="clops", enable_timing=True)
    ea.record()
    eb.record()
    ea.synchronize()
    eb.synchronize()
    assert ea.query() and eb.query()
    print("clops.torch: 20 pointwise ops of 1M floats:", times)
