/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ops/index/index_segment.c: runs segment plans (ops/index/index.h), the deterministic
 * engine of the accumulating and overwriting scatters.
 *
 * The entries (one per index element, holding the self offset it targets
 * and the source offset it reads) are sorted by target on the host with a
 * stable sort, so every target's entries stay in source order; each
 * target's run is a segment.  The fold over a segment happens in that
 * order on every device (ref/index.c on the CPU device, ix_segment_<dtype>
 * of cl_kernels/index.cl on OpenCL devices), so the result is the same
 * bits on every run, with no atomics.  The index values were read to the
 * host to build the entries: that read waits for the queue (docs/index.md).
 *
 * ix_scatter_lines serves scatter/scatter_add/scatter_reduce on OpenCL
 * devices when self's scatter dim is short (IX_LINE_MAX): each target scans
 * its line of the index on the device, in source order, so nothing is read
 * to the host but the range flag.  On CPU devices a work item walks whole
 * lines once each, folding every entry into its target's slot
 * (ix_lines_cpu_<dtype>: the same order per target, the same bits).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/host.h"
#include "ops/index/index.h"
#include "ops/kit/kit.h"
#include "ops/kit/lines.h"

/* Sort key: target, then entry number (stability). */
typedef struct seg_key {
    int64_t target, entry;
} seg_key;

static int cmp_key(const void *a, const void *b)
{
    const seg_key *x = a, *y = b;
    if (x->target != y->target)
        return x->target < y->target ? -1 : 1;
    return (x->entry > y->entry) - (x->entry < y->entry);
}

/* Stable counting sort of the entries by target when the targets span a
 * range not much larger than their number (the usual case): O(n + range)
 * instead of qsort's O(n log n). */
static clops_status counting_sort(const ix_seg *s, int64_t lo, int64_t range, seg_key *keys,
                                  int64_t *nout)
{
    int64_t *count = calloc((size_t)range + 1, sizeof *count);
    if (!count)
        return clops__fail(CLOPS_HOST_OUT_OF_MEMORY, "%s: out of host memory", s->op);
    for (int64_t i = 0; i < s->n; i++)
        if (s->target[i] >= 0)
            count[s->target[i] - lo + 1]++;
    for (int64_t r = 0; r < range; r++)
        count[r + 1] += count[r];
    for (int64_t i = 0; i < s->n; i++)
        if (s->target[i] >= 0)
            keys[count[s->target[i] - lo]++] = (seg_key){s->target[i], i};
    *nout = count[range - 1];
    free(count);
    return CLOPS_OK;
}

/* Kernel geometry; mirrors ix_sgeom in cl_kernels/index.cl. */
typedef struct ix_sgeom {
    int64_t sizes[IX_MAXD];
    int64_t self_st[IX_MAXD];
    int64_t src_st[IX_MAXD];
    int64_t ndim, inner, nseg, mode, include_self, scale_count, alpha_i;
    double alpha_f;
} ix_sgeom;

/* Uploads n int64 values as a tensor on d. */
static clops_status upload(clops_device *d, const int64_t *v, int64_t n, clops_tensor **out)
{
    int64_t m = n ? n : 1;
    static const int64_t zero = 0;
    return clops_from_host(d, CLOPS_INT64, 1, &m, n ? v : &zero, (size_t)m * sizeof *v, out);
}

static cl_mem mem_of(const clops_tensor *t)
{
    return t->storage->block ? t->storage->block->mem : NULL;
}

/* Launches the segment kernel of self's dtype. */
static clops_status launch(const ix_seg *s, int64_t nseg, const int64_t *seg_start,
                           const int64_t *seg_target, const int64_t *row_src, int64_t nrows)
{
    clops_device *d = s->self->storage->device;
    clops_status st = check_dtype_on_device(s->op, s->self->dtype, d);
    if (st)
        return st;
    host_kkey key = {{(0x21ull << 56) | (uint64_t)s->self->dtype, 0, 0, 0}};
    host_kernel *k = kit_find(d, &key);
    if (!k) {
        char kname[64];
        snprintf(kname, sizeof kname, "ix_segment_%s", clops_dtype_name(s->self->dtype));
        st = ix_segment_kernel(d, &key, kname, s->op, &k);
        if (st)
            return st;
    }
    clops_tensor *t_start = NULL, *t_target = NULL, *t_rows = NULL;
    st = upload(d, seg_start, nseg + 1, &t_start);
    if (st == CLOPS_OK)
        st = upload(d, seg_target, nseg, &t_target);
    if (st == CLOPS_OK)
        st = upload(d, row_src, nrows, &t_rows);
    if (st == CLOPS_OK) {
        ix_sgeom g;
        memset(&g, 0, sizeof g);
        g.inner = 1;
        for (int i = 0; i < s->ndim; i++) {
            g.sizes[i] = s->sizes[i];
            g.self_st[i] = s->self_st[i];
            g.src_st[i] = s->src_st[i];
            g.inner *= s->sizes[i];
        }
        g.ndim = s->ndim;
        g.nseg = nseg;
        g.mode = s->mode;
        g.include_self = s->include_self;
        g.scale_count = s->scale_count;
        const clops_scalar *a = &s->alpha;
        g.alpha_f = a->kind == CLOPS_SCALAR_FLOAT ? a->v.f
                    : a->kind == CLOPS_SCALAR_INT ? (double)a->v.i
                                                  : (double)a->v.b;
        g.alpha_i = a->kind == CLOPS_SCALAR_FLOAT ? (int64_t)a->v.f
                    : a->kind == CLOPS_SCALAR_INT ? a->v.i
                                                  : (int64_t)a->v.b;
        cl_mem m[5] = {mem_of(s->self), mem_of(s->src), mem_of(t_start), mem_of(t_target),
                       mem_of(t_rows)};
        host_arg args[6] = {{sizeof(cl_mem), &m[0]}, {sizeof(cl_mem), &m[1]},
                            {sizeof(cl_mem), &m[2]}, {sizeof(cl_mem), &m[3]},
                            {sizeof(cl_mem), &m[4]}, {sizeof g, &g}};
        st = host_launch_items(d, k, 6, args, (uint64_t)(nseg * g.inner));
        if (st)
            clops__error_prefix(st, "%s", s->op);
    }
    /* The in-order queue runs any later reuse of these buffers after the
     * kernel, so releasing them now is safe. */
    clops_tensor_release(t_start);
    clops_tensor_release(t_target);
    clops_tensor_release(t_rows);
    return st;
}

clops_status ix_seg_alloc(ix_seg *s, int64_t n)
{
    s->n = n;
    s->target = malloc((size_t)(n ? n : 1) * sizeof(int64_t));
    s->srcoff = malloc((size_t)(n ? n : 1) * sizeof(int64_t));
    if (s->target && s->srcoff)
        return CLOPS_OK;
    free(s->target);
    free(s->srcoff);
    s->target = s->srcoff = NULL;
    return clops__fail(CLOPS_HOST_OUT_OF_MEMORY, "%s: out of host memory for %lld entries",
                       s->op, (long long)n);
}

clops_status ix_segment_run(ix_seg *s)
{
    seg_key *keys = NULL;
    int64_t *seg_start = NULL, *seg_target = NULL, *row_src = NULL;
    int64_t inner = 1, n = 0, nseg = 0;
    for (int i = 0; i < s->ndim; i++)
        inner *= s->sizes[i];
    clops_status st = ix_check_same_device(s->op, s->self, s->src);
    if (st == CLOPS_OK && s->n > 0 && inner > 0) {
        keys = malloc((size_t)s->n * sizeof *keys);
        seg_start = malloc((size_t)(s->n + 1) * sizeof *seg_start);
        seg_target = malloc((size_t)s->n * sizeof *seg_target);
        row_src = malloc((size_t)s->n * sizeof *row_src);
        if (!keys || !seg_start || !seg_target || !row_src)
            st = clops__fail(CLOPS_HOST_OUT_OF_MEMORY, "%s: out of host memory for %lld entries",
                             s->op, (long long)s->n);
    }
    if (st == CLOPS_OK && keys) {
        int64_t lo = INT64_MAX, hi = -1;
        for (int64_t i = 0; i < s->n; i++)
            if (s->target[i] >= 0) {
                lo = s->target[i] < lo ? s->target[i] : lo;
                hi = s->target[i] > hi ? s->target[i] : hi;
            }
        int64_t range = hi >= lo ? hi - lo + 1 : 0;
        if (range > 0 && range <= 4 * s->n + (1 << 20))
            st = counting_sort(s, lo, range, keys, &n);
        else {
            for (int64_t i = 0; i < s->n; i++)
                if (s->target[i] >= 0)
                    keys[n++] = (seg_key){s->target[i], i};
            qsort(keys, (size_t)n, sizeof *keys, cmp_key);
        }
    }
    if (st == CLOPS_OK && keys) {
        for (int64_t i = 0; i < n; i++) {
            if (i == 0 || keys[i].target != keys[i - 1].target) {
                seg_start[nseg] = i;
                seg_target[nseg++] = keys[i].target;
            }
            row_src[i] = s->srcoff[keys[i].entry];
        }
        seg_start[nseg] = n;
        if (nseg > 0)
            st = kit_is_host(s->self->storage->device)
                     ? ref_index_segment(s, nseg, seg_start, seg_target, row_src)
                     : launch(s, nseg, seg_start, seg_target, row_src, n);
    }
    free(keys);
    free(seg_start);
    free(seg_target);
    free(row_src);
    free(s->target);
    free(s->srcoff);
    s->target = s->srcoff = NULL;
    return st;
}

/* Line geometry; mirrors ix_lgeom in cl_kernels/index.cl. */
typedef struct ix_lgeom {
    int64_t sizes[IX_MAXD];
    int64_t self_st[IX_MAXD];
    int64_t idx_st[IX_MAXD];
    int64_t src_st[IX_MAXD];
    int64_t ndim, nlines, self_len, idx_len, self_d, idx_d, src_d, self_off, idx_off, src_off,
        mode, include_self;
} ix_lgeom;

clops_status ix_scatter_lines(const char *op, clops_tensor *self, int dim,
                              const clops_tensor *index, const clops_tensor *src,
                              ix_seg_mode mode, bool include_self, bool *used)
{
    *used = false;
    clops_device *d = self->storage->device;
    if (kit_is_host(d) || index->dtype != CLOPS_INT64 || self->ndim < 1 ||
        index->ndim != self->ndim || index->ndim > IX_MAXD ||
        self->sizes[dim] > IX_LINE_MAX || (src->ndim != 0 && src->ndim != index->ndim))
        return CLOPS_OK;
    clops_status st = ix_check_same_device(op, self, src);
    if (st == CLOPS_OK)
        st = ix_check_same_device(op, self, index);
    if (st == CLOPS_OK)
        st = check_dtype_on_device(op, self->dtype, d);
    if (st)
        return st;
    *used = true;
    ix_lgeom g;
    memset(&g, 0, sizeof g);
    g.ndim = index->ndim;
    g.nlines = 1;
    for (int i = 0; i < index->ndim; i++) {
        g.sizes[i] = i == dim ? 1 : index->sizes[i];
        g.self_st[i] = self->strides[i];
        g.idx_st[i] = index->strides[i];
        g.src_st[i] = src->ndim ? src->strides[i] : 0;
        g.nlines *= g.sizes[i];
    }
    g.self_len = self->sizes[dim];
    g.idx_len = index->sizes[dim];
    g.self_d = self->strides[dim];
    g.idx_d = index->strides[dim];
    g.src_d = src->ndim ? src->strides[dim] : 0;
    g.self_off = self->offset;
    g.idx_off = index->offset;
    g.src_off = src->offset;
    g.mode = mode;
    g.include_self = include_self;
    if (g.nlines == 0 || g.idx_len == 0)
        return CLOPS_OK;
    /* An empty line of self takes no index value: the host path reads the
     * index and names the first one out of bounds, as PyTorch does. */
    if (g.self_len == 0) {
        *used = false;
        return CLOPS_OK;
    }
    /* CPU devices: whole lines per work item (ix_lines_cpu_<dtype>). */
    bool cpu = kit_is_cpu(d);
    host_kkey key = {{(0x24ull << 56) | ((uint64_t)cpu << 16) | (uint64_t)self->dtype, 0, 0, 0}};
    host_kernel *k = kit_find(d, &key);
    if (!k) {
        char kname[64];
        snprintf(kname, sizeof kname, cpu ? "ix_lines_cpu_%s" : "ix_lines_%s",
                 clops_dtype_name(self->dtype));
        st = ix_segment_kernel(d, &key, kname, op, &k);
        if (st)
            return st;
    }
    host_block *eb = NULL;
    st = host_alloc(d, 32, &eb);
    if (st == CLOPS_OK)
        st = host_fill_zero(d, eb->mem, 0, 32);
    if (st == CLOPS_OK) {
        cl_mem m[4] = {mem_of(self), mem_of(src), mem_of(index), eb->mem};
        cl_long per = ops_cpu_units_per_item(d, g.nlines);
        host_arg args[6] = {{sizeof(cl_mem), &m[0]}, {sizeof(cl_mem), &m[1]},
                            {sizeof(cl_mem), &m[2]}, {sizeof(cl_mem), &m[3]},
                            {sizeof g, &g},          {sizeof per, &per}};
        /* One work-group of 64 items (IX_LWG) per line, grid-strided; on
         * CPU devices `per` lines per work item of one. */
        uint64_t groups = (uint64_t)g.nlines < 65536 ? (uint64_t)g.nlines : 65536;
        st = cpu ? host_launch_local(d, k, 6, args, (size_t)ops_cdiv(g.nlines, per), 1)
                 : host_launch_local(d, k, 5, args, (size_t)(groups * 64), 64);
        if (st)
            clops__error_prefix(st, "%s", op);
    }
    if (st == CLOPS_OK) {
        int64_t e[3] = {0, 0, 0};
        st = host_read(d, eb->mem, 0, e, sizeof e);
        if (st == CLOPS_OK && (int32_t)e[0] != 0)
            st = clops__fail(CLOPS_INDEX_OUT_OF_RANGE,
                             "%s: index %lld is out of bounds for dimension %d with size %lld",
                             op, (long long)e[1], dim, (long long)g.self_len);
    }
    host_free(eb);
    return st;
}
