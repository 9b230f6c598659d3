/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ops/tensor/tensor.h: the kernels of the tensor operator family
 * (dispatch/inventory/tensor.yaml: factories, views, copies, casts, resizing)
 * that other kernels call directly: copies between tensors (ops/tensor/tensor_copy.c)
 * and filling (ops/tensor/tensor_fill.c).
 *
 * Layers below the kernels (core/, dispatch/) reach the copies through
 * core_kernel_hooks (core/hooks.h: tensor_copy, tensor_to_copy), never
 * through this header.
 */
#ifndef CLOPS_OPS_TENSOR_H
#define CLOPS_OPS_TENSOR_H

#include "core/tensor_impl.h"

/* --- copies (ops/tensor/tensor_copy.c) ------------------------------------------ */

/* copy_: writes src, broadcast to dst's shape and converted to dst's dtype,
 * into dst.  Any devices. */
clops_status core_copy_(clops_tensor *dst, clops_tensor *src, bool non_blocking);
/* _to_copy: a new tensor with src's data on `device` (NULL: src's) and of
 * `dtype` (CLOPS_DTYPE_NONE: src's), in src's memory layout (PyTorch's
 * preserve_format: a transposed src gives a transposed copy).  A kernel
 * that reads its operand in row-major memory order wants
 * core_contiguous_as instead. */
clops_status core_to_copy(clops_tensor *src, clops_dtype dtype, clops_device *device,
                          clops_tensor **out);
/* src's data in dtype, row-major contiguous at storage offset 0 on src's
 * device: a new reference to src when it already is that, else a copy. */
clops_status core_contiguous_as(clops_tensor *src, clops_dtype dtype, clops_tensor **out);
clops_status core_clone(clops_tensor *self, clops_tensor **out);
/* self when already contiguous (a new reference), else a contiguous copy. */
clops_status core_contiguous(clops_tensor *self, clops_tensor **out);

/* A new contiguous tensor with self's data (always a copy). */
clops_status core_contiguous_copy(clops_tensor *self, clops_tensor **out);

/* --- reshape and flatten (ops/tensor/tensor_reshape.c) ---------------------------- */

/* A view of self as shape (one -1 allowed) when one exists, else a view of
 * a contiguous copy. */
clops_status core_reshape(clops_tensor *self, const int64_t *shape, int shape_len,
                          clops_tensor **out);
/* Merges dims start_dim..end_dim into one: a view when possible, else a
 * contiguous copy. */
clops_status core_flatten(clops_tensor *self, int64_t start_dim, int64_t end_dim,
                          clops_tensor **out);

/* --- filling (ops/tensor/tensor_fill.c) ------------------------------------------ */

/* Fills every element of t with value (fill_). */
clops_status tensor_fill(clops_tensor *t, clops_scalar value);

#endif /* CLOPS_OPS_TENSOR_H */
