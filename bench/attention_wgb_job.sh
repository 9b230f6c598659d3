#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# bench/attention_wgb_job.sh: the GPU job of the wgmma dK/dV
# (attn_bwd_dkv_wg, issue 30, attn11; docs/attention.md "Hopper's wgmma"),
# one device call on an H100/H200, run from the repository root with $OUT
# set, every step under its own limit and all of them under the job's
# (JOB_S, default 215 s; each step gets what is left of it):
#   1. the build in $BUILD (default /tmp/attn; SKIP_BUILD=1 keeps one),
#      after unpacking .debs/ (the libraries the GPU machine lacks);
#   2. test_attention's test_wgmma_bwd_choice on the GPU: the choice, the
#      known-answer check, and backwards with dK/dV on attn_bwd_dkv_wg
#      against the CPU reference (bfloat16 and float16, head dims 64 and
#      128) and their bits twice, with the driver's ptxas registers and
#      spills (CLOPS_PTX_VERBOSE);
#   3. bench/attention_mask_job.sh's timings of the bfloat16 causal
#      backward rows (GPT-2, Llama) for each configuration of CONFIGS —
#      attn_bwd_dkv_mma (the default), attn_bwd_dkv_wg with its switch's
#      defaults, with K and V in __local at both head dims
#      (CLOPS_ATTN_WG_BWD_KV=1), and in registers with 16-row steps — with
#      the split by kernel (CLOPS_ATTN_TIMES)
#      of the first two, then PyTorch's SDPA on the same shapes, in the
#      same job; then test_wgmma_bwd_choice with K and V in __local;
#   4. test_attention's feature matrix (test_kernels_match_the_reference)
#      with the wgmma dK/dV forced (CLOPS_TEST_ATTN_WGMMA_BWD=1 asserts
#      that every lean 16-bit backward of head dim 64/128 took it);
#   5. test_check_attention with it forced, as far as the time allows.
# Logs go to $OUT/logs as they come (with TARBALL=1 a tarball of them,
# $TGZ, default $OUT/attn.tgz, after every step).  DEV (default nvidia) is the test device
# selector.  The fifth stop's job (H200, docs/benchmarks.md) ran it at
# 16e3e03 with five configurations (the shapes were parameters then, the
# switch's defaults registers and 64 / 16-row steps): ~280 s with the
# machine's start; build 38 s, test_wgmma_bwd_choice cut at 45 s (cold
# programs), timings 86 s; the feature matrix and the operator suite cut.
JOB=wgb JOB_DEF_S=215
. bench/attention_job_lib.sh
attn_build test_attention bench_family test_check_attention
log "test_wgmma_bwd_choice"
CLOPS_PTX_VERBOSE=1 CLOPS_TEST_DEVICES=$DEV CLOPS_TEST_FILTER=test_wgmma_bwd_choice \
    timeout "$(lim 45)" "$BUILD/tests/test_attention" >"$L/test_wgmma_bwd_choice.txt" 2>&1
log "test_wgmma_bwd_choice rc $?"
pack
log "timings"
CONFIGS=${CONFIGS:-"mma
wgb CLOPS_ATTN_WGMMA_BWD=1
wgbkv CLOPS_ATTN_WGMMA_BWD=1 CLOPS_ATTN_WG_BWD_KV=1
wgbreg CLOPS_ATTN_WGMMA_BWD=1 CLOPS_ATTN_WG_BWD_KV=0 CLOPS_ATTN_WG_BWD_Q=16"} CASES=${CASES:-'attn_bwd_*_bf16'} \
    TIMED=${TIMED:-"mma wgb"} RUN_S=${RUN_S:-20} TORCH_S=${TORCH_S:-30} OUT="$L/bench" \
    BUILD="$BUILD" timeout "$(lim 90)" bash bench/attention_mask_job.sh >"$L/bench_table.txt" 2>&1
log "timings rc $?"
pack
log "test_wgmma_bwd_choice (K and V in __local)"
CLOPS_ATTN_WG_BWD_KV=1 CLOPS_PTX_VERBOSE=1 CLOPS_TEST_DEVICES=$DEV \
    CLOPS_TEST_FILTER=test_wgmma_bwd_choice timeout "$(lim 30)" "$BUILD/tests/test_attention" \
    >"$L/test_wgmma_bwd_choice_kv.txt" 2>&1
log "test_wgmma_bwd_choice (K and V in __local) rc $?"
pack
log "test_kernels_match_the_reference (wgmma dK/dV forced)"
CLOPS_ATTN_WGMMA_BWD=1 CLOPS_TEST_ATTN_WGMMA_BWD=1 CLOPS_TEST_DEVICES=$DEV \
    CLOPS_TEST_FILTER=test_kernels_match_the_reference \
    timeout "$(lim 40)" "$BUILD/tests/test_attention" >"$L/test_matrix.txt" 2>&1
log "test_kernels_match_the_reference rc $?"
pack
log "test_check_attention (wgmma dK/dV forced)"
CLOPS_ATTN_WGMMA_BWD=1 CLOPS_TEST_DEVICES=$DEV timeout "$(lim 40)" \
    "$BUILD/tests/test_check_attention" >"$L/test_check.txt" 2>&1
log "test_check_attention rc $?"
pack
log done
pack
