#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# bench/conv_depthwise_job.sh: the GPU job of the tiled channels-last depthwise kernel
# (cl_kernels/conv.cl conv_depthwise_tiled) against the direct one
# (CLOPS_CONV_DEPTHWISE=direct) and PyTorch/cuDNN on MobileNetV3-Large's
# depthwise layers (bench/cases/conv_layers.yaml mb3_dw_* rows: bfloat16
# channels-last, batch 32), plus its test on the NVIDIA device.  Run from
# the repository root, $OUT set; BUILD = a Release build
# of this tree (default /tmp/b: only bench_family and test_conv_depthwise
# are built if missing or stale).  ~45 s wall on the H100 after the build.
#  1. test_conv_depthwise on the NVIDIA device (the tiled kernel against the
#     CPU reference, f32/f16/bf16/f64, epilogues, the direct kernel beside);
#  2. torch_family.py --clops on the depthwise rows: direct kernel, tiled,
#     direct, tiled (each with PyTorch's column; PyTorch at its defaults).
set -u
set -f  # (the --case glob goes to the tools, not the shell)
OUT=${OUT:-/tmp/conv6-out}
BUILD=${BUILD:-/tmp/b}
mkdir -p "$OUT"
T0=$(date +%s)
t() { echo "[$(($(date +%s) - T0)) s] $*"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
[ -f "$BUILD/CMakeCache.txt" ] ||
    cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DCLOPS_WERROR=ON >"$OUT/cmake.log" 2>&1
cmake --build "$BUILD" -j16 --target bench_family test_conv_depthwise >"$OUT/build.log" 2>&1 ||
    { tail -40 "$OUT/build.log"; exit 1; }
t built
CLOPS_TEST_DEVICES=nvidia timeout 40 "$BUILD/tests/test_conv_depthwise" >"$OUT/test_conv_depthwise.log" 2>&1
echo "test_conv_depthwise rc $?" >>"$OUT/test_conv_depthwise.log"
tail -2 "$OUT/test_conv_depthwise.log"
t tested
P="python3 bench/torch_family.py --family conv --cases bench/cases/conv_layers.yaml --case mb3_dw_*bf16* --reps 5 --clops $BUILD/bench/bench_family --clops-device nvidia"
i=0
for k in direct tiled direct tiled; do
    i=$((i + 1))
    if [ $k = direct ]; then
        CLOPS_CONV_DEPTHWISE=direct timeout 40 $P --json "$OUT/t_$i$k.json" --clops-json "$OUT/c_$i$k.json" >"$OUT/dw_$i$k.md" 2>&1
    else
        timeout 40 $P --json "$OUT/t_$i$k.json" --clops-json "$OUT/c_$i$k.json" >"$OUT/dw_$i$k.md" 2>&1
    fi
    t "depthwise rows, $k kernel"
done
set +f
for f in "$OUT"/dw_*.md; do echo "== $f"; cat "$f"; done
