#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# bench/gemm_job_lib.sh: what tf32-11's GPU jobs share (sourced by
# bench/gemm_tf32_job.sh, bench/gemm_3x_job.sh and engine12's
# bench/gemm_engine12_job.sh): the settings (DEV,
# BUILD, OUT, LOGS; AM AN AK, the accuracy harness's sizes), `el` (a step's
# line with the seconds since the start), `pack` (the logs as one archive
# in $OUT: the device tool returns at most 8 files), `job_build` (cuBLAS
# timed by bench/torch_gemm.py with each argument's options while
# bench_gemm, test_gemm_engine and gemm_accuracy build), `run` (one
# bench_gemm timing under an environment: run NAME ENV... -- ARGS),
# `bg_test` (test_gemm_engine in the background under an environment, its
# log test_NAME.txt: bg_test NAME LIMIT ENV...) and `acc` (gemm_accuracy and
# bench/gemm_accuracy.py: acc NAME ARGS..., within ACC_TL seconds each).
set -o pipefail
DEV=${DEV:-nvidia}
BUILD=${BUILD:-/tmp/tf32}
OUT=${OUT:-/tmp/tf32-out}
LOGS=${LOGS:-/tmp/tf32-logs}
L=$LOGS/tf32
rm -rf $L
mkdir -p $L $OUT
t0=$(date +%s)
el() { echo "[$(($(date +%s) - t0)) s] $*" | tee -a $L/steps.txt; }
pack() { tar czf $OUT/tf32.tgz -C $LOGS tf32 2>/dev/null; }
(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 || echo "no nvidia-smi") > $L/gpu.txt
if [ "$DEV" = nvidia ]; then AM=2048 AN=2048 AK=4096; else AM=64 AN=48 AK=300; fi
TARGETS="bench_gemm test_gemm_engine gemm_accuracy"
job_build() { # torch_gemm.py options, one argument a run
    if [ "$DEV" = nvidia ]; then
        local opts
        ( for opts in "$@"; do timeout 30 python3 bench/torch_gemm.py $opts; done ) > $L/torch.txt 2>&1 &
        local tp=$!
        cmake -S . -B $BUILD -DCMAKE_BUILD_TYPE=Release > $L/cmake.txt 2>&1
        timeout 110 cmake --build $BUILD -j16 --target $TARGETS > $L/build.txt 2>&1 ||
            { tail -30 $L/build.txt; pack; exit 1; }
        wait $tp
    else
        timeout 300 cmake --build $BUILD -j2 --target $TARGETS > $L/build.txt 2>&1 ||
            { tail -30 $L/build.txt; exit 1; }
    fi
    el built
    pack
    mkdir -p /tmp/tf32-kc
    export CLOPS_CACHE_DIR=/tmp/tf32-kc
    B=$BUILD/bench/bench_gemm T=$BUILD/tests/test_gemm_engine G=$BUILD/bench/gemm_accuracy
}
R="--engine --device $DEV --dtype float32 --reps-seconds 0.03 --paths"
run() { # name, env..., -- args
    local name=$1; shift
    local envs=()
    while [ "$1" != "--" ]; do envs+=("$1"); shift; done; shift
    echo "== $name: ${envs[*]} bench_gemm $R $*" >> $L/bench.txt
    env "${envs[@]}" timeout 40 $B $R "$@" >> $L/bench.txt 2>&1
    el "$name rc $?"
    pack
}
bg_test() { # name, limit, env...
    local name=$1 tl=$2; shift 2
    ( env "$@" timeout $tl $T > $L/test_$name.txt 2>&1; echo "rc $?" >> $L/test_$name.txt ) &
}
acc() { # name, gemm_accuracy's extra args
    local name=$1; shift
    mkdir -p /tmp/tf32-acc
    echo "== gemm_accuracy --m $AM --n $AN --k $AK $*" > $L/acc_$name.txt
    timeout ${ACC_TL:-40} $G --device $DEV --m $AM --n $AN --k $AK "$@" --out /tmp/tf32-acc >> $L/acc_$name.txt 2>&1
    timeout ${ACC_TL:-40} ${PY:-python3} bench/gemm_accuracy.py /tmp/tf32-acc $AM $AN $AK "$@" >> $L/acc_$name.txt 2>&1
    el "accuracy $name rc $?"
    pack
}
