/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/pw_binary_check.h: helpers shared by the tests of the binary,
 * comparison and bitwise pointwise ops (tests/test_pw_binary*.c), on top of
 * tests/support/clops_test.h.
 *
 * What they add to the shared support:
 *   - value domains the binary ops need beyond pw_domain (shift counts
 *     around the width, integer exponents, 0/1 masks) and a generator that
 *     puts special values (0, -0.0, +-inf, NaN, integer extremes) in one
 *     element of three, so that NaN parity and wrap-around are exercised;
 *   - the same host data and geometry (sizes, strides, storage offset, so
 *     broadcasting shapes too) built on the CPU and on a device;
 *   - the tolerance of a device result against the CPU reference from the
 *     op's record: exact for integer and bool; float32 within `ulp` ulps,
 *     float16/bfloat16 within one ulp of their own type plus that, float64
 *     within `ulp` float64 ulps; optionally also within `ulp` ulps of an
 *     input scale, for ops whose float steps cancel (logaddexp near 0,
 *     lerp, addcmul);
 *   - literal tensors and exact checks for the hand-checked semantics tests.
 *
 * Header-only (static functions) so each test executable stays one file.
 */
#ifndef CLOPS_TESTS_PW_BINARY_CHECK_H
#define CLOPS_TESTS_PW_BINARY_CHECK_H

#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "support/clops_test.h"
#include "codegen_pointwise/ops_binary.h"
#include "core/tensor_impl.h"

/* Value domains of generated inputs. */
typedef enum pwt_gen {
    PWT_ANY,      /* [-10, 10] with specials and extremes */
    PWT_POSITIVE, /* (0, 10] */
    PWT_SMALL,    /* [-3, 3] (pow bases), integers [-3, 3] */
    PWT_EXPONENT, /* floats [-3, 3]; integers [-2, 6] */
    PWT_SHIFT,    /* shift counts [-2, width + 2] plus a large one */
    PWT_BOOL01    /* 0/1 in any dtype */
} pwt_gen;

/* A geometry over a host buffer of `storage` elements. */
typedef struct pwt_layout {
    int ndim;
    int64_t sizes[4];
    int64_t strides[4];
    int64_t offset;
    int64_t storage;
} pwt_layout;

/* Deterministic 64-bit LCG (Knuth's MMIX constants). */
static inline uint64_t pwt_next(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return *s >> 11;
}

/* Uniform double in [0, 1). */
static inline double pwt_unit(uint64_t *s)
{
    return (double)pwt_next(s) / 9007199254740992.0;
}

/* Bits of an integer dtype. */
static inline int pwt_bits(clops_dtype dt)
{
    return (int)clops_dtype_size(dt) * 8;
}

/* Element i of a generated sequence, as a pw_value of dtype dt (.f for
 * floats, .i otherwise). */
static inline pw_value pwt_value(clops_dtype dt, pwt_gen gen, uint64_t *s, int64_t i)
{
    static const double fspecial[] = {0.0, -0.0, INFINITY, -INFINITY, NAN, 1.0, -1.0,
                                      0.5, -2.5, 2.5,  3.0,  -3.0, 1e-3, 7.0};
    pw_value v;
    bool fl = clops_dtype_is_floating(dt);
    int64_t lo, hi;
    dtype_int_range(dt, &lo, &hi);
    uint64_t r = pwt_next(s);
    switch (gen) {
    case PWT_POSITIVE:
        if (fl)
            v.f = 10.0 * (1.0 - pwt_unit(s));
        else
            v.i = 1 + (int64_t)(r % (uint64_t)(hi < 10 ? hi : 10));
        return v;
    case PWT_SMALL:
    case PWT_EXPONENT:
        if (fl)
            v.f = gen == PWT_SMALL ? 6.0 * pwt_unit(s) - 3.0 : (double)((int64_t)(r % 13) - 6) / 2;
        else if (dt == CLOPS_BOOL)
            v.i = (int64_t)(r & 1);
        else if (gen == PWT_SMALL)
            v.i = dt == CLOPS_UINT8 ? (int64_t)(r % 4) : (int64_t)(r % 7) - 3;
        else
            v.i = dt == CLOPS_UINT8 ? (int64_t)(r % 7) : (int64_t)(r % 9) - 2;
        return v;
    case PWT_SHIFT: {
        int w = fl ? 8 : pwt_bits(dt);
        int64_t c = (int64_t)(r % (uint64_t)(w + 5)) - 2;
        if (i % 11 == 5)
            c = dt == CLOPS_UINT8 ? 200 : hi;
        if (dt == CLOPS_UINT8 && c < 0)
            c = 256 + c;
        v.i = c;
        return v;
    }
    case PWT_BOOL01:
        if (fl)
            v.f = (double)(r & 1);
        else
            v.i = (int64_t)(r & 1);
        return v;
    default:
        break;
    }
    /* PWT_ANY */
    if (dt == CLOPS_BOOL) {
        v.i = (int64_t)(r & 1);
    } else if (fl) {
        if (i % 3 == 1)
            v.f = fspecial[(r >> 8) % (sizeof fspecial / sizeof fspecial[0])];
        else
            v.f = 20.0 * pwt_unit(s) - 10.0;
    } else {
        int64_t ext[] = {lo, hi, 0, -1, 1, lo + 1};
        if (i % 7 == 3)
            v.i = ext[(r >> 8) % 6];
        else
            v.i = dt == CLOPS_UINT8 ? (int64_t)(r % 21) : (int64_t)(r % 21) - 10;
        if (v.i < lo || v.i > hi)
            v.i = 0;
    }
    return v;
}

/* A host buffer of n elements of dtype dt with generated values. */
static inline void *pwt_host_data(clops_dtype dt, int64_t n, pwt_gen gen, uint64_t seed)
{
    size_t es = clops_dtype_size(dt);
    void *buf = calloc((size_t)(n > 0 ? n : 1), es);
    assert_non_null(buf);
    uint64_t s = seed * 0x9e3779b97f4a7c15ull + (uint64_t)dt;
    for (int64_t i = 0; i < n; i++) {
        pw_value v = pwt_value(dt, gen, &s, i);
        pw_ref_store(buf, i, dt, clops_dtype_is_floating(dt) ? CLOPS_FLOAT64 : CLOPS_INT64, v);
    }
    return buf;
}

/* A tensor of geometry L on device d over a copy of `host` (L->storage
 * elements of dtype dt). */
static inline clops_tensor *pwt_tensor(clops_device *d, clops_dtype dt, const pwt_layout *L,
                                const void *host)
{
    clops_tensor *base = NULL, *t = NULL;
    int64_t n = L->storage;
    CT_OK(clops_from_host(d, dt, 1, &n, host, (size_t)n * clops_dtype_size(dt), &base));
    int64_t off = L->offset;
    CT_OK(core_as_strided(base, L->sizes, L->ndim, L->strides, L->ndim, &off, &t));
    clops_tensor_release(base);
    return t;
}

/* Same data and geometry on the CPU and on device d. */
typedef struct pwt_pair {
    clops_tensor *cpu, *dev;
} pwt_pair;

static inline pwt_pair pwt_make(clops_device *d, clops_dtype dt, const pwt_layout *L, pwt_gen gen,
                         uint64_t seed)
{
    void *host = pwt_host_data(dt, L->storage, gen, seed);
    pwt_pair p = {pwt_tensor(ct_cpu(), dt, L, host), d ? pwt_tensor(d, dt, L, host) : NULL};
    free(host);
    return p;
}

/* Releases both tensors of a pair. */
static inline void pwt_release(pwt_pair *p)
{
    clops_tensor_release(p->cpu);
    clops_tensor_release(p->dev);
    p->cpu = p->dev = NULL;
}

/* Tolerance of a result of dtype dt for an op with budget `ulp` (0 means
 * 2) and an optional input scale (0: none); see the file comment. */
static inline ct_tol pwt_tol(clops_dtype dt, int ulp, double scale, bool signed_zero)
{
    double u = ulp ? ulp : 2;
    clops_dtype unit = dt == CLOPS_FLOAT64 ? CLOPS_FLOAT64 : CLOPS_FLOAT32;
    ct_tol t = {u, 0.0, signed_zero};
    if (dt == CLOPS_FLOAT16 || dt == CLOPS_BFLOAT16)
        t.ulp = 1.0 + u * ulp_spacing(unit, 1.0) / ulp_spacing(dt, 1.0);
    if (scale > 0.0 && clops_dtype_is_floating(dt))
        t.atol = u * ulp_spacing(unit, scale);
    return t;
}

/* Fails unless got (device) matches ref (CPU) under tol; `what` goes into
 * the failure context. */
static inline void pwt_compare(const char *what, const clops_tensor *ref, const clops_tensor *got,
                        ct_tol tol)
{
    ct_set_case("%s", what);
    CT_ASSERT_CLOSE(got, ref, tol);
}

/* ---- literal tensors for the semantics tests ----------------------------- */

/* A 1-D literal: floats in f (for floating dtypes) or integers in i. */
typedef struct pwt_lit {
    clops_dtype dt;
    int n;
    const double *f;
    const int64_t *i;
} pwt_lit;

#define PWT_NARGS_D(...) ((int)(sizeof((double[]){__VA_ARGS__}) / sizeof(double)))
#define PWT_NARGS_I(...) ((int)(sizeof((int64_t[]){__VA_ARGS__}) / sizeof(int64_t)))
/* LF(float32, 1.0, -0.0, NAN) and LI(int8, -128, 127). */
#define LF(dt, ...)                                                                                \
    ((pwt_lit){CLOPS_##dt, PWT_NARGS_D(__VA_ARGS__), (const double[]){__VA_ARGS__}, NULL})
#define LI(dt, ...)                                                                                \
    ((pwt_lit){CLOPS_##dt, PWT_NARGS_I(__VA_ARGS__), NULL, (const int64_t[]){__VA_ARGS__}})

/* The literal as a contiguous 1-D tensor on d. */
static inline clops_tensor *pwt_lit_tensor(clops_device *d, pwt_lit L)
{
    size_t es = clops_dtype_size(L.dt);
    void *buf = calloc((size_t)L.n + 1, es);
    assert_non_null(buf);
    for (int k = 0; k < L.n; k++) {
        pw_value v;
        if (L.f)
            v.f = L.f[k];
        else
            v.i = L.i[k];
        pw_ref_store(buf, k, L.dt, L.f ? CLOPS_FLOAT64 : CLOPS_INT64, v);
    }
    clops_tensor *t = NULL;
    int64_t n = L.n;
    CT_OK(clops_from_host(d, L.dt, 1, &n, buf, (size_t)n * es, &t));
    free(buf);
    return t;
}

/* Fails unless t is 1-D of want's dtype and values, exactly (floats bit for
 * bit up to NaN payloads, the sign of zero included). */
static inline void pwt_expect(const clops_tensor *t, pwt_lit want)
{
    clops_tensor *w = pwt_lit_tensor(ct_cpu(), want);
    CT_ASSERT_CLOSE(t, w, CT_TOL_EXACT);
    clops_tensor_release(w);
}

/* Same with a tolerance of `ulp` ulps of the result dtype. */
static inline void pwt_expect_close(const clops_tensor *t, pwt_lit want, double ulp)
{
    clops_tensor *w = pwt_lit_tensor(ct_cpu(), want);
    ct_tol tol = {ulp, 0.0, true};
    CT_ASSERT_CLOSE(t, w, tol);
    clops_tensor_release(w);
}

/* Tensors a semantics check makes, released after the check (so checks read
 * as lists of expressions). */
#define PWT_KEEP_MAX 512
static clops_tensor *pwt_kept[PWT_KEEP_MAX];
static int pwt_nkept;

/* Keeps t until pwt_drop_all(); returns it. */
static inline clops_tensor *pwt_keep(clops_tensor *t)
{
    if (pwt_nkept == PWT_KEEP_MAX)
        fail_msg("pwt_keep: more than %d tensors in one check", PWT_KEEP_MAX);
    pwt_kept[pwt_nkept++] = t;
    return t;
}

/* Releases every kept tensor. */
static inline void pwt_drop_all(void)
{
    while (pwt_nkept > 0)
        clops_tensor_release(pwt_kept[--pwt_nkept]);
}

/* A kept literal tensor on d, as an operand. */
static inline pw_operand pwt_lit_op(clops_device *d, pwt_lit L)
{
    return pw_tensor(pwt_keep(pwt_lit_tensor(d, L)));
}

/* Functional pw_run of op over operands; fails the test on error. */
static inline clops_tensor *pwt_op(const pw_op *op, const pw_operand *ops,
                                   const clops_scalar *params)
{
    clops_tensor *out = NULL;
    pw_options o = {.result = CLOPS_DTYPE_NONE, .compute = CLOPS_DTYPE_NONE};
    CT_OK(pw_run(op, PW_FUNCTIONAL, ops, params, NULL, &o, &out));
    return pwt_keep(out);
}

/* The status of a functional pw_run (its result, if any, is kept). */
static inline clops_status pwt_op_status(const pw_op *op, const pw_operand *ops,
                                  const clops_scalar *params)
{
    clops_tensor *out = NULL;
    pw_options o = {.result = CLOPS_DTYPE_NONE, .compute = CLOPS_DTYPE_NONE};
    clops_status st = pw_run(op, PW_FUNCTIONAL, ops, params, NULL, &o, &out);
    if (out)
        pwt_keep(out);
    return st;
}

/* Binary op on two literals on d with optional params; the kept result. */
static inline clops_tensor *pwt_bin(clops_device *d, const pw_op *op, pwt_lit a, pwt_lit b,
                             const clops_scalar *params)
{
    const pw_operand ops[2] = {pwt_lit_op(d, a), pwt_lit_op(d, b)};
    return pwt_op(op, ops, params);
}

/* Runs check(d) on the CPU and every OpenCL device under test, with the
 * device in the failure context; kept tensors are released after each. */
static inline void pwt_each_device(void (*check)(clops_device *d))
{
    clops_device *devs[CT_MAX_DEVICES];
    int n = ct_devices(devs, CT_MAX_DEVICES);
    for (int k = 0; k < n; k++) {
        ct_set_device(devs[k]);
        check(devs[k]);
        pwt_drop_all();
    }
    ct_clear_context();
}


#endif /* CLOPS_TESTS_PW_BINARY_CHECK_H */
