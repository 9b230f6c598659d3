/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ref/pool.c: the CPU reference of the pooling and resampling family
 * (ref/ref_pool.h): the CPU key runs it and the tests and `clops check` use it
 * as the oracle.  Direct loops over every output element in double with
 * PyTorch's CPU formulas (window bounds, divisors, NaN rule of max pooling,
 * area_pixel_compute_source_index, the cubic convolution with A = -0.75,
 * nearest indices in float); the backward ops scatter each output's
 * gradient into a zeroed double buffer over the input, as PyTorch's CPU
 * kernels do, which is independent of the gather order of the OpenCL
 * kernels.
 */
#include <math.h>
#include <stdlib.h>

#include "ref/ref.h"
#include "ref/ref_pool.h"

void pool_view5(const clops_tensor *t, int nsp, int64_t v[6])
{
    int lead = t->ndim - nsp; /* 1 (unbatched) or 2 */
    v[0] = t->offset;
    v[1] = lead == 2 ? t->strides[0] : 0;
    v[2] = t->strides[lead - 1];
    v[3] = nsp == 3 ? t->strides[lead] : 0;
    v[4] = t->strides[t->ndim - 2];
    v[5] = t->strides[t->ndim - 1];
}

/* A tensor seen as [N, C, D, H, W]. */
typedef struct view5 {
    const clops_tensor *t;
    int64_t v[6];
} view5;

/* Element offset of (n, c, z, y, x) in w. */
static int64_t at(const view5 *w, int64_t n, int64_t c, int64_t z, int64_t y, int64_t x)
{
    return w->v[0] + n * w->v[1] + c * w->v[2] + z * w->v[3] + y * w->v[4] + x * w->v[5];
}

/* Element i of w's storage as a double. */
static double ld(const view5 *w, int64_t i)
{
    return ref_load(w->t->storage->host_ptr, i, w->t->dtype, CLOPS_FLOAT64).f;
}

/* Stores v into element i of w's storage. */
static void st(const view5 *w, int64_t i, double v)
{
    ref_value pv = {.f = v};
    ref_store(w->t->storage->host_ptr, i, w->t->dtype, CLOPS_FLOAT64, pv);
}

/* The taps of output o along dim d: taps start + t * step for t < count,
 * (fixed windows: the kernel taps; adaptive: [floor(oI/O), ceil((o+1)I/O))). */
static void taps(const pool_geom *g, int d, int64_t o, int64_t *start, int64_t *step,
                 int64_t *count)
{
    int64_t I = g->in[d], O = g->out[d];
    if (g->adaptive) {
        *start = o * I / O;
        *step = 1;
        *count = ((o + 1) * I + O - 1) / O - *start;
    } else {
        *start = o * g->s[d] - g->p[d];
        *step = g->dil[d];
        *count = g->k[d];
    }
}

/* The clamped average window along dim d and its padded extent. */
static void avg_win(const pool_geom *g, int d, int64_t o, int64_t *lo, int64_t *hi, int64_t *full)
{
    int64_t s0, step, cnt;
    taps(g, d, o, &s0, &step, &cnt);
    int64_t e = g->adaptive ? s0 + cnt : s0 + g->k[d];
    if (!g->adaptive && e > g->in[d] + g->p[d])
        e = g->in[d] + g->p[d];
    *full = e - s0;
    *lo = s0 < 0 ? 0 : s0;
    *hi = e > g->in[d] ? g->in[d] : e;
}

/* The divisor of average window o[3]; 0 when the window is empty. */
static int64_t avg_div(const pool_geom *g, const int64_t *o)
{
    int64_t lo[3], hi[3], full[3];
    for (int d = 0; d < 3; d++) {
        avg_win(g, d, o[d], &lo[d], &hi[d], &full[d]);
        if (lo[d] >= hi[d])
            return 0;
    }
    if (g->divisor)
        return g->divisor;
    if (g->flag && !g->adaptive)
        return full[0] * full[1] * full[2];
    return (hi[0] - lo[0]) * (hi[1] - lo[1]) * (hi[2] - lo[2]);
}

/* The source taps of output o along upsampled dim d (0 h, 1 w): indices and
 * weights; returns their number. */
static int up_taps(const pool_geom *g, int d, int64_t o, int64_t *idx, double *w)
{
    int64_t I = g->in[d + 1], O = g->out[d + 1];
    if (g->mode == 0) {
        idx[0] = O == I       ? o
                 : O == 2 * I ? o >> 1
                              : (int64_t)floorf((float)o * g->nsc[d]);
        if (idx[0] > I - 1)
            idx[0] = I - 1;
        w[0] = 1;
        return 1;
    }
    double sc = g->lsc[d];
    double r = g->flag ? sc * (double)o : sc * ((double)o + 0.5) - 0.5;
    if (g->mode == 1 && r < 0)
        r = 0;
    int64_t b = (int64_t)floor(r);
    if (b > I - 1)
        b = I - 1;
    double t = fmin(fmax(r - (double)b, 0), 1);
    if (g->mode == 1) {
        idx[0] = b;
        idx[1] = b < I - 1 ? b + 1 : b;
        w[0] = 1 - t;
        w[1] = t;
        return 2;
    }
    const double A = -0.75;
    double x1 = t + 1, x2 = 1 - t, x3 = 2 - t;
    w[0] = ((A * x1 - 5 * A) * x1 + 8 * A) * x1 - 4 * A;
    w[1] = ((A + 2) * t - (A + 3)) * t * t + 1;
    w[2] = ((A + 2) * x2 - (A + 3)) * x2 * x2 + 1;
    w[3] = ((A * x3 - 5 * A) * x3 + 8 * A) * x3 - 4 * A;
    for (int q = 0; q < 4; q++) {
        int64_t i = b - 1 + q;
        idx[q] = i < 0 ? 0 : i > I - 1 ? I - 1 : i;
    }
    return 4;
}

/* One output element of a forward op. */
static void forward_one(pool_which which, const pool_geom *g, const view5 *x, const view5 *y,
                        const view5 *ix, int64_t n, int64_t c, const int64_t *o)
{
    int64_t dst = at(y, n, c, o[0], o[1], o[2]);
    if (which == POOL_UP_FWD) {
        int64_t hy[4], hx[4];
        double wy[4], wx[4], acc = 0;
        int ny = up_taps(g, 0, o[1], hy, wy), nx = up_taps(g, 1, o[2], hx, wx);
        for (int a = 0; a < ny; a++)
            for (int b = 0; b < nx; b++)
                acc += wy[a] * wx[b] * ld(x, at(x, n, c, 0, hy[a], hx[b]));
        st(y, dst, acc);
        return;
    }
    if (which == POOL_AVG_FWD) {
        int64_t lo[3], hi[3], full[3];
        for (int d = 0; d < 3; d++)
            avg_win(g, d, o[d], &lo[d], &hi[d], &full[d]);
        int64_t dv = avg_div(g, o);
        double acc = 0;
        for (int64_t z = lo[0]; z < hi[0]; z++)
            for (int64_t yy = lo[1]; yy < hi[1]; yy++)
                for (int64_t xx = lo[2]; xx < hi[2]; xx++)
                    acc += ld(x, at(x, n, c, z, yy, xx));
        st(y, dst, dv ? acc / (double)dv : 0);
        return;
    }
    int64_t s0[3], step[3], cnt[3];
    for (int d = 0; d < 3; d++)
        taps(g, d, o[d], &s0[d], &step[d], &cnt[d]);
    double m = -INFINITY;
    int64_t best = -1;
    for (int64_t a = 0; a < cnt[0]; a++)
        for (int64_t b = 0; b < cnt[1]; b++)
            for (int64_t e = 0; e < cnt[2]; e++) {
                int64_t z = s0[0] + a * step[0], yy = s0[1] + b * step[1],
                        xx = s0[2] + e * step[2];
                if (z < 0 || z >= g->in[0] || yy < 0 || yy >= g->in[1] || xx < 0 ||
                    xx >= g->in[2])
                    continue;
                int64_t flat = (z * g->in[1] + yy) * g->in[2] + xx;
                double v = ld(x, at(x, n, c, z, yy, xx));
                if (best < 0)
                    best = flat;
                if (v > m || isnan(v)) {
                    m = v;
                    best = flat;
                }
            }
    st(y, dst, m);
    ref_value pv = {.i = best};
    ref_store(ix->t->storage->host_ptr, at(ix, n, c, o[0], o[1], o[2]), ix->t->dtype,
                 CLOPS_INT64, pv);
}

/* Scatters the gradient of output o into acc (the input as [N, C, D*H*W]). */
static void backward_one(pool_which which, const pool_geom *g, const view5 *go,
                         const view5 *ix, double *acc, int64_t n, int64_t c, const int64_t *o)
{
    int64_t plane = g->in[0] * g->in[1] * g->in[2];
    double *base = acc + (n * g->C + c) * plane;
    double gv = ld(go, at(go, n, c, o[0], o[1], o[2]));
    if (which == POOL_MAX_BWD) {
        int64_t i = ref_load(ix->t->storage->host_ptr, at(ix, n, c, o[0], o[1], o[2]),
                                ix->t->dtype, CLOPS_INT64)
                        .i;
        if (i >= 0 && i < plane)
            base[i] += gv;
    } else if (which == POOL_AVG_BWD) {
        int64_t lo[3], hi[3], full[3], dv = avg_div(g, o);
        for (int d = 0; d < 3; d++)
            avg_win(g, d, o[d], &lo[d], &hi[d], &full[d]);
        for (int64_t z = lo[0]; dv && z < hi[0]; z++)
            for (int64_t y = lo[1]; y < hi[1]; y++)
                for (int64_t x = lo[2]; x < hi[2]; x++)
                    base[(z * g->in[1] + y) * g->in[2] + x] += gv / (double)dv;
    } else {
        int64_t hy[4], hx[4];
        double wy[4], wx[4];
        int ny = up_taps(g, 0, o[1], hy, wy), nx = up_taps(g, 1, o[2], hx, wx);
        for (int a = 0; a < ny; a++)
            for (int b = 0; b < nx; b++)
                base[hy[a] * g->in[2] + hx[b]] += wy[a] * wx[b] * gv;
    }
}

/* Whether t is [N, C, ext...] (or [C, ext...] when N is 1) with nsp
 * spatial dims, the leading ones of ext being 1. */
static bool shaped(const clops_tensor *t, int nsp, const pool_geom *g, const int64_t *ext)
{
    int lead = t ? t->ndim - nsp : 0;
    if (lead != 1 && lead != 2)
        return false;
    if (lead == 2 ? t->sizes[0] != g->N || t->sizes[1] != g->C : g->N != 1 || t->sizes[0] != g->C)
        return false;
    for (int i = 0; i < 3; i++) {
        int src = i - (3 - nsp);
        if (ext[i] != (src < 0 ? 1 : t->sizes[lead + src]))
            return false;
    }
    return true;
}

clops_status pool_ref(const char *op, pool_which which, const pool_geom *g, int nsp,
                      const clops_tensor *a, const clops_tensor *b, clops_tensor *c)
{
    bool fwd = which == POOL_MAX_FWD || which == POOL_AVG_FWD || which == POOL_UP_FWD;
    /* The tensors must have g's shapes (a check of the caller's geometry):
     * forward (x, y[, indices]); max backward (grad_output, indices,
     * grad_input); the others (grad_output, grad_input). */
    bool ok = (nsp == 2 || nsp == 3) && shaped(a, nsp, g, fwd ? g->in : g->out);
    if (which == POOL_MAX_FWD)
        ok = ok && shaped(b, nsp, g, g->out) && shaped(c, nsp, g, g->out);
    else if (which == POOL_MAX_BWD)
        ok = ok && shaped(b, nsp, g, g->out) && shaped(c, nsp, g, g->in);
    else
        ok = ok && shaped(b, nsp, g, fwd ? g->out : g->in);
    if (!ok)
        return clops__fail(CLOPS_INTERNAL,
                           "%s: the pooling reference got tensors whose shapes disagree with the "
                           "call's extents",
                           op);
    view5 va = {a, {0}}, vb = {b, {0}}, vc = {c, {0}};
    pool_view5(a, nsp, va.v);
    if (b)
        pool_view5(b, nsp, vb.v);
    if (c)
        pool_view5(c, nsp, vc.v);
    int64_t o[3];
    if (fwd) {
        for (int64_t n = 0; n < g->N; n++)
            for (int64_t ch = 0; ch < g->C; ch++)
                for (o[0] = 0; o[0] < g->out[0]; o[0]++)
                    for (o[1] = 0; o[1] < g->out[1]; o[1]++)
                        for (o[2] = 0; o[2] < g->out[2]; o[2]++)
                            forward_one(which, g, &va, &vb, &vc, n, ch, o);
        return CLOPS_OK;
    }
    /* backward: a grad_output, (b indices,) c or b grad_input */
    const view5 *gi = which == POOL_MAX_BWD ? &vc : &vb;
    int64_t plane = g->in[0] * g->in[1] * g->in[2], total = g->N * g->C * plane;
    double *acc = calloc((size_t)(total ? total : 1), sizeof(double));
    if (!acc)
        return clops__fail(CLOPS_HOST_OUT_OF_MEMORY, "%s: out of host memory", op);
    for (int64_t n = 0; n < g->N; n++)
        for (int64_t ch = 0; ch < g->C; ch++)
            for (o[0] = 0; o[0] < g->out[0]; o[0]++)
                for (o[1] = 0; o[1] < g->out[1]; o[1]++)
                    for (o[2] = 0; o[2] < g->out[2]; o[2]++)
                        backward_one(which, g, &va, &vb, acc, n, ch, o);
    for (int64_t n = 0; n < g->N; n++)
        for (int64_t ch = 0; ch < g->C; ch++)
            for (int64_t z = 0; z < g->in[0]; z++)
                for (int64_t y = 0; y < g->in[1]; y++)
                    for (int64_t x = 0; x < g->in[2]; x++)
                        st(gi, at(gi, n, ch, z, y, x),
                           acc[((n * g->C + ch) * g->in[0] + z) * g->in[1] * g->in[2] +
                               y * g->in[2] + x]);
    free(acc);
    return CLOPS_OK;
}
