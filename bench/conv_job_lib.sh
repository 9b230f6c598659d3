#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# bench/conv_job_lib.sh: what the convolution device jobs share (sourced by
# bench/conv_tf32_job.sh, conv_half_job.sh, conv_stage_job.sh and
# conv_wgrad_stage_job.sh after their TOTAL is set): the settings (OUT, BUILD, DEV / TDEV the bench and test devices,
# SCALE the rows' size scale; L the log folder, $LOGS or $OUT/logs: a
# folder outside $OUT keeps the files the device tool returns to the pack,
# J the job's summary),
# `pack` (the logs as $OUT/conv.tgz: the device tool returns at most 8
# files, and a cut call still returns what was packed), `t` (a step's line
# with the seconds since the start, then pack), `left` (seconds left of
# TOTAL), `run_c NAME LIMIT ENV...` (one bench_family process of
# the rows, $ROWS: its command line, under ENV, into $L/c_NAME.json and
# $L/rows.txt), `rows_alt`, `ctest_` (below), `run_models CONFIGS AB MIN [CUDA_S]` (bench/conv_models_job.sh
# into $L/models with the time left, if more than MIN s and the extension
# is built: WARM_S 2/5 of it, CUDA_S a quarter unless given); the GPU, driver, PyTorch and cuDNN go first into the summary.
set -u
OUT=${OUT:-/tmp/conv-out}
BUILD=${BUILD:-/tmp/conv}
DEV=${DEV:-nvidia}
TDEV=${TDEV:-nvidia}
SCALE=${SCALE:-1}
L=${LOGS:-$OUT/logs}
mkdir -p "$L"
J="$L/job.txt"
T0=$(date +%s)
pack() {
    tar czf "$OUT/conv.tgz" -C "$L" . 2>/dev/null
    [ "$L" = "$OUT/logs" ] || cp "$J" "$OUT/job.txt" 2>/dev/null
}
t() {
    echo "[$(($(date +%s) - T0))s] $*" | tee -a "$J"
    pack
}
left() { echo $((T0 + TOTAL - $(date +%s))); }
run_c() {
    local name=$1 lim=$2
    shift 2
    echo "== $name: $*" >>"$L/rows.txt"
    env "$@" timeout "$lim" $ROWS --json "$L/c_$name.json" >>"$L/rows.txt" 2>&1
    t "clops rows $name ($*) rc $?"
}
# `rows_alt L1 TS L2 M2 M3`: the rows ($ROWS, cases $C) new / old
# (CLOPS_KERNEL_DIR=$OLDK) / PyTorch's column (bench/torch_family.py, TS s
# if as many are left) / new / old (L2 s each, if more than M2 / M3 s are
# left); L1 s for the first pair.
rows_alt() {
    run_c new1 "$1"
    run_c old1 "$1" CLOPS_KERNEL_DIR=$OLDK
    echo "== torch" >>"$L/rows.txt"
    [ "$(left)" -gt "$2" ] && timeout "$2" python3 bench/torch_family.py --family conv --cases $C --scale "$SCALE" \
        --reps 3 --json "$L/t_rows.json" >>"$L/rows.txt" 2>&1
    t "torch rows rc $?"
    [ "$(left)" -gt "$4" ] && run_c new2 "$3"
    [ "$(left)" -gt "$5" ] && run_c old2 "$3" CLOPS_KERNEL_DIR=$OLDK
}
# `ctest_ TAG FILTER ENV...`: test_conv ($TB) cases FILTER on $TDEV under
# ENV in a background process of its own (NVIDIA's driver builds programs
# in the calling thread, so cold builds run side by side; its pid appended
# to PIDS), within TEST_S s (unset: the job's time left less 2), its log
# $L/t_TAG.txt, its line in the summary when it ends.
ctest_() {
    local tag=$1 filt=$2
    shift 2
    (env "$@" CLOPS_TEST_FILTER="$filt" CLOPS_TEST_DEVICES=$TDEV timeout ${TEST_S:-$(($(left) - 2))} "$TB/test_conv" >"$L/t_$tag.txt" 2>&1
        echo "rc $?" >>"$L/t_$tag.txt"
        t "test $tag ($filt $*): $(grep -cE '^\[       OK' "$L/t_$tag.txt") ok, $(grep -E 'PASSED|FAILED|^rc' "$L/t_$tag.txt" | tr '\n' ' ')") &
    PIDS+=($!)
}
run_models() {
    local lim=$(($(left) - 3))
    t "model job: LIMIT $lim"
    if [ "$lim" -gt "$3" ] && ls python/clops/torch/_C*.so >/dev/null 2>&1; then
        (while sleep 8; do pack; done) &
        local pk=$!
        OUT="$L/models" BUILD=$BUILD CONFIGS=$1 AB=$2 LIMIT=$lim WARM_S=${WARM_S:-$((lim * 2 / 5))} \
            CUDA_S=${CUDA_S:-${4:-$((lim / 4))}} bash bench/conv_models_job.sh >/dev/null 2>&1
        kill $pk
    fi
}
(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
    python3 -c 'import torch; print(torch.__version__, torch.backends.cudnn.version())') >>"$J" 2>&1
t start
