/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ops/reduce/reduce_minmax.c: the selecting and logical reductions: amax, amin,
 * max/min (whole tensor, and .dim with values and indices), argmax,
 * argmin, aminmax, any, all and count_nonzero.
 *
 * NaN semantics are PyTorch's: max/min/amax/amin/aminmax propagate NaN,
 * argmax/argmin (and the indices of max.dim/min.dim) give the index of the
 * first NaN, and ties give the first index.  These ops have no identity, so
 * an empty reduced dim is an error unless the result itself is empty.
 */
#include <string.h>

#include "host/host.h"
#include "ops/reduce/reduce.h"
#include "ops/kernels_generated.h"

/* amax/amin over a dim list (empty: every dim). */
static clops_status amax_like(const char *op, pw_variant variant, clops_tensor *dst,
                              clops_tensor *self, const int64_t *dim, int dim_len, bool keepdim,
                              reduce_kind kind, clops_tensor **out)
{
    bool mask[CLOPS_MAX_DIMS];
    clops_status st = reduce_dims_mask(op, self, dim, dim_len, true, mask);
    if (!st)
        st = reduce_check_nonempty(op, self, mask);
    if (st)
        return st;
    return reduce_structured(op, variant, dst, self, mask, keepdim, kind, self->dtype, 0, 0, out);
}

clops_status reduce_amax(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                         const int64_t *dim, int dim_len, bool keepdim, clops_tensor **out)
{
    return amax_like("amax", variant, dst, self, dim, dim_len, keepdim, RK_AMAX, out);
}

clops_status reduce_amin(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                         const int64_t *dim, int dim_len, bool keepdim, clops_tensor **out)
{
    return amax_like("amin", variant, dst, self, dim, dim_len, keepdim, RK_AMIN, out);
}

/* max()/min() of the whole tensor. */
static clops_status full_minmax(const char *op, pw_variant variant, clops_tensor *dst,
                                clops_tensor *self, reduce_kind kind, clops_tensor **out)
{
    if (tensor_numel(self) == 0)
        return clops__fail(CLOPS_INVALID_ARGUMENT,
                           "%s: Expected reduction dim to be specified for input.numel() == 0. "
                           "Specify the reduction dim with the 'dim' argument.",
                           op);
    return amax_like(op, variant, dst, self, NULL, 0, false, kind, out);
}

clops_status reduce_max(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                        clops_tensor **out)
{
    return full_minmax("max", variant, dst, self, RK_AMAX, out);
}

clops_status reduce_min(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                        clops_tensor **out)
{
    return full_minmax("min", variant, dst, self, RK_AMIN, out);
}

/* max.dim/min.dim: values and first indices. */
static clops_status minmax_dim(const char *op, pw_variant variant, clops_tensor *self,
                               int64_t dim, bool keepdim, reduce_kind kind, clops_tensor *dv,
                               clops_tensor *di, clops_tensor **values, clops_tensor **indices)
{
    bool mask[CLOPS_MAX_DIMS];
    clops_status st = reduce_dims_mask(op, self, &dim, 1, false, mask);
    if (!st)
        st = reduce_check_nonempty(op, self, mask);
    if (st)
        return st;
    return reduce_pair(op, variant, self, mask, keepdim, kind, CLOPS_INT64, self->dtype, di, dv,
                       indices, values, 0, 0);
}

clops_status reduce_max_dim(clops_tensor *self, int64_t dim, bool keepdim, clops_tensor **values,
                            clops_tensor **indices)
{
    return minmax_dim("max.dim", PW_FUNCTIONAL, self, dim, keepdim, RK_ARGMAX, NULL, NULL,
                      values, indices);
}

clops_status reduce_max_dim_max(clops_tensor *self, int64_t dim, bool keepdim, clops_tensor *max,
                                clops_tensor *max_values)
{
    return minmax_dim("max.dim_max", PW_OUT, self, dim, keepdim, RK_ARGMAX, max, max_values, NULL,
                      NULL);
}

clops_status reduce_min_dim(clops_tensor *self, int64_t dim, bool keepdim, clops_tensor **values,
                            clops_tensor **indices)
{
    return minmax_dim("min.dim", PW_FUNCTIONAL, self, dim, keepdim, RK_ARGMIN, NULL, NULL,
                      values, indices);
}

clops_status reduce_min_dim_min(clops_tensor *self, int64_t dim, bool keepdim, clops_tensor *min,
                                clops_tensor *min_indices)
{
    return minmax_dim("min.dim_min", PW_OUT, self, dim, keepdim, RK_ARGMIN, min, min_indices,
                      NULL, NULL);
}

/* argmax/argmin: dim None flattens (keepdim then keeps every dim as 1). */
static clops_status arg_like(const char *op, pw_variant variant, clops_tensor *dst,
                             clops_tensor *self, const int64_t *dim, bool keepdim,
                             reduce_kind kind, clops_tensor **out)
{
    if (self->dtype == CLOPS_BOOL)
        return clops__fail(CLOPS_INVALID_DTYPE, "%s: does not support bool input (on %s)", op,
                           self->storage->device->label);
    if (!dim && tensor_numel(self) == 0)
        return clops__fail(CLOPS_INVALID_ARGUMENT,
                           "%s: Expected reduction dim to be specified for input.numel() == 0.",
                           op);
    bool mask[CLOPS_MAX_DIMS];
    clops_status st = reduce_dims_mask(op, self, dim, dim ? 1 : 0, true, mask);
    if (!st)
        st = reduce_check_nonempty(op, self, mask);
    if (st)
        return st;
    return reduce_structured(op, variant, dst, self, mask, keepdim, kind, CLOPS_INT64, 0, 0, out);
}

clops_status reduce_argmax(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                           const int64_t *dim, bool keepdim, clops_tensor **out)
{
    return arg_like("argmax", variant, dst, self, dim, keepdim, RK_ARGMAX, out);
}

clops_status reduce_argmin(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                           const int64_t *dim, bool keepdim, clops_tensor **out)
{
    return arg_like("argmin", variant, dst, self, dim, keepdim, RK_ARGMIN, out);
}

/* aminmax: (min, max) over one dim or the whole tensor. */
static clops_status aminmax_like(pw_variant variant, clops_tensor *self, const int64_t *dim,
                                 bool keepdim, clops_tensor *dmin, clops_tensor *dmax,
                                 clops_tensor **omin, clops_tensor **omax)
{
    const char *op = "aminmax";
    bool mask[CLOPS_MAX_DIMS];
    clops_status st = reduce_dims_mask(op, self, dim, dim ? 1 : 0, true, mask);
    if (st)
        return st;
    int64_t r = 1;
    for (int d = 0; d < self->ndim; d++)
        if (mask[d])
            r *= self->sizes[d];
    if (r == 0)
        return clops__fail(CLOPS_INVALID_ARGUMENT,
                           "%s: cannot compute aminmax over an empty dimension as the operation "
                           "has no identity.",
                           op);
    return reduce_pair(op, variant, self, mask, keepdim, RK_AMINMAX, self->dtype, self->dtype,
                       dmin, dmax, omin, omax, 0, 0);
}

clops_status reduce_aminmax(clops_tensor *self, const int64_t *dim, bool keepdim,
                            clops_tensor **min, clops_tensor **max)
{
    return aminmax_like(PW_FUNCTIONAL, self, dim, keepdim, NULL, NULL, min, max);
}

clops_status reduce_aminmax_out(clops_tensor *self, const int64_t *dim, bool keepdim,
                                clops_tensor *min, clops_tensor *max)
{
    return aminmax_like(PW_OUT, self, dim, keepdim, min, max, NULL, NULL);
}

/* --- any / all / count_nonzero -------------------------------------------- */

/* any/all over a dim list (None: every dim; an empty list: none). */
static clops_status logical(const char *op, pw_variant variant, clops_tensor *dst,
                            clops_tensor *self, const int64_t *dim, int dim_len, bool keepdim,
                            reduce_kind kind, clops_tensor **out)
{
    bool mask[CLOPS_MAX_DIMS];
    clops_status st = reduce_dims_mask(op, self, dim, dim_len, false, mask);
    if (st)
        return st;
    clops_dtype r = self->dtype == CLOPS_UINT8 ? CLOPS_UINT8 : CLOPS_BOOL;
    return reduce_structured(op, variant, dst, self, mask, keepdim, kind, r, 0, 0, out);
}

clops_status reduce_any(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                        clops_tensor **out)
{
    return logical("any", variant, dst, self, NULL, 0, false, RK_ANY, out);
}

clops_status reduce_any_dim(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                            int64_t dim, bool keepdim, clops_tensor **out)
{
    return logical("any", variant, dst, self, &dim, 1, keepdim, RK_ANY, out);
}

clops_status reduce_any_dims(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                             const int64_t *dim, int dim_len, bool keepdim, clops_tensor **out)
{
    return logical("any", variant, dst, self, dim, dim_len, keepdim, RK_ANY, out);
}

clops_status reduce_all(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                        clops_tensor **out)
{
    return logical("all", variant, dst, self, NULL, 0, false, RK_ALL, out);
}

clops_status reduce_all_dim(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                            int64_t dim, bool keepdim, clops_tensor **out)
{
    return logical("all", variant, dst, self, &dim, 1, keepdim, RK_ALL, out);
}

clops_status reduce_all_dims(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                             const int64_t *dim, int dim_len, bool keepdim, clops_tensor **out)
{
    return logical("all", variant, dst, self, dim, dim_len, keepdim, RK_ALL, out);
}

clops_status reduce_count_nonzero(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                                  const int64_t *dim, clops_tensor **out)
{
    bool mask[CLOPS_MAX_DIMS];
    clops_status st = reduce_dims_mask("count_nonzero", self, dim, dim ? 1 : 0, true, mask);
    if (st)
        return st;
    return reduce_structured("count_nonzero", variant, dst, self, mask, false, RK_COUNT_NZ,
                             CLOPS_INT64, 0, 0, out);
}

clops_status reduce_count_nonzero_dims(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                                       const int64_t *dim, int dim_len, clops_tensor **out)
{
    bool mask[CLOPS_MAX_DIMS];
    clops_status st = reduce_dims_mask("count_nonzero", self, dim, dim_len, true, mask);
    if (st)
        return st;
    return reduce_structured("count_nonzero", variant, dst, self, mask, false, RK_COUNT_NZ,
                             CLOPS_INT64, 0, 0, out);
}
