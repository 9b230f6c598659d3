/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/fft_check.h: what tests/test_fft.c and tests/test_fft_dims.c share:
 * the FFT ops' calls, complex test tensors, and one op on an OpenCL device
 * compared with the CPU device (the reference, ref/fft.c).
 */
#ifndef CLOPS_TESTS_FFT_CHECK_H
#define CLOPS_TESTS_FFT_CHECK_H

#include <math.h>
#include <string.h>

#include "clops/ops.h"
#include "support/clops_test.h"

static clops_status r2c(clops_tensor *x, const int64_t *dims, int nd, int norm, bool onesided,
                        clops_tensor **out)
{
    return clops__fft_r2c(x, dims, nd, norm, onesided, out);
}

static clops_status c2r(clops_tensor *x, const int64_t *dims, int nd, int norm, int64_t n,
                        clops_tensor **out)
{
    return clops__fft_c2r(x, dims, nd, norm, n, out);
}

static clops_status c2c(clops_tensor *x, const int64_t *dims, int nd, int norm, bool fwd,
                        clops_tensor **out)
{
    return clops__fft_c2c(x, dims, nd, norm, fwd, out);
}

/* A complex tensor of the layout whose real view holds random values. */
static clops_tensor *random_complex(clops_device *dev, clops_dtype dt, int ndim,
                                    const int64_t *sizes, ct_layout layout, uint64_t seed)
{
    int64_t rs[CLOPS_MAX_DIMS];
    memcpy(rs, sizes, sizeof(int64_t) * (size_t)ndim);
    rs[ndim] = 2;
    /* A real tensor [.., 2] of the layout over its first ndim dims: built
     * contiguous, copied into a complex tensor of the layout. */
    clops_tensor *r = ct_random(dev, clops_dtype_to_real(dt), ndim + 1, rs, CT_CONTIGUOUS,
                                PW_DOMAIN_SMALL, seed);
    clops_tensor *c = NULL, *out = ct_empty_layout(dev, dt, ndim, sizes, layout);
    CT_OK(clops_view_as_complex(r, &c));
    CT_OK(clops_copy_(out, c, false));
    clops_tensor_release(r);
    clops_tensor_release(c);
    return out;
}

/* Elementwise closeness of two tensors of one dtype, complex ones through
 * their real views; the floor grows with the transform's size. */
static void assert_close(clops_tensor *a, clops_tensor *e, double points)
{
    clops_tensor *ra = a, *re = e;
    bool cplx = clops_dtype_is_complex(a->dtype);
    if (cplx) {
        CT_OK(clops_view_as_real(a, &ra));
        CT_OK(clops_view_as_real(e, &re));
    }
    bool dbl = ra->dtype == CLOPS_FLOAT64;
    double lg = log2(points + 1.0);
    ct_tol tol = ct_tol_ulp_atol(64, (dbl ? 4e-14 : 2e-5) * sqrt(points) * (lg + 1.0));
    CT_ASSERT_CLOSE(ra, re, tol);
    if (cplx) {
        clops_tensor_release(ra);
        clops_tensor_release(re);
    }
}

enum kind { R2C, C2R, C2C };

/* One op on dev and on the CPU device (from the same values), compared. */
static void check_case(clops_device *dev, enum kind k, clops_dtype real_dt, int ndim,
                       const int64_t *sizes, ct_layout layout, const int64_t *dims, int nd,
                       int norm, bool flag, int64_t n_last, uint64_t seed)
{
    clops_dtype cdt = clops_dtype_to_complex(real_dt);
    clops_tensor *x = k == R2C ? ct_random(dev, real_dt, ndim, sizes, layout, PW_DOMAIN_SMALL,
                                           seed)
                               : random_complex(dev, cdt, ndim, sizes, layout, seed);
    clops_tensor *xc = NULL, *got = NULL, *want = NULL;
    CT_OK(clops_tensor_to_device(x, ct_cpu(), &xc));
    double points = 1;
    for (int i = 0; i < nd; i++) {
        int d = (int)((dims[i] + ndim) % ndim);
        points *= (k == C2R && i == nd - 1) ? (double)n_last : (double)sizes[d];
    }
    if (k == R2C) {
        CT_OK(r2c(x, dims, nd, norm, flag, &got));
        CT_OK(r2c(xc, dims, nd, norm, flag, &want));
    } else if (k == C2R) {
        CT_OK(c2r(x, dims, nd, norm, n_last, &got));
        CT_OK(c2r(xc, dims, nd, norm, n_last, &want));
    } else {
        CT_OK(c2c(x, dims, nd, norm, flag, &got));
        CT_OK(c2c(xc, dims, nd, norm, flag, &want));
    }
    CT_ASSERT(got->storage->device == dev);
    CT_ASSERT(got->dtype == want->dtype);
    assert_close(got, want, points);
    clops_tensor_release(x);
    clops_tensor_release(xc);
    clops_tensor_release(got);
    clops_tensor_release(want);
}

#endif /* CLOPS_TESTS_FFT_CHECK_H */
