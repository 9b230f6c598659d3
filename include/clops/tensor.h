/* SPDX-License-Identifier: Apache-2.0 */
/*
 * clops/tensor.h: tensors, their storage, factories and host transfers.
 *
 * A tensor is a reference-counted view of a storage: dtype, sizes, strides
 * (in elements) and a storage offset (in elements), on the storage's device.
 * Several tensors may share one storage (views); the storage is freed when
 * the last tensor using it is released.
 *
 * Ownership: every function that hands out a clops_tensor* through an `out`
 * parameter gives the caller one reference, to be dropped with
 * clops_tensor_release().  Functions taking a tensor argument borrow it.
 * clops_tensor_release(NULL) is a no-op.  A tensor may be read by several
 * threads at once; changing one (in-place ops, resize_) while another thread
 * uses it is the caller's race, as in PyTorch.
 *
 * The operators (view, permute, add, copy_, ...) are declared in
 * clops/ops.h, which is generated from the operator inventory.
 */
#ifndef CLOPS_TENSOR_H
#define CLOPS_TENSOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "clops/device.h"
#include "clops/dtype.h"
#include "clops/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Largest rank a tensor may have. */
#define CLOPS_MAX_DIMS 16

typedef struct clops_tensor clops_tensor;

/* --- references --------------------------------------------------------- */

/* Adds a reference; returns t. */
CLOPS_API clops_tensor *clops_tensor_retain(clops_tensor *t);
/* Drops a reference; frees the tensor (and its storage, if it was the last
 * user) at zero.  NULL is a no-op. */
CLOPS_API void clops_tensor_release(clops_tensor *t);

/* A list of tensors returned by an op whose schema returns `Tensor[]`
 * (split, unbind, chunk, ...): `data` is a malloc'd array of `len` new
 * references.  clops_tensor_list_free releases every tensor and the array
 * and leaves the list empty; an empty list is a no-op. */
typedef struct clops_tensor_list {
    clops_tensor **data;
    int len;
} clops_tensor_list;
CLOPS_API void clops_tensor_list_free(clops_tensor_list *list);

/* --- metadata ----------------------------------------------------------- */

CLOPS_API int clops_tensor_ndim(const clops_tensor *t);
CLOPS_API clops_dtype clops_tensor_dtype(const clops_tensor *t);
CLOPS_API clops_device *clops_tensor_device(const clops_tensor *t);
/* Pointers to ndim sizes / strides, valid while t lives and is not resized. */
CLOPS_API const int64_t *clops_tensor_sizes(const clops_tensor *t);
CLOPS_API const int64_t *clops_tensor_strides(const clops_tensor *t);
/* Size / stride of one dimension; negative dims count from the end.  Out of
 * range gives -1. */
CLOPS_API int64_t clops_tensor_size(const clops_tensor *t, int dim);
CLOPS_API int64_t clops_tensor_stride(const clops_tensor *t, int dim);
CLOPS_API int64_t clops_tensor_storage_offset(const clops_tensor *t);
CLOPS_API int64_t clops_tensor_numel(const clops_tensor *t);
/* Row-major contiguous (PyTorch's is_contiguous()). */
CLOPS_API bool clops_tensor_is_contiguous(const clops_tensor *t);
/* True when both tensors use the same storage. */
CLOPS_API bool clops_tensor_shares_storage(const clops_tensor *a, const clops_tensor *b);
/* Bytes of the underlying storage. */
CLOPS_API size_t clops_tensor_storage_nbytes(const clops_tensor *t);

/* Writes "float32[5, 7]{strides 7,1} on opencl:0" into buf (always
 * terminated, truncated to cap).  Returns buf. */
CLOPS_API char *clops_tensor_describe(const clops_tensor *t, char *buf, size_t cap);

/* --- factories ---------------------------------------------------------- */
/* device NULL means clops_device_default().  sizes may be NULL when ndim is
 * 0 (a zero-dim tensor with one element). */

/* Uninitialised, row-major contiguous. */
CLOPS_API clops_status clops_empty(clops_device *device, clops_dtype dtype, int ndim,
                                   const int64_t *sizes, clops_tensor **out);
/* Uninitialised with the given strides; the storage is as large as the
 * furthest element needs. */
CLOPS_API clops_status clops_empty_strided(clops_device *device, clops_dtype dtype, int ndim,
                                           const int64_t *sizes, const int64_t *strides,
                                           clops_tensor **out);
CLOPS_API clops_status clops_zeros(clops_device *device, clops_dtype dtype, int ndim,
                                   const int64_t *sizes, clops_tensor **out);
CLOPS_API clops_status clops_ones(clops_device *device, clops_dtype dtype, int ndim,
                                  const int64_t *sizes, clops_tensor **out);
/* Filled with value converted to dtype as PyTorch's fill_ does. */
CLOPS_API clops_status clops_full(clops_device *device, clops_dtype dtype, int ndim,
                                  const int64_t *sizes, clops_scalar value, clops_tensor **out);
/* 1-D tensor start, start+step, ... < end (> end for a negative step), with
 * PyTorch's length rule ceil((end-start)/step).  dtype CLOPS_DTYPE_NONE
 * infers int64 from integer arguments and float32 otherwise. */
CLOPS_API clops_status clops_arange(clops_device *device, clops_dtype dtype, clops_scalar start,
                                    clops_scalar end, clops_scalar step, clops_tensor **out);
/* Contiguous tensor initialised from nbytes of row-major host data, which
 * must equal numel * dtype size. */
CLOPS_API clops_status clops_from_host(clops_device *device, clops_dtype dtype, int ndim,
                                       const int64_t *sizes, const void *data, size_t nbytes,
                                       clops_tensor **out);

/* --- transfers ---------------------------------------------------------- */

/* Copies the tensor's elements, in row-major order of its sizes (whatever
 * its strides), to host memory of nbytes = numel * dtype size.  Blocks until
 * the data is there. */
CLOPS_API clops_status clops_tensor_to_host(const clops_tensor *t, void *dst, size_t nbytes);
/* Writes row-major host data into the tensor's elements (any strides; an
 * expanded tensor is an error). */
CLOPS_API clops_status clops_tensor_from_host(clops_tensor *t, const void *src, size_t nbytes);
/* A new contiguous tensor with the same data on another device (also across
 * OpenCL platforms; same-device gives a copy too). */
CLOPS_API clops_status clops_tensor_to_device(const clops_tensor *t, clops_device *device,
                                              clops_tensor **out);
/* The value of a one-element tensor: bool for bool, int for integer dtypes,
 * float for floating dtypes. */
CLOPS_API clops_status clops_tensor_item(const clops_tensor *t, clops_scalar *out);

/* --- storage, for bridges that manage memory themselves ---------------- */
/*
 * A storage is the reference-counted allocation under one or more tensors
 * (a cl_mem from the device's caching allocator, or host memory on the CPU
 * device).  A framework bridge (the PyTorch device) allocates storages,
 * keeps them in its own storage objects and builds clops tensors over them
 * with any geometry, so that its views map one-to-one onto clops views.
 * Ownership follows the tensors': _new hands out one reference, _retain
 * adds one, _release drops one (NULL is a no-op).
 */
typedef struct clops_storage clops_storage;

/* Uninitialised storage of nbytes (0 allowed) on device (NULL: default). */
CLOPS_API clops_status clops_storage_new(clops_device *device, size_t nbytes,
                                         clops_storage **out);
CLOPS_API clops_storage *clops_storage_retain(clops_storage *s);
CLOPS_API void clops_storage_release(clops_storage *s);
CLOPS_API size_t clops_storage_nbytes(const clops_storage *s);
CLOPS_API clops_device *clops_storage_device(const clops_storage *s);
/* The OpenCL buffer (a cl_mem) of a storage on an OpenCL device; NULL for
 * the CPU device or an empty storage.  Owned by the storage. */
CLOPS_API void *clops_storage_cl_mem(const clops_storage *s);
/* The storage under t (borrowed: valid while t lives). */
CLOPS_API clops_storage *clops_tensor_storage(const clops_tensor *t);
/*
 * A tensor over s (retained) with the given geometry: sizes and strides in
 * elements, offset in elements.  CLOPS_INVALID_SHAPE when an element it can
 * reach lies outside the storage.
 */
CLOPS_API clops_status clops_tensor_from_storage(clops_storage *s, clops_dtype dtype, int ndim,
                                                 const int64_t *sizes, const int64_t *strides,
                                                 int64_t offset, clops_tensor **out);
/* PyTorch's view_as_real: a complex64/complex128 tensor as float32/float64
 * with a last dim of 2 (real, imaginary), over the same storage; and
 * view_as_complex, its inverse (a last dim of 2 with stride 1, the other
 * strides and the offset even).  Errors as PyTorch's. */
CLOPS_API clops_status clops_view_as_real(clops_tensor *self, clops_tensor **out);
CLOPS_API clops_status clops_view_as_complex(clops_tensor *self, clops_tensor **out);
/* Bytes of device memory handed out to storages and bytes held in the
 * allocator's cache (returned by clops_empty_cache), on one device. */
CLOPS_API clops_status clops_memory_stats(clops_device *device, size_t *in_use,
                                          size_t *cached);
/* The most bytes handed out to storages at once on one device, since clops
 * started or the last reset; `reset` (after reading) makes the peak the bytes
 * handed out now (PyTorch's max_memory_allocated / reset_peak_memory_stats).
 * Zero for the CPU device. */
CLOPS_API clops_status clops_memory_peak(clops_device *device, bool reset, size_t *peak);

/* --- library lifetime --------------------------------------------------- */

/* Discovers devices.  Optional: every entry point initialises on demand.
 * Thread-safe. */
CLOPS_API clops_status clops_init(void);
/*
 * Frees every device resource, cached buffers and kernels, after writing
 * pending kernel binaries to the disk cache.  Afterwards the library may be
 * initialised again.  Must not run while other threads call clops.
 *
 * Tensors still alive become invalid, with one exception: releasing them
 * (clops_tensor_release, also of views) stays allowed and is safe after
 * shutdown and after a later re-initialisation: it frees the tensor's host
 * record and its device buffer (directly to the driver, since the device's
 * allocator is gone), so `release at exit after shutdown` neither crashes
 * nor leaks.  Every other use of a tensor, device or op handle from before
 * the shutdown is undefined.
 */
CLOPS_API void clops_shutdown(void);
/* Returns cached (unused) device buffers of the device to the driver. NULL
 * means every device. */
CLOPS_API clops_status clops_empty_cache(clops_device *device);
/* "0.1.0" */
CLOPS_API const char *clops_version(void);

#ifdef __cplusplus
}
#endif

#endif /* CLOPS_TENSOR_H */
