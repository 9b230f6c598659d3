/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench/bench_gemm.c: matrix-product throughput per OpenCL device, with
 * CLBlast's default kernel parameters and with the device's tuned ones
 * (clops tune gemm), measured in the same run and reported as a ratio.
 *
 *     bench_gemm [--device SEL]... [--dtype float32|float64|float16|bfloat16]
 *                [--tune SECONDS] [--big] [--gpt2] [--engine] [--reps-seconds S]
 *                [--sync-every N]
 *
 * Shapes (M x N x K; "b x" for a batch), on GPUs:
 *     square 1024 and 4096 (and 8192 with --big),
 *     transformer MLP 4096 x 4096 x 11008 (linear's down projection),
 *     attention scores 32 x 512 x 512 x 64 (bmm);
 * on CPU devices (POCL) the same set scaled down so a run takes seconds:
 *     square 256 and 512, 512 x 512 x 1376, 8 x 128 x 128 x 64.
 *
 * The run measures every shape with CLBlast's defaults first (the tuning
 * file is not applied until then), then applies the device's tuning file
 * (or, with --tune, searches for the given time first) and measures again:
 * absolute TFLOP/s on a shared machine are noise, the tuned/default ratio of
 * one run is the figure to keep.  With --engine the rows compare clops' own
 * engine (ops/gemm/gemm_engine.c) with CLBlast (its tuning file or shipped
 * parameters applied) instead, shape by shape in the same run.  Operands
 * are random, outputs preallocated
 * (mm.out / bmm.out), each figure the best of several timed rounds after a
 * warm-up call that also builds the programs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clops/matmul.h"
#include "clops/ops.h"
#include "core/debug.h"
#include "core/tensor_impl.h"
#include "ops/gemm/gemm.h"
#include "host/host.h"

typedef struct shape {
    const char *name;
    int64_t batch, m, n, k;
    bool bt; /* B given as the transpose of an [N, K] matrix (a linear layer's weight) */
} shape;

static const shape gpu_shapes[] = {
    {"square 1024", 1, 1024, 1024, 1024, false},          {"square 4096", 1, 4096, 4096, 4096, false},
    {"mlp 4096x4096x11008", 1, 4096, 4096, 11008, false}, {"attention 32x512x512x64", 32, 512, 512, 64, false},
    {"square 8192", 1, 8192, 8192, 8192, false},
};

/* GPT-2 124M at batch 8 x 512 tokens (transformers' Conv1D is addmm of
 * [4096, K] @ [K, N]): attention in-projection, out-projection, MLP up and
 * down, and the LM head. */
static const shape gpt2_shapes[] = {
    {"gpt2 c_attn 4096x2304x768", 1, 4096, 2304, 768, false},
    {"gpt2 c_proj 4096x768x768", 1, 4096, 768, 768, false},
    {"gpt2 c_fc 4096x3072x768", 1, 4096, 3072, 768, false},
    {"gpt2 mlp c_proj 4096x768x3072", 1, 4096, 768, 3072, false},
    {"gpt2 lm_head 4096x50257x768", 1, 4096, 50257, 768, false},
};

/* Decode-style products (M or N <= 16: the skinny path) and deep, narrow
 * ones (split K), with --skinny. */
static const shape skinny_shapes[] = {
    {"decode 1x4096x4096 (B^T)", 1, 1, 4096, 4096, true},
    {"decode 1x4096x4096", 1, 1, 4096, 4096, false},
    {"decode 8x4096x4096 (B^T)", 1, 8, 4096, 4096, true},
    {"decode 16x11008x4096 (B^T)", 1, 16, 11008, 4096, true},
    {"decode 1x4096x11008 (B^T)", 1, 1, 4096, 11008, true},
    {"N=1 4096x1x4096", 1, 4096, 1, 4096, false},
    {"deep 256x256x16384", 1, 256, 256, 16384, false},
    {"deep 512x512x8192", 1, 512, 512, 8192, false},
    {"deep 1024x768x16384", 1, 1024, 768, 16384, false},
};

/* The mma configurations' sweep (--sweep). */
static const shape sweep_shapes[] = {
    {"square 1024", 1, 1024, 1024, 1024, false},
    {"square 4096", 1, 4096, 4096, 4096, false},
    {"square 8192", 1, 8192, 8192, 8192, false},
    {"mlp 4096x4096x11008", 1, 4096, 4096, 11008, false},
    {"llama up 4096x11008x4096", 1, 4096, 11008, 4096, false},
    {"gpt2 c_attn 4096x2304x768", 1, 4096, 2304, 768, false},
    {"gpt2 c_proj 4096x768x768", 1, 4096, 768, 768, false},
    {"gpt2 c_fc 4096x3072x768", 1, 4096, 3072, 768, false},
    {"gpt2 mlp c_proj 4096x768x3072", 1, 4096, 768, 3072, false},
    {"attention 32x512x512x64", 32, 512, 512, 64, false},
    {"deep 1024x768x16384", 1, 1024, 768, 16384, false},
    {"decode 8x4096x4096 (B^T)", 1, 8, 4096, 4096, true},
};

static const shape cpu_shapes[] = {
    {"square 256", 1, 256, 256, 256, false},
    {"square 512", 1, 512, 512, 512, false},
    {"mlp 512x512x1376", 1, 512, 512, 1376, false},
    {"attention 8x128x128x64", 8, 128, 128, 64, false},
};

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* A tensor of uniform values in [-1, 1). */
static clops_status random_tensor(clops_device *d, clops_dtype dt, int nd, const int64_t *sizes,
                                  uint64_t seed, clops_tensor **out)
{
    int64_t n = 1;
    for (int i = 0; i < nd; i++)
        n *= sizes[i];
    size_t es = clops_dtype_size(dt);
    void *buf = malloc((size_t)n * es);
    if (!buf)
        return CLOPS_HOST_OUT_OF_MEMORY;
    for (int64_t i = 0; i < n; i++) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        double v = (double)(seed >> 11) / 9007199254740992.0 * 2 - 1;
        if (dt == CLOPS_FLOAT64)
            ((double *)buf)[i] = v;
        else if (dt == CLOPS_FLOAT16)
            ((uint16_t *)buf)[i] = clops_float_to_half((float)v);
        else if (dt == CLOPS_BFLOAT16)
            ((uint16_t *)buf)[i] = clops_float_to_bfloat16((float)v);
        else
            ((float *)buf)[i] = (float)v;
    }
    clops_status st = clops_from_host(d, dt, nd, sizes, buf, (size_t)n * es, out);
    free(buf);
    return st;
}

/* The operands of one shape. */
typedef struct problem {
    clops_tensor *a, *b, *c;
} problem;

/* --bt: every unbatched B given as a linear layer's weight (W^T, K-major),
 * the layout TF32 through wgmma takes. */
static bool all_bt;

/* --paths: each --engine row's engine launches by path (wgmma, mma, other
 * engine kernels, CLBlast), to the standard error: whether a product took
 * the path the column names (3xTF32 falls back to CLBlast where it does
 * not take a shape). */
static bool show_paths;

static clops_status make_problem(clops_device *d, clops_dtype dt, const shape *s, problem *p)
{
    memset(p, 0, sizeof *p);
    int nd = s->batch > 1 ? 3 : 2;
    int64_t sa[3], sb[3], sc[3];
    int64_t *dims[3] = {sa, sb, sc};
    int64_t rows[3] = {s->m, s->k, s->m}, cols[3] = {s->k, s->n, s->n};
    for (int i = 0; i < 3; i++) {
        if (nd == 3)
            dims[i][0] = s->batch;
        dims[i][nd - 2] = rows[i];
        dims[i][nd - 1] = cols[i];
    }
    clops_status st = random_tensor(d, dt, nd, sa, 1, &p->a);
    if (st == CLOPS_OK && (s->bt || (all_bt && nd == 2))) {
        /* B = W^T, W [N, K] row-major: a view with unit stride along K. */
        int64_t sw[2] = {s->n, s->k}, vs[2] = {s->k, s->n}, vst[2] = {1, s->k}, off = 0;
        clops_tensor *w = NULL;
        st = random_tensor(d, dt, 2, sw, 2, &w);
        if (st == CLOPS_OK)
            st = core_as_strided(w, vs, 2, vst, 2, &off, &p->b);
        clops_tensor_release(w);
    } else if (st == CLOPS_OK)
        st = random_tensor(d, dt, nd, sb, 2, &p->b);
    if (st == CLOPS_OK)
        st = clops_empty(d, dt, nd, sc, &p->c);
    return st;
}

static void free_problem(problem *p)
{
    clops_tensor_release(p->a);
    clops_tensor_release(p->b);
    clops_tensor_release(p->c);
    memset(p, 0, sizeof *p);
}

/* One product into the preallocated output. */
static clops_status run_once(const shape *s, problem *p)
{
    return s->batch > 1 ? clops_bmm_out(p->a, p->b, p->c) : clops_mm_out(p->a, p->b, p->c);
}

/* Calls between synchronisations in a timed round (--sync-every; 4 by
 * default: a queue drain every 4 calls, whose latency the figure pays). */
static int sync_every = 4;

/* TFLOP/s of a shape: warm-up, then the best of 3 rounds of at least
 * `secs` seconds each.  0 on failure (the error is printed). */
static double measure(clops_device *d, const shape *s, problem *p, double secs)
{
    clops_status st = run_once(s, p);
    if (st == CLOPS_OK)
        st = clops_device_synchronize(d);
    if (st) {
        fprintf(stderr, "bench_gemm: %s on %s: %s\n", s->name, d->label, clops_last_error());
        return 0;
    }
    double flops = 2.0 * (double)s->batch * (double)s->m * (double)s->n * (double)s->k;
    double best = 0;
    for (int round = 0; round < 3; round++) {
        int reps = 0;
        double t0 = now_seconds(), el = 0;
        while (el < secs || reps < 2) {
            if ((st = run_once(s, p)) != CLOPS_OK)
                break;
            reps++;
            if (reps % sync_every == 0 || el + 0.001 >= secs) {
                clops_device_synchronize(d);
                el = now_seconds() - t0;
            }
        }
        clops_device_synchronize(d);
        el = now_seconds() - t0;
        if (st) {
            fprintf(stderr, "bench_gemm: %s on %s: %s\n", s->name, d->label, clops_last_error());
            return 0;
        }
        double tf = flops * reps / el * 1e-12;
        if (tf > best)
            best = tf;
    }
    return best;
}

/* The largest |engine - CLBlast| over C of problem p (both computed here;
 * -1 when either failed). */
static double diff_vs_clblast(clops_device *d, const shape *s, problem *p)
{
    size_t n = (size_t)(s->batch * s->m * s->n), es = clops_dtype_size(p->c->dtype);
    void *e = malloc(n * es), *r = malloc(n * es);
    double worst = -1;
    if (e && r && run_once(s, p) == CLOPS_OK && clops_tensor_to_host(p->c, e, n * es) == CLOPS_OK) {
        gemm_engine_set_enabled(false);
        clops_status st = run_once(s, p);
        gemm_engine_set_enabled(true);
        if (st == CLOPS_OK && clops_tensor_to_host(p->c, r, n * es) == CLOPS_OK) {
            worst = 0;
            for (size_t i = 0; i < n; i++) {
                double x, y;
                if (es == 4)
                    x = ((float *)e)[i], y = ((float *)r)[i];
                else if (p->c->dtype == CLOPS_FLOAT16)
                    x = clops_half_to_float(((uint16_t *)e)[i]),
                    y = clops_half_to_float(((uint16_t *)r)[i]);
                else
                    x = clops_bfloat16_to_float(((uint16_t *)e)[i]),
                    y = clops_bfloat16_to_float(((uint16_t *)r)[i]);
                double dd = x > y ? x - y : y - x;
                if (dd > worst || dd != dd)
                    worst = dd;
            }
        }
    }
    (void)d;
    free(e);
    free(r);
    return worst;
}

/* Every mma configuration (the debug setting gemm.config) on the sweep
 * shapes, TFLOP/s, and its largest difference from CLBlast on square 1024
 * (bfloat16/float16: about K * 2^-8 at most from the two roundings of C). */
/* The next entry of the comma-separated list at *p into out (cap bytes),
 * *p moved past it; false at the list's end.  An empty entry or one too
 * long for out comes back as "". */
static bool next_entry(const char **p, char *out, size_t cap)
{
    if (!**p)
        return false;
    size_t n = strcspn(*p, ",");
    out[0] = '\0';
    if (n < cap) {
        memcpy(out, *p, n);
        out[n] = '\0';
    }
    *p += n + ((*p)[n] == ',');
    return true;
}

/* Whether name begins with (contains: contains) one of the comma-separated
 * entries of list (NULL: every name). */
static bool listed(const char *name, const char *list, bool contains)
{
    if (!list)
        return true;
    char want[128];
    for (const char *p = list; next_entry(&p, want, sizeof want);) {
        size_t n = strlen(want);
        if (n == 0)
            continue;
        /* ("name$": that name exactly) */
        bool exact = !contains && want[n - 1] == '$';
        if (exact ? strlen(name) == n - 1 && strncmp(name, want, n - 1) == 0
                  : contains ? strstr(name, want) != NULL
                             : strncmp(name, want, n) == 0)
            return true;
    }
    return false;
}

/* --variants (engine13): each configuration's row once per float32 TF32
 * variant of the comma-separated list, switched between rows in the same
 * process: "round" (each staged tile rounded to TF32 by a pass), "trunc"
 * (read as staged: WG_TF32_TRUNC), "tma" (converted by the TMA copy in
 * TMA configurations), "xt" and "xt-trunc" (round and trunc with M/N-major
 * operands transposed into K-major tiles: WG_XT), "noxt" (the conversion
 * as set, no transposition), "x3nt" and "x3plain" (3xTF32's N-major B in
 * landing tiles that the split transposes, or plain loads in K-major
 * order: gemm_engine_set_3xtf32_nt, x3xt14); NULL: one row as the
 * environment says.
 * --sweep-default: a "default" row first (no configuration forced). */
static const char *variants;
static bool sweep_default;

static bool set_variant(const char *v)
{
    if (strcmp(v, "round") == 0 || strcmp(v, "trunc") == 0 || strcmp(v, "tma") == 0) {
        gemm_engine_set_tf32_convert(v[0] == 'r'   ? GEMM_TF32_PASS
                                     : v[1] == 'r' ? GEMM_TF32_TRUNC
                                                   : GEMM_TF32_TMA);
        gemm_engine_set_wgmma_tf32_xt(false);
    } else if (strcmp(v, "xt") == 0 || strcmp(v, "xt-trunc") == 0) {
        gemm_engine_set_tf32_convert(v[2] == '-' ? GEMM_TF32_TRUNC : GEMM_TF32_PASS);
        gemm_engine_set_wgmma_tf32_xt(true);
    } else if (strcmp(v, "noxt") == 0) {
        gemm_engine_set_wgmma_tf32_xt(false);
    } else if (strcmp(v, "x3nt") == 0 || strcmp(v, "x3plain") == 0) {
        gemm_engine_set_3xtf32_nt(v[2] == 'n');
    } else
        return false;
    return true;
}

static void sweep_row(clops_device *d, clops_dtype dt, double rsecs, const char *shapes, int c,
                      const char *variant);

static void sweep_configs(clops_device *d, clops_dtype dt, double rsecs, const char *prefix,
                          const char *shapes)
{
    int nsh = (int)(sizeof sweep_shapes / sizeof sweep_shapes[0]);
    printf("| config | max diff vs CLBlast (1024^3) |");
    for (int i = 0; i < nsh; i++)
        if (listed(sweep_shapes[i].name, shapes, true))
            printf(" %s |", sweep_shapes[i].name);
    printf("\n| --- | ---: |");
    for (int i = 0; i < nsh; i++)
        if (listed(sweep_shapes[i].name, shapes, true))
            printf(" ---: |");
    printf("\n");
    fflush(stdout);
    for (int c = sweep_default ? -1 : 0; c < gemm_engine_config_count(); c++) {
        if (c >= 0 && !listed(gemm_engine_config_name(c), prefix, false))
            continue;
        if (!variants) {
            sweep_row(d, dt, rsecs, shapes, c, NULL);
            continue;
        }
        char one[16];
        for (const char *v = variants; next_entry(&v, one, sizeof one);) {
            if (set_variant(one))
                sweep_row(d, dt, rsecs, shapes, c, one);
            else if (one[0])
                printf("| %s [%s] | unknown variant |\n",
                       c < 0 ? "default" : gemm_engine_config_name(c), one);
        }
    }
    clops_debug_set("gemm.config", 0);
}

/* One row of the sweep: configuration c forced (-1: the default). */
static void sweep_row(clops_device *d, clops_dtype dt, double rsecs, const char *shapes, int c,
                      const char *variant)
{
    int nsh = (int)(sizeof sweep_shapes / sizeof sweep_shapes[0]);
    {
        clops_debug_set("gemm.config", c + 1);
        gemm_engine_stats s0, s1;
        gemm_engine_get_stats(&s0);
        printf("| %s%s%s%s |", c < 0 ? "default" : gemm_engine_config_name(c),
               variant ? " [" : "", variant ? variant : "", variant ? "]" : "");
        problem p;
        if (make_problem(d, dt, &sweep_shapes[0], &p) == CLOPS_OK)
            printf(" %.3g |", diff_vs_clblast(d, &sweep_shapes[0], &p));
        else
            printf(" - |");
        free_problem(&p);
        fflush(stdout);
        for (int i = 0; i < nsh; i++) {
            double t = 0;
            if (!listed(sweep_shapes[i].name, shapes, true))
                continue;
            if (make_problem(d, dt, &sweep_shapes[i], &p) == CLOPS_OK)
                t = measure(d, &sweep_shapes[i], &p, rsecs);
            free_problem(&p);
            printf(" %.1f |", t);
            fflush(stdout);
        }
        gemm_engine_get_stats(&s1);
        printf(" (mma %llu, of them wgmma %llu, fma %llu, clblast %llu, checks failed %llu)\n",
               (unsigned long long)(s1.mma_calls - s0.mma_calls),
               (unsigned long long)(s1.wgmma_calls - s0.wgmma_calls),
               (unsigned long long)(s1.fma_calls - s0.fma_calls),
               (unsigned long long)(s1.clblast_calls - s0.clblast_calls),
               (unsigned long long)(s1.canary_failures - s0.canary_failures));
        fflush(stdout);
    }
    clops_debug_set("gemm.config", 0);
}

static void usage(void)
{
    fprintf(stderr, "usage: bench_gemm [--device SEL]... "
                    "[--dtype float32|float64|float16|bfloat16] [--tune SECONDS] [--big] "
                    "[--gpt2] [--engine] [--skinny] [--sweep [--sweep-prefix P,..] [--sweep-shape S,..] [--sweep-default] "
                    "[--variants round,trunc,tma,xt,xt-trunc,noxt,x3nt,x3plain]] [--bt] [--paths] "
                    "[--reps-seconds S] [--sync-every N]\n");
}

int main(int argc, char **argv)
{
    const char *sels[16];
    int nsel = 0;
    clops_dtype dt = CLOPS_FLOAT32;
    double tune = 0, secs = -1;
    bool big = false, gpt2 = false, engine = false, skinny = false, sweep = false;
    /* --sweep-prefix / --sweep-shape: only the configurations whose names
     * begin so ("name$": that one exactly) / the shapes whose names contain
     * one of the strings */
    const char *prefix = NULL, *sshapes = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--device") == 0 && i + 1 < argc && nsel < 16)
            sels[nsel++] = argv[++i];
        else if (strcmp(argv[i], "--dtype") == 0 && i + 1 < argc) {
            if (clops_dtype_from_name(argv[++i], &dt) != CLOPS_OK ||
                !clops_dtype_is_floating(dt)) {
                usage();
                return 2;
            }
        }
        else if (strcmp(argv[i], "--engine") == 0)
            engine = true;
        else if (strcmp(argv[i], "--tune") == 0 && i + 1 < argc)
            tune = atof(argv[++i]);
        else if (strcmp(argv[i], "--reps-seconds") == 0 && i + 1 < argc)
            secs = atof(argv[++i]);
        else if (strcmp(argv[i], "--sync-every") == 0 && i + 1 < argc) {
            sync_every = atoi(argv[++i]);
            if (sync_every < 1 || sync_every > 1000000) {
                usage();
                return 2;
            }
        }
        else if (strcmp(argv[i], "--big") == 0)
            big = true;
        else if (strcmp(argv[i], "--gpt2") == 0)
            gpt2 = true;
        else if (strcmp(argv[i], "--skinny") == 0)
            skinny = engine = true;
        else if (strcmp(argv[i], "--sweep") == 0)
            sweep = engine = true;
        else if (strcmp(argv[i], "--sweep-prefix") == 0 && i + 1 < argc)
            prefix = argv[++i], sweep = engine = true;
        else if (strcmp(argv[i], "--paths") == 0)
            show_paths = true;
        else if (strcmp(argv[i], "--bt") == 0)
            all_bt = true;
        else if (strcmp(argv[i], "--sweep-shape") == 0 && i + 1 < argc)
            sshapes = argv[++i], sweep = engine = true;
        else if (strcmp(argv[i], "--variants") == 0 && i + 1 < argc)
            variants = argv[++i], sweep = engine = true;
        else if (strcmp(argv[i], "--sweep-default") == 0)
            sweep_default = sweep = engine = true;
        else {
            usage();
            return 2;
        }
    }
    /* Defaults first: the tuning file waits until they are measured (not
     * with --engine, where CLBlast runs as clops uses it). */
    blas_tune_set_autoload(engine);
    clops_device *devs[64];
    int nd = 0, count = 0;
    if (clops_device_count(&count)) {
        fprintf(stderr, "bench_gemm: %s\n", clops_last_error());
        return 3;
    }
    if (nsel == 0) {
        for (int i = 1; i < count && nd < 64; i++)
            clops_device_get(i, &devs[nd++]);
    } else {
        for (int i = 0; i < nsel; i++)
            if (clops_device_find(sels[i], &devs[nd]) == CLOPS_OK && !host_is_cpu(devs[nd]))
                nd++;
            else
                fprintf(stderr, "bench_gemm: skipping '%s': %s\n", sels[i],
                        clops_last_error()[0] ? clops_last_error() : "not an OpenCL device");
    }
    if (nd == 0) {
        fprintf(stderr, "bench_gemm: no OpenCL device (%s)\n", clops_device_discovery_note());
        return 3;
    }
    if (engine)
        printf("# GEMM throughput, %s: clops' engine vs CLBlast %s in one run\n",
               clops_dtype_name(dt), blas_clblast_version());
    else
        printf("# GEMM throughput, %s, CLBlast %s: default vs tuned parameters in one run\n",
               clops_dtype_name(dt), blas_clblast_version());
    for (int di = 0; di < nd; di++) {
        clops_device *d = devs[di];
        if (dt == CLOPS_FLOAT64 && !d->info.fp64) {
            printf("\n## %s (%s): no float64\n", d->label, d->info.name);
            continue;
        }
        bool gpu = d->info.is_gpu;
        const shape *shapes = skinny ? skinny_shapes
                              : gpt2 ? gpt2_shapes
                              : gpu  ? gpu_shapes
                                     : cpu_shapes;
        int ns = skinny ? (int)(sizeof skinny_shapes / sizeof skinny_shapes[0])
                 : gpt2 ? 5
                 : gpu  ? (big ? 5 : 4)
                        : 4;
        double rsecs = secs > 0 ? secs : (gpu ? 0.2 : 0.5);
        double def[8] = {0}, tuned[8] = {0};
        printf("\n## %s (%s, %s)\n", d->label, d->info.name, d->info.driver_version);
        fflush(stdout);
        if (sweep) {
            sweep_configs(d, dt, rsecs, prefix, sshapes);
            continue;
        }
        if (engine) {
            printf("| shape (b x M x N x K) | engine (%s) TFLOP/s | CLBlast TFLOP/s | "
                   "engine/CLBlast |\n| --- | ---: | ---: | ---: |\n",
                   dt == CLOPS_FLOAT32 && gemm_engine_3xtf32_candidate(d) &&
                           strcmp(clops_get_float32_matmul_precision(), "highest") == 0
                       ? "3xTF32 where it takes the shape, else CLBlast"
                       : gemm_engine_path(d, dt));
            for (int i = 0; i < ns; i++) {
                problem p;
                double te = 0, tb = 0;
                gemm_engine_stats s0, s1;
                gemm_engine_get_stats(&s0);
                if (make_problem(d, dt, &shapes[i], &p) == CLOPS_OK) {
                    te = measure(d, &shapes[i], &p, rsecs);
                    gemm_engine_get_stats(&s1);
                    if (show_paths)
                        fprintf(stderr,
                                "bench_gemm: %s: engine launches: wgmma %llu, mma %llu, fma/cpu/"
                                "skinny %llu, CLBlast %llu\n",
                                shapes[i].name,
                                (unsigned long long)(s1.wgmma_calls - s0.wgmma_calls),
                                (unsigned long long)(s1.mma_calls - s0.mma_calls),
                                (unsigned long long)(s1.fma_calls - s0.fma_calls + s1.cpu_calls -
                                                     s0.cpu_calls + s1.skinny_calls -
                                                     s0.skinny_calls),
                                (unsigned long long)(s1.clblast_calls - s0.clblast_calls));
                    gemm_engine_set_enabled(false);
                    tb = measure(d, &shapes[i], &p, rsecs);
                    gemm_engine_set_enabled(true);
                } else {
                    fprintf(stderr, "bench_gemm: %s: %s\n", shapes[i].name, clops_last_error());
                }
                free_problem(&p);
                printf("| %s | %.3f | %.3f | %.2fx |\n", shapes[i].name, te, tb,
                       tb > 0 ? te / tb : 0.0);
                fflush(stdout);
            }
            continue;
        }
        for (int i = 0; i < ns; i++) {
            problem p;
            if (make_problem(d, dt, &shapes[i], &p) == CLOPS_OK)
                def[i] = measure(d, &shapes[i], &p, rsecs);
            else
                fprintf(stderr, "bench_gemm: %s: %s\n", shapes[i].name, clops_last_error());
            free_problem(&p);
        }
        bool applied = false;
        blas_tune_apply(d, &applied);
        if (!applied && tune > 0) {
            blas_tune_options o;
            memset(&o, 0, sizeof o);
            o.skip_float64 = dt != CLOPS_FLOAT64;
            o.skip_float32 = dt == CLOPS_FLOAT64;
            fprintf(stderr, "bench_gemm: no tuning file for %s; tuning for %.0f s\n", d->label,
                    tune);
            if (blas_tune_gemm(d, tune, stderr, &o) == CLOPS_OK)
                applied = true;
            else
                fprintf(stderr, "bench_gemm: tuning failed: %s\n", clops_last_error());
        }
        if (applied)
            for (int i = 0; i < ns; i++) {
                problem p;
                if (make_problem(d, dt, &shapes[i], &p) == CLOPS_OK)
                    tuned[i] = measure(d, &shapes[i], &p, rsecs);
                free_problem(&p);
            }
        printf("| shape (b x M x N x K) | default TFLOP/s | tuned TFLOP/s | tuned/default |\n");
        printf("| --- | ---: | ---: | ---: |\n");
        for (int i = 0; i < ns; i++) {
            if (applied && def[i] > 0 && tuned[i] > 0)
                printf("| %s | %.3f | %.3f | %.2fx |\n", shapes[i].name, def[i], tuned[i],
                       tuned[i] / def[i]);
            else
                printf("| %s | %.3f | %s | - |\n", shapes[i].name, def[i],
                       applied ? "failed" : "no tuning file");
        }
        if (!applied)
            printf("(no tuning file for this device: run `clops tune gemm --device %s`, or "
                   "pass --tune SECONDS)\n",
                   d->label);
        fflush(stdout);
    }
    clops_shutdown();
    return 0;
}
