#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""bench/torch_reduce.py: PyTorch on the cases of bench_reduce.c, so a run on
the GPU machine compares clops with PyTorch on the same GPU in one session
(and, with --cpu, PyTorch on the host CPU against POCL).

    python3 bench/torch_reduce.py [--scale S] [--reps N] [--cpu] [--threads T]
                                  [--json FILE]

Each case calls the op into a preallocated output (out=) in batches of
back-to-back calls, median of batches (CUDA events on the GPU, a monotonic
clock after torch.cuda.synchronize or on the CPU), and reports the bytes
read and written once, exactly as bench_reduce counts them, under the same
case names.  copy_f32 is PyTorch's own copy of N*N float32 for reference.
"""
import json
import math

import torch

from torch_common import bench_device, bench_parser, time_call


def main():
    args = bench_parser().parse_args()
    cuda, dev = bench_device(args)
    scale = max(args.scale, 1.0)
    n = int(8192 / math.sqrt(scale))
    m = int((1 << 20) / scale)
    bsz = max(2, int(32 / scale))
    results = []

    def case(name, fn, nbytes):
        t = time_call(fn, args.reps, cuda)
        results.append({"torch_case": name, "gbs": nbytes / t / 1e9, "us_per_call": t * 1e6})

    x = torch.ones(n, n, device=dev)
    y = torch.empty_like(x)
    case("copy_f32", lambda: y.copy_(x), 2 * 4 * n * n)
    o = torch.empty(n, device=dev)
    oi = torch.empty(n, device=dev, dtype=torch.int64)
    o0 = torch.empty((), device=dev)
    rows = 4 * n * n + 4 * n
    case("sum_rows_f32", lambda: torch.sum(x, 1, out=o), rows)
    case("sum_cols_f32", lambda: torch.sum(x, 0, out=o), rows)
    case("sum_all_f32", lambda: torch.sum(x, (0, 1), out=o0), 4 * n * n + 4)
    case("mean_rows_f32", lambda: torch.mean(x, 1, out=o), rows)
    case("amax_rows_f32", lambda: torch.amax(x, 1, out=o), rows)
    case("var_rows_f32", lambda: torch.var(x, 1, out=o), rows)
    case("argmax_rows_f32", lambda: torch.argmax(x, 1, out=oi), 4 * n * n + 8 * n)
    for name, dt in (("sum_short_rows_f32", torch.float32), ("sum_short_rows_bf16", torch.bfloat16)):
        s = torch.ones(m, 64, device=dev, dtype=dt)
        so = torch.empty(m, device=dev, dtype=dt)
        es = s.element_size()
        case(name, lambda s=s, so=so: torch.sum(s, 1, out=so), es * (m * 64 + m))
    y = torch.empty_like(x)
    case("softmax_rows_f32", lambda: torch._softmax(x, 1, False, out=y), 8 * n * n)
    case("log_softmax_rows_f32", lambda: torch._log_softmax(x, 1, False, out=y), 8 * n * n)
    # x is both the gradient and the softmax output (bench_reduce.c does the same)
    case("softmax_backward_rows_f32",
         lambda: torch.ops.aten._softmax_backward_data.out(x, x, 1, torch.float32, grad_input=y),
         12 * n * n)
    xb = torch.ones(n, n, device=dev, dtype=torch.bfloat16)
    yb = torch.empty_like(xb)
    case("softmax_rows_bf16", lambda: torch._softmax(xb, 1, False, out=yb), 4 * n * n)
    w = torch.ones(n, device=dev)
    b = torch.zeros(n, device=dev)
    case("layer_norm_rows_f32", lambda: torch.ops.aten.native_layer_norm(x, [n], w, b, 1e-5),
         8 * n * n)
    case("rms_norm_rows_f32", lambda: torch.ops.aten.rms_norm(x, [n], w, 1e-6), 8 * n * n)
    # batch norm (training: statistics, running-stat update, normalization;
    # evaluation) and group norm (32 groups) of a [B, 256, 56, 56] activation
    del x, y, xb, yb
    a = torch.ones(bsz, 256, 56, 56, device=dev)
    cw = torch.ones(256, device=dev)
    cb = torch.zeros(256, device=dev)
    rm = torch.zeros(256, device=dev)
    rv = torch.ones(256, device=dev)
    nb = 8 * a.numel()
    case("batch_norm_train_f32",
         lambda: torch.ops.aten.native_batch_norm(a, cw, cb, rm, rv, True, 0.1, 1e-5), nb)
    case("batch_norm_eval_f32",
         lambda: torch.ops.aten.native_batch_norm(a, cw, cb, rm, rv, False, 0.1, 1e-5), nb)
    case("group_norm_f32",
         lambda: torch.ops.aten.native_group_norm(a, cw, cb, bsz, 256, 56 * 56, 32, 1e-5), nb)
    name = torch.cuda.get_device_name() if cuda else f"cpu ({torch.get_num_threads()} threads)"
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"device": name, "torch": torch.__version__, "n": n, "m": m,
                       "b": bsz, "results": results}, f, indent=1)
    print(f"torch {torch.__version__} on {name}, N = {n}, M = {m}, B = {bsz}")
    for r in results:
        print(f"  {r['torch_case']:24s} {r['gbs']:10.1f} GB/s {r['us_per_call']:10.1f} us")


if __name__ == "__main__":
    main()
