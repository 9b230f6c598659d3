/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench/bench_sort.c: the sort and scan families per OpenCL device, in one
 * run, with the device's copy peak for the memory-bound scans.
 *
 *     bench_sort [--device SEL]... [--scale S] [--reps N] [--json FILE]
 *
 * Cases (the anchors; bench/torch_sort.py runs the same on
 * PyTorch): sort of 16M float32 keys (values and indices), sort of each
 * row of [4096, 4096], topk k=50 of each row of [4096, 4096], cumsum along
 * the rows of [8192, 8192] and a 1-D cumsum of 64M float32.  Outputs are
 * preallocated (out= forms) so the figures time the kernels, not the
 * allocator.  Scans report GB/s (one read and one write of every element)
 * and the ratio to the copy peak; sorts report microseconds and keys/s.
 * --scale divides the sizes (POCL runs).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_common.h"
#include "clops/ops.h"
#include "core/tensor_impl.h"

typedef struct sort_ctx {
    int kind; /* 0 sort, 1 topk, 2 cumsum */
    clops_tensor *x, *v, *i;
    int64_t dim, k;
} sort_ctx;

/* One call of the case. */
static clops_status run_case(void *vctx)
{
    sort_ctx *c = vctx;
    switch (c->kind) {
    case 0:
        return clops_sort_values_out(c->x, c->dim, false, c->v, c->i);
    case 1:
        return clops_topk_values_out(c->x, c->k, c->dim, true, true, c->v, c->i);
    default:
        return clops_cumsum_out(c->x, c->dim, CLOPS_DTYPE_NONE, c->v);
    }
}

/* Random float32 tensor of a shape (uniform in [-1, 1)) on d. */
static clops_tensor *make_random(clops_device *d, int nd, const int64_t *sizes)
{
    int64_t n = 1;
    for (int j = 0; j < nd; j++)
        n *= sizes[j];
    float *h = malloc(sizeof(float) * (size_t)n);
    clops_tensor *t = NULL;
    if (!h)
        return NULL;
    uint64_t s = 0x9e3779b97f4a7c15ull;
    for (int64_t j = 0; j < n; j++) {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        h[j] = (float)((double)(s >> 11) / 9007199254740992.0 * 2.0 - 1.0);
    }
    if (clops_from_host(d, CLOPS_FLOAT32, nd, sizes, h, sizeof(float) * (size_t)n, &t) != CLOPS_OK)
        t = NULL;
    free(h);
    return t;
}

/* Uninitialised tensor on d. */
static clops_tensor *make_empty(clops_device *d, clops_dtype dt, int nd, const int64_t *sizes)
{
    clops_tensor *t = NULL;
    return tensor_new(d, dt, nd, sizes, NULL, &t) == CLOPS_OK ? t : NULL;
}

int main(int argc, char **argv)
{
    bench_args args;
    if (!bench_parse_args(argc, argv, "bench_sort", &args))
        return 2;
    int reps = args.reps;
    double scale = args.scale;
    const char *json = args.json;
    int64_t n16m = (int64_t)((double)(1 << 24) / scale);
    int64_t r4k = (int64_t)(4096 / sqrt(scale)), r8k = (int64_t)(8192 / sqrt(scale));
    int64_t n64m = (int64_t)((double)(1 << 26) / scale);
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
        double peak = copy_peak(d, n64m - n64m % 4, reps);
        printf("device %s: %s (%s, driver %s)\n", clops_device_label(d), in->name,
               in->platform_name, in->driver_version);
        printf("  copy peak (float4 copy kernel): %.1f GB/s\n", peak);
        printf("  %-34s %10s %10s %8s\n", "case", "us/call", "GB/s|Mk/s", "/peak");
        for (int ci = 0; ci < 5; ci++) {
            sort_ctx c = {0};
            const char *name = NULL, *tname = NULL;
            int64_t sz[2];
            int nd = 2;
            switch (ci) {
            case 0:
                name = "sort 16M float32";
                tname = "sort_16m";
                nd = 1;
                sz[0] = n16m;
                break;
            case 1:
                name = "sort rows [4096,4096] float32";
                tname = "sort_rows";
                sz[0] = sz[1] = r4k;
                break;
            case 2:
                name = "topk k=50 rows [4096,4096]";
                tname = "topk_rows";
                sz[0] = sz[1] = r4k;
                c.kind = 1;
                c.k = 50;
                break;
            case 3:
                name = "cumsum rows [8192,8192] float32";
                tname = "cumsum_rows";
                sz[0] = sz[1] = r8k;
                c.kind = 2;
                break;
            default:
                name = "cumsum 1-D 64M float32";
                tname = "cumsum_1d";
                nd = 1;
                sz[0] = n64m;
                c.kind = 2;
                break;
            }
            c.dim = -1;
            c.x = make_random(d, nd, sz);
            int64_t osz[2] = {sz[0], nd == 2 ? sz[1] : 0};
            if (c.kind == 1)
                osz[1] = c.k;
            c.v = make_empty(d, CLOPS_FLOAT32, nd, osz);
            if (c.kind != 2)
                c.i = make_empty(d, CLOPS_INT64, nd, osz);
            double n = nd == 2 ? (double)sz[0] * (double)sz[1] : (double)sz[0];
            clops_status st = (!c.x || !c.v || (c.kind != 2 && !c.i)) ? CLOPS_INTERNAL : CLOPS_OK;
            double t = st ? 0 : time_calls(d, run_case, &c, reps, 5, &st);
            if (st) {
                printf("  %-34s error: %s\n", name, clops_last_error());
            } else {
                double rate = c.kind == 2 ? 8.0 * n / t / 1e9 : n / t / 1e6;
                double ratio = c.kind == 2 && peak > 0 ? rate / peak : 0;
                printf("  %-34s %10.1f %10.1f %8.3f\n", name, t * 1e6, rate, ratio);
                if (jf)
                    fprintf(jf,
                            "%s  {\"device\": \"%s\", \"device_name\": \"%s\", \"case\": \"%s\", "
                            "\"torch_case\": \"%s\", \"us_per_call\": %.3f, \"rate\": %.3f, "
                            "\"rate_unit\": \"%s\", \"peak_gbs\": %.3f, \"ratio_to_peak\": %.4f}",
                            first ? "" : ",\n", clops_device_label(d), in->name, name, tname,
                            t * 1e6, rate, c.kind == 2 ? "GB/s" : "Mkeys/s", peak, ratio);
                first = false;
            }
            clops_tensor_release(c.x);
            clops_tensor_release(c.v);
            clops_tensor_release(c.i);
        }
    }
    if (jf) {
        fprintf(jf, "\n]\n");
        fclose(jf);
    }
    clops_shutdown();
    return 0;
}
