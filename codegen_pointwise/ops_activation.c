/* SPDX-License-Identifier: Apache-2.0 */
/*
 * codegen_pointwise/ops_activation.c: pointwise op records for the
 * activation functions: relu, hardtanh (relu6's kernel too), leaky_relu,
 * elu (selu's and celu's), gelu in its two forms, silu, mish, softplus,
 * softshrink, hardshrink, hardsigmoid, hardswish, sigmoid, log_sigmoid,
 * logit and threshold.
 *
 * Semantics are PyTorch's CPU kernels': relu, hardtanh and threshold take
 * integers (not bool), sigmoid and logit promote integers to float, the rest
 * take floating dtypes only.  Comparisons are written in the order PyTorch's
 * scalar kernels use (std::max/std::min as `a < b ? b : a`), so NaN
 * propagates through clamps the same way; OpenCL's fmin/fmax, which drop NaN,
 * are avoided.  Where the textbook formula cancels in float, an identity
 * that does not is used:
 *   gelu:       x/2 (1 + erf(x/sqrt2)) = x/2 erfc(-x/sqrt2),
 *   gelu tanh:  x/2 (1 + tanh(u))      = x / (1 + exp(-2u)),
 *   logit:      log(x / (1 - x))       = 2 atanh(2x - 1) for x in [1/4, 3/4].
 * The C references are in ref/ref_activation.c.
 */
#include "codegen_pointwise/ops_unary.h"
#include "ref/ref_unary.h"

/* A one-operand record with the fields every activation shares. */
#define ACT_COMMON .id = 0, .n_in = 1, .roles = {PW_ROLE_COMMON}, .fixed_result = CLOPS_DTYPE_NONE

/* min(max(v, 0), 6) with NaN propagating, for hardsigmoid and hardswish. */
static const char relu6_helpers[] =
    "#define CLOPS_RELU6(T)                                                      \\\n"
    "    T clops_relu6_##T(T v)                                                  \\\n"
    "    {                                                                       \\\n"
    "        T t = v < (T)0 ? (T)0 : v;                                          \\\n"
    "        return t > (T)6 ? (T)6 : t;                                         \\\n"
    "    }\n"
    "CLOPS_RELU6(float)\n"
    "#ifdef CLOPS_HAS_FP64\n"
    "CLOPS_RELU6(double)\n"
    "#endif\n";

/* logit with PyTorch's optional clamp to [lo, hi] (lo < 0 means no eps; a
 * NaN eps clamps nothing, as comparisons with NaN fail) and +inf at exactly
 * 1. */
static const char logit_helpers[] =
    "#define CLOPS_LOGIT(T)                                                      \\\n"
    "    T clops_logit_##T(T x, T lo, T hi)                                      \\\n"
    "    {                                                                       \\\n"
    "        if (!(lo < (T)0))                                                   \\\n"
    "            x = x < lo ? lo : (x > hi ? hi : x);                            \\\n"
    "        if (x == (T)1)                                                      \\\n"
    "            return (T)INFINITY;                                             \\\n"
    "        if (x >= (T)0.25 && x <= (T)0.75)                                   \\\n"
    "            return (T)2 * atanh((T)2 * x - (T)1);                           \\\n"
    "        return log(x / ((T)1 - x));                                         \\\n"
    "    }\n"
    "CLOPS_LOGIT(float)\n"
    "#ifdef CLOPS_HAS_FP64\n"
    "CLOPS_LOGIT(double)\n"
    "#endif\n";

const pw_op pw_op_relu = {
    .name = "relu",
    ACT_COMMON,
    .promotion = PW_PROMOTE_DEFAULT,
    .dtypes = PW_DT_NOBOOL,
    .expr = {[PW_CLASS_UINT] = "a"},
    .expr_default = "(a < ($T)0) ? ($T)0 : a",
    .domain = PW_DOMAIN_ANY,
};

/* clamp(x, min_val, max_val) = min(max(x, lo), hi); relu6 is (0, 6). */
const pw_op pw_op_hardtanh = {
    .name = "hardtanh",
    ACT_COMMON,
    .n_params = 2,
    .params = {PW_PARAM_COMPUTE, PW_PARAM_COMPUTE},
    .param_names = {"min_val", "max_val"},
    .promotion = PW_PROMOTE_DEFAULT,
    .dtypes = PW_DT_NOBOOL,
    .expr_default = "((a < p0 ? p0 : a) > p1) ? p1 : (a < p0 ? p0 : a)",
    .domain = PW_DOMAIN_ANY,
};

const pw_op pw_op_leaky_relu = {
    .name = "leaky_relu",
    ACT_COMMON,
    .n_params = 1,
    .params = {PW_PARAM_FLOAT},
    .param_names = {"negative_slope"},
    .promotion = PW_PROMOTE_DEFAULT,
    .dtypes = PW_DT_FLOATS,
    .expr = {[PW_CLASS_FLOAT] = "a > ($T)0 ? a : a * p0"},
    .domain = PW_DOMAIN_ANY,
};

/* elu(alpha, scale, input_scale); selu and celu are elu with fixed or derived
 * parameters (glue_unary.c). */
const pw_op pw_op_elu = {
    .name = "elu",
    ACT_COMMON,
    .n_params = 3,
    .params = {PW_PARAM_FLOAT, PW_PARAM_FLOAT, PW_PARAM_FLOAT},
    .param_names = {"alpha", "scale", "input_scale"},
    .promotion = PW_PROMOTE_DEFAULT,
    .dtypes = PW_DT_FLOATS,
    .expr = {[PW_CLASS_FLOAT] = "a <= ($T)0 ? expm1(a * p2) * (p0 * p1) : a * p1"},
    .domain = PW_DOMAIN_ANY,
    .ulp = 5,
};

/* gelu, approximate='none'. */
const pw_op pw_op_gelu = {
    .name = "gelu",
    ACT_COMMON,
    .promotion = PW_PROMOTE_DEFAULT,
    .dtypes = PW_DT_FLOATS,
    .expr = {[PW_CLASS_FLOAT] = "a * ($T)0.5 * erfc(-a * ($T)0.70710678118654752440)"},
    .domain = PW_DOMAIN_SMALL,
    .ulp = 20,
};

/* gelu, approximate='tanh': -2 sqrt(2/pi) (x + 0.044715 x^3) is -2u. */
const pw_op pw_op_gelu_tanh = {
    .name = "gelu_tanh",
    ACT_COMMON,
    .promotion = PW_PROMOTE_DEFAULT,
    .dtypes = PW_DT_FLOATS,
    .expr = {[PW_CLASS_FLOAT] = "a / (($T)1 + exp(($T)-1.5957691216057307118 * "
                                "(a + ($T)0.044715 * a * a * a)))"},
    .domain = PW_DOMAIN_SMALL,
    .ulp = 16,
};

const pw_op pw_op_silu = {
    .name = "silu",
    ACT_COMMON,
    .promotion = PW_PROMOTE_DEFAULT,
    .dtypes = PW_DT_FLOATS,
    .expr = {[PW_CLASS_FLOAT] = "a / (($T)1 + exp(-a))"},
    .domain = PW_DOMAIN_ANY,
    .ulp = 6,
};

const pw_op pw_op_mish = {
    .name = "mish",
    ACT_COMMON,
    .promotion = PW_PROMOTE_DEFAULT,
    .dtypes = PW_DT_FLOATS,
    .expr = {[PW_CLASS_FLOAT] = "a * tanh(log1p(exp(a)))"},
    .domain = PW_DOMAIN_ANY,
    .ulp = 12,
};

const pw_op pw_op_softplus = {
    .name = "softplus",
    ACT_COMMON,
    .n_params = 2,
    .params = {PW_PARAM_FLOAT, PW_PARAM_FLOAT},
    .param_names = {"beta", "threshold"},
    .promotion = PW_PROMOTE_DEFAULT,
    .dtypes = PW_DT_FLOATS,
    .expr = {[PW_CLASS_FLOAT] = "(a * p0 > p1) ? a : log1p(exp(a * p0)) / p0"},
    .domain = PW_DOMAIN_ANY,
    .ulp = 8,
};

/* softshrink: NaN propagates (PyTorch's kernel returns the input for NaN). */
const pw_op pw_op_softshrink = {
    .name = "softshrink",
    ACT_COMMON,
    .n_params = 1,
    .params = {PW_PARAM_FLOAT},
    .param_names = {"lambd"},
    .promotion = PW_PROMOTE_DEFAULT,
    .dtypes = PW_DT_FLOATS,
    .expr = {[PW_CLASS_FLOAT] = "isnan(a) ? a : (a > p0 ? a - p0 : (a < -p0 ? a + p0 : ($T)0))"},
    .domain = PW_DOMAIN_ANY,
};

const pw_op pw_op_hardshrink = {
    .name = "hardshrink",
    ACT_COMMON,
    .n_params = 1,
    .params = {PW_PARAM_FLOAT},
    .param_names = {"lambd"},
    .promotion = PW_PROMOTE_DEFAULT,
    .dtypes = PW_DT_FLOATS,
    .expr = {[PW_CLASS_FLOAT] = "(a >= -p0 && a <= p0) ? ($T)0 : a"},
    .domain = PW_DOMAIN_ANY,
};

const pw_op pw_op_hardsigmoid = {
    .name = "hardsigmoid",
    ACT_COMMON,
    .promotion = PW_PROMOTE_DEFAULT,
    .dtypes = PW_DT_FLOATS,
    .expr = {[PW_CLASS_FLOAT] = "clops_relu6_$T(a + ($T)3) / ($T)6"},
    .helpers = relu6_helpers,
    .domain = PW_DOMAIN_ANY,
    .ulp = 3,
};

const pw_op pw_op_hardswish = {
    .name = "hardswish",
    ACT_COMMON,
    .promotion = PW_PROMOTE_DEFAULT,
    .dtypes = PW_DT_FLOATS,
    .expr = {[PW_CLASS_FLOAT] = "a * (clops_relu6_$T(a + ($T)3) / ($T)6)"},
    .helpers = relu6_helpers,
    .domain = PW_DOMAIN_ANY,
    .ulp = 3,
};

const pw_op pw_op_sigmoid = {
    .name = "sigmoid",
    ACT_COMMON,
    .promotion = PW_PROMOTE_INT_TO_FLOAT,
    .dtypes = PW_DT_ALL,
    .expr_default = "($T)1 / (($T)1 + exp(-a))",
    .domain = PW_DOMAIN_ANY,
    .ulp = 6,
};

/* log_sigmoid: min(x, 0) - log1p(exp(-|x|)). */
const pw_op pw_op_logsigmoid = {
    .name = "logsigmoid",
    ACT_COMMON,
    .promotion = PW_PROMOTE_DEFAULT,
    .dtypes = PW_DT_FLOATS,
    .expr = {[PW_CLASS_FLOAT] = "(a < ($T)0 ? a : ($T)0) - log1p(exp(-fabs(a)))"},
    .domain = PW_DOMAIN_ANY,
    .ulp = 6,
};

/* logit(eps): p0 = eps (negative for None), p1 = 1 - eps, both rounded as
 * PyTorch rounds them for the dtype (glue_unary.c). */
const pw_op pw_op_logit = {
    .name = "logit",
    ACT_COMMON,
    .n_params = 2,
    .params = {PW_PARAM_FLOAT, PW_PARAM_FLOAT},
    .param_names = {"eps", "one_minus_eps"},
    .promotion = PW_PROMOTE_INT_TO_FLOAT,
    .dtypes = PW_DT_ALL,
    .expr_default = "clops_logit_$T(a, p0, p1)",
    .helpers = logit_helpers,
    .domain = PW_DOMAIN_PROB,
    .ulp = 7,
};

const pw_op pw_op_threshold = {
    .name = "threshold",
    ACT_COMMON,
    .n_params = 2,
    .params = {PW_PARAM_COMPUTE, PW_PARAM_COMPUTE},
    .param_names = {"threshold", "value"},
    .promotion = PW_PROMOTE_DEFAULT,
    .dtypes = PW_DT_NOBOOL,
    .expr_default = "a <= p0 ? p1 : a",
    .domain = PW_DOMAIN_ANY,
};
