/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/test_random_stats.c: what the random family's values look like:
 * goodness of fit with fixed seeds (Kolmogorov-Smirnov for the continuous
 * distributions, chi-square for randint, bernoulli and multinomial), ranges
 * and bounds per dtype, dropout's keep rate and scaling, randperm being a
 * permutation, the out variants, and PyTorch's errors.
 *
 * Seeds are fixed and the thresholds are the 0.1%/0.01% critical values, so
 * the tests cannot flake: a distribution that is wrong fails every time.
 * They run on the CPU reference; tests/test_random.c shows every OpenCL
 * device gives the same bits.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "clops/generator.h"
#include "clops/ops.h"
#include "support/clops_test.h"
#include "ops/tensor/tensor.h"

#define N 200000

/* A generator seeded with seed (caller releases). */
static clops_generator *gen(uint64_t seed)
{
    clops_generator *g = NULL;
    CT_OK(clops_generator_create(ct_cpu(), &g));
    CT_OK(clops_generator_manual_seed(g, seed));
    return g;
}

/* Ascending order of doubles. */
static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The values of a floating tensor as doubles, sorted (free() them). */
static double *sorted_values(clops_tensor *t, int64_t *n)
{
    clops_tensor *d = NULL;
    CT_OK(core_to_copy(t, CLOPS_FLOAT64, ct_cpu(), &d));
    *n = clops_tensor_numel(d);
    double *v = ct_to_host(d);
    clops_tensor_release(d);
    qsort(v, (size_t)*n, sizeof *v, cmp_double);
    return v;
}

/* Kolmogorov-Smirnov statistic sqrt(n) * sup |F_n - F|. */
static double ks(clops_tensor *t, double (*cdf)(double, const double *), const double *p)
{
    int64_t n = 0;
    double *v = sorted_values(t, &n);
    double d = 0.0;
    for (int64_t i = 0; i < n; i++) {
        double f = cdf(v[i], p);
        double lo = f - (double)i / (double)n, hi = (double)(i + 1) / (double)n - f;
        d = fmax(d, fmax(lo, hi));
    }
    free(v);
    return d * sqrt((double)n);
}

/* The 0.1% critical value of sqrt(n) D. */
#define KS_CRIT 1.95

static double cdf_uniform(double x, const double *p)
{
    return x <= p[0] ? 0.0 : x >= p[1] ? 1.0 : (x - p[0]) / (p[1] - p[0]);
}
static double cdf_normal(double x, const double *p)
{
    return 0.5 * erfc(-(x - p[0]) / (p[1] * sqrt(2.0)));
}
static double cdf_exponential(double x, const double *p)
{
    return x <= 0 ? 0.0 : 1.0 - exp(-p[0] * x);
}
static double cdf_log_normal(double x, const double *p)
{
    return x <= 0 ? 0.0 : 0.5 * erfc(-(log(x) - p[0]) / (p[1] * sqrt(2.0)));
}
static double cdf_cauchy(double x, const double *p)
{
    return 0.5 + atan((x - p[0]) / p[1]) / 3.14159265358979323846;
}

static void continuous_distributions_fit(void **state)
{
    (void)state;
    static const clops_dtype dts[] = {CLOPS_FLOAT32, CLOPS_FLOAT64};
    for (size_t k = 0; k < CT_COUNT(dts); k++) {
        ct_set_case("%s", clops_dtype_name(dts[k]));
        clops_tensor *t = NULL;
        CT_OK(clops_empty(ct_cpu(), dts[k], 1, CT_I64(N), &t));
        clops_generator *g = gen(11 + k);
        double pu[2] = {-2.0, 3.0}, pn[2] = {1.0, 2.0}, pe[1] = {1.5}, pl[2] = {0.5, 0.7},
               pc[2] = {1.0, 2.0};
        CT_OK(clops_uniform_(t, pu[0], pu[1], g));
        double s = ks(t, cdf_uniform, pu);
        CT_ASSERT_MSG(s < KS_CRIT, "uniform: KS %g", s);
        CT_OK(clops_normal_(t, pn[0], pn[1], g));
        s = ks(t, cdf_normal, pn);
        CT_ASSERT_MSG(s < KS_CRIT, "normal: KS %g", s);
        CT_OK(clops_exponential_(t, pe[0], g));
        s = ks(t, cdf_exponential, pe);
        CT_ASSERT_MSG(s < KS_CRIT, "exponential: KS %g", s);
        CT_OK(clops_log_normal_(t, pl[0], pl[1], g));
        s = ks(t, cdf_log_normal, pl);
        CT_ASSERT_MSG(s < KS_CRIT, "log_normal: KS %g", s);
        CT_OK(clops_cauchy_(t, pc[0], pc[1], g));
        s = ks(t, cdf_cauchy, pc);
        CT_ASSERT_MSG(s < KS_CRIT, "cauchy: KS %g", s);
        /* A wrong distribution is caught: normal values against U(-2, 3). */
        CT_OK(clops_normal_(t, 0.5, 1.0, g));
        CT_ASSERT(ks(t, cdf_uniform, pu) > KS_CRIT);
        clops_generator_release(g);
        clops_tensor_release(t);
    }
    ct_clear_context();
}

/* Chi-square of counts against expected frequencies. */
static double chi2(const double *count, const double *expect, int k)
{
    double c = 0.0;
    for (int i = 0; i < k; i++)
        c += (count[i] - expect[i]) * (count[i] - expect[i]) / expect[i];
    return c;
}

static void randint_and_bernoulli_fit(void **state)
{
    (void)state;
    clops_generator *g = gen(5);
    clops_tensor *t = NULL;
    CT_OK(clops_randint_low_generator(-3, 7, CT_I64(N), 1, g, CLOPS_INT64, -1, ct_cpu(), NULL, &t));
    int64_t *v = ct_to_host(t);
    double count[10] = {0}, expect[10];
    for (int64_t i = 0; i < N; i++) {
        CT_ASSERT(v[i] >= -3 && v[i] < 7);
        count[v[i] + 3] += 1;
    }
    for (int i = 0; i < 10; i++)
        expect[i] = N / 10.0;
    CT_ASSERT_MSG(chi2(count, expect, 10) < 33.72, "randint chi2 %g",
                  chi2(count, expect, 10)); /* df 9, 0.01% */
    free(v);
    clops_tensor_release(t);

    CT_OK(clops_empty(ct_cpu(), CLOPS_FLOAT32, 1, CT_I64(N), &t));
    CT_OK(clops_bernoulli_float_(t, 0.3, g));
    float *b = ct_to_host(t);
    double ones = 0;
    for (int64_t i = 0; i < N; i++) {
        CT_ASSERT(b[i] == 0.0f || b[i] == 1.0f);
        ones += b[i];
    }
    double z = (ones - N * 0.3) / sqrt(N * 0.3 * 0.7);
    CT_ASSERT_MSG(fabs(z) < 4.0, "bernoulli z %g", z);
    free(b);
    /* bernoulli with a tensor of probabilities: p = 0 and p = 1 are exact. */
    clops_tensor *p = NULL, *r = NULL;
    float pv[4] = {0.0f, 1.0f, 0.0f, 1.0f};
    CT_OK(clops_from_host(ct_cpu(), CLOPS_FLOAT32, 1, CT_I64(4), pv, sizeof pv, &p));
    CT_OK(clops_bernoulli(p, g, &r));
    float *rv = ct_to_host(r);
    CT_ASSERT(memcmp(rv, pv, sizeof pv) == 0);
    free(rv);
    clops_tensor_release(r);
    clops_tensor_release(p);
    clops_tensor_release(t);
    clops_generator_release(g);
}

static void geometric_mean_matches(void **state)
{
    (void)state;
    clops_generator *g = gen(8);
    clops_tensor *t = NULL;
    CT_OK(clops_empty(ct_cpu(), CLOPS_INT64, 1, CT_I64(N), &t));
    CT_OK(clops_geometric_(t, 0.3, g));
    int64_t *v = ct_to_host(t);
    double sum = 0;
    for (int64_t i = 0; i < N; i++) {
        CT_ASSERT(v[i] >= 1);
        sum += (double)v[i];
    }
    double se = sqrt(0.7 / 0.09 / N);
    CT_ASSERT_MSG(fabs(sum / N - 1.0 / 0.3) < 5 * se, "geometric mean %g", sum / N);
    free(v);
    clops_tensor_release(t);
    clops_generator_release(g);
}

static void multinomial_fits_and_never_picks_zero_weights(void **state)
{
    (void)state;
    clops_generator *g = gen(9);
    double w[5] = {1, 2, 0, 3, 4};
    clops_tensor *p = NULL, *s = NULL;
    CT_OK(clops_from_host(ct_cpu(), CLOPS_FLOAT64, 1, CT_I64(5), w, sizeof w, &p));
    CT_OK(clops_multinomial(p, 50000, true, g, &s));
    int64_t *v = ct_to_host(s);
    double count[5] = {0}, expect[4], got[4];
    for (int i = 0; i < 50000; i++)
        count[v[i]] += 1;
    CT_ASSERT(count[2] == 0);
    for (int i = 0, j = 0; i < 5; i++)
        if (i != 2) {
            expect[j] = 50000 * w[i] / 10.0;
            got[j++] = count[i];
        }
    CT_ASSERT_MSG(chi2(got, expect, 4) < 21.11, "multinomial chi2 %g",
                  chi2(got, expect, 4)); /* df 3 */
    free(v);
    clops_tensor_release(s);
    clops_tensor_release(p);

    /* Without replacement: distinct picks, zero weights last, and the first
     * pick of each row distributed as the weights. */
    enum { ROWS = 20000 };
    double *rows = malloc(sizeof(double) * ROWS * 5);
    for (int r = 0; r < ROWS; r++)
        memcpy(rows + r * 5, w, sizeof w);
    CT_OK(clops_from_host(ct_cpu(), CLOPS_FLOAT64, 2, CT_I64(ROWS, 5), rows,
                          sizeof(double) * ROWS * 5, &p));
    CT_OK(clops_multinomial(p, 4, false, g, &s));
    v = ct_to_host(s);
    double first[5] = {0};
    for (int r = 0; r < ROWS; r++) {
        int seen = 0;
        for (int j = 0; j < 4; j++) {
            CT_ASSERT(v[r * 4 + j] != 2 && !(seen & (1 << v[r * 4 + j])));
            seen |= 1 << v[r * 4 + j];
        }
        first[v[r * 4]] += 1;
    }
    for (int i = 0, j = 0; i < 5; i++)
        if (i != 2) {
            expect[j] = ROWS * w[i] / 10.0;
            got[j++] = first[i];
        }
    CT_ASSERT_MSG(chi2(got, expect, 4) < 21.11, "first picks chi2 %g", chi2(got, expect, 4));
    free(v);
    free(rows);
    clops_tensor_release(s);
    clops_tensor_release(p);
    clops_generator_release(g);
}

static void dropout_keeps_one_minus_p_and_scales(void **state)
{
    (void)state;
    clops_tensor *x = NULL, *o = NULL, *m = NULL, *back = NULL;
    CT_OK(clops_full(ct_cpu(), CLOPS_FLOAT32, 1, CT_I64(N), clops_scalar_float(1.5), &x));
    bool train = true;
    CT_OK(clops_native_dropout(x, 0.1, &train, &o, &m));
    CT_ASSERT(clops_tensor_dtype(m) == CLOPS_BOOL);
    float *ov = ct_to_host(o);
    unsigned char *mv = ct_to_host(m);
    double kept = 0;
    float scaled = 1.5f * (float)(1.0 / 0.9);
    for (int64_t i = 0; i < N; i++) {
        CT_ASSERT(mv[i] ? ov[i] == scaled : ov[i] == 0.0f);
        kept += mv[i];
    }
    double z = (kept - N * 0.9) / sqrt(N * 0.9 * 0.1);
    CT_ASSERT_MSG(fabs(z) < 4.0, "keep rate z %g", z);
    /* The backward pass: grad * mask * scale. */
    CT_OK(clops_native_dropout_backward(x, m, 1.0 / 0.9, &back));
    CT_ASSERT_CLOSE(back, o, CT_TOL_EXACT);
    free(ov);
    free(mv);
    clops_tensor_release(o);
    clops_tensor_release(m);
    clops_tensor_release(back);
    /* Evaluation mode returns the input and an all-true mask. */
    train = false;
    CT_OK(clops_native_dropout(x, 0.1, &train, &o, &m));
    CT_ASSERT_CLOSE(o, x, CT_TOL_EXACT);
    clops_tensor_release(o);
    clops_tensor_release(m);
    /* dropout: p = 0 or train=False give the input itself; p = 1 zeros. */
    CT_OK(clops_dropout(x, 0.0, true, &o));
    CT_ASSERT(o == x);
    clops_tensor_release(o);
    CT_OK(clops_dropout(x, 1.0, true, &o));
    float *z1 = ct_to_host(o);
    CT_ASSERT(z1[0] == 0.0f && z1[N - 1] == 0.0f);
    free(z1);
    clops_tensor_release(o);
    clops_tensor_release(x);
}

static void randperm_is_a_permutation_on_every_device(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_devices(devs, CT_MAX_DEVICES);
    for (int i = 0; i < nd; i++) {
        ct_set_device(devs[i]);
        clops_tensor *t = NULL;
        CT_OK(clops_randperm(1000, CLOPS_INT32, -1, devs[i], NULL, &t));
        int32_t *v = ct_to_host(t);
        char seen[1000] = {0};
        int moved = 0;
        for (int k = 0; k < 1000; k++) {
            CT_ASSERT(v[k] >= 0 && v[k] < 1000 && !seen[v[k]]);
            seen[v[k]] = 1;
            moved += v[k] != k;
        }
        CT_ASSERT(moved > 900);
        free(v);
        clops_tensor_release(t);
        CT_OK(clops_randperm(0, CLOPS_DTYPE_NONE, -1, devs[i], NULL, &t));
        CT_ASSERT(clops_tensor_numel(t) == 0 && clops_tensor_dtype(t) == CLOPS_INT64);
        clops_tensor_release(t);
    }
    ct_clear_context();
}

static void values_stay_in_each_dtypes_range(void **state)
{
    (void)state;
    clops_generator *g = gen(3);
    static const clops_dtype fl[] = {CLOPS_FLOAT16, CLOPS_BFLOAT16, CLOPS_FLOAT32, CLOPS_FLOAT64};
    for (size_t k = 0; k < CT_COUNT(fl); k++) {
        ct_set_case("rand %s", clops_dtype_name(fl[k]));
        clops_tensor *t = NULL, *d = NULL;
        CT_OK(clops_rand_generator(CT_I64(N), 1, g, fl[k], -1, ct_cpu(), NULL, &t));
        CT_OK(core_to_copy(t, CLOPS_FLOAT64, ct_cpu(), &d));
        double *v = ct_to_host(d);
        double mean = 0;
        for (int64_t i = 0; i < N; i++) {
            CT_ASSERT(v[i] >= 0.0 && v[i] < 1.0);
            mean += v[i] / N;
        }
        CT_ASSERT(fabs(mean - 0.5) < 0.01);
        free(v);
        clops_tensor_release(d);
        /* random_() on a floating dtype: [0, 2^digits]. */
        CT_OK(clops_random_(t, g));
        CT_OK(core_to_copy(t, CLOPS_FLOAT64, ct_cpu(), &d));
        v = ct_to_host(d);
        double hi = fl[k] == CLOPS_FLOAT16    ? 2048
                    : fl[k] == CLOPS_BFLOAT16 ? 256
                    : fl[k] == CLOPS_FLOAT32  ? 16777216
                                              : 9007199254740992.0;
        for (int64_t i = 0; i < N; i++)
            CT_ASSERT(v[i] >= 0.0 && v[i] <= hi && v[i] == floor(v[i]));
        free(v);
        clops_tensor_release(d);
        clops_tensor_release(t);
    }
    static const clops_dtype in[] = {CLOPS_BOOL,  CLOPS_UINT8, CLOPS_INT8,
                                     CLOPS_INT16, CLOPS_INT32, CLOPS_INT64};
    for (size_t k = 0; k < CT_COUNT(in); k++) {
        ct_set_case("random_ %s", clops_dtype_name(in[k]));
        clops_tensor *t = NULL, *d = NULL;
        CT_OK(clops_empty(ct_cpu(), in[k], 1, CT_I64(4096), &t));
        CT_OK(clops_random_(t, g));
        CT_OK(core_to_copy(t, CLOPS_INT64, ct_cpu(), &d));
        int64_t *v = ct_to_host(d);
        int64_t lo, hi, mx = INT64_MIN;
        dtype_int_range(in[k], &lo, &hi);
        for (int i = 0; i < 4096; i++) {
            CT_ASSERT(v[i] >= 0 && v[i] <= hi);
            mx = v[i] > mx ? v[i] : mx;
        }
        CT_ASSERT(mx > hi / 2); /* the whole range is used */
        free(v);
        clops_tensor_release(d);
        clops_tensor_release(t);
    }
    clops_generator_release(g);
    ct_clear_context();
}

static void out_variants_resize_and_fill(void **state)
{
    (void)state;
    clops_tensor *out = NULL, *m = NULL, *r = NULL;
    CT_OK(clops_empty(ct_cpu(), CLOPS_FLOAT64, 1, CT_I64(3), &out));
    CT_OK(clops_randn_out(CT_I64(4, 5), 2, out));
    CT_ASSERT(clops_tensor_ndim(out) == 2 && clops_tensor_size(out, 1) == 5);
    CT_OK(clops_zeros(ct_cpu(), CLOPS_FLOAT32, 1, CT_I64(6), &m));
    CT_OK(clops_normal_tensor_float_out(m, 0.0, NULL, out));
    CT_ASSERT(clops_tensor_numel(out) == 6);
    CT_STATUS(clops_multinomial_out(m, 2, true, NULL, out), CLOPS_INVALID_ARGUMENT);
    /* *_like out forms take self's shape and keep out's dtype. */
    clops_tensor *hi = NULL, *io = NULL;
    int64_t seven = 7;
    CT_OK(clops_from_host(ct_cpu(), CLOPS_INT64, 0, NULL, &seven, sizeof seven, &hi));
    CT_OK(clops_empty(ct_cpu(), CLOPS_INT16, 1, CT_I64(1), &io));
    CT_OK(clops_randint_like_tensor_out(m, hi, -1, io));
    CT_ASSERT(clops_tensor_numel(io) == 6 && clops_tensor_dtype(io) == CLOPS_INT16);
    int16_t *iv = ct_to_host(io);
    for (int i = 0; i < 6; i++)
        CT_ASSERT(iv[i] >= 0 && iv[i] < 7);
    free(iv);
    CT_OK(clops_randint_like_tensor(m, hi, CLOPS_DTYPE_NONE, -1, NULL, NULL, -1, &r));
    CT_ASSERT(clops_tensor_dtype(r) == CLOPS_FLOAT32 && clops_tensor_numel(r) == 6);
    clops_tensor_release(r);
    CT_OK(clops_rand_like_out(m, -1, out));
    CT_ASSERT(clops_tensor_numel(out) == 6 && clops_tensor_dtype(out) == CLOPS_FLOAT64);
    /* native_dropout.out writes both results. */
    clops_tensor *mo = NULL;
    bool train = true;
    CT_OK(clops_empty(ct_cpu(), CLOPS_BOOL, 1, CT_I64(1), &mo));
    CT_OK(clops_native_dropout_out(m, 0.5, &train, out, mo));
    CT_ASSERT(clops_tensor_numel(mo) == 6 && clops_tensor_numel(out) == 6);
    clops_tensor_release(mo);
    clops_tensor_release(io);
    clops_tensor_release(hi);
    CT_OK(clops_uniform(m, 2.0, 3.0, NULL, &r));
    float *v = ct_to_host(r);
    for (int i = 0; i < 6; i++)
        CT_ASSERT(v[i] >= 2.0f && v[i] < 3.0f);
    free(v);
    clops_tensor_release(r);
    clops_tensor_release(m);
    clops_tensor_release(out);
}

/* Expects status st and a message containing msg. */
#define EXPECT_ERROR(expr, st, msg)                                                                \
    do {                                                                                           \
        CT_STATUS(expr, st);                                                                       \
        CT_ERROR_CONTAINS(msg);                                                                    \
    } while (0)

static void bad_arguments_get_pytorchs_errors(void **state)
{
    (void)state;
    clops_tensor *f = NULL, *i8 = NULL, *l = NULL, *o = NULL, *o2 = NULL, *p = NULL;
    CT_OK(clops_zeros(ct_cpu(), CLOPS_FLOAT32, 1, CT_I64(3), &f));
    CT_OK(clops_zeros(ct_cpu(), CLOPS_INT8, 1, CT_I64(3), &i8));
    CT_OK(clops_zeros(ct_cpu(), CLOPS_INT64, 1, CT_I64(3), &l));
    int64_t to5 = 5, to300 = 300, to3 = 3;
    EXPECT_ERROR(clops_uniform_(f, 2, 1, NULL), CLOPS_INVALID_ARGUMENT,
                 "uniform_ expects to return a [from, to) range, but found from=2 > to=1");
    EXPECT_ERROR(clops_uniform_(f, -3e38, 3e38, NULL), CLOPS_INVALID_ARGUMENT,
                 "uniform_ expects to-from <= std::numeric_limits<Float>::max()");
    EXPECT_ERROR(clops_uniform_(l, 0, 1, NULL), CLOPS_INVALID_DTYPE,
                 "\"check_uniform_bounds\" not implemented for 'Long'");
    EXPECT_ERROR(clops_normal_(f, 0, -1, NULL), CLOPS_INVALID_ARGUMENT,
                 "normal expects std >= 0.0, but found std -1");
    EXPECT_ERROR(clops_normal_(l, 0, 1, NULL), CLOPS_INVALID_DTYPE,
                 "\"normal_kernel_cpu\" not implemented for 'Long'");
    EXPECT_ERROR(clops_exponential_(f, 0, NULL), CLOPS_INVALID_ARGUMENT,
                 "exponential_ expects lambda > 0.0, but found lambda=0");
    EXPECT_ERROR(clops_geometric_(f, 1, NULL), CLOPS_INVALID_ARGUMENT,
                 "geometric_ expects p to be in (0, 1), but got p=1");
    EXPECT_ERROR(clops_log_normal_(f, 0, 0, NULL), CLOPS_INVALID_ARGUMENT,
                 "log_normal_ expects std > 0.0, but found std=0");
    EXPECT_ERROR(clops_cauchy_(f, 0, 0, NULL), CLOPS_INVALID_ARGUMENT,
                 "cauchy_ expects sigma > 0.0, but found sigma=0");
    EXPECT_ERROR(clops_random_from_(f, 5, &to5, NULL), CLOPS_INVALID_ARGUMENT,
                 "random_ expects 'from' to be less than 'to', but got from=5 >= to=5");
    EXPECT_ERROR(clops_random_from_(i8, 0, &to300, NULL), CLOPS_INVALID_ARGUMENT,
                 "to - 1 is out of bounds for signed char");
    EXPECT_ERROR(clops_random_from_(i8, -200, &to3, NULL), CLOPS_INVALID_ARGUMENT,
                 "from is out of bounds for signed char");
    EXPECT_ERROR(clops_bernoulli_float_(f, 1.5, NULL), CLOPS_INVALID_ARGUMENT,
                 "bernoulli_ expects p to be in [0, 1], but got p=1.5");
    float pv[3] = {2, 0, 0};
    CT_OK(clops_from_host(ct_cpu(), CLOPS_FLOAT32, 1, CT_I64(3), pv, sizeof pv, &p));
    EXPECT_ERROR(clops_bernoulli_(f, p, NULL), CLOPS_INVALID_ARGUMENT,
                 "Expected p_in >= 0 && p_in <= 1 to be true, but got false.");
    EXPECT_ERROR(clops_randint_low(5, 3, CT_I64(2), 1, CLOPS_DTYPE_NONE, -1, ct_cpu(), NULL, &o),
                 CLOPS_INVALID_ARGUMENT,
                 "random_ expects 'from' to be less than 'to', but got from=5 >= to=3");
    EXPECT_ERROR(clops_randint(0, CT_I64(2), 1, CLOPS_DTYPE_NONE, -1, ct_cpu(), NULL, &o),
                 CLOPS_INVALID_ARGUMENT, "but got from=0 >= to=0");
    EXPECT_ERROR(clops_rand(CT_I64(2), 1, CLOPS_INT32, -1, ct_cpu(), NULL, &o), CLOPS_INVALID_DTYPE,
                 "not implemented for 'Int'");
    EXPECT_ERROR(clops_randperm(-1, CLOPS_DTYPE_NONE, -1, ct_cpu(), NULL, &o),
                 CLOPS_INVALID_ARGUMENT, "n must be non-negative");
    EXPECT_ERROR(clops_randperm(300, CLOPS_INT8, -1, ct_cpu(), NULL, &o), CLOPS_INVALID_ARGUMENT,
                 "n is too large for result tensor type: 'Char'");
    float nv[3] = {1, -1, 0}, zv[3] = {0, 0, 0};
    clops_tensor *neg = NULL, *zero = NULL;
    CT_OK(clops_from_host(ct_cpu(), CLOPS_FLOAT32, 1, CT_I64(3), nv, sizeof nv, &neg));
    CT_OK(clops_from_host(ct_cpu(), CLOPS_FLOAT32, 1, CT_I64(3), zv, sizeof zv, &zero));
    EXPECT_ERROR(clops_multinomial(neg, 1, false, NULL, &o), CLOPS_INVALID_ARGUMENT,
                 "probability tensor contains either `inf`, `nan` or element < 0");
    EXPECT_ERROR(clops_multinomial(zero, 1, false, NULL, &o), CLOPS_INVALID_ARGUMENT,
                 "invalid multinomial distribution (sum of probabilities <= 0)");
    EXPECT_ERROR(clops_multinomial(f, 0, false, NULL, &o), CLOPS_INVALID_ARGUMENT,
                 "cannot sample n_sample <= 0 samples");
    EXPECT_ERROR(clops_multinomial(f, 4, false, NULL, &o), CLOPS_INVALID_ARGUMENT,
                 "cannot sample n_sample > prob_dist.size(-1) samples without replacement");
    EXPECT_ERROR(clops_multinomial(l, 1, true, NULL, &o), CLOPS_INVALID_DTYPE,
                 "multinomial only supports floating-point dtypes for input, got: Long");
    EXPECT_ERROR(clops_dropout(f, 1.5, true, &o), CLOPS_INVALID_ARGUMENT,
                 "dropout probability has to be between 0 and 1, but got 1.5");
    bool train = true;
    EXPECT_ERROR(clops_native_dropout(f, 1.5, &train, &o, &o2), CLOPS_INVALID_ARGUMENT,
                 "bernoulli_ expects p to be in [0, 1], but got p=-0.5");
    EXPECT_ERROR(clops_normal_tensor_tensor(f, neg, NULL, &o), CLOPS_INVALID_ARGUMENT,
                 "normal expects all elements of std >= 0.0");
    EXPECT_ERROR(clops_native_dropout_backward(f, f, 2.0, &o), CLOPS_INVALID_DTYPE,
                 "Mask should be Bool Scalar Type");
    clops_tensor_release(neg);
    clops_tensor_release(zero);
    clops_tensor_release(p);
    clops_tensor_release(f);
    clops_tensor_release(i8);
    clops_tensor_release(l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(continuous_distributions_fit),
        cmocka_unit_test(randint_and_bernoulli_fit),
        cmocka_unit_test(geometric_mean_matches),
        cmocka_unit_test(multinomial_fits_and_never_picks_zero_weights),
        cmocka_unit_test(dropout_keeps_one_minus_p_and_scales),
        cmocka_unit_test(randperm_is_a_permutation_on_every_device),
        cmocka_unit_test(values_stay_in_each_dtypes_range),
        cmocka_unit_test(out_variants_resize_and_fill),
        cmocka_unit_test(bad_arguments_get_pytorchs_errors),
    };
    return cmocka_run_group_tests(tests, NULL, ct_teardown_group);
}
