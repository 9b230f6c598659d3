#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# bench/attention_mask_job.sh: the GPU check of the lean tensor-core
# attention programs (ATTN_XM 0, docs/attention.md "Masked tiles in fewer
# registers"), run from the repository root after the build in $BUILD
# (default /tmp/b; bench_attention built) with $OUT set (default
# ./attn-mask-job); about 60 s on an H100/H200 with the program cache
# cold (each configuration builds its programs once, ptxas included).
# bfloat16, causal, GPT-2 (d64) and Llama (d128, GQA) rows of
# bench_attention, µs per call:
#   lean     the default: lean programs, default occupancy
#            (attn_ctas_default: fwd 2; dkv 3 / dq 2 at d <= 64, 1 at 128)
#   general  CLOPS_ATTN_MASK_SPLIT=0: the general programs (attn_score per
#            element; main's kernels before this change), same occupancy
#   lean+bwd CLOPS_ATTN_CTAS=dkv=3,dq=2 on the lean programs: the
#            backward routed at head dim 128 too (Llama: clang's ptxas
#            gave the lean dK/dV 1324 and dQ 784 bytes of spills there)
#   lean+dq1 CLOPS_ATTN_CTAS=dq=1: dQ without the route (GPT-2's dQ at two
#            work-groups spilled 644 bytes, lean 100)
#   PyTorch  bench/torch_attention.py's default SDPA on the same shapes
# and a table of them on the standard output (raw runs in $OUT), then
# ptxas' registers and spills of every routed program the runs built.
set -u
OUT=${OUT:-attn-mask-job}
BUILD=${BUILD:-/tmp/b}
mkdir -p "$OUT"
export CLOPS_CACHE_DIR=${CLOPS_CACHE_DIR:-/tmp/attn-mask-job-cache}
B="$BUILD/bench/bench_attention --device nvidia --reps 5"
T0=$(date +%s)
run() { # name, environment assignments..., then the case glob last
    local name=$1 glob=${*: -1} f
    shift
    f="$OUT/$name.${glob%%_*}.txt"
    env CLOPS_PTX_VERBOSE=1 "${@:1:$#-1}" timeout 45 $B --case "$glob" >"$f" 2>&1
    awk -v n="$name" '$1 ~ /^(sdpa_fwd|attn_bwd)_/ {print n, $1, $2}' "$f"
}
{
    run lean 'sdpa_fwd_*_bf16'
    run lean 'attn_bwd_*_bf16'
    run general CLOPS_ATTN_MASK_SPLIT=0 'sdpa_fwd_*_bf16'
    run general CLOPS_ATTN_MASK_SPLIT=0 'attn_bwd_*_bf16'
    run lean+bwd CLOPS_ATTN_CTAS=dkv=3,dq=2 'attn_bwd_*_bf16'
    run lean+dq1 CLOPS_ATTN_CTAS=dq=1 'attn_bwd_*_bf16'
} >"$OUT/rows.txt"
timeout 40 python3 bench/torch_attention.py --reps 5 >"$OUT/torch.txt" 2>&1
awk '$1 ~ /_bf16$/ && $3 == "us" {print "PyTorch", $1, $2}' "$OUT/torch.txt" \
    >>"$OUT/rows.txt"
# the table: one row per case, one column per configuration (PyTorch's
# cases are named by bench/torch_attention.py; matched by model and pass)
python3 - "$OUT/rows.txt" <<'PY'
import sys, re
cols = ["lean", "general", "lean+bwd", "lean+dq1", "PyTorch"]
t = {}
for line in open(sys.argv[1]):
    n, case, us = line.split()[:3]
    m = re.search(r"(fwd|bwd).*?(gpt2|llama)", case)
    if m:
        t.setdefault(f"{m.group(2)} {m.group(1)}", {})[n] = us
print("| case | " + " | ".join(cols) + " |")
print("| --- |" + " ---: |" * len(cols))
for k in sorted(t):
    print(f"| {k} | " + " | ".join(t[k].get(c, "-") for c in cols) + " |")
PY
# the driver's ptxas figures of each routed program (CLOPS_PTX_VERBOSE)
# and any warning (a known-answer check that failed names its program)
for f in "$OUT"/lean.*.txt "$OUT"/general.*.txt "$OUT"/lean+*.txt; do
    echo "== $(basename "$f")"
    grep -hE "registers|spill|^clops: (warning|PTX)" "$f" | sort | uniq -c | head -12
done
echo "[$(($(date +%s) - T0))s] done"
