/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ref/conv.c: the CPU reference of the convolution family: the three
 * products of a convolution geometry (ref/ref_conv.h: to small, to big, to
 * weight) as direct loops over every (sample, group, small channel, small
 * position, big channel, kernel position) connection, and im2col/col2im.
 * Everything is read into double arrays, computed in double in a fixed
 * order and rounded once on the way out, so the CPU device (and the tests,
 * which use it as the oracle) gets the obvious result with no GEMM or
 * column buffer involved.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ref/ref.h"
#include "ref/ref_conv.h"

/* Sizes and strides of an image ([N, C, sp...]) or weight ([Cs, Cb/g,
 * k...]) tensor t seen as 5-D, the missing spatial dims in front as size 1
 * with stride 0. */
static void as5(const clops_tensor *t, int nsp, int64_t *sz, int64_t *st)
{
    for (int i = 0; i < 2; i++) {
        sz[i] = t->sizes[i];
        st[i] = t->strides[i];
    }
    for (int i = 0; i < CONV_SP; i++) {
        int src = i - (CONV_SP - nsp);
        sz[2 + i] = src < 0 ? 1 : t->sizes[2 + src];
        st[2 + i] = src < 0 ? 0 : t->strides[2 + src];
    }
}

/* Storage index of 5-D coordinate c. */
static int64_t at5(const clops_tensor *t, const int64_t *st, const int64_t *c)
{
    return t->offset + c[0] * st[0] + c[1] * st[1] + c[2] * st[2] + c[3] * st[3] + c[4] * st[4];
}

/* Number of elements of 5-D sizes sz. */
static int64_t numel5(const int64_t *sz)
{
    return sz[0] * sz[1] * sz[2] * sz[3] * sz[4];
}

/* Walks every 5-D coordinate of sz in row-major order: loads t into the
 * contiguous double array a (load true) or stores a into t. */
static void walk5(clops_tensor *t, int nsp, double *a, bool load)
{
    int64_t sz[5], st[5], c[5];
    as5(t, nsp, sz, st);
    int64_t n = numel5(sz);
    for (int64_t i = 0; i < n; i++) {
        int64_t r = i;
        for (int d = 4; d >= 0; d--) {
            c[d] = r % sz[d];
            r /= sz[d];
        }
        int64_t idx = at5(t, st, c);
        if (load) {
            a[i] = ref_load(t->storage->host_ptr, idx, t->dtype, CLOPS_FLOAT64).f;
        } else {
            ref_value v = {.f = a[i]};
            ref_store(t->storage->host_ptr, idx, t->dtype, CLOPS_FLOAT64, v);
        }
    }
}

/* A new double array holding t (zeros when load is false); NULL when out of
 * memory. */
static double *doubles_of(clops_tensor *t, int nsp, bool load)
{
    int64_t sz[5], st[5];
    as5(t, nsp, sz, st);
    int64_t n = numel5(sz);
    double *a = calloc((size_t)(n ? n : 1), sizeof(double));
    if (a && load)
        walk5(t, nsp, a, true);
    return a;
}

/* The big coordinate of small position o and kernel position j in spatial
 * dim i of g (padded dims: index 2 + i of 5-D coordinates); false when it
 * falls into the padding. */
static bool big_of(const conv_geom *g, int i, int64_t o, int64_t j, int64_t *b)
{
    *b = o * g->s[i] - g->p[i] + j * g->d[i];
    return *b >= 0 && *b < g->big[i];
}

/* Whether t has 2 + nsp dims of sizes (a, b, sp[CONV_SP - nsp ..]). */
static bool shaped(const clops_tensor *t, int nsp, int64_t a, int64_t b, const int64_t *sp)
{
    if (!t || t->ndim != 2 + nsp || t->sizes[0] != a || t->sizes[1] != b)
        return false;
    for (int i = 0; i < nsp; i++)
        if (t->sizes[2 + i] != sp[CONV_SP - nsp + i])
            return false;
    return true;
}

/*
 * Checks g against the convolution's own rules, independently of the
 * family that made it: the padded leading dims are neutral, the last
 * window of every spatial dim, (small - 1) * s + d(k - 1) + 1 wide, fits
 * in the padded big extent big + 2p (a transposed convolution's output
 * padding only adds room), the products agree, and the tensors given
 * (NULL: not checked) have g's shapes.
 */
static clops_status geom_check(const char *what, const conv_geom *g, const clops_tensor *S,
                               const clops_tensor *B, const clops_tensor *W)
{
    bool ok = g->nsp >= 1 && g->nsp <= CONV_SP && g->groups >= 1 && g->Cs % g->groups == 0 &&
              g->Cb % g->groups == 0;
    int64_t K = 1, Lb = 1, Ls = 1;
    for (int i = 0; ok && i < CONV_SP; i++) {
        bool lead = i < CONV_SP - g->nsp;
        if (lead)
            ok = g->big[i] == 1 && g->small[i] == 1 && g->k[i] == 1 && g->s[i] == 1 &&
                 g->p[i] == 0 && g->d[i] == 1;
        else
            ok = g->s[i] >= 1 && g->d[i] >= 1 && g->p[i] >= 0 && g->k[i] >= 1 &&
                 g->small[i] >= 0 &&
                 (g->small[i] == 0 || (g->small[i] - 1) * g->s[i] + g->d[i] * (g->k[i] - 1) + 1 <=
                                          g->big[i] + 2 * g->p[i]);
        K *= g->k[i];
        Lb *= g->big[i];
        Ls *= g->small[i];
    }
    ok = ok && K == g->K && Lb == g->Lb && Ls == g->Ls;
    ok = ok && (!S || shaped(S, g->nsp, g->N, g->Cs, g->small)) &&
         (!B || shaped(B, g->nsp, g->N, g->Cb, g->big)) &&
         (!W || shaped(W, g->nsp, g->Cs, g->Cb / g->groups, g->k));
    if (!ok)
        return clops__fail(CLOPS_INTERNAL,
                           "convolution reference (%s): the geometry disagrees with the "
                           "convolution's rules or with its tensors' shapes",
                           what);
    return CLOPS_OK;
}

double conv_ref_act(double x, int act)
{
    switch (act) {
    case 1: /* relu (NaN stays NaN) */
        return x < 0 ? 0 : x;
    case 2: /* relu6: hardtanh(0, 6) */
        return x < 0 ? 0 : x > 6 ? 6 : x;
    case 3: /* hardswish: x * relu6(x + 3) / 6 */
        return x * conv_ref_act(x + 3, 2) / 6;
    case 4: /* silu */
        return x / (1 + exp(-x));
    case 5: /* gelu (erf) */
        return 0.5 * x * (1 + erf(x * 0.70710678118654752440));
    case 6: /* gelu, tanh approximation */
        return 0.5 * x * (1 + tanh(0.79788456080286535588 * (x + 0.044715 * x * x * x)));
    case 7: /* sigmoid */
        return 1 / (1 + exp(-x));
    case 8: /* hardsigmoid: relu6(x + 3) / 6 */
        return conv_ref_act(x + 3, 2) / 6;
    default:
        return x;
    }
}

/* Element c of 1-D host tensor t in double; dflt when t is NULL. */
static double vec_at(const clops_tensor *t, int64_t c, double dflt)
{
    if (!t)
        return dflt;
    return ref_load(t->storage->host_ptr, t->offset + c * t->strides[0], t->dtype,
                    CLOPS_FLOAT64)
        .f;
}

/* Applies epilogue e to the destination's doubles y [N, C, L] (L positions
 * per channel); res the residual's doubles (laid out as y) or NULL. */
static void apply_epi(const conv_ref_epi *e, double *y, const double *res, int64_t N, int64_t C,
                      int64_t L)
{
    for (int64_t c = 0; c < C; c++) {
        double b = vec_at(e->bias, c, 0);
        double s = vec_at(e->scale, c, 1);
        if (e->var)
            s = s / sqrt(vec_at(e->var, c, 1) + e->eps);
        double t = vec_at(e->shift, c, 0) - vec_at(e->mean, c, 0) * s;
        for (int64_t n = 0; n < N; n++)
            for (int64_t o = 0; o < L; o++) {
                int64_t i = (n * C + c) * L + o;
                double v = (y[i] + b) * s + t;
                if (res && !e->residual_after)
                    v += res[i];
                v = conv_ref_act(v, e->act);
                if (res && e->residual_after)
                    v += res[i];
                y[i] = v;
            }
    }
}

clops_status conv_ref_product(const conv_geom *g, conv_dir dir, clops_tensor *S, clops_tensor *B,
                              clops_tensor *W)
{
    return conv_ref_product_epi(g, dir, S, B, W, NULL);
}

clops_status conv_ref_product_epi(const conv_geom *g, conv_dir dir, clops_tensor *S,
                                  clops_tensor *B, clops_tensor *W, const conv_ref_epi *e)
{
    clops_status st = CLOPS_OK;
    if ((st = geom_check("product", g, S, B, W)))
        return st;
    if (e && dir == CONV_TO_WEIGHT)
        return clops__fail(CLOPS_INTERNAL, "convolution reference: a weight gradient takes no "
                                           "epilogue");
    int nsp = g->nsp;
    double *s = doubles_of(S, nsp, dir != CONV_TO_SMALL);
    double *b = doubles_of(B, nsp, dir != CONV_TO_BIG);
    double *w = doubles_of(W, nsp, dir != CONV_TO_WEIGHT);
    if (!s || !b || !w) {
        st = CLOPS__HOST_OOM("convolution reference arrays");
        goto done;
    }
    int64_t csg = g->Cs / g->groups, cbg = g->Cb / g->groups;
    for (int64_t n = 0; n < g->N; n++)
        for (int64_t grp = 0; grp < g->groups; grp++)
            for (int64_t csl = 0; csl < csg; csl++) {
                int64_t cs = grp * csg + csl;
                for (int64_t o = 0; o < g->Ls; o++) {
                    int64_t oc[3] = {o / (g->small[1] * g->small[2]),
                                     o / g->small[2] % g->small[1], o % g->small[2]};
                    int64_t si = (n * g->Cs + cs) * g->Ls + o;
                    for (int64_t cbl = 0; cbl < cbg; cbl++) {
                        int64_t cb = grp * cbg + cbl;
                        for (int64_t j = 0; j < g->K; j++) {
                            int64_t jc[3] = {j / (g->k[1] * g->k[2]), j / g->k[2] % g->k[1],
                                             j % g->k[2]};
                            int64_t bc[3];
                            if (!big_of(g, 0, oc[0], jc[0], &bc[0]) ||
                                !big_of(g, 1, oc[1], jc[1], &bc[1]) ||
                                !big_of(g, 2, oc[2], jc[2], &bc[2]))
                                continue;
                            int64_t bi = ((n * g->Cb + cb) * g->big[0] + bc[0]) * g->big[1] *
                                             g->big[2] +
                                         bc[1] * g->big[2] + bc[2];
                            int64_t wi = (cs * cbg + cbl) * g->K + j;
                            if (dir == CONV_TO_SMALL)
                                s[si] += b[bi] * w[wi];
                            else if (dir == CONV_TO_BIG)
                                b[bi] += s[si] * w[wi];
                            else
                                w[wi] += s[si] * b[bi];
                        }
                    }
                }
            }
    if (e) {
        clops_tensor *y = dir == CONV_TO_SMALL ? S : B;
        double *res = NULL;
        if (e->residual) {
            res = doubles_of((clops_tensor *)e->residual, nsp, true);
            if (!res) {
                st = CLOPS__HOST_OOM("convolution reference arrays");
                goto done;
            }
        }
        apply_epi(e, dir == CONV_TO_SMALL ? s : b, res, g->N, y->sizes[1],
                  dir == CONV_TO_SMALL ? g->Ls : g->Lb);
        free(res);
    }
    walk5(dir == CONV_TO_SMALL ? S : dir == CONV_TO_BIG ? B : W, nsp,
          dir == CONV_TO_SMALL ? s : dir == CONV_TO_BIG ? b : w, false);
done:
    free(s);
    free(b);
    free(w);
    return st;
}

/* Calls fn for every (n, c, j, o) of the columns of g whose big position is
 * inside the image: column element index ci, image element index bi (in
 * B's storage). */
#define CONV_REF_FOR_COLUMNS(g, B, l, body)                                                \
    do {                                                                                   \
        int64_t sz_[5], st_[5];                                                            \
        as5(B, (g)->nsp, sz_, st_);                                                        \
        for (int64_t n = 0; n < (g)->N; n++)                                               \
            for (int64_t c = 0; c < (g)->Cb; c++)                                          \
                for (int64_t j = 0; j < (g)->K; j++)                                       \
                    for (int64_t o = 0; o < (g)->Ls; o++) {                                \
                        int64_t co_[5] = {n, c, 0, 0, 0};                                  \
                        int64_t oc_[3] = {o / ((g)->small[1] * (g)->small[2]),             \
                                          o / (g)->small[2] % (g)->small[1],               \
                                          o % (g)->small[2]};                              \
                        int64_t jc_[3] = {j / ((g)->k[1] * (g)->k[2]),                     \
                                          j / (g)->k[2] % (g)->k[1], j % (g)->k[2]};       \
                        bool in_ = big_of(g, 0, oc_[0], jc_[0], &co_[2]) &&                \
                                   big_of(g, 1, oc_[1], jc_[1], &co_[3]) &&                \
                                   big_of(g, 2, oc_[2], jc_[2], &co_[4]);                  \
                        int64_t ci = (l).off + n * (l).sn + (c * (g)->K + j) * (l).sck + o; \
                        int64_t bi = in_ ? at5(B, st_, co_) : -1;                          \
                        body;                                                              \
                    }                                                                      \
    } while (0)

clops_status conv_ref_im2col(const conv_geom *g, const clops_tensor *B, clops_tensor *cols,
                             conv_cols l)
{
    clops_status st = geom_check("im2col", g, NULL, B, NULL);
    if (st)
        return st;
    const void *src = B->storage->host_ptr;
    void *dst = cols->storage->host_ptr;
    CONV_REF_FOR_COLUMNS(g, B, l, {
        ref_value v = {.f = 0};
        if (bi >= 0)
            v = ref_load(src, bi, B->dtype, CLOPS_FLOAT64);
        ref_store(dst, ci, cols->dtype, CLOPS_FLOAT64, v);
    });
    return CLOPS_OK;
}

clops_status conv_ref_col2im(const conv_geom *g, const clops_tensor *cols, conv_cols l,
                             clops_tensor *B)
{
    clops_status s = geom_check("col2im", g, NULL, B, NULL);
    if (s)
        return s;
    int64_t sz[5], st[5];
    as5(B, g->nsp, sz, st);
    int64_t n5 = numel5(sz);
    double *acc = calloc((size_t)(n5 ? n5 : 1), sizeof(double));
    if (!acc)
        return CLOPS__HOST_OOM("col2im reference array");
    const void *src = cols->storage->host_ptr;
    CONV_REF_FOR_COLUMNS(g, B, l, {
        if (bi >= 0) {
            int64_t lin = (((n * g->Cb + c) * g->big[0] + co_[2]) * g->big[1] + co_[3]) *
                              g->big[2] +
                          co_[4];
            acc[lin] += ref_load(src, ci, cols->dtype, CLOPS_FLOAT64).f;
        }
    });
    walk5(B, g->nsp, acc, false);
    free(acc);
    return CLOPS_OK;
}
