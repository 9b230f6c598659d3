#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# engine7's verification job (H100/H200): test_gemm_engine on NVIDIA, its
# test functions side by side and wgmma_is_chosen_by_capability split by
# configuration (CLOPS_TEST_WGMMA_ONLY), so that the staged-store defaults
# (wg128x128-s3-cs in every layout and dtype, wg64x128-s4-cs) finish inside
# one call; then the PTX-route test alone.  Expected wall time ~150 s
# (build 40, tests 100).  Run from a copy of the tree: carry [".debs"],
#   for f in .debs/*.deb; do dpkg -x $f /; done; ldconfig; bash bench/gemm_verify_job.sh
set -o pipefail
t0=$(date +%s)
el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
FO=/tmp/fo; rm -rf $FO; mkdir -p $FO
fin() { tar -czf $OUT/gemm_verify.tgz -C $FO . ; }
trap fin EXIT
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $FO/gpu.txt
cmake -S . -B /tmp/b -DCMAKE_BUILD_TYPE=Release > /dev/null && timeout 120 cmake --build /tmp/b -j16 --target test_gemm_engine > $FO/build.log 2>&1 || { tail -30 $FO/build.log; exit 1; }
el built
mkdir -p /tmp/kc
export CLOPS_CACHE_DIR=/tmp/kc CLOPS_TEST_DEVICES=nvidia
T=/tmp/b/tests/test_gemm_engine
tf() { ( CLOPS_TEST_FILTER="$1" CLOPS_TEST_WGMMA_ONLY="$2" timeout ${TT:-200} $T > $FO/test_$3.txt 2>&1; echo "rc $?" >> $FO/test_$3.txt ) & }
for c in wg128x128-s3-cs wg64x128-s4-cs wg128x128-s3 wg64x128-s4 wg128x256-k16-s4; do
  tf wgmma_is_chosen_by_capability $c $c
done
for f in fused_epilogues_match_the_host 'the_ptx_route*' 'ops_reach*' 'engine_matches*' \
         'addmm_activation*' 'skinny_and_split*' 'float32_under*' 'float32_precision*' \
         'empty_reduction*' 'the_same_product*' 'a_failed*'; do
  tf "$f" "" "$(echo $f | tr -dc 'a-z_' | cut -c1-20)"
done
wait
el tests
for f in $FO/test_*.txt; do echo "== $(basename $f)"; grep -E 'PASSED|FAILED|rc |assert|differ|error' $f | head -8; done | tee $FO/summary.txt
