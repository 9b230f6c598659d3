/* SPDX-License-Identifier: Apache-2.0 */
/*
 * core/hooks.h: what core/ needs from the layers above it, as tables of
 * function pointers that those layers install.
 *
 * core/ is the lowest layer of the library (docs/architecture.md): it calls
 * nothing above it.  Three things a tensor needs live higher up:
 *
 *   device memory   storage on the CPU device (aligned host memory) or in an
 *                   OpenCL device's caching allocator; owned by the runtime,
 *                   host/.  host_init installs core_memory_hooks before it
 *                   hands out any device, so every storage ever created (a
 *                   storage needs a device) finds them set.
 *   copy kernels    the dispatcher's CPU fallback (dispatch/fallback.c) and
 *                   the structured-op rules (dispatch/structured.c) copy
 *                   between tensors.  Copies are kernels (ops/tensor/tensor_copy.c);
 *                   core/tensor_impl.h's tensor_copy and tensor_to_copy
 *                   call them through these hooks.
 *                   ops/tensor/tensor_copy.c installs core_kernel_hooks from a
 *                   load-time constructor, so they are set before main()
 *                   (at dlopen for the shared library).  In a static link
 *                   that object is present whenever the dispatcher is (the
 *                   generated registration names copy_ and _to_copy) and
 *                   whenever data is read back (clops_tensor_to_host is
 *                   defined there).
 *   default device  a tensor made with a NULL device (clops_empty(NULL,
 *                   ...), and the factory kernels that pass their Device
 *                   argument on) goes to clops_device_default(): the
 *                   CLOPS_DEVICE selection or the first GPU, which starts the
 *                   runtime.  Devices are host's; host/device.c installs
 *                   core_device_hooks from a load-time constructor, so they
 *                   are set before main() (at dlopen for the shared
 *                   library).  In a static link that object is present
 *                   whenever a device can exist (host_init, which makes
 *                   every device, lives there).
 *
 * Contract, for every table:
 *   - Install once, with a pointer to a table of static storage duration that
 *     stays valid until the process exits; installing again replaces it (the
 *     tests do not; nothing uninstalls).  Every member must be non-NULL.
 *   - Threading: the pointer is published with a release store and read with
 *     an acquire load, so a table may be installed while other threads run;
 *     the functions it points to must themselves be thread-safe.
 *   - Ownership: the installer keeps the table; core never frees it.
 *   - NULL (nothing installed): the core function that needs it fails with
 *     CLOPS_INTERNAL and a message naming the missing hook; it never crashes.
 */
#ifndef CLOPS_CORE_HOOKS_H
#define CLOPS_CORE_HOOKS_H

#include <stddef.h>

#include "clops/status.h"
#include "clops/tensor.h"

typedef struct clops_storage clops_storage;

/* Device memory, installed by host/ (host/storage.c). */
typedef struct core_memory_hooks {
    /* Allocates s->nbytes (> 0) on s->device into s->host_ptr (CPU device) or
     * s->block (OpenCL device).  Records the error and leaves both NULL on
     * failure. */
    clops_status (*alloc)(clops_storage *s);
    /* Frees what alloc gave s (either pointer may be NULL). */
    void (*release)(clops_storage *s);
    /* Copies the first nbytes of src into dst, both on src's device. */
    clops_status (*copy)(clops_storage *dst, const clops_storage *src, size_t nbytes);
    /* The device's label in messages: "cpu", "opencl:0". */
    const char *(*label)(const clops_device *d);
} core_memory_hooks;

/* Kernels core's tensor API calls, installed by ops/ (ops/tensor/tensor_copy.c). */
typedef struct core_kernel_hooks {
    /* copy_: src broadcast and converted into dst, any devices. */
    clops_status (*copy_)(clops_tensor *dst, clops_tensor *src);
    /* A new contiguous tensor with src's data on device (NULL: src's), of
     * dtype (CLOPS_DTYPE_NONE: src's). */
    clops_status (*to_copy)(clops_tensor *src, clops_dtype dtype, clops_device *device,
                            clops_tensor **out);
} core_kernel_hooks;

/* The default device, installed by host/ (host/device.c). */
typedef struct core_device_hooks {
    /* clops_device_default (clops/device.h): the device a NULL device
     * argument means, starting the runtime when it is not yet. */
    clops_status (*default_device)(clops_device **device);
} core_device_hooks;

void core_set_memory_hooks(const core_memory_hooks *hooks);
void core_set_kernel_hooks(const core_kernel_hooks *hooks);
void core_set_device_hooks(const core_device_hooks *hooks);
/* The installed tables, or NULL. */
const core_memory_hooks *core_memory(void);
const core_kernel_hooks *core_kernels(void);
const core_device_hooks *core_devices(void);

#endif /* CLOPS_CORE_HOOKS_H */
