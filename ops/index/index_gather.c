/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ops/index/index_gather.c: builds, simplifies and runs gather plans (ops/index/index.h)
 * on the CPU device (ref/index.c) and on OpenCL devices
 * (cl_kernels/index.cl), with the device-side check of index ranges.
 *
 * Simplification drops size-1 dims and merges neighbouring dims that every
 * array walks contiguously, so most plans run at rank 1-3.  Kernels are
 * specialised on that rank, the number of index tensors and the offset width
 * (one program per combination, holding the eight element-size x index-type
 * kernels), never on shapes or values.
 *
 * The range check costs one small read after the launch: the host waits
 * for the kernel before returning (docs/index.md).  A bad index is reported
 * as "<op>: index V is out of bounds for dimension D with size N".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/host.h"
#include "ops/index/index.h"
#include "ops/kit/kit.h"

void ix_plan_init(ix_plan *p, const char *op, clops_tensor *out, const clops_tensor *src,
                  const int64_t *src_st, int64_t src_off)
{
    memset(p, 0, sizeof *p);
    p->op = op;
    p->ndim = out->ndim;
    p->out = out;
    p->out_off = out->offset;
    p->src = src;
    p->src_off = src_off;
    for (int d = 0; d < out->ndim; d++) {
        p->sizes[d] = out->sizes[d];
        p->out_st[d] = out->strides[d];
        p->src_st[d] = src_st[d];
    }
}

clops_status ix_plan_add_index(ix_plan *p, const clops_tensor *idx, const int64_t *idx_st,
                               int dim, int64_t size, int64_t stride)
{
    if (p->nidx >= IX_MAXK)
        return clops__fail(CLOPS_UNSUPPORTED, "%s: at most %d index tensors are supported",
                           p->op, IX_MAXK);
    int k = p->nidx++;
    p->idx[k] = idx;
    p->idx_off[k] = idx->offset;
    for (int d = 0; d < p->ndim; d++)
        p->idx_st[k][d] = idx_st[d];
    p->kdim[k] = dim;
    p->ksize[k] = size;
    p->kstride[k] = stride;
    return CLOPS_OK;
}

clops_status ix_check_index_dtype(const char *op, const char *what, const clops_tensor *t,
                                  bool long_only)
{
    if (t->dtype == CLOPS_INT64 || (!long_only && t->dtype == CLOPS_INT32))
        return CLOPS_OK;
    return clops__fail(CLOPS_INVALID_DTYPE, "%s: expected %s for %s, but got %s", op,
                       long_only ? "an int64 tensor" : "an int32 or int64 tensor", what,
                       clops_dtype_name(t->dtype));
}

clops_status ix_check_same_device(const char *op, const clops_tensor *a, const clops_tensor *b)
{
    if (a->storage->device == b->storage->device)
        return CLOPS_OK;
    char da[160], db[160];
    return clops__fail(CLOPS_DEVICE_MISMATCH, "%s: tensors on different devices: %s and %s", op,
                       tensor_describe(a, da, sizeof da), tensor_describe(b, db, sizeof db));
}

/* Removes dim d of the plan. */
static void drop_dim(ix_plan *p, int d)
{
    for (int e = d; e + 1 < p->ndim; e++) {
        p->sizes[e] = p->sizes[e + 1];
        p->out_st[e] = p->out_st[e + 1];
        p->src_st[e] = p->src_st[e + 1];
        for (int k = 0; k < p->nidx; k++)
            p->idx_st[k][e] = p->idx_st[k][e + 1];
    }
    p->ndim--;
}

/* Whether dims d and d+1 can become one: every array steps from the last
 * element of d+1 to the next of d by the same stride. */
static bool mergeable(const ix_plan *p, int d)
{
    int64_t n = p->sizes[d + 1];
    if (p->out_st[d] != p->out_st[d + 1] * n || p->src_st[d] != p->src_st[d + 1] * n)
        return false;
    for (int k = 0; k < p->nidx; k++)
        if (p->idx_st[k][d] != p->idx_st[k][d + 1] * n)
            return false;
    return true;
}

/* Drops size-1 dims and merges contiguous neighbours (the triangle mode
 * keeps its last two dims). */
static void simplify(ix_plan *p)
{
    int keep = p->tri ? 2 : 0;
    for (int d = p->ndim - 1 - keep; d >= 0; d--)
        if (p->sizes[d] == 1 && p->ndim > 1)
            drop_dim(p, d);
    for (int d = p->ndim - 2 - keep; d >= 0; d--)
        if (mergeable(p, d)) {
            p->sizes[d] *= p->sizes[d + 1];
            p->out_st[d] = p->out_st[d + 1];
            p->src_st[d] = p->src_st[d + 1];
            for (int k = 0; k < p->nidx; k++)
                p->idx_st[k][d] = p->idx_st[k][d + 1];
            drop_dim(p, d + 1); /* dim d now holds both */
        }
    if (p->ndim == 0) {
        p->ndim = 1;
        p->sizes[0] = 1;
        p->out_st[0] = p->src_st[0] = 0;
        for (int k = 0; k < p->nidx; k++)
            p->idx_st[k][0] = 0;
    }
}

/* Largest |offset| an array reaches over the plan. */
static uint64_t reach(const ix_plan *p, const int64_t *st, int64_t off)
{
    uint64_t r = (uint64_t)(off < 0 ? -off : off);
    for (int d = 0; d < p->ndim; d++)
        r += (uint64_t)(p->sizes[d] - 1) * (uint64_t)(st[d] < 0 ? -st[d] : st[d]);
    return r;
}

/* Whether 32-bit offset arithmetic is exact for the plan. */
static bool fits_int32(const ix_plan *p, int64_t numel)
{
    const uint64_t lim = 0x7fffffffu;
    if ((uint64_t)numel > lim || reach(p, p->out_st, p->out_off) > lim)
        return false;
    uint64_t s = reach(p, p->src_st, p->src_off);
    for (int k = 0; k < p->nidx; k++) {
        if (reach(p, p->idx_st[k], p->idx_off[k]) > lim)
            return false;
        s += (uint64_t)p->ksize[k] * (uint64_t)(p->kstride[k] < 0 ? -p->kstride[k] : p->kstride[k]);
    }
    return s <= lim;
}

/* The kernel arguments' geometry; mirrors ix_geom in cl_kernels/index.cl. */
typedef struct ix_geom {
    int64_t sizes[IX_MAXD];
    int64_t out_st[IX_MAXD];
    int64_t src_st[IX_MAXD];
    int64_t idx_st[IX_MAXK][IX_MAXD];
    int64_t idx_off[IX_MAXK];
    int64_t ksize[IX_MAXK];
    int64_t kstride[IX_MAXK];
    int64_t out_off, src_off, numel, wrap, tri, tri_k;
} ix_geom;

/* What selects a gather kernel. */
typedef struct gather_spec {
    int ndim, nidx, i64, elsize, idx64;
} gather_spec;

clops_status ix_kernel(clops_device *d, const host_kkey *key, const char *pname,
                       const char *kname, const char *options, const char *op,
                       host_kernel **out)
{
    *out = kit_find(d, key);
    if (*out)
        return CLOPS_OK;
    kit_program p = {.name = pname,
                     .headers = {"items.clh"},
                     .file = "index.cl",
                     .build_options = options};
    return kit_build(d, key, &p, kname, op, out);
}

clops_status ix_segment_kernel(clops_device *d, const host_kkey *key, const char *kname,
                               const char *op, host_kernel **out)
{
    return ix_kernel(d, key, "index/segment", kname, "-DIX_SEGMENT=1", op, out);
}

/* Finds (or builds) the kernel of spec on d. */
static clops_status gather_kernel(clops_device *d, const gather_spec *s, host_kernel **out)
{
    host_kkey key = {{(0x20ull << 56) | ((uint64_t)s->ndim << 32) | ((uint64_t)s->nidx << 24) |
                          ((uint64_t)s->i64 << 16) | ((uint64_t)s->elsize << 8) |
                          (uint64_t)s->idx64,
                      0, 0, 0}};
    *out = kit_find(d, &key);
    if (*out)
        return CLOPS_OK;
    char pname[64], kname[64], opts[96];
    snprintf(pname, sizeof pname, "index/gather_r%d_k%d_%s", s->ndim, s->nidx,
             s->i64 ? "i64" : "i32");
    snprintf(kname, sizeof kname, "ix_gather_%d_%s", s->elsize, s->idx64 ? "i64" : "i32");
    snprintf(opts, sizeof opts, "-DIX_NDIM=%d -DIX_NIDX=%d -DIX_I64=%d", s->ndim, s->nidx, s->i64);
    return ix_kernel(d, &key, pname, kname, opts, NULL, out);
}

/* cl_mem of a tensor's storage (NULL for an empty one). */
static cl_mem mem_of(const clops_tensor *t)
{
    return t->storage->block ? t->storage->block->mem : NULL;
}

/* Widens a plan whose innermost dim is a contiguous run in the result and
 * the source, not indexed, to elements of `to` bytes (8 or 16): every
 * size, stride and offset of that dim scaled down by the width.  False
 * (p untouched) when a size, stride or offset does not divide. */
static bool widen(ix_plan *p, int64_t *numel, int *elsize, int to)
{
    int w = to / *elsize, last = p->ndim - 1;
    if (w < 2 || p->tri || last < 0 || p->out_st[last] != 1 || p->src_st[last] != 1 ||
        p->sizes[last] % w || p->out_off % w || p->src_off % w)
        return false;
    for (int d = 0; d < last; d++)
        if (p->out_st[d] % w || p->src_st[d] % w)
            return false;
    for (int k = 0; k < p->nidx; k++)
        if (p->idx_st[k][last] != 0 || p->kstride[k] % w)
            return false;
    p->sizes[last] /= w;
    for (int d = 0; d < last; d++) {
        p->out_st[d] /= w;
        p->src_st[d] /= w;
    }
    for (int k = 0; k < p->nidx; k++)
        p->kstride[k] /= w;
    p->out_off /= w;
    p->src_off /= w;
    *numel /= w;
    *elsize = to;
    return true;
}

/* One launch of a plan of at most IX_MAXD dims; rows that allow it move
 * 16 (or 8) bytes per work item. */
static clops_status launch_one(clops_device *d, const ix_plan *plan, int64_t numel, cl_mem err)
{
    ix_plan wide = *plan;
    const ix_plan *p = &wide;
    int elsize = (int)clops_dtype_size(plan->out->dtype);
    if (!widen(&wide, &numel, &elsize, 16))
        widen(&wide, &numel, &elsize, 8);
    gather_spec s = {p->ndim, p->nidx, !fits_int32(p, numel), elsize,
                     p->nidx && p->idx[0]->dtype == CLOPS_INT64};
    if (p->nidx == 0)
        s.idx64 = 1;
    host_kernel *k = NULL;
    clops_status st = gather_kernel(d, &s, &k);
    if (st)
        return clops__error_prefix(st, "%s", p->op);
    ix_geom g;
    memset(&g, 0, sizeof g);
    for (int i = 0; i < p->ndim; i++) {
        g.sizes[i] = p->sizes[i];
        g.out_st[i] = p->out_st[i];
        g.src_st[i] = p->src_st[i];
        for (int j = 0; j < p->nidx; j++)
            g.idx_st[j][i] = p->idx_st[j][i];
    }
    for (int j = 0; j < p->nidx; j++) {
        g.idx_off[j] = p->idx_off[j];
        g.ksize[j] = p->ksize[j];
        g.kstride[j] = p->kstride[j];
    }
    g.out_off = p->out_off;
    g.src_off = p->src_off;
    g.numel = numel;
    g.wrap = p->wrap;
    g.tri = p->tri;
    g.tri_k = p->tri_k;
    cl_mem mo = mem_of(p->out), ms = mem_of(p->src), mi[IX_MAXK];
    for (int j = 0; j < IX_MAXK; j++)
        mi[j] = j < p->nidx ? mem_of(p->idx[j]) : mo;
    host_arg args[8] = {{sizeof(cl_mem), &mo}, {sizeof(cl_mem), &ms},    {sizeof(cl_mem), &mi[0]},
                        {sizeof(cl_mem), &mi[1]}, {sizeof(cl_mem), &mi[2]}, {sizeof(cl_mem), &mi[3]},
                        {sizeof(cl_mem), &err}, {sizeof g, &g}};
    st = host_launch_items(d, k, 8, args, (uint64_t)numel);
    return st ? clops__error_prefix(st, "%s", p->op) : CLOPS_OK;
}

/* The error for index k holding value v. */
static clops_status range_error(const ix_plan *p, int64_t v, int k)
{
    if (k < 0 || k >= p->nidx)
        k = 0;
    return clops__fail(CLOPS_INDEX_OUT_OF_RANGE,
                       "%s: index %lld is out of bounds for dimension %d with size %lld", p->op,
                       (long long)v, p->kdim[k], (long long)p->ksize[k]);
}

/* Launches a plan on an OpenCL device: one launch, or one per coordinate of
 * the outer dims beyond IX_MAXD; then reads the range flag. */
static clops_status run_opencl(clops_device *d, const ix_plan *p, int64_t numel)
{
    host_block *eb = NULL;
    clops_status st = CLOPS_OK;
    if (p->nidx) {
        st = host_alloc(d, 32, &eb);
        if (st == CLOPS_OK)
            st = host_fill_zero(d, eb->mem, 0, 32);
    }
    cl_mem err = eb ? eb->mem : mem_of(p->out);
    if (st == CLOPS_OK && p->ndim <= IX_MAXD) {
        st = launch_one(d, p, numel, err);
    } else if (st == CLOPS_OK) {
        int outer = p->ndim - IX_MAXD;
        int64_t nouter = 1, inner = 1;
        for (int i = 0; i < outer; i++)
            nouter *= p->sizes[i];
        for (int i = outer; i < p->ndim; i++)
            inner *= p->sizes[i];
        ix_plan q = *p;
        q.ndim = IX_MAXD;
        memmove(q.sizes, p->sizes + outer, IX_MAXD * sizeof(int64_t));
        memmove(q.out_st, p->out_st + outer, IX_MAXD * sizeof(int64_t));
        memmove(q.src_st, p->src_st + outer, IX_MAXD * sizeof(int64_t));
        for (int k = 0; k < p->nidx; k++)
            memmove(q.idx_st[k], p->idx_st[k] + outer, IX_MAXD * sizeof(int64_t));
        for (int64_t o = 0; o < nouter && st == CLOPS_OK; o++) {
            int64_t rem = o;
            q.out_off = p->out_off;
            q.src_off = p->src_off;
            for (int k = 0; k < p->nidx; k++)
                q.idx_off[k] = p->idx_off[k];
            for (int i = outer - 1; i >= 0; i--) {
                int64_t c = rem % p->sizes[i];
                rem /= p->sizes[i];
                q.out_off += c * p->out_st[i];
                q.src_off += c * p->src_st[i];
                for (int k = 0; k < p->nidx; k++)
                    q.idx_off[k] += c * p->idx_st[k][i];
            }
            st = launch_one(d, &q, inner, err);
        }
    }
    if (st == CLOPS_OK && eb) {
        int64_t e[3] = {0, 0, 0};
        st = host_read(d, eb->mem, 0, e, sizeof e);
        if (st == CLOPS_OK && (int32_t)e[0] != 0)
            st = range_error(p, e[1], (int)e[2]);
    }
    host_free(eb);
    return st;
}

clops_status ix_gather_run(ix_plan *p)
{
    int64_t numel = 1;
    for (int d = 0; d < p->ndim; d++)
        numel *= p->sizes[d];
    if (numel == 0)
        return CLOPS_OK;
    clops_device *d = p->out->storage->device;
    clops_status st = ix_check_same_device(p->op, p->out, p->src);
    for (int k = 0; k < p->nidx && st == CLOPS_OK; k++)
        st = ix_check_same_device(p->op, p->out, p->idx[k]);
    if (st)
        return st;
    simplify(p);
    return kit_is_host(d) ? ref_index_gather(p) : run_opencl(d, p, numel);
}

clops_status ix_read_int_elems(const clops_tensor *t, int64_t **vals, int64_t *n)
{
    *vals = NULL;
    *n = tensor_numel(t);
    clops_tensor *h = NULL;
    clops_status st = core_to_copy((clops_tensor *)t, CLOPS_INT64, NULL, &h);
    int64_t *v = malloc((size_t)(*n ? *n : 1) * sizeof *v);
    if (st == CLOPS_OK && !v)
        st = clops__fail(CLOPS_HOST_OUT_OF_MEMORY, "out of host memory");
    if (st == CLOPS_OK)
        st = clops_tensor_to_host(h, v, (size_t)*n * sizeof *v);
    clops_tensor_release(h);
    if (st) {
        free(v);
        return st;
    }
    *vals = v;
    return CLOPS_OK;
}
