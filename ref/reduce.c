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
 * Elements are read where they lie, pass by pass (no per-element buffer:
 * the extra memory is O(1) per output, whatever the reduced length).
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

/* One output's reduced elements, read from the input where they lie (no
 * copy: the extra memory of a reduction is O(1) per output, whatever R):
 * element r is at base + offset_of(red, r, red->xs) and has index
 * offset_of(red, r, red->lm). */
typedef struct line_in {
    const void *xb;
    clops_dtype dt, comp;
    int64_t base;
    const axes *red;
} line_in;

static double vf_at(const line_in *in, int64_t r)
{
    return ref_load(in->xb, in->base + offset_of(in->red, r, in->red->xs), in->dt, in->comp).f;
}

static int64_t vi_at(const line_in *in, int64_t r)
{
    return ref_load(in->xb, in->base + offset_of(in->red, r, in->red->xs), in->dt, in->comp).i;
}

static int64_t idx_at(const line_in *in, int64_t r)
{
    return offset_of(in->red, r, in->red->lm);
}

/* Reduces one output's R elements (as double when fl, else int64). */
static void reduce_one(const reduce_call *c, bool fl, const line_in *in, int64_t R, ref_value *r1,
                       ref_value *r2)
{
    double s = 0, t = 0;
    int64_t n = 0, si = 0;
    switch (c->kind) {
    case RK_SUM:
    case RK_NANSUM:
    case RK_MEAN:
        for (int64_t r = 0; r < R; r++) {
            if (fl) {
                double v = vf_at(in, r);
                if (!(c->kind == RK_NANSUM && isnan(v)))
                    s += v;
            } else {
                si = (int64_t)((uint64_t)si + (uint64_t)vi_at(in, r));
            }
        }
        if (fl)
            r1->f = c->kind == RK_MEAN ? s / (double)R : s;
        else
            r1->i = si;
        return;
    case RK_NANMEAN:
        for (int64_t r = 0; r < R; r++) {
            double v = vf_at(in, r);
            if (!isnan(v)) {
                s += v;
                n++;
            }
        }
        r1->f = s / (double)n;
        return;
    case RK_PROD:
        s = 1;
        si = 1;
        for (int64_t r = 0; r < R; r++) {
            if (fl)
                s *= vf_at(in, r);
            else
                si = (int64_t)((uint64_t)si * (uint64_t)vi_at(in, r));
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
        /* The best element so far (value and index) and, for aminmax, the
         * smallest; equal values keep the smaller index. */
        bool have = false;
        double bf = 0, lf = 0;
        int64_t bi = 0, li = 0, bidx = 0;
        for (int64_t r = 0; r < R; r++) {
            double a = fl ? vf_at(in, r) : 0;
            int64_t ai = fl ? 0 : vi_at(in, r);
            bool take = !have;
            if (!take) {
                bool same = fl ? (a == bf || (isnan(a) && isnan(bf))) : ai == bi;
                bool better = fl ? beats(a, bf, mx) : mx ? ai > bi : ai < bi;
                take = better || (same && idx_at(in, r) < bidx);
            }
            if (take) {
                bf = a;
                bi = ai;
                bidx = idx_at(in, r);
            }
            if (c->kind == RK_AMINMAX && (!have || (fl ? beats(a, lf, false) : ai < li))) {
                lf = a;
                li = ai;
            }
            have = true;
        }
        if (!have) {
            r1->f = NAN;
            return;
        }
        if (c->kind == RK_ARGMAX || c->kind == RK_ARGMIN) {
            r1->i = bidx;
            if (fl)
                r2->f = bf;
            else
                r2->i = bi;
        } else if (c->kind == RK_AMINMAX) {
            if (fl) {
                r1->f = lf;
                r2->f = bf;
            } else {
                r1->i = li;
                r2->i = bi;
            }
        } else if (fl) {
            r1->f = bf;
        } else {
            r1->i = bi;
        }
        return;
    }
    case RK_ANY:
    case RK_ALL: {
        bool any = false, all = true;
        for (int64_t r = 0; r < R; r++) {
            bool nz = fl ? vf_at(in, r) != 0 : vi_at(in, r) != 0;
            any |= nz;
            all &= nz;
        }
        r1->i = c->kind == RK_ANY ? any : all;
        return;
    }
    case RK_COUNT_NZ:
    case RK_NORM0:
        for (int64_t r = 0; r < R; r++)
            n += fl ? vf_at(in, r) != 0 : vi_at(in, r) != 0;
        if (c->kind == RK_NORM0)
            r1->f = (double)n;
        else
            r1->i = n;
        return;
    case RK_VAR: {
        /* Two passes over the input: the mean, then squared deviations. */
        bool finite = true;
        for (int64_t r = 0; r < R; r++) {
            double v = vf_at(in, r);
            s += v;
            finite &= isfinite(v) != 0;
        }
        double mean = s / (double)R;
        for (int64_t r = 0; r < R; r++) {
            double d = vf_at(in, r) - mean;
            t += d * d;
        }
        double dv = (double)R - c->p1;
        double var = t / (dv > 0 ? dv : 0);
        r1->f = c->p0 != 0 ? sqrt(var) : var;
        /* PyTorch's Welford mean turns NaN once an infinity meets any
         * other element (inf - inf in the update); so does the kernel's. */
        r2->f = R == 0 ? NAN : (!finite && R > 1) ? NAN : mean;
        return;
    }
    case RK_NORM1:
    case RK_NORM2:
    case RK_NORMP:
        for (int64_t r = 0; r < R; r++) {
            double v = vf_at(in, r);
            s += c->kind == RK_NORM1   ? fabs(v)
                 : c->kind == RK_NORM2 ? v * v
                                       : pow(fabs(v), c->p0);
        }
        r1->f = c->kind == RK_NORM1 ? s : c->kind == RK_NORM2 ? sqrt(s) : pow(s, 1.0 / c->p0);
        return;
    case RK_NORMINF:
    case RK_NORMNINF: {
        s = c->kind == RK_NORMINF ? -INFINITY : INFINITY;
        for (int64_t r = 0; r < R; r++) {
            double a = fabs(vf_at(in, r));
            if (isnan(a) || (c->kind == RK_NORMINF ? a > s : a < s))
                s = isnan(s) ? s : a;
        }
        r1->f = s;
        return;
    }
    case RK_LSE: {
        double m = -INFINITY;
        for (int64_t r = 0; r < R; r++) {
            double v = vf_at(in, r);
            if (isnan(v) || v > m)
                m = isnan(m) ? m : v;
        }
        if (isnan(m) || isinf(m)) {
            r1->f = m;
            return;
        }
        for (int64_t r = 0; r < R; r++)
            s += exp(vf_at(in, r) - m);
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
    line_in in = {c->x->storage->host_ptr, dt, comp, 0, &red};
    void *yb = c->y->storage->host_ptr;
    void *y2b = c->y2 ? c->y2->storage->host_ptr : NULL;
    bool index = reduce_kind_has_index(c->kind);
    /* Results of index kinds are int64 (.i); others are in the input's
     * compute (floats .f, integers .i), count_nonzero and any/all .i. */
    bool r1_int = index || !fl || c->kind == RK_COUNT_NZ || c->kind == RK_ANY ||
                  c->kind == RK_ALL;
    for (int64_t o = 0; o < O; o++) {
        in.base = c->x->offset + offset_of(&kept, o, kept.xs);
        ref_value r1 = {0}, r2 = {0};
        reduce_one(c, fl, &in, R, &r1, &r2);
        int64_t yo = c->y->offset + offset_of(&kept, o, kept.ys);
        ref_store(yb, yo, c->y->dtype, r1_int ? CLOPS_INT64 : CLOPS_FLOAT64, r1);
        if (y2b)
            ref_store(y2b, c->y2->offset + offset_of(&kept, o, kept.ys2), c->y2->dtype, comp,
                      r2);
    }
    return CLOPS_OK;
}
