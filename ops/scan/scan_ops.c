/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ops/scan/scan_ops.c: the scan family's operators (dispatch/inventory/scan.yaml):
 * cumsum, cumprod and logcumsumexp as structured families (functional,
 * in-place, out), cummax and cummin with their two-output out forms.
 *
 * Each checks its arguments with PyTorch's rules and messages, computes the
 * result dtype (cumsum/cumprod of integers and bool give int64 unless
 * `dtype` says otherwise; the input is converted to `dtype` first), and
 * hands the work to scan_run (ops/scan/scan.c).
 */
#include <stdio.h>

#include "dispatch/structured.h"
#include "ops/scan/scan.h"
#include "ops/kernels_generated.h"

/* Records "op: message (self: float32[5, 7] ... on opencl:0)". */
static clops_status scan_fail(clops_status st, const char *op, const clops_tensor *self,
                              const char *msg)
{
    char desc[256];
    return clops__fail(st, "%s: %s (self: %s)", op, msg, tensor_describe(self, desc, sizeof desc));
}

/* cumsum / cumprod: result dtype, then the scan into the structured target. */
static clops_status cum_arith(const char *op, scan_op kind, pw_variant variant, clops_tensor *dst,
                              clops_tensor *self, int64_t dim, clops_dtype dtype,
                              clops_tensor **out)
{
    int d = 0;
    clops_status st = wrap_dim(op, dim, self->ndim, &d);
    if (st)
        return st;
    clops_dtype rdt = dtype;
    if (rdt == CLOPS_DTYPE_NONE)
        rdt = clops_dtype_is_floating(self->dtype) ? self->dtype : CLOPS_INT64;
    structured_call call;
    if ((st = structured_begin(&call, op, variant, dst, self->storage->device, rdt, self->ndim,
                               self->sizes, &self, 1)))
        return st;
    st = scan_run(op, kind, self, d, call.target, NULL);
    return structured_finish(&call, st, out);
}

clops_status scan_cumsum(pw_variant variant, clops_tensor *dst, clops_tensor *self, int64_t dim,
                         clops_dtype dtype, clops_tensor **out)
{
    return cum_arith("cumsum", SCAN_SUM, variant, dst, self, dim, dtype, out);
}

clops_status scan_cumprod(pw_variant variant, clops_tensor *dst, clops_tensor *self, int64_t dim,
                          clops_dtype dtype, clops_tensor **out)
{
    return cum_arith("cumprod", SCAN_PROD, variant, dst, self, dim, dtype, out);
}

clops_status scan_logcumsumexp(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                               int64_t dim, clops_tensor **out)
{
    static const char op[] = "logcumsumexp";
    int d = 0;
    clops_status st = wrap_dim(op, dim, self->ndim, &d);
    if (st)
        return st;
    if (!clops_dtype_is_floating(self->dtype)) {
        char msg[96];
        snprintf(msg, sizeof msg, "not implemented for '%s'", clops_dtype_name(self->dtype));
        return scan_fail(CLOPS_INVALID_DTYPE, op, self, msg);
    }
    structured_call call;
    if ((st = structured_begin(&call, op, variant, dst, self->storage->device, self->dtype,
                               self->ndim, self->sizes, &self, 1)))
        return st;
    st = scan_run(op, SCAN_LOGSUMEXP, self, d, call.target, NULL);
    return structured_finish(&call, st, out);
}

/* cummax/cummin into given values/indices (resized to self's shape). */
static clops_status cum_minmax_into(const char *op, scan_op kind, clops_tensor *self, int d,
                                    clops_tensor *values, clops_tensor *indices)
{
    clops_status st = CLOPS_OK;
    if (values->dtype != self->dtype || indices->dtype != CLOPS_INT64) {
        char msg[160];
        snprintf(msg, sizeof msg,
                 "expected values of dtype %s and indices of dtype int64, got %s and %s",
                 clops_dtype_name(self->dtype), clops_dtype_name(values->dtype),
                 clops_dtype_name(indices->dtype));
        return scan_fail(CLOPS_INVALID_DTYPE, op, self, msg);
    }
    if (values->storage->device != self->storage->device ||
        indices->storage->device != self->storage->device)
        return scan_fail(CLOPS_INVALID_ARGUMENT, op, self,
                         "values and indices must be on self's device");
    clops_tensor *outs[2] = {values, indices};
    for (int i = 0; i < 2 && st == CLOPS_OK; i++) {
        bool same = outs[i]->ndim == self->ndim;
        for (int j = 0; same && j < self->ndim; j++)
            same = outs[i]->sizes[j] == self->sizes[j];
        if (!same)
            st = tensor_resize(outs[i], self->ndim, self->sizes);
    }
    if (st == CLOPS_OK)
        st = structured_check_overlap(op, values, &self, 1);
    if (st == CLOPS_OK)
        st = structured_check_overlap(op, indices, &self, 1);
    if (st == CLOPS_OK)
        st = structured_check_overlap(op, indices, &values, 1);
    if (st == CLOPS_OK)
        st = scan_run(op, kind, self, d, values, indices);
    return st;
}

/* Functional cummax/cummin: fresh values and indices. */
static clops_status cum_minmax(const char *op, scan_op kind, clops_tensor *self, int64_t dim,
                               clops_tensor **values, clops_tensor **indices)
{
    int d = 0;
    clops_status st = wrap_dim(op, dim, self->ndim, &d);
    if (st)
        return st;
    clops_tensor *v = NULL, *i = NULL;
    st = tensor_new(self->storage->device, self->dtype, self->ndim, self->sizes, NULL, &v);
    if (st == CLOPS_OK)
        st = tensor_new(self->storage->device, CLOPS_INT64, self->ndim, self->sizes, NULL, &i);
    if (st == CLOPS_OK)
        st = scan_run(op, kind, self, d, v, i);
    if (st) {
        clops_tensor_release(v);
        clops_tensor_release(i);
        return st;
    }
    *values = v;
    *indices = i;
    return CLOPS_OK;
}

/* The out forms: dim check, then cum_minmax_into. */
static clops_status cum_minmax_out(const char *op, scan_op kind, clops_tensor *self, int64_t dim,
                                   clops_tensor *values, clops_tensor *indices)
{
    int d = 0;
    clops_status st = wrap_dim(op, dim, self->ndim, &d);
    if (st)
        return st;
    return cum_minmax_into(op, kind, self, d, values, indices);
}

clops_status scan_cummax(clops_tensor *self, int64_t dim, clops_tensor **values,
                         clops_tensor **indices)
{
    return cum_minmax("cummax", SCAN_MAX, self, dim, values, indices);
}

clops_status scan_cummin(clops_tensor *self, int64_t dim, clops_tensor **values,
                         clops_tensor **indices)
{
    return cum_minmax("cummin", SCAN_MIN, self, dim, values, indices);
}

clops_status scan_cummax_out(clops_tensor *self, int64_t dim, clops_tensor *values,
                             clops_tensor *indices)
{
    return cum_minmax_out("cummax", SCAN_MAX, self, dim, values, indices);
}

clops_status scan_cummin_out(clops_tensor *self, int64_t dim, clops_tensor *values,
                             clops_tensor *indices)
{
    return cum_minmax_out("cummin", SCAN_MIN, self, dim, values, indices);
}
