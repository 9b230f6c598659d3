#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Host-to-device upload from ordinary and from pinned (pin_memory()) host
memory, into the same clops tensor: median of --reps, in ms and GB/s.

    python python/tools/upload_bench.py --numel 25000000 --reps 9
"""
import argparse
import statistics
import time

import torch

import clops.torch  # noqa: F401


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--numel", type=int, default=25_000_000)
    ap.add_argument("--reps", type=int, default=9)
    args = ap.parse_args()
    plain = torch.randn(args.numel)
    pinned = plain.pin_memory()
    dst = torch.empty_like(plain, device="clops")
    print(f"{args.numel} float32 ({plain.nbytes / 1e6:.0f} MB) to {torch.clops.get_device_name()}, "
          f"median of {args.reps}:")
    for name, src in (("ordinary", plain), ("pinned", pinned), ("ordinary", plain),
                      ("pinned", pinned)):
        times = []
        for _ in range(args.reps):
            t0 = time.perf_counter()
            dst.copy_(src, non_blocking=True)
            torch.clops.synchronize()
            times.append(time.perf_counter() - t0)
        ms = 1e3 * statistics.median(times)
        print(f"  {name:<9} {ms:8.1f} ms  {plain.nbytes / ms / 1e6:6.2f} GB/s")
    assert torch.equal(dst.cpu(), plain)


if __name__ == "__main__":
    main()
