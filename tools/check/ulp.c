/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tools/check/ulp.c: ULP spacing, ULP error and ULP distance per dtype,
 * and the tolerance rule of ulp.h.
 *
 * Everything is computed from each dtype's precision and exponent range with
 * frexp/ldexp, so the same code serves float16, bfloat16, float32 and
 * float64 without bit tricks per format.  This file depends on nothing but
 * clops/dtype.h's enum and libm; it is part of the check engine (libclops_check),
 * which both the tests and the `clops` program link.
 */
#include <math.h>
#include <stdint.h>

#include "ulp.h"

/* Format parameters of the floating dtypes. */
typedef struct ulp_format {
    int p;    /* precision in bits, implicit bit included */
    int emin; /* exponent of the smallest normal */
    int emax; /* exponent of the largest finite */
} ulp_format;

/* The format of dt; false for non-floating dtypes. */
static bool format_of(clops_dtype dt, ulp_format *f)
{
    switch (dt) {
    case CLOPS_FLOAT16:
        *f = (ulp_format){11, -14, 15};
        return true;
    case CLOPS_BFLOAT16:
        *f = (ulp_format){8, -126, 127};
        return true;
    case CLOPS_FLOAT32:
        *f = (ulp_format){24, -126, 127};
        return true;
    case CLOPS_FLOAT64:
        *f = (ulp_format){53, -1022, 1023};
        return true;
    default:
        return false;
    }
}

int ulp_precision(clops_dtype dt)
{
    ulp_format f;
    return format_of(dt, &f) ? f.p : 0;
}

int ulp_min_exponent(clops_dtype dt)
{
    ulp_format f;
    return format_of(dt, &f) ? f.emin : 0;
}

double ulp_max_finite(clops_dtype dt)
{
    ulp_format f;
    if (format_of(dt, &f))
        return ldexp(2.0 - ldexp(1.0, 1 - f.p), f.emax);
    switch (dt) {
    case CLOPS_BOOL:
        return 1.0;
    case CLOPS_UINT8:
        return 255.0;
    case CLOPS_INT8:
        return 127.0;
    case CLOPS_INT16:
        return 32767.0;
    case CLOPS_INT32:
        return 2147483647.0;
    default:
        return 9223372036854775807.0;
    }
}

/* Exponent e with |x| in [2^e, 2^(e+1)), for finite non-zero x. */
static int exponent_of(double x)
{
    int e2 = 0;
    frexp(fabs(x), &e2);
    return e2 - 1;
}

double ulp_spacing(clops_dtype dt, double x)
{
    ulp_format f;
    if (!format_of(dt, &f))
        return 1.0;
    if (!isfinite(x))
        return NAN;
    double ax = fabs(x);
    int e = f.emin;
    if (ax >= ldexp(1.0, f.emin))
        e = exponent_of(ax);
    if (e > f.emax)
        e = f.emax;
    return ldexp(1.0, e - f.p + 1);
}

double ulp_error(clops_dtype dt, double actual, double expected)
{
    if (isnan(actual) || isnan(expected))
        return (isnan(actual) && isnan(expected)) ? 0.0 : INFINITY;
    if (isinf(actual) || isinf(expected))
        return actual == expected ? 0.0 : INFINITY;
    return fabs(actual - expected) / ulp_spacing(dt, expected);
}

/* Position of the non-negative finite value ax among the non-negative
 * values of the format (0 for zero, 1 for the smallest subnormal, ...);
 * the value one past the largest finite for infinity. */
static uint64_t ordinal(const ulp_format *f, double ax)
{
    uint64_t per_binade = (uint64_t)1 << (f->p - 1);
    if (isinf(ax))
        return (uint64_t)(f->emax - f->emin + 2) * per_binade;
    if (ax < ldexp(1.0, f->emin))
        return (uint64_t)floor(ldexp(ax, f->p - 1 - f->emin));
    int e = exponent_of(ax);
    if (e > f->emax)
        e = f->emax;
    uint64_t m = (uint64_t)floor(ldexp(ax, f->p - 1 - e)); /* in [2^(p-1), 2^p) */
    return (uint64_t)(e - f->emin) * per_binade + m;
}

uint64_t ulp_distance(clops_dtype dt, double a, double b)
{
    ulp_format f;
    if (isnan(a) || isnan(b))
        return UINT64_MAX;
    if (!format_of(dt, &f)) {
        double d = fabs(a - b);
        return d >= 1.8446744073709552e19 ? UINT64_MAX : (uint64_t)d;
    }
    uint64_t oa = ordinal(&f, fabs(a)), ob = ordinal(&f, fabs(b));
    bool na = signbit(a) && oa != 0, nb = signbit(b) && ob != 0;
    if (na == nb)
        return oa > ob ? oa - ob : ob - oa;
    return oa + ob;
}

bool ulp_close(clops_dtype dt, double actual, double expected, const ulp_tol *tol)
{
    ulp_format f;
    if (!format_of(dt, &f))
        return actual == expected;
    if (isnan(actual) || isnan(expected))
        return isnan(actual) && isnan(expected);
    if (isinf(actual) || isinf(expected))
        return actual == expected;
    if (tol->signed_zero && actual == 0.0 && expected == 0.0)
        return !signbit(actual) == !signbit(expected);
    double err = fabs(actual - expected);
    double allowed = tol->ulp * ulp_spacing(dt, expected);
    if (tol->atol > allowed)
        allowed = tol->atol;
    return err <= allowed;
}
