/* SPDX-License-Identifier: Apache-2.0 */
/*
 * core/view.c: the view operators (view, reshape, as_strided, permute,
 * transpose, t, expand, narrow, slice, select, squeeze, unsqueeze, flatten,
 * unflatten, diagonal, alias).
 *
 * A view is metadata only: each operator computes new sizes, strides (in
 * elements) and a storage offset from its input's and hands them to
 * tensor_make_view, which creates a tensor object sharing the input's
 * storage and checks that it stays inside it.  The geometry, including the
 * corner cases (zero-dim tensors, size-0 and size-1 dims, negative dims and
 * indices, stride-0 broadcast dims), and which calls fail follow PyTorch's
 * ATen; the failures map onto status codes as PyTorch's exception types do:
 * IndexError is CLOPS_INDEX_OUT_OF_RANGE, a shape that cannot work is
 * CLOPS_INVALID_SHAPE, and any other bad argument CLOPS_INVALID_ARGUMENT.
 * reshape and flatten, which are views when a view exists and contiguous
 * copies otherwise (as in PyTorch), copy, so they are kernels:
 * ops/tensor/tensor_reshape.c.  The functions are the
 * typed kernels the dispatcher registers; they borrow `self` and hand out one
 * new reference through `out`, which is NULL after a failure.
 */
#include <stdbool.h>
#include <stdint.h>

#include "core/tensor_impl.h"

/* Room for "[a, b, ...]" with CLOPS_MAX_DIMS int64 values. */
#define SHAPE_BUF (CLOPS_MAX_DIMS * 22 + 4)

/* Product of the sizes (callers pass shapes that already passed
 * check_sizes, so it cannot overflow). */
int64_t view_shape_numel(int ndim, const int64_t *sizes)
{
    int64_t n = 1;
    for (int d = 0; d < ndim; d++)
        n *= sizes[d];
    return n;
}

/* a * b for a >= 0 and any b; false when it does not fit in int64. */
static bool mul_size_stride(int64_t a, int64_t b, int64_t *out)
{
    if (a > 0 && (b > INT64_MAX / a || b < INT64_MIN / a))
        return false;
    *out = a * b;
    return true;
}

/* "[2, 3]" into buf, for messages. */
static char *fmt(char *buf, int ndim, const int64_t *values)
{
    return clops__fmt_shape(buf, SHAPE_BUF, ndim, values);
}

/* Common argument check: self and out must be given; clears *out. */
clops_status view_check_self_out(const char *op, const clops_tensor *self, clops_tensor **out)
{
    if (!out)
        return clops__fail(CLOPS_INVALID_ARGUMENT, "%s: out is NULL", op);
    *out = NULL;
    if (!self)
        return clops__fail(CLOPS_INVALID_ARGUMENT, "%s: self is NULL", op);
    return CLOPS_OK;
}

/* An int list argument: a non-negative length and a pointer when non-empty. */
clops_status view_check_list(const char *op, const char *what, const int64_t *list, int len)
{
    if (len < 0)
        return clops__fail(CLOPS_INVALID_ARGUMENT, "%s: %s has negative length %d", op, what, len);
    if (len > 0 && !list)
        return clops__fail(CLOPS_INVALID_ARGUMENT, "%s: %s is NULL but has length %d", op, what,
                           len);
    return CLOPS_OK;
}

/* Copies self's sizes and strides into the caller's arrays. */
static void copy_geometry(const clops_tensor *self, int64_t *sizes, int64_t *strides)
{
    for (int d = 0; d < self->ndim; d++) {
        sizes[d] = self->sizes[d];
        strides[d] = self->strides[d];
    }
}

/* Removes entry `dim` of an ndim-long array. */
static void erase_at(int64_t *values, int ndim, int dim)
{
    for (int d = dim; d + 1 < ndim; d++)
        values[d] = values[d + 1];
}

/* Views self as `shape` (one -1 allowed); fails when no strides allow it. */
clops_status core_view(clops_tensor *self, const int64_t *size, int size_len, clops_tensor **out)
{
    char in_sizes[SHAPE_BUF], in_strides[SHAPE_BUF], requested[SHAPE_BUF];
    int64_t sizes[CLOPS_MAX_DIMS];
    int64_t strides[CLOPS_MAX_DIMS];
    clops_status st = view_check_self_out("view", self, out);

    if (st)
        return st;
    st = view_check_list("view", "size", size, size_len);
    if (st)
        return st;
    st = infer_size("view", view_shape_numel(self->ndim, self->sizes), size, size_len, sizes);
    if (st)
        return st;
    if (!view_compute_strides(self->ndim, self->sizes, self->strides, size_len, sizes, strides))
        return clops__fail(CLOPS_INVALID_SHAPE,
                           "view: view size is not compatible with input tensor's size and stride "
                           "(at least one dimension spans across two contiguous subspaces). Use "
                           ".reshape(...) instead. (input %s strides %s, requested %s)",
                           fmt(in_sizes, self->ndim, self->sizes),
                           fmt(in_strides, self->ndim, self->strides),
                           fmt(requested, size_len, size));
    return tensor_make_view("view", self, size_len, sizes, strides, self->offset, out);
}

/*
 * Any geometry over self's storage: sizes and strides of equal length,
 * strides >= 0, and an offset >= 0 (NULL keeps self's).  Whether it fits in
 * the storage is tensor_make_view's check.
 */
clops_status core_as_strided(clops_tensor *self, const int64_t *size, int size_len,
                             const int64_t *stride, int stride_len, const int64_t *storage_offset,
                             clops_tensor **out)
{
    char size_str[SHAPE_BUF], stride_str[SHAPE_BUF];
    int64_t offset;
    clops_status st = view_check_self_out("as_strided", self, out);

    if (st)
        return st;
    st = view_check_list("as_strided", "size", size, size_len);
    if (!st)
        st = view_check_list("as_strided", "stride", stride, stride_len);
    if (st)
        return st;
    if (size_len != stride_len)
        return clops__fail(CLOPS_INVALID_SHAPE,
                           "as_strided: mismatch in length of strides and shape (size %s, "
                           "stride %s)",
                           fmt(size_str, size_len < CLOPS_MAX_DIMS ? size_len : CLOPS_MAX_DIMS,
                               size),
                           fmt(stride_str,
                               stride_len < CLOPS_MAX_DIMS ? stride_len : CLOPS_MAX_DIMS, stride));
    st = check_sizes("as_strided", size_len, size);
    if (st)
        return st;
    for (int d = 0; d < stride_len; d++) {
        if (stride[d] < 0)
            return clops__fail(CLOPS_INVALID_ARGUMENT,
                               "as_strided: Negative strides are not supported at the moment, got "
                               "strides: %s",
                               fmt(stride_str, stride_len, stride));
    }
    offset = storage_offset ? *storage_offset : self->offset;
    if (offset < 0)
        return clops__fail(CLOPS_INVALID_ARGUMENT, "as_strided: invalid storage offset %lld",
                           (long long)offset);
    return tensor_make_view("as_strided", self, size_len, size, stride, offset, out);
}

/* Reorders self's dims: result dim i is self's dim dims[i] (negative dims
 * count from the end; each dim exactly once). */
clops_status core_permute(clops_tensor *self, const int64_t *dims, int dims_len,
                          clops_tensor **out)
{
    char dims_str[SHAPE_BUF];
    int64_t sizes[CLOPS_MAX_DIMS];
    int64_t strides[CLOPS_MAX_DIMS];
    bool seen[CLOPS_MAX_DIMS] = {false};
    clops_status st = view_check_self_out("permute", self, out);

    if (st)
        return st;
    st = view_check_list("permute", "dims", dims, dims_len);
    if (st)
        return st;
    if (dims_len != self->ndim)
        return clops__fail(CLOPS_INVALID_SHAPE,
                           "permute: number of dimensions in the tensor input does not match the "
                           "length of the desired ordering of dimensions i.e. input.dim() = %d is "
                           "not equal to len(dims) = %d",
                           self->ndim, dims_len);
    for (int i = 0; i < dims_len; i++) {
        int d;
        st = wrap_dim("permute", dims[i], self->ndim, &d);
        if (st)
            return st;
        if (seen[d])
            return clops__fail(CLOPS_INVALID_ARGUMENT,
                               "permute: duplicate dims are not allowed (dims %s)",
                               fmt(dims_str, dims_len, dims));
        seen[d] = true;
        sizes[i] = self->sizes[d];
        strides[i] = self->strides[d];
    }
    return tensor_make_view("permute", self, self->ndim, sizes, strides, self->offset, out);
}

/* Swaps two dims (the same dim twice gives an alias). */
clops_status core_transpose(clops_tensor *self, int64_t dim0, int64_t dim1, clops_tensor **out)
{
    int64_t sizes[CLOPS_MAX_DIMS];
    int64_t strides[CLOPS_MAX_DIMS];
    int64_t tmp;
    int d0, d1;
    clops_status st = view_check_self_out("transpose", self, out);

    if (st)
        return st;
    st = wrap_dim("transpose", dim0, self->ndim, &d0);
    if (!st)
        st = wrap_dim("transpose", dim1, self->ndim, &d1);
    if (st)
        return st;
    copy_geometry(self, sizes, strides);
    if (self->ndim > 0) {
        tmp = sizes[d0];
        sizes[d0] = sizes[d1];
        sizes[d1] = tmp;
        tmp = strides[d0];
        strides[d0] = strides[d1];
        strides[d1] = tmp;
    }
    return tensor_make_view("transpose", self, self->ndim, sizes, strides, self->offset, out);
}

/* Transpose of a matrix; 0-D and 1-D tensors come back as aliases, more
 * than two dims is an error. */
clops_status core_t(clops_tensor *self, clops_tensor **out)
{
    clops_status st = view_check_self_out("t", self, out);

    if (st)
        return st;
    if (self->ndim > 2)
        return clops__fail(CLOPS_INVALID_SHAPE,
                           "t: t() expects a tensor with <= 2 dimensions, but self is %dD",
                           self->ndim);
    return core_transpose(self, 0, self->ndim < 2 ? 0 : 1, out);
}

/*
 * Broadcasts self to `size`, aligned at the trailing dims: -1 keeps a size,
 * size-1 dims stretch with stride 0, new leading dims get stride 0 (or, when
 * their size is 1, the stride that steps over the dims after them).  A
 * zero-dim self takes `size` with all strides 0.  `implicit` only matters to
 * autograd in PyTorch and is ignored.
 */
clops_status core_expand(clops_tensor *self, const int64_t *size, int size_len, bool implicit,
                         clops_tensor **out)
{
    char target[SHAPE_BUF], have[SHAPE_BUF];
    int64_t sizes[CLOPS_MAX_DIMS];
    int64_t strides[CLOPS_MAX_DIMS];
    clops_status st = view_check_self_out("expand", self, out);

    (void)implicit;
    if (st)
        return st;
    st = view_check_list("expand", "size", size, size_len);
    if (st)
        return st;
    fmt(have, self->ndim, self->sizes);
    if (size_len < self->ndim)
        return clops__fail(CLOPS_INVALID_SHAPE,
                           "expand: the number of sizes provided (%d) must be greater or equal to "
                           "the number of dimensions in the tensor (%d) (tensor sizes %s)",
                           size_len, self->ndim, have);
    if (size_len > CLOPS_MAX_DIMS)
        return clops__fail(CLOPS_INVALID_SHAPE,
                           "expand: %d sizes given, a tensor has at most %d dimensions", size_len,
                           CLOPS_MAX_DIMS);
    fmt(target, size_len, size);

    for (int i = size_len - 1; i >= 0; i--) {
        int dim = i - (size_len - self->ndim); /* self's dim, < 0 for new ones */
        int64_t cur = dim >= 0 ? self->sizes[dim] : 1;
        int64_t stride = 0;
        int64_t want = size[i];

        if (dim >= 0)
            stride = self->strides[dim];
        else if (self->ndim > 0 && !mul_size_stride(sizes[i + 1], strides[i + 1], &stride))
            return clops__fail(CLOPS_INVALID_SHAPE,
                               "expand: the stride of new dimension %d overflows int64 (target "
                               "sizes %s)",
                               i, target);
        if (want == -1) {
            if (dim < 0)
                return clops__fail(CLOPS_INVALID_SHAPE,
                                   "expand: The expanded size of the tensor (-1) isn't allowed in "
                                   "a leading, non-existing dimension %d",
                                   i);
            want = cur;
        }
        if (self->ndim == 0 || cur != want) {
            if (cur != 1)
                return clops__fail(CLOPS_INVALID_SHAPE,
                                   "expand: The expanded size of the tensor (%lld) must match the "
                                   "existing size (%lld) at non-singleton dimension %d.  Target "
                                   "sizes: %s.  Tensor sizes: %s",
                                   (long long)want, (long long)cur, i, target, have);
            if (want < 0)
                return clops__fail(CLOPS_INVALID_SHAPE,
                                   "expand: The expanded size of the tensor (%lld) isn't allowed "
                                   "(negative).  Target sizes: %s.  Tensor sizes: %s",
                                   (long long)want, target, have);
            stride = 0;
        }
        sizes[i] = want;
        strides[i] = stride;
    }
    st = check_sizes("expand", size_len, sizes);
    if (st)
        return st;
    return tensor_make_view("expand", self, size_len, sizes, strides, self->offset, out);
}

/* length elements of dim starting at start (start may be negative, down to
 * -size, and may equal size when length is 0). */
clops_status core_narrow(clops_tensor *self, int64_t dim, int64_t start, int64_t length,
                         clops_tensor **out)
{
    int64_t sizes[CLOPS_MAX_DIMS];
    int64_t strides[CLOPS_MAX_DIMS];
    int64_t cur;
    int d;
    clops_status st = view_check_self_out("narrow", self, out);

    if (st)
        return st;
    if (self->ndim == 0)
        return clops__fail(CLOPS_INVALID_SHAPE,
                           "narrow: narrow() cannot be applied to a 0-dim tensor.");
    if (length < 0)
        return clops__fail(CLOPS_INVALID_ARGUMENT,
                           "narrow: narrow(): length must be non-negative (got %lld).",
                           (long long)length);
    st = wrap_dim("narrow", dim, self->ndim, &d);
    if (st)
        return st;
    cur = self->sizes[d];
    if (start < -cur || start > cur)
        return clops__fail(CLOPS_INDEX_OUT_OF_RANGE,
                           "narrow: start out of range (expected to be in range of [%lld, %lld], "
                           "but got %lld)",
                           (long long)-cur, (long long)cur, (long long)start);
    if (start < 0)
        start += cur;
    if (start > cur - length)
        return clops__fail(CLOPS_INVALID_ARGUMENT,
                           "narrow: start (%lld) + length (%lld) exceeds dimension size (%lld).",
                           (long long)start, (long long)length, (long long)cur);
    copy_geometry(self, sizes, strides);
    sizes[d] = length;
    return tensor_make_view("narrow", self, self->ndim, sizes, strides,
                            self->offset + start * strides[d], out);
}

/*
 * self[..., start:end:step, ...] along dim, with Python's rules: NULL start
 * is 0 and NULL end is the size, negative bounds count from the end, and
 * bounds are clamped into [0, size] (end never before start).  step must be
 * positive.
 */
clops_status core_slice(clops_tensor *self, int64_t dim, const int64_t *start, const int64_t *end,
                        int64_t step, clops_tensor **out)
{
    int64_t sizes[CLOPS_MAX_DIMS];
    int64_t strides[CLOPS_MAX_DIMS];
    int64_t cur, lo, hi, len;
    int d;
    clops_status st = view_check_self_out("slice", self, out);

    if (st)
        return st;
    if (self->ndim == 0)
        return clops__fail(CLOPS_INDEX_OUT_OF_RANGE,
                           "slice: slice() cannot be applied to a 0-dim tensor.");
    st = wrap_dim("slice", dim, self->ndim, &d);
    if (st)
        return st;
    if (step <= 0)
        return clops__fail(CLOPS_INVALID_ARGUMENT, "slice: slice step must be positive (got %lld)",
                           (long long)step);
    cur = self->sizes[d];
    lo = start ? *start : 0;
    hi = end ? *end : cur;
    if (lo < 0)
        lo += cur;
    if (hi < 0)
        hi += cur;
    lo = lo < 0 ? 0 : (lo > cur ? cur : lo);
    hi = hi < lo ? lo : (hi > cur ? cur : hi);
    len = hi - lo;

    copy_geometry(self, sizes, strides);
    sizes[d] = len == 0 ? 0 : (len - 1) / step + 1;
    /* PyTorch multiplies the stride by step whatever the new size.  When that
     * overflows, a dim of at most one element keeps its stride (it never
     * reaches a second element); a longer one cannot exist. */
    if (!mul_size_stride(step, self->strides[d], &strides[d]) && sizes[d] > 1)
        return clops__fail(CLOPS_INVALID_ARGUMENT,
                           "slice: step %lld times stride %lld overflows int64", (long long)step,
                           (long long)self->strides[d]);
    return tensor_make_view("slice", self, self->ndim, sizes, strides,
                            self->offset + lo * self->strides[d], out);
}

/* The sub-tensor at index (negative counts from the end) of dim; the dim
 * disappears. */
clops_status core_select(clops_tensor *self, int64_t dim, int64_t index, clops_tensor **out)
{
    char shape[SHAPE_BUF];
    int64_t sizes[CLOPS_MAX_DIMS];
    int64_t strides[CLOPS_MAX_DIMS];
    int64_t cur, offset;
    int d;
    clops_status st = view_check_self_out("select", self, out);

    if (st)
        return st;
    if (self->ndim == 0)
        return clops__fail(CLOPS_INDEX_OUT_OF_RANGE,
                           "select: select() cannot be applied to a 0-dim tensor.");
    st = wrap_dim("select", dim, self->ndim, &d);
    if (st)
        return st;
    cur = self->sizes[d];
    if (index < -cur || index >= cur)
        return clops__fail(CLOPS_INDEX_OUT_OF_RANGE,
                           "select: select(): index %lld out of range for tensor of size %s at "
                           "dimension %d",
                           (long long)index, fmt(shape, self->ndim, self->sizes), d);
    if (index < 0)
        index += cur;
    offset = self->offset + index * self->strides[d];
    copy_geometry(self, sizes, strides);
    erase_at(sizes, self->ndim, d);
    erase_at(strides, self->ndim, d);
    return tensor_make_view("select", self, self->ndim - 1, sizes, strides, offset, out);
}

/* Drops the dims flagged in `drop` that have size 1. */
static clops_status squeeze_mask(const char *op, clops_tensor *self, const bool *drop,
                                 clops_tensor **out)
{
    int64_t sizes[CLOPS_MAX_DIMS];
    int64_t strides[CLOPS_MAX_DIMS];
    int n = 0;

    for (int d = 0; d < self->ndim; d++) {
        if (drop[d] && self->sizes[d] == 1)
            continue;
        sizes[n] = self->sizes[d];
        strides[n] = self->strides[d];
        n++;
    }
    return tensor_make_view(op, self, n, sizes, strides, self->offset, out);
}

/* Drops every size-1 dim. */
clops_status core_squeeze(clops_tensor *self, clops_tensor **out)
{
    bool drop[CLOPS_MAX_DIMS];
    clops_status st = view_check_self_out("squeeze", self, out);

    if (st)
        return st;
    for (int d = 0; d < CLOPS_MAX_DIMS; d++)
        drop[d] = true;
    return squeeze_mask("squeeze", self, drop, out);
}

/* Drops dim if its size is 1; otherwise an alias. */
clops_status core_squeeze_dim(clops_tensor *self, int64_t dim, clops_tensor **out)
{
    bool drop[CLOPS_MAX_DIMS] = {false};
    int d;
    clops_status st = view_check_self_out("squeeze", self, out);

    if (st)
        return st;
    st = wrap_dim("squeeze", dim, self->ndim, &d);
    if (st)
        return st;
    drop[d] = true;
    return squeeze_mask("squeeze", self, drop, out);
}

/* Drops those of the listed dims that have size 1; a dim listed twice is an
 * error (after wrapping, so 0 and -ndim are the same dim). */
clops_status core_squeeze_dims(clops_tensor *self, const int64_t *dims, int dims_len,
                               clops_tensor **out)
{
    bool drop[CLOPS_MAX_DIMS] = {false};
    clops_status st = view_check_self_out("squeeze", self, out);

    if (st)
        return st;
    st = view_check_list("squeeze", "dims", dims, dims_len);
    if (st)
        return st;
    for (int i = 0; i < dims_len; i++) {
        int d;
        st = wrap_dim("squeeze", dims[i], self->ndim, &d);
        if (st)
            return st;
        if (drop[d])
            return clops__fail(CLOPS_INVALID_ARGUMENT,
                               "squeeze: dim %d appears multiple times in the list of dims", d);
        drop[d] = true;
    }
    return squeeze_mask("squeeze", self, drop, out);
}

/* Inserts a size-1 dim at position dim of the result (dim in
 * [-ndim-1, ndim]); its stride is the one that steps over the dim after it,
 * or 1 at the end. */
clops_status core_unsqueeze(clops_tensor *self, int64_t dim, clops_tensor **out)
{
    int64_t sizes[CLOPS_MAX_DIMS];
    int64_t strides[CLOPS_MAX_DIMS];
    int d;
    clops_status st = view_check_self_out("unsqueeze", self, out);

    if (st)
        return st;
    st = wrap_dim("unsqueeze", dim, self->ndim + 1, &d);
    if (st)
        return st;
    if (self->ndim >= CLOPS_MAX_DIMS)
        return clops__fail(CLOPS_INVALID_SHAPE,
                           "unsqueeze: the result would have more than %d dimensions",
                           CLOPS_MAX_DIMS);
    for (int i = 0, j = 0; i <= self->ndim; i++) {
        if (i == d) {
            sizes[i] = 1;
            strides[i] = d < self->ndim ? self->sizes[d] * self->strides[d] : 1;
            continue;
        }
        sizes[i] = self->sizes[j];
        strides[i] = self->strides[j];
        j++;
    }
    return tensor_make_view("unsqueeze", self, self->ndim + 1, sizes, strides, self->offset, out);
}

/* True when `sizes` (already free of entries < -1 and of a second -1) can
 * never multiply up to `numel`: the case PyTorch reports as "Provided sizes
 * don't multiply up". */
static bool unflatten_mismatch(int64_t numel, const int64_t *sizes, int sizes_len)
{
    int64_t known = 1;
    bool infer = false;

    for (int i = 0; i < sizes_len; i++) {
        if (sizes[i] == -1) {
            infer = true;
            continue;
        }
        if (sizes[i] != 0 && known > INT64_MAX / sizes[i])
            return true;
        known *= sizes[i];
    }
    if (infer)
        return known == 0 ? numel != 0 : numel % known != 0;
    return known != numel;
}

/* Splits dim into `sizes` (one -1 allowed), which must multiply up to its
 * size. */
clops_status core_unflatten(clops_tensor *self, int64_t dim, const int64_t *sizes, int sizes_len,
                            clops_tensor **out)
{
    char want[SHAPE_BUF];
    int64_t inferred[CLOPS_MAX_DIMS];
    int64_t shape[CLOPS_MAX_DIMS];
    int64_t strides[CLOPS_MAX_DIMS];
    int minus_ones = 0;
    bool negative = false;
    int n = 0;
    int d;
    clops_status st = view_check_self_out("unflatten", self, out);

    if (st)
        return st;
    st = view_check_list("unflatten", "sizes", sizes, sizes_len);
    if (st)
        return st;
    st = wrap_dim("unflatten", dim, self->ndim, &d);
    if (st)
        return st;
    if (sizes_len == 0)
        return clops__fail(CLOPS_INVALID_SHAPE, "unflatten: sizes must be non-empty");
    /* PyTorch 2.11 reports this as a RuntimeError ("unflatten got an
     * unexpected error"), not an IndexError: a shape problem here. */
    if (self->ndim == 0)
        return clops__fail(CLOPS_INVALID_SHAPE,
                           "unflatten: dimension specified as %lld but tensor has no dimensions",
                           (long long)dim);
    if (self->ndim - 1 + sizes_len > CLOPS_MAX_DIMS)
        return clops__fail(CLOPS_INVALID_SHAPE,
                           "unflatten: the result would have %d dimensions, more than %d",
                           self->ndim - 1 + sizes_len, CLOPS_MAX_DIMS);
    for (int i = 0; i < sizes_len; i++) {
        minus_ones += sizes[i] == -1;
        negative = negative || sizes[i] < -1;
    }
    if (minus_ones <= 1 && !negative && unflatten_mismatch(self->sizes[d], sizes, sizes_len))
        return clops__fail(CLOPS_INVALID_SHAPE,
                           "unflatten: Provided sizes %s don't multiply up to the size of dim %d "
                           "(%lld) in the input tensor",
                           fmt(want, sizes_len, sizes), d, (long long)self->sizes[d]);
    st = infer_size("unflatten", self->sizes[d], sizes, sizes_len, inferred);
    if (st)
        return st;

    for (int i = 0; i < d; i++)
        shape[n++] = self->sizes[i];
    for (int i = 0; i < sizes_len; i++)
        shape[n++] = inferred[i];
    for (int i = d + 1; i < self->ndim; i++)
        shape[n++] = self->sizes[i];
    if (!view_compute_strides(self->ndim, self->sizes, self->strides, n, shape, strides))
        return clops__fail(CLOPS_INTERNAL, "unflatten: splitting one dim gave no view");
    return tensor_make_view("unflatten", self, n, shape, strides, self->offset, out);
}

/*
 * The diagonal of the (dim1, dim2) planes: both dims are removed and a new
 * last dim of the diagonal's length is appended, with stride
 * stride(dim1) + stride(dim2).  offset > 0 starts offset steps along dim2,
 * offset < 0 starts -offset steps along dim1; a diagonal off the plane is
 * empty and keeps self's storage offset.
 */
clops_status core_diagonal(clops_tensor *self, int64_t offset, int64_t dim1, int64_t dim2,
                           clops_tensor **out)
{
    int64_t sizes[CLOPS_MAX_DIMS];
    int64_t strides[CLOPS_MAX_DIMS];
    int64_t diag, start;
    int d1, d2;
    clops_status st = view_check_self_out("diagonal", self, out);

    if (st)
        return st;
    st = wrap_dim("diagonal", dim1, self->ndim, &d1);
    if (!st)
        st = wrap_dim("diagonal", dim2, self->ndim, &d2);
    if (st)
        return st;
    if (d1 == d2)
        return clops__fail(CLOPS_INVALID_ARGUMENT,
                           "diagonal: diagonal dimensions cannot be identical %lld, %lld",
                           (long long)dim1, (long long)dim2);
    if (offset >= 0) {
        int64_t along2 = self->sizes[d2] - offset;
        diag = self->sizes[d1] < along2 ? self->sizes[d1] : along2;
    } else {
        int64_t along1 = offset < -self->sizes[d1] ? -1 : self->sizes[d1] + offset;
        diag = along1 < self->sizes[d2] ? along1 : self->sizes[d2];
    }
    if (diag < 0)
        diag = 0;
    start = self->offset;
    if (diag > 0)
        start += offset >= 0 ? offset * self->strides[d2] : -offset * self->strides[d1];

    copy_geometry(self, sizes, strides);
    erase_at(sizes, self->ndim, d1 > d2 ? d1 : d2);
    erase_at(strides, self->ndim, d1 > d2 ? d1 : d2);
    erase_at(sizes, self->ndim - 1, d1 < d2 ? d1 : d2);
    erase_at(strides, self->ndim - 1, d1 < d2 ? d1 : d2);
    sizes[self->ndim - 2] = diag;
    strides[self->ndim - 2] = self->strides[d1] + self->strides[d2];
    return tensor_make_view("diagonal", self, self->ndim - 1, sizes, strides, start, out);
}

/* A new tensor object with self's geometry over the same storage. */
clops_status core_alias(clops_tensor *self, clops_tensor **out)
{
    clops_status st = view_check_self_out("alias", self, out);

    if (st)
        return st;
    return tensor_make_view("alias", self, self->ndim, self->sizes, self->strides, self->offset,
                            out);
}

/* PyTorch's view_as_real: a complex tensor as its real dtype with a last
 * dim of 2 (real, imaginary); sizes and strides doubled, same storage. */
clops_status core_view_as_real(clops_tensor *self, clops_tensor **out)
{
    clops_status st = view_check_self_out("view_as_real", self, out);
    if (st)
        return st;
    if (!clops_dtype_is_complex(self->dtype))
        return clops__fail(CLOPS_INVALID_DTYPE,
                           "view_as_real is only supported for complex tensors, got %s",
                           clops_dtype_name(self->dtype));
    if (self->ndim >= CLOPS_MAX_DIMS)
        return clops__fail(CLOPS_INVALID_SHAPE,
                           "view_as_real: a tensor of %d dims has no room for the (real, "
                           "imaginary) dim (at most %d dims)",
                           self->ndim, CLOPS_MAX_DIMS);
    int64_t sizes[CLOPS_MAX_DIMS], strides[CLOPS_MAX_DIMS], offset;
    for (int i = 0; i < self->ndim; i++) {
        sizes[i] = self->sizes[i];
        if (!geom_mul(self->strides[i], 2, &strides[i]))
            return clops__fail(CLOPS_INVALID_SHAPE, "view_as_real: stride %lld overflows",
                               (long long)self->strides[i]);
    }
    if (!geom_mul(self->offset, 2, &offset))
        return clops__fail(CLOPS_INVALID_SHAPE, "view_as_real: offset %lld overflows",
                           (long long)self->offset);
    sizes[self->ndim] = 2;
    strides[self->ndim] = 1;
    return tensor_make("view_as_real", self->storage, clops_dtype_to_real(self->dtype),
                       self->ndim + 1, sizes, strides, offset, out);
}

/* PyTorch's view_as_complex, with its checks and messages. */
clops_status core_view_as_complex(clops_tensor *self, clops_tensor **out)
{
    clops_status st = view_check_self_out("view_as_complex", self, out);
    if (st)
        return st;
    if (self->dtype != CLOPS_FLOAT32 && self->dtype != CLOPS_FLOAT64)
        return clops__fail(CLOPS_INVALID_DTYPE,
                           "view_as_complex is only supported for float and double tensors, but "
                           "got a tensor of scalar type: %s",
                           clops_dtype_name(self->dtype));
    if (self->ndim == 0)
        return clops__fail(CLOPS_INVALID_SHAPE, "Input tensor must have one or more dimensions");
    if (self->sizes[self->ndim - 1] != 2)
        return clops__fail(CLOPS_INVALID_SHAPE, "Tensor must have a last dimension of size 2");
    if (self->strides[self->ndim - 1] != 1)
        return clops__fail(CLOPS_INVALID_SHAPE, "Tensor must have a last dimension with stride 1");
    for (int i = 0; i < self->ndim - 1; i++)
        if (self->strides[i] % 2 != 0)
            return clops__fail(CLOPS_INVALID_SHAPE,
                               "Tensor must have a stride divisible by 2 for all but last dimension");
    if (self->offset % 2 != 0)
        return clops__fail(CLOPS_INVALID_SHAPE,
                           "Tensor must have a storage_offset divisible by 2");
    int64_t sizes[CLOPS_MAX_DIMS], strides[CLOPS_MAX_DIMS];
    for (int i = 0; i < self->ndim - 1; i++) {
        sizes[i] = self->sizes[i];
        strides[i] = self->strides[i] / 2;
    }
    return tensor_make("view_as_complex", self->storage, clops_dtype_to_complex(self->dtype),
                       self->ndim - 1, sizes, strides, self->offset / 2, out);
}

clops_status clops_view_as_real(clops_tensor *self, clops_tensor **out)
{
    return core_view_as_real(self, out);
}

clops_status clops_view_as_complex(clops_tensor *self, clops_tensor **out)
{
    return core_view_as_complex(self, out);
}
