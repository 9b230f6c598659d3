/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/test_pool.c: the pooling and resampling family
 * (dispatch/inventory/pool.yaml): PyTorch's own results on every device
 * (tests/data/golden_pool.json from tests/data/gen_golden_pool.py: ceil_mode
 * windows past the edge, NaN in max pooling, count_include_pad and
 * divisor_override, align_corners, bicubic, backward ops, refusals), every
 * op forward and backward on channels-last (NHWC-strided) inputs of odd
 * sizes against the CPU reference with the same bits on a second run,
 * every backward as the exact adjoint of its forward in float64 on every
 * device (the CPU reference too), zero-size batches, and the error texts.  The layout sweeps over the yaml
 * check hints are the operator suite's (test_check_pool).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "clops/ops.h"
#include "support/clops_test.h"

/* Every golden case on every device. */
static void test_pool_matches_pytorch(void **state)
{
    (void)state;
    ct_replay_golden("golden_pool.json");
}

/* An [N, C, H, W] tensor stored channels-last (a permuted view of an
 * [N, H, W, C] tensor). */
static clops_tensor *nhwc(clops_device *d, const int64_t *nchw, uint64_t seed)
{
    int64_t s[4] = {nchw[0], nchw[2], nchw[3], nchw[1]};
    clops_tensor *t = ct_random(d, CLOPS_FLOAT32, 4, s, CT_CONTIGUOUS, PW_DOMAIN_SMALL, seed);
    clops_tensor *v = NULL;
    CT_OK(clops_permute(t, CT_I64(0, 3, 1, 2), 4, &v));
    clops_tensor_release(t);
    return v;
}

/* The ops of one configuration on device d and on the CPU: the first
 * results of each call, device ones and CPU ones, in out[] / ref[]. */
enum { NRES = 14 };
static int run_all(clops_tensor *x, clops_tensor *x5, clops_tensor **res)
{
    int n = 0;
    clops_tensor *y = NULL, *ix = NULL, *go = NULL, *t = NULL;
    /* max pooling 3x3 stride 2 pad 1 ceil, dilation 2 variant, and backward */
    CT_OK(clops_max_pool2d_with_indices(x, CT_I64(3, 3), 2, CT_I64(2, 2), 2, CT_I64(1, 1), 2,
                                        CT_I64(1, 1), 2, true, &y, &ix));
    res[n++] = y;
    res[n++] = ix;
    /* a channels-last input gives channels-last results, as in PyTorch */
    CT_ASSERT((y->strides[1] == 1) == (x->strides[1] == 1));
    CT_ASSERT((ix->strides[1] == 1) == (x->strides[1] == 1));
    CT_OK(clops_mul_scalar(y, clops_scalar_float(0.5), &go));
    CT_OK(clops_max_pool2d_with_indices_backward(go, x, CT_I64(3, 3), 2, CT_I64(2, 2), 2,
                                                 CT_I64(1, 1), 2, CT_I64(1, 1), 2, true, ix,
                                                 &res[n++]));
    clops_tensor_release(go);
    CT_OK(clops_max_pool2d_with_indices(x, CT_I64(2, 3), 2, CT_I64(1, 2), 2, CT_I64(1, 0), 2,
                                        CT_I64(2, 1), 2, false, &y, &ix));
    CT_OK(clops_max_pool2d_with_indices_backward(y, x, CT_I64(2, 3), 2, CT_I64(1, 2), 2,
                                                 CT_I64(1, 0), 2, CT_I64(2, 1), 2, false, ix,
                                                 &res[n++]));
    clops_tensor_release(y);
    clops_tensor_release(ix);
    /* average pooling, ceil_mode with padding, count_include_pad off */
    CT_OK(clops_avg_pool2d(x, CT_I64(3, 3), 2, CT_I64(2, 2), 2, CT_I64(1, 1), 2, true, false, NULL,
                           &y));
    res[n++] = y;
    CT_OK(clops_avg_pool2d_backward(y, x, CT_I64(3, 3), 2, CT_I64(2, 2), 2, CT_I64(1, 1), 2, true,
                                    false, NULL, &res[n++]));
    /* adaptive pooling to a size that does not divide the input */
    CT_OK(clops__adaptive_avg_pool2d(x, CT_I64(4, 3), 2, &y));
    res[n++] = y;
    CT_OK(clops__adaptive_avg_pool2d_backward(y, x, &res[n++]));
    CT_OK(clops_adaptive_max_pool2d(x, CT_I64(4, 3), 2, &y, &ix));
    CT_OK(clops_adaptive_max_pool2d_backward(y, x, ix, &res[n++]));
    clops_tensor_release(y);
    clops_tensor_release(ix);
    /* upsampling x2 and to odd sizes, forward and backward */
    int64_t os[2] = {x->sizes[2] * 2 + 1, x->sizes[3] * 2};
    int64_t in[4] = {x->sizes[0], x->sizes[1], x->sizes[2], x->sizes[3]};
    CT_OK(clops_upsample_bilinear2d(x, os, 2, false, NULL, NULL, &y));
    res[n++] = y;
    CT_ASSERT((y->strides[1] == 1) == (x->strides[1] == 1));
    CT_OK(clops_upsample_bilinear2d_backward(y, os, 2, in, 4, true, NULL, NULL, &res[n++]));
    CT_OK(clops_upsample_bicubic2d(x, os, 2, true, NULL, NULL, &y));
    CT_OK(clops_upsample_bicubic2d_backward(y, os, 2, in, 4, false, NULL, NULL, &t));
    clops_tensor_release(y);
    res[n++] = t;
    CT_OK(clops_upsample_nearest2d(x, os, 2, NULL, NULL, &y));
    CT_OK(clops_upsample_nearest2d_backward(y, os, 2, in, 4, NULL, NULL, &res[n++]));
    clops_tensor_release(y);
    /* 3-D max pooling */
    CT_OK(clops_max_pool3d_with_indices(x5, CT_I64(2, 3, 2), 3, CT_I64(2, 1, 2), 3,
                                        CT_I64(1, 1, 0), 3, CT_I64(1, 1, 2), 3, true, &y, &ix));
    CT_OK(clops_max_pool3d_with_indices_backward(y, x5, CT_I64(2, 3, 2), 3, CT_I64(2, 1, 2), 3,
                                                 CT_I64(1, 1, 0), 3, CT_I64(1, 1, 2), 3, true, ix,
                                                 &res[n++]));
    clops_tensor_release(y);
    clops_tensor_release(ix);
    return n;
}

/* Every op, forward and backward, on channels-last inputs of odd sizes on
 * every OpenCL device against the CPU reference; a second run gives the
 * same bits. */
static void test_ops_match_the_reference_on_channels_last(void **state)
{
    (void)state;
    /* the last has more (n, c) planes than a 16-core machine has cores: the
     * CPU devices' plane-by-plane kernels there too */
    static const int64_t shapes[][4] = {{2, 3, 9, 8}, {1, 5, 7, 13}, {3, 2, 4, 5}, {4, 5, 7, 6}};
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_opencl_devices(devs, CT_MAX_DEVICES);
    for (int di = 0; di < nd; di++) {
        ct_set_device(devs[di]);
        for (size_t si = 0; si < CT_COUNT(shapes); si++) {
            ct_set_case("pooling ops on channels-last [%lld, %lld, %lld, %lld]",
                        (long long)shapes[si][0], (long long)shapes[si][1],
                        (long long)shapes[si][2], (long long)shapes[si][3]);
            clops_tensor *x = nhwc(devs[di], shapes[si], 21 + si);
            int64_t s5[5] = {shapes[si][0], shapes[si][1], 3, shapes[si][2], shapes[si][3]};
            clops_tensor *x5 =
                ct_random(devs[di], CLOPS_FLOAT32, 5, s5, CT_TRANSPOSED, PW_DOMAIN_SMALL, 5);
            clops_tensor *xc = ct_to_cpu(x), *x5c = ct_to_cpu(x5);
            clops_tensor *a[NRES] = {NULL}, *b[NRES] = {NULL}, *r[NRES] = {NULL};
            int n = run_all(x, x5, a);
            run_all(x, x5, b);
            run_all(xc, x5c, r);
            for (int i = 0; i < n; i++) {
                CT_ASSERT_CLOSE(a[i], r[i], ct_tol_ulp_atol(64, 1e-5));
                CT_ASSERT_CLOSE(a[i], b[i], CT_TOL_EXACT);
                clops_tensor_release(a[i]);
                clops_tensor_release(b[i]);
                clops_tensor_release(r[i]);
            }
            clops_tensor *ts[] = {x, x5, xc, x5c};
            for (size_t i = 0; i < CT_COUNT(ts); i++)
                clops_tensor_release(ts[i]);
        }
    }
    ct_clear_context();
}

/* Upsampling forward and backward with wide rows against the CPU
 * reference: CPU devices take a row's W taps in blocks of 64 outputs
 * (forward) and all at once up to 256 outputs (backward), so widths of 150
 * (three blocks, a ragged one) and 300 (past the backward's table), and a
 * downsampling to 37; at least 16 (n, c) planes, so the CPU devices'
 * plane kernels run on up to 16 cores. */
static void test_upsampling_wide_rows(void **state)
{
    (void)state;
    static const int64_t in[][4] = {{2, 9, 5, 75}, {1, 17, 3, 150}, {2, 8, 6, 90}};
    static const int64_t out[][2] = {{9, 150}, {7, 300}, {4, 37}};
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_opencl_devices(devs, CT_MAX_DEVICES);
    for (int di = 0; di < nd; di++) {
        ct_set_device(devs[di]);
        for (size_t si = 0; si < CT_COUNT(in); si++)
            for (int mode = 0; mode < 3; mode++)
                for (int ac = 0; ac < 2; ac++) {
                    if (mode == 0 && ac)
                        continue;
                    ct_set_case("%s, align_corners=%d, [%lld, %lld, %lld, %lld] to %lld x %lld",
                                mode == 0 ? "nearest" : mode == 1 ? "bilinear" : "bicubic", ac,
                                (long long)in[si][0], (long long)in[si][1],
                                (long long)in[si][2], (long long)in[si][3],
                                (long long)out[si][0], (long long)out[si][1]);
                    clops_tensor *x = ct_random(devs[di], CLOPS_FLOAT32, 4, in[si],
                                                CT_CONTIGUOUS, PW_DOMAIN_SMALL, 60 + si);
                    int64_t os[4] = {in[si][0], in[si][1], out[si][0], out[si][1]};
                    clops_tensor *g = ct_random(devs[di], CLOPS_FLOAT32, 4, os, CT_CONTIGUOUS,
                                                PW_DOMAIN_SMALL, 70 + si);
                    clops_tensor *xc = ct_to_cpu(x), *gc = ct_to_cpu(g);
                    clops_tensor *ys[2] = {NULL, NULL}, *gs[2] = {NULL, NULL};
                    clops_tensor *xs[2] = {x, xc}, *gg[2] = {g, gc};
                    for (int k = 0; k < 2; k++) {
                        if (mode == 0) {
                            CT_OK(clops_upsample_nearest2d(xs[k], out[si], 2, NULL, NULL,
                                                           &ys[k]));
                            CT_OK(clops_upsample_nearest2d_backward(gg[k], out[si], 2, in[si], 4,
                                                                    NULL, NULL, &gs[k]));
                        } else if (mode == 1) {
                            CT_OK(clops_upsample_bilinear2d(xs[k], out[si], 2, ac, NULL, NULL,
                                                            &ys[k]));
                            CT_OK(clops_upsample_bilinear2d_backward(
                                gg[k], out[si], 2, in[si], 4, ac, NULL, NULL, &gs[k]));
                        } else {
                            CT_OK(clops_upsample_bicubic2d(xs[k], out[si], 2, ac, NULL, NULL,
                                                           &ys[k]));
                            CT_OK(clops_upsample_bicubic2d_backward(
                                gg[k], out[si], 2, in[si], 4, ac, NULL, NULL, &gs[k]));
                        }
                    }
                    /* the source coordinate scale * o is taken in float32 on OpenCL
                     * devices (as PyTorch's float kernels): about 1e-5 relative at
                     * o ~ 150; a wrong tap or weight is off by ~0.1 */
                    if (ys[0] && ys[1])
                        CT_ASSERT_CLOSE(ys[0], ys[1], ct_tol_ulp_atol(64, 1e-4));
                    if (gs[0] && gs[1])
                        CT_ASSERT_CLOSE(gs[0], gs[1], ct_tol_ulp_atol(64, 1e-4));
                    clops_tensor *ts[] = {x, g, xc, gc, ys[0], ys[1], gs[0], gs[1]};
                    for (size_t i = 0; i < CT_COUNT(ts); i++)
                        clops_tensor_release(ts[i]);
                }
    }
    ct_clear_context();
}

/* Max pooling forward of NCHW inputs with enough planes for the CPU
 * devices' plane kernel (four outputs of a row at once inside the input,
 * one at a time at the edges): values and indices equal the CPU
 * reference exactly, with NaNs (the last NaN's index wins), an all -inf
 * plane, and windows with dilation and ceil_mode. */
static void test_max_forward_planes_nan_and_edges(void **state)
{
    (void)state;
    enum { N = 3, C = 7, H = 13, W = 21 };
    float *h = malloc(sizeof(float) * N * C * H * W);
    ct_rng r = ct_rng_seeded(9);
    for (int i = 0; i < N * C * H * W; i++) {
        h[i] = (float)ct_rng_uniform(&r);
        if (i % 37 == 5 || i % 53 == 11)
            h[i] = NAN;
        if (i / (H * W) == 4)
            h[i] = -INFINITY;
    }
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_opencl_devices(devs, CT_MAX_DEVICES);
    for (int di = 0; di < nd; di++) {
        ct_set_device(devs[di]);
        clops_tensor *x =
            ct_from_values(devs[di], CLOPS_FLOAT32, 4, CT_I64(N, C, H, W), CT_CONTIGUOUS, h);
        clops_tensor *xc = ct_to_cpu(x);
        for (int k = 0; k < 2; k++) {
            ct_set_case("max_pool2d NCHW [%d, %d, %d, %d], configuration %d", N, C, H, W, k);
            clops_tensor *y[2] = {NULL, NULL}, *ix[2] = {NULL, NULL}, *xs[2] = {x, xc};
            for (int j = 0; j < 2; j++) {
                if (k == 0)
                    CT_OK(clops_max_pool2d_with_indices(xs[j], CT_I64(3, 3), 2, CT_I64(2, 2), 2,
                                                        CT_I64(1, 1), 2, CT_I64(1, 1), 2, false,
                                                        &y[j], &ix[j]));
                else
                    CT_OK(clops_max_pool2d_with_indices(xs[j], CT_I64(2, 3), 2, CT_I64(1, 2), 2,
                                                        CT_I64(1, 1), 2, CT_I64(2, 2), 2, true,
                                                        &y[j], &ix[j]));
            }
            if (y[0] && y[1])
                CT_ASSERT_CLOSE(y[0], y[1], CT_TOL_EXACT);
            if (ix[0] && ix[1])
                CT_ASSERT_CLOSE(ix[0], ix[1], CT_TOL_EXACT);
            clops_tensor *ts[] = {y[0], y[1], ix[0], ix[1]};
            for (size_t i = 0; i < CT_COUNT(ts); i++)
                clops_tensor_release(ts[i]);
        }
        clops_tensor_release(x);
        clops_tensor_release(xc);
    }
    free(h);
    ct_clear_context();
}

/* sum(a * b) of two float64 tensors of one shape, in double on the host. */
static double dot(const clops_tensor *a, const clops_tensor *b)
{
    double *x = ct_to_host(a), *y = ct_to_host(b), s = 0;
    for (int64_t i = 0; i < clops_tensor_numel(a); i++)
        s += x[i] * y[i];
    free(x);
    free(y);
    return s;
}

/* The forward of case k on x, and its backward of g (x for the shapes). */
static void adj_case(int k, clops_tensor *x, clops_tensor *g, clops_tensor **y,
                     clops_tensor **gi)
{
    static clops_tensor *ix; /* the max poolings' indices, forward to backward */
    int64_t in[4] = {x->sizes[0], x->sizes[1], x->sizes[2], x->sizes[3]};
    /* x2-ish, or x9-ish from case 9 on (more outputs per input than the
     * backward kernel caches) */
    const int64_t os[2] = {k < 9 ? 2 * in[2] + 1 : 9 * in[2], k < 9 ? 2 * in[3] - 1 : 10 * in[3]};
    const bool ac = k % 2;
    switch (k) {
    case 0:
        if (!g)
            CT_OK(clops_max_pool2d_with_indices(x, CT_I64(3, 3), 2, CT_I64(2, 2), 2,
                                                CT_I64(1, 1), 2, CT_I64(1, 1), 2, true, y, &ix));
        else
            CT_OK(clops_max_pool2d_with_indices_backward(g, x, CT_I64(3, 3), 2, CT_I64(2, 2), 2,
                                                         CT_I64(1, 1), 2, CT_I64(1, 1), 2, true,
                                                         ix, gi));
        break;
    case 1:
        if (!g)
            CT_OK(clops_avg_pool2d(x, CT_I64(3, 2), 2, CT_I64(2, 1), 2, CT_I64(1, 1), 2, true,
                                   false, NULL, y));
        else
            CT_OK(clops_avg_pool2d_backward(g, x, CT_I64(3, 2), 2, CT_I64(2, 1), 2, CT_I64(1, 1),
                                            2, true, false, NULL, gi));
        break;
    case 2:
        if (!g)
            CT_OK(clops__adaptive_avg_pool2d(x, CT_I64(4, 5), 2, y));
        else
            CT_OK(clops__adaptive_avg_pool2d_backward(g, x, gi));
        break;
    case 3:
        if (!g)
            CT_OK(clops_adaptive_max_pool2d(x, CT_I64(4, 5), 2, y, &ix));
        else
            CT_OK(clops_adaptive_max_pool2d_backward(g, x, ix, gi));
        break;
    case 4:
    case 5:
    case 9:
        if (!g)
            CT_OK(clops_upsample_bilinear2d(x, os, 2, ac, NULL, NULL, y));
        else
            CT_OK(clops_upsample_bilinear2d_backward(g, os, 2, in, 4, ac, NULL, NULL, gi));
        break;
    case 6:
    case 7:
    case 10:
        if (!g)
            CT_OK(clops_upsample_bicubic2d(x, os, 2, ac, NULL, NULL, y));
        else
            CT_OK(clops_upsample_bicubic2d_backward(g, os, 2, in, 4, ac, NULL, NULL, gi));
        break;
    default:
        if (!g)
            CT_OK(clops_upsample_nearest2d(x, os, 2, NULL, NULL, y));
        else
            CT_OK(clops_upsample_nearest2d_backward(g, os, 2, in, 4, NULL, NULL, gi));
        break;
    }
    if (g) {
        clops_tensor_release(ix);
        ix = NULL;
    }
}

/* Each forward is linear in x (the max poolings for their fixed
 * selection), so its backward is its adjoint: sum(f(x) * g) equals
 * sum(x * f'(g)) in float64 on every device, CPU included. */
static void test_backward_is_the_adjoint_of_forward(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_devices(devs, CT_MAX_DEVICES);
    for (int di = 0; di < nd; di++) {
        ct_set_device(devs[di]);
        for (int k = 0; k < 12; k++) {
            ct_set_case("adjoint of case %d", k);
            clops_tensor *x = ct_random(devs[di], CLOPS_FLOAT64, 4, CT_I64(2, 3, 7, 6),
                                        CT_CONTIGUOUS, PW_DOMAIN_SMALL, 40 + (uint64_t)k);
            clops_tensor *y = NULL, *gi = NULL;
            adj_case(k, x, NULL, &y, NULL);
            clops_tensor *g = ct_random(devs[di], CLOPS_FLOAT64, y->ndim, y->sizes,
                                        CT_CONTIGUOUS, PW_DOMAIN_SMALL, 60 + (uint64_t)k);
            adj_case(k, x, g, NULL, &gi);
            double a = dot(y, g), b = dot(x, gi);
            CT_ASSERT_MSG(fabs(a - b) <= 1e-10 * (1 + fabs(a)), "<f(x), g> = %.17g, <x, f'(g)> = %.17g",
                          a, b);
            clops_tensor_release(x);
            clops_tensor_release(y);
            clops_tensor_release(g);
            clops_tensor_release(gi);
        }
    }
    ct_clear_context();
}

/* max pooling's backward adds a gradient only at an index inside its
 * output's window, on every OpenCL device and launch form (64 planes:
 * the CPU devices' scatter kernel; 1 plane: the gather kernel). */
static void test_max_backward_uses_indices_in_the_window_only(void **state)
{
    (void)state;
    /* 2x2 windows, stride 2, of a 4x4 plane: outputs (0,0) (0,1) (1,0)
     * (1,1) name 5 (in), 0 (outside), 15 (outside), 15 (in) */
    static const int64_t ix1[4] = {5, 0, 15, 15};
    static const float go1[4] = {1, 2, 3, 4};
    enum { P = 64 };
    int64_t *ix = malloc(sizeof(int64_t) * 4 * P);
    float *go = malloc(sizeof(float) * 4 * P), *want = calloc(16 * P, sizeof(float));
    for (int p = 0; p < P; p++)
        for (int j = 0; j < 4; j++) {
            ix[p * 4 + j] = ix1[j];
            go[p * 4 + j] = go1[j] + (float)p;
        }
    for (int p = 0; p < P; p++) {
        want[p * 16 + 5] = go[p * 4];
        want[p * 16 + 15] = go[p * 4 + 3];
    }
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_opencl_devices(devs, CT_MAX_DEVICES);
    for (int di = 0; di < nd; di++) {
        ct_set_device(devs[di]);
        for (int planes = 1; planes <= P; planes *= P) {
            ct_set_case("max_pool2d backward, %d planes", planes);
            int64_t n = planes == 1 ? 1 : 2, c = planes / n;
            clops_tensor *x = ct_from_values(devs[di], CLOPS_FLOAT32, 4, CT_I64(n, c, 4, 4),
                                             CT_CONTIGUOUS, want);
            clops_tensor *g = ct_from_values(devs[di], CLOPS_FLOAT32, 4, CT_I64(n, c, 2, 2),
                                             CT_CONTIGUOUS, go);
            clops_tensor *i = ct_from_values(devs[di], CLOPS_INT64, 4, CT_I64(n, c, 2, 2),
                                             CT_CONTIGUOUS, ix);
            clops_tensor *e = ct_from_values(devs[di], CLOPS_FLOAT32, 4, CT_I64(n, c, 4, 4),
                                             CT_CONTIGUOUS, want);
            clops_tensor *gi = NULL;
            CT_OK(clops_max_pool2d_with_indices_backward(g, x, CT_I64(2, 2), 2, CT_I64(2, 2), 2,
                                                         CT_I64(0, 0), 2, CT_I64(1, 1), 2, false,
                                                         i, &gi));
            CT_ASSERT_CLOSE(gi, e, CT_TOL_EXACT);
            clops_tensor *ts[] = {x, g, i, e, gi};
            for (size_t t = 0; t < CT_COUNT(ts); t++)
                clops_tensor_release(ts[t]);
        }
    }
    free(ix);
    free(go);
    free(want);
    ct_clear_context();
}

/* Channels-last max pooling forward (CPU devices: a vector loop over
 * blocks of 64 channels) against the same pooling of a contiguous copy and
 * the CPU reference, values and indices, with two NaNs in one window (the
 * last one's index wins), an all -inf channel (its first tap) and 70
 * channels (two blocks). */
static void test_channels_last_max_forward_nan_and_channel_blocks(void **state)
{
    (void)state;
    enum { C = 70, H = 4, W = 4 };
    float *v = malloc(sizeof(float) * C * H * W); /* [1, H, W, C] */
    for (int i = 0; i < C * H * W; i++)
        v[i] = (float)((i * 37) % 101) - 50.0f;
    for (int h = 0; h < H; h++)
        for (int w = 0; w < W; w++)
            v[(h * W + w) * C + 69] = -INFINITY;
    v[(0 * W + 1) * C + 2] = NAN; /* window (0, 0) of channel 2: taps (0, 1) */
    v[(1 * W + 0) * C + 2] = NAN; /* and (1, 0): index 4 wins */
    v[(3 * W + 3) * C + 65] = NAN;
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_opencl_devices(devs, CT_MAX_DEVICES);
    for (int di = 0; di < nd; di++) {
        ct_set_device(devs[di]);
        clops_tensor *t = NULL, *x = NULL, *xc = NULL, *xcpu = NULL;
        CT_OK(clops_from_host(devs[di], CLOPS_FLOAT32, 4, CT_I64(1, H, W, C), v,
                              sizeof(float) * C * H * W, &t));
        CT_OK(clops_permute(t, CT_I64(0, 3, 1, 2), 4, &x));
        CT_OK(clops_contiguous(x, 0, &xc));
        xcpu = ct_to_cpu(x);
        clops_tensor *y[3] = {NULL}, *ix[3] = {NULL}, *in[3] = {x, xc, xcpu};
        for (int k = 0; k < 3; k++)
            CT_OK(clops_max_pool2d_with_indices(in[k], CT_I64(2, 2), 2, CT_I64(2, 2), 2,
                                                CT_I64(0, 0), 2, CT_I64(1, 1), 2, false, &y[k],
                                                &ix[k]));
        CT_ASSERT(y[0]->strides[1] == 1);
        for (int k = 1; k < 3; k++) {
            CT_ASSERT_CLOSE(y[0], y[k], CT_TOL_EXACT);
            CT_ASSERT_CLOSE(ix[0], ix[k], CT_TOL_EXACT);
        }
        int64_t *got = ct_to_host(ix[0]); /* [1, C, 2, 2] row-major */
        float *gy = ct_to_host(y[0]);
        CT_ASSERT(got[2 * 4] == 4 && isnan(gy[2 * 4]));
        CT_ASSERT(got[69 * 4] == 0 && gy[69 * 4] == -INFINITY);
        CT_ASSERT(got[65 * 4 + 3] == 15 && isnan(gy[65 * 4 + 3]));
        free(got);
        free(gy);
        clops_tensor *ts[] = {t, x, xc, xcpu, y[0], y[1], y[2], ix[0], ix[1], ix[2]};
        for (size_t i = 0; i < CT_COUNT(ts); i++)
            clops_tensor_release(ts[i]);
    }
    free(v);
    ct_clear_context();
}

/* A zero-size batch gives empty results of the right shapes. */
static void test_zero_size_batch(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_devices(devs, CT_MAX_DEVICES);
    for (int di = 0; di < nd; di++) {
        ct_set_device(devs[di]);
        clops_tensor *x = ct_random(devs[di], CLOPS_FLOAT32, 4, CT_I64(0, 3, 6, 5), CT_CONTIGUOUS,
                                    PW_DOMAIN_SMALL, 1);
        clops_tensor *y = NULL, *ix = NULL, *gi = NULL, *u = NULL;
        CT_OK(clops_max_pool2d_with_indices(x, CT_I64(2, 2), 2, NULL, 0, CT_I64(0, 0), 2,
                                            CT_I64(1, 1), 2, false, &y, &ix));
        CT_ASSERT(y->ndim == 4 && y->sizes[0] == 0 && y->sizes[2] == 3 && y->sizes[3] == 2);
        CT_OK(clops_max_pool2d_with_indices_backward(y, x, CT_I64(2, 2), 2, NULL, 0,
                                                     CT_I64(0, 0), 2, CT_I64(1, 1), 2, false, ix,
                                                     &gi));
        CT_ASSERT(gi->ndim == 4 && gi->sizes[0] == 0 && gi->sizes[2] == 6);
        CT_OK(clops_upsample_bilinear2d(x, CT_I64(12, 10), 2, false, NULL, NULL, &u));
        CT_ASSERT(u->sizes[0] == 0 && u->sizes[2] == 12 && u->sizes[3] == 10);
        clops_tensor *ts[] = {x, y, ix, gi, u};
        for (size_t i = 0; i < CT_COUNT(ts); i++)
            clops_tensor_release(ts[i]);
    }
    ct_clear_context();
}

/* Bad arguments are refused with texts naming the op and the sizes. */
static void test_errors_name_the_op(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_devices(devs, CT_MAX_DEVICES);
    ct_set_device(devs[nd - 1]);
    clops_tensor *x = ct_random(devs[nd - 1], CLOPS_FLOAT32, 4, CT_I64(1, 2, 2, 2), CT_CONTIGUOUS,
                                PW_DOMAIN_SMALL, 1);
    clops_tensor *y = NULL, *ix = NULL;
    CT_STATUS(clops_max_pool2d_with_indices(x, CT_I64(3, 3), 2, NULL, 0, CT_I64(0, 0), 2,
                                            CT_I64(1, 1), 2, false, &y, &ix),
              CLOPS_INVALID_SHAPE);
    CT_ERROR_CONTAINS("max_pool2d_with_indices: Given input size: (2x2x2). Calculated output "
                      "size: (2x0x0)");
    CT_STATUS(clops_avg_pool2d(x, CT_I64(2, 2), 2, NULL, 0, CT_I64(2, 2), 2, false, true, NULL,
                               &y),
              CLOPS_INVALID_ARGUMENT);
    CT_ERROR_CONTAINS("avg_pool2d: pad should be at most half");
    CT_STATUS(clops_max_pool2d_with_indices(x, CT_I64(1, 2, 3), 3, NULL, 0, CT_I64(0, 0), 2,
                                            CT_I64(1, 1), 2, false, &y, &ix),
              CLOPS_INVALID_ARGUMENT);
    CT_ERROR_CONTAINS("kernel_size must either be a single int, or a tuple of 2 ints");
    CT_STATUS(clops_pixel_shuffle(x, 2, &y), CLOPS_INVALID_SHAPE);
    CT_ERROR_CONTAINS("divisible by the square of upscale_factor");
    CT_STATUS(clops_upsample_nearest2d(x, CT_I64(0, 3), 2, NULL, NULL, &y), CLOPS_INVALID_SHAPE);
    CT_ERROR_CONTAINS("upsample_nearest2d: Input and output sizes should be greater than 0");
    clops_tensor *xi = NULL;
    CT_OK(clops__to_copy(x, CLOPS_INT32, -1, NULL, NULL, false, -1, &xi));
    CT_STATUS(clops_avg_pool2d(xi, CT_I64(1, 1), 2, NULL, 0, CT_I64(0, 0), 2, false, true, NULL,
                               &y),
              CLOPS_INVALID_DTYPE);
    CT_ERROR_CONTAINS("avg_pool2d: not implemented for 'int32'");
    clops_tensor_release(xi);
    clops_tensor_release(x);
    ct_clear_context();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pool_matches_pytorch),
        cmocka_unit_test(test_ops_match_the_reference_on_channels_last),
        cmocka_unit_test(test_channels_last_max_forward_nan_and_channel_blocks),
        cmocka_unit_test(test_backward_is_the_adjoint_of_forward),
        cmocka_unit_test(test_upsampling_wide_rows),
        cmocka_unit_test(test_max_forward_planes_nan_and_edges),
        cmocka_unit_test(test_max_backward_uses_indices_in_the_window_only),
        cmocka_unit_test(test_zero_size_batch),
        cmocka_unit_test(test_errors_name_the_op),
    };
    return cmocka_run_group_tests(tests, NULL, ct_teardown_group);
}
