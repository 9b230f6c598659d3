/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ref/ref_gemm.h: the reference GEMM (ref/gemm.c), the CPU device's engine
 * of the whole GEMM family (ops/gemm/gemm.h) and the oracle of its tests.
 */
#ifndef CLOPS_REF_REF_GEMM_H
#define CLOPS_REF_REF_GEMM_H

#include "clops/dtype.h"
#include "core/tensor_impl.h"

/* C[b] = alpha * A[b] @ B[b] + beta * C[b] over host 3-D views of one dtype
 * (A [B, M, K], B [B, K, N], C [B, M, N], any strides): every dtype but
 * bool, floating products accumulated in double, integer ones wrapping in
 * int64.  K == 0 gives beta * C; beta == 0 ignores C's contents. */
clops_status ref_gemm(const char *op, const clops_tensor *a, const clops_tensor *b, clops_tensor *c,
                      clops_scalar alpha, clops_scalar beta);

/* Whether ref_gemm takes dtype: CLOPS_INVALID_DTYPE naming op for bool. */
clops_status ref_gemm_check_dtype(const char *op, clops_dtype dtype);

#endif /* CLOPS_REF_REF_GEMM_H */
