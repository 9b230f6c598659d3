/* SPDX-License-Identifier: Apache-2.0 */
/*
 * codegen_pointwise/ops_activation_backward.c: pointwise op records for the
 * gradients of the activations: threshold_backward, gelu_backward (both
 * approximations), silu_backward, sigmoid_backward, tanh_backward,
 * leaky_relu_backward, elu_backward (on the input or on the result),
 * softplus_backward, hardsigmoid_backward, hardswish_backward and
 * logit_backward.
 *
 * Every one takes the incoming gradient as operand a and the forward input
 * (or output) as operand b, both promoted to their common dtype (PyTorch's
 * binary-op rule), in the order of the schema.  threshold_backward accepts
 * every dtype but bool, the others floating dtypes only.  Branch conditions
 * copy PyTorch's CPU kernels (hardswish_backward of NaN is the gradient,
 * logit_backward is NaN outside [0, 1] without eps and 0 outside
 * [eps, 1 - eps] with it, NaN included); the smooth parts use forms that do not cancel in
 * float: 1 - sigmoid(x) is sigmoid(-x), 1 - y^2 is (1 - y)(1 + y), and the
 * tanh-gelu derivative is written with s = sigmoid(2u):
 *   d/dx [x/2 (1 + tanh u)] = s + 2 x s (1 - s) u'(x).
 * The C references are in ref/ref_activation.c.
 */
#include "codegen_pointwise/ops_unary.h"
#include "ref/ref_unary.h"

/* A two-operand (grad, input) record with the shared fields. */
#define BWD_COMMON                                                                  \
    .id = 0, .n_in = 2, .roles = {PW_ROLE_COMMON, PW_ROLE_COMMON},                  \
    .promotion = PW_PROMOTE_DEFAULT, .fixed_result = CLOPS_DTYPE_NONE

/* The tanh-gelu derivative times the gradient. */
static const char gelu_backward_tanh_helpers[] =
    "#define CLOPS_GELU_BWD_TANH(T)                                              \\\n"
    "    T clops_gelu_bwd_tanh_##T(T g, T x)                                     \\\n"
    "    {                                                                       \\\n"
    "        T u = (T)0.79788456080286535588 * (x + (T)0.044715 * x * x * x);    \\\n"
    "        T s = (T)1 / ((T)1 + exp((T)-2 * u));                               \\\n"
    "        T sm = (T)1 / ((T)1 + exp((T)2 * u));                               \\\n"
    "        T du = (T)0.79788456080286535588 * ((T)1 + (T)0.134145 * x * x);    \\\n"
    "        return g * (s + (T)2 * x * s * sm * du);                            \\\n"
    "    }\n"
    "CLOPS_GELU_BWD_TANH(float)\n"
    "#ifdef CLOPS_HAS_FP64\n"
    "CLOPS_GELU_BWD_TANH(double)\n"
    "#endif\n";

/* logit_backward as PyTorch's vectorized CPU kernel computes it for float32
 * and float64: grad / (x (1 - x)) for x in [lo, hi] (with no eps, lo < 0
 * means [0, 1]: 0 and 1 give +-inf by the division), else NaN without eps
 * and 0 with it; NaN inputs are outside. */
static const char logit_backward_helpers[] =
    "#define CLOPS_LOGIT_BWD(T)                                                  \\\n"
    "    T clops_logit_bwd_##T(T g, T x, T lo, T hi)                             \\\n"
    "    {                                                                       \\\n"
    "        bool no_eps = lo < (T)0;                                            \\\n"
    "        if (no_eps ? (x >= (T)0 && x <= (T)1) : (x >= lo && x <= hi))        \\\n"
    "            return g / (x * ((T)1 - x));                                    \\\n"
    "        return no_eps ? (T)NAN : (T)0;                                      \\\n"
    "    }\n"
    "CLOPS_LOGIT_BWD(float)\n"
    "#ifdef CLOPS_HAS_FP64\n"
    "CLOPS_LOGIT_BWD(double)\n"
    "#endif\n";

const pw_op pw_op_threshold_backward = {
    .name = "threshold_backward",
    BWD_COMMON,
    .n_params = 1,
    .params = {PW_PARAM_COMPUTE},
    .param_names = {"threshold"},
    .dtypes = PW_DT_NOBOOL,
    .expr_default = "b <= p0 ? ($T)0 : a",
    .domain = PW_DOMAIN_ANY,
};

/* grad * (Phi(x) + x phi(x)), Phi(x) = erfc(-x / sqrt 2) / 2. */
const pw_op pw_op_gelu_backward = {
    .name = "gelu_backward",
    BWD_COMMON,
    .dtypes = PW_DT_FLOATS,
    .expr = {[PW_CLASS_FLOAT] = "a * (($T)0.5 * erfc(-b * ($T)0.70710678118654752440) + "
                                "b * ($T)0.39894228040143267794 * exp(($T)-0.5 * b * b))"},
    .domain = PW_DOMAIN_SMALL,
    .ulp = 20,
};

const pw_op pw_op_gelu_backward_tanh = {
    .name = "gelu_backward_tanh",
    BWD_COMMON,
    .dtypes = PW_DT_FLOATS,
    .expr = {[PW_CLASS_FLOAT] = "clops_gelu_bwd_tanh_$T(a, b)"},
    .helpers = gelu_backward_tanh_helpers,
    .domain = PW_DOMAIN_SMALL,
    .ulp = 16,
};

/* grad * s * (1 + x (1 - s)), with x (1 - s) = x / (1 + exp(x)). */
const pw_op pw_op_silu_backward = {
    .name = "silu_backward",
    BWD_COMMON,
    .dtypes = PW_DT_FLOATS,
    .expr = {[PW_CLASS_FLOAT] = "a * (($T)1 / (($T)1 + exp(-b))) * (($T)1 + b / (($T)1 + exp(b)))"},
    .domain = PW_DOMAIN_ANY,
    .ulp = 10,
};

/* sigmoid_backward(grad_output, output). */
const pw_op pw_op_sigmoid_backward = {
    .name = "sigmoid_backward",
    BWD_COMMON,
    .dtypes = PW_DT_FLOATS,
    .expr = {[PW_CLASS_FLOAT] = "a * (($T)1 - b) * b"},
    .domain = PW_DOMAIN_PROB,
    .ulp = 3,
};

/* tanh_backward(grad_output, output). */
const pw_op pw_op_tanh_backward = {
    .name = "tanh_backward",
    BWD_COMMON,
    .dtypes = PW_DT_FLOATS,
    .expr = {[PW_CLASS_FLOAT] = "a * ((($T)1 - b) * (($T)1 + b))"},
    .domain = PW_DOMAIN_UNIT,
    .ulp = 3,
};

const pw_op pw_op_leaky_relu_backward = {
    .name = "leaky_relu_backward",
    BWD_COMMON,
    .n_params = 1,
    .params = {PW_PARAM_FLOAT},
    .param_names = {"negative_slope"},
    .dtypes = PW_DT_FLOATS,
    .expr = {[PW_CLASS_FLOAT] = "b > ($T)0 ? a : a * p0"},
    .domain = PW_DOMAIN_ANY,
};

/* elu_backward with is_result = false: b is the forward input. */
const pw_op pw_op_elu_backward = {
    .name = "elu_backward",
    BWD_COMMON,
    .n_params = 3,
    .params = {PW_PARAM_FLOAT, PW_PARAM_FLOAT, PW_PARAM_FLOAT},
    .param_names = {"alpha", "scale", "input_scale"},
    .dtypes = PW_DT_FLOATS,
    .expr = {[PW_CLASS_FLOAT] = "b <= ($T)0 ? a * p2 * (p0 * p1) * exp(b * p2) : a * p1"},
    .domain = PW_DOMAIN_ANY,
    .ulp = 6,
};

/* elu_backward with is_result = true: b is the forward result. */
const pw_op pw_op_elu_backward_result = {
    .name = "elu_backward_result",
    BWD_COMMON,
    .n_params = 3,
    .params = {PW_PARAM_FLOAT, PW_PARAM_FLOAT, PW_PARAM_FLOAT},
    .param_names = {"alpha", "scale", "input_scale"},
    .dtypes = PW_DT_FLOATS,
    .expr = {[PW_CLASS_FLOAT] = "b <= ($T)0 ? a * p2 * (b + p0 * p1) : a * p1"},
    .domain = PW_DOMAIN_ANY,
    .ulp = 4,
};

/* grad * sigmoid(x * beta) below the threshold, grad above it. */
const pw_op pw_op_softplus_backward = {
    .name = "softplus_backward",
    BWD_COMMON,
    .n_params = 2,
    .params = {PW_PARAM_FLOAT, PW_PARAM_FLOAT},
    .param_names = {"beta", "threshold"},
    .dtypes = PW_DT_FLOATS,
    .expr = {[PW_CLASS_FLOAT] = "(b * p0 > p1) ? a : a / (($T)1 + exp(-(b * p0)))"},
    .domain = PW_DOMAIN_ANY,
    .ulp = 8,
};

/* grad / 6 inside (-3, 3), as grad * (1/6) like PyTorch. */
const pw_op pw_op_hardsigmoid_backward = {
    .name = "hardsigmoid_backward",
    BWD_COMMON,
    .dtypes = PW_DT_FLOATS,
    .expr = {[PW_CLASS_FLOAT] = "(b > ($T)-3 && b < ($T)3) ? a * ($T)0.16666666666666666667 : ($T)0"},
    .domain = PW_DOMAIN_ANY,
};

/* 0 for x <= -3, grad for x >= 3 (and NaN), grad * (x / 3 + 1/2) between,
 * written grad * ((x + 3/2) / 3) so that the zero at x = -3/2 does not
 * cancel (x + 3/2 is exact near it). */
const pw_op pw_op_hardswish_backward = {
    .name = "hardswish_backward",
    BWD_COMMON,
    .dtypes = PW_DT_FLOATS,
    .expr = {[PW_CLASS_FLOAT] = "b <= ($T)-3 ? ($T)0 : (b < ($T)3 ? "
                                "a * ((b + ($T)1.5) * ($T)0.33333333333333333333) : a)"},
    .domain = PW_DOMAIN_ANY,
    .ulp = 4,
};

/* logit_backward(eps): p0 = eps (negative for None), p1 = 1 - eps. */
const pw_op pw_op_logit_backward = {
    .name = "logit_backward",
    BWD_COMMON,
    .n_params = 2,
    .params = {PW_PARAM_FLOAT, PW_PARAM_FLOAT},
    .param_names = {"eps", "one_minus_eps"},
    .dtypes = PW_DT_FLOATS,
    .expr = {[PW_CLASS_FLOAT] = "clops_logit_bwd_$T(a, b, p0, p1)"},
    .helpers = logit_backward_helpers,
    .domain = PW_DOMAIN_PROB,
    .ulp = 5,
};
