/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/test_reliability.c: the defects of issue 33 found by a careful user
 * and an outside reference, one regression test each, on every device (the
 * CPU device and every OpenCL device, POCL here).
 *
 *   - searchsorted and isin read operands of any layout in logical order
 *     (a transposed `self`, a sorter at a storage offset); a sorter value
 *     outside the boundaries is refused; multinomial reads a transposed
 *     probability tensor by its logical rows;
 *   - native_layer_norm of rows with no element: mean 0, rstd NaN;
 *   - max_pool2d_with_indices of float16/bfloat16 channels-last input;
 *   - a transposed convolution whose output_padding adds positions no
 *     input reaches (they hold the bias);
 *   - constant_pad_nd crops no more than a dimension holds;
 *   - topk of a 0-dim tensor with k = 0: the element and index 0;
 *   - binary_cross_entropy refuses inputs and targets outside [0, 1];
 *   - tril_indices/triu_indices count in closed form (huge requests answer
 *     at once) and list the triangle a brute-force walk lists;
 *   - absurd sizes (padding, dilation, indices, scale factors near INT64_MAX)
 *     give errors, never a result computed from an overflowed size;
 *   - reductions and topk on the CPU device take O(1) extra memory per
 *     output (a peak-RSS measurement in a child process);
 *   - a user-op expression's chain of prefix operators counts toward the
 *     nesting limit (3,000 `!` once overflowed the driver compiler's stack).
 *
 * Outputs that must be written are given as out= tensors filled with a
 * sentinel first, so an unwritten element fails whatever the allocator
 * returned.
 */
#include <math.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>

#include "clops/ops.h"
#include "clops/pointwise.h"
#include "core/debug.h"
#include "support/clops_test.h"

#define I64 CT_I64

extern char **environ;

#if defined(__SANITIZE_ADDRESS__)
/* Under AddressSanitizer (CLOPS_SANITIZE) an absurd allocation aborts
 * unless the allocator may return NULL; tri_indices' 8 TiB request is
 * refused as out of memory here. */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
    return "allocator_may_return_null=1";
}
#endif

/* Seconds of a monotonic clock. */
static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* t's elements (row-major) equal the n int64 values of want. */
static void expect_i64(const clops_tensor *t, const int64_t *want, int64_t n)
{
    CT_ASSERT(t != NULL);
    if (!t)
        return;
    CT_ASSERT_MSG(clops_tensor_numel(t) == n, "numel %lld, expected %lld",
                  (long long)clops_tensor_numel(t), (long long)n);
    int64_t *got = ct_to_host(t);
    for (int64_t i = 0; i < n && clops_tensor_numel(t) == n; i++)
        CT_ASSERT_MSG(got[i] == want[i], "element %lld is %lld, expected %lld", (long long)i,
                      (long long)got[i], (long long)want[i]);
    free(got);
}

/* t's float32 elements (row-major) equal want (NaN matches NaN). */
static void expect_f32(const clops_tensor *t, const float *want, int64_t n)
{
    CT_ASSERT(t != NULL);
    if (!t)
        return;
    CT_ASSERT_MSG(clops_tensor_numel(t) == n, "numel %lld, expected %lld",
                  (long long)clops_tensor_numel(t), (long long)n);
    float *got = ct_to_host(t);
    for (int64_t i = 0; i < n && clops_tensor_numel(t) == n; i++)
        CT_ASSERT_MSG(isnan(want[i]) ? isnan(got[i]) : got[i] == want[i],
                      "element %lld is %g, expected %g", (long long)i, (double)got[i],
                      (double)want[i]);
    free(got);
}

/* A float32 tensor of sizes on dev filled with v. */
static clops_tensor *full_f32(clops_device *dev, int ndim, const int64_t *sizes, double v)
{
    clops_tensor *t = NULL;
    CT_OK(clops_full(dev, CLOPS_FLOAT32, ndim, sizes, clops_scalar_float(v), &t));
    return t;
}

/* --- layouts: operands read in logical order ---------------------------------- */

/* The case: boundaries [0, 10, 20], values [[0, 15], [5, 20], [10, 25]]
 * as a transposed view; PyTorch gives [[0, 2], [1, 2], [1, 3]].  And a
 * sorter that sits at a storage offset. */
static void test_searchsorted_reads_operands_in_logical_order(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_devices(devs, CT_MAX_DEVICES);
    for (int di = 0; di < nd; di++) {
        ct_set_device(devs[di]);
        const int64_t bv[3] = {0, 10, 20}, vv[6] = {0, 15, 5, 20, 10, 25};
        clops_tensor *bd = ct_from_values(devs[di], CLOPS_INT64, 1, I64(3), CT_CONTIGUOUS, bv);
        for (int layout = 0; layout < CT_LAYOUT_COUNT; layout++) {
            if (layout == CT_EXPANDED)
                continue;
            ct_set_case("values %s", ct_layout_name((ct_layout)layout));
            clops_tensor *v =
                ct_from_values(devs[di], CLOPS_INT64, 2, I64(3, 2), (ct_layout)layout, vv);
            clops_tensor *r = NULL;
            CT_OK(clops_searchsorted(bd, v, false, false, NULL, NULL, &r));
            expect_i64(r, I64(0, 2, 1, 2, 1, 3), 6);
            clops_tensor_release(r);
            clops_tensor_release(v);
        }
        /* seq [7, 1, 5, 3] sorted by [1, 3, 2, 0] (a view at offset 1 of
         * [9, 1, 3, 2, 0]): 1 3 5 7; values [0, 4, 8] -> [0, 2, 4]. */
        ct_set_case("sorter at a storage offset, values transposed boundaries");
        const int64_t sv[4] = {7, 1, 5, 3}, base[5] = {9, 1, 3, 2, 0}, q[3] = {0, 4, 8};
        clops_tensor *seq = ct_from_values(devs[di], CLOPS_INT64, 1, I64(4), CT_CONTIGUOUS, sv);
        clops_tensor *sb = ct_from_values(devs[di], CLOPS_INT64, 1, I64(5), CT_CONTIGUOUS, base);
        clops_tensor *sorter = NULL, *qv = NULL, *r = NULL;
        CT_OK(clops_narrow(sb, 0, 1, 4, &sorter));
        qv = ct_from_values(devs[di], CLOPS_INT64, 1, I64(3), CT_CONTIGUOUS, q);
        CT_OK(clops_searchsorted(seq, qv, false, false, NULL, sorter, &r));
        expect_i64(r, I64(0, 2, 4), 3);
        clops_tensor_release(r);
        r = NULL;
        /* N-D boundaries given transposed: rows [0, 10, 20] and [1, 2, 3]. */
        const int64_t b2[6] = {0, 10, 20, 1, 2, 3}, v2[4] = {15, 25, 0, 3};
        clops_tensor *bd2 = ct_from_values(devs[di], CLOPS_INT64, 2, I64(2, 3), CT_TRANSPOSED, b2);
        clops_tensor *vq2 = ct_from_values(devs[di], CLOPS_INT64, 2, I64(2, 2), CT_TRANSPOSED, v2);
        CT_OK(clops_searchsorted(bd2, vq2, false, false, NULL, NULL, &r));
        expect_i64(r, I64(2, 3, 0, 2), 4);
        /* The sorters with values outside [0, 4): PyTorch's error,
         * never a read past the boundaries. */
        const int64_t vals[5] = {8, 6, 8, 0, 8};
        const int64_t badv[3] = {100000000, 9, -1};
        clops_tensor *v5 = ct_from_values(devs[di], CLOPS_INT64, 1, I64(5), CT_CONTIGUOUS, vals);
        for (int i = 0; i < 3; i++) {
            ct_set_case("sorter holding %lld", (long long)badv[i]);
            const int64_t so[4] = {1, 3, 2, badv[i]};
            clops_tensor *bs = ct_from_values(devs[di], CLOPS_INT64, 1, I64(4), CT_CONTIGUOUS, so);
            clops_tensor *rb = NULL;
            CT_STATUS(clops_searchsorted(seq, v5, false, false, NULL, bs, &rb),
                      CLOPS_INDEX_OUT_OF_RANGE);
            CT_ERROR_CONTAINS("sorter index out of range");
            CT_ASSERT(rb == NULL);
            clops_tensor_release(bs);
        }
        clops_tensor_release(v5);
        clops_tensor *all[] = {bd, seq, sb, sorter, qv, r, bd2, vq2};
        for (size_t i = 0; i < CT_COUNT(all); i++)
            clops_tensor_release(all[i]);
    }
    ct_clear_context();
}

/* isin's elements in a transposed layout of another dtype: the answer in
 * logical order. */
static void test_isin_reads_elements_in_logical_order(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_devices(devs, CT_MAX_DEVICES);
    for (int di = 0; di < nd; di++) {
        ct_set_device(devs[di]);
        const int32_t ev[6] = {1, 2, 3, 4, 5, 6};
        const int64_t tv[2] = {2, 6};
        clops_tensor *e = ct_from_values(devs[di], CLOPS_INT32, 2, I64(2, 3), CT_TRANSPOSED, ev);
        clops_tensor *t = ct_from_values(devs[di], CLOPS_INT64, 1, I64(2), CT_CONTIGUOUS, tv);
        clops_tensor *r = NULL, *ri = NULL;
        CT_OK(clops_isin_tensor_tensor(e, t, false, false, &r));
        if (r)
            CT_OK(tensor_to_copy(r, CLOPS_INT64, NULL, &ri));
        expect_i64(ri, I64(0, 1, 0, 0, 0, 1), 6);
        clops_tensor_release(e);
        clops_tensor_release(t);
        clops_tensor_release(r);
        clops_tensor_release(ri);
    }
    ct_clear_context();
}

/* multinomial reads a transposed probability tensor by its logical rows:
 * rows [1, 0, 0] and [0, 1, 0] can only draw 0 and 1 (its host copy once
 * kept the transposed layout and the second row read as [1, 0, 0]). */
static void test_multinomial_reads_rows_in_logical_order(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_devices(devs, CT_MAX_DEVICES);
    for (int di = 0; di < nd; di++) {
        ct_set_device(devs[di]);
        const float pv[6] = {1, 0, 0, 0, 1, 0};
        clops_tensor *p = ct_from_values(devs[di], CLOPS_FLOAT32, 2, I64(2, 3), CT_TRANSPOSED, pv);
        clops_tensor *r = NULL;
        CT_OK(clops_multinomial(p, 1, false, NULL, &r));
        expect_i64(r, I64(0, 1), 2);
        clops_tensor_release(p);
        clops_tensor_release(r);
    }
    ct_clear_context();
}

/* --- outputs always written ---------------------------------------------------- */

/* zeros(3, 0) normalized over [0]: PyTorch's mean 0 and rstd NaN per row,
 * into outputs that start as 7. */
static void test_layer_norm_of_empty_rows_gives_mean_0_and_rstd_nan(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_devices(devs, CT_MAX_DEVICES);
    const float mean[3] = {0, 0, 0}, rstd[3] = {NAN, NAN, NAN};
    for (int di = 0; di < nd; di++) {
        ct_set_device(devs[di]);
        clops_tensor *x = full_f32(devs[di], 2, I64(3, 0), 0);
        clops_tensor *y = full_f32(devs[di], 2, I64(3, 0), 0);
        clops_tensor *m = full_f32(devs[di], 2, I64(3, 1), 7);
        clops_tensor *r = full_f32(devs[di], 2, I64(3, 1), 7);
        CT_OK(clops_native_layer_norm_out(x, I64(0), 1, NULL, NULL, 1e-5, y, m, r));
        expect_f32(m, mean, 3);
        expect_f32(r, rstd, 3);
        clops_tensor *o0 = NULL, *o1 = NULL, *o2 = NULL;
        CT_OK(clops_native_layer_norm(x, I64(0), 1, NULL, NULL, 1e-5, &o0, &o1, &o2));
        expect_f32(o1, mean, 3);
        expect_f32(o2, rstd, 3);
        clops_tensor *all[] = {x, y, m, r, o0, o1, o2};
        for (size_t i = 0; i < CT_COUNT(all); i++)
            clops_tensor_release(all[i]);
    }
    ct_clear_context();
}

/* topk of a 0-dim tensor: its element and index 0 for k 0 and k 1
 * (PyTorch's CPU result; the outputs are 0-dim, never empty). */
static void test_topk_of_a_0_dim_tensor_gives_the_element(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_devices(devs, CT_MAX_DEVICES);
    const float x5[1] = {5.5f};
    for (int di = 0; di < nd; di++) {
        ct_set_device(devs[di]);
        clops_tensor *x = ct_from_values(devs[di], CLOPS_FLOAT32, 0, NULL, CT_CONTIGUOUS, x5);
        for (int64_t k = 0; k <= 1; k++) {
            ct_set_case("k %lld", (long long)k);
            clops_tensor *v = full_f32(devs[di], 0, NULL, -1), *i = NULL;
            CT_OK(clops_full(devs[di], CLOPS_INT64, 0, NULL, clops_scalar_int(-7), &i));
            CT_OK(clops_topk_values_out(x, k, -1, true, true, v, i));
            CT_ASSERT(clops_tensor_ndim(v) == 0 && clops_tensor_ndim(i) == 0);
            expect_f32(v, x5, 1);
            expect_i64(i, I64(0), 1);
            clops_tensor_release(v);
            clops_tensor_release(i);
            v = i = NULL;
            CT_OK(clops_topk(x, k, 0, false, true, &v, &i));
            expect_f32(v, x5, 1);
            expect_i64(i, I64(0), 1);
            clops_tensor_release(v);
            clops_tensor_release(i);
        }
        clops_tensor_release(x);
    }
    ct_clear_context();
}

/* --- memory bounds: nonzero in chunks ------------------------------------------ */

/* The coordinates (row-major, [count, ndim]) of the nonzero float32
 * values of x (NaN counts, -0.0 does not), computed on the host. */
static int64_t nonzero_host(const float *x, int nd, const int64_t *sizes, int64_t *coords)
{
    int64_t n = ct_numel(nd, sizes), count = 0;
    for (int64_t i = 0; i < n; i++) {
        if (x[i] == 0.0f)
            continue;
        for (int64_t d = nd - 1, rem = i; d >= 0; d--) {
            coords[count * nd + d] = rem % sizes[d];
            rem /= sizes[d];
        }
        count++;
    }
    return count;
}

/* nonzero, argwhere and nonzero_static of inputs larger than a chunk of
 * the scan (the index.nonzero_chunk setting makes chunks of 1, 7, 64 and
 * 997 elements: a chunk of whole rows, of part of a row, of several rows,
 * and the default's one scan) give the coordinates computed on the host:
 * float32 with NaN and -0.0 in three layouts, a bool mask, on every
 * device.  Inputs past the chunk run in O(chunk) extra memory
 * (ops/index/index_nonzero.c; test_big caps it past 2^31 elements). */
static void test_nonzero_in_chunks_gives_the_coordinates_of_one_scan(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_devices(devs, CT_MAX_DEVICES);
    const int64_t shapes[3][3] = {{1000, 0, 0}, {6, 5, 11}, {3, 1, 40}};
    const int ranks[3] = {1, 3, 3};
    const int64_t chunks[5] = {1, 7, 64, 997, 0};
    for (int di = 0; di < nd; di++) {
        ct_set_device(devs[di]);
        for (int s = 0; s < 3; s++) {
            int r = ranks[s];
            const int64_t *sz = shapes[s];
            int64_t n = ct_numel(r, sz);
            float *x = malloc(sizeof(float) * (size_t)n);
            int64_t *want = malloc(sizeof(int64_t) * (size_t)(n * r));
            CT_ASSERT(x && want);
            for (int64_t i = 0; x && i < n; i++)
                x[i] = i % 7 == 3 ? NAN : i % 5 == 1 ? -0.0f : (i * 37) % 11 < 4 ? 0.0f : 1.5f;
            int64_t count = x && want ? nonzero_host(x, r, sz, want) : 0;
            for (int lay = 0; x && want && lay < 3; lay++) {
                ct_layout layout = lay == 0 ? CT_CONTIGUOUS : lay == 1 ? CT_TRANSPOSED : CT_SLICED;
                clops_tensor *t = ct_from_values(devs[di], CLOPS_FLOAT32, r, sz, layout, x);
                clops_tensor *b = NULL;
                CT_OK(clops_ne_scalar(t, clops_scalar_float(0), &b));
                for (int c = 0; c < 5; c++) {
                    ct_set_case("shape %d, %s, chunks of %lld", s, ct_layout_name(layout),
                                (long long)chunks[c]);
                    CT_OK(clops_debug_set("index.nonzero_chunk", chunks[c]));
                    clops_tensor *u = NULL, *w = NULL, *z = NULL, *z2 = NULL;
                    CT_OK(clops_nonzero(t, &u));
                    expect_i64(u, want, count * r);
                    CT_OK(clops_argwhere(b, &w));
                    expect_i64(w, want, count * r);
                    /* nonzero_static: the first half of the rows; all of
                     * them and three rows of -5 */
                    int64_t half = count / 2;
                    CT_OK(clops_nonzero_static(t, half, -5, &z));
                    expect_i64(z, want, half * r);
                    CT_OK(clops_nonzero_static(b, count + 3, -5, &z2));
                    int64_t *got = z2 ? ct_to_host(z2) : NULL;
                    CT_ASSERT(z2 && clops_tensor_numel(z2) == (count + 3) * r);
                    for (int64_t i = 0; got && i < (count + 3) * r; i++)
                        CT_ASSERT_MSG(got[i] == (i < count * r ? want[i] : -5),
                                      "nonzero_static element %lld is %lld", (long long)i,
                                      (long long)got[i]);
                    free(got);
                    clops_tensor_release(u);
                    clops_tensor_release(w);
                    clops_tensor_release(z);
                    clops_tensor_release(z2);
                }
                CT_OK(clops_debug_set("index.nonzero_chunk", 0));
                clops_tensor_release(b);
                clops_tensor_release(t);
            }
            free(x);
            free(want);
        }
    }
    ct_clear_context();
}

/* --- kernels that exist / positions that are written --------------------------- */

/* max_pool2d_with_indices of a float16 / bfloat16 channels-last input: the
 * CPU device's values and indices (the POCL program once lacked the
 * channels-last kernel in the half-precision programs). */
static void test_max_pool_of_half_precision_channels_last(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_opencl_devices(devs, CT_MAX_DEVICES);
    const clops_dtype dts[2] = {CLOPS_FLOAT16, CLOPS_BFLOAT16};
    for (int di = 0; di < nd; di++) {
        ct_set_device(devs[di]);
        for (int t = 0; t < 2; t++) {
            if (!ct_device_supports(devs[di], dts[t]))
                continue;
            ct_set_case("%s channels-last", clops_dtype_name(dts[t]));
            /* [2, 5, 6, 3] row-major, seen as [2, 3, 5, 6] channels-last. */
            clops_tensor *nhwc = ct_random(devs[di], dts[t], 4, I64(2, 5, 6, 3), CT_CONTIGUOUS,
                                           PW_DOMAIN_ANY, 33);
            clops_tensor *x = NULL, *xc = NULL;
            CT_OK(clops_permute(nhwc, I64(0, 3, 1, 2), 4, &x));
            xc = ct_to_cpu(x);
            clops_tensor *v = NULL, *i = NULL, *ev = NULL, *ei = NULL;
            CT_OK(clops_max_pool2d_with_indices(x, I64(2, 2), 2, I64(1, 2), 2, I64(1, 0), 2,
                                                I64(1, 1), 2, false, &v, &i));
            CT_OK(clops_max_pool2d_with_indices(xc, I64(2, 2), 2, I64(1, 2), 2, I64(1, 0), 2,
                                                I64(1, 1), 2, false, &ev, &ei));
            if (v && ev) {
                CT_ASSERT_CLOSE(v, ev, CT_TOL_EXACT);
                CT_ASSERT_CLOSE(i, ei, CT_TOL_EXACT);
            }
            clops_tensor *all[] = {nhwc, x, xc, v, i, ev, ei};
            for (size_t j = 0; j < CT_COUNT(all); j++)
                clops_tensor_release(all[j]);
        }
    }
    ct_clear_context();
}

/* conv_transpose1d, kernel 1, stride 1, padding 0, dilation 2,
 * output_padding 1, x = ones(2, 3, 4), w = ones(3, 4, 1): columns 0..3 are 3
 * (plus the bias), column 4 takes no input and holds the bias alone. */
static void test_transposed_conv_output_padding_positions_hold_the_bias(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_devices(devs, CT_MAX_DEVICES);
    for (int di = 0; di < nd; di++) {
        ct_set_device(devs[di]);
        for (int b = 0; b < 2; b++) {
            double bias = b ? 0.5 : 0.0;
            ct_set_case("bias %g", bias);
            clops_tensor *x = full_f32(devs[di], 3, I64(2, 3, 4), 1);
            clops_tensor *w = full_f32(devs[di], 3, I64(3, 4, 1), 1);
            clops_tensor *bt = full_f32(devs[di], 1, I64(4), bias);
            clops_tensor *y = full_f32(devs[di], 3, I64(2, 4, 5), 99), *y2 = NULL;
            float want[40];
            for (int i = 0; i < 40; i++)
                want[i] = (float)((i % 5 == 4 ? 0.0 : 3.0) + bias);
            CT_OK(clops_convolution_out(x, w, bt, I64(1), 1, I64(0), 1, I64(2), 1, true, I64(1),
                                        1, 1, y));
            expect_f32(y, want, 40);
            CT_OK(clops_convolution(x, w, bt, I64(1), 1, I64(0), 1, I64(2), 1, true, I64(1), 1,
                                    1, &y2));
            expect_f32(y2, want, 40);
            clops_tensor *all[] = {x, w, bt, y, y2};
            for (size_t i = 0; i < CT_COUNT(all); i++)
                clops_tensor_release(all[i]);
        }
    }
    ct_clear_context();
}

/* --- argument checks ------------------------------------------------------------ */

/* Negative pads crop at most what the dimension holds, front then back,
 * as PyTorch's narrow() calls do; crops that fit still work. */
static void test_constant_pad_nd_refuses_crops_past_the_dimension(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_devices(devs, CT_MAX_DEVICES);
    for (int di = 0; di < nd; di++) {
        ct_set_device(devs[di]);
        const int32_t one[1] = {5}, three[3] = {1, 2, 3};
        clops_tensor *a = ct_from_values(devs[di], CLOPS_INT32, 1, I64(1), CT_CONTIGUOUS, one);
        clops_tensor *b = ct_from_values(devs[di], CLOPS_INT32, 1, I64(3), CT_CONTIGUOUS, three);
        clops_tensor *r = NULL, *ri = NULL;
        const int64_t bad[][2] = {{2, -2}, {-2, 2}, {-1, -1}, {INT64_MIN, 0}, {0, INT64_MIN}};
        for (size_t i = 0; i < CT_COUNT(bad); i++) {
            ct_set_case("int32 [1] pad [%lld, %lld]", (long long)bad[i][0], (long long)bad[i][1]);
            CT_STATUS(clops_constant_pad_nd(a, bad[i], 2, clops_scalar_int(-3), &r),
                      CLOPS_INVALID_ARGUMENT);
            CT_ERROR_CONTAINS("narrow(): length must be non-negative");
            CT_ERROR_CONTAINS("constant_pad_nd");
            CT_ASSERT(r == NULL);
        }
        ct_set_case("int32 [1] pad [INT64_MAX, 0]");
        CT_ASSERT(clops_constant_pad_nd(a, I64(INT64_MAX, 1), 2, clops_scalar_int(0), &r) !=
                  CLOPS_OK);
        CT_ERROR_CONTAINS("constant_pad_nd");
        ct_set_case("int32 [3] pad [-1, 1] and [-3, 1]");
        CT_OK(clops_constant_pad_nd(b, I64(-1, 1), 2, clops_scalar_int(-3), &r));
        if (r)
            CT_OK(tensor_to_copy(r, CLOPS_INT64, NULL, &ri));
        expect_i64(ri, I64(2, 3, -3), 3);
        clops_tensor_release(r);
        clops_tensor_release(ri);
        r = ri = NULL;
        CT_OK(clops_constant_pad_nd(b, I64(-3, 1), 2, clops_scalar_int(-3), &r));
        if (r)
            CT_OK(tensor_to_copy(r, CLOPS_INT64, NULL, &ri));
        expect_i64(ri, I64(-3), 1);
        clops_tensor *all[] = {a, b, r, ri};
        for (size_t i = 0; i < CT_COUNT(all); i++)
            clops_tensor_release(all[i]);
    }
    ct_clear_context();
}

/* binary_cross_entropy refuses an input or a target outside [0, 1] (the
 * input named first when both are), in every reduction. */
static void test_binary_cross_entropy_refuses_values_outside_0_1(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_devices(devs, CT_MAX_DEVICES);
    const float good[4] = {0.25f, 0.5f, 1.0f, 0.0f}, high[4] = {0.25f, 1.5f, 1.0f, 0.0f},
                neg[4] = {0.25f, 0.5f, -0.5f, 0.0f}, nan4[4] = {0.25f, NAN, 1.0f, 0.0f};
    for (int di = 0; di < nd; di++) {
        ct_set_device(devs[di]);
        clops_tensor *g = ct_from_values(devs[di], CLOPS_FLOAT32, 1, I64(4), CT_CONTIGUOUS, good);
        clops_tensor *h = ct_from_values(devs[di], CLOPS_FLOAT32, 1, I64(4), CT_CONTIGUOUS, high);
        clops_tensor *n = ct_from_values(devs[di], CLOPS_FLOAT32, 1, I64(4), CT_CONTIGUOUS, neg);
        clops_tensor *q = ct_from_values(devs[di], CLOPS_FLOAT32, 1, I64(4), CT_CONTIGUOUS, nan4);
        for (int64_t red = 0; red <= 2; red++) {
            clops_tensor *r = NULL;
            ct_set_case("reduction %lld, target 1.5", (long long)red);
            CT_STATUS(clops_binary_cross_entropy(g, h, NULL, red, &r), CLOPS_INVALID_ARGUMENT);
            CT_ERROR_CONTAINS("all elements of target should be between 0 and 1");
            ct_set_case("reduction %lld, target -0.5", (long long)red);
            CT_STATUS(clops_binary_cross_entropy(g, n, NULL, red, &r), CLOPS_INVALID_ARGUMENT);
            CT_ERROR_CONTAINS("all elements of target should be between 0 and 1");
            ct_set_case("reduction %lld, target NaN", (long long)red);
            CT_STATUS(clops_binary_cross_entropy(g, q, NULL, red, &r), CLOPS_INVALID_ARGUMENT);
            CT_ERROR_CONTAINS("all elements of target should be between 0 and 1");
            ct_set_case("reduction %lld, input 1.5 and target -0.5", (long long)red);
            CT_STATUS(clops_binary_cross_entropy(h, n, NULL, red, &r), CLOPS_INVALID_ARGUMENT);
            CT_ERROR_CONTAINS("all elements of input should be between 0 and 1");
            ct_set_case("reduction %lld, both in range", (long long)red);
            CT_OK(clops_binary_cross_entropy(g, g, NULL, red, &r));
            CT_ASSERT(r != NULL);
            clops_tensor_release(r);
        }
        clops_tensor_release(g);
        clops_tensor_release(h);
        clops_tensor_release(n);
        clops_tensor_release(q);
    }
    ct_clear_context();
}

/* --- tril_indices / triu_indices ----------------------------------------------- */

/* The triangle of a brute-force walk over every (row, col, offset) of a
 * small range, both triangles, on every device. */
static void test_tri_indices_list_the_triangle(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_devices(devs, CT_MAX_DEVICES);
    int64_t want[2 * 64];
    for (int di = 0; di < nd; di++) {
        ct_set_device(devs[di]);
        for (int64_t row = 0; row <= 6; row++)
            for (int64_t col = 0; col <= 6; col++)
                for (int64_t off = -8; off <= 8; off++)
                    for (int lower = 0; lower <= 1; lower++) {
                        if (di > 0 && (row + col + off) % 5 != 0)
                            continue; /* OpenCL devices: a sample */
                        int64_t n = 0;
                        for (int64_t r = 0; r < row; r++)
                            for (int64_t c = 0; c < col; c++)
                                n += lower ? c - r <= off : c - r >= off;
                        int64_t k = 0;
                        for (int64_t r = 0; r < row; r++)
                            for (int64_t c = 0; c < col; c++)
                                if (lower ? c - r <= off : c - r >= off) {
                                    want[k] = r;
                                    want[n + k++] = c;
                                }
                        ct_set_case("%s_indices(%lld, %lld, %lld)", lower ? "tril" : "triu",
                                    (long long)row, (long long)col, (long long)off);
                        clops_tensor *t = NULL;
                        CT_OK((lower ? clops_tril_indices : clops_triu_indices)(
                            row, col, off, CLOPS_INT64, 0, devs[di], NULL, &t));
                        CT_ASSERT(t && clops_tensor_ndim(t) == 2 &&
                                  clops_tensor_size(t, 0) == 2 && clops_tensor_size(t, 1) == n);
                        expect_i64(t, want, 2 * n);
                        clops_tensor_release(t);
                    }
    }
    ct_clear_context();
}

/* Huge requests answer at once: an empty triangle of a 2^16 x 2^16 matrix,
 * offsets far past the matrix, and an 8 TiB result refused as too large
 * for memory (PyTorch would try to allocate it) -- all within seconds on a
 * 2-core machine, where the old row x column loop took minutes. */
static void test_tri_indices_of_huge_matrices_answer_at_once(void **state)
{
    (void)state;
    clops_device *cpu = ct_cpu();
    ct_set_device(cpu);
    double t0 = now_s();
    clops_tensor *t = NULL;
    const int64_t m16 = (int64_t)1 << 16, m20 = (int64_t)1 << 20;
    CT_OK(clops_tril_indices(m16, m16, -2 * m16, CLOPS_INT64, 0, cpu, NULL, &t));
    CT_ASSERT(t && clops_tensor_size(t, 1) == 0);
    clops_tensor_release(t);
    t = NULL;
    CT_OK(clops_triu_indices(m16, m16, 2 * m16, CLOPS_INT64, 0, cpu, NULL, &t));
    CT_ASSERT(t && clops_tensor_size(t, 1) == 0);
    clops_tensor_release(t);
    t = NULL;
    /* The last row only: offset 1 - 2^40 keeps one element. */
    CT_OK(clops_tril_indices((int64_t)1 << 40, 1, 1 - ((int64_t)1 << 40), CLOPS_INT64, 0, cpu,
                             NULL, &t));
    CT_ASSERT(t && clops_tensor_size(t, 1) == 1);
    expect_i64(t, I64(((int64_t)1 << 40) - 1, 0), 2);
    clops_tensor_release(t);
    t = NULL;
    CT_OK(clops_triu_indices(INT64_MAX, INT64_MAX, INT64_MAX - 1, CLOPS_INT64, 0, cpu, NULL, &t));
    CT_ASSERT(t && clops_tensor_size(t, 1) == 1);
    expect_i64(t, I64(0, INT64_MAX - 1), 2);
    clops_tensor_release(t);
    t = NULL;
    /* 2^20 x 2^20: 2^39 + 2^19 coordinates pairs, 8 TiB: more than any
     * machine here has, refused before anything is written (where the
     * kernel overcommits, an allocation that size succeeds). */
    clops_status st = clops_tril_indices(m20, m20, 0, CLOPS_INT64, 0, cpu, NULL, &t);
    CT_ASSERT(st == CLOPS_HOST_OUT_OF_MEMORY || st == CLOPS_OUT_OF_MEMORY);
    CT_ERROR_CONTAINS("tril_indices");
    CT_ASSERT(t == NULL);
    /* A count past int64. */
    CT_STATUS(clops_triu_indices(INT64_MAX, INT64_MAX, INT64_MIN, CLOPS_INT64, 0, cpu, NULL, &t),
              CLOPS_INVALID_SHAPE);
    CT_ERROR_CONTAINS("triu_indices");
    CT_STATUS(clops_tril_indices(-1, 3, 0, CLOPS_INT64, 0, cpu, NULL, &t),
              CLOPS_INVALID_ARGUMENT);
    double took = now_s() - t0;
    CT_ASSERT_MSG(took < 5.0, "took %.2f s", took);
    ct_clear_context();
}

/* --- absurd sizes ---------------------------------------------------------------- */

/* Convolutions whose output size overflows int64 (padding INT64_MAX or
 * 2^62, dilation INT64_MAX, transposed stride INT64_MAX) are refused; the
 * old code returned a [1, 6, 1, 1] result after a signed overflow.  A
 * padding above 2^62 - 1 is refused with PyTorch's message. */
static void test_conv_with_absurd_geometry_is_refused(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_devices(devs, CT_MAX_DEVICES);
    const int64_t big = (int64_t)1 << 62;
    for (int di = 0; di < nd; di++) {
        ct_set_device(devs[di]);
        clops_tensor *x = full_f32(devs[di], 4, I64(1, 3, 4, 4), 1);
        clops_tensor *w = full_f32(devs[di], 4, I64(6, 3, 3, 3), 1);
        clops_tensor *wt = full_f32(devs[di], 4, I64(3, 6, 3, 3), 1);
        const struct {
            int64_t pad, dil, stride;
            bool transposed;
        } cases[] = {{INT64_MAX, 1, 1, false}, {big, 1, 1, false},     {0, INT64_MAX, 1, false},
                     {big / 2, 1, 1, false},   {0, 1, INT64_MAX, true}, {0, INT64_MAX, 1, true},
                     {INT64_MAX, 1, 1, true}};
        for (size_t i = 0; i < CT_COUNT(cases); i++) {
            ct_set_case("%sconvolution padding %lld dilation %lld stride %lld",
                        cases[i].transposed ? "transposed " : "", (long long)cases[i].pad,
                        (long long)cases[i].dil, (long long)cases[i].stride);
            clops_tensor *y = NULL;
            clops_status st = clops_convolution(
                x, cases[i].transposed ? wt : w, NULL, I64(cases[i].stride), 1, I64(cases[i].pad),
                1, I64(cases[i].dil), 1, cases[i].transposed, I64(0), 1, 1, &y);
            CT_ASSERT_MSG(st != CLOPS_OK, "accepted, result of %d dims",
                          y ? clops_tensor_ndim(y) : -1);
            CT_ASSERT(st == CLOPS_INVALID_SHAPE || st == CLOPS_INVALID_ARGUMENT);
            CT_ERROR_CONTAINS("convolution");
            if (cases[i].pad > INT64_MAX / 2) /* PyTorch's bound, its words */
                CT_ERROR_CONTAINS("expected padding to be at most 4611686018427387903");
            clops_tensor_release(y);
        }
        clops_tensor_release(x);
        clops_tensor_release(w);
        clops_tensor_release(wt);
    }
    ct_clear_context();
}

/* index_put_ with index INT64_MAX or INT64_MIN: PyTorch's out-of-bounds
 * error, nothing computed from the index; self unchanged. */
static void test_index_put_with_extreme_indices_is_refused(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_devices(devs, CT_MAX_DEVICES);
    const float zeros[6] = {0, 0, 0, 0, 0, 0};
    for (int di = 0; di < nd; di++) {
        ct_set_device(devs[di]);
        const int64_t extremes[2] = {INT64_MAX, INT64_MIN};
        for (int e = 0; e < 2; e++) {
            ct_set_case("index %lld", (long long)extremes[e]);
            clops_tensor *self = full_f32(devs[di], 2, I64(2, 3), 0);
            clops_tensor *v = full_f32(devs[di], 0, NULL, 1);
            const int64_t iv[2] = {1, extremes[e]};
            clops_tensor *idx = ct_from_values(devs[di], CLOPS_INT64, 1, I64(2), CT_CONTIGUOUS, iv);
            clops_tensor *const ind[2] = {NULL, idx};
            CT_STATUS(clops_index_put_(self, ind, 2, v, e == 1), CLOPS_INDEX_OUT_OF_RANGE);
            CT_ERROR_CONTAINS("out of bounds");
            expect_f32(self, zeros, 6);
            clops_tensor_release(self);
            clops_tensor_release(v);
            clops_tensor_release(idx);
        }
    }
    ct_clear_context();
}

/* pixel_shuffle / pixel_unshuffle with a factor of 2^32 (whose square
 * overflows int64): refused, never a division by a wrapped zero, with
 * PyTorch's message (its check of the square comes first). */
static void test_pixel_shuffle_with_huge_factors_is_refused(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_devices(devs, CT_MAX_DEVICES);
    const int64_t r = (int64_t)1 << 32;
    for (int di = 0; di < nd; di++) {
        ct_set_device(devs[di]);
        clops_tensor *x = full_f32(devs[di], 4, I64(1, 4, 2, 2), 1);
        clops_tensor *e = full_f32(devs[di], 4, I64(1, 1, 0, 0), 1);
        clops_tensor *y = NULL;
        ct_set_case("pixel_shuffle(2^32) of [1, 4, 2, 2]");
        CT_STATUS(clops_pixel_shuffle(x, r, &y), CLOPS_INVALID_SHAPE);
        CT_ERROR_CONTAINS("upscale factor is too large, (upscale_factor)^2 overflowed: "
                          "upscale_factor=4294967296"); /* PyTorch's words */
        ct_set_case("pixel_shuffle(2^32) of [1, 1, 0, 0]");
        CT_STATUS(clops_pixel_shuffle(e, r, &y), CLOPS_INVALID_SHAPE);
        CT_ERROR_CONTAINS("upscale factor is too large");
        ct_set_case("pixel_unshuffle(2^32) of [1, 1, 0, 0]");
        CT_STATUS(clops_pixel_unshuffle(e, r, &y), CLOPS_INVALID_SHAPE);
        CT_ERROR_CONTAINS("pixel_unshuffle");
        ct_set_case("pixel_shuffle(2^31) of [1, 4, 2, 2]");
        CT_STATUS(clops_pixel_shuffle(x, r / 2, &y), CLOPS_INVALID_SHAPE);
        CT_ASSERT(y == NULL);
        clops_tensor_release(x);
        clops_tensor_release(e);
    }
    ct_clear_context();
}

/* --- memory that scales ------------------------------------------------------------ */

/* Elements of the child's uint8 input (32 MiB) and the cap on the extra
 * peak memory of its reductions.  The old CPU reference copied each
 * reduced line into 16 bytes per element (512 MiB here). */
#define PEAK_ELEMS ((int64_t)1 << 25)
#define PEAK_CAP_KIB (16 * 1024)

/* Peak resident memory of this process so far, KiB. */
static long peak_kib(void)
{
    struct rusage ru;
    return getrusage(RUSAGE_SELF, &ru) == 0 ? ru.ru_maxrss : -1;
}

/* The child's side: a 32 MiB uint8 tensor on the CPU device (every page
 * written), then sum, amax, argmax, any, sum over a dim and topk of it
 * (the whole tensor, and along the last dim of a 2-D view); prints
 * the growth of the peak RSS and exits 0 when it stays under the cap (1
 * when a call fails, 3 past the cap). */
static int reduction_peak_child(void)
{
    clops_device *cpu = NULL;
    clops_tensor *x = NULL, *r = NULL;
    if (clops_device_get(0, &cpu) ||
        clops_full(cpu, CLOPS_UINT8, 1, I64(PEAK_ELEMS), clops_scalar_int(3), &x))
        return 1;
    long before = peak_kib();
    clops_status st = clops_sum(x, CLOPS_DTYPE_NONE, &r);
    clops_tensor_release(r);
    r = NULL;
    if (!st)
        st = clops_amax(x, NULL, 0, false, &r);
    clops_tensor_release(r);
    r = NULL;
    if (!st)
        st = clops_argmax(x, NULL, false, &r);
    clops_tensor_release(r);
    r = NULL;
    if (!st)
        st = clops_any(x, &r);
    clops_tensor_release(r);
    r = NULL;
    clops_tensor *x2 = NULL;
    if (!st)
        st = clops_view(x, I64(PEAK_ELEMS / 1024, 1024), 2, &x2);
    if (!st)
        st = clops_sum_dim_intlist(x2, I64(0), 1, false, CLOPS_DTYPE_NONE, &r);
    clops_tensor_release(r);
    r = NULL;
    /* topk selects with a k-element heap per line (it sorted whole lines:
     * 24 bytes an element, 768 MiB here). */
    clops_tensor *ti = NULL;
    if (!st)
        st = clops_topk(x, 5, 0, true, true, &r, &ti);
    clops_tensor_release(r);
    clops_tensor_release(ti);
    r = ti = NULL;
    if (!st)
        st = clops_topk(x2, 3, 1, false, true, &r, &ti);
    clops_tensor_release(r);
    clops_tensor_release(ti);
    clops_tensor_release(x2);
    long grew = peak_kib() - before;
    clops_tensor_release(x);
    clops_shutdown();
    printf("reductions and topk of a %lld-byte uint8 tensor: peak RSS grew by %ld KiB (cap %d KiB)\n",
           (long long)PEAK_ELEMS, grew, PEAK_CAP_KIB);
    if (st)
        return 1;
    return before < 0 || grew > PEAK_CAP_KIB ? 3 : 0;
}

static void test_cpu_reductions_take_o1_extra_memory(void **state)
{
    (void)state;
    char *argv[] = {"test_reliability", "--reduction-peak", NULL};
    pid_t pid;
    int rc = posix_spawn(&pid, "/proc/self/exe", NULL, NULL, argv, environ);
    CT_ASSERT_MSG(rc == 0, "posix_spawn: %s", strerror(rc));
    int status = 0;
    CT_ASSERT(waitpid(pid, &status, 0) == pid);
    CT_ASSERT_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0,
                  "the child %s %d (3: past the memory cap)",
                  WIFEXITED(status) ? "exited" : "died of signal",
                  WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
}

/* --- user-op expressions ------------------------------------------------------------ */

/* A malloc'd expression of n prefix operators op (each followed by sep)
 * before `a`. */
static char *prefix_chain(int n, const char *op)
{
    size_t w = strlen(op);
    char *e = malloc((size_t)n * w + 2);
    CT_ASSERT(e != NULL);
    for (int i = 0; i < n; i++)
        memcpy(e + (size_t)i * w, op, w);
    memcpy(e + (size_t)n * w, "a", 2);
    return e;
}

static void test_prefix_operator_chains_count_toward_the_nesting_limit(void **state)
{
    (void)state;
    const char *ops[3] = {"!", "~", "- "};
    for (int k = 0; k < 3; k++) {
        int len = k < 2 ? 3000 : 2000; /* within the 4096-byte limit */
        ct_set_case("%d '%s'", len, ops[k]);
        char *e = prefix_chain(len, ops[k]);
        char schema[96];
        snprintf(schema, sizeof schema, "rel_chain%d(Tensor self) -> Tensor", k);
        clops_pointwise_def def = {.schema = schema, .expr = e};
        const clops_op *op = NULL;
        CT_STATUS(clops_pointwise_register(&def, &op), CLOPS_INVALID_ARGUMENT);
        CT_ERROR_CONTAINS("prefix operators");
        free(e);
        /* Inside brackets the chain has fewer levels left. */
        ct_set_case("(((...'- ' x 30)))");
        char buf[256];
        snprintf(buf, sizeof buf, "(((%s)))", "- - - - - - - - - - - - - - - - - - - - - - - - - - "
                                              "- - - - a");
        def.expr = buf;
        CT_STATUS(clops_pointwise_register(&def, &op), CLOPS_INVALID_ARGUMENT);
    }
    /* At the limit: 32 negations compile and give a on every OpenCL device; a
     * comment full of dashes does not count. */
    ct_set_case("32 '- ' and a comment of dashes");
    char *e = prefix_chain(CLOPS_POINTWISE_MAX_NESTING, "- ");
    clops_pointwise_def def = {.schema = "rel_chain_at_limit(Tensor self) -> Tensor",
                               .expr = e,
                               .helpers = "/* ------------------------------------------ */\n"
                                          "// ---------------------------------------------\n"};
    const clops_op *op = NULL;
    CT_OK(clops_pointwise_register(&def, &op));
    free(e);
    clops_device *devs[CT_MAX_DEVICES];
    int n = ct_opencl_devices(devs, CT_MAX_DEVICES); /* no ref: OpenCL only */
    for (int k = 0; k < n && op; k++) {
        ct_set_device(devs[k]);
        const float x[4] = {1.0f, -0.5f, 0.25f, 3.0f};
        clops_tensor *t = ct_from_values(devs[k], CLOPS_FLOAT32, 1, I64(4), CT_CONTIGUOUS, x);
        clops_value args[1] = {clops_value_tensor(t)};
        clops_value ret[1];
        CT_OK(clops_call_boxed(op, args, 1, ret, 1));
        expect_f32(ret[0].v.t, x, 4);
        clops_tensor_release(ret[0].v.t);
        clops_tensor_release(t);
    }
    ct_clear_context();
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "--reduction-peak") == 0)
        return reduction_peak_child();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cpu_reductions_take_o1_extra_memory),
        cmocka_unit_test(test_searchsorted_reads_operands_in_logical_order),
        cmocka_unit_test(test_isin_reads_elements_in_logical_order),
        cmocka_unit_test(test_multinomial_reads_rows_in_logical_order),
        cmocka_unit_test(test_layer_norm_of_empty_rows_gives_mean_0_and_rstd_nan),
        cmocka_unit_test(test_topk_of_a_0_dim_tensor_gives_the_element),
        cmocka_unit_test(test_nonzero_in_chunks_gives_the_coordinates_of_one_scan),
        cmocka_unit_test(test_max_pool_of_half_precision_channels_last),
        cmocka_unit_test(test_transposed_conv_output_padding_positions_hold_the_bias),
        cmocka_unit_test(test_constant_pad_nd_refuses_crops_past_the_dimension),
        cmocka_unit_test(test_binary_cross_entropy_refuses_values_outside_0_1),
        cmocka_unit_test(test_tri_indices_list_the_triangle),
        cmocka_unit_test(test_tri_indices_of_huge_matrices_answer_at_once),
        cmocka_unit_test(test_conv_with_absurd_geometry_is_refused),
        cmocka_unit_test(test_index_put_with_extreme_indices_is_refused),
        cmocka_unit_test(test_pixel_shuffle_with_huge_factors_is_refused),
        cmocka_unit_test(test_prefix_operator_chains_count_toward_the_nesting_limit),
    };
    return cmocka_run_group_tests(tests, NULL, ct_teardown_group);
}
