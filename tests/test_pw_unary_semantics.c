/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/test_pw_unary_semantics.c: the PyTorch semantics of the unary and
 * activation ops, one behaviour per test, with values checked by hand
 * against PyTorch 2.x (CPU) and run on the CPU device and on every OpenCL
 * device.
 *
 * tests/test_pw_unary.c checks that devices agree with the C reference;
 * this file checks that the reference (and so every device) says what
 * PyTorch says where it is easy to get wrong: rounding half to even,
 * signed zeros, wrap-around of integer extremes, the dtype rules (what is
 * refused, what promotes to float, what keeps integers), nan_to_num's
 * per-dtype defaults, the conventions at poles (digamma, lgamma, erfinv,
 * logit), the parameters of gelu, softplus, hardtanh, elu and their
 * backward ops, and the errors PyTorch raises.
 */
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "clops/device.h"
#include "codegen_pointwise/ops_unary.h"
#include "core/tensor_impl.h"

#define N_MAX 16
#define ARR(...) ((const double[]){__VA_ARGS__})
#define LEN(...) ((int)(sizeof((double[]){__VA_ARGS__}) / sizeof(double)))
#define VALS(...) ARR(__VA_ARGS__), LEN(__VA_ARGS__)

/* --- helpers -------------------------------------------------------------- */

/* Number of devices, the CPU included. */
static int n_devices(void)
{
    int n = 0;
    assert_int_equal(clops_device_count(&n), CLOPS_OK);
    return n;
}

/* Device i (0 is the CPU). */
static clops_device *device_at(int i)
{
    clops_device *d = NULL;
    assert_int_equal(clops_device_get(i, &d), CLOPS_OK);
    return d;
}

/* Whether device d runs dtype dt (float64 needs fp64). */
static bool runs(clops_device *d, clops_dtype dt)
{
    return dt != CLOPS_FLOAT64 || clops_device_get_info(d)->fp64;
}

/* A 1-D tensor of dtype dt on d holding vals (converted as a store). */
static clops_tensor *make(clops_device *d, clops_dtype dt, const double *vals, int n)
{
    uint64_t buf[N_MAX];
    assert_true(n <= N_MAX);
    for (int i = 0; i < n; i++) {
        pw_value v;
        if (clops_dtype_is_floating(dt)) {
            v.f = vals[i];
            pw_ref_store(buf, i, dt, CLOPS_FLOAT64, v);
        } else {
            v.i = (int64_t)vals[i];
            pw_ref_store(buf, i, dt, CLOPS_INT64, v);
        }
    }
    int64_t size = n;
    clops_tensor *t = NULL;
    assert_int_equal(clops_from_host(d, dt, 1, &size, buf, (size_t)n * clops_dtype_size(dt), &t),
                     CLOPS_OK);
    return t;
}

/* A 1-D integer tensor from int64 values (extremes need exact integers). */
static clops_tensor *make_i(clops_device *d, clops_dtype dt, const int64_t *vals, int n)
{
    uint64_t buf[N_MAX];
    for (int i = 0; i < n; i++) {
        pw_value v;
        v.i = vals[i];
        pw_ref_store(buf, i, dt, CLOPS_INT64, v);
    }
    int64_t size = n;
    clops_tensor *t = NULL;
    assert_int_equal(clops_from_host(d, dt, 1, &size, buf, (size_t)n * clops_dtype_size(dt), &t),
                     CLOPS_OK);
    return t;
}

/* Reads t's elements as doubles (floats) or int64 (integers, bool). */
static void read_back(const clops_tensor *t, pw_value *out, int n)
{
    uint64_t buf[N_MAX];
    assert_int_equal(clops_tensor_numel(t), n);
    assert_int_equal(clops_tensor_to_host(t, buf, (size_t)n * clops_dtype_size(t->dtype)),
                     CLOPS_OK);
    for (int i = 0; i < n; i++)
        out[i] = pw_ref_load(buf, i, t->dtype,
                             clops_dtype_is_floating(t->dtype) ? CLOPS_FLOAT64 : CLOPS_INT64);
}

/* Checks float results: NaN where NaN is wanted; with ulps == 0 exactly,
 * the sign of zeros included; otherwise within `ulps` float32 ulps (and
 * within 1e-6 of a zero). */
static void expect_f(const clops_tensor *t, clops_dtype dt, const double *want, int n, int ulps,
                     const char *what, int dev)
{
    pw_value got[N_MAX];
    assert_int_equal(t->dtype, dt);
    read_back(t, got, n);
    for (int i = 0; i < n; i++) {
        double g = got[i].f, w = want[i];
        bool ok;
        if (isnan(w))
            ok = isnan(g);
        else if (w == 0.0 && ulps == 0)
            ok = g == 0.0 && signbit(g) == signbit(w);
        else if (w == 0.0)
            ok = fabs(g) <= 1e-6;
        else if (isinf(w) || ulps == 0)
            ok = g == w;
        else
            ok = fabs(g - w) <= ulps * ((double)nextafterf(fabsf((float)w), INFINITY) -
                                        (double)fabsf((float)w)) + (dt == CLOPS_FLOAT64 ? 0 : 1e-300);
        if (!ok)
            print_error("%s on device %d: [%d] got %.17g, want %.17g\n", what, dev, i, g, w);
        assert_true(ok);
    }
}

/* Checks integer or bool results exactly. */
static void expect_i(const clops_tensor *t, clops_dtype dt, const int64_t *want, int n,
                     const char *what, int dev)
{
    pw_value got[N_MAX];
    assert_int_equal(t->dtype, dt);
    read_back(t, got, n);
    for (int i = 0; i < n; i++) {
        if (got[i].i != want[i])
            print_error("%s on device %d: [%d] got %lld, want %lld\n", what, dev, i,
                        (long long)got[i].i, (long long)want[i]);
        assert_true(got[i].i == want[i]);
    }
}

/* Runs a one-operand pw_op functionally. */
static clops_status run1(const pw_op *op, clops_tensor *x, const clops_scalar *params,
                         clops_tensor **out)
{
    pw_operand o = pw_tensor(x);
    return pw_run(op, PW_FUNCTIONAL, &o, params, NULL, NULL, out);
}

/* Runs a two-operand pw_op functionally. */
static clops_status run2(const pw_op *op, clops_tensor *a, clops_tensor *b,
                         const clops_scalar *params, clops_tensor **out)
{
    pw_operand o[2] = {pw_tensor(a), pw_tensor(b)};
    return pw_run(op, PW_FUNCTIONAL, o, params, NULL, NULL, out);
}

/* Runs op on float32 vals on every device and checks the result. */
static void check_f32(const pw_op *op, const clops_scalar *params, const double *vals, int n,
                      const double *want, int ulps)
{
    for (int d = 0; d < n_devices(); d++) {
        clops_tensor *x = make(device_at(d), CLOPS_FLOAT32, vals, n), *y = NULL;
        assert_int_equal(run1(op, x, params, &y), CLOPS_OK);
        expect_f(y, CLOPS_FLOAT32, want, n, ulps, op->name, d);
        clops_tensor_release(x);
        clops_tensor_release(y);
    }
}

/* --- rounding and signed zeros ------------------------------------------------- */

static void test_round_is_half_to_even(void **state)
{
    (void)state;
    check_f32(&pw_op_round, NULL, VALS(0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 3.5, 0.49999997, -0.4),
              ARR(0.0, 2.0, 2.0, -0.0, -2.0, -2.0, 4.0, 0.0, -0.0), 0);
}

static void test_round_decimals_rounds_the_scaled_value_half_to_even(void **state)
{
    (void)state;
    /* In float32: 1.25 * 10 = 12.5 -> 12; 1.35f * 10 rounds to 13.5 -> 14;
     * 2.675f * 100 rounds to 267.5 -> 268; -0.25 * 10 = -2.5 -> -2. */
    for (int d = 0; d < n_devices(); d++) {
        clops_tensor *x = make(device_at(d), CLOPS_FLOAT32, VALS(1.25, 1.35, -0.25, 0.04)), *y = NULL;
        assert_int_equal(pw_glue_round_decimals(PW_FUNCTIONAL, NULL, x, 1, &y), CLOPS_OK);
        expect_f(y, CLOPS_FLOAT32, ARR((float)1.2, (float)1.4, (float)-0.2, 0.0), 4, 0,
                 "round.decimals(1)", d);
        clops_tensor_release(y);
        y = NULL;
        clops_tensor *x2 = make(device_at(d), CLOPS_FLOAT32, VALS(2.675, 1234.5, -1250.0, 49.0));
        assert_int_equal(pw_glue_round_decimals(PW_FUNCTIONAL, NULL, x2, 2, &y), CLOPS_OK);
        expect_f(y, CLOPS_FLOAT32, ARR((float)2.68, 1234.5, -1250.0, 49.0), 4, 0,
                 "round.decimals(2)", d);
        clops_tensor_release(y);
        y = NULL;
        assert_int_equal(pw_glue_round_decimals(PW_FUNCTIONAL, NULL, x2, -2, &y), CLOPS_OK);
        expect_f(y, CLOPS_FLOAT32, ARR(0.0, 1200.0, -1200.0, 0.0), 4, 0, "round.decimals(-2)", d);
        clops_tensor_release(y);
        clops_tensor_release(x);
        clops_tensor_release(x2);
    }
}

static void test_round_decimals_refuses_integers(void **state)
{
    (void)state;
    clops_tensor *x = make(device_at(0), CLOPS_INT32, VALS(1, 2)), *y = NULL;
    assert_int_equal(pw_glue_round_decimals(PW_FUNCTIONAL, NULL, x, 1, &y), CLOPS_INVALID_DTYPE);
    assert_null(y);
    clops_tensor_release(x);
}

static void test_signed_zeros(void **state)
{
    (void)state;
    check_f32(&pw_op_neg, NULL, VALS(0.0, -0.0), ARR(-0.0, 0.0), 0);
    check_f32(&pw_op_abs, NULL, VALS(-0.0, -2.5), ARR(0.0, 2.5), 0);
    check_f32(&pw_op_trunc, NULL, VALS(-0.5, 0.5, -0.0), ARR(-0.0, 0.0, -0.0), 0);
    check_f32(&pw_op_ceil, NULL, VALS(-0.5, -0.0, 0.2), ARR(-0.0, -0.0, 1.0), 0);
    check_f32(&pw_op_floor, NULL, VALS(-0.0, 0.5, -0.5), ARR(-0.0, 0.0, -1.0), 0);
    /* sign is (0 < x) - (x < 0): +0 for -0.0 and for NaN. */
    check_f32(&pw_op_sign, NULL, VALS(-0.0, NAN, -3.0, 2.0), ARR(0.0, 0.0, -1.0, 1.0), 0);
    check_f32(&pw_op_expm1, NULL, VALS(-0.0), ARR(-0.0), 0);
    check_f32(&pw_op_erfinv, NULL, VALS(-0.0, 0.0), ARR(-0.0, 0.0), 0);
    check_f32(&pw_op_sinc, NULL, VALS(-0.0, 0.0), ARR(1.0, 1.0), 0);
}

static void test_signbit_sees_negative_zero_and_integers(void **state)
{
    (void)state;
    for (int d = 0; d < n_devices(); d++) {
        clops_tensor *x = make(device_at(d), CLOPS_FLOAT32, VALS(-0.0, 0.0, -INFINITY, 1.0)), *y = NULL;
        assert_int_equal(run1(&pw_op_signbit, x, NULL, &y), CLOPS_OK);
        expect_i(y, CLOPS_BOOL, (const int64_t[]){1, 0, 1, 0}, 4, "signbit float32", d);
        clops_tensor_release(x);
        clops_tensor_release(y);
        y = NULL;
        x = make(device_at(d), CLOPS_INT16, VALS(-3, 0, 7));
        assert_int_equal(run1(&pw_op_signbit, x, NULL, &y), CLOPS_OK);
        expect_i(y, CLOPS_BOOL, (const int64_t[]){1, 0, 0}, 3, "signbit int16", d);
        clops_tensor_release(x);
        clops_tensor_release(y);
    }
}

/* --- integers ------------------------------------------------------------------ */

static void test_integer_abs_and_neg_wrap_at_the_minimum(void **state)
{
    (void)state;
    for (int d = 0; d < n_devices(); d++) {
        clops_device *dev = device_at(d);
        clops_tensor *y = NULL;
        clops_tensor *x8 = make(dev, CLOPS_INT8, VALS(-128, -5, 7));
        assert_int_equal(run1(&pw_op_abs, x8, NULL, &y), CLOPS_OK);
        expect_i(y, CLOPS_INT8, (const int64_t[]){-128, 5, 7}, 3, "abs int8", d);
        clops_tensor_release(y);
        y = NULL;
        clops_tensor *x32 = make_i(dev, CLOPS_INT32, (const int64_t[]){INT32_MIN, -1}, 2);
        assert_int_equal(run1(&pw_op_abs, x32, NULL, &y), CLOPS_OK);
        expect_i(y, CLOPS_INT32, (const int64_t[]){INT32_MIN, 1}, 2, "abs int32", d);
        clops_tensor_release(y);
        y = NULL;
        clops_tensor *x64 = make_i(dev, CLOPS_INT64, (const int64_t[]){INT64_MIN, INT64_MAX}, 2);
        assert_int_equal(run1(&pw_op_neg, x64, NULL, &y), CLOPS_OK);
        expect_i(y, CLOPS_INT64, (const int64_t[]){INT64_MIN, -INT64_MAX}, 2, "neg int64", d);
        clops_tensor_release(y);
        y = NULL;
        clops_tensor *xu = make(dev, CLOPS_UINT8, VALS(1, 0, 255));
        assert_int_equal(run1(&pw_op_neg, xu, NULL, &y), CLOPS_OK);
        expect_i(y, CLOPS_UINT8, (const int64_t[]){255, 0, 1}, 3, "neg uint8", d);
        clops_tensor_release(y);
        clops_tensor_release(x8);
        clops_tensor_release(x32);
        clops_tensor_release(x64);
        clops_tensor_release(xu);
    }
}

static void test_square_wraps_and_promotes_bool_to_int64(void **state)
{
    (void)state;
    for (int d = 0; d < n_devices(); d++) {
        clops_tensor *x = make(device_at(d), CLOPS_INT8, VALS(-128, 16, -3)), *y = NULL;
        assert_int_equal(run1(&pw_op_square, x, NULL, &y), CLOPS_OK);
        expect_i(y, CLOPS_INT8, (const int64_t[]){0, 0, 9}, 3, "square int8", d);
        clops_tensor_release(x);
        clops_tensor_release(y);
        y = NULL;
        x = make(device_at(d), CLOPS_BOOL, VALS(1, 0));
        assert_int_equal(run1(&pw_op_square, x, NULL, &y), CLOPS_OK);
        expect_i(y, CLOPS_INT64, (const int64_t[]){1, 0}, 2, "square bool", d);
        clops_tensor_release(x);
        clops_tensor_release(y);
    }
}

static void test_classification_of_integers(void **state)
{
    (void)state;
    const pw_op *ops[] = {&pw_op_isnan, &pw_op_isinf, &pw_op_isposinf, &pw_op_isneginf,
                          &pw_op_isfinite};
    for (int d = 0; d < n_devices(); d++) {
        clops_tensor *x = make_i(device_at(d), CLOPS_INT32, (const int64_t[]){INT32_MIN, 0, INT32_MAX}, 3);
        for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++) {
            clops_tensor *y = NULL;
            int64_t v = ops[k] == &pw_op_isfinite;
            assert_int_equal(run1(ops[k], x, NULL, &y), CLOPS_OK);
            expect_i(y, CLOPS_BOOL, (const int64_t[]){v, v, v}, 3, ops[k]->name, d);
            clops_tensor_release(y);
        }
        clops_tensor_release(x);
    }
}

static void test_rounding_keeps_integers(void **state)
{
    (void)state;
    for (int d = 0; d < n_devices(); d++) {
        clops_tensor *x = make_i(device_at(d), CLOPS_INT64, (const int64_t[]){INT64_MIN, -3, 9}, 3);
        const pw_op *ops[] = {&pw_op_floor, &pw_op_ceil, &pw_op_round, &pw_op_trunc};
        for (size_t k = 0; k < 4; k++) {
            clops_tensor *y = NULL;
            assert_int_equal(run1(ops[k], x, NULL, &y), CLOPS_OK);
            expect_i(y, CLOPS_INT64, (const int64_t[]){INT64_MIN, -3, 9}, 3, ops[k]->name, d);
            clops_tensor_release(y);
        }
        clops_tensor_release(x);
    }
}

/* --- dtype rules ------------------------------------------------------------------- */

static void test_dtype_rules(void **state)
{
    (void)state;
    clops_device *cpu = device_at(0);
    clops_tensor *b = make(cpu, CLOPS_BOOL, VALS(1, 0));
    clops_tensor *i = make(cpu, CLOPS_INT32, VALS(1, 2));
    clops_tensor *y = NULL;
    /* Refused. */
    const pw_op *no_bool[] = {&pw_op_abs, &pw_op_neg, &pw_op_floor, &pw_op_round, &pw_op_relu,
                              &pw_op_trunc};
    for (size_t k = 0; k < sizeof no_bool / sizeof no_bool[0]; k++)
        assert_int_equal(run1(no_bool[k], b, NULL, &y), CLOPS_INVALID_DTYPE);
    const pw_op *floats_only[] = {&pw_op_frac, &pw_op_leaky_relu, &pw_op_gelu, &pw_op_silu,
                                  &pw_op_mish, &pw_op_hardsigmoid, &pw_op_logsigmoid};
    clops_scalar p = clops_scalar_float(0.1);
    for (size_t k = 0; k < sizeof floats_only / sizeof floats_only[0]; k++)
        assert_int_equal(run1(floats_only[k], i, &p, &y), CLOPS_INVALID_DTYPE);
    assert_null(y);
    /* Integer and bool inputs of transcendental ops give float32. */
    const pw_op *to_float[] = {&pw_op_sin, &pw_op_sqrt, &pw_op_sigmoid, &pw_op_erfinv,
                               &pw_op_digamma, &pw_op_deg2rad, &pw_op_reciprocal};
    for (size_t k = 0; k < sizeof to_float / sizeof to_float[0]; k++) {
        assert_int_equal(run1(to_float[k], b, NULL, &y), CLOPS_OK);
        assert_int_equal(y->dtype, CLOPS_FLOAT32);
        clops_tensor_release(y);
        y = NULL;
    }
    /* sign keeps bool. */
    assert_int_equal(run1(&pw_op_sign, b, NULL, &y), CLOPS_OK);
    expect_i(y, CLOPS_BOOL, (const int64_t[]){1, 0}, 2, "sign bool", 0);
    clops_tensor_release(y);
    y = NULL;
    /* In place: a float result cannot be written into an integer tensor. */
    pw_operand o = pw_tensor(i);
    assert_int_equal(pw_run(&pw_op_sin, PW_INPLACE, &o, NULL, NULL, NULL, NULL),
                     CLOPS_INVALID_DTYPE);
    clops_tensor_release(b);
    clops_tensor_release(i);
}

static void test_inplace_writes_only_the_view(void **state)
{
    (void)state;
    for (int d = 0; d < n_devices(); d++) {
        clops_tensor *base = make(device_at(d), CLOPS_FLOAT32, VALS(-1, -2, -3, -4, -5, -6));
        clops_tensor *view = NULL;
        int64_t start = 0;
        assert_int_equal(core_slice(base, 0, &start, NULL, 2, &view), CLOPS_OK);
        pw_operand o = pw_tensor(view);
        assert_int_equal(pw_run(&pw_op_abs, PW_INPLACE, &o, NULL, NULL, NULL, NULL), CLOPS_OK);
        expect_f(base, CLOPS_FLOAT32, ARR(1, -2, 3, -4, 5, -6), 6, 0, "abs_ on a step view", d);
        clops_tensor_release(view);
        clops_tensor_release(base);
    }
}

/* --- nan_to_num ----------------------------------------------------------------------- */

static void test_nan_to_num_defaults_per_dtype(void **state)
{
    (void)state;
    const clops_dtype dts[] = {CLOPS_FLOAT16, CLOPS_BFLOAT16, CLOPS_FLOAT32, CLOPS_FLOAT64};
    const double maxes[] = {65504.0, 3.3895313892515355e38, FLT_MAX, DBL_MAX};
    for (int d = 0; d < n_devices(); d++) {
        for (int k = 0; k < 4; k++) {
            if (!runs(device_at(d), dts[k]))
                continue;
            clops_tensor *x = make(device_at(d), dts[k], VALS(NAN, INFINITY, -INFINITY, 1.5));
            clops_tensor *y = NULL;
            assert_int_equal(pw_glue_nan_to_num(PW_FUNCTIONAL, NULL, x, NULL, NULL, NULL, &y),
                             CLOPS_OK);
            expect_f(y, dts[k], ARR(0.0, maxes[k], -maxes[k], 1.5), 4, 0, "nan_to_num", d);
            clops_tensor_release(y);
            y = NULL;
            double nan = 7.0, posinf = -2.0;
            assert_int_equal(pw_glue_nan_to_num(PW_FUNCTIONAL, NULL, x, &nan, &posinf, NULL, &y),
                             CLOPS_OK);
            expect_f(y, dts[k], ARR(7.0, -2.0, -maxes[k], 1.5), 4, 0, "nan_to_num(7, -2)", d);
            clops_tensor_release(y);
            /* In place. */
            assert_int_equal(pw_glue_nan_to_num(PW_INPLACE, x, x, NULL, NULL, NULL, NULL), CLOPS_OK);
            expect_f(x, dts[k], ARR(0.0, maxes[k], -maxes[k], 1.5), 4, 0, "nan_to_num_", d);
            clops_tensor_release(x);
        }
    }
}

static void test_nan_to_num_copies_integers_and_checks_out_dtype(void **state)
{
    (void)state;
    clops_device *cpu = device_at(0);
    clops_tensor *x = make(cpu, CLOPS_INT16, VALS(-7, 0, 300)), *y = NULL;
    double nan = 1.0;
    assert_int_equal(pw_glue_nan_to_num(PW_FUNCTIONAL, NULL, x, &nan, NULL, NULL, &y), CLOPS_OK);
    expect_i(y, CLOPS_INT16, (const int64_t[]){-7, 0, 300}, 3, "nan_to_num int16", 0);
    clops_tensor *f = make(cpu, CLOPS_FLOAT32, VALS(1, 2));
    clops_tensor *o = make(cpu, CLOPS_FLOAT64, VALS(0, 0));
    assert_int_equal(pw_glue_nan_to_num(PW_OUT, o, f, NULL, NULL, NULL, NULL), CLOPS_INVALID_DTYPE);
    assert_non_null(strstr(clops_last_error(), "should be same as input"));
    clops_tensor_release(x);
    clops_tensor_release(y);
    clops_tensor_release(f);
    clops_tensor_release(o);
}

/* --- special functions at their poles --------------------------------------------------- */

static void test_digamma_poles(void **state)
{
    (void)state;
    check_f32(&pw_op_digamma, NULL, VALS(0.0, -0.0, -1.0, -2.0, -INFINITY, INFINITY, 1.0, 0.5),
              ARR(-INFINITY, INFINITY, NAN, NAN, NAN, INFINITY, -0.57721566490153286,
                  -1.9635100260214235),
              8);
}

static void test_lgamma_poles(void **state)
{
    (void)state;
    check_f32(&pw_op_lgamma, NULL, VALS(0.0, -1.0, -INFINITY, 1.0, 2.0, 0.5),
              ARR(INFINITY, INFINITY, INFINITY, 0.0, 0.0, 0.57236494292470008), 4);
}

static void test_erfinv_edges(void **state)
{
    (void)state;
    check_f32(&pw_op_erfinv, NULL, VALS(1.0, -1.0, 1.5, -1.0000001, NAN, 0.5),
              ARR(INFINITY, -INFINITY, NAN, NAN, NAN, 0.47693627620446987), 4);
}

static void test_logit_with_and_without_eps(void **state)
{
    (void)state;
    clops_scalar none[2] = {clops_scalar_float(-1.0), clops_scalar_float(2.0)};
    clops_scalar eps[2] = {clops_scalar_float(0.1), clops_scalar_float(0.9)};
    check_f32(&pw_op_logit, none, VALS(0.0, 0.5, 1.0, 1.5, -0.5),
              ARR(-INFINITY, 0.0, INFINITY, NAN, NAN), 0);
    check_f32(&pw_op_logit, eps, VALS(0.0, 0.5, 1.0, 1.5, -0.5),
              ARR(-2.1972245773362196, 0.0, 2.1972245773362196, 2.1972245773362196,
                  -2.1972245773362196),
              4);
    /* The glue passes None as -1. */
    for (int d = 0; d < n_devices(); d++) {
        clops_tensor *x = make(device_at(d), CLOPS_FLOAT32, VALS(1.0, 0.0)), *y = NULL;
        assert_int_equal(pw_glue_logit(PW_FUNCTIONAL, NULL, x, NULL, &y), CLOPS_OK);
        expect_f(y, CLOPS_FLOAT32, ARR(INFINITY, -INFINITY), 2, 0, "logit(None)", d);
        clops_tensor_release(x);
        clops_tensor_release(y);
    }
}

static void test_logit_backward_domains(void **state)
{
    (void)state;
    for (int d = 0; d < n_devices(); d++) {
        clops_tensor *g = make(device_at(d), CLOPS_FLOAT32, VALS(1, 1, 1, 1, 1));
        clops_tensor *x = make(device_at(d), CLOPS_FLOAT32, VALS(-0.1, 0.0, 0.5, 1.0, 1.1));
        clops_tensor *y = NULL;
        double eps = 0.1;
        assert_int_equal(pw_glue_logit_backward(PW_FUNCTIONAL, NULL, g, x, NULL, &y), CLOPS_OK);
        expect_f(y, CLOPS_FLOAT32, ARR(NAN, INFINITY, 4.0, INFINITY, NAN), 5, 0,
                 "logit_backward", d);
        clops_tensor_release(y);
        y = NULL;
        assert_int_equal(pw_glue_logit_backward(PW_FUNCTIONAL, NULL, g, x, &eps, &y), CLOPS_OK);
        expect_f(y, CLOPS_FLOAT32, ARR(0.0, 0.0, 4.0, 0.0, 0.0), 5, 0, "logit_backward(eps)", d);
        clops_tensor_release(y);
        clops_tensor_release(g);
        clops_tensor_release(x);
    }
}

/* --- activations ------------------------------------------------------------------------ */

static void test_gelu_both_approximations(void **state)
{
    (void)state;
    for (int d = 0; d < n_devices(); d++) {
        clops_tensor *x = make(device_at(d), CLOPS_FLOAT32, VALS(1.0, -1.0, 0.5, INFINITY)), *y = NULL;
        assert_int_equal(pw_glue_gelu(PW_FUNCTIONAL, NULL, x, "none", &y), CLOPS_OK);
        expect_f(y, CLOPS_FLOAT32,
                 ARR(0.8413447460685429, -0.15865525393145707, 0.34573123063700656, INFINITY), 4,
                 8, "gelu", d);
        clops_tensor_release(y);
        y = NULL;
        assert_int_equal(pw_glue_gelu(PW_FUNCTIONAL, NULL, x, "tanh", &y), CLOPS_OK);
        expect_f(y, CLOPS_FLOAT32,
                 ARR(0.8411919906082768, -0.15880800939172324, 0.34571400982514394, INFINITY), 4,
                 8, "gelu tanh", d);
        clops_tensor_release(y);
        y = NULL;
        assert_int_equal(pw_glue_gelu(PW_FUNCTIONAL, NULL, x, "erf", &y), CLOPS_INVALID_ARGUMENT);
        assert_non_null(strstr(clops_last_error(), "approximate argument must be either none or tanh"));
        clops_tensor_release(x);
    }
}

static void test_softplus_threshold(void **state)
{
    (void)state;
    clops_scalar p1[2] = {clops_scalar_int(1), clops_scalar_int(20)};
    check_f32(&pw_op_softplus, p1, VALS(25.0, 10.0, 1.0, -INFINITY),
              ARR(25.0, 10.000045398899218, 1.3132616875182228, 0.0), 2);
    /* beta 2: 10.5 * 2 = 21 > 20 returns x itself; 9.5 * 2 = 19 does not. */
    clops_scalar p2[2] = {clops_scalar_int(2), clops_scalar_int(20)};
    check_f32(&pw_op_softplus, p2, VALS(10.5, 9.5), ARR(10.5, 9.500000002801398), 2);
}

static void test_hardtanh_limits_and_relu6(void **state)
{
    (void)state;
    for (int d = 0; d < n_devices(); d++) {
        clops_device *dev = device_at(d);
        clops_tensor *y = NULL;
        /* Integer tensors truncate the limits: (-1.5, 2.7) -> (-1, 2). */
        clops_tensor *xi = make(dev, CLOPS_INT8, VALS(-5, 0, 5));
        assert_int_equal(pw_glue_hardtanh(PW_FUNCTIONAL, NULL, xi, clops_scalar_float(-1.5),
                                          clops_scalar_float(2.7), &y),
                         CLOPS_OK);
        expect_i(y, CLOPS_INT8, (const int64_t[]){-1, 0, 2}, 3, "hardtanh int8", d);
        clops_tensor_release(y);
        y = NULL;
        clops_tensor *xf = make(dev, CLOPS_FLOAT32, VALS(-1.0, 3.0, 7.0, NAN, -0.0));
        assert_int_equal(pw_glue_relu6(PW_FUNCTIONAL, NULL, xf, &y), CLOPS_OK);
        expect_f(y, CLOPS_FLOAT32, ARR(0.0, 3.0, 6.0, NAN, -0.0), 5, 0, "relu6", d);
        clops_tensor_release(y);
        y = NULL;
        clops_tensor *xu = make(dev, CLOPS_UINT8, VALS(3, 7, 200));
        assert_int_equal(pw_glue_relu6(PW_FUNCTIONAL, NULL, xu, &y), CLOPS_OK);
        expect_i(y, CLOPS_UINT8, (const int64_t[]){3, 6, 6}, 3, "relu6 uint8", d);
        clops_tensor_release(y);
        y = NULL;
        assert_int_equal(pw_glue_hardtanh(PW_FUNCTIONAL, NULL, xu, clops_scalar_int(-1),
                                          clops_scalar_int(1), &y),
                         CLOPS_INVALID_ARGUMENT);
        assert_non_null(strstr(clops_last_error(), "unsigned type with negative limits"));
        clops_tensor_release(xi);
        clops_tensor_release(xf);
        clops_tensor_release(xu);
    }
}

static void test_elu_family(void **state)
{
    (void)state;
    for (int d = 0; d < n_devices(); d++) {
        clops_device *dev = device_at(d);
        clops_tensor *x = make(dev, CLOPS_FLOAT32, VALS(1.0, -1.0, 0.0)), *y = NULL;
        assert_int_equal(pw_glue_selu(PW_FUNCTIONAL, NULL, x, &y), CLOPS_OK);
        expect_f(y, CLOPS_FLOAT32, ARR(1.0507009873554805, -1.1113307378125625, 0.0), 3, 4,
                 "selu", d);
        clops_tensor_release(y);
        y = NULL;
        assert_int_equal(pw_glue_celu(PW_FUNCTIONAL, NULL, x, clops_scalar_float(2.0), &y),
                         CLOPS_OK);
        expect_f(y, CLOPS_FLOAT32, ARR(1.0, -0.7869386805747332, 0.0), 3, 4, "celu", d);
        clops_tensor_release(y);
        y = NULL;
        assert_int_equal(pw_glue_celu(PW_FUNCTIONAL, NULL, x, clops_scalar_int(0), &y),
                         CLOPS_INVALID_ARGUMENT);
        clops_tensor_release(x);
    }
}

static void test_shrinks(void **state)
{
    (void)state;
    clops_scalar l = clops_scalar_float(0.5);
    check_f32(&pw_op_hardshrink, &l, VALS(0.5, -0.5, 0.6, -2.0, NAN),
              ARR(0.0, 0.0, (float)0.6, -2.0, NAN), 0);
    check_f32(&pw_op_softshrink, &l, VALS(0.5, -0.5, 0.75, -2.0, NAN),
              ARR(0.0, 0.0, 0.25, -1.5, NAN), 0);
    clops_tensor *x = make(device_at(0), CLOPS_FLOAT32, VALS(1.0)), *y = NULL;
    assert_int_equal(pw_glue_softshrink(PW_FUNCTIONAL, NULL, x, clops_scalar_float(-0.5), &y),
                     CLOPS_INVALID_ARGUMENT);
    assert_non_null(strstr(clops_last_error(), "lambda must be greater or equal to 0"));
    clops_tensor_release(x);
}

static void test_threshold_on_integers(void **state)
{
    (void)state;
    for (int d = 0; d < n_devices(); d++) {
        clops_tensor *x = make(device_at(d), CLOPS_INT32, VALS(1, 5, 10)), *y = NULL;
        assert_int_equal(pw_glue_threshold(PW_FUNCTIONAL, NULL, x, clops_scalar_int(5),
                                           clops_scalar_int(-1), &y),
                         CLOPS_OK);
        expect_i(y, CLOPS_INT32, (const int64_t[]){-1, -1, 10}, 3, "threshold int32", d);
        clops_tensor_release(y);
        y = NULL;
        clops_tensor *g = make(device_at(d), CLOPS_INT32, VALS(7, 8, 9));
        assert_int_equal(pw_glue_threshold_backward(PW_FUNCTIONAL, NULL, g, x,
                                                    clops_scalar_int(5), &y),
                         CLOPS_OK);
        expect_i(y, CLOPS_INT32, (const int64_t[]){0, 0, 9}, 3, "threshold_backward int32", d);
        clops_tensor_release(y);
        y = NULL;
        /* A value the dtype cannot hold is an error, as PyTorch's checked
         * Scalar conversion makes it. */
        clops_tensor *u = make(device_at(d), CLOPS_UINT8, VALS(1, 2));
        assert_int_equal(pw_glue_threshold(PW_FUNCTIONAL, NULL, u, clops_scalar_int(1),
                                           clops_scalar_int(-2), &y),
                         CLOPS_INVALID_ARGUMENT);
        assert_non_null(strstr(clops_last_error(), "without overflow"));
        clops_tensor_release(u);
        clops_tensor_release(g);
        clops_tensor_release(x);
    }
}

static void test_backward_checks_and_branches(void **state)
{
    (void)state;
    for (int d = 0; d < n_devices(); d++) {
        /* hardswish_backward's edges: 0 at -3, the gradient from 3 on. */
        clops_tensor *g = make(device_at(d), CLOPS_FLOAT32, VALS(2.0, 2.0, 2.0));
        clops_tensor *x = make(device_at(d), CLOPS_FLOAT32, VALS(-3.0, 3.0, -1.5)), *y = NULL;
        assert_int_equal(run2(&pw_op_hardswish_backward, g, x, NULL, &y), CLOPS_OK);
        expect_f(y, CLOPS_FLOAT32, ARR(0.0, 2.0, 0.0), 3, 0, "hardswish_backward edges", d);
        clops_tensor_release(y);
        clops_tensor_release(g);
        clops_tensor_release(x);
    }
    for (int d = 0; d < n_devices(); d++) {
        clops_device *dev = device_at(d);
        clops_tensor *g = make(dev, CLOPS_FLOAT32, VALS(2.0, 2.0, 2.0, 2.0));
        clops_tensor *x = make(dev, CLOPS_FLOAT32, VALS(-4.0, 0.0, 4.0, NAN));
        clops_tensor *y = NULL;
        /* hardswish_backward: 0 below -3, the gradient above 3 and for NaN. */
        assert_int_equal(run2(&pw_op_hardswish_backward, g, x, NULL, &y), CLOPS_OK);
        expect_f(y, CLOPS_FLOAT32, ARR(0.0, 1.0, 2.0, 2.0), 4, 0, "hardswish_backward", d);
        clops_tensor_release(y);
        y = NULL;
        assert_int_equal(pw_glue_leaky_relu_backward(PW_FUNCTIONAL, NULL, g, x,
                                                     clops_scalar_float(0.25), true, &y),
                         CLOPS_OK);
        expect_f(y, CLOPS_FLOAT32, ARR(0.5, 0.5, 2.0, 0.5), 4, 0, "leaky_relu_backward", d);
        clops_tensor_release(y);
        y = NULL;
        assert_int_equal(pw_glue_leaky_relu_backward(PW_FUNCTIONAL, NULL, g, x,
                                                     clops_scalar_float(-0.25), true, &y),
                         CLOPS_INVALID_ARGUMENT);
        /* elu_backward on the result y: y <= 0 ? g * input_scale * (y + alpha * scale). */
        assert_int_equal(pw_glue_elu_backward(PW_FUNCTIONAL, NULL, g, clops_scalar_float(0.5),
                                              clops_scalar_float(2.0), clops_scalar_float(1.0),
                                              true, x, &y),
                         CLOPS_OK);
        expect_f(y, CLOPS_FLOAT32, ARR(-6.0, 2.0, 4.0, 4.0), 4, 0, "elu_backward(result)", d);
        clops_tensor_release(y);
        y = NULL;
        assert_int_equal(pw_glue_elu_backward(PW_FUNCTIONAL, NULL, g, clops_scalar_float(-0.5),
                                              clops_scalar_float(2.0), clops_scalar_float(1.0),
                                              true, x, &y),
                         CLOPS_INVALID_ARGUMENT);
        clops_tensor_release(g);
        clops_tensor_release(x);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_is_half_to_even),
        cmocka_unit_test(test_round_decimals_rounds_the_scaled_value_half_to_even),
        cmocka_unit_test(test_round_decimals_refuses_integers),
        cmocka_unit_test(test_signed_zeros),
        cmocka_unit_test(test_signbit_sees_negative_zero_and_integers),
        cmocka_unit_test(test_integer_abs_and_neg_wrap_at_the_minimum),
        cmocka_unit_test(test_square_wraps_and_promotes_bool_to_int64),
        cmocka_unit_test(test_classification_of_integers),
        cmocka_unit_test(test_rounding_keeps_integers),
        cmocka_unit_test(test_dtype_rules),
        cmocka_unit_test(test_inplace_writes_only_the_view),
        cmocka_unit_test(test_nan_to_num_defaults_per_dtype),
        cmocka_unit_test(test_nan_to_num_copies_integers_and_checks_out_dtype),
        cmocka_unit_test(test_digamma_poles),
        cmocka_unit_test(test_lgamma_poles),
        cmocka_unit_test(test_erfinv_edges),
        cmocka_unit_test(test_logit_with_and_without_eps),
        cmocka_unit_test(test_logit_backward_domains),
        cmocka_unit_test(test_gelu_both_approximations),
        cmocka_unit_test(test_softplus_threshold),
        cmocka_unit_test(test_hardtanh_limits_and_relu6),
        cmocka_unit_test(test_elu_family),
        cmocka_unit_test(test_shrinks),
        cmocka_unit_test(test_threshold_on_integers),
        cmocka_unit_test(test_backward_checks_and_branches),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    clops_shutdown();
    return rc;
}
