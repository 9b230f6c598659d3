#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# bench/conv_n64_job.sh (issue 31, conv15): the device job of docs/conv.md
# "The 64-channel stage on 64-wide wgmma blocks (conv15)", run from the
# repository root with $OUT set.  In one job of TOTAL s (default 215):
#   1. test_conv and bench_family: carried binaries from $BIN (built
#      elsewhere on this branch; the source tree is linked at the build
#      tree's path so that their data files are found) if they run here,
#      else built in $BUILD (default /tmp/conv);
#   2. test_conv on $TDEV (default nvidia), one process per test (each
#      test's cold program builds beside the others'): the two epilogue
#      tests (EPI_S s, default 165: they did not complete on NVIDIA in the
#      last stop), test_conv_wgmma_n64_tf32 / _bf16 (the 64-wide blocks
#      forced, against the CPU reference), test_conv_wgmma_n64_tf32 again
#      under a planted bug (gemm.cl's B descriptor of the 64-wide
#      convolution programs reading the tile's two K steps swapped, read
#      through CLOPS_KERNEL_DIR: it must fail), test_conv_wgmma_tf32 (the
#      rule's own choice: its 33,800-row case takes 128 x 64 blocks) and
#      test_conv_wgmma_rule;
#   3. beside them the rows of bench/cases/conv_n64.yaml (ResNet-18's
#      64-channel convolutions at batch 64: float32 NCHW as TF32, bfloat16
#      channels-last) new (CLOPS_CONV_WGMMA64 unset) / old (=0) / PyTorch
#      (cuDNN defaults) / new / old, one bench_family process each;
#   4. with the time left: bench/cases/conv_wgrad64.yaml (the wider layers'
#      weight gradients at batch 64) and PyTorch's column of it, the
#      conv_n64 rows on 64 x 64 blocks (CLOPS_CONV_WGMMA64=wg64x64-s4-cs),
#      then PyTorch's float32 rows of conv_n64.yaml with TF32 off.
# Everything under $OUT/logs, packed into $OUT/conv.tgz after every step.
TOTAL=${TOTAL:-215}
. bench/conv_job_lib.sh
TB=""
if [ -n "${BIN:-}" ] && [ -x "$BIN/test_conv" ] && [ -x "$BIN/bench_family" ]; then
    # (the binaries read tests/data and bench/cases at their build tree's path)
    for p in $(grep -aohE '/[[:alnum:]_./+-]*/(tests/data|bench/cases)' "$BIN/test_conv" "$BIN/bench_family" | sort -u); do
        r=${p%/tests/data}
        r=${r%/bench/cases}
        [ -e "$r" ] || { mkdir -p "$(dirname "$r")" && ln -s "$PWD" "$r"; }
    done
    CLOPS_TEST_FILTER=test_conv_wgmma_rule CLOPS_TEST_DEVICES=$TDEV timeout 30 "$BIN/test_conv" >"$L/bin_check.txt" 2>&1
    rc=$?
    t "carried binaries: test_conv_wgmma_rule rc $rc"
    [ $rc = 0 ] && TB=$BIN BF=$BIN/bench_family
fi
if [ -z "$TB" ]; then
    timeout 120 bash -c "cmake -S . -B $BUILD -DCMAKE_BUILD_TYPE=Release >/dev/null && cmake --build $BUILD -j$(nproc) --target test_conv bench_family" >"$L/build.txt" 2>&1
    rc=$?
    t "built test_conv bench_family rc $rc ($(tail -1 "$L/build.txt"))"
    TB=$BUILD/tests BF=$BUILD/bench/bench_family
fi
# the planted bug (the 64-wide convolution programs only: the known-answer
# check, a plain product, passes it)
PLANTK=/tmp/conv-plant
mkdir -p $PLANTK
sed 's/const ulong db = wg_tile_desc(bt, 0, ks, B_UK);/const ulong db = wg_tile_desc(bt, 0, GEMM_CONV \&\& BN == 64 ? ks ^ 1 : ks, B_UK);/' \
    cl_kernels/gemm.cl >$PLANTK/gemm.cl
t "planted: $(grep -c 'ks ^ 1' $PLANTK/gemm.cl) line"
PIDS=()
TEST_S=${EPI_S:-165} ctest_ epi_ops test_conv_epilogue_matches_the_ops
TEST_S=${EPI_S:-165} ctest_ epi_ref test_conv_epilogue_refusals
TEST_S=${N64_S:-130} ctest_ n64_tf32 test_conv_wgmma_n64_tf32
TEST_S=${N64_S:-130} ctest_ n64_bf16 test_conv_wgmma_n64_bf16
TEST_S=${N64_S:-130} ctest_ planted test_conv_wgmma_n64_tf32 CLOPS_KERNEL_DIR=$PLANTK
TEST_S=${N64_S:-130} ctest_ wg_tf32 test_conv_wgmma_tf32
C=bench/cases/conv_n64.yaml
ROWS="env CLOPS_FLOAT32_CONV_PRECISION=high $BF --cases $C --device $DEV --scale $SCALE --reps 3"
run_c new1 45
run_c old1 40 CLOPS_CONV_WGMMA64=0
echo "== torch" >>"$L/rows.txt"
[ "$(left)" -gt 25 ] && timeout 25 python3 bench/torch_family.py --family conv --cases $C --scale "$SCALE" \
    --reps 3 --json "$L/t_rows.json" >>"$L/rows.txt" 2>&1
t "torch rows rc $?"
[ "$(left)" -gt 50 ] && run_c new2 22
[ "$(left)" -gt 28 ] && run_c old2 22 CLOPS_CONV_WGMMA64=0
if [ "$(left)" -gt 35 ]; then
    W=bench/cases/conv_wgrad64.yaml
    ROWS="env CLOPS_FLOAT32_CONV_PRECISION=high $BF --cases $W --device $DEV --scale $SCALE --reps 3"
    run_c wgrad64 18
    echo "== torch wgrad64" >>"$L/rows.txt"
    timeout 15 python3 bench/torch_family.py --family conv --cases $W --scale "$SCALE" --reps 3 \
        --json "$L/t_wgrad64.json" >>"$L/rows.txt" 2>&1
    t "torch wgrad64 rc $?"
fi
# (the 64 x 64 blocks for every 64-channel product, against the rule's 128 x 64)
if [ "$(left)" -gt 36 ]; then
    ROWS="env CLOPS_FLOAT32_CONV_PRECISION=high $BF --cases $C --device $DEV --scale $SCALE --reps 3"
    run_c n64few 18 CLOPS_CONV_WGMMA64=wg64x64-s4-cs
fi
if [ "$(left)" -gt 16 ]; then
    echo "== torch no-tf32" >>"$L/rows.txt"
    timeout 14 python3 bench/torch_family.py --family conv --cases $C --case '*_f32' --no-tf32 \
        --scale "$SCALE" --reps 3 --json "$L/t_notf32.json" >>"$L/rows.txt" 2>&1
    t "torch no-tf32 rc $?"
fi
wait "${PIDS[@]}"
t "done"
