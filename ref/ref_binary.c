/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ref/ref_binary.c: reference functions of the arithmetic pointwise ops
 * (add, sub, mul, the divisions, remainder, fmod, pow, lerp, addcmul,
 * addcdiv); see ref/ref_binary.h for the conventions.
 *
 * Integer arithmetic wraps like two's complement at the compute width: it is
 * done in uint64 here and wrapped by the walk (ref/pointwise.c), which
 * gives the same result as wrapping after every step.  Floating ops compute
 * in double except where PyTorch's definition needs the compute precision:
 * those whose result jumps at a rounding boundary (trunc and floor division)
 * or that chain several roundings where PyTorch's float kernels round after
 * each step (lerp, addcmul, addcdiv) repeat PyTorch's steps in the compute
 * dtype's own precision, float for float32/float16/bfloat16.
 */
#include <math.h>
#include <stdint.h>

#include "ref/ref_binary.h"

/* True when the op computes in a floating dtype (inputs in .f). */
static bool floating(const ref_pw_ctx *ctx)
{
    return clops_dtype_is_floating(ctx->compute);
}

/* True when floating work is done in double (a float64 compute). */
static bool in_double(const ref_pw_ctx *ctx)
{
    return ctx->compute == CLOPS_FLOAT64;
}

/* Wrapping integer helpers (results are wrapped again by the executor). */
static int64_t wadd(int64_t a, int64_t b)
{
    return (int64_t)((uint64_t)a + (uint64_t)b);
}

/* a - b, wrapping. */
static int64_t wsub(int64_t a, int64_t b)
{
    return (int64_t)((uint64_t)a - (uint64_t)b);
}

/* a * b, wrapping. */
static int64_t wmul(int64_t a, int64_t b)
{
    return (int64_t)((uint64_t)a * (uint64_t)b);
}

/* Truncating division with clops' defined results for b == 0 and MIN / -1. */
int64_t ref_int_tdiv(int64_t a, int64_t b)
{
    if (b == 0)
        return 0;
    if (b == -1)
        return wsub(0, a);
    return a / b;
}

/* C remainder with a % 0 == a and a % -1 == 0. */
int64_t ref_int_tmod(int64_t a, int64_t b)
{
    if (b == 0)
        return a;
    if (b == -1)
        return 0;
    return a % b;
}

/* Floor division: the truncated quotient, one less when the exact quotient
 * is negative and not whole. */
int64_t ref_int_fdiv(int64_t a, int64_t b)
{
    int64_t q = ref_int_tdiv(a, b);
    int64_t r = ref_int_tmod(a, b);
    if (b != 0 && r != 0 && ((r < 0) != (b < 0)))
        q = wsub(q, 1);
    return q;
}

/* Python's remainder: takes the sign of the divisor. */
int64_t ref_int_pymod(int64_t a, int64_t b)
{
    int64_t r = ref_int_tmod(a, b);
    if (b != 0 && r != 0 && ((r < 0) != (b < 0)))
        r = wadd(r, b);
    return r;
}

/* ---- add, sub, mul, true division --------------------------------------- */

/* self + alpha * other (bool: a or (alpha and b), made 0/1 on store). */
ref_value ref_add(const ref_pw_ctx *ctx, const ref_value *in)
{
    ref_value r;
    if (floating(ctx))
        r.f = in[0].f + ctx->params[0].f * in[1].f;
    else
        r.i = wadd(in[0].i, wmul(ctx->params[0].i, in[1].i));
    return r;
}

/* self - alpha * other. */
ref_value ref_sub(const ref_pw_ctx *ctx, const ref_value *in)
{
    ref_value r;
    if (floating(ctx))
        r.f = in[0].f - ctx->params[0].f * in[1].f;
    else
        r.i = wsub(in[0].i, wmul(ctx->params[0].i, in[1].i));
    return r;
}

/* self * other (bool: logical and). */
ref_value ref_mul(const ref_pw_ctx *ctx, const ref_value *in)
{
    ref_value r;
    if (floating(ctx))
        r.f = in[0].f * in[1].f;
    else
        r.i = wmul(in[0].i, in[1].i);
    return r;
}

/* True division; always a floating compute (INT_TO_FLOAT). */
ref_value ref_div(const ref_pw_ctx *ctx, const ref_value *in)
{
    (void)ctx;
    ref_value r;
    r.f = in[0].f / in[1].f;
    return r;
}

/* ---- rounding divisions, remainder, fmod -------------------------------- */

/* Python floor division of floats as PyTorch computes it (c10's
 * div_floor_floating): from fmod, so that a == floordiv * b + mod exactly,
 * with the quotient rounded to the nearest whole number and division by zero
 * giving IEEE's a / b.  One body for float and double. */
#define DEFINE_FLOORDIV(NAME, T, FMOD, FLOOR, COPYSIGN)                                            \
    static T NAME(T a, T b)                                                                        \
    {                                                                                              \
        if (b == (T)0)                                                                             \
            return a / b;                                                                          \
        T mod = FMOD(a, b);                                                                        \
        T div = (a - mod) / b;                                                                     \
        if (mod != (T)0 && ((b < (T)0) != (mod < (T)0)))                                           \
            div -= (T)1;                                                                           \
        if (div == (T)0)                                                                           \
            return COPYSIGN((T)0, a / b);                                                          \
        T fl = FLOOR(div);                                                                         \
        if (div - fl > (T)0.5)                                                                     \
            fl += (T)1;                                                                            \
        return fl;                                                                                 \
    }

DEFINE_FLOORDIV(floordiv_f, float, fmodf, floorf, copysignf)
DEFINE_FLOORDIV(floordiv_d, double, fmod, floor, copysign)

/* div(rounding_mode="trunc"): the quotient rounded in the compute precision,
 * then truncated. */
ref_value ref_div_trunc(const ref_pw_ctx *ctx, const ref_value *in)
{
    ref_value r;
    if (!floating(ctx))
        r.i = ref_int_tdiv(in[0].i, in[1].i);
    else if (in_double(ctx))
        r.f = trunc(in[0].f / in[1].f);
    else
        r.f = truncf((float)in[0].f / (float)in[1].f);
    return r;
}

/* div(rounding_mode="floor") and floor_divide. */
ref_value ref_div_floor(const ref_pw_ctx *ctx, const ref_value *in)
{
    ref_value r;
    if (!floating(ctx))
        r.i = ref_int_fdiv(in[0].i, in[1].i);
    else if (in_double(ctx))
        r.f = floordiv_d(in[0].f, in[1].f);
    else
        r.f = floordiv_f((float)in[0].f, (float)in[1].f);
    return r;
}

/* remainder: the result takes the divisor's sign. */
ref_value ref_remainder(const ref_pw_ctx *ctx, const ref_value *in)
{
    ref_value r;
    if (!floating(ctx)) {
        r.i = ref_int_pymod(in[0].i, in[1].i);
    } else if (in_double(ctx)) {
        double a = in[0].f, b = in[1].f, m = fmod(a, b);
        if (m != 0.0 && ((m < 0.0) != (b < 0.0)))
            m += b;
        r.f = m;
    } else {
        float a = (float)in[0].f, b = (float)in[1].f, m = fmodf(a, b);
        if (m != 0.0f && ((m < 0.0f) != (b < 0.0f)))
            m += b;
        r.f = m;
    }
    return r;
}

/* fmod: C's remainder, with the dividend's sign. */
ref_value ref_fmod(const ref_pw_ctx *ctx, const ref_value *in)
{
    ref_value r;
    if (floating(ctx))
        r.f = fmod(in[0].f, in[1].f);
    else
        r.i = ref_int_tmod(in[0].i, in[1].i);
    return r;
}

/* ---- pow ---------------------------------------------------------------- */

/* Integer power by squaring, wrapping; PyTorch's answers for a negative
 * exponent: 1 for base 1, +-1 for base -1 by parity, 0 otherwise. */
static int64_t int_pow(int64_t base, int64_t exp)
{
    if (exp < 0) {
        if (base == 1)
            return 1;
        if (base == -1)
            return (exp & 1) ? -1 : 1;
        return 0;
    }
    uint64_t result = 1, b = (uint64_t)base, e = (uint64_t)exp;
    while (e) {
        if (e & 1)
            result *= b;
        b *= b;
        e >>= 1;
    }
    return (int64_t)result;
}

/* pow(self, exponent); param 0 is the mode (ref_pow_mode) the pow glue
 * picked for a scalar exponent, REF_POW_GENERIC otherwise. */
ref_value ref_pow(const ref_pw_ctx *ctx, const ref_value *in)
{
    ref_value r;
    if (!floating(ctx)) {
        r.i = int_pow(in[0].i, in[1].i);
        return r;
    }
    double a = in[0].f;
    switch ((ref_pow_mode)ctx->params[0].i) {
    case REF_POW_SQRT:
        r.f = sqrt(a);
        break;
    case REF_POW_RSQRT:
        r.f = 1.0 / sqrt(a);
        break;
    case REF_POW_RECIP:
        r.f = 1.0 / a;
        break;
    case REF_POW_SQUARE:
        r.f = a * a;
        break;
    case REF_POW_CUBE:
        r.f = a * a * a;
        break;
    case REF_POW_INVSQ:
        r.f = 1.0 / (a * a);
        break;
    default:
        r.f = pow(a, in[1].f);
        break;
    }
    return r;
}

/* ---- lerp, addcmul, addcdiv (PyTorch's order of operations) -------------- */

/* self + weight * (end - self) for small weights, else
 * end - (end - self) * (1 - weight), so weight 1 gives end exactly. */
#define DEFINE_LERP(NAME, T, FABS)                                                                 \
    static T NAME(T s, T e, T w)                                                                   \
    {                                                                                              \
        if (FABS(w) < (T)0.5)                                                                      \
            return s + w * (e - s);                                                                \
        return e - (e - s) * ((T)1 - w);                                                           \
    }

DEFINE_LERP(lerp_f, float, fabsf)
DEFINE_LERP(lerp_d, double, fabs)

/* lerp in the compute precision. */
static double lerp_any(const ref_pw_ctx *ctx, double s, double e, double w)
{
    if (in_double(ctx))
        return lerp_d(s, e, w);
    return lerp_f((float)s, (float)e, (float)w);
}

/* lerp.Scalar: weight is param 0. */
ref_value ref_lerp(const ref_pw_ctx *ctx, const ref_value *in)
{
    ref_value r;
    r.f = lerp_any(ctx, in[0].f, in[1].f, ctx->params[0].f);
    return r;
}

/* lerp.Tensor: weight is operand 2. */
ref_value ref_lerp_tensor(const ref_pw_ctx *ctx, const ref_value *in)
{
    ref_value r;
    r.f = lerp_any(ctx, in[0].f, in[1].f, in[2].f);
    return r;
}

/* self + value * tensor1 * tensor2, multiplied left to right. */
ref_value ref_addcmul(const ref_pw_ctx *ctx, const ref_value *in)
{
    ref_value r;
    if (!floating(ctx)) {
        r.i = wadd(in[0].i, wmul(wmul(ctx->params[0].i, in[1].i), in[2].i));
    } else if (in_double(ctx)) {
        r.f = in[0].f + ctx->params[0].f * in[1].f * in[2].f;
    } else {
        float p = (float)ctx->params[0].f * (float)in[1].f;
        p = p * (float)in[2].f;
        r.f = (float)in[0].f + p;
    }
    return r;
}

/* self + value * tensor1 / tensor2 (floating only: the glue refuses integer
 * tensor1 and tensor2, as PyTorch does). */
ref_value ref_addcdiv(const ref_pw_ctx *ctx, const ref_value *in)
{
    ref_value r;
    double v = ctx->params[0].f;
    if (in_double(ctx)) {
        r.f = in[0].f + v * in[1].f / in[2].f;
    } else {
        float p = (float)v * (float)in[1].f;
        p = p / (float)in[2].f;
        r.f = (float)in[0].f + p;
    }
    return r;
}
