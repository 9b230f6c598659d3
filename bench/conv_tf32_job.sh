#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# bench/conv_tf32_job.sh (issue 31, conv11): the device job of docs/conv.md
# "Float32 convolutions on wgmma; max-pool backward by ranges", run from
# the repository root with $OUT set.  In one job:
#   1. builds clops_static, bench_family, test_conv, test_pool and
#      test_check_pool in $BUILD (default /tmp/conv), then the Python
#      extension in place beside the GPU steps (niced);
#   2. tests on $TDEV (default nvidia), side by side: test_conv's
#      test_conv_wgmma_tf32, test_implicit_gemm_paths with CLOPS_CONV_WGMMA=all,
#      test_pool and test_check_pool;
#   3. per-layer rows, one bench_family process per variant
#      (bench/cases/conv_r18_tf32.yaml under CLOPS_FLOAT32_CONV_PRECISION=high:
#      CLOPS_CONV_WGMMA=0 / all / 1 / wg128x128-s3, then 0 again), PyTorch's
#      column (bench/torch_family.py, cuDNN defaults), and max-pool backward
#      at batch 32 (bench/cases/pool.yaml's row) with
#      CLOPS_POOL_BWD_RANGE=0 / 1 against PyTorch's;
#   4. bench/conv_models_job.sh with the rest of the time (CONFIGS, AB,
#      LIMIT from the time left, WARM_S, CUDA_S).
# Everything goes under $OUT/logs and is packed into $OUT/conv.tgz after
# every step (the device tool returns 8 files; a cut call still returns
# what was done).  TOTAL: the job's whole budget in s (default 215);
# DEV / TDEV / SCALE / PSCALE: bench device, test devices, size scales of
# the conv and pool rows; REF: PyTorch's device for the model job.
TOTAL=${TOTAL:-215}
PSCALE=${PSCALE:-1}
. bench/conv_job_lib.sh
timeout 110 bash -c "cmake -S . -B $BUILD -DCMAKE_BUILD_TYPE=Release >/dev/null && cmake --build $BUILD -j$(nproc) --target clops_static bench_family test_conv test_pool test_check_pool" >"$L/build.txt" 2>&1
t "built rc $? ($(tail -1 "$L/build.txt"))"
# the extension, beside the GPU steps (its clops_static step finds it built)
(cd python && CLOPS_BUILD_DIR=$BUILD MAX_JOBS=12 CLOPS_BUILD_PROGRESS=0 nice -n 10 \
    python3 setup.py build_ext --inplace >"$L/ext.txt" 2>&1; echo "ext rc $?" >>"$L/ext.txt") &
EXT=$!
TB="$BUILD/tests"
(CLOPS_TEST_FILTER=test_conv_wgmma_tf32 CLOPS_TEST_DEVICES=$TDEV timeout 70 "$TB/test_conv" >"$L/t_wgmma.txt" 2>&1; echo "rc $?" >>"$L/t_wgmma.txt") &
P1=$!
(CLOPS_CONV_WGMMA=all CLOPS_TEST_FILTER=test_implicit_gemm_paths CLOPS_TEST_DEVICES=$TDEV timeout 70 "$TB/test_conv" >"$L/t_implicit_all.txt" 2>&1; echo "rc $?" >>"$L/t_implicit_all.txt") &
P2=$!
(CLOPS_TEST_DEVICES=$TDEV timeout 50 "$TB/test_pool" >"$L/t_pool.txt" 2>&1; echo "rc $?" >>"$L/t_pool.txt"
    CLOPS_TEST_DEVICES=$TDEV timeout 40 "$TB/test_check_pool" >"$L/t_check_pool.txt" 2>&1; echo "rc $?" >>"$L/t_check_pool.txt") &
P3=$!
wait $P1 $P2 $P3
for f in "$L"/t_*.txt; do echo "$f: $(grep -cE '^\[       OK' "$f") ok, $(grep -E 'PASSED|FAILED|checked|^rc' "$f" | tr '\n' ' ')"; done >>"$J"
t "tests"
# per-layer rows: one bench_family process per variant
ROWS="env CLOPS_FLOAT32_CONV_PRECISION=high $BUILD/bench/bench_family --cases bench/cases/conv_r18_tf32.yaml --device $DEV --scale $SCALE --reps 3"
run_c w0 30 CLOPS_CONV_WGMMA=0
run_c wall 30 CLOPS_CONV_WGMMA=all
timeout 30 python3 bench/torch_family.py --family conv --cases bench/cases/conv_r18_tf32.yaml --scale "$SCALE" --reps 3 --json "$L/t_conv.json" >>"$L/rows.txt" 2>&1
t "torch rows rc $?"
PB="$BUILD/bench/bench_family --family pool --case maxpool3x3s2_bwd_64x112 --device $DEV --scale $PSCALE --reps 3"
for v in 0 1 0 1; do
    CLOPS_POOL_BWD_RANGE=$v timeout 15 $PB --json "$L/p_range$v.json" >>"$L/rows.txt" 2>&1
done
timeout 20 python3 bench/torch_family.py --family pool --case maxpool3x3s2_bwd_64x112 --scale "$PSCALE" --reps 3 --json "$L/t_pool.json" >>"$L/rows.txt" 2>&1
t "pool rows rc $?"
# (the other variants where the time allows: the model job needs ~60 s)
[ "$(left)" -gt 110 ] && run_c w1 20 CLOPS_CONV_WGMMA=1
[ "$(left)" -gt 100 ] && run_c wfrag 20 CLOPS_CONV_WGMMA=wg128x128-s3
[ "$(left)" -gt 90 ] && run_c w0b 20 CLOPS_CONV_WGMMA=0
wait $EXT
t "$(tail -1 "$L/ext.txt")"
# the model job with the time left (its own warm-up, clops' variants
# alternated step by step, PyTorch's column last)
run_models "${CONFIGS:-r18_fwd_f32,r18_train_f32}" \
    "${AB:-CLOPS_CONV_WGMMA+CLOPS_POOL_BWD_RANGE=0+0,1+1,all+1}" 40 16
t "done"
