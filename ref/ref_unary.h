/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ref/ref_unary.h: the C reference functions of the unary math, rounding,
 * classification and activation pointwise ops, and of the activations'
 * backward ops.
 *
 * These are the oracle of the device kernels (the `pointwise_op:` records of
 * dispatch/inventory/pointwise_unary.yaml point at them): each one
 * computes one element the way PyTorch defines the op, in double or long
 * double with C's libm, written independently of the OpenCL expressions.
 * The engine (ref/pw_ref.c) hands them operands already converted to the
 * compute type (.f for floating computes, rounded to float32 when the compute
 * dtype is not float64; .i for integer and bool computes) and rounds or wraps
 * their results to the result dtype.
 *
 * ref_unary.c holds the unary math and rounding ops, ref_activation.c the
 * activations and backward ops.  Every function has the pw_ref_fn signature.
 */
#ifndef CLOPS_REF_UNARY_H
#define CLOPS_REF_UNARY_H

#include "codegen_pointwise/ops_unary.h"

#define REF_UNARY__DECLARE(name) pw_value ref_unary_##name(const pw_ref_ctx *ctx, const pw_value *in);
#define REF_ACT__DECLARE(name) pw_value ref_act_##name(const pw_ref_ctx *ctx, const pw_value *in);
PW_UNARY_MATH_OPS(REF_UNARY__DECLARE)
PW_ACTIVATION_OPS(REF_ACT__DECLARE)
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
