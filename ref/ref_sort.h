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

/* searchsorted on contiguous host buffers of dtype dt (ops/sort.h's
 * sort_search_run): PyTorch's comparisons, NaN values past the end. */
void ref_searchsorted(const void *bd, const void *v, const int64_t *sorter, clops_dtype dt,
                      int64_t nb, int64_t brows, int64_t vrow, int64_t total, bool right,
                      int64_t *out);

#endif /* CLOPS_REF_REF_SORT_H */
