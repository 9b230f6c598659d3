/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ops/norm.h: the normalization family (softmax, log_softmax and their
 * backward ops; layer and rms norm in ops/norm_layer.c) inside clops:
 * ops/norm.c plans rows and launches
 * cl_kernels/norm.cl; the CPU device and the tests use the reference
 * below (ref/norm.c).
 */
#ifndef CLOPS_OPS_NORM_H
#define CLOPS_OPS_NORM_H

#include "core/tensor_impl.h"
#include "host/host.h"

/* Kernel `which` (0 norm_softmax, 1 norm_softmax_backward, 2 norm_layer)
 * of the program for input dtype `in` and output dtype `out` on device d
 * (ops/norm.c); CLOPS_UNSUPPORTED when d cannot run it with the family's
 * work-group size. */
clops_status norm_get_kernel(clops_device *d, int which, clops_dtype in, clops_dtype out,
                             const char *op, host_kernel **k);

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

#endif /* CLOPS_OPS_NORM_H */
