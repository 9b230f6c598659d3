/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/test_pointwise_user.c: clops_pointwise_register's fixed result dtype
 * and promotion "none", the two things a compiler fusing several ops into
 * one generated expression needs (python/clops/torch/_compile.py): operands
 * arrive in their own dtypes (a bfloat16 tensor as float, an int64 one as
 * long, a bool mask as 0/1), the expression converts explicitly, and the
 * result has the dtype the definition names, on every OpenCL device and on
 * the CPU device through the C version.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "clops/ops.h"
#include "clops/pointwise.h"
#include "support/clops_test.h"

/* The CPU version of the fused op below: where(m, x * (float)i, 0.5f). */
static double fused_ref(const double *in, const double *params, void *user)
{
    (void)params;
    (void)user;
    return in[2] != 0.0 ? (double)((float)in[0] * (float)in[1]) : 0.5;
}

/* bfloat16 x, int64 i and bool m in, float32 out: each operand is read in
 * its own compute type (x as float, i as long, m as 0/1), the expression's
 * value is a float (the result's compute type), and x rounded to bfloat16
 * on the way in stays exact in float. */
static void test_promotion_none_reads_every_operand_in_its_own_dtype(void **state)
{
    (void)state;
    clops_pointwise_def def = {
        .schema = "user_fused_mixed(Tensor x, Tensor i, Tensor m) -> Tensor",
        .expr = "c ? a * (float)b : 0.5f",
        .promotion = "none",
        .result = "float32",
        .ref = fused_ref,
    };
    const clops_op *op = NULL;
    CT_OK(clops_pointwise_register(&def, &op));
    const uint16_t xs[4] = {0x3FC0, 0xC000, 0x4040, 0x3E80}; /* bfloat16 1.5 -2 3 0.25 */
    const int64_t is[4] = {3, 16777217, -1, 7};
    const uint8_t ms[4] = {1, 1, 0, 1};
    /* int64 16777217 converts to float 16777216, then times -2. */
    const float want[4] = {4.5f, -33554432.0f, 0.5f, 1.75f};
    clops_device *devs[CT_MAX_DEVICES];
    int n = ct_devices(devs, CT_MAX_DEVICES);
    for (int k = 0; k < n && op; k++) {
        ct_set_device(devs[k]);
        if (!ct_device_supports(devs[k], CLOPS_BFLOAT16))
            continue;
        clops_tensor *x = ct_from_values(devs[k], CLOPS_BFLOAT16, 1, CT_I64(4), CT_CONTIGUOUS, xs);
        clops_tensor *i = ct_from_values(devs[k], CLOPS_INT64, 1, CT_I64(4), CT_CONTIGUOUS, is);
        clops_tensor *m = ct_from_values(devs[k], CLOPS_BOOL, 1, CT_I64(4), CT_CONTIGUOUS, ms);
        clops_value args[3] = {clops_value_tensor(x), clops_value_tensor(i),
                               clops_value_tensor(m)};
        clops_value ret[1];
        clops_device_counters before, after;
        CT_OK(clops_device_get_counters(devs[k], &before));
        CT_OK(clops_call_boxed(op, args, 3, ret, 1));
        CT_OK(clops_device_get_counters(devs[k], &after));
        /* one kernel, whatever its three operands are (none on the CPU) */
        bool cpu = clops_device_get_info(devs[k])->type == CLOPS_DEVICE_CPU;
        CT_ASSERT_MSG(after.launches - before.launches == (cpu ? 0u : 1u), "%llu launches",
                      (unsigned long long)(after.launches - before.launches));
        CT_ASSERT(clops_tensor_dtype(ret[0].v.t) == CLOPS_FLOAT32);
        float *got = ct_to_host(ret[0].v.t);
        for (int e = 0; e < 4; e++)
            CT_ASSERT_MSG(got[e] == want[e], "element %d is %g, expected %g", e, (double)got[e],
                          (double)want[e]);
        free(got);
        clops_tensor_release(ret[0].v.t);
        clops_tensor_release(m);
        clops_tensor_release(i);
        clops_tensor_release(x);
    }
    ct_clear_context();
}

/* A fixed result dtype on an ordinary op: float32 operands, a bool result
 * (a comparison written by hand) and a bfloat16 one (the float value
 * rounded to nearest even on store). */
static void test_a_fixed_result_dtype_overrides_the_promotion(void **state)
{
    (void)state;
    clops_pointwise_def lt = {.schema = "user_less(Tensor a, Tensor b) -> Tensor",
                              .expr = "a < b",
                              .result = "bool"};
    clops_pointwise_def bf = {.schema = "user_to_bf16(Tensor a) -> Tensor",
                              .expr = "a * 3.0f",
                              .result = "bfloat16"};
    const clops_op *op_lt = NULL, *op_bf = NULL;
    CT_OK(clops_pointwise_register(&lt, &op_lt));
    CT_OK(clops_pointwise_register(&bf, &op_bf));
    const float xs[3] = {1.0f, 2.0f, 1.00390625f}, ys[3] = {2.0f, 2.0f, 0.0f};
    clops_device *devs[CT_MAX_DEVICES];
    int n = ct_opencl_devices(devs, CT_MAX_DEVICES);
    for (int k = 0; k < n && op_lt && op_bf; k++) {
        ct_set_device(devs[k]);
        clops_tensor *x = ct_from_values(devs[k], CLOPS_FLOAT32, 1, CT_I64(3), CT_CONTIGUOUS, xs);
        clops_tensor *y = ct_from_values(devs[k], CLOPS_FLOAT32, 1, CT_I64(3), CT_CONTIGUOUS, ys);
        clops_value args[2] = {clops_value_tensor(x), clops_value_tensor(y)};
        clops_value r1[1], r2[1];
        CT_OK(clops_call_boxed(op_lt, args, 2, r1, 1));
        CT_OK(clops_call_boxed(op_bf, args, 1, r2, 1));
        CT_ASSERT(clops_tensor_dtype(r1[0].v.t) == CLOPS_BOOL);
        CT_ASSERT(clops_tensor_dtype(r2[0].v.t) == CLOPS_BFLOAT16);
        uint8_t *b = ct_to_host(r1[0].v.t);
        CT_ASSERT(b[0] == 1 && b[1] == 0 && b[2] == 0);
        free(b);
        uint16_t *g = ct_to_host(r2[0].v.t);
        /* 3.01171875 lies between bfloat16 3.0 and 3.015625: nearest is
         * 3.015625 (0x4041); 3 is 0x4040, 6 is 0x40C0. */
        CT_ASSERT_MSG(g[0] == 0x4040 && g[1] == 0x40C0 && g[2] == 0x4041, "got %04x %04x %04x",
                      g[0], g[1], g[2]);
        free(g);
        clops_tensor_release(r2[0].v.t);
        clops_tensor_release(r1[0].v.t);
        clops_tensor_release(y);
        clops_tensor_release(x);
    }
    ct_clear_context();
}

static void test_promotion_none_refuses_what_it_cannot_mean(void **state)
{
    (void)state;
    const clops_op *op = NULL;
    clops_pointwise_def no_result = {.schema = "user_none_nores(Tensor a) -> Tensor",
                                     .expr = "a",
                                     .promotion = "none"};
    CT_STATUS(clops_pointwise_register(&no_result, &op), CLOPS_INVALID_ARGUMENT);
    CT_ERROR_CONTAINS("needs a result dtype");
    clops_pointwise_def scalar = {.schema = "user_none_scalar(Tensor a, Scalar s) -> Tensor",
                                  .expr = "a",
                                  .promotion = "none",
                                  .result = "float32"};
    CT_STATUS(clops_pointwise_register(&scalar, &op), CLOPS_INVALID_ARGUMENT);
    CT_ERROR_CONTAINS("must be a Tensor");
    clops_pointwise_def param = {.schema = "user_none_param(Tensor a, Scalar s) -> Tensor",
                                 .expr = "a",
                                 .params = "s",
                                 .promotion = "none",
                                 .result = "float32"};
    CT_STATUS(clops_pointwise_register(&param, &op), CLOPS_INVALID_ARGUMENT);
    CT_ERROR_CONTAINS("no parameters");
    clops_pointwise_def bad = {.schema = "user_bad_result(Tensor a) -> Tensor",
                               .expr = "a",
                               .result = "float33"};
    clops_status st = clops_pointwise_register(&bad, &op);
    CT_ASSERT(st != CLOPS_OK);
    CT_ERROR_CONTAINS("user_bad_result");
    CT_STATUS(clops_op_find("user_bad_result", &op), CLOPS_UNKNOWN_OP);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_promotion_none_reads_every_operand_in_its_own_dtype),
        cmocka_unit_test(test_a_fixed_result_dtype_overrides_the_promotion),
        cmocka_unit_test(test_promotion_none_refuses_what_it_cannot_mean),
    };
    return cmocka_run_group_tests(tests, NULL, ct_teardown_group);
}
