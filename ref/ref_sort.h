/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ref/ref_sort.h: the CPU reference of the sort family (ref/sort.c): the
 * CPU device's sort and the oracle of the OpenCL kernels.
 */
#ifndef CLOPS_REF_REF_SORT_H
#define CLOPS_REF_REF_SORT_H

#include <stdbool.h>

#include "core/tensor_impl.h"

/* The unsigned key whose ascending order is PyTorch's ascending order of
 * element `index` (storage elements) of a host buffer of dtype dt: NaN
 * after +inf, -0.0 equal to +0.0, signed integers by value. */
uint64_t ref_sort_key(const void *base, int64_t index, clops_dtype dt);

/* Stable sort of every line of CPU-device src along dim: sorted values into
 * vals and int64 positions into idx (either may be NULL; any strides).
 * Equal keys keep their input order, ascending or descending; NaN last
 * ascending, first descending. */
clops_status ref_sort(const clops_tensor *src, int dim, bool descending, clops_tensor *vals,
                      clops_tensor *idx);

/* topk of every line of CPU-device src along dim: the first k pairs of
 * ref_sort's order (largest: its descending order), values into vals and
 * positions into idx (sizes[dim] == k, any strides), in O(k) extra memory:
 * a heap of the k best pairs seen, sorted at the end of each line. */
clops_status ref_topk(const clops_tensor *src, int dim, int64_t k, bool largest, clops_tensor *vals,
                      clops_tensor *idx);

/* searchsorted on contiguous host buffers of dtype dt (ops/sort/sort.h's
 * sort_search_run): PyTorch's comparisons, NaN values past the end. */
void ref_searchsorted(const void *bd, const void *v, const int64_t *sorter, clops_dtype dt,
                      int64_t nb, int64_t brows, int64_t vrow, int64_t total, bool right,
                      int64_t *out);

/* --- ref/sort_select.c: mode, unique, bincount, histc (the steps of the
 * matching kernels of cl_kernels/sort.cl) --- */

/* mode of every line of a sorted (ascending, stable) buffer: the last
 * element of the first longest run of equal elements, value into ov and
 * position (from si) into oi, one per line.  Line l = (l / inner, l %
 * inner) starts at (l / inner) * s_o + (l % inner) * s_i. */
void ref_sort_mode(const void *sv, const int64_t *si, clops_dtype dt, int64_t n, int64_t inner,
                   int64_t s_o, int64_t s_n, int64_t s_i, int64_t lines, void *ov, int64_t *oi);

/* unique: flags[j] = 1 where row perm[j] (of m elements; j when perm is
 * NULL) differs from row perm[j - 1], and for j = 0. */
void ref_unique_flags(const void *src, const int64_t *perm, clops_dtype dt, int64_t n, int64_t m,
                      int64_t *flags);

/* unique: from the inclusive scan pos of the flags, each group's first row
 * into out[group] and its first visit into start[group]; each row's group
 * into inv (when not NULL). */
void ref_unique_compact(const void *src, const int64_t *perm, clops_dtype dt, int64_t n,
                        int64_t m, const int64_t *pos, void *out, int64_t *start, int64_t *inv);

/* unique: group sizes from their starts. */
void ref_unique_counts(const int64_t *start, int64_t groups, int64_t n, int64_t *cnt);

/* unique_dim: out[j] = src[perm[j] * m + c]. */
void ref_unique_gather(const void *src, const int64_t *perm, clops_dtype dt, int64_t n, int64_t m,
                       int64_t c, void *out);

/* out[j] = perm[p2[j]]. */
void ref_unique_compose(const int64_t *perm, const int64_t *p2, int64_t n, int64_t *out);

/* bincount over a sorted int64 buffer sv with positions si: per bin its
 * size (dt int64) or the sum of its weights w (dt float32 or float64) in
 * input order, into out. */
void ref_bincount(const int64_t *sv, const int64_t *si, int64_t n, const void *w, clops_dtype dt,
                  int64_t nbins, void *out);

/* x rounded to dt (float16/bfloat16/float32; float64 unchanged). */
double ref_round_to(double x, clops_dtype dt);

/* histc counts of n elements of x (a floating dtype) in bins equal bins of
 * [lo, hi] (values of dt), PyTorch's arithmetic in dt; 64-bit counts, so
 * more than 2^31 - 1 elements in one bin count exactly. */
void ref_histc(const void *x, clops_dtype dt, int64_t n, double lo, double hi, int64_t bins,
               int64_t *cnt);

#endif /* CLOPS_REF_REF_SORT_H */
