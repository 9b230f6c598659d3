/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ref/ref_unary.c: C reference functions of the unary math, rounding and
 * classification pointwise ops (abs ... sinc; see ref/ref_unary.h).
 *
 * They are the CPU kernels of these ops and the oracle the device kernels
 * are checked against, so they follow PyTorch's definitions literally and
 * compute in long double with C's libm wherever a float64 result must be
 * trusted to the last bit.  erfinv and digamma, which libm lacks, are solved
 * here with algorithms of their own (Newton iteration on erf/erfc, and the
 * recurrence plus a long asymptotic series), deliberately different from the
 * OpenCL helpers of dispatch/inventory/pointwise_unary.yaml.
 *
 * Integer and bool computes arrive as .i (int64) and leave as .i; the engine
 * wraps them to the result dtype, so two's complement wrap-around (abs of
 * INT_MIN, neg of uint8) is computed here in uint64 and truncated there.
 */
#include <math.h>

#include "clops/dtype.h"
#include "ref/ref_unary.h"

#define PI_L 3.141592653589793238462643383279502884L

/* True when the call computes in a floating dtype. */
static bool is_float(const ref_pw_ctx *ctx)
{
    return clops_dtype_is_floating(ctx->compute);
}

/* A floating result. */
static ref_value fv(double f)
{
    ref_value v;
    v.f = f;
    return v;
}

/* An integer or bool result. */
static ref_value iv(int64_t i)
{
    ref_value v;
    v.i = i;
    return v;
}

/* Rounds to float32 unless the compute dtype is float64 (for ops whose
 * intermediate roundings are part of their definition). */
static double to_compute(const ref_pw_ctx *ctx, double x)
{
    return ctx->compute == CLOPS_FLOAT64 ? x : (double)(float)x;
}

/* --- sign, magnitude, powers ---------------------------------------------- */

/* abs: |x|; the integer minimum wraps to itself. */
ref_value ref_unary_abs(const ref_pw_ctx *ctx, const ref_value *in)
{
    if (is_float(ctx))
        return fv(fabs(in[0].f));
    int64_t x = in[0].i;
    return iv(x < 0 ? (int64_t)(0 - (uint64_t)x) : x);
}

/* neg: -x, wrapping for integers (neg of uint8 1 is 255). */
ref_value ref_unary_neg(const ref_pw_ctx *ctx, const ref_value *in)
{
    if (is_float(ctx))
        return fv(-in[0].f);
    return iv((int64_t)(0 - (uint64_t)in[0].i));
}

/* sign: (0 < x) - (x < 0), so NaN and -0.0 give +0.0 as in PyTorch's CPU
 * kernel; bool stays as it is. */
ref_value ref_unary_sign(const ref_pw_ctx *ctx, const ref_value *in)
{
    if (is_float(ctx)) {
        double x = in[0].f;
        return fv((double)((x > 0.0) - (x < 0.0)));
    }
    int64_t x = in[0].i;
    return iv((x > 0) - (x < 0));
}

/* signbit: the sign bit of floats (-0.0 and -NaN included), x < 0 for
 * integers. */
ref_value ref_unary_signbit(const ref_pw_ctx *ctx, const ref_value *in)
{
    if (is_float(ctx))
        return iv(signbit(in[0].f) ? 1 : 0);
    return iv(in[0].i < 0);
}

/* square: x * x, wrapping for integers (bool arrives as int64). */
ref_value ref_unary_square(const ref_pw_ctx *ctx, const ref_value *in)
{
    if (is_float(ctx))
        return fv(in[0].f * in[0].f);
    uint64_t x = (uint64_t)in[0].i;
    return iv((int64_t)(x * x));
}

/* reciprocal: 1 / x. */
ref_value ref_unary_reciprocal(const ref_pw_ctx *ctx, const ref_value *in)
{
    (void)ctx;
    return fv(1.0 / in[0].f);
}

/* --- rounding ------------------------------------------------------------- */

/* floor: integers are returned unchanged. */
ref_value ref_unary_floor(const ref_pw_ctx *ctx, const ref_value *in)
{
    return is_float(ctx) ? fv(floor(in[0].f)) : in[0];
}

/* ceil: integers are returned unchanged. */
ref_value ref_unary_ceil(const ref_pw_ctx *ctx, const ref_value *in)
{
    return is_float(ctx) ? fv(ceil(in[0].f)) : in[0];
}

/* trunc: integers are returned unchanged. */
ref_value ref_unary_trunc(const ref_pw_ctx *ctx, const ref_value *in)
{
    return is_float(ctx) ? fv(trunc(in[0].f)) : in[0];
}

/* round: half to even (nearbyint in the default rounding mode). */
ref_value ref_unary_round(const ref_pw_ctx *ctx, const ref_value *in)
{
    return is_float(ctx) ? fv(nearbyint(in[0].f)) : in[0];
}

/*
 * round.decimals: params[0] is 10^|decimals| in the compute precision,
 * params[1] is 1 when decimals < 0.  PyTorch computes
 * nearbyint(x * p) / p (or nearbyint(x / p) * p) in the compute dtype, and
 * the intermediate roundings decide ties, so they are reproduced here.
 */
ref_value ref_unary_round_decimals(const ref_pw_ctx *ctx, const ref_value *in)
{
    double x = in[0].f;
    double p = ctx->params[0].f;
    if (ctx->params[1].i) {
        double q = nearbyint(to_compute(ctx, x / p));
        return fv(to_compute(ctx, q * p));
    }
    double q = nearbyint(to_compute(ctx, x * p));
    return fv(to_compute(ctx, q / p));
}

/* frac: x - trunc(x) (frac(+-inf) is NaN, frac(-0.0) is +0.0). */
ref_value ref_unary_frac(const ref_pw_ctx *ctx, const ref_value *in)
{
    (void)ctx;
    return fv(in[0].f - trunc(in[0].f));
}

/* --- classification ------------------------------------------------------- */

/* isnan: false for every integer. */
ref_value ref_unary_isnan(const ref_pw_ctx *ctx, const ref_value *in)
{
    return iv(is_float(ctx) && isnan(in[0].f));
}

/* isinf: false for every integer. */
ref_value ref_unary_isinf(const ref_pw_ctx *ctx, const ref_value *in)
{
    return iv(is_float(ctx) && isinf(in[0].f));
}

/* isposinf: x == +inf. */
ref_value ref_unary_isposinf(const ref_pw_ctx *ctx, const ref_value *in)
{
    return iv(is_float(ctx) && in[0].f == INFINITY);
}

/* isneginf: x == -inf. */
ref_value ref_unary_isneginf(const ref_pw_ctx *ctx, const ref_value *in)
{
    return iv(is_float(ctx) && in[0].f == -INFINITY);
}

/* isfinite: true for every integer. */
ref_value ref_unary_isfinite(const ref_pw_ctx *ctx, const ref_value *in)
{
    return iv(!is_float(ctx) || isfinite(in[0].f));
}

/* nan_to_num: params (nan, posinf, neginf) already in the compute dtype;
 * integers pass through. */
ref_value ref_unary_nan_to_num(const ref_pw_ctx *ctx, const ref_value *in)
{
    if (!is_float(ctx))
        return in[0];
    double x = in[0].f;
    if (isnan(x))
        return ctx->params[0];
    if (x == INFINITY)
        return ctx->params[1];
    if (x == -INFINITY)
        return ctx->params[2];
    return in[0];
}

/* --- angles --------------------------------------------------------------- */

/* deg2rad: x * (pi / 180), the constant as PyTorch spells it. */
ref_value ref_unary_deg2rad(const ref_pw_ctx *ctx, const ref_value *in)
{
    (void)ctx;
    return fv((double)((long double)in[0].f * (PI_L / 180.0L)));
}

/* rad2deg: x * (180 / pi). */
ref_value ref_unary_rad2deg(const ref_pw_ctx *ctx, const ref_value *in)
{
    (void)ctx;
    return fv((double)((long double)in[0].f * (180.0L / PI_L)));
}

/* --- libm functions --------------------------------------------------------- */

/* One reference per libm function, computed in long double so that float64
 * computes are checked against a result better than double. */
#define REF_LIBM(name, fn)                                                          \
    ref_value ref_unary_##name(const ref_pw_ctx *ctx, const ref_value *in)            \
    {                                                                               \
        (void)ctx;                                                                  \
        return fv((double)fn((long double)in[0].f));                                \
    }

REF_LIBM(sqrt, sqrtl)
REF_LIBM(exp, expl)
REF_LIBM(exp2, exp2l)
REF_LIBM(expm1, expm1l)
REF_LIBM(log, logl)
REF_LIBM(log2, log2l)
REF_LIBM(log10, log10l)
REF_LIBM(log1p, log1pl)
REF_LIBM(sin, sinl)
REF_LIBM(cos, cosl)
REF_LIBM(tan, tanl)
REF_LIBM(asin, asinl)
REF_LIBM(acos, acosl)
REF_LIBM(atan, atanl)
REF_LIBM(sinh, sinhl)
REF_LIBM(cosh, coshl)
REF_LIBM(tanh, tanhl)
REF_LIBM(asinh, asinhl)
REF_LIBM(acosh, acoshl)
REF_LIBM(atanh, atanhl)
REF_LIBM(erf, erfl)
REF_LIBM(erfc, erfcl)
REF_LIBM(lgamma, lgammal)

/* rsqrt: 1 / sqrt(x) (inf at +-0 with the sign of zero: 1/-0.0 is -inf). */
ref_value ref_unary_rsqrt(const ref_pw_ctx *ctx, const ref_value *in)
{
    (void)ctx;
    return fv((double)(1.0L / sqrtl((long double)in[0].f)));
}

/* --- special functions ------------------------------------------------------ */

/* sin(pi * r) for r in [-1, 1], reduced to [-1/2, 1/2] exactly. */
static long double sinpi_reduced(long double r)
{
    if (r > 0.5L)
        r = 1.0L - r;
    else if (r < -0.5L)
        r = -1.0L - r;
    return sinl(PI_L * r);
}

/* cos(pi * r) for r in [-1, 1]. */
static long double cospi_reduced(long double r)
{
    r = fabsl(r);
    if (r > 0.5L)
        return -sinl(PI_L * (r - 0.5L));
    return sinl(PI_L * (0.5L - r));
}

/* Reduces x modulo 2 into [-1, 1] exactly (x finite). */
static long double reduce2(double x)
{
    long double r = fmodl((long double)x, 2.0L);
    if (r > 1.0L)
        r -= 2.0L;
    else if (r < -1.0L)
        r += 2.0L;
    return r;
}

double ref_sinpi(double x)
{
    if (!isfinite(x))
        return NAN;
    long double s = sinpi_reduced(reduce2(x));
    return s == 0.0L ? 0.0 : (double)s;
}

/* sinc: sin(pi x) / (pi x), 1 at zero. */
ref_value ref_unary_sinc(const ref_pw_ctx *ctx, const ref_value *in)
{
    (void)ctx;
    double x = in[0].f;
    if (x == 0.0)
        return fv(1.0);
    if (!isfinite(x))
        return fv(NAN);
    long double s = sinpi_reduced(reduce2(x));
    return fv((double)(s / (PI_L * (long double)x)));
}

double ref_erfinv(double x)
{
    if (isnan(x) || x < -1.0 || x > 1.0)
        return NAN;
    if (x == 1.0 || x == -1.0)
        return copysign(INFINITY, x);
    if (x == 0.0)
        return x;
    long double a = fabsl((long double)x);
    /* Starting point: Winitzki's closed form (about 2e-3 relative). */
    long double l = logl((1.0L - a) * (1.0L + a));
    long double k = 2.0L / (PI_L * 0.147L) + l / 2.0L;
    long double y = sqrtl(sqrtl(k * k - l / 0.147L) - k);
    /* Newton on erf(y) = a; near 1 on erfc(y) = 1 - a, which is exact. */
    long double one_minus = 1.0L - a;
    for (int it = 0; it < 60; it++) {
        long double f = a <= 0.5L ? erfl(y) - a : one_minus - erfcl(y);
        long double d = 1.1283791670955125738961589031215452L * expl(-y * y);
        long double step = f / d;
        y -= step;
        if (fabsl(step) <= 1e-21L * y)
            break;
    }
    return x < 0 ? (double)-y : (double)y;
}

/* Asymptotic digamma for x >= 20: log x - 1/(2x) - sum B_2k / (2k x^2k). */
static long double digamma_asymptotic(long double x)
{
    static const long double c[] = {
        1.0L / 12.0L,      -1.0L / 120.0L,      1.0L / 252.0L, -1.0L / 240.0L,
        1.0L / 132.0L,     -691.0L / 32760.0L,  1.0L / 12.0L,  -3617.0L / 8160.0L,
    };
    long double z = 1.0L / (x * x);
    long double zk = z;
    long double s = 0.0L;
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        s += c[i] * zk;
        zk *= z;
    }
    return logl(x) - 0.5L / x - s;
}

double ref_digamma(double x)
{
    if (x == 0.0)
        return copysign(INFINITY, -x);
    if (isnan(x) || x == INFINITY)
        return x;
    long double acc = 0.0L;
    long double y = (long double)x;
    if (x < 0.0) {
        if (x == floor(x))
            return NAN; /* negative integers and -inf */
        /* Reflection: psi(x) = psi(1 - x) - pi / tan(pi x). */
        long double r = reduce2(x);
        acc = -PI_L * cospi_reduced(r) / sinpi_reduced(r);
        y = 1.0L - y;
    }
    while (y < 20.0L) {
        acc -= 1.0L / y;
        y += 1.0L;
    }
    return (double)(acc + digamma_asymptotic(y));
}

/* erfinv: the inverse error function. */
ref_value ref_unary_erfinv(const ref_pw_ctx *ctx, const ref_value *in)
{
    (void)ctx;
    return fv(ref_erfinv(in[0].f));
}

/* digamma: the logarithmic derivative of gamma. */
ref_value ref_unary_digamma(const ref_pw_ctx *ctx, const ref_value *in)
{
    (void)ctx;
    return fv(ref_digamma(in[0].f));
}
