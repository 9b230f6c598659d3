/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ref/gemm.c: the reference GEMM engine of the CPU device (see
 * ops/gemm/gemm.h), which serves the CPU dispatch key of the whole GEMM family
 * and is the oracle of tests/test_gemm.c.
 *
 * It reads views of any strides and dtypes directly (no copies) and is
 * cache-blocked: for each batch entry and each MB x NB tile of C it packs
 * KB-deep panels of A and B into contiguous double (floating dtypes) or
 * int64 (integer dtypes) buffers, accumulates the tile over the whole K
 * range, and only then stores alpha * acc + beta * C rounded to C's dtype.
 * Floating products therefore accumulate in double (more accurate than
 * PyTorch's float32 accumulation, which is what a reference wants); integer
 * products wrap modulo 2^64 and are truncated to the dtype, which gives the
 * same result as PyTorch's wrapping arithmetic in the narrower type.
 */
#include <stdlib.h>
#include <string.h>

#include "ref/ref.h"
#include "ref/ref_gemm.h"

#define MB 64  /* tile rows */
#define NB 64  /* tile columns */
#define KB 256 /* panel depth */

/* Everything one call shares. */
typedef struct ref_call {
    const char *a_base, *b_base;
    char *c_base;
    clops_dtype dt;
    bool integral;
    int64_t m, n, k;
    double alpha_f, beta_f;
    int64_t alpha_i, beta_i;
    bool beta_zero;
    /* packed panels and the accumulator tile */
    double *pa, *pb, *acc;
    int64_t *ia, *ib, *iacc;
} ref_call;

/* Element (row i, col j) of 2-D strided matrix t at batch offset boff, as a
 * flat index into t's storage. */
static int64_t elem(const clops_tensor *t, int64_t boff, int64_t i, int64_t j)
{
    return t->offset + boff + i * t->strides[1] + j * t->strides[2];
}

/* Packs A[i0:i1, p0:p1] and B[p0:p1, j0:j1] of one batch entry. */
static void pack(ref_call *rc, const clops_tensor *a, int64_t ab, const clops_tensor *b, int64_t bb,
                 int64_t i0, int64_t i1, int64_t j0, int64_t j1, int64_t p0, int64_t p1)
{
    int64_t kd = p1 - p0, nd = j1 - j0;
    clops_dtype ct = rc->integral ? CLOPS_INT64 : CLOPS_FLOAT64;
    for (int64_t i = i0; i < i1; i++)
        for (int64_t p = p0; p < p1; p++) {
            ref_value v = ref_load(rc->a_base, elem(a, ab, i, p), rc->dt, ct);
            if (rc->integral)
                rc->ia[(i - i0) * kd + (p - p0)] = v.i;
            else
                rc->pa[(i - i0) * kd + (p - p0)] = v.f;
        }
    for (int64_t p = p0; p < p1; p++)
        for (int64_t j = j0; j < j1; j++) {
            ref_value v = ref_load(rc->b_base, elem(b, bb, p, j), rc->dt, ct);
            if (rc->integral)
                rc->ib[(p - p0) * nd + (j - j0)] = v.i;
            else
                rc->pb[(p - p0) * nd + (j - j0)] = v.f;
        }
}

/* acc[tile] += A panel @ B panel. */
static void accumulate(ref_call *rc, int64_t md, int64_t nd, int64_t kd)
{
    if (rc->integral) {
        for (int64_t i = 0; i < md; i++)
            for (int64_t p = 0; p < kd; p++) {
                uint64_t av = (uint64_t)rc->ia[i * kd + p];
                uint64_t *row = (uint64_t *)&rc->iacc[i * NB];
                const int64_t *bp = &rc->ib[p * nd];
                for (int64_t j = 0; j < nd; j++)
                    row[j] += av * (uint64_t)bp[j];
            }
        return;
    }
    for (int64_t i = 0; i < md; i++)
        for (int64_t p = 0; p < kd; p++) {
            double av = rc->pa[i * kd + p];
            double *row = &rc->acc[i * NB];
            const double *bp = &rc->pb[p * nd];
            for (int64_t j = 0; j < nd; j++)
                row[j] += av * bp[j];
        }
}

/* Stores alpha * acc + beta * C for the tile. */
static void store(ref_call *rc, clops_tensor *c, int64_t cb, int64_t i0, int64_t md, int64_t j0,
                  int64_t nd)
{
    clops_dtype ct = rc->integral ? CLOPS_INT64 : CLOPS_FLOAT64;
    for (int64_t i = 0; i < md; i++)
        for (int64_t j = 0; j < nd; j++) {
            int64_t idx = elem(c, cb, i0 + i, j0 + j);
            ref_value r;
            if (rc->integral) {
                uint64_t v = (uint64_t)rc->alpha_i * (uint64_t)rc->iacc[i * NB + j];
                if (!rc->beta_zero)
                    v +=
                        (uint64_t)rc->beta_i * (uint64_t)ref_load(rc->c_base, idx, rc->dt, ct).i;
                r.i = (int64_t)v;
            } else {
                double v = rc->alpha_f * rc->acc[i * NB + j];
                if (!rc->beta_zero)
                    v += rc->beta_f * ref_load(rc->c_base, idx, rc->dt, ct).f;
                r.f = v;
            }
            ref_store(rc->c_base, idx, rc->dt, ct, r);
        }
}

clops_status ref_gemm_check_dtype(const char *op, clops_dtype dtype)
{
    if (dtype == CLOPS_BOOL)
        return clops__fail(CLOPS_INVALID_DTYPE,
                           "%s: \"addmm_impl_cpu_\" not implemented for 'Bool' (matrix "
                           "products take floating and integer dtypes)",
                           op);
    return CLOPS_OK;
}

clops_status ref_gemm(const char *op, const clops_tensor *a, const clops_tensor *b, clops_tensor *c,
                      clops_scalar alpha, clops_scalar beta)
{
    /* Device tensors have an allocator block; host ones never do. */
    if (c->storage->block || a->storage->block || b->storage->block)
        return clops__fail(CLOPS_INTERNAL, "%s: the reference engine got device tensors", op);
    if (a->ndim != 3 || b->ndim != 3 || c->ndim != 3 || a->dtype != c->dtype ||
        b->dtype != c->dtype)
        return clops__fail(CLOPS_INTERNAL, "%s: the reference engine needs 3-D views of one dtype",
                           op);
    clops_status st = ref_gemm_check_dtype(op, c->dtype);
    if (st)
        return st;
    ref_call rc;
    memset(&rc, 0, sizeof rc);
    rc.dt = c->dtype;
    rc.integral = !clops_dtype_is_floating(rc.dt);
    rc.m = c->sizes[1];
    rc.n = c->sizes[2];
    rc.k = a->sizes[2];
    rc.alpha_f = clops_scalar_to_double(alpha);
    rc.beta_f = clops_scalar_to_double(beta);
    rc.alpha_i = clops_scalar_to_int64(alpha);
    rc.beta_i = clops_scalar_to_int64(beta);
    rc.beta_zero = rc.integral ? rc.beta_i == 0 : rc.beta_f == 0.0;
    if (rc.k == 0) {
        /* An empty sum: beta * C (or zeros) whatever alpha is, even Inf. */
        rc.alpha_f = 0.0;
        rc.alpha_i = 0;
    }
    int64_t batch = c->sizes[0];
    if (batch == 0 || rc.m == 0 || rc.n == 0)
        return CLOPS_OK;
    rc.a_base = a->storage->host_ptr;
    rc.b_base = b->storage->host_ptr;
    rc.c_base = c->storage->host_ptr;

    size_t w = rc.integral ? sizeof(int64_t) : sizeof(double);
    void *pa = malloc(w * MB * KB), *pb = malloc(w * KB * NB), *acc = malloc(w * MB * NB);
    if (!pa || !pb || !acc) {
        free(pa);
        free(pb);
        free(acc);
        return CLOPS__HOST_OOM("reference GEMM panels");
    }
    rc.pa = pa;
    rc.pb = pb;
    rc.acc = acc;
    rc.ia = pa;
    rc.ib = pb;
    rc.iacc = acc;
    for (int64_t bi = 0; bi < batch; bi++) {
        int64_t ab = bi * a->strides[0], bb = bi * b->strides[0], cb = bi * c->strides[0];
        for (int64_t i0 = 0; i0 < rc.m; i0 += MB) {
            int64_t md = rc.m - i0 < MB ? rc.m - i0 : MB;
            for (int64_t j0 = 0; j0 < rc.n; j0 += NB) {
                int64_t nd = rc.n - j0 < NB ? rc.n - j0 : NB;
                memset(acc, 0, w * MB * NB);
                for (int64_t p0 = 0; p0 < rc.k; p0 += KB) {
                    int64_t kd = rc.k - p0 < KB ? rc.k - p0 : KB;
                    pack(&rc, a, ab, b, bb, i0, i0 + md, j0, j0 + nd, p0, p0 + kd);
                    accumulate(&rc, md, nd, kd);
                }
                store(&rc, c, cb, i0, md, j0, nd);
            }
        }
    }
    free(pa);
    free(pb);
    free(acc);
    return CLOPS_OK;
}
