/* SPDX-License-Identifier: Apache-2.0 */
/*
 * host/storage.c: device memory behind core's storage records.
 *
 * core/ owns the storage record (reference count, size, device) but not the
 * memory: on the CPU device that is 64-byte aligned host memory, on an OpenCL
 * device a block of the caching allocator (host/alloc.c).  These functions
 * are core's memory hooks (core/hooks.h); host_init installs them before it
 * hands out any device.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/tensor_impl.h"
#include "host/host.h"

/* The machine's physical memory in bytes (0: unknown). */
static size_t physical_bytes(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || size <= 0 || (size_t)pages > SIZE_MAX / (size_t)size)
        return 0;
    return (size_t)pages * (size_t)size;
}

/* Allocates s->nbytes on s->device.  A CPU-device storage larger than the
 * machine's physical memory is refused up front: where the kernel
 * overcommits, malloc would succeed and the first writes would bring the
 * OOM killer instead of an error. */
static clops_status storage_alloc(clops_storage *s)
{
    if (host_is_cpu(s->device)) {
        size_t phys = physical_bytes();
        if (phys && s->nbytes > phys)
            return clops__fail(CLOPS_HOST_OUT_OF_MEMORY,
                               "out of host memory: cannot allocate %zu bytes on cpu (the "
                               "machine has %zu bytes of memory)",
                               s->nbytes, phys);
        size_t rounded = (s->nbytes + 63) / 64 * 64;
        s->host_ptr = rounded >= s->nbytes ? aligned_alloc(64, rounded) : NULL;
        if (!s->host_ptr)
            return clops__fail(CLOPS_HOST_OUT_OF_MEMORY,
                               "out of host memory: cannot allocate %zu bytes on cpu", s->nbytes);
        return CLOPS_OK;
    }
    return host_alloc(s->device, s->nbytes, &s->block);
}

/* Frees what storage_alloc gave s. */
static void storage_free(clops_storage *s)
{
    free(s->host_ptr);
    host_free(s->block);
}

/* Copies the first nbytes of src into dst on src's device. */
static clops_status storage_copy(clops_storage *dst, const clops_storage *src, size_t nbytes)
{
    if (host_is_cpu(src->device)) {
        memcpy(dst->host_ptr, src->host_ptr, nbytes);
        return CLOPS_OK;
    }
    return host_copy_buffer(src->device, src->block->mem, 0, dst->block->mem, 0, nbytes);
}

/* The device's label ("cpu", "opencl:0"). */
static const char *storage_device_label(const clops_device *d)
{
    return d->label;
}

static const core_memory_hooks memory_hooks = {
    .alloc = storage_alloc,
    .release = storage_free,
    .copy = storage_copy,
    .label = storage_device_label,
};

void host_install_memory_hooks(void)
{
    core_set_memory_hooks(&memory_hooks);
}
