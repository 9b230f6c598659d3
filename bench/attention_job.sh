#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# bench/attention_job.sh: the GPU machine's check of attention's
# tensor-core kernels and of layer_norm's GPU kernels (docs/attention.md,
# docs/norm.md, docs/benchmarks.md), run from the repository root with
# $OUT set (the device job's output folder; default ./attn-job); build
# folder $BUILD (default /tmp/b); about 3 minutes on the H100 from a cold
# build:
#   1. builds test_attention, test_norm and bench_family (bench_attention);
#   2. bfloat16 rows of bench_attention (GPT-2 and Llama, causal): the
#      forward with the default occupancy (CLOPS_ATTN_CTAS unset: two
#      work-groups per SM at every head dim through the PTX route), with
#      the driver's build (fwd=1: one 256-item work-group per SM); with
#      $OLD_KERNELS (a folder holding an earlier cl_kernels/attention.cl)
#      also that forward, through CLOPS_KERNEL_DIR; the backward by default (dK/dV at three and dQ at
#      two work-groups per SM up to head dim 64, the driver's builds at
#      128), with the driver's builds everywhere (dkv=1,dq=1) and routed
#      everywhere (dkv=3,dq=2); ptxas' log of every routed program
#      (CLOPS_PTX_VERBOSE) in ptxas.txt;
#   3. PyTorch's default SDPA on the same shapes (bench/torch_attention.py);
#   4. layer_norm rows of bench_family's norm family, with norm_layer_rr
#      (the default) and without it (CLOPS_NORM_LAYER_RR=0), and PyTorch's
#      on the same rows (bench/torch_family.py);
#   5. test_attention on the NVIDIA device with every tensor-core kernel
#      routed (CLOPS_ATTN_CTAS=fwd=2,dkv=3,dq=2, CLOPS_TEST_ATTN_ROUTED=1:
#      it asserts the route's builds ran and passed their known-answer
#      checks), beside test_norm on the NVIDIA device;
#   6. everything into $OUT/attn-job.tgz, the summary on the standard
#      output.
# (Nsight Compute, tried in this job on 2026-11-28, profiled no kernel of
# the OpenCL process: "No kernels were profiled".)
# With the argument `python` instead (about 5 minutes, most of it the
# extension build): builds the PyTorch extension in place against $BUILD
# and runs python/tests/test_attention.py on the default clops device (the
# GPU there; its 16-bit cases take the tensor-core kernels).
set -u
OUT=${OUT:-attn-job}
BUILD=${BUILD:-/tmp/b}
mkdir -p "$OUT"
export CLOPS_CACHE_DIR=${CLOPS_CACHE_DIR:-/tmp/attn-job-cache}
T0=$(date +%s)
t() { echo "[$(($(date +%s) - T0))s] $*"; }
if [ "${1:-}" = python ]; then
    (cd python && CLOPS_BUILD_DIR="$BUILD" MAX_JOBS=14 CLOPS_BUILD_PROGRESS=0 \
        python3 setup.py build_ext --inplace) >"$OUT/ext.log" 2>&1 ||
        { tail -30 "$OUT/ext.log"; exit 1; }
    t extension
    (cd python/tests && PYTHONPATH=$PWD/.. timeout 300 python3 -m pytest -q -rs \
        -p no:cacheprovider test_attention.py) >"$OUT/pytest_attention.txt" 2>&1
    echo "pytest test_attention.py rc $?"
    tail -15 "$OUT/pytest_attention.txt"
    t done
    exit 0
fi
set -f
J=/tmp/attn-job-files
rm -rf "$J"
mkdir -p "$J"
fin() { tar -czf "$OUT/attn-job.tgz" -C "$J" .; }
trap fin EXIT
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | tee "$J/gpu.txt"
cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DCLOPS_WERROR=ON >/dev/null 2>&1
if ! cmake --build "$BUILD" -j"$(nproc)" --target test_attention test_norm bench_family \
    >"$J/build.log" 2>&1; then
    tail -30 "$J/build.log"
    exit 1
fi
t built
B="$BUILD/bench/bench_attention --device nvidia --reps 5"
{
    echo "# forward, default occupancy"
    CLOPS_PTX_VERBOSE=1 timeout 60 $B --case 'sdpa_fwd_*_bf16' 2>>"$J/ptxas.txt"
    echo "# forward, CLOPS_ATTN_CTAS=fwd=1 (the driver's build)"
    CLOPS_ATTN_CTAS=fwd=1 timeout 60 $B --case 'sdpa_fwd_*_bf16'
    if [ -n "${OLD_KERNELS:-}" ]; then
        echo "# forward, $OLD_KERNELS/attention.cl, the driver's build"
        CLOPS_KERNEL_DIR=$OLD_KERNELS CLOPS_ATTN_CTAS=fwd=1 timeout 60 $B --case 'sdpa_fwd_*_bf16'
    fi
    echo "# backward, default"
    timeout 60 $B --case 'attn_bwd_*_bf16'
    for c in dkv=1,dq=1 dkv=3,dq=2; do
        echo "# backward, CLOPS_ATTN_CTAS=$c"
        CLOPS_PTX_VERBOSE=1 CLOPS_ATTN_CTAS=$c timeout 60 $B --case 'attn_bwd_*_bf16' \
            2>>"$J/ptxas.txt"
    done
} >"$J/bench.txt" 2>&1
cat "$J/bench.txt"
grep -E "^clops: (warning|PTX)|registers|spill" "$J/ptxas.txt" | sort | uniq -c | head -40
t bench
timeout 60 python3 bench/torch_attention.py --reps 5 >"$J/torch.txt" 2>&1
cat "$J/torch.txt"
t torch
N="$BUILD/bench/bench_family --family norm --device nvidia --reps 10 --case layer_norm*"
{
    echo "# layer_norm, default (norm_layer_rr where the row fits)"
    timeout 60 $N
    echo "# layer_norm, CLOPS_NORM_LAYER_RR=0 (the streaming kernel)"
    CLOPS_NORM_LAYER_RR=0 timeout 60 $N
} >"$J/norm.txt" 2>&1
cat "$J/norm.txt"
timeout 60 python3 bench/torch_family.py --family norm --reps 10 --case 'layer_norm*' \
    >"$J/torch_norm.txt" 2>&1
cat "$J/torch_norm.txt"
t norm
CLOPS_TEST_DEVICES=nvidia timeout 100 "$BUILD/tests/test_norm" >"$J/test_norm.txt" 2>&1 &
TN=$!
CLOPS_TEST_DEVICES=nvidia CLOPS_ATTN_CTAS=fwd=2,dkv=3,dq=2 CLOPS_TEST_ATTN_ROUTED=1 \
    timeout 120 "$BUILD/tests/test_attention" >"$J/test_attention.txt" 2>&1
echo "test_attention rc $?"
grep -E "PASSED|FAILED|ERROR|warning|took|differ|were|ran the" "$J/test_attention.txt" | head -20
wait $TN
echo "test_norm rc $?"
grep -E "PASSED|FAILED|ERROR" "$J/test_norm.txt" | head -10
t done
