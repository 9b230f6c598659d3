#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The first call of a model compiled with torch.compile(backend="clops") in
fresh processes: what a process pays before its first result, cold (empty
kernel caches) and warm (the caches the earlier process filled).

    python bench/compile_first_call.py [--runs 3] [--model block|gpt2] [--cache DIR]

Each run is a new Python process on the same cache folder (CLOPS_CACHE_DIR,
a new temporary one unless --cache; clops points POCL's cache under it),
printing: import time, first call (Dynamo, AOT autograd, clops' rewrite,
program builds or loads, the run), a second call, the rewrite's own time, and
the device counters (programs built and loaded, seconds building).  The model
is the GPT-2 block of python/tests/test_compile.py (--model block: 64 wide,
4 heads, batch 2, 16 tokens) or transformers' GPT-2 with 2 layers, in
inference (no_grad).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

CHILD = r'''
import json, sys, time
t0 = time.perf_counter()
import torch, clops.torch
import clops.torch._compile as C
t_import = time.perf_counter() - t0
spent = [0.0]
inner = C._rewrite
def timed(gm, label):
    t = time.perf_counter()
    try:
        return inner(gm, label)
    finally:
        spent[0] += time.perf_counter() - t
C._rewrite = timed
model_name = sys.argv[1]
dev = torch.device("clops")
torch.manual_seed(0)
if model_name == "block":
    sys.path.insert(0, sys.argv[2])
    from test_compile import Block
    model = Block().to(dev).eval()
    x = torch.randn(2, 16, 64).to(dev)
else:
    import transformers
    cfg = transformers.GPT2Config(n_layer=2, n_head=2, n_embd=64, vocab_size=1000,
                                  n_positions=128, resid_pdrop=0.0, embd_pdrop=0.0,
                                  attn_pdrop=0.0)
    cfg._attn_implementation = sys.argv[3]
    model = transformers.GPT2LMHeadModel(cfg).eval().to(dev)
    x = torch.randint(0, 1000, (2, 16), generator=torch.Generator().manual_seed(1)).to(dev)
out = lambda y: y if isinstance(y, torch.Tensor) else y.logits
c0 = torch.clops.device_counters()
compiled = torch.compile(model, backend="clops", dynamic=False)
with torch.no_grad():
    t = time.perf_counter()
    y = out(compiled(x)); torch.clops.synchronize()
    first = time.perf_counter() - t
    c1 = torch.clops.device_counters()
    t = time.perf_counter()
    y = out(compiled(x)); torch.clops.synchronize()
    second = time.perf_counter() - t
print(json.dumps(dict(import_s=t_import, first_s=first, second_s=second, rewrite_s=spent[0],
                      built=c1["programs_built"] - c0["programs_built"],
                      loaded=c1["programs_loaded"] - c0["programs_loaded"],
                      build_s=c1["build_seconds"] - c0["build_seconds"],
                      sum=float(y.float().sum()))))
'''


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--model", choices=["block", "gpt2"], default="block")
    p.add_argument("--attn", choices=["sdpa", "eager"], default="eager",
                   help="--model gpt2: transformers' attention implementation")
    p.add_argument("--cache", help="cache folder (default: a new temporary one)")
    args = p.parse_args()
    here = os.path.dirname(os.path.abspath(__file__))
    tests = os.path.join(here, "..", "python", "tests")
    with tempfile.TemporaryDirectory(prefix="clops-first-call-") as tmp:
        env = dict(os.environ, CLOPS_CACHE_DIR=args.cache or tmp)
        for run in range(args.runs):
            r = subprocess.run([sys.executable, "-c", CHILD, args.model, tests, args.attn],
                               env=env, capture_output=True, text=True)
            if r.returncode != 0:
                sys.exit(f"run {run + 1} failed:\n{r.stderr[-4000:]}")
            f = json.loads(r.stdout.strip().splitlines()[-1])
            print(f"run {run + 1} ({'cold' if run == 0 and not args.cache else 'warm'} cache): "
                  f"import {f['import_s']:.2f} s, first call {f['first_s']:.2f} s "
                  f"(clops' rewrite {f['rewrite_s']:.2f} s; {f['built']} programs built in "
                  f"{f['build_s']:.2f} s, {f['loaded']} loaded), second call "
                  f"{f['second_s'] * 1e3:.1f} ms; output sum {f['sum']:.6g}", flush=True)


if __name__ == "__main__":
    main()
