#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# bench/conv_engine_job.sh [tests|bench|all]: the GPU machine's check of
# convolution on the matrix engine (docs/conv.md, docs/benchmarks.md), run
# from the repository root with $OUT set (the device job's output folder;
# default ./conv-job):
#   tests  builds test_conv and test_gemm_engine and runs them on the NVIDIA
#          device (CLOPS_TEST_DEVICES=cpu,nvidia): the mma.sync paths of the
#          implicit GEMM and of the fused epilogues;
#   bench  bench_family on bench/cases/conv_engine.yaml against PyTorch with
#          cuDNN on, float32 with TF32 on both sides (CLOPS_FLOAT32_CONV_
#          PRECISION=high, PyTorch's default) and off (highest, --no-tf32),
#          plus clops' im2col path (CLOPS_CONV_IMPLICIT=0) for comparison;
#          the tables go to $OUT/conv_engine.md.
# Build folder: $BUILD (default /tmp/conv-job).
set -u
OUT=${OUT:-conv-job}
BUILD=${BUILD:-/tmp/conv-job}
mkdir -p "$OUT"
T0=$(date +%s)
t() { echo "[$(($(date +%s) - T0))s] $*"; }
what=${1:-all}
cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release >/dev/null 2>&1
cmake --build "$BUILD" -j"$(nproc)" --target test_conv test_gemm_engine bench_family 2>&1 | tail -1
t built
if [ "$what" != bench ]; then
    for x in test_conv test_gemm_engine; do
        CLOPS_TEST_DEVICES=cpu,nvidia "$BUILD/tests/$x" >>"$OUT/tests.txt" 2>&1
        echo "$x rc $?" >>"$OUT/tests.txt"
        t "$x"
    done
    grep -E "rc |FAILED|PASSED" "$OUT/tests.txt"
fi
[ "$what" = tests ] && exit 0
B="$BUILD/bench/bench_family --cases bench/cases/conv_engine.yaml --device nvidia --reps 3"
P="python3 bench/torch_family.py --family conv --cases bench/cases/conv_engine.yaml --reps 3"
CLOPS_FLOAT32_CONV_PRECISION=high $B --json "$OUT/c_tf32.json" >>"$OUT/bench.txt" 2>&1
$P --json "$OUT/t_tf32.json" >>"$OUT/bench.txt" 2>&1
CLOPS_FLOAT32_CONV_PRECISION=highest $B --case '*f32*' --json "$OUT/c_exact.json" >>"$OUT/bench.txt" 2>&1
$P --no-tf32 --case '*f32*' --json "$OUT/t_exact.json" >>"$OUT/bench.txt" 2>&1
CLOPS_CONV_IMPLICIT=0 $B --case '*bf16*' --json "$OUT/c_im2col.json" >>"$OUT/bench.txt" 2>&1
t bench
{
    echo "## TF32 allowed on both sides (PyTorch's default), bfloat16"
    python3 bench/compare_family.py "$OUT/c_tf32.json" "$OUT/t_tf32.json"
    echo "## exact float32 on both sides"
    python3 bench/compare_family.py "$OUT/c_exact.json" "$OUT/t_exact.json"
    echo "## clops' im2col path (CLOPS_CONV_IMPLICIT=0), bfloat16"
    python3 bench/compare_family.py "$OUT/c_im2col.json" "$OUT/t_tf32.json"
} >"$OUT/conv_engine.md" 2>&1
cat "$OUT/conv_engine.md"
