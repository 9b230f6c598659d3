/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/test_scan.c: the scan family (cumsum, cumprod, cummax, cummin,
 * logcumsumexp) on every OpenCL device against the CPU reference, and the
 * reference itself against hand-computed results.
 *
 * What each test pins down:
 *   - every op x dtype x layout (contiguous, transposed, step-sliced with an
 *     offset, expanded) x dim, written into guarded outputs of several
 *     layouts, matches the CPU device;
 *   - lengths around the tile sizes (0, 1, 2^k, 2^k +- 1, one more than a
 *     work-group's tile) along rows and along columns;
 *   - a stress test of the multi-launch path (reduce, scan of block sums,
 *     downsweep) at sizes that use hundreds of blocks, rows and columns,
 *     compared exactly on int64 data;
 *   - determinism: two runs give the same bits;
 *   - in-place and out forms, dtype conversion, errors.
 * PyTorch's NaN/tie/signed-zero semantics are in test_scan_golden.c.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clops/ops.h"
#include "ops/scan/scan.h"
#include "support/clops_test.h"

#define I64 CT_I64

static const char *const op_names[SCAN_NOPS] = {"cumsum", "cumprod", "cummax", "cummin",
                                                "logcumsumexp"};

/* Runs op on self along dim; fresh results (ind NULL for single-output ops). */
static clops_status run_op(scan_op op, clops_tensor *self, int64_t dim, clops_tensor **val,
                           clops_tensor **ind)
{
    *ind = NULL;
    switch (op) {
    case SCAN_SUM:
        return clops_cumsum(self, dim, CLOPS_DTYPE_NONE, val);
    case SCAN_PROD:
        return clops_cumprod(self, dim, CLOPS_DTYPE_NONE, val);
    case SCAN_MAX:
        return clops_cummax(self, dim, val, ind);
    case SCAN_MIN:
        return clops_cummin(self, dim, val, ind);
    default:
        return clops_logcumsumexp(self, dim, val);
    }
}

/* Input domain per op: products and exponentials stay finite. */
static pw_domain domain_of(scan_op op)
{
    return op == SCAN_PROD ? PW_DOMAIN_UNIT : op == SCAN_MAX || op == SCAN_MIN ? PW_DOMAIN_ANY
                                                                                 : PW_DOMAIN_SMALL;
}

/* Tolerance of a device scan of length n against the sequential double
 * reference: the device adds in the result's compute type in another order
 * (for logcumsumexp too: results near 0 are differences of numbers near
 * log n, so the floor is absolute). */
static ct_tol tol_of(scan_op op, clops_dtype dt, int64_t n)
{
    if (!clops_dtype_is_floating(dt) || op == SCAN_MAX || op == SCAN_MIN)
        return CT_TOL_EXACT;
    double eps = dt == CLOPS_FLOAT64 ? 2.2e-16 : 1.2e-7;
    double k = (double)(n > 0 ? n : 1);
    if (op == SCAN_SUM || op == SCAN_LOGSUMEXP)
        return ct_tol_ulp_atol(4 + k, 4 * k * 3.0 * eps);
    return ct_tol_ulp_atol(4 + 2 * k, 1e-30);
}

/* Compares op on dev with the CPU device for one input. */
static void check_against_cpu(clops_device *dev, scan_op op, clops_tensor *x, int64_t dim)
{
    clops_tensor *xc = ct_to_cpu(x);
    clops_tensor *ev = NULL, *ei = NULL, *av = NULL, *ai = NULL;
    CT_OK(run_op(op, xc, dim, &ev, &ei));
    CT_OK(run_op(op, x, dim, &av, &ai));
    int d = x->ndim ? (int)((dim + x->ndim) % x->ndim) : 0;
    int64_t n = x->ndim ? x->sizes[d] : 1;
    CT_ASSERT(av->storage->device == dev);
    CT_ASSERT_CLOSE(av, ev, tol_of(op, av->dtype, n));
    if (ei)
        CT_ASSERT_CLOSE(ai, ei, CT_TOL_EXACT);
    clops_tensor_release(xc);
    clops_tensor_release(ev);
    clops_tensor_release(ei);
    clops_tensor_release(av);
    clops_tensor_release(ai);
}

static bool op_takes(scan_op op, clops_dtype dt)
{
    return op != SCAN_LOGSUMEXP || clops_dtype_is_floating(dt);
}

/* Every op, dtype, input layout and dim on every OpenCL device. */
static void test_every_op_dtype_layout(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_opencl_devices(devs, CT_MAX_DEVICES);
    for (int di = 0; di < nd; di++) {
        ct_set_device(devs[di]);
        for (int op = 0; op < SCAN_NOPS; op++)
            for (int dt = 0; dt < CLOPS_DTYPE_COUNT; dt++) {
                if (!op_takes((scan_op)op, (clops_dtype)dt) ||
                    !ct_device_supports(devs[di], (clops_dtype)dt))
                    continue;
                for (int l = 0; l < CT_LAYOUT_COUNT; l++)
                    for (int dim = -1; dim <= 0; dim++) {
                        ct_set_case("%s %s %s dim %d", op_names[op],
                                    clops_dtype_name((clops_dtype)dt),
                                    ct_layout_name((ct_layout)l), dim);
                        clops_tensor *x = ct_random(devs[di], (clops_dtype)dt, 3, I64(3, 37, 5),
                                                    (ct_layout)l, domain_of((scan_op)op),
                                                    (uint64_t)(op * 100 + dt));
                        check_against_cpu(devs[di], (scan_op)op, x, dim);
                        clops_tensor_release(x);
                    }
            }
    }
    ct_clear_context();
}

/* Lengths around the tile sizes, along rows and along columns. */
static void test_lengths(void **state)
{
    (void)state;
    static const int64_t lens[] = {0, 1, 2, 7, 255, 256, 257, 1023, 1024, 1025, 2047, 2048, 2049,
                                   4097, 8191, 65537};
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_opencl_devices(devs, CT_MAX_DEVICES);
    static const scan_op ops[] = {SCAN_SUM, SCAN_MAX};
    static const clops_dtype dts[] = {CLOPS_FLOAT32, CLOPS_INT64};
    for (int di = 0; di < nd; di++) {
        ct_set_device(devs[di]);
        for (size_t li = 0; li < CT_COUNT(lens); li++)
            for (int o = 0; o < 2; o++)
                for (int t = 0; t < 2; t++) {
                    int64_t n = lens[li];
                    ct_set_case("%s %s length %lld", op_names[ops[o]], clops_dtype_name(dts[t]),
                                (long long)n);
                    clops_tensor *x = ct_random(devs[di], dts[t], 1, I64(n), CT_CONTIGUOUS,
                                                domain_of(ops[o]), (uint64_t)n);
                    check_against_cpu(devs[di], ops[o], x, 0);
                    clops_tensor_release(x);
                    if (n > 4097)
                        continue;
                    /* Three rows; three columns. */
                    x = ct_random(devs[di], dts[t], 2, I64(3, n), CT_CONTIGUOUS,
                                  domain_of(ops[o]), (uint64_t)n + 1);
                    check_against_cpu(devs[di], ops[o], x, 1);
                    clops_tensor_release(x);
                    x = ct_random(devs[di], dts[t], 2, I64(n, 3), CT_CONTIGUOUS,
                                  domain_of(ops[o]), (uint64_t)n + 2);
                    check_against_cpu(devs[di], ops[o], x, 0);
                    clops_tensor_release(x);
                }
    }
    ct_clear_context();
}

/* The multi-launch path at sizes with hundreds of blocks: exact on int64. */
static void test_stress_many_blocks(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_opencl_devices(devs, CT_MAX_DEVICES);
    for (int di = 0; di < nd; di++) {
        ct_set_device(devs[di]);
        ct_set_case("cumsum int64 [1048579] (rows, ~512 blocks)");
        clops_tensor *x = ct_random(devs[di], CLOPS_INT64, 1, I64(1048579), CT_CONTIGUOUS,
                                    PW_DOMAIN_ANY, 11);
        check_against_cpu(devs[di], SCAN_SUM, x, 0);
        ct_set_case("cummax int64 [1048579] (rows, index pairs)");
        check_against_cpu(devs[di], SCAN_MAX, x, 0);
        clops_tensor_release(x);
        ct_set_case("cumsum int64 [100003, 3] dim 0 (columns, 1024 chunks)");
        x = ct_random(devs[di], CLOPS_INT64, 2, I64(100003, 3), CT_CONTIGUOUS, PW_DOMAIN_ANY, 12);
        check_against_cpu(devs[di], SCAN_SUM, x, 0);
        ct_set_case("cummin int32 [100003, 3] dim 0 (columns, index pairs)");
        clops_tensor_release(x);
        x = ct_random(devs[di], CLOPS_INT32, 2, I64(100003, 3), CT_TRANSPOSED, PW_DOMAIN_SMALL,
                      13);
        check_against_cpu(devs[di], SCAN_MIN, x, 0);
        clops_tensor_release(x);
        ct_set_case("cumsum float32 [5, 70001] dim 1 (rows, a few blocks each)");
        x = ct_random(devs[di], CLOPS_FLOAT32, 2, I64(5, 70001), CT_SLICED, PW_DOMAIN_SMALL, 14);
        check_against_cpu(devs[di], SCAN_SUM, x, 1);
        clops_tensor_release(x);
    }
    ct_clear_context();
}

/* Two runs give the same bits (fixed tiles, fixed combine order). */
static void test_deterministic(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_opencl_devices(devs, CT_MAX_DEVICES);
    for (int di = 0; di < nd; di++) {
        ct_set_device(devs[di]);
        for (int op = 0; op < SCAN_NOPS; op++) {
            ct_set_case("%s float32 [524309] twice", op_names[op]);
            clops_tensor *x = ct_random(devs[di], CLOPS_FLOAT32, 1, I64(524309), CT_CONTIGUOUS,
                                        domain_of((scan_op)op), 21);
            clops_tensor *a = NULL, *ai = NULL, *b = NULL, *bi = NULL;
            CT_OK(run_op((scan_op)op, x, 0, &a, &ai));
            CT_OK(run_op((scan_op)op, x, 0, &b, &bi));
            void *ha = ct_to_host(a), *hb = ct_to_host(b);
            CT_ASSERT_MSG(memcmp(ha, hb, 524309 * sizeof(float)) == 0, "runs differ");
            free(ha);
            free(hb);
            clops_tensor_release(x);
            clops_tensor_release(a);
            clops_tensor_release(b);
            clops_tensor_release(ai);
            clops_tensor_release(bi);
        }
    }
    ct_clear_context();
}

/* CPU-like OpenCL devices: a scan down the columns of [R, C] (adjacent
 * lines: scan_cols_cpu's vector runs, items straddling a chunk boundary)
 * gives the same bits as the scan along the rows of its transposed copy
 * (scan_cols, a line per item): both fold the same chunks in the same
 * order.  R x C with C not a multiple of 16, and [20000, 40] split into
 * chunks (the sums launch). */
static void test_cpu_columns_equal_rows(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_opencl_devices(devs, CT_MAX_DEVICES);
    const int64_t shapes[][2] = {{1000, 300}, {20000, 40}, {37, 16}};
    const clops_dtype dts[] = {CLOPS_FLOAT32, CLOPS_FLOAT64, CLOPS_FLOAT16, CLOPS_INT32};
    const scan_op ops[] = {SCAN_SUM, SCAN_PROD, SCAN_LOGSUMEXP};
    for (int di = 0; di < nd; di++) {
        if (clops_device_get_info(devs[di])->is_gpu)
            continue; /* GPUs scan rows with another kernel (other tiles) */
        ct_set_device(devs[di]);
        for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; si++)
            for (size_t ti = 0; ti < sizeof dts / sizeof dts[0]; ti++)
                for (size_t oi = 0; oi < sizeof ops / sizeof ops[0]; oi++) {
                    clops_dtype dt = dts[ti];
                    scan_op op = ops[oi];
                    if (!op_takes(op, dt) || !ct_device_supports(devs[di], dt))
                        continue;
                    int64_t R = shapes[si][0], C = shapes[si][1];
                    ct_set_case("%s %s [%lld, %lld] dim 0 vs its transpose dim 1",
                                op_names[op], clops_dtype_name(dt), (long long)R, (long long)C);
                    size_t es = clops_dtype_size(dt);
                    clops_tensor *x = ct_random(devs[di], dt, 2, I64(R, C), CT_CONTIGUOUS,
                                                domain_of(op), 37);
                    unsigned char *hx = ct_to_host(x), *ht = malloc((size_t)(R * C) * es);
                    CT_ASSERT(ht);
                    for (int64_t i = 0; i < R; i++)
                        for (int64_t j = 0; j < C; j++)
                            memcpy(ht + (size_t)(j * R + i) * es, hx + (size_t)(i * C + j) * es,
                                   es);
                    clops_tensor *y = ct_from_values(devs[di], dt, 2, I64(C, R), CT_CONTIGUOUS,
                                                     ht);
                    clops_tensor *a = NULL, *ai = NULL, *b = NULL, *bi = NULL;
                    CT_OK(run_op(op, x, 0, &a, &ai));
                    CT_OK(run_op(op, y, 1, &b, &bi));
                    unsigned char *ha = ct_to_host(a), *hb = ct_to_host(b);
                    size_t eo = clops_dtype_size(clops_tensor_dtype(a)); /* int: int64 sums */
                    int64_t bad = 0;
                    for (int64_t i = 0; i < R; i++)
                        for (int64_t j = 0; j < C; j++)
                            bad += memcmp(ha + (size_t)(i * C + j) * eo,
                                          hb + (size_t)(j * R + i) * eo, eo) != 0;
                    CT_ASSERT_MSG(bad == 0, "%lld of %lld elements differ", (long long)bad,
                                  (long long)(R * C));
                    free(hx);
                    free(ht);
                    free(ha);
                    free(hb);
                    clops_tensor_release(x);
                    clops_tensor_release(y);
                    clops_tensor_release(a);
                    clops_tensor_release(b);
                }
    }
    ct_clear_context();
}

/* The reference against hand-computed results. */
static void test_reference_by_hand(void **state)
{
    (void)state;
    clops_device *cpu = ct_cpu();
    int32_t xi[] = {3, -1, 4, 1, -5, 9};
    clops_tensor *x = ct_from_values(cpu, CLOPS_INT32, 2, I64(2, 3), CT_CONTIGUOUS, xi);
    clops_tensor *r = NULL, *ri = NULL;
    CT_OK(clops_cumsum(x, 1, CLOPS_DTYPE_NONE, &r));
    CT_ASSERT(r->dtype == CLOPS_INT64);
    int64_t want_sum[] = {3, 2, 6, 1, -4, 5};
    CT_ASSERT_CLOSE_HOST(r->storage->host_ptr, want_sum, CLOPS_INT64, 2,
                         I64(2, 3), CT_TOL_EXACT);
    clops_tensor_release(r);
    CT_OK(clops_cumprod(x, 0, CLOPS_DTYPE_NONE, &r));
    int64_t want_prod[] = {3, -1, 4, 3, 5, 36};
    CT_ASSERT_CLOSE_HOST(r->storage->host_ptr, want_prod, CLOPS_INT64, 2, I64(2, 3),
                         CT_TOL_EXACT);
    clops_tensor_release(r);
    CT_OK(clops_cummin(x, 1, &r, &ri));
    int32_t want_min[] = {3, -1, -1, 1, -5, -5};
    int64_t want_mini[] = {0, 1, 1, 0, 1, 1};
    CT_ASSERT_CLOSE_HOST(r->storage->host_ptr, want_min, CLOPS_INT32, 2, I64(2, 3),
                         CT_TOL_EXACT);
    CT_ASSERT_CLOSE_HOST(ri->storage->host_ptr, want_mini, CLOPS_INT64, 2, I64(2, 3),
                         CT_TOL_EXACT);
    clops_tensor_release(r);
    clops_tensor_release(ri);
    clops_tensor_release(x);
}

/* In-place and out forms: dtype conversion, strided outputs, resizing. */
static void test_inplace_and_out(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_devices(devs, CT_MAX_DEVICES);
    for (int di = 0; di < nd; di++) {
        clops_device *dev = devs[di];
        ct_set_device(dev);
        /* cumsum_ on int32 keeps int32 (the int64 result is cast back). */
        ct_set_case("cumsum_ int32");
        clops_tensor *x = ct_random(dev, CLOPS_INT32, 2, I64(4, 300), CT_TRANSPOSED,
                                    PW_DOMAIN_SMALL, 31);
        clops_tensor *want = NULL;
        CT_OK(clops_cumsum(x, 1, CLOPS_INT32, &want));
        CT_OK(clops_cumsum_(x, 1, CLOPS_DTYPE_NONE));
        CT_ASSERT(x->dtype == CLOPS_INT32);
        CT_ASSERT_CLOSE(x, want, CT_TOL_EXACT);
        clops_tensor_release(want);
        clops_tensor_release(x);

        /* cumsum.out with a dtype into a guarded step-sliced view. */
        ct_set_case("cumsum.out float16 -> sliced float32 out with dtype");
        x = ct_random(dev, CLOPS_FLOAT16, 2, I64(6, 50), CT_CONTIGUOUS, PW_DOMAIN_SMALL, 32);
        ct_guarded g = ct_guarded_new(dev, CLOPS_FLOAT32, 2, I64(6, 50), CT_SLICED);
        CT_OK(clops_cumsum_out(x, 0, CLOPS_FLOAT32, g.t));
        CT_GUARDS_INTACT(&g);
        clops_tensor *xc = ct_to_cpu(x);
        CT_OK(clops_cumsum(xc, 0, CLOPS_FLOAT32, &want));
        CT_ASSERT_CLOSE(g.t, want, ct_tol_ulp_atol(8, 1e-5));
        clops_tensor_release(want);
        clops_tensor_release(xc);
        ct_guarded_release(&g);

        /* cummax.out into transposed values and indices. */
        ct_set_case("cummax.out transposed outputs");
        ct_guarded gv = ct_guarded_new(dev, CLOPS_FLOAT16, 2, I64(6, 50), CT_TRANSPOSED);
        ct_guarded gi = ct_guarded_new(dev, CLOPS_INT64, 2, I64(6, 50), CT_SLICED);
        CT_OK(clops_cummax_out(x, 1, gv.t, gi.t));
        CT_GUARDS_INTACT(&gv);
        CT_GUARDS_INTACT(&gi);
        clops_tensor *wv = NULL, *wi = NULL;
        CT_OK(clops_cummax(x, 1, &wv, &wi));
        CT_ASSERT_CLOSE(gv.t, wv, CT_TOL_EXACT);
        CT_ASSERT_CLOSE(gi.t, wi, CT_TOL_EXACT);
        clops_tensor_release(wv);
        clops_tensor_release(wi);
        ct_guarded_release(&gv);
        ct_guarded_release(&gi);

        /* Out tensors of another shape are resized. */
        ct_set_case("cummin.out resizes");
        clops_tensor *v = ct_empty_layout(dev, CLOPS_FLOAT16, 1, I64(0), CT_CONTIGUOUS);
        clops_tensor *i = ct_empty_layout(dev, CLOPS_INT64, 1, I64(3), CT_CONTIGUOUS);
        CT_OK(clops_cummin_out(x, 0, v, i));
        CT_ASSERT(v->ndim == 2 && v->sizes[0] == 6 && v->sizes[1] == 50);
        CT_ASSERT(i->ndim == 2 && i->sizes[0] == 6 && i->sizes[1] == 50);
        clops_tensor_release(v);
        clops_tensor_release(i);
        clops_tensor_release(x);
    }
    ct_clear_context();
}

/* Errors name the op and the problem; nothing leaks. */
static void test_errors(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_devices(devs, CT_MAX_DEVICES);
    for (int di = 0; di < nd; di++) {
        ct_set_device(devs[di]);
        clops_tensor *x = ct_random(devs[di], CLOPS_INT32, 2, I64(3, 4), CT_CONTIGUOUS,
                                    PW_DOMAIN_SMALL, 41);
        clops_tensor *r = NULL, *ri = NULL;
        CT_STATUS(clops_cumsum(x, 2, CLOPS_DTYPE_NONE, &r), CLOPS_INDEX_OUT_OF_RANGE);
        CT_ERROR_CONTAINS("Dimension out of range");
        CT_STATUS(clops_logcumsumexp(x, 0, &r), CLOPS_INVALID_DTYPE);
        CT_ERROR_CONTAINS("logcumsumexp: not implemented for 'int32'");
        clops_tensor *v = ct_empty_layout(devs[di], CLOPS_FLOAT32, 2, I64(3, 4), CT_CONTIGUOUS);
        clops_tensor *i = ct_empty_layout(devs[di], CLOPS_INT64, 2, I64(3, 4), CT_CONTIGUOUS);
        CT_STATUS(clops_cummax_out(x, 0, v, i), CLOPS_INVALID_DTYPE);
        CT_ERROR_CONTAINS("cummax");
        CT_STATUS(clops_cummax(x, -3, &r, &ri), CLOPS_INDEX_OUT_OF_RANGE);
        clops_tensor_release(v);
        clops_tensor_release(i);
        clops_tensor_release(x);
    }
    ct_clear_context();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reference_by_hand),
        cmocka_unit_test(test_every_op_dtype_layout),
        cmocka_unit_test(test_lengths),
        cmocka_unit_test(test_stress_many_blocks),
        cmocka_unit_test(test_deterministic),
        cmocka_unit_test(test_cpu_columns_equal_rows),
        cmocka_unit_test(test_inplace_and_out),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, ct_teardown_group);
}
