/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/test_promote.c: type promotion against PyTorch (codegen_pointwise/promote.h).
 *
 * Two kinds of tests live here.  The unit tests pin each rule on its own:
 * the promote_types lattice, the three operand categories, can_cast, opmath
 * and every promotion method.  The data test replays all rows of
 * tests/data/type_promotion.jsonl (PyTorch 2.11's result dtypes for 25 ops
 * over every dtype and operand category) through pw_result_type() and
 * pw_compute_types() and must match every row, "error" rows included.
 *
 * Error rows mostly come from op-level rules, not from promotion.  The data
 * test carries a small model of those rules per op (op_models below); they
 * are what the operator table has to encode next to each op's promotion
 * method:
 *
 *   - No Scalar overload (atan2, maximum): PyTorch's schemas take only
 *     Tensors, so a Python scalar operand is refused; a zero-dim tensor works.
 *   - Integral-only kernels (bitwise_and, bitwise_not): a floating common
 *     dtype is refused, however it arose (int tensor & Python float too).
 *   - No bool kernel (neg, abs, floor, round, relu; pow and remainder for
 *     bool with bool): a bool common dtype is refused.  Mixed bool/int
 *     operands promote to an integral type first and are fine.  PyTorch's
 *     sub refuses bool in the same way (not in the data file).
 *   - pow.Tensor_Scalar short cut: an exponent equal to 0 or 1 (False/True
 *     included) is answered with fill(1) / copy without running the kernel,
 *     so bool tensor ** Python bool gives bool although bool ** bool
 *     tensors is refused.  This depends on the scalar's value; PyTorch also
 *     refuses an integral tensor to a negative Python int power.
 *   - Promotion methods: div, atan2, sin, sqrt, exp, sigmoid, reciprocal,
 *     erf are INT_TO_FLOAT; eq, isnan, logical_not are ALWAYS_BOOL; add, mul,
 *     pow, maximum, remainder, bitwise_*, neg, abs, floor, round, relu, sign
 *     are DEFAULT (pow with an integral tensor and a Python float gives
 *     float32 like any DEFAULT op; sign and floor/round keep integral dtypes).
 */
#include <assert.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <cmocka.h>

#include "codegen_pointwise/promote.h"

#ifndef CLOPS_TEST_DATA_DIR
#error "CLOPS_TEST_DATA_DIR must name the tests/data directory"
#endif

#define PROMOTION_FILE CLOPS_TEST_DATA_DIR "/type_promotion.jsonl"
#define PROMOTION_ROWS 4290

#define NDTYPES CLOPS_DTYPE_COUNT

/* ------------------------------------------------------------------------ */
/* Dtype names and shorthands                                                */
/* ------------------------------------------------------------------------ */

/* Dtype names from the one dtype list (core/dtype.c is not linked here). */
static const char *const dtype_names[] = {
#define DTYPE_NAME(e, name, size) name,
    CLOPS_DTYPE_LIST(DTYPE_NAME)
#undef DTYPE_NAME
};

/* Name of a dtype, "none" for CLOPS_DTYPE_NONE and "invalid" otherwise. */
static const char *dt_name(clops_dtype d)
{
    if (d == CLOPS_DTYPE_NONE)
        return "none";
    if ((int)d < 0 || (int)d >= NDTYPES)
        return "invalid";
    return dtype_names[d];
}

/* Dtype by name; CLOPS_DTYPE_NONE if unknown. */
static clops_dtype dt_from_name(const char *name)
{
    for (int i = 0; i < NDTYPES; i++)
        if (strcmp(dtype_names[i], name) == 0)
            return (clops_dtype)i;
    return CLOPS_DTYPE_NONE;
}

/* Shorthand operand builders so tests read like the PyTorch expression. */
static pw_type_operand T(clops_dtype d)
{
    return pw_tensor_operand(d, 2);
}

static pw_type_operand Z(clops_dtype d)
{
    return pw_tensor_operand(d, 0);
}

static pw_type_operand PYINT(void)
{
    return pw_scalar_operand(clops_scalar_int(2));
}

static pw_type_operand PYFLOAT(void)
{
    return pw_scalar_operand(clops_scalar_float(2.5));
}

static pw_type_operand PYBOOL(void)
{
    return pw_scalar_operand(clops_scalar_bool(true));
}

/* Checks result_type of a list of operands against expected, naming both. */
#define assert_result_type(expected, ...)                                           \
    do {                                                                            \
        const pw_type_operand ops_[] = {__VA_ARGS__};                               \
        clops_dtype got_ = pw_result_type(ops_, (int)(sizeof ops_ / sizeof ops_[0])); \
        if (got_ != (expected))                                                     \
            fail_msg("result_type(%s) = %s, expected %s", #__VA_ARGS__,             \
                     dt_name(got_), dt_name(expected));                             \
    } while (0)

#define B CLOPS_BOOL
#define U8 CLOPS_UINT8
#define I8 CLOPS_INT8
#define I16 CLOPS_INT16
#define I32 CLOPS_INT32
#define I64 CLOPS_INT64
#define F16 CLOPS_FLOAT16
#define BF16 CLOPS_BFLOAT16
#define F32 CLOPS_FLOAT32
#define F64 CLOPS_FLOAT64

/* ------------------------------------------------------------------------ */
/* promote_types                                                             */
/* ------------------------------------------------------------------------ */

/*
 * torch.promote_types for every pair, spelled out by name as PyTorch prints
 * it (rows and columns in clops_dtype order: bool uint8 int8 int16 int32
 * int64 float16 bfloat16 float32 float64).
 */
static const char *const expected_promote[NDTYPES][NDTYPES] = {
    {"bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32",
     "float64"},
    {"uint8", "uint8", "int16", "int16", "int32", "int64", "float16", "bfloat16", "float32",
     "float64"},
    {"int8", "int16", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32",
     "float64"},
    {"int16", "int16", "int16", "int16", "int32", "int64", "float16", "bfloat16", "float32",
     "float64"},
    {"int32", "int32", "int32", "int32", "int32", "int64", "float16", "bfloat16", "float32",
     "float64"},
    {"int64", "int64", "int64", "int64", "int64", "int64", "float16", "bfloat16", "float32",
     "float64"},
    {"float16", "float16", "float16", "float16", "float16", "float16", "float16", "float32",
     "float32", "float64"},
    {"bfloat16", "bfloat16", "bfloat16", "bfloat16", "bfloat16", "bfloat16", "float32",
     "bfloat16", "float32", "float64"},
    {"float32", "float32", "float32", "float32", "float32", "float32", "float32", "float32",
     "float32", "float64"},
    {"float64", "float64", "float64", "float64", "float64", "float64", "float64", "float64",
     "float64", "float64"},
};

/* Every pair of promote_types matches PyTorch's lattice. */
static void test_promote_types_matches_pytorch_table(void **state)
{
    (void)state;
    int bad = 0;
    for (int a = 0; a < NDTYPES; a++) {
        for (int b = 0; b < NDTYPES; b++) {
            clops_dtype got = pw_promote_types((clops_dtype)a, (clops_dtype)b);
            if (strcmp(dt_name(got), expected_promote[a][b]) != 0) {
                print_error("promote_types(%s, %s) = %s, expected %s\n", dtype_names[a],
                            dtype_names[b], dt_name(got), expected_promote[a][b]);
                bad++;
            }
        }
    }
    assert_int_equal(bad, 0);
}

/* The named pairs of the spec: mixed signedness, mixed half types, int+half. */
static void test_promote_types_notable_pairs(void **state)
{
    (void)state;
    assert_int_equal(pw_promote_types(U8, I8), I16);
    assert_int_equal(pw_promote_types(F16, BF16), F32);
    assert_int_equal(pw_promote_types(I64, F16), F16);
    assert_int_equal(pw_promote_types(I64, BF16), BF16);
    assert_int_equal(pw_promote_types(U8, I64), I64);
    assert_int_equal(pw_promote_types(I32, F32), F32);
}

/* The lattice is symmetric and idempotent, and bool is its bottom. */
static void test_promote_types_symmetric_idempotent_bool_bottom(void **state)
{
    (void)state;
    for (int a = 0; a < NDTYPES; a++) {
        assert_int_equal(pw_promote_types((clops_dtype)a, (clops_dtype)a), a);
        assert_int_equal(pw_promote_types(B, (clops_dtype)a), a);
        for (int b = 0; b < NDTYPES; b++)
            assert_int_equal(pw_promote_types((clops_dtype)a, (clops_dtype)b),
                             pw_promote_types((clops_dtype)b, (clops_dtype)a));
    }
}

/* NONE means "no dtype yet" and is the identity; invalid values give NONE. */
static void test_promote_types_none_and_invalid(void **state)
{
    (void)state;
    assert_int_equal(pw_promote_types(CLOPS_DTYPE_NONE, I8), I8);
    assert_int_equal(pw_promote_types(F16, CLOPS_DTYPE_NONE), F16);
    assert_int_equal(pw_promote_types(CLOPS_DTYPE_NONE, CLOPS_DTYPE_NONE), CLOPS_DTYPE_NONE);
    assert_int_equal(pw_promote_types(CLOPS_DTYPE_COUNT, I8), CLOPS_DTYPE_NONE);
    assert_int_equal(pw_promote_types(I8, (clops_dtype)-7), CLOPS_DTYPE_NONE);
    assert_int_equal(pw_promote_types(CLOPS_DTYPE_NONE, CLOPS_DTYPE_COUNT), CLOPS_DTYPE_NONE);
}

/* ------------------------------------------------------------------------ */
/* Operand categories                                                        */
/* ------------------------------------------------------------------------ */

/* Tensors of the same category simply promote. */
static void test_result_type_same_category_promotes(void **state)
{
    (void)state;
    assert_result_type(I16, T(U8), T(I8));
    assert_result_type(F32, T(F16), T(BF16));
    assert_result_type(I16, Z(U8), Z(I8));
    assert_result_type(F64, T(I64), T(F64));
    assert_result_type(I32, T(I32));
}

/* A zero-dim tensor of the same or lower kind does not widen a dimensioned one. */
static void test_result_type_zerodim_same_kind_does_not_widen(void **state)
{
    (void)state;
    assert_result_type(I32, T(I32), Z(I64));
    assert_result_type(U8, T(U8), Z(I8));
    assert_result_type(F16, T(F16), Z(F64));
    assert_result_type(BF16, T(BF16), Z(F16));
    assert_result_type(I8, T(I8), Z(B));
    assert_result_type(F32, T(F32), Z(I64));
}

/* A zero-dim tensor of a higher kind wins and keeps its own dtype. */
static void test_result_type_zerodim_higher_kind_keeps_its_dtype(void **state)
{
    (void)state;
    assert_result_type(F64, T(I32), Z(F64));
    assert_result_type(F16, T(I8), Z(F16));
    assert_result_type(BF16, T(I64), Z(BF16));
    assert_result_type(I8, T(B), Z(I8));
    assert_result_type(U8, T(B), Z(U8));
    assert_result_type(F16, T(B), Z(F16));
}

/* A Python float takes the default dtype float32 when it decides the kind. */
static void test_result_type_pyfloat_takes_default_dtype(void **state)
{
    (void)state;
    assert_result_type(F32, T(I32), PYFLOAT());
    assert_result_type(F32, T(I64), PYFLOAT());
    assert_result_type(F32, T(B), PYFLOAT());
    assert_result_type(F32, Z(I64), PYFLOAT());
    assert_result_type(F16, T(F16), PYFLOAT());
    assert_result_type(BF16, Z(BF16), PYFLOAT());
    assert_result_type(F64, T(F64), PYFLOAT());
    assert_result_type(F32, PYFLOAT());
}

/* A Python int never widens an integral or floating operand. */
static void test_result_type_pyint_does_not_widen(void **state)
{
    (void)state;
    assert_result_type(U8, T(U8), PYINT());
    assert_result_type(I8, Z(I8), PYINT());
    assert_result_type(F16, T(F16), PYINT());
    assert_result_type(I64, PYINT());
}

/* A bool operand takes the kind of a scalar of a higher kind. */
static void test_result_type_bool_takes_scalar_kind(void **state)
{
    (void)state;
    assert_result_type(I64, T(B), PYINT());
    assert_result_type(I64, Z(B), PYINT());
    assert_result_type(B, T(B), PYBOOL());
    assert_result_type(I32, T(I32), PYBOOL());
    assert_result_type(B, PYBOOL());
}

/* Scalars on their own promote among themselves. */
static void test_result_type_scalars_alone(void **state)
{
    (void)state;
    assert_result_type(F32, PYINT(), PYFLOAT());
    assert_result_type(I64, PYBOOL(), PYINT());
    assert_result_type(F32, PYBOOL(), PYFLOAT());
}

/* Each category is folded first, then the categories are combined. */
static void test_result_type_folds_categories_then_combines(void **state)
{
    (void)state;
    /* Zero-dim float16 + bfloat16 fold to float32, which beats int8. */
    assert_result_type(F32, T(I8), Z(F16), Z(BF16));
    /* Zero-dim int8 does not widen uint8, zero-dim float64 beats both. */
    assert_result_type(F64, T(U8), Z(I8), Z(F64));
    /* Zero-dim int8 beats the bool tensor, the Python int does not widen it. */
    assert_result_type(I8, T(B), Z(I8), PYINT());
    /* The Python float beats the zero-dim int8, then the bool tensor. */
    assert_result_type(F32, T(B), Z(I8), PYFLOAT());
    /* The Python float cannot beat the zero-dim float16 it is lower than. */
    assert_result_type(F16, T(I32), Z(F16), PYFLOAT());
    /* Two dimensioned tensors fold first: uint8 + int8 is int16. */
    assert_result_type(I16, T(U8), T(I8), Z(I64), PYINT());
}

/* Operand order does not matter. */
static void test_result_type_order_independent(void **state)
{
    (void)state;
    assert_result_type(F64, Z(F64), T(I32));
    assert_result_type(F32, PYFLOAT(), T(I64));
    assert_result_type(F32, Z(BF16), PYINT(), Z(F16), T(I8));
    assert_result_type(I64, PYINT(), Z(B));
}

/* Operands marked no_promote are skipped (where's condition, alpha, ...). */
static void test_result_type_skips_no_promote(void **state)
{
    (void)state;
    pw_type_operand cond = T(B);
    cond.no_promote = true;
    pw_type_operand alpha = PYFLOAT();
    alpha.no_promote = true;
    assert_result_type(I8, cond, T(I8), Z(I64));
    assert_result_type(I32, T(I32), T(I32), alpha);
    assert_result_type(CLOPS_DTYPE_NONE, cond, alpha);
}

/* No operands, a NULL array and invalid operands give NONE. */
static void test_result_type_rejects_bad_operands(void **state)
{
    (void)state;
    pw_type_operand ok = T(F32);
    pw_type_operand bad_dtype = {PW_CAT_TENSOR, CLOPS_DTYPE_COUNT, false};
    pw_type_operand none_dtype = {PW_CAT_ZERODIM, CLOPS_DTYPE_NONE, false};
    pw_type_operand bad_category = {(pw_operand_category)7, CLOPS_INT8, false};
    assert_int_equal(pw_result_type(&ok, 0), CLOPS_DTYPE_NONE);
    assert_int_equal(pw_result_type(NULL, 2), CLOPS_DTYPE_NONE);
    assert_result_type(CLOPS_DTYPE_NONE, ok, bad_dtype);
    assert_result_type(CLOPS_DTYPE_NONE, none_dtype, ok);
    assert_result_type(CLOPS_DTYPE_NONE, ok, bad_category);
}

/* The operand helpers pick the category and the kind's dtype. */
static void test_operand_helpers(void **state)
{
    (void)state;
    pw_type_operand op = pw_scalar_operand(clops_scalar_float(1.0));
    assert_int_equal(op.category, PW_CAT_SCALAR);
    assert_int_equal(op.dtype, F64);
    assert_false(op.no_promote);
    assert_int_equal(pw_scalar_operand(clops_scalar_int(-3)).dtype, I64);
    assert_int_equal(pw_scalar_operand(clops_scalar_bool(false)).dtype, B);
    op = pw_tensor_operand(F16, 0);
    assert_int_equal(op.category, PW_CAT_ZERODIM);
    assert_int_equal(op.dtype, F16);
    assert_false(op.no_promote);
    assert_int_equal(pw_tensor_operand(F16, 1).category, PW_CAT_TENSOR);
    assert_int_equal(pw_tensor_operand(F16, 5).category, PW_CAT_TENSOR);
    /* A scalar counts by kind only: a float scalar is float32 whatever dtype it says. */
    pw_type_operand f16_scalar = {PW_CAT_SCALAR, F16, false};
    pw_type_operand i8_scalar = {PW_CAT_SCALAR, I8, false};
    assert_result_type(F32, T(I8), f16_scalar);
    assert_result_type(I64, T(B), i8_scalar);
}

/* ------------------------------------------------------------------------ */
/* can_cast and opmath                                                       */
/* ------------------------------------------------------------------------ */

/* can_cast refuses float -> integral/bool and integral -> bool, nothing else. */
static void test_can_cast_full_table(void **state)
{
    (void)state;
    /* 0 = bool, 1 = integral, 2 = floating; by clops_dtype order. */
    static const int kind[NDTYPES] = {0, 1, 1, 1, 1, 1, 2, 2, 2, 2};
    for (int from = 0; from < NDTYPES; from++) {
        for (int to = 0; to < NDTYPES; to++) {
            bool refused = (kind[from] == 2 && kind[to] != 2) || (kind[from] == 1 && kind[to] == 0);
            if (pw_can_cast((clops_dtype)from, (clops_dtype)to) == refused)
                fail_msg("can_cast(%s, %s) should be %s", dtype_names[from], dtype_names[to],
                         refused ? "false" : "true");
        }
    }
}

/* Notable can_cast cases, narrowing within a kind included. */
static void test_can_cast_notable_cases(void **state)
{
    (void)state;
    assert_true(pw_can_cast(B, U8));
    assert_true(pw_can_cast(B, F16));
    assert_true(pw_can_cast(I64, I8));
    assert_true(pw_can_cast(I64, F16));
    assert_true(pw_can_cast(F64, BF16));
    assert_false(pw_can_cast(F32, I64));
    assert_false(pw_can_cast(F16, B));
    assert_false(pw_can_cast(U8, B));
    assert_false(pw_can_cast(CLOPS_DTYPE_NONE, F32));
    /* Complex: real to complex is allowed, complex to real is not. */
    assert_true(pw_can_cast(F32, CLOPS_COMPLEX64));
    assert_true(pw_can_cast(CLOPS_COMPLEX128, CLOPS_COMPLEX64));
    assert_false(pw_can_cast(CLOPS_COMPLEX64, F64));
    assert_false(pw_can_cast(F32, CLOPS_DTYPE_COUNT_ALL));
}

/* Half types compute in float32; everything else computes in itself. */
static void test_opmath_dtype(void **state)
{
    (void)state;
    for (int d = 0; d < NDTYPES; d++) {
        clops_dtype want = d == F16 || d == BF16 ? F32 : (clops_dtype)d;
        assert_int_equal(pw_opmath_dtype((clops_dtype)d), want);
    }
    assert_int_equal(pw_opmath_dtype(CLOPS_DTYPE_NONE), CLOPS_DTYPE_NONE);
}

/* ------------------------------------------------------------------------ */
/* Promotion methods                                                         */
/* ------------------------------------------------------------------------ */

/* Expected (compute, result) for every common dtype, by clops_dtype order. */
typedef struct method_case {
    pw_promotion method;
    clops_dtype compute[NDTYPES];
    clops_dtype result[NDTYPES];
} method_case;

static const method_case method_cases[] = {
    {PW_PROMOTE_DEFAULT,
     {B, U8, I8, I16, I32, I64, F32, F32, F32, F64},
     {B, U8, I8, I16, I32, I64, F16, BF16, F32, F64}},
    {PW_PROMOTE_INT_TO_FLOAT,
     {F32, F32, F32, F32, F32, F32, F32, F32, F32, F64},
     {F32, F32, F32, F32, F32, F32, F16, BF16, F32, F64}},
    {PW_PROMOTE_ALWAYS_BOOL,
     {B, U8, I8, I16, I32, I64, F32, F32, F32, F64},
     {B, B, B, B, B, B, B, B, B, B}},
    {PW_PROMOTE_NO_OPMATH,
     {B, U8, I8, I16, I32, I64, F16, BF16, F32, F64},
     {B, U8, I8, I16, I32, I64, F16, BF16, F32, F64}},
    {PW_PROMOTE_BOOL_TO_LONG,
     {I64, U8, I8, I16, I32, I64, F32, F32, F32, F64},
     {I64, U8, I8, I16, I32, I64, F16, BF16, F32, F64}},
};

static_assert(sizeof method_cases / sizeof method_cases[0] == PW_PROMOTE_COUNT,
              "one method_case per promotion method");

/* Checks one method over all common dtypes. */
static void check_method(pw_promotion method)
{
    const method_case *mc = &method_cases[method];
    assert_int_equal(mc->method, method);
    for (int d = 0; d < NDTYPES; d++) {
        clops_dtype compute = CLOPS_DTYPE_COUNT, result = CLOPS_DTYPE_COUNT;
        pw_compute_types(method, (clops_dtype)d, &compute, &result);
        if (compute != mc->compute[d] || result != mc->result[d])
            fail_msg("%s on %s: compute %s result %s, expected %s and %s",
                     pw_promotion_name(method), dtype_names[d], dt_name(compute),
                     dt_name(result), dt_name(mc->compute[d]), dt_name(mc->result[d]));
    }
}

/* DEFAULT: result is the common dtype, half types compute in float32. */
static void test_method_default(void **state)
{
    (void)state;
    check_method(PW_PROMOTE_DEFAULT);
}

/* INT_TO_FLOAT: bool and integral become float32; floats stay. */
static void test_method_int_to_float(void **state)
{
    (void)state;
    check_method(PW_PROMOTE_INT_TO_FLOAT);
}

/* ALWAYS_BOOL: result bool, computed in the common dtype's opmath. */
static void test_method_always_bool(void **state)
{
    (void)state;
    check_method(PW_PROMOTE_ALWAYS_BOOL);
}

/* NO_OPMATH: compute and result are the common dtype, halves not widened. */
static void test_method_no_opmath(void **state)
{
    (void)state;
    check_method(PW_PROMOTE_NO_OPMATH);
}

/* BOOL_TO_LONG: bool becomes int64, others as DEFAULT. */
static void test_method_bool_to_long(void **state)
{
    (void)state;
    check_method(PW_PROMOTE_BOOL_TO_LONG);
}

/* Invalid inputs give NONE, and either output pointer may be NULL. */
static void test_method_invalid_inputs(void **state)
{
    (void)state;
    clops_dtype compute = F32, result = F32;
    pw_compute_types(PW_PROMOTE_DEFAULT, CLOPS_DTYPE_NONE, &compute, &result);
    assert_int_equal(compute, CLOPS_DTYPE_NONE);
    assert_int_equal(result, CLOPS_DTYPE_NONE);
    compute = result = F32;
    pw_compute_types(PW_PROMOTE_COUNT, I8, &compute, &result);
    assert_int_equal(compute, CLOPS_DTYPE_NONE);
    assert_int_equal(result, CLOPS_DTYPE_NONE);
    pw_compute_types(PW_PROMOTE_INT_TO_FLOAT, I8, NULL, &result);
    assert_int_equal(result, F32);
    pw_compute_types(PW_PROMOTE_DEFAULT, F16, &compute, NULL);
    assert_int_equal(compute, F32);
}

/* Names round-trip; unknown names fail with a message. */
static void test_promotion_names(void **state)
{
    (void)state;
    static const char *const names[] = {"default", "int_to_float", "always_bool", "no_opmath",
                                        "bool_to_long"};
    for (int p = 0; p < PW_PROMOTE_COUNT; p++) {
        pw_promotion parsed = PW_PROMOTE_COUNT;
        assert_string_equal(pw_promotion_name((pw_promotion)p), names[p]);
        assert_int_equal(pw_promotion_from_name(names[p], &parsed), CLOPS_OK);
        assert_int_equal(parsed, p);
    }
    assert_string_equal(pw_promotion_name(PW_PROMOTE_COUNT), "invalid");
    assert_string_equal(pw_promotion_name((pw_promotion)-1), "invalid");

    pw_promotion out = PW_PROMOTE_NO_OPMATH;
    clops_clear_error();
    assert_int_equal(pw_promotion_from_name("int-to-float", &out), CLOPS_INVALID_ARGUMENT);
    assert_int_equal(out, PW_PROMOTE_NO_OPMATH);
    assert_non_null(strstr(clops_last_error(), "\"int-to-float\""));
    assert_int_equal(pw_promotion_from_name(NULL, &out), CLOPS_INVALID_ARGUMENT);
    assert_int_equal(pw_promotion_from_name("default", NULL), CLOPS_INVALID_ARGUMENT);
}

/* ------------------------------------------------------------------------ */
/* The test's model of each op in the data file                             */
/* ------------------------------------------------------------------------ */

/* Op-level rules outside promotion; see the comment at the top of the file. */
enum {
    RULE_NO_SCALAR = 1 << 0,   /* no Scalar overload: a Python scalar is refused */
    RULE_NO_FLOAT = 1 << 1,    /* integral-only kernel: a floating common dtype is refused */
    RULE_NO_BOOL = 1 << 2,     /* no bool kernel: a bool common dtype is refused */
    RULE_POW_SHORTCUT = 1 << 3 /* a Python-scalar exponent of 0/1 (all bools) skips the kernel */
};

typedef struct op_model {
    const char *name;
    int arity;
    pw_promotion method;
    unsigned rules;
} op_model;

static const op_model op_models[] = {
    {"add", 2, PW_PROMOTE_DEFAULT, 0},
    {"mul", 2, PW_PROMOTE_DEFAULT, 0},
    {"div", 2, PW_PROMOTE_INT_TO_FLOAT, 0},
    {"eq", 2, PW_PROMOTE_ALWAYS_BOOL, 0},
    {"pow", 2, PW_PROMOTE_DEFAULT, RULE_NO_BOOL | RULE_POW_SHORTCUT},
    {"maximum", 2, PW_PROMOTE_DEFAULT, RULE_NO_SCALAR},
    {"bitwise_and", 2, PW_PROMOTE_DEFAULT, RULE_NO_FLOAT},
    {"atan2", 2, PW_PROMOTE_INT_TO_FLOAT, RULE_NO_SCALAR},
    {"remainder", 2, PW_PROMOTE_DEFAULT, RULE_NO_BOOL},
    {"neg", 1, PW_PROMOTE_DEFAULT, RULE_NO_BOOL},
    {"abs", 1, PW_PROMOTE_DEFAULT, RULE_NO_BOOL},
    {"sin", 1, PW_PROMOTE_INT_TO_FLOAT, 0},
    {"sqrt", 1, PW_PROMOTE_INT_TO_FLOAT, 0},
    {"exp", 1, PW_PROMOTE_INT_TO_FLOAT, 0},
    {"sigmoid", 1, PW_PROMOTE_INT_TO_FLOAT, 0},
    {"floor", 1, PW_PROMOTE_DEFAULT, RULE_NO_BOOL},
    {"logical_not", 1, PW_PROMOTE_ALWAYS_BOOL, 0},
    {"isnan", 1, PW_PROMOTE_ALWAYS_BOOL, 0},
    {"sign", 1, PW_PROMOTE_DEFAULT, 0},
    {"bitwise_not", 1, PW_PROMOTE_DEFAULT, RULE_NO_FLOAT},
    {"reciprocal", 1, PW_PROMOTE_INT_TO_FLOAT, 0},
    {"relu", 1, PW_PROMOTE_DEFAULT, RULE_NO_BOOL},
    {"erf", 1, PW_PROMOTE_INT_TO_FLOAT, 0},
    {"round", 1, PW_PROMOTE_DEFAULT, RULE_NO_BOOL},
};

#define N_OP_MODELS ((int)(sizeof op_models / sizeof op_models[0]))

/* The model of an op, or NULL. */
static const op_model *find_op_model(const char *name)
{
    for (int i = 0; i < N_OP_MODELS; i++)
        if (strcmp(op_models[i].name, name) == 0)
            return &op_models[i];
    return NULL;
}

/* True if a (non-bool) floating dtype. */
static bool is_floating(clops_dtype d)
{
    return d == F16 || d == BF16 || d == F32 || d == F64;
}

/*
 * The result dtype PyTorch gives for op on operands (ops[0] is self, ops[1]
 * the other operand or exponent), or CLOPS_DTYPE_NONE where it refuses.
 * The data file's Python-scalar exponents are bools, 2 and 2.5 or the like:
 * a bool exponent is the only 0/1 one, so RULE_POW_SHORTCUT applies to it.
 */
static clops_dtype model_result(const op_model *m, const pw_type_operand *ops, int n)
{
    bool has_scalar = false;
    for (int i = 0; i < n; i++)
        has_scalar |= ops[i].category == PW_CAT_SCALAR;
    if ((m->rules & RULE_NO_SCALAR) && has_scalar)
        return CLOPS_DTYPE_NONE;

    clops_dtype common = pw_result_type(ops, n);
    if ((m->rules & RULE_NO_FLOAT) && is_floating(common))
        return CLOPS_DTYPE_NONE;
    bool shortcut = (m->rules & RULE_POW_SHORTCUT) && n == 2 &&
                    ops[1].category == PW_CAT_SCALAR && ops[1].dtype == B;
    if ((m->rules & RULE_NO_BOOL) && common == B && !shortcut)
        return CLOPS_DTYPE_NONE;

    clops_dtype result;
    pw_compute_types(m->method, common, NULL, &result);
    return result;
}

/* ------------------------------------------------------------------------ */
/* The data file                                                             */
/* ------------------------------------------------------------------------ */

/* Whole file into a NUL-terminated malloc'ed buffer, or NULL. */
static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    long size;
    if (!f)
        return NULL;
    if (fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0)
        goto out;
    buf = malloc((size_t)size + 1);
    if (!buf)
        goto out;
    if (fread(buf, 1, (size_t)size, f) != (size_t)size) {
        free(buf);
        buf = NULL;
        goto out;
    }
    buf[size] = '\0';
out:
    fclose(f);
    return buf;
}

/* Parses ["tensor", "int32"] / ["pyint", null] into an operand; false if malformed. */
static bool parse_operand(const cJSON *json, pw_type_operand *op)
{
    const cJSON *kind = cJSON_GetArrayItem(json, 0);
    const cJSON *dtype = cJSON_GetArrayItem(json, 1);
    if (!cJSON_IsArray(json) || !cJSON_IsString(kind))
        return false;
    const char *k = kind->valuestring;
    if (strcmp(k, "pyint") == 0)
        *op = pw_scalar_operand(clops_scalar_int(2));
    else if (strcmp(k, "pyfloat") == 0)
        *op = pw_scalar_operand(clops_scalar_float(2.5));
    else if (strcmp(k, "pybool") == 0)
        *op = pw_scalar_operand(clops_scalar_bool(true));
    else if (strcmp(k, "tensor") == 0 || strcmp(k, "zerodim") == 0) {
        if (!cJSON_IsString(dtype))
            return false;
        clops_dtype d = dt_from_name(dtype->valuestring);
        if (d == CLOPS_DTYPE_NONE)
            return false;
        *op = pw_tensor_operand(d, strcmp(k, "tensor") == 0 ? 1 : 0);
    } else
        return false;
    return true;
}

/* A growing text buffer for the mismatch report. */
typedef struct report {
    char *text;
    size_t len, cap;
    int lines;
} report;

/* Appends one line (the first 200 lines only; the count says the rest). */
static void report_line(report *r, const char *fmt, ...)
{
    char line[512];
    va_list ap;
    r->lines++;
    if (r->lines > 200)
        return;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    size_t add = strlen(line);
    if (r->len + add + 2 > r->cap) {
        size_t cap = (r->cap ? r->cap * 2 : 4096) + add;
        char *text = realloc(r->text, cap);
        if (!text)
            return;
        r->text = text;
        r->cap = cap;
    }
    memcpy(r->text + r->len, line, add);
    r->len += add;
    r->text[r->len++] = '\n';
    r->text[r->len] = '\0';
}

/* Every row of the file matches the op model on top of pw_result_type(). */
static void test_every_row_of_pytorch_data(void **state)
{
    (void)state;
    char *data = read_file(PROMOTION_FILE);
    if (!data)
        fail_msg("cannot read %s", PROMOTION_FILE);

    report rep = {NULL, 0, 0, 0};
    int rows = 0, errors = 0, lineno = 0;
    bool seen[N_OP_MODELS] = {false};
    char *next = data;
    while (next && *next) {
        char *line = next;
        char *nl = strchr(line, '\n');
        next = nl ? nl + 1 : NULL;
        if (nl)
            *nl = '\0';
        lineno++;
        if (*line == '\0')
            continue;
        cJSON *row = cJSON_Parse(line);
        if (lineno == 1) {
            /* The header line describes the file and has no "op". */
            if (!row || cJSON_GetObjectItem(row, "op") || !cJSON_GetObjectItem(row, "source"))
                report_line(&rep, "line 1: expected the header line");
            cJSON_Delete(row);
            continue;
        }
        const cJSON *op = cJSON_GetObjectItem(row, "op");
        const cJSON *a = cJSON_GetObjectItem(row, "a");
        const cJSON *b = cJSON_GetObjectItem(row, "b");
        const cJSON *want = cJSON_GetObjectItem(row, "result");
        pw_type_operand ops[2];
        int n = b ? 2 : 1;
        const op_model *m = cJSON_IsString(op) ? find_op_model(op->valuestring) : NULL;
        if (!row || !m || !cJSON_IsString(want) || m->arity != n || !parse_operand(a, &ops[0]) ||
            (b && !parse_operand(b, &ops[1]))) {
            report_line(&rep, "line %d: malformed or unmodelled row: %s", lineno, line);
            cJSON_Delete(row);
            continue;
        }
        rows++;
        seen[m - op_models] = true;
        errors += strcmp(want->valuestring, "error") == 0;
        clops_dtype got = model_result(m, ops, n);
        const char *got_name = got == CLOPS_DTYPE_NONE ? "error" : dt_name(got);
        if (strcmp(got_name, want->valuestring) != 0)
            report_line(&rep, "line %d: got %s: %s", lineno, got_name, line);
        cJSON_Delete(row);
    }
    free(data);

    for (int i = 0; i < N_OP_MODELS; i++)
        if (!seen[i])
            report_line(&rep, "op %s is modelled but has no rows", op_models[i].name);
    if (rows != PROMOTION_ROWS)
        report_line(&rep, "%d rows, expected %d", rows, PROMOTION_ROWS);
    if (rep.lines) {
        print_error("%d problem(s) in %s:\n%s%s", rep.lines, PROMOTION_FILE,
                    rep.text ? rep.text : "", rep.lines > 200 ? "...\n" : "");
        free(rep.text);
        fail_msg("%d of %d rows mismatch or are malformed", rep.lines, rows);
    }
    print_message("[          ] %d rows match PyTorch (%d of them errors)\n", rows, errors);
}

/* pw_promote_types equals PyTorch's add on two dimensioned tensors, pair by pair. */
static void test_promote_types_matches_data_file(void **state)
{
    (void)state;
    char *data = read_file(PROMOTION_FILE);
    if (!data)
        fail_msg("cannot read %s", PROMOTION_FILE);
    int pairs = 0;
    char *save = data;
    for (char *line = strtok(save, "\n"); line; line = strtok(NULL, "\n")) {
        cJSON *row = cJSON_Parse(line);
        const cJSON *op = cJSON_GetObjectItem(row, "op");
        const cJSON *a = cJSON_GetObjectItem(row, "a");
        const cJSON *b = cJSON_GetObjectItem(row, "b");
        const cJSON *want = cJSON_GetObjectItem(row, "result");
        pw_type_operand x, y;
        if (cJSON_IsString(op) && strcmp(op->valuestring, "add") == 0 && b &&
            parse_operand(a, &x) && parse_operand(b, &y) && x.category == PW_CAT_TENSOR &&
            y.category == PW_CAT_TENSOR && cJSON_IsString(want)) {
            const char *got = dt_name(pw_promote_types(x.dtype, y.dtype));
            if (strcmp(got, want->valuestring) != 0)
                print_error("promote_types(%s, %s) = %s, PyTorch says %s\n", dt_name(x.dtype),
                            dt_name(y.dtype), got, want->valuestring);
            else
                pairs++;
        }
        cJSON_Delete(row);
    }
    free(data);
    assert_int_equal(pairs, NDTYPES * NDTYPES);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_promote_types_matches_pytorch_table),
        cmocka_unit_test(test_promote_types_notable_pairs),
        cmocka_unit_test(test_promote_types_symmetric_idempotent_bool_bottom),
        cmocka_unit_test(test_promote_types_none_and_invalid),
        cmocka_unit_test(test_promote_types_matches_data_file),
        cmocka_unit_test(test_result_type_same_category_promotes),
        cmocka_unit_test(test_result_type_zerodim_same_kind_does_not_widen),
        cmocka_unit_test(test_result_type_zerodim_higher_kind_keeps_its_dtype),
        cmocka_unit_test(test_result_type_pyfloat_takes_default_dtype),
        cmocka_unit_test(test_result_type_pyint_does_not_widen),
        cmocka_unit_test(test_result_type_bool_takes_scalar_kind),
        cmocka_unit_test(test_result_type_scalars_alone),
        cmocka_unit_test(test_result_type_folds_categories_then_combines),
        cmocka_unit_test(test_result_type_order_independent),
        cmocka_unit_test(test_result_type_skips_no_promote),
        cmocka_unit_test(test_result_type_rejects_bad_operands),
        cmocka_unit_test(test_operand_helpers),
        cmocka_unit_test(test_can_cast_full_table),
        cmocka_unit_test(test_can_cast_notable_cases),
        cmocka_unit_test(test_opmath_dtype),
        cmocka_unit_test(test_method_default),
        cmocka_unit_test(test_method_int_to_float),
        cmocka_unit_test(test_method_always_bool),
        cmocka_unit_test(test_method_no_opmath),
        cmocka_unit_test(test_method_bool_to_long),
        cmocka_unit_test(test_method_invalid_inputs),
        cmocka_unit_test(test_promotion_names),
        cmocka_unit_test(test_every_row_of_pytorch_data),
    };
    return cmocka_run_group_tests_name("promote", tests, NULL, NULL);
}
