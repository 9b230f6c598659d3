#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# bench/conv_models_job.sh: the GPU job of issue 31's model figures --
# torchvision ResNet-18 (batch 64, 224^2, forward and training step, NCHW
# float32 at PyTorch's defaults = TF32 allowed for convolutions on both
# sides, and bfloat16 autocast), ResNet-50 bfloat16 forward, MobileNetV3-Large
# forward and training (float32) and forward (bfloat16) -- clops against
# PyTorch CUDA eager with cuDNN, in one job, with clops' per-layer profiles
# of one ResNet-18 float32 training step and one MobileNetV3 forward.
#
# Cold program builds (NVIDIA's compiler builds a program in the calling
# thread: 34-37 s of first step per forward configuration, more for a
# training step, on the H200) are paid first, by processes started
# together (16 cores) into the one program cache (CLOPS_CACHE_DIR, or the
# default one, which a test run before may have filled): one per
# configuration running one step with the real shapes and dtypes, and
# beside each one others calling the model's convolution layers alone with
# the same shapes (bench/conv_models.py --warm-part): for a forward
# configuration the forwards, last layer first (meeting the step's process
# halfway; a training configuration shares them with its model's forward
# configuration), for a training configuration the input gradients and
# the weight gradients, so that the backward's programs build beside the
# forward's.  Then clops'
# timing process (each step under each value of AB, alternated step by
# step: bench/conv_models.py --ab), then PyTorch's column alone (quiet: a
# busy CPU slowed PyTorch's MobileNetV3 forward from 4.1 to 7.9 ms).
#
# Run from the repository root with $OUT set.  The Python extension is
# built in place (python/clops/torch/_C*.so) unless present (~100 s on the
# H200 host; not in the times below).
# Files under $OUT: cuda.jsonl, clops.jsonl (bench/conv_models.py --json
# lines), prof_r18_train.json, prof_mb3_fwd.json (clops' per-layer
# profiles), warm.log (the warm-up processes), models.log (everything else
# printed, the ratio table last).
#   CONFIGS  the configurations (bench/conv_models.py --configs), the
#            issue's targets first
#   AB       NAME=V1,V2 or NAME1+NAME2=A1+A2,B1+B2: clops' variants
#            (default CLOPS_CONV_TILE+CLOPS_CONV_DW_SPLIT=0+0,1+0,1+1: the
#            state before conv9; convolutions of 64 or fewer output
#            channels on 64 x 64 blocks instead of the engine's 128 x 128;
#            and the depthwise weight gradient's sums split along the rows
#            as well -- the defaults since conv9; docs/conv.md)
#   LIMIT    end the job LIMIT s after its start (default 110)
#   WARM_S   the warm-up processes' limit (default 45 s)
#   CUDA_S   PyTorch's column's limit, at the end (default 24 s)
#   STEPS    timed steps per variant (default 3)
#   BATCH, IMAGE  the batch (64) and image side (224); REF PyTorch's device
#            (cuda; cpu to try the job on a machine without one, at small sizes)
# Expected on the H200 with the extension built: ~110 s wall (the warm-up
# 45, clops' timing ~40, PyTorch's ~20); configurations whose programs
# the warm-up did not finish build in the timing process, which starts no
# new one after its budget (they print "skipped").
set -u
OUT=${OUT:-/tmp/conv-models-out}
BUILD=${BUILD:-/tmp/b}
mkdir -p "$OUT"
T0=$(date +%s)
t() { echo "[$(($(date +%s) - T0)) s] $*" | tee -a "$OUT/models.log"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee -a "$OUT/models.log"
CFG=${CONFIGS:-r18_fwd_f32,r18_train_f32,mb3_fwd_f32,mb3_train_f32,r50_fwd_bf16,r18_fwd_bf16,r18_train_bf16,mb3_fwd_bf16}
AB=${AB:-CLOPS_CONV_TILE+CLOPS_CONV_DW_SPLIT=0+0,1+0,1+1}
LIMIT=${LIMIT:-110}
CUDA_S=${CUDA_S:-24}
REF=${REF:-cuda}
export PYTHONUNBUFFERED=1
# forward outputs of clops' run (DIR/CONFIG.pt), against which PyTorch's are compared
OD=/tmp/conv_models_outputs
rm -rf "$OD"
mkdir -p "$OD"
M="python3 bench/conv_models.py --steps ${STEPS:-3} --outputs $OD --batch ${BATCH:-64} --image ${IMAGE:-224}"
if ! ls python/clops/torch/_C*.so >/dev/null 2>&1; then
    (cd python && CLOPS_BUILD_DIR=$BUILD MAX_JOBS=15 CLOPS_BUILD_PROGRESS=0 \
        python3 setup.py build_ext --inplace >"$OUT/build.log" 2>&1) ||
        { tail -30 "$OUT/build.log"; exit 1; }
    t "built (the times below start now)"
    T0=$(date +%s)
fi
# the warm-up: every process at once
PIDS=()
for c in ${CFG//,/ }; do
    parts="step fwd"
    case $c in *train*) parts="step dgrad wgrad" ;; esac
    for p in $parts; do
        timeout "${WARM_S:-45}" $M --configs "$c" --device clops --warm --warm-part $p \
            --ab "$AB" >"$OUT/warm_${c}_$p.log" 2>&1 &
        PIDS+=($!)
    done
done
for p in "${PIDS[@]}"; do wait "$p"; done
for f in "$OUT"/warm_*.log; do cat "$f"; rm -f "$f"; done >"$OUT/warm.log"
grep -E "warm-up|failed|Error" "$OUT/warm.log" | tee -a "$OUT/models.log"
t "warm"
CS=$((T0 + LIMIT - CUDA_S - $(date +%s) - 2))
t "clops run: $CS s, no new configuration after $((CS - 10)) s"
timeout $CS $M --configs "$CFG" --device clops --ab "$AB" --json "$OUT/clops.jsonl" \
    --profile "r18_train_f32:$OUT/prof_r18_train.json,mb3_fwd_f32:$OUT/prof_mb3_fwd.json" \
    --budget $((CS - 10)) 2>&1 | tee -a "$OUT/models.log"
t "clops rc ${PIPESTATUS[0]}"
timeout "$CUDA_S" $M --configs "$CFG" --device "$REF" --json "$OUT/cuda.jsonl" 2>&1 |
    tee -a "$OUT/models.log"
t "$REF rc ${PIPESTATUS[0]}"
python3 bench/conv_models.py --table "$OUT/cuda.jsonl" "$OUT/clops.jsonl" | tee -a "$OUT/models.log"
