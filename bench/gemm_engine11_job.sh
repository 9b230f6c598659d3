#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# engine11's GPU job (H200/H100, one call, ~215 s; docs/gemm.md "Hopper: more
# bytes in flight (engine11)"): (1) the library built (bench_gemm,
# test_gemm_engine) while (2) cuBLAS runs through PyTorch, bfloat16: mm
# (bench/torch_gemm.py --big, --gpt2) and linear (F.linear, a weight of
# [N, K]) on the same shapes; (3) every configuration timed below built and
# checked side by side (one process per configuration and layout,
# CLOPS_PTX_VERBOSE: ptxas's registers and spills), then test_gemm_engine's
# TMA tests alone (the rule's "-tma" configurations against the reference
# and bit for bit against the default, three layouts, and the rule); (4)
# the configurations whose checks passed timed in one bench_gemm process
# per layout, mm (A K-major, B N-major: GPT-2's Conv1D) and linear (--bt,
# both K-major: Llama's nn.Linear), the defaults forced by name.  Logs
# under $OUT, tarred after every step.  Run from a copy of the tree:
#   for f in .debs/*.deb; do dpkg -x $f /; done; ldconfig; bash bench/gemm_engine11_job.sh
# (POCL dry run: DEV=pocl SHAPES_MM="square 1024" SHAPES_BT="square 1024"
# NO_TORCH=1 BUILD=<a configured build> bash bench/gemm_engine11_job.sh)
set -o pipefail
t0=$(date +%s)
DL=${DL:-210}
left() { echo $(( DL - ($(date +%s) - t0) )); }
cap() { local l; l=$(left); [ "$l" -gt "$1" ] && echo "$1" || echo $(( l > 1 ? l : 1 )); }
# (logs in $O, outside $OUT: only engine.tgz and steps.txt come back)
O=${WORK:-/tmp/engine11-work}/engine11
R=${OUT:-/tmp/engine11-out}
mkdir -p "$O" "$R"
pack() { tar czf "$R/engine.tgz" -C "$(dirname "$O")" engine11 2>/dev/null; cp "$O/steps.txt" "$R/"; }
B=${BUILD:-/tmp/engine}
DEV=${DEV:-nvidia}
S=$O/steps.txt
log() { echo "[$(( $(date +%s) - t0 )) s] $*" | tee -a "$S"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >> "$S" 2>&1
date -u >> "$S"
export CLOPS_CACHE_DIR=${CLOPS_CACHE_DIR:-/tmp/engine-kc}
mkdir -p "$CLOPS_CACHE_DIR"
# (1) the library, in the background
if [ -z "$BUILD" ]; then
    ( cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release > $O/cmake.log 2>&1 &&
      timeout "$(cap 120)" cmake --build $B -j14 --target bench_gemm test_gemm_engine > $O/build.log 2>&1
      echo "build rc $?" >> $O/build.log ) &
    BP=$!
fi
# (2) cuBLAS: mm, then linear
if [ -z "$NO_TORCH" ]; then
    ( timeout "$(cap 40)" python3 bench/torch_gemm.py --dtype bfloat16 --big
      timeout "$(cap 30)" python3 bench/torch_gemm.py --dtype bfloat16 --gpt2
      timeout "$(cap 30)" python3 - <<'PY'
import torch, torch.nn.functional as F
print("| linear (F.linear, weight [N, K]) | TFLOP/s |")
for name, m, n, k in [("square 4096", 4096, 4096, 4096), ("mlp 4096x4096x11008", 4096, 4096, 11008),
                      ("llama up 4096x11008x4096", 4096, 11008, 4096),
                      ("gpt2 c_attn 4096x2304x768", 4096, 2304, 768),
                      ("gpt2 mlp c_proj 4096x768x3072", 4096, 768, 3072)]:
    x = torch.rand(m, k, device="cuda", dtype=torch.bfloat16) * 2 - 1
    w = torch.rand(n, k, device="cuda", dtype=torch.bfloat16) * 2 - 1
    F.linear(x, w); torch.cuda.synchronize()
    best = float("inf")
    for _ in range(5):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        for _ in range(20):
            F.linear(x, w)
        b.record(); torch.cuda.synchronize()
        best = min(best, a.elapsed_time(b) / 1e3 / 20)
    print(f"| {name} | {2 * m * n * k / best * 1e-12:.1f} |")
PY
    ) > "$O/torch.txt" 2>&1
    log "torch done"
fi
pack
[ -n "$BP" ] && wait $BP
tail -3 $O/build.log 2>/dev/null | tee -a "$S"
[ -x $B/bench/bench_gemm ] || { tail -40 $O/build.log >> "$S"; pack; exit 1; }
log "built"
pack
G=$B/bench/bench_gemm
# the defaults (large, few blocks), engine10's TMA ones, engine11's
D='wg128x128-s3-cs wg64x128-s4-cs'
T='wg128x128-k16-s5-tma-cs wg128x128-k16-s5-d1-tma-cs wg128x128-k64-s1-tma-cs wg64x128-k64-s1-tma-cs wg64x128-k64-s1-tma-cs-o5 wg64x128-s3-tma-cs-o5'
# (3) every program built and checked side by side, the tests beside them
for c in $D $T; do
    for bt in "" --bt; do
        CLOPS_PTX_VERBOSE=1 timeout "$(cap 65)" $G --device $DEV --dtype bfloat16 --sweep \
            --sweep-prefix "$c\$" --sweep-shape "square 1024" --reps-seconds 0.001 $bt \
            > "$O/warm-$c$bt.txt" 2>&1 &
    done
done
wait
log "programs built"
# the TMA tests alone, the rule's configurations (engine11's run had them
# beside the warm-ups and was cut at 65 s: not a pass)
CLOPS_TEST_WGMMA_ONLY=${TEST_ONLY:-wg128x128-k64-s1-tma-cs,wg64x128-k64-s1-tma-cs,wg64x128-s3-tma-cs-o5} \
CLOPS_TEST_DEVICES=$DEV CLOPS_TEST_FILTER='tma_*' CLOPS_TEST_TIMING=1 \
    timeout "$(cap 50)" $B/tests/test_gemm_engine > "$O/test-tma.txt" 2>&1
echo "rc $?" >> "$O/test-tma.txt"
log "tma tests: $(tail -1 "$O/test-tma.txt"), $(grep -c '\[  FAILED  \]' "$O/test-tma.txt") failed lines"
for f in "$O"/warm-*.txt; do
    echo "== $(basename "$f")"
    grep -E "warning|error|fail|\| wg|Used [0-9]+ registers|spill" "$f" | grep -v "0 bytes spill" | head -8
done > "$O/warm-summary.txt"
pack
# only the configurations whose warm-up finished with their checks passed
K=''
for c in $T; do
    grep -q "| $c |.*checks failed 0" "$O/warm-$c.txt" && grep -q "| $c |.*checks failed 0" "$O/warm-$c--bt.txt" &&
        K="$K $c"
done
log "TMA configurations kept: ${K:-none}"
P=''
for c in $D $K; do P="$P${P:+,}$c\$"; done
# (4) timed, one process per layout
SM=${SHAPES_MM:-square 4096,square 8192,mlp 4096,llama up,c_attn,c_proj,c_fc}
SB=${SHAPES_BT:-square 4096,mlp 4096,llama up,c_attn,mlp c_proj}
{
    echo "== mm (A K-major, B N-major)"
    timeout "$(cap 60)" $G --device $DEV --dtype bfloat16 --sweep --sweep-prefix "$P" \
        --sweep-shape "$SM" --reps-seconds 0.03
} > "$O/bench-mm.txt" 2>&1
log "timed mm"
pack
{
    echo "== linear (B K-major, --bt)"
    timeout "$(cap 45)" $G --device $DEV --dtype bfloat16 --sweep --sweep-prefix "$P" \
        --sweep-shape "$SB" --reps-seconds 0.03 --bt
} > "$O/bench-bt.txt" 2>&1
log "timed linear"
log "done"
pack
