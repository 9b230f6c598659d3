#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# engine6 GPU job (H100): does the warp-specialised gemm_wgmma launch with
# the PTX route's entry directives (.maxntid 384 / .minnctapersm 1), is it
# correct (test_gemm_engine, CLOPS_TEST_WGMMA_NEW=1, three processes side
# by side over the ws configurations), and how fast against the default
# and cuBLAS (bf16 sweep, squares, MLP, GPT-2 products; TF32 through wgmma).
# Expected wall time ~180 s (build+torch 45, compile/tests 90, timing 45).
# Run from a copy of the tree: carry [".debs"], command
#   for f in .debs/*.deb; do dpkg -x $f /; done; ldconfig; bash bench/gemm_gpu_job.sh
set -o pipefail
t0=$(date +%s)
el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
# cuBLAS while the CPU builds (the GPU is idle then)
( timeout 40 python3 bench/torch_gemm.py --dtype bfloat16 --big; timeout 30 python3 bench/torch_gemm.py --dtype bfloat16 --gpt2; CUDA_MODULE_LOADING=LAZY timeout 30 python3 bench/torch_gemm.py --dtype float32 --tf32 --big ) > $OUT/torch.txt 2>&1 &
TP=$!
cmake -S . -B /tmp/b -DCMAKE_BUILD_TYPE=Release > /dev/null && timeout 120 cmake --build /tmp/b -j16 --target bench_gemm test_gemm_engine > /tmp/build.log 2>&1 || { tail -30 /tmp/build.log; exit 1; }
el built
wait $TP; el torch; grep -v '^$' $OUT/torch.txt | tail -30
mkdir -p /tmp/kc  # (created before the processes below race to create it)
export CLOPS_CACHE_DIR=/tmp/kc CLOPS_PTX_VERBOSE=1
B=/tmp/b/bench/bench_gemm
T=/tmp/b/tests/test_gemm_engine
CFGS="wg128x128-s3 wg64x128-s4 ws128x256-k16-s4 ws128x256-k16-s4-d1 ws128x128-s3 ws128x256-k16-s4-r ws128x256-k16-s4-p ws128x128-s3-p"
S="square 4096,square 8192,c_attn,c_proj,c_fc,mlp c_proj"
# Phase 2, side by side (GPU timings meaningless here): every program of
# the sweep built once into the cache, and the tests.
for c in $CFGS; do
  timeout 100 $B --device nvidia --dtype bfloat16 --sweep-prefix "$c\$" --sweep-shape "square 4096,mlp c_proj" --reps-seconds 0.01 > /tmp/w_$c.txt 2>&1 &
done
export CLOPS_TEST_WGMMA_NEW=1 CLOPS_TEST_DEVICES=nvidia
( CLOPS_TEST_FILTER=wgmma_is_chosen_by_capability CLOPS_TEST_WGMMA_ONLY=ws128x256-k16-s4 timeout 100 $T > /tmp/t1.txt 2>&1; echo "rc $?" >> /tmp/t1.txt ) &
( CLOPS_TEST_FILTER=wgmma_is_chosen_by_capability CLOPS_TEST_WGMMA_ONLY=ws128x256-k16-s4-p,ws128x128-s3-p timeout 100 $T > /tmp/t2.txt 2>&1; echo "rc $?" >> /tmp/t2.txt ) &
( CLOPS_TEST_FILTER=wgmma_is_chosen_by_capability CLOPS_TEST_WGMMA_ONLY=ws128x128-s3,ws128x256-k16-s4-d1,ws128x256-k16-s4-r timeout 100 $T > /tmp/t3.txt 2>&1; echo "rc $?" >> /tmp/t3.txt ) &
( CLOPS_TEST_FILTER='the_ptx_route*' timeout 60 $T > /tmp/t4.txt 2>&1; echo "rc $?" >> /tmp/t4.txt;
  CLOPS_GEMM_WGMMA_TF32=1 CLOPS_FLOAT32_MATMUL_PRECISION=high timeout 90 $B --engine --device nvidia --dtype float32 --big --bt --reps-seconds 0.01 > /tmp/w_tf32.txt 2>&1 ) &
wait
el phase2
for f in /tmp/w_*.txt; do echo "== $f"; grep -v '^clops: PTX route\|^ptxas\|^$\|^build log\|^\.maxntid\|^\.minncta\|^\.reqntid\|^\.maxnreg\|^(the driver' $f | grep -v '^    [0-9]* bytes' | tail -6; done > $OUT/warm.txt 2>&1
cat /tmp/w_*.txt | grep -a 'ptxas info    : Used\|CL_KERNEL\|spill' | sort | uniq -c | sort -rn | head -40 > $OUT/info.txt
grep -h 'CL_KERNEL' /tmp/w_*.txt | head -12
cat $OUT/info.txt | head -16
for i in 1 2 3 4; do echo "== test $i"; grep -v '^clops: PTX route\|^ptxas\|^\s*[0-9]* bytes\|^build log\|^\.\|^(the\|^$' /tmp/t$i.txt | tail -12; done | tee $OUT/test.txt
# Phase 3, timing alone, programs from the cache.
timeout 75 $B --device nvidia --dtype bfloat16 --sweep-prefix "$(echo $CFGS | sed 's/ /$,/g; s/$/$/')" --sweep-shape "$S" --reps-seconds 0.05 2>/dev/null | tee $OUT/sweep.txt
el sweep
CLOPS_GEMM_WGMMA_TF32=1 CLOPS_FLOAT32_MATMUL_PRECISION=high timeout 30 $B --engine --device nvidia --dtype float32 --big --bt --reps-seconds 0.05 2>&1 | grep -v '^clops: PTX route\|^ptxas\|^\s*[0-9]* bytes\|^build log\|^\.\|^(the\|^$' | tee $OUT/tf32.txt
el done
