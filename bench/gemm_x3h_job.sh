#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# x3-13's GPU job (issue 29: float32 "highest" as 3xTF32 with a narrower
# promotion set; docs/gemm.md "Hopper: 3xTF32 promotion in column passes
# (x3-13)"), one call: builds bench_gemm, test_gemm_engine and gemm_accuracy
# while cuBLAS (TF32 off, PyTorch's "highest") is timed; times 3xTF32 per
# promotion layout (one bench_gemm --sweep process each: engine12's
# full-width set promoted every 4 K tiles, the column passes
# CLOPS_GEMM_3XTF32_PASSES=2|4|4o promoted every 2 or 1 tiles of 8, and no
# promotion) in the
# default 128 x 128 geometry and its "-o2" form, B K-major, with the
# driver's ptxas lines (CLOPS_PTX_VERBOSE: registers, spills); CLBlast's
# SGEMM in the same job (bench_gemm --engine, squares, MLP, GPT-2's
# products); max relative errors against float64 per variant
# (bench/gemm_accuracy.py, N(0, 1) and uniform(0, 1), with the passes'
# bits compared to the full-width set's); the tests beside the accuracy
# runs (the passes' bits against the full width, 3xTF32 in every layout
# with passes, the planted bug, which must fail).  Steps have their own
# limits; the logs are packed into $OUT/tf32.tgz after each.  From a copy
# of the tree:
#   for f in .debs/*.deb; do dpkg -x $f /; done; ldconfig; bash bench/gemm_x3h_job.sh
# Locally (POCL, tiny: a dry run of the script):
#   DEV=pocl BUILD=build OUT=/tmp/x3h-out bash bench/gemm_x3h_job.sh
source bench/gemm_job_lib.sh
job_build "--dtype float32 --big" "--dtype float32 --gpt2"
if [ "$DEV" = nvidia ]; then TL=20; else TL=120; fi
SW="--device $DEV --dtype float32 --bt --reps-seconds 0.03"
sweep() { # name, limit, shapes, configs, env...
    local name=$1 tl=$2 shapes=$3 cfgs=$4; shift 4
    [ "$DEV" = nvidia ] || shapes='square 1024' # (POCL: a dry run)
    echo "== sweep $name: $* bench_gemm $SW --sweep-prefix '$cfgs' --sweep-shape '$shapes'" >> $L/sweep.txt
    env "$@" timeout $tl $B $SW --sweep-prefix "$cfgs" --sweep-shape "$shapes" >> $L/sweep.txt 2>$L/ptx_$name.txt
    local rc=$?
    el "sweep $name rc $rc"
    pack
}
X3_CFGS="wg128x128-s3-cs\$,wg128x128-s3-cs-o2"
X3_SHAPES='square 4096,square 8192,mlp,c_attn,c_proj,c_fc,mlp c_proj'
X3="CLOPS_GEMM_3XTF32=1 CLOPS_PTX_VERBOSE=1"
sweep p2h2 $TL "$X3_SHAPES" "$X3_CFGS" $X3 CLOPS_GEMM_3XTF32_PROMOTE=2 CLOPS_GEMM_3XTF32_PASSES=2
sweep p2h4o $TL "$X3_SHAPES" "$X3_CFGS" $X3 CLOPS_GEMM_3XTF32_PROMOTE=2 CLOPS_GEMM_3XTF32_PASSES=4o
sweep p4full $TL "$X3_SHAPES" "$X3_CFGS" $X3 CLOPS_GEMM_3XTF32_PROMOTE=4 CLOPS_GEMM_3XTF32_PASSES=0
sweep p2h4 $TL "$X3_SHAPES" "$X3_CFGS" $X3 CLOPS_GEMM_3XTF32_PROMOTE=2 CLOPS_GEMM_3XTF32_PASSES=4
sweep p1h2 $TL "$X3_SHAPES" "$X3_CFGS" $X3 CLOPS_GEMM_3XTF32_PROMOTE=1 CLOPS_GEMM_3XTF32_PASSES=2
sweep p1h4o $TL "$X3_SHAPES" "$X3_CFGS" $X3 CLOPS_GEMM_3XTF32_PROMOTE=1 CLOPS_GEMM_3XTF32_PASSES=4o
# (no promotion: the ceiling, 10x SGEMM's error)
sweep p0 $TL "$X3_SHAPES" "$X3_CFGS" $X3 CLOPS_GEMM_3XTF32_PROMOTE=0
# CLBlast's SGEMM (the engine's column: 3xTF32 P 2 in 2 passes, default geometry)
run clblast-big CLOPS_GEMM_3XTF32=1 CLOPS_GEMM_3XTF32_PROMOTE=2 CLOPS_GEMM_3XTF32_PASSES=2 -- --big --bt
run clblast-gpt2 CLOPS_GEMM_3XTF32=1 CLOPS_GEMM_3XTF32_PROMOTE=2 CLOPS_GEMM_3XTF32_PASSES=2 -- --gpt2 --bt
# The tests beside the accuracy runs (not timed).
export CLOPS_TEST_DEVICES=$DEV CLOPS_TEST_TIMING=1
bg_test bits 60 CLOPS_TEST_FILTER='float32_3xtf32_*'
bg_test p2h2 60 CLOPS_GEMM_3XTF32_PROMOTE=2 CLOPS_GEMM_3XTF32_PASSES=2 CLOPS_TEST_FILTER=float32_highest_on_3xtf32
bg_test p2h4o 60 CLOPS_GEMM_3XTF32_PROMOTE=2 CLOPS_GEMM_3XTF32_PASSES=4o CLOPS_TEST_FILTER=float32_highest_on_3xtf32
# (the planted bug: its "rc" must not be 0)
bg_test p2h4o_drop 40 CLOPS_GEMM_3XTF32_PROMOTE=2 CLOPS_GEMM_3XTF32_PASSES=4o CLOPS_GEMM_3XTF32_DROP=1 \
    CLOPS_TEST_FILTER=float32_highest_on_3xtf32 CLOPS_TEST_WGMMA_ONLY=wg128x128-s3-cs
unset CLOPS_TEST_DEVICES CLOPS_TEST_TIMING
ACC_TL=$((TL + 10))
acc normal
acc uniform --uniform
wait
el tests done
for f in $L/test_*.txt; do echo "== $f"; grep -a '\[  \|FAIL\|rc \|ERROR\|warning\|test_gemm_engine:' $f | tail -14; done
cat $L/acc_*.txt
pack
