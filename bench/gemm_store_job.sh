#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# engine7 GPU job (H100/H200): where a block of the default wgmma kernel
# spends its time outside the K loop (CLOPS_GEMM_PROBE: 1 one K tile, 2 no
# store, 3 both), the staged 16-byte C store ("-cs" configurations) against
# the default, cuBLAS (PyTorch) in the same job, and test_gemm_engine on
# NVIDIA split over parallel processes (every test function; the wgmma
# configurations split by CLOPS_TEST_WGMMA_ONLY).  Expected wall time ~150 s
# (build + torch 45, compile + tests 60, timing 40).
# Run from a copy of the tree: carry [".debs"], command
#   for f in .debs/*.deb; do dpkg -x $f /; done; ldconfig; bash bench/gemm_store_job.sh
set -o pipefail
t0=$(date +%s)
el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
FO=/tmp/fo; rm -rf $FO; mkdir -p $FO
fin() { tar -czf $OUT/gemm7.tgz -C $FO . ; }
trap fin EXIT
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $FO/gpu.txt
( timeout 40 python3 bench/torch_gemm.py --dtype bfloat16 --big; timeout 30 python3 bench/torch_gemm.py --dtype bfloat16 --gpt2 ) > $FO/torch.txt 2>&1 &
TP=$!
cmake -S . -B /tmp/b -DCMAKE_BUILD_TYPE=Release > /dev/null && timeout 120 cmake --build /tmp/b -j16 --target bench_gemm test_gemm_engine > $FO/build.log 2>&1 || { tail -30 $FO/build.log; exit 1; }
el built
wait $TP; el torch; grep -v '^$' $FO/torch.txt | tail -16
mkdir -p /tmp/kc
export CLOPS_CACHE_DIR=/tmp/kc
B=/tmp/b/bench/bench_gemm
T=/tmp/b/tests/test_gemm_engine
CFGS="wg128x128-s3 wg128x128-s3-cs wg64x128-s4 wg64x128-s4-cs"
S="square 4096,square 8192,c_attn,c_proj,c_fc,mlp c_proj"
PRE="$(echo $CFGS | sed 's/ /$,/g; s/$/$/')"
# Phase 1, side by side (timings meaningless): the programs built into the
# cache (ptxas' registers with CLOPS_PTX_VERBOSE), and the tests.
( CLOPS_PTX_VERBOSE=1 timeout 80 $B --device nvidia --dtype bfloat16 --sweep-prefix "$PRE" --sweep-shape "square 4096" --reps-seconds 0.01 > $FO/warm.txt 2>&1 ) &
for p in 1 2 3; do
  ( CLOPS_GEMM_PROBE=$p timeout 80 $B --device nvidia --dtype bfloat16 --sweep-prefix 'wg128x128-s3$,wg128x128-s3-cs$' --sweep-shape "square 4096" --reps-seconds 0.01 > /tmp/warm_p$p.txt 2>&1 ) &
done
export CLOPS_TEST_DEVICES=nvidia
tf() { ( CLOPS_TEST_FILTER="$1" CLOPS_TEST_WGMMA_ONLY="$2" timeout 110 $T > $FO/test_$3.txt 2>&1; echo "rc $?" >> $FO/test_$3.txt ) & }
tf wgmma_is_chosen_by_capability wg128x128-s3-cs cs1
tf wgmma_is_chosen_by_capability wg64x128-s4-cs cs2
tf wgmma_is_chosen_by_capability wg128x128-s3,wg64x128-s4,wg128x256-k16-s4 wg
tf fused_epilogues_match_the_host "" epi
tf 'the_ptx_route*' "" ptx
tf 'ops_reach*' "" ops
tf 'engine_matches*' "" layouts
tf 'addmm_activation*' "" addmm
tf 'skinny_and_split*' "" skinny
tf 'float32_under*' "" f32
tf 'float32_precision*' "" f32p
tf 'empty_reduction*' "" empty
tf 'the_same_product*' "" bits
tf 'a_failed*' "" canary
wait
el phase1
grep -a 'ptxas info    : Used' $FO/warm.txt | sort | uniq -c | sort -rn | head -20 > $FO/regs.txt
grep -a '^|' $FO/warm.txt > $FO/warm_table.txt
for f in $FO/test_*.txt; do echo "== $f"; grep -E 'PASSED|FAILED|ERROR|rc |assert|differ' $f | head -8; done | tee $FO/tests_summary.txt
# Phase 2, timing alone, programs from the cache.
timeout 60 $B --device nvidia --dtype bfloat16 --sweep-prefix "$PRE" --sweep-shape "$S" --reps-seconds 0.05 2>&1 | tee $FO/sweep.txt
el sweep
for p in 1 2 3; do
  echo "== CLOPS_GEMM_PROBE=$p"
  CLOPS_GEMM_PROBE=$p timeout 25 $B --device nvidia --dtype bfloat16 --sweep-prefix 'wg128x128-s3$,wg128x128-s3-cs$' --sweep-shape "$S" --reps-seconds 0.05 2>&1
done | tee $FO/probe.txt
el done
