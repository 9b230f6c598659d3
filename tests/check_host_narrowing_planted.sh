#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/check_host_narrowing_planted.sh: proves that
# tools/check_host_narrowing.py reports a host that cuts a 64-bit value to
# 32 bits for a kernel argument or a size.  It copies the sources the tool
# reads into a temporary folder, checks that the copy passes, then plants a
# host file with one finding of each kind (an explicit cast and an implicit
# conversion into kernel arguments, a narrowed size, a struct field passed
# to a kernel, a cast inside calloc), the forms that must stay silent (a
# checked bound, a clamp to the work-group size, a seed's two halves, a
# truth value, a 64-bit argument, a small quotient), an audited exception,
# a stale marker and a marker naming no bound, and requires the check to
# exit 1 naming exactly the planted lines.
# Usage: check_host_narrowing_planted.sh SOURCE_DIR [PYTHON]
set -eu
. "$(dirname "$0")/planted_expect.sh"
src=$1
py=${2:-python3}
planted_copy "$src" ops core host include codegen_pointwise dispatch ref
mkdir -p "$tmp/tools"
cp "$src/tools/check_host_narrowing.py" "$src/tools/check_index_width.py" "$tmp/tools/"
expect_clean "the unmodified copy of the host sources" \
    "$py" "$tmp/tools/check_host_narrowing.py" "$tmp"
mkdir -p "$tmp/ops/planted"
cat >"$tmp/ops/planted/planted.c" <<'C'
#include <stdlib.h>
typedef struct planted_geom { cl_int w; int64_t n; } planted_geom;
static void fill(planted_geom *g, int64_t n)
{
    g->w = n;
}
static void launch(void *d, void *k, int64_t n, uint64_t seed, int64_t wg, int64_t L, int64_t m)
{
    cl_int a = (cl_int)n;
    int b = n;
    planted_geom g;
    fill(&g, n);
    void *p = malloc(b);
    void *q = calloc((int)n, 4);
    host_arg args[] = {{sizeof a, &a}, {sizeof g, &g}};
    if (n > INT32_MAX)
        return;
    cl_int c = (cl_int)n;
    if (L > wg)
        L = wg;
    cl_int cL = (cl_int)L;
    cl_uint k0 = (cl_uint)seed, k1 = (cl_uint)(seed >> 32);
    cl_int has = n > 0;
    cl_long e = n;
    int64_t v = 16 / (int64_t)sizeof(float);
    cl_int vw = (cl_int)v;
    /* idx32: m < 2^31, checked in ops/sort/sort_count.c (histc_fresh) */
    cl_int f = (cl_int)m;

    /* idx32: nothing narrowed here, < 2^31 in ops/sort/sort_count.c (histc_fresh) */
    cl_long s = m;

    cl_long t2 = m; /* idx32: a reason without a bound or a file */
    cl_int h = (cl_int)m;
    host_arg more[] = {{4, &c}, {4, &cL}, {4, &k0}, {4, &k1}, {4, &has}, {8, &e}, {4, &vw},
                       {4, &f}, {8, &s}, {4, &h}, {8, &t2}};
    host_launch(d, k, 11, more, (size_t)n);
    free(p);
    free(q);
}
C
status=0
"$py" "$tmp/tools/check_host_narrowing.py" "$tmp" >"$tmp/out.txt" || status=$?
expect_report "$status" "$tmp/out.txt" 'planted.c' 7 \
    'ops/planted/planted.c:5: narrow: 64-bit n (n) narrowed (implicit) into a kernel argument (field planted_geom.w)' \
    'ops/planted/planted.c:9: narrow: 64-bit n (n) narrowed (cast to cl_int) into a kernel argument a' \
    'ops/planted/planted.c:10: narrow: 64-bit n (n) narrowed (implicit) into a size (b of malloc)' \
    'ops/planted/planted.c:14: narrow: 64-bit n (n) narrowed (cast to int) into a size (calloc)' \
    'ops/planted/planted.c:30: stale idx32 marker' \
    'ops/planted/planted.c:33: idx32 marker without a bound and the file that checks it' \
    'ops/planted/planted.c:34: narrow: 64-bit m (m) narrowed (cast to cl_int) into a kernel argument h'
echo "PASS: the planted narrowings and bad markers are reported"
