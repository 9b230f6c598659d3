#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# bench/attention_tf32_job.sh: the GPU job of issue 30's float32 forward on
# the tensor cores (attn_fwd_tf32, 3xTF32; docs/attention.md "The float32
# forward on the tensor cores", docs/benchmarks.md), attn15's second round
# after attn14's (git log has attn14's version of this script): where the
# three products' sums leave the tensor cores (CLOPS_ATTN_TF32_PROMOTE 0:
# never, attn14's measured kernel; 1: attn14's every k step; 2: attn15's
# O by key tile; 3: 2 and S's k steps), their errors and speed, in one
# device call, run from the repository root with $OUT set, every step
# under its own limit and all of them under the job's (JOB_S, default 80 s):
#   1. PyTorch's float32 forward (bench/torch_attention.py: its default and
#      the efficient kernel forced), in the background during
#   2. the build of test_attention, bench_family and attention_accuracy in
#      $BUILD (default /tmp/attn; SKIP_BUILD=1 keeps one), after unpacking
#      .debs/;
#   3. tests on the GPU, in the background, each cut at TEST_S (default 30
#      s): test_tf32_forward (known-answer checks at head dims 64 and 128,
#      six problems against the CPU reference) with PROMOTE 2 and 3; with
#      PROMOTE 2 and a planted bug (the kernels from a copy of cl_kernels/
#      whose 3xTF32 product drops its hi*lo term, CLOPS_KERNEL_DIR): it must
#      fail; test_kernels_match_the_reference with the kernel forced on and
#      PROMOTE 2 (CLOPS_ATTN_TF32=1 CLOPS_TEST_ATTN_TF32=1: every lean
#      float32 forward of head dim 64/128 must take it) as far as it gets;
#      meanwhile
#   4. errors against float64 (bench/attention_accuracy.c writes clops' FMA
#      and unpromoted 3xTF32 outputs on N(0, 1) inputs (PROMOTE 0; attn15's
#      job ran the default then, 0), --name p1/p2/p3 the promoted
#      forms', bench/attention_accuracy.py compares them and PyTorch's
#      efficient, math and default kernels) on GPT-2's and Llama's shapes;
#   5. (the tests awaited) clops' float32 forward rows (bench_attention,
#      sdpa_fwd_{gpt2,llama}_f32): PROMOTE 2, 3, 0, 1 and the FMA kernel
#      (CLOPS_ATTN_TF32=0).
# Logs go to $OUT/logs as they come (with TARBALL=1 a tarball of them,
# $TGZ, default $OUT/attn.tgz, after every step).  DEV (default nvidia)
# is the test device selector, BDEV the benchmark's (a dry run on POCL:
# DEV=pocl BDEV=pocl SMALL=1 SKIP_BUILD=1 with small limits).  attn14's
# call (H200, warm machine) took 121 s: build 40 s, tests 40 s, PyTorch
# 8 s, rows 2 s each, accuracy 15 s.
JOB=tf32 JOB_DEF_S=80
. bench/attention_job_lib.sh
BDEV=${BDEV:-nvidia}
log "PyTorch (background)"
TORCH_ARGS="--reps 5 --dtypes float32 --efficient"
[ "${SMALL:-0}" = 1 ] && export CLOPS_BENCH_SMALL=1
# shellcheck disable=SC2086
(timeout "$(lim 50)" python3 bench/torch_attention.py $TORCH_ARGS >"$L/torch.txt" 2>&1
 echo "rc $?" >>"$L/torch.txt") &
TORCH_PID=$!
attn_build test_attention bench_family attention_accuracy
wait "$TORCH_PID"
unset CLOPS_BENCH_SMALL
log "PyTorch: $(tail -1 "$L/torch.txt")"
pack
log "tests (background)"
T=$(lim "${TEST_S:-30}")
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
TESTS=(tf32_p2 tf32_p3 tf32_bug matrix)
t test_attention tf32_p2 CLOPS_ATTN_TF32_PROMOTE=2 CLOPS_CACHE_DIR=/tmp/attn-tf32-p2-cache CLOPS_TEST_FILTER=test_tf32_forward &
t test_attention tf32_p3 CLOPS_ATTN_TF32_PROMOTE=3 CLOPS_CACHE_DIR=/tmp/attn-tf32-p3-cache CLOPS_TEST_FILTER=test_tf32_forward &
t test_attention tf32_bug CLOPS_ATTN_TF32_PROMOTE=2 CLOPS_KERNEL_DIR="$BUG" CLOPS_CACHE_DIR=/tmp/attn-tf32-bug-cache CLOPS_TEST_FILTER=test_tf32_forward &
t test_attention matrix CLOPS_ATTN_TF32=1 CLOPS_ATTN_TF32_PROMOTE=2 CLOPS_TEST_ATTN_TF32=1 CLOPS_CACHE_DIR=/tmp/attn-tf32-m-cache CLOPS_TEST_FILTER=test_kernels_match_the_reference CLOPS_TEST_ATTN_PROGRESS=1 &
log "accuracy"
A=/tmp/attn-tf32-acc
mkdir -p "$A"
SH_G="8 12 12 1024 64" SH_L="2 32 8 2048 128"
[ "${SMALL:-0}" = 1 ] && SH_G="1 2 2 100 64" SH_L="1 4 2 90 128"
for sh in "$SH_G" "$SH_L"; do
    read -r b hq hkv ln dh <<<"$sh"
    sz=(--b "$b" --hq "$hq" --hkv "$hkv" --l "$ln" --d "$dh")
    {
        # o_tf32: unpromoted (attn14's kernel; the default is 3 since attn15)
        CLOPS_ATTN_TF32_PROMOTE=0 timeout "$(lim 10)" "$BUILD/bench/attention_accuracy" --device "$BDEV" \
            "${sz[@]}" --out "$A" 2>&1
        echo "rc $?"
        # the promoted forms on the same inputs
        for p in 1 2 3; do
            CLOPS_ATTN_TF32_PROMOTE=$p timeout "$(lim 10)" "$BUILD/bench/attention_accuracy" --device "$BDEV" \
                "${sz[@]}" --name "p$p" --out "$A" 2>&1
            echo "rc $?"
        done
        timeout "$(lim 20)" python3 bench/attention_accuracy.py "$A" "$b" "$hq" "$hkv" "$ln" "$dh" 2>&1
        echo "rc $?"
    } >>"$L/accuracy.txt"
    log "accuracy $sh"
    pack
    rm -f "$A"/o_*.f32
done
rm -rf "$A"
wait
for n in "${TESTS[@]}"; do
    echo "== $n: $(grep -c '\[       OK \]' "$L/test_$n.txt") OK, $(grep -c '\[  FAILED  \]' "$L/test_$n.txt") FAILED; $(tail -1 "$L/test_$n.txt")" >>"$L/steps.txt"
    grep -E "FAIL|rror|warning" "$L/test_$n.txt" | head -6 >>"$L/steps.txt"
done
pack
# rows NAME CASES [VAR=VALUE...]: clops' float32 forward rows under the assignments
rows() {
    local name=$1 cases=$2
    shift 2
    env "$@" timeout "$(lim 12)" "$BUILD/bench/bench_attention" --device "$BDEV" --reps "${REPS:-5}" \
        --case "$cases" >"$L/b_$name.txt" 2>&1
    local rc=$?
    log "rows $name rc $rc: $(awk '$1 ~ /^sdpa_fwd/ {printf "%s %s us  ", $1, $2}' "$L/b_$name.txt")"
    grep -h "clops: warning" "$L/b_$name.txt" | head -3 >>"$L/steps.txt"
    pack
}
rows p2 'sdpa_fwd_*_f32' CLOPS_ATTN_TF32=1 CLOPS_ATTN_TF32_PROMOTE=2
rows p3 'sdpa_fwd_*_f32' CLOPS_ATTN_TF32=1 CLOPS_ATTN_TF32_PROMOTE=3
rows tf32 'sdpa_fwd_*_f32' CLOPS_ATTN_TF32=1 CLOPS_ATTN_TF32_PROMOTE=0
rows p1 'sdpa_fwd_*_f32' CLOPS_ATTN_TF32=1 CLOPS_ATTN_TF32_PROMOTE=1
rows fma 'sdpa_fwd_*_f32' CLOPS_ATTN_TF32=0
log "done"
pack
