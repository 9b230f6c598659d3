#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# engine9's GPU job (H100/H200), one call, ~170 s: (1) test_gemm_engine
# alone on NVIDIA with an empty program cache (every test function, each
# one's wall time and the wgmma test's lines per configuration and dtype:
# programs built and their build time, CLOPS_TEST_TIMING=1; engine9's
# first run was cut at 115 s in the ninth function, before the called /
# left-out activations, GEMM_ACT_CALL / GEMM_ACT_ANY), (2) the two wgmma defaults timed
# with bench_gemm's usual synchronisation every 4 calls and every 64, (3)
# where the default's K loop loses (CLOPS_GEMM_PROBE bits: 2 no store, 4 no
# copies, 8 no products, 16 no barrier per K tile), (4) cuBLAS via PyTorch
# in the same job.  (engine9's own run of it, on the H200, also timed four
# configurations since removed and compared the PTX route's first build at
# ptxas -O0: docs/gemm.md.)  Run from a copy of the tree: carry [".debs"],
#   for f in .debs/*.deb; do dpkg -x $f /; done; ldconfig; bash bench/gemm_engine9_job.sh
set -o pipefail
t0=$(date +%s)
el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
# the seconds left before the job's own deadline (DL, default 200)
left() { echo $(( ${DL:-200} - ($(date +%s) - t0) )); }
cap() { local l=$(left); [ $l -gt $1 ] && echo $1 || echo $(( l > 1 ? l : 1 )); }
FO=/tmp/fo; rm -rf $FO; mkdir -p $FO
fin() { tar -czf $OUT/gemm9.tgz -C $FO . ; }
trap fin EXIT
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $FO/gpu.txt
( timeout 40 python3 bench/torch_gemm.py --dtype bfloat16 --big; timeout 30 python3 bench/torch_gemm.py --dtype bfloat16 --gpt2 ) > $FO/torch.txt 2>&1 &
TP=$!
cmake -S . -B /tmp/b -DCMAKE_BUILD_TYPE=Release > /dev/null && timeout 120 cmake --build /tmp/b -j16 --target bench_gemm test_gemm_engine > $FO/build.log 2>&1 || { tail -30 $FO/build.log; exit 1; }
el built
wait $TP; el torch; grep -v '^$' $FO/torch.txt | tail -16
B=/tmp/b/bench/bench_gemm
T=/tmp/b/tests/test_gemm_engine
mkdir -p /tmp/kc
export CLOPS_CACHE_DIR=/tmp/kc
# (1) the whole test alone, cold cache.
( CLOPS_TEST_TIMING=1 CLOPS_TEST_DEVICES=nvidia timeout $(cap ${TT:-110}) $T > $FO/test.txt 2>&1; echo "rc $?" >> $FO/test.txt )
el test
grep -E 'test_gemm_engine:|PASSED|FAILED|ERROR|OK|rc |assert|differ|warning' $FO/test.txt | head -60
S="square 4096,square 8192,c_attn,c_proj,c_fc,mlp c_proj"
D='wg128x128-s3-cs$'
# (2) the defaults (programs from the cache where the test built them).
for se in 4 64; do
  echo "== sync every $se"
  timeout $(cap 25) $B --device nvidia --dtype bfloat16 --sweep-prefix "$D,wg64x128-s4-cs\$" --sweep-shape "$S" --reps-seconds 0.02 --sync-every $se 2>&1
done | tee $FO/sweep.txt
el sweep
# (3) the K loop split.
for p in 2 6 10 22; do
  echo "== CLOPS_GEMM_PROBE=$p"
  CLOPS_GEMM_PROBE=$p timeout $(cap 12) $B --device nvidia --dtype bfloat16 --sweep-prefix "$D" --sweep-shape "square 4096,c_attn" --reps-seconds 0.02 2>&1
done | tee $FO/probe.txt
el done
