/* SPDX-License-Identifier: Apache-2.0 */
/*
 * clops/opencl.h: bring your own OpenCL -- run clops on a context, queue and
 * buffers the application already has (a CLBlast, ArrayFire or plain OpenCL
 * program), and hand clops' buffers back to it.
 *
 * This is the only public header that includes <CL/cl.h>; the rest of the
 * API never names an OpenCL type.  Define CL_TARGET_OPENCL_VERSION as your
 * program does before including it (clops itself uses OpenCL 1.2 only).
 *
 * Contract (docs/interop.md has the full text and an example):
 *   - A wrapped device runs every clops command on the caller's queue, which
 *     must be in-order (an out-of-order queue is refused).  Commands the
 *     caller enqueues on the same queue are therefore ordered with clops'
 *     automatically, in submission order.  Work on any other queue (the
 *     caller's second queue, another device) must be ordered by the caller:
 *     clFinish / events before handing a buffer to clops, and
 *     clops_device_synchronize (or clFinish on the wrapped queue) before
 *     using clops' results elsewhere.  clops calls return when the work is
 *     enqueued, not finished, except reads to host memory, which block.
 *   - clops retains the context and queue when wrapping and releases them at
 *     clops_shutdown(); the caller may release its own references at any
 *     time.  The device pointer stays valid until clops_shutdown().
 *   - A tensor over a caller's cl_mem retains the buffer and releases that
 *     one reference when the last tensor over it is released; clops never
 *     frees, resizes or reallocates it.
 *   - Threads: a wrapped device may be used from several threads, as any
 *     clops device; clops serialises its own enqueues per kernel, but the
 *     relative order of two threads' commands on one queue is whatever order
 *     they reach it in.  OpenCL 1.2 makes every API call thread-safe except
 *     clSetKernelArg on a shared kernel, which clops guards.
 */
#ifndef CLOPS_OPENCL_H
#define CLOPS_OPENCL_H

#include <stddef.h>
#include <stdint.h>

#include <CL/cl.h>

#include "clops/device.h"
#include "clops/dtype.h"
#include "clops/status.h"
#include "clops/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Wraps the caller's context, device and queue as a clops device.  The
 * queue must belong to that context and device and be in-order;
 * CLOPS_INVALID_ARGUMENT otherwise (or for a NULL argument), naming what
 * does not match.  The device gets its own kernel cache (the on-disk binary
 * cache is shared with the enumerated device of the same hardware) and its
 * own buffer cache; it is not part of clops_device_count / clops_device_find
 * and its label is "wrapped:N".  Wrapping the same context and queue again
 * returns the same device.  At most 64 wraps per process between
 * clops_shutdown() calls.
 */
CLOPS_API clops_status clops_opencl_wrap_device(cl_context context, cl_device_id device_id,
                                                cl_command_queue queue, clops_device **out);

/*
 * The OpenCL objects of any OpenCL clops device (wrapped or enumerated), so
 * the caller can enqueue its own work on clops' queue.  Borrowed: valid
 * until clops_shutdown(); retain them to keep them longer.  Any out pointer
 * may be NULL.  CLOPS_INVALID_ARGUMENT for the CPU device.
 */
CLOPS_API clops_status clops_opencl_device_objects(const clops_device *device,
                                                   cl_context *context, cl_device_id *device_id,
                                                   cl_command_queue *queue);

/*
 * A tensor over the caller's buffer on an OpenCL device whose context is
 * the buffer's: dtype, sizes, strides (in elements; NULL: contiguous) and
 * offset (in elements from the start of the buffer).  The buffer is
 * retained (released with the last tensor over it, views included) and
 * never freed or resized by clops.  CLOPS_INVALID_ARGUMENT for NULLs, the
 * CPU device or a buffer of another context; CLOPS_INVALID_SHAPE when an
 * element the geometry reaches lies past the buffer's end.
 */
CLOPS_API clops_status clops_opencl_tensor_from_buffer(clops_device *device, cl_mem buffer,
                                                       clops_dtype dtype, int ndim,
                                                       const int64_t *sizes,
                                                       const int64_t *strides, int64_t offset,
                                                       clops_tensor **out);

/*
 * The buffer behind a tensor and the byte offset of its first element
 * (storage offset times element size).  Borrowed: valid while the tensor (or
 * another reference to its storage) lives; retain it to keep it longer.
 * Element (i0, i1, ...) is at byte_offset + sum(i_k * stride_k) * element
 * size.  CLOPS_INVALID_ARGUMENT for a tensor on the CPU device; *buffer is
 * NULL for a tensor with an empty storage.
 */
CLOPS_API clops_status clops_opencl_tensor_buffer(const clops_tensor *t, cl_mem *buffer,
                                                  size_t *byte_offset);

#ifdef __cplusplus
}
#endif

#endif /* CLOPS_OPENCL_H */
