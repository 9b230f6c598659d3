#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# bench/cpu_families_job.sh: issue 36 on the GPU host's 16 CPU cores (POCL
# 5.0 against PyTorch CPU on the same cores; the GPU is not used), the
# causes of the rows behind, in one call of about 100 s wall:
#   1. the driver's floor per call (bench_family --floor: an empty kernel
#      enqueued back to back, + clFinish, + a blocking 8-byte read, fill +
#      kernel + read; wall and process CPU time);
#   2. the per-call floor through clops' ops beside PyTorch's
#      (bench/cases/floor_cpu.yaml: add, sum, cumsum, index_select of a
#      few elements, nll_loss forward, which reads its flag back);
#   3. the kernel-bound rows behind on 16 cores (cumsum / cumprod /
#      logcumsumexp rows, index_select, group_norm, maxpool backward, the
#      nll backward over GPT-2's rows) at 16 threads and again pinned to 2
#      cores (taskset, POCL_CPU_MAX_CU_COUNT=2, PyTorch --threads 2): a
#      ratio that holds at 2 cores and drops at 16 is the kernel's split
#      over the cores, not its per-core loop;
#   4. with the time left, whole families at 16 threads (loss, norm, pool,
#      scan, index), this tree's table.
# Wall-clock times (the host is otherwise idle; OMP_WAIT_POLICY=PASSIVE),
# one round.  Each step runs under the time left of BUDGET seconds, so a
# slow step loses the later ones, not the results so far.
#
# From this tree's root on the device machine, carrying .debs and the tree:
#   bash bench/cpu_families_job.sh          # this tree built there (~40 s of the budget)
#   BIN=bin/bench_family CASES_FROM=/path/it/was/built/from/bench \
#   BASE_BIN=bin/bench_family_base BASE_CASES_FROM=... bash bench/cpu_families_job.sh
#                                           # prebuilt binaries, this tree and a base beside it
# (cpu7 left .dev/cpu7 in /work/main with bin/bench_family of this tree, built
# in /work/wt/cpu5, and bin/bench_family_base of main 984b247, built in
# /tmp/cpu7-base; the run command, carry [".debs", ".dev/cpu7"], timeout 100:
#   for f in .debs/*.deb; do dpkg -x $f /; done; ldconfig; cd .dev/cpu7 && O=$OUT;
#   OUT=/tmp/o BIN=bin/bench_family CASES_FROM=/work/wt/cpu5/bench
#   BASE_BIN=bin/bench_family_base BASE_CASES_FROM=/tmp/cpu7-base/bench BUDGET=88
#   bash bench/cpu_families_job.sh > /tmp/o.log 2>&1; tail -5 /tmp/o.log;
#   tar -czf $O/cpu7.tgz -C /tmp/o .; cp /tmp/o/cpu7.md /tmp/o/host.txt $O/
# Not run on the host yet: on the 2-core VM end to end, 857 s with BUDGET=900.)
# $OUT: cpu7.md (every table, in order), json/ (every JSON), host.txt,
# build.log.  Tested end to end on the 2-core VM with BUDGET=900.
set -o pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT/json"
t0=$(date +%s)
left() { echo $(( BUDGET - ($(date +%s) - t0) )); }
BUDGET=${BUDGET:-95}
if [ -d .debs ]; then for f in .debs/*.deb; do dpkg -x "$f" / ; done; ldconfig; fi
PY=${CLOPS_PYTHON:-python3}
T=$(nproc)
{ lscpu | grep -E 'Model name|^CPU\(s\)'; echo "nproc $T"; $PY -c "import torch; print('torch', torch.__version__)"; } \
    2>&1 | tee "$OUT/host.txt"
export CLOPS_CACHE_DIR=${CLOPS_CACHE_DIR:-/tmp/cpu7-cache}
# The builds: prebuilt bench_family binaries when they run here (BIN, BASE_BIN:
# e.g. built on the 2-core VM; their descriptors are read from the path they
# were built with, CASES_FROM / BASE_CASES_FROM, which gets this tree's
# bench/cases), else this tree built here (BASE_BIN then left out).
B=/tmp/cpu7-b; B0=/tmp/cpu7-b0
prebuilt() { # prebuilt BIN DIR CASES_FROM
    [ -n "$1" ] && [ -x "$1" ] || return 1
    mkdir -p "$2/bench" && cp "$1" "$2/bench/bench_family" || return 1
    if [ -n "$3" ] && [ ! -e "$3/cases" ]; then mkdir -p "$3" && ln -s "$PWD/bench/cases" "$3/cases"; fi
    timeout 20 "$2/bench/bench_family" --family loss --list > /dev/null 2>&1
}
if ! prebuilt "${BIN:-}" "$B" "${CASES_FROM:-}"; then
    rm -rf "$B"
    cmake -S . -B "$B" -DCMAKE_BUILD_TYPE=Release > "$OUT/build.log" 2>&1 &&
        timeout "$(left)" cmake --build "$B" -j"$T" --target bench_family >> "$OUT/build.log" 2>&1 ||
        { tail -20 "$OUT/build.log"; exit 1; }
    BASE_BIN=
fi
prebuilt "${BASE_BIN:-}" "$B0" "${BASE_CASES_FROM:-}" || B0=
echo "prebuilt: ${BIN:-none}, base: ${B0:-none}" >> "$OUT/host.txt"
echo "[$(( $(date +%s) - t0 )) s] built" | tee -a "$OUT/host.txt"
export OMP_WAIT_POLICY=PASSIVE CUDA_VISIBLE_DEVICES=
MD="$OUT/cpu7.md"
: > "$MD"
# 1. the driver's floor
{ echo "## driver floor (bench_family --floor --reps 200)"; echo '```';
  timeout 20 "$B/bench/bench_family" --floor --device pocl --reps 200; echo '```'; } 2>&1 | tee -a "$MD"
# kernels compiled once (the disk cache), in parallel, before the timed runs
for fam in floor_cpu scan index norm pool loss; do
    for b in $B $B0; do
        timeout "$(left)" "$b/bench/bench_family" --family $fam --device pocl --scale 4096 \
            --reps 1 > /dev/null 2>&1 &
    done
done
wait
echo "[$(( $(date +%s) - t0 )) s] kernels compiled" | tee -a "$OUT/host.txt"
# fam glob threads label builds...: one cpu_families.py call under the time left
cf() {
    local l; l=$(left)
    [ "$l" -gt 3 ] || { echo "$4: no time left" | tee -a "$MD"; return; }
    local fam=$1 glob=$2 th=$3 label=$4; shift 4
    local pre=()
    if [ "$th" != "$T" ] && command -v taskset > /dev/null; then
        pre=(env POCL_CPU_MAX_CU_COUNT="$th" POCL_MAX_PTHREAD_COUNT="$th" taskset -c 0-$(( th - 1 )))
    fi
    local g=(); [ "$glob" != "*" ] && g=(--case "$glob")
    timeout "$l" "${pre[@]}" $PY bench/cpu_families.py "$@" --scale 16 --rounds 1 --threads "$th" \
        --reps 5 --families "$fam" "${g[@]}" --out "$OUT/json/$label" > "$OUT/$label.md" 2> "$OUT/$label.err"
    echo "$label: rc $? [$(( $(date +%s) - t0 )) s]" >> "$OUT/host.txt"
    { echo "## $label ($fam '$glob', $th threads; builds: $*)"; tail -n +3 "$OUT/$label.md"; } | tee -a "$MD"
}
# 2. the floor through clops' ops
cf floor_cpu '*' "$T" floor-${T}t $B
# 3. the kernel-bound rows: all cores (with the base build beside), 2 cores
ROWS="scan:*rows* index:index_select* norm:group_norm* pool:maxpool3x3s2_bwd* loss:nll_bwd_mean_gpt2*"
for p in $ROWS; do
    cf "${p%%:*}" "${p#*:}" "$T" "${p%%:*}-${T}t" $B0 $B
done
for p in $ROWS; do
    cf "${p%%:*}" "${p#*:}" 2 "${p%%:*}-2t" $B
done
# 4. whole families with the time left
for fam in loss norm pool scan index; do
    cf $fam '*' "$T" "${fam}-all-${T}t" $B0 $B
done
tail -n 3 "$OUT"/*.err 2>/dev/null | grep -v '^$' | tail -20
echo "[$(( $(date +%s) - t0 )) s] done" | tee -a "$OUT/host.txt"
