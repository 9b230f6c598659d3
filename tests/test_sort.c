/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/test_sort.c: the sort family (sort, argsort, msort, topk,
 * kthvalue, median, nanmedian) on every OpenCL device against the CPU reference.
 *
 * Sorting is exact, so every comparison is bitwise: values, and indices
 * (the order is total: key, then input position, on both sides).  What
 * each test pins down:
 *   - every dtype x input layout x dim x direction, into guarded outputs;
 *   - lengths around the block size (0, 1, 2^k, 2^k +- 1, one more than a
 *     block: the merge path) along rows and columns;
 *   - adversarial data: all equal, sorted, reversed, mostly NaN, signed
 *     zeros and denormals, int64 extremes;
 *   - a stress test of the multi-launch path (block sorts, merge passes,
 *     write-out) over many work-groups, and determinism;
 *   - topk / kthvalue shapes and their errors; median / nanmedian with
 *     NaN-heavy and all-NaN lines.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clops/ops.h"
#include "support/clops_test.h"

#define I64 CT_I64

/* sort along dim on x's device and on the CPU; values and indices equal. */
static void check_sort(clops_tensor *x, int64_t dim, bool desc)
{
    clops_tensor *xc = ct_to_cpu(x);
    clops_tensor *ev = NULL, *ei = NULL, *av = NULL, *ai = NULL;
    CT_OK(clops_sort(xc, dim, desc, &ev, &ei));
    CT_OK(clops_sort(x, dim, desc, &av, &ai));
    if (av && ev) {
        CT_ASSERT_CLOSE(av, ev, CT_TOL_EXACT);
        CT_ASSERT_CLOSE(ai, ei, CT_TOL_EXACT);
    }
    clops_tensor_release(xc);
    clops_tensor_release(ev);
    clops_tensor_release(ei);
    clops_tensor_release(av);
    clops_tensor_release(ai);
}

/* Values and indices (v, i) equal (ev, ei) exactly; releases all four. */
static void expect_same_pair(clops_tensor *v, clops_tensor *i, clops_tensor *ev,
                             clops_tensor *ei)
{
    CT_ASSERT_CLOSE(v, ev, CT_TOL_EXACT);
    CT_ASSERT_CLOSE(i, ei, CT_TOL_EXACT);
    clops_tensor_release(v);
    clops_tensor_release(i);
    clops_tensor_release(ev);
    clops_tensor_release(ei);
}

/* topk of x along dim 1 on x's device and of its CPU copy xc; values and
 * indices equal. */
static void check_topk(clops_tensor *x, clops_tensor *xc, int64_t k, bool largest)
{
    clops_tensor *v = NULL, *i = NULL, *ev = NULL, *ei = NULL;
    CT_OK(clops_topk(x, k, 1, largest, true, &v, &i));
    CT_OK(clops_topk(xc, k, 1, largest, true, &ev, &ei));
    expect_same_pair(v, i, ev, ei);
}

/* Every dtype, layout, dim and direction, on every OpenCL device; out=
 * forms into guarded outputs. */
static void test_every_dtype_layout(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_opencl_devices(devs, CT_MAX_DEVICES);
    for (int di = 0; di < nd; di++) {
        ct_set_device(devs[di]);
        for (int dt = 0; dt < CLOPS_DTYPE_COUNT; dt++) {
            if (!ct_device_supports(devs[di], (clops_dtype)dt))
                continue;
            for (int l = 0; l < CT_LAYOUT_COUNT; l++)
                for (int dim = -1; dim <= 1; dim++)
                    for (int desc = 0; desc < 2; desc++) {
                        ct_set_case("%s %s dim %d %s", clops_dtype_name((clops_dtype)dt),
                                    ct_layout_name((ct_layout)l), dim,
                                    desc ? "descending" : "ascending");
                        clops_tensor *x = ct_random(devs[di], (clops_dtype)dt, 3,
                                                    I64(4, 37, 6), (ct_layout)l, PW_DOMAIN_ANY,
                                                    (uint64_t)(dt * 10 + l));
                        check_sort(x, dim, desc);
                        clops_tensor_release(x);
                    }
            /* out= into guarded transposed / sliced views. */
            ct_set_case("sort.values %s into guarded views", clops_dtype_name((clops_dtype)dt));
            clops_tensor *x = ct_random(devs[di], (clops_dtype)dt, 2, I64(5, 40), CT_CONTIGUOUS,
                                        PW_DOMAIN_ANY, 99);
            ct_guarded gv = ct_guarded_new(devs[di], (clops_dtype)dt, 2, I64(5, 40),
                                           CT_TRANSPOSED);
            ct_guarded gi = ct_guarded_new(devs[di], CLOPS_INT64, 2, I64(5, 40), CT_SLICED);
            CT_OK(clops_sort_values_out(x, 1, true, gv.t, gi.t));
            CT_GUARDS_INTACT(&gv);
            CT_GUARDS_INTACT(&gi);
            clops_tensor *xc = ct_to_cpu(x), *ev = NULL, *ei = NULL;
            CT_OK(clops_sort(xc, 1, true, &ev, &ei));
            CT_ASSERT_CLOSE(gv.t, ev, CT_TOL_EXACT);
            CT_ASSERT_CLOSE(gi.t, ei, CT_TOL_EXACT);
            clops_tensor_release(ev);
            clops_tensor_release(ei);
            clops_tensor_release(xc);
            clops_tensor_release(x);
            ct_guarded_release(&gv);
            ct_guarded_release(&gi);
        }
    }
    ct_clear_context();
}

/* Lengths around the block sizes (2048 on GPUs; 8192 or less, from the
 * local memory, on CPU devices) and their merges, rows and columns. */
static void test_lengths(void **state)
{
    (void)state;
    static const int64_t lens[] = {0,    1,    2,    3,    255,  256,   257,   2047,
                                   2048, 2049, 4095, 4096, 4097, 8192,  8193,  16384,
                                   16385, 20000};
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_opencl_devices(devs, CT_MAX_DEVICES);
    for (int di = 0; di < nd; di++) {
        ct_set_device(devs[di]);
        for (size_t i = 0; i < CT_COUNT(lens); i++) {
            int64_t n = lens[i];
            ct_set_case("float32 length %lld", (long long)n);
            clops_tensor *x = ct_random(devs[di], CLOPS_FLOAT32, 1, I64(n), CT_CONTIGUOUS,
                                        PW_DOMAIN_ANY, (uint64_t)n);
            check_sort(x, 0, false);
            check_sort(x, 0, true);
            clops_tensor_release(x);
            ct_set_case("int16 [%lld, 3] dim 0 (columns)", (long long)n);
            x = ct_random(devs[di], CLOPS_INT16, 2, I64(n, 3), CT_CONTIGUOUS, PW_DOMAIN_SMALL,
                          (uint64_t)n + 1);
            check_sort(x, 0, false);
            clops_tensor_release(x);
        }
    }
    ct_clear_context();
}

/* Adversarial contents. */
static void test_adversarial(void **state)
{
    (void)state;
    enum { N = 5000 };
    float *f = malloc(sizeof(float) * N);
    int64_t *q = malloc(sizeof(int64_t) * N);
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_opencl_devices(devs, CT_MAX_DEVICES);
    static const char *const names[] = {"all equal", "sorted", "reversed", "mostly NaN",
                                        "zeros and denormals"};
    for (int di = 0; di < nd; di++) {
        ct_set_device(devs[di]);
        for (int kind = 0; kind < 5; kind++) {
            for (int i = 0; i < N; i++) {
                switch (kind) {
                case 0:
                    f[i] = 1.5f;
                    break;
                case 1:
                    f[i] = (float)i * 0.25f;
                    break;
                case 2:
                    f[i] = (float)(N - i);
                    break;
                case 3:
                    f[i] = i % 7 == 0 ? (float)(i % 13) : NAN;
                    break;
                default:
                    f[i] = (i % 4 == 0) ? -0.0f : (i % 4 == 1) ? 0.0f
                           : (i % 4 == 2) ? 1e-45f * (float)(i % 5)
                                          : -1e-40f;
                    break;
                }
            }
            ct_set_case("float32 %s", names[kind]);
            clops_tensor *x = ct_from_values(devs[di], CLOPS_FLOAT32, 1, I64(N), CT_CONTIGUOUS, f);
            check_sort(x, 0, false);
            check_sort(x, 0, true);
            clops_tensor_release(x);
        }
        for (int i = 0; i < N; i++)
            q[i] = i % 3 == 0 ? INT64_MIN : i % 3 == 1 ? INT64_MAX : (int64_t)(i % 5) - 2;
        ct_set_case("int64 extremes");
        clops_tensor *x = ct_from_values(devs[di], CLOPS_INT64, 1, I64(N), CT_CONTIGUOUS, q);
        check_sort(x, 0, false);
        check_sort(x, 0, true);
        clops_tensor_release(x);
    }
    free(f);
    free(q);
    ct_clear_context();
}

/* Many work-groups through every phase; two runs give the same bits. */
static void test_stress_and_determinism(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_opencl_devices(devs, CT_MAX_DEVICES);
    for (int di = 0; di < nd; di++) {
        ct_set_device(devs[di]);
        ct_set_case("float32 [300007] (147 blocks, 8 merge passes)");
        clops_tensor *x = ct_random(devs[di], CLOPS_FLOAT32, 1, I64(300007), CT_CONTIGUOUS,
                                    PW_DOMAIN_ANY, 7);
        check_sort(x, 0, false);
        clops_tensor *a = NULL, *ai = NULL, *b = NULL, *bi = NULL;
        CT_OK(clops_sort(x, 0, true, &a, &ai));
        CT_OK(clops_sort(x, 0, true, &b, &bi));
        CT_ASSERT_CLOSE(a, b, CT_TOL_EXACT);
        CT_ASSERT_CLOSE(ai, bi, CT_TOL_EXACT);
        clops_tensor_release(a);
        clops_tensor_release(ai);
        clops_tensor_release(b);
        clops_tensor_release(bi);
        clops_tensor_release(x);
        ct_set_case("int32 [64, 5000] rows (192 work-groups + merges)");
        x = ct_random(devs[di], CLOPS_INT32, 2, I64(64, 5000), CT_TRANSPOSED, PW_DOMAIN_SMALL, 8);
        check_sort(x, 1, false);
        clops_tensor_release(x);
    }
    ct_clear_context();
}

/* topk's per-line selection (radix select in local memory: lines of up to
 * 4096, k up to 256) against the CPU reference's stable sort: tie-heavy
 * and NaN-heavy data, both directions, rows and strided columns, 16- and
 * 8-bit keys, and k past the selection's limit (the sorting path). */
static void test_topk_select(void **state)
{
    (void)state;
    static const clops_dtype dts[] = {CLOPS_FLOAT32, CLOPS_INT32, CLOPS_FLOAT16, CLOPS_INT8};
    static const int64_t ks[] = {1, 50, 256, 257};
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_opencl_devices(devs, CT_MAX_DEVICES);
    for (int di = 0; di < nd; di++) {
        ct_set_device(devs[di]);
        for (size_t t = 0; t < CT_COUNT(dts); t++) {
            for (int dom = 0; dom < 2; dom++) {
                clops_tensor *x = ct_random(devs[di], dts[t], 2, I64(3, 4096), CT_CONTIGUOUS,
                                            dom ? PW_DOMAIN_ANY : PW_DOMAIN_SMALL, 40 + t);
                clops_tensor *xt = NULL;
                CT_OK(clops_transpose(x, 0, 1, &xt));
                clops_tensor *xc = ct_to_cpu(x);
                for (size_t ki = 0; ki < CT_COUNT(ks); ki++)
                    for (int largest = 0; largest < 2; largest++) {
                        ct_set_case("topk %s %s k=%lld %s", clops_dtype_name(dts[t]),
                                    dom ? "any" : "small (ties)", (long long)ks[ki],
                                    largest ? "largest" : "smallest");
                        check_topk(x, xc, ks[ki], largest);
                        if (ki != 1)
                            continue;
                        clops_tensor *v = NULL, *i = NULL, *ev = NULL, *ei = NULL;
                        ct_set_case("topk %s columns of the transposed view k=50",
                                    clops_dtype_name(dts[t]));
                        CT_OK(clops_topk(xt, 50, 0, largest, true, &v, &i));
                        CT_OK(clops_topk(xc, 50, 1, largest, true, &ev, &ei));
                        clops_tensor *evt = NULL, *eit = NULL;
                        CT_OK(clops_transpose(ev, 0, 1, &evt));
                        CT_OK(clops_transpose(ei, 0, 1, &eit));
                        CT_ASSERT_CLOSE(v, evt, CT_TOL_EXACT);
                        CT_ASSERT_CLOSE(i, eit, CT_TOL_EXACT);
                        clops_tensor_release(v);
                        clops_tensor_release(i);
                        clops_tensor_release(ev);
                        clops_tensor_release(ei);
                        clops_tensor_release(evt);
                        clops_tensor_release(eit);
                    }
                clops_tensor_release(x);
                clops_tensor_release(xt);
                clops_tensor_release(xc);
            }
        }
    }
    ct_clear_context();
}

/* topk on CPU devices (a heap per line: any line length and key width, k
 * up to 1024) and the same calls on GPUs (which sort for these cases):
 * 8-byte and 16-bit keys, lines longer than a block, sorted and reversed
 * lines (every element enters the heap), k at and past the heap's limit
 * (the sorting path), against the CPU reference's stable sort. */
static void test_topk_long_lines_and_wide_keys(void **state)
{
    (void)state;
    static const clops_dtype dts[] = {CLOPS_FLOAT64, CLOPS_INT64, CLOPS_BFLOAT16};
    static const int64_t ks[] = {1, 7, 1024, 1025};
    enum { N = 9000 };
    double *ramp = malloc(sizeof(double) * 2 * N);
    for (int i = 0; i < N; i++) {
        ramp[i] = (double)(i / 3);        /* ascending, ties in threes */
        ramp[N + i] = (double)(N - i / 2); /* descending, ties in pairs */
    }
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_opencl_devices(devs, CT_MAX_DEVICES);
    for (int di = 0; di < nd; di++) {
        ct_set_device(devs[di]);
        for (size_t t = 0; t < CT_COUNT(dts); t++) {
            if (!ct_device_supports(devs[di], dts[t]))
                continue;
            for (int data = 0; data < 2; data++) {
                clops_tensor *x = NULL;
                if (data) {
                    /* The ramps in the dtype (bfloat16: the float's top half). */
                    void *h = malloc(sizeof(double) * 2 * N);
                    for (int e = 0; e < 2 * N; e++) {
                        if (dts[t] == CLOPS_FLOAT64)
                            ((double *)h)[e] = ramp[e];
                        else if (dts[t] == CLOPS_INT64)
                            ((int64_t *)h)[e] = (int64_t)ramp[e];
                        else {
                            float f = (float)ramp[e];
                            uint32_t u;
                            memcpy(&u, &f, sizeof u);
                            ((uint16_t *)h)[e] = (uint16_t)(u >> 16);
                        }
                    }
                    x = ct_from_values(devs[di], dts[t], 2, I64(2, N), CT_CONTIGUOUS, h);
                    free(h);
                } else {
                    x = ct_random(devs[di], dts[t], 2, I64(2, N), CT_SLICED, PW_DOMAIN_ANY,
                                  70 + t);
                }
                clops_tensor *xc = ct_to_cpu(x);
                for (size_t ki = 0; ki < CT_COUNT(ks); ki++)
                    for (int largest = 0; largest < 2; largest++) {
                        ct_set_case("topk %s [2, %d] %s k=%lld %s", clops_dtype_name(dts[t]), N,
                                    data ? "ramps" : "random", (long long)ks[ki],
                                    largest ? "largest" : "smallest");
                        check_topk(x, xc, ks[ki], largest);
                    }
                clops_tensor_release(xc);
                clops_tensor_release(x);
            }
        }
    }
    free(ramp);
    ct_clear_context();
}

/* topk and kthvalue: shapes, agreement with the sort, errors. */
static void test_topk_kthvalue(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_devices(devs, CT_MAX_DEVICES);
    for (int di = 0; di < nd; di++) {
        ct_set_device(devs[di]);
        clops_tensor *x = ct_random(devs[di], CLOPS_FLOAT32, 2, I64(6, 3000), CT_SLICED,
                                    PW_DOMAIN_ANY, 5);
        clops_tensor *v = NULL, *i = NULL, *sv = NULL, *si = NULL, *nv = NULL, *ni = NULL;
        ct_set_case("topk k=50 largest");
        CT_OK(clops_topk(x, 50, 1, true, true, &v, &i));
        CT_ASSERT(v->ndim == 2 && v->sizes[0] == 6 && v->sizes[1] == 50);
        CT_OK(clops_sort(x, 1, true, &sv, &si));
        CT_OK(clops_narrow(sv, 1, 0, 50, &nv));
        CT_OK(clops_narrow(si, 1, 0, 50, &ni));
        CT_ASSERT_CLOSE(v, nv, CT_TOL_EXACT);
        CT_ASSERT_CLOSE(i, ni, CT_TOL_EXACT);
        clops_tensor_release(v);
        clops_tensor_release(i);
        clops_tensor_release(nv);
        clops_tensor_release(ni);
        ct_set_case("kthvalue k=7 dim 1 keepdim");
        CT_OK(clops_kthvalue(x, 3000, 1, true, &v, &i));
        CT_ASSERT(v->ndim == 2 && v->sizes[1] == 1);
        clops_tensor *sa = NULL, *sai = NULL;
        CT_OK(clops_sort(x, 1, false, &sa, &sai));
        CT_OK(clops_narrow(sa, 1, 2999, 1, &nv));
        CT_OK(clops_narrow(sai, 1, 2999, 1, &ni));
        CT_ASSERT_CLOSE(v, nv, CT_TOL_EXACT);
        CT_ASSERT_CLOSE(i, ni, CT_TOL_EXACT);
        clops_tensor_release(v);
        clops_tensor_release(i);
        clops_tensor_release(nv);
        clops_tensor_release(ni);
        clops_tensor_release(sa);
        clops_tensor_release(sai);
        clops_tensor_release(sv);
        clops_tensor_release(si);
        ct_set_case("errors");
        CT_STATUS(clops_topk(x, 3001, 1, true, true, &v, &i), CLOPS_INDEX_OUT_OF_RANGE);
        CT_ERROR_CONTAINS("selected index k out of range");
        CT_STATUS(clops_kthvalue(x, 0, 1, false, &v, &i), CLOPS_INDEX_OUT_OF_RANGE);
        CT_ERROR_CONTAINS("kthvalue");
        CT_STATUS(clops_sort(x, 2, false, &v, &i), CLOPS_INDEX_OUT_OF_RANGE);
        ct_set_case("topk k=0 and zero-size");
        CT_OK(clops_topk(x, 0, 1, true, true, &v, &i));
        CT_ASSERT(v->sizes[1] == 0);
        clops_tensor_release(v);
        clops_tensor_release(i);
        clops_tensor_release(x);
    }
    ct_clear_context();
}

/* median / nanmedian against the CPU: rows with many NaN, an all-NaN row,
 * lines longer than a block, the full reduction. */
static void test_median(void **state)
{
    (void)state;
    enum { R = 4, N = 3001 };
    float *h = malloc(sizeof(float) * R * N);
    for (int r = 0; r < R; r++)
        for (int j = 0; j < N; j++)
            h[r * N + j] = r == 3 ? NAN : (j * 7 + r) % 5 == 0 ? NAN : (float)((j * 37) % 101);
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_opencl_devices(devs, CT_MAX_DEVICES);
    clops_tensor *xc = ct_from_values(ct_cpu(), CLOPS_FLOAT32, 2, I64(R, N), CT_CONTIGUOUS, h);
    for (int di = 0; di < nd; di++) {
        ct_set_device(devs[di]);
        clops_tensor *x = ct_from_values(devs[di], CLOPS_FLOAT32, 2, I64(R, N), CT_TRANSPOSED, h);
        for (int nan = 0; nan < 2; nan++) {
            ct_set_case("%s dim 1 keepdim", nan ? "nanmedian" : "median");
            clops_tensor *v = NULL, *i = NULL, *ev = NULL, *ei = NULL;
            if (nan) {
                CT_OK(clops_nanmedian_dim(x, 1, true, &v, &i));
                CT_OK(clops_nanmedian_dim(xc, 1, true, &ev, &ei));
            } else {
                CT_OK(clops_median_dim(x, 1, true, &v, &i));
                CT_OK(clops_median_dim(xc, 1, true, &ev, &ei));
            }
            expect_same_pair(v, i, ev, ei);
            ct_set_case("%s of all elements", nan ? "nanmedian" : "median");
            CT_OK(nan ? clops_nanmedian(x, &v) : clops_median(x, &v));
            CT_OK(nan ? clops_nanmedian(xc, &ev) : clops_median(xc, &ev));
            CT_ASSERT(v->ndim == 0);
            CT_ASSERT_CLOSE(v, ev, CT_TOL_EXACT);
            clops_tensor_release(v);
            clops_tensor_release(ev);
        }
        clops_tensor_release(x);
    }
    clops_tensor_release(xc);
    free(h);
    ct_clear_context();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_dtype_layout),
        cmocka_unit_test(test_lengths),
        cmocka_unit_test(test_adversarial),
        cmocka_unit_test(test_stress_and_determinism),
        cmocka_unit_test(test_topk_kthvalue),
        cmocka_unit_test(test_topk_select),
        cmocka_unit_test(test_topk_long_lines_and_wide_keys),
        cmocka_unit_test(test_median),
    };
    return cmocka_run_group_tests(tests, NULL, ct_teardown_group);
}
