#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""bench/torch_gemm.py: PyTorch's float32 matrix products (cuBLAS, TF32 off)
on the GPU shapes of bench_gemm.c, so a run on the GPU machine compares
clops/CLBlast with PyTorch on the same GPU in the same session.

    python3 bench/torch_gemm.py [--big] [--gpt2] [--dtype float32|float16|bfloat16]
                                [--tf32 [--tf32-ties]] [--cpu [--threads N]] [--json FILE]

Shapes (M x N x K, "b x" for a batch): square 1024 and 4096 (8192 with
--big), the transformer MLP 4096 x 4096 x 11008 and attention scores
32 x 512 x 512 x 64 (bmm).  Operands are uniform in [-1, 1), outputs
preallocated (torch.mm/torch.bmm with out=), each figure the best of several
CUDA-event-timed rounds after a warm-up call, as bench_gemm does.  --cpu
times bench_gemm's CPU-device shapes with PyTorch's CPU matmul instead (on
--threads threads), for the POCL comparison.
"""
import time
import argparse
import json

import torch

SHAPES = [
    ("square 1024", 1, 1024, 1024, 1024),
    ("square 4096", 1, 4096, 4096, 4096),
    ("mlp 4096x4096x11008", 1, 4096, 4096, 11008),
    ("attention 32x512x512x64", 32, 512, 512, 64),
    ("square 8192", 1, 8192, 8192, 8192),
]
CPU_SHAPES = [
    ("square 256", 1, 256, 256, 256),
    ("square 512", 1, 512, 512, 512),
    ("mlp 512x512x1376", 1, 512, 512, 1376),
    ("attention 8x128x128x64", 8, 128, 128, 64),
]
# bench_gemm --skinny: decode-style (M or N <= 16) and deep products; "(B^T)"
# takes B as the transpose of an [N, K] weight, as a linear layer does.
SKINNY = [
    ("decode 1x4096x4096 (B^T)", 1, 1, 4096, 4096),
    ("decode 1x4096x4096", 1, 1, 4096, 4096),
    ("decode 8x4096x4096 (B^T)", 1, 8, 4096, 4096),
    ("decode 16x11008x4096 (B^T)", 1, 16, 11008, 4096),
    ("decode 1x4096x11008 (B^T)", 1, 1, 4096, 11008),
    ("N=1 4096x1x4096", 1, 4096, 1, 4096),
    ("deep 256x256x16384", 1, 256, 256, 16384),
    ("deep 512x512x8192", 1, 512, 512, 8192),
    ("deep 1024x768x16384", 1, 1024, 768, 16384),
]
GPT2 = [
    ("gpt2 c_attn 4096x2304x768", 1, 4096, 2304, 768),
    ("gpt2 c_proj 4096x768x768", 1, 4096, 768, 768),
    ("gpt2 c_fc 4096x3072x768", 1, 4096, 3072, 768),
    ("gpt2 mlp c_proj 4096x768x3072", 1, 4096, 768, 3072),
    ("gpt2 lm_head 4096x50257x768", 1, 4096, 50257, 768),
]


def best_seconds_cpu(fn, min_seconds=0.5, rounds=5):
    fn()
    t0 = time.perf_counter()
    fn()
    one = max(time.perf_counter() - t0, 1e-6)
    reps = max(1, int(min_seconds / rounds / one))
    best = float("inf")
    for _ in range(rounds):
        t0 = time.perf_counter()
        for _ in range(reps):
            fn()
        best = min(best, (time.perf_counter() - t0) / reps)
    return best


def best_seconds(fn, min_seconds=0.5, rounds=5):
    if not torch.cuda.is_available():
        return best_seconds_cpu(fn, min_seconds, rounds)
    fn()
    torch.cuda.synchronize()
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    start.record()
    fn()
    end.record()
    torch.cuda.synchronize()
    one = max(start.elapsed_time(end) / 1e3, 1e-6)
    reps = max(1, int(min_seconds / rounds / one))
    best = float("inf")
    for _ in range(rounds):
        start.record()
        for _ in range(reps):
            fn()
        end.record()
        torch.cuda.synchronize()
        best = min(best, start.elapsed_time(end) / 1e3 / reps)
    return best


def tf32_ties(dev):
    """How cuBLAS's TF32 (mm, B the transpose of a weight, as bench_gemm --bt)
    converts float32: A's rows in turn 1 + 3 * 2^-12, 1 + 2^-11 and
    1 + 3 * 2^-11, B's elements 1, K 16, so C's rows are 16 times the values
    as converted (test_gemm_engine's float32_tf32_conversion_and_transposed_tiles
    asks the same of clops)."""
    vals = [1 + 3 * 2.0**-12, 1 + 2.0**-11, 1 + 3 * 2.0**-11]
    # (what each becomes: to nearest with ties away, with ties to even, truncated)
    conv = {"ties away": [1 + 2.0**-10, 1 + 2.0**-10, 1 + 2.0**-9],
            "ties to even": [1 + 2.0**-10, 1.0, 1 + 2.0**-9],
            "truncation": [1.0, 1.0, 1 + 2.0**-10]}
    m = n = 4096
    a = torch.tensor(vals, device=dev).repeat(m // 3 + 1)[:m].reshape(m, 1).expand(m, 16).contiguous()
    w = torch.ones(n, 16, device=dev)
    c = (a @ w.t()).cpu()
    got = [c[i, 0].item() / 16 for i in range(3)]
    same = [bool((c[i::3] == c[i, 0]).all()) for i in range(3)]
    kind = [k for k, v in conv.items() if v == got]
    print(f"  TF32 ties: 16 * conversion of {vals}: {[16 * g for g in got]} "
          f"(rows alike: {same}): {kind[0] if kind else 'none of ties away / to even / truncation'}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--big", action="store_true", help="include square 8192")
    ap.add_argument("--gpt2", action="store_true", help="GPT-2 124M's products instead")
    ap.add_argument("--skinny", action="store_true", help="decode and deep products instead")
    ap.add_argument("--dtype", default="float32", choices=["float32", "float16", "bfloat16"])
    ap.add_argument("--tf32", action="store_true", help="allow TF32 for float32")
    ap.add_argument("--cpu", action="store_true", help="PyTorch's CPU matmul, CPU shapes")
    ap.add_argument("--threads", type=int, default=0, help="CPU threads (--cpu)")
    ap.add_argument("--json", help="write the figures here")
    ap.add_argument("--tf32-ties", action="store_true",
                    help="first print how cuBLAS's TF32 rounds ties (with --tf32)")
    args = ap.parse_args()
    torch.backends.cuda.matmul.allow_tf32 = args.tf32
    torch.backends.cudnn.allow_tf32 = args.tf32
    dt = getattr(torch, args.dtype)
    if args.cpu:
        if args.threads:
            torch.set_num_threads(args.threads)
        dev = torch.device("cpu")
        print(f"PyTorch {torch.__version__} CPU, {torch.get_num_threads()} threads: {args.dtype}")
    else:
        dev = torch.device("cuda")
        print(f"PyTorch {torch.__version__} on {torch.cuda.get_device_name()}: {args.dtype}, "
              f"TF32 {'on' if args.tf32 else 'off'}")
    if args.tf32_ties:
        tf32_ties(dev)
    rows = []
    shapes = CPU_SHAPES if args.cpu else SKINNY if args.skinny else GPT2 if args.gpt2 else SHAPES
    for name, b, m, n, k in shapes:
        if name == "square 8192" and not args.big:
            continue
        if b == 1:
            a = (torch.rand(m, k, device=dev) * 2 - 1).to(dt)
            w = (torch.rand(k, n, device=dev) * 2 - 1).to(dt)
            if "(B^T)" in name:
                w = (torch.rand(n, k, device=dev) * 2 - 1).to(dt).t()
            out = torch.empty(m, n, device=dev, dtype=dt)
            secs = best_seconds(lambda: torch.mm(a, w, out=out))
        else:
            a = (torch.rand(b, m, k, device=dev) * 2 - 1).to(dt)
            w = (torch.rand(b, k, n, device=dev) * 2 - 1).to(dt)
            out = torch.empty(b, m, n, device=dev, dtype=dt)
            secs = best_seconds(lambda: torch.bmm(a, w, out=out))
        tflops = 2.0 * b * m * n * k / secs / 1e12
        print(f"  {name:28s} {tflops:8.1f} TFLOP/s")
        rows.append({"shape": name, "batch": b, "m": m, "n": n, "k": k, "tflops": round(tflops, 2)})
        del a, w, out
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"torch": torch.__version__,
                       "device": "cpu" if args.cpu else torch.cuda.get_device_name(),
                       "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
