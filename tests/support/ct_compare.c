/*
 * tests/support/ct_compare.c: elementwise comparison of a result with its
 * reference, and the failure report.
 *
 * Both tensors are brought to host memory in row-major order (whatever
 * their devices and strides), then compared element by element: integers
 * exactly, bools by their stored byte, floats by ulp.h's rule.  The report
 * keeps the largest absolute and ULP errors over finite pairs and the first
 * CT_REPORT_MISMATCHES mismatches with their multi-index and raw bits, which
 * is what one needs to tell a rounding slip from a wrong index.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clops_test.h"

ct_tol ct_tol_ulp(double ulp)
{
    ct_tol t = {ulp, 0.0, false};
    return t;
}

ct_tol ct_tol_ulp_atol(double ulp, double atol)
{
    ct_tol t = {ulp, atol, false};
    return t;
}

char *ct_format_index(char *buf, size_t cap, int ndim, const int64_t *sizes, int64_t linear)
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
static void note_mismatch(ct_report *rep, clops_dtype dt, int ndim, const int64_t *sizes,
                          int64_t i, const void *actual, const void *expected)
{
    size_t es = clops_dtype_size(dt);
    char idx[CLOPS_MAX_DIMS * 22 + 4], line[1024];
    ct_format_index(idx, sizeof idx, ndim, sizes, i);
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
        snprintf(line, sizeof line, "\n  at %s: got byte %u expected byte %u", idx,
                 (unsigned)ab, (unsigned)eb);
    } else {
        snprintf(line, sizeof line, "\n  at %s: got %" PRId64 " expected %" PRId64, idx,
                 pw_ref_load(actual, i, dt, CLOPS_INT64).i,
                 pw_ref_load(expected, i, dt, CLOPS_INT64).i);
    }
    size_t len = strlen(rep->detail);
    snprintf(rep->detail + len, sizeof rep->detail - len, "%s", line);
}

bool ct_compare_host(const void *actual, const void *expected, clops_dtype dt, int ndim,
                     const int64_t *sizes, ct_tol tol, ct_report *rep)
{
    ct_report local;
    if (!rep)
        rep = &local;
    memset(rep, 0, sizeof *rep);
    int64_t n = ct_numel(ndim, sizes);
    rep->numel = n;
    bool is_float = clops_dtype_is_floating(dt);
    for (int64_t i = 0; i < n; i++) {
        bool ok;
        if (is_float) {
            double a = pw_ref_load(actual, i, dt, CLOPS_FLOAT64).f;
            double e = pw_ref_load(expected, i, dt, CLOPS_FLOAT64).f;
            ok = ulp_close(dt, a, e, &tol);
            if (isfinite(a) && isfinite(e)) {
                double abs_err = fabs(a - e), u = ulp_error(dt, a, e);
                if (abs_err > rep->max_abs_err)
                    rep->max_abs_err = abs_err;
                if (u > rep->max_ulp_err)
                    rep->max_ulp_err = u;
            }
        } else if (dt == CLOPS_BOOL) {
            ok = ((const uint8_t *)actual)[i] == ((const uint8_t *)expected)[i];
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
        if (rep->mismatches < CT_REPORT_MISMATCHES)
            note_mismatch(rep, dt, ndim, sizes, i, actual, expected);
        rep->mismatches++;
    }
    return rep->mismatches == 0;
}

bool ct_compare(const clops_tensor *actual, const clops_tensor *expected, ct_tol tol,
                ct_report *rep)
{
    ct_report local;
    if (!rep)
        rep = &local;
    memset(rep, 0, sizeof *rep);
    clops_dtype dt = clops_tensor_dtype(actual);
    int ndim = clops_tensor_ndim(actual);
    bool same_shape = ndim == clops_tensor_ndim(expected) &&
                      (ndim == 0 || memcmp(clops_tensor_sizes(actual), clops_tensor_sizes(expected),
                                           sizeof(int64_t) * (size_t)ndim) == 0);
    if (dt != clops_tensor_dtype(expected) || !same_shape) {
        char a[600], e[600];
        snprintf(rep->detail, sizeof rep->detail, "\n  got %s, expected %s",
                 clops_tensor_describe(actual, a, sizeof a),
                 clops_tensor_describe(expected, e, sizeof e));
        rep->mismatches = 1;
        return false;
    }
    void *ha = ct_to_host(actual);
    void *he = ct_to_host(expected);
    bool ok = ct_compare_host(ha, he, dt, ndim, clops_tensor_sizes(actual), tol, rep);
    free(ha);
    free(he);
    return ok;
}

/* Fails with the report. */
static void report_failure(const ct_report *rep, clops_dtype dt, int ndim, const int64_t *sizes,
                           ct_tol tol, const char *file, int line)
{
    char shape[CLOPS_MAX_DIMS * 22 + 4];
    ct_fail_at(file, line,
               "%lld of %lld elements of %s%s differ (tolerance %g ULP, atol %g%s); max abs "
               "error %.3g, max ULP error %.3g:%s",
               (long long)rep->mismatches, (long long)rep->numel, clops_dtype_name(dt),
               clops__fmt_shape(shape, sizeof shape, ndim, sizes), tol.ulp, tol.atol,
               tol.signed_zero ? ", signed zeros" : "", rep->max_abs_err, rep->max_ulp_err,
               rep->detail);
}

void ct_assert_close_at(const clops_tensor *actual, const clops_tensor *expected, ct_tol tol,
                        const char *file, int line)
{
    ct_report rep;
    if (ct_compare(actual, expected, tol, &rep))
        return;
    report_failure(&rep, clops_tensor_dtype(actual), clops_tensor_ndim(actual),
                   clops_tensor_sizes(actual), tol, file, line);
}

void ct_assert_close_host_at(const void *actual, const void *expected, clops_dtype dt, int ndim,
                             const int64_t *sizes, ct_tol tol, const char *file, int line)
{
    ct_report rep;
    if (ct_compare_host(actual, expected, dt, ndim, sizes, tol, &rep))
        return;
    report_failure(&rep, dt, ndim, sizes, tol, file, line);
}
