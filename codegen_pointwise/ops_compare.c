/* SPDX-License-Identifier: Apache-2.0 */
/*
 * codegen_pointwise/ops_compare.c: comparisons (eq, ne, lt, le, gt, ge),
 * maximum/minimum/fmax/fmin, the clamp family, where, masked_fill and the
 * logical ops.
 *
 * Comparisons and logical ops are ALWAYS_BOOL: they compute in the common
 * dtype's opmath type and produce 0/1.  NaN rules follow PyTorch's CPU
 * kernels (ref/ref_compare.c spells them out): maximum/minimum propagate
 * NaN, fmax/fmin ignore it, clamp with both bounds gives NaN for a NaN input
 * or bound, clamp_min/clamp_max ignore a NaN bound.  Ties between -0.0 and
 * +0.0 pick the first operand, like std::max/std::min.
 *
 * clamp's bounds are operands, not parameters, because PyTorch promotes
 * with them (an int tensor clamped to 0.5 gives float32); the clamp glue
 * passes scalar bounds as scalar operands.
 */
#include "codegen_pointwise/ops_binary.h"
#include "ref/ref_binary.h"

/* One record per comparison: bool result, every dtype. */
#define COMPARE_OP(NAME, OPSTR)                                                                    \
    const pw_op pw_op_##NAME = {                                                                   \
        .name = #NAME,                                                                             \
        .n_in = 2,                                                                                 \
        .roles = {PW_ROLE_COMMON, PW_ROLE_COMMON},                                                 \
        .promotion = PW_PROMOTE_ALWAYS_BOOL,                                                       \
        .dtypes = PW_DT_ALL,                                                                       \
        .expr_default = "(uchar)(a " OPSTR " b)",                                                  \
        .fixed_result = CLOPS_DTYPE_NONE,                                                          \
        .domain = PW_DOMAIN_ANY,                                                                   \
        .ulp = 1,                                                                                  \
    };

COMPARE_OP(eq, "==")
COMPARE_OP(ne, "!=")
COMPARE_OP(lt, "<")
COMPARE_OP(le, "<=")
COMPARE_OP(gt, ">")
COMPARE_OP(ge, ">=")

/* std::max(a, b) and std::min(a, b) as expressions. */
#define MAX_AB "(a < b ? b : a)"
#define MIN_AB "(b < a ? b : a)"

const pw_op pw_op_maximum = {
    .name = "maximum",
    .n_in = 2,
    .roles = {PW_ROLE_COMMON, PW_ROLE_COMMON},
    .promotion = PW_PROMOTE_DEFAULT,
    .dtypes = PW_DT_ALL,
    .expr = {[PW_CLASS_BOOL] = "(uchar)(a | b)",
             [PW_CLASS_FLOAT] = "(isnan(a) || isnan(b)) ? ($T)NAN : " MAX_AB},
    .expr_default = MAX_AB,
    .fixed_result = CLOPS_DTYPE_NONE,
    .domain = PW_DOMAIN_ANY,
    .ulp = 1,
};

const pw_op pw_op_minimum = {
    .name = "minimum",
    .n_in = 2,
    .roles = {PW_ROLE_COMMON, PW_ROLE_COMMON},
    .promotion = PW_PROMOTE_DEFAULT,
    .dtypes = PW_DT_ALL,
    .expr = {[PW_CLASS_BOOL] = "(uchar)(a & b)",
             [PW_CLASS_FLOAT] = "(isnan(a) || isnan(b)) ? ($T)NAN : " MIN_AB},
    .expr_default = MIN_AB,
    .fixed_result = CLOPS_DTYPE_NONE,
    .domain = PW_DOMAIN_ANY,
    .ulp = 1,
};

const pw_op pw_op_fmax = {
    .name = "fmax",
    .n_in = 2,
    .roles = {PW_ROLE_COMMON, PW_ROLE_COMMON},
    .promotion = PW_PROMOTE_DEFAULT,
    .dtypes = PW_DT_ALL,
    .expr = {[PW_CLASS_BOOL] = "(uchar)(a | b)", [PW_CLASS_FLOAT] = "fmax(a, b)"},
    .expr_default = MAX_AB,
    .fixed_result = CLOPS_DTYPE_NONE,
    .domain = PW_DOMAIN_ANY,
    .ulp = 1,
};

const pw_op pw_op_fmin = {
    .name = "fmin",
    .n_in = 2,
    .roles = {PW_ROLE_COMMON, PW_ROLE_COMMON},
    .promotion = PW_PROMOTE_DEFAULT,
    .dtypes = PW_DT_ALL,
    .expr = {[PW_CLASS_BOOL] = "(uchar)(a & b)", [PW_CLASS_FLOAT] = "fmin(a, b)"},
    .expr_default = MIN_AB,
    .fixed_result = CLOPS_DTYPE_NONE,
    .domain = PW_DOMAIN_ANY,
    .ulp = 1,
};

/* clamp(self, min, max) with both bounds: std::min(std::max(a, lo), hi). */
#define CLAMP_AB_C "(c < (a < b ? b : a) ? c : (a < b ? b : a))"

const pw_op pw_op_clamp = {
    .name = "clamp",
    .n_in = 3,
    .roles = {PW_ROLE_COMMON, PW_ROLE_COMMON, PW_ROLE_COMMON},
    .promotion = PW_PROMOTE_DEFAULT,
    .dtypes = PW_DT_NOBOOL,
    .expr = {[PW_CLASS_FLOAT] = "(isnan(b) || isnan(c)) ? ($T)NAN : " CLAMP_AB_C},
    .expr_default = CLAMP_AB_C,
    .fixed_result = CLOPS_DTYPE_NONE,
    .domain = PW_DOMAIN_ANY,
    .ulp = 1,
};

/* clamp_min(self, min) with a scalar or one-sided bound: std::max(a, min);
 * NaN input stays NaN, a NaN bound is ignored. */
const pw_op pw_op_clamp_min = {
    .name = "clamp_min",
    .n_in = 2,
    .roles = {PW_ROLE_COMMON, PW_ROLE_COMMON},
    .promotion = PW_PROMOTE_DEFAULT,
    .dtypes = PW_DT_NOBOOL,
    .expr_default = MAX_AB,
    .fixed_result = CLOPS_DTYPE_NONE,
    .domain = PW_DOMAIN_ANY,
    .ulp = 1,
};

/* clamp_max(self, max): std::min(a, max). */
const pw_op pw_op_clamp_max = {
    .name = "clamp_max",
    .n_in = 2,
    .roles = {PW_ROLE_COMMON, PW_ROLE_COMMON},
    .promotion = PW_PROMOTE_DEFAULT,
    .dtypes = PW_DT_NOBOOL,
    .expr_default = "(b < a ? b : a)",
    .fixed_result = CLOPS_DTYPE_NONE,
    .domain = PW_DOMAIN_ANY,
    .ulp = 1,
};

/* where(condition, self, other): the condition is read as bool and takes no
 * part in promotion. */
const pw_op pw_op_where = {
    .name = "where",
    .n_in = 3,
    .roles = {PW_ROLE_BOOL, PW_ROLE_COMMON, PW_ROLE_COMMON},
    .promotion = PW_PROMOTE_DEFAULT,
    .dtypes = PW_DT_ALL,
    .expr_default = "a ? b : c",
    .fixed_result = CLOPS_DTYPE_NONE,
    .domain = PW_DOMAIN_ANY,
    .ulp = 1,
};

/* masked_fill(self, mask, value): value is a parameter converted to self's
 * dtype (it does not promote). */
const pw_op pw_op_masked_fill = {
    .name = "masked_fill",
    .n_in = 2,
    .n_params = 1,
    .roles = {PW_ROLE_COMMON, PW_ROLE_BOOL},
    .params = {PW_PARAM_COMPUTE},
    .param_names = {"value"},
    .promotion = PW_PROMOTE_DEFAULT,
    .dtypes = PW_DT_ALL,
    .expr_default = "b ? p0 : a",
    .fixed_result = CLOPS_DTYPE_NONE,
    .domain = PW_DOMAIN_ANY,
    .ulp = 1,
};

/* Logical ops: bool result, operands true when nonzero (NaN is true). */
#define LOGICAL_OP(NAME, N_IN, EXPR)                                                               \
    const pw_op pw_op_##NAME = {                                                                   \
        .name = #NAME,                                                                             \
        .n_in = N_IN,                                                                              \
        .roles = {PW_ROLE_COMMON, PW_ROLE_COMMON},                                                 \
        .promotion = PW_PROMOTE_ALWAYS_BOOL,                                                       \
        .dtypes = PW_DT_ALL,                                                                       \
        .expr_default = EXPR,                                                                      \
        .fixed_result = CLOPS_DTYPE_NONE,                                                          \
        .domain = PW_DOMAIN_ANY,                                                                   \
        .ulp = 1,                                                                                  \
    };

LOGICAL_OP(logical_and, 2, "(uchar)(a != ($T)0 && b != ($T)0)")
LOGICAL_OP(logical_or, 2, "(uchar)(a != ($T)0 || b != ($T)0)")
LOGICAL_OP(logical_xor, 2, "(uchar)((a != ($T)0) != (b != ($T)0))")
LOGICAL_OP(logical_not, 1, "(uchar)(a == ($T)0)")
