#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# engine10's GPU job (H200/H100, one call, ~220 s; docs/gemm.md "Hopper: TMA
# through NVIDIA's OpenCL"): (1) bench/probe_tma (built with gcc alone, no
# library: a buffer's device address, libcuda's encoder, TMA loads per
# swizzle, maps made on the device, a cluster, multicast, the copy engine's
# rate feeding 128 x 128 blocks); (2) cuBLAS through PyTorch, bfloat16;
# (3) the library built while those run; (4) the "-tma" configurations and
# the default built side by side (each program's known-answer check at
# first use), then timed in one bench_gemm process, bfloat16, A K-major and
# B N-major (mm) and B K-major (--bt, linear); (5) test_gemm_engine's TMA
# tests on the GPU; (6) if time is left, the default with its copies alone
# (CLOPS_GEMM_PROBE=10, engine9's split) beside the probe's TMA stream.
# The tensor maps' source follows the probe: libcuda's templates where
# they loaded a box correctly, else maps made from zeros
# (CLOPS_GEMM_TMA_MAP=zeros or zeros-m1) where those did.  (engine10's run,
# H200, 2026-11-28: 74 s; the templates; docs/gemm.md and docs/benchmarks.md
# hold its figures, with wg128x128-s2-tma, since removed.)  Run from a copy
# of the tree: carry [".debs"],
#   for f in .debs/*.deb; do dpkg -x $f /; done; ldconfig; bash bench/gemm_tma_job.sh
set -o pipefail
t0=$(date +%s)
DL=${DL:-215}
left() { echo $(( DL - ($(date +%s) - t0) )); }
cap() { local l; l=$(left); [ "$l" -gt "$1" ] && echo "$1" || echo $(( l > 1 ? l : 1 )); }
O=${OUT:-/tmp/tma-out}
mkdir -p "$O"
B=${BUILD:-/tmp/engine}
S=$O/steps.txt
log() { echo "[$(( $(date +%s) - t0 )) s] $*" | tee -a "$S"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >> "$S" 2>&1
date -u >> "$S"
export CLOPS_CACHE_DIR=/tmp/engine-kc
mkdir -p $CLOPS_CACHE_DIR
# (3) the library, in the background
( cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release > $B.cmake.log 2>&1 &&
  timeout "$(cap 150)" cmake --build $B -j14 --target bench_gemm test_gemm_engine > $B.build.log 2>&1
  echo "build rc $?" >> $B.build.log ) &
BP=$!
# (1) the probe
gcc -std=c11 -O2 -I. -DCL_TARGET_OPENCL_VERSION=120 -DCL_USE_DEPRECATED_OPENCL_1_2_APIS \
    bench/probe_tma.c ops/gemm/gemm_tma.c -o /tmp/probe_tma -lOpenCL -ldl -lpthread >> "$S" 2>&1
timeout "$(cap 60)" /tmp/probe_tma > "$O/probe.txt" 2>&1
echo "rc $?" >> "$O/probe.txt"
log "probe done"
grep -E "^probe (addr|encode|load|patch|cluster|mcast|build)" "$O/probe.txt" | head -40
# (2) cuBLAS
( timeout "$(cap 35)" python3 bench/torch_gemm.py --dtype bfloat16 --big
  timeout "$(cap 25)" python3 bench/torch_gemm.py --dtype bfloat16 --gpt2 ) > "$O/torch.txt" 2>&1
log "torch done"
if grep -q "^probe patch-template: OK" "$O/probe.txt" && grep -q "^probe load sw64.*: OK" "$O/probe.txt"; then
    MAP=template
elif grep -q "^probe patch-zeros: OK" "$O/probe.txt"; then
    MAP=zeros
elif grep -q "^probe patch-zeros-minus-one: OK" "$O/probe.txt"; then
    MAP=zeros-m1
else
    MAP=none
fi
[ "$MAP" = zeros ] || [ "$MAP" = zeros-m1 ] && export CLOPS_GEMM_TMA_MAP=$MAP
log "tensor maps: $MAP"
wait $BP
tail -3 $B.build.log | tee -a "$S"
[ -x $B/bench/bench_gemm ] || { tail -40 $B.build.log >> "$S"; exit 1; }
log "built"
G=$B/bench/bench_gemm
D='wg128x128-s3-cs'
T='wg128x128-k16-s5-tma-cs wg128x128-k16-s5-d1-tma-cs'
[ "$MAP" = none ] && T=''
# (4) every program built side by side (and checked), then timed alone
for c in $D $T; do
    for bt in "" --bt; do
        timeout "$(cap 70)" $G --device nvidia --dtype bfloat16 --sweep --sweep-prefix "$c\$" \
            --sweep-shape "square 1024" --reps-seconds 0.001 $bt > "/tmp/warm-$c$bt.txt" 2>&1 &
    done
done
wait
log "programs built"
cat /tmp/warm-*.txt | grep -iE "warning|error|fail|\| wg" | head -30 | tee -a "$S"
# only the configurations whose warm-up finished with their checks passed
# (a kernel that hangs would hang again in each later process)
K=''
for c in $T; do
    grep -q "| $c |.*checks failed 0" "/tmp/warm-$c.txt" && K="$K $c"
done
T=$K
log "TMA configurations kept: ${T:-none}"
P="$D\$"
for c in $T; do P="$P,$c\$"; done
{
    echo "== mm (B N-major)"
    timeout "$(cap 40)" $G --device nvidia --dtype bfloat16 --sweep --sweep-prefix "$P" \
        --sweep-shape "square 4096,square 8192,c_attn,c_fc,mlp c_proj" --reps-seconds 0.03
    echo "== linear (B K-major, --bt)"
    timeout "$(cap 25)" $G --device nvidia --dtype bfloat16 --sweep --sweep-prefix "$P" \
        --sweep-shape "square 4096,c_attn" --reps-seconds 0.03 --bt
} > "$O/bench.txt" 2>&1
log "timed"
# (5) the TMA tests on the GPU (programs from the cache where built above)
if [ -n "$T" ]; then
    CLOPS_TEST_WGMMA_ONLY=$(echo $T | tr ' ' ',') \
    CLOPS_TEST_DEVICES=nvidia CLOPS_TEST_FILTER='tma_*' CLOPS_TEST_TIMING=1 \
        timeout "$(cap 60)" $B/tests/test_gemm_engine > "$O/test.txt" 2>&1
    echo "rc $?" >> "$O/test.txt"
    log "tested"
fi
# (6) the default's copies alone (cp.async), same job as the probe's stream
if [ "$(left)" -gt 40 ]; then
    CLOPS_GEMM_PROBE=10 timeout "$(cap 40)" $G --device nvidia --dtype bfloat16 --sweep \
        --sweep-prefix "$D\$" --sweep-shape "square 4096,c_attn" --reps-seconds 0.02 \
        >> "$O/bench.txt" 2>&1
    log "copies alone"
fi
log "done"
