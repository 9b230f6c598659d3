/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ops/index/index.h: the indexing family's internal interface (index_select,
 * gather, take, embedding, index.Tensor, cat, flip, tril, scatter, ...).
 *
 * Most selecting ops are one *gather plan*: an iteration space (the result's
 * shape, up to CLOPS_MAX_DIMS dims), the result's and the source's strides
 * over it, and up to IX_MAXK index tensors whose values, bounds-checked and
 * wrapped where PyTorch wraps, add `value * kstride` to the source offset:
 *
 *   out[o(i)] = src[s(i) + sum_k idx_k[x_k(i)] * kstride_k]
 *
 * index_select, gather, take, take_along_dim, embedding, index.Tensor and
 * the strided copies of flip and tril/triu (a triangle mode that writes 0
 * outside the kept triangle) are all built this way.  ix_gather_run runs a
 * plan: the C executor of ref/index.c on the CPU device, the kernels of
 * cl_kernels/index.cl on OpenCL devices, with out-of-range indices reported
 * through a device-side flag read back after the launch (docs/index.md).
 * The accumulating scatters run a *segment plan* (ix_scatter_run).
 */
#ifndef CLOPS_OPS_INDEX_H
#define CLOPS_OPS_INDEX_H

#include <stdbool.h>
#include <stdint.h>

#include "core/strbuf.h"
#include "core/tensor_impl.h"
#include "dispatch/structured.h"
#include "ops/tensor/tensor.h"
#include "ops/kit/kit.h"

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

/* Starts a plan over the result `out` (iteration space = out's shape, out's
 * strides) reading src with the given strides over that space and offset. */
void ix_plan_init(ix_plan *p, const char *op, clops_tensor *out, const clops_tensor *src,
                  const int64_t *src_st, int64_t src_off);
/* Adds an index tensor whose strides over the iteration space are idx_st
 * (0 where it broadcasts); it addresses dim `dim` of the source (size,
 * stride).  At most IX_MAXK. */
clops_status ix_plan_add_index(ix_plan *p, const clops_tensor *idx, const int64_t *idx_st,
                               int dim, int64_t size, int64_t stride);
/* Runs the plan on out's device.  Out-of-range indices: CLOPS_INDEX_OUT_OF_RANGE
 * with "<op>: index V is out of bounds for dimension D with size N". */
clops_status ix_gather_run(ix_plan *p);

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

/* Allocates s->target and s->srcoff for n entries (sets s->n). */
clops_status ix_seg_alloc(ix_seg *s, int64_t n);
/* Sorts the entries by target (stable), then folds each target's segment
 * on self's device (ref_index_segment on the CPU device).  Frees target
 * and srcoff whatever happens. */
clops_status ix_segment_run(ix_seg *s);
/* scatter/scatter_add/scatter_reduce on an OpenCL device without a host
 * sort: self (the op's target, already holding self's values) along dim
 * from src (same rank as index, or 0-dim for a value) at an int64 index of
 * self's rank, by line scans (cl_kernels/index.cl, ix_lines_<dtype>), the
 * same bits as the segment plan.  *used is false (nothing done) when the
 * case does not qualify: CPU device, index not int64, more than IX_MAXD
 * dims, or a scatter dim longer than IX_LINE_MAX. */
#define IX_LINE_MAX 256 /* IX_LWG * IX_LSLOT of cl_kernels/index.cl */
clops_status ix_scatter_lines(const char *op, clops_tensor *self, int dim,
                              const clops_tensor *index, const clops_tensor *src,
                              ix_seg_mode mode, bool include_self, bool *used);
/* The C executor of a sorted segment plan: segments [seg_start[k],
 * seg_start[k+1]) of entries reading src at row_src, writing self at
 * seg_target[k]. */
clops_status ref_index_segment(const ix_seg *s, int64_t nseg, const int64_t *seg_start,
                               const int64_t *seg_target, const int64_t *row_src);
/* Kernel kname of the index program pname (the prelude, the item loop
 * cl_kernels/items.clh and cl_kernels/index.cl; build options pick the
 * kernels: -DIX_SEGMENT=1 for program "index/segment", the gather
 * geometry for the gather programs), through the kit's assembler. */
clops_status ix_kernel(clops_device *d, const host_kkey *key, const char *pname,
                       const char *kname, const char *options, const char *op,
                       host_kernel **out);
/* The kernel kname of program "index/segment" under key. */
clops_status ix_segment_kernel(clops_device *d, const host_kkey *key, const char *kname,
                               const char *op, host_kernel **out);

/* A compaction by a scan (ops/index/index_nonzero.c): pos (int64, contiguous,
 * n elements) is the inclusive cumsum of a mask walked row-major over
 * `sizes`; element i is selected when pos[i] steps up, and then maps to
 * packed row pos[i] - 1 of `flat` (offset flat_off, row stride flat_rs,
 * column stride flat_cs).  Modes:
 *   IX_CMP_COORDS   flat[row, d] = coordinate d of i (rows >= limit are
 *                   dropped; with fill, rows count..limit-1 get fill_value);
 *   IX_CMP_SELECT   flat[row] = strided[i] (strided: st, off);
 *   IX_CMP_SCATTER  strided[i] = flat[row]. */
typedef enum ix_cmp_mode { IX_CMP_COORDS = 0, IX_CMP_SELECT = 1, IX_CMP_SCATTER = 2 } ix_cmp_mode;

typedef struct ix_compact {
    const char *op;
    ix_cmp_mode mode;
    int ndim;
    int64_t sizes[CLOPS_MAX_DIMS];
    const clops_tensor *pos;
    int64_t n;
    clops_tensor *flat;
    int64_t flat_off, flat_rs, flat_cs;
    clops_tensor *strided;
    int64_t st[CLOPS_MAX_DIMS];
    int64_t off;
    int64_t limit;
    bool fill;
    int64_t fill_value;
} ix_compact;

/* The positions of t's nonzero elements in row-major order: *pos, a new
 * int64 [n] tensor on t's device (NULL when t is empty), the inclusive
 * cumsum of (t != 0); *count, its last value, read back (one wait) unless
 * count is NULL. */
clops_status ix_nonzero_positions(const char *op, clops_tensor *t, clops_tensor **pos,
                                  int64_t *count);
/* nonzero(t) as the op `op` (errors name it): a new [count, ndim] int64
 * tensor of t's nonzero coordinates, on t's device. */
clops_status ix_nonzero(const char *op, clops_tensor *t, clops_tensor **out);
/* Runs a compaction on flat's (or strided's) device: the kernels of
 * cl_kernels/index.cl, or ref_index_compact on the CPU device. */
clops_status ix_compact_run(const ix_compact *c);
/* The C executor of a compaction (ref/index.c). */
clops_status ref_index_compact(const ix_compact *c);

/* The k long index tensors (on self's device) of a k-dim bool/uint8 mask's
 * true coordinates (column views of nonzero(mask)); the mask addresses
 * self's dims first, first+1, ... whose sizes it must match. */
clops_status ix_mask_to_indices(const clops_tensor *self, const clops_tensor *mask, int first,
                                clops_tensor **outs);

/* How an index list (index.Tensor, index_put_) lays out its result: the
 * index tensor of each self dim (NULL where not indexed; masks become long
 * tensors), their broadcast shape B, and the result's shape R with B at
 * bstart and rmap[r] = the self dim of result dim r (-1 inside B). */
typedef struct ix_layout {
    const clops_tensor *idx[CLOPS_MAX_DIMS];
    clops_tensor *owned[CLOPS_MAX_DIMS];
    int nown;
    int nidx;
    int nb;
    int64_t bshape[CLOPS_MAX_DIMS];
    int nr;
    int64_t rs[CLOPS_MAX_DIMS];
    int rmap[CLOPS_MAX_DIMS];
    int bstart;
} ix_layout;
/* Resolves indices for self (widen: make mixed int32/int64 all int64).
 * On failure nothing is held; else ix_layout_free releases. */
clops_status ix_layout_make(const char *op, const clops_tensor *self, clops_tensor *const *indices,
                            int n, bool widen, ix_layout *L);
void ix_layout_free(ix_layout *L);

/* Common checks. */
/* CLOPS_INVALID_ARGUMENT unless t's dtype is int32 or int64 (int64 only when
 * long_only), naming op and argument. */
clops_status ix_check_index_dtype(const char *op, const char *what, const clops_tensor *t,
                                  bool long_only);
/* Both tensors on one device, else an error naming both. */
clops_status ix_check_same_device(const char *op, const clops_tensor *a, const clops_tensor *b);
/* Reads element i (row-major logical order) of an int32/int64 tensor on any
 * device; used for small host-side decisions (tensor_split indices). */
clops_status ix_read_int_elems(const clops_tensor *t, int64_t **vals, int64_t *n);

#endif /* CLOPS_OPS_INDEX_H */
