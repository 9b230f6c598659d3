/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/test_conv_depthwise.c: the tiled channels-last depthwise kernel of
 * GPUs (cl_kernels/conv.cl conv_depthwise_tiled, picked by
 * ops/conv/conv_launch.c dw_tiled).  A CPU-only CI reaches it by running
 * POCL on the GPU launch policy (CLOPS_CPU_LAUNCH=gridstride, set here
 * before the devices start unless the caller set it): MobileNetV3's
 * depthwise shapes shrunk (3x3/5x5, stride 1/2, odd sizes, channel counts
 * that are not multiples of the kernel's 32-channel block, dilation, 1-D,
 * a batch of tiles in several channel blocks), plain and with fused
 * epilogues (bias, eval batch norm, residual before/after, activations),
 * float32/float16/bfloat16/float64 against the CPU reference, the same
 * bits on a second run, and the direct kernel (CLOPS_CONV_DEPTHWISE=direct)
 * within rounding of the tiled one.
 */
#include <stdlib.h>

#include "clops/ops.h"
#include "core/tensor_impl.h"
#include "support/clops_test.h"

typedef struct dw_case {
    int nsp;
    int64_t N, C, in[2], k[2], stride[2], pad[2], dil[2];
} dw_case;

typedef struct dw_epi {
    bool bias;
    bool bn;      /* eval batch norm: scale, shift, mean, var */
    int residual; /* 0 none, 1 before the activation, 2 after */
    int act;
} dw_epi;

/* A random channels-last tensor of logical shape [N, C, sp...]: a
 * contiguous [N, sp..., C] permuted. */
static clops_tensor *cl_random(clops_device *d, clops_dtype dt, int nsp, int64_t N, int64_t C,
                               const int64_t *sp, uint64_t seed)
{
    int64_t phys[4] = {N}, perm[4] = {0, nsp + 1};
    for (int i = 0; i < nsp; i++) {
        phys[1 + i] = sp[i];
        perm[2 + i] = 1 + i;
    }
    phys[1 + nsp] = C;
    clops_tensor *t = ct_random(d, dt, 2 + nsp, phys, CT_CONTIGUOUS, PW_DOMAIN_SMALL, seed), *v;
    CT_OK(clops_permute(t, perm, 2 + nsp, &v));
    clops_tensor_release(t);
    return v;
}

/* One case on dev (and the CPU device): the op twice (same bits), the
 * reference, and the direct kernel. */
static void run_case(clops_device *dev, const dw_case *c, const dw_epi *e, clops_dtype dt,
                     uint64_t seed)
{
    int n = c->nsp;
    ct_set_case("%dD N=%lld C=%lld in=[%lld,%lld] k=[%lld,%lld] stride=[%lld,%lld] "
                "pad=[%lld,%lld] dil=[%lld,%lld] %s bias %d bn %d residual %d act %d",
                n, (long long)c->N, (long long)c->C, (long long)c->in[0], (long long)c->in[1],
                (long long)c->k[0], (long long)c->k[1], (long long)c->stride[0],
                (long long)c->stride[1], (long long)c->pad[0], (long long)c->pad[1],
                (long long)c->dil[0], (long long)c->dil[1], clops_dtype_name(dt), e->bias, e->bn,
                e->residual, e->act);
    int64_t out[2] = {1, 1}, zero[2] = {0, 0};
    for (int i = 0; i < n; i++)
        out[i] = (c->in[i] + 2 * c->pad[i] - c->dil[i] * (c->k[i] - 1) - 1) / c->stride[i] + 1;
    clops_tensor *x = cl_random(dev, dt, n, c->N, c->C, c->in, seed);
    clops_tensor *w = cl_random(dev, dt, n, c->C, 1, c->k, seed + 1);
    clops_tensor *v[5] = {NULL}, *vc[5] = {NULL};
    bool has[5] = {e->bias, e->bn, e->bn, e->bn, e->bn};
    for (int i = 0; i < 5; i++) {
        if (!has[i])
            continue;
        v[i] = ct_random(dev, dt, 1, &c->C, CT_CONTIGUOUS, PW_DOMAIN_SMALL, seed + 2 + i);
        if (i == 4) { /* var > 0 */
            clops_tensor *a = NULL;
            CT_OK(clops_abs(v[i], &a));
            clops_tensor_release(v[i]);
            CT_OK(clops_add_scalar(a, clops_scalar_float(0.25), clops_scalar_int(1), &v[i]));
            clops_tensor_release(a);
        }
        vc[i] = ct_to_cpu(v[i]);
    }
    clops_tensor *res = e->residual ? cl_random(dev, dt, n, c->N, c->C, out, seed + 9) : NULL;
    clops_tensor *resc = res ? ct_to_cpu(res) : NULL;
    clops_tensor *xc = ct_to_cpu(x), *wc = ct_to_cpu(w);
    clops_tensor *y[3] = {NULL}, *yc = NULL;
    for (int r = 0; r < 3; r++) {
        if (r == 2)
            CT_ASSERT_MSG(setenv("CLOPS_CONV_DEPTHWISE", "direct", 1) == 0, "setenv");
        CT_OK(clops__clops_conv_epilogue(x, w, v[0], c->stride, n, c->pad, n, c->dil, n, false,
                                         zero, n, c->C, v[1], v[2], v[3], v[4], 1e-5, res,
                                         e->act, e->residual == 2, &y[r]));
        if (r == 2)
            CT_ASSERT_MSG(unsetenv("CLOPS_CONV_DEPTHWISE") == 0, "unsetenv");
    }
    CT_OK(clops__clops_conv_epilogue(xc, wc, vc[0], c->stride, n, c->pad, n, c->dil, n, false,
                                     zero, n, c->C, vc[1], vc[2], vc[3], vc[4], 1e-5, resc,
                                     e->act, e->residual == 2, &yc));
    /* sums of up to 25 products below 1, scaled by up to ~4 */
    ct_tol tol = dt == CLOPS_FLOAT32   ? ct_tol_ulp_atol(64, 1e-5)
                 : dt == CLOPS_FLOAT64 ? ct_tol_ulp_atol(64, 1e-12)
                 : dt == CLOPS_FLOAT16 ? ct_tol_ulp_atol(4, 2e-2)
                                       : ct_tol_ulp_atol(4, 1e-1);
    CT_ASSERT_CLOSE(y[0], yc, tol);
    CT_ASSERT_CLOSE(y[1], y[0], CT_TOL_EXACT);
    CT_ASSERT_CLOSE(y[2], y[0], tol);
    CT_ASSERT_MSG(n < 2 || y[0]->strides[1] == 1, "result channel stride %lld",
                  (long long)y[0]->strides[1]);
    clops_tensor *all[] = {x, w, xc, wc, res, resc, y[0], y[1], y[2], yc};
    for (size_t i = 0; i < CT_COUNT(all); i++)
        clops_tensor_release(all[i]);
    for (int i = 0; i < 5; i++) {
        clops_tensor_release(v[i]);
        clops_tensor_release(vc[i]);
    }
}

static void test_tiled_depthwise_matches_the_reference(void **state)
{
    (void)state;
    static const dw_case cases[] = {
        /* nsp N C in k stride pad dil */
        {2, 2, 72, {13, 11}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},   /* 3x3 s1, 2 channel blocks + 8 */
        {2, 1, 40, {15, 17}, {3, 3}, {2, 2}, {1, 1}, {1, 1}},   /* 3x3 s2, odd sizes */
        {2, 2, 33, {9, 12}, {5, 5}, {1, 1}, {2, 2}, {1, 1}},    /* 5x5 s1 */
        {2, 1, 72, {19, 13}, {5, 5}, {2, 2}, {2, 2}, {1, 1}},   /* 5x5 s2 */
        {2, 1, 16, {10, 9}, {3, 3}, {1, 2}, {2, 1}, {2, 1}},    /* dilation, mixed strides */
        {2, 3, 5, {4, 3}, {3, 2}, {1, 1}, {0, 1}, {1, 1}},      /* fewer outputs than a tile */
        {1, 2, 48, {37, 1}, {5, 1}, {2, 1}, {2, 0}, {1, 1}},    /* 1-D */
        {2, 1, 200, {7, 7}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},    /* MobileNet's 7x7 tail */
    };
    static const dw_epi epis[] = {
        {false, false, 0, 0}, {true, false, 0, 0}, {false, true, 0, 3}, /* BN + hardswish */
        {true, true, 1, 1},   {true, false, 2, 2}, {false, true, 0, 8},
    };
    static const clops_dtype dts[] = {CLOPS_FLOAT32, CLOPS_FLOAT16, CLOPS_BFLOAT16,
                                      CLOPS_FLOAT64};
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_opencl_devices(devs, CT_MAX_DEVICES);
    for (int di = 0; di < nd; di++) {
        ct_set_device(devs[di]);
        for (size_t ci = 0; ci < CT_COUNT(cases); ci++)
            for (size_t ti = 0; ti < CT_COUNT(dts); ti++) {
                if (!ct_device_supports(devs[di], dts[ti]))
                    continue;
                const dw_epi *e = &epis[(ci + ti) % CT_COUNT(epis)];
                run_case(devs[di], &cases[ci], e, dts[ti], 4000 + 16 * ci + ti);
            }
    }
    ct_clear_context();
}

int main(void)
{
    /* the GPU launch policy on CPU devices, so POCL runs the tiled kernel */
    if (!getenv("CLOPS_CPU_LAUNCH"))
        setenv("CLOPS_CPU_LAUNCH", "gridstride", 1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tiled_depthwise_matches_the_reference),
    };
    return cmocka_run_group_tests(tests, NULL, ct_teardown_group);
}
