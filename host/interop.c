/* SPDX-License-Identifier: Apache-2.0 */
/*
 * host/interop.c: bring your own OpenCL (clops/opencl.h).
 *
 * Checks what a caller hands over -- that the queue belongs to the context
 * and device and runs in order, that a buffer belongs to the device's
 * context and is large enough -- and builds clops records over it: a device
 * record that retains the caller's context and queue (host/device.c keeps
 * it until shutdown), and a storage whose block is the caller's cl_mem,
 * marked borrowed so that freeing it drops clops' retain instead of caching
 * the buffer, and external so that resize_ refuses to replace it.
 * docs/interop.md states the synchronisation and threading contract.
 */
#include <stdlib.h>

#include "clops/opencl.h"
#include "core/tensor_impl.h"
#include "host/host.h"

/* Records an OpenCL query that failed while checking a caller's object. */
static clops_status query_fail(const char *fn, const char *what, cl_int err)
{
    return clops__fail(CLOPS_INVALID_ARGUMENT, "%s: %s failed: %s (%d); is it a valid object?",
                       fn, what, host_cl_error_name(err), (int)err);
}

/* True when id is one of the context's devices. */
static bool context_has_device(cl_context ctx, cl_device_id id)
{
    cl_uint n = 0;
    if (clGetContextInfo(ctx, CL_CONTEXT_NUM_DEVICES, sizeof n, &n, NULL) != CL_SUCCESS || !n)
        return false;
    cl_device_id *ids = calloc(n, sizeof *ids);
    bool found = false;
    if (ids && clGetContextInfo(ctx, CL_CONTEXT_DEVICES, n * sizeof *ids, ids, NULL) == CL_SUCCESS)
        for (cl_uint i = 0; i < n; i++)
            found = found || ids[i] == id;
    free(ids);
    return found;
}

clops_status clops_opencl_wrap_device(cl_context context, cl_device_id device_id,
                                      cl_command_queue queue, clops_device **out)
{
    static const char fn[] = "clops_opencl_wrap_device";
    if (!context || !device_id || !queue || !out)
        return clops__fail(CLOPS_INVALID_ARGUMENT,
                           "%s: context, device_id, queue and out must not be NULL (got %s%s%s%s)",
                           fn, context ? "" : "context=NULL ", device_id ? "" : "device_id=NULL ",
                           queue ? "" : "queue=NULL ", out ? "" : "out=NULL");
    *out = NULL;
    cl_context qctx = NULL;
    cl_device_id qdev = NULL;
    cl_command_queue_properties props = 0;
    cl_platform_id platform = NULL;
    cl_int err = clGetCommandQueueInfo(queue, CL_QUEUE_CONTEXT, sizeof qctx, &qctx, NULL);
    if (err == CL_SUCCESS)
        err = clGetCommandQueueInfo(queue, CL_QUEUE_DEVICE, sizeof qdev, &qdev, NULL);
    if (err == CL_SUCCESS)
        err = clGetCommandQueueInfo(queue, CL_QUEUE_PROPERTIES, sizeof props, &props, NULL);
    if (err != CL_SUCCESS)
        return query_fail(fn, "clGetCommandQueueInfo on the queue", err);
    err = clGetDeviceInfo(device_id, CL_DEVICE_PLATFORM, sizeof platform, &platform, NULL);
    if (err != CL_SUCCESS)
        return query_fail(fn, "clGetDeviceInfo on the device", err);
    if (qctx != context)
        return clops__fail(CLOPS_INVALID_ARGUMENT,
                           "%s: the queue belongs to another context than the one given", fn);
    if (qdev != device_id)
        return clops__fail(CLOPS_INVALID_ARGUMENT,
                           "%s: the queue runs on another device than the one given", fn);
    if (!context_has_device(context, device_id))
        return clops__fail(CLOPS_INVALID_ARGUMENT, "%s: the device is not in the context", fn);
    if (props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE)
        return clops__fail(CLOPS_INVALID_ARGUMENT,
                           "%s: the queue is out-of-order (CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE); "
                           "clops orders its commands by submission and needs an in-order queue "
                           "(create a second, in-order queue for clops)",
                           fn);
    return host_device_wrap(platform, device_id, context, queue, out);
}

clops_status clops_opencl_device_objects(const clops_device *device, cl_context *context,
                                         cl_device_id *device_id, cl_command_queue *queue)
{
    if (!device)
        return clops__fail(CLOPS_INVALID_ARGUMENT, "clops_opencl_device_objects: device is NULL");
    if (host_is_cpu(device))
        return clops__fail(CLOPS_INVALID_ARGUMENT,
                           "clops_opencl_device_objects: device %s (%s) is not an OpenCL device",
                           device->label, device->info.name);
    if (context)
        *context = device->context;
    if (device_id)
        *device_id = device->id;
    if (queue)
        *queue = device->queue;
    return CLOPS_OK;
}

/* Checks the device and buffer of clops_opencl_tensor_from_buffer; the
 * buffer's size into *size. */
static clops_status check_buffer(const char *fn, const clops_device *device, cl_mem buffer,
                                 size_t *size)
{
    if (host_is_cpu(device))
        return clops__fail(CLOPS_INVALID_ARGUMENT,
                           "%s: device %s (%s) is not an OpenCL device; a cl_mem needs one", fn,
                           device->label, device->info.name);
    cl_context ctx = NULL;
    cl_mem_object_type type = 0;
    cl_int err = clGetMemObjectInfo(buffer, CL_MEM_TYPE, sizeof type, &type, NULL);
    if (err == CL_SUCCESS)
        err = clGetMemObjectInfo(buffer, CL_MEM_CONTEXT, sizeof ctx, &ctx, NULL);
    if (err == CL_SUCCESS)
        err = clGetMemObjectInfo(buffer, CL_MEM_SIZE, sizeof *size, size, NULL);
    if (err != CL_SUCCESS)
        return query_fail(fn, "clGetMemObjectInfo on the buffer", err);
    if (type != CL_MEM_OBJECT_BUFFER)
        return clops__fail(CLOPS_INVALID_ARGUMENT, "%s: the cl_mem is an image, not a buffer", fn);
    if (ctx != device->context)
        return clops__fail(CLOPS_INVALID_ARGUMENT,
                           "%s: the buffer belongs to another OpenCL context than device %s (%s); "
                           "wrap the buffer's context with clops_opencl_wrap_device",
                           fn, device->label, device->info.name);
    return CLOPS_OK;
}

clops_status clops_opencl_tensor_from_buffer(clops_device *device, cl_mem buffer,
                                             clops_dtype dtype, int ndim, const int64_t *sizes,
                                             const int64_t *strides, int64_t offset,
                                             clops_tensor **out)
{
    static const char fn[] = "clops_opencl_tensor_from_buffer";
    if (!device || !buffer || !out || (ndim > 0 && !sizes))
        return clops__fail(CLOPS_INVALID_ARGUMENT,
                           "%s: device, buffer, out and (for ndim > 0) sizes must not be NULL",
                           fn);
    *out = NULL;
    if (offset < 0)
        return clops__fail(CLOPS_INVALID_SHAPE, "%s: negative storage offset %lld", fn,
                           (long long)offset);
    if (clops_dtype_size(dtype) == 0)
        return clops__fail(CLOPS_INVALID_DTYPE, "%s: invalid dtype %d", fn, (int)dtype);
    clops_status st = check_sizes(fn, ndim, sizes);
    if (st)
        return st;
    size_t size = 0;
    st = check_buffer(fn, device, buffer, &size);
    if (st)
        return st;
    int64_t cstrides[CLOPS_MAX_DIMS];
    if (!strides) {
        contiguous_strides(ndim, sizes, cstrides);
        strides = cstrides;
    }
    size_t need = 0;
    st = storage_bytes_needed(fn, dtype, ndim, sizes, strides, offset, &need);
    if (st)
        return st;
    if (need > size) {
        char what[160];
        clops__fail(CLOPS_INVALID_SHAPE,
                    "%s: the buffer holds %zu bytes but %s needs %zu (sizes [", fn, size,
                    clops_dtype_name(dtype), need);
        for (int i = 0; i < ndim; i++) {
            snprintf(what, sizeof what, "%s%lld", i ? ", " : "", (long long)sizes[i]);
            clops__error_append(what);
        }
        clops__error_append("], strides [");
        for (int i = 0; i < ndim; i++) {
            snprintf(what, sizeof what, "%s%lld", i ? ", " : "", (long long)strides[i]);
            clops__error_append(what);
        }
        snprintf(what, sizeof what, "], offset %lld)", (long long)offset);
        clops__error_append(what);
        return CLOPS_INVALID_SHAPE;
    }
    host_block *b = calloc(1, sizeof *b);
    clops_storage *s = NULL;
    if (!b)
        return CLOPS__HOST_OOM("buffer record");
    st = storage_new(device, 0, &s);
    if (st) {
        free(b);
        return st;
    }
    clRetainMemObject(buffer);
    b->mem = buffer;
    b->size = size;
    b->device = device;
    b->generation = host_generation();
    b->borrowed = true;
    s->block = b;
    s->nbytes = size;
    s->external = true;
    st = tensor_make(fn, s, dtype, ndim, sizes, strides, offset, out);
    storage_release(s); /* the tensor holds it now (or frees it on error) */
    return st;
}

clops_status clops_opencl_tensor_buffer(const clops_tensor *t, cl_mem *buffer, size_t *byte_offset)
{
    if (!t || !buffer)
        return clops__fail(CLOPS_INVALID_ARGUMENT,
                           "clops_opencl_tensor_buffer: tensor and buffer must not be NULL");
    const clops_device *d = t->storage->device;
    if (host_is_cpu(d))
        return clops__fail(CLOPS_INVALID_ARGUMENT,
                           "clops_opencl_tensor_buffer: the tensor is on device %s (%s), which "
                           "has no OpenCL buffer",
                           d->label, d->info.name);
    *buffer = t->storage->block ? t->storage->block->mem : NULL;
    if (byte_offset)
        *byte_offset = (size_t)t->offset * clops_dtype_size(t->dtype);
    return CLOPS_OK;
}
