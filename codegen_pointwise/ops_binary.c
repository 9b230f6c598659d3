/* SPDX-License-Identifier: Apache-2.0 */
/*
 * codegen_pointwise/ops_binary.c: the arithmetic pointwise ops: add, sub,
 * mul, true/trunc/floor division, remainder, fmod, pow, lerp, addcmul and
 * addcdiv.
 *
 * Each record gives PyTorch's promotion and accepted dtypes, an OpenCL C
 * expression per dtype class (see pw.h and emit.c: a, b, c are the operands
 * in the compute type $T, p0.. the parameters) and its C reference in
 * ref/ref_binary.c.  Schemas reach them through dispatch/inventory/
 * pointwise_binary.yaml, directly or through the family functions of
 * glue_binary.c (sub's bool checks, div's rounding modes, pow's special
 * cases).
 *
 * Integer arithmetic wraps at the dtype's width like PyTorch's: it is done
 * in a 32- or 64-bit unsigned type (signed overflow is undefined in OpenCL C
 * as in C) and truncated.  Integer division by zero and MIN / -1 use the
 * prelude's helpers, whose results are documented in ref/ref_binary.h.
 */
#include "codegen_pointwise/ops_binary.h"
#include "ref/ref_binary.h"

/* Wrapping integer arithmetic for every integer compute type: W is an
 * unsigned type at least as wide as T and at least 32 bits, so no operation
 * overflows a signed type after integer promotion. */
#define INT_WRAP_HELPERS                                                                           \
    "#define CLOPS_WRAP_HELPERS(T, W) \\\n"                                                        \
    "T clops_addmul_##T(T a, T s, T b) { return (T)((W)a + (W)s * (W)b); } \\\n"                   \
    "T clops_submul_##T(T a, T s, T b) { return (T)((W)a - (W)s * (W)b); } \\\n"                   \
    "T clops_mulw_##T(T a, T b) { return (T)((W)a * (W)b); } \\\n"                                 \
    "T clops_addcmul_##T(T a, T s, T b, T c) { return (T)((W)a + (W)s * (W)b * (W)c); }\n"         \
    "CLOPS_WRAP_HELPERS(uchar, uint)\n"                                                            \
    "CLOPS_WRAP_HELPERS(char, uint)\n"                                                             \
    "CLOPS_WRAP_HELPERS(short, uint)\n"                                                            \
    "CLOPS_WRAP_HELPERS(int, uint)\n"                                                              \
    "CLOPS_WRAP_HELPERS(long, ulong)\n"

/* Operations that chain roundings are evaluated step by step, as PyTorch's
 * float kernels do, not fused into fma (so the device and the reference,
 * which repeats the steps in float, agree). */
#define NO_CONTRACT "#pragma OPENCL FP_CONTRACT OFF\n"

const pw_op pw_op_add = {
    .name = "add",
    .n_in = 2,
    .n_params = 1,
    .roles = {PW_ROLE_COMMON, PW_ROLE_COMMON},
    .params = {PW_PARAM_COMPUTE},
    .param_names = {"alpha"},
    .promotion = PW_PROMOTE_DEFAULT,
    .dtypes = PW_DT_ALL,
    .expr = {[PW_CLASS_BOOL] = "(uchar)(a | (p0 & b))",
             [PW_CLASS_UINT] = "clops_addmul_$T(a, p0, b)",
             [PW_CLASS_SINT] = "clops_addmul_$T(a, p0, b)"},
    .expr_default = "a + p0 * b",
    .vector_expr = true,
    .helpers = INT_WRAP_HELPERS,
    .fixed_result = CLOPS_DTYPE_NONE,
    .domain = PW_DOMAIN_ANY,
    .ulp = 1,
};

/* sub refuses bool operands (glue_binary.c checks them; a bool common dtype
 * cannot arise otherwise), so there is no bool expression. */
const pw_op pw_op_sub = {
    .name = "sub",
    .n_in = 2,
    .n_params = 1,
    .roles = {PW_ROLE_COMMON, PW_ROLE_COMMON},
    .params = {PW_PARAM_COMPUTE},
    .param_names = {"alpha"},
    .promotion = PW_PROMOTE_DEFAULT,
    .dtypes = PW_DT_NOBOOL,
    .expr = {[PW_CLASS_UINT] = "clops_submul_$T(a, p0, b)",
             [PW_CLASS_SINT] = "clops_submul_$T(a, p0, b)"},
    .expr_default = "a - p0 * b",
    .vector_expr = true,
    .helpers = INT_WRAP_HELPERS,
    .fixed_result = CLOPS_DTYPE_NONE,
    .domain = PW_DOMAIN_ANY,
    .ulp = 1,
};

const pw_op pw_op_mul = {
    .name = "mul",
    .n_in = 2,
    .scalar_opmath = true,
    .roles = {PW_ROLE_COMMON, PW_ROLE_COMMON},
    .promotion = PW_PROMOTE_DEFAULT,
    .dtypes = PW_DT_ALL,
    .expr = {[PW_CLASS_BOOL] = "(uchar)(a & b)",
             [PW_CLASS_UINT] = "clops_mulw_$T(a, b)",
             [PW_CLASS_SINT] = "clops_mulw_$T(a, b)"},
    .expr_default = "a * b",
    .vector_expr = true,
    .helpers = INT_WRAP_HELPERS,
    .fixed_result = CLOPS_DTYPE_NONE,
    .domain = PW_DOMAIN_ANY,
    .ulp = 1,
};

/* True division: integers and bool compute in float32.  OpenCL allows
 * 2.5 ulp for float division. */
const pw_op pw_op_div = {
    .name = "div",
    .n_in = 2,
    .scalar_opmath = true,
    .roles = {PW_ROLE_COMMON, PW_ROLE_COMMON},
    .promotion = PW_PROMOTE_INT_TO_FLOAT,
    .dtypes = PW_DT_ALL,
    .expr_default = "a / b",
    .vector_expr = true,
    .fixed_result = CLOPS_DTYPE_NONE,
    .domain = PW_DOMAIN_ANY,
    .ulp = 3,
};

/* div(rounding_mode="trunc"): integers keep their dtype. */
const pw_op pw_op_div_trunc = {
    .name = "div_trunc",
    .n_in = 2,
    .scalar_opmath = true,
    .roles = {PW_ROLE_COMMON, PW_ROLE_COMMON},
    .promotion = PW_PROMOTE_DEFAULT,
    .dtypes = PW_DT_NOBOOL,
    .expr = {[PW_CLASS_UINT] = "clops_tdiv_$T(a, b)", [PW_CLASS_SINT] = "clops_tdiv_$T(a, b)"},
    .expr_default = "trunc(a / b)",
    .ref_same_precision = true,
    .fixed_result = CLOPS_DTYPE_NONE,
    .domain = PW_DOMAIN_ANY,
    .ulp = 1,
};

/* div(rounding_mode="floor") and floor_divide: Python's floor division
 * (the prelude's clops_fdiv_* for integers and floats). */
const pw_op pw_op_div_floor = {
    .name = "div_floor",
    .n_in = 2,
    .scalar_opmath = true,
    .roles = {PW_ROLE_COMMON, PW_ROLE_COMMON},
    .promotion = PW_PROMOTE_DEFAULT,
    .dtypes = PW_DT_NOBOOL,
    .expr_default = "clops_fdiv_$T(a, b)",
    .ref_same_precision = true,
    .fixed_result = CLOPS_DTYPE_NONE,
    .domain = PW_DOMAIN_ANY,
    .ulp = 1,
};

/* remainder: Python's modulo, the sign of the divisor. */
const pw_op pw_op_remainder = {
    .name = "remainder",
    .n_in = 2,
    .roles = {PW_ROLE_COMMON, PW_ROLE_COMMON},
    .promotion = PW_PROMOTE_DEFAULT,
    .dtypes = PW_DT_NOBOOL,
    .expr_default = "clops_pymod_$T(a, b)",
    .ref_same_precision = true,
    .fixed_result = CLOPS_DTYPE_NONE,
    .domain = PW_DOMAIN_ANY,
    .ulp = 1,
};

/* fmod: C's remainder, the sign of the dividend (exact for floats). */
const pw_op pw_op_fmod = {
    .name = "fmod",
    .n_in = 2,
    .roles = {PW_ROLE_COMMON, PW_ROLE_COMMON},
    .promotion = PW_PROMOTE_DEFAULT,
    .dtypes = PW_DT_NOBOOL,
    .expr = {[PW_CLASS_UINT] = "clops_tmod_$T(a, b)", [PW_CLASS_SINT] = "clops_tmod_$T(a, b)"},
    .expr_default = "fmod(a, b)",
    .fixed_result = CLOPS_DTYPE_NONE,
    .domain = PW_DOMAIN_ANY,
    .ulp = 1,
};

/* Integer power by squaring in a wide unsigned type (wrapping), with
 * PyTorch's results for negative exponents: 1 for base 1, -1 or 1 by parity
 * for base -1, 0 for any other base. */
#define POW_HELPERS                                                                                \
    "#define CLOPS_POWI_LOOP(T, W) \\\n"                                                           \
    "    W r = (W)1, x = (W)a; ulong e = (ulong)b; \\\n"                                           \
    "    while (e) { if (e & 1ul) r *= x; x *= x; e >>= 1; } \\\n"                                 \
    "    return (T)r;\n"                                                                           \
    "#define CLOPS_POWI_SIGNED(T, W) \\\n"                                                         \
    "T clops_powi_##T(T a, T b) \\\n"                                                              \
    "{ \\\n"                                                                                       \
    "    if (b < (T)0) \\\n"                                                                       \
    "        return a == (T)1 ? (T)1 : a == (T)-1 ? ((b & (T)1) ? (T)-1 : (T)1) : (T)0; \\\n"      \
    "    CLOPS_POWI_LOOP(T, W) \\\n"                                                               \
    "}\n"                                                                                          \
    "uchar clops_powi_uchar(uchar a, uchar b)\n"                                                   \
    "{\n"                                                                                          \
    "    CLOPS_POWI_LOOP(uchar, uint)\n"                                                           \
    "}\n"                                                                                          \
    "CLOPS_POWI_SIGNED(char, uint)\n"                                                              \
    "CLOPS_POWI_SIGNED(short, uint)\n"                                                             \
    "CLOPS_POWI_SIGNED(int, uint)\n"                                                               \
    "CLOPS_POWI_SIGNED(long, ulong)\n"

/* pow: param 0 is the mode the pow glue chose (ref_pow_mode): PyTorch
 * computes pow(tensor, 0.5) as sqrt, -0.5 as 1/sqrt, -1 as a reciprocal and
 * 2, 3, -2 by multiplication, which differ from pow() at -0.0 and -inf. */
const pw_op pw_op_pow = {
    .name = "pow",
    .n_in = 2,
    .n_params = 1,
    .roles = {PW_ROLE_COMMON, PW_ROLE_COMMON},
    .params = {PW_PARAM_INT},
    .param_names = {"mode"},
    .promotion = PW_PROMOTE_DEFAULT,
    .dtypes = PW_DT_NOBOOL,
    .expr = {[PW_CLASS_UINT] = "clops_powi_$T(a, b)", [PW_CLASS_SINT] = "clops_powi_$T(a, b)"},
    .expr_default = "p0 == 1 ? sqrt(a) : p0 == 2 ? ($T)1 / sqrt(a) : p0 == 3 ? ($T)1 / a"
                    " : p0 == 4 ? a * a : p0 == 5 ? a * a * a : p0 == 6 ? ($T)1 / (a * a)"
                    " : pow(a, b)",
    .helpers = POW_HELPERS,
    .fixed_result = CLOPS_DTYPE_NONE,
    .domain = PW_DOMAIN_SMALL,
    .ulp = 16,
};

/* lerp(self, end, weight): self + weight * (end - self) for |weight| < 0.5,
 * else end - (end - self) * (1 - weight).  Floating dtypes only; the glue
 * checks that self and end (and weight) share a dtype. */
#define LERP_EXPR(W)                                                                               \
    "fabs(" W ") < ($T)0.5 ? a + " W " * (b - a) : b - (b - a) * (($T)1 - " W ")"

const pw_op pw_op_lerp = {
    .name = "lerp",
    .n_in = 2,
    .n_params = 1,
    .roles = {PW_ROLE_COMMON, PW_ROLE_COMMON},
    .params = {PW_PARAM_COMPUTE},
    .param_names = {"weight"},
    .promotion = PW_PROMOTE_DEFAULT,
    .dtypes = PW_DT_FLOATS,
    .expr_default = LERP_EXPR("p0"),
    .helpers = NO_CONTRACT,
    .ref_same_precision = true,
    .fixed_result = CLOPS_DTYPE_NONE,
    .domain = PW_DOMAIN_ANY,
    .ulp = 2,
};

const pw_op pw_op_lerp_tensor = {
    .name = "lerp_tensor",
    .n_in = 3,
    .roles = {PW_ROLE_COMMON, PW_ROLE_COMMON, PW_ROLE_COMMON},
    .promotion = PW_PROMOTE_DEFAULT,
    .dtypes = PW_DT_FLOATS,
    .expr_default = LERP_EXPR("c"),
    .helpers = NO_CONTRACT,
    .ref_same_precision = true,
    .fixed_result = CLOPS_DTYPE_NONE,
    .domain = PW_DOMAIN_ANY,
    .ulp = 2,
};

/* addcmul: self + value * tensor1 * tensor2 (every dtype but bool). */
const pw_op pw_op_addcmul = {
    .name = "addcmul",
    .n_in = 3,
    .n_params = 1,
    .roles = {PW_ROLE_COMMON, PW_ROLE_COMMON, PW_ROLE_COMMON},
    .params = {PW_PARAM_COMPUTE},
    .param_names = {"value"},
    .promotion = PW_PROMOTE_DEFAULT,
    .dtypes = PW_DT_NOBOOL,
    .expr = {[PW_CLASS_UINT] = "clops_addcmul_$T(a, p0, b, c)",
             [PW_CLASS_SINT] = "clops_addcmul_$T(a, p0, b, c)"},
    .expr_default = "a + p0 * b * c",
    .vector_expr = true,
    .helpers = NO_CONTRACT INT_WRAP_HELPERS,
    .ref_same_precision = true,
    .fixed_result = CLOPS_DTYPE_NONE,
    .domain = PW_DOMAIN_ANY,
    .ulp = 2,
};

/* addcdiv: self + value * tensor1 / tensor2 (floating: the glue refuses
 * integer tensor1 and tensor2). */
const pw_op pw_op_addcdiv = {
    .name = "addcdiv",
    .n_in = 3,
    .n_params = 1,
    .roles = {PW_ROLE_COMMON, PW_ROLE_COMMON, PW_ROLE_COMMON},
    .params = {PW_PARAM_COMPUTE},
    .param_names = {"value"},
    .promotion = PW_PROMOTE_DEFAULT,
    .dtypes = PW_DT_FLOATS,
    .expr_default = "a + p0 * b / c",
    .vector_expr = true,
    .helpers = NO_CONTRACT,
    .ref_same_precision = true,
    .fixed_result = CLOPS_DTYPE_NONE,
    .domain = PW_DOMAIN_ANY,
    .ulp = 3,
};
