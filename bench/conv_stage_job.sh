#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# bench/conv_stage_job.sh (issue 31, conv13): the device job of docs/conv.md
# "The im2col view's column kept in registers (conv13)", run from the
# repository root with $OUT set and OLDK a folder holding the gemm.cl before
# the change (read through CLOPS_KERNEL_DIR: the kernel source is the only
# difference, so one build serves both variants, one process each).  In one
# job of TOTAL s (default 225):
#   1. builds clops_static and test_conv in $BUILD (default /tmp/conv), then
#      bench_family;
#   2. test_conv's test_conv_wgmma* cases on $TDEV (default nvidia), one
#      process each (TEST_S s): TF32, bfloat16 and float16 products on wgmma (under
#      `all`) and on the rule, against the CPU reference, the bits twice;
#      with PLANTK (a folder with a planted bug's gemm.cl) the TF32 cases
#      again under it (they must fail); beside them a warm-up process of the
#      old kernels' rows (their program builds, untimed);
#   3. per-layer rows (bench/cases/conv_r18_tf32.yaml: ResNet-18's float32
#      forward and input-gradient layers at batch 64, TF32 as the bridge maps
#      cudnn.allow_tf32; first- and third-stage bfloat16 rows), one
#      bench_family process per variant, new / old alternated twice, and
#      PyTorch's column (bench/torch_family.py, cuDNN defaults) between;
#   4. with the time left, bench/cases/conv_half_wgmma.yaml (bfloat16
#      channels-last layers of ResNet-18/50) new / old.
# Everything goes under $OUT/logs, packed into $OUT/conv.tgz after every
# step.  DEV / SCALE: the rows' device and batch scale; CASES / HCASES other
# case files for steps 3 and 4 (e.g. bench/cases/conv_wgrad.yaml).
TOTAL=${TOTAL:-225}
OLDK=${OLDK:?OLDK: a folder with the old cl_kernels/gemm.cl}
OLDK=$(cd "$OLDK" && pwd)
. bench/conv_job_lib.sh
timeout 110 bash -c "cmake -S . -B $BUILD -DCMAKE_BUILD_TYPE=Release >/dev/null && cmake --build $BUILD -j$(nproc) --target clops_static test_conv" >"$L/build.txt" 2>&1
t "built test_conv rc $? ($(tail -1 "$L/build.txt"))"
TB="$BUILD/tests"
# (each test its own process, conv_job_lib.sh's ctest_: the cold builds of
# the three dtypes run side by side)
TEST_S=${TEST_S:-75}
PIDS=()
ctest_ tf32 test_conv_wgmma_tf32
ctest_ bf16 test_conv_wgmma_half_bf16
ctest_ f16 test_conv_wgmma_half_f16
ctest_ rule test_conv_wgmma_rule
# PLANTK: the staging with a planted bug (a tap's column one past the
# kernel's width): test_conv_wgmma_tf32 must fail under it
[ -n "${PLANTK:-}" ] && ctest_ planted test_conv_wgmma_tf32 CLOPS_KERNEL_DIR=$(cd "$PLANTK" && pwd)
timeout 40 cmake --build $BUILD -j$(nproc) --target bench_family >>"$L/build.txt" 2>&1
t "built bench_family rc $?"
C=${CASES:-bench/cases/conv_r18_tf32.yaml}
ROWS="env CLOPS_FLOAT32_CONV_PRECISION=high $BUILD/bench/bench_family --cases $C --device $DEV --scale $SCALE --reps 3"
# the old kernels' programs, built beside the tests (untimed)
(CLOPS_KERNEL_DIR=$OLDK CLOPS_FLOAT32_CONV_PRECISION=high timeout 60 $BUILD/bench/bench_family --cases $C \
    --device $DEV --scale $SCALE --reps 1 >"$L/warm_old.txt" 2>&1; t "old warm-up rc $?") &
PIDS+=($!)
wait "${PIDS[@]}"
rows_alt 40 25 20 30 25
H=${HCASES:-bench/cases/conv_half_wgmma.yaml}
ROWS="$BUILD/bench/bench_family --cases $H --device $DEV --scale $SCALE --reps 3"
[ "$(left)" -gt 45 ] && run_c hnew 20
[ "$(left)" -gt 22 ] && run_c hold 20 CLOPS_KERNEL_DIR=$OLDK
t "done"
