/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench/gemm_accuracy.c: the float32 products of one OpenCL device on the
 * same random inputs, written out for bench/gemm_accuracy.py, which
 * compares them (and cuBLAS's, with TF32 off and on) with a float64
 * reference (issue 29: 3xTF32 must be at least as accurate as an FMA
 * SGEMM; docs/gemm.md "Hopper: 3xTF32 for \"highest\"").
 *
 *     gemm_accuracy [--device SEL] [--m M] [--n N] [--k K] [--bn] [--uniform] [--tf32-only]
 *                   [--only NAME,..] --out DIR
 *
 * A [M, K] and W [N, K] (N(0, 1), Box-Muller from a fixed seed; with
 * --uniform, uniform(0, 1): operands of one sign, where no cancellation
 * hides an accumulation's bias) go to
 * DIR/a.f32 and DIR/w.f32; C = A @ B with B = W^T (a linear layer's weight,
 * K-major) or, with --bn, B = W^T copied into an [K, N] row-major matrix
 * (N-major), computed
 *   clblast  the engine off ("highest" as before: CLBlast's SGEMM),
 *   3xtf32   "highest" with 3xTF32 switched on (gemm_engine_set_3xtf32),
 *            no promotion (CLOPS_GEMM_3XTF32_PROMOTE=0),
 *   3xtf32p  the same with promotion every K tile (CLOPS_GEMM_3XTF32_PROMOTE=1),
 *   3xtf32p2, 3xtf32p4, 3xtf32p8  promotion every 2, 4, 8 K tiles (engine12),
 *   3xtf32p1h2, 3xtf32p2h2, 3xtf32p2h4, 3xtf32p2h4o  promotion every 1 or 2
 *            K tiles of 8 in 2, 4 or 4 overlapped column passes
 *            (CLOPS_GEMM_3XTF32_PASSES, x3-13; the others with it 0);
 *            with --bn the N-major B in landing tiles that the split
 *            transposes (x3xt14, gemm_engine_set_3xtf32_nt),
 *   3xtf32p2h2plain  (--bn only) 3xtf32p2h2 with x3-13's staging of the
 *            N-major B (plain loads in K-major order): the same bits,
 *   tf32     "high" (TF32 on the tensor cores), each staged tile rounded to
 *            TF32 (to nearest, ties away) by a pass (GEMM_TF32_PASS),
 *   tf32trunc  "high" with the float32 bits read as staged (the tensor
 *            cores truncate; engine13, GEMM_TF32_TRUNC),
 *   tf32tma  "high" with the TMA copy converting to TF32 (ties to even)
 *            where the tiles come through TMA (GEMM_TF32_TMA, the default
 *            since engine14; not --bn: B N-major float32
 *            takes no TMA tiles),
 *   tf32xt, tf32xttrunc  (--bn only) the same two with the N-major B
 *            transposed into K-major tiles on wgmma (engine13, WG_XT;
 *            without it such a B takes mma.sync, rounded),
 * each to DIR/c_<name>.f32, with the engine's launch counters printed
 * (so a product that fell back shows).  --tf32-only: clblast and the tf32
 * runs, no 3xTF32 (engine13's job: no 3xTF32 programs to build); --only
 * NAME,..: those runs only (x3xt14's job: clblast, 3xtf32p2h2 and
 * 3xtf32p2h2plain).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accuracy_io.h"
#include "clops/matmul.h"
#include "clops/ops.h"
#include "core/tensor_impl.h"
#include "host/host.h"
#include "ops/gemm/gemm.h"

#define PROG "gemm_accuracy"

/* Whether name is an entry of the comma-separated list (--only). */
static bool listed(const char *list, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = list; *p;) {
        const char *e = strchr(p, ',');
        size_t l = e ? (size_t)(e - p) : strlen(p);
        if (l == n && strncmp(p, name, n) == 0)
            return true;
        p += l + (e != NULL);
    }
    return false;
}

int main(int argc, char **argv)
{
    const char *sel = "nvidia", *out = NULL, *only = NULL;
    int64_t m = 2048, n = 2048, k = 4096;
    bool bn = false, uni = false, tf32_only = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--device") == 0 && i + 1 < argc)
            sel = argv[++i];
        else if (strcmp(argv[i], "--m") == 0 && i + 1 < argc)
            m = atoll(argv[++i]);
        else if (strcmp(argv[i], "--n") == 0 && i + 1 < argc)
            n = atoll(argv[++i]);
        else if (strcmp(argv[i], "--k") == 0 && i + 1 < argc)
            k = atoll(argv[++i]);
        else if (strcmp(argv[i], "--bn") == 0)
            bn = true;
        else if (strcmp(argv[i], "--uniform") == 0)
            uni = true;
        else if (strcmp(argv[i], "--tf32-only") == 0)
            tf32_only = true;
        else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc)
            only = argv[++i];
        else if (strcmp(argv[i], "--out") == 0 && i + 1 < argc)
            out = argv[++i];
        else {
            fprintf(stderr, "usage: gemm_accuracy [--device SEL] [--m M] [--n N] [--k K] [--bn] "
                            "[--uniform] [--tf32-only] [--only NAME,..] --out DIR\n");
            return 2;
        }
    }
    if (!out || m <= 0 || n <= 0 || k <= 0 || m > 65536 || n > 65536 || k > 65536) {
        fprintf(stderr, "gemm_accuracy: --out DIR and sizes 1..65536 needed\n");
        return 2;
    }
    clops_device *d = NULL;
    if (clops_device_find(sel, &d) != CLOPS_OK) {
        fprintf(stderr, "gemm_accuracy: %s: %s\n", sel, clops_last_error());
        return 3;
    }
    size_t na = (size_t)(m * k), nw = (size_t)(n * k), nc = (size_t)(m * n);
    float *a = malloc(na * 4), *w = malloc(nw * 4), *bt = malloc(nw * 4), *c = malloc(nc * 4);
    if (!a || !w || !bt || !c)
        return 4;
    uint64_t s = 29;
    for (size_t i = 0; i < na; i++)
        a[i] = (float)(uni ? acc_uniform(&s) : acc_normal(&s));
    for (size_t i = 0; i < nw; i++)
        w[i] = (float)(uni ? acc_uniform(&s) : acc_normal(&s));
    for (int64_t kk = 0; kk < k; kk++)
        for (int64_t j = 0; j < n; j++)
            bt[kk * n + j] = w[j * k + kk];
    if (acc_save(PROG, out, "a.f32", a, na * 4) || acc_save(PROG, out, "w.f32", w, nw * 4))
        return 5;
    int64_t sa[2] = {m, k}, sw[2] = {n, k}, sb[2] = {k, n}, sc[2] = {m, n};
    int64_t vs[2] = {k, n}, vst[2] = {1, k}, off = 0;
    clops_tensor *ta = NULL, *tw = NULL, *tb = NULL, *tc = NULL;
    clops_status st = clops_from_host(d, CLOPS_FLOAT32, 2, sa, a, na * 4, &ta);
    if (!st && !bn) {
        st = clops_from_host(d, CLOPS_FLOAT32, 2, sw, w, nw * 4, &tw);
        if (!st)
            st = core_as_strided(tw, vs, 2, vst, 2, &off, &tb);
    } else if (!st) {
        st = clops_from_host(d, CLOPS_FLOAT32, 2, sb, bt, nw * 4, &tb);
    }
    if (!st)
        st = clops_empty(d, CLOPS_FLOAT32, 2, sc, &tc);
    if (st) {
        fprintf(stderr, "gemm_accuracy: %s\n", clops_last_error());
        return 6;
    }
    /* (each run: its name, CLOPS_GEMM_3XTF32_PROMOTE (NULL: 3xTF32 off, the
     * variable unset), CLOPS_GEMM_3XTF32_PASSES and float32 precision; the
     * engine off for the first) */
    /* (trunc, xt: TF32 read as staged, M/N-major operands transposed on
     * wgmma; xt runs only with --bn) */
    static const struct {
        const char *name, *period, *passes, *precision;
        int convert;
        bool xt, plain;
    } runs[] = {{"clblast", NULL, "0", "highest", GEMM_TF32_PASS, false, false},
                {"3xtf32", "0", "0", "highest", GEMM_TF32_PASS, false, false},
                {"3xtf32p", "1", "0", "highest", GEMM_TF32_PASS, false, false},
                {"3xtf32p2", "2", "0", "highest", GEMM_TF32_PASS, false, false},
                {"3xtf32p4", "4", "0", "highest", GEMM_TF32_PASS, false, false},
                {"3xtf32p8", "8", "0", "highest", GEMM_TF32_PASS, false, false},
                {"3xtf32p1h2", "1", "2", "highest", GEMM_TF32_PASS, false, false},
                {"3xtf32p2h2", "2", "2", "highest", GEMM_TF32_PASS, false, false},
                {"3xtf32p2h4", "2", "4", "highest", GEMM_TF32_PASS, false, false},
                {"3xtf32p2h4o", "2", "4o", "highest", GEMM_TF32_PASS, false, false},
                {"3xtf32p2h2plain", "2", "2", "highest", GEMM_TF32_PASS, false, true},
                {"tf32", NULL, "0", "high", GEMM_TF32_PASS, false, false},
                {"tf32trunc", NULL, "0", "high", GEMM_TF32_TRUNC, false, false},
                {"tf32tma", NULL, "0", "high", GEMM_TF32_TMA, false, false},
                {"tf32xt", NULL, "0", "high", GEMM_TF32_PASS, true, false},
                {"tf32xttrunc", NULL, "0", "high", GEMM_TF32_TRUNC, true, false}};
    printf("gemm_accuracy: %s (%s), %lld x %lld x %lld, B %s, %s inputs\n", d->label,
           d->info.name, (long long)m, (long long)n, (long long)k,
           bn ? "N-major" : "K-major (W^T)", uni ? "uniform(0, 1)" : "N(0, 1)");
    for (size_t r = 0; r < sizeof runs / sizeof runs[0]; r++) {
        if (((runs[r].xt || runs[r].plain) && !bn) || (tf32_only && runs[r].period) ||
            (bn && runs[r].convert == GEMM_TF32_TMA) || (only && !listed(only, runs[r].name)))
            continue;
        gemm_engine_set_tf32_convert(runs[r].convert);
        gemm_engine_set_wgmma_tf32_xt(runs[r].xt);
        gemm_engine_set_3xtf32_nt(!runs[r].plain);
        gemm_engine_set_enabled(r != 0);
        gemm_engine_set_3xtf32(runs[r].period != NULL);
        if (runs[r].period)
            setenv("CLOPS_GEMM_3XTF32_PROMOTE", runs[r].period, 1);
        else
            unsetenv("CLOPS_GEMM_3XTF32_PROMOTE");
        setenv("CLOPS_GEMM_3XTF32_PASSES", runs[r].passes, 1);
        clops_set_float32_matmul_precision(runs[r].precision);
        gemm_engine_stats s0, s1;
        gemm_engine_get_stats(&s0);
        st = clops_mm_out(ta, tb, tc);
        if (!st)
            st = clops_tensor_to_host(tc, c, nc * 4);
        gemm_engine_get_stats(&s1);
        if (st) {
            fprintf(stderr, "gemm_accuracy: %s: %s\n", runs[r].name, clops_last_error());
            return 7;
        }
        printf("%s: wgmma %llu, mma %llu, clblast %llu launches, canary failures %llu\n",
               runs[r].name, (unsigned long long)(s1.wgmma_calls - s0.wgmma_calls),
               (unsigned long long)(s1.mma_calls - s0.mma_calls),
               (unsigned long long)(s1.clblast_calls - s0.clblast_calls),
               (unsigned long long)(s1.canary_failures - s0.canary_failures));
        char name[32];
        snprintf(name, sizeof name, "c_%s.f32", runs[r].name);
        if (acc_save(PROG, out, name, c, nc * 4))
            return 5;
    }
    gemm_engine_set_enabled(true);
    gemm_engine_set_3xtf32(false);
    clops_tensor_release(ta);
    clops_tensor_release(tw);
    clops_tensor_release(tb);
    clops_tensor_release(tc);
    free(a), free(w), free(bt), free(c);
    clops_shutdown();
    return 0;
}
