#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# bench/attention_job_lib.sh: what the attention device jobs share (sourced
# by bench/attention_wgb_job.sh, bench/attention_wg12_job.sh and
# bench/attention_wg13_job.sh with JOB, the job's name, and JOB_DEF_S, its
# default limit, set): OUT (default
# attn-$JOB-job), JOB_S (default JOB_DEF_S), CLOPS_CACHE_DIR (default
# /tmp/attn-$JOB-cache), BUILD (default /tmp/attn), DEV
# (default nvidia, the test device selector), L the log folder
# ($OUT/logs), `log` (a step's line with the seconds since the start into
# $L/steps.txt), `lim S` (a step's limit: S seconds, or what is left of
# JOB_S), `pack` (with TARBALL=1 the logs as $TGZ, default $OUT/attn.tgz:
# the device tool returns at most 8 files, and a cut call still returns
# what was packed), `attn_build TARGET...` (unless SKIP_BUILD=1: .debs/
# unpacked, then the configure and the targets' build in $BUILD, the GPU
# and driver into $L/gpu.txt), `attn_test BIN NAME [VAR=VALUE...]`
# ($BUILD/tests/BIN on $DEV with the assignments, cut at $T seconds, which
# the job sets; its output into $L/test_NAME.txt, its rc a step line).
set -u
OUT=${OUT:-attn-$JOB-job}
JOB_S=${JOB_S:-$JOB_DEF_S}
export CLOPS_CACHE_DIR=${CLOPS_CACHE_DIR:-/tmp/attn-$JOB-cache}
BUILD=${BUILD:-/tmp/attn}
DEV=${DEV:-nvidia}
L=$OUT/logs
mkdir -p "$L"
T0=$(date +%s)
log() { echo "[$(($(date +%s) - T0))s] $*" | tee -a "$L/steps.txt"; }
lim() {
    local left=$((JOB_S - ($(date +%s) - T0)))
    [ "$left" -lt "$1" ] && echo $((left > 1 ? left : 1)) || echo "$1"
}
pack() { [ "${TARBALL:-0}" = 1 ] && tar czf "${TGZ:-$OUT/attn.tgz}" -C "$OUT" logs; }
attn_build() {
    if [ "${SKIP_BUILD:-0}" != 1 ]; then
        for f in .debs/*.deb; do dpkg -x "$f" /; done
        ldconfig
        log configure
        timeout "$(lim 40)" cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release >"$L/cmake.txt" 2>&1
        log "configure rc $?; build"
        timeout "$(lim 90)" cmake --build "$BUILD" -j16 --target "$@" >"$L/build.txt" 2>&1
        log "build rc $?"
        tail -3 "$L/build.txt" >>"$L/steps.txt"
    fi
    nvidia-smi --query-gpu=name,driver_version --format=csv >"$L/gpu.txt" 2>&1
    pack
}
attn_test() {
    local bin=$1 name=$2
    shift 2
    env "$@" CLOPS_TEST_DEVICES="$DEV" timeout "$T" "$BUILD/tests/$bin" >"$L/test_$name.txt" 2>&1
    local rc=$? # (read at once: attn12's call printed a date substitution's 0 here)
    echo "[$(($(date +%s) - T0))s] test $name rc $rc" >>"$L/steps.txt"
}
