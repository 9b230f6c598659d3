/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ref/random.c: the CPU reference of the random family (ref/random.h).
 *
 * The distributions come from ref/random_math.clh and random_dist.clh,
 * the very files the OpenCL kernels are built from (random bits are
 * defined to be the same on every device, so that arithmetic is shared by
 * design: ref/ owns it and the build embeds it for the OpenCL program); this
 * file is compiled with -ffp-contract=off (CMakeLists.txt) so the compiler
 * fuses nothing the kernels do not.  The loops mirror the kernels' loops:
 * counter ci serves elements ci*E .. ci*E+E-1.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ref/random.h"

#include "ref/random_math.clh"
#include "ref/random_dist.clh"

int rnd_per_counter(rnd_dist dist, clops_dtype dtype)
{
    if (dist == RND_DIST_RANGE64)
        return 2;
    if (dtype == CLOPS_FLOAT64 && dist <= RND_DIST_GEOMETRIC)
        return 2;
    return 4;
}

uint64_t rnd_counters(rnd_dist dist, clops_dtype dtype, uint64_t n)
{
    uint64_t per = (uint64_t)rnd_per_counter(dist, dtype);
    return (n + per - 1) / per;
}

void rnd_kernel_name(rnd_dist dist, clops_dtype dtype, char *buf, size_t cap)
{
    static const char *const names[] = {"uniform",   "normal",    "log_normal", "exponential",
                                        "cauchy",    "geometric", "range32",    "range64",
                                        "bernoulli", "dropout"};
    snprintf(buf, cap, "rnd_%s_%s", names[dist], clops_dtype_name(dtype));
}

/* Stores a 64-bit integer value as dtype at element i. */
static void store_int(void *out, clops_dtype dtype, uint64_t i, rnd_i64 x)
{
    switch (dtype) {
    case CLOPS_BOOL:
        ((uint8_t *)out)[i] = x != 0;
        break;
    case CLOPS_UINT8:
        ((uint8_t *)out)[i] = (uint8_t)x;
        break;
    case CLOPS_INT8:
        ((int8_t *)out)[i] = (int8_t)x;
        break;
    case CLOPS_INT16:
        ((int16_t *)out)[i] = (int16_t)x;
        break;
    case CLOPS_INT32:
        ((int32_t *)out)[i] = (int32_t)x;
        break;
    case CLOPS_INT64:
        ((int64_t *)out)[i] = x;
        break;
    case CLOPS_FLOAT16:
        ((uint16_t *)out)[i] = (uint16_t)rnd_f32_to_f16((float)x);
        break;
    case CLOPS_BFLOAT16:
        ((uint16_t *)out)[i] = (uint16_t)rnd_f32_to_bf16((float)x);
        break;
    case CLOPS_FLOAT32:
        ((float *)out)[i] = (float)x;
        break;
    case CLOPS_FLOAT64:
        ((double *)out)[i] = (double)x;
        break;
    default:
        break;
    }
}

/* Stores a float32-compute value as a floating dtype at element i. */
static void store_float(void *out, clops_dtype dtype, uint64_t i, float x)
{
    if (dtype == CLOPS_FLOAT16)
        ((uint16_t *)out)[i] = (uint16_t)rnd_f32_to_f16(x);
    else if (dtype == CLOPS_BFLOAT16)
        ((uint16_t *)out)[i] = (uint16_t)rnd_f32_to_bf16(x);
    else
        ((float *)out)[i] = x;
}

void ref_random_fill(const rnd_fill *f, void *out)
{
    rnd_u32 k0 = (rnd_u32)f->seed, k1 = (rnd_u32)(f->seed >> 32);
    int per = rnd_per_counter(f->dist, f->dtype);
    uint64_t nc = rnd_counters(f->dist, f->dtype, f->n);
    int dist = (int)f->dist;
    bool int_dist = f->dist >= RND_DIST_RANGE32;
    bool geometric_int = f->dist == RND_DIST_GEOMETRIC && f->dtype != CLOPS_FLOAT64 &&
                         f->dtype != CLOPS_FLOAT16 && f->dtype != CLOPS_BFLOAT16;
    int digits = f->dtype == CLOPS_FLOAT16 ? 11 : f->dtype == CLOPS_BFLOAT16 ? 8 : 24;
    if (f->dist == RND_DIST_GEOMETRIC)
        digits = 24;
    float fa = (float)f->a, fb = (float)f->b, fc = (float)f->c;
    for (uint64_t ci = 0; ci < nc; ci++) {
        rnd_u32 w[4];
        rnd_philox(f->offset + ci, k0, k1, w);
        uint64_t base = ci * (uint64_t)per;
        if (int_dist) {
            rnd_i64 v[4];
            rnd_blocki(dist, w, f->ia, f->ib, v);
            for (int j = 0; j < per && base + (uint64_t)j < f->n; j++)
                store_int(out, f->dtype, base + (uint64_t)j, v[j]);
        } else if (f->dtype == CLOPS_FLOAT64) {
            double v[2];
            rnd_blockd(dist, w, f->a, f->b, f->c, v);
            for (int j = 0; j < 2 && base + (uint64_t)j < f->n; j++)
                ((double *)out)[base + (uint64_t)j] = v[j];
        } else {
            float v[4];
            rnd_blockf(dist, w, fa, fb, fc, digits, v);
            for (int j = 0; j < 4 && base + (uint64_t)j < f->n; j++) {
                if (geometric_int || f->dist == RND_DIST_GEOMETRIC)
                    store_int(out, f->dtype, base + (uint64_t)j, rnd_f32_to_i64(v[j]));
                else
                    store_float(out, f->dtype, base + (uint64_t)j, v[j]);
            }
        }
    }
}

void ref_random_dropout(clops_dtype dtype, const void *in, void *out, uint8_t *mask, uint64_t n,
                        uint64_t seed, uint64_t offset, uint64_t thr, double scale)
{
    rnd_u32 k0 = (rnd_u32)seed, k1 = (rnd_u32)(seed >> 32);
    float fscale = (float)scale;
    for (uint64_t ci = 0; ci < (n + 3) / 4; ci++) {
        rnd_u32 w[4];
        rnd_philox(offset + ci, k0, k1, w);
        for (int j = 0; j < 4; j++) {
            uint64_t i = ci * 4 + (uint64_t)j;
            if (i >= n)
                break;
            bool keep = (rnd_u64)w[j] >= thr;
            mask[i] = keep;
            if (dtype == CLOPS_FLOAT64) {
                double xd = ((const double *)in)[i];
                ((double *)out)[i] = (keep ? xd : isfinite(xd) ? copysign(0.0, xd) : xd * 0.0) * scale;
                continue;
            }
            float x;
            if (dtype == CLOPS_FLOAT16)
                x = rnd_f16_to_f32(((const uint16_t *)in)[i]);
            else if (dtype == CLOPS_BFLOAT16)
                x = rnd_bf16_to_f32(((const uint16_t *)in)[i]);
            else
                x = ((const float *)in)[i];
            /* x * 0 spelled out as in cl_kernels/random.cl (RND_KEEP). */
            x = keep ? x : isfinite(x) ? copysignf(0.0f, x) : x * 0.0f;
            store_float(out, dtype, i, x * fscale);
        }
    }
}

/* --- randperm ------------------------------------------------------------------- */

typedef struct keyed {
    uint64_t key;
    int64_t index;
} keyed;

/* Ascending key, then ascending index. */
static int keyed_cmp(const void *pa, const void *pb)
{
    const keyed *a = pa, *b = pb;
    if (a->key != b->key)
        return a->key < b->key ? -1 : 1;
    return a->index < b->index ? -1 : a->index > b->index;
}

bool ref_randperm(int64_t n, uint64_t seed, uint64_t offset, int64_t *out)
{
    if (n <= 0)
        return true;
    keyed *k = malloc((size_t)n * sizeof *k);
    if (!k)
        return false;
    rnd_u32 k0 = (rnd_u32)seed, k1 = (rnd_u32)(seed >> 32);
    rnd_u32 w[4];
    for (int64_t i = 0; i < n; i++) {
        if (i % 2 == 0)
            rnd_philox(offset + (uint64_t)i / 2, k0, k1, w);
        int j = (int)(i % 2) * 2;
        k[i].key = ((uint64_t)w[j] << 32) | w[j + 1];
        k[i].index = i;
    }
    qsort(k, (size_t)n, sizeof *k, keyed_cmp);
    for (int64_t i = 0; i < n; i++)
        out[i] = k[i].index;
    free(k);
    return true;
}

/* --- multinomial ---------------------------------------------------------------- */

uint64_t rnd_multinomial_counters(int64_t rows, int64_t k, int64_t num_samples, bool replacement)
{
    uint64_t elems = (uint64_t)rows * (uint64_t)(replacement ? num_samples : k);
    return (elems + 1) / 2;
}

/* The 53-bit uniform of stream element e (2 per counter). */
static double element_u01(uint64_t e, rnd_u32 k0, rnd_u32 k1, uint64_t offset, bool open)
{
    rnd_u32 w[4];
    rnd_philox(offset + e / 2, k0, k1, w);
    int j = (int)(e % 2) * 2;
    return open ? rnd_u01d_open(w[j], w[j + 1]) : rnd_u01d(w[j], w[j + 1]);
}

typedef struct race {
    double key;
    int64_t index;
} race;

/* Descending key, then ascending index. */
static int race_cmp(const void *pa, const void *pb)
{
    const race *a = pa, *b = pb;
    if (a->key != b->key)
        return a->key > b->key ? -1 : 1;
    return a->index < b->index ? -1 : a->index > b->index;
}

bool ref_multinomial(const double *w, int64_t rows, int64_t k, int64_t num_samples,
                     bool replacement, uint64_t seed, uint64_t offset, int64_t *out)
{
    rnd_u32 k0 = (rnd_u32)seed, k1 = (rnd_u32)(seed >> 32);
    double *cum = malloc((size_t)(k > 0 ? k : 1) * sizeof *cum);
    race *r = malloc((size_t)(k > 0 ? k : 1) * sizeof *r);
    if (!cum || !r) {
        free(cum);
        free(r);
        return false;
    }
    for (int64_t row = 0; row < rows; row++) {
        const double *p = w + row * k;
        int64_t *o = out + row * num_samples;
        if (replacement) {
            double total = 0.0;
            for (int64_t j = 0; j < k; j++)
                cum[j] = total += p[j];
            for (int64_t s = 0; s < num_samples; s++) {
                double t =
                    element_u01((uint64_t)(row * num_samples + s), k0, k1, offset, false) * total;
                /* First category whose cumulative weight exceeds t (binary
                 * search); zero-weight categories are never chosen. */
                int64_t lo = 0, hi = k - 1;
                while (lo < hi) {
                    int64_t mid = lo + (hi - lo) / 2;
                    if (cum[mid] > t)
                        hi = mid;
                    else
                        lo = mid + 1;
                }
                while (lo > 0 && p[lo] == 0.0)
                    lo--;
                while (lo < k - 1 && p[lo] == 0.0)
                    lo++;
                o[s] = lo;
            }
        } else {
            for (int64_t j = 0; j < k; j++) {
                double u = element_u01((uint64_t)(row * k + j), k0, k1, offset, true);
                /* log(u) / w: the exponential race; zero weights lose. */
                r[j].key = p[j] > 0.0 ? rnd_log(u) / p[j] : -HUGE_VAL;
                r[j].index = j;
            }
            qsort(r, (size_t)k, sizeof *r, race_cmp);
            for (int64_t s = 0; s < num_samples; s++)
                o[s] = r[s].index;
        }
    }
    free(cum);
    free(r);
    return true;
}
