/* SPDX-License-Identifier: Apache-2.0 */
/*
 * codegen_pointwise/promote.c: PyTorch's type promotion (see promote.h).
 *
 * Three tables carry the rules: the kind of each dtype (bool < integral <
 * floating), the 10x10 promote_types lattice and the promotion-method names.
 * pw_result_type() folds each operand category into one dtype with the
 * lattice, then lets a lower-priority category through only where its kind is
 * higher; pw_compute_types() applies the op's promotion method on top.
 */
#include <assert.h>
#include <stddef.h>
#include <string.h>

#include "codegen_pointwise/promote.h"
#include "core/error.h"
#include "core/tensor_impl.h"

/* Kind of a dtype; the order is the promotion order between kinds. */
typedef enum pw_kind { KIND_BOOL, KIND_INT, KIND_FLOAT } pw_kind;

static_assert(CLOPS_DTYPE_COUNT == 10, "dtype tables below need a row per dtype");

static const pw_kind dtype_kind[CLOPS_DTYPE_COUNT] = {
    [CLOPS_BOOL] = KIND_BOOL,      [CLOPS_UINT8] = KIND_INT,      [CLOPS_INT8] = KIND_INT,
    [CLOPS_INT16] = KIND_INT,      [CLOPS_INT32] = KIND_INT,      [CLOPS_INT64] = KIND_INT,
    [CLOPS_FLOAT16] = KIND_FLOAT,  [CLOPS_BFLOAT16] = KIND_FLOAT, [CLOPS_FLOAT32] = KIND_FLOAT,
    [CLOPS_FLOAT64] = KIND_FLOAT,
};

/* Short names so the lattice below reads as a table. */
#define b1 CLOPS_BOOL
#define u1 CLOPS_UINT8
#define i1 CLOPS_INT8
#define i2 CLOPS_INT16
#define i4 CLOPS_INT32
#define i8 CLOPS_INT64
#define f2 CLOPS_FLOAT16
#define bf CLOPS_BFLOAT16
#define f4 CLOPS_FLOAT32
#define f8 CLOPS_FLOAT64

/*
 * promote_table[a][b] = torch.promote_types(a, b).  Any floating type beats
 * any integral type (int64 + float16 is float16); uint8 and int8 meet at
 * int16; float16 and bfloat16 meet at float32.  Symmetric by construction,
 * which the tests check.
 */
static const clops_dtype promote_table[CLOPS_DTYPE_COUNT][CLOPS_DTYPE_COUNT] = {
    /*        b1  u1  i1  i2  i4  i8  f2  bf  f4  f8 */
    /* b1 */ {b1, u1, i1, i2, i4, i8, f2, bf, f4, f8},
    /* u1 */ {u1, u1, i2, i2, i4, i8, f2, bf, f4, f8},
    /* i1 */ {i1, i2, i1, i2, i4, i8, f2, bf, f4, f8},
    /* i2 */ {i2, i2, i2, i2, i4, i8, f2, bf, f4, f8},
    /* i4 */ {i4, i4, i4, i4, i4, i8, f2, bf, f4, f8},
    /* i8 */ {i8, i8, i8, i8, i8, i8, f2, bf, f4, f8},
    /* f2 */ {f2, f2, f2, f2, f2, f2, f2, f4, f4, f8},
    /* bf */ {bf, bf, bf, bf, bf, bf, f4, bf, f4, f8},
    /* f4 */ {f4, f4, f4, f4, f4, f4, f4, f4, f4, f8},
    /* f8 */ {f8, f8, f8, f8, f8, f8, f8, f8, f8, f8},
};

#undef b1
#undef u1
#undef i1
#undef i2
#undef i4
#undef i8
#undef f2
#undef bf
#undef f4
#undef f8

/* Method names, expanded from the same list as the enum. */
static const char *const promotion_names[] = {
#define PROMOTION_NAME(e, name) name,
    PW_PROMOTION_LIST(PROMOTION_NAME)
#undef PROMOTION_NAME
};

static_assert(sizeof promotion_names / sizeof promotion_names[0] == PW_PROMOTE_COUNT,
              "promotion_names must have one entry per pw_promotion");

/* True for one of the ten real dtypes (not NONE, not out of range). */
static bool dtype_valid(clops_dtype d)
{
    return (int)d >= 0 && (int)d < CLOPS_DTYPE_COUNT;
}

/* Name of a promotion method; "invalid" when out of range. */
const char *pw_promotion_name(pw_promotion p)
{
    if ((int)p < 0 || (int)p >= PW_PROMOTE_COUNT)
        return "invalid";
    return promotion_names[p];
}

/* Linear search of the five names; records a message on failure. */
clops_status pw_promotion_from_name(const char *name, pw_promotion *out)
{
    if (!name || !out)
        return clops__fail(CLOPS_INVALID_ARGUMENT, "pw_promotion_from_name: NULL argument");
    for (int i = 0; i < PW_PROMOTE_COUNT; i++) {
        if (strcmp(name, promotion_names[i]) == 0) {
            *out = (pw_promotion)i;
            return CLOPS_OK;
        }
    }
    return clops__fail(CLOPS_INVALID_ARGUMENT,
                       "unknown type promotion method \"%s\" (expected default, int_to_float, "
                       "always_bool, no_opmath or bool_to_long)",
                       name);
}

/* Table lookup, with CLOPS_DTYPE_NONE as the identity. */
clops_dtype pw_promote_types(clops_dtype a, clops_dtype b)
{
    if (a == CLOPS_DTYPE_NONE)
        return dtype_valid(b) ? b : CLOPS_DTYPE_NONE;
    if (b == CLOPS_DTYPE_NONE)
        return dtype_valid(a) ? a : CLOPS_DTYPE_NONE;
    if (!dtype_valid(a) || !dtype_valid(b))
        return CLOPS_DTYPE_NONE;
    return promote_table[a][b];
}

/*
 * The dtype an operand brings into its category: its own, except that a
 * scalar only brings its kind and a floating scalar counts as the default
 * float dtype.  CLOPS_DTYPE_NONE for an invalid dtype.
 */
static clops_dtype operand_dtype(const pw_type_operand *op)
{
    static const clops_dtype scalar_dtype_of_kind[] = {
        [KIND_BOOL] = CLOPS_BOOL,
        [KIND_INT] = CLOPS_INT64,
        [KIND_FLOAT] = PW_DEFAULT_FLOAT,
    };
    if (!dtype_valid(op->dtype))
        return CLOPS_DTYPE_NONE;
    if (op->category == PW_CAT_SCALAR)
        return scalar_dtype_of_kind[dtype_kind[op->dtype]];
    return op->dtype;
}

/*
 * Combines the dtype of a higher-priority category with that of a lower one:
 * the lower one wins only where its kind is strictly higher (an integral
 * zero-dim tensor never widens an integral tensor, a floating one turns it
 * floating).  In that case the lattice gives the lower dtype itself, because
 * a higher kind always beats a lower one, so no promotion is needed.
 */
static clops_dtype combine_categories(clops_dtype higher, clops_dtype lower)
{
    if (higher == CLOPS_DTYPE_NONE)
        return lower;
    if (lower == CLOPS_DTYPE_NONE)
        return higher;
    return dtype_kind[lower] > dtype_kind[higher] ? lower : higher;
}

/* Folds each category with the lattice, then combines tensor > zero-dim > scalar. */
clops_dtype pw_result_type(const pw_type_operand *ops, int n)
{
    clops_dtype per_category[3] = {CLOPS_DTYPE_NONE, CLOPS_DTYPE_NONE, CLOPS_DTYPE_NONE};
    if (!ops || n <= 0)
        return CLOPS_DTYPE_NONE;
    for (int i = 0; i < n; i++) {
        const pw_type_operand *op = &ops[i];
        if (op->no_promote)
            continue;
        if ((int)op->category < PW_CAT_TENSOR || (int)op->category > PW_CAT_SCALAR)
            return CLOPS_DTYPE_NONE;
        clops_dtype d = operand_dtype(op);
        if (d == CLOPS_DTYPE_NONE)
            return CLOPS_DTYPE_NONE;
        per_category[op->category] = pw_promote_types(per_category[op->category], d);
    }
    return combine_categories(
        per_category[PW_CAT_TENSOR],
        combine_categories(per_category[PW_CAT_ZERODIM], per_category[PW_CAT_SCALAR]));
}

/* float16 and bfloat16 compute in float32. */
clops_dtype pw_opmath_dtype(clops_dtype d)
{
    return d == CLOPS_FLOAT16 || d == CLOPS_BFLOAT16 ? CLOPS_FLOAT32 : d;
}

/* Applies the promotion method to the common dtype (see PW_PROMOTION_LIST). */
void pw_compute_types(pw_promotion method, clops_dtype common, clops_dtype *compute,
                      clops_dtype *result)
{
    clops_dtype c = CLOPS_DTYPE_NONE;
    clops_dtype r = CLOPS_DTYPE_NONE;
    if (dtype_valid(common) && (int)method >= 0 && (int)method < PW_PROMOTE_COUNT) {
        /* First the method may replace the common dtype... */
        if (method == PW_PROMOTE_INT_TO_FLOAT && dtype_kind[common] != KIND_FLOAT)
            common = PW_DEFAULT_FLOAT;
        else if (method == PW_PROMOTE_BOOL_TO_LONG && common == CLOPS_BOOL)
            common = CLOPS_INT64;
        /* ...then it decides whether to widen for computing and what to store. */
        c = method == PW_PROMOTE_NO_OPMATH ? common : pw_opmath_dtype(common);
        r = method == PW_PROMOTE_ALWAYS_BOOL ? CLOPS_BOOL : common;
    }
    if (compute)
        *compute = c;
    if (result)
        *result = r;
}

/* c10::canCast without complex types: the kind may stay or rise, never fall. */
bool pw_can_cast(clops_dtype from, clops_dtype to)
{
    return dtype_can_cast(from, to);
}

/* A scalar operand: category SCALAR, the dtype standing for its kind. */
pw_type_operand pw_scalar_operand(clops_scalar s)
{
    pw_type_operand op = {PW_CAT_SCALAR, CLOPS_FLOAT64, false};
    if (s.kind == CLOPS_SCALAR_BOOL)
        op.dtype = CLOPS_BOOL;
    else if (s.kind == CLOPS_SCALAR_INT)
        op.dtype = CLOPS_INT64;
    return op;
}

/* A tensor operand: ZERODIM when ndim == 0, TENSOR otherwise. */
pw_type_operand pw_tensor_operand(clops_dtype d, int ndim)
{
    pw_type_operand op = {ndim == 0 ? PW_CAT_ZERODIM : PW_CAT_TENSOR, d, false};
    return op;
}
