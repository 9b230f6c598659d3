/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tools/check/check_random.c: deterministic values for every dtype (see
 * check_random.h): the splitmix64 generator, chk_fill() over the op
 * domains with special values mixed in, and small helpers (domain names and
 * bounds, the string hash that turns case names into seeds).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/tensor_impl.h"
#include "tools/check/check_random.h"
#include "tools/check/ulp.h"

chk_rng chk_rng_seeded(uint64_t seed)
{
    chk_rng r = {seed * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull};
    return r;
}

uint64_t chk_rng_next(chk_rng *r)
{
    uint64_t z = (r->state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

double chk_rng_uniform(chk_rng *r)
{
    return (double)(chk_rng_next(r) >> 11) * 0x1.0p-53;
}

int64_t chk_rng_range(chk_rng *r, int64_t lo, int64_t hi)
{
    uint64_t span = (uint64_t)hi - (uint64_t)lo + 1;
    if (span == 0) /* the full int64 range */
        return (int64_t)chk_rng_next(r);
    return (int64_t)((uint64_t)lo + chk_rng_next(r) % span);
}

/* Bounds of a domain and whether each end is open. */
static void domain_bounds(pw_domain dom, double *lo, double *hi, bool *lo_open, bool *hi_open)
{
    *lo_open = *hi_open = false;
    switch (dom) {
    case PW_DOMAIN_POSITIVE:
        *lo = 0.0, *hi = 10.0, *lo_open = true;
        break;
    case PW_DOMAIN_UNIT:
        *lo = -1.0, *hi = 1.0, *lo_open = *hi_open = true;
        break;
    case PW_DOMAIN_GE1:
        *lo = 1.0, *hi = 10.0;
        break;
    case PW_DOMAIN_SMALL:
        *lo = -3.0, *hi = 3.0;
        break;
    case PW_DOMAIN_PROB:
        *lo = 0.0, *hi = 1.0, *lo_open = *hi_open = true;
        break;
    case PW_DOMAIN_INDEX:
        *lo = 0.0, *hi = 2.0;
        break;
    case PW_DOMAIN_NEGINDEX:
        *lo = -3.0, *hi = -1.0;
        break;
    case PW_DOMAIN_BEYOND:
        *lo = 1000.0, *hi = 1002.0;
        break;
    default:
        *lo = -10.0, *hi = 10.0;
        break;
    }
}

/* The value x after a round trip through a floating dtype. */
static double round_to(clops_dtype dt, double x)
{
    uint64_t raw = 0;
    pw_value v = {.f = x};
    pw_ref_store(&raw, 0, dt, CLOPS_FLOAT64, v);
    return pw_ref_load(&raw, 0, dt, CLOPS_FLOAT64).f;
}

/* A special floating value of dt (ANY domain only). */
static double float_special(clops_dtype dt, chk_rng *r)
{
    double tiny = ldexp(1.0, ulp_min_exponent(dt) - ulp_precision(dt) + 1);
    switch (chk_rng_next(r) % 10) {
    case 0:
        return 0.0;
    case 1:
        return -0.0;
    case 2:
        return INFINITY;
    case 3:
        return -INFINITY;
    case 4:
        return NAN;
    case 5:
        return ulp_max_finite(dt);
    case 6:
        return -ulp_max_finite(dt);
    case 7:
        return tiny;
    case 8:
        return -tiny;
    default:
        return ldexp(1.0, ulp_min_exponent(dt));
    }
}

/* One floating value of dt from dom, already rounded to dt. */
static double float_value(clops_dtype dt, pw_domain dom, chk_rng *r)
{
    if (dom == PW_DOMAIN_ANY && chk_rng_next(r) % CHK_SPECIAL_RATE == 0)
        return float_special(dt, r);
    double lo, hi;
    bool lo_open, hi_open;
    domain_bounds(dom, &lo, &hi, &lo_open, &hi_open);
    for (;;) {
        double x = round_to(dt, lo + (hi - lo) * chk_rng_uniform(r));
        if ((lo_open && x <= lo) || (hi_open && x >= hi) || x < lo || x > hi)
            continue; /* rounding reached a bound the domain excludes */
        return x;
    }
}

/* One integer value of dt from dom. */
static int64_t int_value(clops_dtype dt, pw_domain dom, chk_rng *r)
{
    int64_t tlo, thi;
    dtype_int_range(dt, &tlo, &thi);
    if (dt == CLOPS_BOOL) {
        if (dom == PW_DOMAIN_POSITIVE || dom == PW_DOMAIN_GE1)
            return 1;
        return (int64_t)(chk_rng_next(r) & 1);
    }
    if (dom == PW_DOMAIN_ANY && chk_rng_next(r) % CHK_SPECIAL_RATE == 0) {
        const int64_t specials[] = {tlo, thi, tlo + 1, thi - 1, 0, tlo < 0 ? -1 : 1};
        return specials[chk_rng_next(r) % (sizeof specials / sizeof specials[0])];
    }
    double lo, hi;
    bool lo_open, hi_open;
    domain_bounds(dom, &lo, &hi, &lo_open, &hi_open);
    double x = round(lo + (hi - lo) * chk_rng_uniform(r));
    if (tlo == 0)
        x = fabs(x);
    if (x < (double)tlo)
        x = (double)tlo;
    if (x > (double)thi)
        x = (double)thi;
    return (int64_t)x;
}

void chk_fill(void *buf, int64_t n, clops_dtype dt, pw_domain dom, chk_rng *r)
{
    bool is_float = clops_dtype_is_floating(dt);
    for (int64_t i = 0; i < n; i++) {
        pw_value v;
        if (is_float) {
            v.f = float_value(dt, dom, r);
            pw_ref_store(buf, i, dt, CLOPS_FLOAT64, v);
        } else {
            v.i = int_value(dt, dom, r);
            pw_ref_store(buf, i, dt, CLOPS_INT64, v);
        }
    }
}

void chk_fill_for_cast(void *buf, int64_t n, clops_dtype dt, clops_dtype to, chk_rng *r)
{
    chk_fill(buf, n, dt, PW_DOMAIN_ANY, r);
    if (!clops_dtype_is_floating(dt) || !clops_dtype_is_integral(to))
        return;
    for (int64_t i = 0; i < n; i++) {
        double x = pw_ref_load(buf, i, dt, CLOPS_FLOAT64).f;
        if (!isfinite(x) || fabs(x) > 100.0) {
            pw_value v = {.f = round_to(dt, 200.0 * chk_rng_uniform(r) - 100.0)};
            pw_ref_store(buf, i, dt, CLOPS_FLOAT64, v);
        }
    }
}

double chk_domain_bound(pw_domain dom)
{
    double lo, hi;
    bool lo_open, hi_open;
    domain_bounds(dom, &lo, &hi, &lo_open, &hi_open);
    return fmax(fabs(lo), fabs(hi));
}

/* Names of the domains, in enum order. */
static const char *const domain_names[] = {"any",  "positive", "unit",    "ge1",   "small",
                                           "prob", "index",    "negindex", "beyond"};

const char *chk_domain_name(pw_domain dom)
{
    if ((int)dom < 0 || (size_t)dom >= sizeof domain_names / sizeof domain_names[0])
        return "any";
    return domain_names[dom];
}

bool chk_domain_from_name(const char *name, pw_domain *out)
{
    for (size_t i = 0; i < sizeof domain_names / sizeof domain_names[0]; i++)
        if (name && strcmp(name, domain_names[i]) == 0) {
            *out = (pw_domain)i;
            return true;
        }
    return false;
}

uint64_t chk_hash_str(uint64_t h, const char *s)
{
    for (; s && *s; s++) {
        h ^= (unsigned char)*s;
        h *= 0x100000001b3ull;
    }
    return h;
}

uint64_t chk_hash_u64(uint64_t h, uint64_t v)
{
    for (int i = 0; i < 8; i++) {
        h ^= (v >> (8 * i)) & 0xff;
        h *= 0x100000001b3ull;
    }
    return h;
}
