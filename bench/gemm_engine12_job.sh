#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# engine12's GPU job (issue 29: float32 on Hopper's tensor cores; docs/gemm.md
# "Hopper: float32 at speed (engine12)"), one call: builds bench_gemm,
# test_gemm_engine and gemm_accuracy while cuBLAS (TF32 off and on) is timed;
# runs the tests beside the timings (float32 TF32 through TMA boxes: bits
# against the cp.async default and the reference; 3xTF32 with promotion
# every P = 2, 4, 8 K tiles, all layouts; the planted bug with P 4, which
# must fail; the float32 tests under 3xTF32 with promotion every 4 tiles as
# if it were "highest"'s default); times float32 "high" (TF32) with every
# TMA configuration side by side in one bench_gemm --sweep process (B
# K-major), 3xTF32 per period P (0 none, 1, 2, 4, 8) in three geometries
# (--sweep, one process a period) with CLBlast's SGEMM in the same job, and
# compares max relative errors against float64 per P (bench/gemm_accuracy.py,
# N(0, 1) and uniform(0, 1)).  Steps have their own limits; the logs are
# packed into $OUT/engine.tgz after each.  From a copy of the tree:
#   for f in .debs/*.deb; do dpkg -x $f /; done; ldconfig; bash bench/gemm_engine12_job.sh
# Locally (POCL, tiny: a dry run of the script):
#   DEV=pocl BUILD=build OUT=/tmp/e12-out bash bench/gemm_engine12_job.sh
LOGS=${LOGS:-/tmp/engine-logs}
BUILD=${BUILD:-/tmp/engine}
source bench/gemm_job_lib.sh
pack() { tar czf $OUT/engine.tgz -C $LOGS tf32 2>/dev/null; }
job_build "--dtype float32 --big" "--dtype float32 --tf32 --big" "--dtype float32 --tf32 --gpt2"
# (a step's wall limit: small on POCL, where these shapes are scaled down)
if [ "$DEV" = nvidia ]; then TL=40; else TL=120; fi
export CLOPS_TEST_DEVICES=$DEV CLOPS_TEST_TIMING=1
TMA_CFGS=wg128x128-s3-cs,wg64x128-s4-cs,wg128x128-k64-s1-tma-cs,wg64x128-k64-s1-tma-cs,wg64x128-k64-s1-tma-cs-o5,wg64x128-s3-tma-cs-o5,wg128x128-s2-tma-cs,wg128x128-k16-s5-tma-cs
( { CLOPS_TEST_FILTER='float32_engine_settings*' timeout 30 $T; echo "rc $?"
    CLOPS_TEST_FILTER='tma_configurations*' CLOPS_TEST_WGMMA_ONLY=$TMA_CFGS timeout 150 $T; echo "rc $?"; } \
    > $L/test_tma.txt 2>&1 ) &
bg_test high 170 CLOPS_TEST_WGMMA_NEW=1 CLOPS_TEST_FILTER=float32_under_high_precision CLOPS_TEST_WGMMA_ONLY=$TMA_CFGS
for P in 2 4 8; do
    bg_test 3xp$P 150 CLOPS_TEST_WGMMA_NEW=1 CLOPS_GEMM_3XTF32_PROMOTE=$P CLOPS_TEST_FILTER=float32_highest_on_3xtf32
done
# (the planted bug: its "rc" must not be 0)
bg_test 3xp4_drop 100 CLOPS_GEMM_3XTF32_PROMOTE=4 CLOPS_GEMM_3XTF32_DROP=1 \
    CLOPS_TEST_FILTER=float32_highest_on_3xtf32 CLOPS_TEST_WGMMA_ONLY=wg128x128-s3-cs
bg_test default 170 CLOPS_GEMM_3XTF32=1 CLOPS_GEMM_3XTF32_PROMOTE=4 CLOPS_TEST_FILTER='*float32*'
unset CLOPS_TEST_DEVICES CLOPS_TEST_TIMING
SW="--device $DEV --dtype float32 --bt --reps-seconds 0.03"
sweep() { # name, limit, shapes, configs, env...
    local name=$1 tl=$2 shapes=$3 cfgs=$4; shift 4
    [ "$DEV" = nvidia ] || shapes='square 1024' # (POCL: a dry run)
    echo "== sweep $name: $* bench_gemm $SW --sweep-prefix '$cfgs' --sweep-shape '$shapes'" >> $L/sweep.txt
    env "$@" timeout $tl $B $SW --sweep-prefix "$cfgs" --sweep-shape "$shapes" >> $L/sweep.txt 2>&1
    el "sweep $name rc $?"
    pack
}
# float32 "high" (TF32), B K-major: the cp.async defaults against the TMA tiles.
sweep tf32 $((TL + 30)) 'square 4096,square 8192,mlp,llama up,c_attn,c_proj,c_fc' \
    "wg128x128-s3-cs\$,wg64x128-s4-cs\$,wg128x128-k64-s1-tma-cs\$,wg64x128-k64-s1-tma-cs\$,wg64x128-k64-s1-tma-cs-o5,wg64x128-s3-tma-cs-o5,wg128x128-s2-tma-cs,wg128x128-k16-s5-tma-cs\$" \
    CLOPS_FLOAT32_MATMUL_PRECISION=high
# "highest": 3xTF32 per promotion period P (0: none), three geometries.
X3_CFGS="wg128x128-s3-cs\$,wg128x128-s3-cs-o2,wg64x128-s4-cs\$"
X3_SHAPES='square 4096,square 8192,c_fc,mlp c_proj'
for P in 4 1 0 8 2; do
    sweep 3x-p$P $TL "$X3_SHAPES" "$X3_CFGS" CLOPS_GEMM_3XTF32=1 CLOPS_GEMM_3XTF32_PROMOTE=$P
done
# Max relative error against float64 per P (and CLBlast, TF32, cuBLAS).
ACC_TL=$TL
acc normal
acc uniform --uniform
# 3xTF32 (promotion every 4 K tiles) against CLBlast's SGEMM in one process;
# "high" as shipped now (the rule's TMA tiles) against CLBlast; GPT-2's
# products (B K-major) under 3xTF32.
run 3x-p4 CLOPS_GEMM_3XTF32=1 CLOPS_GEMM_3XTF32_PROMOTE=4 -- --big --bt
run high-default CLOPS_FLOAT32_MATMUL_PRECISION=high -- --big --bt
run 3x-p4-gpt2 CLOPS_GEMM_3XTF32=1 CLOPS_GEMM_3XTF32_PROMOTE=4 -- --gpt2 --bt
wait
el tests done
for f in $L/test_*.txt; do echo "== $f"; grep -a '\[  \|FAIL\|rc \|ERROR\|warning\|test_gemm_engine:' $f | tail -14; done
cat $L/acc_*.txt
pack
