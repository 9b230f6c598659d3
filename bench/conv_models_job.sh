#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# bench/conv_models_job.sh: the GPU job of issue 31's model figures --
# torchvision ResNet-18 (batch 64, 224^2, forward and training step, NCHW
# float32 at PyTorch's defaults = TF32 allowed for convolutions on both
# sides, and bfloat16 autocast), ResNet-50 bfloat16 forward, MobileNetV3-Large
# forward and training -- clops against PyTorch CUDA eager with cuDNN, in one
# job; clops with CLOPS_CONV_NHWC_COPY=0 (NCHW images read through strided
# loads and the RGB stem unpadded: the state before conv7) and unset (NCHW
# images copied into channels-last before the engine reads them, the stem's
# 3 channels padded to a 16-byte chunk: ops/conv/conv_gemm.c
# channels_last_copy, padded_channels), alternated step by step; forward
# outputs compared with PyTorch's (largest difference / largest output).
# Run from the repository root with $OUT set.  The Python extension is
# built in place (python/clops/torch/_C*.so) unless present: that build is
# not in the ~90 s (it took 107 s on the H200, PyTorch's run beside it).
# Files under $OUT: cuda.jsonl, clops.jsonl (bench/conv_models.py --json
# lines), prof_r18_train.json (clops' op profile of one ResNet-18 float32
# training step), models.log (everything printed, the ratio table last).
#   CLOPS_S the clops run's limit (62 s); LIMIT: end it LIMIT s after the job's start
#   BUDGET  seconds after which the clops run starts no new configuration (CLOPS_S - 15)
#   CONFIGS the configurations (bench/conv_models.py --configs)
set -u
OUT=${OUT:-/tmp/conv7-out}
BUILD=${BUILD:-/tmp/b}
mkdir -p "$OUT"
T0=$(date +%s)
t() { echo "[$(($(date +%s) - T0)) s] $*" | tee -a "$OUT/models.log"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee -a "$OUT/models.log"
CFG=${CONFIGS:-r18_fwd_f32,r18_train_f32,r18_fwd_bf16,r50_fwd_bf16,mb3_fwd_f32,mb3_train_f32,r18_train_bf16,mb3_fwd_bf16}
# forward outputs of PyTorch's run (DIR/CONFIG.pt), against which clops' are compared
OD=/tmp/conv_models_outputs
rm -rf "$OD"
mkdir -p "$OD"
M="python3 bench/conv_models.py --configs $CFG --outputs $OD"
export PYTHONUNBUFFERED=1
if ! ls python/clops/torch/_C*.so >/dev/null 2>&1; then
    # PyTorch's own column meanwhile (the build niced: the CUDA process's
    # launches need a core), then the build
    $M --device cuda --json "$OUT/cuda.jsonl" >>"$OUT/models.log" 2>&1 &
    CU=$!
    (cd python && CLOPS_BUILD_DIR=$BUILD MAX_JOBS=15 CLOPS_BUILD_PROGRESS=0 \
        nice -n 19 python3 setup.py build_ext --inplace >"$OUT/build.log" 2>&1) ||
        { tail -30 "$OUT/build.log"; exit 1; }
    wait $CU
    t "built; cuda done"
else
    timeout 25 $M --device cuda --json "$OUT/cuda.jsonl" 2>&1 | tee -a "$OUT/models.log"
    t "cuda rc ${PIPESTATUS[0]}"
fi
# the clops run ends by LIMIT seconds after the start (when set: the first
# call's build shares them) or after CLOPS_S (62) seconds
CS=${CLOPS_S:-62}
[ -n "${LIMIT:-}" ] && CS=$((T0 + LIMIT - $(date +%s) - 4))
BG=${BUDGET:-$((CS - 15))}
t "clops run: $CS s, no new configuration after $BG s"
timeout $CS $M --device clops --ab CLOPS_CONV_NHWC_COPY=0,1 --json "$OUT/clops.jsonl" \
    --profile "r18_train_f32:$OUT/prof_r18_train.json" --budget "$BG" 2>&1 |
    tee -a "$OUT/models.log"
t "clops rc ${PIPESTATUS[0]}"
python3 bench/conv_models.py --table "$OUT/cuda.jsonl" "$OUT/clops.jsonl" | tee -a "$OUT/models.log"
