/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ops/conv/conv.h: the convolution family (convolution, convolution_backward,
 * their *_overrideable twins, im2col, col2im) inside clops.
 *
 * Every convolution, forward or backward, transposed or not, is described by
 * one geometry: a "big" image B [N, Cb, big...] and a "small" image S
 * [N, Cs, small...] joined by a kernel of size k, stride s, padding p and
 * dilation d, small = (big + 2p - d(k-1) - 1) / s + 1, and a weight W
 * [Cs, Cb/g, k...] in g groups.  Small position o and kernel position j
 * meet big position o*s - p + j*d.  A plain convolution has B = input and
 * S = output; a transposed one B = output and S = input (its weight
 * [Cin, Cout/g, k...] is indexed the same way).  Three products cover every
 * op:
 *
 *   to small:  S[n, cs, o]  = sum over (cb in cs's group, j)  B * W
 *   to big:    B[n, cb, i]  = sum over (cs, o, j meeting i)   S * W
 *   to weight: W[cs, cb, j] = sum over (n, o)                 S * B
 *
 * (plain forward = to small; its input gradient = to big and weight
 * gradient = to weight; transposed: the other way round.)  The CPU device
 * runs them as direct loops in double (ref/conv.c, ref/ref_conv.h: the oracle of the
 * tests); OpenCL devices as implicit GEMMs of the matrix engine where it
 * takes the dtype (all three products, gemm_engine_conv and
 * gemm_engine_conv_weight), else as GEMMs over im2col columns
 * (ops/conv/conv_gemm.c, kernels in cl_kernels/conv.cl launched by
 * ops/conv/conv_launch.c).
 */
#ifndef CLOPS_OPS_CONV_H
#define CLOPS_OPS_CONV_H

#include <stdbool.h>
#include <stdint.h>

#include "core/tensor_impl.h"
#include "ops/kit/kit.h"
#include "ref/ref_conv.h"

/* conv_geom, conv_dir, conv_cols and the CPU reference (conv_ref_product,
 * conv_ref_im2col, conv_ref_col2im) are declared in ref/ref_conv.h. */

/* Fills K, Lb and Ls from the other fields. */
void conv_geom_finish(conv_geom *g);

/*
 * The fused epilogue of a forward product (_clops_conv_epilogue), per
 * destination channel c and element y:
 *     y += bias[c]
 *     y = y * s + t, s = scale[c] / sqrt(var[c] + eps) (scale alone without
 *         var; 1 without scale), t = shift[c] - mean[c] * s (0 without)
 *     y += residual (unless residual_after); y = act(y);
 *     y += residual (when residual_after)
 * The vectors are 1-D of the destination's channels and dtype, any stride
 * (NULL: none), the residual of the destination's shape and dtype; act is
 * a gemm_act (ops/gemm/gemm.h).  affine() says whether s and t take part.
 */
typedef struct conv_epi {
    const clops_tensor *bias, *scale, *shift, *mean, *var;
    double eps;
    const clops_tensor *residual;
    bool residual_after;
    int act;
} conv_epi;

static inline bool conv_epi_affine(const conv_epi *e)
{
    return e && (e->scale || e->shift || e->mean || e->var);
}

/* --- the OpenCL kernels (ops/conv/conv_launch.c) ----------------------------- */

/* im2col / col2im on an OpenCL device: as the reference (B of any strides,
 * written each element once by col2im, no atomics). */
clops_status conv_cl_im2col(const char *op, const conv_geom *g, const clops_tensor *B,
                            clops_tensor *cols, conv_cols l);
clops_status conv_cl_col2im(const char *op, const conv_geom *g, const clops_tensor *cols,
                            conv_cols l, clops_tensor *B);
/* The direct "to small" kernel of depthwise geometry (Cb == groups): S =
 * sum over j of B * W, then epilogue e (NULL: none; the bias alone for a
 * plain convolution) in the accumulator before the one rounding; float32
 * accumulation for float16/bfloat16. */
clops_status conv_cl_depthwise(const char *op, const conv_geom *g, const clops_tensor *B,
                               const clops_tensor *W, const conv_epi *e, clops_tensor *S);

/* Epilogue e applied in place to a convolution's result y (2 + nsp dims,
 * any strides) by one pass: the bias, the affine, the residual and the
 * activation, in the accumulation type, rounded once. */
clops_status conv_cl_epilogue_pass(const char *op, int nsp, const conv_epi *e, clops_tensor *y);

/* The affine fold of e (conv_epi_affine) into a weight: for w seen as
 * [G, n, taps, cg] through strides ws (destination channel c = g * n + j),
 * wo (strides wos, same dtype) = w * s(c), and bo[c] (contiguous, G * n
 * elements) = bias[c] * s(c) + t(c).  One launch: a work item per
 * (channel, tap) row on CPU devices, per element on GPUs. */
clops_status conv_cl_fold(const char *op, const clops_tensor *w, const int64_t *ws,
                          clops_tensor *wo, const int64_t *wos, const int64_t *dims,
                          const conv_epi *e, clops_tensor *bo);

/* The backward products of depthwise geometry: B = the input gradient
 * (to big); part [Cs * K * N * P] (contiguous, at offset 0) = partial sums
 * of the weight gradient per sample and part of the small rows (P <=
 * the small image's rows), element ((cs * K + j) * N + n) * P + p. */
clops_status conv_cl_depthwise_big(const char *op, const conv_geom *g, const clops_tensor *S,
                                   const clops_tensor *W, clops_tensor *B);
clops_status conv_cl_depthwise_weight(const char *op, const conv_geom *g, const clops_tensor *S,
                                      const clops_tensor *B, int64_t P, clops_tensor *part);

/* im2col / col2im on the tensors' device (reference or kernel). */
clops_status conv_im2col_run(const char *op, const conv_geom *g, const clops_tensor *B,
                             clops_tensor *cols, conv_cols l);
clops_status conv_col2im_run(const char *op, const conv_geom *g, const clops_tensor *cols,
                             conv_cols l, clops_tensor *B);

/* --- one product on any device (ops/conv/conv_gemm.c) ------------------------- */

/* The gradient of the output go of a backward computing both gradients
 * of geometry g, copied once into channels-last where both products
 * would otherwise copy it each (GPUs, the matrix engine's dtypes; the
 * rule of ops/conv/conv_gemm.c channels_last_copy): *out a new tensor
 * both read, or NULL (read go itself). */
clops_status conv_backward_source(const conv_geom *g, const clops_tensor *go, clops_tensor **out);

/* How many weight gradients ran with the samples as the engine's groups
 * (ops/conv/conv_gemm.c weight_samples) in this process: the tests' check
 * that the path ran. */
uint64_t conv_weight_samples_calls(void);

/* The wgmma configuration (1 + gemm_engine_config_name's index) a forward
 * or input-gradient product of n destination channels per group, m rows
 * and groups groups asks for on a Hopper device of units compute units,
 * 0 for mma.sync, under mode (CLOPS_CONV_WGMMA / CLOPS_CONV_WGMMA_HALF:
 * NULL or "1" the rule, "0", "all", a configuration's name) and, for
 * n <= 64, narrow (CLOPS_CONV_WGMMA64: NULL or "1" the 64-wide blocks,
 * "0" as before them, a configuration's name); staging's conditions are
 * the caller's (ops/conv/conv_gemm.c conv_wgmma_tile). */
int conv_wgmma_rule(const char *mode, const char *narrow, int64_t n, int64_t m, int64_t groups,
                    int64_t units);

/* (conv16) The wgmma configuration a weight gradient of n small-image
 * channels per group asks for on Hopper, 0 for mma.sync, under mode
 * (CLOPS_CONV_WGMMA_WGRAD: NULL or "1" the rule (the half types' on the
 * implicit path), "all" every weight gradient (float32 and the
 * samples-as-groups path, samples true, too), "0" none, a configuration's
 * name); half: float16 / bfloat16 images; the device's conditions are the
 * caller's (ops/conv/conv_gemm.c conv_wgrad_tile). */
int conv_wgrad_rule(const char *mode, int64_t n, bool samples, bool half);

/*
 * One product: S, B and W as conv_ref_product (any strides; the
 * destination already has its final shape), bias (NULL: none) added to the
 * destination's channels for CONV_TO_SMALL and CONV_TO_BIG.  The CPU device
 * runs the reference; OpenCL devices the GEMM strategy of ops/conv/conv_gemm.c.
 */
clops_status conv_product(const char *op, const conv_geom *g, conv_dir dir, clops_tensor *S,
                          clops_tensor *B, clops_tensor *W, clops_tensor *bias);

/*
 * A forward product (CONV_TO_SMALL or CONV_TO_BIG) with epilogue e (its
 * vectors and residual on the destination's device and dtype; the residual
 * must not overlap the destination).  The CPU device runs the reference
 * (ref/conv.c: op by op in double, one rounding); OpenCL devices the matrix
 * engine's implicit GEMM with the affine folded into the weight and bias
 * (conv_cl_fold) and the rest in the engine's store, depthwise geometry
 * its direct kernel with the whole epilogue, anything else the product and
 * then the epilogue as one pass (conv_cl_epilogue_pass; float16/bfloat16
 * there in float32, rounded once).
 */
clops_status conv_product_epi(const char *op, const conv_geom *g, conv_dir dir, clops_tensor *S,
                              clops_tensor *B, clops_tensor *W, const conv_epi *e);

#endif /* CLOPS_OPS_CONV_H */
