/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ref/ref_fft.h: the reference of the FFT family (ref/fft.c): PyTorch's
 * _fft_r2c, _fft_c2r and _fft_c2c computed from their definition, a direct
 * DFT per line in long double, dim after dim (O(n^2) per line).
 *
 * The CPU device runs it and the tests compare every OpenCL result with it
 * (docs/fft.md).  The family checks the arguments and allocates `out`; the
 * reference reads `in` and writes `out` through their own sizes, strides and
 * offsets.
 */
#ifndef CLOPS_REF_REF_FFT_H
#define CLOPS_REF_REF_FFT_H

#include <stdbool.h>

#include "core/tensor_impl.h"

typedef enum ref_fft_kind { REF_FFT_C2C, REF_FFT_R2C, REF_FFT_C2R } ref_fft_kind;

typedef struct ref_fft_problem {
    ref_fft_kind kind;
    const clops_tensor *in; /* c2c, c2r: complex; r2c: float32/float64 */
    clops_tensor *out;      /* the result: c2c, r2c complex; c2r real */
    int ndims;              /* transformed dims of `in`, wrapped and unique, */
    int dims[CLOPS_MAX_DIMS]; /* in the order given (the last one is halved) */
    int normalization;      /* ATen's: 0 none, 1 by 1/sqrt(n), 2 by 1/n */
    bool forward;           /* c2c: the sign of the exponent (r2c: forward,
                               c2r: backward) */
    int64_t last_dim_size;  /* c2r: the real length of the last dim */
} ref_fft_problem;

/* Computes the transform; in and out live in host memory (the CPU device).
 * CLOPS_HOST_OUT_OF_MEMORY when the work array cannot be allocated. */
clops_status ref_fft(const ref_fft_problem *p);

#endif /* CLOPS_REF_REF_FFT_H */
