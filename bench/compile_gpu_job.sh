#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# compile6 (issue 35): torch.compile(backend="clops") figures and tests on the
# GPU, one call.  From the repository root with the .debs unpacked and $OUT
# set.  Builds libclops.a alone (setup.py builds the clops_static target of
# $CLOPS_BUILD_DIR, default /tmp/b, configured here) and the Python extension
# in place (ninja, MAX_JOBS=16), then the measurements (C6_BUDGET s, default
# 150):
#  - GPT-2 124M fp32 forward (batch 8, 512 tokens): clops eager vs compiled,
#    launches per forward, the first compiled call on a cold clops cache, and
#    one eager and one compiled step op by op (--profile: which ops dominate);
#  - PyTorch CUDA eager (TF32 off, its default), bf16 forward (clops eager,
#    compiled, CUDA eager), a training step (AdamW, batch 4) compiled vs
#    eager clops and CUDA, the Llama-style decoder and BERT-base forward fp32
#    (clops eager and compiled, CUDA eager), Inductor last when time is left;
#  - then, until C6_END s after the start (default 440), the Python tests:
#    test_compile*.py, test_core_aten.py, test_fft.py on the GPU
#    (pytest-xdist, 4 workers).
# One table at the end: model, mode, ms, ratio against clops eager and
# against PyTorch eager.  Files under $OUT (the tool returns 8): c6_build.log,
# c6_runs.txt (every run's output), c6_summary.jsonl, c6_table.txt,
# c6_gpt2_profile.json, c6_pytest.log.  First run (compile6, H100, budget
# 150, 355 s): docs/benchmarks.md "H100 figures"; ~450 s with these
# defaults (timeout_s 460).
# On POCL (a check of the script, not figures): C6_SMALL=1 C6_REF=cpu, the
# tiny configs and PyTorch's CPU as the reference (C6_INDUCTOR= skips
# Inductor's C++ build, C6_BUDGET=900 C6_TSCALE=4 C6_END=3000 for the loaded
# 2-core VM, C6_XDIST=0 no workers).
set -o pipefail
t0=$(date +%s)
el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
export CLOPS_BUILD_DIR=${CLOPS_BUILD_DIR:-/tmp/b}
OUT=${OUT:-/tmp/compile6_out}; mkdir -p $OUT
PY=${PYTHON:-python3}
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null
if ! ls python/clops/torch/_C*.so > /dev/null 2>&1; then
  [ -f $CLOPS_BUILD_DIR/CMakeCache.txt ] || cmake -S . -B $CLOPS_BUILD_DIR -DCMAKE_BUILD_TYPE=Release \
     > $OUT/c6_build.log 2>&1
  el configured
  (cd python && MAX_JOBS=${MAX_JOBS:-16} CLOPS_BUILD_PROGRESS=0 timeout 300 $PY setup.py build_ext \
     --inplace >> $OUT/c6_build.log 2>&1)
  echo "extension build rc $?"; el extension
  grep -E "^\[[0-9]+/[0-9]+\]|error" $OUT/c6_build.log | tail -4 | cut -c1-200
fi
S=$OUT/c6_summary.jsonl; rm -f $S $OUT/c6_runs.txt
REF=${C6_REF:-cuda}
if [ -n "$C6_SMALL" ]; then
  SIZE=small; B=2; L=32; BT=2; LT=32; ST=${C6_STEPS:-2}
else
  SIZE=124m; B=8; L=512; BT=4; LT=512; ST=${C6_STEPS:-5}
fi
# a cold clops cache for the first compiled GPT-2 (the first_s column)
export CLOPS_CACHE_DIR=${C6_CACHE:-/tmp/c6_cache}; rm -rf $CLOPS_CACHE_DIR   # not under $OUT: binaries
# every run within the measurement budget: a run gets its own limit or what
# is left, and is skipped with less than 15 s left
mt0=$(date +%s); BUDGET=${C6_BUDGET:-240}
run() {  # label timeout args...
  local label=$1 to=$(( $2 * ${C6_TSCALE:-1} )); shift 2
  local left=$(( BUDGET - ($(date +%s) - mt0) ))
  if [ $left -lt 15 ]; then echo "$label SKIPPED (measurement budget spent)"; return; fi
  [ $left -lt $to ] && to=$left
  local log=/tmp/c6_$label.txt
  PYTHONPATH=$PWD/python timeout $to $PY python/examples/run_model.py --size $SIZE --steps $ST \
     --summary $S "$@" > $log 2>&1
  local rc=$?
  { echo "=== $label rc $rc: $*"; cat $log; } >> $OUT/c6_runs.txt   # one file: $OUT returns 8
  echo "$label rc $rc"; grep -E "ms/step|speed|fallbacks|Error|error:" $log | cut -c1-300
  el $label
}
# GPT-2 fp32 first, on the cold clops cache: its "first s" is the first
# compiled call (Dynamo, AOT autograd, the rewrite, the fused kernels'
# builds) after the eager warm-up step has built the eager kernels; then
# one eager and one compiled step op by op (into c6_gpt2_fp32.txt/json)
run gpt2_fp32 80 --model gpt2 --batch $B --seq $L --compile --device clops \
  --profile $OUT/c6_gpt2_profile.json
run gpt2_fp32_ref 20 --model gpt2 --batch $B --seq $L --device $REF
run gpt2_bf16 70 --model gpt2 --batch $B --seq $L --dtype bfloat16 --compile --device clops
run gpt2_bf16_ref 20 --model gpt2 --batch $B --seq $L --dtype bfloat16 --device $REF
run gpt2_train 60 --model gpt2 --batch $BT --seq $LT --train --compile --device clops
run llama_fp32 45 --model llama --batch $B --seq $L --compile --device clops
run bert_fp32 45 --model bert --batch $B --seq $L --compile --device clops
run llama_fp32_ref 20 --model llama --batch $B --seq $L --device $REF
run bert_fp32_ref 20 --model bert --batch $B --seq $L --device $REF
run gpt2_train_ref 20 --model gpt2 --batch $BT --seq $LT --train --device $REF
# the reference's own compiler last (Inductor's first compile is long):
# C6_INDUCTOR= (empty) skips it
[ -n "${C6_INDUCTOR-1}" ] && run gpt2_fp32_inductor 60 --model gpt2 --batch $B --seq $L --device $REF \
  --compile inductor
el measurements
# the table
[ -s "$S" ] && $PY - "$S" <<'PYEOF' | tee $OUT/c6_table.txt
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
key = lambda r: (r["model"], r["dtype"], r["mode"])
eager = {key(r): r["ms"] for r in rows if r["device"] == "clops" and r["label"] == "eager"}
ref = {key(r): r["ms"] for r in rows if r["device"] != "clops" and r["label"] == "eager"}
print(f"{'model':8} {'dtype':9} {'mode':8} {'run':22} {'ms':>9} {'vs clops eager':>15} "
      f"{'vs torch eager':>15} {'launches':>9} {'first s':>8}")
for r in rows:
    k = key(r)
    run = f"{r['device']} {r['label']}"
    ce = eager.get(k); te = ref.get(k)
    a = f"{ce / r['ms']:.2f}x" if ce else "-"
    b = f"{te / r['ms']:.2f}x" if te else "-"
    n = f"{r['launches']:.0f}" if r.get("launches") is not None else "-"
    f = f"{r['first_s']:.1f}" if r["label"] != "eager" else "-"
    print(f"{r['model']:8} {r['dtype']:9} {r['mode']:8} {run:22} {r['ms']:9.2f} {a:>15} {b:>15} "
          f"{n:>9} {f:>8}")
print("(ratio = the other's ms / this row's ms: > 1 is this row faster; first s: the first "
      "compiled call, the clops cache cold for the first gpt2 row)")
PYEOF
grep -A18 "op profile" /tmp/c6_gpt2_fp32.txt | cut -c1-120
# the tests on the GPU, until C6_END s after the start
END=${C6_END:-440}; left=$(( END - ($(date +%s) - t0) ))
if [ -z "$C6_NO_TESTS" ] && [ $left -gt 20 ]; then
  XD="-n ${C6_XDIST:-4}"; [ "${C6_XDIST:-4}" = 0 ] && XD=
  (cd python/tests && PYTHONPATH=$PWD/.. timeout $left $PY -m pytest -q -rfEs -p no:cacheprovider $XD \
     test_compile.py test_compile_attention.py test_compile_conv.py test_compile_models.py \
     test_core_aten.py test_fft.py > $OUT/c6_pytest.log 2>&1); echo "pytest rc $? (limit $left s)"
  grep -E "^FAILED|^ERROR|passed|failed" $OUT/c6_pytest.log | head -30 | cut -c1-300
  el tests
fi
el done
