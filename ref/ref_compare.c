/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ref/ref_compare.c: reference functions of the comparisons, the
 * min/max/clamp family, the selections (where, masked_fill) and the logical
 * ops; see ref/ref_binary.h for the conventions.
 *
 * NaN rules, as PyTorch's CPU kernels have them:
 *   - comparisons are false with a NaN operand (ne true);
 *   - maximum/minimum return NaN when either operand is NaN, fmax/fmin the
 *     other operand;
 *   - clamp with both bounds gives NaN when the input or a bound is NaN;
 *     clamp_min/clamp_max with a scalar bound keep a NaN input and ignore a
 *     NaN bound (std::max(a, NaN) is a);
 *   - logical ops treat NaN as true (nonzero).
 * Signed zeros of max/min/clamp follow std::max/std::min (the first
 * operand wins a tie); PyTorch's vectorised loops may pick the other zero.
 */
#include <math.h>
#include <stdint.h>

#include "ref/ref_binary.h"

/* True when inputs are in .f. */
static bool floating(const ref_pw_ctx *ctx)
{
    return clops_dtype_is_floating(ctx->compute);
}

/* A 0/1 result. */
static ref_value truth(bool b)
{
    ref_value r;
    r.i = b ? 1 : 0;
    return r;
}

/* ---- comparisons (bool results) ------------------------------------------ */

/* ref_NAME: a OP b in the compute type, as 0/1. */
#define DEFINE_COMPARE(NAME, OP)                                                                \
    ref_value ref_##NAME(const ref_pw_ctx *ctx, const ref_value *in)                              \
    {                                                                                           \
        if (floating(ctx))                                                                      \
            return truth(in[0].f OP in[1].f);                                                   \
        return truth(in[0].i OP in[1].i);                                                       \
    }

DEFINE_COMPARE(eq, ==)
DEFINE_COMPARE(ne, !=)
DEFINE_COMPARE(lt, <)
DEFINE_COMPARE(le, <=)
DEFINE_COMPARE(gt, >)
DEFINE_COMPARE(ge, >=)

/* ---- maximum, minimum, fmax, fmin ---------------------------------------- */

/* std::max(a, b) == (a < b ? b : a), and std::min(a, b) == (b < a ? b : a). */
static double dmax(double a, double b)
{
    return a < b ? b : a;
}

/* The smaller, std::min's way (the first operand wins a tie). */
static double dmin(double a, double b)
{
    return b < a ? b : a;
}

/* Integer std::max. */
static int64_t imax(int64_t a, int64_t b)
{
    return a < b ? b : a;
}

/* Integer std::min. */
static int64_t imin(int64_t a, int64_t b)
{
    return b < a ? b : a;
}

/* Larger operand; NaN if either is NaN (bool: logical or). */
ref_value ref_maximum(const ref_pw_ctx *ctx, const ref_value *in)
{
    ref_value r;
    if (!floating(ctx))
        r.i = imax(in[0].i, in[1].i);
    else
        r.f = (isnan(in[0].f) || isnan(in[1].f)) ? NAN : dmax(in[0].f, in[1].f);
    return r;
}

/* Smaller operand; NaN if either is NaN (bool: logical and). */
ref_value ref_minimum(const ref_pw_ctx *ctx, const ref_value *in)
{
    ref_value r;
    if (!floating(ctx))
        r.i = imin(in[0].i, in[1].i);
    else
        r.f = (isnan(in[0].f) || isnan(in[1].f)) ? NAN : dmin(in[0].f, in[1].f);
    return r;
}

/* Larger operand, ignoring a NaN (C's fmax); integers as maximum. */
ref_value ref_fmax(const ref_pw_ctx *ctx, const ref_value *in)
{
    ref_value r;
    if (!floating(ctx))
        r.i = imax(in[0].i, in[1].i);
    else
        r.f = fmax(in[0].f, in[1].f);
    return r;
}

/* Smaller operand, ignoring a NaN (C's fmin); integers as minimum. */
ref_value ref_fmin(const ref_pw_ctx *ctx, const ref_value *in)
{
    ref_value r;
    if (!floating(ctx))
        r.i = imin(in[0].i, in[1].i);
    else
        r.f = fmin(in[0].f, in[1].f);
    return r;
}

/* ---- clamp ---------------------------------------------------------------- */

/* clamp(self, min, max) with both bounds: min(max(self, lo), hi), so lo > hi
 * gives hi; NaN when the input or either bound is NaN. */
ref_value ref_clamp(const ref_pw_ctx *ctx, const ref_value *in)
{
    ref_value r;
    if (!floating(ctx)) {
        r.i = imin(imax(in[0].i, in[1].i), in[2].i);
    } else {
        double lo = in[1].f, hi = in[2].f;
        r.f = (isnan(lo) || isnan(hi)) ? NAN : dmin(dmax(in[0].f, lo), hi);
    }
    return r;
}

/* clamp_min(self, min): std::max(self, min); a NaN bound is ignored, a NaN
 * input kept. */
ref_value ref_clamp_min(const ref_pw_ctx *ctx, const ref_value *in)
{
    ref_value r;
    if (!floating(ctx))
        r.i = imax(in[0].i, in[1].i);
    else
        r.f = dmax(in[0].f, in[1].f);
    return r;
}

/* clamp_max(self, max): std::min(self, max), same NaN rule. */
ref_value ref_clamp_max(const ref_pw_ctx *ctx, const ref_value *in)
{
    ref_value r;
    if (!floating(ctx))
        r.i = imin(in[0].i, in[1].i);
    else
        r.f = dmin(in[0].f, in[1].f);
    return r;
}

/* ---- selections ----------------------------------------------------------- */

/* where(condition, self, other); the condition arrives as bool (.i). */
ref_value ref_where(const ref_pw_ctx *ctx, const ref_value *in)
{
    (void)ctx;
    return in[0].i ? in[1] : in[2];
}

/* masked_fill(self, mask, value): value (param 0) where mask is true. */
ref_value ref_masked_fill(const ref_pw_ctx *ctx, const ref_value *in)
{
    return in[1].i ? ctx->params[0] : in[0];
}

/* ---- logical ops (bool results; nonzero and NaN are true) ---------------- */

/* Truth value of an operand. */
static bool nonzero(const ref_pw_ctx *ctx, ref_value v)
{
    return floating(ctx) ? v.f != 0.0 : v.i != 0;
}

/* Both operands true. */
ref_value ref_logical_and(const ref_pw_ctx *ctx, const ref_value *in)
{
    return truth(nonzero(ctx, in[0]) && nonzero(ctx, in[1]));
}

/* Either operand true. */
ref_value ref_logical_or(const ref_pw_ctx *ctx, const ref_value *in)
{
    return truth(nonzero(ctx, in[0]) || nonzero(ctx, in[1]));
}

/* Exactly one operand true. */
ref_value ref_logical_xor(const ref_pw_ctx *ctx, const ref_value *in)
{
    return truth(nonzero(ctx, in[0]) != nonzero(ctx, in[1]));
}

/* The operand is zero (false). */
ref_value ref_logical_not(const ref_pw_ctx *ctx, const ref_value *in)
{
    return truth(!nonzero(ctx, in[0]));
}
