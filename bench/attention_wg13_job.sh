#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# bench/attention_wg13_job.sh: the GPU job of issue 30's sixth stop, second
# round (attn13; docs/attention.md "Hopper's wgmma: the dQ",
# docs/benchmarks.md): the wgmma dQ (attn_bwd_dq_wg, CLOPS_ATTN_WGMMA_DQ=1)
# on its first GPU, in one device call on an H100/H200 of 190 s with the
# machine's start, run from the repository root with $OUT set, every step
# under its own limit and all of them under the job's (JOB_S, default
# 112 s; each step gets what is left of it):
#   1. the build of test_attention in $BUILD (default /tmp/attn;
#      SKIP_BUILD=1 keeps one), after unpacking .debs/;
#   2. tests on the GPU, in parallel, each cut at TEST_S (default 22 s),
#      while bench_family builds beside them (they also fill the program
#      cache the timings then read): test_wgmma_dq_choice (its known-answer
#      check, then six problems in bfloat16 and float16 against the CPU
#      reference, bits twice); test_kernels_match_the_reference with the
#      wgmma dQ on (CLOPS_ATTN_WGMMA_DQ=1 CLOPS_TEST_ATTN_WGMMA_DQ=1: every
#      lean 16-bit backward of head dim 64/128 must take it), once over the
#      multi-tile cases ('mma tiles*') and once over the whole matrix as
#      far as it gets (CLOPS_TEST_ATTN_PROGRESS: each case as it starts);
#      test_wgmma_bwd_choice with the dQ on too (dK/dV and dQ both on
#      wgmma);
#   3. PyTorch's SDPA (bench/torch_attention.py, its default: flash for
#      bfloat16) first, so that a cut leaves its rows; then the backward
#      rows (bench/attention_mask_job.sh, bfloat16 causal, GPT-2 d64 and
#      Llama d128; its table reads the PyTorch rows) for BCONFIGS: the
#      defaults, the dQ on wgmma ("wgq"), dQ and dK/dV on wgmma ("wgqb");
#      the split by kernel (CLOPS_ATTN_TIMES, Llama) of the first two.
# Every benchmark process runs the known-answer checks of the programs it
# builds first (a failure warns, "clops: warning", and falls back: the
# warnings are in the table's log).  Logs go to $OUT/logs as they come
# (with TARBALL=1 a tarball of them, $TGZ, default $OUT/attn.tgz, after
# every step).  DEV (default nvidia) is the test device selector, BDEV
# the benchmark's (a dry run on POCL: DEV=pocl BDEV=pocl with small
# limits).  attn13's call (H200, docs/benchmarks.md, attn12's section,
# "Second job") took 113 s after the machine's start: build 43 s, tests
# 22 s (all four cut there with no failure: each program's first build
# through NVIDIA's driver takes seconds; test_wgmma_dq_choice needs more
# than that with a cold cache), PyTorch 14 s, the backward rows 33 s (cut
# in wgqb's Llama row, before the split: give the job 150 s or more, or
# run the tests after the timings, to get them).
JOB=wg13 JOB_DEF_S=112
. bench/attention_job_lib.sh
attn_build test_attention
log "tests (in parallel) and bench_family's build"
T=$(lim "${TEST_S:-22}")
t() { attn_test test_attention "$@"; }
Q="CLOPS_ATTN_WGMMA_DQ=1 CLOPS_TEST_ATTN_WGMMA_DQ=1"
M="CLOPS_TEST_FILTER=test_kernels_match_the_reference CLOPS_TEST_ATTN_PROGRESS=1"
t wgq_choice CLOPS_PTX_VERBOSE=1 CLOPS_TEST_FILTER=test_wgmma_dq_choice &
# shellcheck disable=SC2086 # the assignments split into words
t wgq_tiles $Q $M "CLOPS_TEST_ATTN_CASES=mma tiles*" &
# shellcheck disable=SC2086
t wgq_matrix $Q $M &
t wgqb_choice CLOPS_ATTN_WGMMA_DQ=1 CLOPS_TEST_FILTER=test_wgmma_bwd_choice &
if [ "${SKIP_BUILD:-0}" != 1 ]; then
    timeout "$(lim 60)" cmake --build "$BUILD" -j16 --target bench_family >"$L/build_bench.txt" 2>&1
    log "bench_family build rc $?"
fi
wait
log "tests done"
grep -hE "^\[  (PASSED|FAILED) |^case |error|warning" "$L"/test_*.txt | tail -40 >"$L/tests_summary.txt"
pack
log "PyTorch's SDPA"
mkdir -p "$L/bwd"
timeout "$(lim "${TORCH_S:-25}")" python3 bench/torch_attention.py --reps 5 >"$L/bwd/torch.txt" 2>&1
log "PyTorch rc $?"
pack
log "backward timings"
CONFIGS=${BCONFIGS:-"base
wgq CLOPS_ATTN_WGMMA_DQ=1
wgqb CLOPS_ATTN_WGMMA_DQ=1 CLOPS_ATTN_WGMMA_BWD=1"} CASES='attn_bwd_*_bf16' \
    TIMED=${TIMED:-"base wgq"} TIMED_MODELS=${TIMED_MODELS:-llama} \
    RUN_S=${RUN_S:-25} TORCH=0 OUT="$L/bwd" BUILD="$BUILD" \
    timeout "$(lim 90)" bash bench/attention_mask_job.sh >"$L/bwd_table.txt" 2>&1
log "backward timings rc $?"
pack
log done
pack
