#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/run_oclgrind.sh BUILD_DIR: runs `clops check` for a small case set of
# every kernel family on Oclgrind, the OpenCL device simulator, with its
# data-race detection on, and fails on anything Oclgrind reports (an
# out-of-bounds or uninitialised-pointer access, a data race between
# work-items or work-groups, barrier divergence, an invalid API call) and on
# any failed case.
#
# Oclgrind (Debian's `oclgrind`, tools/setup-debian.sh) is not an installed
# OpenCL platform: `oclgrind CMD` preloads its runtime, so CMD sees one
# device, the simulator, as opencl:0.  Each family is one op (or a few) in
# float32 over the check engine's compact 'ci' layouts (odd sizes, transposed,
# step-sliced with an offset, expanded, zero-size, in-place and out= forms);
# the matrix engine (float16/bfloat16 products) is run in those dtypes too.
# About 5 minutes on 2 cores with a warm kernel cache (the cache folder is
# the simulator's own, kernels/Oclgrind_Simulator-*).
#
# Ops with value differences that are Oclgrind's own are left out of the set
# rather than "fixed" in clops (issue 33): its vector comparisons convert to
# bool as 255 (eq, ne, lt, ... and ops built on them), its sinpi is not exact
# at integers (sinpi-based ops).  CLOPS_OCLGRIND_OPS replaces the op list.
#
# Usage: tests/run_oclgrind.sh BUILD_DIR
# Exit status: 0 clean, 1 an Oclgrind report or a failed case, 2 bad usage,
# 77 oclgrind not installed (skipped).
set -u

if [ $# -ne 1 ] || [ ! -x "$1/clops" ]; then
    echo "usage: $0 BUILD_DIR (with BUILD_DIR/clops built)" >&2
    exit 2
fi
BUILD=$1
if ! command -v oclgrind >/dev/null 2>&1; then
    echo "run_oclgrind: oclgrind is not installed (apt-get install oclgrind); skipped"
    exit 77
fi

# One line per family: the ops that stand for it, one overload each (a bare
# base name such as "sort" would take all four sort overloads; sorting is
# the slowest family under the simulator, about a minute a sort op).
OPS=${CLOPS_OCLGRIND_OPS:-"
mm.out,bmm.out
sum.dim_IntList,amax.out,argmax.out
sort.values_stable,topk.values,kthvalue.values
cumsum.out,logcumsumexp.out
index_select.out,gather.out,scatter_add.out,index_add.out,nonzero.out,masked_select.out,embedding
index.Tensor_out,index_put.out
searchsorted.Tensor_out,_unique2.out,histc.out
native_layer_norm.out,native_group_norm.out,native_batch_norm.out,rms_norm
max_pool2d_with_indices.out,avg_pool2d.out,upsample_bilinear2d.out
_softmax.out,_log_softmax.out
_fused_attention
nll_loss_forward.output,mse_loss.out
convolution.out
cat.out
uniform.out,normal.Tensor_float_out,bernoulli.p,randperm.generator
add.Tensor,where.self
"}
OPS=$(echo "$OPS" | tr '\n' ',' | sed 's/^,*//; s/,*$//; s/,,*/,/g')

OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
status=0
start=$(date +%s)

# run NAME DTYPES OPS: one clops check under Oclgrind; its log must be empty.
run() {
    log="$OUT/$1.log"
    oclgrind --data-races --check-api --log "$log" \
        "$BUILD/clops" check --device opencl:0 --op "$3" --dtype "$2" > "$OUT/$1.out" 2>&1
    rc=$?
    grep -E "^check: \[|passed|FAIL|ERROR" "$OUT/$1.out" | grep -v "^PASS" | tail -n 200
    if [ -s "$log" ]; then
        echo "run_oclgrind: Oclgrind reported errors ($1):"
        head -n 100 "$log"
        status=1
    fi
    if [ "$rc" -ne 0 ]; then
        echo "run_oclgrind: clops check exited with $rc ($1); its output:"
        tail -n 60 "$OUT/$1.out"
        status=1
    fi
}

run families float32 "$OPS"
run matrix-engine float16,bfloat16 "mm,bmm"

echo "run_oclgrind: $(( $(date +%s) - start )) s; $( [ $status -eq 0 ] && echo clean || echo FAILED)"
exit $status
