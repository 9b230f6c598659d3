/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/test_norm.c: the normalization family (_softmax, _log_softmax and
 * their backward ops): PyTorch's own results on every device
 * (tests/data/golden_norm.json from tests/data/gen_golden_norm.py, replayed
 * by tests/support/ct_golden.c), the row strategies of ops/norm/norm.c against
 * the CPU reference on long, short and strided rows, half_to_float, and
 * run-to-run determinism.  The layout sweeps are the operator suite's
 * (test_check_norm).
 */
#include <math.h>

#include "clops/ops.h"
#include "core/debug.h"
#include "ops/norm/norm.h"
#include "support/clops_test.h"

/* Every golden case on every device. */
static void test_softmax_matches_pytorch(void **state)
{
    (void)state;
    ct_replay_golden("golden_norm.json");
}

/* Long rows (all lanes of a group on one row), short rows (several rows
 * per group) and strided rows (softmax over a leading dim), forward and
 * backward, against the CPU reference, twice for the same bits, and once
 * more with the row-resident path off (ops/norm/norm.h): the same bits again. */
static void test_row_strategies_match_the_reference(void **state)
{
    (void)state;
    static const struct {
        int ndim;
        int64_t sizes[3];
        int64_t dim;
    } shapes[] = {{2, {7, 5000}, 1}, {2, {5, 3000}, 1}, {2, {1000, 64}, 1},
                  {2, {9, 3}, -1},   {3, {300, 4, 33}, 0}};
    clops_device *devs[CT_MAX_DEVICES];
    int n = ct_opencl_devices(devs, CT_MAX_DEVICES);
    for (int di = 0; di < n; di++) {
        ct_set_device(devs[di]);
        for (size_t si = 0; si < CT_COUNT(shapes); si++)
            for (int logm = 0; logm < 2; logm++) {
                ct_set_case("%s over dim %lld of shape %zu", logm ? "log_softmax" : "softmax",
                            (long long)shapes[si].dim, si);
                clops_tensor *x = ct_random(devs[di], CLOPS_FLOAT32, shapes[si].ndim,
                                            shapes[si].sizes, CT_TRANSPOSED, PW_DOMAIN_SMALL, 3);
                clops_tensor *xc = ct_to_cpu(x);
                clops_tensor *y = NULL, *y2 = NULL, *y3 = NULL, *yc = NULL, *gi = NULL,
                             *gic = NULL;
                int64_t dim = shapes[si].dim;
                clops_status (*f)(clops_tensor *, int64_t, bool, clops_tensor **) =
                    logm ? clops__log_softmax : clops__softmax;
                CT_OK(f(x, dim, false, &y));
                CT_OK(f(x, dim, false, &y2));
                CT_OK(f(xc, dim, false, &yc));
                CT_OK(clops_debug_set("norm.streaming", 1));
                clops_status st3 = f(x, dim, false, &y3);
                CT_OK(clops_debug_set("norm.streaming", 0));
                CT_OK(st3);
                CT_ASSERT_CLOSE(y, yc, ct_tol_ulp_atol(16, 1e-6));
                CT_ASSERT_CLOSE(y, y2, CT_TOL_EXACT);
                CT_ASSERT_CLOSE(y, y3, CT_TOL_EXACT);
                clops_tensor *ycpu = ct_to_cpu(y);
                if (logm) {
                    CT_OK(clops__log_softmax_backward_data(x, y, dim, CLOPS_FLOAT32, &gi));
                    CT_OK(clops__log_softmax_backward_data(xc, ycpu, dim, CLOPS_FLOAT32, &gic));
                } else {
                    CT_OK(clops__softmax_backward_data(x, y, dim, CLOPS_FLOAT32, &gi));
                    CT_OK(clops__softmax_backward_data(xc, ycpu, dim, CLOPS_FLOAT32, &gic));
                }
                CT_ASSERT_CLOSE(gi, gic, ct_tol_ulp_atol(64, 1e-5));
                clops_tensor *ts[] = {x, xc, y, y2, y3, yc, gi, gic, ycpu};
                for (size_t i = 0; i < CT_COUNT(ts); i++)
                    clops_tensor_release(ts[i]);
            }
    }
    ct_clear_context();
}

/* softmax of float16 and bfloat16 rows on every OpenCL device against the
 * CPU reference: rows of 4000 (a CPU device keeps the exps of the vector
 * part between its passes) and 5000 (more than it keeps: computed twice),
 * contiguous and from an offset view (scalar head and tail), and the same
 * bits on a second call. */
static void test_two_byte_softmax_rows(void **state)
{
    (void)state;
    static const clops_dtype dts[] = {CLOPS_FLOAT16, CLOPS_BFLOAT16};
    static const int64_t lens[] = {4000, 5000};
    clops_device *devs[CT_MAX_DEVICES];
    int n = ct_opencl_devices(devs, CT_MAX_DEVICES);
    for (int di = 0; di < n; di++) {
        ct_set_device(devs[di]);
        for (size_t ti = 0; ti < CT_COUNT(dts); ti++)
            for (size_t li = 0; li < CT_COUNT(lens); li++)
                for (int off = 0; off < 2; off++) {
                    if (!ct_device_supports(devs[di], dts[ti]))
                        continue;
                    ct_set_case("softmax of %s rows of %lld, offset %d",
                                clops_dtype_name(dts[ti]), (long long)lens[li], off);
                    int64_t sz[2] = {5, lens[li] + 1};
                    clops_tensor *x0 = ct_random(devs[di], dts[ti], 2, sz, CT_CONTIGUOUS,
                                                 PW_DOMAIN_SMALL, 31 + li);
                    clops_tensor *x = NULL, *y = NULL, *y2 = NULL, *yc = NULL;
                    CT_OK(clops_narrow(x0, 1, off, lens[li], &x));
                    clops_tensor *xc = ct_to_cpu(x);
                    CT_OK(clops__softmax(x, 1, false, &y));
                    CT_OK(clops__softmax(x, 1, false, &y2));
                    CT_OK(clops__softmax(xc, 1, false, &yc));
                    if (y && yc)
                        CT_ASSERT_CLOSE(y, yc, ct_tol_ulp_atol(2, 1e-6));
                    if (y && y2)
                        CT_ASSERT_CLOSE(y, y2, CT_TOL_EXACT);
                    clops_tensor *ts[] = {x0, x, xc, y, y2, yc};
                    for (size_t i = 0; i < CT_COUNT(ts); i++)
                        clops_tensor_release(ts[i]);
                }
    }
    ct_clear_context();
}

/* layer_norm and rms_norm over long rows (a whole group per row, Welford
 * states merged by the tree; on GPUs rows up to 32 elements a lane of a
 * work-group stay in registers: norm_layer_rr, a warp per row for 768, a
 * work-group for 4096 and 8192, vector loads where n % 4 == 0, beyond that
 * the streaming kernel) and short rows, with weight and bias, against the
 * CPU reference; the statistics too; float32 and, for the rows models
 * normalise, the 16-bit types. */
static void test_layer_norm_rows_match_the_reference(void **state)
{
    (void)state;
    static const struct {
        int64_t sz[2];
        clops_dtype dt;
        int layout;
    } cases[] = {
        {{6, 5000}, CLOPS_FLOAT32, CT_TRANSPOSED},   {{300, 64}, CLOPS_FLOAT32, CT_TRANSPOSED},
        {{17, 3}, CLOPS_FLOAT32, CT_TRANSPOSED},     {{9, 768}, CLOPS_FLOAT32, CT_CONTIGUOUS},
        {{9, 768}, CLOPS_BFLOAT16, CT_CONTIGUOUS},   {{5, 1023}, CLOPS_FLOAT16, CT_CONTIGUOUS},
        {{7, 1030}, CLOPS_FLOAT32, CT_CONTIGUOUS},   {{4, 4096}, CLOPS_FLOAT32, CT_CONTIGUOUS},
        {{3, 8192}, CLOPS_BFLOAT16, CT_CONTIGUOUS},  {{3, 8193}, CLOPS_FLOAT32, CT_CONTIGUOUS},
        {{33, 1}, CLOPS_FLOAT32, CT_CONTIGUOUS},
    };
    clops_device *devs[CT_MAX_DEVICES];
    int n = ct_opencl_devices(devs, CT_MAX_DEVICES);
    for (int di = 0; di < n; di++) {
        ct_set_device(devs[di]);
        for (size_t si = 0; si < CT_COUNT(cases); si++) {
            const int64_t *shape = cases[si].sz;
            clops_dtype dt = cases[si].dt;
            ct_set_case("layer_norm %s [%lld, %lld]", clops_dtype_name(dt), (long long)shape[0],
                        (long long)shape[1]);
            clops_tensor *x = ct_random(devs[di], dt, 2, shape, cases[si].layout,
                                        PW_DOMAIN_SMALL, 11);
            /* 16-bit weights dense: norm_layer_rr reads them as they are */
            clops_tensor *w = ct_random(devs[di], dt, 1, &shape[1],
                                        dt == CLOPS_FLOAT32 ? CT_SLICED : CT_CONTIGUOUS,
                                        PW_DOMAIN_SMALL, 12);
            clops_tensor *b = ct_random(devs[di], dt, 1, &shape[1], CT_CONTIGUOUS,
                                        PW_DOMAIN_SMALL, 13);
            clops_tensor *xc = ct_to_cpu(x), *wc = ct_to_cpu(w), *bc = ct_to_cpu(b);
            clops_tensor *o[3] = {NULL}, *oc[3] = {NULL}, *r = NULL, *rc = NULL;
            CT_OK(clops_native_layer_norm(x, &shape[1], 1, w, b, 1e-5, &o[0], &o[1], &o[2]));
            CT_OK(clops_native_layer_norm(xc, &shape[1], 1, wc, bc, 1e-5, &oc[0], &oc[1],
                                          &oc[2]));
            /* 16-bit results: the reference's float value rounded one way,
             * the kernel's (another summation order) maybe the other */
            ct_tol tol = dt == CLOPS_FLOAT32 ? ct_tol_ulp_atol(64, 1e-5) : ct_tol_ulp_atol(2, 1e-2);
            for (int i = 0; i < 3; i++)
                CT_ASSERT_CLOSE(o[i], oc[i], tol);
            CT_OK(clops_rms_norm(x, &shape[1], 1, w, NULL, &r));
            CT_OK(clops_rms_norm(xc, &shape[1], 1, wc, NULL, &rc));
            CT_ASSERT_CLOSE(r, rc, tol);
            clops_tensor *ts[] = {x, w, b, xc, wc, bc, o[0], o[1], o[2], oc[0], oc[1], oc[2], r, rc};
            for (size_t i = 0; i < CT_COUNT(ts); i++)
                clops_tensor_release(ts[i]);
        }
    }
    ct_clear_context();
}

/* half_to_float: a float16 input gives the float32 softmax of its values;
 * other dtypes are refused as PyTorch's CUDA kernels refuse them. */
static void test_half_to_float_gives_float32(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int n = ct_devices(devs, CT_MAX_DEVICES);
    for (int di = 0; di < n; di++) {
        ct_set_device(devs[di]);
        clops_tensor *h = ct_random(devs[di], CLOPS_FLOAT16, 2, CT_I64(6, 40), CT_CONTIGUOUS,
                                    PW_DOMAIN_SMALL, 9);
        clops_tensor *f = NULL, *y = NULL, *want = NULL;
        CT_OK(clops__to_copy(h, CLOPS_FLOAT32, -1, NULL, NULL, false, -1, &f));
        CT_OK(clops__softmax(h, 1, true, &y));
        CT_OK(clops__softmax(f, 1, false, &want));
        CT_ASSERT(clops_tensor_dtype(y) == CLOPS_FLOAT32);
        CT_ASSERT_CLOSE(y, want, ct_tol_ulp_atol(8, 1e-7));
        clops_tensor *bad = NULL;
        CT_STATUS(clops__softmax(f, 1, true, &bad), CLOPS_INVALID_ARGUMENT);
        clops_tensor_release(h);
        clops_tensor_release(f);
        clops_tensor_release(y);
        clops_tensor_release(want);
    }
    ct_clear_context();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_softmax_matches_pytorch),
        cmocka_unit_test(test_two_byte_softmax_rows),
        cmocka_unit_test(test_row_strategies_match_the_reference),
        cmocka_unit_test(test_half_to_float_gives_float32),
        cmocka_unit_test(test_layer_norm_rows_match_the_reference),
    };
    return cmocka_run_group_tests(tests, NULL, ct_teardown_group);
}
