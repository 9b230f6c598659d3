/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/test_pw_binary_dispatch.c: the binary ops through the public API
 * that dispatch/inventory/pointwise_binary.yaml generates (clops/ops.h), on the
 * CPU and every OpenCL device.
 *
 * The other tests call pw_run and the family functions directly; this one
 * checks the inventory's bindings: that pointwise entries split schema
 * arguments into the right operands and parameters (alpha, value), that
 * derived in-place and out variants and the irregularly named in-place
 * entries (pow_.Scalar, floor_divide_.Tensor, __iand__) reach the right
 * function with the right variant, and that structured entries with
 * optional arguments (clamp's Scalar? bounds, div's str? rounding_mode)
 * pass them through.
 */
#include "clops/ops.h"
#include "pw_binary_check.h"

#define I(x) clops_scalar_int(x)
#define F(x) clops_scalar_float(x)
#define T(L) pwt_keep(pwt_lit_tensor(d, (L)))

/* The kept result of a functional call that writes it to &r_:
 * K(clops_add(a, b, alpha, &r_)). */
static clops_tensor *r_;
#define K(call) (r_ = NULL, CT_OK(call), pwt_keep(r_))

static void check_functional_forms(clops_device *d)
{
    clops_tensor *a = T(LI(INT32, 7, -7, 3)), *b = T(LI(INT32, 2, 2, -2));
    pwt_expect(K(clops_add(a, b, I(3), &r_)), LI(INT32, 13, -1, -3));
    pwt_expect(K(clops_add_scalar(a, I(1), I(2), &r_)), LI(INT32, 9, -5, 5));
    pwt_expect(K(clops_sub(a, b, I(1), &r_)), LI(INT32, 5, -9, 5));
    pwt_expect(K(clops_rsub(a, b, I(1), &r_)), LI(INT32, -5, 9, -5));
    pwt_expect(K(clops_div_tensor_mode(a, b, "floor", &r_)), LI(INT32, 3, -4, -2));
    pwt_expect(K(clops_div_tensor_mode(a, b, NULL, &r_)), LF(FLOAT32, 3.5, -3.5, -1.5));
    pwt_expect(K(clops_floor_divide(a, b, &r_)), LI(INT32, 3, -4, -2));
    pwt_expect(K(clops_remainder_scalar_tensor(I(5), b, &r_)), LI(INT32, 1, 1, -1));
    pwt_expect(K(clops_pow_tensor_scalar(a, I(2), &r_)), LI(INT32, 49, 49, 9));
    pwt_expect(K(clops_addcmul(a, b, b, I(2), &r_)), LI(INT32, 15, 1, 11));
    clops_scalar lo = I(-1), hi = I(4);
    pwt_expect(K(clops_clamp(a, &lo, &hi, &r_)), LI(INT32, 4, -1, 3));
    pwt_expect(K(clops_clamp(a, NULL, &hi, &r_)), LI(INT32, 4, -7, 3));
    pwt_expect(K(clops_clamp_min_tensor(a, b, &r_)), LI(INT32, 7, 2, 3));
    pwt_expect(K(clops_and_op(a, b, &r_)), LI(INT32, 2, 0, 2));
    pwt_expect(K(clops_bitwise_left_shift_tensor_scalar(b, I(3), &r_)), LI(INT32, 16, 16, -16));
    clops_tensor *c = T(LI(BOOL, 1, 0, 1));
    pwt_expect(K(clops_where_scalarother(c, a, F(0.5), &r_)), LF(FLOAT32, 7.0, 0.5, 3.0));
    pwt_expect(K(clops_lt_scalar(a, I(0), &r_)), LI(BOOL, 0, 1, 0));
    CT_STATUS(clops_sub(c, c, I(1), &r_), CLOPS_INVALID_DTYPE);
    CT_STATUS(clops_add(a, b, F(0.5), &r_), CLOPS_INVALID_ARGUMENT);
}

static void test_functional_forms_bind_operands_and_parameters(void **state)
{
    (void)state;
    pwt_each_device(check_functional_forms);
}

static void check_inplace_and_out_forms(clops_device *d)
{
    clops_tensor *a = T(LI(INT32, 7, -7, 3)), *b = T(LI(INT32, 2, 2, -2));
    CT_OK(clops_mul_(a, b));
    pwt_expect(a, LI(INT32, 14, -14, -6));
    CT_OK(clops_floor_divide_(a, b));
    pwt_expect(a, LI(INT32, 7, -7, 3));
    CT_OK(clops_iand_op_scalar(a, I(6)));
    pwt_expect(a, LI(INT32, 6, 0, 2));
    CT_OK(clops_pow_scalar_(a, I(2)));
    pwt_expect(a, LI(INT32, 36, 0, 4));
    CT_STATUS(clops_pow_scalar_(a, F(0.5)), CLOPS_INVALID_DTYPE);
    CT_OK(clops_clamp_max_(a, I(5)));
    pwt_expect(a, LI(INT32, 5, 0, 4));
    clops_tensor *out = T(LF(FLOAT32, 0.0));
    CT_OK(clops_div_mode_out(a, b, NULL, out));
    pwt_expect(out, LF(FLOAT32, 2.5, 0.0, -2.0));
    CT_OK(clops_eq_(a, b));
    pwt_expect(a, LI(INT32, 0, 0, 0));
    clops_tensor *m = T(LI(BOOL, 1, 0, 1));
    CT_OK(clops_masked_fill_scalar_(a, m, I(-3)));
    pwt_expect(a, LI(INT32, -3, 0, -3));
    CT_OK(clops_fill_scalar_(a, I(9)));
    pwt_expect(a, LI(INT32, 9, 9, 9));
    clops_tensor *o2 = T(LI(INT64, 0, 0, 0));
    CT_OK(clops_maximum_out(a, b, o2));
    pwt_expect(o2, LI(INT64, 9, 9, 9));
}

static void test_inplace_and_out_forms_write_their_destination(void **state)
{
    (void)state;
    pwt_each_device(check_inplace_and_out_forms);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_functional_forms_bind_operands_and_parameters),
        cmocka_unit_test(test_inplace_and_out_forms_write_their_destination),
    };
    return cmocka_run_group_tests(tests, NULL, ct_teardown_group);
}
