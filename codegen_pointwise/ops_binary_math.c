/* SPDX-License-Identifier: Apache-2.0 */
/*
 * codegen_pointwise/ops_binary_math.c: the floating binary functions
 * (atan2, hypot, copysign, nextafter, xlogy, logaddexp, logaddexp2) and
 * heaviside.
 *
 * atan2, copysign and xlogy are INT_TO_FLOAT (integers and bool compute in
 * float32); hypot, nextafter, logaddexp and logaddexp2 keep PyTorch's
 * DEFAULT promotion and refuse non-floating dtypes, as its CPU kernels do.
 * The ulp budgets are OpenCL's accuracy bounds for the built-ins used
 * (atan2 6, hypot 4, exp/log1p 3) plus the rounding of the final steps.
 * References: ref/ref_binary_math.c.
 */
#include "codegen_pointwise/ops_binary.h"
#include "ref/ref_binary.h"

const pw_op pw_op_atan2 = {
    .name = "atan2",
    .n_in = 2,
    .roles = {PW_ROLE_COMMON, PW_ROLE_COMMON},
    .promotion = PW_PROMOTE_INT_TO_FLOAT,
    .dtypes = PW_DT_ALL,
    .expr_default = "atan2(a, b)",
    .fixed_result = CLOPS_DTYPE_NONE,
    .domain = PW_DOMAIN_ANY,
    .ulp = 6,
};

const pw_op pw_op_hypot = {
    .name = "hypot",
    .n_in = 2,
    .roles = {PW_ROLE_COMMON, PW_ROLE_COMMON},
    .promotion = PW_PROMOTE_DEFAULT,
    .dtypes = PW_DT_FLOATS,
    .expr_default = "hypot(a, b)",
    .fixed_result = CLOPS_DTYPE_NONE,
    .domain = PW_DOMAIN_ANY,
    .ulp = 4,
};

/* Exact: only the sign bit moves (copysign(x, -0.0) is -|x|). */
const pw_op pw_op_copysign = {
    .name = "copysign",
    .n_in = 2,
    .roles = {PW_ROLE_COMMON, PW_ROLE_COMMON},
    .promotion = PW_PROMOTE_INT_TO_FLOAT,
    .dtypes = PW_DT_ALL,
    .expr_default = "copysign(a, b)",
    .fixed_result = CLOPS_DTYPE_NONE,
    .domain = PW_DOMAIN_ANY,
    .ulp = 1,
};

/* nextafter in the 16-bit formats, for float16 and bfloat16 data that
 * computes in float: the neighbour of `from` towards `to` among float16 (or
 * bfloat16) values, returned as the float holding it exactly.  Same rules as
 * C's nextafter: NaN in, NaN out; equal values give `to`; from a zero the
 * smallest subnormal with to's sign; otherwise one step of the bit pattern,
 * which orders magnitudes within a sign. */
#define NEXTAFTER_HELPERS                                                                          \
    "ushort clops_next16(ushort from, ushort to, int equal)\n"                                     \
    "{\n"                                                                                          \
    "    if (equal)\n"                                                                             \
    "        return to;\n"                                                                         \
    "    ushort af = from & (ushort)0x7fff, at = to & (ushort)0x7fff;\n"                           \
    "    if (af == 0)\n"                                                                           \
    "        return (ushort)((to & 0x8000) | 1);\n"                                                \
    "    if (af > at || ((from ^ to) & 0x8000))\n"                                                 \
    "        return (ushort)(from - 1);\n"                                                         \
    "    return (ushort)(from + 1);\n"                                                             \
    "}\n"                                                                                          \
    "/* Bits of a float that holds a float16 value (exact). */\n"                                  \
    "ushort clops_f2h_exact(float x)\n"                                                            \
    "{\n"                                                                                          \
    "    uint u = as_uint(x);\n"                                                                   \
    "    uint s = (u >> 16) & 0x8000u;\n"                                                          \
    "    int e = (int)((u >> 23) & 0xffu);\n"                                                      \
    "    uint m = u & 0x7fffffu;\n"                                                                \
    "    if (e == 0xff)\n"                                                                         \
    "        return (ushort)(s | 0x7c00u | (m ? 0x200u : 0u));\n"                                  \
    "    if (e == 0)\n"                                                                            \
    "        return (ushort)s;\n"                                                                  \
    "    int he = e - 112;\n"                                                                      \
    "    if (he >= 1)\n"                                                                           \
    "        return (ushort)(s | ((uint)he << 10) | (m >> 13));\n"                                 \
    "    return (ushort)(s | ((m | 0x800000u) >> (14 - he)));\n"                                   \
    "}\n"                                                                                          \
    "/* The float holding float16 bits h (exact). */\n"                                            \
    "float clops_h2f_exact(ushort h)\n"                                                            \
    "{\n"                                                                                          \
    "    uint s = ((uint)h & 0x8000u) << 16;\n"                                                    \
    "    uint e = ((uint)h >> 10) & 0x1fu;\n"                                                      \
    "    uint m = (uint)h & 0x3ffu;\n"                                                             \
    "    if (e == 0)\n"                                                                            \
    "        return as_float(s | as_uint((float)m * 5.9604644775390625e-8f));\n"                   \
    "    if (e == 31)\n"                                                                           \
    "        return as_float(s | 0x7f800000u | (m << 13));\n"                                      \
    "    return as_float(s | ((e + 112u) << 23) | (m << 13));\n"                                   \
    "}\n"                                                                                          \
    "float clops_nextafter_f16(float a, float b)\n"                                                \
    "{\n"                                                                                          \
    "    if (isnan(a) || isnan(b))\n"                                                              \
    "        return a + b;\n"                                                                      \
    "    return clops_h2f_exact(clops_next16(clops_f2h_exact(a), clops_f2h_exact(b), a == b));\n"  \
    "}\n"                                                                                          \
    "float clops_nextafter_bf16(float a, float b)\n"                                               \
    "{\n"                                                                                          \
    "    if (isnan(a) || isnan(b))\n"                                                              \
    "        return a + b;\n"                                                                      \
    "    ushort fa = (ushort)(as_uint(a) >> 16), fb = (ushort)(as_uint(b) >> 16);\n"               \
    "    ushort n = clops_next16(fa, fb, a == b);\n"                                               \
    "    return as_float((uint)n << 16);\n"                                                        \
    "}\n"

/* nextafter: param 0 is the format to step in (ref_nextafter_mode), chosen
 * by the glue from the common dtype, since float16 and bfloat16 both
 * compute in float here. */
const pw_op pw_op_nextafter = {
    .name = "nextafter",
    .n_in = 2,
    .n_params = 1,
    .roles = {PW_ROLE_COMMON, PW_ROLE_COMMON},
    .params = {PW_PARAM_INT},
    .param_names = {"mode"},
    .promotion = PW_PROMOTE_DEFAULT,
    .dtypes = PW_DT_FLOATS,
    .expr_default = "p0 == 1 ? ($T)clops_nextafter_f16((float)a, (float)b)"
                    " : p0 == 2 ? ($T)clops_nextafter_bf16((float)a, (float)b) : nextafter(a, b)",
    .helpers = NEXTAFTER_HELPERS,
    .fixed_result = CLOPS_DTYPE_NONE,
    .domain = PW_DOMAIN_ANY,
    .ulp = 1,
};

/* xlogy: x * log(y), 0 where x == 0 (even for y == 0), NaN for a NaN y. */
const pw_op pw_op_xlogy = {
    .name = "xlogy",
    .n_in = 2,
    .roles = {PW_ROLE_COMMON, PW_ROLE_COMMON},
    .promotion = PW_PROMOTE_INT_TO_FLOAT,
    .dtypes = PW_DT_ALL,
    .expr_default = "isnan(b) ? ($T)NAN : a == ($T)0 ? ($T)0 : a * log(b)",
    .fixed_result = CLOPS_DTYPE_NONE,
    .domain = PW_DOMAIN_POSITIVE,
    .ulp = 4,
};

/* logaddexp: log(exp(a) + exp(b)) = max + log1p(exp(-|a - b|)); equal
 * infinities return themselves.  max is std::max's (a < b ? b : a). */
const pw_op pw_op_logaddexp = {
    .name = "logaddexp",
    .n_in = 2,
    .roles = {PW_ROLE_COMMON, PW_ROLE_COMMON},
    .promotion = PW_PROMOTE_DEFAULT,
    .dtypes = PW_DT_FLOATS,
    .expr_default = "(isinf(a) && a == b) ? a : (a < b ? b : a) + log1p(exp(-fabs(a - b)))",
    .fixed_result = CLOPS_DTYPE_NONE,
    .domain = PW_DOMAIN_ANY,
    .ulp = 4,
};

/* logaddexp2: the same in base 2 (log1p(2^-|a-b|) / ln 2). */
const pw_op pw_op_logaddexp2 = {
    .name = "logaddexp2",
    .n_in = 2,
    .roles = {PW_ROLE_COMMON, PW_ROLE_COMMON},
    .promotion = PW_PROMOTE_DEFAULT,
    .dtypes = PW_DT_FLOATS,
    .expr_default = "(isinf(a) && a == b) ? a"
                    " : (a < b ? b : a) + log1p(exp2(-fabs(a - b))) * ($T)1.4426950408889634",
    .fixed_result = CLOPS_DTYPE_NONE,
    .domain = PW_DOMAIN_ANY,
    .ulp = 4,
};

/* heaviside(self, values): values where self == 0, 1 where self > 0, else 0
 * (NaN gives 0 like PyTorch's CPU kernel).  Every dtype; the glue requires
 * self and values to share it. */
const pw_op pw_op_heaviside = {
    .name = "heaviside",
    .n_in = 2,
    .roles = {PW_ROLE_COMMON, PW_ROLE_COMMON},
    .promotion = PW_PROMOTE_DEFAULT,
    .dtypes = PW_DT_ALL,
    .expr = {[PW_CLASS_BOOL] = "(uchar)(a | b)", [PW_CLASS_UINT] = "a == 0 ? b : (uchar)1"},
    .expr_default = "a == ($T)0 ? b : ($T)(a > ($T)0)",
    .fixed_result = CLOPS_DTYPE_NONE,
    .domain = PW_DOMAIN_ANY,
    .ulp = 1,
};
