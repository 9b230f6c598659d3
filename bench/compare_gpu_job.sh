#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# compare6 (issue 34): the GPU report, docs/reports/h100-pocl5, in one call.
# Run from the copied tree's root on the GPU host:
#   bash bench/compare_gpu_job.sh                       # NVIDIA + POCL 5.0, both PyTorch columns
#   DEVICES=nvidia bash bench/compare_gpu_job.sh        # NVIDIA + PyTorch CUDA only
# Builds the CLI (Release, -j$(nproc)), fills POCL's kernel cache with
# `clops warmup --jobs $(nproc)` (the cold builds in parallel, before the
# clock of the bench), then runs `clops compare` on the devices of DEVICES
# with PyTorch as users run it (--torch-defaults: CUDA beside NVIDIA, the
# CPU beside POCL) and the model table, bench only (--no-check: the checks
# are CTest's test_check_* with CLOPS_TEST_DEVICES=nvidia), no first-call
# child processes (--no-first-calls), REPS repetitions behind each median.
# Results under $OUT (the tool brings back 8 files): report/ (html, md,
# json), compare.txt (the summary), compare.err (progress, with the
# per-phase times), log.txt (this script's output: environment, devices,
# warm-up, phase times).
# Locally: B=build DEVICES=pocl EXTRA="--op abs" bash bench/compare_gpu_job.sh
# (an existing build; EXTRA: more options for warmup and compare).
set -o pipefail
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
W=${W:-/tmp/compare6-work}
mkdir -p "$W"
exec > >(tee "$OUT/log.txt") 2>&1
B=${B:-/tmp/b}
DEVICES=${DEVICES:-nvidia,pocl}
CALL_S=${CALL_S:-420}
REPS=${REPS:-3}
JOBS=${JOBS:-$(nproc)}
t0=$(date +%s)
el() { echo "[$(($(date +%s) - t0)) s] $*"; }
if ls .debs/*.deb > /dev/null 2>&1 && [ ! -e /usr/include/cjson/cJSON.h ]; then
    for f in .debs/*.deb; do dpkg -x "$f" /; done
    ldconfig
fi
{
    echo "commit: $(cat COMMIT 2> /dev/null || git rev-parse --short HEAD 2> /dev/null || echo unknown)"
    echo "date: $(date -u +%FT%TZ)"
    nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2> /dev/null
    python3 -c "import torch; print('torch', torch.__version__, 'cuda', torch.version.cuda, torch.cuda.is_available(), 'cudnn', torch.backends.cudnn.version())" 2>&1 | tail -1
    python3 -c "import transformers, torchvision; print('transformers', transformers.__version__, 'torchvision', torchvision.__version__)" 2>&1 | tail -1
    echo "cores: $(nproc)"
    lscpu 2> /dev/null | grep -E "Model name|^CPU\(s\)" | tr -s ' '
}
el "start"
if [ ! -x "$B/clops" ]; then
    cmake -S . -B "$B" -DCMAKE_BUILD_TYPE=Release > "$W/cmake.log" 2>&1 &&
        cmake --build "$B" -j"$JOBS" --target clops_cli > "$W/build.log" 2>&1 ||
        {
            tail -30 "$W/cmake.log" "$W/build.log"
            exit 1
        }
fi
el "built"
export CLOPS_CACHE_DIR=${CLOPS_CACHE_DIR:-/tmp/clops-cache-compare6}
"$B/clops" devices > "$W/devices.txt" 2>&1
sed -n '/^Devices:/,/^$/p' "$W/devices.txt"
grep -E "^  (platform version|driver version|device version)" "$W/devices.txt"
sel=()
IFS=, read -ra want <<< "$DEVICES"
for d in "${want[@]}"; do
    if grep -qi "$d" "$W/devices.txt"; then sel+=(--device "$d"); else echo "no $d device: left out"; fi
done
# POCL compiles every kernel in the calling thread: fill its cache with
# JOBS processes at once (the representative set's float32 cases).
if [[ " ${sel[*]} " == *" pocl "* ]]; then
    timeout 90 "$B/clops" warmup --device pocl --dtype float32 --jobs "$JOBS" $EXTRA \
        > "$W/warmup.txt" 2>&1
    echo "warmup rc $?"
    tail -6 "$W/warmup.txt"
    el "pocl cache warm"
fi
LIMIT=${LIMIT:-$((CALL_S - 15 - ($(date +%s) - t0)))}
el "compare ${sel[*]} (limit $LIMIT s)"
CLOPS_PROGRESS=plain PYTHONUNBUFFERED=1 OMP_WAIT_POLICY=PASSIVE \
    timeout "$LIMIT" "$B/clops" compare "${sel[@]}" --torch-defaults --no-check --no-first-calls \
    --reps "$REPS" $EXTRA --out "$OUT/report" > "$OUT/compare.txt" 2> "$OUT/compare.err"
echo "compare rc $?"
el "compare done"
cat "$OUT/compare.txt"
grep -E "^(peaks|bench: [a-z]|torch: [0-9]+ of|torch: [0-9]+ cases|torch: the model|compare:)|warning" "$OUT/compare.err" | head -30
