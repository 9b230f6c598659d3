/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/test_fft.c: the complex dtypes and the FFT family (_fft_r2c,
 * _fft_c2r, _fft_c2c; docs/fft.md).
 *
 * What each test pins down:
 *   - the reference (the CPU device) against closed forms: a plane wave
 *     transforms to n at one frequency, rfft of [1, 2, 3, 4], c2r inverting
 *     r2c for odd and even lengths, every normalization;
 *   - every OpenCL device against the reference: lengths 1, 2, 3, 7, 8, 60,
 *     97 and 256, batched, every norm mode, one-sided and two-sided r2c,
 *     c2r with odd and even last_dim_size, forward and backward c2c; out=
 *     forms into strided outputs; the same bits on a second run (2-D to
 *     4-D transforms, strided inputs and complex128: test_fft_dims.c, a
 *     test of its own for CI's time per test: every VkFFT plan is a program
 *     build on POCL);
 *   - argument errors as PyTorch's;
 *   - complex tensors: names and sizes, view_as_real / view_as_complex and
 *     their errors, copies host <-> device, strided, complex64 <-> complex128
 *     and real <-> complex casts, fills, and the refusal of every other op
 *     (typed, boxed, and a complex dtype argument) naming op and dtype.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fft_check.h"

#define I64 CT_I64

/* ---- the reference against closed forms -------------------------------- */

static void test_reference_closed_forms(void **state)
{
    (void)state;
    clops_device *cpu = ct_cpu();
    ct_set_device(cpu);
    /* rfft([1, 2, 3, 4]) = [10, -2 + 2i, -2]. */
    float x4[4] = {1, 2, 3, 4};
    clops_tensor *x = ct_from_values(cpu, CLOPS_FLOAT32, 1, I64(4), CT_CONTIGUOUS, x4), *y = NULL;
    CT_OK(r2c(x, I64(0), 1, 0, true, &y));
    CT_ASSERT(y->dtype == CLOPS_COMPLEX64 && y->ndim == 1 && y->sizes[0] == 3);
    float got[6];
    CT_OK(clops_tensor_to_host(y, got, sizeof got));
    const float want[6] = {10, 0, -2, 2, -2, 0};
    for (int i = 0; i < 6; i++)
        CT_ASSERT_MSG(fabsf(got[i] - want[i]) < 1e-6f, "rfft[%d]: %g, expected %g", i, got[i],
                      want[i]);
    /* c2r inverts it with normalization 2 (by 1/n). */
    clops_tensor *back = NULL;
    CT_OK(c2r(y, I64(0), 1, 2, 4, &back));
    float b4[4];
    CT_OK(clops_tensor_to_host(back, b4, sizeof b4));
    for (int i = 0; i < 4; i++)
        CT_ASSERT_MSG(fabsf(b4[i] - x4[i]) < 1e-6f, "irfft[%d]: %g", i, b4[i]);
    clops_tensor_release(x);
    clops_tensor_release(y);
    clops_tensor_release(back);

    /* A plane wave exp(2 pi i m j / n) transforms to n at frequency m (and
     * 0 elsewhere) forward; backward with 1/n gives it back. */
    static const int64_t ns[] = {1, 7, 60, 97};
    for (size_t t = 0; t < CT_COUNT(ns); t++) {
        int64_t n = ns[t], m = n / 3;
        double *w = malloc(sizeof(double) * 2 * (size_t)n);
        for (int64_t j = 0; j < n; j++) {
            double a = 6.283185307179586 * (double)((m * j) % n) / (double)n;
            w[2 * j] = cos(a);
            w[2 * j + 1] = sin(a);
        }
        clops_tensor *c = NULL, *f = NULL, *g = NULL;
        CT_OK(clops_from_host(cpu, CLOPS_COMPLEX128, 1, I64(n), w, sizeof(double) * 2 * (size_t)n,
                              &c));
        CT_OK(c2c(c, I64(-1), 1, 0, true, &f));
        double *fv = malloc(sizeof(double) * 2 * (size_t)n);
        CT_OK(clops_tensor_to_host(f, fv, sizeof(double) * 2 * (size_t)n));
        for (int64_t k = 0; k < n; k++) {
            double er = k == m ? (double)n : 0.0;
            CT_ASSERT_MSG(fabs(fv[2 * k] - er) < 1e-9 && fabs(fv[2 * k + 1]) < 1e-9,
                          "n %lld: X[%lld] = %g%+gi, expected %g", (long long)n, (long long)k,
                          fv[2 * k], fv[2 * k + 1], er);
        }
        CT_OK(c2c(f, I64(0), 1, 2, false, &g));
        CT_OK(clops_tensor_to_host(g, fv, sizeof(double) * 2 * (size_t)n));
        for (int64_t j = 0; j < 2 * n; j++)
            CT_ASSERT_MSG(fabs(fv[j] - w[j]) < 1e-12, "n %lld: round trip [%lld] %g vs %g",
                          (long long)n, (long long)j, fv[j], w[j]);
        /* Normalization 1 scales by 1/sqrt(n). */
        clops_tensor_release(f);
        CT_OK(c2c(c, I64(0), 1, 1, true, &f));
        CT_OK(clops_tensor_to_host(f, fv, sizeof(double) * 2 * (size_t)n));
        CT_ASSERT(fabs(fv[2 * m] - sqrt((double)n)) < 1e-9);
        free(w);
        free(fv);
        clops_tensor_release(c);
        clops_tensor_release(f);
        clops_tensor_release(g);
    }
}

/* c2r(r2c(x)) == n x for odd and even lengths (the Hermitian half). */
static void test_reference_round_trip(void **state)
{
    (void)state;
    clops_device *cpu = ct_cpu();
    ct_set_device(cpu);
    for (int64_t n = 1; n <= 9; n++) {
        ct_set_case("n %lld", (long long)n);
        clops_tensor *x = ct_random(cpu, CLOPS_FLOAT64, 2, I64(3, n), CT_CONTIGUOUS,
                                    PW_DOMAIN_SMALL, (uint64_t)n);
        clops_tensor *y = NULL, *z = NULL;
        CT_OK(r2c(x, I64(1), 1, 0, true, &y));
        CT_ASSERT(y->sizes[1] == n / 2 + 1);
        CT_OK(c2r(y, I64(1), 1, 2, n, &z));
        CT_ASSERT_CLOSE(z, x, ct_tol_ulp_atol(64, 1e-13));
        clops_tensor_release(x);
        clops_tensor_release(y);
        clops_tensor_release(z);
    }
    ct_clear_context();
}

/* ---- OpenCL devices against the reference -------------------------------- */

static const int64_t lengths[] = {1, 2, 3, 7, 8, 60, 97, 256};

static void test_1d_every_length(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int ndev = ct_opencl_devices(devs, CT_MAX_DEVICES);
    for (int di = 0; di < ndev; di++) {
        ct_set_device(devs[di]);
        for (size_t t = 0; t < CT_COUNT(lengths); t++) {
            int64_t n = lengths[t];
            int norm = (int)(t % 3);
            uint64_t seed = 100 + t;
            ct_set_case("c2c n %lld norm %d", (long long)n, norm);
            check_case(devs[di], C2C, CLOPS_FLOAT32, 2, I64(3, n), CT_CONTIGUOUS, I64(1), 1, norm,
                       true, 0, seed);
            check_case(devs[di], C2C, CLOPS_FLOAT32, 2, I64(3, n), CT_CONTIGUOUS, I64(1), 1,
                       (norm + 1) % 3, false, 0, seed);
            ct_set_case("r2c n %lld norm %d", (long long)n, norm);
            check_case(devs[di], R2C, CLOPS_FLOAT32, 2, I64(3, n), CT_CONTIGUOUS, I64(1), 1, norm,
                       true, 0, seed);
            check_case(devs[di], R2C, CLOPS_FLOAT32, 2, I64(3, n), CT_CONTIGUOUS, I64(1), 1,
                       (norm + 2) % 3, false, 0, seed);
            ct_set_case("c2r n %lld norm %d", (long long)n, norm);
            check_case(devs[di], C2R, CLOPS_FLOAT32, 2, I64(3, n / 2 + 1), CT_CONTIGUOUS, I64(1),
                       1, norm, false, n, seed);
        }
    }
    ct_clear_context();
}

/* out= into strided outputs, and the same bits twice. */
static void test_out_and_determinism(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int ndev = ct_devices(devs, CT_MAX_DEVICES);
    for (int di = 0; di < ndev; di++) {
        clops_device *d = devs[di];
        ct_set_device(d);
        clops_tensor *x = ct_random(d, CLOPS_FLOAT32, 2, I64(5, 12), CT_CONTIGUOUS,
                                    PW_DOMAIN_SMALL, 31);
        clops_tensor *a = NULL, *b = NULL;
        CT_OK(r2c(x, I64(1), 1, 1, true, &a));
        CT_OK(r2c(x, I64(1), 1, 1, true, &b));
        CT_ASSERT_CLOSE(a, b, CT_TOL_EXACT);
        ct_guarded g = ct_guarded_new(d, CLOPS_COMPLEX64, 2, I64(5, 7), CT_TRANSPOSED);
        CT_OK(clops__fft_r2c_out(x, I64(1), 1, 1, true, g.t));
        CT_ASSERT_CLOSE(g.t, a, CT_TOL_EXACT);
        CT_GUARDS_INTACT(&g);
        ct_guarded_release(&g);
        /* A complex64 result into a complex128 out (a castable dtype). */
        clops_tensor *wide = NULL;
        if (ct_device_supports(d, CLOPS_FLOAT64)) {
            CT_OK(clops_empty(d, CLOPS_COMPLEX128, 1, I64(1), &wide));
            CT_OK(clops__fft_r2c_out(x, I64(1), 1, 1, true, wide));
            CT_ASSERT(wide->dtype == CLOPS_COMPLEX128 && wide->sizes[1] == 7);
            clops_tensor_release(wide);
        }
        /* A real out cannot take a complex result. */
        clops_tensor *real = NULL;
        CT_OK(clops_empty(d, CLOPS_FLOAT32, 2, I64(5, 7), &real));
        CT_STATUS(clops__fft_r2c_out(x, I64(1), 1, 1, true, real), CLOPS_INVALID_DTYPE);
        clops_tensor_release(real);
        clops_tensor_release(x);
        clops_tensor_release(a);
        clops_tensor_release(b);
    }
    ct_clear_context();
}

static void test_errors(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int ndev = ct_devices(devs, CT_MAX_DEVICES);
    for (int di = 0; di < ndev; di++) {
        clops_device *d = devs[di];
        ct_set_device(d);
        clops_tensor *f = ct_random(d, CLOPS_FLOAT32, 2, I64(3, 4), CT_CONTIGUOUS,
                                    PW_DOMAIN_SMALL, 1);
        clops_tensor *i = ct_random(d, CLOPS_INT32, 2, I64(3, 4), CT_CONTIGUOUS, PW_DOMAIN_SMALL,
                                    1);
        clops_tensor *c = random_complex(d, CLOPS_COMPLEX64, 2, I64(3, 4), CT_CONTIGUOUS, 2);
        clops_tensor *o = NULL;
        CT_STATUS(r2c(i, I64(1), 1, 0, true, &o), CLOPS_INVALID_DTYPE);
        CT_ERROR_CONTAINS("Only supports floating-point dtypes");
        CT_STATUS(r2c(c, I64(1), 1, 0, true, &o), CLOPS_INVALID_DTYPE);
        CT_STATUS(c2c(f, I64(1), 1, 0, true, &o), CLOPS_INVALID_DTYPE);
        CT_ERROR_CONTAINS("Only supports complex dtypes, but found: float32");
        CT_STATUS(c2r(f, I64(1), 1, 0, 6, &o), CLOPS_INVALID_DTYPE);
        CT_STATUS(c2c(c, I64(1, -1), 2, 0, true, &o), CLOPS_INVALID_ARGUMENT);
        CT_ERROR_CONTAINS("unique");
        CT_STATUS(c2c(c, I64(2), 1, 0, true, &o), CLOPS_INDEX_OUT_OF_RANGE);
        CT_STATUS(c2c(c, NULL, 0, 0, true, &o), CLOPS_INVALID_ARGUMENT);
        CT_STATUS(c2c(c, I64(1), 1, 3, true, &o), CLOPS_INVALID_ARGUMENT);
        CT_ERROR_CONTAINS("normalization");
        /* c2r: the last dim must hold n/2 + 1 (or n) values. */
        CT_STATUS(c2r(c, I64(1), 1, 0, 10, &o), CLOPS_INVALID_SHAPE);
        CT_STATUS(c2r(c, I64(1), 1, 0, 0, &o), CLOPS_INVALID_ARGUMENT);
        CT_OK(c2r(c, I64(1), 1, 0, 7, &o)); /* 4 == 7/2 + 1 */
        CT_ASSERT(o->dtype == CLOPS_FLOAT32 && o->sizes[1] == 7);
        clops_tensor_release(o);
        CT_OK(c2r(c, I64(1), 1, 0, 4, &o)); /* 4 == n: the first 3 are read */
        clops_tensor_release(o);
        /* Zero points along a transformed dim. */
        clops_tensor *z = NULL;
        CT_OK(clops_empty(d, CLOPS_FLOAT32, 2, I64(3, 0), &z));
        CT_STATUS(r2c(z, I64(1), 1, 0, true, &o), CLOPS_INVALID_ARGUMENT);
        CT_ERROR_CONTAINS("Invalid number of data points (0)");
        /* An empty batch is an empty result. */
        CT_OK(r2c(z, I64(0), 1, 0, true, &o));
        CT_ASSERT(o->sizes[0] == 2 && o->sizes[1] == 0);
        clops_tensor_release(o);
        clops_tensor_release(z);
        clops_tensor_release(f);
        clops_tensor_release(i);
        clops_tensor_release(c);
    }
    ct_clear_context();
}

/* ---- the complex dtypes ------------------------------------------------- */

static void test_complex_dtypes(void **state)
{
    (void)state;
    CT_ASSERT(strcmp(clops_dtype_name(CLOPS_COMPLEX64), "complex64") == 0);
    CT_ASSERT(strcmp(clops_dtype_name(CLOPS_COMPLEX128), "complex128") == 0);
    CT_ASSERT(clops_dtype_size(CLOPS_COMPLEX64) == 8 && clops_dtype_size(CLOPS_COMPLEX128) == 16);
    CT_ASSERT(clops_dtype_size(CLOPS_DTYPE_COUNT_ALL) == 0);
    clops_dtype dt;
    CT_OK(clops_dtype_from_name("torch.complex64", &dt));
    CT_ASSERT(dt == CLOPS_COMPLEX64);
    CT_OK(clops_dtype_from_name("cdouble", &dt));
    CT_ASSERT(dt == CLOPS_COMPLEX128);
    CT_ASSERT(clops_dtype_is_complex(CLOPS_COMPLEX64) && !clops_dtype_is_floating(CLOPS_COMPLEX64));
    CT_ASSERT(clops_dtype_to_real(CLOPS_COMPLEX128) == CLOPS_FLOAT64);
    CT_ASSERT(clops_dtype_to_complex(CLOPS_FLOAT16) == CLOPS_DTYPE_NONE);
    CT_ASSERT(clops_dtype_is_signed(CLOPS_COMPLEX64));

    clops_device *devs[CT_MAX_DEVICES];
    int ndev = ct_devices(devs, CT_MAX_DEVICES);
    for (int di = 0; di < ndev; di++) {
        clops_device *d = devs[di];
        ct_set_device(d);
        /* Host round trip, and the real view's values. */
        const float v[6] = {1, -2, 3.5f, 4, -5, 6};
        clops_tensor *c = NULL, *rv = NULL, *back = NULL;
        CT_OK(clops_from_host(d, CLOPS_COMPLEX64, 1, I64(3), v, sizeof v, &c));
        float h[6];
        CT_OK(clops_tensor_to_host(c, h, sizeof h));
        CT_ASSERT(memcmp(h, v, sizeof v) == 0);
        CT_OK(clops_view_as_real(c, &rv));
        CT_ASSERT(rv->dtype == CLOPS_FLOAT32 && rv->ndim == 2 && rv->sizes[1] == 2 &&
                  rv->strides[0] == 2 && rv->storage == c->storage);
        CT_OK(clops_view_as_complex(rv, &back));
        CT_ASSERT(back->dtype == CLOPS_COMPLEX64 && back->sizes[0] == 3);
        /* view_as_complex's checks. */
        clops_tensor *t = NULL, *bad = NULL, *sq = NULL, *nar = NULL;
        CT_OK(clops_narrow(rv, 0, 0, 2, &sq)); /* [2, 2] */
        CT_OK(clops_transpose(sq, 0, 1, &t));
        CT_STATUS(clops_view_as_complex(t, &bad), CLOPS_INVALID_SHAPE);
        CT_ERROR_CONTAINS("last dimension with stride 1");
        CT_OK(clops_narrow(back, 0, 0, 2, &nar));
        clops_tensor_release(sq);
        CT_OK(clops_view_as_real(nar, &sq));
        clops_tensor_release(t);
        CT_OK(clops_narrow(sq, 1, 0, 1, &t)); /* last dim of size 1 */
        CT_STATUS(clops_view_as_complex(t, &bad), CLOPS_INVALID_SHAPE);
        CT_ERROR_CONTAINS("last dimension of size 2");
        clops_tensor_release(sq);
        clops_tensor_release(nar);
        CT_STATUS(clops_view_as_real(rv, &bad), CLOPS_INVALID_DTYPE);
        clops_tensor_release(t);
        /* Strided copy (a transposed complex view) and casts. */
        clops_tensor *m = random_complex(d, CLOPS_COMPLEX64, 2, I64(4, 5), CT_CONTIGUOUS, 3);
        clops_tensor *mt = NULL, *mc = NULL, *mh = NULL;
        CT_OK(clops_transpose(m, 0, 1, &mt));
        CT_OK(clops_contiguous(mt, 0, &mc));
        float *src = ct_to_host(m), *dst = ct_to_host(mc);
        for (int i = 0; i < 4; i++)
            for (int j = 0; j < 5; j++)
                CT_ASSERT(dst[2 * (j * 4 + i)] == src[2 * (i * 5 + j)] &&
                          dst[2 * (j * 4 + i) + 1] == src[2 * (i * 5 + j) + 1]);
        free(dst);
        CT_OK(clops_tensor_to_device(mt, ct_cpu(), &mh));
        dst = ct_to_host(mh);
        for (int i = 0; i < 4; i++)
            for (int j = 0; j < 5; j++)
                CT_ASSERT(dst[2 * (j * 4 + i) + 1] == src[2 * (i * 5 + j) + 1]);
        free(dst);
        clops_tensor *re = NULL, *cz = NULL;
        CT_OK(clops__to_copy(m, CLOPS_FLOAT32, -1, NULL, NULL, false, -1, &re));
        float *rh = ct_to_host(re);
        for (int i = 0; i < 20; i++)
            CT_ASSERT(rh[i] == src[2 * i]); /* the real parts */
        CT_OK(clops__to_copy(re, CLOPS_COMPLEX64, -1, NULL, NULL, false, -1, &cz));
        float *zh = ct_to_host(cz);
        for (int i = 0; i < 20; i++)
            CT_ASSERT(zh[2 * i] == rh[i] && zh[2 * i + 1] == 0.0f);
        free(rh);
        free(zh);
        if (ct_device_supports(d, CLOPS_FLOAT64)) {
            clops_tensor *w = NULL;
            CT_OK(clops__to_copy(m, CLOPS_COMPLEX128, -1, NULL, NULL, false, -1, &w));
            double *wh = ct_to_host(w);
            for (int i = 0; i < 40; i++)
                CT_ASSERT(wh[i] == (double)src[i]);
            free(wh);
            clops_tensor_release(w);
        }
        free(src);
        /* Fills: a real value into the real parts, zero imaginary parts. */
        clops_tensor *fl = NULL;
        CT_OK(clops_full(d, CLOPS_COMPLEX64, 1, I64(3), clops_scalar_float(2.5), &fl));
        CT_OK(clops_tensor_to_host(fl, h, sizeof h));
        for (int i = 0; i < 3; i++)
            CT_ASSERT(h[2 * i] == 2.5f && h[2 * i + 1] == 0.0f);
        CT_OK(clops_zero_(fl));
        CT_OK(clops_tensor_to_host(fl, h, sizeof h));
        for (int i = 0; i < 6; i++)
            CT_ASSERT(h[i] == 0.0f);
        /* Every other op refuses complex, naming op and dtype. */
        clops_tensor *sum = NULL;
        CT_STATUS(clops_add(c, c, clops_scalar_int(1), &sum), CLOPS_NOT_IMPLEMENTED);
        CT_ERROR_CONTAINS("add.Tensor: dtype complex64 is not supported");
        CT_STATUS(clops_add(rv, c, clops_scalar_int(1), &sum), CLOPS_NOT_IMPLEMENTED);
        CT_STATUS(clops_op_arange(clops_scalar_int(0), clops_scalar_int(3), clops_scalar_int(1),
                                  CLOPS_COMPLEX64, -1, d, NULL, &sum),
                  CLOPS_NOT_IMPLEMENTED);
        CT_ERROR_CONTAINS("arange");
        clops_scalar item;
        clops_tensor *one = NULL;
        CT_OK(clops_select(fl, 0, 1, &one));
        CT_STATUS(clops_tensor_item(one, &item), CLOPS_NOT_IMPLEMENTED);
        clops_tensor_release(one);
        const clops_op *add = NULL;
        CT_OK(clops_op_find("add.Tensor", &add));
        clops_value args[3] = {clops_value_tensor(c), clops_value_tensor(c),
                               clops_value_scalar(clops_scalar_int(1))};
        clops_value ret[1];
        CT_STATUS(clops_call_boxed(add, args, 3, ret, 1), CLOPS_NOT_IMPLEMENTED);
        CT_ERROR_CONTAINS("complex64");
        clops_tensor_release(fl);
        clops_tensor_release(c);
        clops_tensor_release(rv);
        clops_tensor_release(back);
        clops_tensor_release(m);
        clops_tensor_release(mt);
        clops_tensor_release(mc);
        clops_tensor_release(mh);
        clops_tensor_release(re);
        clops_tensor_release(cz);
    }
    ct_clear_context();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_complex_dtypes),
        cmocka_unit_test(test_reference_closed_forms),
        cmocka_unit_test(test_reference_round_trip),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_out_and_determinism),
        cmocka_unit_test(test_1d_every_length),
    };
    return cmocka_run_group_tests(tests, NULL, ct_teardown_group);
}
