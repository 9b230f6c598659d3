/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ops/sort/sort.h: the sort family's internal API: sort_run sorts every line of
 * a tensor along one dim on any device (the CPU device runs ref/sort.c,
 * OpenCL devices cl_kernels/sort.cl), stably: equal keys keep their input
 * order, NaN sorts after +inf ascending and before it descending, -0.0 and
 * +0.0 are equal.  topk, kthvalue and msort build on it.
 */
#ifndef CLOPS_OPS_SORT_H
#define CLOPS_OPS_SORT_H

#include <stdbool.h>

#include "codegen_pointwise/pw.h"
#include "core/tensor_impl.h"
#include "host/host.h"
#include "ref/ref_sort.h"

/* The kernels of a sort program (cl_kernels/sort.cl), one program per
 * dtype. */
typedef enum sort_kid {
    SORT_K_BLOCK,
    SORT_K_MERGE,
    SORT_K_WRITE,
    SORT_K_PICK,
    SORT_K_SEARCH,
    SORT_K_MODE,
    SORT_K_UFLAGS,
    SORT_K_UCOMPACT,
    SORT_K_UCOUNTS,
    SORT_K_UGATHER,
    SORT_K_UCOMPOSE,
    SORT_K_BINCOUNT,
    SORT_K_HISTC,
    SORT_K_TOPK,
    SORT_K_BLOCK_CPU,
    SORT_K_TOPK_CPU,
    SORT_K_MERGE_CPU,
    SORT_K_HISTC_SUM,
    SORT_K_COUNT
} sort_kid;

/* Kernel `which` of dtype dt's sort program on OpenCL device d; *wg (when
 * not NULL) the work-group size of the fixed-size kernels (BLOCK, MODE). */
clops_status sort_kernel(clops_device *d, clops_dtype dt, sort_kid which, host_kernel **out,
                         int *wg);

/* Records "op: message (self: float32[5, 7] ... on opencl:0)" (ops/sort/sort_ops.c). */
clops_status sort_fail(clops_status st, const char *op, const clops_tensor *self, const char *msg);

/* Prepares an out= tensor t for a result of dtype dt and shape sizes: the
 * dtype, the device, resize, no overlap with self (ops/sort/sort_ops.c). */
clops_status sort_prep_out(const char *op, clops_tensor *self, clops_tensor *t, clops_dtype dt,
                           int ndim, const int64_t *sizes);

/* The cl_mem of an OpenCL tensor's storage (NULL for NULL or none). */
static inline cl_mem sort_mem(const clops_tensor *t)
{
    return t && t->storage->block ? t->storage->block->mem : NULL;
}

/* The host address of a CPU-device tensor's first element (NULL for
 * NULL). */
static inline void *sort_host(const clops_tensor *t)
{
    return t ? (char *)t->storage->host_ptr + (size_t)t->offset * clops_dtype_size(t->dtype)
             : NULL;
}

/* Sorted values of src along dim into vals (src's dtype and shape) and
 * positions into idx (int64, src's shape); either may be NULL; any
 * strides.  vals/idx must not overlap src.  `op` names the caller. */
clops_status sort_run(const char *op, clops_tensor *src, int dim, bool descending,
                      clops_tensor *vals, clops_tensor *idx);

/* Longest line and largest k of sort_topk_select (TK_NMAX, TK_KMAX of
 * cl_kernels/sort.cl). */
#define SORT_TOPK_NMAX 4096
#define SORT_TOPK_KMAX 256
/* Largest k of the CPU devices' selection (sort_topk_cpu: a heap of k
 * pairs in local memory; any line length and key width). */
#define SORT_TOPK_CPU_KMAX 1024

/* topk along dim by per-line selection (GPUs: radix select in local
 * memory; CPU devices: a heap per line; the host CPU device: ref_topk's
 * heap of k pairs per line; no full sort) into vals/idx (src's
 * shape with k along dim, any strides): the first k elements of the stable
 * sort (descending when largest), the same as sorting.  *done is false, and
 * nothing is written, when the case does not fit the kernel (on GPUs
 * 8-byte keys, lines longer than SORT_TOPK_NMAX or k above SORT_TOPK_KMAX;
 * on CPU devices k above SORT_TOPK_CPU_KMAX; layouts without a line
 * geometry); the caller sorts instead. */
clops_status sort_topk_select(clops_tensor *src, int dim, int64_t k, bool largest,
                              clops_tensor *vals, clops_tensor *idx, bool *done);

/* Median selection over a sorted (ascending, NaN last) contiguous sv with
 * positions si, along dim: per line, into contiguous ov (sv's dtype) and oi
 * (int64) holding one element per line in row-major line order.  median:
 * the first NaN if any, else the lower median; nanmedian (nan_median): the
 * lower median of the non-NaN elements (position 0 when all are NaN). */
clops_status sort_pick_median(const char *op, clops_tensor *sv, clops_tensor *si, int dim,
                              bool nan_median, clops_tensor *ov, clops_tensor *oi);

/* mode selection over a sorted (ascending, stable) contiguous sv with
 * positions si, along dim, into ov/oi as sort_pick_median: per line the
 * last element of the first longest run of equal elements (PyTorch's ==:
 * each NaN a run of its own), i.e. the smallest most frequent value and
 * its last position in the input. */
clops_status sort_pick_mode(const char *op, clops_tensor *sv, clops_tensor *si, int dim,
                            clops_tensor *ov, clops_tensor *oi);

/* searchsorted on contiguous tensors of one dtype: for each of v's
 * elements the insertion position among the nb boundaries of its row of bd
 * (one row, or rows matching v's leading dims: row = index / v's last
 * size), in the order sorter gives (NULL: bd is sorted), left or right;
 * int64 positions into contiguous out. */
clops_status sort_search_run(clops_tensor *bd, clops_tensor *v, clops_tensor *sorter, bool right,
                             clops_tensor *out);

#endif /* CLOPS_OPS_SORT_H */
