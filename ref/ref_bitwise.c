/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ref/ref_bitwise.c: reference functions of the bitwise ops (and, or, xor,
 * not, left and right shift); see ref/ref_binary.h for the conventions.
 *
 * and/or/xor/not also take bool, where they are the logical ops.  The shifts
 * follow PyTorch's CPU kernels for counts outside [0, width): the count is
 * read as a signed number of the operand's width (so a uint8 count of 200 is
 * negative), and a negative count or one >= the width gives 0 for a left
 * shift; a right shift then shifts by (width - 1) for signed types (leaving
 * 0 or -1, the sign) and by the width for uint8 (leaving 0).
 */
#include <stdint.h>

#include "ref/ref_binary.h"

/* Bits of an integer compute dtype. */
static int width_bits(clops_dtype dt)
{
    switch (dt) {
    case CLOPS_UINT8:
    case CLOPS_INT8:
        return 8;
    case CLOPS_INT16:
        return 16;
    case CLOPS_INT32:
        return 32;
    default:
        return 64;
    }
}

/* The count as a signed value of `bits` bits (two's complement). */
static int64_t as_signed(int64_t v, int bits)
{
    if (bits == 64)
        return v;
    uint64_t m = (uint64_t)1 << bits;
    uint64_t u = (uint64_t)v & (m - 1);
    return (u & (m >> 1)) ? (int64_t)(u - m) : (int64_t)u;
}

/* a & b (bool: and). */
ref_value ref_bitwise_and(const ref_pw_ctx *ctx, const ref_value *in)
{
    (void)ctx;
    ref_value r;
    r.i = in[0].i & in[1].i;
    return r;
}

/* a | b (bool: or). */
ref_value ref_bitwise_or(const ref_pw_ctx *ctx, const ref_value *in)
{
    (void)ctx;
    ref_value r;
    r.i = in[0].i | in[1].i;
    return r;
}

/* a ^ b (bool: xor). */
ref_value ref_bitwise_xor(const ref_pw_ctx *ctx, const ref_value *in)
{
    (void)ctx;
    ref_value r;
    r.i = in[0].i ^ in[1].i;
    return r;
}

/* ~a; for bool, not a. */
ref_value ref_bitwise_not(const ref_pw_ctx *ctx, const ref_value *in)
{
    ref_value r;
    r.i = ctx->compute == CLOPS_BOOL ? !in[0].i : ~in[0].i;
    return r;
}

/* a << b at the compute width; out-of-range counts give 0. */
ref_value ref_bitwise_left_shift(const ref_pw_ctx *ctx, const ref_value *in)
{
    ref_value r;
    int w = width_bits(ctx->compute);
    int64_t n = as_signed(in[1].i, w);
    if (n < 0 || n >= w)
        r.i = 0;
    else
        r.i = (int64_t)((uint64_t)in[0].i << n);
    return r;
}

/* a >> b (arithmetic for signed types, logical for uint8, whose inputs are
 * never negative here); out-of-range counts shift by the largest count that
 * keeps the sign. */
ref_value ref_bitwise_right_shift(const ref_pw_ctx *ctx, const ref_value *in)
{
    ref_value r;
    int w = width_bits(ctx->compute);
    int max_shift = ctx->compute == CLOPS_UINT8 ? w : w - 1;
    int64_t n = as_signed(in[1].i, w);
    if (n < 0 || n >= max_shift)
        n = max_shift;
    /* Right shift of a negative int64 is arithmetic with gcc/clang/MSVC;
     * n == 64 only happens for uint8 (a < 256), where the result is 0. */
    r.i = n >= 63 ? (in[0].i < 0 ? -1 : 0) : in[0].i >> n;
    return r;
}
