/* SPDX-License-Identifier: Apache-2.0 */
/*
 * codegen_pointwise/ops_unary.h: the unary math, rounding, classification
 * and activation pointwise ops, their backward ops, and the structured glue
 * functions of the ones whose schema does not map one-to-one onto a pw_op.
 *
 * The pw_op records (sign, rounding, classification, angles, libm-style
 * functions, erfinv, digamma, sinc, activations and their gradients) are
 * generated from their `pointwise_op:` entries in
 * dispatch/inventory/pointwise_unary.yaml into
 * codegen_pointwise/pw_ops_generated.c; their C references are in
 * ref/ref_unary.c and ref/ref_activation.c.
 * dispatch/inventory/pointwise_unary.yaml binds them to PyTorch's schemas, either
 * directly (`pointwise: NAME`) or through the glue functions below
 * (glue_unary.c), which take the structured family signature of
 * docs/operator-inventory.md.
 *
 * Some records serve several schemas: sgn is `sign`; selu, celu call `elu`;
 * relu6 calls `hardtanh`; round.decimals with decimals == 0 calls `round`.
 */
#ifndef CLOPS_CODEGEN_POINTWISE_OPS_UNARY_H
#define CLOPS_CODEGEN_POINTWISE_OPS_UNARY_H

#include "codegen_pointwise/pw.h"
#include "ref/ref_unary.h"

/* X(name): the unary math, rounding and classification ops, as pw_op_<name>
 * (generated from the inventory): the ops ref/ref_unary.h lists, whose references are
 * ref_unary_<name> (ref/ref_unary.c). */
#define PW_UNARY_MATH_OPS(X) REF_UNARY_MATH_OPS(X)

/* X(name): the activations and their backward ops (generated from the
 * inventory): the ops ref/ref_unary.h lists, whose references are ref_act_<name>
 * (ref/ref_activation.c). */
#define PW_ACTIVATION_OPS(X) REF_ACTIVATION_OPS(X)

/* X(name): every pw_op record of this family, as pw_op_<name>. */
#define PW_UNARY_OPS(X) PW_UNARY_MATH_OPS(X) PW_ACTIVATION_OPS(X)

#define PW_UNARY__DECLARE(name) extern const pw_op pw_op_##name;
PW_UNARY_OPS(PW_UNARY__DECLARE)
#undef PW_UNARY__DECLARE

/*
 * Structured family functions (glue_unary.c).  Each implements the
 * functional (variant PW_FUNCTIONAL: the result in *out), in-place
 * (PW_INPLACE: into self, or grad_output for backward ops) and out
 * (PW_OUT: into dst) forms of one schema family; `out` may be NULL except
 * for the functional form.  logit and logit_backward pass their records
 * two parameters, eps and 1 - eps, rounded to the dtype as PyTorch does.  Optional floats are NULL for None; a NULL
 * approximate string means 'none'.  Errors follow PyTorch's checks and
 * messages.
 */

/* gelu(Tensor self, *, str approximate='none') */
clops_status pw_glue_gelu(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                          const char *approximate, clops_tensor **out);
/* gelu_backward(Tensor grad_output, Tensor self, *, str approximate='none') */
clops_status pw_glue_gelu_backward(pw_variant variant, clops_tensor *dst,
                                   clops_tensor *grad_output, clops_tensor *self,
                                   const char *approximate, clops_tensor **out);
/* nan_to_num(Tensor self, float? nan=None, float? posinf=None,
 * float? neginf=None): defaults 0, the dtype's largest and lowest finite
 * values; integer and bool tensors are copied; out must have self's dtype. */
clops_status pw_glue_nan_to_num(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                                const double *nan, const double *posinf, const double *neginf,
                                clops_tensor **out);
/* round.decimals(Tensor self, *, int decimals): floating dtypes only. */
clops_status pw_glue_round_decimals(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                                    int64_t decimals, clops_tensor **out);
/* logit(Tensor self, float? eps=None) */
clops_status pw_glue_logit(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                           const double *eps, clops_tensor **out);
/* logit_backward(Tensor grad_output, Tensor self, float? eps=None) */
clops_status pw_glue_logit_backward(pw_variant variant, clops_tensor *dst,
                                    clops_tensor *grad_output, clops_tensor *self,
                                    const double *eps, clops_tensor **out);
/* hardtanh(Tensor self, Scalar min_val=-1, Scalar max_val=1): integer
 * tensors use the limits truncated to integers; uint8 refuses negative
 * limits. */
clops_status pw_glue_hardtanh(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                              clops_scalar min_val, clops_scalar max_val, clops_tensor **out);
/* threshold(Tensor self, Scalar threshold, Scalar value): for integer
 * tensors both parameters must fit the dtype (PyTorch's checked Scalar
 * conversion). */
clops_status pw_glue_threshold(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                               clops_scalar threshold, clops_scalar value, clops_tensor **out);
/* threshold_backward(Tensor grad_output, Tensor self, Scalar threshold). */
clops_status pw_glue_threshold_backward(pw_variant variant, clops_tensor *dst,
                                        clops_tensor *grad_output, clops_tensor *self,
                                        clops_scalar threshold, clops_tensor **out);
/* relu6(Tensor self): hardtanh(self, 0, 6). */
clops_status pw_glue_relu6(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                           clops_tensor **out);
/* selu(Tensor self): elu with PyTorch's SELU alpha and scale. */
clops_status pw_glue_selu(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                          clops_tensor **out);
/* celu(Tensor self, Scalar alpha=1.0): elu(self, alpha, 1, 1 / alpha);
 * alpha 0 is an error. */
clops_status pw_glue_celu(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                          clops_scalar alpha, clops_tensor **out);
/* softshrink(Tensor self, Scalar lambd=0.5): lambd must be >= 0. */
clops_status pw_glue_softshrink(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                                clops_scalar lambd, clops_tensor **out);
/* hardshrink(Tensor self, Scalar lambd=0.5): lambd is compared in the
 * tensor's dtype (rounded to float16/bfloat16 for those), as in PyTorch. */
clops_status pw_glue_hardshrink(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                                clops_scalar lambd, clops_tensor **out);
/* leaky_relu_backward(Tensor grad_output, Tensor self, Scalar negative_slope,
 * bool self_is_result): a negative slope with self_is_result is an error. */
clops_status pw_glue_leaky_relu_backward(pw_variant variant, clops_tensor *dst,
                                         clops_tensor *grad_output, clops_tensor *self,
                                         clops_scalar negative_slope, bool self_is_result,
                                         clops_tensor **out);
/* elu_backward(Tensor grad_output, Scalar alpha, Scalar scale,
 * Scalar input_scale, bool is_result, Tensor self_or_result): a negative
 * alpha with is_result is an error. */
clops_status pw_glue_elu_backward(pw_variant variant, clops_tensor *dst,
                                  clops_tensor *grad_output, clops_scalar alpha,
                                  clops_scalar scale, clops_scalar input_scale, bool is_result,
                                  clops_tensor *self_or_result, clops_tensor **out);

#endif /* CLOPS_CODEGEN_POINTWISE_OPS_UNARY_H */
