/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ops/index/index_nonzero.c: the ops whose result size depends on the data:
 * nonzero, nonzero_static, argwhere, where(condition) and masked_select,
 * and their inverse masked_scatter, built on the device-side scan of
 * ops/scan/scan.h.
 *
 * An inclusive int64 cumsum of the (!= 0) mask, in row-major order, gives
 * every selected element its packed output row (its value minus one) and
 * the count (its last value).  The count is read back once to size the
 * result (nonzero_static needs no read: its size is given; masked_scatter
 * reads it to check source's length); one compaction launch then writes
 * the coordinates or the values (or, for masked_scatter, reads them) (cl_kernels/index.cl,
 * ref_index_compact on the CPU device).  No other data crosses to the
 * host, and every element has one writer: the same bits on every run.
 *
 * Memory: the scan keeps 8 bytes per element and the mask (when the input
 * is not bool) 1, so inputs of more than IX_NONZERO_CHUNK elements run
 * chunk by chunk (nonzero_chunks): the count comes first from
 * count_nonzero (a reduction, no per-element temporary), then each chunk
 * (whole rows of the inner dims, a range of the row-major order) is
 * scanned on its own and compacted at the rows the chunks before it
 * filled; its count is read back to place the next.  Extra memory: 9 bytes
 * per element of one chunk (36 MiB) whatever the input's size.
 */
#include <stdio.h>
#include <string.h>

#include "codegen_pointwise/pw.h"
#include "core/debug.h"
#include "host/host.h"
#include "ops/index/index.h"
#include "ops/kernels_generated.h"
#include "ops/kit/kit.h"
#include "ops/reduce/reduce.h"
#include "ops/scan/scan.h"

/* Elements of one chunk of nonzero's scan (the index.nonzero_chunk setting
 * sets another for tests): its temporaries, 9 bytes an element, stay at
 * 36 MiB however large the input. */
#define IX_NONZERO_CHUNK ((int64_t)1 << 22)

/* Kernel geometry; mirrors ix_cgeom in cl_kernels/index.cl. */
typedef struct ix_cgeom {
    int64_t sizes[CLOPS_MAX_DIMS];
    int64_t st[CLOPS_MAX_DIMS];
    int64_t ndim, n, flat_off, flat_rs, flat_cs, off, limit, fill, first;
} ix_cgeom;

/* Scan positions of t's nonzero elements, and the count (ops/index/index.h). */
clops_status ix_nonzero_positions(const char *op, clops_tensor *t, clops_tensor **pos,
                                  int64_t *count)
{
    *pos = NULL;
    if (count)
        *count = 0;
    int64_t n = tensor_numel(t);
    if (n == 0)
        return CLOPS_OK;
    clops_tensor *m = NULL, *flat = NULL, *p = NULL, *last = NULL;
    clops_status st = t->dtype == CLOPS_BOOL ? (m = clops_tensor_retain(t), CLOPS_OK)
                                             : core_to_copy(t, CLOPS_BOOL, NULL, &m);
    if (st == CLOPS_OK)
        st = core_reshape(m, &n, 1, &flat);
    if (st == CLOPS_OK)
        st = tensor_new(t->storage->device, CLOPS_INT64, 1, &n, NULL, &p);
    if (st == CLOPS_OK)
        st = scan_run(op, SCAN_SUM, flat, 0, p, NULL);
    if (st == CLOPS_OK && count)
        st = core_select(p, 0, n - 1, &last);
    if (st == CLOPS_OK && count)
        st = clops_tensor_to_host(last, count, sizeof *count);
    clops_tensor_release(last);
    clops_tensor_release(flat);
    clops_tensor_release(m);
    if (st) {
        clops_tensor_release(p);
        return st;
    }
    *pos = p;
    return CLOPS_OK;
}

/* cl_mem of a tensor's storage (NULL for an empty one). */
static cl_mem mem_of(const clops_tensor *t)
{
    return t->storage->block ? t->storage->block->mem : NULL;
}

/* Finds (or builds) kernel `name` of the index segment program. */
static clops_status compact_kernel(clops_device *d, int which, const char *name, host_kernel **k)
{
    host_kkey key = {{(0x23ull << 56) | (uint64_t)which, 0, 0, 0}};
    return ix_segment_kernel(d, &key, name, NULL, k);
}

/* Launches kernel (which, name) over n items with (flat, other, pos, g). */
static clops_status compact_launch(clops_device *d, int which, const char *name, cl_mem flat,
                                   cl_mem other, cl_mem pos, const ix_cgeom *g, int64_t n)
{
    host_kernel *k = NULL;
    clops_status st = compact_kernel(d, which, name, &k);
    if (st)
        return st;
    host_arg a3[3] = {{sizeof(cl_mem), &flat}, {sizeof(cl_mem), &pos}, {sizeof *g, g}};
    host_arg a4[4] = {{sizeof(cl_mem), &flat}, {sizeof(cl_mem), &other}, {sizeof(cl_mem), &pos},
                      {sizeof *g, g}};
    bool coords = which < 2;
    return host_launch_items(d, k, coords ? 3 : 4, coords ? a3 : a4, (uint64_t)n);
}

/* Runs a compaction: kernels on OpenCL devices, the reference on the CPU. */
clops_status ix_compact_run(const ix_compact *c)
{
    clops_tensor *any = c->flat;
    clops_device *d = any->storage->device;
    if (kit_is_host(d))
        return ref_index_compact(c);
    ix_cgeom g;
    memset(&g, 0, sizeof g);
    for (int i = 0; i < c->ndim; i++) {
        g.sizes[i] = c->sizes[i];
        g.st[i] = c->st[i];
    }
    g.ndim = c->ndim;
    g.n = c->n;
    g.flat_off = c->flat_off;
    g.flat_rs = c->flat_rs;
    g.flat_cs = c->flat_cs;
    g.off = c->off;
    g.limit = c->limit;
    g.fill = c->fill_value;
    g.first = c->first;
    cl_mem mf = mem_of(c->flat), mp = c->pos ? mem_of(c->pos) : mf;
    clops_status st = CLOPS_OK;
    if (c->mode == IX_CMP_COORDS) {
        if (c->n && c->ndim)
            st = compact_launch(d, 0, "ix_nonzero", mf, NULL, mp, &g, c->n);
        if (st == CLOPS_OK && c->fill && c->limit && c->ndim)
            st = compact_launch(d, 1, "ix_nonzero_fill", mf, NULL, mp, &g, c->limit * c->ndim);
    } else if (c->n) {
        size_t es = clops_dtype_size(c->flat->dtype);
        int lg = es == 1 ? 0 : es == 2 ? 1 : es == 4 ? 2 : 3;
        char name[32];
        snprintf(name, sizeof name, "ix_%s_%d", c->mode == IX_CMP_SELECT ? "mselect" : "mscatter",
                 (int)es);
        int which = (c->mode == IX_CMP_SELECT ? 2 : 6) + lg;
        cl_mem ms = mem_of(c->strided);
        st = c->mode == IX_CMP_SELECT ? compact_launch(d, which, name, mf, ms, mp, &g, c->n)
                                      : compact_launch(d, which, name, ms, mf, mp, &g, c->n);
    }
    return st ? clops__error_prefix(st, "%s", c->op) : CLOPS_OK;
}

/* The elements of a chunk of nonzero's scan. */
static int64_t nonzero_chunk(void)
{
    int64_t c = clops_debug_get(CLOPS_DEBUG_INDEX_NONZERO_CHUNK);
    return c > 0 ? c : IX_NONZERO_CHUNK;
}

/* The number of nonzero elements of t, by a reduction (no temporary per
 * element). */
static clops_status nonzero_count(clops_tensor *t, int64_t *count)
{
    clops_tensor *c = NULL;
    clops_status st = reduce_count_nonzero(PW_FUNCTIONAL, NULL, t, NULL, &c);
    if (st == CLOPS_OK)
        st = clops_tensor_to_host(c, count, sizeof *count);
    clops_tensor_release(c);
    return st;
}

/* Writes the coordinates of self's nonzero elements into rows [0, limit)
 * of the [rows, ndim] int64 tensor t, chunk by chunk: a chunk is `rows`
 * whole rows of the dims after d (at most `chunk` elements, at least one
 * such row) at one index of the dims before d, a range of the row-major
 * order starting at element `first`.  *written: the rows written (at most
 * limit). */
static clops_status nonzero_chunks(const char *op, clops_tensor *self, clops_tensor *t,
                                   int64_t limit, int64_t chunk, int64_t *written)
{
    int nd = self->ndim, d = 0;
    int64_t inner = tensor_numel(self) / self->sizes[0], outer = 1;
    while (inner > chunk && d + 1 < nd) {
        outer *= self->sizes[d];
        d++;
        inner /= self->sizes[d];
    }
    int64_t rows = inner < chunk ? chunk / inner : 1, base = 0;
    int64_t vs[CLOPS_MAX_DIMS];
    memcpy(vs, self->sizes, sizeof(int64_t) * (size_t)nd);
    for (int j = 0; j < d; j++)
        vs[j] = 1;
    clops_status st = CLOPS_OK;
    for (int64_t o = 0; st == CLOPS_OK && o < outer && base < limit; o++) {
        int64_t off = self->offset;
        for (int64_t j = d - 1, rem = o; j >= 0; j--) {
            off += (rem % self->sizes[j]) * self->strides[j];
            rem /= self->sizes[j];
        }
        for (int64_t r0 = 0; st == CLOPS_OK && r0 < self->sizes[d] && base < limit; r0 += rows) {
            int64_t voff = off + r0 * self->strides[d], cnt = 0;
            vs[d] = self->sizes[d] - r0 < rows ? self->sizes[d] - r0 : rows;
            clops_tensor *view = NULL, *pos = NULL;
            st = core_as_strided(self, vs, nd, self->strides, nd, &voff, &view);
            if (st == CLOPS_OK)
                st = ix_nonzero_positions(op, view, &pos, &cnt);
            if (st == CLOPS_OK && cnt > 0) {
                ix_compact c = {.op = op, .mode = IX_CMP_COORDS, .ndim = nd, .pos = pos,
                                .n = vs[d] * inner, .first = (o * self->sizes[d] + r0) * inner,
                                .flat = t, .flat_off = t->offset + base * t->strides[0],
                                .flat_rs = t->strides[0], .flat_cs = t->strides[1],
                                .limit = limit - base};
                memcpy(c.sizes, self->sizes, sizeof(int64_t) * (size_t)nd);
                st = ix_compact_run(&c);
            }
            base += cnt;
            clops_tensor_release(pos);
            clops_tensor_release(view);
        }
    }
    *written = base < limit ? base : limit;
    return st;
}

/* nonzero and nonzero_static: size < 0 for nonzero (the count sizes the
 * result), else nonzero_static's size and fill value. */
static clops_status nonzero_common(const char *op, pw_variant variant, clops_tensor *dst,
                                   clops_tensor *self, int64_t size, int64_t fill,
                                   clops_tensor **out)
{
    if (variant == PW_OUT && dst->dtype != CLOPS_INT64)
        return clops__fail(CLOPS_INVALID_DTYPE,
                           "%s: Expected out tensor to have scalar type Long but got scalar type "
                           "%s",
                           op, clops_dtype_name(dst->dtype));
    clops_status st = variant == PW_OUT ? ix_check_same_device(op, self, dst) : CLOPS_OK;
    if (st)
        return st;
    bool is_static = size >= 0;
    clops_tensor *pos = NULL;
    int64_t count = 0, chunk = nonzero_chunk();
    bool chunked = tensor_numel(self) > chunk;
    st = chunked ? (is_static ? CLOPS_OK : nonzero_count(self, &count))
                 : ix_nonzero_positions(op, self, &pos, is_static ? NULL : &count);
    if (st)
        return st;
    int64_t shape[2] = {is_static ? size : count, self->ndim};
    structured_call call;
    clops_tensor *const inputs[1] = {self};
    st = structured_begin(&call, op, variant, dst, self->storage->device, CLOPS_INT64, 2, shape,
                          inputs, 1);
    if (st) {
        clops_tensor_release(pos);
        return st;
    }
    clops_tensor *t = call.target;
    if (chunked) {
        int64_t written = 0;
        st = nonzero_chunks(op, self, t, shape[0], chunk, &written);
        if (st == CLOPS_OK && !is_static && written != count)
            st = clops__fail(CLOPS_INTERNAL, "%s: the chunks found %lld nonzero elements, the "
                             "count %lld", op, (long long)written, (long long)count);
        if (st == CLOPS_OK && is_static && written < shape[0] && self->ndim) {
            /* nonzero_static's padding rows */
            ix_compact f = {.op = op, .mode = IX_CMP_COORDS, .ndim = self->ndim,
                            .flat = t, .flat_off = t->offset + written * t->strides[0],
                            .flat_rs = t->strides[0], .flat_cs = t->strides[1],
                            .limit = shape[0] - written, .fill = true, .fill_value = fill};
            st = ix_compact_run(&f);
        }
        return structured_finish(&call, st, out);
    }
    ix_compact c = {.op = op, .mode = IX_CMP_COORDS, .ndim = self->ndim, .pos = pos,
                    .n = tensor_numel(self), .flat = t, .flat_off = t->offset,
                    .flat_rs = t->strides[0], .flat_cs = t->strides[1], .limit = shape[0],
                    .fill = is_static, .fill_value = fill};
    memcpy(c.sizes, self->sizes, sizeof(int64_t) * (size_t)self->ndim);
    st = ix_compact_run(&c);
    clops_tensor_release(pos);
    return structured_finish(&call, st, out);
}

/* nonzero for other ops (index.Tensor's masks), errors naming `op`. */
clops_status ix_nonzero(const char *op, clops_tensor *t, clops_tensor **out)
{
    return nonzero_common(op, PW_FUNCTIONAL, NULL, t, -1, 0, out);
}

/* nonzero(self): the coordinates of self's nonzero elements, [count, ndim]
 * int64 in row-major order. */
clops_status ix_fn_nonzero(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                           clops_tensor **out)
{
    return nonzero_common("nonzero", variant, dst, self, -1, 0, out);
}

/* nonzero_static(self, size, fill_value): nonzero's first `size` rows,
 * padded with fill_value; no read-back (the size is given). */
clops_status ix_fn_nonzero_static(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                                  int64_t size, int64_t fill_value, clops_tensor **out)
{
    if (size < 0)
        return clops__fail(CLOPS_INVALID_ARGUMENT,
                           "nonzero_static: 'size' must be an non-negative integer, got %lld",
                           (long long)size);
    return nonzero_common("nonzero_static", variant, dst, self, size, fill_value, out);
}

/* argwhere(self): nonzero under NumPy's name. */
clops_status ix_fn_argwhere(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                            clops_tensor **out)
{
    return nonzero_common("argwhere", variant, dst, self, -1, 0, out);
}

/* where(condition): nonzero(condition, as_tuple=True), the columns of
 * nonzero's result as views; a 0-d condition counts as 1-d. */
clops_status ix_where_condition(clops_tensor *condition, clops_tensor_list *out)
{
    clops_tensor *c1 = NULL, *nz = NULL;
    int64_t one = 1;
    clops_status st = condition->ndim == 0 ? core_reshape(condition, &one, 1, &c1)
                                           : (c1 = clops_tensor_retain(condition), CLOPS_OK);
    if (st == CLOPS_OK)
        st = ix_nonzero("where", c1, &nz);
    if (st == CLOPS_OK)
        st = ix_unbind(nz, 1, out);
    clops_tensor_release(nz);
    clops_tensor_release(c1);
    return st;
}

/* masked_select's and masked_scatter's common start: mask and self
 * broadcast to one shape, and the scan positions of the mask over it. */
typedef struct mask_bcast {
    int nd;
    int64_t sizes[CLOPS_MAX_DIMS];
    clops_tensor *mexp, *sexp, *pos; /* owned */
    int64_t count;
} mask_bcast;

static void mask_bcast_free(mask_bcast *b)
{
    clops_tensor_release(b->mexp);
    clops_tensor_release(b->sexp);
    clops_tensor_release(b->pos);
}

/* Checks mask's dtype and that self, mask and other (NULL: none) share a
 * device, broadcasts self and mask, and scans the mask (reading the count
 * back).  On failure nothing is held. */
static clops_status mask_bcast_make(const char *op, clops_tensor *self, clops_tensor *mask,
                                    const clops_tensor *other, mask_bcast *b)
{
    memset(b, 0, sizeof *b);
    char dm[160];
    if (mask->dtype != CLOPS_BOOL)
        return clops__fail(CLOPS_INVALID_DTYPE, "%s: expected BoolTensor for mask, got %s", op,
                           tensor_describe(mask, dm, sizeof dm));
    clops_status st = ix_check_same_device(op, self, mask);
    if (st == CLOPS_OK && other)
        st = ix_check_same_device(op, self, other);
    const clops_tensor *both[2] = {self, mask};
    if (st == CLOPS_OK)
        st = pw_broadcast_shape(op, both, 2, &b->nd, b->sizes);
    if (st == CLOPS_OK)
        st = core_expand(mask, b->sizes, b->nd, false, &b->mexp);
    if (st == CLOPS_OK)
        st = core_expand(self, b->sizes, b->nd, false, &b->sexp);
    if (st == CLOPS_OK)
        st = ix_nonzero_positions(op, b->mexp, &b->pos, &b->count);
    if (st)
        mask_bcast_free(b);
    return st;
}

/* masked_select(self, mask): self's elements where the bool mask holds,
 * both broadcast to one shape, as a 1-d tensor in row-major order. */
clops_status ix_fn_masked_select(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                                 clops_tensor *mask, clops_tensor **out)
{
    const char *op = "masked_select";
    char ds[160], dd[160];
    if (variant == PW_OUT && dst->dtype != self->dtype)
        return clops__fail(CLOPS_INVALID_DTYPE,
                           "%s: self and result must have the same scalar type, got %s and %s",
                           op, tensor_describe(self, ds, sizeof ds),
                           tensor_describe(dst, dd, sizeof dd));
    mask_bcast b;
    clops_status st = mask_bcast_make(op, self, mask, variant == PW_OUT ? dst : NULL, &b);
    if (st)
        return st;
    structured_call call;
    clops_tensor *const inputs[2] = {self, mask};
    st = structured_begin(&call, op, variant, dst, self->storage->device, self->dtype, 1,
                          &b.count, inputs, 2);
    if (st == CLOPS_OK) {
        clops_tensor *t = call.target;
        ix_compact c = {.op = op, .mode = IX_CMP_SELECT, .ndim = b.nd, .pos = b.pos,
                        .n = tensor_numel(b.sexp), .flat = t, .flat_off = t->offset,
                        .flat_rs = t->strides[0], .strided = b.sexp, .off = b.sexp->offset};
        memcpy(c.sizes, b.sizes, sizeof(int64_t) * (size_t)b.nd);
        memcpy(c.st, b.sexp->strides, sizeof(int64_t) * (size_t)b.nd);
        st = structured_finish(&call, ix_compact_run(&c), out);
    }
    mask_bcast_free(&b);
    return st;
}

/* masked_scatter(self, mask, source): the elements of self where the bool
 * mask (broadcast to self's shape) holds take source's elements in
 * row-major order (one compaction launch reading source's packed rows). */
clops_status ix_fn_masked_scatter(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                                  clops_tensor *mask, clops_tensor *source, clops_tensor **out)
{
    const char *op = "masked_scatter";
    char da[160], db[160];
    if (source->dtype != self->dtype)
        return clops__fail(CLOPS_INVALID_DTYPE,
                           "%s: expected self and source to have same dtypes but got %s and %s",
                           op, tensor_describe(self, da, sizeof da),
                           tensor_describe(source, db, sizeof db));
    mask_bcast b;
    clops_status st = mask_bcast_make(op, self, mask, source, &b);
    if (st)
        return st;
    int64_t sn = tensor_numel(source);
    if (variant == PW_INPLACE &&
        (b.nd != self->ndim || memcmp(b.sizes, self->sizes, sizeof(int64_t) * (size_t)b.nd) != 0))
        st = clops__fail(CLOPS_INVALID_SHAPE, "%s: mask %s must broadcast to self's shape %s",
                         op, tensor_describe(mask, da, sizeof da),
                         tensor_describe(self, db, sizeof db));
    else if (b.count > sn)
        st = clops__fail(CLOPS_INVALID_ARGUMENT,
                         "%s: Number of elements of source (%lld) < number of ones in mask "
                         "(%lld)",
                         op, (long long)sn, (long long)b.count);
    clops_tensor *src = NULL;
    if (st == CLOPS_OK)
        st = core_contiguous(source, &src);
    structured_call call;
    bool begun = false;
    if (st == CLOPS_OK) {
        clops_tensor *const inputs[3] = {self, mask, source};
        st = structured_begin(&call, op, variant, dst, self->storage->device, self->dtype, b.nd,
                              b.sizes, inputs, 3);
        begun = st == CLOPS_OK;
    }
    if (begun && call.target != self)
        st = core_copy_(call.target, b.sexp, false);
    if (begun && st == CLOPS_OK && b.count > 0) {
        clops_tensor *t = call.target;
        ix_compact c = {.op = op, .mode = IX_CMP_SCATTER, .ndim = b.nd, .pos = b.pos,
                        .n = tensor_numel(t), .flat = src, .flat_off = src->offset,
                        .flat_rs = 1, .strided = t, .off = t->offset};
        memcpy(c.sizes, b.sizes, sizeof(int64_t) * (size_t)b.nd);
        memcpy(c.st, t->strides, sizeof(int64_t) * (size_t)b.nd);
        st = ix_compact_run(&c);
    }
    clops_tensor_release(src);
    mask_bcast_free(&b);
    return begun ? structured_finish(&call, st, out) : st;
}
