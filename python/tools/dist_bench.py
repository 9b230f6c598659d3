#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""What staging costs the backend "clops" (clops/torch/_distributed.py).

Two processes on this machine (loopback TCP) all_reduce the same number of
float32 values, as clops tensors (backend "clops": copy to the host, gloo,
copy back) and as CPU tensors (gloo alone), and each process times the copy
to the host and the copy back by themselves.  Prints the median of --reps
runs of each, in milliseconds, from rank 0.

    python python/tools/dist_bench.py --numel 25000000 --reps 5
"""
import argparse
import os
import socket
import statistics
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

import clops.torch  # noqa: F401


def timed(fn, reps):
    times = []
    for _ in range(reps):
        dist.barrier()
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return 1e3 * statistics.median(times)


def worker(rank, port, numel, reps):
    dist.init_process_group("cpu:gloo,clops:clops", init_method=f"tcp://127.0.0.1:{port}",
                            rank=rank, world_size=2)
    host = torch.full((numel,), float(rank + 1))
    dev = host.to("clops")
    torch.clops.synchronize()
    back = torch.empty_like(host)
    rows = [
        ("all_reduce, CPU tensors (gloo)", lambda: dist.all_reduce(host)),
        ("all_reduce, clops tensors (staged)",
         lambda: (dist.all_reduce(dev), torch.clops.synchronize())),
        ("  of which: copy to the host", lambda: back.copy_(dev)),
        ("  of which: copy back to clops",
         lambda: (dev.copy_(back), torch.clops.synchronize())),
    ]
    results = [(name, timed(fn, reps)) for name, fn in rows]
    if rank == 0:
        mb = numel * 4 / 1e6
        print(f"{numel} float32 ({mb:.0f} MB), 2 processes, {torch.clops.get_device_name()}, "
              f"median of {reps}:")
        for name, ms in results:
            print(f"  {name:<38} {ms:9.1f} ms")
    dist.destroy_process_group()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--numel", type=int, default=25_000_000)
    ap.add_argument("--reps", type=int, default=5)
    args = ap.parse_args()
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    os.environ.setdefault("CLOPS_FALLBACK", "error")
    mp.spawn(worker, args=(port, args.numel, args.reps), nprocs=2, join=True)


if __name__ == "__main__":
    main()
