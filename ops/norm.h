/*
 * ops/norm.h: the normalization family (softmax, log_softmax and their
 * backward ops) inside clops: ops/norm.c plans rows and launches
 * cl_kernels/norm.cl; the CPU device and the tests use the reference
 * below (ref/norm.c).
 */
#ifndef CLOPS_OPS_NORM_H
#define CLOPS_OPS_NORM_H

#include "core/tensor_impl.h"

/*
 * Softmax (logm false) or log_softmax of contiguous host tensor x into
 * contiguous y (any floating dtypes): `rows` rows of n elements at stride
 * inner, row r = a * inner + b starting at a * n * inner + b.  Computed in
 * double with PyTorch's formula (x - max, exp, sum).
 */
clops_status norm_ref_softmax(const clops_tensor *x, clops_tensor *y, int64_t rows, int64_t n,
                              int64_t inner, bool logm);
/* The backward of softmax (y * (g - sum(g * y))) or log_softmax
 * (g - exp(y) * sum(g)) over the same rows. */
clops_status norm_ref_softmax_backward(const clops_tensor *g, const clops_tensor *y,
                                       clops_tensor *out, int64_t rows, int64_t n, int64_t inner,
                                       bool logm);

#endif /* CLOPS_OPS_NORM_H */
