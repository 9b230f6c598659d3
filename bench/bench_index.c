/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench/bench_index.c: bandwidth of the indexing family against the
 * device's own copy peak, per OpenCL device, in one run (the method of
 * bench/bench_pointwise.c).
 *
 *     bench_index [--device SEL]... [--scale S] [--reps N] [--json FILE]
 *
 * Cases (N = 8192; --scale S divides the element counts for POCL runs):
 *   cat       two [N, N] float32 along dim 0 into a preallocated result
 *   gather    [N, N] float32 along dim 1 with an [N, N] int64 index
 *   embedding 32768 int64 ids into a [50000, 1024] float32 table
 *   index_select  8192 random rows of [N, N] float32
 *   scatter_add   [N/2, 1024] float32 into [N/2, 16] along dim 1 (every
 *                 target hit 64 times; clops' deterministic segment plan
 *                 against PyTorch's atomics)
 *   nonzero       of an [N, N] bool mask, half of it true at random
 *   masked_select [N, N] float32 by that mask
 *                 (both: a device-side scan, one read-back of the count,
 *                 one compaction launch; bytes count the mask, the values
 *                 read and the result written at the nominal count N*N/2)
 * Bytes count what each op must read and write once (index tensors
 * included); bench/torch_index.py counts the same for PyTorch.  Every
 * figure is a median of batches of back-to-back calls ended by one
 * clFinish.  Note that the ops with index tensors wait for their kernel
 * (the range check's read-back, docs/index.md), so their batches are
 * sequences of synchronous calls.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clops/ops.h"
#include "core/tensor_impl.h"
#include "host/host.h"
#include "bench_common.h"

/* One case's tensors.  Case 0 is the copy peak: a contiguous [N, N]
 * float32 copy through the library's copy kernel (clops_copy_), the
 * bandwidth a memory-bound op reaches on the device. */
typedef struct case_ctx {
    int kind;
    clops_tensor *a, *b, *idx, *out;
} case_ctx;

static clops_status run_case(void *vctx)
{
    case_ctx *c = vctx;
    switch (c->kind) {
    case 0:
        return clops_copy_(c->out, c->a, false);
    case 1: {
        clops_tensor *const l[2] = {c->a, c->b};
        return clops_cat_out(l, 2, 0, c->out);
    }
    case 2:
        return clops_gather_out(c->a, 1, c->idx, false, c->out);
    case 3: {
        clops_tensor *r = NULL;
        clops_status st = clops_embedding(c->a, c->idx, -1, false, false, &r);
        clops_tensor_release(r);
        return st;
    }
    case 4:
        return clops_index_select_out(c->a, 0, c->idx, c->out);
    case 6:
    case 7: {
        clops_tensor *r = NULL;
        clops_status st = c->kind == 6 ? clops_nonzero(c->b, &r) : clops_masked_select(c->a, c->b, &r);
        clops_tensor_release(r);
        return st;
    }
    default:
        return clops_scatter_add_out(c->out, 1, c->idx, c->a, c->b);
    }
}

/* Random int64 indices in [0, hi) on d. */
static clops_tensor *rand_index(clops_device *d, int ndim, const int64_t *sizes, int64_t hi,
                                uint64_t seed)
{
    int64_t n = 1;
    for (int i = 0; i < ndim; i++)
        n *= sizes[i];
    int64_t *v = malloc((size_t)n * sizeof *v);
    clops_tensor *t = NULL;
    if (!v)
        return NULL;
    for (int64_t i = 0; i < n; i++) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        v[i] = (int64_t)((seed >> 33) % (uint64_t)hi);
    }
    if (clops_from_host(d, CLOPS_INT64, ndim, sizes, v, (size_t)n * sizeof *v, &t) != CLOPS_OK)
        t = NULL;
    free(v);
    return t;
}

static clops_tensor *ones(clops_device *d, int64_t s0, int64_t s1)
{
    int64_t sz[2] = {s0, s1};
    clops_tensor *t = NULL;
    return clops_ones(d, CLOPS_FLOAT32, 2, sz, &t) == CLOPS_OK ? t : NULL;
}

static void release_case(case_ctx *c)
{
    clops_tensor_release(c->a);
    clops_tensor_release(c->b);
    clops_tensor_release(c->idx);
    clops_tensor_release(c->out);
    memset(c, 0, sizeof *c);
}

static const char *const case_names[] = {"copy (peak)", "cat 2x[N,N] dim 0", "gather [N,N] dim 1",
                                         "embedding 32768 ids [50000,1024]",
                                         "index_select 8192 rows [N,N]",
                                         "scatter_add [N/2,1024]->[N/2,16]",
                                         "nonzero [N,N] bool, half true",
                                         "masked_select [N,N] f32, half true"};
static const char *const torch_names[] = {"copy",        "cat",          "gather",
                                          "embedding",   "index_select", "scatter_add",
                                          "nonzero",     "masked_select"};
#define NCASES 8

/* Sets up case i; returns the bytes it moves (0 on failure). */
static double setup(int i, clops_device *d, int64_t n, double scale, case_ctx *c)
{
    memset(c, 0, sizeof *c);
    c->kind = i;
    switch (i) {
    case 0:
        c->a = ones(d, n, n);
        c->out = ones(d, n, n);
        return c->a && c->out ? 2.0 * (double)(n * n) * 4 : 0;
    case 1:
        c->a = ones(d, n, n);
        c->b = ones(d, n, n);
        c->out = ones(d, 2 * n, n);
        return c->a && c->b && c->out ? 4.0 * (double)(n * n) * 4 : 0;
    case 2: {
        int64_t sz[2] = {n, n};
        c->a = ones(d, n, n);
        c->idx = rand_index(d, 2, sz, n, 1);
        c->out = ones(d, n, n);
        return c->a && c->idx && c->out ? (double)(n * n) * (4 + 8 + 4) : 0;
    }
    case 3: {
        int64_t ids = (int64_t)(32768 / scale), rows = 50000, dim = 1024;
        if (ids < 64)
            ids = 64;
        c->a = ones(d, rows, dim);
        c->idx = rand_index(d, 1, &ids, rows, 2);
        return c->a && c->idx ? (double)ids * 8 + 2.0 * (double)ids * (double)dim * 4 : 0;
    }
    case 5: {
        int64_t r = n / 2, sz[2] = {r, 1024};
        c->a = ones(d, r, 1024);
        c->idx = rand_index(d, 2, sz, 16, 4);
        c->out = ones(d, r, 16);
        c->b = ones(d, r, 16);
        return c->a && c->idx && c->out && c->b
                   ? (double)(r * 1024) * (4 + 8) + 2.0 * (double)(r * 16) * 4
                   : 0;
    }
    case 6:
    case 7: {
        int64_t sz[2] = {n, n};
        clops_tensor *bits = rand_index(d, 2, sz, 2, 5);
        if (bits && clops_ne_scalar(bits, clops_scalar_int(0), &c->b) != CLOPS_OK)
            c->b = NULL;
        clops_tensor_release(bits);
        c->a = i == 7 ? ones(d, n, n) : NULL;
        double nn = (double)(n * n);
        if (!c->b || (i == 7 && !c->a))
            return 0;
        return i == 6 ? nn + nn / 2 * 2 * 8 : nn * (1 + 4) + nn / 2 * 4;
    }
    default: {
        int64_t rows = n < 8192 ? n : 8192;
        c->a = ones(d, n, n);
        c->idx = rand_index(d, 1, &rows, n, 3);
        c->out = ones(d, rows, n);
        return c->a && c->idx && c->out ? (double)rows * 8 + 2.0 * (double)rows * (double)n * 4
                                        : 0;
    }
    }
}

int main(int argc, char **argv)
{
    bench_args args;
    if (!bench_parse_args(argc, argv, "bench_index", &args))
        return 2;
    int reps = args.reps;
    double scale = args.scale;
    const char *json = args.json;
    int64_t n = (int64_t)(8192 / sqrt(scale));
    FILE *jf = json ? fopen(json, "w") : NULL;
    if (jf)
        fprintf(jf, "[\n");
    int ndev = 0;
    clops_device_count(&ndev);
    bool first = true;
    for (int di = 1; di < ndev; di++) {
        clops_device *d = NULL;
        clops_device_get(di, &d);
        if (!bench_wanted(&args, d))
            continue;
        const clops_device_info *in = clops_device_get_info(d);
        printf("device %s: %s (%s, driver %s), N = %lld\n", clops_device_label(d), in->name,
               in->platform_name, in->driver_version, (long long)n);
        printf("  %-36s %10s %8s %10s\n", "case", "GB/s", "/copy", "us/call");
        double peak = 0;
        for (int i = 0; i < NCASES; i++) {
            case_ctx c;
            double bytes = setup(i, d, n, scale, &c);
            clops_status st = bytes > 0 ? CLOPS_OK : CLOPS_OUT_OF_MEMORY;
            double t = st == CLOPS_OK ? time_calls(d, run_case, &c, reps, 5, &st) : 0;
            if (st) {
                printf("  %-36s error: %s\n", case_names[i], clops_last_error());
            } else {
                double gbs = bytes / t / 1e9;
                if (i == 0)
                    peak = gbs;
                printf("  %-36s %10.1f %8.3f %10.1f\n", case_names[i], gbs,
                       peak > 0 ? gbs / peak : 0, t * 1e6);
                if (jf)
                    fprintf(jf,
                            "%s  {\"device\": \"%s\", \"device_name\": \"%s\", \"case\": \"%s\", "
                            "\"torch_case\": \"%s\", \"gbs\": %.3f, \"copy_gbs\": %.3f, "
                            "\"ratio_to_copy\": %.4f, \"us_per_call\": %.3f}",
                            first ? "" : ",\n", clops_device_label(d), in->name, case_names[i],
                            torch_names[i], gbs, peak, peak > 0 ? gbs / peak : 0, t * 1e6);
                first = false;
            }
            release_case(&c);
        }
    }
    if (jf) {
        fprintf(jf, "\n]\n");
        fclose(jf);
    }
    clops_shutdown();
    return 0;
}
