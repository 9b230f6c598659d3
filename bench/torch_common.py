# SPDX-License-Identifier: Apache-2.0
"""bench/torch_common.py: the timing (and, for the family scripts, the
command-line options: bench_parser, bench_device) the PyTorch side of
every op-family benchmark shares (torch_family.py and the scripts that
are not op rows: torch_gemm.py), so that the PyTorch and clops figures of one job are taken
the same way as the C benchmarks' time_calls (bench/bench_common.h): one
warm-up call, then the median over `batches` batches of `reps` calls,
timed with CUDA events on the GPU and perf_counter on the CPU.  torch is
imported where it is used, so torch_family.py --list runs without it.

time_like_clops is the other method: the one of `clops bench` and
`clops compare` (time_calls in tools/check/check_bench.c), for the PyTorch
column of `clops compare --torch` (torch_cases.py)."""
import math
import os
import statistics
import time


def time_call(fn, reps, cuda, batches=5):
    """Median seconds per call of fn(); cuda: time on the current CUDA stream."""
    import torch
    fn()
    if cuda:
        torch.cuda.synchronize()
    times = []
    for _ in range(batches):
        if cuda:
            start = torch.cuda.Event(enable_timing=True)
            end = torch.cuda.Event(enable_timing=True)
            start.record()
            for _ in range(reps):
                fn()
            end.record()
            torch.cuda.synchronize()
            times.append(start.elapsed_time(end) / 1e3 / reps)
        else:
            t0 = cpu_clock()
            for _ in range(reps):
                fn()
            times.append((cpu_clock() - t0) / reps)
    return statistics.median(times)


def cpu_clock():
    """Seconds on the clock of the CPU timings: perf_counter, or with
    CLOPS_BENCH_CLOCK=cpu the process's CPU time (all its threads), as
    bench_common.h's clock does for the clops side; on a machine too loaded
    for wall times both sides then count the work of a call (run PyTorch
    with OMP_WAIT_POLICY=PASSIVE so idle OpenMP threads do not spin)."""
    if os.environ.get("CLOPS_BENCH_CLOCK") == "cpu":
        return time.process_time()
    return time.perf_counter()


def bench_parser():
    """The options every family script takes: --scale, --reps, --cpu,
    --threads, --json (a script adds its own to the parser it gets)."""
    import argparse
    ap = argparse.ArgumentParser()
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--cpu", action="store_true", help="run on the CPU even if CUDA is there")
    ap.add_argument("--threads", type=int, default=0, help="CPU threads (0: PyTorch's default)")
    ap.add_argument("--json")
    return ap


def bench_device(args):
    """(cuda, device name) for the parsed options; on the CPU, --threads
    sets PyTorch's thread count."""
    import torch
    cuda = torch.cuda.is_available() and not args.cpu
    if not cuda and args.threads > 0:
        torch.set_num_threads(args.threads)
    return cuda, "cuda" if cuda else "cpu"


def time_like_clops(fn, reps, sync):
    """Median seconds per call of fn() as tools/check/check_bench.c's
    time_calls takes it: two untimed calls, one timed call that sizes a
    batch to last about 2 ms (1 to 64 calls), then `reps` batches on the
    wall clock, each ended by one sync() (torch.cuda.synchronize on the
    GPU, nothing on the CPU); the median of the batches' time per call."""
    fn()
    sync()
    fn()
    sync()
    t0 = time.perf_counter()
    fn()
    sync()
    one = time.perf_counter() - t0
    batch = min(64, max(1, math.ceil(2e-3 / one))) if one > 0 else 64
    times = []
    for _ in range(max(1, reps)):
        t0 = time.perf_counter()
        for _ in range(batch):
            fn()
        sync()
        times.append((time.perf_counter() - t0) / batch)
    return statistics.median(times), batch
