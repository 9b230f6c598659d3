#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""bench/attention_accuracy.py: the error against a float64 reference of the
float32 attention forwards bench/attention_accuracy.c wrote (clops' FMA
kernel, attn_fwd, and its 3xTF32 kernel, attn_fwd_tf32) and of PyTorch's
float32 kernels on the same inputs: the memory-efficient kernel (PyTorch's
default for float32 on sm80+; key/value heads repeated for grouped-query
shapes) and the math path (float32 matmuls, "highest"), as issue 30 asks
of the 3xTF32 forward (attn14: no worse than PyTorch's efficient kernel).

    python3 bench/attention_accuracy.py DIR B HQ HKV L D

(DIR/o_NAME.f32 beyond o_fma and o_tf32, attention_accuracy --name NAME's,
are compared too.)

Error of O: max |O - O64| and mean |O - O64|, each also over max |O64|;
bias: the mean of (O - O64) sign(O64) over the mean |O - O64| (attn15:
near -1 when the errors are short in magnitude, near 0 when unbiased);
O64 = softmax(Q K^T / sqrt(D), causal) V in float64 (on the GPU when there is one).
"""
import glob
import math
import os
import sys

import torch


def load(path, shape):
    n = math.prod(shape)
    return torch.from_file(path, shared=False, size=n, dtype=torch.float32).reshape(shape)


def main():
    d = sys.argv[1]
    b, hq, hkv, l, dh = (int(x) for x in sys.argv[2:7])
    dev = "cuda" if torch.cuda.is_available() else "cpu"
    torch.set_float32_matmul_precision("highest")
    q = load(f"{d}/q.f32", (b, hq, l, dh)).to(dev)
    k = load(f"{d}/k.f32", (b, hkv, l, dh)).to(dev)
    v = load(f"{d}/v.f32", (b, hkv, l, dh)).to(dev)
    g = hq // hkv
    ke, ve = k.repeat_interleave(g, dim=1), v.repeat_interleave(g, dim=1)
    mask = torch.ones(l, l, dtype=torch.bool, device=dev).tril()
    o64 = torch.empty(b, hq, l, dh, dtype=torch.float64, device=dev)
    for i in range(b):  # one batch at a time: the float64 scores of Llama's shape are 2 GiB
        s = (q[i].double() @ ke[i].double().transpose(-1, -2)) / math.sqrt(dh)
        s = s.masked_fill(~mask, float("-inf"))
        o64[i] = torch.softmax(s, dim=-1) @ ve[i].double()
        del s
    scale = o64.abs().max().item()
    print(f"{torch.cuda.get_device_name() if dev == 'cuda' else dev}, torch {torch.__version__}; "
          f"B {b} Hq {hq} Hkv {hkv} L {l} D {dh} causal; max |O64| {scale:.4g}")
    print(f"{'forward':34s} {'max abs':>10s} {'mean abs':>10s} {'max/|O|':>10s} {'mean/|O|':>10s} "
          f"{'bias':>6s}")

    def err(name, o):
        dv = o.double() - o64
        e = dv.abs()
        mx, mn = e.max().item(), e.mean().item()
        bias = (dv * o64.sign()).mean().item() / mn if mn > 0 else 0.0
        print(f"{name:34s} {mx:10.3e} {mn:10.3e} {mx / scale:10.3e} {mn / scale:10.3e} {bias:6.2f}")

    names = ["fma", "tf32"] + sorted(os.path.basename(f)[2:-4] for f in glob.glob(f"{d}/o_*.f32")
                                      if os.path.basename(f) not in ("o_fma.f32", "o_tf32.f32"))
    for name in names:
        try:
            o = load(f"{d}/o_{name}.f32", (b, hq, l, dh))
        except (OSError, RuntimeError) as ex:
            print(f"clops {name}: missing ({ex})")
            continue
        label = {"fma": "attn_fwd (FMA)", "tf32": "attn_fwd_tf32 (3xTF32)"}.get(name, f"attn_fwd_tf32 {name}")
        err(f"clops {label}", o.to(dev))
    from torch.nn.attention import SDPBackend, sdpa_kernel
    import torch.nn.functional as F
    for label, be in (("PyTorch efficient (float32)", SDPBackend.EFFICIENT_ATTENTION),
                      ("PyTorch math (float32)", SDPBackend.MATH)):
        try:
            with sdpa_kernel(be):
                o = F.scaled_dot_product_attention(q, ke, ve, is_causal=True)
            err(label, o)
        except RuntimeError as ex:
            print(f"{label}: error {ex}")
    try:
        o = F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=g > 1)
        err("PyTorch default (float32)", o)
    except RuntimeError as ex:
        print(f"PyTorch default: error {ex}")


if __name__ == "__main__":
    main()
