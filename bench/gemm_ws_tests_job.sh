#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# engine6 follow-up GPU job (not run: the helper's allotment was spent on
# bench/gemm_gpu_job.sh).  Runs to completion what gemm_gpu_job.sh cut at 100 s: the
# warp-specialised wgmma configurations' test (every layout and staging,
# the persistent ones on more tiles than units) and the TF32-through-wgmma
# test, then times float32 "high" with and without CLOPS_GEMM_WGMMA_TF32
# and the GPT-2 products on the default rule (wg64x128-s4 where a product
# has one to two 128 x 128 blocks per unit) with cuBLAS in the same job.
# Expected wall time ~420 s (build 45, tests 250-300, timing 60).
# Run from a copy of the tree: carry [".debs"], command
#   for f in .debs/*.deb; do dpkg -x $f /; done; ldconfig; bash bench/gemm_ws_tests_job.sh
set -o pipefail
t0=$(date +%s)
el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
( timeout 40 python3 bench/torch_gemm.py --dtype bfloat16 --gpt2; timeout 40 python3 bench/torch_gemm.py --dtype float32 --tf32 --big ) > $OUT/torch.txt 2>&1 &
TP=$!
cmake -S . -B /tmp/b -DCMAKE_BUILD_TYPE=Release > /dev/null && timeout 150 cmake --build /tmp/b -j16 --target bench_gemm test_gemm_engine > /tmp/build.log 2>&1 || { tail -30 /tmp/build.log; exit 1; }
wait $TP; el built; cat $OUT/torch.txt
mkdir -p /tmp/kc; export CLOPS_CACHE_DIR=/tmp/kc
B=/tmp/b/bench/bench_gemm T=/tmp/b/tests/test_gemm_engine
timeout 60 $B --engine --device nvidia --dtype bfloat16 --gpt2 --reps-seconds 0.05 2>&1 | tee $OUT/gpt2.txt
export CLOPS_FLOAT32_MATMUL_PRECISION=high
timeout 40 $B --engine --device nvidia --dtype float32 --big --bt --reps-seconds 0.05 2>&1 | tee $OUT/tf32.txt
CLOPS_GEMM_WGMMA_TF32=1 timeout 40 $B --engine --device nvidia --dtype float32 --big --bt --reps-seconds 0.05 2>&1 | tee -a $OUT/tf32.txt
unset CLOPS_FLOAT32_MATMUL_PRECISION
el timed
export CLOPS_TEST_WGMMA_NEW=1 CLOPS_TEST_DEVICES=nvidia
( CLOPS_TEST_FILTER=float32_under_high_precision CLOPS_TEST_WGMMA_ONLY=wg128x128-s3,wg64x128-s4 timeout 200 $T > $OUT/test_tf32.txt 2>&1; echo "rc $?" >> $OUT/test_tf32.txt ) &
( CLOPS_TEST_FILTER=wgmma_is_chosen_by_capability CLOPS_TEST_WGMMA_ONLY=ws128x256-k16-s4 timeout 300 $T > $OUT/test_ws1.txt 2>&1; echo "rc $?" >> $OUT/test_ws1.txt ) &
( CLOPS_TEST_FILTER=wgmma_is_chosen_by_capability CLOPS_TEST_WGMMA_ONLY=ws128x256-k16-s4-p,ws128x128-s3-p,ws128x128-s3,ws128x256-k16-s4-d1,ws128x256-k16-s4-r timeout 300 $T > $OUT/test_ws2.txt 2>&1; echo "rc $?" >> $OUT/test_ws2.txt ) &
wait
for f in $OUT/test_*.txt; do echo "== $f"; grep -a '\[  \|FAIL\|rc \|ERROR' $f | tail -8; done
el done
