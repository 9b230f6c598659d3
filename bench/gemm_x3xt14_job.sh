#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# x3xt14's GPU job (issue 29: float32 "highest" as 3xTF32 for GPT-2's
# Conv1D weights, B N-major; docs/gemm.md "Hopper: 3xTF32 with an N-major B
# (x3xt14)"), one call of ~80 s besides the machine's start: builds
# bench_gemm, test_gemm_engine and gemm_accuracy while cuBLAS's SGEMM (TF32
# off, B [K, N] row-major as Conv1D's) is timed on GPT-2's products; then,
# one bench_gemm --sweep process each, nothing else on the GPU:
#   nmajor   B N-major (mm, no --bt), 3xTF32 forced with the rule's period
#            and passes (P 2, 2 column passes) in the rule's geometries
#            (wg128x128-s3-cs-o2, wg64x128-s4-cs), each row under
#            x3nt (landing tiles, the split transposing) and x3plain
#            (x3-13's plain loads in K-major order);
#   default  B N-major, nothing forced: "default [x3nt]" the rule's choice
#            with the N-major staging, "default [x3plain]" x3-13's rule,
#            which leaves such a B to CLBlast (CLBlast's SGEMM figures);
#   kmajor   --bt (B K-major, the linear layer's x @ W^T), the default
#            (x3-13's rule: 3xTF32), the reference row;
# then the tests in the background (CLOPS_TEST_FILTER='float32_highest_*',
# the N-major bits test, and that test again with a transposition bug
# planted through CLOPS_KERNEL_DIR: its rc must not be 0) beside the errors
# against float64 (gemm_accuracy --bn --only clblast,3xtf32p2h2,
# 3xtf32p2h2plain, N(0, 1) and uniform(0, 1); bench/gemm_accuracy.py
# prints cuBLAS's beside them).  Each step has its own limit; the logs go
# into $OUT/engine.tgz after each.  Run at 728e314 (H200, a cold machine,
# cut at the call's 80 s: built in 37 s, the nmajor sweep's last row and
# the tests' ends not reached; docs/benchmarks.md "Matrix engine, 3xTF32
# with an N-major B"); a next run wants ~130 s for the tests to finish.
#   for f in .debs/*.deb; do dpkg -x $f /; done; ldconfig; git apply .dev/engine/branch.patch && bash bench/gemm_x3xt14_job.sh
# Locally (POCL, tiny: a dry run of the script):
#   DEV=pocl BUILD=build OUT=/tmp/x3xt14-out PY=~/.cache/clops-venv/bin/python bash bench/gemm_x3xt14_job.sh
LOGS=${LOGS:-/tmp/engine-logs}
BUILD=${BUILD:-/tmp/engine}
source bench/gemm_job_lib.sh
pack() { tar czf $OUT/engine.tgz -C $LOGS tf32 2>/dev/null; }
job_build "--dtype float32 --gpt2"
cat $L/gpu.txt $L/torch.txt
if [ "$DEV" = nvidia ]; then
    TL=16 shapes='gpt2 c_attn,gpt2 c_proj,gpt2 c_fc,gpt2 mlp c_proj'
else
    TL=300 shapes='square 1024'
fi
SW="--device $DEV --dtype float32 --reps-seconds 0.03"
X3="CLOPS_GEMM_3XTF32_PROMOTE=2 CLOPS_GEMM_3XTF32_PASSES=2"
sweep() { # name, bench_gemm args..., with the environment in ENVS
    local name=$1; shift
    echo "== sweep $name: $ENVS bench_gemm $SW $* --sweep-shape '$shapes'" >> $L/sweep.txt
    env $ENVS timeout $TL $B $SW "$@" --sweep-shape "$shapes" >> $L/sweep.txt 2>&1
    local rc=$?
    el "sweep $name rc $rc"
    pack
}
ENVS="CLOPS_GEMM_3XTF32=1 $X3" sweep nmajor --sweep-prefix 'wg128x128-s3-cs-o2$,wg64x128-s4-cs$' \
    --variants x3nt,x3plain
ENVS="CLOPS_GEMM_3XTF32_NOTHING=0" sweep default --sweep-default --sweep-prefix 'default$' \
    --variants x3nt,x3plain
ENVS="CLOPS_GEMM_3XTF32_NOTHING=0" sweep kmajor --bt --sweep-default --sweep-prefix 'default$' \
    --variants x3nt
cat $L/sweep.txt
# The tests (not timed) beside the accuracy runs.
rm -rf /tmp/x3xt14-planted && cp -r cl_kernels /tmp/x3xt14-planted
sed -i 's/vstore4(h_, 0, Bs + (s) \* B_TILE + KMAJ(n_, c_));/vstore4(h_, 0, Bs + (s) * B_TILE + KMAJ(n_ ^ 1, c_));/' \
    /tmp/x3xt14-planted/gemm.cl
grep -c 'KMAJ(n_ ^ 1, c_)' /tmp/x3xt14-planted/gemm.cl > $L/planted.txt
export CLOPS_TEST_DEVICES=$DEV CLOPS_TEST_TIMING=1
bg_test highest 45 CLOPS_TEST_FILTER='float32_highest_*'
bg_test nmajor 45 CLOPS_TEST_FILTER='float32_3xtf32_nmajor*'
# (the planted bug: its "rc" must not be 0)
bg_test planted 45 CLOPS_KERNEL_DIR=/tmp/x3xt14-planted CLOPS_CACHE_DIR=/tmp/x3xt14-kc-planted \
    CLOPS_TEST_FILTER='float32_3xtf32_nmajor*'
unset CLOPS_TEST_DEVICES CLOPS_TEST_TIMING
ACC_TL=20
rm -rf /tmp/tf32-acc
acc normal --bn --only clblast,3xtf32p2h2,3xtf32p2h2plain
rm -rf /tmp/tf32-acc
acc uniform --bn --uniform --only clblast,3xtf32p2h2,3xtf32p2h2plain
# (packed every 3 s while they run, so that a cut call still brings them)
for i in $(seq 1 20); do [ -z "$(jobs -r)" ] && break; sleep 3; pack; done
wait
el tests done
for f in $L/test_*.txt; do echo "== $f"; grep -a '\[  \|FAIL\|rc \|ERROR\|differ\|test_gemm_engine:' $f | tail -16; done
cat $L/planted.txt $L/acc_*.txt
pack
