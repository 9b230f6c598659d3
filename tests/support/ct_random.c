/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/support/ct_random.c: deterministic test values for every dtype.
 *
 * The generator and the fill over op domains are the check engine's
 * (tools/check/check_random.c), so the tests and `clops check` draw their
 * inputs from one implementation.  What the tests add is CLOPS_TEST_SEED:
 * when set, it is mixed into every seed, to rerun a suite with other values.
 */
#include <stdlib.h>

#include "clops_test.h"

ct_rng ct_rng_seeded(uint64_t seed)
{
    ct_rng r = chk_rng_seeded(seed);
    const char *env = getenv("CLOPS_TEST_SEED");
    if (env && *env)
        r.state ^= strtoull(env, NULL, 0) * 0xD1B54A32D192ED03ull;
    return r;
}

uint64_t ct_rng_next(ct_rng *r)
{
    return chk_rng_next(r);
}

double ct_rng_uniform(ct_rng *r)
{
    return chk_rng_uniform(r);
}

int64_t ct_rng_range(ct_rng *r, int64_t lo, int64_t hi)
{
    return chk_rng_range(r, lo, hi);
}

void ct_fill(void *buf, int64_t n, clops_dtype dt, pw_domain dom, ct_rng *r)
{
    chk_fill(buf, n, dt, dom, r);
}

void ct_fill_for_cast(void *buf, int64_t n, clops_dtype dt, clops_dtype to, ct_rng *r)
{
    chk_fill_for_cast(buf, n, dt, to, r);
}
