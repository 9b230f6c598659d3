#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# bench/attention_tf32_job.sh: the GPU job of issue 30's seventh stop
# (attn14; docs/attention.md "The float32 forward on the tensor cores",
# docs/benchmarks.md): the float32 forward on mma.sync tf32 with the 3xTF32
# split (attn_fwd_tf32, CLOPS_ATTN_TF32=1) on its first GPU, in one device
# call, run from the repository root with $OUT set, every step under its
# own limit and all of them under the job's (JOB_S, default 215 s):
#   1. the build of test_attention, test_check_attention, bench_family and
#      attention_accuracy in $BUILD (default /tmp/attn; SKIP_BUILD=1 keeps
#      one), after unpacking .debs/;
#   2. tests on the GPU, in parallel, each cut at TEST_S (default 40 s):
#      test_tf32_forward (its known-answer checks at head dims 64 and 128,
#      six problems against the CPU reference), and with the products
#      promoted (CLOPS_ATTN_TF32_PROMOTE=1); the same with a planted
#      bug (the kernels read from a copy of cl_kernels/ whose 3xTF32
#      product drops its hi*lo term, CLOPS_KERNEL_DIR): it must fail;
#      test_kernels_match_the_reference with the kernel on
#      (CLOPS_ATTN_TF32=1 CLOPS_TEST_ATTN_TF32=1: every lean float32
#      forward of head dim 64/128 must take it) as far as it gets;
#      test_check_attention with it on;
#   4. errors against float64 (bench/attention_accuracy.c writes clops'
#      FMA and 3xTF32 outputs on N(0, 1) inputs, bench/attention_accuracy.py
#      compares them, the promoted products' (CLOPS_ATTN_TF32_PROMOTE=1)
#      and PyTorch's efficient and math kernels) on GPT-2's and Llama's
#      shapes;
#   3. PyTorch's float32 forward (bench/torch_attention.py, its default,
#      and the efficient kernel forced), then clops' float32 forward rows
#      (bench_attention, sdpa_fwd_{gpt2,llama}_f32): the FMA kernel
#      (CLOPS_ATTN_TF32=0), attn_fwd_tf32's defaults and promoted;
#   4. (below);
#   5. attn_fwd_tf32's other shapes (CLOPS_ATTN_TF32_W / _BK / _QPRE).
# Logs go to $OUT/logs as they come (with TARBALL=1 a tarball of them,
# $TGZ, default $OUT/attn.tgz, after every step).  DEV (default nvidia)
# is the test device selector, BDEV the benchmark's (a dry run on POCL:
# DEV=pocl BDEV=pocl SMALL=1 with small limits).  attn14's call (H200,
# 2026-11-28, warm machine) took 121 s: build 40 s, tests 40 s (the matrix
# cut there), PyTorch 8 s, rows 2 s each, accuracy 15 s.
JOB=tf32 JOB_DEF_S=215
. bench/attention_job_lib.sh
BDEV=${BDEV:-nvidia}
attn_build test_attention test_check_attention bench_family attention_accuracy
log "tests (in parallel)"
T=$(lim "${TEST_S:-40}")
# the planted bug: the 3xTF32 product without its hi*lo term
BUG=/tmp/attn-tf32-bug
rm -rf "$BUG" && mkdir -p "$BUG" && cp cl_kernels/* ref/*.clh "$BUG/"
python3 - "$BUG/attention.cl" <<'PY'
import sys
p = sys.argv[1]
s = open(p).read()
old = "MMA_M16N8K8_TF32(d, ah, bl);"
assert s.count(old) == 1
open(p, "w").write(s.replace(old, "(void)0;"))
PY
t() { attn_test "$@"; }
t test_attention tf32 CLOPS_TEST_FILTER=test_tf32_forward &
t test_attention tf32_promote CLOPS_ATTN_TF32_PROMOTE=1 CLOPS_CACHE_DIR=/tmp/attn-tf32-p-cache CLOPS_TEST_FILTER=test_tf32_forward &
t test_attention tf32_bug CLOPS_KERNEL_DIR="$BUG" CLOPS_CACHE_DIR=/tmp/attn-tf32-bug-cache CLOPS_TEST_FILTER=test_tf32_forward &
t test_attention matrix CLOPS_ATTN_TF32=1 CLOPS_TEST_ATTN_TF32=1 CLOPS_TEST_FILTER=test_kernels_match_the_reference CLOPS_TEST_ATTN_PROGRESS=1 &
t test_check_attention check CLOPS_ATTN_TF32=1 &
wait
for n in tf32 tf32_promote tf32_bug matrix check; do
    echo "== $n: $(grep -c '\[       OK \]' "$L/test_$n.txt") OK, $(grep -c '\[  FAILED  \]' "$L/test_$n.txt") FAILED; $(tail -1 "$L/test_$n.txt")" >>"$L/steps.txt"
    grep -E "FAIL|rror|warning" "$L/test_$n.txt" | head -6 >>"$L/steps.txt"
done
pack
log "PyTorch"
TORCH_ARGS="--reps 5 --dtypes float32 --efficient"
[ "${SMALL:-0}" = 1 ] && export CLOPS_BENCH_SMALL=1
# shellcheck disable=SC2086
timeout "$(lim 40)" python3 bench/torch_attention.py $TORCH_ARGS >"$L/torch.txt" 2>&1
log "PyTorch rc $?"
unset CLOPS_BENCH_SMALL
pack
# rows NAME CASES [VAR=VALUE...]: clops' float32 forward rows under the assignments
rows() {
    local name=$1 cases=$2
    shift 2
    env "$@" timeout "$(lim 30)" "$BUILD/bench/bench_attention" --device "$BDEV" --reps "${REPS:-5}" \
        --case "$cases" >"$L/b_$name.txt" 2>&1
    local rc=$?
    log "rows $name rc $rc: $(awk '$1 ~ /^sdpa_fwd/ {printf "%s %s us  ", $1, $2}' "$L/b_$name.txt")"
    grep -h "clops: warning" "$L/b_$name.txt" | head -3 >>"$L/steps.txt"
    pack
}
rows fma 'sdpa_fwd_*_f32' CLOPS_ATTN_TF32=0
rows tf32 'sdpa_fwd_*_f32' CLOPS_ATTN_TF32=1
rows promote 'sdpa_fwd_*_f32' CLOPS_ATTN_TF32=1 CLOPS_ATTN_TF32_PROMOTE=1
log "accuracy"
A=/tmp/attn-tf32-acc
mkdir -p "$A"
SH_G="8 12 12 1024 64" SH_L="2 32 8 2048 128"
[ "${SMALL:-0}" = 1 ] && SH_G="1 2 2 100 64" SH_L="1 4 2 90 128"
for sh in "$SH_G" "$SH_L"; do
    read -r b hq hkv ln dh <<<"$sh"
    sz=(--b "$b" --hq "$hq" --hkv "$hkv" --l "$ln" --d "$dh")
    {
        timeout "$(lim 25)" "$BUILD/bench/attention_accuracy" --device "$BDEV" "${sz[@]}" --out "$A" 2>&1
        echo "rc $?"
        # the promoted products (CLOPS_ATTN_TF32_PROMOTE=1) on the same inputs
        CLOPS_ATTN_TF32_PROMOTE=1 timeout "$(lim 25)" "$BUILD/bench/attention_accuracy" --device "$BDEV" \
            "${sz[@]}" --name promote --out "$A" 2>&1
        echo "rc $?"
        timeout "$(lim 30)" python3 bench/attention_accuracy.py "$A" "$b" "$hq" "$hkv" "$ln" "$dh" 2>&1
        echo "rc $?"
    } >>"$L/accuracy.txt"
    log "accuracy $sh"
    pack
done
rm -rf "$A"
# attn_fwd_tf32's shapes
rows w8 'sdpa_fwd_*_f32' CLOPS_ATTN_TF32=1 CLOPS_ATTN_TF32_W=8
rows d128q sdpa_fwd_llama_f32 CLOPS_ATTN_TF32=1 CLOPS_ATTN_TF32_QPRE=1
rows w2 'sdpa_fwd_*_f32' CLOPS_ATTN_TF32=1 CLOPS_ATTN_TF32_W=2
rows d64k16 sdpa_fwd_gpt2_f32 CLOPS_ATTN_TF32=1 CLOPS_ATTN_TF32_BK=16
rows d64qs sdpa_fwd_gpt2_f32 CLOPS_ATTN_TF32=1 CLOPS_ATTN_TF32_QPRE=2
rows d128k8 sdpa_fwd_llama_f32 CLOPS_ATTN_TF32=1 CLOPS_ATTN_TF32_BK=8
log "done"
pack
