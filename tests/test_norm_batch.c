/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/test_norm_batch.c: batch and group normalization (ops/norm/norm_batch.c,
 * ops/norm/norm_group.c): PyTorch's own results on every device
 * (tests/data/golden_norm_batch.json from tests/data/gen_golden_norm_batch.py,
 * replayed by tests/support/ct_golden.c; the updated running stats through
 * _native_batch_norm_legit_functional), the in-place running-stat update,
 * transposed inputs against the CPU device with run-to-run bitwise
 * determinism, and the error messages.  The layout sweeps are the operator
 * suite's (test_check_norm).
 */
#include <string.h>

#include "clops/ops.h"
#include "support/clops_test.h"

/* Every golden case on every device. */
static void test_batch_group_norm_match_pytorch(void **state)
{
    (void)state;
    ct_replay_golden("golden_norm_batch.json");
}

/* Releases n tensors (NULL entries skipped). */
static void release_n(clops_tensor **ts, int n)
{
    for (int i = 0; i < n; i++)
        clops_tensor_release(ts[i]);
}

/* native_batch_norm in training updates running_mean/var in place to what
 * _native_batch_norm_legit_functional returns; evaluation leaves them. */
static void test_running_stats_update_in_place(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int n = ct_devices(devs, CT_MAX_DEVICES);
    const int64_t c = 5;
    for (int di = 0; di < n; di++) {
        ct_set_device(devs[di]);
        clops_tensor *x = ct_random(devs[di], CLOPS_FLOAT32, 3, CT_I64(7, 5, 6), CT_SLICED,
                                    PW_DOMAIN_SMALL, 41);
        clops_tensor *rm = ct_random(devs[di], CLOPS_FLOAT32, 1, &c, CT_CONTIGUOUS,
                                     PW_DOMAIN_SMALL, 42);
        clops_tensor *rv = ct_random(devs[di], CLOPS_FLOAT32, 1, &c, CT_CONTIGUOUS,
                                     PW_DOMAIN_POSITIVE, 43);
        clops_tensor *r[5] = {NULL}, *o[3] = {NULL}, *e[3] = {NULL}, *rm0 = NULL;
        CT_OK(clops_clone(rm, -1, &rm0));
        CT_OK(clops__native_batch_norm_legit_functional(x, NULL, NULL, rm, rv, true, 0.25, 1e-5,
                                                        &r[0], &r[1], &r[2], &r[3], &r[4]));
        CT_ASSERT_CLOSE(rm, rm0, CT_TOL_EXACT); /* the functional form leaves them */
        CT_OK(clops_native_batch_norm(x, NULL, NULL, rm, rv, true, 0.25, 1e-5, &o[0], &o[1],
                                      &o[2]));
        CT_ASSERT_CLOSE(rm, r[3], CT_TOL_EXACT);
        CT_ASSERT_CLOSE(rv, r[4], CT_TOL_EXACT);
        for (int i = 0; i < 3; i++)
            CT_ASSERT_CLOSE(o[i], r[i], CT_TOL_EXACT);
        CT_OK(clops_native_batch_norm(x, NULL, NULL, rm, rv, false, 0.25, 1e-5, &e[0], &e[1],
                                      &e[2]));
        CT_ASSERT_CLOSE(rm, r[3], CT_TOL_EXACT);
        CT_ASSERT(clops_tensor_numel(e[1]) == 0 && clops_tensor_numel(e[2]) == 0);
        clops_tensor *ts[] = {x, rm, rv, rm0, r[0], r[1], r[2], r[3], r[4],
                              o[0], o[1], o[2], e[0], e[1], e[2]};
        release_n(ts, (int)CT_COUNT(ts));
    }
    ct_clear_context();
}

/* Batch and group norm forward and backward on transposed (non-contiguous)
 * inputs against the CPU device, twice for the same bits. */
static void test_transposed_inputs_match_the_cpu_device(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int n = ct_opencl_devices(devs, CT_MAX_DEVICES);
    clops_device *cpu = ct_cpu();
    const int64_t xs[4] = {6, 16, 7, 9}, c = 16;
    const bool mask[3] = {true, true, true};
    for (int di = 0; di < n; di++) {
        ct_set_device(devs[di]);
        clops_device *d2[2] = {devs[di], cpu};
        clops_tensor *o[2][3] = {{NULL}}, *o2[3] = {NULL}, *go[2][3] = {{NULL}};
        clops_tensor *bo[2][3] = {{NULL}}, *gb[2][3] = {{NULL}}, *in[2][4] = {{NULL}};
        for (int k = 0; k < 2; k++) {
            clops_tensor *x = ct_random(d2[k], CLOPS_FLOAT32, 4, xs, CT_TRANSPOSED,
                                        PW_DOMAIN_SMALL, 51);
            clops_tensor *w = ct_random(d2[k], CLOPS_FLOAT32, 1, &c, CT_SLICED, PW_DOMAIN_SMALL,
                                        52);
            clops_tensor *b = ct_random(d2[k], CLOPS_FLOAT32, 1, &c, CT_CONTIGUOUS,
                                        PW_DOMAIN_SMALL, 53);
            clops_tensor *g = ct_random(d2[k], CLOPS_FLOAT32, 4, xs, CT_CONTIGUOUS,
                                        PW_DOMAIN_SMALL, 54);
            in[k][0] = x;
            in[k][1] = w;
            in[k][2] = b;
            in[k][3] = g;
            ct_set_case("batch_norm on %s", k ? "cpu" : "opencl");
            CT_OK(clops__native_batch_norm_legit_no_stats(x, w, b, true, 0.1, 1e-5, &o[k][0],
                                                          &o[k][1], &o[k][2]));
            CT_OK(clops_native_batch_norm_backward(g, x, w, NULL, NULL, o[k][1], o[k][2], true,
                                                   1e-5, mask, 3, &bo[k][0], &bo[k][1],
                                                   &bo[k][2]));
            CT_OK(clops_native_group_norm(x, w, b, 6, 16, 63, 4, 1e-5, &go[k][0], &go[k][1],
                                          &go[k][2]));
            CT_OK(clops_native_group_norm_backward(g, x, go[k][1], go[k][2], w, 6, 16, 63, 4,
                                                   mask, 3, &gb[k][0], &gb[k][1], &gb[k][2]));
        }
        CT_OK(clops__native_batch_norm_legit_no_stats(in[0][0], in[0][1], in[0][2], true, 0.1,
                                                      1e-5, &o2[0], &o2[1], &o2[2]));
        for (int i = 0; i < 3; i++) {
            ct_set_case("result %d", i);
            CT_ASSERT_CLOSE(o[0][i], o[1][i], ct_tol_ulp_atol(64, 1e-5));
            CT_ASSERT_CLOSE(o[0][i], o2[i], CT_TOL_EXACT);
            CT_ASSERT_CLOSE(bo[0][i], bo[1][i], ct_tol_ulp_atol(64, 1e-3));
            CT_ASSERT_CLOSE(go[0][i], go[1][i], ct_tol_ulp_atol(64, 1e-5));
            CT_ASSERT_CLOSE(gb[0][i], gb[1][i], ct_tol_ulp_atol(64, 1e-3));
        }
        for (int k = 0; k < 2; k++) {
            release_n(in[k], 4);
            release_n(o[k], 3);
            release_n(bo[k], 3);
            release_n(go[k], 3);
            release_n(gb[k], 3);
        }
        release_n(o2, 3);
    }
    ct_clear_context();
}

/* Bad per-channel shapes, evaluation without running stats and groups that
 * do not divide the channels are refused with messages naming the op and
 * the shapes. */
static void test_bad_arguments_are_refused(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int n = ct_devices(devs, CT_MAX_DEVICES);
    const int64_t four = 4, three = 3;
    for (int di = 0; di < n; di++) {
        ct_set_device(devs[di]);
        clops_tensor *x = ct_random(devs[di], CLOPS_FLOAT32, 3, CT_I64(2, 3, 4), CT_CONTIGUOUS,
                                    PW_DOMAIN_SMALL, 61);
        clops_tensor *w4 = ct_random(devs[di], CLOPS_FLOAT32, 1, &four, CT_CONTIGUOUS,
                                     PW_DOMAIN_SMALL, 62);
        clops_tensor *w3 = ct_random(devs[di], CLOPS_FLOAT32, 1, &three, CT_CONTIGUOUS,
                                     PW_DOMAIN_SMALL, 63);
        clops_tensor *i32 = ct_random(devs[di], CLOPS_INT32, 3, CT_I64(2, 3, 4), CT_CONTIGUOUS,
                                      PW_DOMAIN_SMALL, 64);
        clops_tensor *o[3] = {NULL, NULL, NULL};
        CT_STATUS(clops_native_batch_norm(x, w4, NULL, NULL, NULL, true, 0.1, 1e-5, &o[0], &o[1],
                                          &o[2]),
                  CLOPS_INVALID_SHAPE);
        CT_ERROR_CONTAINS("native_batch_norm: expected weight to be a floating tensor of shape "
                          "[3]");
        CT_ERROR_CONTAINS("got [4] float32 (input [2, 3, 4] float32 on");
        CT_STATUS(clops_native_batch_norm(x, w3, NULL, w3, w4, true, 0.1, 1e-5, &o[0], &o[1],
                                          &o[2]),
                  CLOPS_INVALID_SHAPE);
        CT_ERROR_CONTAINS("running_var");
        CT_STATUS(clops_native_batch_norm(x, w3, NULL, NULL, NULL, false, 0.1, 1e-5, &o[0],
                                          &o[1], &o[2]),
                  CLOPS_INVALID_ARGUMENT);
        CT_ERROR_CONTAINS("must be defined in evaluation mode");
        CT_STATUS(clops_native_batch_norm(i32, NULL, NULL, NULL, NULL, true, 0.1, 1e-5, &o[0],
                                          &o[1], &o[2]),
                  CLOPS_INVALID_ARGUMENT);
        CT_ERROR_CONTAINS("int32");
        CT_STATUS(clops_native_group_norm(x, NULL, NULL, 2, 3, 4, 2, 1e-5, &o[0], &o[1], &o[2]),
                  CLOPS_INVALID_SHAPE);
        CT_ERROR_CONTAINS("divisible by num_groups");
        CT_STATUS(clops_native_group_norm(x, w4, NULL, 2, 3, 4, 3, 1e-5, &o[0], &o[1], &o[2]),
                  CLOPS_INVALID_SHAPE);
        CT_ERROR_CONTAINS("native_group_norm: Expected weight to be a vector of size equal to "
                          "the number of channels");
        CT_ASSERT(!o[0] && !o[1] && !o[2]);
        clops_tensor *ts[] = {x, w4, w3, i32};
        release_n(ts, (int)CT_COUNT(ts));
    }
    ct_clear_context();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_batch_group_norm_match_pytorch),
        cmocka_unit_test(test_running_stats_update_in_place),
        cmocka_unit_test(test_transposed_inputs_match_the_cpu_device),
        cmocka_unit_test(test_bad_arguments_are_refused),
    };
    return cmocka_run_group_tests(tests, NULL, ct_teardown_group);
}
