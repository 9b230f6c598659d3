/* SPDX-License-Identifier: Apache-2.0 */
/*
 * clops/matmul.h: process-wide settings of the matrix engine.
 *
 * The float32 matmul precision follows PyTorch's
 * torch.set_float32_matmul_precision:
 *   "highest"  (default) float32 products are computed in float32 (FMA);
 *   "high"     products may use TensorFloat-32 (or a split into bfloat16 /
 *              tf32 parts) where the device has matrix units;
 *   "medium"   products may use bfloat16-class internal precision.
 * A mode only allows the faster paths; docs/gemm.md says which paths each
 * device actually takes.  float16, bfloat16 and float64 products are not
 * affected.
 */
#ifndef CLOPS_MATMUL_H
#define CLOPS_MATMUL_H

#include "clops/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Sets the mode: "highest", "high" or "medium" (CLOPS_INVALID_ARGUMENT for
 * anything else, with PyTorch's message).  The initial mode comes from
 * CLOPS_FLOAT32_MATMUL_PRECISION when set, else "highest". */
CLOPS_API clops_status clops_set_float32_matmul_precision(const char *precision);
/* The current mode's name. */
CLOPS_API const char *clops_get_float32_matmul_precision(void);

/* The float32 precision of convolutions run on the matrix engine (the
 * implicit-GEMM path), PyTorch's torch.backends.cudnn.allow_tf32 (True:
 * "high", False: "highest"; the PyTorch bridge maps it): the same names as
 * the matmul precision, or NULL to follow the matmul precision, which is
 * the initial state unless CLOPS_FLOAT32_CONV_PRECISION names a mode. */
CLOPS_API clops_status clops_set_float32_conv_precision(const char *precision);
/* The mode convolutions use now (the matmul precision's when following). */
CLOPS_API const char *clops_get_float32_conv_precision(void);

#ifdef __cplusplus
}
#endif

#endif /* CLOPS_MATMUL_H */
