/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ref/attention.c: the CPU reference of fused attention (ref/ref_attention.h),
 * straight from the definition: for each (b, h, i) the full row of scores
 * in float64, its softmax, the dropout words from the shared Philox source
 * (ref/random_math.clh, the file the OpenCL kernels use), and the products
 * in float64; results are rounded once into their dtype.  The backward
 * forms the full probability matrix of one (b, h) and applies the chain
 * rule: dV = Pd^T dO, dP = (dO V^T) * z, dS = P * (dP - rowsum(P * dP)),
 * dQ = scale dS K, dK = scale dS^T Q, and dS summed over the dims an
 * additive mask broadcasts (the mask's gradient); key/value heads
 * shared by a group of query heads (GQA) sum their group's contributions.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ref/ref.h"
#include "ref/ref_attention.h"

#include "ref/random_math.clh"

uint64_t attn_dropout_counters(const attn_problem *p)
{
    uint64_t n = (uint64_t)p->B * (uint64_t)p->Hq * (uint64_t)p->L * (uint64_t)p->S;
    return (n + 3) / 4;
}

/* Element [b, h, r, c] of view v as a double. */
static double ld(const attn_view *v, int64_t b, int64_t h, int64_t r, int64_t c)
{
    const clops_tensor *t = v->t;
    int64_t i = t->offset + b * v->st[0] + h * v->st[1] + r * v->st[2] + c * v->st[3];
    return ref_load(t->storage->host_ptr, i, t->dtype, CLOPS_FLOAT64).f;
}

static void st(const attn_view *v, int64_t b, int64_t h, int64_t r, int64_t c, double x)
{
    const clops_tensor *t = v->t;
    int64_t i = t->offset + b * v->st[0] + h * v->st[1] + r * v->st[2] + c * v->st[3];
    ref_value pv = {.f = x};
    ref_store(t->storage->host_ptr, i, t->dtype, CLOPS_FLOAT64, pv);
}

/* The score s[b, h, i, j] with mask and causality applied. */
static double score(const attn_problem *p, int64_t b, int64_t h, int64_t i, int64_t j)
{
    if (p->causal && j > i + p->causal_off)
        return -INFINITY;
    if (p->mask_kind == ATTN_MASK_BOOL && ld(&p->mask, b, h, i, j) == 0.0)
        return -INFINITY;
    int64_t hk = h / (p->Hq / p->Hkv);
    double s = 0;
    for (int64_t e = 0; e < p->E; e++)
        s += ld(&p->q, b, h, i, e) * ld(&p->k, b, hk, j, e);
    s *= p->scale;
    if (p->mask_kind == ATTN_MASK_ADD)
        s += ld(&p->mask, b, h, i, j);
    return s;
}

/* The dropout factor of probability [b, h, i, j]: 0 or drop_scale (1
 * without dropout). */
static double keep(const attn_problem *p, int64_t b, int64_t h, int64_t i, int64_t j)
{
    if (!(p->dropout_p > 0))
        return 1.0;
    uint64_t n = (((uint64_t)b * (uint64_t)p->Hq + (uint64_t)h) * (uint64_t)p->L + (uint64_t)i) *
                     (uint64_t)p->S +
                 (uint64_t)j;
    rnd_u32 w[4];
    rnd_philox(p->offset + n / 4, (rnd_u32)p->seed, (rnd_u32)(p->seed >> 32), w);
    return (uint64_t)w[n % 4] >= p->thr ? (double)p->drop_scale : 0.0;
}

/* Row i of the probabilities of (b, h) into prob[0..S): softmax of the
 * scores; *lse the row's logsumexp (-inf and zeros when every position is
 * masked). */
static void row_probs(const attn_problem *p, int64_t b, int64_t h, int64_t i, double *prob,
                      double *lse)
{
    double m = -INFINITY;
    bool nan = false;
    for (int64_t j = 0; j < p->S; j++) {
        prob[j] = score(p, b, h, i, j);
        if (isnan(prob[j]))
            nan = true;
        else if (prob[j] > m)
            m = prob[j];
    }
    if (m == -INFINITY && !nan) {
        for (int64_t j = 0; j < p->S; j++)
            prob[j] = 0;
        *lse = -INFINITY;
        return;
    }
    double l = 0;
    for (int64_t j = 0; j < p->S; j++) {
        prob[j] = exp(prob[j] - m);
        l += prob[j];
    }
    for (int64_t j = 0; j < p->S; j++)
        prob[j] /= l;
    *lse = m + log(l);
}

clops_status ref_attention_forward(const attn_problem *p)
{
    if (p->S > 0 && (uint64_t)p->S > SIZE_MAX / sizeof(double))
        return clops__fail(CLOPS_OUT_OF_MEMORY, "%s: a row of %lld scores is too large", p->op,
                           (long long)p->S);
    double *prob = malloc((size_t)(p->S > 0 ? p->S : 1) * sizeof(double));
    if (!prob)
        return clops__fail(CLOPS_OUT_OF_MEMORY, "%s: no host memory for a row of %lld scores",
                           p->op, (long long)p->S);
    float *lse = p->lse ? (float *)p->lse->storage->host_ptr + p->lse->offset : NULL;
    int64_t hg = p->Hq / p->Hkv;
    for (int64_t b = 0; b < p->B; b++)
        for (int64_t h = 0; h < p->Hq; h++)
            for (int64_t i = 0; i < p->L; i++) {
                double l;
                row_probs(p, b, h, i, prob, &l);
                for (int64_t j = 0; j < p->S; j++)
                    prob[j] *= keep(p, b, h, i, j);
                for (int64_t c = 0; c < p->Ev; c++) {
                    double o = 0;
                    for (int64_t j = 0; j < p->S; j++)
                        o += prob[j] * ld(&p->v, b, h / hg, j, c);
                    st(&p->out, b, h, i, c, o);
                }
                if (lse)
                    lse[(b * p->Hq + h) * p->L + i] = (float)l;
            }
    free(prob);
    return CLOPS_OK;
}

clops_status ref_attention_backward(const attn_problem *p)
{
    int64_t hg = p->Hq / p->Hkv;
    size_t ls = 0, kd = 0;
    bool big = (uint64_t)p->L * (uint64_t)p->S > SIZE_MAX / (3 * sizeof(double)) ||
               (uint64_t)p->S * (uint64_t)(p->E + p->Ev) > SIZE_MAX / sizeof(double);
    if (!big) {
        ls = (size_t)(p->L * p->S);
        kd = (size_t)(p->S * (p->E + p->Ev));
    }
    double *P = big ? NULL : malloc((3 * ls + kd + 1) * sizeof(double));
    if (!P)
        return clops__fail(CLOPS_OUT_OF_MEMORY,
                           "%s: no host memory for the %lld x %lld probabilities", p->op,
                           (long long)p->L, (long long)p->S);
    double *Z = P + ls, *dS = Z + ls, *acc = dS + ls; /* acc: dK [S, E] then dV [S, Ev] */
    /* The mask's gradient [mB, mH, mL, mS] (ref_attention.h), summed in
     * float64 in (b, h, i, j) order, rounded once at the end. */
    const int64_t *mz = p->ds ? p->ds->sizes : NULL;
    size_t mn = 0;
    double *M = NULL;
    if (p->ds) {
        mn = (size_t)(mz[0] * mz[1] * mz[2] * mz[3]);
        M = calloc(mn ? mn : 1, sizeof(double));
        if (!M) {
            free(P);
            return clops__fail(CLOPS_OUT_OF_MEMORY,
                               "%s: no host memory for the mask's gradient (%zu elements)", p->op,
                               mn);
        }
    }
    for (int64_t b = 0; b < p->B; b++)
        for (int64_t hk = 0; hk < p->Hkv; hk++) {
            memset(acc, 0, kd * sizeof(double));
            for (int64_t h = hk * hg; h < (hk + 1) * hg; h++) {
                for (int64_t i = 0; i < p->L; i++) {
                    double l;
                    row_probs(p, b, h, i, P + i * p->S, &l);
                    double D = 0;
                    for (int64_t j = 0; j < p->S; j++) {
                        Z[i * p->S + j] = keep(p, b, h, i, j);
                        double dp = 0;
                        for (int64_t c = 0; c < p->Ev; c++)
                            dp += ld(&p->go, b, h, i, c) * ld(&p->v, b, hk, j, c);
                        dS[i * p->S + j] = dp * Z[i * p->S + j];
                        D += P[i * p->S + j] * dS[i * p->S + j];
                    }
                    for (int64_t j = 0; j < p->S; j++)
                        dS[i * p->S + j] = P[i * p->S + j] * (dS[i * p->S + j] - D);
                    if (M) {
                        int64_t row = (((mz[0] == 1 ? 0 : b) * mz[1] + (mz[1] == 1 ? 0 : h)) *
                                           mz[2] +
                                       (mz[2] == 1 ? 0 : i)) *
                                      mz[3];
                        for (int64_t j = 0; j < p->S; j++)
                            M[row + (mz[3] == 1 ? 0 : j)] += dS[i * p->S + j];
                    }
                    for (int64_t e = 0; e < p->E; e++) {
                        double g = 0;
                        for (int64_t j = 0; j < p->S; j++)
                            g += dS[i * p->S + j] * ld(&p->k, b, hk, j, e);
                        st(&p->gq, b, h, i, e, g * p->scale);
                    }
                }
                for (int64_t j = 0; j < p->S; j++) {
                    for (int64_t e = 0; e < p->E; e++) {
                        double g = 0;
                        for (int64_t i = 0; i < p->L; i++)
                            g += dS[i * p->S + j] * ld(&p->q, b, h, i, e);
                        acc[j * p->E + e] += g * p->scale;
                    }
                    for (int64_t c = 0; c < p->Ev; c++) {
                        double g = 0;
                        for (int64_t i = 0; i < p->L; i++)
                            g += P[i * p->S + j] * Z[i * p->S + j] * ld(&p->go, b, h, i, c);
                        acc[p->S * p->E + j * p->Ev + c] += g;
                    }
                }
            }
            for (int64_t j = 0; j < p->S; j++) {
                for (int64_t e = 0; e < p->E; e++)
                    st(&p->gk, b, hk, j, e, acc[j * p->E + e]);
                for (int64_t c = 0; c < p->Ev; c++)
                    st(&p->gv, b, hk, j, c, acc[p->S * p->E + j * p->Ev + c]);
            }
        }
    if (M) {
        float *o = (float *)p->ds->storage->host_ptr + p->ds->offset;
        for (size_t x = 0; x < mn; x++)
            o[x] = (float)M[x];
    }
    free(M);
    free(P);
    return CLOPS_OK;
}
