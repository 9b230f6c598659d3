/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tools/check/check_guard.c: layouts and guarded storages (check_guard.h).
 *
 * The storage image is composed on the host (sentinel bytes everywhere, the
 * values at the positions of the view's elements) and written with one
 * transfer, so the same bytes land on every device and nothing but the
 * geometry decides where an element lives.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/tensor_impl.h"
#include "tools/check/check_guard.h"

const char *chk_layout_name(chk_layout layout)
{
    switch (layout) {
    case CHK_CONTIGUOUS:
        return "contiguous";
    case CHK_TRANSPOSED:
        return "transposed";
    case CHK_SLICED:
        return "sliced";
    case CHK_EXPANDED:
        return "expanded";
    case CHK_OFFSET:
        return "offset";
    default:
        return "invalid layout";
    }
}

int64_t chk_numel(int ndim, const int64_t *sizes)
{
    int64_t n = 1;
    for (int i = 0; i < ndim; i++)
        n *= sizes[i];
    return n;
}

void chk_expanded_base(int ndim, const int64_t *sizes, int64_t *base)
{
    for (int i = 0; i < ndim; i++)
        base[i] = (i % 2 == 0) ? 1 : sizes[i];
}

/* The sentinel value of byte i of a guarded storage. */
static uint8_t sentinel(size_t i)
{
    return (uint8_t)(0xA5u ^ (uint8_t)(i * 0x3Bu));
}

/*
 * Strides of a layout and the offset of its first element from the start
 * of its extent; *extent receives the elements the extent spans (the
 * furthest element, plus one gap after it for sliced layouts, so a write
 * one stride too far lands in guard bytes either way).
 */
static void layout_geometry(chk_layout layout, int ndim, const int64_t *sizes, int64_t *strides,
                            int64_t *offset, int64_t *extent)
{
    int64_t tmp[CLOPS_MAX_DIMS] = {0}, tstr[CLOPS_MAX_DIMS] = {0};
    *offset = 0;
    switch (layout) {
    case CHK_TRANSPOSED:
        for (int i = 0; i < ndim; i++)
            tmp[i] = sizes[ndim - 1 - i];
        contiguous_strides(ndim, tmp, tstr);
        for (int i = 0; i < ndim; i++)
            strides[i] = tstr[ndim - 1 - i];
        break;
    case CHK_SLICED:
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
    case CHK_EXPANDED:
        chk_expanded_base(ndim, sizes, tmp);
        contiguous_strides(ndim, tmp, strides);
        for (int i = 0; i < ndim; i++)
            if (tmp[i] == 1 && sizes[i] != 1)
                strides[i] = 0;
        break;
    case CHK_OFFSET:
        contiguous_strides(ndim, sizes, strides);
        *offset = CHK_ODD_OFFSET;
        break;
    default:
        contiguous_strides(ndim, sizes, strides);
        break;
    }
    if (layout == CHK_EXPANDED) {
        chk_expanded_base(ndim, sizes, tmp);
        *extent = chk_numel(ndim, tmp);
        return;
    }
    int64_t reach = 0;
    for (int i = 0; i < ndim; i++) {
        if (sizes[i] == 0) {
            *extent = *offset;
            return;
        }
        reach += (sizes[i] - 1) * strides[i];
    }
    *extent = *offset + reach + 1 + (layout == CHK_SLICED ? 1 : 0);
}

/* Writes the logical values into a host image of the storage: element i
 * of the row-major walk over (ndim, sizes) goes to `offset + idx . strides`. */
static void place_values(unsigned char *img, size_t es, int ndim, const int64_t *sizes,
                         const int64_t *strides, int64_t offset, const void *values)
{
    int64_t n = chk_numel(ndim, sizes);
    int64_t coord[CLOPS_MAX_DIMS] = {0};
    int64_t off = offset;
    for (int64_t e = 0; e < n; e++) {
        memcpy(img + (size_t)off * es, (const char *)values + (size_t)e * es, es);
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

clops_status chk_guarded_new(clops_device *dev, clops_dtype dt, int ndim, const int64_t *sizes,
                               chk_layout layout, const void *values, chk_guarded *out)
{
    memset(out, 0, sizeof *out);
    if (ndim < 0 || ndim > CLOPS_MAX_DIMS || (int)layout < 0 || layout >= CHK_LAYOUT_COUNT)
        return clops__fail(CLOPS_INVALID_ARGUMENT, "chk_guarded_new: bad rank %d or layout %d",
                           ndim, (int)layout);
    int64_t strides[CLOPS_MAX_DIMS] = {0}, inner = 0, extent = 0;
    layout_geometry(layout, ndim, sizes, strides, &inner, &extent);
    int64_t offset = CHK_GUARD_ELEMS + inner;
    int64_t elems = CHK_GUARD_ELEMS + extent + CHK_GUARD_ELEMS;
    size_t es = clops_dtype_size(dt);
    size_t nbytes = (size_t)elems * es;
    unsigned char *img = malloc(nbytes);
    if (!img)
        return clops__fail(CLOPS_HOST_OUT_OF_MEMORY, "chk_guarded_new: %zu bytes", nbytes);
    for (size_t i = 0; i < nbytes; i++)
        img[i] = sentinel(i);
    if (values) {
        if (layout == CHK_EXPANDED) {
            int64_t base[CLOPS_MAX_DIMS] = {0}, bstr[CLOPS_MAX_DIMS] = {0};
            chk_expanded_base(ndim, sizes, base);
            contiguous_strides(ndim, base, bstr);
            place_values(img, es, ndim, base, bstr, offset, values);
        } else {
            place_values(img, es, ndim, sizes, strides, offset, values);
        }
    }
    clops_storage *s = NULL;
    clops_status st = storage_new(dev, nbytes, &s);
    if (st == CLOPS_OK)
        st = tensor_make("chk_guarded_new", s, dt, ndim, sizes, strides, offset, &out->t);
    if (st == CLOPS_OK)
        st = tensor_make("chk_guarded_new", s, CLOPS_UINT8, 1, (const int64_t[]){(int64_t)nbytes},
                         (const int64_t[]){1}, 0, &out->bytes);
    storage_release(s);
    if (st == CLOPS_OK) {
        out->nbytes = nbytes;
        st = clops_tensor_from_host(out->bytes, img, nbytes);
    }
    free(img);
    if (st)
        chk_guarded_release(out);
    return st;
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

clops_status chk_guarded_verify(const chk_guarded *g, bool *intact, char *msg, size_t cap)
{
    *intact = true;
    if (msg && cap)
        msg[0] = '\0';
    if (!g->t || !g->bytes)
        return CLOPS_OK;
    uint8_t *bytes = malloc(g->nbytes ? g->nbytes : 1);
    bool *covered = calloc(g->nbytes ? g->nbytes : 1, sizeof *covered);
    clops_status st = CLOPS_OK;
    if (!bytes || !covered) {
        st = clops__fail(CLOPS_HOST_OUT_OF_MEMORY, "chk_guarded_verify: %zu bytes", g->nbytes);
        goto done;
    }
    st = clops_tensor_to_host(g->bytes, bytes, g->nbytes);
    if (st)
        goto done;
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
    if (bad == 0)
        goto done;
    *intact = false;
    if (msg && cap) {
        size_t es = clops_dtype_size(clops_tensor_dtype(g->t));
        const char *where = first_bad < first_cov  ? "before the first element"
                            : first_bad > last_cov ? "after the last element"
                                                   : "in a gap between elements";
        char desc[600];
        clops_tensor_describe(g->t, desc, sizeof desc);
        snprintf(msg, cap,
                 "out-of-bounds write: %zu guard byte(s) changed; the first is byte %zu (element "
                 "%zu of the storage, %s), now 0x%02x instead of 0x%02x; output %s",
                 bad, first_bad, first_bad / es, where, bytes[first_bad], sentinel(first_bad),
                 desc);
    }
done:
    free(bytes);
    free(covered);
    return st;
}

void chk_guarded_release(chk_guarded *g)
{
    clops_tensor_release(g->t);
    clops_tensor_release(g->bytes);
    g->t = NULL;
    g->bytes = NULL;
    g->nbytes = 0;
}
