/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/test_pw_binary_layouts.c: the binary and ternary ops over every
 * operand layout and destination form, on every OpenCL device, against the
 * CPU reference.
 *
 * tests/test_pw_binary.c covers every op and dtype in a few layouts; this
 * file covers the layouts themselves on a few representative ops (add, a
 * ternary where and clamp) and dtypes (float32, int32): zero-dim operands,
 * zero-size results, expanded (stride 0) inputs, step slices with storage
 * offsets, transposed inputs of rank 3, 4 and 5 (the unrolled and the
 * generic-rank kernels), a CPU zero-dim tensor joining a device op, out=
 * into strided views inside guard regions, out= resizing and its errors, and
 * in-place on a transposed tensor.
 */
#include "pw_binary_check.h"

#define ANY PW_DOMAIN_ANY

static const clops_scalar alpha2[1] = {{CLOPS_SCALAR_INT, {.i = 2}}};

/* One operand: shape and layout. */
typedef struct operand_spec {
    int ndim;
    int64_t sizes[5];
    ct_layout layout;
} operand_spec;

/* A layout case of up to three operands. */
typedef struct layout_case {
    const char *name;
    operand_spec ops[3];
} layout_case;

#define OPND(n, layout, ...) {n, {__VA_ARGS__}, CT_##layout}
#define ZERO_DIM {0, {0}, CT_CONTIGUOUS}

static const layout_case layout_cases[] = {
    {"zero-dim with zero-dim", {ZERO_DIM, ZERO_DIM, ZERO_DIM}},
    {"zero-dim operand", {OPND(2, CONTIGUOUS, 5, 7), ZERO_DIM, OPND(2, SLICED, 5, 7)}},
    {"zero-size", {OPND(2, CONTIGUOUS, 0, 3), OPND(1, SLICED, 3), OPND(1, CONTIGUOUS, 3)}},
    {"expanded with sliced",
     {OPND(2, EXPANDED, 4, 6), OPND(2, SLICED, 4, 6), OPND(2, TRANSPOSED, 4, 6)}},
    {"rank 3", {OPND(3, TRANSPOSED, 3, 4, 5), OPND(3, SLICED, 3, 4, 5), OPND(2, EXPANDED, 4, 5)}},
    {"rank 4", {OPND(4, TRANSPOSED, 2, 3, 4, 5), OPND(4, SLICED, 2, 3, 4, 5), OPND(1, SLICED, 5)}},
    {"rank 5 (generic)",
     {OPND(5, TRANSPOSED, 2, 3, 2, 3, 2), OPND(5, SLICED, 2, 3, 2, 3, 2),
      OPND(5, CONTIGUOUS, 2, 3, 2, 3, 2)}},
};

/* Runs op (n operands) on dev with operands of the case's layouts and on
 * the CPU with contiguous copies; the results must match. */
static void check_layout(clops_device *dev, const pw_op *op, int n, clops_dtype dt,
                         const layout_case *lc, const clops_scalar *params)
{
    clops_tensor *dt_in[3] = {NULL}, *cpu_in[3] = {NULL}, *got = NULL, *ref = NULL;
    pw_operand dops[3], cops[3];
    ct_set_device(dev);
    ct_set_case("%s %s, %s", op->name, clops_dtype_name(dt), lc->name);
    for (int j = 0; j < n; j++) {
        const operand_spec *o = &lc->ops[j];
        clops_dtype odt = op->roles[j] == PW_ROLE_BOOL ? CLOPS_BOOL : dt;
        dt_in[j] = ct_random(dev, odt, o->ndim, o->sizes, o->layout, PW_DOMAIN_ANY,
                             (uint64_t)(31 * j + 7));
        cpu_in[j] = ct_to_cpu(dt_in[j]);
        dops[j] = pw_tensor(dt_in[j]);
        cops[j] = pw_tensor(cpu_in[j]);
    }
    pw_options o = {.result = CLOPS_DTYPE_NONE, .compute = CLOPS_DTYPE_NONE};
    CT_OK(pw_run(op, PW_FUNCTIONAL, cops, params, NULL, &o, &ref));
    CT_OK(pw_run(op, PW_FUNCTIONAL, dops, params, NULL, &o, &got));
    CT_ASSERT_CLOSE(got, ref, pwt_tol(ref->dtype, op->ulp, 0.0, true));
    clops_tensor_release(got);
    clops_tensor_release(ref);
    for (int j = 0; j < n; j++) {
        clops_tensor_release(dt_in[j]);
        clops_tensor_release(cpu_in[j]);
    }
}

static void test_every_operand_layout_matches_the_reference(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int n = ct_opencl_devices(devs, CT_MAX_DEVICES);
    static const clops_dtype dtypes[] = {CLOPS_FLOAT32, CLOPS_INT32};
    for (int k = 0; k < n; k++)
        for (size_t t = 0; t < CT_COUNT(dtypes); t++)
            for (size_t c = 0; c < CT_COUNT(layout_cases); c++) {
                check_layout(devs[k], &pw_op_add, 2, dtypes[t], &layout_cases[c], alpha2);
                check_layout(devs[k], &pw_op_where, 3, dtypes[t], &layout_cases[c], NULL);
            }
    for (int k = 0; k < n; k++) {
        check_layout(devs[k], &pw_op_clamp, 3, CLOPS_FLOAT32, &layout_cases[4], NULL);
        check_layout(devs[k], &pw_op_lerp_tensor, 3, CLOPS_FLOAT32, &layout_cases[3], NULL);
    }
    ct_clear_context();
}

/* out= into a strided view inside guard bytes: values right, nothing
 * outside the view's elements written. */
static void check_out_guarded(clops_device *d)
{
    static const ct_layout outs[] = {CT_CONTIGUOUS, CT_TRANSPOSED, CT_SLICED};
    const int64_t sizes[2] = {5, 7};
    clops_tensor *a = pwt_keep(ct_random(d, CLOPS_FLOAT32, 2, sizes, CT_TRANSPOSED, ANY, 1));
    clops_tensor *b = pwt_keep(ct_random(d, CLOPS_INT32, 2, sizes, CT_SLICED, ANY, 2));
    clops_tensor *ref = NULL;
    CT_OK(pw_fn_sub_tensor(PW_FUNCTIONAL, NULL, a, b, alpha2[0], &ref));
    pwt_keep(ref);
    for (size_t k = 0; k < CT_COUNT(outs); k++) {
        ct_set_case("sub out= float32 %s", ct_layout_name(outs[k]));
        ct_guarded g = ct_guarded_new(d, CLOPS_FLOAT32, 2, sizes, outs[k]);
        CT_OK(pw_fn_sub_tensor(PW_OUT, g.t, a, b, alpha2[0], NULL));
        CT_ASSERT_CLOSE(g.t, ref, CT_TOL_EXACT);
        CT_GUARDS_INTACT(&g);
        ct_guarded_release(&g);
        ct_set_case("where out= float32 %s", ct_layout_name(outs[k]));
        clops_tensor *c = pwt_keep(ct_random(d, CLOPS_BOOL, 1, sizes + 1, CT_SLICED, ANY, 3));
        clops_tensor *w = NULL;
        CT_OK(pw_fn_where_scalar_other(PW_FUNCTIONAL, NULL, c, a, clops_scalar_float(-1.0), &w));
        pwt_keep(w);
        g = ct_guarded_new(d, CLOPS_FLOAT32, 2, sizes, outs[k]);
        CT_OK(pw_fn_where_scalar_other(PW_OUT, g.t, c, a, clops_scalar_float(-1.0), NULL));
        CT_ASSERT_CLOSE(g.t, w, CT_TOL_EXACT);
        CT_GUARDS_INTACT(&g);
        ct_guarded_release(&g);
    }
}

static void test_out_writes_exactly_the_elements_of_strided_views(void **state)
{
    (void)state;
    pwt_each_device(check_out_guarded);
}

/* out= resizing, dtype and overlap rules; in-place into a transposed self. */
static void check_out_rules(clops_device *d)
{
    clops_tensor *a = pwt_keep(pwt_lit_tensor(d, LF(FLOAT32, 1.0, 2.0, 3.0)));
    clops_tensor *b = pwt_keep(pwt_lit_tensor(d, LF(FLOAT32, 0.5, 0.5, 0.5)));
    pw_operand ops[2] = {pw_tensor(a), pw_tensor(b)};
    pw_options o = {.result = CLOPS_DTYPE_NONE, .compute = CLOPS_DTYPE_NONE};
    clops_tensor *out = pwt_keep(pwt_lit_tensor(d, LF(FLOAT32, 0.0)));
    CT_OK(pw_run(&pw_op_mul, PW_OUT, ops, NULL, out, &o, NULL));
    pwt_expect(out, LF(FLOAT32, 0.5, 1.0, 1.5));
    clops_tensor *out_i = pwt_keep(pwt_lit_tensor(d, LI(INT32, 0, 0, 0)));
    CT_STATUS(pw_run(&pw_op_mul, PW_OUT, ops, NULL, out_i, &o, NULL), CLOPS_INVALID_DTYPE);
    clops_tensor *out_d = pwt_keep(pwt_lit_tensor(d, LF(FLOAT32, 0.0, 0.0, 0.0)));
    CT_OK(pw_run(&pw_op_lt, PW_OUT, ops, NULL, out_d, &o, NULL));
    pwt_expect(out_d, LF(FLOAT32, 0.0, 0.0, 0.0));
    /* out overlapping an input partially is refused; the same view is fine. */
    clops_tensor *shifted = NULL;
    int64_t two = 2, one = 1, off = 1;
    CT_OK(core_as_strided(a, &two, 1, &one, 1, &off, &shifted));
    pwt_keep(shifted);
    clops_tensor *head = NULL;
    int64_t zero = 0;
    CT_OK(core_as_strided(a, &two, 1, &one, 1, &zero, &head));
    pwt_keep(head);
    pw_operand ov[2] = {pw_tensor(head), pw_scalar(clops_scalar_float(1.0))};
    CT_STATUS(pw_run(&pw_op_mul, PW_OUT, ov, NULL, shifted, &o, NULL), CLOPS_MEMORY_OVERLAP);
    /* In place into a transposed tensor. */
    const int64_t sizes[2] = {4, 3};
    clops_tensor *x = pwt_keep(ct_random(d, CLOPS_INT32, 2, sizes, CT_TRANSPOSED, ANY, 5));
    clops_tensor *y = pwt_keep(ct_random(d, CLOPS_INT32, 1, sizes + 1, CT_SLICED, ANY, 6));
    pw_operand xy[2] = {pw_tensor(x), pw_tensor(y)};
    clops_tensor *ref = NULL;
    CT_OK(pw_run(&pw_op_bitwise_xor, PW_FUNCTIONAL, xy, NULL, NULL, &o, &ref));
    pwt_keep(ref);
    CT_OK(pw_run(&pw_op_bitwise_xor, PW_INPLACE, xy, NULL, NULL, &o, NULL));
    CT_ASSERT_CLOSE(x, ref, CT_TOL_EXACT);
}

static void test_out_and_inplace_follow_the_structured_rules(void **state)
{
    (void)state;
    pwt_each_device(check_out_rules);
}

/* A zero-dim CPU tensor joins a device op as a zero-dim operand (it
 * promotes by its dtype, like PyTorch's CPU scalars). */
static void check_cpu_scalar(clops_device *d)
{
    clops_tensor *f = NULL, *l = NULL;
    CT_OK(clops_full(ct_cpu(), CLOPS_FLOAT32, 0, NULL, clops_scalar_float(2.5), &f));
    CT_OK(clops_full(ct_cpu(), CLOPS_INT64, 0, NULL, clops_scalar_int(300), &l));
    pwt_keep(f);
    pwt_keep(l);
    const pw_operand a[2] = {pwt_lit_op(d, LI(INT32, 1, -1)), pw_tensor(f)};
    pwt_expect(pwt_op(&pw_op_mul, a, NULL), LF(FLOAT32, 2.5, -2.5));
    const pw_operand b[2] = {pwt_lit_op(d, LI(INT8, 1, -1)), pw_tensor(l)};
    pwt_expect(pwt_op(&pw_op_mul, b, NULL), LI(INT8, 44, -44));
}

static void test_cpu_zero_dim_tensors_join_device_ops(void **state)
{
    (void)state;
    pwt_each_device(check_cpu_scalar);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_operand_layout_matches_the_reference),
        cmocka_unit_test(test_out_writes_exactly_the_elements_of_strided_views),
        cmocka_unit_test(test_out_and_inplace_follow_the_structured_rules),
        cmocka_unit_test(test_cpu_zero_dim_tensors_join_device_ops),
    };
    return cmocka_run_group_tests(tests, NULL, ct_teardown_group);
}
