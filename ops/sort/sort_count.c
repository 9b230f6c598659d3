/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ops/sort/sort_count.c: bincount and histc (dispatch/inventory/sort.yaml), on the
 * device and deterministic.
 *
 * bincount sorts the input (int64, stably, ops/sort/sort.c), reads back its
 * first and last element (the smallest, to refuse negatives, and the
 * largest, to size the result), then one work-item per bin finds its run by
 * two binary searches and writes its size or, with weights, the sum of its
 * weights in input order: the order and precision of PyTorch's sequential
 * CPU loop, so the sums are PyTorch's bits, and no atomics are needed.
 * histc has one work-item per element compute PyTorch's bin (its
 * arithmetic in the input's type) and count with 32-bit integer atomics,
 * whose result does not depend on their order, into one row of counts per
 * chunk of at most 2^31 - 1 elements (so no count wraps); the rows are
 * summed in 64 bits in a fixed order and converted to the input's dtype.
 * The CPU device runs ref/sort_select.c (64-bit counts).
 */
#include <math.h>
#include <stdio.h>

#include "codegen_pointwise/pw.h"
#include "core/debug.h"
#include "host/host.h"
#include "ops/tensor/tensor.h"
#include "ops/kernels_generated.h"
#include "ops/kit/kit.h"
#include "ops/kit/lines.h"
#include "ops/sort/sort.h"

/* Element i of a 1-D tensor t (any device), as int64 or double. */
static clops_status read_elem(clops_tensor *t, int64_t i, pw_value *v, clops_dtype as)
{
    clops_tensor *e = NULL;
    unsigned char buf[8] = {0};
    clops_status st = core_select(t, 0, i, &e);
    if (st == CLOPS_OK)
        st = clops_tensor_to_host(e, buf, clops_dtype_size(t->dtype));
    clops_tensor_release(e);
    if (st == CLOPS_OK)
        *v = pw_ref_load(buf, 0, t->dtype, as);
    return st;
}

/* The counts (or weight sums) per bin into a fresh tensor of dtype rdt;
 * self is 1-D, integral, non-empty; w (NULL or rdt, contiguous) matches. */
static clops_status bincount_run(clops_tensor *self, clops_tensor *w, int64_t minlength,
                                 clops_dtype rdt, clops_tensor **out)
{
    static const char op[] = "bincount";
    clops_device *d = self->storage->device;
    int64_t n = self->sizes[0];
    clops_tensor *xi = NULL, *sv = NULL, *si = NULL, *res = NULL;
    pw_value lo = {0}, hi = {0};
    clops_status st = core_to_copy(self, CLOPS_INT64, NULL, &xi);
    if (st == CLOPS_OK)
        st = tensor_new(d, CLOPS_INT64, 1, &n, NULL, &sv);
    if (st == CLOPS_OK)
        st = tensor_new(d, CLOPS_INT64, 1, &n, NULL, &si);
    if (st == CLOPS_OK)
        st = sort_run(op, xi, 0, false, sv, si);
    if (st == CLOPS_OK)
        st = read_elem(sv, 0, &lo, CLOPS_INT64);
    if (st == CLOPS_OK)
        st = read_elem(sv, n - 1, &hi, CLOPS_INT64);
    if (st == CLOPS_OK && lo.i < 0)
        st = sort_fail(CLOPS_INVALID_ARGUMENT, op, self,
                       "bincount only supports 1-d non-negative integral inputs.");
    int64_t nbins = hi.i + 1 > minlength ? hi.i + 1 : minlength;
    if (st == CLOPS_OK)
        st = tensor_new(d, rdt, 1, &nbins, NULL, &res);
    if (st == CLOPS_OK && kit_is_host(d)) {
        ref_bincount(sort_host(sv), sort_host(si), n, sort_host(w), rdt, nbins, sort_host(res));
    } else if (st == CLOPS_OK) {
        host_kernel *k = NULL;
        st = sort_kernel(d, rdt, SORT_K_BINCOUNT, &k, NULL);
        cl_mem ms = sort_mem(sv), mi = sort_mem(si), mw = w ? sort_mem(w) : ms, mo = sort_mem(res);
        cl_long a_n = n, a_bins = nbins;
        cl_int has_w = w != NULL;
#define A(x) {sizeof(x), &(x)}
        host_arg args[] = {A(ms), A(mi), A(a_n), A(mw), A(has_w), A(a_bins), A(mo)};
#undef A
        if (st == CLOPS_OK)
            st = host_launch(d, k, 7, args, (size_t)nbins);
    }
    clops_tensor_release(xi);
    clops_tensor_release(sv);
    clops_tensor_release(si);
    if (st) {
        clops_tensor_release(res);
        return st;
    }
    *out = res;
    return CLOPS_OK;
}

/* bincount into a fresh result (PyTorch's checks and result dtypes: int64
 * without weights, float32 for float32 weights, else float64; an empty
 * input gives int64 zeros of minlength). */
static clops_status bincount_fresh(clops_tensor *self, clops_tensor *weights, int64_t minlength,
                                   clops_tensor **out)
{
    static const char op[] = "bincount";
    if (self->ndim != 1 || !clops_dtype_is_integral(self->dtype) || self->dtype == CLOPS_BOOL)
        return sort_fail(CLOPS_INVALID_ARGUMENT, op, self,
                         "bincount only supports 1-d non-negative integral inputs.");
    if (minlength < 0)
        return sort_fail(CLOPS_INVALID_ARGUMENT, op, self, "minlength should be >= 0");
    if (weights && (weights->ndim != 1 || weights->sizes[0] != self->sizes[0]))
        return sort_fail(CLOPS_INVALID_SHAPE, op, self,
                         "weights should be 1-d and have the same length as input");
    if (weights && weights->storage->device != self->storage->device)
        return sort_fail(CLOPS_INVALID_ARGUMENT, op, self, "weights must be on self's device");
    clops_device *d = self->storage->device;
    if (self->sizes[0] == 0) {
        clops_tensor *t = NULL;
        clops_status st = tensor_new(d, CLOPS_INT64, 1, &minlength, NULL, &t);
        if (st == CLOPS_OK)
            st = tensor_fill(t, clops_scalar_int(0));
        if (st) {
            clops_tensor_release(t);
            return st;
        }
        *out = t;
        return CLOPS_OK;
    }
    clops_dtype rdt = !weights                          ? CLOPS_INT64
                      : weights->dtype == CLOPS_FLOAT32 ? CLOPS_FLOAT32
                                                        : CLOPS_FLOAT64;
    clops_status st = check_dtype_on_device(op, rdt, d);
    clops_tensor *w = NULL;
    if (st == CLOPS_OK && weights)
        st = core_to_copy(weights, rdt, NULL, &w);
    if (st == CLOPS_OK)
        st = bincount_run(self, w, minlength, rdt, out);
    clops_tensor_release(w);
    return st;
}

clops_status sort_bincount(clops_tensor *self, clops_tensor *weights, int64_t minlength,
                           clops_tensor **out)
{
    return bincount_fresh(self, weights, minlength, out);
}

clops_status sort_bincount_out(clops_tensor *self, clops_tensor *weights, int64_t minlength,
                               clops_tensor *out)
{
    clops_tensor *r = NULL;
    clops_status st = bincount_fresh(self, weights, minlength, &r);
    if (st == CLOPS_OK)
        st = sort_prep_out("bincount", self, out, r->dtype, 1, r->sizes);
    if (st == CLOPS_OK)
        st = core_copy_(out, r, false);
    clops_tensor_release(r);
    return st;
}

/* The histogram range: min and max, or the data's when they are equal
 * (then widened by 1 when still equal); PyTorch's checks. */
static clops_status histc_range(clops_tensor *self, double *lo, double *hi)
{
    static const char op[] = "histc";
    if (*lo == *hi && tensor_numel(self) > 0) {
        clops_tensor *mn = NULL, *mx = NULL, *fmn = NULL, *fmx = NULL;
        pw_value a = {0}, b = {0};
        int64_t one = 1;
        clops_status st = reduce_aminmax(self, NULL, false, &mn, &mx);
        if (st == CLOPS_OK)
            st = core_reshape(mn, &one, 1, &fmn);
        if (st == CLOPS_OK)
            st = core_reshape(mx, &one, 1, &fmx);
        if (st == CLOPS_OK)
            st = read_elem(fmn, 0, &a, CLOPS_FLOAT64);
        if (st == CLOPS_OK)
            st = read_elem(fmx, 0, &b, CLOPS_FLOAT64);
        clops_tensor_release(mn);
        clops_tensor_release(mx);
        clops_tensor_release(fmn);
        clops_tensor_release(fmx);
        if (st)
            return st;
        *lo = a.f;
        *hi = b.f;
    }
    if (*lo == *hi) {
        *lo -= 1;
        *hi += 1;
    }
    if (isinf(*lo) || isinf(*hi) || isnan(*lo) || isnan(*hi)) {
        char msg[128];
        snprintf(msg, sizeof msg, "torch.histc: range of [%g, %g] is not finite", *lo, *hi);
        return sort_fail(CLOPS_INVALID_ARGUMENT, op, self, msg);
    }
    if (!(*lo < *hi))
        return sort_fail(CLOPS_INVALID_ARGUMENT, op, self,
                         "torch.histc: max must be larger than min");
    return CLOPS_OK;
}

/* histc into a fresh tensor of self's dtype. */
static clops_status histc_fresh(clops_tensor *self, int64_t bins, clops_scalar min,
                                clops_scalar max, clops_tensor **out)
{
    static const char op[] = "histc";
    if (!clops_dtype_is_floating(self->dtype)) {
        char msg[96];
        snprintf(msg, sizeof msg, "\"histogram_cpu\" not implemented for '%s'",
                 clops_dtype_name(self->dtype));
        return sort_fail(CLOPS_INVALID_DTYPE, op, self, msg);
    }
    if (bins <= 0) {
        char msg[96];
        snprintf(msg, sizeof msg, "torch.histogram(): bins must be > 0, but got %lld for "
                 "dimension 0", (long long)bins);
        return sort_fail(CLOPS_INVALID_ARGUMENT, op, self, msg);
    }
    int64_t n = tensor_numel(self);
    clops_status st = check_dtype_on_device(op, self->dtype, self->storage->device);
    if (st)
        return st;
    double lo = clops_scalar_to_double(min), hi = clops_scalar_to_double(max);
    st = histc_range(self, &lo, &hi);
    if (st)
        return st;
    lo = ref_round_to(lo, self->dtype); /* the edges PyTorch's linspace gives */
    hi = ref_round_to(hi, self->dtype);
    clops_device *d = self->storage->device;
    clops_tensor *x = NULL, *cnt = NULL, *rows = NULL;
    st = tensor_new(d, CLOPS_INT64, 1, &bins, NULL, &cnt);
    if (st == CLOPS_OK)
        st = tensor_fill(cnt, clops_scalar_int(0));
    if (st == CLOPS_OK && n > 0)
        st = core_contiguous_as(self, self->dtype, &x);
    if (st == CLOPS_OK && n > 0 && kit_is_host(d)) {
        ref_histc(sort_host(x), x->dtype, n, lo, hi, bins, sort_host(cnt));
    } else if (st == CLOPS_OK && n > 0) {
        /* Chunks of at most 2^31 - 1 elements (fewer with the
         * sort.histc_chunk setting) count into rows of 32-bit counts that
         * cannot wrap; sort_histc_sum adds the rows in 64 bits, in order. */
        int64_t chunk = clops_debug_get(CLOPS_DEBUG_SORT_HISTC_CHUNK);
        if (chunk <= 0 || chunk > INT32_MAX)
            chunk = INT32_MAX;
        int64_t nrows = ops_cdiv(n, chunk), rsz[2] = {nrows, bins};
        host_kernel *k = NULL, *ks = NULL;
        st = tensor_new(d, CLOPS_INT32, 2, rsz, NULL, &rows);
        if (st == CLOPS_OK)
            st = tensor_fill(rows, clops_scalar_int(0));
        if (st == CLOPS_OK)
            st = sort_kernel(d, x->dtype, SORT_K_HISTC, &k, NULL);
        if (st == CLOPS_OK)
            st = sort_kernel(d, x->dtype, SORT_K_HISTC_SUM, &ks, NULL);
        cl_mem mx = sort_mem(x), mr = sort_mem(rows), mc = sort_mem(cnt);
        cl_long a_bins = bins, a_rows = nrows;
        cl_float flo = (cl_float)lo, fhi = (cl_float)hi;
        cl_double dlo = lo, dhi = hi;
        bool dbl = x->dtype == CLOPS_FLOAT64;
        for (int64_t r = 0; st == CLOPS_OK && r < nrows; r++) {
            /* elements [a_off, a_end) into row r (a launch may run more
             * work-items than the chunk has: the kernel stops at a_end) */
            cl_long a_off = r * chunk, a_coff = r * bins; /* < n, < nrows * bins */
            cl_long a_end = n - a_off < chunk ? n : a_off + chunk;
            host_arg args[] = {{sizeof mx, &mx},
                               {sizeof a_off, &a_off},
                               {sizeof a_end, &a_end},
                               {dbl ? sizeof dlo : sizeof flo, dbl ? (void *)&dlo : (void *)&flo},
                               {dbl ? sizeof dhi : sizeof fhi, dbl ? (void *)&dhi : (void *)&fhi},
                               {sizeof a_bins, &a_bins},
                               {sizeof mr, &mr},
                               {sizeof a_coff, &a_coff}};
            st = host_launch(d, k, 8, args, (size_t)(a_end - a_off));
        }
        host_arg sargs[] = {{sizeof mr, &mr}, {sizeof a_rows, &a_rows}, {sizeof a_bins, &a_bins},
                            {sizeof mc, &mc}};
        if (st == CLOPS_OK)
            st = host_launch(d, ks, 4, sargs, (size_t)bins);
    }
    if (st == CLOPS_OK)
        st = core_to_copy(cnt, self->dtype, NULL, out);
    clops_tensor_release(x);
    clops_tensor_release(rows);
    clops_tensor_release(cnt);
    return st;
}

clops_status sort_histc(clops_tensor *self, int64_t bins, clops_scalar min, clops_scalar max,
                        clops_tensor **out)
{
    return histc_fresh(self, bins, min, max, out);
}

clops_status sort_histc_out(clops_tensor *self, int64_t bins, clops_scalar min, clops_scalar max,
                            clops_tensor *out)
{
    clops_tensor *r = NULL;
    clops_status st = histc_fresh(self, bins, min, max, &r);
    if (st == CLOPS_OK)
        st = sort_prep_out("histc", self, out, r->dtype, 1, r->sizes);
    if (st == CLOPS_OK)
        st = core_copy_(out, r, false);
    clops_tensor_release(r);
    return st;
}
