#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# bench/cpu_families_job.sh: issue 36 on the GPU host's 16 CPU cores (POCL
# 5.0 against PyTorch CPU on the same cores; the GPU is not used): every
# family row of the issue's table, this tree against a base build, in one
# call (82 s wall on the H200 host with prebuilt binaries and the two tests,
# cpu9; BUDGET caps it, default 125):
#   1. the driver's floor per call (bench_family --floor: an empty kernel
#      enqueued back to back, + clFinish, + a blocking 8-byte read, fill +
#      kernel + read; wall and process CPU time);
#   2. the per-call floor through clops' ops beside PyTorch's
#      (bench/cases/floor_cpu.yaml: add, sum, cumsum, index_select of a
#      few elements, nll_loss forward, which reads its flag back);
#   3. the families whose CPU kernels the tree changes (BOTH, default
#      scan index pool norm) with the base build beside, then the others
#      (ONE, default reduce loss sort random) with this tree alone, all
#      threads, one round (cpu_families.py; PyTorch's time taken beside);
#   4. optionally the same rows pinned to 2 cores (PINNED="fam:glob ...":
#      taskset, POCL_CPU_MAX_CU_COUNT=2, PyTorch --threads 2);
#   and first, beside the kernel warm-up (untimed), prebuilt test binaries
#      (TESTS="path ...", each under TEST_TIMEOUT s, default 40) on the POCL
#      device (CLOPS_TEST_DEVICES=pocl): the launch shapes that depend on
#      the core count checked on this host's POCL.
# Wall-clock times (the host is otherwise idle; OMP_WAIT_POLICY=PASSIVE).
# Each step runs under the time left of BUDGET seconds, so a slow step
# loses the later ones, not the results so far.
#
# From this tree's root on the device machine, carrying .debs and the tree:
#   bash bench/cpu_families_job.sh          # this tree built there (~40 s of the budget)
#   BIN=bin/bench_family CASES_FROM=/path/it/was/built/from/bench \
#   BASE_BIN=bin/bench_family_base BASE_CASES_FROM=... TESTS="bin/test_scan" \
#   bash bench/cpu_families_job.sh          # prebuilt binaries (portable: no -march;
#                                           # GLIBC 2.35 when built on Debian 12)
# (cpu9 ran it from .dev/cpu9 in /work/main: bin/bench_family of the cpu9
# branch built in /work/wt/cpu5, bin/bench_family_base of main 00c1fc4 built in
# /tmp/cpu9-base, carry [".debs", ".dev/cpu9"], timeout 140:
#   for f in .debs/*.deb; do dpkg -x $f /; done; ldconfig; cd .dev/cpu9 && O=$OUT;
#   OUT=/tmp/o BIN=bin/bench_family CASES_FROM=/work/wt/cpu5/bench
#   BASE_BIN=bin/bench_family_base BASE_CASES_FROM=/tmp/cpu9-base/bench
#   TESTS="bin/test_scan bin/test_index_select" BUDGET=125
#   bash bench/cpu_families_job.sh > /tmp/o.log 2>&1; tail -5 /tmp/o.log;
#   tar -czf $O/cpu.tgz -C /tmp/o .; cp /tmp/o/families.md /tmp/o/host.txt $O/)
# In a job that has built this tree there (/tmp/b), without a base:
#   OUT=DIR BIN=/tmp/b/bench/bench_family CASES_FROM=$PWD/bench BUDGET=85 bash bench/cpu_families_job.sh
# $OUT: families.md (every table, in order), json/ (every JSON), host.txt
# (steps and their times), tests.txt, build.log.
set -o pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT/json"
t0=$(date +%s)
BUDGET=${BUDGET:-125}
left() { echo $(( BUDGET - ($(date +%s) - t0) )); }
if [ -d .debs ]; then for f in .debs/*.deb; do dpkg -x "$f" / ; done; ldconfig; fi
PY=${CLOPS_PYTHON:-python3}
T=$(nproc)
BOTH=${BOTH-scan index pool norm}
ONE=${ONE-reduce loss sort random}
PINNED=${PINNED-}
{ lscpu | grep -E 'Model name|^CPU\(s\)'; echo "nproc $T"; $PY -c "import torch; print('torch', torch.__version__)"; } \
    2>&1 | tee "$OUT/host.txt"
export CLOPS_CACHE_DIR=${CLOPS_CACHE_DIR:-/tmp/cf-cache}
# The builds: prebuilt bench_family binaries when they run here (BIN, BASE_BIN:
# e.g. built on the 2-core VM; their descriptors are read from the path they
# were built with, CASES_FROM / BASE_CASES_FROM, which gets this tree's
# bench/cases), else this tree built here (the base then left out).
B=/tmp/cf-branch; B0=/tmp/cf-main
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
MD="$OUT/families.md"
: > "$MD"
# 1. the driver's floor
{ echo "## driver floor (bench_family --floor --reps 200)"; echo '```';
  timeout 20 "$B/bench/bench_family" --floor --device pocl --reps 200; echo '```'; } 2>&1 | tee -a "$MD"
# the tests, and the kernels compiled once (the disk cache), in parallel,
# before the timed runs
for t in ${TESTS:-}; do
    ( CLOPS_TEST_DEVICES=pocl timeout "${TEST_TIMEOUT:-40}" "$t" > "$OUT/$(basename "$t").log" 2>&1
      echo "$t: rc $? [$(( $(date +%s) - t0 )) s]; $(grep -E 'PASSED|FAILED  \]' "$OUT/$(basename "$t").log" | tail -1)" \
          >> "$OUT/tests.txt" ) &
done
for fam in floor_cpu $BOTH $ONE; do
    for b in $B $B0; do
        timeout "$(( $(left) / 3 ))" "$b/bench/bench_family" --family $fam --device pocl --scale 4096 \
            --reps 1 > /dev/null 2>&1 &
    done
done
wait
echo "[$(( $(date +%s) - t0 )) s] kernels compiled" | tee -a "$OUT/host.txt"
[ -f "$OUT/tests.txt" ] && tee -a "$OUT/host.txt" < "$OUT/tests.txt"
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
# 3. every family: the changed ones beside the base, then the others
for fam in $BOTH; do
    cf $fam '*' "$T" "${fam}-${T}t" $B0 $B
done
for fam in $ONE; do
    cf $fam '*' "$T" "${fam}-${T}t" $B
done
# 4. rows pinned to 2 cores
for p in $PINNED; do
    cf "${p%%:*}" "${p#*:}" 2 "${p%%:*}-pin2" $B0 $B
done
tail -n 3 "$OUT"/*.err 2>/dev/null | grep -v '^$' | tail -20
echo "[$(( $(date +%s) - t0 )) s] done" | tee -a "$OUT/host.txt"
