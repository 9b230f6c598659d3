/* SPDX-License-Identifier: Apache-2.0 */
/*
 * host/storage_api.c: the public storage functions (clops/tensor.h) that
 * framework bridges use to own device memory: new/retain/release, the
 * cl_mem behind a storage, tensors over an existing storage, and the
 * allocator's memory statistics.  The storage itself is core's
 * (core/tensor.c); this file only exposes it, in the host layer because
 * the cl_mem and the allocator statistics live here.
 */
#include "core/tensor_impl.h"
#include "host/host.h"

/* clops_storage_new: storage_new on the given or default device. */
clops_status clops_storage_new(clops_device *device, size_t nbytes, clops_storage **out)
{
    if (!out)
        return clops__fail(CLOPS_INVALID_ARGUMENT, "clops_storage_new: out is NULL");
    *out = NULL;
    if (!device) {
        clops_status st = clops_device_default(&device);
        if (st)
            return st;
    }
    return storage_new(device, nbytes, out);
}

/* Adds a reference; returns s (NULL stays NULL). */
clops_storage *clops_storage_retain(clops_storage *s)
{
    return s ? storage_retain(s) : NULL;
}

/* Drops a reference; NULL is a no-op. */
void clops_storage_release(clops_storage *s)
{
    storage_release(s);
}

/* Bytes the storage holds; 0 for NULL. */
size_t clops_storage_nbytes(const clops_storage *s)
{
    return s ? s->nbytes : 0;
}

/* The device the storage lives on; NULL for NULL. */
clops_device *clops_storage_device(const clops_storage *s)
{
    return s ? s->device : NULL;
}

/* The cl_mem of an OpenCL storage; NULL for host or empty storage. */
void *clops_storage_cl_mem(const clops_storage *s)
{
    return s && s->block ? (void *)s->block->mem : NULL;
}

/* The storage under a tensor, borrowed. */
clops_storage *clops_tensor_storage(const clops_tensor *t)
{
    return t ? t->storage : NULL;
}

/* A tensor over an existing storage (tensor_make checks the bounds). */
clops_status clops_tensor_from_storage(clops_storage *s, clops_dtype dtype, int ndim,
                                       const int64_t *sizes, const int64_t *strides,
                                       int64_t offset, clops_tensor **out)
{
    if (!s || !out || (ndim > 0 && (!sizes || !strides)))
        return clops__fail(CLOPS_INVALID_ARGUMENT,
                           "clops_tensor_from_storage: storage, sizes, strides and out are required");
    *out = NULL;
    if (offset < 0)
        return clops__fail(CLOPS_INVALID_SHAPE,
                           "clops_tensor_from_storage: negative storage offset %lld",
                           (long long)offset);
    return tensor_make("clops_tensor_from_storage", s, dtype, ndim, sizes, strides, offset, out);
}

/* Allocator statistics of one device; zeros for the CPU device. */
clops_status clops_memory_stats(clops_device *device, size_t *in_use, size_t *cached)
{
    if (!device)
        return clops__fail(CLOPS_INVALID_ARGUMENT, "clops_memory_stats: device is NULL");
    if (in_use)
        *in_use = 0;
    if (cached)
        *cached = 0;
    if (host_is_cpu(device))
        return CLOPS_OK;
    host_alloc_stats(device, in_use, cached);
    return CLOPS_OK;
}

/* Allocator peak of one device; zero for the CPU device. */
clops_status clops_memory_peak(clops_device *device, bool reset, size_t *peak)
{
    if (!device || !peak)
        return clops__fail(CLOPS_INVALID_ARGUMENT, "clops_memory_peak: device and peak are required");
    *peak = host_is_cpu(device) ? 0 : host_alloc_peak(device, reset);
    return CLOPS_OK;
}
