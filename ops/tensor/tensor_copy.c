/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ops/tensor/tensor_copy.c: copies between tensors and between host memory and
 * tensors (the tensor family).
 *
 * Every element-wise copy (contiguous, clone, casts, strided writes) runs the
 * pointwise engine's cast op, so any pair of views of any dtypes works and the
 * conversion rules exist once.  Copies between devices (also across OpenCL
 * platforms, which share no context) stage through host memory in the
 * source's dtype; the conversion then happens on the destination device.
 * Dense same-dtype copies within one device use a plain buffer copy.
 *
 * core/ sits below the kernels and reaches the copies through
 * core_kernel_hooks (core/hooks.h), which this file installs when the
 * library is loaded.
 */
#include <stdlib.h>
#include <string.h>

#include "codegen_pointwise/pw.h"
#include "host/host.h"
#include "ops/tensor/tensor.h"
#include "ops/kit/kit.h"

/* Byte offset of a tensor's first element. */
static size_t byte_offset(const clops_tensor *t)
{
    return (size_t)t->offset * clops_dtype_size(t->dtype);
}

/* True when a and b have the same sizes and strides. */
static bool same_geometry(const clops_tensor *a, const clops_tensor *b)
{
    return a->ndim == b->ndim &&
           memcmp(a->sizes, b->sizes, sizeof(int64_t) * (size_t)a->ndim) == 0 &&
           memcmp(a->strides, b->strides, sizeof(int64_t) * (size_t)a->ndim) == 0;
}

/* Bytes from which a contiguous copy on a CPU device runs the copy kernel
 * instead of clEnqueueCopyBuffer. */
#define CORE_COPY_KERNEL_MIN ((size_t)1 << 20)

static clops_status copy_same_device(clops_tensor *dst, const clops_tensor *src);

/* One part (0 real, 1 imaginary) of a complex tensor, as a real view. */
static clops_status complex_part(const clops_tensor *t, int part, clops_tensor **out)
{
    clops_tensor *rv = NULL;
    clops_status st = core_view_as_real((clops_tensor *)t, &rv);
    if (st == CLOPS_OK)
        st = core_select(rv, -1, part, out);
    clops_tensor_release(rv);
    return st;
}

/* Copies where either side is complex, over real views of the complex
 * side(s) (pairs of float32/float64): complex to complex copies both parts
 * (casting complex64 <-> complex128 as float32 <-> float64), real to complex
 * writes the real part and zeros the imaginary one, complex to real keeps
 * the real part (PyTorch discards the imaginary part, with a warning). */
static clops_status copy_complex(clops_tensor *dst, const clops_tensor *src)
{
    bool dc = clops_dtype_is_complex(dst->dtype), sc = clops_dtype_is_complex(src->dtype);
    clops_tensor *a = NULL, *b = NULL;
    clops_status st;
    if (dc && sc) {
        st = core_view_as_real(dst, &a);
        if (st == CLOPS_OK)
            st = core_view_as_real((clops_tensor *)src, &b);
        if (st == CLOPS_OK)
            st = copy_same_device(a, b);
    } else if (dc) {
        st = complex_part(dst, 0, &a);
        if (st == CLOPS_OK)
            st = copy_same_device(a, src);
        if (st == CLOPS_OK)
            st = complex_part(dst, 1, &b);
        if (st == CLOPS_OK)
            st = tensor_fill(b, clops_scalar_int(0));
    } else if (dst->dtype == CLOPS_BOOL) {
        /* bool(z) is true when either part is nonzero: not a copy of one
         * part, and no complex kernel computes it. */
        return clops__fail(CLOPS_NOT_IMPLEMENTED,
                           "copy_: casting %s to bool is not implemented on clops",
                           clops_dtype_name(src->dtype));
    } else {
        st = complex_part(src, 0, &b);
        if (st == CLOPS_OK)
            st = copy_same_device(dst, b);
    }
    clops_tensor_release(a);
    clops_tensor_release(b);
    return st;
}

/* Same-device copy through the cast op (dst's shape; src broadcast). */
static clops_status copy_same_device(clops_tensor *dst, const clops_tensor *src)
{
    if (clops_dtype_is_complex(dst->dtype) || clops_dtype_is_complex(src->dtype))
        return copy_complex(dst, src);
    int64_t n = tensor_numel(dst);
    if (n > 0 && dst->dtype == src->dtype && same_geometry(dst, src) &&
        clops_tensor_is_contiguous(dst) && dst->storage != src->storage) {
        size_t bytes = (size_t)n * clops_dtype_size(dst->dtype);
        if (kit_is_host(dst->storage->device)) {
            memcpy((char *)dst->storage->host_ptr + byte_offset(dst),
                   (const char *)src->storage->host_ptr + byte_offset(src), bytes);
            return CLOPS_OK;
        }
        /* CPU devices run clEnqueueCopyBuffer as one thread's memcpy (POCL:
         * a tenth of PyTorch's copy_ on 16 cores); from 1 MiB the copy
         * kernel below spreads it over the cores. */
        if (!kit_is_cpu(dst->storage->device) || bytes < CORE_COPY_KERNEL_MIN)
            return host_copy_buffer(dst->storage->device, src->storage->block->mem,
                                    byte_offset(src), dst->storage->block->mem, byte_offset(dst),
                                    bytes);
    }
    pw_operand in = pw_tensor(src);
    clops_dtype ct = (dst->dtype == CLOPS_FLOAT16 || dst->dtype == CLOPS_BFLOAT16) ? CLOPS_FLOAT32
                                                                                   : dst->dtype;
    pw_options opts = {.result = dst->dtype,
                       .compute = ct,
                       .opname = "copy_",
                       .dst_defines_shape = true};
    return pw_run(&pw_op_copy, PW_OUT, &in, NULL, dst, &opts, NULL);
}

clops_status core_copy_(clops_tensor *dst, clops_tensor *src, bool non_blocking)
{
    (void)non_blocking;
    if (!dst || !src)
        return clops__fail(CLOPS_INVALID_ARGUMENT, "copy_: NULL tensor");
    clops_device *dd = dst->storage->device, *sd = src->storage->device;
    if (dd == sd)
        return copy_same_device(dst, src);
    /* Across devices: bring src to host memory, upload it in its own dtype
     * to dst's device, then convert and scatter there. */
    /* A float64 source bound for a device without fp64 is converted on its
     * own device first, as PyTorch converts on the host. */
    clops_tensor *conv = NULL;
    clops_status st = CLOPS_OK;
    if ((src->dtype == CLOPS_FLOAT64 || src->dtype == CLOPS_COMPLEX128) && !dd->info.fp64) {
        st = core_to_copy(src, dst->dtype, sd, &conv);
        if (st)
            return st;
        src = conv;
    }
    st = check_dtype_on_device("copy_", src->dtype, dd);
    if (st) {
        clops_tensor_release(conv);
        return st;
    }
    size_t bytes = (size_t)tensor_numel(src) * clops_dtype_size(src->dtype);
    void *buf = malloc(bytes ? bytes : 1);
    if (!buf) {
        clops_tensor_release(conv);
        return CLOPS__HOST_OOM("copy_ staging buffer");
    }
    clops_tensor *staged = NULL;
    st = clops_tensor_to_host(src, buf, bytes);
    if (st == CLOPS_OK)
        st = clops_from_host(dd, src->dtype, src->ndim, src->sizes, buf, bytes, &staged);
    free(buf);
    if (st == CLOPS_OK)
        st = copy_same_device(dst, staged);
    clops_tensor_release(staged);
    clops_tensor_release(conv);
    return st;
}

/* A new tensor of dtype on device with src's sizes and the given strides
 * (NULL: row-major), holding src's data; `op` names the caller. */
static clops_status copy_new(const char *op, clops_tensor *src, clops_dtype dtype,
                             clops_device *device, const int64_t *strides, clops_tensor **out)
{
    clops_tensor *t = NULL;
    clops_status st = check_dtype_on_device(op, dtype, device);
    if (st == CLOPS_OK)
        st = tensor_new(device, dtype, src->ndim, src->sizes, strides, &t);
    if (st == CLOPS_OK)
        st = core_copy_(t, src, false);
    if (st) {
        clops_tensor_release(t);
        return st;
    }
    *out = t;
    return CLOPS_OK;
}

clops_status core_to_copy(clops_tensor *src, clops_dtype dtype, clops_device *device,
                          clops_tensor **out)
{
    if (!src || !out)
        return clops__fail(CLOPS_INVALID_ARGUMENT, "_to_copy: NULL argument");
    if (dtype == CLOPS_DTYPE_NONE)
        dtype = src->dtype;
    if (!device)
        device = src->storage->device;
    /* Keep src's memory layout (PyTorch's preserve_format). */
    const clops_tensor *in[1] = {src};
    int64_t strides[CLOPS_MAX_DIMS];
    pw_output_strides(in, 1, src->ndim, src->sizes, strides);
    return copy_new("_to_copy", src, dtype, device, strides, out);
}

clops_status core_contiguous_as(clops_tensor *src, clops_dtype dtype, clops_tensor **out)
{
    if (!src || !out)
        return clops__fail(CLOPS_INVALID_ARGUMENT, "contiguous: NULL argument");
    if (src->dtype == dtype && src->offset == 0 && clops_tensor_is_contiguous(src)) {
        *out = clops_tensor_retain(src);
        return CLOPS_OK;
    }
    return copy_new("contiguous", src, dtype, src->storage->device, NULL, out);
}

clops_status core_clone(clops_tensor *self, clops_tensor **out)
{
    clops_status st = core_to_copy(self, CLOPS_DTYPE_NONE, NULL, out);
    return st ? clops__error_prefix(st, "clone") : st;
}

clops_status core_contiguous_copy(clops_tensor *self, clops_tensor **out)
{
    clops_tensor *t = NULL;
    clops_status st = tensor_new(self->storage->device, self->dtype, self->ndim, self->sizes, NULL,
                                 &t);
    if (st == CLOPS_OK)
        st = copy_same_device(t, self);
    if (st) {
        clops_tensor_release(t);
        return clops__error_prefix(st, "contiguous");
    }
    *out = t;
    return CLOPS_OK;
}

clops_status core_contiguous(clops_tensor *self, clops_tensor **out)
{
    if (!self || !out)
        return clops__fail(CLOPS_INVALID_ARGUMENT, "contiguous: NULL argument");
    if (clops_tensor_is_contiguous(self)) {
        *out = clops_tensor_retain(self);
        return CLOPS_OK;
    }
    return core_contiguous_copy(self, out);
}

/* Checks a host buffer size against a tensor. */
static clops_status check_host_size(const char *what, const clops_tensor *t, size_t nbytes)
{
    size_t need = (size_t)tensor_numel(t) * clops_dtype_size(t->dtype);
    if (nbytes != need) {
        char d[600];
        return clops__fail(CLOPS_INVALID_ARGUMENT, "%s: buffer of %zu bytes for %s, which needs %zu",
                           what, nbytes, tensor_describe(t, d, sizeof d), need);
    }
    return CLOPS_OK;
}

/* Copies a strided CPU tensor into/out of a dense row-major host buffer. */
static void host_strided_copy(const clops_tensor *t, void *dense, bool to_dense)
{
    size_t es = clops_dtype_size(t->dtype);
    int64_t n = tensor_numel(t);
    int64_t coord[CLOPS_MAX_DIMS] = {0};
    int64_t off = t->offset;
    char *base = t->storage->host_ptr;
    for (int64_t e = 0; e < n; e++) {
        char *elem = base + (size_t)off * es;
        char *d = (char *)dense + (size_t)e * es;
        if (to_dense)
            memcpy(d, elem, es);
        else
            memcpy(elem, d, es);
        for (int i = t->ndim - 1; i >= 0; i--) {
            coord[i]++;
            off += t->strides[i];
            if (coord[i] < t->sizes[i])
                break;
            off -= t->strides[i] * t->sizes[i];
            coord[i] = 0;
        }
    }
}

clops_status clops_tensor_to_host(const clops_tensor *t, void *dst, size_t nbytes)
{
    if (!t || (!dst && nbytes))
        return clops__fail(CLOPS_INVALID_ARGUMENT, "to_host: NULL argument");
    clops_status st = check_host_size("to_host", t, nbytes);
    if (st || nbytes == 0)
        return st;
    clops_device *d = t->storage->device;
    if (kit_is_host(d)) {
        host_strided_copy(t, dst, true);
        return CLOPS_OK;
    }
    if (clops_tensor_is_contiguous(t))
        return host_read(d, t->storage->block->mem, byte_offset(t), dst, nbytes);
    clops_tensor *c = NULL;
    st = core_contiguous_copy((clops_tensor *)t, &c);
    if (st == CLOPS_OK)
        st = host_read(d, c->storage->block->mem, byte_offset(c), dst, nbytes);
    clops_tensor_release(c);
    return st;
}

clops_status clops_tensor_from_host(clops_tensor *t, const void *src, size_t nbytes)
{
    if (!t || (!src && nbytes))
        return clops__fail(CLOPS_INVALID_ARGUMENT, "from_host: NULL argument");
    clops_status st = check_host_size("from_host", t, nbytes);
    if (st || nbytes == 0)
        return st;
    for (int i = 0; i < t->ndim; i++)
        if (t->strides[i] == 0 && t->sizes[i] > 1)
            return clops__fail(CLOPS_MEMORY_OVERLAP,
                               "from_host: the tensor is expanded (stride 0 in dim %d); several "
                               "elements share one memory location",
                               i);
    clops_device *d = t->storage->device;
    if (kit_is_host(d)) {
        host_strided_copy(t, (void *)src, false);
        return CLOPS_OK;
    }
    if (clops_tensor_is_contiguous(t))
        return host_write(d, t->storage->block->mem, byte_offset(t), src, nbytes);
    clops_tensor *c = NULL;
    st = tensor_new(d, t->dtype, t->ndim, t->sizes, NULL, &c);
    if (st == CLOPS_OK)
        st = host_write(d, c->storage->block->mem, 0, src, nbytes);
    if (st == CLOPS_OK)
        st = copy_same_device(t, c);
    clops_tensor_release(c);
    return st;
}

clops_status clops_tensor_to_device(const clops_tensor *t, clops_device *device,
                                    clops_tensor **out)
{
    if (!t || !device || !out)
        return clops__fail(CLOPS_INVALID_ARGUMENT, "to_device: NULL argument");
    clops_tensor *r = NULL;
    clops_status st = check_dtype_on_device("to_device", t->dtype, device);
    if (st == CLOPS_OK)
        st = tensor_new(device, t->dtype, t->ndim, t->sizes, NULL, &r);
    if (st == CLOPS_OK)
        st = core_copy_(r, (clops_tensor *)t, false);
    if (st) {
        clops_tensor_release(r);
        return st;
    }
    *out = r;
    return CLOPS_OK;
}

clops_status clops_tensor_item(const clops_tensor *t, clops_scalar *out)
{
    if (!t || !out)
        return clops__fail(CLOPS_INVALID_ARGUMENT, "item: NULL argument");
    int64_t n = tensor_numel(t);
    if (n != 1)
        return clops__fail(CLOPS_INVALID_ARGUMENT,
                           "item: a Tensor with %lld elements cannot be converted to Scalar",
                           (long long)n);
    uint64_t raw = 0;
    size_t es = clops_dtype_size(t->dtype);
    clops_status st;
    if (kit_is_host(t->storage->device)) {
        memcpy(&raw, (const char *)t->storage->host_ptr + byte_offset(t), es);
        st = CLOPS_OK;
    } else {
        st = host_read(t->storage->device, t->storage->block->mem, byte_offset(t), &raw, es);
    }
    if (st)
        return st;
    if (clops_dtype_is_complex(t->dtype))
        return clops__fail(CLOPS_NOT_IMPLEMENTED,
                           "item: a %s element is not a clops scalar (read it with "
                           "clops_tensor_to_host or view_as_real)",
                           clops_dtype_name(t->dtype));
    if (clops_dtype_is_floating(t->dtype))
        *out = clops_scalar_float(pw_ref_load(&raw, 0, t->dtype, CLOPS_FLOAT64).f);
    else if (t->dtype == CLOPS_BOOL)
        *out = clops_scalar_bool(pw_ref_load(&raw, 0, t->dtype, CLOPS_INT64).i != 0);
    else
        *out = clops_scalar_int(pw_ref_load(&raw, 0, t->dtype, CLOPS_INT64).i);
    return CLOPS_OK;
}

/* copy_ with the hook's signature (no non_blocking: every copy is ordered
 * on the device's queue). */
static clops_status hook_copy(clops_tensor *dst, clops_tensor *src)
{
    return core_copy_(dst, src, false);
}

static const core_kernel_hooks copy_hooks = {
    .copy_ = hook_copy,
    .to_copy = core_to_copy,
};

/* Installs the copy kernels for core/ when the library is loaded (before
 * main, or at dlopen), so no tensor can exist before they are set.  This
 * object is always linked: the generated registration table names its
 * kernels (copy_, _to_copy, clone, contiguous). */
__attribute__((constructor)) static void install_copy_hooks(void)
{
    core_set_kernel_hooks(&copy_hooks);
}
