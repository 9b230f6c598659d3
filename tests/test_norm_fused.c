/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/test_norm_fused.c: the fused normalization kernels of OpenCL
 * devices (issue 30; docs/norm.md "Fused kernels") against the CPU device,
 * whose composites of the library's operators and reference statistics are
 * the oracle: layer and rms norm backward (dx in one kernel, dweight/dbias
 * from per-block partials), batch norm training and evaluation forward and
 * backward (per-channel partials, their fold with the running-stat update,
 * one pass), group norm forward with its per-channel affine and backward.
 * Edge cases: rows longer than a work-group, 1-element rows, several
 * normalized dims, channels-last and 2-dim batch norm inputs, channels of
 * many parts, a large eps, no weight/bias; float32, float16, bfloat16 and
 * float64 where the device has it; every result twice for the same bits.
 */
#include <math.h>

#include "clops/ops.h"
#include "support/clops_test.h"

static void release_n(clops_tensor **ts, int n)
{
    for (int i = 0; i < n; i++) {
        clops_tensor_release(ts[i]);
        ts[i] = NULL;
    }
}

/* Tolerance against the CPU device by dtype: one rounding of the result
 * for 2-byte dtypes; float32 sums in another order otherwise. */
static ct_tol tol_of(clops_dtype dt)
{
    if (dt == CLOPS_FLOAT16 || dt == CLOPS_BFLOAT16)
        return ct_tol_ulp_atol(4, 2e-3);
    if (dt == CLOPS_FLOAT64)
        return ct_tol_ulp_atol(64, 1e-10);
    return ct_tol_ulp_atol(256, 1e-4);
}

/* The same for sums over many elements (dweight, dbias): the CPU device's
 * composite sums in another order, with cancellation (float32 results of
 * group norm over 3200 elements differ by up to 4e-4 from float64's). */
static ct_tol tol_sum(clops_dtype dt)
{
    if (dt == CLOPS_FLOAT32)
        return ct_tol_ulp_atol(256, 1e-3);
    return tol_of(dt);
}

/* a and b both NULL, or close (and a, a2 the same bits). */
static void same_and_close(clops_tensor *a, clops_tensor *a2, clops_tensor *ref, ct_tol tol,
                           const char *what)
{
    ct_set_case("%s", what);
    CT_ASSERT((a == NULL) == (ref == NULL));
    CT_ASSERT((a == NULL) == (a2 == NULL));
    if (!a || !ref || !a2)
        return;
    CT_ASSERT_CLOSE(a, ref, tol);
    CT_ASSERT_CLOSE(a, a2, CT_TOL_EXACT);
}

static const clops_dtype dtypes[] = {CLOPS_FLOAT32, CLOPS_FLOAT16, CLOPS_BFLOAT16,
                                     CLOPS_FLOAT64};

/* layer_norm and rms_norm backward on the fused path against the CPU
 * device: statistics from the device's forward, then dx, dweight and
 * dbias twice. */
static void test_row_backward_matches_the_cpu_device(void **state)
{
    (void)state;
    static const struct {
        int ndim, nsl;
        int64_t sizes[3];
    } shapes[] = {{2, 1, {6, 5000}}, {2, 1, {300, 64}}, {2, 1, {17, 1}}, {3, 2, {4, 3, 10}}};
    clops_device *devs[CT_MAX_DEVICES];
    int n = ct_opencl_devices(devs, CT_MAX_DEVICES);
    for (int di = 0; di < n; di++) {
        ct_set_device(devs[di]);
        for (size_t ti = 0; ti < CT_COUNT(dtypes); ti++) {
            clops_dtype dt = dtypes[ti];
            if (!ct_device_supports(devs[di], dt))
                continue;
            for (size_t si = 0; si < CT_COUNT(shapes); si++)
                for (int v = 0; v < 4; v++) {
                    bool rms = v >= 2, affine = (v & 1) == 0;
                    int nd = shapes[si].ndim, nsl = shapes[si].nsl;
                    const int64_t *sz = shapes[si].sizes, *ns = sz + nd - nsl;
                    ct_set_case("%s %s shape %zu %s", rms ? "rms_norm" : "layer_norm",
                                clops_dtype_name(dt), si, affine ? "affine" : "no affine");
                    clops_tensor *x = ct_random(devs[di], dt, nd, sz,
                                                si == 1 ? CT_TRANSPOSED : CT_CONTIGUOUS,
                                                PW_DOMAIN_SMALL, 61 + si);
                    clops_tensor *g = ct_random(devs[di], dt, nd, sz, CT_CONTIGUOUS,
                                                PW_DOMAIN_SMALL, 71 + si);
                    clops_tensor *w = affine ? ct_random(devs[di], dt, nsl, ns, CT_CONTIGUOUS,
                                                         PW_DOMAIN_SMALL, 81)
                                             : NULL;
                    clops_tensor *b = affine && !rms ? ct_random(devs[di], dt, nsl, ns,
                                                                 CT_CONTIGUOUS,
                                                                 PW_DOMAIN_SMALL, 82)
                                                     : NULL;
                    clops_tensor *f[3] = {NULL}, *r[3] = {NULL}, *r2[3] = {NULL},
                                 *rc[3] = {NULL};
                    if (rms)
                        CT_OK(clops__fused_rms_norm(x, ns, nsl, w, NULL, &f[0], &f[2]));
                    else
                        CT_OK(clops_native_layer_norm(x, ns, nsl, w, b, 1e-5, &f[0], &f[1],
                                                      &f[2]));
                    clops_tensor *xc = ct_to_cpu(x), *gc = ct_to_cpu(g);
                    clops_tensor *wc = w ? ct_to_cpu(w) : NULL, *bc = b ? ct_to_cpu(b) : NULL;
                    clops_tensor *mc = f[1] ? ct_to_cpu(f[1]) : NULL, *sc = ct_to_cpu(f[2]);
                    const bool mask[3] = {true, true, true};
                    if (rms) {
                        CT_OK(clops__fused_rms_norm_backward(g, x, ns, nsl, f[2], w, mask, 2,
                                                             &r[0], &r[1]));
                        CT_OK(clops__fused_rms_norm_backward(g, x, ns, nsl, f[2], w, mask, 2,
                                                             &r2[0], &r2[1]));
                        CT_OK(clops__fused_rms_norm_backward(gc, xc, ns, nsl, sc, wc, mask, 2,
                                                             &rc[0], &rc[1]));
                    } else {
                        CT_OK(clops_native_layer_norm_backward(g, x, ns, nsl, f[1], f[2], w, b,
                                                               mask, 3, &r[0], &r[1], &r[2]));
                        CT_OK(clops_native_layer_norm_backward(g, x, ns, nsl, f[1], f[2], w, b,
                                                               mask, 3, &r2[0], &r2[1],
                                                               &r2[2]));
                        CT_OK(clops_native_layer_norm_backward(gc, xc, ns, nsl, mc, sc, wc, bc,
                                                               mask, 3, &rc[0], &rc[1],
                                                               &rc[2]));
                    }
                    if (!rms && affine) {
                        /* output_mask asking for dweight only: dx and dbias None */
                        const bool m1[3] = {false, true, false};
                        clops_tensor *p[3] = {NULL};
                        CT_OK(clops_native_layer_norm_backward(g, x, ns, nsl, f[1], f[2], w, b,
                                                               m1, 3, &p[0], &p[1], &p[2]));
                        ct_set_case("dweight alone");
                        CT_ASSERT(p[0] == NULL && p[2] == NULL && p[1] != NULL);
                        if (p[1])
                            CT_ASSERT_CLOSE(p[1], r[1], CT_TOL_EXACT);
                        release_n(p, 3);
                    }
                    static const char *const names[3] = {"dx", "dweight", "dbias"};
                    for (int i = 0; i < 3; i++)
                        same_and_close(r[i], r2[i], rc[i], i ? tol_sum(dt) : tol_of(dt),
                                       names[i]);
                    clops_tensor *ts[] = {x, g, w, b, xc, gc, wc, bc, mc, sc};
                    release_n(ts, (int)CT_COUNT(ts));
                    release_n(f, 3);
                    release_n(r, 3);
                    release_n(r2, 3);
                    release_n(rc, 3);
                }
        }
    }
    ct_clear_context();
}

/* x of shape sizes [N, C, *] on dev: row-major, or channels-last (a
 * permuted view of a row-major [N, *, C] tensor). */
static clops_tensor *bn_input(clops_device *dev, clops_dtype dt, int nd, const int64_t *sizes,
                              bool last, uint64_t seed)
{
    if (!last)
        return ct_random(dev, dt, nd, sizes, CT_CONTIGUOUS, PW_DOMAIN_SMALL, seed);
    int64_t ps[4], perm[4];
    ps[0] = sizes[0];
    for (int i = 2; i < nd; i++)
        ps[i - 1] = sizes[i];
    ps[nd - 1] = sizes[1];
    perm[0] = 0;
    perm[1] = nd - 1;
    for (int i = 2; i < nd; i++)
        perm[i] = i - 1;
    clops_tensor *base = ct_random(dev, dt, nd, ps, CT_CONTIGUOUS, PW_DOMAIN_SMALL, seed),
                 *v = NULL;
    CT_OK(clops_permute(base, perm, nd, &v));
    clops_tensor_release(base);
    return v;
}

/* batch_norm training and evaluation, forward and backward, against the
 * CPU device: the output, save_mean/save_invstd, the running stats updated
 * in place, dx/dweight/dbias; twice for the same bits. */
static void test_batch_norm_matches_the_cpu_device(void **state)
{
    (void)state;
    static const struct {
        int ndim;
        int64_t sizes[4];
        bool last;
    } shapes[] = {{4, {4, 3, 5, 5}, false},
                  {2, {6, 5}, false},
                  {4, {3, 4, 70, 70}, false},
                  {4, {2, 5, 6, 7}, true}};
    clops_device *devs[CT_MAX_DEVICES];
    int n = ct_opencl_devices(devs, CT_MAX_DEVICES);
    for (int di = 0; di < n; di++) {
        ct_set_device(devs[di]);
        for (size_t ti = 0; ti < CT_COUNT(dtypes); ti++) {
            clops_dtype dt = dtypes[ti];
            if (!ct_device_supports(devs[di], dt))
                continue;
            /* float32 parameters for 2-byte inputs (mixed, as autocast runs them) */
            clops_dtype pt = dt == CLOPS_FLOAT64 ? CLOPS_FLOAT64 : CLOPS_FLOAT32;
            for (size_t si = 0; si < CT_COUNT(shapes); si++)
                for (int v = 0; v < 4; v++) {
                    bool train = v < 2 || si == 0, affine = (v & 1) == 0;
                    double eps = v == 3 ? 0.5 : 1e-5;
                    if (si == 0 && v >= 2)
                        train = v == 2;
                    int nd = shapes[si].ndim;
                    const int64_t *sz = shapes[si].sizes, C = sz[1];
                    ct_set_case("batch_norm %s %s shape %zu %s eps %g", train ? "train" : "eval",
                                clops_dtype_name(dt), si, affine ? "affine" : "no affine", eps);
                    clops_tensor *x[2], *g[2], *w[2] = {NULL}, *b[2] = {NULL}, *rm[2], *rv[2];
                    clops_tensor *o[2][3] = {{NULL}}, *o2[3] = {NULL}, *bo[2][3] = {{NULL}},
                                 *bo2[3] = {NULL}, *rm2 = NULL, *rv2 = NULL;
                    x[0] = bn_input(devs[di], dt, nd, sz, shapes[si].last, 91 + si);
                    g[0] = ct_random(devs[di], dt, nd, sz, CT_CONTIGUOUS, PW_DOMAIN_SMALL, 95);
                    if (affine) {
                        w[0] = ct_random(devs[di], pt, 1, &C, CT_SLICED, PW_DOMAIN_SMALL, 96);
                        b[0] = ct_random(devs[di], pt, 1, &C, CT_CONTIGUOUS, PW_DOMAIN_SMALL,
                                         97);
                    }
                    rm[0] = ct_random(devs[di], pt, 1, &C, CT_CONTIGUOUS, PW_DOMAIN_SMALL, 98);
                    rv[0] = ct_random(devs[di], pt, 1, &C, CT_CONTIGUOUS, PW_DOMAIN_POSITIVE,
                                      99);
                    clops_tensor **all[6] = {x, g, w, b, rm, rv};
                    for (int k = 0; k < 6; k++)
                        all[k][1] = all[k][0] ? ct_to_cpu(all[k][0]) : NULL;
                    CT_OK(clops_clone(rm[0], -1, &rm2));
                    CT_OK(clops_clone(rv[0], -1, &rv2));
                    const bool mask[3] = {true, true, true};
                    for (int k = 0; k < 2; k++) {
                        CT_OK(clops_native_batch_norm(x[k], w[k], b[k], rm[k], rv[k], train,
                                                      0.1, eps, &o[k][0], &o[k][1], &o[k][2]));
                        CT_OK(clops_native_batch_norm_backward(
                            g[k], x[k], w[k], rm[k], rv[k], train ? o[k][1] : NULL,
                            train ? o[k][2] : NULL, train, eps, mask, 3, &bo[k][0], &bo[k][1],
                            &bo[k][2]));
                    }
                    /* the same call again on the device, from the same running stats */
                    CT_OK(clops_native_batch_norm(x[0], w[0], b[0], rm2, rv2, train, 0.1, eps,
                                                  &o2[0], &o2[1], &o2[2]));
                    CT_OK(clops_native_batch_norm_backward(
                        g[0], x[0], w[0], rm[0], rv[0], train ? o[0][1] : NULL,
                        train ? o[0][2] : NULL, train, eps, mask, 3, &bo2[0], &bo2[1],
                        &bo2[2]));
                    static const char *const fn[3] = {"out", "save_mean", "save_invstd"};
                    static const char *const bn[3] = {"dx", "dweight", "dbias"};
                    for (int i = 0; i < 3; i++) {
                        same_and_close(o[0][i], o2[i], o[1][i], tol_of(i ? pt : dt), fn[i]);
                        same_and_close(bo[0][i], bo2[i], bo[1][i], i ? tol_sum(pt) : tol_of(dt),
                                       bn[i]);
                    }
                    same_and_close(rm[0], rm2, rm[1], tol_of(pt), "running_mean");
                    same_and_close(rv[0], rv2, rv[1], tol_of(pt), "running_var");
                    for (int k = 0; k < 6; k++)
                        release_n(all[k], 2);
                    for (int k = 0; k < 2; k++) {
                        release_n(o[k], 3);
                        release_n(bo[k], 3);
                    }
                    release_n(o2, 3);
                    release_n(bo2, 3);
                    clops_tensor_release(rm2);
                    clops_tensor_release(rv2);
                }
        }
    }
    ct_clear_context();
}

/* group_norm forward (the per-channel affine inside the row kernel on
 * GPUs; on CPU devices norm_group_cpu, or norm_layer_cpu's statistics and
 * norm_group_affine_cpu for the one-row shape, fewer rows than compute
 * units) and backward against the CPU device, twice.  The one-channel shape
 * takes the composed dweight/dbias path of CPU devices (fewer channels than
 * compute units), the others norm_group_wgrad_cpu on this machine's POCL. */
static void test_group_norm_matches_the_cpu_device(void **state)
{
    (void)state;
    static const struct {
        int64_t sizes[4], group;
    } shapes[] = {{{3, 6, 5, 7}, 3}, {{2, 4, 1, 1}, 2}, {{2, 8, 40, 40}, 2},
                  {{3, 1, 17, 3}, 1}, {{2, 40, 5, 7}, 10}, {{1, 6, 9, 11}, 1}};
    clops_device *devs[CT_MAX_DEVICES];
    int n = ct_opencl_devices(devs, CT_MAX_DEVICES);
    for (int di = 0; di < n; di++) {
        ct_set_device(devs[di]);
        for (size_t ti = 0; ti < CT_COUNT(dtypes); ti++) {
            clops_dtype dt = dtypes[ti];
            if (!ct_device_supports(devs[di], dt))
                continue;
            clops_dtype pt = dt == CLOPS_FLOAT64 ? CLOPS_FLOAT64 : CLOPS_FLOAT32;
            for (size_t si = 0; si < CT_COUNT(shapes); si++)
                for (int affine = 0; affine < 3; affine++) {
                    const int64_t *sz = shapes[si].sizes, C = sz[1], N = sz[0],
                                  HxW = sz[2] * sz[3], G = shapes[si].group;
                    ct_set_case("group_norm %s shape %zu %s", clops_dtype_name(dt), si,
                                affine == 2 ? "weight only" : affine ? "affine" : "no affine");
                    clops_tensor *x = ct_random(devs[di], dt, 4, sz, CT_CONTIGUOUS,
                                                PW_DOMAIN_SMALL, 101 + si);
                    clops_tensor *g = ct_random(devs[di], dt, 4, sz, CT_CONTIGUOUS,
                                                PW_DOMAIN_SMALL, 105);
                    clops_tensor *w = affine ? ct_random(devs[di], pt, 1, &C, CT_CONTIGUOUS,
                                                         PW_DOMAIN_SMALL, 106)
                                             : NULL;
                    clops_tensor *b = affine == 1 ? ct_random(devs[di], pt, 1, &C, CT_CONTIGUOUS,
                                                         PW_DOMAIN_SMALL, 107)
                                             : NULL;
                    clops_tensor *xc = ct_to_cpu(x), *gc = ct_to_cpu(g);
                    clops_tensor *wc = w ? ct_to_cpu(w) : NULL, *bc = b ? ct_to_cpu(b) : NULL;
                    clops_tensor *o[3] = {NULL}, *o2[3] = {NULL}, *oc[3] = {NULL};
                    clops_tensor *r[3] = {NULL}, *r2[3] = {NULL}, *rc[3] = {NULL};
                    const bool mask[3] = {true, true, true};
                    CT_OK(clops_native_group_norm(x, w, b, N, C, HxW, G, 1e-5, &o[0], &o[1],
                                                  &o[2]));
                    CT_OK(clops_native_group_norm(x, w, b, N, C, HxW, G, 1e-5, &o2[0], &o2[1],
                                                  &o2[2]));
                    CT_OK(clops_native_group_norm(xc, wc, bc, N, C, HxW, G, 1e-5, &oc[0],
                                                  &oc[1], &oc[2]));
                    clops_tensor *mc = ct_to_cpu(o[1]), *sc = ct_to_cpu(o[2]);
                    CT_OK(clops_native_group_norm_backward(g, x, o[1], o[2], w, N, C, HxW, G,
                                                           mask, 3, &r[0], &r[1], &r[2]));
                    CT_OK(clops_native_group_norm_backward(g, x, o[1], o[2], w, N, C, HxW, G,
                                                           mask, 3, &r2[0], &r2[1], &r2[2]));
                    CT_OK(clops_native_group_norm_backward(gc, xc, mc, sc, wc, N, C, HxW, G,
                                                           mask, 3, &rc[0], &rc[1], &rc[2]));
                    static const char *const fn[3] = {"out", "mean", "rstd"};
                    static const char *const bn[3] = {"dx", "dweight", "dbias"};
                    for (int i = 0; i < 3; i++) {
                        same_and_close(o[i], o2[i], oc[i], tol_of(dt), fn[i]);
                        same_and_close(r[i], r2[i], rc[i], i ? tol_sum(pt) : tol_of(dt), bn[i]);
                    }
                    clops_tensor *ts[] = {x, g, w, b, xc, gc, wc, bc, mc, sc};
                    release_n(ts, (int)CT_COUNT(ts));
                    release_n(o, 3);
                    release_n(o2, 3);
                    release_n(oc, 3);
                    release_n(r, 3);
                    release_n(r2, 3);
                    release_n(rc, 3);
                }
        }
    }
    ct_clear_context();
}

/* Zero channels (the kernels launch nothing) and zero-size planes: the
 * CPU device's shapes and no error. */
static void test_empty_channels_and_planes(void **state)
{
    (void)state;
    static const int64_t shapes[][3] = {{2, 0, 3}, {2, 3, 0}};
    clops_device *devs[CT_MAX_DEVICES];
    int n = ct_opencl_devices(devs, CT_MAX_DEVICES);
    const bool mask[3] = {true, true, true};
    for (int di = 0; di < n; di++) {
        ct_set_device(devs[di]);
        for (size_t si = 0; si < CT_COUNT(shapes); si++) {
            ct_set_case("batch_norm of shape %zu", si);
            const int64_t *sz = shapes[si], C = sz[1];
            clops_tensor *x = ct_random(devs[di], CLOPS_FLOAT32, 3, sz, CT_CONTIGUOUS,
                                        PW_DOMAIN_SMALL, 5);
            clops_tensor *w = ct_random(devs[di], CLOPS_FLOAT32, 1, &C, CT_CONTIGUOUS,
                                        PW_DOMAIN_SMALL, 6);
            clops_tensor *rv = ct_random(devs[di], CLOPS_FLOAT32, 1, &C, CT_CONTIGUOUS,
                                         PW_DOMAIN_POSITIVE, 7);
            clops_tensor *o[3] = {NULL}, *r[3] = {NULL}, *r2[3] = {NULL};
            CT_OK(clops_native_batch_norm(x, w, w, w, rv, false, 0.1, 1e-5, &o[0], &o[1], &o[2]));
            CT_OK(clops_native_batch_norm_backward(x, x, w, w, rv, NULL, NULL, false, 1e-5, mask,
                                                   3, &r[0], &r[1], &r[2]));
            CT_OK(clops_native_batch_norm_backward(x, x, w, w, rv, w, rv, true, 1e-5, mask, 3,
                                                   &r2[0], &r2[1], &r2[2]));
            CT_ASSERT(o[0] && clops_tensor_numel(o[0]) == 0 && r[0] &&
                      clops_tensor_numel(r[0]) == 0 && r[1] && clops_tensor_numel(r[1]) == C &&
                      r2[2] && clops_tensor_numel(r2[2]) == C);
            if (C > 0) {
                /* no elements: dweight and dbias are zeros */
                clops_tensor *z = NULL;
                CT_OK(clops_zeros_like(r2[2], CLOPS_DTYPE_NONE, -1, NULL, NULL, -1, &z));
                CT_ASSERT_CLOSE(r2[1], z, CT_TOL_EXACT);
                CT_ASSERT_CLOSE(r2[2], z, CT_TOL_EXACT);
                clops_tensor_release(z);
            }
            clops_tensor *ts[] = {x, w, rv};
            release_n(ts, 3);
            release_n(o, 3);
            release_n(r, 3);
            release_n(r2, 3);
        }
    }
    ct_clear_context();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_row_backward_matches_the_cpu_device),
        cmocka_unit_test(test_batch_norm_matches_the_cpu_device),
        cmocka_unit_test(test_group_norm_matches_the_cpu_device),
        cmocka_unit_test(test_empty_channels_and_planes),
    };
    return cmocka_run_group_tests(tests, NULL, ct_teardown_group);
}
