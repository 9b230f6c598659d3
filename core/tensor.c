/* SPDX-License-Identifier: Apache-2.0 */
/*
 * core/tensor.c: storage and tensor objects, reference counting, metadata
 * accessors and the factories that write nothing (empty, empty_strided).
 *
 * Storage on the CPU device is 64-byte aligned host memory; on an OpenCL
 * device it is a block of the caching allocator.  Both come from the device
 * runtime through the memory hooks (core/hooks.h), which host/ installs, and
 * a NULL device means the default one (the device hooks, host/ too).  A
 * tensor holds one reference to its storage.  The filling factories (zeros,
 * ones, full, arange, from_host) are kernels: ops/tensor/tensor_fill.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/tensor_impl.h"

/* ---- hooks ----------------------------------------------------------- */

static _Atomic(const core_memory_hooks *) memory_hooks;
static _Atomic(const core_kernel_hooks *) kernel_hooks;
static _Atomic(const core_device_hooks *) device_hooks;

void core_set_memory_hooks(const core_memory_hooks *hooks)
{
    atomic_store_explicit(&memory_hooks, hooks, memory_order_release);
}

void core_set_kernel_hooks(const core_kernel_hooks *hooks)
{
    atomic_store_explicit(&kernel_hooks, hooks, memory_order_release);
}

void core_set_device_hooks(const core_device_hooks *hooks)
{
    atomic_store_explicit(&device_hooks, hooks, memory_order_release);
}

const core_device_hooks *core_devices(void)
{
    return atomic_load_explicit(&device_hooks, memory_order_acquire);
}

const core_memory_hooks *core_memory(void)
{
    return atomic_load_explicit(&memory_hooks, memory_order_acquire);
}

const core_kernel_hooks *core_kernels(void)
{
    return atomic_load_explicit(&kernel_hooks, memory_order_acquire);
}

/* The installed memory hooks, or NULL after recording why there are none. */
static const core_memory_hooks *memory_or_fail(clops_status *st)
{
    const core_memory_hooks *m = core_memory();
    *st = m ? CLOPS_OK
            : clops__fail(CLOPS_INTERNAL, "storage: no device runtime installed the memory hooks "
                                          "(core/hooks.h)");
    return m;
}

/* The installed kernel hooks, or NULL after recording why there are none. */
static const core_kernel_hooks *kernels_or_fail(const char *op, clops_status *st)
{
    const core_kernel_hooks *k = core_kernels();
    *st = k ? CLOPS_OK
            : clops__fail(CLOPS_INTERNAL, "%s: no copy kernel installed the kernel hooks "
                                          "(core/hooks.h)", op);
    return k;
}

clops_status tensor_copy(clops_tensor *dst, clops_tensor *src)
{
    clops_status st;
    const core_kernel_hooks *k = kernels_or_fail("copy_", &st);
    return k ? k->copy_(dst, src) : st;
}

clops_status tensor_to_copy(clops_tensor *src, clops_dtype dtype, clops_device *device,
                            clops_tensor **out)
{
    clops_status st;
    const core_kernel_hooks *k = kernels_or_fail("_to_copy", &st);
    return k ? k->to_copy(src, dtype, device, out) : st;
}

/* ---- storage --------------------------------------------------------- */

clops_status storage_new(clops_device *device, size_t nbytes, clops_storage **out)
{
    clops_status st;
    const core_memory_hooks *m = memory_or_fail(&st);
    if (!m)
        return st;
    clops_storage *s = calloc(1, sizeof *s);
    if (!s)
        return CLOPS__HOST_OOM("storage record");
    atomic_init(&s->refcount, 1);
    s->device = device;
    s->nbytes = nbytes;
    if (nbytes > 0) {
        st = m->alloc(s);
        if (st) {
            free(s);
            return st;
        }
    }
    *out = s;
    return CLOPS_OK;
}

clops_storage *storage_retain(clops_storage *s)
{
    atomic_fetch_add_explicit(&s->refcount, 1, memory_order_relaxed);
    return s;
}

void storage_release(clops_storage *s)
{
    if (!s || atomic_fetch_sub_explicit(&s->refcount, 1, memory_order_acq_rel) != 1)
        return;
    /* A storage only exists after storage_new found the hooks. */
    const core_memory_hooks *m = core_memory();
    if (m)
        m->release(s);
    free(s);
}

clops_status storage_grow(clops_storage *s, size_t nbytes)
{
    if (nbytes <= s->nbytes)
        return CLOPS_OK;
    if (s->external)
        return clops__fail(CLOPS_INVALID_ARGUMENT,
                           "cannot resize a storage over a caller's OpenCL buffer (%zu bytes) to "
                           "%zu bytes: its size is fixed (PyTorch: storage is not resizable)",
                           s->nbytes, nbytes);
    clops_storage *fresh = NULL;
    clops_status st = storage_new(s->device, nbytes, &fresh);
    if (st)
        return st;
    if (s->nbytes)
        st = core_memory()->copy(fresh, s, s->nbytes);
    if (st) {
        storage_release(fresh);
        return st;
    }
    /* Swap the buffers so every tensor sharing s sees the new memory. */
    void *hp = s->host_ptr;
    host_block *b = s->block;
    s->host_ptr = fresh->host_ptr;
    s->block = fresh->block;
    s->nbytes = nbytes;
    fresh->host_ptr = hp;
    fresh->block = b;
    storage_release(fresh);
    return CLOPS_OK;
}

/* ---- tensors --------------------------------------------------------- */

clops_status tensor_make(const char *op, clops_storage *storage, clops_dtype dtype, int ndim,
                         const int64_t *sizes, const int64_t *strides, int64_t offset,
                         clops_tensor **out)
{
    if (clops_dtype_size(dtype) == 0)
        return clops__fail(CLOPS_INVALID_DTYPE, "%s: invalid dtype %d", op, (int)dtype);
    clops_status st = check_sizes(op, ndim, sizes);
    if (st)
        return st;
    size_t need = 0;
    st = storage_bytes_needed(op, dtype, ndim, sizes, strides, offset, &need);
    if (st)
        return st;
    if (need > storage->nbytes) {
        char a[400];
        return clops__fail(CLOPS_INVALID_SHAPE,
                           "%s: setStorage: sizes %s, strides, offset %lld and dtype %s require a "
                           "storage of %zu bytes, but it has %zu",
                           op, clops__fmt_shape(a, sizeof a, ndim, sizes), (long long)offset,
                           clops_dtype_name(dtype), need, storage->nbytes);
    }
    clops_tensor *t = calloc(1, sizeof *t);
    if (!t)
        return CLOPS__HOST_OOM("tensor record");
    atomic_init(&t->refcount, 1);
    t->storage = storage_retain(storage);
    t->dtype = dtype;
    t->ndim = ndim;
    t->offset = offset;
    if (ndim > 0) {
        memcpy(t->sizes, sizes, sizeof(int64_t) * (size_t)ndim);
        memcpy(t->strides, strides, sizeof(int64_t) * (size_t)ndim);
    }
    *out = t;
    return CLOPS_OK;
}

clops_status tensor_make_view(const char *op, const clops_tensor *base, int ndim,
                              const int64_t *sizes, const int64_t *strides, int64_t offset,
                              clops_tensor **out)
{
    return tensor_make(op, base->storage, base->dtype, ndim, sizes, strides, offset, out);
}

clops_status tensor_new(clops_device *device, clops_dtype dtype, int ndim, const int64_t *sizes,
                        const int64_t *strides, clops_tensor **out)
{
    static const char op[] = "empty";
    if (!device) {
        const core_device_hooks *h = core_devices();
        if (!h)
            return clops__fail(CLOPS_INTERNAL, "%s: no device runtime installed the device hooks "
                                               "(core/hooks.h)", op);
        clops_status st = h->default_device(&device);
        if (st)
            return st;
    }
    if (clops_dtype_size(dtype) == 0)
        return clops__fail(CLOPS_INVALID_DTYPE, "%s: invalid dtype %d", op, (int)dtype);
    clops_status st = check_sizes(op, ndim, sizes);
    if (st)
        return st;
    int64_t cstr[CLOPS_MAX_DIMS];
    if (!strides) {
        contiguous_strides(ndim, sizes, cstr);
        strides = cstr;
    }
    size_t need = 0;
    st = storage_bytes_needed(op, dtype, ndim, sizes, strides, 0, &need);
    if (st)
        return st;
    clops_storage *s = NULL;
    st = storage_new(device, need, &s);
    if (st) {
        char a[400];
        return clops__error_prefix(st, "%s(%s, %s)", op, clops__fmt_shape(a, sizeof a, ndim, sizes),
                                   clops_dtype_name(dtype));
    }
    st = tensor_make(op, s, dtype, ndim, sizes, strides, 0, out);
    storage_release(s);
    return st;
}

clops_status tensor_resize(clops_tensor *t, int ndim, const int64_t *sizes)
{
    static const char op[] = "resize_";
    clops_status st = check_sizes(op, ndim, sizes);
    if (st)
        return st;
    /* Same sizes: nothing changes, strides included (PyTorch's resize_). */
    if (ndim == t->ndim && (ndim == 0 || memcmp(sizes, t->sizes, sizeof(int64_t) * (size_t)ndim) == 0))
        return CLOPS_OK;
    int64_t strides[CLOPS_MAX_DIMS];
    contiguous_strides(ndim, sizes, strides);
    size_t need = 0;
    st = storage_bytes_needed(op, t->dtype, ndim, sizes, strides, t->offset, &need);
    if (st)
        return st;
    st = storage_grow(t->storage, need);
    if (st)
        return st;
    t->ndim = ndim;
    for (int i = 0; i < ndim; i++) {
        t->sizes[i] = sizes[i];
        t->strides[i] = strides[i];
    }
    return CLOPS_OK;
}

int64_t tensor_numel(const clops_tensor *t)
{
    int64_t n = 1;
    for (int i = 0; i < t->ndim; i++)
        n *= t->sizes[i];
    return n;
}

/* The device's label from the runtime ("?" before one is installed). */
static const char *device_label(const clops_device *d)
{
    const core_memory_hooks *m = core_memory();
    return m ? m->label(d) : "?";
}

char *tensor_describe(const clops_tensor *t, char *buf, size_t cap)
{
    char sz[400], st[400];
    snprintf(buf, cap, "%s%s strides %s offset %lld on %s", clops_dtype_name(t->dtype),
             clops__fmt_shape(sz, sizeof sz, t->ndim, t->sizes),
             clops__fmt_shape(st, sizeof st, t->ndim, t->strides), (long long)t->offset,
             device_label(t->storage->device));
    return buf;
}

/* ---- public: references and metadata --------------------------------- */

clops_tensor *clops_tensor_retain(clops_tensor *t)
{
    if (t)
        atomic_fetch_add_explicit(&t->refcount, 1, memory_order_relaxed);
    return t;
}

void clops_tensor_release(clops_tensor *t)
{
    if (!t || atomic_fetch_sub_explicit(&t->refcount, 1, memory_order_acq_rel) != 1)
        return;
    storage_release(t->storage);
    free(t);
}

void clops_tensor_list_free(clops_tensor_list *list)
{
    if (!list)
        return;
    for (int i = 0; i < list->len; i++)
        clops_tensor_release(list->data ? list->data[i] : NULL);
    free(list->data);
    list->data = NULL;
    list->len = 0;
}

int clops_tensor_ndim(const clops_tensor *t)
{
    return t ? t->ndim : -1;
}

clops_dtype clops_tensor_dtype(const clops_tensor *t)
{
    return t ? t->dtype : CLOPS_DTYPE_NONE;
}

clops_device *clops_tensor_device(const clops_tensor *t)
{
    return t ? t->storage->device : NULL;
}

const int64_t *clops_tensor_sizes(const clops_tensor *t)
{
    return t ? t->sizes : NULL;
}

const int64_t *clops_tensor_strides(const clops_tensor *t)
{
    return t ? t->strides : NULL;
}

/* Wraps dim for the accessors; -1 when out of range. */
static int accessor_dim(const clops_tensor *t, int dim)
{
    if (!t)
        return -1;
    if (dim < 0)
        dim += t->ndim;
    return (dim >= 0 && dim < t->ndim) ? dim : -1;
}

int64_t clops_tensor_size(const clops_tensor *t, int dim)
{
    int d = accessor_dim(t, dim);
    return d < 0 ? -1 : t->sizes[d];
}

int64_t clops_tensor_stride(const clops_tensor *t, int dim)
{
    int d = accessor_dim(t, dim);
    return d < 0 ? -1 : t->strides[d];
}

int64_t clops_tensor_storage_offset(const clops_tensor *t)
{
    return t ? t->offset : -1;
}

int64_t clops_tensor_numel(const clops_tensor *t)
{
    return t ? tensor_numel(t) : -1;
}

bool clops_tensor_is_contiguous(const clops_tensor *t)
{
    if (!t)
        return false;
    int64_t expect = 1;
    for (int i = t->ndim - 1; i >= 0; i--) {
        if (t->sizes[i] == 0)
            return true;
        if (t->sizes[i] != 1 && t->strides[i] != expect)
            return false;
        expect *= t->sizes[i];
    }
    return true;
}

bool clops_tensor_shares_storage(const clops_tensor *a, const clops_tensor *b)
{
    return a && b && a->storage == b->storage;
}

size_t clops_tensor_storage_nbytes(const clops_tensor *t)
{
    return t ? t->storage->nbytes : 0;
}

char *clops_tensor_describe(const clops_tensor *t, char *buf, size_t cap)
{
    if (!t) {
        snprintf(buf, cap, "(null tensor)");
        return buf;
    }
    return tensor_describe(t, buf, cap);
}

/* ---- factories ------------------------------------------------------- */

clops_status clops_empty(clops_device *device, clops_dtype dtype, int ndim, const int64_t *sizes,
                         clops_tensor **out)
{
    if (!out || (ndim > 0 && !sizes))
        return clops__fail(CLOPS_INVALID_ARGUMENT, "empty: NULL sizes or out");
    return tensor_new(device, dtype, ndim, sizes, NULL, out);
}

clops_status clops_empty_strided(clops_device *device, clops_dtype dtype, int ndim,
                                 const int64_t *sizes, const int64_t *strides, clops_tensor **out)
{
    if (!out || (ndim > 0 && (!sizes || !strides)))
        return clops__fail(CLOPS_INVALID_ARGUMENT, "empty_strided: NULL sizes, strides or out");
    clops_status st = tensor_new(device, dtype, ndim, sizes, strides, out);
    return st ? clops__error_prefix(st, "empty_strided") : st;
}
