#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# engine9 GPU job (H100/H200), one call, ~195 s: (1) test_gemm_engine alone
# on NVIDIA with an empty program cache (every test function; the wgmma
# test prints one timing line per configuration and dtype: wall time and
# programs built), (2) where the default wgmma kernel's K loop loses
# (CLOPS_GEMM_PROBE bits: 2 no store, 4 no copies, 8 no products, 16 no
# barrier per K tile), (3) the two defaults timed with bench_gemm's usual
# synchronisation every 4 calls and every 64, (4) cuBLAS via PyTorch in the
# same job, (5) whether the PTX route's first build at ptxas -O0 gives the
# same PTX (CLOPS_PTX_VERBOSE's xxh3) and how much build time it saves.
# Run from a copy of the tree: carry [".debs"], command
#   for f in .debs/*.deb; do dpkg -x $f /; done; ldconfig; bash bench/gemm_engine9_job.sh
set -o pipefail
t0=$(date +%s)
el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
# the seconds left before the job's own deadline (DL, default 212)
left() { echo $(( ${DL:-212} - ($(date +%s) - t0) )); }
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
mkdir -p /tmp/kc /tmp/k3 /tmp/k0
# (1) the whole test alone, cold cache.
( CLOPS_CACHE_DIR=/tmp/kc CLOPS_TEST_DEVICES=nvidia timeout $(cap ${TT:-115}) $T > $FO/test.txt 2>&1; echo "rc $?" >> $FO/test.txt )
el test
grep -E 'test_gemm_engine:|PASSED|FAILED|ERROR|OK|rc |assert|differ|warning' $FO/test.txt | head -60
export CLOPS_CACHE_DIR=/tmp/kc
S="square 4096,square 8192,c_attn,c_proj,c_fc,mlp c_proj"
SP="square 4096,square 8192,c_attn"
D='wg128x128-s3-cs$'
NEW="wg128x128-k16-s6-cs wg128x128-k16-s6-d1-cs wg64x128-s4-d1-cs wg64x128-k16-s8-d1-cs"
# (5) + warming the bench's programs + the configurations not yet run,
# forced in test_gemm_engine, side by side (timings meaningless).
po() { ( s=$(date +%s.%N); CLOPS_CACHE_DIR=$1 CLOPS_PTX_FIRST_OPT=$2 CLOPS_PTX_VERBOSE=1 timeout $(cap 40) $B --device nvidia --dtype bfloat16 --sweep-prefix "$D" --sweep-shape "square 4096" --reps-seconds 0.01 > $FO/ptx_o$2.txt 2>&1; awk -v a=$s -v b=$(date +%s.%N) 'BEGIN{print "wall", b - a, "s"}' >> $FO/ptx_o$2.txt ) & }
po /tmp/k3 3
po /tmp/k0 0
for c in wg64x128-s4-cs $NEW; do
  ( CLOPS_PTX_VERBOSE=1 timeout $(cap 40) $B --device nvidia --dtype bfloat16 --sweep-prefix "$c\$" --sweep-shape "square 4096" --reps-seconds 0.01 > $FO/warm_$c.txt 2>&1 ) &
  case " $NEW " in *" $c "*)
    for tn in wgmma_is_chosen_by_capability fused_epilogues_match_the_host; do
      ( CLOPS_CACHE_DIR=/tmp/kn_$c$tn CLOPS_TEST_DEVICES=nvidia CLOPS_TEST_WGMMA_NEW=1 CLOPS_TEST_WGMMA_ONLY=$c CLOPS_TEST_FILTER=$tn timeout $(cap 50) $T > $FO/test_new_${c}_${tn:0:5}.txt 2>&1; echo "rc $?" >> $FO/test_new_${c}_${tn:0:5}.txt ) &
    done ;;
  esac
done
for p in 2 6 10 22; do
  ( CLOPS_GEMM_PROBE=$p timeout $(cap 40) $B --device nvidia --dtype bfloat16 --sweep-prefix "$D" --sweep-shape "square 4096" --reps-seconds 0.01 > /tmp/w_p$p.txt 2>&1 ) &
done
wait
el warm
grep -a 'xxh3\|^wall' $FO/ptx_o3.txt $FO/ptx_o0.txt | sort | uniq | tee $FO/ptx_cmp.txt
grep -a -h 'ptxas info    : Used' $FO/ptx_o0.txt $FO/warm_*.txt | sort | uniq -c | head -12
for f in $FO/test_new_*.txt; do echo "== $f"; grep -E 'test_gemm_engine:|PASSED|FAILED|rc |assert|differ|warning' $f | head -10; done
# (3) the defaults and the new configurations, alone, programs from the cache.
ALL='wg128x128-s3-cs$,wg64x128-s4-cs$'; for c in $NEW; do ALL="$ALL,$c\$"; done
timeout $(cap 45) $B --device nvidia --dtype bfloat16 --sweep-prefix "$ALL" --sweep-shape "$S" --reps-seconds 0.02 2>&1 | tee $FO/sweep.txt
el sweep
echo "== sync every 64" | tee -a $FO/sweep.txt
timeout $(cap 20) $B --device nvidia --dtype bfloat16 --sweep-prefix 'wg128x128-s3-cs$,wg64x128-s4-cs$' --sweep-shape "square 4096,c_attn,c_proj,c_fc,mlp c_proj" --reps-seconds 0.02 --sync-every 64 2>&1 | tee -a $FO/sweep.txt
# (2) the K loop split.
for p in 2 6 10 22; do
  echo "== CLOPS_GEMM_PROBE=$p"
  CLOPS_GEMM_PROBE=$p timeout $(cap 12) $B --device nvidia --dtype bfloat16 --sweep-prefix "$D" --sweep-shape "square 4096,c_attn" --reps-seconds 0.02 2>&1
done | tee $FO/probe.txt
el done
