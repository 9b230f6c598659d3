/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ref/ref_activation.c: C reference functions of the activation pointwise
 * ops and of their backward ops (relu ... logit_backward; see
 * ref/ref_unary.h).
 *
 * Each follows PyTorch's definition of the op (ATen's CPU kernels are the
 * specification: comparisons, branch order, NaN behaviour), evaluated in
 * long double so the result is the true value of that definition rounded
 * once; where the textbook formula cancels catastrophically (1 + tanh(u) for
 * very negative u, 1 - sigmoid(x) for large x) the same quantity is computed
 * from an identity instead, so that the oracle stays exact where float
 * kernels may not be.
 *
 * Parameters arrive in ctx->params as the caller converts them: the float
 * ones (slopes, beta, eps, lambda) rounded to float32 unless the compute
 * dtype is float64, the compute ones (threshold, clamp bounds) in the
 * compute dtype (.i for integer computes).
 */
#include <math.h>

#include "clops/dtype.h"
#include "ref/ref_unary.h"

typedef long double ld;

#define SQRT1_2_L 0.707106781186547524400844362104849039L
#define INV_SQRT_2PI_L 0.398942280401432677939946059934381868L
#define SQRT_2_OVER_PI_L 0.797884560802865355879892119868763737L
#define GELU_KAPPA_L 0.044715L

/* True when the call computes in a floating dtype. */
static bool is_float(const ref_pw_ctx *ctx)
{
    return clops_dtype_is_floating(ctx->compute);
}

/* A floating result. */
static ref_value fv(ld f)
{
    ref_value v;
    v.f = (double)f;
    return v;
}

/* An integer or bool result. */
static ref_value iv(int64_t i)
{
    ref_value v;
    v.i = i;
    return v;
}

/* Parameter k as a floating value. */
static ld param(const ref_pw_ctx *ctx, int k)
{
    return (ld)ctx->params[k].f;
}

/* v rounded to the compute precision (float32 unless float64): PyTorch
 * forms products of the input with a parameter (x * beta, alpha * scale) in
 * the op math type, and where such a product feeds a comparison or a
 * cancellation its rounding is part of the op's definition. */
static ld rc(const ref_pw_ctx *ctx, ld v)
{
    return ctx->compute == CLOPS_FLOAT64 ? (ld)(double)v : (ld)(float)v;
}

/* sigmoid(x) = 1 / (1 + exp(-x)); sigmoid(-x) is 1 - sigmoid(x) without
 * cancellation. */
static ld sigmoid_l(ld x)
{
    return 1.0L / (1.0L + expl(-x));
}

/* --- forward activations ---------------------------------------------------- */

/* relu: x < 0 ? 0 : x (NaN and -0.0 pass through). */
ref_value ref_act_relu(const ref_pw_ctx *ctx, const ref_value *in)
{
    if (is_float(ctx))
        return fv(in[0].f < 0.0 ? 0.0L : (ld)in[0].f);
    return iv(in[0].i < 0 ? 0 : in[0].i);
}

/* hardtanh (clamp): min(max(x, lo), hi) with std::max/std::min's argument
 * order, so NaN propagates and lo > hi gives hi. */
ref_value ref_act_hardtanh(const ref_pw_ctx *ctx, const ref_value *in)
{
    if (is_float(ctx)) {
        double lo = ctx->params[0].f, hi = ctx->params[1].f;
        double t = in[0].f < lo ? lo : in[0].f;
        return fv(hi < t ? hi : t);
    }
    int64_t lo = ctx->params[0].i, hi = ctx->params[1].i;
    int64_t t = in[0].i < lo ? lo : in[0].i;
    return iv(hi < t ? hi : t);
}

/* leaky_relu: x > 0 ? x : x * negative_slope. */
ref_value ref_act_leaky_relu(const ref_pw_ctx *ctx, const ref_value *in)
{
    ld x = in[0].f;
    return fv(x > 0.0L ? x : x * param(ctx, 0));
}

/* elu(alpha, scale, input_scale): x <= 0 ? expm1(x * input_scale) * alpha *
 * scale : x * scale. */
ref_value ref_act_elu(const ref_pw_ctx *ctx, const ref_value *in)
{
    ld x = in[0].f;
    if (x <= 0.0L)
        return fv(expm1l(rc(ctx, x * param(ctx, 2))) * rc(ctx, param(ctx, 0) * param(ctx, 1)));
    return fv(x * param(ctx, 1));
}

/* gelu (approximate='none'): x * Phi(x) = x / 2 * erfc(-x / sqrt 2). */
ref_value ref_act_gelu(const ref_pw_ctx *ctx, const ref_value *in)
{
    (void)ctx;
    ld x = in[0].f;
    return fv(0.5L * x * erfcl(-x * SQRT1_2_L));
}

/* The inner argument u of the tanh approximation of gelu. */
static ld gelu_tanh_inner(ld x)
{
    return SQRT_2_OVER_PI_L * (x + GELU_KAPPA_L * x * x * x);
}

/* gelu (approximate='tanh'): x / 2 * (1 + tanh(u)) = x * sigmoid(2u). */
ref_value ref_act_gelu_tanh(const ref_pw_ctx *ctx, const ref_value *in)
{
    (void)ctx;
    ld x = in[0].f;
    if (isinf(x))
        return fv(x > 0 ? x : (ld)NAN); /* -inf * 0 in PyTorch's formula */
    return fv(x * sigmoid_l(2.0L * gelu_tanh_inner(x)));
}

/* silu: x * sigmoid(x), written x / (1 + exp(-x)) as PyTorch does. */
ref_value ref_act_silu(const ref_pw_ctx *ctx, const ref_value *in)
{
    (void)ctx;
    ld x = in[0].f;
    return fv(x / (1.0L + expl(-x)));
}

/* mish: x * tanh(softplus(x)). */
ref_value ref_act_mish(const ref_pw_ctx *ctx, const ref_value *in)
{
    (void)ctx;
    ld x = in[0].f;
    return fv(x * tanhl(log1pl(expl(x))));
}

/* softplus(beta, threshold): x * beta > threshold ? x : log1p(exp(x * beta))
 * / beta. */
ref_value ref_act_softplus(const ref_pw_ctx *ctx, const ref_value *in)
{
    ld x = in[0].f, beta = param(ctx, 0), th = param(ctx, 1);
    ld xb = rc(ctx, x * beta);
    if (xb > th)
        return fv(x);
    return fv(log1pl(expl(xb)) / beta);
}

/* softshrink(lambd): x > l ? x - l : (x < -l ? x + l : 0); NaN stays NaN. */
ref_value ref_act_softshrink(const ref_pw_ctx *ctx, const ref_value *in)
{
    ld x = in[0].f, l = param(ctx, 0);
    if (isnan(x))
        return fv(x);
    return fv(x > l ? x - l : (x < -l ? x + l : 0.0L));
}

/* hardshrink(lambd): -l <= x <= l ? 0 : x. */
ref_value ref_act_hardshrink(const ref_pw_ctx *ctx, const ref_value *in)
{
    ld x = in[0].f, l = param(ctx, 0);
    return fv((x >= -l && x <= l) ? 0.0L : x);
}

/* min(max(v, 0), 6) with NaN propagating. */
static ld relu6_l(ld v)
{
    ld t = v < 0.0L ? 0.0L : v;
    return 6.0L < t ? 6.0L : t;
}

/* hardsigmoid: min(max(x + 3, 0), 6) / 6. */
ref_value ref_act_hardsigmoid(const ref_pw_ctx *ctx, const ref_value *in)
{
    (void)ctx;
    return fv(relu6_l((ld)in[0].f + 3.0L) / 6.0L);
}

/* hardswish: x * min(max(x + 3, 0), 6) / 6. */
ref_value ref_act_hardswish(const ref_pw_ctx *ctx, const ref_value *in)
{
    (void)ctx;
    ld x = in[0].f;
    return fv(x * relu6_l(x + 3.0L) / 6.0L);
}

/* sigmoid: 1 / (1 + exp(-x)). */
ref_value ref_act_sigmoid(const ref_pw_ctx *ctx, const ref_value *in)
{
    (void)ctx;
    return fv(sigmoid_l(in[0].f));
}

/* log_sigmoid: min(x, 0) - log1p(exp(-|x|)). */
ref_value ref_act_logsigmoid(const ref_pw_ctx *ctx, const ref_value *in)
{
    (void)ctx;
    ld x = in[0].f;
    ld m = x < 0.0L ? x : 0.0L;
    if (isnan(x))
        return fv(x);
    return fv(m - log1pl(expl(-fabsl(x))));
}

/* log(x / (1 - x)) as PyTorch defines it (+inf at exactly 1), evaluated
 * without the cancellation near 1/2. */
static ld logit_l(ld x)
{
    if (x == 1.0L)
        return INFINITY;
    if (x >= 0.25L && x <= 0.75L)
        return 2.0L * atanhl(2.0L * x - 1.0L); /* 2x - 1 is exact here */
    return logl(x / (1.0L - x));
}

/* logit(eps): params[0] is eps, negative when None, params[1] is 1 - eps;
 * with eps the input is clamped to [eps, 1 - eps] first. */
ref_value ref_act_logit(const ref_pw_ctx *ctx, const ref_value *in)
{
    ld x = in[0].f, lo = param(ctx, 0), hi = param(ctx, 1);
    if (!(lo < 0.0L))
        x = x < lo ? lo : (x > hi ? hi : x);
    return fv(logit_l(x));
}

/* threshold(threshold, value): x <= threshold ? value : x. */
ref_value ref_act_threshold(const ref_pw_ctx *ctx, const ref_value *in)
{
    if (is_float(ctx))
        return in[0].f <= ctx->params[0].f ? ctx->params[1] : in[0];
    return in[0].i <= ctx->params[0].i ? ctx->params[1] : in[0];
}

/* --- backward ops: in[0] is the incoming gradient ------------------------------ */

/* threshold_backward(grad, self, threshold): self <= threshold ? 0 : grad. */
ref_value ref_act_threshold_backward(const ref_pw_ctx *ctx, const ref_value *in)
{
    if (is_float(ctx))
        return fv(in[1].f <= ctx->params[0].f ? 0.0L : (ld)in[0].f);
    return iv(in[1].i <= ctx->params[0].i ? 0 : in[0].i);
}

/* gelu_backward (none): grad * (Phi(x) + x * phi(x)). */
ref_value ref_act_gelu_backward(const ref_pw_ctx *ctx, const ref_value *in)
{
    (void)ctx;
    ld g = in[0].f, x = in[1].f;
    ld cdf = 0.5L * erfcl(-x * SQRT1_2_L);
    ld pdf = INV_SQRT_2PI_L * expl(-0.5L * x * x);
    return fv(g * (cdf + x * pdf));
}

/* gelu_backward (tanh): the derivative of x / 2 * (1 + tanh(u)), with
 * 1 + tanh(u) = 2 s and 1 - tanh(u)^2 = 4 s (1 - s), s = sigmoid(2u). */
ref_value ref_act_gelu_backward_tanh(const ref_pw_ctx *ctx, const ref_value *in)
{
    (void)ctx;
    ld g = in[0].f, x = in[1].f;
    if (isinf(x))
        return fv(NAN); /* inf * 0 in PyTorch's formula */
    ld u = gelu_tanh_inner(x);
    ld s = sigmoid_l(2.0L * u), sm = sigmoid_l(-2.0L * u);
    ld du = SQRT_2_OVER_PI_L * (1.0L + 3.0L * GELU_KAPPA_L * x * x);
    return fv(g * (s + 2.0L * x * s * sm * du));
}

/* silu_backward: grad * s * (1 + x * (1 - s)), s = sigmoid(x). */
ref_value ref_act_silu_backward(const ref_pw_ctx *ctx, const ref_value *in)
{
    (void)ctx;
    ld g = in[0].f, x = in[1].f;
    ld s = sigmoid_l(x), sm = sigmoid_l(-x);
    return fv(g * s * (1.0L + x * sm));
}

/* sigmoid_backward(grad, output): grad * (1 - y) * y. */
ref_value ref_act_sigmoid_backward(const ref_pw_ctx *ctx, const ref_value *in)
{
    (void)ctx;
    ld g = in[0].f, y = in[1].f;
    return fv(g * (1.0L - y) * y);
}

/* tanh_backward(grad, output): grad * (1 - y^2), as (1 - y)(1 + y), whose
 * factors are exact in long double for any double y (y * y is not). */
ref_value ref_act_tanh_backward(const ref_pw_ctx *ctx, const ref_value *in)
{
    (void)ctx;
    ld g = in[0].f, y = in[1].f;
    return fv(g * ((1.0L - y) * (1.0L + y)));
}

/* leaky_relu_backward: self > 0 ? grad : grad * negative_slope. */
ref_value ref_act_leaky_relu_backward(const ref_pw_ctx *ctx, const ref_value *in)
{
    ld g = in[0].f, x = in[1].f;
    return fv(x > 0.0L ? g : g * param(ctx, 0));
}

/* elu_backward on the input: x <= 0 ? grad * input_scale * alpha * scale *
 * exp(x * input_scale) : grad * scale. */
ref_value ref_act_elu_backward(const ref_pw_ctx *ctx, const ref_value *in)
{
    ld g = in[0].f, x = in[1].f;
    ld negcoef = rc(ctx, param(ctx, 0) * param(ctx, 1)), scale = param(ctx, 1);
    ld is = param(ctx, 2);
    if (x <= 0.0L)
        return fv(g * is * negcoef * expl(rc(ctx, x * is)));
    return fv(g * scale);
}

/* elu_backward on the result y: y <= 0 ? grad * input_scale * (y + alpha *
 * scale) : grad * scale. */
ref_value ref_act_elu_backward_result(const ref_pw_ctx *ctx, const ref_value *in)
{
    ld g = in[0].f, y = in[1].f;
    ld negcoef = rc(ctx, param(ctx, 0) * param(ctx, 1)), scale = param(ctx, 1);
    ld is = param(ctx, 2);
    if (y <= 0.0L)
        return fv(g * is * (y + negcoef));
    return fv(g * scale);
}

/* softplus_backward: x * beta > threshold ? grad : grad * sigmoid(x * beta). */
ref_value ref_act_softplus_backward(const ref_pw_ctx *ctx, const ref_value *in)
{
    ld g = in[0].f, x = in[1].f, beta = param(ctx, 0), th = param(ctx, 1);
    ld xb = rc(ctx, x * beta);
    return fv(xb > th ? g : g * sigmoid_l(xb));
}

/* hardsigmoid_backward: -3 < x < 3 ? grad / 6 : 0. */
ref_value ref_act_hardsigmoid_backward(const ref_pw_ctx *ctx, const ref_value *in)
{
    (void)ctx;
    ld g = in[0].f, x = in[1].f;
    return fv((x > -3.0L && x < 3.0L) ? g / 6.0L : 0.0L);
}

/* hardswish_backward: x <= -3 ? 0 : (x < 3 ? grad * (x / 3 + 1/2) : grad);
 * NaN takes the last branch, as in PyTorch's scalar kernel. */
ref_value ref_act_hardswish_backward(const ref_pw_ctx *ctx, const ref_value *in)
{
    (void)ctx;
    ld g = in[0].f, x = in[1].f;
    if (x <= -3.0L)
        return fv(0.0L);
    if (x < 3.0L)
        return fv(g * ((x + 1.5L) / 3.0L)); /* x/3 + 1/2 without cancellation */
    return fv(g);
}

/* logit_backward(eps), as PyTorch's vectorized float kernels: grad / (x (1 -
 * x)) for x in [lo, hi] (params[0], params[1]; [0, 1] when params[0] < 0,
 * where 0 and 1 divide by a signed zero), else NaN without eps and 0 with
 * it (NaN inputs included). */
ref_value ref_act_logit_backward(const ref_pw_ctx *ctx, const ref_value *in)
{
    ld g = in[0].f, x = in[1].f, lo = param(ctx, 0), hi = param(ctx, 1);
    bool no_eps = lo < 0.0L;
    bool inside = no_eps ? (x >= 0.0L && x <= 1.0L) : (x >= lo && x <= hi);
    if (!inside)
        return fv(no_eps ? (ld)NAN : 0.0L);
    return fv(g / (x * (1.0L - x)));
}
