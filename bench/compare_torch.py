#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""bench/compare_torch.py: merges bench_pointwise's JSON with
torch_pointwise.py's (same GPU, same session) into a Markdown table of
GB/s, ratio to the device's copy peak and ratio to PyTorch.

    python3 bench/compare_torch.py CLOPS.json TORCH.json [--device LABEL]
"""
import argparse
import json


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("clops")
    ap.add_argument("torch")
    ap.add_argument("--device", default=None, help="clops device label to compare (default: all)")
    args = ap.parse_args()
    clops = json.load(open(args.clops))
    torch = json.load(open(args.torch))
    tmap = {r["torch_case"]: r for r in torch["results"]}
    print(f"PyTorch {torch['torch']} on {torch['device']}; copy_ reference "
          f"{tmap.get('copy_f32', {}).get('gbs', float('nan')):.0f} GB/s\n")
    print("| device | case | clops GB/s | / copy peak | PyTorch GB/s | clops / PyTorch |")
    print("| --- | --- | ---: | ---: | ---: | ---: |")
    for r in clops:
        if args.device and r["device"] != args.device:
            continue
        t = tmap.get(r["torch_case"])
        tg = t["gbs"] if t else float("nan")
        print(f"| {r['device_name']} | {r['case']} | {r['gbs']:.0f} | {r['ratio_to_peak']:.2f} | "
              f"{tg:.0f} | {r['gbs'] / tg:.2f} |")


if __name__ == "__main__":
    main()
