/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/test_loss.c: the loss family (nll_loss and nll_loss2d, mse_loss,
 * binary_cross_entropy, smooth_l1_loss and huber_loss, forward and
 * backward): PyTorch's own results on every device
 * (tests/data/golden_loss.json from tests/data/gen_golden_loss.py, replayed
 * by tests/support/ct_golden.c: ignore_index, weights, all-ignored mean,
 * reductions, 1-D inputs, refusals), the OpenCL kernels against the CPU
 * reference on batches large enough for many partial groups, run-to-run
 * determinism, strided inputs and out= destinations, and the error for an
 * out-of-range target reported by the device-side flag.  The layout sweeps
 * are the operator suite's (test_check_loss).
 */
#include <stdlib.h>
#include <string.h>

#include "clops/ops.h"
#include "support/clops_test.h"

/* Every golden case on every device. */
static void test_loss_matches_pytorch(void **state)
{
    (void)state;
    ct_replay_golden("golden_loss.json");
}

/* int64 targets in [0, C) with every `every`-th one set to ignore. */
static clops_tensor *targets(clops_device *d, int ndim, const int64_t *sizes, int64_t C,
                             int64_t every, int64_t ignore)
{
    int64_t n = ct_numel(ndim, sizes);
    int64_t *v = malloc(sizeof(int64_t) * (size_t)(n ? n : 1));
    for (int64_t i = 0; i < n; i++)
        v[i] = every && i % every == 3 ? ignore : (i * 7919 + i / 3) % C;
    clops_tensor *t = ct_from_values(d, CLOPS_INT64, ndim, sizes, CT_CONTIGUOUS, v);
    free(v);
    return t;
}

/* One problem (input shape, 2-D or nll_loss2d) in every reduction, with
 * and without weight, forward and backward, against the CPU reference;
 * the forward twice for the same bits. */
static void check_problem(clops_device *d, clops_dtype dt, int ndim, const int64_t *xs,
                          bool two_d, ct_tol tol)
{
    int64_t C = xs[1], ts[3] = {xs[0], two_d ? xs[2] : 0, two_d ? xs[3] : 0};
    int tnd = two_d ? 3 : 1;
    clops_tensor *x = ct_random(d, dt, ndim, xs, CT_TRANSPOSED, PW_DOMAIN_SMALL, 5);
    clops_tensor *w = ct_random(d, dt, 1, &C, CT_SLICED, PW_DOMAIN_POSITIVE, 6);
    clops_tensor *t = targets(d, tnd, ts, C, 11, -100);
    clops_tensor *xc = ct_to_cpu(x), *wc = ct_to_cpu(w), *tc = ct_to_cpu(t);
    for (int64_t r = 0; r < 3; r++)
        for (int hw = 0; hw < 2; hw++) {
            ct_set_case("%s %s reduction %lld weight %d", two_d ? "nll_loss2d" : "nll_loss",
                        clops_dtype_name(dt), (long long)r, hw);
            clops_tensor *o[2] = {NULL}, *o2[2] = {NULL}, *oc[2] = {NULL}, *g = NULL, *gc = NULL;
            clops_tensor *go = NULL, *goc = NULL, *gi = NULL, *gic = NULL;
            clops_tensor *wd = hw ? w : NULL, *wdc = hw ? wc : NULL;
            if (two_d) {
                CT_OK(clops_nll_loss2d_forward(x, t, wd, r, -100, &o[0], &o[1]));
                CT_OK(clops_nll_loss2d_forward(x, t, wd, r, -100, &o2[0], &o2[1]));
                CT_OK(clops_nll_loss2d_forward(xc, tc, wdc, r, -100, &oc[0], &oc[1]));
            } else {
                CT_OK(clops_nll_loss_forward(x, t, wd, r, -100, &o[0], &o[1]));
                CT_OK(clops_nll_loss_forward(x, t, wd, r, -100, &o2[0], &o2[1]));
                CT_OK(clops_nll_loss_forward(xc, tc, wdc, r, -100, &oc[0], &oc[1]));
            }
            for (int i = 0; i < 2; i++) {
                CT_ASSERT_CLOSE(o[i], oc[i], tol);
                CT_ASSERT_CLOSE(o[i], o2[i], CT_TOL_EXACT);
            }
            /* The backward, fed with a grad_output of the output's shape. */
            int gnd = clops_tensor_ndim(o[0]);
            int64_t gs[3] = {0, 0, 0};
            for (int i = 0; i < gnd; i++)
                gs[i] = clops_tensor_size(o[0], i);
            go = ct_random(d, dt, gnd, gs, CT_CONTIGUOUS, PW_DOMAIN_SMALL, 8);
            goc = ct_to_cpu(go);
            g = ct_to_cpu(o[1]);
            gc = oc[1];
            if (two_d) {
                CT_OK(clops_nll_loss2d_backward(go, x, t, wd, r, -100, o[1], &gi));
                CT_OK(clops_nll_loss2d_backward(goc, xc, tc, wdc, r, -100, gc, &gic));
            } else {
                CT_OK(clops_nll_loss_backward(go, x, t, wd, r, -100, o[1], &gi));
                CT_OK(clops_nll_loss_backward(goc, xc, tc, wdc, r, -100, gc, &gic));
            }
            CT_ASSERT_CLOSE(gi, gic, tol);
            clops_tensor *rel[] = {o[0], o[1], o2[0], o2[1], oc[0], oc[1], g, go, goc, gi, gic};
            for (size_t i = 0; i < CT_COUNT(rel); i++)
                clops_tensor_release(rel[i]);
        }
    clops_tensor *rel[] = {x, w, t, xc, wc, tc};
    for (size_t i = 0; i < CT_COUNT(rel); i++)
        clops_tensor_release(rel[i]);
}

/* Large batches (many partial groups, chunks of several hundred
 * elements), nll_loss2d, float16 and float64, against the reference. */
static void test_kernels_match_the_reference(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int n = ct_opencl_devices(devs, CT_MAX_DEVICES);
    for (int di = 0; di < n; di++) {
        ct_set_device(devs[di]);
        check_problem(devs[di], CLOPS_FLOAT32, 2, CT_I64(300000, 3), false,
                      ct_tol_ulp_atol(64, 1e-4));
        check_problem(devs[di], CLOPS_FLOAT32, 2, CT_I64(64, 1000), false,
                      ct_tol_ulp_atol(16, 1e-5));
        check_problem(devs[di], CLOPS_FLOAT16, 2, CT_I64(700, 9), false,
                      ct_tol_ulp_atol(4, 1e-3));
        check_problem(devs[di], CLOPS_FLOAT64, 4, CT_I64(3, 5, 17, 9), true,
                      ct_tol_ulp_atol(1024, 1e-10));
        /* a batch of at least one entry per item of a CPU device's grid
         * (up to 64 items on 16 cores): the backward that zeroes grad_input
         * block by block itself */
        check_problem(devs[di], CLOPS_FLOAT32, 4, CT_I64(80, 5, 3, 4), true,
                      ct_tol_ulp_atol(16, 1e-5));
        check_problem(devs[di], CLOPS_BFLOAT16, 4, CT_I64(2, 4, 8, 8), true,
                      ct_tol_ulp_atol(4, 1e-2));
    }
    ct_clear_context();
}

/* The elementwise losses over many partial groups (a transposed input,
 * a broadcast target) in every reduction, forward and backward, against
 * the CPU reference; the reduced forward twice for the same bits. */
static void test_elementwise_kernels_match_the_reference(void **state)
{
    (void)state;
    const int64_t xs[2] = {700, 301};
    clops_device *devs[CT_MAX_DEVICES];
    int n = ct_opencl_devices(devs, CT_MAX_DEVICES);
    for (int di = 0; di < n; di++) {
        ct_set_device(devs[di]);
        clops_device *d = devs[di];
        clops_tensor *x = ct_random(d, CLOPS_FLOAT32, 2, xs, CT_TRANSPOSED, PW_DOMAIN_PROB, 1);
        clops_tensor *y = ct_random(d, CLOPS_FLOAT32, 1, &xs[1], CT_CONTIGUOUS, PW_DOMAIN_PROB, 2);
        clops_tensor *go = ct_random(d, CLOPS_FLOAT32, 2, xs, CT_CONTIGUOUS, PW_DOMAIN_SMALL, 3);
        clops_tensor *xc = ct_to_cpu(x), *yc = ct_to_cpu(y), *goc = ct_to_cpu(go);
        for (int64_t r = 0; r < 3; r++)
            for (int op = 0; op < 4; op++) {
                ct_set_case("elementwise loss %d reduction %lld", op, (long long)r);
                clops_tensor *o = NULL, *o2 = NULL, *oc = NULL, *gi = NULL, *gic = NULL;
                clops_tensor *g = r ? NULL : go, *gc = r ? NULL : goc;
                if (r) {
                    CT_OK(clops_full(d, CLOPS_FLOAT32, 0, NULL, clops_scalar_float(0.7), &g));
                    gc = ct_to_cpu(g);
                }
                for (int k = 0; k < 3; k++) {
                    clops_tensor *a = k == 2 ? xc : x, *b = k == 2 ? yc : y;
                    clops_tensor **res = k == 0 ? &o : k == 1 ? &o2 : &oc;
                    if (op == 0)
                        CT_OK(clops_mse_loss(a, b, r, res));
                    else if (op == 1)
                        CT_OK(clops_binary_cross_entropy(a, b, NULL, r, res));
                    else if (op == 2)
                        CT_OK(clops_smooth_l1_loss(a, b, r, 0.25, res));
                    else
                        CT_OK(clops_huber_loss(a, b, r, 0.25, res));
                }
                CT_ASSERT_CLOSE(o, oc, ct_tol_ulp_atol(64, 1e-5));
                CT_ASSERT_CLOSE(o, o2, CT_TOL_EXACT);
                for (int k = 0; k < 2; k++) {
                    clops_tensor *a = k ? xc : x, *b = k ? yc : y, *gg = k ? gc : g;
                    clops_tensor **res = k ? &gic : &gi;
                    if (op == 0)
                        CT_OK(clops_mse_loss_backward(gg, a, b, r, res));
                    else if (op == 1)
                        CT_OK(clops_binary_cross_entropy_backward(gg, a, b, NULL, r, res));
                    else if (op == 2)
                        CT_OK(clops_smooth_l1_loss_backward(gg, a, b, r, 0.25, res));
                    else
                        CT_OK(clops_huber_loss_backward(gg, a, b, r, 0.25, res));
                }
                CT_ASSERT_CLOSE(gi, gic, ct_tol_ulp_atol(64, 1e-6));
                clops_tensor *rel[] = {o, o2, oc, gi, gic, r ? g : NULL, r ? gc : NULL};
                for (size_t i = 0; i < CT_COUNT(rel); i++)
                    clops_tensor_release(rel[i]);
            }
        clops_tensor *rel[] = {x, y, go, xc, yc, goc};
        for (size_t i = 0; i < CT_COUNT(rel); i++)
            clops_tensor_release(rel[i]);
    }
    ct_clear_context();
}

/* out= into a strided output and total_weight of another dtype, and the
 * backward's grad_input= form into a transposed tensor. */
static void test_out_forms(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int n = ct_devices(devs, CT_MAX_DEVICES);
    for (int di = 0; di < n; di++) {
        ct_set_device(devs[di]);
        clops_device *d = devs[di];
        clops_tensor *x = ct_random(d, CLOPS_FLOAT32, 2, CT_I64(8, 6), CT_CONTIGUOUS,
                                    PW_DOMAIN_SMALL, 1);
        clops_tensor *t = targets(d, 1, CT_I64(8), 6, 5, -100);
        clops_tensor *o = NULL, *tw = NULL, *gi = NULL;
        CT_OK(clops_nll_loss_forward(x, t, NULL, 0, -100, &o, &tw));
        clops_tensor *os = ct_empty_layout(d, CLOPS_FLOAT32, 1, CT_I64(8), CT_SLICED);
        clops_tensor *tws = ct_empty_layout(d, CLOPS_FLOAT64, 0, NULL, CT_CONTIGUOUS);
        CT_OK(clops_nll_loss_forward_output(x, t, NULL, 0, -100, os, tws));
        CT_ASSERT_CLOSE(os, o, CT_TOL_EXACT);
        CT_OK(clops_nll_loss_forward_output(x, t, NULL, 1, -100, os, tws));
        CT_ASSERT(clops_tensor_ndim(os) == 0);
        CT_STATUS(clops_nll_loss_forward_output(x, t, NULL, 1, -100, os, os),
                  CLOPS_MEMORY_OVERLAP);
        clops_tensor *go = ct_random(d, CLOPS_FLOAT32, 0, NULL, CT_CONTIGUOUS, PW_DOMAIN_SMALL, 2);
        clops_tensor *om = NULL, *twf = NULL;
        CT_OK(clops_nll_loss_forward(x, t, NULL, 1, -100, &om, &twf));
        CT_OK(clops_nll_loss_backward(go, x, t, NULL, 1, -100, twf, &gi));
        clops_tensor *gt = ct_empty_layout(d, CLOPS_FLOAT32, 2, CT_I64(8, 6), CT_TRANSPOSED);
        CT_OK(clops_nll_loss_backward_grad_input_out(go, x, t, NULL, 1, -100, twf, gt));
        CT_ASSERT_CLOSE(gt, gi, CT_TOL_EXACT);
        clops_tensor *rel[] = {x, t, o, tw, os, tws, go, om, twf, gi, gt};
        for (size_t i = 0; i < CT_COUNT(rel); i++)
            clops_tensor_release(rel[i]);
    }
    ct_clear_context();
}

/* An out-of-range target is CLOPS_INDEX_OUT_OF_RANGE naming the op and the
 * value, forward (every reduction) and backward, on every device. */
static void test_out_of_range_target_errors(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int n = ct_devices(devs, CT_MAX_DEVICES);
    for (int di = 0; di < n; di++) {
        ct_set_device(devs[di]);
        clops_device *d = devs[di];
        clops_tensor *x = ct_random(d, CLOPS_FLOAT32, 2, CT_I64(2000, 4), CT_CONTIGUOUS,
                                    PW_DOMAIN_SMALL, 1);
        int64_t *v = calloc(2000, sizeof(int64_t));
        v[1234] = 4;
        clops_tensor *t = ct_from_values(d, CLOPS_INT64, 1, CT_I64(2000), CT_CONTIGUOUS, v);
        free(v);
        clops_tensor *o = NULL, *tw = NULL, *gi = NULL;
        for (int64_t r = 0; r < 3; r++) {
            CT_STATUS(clops_nll_loss_forward(x, t, NULL, r, -100, &o, &tw),
                      CLOPS_INDEX_OUT_OF_RANGE);
            CT_ERROR_CONTAINS("nll_loss_forward: Target 4 is out of bounds");
            CT_ASSERT(o == NULL && tw == NULL);
        }
        clops_tensor *go = ct_random(d, CLOPS_FLOAT32, 0, NULL, CT_CONTIGUOUS, PW_DOMAIN_SMALL, 2);
        CT_STATUS(clops_nll_loss_backward(go, x, t, NULL, 2, -100, go, &gi),
                  CLOPS_INDEX_OUT_OF_RANGE);
        CT_ERROR_CONTAINS("nll_loss_backward: Target 4 is out of bounds");
        CT_ASSERT(gi == NULL);
        /* the same value is fine as ignore_index */
        CT_OK(clops_nll_loss_forward(x, t, NULL, 1, 4, &o, &tw));
        clops_tensor *rel[] = {x, t, o, tw, go};
        for (size_t i = 0; i < CT_COUNT(rel); i++)
            clops_tensor_release(rel[i]);
    }
    ct_clear_context();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_loss_matches_pytorch),
        cmocka_unit_test(test_kernels_match_the_reference),
        cmocka_unit_test(test_elementwise_kernels_match_the_reference),
        cmocka_unit_test(test_out_forms),
        cmocka_unit_test(test_out_of_range_target_errors),
    };
    return cmocka_run_group_tests(tests, NULL, ct_teardown_group);
}
