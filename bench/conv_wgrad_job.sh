#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# bench/conv_wgrad_job.sh (issue 31, conv10): the device job of docs/conv.md
# "The weight gradient with the samples as groups", run from the repository
# root with $OUT set: builds bench_family, test_conv and test_check_conv in
# $BUILD (default /tmp/conv), then in one job ResNet-18's stem weight
# gradient and first-stage backward at batch 64
# (bench/cases/conv_wgrad_models.yaml) with clops' variants
# (CLOPS_CONV_WSAMPLES=1 the default, 0 the old path, all, and
# CLOPS_CONV_WS_COPY=0) under CLOPS_FLOAT32_CONV_PRECISION=high, PyTorch
# with cuDNN and its defaults, the new test on NVIDIA, then test_conv and
# test_check_conv whole (default precision).  Text goes to $OUT/job.txt
# (the device tool returns at most 8 files), rows to $OUT/c_*.json and
# $OUT/t.json.  DEV / TDEV / SCALE: bench device, test devices, size scale.
set -u
OUT=${OUT:-/tmp/conv-out}
BUILD=${BUILD:-/tmp/conv}
DEV=${DEV:-nvidia}
SCALE=${SCALE:-1}
TDEV=${TDEV:-cpu,nvidia}
mkdir -p "$OUT"
J="$OUT/job.txt"
T0=$(date +%s)
t() { echo "[$(($(date +%s) - T0))s] $*" | tee -a "$J"; }
(nvidia-smi --query-gpu=name,driver_version --format=csv; python3 -c 'import torch; print(torch.__version__, torch.backends.cudnn.version())') >>"$J" 2>&1
t start
timeout 100 bash -c "cmake -S . -B $BUILD -DCMAKE_BUILD_TYPE=Release >/dev/null && cmake --build $BUILD -j$(nproc) --target bench_family test_conv test_check_conv" >"$OUT/build.txt" 2>&1
t "built rc $?"
B="env CLOPS_FLOAT32_CONV_PRECISION=high $BUILD/bench/bench_family --cases bench/cases/conv_wgrad_models.yaml --device $DEV --scale $SCALE --reps 3"
# run_c NAME TIMEOUT [VAR=VALUE...]: one bench_family process
run_c() {
    local name=$1 lim=$2
    shift 2
    t "clops $name ($*)"
    env "$@" timeout "$lim" $B --json "$OUT/c_$name.json" >>"$J" 2>&1
    t "clops $name rc $?"
}
run_c new 45 CLOPS_CONV_WSAMPLES=1
run_c old 30 CLOPS_CONV_WSAMPLES=0
timeout 30 python3 bench/torch_family.py --family conv --cases bench/cases/conv_wgrad_models.yaml --scale "$SCALE" --reps 3 --json "$OUT/t.json" >>"$J" 2>&1
t "torch rc $?"
run_c all 25 CLOPS_CONV_WSAMPLES=all
run_c views 20 CLOPS_CONV_WSAMPLES=1 CLOPS_CONV_WS_COPY=0
CLOPS_TEST_FILTER=test_weight_gradient_by_samples CLOPS_TEST_DEVICES=$TDEV timeout 40 "$BUILD/tests/test_conv" 2>&1 | grep -E "FAIL|PASS|rror|differ" >>"$J"
t "test_conv (new test)"
CLOPS_TEST_DEVICES=$TDEV timeout 40 "$BUILD/tests/test_check_conv" 2>&1 | grep -E "checked|FAIL|PASS" >>"$J"
t "test_check_conv"
CLOPS_TEST_DEVICES=$TDEV timeout 150 "$BUILD/tests/test_conv" 2>&1 | grep -E "FAIL|OK|PASS|rror|differ" >>"$J"
t "test_conv"
