/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ref/loss.c: the CPU reference of the loss family (nll_loss and
 * nll_loss2d, forward and backward, and the elementwise losses): direct loops over the
 * canonical problem (ref/ref_loss.h), in double, elements in
 * order.  The CPU key runs it and the tests use it as the oracle.  The
 * formulas are PyTorch's: loss -w[t] * x[n, t, s], ignored targets count
 * neither loss nor weight, mean divides by the total weight (0 / 0 = NaN
 * when every target is ignored), the backward writes -(g / total_weight)
 * * w[t] (mean) or -g * w[t] at the target and 0 elsewhere.  The
 * elementwise losses (mse_loss, binary_cross_entropy, smooth_l1_loss,
 * huber_loss) loop over their broadcast operands with PyTorch's formulas
 * (docs/loss.md).
 */
#include <math.h>
#include <string.h>

#include "ref/ref.h"
#include "ref/ref_loss.h"

clops_status ref_loss_target_range_error(const char *op)
{
    return clops__fail(CLOPS_INVALID_ARGUMENT,
                       "%s: all elements of target should be between 0 and 1", op);
}

clops_status ref_loss_input_range_error(const char *op)
{
    return clops__fail(CLOPS_INVALID_ARGUMENT,
                       "%s: all elements of input should be between 0 and 1", op);
}

clops_status ref_loss_target_error(const char *op, int64_t v, int64_t C)
{
    return clops__fail(CLOPS_INDEX_OUT_OF_RANGE,
                       "%s: Target %lld is out of bounds (%lld classes).", op, (long long)v,
                       (long long)C);
}

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

/* Target of element i, checked: 1 counted, 0 ignored, error on range. */
static clops_status target_of(const loss_nll *p, int64_t i, int64_t *tg, bool *use)
{
    *tg = ((const int64_t *)p->t->storage->host_ptr)[p->t->offset + i];
    *use = false;
    if (*tg == p->ignore)
        return CLOPS_OK;
    if (*tg < 0 || *tg >= p->C)
        return ref_loss_target_error(p->op, *tg, p->C);
    *use = true;
    return CLOPS_OK;
}

clops_status loss_ref_nll_forward(const loss_nll *p, clops_tensor *out, clops_tensor *tw)
{
    int64_t M = p->N * p->S;
    double sum = 0, wsum = 0;
    for (int64_t i = 0; i < M; i++) {
        int64_t tg;
        bool use;
        clops_status s = target_of(p, i, &tg, &use);
        if (s)
            return s;
        double l = 0;
        if (use) {
            int64_t n = i / p->S, sp = i % p->S;
            double w = p->w ? ld(p->w, tg) : 1.0;
            l = -w * ld(p->x, (n * p->C + tg) * p->S + sp);
            sum += l;
            wsum += w;
        }
        if (p->per_elem)
            st(out, i, l);
    }
    if (!p->per_elem)
        st(out, 0, p->mean ? sum / wsum : sum);
    st(tw, 0, p->per_elem ? 0.0 : wsum);
    return CLOPS_OK;
}

clops_status loss_ref_nll_backward(const loss_nll *p, const clops_tensor *go,
                                   const clops_tensor *tw, clops_tensor *gi)
{
    int64_t M = p->N * p->S;
    int64_t total = M * p->C;
    for (int64_t j = 0; j < total; j++)
        st(gi, j, 0.0);
    for (int64_t i = 0; i < M; i++) {
        int64_t tg;
        bool use;
        clops_status s = target_of(p, i, &tg, &use);
        if (s)
            return s;
        if (!use)
            continue;
        double g = ld(go, p->per_elem ? i : 0);
        double grad = p->mean ? -(g / ld(tw, 0)) : -g;
        if (p->w)
            grad = ld(p->w, tg) * grad;
        int64_t n = i / p->S, sp = i % p->S;
        st(gi, (n * p->C + tg) * p->S + sp, grad);
    }
    return CLOPS_OK;
}

/* v rounded to dtype dt (float16 and bfloat16 only), as PyTorch's
 * arithmetic in those dtypes rounds intermediate results. */
static double rnd(clops_dtype dt, double v)
{
    if (dt != CLOPS_FLOAT16 && dt != CLOPS_BFLOAT16)
        return v;
    uint16_t b = 0;
    ref_value pv = {.f = v};
    ref_store(&b, 0, dt, CLOPS_FLOAT64, pv);
    return ref_load(&b, 0, dt, CLOPS_FLOAT64).f;
}

/* The loss of one element (PyTorch's formulas; ref/ref_loss.h). */
static double elem_loss(const loss_pw *p, double x, double y, int *bad)
{
    clops_dtype dt = p->x->dtype;
    switch (p->mode) {
    case LOSS_MSE: {
        double d = rnd(dt, x - y);
        return d * d;
    }
    case LOSS_BCE:
        if (!(x >= 0 && x <= 1))
            *bad |= 1;
        if (!(y >= 0 && y <= 1))
            *bad |= 2;
        return (y - 1) * fmax(log1p(-x), -100.0) - y * fmax(log(x), -100.0);
    case LOSS_SMOOTH_L1: {
        double z = fabs(x - y);
        return z < p->p ? 0.5 * z * z / p->p : z - 0.5 * p->p;
    }
    default: {
        double z = fabs(x - y);
        return z < p->p ? 0.5 * z * z : p->p * (z - 0.5 * p->p);
    }
    }
}

clops_status loss_ref_pw_forward(const loss_pw *p, clops_tensor *out)
{
    double sum = 0;
    int bad = 0; /* binary_cross_entropy: 1 an input, 2 a target outside [0, 1] */
    for (int64_t i = 0; i < p->M; i++) {
        clops_dtype dt = p->x->dtype;
        double l = rnd(dt, elem_loss(p, ld(p->x, i), ld(p->y, i), &bad));
        if (p->w)
            l = rnd(dt, l * ld(p->w, i));
        if (p->per_elem)
            st(out, i, l);
        else
            sum += l;
    }
    if (bad)
        return bad & 1 ? ref_loss_input_range_error(p->op) : ref_loss_target_range_error(p->op);
    if (!p->per_elem)
        st(out, 0, p->mean ? sum / (double)p->M : sum);
    return CLOPS_OK;
}

clops_status loss_ref_pw_backward(const loss_pw *p, const clops_tensor *go, double norm,
                                  clops_tensor *gi)
{
    for (int64_t i = 0; i < p->M; i++) {
        double x = ld(p->x, i), y = ld(p->y, i), g = ld(go, i), r;
        if (p->mode == LOSS_MSE) {
            r = norm * rnd(p->x->dtype, x - y) * g;
        } else if (p->mode == LOSS_BCE) {
            /* PyTorch's EPSILON (float 1e-12) in the input dtype: 0 for float16. */
            double eps = p->x->dtype == CLOPS_FLOAT16 ? 0 : (double)1e-12f;
            r = g * (x - y) / fmax((1 - x) * x, eps);
            if (p->w)
                r *= ld(p->w, i);
            r *= norm;
        } else {
            double d = x - y, s = p->mode == LOSS_SMOOTH_L1 ? 1.0 : p->p;
            if (d <= -p->p)
                r = -norm * g * s;
            else if (d >= p->p)
                r = norm * g * s;
            else
                r = p->mode == LOSS_SMOOTH_L1 ? norm * d * g / p->p : norm * d * g;
        }
        st(gi, i, r);
    }
    return CLOPS_OK;
}
