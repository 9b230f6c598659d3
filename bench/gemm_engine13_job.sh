#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# engine13's GPU job (issue 29: float32 "high" on Hopper's tensor cores;
# docs/gemm.md "Hopper: TF32 without the rounding pass, transposed tiles
# (engine13)"), one call: builds bench_gemm, test_gemm_engine and
# gemm_accuracy while cuBLAS TF32 is timed (bench/torch_gemm.py: the square
# shapes and GPT-2's); starts the tests in the background (niced: the
# conversion known answers and the transposed tiles against the reference,
# rounded and truncated; the float32 tests with truncation and transposed
# tiles on, as they would ship; the transposition with a planted bug, whose
# "rc" must not be 0); times in one bench_gemm --sweep process each (1) B
# K-major: the rounding pass against none ("round" / "trunc" rows of the TMA
# and cp.async configurations) and (2) B N-major (a plain mm, GPT-2's
# Conv1D): the default (mma.sync) against wgmma with transposed tiles
# ("xt", "xt-trunc"); and compares max and mean relative errors against
# float64 (bench/gemm_accuracy.py: clops rounded, truncated, transposed,
# cuBLAS TF32 on the same operands; N(0, 1) and uniform(0, 1)).  Steps have
# their own limits; the logs are packed into $OUT/engine.tgz after each.
# From a copy of the tree:
#   for f in .debs/*.deb; do dpkg -x $f /; done; ldconfig; bash bench/gemm_engine13_job.sh
# (Run at 6db0028, where CLOPS_GEMM_TF32_CONVERT=trunc was spelt
# CLOPS_GEMM_TF32_TRUNC=1.)
# Locally (POCL, tiny: a dry run of the script):
#   DEV=pocl BUILD=build OUT=/tmp/e13-out bash bench/gemm_engine13_job.sh
LOGS=${LOGS:-/tmp/engine-logs}
BUILD=${BUILD:-/tmp/engine}
source bench/gemm_job_lib.sh
pack() { tar czf $OUT/engine.tgz -C $LOGS tf32 2>/dev/null; }
job_build "--dtype float32 --tf32 --big" "--dtype float32 --tf32 --gpt2"
if [ "$DEV" = nvidia ]; then TL=40; else TL=200; fi
# Tests, niced, beside the timings (their products are small).
export CLOPS_TEST_DEVICES=$DEV CLOPS_TEST_TIMING=1
nice_test() { # name, limit, env...
    local name=$1 tl=$2; shift 2
    ( env "$@" nice -n 19 timeout $tl $T > $L/test_$name.txt 2>&1; echo "rc $?" >> $L/test_$name.txt ) &
}
nice_test conv 100 CLOPS_TEST_FILTER=float32_tf32_conversion_and_transposed_tiles
nice_test f32 120 CLOPS_GEMM_TF32_CONVERT=trunc CLOPS_GEMM_WGMMA_TF32_XT=1 CLOPS_TEST_FILTER='float32_*'
# (the planted bug: the transposition writes each K chunk into its
# neighbour's place; its own kernel directory and program cache)
PK=/tmp/engine-planted; rm -rf $PK; mkdir -p $PK/kc; cp -r cl_kernels $PK/k
sed -i 's|vstore4(v_, 0, (dst) + KMAJ(n_, c_));|vstore4(v_, 0, (dst) + KMAJ(n_, c_ ^ 1));|' $PK/k/gemm.cl
grep -c 'KMAJ(n_, c_ ^ 1)' $PK/k/gemm.cl > $L/planted.txt
nice_test planted 90 CLOPS_KERNEL_DIR=$PK/k CLOPS_CACHE_DIR=$PK/kc CLOPS_TEST_WGMMA_ONLY=wg64x128-s4-cs \
    CLOPS_TEST_FILTER=float32_tf32_conversion_and_transposed_tiles
unset CLOPS_TEST_DEVICES CLOPS_TEST_TIMING
SW="--device $DEV --dtype float32 --reps-seconds 0.03"
sweep() { # name, limit, shapes, configs, bench_gemm args...
    local name=$1 tl=$2 shapes=$3 cfgs=$4; shift 4
    [ "$DEV" = nvidia ] || shapes='square 1024' # (POCL: a dry run)
    echo "== sweep $name: CLOPS_FLOAT32_MATMUL_PRECISION=high bench_gemm $SW --sweep-prefix '$cfgs' --sweep-shape '$shapes' $*" >> $L/sweep.txt
    CLOPS_FLOAT32_MATMUL_PRECISION=high timeout $tl $B $SW --sweep-prefix "$cfgs" --sweep-shape "$shapes" "$@" >> $L/sweep.txt 2>&1
    el "sweep $name rc $?"
    pack
}
# (1) B K-major: the rounding pass or none, the rule's TMA picks and the
# cp.async default.
sweep kmajor $TL 'square 4096,square 8192,gpt2 c_fc,mlp c_proj' \
    "wg128x128-k64-s1-tma-cs\$,wg64x128-k64-s1-tma-cs\$,wg128x128-s3-cs\$" --bt --variants round,trunc
# (2) B N-major (mm, Conv1D): the default (mma.sync) against wgmma with
# transposed tiles (the default wgmma blocks, then both forced).
sweep nmajor $((TL + 10)) 'square 4096,gpt2 c_attn,gpt2 c_proj,gpt2 c_fc,mlp c_proj' \
    "wg128x128-s3-cs\$,wg64x128-s4-cs\$" --sweep-default --variants round,xt,xt-trunc
# Errors against float64: B K-major (both distributions), B N-major.
mkdir -p /tmp/e13-acc/n /tmp/e13-acc/u /tmp/e13-acc/bn
accg() { # dir, args
    local dir=$1; shift
    echo "== gemm_accuracy --m $AM --n $AN --k $AK --tf32-only $*" >> $L/acc.txt
    timeout 30 $G --device $DEV --m $AM --n $AN --k $AK --tf32-only "$@" --out $dir >> $L/acc.txt 2>&1
    el "gemm_accuracy $* rc $?"
}
accg /tmp/e13-acc/n
accg /tmp/e13-acc/u --uniform
accg /tmp/e13-acc/bn --bn
timeout 45 ${PY:-python3} bench/gemm_accuracy.py /tmp/e13-acc/n $AM $AN $AK -- /tmp/e13-acc/u $AM $AN $AK --uniform \
    -- /tmp/e13-acc/bn $AM $AN $AK --bn >> $L/acc.txt 2>&1
el "accuracy tables rc $?"
pack
wait
el tests done
for f in $L/test_*.txt; do echo "== $f"; grep -a '\[  \|FAIL\|rc \|ERROR\|warning\|test_gemm_engine:' $f | tail -14; done
cat $L/acc.txt | grep -v '^clops 3xtf32'
pack
