/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tools/check/check_random.h: deterministic input values for every dtype,
 * shared by the check engine (`clops check`, `clops bench`) and the tests
 * (tests/support/ct_random.c wraps these functions).
 *
 * A splitmix64 generator gives the same numbers on every machine and
 * compiler, so a failing case reproduces from its seed.  chk_fill() draws
 * values from an op's mathematical domain (pw_domain, codegen_pointwise/
 * pw.h) and, for PW_DOMAIN_ANY, mixes in the values where kernels usually
 * go wrong: zeros of both signs, infinities, NaN, the largest finite value,
 * the smallest subnormal and normal, and the extremes of integer types.
 * Values are stored with the library's own conversions (pw_ref_store), so a
 * float16 value is exactly what a float16 tensor holds.
 *
 * Everything here is a pure function of its arguments (no environment, no
 * global state); the tests add their CLOPS_TEST_SEED override on top.
 */
#ifndef CLOPS_TOOLS_CHECK_RANDOM_H
#define CLOPS_TOOLS_CHECK_RANDOM_H

#include <stdbool.h>
#include <stdint.h>

#include "clops/dtype.h"
#include "codegen_pointwise/pw.h"

/* A splitmix64 generator: small, fast, the same sequence everywhere. */
typedef struct chk_rng {
    uint64_t state;
} chk_rng;

/* The generator for `seed`. */
chk_rng chk_rng_seeded(uint64_t seed);
uint64_t chk_rng_next(chk_rng *r);
/* Uniform in [0, 1). */
double chk_rng_uniform(chk_rng *r);
/* Uniform integer in [lo, hi]. */
int64_t chk_rng_range(chk_rng *r, int64_t lo, int64_t hi);

/* One in how many ANY-domain values is a special value. */
#define CHK_SPECIAL_RATE 16

/*
 * Writes n elements of dtype dt into buf (row-major host memory), drawn from
 * dom.  Floating values are rounded to the dtype and stay inside open
 * domains after rounding; integer dtypes get the rounded values of the
 * domain clamped to the dtype's range (uint8 uses |x|); bool gets x != 0.
 */
void chk_fill(void *buf, int64_t n, clops_dtype dt, pw_domain dom, chk_rng *r);

/* Fill for conversion tests: like chk_fill with PW_DOMAIN_ANY, but when
 * the values will be converted from floating `dt` to integer `to`, they are
 * finite and within [-100, 100] (float-to-integer conversion of values out
 * of the target's range is undefined in C, OpenCL and PyTorch alike). */
void chk_fill_for_cast(void *buf, int64_t n, clops_dtype dt, clops_dtype to, chk_rng *r);

/* The largest magnitude of a domain's ordinary values (special values
 * aside): 10 for ANY, POSITIVE and GE1, 3 for SMALL, 1 for UNIT and PROB.
 * Tolerances of reductions scale with it. */
double chk_domain_bound(pw_domain dom);

/* "any", "positive", "unit", "ge1", "small", "prob" (the names of the
 * inventory's check hints) and back; false for an unknown name. */
const char *chk_domain_name(pw_domain dom);
bool chk_domain_from_name(const char *name, pw_domain *out);

/* A 64-bit FNV-1a hash of s continued from h (start with
 * CHK_HASH_INIT): how cases derive their seeds from names. */
#define CHK_HASH_INIT 0xcbf29ce484222325ull
uint64_t chk_hash_str(uint64_t h, const char *s);
uint64_t chk_hash_u64(uint64_t h, uint64_t v);

#endif /* CLOPS_TOOLS_CHECK_RANDOM_H */
