#!/bin/bash
# bench/conv_wgrad_job.sh (issue 31, conv10): the device job of docs/conv.md "The weight gradient with the samples as groups": build; ResNet-18's stem weight gradient and first
# stage backward (bench/cases/conv_wgrad_models.yaml, batch 64) with clops'
# variants and PyTorch (cuDNN defaults) in one job; the new test on NVIDIA,
# then test_conv and test_check_conv whole.
set -u
OUT=${OUT:-/tmp/conv-out}
BUILD=${BUILD:-/tmp/conv}
DEV=${DEV:-nvidia}
SCALE=${SCALE:-1}
TDEV=${TDEV:-cpu,nvidia}
mkdir -p "$OUT"
T0=$(date +%s)
t() { echo "[$(($(date +%s) - T0))s] $*" | tee -a "$OUT/log.txt"; }
(nvidia-smi --query-gpu=name,driver_version --format=csv; python3 -c 'import torch; print(torch.__version__, torch.backends.cudnn.version())') >"$OUT/gpu.txt" 2>&1
t start
timeout 100 bash -c "cmake -S . -B $BUILD -DCMAKE_BUILD_TYPE=Release >/dev/null && cmake --build $BUILD -j$(nproc) --target bench_family test_conv test_check_conv" >"$OUT/build.txt" 2>&1
t "built rc $?"
export CLOPS_FLOAT32_CONV_PRECISION=high
B="$BUILD/bench/bench_family --cases bench/cases/conv_wgrad_models.yaml --device $DEV --scale $SCALE --reps 3"
# run_c NAME TIMEOUT [VAR=VALUE...]: one bench_family process
run_c() {
    local name=$1 lim=$2
    shift 2
    env "$@" timeout "$lim" $B --json "$OUT/c_$name.json" >"$OUT/bench_$name.txt" 2>&1
    t "clops $name ($*) rc $?"
}
run_c new 45 CLOPS_CONV_WSAMPLES=1
run_c old 30 CLOPS_CONV_WSAMPLES=0
timeout 30 python3 bench/torch_family.py --family conv --cases bench/cases/conv_wgrad_models.yaml --scale "$SCALE" --reps 3 --json "$OUT/t.json" >"$OUT/torch.txt" 2>&1
t "torch rc $?"
CLOPS_TEST_FILTER=test_weight_gradient_by_samples CLOPS_TEST_DEVICES=$TDEV timeout 40 "$BUILD/tests/test_conv" >"$OUT/test_conv_new.txt" 2>&1
t "test_conv (new test) rc $?"
run_c all 25 CLOPS_CONV_WSAMPLES=all
run_c views 20 CLOPS_CONV_WSAMPLES=1 CLOPS_CONV_WS_COPY=0
run_c new2 15 CLOPS_CONV_WSAMPLES=1
run_c old2 15 CLOPS_CONV_WSAMPLES=0
CLOPS_TEST_DEVICES=$TDEV timeout 80 "$BUILD/tests/test_conv" >"$OUT/test_conv.txt" 2>&1
t "test_conv rc $?"
CLOPS_TEST_DEVICES=$TDEV timeout 40 "$BUILD/tests/test_check_conv" >"$OUT/test_check_conv.txt" 2>&1
t "test_check_conv rc $?"
