#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""bench/torch_attention.py: PyTorch's default SDPA on the shapes of
bench/cases/attention.yaml, forward and backward, to set beside clops'
rows of the same job (bench_attention: the forward rows run
scaled_dot_product_attention, the backward rows _fused_attention_backward).

    python3 bench/torch_attention.py [--reps N] [--cpu] [--threads T] [--json FILE]
                                     [--dtypes float32,bfloat16] [--efficient]

GPT-2 (B 8, 12 heads, L 1024, head dim 64, causal) and a Llama shape (B 2,
32 query heads over 8 key/value heads, L 2048, head dim 128, causal,
enable_gqa), float32 and bfloat16: the forward alone, and the backward
alone (torch.autograd.grad of a retained forward), timed with
torch_common.time_call (CUDA events on the GPU).  PyTorch picks its backend
as it does by default (flash for bfloat16, memory-efficient for float32 on
the H100); the chosen backend is printed.  flop as in the descriptor:
forward 4*B*H*L*L*D/2 (causal), backward 2.5 times that.  --dtypes: a subset
of the two; --efficient (attn14): also the float32 forward on the
memory-efficient kernel forced (sdpa_kernel; key/value heads repeated for
grouped-query shapes), the kernel PyTorch runs for float32 on sm80+ where
GQA does not send it to the math path.
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from torch_common import bench_device, bench_parser, time_call  # noqa: E402

SHAPES = [("gpt2", 8, 12, 12, 1024, 64), ("llama", 2, 32, 8, 2048, 128)]
if os.environ.get("CLOPS_BENCH_SMALL"):  # a quick run of the script itself
    SHAPES = [("gpt2", 1, 2, 2, 64, 64), ("llama", 1, 4, 2, 64, 128)]


def main():
    ap = bench_parser()
    ap.add_argument("--dtypes", default="float32,bfloat16")
    ap.add_argument("--efficient", action="store_true")
    args = ap.parse_args()
    import torch
    import torch.nn.functional as F
    cuda, dev = bench_device(args)
    reps = args.reps or 10
    results = []
    print(f"torch {torch.__version__} on {dev}: default SDPA, causal")
    for name, B, H, Hkv, L, D in SHAPES:
        for dt in [getattr(torch, n) for n in args.dtypes.split(",")]:
            g = torch.Generator(device="cpu").manual_seed(0)
            q = torch.randn(B, H, L, D, generator=g).to(dev, dt).requires_grad_(True)
            k = torch.randn(B, Hkv, L, D, generator=g).to(dev, dt).requires_grad_(True)
            v = torch.randn(B, Hkv, L, D, generator=g).to(dev, dt).requires_grad_(True)
            gqa = H != Hkv
            fwd = lambda: F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=gqa)  # noqa: E731
            o = fwd()
            go = torch.randn_like(o)
            bwd = lambda: torch.autograd.grad(o, (q, k, v), go, retain_graph=True)  # noqa: E731
            flop = 2.0 * B * H * L * L * D
            tag = "f32" if dt == torch.float32 else "bf16"
            backend = o.grad_fn.name() if o.grad_fn is not None else "?"
            fs = f"sdpa_fwd_{name}_{tag}"
            runs = [(fs, fwd, flop, backend), (f"attn_bwd_{name}_{tag}", bwd, 2.5 * flop, backend)]
            if args.efficient and dt == torch.float32:
                from torch.nn.attention import SDPBackend, sdpa_kernel
                ke = k.detach().repeat_interleave(H // Hkv, dim=1)
                ve = v.detach().repeat_interleave(H // Hkv, dim=1)
                qd = q.detach()

                def eff(qd=qd, ke=ke, ve=ve):
                    with sdpa_kernel(SDPBackend.EFFICIENT_ATTENTION):
                        return F.scaled_dot_product_attention(qd, ke, ve, is_causal=True)
                runs.append((fs + "_efficient", eff, flop, "efficient, forced"))
            for case, fn, fl, be in runs:
                try:
                    s = time_call(fn, reps, cuda)
                except RuntimeError as e:
                    print(f"  {case}: error {e}")
                    continue
                results.append({"case": case, "us_per_call": s * 1e6, "gflops": fl / s / 1e9,
                                "backend": be})
                print(f"  {case:28s} {s * 1e6:12.1f} us {fl / s / 1e12:9.2f} TFLOP/s   ({be})")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"device": str(dev), "torch": torch.__version__, "results": results}, f,
                      indent=1)


if __name__ == "__main__":
    main()
