/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tools/check/check_compare.c: the elementwise comparison of results with
 * their reference and the engine's tolerance rule (check_compare.h).
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "codegen_pointwise/pw.h"
#include "core/error.h"
#include "tools/check/check_compare.h"

char *chk_format_index(char *buf, size_t cap, int ndim, const int64_t *sizes, int64_t linear)
{
    int64_t idx[CLOPS_MAX_DIMS];
    for (int i = ndim - 1; i >= 0; i--) {
        int64_t s = sizes[i] > 0 ? sizes[i] : 1;
        idx[i] = linear % s;
        linear /= s;
    }
    return clops__fmt_shape(buf, cap, ndim, idx);
}

/* Raw bits of element i of a host buffer (up to 8 bytes). */
static uint64_t raw_bits(const void *buf, int64_t i, size_t es)
{
    uint64_t v = 0;
    memcpy(&v, (const char *)buf + (size_t)i * es, es);
    return v;
}

/* Appends one mismatch line to the report. */
static void note_mismatch(chk_cmp *rep, clops_dtype dt, int ndim, const int64_t *sizes,
                          int64_t i, const void *actual, const void *expected)
{
    size_t es = clops_dtype_size(dt);
    char idx[CLOPS_MAX_DIMS * 22 + 4], line[1024];
    chk_format_index(idx, sizeof idx, ndim, sizes, i);
    int w = 2 * (int)es;
    uint64_t ab = raw_bits(actual, i, es), eb = raw_bits(expected, i, es);
    if (clops_dtype_is_floating(dt)) {
        double a = pw_ref_load(actual, i, dt, CLOPS_FLOAT64).f;
        double e = pw_ref_load(expected, i, dt, CLOPS_FLOAT64).f;
        snprintf(line, sizeof line,
                 "\n  at %s: got %.17g (0x%0*" PRIx64 ") expected %.17g (0x%0*" PRIx64 ")", idx, a,
                 w, ab, e, w, eb);
        if (isfinite(a) && isfinite(e)) {
            size_t len = strlen(line);
            snprintf(line + len, sizeof line - len, ", error %.3g = %.3g ULP", fabs(a - e),
                     ulp_error(dt, a, e));
        }
    } else if (dt == CLOPS_BOOL) {
        snprintf(line, sizeof line, "\n  at %s: got byte %u expected byte %u", idx, (unsigned)ab,
                 (unsigned)eb);
    } else {
        snprintf(line, sizeof line, "\n  at %s: got %" PRId64 " expected %" PRId64, idx,
                 pw_ref_load(actual, i, dt, CLOPS_INT64).i,
                 pw_ref_load(expected, i, dt, CLOPS_INT64).i);
    }
    size_t len = strlen(rep->detail);
    snprintf(rep->detail + len, sizeof rep->detail - len, "%s", line);
}

bool chk_compare_host(const void *actual, const void *expected, clops_dtype dt, int ndim,
                        const int64_t *sizes, const ulp_tol *tol, chk_cmp *rep)
{
    chk_cmp local;
    if (!rep)
        rep = &local;
    memset(rep, 0, sizeof *rep);
    int64_t n = 1;
    for (int i = 0; i < ndim; i++)
        n *= sizes[i];
    rep->numel = n;
    bool is_float = clops_dtype_is_floating(dt);
    for (int64_t i = 0; i < n; i++) {
        bool ok;
        if (is_float) {
            double a = pw_ref_load(actual, i, dt, CLOPS_FLOAT64).f;
            double e = pw_ref_load(expected, i, dt, CLOPS_FLOAT64).f;
            ok = ulp_close(dt, a, e, tol);
            if (isfinite(a) && isfinite(e)) {
                double abs_err = fabs(a - e), u = ulp_error(dt, a, e);
                if (abs_err > rep->max_abs_err)
                    rep->max_abs_err = abs_err;
                /* Errors within the absolute floor pass whatever their
                 * ULPs (a tiny value next to zero); they do not count. */
                if (abs_err > tol->atol && u > rep->max_ulp_err)
                    rep->max_ulp_err = u;
            }
        } else if (dt == CLOPS_BOOL) {
            ok = ((const uint8_t *)actual)[i] == ((const uint8_t *)expected)[i];
            if (!ok && rep->max_abs_err < 1)
                rep->max_abs_err = 1;
        } else {
            int64_t a = pw_ref_load(actual, i, dt, CLOPS_INT64).i;
            int64_t e = pw_ref_load(expected, i, dt, CLOPS_INT64).i;
            ok = a == e;
            double abs_err = fabs((double)a - (double)e);
            if (abs_err > rep->max_abs_err)
                rep->max_abs_err = abs_err;
        }
        if (ok)
            continue;
        if (rep->mismatches < CHK_CMP_MISMATCHES)
            note_mismatch(rep, dt, ndim, sizes, i, actual, expected);
        rep->mismatches++;
    }
    return rep->mismatches == 0;
}

ulp_tol chk_tolerance(clops_dtype dt, double ulp, double atol, int64_t reduce_len, double bound)
{
    ulp_tol t = {0.0, 0.0, false};
    if (!clops_dtype_is_floating(dt))
        return t;
    double u = ulp > 0 ? ulp : 4.0;
    clops_dtype unit = dt == CLOPS_FLOAT64 ? CLOPS_FLOAT64 : CLOPS_FLOAT32;
    double k = reduce_len > 0 ? (double)reduce_len : 1.0;
    if (dt == CLOPS_FLOAT16 || dt == CLOPS_BFLOAT16)
        t.ulp = 1.0 + k * u * ulp_spacing(unit, 1.0) / ulp_spacing(dt, 1.0);
    else
        t.ulp = k * u;
    t.atol = fmax(atol > 0 ? atol : 0.0, ldexp(1.0, ulp_min_exponent(unit)));
    if (reduce_len > 0) {
        double b = bound > 0 ? bound : 1.0;
        t.atol = fmax(t.atol, k * u * ulp_spacing(unit, b * b));
    }
    return t;
}
