/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench/bench_random.c: bandwidth of the random family against the
 * device's own copy peak, per OpenCL device, in one run.
 *
 *     bench_random [--device SEL]... [--scale S] [--reps N] [--json FILE]
 *
 * Cases on 2^26 (64M) float32 elements (divided by --scale): uniform_ and
 * normal_ in place (bytes: the output written once), float16 uniform_, and
 * native_dropout with p = 0.1 (bytes: input read, output and bool mask
 * written).  Figures are medians of batches of back-to-back calls ended by
 * one clFinish, each with its ratio to the float4 copy peak measured in the
 * same run.  bench/torch_random.py measures PyTorch on the same cases
 * (CUDA when available, else the CPU) so a run on the GPU machine puts both
 * side by side: compare the GB/s of matching case names.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clops/ops.h"
#include "core/tensor_impl.h"
#include "host/host.h"
#include "bench/bench_common.h"

typedef struct rctx {
    clops_tensor *t;
    int kind; /* 0 uniform_, 1 normal_, 2 native_dropout */
} rctx;

/* One call of the case. */
static clops_status run_random(void *vctx)
{
    rctx *c = vctx;
    if (c->kind == 0)
        return clops_uniform_(c->t, 0.0, 1.0, NULL);
    if (c->kind == 1)
        return clops_normal_(c->t, 0.0, 1.0, NULL);
    clops_tensor *o = NULL, *m = NULL;
    bool train = true;
    clops_status st = clops_native_dropout(c->t, 0.1, &train, &o, &m);
    clops_tensor_release(o);
    clops_tensor_release(m);
    return st;
}

static const struct {
    const char *name;
    int kind;
    clops_dtype dt;
    double bytes_per_elem;
} CASES[] = {
    {"uniform_f32", 0, CLOPS_FLOAT32, 4},
    {"normal_f32", 1, CLOPS_FLOAT32, 4},
    {"dropout_p0.1_f32", 2, CLOPS_FLOAT32, 4 + 4 + 1},
    {"uniform_f16", 0, CLOPS_FLOAT16, 2},
};

int main(int argc, char **argv)
{
    bench_args args;
    if (!bench_parse_args(argc, argv, "bench_random", &args))
        return 2;
    double scale = args.scale;
    int reps = args.reps;
    const char *json = args.json;
    int64_t n = (int64_t)((double)(1 << 26) / scale);
    n -= n % 4;
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
        double peak = copy_peak(d, n, reps);
        printf("device %s: %s (%s, driver %s)\n", clops_device_label(d), in->name,
               in->platform_name, in->driver_version);
        printf("  copy peak (float4 copy kernel, %lld elements): %.1f GB/s\n", (long long)n, peak);
        printf("  %-24s %10s %8s %10s\n", "case", "GB/s", "/peak", "us/call");
        for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
            rctx c = {NULL, CASES[i].kind};
            clops_status st = clops_ones(d, CASES[i].dt, 1, &n, &c.t);
            double t = 0;
            if (st == CLOPS_OK)
                t = time_calls(d, run_random, &c, reps, 5, &st);
            if (st) {
                printf("  %-24s error: %s\n", CASES[i].name, clops_last_error());
            } else {
                double gbs = CASES[i].bytes_per_elem * (double)n / t / 1e9;
                printf("  %-24s %10.1f %8.3f %10.1f\n", CASES[i].name, gbs,
                       peak > 0 ? gbs / peak : 0, t * 1e6);
                if (jf)
                    fprintf(jf,
                            "%s  {\"device\": \"%s\", \"device_name\": \"%s\", \"case\": \"%s\", "
                            "\"gbs\": %.3f, \"peak_gbs\": %.3f, \"ratio_to_peak\": %.4f, "
                            "\"us_per_call\": %.3f}",
                            first ? "" : ",\n", clops_device_label(d), in->name, CASES[i].name, gbs,
                            peak, peak > 0 ? gbs / peak : 0, t * 1e6);
                first = false;
            }
            clops_tensor_release(c.t);
        }
    }
    if (jf) {
        fprintf(jf, "\n]\n");
        fclose(jf);
    }
    clops_shutdown();
    return 0;
}
