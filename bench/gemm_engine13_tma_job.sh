#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# engine13's follow-up GPU job, not yet run (issue 29: float32 "high" with
# the TMA copy converting float32 to TF32, CU_TENSOR_MAP_DATA_TYPE_TFLOAT32,
# as CUTLASS's Hopper TF32 kernels load float32: the truncating kernel's
# speed with rounded operands?  docs/gemm.md "Hopper: TF32 without the
# rounding pass, transposed tiles (engine13)").  One call, ~150 s warm:
# builds bench_gemm, test_gemm_engine and gemm_accuracy while cuBLAS TF32 is
# timed; the conversion known answers in the background (niced; with TMA
# tiles forced under each mode: exactly 16 * (1 + 2^-10) where the TMA
# rounds, 16 where it truncated); one bench_gemm --sweep process, B K-major,
# rows "round" / "trunc" / "tma" of the rule's TMA picks; errors against
# float64 (bench/gemm_accuracy.py: tf32 = the pass, tf32tma, tf32trunc,
# cuBLAS TF32; N(0, 1) and uniform(0, 1)).  The logs: $OUT/engine.tgz.
#   for f in .debs/*.deb; do dpkg -x $f /; done; ldconfig; bash bench/gemm_engine13_tma_job.sh
# Locally (POCL, tiny: a dry run of the script):
#   DEV=pocl BUILD=build OUT=/tmp/e13t-out bash bench/gemm_engine13_tma_job.sh
LOGS=${LOGS:-/tmp/engine-logs}
BUILD=${BUILD:-/tmp/engine}
source bench/gemm_job_lib.sh
pack() { tar czf $OUT/engine.tgz -C $LOGS tf32 2>/dev/null; }
job_build "--dtype float32 --tf32 --big" "--dtype float32 --tf32 --gpt2"
if [ "$DEV" = nvidia ]; then TL=45; else TL=200; fi
( CLOPS_TEST_DEVICES=$DEV CLOPS_TEST_TIMING=1 CLOPS_TEST_WGMMA_ONLY=wg128x128-k64-s1-tma-cs \
    CLOPS_TEST_FILTER=float32_tf32_conversion_and_transposed_tiles nice -n 19 timeout 100 $T \
    > $L/test_conv.txt 2>&1; echo "rc $?" >> $L/test_conv.txt ) &
SW="--device $DEV --dtype float32 --reps-seconds 0.03 --bt --variants round,trunc,tma"
shapes='square 4096,square 8192,gpt2 c_attn,gpt2 c_fc,mlp c_proj'
[ "$DEV" = nvidia ] || shapes='square 1024'
cfgs="wg128x128-k64-s1-tma-cs\$,wg64x128-k64-s1-tma-cs\$"
echo "== CLOPS_FLOAT32_MATMUL_PRECISION=high bench_gemm $SW --sweep-default --sweep-prefix '$cfgs' --sweep-shape '$shapes'" > $L/sweep.txt
CLOPS_FLOAT32_MATMUL_PRECISION=high timeout $TL $B $SW --sweep-default --sweep-prefix "$cfgs" \
    --sweep-shape "$shapes" >> $L/sweep.txt 2>&1
el "sweep rc $?"
pack
mkdir -p /tmp/e13-acc/n /tmp/e13-acc/u
for dist in n u; do
    extra=; [ $dist = u ] && extra=--uniform
    timeout 30 $G --device $DEV --m $AM --n $AN --k $AK --tf32-only $extra --out /tmp/e13-acc/$dist >> $L/acc.txt 2>&1
    el "gemm_accuracy $dist rc $?"
done
timeout 45 ${PY:-python3} bench/gemm_accuracy.py /tmp/e13-acc/n $AM $AN $AK -- /tmp/e13-acc/u $AM $AN $AK --uniform \
    >> $L/acc.txt 2>&1
el "accuracy tables rc $?"
pack
wait
el tests done
grep -a '\[  \|FAIL\|rc \|ERROR\|warning\|test_gemm_engine' $L/test_conv.txt | tail -14
cat $L/sweep.txt $L/acc.txt
pack
