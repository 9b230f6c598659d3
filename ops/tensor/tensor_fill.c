/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ops/tensor/tensor_fill.c: the filling factories of the tensor family (zeros,
 * ones, full, arange, from host data) and tensor_fill (fill_).
 *
 * Filling goes through the pointwise engine's copy op, so it runs on the
 * device without a host round trip; arange computes its values on the host
 * as PyTorch does and uploads them once.  These lived in core/tensor.c;
 * they are kernels, so they sit in the kernel layer (docs/architecture.md).
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "codegen_pointwise/pw.h"
#include "ops/tensor/tensor.h"

/* Fills every element of t with value through the pointwise copy op.  An
 * expanded tensor (stride-0 dims) aliases its elements: filling it is
 * filling the distinct elements, so the view with those dims collapsed to
 * size 1 is filled (PyTorch allows fill_ here, unlike other in-place ops). */
clops_status tensor_fill(clops_tensor *t, clops_scalar value)
{
    if (clops_dtype_is_complex(t->dtype)) {
        /* A real value: the real parts get it, the imaginary parts 0. */
        clops_tensor *rv = NULL, *part = NULL;
        clops_status st = core_view_as_real(t, &rv);
        if (st == CLOPS_OK)
            st = core_select(rv, -1, 0, &part);
        if (st == CLOPS_OK)
            st = tensor_fill(part, value);
        clops_tensor_release(part);
        part = NULL;
        if (st == CLOPS_OK)
            st = core_select(rv, -1, 1, &part);
        if (st == CLOPS_OK)
            st = tensor_fill(part, clops_scalar_int(0));
        clops_tensor_release(part);
        clops_tensor_release(rv);
        return st;
    }
    for (int d = 0; d < t->ndim; d++)
        if (t->strides[d] == 0 && t->sizes[d] > 1) {
            int64_t sizes[CLOPS_MAX_DIMS];
            for (int e = 0; e < t->ndim; e++)
                sizes[e] = t->strides[e] == 0 ? 1 : t->sizes[e];
            clops_tensor *v = NULL;
            clops_status st = tensor_make_view("fill_", t, t->ndim, sizes, t->strides, t->offset,
                                               &v);
            if (st == CLOPS_OK)
                st = tensor_fill(v, value);
            clops_tensor_release(v);
            return st;
        }
    pw_operand v = pw_scalar(value);
    pw_options opts = {.result = t->dtype,
                       .compute = (t->dtype == CLOPS_FLOAT16 || t->dtype == CLOPS_BFLOAT16)
                                      ? CLOPS_FLOAT32
                                      : t->dtype,
                       .opname = "fill_",
                       .dst_defines_shape = true};
    return pw_run(&pw_op_copy, PW_OUT, &v, NULL, t, &opts, NULL);
}

/* full() under the name of the factory the caller used. */
static clops_status full_named(const char *op, clops_device *device, clops_dtype dtype, int ndim,
                               const int64_t *sizes, clops_scalar value, clops_tensor **out)
{
    if (!out)
        return clops__fail(CLOPS_INVALID_ARGUMENT, "%s: out is NULL", op);
    clops_tensor *t = NULL;
    clops_status st = clops_empty(device, dtype, ndim, sizes, &t);
    if (st == CLOPS_OK)
        st = tensor_fill(t, value);
    if (st) {
        clops_tensor_release(t);
        return clops__error_prefix(st, "%s", op);
    }
    *out = t;
    return CLOPS_OK;
}

clops_status clops_full(clops_device *device, clops_dtype dtype, int ndim, const int64_t *sizes,
                        clops_scalar value, clops_tensor **out)
{
    return full_named("full", device, dtype, ndim, sizes, value, out);
}

clops_status clops_zeros(clops_device *device, clops_dtype dtype, int ndim, const int64_t *sizes,
                         clops_tensor **out)
{
    return full_named("zeros", device, dtype, ndim, sizes, clops_scalar_int(0), out);
}

clops_status clops_ones(clops_device *device, clops_dtype dtype, int ndim, const int64_t *sizes,
                        clops_tensor **out)
{
    return full_named("ones", device, dtype, ndim, sizes, clops_scalar_int(1), out);
}

clops_status clops_from_host(clops_device *device, clops_dtype dtype, int ndim,
                             const int64_t *sizes, const void *data, size_t nbytes,
                             clops_tensor **out)
{
    if (!out)
        return clops__fail(CLOPS_INVALID_ARGUMENT, "from_host: out is NULL");
    clops_tensor *t = NULL;
    clops_status st = clops_empty(device, dtype, ndim, sizes, &t);
    if (st)
        return st;
    st = clops_tensor_from_host(t, data, nbytes);
    if (st) {
        clops_tensor_release(t);
        return st;
    }
    *out = t;
    return CLOPS_OK;
}

clops_status clops_arange(clops_device *device, clops_dtype dtype, clops_scalar start,
                          clops_scalar end, clops_scalar step, clops_tensor **out)
{
    static const char op[] = "arange";
    if (!out)
        return clops__fail(CLOPS_INVALID_ARGUMENT, "%s: out is NULL", op);
    bool all_int = start.kind != CLOPS_SCALAR_FLOAT && end.kind != CLOPS_SCALAR_FLOAT &&
                   step.kind != CLOPS_SCALAR_FLOAT;
    if (dtype == CLOPS_DTYPE_NONE)
        dtype = all_int ? CLOPS_INT64 : CLOPS_FLOAT32;
    double s0 = clops_scalar_to_double(start), s1 = clops_scalar_to_double(end),
           st_ = clops_scalar_to_double(step);
    if (!isfinite(s0) || !isfinite(s1))
        return clops__fail(CLOPS_INVALID_ARGUMENT, "%s: unsupported range: %g -> %g", op, s0, s1);
    if (st_ == 0.0)
        return clops__fail(CLOPS_INVALID_ARGUMENT, "%s: step must be nonzero", op);
    if ((st_ > 0 && s1 < s0) || (st_ < 0 && s1 > s0))
        return clops__fail(CLOPS_INVALID_ARGUMENT,
                           "%s: upper bound and lower bound inconsistent with step sign", op);
    int64_t n;
    if (all_int) {
        int64_t a = start.kind == CLOPS_SCALAR_BOOL ? start.v.b : start.v.i;
        int64_t b = end.kind == CLOPS_SCALAR_BOOL ? end.v.b : end.v.i;
        int64_t s = step.kind == CLOPS_SCALAR_BOOL ? step.v.b : step.v.i;
        /* ceil((b - a) / s) in integers; a span or a rounding term that
         * does not fit int64 is PyTorch's "possible overflow" error. */
        int64_t span, t;
        if (__builtin_sub_overflow(b, a, &span) ||
            __builtin_add_overflow(span, s > 0 ? s - 1 : s + 1, &t))
            return clops__fail(CLOPS_INVALID_ARGUMENT,
                               "%s: invalid size, possible overflow? (start %lld, end %lld, step "
                               "%lld)",
                               op, (long long)a, (long long)b, (long long)s);
        n = t / s;
    } else {
        /* PyTorch: the size must be a finite count that fits int64. */
        double size_d = ceil((s1 - s0) / st_);
        if (!(size_d >= 0 && size_d <= 9223372036854775807.0))
            return clops__fail(CLOPS_INVALID_ARGUMENT,
                               "%s: invalid size, possible overflow? (start %g, end %g, step %g)",
                               op, s0, s1, st_);
        n = (int64_t)size_d;
    }
    if (n < 0)
        n = 0;
    int64_t size[1] = {n};
    size_t es = clops_dtype_size(dtype);
    if (es == 0)
        return clops__fail(CLOPS_INVALID_DTYPE, "%s: invalid dtype", op);
    if ((uint64_t)n > SIZE_MAX / 8)
        return clops__fail(CLOPS_INVALID_SHAPE, "%s: %lld elements is too many", op, (long long)n);
    /* Values are start + i * step in double (int64 for integer ranges), as
     * PyTorch computes them, written on the host and uploaded once. */
    void *buf = malloc(n ? (size_t)n * es : 1);
    if (!buf)
        return CLOPS__HOST_OOM("arange values");
    int64_t a = clops_scalar_to_int64(start), s = clops_scalar_to_int64(step);
    clops_dtype vt = all_int ? CLOPS_INT64 : CLOPS_FLOAT64;
    for (int64_t i = 0; i < n; i++) {
        pw_value v;
        if (all_int)
            v.i = (int64_t)((uint64_t)a + (uint64_t)i * (uint64_t)s);
        else
            v.f = s0 + (double)i * st_;
        pw_ref_store(buf, i, dtype, vt, v);
    }
    clops_tensor *t = NULL;
    clops_status st = clops_from_host(device, dtype, 1, size, buf, (size_t)n * es, &t);
    free(buf);
    if (st)
        return clops__error_prefix(st, "%s", op);
    *out = t;
    return CLOPS_OK;
}
