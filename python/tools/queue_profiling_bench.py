# SPDX-License-Identifier: Apache-2.0
"""What clops' queue profiling (CL_QUEUE_PROFILING_ENABLE, on by default so
torch.clops.Event(enable_timing=True) can time) costs a chain of pointwise
ops: runs the same chain in fresh processes with CLOPS_QUEUE_PROFILING=0 and
=1, alternating, and prints the median time per op of each.

    python python/tools/queue_profiling_bench.py [--numel N] [--ops K] [--rounds R]

Each process times K dependent `x * 1.0001 + 0.5` ops (2K kernels) on the
default clops device by the host clock, after a warm-up, median of 7 runs.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

CHILD = r"""
import json, sys, time, torch, clops.torch
numel, ops = int(sys.argv[1]), int(sys.argv[2])
x = torch.randn(numel, device="clops")
def chain(x):
    for _ in range(ops):
        x = x * 1.0001 + 0.5
    return x
chain(x); torch.clops.synchronize()
runs = []
for _ in range(7):
    t0 = time.perf_counter(); chain(x); torch.clops.synchronize()
    runs.append((time.perf_counter() - t0) / ops * 1e6)
runs.sort()
print(json.dumps(runs[len(runs) // 2]))
"""


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--numel", type=int, default=4096)
    ap.add_argument("--ops", type=int, default=200)
    ap.add_argument("--rounds", type=int, default=4)
    a = ap.parse_args()
    res = {"0": [], "1": []}
    for _ in range(a.rounds):
        for flag in ("0", "1"):
            env = dict(os.environ, CLOPS_QUEUE_PROFILING=flag)
            out = subprocess.run([sys.executable, "-c", CHILD, str(a.numel), str(a.ops)],
                                 env=env, capture_output=True, text=True, check=True)
            res[flag].append(json.loads(out.stdout.strip().splitlines()[-1]))
    for flag, name in (("0", "profiling off"), ("1", "profiling on ")):
        v = res[flag]
        print(f"{name}: median {statistics.median(v):8.1f} us per op (x*c+d), runs "
              + " ".join(f"{t:.1f}" for t in v))


if __name__ == "__main__":
    main()
