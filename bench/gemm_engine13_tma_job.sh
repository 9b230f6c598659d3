#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# engine13's follow-up GPU job, trimmed by engine14 to one call of 160 s
# with the machine's cold start (issue 29: float32 "high" with the TMA copy
# converting float32 to TF32, CU_TENSOR_MAP_DATA_TYPE_TFLOAT32, as
# CUTLASS's Hopper TF32 kernels load float32: the truncating kernel's speed
# with rounded operands?  docs/gemm.md "Hopper: TF32 without the rounding
# pass, transposed tiles (engine13)").  ~85 s: builds bench_gemm,
# test_gemm_engine and gemm_accuracy while cuBLAS TF32 is timed and its
# rounding of ties probed (bench/torch_gemm.py --tf32-ties); then the
# conversion known answers in the background (niced, TMA tiles forced
# under each mode: test float32_tf32_conversion_known_answers, which prints
# whether the TMA copy rounds ties to even or away); errors against float64
# (gemm_accuracy, then bench/gemm_accuracy.py in the background: tf32 = the
# pass, tf32tma, tf32trunc, cuBLAS TF32; N(0, 1) and uniform(0, 1)); one
# bench_gemm --sweep process, B K-major, the default configuration (the
# TMA rule's picks) under each conversion, "round" / "trunc" / "tma".
# Each step has its own limit; the logs go into $OUT/engine.tgz after each
# step, and each step's log to stdout as it ends.  Run at 79d1707 (H200, 84 s
# on a warm machine; docs/benchmarks.md "The TMA copy's TF32 conversion,
# measured"), before "tma" became the default: the sweep's rows name their
# conversion either way.
#   for f in .debs/*.deb; do dpkg -x $f /; done; ldconfig; bash bench/gemm_engine13_tma_job.sh
# Locally (POCL, tiny: a dry run of the script):
#   DEV=pocl BUILD=build OUT=/tmp/e13t-out PY=~/.cache/clops-venv/bin/python bash bench/gemm_engine13_tma_job.sh
LOGS=${LOGS:-/tmp/engine-logs}
BUILD=${BUILD:-/tmp/engine}
source bench/gemm_job_lib.sh
pack() { tar czf $OUT/engine.tgz -C $LOGS tf32 2>/dev/null; }
job_build "--dtype float32 --tf32 --big --tf32-ties" "--dtype float32 --tf32 --gpt2"
cat $L/gpu.txt $L/torch.txt
if [ "$DEV" = nvidia ]; then TL=26; else TL=200; fi
( CLOPS_TEST_DEVICES=$DEV CLOPS_TEST_TIMING=1 CLOPS_TEST_FILTER=float32_tf32_conversion_known_answers \
    nice -n 19 timeout 38 $T > $L/test_conv.txt 2>&1; echo "rc $?" >> $L/test_conv.txt ) &
mkdir -p /tmp/e13-acc/n /tmp/e13-acc/u
for dist in n u; do
    # (the first compiles the programs)
    extra= tl=20; [ $dist = u ] && extra=--uniform tl=12
    timeout $tl $G --device $DEV --m $AM --n $AN --k $AK --tf32-only $extra --out /tmp/e13-acc/$dist >> $L/acc.txt 2>&1
    el "gemm_accuracy $dist rc $?"
done
# (its GPU work is a few milliseconds beside the sweep's)
( nice -n 19 timeout 30 ${PY:-python3} bench/gemm_accuracy.py /tmp/e13-acc/n $AM $AN $AK -- /tmp/e13-acc/u $AM $AN $AK \
    --uniform >> $L/acc.txt 2>&1; el "accuracy tables rc $?" ) &
SW="--device $DEV --dtype float32 --reps-seconds 0.03 --bt --variants round,trunc,tma"
shapes='square 4096,square 8192,gpt2 c_attn,gpt2 c_fc,mlp c_proj'
[ "$DEV" = nvidia ] || shapes='square 1024'
# (the default rows only: no configuration is named "default")
echo "== CLOPS_FLOAT32_MATMUL_PRECISION=high bench_gemm $SW --sweep-default --sweep-prefix 'default\$' --sweep-shape '$shapes'" > $L/sweep.txt
CLOPS_FLOAT32_MATMUL_PRECISION=high timeout $TL $B $SW --sweep-default --sweep-prefix 'default$' \
    --sweep-shape "$shapes" >> $L/sweep.txt 2>&1
el "sweep rc $?"
cat $L/sweep.txt
pack
wait
el tests done
grep -a 'TMA copy\|\[  \|FAIL\|rc \|ERROR\|warning\|test_gemm_engine' $L/test_conv.txt | tail -14
grep -v ': missing (' $L/acc.txt
pack
