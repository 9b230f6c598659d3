/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/test_pw_compare_semantics.c: corner cases of the comparison,
 * min/max/clamp, selection, fill, bitwise and floating binary ops, with
 * values checked by hand against PyTorch 2.x (CPU), on the CPU device and on
 * every OpenCL device.
 *
 * One behaviour per test: NaN in maximum/minimum (propagates) against
 * fmax/fmin (ignored), clamp's NaN rules and type promotion, shifts by
 * counts outside the width, copysign on signed zeros and NaN signs, where's
 * and masked_fill's dtype rules, fill's checked conversions, heaviside,
 * xlogy, logaddexp, nextafter in the 16-bit formats, comparisons and logical
 * ops with NaN, bitwise ops on bool.
 */
#include "pw_binary_check.h"

#define I(x) clops_scalar_int(x)
#define F(x) clops_scalar_float(x)
#define B(x) clops_scalar_bool(x)
#define T(L) pwt_keep(pwt_lit_tensor(d, (L)))

/* Family functions in functional form (see test_pw_binary_semantics.c). */
static clops_tensor *fn_out_;
static clops_status fn_status_;
#define FN(fn, ...) (fn_out_ = NULL, CT_OK(fn(PW_FUNCTIONAL, NULL, __VA_ARGS__, &fn_out_)),        \
                     pwt_keep(fn_out_))
#define FN_STATUS(fn, ...)                                                                         \
    (fn_out_ = NULL, fn_status_ = fn(PW_FUNCTIONAL, NULL, __VA_ARGS__, &fn_out_),                  \
     fn_out_ ? (void)pwt_keep(fn_out_) : (void)0, fn_status_)

/* ---- min / max / clamp ------------------------------------------------------ */

static void check_min_max_nan(clops_device *d)
{
    pwt_lit a = LF(FLOAT32, NAN, 1.0, NAN, -0.5, 2.0);
    pwt_lit b = LF(FLOAT32, 1.0, NAN, NAN, 3.0, -INFINITY);
    pwt_expect(pwt_bin(d, &pw_op_maximum, a, b, NULL), LF(FLOAT32, NAN, NAN, NAN, 3.0, 2.0));
    pwt_expect(pwt_bin(d, &pw_op_minimum, a, b, NULL), LF(FLOAT32, NAN, NAN, NAN, -0.5, -INFINITY));
    pwt_expect(pwt_bin(d, &pw_op_fmax, a, b, NULL), LF(FLOAT32, 1.0, 1.0, NAN, 3.0, 2.0));
    pwt_expect(pwt_bin(d, &pw_op_fmin, a, b, NULL), LF(FLOAT32, 1.0, 1.0, NAN, -0.5, -INFINITY));
    a.dt = b.dt = CLOPS_FLOAT16;
    pwt_expect(pwt_bin(d, &pw_op_maximum, a, b, NULL), LF(FLOAT16, NAN, NAN, NAN, 3.0, 2.0));
    pwt_expect(pwt_bin(d, &pw_op_fmin, a, b, NULL), LF(FLOAT16, 1.0, 1.0, NAN, -0.5, -INFINITY));
    pwt_expect(pwt_bin(d, &pw_op_maximum, LI(INT8, -128, 127), LI(INT8, 127, -128), NULL),
               LI(INT8, 127, 127));
    pwt_expect(pwt_bin(d, &pw_op_minimum, LI(BOOL, 1, 1, 0), LI(BOOL, 1, 0, 0), NULL),
               LI(BOOL, 1, 0, 0));
    pwt_expect(pwt_bin(d, &pw_op_fmax, LI(BOOL, 1, 0, 0), LI(BOOL, 0, 1, 0), NULL),
               LI(BOOL, 1, 1, 0));
}

static void test_maximum_minimum_propagate_nan_and_fmax_fmin_ignore_it(void **state)
{
    (void)state;
    pwt_each_device(check_min_max_nan);
}

static void check_clamp(clops_device *d)
{
    clops_tensor *x = T(LF(FLOAT32, NAN, 5.0, -5.0, 0.5));
    clops_scalar lo = F(0.0), hi = F(1.0), nan = F(NAN), two = F(2.0);
    pwt_expect(FN(pw_fn_clamp, x, &lo, &hi), LF(FLOAT32, NAN, 1.0, 0.0, 0.5));
    pwt_expect(FN(pw_fn_clamp, x, &nan, &hi), LF(FLOAT32, NAN, NAN, NAN, NAN));
    pwt_expect(FN(pw_fn_clamp, x, &two, &hi), LF(FLOAT32, NAN, 1.0, 1.0, 1.0));
    pwt_expect(FN(pw_fn_clamp, x, &nan, NULL), LF(FLOAT32, NAN, 5.0, -5.0, 0.5));
    /* clamp(min=NaN) ignores the bound, clamp_min/clamp_max fill with it
     * (PyTorch 2.11, tests/data/golden_binary.json). */
    pwt_expect(FN(pw_fn_clamp_min, x, F(NAN)), LF(FLOAT32, NAN, NAN, NAN, NAN));
    pwt_expect(FN(pw_fn_clamp_max, x, F(NAN)), LF(FLOAT32, NAN, NAN, NAN, NAN));
    pwt_expect(FN(pw_fn_clamp_min, T(LI(INT32, 3, -4)), F(NAN)), LF(FLOAT32, NAN, NAN));
    pwt_expect(FN(pw_fn_clamp_max, x, F(1.0)), LF(FLOAT32, NAN, 1.0, -5.0, 0.5));
    clops_tensor *tlo = T(LF(FLOAT32, NAN, 0.0, 0.0, 0.0));
    clops_tensor *thi = T(LF(FLOAT32, 1.0, 1.0, 1.0, NAN));
    pwt_expect(FN(pw_fn_clamp_tensor, x, tlo, thi), LF(FLOAT32, NAN, 1.0, 0.0, NAN));
    pwt_expect(FN(pw_fn_clamp_tensor, x, tlo, NULL), LF(FLOAT32, NAN, 5.0, 0.0, 0.5));
    pwt_expect(FN(pw_fn_clamp_tensor, x, NULL, thi), LF(FLOAT32, NAN, 1.0, -5.0, NAN));
    CT_ASSERT(FN_STATUS(pw_fn_clamp, x, NULL, NULL) == CLOPS_INVALID_ARGUMENT);
    CT_ERROR_CONTAINS("At least one of 'min' or 'max'");
    CT_ASSERT(FN_STATUS(pw_fn_clamp_tensor, x, NULL, NULL) == CLOPS_INVALID_ARGUMENT);
    /* Scalar bounds take part in type promotion. */
    clops_tensor *i = T(LI(INT32, -5, 5));
    clops_scalar half = F(0.5), neg300 = I(-300), m1 = I(-1), f = B(false), z = I(0);
    pwt_expect(FN(pw_fn_clamp, i, &half, NULL), LF(FLOAT32, 0.5, 5.0));
    CT_STATUS(pw_fn_clamp(PW_INPLACE, i, i, &half, NULL, NULL), CLOPS_INVALID_DTYPE);
    CT_ASSERT(FN_STATUS(pw_fn_clamp, T(LI(UINT8, 1)), &neg300, NULL) == CLOPS_INVALID_ARGUMENT);
    CT_ERROR_CONTAINS("without overflow");
    /* -1 fits uint8 the way c10 allows (it wraps to 255). */
    pwt_expect(FN(pw_fn_clamp, T(LI(UINT8, 1, 2)), NULL, &m1), LI(UINT8, 1, 2));
    clops_tensor *bl = T(LI(BOOL, 1, 0));
    CT_ASSERT(FN_STATUS(pw_fn_clamp, bl, &f, NULL) == CLOPS_INVALID_DTYPE);
    pwt_expect(FN(pw_fn_clamp, bl, &z, NULL), LI(INT64, 1, 0));
}

static void test_clamp_nan_rules_bounds_and_promotion_follow_pytorch(void **state)
{
    (void)state;
    pwt_each_device(check_clamp);
}

/* ---- shifts, bitwise ---------------------------------------------------------- */

static void check_shifts(clops_device *d)
{
    const pw_op *shl = &pw_op_bitwise_left_shift, *shr = &pw_op_bitwise_right_shift;
    pwt_lit a8 = LI(INT8, 1, 1, 1, 1, -128, 64, -1, 5, -7);
    pwt_lit b8 = LI(INT8, 7, 8, -1, 100, 9, 7, -1, 7, 2);
    pwt_expect(pwt_bin(d, shl, a8, b8, NULL), LI(INT8, -128, 0, 0, 0, 0, 0, 0, -128, -28));
    pwt_expect(pwt_bin(d, shr, a8, b8, NULL), LI(INT8, 0, 0, 0, 0, -1, 0, -1, 0, -2));
    pwt_lit au = LI(UINT8, 1, 1, 255, 255, 255, 128), bu = LI(UINT8, 7, 8, 8, 200, 7, 1);
    pwt_expect(pwt_bin(d, shl, au, bu, NULL), LI(UINT8, 128, 0, 0, 0, 128, 0));
    pwt_expect(pwt_bin(d, shr, au, bu, NULL), LI(UINT8, 0, 0, 0, 0, 1, 64));
    pwt_lit a64 = LI(INT64, 1, 1, -5, 3), b64 = LI(INT64, 63, 64, 64, 62);
    pwt_expect(pwt_bin(d, shl, a64, b64, NULL), LI(INT64, INT64_MIN, 0, 0, INT64_MIN / 2));
    pwt_expect(pwt_bin(d, shr, a64, b64, NULL), LI(INT64, 0, 0, -1, 0));
    pwt_expect(pwt_bin(d, shl, LI(INT32, 3, 1), LI(INT32, 31, 32), NULL), LI(INT32, INT32_MIN, 0));
    const pw_operand ff[2] = {pwt_lit_op(d, LF(FLOAT32, 1.0)), pwt_lit_op(d, LF(FLOAT32, 1.0))};
    CT_ASSERT(pwt_op_status(shl, ff, NULL) == CLOPS_INVALID_DTYPE);
    const pw_operand bb[2] = {pwt_lit_op(d, LI(BOOL, 1)), pwt_lit_op(d, LI(BOOL, 1))};
    CT_ASSERT(pwt_op_status(shl, bb, NULL) == CLOPS_INVALID_DTYPE);
}

static void test_shifts_by_counts_outside_the_width_follow_pytorch(void **state)
{
    (void)state;
    pwt_each_device(check_shifts);
}

static void check_bitwise_and_logical(clops_device *d)
{
    pwt_lit t = LI(BOOL, 1, 1, 0, 0), u = LI(BOOL, 1, 0, 1, 0);
    pwt_expect(pwt_bin(d, &pw_op_bitwise_xor, t, u, NULL), LI(BOOL, 0, 1, 1, 0));
    pwt_expect(pwt_bin(d, &pw_op_bitwise_and, t, u, NULL), LI(BOOL, 1, 0, 0, 0));
    pwt_expect(pwt_bin(d, &pw_op_bitwise_or, t, u, NULL), LI(BOOL, 1, 1, 1, 0));
    const pw_operand bt[1] = {pwt_lit_op(d, t)};
    pwt_expect(pwt_op(&pw_op_bitwise_not, bt, NULL), LI(BOOL, 0, 0, 1, 1));
    const pw_operand ut[1] = {pwt_lit_op(d, LI(UINT8, 0, 15, 255))};
    pwt_expect(pwt_op(&pw_op_bitwise_not, ut, NULL), LI(UINT8, 255, 240, 0));
    const pw_operand ff[2] = {pwt_lit_op(d, LF(FLOAT32, 1.0)), pwt_lit_op(d, LF(FLOAT32, 1.0))};
    CT_ASSERT(pwt_op_status(&pw_op_bitwise_and, ff, NULL) == CLOPS_INVALID_DTYPE);
    pwt_lit x = LF(FLOAT32, NAN, 0.0, -0.0, 2.0), y = LF(FLOAT32, 1.0, 1.0, 1.0, 0.0);
    pwt_expect(pwt_bin(d, &pw_op_logical_and, x, y, NULL), LI(BOOL, 1, 0, 0, 0));
    pwt_expect(pwt_bin(d, &pw_op_logical_or, x, y, NULL), LI(BOOL, 1, 1, 1, 1));
    pwt_expect(pwt_bin(d, &pw_op_logical_xor, x, y, NULL), LI(BOOL, 0, 1, 1, 1));
    const pw_operand xt[1] = {pwt_lit_op(d, x)};
    pwt_expect(pwt_op(&pw_op_logical_not, xt, NULL), LI(BOOL, 0, 1, 1, 0));
}

static void test_bitwise_ops_on_bool_are_logical_and_logical_ops_treat_nan_as_true(void **state)
{
    (void)state;
    pwt_each_device(check_bitwise_and_logical);
}

static void check_comparisons(clops_device *d)
{
    pwt_lit a = LF(FLOAT32, NAN, 1.0, -0.0, INFINITY), b = LF(FLOAT32, NAN, 2.0, 0.0, INFINITY);
    pwt_expect(pwt_bin(d, &pw_op_eq, a, b, NULL), LI(BOOL, 0, 0, 1, 1));
    pwt_expect(pwt_bin(d, &pw_op_ne, a, b, NULL), LI(BOOL, 1, 1, 0, 0));
    pwt_expect(pwt_bin(d, &pw_op_lt, a, b, NULL), LI(BOOL, 0, 1, 0, 0));
    pwt_expect(pwt_bin(d, &pw_op_le, a, b, NULL), LI(BOOL, 0, 1, 1, 1));
    pwt_expect(pwt_bin(d, &pw_op_gt, a, b, NULL), LI(BOOL, 0, 0, 0, 0));
    pwt_expect(pwt_bin(d, &pw_op_ge, a, b, NULL), LI(BOOL, 0, 0, 1, 1));
    /* An int tensor against a float scalar compares in float32. */
    const pw_operand s25[2] = {pwt_lit_op(d, LI(INT32, 2, 3)), pw_scalar(F(2.5))};
    pwt_expect(pwt_op(&pw_op_lt, s25, NULL), LI(BOOL, 1, 0));
    const pw_operand s2[2] = {pwt_lit_op(d, LI(INT64, 2, 3)), pw_scalar(F(2.0))};
    pwt_expect(pwt_op(&pw_op_eq, s2, NULL), LI(BOOL, 1, 0));
    pwt_expect(pwt_bin(d, &pw_op_gt, LI(BOOL, 1, 0), LI(BOOL, 0, 0), NULL), LI(BOOL, 1, 0));
}

static void test_comparisons_are_false_with_nan_and_promote_scalars(void **state)
{
    (void)state;
    pwt_each_device(check_comparisons);
}

/* ---- floating binary functions ----------------------------------------------- */

static void check_copysign(clops_device *d)
{
    pwt_expect(pwt_bin(d, &pw_op_copysign, LF(FLOAT32, 1.0, 0.0, -0.0, 3.0, 2.0, -INFINITY),
                       LF(FLOAT32, -0.0, -1.0, 1.0, NAN, -NAN, 1.0), NULL),
               LF(FLOAT32, -1.0, -0.0, 0.0, 3.0, -2.0, INFINITY));
    pwt_expect(pwt_bin(d, &pw_op_copysign, LI(INT32, 1, -2, 0), LI(INT32, -1, 1, -1), NULL),
               LF(FLOAT32, -1.0, 2.0, -0.0));
}

static void test_copysign_copies_the_sign_bit_of_zeros_and_nans(void **state)
{
    (void)state;
    pwt_each_device(check_copysign);
}

static void check_float_functions(clops_device *d)
{
    pwt_expect(pwt_bin(d, &pw_op_xlogy, LF(FLOAT32, 0.0, 0.0, 1.0, 2.0, 3.0, -1.0),
                       LF(FLOAT32, 0.0, NAN, 0.0, 1.0, INFINITY, INFINITY), NULL),
               LF(FLOAT32, 0.0, NAN, -INFINITY, 0.0, INFINITY, -INFINITY));
    pwt_expect_close(pwt_bin(d, &pw_op_logaddexp,
                             LF(FLOAT32, INFINITY, -INFINITY, INFINITY, 1.0, 0.0),
                             LF(FLOAT32, INFINITY, -INFINITY, -INFINITY, NAN, 0.0), NULL),
                     LF(FLOAT32, INFINITY, -INFINITY, INFINITY, NAN, (float)0.6931471805599453), 4);
    pwt_expect_close(pwt_bin(d, &pw_op_logaddexp2, LF(FLOAT32, 1.0, 0.0, -INFINITY),
                             LF(FLOAT32, 1.0, 0.0, 3.0), NULL),
                     LF(FLOAT32, 2.0, 1.0, 3.0), 4);
    pwt_expect_close(pwt_bin(d, &pw_op_hypot, LF(FLOAT32, 3.0, INFINITY, NAN),
                             LF(FLOAT32, 4.0, NAN, 0.0), NULL),
                     LF(FLOAT32, 5.0, INFINITY, NAN), 4);
    pwt_expect_close(pwt_bin(d, &pw_op_atan2, LF(FLOAT32, 0.0, -0.0, 1.0),
                             LF(FLOAT32, -1.0, -1.0, 0.0), NULL),
                     LF(FLOAT32, (float)3.141592653589793, (float)-3.141592653589793,
                        (float)1.5707963267948966), 6);
    clops_tensor *h = FN(pw_fn_heaviside, T(LF(FLOAT32, -1.0, 0.0, 2.0, NAN, -0.0)),
                         T(LF(FLOAT32, 5.0, 5.0, 5.0, 5.0, 7.0)));
    pwt_expect(h, LF(FLOAT32, 0.0, 5.0, 1.0, 0.0, 7.0));
    pwt_expect(FN(pw_fn_heaviside, T(LI(INT32, -3, 0, 4)), T(LI(INT32, 9, 9, 9))),
               LI(INT32, 0, 9, 1));
    CT_ASSERT(FN_STATUS(pw_fn_heaviside, T(LI(INT32, 1)), T(LI(INT64, 1))) == CLOPS_INVALID_DTYPE);
}

static void test_xlogy_logaddexp_hypot_atan2_and_heaviside_special_values(void **state)
{
    (void)state;
    pwt_each_device(check_float_functions);
}

static void check_nextafter(clops_device *d)
{
    pwt_expect(FN(pw_fn_nextafter, T(LF(FLOAT32, 1.0, -1.0, 1.0)), T(LF(FLOAT32, 2.0, 0.0, 1.0))),
               LF(FLOAT32, 1.0 + 0x1p-23, -1.0 + 0x1p-24, 1.0));
    pwt_expect(FN(pw_fn_nextafter, T(LF(FLOAT16, 1.0, 0.0, 65504.0, -0.0, NAN)),
                  T(LF(FLOAT16, 2.0, -1.0, INFINITY, 0.0, 1.0))),
               LF(FLOAT16, 1.0 + 0x1p-10, -0x1p-24, INFINITY, 0.0, NAN));
    pwt_expect(FN(pw_fn_nextafter, T(LF(BFLOAT16, 1.0, 1.0, -2.0)),
                  T(LF(BFLOAT16, 2.0, 0.0, -3.0))),
               LF(BFLOAT16, 1.0 + 0x1p-7, 1.0 - 0x1p-8, -2.0 - 0x1p-6));
    if (ct_device_supports(d, CLOPS_FLOAT64))
        pwt_expect(FN(pw_fn_nextafter, T(LF(FLOAT64, 1.0)), T(LF(FLOAT64, 0.0))),
                   LF(FLOAT64, 1.0 - 0x1p-53));
}

static void test_nextafter_steps_in_the_format_of_the_dtype(void **state)
{
    (void)state;
    pwt_each_device(check_nextafter);
}

/* ---- where, masked_fill, fill ------------------------------------------------------ */

static void check_where(clops_device *d)
{
    clops_tensor *c = T(LI(BOOL, 1, 0, 1)), *i = T(LI(INT32, 1, 2, 3));
    clops_tensor *f = T(LF(FLOAT32, 0.5, 0.5, 0.5));
    pwt_expect(FN(pw_fn_where_self, c, i, f), LF(FLOAT32, 1.0, 0.5, 3.0));
    pwt_expect(FN(pw_fn_where_self, T(LI(UINT8, 7, 0, 0)), i, f), LF(FLOAT32, 1.0, 0.5, 0.5));
    CT_ASSERT(FN_STATUS(pw_fn_where_self, f, i, i) == CLOPS_INVALID_DTYPE);
    CT_ERROR_CONTAINS("boolean tensor");
    pwt_expect(FN(pw_fn_where_scalar, c, I(1), F(2.5)), LF(FLOAT32, 1.0, 2.5, 1.0));
    pwt_expect(FN(pw_fn_where_scalar, c, I(1), I(2)), LI(INT64, 1, 2, 1));
    pwt_expect(FN(pw_fn_where_scalar_self, c, F(0.5), T(LF(FLOAT16, 3.0, 4.0, 5.0))),
               LF(FLOAT16, 0.5, 4.0, 0.5));
    pwt_expect(FN(pw_fn_where_scalar_other, c, i, B(false)), LI(INT32, 1, 0, 3));
    clops_tensor *out = T(LF(FLOAT32, 0.0, 0.0, 0.0));
    CT_OK(pw_fn_where_self(PW_OUT, out, c, i, f, NULL));
    pwt_expect(out, LF(FLOAT32, 1.0, 0.5, 3.0));
    clops_tensor *out_i = T(LI(INT64, 0, 0, 0));
    CT_STATUS(pw_fn_where_self(PW_OUT, out_i, c, i, f, NULL), CLOPS_INVALID_DTYPE);
}

static void test_where_takes_bool_or_uint8_conditions_and_an_exact_out_dtype(void **state)
{
    (void)state;
    pwt_each_device(check_where);
}

static void check_masked_fill(clops_device *d)
{
    clops_tensor *x = T(LI(INT32, 1, 2, 3)), *m = T(LI(BOOL, 1, 0, 1));
    pwt_expect(FN(pw_fn_masked_fill_scalar, x, m, I(7)), LI(INT32, 7, 2, 7));
    pwt_expect(FN(pw_fn_masked_fill_scalar, x, m, F(2.7)), LI(INT32, 2, 2, 2));
    pwt_expect(FN(pw_fn_masked_fill_scalar, T(LF(FLOAT16, 1.0, 1.0, 1.0)), m, F(0.1)),
               LF(FLOAT16, 0.0999755859375, 1.0, 0.0999755859375));
    CT_ASSERT(FN_STATUS(pw_fn_masked_fill_scalar, x, T(LI(UINT8, 1, 0, 1)), I(1)) ==
              CLOPS_INVALID_DTYPE);
    CT_ERROR_CONTAINS("boolean masks");
    CT_ASSERT(FN_STATUS(pw_fn_masked_fill_scalar, T(LI(UINT8, 1, 2, 3)), m, I(300)) ==
              CLOPS_INVALID_ARGUMENT);
    pwt_expect(FN(pw_fn_masked_fill_scalar, T(LI(UINT8, 1, 2, 3)), m, I(-1)),
               LI(UINT8, 255, 2, 255));
    clops_dtype vdt = ct_device_supports(d, CLOPS_FLOAT64) ? CLOPS_FLOAT64 : CLOPS_FLOAT32;
    clops_tensor *v0 = NULL;
    CT_OK(clops_full(d, vdt, 0, NULL, F(-4.5), &v0));
    pwt_keep(v0);
    pwt_expect(FN(pw_fn_masked_fill_tensor, x, m, v0), LI(INT32, -4, 2, -4));
    CT_ASSERT(FN_STATUS(pw_fn_masked_fill_tensor, x, m, x) == CLOPS_INVALID_SHAPE);
    /* The mask broadcasts the functional result; in place it must fit self. */
    clops_tensor *m23 = NULL;
    int64_t sz[2] = {2, 3};
    const uint8_t mb[6] = {1, 0, 0, 0, 1, 1};
    CT_OK(clops_from_host(d, CLOPS_BOOL, 2, sz, mb, 6, &m23));
    pwt_keep(m23);
    clops_tensor *r = FN(pw_fn_masked_fill_scalar, x, m23, I(0));
    CT_ASSERT(r->ndim == 2 && r->sizes[0] == 2 && r->sizes[1] == 3);
    CT_STATUS(pw_fn_masked_fill_scalar(PW_INPLACE, x, x, m23, I(0), NULL), CLOPS_INVALID_SHAPE);
    CT_OK(pw_fn_masked_fill_scalar(PW_INPLACE, x, x, m, I(-1), NULL));
    pwt_expect(x, LI(INT32, -1, 2, -1));
}

static void test_masked_fill_needs_a_bool_mask_and_a_fitting_value(void **state)
{
    (void)state;
    pwt_each_device(check_masked_fill);
}

static void check_fill(clops_device *d)
{
    clops_tensor *x = T(LI(INT32, 1, 2, 3));
    pwt_expect(FN(pw_fn_fill_scalar, x, F(2.7)), LI(INT32, 2, 2, 2));
    pwt_expect(x, LI(INT32, 1, 2, 3));
    CT_OK(pw_fn_fill_scalar(PW_INPLACE, x, x, I(-9), NULL));
    pwt_expect(x, LI(INT32, -9, -9, -9));
    CT_ASSERT(FN_STATUS(pw_fn_fill_scalar, T(LI(UINT8, 1)), I(300)) == CLOPS_INVALID_ARGUMENT);
    CT_ASSERT(FN_STATUS(pw_fn_fill_scalar, T(LF(FLOAT16, 1.0)), F(1e5)) == CLOPS_INVALID_ARGUMENT);
    CT_ASSERT(FN_STATUS(pw_fn_fill_scalar, T(LI(INT64, 1)), F(NAN)) == CLOPS_INVALID_ARGUMENT);
    pwt_expect(FN(pw_fn_fill_scalar, T(LI(BOOL, 0, 0)), I(5)), LI(BOOL, 1, 1));
    pwt_expect(FN(pw_fn_fill_scalar, T(LF(FLOAT16, 0.0)), F(INFINITY)), LF(FLOAT16, INFINITY));
    clops_tensor *out = T(LF(FLOAT32, 0.0));
    CT_OK(pw_fn_fill_scalar(PW_OUT, out, x, F(2.7), NULL));
    pwt_expect(out, LF(FLOAT32, 2.0, 2.0, 2.0));
    clops_tensor *v = NULL;
    CT_OK(clops_full(d, CLOPS_FLOAT32, 0, NULL, F(1.5), &v));
    pwt_keep(v);
    pwt_expect(FN(pw_fn_fill_tensor, T(LF(FLOAT32, 0.0, 0.0)), v), LF(FLOAT32, 1.5, 1.5));
    CT_OK(pw_fn_fill_tensor(PW_INPLACE, x, x, v, NULL));
    pwt_expect(x, LI(INT32, 1, 1, 1));
    CT_ASSERT(FN_STATUS(pw_fn_fill_tensor, x, x) == CLOPS_INVALID_SHAPE);
    /* A CPU zero-dim value fills a device tensor. */
    clops_tensor *cv = NULL;
    CT_OK(clops_full(ct_cpu(), CLOPS_INT64, 0, NULL, I(4), &cv));
    pwt_keep(cv);
    CT_OK(pw_fn_fill_tensor(PW_INPLACE, x, x, cv, NULL));
    pwt_expect(x, LI(INT32, 4, 4, 4));
}

static void test_fill_converts_the_value_with_pytorch_checks(void **state)
{
    (void)state;
    pwt_each_device(check_fill);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_maximum_minimum_propagate_nan_and_fmax_fmin_ignore_it),
        cmocka_unit_test(test_clamp_nan_rules_bounds_and_promotion_follow_pytorch),
        cmocka_unit_test(test_shifts_by_counts_outside_the_width_follow_pytorch),
        cmocka_unit_test(test_bitwise_ops_on_bool_are_logical_and_logical_ops_treat_nan_as_true),
        cmocka_unit_test(test_comparisons_are_false_with_nan_and_promote_scalars),
        cmocka_unit_test(test_copysign_copies_the_sign_bit_of_zeros_and_nans),
        cmocka_unit_test(test_xlogy_logaddexp_hypot_atan2_and_heaviside_special_values),
        cmocka_unit_test(test_nextafter_steps_in_the_format_of_the_dtype),
        cmocka_unit_test(test_where_takes_bool_or_uint8_conditions_and_an_exact_out_dtype),
        cmocka_unit_test(test_masked_fill_needs_a_bool_mask_and_a_fitting_value),
        cmocka_unit_test(test_fill_converts_the_value_with_pytorch_checks),
    };
    return cmocka_run_group_tests(tests, NULL, ct_teardown_group);
}
