/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tools/check/check_guard.c: layouts and guarded storages (check_guard.h).
 *
 * The storage image is composed on the host (sentinel bytes everywhere, the
 * values at the positions of the view's elements) and written with one
 * transfer, so the same bytes land on every device and nothing but the
 * geometry decides where an element lives.  A large image that repeats
 * (the sentinel of an output, or the values of a benchmark's input, which
 * repeat a random block: check_run.c's make_values) is written a block at
 * a time and tiled on the device instead: the same bytes, without
 * composing and transferring hundreds of MiB on the host.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/tensor_impl.h"
#include "host/host.h"
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

/* Fills img[0, n) with the sentinel of the storage bytes [at, at + n):
 * the pattern repeats every 256 bytes, so one period is computed and the
 * rest copied in doubling blocks. */
static void sentinel_fill(unsigned char *img, size_t at, size_t n)
{
    size_t first = n < 256 ? n : 256;
    for (size_t i = 0; i < first; i++)
        img[i] = sentinel(at + i);
    for (size_t done = first; done < n;) {
        size_t k = done < n - done ? done : n - done;
        memcpy(img + done, img, k);
        done += k;
    }
}

/* Writes n bytes from src at offset off of s (host memory on the CPU device). */
static clops_status storage_put(clops_storage *s, size_t off, const void *src, size_t n)
{
    if (host_is_cpu(s->device)) {
        memcpy((char *)s->host_ptr + off, src, n);
        return CLOPS_OK;
    }
    return host_write(s->device, s->block->mem, off, src, n);
}

/* Repeats the first `have` bytes of s's bytes [off, off + n) until they fill
 * it, doubling on the device: the copies never overlap. */
static clops_status storage_tile(clops_storage *s, size_t off, size_t have, size_t n)
{
    clops_status st = CLOPS_OK;
    for (size_t done = have; done < n && st == CLOPS_OK;) {
        size_t k = done < n - done ? done : n - done;
        if (host_is_cpu(s->device))
            memcpy((char *)s->host_ptr + off + done, (char *)s->host_ptr + off, k);
        else
            st = host_copy_buffer(s->device, s->block->mem, off, s->block->mem, off + done, k);
        done += k;
    }
    return st;
}

/* Storages without values above this many bytes (the sentinel alone) and
 * contiguous views whose values repeat a block are written a block at a
 * time and tiled on the device: composing and transferring a benchmark's
 * 256 MiB images on the host took longer than measuring the op. */
#define TILE_MIN_BYTES ((size_t)1 << 20)
#define TILE_SENTINEL_BYTES ((size_t)1 << 16)

/* Writes the image of a guarded storage whose values (NULL: none) repeat
 * every `period` elements into s, tiling it on the device. */
static clops_status write_tiled(clops_storage *s, size_t nbytes, size_t es, int64_t offset,
                                int64_t numel, const void *values, int64_t period)
{
    size_t head = values ? (size_t)offset * es + (size_t)period * es : TILE_SENTINEL_BYTES;
    if (head > nbytes)
        head = nbytes;
    unsigned char *img = malloc(head);
    if (!img)
        return clops__fail(CLOPS_HOST_OUT_OF_MEMORY, "chk_guarded_new: %zu bytes", head);
    sentinel_fill(img, 0, head);
    if (values)
        memcpy(img + (size_t)offset * es, values, (size_t)period * es);
    clops_status st = storage_put(s, 0, img, head);
    if (st == CLOPS_OK && !values)
        st = storage_tile(s, 0, head, nbytes);
    if (st == CLOPS_OK && values) {
        size_t vbytes = (size_t)numel * es, tail = (size_t)offset * es + vbytes;
        st = storage_tile(s, (size_t)offset * es, (size_t)period * es, vbytes);
        if (st == CLOPS_OK && tail < nbytes) {
            /* the guard after the values: at most the head's size */
            size_t n = nbytes - tail;
            if (n > head) {
                free(img);
                img = malloc(n);
                if (!img)
                    return clops__fail(CLOPS_HOST_OUT_OF_MEMORY, "chk_guarded_new: %zu bytes", n);
            }
            sentinel_fill(img, tail, n);
            st = storage_put(s, tail, img, n);
        }
    }
    free(img);
    return st;
}

clops_status chk_guarded_new(clops_device *dev, clops_dtype dt, int ndim, const int64_t *sizes,
                             chk_layout layout, const void *values, chk_guarded *out)
{
    return chk_guarded_new_tiled(dev, dt, ndim, sizes, layout, values, 0, out);
}

clops_status chk_guarded_new_tiled(clops_device *dev, clops_dtype dt, int ndim,
                                   const int64_t *sizes, chk_layout layout, const void *values,
                                   int64_t period, chk_guarded *out)
{
    memset(out, 0, sizeof *out);
    if (ndim < 0 || ndim > CLOPS_MAX_DIMS || (int)layout < 0 || layout >= CHK_LAYOUT_COUNT)
        return clops__fail(CLOPS_INVALID_ARGUMENT, "chk_guarded_new: bad rank %d or layout %d",
                           ndim, (int)layout);
    int64_t strides[CLOPS_MAX_DIMS] = {0}, inner = 0, extent = 0;
    layout_geometry(layout, ndim, sizes, strides, &inner, &extent);
    int64_t offset = CHK_GUARD_ELEMS + inner;
    int64_t elems = CHK_GUARD_ELEMS + extent + CHK_GUARD_ELEMS;
    int64_t numel = chk_numel(ndim, sizes);
    size_t es = clops_dtype_size(dt);
    size_t nbytes = (size_t)elems * es;
    clops_storage *s = NULL;
    clops_status st = storage_new(dev, nbytes, &s);
    if (st == CLOPS_OK)
        st = tensor_make("chk_guarded_new", s, dt, ndim, sizes, strides, offset, &out->t);
    if (st == CLOPS_OK)
        st = tensor_make("chk_guarded_new", s, CLOPS_UINT8, 1, (const int64_t[]){(int64_t)nbytes},
                         (const int64_t[]){1}, 0, &out->bytes);
    if (st == CLOPS_OK)
        out->nbytes = nbytes;
    bool dense = values && layout == CHK_CONTIGUOUS && inner == 0 && extent == numel;
    if (st == CLOPS_OK && ((!values && nbytes > TILE_MIN_BYTES) ||
                           (dense && period > 0 && period < numel))) {
        st = write_tiled(s, nbytes, es, offset, numel, values, period);
    } else if (st == CLOPS_OK) {
        unsigned char *img = malloc(nbytes);
        if (!img) {
            st = clops__fail(CLOPS_HOST_OUT_OF_MEMORY, "chk_guarded_new: %zu bytes", nbytes);
        } else {
            /* Contiguous views (at an offset or not) cover [offset, offset +
             * numel) with the values in order: sentinel in the guards only. */
            bool one_piece = values && (layout == CHK_CONTIGUOUS || layout == CHK_OFFSET);
            if (one_piece) {
                sentinel_fill(img, 0, (size_t)offset * es);
                memcpy(img + (size_t)offset * es, values, (size_t)numel * es);
                size_t tail = (size_t)(offset + numel) * es;
                sentinel_fill(img + tail, tail, nbytes - tail);
            } else {
                sentinel_fill(img, 0, nbytes);
            }
            if (values && !one_piece && layout == CHK_EXPANDED) {
                int64_t base[CLOPS_MAX_DIMS] = {0}, bstr[CLOPS_MAX_DIMS] = {0};
                chk_expanded_base(ndim, sizes, base);
                contiguous_strides(ndim, base, bstr);
                place_values(img, es, ndim, base, bstr, offset, values);
            } else if (values && !one_piece) {
                place_values(img, es, ndim, sizes, strides, offset, values);
            }
            st = clops_tensor_from_host(out->bytes, img, nbytes);
            free(img);
        }
    }
    storage_release(s);
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
