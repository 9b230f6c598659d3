#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# tf32-11's GPU job (issue 29, float32 on Hopper's tensor cores; docs/gemm.md
# "Hopper: 3xTF32 for \"highest\""): builds bench_gemm, test_gemm_engine and
# gemm_accuracy; runs the TF32-through-wgmma test and the 3xTF32 tests (the
# planted bug CLOPS_GEMM_3XTF32_DROP=1 must fail) beside the timings; times
# float32 "high" with TF32 through wgmma off and on, "highest" with 3xTF32
# against CLBlast, GPT-2's products in both layouts, cuBLAS (TF32 off and on)
# in the same job; and compares max relative errors against float64
# (bench/gemm_accuracy.py).  Expected wall time ~200 s (build 50, the rest in
# parallel with the tests).  Run from a copy of the tree:
#   for f in .debs/*.deb; do dpkg -x $f /; done; ldconfig; bash bench/gemm_tf32_job.sh
# Locally (POCL, tiny: a dry run of the script): DEV=pocl BUILD=build bash bench/gemm_tf32_job.sh
source bench/gemm_job_lib.sh
job_build "--dtype float32 --big" "--dtype float32 --tf32 --big" "--dtype float32 --gpt2" "--dtype float32 --tf32 --gpt2"
# The tests (small products; their cost is the programs' builds, on the CPU).
export CLOPS_TEST_DEVICES=$DEV CLOPS_TEST_TIMING=1
( CLOPS_TEST_WGMMA_NEW=1 CLOPS_TEST_FILTER=float32_under_high_precision CLOPS_TEST_WGMMA_ONLY=wg128x128-s3-cs,wg64x128-s4-cs \
    timeout 110 $T > $L/test_tf32_wgmma.txt 2>&1; echo "rc $?" >> $L/test_tf32_wgmma.txt ) &
( CLOPS_TEST_WGMMA_NEW=1 CLOPS_TEST_FILTER=float32_highest_on_3xtf32 \
    timeout 110 $T > $L/test_3x.txt 2>&1; echo "rc $?" >> $L/test_3x.txt ) &
( CLOPS_TEST_WGMMA_NEW=1 CLOPS_TEST_FILTER=float32_highest_on_3xtf32 CLOPS_GEMM_3XTF32_DROP=1 \
    timeout 110 $T > $L/test_3x_drop.txt 2>&1; echo "rc $? (must fail)" >> $L/test_3x_drop.txt ) &
( for f in float32_highest_takes_3xtf32_only_where_checked tf32_split_and_three_products_meet_the_float32_bound; do
    CLOPS_TEST_FILTER=$f timeout 60 $T; echo "rc $?"; done > $L/test_3x_host.txt 2>&1 ) &
unset CLOPS_TEST_DEVICES CLOPS_TEST_TIMING
# float32 "high": TF32 through mma.sync, then through wgmma (B K-major).
run high-mma CLOPS_FLOAT32_MATMUL_PRECISION=high -- --big --bt
run high-wgmma CLOPS_FLOAT32_MATMUL_PRECISION=high CLOPS_GEMM_WGMMA_TF32=1 -- --big --bt
# float32 "highest": 3xTF32 against CLBlast (the engine's column is 3xTF32).
run highest-3x CLOPS_GEMM_3XTF32=1 -- --big --bt
# Accuracy against float64 on the same inputs (N(0, 1), K 4096).
mkdir -p /tmp/tf32-acc
timeout 30 $G --device $DEV --m $AM --n $AN --k $AK --out /tmp/tf32-acc > $L/accuracy.txt 2>&1
timeout 40 ${PY:-python3} bench/gemm_accuracy.py /tmp/tf32-acc $AM $AN $AK >> $L/accuracy.txt 2>&1
el accuracy
pack
run highest-3x-gpt2-bt CLOPS_GEMM_3XTF32=1 -- --gpt2 --bt
run highest-3x-gpt2 CLOPS_GEMM_3XTF32=1 -- --gpt2
# GPT-2's products as transformers' Conv1D gives them (B N-major): TF32 on
# mma.sync, and through wgmma with every layout staged K-major.
run high-mma-gpt2 CLOPS_FLOAT32_MATMUL_PRECISION=high -- --gpt2
run high-wgmma-all-gpt2 CLOPS_FLOAT32_MATMUL_PRECISION=high CLOPS_GEMM_WGMMA_TF32=1 CLOPS_GEMM_WGMMA_TF32_ALL=1 -- --gpt2
# 3xTF32's two geometries forced (the default's 128 x 128 blocks, the few-blocks
# 64 x 128), with the largest difference from CLBlast at 1024^3 (uniform inputs).
echo "== sweep: CLOPS_GEMM_3XTF32=1 bench_gemm --device $DEV --dtype float32 --bt --sweep-prefix 'wg128x128-s3-cs\$,wg64x128-s4-cs\$' --sweep-shape 'square 4096,c_attn,mlp c_proj'" >> $L/bench.txt
CLOPS_GEMM_3XTF32=1 timeout 40 $B --device $DEV --dtype float32 --bt --reps-seconds 0.03 \
    --sweep-prefix 'wg128x128-s3-cs$,wg64x128-s4-cs$' --sweep-shape 'square 4096,c_attn,mlp c_proj' >> $L/bench.txt 2>&1
el "sweep rc $?"
pack
# Stages of 3xTF32 (4, 48 KiB with the lo slots, against the default 3), where time is left.
run highest-3x-s4 CLOPS_GEMM_3XTF32=1 CLOPS_GEMM_3XTF32_STAGES=4 -- --big --bt
# 3xTF32 with promotion (added after tf32-11's run; run in gemm_3x_job.sh):
# its timing (its error is gemm_accuracy's c_3xtf32p, above).
run highest-3x-promote CLOPS_GEMM_3XTF32=1 CLOPS_GEMM_3XTF32_PROMOTE=1 -- --big --bt
wait
el tests done
for f in $L/test_*.txt; do echo "== $f"; grep -a '\[  \|FAIL\|rc \|ERROR\|warning\|test_gemm_engine:' $f | tail -12; done
pack
