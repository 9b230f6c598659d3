/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ops/sort/sort_ops.c: the sort family's operators (dispatch/inventory/sort.yaml):
 * sort (and .stable), argsort, msort, topk and kthvalue, median,
 * nanmedian and mode with their out forms, all on sort_run (ops/sort/sort.c).
 *
 * Every sort is stable, so `stable=False` gives the stable result too (a
 * valid answer for PyTorch's unstable sort).  topk and kthvalue take their
 * elements from the stable sort: among equal values the one earlier in the
 * input comes first (PyTorch's CPU quickselect orders ties otherwise; the
 * values agree, the indices of tied elements may not: docs/sort.md).
 */
#include <math.h>
#include <stdio.h>

#include "dispatch/structured.h"
#include "ops/tensor/tensor.h"
#include "ops/sort/sort.h"
#include "ops/kernels_generated.h"

/* Records an error naming the op and self (ops/sort/sort.h). */
clops_status sort_fail(clops_status st, const char *op, const clops_tensor *self,
                              const char *msg)
{
    char desc[256];
    return clops__fail(st, "%s: %s (self: %s)", op, msg, tensor_describe(self, desc, sizeof desc));
}

/* Prepares an out= tensor (ops/sort/sort.h). */
clops_status sort_prep_out(const char *op, clops_tensor *self, clops_tensor *t, clops_dtype dt,
                             int ndim, const int64_t *sizes)
{
    if (t->dtype != dt) {
        char msg[128];
        snprintf(msg, sizeof msg, "expected an out tensor of dtype %s, got %s",
                 clops_dtype_name(dt), clops_dtype_name(t->dtype));
        return sort_fail(CLOPS_INVALID_DTYPE, op, self, msg);
    }
    if (t->storage->device != self->storage->device)
        return sort_fail(CLOPS_INVALID_ARGUMENT, op, self, "out tensors must be on self's device");
    bool same = t->ndim == ndim;
    for (int j = 0; same && j < ndim; j++)
        same = t->sizes[j] == sizes[j];
    clops_status st = same ? CLOPS_OK : tensor_resize(t, ndim, sizes);
    if (st == CLOPS_OK)
        st = structured_check_overlap(op, t, &self, 1);
    return st;
}

/* Sorts into (fresh when *v / *i are NULL on entry) values and indices. */
static clops_status sort_into(const char *op, clops_tensor *self, int64_t dim, bool desc,
                              clops_tensor *values, clops_tensor *indices)
{
    int d = 0;
    clops_status st = wrap_dim(op, dim, self->ndim, &d);
    if (st == CLOPS_OK && values)
        st = sort_prep_out(op, self, values, self->dtype, self->ndim, self->sizes);
    if (st == CLOPS_OK && indices)
        st = sort_prep_out(op, self, indices, CLOPS_INT64, self->ndim, self->sizes);
    if (st == CLOPS_OK && values && indices)
        st = structured_check_overlap(op, values, &indices, 1);
    if (st == CLOPS_OK)
        st = sort_run(op, self, d, desc, values, indices);
    return st;
}

/* Fresh values (if v) and indices (if i), sorted. */
static clops_status sort_fresh(const char *op, clops_tensor *self, int64_t dim, bool desc,
                               clops_tensor **v, clops_tensor **i)
{
    clops_tensor *tv = NULL, *ti = NULL;
    clops_status st = CLOPS_OK;
    if (v)
        st = tensor_new(self->storage->device, self->dtype, self->ndim, self->sizes, NULL, &tv);
    if (st == CLOPS_OK && i)
        st = tensor_new(self->storage->device, CLOPS_INT64, self->ndim, self->sizes, NULL, &ti);
    if (st == CLOPS_OK)
        st = sort_into(op, self, dim, desc, tv, ti);
    if (st) {
        clops_tensor_release(tv);
        clops_tensor_release(ti);
        return st;
    }
    if (v)
        *v = tv;
    if (i)
        *i = ti;
    return CLOPS_OK;
}

clops_status sort_sort(clops_tensor *self, int64_t dim, bool descending, clops_tensor **values,
                       clops_tensor **indices)
{
    return sort_fresh("sort", self, dim, descending, values, indices);
}

clops_status sort_sort_stable(clops_tensor *self, const bool *stable, int64_t dim,
                              bool descending, clops_tensor **values, clops_tensor **indices)
{
    (void)stable; /* every sort is stable */
    return sort_fresh("sort", self, dim, descending, values, indices);
}

clops_status sort_sort_out(clops_tensor *self, int64_t dim, bool descending, clops_tensor *values,
                           clops_tensor *indices)
{
    return sort_into("sort", self, dim, descending, values, indices);
}

clops_status sort_sort_stable_out(clops_tensor *self, const bool *stable, int64_t dim,
                                  bool descending, clops_tensor *values, clops_tensor *indices)
{
    (void)stable;
    return sort_into("sort", self, dim, descending, values, indices);
}

clops_status sort_argsort(clops_tensor *self, int64_t dim, bool descending, clops_tensor **out)
{
    return sort_fresh("argsort", self, dim, descending, NULL, out);
}

clops_status sort_argsort_stable(clops_tensor *self, bool stable, int64_t dim, bool descending,
                                 clops_tensor **out)
{
    (void)stable;
    return sort_fresh("argsort", self, dim, descending, NULL, out);
}

clops_status sort_argsort_stable_out(clops_tensor *self, bool stable, int64_t dim,
                                     bool descending, clops_tensor *out)
{
    (void)stable;
    return sort_into("argsort", self, dim, descending, NULL, out);
}

clops_status sort_msort(clops_tensor *self, clops_tensor **out)
{
    return sort_fresh("msort", self, 0, false, out, NULL);
}

clops_status sort_msort_out(clops_tensor *self, clops_tensor *out)
{
    return sort_into("msort", self, 0, false, out, NULL);
}

/*
 * The first `count` sorted elements from position `first` of each line
 * (topk: first 0; kthvalue: first k-1, count 1) into values/indices of
 * shape `shape` (ndim dims).  Sorts into temporaries, then copies the
 * narrowed slices.
 */
static clops_status select_sorted(const char *op, clops_tensor *self, int d, bool desc,
                                  int64_t first, int64_t count, clops_tensor *values,
                                  clops_tensor *indices)
{
    clops_tensor *tv = NULL, *ti = NULL, *nv = NULL, *ni = NULL;
    clops_device *dev = self->storage->device;
    clops_status st = tensor_new(dev, self->dtype, self->ndim, self->sizes, NULL, &tv);
    if (st == CLOPS_OK)
        st = tensor_new(dev, CLOPS_INT64, self->ndim, self->sizes, NULL, &ti);
    if (st == CLOPS_OK)
        st = sort_run(op, self, d, desc, tv, ti);
    if (st == CLOPS_OK && self->ndim) {
        st = core_narrow(tv, d, first, count, &nv);
        if (st == CLOPS_OK)
            st = core_narrow(ti, d, first, count, &ni);
    }
    if (st == CLOPS_OK) {
        /* values/indices may lack the dim (kthvalue without keepdim): view
         * them with self's rank. */
        clops_tensor *src_v = nv ? nv : tv, *src_i = ni ? ni : ti;
        clops_tensor *dv = NULL, *di = NULL;
        if (values->ndim != src_v->ndim) {
            st = core_unsqueeze(values, d, &dv);
            if (st == CLOPS_OK)
                st = core_unsqueeze(indices, d, &di);
        }
        if (st == CLOPS_OK)
            st = core_copy_(dv ? dv : values, src_v, false);
        if (st == CLOPS_OK)
            st = core_copy_(di ? di : indices, src_i, false);
        clops_tensor_release(dv);
        clops_tensor_release(di);
    }
    clops_tensor_release(tv);
    clops_tensor_release(ti);
    clops_tensor_release(nv);
    clops_tensor_release(ni);
    return st;
}

/* A view of t whose dim d (of n = q * c elements) is split into dims d
 * (q chunks) and d + 1 (c elements each); its rank is t's plus one. */
static clops_status split_dim(clops_tensor *t, int d, int64_t q, int64_t c, clops_tensor **out)
{
    int64_t sz[CLOPS_MAX_DIMS], st[CLOPS_MAX_DIMS], off = t->offset;
    for (int j = 0, o = 0; j < t->ndim; j++, o++) {
        sz[o] = j == d ? q : t->sizes[j];
        st[o] = j == d ? c * t->strides[j] : t->strides[j];
        if (j == d) {
            sz[++o] = c;
            st[o] = t->strides[j];
        }
    }
    return core_as_strided(t, sz, t->ndim + 1, st, t->ndim + 1, &off, out);
}

/*
 * topk of lines longer than GPUs select in one work-group (SORT_TOPK_NMAX;
 * k <= SORT_TOPK_KMAX, keys of at most 4 bytes) without sorting them (24
 * bytes an element): each chunk of SORT_TOPK_NMAX elements of a line, and
 * the shorter last one, selects its own k (sort_topk_select, one
 * work-group a chunk); these candidates, k a chunk in chunk order, form a
 * line of about n * k / SORT_TOPK_NMAX elements whose topk (the same way
 * until it fits one chunk) gives the values and candidate positions p,
 * and the line positions are (p / k) * SORT_TOPK_NMAX + the candidates'
 * own positions at p.  The selection takes the first of equal keys in line
 * order and orders them by position, and candidates keep line order, so
 * the result is the stable sort's first k, as one selection's is.  Extra
 * memory: (key size + 8) bytes per candidate, k / 4096 of the line's
 * (0.75 bytes an element at k = 256, 9 bytes per 4096 elements at k = 1
 * for uint8).  *done stays false where the device or the layout does not
 * allow the selection (the caller sorts).
 */
static clops_status topk_tournament(clops_tensor *self, int d, int64_t k, bool largest,
                                    clops_tensor *values, clops_tensor *indices, bool *done)
{
    *done = false;
    const int64_t n = self->sizes[d], c = SORT_TOPK_NMAX;
    if (n <= c)
        return sort_topk_select(self, d, k, largest, values, indices, done);
    if (self->ndim + 1 > CLOPS_MAX_DIMS || k > SORT_TOPK_KMAX)
        return CLOPS_OK;
    clops_device *dev = self->storage->device;
    const int64_t q = n / c, r = n % c, kr = r < k ? r : k, m = q * k + kr;
    int64_t csz[CLOPS_MAX_DIMS], psz[CLOPS_MAX_DIMS];
    for (int j = 0; j < self->ndim; j++) {
        csz[j] = j == d ? m : self->sizes[j];
        psz[j] = j == d ? k : self->sizes[j];
    }
    clops_tensor *cv = NULL, *ci = NULL, *sa = NULL, *va = NULL, *ia = NULL;
    clops_tensor *sr = NULL, *vr = NULL, *ir = NULL, *p = NULL, *g = NULL, *ch = NULL;
    bool ok = false;
    clops_status st = tensor_new(dev, self->dtype, self->ndim, csz, NULL, &cv);
    if (st == CLOPS_OK)
        st = tensor_new(dev, CLOPS_INT64, self->ndim, csz, NULL, &ci);
    /* the q whole chunks: dim d split into (q, c), candidates (q, k) */
    if (st == CLOPS_OK)
        st = split_dim(self, d, q, c, &sa);
    if (st == CLOPS_OK)
        st = core_narrow(cv, d, 0, q * k, &va);
    if (st == CLOPS_OK)
        st = core_narrow(ci, d, 0, q * k, &ia);
    clops_tensor *va2 = NULL, *ia2 = NULL;
    if (st == CLOPS_OK)
        st = split_dim(va, d, q, k, &va2);
    if (st == CLOPS_OK)
        st = split_dim(ia, d, q, k, &ia2);
    if (st == CLOPS_OK)
        st = sort_topk_select(sa, d + 1, k, largest, va2, ia2, &ok);
    clops_tensor_release(va2);
    clops_tensor_release(ia2);
    /* the last, shorter chunk (candidates q * k on: (p / k) * c is q * c) */
    if (st == CLOPS_OK && ok && kr > 0) {
        st = core_narrow(self, d, q * c, r, &sr);
        if (st == CLOPS_OK)
            st = core_narrow(cv, d, q * k, kr, &vr);
        if (st == CLOPS_OK)
            st = core_narrow(ci, d, q * k, kr, &ir);
        if (st == CLOPS_OK)
            st = sort_topk_select(sr, d, kr, largest, vr, ir, &ok);
    }
    /* the candidates' topk, then p -> (p / k) * c + ci[p] */
    if (st == CLOPS_OK && ok)
        st = tensor_new(dev, CLOPS_INT64, self->ndim, psz, NULL, &p);
    if (st == CLOPS_OK && ok)
        st = topk_tournament(cv, d, k, largest, values, p, &ok);
    if (st == CLOPS_OK && ok)
        st = ix_fn_gather(PW_FUNCTIONAL, NULL, ci, d, p, false, &g);
    if (st == CLOPS_OK && ok)
        st = pw_fn_div_scalar_mode(PW_FUNCTIONAL, NULL, p, clops_scalar_int(k), "floor", &ch);
    if (st == CLOPS_OK && ok)
        st = pw_fn_sub_tensor(PW_OUT, indices, g, ch, clops_scalar_int(-c), NULL);
    clops_tensor *const tmp[] = {cv, ci, sa, va, ia, sr, vr, ir, p, g, ch};
    for (size_t j = 0; j < sizeof tmp / sizeof tmp[0]; j++)
        clops_tensor_release(tmp[j]);
    *done = st == CLOPS_OK && ok;
    return st;
}

/* topk into given values/indices (resized). */
static clops_status topk_into(clops_tensor *self, int64_t k, int64_t dim, bool largest,
                              clops_tensor *values, clops_tensor *indices)
{
    static const char op[] = "topk";
    int d = 0;
    clops_status st = wrap_dim(op, dim, self->ndim, &d);
    if (st)
        return st;
    if (self->dtype == CLOPS_BOOL)
        return sort_fail(CLOPS_INVALID_DTYPE, op, self, "topk does not support bool dtypes");
    int64_t n = self->ndim ? self->sizes[d] : 1;
    if (k < 0 || k > n)
        return sort_fail(CLOPS_INDEX_OUT_OF_RANGE, op, self, "selected index k out of range");
    int64_t sizes[CLOPS_MAX_DIMS];
    for (int j = 0; j < self->ndim; j++)
        sizes[j] = j == d ? k : self->sizes[j];
    if ((st = sort_prep_out(op, self, values, self->dtype, self->ndim, sizes)) ||
        (st = sort_prep_out(op, self, indices, CLOPS_INT64, self->ndim, sizes)))
        return st;
    /* A 0-dim input gives its element and index 0 for k 0 as for k 1:
     * PyTorch's results are 0-dim there, never empty. */
    if (self->ndim == 0) {
        st = core_copy_(values, self, false);
        return st ? st : tensor_fill(indices, clops_scalar_int(0));
    }
    if (k == 0 || tensor_numel(self) == 0)
        return CLOPS_OK;
    bool done = false;
    if ((st = check_dtype_on_device(op, self->dtype, self->storage->device)) ||
        (st = sort_topk_select(self, d, k, largest, values, indices, &done)) || done)
        return st;
    if ((st = topk_tournament(self, d, k, largest, values, indices, &done)) || done)
        return st;
    return select_sorted(op, self, d, largest, 0, k, values, indices);
}

clops_status sort_topk(clops_tensor *self, int64_t k, int64_t dim, bool largest, bool sorted,
                       clops_tensor **values, clops_tensor **indices)
{
    (void)sorted; /* always sorted */
    clops_tensor *v = NULL, *i = NULL;
    clops_status st = tensor_new(self->storage->device, self->dtype, 0, NULL, NULL, &v);
    if (st == CLOPS_OK)
        st = tensor_new(self->storage->device, CLOPS_INT64, 0, NULL, NULL, &i);
    if (st == CLOPS_OK)
        st = topk_into(self, k, dim, largest, v, i);
    if (st) {
        clops_tensor_release(v);
        clops_tensor_release(i);
        return st;
    }
    *values = v;
    *indices = i;
    return CLOPS_OK;
}

clops_status sort_topk_out(clops_tensor *self, int64_t k, int64_t dim, bool largest, bool sorted,
                           clops_tensor *values, clops_tensor *indices)
{
    (void)sorted;
    return topk_into(self, k, dim, largest, values, indices);
}

/* kthvalue into given values/indices (resized). */
static clops_status kth_into(clops_tensor *self, int64_t k, int64_t dim, bool keepdim,
                             clops_tensor *values, clops_tensor *indices)
{
    static const char op[] = "kthvalue";
    int d = 0;
    clops_status st = wrap_dim(op, dim, self->ndim, &d);
    if (st)
        return st;
    if (self->dtype == CLOPS_BOOL)
        return sort_fail(CLOPS_INVALID_DTYPE, op, self, "not implemented for 'Bool'");
    int64_t n = self->ndim ? self->sizes[d] : 1;
    if (k < 1 || k > n) {
        char msg[128];
        snprintf(msg, sizeof msg, "selected number k out of range for dimension %d", d);
        return sort_fail(CLOPS_INDEX_OUT_OF_RANGE, op, self, msg);
    }
    int64_t sizes[CLOPS_MAX_DIMS];
    int nd = 0;
    for (int j = 0; j < self->ndim; j++)
        if (j != d || keepdim)
            sizes[nd++] = j == d ? 1 : self->sizes[j];
    if ((st = sort_prep_out(op, self, values, self->dtype, nd, sizes)) ||
        (st = sort_prep_out(op, self, indices, CLOPS_INT64, nd, sizes)))
        return st;
    if (tensor_numel(self) == 0)
        return CLOPS_OK;
    return select_sorted(op, self, d, false, k - 1, 1, values, indices);
}

clops_status sort_kthvalue(clops_tensor *self, int64_t k, int64_t dim, bool keepdim,
                           clops_tensor **values, clops_tensor **indices)
{
    clops_tensor *v = NULL, *i = NULL;
    clops_status st = tensor_new(self->storage->device, self->dtype, 0, NULL, NULL, &v);
    if (st == CLOPS_OK)
        st = tensor_new(self->storage->device, CLOPS_INT64, 0, NULL, NULL, &i);
    if (st == CLOPS_OK)
        st = kth_into(self, k, dim, keepdim, v, i);
    if (st) {
        clops_tensor_release(v);
        clops_tensor_release(i);
        return st;
    }
    *values = v;
    *indices = i;
    return CLOPS_OK;
}

clops_status sort_kthvalue_out(clops_tensor *self, int64_t k, int64_t dim, bool keepdim,
                               clops_tensor *values, clops_tensor *indices)
{
    return kth_into(self, k, dim, keepdim, values, indices);
}

/* What median_into picks from each sorted line. */
typedef enum pick_kind { PICK_MEDIAN, PICK_NANMEDIAN, PICK_MODE } pick_kind;

/* median/nanmedian/mode along d into values/indices of the reduced shape
 * (keepdim or not), through a sorted temporary and sort_pick_median or
 * sort_pick_mode. */
static clops_status median_into(const char *op, pick_kind pick, clops_tensor *self, int64_t dim,
                                bool keepdim, clops_tensor *values, clops_tensor *indices)
{
    int d = 0;
    clops_status st = wrap_dim(op, dim, self->ndim, &d);
    if (st)
        return st;
    if (self->dtype == CLOPS_BOOL && pick != PICK_MODE)
        return sort_fail(CLOPS_INVALID_DTYPE, op, self, "not implemented for 'Bool'");
    if (self->ndim && self->sizes[d] == 0) {
        char msg[96];
        snprintf(msg, sizeof msg, "Expected reduction dim %d to have non-zero size.", d);
        return sort_fail(CLOPS_INDEX_OUT_OF_RANGE, op, self, msg);
    }
    int64_t sizes[CLOPS_MAX_DIMS];
    int nd = 0;
    for (int j = 0; j < self->ndim; j++)
        if (j != d || keepdim)
            sizes[nd++] = j == d ? 1 : self->sizes[j];
    if ((st = sort_prep_out(op, self, values, self->dtype, nd, sizes)) ||
        (st = sort_prep_out(op, self, indices, CLOPS_INT64, nd, sizes)))
        return st;
    if (tensor_numel(self) == 0)
        return CLOPS_OK;
    clops_device *dev = self->storage->device;
    clops_tensor *tv = NULL, *ti = NULL, *ov = NULL, *oi = NULL;
    st = tensor_new(dev, self->dtype, self->ndim, self->sizes, NULL, &tv);
    if (st == CLOPS_OK)
        st = tensor_new(dev, CLOPS_INT64, self->ndim, self->sizes, NULL, &ti);
    if (st == CLOPS_OK)
        st = tensor_new(dev, self->dtype, nd, sizes, NULL, &ov);
    if (st == CLOPS_OK)
        st = tensor_new(dev, CLOPS_INT64, nd, sizes, NULL, &oi);
    if (st == CLOPS_OK)
        st = sort_run(op, self, d, false, tv, ti);
    if (st == CLOPS_OK)
        st = pick == PICK_MODE ? sort_pick_mode(op, tv, ti, d, ov, oi)
                               : sort_pick_median(op, tv, ti, d, pick == PICK_NANMEDIAN, ov, oi);
    if (st == CLOPS_OK)
        st = core_copy_(values, ov, false);
    if (st == CLOPS_OK)
        st = core_copy_(indices, oi, false);
    clops_tensor_release(tv);
    clops_tensor_release(ti);
    clops_tensor_release(ov);
    clops_tensor_release(oi);
    return st;
}

/* Fresh values and indices of median_into. */
static clops_status median_fresh(const char *op, pick_kind pick, clops_tensor *self, int64_t dim,
                                 bool keepdim, clops_tensor **values, clops_tensor **indices)
{
    clops_tensor *v = NULL, *i = NULL;
    clops_status st = tensor_new(self->storage->device, self->dtype, 0, NULL, NULL, &v);
    if (st == CLOPS_OK)
        st = tensor_new(self->storage->device, CLOPS_INT64, 0, NULL, NULL, &i);
    if (st == CLOPS_OK)
        st = median_into(op, pick, self, dim, keepdim, v, i);
    if (st || !indices) {
        clops_tensor_release(i);
        i = NULL;
    }
    if (st) {
        clops_tensor_release(v);
        return st;
    }
    *values = v;
    if (indices)
        *indices = i;
    return CLOPS_OK;
}

/* median()/nanmedian() of every element: a 0-dim result; NaN when empty
 * (floating; integers give their smallest value, as PyTorch's CPU). */
static clops_status median_all(const char *op, pick_kind pick, clops_tensor *self,
                               clops_tensor **out)
{
    if (tensor_numel(self) == 0) {
        if (self->dtype == CLOPS_BOOL)
            return sort_fail(CLOPS_INVALID_DTYPE, op, self, "not implemented for 'Bool'");
        clops_tensor *t = NULL;
        clops_status st = tensor_new(self->storage->device, self->dtype, 0, NULL, NULL, &t);
        int64_t lo = 0, hi = 0;
        dtype_int_range(self->dtype, &lo, &hi);
        if (st == CLOPS_OK)
            st = tensor_fill(t, clops_dtype_is_floating(self->dtype) ? clops_scalar_float(NAN)
                                                                     : clops_scalar_int(lo));
        if (st) {
            clops_tensor_release(t);
            return st;
        }
        *out = t;
        return CLOPS_OK;
    }
    clops_tensor *flat = NULL;
    int64_t m1 = -1;
    clops_status st = core_reshape(self, &m1, 1, &flat);
    if (st == CLOPS_OK)
        st = median_fresh(op, pick, flat, 0, false, out, NULL);
    clops_tensor_release(flat);
    return st;
}

clops_status sort_median(clops_tensor *self, clops_tensor **out)
{
    return median_all("median", PICK_MEDIAN, self, out);
}

clops_status sort_nanmedian(clops_tensor *self, clops_tensor **out)
{
    return median_all("nanmedian", PICK_NANMEDIAN, self, out);
}

clops_status sort_median_dim(clops_tensor *self, int64_t dim, bool keepdim, clops_tensor **values,
                             clops_tensor **indices)
{
    return median_fresh("median", PICK_MEDIAN, self, dim, keepdim, values, indices);
}

clops_status sort_nanmedian_dim(clops_tensor *self, int64_t dim, bool keepdim,
                                clops_tensor **values, clops_tensor **indices)
{
    return median_fresh("nanmedian", PICK_NANMEDIAN, self, dim, keepdim, values, indices);
}

clops_status sort_median_dim_out(clops_tensor *self, int64_t dim, bool keepdim,
                                 clops_tensor *values, clops_tensor *indices)
{
    return median_into("median", PICK_MEDIAN, self, dim, keepdim, values, indices);
}

clops_status sort_nanmedian_dim_out(clops_tensor *self, int64_t dim, bool keepdim,
                                    clops_tensor *values, clops_tensor *indices)
{
    return median_into("nanmedian", PICK_NANMEDIAN, self, dim, keepdim, values, indices);
}

clops_status sort_mode(clops_tensor *self, int64_t dim, bool keepdim, clops_tensor **values,
                       clops_tensor **indices)
{
    return median_fresh("mode", PICK_MODE, self, dim, keepdim, values, indices);
}

clops_status sort_mode_out(clops_tensor *self, int64_t dim, bool keepdim, clops_tensor *values,
                           clops_tensor *indices)
{
    return median_into("mode", PICK_MODE, self, dim, keepdim, values, indices);
}
