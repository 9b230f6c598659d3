/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ref/scan.c: the CPU reference of the scan family (cumsum, cumprod,
 * cummax/cummin with indices, logcumsumexp): the CPU device's kernels and
 * the oracle the OpenCL kernels are tested against.
 *
 * Each line along `dim` is scanned sequentially, as PyTorch's CPU kernels
 * do: floating results accumulate in double, integer ones in int64 with
 * two's complement wrap-around (then narrowed to the result dtype on
 * store, as a cast would).  Any strides, any dtypes.
 */
#include <math.h>
#include <string.h>

#include "ref/ref.h"
#include "ref/ref_scan.h"

/* PyTorch's _log_add_exp_helper: log(exp(x) + exp(y)) without overflow,
 * NaN propagating, -inf the identity and equal infinities kept. */
static double log_add_exp(double x, double y)
{
    double mn = isnan(y) ? y : fmin(x, y);
    double mx = isnan(y) ? y : fmax(x, y);
    if (isnan(x)) {
        mn = x;
        mx = x;
    }
    if (mn != mx || isfinite(mn))
        return mx + log1p(exp(mn - mx));
    return x;
}

/* Whether (later) value b replaces the running value a of cummax/cummin:
 * NaN wins, then ties go to the later element (PyTorch's >= / <=). */
static bool pick_later(scan_op kind, bool fl, ref_value a, ref_value b)
{
    if (fl) {
        if (isnan(b.f))
            return true;
        if (isnan(a.f))
            return false;
        return kind == SCAN_MAX ? b.f >= a.f : b.f <= a.f;
    }
    return kind == SCAN_MAX ? b.i >= a.i : b.i <= a.i;
}

clops_status ref_scan(scan_op kind, const clops_tensor *src, int dim, clops_tensor *dst,
                      clops_tensor *idx)
{
    int64_t numel = tensor_numel(src);
    if (numel == 0)
        return CLOPS_OK;
    int nd = src->ndim;
    int64_t n = nd ? src->sizes[dim] : 1;
    int64_t sn = nd ? src->strides[dim] : 0, dn = nd ? dst->strides[dim] : 0;
    int64_t xn = (idx && nd) ? idx->strides[dim] : 0;
    clops_dtype out_dt = dst->dtype;
    bool fl = clops_dtype_is_floating(out_dt);
    clops_dtype compute = fl ? CLOPS_FLOAT64 : CLOPS_INT64;
    const void *sb = src->storage->host_ptr;
    void *db = dst->storage->host_ptr;
    int64_t *xb = idx ? (int64_t *)idx->storage->host_ptr : NULL;
    int64_t pos[CLOPS_MAX_DIMS];
    memset(pos, 0, sizeof pos);
    for (int64_t line = 0, lines = numel / n; line < lines; line++) {
        int64_t so = ref_line_offset(src, pos), d0 = ref_line_offset(dst, pos),
                x0 = ref_line_offset(idx, pos);
        ref_value acc = {0};
        int64_t at = -1;
        for (int64_t k = 0; k < n; k++) {
            ref_value v = ref_load(sb, so + k * sn, src->dtype, compute);
            switch (kind) {
            case SCAN_SUM:
                if (fl)
                    acc.f = k ? acc.f + v.f : 0.0 + v.f;
                else
                    acc.i = (int64_t)((uint64_t)acc.i + (uint64_t)v.i);
                break;
            case SCAN_PROD:
                if (fl)
                    acc.f = k ? acc.f * v.f : 1.0 * v.f;
                else
                    acc.i = k ? (int64_t)((uint64_t)acc.i * (uint64_t)v.i) : v.i;
                break;
            case SCAN_LOGSUMEXP:
                acc.f = k ? log_add_exp(acc.f, v.f) : log_add_exp(-INFINITY, v.f);
                break;
            default: /* SCAN_MAX, SCAN_MIN */
                if (k == 0 || pick_later(kind, fl, acc, v)) {
                    acc = v;
                    at = k;
                }
                break;
            }
            ref_store(db, d0 + k * dn, out_dt, compute, acc);
            if (xb && (kind == SCAN_MAX || kind == SCAN_MIN))
                xb[x0 + k * xn] = at;
        }
        ref_next_line(pos, src->sizes, nd, dim);
    }
    return CLOPS_OK;
}
