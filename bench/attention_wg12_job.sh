#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# bench/attention_wg12_job.sh: the GPU job of issue 30's sixth stop (attn12;
# docs/attention.md "Hopper's wgmma", docs/benchmarks.md), one device call
# on an H100/H200, run from the repository root with $OUT set, every step
# under its own limit and all of them under the job's (JOB_S, default
# 245 s; each step gets what is left of it):
#   1. the build in $BUILD (default /tmp/attn; SKIP_BUILD=1 keeps one),
#      after unpacking .debs/ (the libraries the GPU machine lacks);
#   2. bench/attention_mask_job.sh's timings of the bfloat16 causal forward
#      rows (GPT-2 d64, Llama d128) for the forward's shapes in FCONFIGS:
#      attn_fwd_mma (CLOPS_ATTN_WGMMA=0), attn_fwd_wg as it is (=1: both
#      head dims), with the tile copies after the products
#      (CLOPS_ATTN_WG_LATE=1), with one warpgroup a work-group at 2, 3
#      and 4 work-groups an SM (CLOPS_ATTN_WG_N=1, CLOPS_ATTN_WG_CTAS),
#      with the late copies at 2 and 3, and at 3 with 96-key tiles at head
#      dim 64 (CLOPS_ATTN_WG_BK=96; head dim 128 keeps 48: four 96-key
#      slots do not fit); the driver's ptxas registers and spills of each
#      (attn12's call also had three warpgroups at one an SM, "g3": the
#      driver refused its 384 items, so CLOPS_ATTN_WG_N takes 1 or 2 since);
#   3. the backward rows for BCONFIGS: the defaults (attn_bwd_pre with 16
#      items a row, the four-column fold), attn_bwd_pre as before
#      (CLOPS_ATTN_PRE_W=1), no head split (CLOPS_ATTN_BWD_SPLIT=0: no
#      fold); the split by kernel (CLOPS_ATTN_TIMES, Llama) of the first
#      two; then PyTorch's SDPA
#      (forward and backward) on the same shapes, in the same job;
#   4. tests on the GPU, in parallel (correctness only, after the
#      timings): test_kernels_match_the_reference and test_check_attention
#      with the defaults, test_wgmma_bwd_choice (its fold), and
#      test_wgmma_choice with one warpgroup a work-group and the late
#      copies.
# Every benchmark process runs the known-answer checks of the programs it
# builds first (a failure warns, "clops: warning", and falls back: the
# warnings are in the table's log).  Logs go to $OUT/logs as they come
# (with TARBALL=1 a tarball of them, $TGZ, default $OUT/attn.tgz, after
# every step).  DEV (default nvidia) is the test device selector.  attn12's
# call (H200, docs/benchmarks.md) took 188 s after the machine's start:
# build 39 s, forward 58 s, backward 45 s (the first configuration's
# Llama row was cut by RUN_S with a cold cache: raise it to 30 when time
# allows), tests 45 s (the feature matrix cut there, with no failure).
JOB=wg12 JOB_DEF_S=245
. bench/attention_job_lib.sh
attn_build test_attention bench_family test_check_attention
W="CLOPS_ATTN_WGMMA=1"
log "forward timings"
CONFIGS=${FCONFIGS:-"mma CLOPS_ATTN_WGMMA=0
wg $W
g1c2 $W CLOPS_ATTN_WG_N=1 CLOPS_ATTN_WG_CTAS=2
g1c3 $W CLOPS_ATTN_WG_N=1 CLOPS_ATTN_WG_CTAS=3
late $W CLOPS_ATTN_WG_LATE=1
g1c2late $W CLOPS_ATTN_WG_N=1 CLOPS_ATTN_WG_CTAS=2 CLOPS_ATTN_WG_LATE=1
g1c3late $W CLOPS_ATTN_WG_N=1 CLOPS_ATTN_WG_CTAS=3 CLOPS_ATTN_WG_LATE=1
g1c3k96 $W CLOPS_ATTN_WG_N=1 CLOPS_ATTN_WG_CTAS=3 CLOPS_ATTN_WG_BK=96
g1c4 $W CLOPS_ATTN_WG_N=1 CLOPS_ATTN_WG_CTAS=4"} CASES='sdpa_fwd_*_bf16' TIMED=none TORCH=0 \
    RUN_S=${RUN_S:-20} OUT="$L/fwd" BUILD="$BUILD" \
    timeout "$(lim 90)" bash bench/attention_mask_job.sh >"$L/fwd_table.txt" 2>&1
log "forward timings rc $?"
pack
log "backward timings"
CONFIGS=${BCONFIGS:-"base
pre1 CLOPS_ATTN_PRE_W=1
nosplit CLOPS_ATTN_BWD_SPLIT=0"} CASES='attn_bwd_*_bf16' TIMED=${TIMED:-"base pre1"} \
    TIMED_MODELS=${TIMED_MODELS:-llama} \
    RUN_S=${RUN_S:-20} TORCH_S=${TORCH_S:-30} OUT="$L/bwd" BUILD="$BUILD" \
    timeout "$(lim 100)" bash bench/attention_mask_job.sh >"$L/bwd_table.txt" 2>&1
log "backward timings rc $?"
pack
log "tests (in parallel)"
T=$(lim 45)
TB=${TEST:-test_attention}
attn_test "$TB" matrix CLOPS_TEST_FILTER=test_kernels_match_the_reference &
attn_test test_check_attention check &
attn_test "$TB" wgb_choice CLOPS_TEST_FILTER=test_wgmma_bwd_choice &
# (added after attn12's call: the wgmma dQ, first run by attn13's job; its
# rows: BCONFIGS=$'base\nwgq CLOPS_ATTN_WGMMA_DQ=1\nwgqb CLOPS_ATTN_WGMMA_DQ=1 CLOPS_ATTN_WGMMA_BWD=1')
attn_test "$TB" wgq_choice CLOPS_PTX_VERBOSE=1 CLOPS_TEST_FILTER=test_wgmma_dq_choice &
attn_test "$TB" wg_g1late CLOPS_ATTN_WG_N=1 CLOPS_ATTN_WG_CTAS=2 CLOPS_ATTN_WG_LATE=1 \
    CLOPS_PTX_VERBOSE=1 CLOPS_TEST_FILTER=test_wgmma_choice &
wait
log "tests done"
pack
log done
pack
