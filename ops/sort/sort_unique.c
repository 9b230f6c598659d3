/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ops/sort/sort_unique.c: the unique family (dispatch/inventory/sort.yaml): _unique,
 * _unique2, unique_dim, unique_consecutive, unique_dim_consecutive and
 * their out forms, built from the device sort (ops/sort/sort.c) and scan
 * (ops/scan/scan.h).
 *
 * Everything is a unique of rows: the input seen as a contiguous [n, m]
 * matrix (m = 1 for the element-wise forms; for the dim forms the slices
 * along dim, moved to the front).  The sorted forms first order the rows:
 * one stable argsort for m = 1, else a lexicographic LSD sort (a stable
 * argsort per column, last column first, each pass gathering its column in
 * the order so far).  Then, on the device: a flag per visited row where it
 * differs from the one before (PyTorch's ==: -0.0 equals +0.0, a NaN equals
 * nothing, so every NaN is unique), an inclusive int64 scan of the flags
 * (group numbers + 1), one read-back of the last (the count), a compaction
 * launch writing each group's first row, its start and every row's group
 * (the inverse), and a launch turning starts into counts.  Every element
 * has one writer: the same bits on every run.  The CPU device runs the same
 * steps in ref/sort_select.c.
 */
#include <string.h>

#include "host/host.h"
#include "ops/tensor/tensor.h"
#include "ops/kernels_generated.h"
#include "ops/kit/lines.h"
#include "ops/scan/scan.h"
#include "ops/sort/sort.h"

/* t itself when it is contiguous from its storage's start (kernels index
 * the buffer from 0), else a contiguous copy; a new reference. */
static clops_status dense0(clops_tensor *t, clops_tensor **out)
{
    if (clops_tensor_is_contiguous(t) && t->offset == 0) {
        *out = clops_tensor_retain(t);
        return CLOPS_OK;
    }
    return core_contiguous_copy(t, out);
}

/* Launches kernel `which` of dtype dt's sort program over `items`. */
static clops_status launch(clops_device *d, clops_dtype dt, sort_kid which, host_arg *args,
                           int nargs, int64_t items)
{
    host_kernel *k = NULL;
    clops_status st = sort_kernel(d, dt, which, &k, NULL);
    if (st == CLOPS_OK && items > 0)
        st = host_launch(d, k, nargs, args, (size_t)items);
    return st;
}

#define A(x) {sizeof(x), &(x)}

/* The row order of the lexicographic stable sort of contiguous x2 [n, m]
 * into a fresh int64 perm [n]. */
static clops_status lexsort_rows(const char *op, clops_tensor *x2, int64_t n, int64_t m,
                                 clops_tensor **perm)
{
    clops_device *d = x2->storage->device;
    clops_tensor *p = NULL, *p2 = NULL, *p3 = NULL, *col = NULL, *tmp = NULL;
    clops_status st = tensor_new(d, CLOPS_INT64, 1, &n, NULL, &p);
    if (st == CLOPS_OK)
        st = tensor_new(d, CLOPS_INT64, 1, &n, NULL, &p2);
    if (st == CLOPS_OK)
        st = tensor_new(d, CLOPS_INT64, 1, &n, NULL, &p3);
    if (st == CLOPS_OK && m > 1)
        st = tensor_new(d, x2->dtype, 1, &n, NULL, &tmp);
    if (st == CLOPS_OK)
        st = core_select(x2, 1, m - 1, &col);
    if (st == CLOPS_OK)
        st = sort_run(op, col, 0, false, NULL, p);
    for (int64_t c = m - 2; st == CLOPS_OK && c >= 0; c--) {
        if (host_is_cpu(d)) {
            ref_unique_gather(sort_host(x2), sort_host(p), x2->dtype, n, m, c, sort_host(tmp));
        } else {
            cl_mem mx = sort_mem(x2), mp = sort_mem(p), mt = sort_mem(tmp);
            cl_long a_n = n, a_m = m, a_c = c;
            host_arg args[] = {A(mx), A(mp), A(a_n), A(a_m), A(a_c), A(mt)};
            st = launch(d, x2->dtype, SORT_K_UGATHER, args, 6, n);
        }
        if (st == CLOPS_OK)
            st = sort_run(op, tmp, 0, false, NULL, p2);
        if (st == CLOPS_OK && host_is_cpu(d)) {
            ref_unique_compose(sort_host(p), sort_host(p2), n, sort_host(p3));
        } else if (st == CLOPS_OK) {
            cl_mem mp = sort_mem(p), mp2 = sort_mem(p2), mp3 = sort_mem(p3);
            cl_long a_n = n;
            host_arg args[] = {A(mp), A(mp2), A(a_n), A(mp3)};
            st = launch(d, CLOPS_INT64, SORT_K_UCOMPOSE, args, 4, n);
        }
        clops_tensor *t = p;
        p = p3;
        p3 = t;
    }
    clops_tensor_release(col);
    clops_tensor_release(tmp);
    clops_tensor_release(p2);
    clops_tensor_release(p3);
    if (st) {
        clops_tensor_release(p);
        return st;
    }
    *perm = p;
    return CLOPS_OK;
}

/* The unique rows of contiguous x2 [n, m] (n > 0), in perm's order (NULL:
 * input order): rows [K, m], and when asked the inverse [n] and the
 * counts [K] (fresh tensors; NULL when not asked). */
static clops_status unique_rows(const char *op, clops_tensor *x2, clops_tensor *perm,
                                bool want_inv, bool want_cnt, clops_tensor **rows,
                                clops_tensor **inv, clops_tensor **cnt)
{
    clops_device *d = x2->storage->device;
    bool cpu = host_is_cpu(d);
    int64_t n = x2->sizes[0], m = x2->sizes[1], groups = 0;
    clops_tensor *pos = NULL, *last = NULL, *out = NULL, *start = NULL, *iv = NULL, *ct = NULL;
    clops_status st = tensor_new(d, CLOPS_INT64, 1, &n, NULL, &pos);
    cl_mem mx = sort_mem(x2), mp = perm ? sort_mem(perm) : mx, mpos = sort_mem(pos);
    cl_int has_perm = perm != NULL;
    cl_long a_n = n, a_m = m;
    if (st == CLOPS_OK && cpu) {
        ref_unique_flags(sort_host(x2), sort_host(perm), x2->dtype, n, m, sort_host(pos));
    } else if (st == CLOPS_OK) {
        host_arg args[] = {A(mx), A(mp), A(has_perm), A(a_n), A(a_m), A(mpos)};
        st = launch(d, x2->dtype, SORT_K_UFLAGS, args, 6, n);
    }
    if (st == CLOPS_OK)
        st = scan_run(op, SCAN_SUM, pos, 0, pos, NULL);
    if (st == CLOPS_OK)
        st = core_select(pos, 0, n - 1, &last);
    if (st == CLOPS_OK)
        st = clops_tensor_to_host(last, &groups, sizeof groups);
    int64_t osz[2] = {groups, m};
    if (st == CLOPS_OK)
        st = tensor_new(d, x2->dtype, 2, osz, NULL, &out);
    if (st == CLOPS_OK)
        st = tensor_new(d, CLOPS_INT64, 1, &groups, NULL, &start);
    if (st == CLOPS_OK && want_inv)
        st = tensor_new(d, CLOPS_INT64, 1, &n, NULL, &iv);
    if (st == CLOPS_OK && want_cnt)
        st = tensor_new(d, CLOPS_INT64, 1, &groups, NULL, &ct);
    if (st == CLOPS_OK && cpu) {
        ref_unique_compact(sort_host(x2), sort_host(perm), x2->dtype, n, m, sort_host(pos),
                           sort_host(out), sort_host(start), sort_host(iv));
        if (ct)
            ref_unique_counts(sort_host(start), groups, n, sort_host(ct));
    } else if (st == CLOPS_OK) {
        cl_mem mo = sort_mem(out), ms = sort_mem(start), mi = iv ? sort_mem(iv) : mpos;
        cl_int a_inv = want_inv;
        host_arg args[] = {A(mx), A(mp), A(has_perm), A(a_n), A(a_m), A(mpos),
                           A(mo), A(ms), A(mi),       A(a_inv)};
        st = launch(d, x2->dtype, SORT_K_UCOMPACT, args, 10, n);
        if (st == CLOPS_OK && ct) {
            cl_mem mc = sort_mem(ct);
            cl_long a_g = groups;
            host_arg cargs[] = {A(ms), A(a_g), A(a_n), A(mc)};
            st = launch(d, CLOPS_INT64, SORT_K_UCOUNTS, cargs, 4, groups);
        }
    }
    clops_tensor_release(pos);
    clops_tensor_release(last);
    clops_tensor_release(start);
    if (st) {
        clops_tensor_release(out);
        clops_tensor_release(iv);
        clops_tensor_release(ct);
        return clops__error_prefix(st, "%s", op);
    }
    *rows = out;
    *inv = iv;
    *cnt = ct;
    return CLOPS_OK;
}

#undef A

/* Results of one unique call: values, inverse, counts. */
typedef struct uniq_res {
    clops_tensor *v, *i, *c;
} uniq_res;

/* Releases a uniq_res. */
static void res_release(uniq_res *r)
{
    clops_tensor_release(r->v);
    clops_tensor_release(r->i);
    clops_tensor_release(r->c);
    memset(r, 0, sizeof *r);
}

/* An empty int64 tensor of shape [0] (a result not asked for). */
static clops_status empty_i64(clops_device *d, clops_tensor **out)
{
    int64_t z = 0;
    return tensor_new(d, CLOPS_INT64, 1, &z, NULL, out);
}

/* Element-wise unique (_unique, _unique2, unique_consecutive without dim):
 * sorted or consecutive; values [K], inverse of self's shape and counts
 * [K] when asked, else [0]. */
static clops_status unique_elems(const char *op, clops_tensor *self, bool sort, bool want_inv,
                                 bool want_cnt, uniq_res *r)
{
    clops_device *d = self->storage->device;
    int64_t n = tensor_numel(self), shape2[2] = {n, 1};
    clops_tensor *x2 = NULL, *perm = NULL, *rows = NULL, *iv = NULL, *ct = NULL;
    memset(r, 0, sizeof *r);
    clops_status st = check_dtype_on_device(op, self->dtype, d);
    if (st)
        return st;
    if (n > 0) {
        clops_tensor *v = NULL;
        st = core_reshape(self, shape2, 2, &v);
        if (st == CLOPS_OK)
            st = dense0(v, &x2);
        clops_tensor_release(v);
        if (st == CLOPS_OK && sort)
            st = lexsort_rows(op, x2, n, 1, &perm);
        if (st == CLOPS_OK)
            st = unique_rows(op, x2, perm, want_inv, want_cnt, &rows, &iv, &ct);
    } else {
        int64_t z = 0;
        st = tensor_new(d, self->dtype, 2, (int64_t[]){0, 1}, NULL, &rows);
        if (st == CLOPS_OK && want_inv)
            st = tensor_new(d, CLOPS_INT64, 1, &z, NULL, &iv);
        if (st == CLOPS_OK && want_cnt)
            st = tensor_new(d, CLOPS_INT64, 1, &z, NULL, &ct);
    }
    int64_t k = rows ? rows->sizes[0] : 0;
    if (st == CLOPS_OK)
        st = core_reshape(rows, &k, 1, &r->v);
    if (st == CLOPS_OK)
        st = want_inv ? core_reshape(iv, self->sizes, self->ndim, &r->i) : empty_i64(d, &r->i);
    if (st == CLOPS_OK)
        st = want_cnt ? (r->c = clops_tensor_retain(ct), CLOPS_OK) : empty_i64(d, &r->c);
    clops_tensor_release(x2);
    clops_tensor_release(perm);
    clops_tensor_release(rows);
    clops_tensor_release(iv);
    clops_tensor_release(ct);
    if (st)
        res_release(r);
    return st;
}

/* unique along dim (unique_dim, unique_dim_consecutive, unique_consecutive
 * with a dim): the slices along dim are the rows; inverse and counts are
 * always returned (as PyTorch does). */
static clops_status unique_along(const char *op, clops_tensor *self, int64_t dim, bool sort,
                                 uniq_res *r)
{
    memset(r, 0, sizeof *r);
    int d = 0;
    clops_status st = wrap_dim(op, dim, self->ndim, &d);
    if (st == CLOPS_OK)
        st = check_dtype_on_device(op, self->dtype, self->storage->device);
    if (st == CLOPS_OK && self->ndim == 0)
        st = sort_fail(CLOPS_INDEX_OUT_OF_RANGE, op, self,
                       "Dimension specified as 0 but tensor has no dimensions");
    if (st)
        return st;
    clops_device *dev = self->storage->device;
    int64_t n = self->sizes[d], numel = tensor_numel(self);
    if (numel == 0) {
        int zeros = 0;
        for (int j = 0; j < self->ndim; j++)
            zeros += self->sizes[j] == 0;
        if (zeros > 1)
            return sort_fail(CLOPS_INVALID_SHAPE, op, self,
                             "Number of zero sized dimensions is more than one, so unique cannot "
                             "be applied");
        if (n != 0)
            return sort_fail(CLOPS_INVALID_SHAPE, op, self,
                             "There are 0 sized dimensions, and they aren't selected, so unique "
                             "cannot be applied");
        st = tensor_new(dev, self->dtype, self->ndim, self->sizes, NULL, &r->v);
        if (st == CLOPS_OK)
            st = empty_i64(dev, &r->i);
        if (st == CLOPS_OK)
            st = empty_i64(dev, &r->c);
        if (st)
            res_release(r);
        return st;
    }
    /* Move dim to the front: rows of m = numel / n elements. */
    int64_t perm_dims[CLOPS_MAX_DIMS], back[CLOPS_MAX_DIMS], shape2[2] = {n, numel / n};
    int64_t rsz[CLOPS_MAX_DIMS];
    for (int j = 0, o = 1; j < self->ndim; j++)
        if (j != d)
            perm_dims[o++] = j;
    perm_dims[0] = d;
    for (int j = 0; j < self->ndim; j++) {
        back[perm_dims[j]] = j;
        rsz[j] = self->sizes[perm_dims[j]];
    }
    clops_tensor *pv = NULL, *x2 = NULL, *order = NULL, *rows = NULL, *shaped = NULL,
                 *moved = NULL;
    st = core_permute(self, perm_dims, self->ndim, &pv);
    if (st == CLOPS_OK)
        st = dense0(pv, &x2);
    if (st == CLOPS_OK) {
        clops_tensor *t = x2;
        x2 = NULL;
        st = core_reshape(t, shape2, 2, &x2);
        clops_tensor_release(t);
    }
    if (st == CLOPS_OK && sort)
        st = lexsort_rows(op, x2, n, shape2[1], &order);
    if (st == CLOPS_OK)
        st = unique_rows(op, x2, order, true, true, &rows, &r->i, &r->c);
    if (st == CLOPS_OK) {
        rsz[0] = rows->sizes[0];
        st = core_reshape(rows, rsz, self->ndim, &shaped);
    }
    if (st == CLOPS_OK)
        st = core_permute(shaped, back, self->ndim, &moved);
    if (st == CLOPS_OK)
        st = core_contiguous(moved, &r->v);
    clops_tensor_release(pv);
    clops_tensor_release(x2);
    clops_tensor_release(order);
    clops_tensor_release(rows);
    clops_tensor_release(shaped);
    clops_tensor_release(moved);
    if (st)
        res_release(r);
    return st;
}

/* Hands a uniq_res to fresh results (NULL pointers: not returned). */
static clops_status give(uniq_res *r, clops_tensor **o0, clops_tensor **o1, clops_tensor **o2)
{
    *o0 = r->v;
    *o1 = r->i;
    if (o2)
        *o2 = r->c;
    else
        clops_tensor_release(r->c);
    return CLOPS_OK;
}

/* Copies a uniq_res into out= tensors (resized; dtypes checked). */
static clops_status give_out(const char *op, clops_tensor *self, uniq_res *r, clops_tensor *o0,
                             clops_tensor *o1, clops_tensor *o2)
{
    clops_tensor *src[3] = {r->v, r->i, r->c}, *dst[3] = {o0, o1, o2};
    clops_status st = CLOPS_OK;
    for (int j = 0; st == CLOPS_OK && j < 3; j++)
        if (dst[j]) {
            st = sort_prep_out(op, self, dst[j], src[j]->dtype, src[j]->ndim, src[j]->sizes);
            if (st == CLOPS_OK)
                st = core_copy_(dst[j], src[j], false);
        }
    res_release(r);
    return st;
}

clops_status sort_unique2(clops_tensor *self, bool sorted, bool return_inverse,
                          bool return_counts, clops_tensor **out0, clops_tensor **out1,
                          clops_tensor **out2)
{
    (void)sorted; /* always sorted, as PyTorch's CPU and CUDA results */
    uniq_res r;
    clops_status st = unique_elems("_unique2", self, true, return_inverse, return_counts, &r);
    return st ? st : give(&r, out0, out1, out2);
}

clops_status sort_unique2_out(clops_tensor *self, bool sorted, bool return_inverse,
                              bool return_counts, clops_tensor *out0, clops_tensor *out1,
                              clops_tensor *out2)
{
    (void)sorted;
    uniq_res r;
    clops_status st = unique_elems("_unique2", self, true, return_inverse, return_counts, &r);
    return st ? st : give_out("_unique2", self, &r, out0, out1, out2);
}

clops_status sort_unique(clops_tensor *self, bool sorted, bool return_inverse,
                         clops_tensor **out0, clops_tensor **out1)
{
    (void)sorted;
    uniq_res r;
    clops_status st = unique_elems("_unique", self, true, return_inverse, false, &r);
    return st ? st : give(&r, out0, out1, NULL);
}

clops_status sort_unique_out(clops_tensor *self, bool sorted, bool return_inverse,
                             clops_tensor *out0, clops_tensor *out1)
{
    (void)sorted;
    uniq_res r;
    clops_status st = unique_elems("_unique", self, true, return_inverse, false, &r);
    return st ? st : give_out("_unique", self, &r, out0, out1, NULL);
}

clops_status sort_unique_dim(clops_tensor *self, int64_t dim, bool sorted, bool return_inverse,
                             bool return_counts, clops_tensor **out0, clops_tensor **out1,
                             clops_tensor **out2)
{
    (void)sorted, (void)return_inverse, (void)return_counts; /* always all three */
    uniq_res r;
    clops_status st = unique_along("unique_dim", self, dim, true, &r);
    return st ? st : give(&r, out0, out1, out2);
}

clops_status sort_unique_dim_out(clops_tensor *self, int64_t dim, bool sorted,
                                 bool return_inverse, bool return_counts, clops_tensor *out0,
                                 clops_tensor *out1, clops_tensor *out2)
{
    (void)sorted, (void)return_inverse, (void)return_counts;
    uniq_res r;
    clops_status st = unique_along("unique_dim", self, dim, true, &r);
    return st ? st : give_out("unique_dim", self, &r, out0, out1, out2);
}

clops_status sort_unique_dim_consecutive(clops_tensor *self, int64_t dim, bool return_inverse,
                                         bool return_counts, clops_tensor **out0,
                                         clops_tensor **out1, clops_tensor **out2)
{
    (void)return_inverse, (void)return_counts;
    uniq_res r;
    clops_status st = unique_along("unique_dim_consecutive", self, dim, false, &r);
    return st ? st : give(&r, out0, out1, out2);
}

clops_status sort_unique_dim_consecutive_out(clops_tensor *self, int64_t dim, bool return_inverse,
                                             bool return_counts, clops_tensor *out0,
                                             clops_tensor *out1, clops_tensor *out2)
{
    (void)return_inverse, (void)return_counts;
    uniq_res r;
    clops_status st = unique_along("unique_dim_consecutive", self, dim, false, &r);
    return st ? st : give_out("unique_dim_consecutive", self, &r, out0, out1, out2);
}

/* unique_consecutive: element-wise, or along *dim when given. */
static clops_status consecutive(clops_tensor *self, bool return_inverse, bool return_counts,
                                const int64_t *dim, uniq_res *r)
{
    static const char op[] = "unique_consecutive";
    return dim ? unique_along(op, self, *dim, false, r)
               : unique_elems(op, self, false, return_inverse, return_counts, r);
}

clops_status sort_unique_consecutive(clops_tensor *self, bool return_inverse, bool return_counts,
                                     const int64_t *dim, clops_tensor **out0, clops_tensor **out1,
                                     clops_tensor **out2)
{
    uniq_res r;
    clops_status st = consecutive(self, return_inverse, return_counts, dim, &r);
    return st ? st : give(&r, out0, out1, out2);
}

clops_status sort_unique_consecutive_out(clops_tensor *self, bool return_inverse,
                                         bool return_counts, const int64_t *dim,
                                         clops_tensor *out0, clops_tensor *out1,
                                         clops_tensor *out2)
{
    uniq_res r;
    clops_status st = consecutive(self, return_inverse, return_counts, dim, &r);
    return st ? st : give_out("unique_consecutive", self, &r, out0, out1, out2);
}
