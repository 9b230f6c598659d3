/* SPDX-License-Identifier: Apache-2.0 */
/*
 * core/tensor_impl.h: the tensor and storage structs, and the internal
 * tensor functions the operators are built from.
 *
 * The structs are plain and open inside the library (ggml style): kernels
 * read sizes, strides and the storage's buffer directly.  Outside the library
 * they are opaque handles (clops/tensor.h).
 *
 * Functions named core_* with the signature of an operator's typed kernel
 * (views, clone, contiguous, copy_) are what the dispatcher registers; the
 * public clops_* wrappers in the generated clops/ops.h call them through
 * dispatch.  Every function here follows the public conventions: returns a
 * clops_status, records detail with clops__fail, hands out new references
 * through `out`, borrows its inputs.
 */
#ifndef CLOPS_CORE_TENSOR_IMPL_H
#define CLOPS_CORE_TENSOR_IMPL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "clops/tensor.h"
#include "core/error.h"
#include "core/hooks.h"

typedef struct host_block host_block;

/* A reference-counted allocation on one device. */
typedef struct clops_storage {
    atomic_long refcount;
    clops_device *device;
    size_t nbytes;
    void *host_ptr;    /* CPU device: 64-byte aligned host memory, else NULL */
    host_block *block; /* OpenCL device: allocator block, NULL when nbytes==0 */
    bool external;     /* over a caller's buffer: fixed size (resize_ refused) */
} clops_storage;

struct clops_tensor {
    atomic_long refcount;
    clops_storage *storage; /* never NULL */
    clops_dtype dtype;
    int ndim;
    int64_t offset; /* in elements */
    int64_t sizes[CLOPS_MAX_DIMS];
    int64_t strides[CLOPS_MAX_DIMS];
};

/* --- storage ------------------------------------------------------------ */

/* New storage of nbytes on device (uninitialised). */
clops_status storage_new(clops_device *device, size_t nbytes, clops_storage **out);
clops_storage *storage_retain(clops_storage *s);
void storage_release(clops_storage *s);
/* Grows s to at least nbytes, keeping its contents (resize_). */
clops_status storage_grow(clops_storage *s, size_t nbytes);

/* --- construction ------------------------------------------------------- */

/* A tensor object over existing storage (retained), with the given
 * geometry.  Checks that every reachable element lies inside the storage:
 * CLOPS_INVALID_SHAPE otherwise.  `op` names the caller in messages. */
clops_status tensor_make(const char *op, clops_storage *storage, clops_dtype dtype, int ndim,
                         const int64_t *sizes, const int64_t *strides, int64_t offset,
                         clops_tensor **out);

/* A view of base's storage with new geometry (tensor_make on base's
 * storage and dtype). */
clops_status tensor_make_view(const char *op, const clops_tensor *base, int ndim,
                              const int64_t *sizes, const int64_t *strides, int64_t offset,
                              clops_tensor **out);

/* Uninitialised tensor on device with explicit strides (NULL: contiguous). */
clops_status tensor_new(clops_device *device, clops_dtype dtype, int ndim, const int64_t *sizes,
                        const int64_t *strides, clops_tensor **out);

/* Gives t new sizes with contiguous strides, growing its storage when
 * needed (resize_, out= resizing).  Contents of new elements are undefined. */
clops_status tensor_resize(clops_tensor *t, int ndim, const int64_t *sizes);

/* --- copies (kernels reached through core_kernel_hooks) ---------------- */

/* copy_ (ops/tensor/tensor_copy.c's core_copy_): writes src, broadcast to dst's shape
 * and converted to dst's dtype, into dst.  Any devices. */
clops_status tensor_copy(clops_tensor *dst, clops_tensor *src);
/* to_copy (core_to_copy): a new contiguous tensor with src's data on
 * `device` (NULL: src's) and of `dtype` (CLOPS_DTYPE_NONE: src's). */
clops_status tensor_to_copy(clops_tensor *src, clops_dtype dtype, clops_device *device,
                            clops_tensor **out);

/* --- geometry helpers --------------------------------------------------- */

int64_t tensor_numel(const clops_tensor *t);
/* Checked int64 arithmetic for size, padding, stride and index computations:
 * *out = a + b, a - b or a * b, or false (and *out unset) when the result
 * does not fit in int64.  Every family computes sizes from user arguments
 * with these, and reports overflow as an error naming the op and the
 * arguments (never undefined behaviour, never a wrapped size). */
bool geom_add(int64_t a, int64_t b, int64_t *out);
bool geom_sub(int64_t a, int64_t b, int64_t *out);
bool geom_mul(int64_t a, int64_t b, int64_t *out);
/* Row-major strides for sizes (size-1 dims get the stride PyTorch gives). */
void contiguous_strides(int ndim, const int64_t *sizes, int64_t *strides);
/* Checks ndim and sizes (0 <= ndim <= CLOPS_MAX_DIMS, sizes >= 0, no
 * overflow of numel); `op` names the caller. */
clops_status check_sizes(const char *op, int ndim, const int64_t *sizes);
/* Bytes a geometry needs from offset 0: (offset + max reachable index + 1)
 * * elsize, or 0 for an empty tensor.  CLOPS_INVALID_SHAPE on overflow or a
 * negative reachable index. */
clops_status storage_bytes_needed(const char *op, clops_dtype dtype, int ndim,
                                  const int64_t *sizes, const int64_t *strides, int64_t offset,
                                  size_t *out);
/* Wraps a possibly negative dim into [0, ndim); CLOPS_INDEX_OUT_OF_RANGE with
 * PyTorch's message otherwise.  ndim 0 accepts -1 and 0, as PyTorch does. */
clops_status wrap_dim(const char *op, int64_t dim, int ndim, int *out);
/* "float32[5, 7] strides [7, 1] offset 0 on opencl:0" */
char *tensor_describe(const clops_tensor *t, char *buf, size_t cap);

/* Smallest and largest value of an integer or bool dtype (int64's for the
 * others). */
void dtype_int_range(clops_dtype dtype, int64_t *lo, int64_t *hi);

/* PyTorch's can_cast: floating to integral/bool and integral to bool are
 * refused, everything else is allowed; false for invalid dtypes.  (The
 * pointwise engine's pw_can_cast is this rule.) */
bool dtype_can_cast(clops_dtype from, clops_dtype to);

/* Device check for the float64/fp16 capability of a dtype on a device:
 * CLOPS_UNSUPPORTED naming op and device when missing. */
clops_status check_dtype_on_device(const char *op, clops_dtype dtype, const clops_device *device);

/* --- views (core/view.c) ------------------------------------------------ */
/* Each returns a new tensor sharing self's storage; the errors and the
 * resulting geometry follow PyTorch. */

clops_status core_view(clops_tensor *self, const int64_t *size, int size_len, clops_tensor **out);
/* PyTorch's view_as_real / view_as_complex: a complex tensor as pairs of
 * its real dtype (a last dim of 2) and back, over the same storage. */
clops_status core_view_as_real(clops_tensor *self, clops_tensor **out);
clops_status core_view_as_complex(clops_tensor *self, clops_tensor **out);
clops_status core_as_strided(clops_tensor *self, const int64_t *size, int size_len,
                             const int64_t *stride, int stride_len, const int64_t *storage_offset,
                             clops_tensor **out);
clops_status core_permute(clops_tensor *self, const int64_t *dims, int dims_len,
                          clops_tensor **out);
clops_status core_transpose(clops_tensor *self, int64_t dim0, int64_t dim1, clops_tensor **out);
clops_status core_t(clops_tensor *self, clops_tensor **out);
clops_status core_expand(clops_tensor *self, const int64_t *size, int size_len, bool implicit,
                         clops_tensor **out);
clops_status core_narrow(clops_tensor *self, int64_t dim, int64_t start, int64_t length,
                         clops_tensor **out);
/* start/end NULL mean None; step must be positive. */
clops_status core_slice(clops_tensor *self, int64_t dim, const int64_t *start, const int64_t *end,
                        int64_t step, clops_tensor **out);
clops_status core_select(clops_tensor *self, int64_t dim, int64_t index, clops_tensor **out);
clops_status core_squeeze(clops_tensor *self, clops_tensor **out);
clops_status core_squeeze_dim(clops_tensor *self, int64_t dim, clops_tensor **out);
clops_status core_squeeze_dims(clops_tensor *self, const int64_t *dims, int dims_len,
                               clops_tensor **out);
clops_status core_unsqueeze(clops_tensor *self, int64_t dim, clops_tensor **out);
clops_status core_unflatten(clops_tensor *self, int64_t dim, const int64_t *sizes, int sizes_len,
                            clops_tensor **out);
clops_status core_diagonal(clops_tensor *self, int64_t offset, int64_t dim1, int64_t dim2,
                           clops_tensor **out);
clops_status core_alias(clops_tensor *self, clops_tensor **out);

/* Helpers the view operators share (core/view.c). */
/* Product of sizes that already passed check_sizes. */
int64_t view_shape_numel(int ndim, const int64_t *sizes);
/* self and out must be given; clears *out. */
clops_status view_check_self_out(const char *op, const clops_tensor *self, clops_tensor **out);
/* An int list argument: a non-negative length and a pointer when non-empty. */
clops_status view_check_list(const char *op, const char *what, const int64_t *list, int len);

/* View geometry alone (no tensor object), as PyTorch's computeStride: the
 * strides that let `self` be viewed as `size`, or false when no view exists.
 * size must already have -1 inferred. */
bool view_compute_strides(int ndim, const int64_t *sizes, const int64_t *strides, int new_ndim,
                          const int64_t *new_sizes, int64_t *new_strides);
/* Infers a single -1 in shape from numel ("shape '[2, -1]' is invalid for
 * input of size 7" errors). */
clops_status infer_size(const char *op, int64_t numel, const int64_t *shape, int shape_len,
                        int64_t *out);

#endif /* CLOPS_CORE_TENSOR_IMPL_H */
