/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/support/ct_compare.c: elementwise comparison of a result with its
 * reference, and the failure report.
 *
 * Both tensors are brought to host memory in row-major order (whatever
 * their devices and strides), then compared element by element by the
 * check engine's comparison (tools/check/check_compare.c, the one `clops
 * check` uses): integers exactly, bools by their stored byte, floats by
 * ulp.h's rule.  The report keeps the largest absolute and ULP errors over
 * finite pairs and the first CT_REPORT_MISMATCHES mismatches with their
 * multi-index and raw bits.
 */
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
    return chk_format_index(buf, cap, ndim, sizes, linear);
}

bool ct_compare_host(const void *actual, const void *expected, clops_dtype dt, int ndim,
                     const int64_t *sizes, ct_tol tol, ct_report *rep)
{
    return chk_compare_host(actual, expected, dt, ndim, sizes, &tol, rep);
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
