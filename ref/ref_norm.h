/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ref/ref_norm.h: the CPU reference of the normalization family
 * (ref/norm.c): the CPU device runs it (through ops/norm/) and the tests
 * use it as the oracle.  Every function computes from the op's tensors
 * and parameters, in double, PyTorch's formula.
 */
#ifndef CLOPS_REF_REF_NORM_H
#define CLOPS_REF_REF_NORM_H

#include <stdbool.h>
#include <stdint.h>

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

/*
 * layer_norm (rms false) or rms_norm of `rows` contiguous rows of n
 * elements of host tensor x into y: (x - mean) * rstd * w + b, or
 * x * rstd * w (w, b contiguous [n] or NULL), rstd = 1 / sqrt(biased var +
 * eps) or 1 / sqrt(mean(x^2) + eps); mean and rstd ([rows] contiguous, may
 * be NULL) receive the row statistics.  Double, two passes.
 */
clops_status norm_ref_layer(const clops_tensor *x, const clops_tensor *w, const clops_tensor *b,
                            clops_tensor *y, clops_tensor *mean, clops_tensor *rstd, int64_t rows,
                            int64_t n, double eps, bool rms);

/*
 * The batch-norm statistics of contiguous host tensor x seen as [N, C, S]:
 * per channel the mean and the biased variance over (N, S), into
 * contiguous [C] tensors mean and var.  Double, two passes (NaN for an
 * empty channel).
 */
clops_status norm_ref_batch_stats(const clops_tensor *x, clops_tensor *mean, clops_tensor *var,
                                  int64_t N, int64_t C, int64_t S);

#endif /* CLOPS_REF_REF_NORM_H */
