/*
 * ref/index.c: the C executor of the indexing family's gather plans
 * (ops/index.h) on the CPU device, and the oracle the OpenCL kernels of
 * cl_kernels/index.cl are tested against.
 *
 * It walks the plan's iteration space in row-major order, copies element
 * bits (gathers never convert), checks every index value against the size
 * of the dim it addresses (wrapping negative values where the plan says)
 * and reports the first bad one with the op, the value, the dim and its
 * size, as PyTorch words it.
 */
#include <string.h>

#include "ops/index.h"

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
