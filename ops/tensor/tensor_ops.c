/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ops/tensor/tensor_ops.c: the typed kernels of the tensor operators whose schema
 * form differs from the core functions they use (factories with
 * dtype/layout/device/pin_memory arguments, clone/contiguous with a memory
 * format, the copy helpers PyTorch's backends implement, resize_, set_,
 * _local_scalar_dense).  Signatures come from ops_generated.h, so they match
 * the schemas in dispatch/inventory/tensor.yaml.
 */
#include "core/tensor_impl.h"
#include "host/host.h"
#include "ops/tensor/tensor.h"
#include "ops/kernels_generated.h"

/* PyTorch's numbering of layouts and memory formats. */
#define LAYOUT_STRIDED 0
#define MEMORY_FORMAT_CONTIGUOUS 0
#define MEMORY_FORMAT_PRESERVE 1

/* Refuses layouts and memory formats clops does not implement. */
static clops_status check_layout(const char *op, int64_t layout, int64_t memory_format,
                                 bool allow_preserve)
{
    if (layout >= 0 && layout != LAYOUT_STRIDED)
        return clops__fail(CLOPS_UNSUPPORTED, "%s: only the strided layout is supported (got %lld)",
                           op, (long long)layout);
    if (memory_format >= 0 && memory_format != MEMORY_FORMAT_CONTIGUOUS &&
        !(allow_preserve && memory_format == MEMORY_FORMAT_PRESERVE))
        return clops__fail(CLOPS_UNSUPPORTED,
                           "%s: memory format %lld is not supported (contiguous%s only)", op,
                           (long long)memory_format, allow_preserve ? " and preserve" : "");
    return CLOPS_OK;
}

/* Checks the list length fits a tensor rank. */
static clops_status check_rank(const char *op, int n)
{
    if (n < 0 || n > CLOPS_MAX_DIMS)
        return clops__fail(CLOPS_INVALID_SHAPE, "%s: %d dimensions; at most %d are supported", op,
                           n, CLOPS_MAX_DIMS);
    return CLOPS_OK;
}

clops_status core_op_empty(const int64_t *size, int size_len, clops_dtype dtype, int64_t layout,
                           clops_device *device, const bool *pin_memory, int64_t memory_format,
                           clops_tensor **out)
{
    (void)pin_memory;
    clops_status st = check_layout("empty", layout, memory_format, false);
    if (st == CLOPS_OK)
        st = check_rank("empty", size_len);
    if (st)
        return st;
    return tensor_new(device, dtype == CLOPS_DTYPE_NONE ? CLOPS_FLOAT32 : dtype, size_len, size,
                      NULL, out);
}

clops_status core_op_empty_strided(const int64_t *size, int size_len, const int64_t *stride,
                                   int stride_len, clops_dtype dtype, int64_t layout,
                                   clops_device *device, const bool *pin_memory,
                                   clops_tensor **out)
{
    (void)pin_memory;
    clops_status st = check_layout("empty_strided", layout, -1, false);
    if (st == CLOPS_OK)
        st = check_rank("empty_strided", size_len);
    if (st)
        return st;
    if (size_len != stride_len)
        return clops__fail(CLOPS_INVALID_SHAPE,
                           "empty_strided: mismatch in length of strides and shape (%d and %d)",
                           stride_len, size_len);
    return tensor_new(device, dtype == CLOPS_DTYPE_NONE ? CLOPS_FLOAT32 : dtype, size_len, size,
                      stride, out);
}

clops_status core_op_zeros(const int64_t *size, int size_len, clops_dtype dtype, int64_t layout,
                           clops_device *device, const bool *pin_memory, clops_tensor **out)
{
    (void)pin_memory;
    clops_status st = check_layout("zeros", layout, -1, false);
    if (st == CLOPS_OK)
        st = check_rank("zeros", size_len);
    return st ? st
              : clops_zeros(device, dtype == CLOPS_DTYPE_NONE ? CLOPS_FLOAT32 : dtype, size_len,
                            size, out);
}

clops_status core_op_ones(const int64_t *size, int size_len, clops_dtype dtype, int64_t layout,
                          clops_device *device, const bool *pin_memory, clops_tensor **out)
{
    (void)pin_memory;
    clops_status st = check_layout("ones", layout, -1, false);
    if (st == CLOPS_OK)
        st = check_rank("ones", size_len);
    return st ? st
              : clops_ones(device, dtype == CLOPS_DTYPE_NONE ? CLOPS_FLOAT32 : dtype, size_len,
                           size, out);
}

clops_status core_op_full(const int64_t *size, int size_len, clops_scalar fill_value,
                          clops_dtype dtype, int64_t layout, clops_device *device,
                          const bool *pin_memory, clops_tensor **out)
{
    (void)pin_memory;
    clops_status st = check_layout("full", layout, -1, false);
    if (st == CLOPS_OK)
        st = check_rank("full", size_len);
    if (st)
        return st;
    /* PyTorch infers the dtype from the fill value's kind. */
    if (dtype == CLOPS_DTYPE_NONE)
        dtype = fill_value.kind == CLOPS_SCALAR_BOOL  ? CLOPS_BOOL
                : fill_value.kind == CLOPS_SCALAR_INT ? CLOPS_INT64
                                                      : CLOPS_FLOAT32;
    return clops_full(device, dtype, size_len, size, fill_value, out);
}

clops_status core_op_arange(clops_scalar start, clops_scalar end, clops_scalar step,
                            clops_dtype dtype, int64_t layout, clops_device *device,
                            const bool *pin_memory, clops_tensor **out)
{
    (void)pin_memory;
    clops_status st = check_layout("arange", layout, -1, false);
    return st ? st : clops_arange(device, dtype, start, end, step, out);
}

clops_status core_op_reshape_alias(clops_tensor *self, const int64_t *size, int size_len,
                                   const int64_t *stride, int stride_len, clops_tensor **out)
{
    return core_as_strided(self, size, size_len, stride, stride_len, &self->offset, out);
}

clops_status core_op_clone(clops_tensor *self, int64_t memory_format, clops_tensor **out)
{
    clops_status st = check_layout("clone", -1, memory_format, true);
    if (st)
        return st;
    if (memory_format == MEMORY_FORMAT_CONTIGUOUS)
        return core_contiguous_copy(self, out);
    return core_clone(self, out);
}

clops_status core_op_contiguous(clops_tensor *self, int64_t memory_format, clops_tensor **out)
{
    clops_status st = check_layout("contiguous", -1, memory_format, false);
    return st ? st : core_contiguous(self, out);
}

clops_status core_op_to_copy(clops_tensor *self, clops_dtype dtype, int64_t layout,
                             clops_device *device, const bool *pin_memory, bool non_blocking,
                             int64_t memory_format, clops_tensor **out)
{
    (void)pin_memory;
    (void)non_blocking;
    clops_status st = check_layout("_to_copy", layout, memory_format, true);
    if (st)
        return st;
    if (memory_format == MEMORY_FORMAT_CONTIGUOUS) {
        clops_tensor *t = NULL;
        clops_device *d = device ? device : self->storage->device;
        clops_dtype dt = dtype == CLOPS_DTYPE_NONE ? self->dtype : dtype;
        st = check_dtype_on_device("_to_copy", dt, d);
        if (st == CLOPS_OK)
            st = tensor_new(d, dt, self->ndim, self->sizes, NULL, &t);
        if (st == CLOPS_OK)
            st = core_copy_(t, self, false);
        if (st) {
            clops_tensor_release(t);
            return st;
        }
        *out = t;
        return CLOPS_OK;
    }
    return core_to_copy(self, dtype, device, out);
}

clops_status core_op_copy_from(clops_tensor *self, clops_tensor *dst, bool non_blocking,
                               clops_tensor **out)
{
    clops_status st = core_copy_(dst, self, non_blocking);
    if (st)
        return st;
    *out = clops_tensor_retain(dst);
    return CLOPS_OK;
}

clops_status core_op_copy_from_and_resize(clops_tensor *self, clops_tensor *dst,
                                          clops_tensor **out)
{
    clops_status st = tensor_resize(dst, self->ndim, self->sizes);
    if (st == CLOPS_OK)
        st = core_copy_(dst, self, false);
    if (st)
        return clops__error_prefix(st, "_copy_from_and_resize");
    *out = clops_tensor_retain(dst);
    return CLOPS_OK;
}

clops_status core_op_resize_(clops_tensor *self, const int64_t *size, int size_len,
                             int64_t memory_format)
{
    clops_status st = check_layout("resize_", -1, memory_format, false);
    if (st == CLOPS_OK)
        st = check_rank("resize_", size_len);
    return st ? st : tensor_resize(self, size_len, size);
}

clops_status core_op_set_source(clops_tensor *self, clops_tensor *source)
{
    if (self == source)
        return CLOPS_OK;
    if (self->dtype != source->dtype)
        return clops__fail(CLOPS_INVALID_DTYPE,
                           "set_: could not set a %s tensor to a %s source; dtypes must match",
                           clops_dtype_name(self->dtype), clops_dtype_name(source->dtype));
    clops_storage *old = self->storage;
    self->storage = storage_retain(source->storage);
    self->ndim = source->ndim;
    self->offset = source->offset;
    for (int i = 0; i < source->ndim; i++) {
        self->sizes[i] = source->sizes[i];
        self->strides[i] = source->strides[i];
    }
    storage_release(old);
    return CLOPS_OK;
}

clops_status core_op_set_empty(clops_tensor *self)
{
    clops_storage *fresh = NULL;
    clops_status st = storage_new(self->storage->device, 0, &fresh);
    if (st)
        return st;
    storage_release(self->storage);
    self->storage = fresh;
    self->ndim = 1;
    self->sizes[0] = 0;
    self->strides[0] = 1;
    self->offset = 0;
    return CLOPS_OK;
}

/* zero_: every element of self set to zero, on self's device (fill_ with
 * 0; zeros_like and PyTorch's gradient buffers come through here). */
clops_status core_op_zero_(clops_tensor *self)
{
    return tensor_fill(self, clops_scalar_int(0));
}

clops_status core_op_local_scalar_dense(clops_tensor *self, clops_scalar *out)
{
    return clops_tensor_item(self, out);
}
