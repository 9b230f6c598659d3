/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench/bench_common.h: what every clops benchmark shares: a monotonic
 * clock, the median-of-batches timer, and the device's copy peak (a plain
 * float4 copy kernel), against which each figure is given as a ratio.
 * Header-only (static functions): each bench program is its own executable.
 */
#ifndef CLOPS_BENCH_COMMON_H
#define CLOPS_BENCH_COMMON_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clops/tensor.h"
#include "host/host.h"

/* Seconds on a monotonic clock; with CLOPS_BENCH_CLOCK=cpu, the CPU time
 * of the whole process instead (every thread: POCL's workers too), for
 * comparing two clops builds on an overloaded machine, where wall time
 * mostly measures the wait for a core.  Not comparable with PyTorch's wall
 * times (its OpenMP threads spin while they wait). */
static inline double now(void)
{
    static int cpu = -1;
    if (cpu < 0) {
        const char *e = getenv("CLOPS_BENCH_CLOCK");
        cpu = e && strcmp(e, "cpu") == 0;
    }
    struct timespec t;
    clock_gettime(cpu ? CLOCK_PROCESS_CPUTIME_ID : CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Ascending order of doubles. */
static inline int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Median seconds per call over `batches` batches of `reps` calls. */
static inline double time_calls(clops_device *d, clops_status (*run)(void *), void *ctx, int reps,
                         int batches, clops_status *st)
{
    double t[16];
    if (batches > 16)
        batches = 16;
    *st = run(ctx); /* warm-up: compiles */
    if (*st == CLOPS_OK)
        *st = clops_device_synchronize(d);
    for (int b = 0; b < batches && *st == CLOPS_OK; b++) {
        double t0 = now();
        for (int r = 0; r < reps && *st == CLOPS_OK; r++)
            *st = run(ctx);
        if (*st == CLOPS_OK)
            *st = clops_device_synchronize(d);
        t[b] = (now() - t0) / reps;
    }
    qsort(t, (size_t)batches, sizeof t[0], cmp_double);
    return t[batches / 2];
}

/* ---- the copy peak ------------------------------------------------------- */

typedef struct copy_ctx {
    clops_device *d;
    host_kernel *k;
    cl_mem src, dst;
    cl_ulong n4;
} copy_ctx;

/* A grid-stride loop on GPUs; on CPU devices (d->chunked) a contiguous
 * chunk per work item, the launch policy clops' own kernels use there. */
static const char copy_src[] =
    "__kernel void bench_copy4(__global float4 *dst, __global const float4 *src, ulong n)\n"
    "{\n"
    "    for (ulong i = get_global_id(0); i < n; i += get_global_size(0))\n"
    "        dst[i] = src[i];\n"
    "}\n";
static const char copy_src_chunked[] =
    "__kernel void bench_copy4(__global float4 *dst, __global const float4 *src, ulong n)\n"
    "{\n"
    "    ulong per = (n + get_global_size(0) - 1) / get_global_size(0);\n"
    "    ulong lo = get_global_id(0) * per, hi = min(lo + per, n);\n"
    "    for (ulong i = lo; i < hi; i++)\n"
    "        dst[i] = src[i];\n"
    "}\n";

static inline clops_status copy_source(void *ctx, const clops_device *d, strbuf *sb)
{
    (void)ctx;
    sb_append(sb, d->chunked ? copy_src_chunked : copy_src);
    return CLOPS_OK;
}

static inline clops_status run_copy(void *vctx)
{
    copy_ctx *c = vctx;
    host_arg args[3] = {{sizeof c->dst, &c->dst}, {sizeof c->src, &c->src}, {sizeof c->n4, &c->n4}};
    if (c->d->chunked)
        return host_launch_chunked(c->d, c->k, 3, args, c->n4);
    return host_launch(c->d, c->k, 3, args, host_grid_size(c->d, c->k, c->n4));
}

/* Measures the copy peak of d in GB/s (0 on failure). */
static inline double copy_peak(clops_device *d, int64_t n1, int reps)
{
    copy_ctx c = {0};
    c.d = d;
    c.n4 = (cl_ulong)(n1 / 4);
    size_t bytes = (size_t)n1 * 4;
    host_block *src = NULL, *dst = NULL;
    host_kkey key = {{0x62656e6368636f70ull, 1, 0, 0}};
    host_kernel_request req = {
        .program_name = "bench/copy4", .kernel_name = "bench_copy4", .gen_source = copy_source};
    double gbs = 0;
    if (host_alloc(d, bytes, &src) == CLOPS_OK && host_alloc(d, bytes, &dst) == CLOPS_OK &&
        host_kernel_get(d, &key, &req, &c.k) == CLOPS_OK) {
        c.src = src->mem;
        c.dst = dst->mem;
        clops_status st;
        double t = time_calls(d, run_copy, &c, reps, 5, &st);
        if (st == CLOPS_OK)
            gbs = 2.0 * (double)bytes / t / 1e9;
    }
    host_free(src);
    host_free(dst);
    return gbs;
}

/* The command line every bench takes: [--device SEL]... [--scale S]
 * [--reps N] [--json FILE]; the family benches (bench_family.c) also
 * [--family NAME] [--cases FILE] [--case GLOB] [--list]. */
typedef struct bench_args {
    const char *sel[8];
    int nsel, reps;
    double scale;
    const char *json;
    const char *family, *cases, *only; /* family benches only */
    bool list;
} bench_args;

/* Parses argv into a (defaults: every device, scale 1, 20 reps); prints the
 * usage line of `prog` and returns false on a bad argument.  family_opts:
 * accept the family benches' options too. */
static inline bool bench_parse_args(int argc, char **argv, const char *prog, bool family_opts,
                                    bench_args *a)
{
    memset(a, 0, sizeof *a);
    a->reps = 20;
    a->scale = 1.0;
    for (int i = 1; i < argc; i++) {
        bool more = i + 1 < argc;
        if (strcmp(argv[i], "--device") == 0 && more && a->nsel < 8)
            a->sel[a->nsel++] = argv[++i];
        else if (strcmp(argv[i], "--scale") == 0 && more)
            a->scale = atof(argv[++i]);
        else if (strcmp(argv[i], "--reps") == 0 && more)
            a->reps = atoi(argv[++i]);
        else if (strcmp(argv[i], "--json") == 0 && more)
            a->json = argv[++i];
        else if (family_opts && strcmp(argv[i], "--family") == 0 && more)
            a->family = argv[++i];
        else if (family_opts && strcmp(argv[i], "--cases") == 0 && more)
            a->cases = argv[++i];
        else if (family_opts && strcmp(argv[i], "--case") == 0 && more)
            a->only = argv[++i];
        else if (family_opts && strcmp(argv[i], "--list") == 0)
            a->list = true;
        else {
            fprintf(stderr, "usage: %s [--device SEL]... [--scale S] [--reps N] [--json FILE]%s\n",
                    prog, family_opts ? " [--family NAME] [--cases FILE] [--case GLOB] [--list]"
                                      : "");
            return false;
        }
    }
    if (a->scale < 1.0)
        a->scale = 1.0;
    if (a->reps < 1)
        a->reps = 1;
    return true;
}

/* Whether device d is selected (every OpenCL device when none is named). */
static inline bool bench_wanted(const bench_args *a, clops_device *d)
{
    bool wanted = a->nsel == 0;
    for (int s = 0; s < a->nsel; s++) {
        clops_device *x = NULL;
        if (clops_device_find(a->sel[s], &x) == CLOPS_OK && x == d)
            wanted = true;
    }
    return wanted;
}

/* OpenCL device di (1 and up) when it is selected, else NULL: the loop
 * of every bench is `for (di = 1; di < count; di++) if ((d = ...))`. */
static inline clops_device *bench_selected(const bench_args *a, int di)
{
    clops_device *d = NULL;
    if (clops_device_get(di, &d) != CLOPS_OK || !bench_wanted(a, d))
        return NULL;
    return d;
}

#endif /* CLOPS_BENCH_COMMON_H */
