/* SPDX-License-Identifier: Apache-2.0 */
/*
 * codegen_pointwise/cast.c: the identity op behind copy_, fill_, clone,
 * contiguous and every dtype conversion.
 *
 * Its expression is the operand itself; the conversions happen in the load
 * and store code the emitter writes for the (input, output) dtype pair, so
 * the cast rules live in one place (emit.c for devices, ref/value.c for the
 * CPU).
 */
#include "codegen_pointwise/pw.h"

const pw_op pw_op_copy = {
    .name = "copy",
    .id = 0,
    .n_in = 1,
    .n_params = 0,
    .roles = {PW_ROLE_COMMON},
    .promotion = PW_PROMOTE_NO_OPMATH,
    .dtypes = (1u << CLOPS_DTYPE_COUNT) - 1,
    .expr_default = "a",
    .fixed_result = CLOPS_DTYPE_NONE,
    .is_cast = true,
};
