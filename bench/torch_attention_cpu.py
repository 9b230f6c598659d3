#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""bench/torch_attention_cpu.py: PyTorch's CPU SDPA (float32) on the rows of
bench/cases/attention_cpu_bwd.yaml, forward and backward, to set beside
bench_family's clops rows on POCL (issue 30 on CPU devices, cpu13):

    CLOPS_BENCH_CLOCK=cpu OMP_WAIT_POLICY=PASSIVE python3 bench/torch_attention_cpu.py --threads 2 --reps 3

12 heads, head dim 64, B 1, L 256 and 512, causal and not, and a decoding
row (one query row against 1024 keys).  The forward is
F.scaled_dot_product_attention; the backward is torch.autograd.grad of a
retained forward (its own call: what a training step runs).  Times per call
in us with torch_common.time_call (CLOPS_BENCH_CLOCK=cpu: the process's CPU
time, as bench_family's clock).
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from torch_common import bench_parser, time_call  # noqa: E402

# (B, H, L, S, D); L 1: the decoding row (not causal)
SHAPES = [(1, 12, 256, 256, 64), (1, 12, 512, 512, 64), (1, 12, 1, 1024, 64)]
if os.environ.get("CLOPS_BENCH_SMALL"):
    SHAPES = [(1, 2, 32, 32, 16), (1, 2, 1, 64, 16)]


def main():
    ap = bench_parser()
    args = ap.parse_args()
    import torch
    import torch.nn.functional as F
    if args.threads:
        torch.set_num_threads(args.threads)
    reps = args.reps or 3
    torch.manual_seed(0)
    print(f"torch {torch.__version__} CPU, {torch.get_num_threads()} threads")
    for B, H, L, S, D in SHAPES:
        for causal in (False, True) if L > 1 else (False,):
            tag = ("causal_" if causal else "") + f"B{B}H{H}L{L}E{D}"
            if L == 1:
                tag = f"decode_B{B}H{H}L1S{S}E{D}"
            q = torch.rand(B, H, L, D, requires_grad=True)
            k, v = (torch.rand(B, H, S, D, requires_grad=True) for _ in range(2))
            go = torch.rand(B, H, L, D)
            with torch.no_grad():
                fwd = time_call(lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal),
                                reps, False)
            o = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
            bwd = time_call(lambda: torch.autograd.grad(o, (q, k, v), go, retain_graph=True),
                            reps, False)
            print(f"  fwd_{tag:<28} {fwd * 1e6:12.1f}")
            print(f"  bwd_{tag:<28} {bwd * 1e6:12.1f}")


if __name__ == "__main__":
    main()
