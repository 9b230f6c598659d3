/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ref/ref_binary_math.c: reference functions of the floating binary
 * functions (atan2, hypot, copysign, nextafter, xlogy, logaddexp,
 * logaddexp2) and of heaviside; see ref/ref_binary.h for the conventions.
 *
 * The transcendental ones compute in double and let the executor round, so
 * they are within half an ulp of the true value in float32: the device
 * kernels are checked against them with the op's ulp budget.  nextafter is
 * exact by construction and steps in the format of the op's dtype (float16
 * and bfloat16 step to their own neighbours although they compute in float).
 */
#include <math.h>
#include <stdint.h>

#include "ref/ref_binary.h"

/* atan2(self, other), the angle of the point (other, self). */
ref_value ref_atan2(const ref_pw_ctx *ctx, const ref_value *in)
{
    (void)ctx;
    ref_value r;
    r.f = atan2(in[0].f, in[1].f);
    return r;
}

/* sqrt(self^2 + other^2) without intermediate overflow. */
ref_value ref_hypot(const ref_pw_ctx *ctx, const ref_value *in)
{
    (void)ctx;
    ref_value r;
    r.f = hypot(in[0].f, in[1].f);
    return r;
}

/* |self| with the sign bit of other (-0.0 and NaN signs count). */
ref_value ref_copysign(const ref_pw_ctx *ctx, const ref_value *in)
{
    (void)ctx;
    ref_value r;
    r.f = copysign(in[0].f, in[1].f);
    return r;
}

/* The neighbour of `from` towards `to` in a 16-bit IEEE-like format, given
 * their bit patterns (neither NaN): `to` when both are the same number (so
 * -0 and +0 give `to`), the smallest subnormal with to's sign from a zero,
 * else one step of the bit pattern (magnitude order is bit order within a
 * sign). */
static uint16_t next16(uint16_t from, uint16_t to, bool equal)
{
    const uint16_t sign = 0x8000u;
    if (equal)
        return to;
    uint16_t af = from & (uint16_t)~sign, at = to & (uint16_t)~sign;
    if (af == 0)
        return (uint16_t)((to & sign) | 1u);
    if (af > at || ((from ^ to) & sign))
        return (uint16_t)(from - 1u);
    return (uint16_t)(from + 1u);
}

/* nextafter(self, other); param 0 is a ref_nextafter_mode. */
ref_value ref_nextafter(const ref_pw_ctx *ctx, const ref_value *in)
{
    ref_value r;
    double a = in[0].f, b = in[1].f;
    ref_nextafter_mode mode = (ref_nextafter_mode)ctx->params[0].i;
    if (mode == REF_NEXTAFTER_NATIVE) {
        if (ctx->compute == CLOPS_FLOAT64)
            r.f = nextafter(a, b);
        else
            r.f = nextafterf((float)a, (float)b);
        return r;
    }
    if (isnan(a) || isnan(b)) {
        r.f = a + b;
        return r;
    }
    bool f16 = mode == REF_NEXTAFTER_F16;
    /* Both values are exact in the 16-bit format, so these conversions are
     * exact and the comparisons below work on the same numbers. */
    uint16_t fa = f16 ? clops_float_to_half((float)a) : clops_float_to_bfloat16((float)a);
    uint16_t fb = f16 ? clops_float_to_half((float)b) : clops_float_to_bfloat16((float)b);
    uint16_t n = next16(fa, fb, a == b);
    r.f = f16 ? clops_half_to_float(n) : clops_bfloat16_to_float(n);
    return r;
}

/* self * log(other), with 0 * log(y) == 0 (even for y == 0 or inf) and NaN
 * whenever other is NaN. */
ref_value ref_xlogy(const ref_pw_ctx *ctx, const ref_value *in)
{
    (void)ctx;
    ref_value r;
    double x = in[0].f, y = in[1].f;
    if (isnan(y))
        r.f = NAN;
    else if (x == 0.0)
        r.f = 0.0;
    else
        r.f = x * log(y);
    return r;
}

/* log(exp(a) + exp(b)) as max + log1p(exp(-|a - b|)); equal infinities give
 * themselves (inf - inf would be NaN). */
ref_value ref_logaddexp(const ref_pw_ctx *ctx, const ref_value *in)
{
    (void)ctx;
    ref_value r;
    double a = in[0].f, b = in[1].f;
    if (isinf(a) && a == b) {
        r.f = a;
    } else {
        double m = a < b ? b : a;
        r.f = m + log1p(exp(-fabs(a - b)));
    }
    return r;
}

/* log2(2^a + 2^b), the same way in base 2. */
ref_value ref_logaddexp2(const ref_pw_ctx *ctx, const ref_value *in)
{
    (void)ctx;
    ref_value r;
    double a = in[0].f, b = in[1].f;
    if (isinf(a) && a == b) {
        r.f = a;
    } else {
        double m = a < b ? b : a;
        r.f = m + log1p(exp2(-fabs(a - b))) / 0.69314718055994530942;
    }
    return r;
}

/* heaviside(self, values): values where self == 0, else 1 for self > 0 and
 * 0 otherwise (NaN included, as PyTorch's CPU kernel gives). */
ref_value ref_heaviside(const ref_pw_ctx *ctx, const ref_value *in)
{
    ref_value r;
    if (clops_dtype_is_floating(ctx->compute)) {
        double a = in[0].f;
        r.f = a == 0.0 ? in[1].f : (a > 0.0 ? 1.0 : 0.0);
    } else {
        int64_t a = in[0].i;
        r.i = a == 0 ? in[1].i : (a > 0);
    }
    return r;
}
