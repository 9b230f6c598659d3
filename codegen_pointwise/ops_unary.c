/* SPDX-License-Identifier: Apache-2.0 */
/*
 * codegen_pointwise/ops_unary.c: pointwise op records for the sign,
 * magnitude, rounding, classification and angle-conversion ops (abs, neg,
 * sign, signbit, square, reciprocal, floor, ceil, round, round.decimals,
 * trunc, frac, isnan, isinf, isposinf, isneginf, isfinite, nan_to_num,
 * deg2rad, rad2deg).
 *
 * Each record gives PyTorch's dtype rules (promotion method and accepted
 * dtypes, from ATen's CPU kernels: abs/neg/floor/round/trunc refuse bool,
 * frac and round.decimals take floating dtypes only, the rounding ops leave
 * integers unchanged, classification ops accept everything and answer bool)
 * and one OpenCL C expression per dtype class (see pw.h for `$T`, `$U`,
 * `$R`, operands a.. and params p0..).  The C references are in
 * ref/ref_unary.c.
 *
 * Integer arithmetic that may overflow (neg, abs and square of the extremes)
 * is done in the unsigned counterpart `$U` and converted back, which wraps as
 * two's complement does in PyTorch, without C's undefined behaviour.
 */
#include "codegen_pointwise/ops_unary.h"
#include "ref/ref_unary.h"

/* Helper of round.decimals: x / y rounded correctly (OpenCL's `/` may be
 * 2.5 ulp off in float; PyTorch's CPU division is IEEE), by one correction
 * step on the residual computed with fma. */
static const char round_decimals_helpers[] =
    "#define CLOPS_RDIV(T)                                   \\\n"
    "    T clops_rdiv_##T(T x, T y)                          \\\n"
    "    {                                                   \\\n"
    "        T q = x / y;                                    \\\n"
    "        if (!isfinite(q) || q == (T)0)                  \\\n"
    "            return q;                                   \\\n"
    "        T r = fma(-q, y, x);                            \\\n"
    "        return q + r / y;                               \\\n"
    "    }\n"
    "CLOPS_RDIV(float)\n"
    "#ifdef CLOPS_HAS_FP64\n"
    "CLOPS_RDIV(double)\n"
    "#endif\n";

/* Shorthand for the fields every one-operand record shares. */
#define UNARY_COMMON                                                                \
    .id = 0, .n_in = 1, .roles = {PW_ROLE_COMMON}, .fixed_result = CLOPS_DTYPE_NONE

/* --- sign and magnitude ------------------------------------------------------ */

const pw_op pw_op_abs = {
    .name = "abs",
    UNARY_COMMON,
    .promotion = PW_PROMOTE_DEFAULT,
    .dtypes = PW_DT_NOBOOL,
    .expr = {[PW_CLASS_UINT] = "a", [PW_CLASS_SINT] = "($T)abs(a)", [PW_CLASS_FLOAT] = "fabs(a)"},
    .domain = PW_DOMAIN_ANY,
};

const pw_op pw_op_neg = {
    .name = "neg",
    UNARY_COMMON,
    .promotion = PW_PROMOTE_DEFAULT,
    .dtypes = PW_DT_NOBOOL,
    .expr = {[PW_CLASS_FLOAT] = "-a"},
    .expr_default = "($T)(($U)0 - ($U)a)",
    .domain = PW_DOMAIN_ANY,
};

/* (0 < x) - (x < 0): NaN and -0.0 give +0.0, bool stays bool. */
const pw_op pw_op_sign = {
    .name = "sign",
    UNARY_COMMON,
    .promotion = PW_PROMOTE_DEFAULT,
    .dtypes = PW_DT_ALL,
    .expr_default = "($T)((a > ($T)0) - (a < ($T)0))",
    .domain = PW_DOMAIN_ANY,
};

const pw_op pw_op_signbit = {
    .name = "signbit",
    .id = 0,
    .n_in = 1,
    .roles = {PW_ROLE_COMMON},
    .promotion = PW_PROMOTE_DEFAULT,
    .fixed_result = CLOPS_BOOL,
    .dtypes = PW_DT_ALL,
    .expr = {[PW_CLASS_SINT] = "a < ($T)0", [PW_CLASS_FLOAT] = "signbit(a) != 0"},
    .expr_default = "0",
    .domain = PW_DOMAIN_ANY,
};

/* square is pow(x, 2): bool promotes to int64 like pow(bool, 2). */
const pw_op pw_op_square = {
    .name = "square",
    UNARY_COMMON,
    .promotion = PW_PROMOTE_BOOL_TO_LONG,
    .dtypes = PW_DT_ALL,
    .expr = {[PW_CLASS_FLOAT] = "a * a"},
    .expr_default = "($T)(($U)a * ($U)a)",
    .vector_expr = true,
    .domain = PW_DOMAIN_ANY,
};

/* OpenCL allows 2.5 ulp for 1/x. */
const pw_op pw_op_reciprocal = {
    .name = "reciprocal",
    UNARY_COMMON,
    .promotion = PW_PROMOTE_INT_TO_FLOAT,
    .dtypes = PW_DT_ALL,
    .expr_default = "($T)1 / a",
    .vector_expr = true,
    .domain = PW_DOMAIN_ANY,
    .ulp = 3,
};

/* --- rounding ------------------------------------------------------------------- */

/* The rounding ops copy integers and refuse bool. */
#define ROUNDING_OP(NAME, FN)                                                       \
    const pw_op pw_op_##NAME = {                                                    \
        .name = #NAME,                                                              \
        UNARY_COMMON,                                                               \
        .promotion = PW_PROMOTE_DEFAULT,                                            \
        .dtypes = PW_DT_NOBOOL,                                                     \
        .expr = {[PW_CLASS_FLOAT] = FN "(a)"},                                      \
        .expr_default = "a",                                                        \
        .domain = PW_DOMAIN_ANY,                                                    \
    }

ROUNDING_OP(floor, "floor");
ROUNDING_OP(ceil, "ceil");
ROUNDING_OP(trunc, "trunc");
/* rint rounds half to even, as torch.round does. */
ROUNDING_OP(round, "rint");

/* round.decimals for decimals != 0: p0 = 10^|decimals| (float in a float
 * compute, as PyTorch casts std::pow(10, d) to the op math type), p1 = 1
 * for negative decimals. */
const pw_op pw_op_round_decimals = {
    .name = "round_decimals",
    UNARY_COMMON,
    .n_params = 2,
    .params = {PW_PARAM_FLOAT, PW_PARAM_INT},
    .param_names = {"ten_pow_decimals", "negative_decimals"},
    .promotion = PW_PROMOTE_DEFAULT,
    .dtypes = PW_DT_FLOATS,
    .expr = {[PW_CLASS_FLOAT] = "(p1 != 0) ? rint(clops_rdiv_$T(a, p0)) * p0 "
                                ": clops_rdiv_$T(rint(a * p0), p0)"},
    .helpers = round_decimals_helpers,
    .ref_same_precision = true,
    .domain = PW_DOMAIN_ANY,
};

const pw_op pw_op_frac = {
    .name = "frac",
    UNARY_COMMON,
    .promotion = PW_PROMOTE_DEFAULT,
    .dtypes = PW_DT_FLOATS,
    .expr = {[PW_CLASS_FLOAT] = "a - trunc(a)"},
    .domain = PW_DOMAIN_ANY,
};

/* --- classification ---------------------------------------------------------------- */

/* Predicates: bool result; integers are never NaN or infinite. */
#define PREDICATE_OP(NAME, FLOAT_EXPR, INT_EXPR)                                    \
    const pw_op pw_op_##NAME = {                                                    \
        .name = #NAME,                                                              \
        UNARY_COMMON,                                                               \
        .promotion = PW_PROMOTE_ALWAYS_BOOL,                                        \
        .dtypes = PW_DT_ALL,                                                        \
        .expr = {[PW_CLASS_FLOAT] = FLOAT_EXPR},                                    \
        .expr_default = INT_EXPR,                                                   \
        .domain = PW_DOMAIN_ANY,                                                    \
    }

PREDICATE_OP(isnan, "isnan(a) ? 1 : 0", "0");
PREDICATE_OP(isinf, "isinf(a) ? 1 : 0", "0");
PREDICATE_OP(isposinf, "(isinf(a) && a > ($T)0) ? 1 : 0", "0");
PREDICATE_OP(isneginf, "(isinf(a) && a < ($T)0) ? 1 : 0", "0");
PREDICATE_OP(isfinite, "isfinite(a) ? 1 : 0", "1");

/* nan_to_num with its replacements as compute-dtype params (the glue
 * function fills PyTorch's dtype-dependent defaults); integers pass. */
const pw_op pw_op_nan_to_num = {
    .name = "nan_to_num",
    UNARY_COMMON,
    .n_params = 3,
    .params = {PW_PARAM_COMPUTE, PW_PARAM_COMPUTE, PW_PARAM_COMPUTE},
    .param_names = {"nan", "posinf", "neginf"},
    .promotion = PW_PROMOTE_DEFAULT,
    .dtypes = PW_DT_ALL,
    .expr = {[PW_CLASS_FLOAT] = "isnan(a) ? p0 : (isinf(a) ? (a > ($T)0 ? p1 : p2) : a)"},
    .expr_default = "a",
    .domain = PW_DOMAIN_ANY,
};

/* --- angles ------------------------------------------------------------------------ */

/* PyTorch multiplies by the constant converted to the op math type. */
const pw_op pw_op_deg2rad = {
    .name = "deg2rad",
    UNARY_COMMON,
    .promotion = PW_PROMOTE_INT_TO_FLOAT,
    .dtypes = PW_DT_ALL,
    .expr_default = "a * ($T)0.017453292519943295769236907684886127",
    .vector_expr = true,
    .domain = PW_DOMAIN_ANY,
};

const pw_op pw_op_rad2deg = {
    .name = "rad2deg",
    UNARY_COMMON,
    .promotion = PW_PROMOTE_INT_TO_FLOAT,
    .dtypes = PW_DT_ALL,
    .expr_default = "a * ($T)57.295779513082320876798154814105170",
    .vector_expr = true,
    .domain = PW_DOMAIN_ANY,
};
