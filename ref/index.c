/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ref/index.c: the C executor of the indexing family's gather plans
 * (ref/ref_index.h) on the CPU device, and the oracle the OpenCL kernels of
 * cl_kernels/index.cl are tested against.
 *
 * It walks the plan's iteration space in row-major order, copies element
 * bits (gathers never convert), checks every index value against the size
 * of the dim it addresses (wrapping negative values where the plan says)
 * and reports the first bad one with the op, the value, the dim and its
 * size, as PyTorch words it.  It also folds the segments of sorted
 * segment plans (the accumulating scatters) in entry order, and runs the
 * compactions of nonzero, masked_select and masked_scatter.
 */
#include <string.h>

#include "ref/ref.h"
#include "ref/ref_index.h"

/* Reads element `off` of an int32 or int64 index tensor. */
static int64_t load_index(const clops_tensor *t, int64_t off)
{
    const char *base = t->storage->host_ptr;
    if (t->dtype == CLOPS_INT32)
        return ((const int32_t *)(const void *)base)[off];
    return ((const int64_t *)(const void *)base)[off];
}

clops_status ref_index_gather(const ix_plan *p)
{
    size_t es = clops_dtype_size(p->out->dtype);
    char *out = p->out->storage->host_ptr;
    const char *src = p->src->storage->host_ptr;
    int64_t numel = 1;
    for (int d = 0; d < p->ndim; d++)
        numel *= p->sizes[d];
    int64_t coord[CLOPS_MAX_DIMS] = {0};
    int64_t o = p->out_off, s = p->src_off, io[IX_MAXK];
    for (int k = 0; k < p->nidx; k++)
        io[k] = p->idx_off[k];
    for (int64_t lin = 0; lin < numel; lin++) {
        int64_t so = s;
        for (int k = 0; k < p->nidx; k++) {
            int64_t v = load_index(p->idx[k], io[k]), n = p->ksize[k];
            int64_t w = (v < 0 && p->wrap) ? v + n : v;
            if (w < 0 || w >= n)
                return clops__fail(CLOPS_INDEX_OUT_OF_RANGE,
                                   "%s: index %lld is out of bounds for dimension %d with size %lld",
                                   p->op, (long long)v, p->kdim[k], (long long)n);
            so += w * p->kstride[k];
        }
        bool zero = false;
        if (p->tri && p->ndim >= 2) {
            int64_t diff = coord[p->ndim - 1] - coord[p->ndim - 2];
            zero = p->tri == IX_TRI_LOWER ? diff > p->tri_k : diff < p->tri_k;
        }
        if (zero)
            memset(out + o * (int64_t)es, 0, es);
        else
            memcpy(out + o * (int64_t)es, src + so * (int64_t)es, es);
        /* Next coordinate, row-major, updating offsets incrementally. */
        for (int d = p->ndim - 1; d >= 0; d--) {
            o += p->out_st[d];
            s += p->src_st[d];
            for (int k = 0; k < p->nidx; k++)
                io[k] += p->idx_st[k][d];
            if (++coord[d] < p->sizes[d])
                break;
            o -= p->out_st[d] * p->sizes[d];
            s -= p->src_st[d] * p->sizes[d];
            for (int k = 0; k < p->nidx; k++)
                io[k] -= p->idx_st[k][d] * p->sizes[d];
            coord[d] = 0;
        }
    }
    return CLOPS_OK;
}

/* Loads element i of a storage as the segment fold's compute value. */
static ref_value seg_load(const clops_tensor *t, int64_t i, bool isf)
{
    return ref_load(t->storage->host_ptr, i, t->dtype, isf ? t->dtype : CLOPS_INT64);
}

clops_status ref_index_segment(const ix_seg *s, int64_t nseg, const int64_t *seg_start,
                               const int64_t *seg_target, const int64_t *row_src)
{
    clops_dtype dt = s->self->dtype;
    bool isf = dt == CLOPS_FLOAT16 || dt == CLOPS_BFLOAT16 || dt == CLOPS_FLOAT32 ||
               dt == CLOPS_FLOAT64;
    /* Float folds run in float for 16/32-bit dtypes, as the kernels do. */
    bool narrow = isf && dt != CLOPS_FLOAT64;
    int64_t inner = 1;
    for (int d = 0; d < s->ndim; d++)
        inner *= s->sizes[d];
    const clops_scalar *a = &s->alpha;
    double af = a->kind == CLOPS_SCALAR_FLOAT ? a->v.f
                : a->kind == CLOPS_SCALAR_INT ? (double)a->v.i
                                              : (double)a->v.b;
    int64_t ai = a->kind == CLOPS_SCALAR_FLOAT ? (int64_t)a->v.f
                 : a->kind == CLOPS_SCALAR_INT ? a->v.i
                                               : (int64_t)a->v.b;
    for (int64_t g = 0; g < nseg; g++) {
        for (int64_t j = 0; j < inner; j++) {
            int64_t rem = j, so = seg_target[g], sr = 0;
            for (int d = s->ndim - 1; d >= 0; d--) {
                int64_t c = rem % s->sizes[d];
                rem /= s->sizes[d];
                so += c * s->self_st[d];
                sr += c * s->src_st[d];
            }
            int64_t k0 = seg_start[g], k1 = seg_start[g + 1];
            double f = 0;
            int64_t i = 0;
            if (s->mode == IX_SEG_COPY) {
                ref_value v = seg_load(s->src, row_src[k1 - 1] + sr, isf);
                f = v.f;
                i = v.i;
            } else {
                bool have = s->include_self;
                ref_value v0 = seg_load(s->self, so, isf);
                f = have ? v0.f : (s->mode == IX_SEG_PROD ? 1 : 0);
                i = have ? v0.i : (s->mode == IX_SEG_PROD ? 1 : 0);
                double sf = af;
                if (s->scale_count)
                    sf = narrow ? (double)(1.0f / (float)(k1 - k0)) : 1.0 / (double)(k1 - k0);
                for (int64_t k = k0; k < k1; k++) {
                    ref_value v = seg_load(s->src, row_src[k] + sr, isf);
                    if (s->mode == IX_SEG_SUM || s->mode == IX_SEG_MEAN) {
                        double m = s->mode == IX_SEG_SUM ? sf : 1.0;
                        f = narrow ? (double)((float)f + (float)v.f * (float)m) : f + v.f * m;
                        i = (int64_t)((uint64_t)i +
                                      (uint64_t)v.i * (uint64_t)(s->mode == IX_SEG_SUM ? ai : 1));
                    } else if (s->mode == IX_SEG_PROD) {
                        f = narrow ? (double)((float)f * (float)v.f) : f * v.f;
                        i = (int64_t)((uint64_t)i * (uint64_t)v.i);
                    } else if (!have) {
                        f = v.f;
                        i = v.i;
                    } else if (isf && (f != f || v.f != v.f)) {
                        f = f != f ? f : v.f;
                    } else if (s->mode == IX_SEG_AMAX) {
                        f = v.f > f ? v.f : f;
                        i = v.i > i ? v.i : i;
                    } else {
                        f = v.f < f ? v.f : f;
                        i = v.i < i ? v.i : i;
                    }
                    have = true;
                }
                if (s->mode == IX_SEG_MEAN) {
                    int64_t n = k1 - k0 + (s->include_self ? 1 : 0);
                    f = narrow ? (double)((float)f / (float)n) : f / (double)n;
                    /* floor division, without the overflow of -i */
                    i = i / n - (i % n != 0 && i < 0 ? 1 : 0);
                }
            }
            ref_value out;
            if (isf)
                out.f = f;
            else
                out.i = i;
            ref_store(s->self->storage->host_ptr, so, dt, isf ? dt : CLOPS_INT64, out);
        }
    }
    return CLOPS_OK;
}

/* Offset of element i (row-major over c's shape) in the strided tensor. */
static int64_t compact_offset(const ix_compact *c, int64_t i)
{
    int64_t o = c->off;
    for (int d = c->ndim - 1; d >= 0; d--) {
        o += (i % c->sizes[d]) * c->st[d];
        i /= c->sizes[d];
    }
    return o;
}

/* Runs a compaction (ref/ref_index.h) on host memory, in element order. */
clops_status ref_index_compact(const ix_compact *c)
{
    const int64_t *pos = c->n ? (const int64_t *)(const void *)c->pos->storage->host_ptr + c->pos->offset
                              : NULL;
    char *flat = c->flat->storage->host_ptr;
    int64_t *coords = (int64_t *)(void *)flat;
    size_t es = clops_dtype_size(c->flat->dtype);
    char *strided = c->strided ? c->strided->storage->host_ptr : NULL;
    for (int64_t i = 0; i < c->n; i++) {
        int64_t p = pos[i], row = p - 1;
        if (p == (i ? pos[i - 1] : 0))
            continue;
        int64_t fo = c->flat_off + row * c->flat_rs;
        if (c->mode == IX_CMP_COORDS) {
            if (row >= c->limit)
                continue;
            for (int64_t d = c->ndim - 1, rem = c->first + i; d >= 0; d--) {
                coords[fo + d * c->flat_cs] = rem % c->sizes[d];
                rem /= c->sizes[d];
            }
        } else if (c->mode == IX_CMP_SELECT) {
            memcpy(flat + fo * (int64_t)es, strided + compact_offset(c, i) * (int64_t)es, es);
        } else {
            memcpy(strided + compact_offset(c, i) * (int64_t)es, flat + fo * (int64_t)es, es);
        }
    }
    if (c->mode == IX_CMP_COORDS && c->fill)
        for (int64_t r = c->n ? pos[c->n - 1] : 0; r < c->limit; r++)
            for (int d = 0; d < c->ndim; d++)
                coords[c->flat_off + r * c->flat_rs + d * c->flat_cs] = c->fill_value;
    return CLOPS_OK;
}
