#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""bench/cpu_families.py: the CPU-device table of issue 36 in one command:
each family's bench_<family> on a CPU OpenCL device (POCL) against
torch_family.py on the CPU with the same thread count, in one job, with
the builds (one or several trees, e.g. before and after a change)
alternated over --rounds rounds, so every ratio has a PyTorch time taken
beside it.

    python3 bench/cpu_families.py BUILD [BUILD...] [--scale 16] [--rounds 2]
        [--threads N] [--families reduce,norm,pool,index,scan] [--reps 20]
        [--device pocl] [--out DIR] [--python PY]

Prints one Markdown table: for each row, PyTorch's median time over the
rounds and, for each build, the ratio PyTorch time / clops time of each
round (PyTorch's time of the same round), then the build's median clops
time, and the last build's kernel launches per call (what the per-call
floor of a CPU device multiplies).  --no-torch leaves PyTorch out (the clops times alone: with
CLOPS_BENCH_CLOCK=cpu in the environment, CPU time per call, which compares
two builds on a machine too loaded for wall times).  --out keeps every JSON (default: a temporary folder).  --threads
defaults to the number of online CPUs (what POCL uses).  --python is the
interpreter with torch (default: this one).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def rows_of(path, key):
    """{case: row[key]} of the rows of a bench JSON that have key (a missing
    or unreadable file: none; launches are absent in JSON of older builds)."""
    try:
        with open(path) as f:
            doc = json.load(f)
    except (OSError, ValueError):
        return {}
    rows = doc["results"] if isinstance(doc, dict) else doc
    return {row.get("torch_case", row.get("case")): row[key] for row in rows
            if row.get(key) is not None}


def run_json(cmd, path):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if r.returncode != 0:
        sys.stderr.write(f"# {' '.join(cmd)}: exit {r.returncode}\n{r.stdout[-2000:]}\n")
    return rows_of(path, "us_per_call")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("builds", nargs="+", help="build folders (with bench/bench_family)")
    ap.add_argument("--scale", default="16")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--reps", default="20")
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    ap.add_argument("--families", default="reduce,norm,pool,index,scan")
    ap.add_argument("--device", default="pocl")
    ap.add_argument("--case", default=None, help="only rows whose id matches this glob")
    ap.add_argument("--out", default=None)
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--no-torch", action="store_true",
                    help="clops builds only (e.g. with CLOPS_BENCH_CLOCK=cpu: CPU time per call)")
    args = ap.parse_args()
    out = args.out or tempfile.mkdtemp(prefix="clops-cpufam.")
    os.makedirs(out, exist_ok=True)
    fams = [f for f in args.families.split(",") if f]
    case = ["--case", args.case] if args.case else []
    # clops[b][fam][round] = {case: us}; torch[fam][round] = {case: us}
    clops = [{f: [] for f in fams} for _ in args.builds]
    torch = {f: [] for f in fams}
    order = {f: [] for f in fams}
    launches = {f: {} for f in fams}  # of the last build
    for rnd in range(args.rounds):
        for fam in fams:
            for b, build in enumerate(args.builds):
                path = os.path.join(out, f"clops{b}_{fam}_r{rnd}.json")
                exe = os.path.join(build, "bench", "bench_family")
                got = run_json([exe, "--family", fam, "--device", args.device, "--scale",
                                args.scale, "--reps", args.reps, "--json", path] + case, path)
                clops[b][fam].append(got)
                if b == len(args.builds) - 1:
                    launches[fam].update(rows_of(path, "launches"))
                for c in got:
                    if c not in order[fam]:
                        order[fam].append(c)
            if args.no_torch:
                torch[fam].append({})
                continue
            path = os.path.join(out, f"torch_{fam}_r{rnd}.json")
            env_cmd = [args.python, os.path.join(HERE, "torch_family.py"), "--family", fam,
                       "--cpu", "--threads", str(args.threads), "--scale", args.scale,
                       "--reps", args.reps, "--json", path] + case
            torch[fam].append(run_json(env_cmd, path))
    names = [os.path.basename(os.path.abspath(b)) or b for b in args.builds]
    head = "| family | case | PyTorch us |" + "".join(
        f" {n}: PyTorch / clops | {n} us |" for n in names) + " launches |"
    print(f"# {args.device}, --scale {args.scale}, PyTorch --threads {args.threads}, "
          f"{args.rounds} rounds; JSON in {out}\n")
    print(head)
    print("| --- | --- | ---: |" + " ---: | ---: |" * len(names) + " ---: |")
    for fam in fams:
        for c in order[fam]:
            tus = [t.get(c) for t in torch[fam]]
            tmed = statistics.median([t for t in tus if t]) if any(tus) else None
            line = f"| {fam} | {c} | {tmed:.0f} |" if tmed else f"| {fam} | {c} | |"
            for b in range(len(args.builds)):
                ratios, uss = [], []
                for rnd in range(args.rounds):
                    us = clops[b][fam][rnd].get(c) if rnd < len(clops[b][fam]) else None
                    t = tus[rnd] if rnd < len(tus) else None
                    if us:
                        uss.append(us)
                    ratios.append(f"{t / us:.2f}" if us and t else "-")
                med = f"{statistics.median(uss):.0f}" if uss else ""
                line += f" {' / '.join(ratios)} | {med} |"
            nl = launches[fam].get(c)
            print(line + (f" {nl:.0f} |" if nl is not None else " |"))


if __name__ == "__main__":
    main()
