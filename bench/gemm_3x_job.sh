#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# tf32-11's second GPU job (issue 29: 3xTF32 with promotion, docs/gemm.md
# "Hopper: 3xTF32 for \"highest\""), shorter than gemm_tf32_job.sh: builds
# bench_gemm, test_gemm_engine and gemm_accuracy (cuBLAS with TF32 off timed
# meanwhile); runs beside the timings the 3xTF32 GPU test with promotion
# (CLOPS_TEST_WGMMA_NEW=1), the planted bug with promotion (must fail) and
# the float32 tests under the environment of 3xTF32 with promotion as the
# default for "highest" (CLOPS_GEMM_3XTF32=1 CLOPS_GEMM_3XTF32_PROMOTE=1);
# times 3xTF32 with and without promotion against CLBlast at 4096^3 / MLP /
# 8192^3 and promotion on GPT-2's products (both layouts); and compares max
# relative errors against float64 (bench/gemm_accuracy.py) on N(0, 1) and
# uniform(0, 1) inputs.  Expected wall time ~150 s (build 50).  From a copy
# of the tree:
#   for f in .debs/*.deb; do dpkg -x $f /; done; ldconfig; bash bench/gemm_3x_job.sh
# Locally (POCL, tiny: a dry run of the script): DEV=pocl BUILD=build bash bench/gemm_3x_job.sh
source bench/gemm_job_lib.sh
job_build "--dtype float32 --big" "--dtype float32 --gpt2"
# The tests (small products; their cost is the programs' builds, on the CPU).
export CLOPS_TEST_DEVICES=$DEV CLOPS_TEST_TIMING=1
bg_test 3x 120 CLOPS_TEST_WGMMA_NEW=1 CLOPS_TEST_FILTER=float32_highest_on_3xtf32
( CLOPS_GEMM_3XTF32_PROMOTE=1 CLOPS_GEMM_3XTF32_DROP=1 CLOPS_TEST_FILTER=float32_highest_on_3xtf32 \
    CLOPS_TEST_WGMMA_ONLY=wg128x128-s3-cs timeout 120 $T > $L/test_3xp_drop.txt 2>&1
  echo "rc $? (must fail)" >> $L/test_3xp_drop.txt ) &
bg_test default 120 CLOPS_GEMM_3XTF32=1 CLOPS_GEMM_3XTF32_PROMOTE=1 CLOPS_TEST_FILTER='*float32*'
unset CLOPS_TEST_DEVICES CLOPS_TEST_TIMING
# "highest": 3xTF32 with promotion, then without, against CLBlast (the
# engine's column is 3xTF32, CLBlast's the same process's SGEMM).
run highest-3xp CLOPS_GEMM_3XTF32=1 CLOPS_GEMM_3XTF32_PROMOTE=1 -- --big --bt
run highest-3x CLOPS_GEMM_3XTF32=1 -- --big --bt
# Max relative error against float64: CLBlast, 3xTF32, with promotion, TF32.
acc normal
acc uniform --uniform
run highest-3xp-gpt2-bt CLOPS_GEMM_3XTF32=1 CLOPS_GEMM_3XTF32_PROMOTE=1 -- --gpt2 --bt
run highest-3xp-gpt2 CLOPS_GEMM_3XTF32=1 CLOPS_GEMM_3XTF32_PROMOTE=1 -- --gpt2
wait
el tests done
for f in $L/test_*.txt; do echo "== $f"; grep -a '\[  \|FAIL\|rc \|ERROR\|warning\|test_gemm_engine:' $f | tail -14; done
cat $L/acc_*.txt
pack
