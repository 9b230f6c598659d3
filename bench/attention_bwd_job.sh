#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# bench/attention_bwd_job.sh: the GPU machine's check of attention's
# tensor-core backward (docs/attention.md, docs/benchmarks.md), run from the
# repository root with $OUT set (the device job's output folder; default
# ./attn-job); build folder $BUILD (default /tmp/b), about 3 minutes on the
# H100 from a cold build:
#   1. builds test_attention, test_check_attention and bench_attention;
#   2. runs the two tests on the NVIDIA device (CLOPS_TEST_DEVICES=nvidia):
#      test_attention asserts that 16-bit backward cases up to head dim 128
#      took the tensor-core kernels (a failed known-answer check fails it);
#   3. bench_attention's forward and backward rows, the bfloat16 backward
#      also with CLOPS_ATTN_MMA_BWD=0 (the FMA kernels), then PyTorch's
#      default SDPA on the same shapes (bench/torch_attention.py).
# With the argument `python` instead (about 5 minutes, most of it the
# extension build): builds the PyTorch extension in place against $BUILD
# and runs python/tests/test_attention.py on the default clops device (the
# GPU there; its 16-bit backward cases take the tensor-core kernels).
set -u
OUT=${OUT:-attn-job}
BUILD=${BUILD:-/tmp/b}
mkdir -p "$OUT"
T0=$(date +%s)
t() { echo "[$(($(date +%s) - T0))s] $*"; }
if [ "${1:-}" = python ]; then
    (cd python && CLOPS_BUILD_DIR="$BUILD" python3 setup.py build_ext --inplace) \
        >"$OUT/ext.log" 2>&1 || { tail -30 "$OUT/ext.log"; exit 1; }
    t extension
    (cd python/tests && PYTHONPATH=$PWD/.. timeout 300 python3 -m pytest -q -rs \
        -p no:cacheprovider test_attention.py) >"$OUT/pytest_attention.txt" 2>&1
    echo "pytest test_attention.py rc $?"
    tail -15 "$OUT/pytest_attention.txt"
    t done
    exit 0
fi
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | tee "$OUT/gpu.txt"
cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DCLOPS_WERROR=ON >/dev/null 2>&1
if ! cmake --build "$BUILD" -j"$(nproc)" --target test_attention test_check_attention \
    bench_family >"$OUT/build.log" 2>&1; then
    tail -30 "$OUT/build.log"
    exit 1
fi
t built
for x in test_attention test_check_attention; do
    CLOPS_TEST_DEVICES=nvidia timeout 150 ctest --test-dir "$BUILD" -R "^$x\$" \
        --output-on-failure >"$OUT/$x.txt" 2>&1
    echo "$x rc $?"
    grep -E "tests passed|FAILED|ERROR|warning|mismatch|differ|took" "$OUT/$x.txt" | head -20
    t "$x"
done
B="$BUILD/bench/bench_attention --device nvidia --reps 5"
{
    timeout 90 $B --case 'sdpa_fwd_*'
    timeout 90 $B --case 'attn_bwd_*'
    echo "# CLOPS_ATTN_MMA_BWD=0 (the FMA backward)"
    CLOPS_ATTN_MMA_BWD=0 timeout 90 $B --case 'attn_bwd_*_bf16'
} >"$OUT/bench.txt" 2>&1
cat "$OUT/bench.txt"
t bench
timeout 120 python3 bench/torch_attention.py --reps 5 >"$OUT/torch.txt" 2>&1
cat "$OUT/torch.txt"
t done
