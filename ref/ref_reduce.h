/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ref/ref_reduce.h: the CPU reference of the reduction family
 * (ref/reduce.c): the CPU device runs it (through ops/reduce/) and the
 * tests use it as the oracle.  It walks the call's input itself (no plan
 * of the family): every output in turn, its reduced elements in memory
 * order (reduced dims by ascending input stride, innermost first among
 * equal strides), floating inputs accumulated in double, integer ones in
 * wrapping int64.
 */
#ifndef CLOPS_REF_REF_REDUCE_H
#define CLOPS_REF_REF_REDUCE_H

#include <stdbool.h>

#include "core/tensor_impl.h"

/* Reduction kinds; the numbers are RK in cl_kernels/reduce.cl, the names
 * part of kernel names (not "any"/"all": OpenCL drivers may define those as
 * macros). */
#define REDUCE_KIND_LIST(X)                                                                \
    X(SUM, 0, sum)                                                                         \
    X(NANSUM, 1, nansum)                                                                   \
    X(PROD, 2, prod)                                                                       \
    X(MEAN, 3, mean)                                                                       \
    X(NANMEAN, 4, nanmean)                                                                 \
    X(AMAX, 5, amax)                                                                       \
    X(AMIN, 6, amin)                                                                       \
    X(ARGMAX, 7, argmax)                                                                   \
    X(ARGMIN, 8, argmin)                                                                   \
    X(ANY, 9, logical_any)                                                                       \
    X(ALL, 10, logical_all)                                                                      \
    X(COUNT_NZ, 11, count_nonzero)                                                         \
    X(VAR, 12, var)                                                                        \
    X(NORM1, 13, norm1)                                                                    \
    X(NORMP, 14, normp)                                                                    \
    X(NORM2, 15, norm2)                                                                    \
    X(NORMINF, 16, norminf)                                                                \
    X(NORMNINF, 17, normninf)                                                              \
    X(NORM0, 18, norm0)                                                                    \
    X(LSE, 19, logsumexp)                                                                  \
    X(AMINMAX, 20, aminmax)

typedef enum reduce_kind {
#define REDUCE__ENUM(e, n, name) RK_##e = n,
    REDUCE_KIND_LIST(REDUCE__ENUM)
#undef REDUCE__ENUM
    RK_COUNT
} reduce_kind;

/* Kinds with an index result (argmax, argmin). */
static inline bool reduce_kind_has_index(reduce_kind k)
{
    return k == RK_ARGMAX || k == RK_ARGMIN;
}

/* One reduction to run: input, reduced-dim mask, results. */
typedef struct reduce_call {
    const char *opname;
    reduce_kind kind;
    clops_tensor *x;               /* input (its dtype is the kernel's input) */
    bool mask[CLOPS_MAX_DIMS];     /* reduced dims of x (x->ndim entries) */
    clops_tensor *y;               /* first result, keepdim or not */
    clops_tensor *y2;              /* second result or NULL */
    double p0, p1;                 /* kind parameters (norm p; std flag, correction) */
} reduce_call;

/* Runs c on host tensors: c->y (and c->y2) of the kind's natural result
 * dtype for x's dtype, keepdim shaped (x's rank) or without the reduced
 * dims, any strides; y must not be empty. */
clops_status reduce_ref_run(const reduce_call *c);

#endif /* CLOPS_REF_REF_REDUCE_H */
