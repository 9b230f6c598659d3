#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""PyTorch's own op tests as a broad sweep of the clops device.

Runs every OpInfo of PyTorch's op database
(torch.testing._internal.common_methods_invocations.op_db) whose op clops binds
to the device (torch.clops.registered_ops()), for every dtype both support:
each sample input on the clops device against the same sample on the CPU, with
torch.testing.assert_close's default tolerances for the dtype.  Writes a
Markdown report (pass / fail / error per op and the first failure's reason).

    python python/tools/opinfo_sweep.py --out docs/torch-opinfo.md
    python python/tools/opinfo_sweep.py --ops add,mul --dtypes float32 --out /tmp/r.md

Slow on POCL (every new kernel is compiled once); not part of CI.
"""
import argparse
import collections
import time

import torch
import clops.torch  # noqa: F401
from torch.testing._internal.common_methods_invocations import op_db
from torch.utils._pytree import tree_map

DTYPES = [torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64,
          torch.float16, torch.bfloat16, torch.float32, torch.float64]


def to_dev(x, dev):
    return x.to(dev) if isinstance(x, torch.Tensor) else x


def compare(actual, expected):
    if isinstance(expected, torch.Tensor):
        torch.testing.assert_close(actual.cpu(), expected, equal_nan=True, check_device=False)
    elif isinstance(expected, (tuple, list)):
        assert len(actual) == len(expected), "result lengths differ"
        for a, e in zip(actual, expected):
            compare(a, e)
    else:
        assert actual == expected or (actual != actual and expected != expected), \
            f"{actual} != {expected}"


def fp64_ok(dev):
    try:
        torch.ones(2, dtype=torch.float64, device=dev).add(1).cpu()
        return True
    except Exception:
        return False


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", default="docs/torch-opinfo.md")
    p.add_argument("--ops", help="comma-separated OpInfo names (default: all clops binds)")
    p.add_argument("--dtypes", help="comma-separated dtypes (default: all clops supports)")
    p.add_argument("--max-samples", type=int, default=12, help="samples per op and dtype")
    p.add_argument("--time-limit", type=float, default=0,
                   help="stop starting new OpInfos after this many seconds (0: no limit); "
                        "the report says where it stopped")
    args = p.parse_args()
    dev = torch.device("clops", torch.clops.current_device())
    bound = {n.split(".")[0] for n in torch.clops.registered_ops()}
    dtypes = [getattr(torch, d) for d in args.dtypes.split(",")] if args.dtypes else DTYPES
    if torch.float64 in dtypes and not fp64_ok(dev):
        dtypes.remove(torch.float64)
    wanted = set(args.ops.split(",")) if args.ops else None
    rows = []
    t0 = time.time()
    stopped = None
    for info in op_db:
        aten = (info.aten_name or info.name).split(".")[0]
        if aten not in bound or (wanted and info.name not in wanted):
            continue
        if args.time_limit and time.time() - t0 > args.time_limit:
            stopped = info.name
            break
        stats = collections.Counter()
        first = ""
        torch.clops.reset_fallback_counts()
        for dt in dtypes:
            if dt not in info.supported_dtypes("cpu"):
                continue
            try:
                samples = list(info.sample_inputs("cpu", dt, requires_grad=False))[:args.max_samples]
            except Exception as e:  # a sample generator that needs something else
                stats["skip"] += 1
                continue
            for s in samples:
                try:
                    expected = info(s.input, *s.args, **s.kwargs)
                except Exception:
                    stats["skip"] += 1  # the CPU refuses it too
                    continue
                try:
                    di, da, dk = tree_map(lambda x: to_dev(x, dev), (s.input, s.args, s.kwargs))
                    actual = info(di, *da, **dk)
                    compare(actual, expected)
                    stats["pass"] += 1
                except AssertionError as e:
                    stats["fail"] += 1
                    first = first or f"{dt}: {str(e).splitlines()[0][:120]}"
                except Exception as e:
                    stats["error"] += 1
                    first = first or f"{dt}: {type(e).__name__}: {str(e).splitlines()[0][:120]}"
        fb = sum(torch.clops.fallback_counts().values())
        rows.append((info.name + (f".{info.variant_test_name}" if info.variant_test_name else ""),
                     stats["pass"], stats["fail"], stats["error"], stats["skip"], fb, first))
        print(f"{rows[-1][0]:32} pass {stats['pass']:4} fail {stats['fail']:3} error {stats['error']:3} "
              f"{first[:80]}", flush=True)
    tot = [sum(r[i] for r in rows) for i in (1, 2, 3, 4)]
    with open(args.out, "w") as f:
        f.write("# OpInfo sweep of the clops PyTorch device\n\n")
        f.write("Generated by `python/tools/opinfo_sweep.py` (PyTorch's OpInfo samples on the clops "
                f"device against the CPU, default tolerances per dtype). PyTorch {torch.__version__}, "
                f"device {torch.clops.get_device_name()}, dtypes "
                f"{', '.join(str(d).replace('torch.', '') for d in dtypes)}, at most "
                f"{args.max_samples} samples per op and dtype, {time.time() - t0:.0f} s.\n\n")
        f.write(f"Totals over {len(rows)} OpInfos: {tot[0]} passed, {tot[1]} failed, {tot[2]} errors, "
                f"{tot[3]} skipped (the CPU refuses the sample too).  `cpu fallbacks` counts calls "
                "that left the device while the op ran (ops used by the sample's composite parts).\n\n")
        if stopped:
            f.write(f"Stopped by `--time-limit {args.time_limit:g}` before OpInfo `{stopped}`: the "
                    "OpInfos after it in PyTorch's op_db order are not in this run.\n\n")
        f.write("| OpInfo | pass | fail | error | skip | cpu fallbacks | first failure |\n")
        f.write("| --- | ---: | ---: | ---: | ---: | ---: | --- |\n")
        for r in rows:
            f.write(f"| {r[0]} | {r[1]} | {r[2]} | {r[3]} | {r[4]} | {r[5]} | "
                    f"{r[6].replace('|', '/')} |\n")
    print(f"{len(rows)} OpInfos: {tot[0]} passed, {tot[1]} failed, {tot[2]} errors -> {args.out}")


if __name__ == "__main__":
    main()
