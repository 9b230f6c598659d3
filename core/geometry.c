/* SPDX-License-Identifier: Apache-2.0 */
/*
 * core/geometry.c: shape and stride arithmetic shared by the tensor
 * constructors and the view operators.
 *
 * Everything here works on plain arrays of sizes and strides (in elements),
 * never on tensor objects, so the same rules serve tensor_make's bounds check,
 * the factories' contiguous strides and the views in core/view.c.  The rules
 * are PyTorch's: contiguous strides treat size-0 and size-1 dims the way
 * empty_strided does, wrap_dim accepts dims -1 and 0 on a zero-dim tensor,
 * infer_size reports a bad shape with ATen's wording, and
 * view_compute_strides is ATen's computeStride (a view exists when the new
 * shape splits into the same contiguous chunks as the old one).  Arithmetic
 * that could overflow int64 is checked and reported, never left undefined.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "core/tensor_impl.h"

/* Room for "[a, b, ...]" with CLOPS_MAX_DIMS int64 values. */
#define SHAPE_BUF (CLOPS_MAX_DIMS * 22 + 4)

/* Multiplies two non-negative int64 values; false when the product does not
 * fit in int64 (the result is then left unset). */
static bool mul_nonneg(int64_t a, int64_t b, int64_t *out)
{
    if (a != 0 && b > INT64_MAX / a)
        return false;
    *out = a * b;
    return true;
}

/* The checked int64 arithmetic every size computation uses (tensor_impl.h):
 * false on overflow, *out then left unset. */
bool geom_add(int64_t a, int64_t b, int64_t *out)
{
    if ((b > 0 && a > INT64_MAX - b) || (b < 0 && a < INT64_MIN - b))
        return false;
    *out = a + b;
    return true;
}

bool geom_sub(int64_t a, int64_t b, int64_t *out)
{
    if ((b < 0 && a > INT64_MAX + b) || (b > 0 && a < INT64_MIN + b))
        return false;
    *out = a - b;
    return true;
}

bool geom_mul(int64_t a, int64_t b, int64_t *out)
{
    if (a == 0 || b == 0) {
        *out = 0;
        return true;
    }
    if (a == INT64_MIN || b == INT64_MIN) {
        /* Only INT64_MIN * 1 fits. */
        if (a == 1 || b == 1) {
            *out = a == 1 ? b : a;
            return true;
        }
        return false;
    }
    int64_t ua = a < 0 ? -a : a;
    int64_t ub = b < 0 ? -b : b;
    int64_t p;
    if (!mul_nonneg(ua, ub, &p))
        return false;
    *out = ((a < 0) != (b < 0)) ? -p : p;
    return true;
}

/*
 * Row-major strides: the last dim has stride 1 and each earlier one the
 * stride of the next times max(next size, 1), as PyTorch's contiguous layout
 * does, so size-0 dims do not zero the strides before them.  Sizes are
 * expected to have passed check_sizes; the multiplication wraps (unsigned)
 * rather than invoking undefined behaviour if they did not.
 */
void contiguous_strides(int ndim, const int64_t *sizes, int64_t *strides)
{
    uint64_t stride = 1;
    for (int d = ndim - 1; d >= 0; d--) {
        strides[d] = (int64_t)stride;
        stride *= (uint64_t)(sizes[d] > 1 ? sizes[d] : 1);
    }
}

/*
 * Validates a shape: a rank between 0 and CLOPS_MAX_DIMS, no negative size,
 * and a product of max(size, 1) over the dims that fits in int64 (which also
 * bounds numel and every contiguous stride).
 */
clops_status check_sizes(const char *op, int ndim, const int64_t *sizes)
{
    char shape[SHAPE_BUF];
    int64_t product = 1;

    if (ndim < 0 || ndim > CLOPS_MAX_DIMS)
        return clops__fail(CLOPS_INVALID_SHAPE,
                           "%s: a tensor has between 0 and %d dimensions, got %d", op,
                           CLOPS_MAX_DIMS, ndim);
    if (ndim > 0 && !sizes)
        return clops__fail(CLOPS_INVALID_ARGUMENT, "%s: sizes is NULL for %d dimensions", op,
                           ndim);
    for (int d = 0; d < ndim; d++) {
        if (sizes[d] < 0)
            return clops__fail(CLOPS_INVALID_SHAPE,
                               "%s: Trying to create tensor with negative dimension %lld: %s", op,
                               (long long)sizes[d],
                               clops__fmt_shape(shape, sizeof shape, ndim, sizes));
    }
    for (int d = 0; d < ndim; d++) {
        if (!mul_nonneg(product, sizes[d] > 1 ? sizes[d] : 1, &product))
            return clops__fail(CLOPS_INVALID_SHAPE,
                               "%s: the number of elements of %s overflows int64", op,
                               clops__fmt_shape(shape, sizeof shape, ndim, sizes));
    }
    return CLOPS_OK;
}

/*
 * Storage bytes a geometry reaches: (offset + largest reachable index + 1)
 * times the element size, 0 when the tensor has no element (PyTorch lets an
 * empty tensor sit anywhere in any storage).  Negative strides are allowed
 * as long as no reachable index falls below 0.
 */
clops_status storage_bytes_needed(const char *op, clops_dtype dtype, int ndim,
                                  const int64_t *sizes, const int64_t *strides, int64_t offset,
                                  size_t *out)
{
    char shape[SHAPE_BUF];
    char stride_str[SHAPE_BUF];
    clops_status st;
    int64_t lo = offset;
    int64_t hi = offset;
    int64_t bytes;
    size_t elsize = clops_dtype_size(dtype);

    if (!out)
        return clops__fail(CLOPS_INVALID_ARGUMENT, "%s: out is NULL", op);
    *out = 0;
    if (elsize == 0)
        return clops__fail(CLOPS_INVALID_DTYPE, "%s: invalid dtype %d", op, (int)dtype);
    st = check_sizes(op, ndim, sizes);
    if (st)
        return st;
    if (ndim > 0 && !strides)
        return clops__fail(CLOPS_INVALID_ARGUMENT, "%s: strides is NULL for %d dimensions", op,
                           ndim);
    if (offset < 0)
        return clops__fail(CLOPS_INVALID_SHAPE, "%s: invalid storage offset %lld", op,
                           (long long)offset);
    for (int d = 0; d < ndim; d++) {
        if (sizes[d] == 0)
            return CLOPS_OK;
    }
    for (int d = 0; d < ndim; d++) {
        int64_t span;
        if (!geom_mul(sizes[d] - 1, strides[d], &span) ||
            !geom_add(span < 0 ? lo : hi, span, span < 0 ? &lo : &hi))
            goto overflow;
    }
    if (lo < 0)
        return clops__fail(CLOPS_INVALID_SHAPE,
                           "%s: sizes %s, strides %s and storage offset %lld reach element %lld, "
                           "before the start of the storage",
                           op, clops__fmt_shape(shape, sizeof shape, ndim, sizes),
                           clops__fmt_shape(stride_str, sizeof stride_str, ndim, strides),
                           (long long)offset, (long long)lo);
    if (!geom_add(hi, 1, &hi) || !mul_nonneg(hi, (int64_t)elsize, &bytes) ||
        (uint64_t)bytes > (uint64_t)SIZE_MAX)
        goto overflow;
    *out = (size_t)bytes;
    return CLOPS_OK;

overflow:
    return clops__fail(CLOPS_INVALID_SHAPE,
                       "%s: sizes %s, strides %s and storage offset %lld overflow the address "
                       "range",
                       op, clops__fmt_shape(shape, sizeof shape, ndim, sizes),
                       clops__fmt_shape(stride_str, sizeof stride_str, ndim, strides),
                       (long long)offset);
}

/*
 * Wraps a possibly negative dim into [0, ndim).  A zero-dim tensor behaves as
 * if it had one dim, so -1 and 0 both name "the" dim, as in PyTorch.
 */
clops_status wrap_dim(const char *op, int64_t dim, int ndim, int *out)
{
    int64_t n = ndim > 0 ? ndim : 1;

    if (!out)
        return clops__fail(CLOPS_INVALID_ARGUMENT, "%s: out is NULL", op);
    if (dim < -n || dim >= n)
        return clops__fail(CLOPS_INDEX_OUT_OF_RANGE,
                           "%s: Dimension out of range (expected to be in range of [%lld, %lld], "
                           "but got %lld)",
                           op, (long long)-n, (long long)(n - 1), (long long)dim);
    *out = (int)(dim < 0 ? dim + n : dim);
    return CLOPS_OK;
}

/* Strides for viewing an empty tensor as new_sizes: the old strides when the
 * shape is unchanged, else the row-major ones (NumPy's rule, kept by ATen). */
static void empty_view_strides(int ndim, const int64_t *sizes, const int64_t *strides,
                               int new_ndim, const int64_t *new_sizes, int64_t *new_strides)
{
    bool same = ndim == new_ndim;
    for (int d = 0; same && d < ndim; d++)
        same = sizes[d] == new_sizes[d];
    if (same) {
        for (int d = 0; d < ndim; d++)
            new_strides[d] = strides[d];
        return;
    }
    contiguous_strides(new_ndim, new_sizes, new_strides);
}

/*
 * The strides that let (sizes, strides) be viewed as new_sizes, or false.
 *
 * The old dims are cut into chunks: runs of dims where each one steps over
 * exactly the next (stride[i] == size[i+1] * stride[i+1]; size-1 dims never
 * end a run).  A view exists when the new dims, walked from the innermost,
 * can be grouped so that each group multiplies up to one chunk; each new dim
 * then strides through its chunk from the chunk's innermost stride.  Size-1
 * new dims are absorbed into whichever group is open.  A zero-dim input gives
 * stride 1 everywhere; an empty input keeps its strides for an identical
 * shape and takes row-major ones otherwise.
 */
bool view_compute_strides(int ndim, const int64_t *sizes, const int64_t *strides, int new_ndim,
                          const int64_t *new_sizes, int64_t *new_strides)
{
    int64_t numel = 1;
    int view_d = new_ndim - 1;
    int64_t chunk_base;
    int64_t chunk_numel = 1;
    int64_t view_numel = 1;

    if (ndim == 0) {
        for (int d = 0; d < new_ndim; d++)
            new_strides[d] = 1;
        return true;
    }
    for (int d = 0; d < ndim; d++)
        numel *= sizes[d];
    if (numel == 0) {
        empty_view_strides(ndim, sizes, strides, new_ndim, new_sizes, new_strides);
        return true;
    }

    chunk_base = strides[ndim - 1];
    for (int d = ndim - 1; d >= 0; d--) {
        int64_t chunk_span;
        chunk_numel *= sizes[d];
        /* A product that overflows cannot equal a real stride: the chunk ends. */
        bool chunk_ends = d == 0 || (sizes[d - 1] != 1 &&
                                     (!geom_mul(chunk_numel, chunk_base, &chunk_span) ||
                                      strides[d - 1] != chunk_span));
        if (!chunk_ends)
            continue;
        /* Give the chunk every new dim needed to reach its element count,
         * plus any size-1 dims that follow. */
        while (view_d >= 0 && (view_numel < chunk_numel || new_sizes[view_d] == 1)) {
            if (new_sizes[view_d] < 0 ||
                !geom_mul(view_numel, chunk_base, &new_strides[view_d]) ||
                !mul_nonneg(view_numel, new_sizes[view_d], &view_numel))
                return false;
            view_d--;
        }
        if (view_numel != chunk_numel)
            return false;
        if (d > 0) {
            chunk_base = strides[d - 1];
            chunk_numel = 1;
            view_numel = 1;
        }
    }
    return view_d == -1;
}

/*
 * Resolves a shape for numel elements: at most one -1, which becomes
 * whatever makes the element counts agree; every other entry must be >= 0.
 * The messages are ATen's, prefixed with the op.
 */
clops_status infer_size(const char *op, int64_t numel, const int64_t *shape, int shape_len,
                        int64_t *out)
{
    char shape_str[SHAPE_BUF];
    int64_t known = 1;
    int infer = -1;
    bool overflow = false;

    if (shape_len < 0 || shape_len > CLOPS_MAX_DIMS)
        return clops__fail(CLOPS_INVALID_SHAPE,
                           "%s: a shape has between 0 and %d dimensions, got %d", op,
                           CLOPS_MAX_DIMS, shape_len);
    if ((shape_len > 0 && !shape) || (shape_len > 0 && !out))
        return clops__fail(CLOPS_INVALID_ARGUMENT, "%s: shape or out is NULL", op);
    clops__fmt_shape(shape_str, sizeof shape_str, shape_len, shape);
    for (int d = 0; d < shape_len; d++) {
        if (shape[d] == -1) {
            if (infer >= 0)
                return clops__fail(CLOPS_INVALID_SHAPE, "%s: only one dimension can be inferred",
                                   op);
            infer = d;
        } else if (shape[d] >= 0) {
            if (!overflow && !mul_nonneg(known, shape[d], &known))
                overflow = true;
        } else {
            return clops__fail(CLOPS_INVALID_SHAPE,
                               "%s: invalid shape dimension %lld at index %d of shape %s", op,
                               (long long)shape[d], d, shape_str);
        }
    }
    for (int d = 0; d < shape_len; d++)
        out[d] = shape[d];
    if (!overflow && (numel == known || (infer >= 0 && known > 0 && numel % known == 0))) {
        if (infer >= 0) {
            if (known == 0)
                return clops__fail(CLOPS_INVALID_SHAPE,
                                   "%s: cannot reshape tensor of 0 elements into shape %s because "
                                   "the unspecified dimension size -1 can be any value and is "
                                   "ambiguous",
                                   op, shape_str);
            out[infer] = numel / known;
        }
        return CLOPS_OK;
    }
    return clops__fail(CLOPS_INVALID_SHAPE, "%s: shape '%s' is invalid for input of size %lld", op,
                       shape_str, (long long)numel);
}
