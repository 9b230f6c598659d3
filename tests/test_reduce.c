/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/test_reduce.c: the reduction kernels' strategies against the CPU
 * reference, determinism, accuracy and errors.
 *
 * The operator suite (test_check_reduce) already runs every reduction op on
 * every dtype and the standard layouts; golden values from PyTorch are in
 * test_reduce_golden.c.  This file covers what those small cases cannot
 * reach: each canonical shape of ops/reduce/reduce_launch.c (long rows split in
 * two launches, short rows several to a work-group with vector loads and
 * ragged tails, columns with and without a split, few columns, reduced
 * dims that do not coalesce, more than four dims groups so the input is
 * permuted first), on contiguous, transposed, sliced and expanded inputs,
 * written into strided out= views with guards; the same bits on every run;
 * variance of data with a large mean; and the errors PyTorch raises.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clops/ops.h"
#include "host/host.h"
#include "support/clops_test.h"

/* One reduction under test: runs op on x over dims into a new tensor. */
typedef struct red_case {
    const char *name;
    clops_status (*run)(clops_tensor *x, const int64_t *dims, int nd, bool keepdim,
                        clops_tensor **out);
    pw_domain domain;
    bool float_only;
    bool exact; /* integer or selecting result: compare exactly */
} red_case;

static clops_status run_sum(clops_tensor *x, const int64_t *d, int n, bool k, clops_tensor **o)
{
    return clops_sum_dim_intlist(x, d, n, k, CLOPS_DTYPE_NONE, o);
}

static clops_status run_mean(clops_tensor *x, const int64_t *d, int n, bool k, clops_tensor **o)
{
    return clops_mean_dim(x, d, n, k, CLOPS_DTYPE_NONE, o);
}

static clops_status run_amax(clops_tensor *x, const int64_t *d, int n, bool k, clops_tensor **o)
{
    return clops_amax(x, d, n, k, o);
}

static clops_status run_var(clops_tensor *x, const int64_t *d, int n, bool k, clops_tensor **o)
{
    clops_scalar corr = clops_scalar_int(1);
    return clops_var_correction(x, d, n, &corr, k, o);
}

static clops_status run_lse(clops_tensor *x, const int64_t *d, int n, bool k, clops_tensor **o)
{
    return clops_logsumexp(x, d, n, k, o);
}

static clops_status run_norm(clops_tensor *x, const int64_t *d, int n, bool k, clops_tensor **o)
{
    return clops_linalg_vector_norm(x, clops_scalar_float(2.0), d, n, k, CLOPS_DTYPE_NONE, o);
}

static clops_status run_cnz(clops_tensor *x, const int64_t *d, int n, bool k, clops_tensor **o)
{
    (void)k;
    return clops_count_nonzero_dim_intlist(x, d, n, o);
}

/* argmax over the first listed dim (or flattened for an empty list). */
static clops_status run_argmax(clops_tensor *x, const int64_t *d, int n, bool k,
                               clops_tensor **o)
{
    return clops_argmax(x, n ? d : NULL, k, o);
}

/* The indices of max.dim over the first listed dim (values are checked
 * by amax). */
static clops_status run_maxdim(clops_tensor *x, const int64_t *d, int n, bool k,
                               clops_tensor **o)
{
    clops_tensor *values = NULL;
    clops_status st = clops_max_dim(x, n ? d[0] : 0, k, &values, o);
    clops_tensor_release(values);
    return st;
}

static const red_case cases[] = {
    {"sum", run_sum, PW_DOMAIN_SMALL, false, false},
    {"mean", run_mean, PW_DOMAIN_SMALL, true, false},
    {"amax", run_amax, PW_DOMAIN_ANY, false, true},
    {"var", run_var, PW_DOMAIN_SMALL, true, false},
    {"logsumexp", run_lse, PW_DOMAIN_SMALL, true, false},
    {"vector_norm", run_norm, PW_DOMAIN_SMALL, true, false},
    {"count_nonzero", run_cnz, PW_DOMAIN_ANY, false, true},
    {"argmax", run_argmax, PW_DOMAIN_ANY, false, true},
    {"max.dim", run_maxdim, PW_DOMAIN_ANY, false, true},
};

/* A shape and the dims reduced over it, reaching one strategy. */
typedef struct red_shape {
    const char *what;
    int ndim;
    int64_t sizes[10];
    int nd;
    int64_t dims[6];
} red_shape;

static const red_shape shapes[] = {
    {"long row, split in two launches", 1, {300001}, 1, {0}},
    {"rows with ragged tails", 2, {37, 1031}, 1, {1}},
    {"short rows, many per group", 2, {4099, 64}, 1, {-1}},
    {"very short rows", 2, {1000, 3}, 1, {1}},
    {"columns, split", 2, {3001, 96}, 1, {0}},
    {"few long columns (split on CPU devices)", 2, {40000, 6}, 1, {0}},
    {"few columns", 2, {4097, 5}, 1, {0}},
    {"outer and inner dims", 3, {9, 13, 17}, 2, {0, 2}},
    {"five dim groups (permuted first)", 10, {2, 3, 2, 3, 2, 3, 2, 3, 2, 3}, 5, {0, 2, 4, 6, 8}},
    {"all dims", 3, {31, 7, 129}, 3, {0, 1, 2}},
};

/* Tolerance for a reduction of length r in dtype dt: ULPs growing like
 * sqrt(r), and an absolute error of eps * sum|x| * sqrt(r) for a sum of
 * r values of at most 3 in magnitude: a random walk of rounding errors;
 * when the input repeats one value r times (expanded), the errors add up
 * instead (eps * sum|x| * r). */
static ct_tol tol_for(clops_dtype dt, int64_t r, bool exact, bool repeated)
{
    if (exact)
        return CT_TOL_EXACT;
    double s = sqrt((double)(r > 1 ? r : 1));
    double eps = dt == CLOPS_FLOAT16    ? 1e-3
                 : dt == CLOPS_BFLOAT16 ? 8e-3
                 : dt == CLOPS_FLOAT64  ? 2.3e-16
                                        : 1.2e-7;
    return ct_tol_ulp_atol(8 + 2 * s, eps * 3.0 * (double)r * (repeated ? (double)r : s));
}

/* The length of the reduction of a shape. */
static int64_t red_len(const red_shape *s)
{
    int64_t r = 1;
    for (int i = 0; i < s->nd; i++)
        r *= s->sizes[s->dims[i] < 0 ? s->dims[i] + s->ndim : s->dims[i]];
    return r;
}

/* Every op x shape x dtype x layout on every OpenCL device equals the CPU
 * reference; keepdim alternates. */
static void test_every_strategy_matches_the_reference(void **state)
{
    (void)state;
    static const clops_dtype dts[] = {CLOPS_FLOAT32, CLOPS_FLOAT16, CLOPS_BFLOAT16, CLOPS_INT32,
                                      CLOPS_FLOAT64};
    static const ct_layout layouts[] = {CT_CONTIGUOUS, CT_TRANSPOSED, CT_SLICED, CT_EXPANDED};
    clops_device *devs[CT_MAX_DEVICES];
    int n = ct_opencl_devices(devs, CT_MAX_DEVICES);
    uint64_t seed = 1;
    for (int di = 0; di < n; di++) {
        ct_set_device(devs[di]);
        for (size_t si = 0; si < CT_COUNT(shapes); si++)
            for (size_t ci = 0; ci < CT_COUNT(cases); ci++)
                for (size_t ti = 0; ti < CT_COUNT(dts); ti++) {
                    const red_shape *s = &shapes[si];
                    const red_case *c = &cases[ci];
                    clops_dtype dt = dts[ti];
                    if ((c->float_only && !clops_dtype_is_floating(dt)) ||
                        !ct_device_supports(devs[di], dt))
                        continue;
                    /* Layouts other than contiguous on the smaller shapes. */
                    size_t nl = ct_numel(s->ndim, s->sizes) > 200000 ? 1 : CT_COUNT(layouts);
                    for (size_t li = 0; li < nl; li++) {
                        bool keep = (seed & 1) != 0;
                        ct_set_case("%s over %s, %s, %s, keepdim=%d", c->name, s->what,
                                    clops_dtype_name(dt), ct_layout_name(layouts[li]), keep);
                        clops_tensor *x = ct_random(devs[di], dt, s->ndim, s->sizes,
                                                    layouts[li], c->domain, seed++);
                        clops_tensor *xc = ct_to_cpu(x);
                        clops_tensor *got = NULL, *want = NULL;
                        CT_OK(c->run(x, s->dims, s->nd, keep, &got));
                        CT_OK(c->run(xc, s->dims, s->nd, keep, &want));
                        if (got && want)
                            CT_ASSERT_CLOSE(got, want, tol_for(dt, red_len(s), c->exact,
                                                                   layouts[li] == CT_EXPANDED));
                        clops_tensor_release(got);
                        clops_tensor_release(want);
                        clops_tensor_release(x);
                        clops_tensor_release(xc);
                    }
                }
    }
    ct_clear_context();
}

/* out= into a transposed, guarded view: values land in place, nothing
 * outside the view is written; a second result (var_mean's mean) too. */
static void test_out_views_are_written_in_place(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int n = ct_devices(devs, CT_MAX_DEVICES);
    for (int di = 0; di < n; di++) {
        ct_set_device(devs[di]);
        clops_tensor *x = ct_random(devs[di], CLOPS_FLOAT32, 3, CT_I64(6, 50, 7), CT_SLICED,
                                    PW_DOMAIN_SMALL, 7);
        clops_tensor *xc = ct_to_cpu(x);
        ct_guarded g0 = ct_guarded_new(devs[di], CLOPS_FLOAT32, 2, CT_I64(6, 7), CT_TRANSPOSED);
        ct_guarded g1 = ct_guarded_new(devs[di], CLOPS_FLOAT32, 2, CT_I64(6, 7), CT_SLICED);
        clops_scalar corr = clops_scalar_int(0);
        CT_OK(clops_var_mean_correction_out(x, CT_I64(1), 1, &corr, false, g0.t, g1.t));
        clops_tensor *v = NULL, *m = NULL;
        CT_OK(clops_var_mean_correction(xc, CT_I64(1), 1, &corr, false, &v, &m));
        CT_ASSERT_CLOSE(g0.t, v, ct_tol_ulp_atol(64, 1e-5));
        CT_ASSERT_CLOSE(g1.t, m, ct_tol_ulp_atol(64, 1e-5));
        CT_GUARDS_INTACT(&g0);
        CT_GUARDS_INTACT(&g1);
        clops_tensor_release(v);
        clops_tensor_release(m);
        ct_guarded_release(&g0);
        ct_guarded_release(&g1);
        clops_tensor_release(x);
        clops_tensor_release(xc);
    }
    ct_clear_context();
}

/* The same call gives the same bits every time (split reductions too). */
static void test_results_are_bitwise_deterministic(void **state)
{
    (void)state;
    static const red_shape det[] = {
        {"long row", 1, {1 << 20}, 1, {0}},
        {"columns", 2, {4096, 300}, 1, {0}},
        {"rows", 2, {64, 20000}, 1, {1}},
    };
    clops_device *devs[CT_MAX_DEVICES];
    int n = ct_opencl_devices(devs, CT_MAX_DEVICES);
    for (int di = 0; di < n; di++) {
        ct_set_device(devs[di]);
        for (size_t si = 0; si < CT_COUNT(det); si++)
            for (size_t ci = 0; ci < 4; ci++) { /* sum, mean, amax, var */
                const red_shape *s = &det[si];
                ct_set_case("%s over %s", cases[ci].name, s->what);
                clops_tensor *x = ct_random(devs[di], CLOPS_FLOAT32, s->ndim, s->sizes,
                                            CT_CONTIGUOUS, PW_DOMAIN_SMALL, 99);
                clops_tensor *a = NULL, *b = NULL;
                CT_OK(cases[ci].run(x, s->dims, s->nd, false, &a));
                CT_OK(cases[ci].run(x, s->dims, s->nd, false, &b));
                CT_ASSERT_CLOSE(a, b, CT_TOL_EXACT);
                clops_tensor_release(a);
                clops_tensor_release(b);
                clops_tensor_release(x);
            }
    }
    ct_clear_context();
}

/* A column reduction folds each column in row order whichever way the
 * launch groups the columns (CPU devices fold blocks of 16 columns, four
 * blocks side by side where they fit): every column of the result equals,
 * bit for bit, the same reduction of that column alone (one output, no
 * split below 8192 rows).  CPU-like devices only: a GPU splits columns
 * into chunks, a lane tree for the column alone.  300 columns: groups of four blocks, a pair of
 * blocks left over and a ragged 12; and an offset view, whose rows start
 * off the vector phase. */
static void test_column_blocks_fold_in_row_order(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int n = ct_opencl_devices(devs, CT_MAX_DEVICES);
    for (int di = 0; di < n; di++) {
        if (!devs[di]->chunked)
            continue;
        ct_set_device(devs[di]);
        clops_tensor *x0 = ct_random(devs[di], CLOPS_FLOAT32, 2, CT_I64(3001, 301),
                                     CT_CONTIGUOUS, PW_DOMAIN_SMALL, 41);
        for (int off = 0; off < 2; off++) {
            clops_tensor *x = NULL;
            CT_OK(clops_narrow(x0, 1, off, 300, &x));
            for (size_t ci = 0; ci < 3; ci++) { /* sum, mean, amax */
                clops_tensor *y = NULL;
                CT_OK(cases[ci].run(x, CT_I64(0), 1, false, &y));
                static const int64_t cols[] = {0,   15,  16,  63,  64,  127,
                                               128, 255, 256, 287, 288, 299};
                for (size_t k = 0; y && k < CT_COUNT(cols); k++) {
                    ct_set_case("%s over the rows of [3001, 300] (offset %d), column %lld",
                                cases[ci].name, off, (long long)cols[k]);
                    clops_tensor *col = NULL, *one = NULL, *yk = NULL;
                    CT_OK(clops_select(x, 1, cols[k], &col));
                    CT_OK(cases[ci].run(col, CT_I64(0), 1, false, &one));
                    CT_OK(clops_select(y, 0, cols[k], &yk));
                    if (one && yk)
                        CT_ASSERT_CLOSE(yk, one, CT_TOL_EXACT);
                    clops_tensor_release(col);
                    clops_tensor_release(one);
                    clops_tensor_release(yk);
                }
                clops_tensor_release(y);
            }
            clops_tensor_release(x);
        }
        clops_tensor_release(x0);
    }
    ct_clear_context();
}

/* argmax/argmin and max.dim/min.dim pick the first index of the extreme, a
 * first NaN over everything, across the lanes and split chunks of every
 * strategy: rows, columns and a long row of values from a small set (many
 * ties), some rows all -inf, some with NaNs late in the row. */
static void test_index_ties_and_nans_across_lanes(void **state)
{
    (void)state;
    static const struct {
        int64_t rows, cols;
        int dim;
    } shapes_[] = {{37, 1031, 1}, {1031, 37, 0}, {1, 300001, 1}, {40000, 6, 0}};
    clops_device *devs[CT_MAX_DEVICES];
    int n = ct_opencl_devices(devs, CT_MAX_DEVICES);
    for (size_t si = 0; si < CT_COUNT(shapes_); si++) {
        int64_t rows = shapes_[si].rows, cols = shapes_[si].cols, numel = rows * cols;
        float *h = malloc(sizeof(float) * (size_t)numel);
        ct_rng r = ct_rng_seeded(11 + si);
        for (int64_t i = 0; i < numel; i++) {
            int64_t row = shapes_[si].dim == 1 ? i / cols : i % cols;
            double u = ct_rng_uniform(&r);
            h[i] = row % 5 == 3 ? -INFINITY : (float)(int)(u * 4.0);
            if (row % 7 == 2 && u < 0.001)
                h[i] = NAN;
        }
        for (int di = 0; di < n; di++) {
            ct_set_device(devs[di]);
            clops_device *cpu = ct_cpu();
            clops_tensor *x = ct_from_values(devs[di], CLOPS_FLOAT32, 2, CT_I64(rows, cols),
                                             CT_CONTIGUOUS, h);
            clops_tensor *xc = ct_from_values(cpu, CLOPS_FLOAT32, 2, CT_I64(rows, cols),
                                              CT_CONTIGUOUS, h);
            for (int mx = 0; mx < 2; mx++) {
                ct_set_case("%s over dim %d of [%lld, %lld]", mx ? "argmax" : "argmin",
                            shapes_[si].dim, (long long)rows, (long long)cols);
                int64_t d = shapes_[si].dim;
                clops_tensor *got = NULL, *want = NULL, *vals = NULL, *idx = NULL;
                if (mx) {
                    CT_OK(clops_argmax(x, &d, false, &got));
                    CT_OK(clops_argmax(xc, &d, false, &want));
                    CT_OK(clops_max_dim(x, d, false, &vals, &idx));
                } else {
                    CT_OK(clops_argmin(x, &d, false, &got));
                    CT_OK(clops_argmin(xc, &d, false, &want));
                    CT_OK(clops_min_dim(x, d, false, &vals, &idx));
                }
                if (got && want && idx) {
                    CT_ASSERT_CLOSE(got, want, CT_TOL_EXACT);
                    CT_ASSERT_CLOSE(idx, want, CT_TOL_EXACT);
                }
                clops_tensor_release(got);
                clops_tensor_release(want);
                clops_tensor_release(vals);
                clops_tensor_release(idx);
            }
            clops_tensor_release(x);
            clops_tensor_release(xc);
        }
        free(h);
    }
    ct_clear_context();
}

/* var of float32 data around 1e4 keeps its digits (a naive sum of squares
 * would lose them all to cancellation). */
static void test_variance_survives_a_large_mean(void **state)
{
    (void)state;
    enum { N = 1 << 18 };
    float *h = malloc(sizeof(float) * N);
    ct_rng r = ct_rng_seeded(5);
    double s = 0, s2 = 0;
    for (int i = 0; i < N; i++) {
        h[i] = (float)(1e4 + ct_rng_uniform(&r));
        s += h[i];
    }
    double mean = s / N;
    for (int i = 0; i < N; i++)
        s2 += (h[i] - mean) * (h[i] - mean);
    double want = s2 / (N - 1);
    clops_device *devs[CT_MAX_DEVICES];
    int n = ct_devices(devs, CT_MAX_DEVICES);
    for (int di = 0; di < n; di++) {
        ct_set_device(devs[di]);
        clops_tensor *x = ct_from_values(devs[di], CLOPS_FLOAT32, 1, CT_I64(N), CT_CONTIGUOUS, h);
        clops_tensor *v = NULL;
        CT_OK(clops_var(x, true, &v));
        clops_scalar got;
        CT_OK(clops_tensor_item(v, &got));
        double g = clops_scalar_to_double(got);
        CT_ASSERT_MSG(fabs(g - want) <= 1e-3 * want, "var %.9g, exact %.9g", g, want);
        clops_tensor_release(v);
        clops_tensor_release(x);
    }
    free(h);
    ct_clear_context();
}

/* PyTorch's refusals, with messages that name the op. */
static void test_bad_calls_fail_with_a_message(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int n = ct_devices(devs, CT_MAX_DEVICES);
    for (int di = 0; di < n; di++) {
        ct_set_device(devs[di]);
        clops_tensor *x = ct_random(devs[di], CLOPS_FLOAT32, 2, CT_I64(3, 4), CT_CONTIGUOUS,
                                    PW_DOMAIN_SMALL, 1);
        clops_tensor *xi = ct_random(devs[di], CLOPS_INT32, 2, CT_I64(3, 4), CT_CONTIGUOUS,
                                     PW_DOMAIN_SMALL, 1);
        clops_tensor *e = ct_random(devs[di], CLOPS_FLOAT32, 2, CT_I64(0, 4), CT_CONTIGUOUS,
                                    PW_DOMAIN_SMALL, 1);
        clops_tensor *out = NULL, *out2 = NULL;
        CT_STATUS(clops_sum_dim_intlist(x, CT_I64(0, -2), 2, false, CLOPS_DTYPE_NONE, &out),
                  CLOPS_INVALID_ARGUMENT);
        CT_ERROR_CONTAINS("dim 0 appears multiple times in the list of dims");
        CT_STATUS(clops_sum_dim_intlist(x, CT_I64(2), 1, false, CLOPS_DTYPE_NONE, &out),
                  CLOPS_INDEX_OUT_OF_RANGE);
        CT_STATUS(clops_mean(xi, CLOPS_DTYPE_NONE, &out), CLOPS_INVALID_DTYPE);
        CT_ERROR_CONTAINS("mean: could not infer output dtype");
        CT_STATUS(clops_var(xi, true, &out), CLOPS_INVALID_DTYPE);
        CT_STATUS(clops_amax(e, CT_I64(0), 1, false, &out), CLOPS_INVALID_ARGUMENT);
        CT_ERROR_CONTAINS("amax: Expected reduction dim 0 to have non-zero size");
        CT_STATUS(clops_max_dim(e, 0, false, &out, &out2), CLOPS_INVALID_ARGUMENT);
        CT_STATUS(clops_max(e, &out), CLOPS_INVALID_ARGUMENT);
        CT_STATUS(clops_argmax(e, NULL, false, &out), CLOPS_INVALID_ARGUMENT);
        /* A float result cannot go into an integer out=. */
        CT_STATUS(clops_sum_out(x, CLOPS_DTYPE_NONE, xi), CLOPS_INVALID_DTYPE);
        CT_ASSERT(out == NULL && out2 == NULL);
        clops_tensor_release(x);
        clops_tensor_release(xi);
        clops_tensor_release(e);
    }
    ct_clear_context();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_strategy_matches_the_reference),
        cmocka_unit_test(test_out_views_are_written_in_place),
        cmocka_unit_test(test_results_are_bitwise_deterministic),
        cmocka_unit_test(test_column_blocks_fold_in_row_order),
        cmocka_unit_test(test_index_ties_and_nans_across_lanes),
        cmocka_unit_test(test_variance_survives_a_large_mean),
        cmocka_unit_test(test_bad_calls_fail_with_a_message),
    };
    return cmocka_run_group_tests(tests, NULL, ct_teardown_group);
}
