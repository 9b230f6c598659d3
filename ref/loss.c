/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ref/loss.c: the CPU reference of the loss family (nll_loss and
 * nll_loss2d, forward and backward; ops/loss.h): direct loops over the
 * canonical problem planned by ops/loss_nll.c, in double, elements in
 * order.  The CPU key runs it and the tests use it as the oracle.  The
 * formulas are PyTorch's: loss -w[t] * x[n, t, s], ignored targets count
 * neither loss nor weight, mean divides by the total weight (0 / 0 = NaN
 * when every target is ignored), the backward writes -(g / total_weight)
 * * w[t] (mean) or -g * w[t] at the target and 0 elsewhere.
 */
#include <string.h>

#include "codegen_pointwise/pw.h"
#include "ops/loss.h"

/* Element i of contiguous host tensor t as a double. */
static double ld(const clops_tensor *t, int64_t i)
{
    return pw_ref_load(t->storage->host_ptr, t->offset + i, t->dtype, CLOPS_FLOAT64).f;
}

/* Stores v into element i of contiguous host tensor t. */
static void st(clops_tensor *t, int64_t i, double v)
{
    pw_value pv = {.f = v};
    pw_ref_store(t->storage->host_ptr, t->offset + i, t->dtype, CLOPS_FLOAT64, pv);
}

/* Target of element i, checked: 1 counted, 0 ignored, error on range. */
static clops_status target_of(const loss_nll *p, int64_t i, int64_t *tg, bool *use)
{
    *tg = ((const int64_t *)p->t->storage->host_ptr)[p->t->offset + i];
    *use = false;
    if (*tg == p->ignore)
        return CLOPS_OK;
    if (*tg < 0 || *tg >= p->C)
        return loss_target_error(p->op, *tg, p->C);
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
