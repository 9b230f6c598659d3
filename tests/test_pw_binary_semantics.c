/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/test_pw_binary_semantics.c: the arithmetic ops' corner cases, with
 * values checked by hand against PyTorch 2.x (CPU), on the CPU device and
 * on every OpenCL device.
 *
 * Each test is one behaviour: signs of the divisions and remainders,
 * clops' documented result for integer division by zero (quotient 0,
 * remainder the dividend: PyTorch's CPU kernels raise ZeroDivisionError,
 * which no device kernel can), MIN / -1, wrap-around, round-half-to-even
 * when float16 and bfloat16 results are stored, pow's integer rules and the
 * exponents PyTorch computes with sqrt or multiplications, float_power in
 * float64, sub's refusal of bool, rsub, div's rounding modes.  Results must
 * match exactly (the sign of zero included) unless a tolerance is given.
 */
#include "pw_binary_check.h"

#define I(x) clops_scalar_int(x)
#define F(x) clops_scalar_float(x)
#define B(x) clops_scalar_bool(x)
/* A kept literal tensor on the device `d` of the enclosing check. */
#define T(L) pwt_keep(pwt_lit_tensor(d, (L)))
#define OP(L) pw_tensor(T(L))

/* Family functions in functional form: FN(pw_fn_x, args...) is the kept
 * result; FN_STATUS(...) the status. */
static clops_tensor *fn_out_;
static clops_status fn_status_;
#define FN(fn, ...) (fn_out_ = NULL, CT_OK(fn(PW_FUNCTIONAL, NULL, __VA_ARGS__, &fn_out_)),        \
                     pwt_keep(fn_out_))
#define FN_STATUS(fn, ...)                                                                         \
    (fn_out_ = NULL, fn_status_ = fn(PW_FUNCTIONAL, NULL, __VA_ARGS__, &fn_out_),                  \
     fn_out_ ? (void)pwt_keep(fn_out_) : (void)0, fn_status_)

static const clops_scalar alpha1[1] = {{CLOPS_SCALAR_INT, {.i = 1}}};
static const clops_scalar pow_generic[1] = {{CLOPS_SCALAR_INT, {.i = 0}}};

/* ---- divisions ------------------------------------------------------------ */

static void check_integer_division_signs(clops_device *d)
{
    pwt_lit a = LI(INT32, 7, -7, 7, -7, 0, 1, -1), b = LI(INT32, 2, 2, -2, -2, 3, 5, 5);
    pwt_expect(pwt_bin(d, &pw_op_div_trunc, a, b, NULL), LI(INT32, 3, -3, -3, 3, 0, 0, 0));
    pwt_expect(pwt_bin(d, &pw_op_div_floor, a, b, NULL), LI(INT32, 3, -4, -4, 3, 0, 0, -1));
    pwt_expect(pwt_bin(d, &pw_op_remainder, a, b, NULL), LI(INT32, 1, 1, -1, -1, 0, 1, 4));
    pwt_expect(pwt_bin(d, &pw_op_fmod, a, b, NULL), LI(INT32, 1, -1, 1, -1, 0, 1, -1));
    pwt_expect(pwt_bin(d, &pw_op_div, a, b, NULL),
               LF(FLOAT32, 3.5, -3.5, -3.5, 3.5, 0.0, (float)0.2, (float)-0.2));
    pwt_lit u = LI(UINT8, 7, 200, 255), v = LI(UINT8, 2, 3, 16);
    pwt_expect(pwt_bin(d, &pw_op_div_floor, u, v, NULL), LI(UINT8, 3, 66, 15));
    pwt_expect(pwt_bin(d, &pw_op_remainder, u, v, NULL), LI(UINT8, 1, 2, 15));
}

static void test_integer_division_and_remainder_signs_follow_python(void **state)
{
    (void)state;
    pwt_each_device(check_integer_division_signs);
}

static void check_float_division_signs(clops_device *d)
{
    for (int k = 0; k < 2; k++) {
        if (k == 1 && !ct_device_supports(d, CLOPS_FLOAT64))
            break;
        clops_dtype dt = k ? CLOPS_FLOAT64 : CLOPS_FLOAT32;
        pwt_lit a = LF(FLOAT32, 7.5, -7.5, 7.5, -7.5, 1.0, -1.0, -0.0, 5.0, -1.0);
        pwt_lit b = LF(FLOAT32, 2.0, 2.0, -2.0, -2.0, 0.0, 0.0, 5.0, INFINITY, INFINITY);
        pwt_lit fl = LF(FLOAT32, 3.0, -4.0, -4.0, 3.0, INFINITY, -INFINITY, -0.0, 0.0, -1.0);
        pwt_lit tr = LF(FLOAT32, 3.0, -3.0, -3.0, 3.0, INFINITY, -INFINITY, -0.0, 0.0, -0.0);
        pwt_lit re = LF(FLOAT32, 1.5, 0.5, -0.5, -1.5, NAN, NAN, -0.0, 5.0, INFINITY);
        pwt_lit fm = LF(FLOAT32, 1.5, -1.5, 1.5, -1.5, NAN, NAN, -0.0, 5.0, -1.0);
        a.dt = b.dt = fl.dt = tr.dt = re.dt = fm.dt = dt;
        pwt_expect(pwt_bin(d, &pw_op_div_floor, a, b, NULL), fl);
        pwt_expect(pwt_bin(d, &pw_op_div_trunc, a, b, NULL), tr);
        pwt_expect(pwt_bin(d, &pw_op_remainder, a, b, NULL), re);
        pwt_expect(pwt_bin(d, &pw_op_fmod, a, b, NULL), fm);
    }
}

static void test_float_division_and_remainder_signs_follow_python(void **state)
{
    (void)state;
    pwt_each_device(check_float_division_signs);
}

static void check_division_by_zero(clops_device *d)
{
    pwt_lit a8 = LI(INT8, 5, -5, 0, -128, 127), z8 = LI(INT8, 0, 0, 0, 0, 0);
    pwt_expect(pwt_bin(d, &pw_op_div_trunc, a8, z8, NULL), LI(INT8, 0, 0, 0, 0, 0));
    pwt_expect(pwt_bin(d, &pw_op_div_floor, a8, z8, NULL), LI(INT8, 0, 0, 0, 0, 0));
    pwt_expect(pwt_bin(d, &pw_op_remainder, a8, z8, NULL), a8);
    pwt_expect(pwt_bin(d, &pw_op_fmod, a8, z8, NULL), a8);
    pwt_expect(pwt_bin(d, &pw_op_div, a8, z8, NULL),
               LF(FLOAT32, INFINITY, -INFINITY, NAN, -INFINITY, INFINITY));
    pwt_lit a64 = LI(INT64, INT64_MIN, INT64_MAX, -3), z64 = LI(INT64, 0, 0, 0);
    pwt_expect(pwt_bin(d, &pw_op_div_floor, a64, z64, NULL), LI(INT64, 0, 0, 0));
    pwt_expect(pwt_bin(d, &pw_op_remainder, a64, z64, NULL), a64);
    pwt_lit u = LI(UINT8, 5, 255, 0), zu = LI(UINT8, 0, 0, 0);
    pwt_expect(pwt_bin(d, &pw_op_div_trunc, u, zu, NULL), LI(UINT8, 0, 0, 0));
    pwt_expect(pwt_bin(d, &pw_op_fmod, u, zu, NULL), u);
}

static void test_integer_division_by_zero_gives_zero_quotient_and_dividend_remainder(void **state)
{
    (void)state;
    pwt_each_device(check_division_by_zero);
}

static void check_min_by_minus_one(clops_device *d)
{
    pwt_lit a8 = LI(INT8, -128, -128, 127), b8 = LI(INT8, -1, 1, -1);
    pwt_expect(pwt_bin(d, &pw_op_div_trunc, a8, b8, NULL), LI(INT8, -128, -128, -127));
    pwt_expect(pwt_bin(d, &pw_op_div_floor, a8, b8, NULL), LI(INT8, -128, -128, -127));
    pwt_expect(pwt_bin(d, &pw_op_remainder, a8, b8, NULL), LI(INT8, 0, 0, 0));
    pwt_expect(pwt_bin(d, &pw_op_mul, a8, b8, NULL), LI(INT8, -128, -128, -127));
    pwt_lit a32 = LI(INT32, INT32_MIN, INT32_MAX), b32 = LI(INT32, -1, -1);
    pwt_expect(pwt_bin(d, &pw_op_div_floor, a32, b32, NULL), LI(INT32, INT32_MIN, -INT32_MAX));
    pwt_expect(pwt_bin(d, &pw_op_fmod, a32, b32, NULL), LI(INT32, 0, 0));
    pwt_lit a64 = LI(INT64, INT64_MIN, INT64_MIN), b64 = LI(INT64, -1, 2);
    pwt_expect(pwt_bin(d, &pw_op_div_trunc, a64, b64, NULL), LI(INT64, INT64_MIN, INT64_MIN / 2));
    pwt_expect(pwt_bin(d, &pw_op_remainder, a64, b64, NULL), LI(INT64, 0, 0));
}

static void test_min_divided_by_minus_one_wraps_to_min_with_remainder_zero(void **state)
{
    (void)state;
    pwt_each_device(check_min_by_minus_one);
}

static void check_div_rounding_modes(clops_device *d)
{
    clops_tensor *a = T(LI(INT32, 7, -7)), *b = T(LI(INT32, 2, 2));
    pwt_expect(FN(pw_fn_div_tensor_mode, a, b, NULL), LF(FLOAT32, 3.5, -3.5));
    pwt_expect(FN(pw_fn_div_tensor_mode, a, b, "trunc"), LI(INT32, 3, -3));
    pwt_expect(FN(pw_fn_div_tensor_mode, a, b, "floor"), LI(INT32, 3, -4));
    CT_ASSERT(FN_STATUS(pw_fn_div_tensor_mode, a, b, "round") == CLOPS_INVALID_ARGUMENT);
    CT_ERROR_CONTAINS("rounding_mode");
    clops_tensor *f = T(LF(FLOAT32, -7.5, 7.5));
    pwt_expect(FN(pw_fn_div_scalar_mode, f, F(2.0), "floor"), LF(FLOAT32, -4.0, 3.0));
    pwt_expect(FN(pw_fn_div_scalar_mode, f, I(2), "trunc"), LF(FLOAT32, -3.0, 3.0));
    clops_tensor *bl = T(LI(BOOL, 1, 0));
    CT_ASSERT(FN_STATUS(pw_fn_div_tensor_mode, bl, bl, "floor") == CLOPS_INVALID_DTYPE);
    /* True division of bool and integer operands computes in float32. */
    pwt_expect(FN(pw_fn_div_tensor_mode, bl, bl, NULL), LF(FLOAT32, 1.0, NAN));
}

static void test_div_rounding_modes_keep_integer_dtypes_and_reject_unknown_modes(void **state)
{
    (void)state;
    pwt_each_device(check_div_rounding_modes);
}

/* ---- wrap-around, rounding of 16-bit results ------------------------------ */

static void check_wrap(clops_device *d)
{
    pwt_expect(pwt_bin(d, &pw_op_add, LI(INT8, 127, -128), LI(INT8, 1, -1), alpha1),
               LI(INT8, -128, 127));
    const clops_scalar alpha2[1] = {I(2)};
    pwt_expect(pwt_bin(d, &pw_op_add, LI(INT8, 0), LI(INT8, 100), alpha2), LI(INT8, -56));
    pwt_expect(pwt_bin(d, &pw_op_sub, LI(UINT8, 0, 5), LI(UINT8, 1, 10), alpha1),
               LI(UINT8, 255, 251));
    pwt_expect(pwt_bin(d, &pw_op_mul, LI(INT16, 300, -32768), LI(INT16, 300, -1), NULL),
               LI(INT16, 24464, -32768));
    pwt_expect(pwt_bin(d, &pw_op_mul, LI(INT64, INT64_MAX), LI(INT64, 2), NULL), LI(INT64, -2));
    pwt_expect(pwt_bin(d, &pw_op_mul, LI(INT32, 65536), LI(INT32, 65536), NULL), LI(INT32, 0));
    pwt_expect(pwt_bin(d, &pw_op_pow, LI(INT32, 3, 2), LI(INT32, 20, 31), pow_generic),
               LI(INT32, -808182895, INT32_MIN));
    pwt_expect(pwt_bin(d, &pw_op_pow, LI(INT8, 2, -2), LI(INT8, 7, 7), pow_generic),
               LI(INT8, -128, -128));
    const pw_operand ops[3] = {OP(LI(INT8, 100)), OP(LI(INT8, 10)), OP(LI(INT8, 10))};
    pwt_expect(pwt_op(&pw_op_addcmul, ops, alpha2), LI(INT8, 44));
}

static void test_integer_arithmetic_wraps_at_the_dtype_width(void **state)
{
    (void)state;
    pwt_each_device(check_wrap);
}

static void check_half_even(clops_device *d)
{
    pwt_expect(pwt_bin(d, &pw_op_add, LF(FLOAT16, 2048, 2048, 2048), LF(FLOAT16, 1, 3, 5), alpha1),
               LF(FLOAT16, 2048, 2052, 2052));
    pwt_expect(pwt_bin(d, &pw_op_add, LF(BFLOAT16, 256, 256, 256), LF(BFLOAT16, 1, 3, 5), alpha1),
               LF(BFLOAT16, 256, 260, 260));
    /* The same in CPU devices' vector loop (whole vectors of 8 converted at
     * once; 40 elements: four vectors and a scalar tail), with NaN, inf,
     * overflow to inf and a tie at 1 + 2^-8. */
#define BF_A 256, 256, 256, -256, NAN, INFINITY, 3.3895313892515355e38, 1.0
#define BF_B 1, 3, 5, -3, 1, 1, 3.3895313892515355e38, 0.00390625
#define BF_R 256, 260, 260, -260, NAN, INFINITY, INFINITY, 1.0
    pwt_expect(pwt_bin(d, &pw_op_add, LF(BFLOAT16, BF_A, BF_A, BF_A, BF_A, BF_A),
                       LF(BFLOAT16, BF_B, BF_B, BF_B, BF_B, BF_B), alpha1),
               LF(BFLOAT16, BF_R, BF_R, BF_R, BF_R, BF_R));
#undef BF_A
#undef BF_B
#undef BF_R
    /* 1/3 rounds to the nearest float16 (0x3555), not by truncation. */
    pwt_expect(pwt_bin(d, &pw_op_div, LF(FLOAT16, 1.0), LF(FLOAT16, 3.0), NULL),
               LF(FLOAT16, 0.333251953125));
}

static void test_float16_and_bfloat16_results_round_half_to_even(void **state)
{
    (void)state;
    pwt_each_device(check_half_even);
}

/* ---- pow -------------------------------------------------------------------- */

static void check_integer_pow(clops_device *d)
{
    pwt_expect(pwt_bin(d, &pw_op_pow, LI(INT64, 1, -1, -1, 2, 0, -2),
                       LI(INT64, -3, -3, -2, -1, -1, -1), pow_generic),
               LI(INT64, 1, -1, 1, 0, 0, 0));
    clops_tensor *t = T(LI(INT32, 2, 3));
    CT_ASSERT(FN_STATUS(pw_fn_pow_tensor_scalar, t, I(-1)) == CLOPS_INVALID_ARGUMENT);
    CT_ERROR_CONTAINS("negative integer powers");
    pwt_expect(FN(pw_fn_pow_tensor_scalar, t, I(0)), LI(INT32, 1, 1));
    pwt_expect(FN(pw_fn_pow_tensor_scalar, t, I(1)), LI(INT32, 2, 3));
    pwt_expect(FN(pw_fn_pow_tensor_scalar, t, B(true)), LI(INT32, 2, 3));
    pwt_expect(FN(pw_fn_pow_tensor_scalar, t, I(3)), LI(INT32, 8, 27));
    pwt_expect(FN(pw_fn_pow_tensor_scalar, t, F(2.0)), LF(FLOAT32, 4.0, 9.0));
    pwt_expect(FN(pw_fn_pow_tensor_scalar, t, F(-1.0)), LF(FLOAT32, 0.5, (float)(1.0 / 3.0)));
    pwt_expect(FN(pw_fn_pow_scalar, I(2), T(LI(INT32, -1, 3, 0))), LI(INT32, 0, 8, 1));
    pwt_expect(FN(pw_fn_pow_scalar, I(1), T(LF(FLOAT32, NAN))), LF(FLOAT32, 1.0));
    clops_tensor *bl = T(LI(BOOL, 1, 0));
    pwt_expect(FN(pw_fn_pow_tensor_scalar, bl, I(2)), LI(INT64, 1, 0));
    pwt_expect(FN(pw_fn_pow_tensor_scalar, bl, B(false)), LI(BOOL, 1, 1));
    pwt_expect(FN(pw_fn_pow_tensor_scalar, bl, B(true)), LI(BOOL, 1, 0));
    CT_ASSERT(FN_STATUS(pw_fn_pow_tensor_tensor, bl, bl) == CLOPS_INVALID_DTYPE);
    CT_STATUS(pw_fn_pow_tensor_scalar(PW_INPLACE, t, t, F(0.5), NULL), CLOPS_INVALID_DTYPE);
    CT_STATUS(pw_fn_pow_tensor_scalar(PW_INPLACE, t, t, F(0.0), NULL), CLOPS_INVALID_DTYPE);
    CT_OK(pw_fn_pow_tensor_scalar(PW_INPLACE, t, t, I(2), NULL));
    pwt_expect(t, LI(INT32, 4, 9));
}

static void test_integer_pow_follows_pytorch_for_negative_zero_and_one_exponents(void **state)
{
    (void)state;
    pwt_each_device(check_integer_pow);
}

static void check_float_pow(clops_device *d)
{
    clops_tensor *x = T(LF(FLOAT32, -0.0, -INFINITY, 4.0, 2.0));
    pwt_expect_close(FN(pw_fn_pow_tensor_scalar, x, F(0.5)),
                     LF(FLOAT32, -0.0, NAN, 2.0, (float)1.4142135623730951), 3);
    pwt_expect_close(FN(pw_fn_pow_tensor_scalar, x, F(-0.5)),
                     LF(FLOAT32, -INFINITY, NAN, 0.5, (float)0.7071067811865476), 4);
    pwt_expect(FN(pw_fn_pow_tensor_scalar, x, I(2)), LF(FLOAT32, 0.0, INFINITY, 16.0, 4.0));
    pwt_expect(FN(pw_fn_pow_tensor_scalar, x, F(3.0)), LF(FLOAT32, -0.0, -INFINITY, 64.0, 8.0));
    pwt_expect(FN(pw_fn_pow_tensor_scalar, x, F(-1.0)), LF(FLOAT32, -INFINITY, -0.0, 0.25, 0.5));
    pwt_expect(FN(pw_fn_pow_tensor_scalar, x, F(-2.0)), LF(FLOAT32, INFINITY, 0.0, 0.0625, 0.25));
    pwt_expect_close(FN(pw_fn_pow_tensor_scalar, x, F(2.5)),
                     LF(FLOAT32, 0.0, INFINITY, 32.0, (float)5.656854249492381), 16);
    pwt_expect(FN(pw_fn_pow_tensor_scalar, x, F(0.0)), LF(FLOAT32, 1.0, 1.0, 1.0, 1.0));
    pwt_expect(FN(pw_fn_pow_tensor_scalar, x, F(1.0)), LF(FLOAT32, -0.0, -INFINITY, 4.0, 2.0));
    /* Tensor exponents use pow() itself: pow(-0.0, 0.5) is +0. */
    pwt_expect_close(FN(pw_fn_pow_tensor_tensor, x, T(LF(FLOAT32, 0.5, 0.5, 0.5, 0.5))),
                     LF(FLOAT32, 0.0, INFINITY, 2.0, (float)1.4142135623730951), 16);
}

static void test_float_pow_uses_sqrt_and_multiplications_for_special_exponents(void **state)
{
    (void)state;
    pwt_each_device(check_float_pow);
}

static void check_float_power(clops_device *d)
{
    clops_tensor *i = T(LI(INT32, 2, -2)), *e = T(LI(INT32, -1, 3));
    if (!ct_device_supports(d, CLOPS_FLOAT64)) {
        CT_ASSERT(FN_STATUS(pw_fn_float_power_tensor_tensor, i, e) == CLOPS_UNSUPPORTED);
        return;
    }
    pwt_expect(FN(pw_fn_float_power_tensor_tensor, i, e), LF(FLOAT64, 0.5, -8.0));
    clops_tensor *f = T(LF(FLOAT32, 2.0));
    pwt_expect_close(FN(pw_fn_float_power_tensor_scalar, f, F(0.5)),
                     LF(FLOAT64, 1.4142135623730951), 2);
    pwt_expect(FN(pw_fn_float_power_tensor_scalar, i, I(-1)), LF(FLOAT64, 0.5, -0.5));
    pwt_expect(FN(pw_fn_float_power_tensor_scalar, i, I(0)), LF(FLOAT64, 1.0, 1.0));
    pwt_expect(FN(pw_fn_float_power_scalar, I(1), e), LF(FLOAT64, 1.0, 1.0));
    pwt_expect(FN(pw_fn_float_power_scalar, I(2), e), LF(FLOAT64, 0.5, 8.0));
    clops_tensor *out32 = T(LF(FLOAT32, 0.0));
    CT_STATUS(pw_fn_float_power_tensor_scalar(PW_OUT, out32, f, I(2), NULL), CLOPS_INVALID_DTYPE);
    CT_STATUS(pw_fn_float_power_tensor_scalar(PW_INPLACE, f, f, I(2), NULL), CLOPS_INVALID_DTYPE);
    clops_tensor *f64 = T(LF(FLOAT64, 3.0));
    CT_OK(pw_fn_float_power_tensor_scalar(PW_INPLACE, f64, f64, I(2), NULL));
    pwt_expect(f64, LF(FLOAT64, 9.0));
}

static void test_float_power_computes_and_returns_float64(void **state)
{
    (void)state;
    pwt_each_device(check_float_power);
}

/* ---- sub, rsub, add's alpha --------------------------------------------------- */

static void check_sub_rsub(clops_device *d)
{
    clops_tensor *bl = T(LI(BOOL, 1, 0)), *i = T(LI(INT32, 1, 2)), *ten = T(LI(INT32, 10, 10));
    CT_ASSERT(FN_STATUS(pw_fn_sub_tensor, bl, bl, I(1)) == CLOPS_INVALID_DTYPE);
    CT_ERROR_CONTAINS("two bool tensors");
    CT_ASSERT(FN_STATUS(pw_fn_sub_tensor, i, bl, I(1)) == CLOPS_INVALID_DTYPE);
    CT_ASSERT(FN_STATUS(pw_fn_sub_scalar, i, B(true), I(1)) == CLOPS_INVALID_DTYPE);
    CT_ERROR_CONTAINS("with a bool tensor");
    pwt_expect(FN(pw_fn_sub_tensor, ten, i, I(3)), LI(INT32, 7, 4));
    pwt_expect(FN(pw_fn_rsub_tensor, i, ten, I(2)), LI(INT32, 8, 6));
    pwt_expect(FN(pw_fn_rsub_scalar, T(LF(FLOAT32, 1.5)), I(10), I(2)), LF(FLOAT32, 7.0));
    pwt_expect(FN(pw_fn_sub_scalar, i, F(0.5), I(1)), LF(FLOAT32, 0.5, 1.5));
    const clops_scalar alpha_true[1] = {B(true)};
    pwt_expect(pwt_bin(d, &pw_op_add, LI(BOOL, 1, 0, 0), LI(BOOL, 1, 1, 0), alpha_true),
               LI(BOOL, 1, 1, 0));
    const clops_scalar alpha_half[1] = {F(0.5)};
    const pw_operand ops[2] = {pw_tensor(i), pw_tensor(ten)};
    CT_ASSERT(pwt_op_status(&pw_op_add, ops, alpha_half) == CLOPS_INVALID_ARGUMENT);
    CT_ERROR_CONTAINS("alpha");
}

static void test_sub_refuses_bool_operands_and_rsub_swaps_its_operands(void **state)
{
    (void)state;
    pwt_each_device(check_sub_rsub);
}

/* ---- lerp, addcmul, addcdiv ------------------------------------------------------ */

static void check_lerp_addc(clops_device *d)
{
    clops_tensor *s = T(LF(FLOAT32, 1.0, -2.0)), *e = T(LF(FLOAT32, 3.0, 6.0));
    pwt_expect(FN(pw_fn_lerp_scalar, s, e, F(0.25)), LF(FLOAT32, 1.5, 0.0));
    pwt_expect(FN(pw_fn_lerp_scalar, s, e, F(1.0)), LF(FLOAT32, 3.0, 6.0));
    pwt_expect(FN(pw_fn_lerp_tensor, s, e, T(LF(FLOAT32, 0.5, 0.75))), LF(FLOAT32, 2.0, 4.0));
    CT_ASSERT(FN_STATUS(pw_fn_lerp_scalar, s, T(LF(FLOAT16, 1.0, 1.0)), F(0.5)) ==
              CLOPS_INVALID_DTYPE);
    clops_tensor *i = T(LI(INT32, 1, 2));
    CT_ASSERT(FN_STATUS(pw_fn_addcdiv, s, i, i, I(1)) == CLOPS_INVALID_DTYPE);
    CT_ERROR_CONTAINS("Integer division with addcdiv");
    pwt_expect(FN(pw_fn_addcdiv, s, e, T(LF(FLOAT32, 2.0, -4.0)), F(0.5)),
               LF(FLOAT32, 1.75, -2.75));
    const clops_scalar value[1] = {I(3)};
    const pw_operand ops[3] = {pw_tensor(i), pw_tensor(i), pw_tensor(i)};
    pwt_expect(pwt_op(&pw_op_addcmul, ops, value), LI(INT32, 4, 14));
}

static void test_lerp_and_addcdiv_check_dtypes_and_compute_like_pytorch(void **state)
{
    (void)state;
    pwt_each_device(check_lerp_addc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_integer_division_and_remainder_signs_follow_python),
        cmocka_unit_test(test_float_division_and_remainder_signs_follow_python),
        cmocka_unit_test(test_integer_division_by_zero_gives_zero_quotient_and_dividend_remainder),
        cmocka_unit_test(test_min_divided_by_minus_one_wraps_to_min_with_remainder_zero),
        cmocka_unit_test(test_div_rounding_modes_keep_integer_dtypes_and_reject_unknown_modes),
        cmocka_unit_test(test_integer_arithmetic_wraps_at_the_dtype_width),
        cmocka_unit_test(test_float16_and_bfloat16_results_round_half_to_even),
        cmocka_unit_test(test_integer_pow_follows_pytorch_for_negative_zero_and_one_exponents),
        cmocka_unit_test(test_float_pow_uses_sqrt_and_multiplications_for_special_exponents),
        cmocka_unit_test(test_float_power_computes_and_returns_float64),
        cmocka_unit_test(test_sub_refuses_bool_operands_and_rsub_swaps_its_operands),
        cmocka_unit_test(test_lerp_and_addcdiv_check_dtypes_and_compute_like_pytorch),
    };
    return cmocka_run_group_tests(tests, NULL, ct_teardown_group);
}
