/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ref/ref_index.h: the C executors of the indexing family (ref/index.c):
 * the CPU device runs them (through ops/index/) and the tests use them as
 * the oracle of cl_kernels/index.cl.  Their arguments are the family's
 * three descriptions of an indexing op (ops/index/index.h says which op
 * builds which): a gather (an iteration space, strides and index tensors),
 * a segment fold (the accumulating scatters) and a compaction (nonzero,
 * masked_select, masked_scatter).
 */
#ifndef CLOPS_REF_REF_INDEX_H
#define CLOPS_REF_REF_INDEX_H

#include <stdbool.h>
#include <stdint.h>

#include "core/tensor_impl.h"

/* Index tensors one plan can hold. */
#define IX_MAXK 4
/* Dims one kernel launch walks; a plan of more dims (after coalescing) is
 * split into launches over its outer dims. */
#define IX_MAXD 8

/* Which elements a gather plan writes: all, or a triangle. */
typedef enum ix_tri { IX_TRI_NONE = 0, IX_TRI_LOWER = 1, IX_TRI_UPPER = 2 } ix_tri;

/* A gather plan (see above).  Strides are in elements of each tensor's own
 * storage; offsets include the tensors' storage offsets. */
typedef struct ix_plan {
    const char *op; /* names the op in errors */
    int ndim;
    int64_t sizes[CLOPS_MAX_DIMS];
    clops_tensor *out;
    int64_t out_st[CLOPS_MAX_DIMS];
    int64_t out_off;
    const clops_tensor *src;
    int64_t src_st[CLOPS_MAX_DIMS];
    int64_t src_off;
    int nidx;
    const clops_tensor *idx[IX_MAXK];
    int64_t idx_st[IX_MAXK][CLOPS_MAX_DIMS];
    int64_t idx_off[IX_MAXK];
    int64_t ksize[IX_MAXK];   /* size of the source dim index k addresses */
    int64_t kstride[IX_MAXK]; /* its stride */
    int kdim[IX_MAXK];        /* its number, for messages */
    bool wrap;                /* negative indices count from the end */
    ix_tri tri;               /* triangle mode over the last two dims */
    int64_t tri_k;            /* diagonal offset */
} ix_plan;

/* The C executor of a gather plan (ref/index.c): same semantics, host
 * memory.  ix_gather_run calls it on the CPU device. */
clops_status ref_index_gather(const ix_plan *p);

/* A segment plan (ops/index/index_scatter.c): n entries, each writing self at
 * target[i] (+ the inner offsets; -1 skips the entry) from src at
 * srcoff[i] (+ inner), folded per target in entry order. */
typedef enum ix_seg_mode {
    IX_SEG_COPY = 0, /* the last entry wins */
    IX_SEG_SUM = 1,  /* times alpha */
    IX_SEG_PROD = 2,
    IX_SEG_MEAN = 3,
    IX_SEG_AMAX = 4,
    IX_SEG_AMIN = 5
} ix_seg_mode;

typedef struct ix_seg {
    const char *op;
    clops_tensor *self;      /* written in place */
    const clops_tensor *src; /* same dtype and device as self */
    int ndim;                /* inner dims walked by every entry */
    int64_t sizes[IX_MAXD];
    int64_t self_st[IX_MAXD];
    int64_t src_st[IX_MAXD];
    int64_t n;
    int64_t *target; /* malloc'd, freed by ix_segment_run */
    int64_t *srcoff; /* malloc'd, freed by ix_segment_run */
    ix_seg_mode mode;
    bool include_self;
    bool scale_count;
    clops_scalar alpha;
} ix_seg;

/* The C executor of a sorted segment plan: segments [seg_start[k],
 * seg_start[k+1]) of entries reading src at row_src, writing self at
 * seg_target[k]. */
clops_status ref_index_segment(const ix_seg *s, int64_t nseg, const int64_t *seg_start,
                               const int64_t *seg_target, const int64_t *row_src);
/* A compaction by a scan (ops/index/index_nonzero.c): pos (int64, contiguous,
 * n elements) is the inclusive cumsum of a mask walked row-major over
 * `sizes`; element i is selected when pos[i] steps up, and then maps to
 * packed row pos[i] - 1 of `flat` (offset flat_off, row stride flat_rs,
 * column stride flat_cs).  Modes:
 *   IX_CMP_COORDS   flat[row, d] = coordinate d of element first + i of
 *                   `sizes` (pos covers a chunk of the row-major order that
 *                   starts there; rows >= limit are dropped; with fill, rows
 *                   count..limit-1 get fill_value);
 *   IX_CMP_SELECT   flat[row] = strided[i] (strided: st, off);
 *   IX_CMP_SCATTER  strided[i] = flat[row]. */
typedef enum ix_cmp_mode { IX_CMP_COORDS = 0, IX_CMP_SELECT = 1, IX_CMP_SCATTER = 2 } ix_cmp_mode;

typedef struct ix_compact {
    const char *op;
    ix_cmp_mode mode;
    int ndim;
    int64_t sizes[CLOPS_MAX_DIMS];
    const clops_tensor *pos;
    int64_t n, first;
    clops_tensor *flat;
    int64_t flat_off, flat_rs, flat_cs;
    clops_tensor *strided;
    int64_t st[CLOPS_MAX_DIMS];
    int64_t off;
    int64_t limit;
    bool fill;
    int64_t fill_value;
} ix_compact;

/* The C executor of a compaction (ref/index.c). */
clops_status ref_index_compact(const ix_compact *c);

#endif /* CLOPS_REF_REF_INDEX_H */
