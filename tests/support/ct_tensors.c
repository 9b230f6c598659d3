/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/support/ct_tensors.c: building test tensors in the layouts kernels
 * must handle, and moving them to host memory or the CPU device.
 *
 * Every layout is made with the library's own view functions (core_permute,
 * core_slice, core_expand from core/tensor_impl.h), the way a user would get
 * it, so the geometry is what real programs produce:
 *   transposed  an allocation of the reversed shape, permuted back: dense,
 *               strides increasing from the first dim to the last;
 *   sliced      a base of size 2n+1 per dim, sliced [1::2] in every dim:
 *               strides doubled, a storage offset, a gap after every element;
 *   expanded    a base with size 1 in dims 0, 2, 4, ..., expanded: stride 0
 *               there (several elements share one memory location);
 *   offset      contiguous in a flat base after CHK_ODD_OFFSET elements.
 */
#include <stdlib.h>
#include <string.h>

#include "clops_test.h"

const char *ct_layout_name(ct_layout layout)
{
    return chk_layout_name(layout);
}

int64_t ct_numel(int ndim, const int64_t *sizes)
{
    return chk_numel(ndim, sizes);
}

/* Replaces *t by the result of a view call on it (releasing the old one). */
static void replace(clops_tensor **t, clops_tensor *next)
{
    clops_tensor_release(*t);
    *t = next;
}

/* Transposed layout: allocate the reversed shape and permute it back. */
static clops_tensor *make_transposed(clops_device *dev, clops_dtype dt, int ndim,
                                     const int64_t *sizes)
{
    int64_t rev[CLOPS_MAX_DIMS], perm[CLOPS_MAX_DIMS];
    for (int i = 0; i < ndim; i++) {
        rev[i] = sizes[ndim - 1 - i];
        perm[i] = ndim - 1 - i;
    }
    clops_tensor *base = NULL, *t = NULL;
    CT_OK(clops_empty(dev, dt, ndim, rev, &base));
    CT_OK(core_permute(base, perm, ndim, &t));
    clops_tensor_release(base);
    return t;
}

/* Sliced layout: [1::2] of a base of size 2n+1 in every dim.  A zero-dim
 * tensor is element 1 of a 3-element base (it gets an offset only). */
static clops_tensor *make_sliced(clops_device *dev, clops_dtype dt, int ndim,
                                 const int64_t *sizes)
{
    clops_tensor *t = NULL, *next = NULL;
    if (ndim == 0) {
        CT_OK(clops_empty(dev, dt, 1, CT_I64(3), &t));
        CT_OK(core_select(t, 0, 1, &next));
        replace(&t, next);
        return t;
    }
    int64_t base[CLOPS_MAX_DIMS] = {0};
    for (int i = 0; i < ndim; i++)
        base[i] = 2 * sizes[i] + 1;
    CT_OK(clops_empty(dev, dt, ndim, base, &t));
    for (int i = 0; i < ndim; i++) {
        int64_t start = 1, end = 1 + 2 * sizes[i];
        CT_OK(core_slice(t, i, &start, &end, 2, &next));
        replace(&t, next);
    }
    return t;
}

/* Shape of the base of an expanded tensor: 1 in dims 0, 2, 4, ... */
static void expanded_base(int ndim, const int64_t *sizes, int64_t *base)
{
    chk_expanded_base(ndim, sizes, base);
}

clops_tensor *ct_empty_layout(clops_device *dev, clops_dtype dt, int ndim, const int64_t *sizes,
                              ct_layout layout)
{
    clops_tensor *t = NULL, *next = NULL;
    switch (layout) {
    case CT_TRANSPOSED:
        return make_transposed(dev, dt, ndim, sizes);
    case CT_SLICED:
        return make_sliced(dev, dt, ndim, sizes);
    case CT_EXPANDED: {
        int64_t base[CLOPS_MAX_DIMS] = {0};
        expanded_base(ndim, sizes, base);
        CT_OK(clops_empty(dev, dt, ndim, base, &t));
        CT_OK(core_expand(t, sizes, ndim, false, &next));
        replace(&t, next);
        return t;
    }
    case CT_OFFSET: {
        /* A flat base with CHK_ODD_OFFSET leading elements, viewed. */
        int64_t n = ct_numel(ndim, sizes) + CHK_ODD_OFFSET, strides[CLOPS_MAX_DIMS];
        contiguous_strides(ndim, sizes, strides);
        int64_t off = CHK_ODD_OFFSET;
        CT_OK(clops_empty(dev, dt, 1, &n, &t));
        CT_OK(core_as_strided(t, sizes, ndim, strides, ndim, &off, &next));
        replace(&t, next);
        return t;
    }
    default:
        CT_OK(clops_empty(dev, dt, ndim, sizes, &t));
        return t;
    }
}

clops_tensor *ct_from_values(clops_device *dev, clops_dtype dt, int ndim, const int64_t *sizes,
                             ct_layout layout, const void *values)
{
    CT_ASSERT_MSG(layout != CT_EXPANDED, "ct_from_values: an expanded tensor cannot be written");
    clops_tensor *t = ct_empty_layout(dev, dt, ndim, sizes, layout);
    size_t nbytes = (size_t)ct_numel(ndim, sizes) * clops_dtype_size(dt);
    CT_OK(clops_tensor_from_host(t, values, nbytes));
    return t;
}

clops_tensor *ct_random(clops_device *dev, clops_dtype dt, int ndim, const int64_t *sizes,
                        ct_layout layout, pw_domain dom, uint64_t seed)
{
    ct_rng r = ct_rng_seeded(seed);
    int64_t shape[CLOPS_MAX_DIMS];
    int64_t n;
    if (layout == CT_EXPANDED) {
        expanded_base(ndim, sizes, shape);
    } else {
        for (int i = 0; i < ndim; i++)
            shape[i] = sizes[i];
    }
    n = ct_numel(ndim, shape);
    size_t es = clops_dtype_size(dt);
    void *buf = malloc(n ? (size_t)n * es : 1);
    CT_ASSERT(buf != NULL);
    ct_fill(buf, n, dt, dom, &r);
    clops_tensor *t;
    if (layout == CT_EXPANDED) {
        clops_tensor *base = ct_from_values(dev, dt, ndim, shape, CT_CONTIGUOUS, buf);
        t = NULL;
        clops_status st = core_expand(base, sizes, ndim, false, &t);
        clops_tensor_release(base);
        free(buf);
        CT_OK(st);
    } else {
        t = ct_empty_layout(dev, dt, ndim, sizes, layout);
        clops_status st = clops_tensor_from_host(t, buf, (size_t)n * es);
        free(buf);
        CT_OK(st);
    }
    return t;
}

void *ct_to_host(const clops_tensor *t)
{
    size_t nbytes = (size_t)clops_tensor_numel(t) * clops_dtype_size(clops_tensor_dtype(t));
    void *buf = malloc(nbytes ? nbytes : 1);
    CT_ASSERT(buf != NULL);
    clops_status st = clops_tensor_to_host(t, buf, nbytes);
    if (st)
        free(buf);
    CT_OK(st);
    return buf;
}

clops_tensor *ct_to_cpu(const clops_tensor *t)
{
    clops_tensor *c = NULL;
    CT_OK(clops_tensor_to_device(t, ct_cpu(), &c));
    return c;
}
