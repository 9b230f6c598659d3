/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/test_pw_binary.c: every binary, ternary, comparison, logical and
 * bitwise pointwise op, on every dtype it accepts, on every OpenCL device,
 * checked against the CPU reference.
 *
 * For each op and dtype the same inputs are built on the CPU and on the
 * device and run through pw_run (or the op's family function) in three
 * layouts that together cover the kernel shapes without compiling one
 * kernel per layout:
 *   contiguous   all operands [5, 7] row-major (the vectorised fast path,
 *                35 elements so the tail runs too);
 *   mixed        operand 0 transposed, operand 1 a step-2 slice at a storage
 *                offset broadcast along rows, operand 2 a column broadcast
 *                along columns (one rank-2 strided kernel);
 *   scalar       operand 1 (2 for where) a Python scalar of the dtype's kind
 *                (same kernel as contiguous, scalar flag set).
 * The layout-specific corners (zero-dim, zero-size, expanded, rank 3 and
 * generic rank, out= with guard regions) and the hand-checked semantics are
 * in tests/test_pw_binary_semantics.c.  Without an OpenCL device the test
 * still runs every case on the CPU (the references must not fail).
 */
#include "pw_binary_check.h"

/* Family functions some ops are run through (their params depend on dtype). */
typedef clops_status (*runner_fn)(const pw_op *op, const pw_operand *ops,
                                  const clops_scalar *params, clops_tensor **out);

/* nextafter picks its 16-bit stepping mode in the glue. */
static clops_status run_nextafter(const pw_op *op, const pw_operand *ops,
                                  const clops_scalar *params, clops_tensor **out)
{
    (void)op, (void)params;
    return pw_fn_nextafter(PW_FUNCTIONAL, NULL, (clops_tensor *)ops[0].tensor,
                           (clops_tensor *)ops[1].tensor, out);
}

/* One op of the sweep. */
typedef struct sweep_case {
    const pw_op *op;
    pwt_gen gen[3];   /* value domain per operand */
    double scale;     /* tolerance relative to this input scale (cancelling ops) */
    bool zero_free;   /* the sign of a zero result may differ (fmax/fmin) */
    bool no_scalar;   /* no scalar layout (the op has no Scalar overload) */
    runner_fn run;    /* NULL: pw_run */
} sweep_case;

#define ANY2 {PWT_ANY, PWT_ANY}
#define ANY3 {PWT_ANY, PWT_ANY, PWT_ANY}

static const sweep_case cases[] = {
    {.op = &pw_op_add, .gen = ANY2},
    {.op = &pw_op_sub, .gen = ANY2},
    {.op = &pw_op_mul, .gen = ANY2},
    {.op = &pw_op_div, .gen = ANY2},
    {.op = &pw_op_div_trunc, .gen = ANY2},
    {.op = &pw_op_div_floor, .gen = ANY2},
    {.op = &pw_op_remainder, .gen = ANY2},
    {.op = &pw_op_fmod, .gen = ANY2},
    {.op = &pw_op_pow, .gen = {PWT_SMALL, PWT_EXPONENT}},
    {.op = &pw_op_lerp, .gen = ANY2, .scale = 10.0, .no_scalar = true},
    {.op = &pw_op_lerp_tensor, .gen = {PWT_ANY, PWT_ANY, PWT_SMALL}, .scale = 30.0},
    {.op = &pw_op_addcmul, .gen = ANY3, .scale = 200.0},
    {.op = &pw_op_addcdiv, .gen = {PWT_ANY, PWT_ANY, PWT_POSITIVE}, .scale = 10.0},
    {.op = &pw_op_atan2, .gen = ANY2, .no_scalar = true},
    {.op = &pw_op_hypot, .gen = ANY2, .no_scalar = true},
    {.op = &pw_op_copysign, .gen = ANY2},
    {.op = &pw_op_nextafter, .gen = ANY2, .no_scalar = true, .run = run_nextafter},
    {.op = &pw_op_xlogy, .gen = {PWT_ANY, PWT_POSITIVE}},
    {.op = &pw_op_logaddexp, .gen = ANY2, .scale = 10.0, .no_scalar = true},
    {.op = &pw_op_logaddexp2, .gen = ANY2, .scale = 10.0, .no_scalar = true},
    {.op = &pw_op_heaviside, .gen = ANY2, .no_scalar = true},
    {.op = &pw_op_eq, .gen = ANY2},
    {.op = &pw_op_ne, .gen = ANY2},
    {.op = &pw_op_lt, .gen = ANY2},
    {.op = &pw_op_le, .gen = ANY2},
    {.op = &pw_op_gt, .gen = ANY2},
    {.op = &pw_op_ge, .gen = ANY2},
    {.op = &pw_op_maximum, .gen = ANY2},
    {.op = &pw_op_minimum, .gen = ANY2},
    {.op = &pw_op_fmax, .gen = ANY2, .zero_free = true, .no_scalar = true},
    {.op = &pw_op_fmin, .gen = ANY2, .zero_free = true, .no_scalar = true},
    {.op = &pw_op_clamp, .gen = ANY3},
    {.op = &pw_op_clamp_min, .gen = ANY2},
    {.op = &pw_op_clamp_max, .gen = ANY2},
    {.op = &pw_op_where, .gen = {PWT_BOOL01, PWT_ANY, PWT_ANY}},
    {.op = &pw_op_masked_fill, .gen = {PWT_ANY, PWT_BOOL01}, .no_scalar = true},
    {.op = &pw_op_logical_and, .gen = ANY2},
    {.op = &pw_op_logical_or, .gen = ANY2},
    {.op = &pw_op_logical_xor, .gen = ANY2},
    {.op = &pw_op_logical_not, .gen = {PWT_ANY}},
    {.op = &pw_op_bitwise_and, .gen = ANY2},
    {.op = &pw_op_bitwise_or, .gen = ANY2},
    {.op = &pw_op_bitwise_xor, .gen = ANY2},
    {.op = &pw_op_bitwise_not, .gen = {PWT_ANY}},
    {.op = &pw_op_bitwise_left_shift, .gen = {PWT_ANY, PWT_SHIFT}},
    {.op = &pw_op_bitwise_right_shift, .gen = {PWT_ANY, PWT_SHIFT}},
};

#define NCASES ((int)(sizeof cases / sizeof cases[0]))

/* A scalar of dtype dt's kind: true, 3, or 2.5 (2 for pow's exponent). */
static clops_scalar kind_scalar(const sweep_case *c, clops_dtype dt)
{
    if (dt == CLOPS_BOOL)
        return clops_scalar_bool(true);
    if (!clops_dtype_is_floating(dt))
        return clops_scalar_int(3);
    return clops_scalar_float(c->op == &pw_op_pow ? 2.0 : 2.5);
}

/* The op's parameters for dtype dt (alpha 2, weights 0.3, masked_fill's
 * value, addc* value 2 / 0.5, pow and nextafter modes). */
static void params_for(const sweep_case *c, clops_dtype dt, clops_scalar *p)
{
    const pw_op *op = c->op;
    bool fl = clops_dtype_is_floating(dt);
    p[0] = clops_scalar_int(0);
    if (op == &pw_op_add || op == &pw_op_sub)
        p[0] = dt == CLOPS_BOOL ? clops_scalar_bool(true) : clops_scalar_int(2);
    else if (op == &pw_op_lerp)
        p[0] = clops_scalar_float(0.3);
    else if (op == &pw_op_addcmul)
        p[0] = clops_scalar_int(2);
    else if (op == &pw_op_addcdiv)
        p[0] = clops_scalar_float(0.5);
    else if (op == &pw_op_masked_fill)
        p[0] = dt == CLOPS_BOOL ? clops_scalar_bool(true)
               : fl             ? clops_scalar_float(-2.5)
                                : clops_scalar_int(5);
}

/* The three layouts of one operand (see the file comment). */
static pwt_layout layout_of(int which, int operand, int n_in)
{
    pwt_layout contiguous = {2, {5, 7}, {7, 1}, 0, 35};
    pwt_layout transposed = {2, {5, 7}, {1, 5}, 0, 35};
    pwt_layout row_slice = {1, {7}, {2}, 3, 17};
    pwt_layout column = {2, {5, 1}, {1, 1}, 0, 5};
    if (which != 1)
        return contiguous;
    if (operand == 0)
        return transposed;
    if (operand == 1)
        return n_in == 1 ? transposed : row_slice;
    return column;
}

/* Runs case c with the given operands on one device. */
static clops_status run_case(const sweep_case *c, const pw_operand *ops, const clops_scalar *p,
                             clops_tensor **out)
{
    if (c->run)
        return c->run(c->op, ops, p, out);
    pw_options o = {.result = CLOPS_DTYPE_NONE, .compute = CLOPS_DTYPE_NONE, .opname = NULL};
    return pw_run(c->op, PW_FUNCTIONAL, ops, p, NULL, &o, out);
}

/* Operand dtype j for common dtype dt. */
static clops_dtype operand_dtype(const pw_op *op, int j, clops_dtype dt)
{
    return op->roles[j] == PW_ROLE_BOOL ? CLOPS_BOOL : dt;
}

/* One case, one dtype, one layout, on one device (dev may be NULL: CPU
 * only). */
static void check_one(const sweep_case *c, clops_dtype dt, int layout, clops_device *dev)
{
    const pw_op *op = c->op;
    int scalar_at = op == &pw_op_where ? 2 : 1;
    bool scalar = layout == 2;
    pwt_pair in[PW_MAX_IN] = {{0}};
    pw_operand cops[PW_MAX_IN], dops[PW_MAX_IN];
    clops_scalar p[PW_MAX_PARAMS];
    params_for(c, dt, p);
    for (int j = 0; j < op->n_in; j++) {
        if (scalar && j == scalar_at) {
            cops[j] = dops[j] = pw_scalar(kind_scalar(c, dt));
            continue;
        }
        pwt_layout L = layout_of(layout, j, op->n_in);
        in[j] = pwt_make(dev, operand_dtype(op, j, dt), &L, c->gen[j], (uint64_t)(j + 1));
        cops[j] = pw_tensor(in[j].cpu);
        dops[j] = pw_tensor(in[j].dev);
    }
    static const char *const layout_names[] = {"contiguous", "mixed", "scalar"};
    char what[160];
    snprintf(what, sizeof what, "%s %s, %s", op->name, clops_dtype_name(dt),
             layout_names[layout]);
    ct_set_case("%s (reference)", what);
    clops_tensor *ref = NULL, *got = NULL;
    CT_OK(run_case(c, cops, p, &ref));
    if (dev) {
        ct_set_device(dev);
        ct_set_case("%s", what);
        CT_OK(run_case(c, dops, p, &got));
        pwt_compare(what, ref, got, pwt_tol(ref->dtype, op->ulp, c->scale, !c->zero_free));
    }
    clops_tensor_release(ref);
    clops_tensor_release(got);
    for (int j = 0; j < op->n_in; j++)
        pwt_release(&in[j]);
}

/* Every dtype and layout of case c on every device. */
static void sweep(const sweep_case *c)
{
    clops_device *devs[CT_MAX_DEVICES];
    int ndev = ct_opencl_devices(devs, CT_MAX_DEVICES);
    for (int dt = 0; dt < CLOPS_DTYPE_COUNT; dt++) {
        if (!(c->op->dtypes & PW_DT(dt)))
            continue;
        int nlayouts = (c->no_scalar || c->op->n_in == 1) ? 2 : 3;
        for (int layout = 0; layout < nlayouts; layout++) {
            if (ndev == 0)
                check_one(c, (clops_dtype)dt, layout, NULL);
            for (int d = 0; d < ndev; d++) {
                if (!ct_device_supports(devs[d], (clops_dtype)dt))
                    continue;
                check_one(c, (clops_dtype)dt, layout, devs[d]);
            }
        }
    }
}

/* One cmocka test per op, named after it (state carries the case). */
static void test_op_matches_reference_on_every_device(void **state)
{
    sweep((const sweep_case *)*state);
}

/* Every accepted dtype is listed once and refused dtypes fail cleanly. */
static void test_refused_dtypes_fail_with_invalid_dtype(void **state)
{
    (void)state;
    for (int i = 0; i < NCASES; i++) {
        const pw_op *op = cases[i].op;
        for (int dt = 0; dt < CLOPS_DTYPE_COUNT; dt++) {
            if (op->dtypes & PW_DT(dt))
                continue;
            pwt_layout L = {1, {3}, {1}, 0, 3};
            pwt_pair t[PW_MAX_IN] = {{0}};
            pw_operand ops[PW_MAX_IN];
            for (int j = 0; j < op->n_in; j++) {
                t[j] = pwt_make(NULL, operand_dtype(op, j, (clops_dtype)dt), &L, PWT_ANY, 1);
                ops[j] = pw_tensor(t[j].cpu);
            }
            clops_scalar p[PW_MAX_PARAMS] = {clops_scalar_int(0), clops_scalar_int(0)};
            clops_tensor *out = NULL;
            pw_options o = {.result = CLOPS_DTYPE_NONE, .compute = CLOPS_DTYPE_NONE};
            clops_status st = pw_run(op, PW_FUNCTIONAL, ops, p, NULL, &o, &out);
            CT_ASSERT_MSG(st == CLOPS_INVALID_DTYPE, "%s on %s: status %s, expected INVALID_DTYPE",
                          op->name, clops_dtype_name((clops_dtype)dt), clops_status_name(st));
            for (int j = 0; j < op->n_in; j++)
                pwt_release(&t[j]);
        }
    }
}

int main(void)
{
    struct CMUnitTest tests[NCASES + 1];
    static char names[NCASES][64];
    for (int i = 0; i < NCASES; i++) {
        snprintf(names[i], sizeof names[i], "%s_matches_reference", cases[i].op->name);
        tests[i] = (struct CMUnitTest){names[i], test_op_matches_reference_on_every_device, NULL,
                                       NULL, (void *)&cases[i]};
    }
    tests[NCASES] = (struct CMUnitTest){"refused_dtypes_fail_with_invalid_dtype",
                                        test_refused_dtypes_fail_with_invalid_dtype, NULL, NULL,
                                        NULL};
    return _cmocka_run_group_tests("pw_binary", tests, NCASES + 1, NULL, ct_teardown_group);
}
