/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/test_attention.c: fused scaled-dot-product attention
 * (ops/attention/, cl_kernels/attention.cl) against the CPU reference
 * (ref/attention.c) on every OpenCL device: forward (output, logsumexp)
 * and backward (dQ, dK, dV, and an additive mask's gradient summed over
 * its broadcast dims) over the feature matrix — no mask, causal with
 * L != S aligned top-left and bottom-right, bool and additive masks with
 * broadcasting, dropout from one generator state (the same stream on both
 * sides), grouped-query heads, head dims from 8 to 256 and different for
 * value, odd lengths, ranks 2 to 4, strided inputs, decoding shapes (the
 * split-KV forward) — in float32, float16 and bfloat16; fully masked rows
 * (zeros, logsumexp -inf, zero gradients) and NaN propagation, also in a
 * decoding tile; the backward's run-to-run determinism, and the refusals.
 * On devices with tensor cores (KIT_MMA) every 16-bit backward up to head
 * dim 128 must take attn_bwd_dkv_mma/attn_bwd_dq_mma (attention_stats; with
 * grouped-query heads split over work-groups and folded), every such
 * forward without dropout and with more than 16 query rows attn_fwd_mma, so
 * a failed known-answer check fails here instead of hiding behind the FMA
 * fallback; the last cases span several of their tiles.  With
 * CLOPS_TEST_ATTN_ROUTED=1 every tensor-core kernel must have run the PTX
 * route's build (the GPU job sets CLOPS_ATTN_CTAS to ask for it).
 * The lean tensor-core programs' visibility ranges (attention_vis.clh,
 * compiled here as C) are checked against attn_score's bounds and causal
 * tests over a grid of tiles, both orientations (the host-only test
 * test_lean_visibility: a range that drops a masked position fails it).
 * On KIT_MMA devices test_lean_and_general_bits asserts that the lean and
 * the general tensor-core programs give the same bits on problems both
 * run.  test_wgmma_choice checks the wgmma forward's choice (default,
 * switch, head dims, dtypes), its known-answer check and fallback (on any
 * device pretended to be a Hopper: the check runs once and fails), and on
 * a Hopper its forwards against the reference; CLOPS_TEST_ATTN_WGMMA=1
 * asserts that every lean 16-bit forward of head dim 64/128 took it.
 * test_wgmma_bwd_choice does the same for the wgmma dK/dV
 * (attn_bwd_dkv_wg: off by default; on a Hopper the backwards' dQ, dK and
 * dV against the reference and their bits twice), and
 * CLOPS_TEST_ATTN_WGMMA_BWD=1 asserts that every lean 16-bit backward of
 * head dim 64/128 ran its dK/dV there; test_wgmma_dq_choice and
 * CLOPS_TEST_ATTN_WGMMA_DQ=1 the same for the wgmma dQ (attn_bwd_dq_wg,
 * attn12: off by default; on the H200 in attn13 its checks passed, slower).
 * test_tf32_forward checks the float32 forward on the tensor cores
 * (attn_fwd_tf32, 3xTF32, attn14; on by default since attn15) — its
 * default (on every device), choice, checks,
 * and on NVIDIA devices of compute capability >= 8.0 its forwards against
 * the reference; CLOPS_TEST_ATTN_TF32=1 asserts
 * that every lean float32 forward of head dim 64/128 took it.
 * CLOPS_TEST_FILTER (a cmocka glob) runs a subset; CLOPS_TEST_ATTN_CASES
 * (a glob on the cases' names, e.g. 'mma tiles*') a subset of the feature
 * matrix, and CLOPS_TEST_ATTN_PROGRESS=1 prints each of its cases as it
 * starts (how far a GPU job's cut run got).
 * The standard layout sweeps are the operator suite's (test_check_attention).
 */
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cl_kernels/attention_vis.clh"
#include "clops/generator.h"
#include "core/debug.h"
#include "clops/ops.h"
#include "ops/attention/attention.h"
#include "ops/kit/kit.h"
#include "support/clops_test.h"

typedef struct attn_case {
    const char *name;
    int ndim;
    int64_t B, Hq, Hkv, L, S, E, Ev;
    int mask; /* 0 none, 1 bool, 2 additive */
    int mask_ndim;
    int64_t msz[4];
    bool causal;
    double dropout;
    ct_layout layout;
    bool lower_right; /* causal diagonal at the bottom-right corner */
    bool mask_grad;   /* the backward returns the additive mask's gradient */
} attn_case;

static const attn_case cases[] = {
    {"plain", 4, 2, 3, 3, 17, 17, 16, 16, 0, 0, {0}, false, 0.0, CT_CONTIGUOUS, false, false},
    {"causal L<S gqa", 4, 2, 4, 2, 13, 21, 40, 24, 0, 0, {0}, true, 0.0, CT_TRANSPOSED, false,
     false},
    {"causal L>S", 3, 1, 2, 2, 19, 7, 8, 8, 0, 0, {0}, true, 0.0, CT_CONTIGUOUS, false, false},
    {"bool mask LxS", 4, 2, 2, 1, 9, 33, 32, 32, 1, 2, {9, 33}, false, 0.0, CT_SLICED, false,
     false},
    {"additive mask Bx1x1xS", 4, 2, 3, 3, 18, 20, 64, 48, 2, 4, {2, 1, 1, 20}, false, 0.0,
     CT_CONTIGUOUS, false, false},
    {"dropout gqa", 4, 1, 6, 2, 21, 19, 24, 24, 0, 0, {0}, false, 0.3, CT_CONTIGUOUS, false, false},
    {"dropout causal mask", 4, 2, 2, 2, 11, 11, 16, 16, 1, 3, {2, 11, 11}, true, 0.5,
     CT_TRANSPOSED, false, false},
    {"head dim 256", 4, 1, 2, 2, 10, 12, 256, 200, 0, 0, {0}, true, 0.0, CT_CONTIGUOUS, false,
     false},
    {"head dim 128 rank 2", 2, 1, 1, 1, 37, 29, 128, 96, 2, 2, {37, 29}, false, 0.0, CT_OFFSET,
     false, true},
    {"lower-right L<S gqa", 4, 2, 4, 2, 13, 37, 40, 24, 0, 0, {0}, true, 0.0, CT_TRANSPOSED,
     true, false},
    {"lower-right L>S", 3, 1, 2, 2, 19, 7, 8, 8, 0, 0, {0}, true, 0.0, CT_CONTIGUOUS, true,
     false},
    {"lower-right dropout mask grad", 4, 2, 2, 2, 11, 20, 16, 16, 2, 3, {2, 11, 20}, true, 0.25,
     CT_SLICED, true, true},
    {"mask grad Bx1x1xS", 4, 2, 3, 3, 18, 20, 64, 48, 2, 4, {2, 1, 1, 20}, false, 0.0,
     CT_CONTIGUOUS, false, true},
    /* mask gradients reduced over broadcast dims by attn_bwd_dmask (in
     * float32 and one 16-bit type each, by their index: with 16-bit inputs
     * the gradients take the rounding of out, which grows with the rows a
     * key gradient sums) */
    {"mask grad LxS causal", 4, 2, 2, 2, 9, 23, 32, 32, 2, 2, {9, 23}, true, 0.0, CT_TRANSPOSED,
     false, true},
    {"mask grad 1xHx1x1 lower-right", 4, 2, 3, 3, 21, 9, 16, 16, 2, 4, {1, 3, 1, 1}, true, 0.0,
     CT_SLICED, true, true},
    {"mask grad Bx1xLx1 dropout gqa", 4, 2, 4, 2, 13, 17, 16, 24, 2, 4, {2, 1, 13, 1}, false,
     0.2, CT_CONTIGUOUS, false, true},
    {"mask grad head dim 256 1x1x1xS", 4, 1, 2, 1, 11, 12, 256, 256, 2, 4, {1, 1, 1, 12}, false,
     0.0, CT_CONTIGUOUS, false, true},
    /* few (batch, head) tiles over a long S: the split-KV forward */
    {"decode split-KV gqa", 4, 1, 2, 1, 1, 1500, 64, 64, 0, 0, {0}, false, 0.0, CT_CONTIGUOUS,
     false, false},
    {"decode split-KV lower-right dropout mask", 4, 1, 2, 2, 5, 1100, 32, 32, 1, 2, {5, 1100},
     true, 0.2, CT_TRANSPOSED, true, false},
    {"decode 3 rows split-KV mask grad", 4, 2, 1, 1, 3, 900, 128, 100, 2, 4, {2, 1, 1, 900},
     false, 0.0, CT_CONTIGUOUS, false, true},
    /* from here on every dtype: several tiles of the tensor-core backward
     * (64-key blocks, 32- or 64-row query steps, 128-row dQ tiles) on
     * KIT_MMA devices — cp.async and element-wise tile loads, the
     * mask-free path and the masked one, partial tiles */
    {"mma tiles head dim 128 gqa lower-right", 4, 1, 2, 1, 131, 90, 128, 128, 0, 0, {0}, true,
     0.0, CT_CONTIGUOUS, true, false},
    {"mma tiles dropout full mask grad", 4, 1, 2, 2, 100, 77, 64, 48, 2, 4, {1, 2, 100, 77},
     false, 0.1, CT_CONTIGUOUS, false, true},
    {"mma tiles bool mask causal gqa", 4, 2, 3, 1, 70, 140, 32, 32, 1, 2, {70, 140}, true, 0.0,
     CT_TRANSPOSED, false, false},
};
#define FIRST_ALL_DTYPES 20 /* cases from here run in every dtype */

/* The sizes of query ([.., Hq, L, E]), key, value of a case in its rank. */
static void shapes(const attn_case *c, int64_t q[4], int64_t k[4], int64_t v[4])
{
    int64_t Q[4] = {c->B, c->Hq, c->L, c->E}, K[4] = {c->B, c->Hkv, c->S, c->E},
            V[4] = {c->B, c->Hkv, c->S, c->Ev};
    int off = 4 - c->ndim;
    memcpy(q, Q + off, sizeof(int64_t) * (size_t)c->ndim);
    memcpy(k, K + off, sizeof(int64_t) * (size_t)c->ndim);
    memcpy(v, V + off, sizeof(int64_t) * (size_t)c->ndim);
}

static clops_tensor *mask_of(clops_device *d, const attn_case *c, clops_dtype dt)
{
    if (!c->mask)
        return NULL;
    if (c->mask == 2)
        return ct_random(d, dt, c->mask_ndim, c->msz, CT_CONTIGUOUS, PW_DOMAIN_SMALL, 77);
    int64_t n = ct_numel(c->mask_ndim, c->msz);
    unsigned char *m = malloc((size_t)n);
    for (int64_t i = 0; i < n; i++)
        m[i] = (unsigned char)((i * 7 + i / 5) % 4 != 0);
    clops_tensor *t = ct_from_values(d, CLOPS_BOOL, c->mask_ndim, c->msz, CT_CONTIGUOUS, m);
    free(m);
    return t;
}

/* The largest magnitude of t's elements (its distance from zeros). */
static double max_abs(const clops_tensor *t)
{
    int64_t n = ct_numel(t->ndim, t->sizes);
    void *z = calloc((size_t)(n > 0 ? n : 1), 8);
    CT_ASSERT(z != NULL);
    clops_tensor *zt = ct_from_values(ct_cpu(), t->dtype, t->ndim, t->sizes, CT_CONTIGUOUS, z);
    free(z);
    ct_report rep;
    memset(&rep, 0, sizeof rep);
    ct_compare(t, zt, CT_TOL_EXACT, &rep);
    clops_tensor_release(zt);
    return rep.max_abs_err;
}

/* The tolerance of a 16-bit gradient against the reference: 4 ULPs with
 * an absolute floor of `floor`, or a share of the gradient's largest
 * magnitude — each element sums products whose rounding (the 16-bit out
 * in D = dO . O; on tensor cores also P and dS rounded to the input type
 * before their products, as FlashAttention does) scales with the largest
 * terms, not with the element. */
static ct_tol grad_tol(clops_dtype dt, double floor, const clops_tensor *ref)
{
    double rel = (dt == CLOPS_BFLOAT16 ? 2e-2 : 4e-3) * max_abs(ref);
    return ct_tol_ulp_atol(4, rel > floor ? rel : floor);
}

/* Whether the backward of c in dt on d should run on the tensor cores. */
static bool expect_mma_bwd(const clops_device *d, const attn_case *c, clops_dtype dt)
{
    const char *off = getenv("CLOPS_ATTN_MMA_BWD");
    return kit_kind_of(d) == KIT_MMA && dt != CLOPS_FLOAT32 && c->E <= 128 && c->Ev <= 128 &&
           !(off && strcmp(off, "0") == 0);
}

/* Whether the forward of c in dt on d must (1), must not (0) or may (-1)
 * run on the tensor cores.  attn_fwd_mma takes 16-bit inputs without
 * dropout, head dims up to 128 and more than 4 query rows (fewer are
 * decoding tiles), unless a query of one FMA tile (16 rows) is split over
 * the keys (split-KV): that depends on the device's compute units and the
 * key length, so queries of 5-16 rows may take either kernel (both are
 * checked against the reference below). */
static int expect_mma_fwd(const clops_device *d, const attn_case *c, clops_dtype dt)
{
    if (!(kit_kind_of(d) == KIT_MMA && dt != CLOPS_FLOAT32 && c->E <= 128 && c->Ev <= 128 &&
          !(c->dropout > 0) && c->L > 4))
        return 0;
    return c->L > 16 ? 1 : -1;
}

/* Whether the tensor-core backward of c should split its grouped-query
 * heads over work-groups: every case here has far fewer key blocks than
 * 8 per compute unit of a GPU. */
static bool expect_split_bwd(const clops_device *d, const attn_case *c, clops_dtype dt)
{
    const char *off = getenv("CLOPS_ATTN_BWD_SPLIT");
    return expect_mma_bwd(d, c, dt) && c->Hq != c->Hkv && !(off && strcmp(off, "0") == 0);
}

/* Whether d can run attn_fwd_tf32: NVIDIA, compute capability >= 8.0. */
static bool tf32_device(const clops_device *d)
{
    return kit_kind_of(d) == KIT_MMA && d->info.vendor == CLOPS_VENDOR_NVIDIA &&
           d->nv_cc_major >= 8;
}

/* the debug setting attention.cpu_bwd while check_case runs (test_cpu_backward) */
static int cpu_bwd_mode;

/* CLOPS_ATTN_CPU_BWD=0 (the benchmarks' switch): CPU devices keep the
 * work-group kernels whatever the setting */
static bool cpu_bwd_env_off(void)
{
    const char *e = getenv("CLOPS_ATTN_CPU_BWD");
    return e && strcmp(e, "0") == 0;
}

/* Forward and backward of one case on device d and on the CPU reference. */
static void check_case(clops_device *d, const attn_case *c, clops_dtype dt, clops_generator *g)
{
    ct_set_case("%s %s", c->name, clops_dtype_name(dt));
    const char *progress = getenv("CLOPS_TEST_ATTN_PROGRESS");
    if (progress && strcmp(progress, "1") == 0) {
        fprintf(stderr, "case %s %s\n", c->name, clops_dtype_name(dt));
        fflush(stderr);
    }
    int64_t qs[4], ks[4], vs[4], os[4];
    shapes(c, qs, ks, vs);
    memcpy(os, qs, sizeof os);
    os[c->ndim - 1] = c->Ev;
    clops_tensor *q = ct_random(d, dt, c->ndim, qs, c->layout, PW_DOMAIN_SMALL, 1);
    clops_tensor *k = ct_random(d, dt, c->ndim, ks, c->layout, PW_DOMAIN_SMALL, 2);
    clops_tensor *v = ct_random(d, dt, c->ndim, vs, c->layout, PW_DOMAIN_SMALL, 3);
    clops_tensor *go = ct_random(d, dt, c->ndim, os, c->layout, PW_DOMAIN_SMALL, 4);
    clops_tensor *m = mask_of(d, c, dt);
    clops_tensor *qc = ct_to_cpu(q), *kc = ct_to_cpu(k), *vc = ct_to_cpu(v), *goc = ct_to_cpu(go);
    clops_tensor *mc = m ? ct_to_cpu(m) : NULL;
    clops_tensor *o = NULL, *l = NULL, *r = NULL, *oc = NULL, *lc = NULL, *rc = NULL;
    attn_stats f0, f1;
    attention_stats(&f0);
    CT_OK(clops_generator_manual_seed(g, 1234));
    CT_OK(clops__fused_attention(q, k, v, m, c->dropout, c->causal, NULL, g, c->lower_right, &o,
                                 &l, &r));
    attention_stats(&f1);
    /* KIT_MMA devices run these 16-bit forwards on the tensor cores (a
     * failed known-answer check would leave attn_fwd in charge: that
     * fails here) */
    int want_mma = expect_mma_fwd(d, c, dt);
    if (want_mma >= 0)
        CT_ASSERT_MSG(f1.fwd_mma - f0.fwd_mma == (unsigned)want_mma,
                      "the forward took the %s kernel",
                      f1.fwd_mma - f0.fwd_mma ? "tensor-core" : "FMA");
    /* CLOPS_TEST_ATTN_ROUTED=1 (the GPU job, with CLOPS_ATTN_CTAS asking
     * for more than one work-group per SM for every kernel): every
     * tensor-core forward and backward ran the PTX route's build (a route
     * that failed to build or its known-answer check falls back to the
     * driver's build: that fails here) */
    const char *rt = getenv("CLOPS_TEST_ATTN_ROUTED");
    bool routed = rt && strcmp(rt, "1") == 0;
    if (routed)
        CT_ASSERT_MSG(f1.fwd_routed - f0.fwd_routed == f1.fwd_mma - f0.fwd_mma,
                      "a tensor-core forward ran the driver's build, not the PTX route's");
    /* CLOPS_TEST_ATTN_WGMMA=1 (the GPU job on a Hopper, with
     * CLOPS_ATTN_WGMMA=1): every tensor-core forward of a lean problem (no
     * mask, no dropout) of head dim 64 or 128 (padded) ran attn_fwd_wg */
    const char *wt = getenv("CLOPS_TEST_ATTN_WGMMA");
    int64_t hd = c->E > c->Ev ? c->E : c->Ev;
    if (wt && strcmp(wt, "1") == 0 && want_mma == 1 && c->mask == 0 && hd > 32 && hd <= 128)
        CT_ASSERT_MSG(f1.fwd_wg - f0.fwd_wg == 1, "a lean forward did not take attn_fwd_wg");
    /* CLOPS_TEST_ATTN_TF32=1 (the GPU job, with CLOPS_ATTN_TF32=1): every
     * lean float32 forward (no mask, no dropout) of more than 4 query rows
     * and head dim 64 or 128 (padded) ran attn_fwd_tf32, no other did */
    const char *tt = getenv("CLOPS_TEST_ATTN_TF32");
    if (tt && strcmp(tt, "1") == 0)
        CT_ASSERT_MSG(f1.fwd_tf32 - f0.fwd_tf32 ==
                          (tf32_device(d) && dt == CLOPS_FLOAT32 && c->mask == 0 && !(c->dropout > 0) && c->L > 4 &&
                                   hd > 32 && hd <= 128
                               ? 1u
                               : 0u),
                      "attn_fwd_tf32 %s", f1.fwd_tf32 - f0.fwd_tf32 ? "ran" : "did not run");
    CT_OK(clops_generator_manual_seed(g, 1234));
    CT_OK(clops__fused_attention(qc, kc, vc, mc, c->dropout, c->causal, NULL, g, c->lower_right,
                                 &oc, &lc, &rc));
    bool f32 = dt == CLOPS_FLOAT32;
    /* (attn_fwd_tf32, CLOPS_ATTN_TF32=1: test_tf32_forward's 3e-5) */
    ct_tol tol = f32 ? ct_tol_ulp_atol(64, f1.fwd_tf32 > f0.fwd_tf32 ? 3e-5 : 1e-5)
                     : ct_tol_ulp_atol(4, 4e-3);
    CT_ASSERT_CLOSE(o, oc, tol);
    CT_ASSERT_CLOSE(l, lc, ct_tol_ulp_atol(64, 2e-6));
    CT_ASSERT_CLOSE(r, rc, CT_TOL_EXACT);
    clops_tensor *gq = NULL, *gk = NULL, *gv = NULL, *gqc = NULL, *gkc = NULL, *gvc = NULL;
    clops_tensor *gq2 = NULL, *gk2 = NULL, *gv2 = NULL, *gm = NULL, *gmc = NULL, *gm2 = NULL;
    attn_stats s0, s1;
    attention_stats(&s0);
    CT_OK(clops__fused_attention_backward(go, q, k, v, o, l, r, m, c->dropout, c->causal, NULL,
                                          c->lower_right, c->mask_grad, &gq, &gk, &gv, &gm));
    attention_stats(&s1);
    /* KIT_MMA devices run 16-bit head dims up to 128 on the tensor cores
     * (a failed known-answer check would leave the FMA kernels in charge:
     * that fails here) */
    CT_ASSERT_MSG(s1.bwd_mma - s0.bwd_mma == (expect_mma_bwd(d, c, dt) ? 1u : 0u),
                  "the backward took the %s kernels",
                  s1.bwd_mma - s0.bwd_mma ? "tensor-core" : "FMA");
    CT_ASSERT_MSG(s1.bwd_split - s0.bwd_split == (expect_split_bwd(d, c, dt) ? 1u : 0u),
                  "the backward's grouped-query heads were%s split",
                  s1.bwd_split - s0.bwd_split ? "" : " not");
    if (routed)
        CT_ASSERT_MSG(s1.bwd_routed - s0.bwd_routed == s1.bwd_mma - s0.bwd_mma,
                      "a tensor-core backward ran the driver's build, not the PTX route's");
    /* CPU devices run head dims up to 128 on attn_bwd_dkv_cpu and
     * attn_bwd_dq_cpu (mode 2: the work-group kernels) */
    bool single = hd <= 128 && cpu_bwd_mode != 2 && !cpu_bwd_env_off();
    if (kit_kind_of(d) == KIT_CPU)
        CT_ASSERT_MSG(s1.bwd_cpu - s0.bwd_cpu == (single ? 1u : 0u),
                      "the backward took the %s kernels on a CPU device",
                      s1.bwd_cpu - s0.bwd_cpu ? "single-item" : "work-group");
    /* CLOPS_TEST_ATTN_WGMMA_BWD=1 (the GPU job on a Hopper, with
     * CLOPS_ATTN_WGMMA_BWD=1): every tensor-core backward of a lean
     * problem of head dim 64 or 128 (padded) ran its dK/dV on
     * attn_bwd_dkv_wg */
    /* (CLOPS_TEST_ATTN_WGMMA_DQ=1 with CLOPS_ATTN_WGMMA_DQ=1: their dQ on
     * attn_bwd_dq_wg) */
    const char *wb = getenv("CLOPS_TEST_ATTN_WGMMA_BWD"), *wq = getenv("CLOPS_TEST_ATTN_WGMMA_DQ");
    bool lean_wg = expect_mma_bwd(d, c, dt) && c->mask == 0 && !(c->dropout > 0) && hd > 32 &&
                   hd <= 128;
    if (wb && strcmp(wb, "1") == 0 && lean_wg)
        CT_ASSERT_MSG(s1.bwd_wg - s0.bwd_wg == 1, "a lean backward did not take attn_bwd_dkv_wg");
    if (wq && strcmp(wq, "1") == 0 && lean_wg)
        CT_ASSERT_MSG(s1.bwd_wgq - s0.bwd_wgq == 1, "a lean backward did not take attn_bwd_dq_wg");
    CT_OK(clops__fused_attention_backward(goc, qc, kc, vc, oc, lc, rc, mc, c->dropout, c->causal,
                                          NULL, c->lower_right, c->mask_grad, &gqc, &gkc, &gvc,
                                          &gmc));
    double gfloor = dt == CLOPS_BFLOAT16 ? 5e-2 : 1e-2;
    ct_tol gtol = f32 ? ct_tol_ulp_atol(256, 1e-4) : ct_tol_ulp_atol(4, gfloor);
    CT_ASSERT_CLOSE(gq, gqc, f32 ? gtol : grad_tol(dt, gfloor, gqc));
    CT_ASSERT_CLOSE(gk, gkc, f32 ? gtol : grad_tol(dt, gfloor, gkc));
    CT_ASSERT_CLOSE(gv, gvc, f32 ? gtol : grad_tol(dt, gfloor, gvc));
    CT_ASSERT((gm != NULL) == c->mask_grad && (gmc != NULL) == c->mask_grad);
    if (c->mask_grad) {
        CT_ASSERT(gm->ndim == c->mask_ndim && gm->dtype == dt &&
                  memcmp(gm->sizes, c->msz, sizeof(int64_t) * (size_t)c->mask_ndim) == 0);
        /* each element sums the dS of the positions the mask broadcasts
         * over, each off by the 16-bit rounding of out (D = dO . O) */
        double terms = (double)(c->B * c->Hq * c->L * c->S) / (double)ct_numel(c->mask_ndim,
                                                                             c->msz);
        ct_tol mtol = f32 ? gtol : grad_tol(dt, gfloor * sqrt(terms > 1 ? terms : 1), gmc);
        CT_ASSERT_CLOSE(gm, gmc, mtol);
    }
    /* the backward twice: the same bits */
    CT_OK(clops__fused_attention_backward(go, q, k, v, o, l, r, m, c->dropout, c->causal, NULL,
                                          c->lower_right, c->mask_grad, &gq2, &gk2, &gv2, &gm2));
    CT_ASSERT_CLOSE(gq2, gq, CT_TOL_EXACT);
    CT_ASSERT_CLOSE(gk2, gk, CT_TOL_EXACT);
    CT_ASSERT_CLOSE(gv2, gv, CT_TOL_EXACT);
    if (c->mask_grad)
        CT_ASSERT_CLOSE(gm2, gm, CT_TOL_EXACT);
    clops_tensor *rel[] = {q,  k,  v,  go,  m,   qc,  kc,  vc,  goc, mc,  o,   l,   r,  oc,
                           lc, rc, gq, gk,  gv,  gqc, gkc, gvc, gq2, gk2, gv2, gm,  gmc, gm2};
    for (size_t i = 0; i < CT_COUNT(rel); i++)
        clops_tensor_release(rel[i]);
}

/* The CPU backward's paths (attn_bwd_dkv_cpu and attn_bwd_dq_cpu with
 * the dS scratch, without it, and the work-group kernels), each against
 * the reference, on rows read in place (float32, contiguous, head dim 64)
 * and copied; the scratch's dQ and the recomputed one: the same bits. */
static const attn_case cpu_cases[] = {
    {"cpu causal gqa", 4, 1, 4, 2, 19, 21, 64, 64, 0, 0, {0}, true, 0.0, CT_CONTIGUOUS, false,
     false},
    {"cpu dropout additive mask", 4, 1, 2, 2, 17, 16, 64, 64, 2, 4, {1, 2, 17, 16}, false, 0.2,
     CT_CONTIGUOUS, false, false},
    {"cpu lower-right L>S transposed", 3, 1, 2, 2, 12, 9, 24, 40, 0, 0, {0}, true, 0.0,
     CT_TRANSPOSED, true, false},
};

/* test_cpu_backward's teardown: the default mode again, also after a
 * failure */
static int cpu_bwd_reset(void **state)
{
    (void)state;
    cpu_bwd_mode = 0;
    return clops_debug_set("attention.cpu_bwd", 0) == CLOPS_OK ? 0 : -1;
}

static void test_cpu_backward(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int n = ct_opencl_devices(devs, CT_MAX_DEVICES);
    for (int di = 0; di < n; di++) {
        clops_device *d = devs[di];
        if (kit_kind_of(d) != KIT_CPU || cpu_bwd_env_off())
            continue;
        ct_set_device(d);
        clops_generator *g = NULL;
        CT_OK(clops_generator_create(d, &g));
        for (size_t ci = 0; ci < CT_COUNT(cpu_cases); ci++) {
            const attn_case *c = &cpu_cases[ci];
            clops_dtype dt = ci == 2 ? CLOPS_FLOAT16 : CLOPS_FLOAT32;
            if (!ct_device_supports(d, dt))
                continue;
            for (int mode = 0; mode < 3; mode++) {
                cpu_bwd_mode = mode;
                CT_OK(clops_debug_set("attention.cpu_bwd", mode));
                check_case(d, c, dt, g);
            }
            /* the scratch's dQ against the recomputed one: the same bits */
            int64_t qs[4], ks[4], vs[4];
            shapes(c, qs, ks, vs);
            clops_tensor *q = ct_random(d, dt, c->ndim, qs, c->layout, PW_DOMAIN_SMALL, 1);
            clops_tensor *k = ct_random(d, dt, c->ndim, ks, c->layout, PW_DOMAIN_SMALL, 2);
            clops_tensor *v = ct_random(d, dt, c->ndim, vs, c->layout, PW_DOMAIN_SMALL, 3);
            int64_t os[4];
            memcpy(os, qs, sizeof os);
            os[c->ndim - 1] = c->Ev;
            clops_tensor *go = ct_random(d, dt, c->ndim, os, c->layout, PW_DOMAIN_SMALL, 4);
            clops_tensor *m = mask_of(d, c, dt);
            clops_tensor *o = NULL, *l = NULL, *r = NULL, *gq[3] = {0}, *gk[3] = {0},
                         *gv[3] = {0}, *gm[3] = {0};
            CT_OK(clops_generator_manual_seed(g, 99));
            CT_OK(clops__fused_attention(q, k, v, m, c->dropout, c->causal, NULL, g,
                                         c->lower_right, &o, &l, &r));
            /* 0 the scratch, 1 without it, 2 (the setting's 3) its
             * allocation failing: the call recomputes, succeeds and leaves
             * the last error message as it was */
            for (int mode = 0; mode < 3; mode++) {
                attn_stats s0, s1;
                attention_stats(&s0);
                CT_OK(clops_debug_set("attention.cpu_bwd", mode == 2 ? 3 : mode));
                clops_clear_error();
                CT_OK(clops__fused_attention_backward(go, q, k, v, o, l, r, m, c->dropout,
                                                      c->causal, NULL, c->lower_right, false,
                                                      &gq[mode], &gk[mode], &gv[mode],
                                                      &gm[mode]));
                CT_ASSERT_MSG(clops_last_error()[0] == '\0', "mode %d left the error '%s'", mode,
                              clops_last_error());
                attention_stats(&s1);
                CT_ASSERT_MSG(s1.bwd_cpu_ds - s0.bwd_cpu_ds == (mode == 0 ? 1u : 0u),
                              "the backward's dS scratch was%s used", mode ? "" : " not");
            }
            for (int mode = 1; mode < 3; mode++) {
                CT_ASSERT_CLOSE(gq[mode], gq[0], CT_TOL_EXACT);
                CT_ASSERT_CLOSE(gk[mode], gk[0], CT_TOL_EXACT);
                CT_ASSERT_CLOSE(gv[mode], gv[0], CT_TOL_EXACT);
            }
            clops_tensor *rel[] = {q, k, v, go, m, o, l, r, gq[0], gk[0], gv[0], gm[0],
                                   gq[1], gk[1], gv[1], gm[1], gq[2], gk[2], gv[2], gm[2]};
            for (size_t i = 0; i < CT_COUNT(rel); i++)
                clops_tensor_release(rel[i]);
        }
        cpu_bwd_mode = 0;
        CT_OK(clops_debug_set("attention.cpu_bwd", 0));
        clops_generator_release(g);
    }
    ct_clear_context();
}

static void test_kernels_match_the_reference(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int n = ct_opencl_devices(devs, CT_MAX_DEVICES);
    const clops_dtype dts[] = {CLOPS_FLOAT32, CLOPS_FLOAT16, CLOPS_BFLOAT16};
    const char *only = getenv("CLOPS_TEST_ATTN_CASES");
    int ran = 0;
    for (int di = 0; di < n; di++) {
        ct_set_device(devs[di]);
        clops_generator *g = NULL;
        CT_OK(clops_generator_create(devs[di], &g));
        for (size_t ci = 0; ci < CT_COUNT(cases); ci++)
            for (size_t ti = 0; ti < CT_COUNT(dts); ti++)
                if ((!only || !*only || fnmatch(only, cases[ci].name, 0) == 0) &&
                    ct_device_supports(devs[di], dts[ti]) &&
                    (ti == 0 || ci >= FIRST_ALL_DTYPES ||
                     (ci % 3 == ti && (ci < 6 || ci >= 9)))) {
                    check_case(devs[di], &cases[ci], dts[ti], g);
                    ran++;
                }
        clops_generator_release(g);
    }
    ct_clear_context();
    /* a glob that names no case ran nothing: a failure, not a pass */
    CT_ASSERT_MSG(ran > 0 || n == 0,
                  "no case of the feature matrix matched CLOPS_TEST_ATTN_CASES '%s'",
                  only ? only : "");
}

/* A row whose every position is masked: output 0, logsumexp -inf, zero
 * gradients (PyTorch's _safe_softmax); a NaN in a query row makes that
 * row NaN and leaves the others finite. */
static void test_masked_rows_and_nan(void **state)
{
    (void)state;
    /* (L, S, the fully masked row, the NaN row): a 16-row tile, and a
     * decoding tile over a long S (the split-KV forward and its combine
     * where the device has more than one compute unit). */
    static const int64_t shapes[][4] = {{5, 6, 1, 3}, {2, 700, 0, 1}};
    clops_device *devs[CT_MAX_DEVICES];
    int n = ct_devices(devs, CT_MAX_DEVICES);
    for (int di = 0; di < n; di++) {
        ct_set_device(devs[di]);
        clops_device *d = devs[di];
        for (size_t si = 0; si < CT_COUNT(shapes); si++) {
            const int64_t L = shapes[si][0], S = shapes[si][1], E = 8;
            const int64_t mr = shapes[si][2], nr = shapes[si][3];
            ct_set_case("L %lld S %lld", (long long)L, (long long)S);
            float *qv = malloc(sizeof(float) * (size_t)(L * E));
            unsigned char *mv = malloc((size_t)(L * S));
            CT_ASSERT(qv && mv);
            for (int64_t i = 0; i < L * E; i++)
                qv[i] = (float)((i * 37) % 11) / 11.0f - 0.5f;
            qv[nr * E + 2] = NAN;
            for (int64_t i = 0; i < L * S; i++)
                mv[i] = (unsigned char)(i / S != mr); /* row mr fully masked */
            clops_tensor *q = ct_from_values(d, CLOPS_FLOAT32, 2, CT_I64(L, E), CT_CONTIGUOUS, qv);
            clops_tensor *k = ct_random(d, CLOPS_FLOAT32, 2, CT_I64(S, E), CT_CONTIGUOUS,
                                        PW_DOMAIN_SMALL, 2);
            clops_tensor *m = ct_from_values(d, CLOPS_BOOL, 2, CT_I64(L, S), CT_CONTIGUOUS, mv);
            clops_tensor *go = ct_random(d, CLOPS_FLOAT32, 2, CT_I64(L, E), CT_CONTIGUOUS,
                                         PW_DOMAIN_SMALL, 3);
            free(qv);
            free(mv);
            clops_tensor *o = NULL, *l = NULL, *r = NULL, *gq = NULL, *gk = NULL, *gv = NULL,
                         *gm = NULL;
            CT_OK(clops__fused_attention(q, k, k, m, 0.0, false, NULL, NULL, false, &o, &l, &r));
            CT_OK(clops__fused_attention_backward(go, q, k, k, o, l, r, m, 0.0, false, NULL,
                                                  false, false, &gq, &gk, &gv, &gm));
            CT_ASSERT(gm == NULL);
            float *oh = ct_to_host(o), *lh = ct_to_host(l), *gh = ct_to_host(gq);
            for (int64_t c = 0; c < E; c++) {
                CT_ASSERT(oh[mr * E + c] == 0.0f && gh[mr * E + c] == 0.0f);
                CT_ASSERT(isnan(oh[nr * E + c]));
                for (int64_t i = 0; i < L; i++)
                    if (i != mr && i != nr)
                        CT_ASSERT(isfinite(oh[i * E + c]));
            }
            CT_ASSERT(isinf(lh[mr]) && lh[mr] < 0);
            free(oh);
            free(lh);
            free(gh);
            clops_tensor *rel[] = {q, k, m, go, o, l, r, gq, gk, gv};
            for (size_t i = 0; i < CT_COUNT(rel); i++)
                clops_tensor_release(rel[i]);
        }
    }
    ct_clear_context();
}

/* Whether t has exactly these strides. */
static bool has_strides(const clops_tensor *t, const int64_t *want)
{
    return memcmp(t->strides, want, sizeof(int64_t) * (size_t)t->ndim) == 0;
}

/* Results are laid out as PyTorch lays them out: the output like query
 * (a [B, H, L, E] view of [B, L, H, E] memory, as transformers split
 * heads, gives [B, L, H, Ev] memory: the meta function's
 * alloc_with_matching_layout, CUDA's flash kernel), the gradients like
 * query, key and value (empty_like: their strides when dense, else dense
 * strides in their dimension order), the mask's gradient like the mask;
 * the values match those of contiguous inputs. */
static void test_result_layouts(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int n = ct_devices(devs, CT_MAX_DEVICES);
    const int64_t B = 2, L = 9, H = 3, E = 16, Ev = 8;
    const int64_t perm[4] = {0, 2, 1, 3};
    for (int di = 0; di < n; di++) {
        ct_set_device(devs[di]);
        clops_device *d = devs[di];
        /* q, k: [B, L, H, E] memory seen as [B, H, L, E]; v: [B, L, 2H, Ev]
         * sliced to H heads (not dense); the mask [H, L, 1] transposed. */
        clops_tensor *qb = ct_random(d, CLOPS_FLOAT32, 4, CT_I64(B, L, H, E), CT_CONTIGUOUS,
                                     PW_DOMAIN_SMALL, 1);
        clops_tensor *kb = ct_random(d, CLOPS_FLOAT32, 4, CT_I64(B, L, H, E), CT_CONTIGUOUS,
                                     PW_DOMAIN_SMALL, 2);
        clops_tensor *vb = ct_random(d, CLOPS_FLOAT32, 4, CT_I64(B, L, 2 * H, Ev),
                                     CT_CONTIGUOUS, PW_DOMAIN_SMALL, 3);
        clops_tensor *mb = ct_random(d, CLOPS_FLOAT32, 3, CT_I64(L, 1, H), CT_CONTIGUOUS,
                                     PW_DOMAIN_SMALL, 4);
        clops_tensor *q = NULL, *k = NULL, *vs = NULL, *v = NULL, *m = NULL;
        CT_OK(clops_permute(qb, perm, 4, &q));
        CT_OK(clops_permute(kb, perm, 4, &k));
        int64_t h0 = 0, h1 = H;
        CT_OK(clops_slice(vb, 2, &h0, &h1, 1, &vs));
        CT_OK(clops_permute(vs, perm, 4, &v));
        CT_OK(clops_permute(mb, CT_I64(2, 0, 1), 3, &m));
        clops_tensor *o = NULL, *l = NULL, *r = NULL, *o2 = NULL, *l2 = NULL, *r2 = NULL;
        CT_OK(clops__fused_attention(q, k, v, m, 0.0, true, NULL, NULL, true, &o, &l, &r));
        CT_ASSERT(has_strides(o, CT_I64(L * H * Ev, Ev, H * Ev, 1)));
        clops_tensor *o3 = NULL, *l3 = NULL, *r3 = NULL;
        CT_OK(clops__fused_attention(q, k, k, NULL, 0.0, false, NULL, NULL, false, &o3, &l3, &r3));
        CT_ASSERT(has_strides(o3, q->strides));
        clops_tensor *qc = NULL, *kc = NULL, *vc = NULL, *mc = NULL;
        CT_OK(clops_contiguous(q, 0, &qc));
        CT_OK(clops_contiguous(k, 0, &kc));
        CT_OK(clops_contiguous(v, 0, &vc));
        CT_OK(clops_contiguous(m, 0, &mc));
        CT_OK(clops__fused_attention(qc, kc, vc, mc, 0.0, true, NULL, NULL, true, &o2, &l2, &r2));
        CT_ASSERT(clops_tensor_is_contiguous(o2));
        CT_ASSERT_CLOSE(o, o2, CT_TOL_EXACT);
        clops_tensor *go = ct_random(d, CLOPS_FLOAT32, 4, CT_I64(B, H, L, Ev), CT_CONTIGUOUS,
                                     PW_DOMAIN_SMALL, 5);
        clops_tensor *gq = NULL, *gk = NULL, *gv = NULL, *gm = NULL;
        clops_tensor *gq2 = NULL, *gk2 = NULL, *gv2 = NULL, *gm2 = NULL;
        CT_OK(clops__fused_attention_backward(go, q, k, v, o, l, r, m, 0.0, true, NULL, true,
                                              true, &gq, &gk, &gv, &gm));
        CT_ASSERT(has_strides(gq, q->strides) && has_strides(gk, k->strides));
        CT_ASSERT(has_strides(gv, CT_I64(L * H * Ev, Ev, H * Ev, 1)));
        CT_ASSERT(gm->ndim == 3 && has_strides(gm, m->strides));
        CT_OK(clops__fused_attention_backward(go, qc, kc, vc, o2, l2, r2, mc, 0.0, true, NULL,
                                              true, true, &gq2, &gk2, &gv2, &gm2));
        CT_ASSERT_CLOSE(gq, gq2, CT_TOL_EXACT);
        CT_ASSERT_CLOSE(gk, gk2, CT_TOL_EXACT);
        CT_ASSERT_CLOSE(gv, gv2, CT_TOL_EXACT);
        CT_ASSERT_CLOSE(gm, gm2, CT_TOL_EXACT);
        clops_tensor *rel[] = {qb, kb, vb, mb, q,  k,   vs,  v,   m,   o,   l,   r,  o2, l2,
                               r2, o3, l3, r3, qc, kc,  vc,  mc,  go,  gq,  gk,  gv, gm, gq2,
                               gk2, gv2, gm2};
        for (size_t i = 0; i < CT_COUNT(rel); i++)
            clops_tensor_release(rel[i]);
    }
    ct_clear_context();
}

/* scaled_dot_product_attention equals the fused op's output, and GQA needs
 * enable_gqa, as in PyTorch. */
static void test_sdpa_and_refusals(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int n = ct_devices(devs, CT_MAX_DEVICES);
    for (int di = 0; di < n; di++) {
        ct_set_device(devs[di]);
        clops_device *d = devs[di];
        clops_tensor *q = ct_random(d, CLOPS_FLOAT32, 4, CT_I64(1, 4, 5, 8), CT_CONTIGUOUS,
                                    PW_DOMAIN_SMALL, 1);
        clops_tensor *k = ct_random(d, CLOPS_FLOAT32, 4, CT_I64(1, 2, 6, 8), CT_CONTIGUOUS,
                                    PW_DOMAIN_SMALL, 2);
        clops_tensor *k3 = ct_random(d, CLOPS_FLOAT32, 4, CT_I64(1, 3, 6, 8), CT_CONTIGUOUS,
                                     PW_DOMAIN_SMALL, 2);
        clops_tensor *kh = ct_random(d, CLOPS_FLOAT16, 4, CT_I64(1, 2, 6, 8), CT_CONTIGUOUS,
                                     PW_DOMAIN_SMALL, 2);
        clops_tensor *big = ct_random(d, CLOPS_FLOAT32, 4, CT_I64(1, 2, 3, 300), CT_CONTIGUOUS,
                                      PW_DOMAIN_SMALL, 2);
        clops_tensor *bm = ct_random(d, CLOPS_FLOAT32, 2, CT_I64(4, 6), CT_CONTIGUOUS,
                                     PW_DOMAIN_SMALL, 2);
        clops_tensor *o = NULL, *o2 = NULL, *l = NULL, *r = NULL;
        double scale = 0.3;
        CT_OK(clops_scaled_dot_product_attention(q, k, k, NULL, 0.0, true, &scale, true, &o));
        CT_OK(clops__fused_attention(q, k, k, NULL, 0.0, true, &scale, NULL, false, &o2, &l, &r));
        CT_ASSERT_CLOSE(o, o2, CT_TOL_EXACT);
        CT_STATUS(clops_scaled_dot_product_attention(q, k, k, NULL, 0.0, false, NULL, false, &o),
                  CLOPS_INVALID_SHAPE);
        CT_ERROR_CONTAINS("enable_gqa");
        CT_STATUS(clops_scaled_dot_product_attention(q, k, k, bm, 0.0, true, NULL, true, &o),
                  CLOPS_INVALID_ARGUMENT);
        CT_ERROR_CONTAINS("is_causal");
        clops_tensor *x = NULL, *y = NULL, *z = NULL;
        CT_STATUS(clops__fused_attention(q, k3, k3, NULL, 0.0, false, NULL, NULL, false, &x, &y,
                                         &z),
                  CLOPS_INVALID_SHAPE);
        CT_ERROR_CONTAINS("must divide");
        CT_STATUS(clops__fused_attention(q, kh, kh, NULL, 0.0, false, NULL, NULL, false, &x, &y,
                                         &z),
                  CLOPS_INVALID_DTYPE);
        CT_ERROR_CONTAINS("same dtype");
        CT_STATUS(clops__fused_attention(big, big, big, NULL, 0.0, false, NULL, NULL, false, &x, &y,
                                         &z),
                  CLOPS_UNSUPPORTED);
        CT_ERROR_CONTAINS("up to 256");
        CT_STATUS(clops__fused_attention(q, k, k, bm, 0.0, false, NULL, NULL, false, &x, &y, &z),
                  CLOPS_INVALID_SHAPE);
        CT_ERROR_CONTAINS("does not broadcast");
        CT_STATUS(clops__fused_attention(q, k, k, NULL, 1.5, false, NULL, NULL, false, &x, &y, &z),
                  CLOPS_INVALID_ARGUMENT);
        CT_STATUS(clops__fused_attention(q, k, k, NULL, 0.0, false, NULL, NULL, true, &x, &y, &z),
                  CLOPS_INVALID_ARGUMENT);
        CT_ERROR_CONTAINS("causal_lower_right");
        clops_tensor *w = NULL;
        CT_STATUS(clops__fused_attention_backward(o2, q, k, k, o2, l, r, NULL, 0.0, true, &scale,
                                                  false, true, &x, &y, &z, &w),
                  CLOPS_INVALID_ARGUMENT);
        CT_ERROR_CONTAINS("additive");
        CT_ASSERT(x == NULL && y == NULL && z == NULL && w == NULL);
        clops_tensor *rel[] = {q, k, k3, kh, big, bm, o, o2, l, r};
        for (size_t i = 0; i < CT_COUNT(rel); i++)
            clops_tensor_release(rel[i]);
    }
    ct_clear_context();
}

/* attn_score's bounds and causal tests of query i, key j. */
static bool vis_ref(long i, long j, long L, long S, bool causal, long coff)
{
    return i < L && j < S && !(causal && j > i + coff);
}

/* attention_vis.clh's ranges as attn_fwd_mma and attn_bwd_dq_mma use them
 * (rows queries from i0, columns keys from j0: attn_vis_end) and as
 * attn_bwd_dkv_mma does (rows keys from j0, columns queries from i0:
 * attn_vis_first and the column limit), against vis_ref for every element
 * of 32-row, 64-column tiles around the diagonal, the problem's edges and
 * limits past the clamps. */
static void test_lean_visibility(void **state)
{
    (void)state;
    static const long lens[] = {1, 17, 64, 100, 3000};
    static const long offs[] = {-5000, -70, -1, 0, 1, 33, 5000};
    static const long firsts[] = {0, 16, 48, 64, 96, 2900, 2990};
    long bad = 0, checked = 0;
    for (size_t a = 0; a < CT_COUNT(lens); a++)
        for (size_t b = 0; b < CT_COUNT(lens); b++)
            for (size_t o = 0; o < CT_COUNT(offs); o++)
                for (int causal = 0; causal < 2; causal++)
                    for (size_t x = 0; x < CT_COUNT(firsts); x++)
                        for (size_t y = 0; y < CT_COUNT(firsts); y++) {
                            long L = lens[a], S = lens[b], coff = offs[o];
                            long i0 = firsts[x], j0 = firsts[y];
                            for (int r = 0; r < 32; r++) {
                                int end = attn_vis_end(r, L - i0, S - j0,
                                                       causal ? i0 + coff - j0 : ATTN_VIS_ALL);
                                int first = attn_vis_first(r, S - j0,
                                                           causal ? j0 - i0 - coff
                                                                  : -ATTN_VIS_ALL);
                                int cend = attn_vis_clamp(L - i0);
                                for (int c = 0; c < 64; c++) {
                                    bool fwd = vis_ref(i0 + r, j0 + c, L, S, causal, coff);
                                    bool bwd = vis_ref(i0 + c, j0 + r, L, S, causal, coff);
                                    bad += (c < end) != fwd;
                                    bad += (c >= first && c < cend) != bwd;
                                    checked += 2;
                                }
                            }
                        }
    CT_ASSERT_MSG(bad == 0, "%ld of %ld tile elements' visibility differs from attn_score's", bad,
                  checked);
}

/* The lean and the general tensor-core programs (docs/attention.md,
 * "Masked tiles in fewer registers") on problems both run — causal
 * (both alignments) and not, odd lengths, grouped-query heads, head dims
 * 64 and 128 — give the same bits: forward output and logsumexp, dQ, dK,
 * dV.  Only on devices that run the tensor-core kernels (KIT_MMA; asserted
 * through attention_stats, so an FMA fallback cannot pass for them);
 * elsewhere there is nothing to compare. */
static void test_lean_and_general_bits(void **state)
{
    (void)state;
    static const int64_t probs[][7] = {
        /* Hq, Hkv, L, S, E, causal, lower_right */
        {4, 2, 300, 300, 64, 1, 0},
        {2, 2, 150, 137, 64, 0, 0},
        {4, 1, 200, 260, 128, 1, 1},
        {2, 2, 131, 131, 128, 1, 0},
    };
    clops_device *devs[CT_MAX_DEVICES];
    int n = ct_opencl_devices(devs, CT_MAX_DEVICES);
    /* the lean forward on attn_fwd_mma, dK/dV on attn_bwd_dkv_mma
     * (attn_fwd_wg's and attn_bwd_dkv_wg's bits are their own) */
    attention_set_wgmma(0);
    attention_set_wgmma_bwd(0);
    for (int di = 0; di < n; di++) {
        clops_device *d = devs[di];
        if (kit_kind_of(d) != KIT_MMA || !ct_device_supports(d, CLOPS_BFLOAT16))
            continue;
        ct_set_device(d);
        for (size_t pi = 0; pi < CT_COUNT(probs); pi++) {
            const int64_t *pr = probs[pi];
            ct_set_case("Hq %lld Hkv %lld L %lld S %lld E %lld%s%s", (long long)pr[0],
                        (long long)pr[1], (long long)pr[2], (long long)pr[3], (long long)pr[4],
                        pr[5] ? " causal" : "", pr[6] ? " lower-right" : "");
            int64_t qs[4] = {1, pr[0], pr[2], pr[4]}, ks[4] = {1, pr[1], pr[3], pr[4]};
            clops_tensor *q = ct_random(d, CLOPS_BFLOAT16, 4, qs, CT_CONTIGUOUS, PW_DOMAIN_SMALL, 1);
            clops_tensor *k = ct_random(d, CLOPS_BFLOAT16, 4, ks, CT_CONTIGUOUS, PW_DOMAIN_SMALL, 2);
            clops_tensor *v = ct_random(d, CLOPS_BFLOAT16, 4, ks, CT_CONTIGUOUS, PW_DOMAIN_SMALL, 3);
            clops_tensor *go = ct_random(d, CLOPS_BFLOAT16, 4, qs, CT_CONTIGUOUS, PW_DOMAIN_SMALL, 4);
            clops_tensor *r[2][7] = {{NULL}};
            for (int gen = 0; gen < 2; gen++) {
                attention_force_general(gen == 1);
                attn_stats s0, s1;
                attention_stats(&s0);
                clops_tensor **x = r[gen];
                CT_OK(clops__fused_attention(q, k, v, NULL, 0.0, pr[5] != 0, NULL, NULL,
                                             pr[6] != 0, &x[0], &x[1], &x[2]));
                CT_OK(clops__fused_attention_backward(go, q, k, v, x[0], x[1], x[2], NULL, 0.0,
                                                      pr[5] != 0, NULL, pr[6] != 0, false, &x[3],
                                                      &x[4], &x[5], &x[6]));
                attention_stats(&s1);
                CT_ASSERT_MSG(s1.fwd_mma - s0.fwd_mma == 1 && s1.bwd_mma - s0.bwd_mma == 1,
                              "the %s programs' run did not take the tensor-core kernels",
                              gen ? "general" : "lean");
            }
            attention_force_general(false);
            static const char *const what[6] = {"output", "logsumexp", "rng_state",
                                                "dQ",     "dK",        "dV"};
            for (int w = 0; w < 6; w++) {
                ct_set_case("Hq %lld L %lld S %lld E %lld%s%s: %s", (long long)pr[0],
                            (long long)pr[2], (long long)pr[3], (long long)pr[4],
                            pr[5] ? " causal" : "", pr[6] ? " lower-right" : "", what[w]);
                CT_ASSERT_CLOSE(r[1][w], r[0][w], CT_TOL_EXACT);
            }
            clops_tensor *rel[] = {q, k, v, go};
            for (size_t i = 0; i < CT_COUNT(rel); i++)
                clops_tensor_release(rel[i]);
            for (int gen = 0; gen < 2; gen++)
                for (int w = 0; w < 7; w++)
                    clops_tensor_release(r[gen][w]);
        }
    }
    attention_set_wgmma(-1);
    attention_set_wgmma_bwd(-1);
    ct_clear_context();
}

/* Whether d is a Hopper (NVIDIA compute capability 9.0: sm_90a). */
static bool is_hopper(const clops_device *d)
{
    return kit_kind_of(d) == KIT_MMA && d->info.vendor == CLOPS_VENDOR_NVIDIA &&
           d->nv_cc_major == 9 && d->nv_cc_minor == 0;
}

/* The problems the wgmma kernels run on a Hopper in test_wgmma_choice and
 * test_wgmma_bwd_choice: causal both alignments and not, odd lengths,
 * grouped heads, E = 100, a transposed layout (element-wise loads), L <
 * S unmasked. */
static const int64_t wg_probs[][8] = {
    /* Hq, Hkv, L, S, E, causal, lower_right, transposed */
    {4, 2, 300, 300, 64, 1, 0, 0},  {2, 2, 150, 137, 64, 0, 0, 1}, {4, 1, 200, 260, 128, 1, 1, 0},
    {2, 2, 131, 131, 128, 1, 0, 1}, {2, 1, 77, 45, 100, 1, 1, 0},  {1, 1, 90, 200, 128, 0, 0, 0},
};

/* Names the case of wg_probs row pr in dt (what: the kernel) and makes its
 * first n inputs on d in x (q, k, v, then the output's gradient: seeds 1 to
 * n, in pr's layout) and their CPU copies in xc. */
static void wg_case(const char *what, const int64_t *pr, clops_dtype dt, clops_device *d, int n,
                    clops_tensor **x, clops_tensor **xc)
{
    ct_set_case("%s %s Hq %lld Hkv %lld L %lld S %lld E %lld%s%s%s", what, clops_dtype_name(dt),
                (long long)pr[0], (long long)pr[1], (long long)pr[2], (long long)pr[3],
                (long long)pr[4], pr[5] ? " causal" : "", pr[6] ? " lower-right" : "",
                pr[7] ? " transposed" : "");
    int64_t qs[4] = {1, pr[0], pr[2], pr[4]}, ks[4] = {1, pr[1], pr[3], pr[4]};
    ct_layout lay = pr[7] ? CT_TRANSPOSED : CT_CONTIGUOUS;
    for (int i = 0; i < n; i++) {
        x[i] = ct_random(d, dt, 4, i == 1 || i == 2 ? ks : qs, lay, PW_DOMAIN_SMALL, i + 1);
        xc[i] = ct_to_cpu(x[i]);
    }
}

/* The wgmma kernels (kinds) of check_wg_choice and wg_bwd_choice: each
 * one's switch for tests, its choice, its name in messages, and its
 * attention_stats counters of known-answer checks and failures. */
enum { WG_FWD, WG_DKV, WG_DQ };
static void (*const wg_set[3])(int) = {attention_set_wgmma, attention_set_wgmma_bwd,
                                       attention_set_wgmma_dq};
static bool (*const wg_chosen[3])(clops_device *, clops_dtype, int) = {
    attention_wgmma_chosen, attention_wgmma_bwd_chosen, attention_wgmma_dq_chosen};
static const char *const wg_what[3] = {"wgmma forward", "wgmma dK/dV", "wgmma dQ"};

static void wg_counts(const attn_stats *s, int kind, uint64_t *checks, uint64_t *fails)
{
    *checks = kind == WG_DKV ? s->wgb_checks : kind == WG_DQ ? s->wgq_checks : s->wg_checks;
    *fails = kind == WG_DKV ? s->wgb_fails : kind == WG_DQ ? s->wgq_fails : s->wg_fails;
}

/* The choice of the wgmma forward (WG_FWD), dK/dV (WG_DKV) or dQ (WG_DQ)
 * on d, shared by test_wgmma_choice, test_wgmma_bwd_choice and
 * test_wgmma_dq_choice: not while off, at head dim 32, for float32, on a
 * device without sm_90a (no check runs there); switched on (left so) and
 * pretended to be a Hopper where d is none, the same answer twice — taken
 * on a Hopper, else not, its failing known-answer check run once. */
static void check_wg_choice(clops_device *d, bool hopper, int kind)
{
    void (*set)(int) = wg_set[kind];
    bool (*chosen)(clops_device *, clops_dtype, int) = wg_chosen[kind];
    const char *what = wg_what[kind];
    bool bwd = kind != WG_FWD;
    attn_stats s[3];
    attention_stats(&s[0]);
    set(0);
    CT_ASSERT_MSG(!chosen(d, CLOPS_BFLOAT16, 64), "chosen while off");
    set(1);
    CT_ASSERT_MSG(!chosen(d, CLOPS_BFLOAT16, 32), "chosen at head dim 32");
    CT_ASSERT_MSG(!chosen(d, CLOPS_FLOAT32, 64), "chosen for float32");
    if (!hopper)
        CT_ASSERT_MSG(!chosen(d, CLOPS_BFLOAT16, 64), "chosen on a device without sm_90a");
    attention_stats(&s[1]);
    uint64_t checks[3], fails[3];
    for (int i = 0; i < 2; i++)
        wg_counts(&s[i], kind, &checks[i], &fails[i]);
    CT_ASSERT_MSG(checks[1] == checks[0], "a known-answer check ran where the %s cannot run",
                  what);
    attention_wgmma_pretend(!hopper);
    /* the backward's at head dim 128 (the forward's 128 is its default,
     * checked by its test) */
    int dp = bwd ? 128 : 64;
    bool c1 = chosen(d, bwd ? CLOPS_FLOAT16 : CLOPS_BFLOAT16, dp);
    bool c2 = chosen(d, bwd ? CLOPS_FLOAT16 : CLOPS_BFLOAT16, dp);
    attention_stats(&s[2]);
    attention_wgmma_pretend(false);
    wg_counts(&s[2], kind, &checks[2], &fails[2]);
    CT_ASSERT_MSG(c1 == c2, "the choice changed between two asks");
    CT_ASSERT_MSG(c1 == hopper, "the %s was %schosen on %s", what, c1 ? "" : "not ",
                  hopper ? "a Hopper (its known-answer check failed)" : "another device");
    if (!hopper)
        CT_ASSERT_MSG(checks[2] - checks[1] == 1 && fails[2] - fails[1] == 1,
                      "%llu checks, %llu failed: the failing check must run once",
                      (unsigned long long)(checks[2] - checks[1]),
                      (unsigned long long)(fails[2] - fails[1]));
}

/* The wgmma forward's choice (docs/attention.md, "Hopper's wgmma"): by
 * default at head dim 128 only, switched on at 64 and 128 too, or off;
 * only for 16-bit inputs on a Hopper, after its known-answer check —
 * once per device, dtype and head dim.  Any other device, pretended to
 * be a Hopper, cannot build the sm_90a program: its check runs once, fails (a warning), the forward
 * stays with the other kernels, and asking again runs no second check.
 * On a Hopper the check must pass, and the forwards that then take
 * attn_fwd_wg (causal both alignments and not, odd lengths, grouped
 * heads, a transposed layout: element-wise tile loads) match the CPU
 * reference, output and logsumexp (the backward's input). */
static void test_wgmma_choice(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int n = ct_opencl_devices(devs, CT_MAX_DEVICES);
    for (int di = 0; di < n; di++) {
        clops_device *d = devs[di];
        if (!ct_device_supports(d, CLOPS_BFLOAT16))
            continue;
        ct_set_device(d);
        bool hopper = is_hopper(d);
        check_wg_choice(d, hopper, WG_FWD);
        if (hopper) {
            for (size_t pi = 0; pi < CT_COUNT(wg_probs); pi++) {
                const int64_t *pr = wg_probs[pi];
                for (int ti = 0; ti < 2; ti++) {
                    clops_dtype dt = ti ? CLOPS_FLOAT16 : CLOPS_BFLOAT16;
                    clops_tensor *x[3], *xc[3];
                    wg_case("wgmma", pr, dt, d, 3, x, xc);
                    clops_tensor *o = NULL, *l = NULL, *r = NULL, *oc = NULL, *lc = NULL,
                                 *rc = NULL;
                    attn_stats f0, f1;
                    attention_stats(&f0);
                    CT_OK(clops__fused_attention(x[0], x[1], x[2], NULL, 0.0, pr[5] != 0, NULL,
                                                 NULL, pr[6] != 0, &o, &l, &r));
                    attention_stats(&f1);
                    CT_ASSERT_MSG(f1.fwd_wg - f0.fwd_wg == 1, "the forward did not take attn_fwd_wg");
                    CT_OK(clops__fused_attention(xc[0], xc[1], xc[2], NULL, 0.0, pr[5] != 0,
                                                 NULL, NULL, pr[6] != 0, &oc, &lc, &rc));
                    CT_ASSERT_CLOSE(o, oc, ct_tol_ulp_atol(4, 4e-3));
                    CT_ASSERT_CLOSE(l, lc, ct_tol_ulp_atol(64, 2e-6));
                    clops_tensor *rel[] = {x[0], x[1], x[2], xc[0], xc[1], xc[2],
                                           o, l, r, oc, lc, rc};
                    for (size_t i = 0; i < CT_COUNT(rel); i++)
                        clops_tensor_release(rel[i]);
                }
            }
        }
        /* the default (no CLOPS_ATTN_WGMMA): head dim 128 only (no check
         * runs for 64) */
        attention_set_wgmma(-1);
        if (!getenv("CLOPS_ATTN_WGMMA")) {
            attention_wgmma_pretend(!hopper);
            attn_stats a0, a1, a2;
            attention_stats(&a0);
            bool d64 = attention_wgmma_chosen(d, CLOPS_FLOAT16, 64);
            attention_stats(&a1);
            bool d128 = attention_wgmma_chosen(d, CLOPS_FLOAT16, 128);
            attention_stats(&a2);
            attention_wgmma_pretend(false);
            CT_ASSERT_MSG(!d64 && a1.wg_checks == a0.wg_checks,
                          "head dim 64 took (or checked) the wgmma forward by default");
            CT_ASSERT_MSG(d128 == hopper, "by default head dim 128 %s the wgmma forward",
                          d128 ? "took" : "did not take");
            if (!hopper)
                CT_ASSERT_MSG(a2.wg_checks - a1.wg_checks == 1,
                              "by default head dim 128 ran no known-answer check");
        }
    }
    ct_clear_context();
}

/* The wgmma dK/dV's (kind WG_DKV; dQ's, WG_DQ: test_wgmma_dq_choice)
 * choice (docs/attention.md, "Hopper's wgmma"): off by default; switched
 * on, only for 16-bit inputs at head dims 64 and 128 on a Hopper, after
 * its known-answer check — once per device, dtype and head dim.  Any
 * other device, pretended to be a Hopper, cannot build the sm_90a
 * program: its check runs once, fails (a warning), the backward keeps
 * attn_bwd_dkv_mma, and asking again runs no second check.  On a Hopper
 * the check must pass, and the backwards that then take attn_bwd_dkv_wg
 * (causal both alignments and not, odd lengths, grouped heads split over
 * work-groups and not, a transposed layout: element-wise loads) match the
 * CPU reference's dQ, dK and dV and give the same bits twice. */
static void wg_bwd_choice(int kind)
{
    void (*set)(int) = wg_set[kind];
    bool (*chosen)(clops_device *, clops_dtype, int) = wg_chosen[kind];
    const char *env = kind == WG_DQ ? "CLOPS_ATTN_WGMMA_DQ" : "CLOPS_ATTN_WGMMA_BWD";
    const char *what = wg_what[kind];
    clops_device *devs[CT_MAX_DEVICES];
    int n = ct_opencl_devices(devs, CT_MAX_DEVICES);
    for (int di = 0; di < n; di++) {
        clops_device *d = devs[di];
        if (!ct_device_supports(d, CLOPS_BFLOAT16))
            continue;
        ct_set_device(d);
        bool hopper = is_hopper(d);
        set(-1);
        if (!getenv(env))
            CT_ASSERT_MSG(!chosen(d, CLOPS_BFLOAT16, 128), "the %s was chosen by default", what);
        check_wg_choice(d, hopper, kind);
        if (hopper) {
            for (size_t pi = 0; pi < CT_COUNT(wg_probs); pi++) {
                const int64_t *pr = wg_probs[pi];
                for (int ti = 0; ti < 2; ti++) {
                    clops_dtype dt = ti ? CLOPS_FLOAT16 : CLOPS_BFLOAT16;
                    clops_tensor *x[4], *xc[4];
                    wg_case(what, pr, dt, d, 4, x, xc);
                    clops_tensor *o = NULL, *l = NULL, *r = NULL, *oc = NULL, *lc = NULL,
                                 *rc = NULL, *g[3][4] = {{NULL}};
                    bool causal = pr[5] != 0, lr = pr[6] != 0;
                    CT_OK(clops__fused_attention(x[0], x[1], x[2], NULL, 0.0, causal, NULL, NULL,
                                                 lr, &o, &l, &r));
                    CT_OK(clops__fused_attention(xc[0], xc[1], xc[2], NULL, 0.0, causal, NULL,
                                                 NULL, lr, &oc, &lc, &rc));
                    attn_stats b0, b1;
                    attention_stats(&b0);
                    for (int rep = 0; rep < 2; rep++)
                        CT_OK(clops__fused_attention_backward(x[3], x[0], x[1], x[2], o, l, r,
                                                              NULL, 0.0, causal, NULL, lr, false,
                                                              &g[rep][0], &g[rep][1],
                                                              &g[rep][2], &g[rep][3]));
                    attention_stats(&b1);
                    CT_ASSERT_MSG((kind == WG_DQ ? b1.bwd_wgq - b0.bwd_wgq : b1.bwd_wg - b0.bwd_wg) == 2,
                                  "the backward did not take the %s", what);
                    CT_OK(clops__fused_attention_backward(xc[3], xc[0], xc[1], xc[2], oc, lc, rc,
                                                          NULL, 0.0, causal, NULL, lr, false,
                                                          &g[2][0], &g[2][1], &g[2][2],
                                                          &g[2][3]));
                    double gfloor = dt == CLOPS_BFLOAT16 ? 5e-2 : 1e-2;
                    for (int w = 0; w < 3; w++) {
                        CT_ASSERT_CLOSE(g[0][w], g[2][w], grad_tol(dt, gfloor, g[2][w]));
                        CT_ASSERT_CLOSE(g[1][w], g[0][w], CT_TOL_EXACT);
                    }
                    clops_tensor *rel[] = {o, l, r, oc, lc, rc};
                    for (size_t i = 0; i < CT_COUNT(rel); i++)
                        clops_tensor_release(rel[i]);
                    for (int i = 0; i < 4; i++) {
                        clops_tensor_release(x[i]);
                        clops_tensor_release(xc[i]);
                        for (int j = 0; j < 3; j++)
                            clops_tensor_release(g[j][i]);
                    }
                }
            }
        }
        set(-1);
    }
    ct_clear_context();
}

static void test_wgmma_bwd_choice(void **state)
{
    (void)state;
    wg_bwd_choice(WG_DKV);
}

/* The wgmma dQ's choice (docs/attention.md, "Hopper's wgmma: the dQ"), as
 * the dK/dV's above: off by default; switched on, only for 16-bit inputs
 * at head dims 64 and 128 on a Hopper after its known-answer check, once
 * per device, dtype and head dim; elsewhere (pretended to be a Hopper)
 * the check runs once and fails, and the backward keeps attn_bwd_dq_mma.
 * On a Hopper the backwards that take attn_bwd_dq_wg match the CPU
 * reference and give the same bits twice. */
static void test_wgmma_dq_choice(void **state)
{
    (void)state;
    wg_bwd_choice(WG_DQ);
}

/* The float32 forward on the tensor cores (attn_fwd_tf32, attn14;
 * docs/attention.md "The float32 forward on the tensor cores"): not while
 * off, not at head dims 32 or 256, nowhere but on NVIDIA devices of
 * compute capability 8.0 or later (no known-answer check runs elsewhere);
 * switched on there, its check passes once per head dim (asking again
 * runs none), and wg_probs' forwards (causal both alignments and not,
 * grouped heads, odd lengths, E = 100 padded to 128, transposed layouts:
 * element-wise tile loads) take it and match the CPU reference, output
 * within 3e-5 (or 64 ULP; 3xTF32's accumulation on the tensor cores:
 * check_case's 1e-5 for the FMA kernel failed once at 1.24e-5) and
 * logsumexp within check_case's tolerance; a boolean-masked problem keeps
 * attn_fwd.  Cheap on other devices (no kernel runs). */
static void test_tf32_forward(void **state)
{
    (void)state;
    /* the default (attn15): on, its sums promoted at level 3, unless the
     * environment says otherwise */
    const char *on_env = getenv("CLOPS_ATTN_TF32"), *pr_env = getenv("CLOPS_ATTN_TF32_PROMOTE");
    attention_set_tf32(-1);
    CT_ASSERT_MSG(attention_tf32_on() == !(on_env && strcmp(on_env, "0") == 0),
                  "attn_fwd_tf32 %s by default (CLOPS_ATTN_TF32 %s)",
                  attention_tf32_on() ? "on" : "off", on_env ? on_env : "unset");
    /* one digit 0-3 sets it; anything else keeps the default */
    bool pr_set = pr_env && pr_env[0] >= '0' && pr_env[0] <= '3' && pr_env[1] == '\0';
    CT_ASSERT_MSG(attention_tf32_promote() == (pr_set ? pr_env[0] - '0' : 3),
                  "attn_fwd_tf32's promotion %d (CLOPS_ATTN_TF32_PROMOTE %s)",
                  attention_tf32_promote(), pr_env ? pr_env : "unset");
    clops_device *devs[CT_MAX_DEVICES];
    int n = ct_opencl_devices(devs, CT_MAX_DEVICES);
    for (int di = 0; di < n; di++) {
        clops_device *d = devs[di];
        ct_set_device(d);
        bool cap = tf32_device(d);
        attn_stats s0, s1, s2;
        attention_stats(&s0);
        attention_set_tf32(0);
        CT_ASSERT_MSG(!attention_tf32_chosen(d, 64), "attn_fwd_tf32 chosen while off");
        attention_set_tf32(1);
        CT_ASSERT_MSG(!attention_tf32_chosen(d, 32) && !attention_tf32_chosen(d, 256),
                      "attn_fwd_tf32 chosen at head dim 32 or 256");
        if (!cap)
            CT_ASSERT_MSG(!attention_tf32_chosen(d, 64) && !attention_tf32_chosen(d, 128),
                          "attn_fwd_tf32 chosen on a device without mma.sync tf32");
        attention_stats(&s1);
        CT_ASSERT_MSG(s1.tf32_checks - s0.tf32_checks == 0,
                      "a known-answer check ran where attn_fwd_tf32 cannot run");
        if (cap) {
            for (int dp = 64; dp <= 128; dp *= 2)
                CT_ASSERT_MSG(attention_tf32_chosen(d, dp) && attention_tf32_chosen(d, dp),
                              "attn_fwd_tf32 failed its known-answer check at head dim %d", dp);
            attention_stats(&s2);
            CT_ASSERT_MSG(s2.tf32_fails == s1.tf32_fails && s2.tf32_checks - s1.tf32_checks <= 2,
                          "%llu known-answer checks, %llu failed",
                          (unsigned long long)(s2.tf32_checks - s1.tf32_checks),
                          (unsigned long long)(s2.tf32_fails - s1.tf32_fails));
            for (size_t pi = 0; pi < CT_COUNT(wg_probs); pi++) {
                const int64_t *pr = wg_probs[pi];
                clops_tensor *x[3], *xc[3];
                wg_case("attn_fwd_tf32", pr, CLOPS_FLOAT32, d, 3, x, xc);
                clops_tensor *o = NULL, *l = NULL, *r = NULL, *oc = NULL, *lc = NULL, *rc = NULL;
                attn_stats f0, f1;
                attention_stats(&f0);
                CT_OK(clops__fused_attention(x[0], x[1], x[2], NULL, 0.0, pr[5] != 0, NULL, NULL,
                                             pr[6] != 0, &o, &l, &r));
                attention_stats(&f1);
                CT_ASSERT_MSG(f1.fwd_tf32 - f0.fwd_tf32 == 1,
                              "the forward did not take attn_fwd_tf32");
                CT_OK(clops__fused_attention(xc[0], xc[1], xc[2], NULL, 0.0, pr[5] != 0, NULL,
                                             NULL, pr[6] != 0, &oc, &lc, &rc));
                /* 3xTF32 without promotion (CLOPS_ATTN_TF32_PROMOTE=0): attn14's
                 * H200 job measured 1.24e-5 (104 ULP, short in magnitude: the
                 * tensor cores' accumulation) on the third problem against
                 * check_case's 1e-5; promoted (the default) it passed 3e-5 */
                CT_ASSERT_CLOSE(o, oc, ct_tol_ulp_atol(64, 3e-5));
                CT_ASSERT_CLOSE(l, lc, ct_tol_ulp_atol(64, 2e-6));
                clops_tensor *rel[] = {x[0], x[1], x[2], xc[0], xc[1], xc[2], o, l, r, oc, lc, rc};
                for (size_t i = 0; i < CT_COUNT(rel); i++)
                    clops_tensor_release(rel[i]);
            }
            /* a boolean mask: the general problems keep attn_fwd */
            const attn_case *mc = &cases[3];
            int64_t qs[4], ks[4], vs[4];
            shapes(mc, qs, ks, vs);
            clops_tensor *q = ct_random(d, CLOPS_FLOAT32, mc->ndim, qs, CT_CONTIGUOUS,
                                        PW_DOMAIN_SMALL, 1);
            clops_tensor *k = ct_random(d, CLOPS_FLOAT32, mc->ndim, ks, CT_CONTIGUOUS,
                                        PW_DOMAIN_SMALL, 2);
            clops_tensor *v = ct_random(d, CLOPS_FLOAT32, mc->ndim, vs, CT_CONTIGUOUS,
                                        PW_DOMAIN_SMALL, 3);
            clops_tensor *m = mask_of(d, mc, CLOPS_FLOAT32), *o = NULL, *l = NULL, *r = NULL;
            attn_stats f0, f1;
            attention_stats(&f0);
            CT_OK(clops__fused_attention(q, k, v, m, 0.0, false, NULL, NULL, false, &o, &l, &r));
            attention_stats(&f1);
            CT_ASSERT_MSG(f1.fwd_tf32 == f0.fwd_tf32, "a masked forward took attn_fwd_tf32");
            clops_tensor *rel[] = {q, k, v, m, o, l, r};
            for (size_t i = 0; i < CT_COUNT(rel); i++)
                clops_tensor_release(rel[i]);
        }
        attention_set_tf32(-1);
    }
    ct_clear_context();
}

int main(void)
{
    /* CLOPS_TEST_FILTER (a cmocka glob) runs a subset (a GPU job's) */
    const char *filter = getenv("CLOPS_TEST_FILTER");
    if (filter && *filter)
        cmocka_set_test_filter(filter);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lean_visibility),
        cmocka_unit_test(test_kernels_match_the_reference),
        cmocka_unit_test_teardown(test_cpu_backward, cpu_bwd_reset),
        cmocka_unit_test(test_masked_rows_and_nan),
        cmocka_unit_test(test_sdpa_and_refusals),
        cmocka_unit_test(test_result_layouts),
        cmocka_unit_test(test_lean_and_general_bits),
        cmocka_unit_test(test_wgmma_choice),
        cmocka_unit_test(test_wgmma_bwd_choice),
        cmocka_unit_test(test_wgmma_dq_choice),
        cmocka_unit_test(test_tf32_forward),
    };
    return cmocka_run_group_tests(tests, NULL, ct_teardown_group);
}
