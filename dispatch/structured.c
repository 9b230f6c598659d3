/* SPDX-License-Identifier: Apache-2.0 */
/*
 * dispatch/structured.c: the variant rules of structured operators (see
 * dispatch/structured.h).  The pointwise engine applies the same overlap
 * rules through structured_check_overlap.
 */
#include <string.h>

#include "dispatch/structured.h"
#include "host/host.h"

bool structured_non_overlapping_dense(const clops_tensor *t)
{
    int idx[CLOPS_MAX_DIMS];
    int n = 0;
    for (int i = 0; i < t->ndim; i++)
        if (t->sizes[i] != 1)
            idx[n++] = i;
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && t->strides[idx[j - 1]] > t->strides[idx[j]]; j--) {
            int tmp = idx[j];
            idx[j] = idx[j - 1];
            idx[j - 1] = tmp;
        }
    int64_t expect = 1;
    for (int i = 0; i < n; i++) {
        if (t->strides[idx[i]] != expect)
            return false;
        expect *= t->sizes[idx[i]];
    }
    return true;
}

/* True when a and b are the same view (same memory, same geometry). */
static bool same_view(const clops_tensor *a, const clops_tensor *b)
{
    return a->storage == b->storage && a->offset == b->offset && a->ndim == b->ndim &&
           a->dtype == b->dtype &&
           memcmp(a->sizes, b->sizes, sizeof(int64_t) * (size_t)a->ndim) == 0 &&
           memcmp(a->strides, b->strides, sizeof(int64_t) * (size_t)a->ndim) == 0;
}

clops_status structured_check_overlap(const char *opname, const clops_tensor *dst,
                                      clops_tensor *const *inputs, int n)
{
    /* An empty tensor has no element to share (PyTorch: an empty tensor is
     * non-overlapping and dense whatever its strides). */
    int64_t numel = tensor_numel(dst);
    if (numel == 0)
        return CLOPS_OK;
    for (int i = 0; i < dst->ndim; i++)
        if (dst->strides[i] == 0 && dst->sizes[i] > 1)
            return clops__fail(CLOPS_MEMORY_OVERLAP,
                               "%s: unsupported operation: more than one element of the written-to "
                               "tensor refers to a single memory location; clone() the tensor "
                               "before performing the operation",
                               opname);
    if (!structured_non_overlapping_dense(dst))
        return CLOPS_OK;
    int64_t es = (int64_t)clops_dtype_size(dst->dtype);
    int64_t d0 = dst->offset * es, d1 = d0 + numel * es;
    for (int j = 0; j < n; j++) {
        const clops_tensor *t = inputs[j];
        if (!t || t->storage != dst->storage || tensor_numel(t) == 0 || same_view(t, dst) ||
            !structured_non_overlapping_dense(t))
            continue;
        int64_t ts = (int64_t)clops_dtype_size(t->dtype);
        int64_t t0 = t->offset * ts, t1 = t0 + tensor_numel(t) * ts;
        if (t0 < d1 && d0 < t1)
            return clops__fail(CLOPS_MEMORY_OVERLAP,
                               "%s: unsupported operation: some elements of the input tensor and "
                               "the written-to tensor refer to a single memory location; clone() "
                               "the input before performing the operation",
                               opname);
    }
    return CLOPS_OK;
}

clops_status structured_begin(structured_call *call, const char *opname, pw_variant variant,
                              clops_tensor *dst, clops_device *device, clops_dtype dtype, int ndim,
                              const int64_t *sizes, clops_tensor *const *inputs, int n)
{
    char a[400], b[400];
    memset(call, 0, sizeof *call);
    call->opname = opname;
    call->variant = variant;
    call->dst = dst;
    clops_status st = check_dtype_on_device(opname, dtype, device);
    if (st)
        return st;
    if (variant == PW_FUNCTIONAL) {
        st = tensor_new(device, dtype, ndim, sizes, NULL, &call->target);
        return st ? clops__error_prefix(st, "%s", opname) : CLOPS_OK;
    }
    if (!dst)
        return clops__fail(CLOPS_INVALID_ARGUMENT, "%s: destination tensor is NULL", opname);
    if (dst->storage->device != device)
        return clops__fail(CLOPS_DEVICE_MISMATCH, "%s: output is on %s but the inputs are on %s",
                           opname, dst->storage->device->label, device->label);
    bool same = dst->ndim == ndim &&
                (ndim == 0 || memcmp(dst->sizes, sizes, sizeof(int64_t) * (size_t)ndim) == 0);
    if (!same) {
        if (variant == PW_INPLACE)
            return clops__fail(CLOPS_INVALID_SHAPE,
                               "%s: output with shape %s doesn't match the broadcast shape %s",
                               opname, clops__fmt_shape(a, sizeof a, dst->ndim, dst->sizes),
                               clops__fmt_shape(b, sizeof b, ndim, sizes));
        st = tensor_resize(dst, ndim, sizes);
        if (st)
            return clops__error_prefix(st, "%s: resizing out", opname);
    }
    if (!dtype_can_cast(dtype, dst->dtype))
        return clops__fail(CLOPS_INVALID_DTYPE,
                           "%s: result type %s can't be cast to the desired output type %s",
                           opname, clops_dtype_name(dtype), clops_dtype_name(dst->dtype));
    st = structured_check_overlap(opname, dst, inputs, n);
    if (st)
        return st;
    if (dst->dtype == dtype) {
        call->target = clops_tensor_retain(dst);
        return CLOPS_OK;
    }
    st = tensor_new(device, dtype, ndim, sizes, NULL, &call->target);
    return st ? clops__error_prefix(st, "%s", opname) : CLOPS_OK;
}

clops_status structured_finish(structured_call *call, clops_status st, clops_tensor **out)
{
    if (st == CLOPS_OK && call->variant != PW_FUNCTIONAL && call->target != call->dst)
        st = tensor_copy(call->dst, call->target);
    if (st == CLOPS_OK && call->variant == PW_FUNCTIONAL && out) {
        *out = call->target;
        call->target = NULL;
    }
    clops_tensor_release(call->target);
    call->target = NULL;
    return st;
}
