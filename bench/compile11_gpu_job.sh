#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# compile11's one GPU call (issue 35): bench/compile_gpu_job.sh on this
# branch's tree: bfloat16 GPT-2 / Llama forward eager vs compiled vs PyTorch
# CUDA eager, Llama with CLOPS_COMPILE_RMS_NORM=0, GPT-2 fp32 and autocast,
# launches per node kind (--profile), test_compile_models/norm on NVIDIA
# beside the warm-up.  Everything under /tmp/compile_out, tarred into
# $OUT/compile.tgz every 15 s and at the end; the table also as a file.
# compile11's call (H200, 2026-11-28, the device tool's copy of main with
# this branch's patch at f08bd25 applied): from the repository root,
#   for f in .debs/*.deb; do dpkg -x $f /; done; ldconfig
#   OUT=$OUT bash bench/compile11_gpu_job.sh        (200 s wall)
# docs/benchmarks.md, "compile11".  The warm-up's 48 s did not build the
# 124M bfloat16 kernels (every warm-up row hit its limit): the first timed
# Llama row built them; next time C7_WARM_S=90 and fewer rows.
set -u
RES=/tmp/compile_out; mkdir -p $RES
T0=$(date +%s)
( while sleep 15; do tar -C /tmp -czf $OUT/compile.tgz compile_out 2>/dev/null; done ) &
TARP=$!
[ -z "${KEEP_EXT:-}" ] && rm -f python/clops/torch/_C*.so   # never another call's extension
export CLOPS_BUILD_DIR=/tmp/compile C7_CACHE=/tmp/compile_cache
export C7_ROWS="${C7_ROWS:-gpt2_bf16|llama_bf16|gpt2_fp32|gpt2_autocast}"
export C7_ORDER="${C7_ORDER:-gpt2_bf16 llama_bf16 llama_bf16_norm0 gpt2_fp32 llama_bf16_rope0 gpt2_autocast}"
export C7_INDUCTOR= C7_STEPS=${C7_STEPS:-3} C7_END=${C7_END:-205} C7_WARM_S=${C7_WARM_S:-48} C7_TESTS_S=${C7_TESTS_S:-48}
export C7_TESTS="${C7_TESTS:-test_compile_models.py test_compile_norm.py test_compile_cache.py}"
OUT=$RES timeout ${JOB_S:-214} bash bench/compile_gpu_job.sh > $RES/job.txt 2>&1
echo "job rc $? after $(( $(date +%s) - T0 )) s" >> $RES/job.txt
kill $TARP 2>/dev/null
tar -C /tmp -czf $OUT/compile.tgz compile_out
cp $RES/job.txt $OUT/ 2>/dev/null; cp $RES/c7_table.txt $OUT/ 2>/dev/null
tail -60 $RES/job.txt
