/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ops/reduce/reduce_plan.c: the reduction planner and driver (see ops/reduce/reduce.h).
 *
 * Like the pointwise planner (codegen_pointwise/plan.c) it orders
 * dimensions by stride and coalesces the ones that walk memory as one, so
 * that any layout (transposed, sliced, expanded) reaches the kernels as one
 * of a few canonical shapes: usually one kept and one reduced dimension.
 * It also holds the argument helpers the operators share: dim lists, result
 * shapes, the empty-reduction check, and the structured driver.
 */
#include <string.h>

#include "host/host.h"
#include "ops/tensor/tensor.h"
#include "ops/reduce/reduce.h"

static const char *const kind_names[RK_COUNT] = {
#define REDUCE__NAME(e, n, name) [n] = #name,
    REDUCE_KIND_LIST(REDUCE__NAME)
#undef REDUCE__NAME
};

const char *reduce_kind_name(reduce_kind k)
{
    return (k >= 0 && k < RK_COUNT) ? kind_names[k] : "?";
}

bool reduce_kind_float_only(reduce_kind k)
{
    switch (k) {
    case RK_MEAN:
    case RK_NANMEAN:
    case RK_VAR:
    case RK_NORM1:
    case RK_NORMP:
    case RK_NORM2:
    case RK_NORMINF:
    case RK_NORMNINF:
    case RK_NORM0:
    case RK_LSE:
        return true;
    default:
        return false;
    }
}

/* --- argument helpers ---------------------------------------------------- */

clops_status reduce_dims_mask(const char *op, const clops_tensor *x, const int64_t *dims,
                              int ndims, bool empty_is_all, bool *mask)
{
    int nd = x->ndim;
    memset(mask, 0, sizeof(bool) * CLOPS_MAX_DIMS);
    if (!dims || (ndims == 0 && empty_is_all)) {
        for (int d = 0; d < nd; d++)
            mask[d] = true;
        return CLOPS_OK;
    }
    for (int i = 0; i < ndims; i++) {
        int w = 0;
        clops_status st = wrap_dim(op, dims[i], nd > 0 ? nd : 1, &w);
        if (st)
            return st;
        if (nd == 0)
            continue;
        if (mask[w])
            return clops__fail(CLOPS_INVALID_ARGUMENT,
                               "%s: dim %d appears multiple times in the list of dims", op, w);
        mask[w] = true;
    }
    return CLOPS_OK;
}

void reduce_out_shape(const clops_tensor *x, const bool *mask, bool keepdim, int *ndim,
                      int64_t *sizes)
{
    int n = 0;
    for (int d = 0; d < x->ndim; d++) {
        if (!mask[d])
            sizes[n++] = x->sizes[d];
        else if (keepdim)
            sizes[n++] = 1;
    }
    *ndim = n;
}

clops_status reduce_check_nonempty(const char *op, const clops_tensor *x, const bool *mask)
{
    int64_t kept = 1;
    for (int d = 0; d < x->ndim; d++)
        if (!mask[d])
            kept *= x->sizes[d];
    if (kept == 0)
        return CLOPS_OK;
    for (int d = 0; d < x->ndim; d++)
        if (mask[d] && x->sizes[d] == 0) {
            char shape[400];
            return clops__fail(CLOPS_INVALID_ARGUMENT,
                               "%s: Expected reduction dim %d to have non-zero size (input %s%s "
                               "on %s)",
                               op, d, clops_dtype_name(x->dtype),
                               clops__fmt_shape(shape, sizeof shape, x->ndim, x->sizes),
                               x->storage->device->label);
        }
    return CLOPS_OK;
}

/* --- planning -------------------------------------------------------------- */

/* Sorts the first n rows of a k-column table by column 1 (stable). */
static void sort_rows(int64_t (*t)[4], int n)
{
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && t[j - 1][1] > t[j][1]; j--) {
            int64_t tmp[4];
            memcpy(tmp, t[j], sizeof tmp);
            memcpy(t[j], t[j - 1], sizeof tmp);
            memcpy(t[j - 1], tmp, sizeof tmp);
        }
}

/* Merges row j+1 into row j wherever every stride column (1..ncols-1, and
 * column 3 only when use3) continues row j's; returns the new count. */
static int coalesce(int64_t (*t)[4], int n, int ncols)
{
    if (n == 0)
        return 0;
    int m = 0;
    for (int i = 1; i < n; i++) {
        bool ok = true;
        for (int c = 1; c < ncols; c++)
            if (t[i][c] != t[m][0] * t[m][c])
                ok = false;
        if (ok) {
            /* The merged row keeps the inner strides. */
            t[m][0] *= t[i][0];
        } else {
            m++;
            memcpy(t[m], t[i], sizeof t[i]);
        }
    }
    return m + 1;
}

bool reduce_make_plan(const reduce_call *c, reduce_plan *p)
{
    const clops_tensor *x = c->x, *y = c->y, *y2 = c->y2;
    memset(p, 0, sizeof *p);
    int64_t kt[CLOPS_MAX_DIMS][4], kt2[CLOPS_MAX_DIMS][4], rt[CLOPS_MAX_DIMS][4];
    int nk = 0, nr = 0, yd = 0;
    bool keep = y->ndim == x->ndim;
    int64_t lm = 1;
    p->O = 1;
    p->R = 1;
    for (int d = x->ndim - 1; d >= 0; d--) {
        if (c->mask[d]) {
            p->R *= x->sizes[d];
            if (x->sizes[d] != 1) {
                rt[nr][0] = x->sizes[d];
                rt[nr][1] = x->strides[d];
                rt[nr][2] = lm;
                rt[nr][3] = 0;
                nr++;
            }
            lm *= x->sizes[d];
        }
    }
    for (int d = 0; d < x->ndim; d++) {
        if (c->mask[d]) {
            if (keep)
                yd++;
            continue;
        }
        p->O *= x->sizes[d];
        if (x->sizes[d] != 1) {
            kt[nk][0] = x->sizes[d];
            kt[nk][1] = x->strides[d];
            kt[nk][2] = y->strides[yd];
            kt[nk][3] = y2 ? y2->strides[yd] : 0;
            nk++;
        }
        yd++;
    }
    (void)kt2;
    sort_rows(kt, nk);
    /* Reduced rows were collected innermost first; order them by stride. */
    sort_rows(rt, nr);
    nk = coalesce(kt, nk, y2 ? 4 : 3);
    nr = coalesce(rt, nr, reduce_kind_has_index(c->kind) ? 3 : 2);
    if (nk > REDUCE_MAX_RANK || nr > REDUCE_MAX_RANK)
        return false;
    p->kd = nk;
    p->rd = nr;
    for (int i = 0; i < REDUCE_MAX_RANK; i++) {
        bool k = i < nk, r = i < nr;
        p->ksz[i] = k ? kt[i][0] : 1;
        p->kis[i] = k ? kt[i][1] : 0;
        p->kos[i] = k ? kt[i][2] : 0;
        p->kos2[i] = k && y2 ? kt[i][3] : 0;
        p->rsz[i] = r ? rt[i][0] : 1;
        p->ris[i] = r ? rt[i][1] : 0;
        p->rlm[i] = r ? rt[i][2] : 0;
    }
    if (p->R == 0)
        for (int i = 0; i < REDUCE_MAX_RANK; i++)
            p->rsz[i] = 1;
    p->xoff = x->offset;
    p->yoff = y->offset;
    p->yoff2 = y2 ? y2->offset : 0;
    return true;
}

/* Runs c on a copy of its input with the kept dims first and the reduced
 * dims last (contiguous), writing through views of the results without
 * the reduced dims: every plan then has one kept and one reduced dim. */
static clops_status run_permuted(const reduce_call *c)
{
    const clops_tensor *x = c->x;
    int64_t perm[CLOPS_MAX_DIMS];
    int n = 0;
    for (int d = 0; d < x->ndim; d++)
        if (!c->mask[d])
            perm[n++] = d;
    int nkept = n;
    for (int d = 0; d < x->ndim; d++)
        if (c->mask[d])
            perm[n++] = d;
    clops_tensor *pv = NULL, *xc = NULL, *yv[2] = {NULL, NULL};
    reduce_call c2 = *c;
    clops_status st = core_permute(c->x, perm, n, &pv);
    if (!st)
        st = core_contiguous(pv, &xc);
    clops_tensor *ys[2] = {c->y, c->y2};
    for (int k = 0; k < 2 && !st; k++) {
        clops_tensor *y = ys[k];
        if (!y)
            continue;
        int64_t sz[CLOPS_MAX_DIMS], sd[CLOPS_MAX_DIMS];
        int m = 0;
        bool keep = y->ndim == x->ndim;
        for (int d = 0, yd = 0; d < x->ndim; d++) {
            if (c->mask[d]) {
                yd += keep;
                continue;
            }
            sz[m] = y->sizes[yd];
            sd[m++] = y->strides[yd++];
        }
        st = tensor_make_view(c->opname, y, m, sz, sd, y->offset, &yv[k]);
    }
    if (!st) {
        c2.x = xc;
        c2.y = yv[0];
        c2.y2 = yv[1];
        memset(c2.mask, 0, sizeof c2.mask);
        for (int d = nkept; d < x->ndim; d++)
            c2.mask[d] = true;
        reduce_plan p;
        if (!reduce_make_plan(&c2, &p))
            st = clops__fail(CLOPS_INTERNAL, "%s: reduction plan failed", c->opname);
        else
            st = host_is_cpu(x->storage->device) ? reduce_ref_run(&c2) : reduce_cl_run(&c2, &p);
    }
    clops_tensor_release(pv);
    clops_tensor_release(xc);
    clops_tensor_release(yv[0]);
    clops_tensor_release(yv[1]);
    return st;
}

clops_status reduce_run(const reduce_call *c)
{
    int64_t on = tensor_numel(c->y);
    if (on == 0)
        return CLOPS_OK;
    reduce_plan p;
    if (!reduce_make_plan(c, &p))
        return run_permuted(c);
    if (host_is_cpu(c->x->storage->device))
        return reduce_ref_run(c);
    return reduce_cl_run(c, &p);
}

/* --- the structured driver ----------------------------------------------- */

clops_status reduce_cast_input(const char *op, clops_tensor *x, clops_dtype dtype,
                               clops_tensor **out)
{
    if (x->dtype == dtype) {
        *out = clops_tensor_retain(x);
        return CLOPS_OK;
    }
    clops_status st = core_to_copy(x, dtype, NULL, out);
    return st ? clops__error_prefix(st, "%s", op) : CLOPS_OK;
}

/* The dtype a kind's kernel writes for input dtype in. */
static clops_dtype natural_dtype(reduce_kind k, clops_dtype in)
{
    switch (k) {
    case RK_SUM:
    case RK_NANSUM:
    case RK_PROD:
        return clops_dtype_is_floating(in) ? in : CLOPS_INT64;
    case RK_ARGMAX:
    case RK_ARGMIN:
    case RK_COUNT_NZ:
        return CLOPS_INT64;
    case RK_ANY:
    case RK_ALL:
        return in == CLOPS_UINT8 ? CLOPS_UINT8 : CLOPS_BOOL;
    default:
        return in;
    }
}

clops_status reduce_structured(const char *op, pw_variant variant, clops_tensor *dst,
                               clops_tensor *xin, const bool *mask, bool keepdim,
                               reduce_kind kind, clops_dtype result, double p0, double p1,
                               clops_tensor **out)
{
    int nd;
    int64_t sizes[CLOPS_MAX_DIMS];
    reduce_out_shape(xin, mask, keepdim, &nd, sizes);
    structured_call call;
    clops_status st = structured_begin(&call, op, variant, dst, xin->storage->device, result, nd,
                                       sizes, &xin, 1);
    if (st)
        return st;
    clops_dtype nat = natural_dtype(kind, xin->dtype);
    clops_tensor *tmp = NULL;
    if (nat != result)
        st = tensor_new(xin->storage->device, nat, nd, sizes, NULL, &tmp);
    if (!st) {
        reduce_call c = {0};
        c.opname = op;
        c.kind = kind;
        c.x = xin;
        memcpy(c.mask, mask, sizeof c.mask);
        c.y = tmp ? tmp : call.target;
        c.p0 = p0;
        c.p1 = p1;
        st = reduce_run(&c);
    }
    if (!st && tmp)
        st = core_copy_(call.target, tmp, false);
    clops_tensor_release(tmp);
    return structured_finish(&call, st, out);
}
