/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ref/norm.c: the CPU reference of the normalization family (softmax,
 * log_softmax and their backward ops, layer and rms norm, the batch-norm
 * statistics): the CPU key runs it and the tests use it as the oracle.
 * Every row is computed in double with PyTorch's own formula, so NaN and
 * infinities behave as PyTorch's do (a row with +inf or only -inf gives
 * NaN).
 */
#include <math.h>

#include "ref/ref.h"
#include "ref/ref_norm.h"

/* Element i of contiguous host tensor t as a double. */
static double ld(const clops_tensor *t, int64_t i)
{
    return ref_load(t->storage->host_ptr, t->offset + i, t->dtype, CLOPS_FLOAT64).f;
}

/* Stores v into element i of contiguous host tensor t. */
static void st(clops_tensor *t, int64_t i, double v)
{
    ref_value pv = {.f = v};
    ref_store(t->storage->host_ptr, t->offset + i, t->dtype, CLOPS_FLOAT64, pv);
}

clops_status norm_ref_softmax(const clops_tensor *x, clops_tensor *y, int64_t rows, int64_t n,
                              int64_t inner, bool logm)
{
    for (int64_t r = 0; r < rows; r++) {
        int64_t base = (r / inner) * n * inner + r % inner;
        double m = -INFINITY, s = 0;
        for (int64_t j = 0; j < n; j++) {
            double v = ld(x, base + j * inner);
            if (isnan(v) || v > m)
                m = isnan(m) ? m : v;
        }
        for (int64_t j = 0; j < n; j++)
            s += exp(ld(x, base + j * inner) - m);
        for (int64_t j = 0; j < n; j++) {
            double v = ld(x, base + j * inner) - m;
            st(y, base + j * inner, logm ? v - log(s) : exp(v) / s);
        }
    }
    return CLOPS_OK;
}

clops_status norm_ref_softmax_backward(const clops_tensor *g, const clops_tensor *y,
                                       clops_tensor *out, int64_t rows, int64_t n, int64_t inner,
                                       bool logm)
{
    for (int64_t r = 0; r < rows; r++) {
        int64_t base = (r / inner) * n * inner + r % inner;
        double acc = 0;
        for (int64_t j = 0; j < n; j++) {
            int64_t i = base + j * inner;
            acc += logm ? ld(g, i) : ld(g, i) * ld(y, i);
        }
        for (int64_t j = 0; j < n; j++) {
            int64_t i = base + j * inner;
            double gv = ld(g, i), yv = ld(y, i);
            st(out, i, logm ? gv - exp(yv) * acc : yv * (gv - acc));
        }
    }
    return CLOPS_OK;
}

clops_status norm_ref_layer(const clops_tensor *x, const clops_tensor *w, const clops_tensor *b,
                            clops_tensor *y, clops_tensor *mean, clops_tensor *rstd, int64_t rows,
                            int64_t n, double eps, bool rms)
{
    for (int64_t r = 0; r < rows; r++) {
        double s = 0, s2 = 0;
        for (int64_t j = 0; j < n; j++)
            s += ld(x, r * n + j);
        double m = rms ? 0 : s / (double)n;
        for (int64_t j = 0; j < n; j++) {
            double d = ld(x, r * n + j) - m;
            s2 += d * d;
        }
        double rs = 1.0 / sqrt(s2 / (double)n + eps);
        if (mean)
            st(mean, r, m);
        if (rstd)
            st(rstd, r, rs);
        for (int64_t j = 0; j < n; j++) {
            double v = (ld(x, r * n + j) - m) * rs;
            if (w)
                v *= ld(w, j);
            if (b)
                v += ld(b, j);
            st(y, r * n + j, v);
        }
    }
    return CLOPS_OK;
}

clops_status norm_ref_batch_stats(const clops_tensor *x, clops_tensor *mean, clops_tensor *var,
                                  int64_t N, int64_t C, int64_t S)
{
    double n = (double)(N * S);
    for (int64_t c = 0; c < C; c++) {
        double s = 0, s2 = 0;
        for (int64_t i = 0; i < N; i++)
            for (int64_t j = 0; j < S; j++)
                s += ld(x, (i * C + c) * S + j);
        double m = s / n;
        for (int64_t i = 0; i < N; i++)
            for (int64_t j = 0; j < S; j++) {
                double d = ld(x, (i * C + c) * S + j) - m;
                s2 += d * d;
            }
        st(mean, c, m);
        st(var, c, s2 / n);
    }
    return CLOPS_OK;
}
