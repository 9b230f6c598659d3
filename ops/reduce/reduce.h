/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ops/reduce/reduce.h: the reduction family (sum, mean, prod, amax/amin, max/min
 * with indices, argmax/argmin, any/all, var/std, logsumexp, norms,
 * count_nonzero, aminmax) inside clops.
 *
 * Every reduction operator (ops/reduce/reduce_ops.c, ops/reduce/reduce_minmax.c) checks
 * its arguments as PyTorch does, works out its result dtype and shape, and
 * calls reduce_run with a reduction kind.  reduce_run (ops/reduce/reduce_plan.c)
 * turns the input and the reduced dims into a canonical plan: kept and
 * reduced dimensions each ordered by input stride and coalesced, at most
 * four of each (else the input is first copied with the reduced dims
 * innermost); then runs it on OpenCL devices; the CPU device runs the reference
 * (ref/reduce.c), which walks the call itself or the kernels of cl_kernels/reduce.cl (ops/reduce/reduce_launch.c).
 */
#ifndef CLOPS_OPS_REDUCE_H
#define CLOPS_OPS_REDUCE_H

#include "dispatch/structured.h"
#include "ref/ref_reduce.h"

/* reduce_kind (REDUCE_KIND_LIST), reduce_call and the CPU reference
 * reduce_ref_run are declared in ref/ref_reduce.h. */

/* "sum", ... */
const char *reduce_kind_name(reduce_kind k);
/* Kinds computed only in floating point (the input must be floating). */
bool reduce_kind_float_only(reduce_kind k);
#define REDUCE_MAX_RANK 4

/*
 * The canonical form of one reduction.  Output o (0 <= o < O) has kept
 * coordinates o = c0 + ksz[0] * (c1 + ksz[1] * ...); its input elements
 * start at xoff + sum c_k * kis[k], its results go to yoff + sum c_k *
 * kos[k] (and yoff2 + ... kos2 for the second result).  Reduced position r
 * (0 <= r < R) decomposes the same way over rsz, at input offset sum
 * c_k * ris[k]; its logical index (argmax) is sum c_k * rlm[k].  Unused
 * dims have size 1 and stride 0.
 */
typedef struct reduce_plan {
    int64_t O, R;
    int kd, rd;
    int64_t ksz[REDUCE_MAX_RANK], kis[REDUCE_MAX_RANK], kos[REDUCE_MAX_RANK],
        kos2[REDUCE_MAX_RANK];
    int64_t rsz[REDUCE_MAX_RANK], ris[REDUCE_MAX_RANK], rlm[REDUCE_MAX_RANK];
    int64_t xoff, yoff, yoff2;
} reduce_plan;

/* Runs a reduction into c->y (and c->y2) whose shapes and dtypes the caller
 * made right: y's dtype is the kind's natural result for x's dtype. */
clops_status reduce_run(const reduce_call *c);

/* Builds the plan of c; false when more than REDUCE_MAX_RANK kept or
 * reduced dims remain after coalescing. */
bool reduce_make_plan(const reduce_call *c, reduce_plan *p);

/* Runs plan p of c with the launch of its device's kind (ops/kit/kit.h):
 * reduce_ref_run on the host CPU device, the _cpu kernels on CPU-like
 * OpenCL devices, the _row/_merge kernels on GPUs
 * (ops/reduce/reduce_launch.c). */
clops_status reduce_launch(const reduce_call *c, const reduce_plan *p);

/* The work-group size of every reduction and row kernel on d: 256, or the
 * largest power of two the device allows below that (ops/reduce/reduce_launch.c). */
size_t reduce_wg(const clops_device *d);
/* Largest power of two <= v (v >= 1). */
int64_t reduce_pow2_floor(int64_t v);

/* --- argument helpers shared by the operators (ops/reduce/reduce_plan.c) ------ */

/*
 * Fills mask from a dim list (NULL or, when empty_is_all, empty: every
 * dim), wrapping negative dims; repeated dims are an error.  A zero-dim
 * input accepts dims 0 and -1.
 */
clops_status reduce_dims_mask(const char *op, const clops_tensor *x, const int64_t *dims,
                              int ndims, bool empty_is_all, bool *mask);
/* The result shape of reducing x over mask into sizes/ndim. */
void reduce_out_shape(const clops_tensor *x, const bool *mask, bool keepdim, int *ndim,
                      int64_t *sizes);
/* CLOPS_INVALID_ARGUMENT when a reduced dim is empty and the output is not
 * (amax, argmax, max.dim, ... have no identity). */
clops_status reduce_check_nonempty(const char *op, const clops_tensor *x, const bool *mask);

/*
 * The structured driver every single-result reduction uses: gets the
 * destination (structured_begin with the result dtype), reduces xin
 * (already cast to the compute dtype the op wants) into it, finishes.
 */
clops_status reduce_structured(const char *op, pw_variant variant, clops_tensor *dst,
                               clops_tensor *xin, const bool *mask, bool keepdim,
                               reduce_kind kind, clops_dtype result, double p0, double p1,
                               clops_tensor **out);

/*
 * The driver of the two-result reductions (var_mean, aminmax, max.dim):
 * destinations for both results (dst1/dst2 for PW_OUT, new tensors into
 * out1/out2 for PW_FUNCTIONAL), one reduction writing both.
 */
clops_status reduce_pair(const char *op, pw_variant variant, clops_tensor *self,
                         const bool *mask, bool keepdim, reduce_kind kind, clops_dtype dt1,
                         clops_dtype dt2, clops_tensor *dst1, clops_tensor *dst2,
                         clops_tensor **out1, clops_tensor **out2, double p0, double p1);

/* xin cast to dtype (a new reference to x itself when it already is). */
clops_status reduce_cast_input(const char *op, clops_tensor *x, clops_dtype dtype,
                               clops_tensor **out);

#endif /* CLOPS_OPS_REDUCE_H */
