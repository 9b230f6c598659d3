/* SPDX-License-Identifier: Apache-2.0 */
/*
 * clops/pointwise.h: registering your own pointwise operators.
 *
 * Give a schema, an OpenCL C expression and a promotion rule; clops makes an
 * operator that broadcasts, takes any strides and storage offsets, promotes
 * dtypes like PyTorch, has functional / in-place / out variants, dispatches
 * on every OpenCL device and caches its compiled kernels, exactly like the
 * built-in pointwise ops.  Think PyOpenCL's ElementwiseKernel, with
 * broadcasting and dispatch.
 *
 *     static const clops_pointwise_def def = {
 *         .schema = "scaled_diff(Tensor self, Tensor other, *, Scalar scale=1) -> Tensor",
 *         .expr = "(a - b) * p0",          // a, b: operands; p0: parameter
 *         .params = "scale",               // Scalar arguments that are parameters
 *         .promotion = "default",
 *     };
 *     const clops_op *op;
 *     clops_pointwise_register(&def, &op);
 *     // then call it boxed: clops_call_boxed(op, args, 3, rets, 1)
 *
 * In the expression, the operands (the schema's Tensor and Scalar arguments
 * that are not parameters, in order) are `a`, `b`, `c`, `d`, already
 * converted to the compute type; parameters are `p0`, `p1`, ... in the order
 * of `params`; `$T` is the compute type's OpenCL name (float, double, int,
 * ...), so `($T)0.5` or `fmax(a, ($T)0)` work for every dtype.  The value of
 * the expression is converted to the output dtype.  The program is built
 * with `#pragma OPENCL FP_CONTRACT OFF` (every multiply and add rounds as
 * written, the same bits on every device); write `fma(x, y, z)` where one
 * rounding is wanted.
 */
#ifndef CLOPS_POINTWISE_H
#define CLOPS_POINTWISE_H

#include <stdint.h>

#include "clops/dispatch.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Optional CPU version of the expression, for the CPU device and as the
 * oracle in checks: in[] are the operands and params[] the parameters as
 * doubles; the result is converted to the output dtype.  `user` is
 * clops_pointwise_def.user.  Must be thread-safe.
 */
typedef double (*clops_pointwise_ref_fn)(const double *in, const double *params, void *user);

/*
 * Limits on what a definition may hold, checked at registration
 * (CLOPS_INVALID_ARGUMENT beyond them): OpenCL compilers parse and walk
 * expressions recursively, and a very long chain of operators or very deep
 * brackets overflows the compiler's stack inside the driver.  Each of expr,
 * expr_int and expr_bool may be at most CLOPS_POINTWISE_MAX_EXPR_LEN bytes
 * with brackets ((), [], {}) nested at most CLOPS_POINTWISE_MAX_NESTING
 * deep, a run of prefix operators (! ~ - +) counting one level per
 * operator on top of the brackets around it; helpers at most
 * CLOPS_POINTWISE_MAX_HELPERS_LEN bytes with the same nesting limit
 * (comments skipped).
 */
#define CLOPS_POINTWISE_MAX_EXPR_LEN 4096
#define CLOPS_POINTWISE_MAX_HELPERS_LEN 16384
#define CLOPS_POINTWISE_MAX_NESTING 32

typedef struct clops_pointwise_def {
    const char *schema;    /* functional schema, returning one Tensor */
    const char *expr;      /* OpenCL C expression for floating computes (and others
                              unless expr_int / expr_bool are given) */
    const char *expr_int;  /* optional: for integer computes */
    const char *expr_bool; /* optional: for bool computes */
    const char *helpers;   /* optional: OpenCL C functions the expression calls */
    const char *params;    /* comma-separated names of Scalar arguments that are
                              parameters (not operands); may be NULL */
    const char *promotion; /* "default", "int_to_float", "always_bool", "no_opmath",
                              "bool_to_long", or "none" (below); NULL means "default" */
    uint32_t dtypes;       /* bit (1u << clops_dtype) per accepted common dtype;
                              0 means the floating dtypes */
    const char *tags;      /* optional; "pointwise" is always added */
    bool variants;         /* also register name_ (in place) and name.out */
    clops_pointwise_ref_fn ref; /* optional CPU version; without it the op has no
                                   CPU kernel (and no CPU fallback) */
    void *user;                 /* passed to ref */
    const char *result;         /* optional dtype name ("float32", "bool", ...): the
                                   result dtype whatever the promotion says; the
                                   expression's value is converted to it */
} clops_pointwise_def;

/*
 * Promotion "none" (generated code, e.g. a compiler fusing several ops into
 * one expression that does its own conversions): nothing is promoted; each
 * operand is read in its own dtype's compute type (float16 and bfloat16 as
 * float, float32 as float, float64 as double, integers as their own type,
 * bool as uchar 0/1), the expression converts explicitly, `$T` has no
 * meaning, and `result` is required (the expression's value is of that
 * dtype's compute type).  Such an op takes Tensor operands only (no
 * parameters, no Scalar arguments) and accepts every dtype.
 */

/*
 * Registers the operator (and its variants).  The definition's strings are
 * copied.  On success *op (may be NULL) is the functional operator; the
 * variants are found with clops_op_find ("name_", "name.out").  Errors:
 * CLOPS_SCHEMA_ERROR (the message points into the schema),
 * CLOPS_ALREADY_REGISTERED, CLOPS_INVALID_ARGUMENT (unknown promotion,
 * parameter names not in the schema, more than 4 operands or parameters,
 * non-Tensor/Scalar arguments, an expression or helpers beyond the limits
 * above, promotion "none" without a result dtype or with parameters or
 * Scalar arguments), CLOPS_INVALID_DTYPE (an unknown result dtype name).  The expression is compiled on the first
 * call on each device; a syntax error then fails that call with
 * CLOPS_BUILD_FAILURE and the build log.
 */
CLOPS_API clops_status clops_pointwise_register(const clops_pointwise_def *def, const clops_op **op);

#ifdef __cplusplus
}
#endif

#endif /* CLOPS_POINTWISE_H */
