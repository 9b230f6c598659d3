/*
 * core/tensor.c: storage and tensor objects, reference counting, metadata
 * accessors and the factories (empty, zeros, ones, full, arange, from host
 * data).
 *
 * Storage on the CPU device is 64-byte aligned host memory; on an OpenCL
 * device it is a block of the caching allocator.  A tensor holds one
 * reference to its storage.  Filling factories go through the pointwise
 * engine, so they run on the device without a host round trip.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen_pointwise/pw.h"
#include "core/tensor_impl.h"
#include "host/host.h"

/* ---- storage --------------------------------------------------------- */

clops_status storage_new(clops_device *device, size_t nbytes, clops_storage **out)
{
    clops_storage *s = calloc(1, sizeof *s);
    if (!s)
        return CLOPS__HOST_OOM("storage record");
    atomic_init(&s->refcount, 1);
    s->device = device;
    s->nbytes = nbytes;
    if (nbytes > 0) {
        if (host_is_cpu(device)) {
            size_t rounded = (nbytes + 63) / 64 * 64;
            s->host_ptr = rounded >= nbytes ? aligned_alloc(64, rounded) : NULL;
            if (!s->host_ptr) {
                free(s);
                return clops__fail(CLOPS_HOST_OUT_OF_MEMORY,
                                   "out of host memory: cannot allocate %zu bytes on cpu", nbytes);
            }
        } else {
            clops_status st = host_alloc(device, nbytes, &s->block);
            if (st) {
                free(s);
                return st;
            }
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
    free(s->host_ptr);
    host_free(s->block);
    free(s);
}

clops_status storage_grow(clops_storage *s, size_t nbytes)
{
    if (nbytes <= s->nbytes)
        return CLOPS_OK;
    clops_storage *fresh = NULL;
    clops_status st = storage_new(s->device, nbytes, &fresh);
    if (st)
        return st;
    if (s->nbytes) {
        if (host_is_cpu(s->device))
            memcpy(fresh->host_ptr, s->host_ptr, s->nbytes);
        else
            st = host_copy_buffer(s->device, s->block->mem, 0, fresh->block->mem, 0, s->nbytes);
    }
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
        clops_status st = clops_device_default(&device);
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
    if (ndim == t->ndim && memcmp(sizes, t->sizes, sizeof(int64_t) * (size_t)ndim) == 0)
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

char *tensor_describe(const clops_tensor *t, char *buf, size_t cap)
{
    char sz[400], st[400];
    snprintf(buf, cap, "%s%s strides %s offset %lld on %s", clops_dtype_name(t->dtype),
             clops__fmt_shape(sz, sizeof sz, t->ndim, t->sizes),
             clops__fmt_shape(st, sizeof st, t->ndim, t->strides), (long long)t->offset,
             t->storage->device->label);
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

clops_status tensor_fill(clops_tensor *t, clops_scalar value)
{
    /* An expanded tensor (stride-0 dims) aliases its elements: filling it
     * is filling the distinct elements, so fill the view with those dims
     * collapsed to size 1 (PyTorch allows fill_ here, unlike other
     * in-place ops). */
    for (int d = 0; d < t->ndim; d++)
        if (t->strides[d] == 0 && t->sizes[d] > 1) {
            int64_t sizes[CLOPS_MAX_DIMS];
            for (int e = 0; e < t->ndim; e++)
                sizes[e] = t->strides[e] == 0 ? 1 : t->sizes[e];
            clops_tensor *v = NULL;
            clops_status st = tensor_make_view("fill_", t, t->ndim, sizes, t->strides, t->offset, &v);
            if (st == CLOPS_OK)
                st = tensor_fill(v, value);
            clops_tensor_release(v);
            return st;
        }
    pw_operand v = pw_scalar(value);
    pw_options opts = {.result = t->dtype,
                       .compute = (t->dtype == CLOPS_FLOAT16 || t->dtype == CLOPS_BFLOAT16)
                                      ? CLOPS_FLOAT32
                                      : t->dtype,
                       .opname = "fill_",
                       .dst_defines_shape = true};
    return pw_run(&pw_op_copy, PW_OUT, &v, NULL, t, &opts, NULL);
}

/* full() under the name of the factory the caller used. */
static clops_status full_named(const char *op, clops_device *device, clops_dtype dtype, int ndim,
                               const int64_t *sizes, clops_scalar value, clops_tensor **out)
{
    if (!out)
        return clops__fail(CLOPS_INVALID_ARGUMENT, "%s: out is NULL", op);
    clops_tensor *t = NULL;
    clops_status st = clops_empty(device, dtype, ndim, sizes, &t);
    if (st == CLOPS_OK)
        st = tensor_fill(t, value);
    if (st) {
        clops_tensor_release(t);
        return clops__error_prefix(st, "%s", op);
    }
    *out = t;
    return CLOPS_OK;
}

clops_status clops_full(clops_device *device, clops_dtype dtype, int ndim, const int64_t *sizes,
                        clops_scalar value, clops_tensor **out)
{
    return full_named("full", device, dtype, ndim, sizes, value, out);
}

clops_status clops_zeros(clops_device *device, clops_dtype dtype, int ndim, const int64_t *sizes,
                         clops_tensor **out)
{
    return full_named("zeros", device, dtype, ndim, sizes, clops_scalar_int(0), out);
}

clops_status clops_ones(clops_device *device, clops_dtype dtype, int ndim, const int64_t *sizes,
                        clops_tensor **out)
{
    return full_named("ones", device, dtype, ndim, sizes, clops_scalar_int(1), out);
}

clops_status clops_from_host(clops_device *device, clops_dtype dtype, int ndim,
                             const int64_t *sizes, const void *data, size_t nbytes,
                             clops_tensor **out)
{
    if (!out)
        return clops__fail(CLOPS_INVALID_ARGUMENT, "from_host: out is NULL");
    clops_tensor *t = NULL;
    clops_status st = clops_empty(device, dtype, ndim, sizes, &t);
    if (st)
        return st;
    st = clops_tensor_from_host(t, data, nbytes);
    if (st) {
        clops_tensor_release(t);
        return st;
    }
    *out = t;
    return CLOPS_OK;
}

clops_status clops_arange(clops_device *device, clops_dtype dtype, clops_scalar start,
                          clops_scalar end, clops_scalar step, clops_tensor **out)
{
    static const char op[] = "arange";
    if (!out)
        return clops__fail(CLOPS_INVALID_ARGUMENT, "%s: out is NULL", op);
    bool all_int = start.kind != CLOPS_SCALAR_FLOAT && end.kind != CLOPS_SCALAR_FLOAT &&
                   step.kind != CLOPS_SCALAR_FLOAT;
    if (dtype == CLOPS_DTYPE_NONE)
        dtype = all_int ? CLOPS_INT64 : CLOPS_FLOAT32;
    double s0 = clops_scalar_to_double(start), s1 = clops_scalar_to_double(end),
           st_ = clops_scalar_to_double(step);
    if (!isfinite(s0) || !isfinite(s1))
        return clops__fail(CLOPS_INVALID_ARGUMENT, "%s: unsupported range: %g -> %g", op, s0, s1);
    if (st_ == 0.0)
        return clops__fail(CLOPS_INVALID_ARGUMENT, "%s: step must be nonzero", op);
    if ((st_ > 0 && s1 < s0) || (st_ < 0 && s1 > s0))
        return clops__fail(CLOPS_INVALID_ARGUMENT,
                           "%s: upper bound and larger bound inconsistent with step sign", op);
    int64_t n;
    if (all_int) {
        int64_t a = start.kind == CLOPS_SCALAR_BOOL ? start.v.b : start.v.i;
        int64_t b = end.kind == CLOPS_SCALAR_BOOL ? end.v.b : end.v.i;
        int64_t s = step.kind == CLOPS_SCALAR_BOOL ? step.v.b : step.v.i;
        /* ceil((b - a) / s) in integers */
        int64_t span = b - a;
        n = s > 0 ? (span + s - 1) / s : (span + s + 1) / s;
    } else {
        n = (int64_t)ceil((s1 - s0) / st_);
    }
    if (n < 0)
        n = 0;
    int64_t size[1] = {n};
    size_t es = clops_dtype_size(dtype);
    if (es == 0)
        return clops__fail(CLOPS_INVALID_DTYPE, "%s: invalid dtype", op);
    if ((uint64_t)n > SIZE_MAX / 8)
        return clops__fail(CLOPS_INVALID_SHAPE, "%s: %lld elements is too many", op, (long long)n);
    /* Values are start + i * step in double (int64 for integer ranges), as
     * PyTorch computes them, written on the host and uploaded once. */
    void *buf = malloc(n ? (size_t)n * es : 1);
    if (!buf)
        return CLOPS__HOST_OOM("arange values");
    int64_t a = clops_scalar_to_int64(start), s = clops_scalar_to_int64(step);
    clops_dtype vt = all_int ? CLOPS_INT64 : CLOPS_FLOAT64;
    for (int64_t i = 0; i < n; i++) {
        pw_value v;
        if (all_int)
            v.i = (int64_t)((uint64_t)a + (uint64_t)i * (uint64_t)s);
        else
            v.f = s0 + (double)i * st_;
        pw_ref_store(buf, i, dtype, vt, v);
    }
    clops_tensor *t = NULL;
    clops_status st = clops_from_host(device, dtype, 1, size, buf, (size_t)n * es, &t);
    free(buf);
    if (st)
        return clops__error_prefix(st, "%s", op);
    *out = t;
    return CLOPS_OK;
}
