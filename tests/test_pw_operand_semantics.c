/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/test_pw_operand_semantics.c: how the pointwise engine reads its
 * operands and shapes its results, against values and strides checked on
 * PyTorch 2.15 (CPU), on the CPU device and on every OpenCL device.  Each
 * test is the regression test of one defect of issue 11:
 *   - every operand is converted to the common dtype before computing: to a
 *     float16/bfloat16 common dtype by rounding (int16 2049 meets float16
 *     as 2048, a float32 0.1 meets float16 as 0.099976), in the strided,
 *     vector and uniform loads and for scalars;
 *   - an integer operand (a zero-dim tensor, a CPU zero-dim tensor or a
 *     Python-style scalar) wraps to a narrower integer common dtype, on the
 *     CPU reference as on devices (int32 300 is int8 44);
 *   - empty results get PyTorch's strides, and every write into an empty
 *     tensor (in place, clone, fill, copy, pow's short cuts) succeeds;
 *   - contiguous views at a storage offset that is no multiple of the
 *     vector width (float16 at 3 elements crashed POCL 3.1) compute right.
 * The test_check_<family> suites cover the same classes for every op (the
 * check engine's mixed, zero-dim, zero-size and offset cases).
 */
#include "codegen_pointwise/ops_binary.h"
#include "codegen_pointwise/ops_unary.h"
#include "ops/tensor/tensor.h"
#include "pw_binary_check.h"

#define I(x) clops_scalar_int(x)
#define F(x) clops_scalar_float(x)

/* A zero-dim tensor of dtype dt holding v on device d (kept). */
static clops_tensor *zero_dim(clops_device *d, clops_dtype dt, double v)
{
    pw_value pv;
    bool fl = clops_dtype_is_floating(dt);
    if (fl)
        pv.f = v;
    else
        pv.i = (int64_t)v;
    uint8_t buf[8] = {0};
    pw_ref_store(buf, 0, dt, fl ? CLOPS_FLOAT64 : CLOPS_INT64, pv);
    clops_tensor *t = NULL;
    CT_OK(clops_from_host(d, dt, 0, NULL, buf, clops_dtype_size(dt), &t));
    return pwt_keep(t);
}

/* Binary op on two operands; the kept result. */
static clops_tensor *bin_ops(const pw_op *op, pw_operand a, pw_operand b,
                             const clops_scalar *params)
{
    const pw_operand ops[2] = {a, b};
    return pwt_op(op, ops, params);
}

/* ---- operands are converted to the common dtype first --------------------------- */

static void check_reduced_float_common(clops_device *d)
{
    const clops_scalar one = I(1);
    /* 9 elements: one 8-wide vector and a tail on the contiguous path. */
    pwt_lit i16 = LI(INT16, 2049, 3, -2049, 32767, 4097, 1025, -1, 2051, 2049);
    pwt_lit h = LF(FLOAT16, 2048, 3, -2048, 32768, 4096, 1024, -1, 2052, 2048);
    pwt_expect(pwt_bin(d, &pw_op_eq, i16, h, NULL), LI(BOOL, 1, 1, 1, 1, 1, 0, 1, 1, 1));
    pwt_expect(pwt_bin(d, &pw_op_eq, h, i16, NULL), LI(BOOL, 1, 1, 1, 1, 1, 0, 1, 1, 1));
    pwt_expect(pwt_bin(d, &pw_op_sub, i16, h, &one), LF(FLOAT16, 0, 0, 0, 0, 0, 1, 0, 0, 0));
    pwt_expect(pwt_bin(d, &pw_op_fmod, i16, h, NULL), LF(FLOAT16, 0, 0, -0.0, 0, 0, 1, -0.0, 0, 0));
    pwt_expect(pwt_bin(d, &pw_op_remainder, i16, h, NULL),
               LF(FLOAT16, 0, 0, -0.0, 0, 0, 1, -0.0, 0, 0));
    pwt_expect(pwt_bin(d, &pw_op_div_floor, LI(INT16, 4097), LF(FLOAT16, 2), NULL),
               LF(FLOAT16, 2048));
    pwt_expect(pwt_bin(d, &pw_op_div, LI(INT32, 4097), LF(FLOAT16, 4096), NULL), LF(FLOAT16, 1));
    pwt_expect(pwt_bin(d, &pw_op_add, LF(BFLOAT16, 0, 0, 1), LI(INT32, 257, -257, 257), &one),
               LF(BFLOAT16, 256, -256, 256));
    /* A wider float zero-dim tensor, a CPU zero-dim tensor and a Python
     * float all meet a float16 tensor rounded to float16 (through float32:
     * 1 + 2^-11 + 2^-40 becomes 1 + 2^-11, then 1 by ties-to-even). */
    pwt_lit x = LF(FLOAT16, 0.1, 0.2, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1);
    pwt_lit want = LI(BOOL, 1, 0, 1, 1, 1, 1, 1, 1, 1);
    pw_operand xo = pwt_lit_op(d, x);
    pwt_expect(bin_ops(&pw_op_eq, xo, pw_tensor(zero_dim(d, CLOPS_FLOAT32, 0.1)), NULL), want);
    pwt_expect(bin_ops(&pw_op_eq, xo, pw_tensor(zero_dim(ct_cpu(), CLOPS_FLOAT32, 0.1)), NULL),
               want);
    pwt_expect(bin_ops(&pw_op_eq, xo, pw_scalar(F(0.1)), NULL), want);
    pwt_expect(bin_ops(&pw_op_eq, pwt_lit_op(d, LF(FLOAT16, 1.0)),
                       pw_tensor(zero_dim(d, CLOPS_FLOAT64, 1.0 + 0x1p-11 + 0x1p-40)), NULL),
               LI(BOOL, 1));
    /* add(2048, 1.0001) in float16: 1.0001 is 1 in float16, 2049 ties to 2048. */
    pwt_expect(bin_ops(&pw_op_add, pwt_lit_op(d, LF(FLOAT16, 2048)), pw_scalar(F(1.0001)), &one),
               LF(FLOAT16, 2048));
    /* mul and div keep a scalar in float32 (PyTorch's original_scalar_value):
     * 3 * 0.1f is 0.300049 in float16, 3 * half(0.1) would be 0.299805. */
    pwt_expect(bin_ops(&pw_op_mul, pwt_lit_op(d, LF(FLOAT16, 3, 7)), pw_scalar(F(0.1)), NULL),
               LF(FLOAT16, 0.300048828125, 0.7001953125));
    /* float32 common: an int64 operand is rounded to float32, not kept. */
    pwt_expect(pwt_bin(d, &pw_op_eq, LI(INT64, 16777217), LF(FLOAT32, 16777216), NULL),
               LI(BOOL, 1));
}

static void test_operands_are_converted_to_a_reduced_float_common_dtype(void **state)
{
    (void)state;
    pwt_each_device(check_reduced_float_common);
}

/* ---- integer operands wrap to a narrower common dtype --------------------------- */

static void check_integer_wrap(clops_device *d)
{
    const clops_scalar one = I(1);
    pwt_lit a8 = LI(INT8, 1, 50);
    pwt_lit want = LI(BOOL, 1, 0);
    pw_operand a = pwt_lit_op(d, a8);
    pwt_expect(bin_ops(&pw_op_lt, a, pw_tensor(zero_dim(d, CLOPS_INT32, 300)), NULL), want);
    pwt_expect(bin_ops(&pw_op_lt, a, pw_tensor(zero_dim(ct_cpu(), CLOPS_INT32, 300)), NULL), want);
    pwt_expect(bin_ops(&pw_op_lt, a, pw_scalar(I(300)), NULL), want);
    pwt_expect(bin_ops(&pw_op_add, a, pw_tensor(zero_dim(d, CLOPS_INT32, 300)), &one),
               LI(INT8, 45, 94));
    pwt_expect(bin_ops(&pw_op_add, pwt_lit_op(d, LI(INT16, 1, 50)),
                       pw_tensor(zero_dim(d, CLOPS_INT64, 70000)), &one),
               LI(INT16, 4465, 4514));
    pwt_expect(bin_ops(&pw_op_add, pwt_lit_op(d, LI(INT32, 1)),
                       pw_tensor(zero_dim(d, CLOPS_INT64, 4294967301.0)), &one),
               LI(INT32, 6));
    pwt_expect(bin_ops(&pw_op_add, pwt_lit_op(d, LI(UINT8, 1)),
                       pw_tensor(zero_dim(d, CLOPS_INT32, 257)), &one),
               LI(UINT8, 2));
    /* Ops that promote integers to float convert every operand to float32
     * directly: 300 stays 300. */
    pwt_expect_close(bin_ops(&pw_op_div, a, pw_tensor(zero_dim(d, CLOPS_INT32, 300)), NULL),
                     LF(FLOAT32, 1.0 / 300.0, 50.0 / 300.0), 1);
}

static void test_integer_operands_wrap_to_a_narrower_common_dtype(void **state)
{
    (void)state;
    pwt_each_device(check_integer_wrap);
}

/* ---- empty tensors --------------------------------------------------------------- */

/* Fails unless t has the given strides. */
static void expect_strides(const clops_tensor *t, int ndim, const int64_t *want)
{
    CT_ASSERT(clops_tensor_ndim(t) == ndim);
    for (int i = 0; i < ndim; i++)
        CT_ASSERT_MSG(clops_tensor_stride(t, i) == want[i], "stride %d is %lld, want %lld", i,
                      (long long)clops_tensor_stride(t, i), (long long)want[i]);
}

static void check_empty(clops_device *d)
{
    const clops_scalar one = I(1);
    clops_tensor *e = NULL;
    CT_OK(clops_empty(d, CLOPS_FLOAT32, 3, CT_I64(2, 0, 1), &e));
    pwt_keep(e);
    /* One operand of the result's shape: contiguous (PyTorch's fast setup). */
    const pw_operand in[1] = {pw_tensor(e)};
    clops_tensor *s = pwt_op(&pw_op_sin, in, NULL);
    expect_strides(s, 3, CT_I64(1, 1, 1));
    /* Transposed operands of one shape: contiguous as well. */
    clops_tensor *base = NULL, *p = NULL;
    CT_OK(clops_empty(d, CLOPS_FLOAT32, 3, CT_I64(2, 0, 3), &base));
    pwt_keep(base);
    CT_OK(core_permute(base, CT_I64(2, 1, 0), 3, &p));
    pwt_keep(p);
    expect_strides(bin_ops(&pw_op_mul, pw_tensor(p), pw_tensor(p), NULL), 3, CT_I64(2, 2, 1));
    /* With a scalar operand PyTorch orders dims as for any broadcast, and
     * the stride after the size-0 dim is 0 (empty(2, 0, 1) + 1.0). */
    clops_tensor *r = bin_ops(&pw_op_add, pw_tensor(e), pw_scalar(F(1.0)), &one);
    expect_strides(r, 3, CT_I64(0, 1, 0));
    /* Every write into either result succeeds. */
    clops_tensor *targets[2] = {s, r};
    for (int k = 0; k < 2; k++) {
        clops_tensor *t = targets[k], *c = NULL, *pw = NULL;
        const pw_operand ops[2] = {pw_tensor(t), pw_scalar(F(2.0))};
        CT_OK(pw_run(&pw_op_mul, PW_INPLACE, ops, &one, NULL, NULL, NULL));
        CT_OK(core_clone(t, &c));
        pwt_keep(c);
        CT_ASSERT(clops_tensor_numel(c) == 0);
        CT_OK(tensor_fill(t, F(1.0)));
        CT_OK(core_copy_(t, e, false));
        const pw_operand sin_in[1] = {pw_tensor(e)};
        CT_OK(pw_run(&pw_op_sin, PW_OUT, sin_in, NULL, t, NULL, NULL));
        for (int ex = 0; ex < 3; ex++) {
            pw = NULL;
            CT_OK(pw_fn_pow_tensor_scalar(PW_FUNCTIONAL, NULL, t, I(ex), &pw));
            pwt_keep(pw);
            CT_ASSERT(clops_tensor_ndim(pw) == 3 && clops_tensor_numel(pw) == 0);
            CT_OK(pw_fn_pow_tensor_scalar(PW_INPLACE, t, t, F((double)ex), NULL));
        }
    }
}

static void test_empty_results_get_pytorch_strides_and_accept_writes(void **state)
{
    (void)state;
    pwt_each_device(check_empty);
}

/* ---- contiguous views at an unaligned storage offset ------------------------------ */

/* Runs a unary op on n elements of dtype dt at storage offset `off` of a
 * contiguous 1-D base on d, and on the CPU, and compares. */
static void check_offset_unary(clops_device *d, const pw_op *op, const clops_scalar *params,
                               clops_dtype dt, int64_t off)
{
    const int64_t n = 37, total = n + off;
    ct_set_case("%s %s at offset %lld", op->name, clops_dtype_name(dt), (long long)off);
    clops_tensor *base = pwt_keep(ct_random(d, dt, 1, &total, CT_CONTIGUOUS, PW_DOMAIN_ANY, 11));
    clops_tensor *view = NULL;
    int64_t start = off, end = total;
    CT_OK(core_slice(base, 0, &start, &end, 1, &view));
    pwt_keep(view);
    clops_tensor *cpu_view = pwt_keep(ct_to_cpu(view));
    const pw_operand dop[1] = {pw_tensor(view)}, cop[1] = {pw_tensor(cpu_view)};
    clops_tensor *got = pwt_op(op, dop, params), *ref = pwt_op(op, cop, params);
    CT_ASSERT_CLOSE(got, ref, pwt_tol(clops_tensor_dtype(ref), op->ulp, 0.0, true));
    /* In place into the unaligned view (vector stores at the offset). */
    CT_OK(pw_run(op, PW_INPLACE, dop, params, NULL, NULL, NULL));
    CT_OK(pw_run(op, PW_INPLACE, cop, params, NULL, NULL, NULL));
    CT_ASSERT_CLOSE(view, cpu_view, pwt_tol(dt, op->ulp, 0.0, true));
}

static void check_offsets(clops_device *d)
{
    const clops_scalar slope = F(0.01);
    static const clops_dtype dts[] = {CLOPS_FLOAT16, CLOPS_BFLOAT16, CLOPS_FLOAT32, CLOPS_INT8};
    for (size_t k = 0; k < sizeof dts / sizeof dts[0]; k++)
        for (int64_t off = 1; off < 8; off += 2) {
            if (clops_dtype_is_floating(dts[k]))
                check_offset_unary(d, &pw_op_leaky_relu, &slope, dts[k], off);
            check_offset_unary(d, &pw_op_sign, NULL, dts[k], off);
        }
}

static void test_contiguous_views_at_unaligned_offsets_compute_right(void **state)
{
    (void)state;
    pwt_each_device(check_offsets);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_operands_are_converted_to_a_reduced_float_common_dtype),
        cmocka_unit_test(test_integer_operands_wrap_to_a_narrower_common_dtype),
        cmocka_unit_test(test_empty_results_get_pytorch_strides_and_accept_writes),
        cmocka_unit_test(test_contiguous_views_at_unaligned_offsets_compute_right),
    };
    return cmocka_run_group_tests(tests, NULL, ct_teardown_group);
}
