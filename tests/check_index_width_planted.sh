#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/check_index_width_planted.sh: proves that tools/check_index_width.py
# reports 32-bit index arithmetic.  It copies cl_kernels/ (and the files the
# audited-exception markers name) into a temporary folder, checks that the
# copy passes, then plants a kernel with one finding of each kind, 64-bit
# variants of the same that must stay silent, an audited exception, a stale
# marker and a marker naming no bound, and requires the check to exit 1
# naming exactly the planted lines.
# Usage: check_index_width_planted.sh SOURCE_DIR [PYTHON]
set -eu
. "$(dirname "$0")/planted_expect.sh"
src=$1
py=${2:-python3}
planted_copy "$src" cl_kernels ops
expect_clean "the unmodified copy of the kernels" "$py" "$src/tools/check_index_width.py" "$tmp"
cat >"$tmp/cl_kernels/planted.cl" <<'CL'
#define LD(p, i) ((p)[i])
__kernel void planted(__global float *p, int n, int m, long s, __local float *l)
{
    int i = get_global_id(0);
    long off = n * m;
    p[n * m + 1] = 0;
    int q = n * m;
    p[q] = 1;
    p[s + n * m] = 2;
    vstore4((float4)(0), n + m, p);
    float v = LD(p, n * m);
    for (int j = 0; j < n; j++)
        p[j] = l[n * m];
    p[(long)n * m + s] = (long)get_global_id(0) * m;
    const int lid = get_local_id(0);
    p[off + lid * 4 + (long)q * s] = v;
    /* idx32: n * m < 2^31, checked in ops/pool/pool.c (pool_run) */
    p[n * m] = 3;
    /* idx32: nothing to audit here, < 2^31 in ops/pool/pool.c (pool_run) */
    p[s] = 4;
    p[s + 1] = 5; /* idx32: a reason without a bound or a file */
    p[s + n] = 6;
}
CL
status=0
"$py" "$src/tools/check_index_width.py" "$tmp" >"$tmp/out.txt" || status=$?
expect_report "$status" "$tmp/out.txt" 'planted.cl' 10 \
    'cl_kernels/planted.cl:4: gid32: 32-bit i holds a global id or group id' \
    'cl_kernels/planted.cl:5: widened: 32-bit product widened after it may have overflowed' \
    'cl_kernels/planted.cl:6: index32: 32-bit index arithmetic (*) into __global p' \
    'cl_kernels/planted.cl:8: tainted: index into __global p uses 32-bit q' \
    'cl_kernels/planted.cl:9: widened: 32-bit product widened after it may have overflowed' \
    'cl_kernels/planted.cl:10: index32: 32-bit index arithmetic (+) into __global p' \
    'cl_kernels/planted.cl:11: index32: 32-bit index arithmetic (*) into __global p' \
    'cl_kernels/planted.cl:19: stale idx32 marker' \
    'cl_kernels/planted.cl:21: idx32 marker without a bound and the file that checks it' \
    'cl_kernels/planted.cl:22: arg32: 32-bit kernel argument n is an offset into __global p'
echo "PASS: the planted 32-bit index arithmetic and bad markers are reported"
