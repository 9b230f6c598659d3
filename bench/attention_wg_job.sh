#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# bench/attention_wg_job.sh: the GPU job of the wgmma attention forward
# (attn_fwd_wg, issue 30, attn10; docs/attention.md "Hopper's wgmma"), one
# device call on an H100/H200, run from the repository root with $OUT set:
#   1. the build in $BUILD (default /tmp/attn; SKIP_BUILD=1 keeps one),
#      after unpacking .debs/ (the libraries the GPU machine lacks; on
#      2026-11-28 it lacked vkFFT.h too, which .debs/ did not hold: the
#      job unpacked `apt-get download libvkfft-dev`'s package as well);
#   2. bench/attention_mask_job.sh's timings of the bfloat16 causal forward
#      rows (GPT-2, Llama) for each configuration of CONFIGS — attn_fwd_mma
#      (CLOPS_ATTN_WGMMA=0), attn_fwd_wg at its default key tiles and at 32
#      keys (=1: both head dims) —
#      with the driver's ptxas registers and spills (CLOPS_PTX_VERBOSE),
#      then PyTorch's SDPA on the same shapes, in the same job (each
#      process runs the known-answer checks first);
#   3. test_attention's test_wgmma_choice on the GPU: the choice, the
#      known-answer check, and the wgmma forwards against the CPU reference
#      (output and logsumexp; bfloat16 and float16, head dims 64 and 128);
#   4. test_attention's feature matrix (test_kernels_match_the_reference)
#      with the wgmma forward forced (CLOPS_TEST_ATTN_WGMMA=1 asserts that
#      every lean 16-bit forward of head dim 64/128 took it), as far as the
#      time left allows (TEST2_S).
# Each step has its own limit; logs go to $OUT as they come.  DEV (default
# nvidia) is the test device selector.  The fourth stop's job (H200,
# docs/benchmarks.md) ran it at a4b3dbd, when the wgmma forward was off by
# default (its "mma" configuration had no assignment): ~150 s after the
# machine's start, the build 36 s, the timings 33 s, test_wgmma_choice
# 23 s; the feature matrix was cut at its 60 s.
set -u
OUT=${OUT:-attn-wg-job}
BUILD=${BUILD:-/tmp/attn}
DEV=${DEV:-nvidia}
mkdir -p "$OUT"
export CLOPS_CACHE_DIR=${CLOPS_CACHE_DIR:-/tmp/attn-wg-cache}
T0=$(date +%s)
log() { echo "[$(($(date +%s) - T0))s] $*" | tee -a "$OUT/steps.txt"; }
if [ "${SKIP_BUILD:-0}" != 1 ]; then
    for f in .debs/*.deb; do dpkg -x "$f" /; done
    ldconfig
    log configure
    timeout "${CONF_S:-40}" cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release >"$OUT/cmake.txt" 2>&1
    log "configure rc $?; build"
    timeout "${BUILD_S:-120}" cmake --build "$BUILD" -j16 --target test_attention bench_family \
        >"$OUT/build.txt" 2>&1
    log "build rc $?"
fi
nvidia-smi --query-gpu=name,driver_version --format=csv >"$OUT/gpu.txt" 2>&1
log "timings"
CONFIGS=${CONFIGS:-"mma CLOPS_ATTN_WGMMA=0
wg CLOPS_ATTN_WGMMA=1
wg32 CLOPS_ATTN_WGMMA=1 CLOPS_ATTN_WG_BK=32"} CASES=${CASES:-'sdpa_fwd_*_bf16'} TIMED=none \
    RUN_S=${RUN_S:-25} TORCH_S=${TORCH_S:-40} OUT="$OUT/bench" BUILD="$BUILD" \
    timeout "${BENCH_S:-120}" bash bench/attention_mask_job.sh >"$OUT/bench_table.txt" 2>&1
log "timings rc $?"
log "test_wgmma_choice"
CLOPS_PTX_VERBOSE=1 CLOPS_TEST_DEVICES=$DEV CLOPS_TEST_FILTER=test_wgmma_choice \
    timeout "${TEST1_S:-60}" "$BUILD/tests/test_attention" >"$OUT/test_wgmma_choice.txt" 2>&1
log "test_wgmma_choice rc $?"
log "test_kernels_match_the_reference (wgmma forced)"
CLOPS_ATTN_WGMMA=1 CLOPS_TEST_ATTN_WGMMA=1 CLOPS_TEST_DEVICES=$DEV \
    CLOPS_TEST_FILTER=test_kernels_match_the_reference \
    timeout "${TEST2_S:-60}" "$BUILD/tests/test_attention" >"$OUT/test_matrix.txt" 2>&1
log "test_kernels_match_the_reference rc $?"
