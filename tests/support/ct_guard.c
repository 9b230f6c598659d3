/*
 * tests/support/ct_guard.c: output tensors surrounded by sentinel bytes, to
 * catch kernels that write outside the elements they were given.
 *
 * The storage is laid out as
 *
 *     [CT_GUARD_ELEMS elements of guard][the view's extent][CT_GUARD_ELEMS of guard]
 *
 * and every byte starts with a position-dependent sentinel value.  The view's
 * extent of a sliced layout has gaps between its elements; those are guards
 * too.  After the op, every byte not covered by one of the view's elements
 * must still hold its sentinel (ggml's test-backend-ops does the same with
 * sentinel tensors between outputs).
 */
#include <stdlib.h>
#include <string.h>

#include "clops_test.h"

/* The sentinel value of byte i of a guarded storage. */
static uint8_t sentinel(size_t i)
{
    return (uint8_t)(0xA5u ^ (uint8_t)(i * 0x3Bu));
}

/* Strides and offset (from the view's extent start) of a layout. */
static void layout_geometry(ct_layout layout, int ndim, const int64_t *sizes, int64_t *strides,
                            int64_t *offset)
{
    int64_t tmp[CLOPS_MAX_DIMS] = {0}, tstr[CLOPS_MAX_DIMS] = {0};
    *offset = 0;
    switch (layout) {
    case CT_TRANSPOSED:
        for (int i = 0; i < ndim; i++)
            tmp[i] = sizes[ndim - 1 - i];
        contiguous_strides(ndim, tmp, tstr);
        for (int i = 0; i < ndim; i++)
            strides[i] = tstr[ndim - 1 - i];
        break;
    case CT_SLICED:
        for (int i = 0; i < ndim; i++)
            tmp[i] = 2 * sizes[i] + 1;
        contiguous_strides(ndim, tmp, tstr);
        for (int i = 0; i < ndim; i++) {
            strides[i] = 2 * tstr[i];
            *offset += tstr[i];
        }
        if (ndim == 0)
            *offset = 1;
        break;
    default:
        contiguous_strides(ndim, sizes, strides);
        break;
    }
}

ct_guarded ct_guarded_new(clops_device *dev, clops_dtype dt, int ndim, const int64_t *sizes,
                          ct_layout layout)
{
    ct_guarded g = {NULL, NULL, 0};
    CT_ASSERT_MSG(layout != CT_EXPANDED, "ct_guarded_new: an expanded tensor cannot be written");
    int64_t strides[CLOPS_MAX_DIMS], inner = 0;
    layout_geometry(layout, ndim, sizes, strides, &inner);
    int64_t offset = CT_GUARD_ELEMS + inner;
    int64_t reach = 0;
    bool empty = false;
    for (int i = 0; i < ndim; i++) {
        if (sizes[i] == 0)
            empty = true;
        else
            reach += (sizes[i] - 1) * strides[i];
    }
    /* The extent spans the offset, the furthest element and one gap after
     * it for sliced layouts (so a write one stride too far lands in guard
     * bytes either way). */
    int64_t extent = empty ? inner : inner + reach + 1 + (layout == CT_SLICED ? 1 : 0);
    int64_t elems = CT_GUARD_ELEMS + extent + CT_GUARD_ELEMS;
    size_t es = clops_dtype_size(dt);
    g.nbytes = (size_t)elems * es;

    clops_storage *s = NULL;
    CT_OK(storage_new(dev, g.nbytes, &s));
    clops_status st = tensor_make("ct_guarded_new", s, dt, ndim, sizes, strides, offset, &g.t);
    if (st == CLOPS_OK)
        st = tensor_make("ct_guarded_new", s, CLOPS_UINT8, 1, (const int64_t[]){(int64_t)g.nbytes},
                         CT_I64(1), 0, &g.bytes);
    storage_release(s);
    CT_OK(st);

    uint8_t *fill = malloc(g.nbytes);
    CT_ASSERT(fill != NULL);
    for (size_t i = 0; i < g.nbytes; i++)
        fill[i] = sentinel(i);
    st = clops_tensor_from_host(g.bytes, fill, g.nbytes);
    free(fill);
    CT_OK(st);
    return g;
}

/* Marks the bytes of every element of t in covered[]. */
static void mark_elements(const clops_tensor *t, bool *covered)
{
    int ndim = clops_tensor_ndim(t);
    const int64_t *sizes = clops_tensor_sizes(t), *strides = clops_tensor_strides(t);
    int64_t n = clops_tensor_numel(t);
    size_t es = clops_dtype_size(clops_tensor_dtype(t));
    int64_t coord[CLOPS_MAX_DIMS] = {0};
    int64_t off = clops_tensor_storage_offset(t);
    for (int64_t e = 0; e < n; e++) {
        memset(covered + (size_t)off * es, 1, es);
        for (int i = ndim - 1; i >= 0; i--) {
            coord[i]++;
            off += strides[i];
            if (coord[i] < sizes[i])
                break;
            off -= strides[i] * sizes[i];
            coord[i] = 0;
        }
    }
}

void ct_guarded_check_at(const ct_guarded *g, const char *file, int line)
{
    uint8_t *bytes = ct_to_host(g->bytes);
    bool *covered = calloc(g->nbytes ? g->nbytes : 1, sizeof *covered);
    if (!covered)
        free(bytes);
    CT_ASSERT(covered != NULL);
    mark_elements(g->t, covered);
    size_t first_cov = g->nbytes, last_cov = 0;
    for (size_t i = 0; i < g->nbytes; i++)
        if (covered[i]) {
            if (first_cov == g->nbytes)
                first_cov = i;
            last_cov = i;
        }
    size_t bad = 0, first_bad = 0;
    for (size_t i = 0; i < g->nbytes; i++)
        if (!covered[i] && bytes[i] != sentinel(i)) {
            if (bad == 0)
                first_bad = i;
            bad++;
        }
    uint8_t got = bad ? bytes[first_bad] : 0;
    free(bytes);
    free(covered);
    if (bad == 0)
        return;
    size_t es = clops_dtype_size(clops_tensor_dtype(g->t));
    const char *where = first_bad < first_cov  ? "before the first element"
                        : first_bad > last_cov ? "after the last element"
                                               : "in a gap between elements";
    char desc[600];
    clops_tensor_describe(g->t, desc, sizeof desc);
    ct_fail_at(file, line,
               "out-of-bounds write: %zu guard byte(s) changed; the first is byte %zu (element "
               "%zu of the storage, %s), now 0x%02x instead of 0x%02x; output %s",
               bad, first_bad, first_bad / es, where, got, sentinel(first_bad), desc);
}

void ct_guarded_release(ct_guarded *g)
{
    clops_tensor_release(g->t);
    clops_tensor_release(g->bytes);
    g->t = NULL;
    g->bytes = NULL;
    g->nbytes = 0;
}
