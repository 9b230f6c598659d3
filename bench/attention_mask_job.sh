#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# bench/attention_mask_job.sh: GPU timings of the tensor-core attention
# kernels under several configurations in one job (docs/attention.md,
# docs/benchmarks.md), run from the repository root after the build in
# $BUILD (default /tmp/b; bench_attention built) with $OUT set (default
# ./attn-mask-job); on an H200 with the program cache cold about 8 s per
# configuration (each builds its programs once, ptxas and the
# known-answer checks included) and 6 s per one in TIMED, then PyTorch's
# SDPA (~10 s).
# bfloat16, causal, GPT-2 (d64) and Llama (d128, GQA) rows of
# bench_attention (forward sdpa_fwd_*, backward attn_bwd_*), µs per call.
#
# CONFIGS: one configuration per line, "name ENV=VALUE ..." (no
# assignments: the defaults).  The default list (ninth stop, issue 30,
# attn9) compares the work-group shapes of CLOPS_ATTN_WARPS with the
# occupancy requests of CLOPS_ATTN_CTAS (docs/attention.md, "Work-group
# shapes"):
#   base     the defaults
#   w4c3+k8  forward 4 warps (64 query rows) at 3 work-groups per SM;
#            dK/dV 8 warps (128 keys), the driver's build
#   w4c4+q4  forward 4 warps at 4 per SM; dQ 4 warps (64 rows) at 3
#   mr2+k8q4 forward 4 warps of 32 rows (CLOPS_ATTN_MMA_MR=2) at 2 per SM;
#            dK/dV 8 warps, dQ 4 warps at 2 per SM
# The last stop's comparison: CONFIGS=$'lean\ngeneral CLOPS_ATTN_MASK_SPLIT=0'.
# CASES (default '*_bf16': both models, both passes) narrows the rows
# (e.g. '*llama_bf16'), TIMED_MODELS (default "gpt2 llama") the timed
# backward's models, RUN_S (45) each run's limit, TORCH=0 skips PyTorch,
# BDEV (default nvidia) the benchmark's device (a dry run elsewhere).
# Then PyTorch (bench/torch_attention.py's default SDPA on the same
# shapes), a table (one row per case, one column per configuration) on
# the standard output, raw runs in $OUT, and ptxas' registers and spills
# of every routed program each configuration built.
set -u
OUT=${OUT:-attn-mask-job}
BUILD=${BUILD:-/tmp/b}
mkdir -p "$OUT"
export CLOPS_CACHE_DIR=${CLOPS_CACHE_DIR:-/tmp/attn-mask-job-cache}
B="$BUILD/bench/bench_attention --device ${BDEV:-nvidia} --reps ${REPS:-5}"
T0=$(date +%s)
CONFIGS=${CONFIGS:-"base
w4c3+k8 CLOPS_ATTN_WARPS=fwd=4,dkv=8 CLOPS_ATTN_CTAS=fwd=3,dkv=1
w4c4+q4 CLOPS_ATTN_WARPS=fwd=4,dq=4 CLOPS_ATTN_CTAS=fwd=4,dq=3
mr2+k8q4 CLOPS_ATTN_MMA_MR=2 CLOPS_ATTN_WARPS=dkv=8,dq=4 CLOPS_ATTN_CTAS=fwd=2,dkv=1,dq=2"}
names=()
while read -r name envs; do
    [ -z "$name" ] && continue
    names+=("$name")
    # shellcheck disable=SC2086 # the assignments split into words
    env CLOPS_PTX_VERBOSE=1 $envs timeout ${RUN_S:-45} $B --case "${CASES:-*_bf16}" \
        >"$OUT/$name.txt" 2>&1
    awk -v n="$name" '$1 ~ /^(sdpa_fwd|attn_bwd)_.*_bf16$/ {print n, $1, $2}' "$OUT/$name.txt"
    echo "[$(($(date +%s) - T0))s] $name" >&2
done <<<"$CONFIGS" >"$OUT/rows.txt"
# where the backward's time goes (CLOPS_ATTN_TIMES=1: each kernel waited
# for, wall µs; the mean over the calls after the first two) for the
# configurations named in TIMED (default: the first and the fourth)
TIMED=${TIMED:-"${names[0]} ${names[3]:-}"}
while read -r name envs; do
    case " $TIMED " in *" $name "*) ;; *) continue ;; esac
    for c in ${TIMED_MODELS:-gpt2 llama}; do
        # shellcheck disable=SC2086
        env CLOPS_ATTN_TIMES=1 $envs timeout ${RUN_S:-45} $B --case "attn_bwd_${c}_bf16" 2>&1 |
            awk -v n="$name" -v c="$c" '/^clops: attention backward us:/ {
                if (++k > 2) { for (i = 5; i <= 11; i += 2) s[i] += $(i + 1); m++ } }
                END { if (m) printf "times %s %s: pre %.1f dkv %.1f fold %.1f dq %.1f (%d calls)\n",
                      n, c, s[5] / m, s[7] / m, s[9] / m, s[11] / m, m }'
    done
done <<<"$CONFIGS" >"$OUT/times.txt"
[ "${TORCH:-1}" = 0 ] || timeout ${TORCH_S:-40} python3 bench/torch_attention.py --reps 5 \
    >"$OUT/torch.txt" 2>&1
[ -f "$OUT/torch.txt" ] &&
    awk '$1 ~ /_bf16$/ && $3 == "us" {print "PyTorch", $1, $2}' "$OUT/torch.txt" >>"$OUT/rows.txt"
# the table: PyTorch's cases are named by bench/torch_attention.py,
# matched by model and pass
python3 - "$OUT/rows.txt" "${names[@]}" PyTorch <<'PY'
import sys, re
cols = sys.argv[2:]
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
cat "$OUT/times.txt"
# the driver's ptxas figures of each routed program (CLOPS_PTX_VERBOSE)
# and any warning (a known-answer check that failed names its program)
for n in "${names[@]}"; do
    echo "== $n"
    grep -hE "Used [0-9]+ registers|spill stores|^clops: (warning|PTX)" "$OUT/$n.txt" |
        sed -E 's/, entry directives:.*//; s/^ptxas +(info +: )?//' | head -24
done
echo "[$(($(date +%s) - T0))s] done"
