/* SPDX-License-Identifier: Apache-2.0 */
/*
 * codegen_pointwise/ops_bitwise.c: bitwise and, or, xor, not and the two
 * shifts.
 *
 * and/or/xor/not accept bool and the integer dtypes (on bool they are the
 * logical ops); the shifts accept integers only.  Floating operands are
 * refused, as by PyTorch's kernels.  Shift counts outside [0, width) get
 * PyTorch's CPU results (see ref/ref_bitwise.c): the count is read as a
 * signed value of the operand's width; a negative or too large count gives
 * 0 for a left shift and a shift by width - 1 (width for uint8) for a right
 * shift.  References: ref/ref_bitwise.c.
 */
#include "codegen_pointwise/ops_binary.h"
#include "ref/ref_binary.h"

/* One record per and/or/xor. */
#define BITWISE_OP(NAME, OPSTR)                                                                    \
    const pw_op pw_op_##NAME = {                                                                   \
        .name = #NAME,                                                                             \
        .n_in = 2,                                                                                 \
        .roles = {PW_ROLE_COMMON, PW_ROLE_COMMON},                                                 \
        .promotion = PW_PROMOTE_DEFAULT,                                                           \
        .dtypes = PW_DT_BOOL | PW_DT_INTS,                                                         \
        .expr_default = "($T)(a " OPSTR " b)",                                                     \
        .fixed_result = CLOPS_DTYPE_NONE,                                                          \
        .domain = PW_DOMAIN_ANY,                                                                   \
        .ulp = 1,                                                                                  \
    };

BITWISE_OP(bitwise_and, "&")
BITWISE_OP(bitwise_or, "|")
BITWISE_OP(bitwise_xor, "^")

const pw_op pw_op_bitwise_not = {
    .name = "bitwise_not",
    .n_in = 1,
    .roles = {PW_ROLE_COMMON},
    .promotion = PW_PROMOTE_DEFAULT,
    .dtypes = PW_DT_BOOL | PW_DT_INTS,
    .expr = {[PW_CLASS_BOOL] = "(uchar)(a == (uchar)0)"},
    .expr_default = "($T)~a",
    .fixed_result = CLOPS_DTYPE_NONE,
    .domain = PW_DOMAIN_ANY,
    .ulp = 1,
};

/* Shifts per integer type T (signed counterpart S, BITS wide, SGN 1 for
 * signed types): the count is tested as S so a uint8 count >= 128 counts as
 * negative; the left shift is done on the unsigned type U. */
#define SHIFT_HELPERS                                                                              \
    "#define CLOPS_SHIFT_HELPERS(T, U, S, BITS, SGN) \\\n"                                         \
    "T clops_shl_##T(T a, T b) \\\n"                                                               \
    "{ \\\n"                                                                                       \
    "    return ((S)b < (S)0 || b >= (T)(BITS)) ? (T)0 : (T)((U)a << (uint)b); \\\n"               \
    "} \\\n"                                                                                       \
    "T clops_shr_##T(T a, T b) \\\n"                                                               \
    "{ \\\n"                                                                                       \
    "    uint m = (uint)((BITS) - (SGN)); \\\n"                                                    \
    "    uint n = ((S)b < (S)0 || b >= (T)m) ? m : (uint)b; \\\n"                                  \
    "    return (T)(a >> n); \\\n"                                                                 \
    "}\n"                                                                                          \
    "CLOPS_SHIFT_HELPERS(uchar, uchar, char, 8, 0)\n"                                              \
    "CLOPS_SHIFT_HELPERS(char, uchar, char, 8, 1)\n"                                               \
    "CLOPS_SHIFT_HELPERS(short, ushort, short, 16, 1)\n"                                           \
    "CLOPS_SHIFT_HELPERS(int, uint, int, 32, 1)\n"                                                 \
    "CLOPS_SHIFT_HELPERS(long, ulong, long, 64, 1)\n"

/* One record per shift. */
#define SHIFT_OP(NAME, FN)                                                                         \
    const pw_op pw_op_##NAME = {                                                                   \
        .name = #NAME,                                                                             \
        .n_in = 2,                                                                                 \
        .roles = {PW_ROLE_COMMON, PW_ROLE_COMMON},                                                 \
        .promotion = PW_PROMOTE_DEFAULT,                                                           \
        .dtypes = PW_DT_INTS,                                                                      \
        .expr_default = FN "_$T(a, b)",                                                            \
        .helpers = SHIFT_HELPERS,                                                                  \
        .fixed_result = CLOPS_DTYPE_NONE,                                                          \
        .domain = PW_DOMAIN_ANY,                                                                   \
        .ulp = 1,                                                                                  \
    };

SHIFT_OP(bitwise_left_shift, "clops_shl")
SHIFT_OP(bitwise_right_shift, "clops_shr")
