/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ref/sort_select.c: the CPU reference of the sort family's selections and
 * counts beyond the sort itself (mode, unique, bincount, histc): the CPU
 * device's path and the oracle of the matching kernels of
 * cl_kernels/sort.cl, step for step (ops/sort/sort_unique.c, ops/sort/sort_count.c
 * run the same steps on either).  Equality is PyTorch's ==, on the sort
 * keys of ref_sort_key: -0.0 equals +0.0, a NaN equals nothing.
 */
#include <string.h>

#include "ref/ref_sort.h"

/* PyTorch's == of elements i and j of base (dtype dt). */
static bool elem_eq(const void *base, int64_t i, int64_t j, clops_dtype dt)
{
    uint64_t a = ref_sort_key(base, i, dt), b = ref_sort_key(base, j, dt);
    return a == b && !(clops_dtype_is_floating(dt) && a == UINT64_MAX);
}

void ref_sort_mode(const void *sv, const int64_t *si, clops_dtype dt, int64_t n, int64_t inner,
                   int64_t s_o, int64_t s_n, int64_t s_i, int64_t lines, void *ov, int64_t *oi)
{
    size_t es = clops_dtype_size(dt);
    for (int64_t l = 0; l < lines; l++) {
        int64_t base = (l / inner) * s_o + (l % inner) * s_i;
        int64_t best_len = 0, best_st = 0, j = 0;
        while (j < n) {
            int64_t e = j + 1;
            while (e < n && elem_eq(sv, base + j * s_n, base + e * s_n, dt))
                e++;
            if (e - j > best_len) {
                best_len = e - j;
                best_st = j;
            }
            j = e;
        }
        int64_t end = base + (best_st + best_len - 1) * s_n;
        memcpy((char *)ov + (size_t)l * es, (const char *)sv + (size_t)end * es, es);
        oi[l] = si[end];
    }
}

void ref_unique_flags(const void *src, const int64_t *perm, clops_dtype dt, int64_t n, int64_t m,
                      int64_t *flags)
{
    for (int64_t g = 0; g < n; g++) {
        int64_t f = 1;
        if (g > 0) {
            int64_t a = (perm ? perm[g - 1] : g - 1) * m, b = (perm ? perm[g] : g) * m;
            f = 0;
            for (int64_t c = 0; c < m && !f; c++)
                f = !elem_eq(src, a + c, b + c, dt);
        }
        flags[g] = f;
    }
}

void ref_unique_compact(const void *src, const int64_t *perm, clops_dtype dt, int64_t n,
                        int64_t m, const int64_t *pos, void *out, int64_t *start, int64_t *inv)
{
    size_t es = clops_dtype_size(dt);
    for (int64_t g = 0; g < n; g++) {
        int64_t row = perm ? perm[g] : g, grp = pos[g] - 1;
        if (g == 0 || pos[g - 1] != pos[g]) {
            memcpy((char *)out + (size_t)(grp * m) * es, (const char *)src + (size_t)(row * m) * es,
                   (size_t)m * es);
            start[grp] = g;
        }
        if (inv)
            inv[row] = grp;
    }
}

void ref_unique_counts(const int64_t *start, int64_t groups, int64_t n, int64_t *cnt)
{
    for (int64_t g = 0; g < groups; g++)
        cnt[g] = (g + 1 < groups ? start[g + 1] : n) - start[g];
}

void ref_unique_gather(const void *src, const int64_t *perm, clops_dtype dt, int64_t n, int64_t m,
                       int64_t c, void *out)
{
    size_t es = clops_dtype_size(dt);
    for (int64_t g = 0; g < n; g++)
        memcpy((char *)out + (size_t)g * es, (const char *)src + (size_t)(perm[g] * m + c) * es,
               es);
}

void ref_unique_compose(const int64_t *perm, const int64_t *p2, int64_t n, int64_t *out)
{
    for (int64_t g = 0; g < n; g++)
        out[g] = perm[p2[g]];
}

void ref_bincount(const int64_t *sv, const int64_t *si, int64_t n, const void *w, clops_dtype dt,
                  int64_t nbins, void *out)
{
    int64_t j = 0;
    for (int64_t b = 0; b < nbins; b++) {
        while (j < n && sv[j] < b)
            j++;
        int64_t first = j;
        while (j < n && sv[j] == b)
            j++;
        if (dt == CLOPS_INT64) {
            ((int64_t *)out)[b] = j - first;
        } else if (dt == CLOPS_FLOAT32) {
            float acc = 0;
            for (int64_t k = first; k < j; k++)
                acc += ((const float *)w)[si[k]];
            ((float *)out)[b] = acc;
        } else {
            double acc = 0;
            for (int64_t k = first; k < j; k++)
                acc += ((const double *)w)[si[k]];
            ((double *)out)[b] = acc;
        }
    }
}

double ref_round_to(double x, clops_dtype dt)
{
    switch (dt) {
    case CLOPS_FLOAT16:
        return clops_half_to_float(clops_float_to_half((float)x));
    case CLOPS_BFLOAT16:
        return clops_bfloat16_to_float(clops_float_to_bfloat16((float)x));
    case CLOPS_FLOAT32:
        return (float)x;
    default:
        return x;
    }
}

void ref_histc(const void *x, clops_dtype dt, int64_t n, double lo, double hi, int64_t bins,
               int64_t *cnt)
{
    for (int64_t g = 0; g < n; g++) {
        double e;
        if (dt == CLOPS_FLOAT64)
            e = ((const double *)x)[g];
        else if (dt == CLOPS_FLOAT32)
            e = ((const float *)x)[g];
        else if (dt == CLOPS_FLOAT16)
            e = clops_half_to_float(((const uint16_t *)x)[g]);
        else
            e = clops_bfloat16_to_float(((const uint16_t *)x)[g]);
        if (!(e >= lo && e <= hi))
            continue;
        /* Each operation in the input's type, as PyTorch's CPU kernel. */
        double span = ref_round_to(hi - lo, dt), nb = ref_round_to((double)bins, dt);
        double q = ref_round_to(ref_round_to(ref_round_to(e - lo, dt) * nb, dt) / span, dt);
        int64_t pos = (int64_t)q;
        if (pos >= bins)
            pos = bins - 1;
        if (pos < 0)
            pos = 0;
        cnt[pos]++;
    }
}
