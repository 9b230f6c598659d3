/* SPDX-License-Identifier: Apache-2.0 */
/*
 * codegen_pointwise/ops_binary.h: the binary, ternary, comparison, logical
 * and bitwise pointwise ops, and the structured family functions for the
 * schemas that do not map one to one onto a pw_op.
 *
 * The pw_op records are generated from their `pointwise_op:` entries in
 * dispatch/inventory/pointwise_binary.yaml (arithmetic, floating functions,
 * heaviside, comparisons, min/max, clamp, where, masked_fill, logical and
 * bitwise ops) into codegen_pointwise/pw_ops_generated.c; their C
 * references in ref/ref_*.c; the family functions in glue_binary.c and
 * glue_select.c.  The same inventory file binds schemas to them.  The list
 * below declares the records (and, in ref/ref_binary.h, the references).
 *
 * Family functions follow docs/operator-inventory.md: (variant, dst,
 * functional arguments..., out); PW_FUNCTIONAL returns a new tensor in *out,
 * PW_INPLACE writes into dst (== self), PW_OUT into dst (resized when its
 * shape differs).  PyTorch's irregularly named in-place schemas (pow_.Scalar
 * for pow.Tensor_Scalar, __iand__ for __and__, ...) are inventory entries of
 * their own (`variant: inplace`) bound to the same functions.
 */
#ifndef CLOPS_CODEGEN_POINTWISE_OPS_BINARY_H
#define CLOPS_CODEGEN_POINTWISE_OPS_BINARY_H

#include "codegen_pointwise/pw.h"
#include "ref/ref_binary.h"

/* X(name): every pw_op of this family (C symbol pw_op_<name>): the ops
 * ref/ref_binary.h lists, each with its reference there. */
#define PW_BINARY_OPS(X) REF_BINARY_OPS(X)

#define PW_BINARY_DECLARE(name) extern const pw_op pw_op_##name;
PW_BINARY_OPS(PW_BINARY_DECLARE)
#undef PW_BINARY_DECLARE

/* ---- family functions (glue_binary.c) ----------------------------------- */

/* sub.Tensor / sub.Scalar: refuse bool operands as PyTorch does. */
clops_status pw_fn_sub_tensor(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                              clops_tensor *other, clops_scalar alpha, clops_tensor **out);
clops_status pw_fn_sub_scalar(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                              clops_scalar other, clops_scalar alpha, clops_tensor **out);
/* rsub.Tensor / rsub.Scalar: other - alpha * self. */
clops_status pw_fn_rsub_tensor(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                               clops_tensor *other, clops_scalar alpha, clops_tensor **out);
clops_status pw_fn_rsub_scalar(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                               clops_scalar other, clops_scalar alpha, clops_tensor **out);
/* div.Tensor_mode / div.Scalar_mode: rounding_mode NULL, "trunc" or "floor". */
clops_status pw_fn_div_tensor_mode(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                                   clops_tensor *other, const char *rounding_mode,
                                   clops_tensor **out);
clops_status pw_fn_div_scalar_mode(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                                   clops_scalar other, const char *rounding_mode,
                                   clops_tensor **out);
/* pow.Tensor_Tensor, pow.Tensor_Scalar (exponent 0 fills 1, 1 copies, a
 * negative integer exponent of an integer tensor is an error), pow.Scalar
 * (base 1 fills 1). */
clops_status pw_fn_pow_tensor_tensor(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                                     clops_tensor *exponent, clops_tensor **out);
clops_status pw_fn_pow_tensor_scalar(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                                     clops_scalar exponent, clops_tensor **out);
clops_status pw_fn_pow_scalar(pw_variant variant, clops_tensor *dst, clops_scalar self,
                              clops_tensor *exponent, clops_tensor **out);
/* float_power.*: pow computed and returned in float64 (an error on devices
 * without fp64; out and in-place need a float64 destination). */
clops_status pw_fn_float_power_tensor_tensor(pw_variant variant, clops_tensor *dst,
                                             clops_tensor *self, clops_tensor *exponent,
                                             clops_tensor **out);
clops_status pw_fn_float_power_tensor_scalar(pw_variant variant, clops_tensor *dst,
                                             clops_tensor *self, clops_scalar exponent,
                                             clops_tensor **out);
clops_status pw_fn_float_power_scalar(pw_variant variant, clops_tensor *dst, clops_scalar self,
                                      clops_tensor *exponent, clops_tensor **out);
/* nextafter: steps in the common dtype's own format (float16/bfloat16 too). */
clops_status pw_fn_nextafter(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                             clops_tensor *other, clops_tensor **out);
/* heaviside: self, values (and out) must share one dtype. */
clops_status pw_fn_heaviside(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                             clops_tensor *values, clops_tensor **out);
/* lerp.Scalar / lerp.Tensor: self, end (and weight) must share one dtype. */
clops_status pw_fn_lerp_scalar(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                               clops_tensor *end, clops_scalar weight, clops_tensor **out);
clops_status pw_fn_lerp_tensor(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                               clops_tensor *end, clops_tensor *weight, clops_tensor **out);
/* addcdiv: integer tensor1 and tensor2 are refused, as in PyTorch. */
clops_status pw_fn_addcdiv(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                           clops_tensor *tensor1, clops_tensor *tensor2, clops_scalar value,
                           clops_tensor **out);

/* ---- family functions (glue_select.c) ----------------------------------- */

/* clamp (Scalar? bounds), clamp.Tensor (Tensor? bounds), clamp_min, clamp_max:
 * at least one bound; the bounds take part in type promotion. */
clops_status pw_fn_clamp(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                         const clops_scalar *min, const clops_scalar *max, clops_tensor **out);
clops_status pw_fn_clamp_tensor(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                                clops_tensor *min, clops_tensor *max, clops_tensor **out);
clops_status pw_fn_clamp_min(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                             clops_scalar min, clops_tensor **out);
clops_status pw_fn_clamp_max(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                             clops_scalar max, clops_tensor **out);
/* where.self and its scalar overloads: condition bool (uint8 accepted, as
 * PyTorch still does); an out tensor must have the result dtype exactly. */
clops_status pw_fn_where_self(pw_variant variant, clops_tensor *dst, clops_tensor *condition,
                              clops_tensor *self, clops_tensor *other, clops_tensor **out);
clops_status pw_fn_where_scalar_self(pw_variant variant, clops_tensor *dst,
                                     clops_tensor *condition, clops_scalar self,
                                     clops_tensor *other, clops_tensor **out);
clops_status pw_fn_where_scalar_other(pw_variant variant, clops_tensor *dst,
                                      clops_tensor *condition, clops_tensor *self,
                                      clops_scalar other, clops_tensor **out);
clops_status pw_fn_where_scalar(pw_variant variant, clops_tensor *dst, clops_tensor *condition,
                                clops_scalar self, clops_scalar other, clops_tensor **out);
/* masked_fill.Scalar / .Tensor (0-dim value): bool mask; self's dtype. */
clops_status pw_fn_masked_fill_scalar(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                                      clops_tensor *mask, clops_scalar value, clops_tensor **out);
clops_status pw_fn_masked_fill_tensor(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                                      clops_tensor *mask, clops_tensor *value, clops_tensor **out);
/* fill.Scalar / fill.Tensor (0-dim value): self's shape and dtype. */
clops_status pw_fn_fill_scalar(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                               clops_scalar value, clops_tensor **out);
clops_status pw_fn_fill_tensor(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                               clops_tensor *value, clops_tensor **out);

/* ---- helpers shared by the glue files (glue_binary.c) -------------------- */

struct structured_call;

/* The common dtype pw_run would compute for these operands (tensors by their
 * category, scalars by kind); CLOPS_DTYPE_NONE when none takes part. */
clops_dtype pw_glue_common_dtype(const pw_operand *operands, int n);
/* pw_run with the variant's destination and result conventions of a family
 * function (dst only for PW_OUT, *out only for PW_FUNCTIONAL); opts may
 * force compute/result dtypes (NULL: promote). */
clops_status pw_glue_run(const pw_op *op, const char *opname, pw_variant variant,
                         clops_tensor *dst, const pw_operand *operands, const clops_scalar *params,
                         const pw_options *opts, clops_tensor **out);
/* Starts a family call that writes without pw_run (fills and copies): the
 * functional target is new, of `dtype`, shaped and laid out like `like`;
 * in-place and out targets follow structured_begin's rules. */
clops_status pw_glue_begin_like(struct structured_call *call, const char *opname,
                                pw_variant variant, clops_tensor *dst, clops_tensor *like,
                                clops_dtype dtype);
/* The value a scalar takes once stored in dtype (integers wrapped, floats
 * rounded to the type), as a scalar of the dtype's kind. */
clops_scalar pw_glue_scalar_as(clops_scalar value, clops_dtype dtype);

/* ---- shared checks (glue_binary.c) --------------------------------------- */

/* PyTorch's Scalar::to<T>() overflow check (c10::checked_convert): whether
 * value fits dtype (bool always; an integer in [-max, max] fits an unsigned
 * type; a NaN or infinity never fits an integer type; a finite float beyond
 * a floating type's range does not fit).  CLOPS_INVALID_ARGUMENT with
 * PyTorch's message otherwise. */
clops_status pw_check_scalar_fits(const char *opname, clops_scalar value, clops_dtype dtype);

#endif /* CLOPS_CODEGEN_POINTWISE_OPS_BINARY_H */
