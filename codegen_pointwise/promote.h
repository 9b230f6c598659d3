/* SPDX-License-Identifier: Apache-2.0 */
/*
 * codegen_pointwise/promote.h: PyTorch's type promotion for pointwise ops.
 *
 * This is the dtype step of the pointwise generator (DESIGN.md, "Pointwise
 * generator"): given the operands of an op it computes the common dtype that
 * torch.result_type / TensorIterator would pick, then the dtype the kernel
 * computes in and the dtype of the result, according to the op's promotion
 * method (the ELEMENTWISE_TYPE_PROMOTION_KIND of torch._prims_common).
 *
 * The rules, in short:
 *   - Operands fall in three categories, from highest to lowest priority:
 *     dimensioned tensors (ndim >= 1), zero-dim tensors, and Python-style
 *     scalars.  Inside each category dtypes are combined with
 *     pw_promote_types().
 *   - Dtypes have a kind: bool < integral < floating.  A lower-priority
 *     category changes the result only when its kind is higher than the kind
 *     of the higher-priority categories present, or when those are bool:
 *     int32 tensor + zero-dim int64 -> int32, int32 tensor + zero-dim float64
 *     -> float64, uint8 tensor + Python int -> uint8, bool tensor + Python
 *     int -> int64, float16 tensor + Python float -> float16.
 *   - A Python float scalar counts as the default dtype float32, a Python int
 *     as int64 and a Python bool as bool.
 *
 * Everything here is pure table lookup: no allocation, thread-safe, and no
 * function but pw_promotion_from_name() can fail.  Op-level refusals (an op
 * without a Scalar overload, bitwise ops on floats, abs on bool...) are not
 * promotion and belong to the operator table; tests/test_promote.c lists the
 * ones PyTorch 2.11 applies to the ops of tests/data/type_promotion.jsonl.
 */
#ifndef CLOPS_CODEGEN_POINTWISE_PROMOTE_H
#define CLOPS_CODEGEN_POINTWISE_PROMOTE_H

#include <stdbool.h>

#include "clops/dtype.h"
#include "clops/status.h"

/* PyTorch's default floating dtype (torch.get_default_dtype()); clops does not
 * let it be changed.  Python float scalars and INT_TO_FLOAT results use it. */
#define PW_DEFAULT_FLOAT CLOPS_FLOAT32

/* Priority category of an operand in type promotion (highest first). */
typedef enum pw_operand_category {
    PW_CAT_TENSOR,  /* a tensor with ndim >= 1 */
    PW_CAT_ZERODIM, /* a tensor with ndim == 0 */
    PW_CAT_SCALAR   /* a Python-style scalar (a `Scalar` schema argument) */
} pw_operand_category;

/*
 * One operand as type promotion sees it.
 *
 * For PW_CAT_SCALAR the dtype is CLOPS_BOOL, CLOPS_INT64 or CLOPS_FLOAT64 by
 * the scalar's kind (pw_scalar_operand() builds it); only the kind matters, a
 * floating scalar always counts as PW_DEFAULT_FLOAT.
 *
 * no_promote marks an operand that takes no part in the common dtype, as in
 * PyTorch: the condition of `where`, the mask of `masked_fill`, the `alpha` of
 * add/sub and the `value` of addcmul/addcdiv (these scalars are cast to the
 * common dtype afterwards; the op checks that they fit).  It is the last field
 * so that `{PW_CAT_TENSOR, CLOPS_INT32}` and zero-initialised operands
 * participate.  out= tensors are not operands: check them with pw_can_cast().
 */
typedef struct pw_type_operand {
    pw_operand_category category;
    clops_dtype dtype;
    bool no_promote;
} pw_type_operand;

/*
 * X(ENUM, name): promotion methods, the ELEMENTWISE_TYPE_PROMOTION_KIND of
 * torch._prims_common (COMPLEX_TO_FLOAT is left out: clops has no complex
 * dtypes).  "common" below is the dtype pw_result_type() gives; "opmath" is
 * pw_opmath_dtype(common).
 *   DEFAULT       compute opmath, result common            (add, mul, neg)
 *   INT_TO_FLOAT  bool/integral common becomes float32 first, then as
 *                 DEFAULT                                  (div, sin, sqrt)
 *   ALWAYS_BOOL   compute opmath, result bool              (eq, isnan)
 *   NO_OPMATH     compute common, result common            (copy-like ops)
 *   BOOL_TO_LONG  bool common becomes int64 first, then as
 *                 DEFAULT                                  (sum-like ops)
 */
#define PW_PROMOTION_LIST(X)                                                        \
    X(DEFAULT, "default")                                                           \
    X(INT_TO_FLOAT, "int_to_float")                                                 \
    X(ALWAYS_BOOL, "always_bool")                                                   \
    X(NO_OPMATH, "no_opmath")                                                       \
    X(BOOL_TO_LONG, "bool_to_long")

typedef enum pw_promotion {
#define PW__PROMOTION_ENUM(e, name) PW_PROMOTE_##e,
    PW_PROMOTION_LIST(PW__PROMOTION_ENUM)
#undef PW__PROMOTION_ENUM
    PW_PROMOTE_COUNT
} pw_promotion;

/* "default", "int_to_float", ...; "invalid" for a value out of range.  Never
 * NULL; the string is static. */
const char *pw_promotion_name(pw_promotion p);

/* Parses a name of pw_promotion_name().  CLOPS_INVALID_ARGUMENT (with a
 * message) for an unknown name or a NULL argument; *out is left alone then. */
clops_status pw_promotion_from_name(const char *name, pw_promotion *out);

/*
 * torch.promote_types(a, b): the smallest dtype both can be converted to
 * within the lattice (uint8 + int8 -> int16, float16 + bfloat16 -> float32,
 * int64 + float16 -> float16, bool + x -> x).  Symmetric.  CLOPS_DTYPE_NONE
 * is the identity ("no dtype yet"); any other invalid value gives
 * CLOPS_DTYPE_NONE.
 */
clops_dtype pw_promote_types(clops_dtype a, clops_dtype b);

/*
 * torch.result_type over n operands (the common dtype of TensorIterator),
 * skipping operands marked no_promote.  CLOPS_DTYPE_NONE when no operand
 * takes part (n == 0 included), when ops is NULL with n > 0, or when an
 * operand has an invalid dtype or category.
 */
clops_dtype pw_result_type(const pw_type_operand *ops, int n);

/*
 * The dtype the kernel computes in and the dtype of the result for a common
 * dtype from pw_result_type(), by promotion method (see PW_PROMOTION_LIST).
 * Both are CLOPS_DTYPE_NONE if common or method is invalid.  Either pointer
 * may be NULL when that dtype is not wanted.
 */
void pw_compute_types(pw_promotion method, clops_dtype common, clops_dtype *compute,
                      clops_dtype *result);

/*
 * Whether PyTorch allows casting a computed `from` into `to` when writing an
 * in-place or out= result (c10::canCast): floating to integral or bool and
 * integral to bool are refused, everything else (bool to anything, integral
 * to floating, narrowing within a kind) is allowed.  False for invalid dtypes.
 */
bool pw_can_cast(clops_dtype from, clops_dtype to);

/* The "opmath" dtype kernels compute in for storage dtype d: float32 for
 * float16 and bfloat16, d itself otherwise (CLOPS_DTYPE_NONE included). */
clops_dtype pw_opmath_dtype(clops_dtype d);

/* The operand for a Python-style scalar: category PW_CAT_SCALAR, dtype
 * CLOPS_BOOL, CLOPS_INT64 or CLOPS_FLOAT64 by kind, taking part in promotion. */
pw_type_operand pw_scalar_operand(clops_scalar s);

/* The operand for a tensor of ndim dimensions and dtype d: PW_CAT_ZERODIM when
 * ndim == 0, PW_CAT_TENSOR otherwise, taking part in promotion. */
pw_type_operand pw_tensor_operand(clops_dtype d, int ndim);

#endif /* CLOPS_CODEGEN_POINTWISE_PROMOTE_H */
