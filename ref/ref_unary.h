/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ref/ref_unary.h: the C reference functions of the unary math, rounding,
 * classification and activation pointwise ops, and of the activations'
 * backward ops.
 *
 * These are the oracle of the device kernels (the pointwise records generated
 * from dispatch/inventory/pointwise_unary.yaml): each one
 * computes one element the way PyTorch defines the op, in double or long
 * double with C's libm, written independently of the OpenCL expressions.
 * The walk (ref/pointwise.c) hands them operands already converted to the
 * compute type (.f for floating computes, rounded to float32 when the compute
 * dtype is not float64; .i for integer and bool computes) and rounds or wraps
 * their results to the result dtype.
 *
 * ref_unary.c holds the unary math and rounding ops, ref_activation.c the
 * activations and backward ops.  Every function is a ref_pw_fn (ref/ref_pw.h).
 */
#ifndef CLOPS_REF_UNARY_H
#define CLOPS_REF_UNARY_H

#include "ref/ref_pw.h"

/* X(name): the unary math, rounding and classification ops by name, with
 * their reference functions ref_unary_<name> (ref/ref_unary.c). */
#define REF_UNARY_MATH_OPS(X)                                                   \
    X(abs)                                                                      \
    X(neg)                                                                      \
    X(sign)                                                                     \
    X(signbit)                                                                  \
    X(square)                                                                   \
    X(reciprocal)                                                               \
    X(floor)                                                                    \
    X(ceil)                                                                     \
    X(round)                                                                    \
    X(round_decimals)                                                           \
    X(trunc)                                                                    \
    X(frac)                                                                     \
    X(isnan)                                                                    \
    X(isinf)                                                                    \
    X(isposinf)                                                                 \
    X(isneginf)                                                                 \
    X(isfinite)                                                                 \
    X(nan_to_num)                                                               \
    X(deg2rad)                                                                  \
    X(rad2deg)                                                                  \
    X(sqrt)                                                                     \
    X(rsqrt)                                                                    \
    X(exp)                                                                      \
    X(exp2)                                                                     \
    X(expm1)                                                                    \
    X(log)                                                                      \
    X(log2)                                                                     \
    X(log10)                                                                    \
    X(log1p)                                                                    \
    X(sin)                                                                      \
    X(cos)                                                                      \
    X(tan)                                                                      \
    X(asin)                                                                     \
    X(acos)                                                                     \
    X(atan)                                                                     \
    X(sinh)                                                                     \
    X(cosh)                                                                     \
    X(tanh)                                                                     \
    X(asinh)                                                                    \
    X(acosh)                                                                    \
    X(atanh)                                                                    \
    X(erf)                                                                      \
    X(erfc)                                                                     \
    X(erfinv)                                                                   \
    X(lgamma)                                                                   \
    X(digamma)                                                                  \
    X(sinc)

/* X(name): the activations and their backward ops by name, with their
 * reference functions ref_act_<name> (ref/ref_activation.c). */
#define REF_ACTIVATION_OPS(X)                                                   \
    X(relu)                                                                     \
    X(hardtanh)                                                                 \
    X(leaky_relu)                                                               \
    X(elu)                                                                      \
    X(gelu)                                                                     \
    X(gelu_tanh)                                                                \
    X(silu)                                                                     \
    X(mish)                                                                     \
    X(softplus)                                                                 \
    X(softshrink)                                                               \
    X(hardshrink)                                                               \
    X(hardsigmoid)                                                              \
    X(hardswish)                                                                \
    X(sigmoid)                                                                  \
    X(logsigmoid)                                                               \
    X(logit)                                                                    \
    X(threshold)                                                                \
    X(threshold_backward)                                                       \
    X(gelu_backward)                                                            \
    X(gelu_backward_tanh)                                                       \
    X(silu_backward)                                                            \
    X(sigmoid_backward)                                                         \
    X(tanh_backward)                                                            \
    X(leaky_relu_backward)                                                      \
    X(elu_backward)                                                             \
    X(elu_backward_result)                                                      \
    X(softplus_backward)                                                        \
    X(hardsigmoid_backward)                                                     \
    X(hardswish_backward)                                                       \
    X(logit_backward)

#define REF_UNARY__DECLARE(name) ref_value ref_unary_##name(const ref_pw_ctx *ctx, const ref_value *in);
#define REF_ACT__DECLARE(name) ref_value ref_act_##name(const ref_pw_ctx *ctx, const ref_value *in);
REF_UNARY_MATH_OPS(REF_UNARY__DECLARE)
REF_ACTIVATION_OPS(REF_ACT__DECLARE)
#undef REF_UNARY__DECLARE
#undef REF_ACT__DECLARE

/* Special functions the references share (double in, double out, computed
 * in long double): PyTorch's conventions at the poles and edges. */
/* erfinv: +-inf at +-1, NaN outside [-1, 1], keeps the sign of zero. */
double ref_erfinv(double x);
/* digamma: -inf at +0, +inf at -0, NaN at negative integers and -inf. */
double ref_digamma(double x);
/* sin(pi x) with exact argument reduction (0 at every integer). */
double ref_sinpi(double x);

#endif /* CLOPS_REF_UNARY_H */
