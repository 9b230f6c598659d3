#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""bench/compare_family.py: merges one op family's clops benchmark JSON
(bench_<family>, the rows of bench/cases/<family>.yaml: a list of rows with
"device", "case", "us_per_call" and "torch_case") with the PyTorch side's
JSON for the same descriptor (torch_family.py --family F or torch_<family>.py,
run in the same job on the same GPU or the same CPU cores) into a Markdown
table of times and the ratio  PyTorch time / clops time  (above 1: clops is
faster).

    python3 bench/compare_family.py CLOPS.json TORCH.json [--device LABEL]

Rows without a PyTorch counterpart are listed with an empty ratio.
"""
import argparse
import json


def torch_rows(doc):
    rows = doc["results"] if isinstance(doc, dict) else doc
    return {r.get("torch_case", r.get("case")): r for r in rows}


def table(clops, tdoc, device=None):
    """The Markdown table of clops rows (bench_family's JSON list) beside
    the PyTorch document's rows of the same torch_case, with the ratio."""
    tmap = torch_rows(tdoc)
    where = tdoc.get("device", "?") if isinstance(tdoc, dict) else "?"
    lines = [f"PyTorch on {where}", "",
             "| device | case | clops us | PyTorch us | PyTorch / clops |",
             "| --- | --- | ---: | ---: | ---: |"]
    for r in clops:
        if device and r["device"] != device:
            continue
        t = tmap.get(r.get("torch_case", r["case"]))
        tu = t["us_per_call"] if t else None
        ratio = f"{tu / r['us_per_call']:.2f}" if tu and r["us_per_call"] > 0 else ""
        tus = f"{tu:.1f}" if tu else ""
        lines.append(f"| {r.get('device_name', r['device'])} | {r['case']} | "
                     f"{r['us_per_call']:.1f} | {tus} | {ratio} |")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("clops")
    ap.add_argument("torch")
    ap.add_argument("--device", default=None, help="clops device label (default: every device)")
    args = ap.parse_args()
    with open(args.clops) as f:
        clops = json.load(f)
    with open(args.torch) as f:
        tdoc = json.load(f)
    print(table(clops, tdoc, args.device))


if __name__ == "__main__":
    main()
