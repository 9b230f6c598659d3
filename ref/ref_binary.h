/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ref/ref_binary.h: C reference functions of the binary, ternary,
 * comparison, logical and bitwise pointwise ops.
 *
 * These are the oracle for the OpenCL kernels of the binary pointwise ops
 * (their records are generated from dispatch/inventory/pointwise_binary.yaml),
 * and the CPU device's implementation of those ops.  They are written from PyTorch's documented
 * CPU semantics, independently of the OpenCL expressions: floating computes
 * receive and return .f (double; values already rounded to float32 for
 * float32/float16/bfloat16 computes), integer and bool computes .i (int64
 * holding a value of the compute dtype), and the walk (ref/pointwise.c)
 * wraps integer results to the compute width and rounds float results.
 *
 * Integer division by zero, which PyTorch's CPU kernels refuse with
 * "ZeroDivisionError" and which a GPU kernel cannot report, has one
 * documented result everywhere in clops: the quotient is 0 and the remainder
 * (remainder, fmod) is the dividend, so a == q * b + r still holds.  MIN / -1
 * wraps to MIN with remainder 0, as two's complement arithmetic does.
 */
#ifndef CLOPS_REF_BINARY_H
#define CLOPS_REF_BINARY_H

#include "ref/ref_pw.h"

/* X(name): the ops of these files, each op's name ("add"), and its
 * reference function ref_<name> (a ref_pw_fn). */
#define REF_BINARY_OPS(X)                                                       \
    X(add)                                                                      \
    X(sub)                                                                      \
    X(mul)                                                                      \
    X(div)                                                                      \
    X(div_trunc)                                                                \
    X(div_floor)                                                                \
    X(remainder)                                                                \
    X(fmod)                                                                     \
    X(pow)                                                                      \
    X(lerp)                                                                     \
    X(lerp_tensor)                                                              \
    X(addcmul)                                                                  \
    X(addcdiv)                                                                  \
    X(atan2)                                                                    \
    X(hypot)                                                                    \
    X(copysign)                                                                 \
    X(nextafter)                                                                \
    X(xlogy)                                                                    \
    X(logaddexp)                                                                \
    X(logaddexp2)                                                               \
    X(heaviside)                                                                \
    X(eq)                                                                       \
    X(ne)                                                                       \
    X(lt)                                                                       \
    X(le)                                                                       \
    X(gt)                                                                       \
    X(ge)                                                                       \
    X(maximum)                                                                  \
    X(minimum)                                                                  \
    X(fmax)                                                                     \
    X(fmin)                                                                     \
    X(clamp)                                                                    \
    X(clamp_min)                                                                \
    X(clamp_max)                                                                \
    X(where)                                                                    \
    X(masked_fill)                                                              \
    X(logical_and)                                                              \
    X(logical_or)                                                               \
    X(logical_xor)                                                              \
    X(logical_not)                                                              \
    X(bitwise_and)                                                              \
    X(bitwise_or)                                                               \
    X(bitwise_xor)                                                              \
    X(bitwise_not)                                                              \
    X(bitwise_left_shift)                                                       \
    X(bitwise_right_shift)

#define REF_BINARY_DECLARE(name) ref_value ref_##name(const ref_pw_ctx *ctx, const ref_value *in);
REF_BINARY_OPS(REF_BINARY_DECLARE)
#undef REF_BINARY_DECLARE

/* Modes of the pow op's `mode` parameter (chosen by the pow glue from the
 * exponent, as PyTorch's CPU kernel specialises pow(tensor, scalar)). */
typedef enum ref_pow_mode {
    REF_POW_GENERIC = 0, /* pow(a, b) */
    REF_POW_SQRT = 1,    /* b == 0.5 */
    REF_POW_RSQRT = 2,   /* b == -0.5: 1 / sqrt(a) */
    REF_POW_RECIP = 3,   /* b == -1: 1 / a */
    REF_POW_SQUARE = 4,  /* b == 2: a * a */
    REF_POW_CUBE = 5,    /* b == 3: a * a * a */
    REF_POW_INVSQ = 6    /* b == -2: 1 / (a * a) */
} ref_pow_mode;

/* Modes of the nextafter op's `mode` parameter: which floating format the
 * next representable value is taken in (float16 and bfloat16 compute in
 * float, but their neighbours are those of the 16-bit format). */
typedef enum ref_nextafter_mode {
    REF_NEXTAFTER_NATIVE = 0, /* the compute type's own (float or double) */
    REF_NEXTAFTER_F16 = 1,
    REF_NEXTAFTER_BF16 = 2
} ref_nextafter_mode;

/* Integer semantics shared with the tests (int64 inputs of any width; the
 * caller wraps the result to its dtype). */
int64_t ref_int_tdiv(int64_t a, int64_t b);
int64_t ref_int_tmod(int64_t a, int64_t b);
int64_t ref_int_fdiv(int64_t a, int64_t b);
int64_t ref_int_pymod(int64_t a, int64_t b);

#endif /* CLOPS_REF_BINARY_H */
