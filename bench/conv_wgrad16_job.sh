#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# bench/conv_wgrad16_job.sh (issue 31, conv16): the device job of
# docs/conv.md "The weight gradient on wgmma (conv16)", run from the
# repository root with $OUT set, in one job of TOTAL s (default 95):
#   1. test_conv and bench_family: carried binaries from $BIN (built
#      elsewhere on this branch, as bench/conv_n64_job.sh) if they run here,
#      else built in $BUILD (default /tmp/conv);
#   2. in background processes on $TDEV: test_conv_wgrad_wgmma_tf32 and
#      _bf16 (the new kernels against the CPU reference), _tf32 again under
#      a planted bug (gemm.cl's B descriptor of the GEMM_CONV 3 programs
#      reading the tile's two K steps swapped, through CLOPS_KERNEL_DIR: it
#      must fail), conv15's test_conv_wgmma_n64_tf32 and _bf16;
#   3. beside them the rows of bench/cases/conv_wgrad16.yaml (ResNet-18's
#      weight gradients at batch 64, float32 NCHW as TF32 and bfloat16
#      channels-last): new (CLOPS_CONV_WGMMA_WGRAD unset) / old (=0) /
#      PyTorch (cuDNN defaults) / all (=all), one bench_family process each.
# Everything under $OUT/logs, packed into $OUT/conv.tgz after every step.
TOTAL=${TOTAL:-95}
. bench/conv_job_lib.sh
TB=""
if [ -n "${BIN:-}" ] && [ -x "$BIN/test_conv" ] && [ -x "$BIN/bench_family" ]; then
    for p in $(grep -aohE '/[[:alnum:]_./+-]*/(tests/data|bench/cases)' "$BIN/test_conv" "$BIN/bench_family" | sort -u); do
        r=${p%/tests/data}
        r=${r%/bench/cases}
        [ -e "$r" ] || { mkdir -p "$(dirname "$r")" && ln -s "$PWD" "$r"; }
    done
    CLOPS_TEST_FILTER=test_conv_wgrad_rule CLOPS_TEST_DEVICES=$TDEV timeout 20 "$BIN/test_conv" >"$L/bin_check.txt" 2>&1
    rc=$?
    t "carried binaries: test_conv_wgrad_rule rc $rc"
    [ $rc = 0 ] && TB=$BIN BF=$BIN/bench_family
fi
if [ -z "$TB" ]; then
    timeout 120 bash -c "cmake -S . -B $BUILD -DCMAKE_BUILD_TYPE=Release >/dev/null && cmake --build $BUILD -j$(nproc) --target test_conv bench_family" >"$L/build.txt" 2>&1
    rc=$?
    t "built test_conv bench_family rc $rc ($(tail -1 "$L/build.txt"))"
    TB=$BUILD/tests BF=$BUILD/bench/bench_family
fi
# the planted bug (the weight-gradient programs only: the known-answer
# check, a plain product, passes it)
PLANTK=/tmp/conv-plant16
mkdir -p $PLANTK
sed 's/const ulong db = wg_tile_desc(bt, 0, ks, B_UK);/const ulong db = wg_tile_desc(bt, 0, GEMM_CONV == 3 ? ks ^ 1 : ks, B_UK);/' \
    cl_kernels/gemm.cl >$PLANTK/gemm.cl
t "planted: $(grep -c 'ks ^ 1' $PLANTK/gemm.cl) line"
PIDS=()
TEST_S=$((TOTAL - 12)) ctest_ wg_tf32 test_conv_wgrad_wgmma_tf32
TEST_S=$((TOTAL - 12)) ctest_ wg_bf16 test_conv_wgrad_wgmma_bf16
TEST_S=$((TOTAL - 12)) ctest_ planted test_conv_wgrad_wgmma_tf32 CLOPS_KERNEL_DIR=$PLANTK
TEST_S=$((TOTAL - 12)) ctest_ n64_tf32 test_conv_wgmma_n64_tf32
TEST_S=$((TOTAL - 12)) ctest_ n64_bf16 test_conv_wgmma_n64_bf16
C=bench/cases/conv_wgrad16.yaml
ROWS="env CLOPS_FLOAT32_CONV_PRECISION=high $BF --cases $C --device $DEV --scale $SCALE --reps 3"
run_c new1 30
run_c old1 22 CLOPS_CONV_WGMMA_WGRAD=0
echo "== torch" >>"$L/rows.txt"
[ "$(left)" -gt 12 ] && timeout 16 python3 bench/torch_family.py --family conv --cases $C --scale "$SCALE" \
    --reps 3 --json "$L/t_rows.json" >>"$L/rows.txt" 2>&1
t "torch rows rc $?"
[ "$(left)" -gt 14 ] && run_c all1 $(($(left) - 4)) CLOPS_CONV_WGMMA_WGRAD=all
wait "${PIDS[@]}"
t "done"
