#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# bench/conv_half_job.sh (issue 31, conv12): the device job of docs/conv.md
# "Half-type convolutions on wgmma", run from the repository root with
# $OUT set.  In one job of TOTAL s (default 190):
#   1. builds clops_static, then the Python extension in place (beside
#      everything else) and bench_family, test_conv and test_check_conv in
#      $BUILD (default /tmp/conv);
#   2. test_conv and test_check_conv on $TDEV (default nvidia), niced, beside
#      the rows (their program builds also fill the program cache);
#   3. per-layer rows (bench/cases/conv_half_wgmma.yaml: ResNet-18 / ResNet-50
#      bfloat16 channels-last layers at batch 64), one bench_family process
#      per variant: CLOPS_CONV_WGMMA_HALF=0 / 1 / all, PyTorch's column
#      (bench/torch_family.py, cuDNN defaults), then 0 and 1 again while the
#      extension builds;
#   4. bench/conv_models_job.sh with the time left (CONFIGS, AB; WARM_S,
#      CUDA_S from the time left).
# Everything goes under $OUT/logs, packed into $OUT/conv.tgz after every
# step (the device tool returns 8 files; a cut call still returns what was
# done).  DEV / SCALE: the rows' device and batch scale; REF PyTorch's
# device for the model job (cpu to try it without a GPU).
TOTAL=${TOTAL:-190}
JOBS=${JOBS:-$(nproc)}
. bench/conv_job_lib.sh
timeout 80 bash -c "cmake -S . -B $BUILD -DCMAKE_BUILD_TYPE=Release >/dev/null && cmake --build $BUILD -j$JOBS --target clops_static" >"$L/build.txt" 2>&1
t "clops_static rc $?"
EXT=
if ! ls python/clops/torch/_C*.so >/dev/null 2>&1; then
    (cd python && CLOPS_BUILD_DIR=$BUILD MAX_JOBS=$JOBS CLOPS_BUILD_PROGRESS=0 \
        timeout $((TOTAL - 40)) python3 setup.py build_ext --inplace >"$L/ext.txt" 2>&1
        echo "ext rc $?" >>"$L/ext.txt") &
    EXT=$!
fi
timeout 80 nice -n 5 cmake --build $BUILD -j$JOBS --target bench_family test_conv test_check_conv >>"$L/build.txt" 2>&1
t "built rc $? ($(tail -1 "$L/build.txt"))"
TB="$BUILD/tests"
(CLOPS_TEST_DEVICES=$TDEV timeout 100 nice -n 5 "$TB/test_conv" >"$L/t_conv.txt" 2>&1; echo "rc $?" >>"$L/t_conv.txt"
    t "test_conv: $(grep -E 'PASSED|FAILED|^rc' "$L/t_conv.txt" | tr '\n' ' ')") &
P1=$!
(CLOPS_TEST_DEVICES=$TDEV timeout 80 nice -n 5 "$TB/test_check_conv" >"$L/t_check_conv.txt" 2>&1; echo "rc $?" >>"$L/t_check_conv.txt"
    t "test_check_conv: $(grep -E 'PASSED|FAILED|passed|failed|^rc' "$L/t_check_conv.txt" | tail -3 | tr '\n' ' ')") &
P2=$!
# per-layer rows: one bench_family process per variant
C=bench/cases/conv_half_wgmma.yaml
ROWS="$BUILD/bench/bench_family --cases $C --device $DEV --scale $SCALE --reps 3"
run_c w0 30 CLOPS_CONV_WGMMA_HALF=0
run_c w1 30 CLOPS_CONV_WGMMA_HALF=1
[ "$(left)" -gt 120 ] && run_c wall 25 CLOPS_CONV_WGMMA_HALF=all
echo "== torch" >>"$L/rows.txt"
timeout 25 python3 bench/torch_family.py --family conv --cases $C --scale "$SCALE" --reps 3 \
    --json "$L/t_rows.json" >>"$L/rows.txt" 2>&1
t "torch rows rc $?"
# (the repeats while the extension builds: the model job needs ~60 s)
if [ -n "$EXT" ]; then
    [ "$(left)" -gt 95 ] && kill -0 $EXT 2>/dev/null && run_c w0b 20 CLOPS_CONV_WGMMA_HALF=0
    [ "$(left)" -gt 85 ] && kill -0 $EXT 2>/dev/null && run_c w1b 20 CLOPS_CONV_WGMMA_HALF=1
    wait $EXT
    t "$(tail -1 "$L/ext.txt")"
fi
# the model job with the time left (its own warm-up, clops' variants
# alternated step by step, PyTorch's column last)
run_models "${CONFIGS:-r50_fwd_bf16,r18_fwd_bf16,r18_train_bf16}" "${AB:-CLOPS_CONV_WGMMA_HALF=0,1}" 30
kill $P1 $P2 2>/dev/null
t "done"
