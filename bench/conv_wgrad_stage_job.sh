#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# bench/conv_wgrad_stage_job.sh (issue 31, conv14): the device job of
# docs/conv.md "The weight gradient's staging without divisions (conv14)",
# run from the repository root with $OUT set, OLDK a folder holding the
# gemm.cl before the change (read through CLOPS_KERNEL_DIR: one binary
# serves both variants, one process each) and optionally PLANTA / PLANTB
# (folders with a planted bug's gemm.cl in the new A / B stepping: the
# weight-gradient test must fail under each).  BIN: a folder with
# test_conv and bench_family built elsewhere from the same tree (a short
# call cannot afford the ~45 s build; if they do not run here, they are
# built in $BUILD).  In one job of TOTAL s (default 85), side by side:
#   - test_conv's test_conv_wgmma_half_bf16 and _f16 (one process each:
#     NVIDIA's driver builds programs in the calling thread), the weight
#     gradient tests (test_implicit_weight_gradient_splits,
#     test_weight_gradient_by_samples), the planted runs; each cut at the
#     job's end;
#   - warm-ups (program builds, untimed) of the rows for the new and old
#     kernels; once both are done, the rows new / old / PyTorch / new / old
#     (bench/cases/conv_wgrad.yaml at SCALE, default 1: batch 8; the
#     scale divides the batch, 0.125 is batch 64 — conv14's job passed 8
#     meaning 64 and ran batch 1; float32 as TF32, as the bridge maps
#     cudnn.allow_tf32).  The tests' program builds run on the CPU beside
#     the rows and their kernels on the GPU: the rows are not a quiet
#     machine's (old and new alternate under the same load).
# Binaries built elsewhere keep that tree's paths: tests that read
# tests/data (test_weight_gradient_by_samples' golden cases) skip unless
# the tree sits at the same path.
# Everything goes under $L (conv_job_lib.sh), packed into $OUT/conv.tgz.
TOTAL=${TOTAL:-85}
SCALE=${SCALE:-1}
OLDK=${OLDK:?OLDK: a folder with the old cl_kernels/gemm.cl}
OLDK=$(cd "$OLDK" && pwd)
. bench/conv_job_lib.sh
if [ -n "${BIN:-}" ] && CLOPS_TEST_FILTER=none_such "$BIN/test_conv" >"$L/bin.txt" 2>&1 &&
    "$BIN/bench_family" --cases bench/cases/conv_wgrad.yaml --list >>"$L/bin.txt" 2>&1; then
    TB=$(cd "$BIN" && pwd) BB=$TB
    t "prebuilt binaries run"
else
    timeout 60 bash -c "cmake -S . -B $BUILD -DCMAKE_BUILD_TYPE=Release >/dev/null && cmake --build $BUILD -j$(nproc) --target test_conv bench_family" >"$L/build.txt" 2>&1
    t "built rc $? ($(tail -1 "$L/build.txt"))"
    TB=$BUILD/tests BB=$BUILD/bench
fi
# (conv_job_lib.sh's ctest_, each test cut at the job's end: TEST_S unset)
unset TEST_S
PIDS=()
ctest_ bf16 test_conv_wgmma_half_bf16
ctest_ f16 test_conv_wgmma_half_f16
ctest_ wsplit test_implicit_weight_gradient_splits
ctest_ wsamples test_weight_gradient_by_samples
[ -n "${PLANTA:-}" ] && ctest_ plantA test_implicit_weight_gradient_splits CLOPS_KERNEL_DIR=$(cd "$PLANTA" && pwd)
[ -n "${PLANTB:-}" ] && ctest_ plantB test_implicit_weight_gradient_splits CLOPS_KERNEL_DIR=$(cd "$PLANTB" && pwd)
C=${CASES:-bench/cases/conv_wgrad.yaml}
ROWS="env CLOPS_FLOAT32_CONV_PRECISION=high $BB/bench_family --cases $C --device $DEV --scale $SCALE --reps 3"
warm() {
    local tag=$1
    shift
    (env "$@" CLOPS_FLOAT32_CONV_PRECISION=high timeout ${WARM_S:-45} $BB/bench_family --cases $C \
        --device $DEV --scale $SCALE --reps 1 >"$L/warm_$tag.txt" 2>&1
        t "warm-up $tag $* rc $?") &
    WP+=($!)
}
WP=()
warm new
warm old CLOPS_KERNEL_DIR=$OLDK
wait "${WP[@]}"
rows_alt 12 14 8 12 10
wait "${PIDS[@]}"
t "done"
