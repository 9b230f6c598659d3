/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ops/fft/fft.h: the FFT family's internal interface (docs/fft.md).
 *
 * ops/fft/fft.c holds the ops (_fft_r2c, _fft_c2r, _fft_c2c: argument
 * checks, shapes, normalization) and reduces every transform on an OpenCL
 * device to batched complex-to-complex passes over at most three contiguous
 * innermost dims, which ops/fft/fft_vkfft.c runs with VkFFT's OpenCL
 * backend (plans cached per device and shape).  The CPU device runs the
 * reference, ref/fft.c.
 */
#ifndef CLOPS_OPS_FFT_FFT_H
#define CLOPS_OPS_FFT_FFT_H

#include <stdbool.h>
#include <stdint.h>

#include "core/tensor_impl.h"

/* One in-place complex-to-complex pass: `data` is a contiguous complex64 or
 * complex128 tensor (offset 0) of shape [batch, n[0], ..., n[rank-1]]
 * (row-major, n[rank-1] innermost); every line of the rank-dim signal is
 * transformed, unnormalized, forward (exp(-2 pi i ...)) or backward. */
typedef struct fft_pass {
    clops_tensor *data;
    int rank;         /* 1..3 */
    int64_t n[3];     /* signal sizes, outermost first, each > 1 */
    int64_t batch;    /* >= 1 */
    bool forward;
} fft_pass;

/* Runs one pass on an OpenCL device with VkFFT (ops/fft/fft_vkfft.c). */
clops_status fft_vkfft_run(const fft_pass *p);

/* Frees every cached VkFFT plan (clops_shutdown, before the contexts go). */
void fft_shutdown(void);

#endif /* CLOPS_OPS_FFT_FFT_H */
