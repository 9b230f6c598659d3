#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# bench/attention_job.sh: the GPU machine's check of attention's
# tensor-core kernels (docs/attention.md, docs/benchmarks.md), run from the
# repository root with $OUT set (the device job's output folder; default
# ./attn-job); build folder $BUILD (default /tmp/b); about 4 minutes on the
# H100 from a cold build:
#   1. builds test_attention and bench_family (bench_attention);
#   2. bfloat16 rows of bench_attention (GPT-2 and Llama, causal): the
#      forward, and the forward of the attention.cl in $OLD_KERNELS (a
#      folder holding an earlier cl_kernels/attention.cl, through
#      CLOPS_KERNEL_DIR, for a before/after in one job; skipped when
#      unset); the backward by default and without the grouped-query head
#      split (CLOPS_ATTN_BWD_SPLIT=0);
#   3. PyTorch's default SDPA on the same shapes (bench/torch_attention.py);
#   4. test_attention on the NVIDIA device (it asserts that the 16-bit
#      forwards and backwards took the tensor-core kernels);
#   5. copies the PTX the driver cached for the bfloat16 tensor-core
#      programs to $OUT (ptx-*.ptx: `ptxas -arch=sm_90 -v` there or here
#      gives registers and spills; the GPU machine has no ptxas).
# With the argument `python` instead (about 5 minutes, most of it the
# extension build): builds the PyTorch extension in place against $BUILD
# and runs python/tests/test_attention.py on the default clops device (the
# GPU there; its 16-bit cases take the tensor-core kernels).
# With `ncu` (about 2 minutes, untried: whether Nsight Compute sees
# OpenCL launches is the first thing it tells): builds bench_family and
# profiles one GPT-2 bfloat16 launch each of attn_fwd_mma, attn_bwd_dkv_mma
# and attn_bwd_dq_mma (after the known-answer checks' launches) into
# $OUT/ncu.txt.
set -u
OUT=${OUT:-attn-job}
BUILD=${BUILD:-/tmp/b}
mkdir -p "$OUT"
export CLOPS_CACHE_DIR=${CLOPS_CACHE_DIR:-/tmp/attn-job-cache}
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
if [ "${1:-}" = ncu ]; then
    cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DCLOPS_WERROR=ON >/dev/null 2>&1
    cmake --build "$BUILD" -j"$(nproc)" --target bench_family >"$OUT/build.log" 2>&1 ||
        { tail -30 "$OUT/build.log"; exit 1; }
    t built
    NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
    for k in attn_fwd_mma attn_bwd_dkv_mma attn_bwd_dq_mma; do
        c=sdpa_fwd_gpt2_bf16
        [ $k = attn_fwd_mma ] || c=attn_bwd_gpt2_bf16
        timeout 120 "$NCU" --clock-control none --target-processes all --kernel-name "$k" \
            --launch-skip 2 --launch-count 1 --section SpeedOfLight --section Occupancy \
            --section LaunchStats --section WarpStateStats --section SchedulerStats \
            --section MemoryWorkloadAnalysis \
            "$BUILD/bench/bench_attention" --device nvidia --reps 2 --case "$c" 2>&1
        t "ncu $k"
    done >"$OUT/ncu.txt"
    tail -60 "$OUT/ncu.txt"
    exit 0
fi
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | tee "$OUT/gpu.txt"
cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DCLOPS_WERROR=ON >/dev/null 2>&1
if ! cmake --build "$BUILD" -j"$(nproc)" --target test_attention bench_family \
    >"$OUT/build.log" 2>&1; then
    tail -30 "$OUT/build.log"
    exit 1
fi
t built
B="$BUILD/bench/bench_attention --device nvidia --reps 5"
{
    echo "# forward"
    timeout 60 $B --case 'sdpa_fwd_*_bf16'
    if [ -n "${OLD_KERNELS:-}" ]; then
        echo "# forward, $OLD_KERNELS/attention.cl"
        CLOPS_KERNEL_DIR=$OLD_KERNELS timeout 60 $B --case 'sdpa_fwd_*_bf16'
    fi
    echo "# backward (default)"
    timeout 60 $B --case 'attn_bwd_*_bf16'
    echo "# backward, CLOPS_ATTN_BWD_SPLIT=0"
    CLOPS_ATTN_BWD_SPLIT=0 timeout 60 $B --case 'attn_bwd_llama_bf16'
} >"$OUT/bench.txt" 2>&1
cat "$OUT/bench.txt"
t bench
timeout 90 python3 bench/torch_attention.py --reps 5 >"$OUT/torch.txt" 2>&1
cat "$OUT/torch.txt"
t torch
CLOPS_TEST_DEVICES=nvidia timeout 200 ctest --test-dir "$BUILD" -R '^test_attention$' \
    --output-on-failure >"$OUT/test_attention.txt" 2>&1
echo "test_attention rc $?"
grep -E "tests passed|FAILED|ERROR|warning|took|differ|were" "$OUT/test_attention.txt" | head -20
t test
python3 - "$CLOPS_CACHE_DIR" "$OUT" <<'PY'
import glob, os, sys
cache, out = sys.argv[1], sys.argv[2]
n = 0
for f in sorted(glob.glob(os.path.join(cache, "**", "*.bin"), recursive=True)):
    b = open(f, "rb").read()
    i = b.find(b".version")
    ptx = b[i:].split(b"\0")[0] if i >= 0 else b""
    if b"_mma(" not in ptx or b"bf16" not in ptx or n >= 4:
        continue
    name = "fwd" if b".entry attn_fwd_mma" in ptx else "bwd"
    open(os.path.join(out, f"ptx-{name}-{os.path.basename(f)[:8]}.ptx"), "wb").write(ptx)
    n += 1
PY
t done
