/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ops/tensor/tensor_reshape.c: reshape and flatten, the tensor-family operators
 * that are a view when one exists and a contiguous copy otherwise, as in
 * PyTorch.
 *
 * The view geometry is core's (core/view.c, core/geometry.c); the copy is a
 * kernel (ops/tensor/tensor_copy.c), which is why these two live above core/.
 */
#include <stdint.h>

#include "ops/tensor/tensor.h"

/*
 * reshape and flatten: a view of self as `shape` when one exists, otherwise
 * a view of a contiguous copy of self (so the result is contiguous, at
 * offset 0, and shares nothing with self).  `op` names the caller.
 */
static clops_status reshape_as(const char *op, clops_tensor *self, const int64_t *shape,
                               int shape_len, clops_tensor **out)
{
    int64_t sizes[CLOPS_MAX_DIMS];
    int64_t strides[CLOPS_MAX_DIMS];
    clops_tensor *copy = NULL;
    clops_status st;

    st = infer_size(op, view_shape_numel(self->ndim, self->sizes), shape, shape_len, sizes);
    if (st)
        return st;
    if (view_compute_strides(self->ndim, self->sizes, self->strides, shape_len, sizes, strides))
        return tensor_make_view(op, self, shape_len, sizes, strides, self->offset, out);

    st = core_contiguous_copy(self, &copy);
    if (st) {
        clops__error_prefix(st, "%s", op);
        goto cleanup;
    }
    if (!view_compute_strides(copy->ndim, copy->sizes, copy->strides, shape_len, sizes,
                              strides)) {
        st = clops__fail(CLOPS_INTERNAL, "%s: the contiguous copy cannot be viewed", op);
        goto cleanup;
    }
    st = tensor_make_view(op, copy, shape_len, sizes, strides, copy->offset, out);

cleanup:
    clops_tensor_release(copy);
    return st;
}

/* Reshapes self to `shape` (one -1 allowed): a view when possible, else a
 * contiguous copy. */
clops_status core_reshape(clops_tensor *self, const int64_t *shape, int shape_len,
                          clops_tensor **out)
{
    clops_status st = view_check_self_out("reshape", self, out);

    if (st)
        return st;
    st = view_check_list("reshape", "shape", shape, shape_len);
    if (st)
        return st;
    return reshape_as("reshape", self, shape, shape_len, out);
}

/* Merges dims start_dim..end_dim into one: a view when possible, else a
 * contiguous copy.  A zero-dim self becomes shape [1]. */
clops_status core_flatten(clops_tensor *self, int64_t start_dim, int64_t end_dim,
                          clops_tensor **out)
{
    int64_t shape[CLOPS_MAX_DIMS];
    int n = 0;
    int s, e;
    clops_status st = view_check_self_out("flatten", self, out);

    if (st)
        return st;
    st = wrap_dim("flatten", start_dim, self->ndim, &s);
    if (!st)
        st = wrap_dim("flatten", end_dim, self->ndim, &e);
    if (st)
        return st;
    if (s > e)
        return clops__fail(CLOPS_INVALID_ARGUMENT,
                           "flatten: flatten() has invalid args: start_dim cannot come after "
                           "end_dim (start_dim %lld, end_dim %lld)",
                           (long long)start_dim, (long long)end_dim);
    if (self->ndim == 0) {
        shape[0] = 1;
        return reshape_as("flatten", self, shape, 1, out);
    }
    if (s == e)
        return core_alias(self, out);
    for (int d = 0; d < s; d++)
        shape[n++] = self->sizes[d];
    shape[n++] = view_shape_numel(e - s + 1, self->sizes + s);
    for (int d = e + 1; d < self->ndim; d++)
        shape[n++] = self->sizes[d];
    return reshape_as("flatten", self, shape, n, out);
}
