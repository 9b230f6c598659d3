/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ref/reduce.c: the CPU reference of the reduction family.
 *
 * The CPU dispatch key runs reductions here, and the tests use it as the
 * oracle for the OpenCL kernels.  It walks the call's input itself (no
 * plan of the family): one output at a time, its reduced elements in
 * memory order, accumulating floating inputs in double (two-pass
 * variance: mean first, then squared deviations) and integer inputs in
 * int64 with two's-complement wrapping, and stores with PyTorch's
 * conversion rules (ref_store).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ref/ref.h"
#include "ref/ref_reduce.h"

/* The dims of one side of a reduction (kept or reduced), fastest first:
 * sizes, strides in x and in the results, and logical multipliers. */
typedef struct axes {
    int n;
    int64_t sz[CLOPS_MAX_DIMS], xs[CLOPS_MAX_DIMS], ys[CLOPS_MAX_DIMS], ys2[CLOPS_MAX_DIMS],
        lm[CLOPS_MAX_DIMS];
} axes;

/* Offset of coordinates decomposed from v over a's sizes with strides st. */
static int64_t offset_of(const axes *a, int64_t v, const int64_t *st)
{
    int64_t off = 0;
    for (int i = 0; i < a->n; i++) {
        off += (v % a->sz[i]) * st[i];
        v /= a->sz[i];
    }
    return off;
}

/* The kept dims of c (any order: each output is computed on its own) and
 * its reduced dims in memory order: by ascending stride of x, the
 * innermost first among equal strides.  Size-1 dims are left out. */
static void axes_of(const reduce_call *c, axes *kept, axes *red)
{
    const clops_tensor *x = c->x, *y = c->y, *y2 = c->y2;
    bool keep = y->ndim == x->ndim;
    kept->n = red->n = 0;
    int64_t lm = 1;
    for (int d = x->ndim - 1; d >= 0; d--) {
        if (!c->mask[d])
            continue;
        if (x->sizes[d] != 1) {
            int i = red->n++;
            red->sz[i] = x->sizes[d];
            red->xs[i] = x->strides[d];
            red->lm[i] = lm;
            /* insertion into place: stable by stride */
            for (; i > 0 && red->xs[i - 1] > red->xs[i]; i--) {
                int64_t t[3] = {red->sz[i], red->xs[i], red->lm[i]};
                red->sz[i] = red->sz[i - 1];
                red->xs[i] = red->xs[i - 1];
                red->lm[i] = red->lm[i - 1];
                red->sz[i - 1] = t[0];
                red->xs[i - 1] = t[1];
                red->lm[i - 1] = t[2];
            }
        }
        lm *= x->sizes[d];
    }
    for (int d = 0, yd = 0; d < x->ndim; d++) {
        if (c->mask[d]) {
            yd += keep;
            continue;
        }
        if (x->sizes[d] != 1) {
            int i = kept->n++;
            kept->sz[i] = x->sizes[d];
            kept->xs[i] = x->strides[d];
            kept->ys[i] = y->strides[yd];
            kept->ys2[i] = y2 ? y2->strides[yd] : 0;
        }
        yd++;
    }
}

/* True when a beats b for argmax (max) or argmin (!max); NaN beats all. */
static bool beats(double a, double b, bool max)
{
    if (isnan(a))
        return !isnan(b);
    if (isnan(b))
        return false;
    return max ? a > b : a < b;
}

/* Reduces one output's elements (vals[0..R) as double or ints[0..R)). */
static void reduce_one(const reduce_call *c, bool fl, const double *vf, const int64_t *vi,
                       const int64_t *idx, int64_t R, ref_value *r1, ref_value *r2)
{
    double s = 0, t = 0;
    int64_t n = 0, si = 0;
    switch (c->kind) {
    case RK_SUM:
    case RK_NANSUM:
    case RK_MEAN:
        for (int64_t r = 0; r < R; r++) {
            if (fl && !(c->kind == RK_NANSUM && isnan(vf[r])))
                s += vf[r];
            else if (!fl)
                si = (int64_t)((uint64_t)si + (uint64_t)vi[r]);
        }
        if (fl)
            r1->f = c->kind == RK_MEAN ? s / (double)R : s;
        else
            r1->i = si;
        return;
    case RK_NANMEAN:
        for (int64_t r = 0; r < R; r++)
            if (!isnan(vf[r])) {
                s += vf[r];
                n++;
            }
        r1->f = s / (double)n;
        return;
    case RK_PROD:
        s = 1;
        si = 1;
        for (int64_t r = 0; r < R; r++) {
            if (fl)
                s *= vf[r];
            else
                si = (int64_t)((uint64_t)si * (uint64_t)vi[r]);
        }
        if (fl)
            r1->f = s;
        else
            r1->i = si;
        return;
    case RK_AMAX:
    case RK_AMIN:
    case RK_AMINMAX:
    case RK_ARGMAX:
    case RK_ARGMIN: {
        bool mx = c->kind == RK_AMAX || c->kind == RK_ARGMAX || c->kind == RK_AMINMAX;
        int64_t best = -1, lo = -1;
        for (int64_t r = 0; r < R; r++) {
            double a = fl ? vf[r] : 0;
            bool take = best < 0;
            if (!take) {
                double b = fl ? vf[best] : 0;
                bool same = fl ? (a == b || (isnan(a) && isnan(b))) : vi[r] == vi[best];
                bool better = fl   ? beats(a, b, mx)
                              : mx ? vi[r] > vi[best]
                                   : vi[r] < vi[best];
                take = better || (same && idx[r] < idx[best]);
            }
            if (take)
                best = r;
            if (c->kind == RK_AMINMAX) {
                bool tl = lo < 0 || (fl ? beats(a, vf[lo], false) : vi[r] < vi[lo]);
                if (tl)
                    lo = r;
            }
        }
        if (best < 0) {
            r1->f = NAN;
            return;
        }
        if (c->kind == RK_ARGMAX || c->kind == RK_ARGMIN) {
            r1->i = idx[best];
            if (fl)
                r2->f = vf[best];
            else
                r2->i = vi[best];
        } else if (c->kind == RK_AMINMAX) {
            if (fl) {
                r1->f = vf[lo];
                r2->f = vf[best];
            } else {
                r1->i = vi[lo];
                r2->i = vi[best];
            }
        } else if (fl) {
            r1->f = vf[best];
        } else {
            r1->i = vi[best];
        }
        return;
    }
    case RK_ANY:
    case RK_ALL: {
        bool any = false, all = true;
        for (int64_t r = 0; r < R; r++) {
            bool nz = fl ? vf[r] != 0 : vi[r] != 0;
            any |= nz;
            all &= nz;
        }
        r1->i = c->kind == RK_ANY ? any : all;
        return;
    }
    case RK_COUNT_NZ:
    case RK_NORM0:
        for (int64_t r = 0; r < R; r++)
            n += fl ? vf[r] != 0 : vi[r] != 0;
        if (c->kind == RK_NORM0)
            r1->f = (double)n;
        else
            r1->i = n;
        return;
    case RK_VAR: {
        for (int64_t r = 0; r < R; r++)
            s += vf[r];
        double mean = s / (double)R;
        for (int64_t r = 0; r < R; r++)
            t += (vf[r] - mean) * (vf[r] - mean);
        double dv = (double)R - c->p1;
        double var = t / (dv > 0 ? dv : 0);
        r1->f = c->p0 != 0 ? sqrt(var) : var;
        /* PyTorch's Welford mean turns NaN once an infinity meets any
         * other element (inf - inf in the update); so does the kernel's. */
        bool finite = true;
        for (int64_t r = 0; r < R; r++)
            finite &= isfinite(vf[r]) != 0;
        r2->f = R == 0 ? NAN : (!finite && R > 1) ? NAN : mean;
        return;
    }
    case RK_NORM1:
    case RK_NORM2:
    case RK_NORMP:
        for (int64_t r = 0; r < R; r++)
            s += c->kind == RK_NORM1   ? fabs(vf[r])
                 : c->kind == RK_NORM2 ? vf[r] * vf[r]
                                       : pow(fabs(vf[r]), c->p0);
        r1->f = c->kind == RK_NORM1 ? s : c->kind == RK_NORM2 ? sqrt(s) : pow(s, 1.0 / c->p0);
        return;
    case RK_NORMINF:
    case RK_NORMNINF: {
        s = c->kind == RK_NORMINF ? -INFINITY : INFINITY;
        for (int64_t r = 0; r < R; r++) {
            double a = fabs(vf[r]);
            if (isnan(a) || (c->kind == RK_NORMINF ? a > s : a < s))
                s = isnan(s) ? s : a;
        }
        r1->f = s;
        return;
    }
    case RK_LSE: {
        double m = -INFINITY;
        for (int64_t r = 0; r < R; r++)
            if (isnan(vf[r]) || vf[r] > m)
                m = isnan(m) ? m : vf[r];
        if (isnan(m) || isinf(m)) {
            r1->f = m;
            return;
        }
        for (int64_t r = 0; r < R; r++)
            s += exp(vf[r] - m);
        r1->f = log(s) + m;
        return;
    }
    default:
        r1->f = NAN;
        return;
    }
}

clops_status reduce_ref_run(const reduce_call *c)
{
    axes kept, red;
    axes_of(c, &kept, &red);
    int64_t O = 1, R = 1;
    for (int d = 0; d < c->x->ndim; d++) {
        if (c->mask[d])
            R *= c->x->sizes[d];
        else
            O *= c->x->sizes[d];
    }
    clops_dtype dt = c->x->dtype;
    bool fl = clops_dtype_is_floating(dt);
    clops_dtype comp = fl ? CLOPS_FLOAT64 : CLOPS_INT64;
    size_t n = (size_t)(R > 0 ? R : 1);
    double *vf = fl ? malloc(n * sizeof *vf) : NULL;
    int64_t *vi = fl ? NULL : malloc(n * sizeof *vi);
    int64_t *idx = malloc(n * sizeof *idx);
    if ((fl && !vf) || (!fl && !vi) || !idx) {
        free(vf);
        free(vi);
        free(idx);
        return CLOPS__HOST_OOM("reduction reference buffer");
    }
    const void *xb = c->x->storage->host_ptr;
    void *yb = c->y->storage->host_ptr;
    void *y2b = c->y2 ? c->y2->storage->host_ptr : NULL;
    bool index = reduce_kind_has_index(c->kind);
    /* Results of index kinds are int64 (.i); others are in the input's
     * compute (floats .f, integers .i), count_nonzero and any/all .i. */
    bool r1_int = index || !fl || c->kind == RK_COUNT_NZ || c->kind == RK_ANY ||
                  c->kind == RK_ALL;
    for (int64_t o = 0; o < O; o++) {
        int64_t base = c->x->offset + offset_of(&kept, o, kept.xs);
        for (int64_t r = 0; r < R; r++) {
            int64_t off = base + offset_of(&red, r, red.xs);
            idx[r] = offset_of(&red, r, red.lm);
            ref_value v = ref_load(xb, off, dt, comp);
            if (fl)
                vf[r] = v.f;
            else
                vi[r] = v.i;
        }
        ref_value r1 = {0}, r2 = {0};
        reduce_one(c, fl, vf, vi, idx, R, &r1, &r2);
        int64_t yo = c->y->offset + offset_of(&kept, o, kept.ys);
        ref_store(yb, yo, c->y->dtype, r1_int ? CLOPS_INT64 : CLOPS_FLOAT64, r1);
        if (y2b)
            ref_store(y2b, c->y2->offset + offset_of(&kept, o, kept.ys2), c->y2->dtype, comp,
                      r2);
    }
    free(vf);
    free(vi);
    free(idx);
    return CLOPS_OK;
}
