#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Sets two op profiles written by `run_model.py --profile` side by side: per
ATen op, calls and milliseconds on each device and the ratio B/A, heaviest
first (by the first file's time), as a Markdown table.

    python python/tools/profile_compare.py clops.json cuda.json [--top 25]
"""
import argparse
import json


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("a")
    p.add_argument("b")
    p.add_argument("--top", type=int, default=25)
    args = p.parse_args()
    a, b = (json.load(open(f)) for f in (args.a, args.b))
    ta = sum(s for _, s in a["ops"].values())
    tb = sum(s for _, s in b["ops"].values())
    print(f"| op | calls | {a['device']} ms | {b['device']} ms | {b['device']} / {a['device']} | share of {a['device']} |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    rows = sorted(set(a["ops"]) | set(b["ops"]), key=lambda op: -a["ops"].get(op, (0, 0.0))[1])
    for op in rows[:args.top]:
        ca, sa = a["ops"].get(op, (0, 0.0))
        cb, sb = b["ops"].get(op, (0, 0.0))
        ratio = f"{sb / sa:.2f}" if sa > 0 and cb else "-"
        print(f"| `{op}` | {ca or cb} | {sa * 1e3:.2f} | {sb * 1e3:.2f} | {ratio} | {100 * sa / ta:.1f}% |")
    print(f"| all ops (synchronised) | | {ta * 1e3:.1f} | {tb * 1e3:.1f} | {tb / ta:.2f} | |")
    print(f"| step (unsynchronised, best) | | {a['step_s'] * 1e3:.1f} | {b['step_s'] * 1e3:.1f} | "
          f"{b['step_s'] / a['step_s']:.2f} | |")


if __name__ == "__main__":
    main()
