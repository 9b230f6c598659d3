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
#include "ref/ref_index.h"

/* IX_MAXK, IX_MAXD, ix_plan, ix_seg, ix_compact and their C executors
 * (ref_index_gather, ref_index_segment, ref_index_compact) are declared in
 * ref/ref_index.h. */

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
