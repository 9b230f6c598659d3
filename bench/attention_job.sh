#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# bench/attention_job.sh: the GPU machine's check of attention's
# tensor-core kernels (docs/attention.md, docs/benchmarks.md), run from the
# repository root with $OUT set (the device job's output folder; default
# ./attn-job); build folder $BUILD (default /tmp/b); about 4 minutes on the
# H100 from a cold build:
#   1. builds test_attention and bench_attention;
#   2. bfloat16 rows of bench_attention (GPT-2 and Llama, causal): the
#      forward with the register cap off and at 128 (CLOPS_ATTN_MMA_REGS),
#      the forward of the attention.cl in $OLD_KERNELS (a folder holding an
#      earlier cl_kernels/attention.cl, through CLOPS_KERNEL_DIR; skipped
#      when unset), the backward by default and without the grouped-query
#      head split (CLOPS_ATTN_BWD_SPLIT=0);
#   3. PyTorch's default SDPA on the same shapes (bench/torch_attention.py);
#   4. test_attention on the NVIDIA device (it asserts that the 16-bit
#      forwards and backwards took the tensor-core kernels);
#   5. ptxas -v (the one beside PyTorch's Triton, if any) on the PTX the
#      driver cached for the tensor-core programs: registers and spills.
set -u
OUT=${OUT:-attn-job}
BUILD=${BUILD:-/tmp/b}
mkdir -p "$OUT"
export CLOPS_CACHE_DIR=${CLOPS_CACHE_DIR:-/tmp/attn-job-cache}
T0=$(date +%s)
t() { echo "[$(($(date +%s) - T0))s] $*"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | tee "$OUT/gpu.txt"
cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DCLOPS_WERROR=ON >/dev/null 2>&1
if ! cmake --build "$BUILD" -j"$(nproc)" --target test_attention bench_attention \
    >"$OUT/build.log" 2>&1; then
    tail -30 "$OUT/build.log"
    exit 1
fi
t built
B="$BUILD/bench/bench_attention --device nvidia --reps 5"
{
    echo "# forward, CLOPS_ATTN_MMA_REGS=0 (no register cap)"
    CLOPS_ATTN_MMA_REGS=0 timeout 60 $B --case 'sdpa_fwd_*_bf16'
    echo "# forward, CLOPS_ATTN_MMA_REGS=128"
    CLOPS_ATTN_MMA_REGS=128 timeout 60 $B --case 'sdpa_fwd_*_bf16'
    if [ -n "${OLD_KERNELS:-}" ]; then
        echo "# forward, $OLD_KERNELS/attention.cl (no register cap)"
        CLOPS_KERNEL_DIR=$OLD_KERNELS CLOPS_ATTN_MMA_REGS=0 timeout 60 $B --case 'sdpa_fwd_*_bf16'
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
PTXAS=$(python3 -c 'import os, triton; print(os.path.join(os.path.dirname(triton.__file__), "backends/nvidia/bin/ptxas"))' 2>/dev/null)
[ -x "${PTXAS:-}" ] || PTXAS=$(command -v ptxas)
if [ -x "${PTXAS:-}" ]; then
    python3 - "$CLOPS_CACHE_DIR" "$OUT" <<'PY'
import glob, os, sys
cache, out = sys.argv[1], sys.argv[2]
for f in glob.glob(os.path.join(cache, "**", "*.bin"), recursive=True):
    b = open(f, "rb").read()
    i = b.find(b".version")
    if i < 0 or b.find(b"_mma(", i) < 0:
        continue
    ptx = b[i:].split(b"\0")[0]
    name = "fwd" if b".entry attn_fwd_mma" in ptx else "bwd"
    path = os.path.join("/tmp", f"attn-{name}-{os.path.basename(f)[:8]}.ptx")
    open(path, "wb").write(ptx)
    print(path)
PY
    for p in /tmp/attn-*.ptx; do
        echo "== $p"
        "$PTXAS" -arch=sm_90 -v "$p" -o /dev/null 2>&1 | grep -E "Function properties|spill|Used"
        case "$p" in *fwd*) "$PTXAS" -arch=sm_90 -v -maxrregcount 128 "$p" -o /dev/null 2>&1 |
            grep -E "spill|Used" | sed 's/^/  (cap 128) /' ;; esac
    done >"$OUT/ptxas.txt" 2>&1
    cat "$OUT/ptxas.txt"
fi
t done
