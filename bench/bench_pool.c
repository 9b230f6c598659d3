/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench/bench_pool.c: the pooling and resampling family on ResNet shapes at
 * batch B = 32, forward and backward, per OpenCL device, in one run.
 *
 *     bench_pool [--device SEL]... [--scale S] [--reps N] [--json FILE]
 *
 * Cases: the stem max pooling (3x3, stride 2, padding 1) of float32
 * [B, 64, 112, 112] forward (values and indices) and backward; the
 * adaptive average pooling to 1x1 of [B, 512, 7, 7] (ResNet-18) and
 * [B, 2048, 7, 7] (ResNet-50) forward and backward; bilinear upsampling x2
 * (align_corners false) of [B, 64, 56, 56] forward and backward; the stem
 * max pooling on a channels-last input.  Each is timed through the public
 * API (results allocated per call, as PyTorch's functional calls are), as
 * the median of batches of back-to-back calls ended by one clFinish;
 * bandwidth counts the bytes read and written once.  bench/torch_pool.py
 * runs the same cases with PyTorch under the same names, and
 * bench/compare_family.py joins the two JSON files.
 *
 * --scale divides B (at least 1) so POCL runs finish quickly.
 */
#include <stdio.h>

#include "clops/ops.h"
#include "bench/bench_common.h"

enum { K_MAX_FWD, K_MAX_BWD, K_AAVG_FWD, K_AAVG_BWD, K_UP_FWD, K_UP_BWD };

typedef struct pool_ctx {
    int kind;
    clops_tensor *x, *g, *ix; /* input; grad_output; indices of the max pooling */
    int64_t in[4], os[2];
} pool_ctx;

static clops_status run_pool(void *vctx)
{
    pool_ctx *c = vctx;
    clops_tensor *o = NULL, *o2 = NULL;
    clops_status st;
    const int64_t k[2] = {3, 3}, s[2] = {2, 2}, p[2] = {1, 1}, dl[2] = {1, 1};
    switch (c->kind) {
    case K_MAX_FWD:
        st = clops_max_pool2d_with_indices(c->x, k, 2, s, 2, p, 2, dl, 2, false, &o, &o2);
        break;
    case K_MAX_BWD:
        st = clops_max_pool2d_with_indices_backward(c->g, c->x, k, 2, s, 2, p, 2, dl, 2, false,
                                                    c->ix, &o);
        break;
    case K_AAVG_FWD:
        st = clops__adaptive_avg_pool2d(c->x, c->os, 2, &o);
        break;
    case K_AAVG_BWD:
        st = clops__adaptive_avg_pool2d_backward(c->g, c->x, &o);
        break;
    case K_UP_FWD:
        st = clops_upsample_bilinear2d(c->x, c->os, 2, false, NULL, NULL, &o);
        break;
    default:
        st = clops_upsample_bilinear2d_backward(c->g, c->os, 2, c->in, 4, false, NULL, NULL, &o);
        break;
    }
    clops_tensor_release(o);
    clops_tensor_release(o2);
    return st;
}

typedef struct pool_spec {
    const char *name; /* also the case name of torch_pool.py */
    int kind;
    int64_t c, hw; /* input [B, c, hw, hw] */
    bool channels_last;
} pool_spec;

static const pool_spec specs[] = {
    {"maxpool3x3s2_fwd_64x112", K_MAX_FWD, 64, 112, false},
    {"maxpool3x3s2_bwd_64x112", K_MAX_BWD, 64, 112, false},
    {"maxpool3x3s2_fwd_64x112_nhwc", K_MAX_FWD, 64, 112, true},
    {"adaptive_avg_fwd_512x7", K_AAVG_FWD, 512, 7, false},
    {"adaptive_avg_bwd_512x7", K_AAVG_BWD, 512, 7, false},
    {"adaptive_avg_fwd_2048x7", K_AAVG_FWD, 2048, 7, false},
    {"adaptive_avg_bwd_2048x7", K_AAVG_BWD, 2048, 7, false},
    {"bilinear_x2_fwd_64x56", K_UP_FWD, 64, 56, false},
    {"bilinear_x2_bwd_64x56", K_UP_BWD, 64, 56, false},
};

/* Makes the tensors of spec s at batch b; bytes moved into *bytes. */
static bool setup(const pool_spec *s, clops_device *d, int64_t b, pool_ctx *c, double *bytes)
{
    memset(c, 0, sizeof *c);
    c->kind = s->kind;
    int64_t in[4] = {b, s->c, s->hw, s->hw};
    memcpy(c->in, in, sizeof in);
    int64_t oh = s->kind <= K_MAX_BWD ? (s->hw - 1) / 2 + 1
                 : s->kind <= K_AAVG_BWD ? 1
                                         : 2 * s->hw;
    c->os[0] = c->os[1] = oh;
    int64_t out[4] = {b, s->c, oh, oh};
    clops_tensor *t = NULL;
    if (s->channels_last) {
        int64_t nhwc[4] = {b, s->hw, s->hw, s->c};
        if (clops_rand(nhwc, 4, CLOPS_FLOAT32, -1, d, NULL, &t) != CLOPS_OK ||
            clops_permute(t, (const int64_t[]){0, 3, 1, 2}, 4, &c->x) != CLOPS_OK) {
            clops_tensor_release(t);
            return false;
        }
        clops_tensor_release(t);
    } else if (clops_rand(in, 4, CLOPS_FLOAT32, -1, d, NULL, &c->x) != CLOPS_OK) {
        return false;
    }
    if (clops_rand(out, 4, CLOPS_FLOAT32, -1, d, NULL, &c->g) != CLOPS_OK)
        return false;
    if (s->kind == K_MAX_BWD) {
        const int64_t k[2] = {3, 3}, st[2] = {2, 2}, p[2] = {1, 1}, dl[2] = {1, 1};
        clops_tensor *v = NULL;
        if (clops_max_pool2d_with_indices(c->x, k, 2, st, 2, p, 2, dl, 2, false, &v, &c->ix) !=
            CLOPS_OK)
            return false;
        clops_tensor_release(v);
    }
    double ni = (double)(in[0] * in[1] * in[2] * in[3]), no = (double)(b * s->c * oh * oh);
    /* input and output once, plus the int64 indices of the max pooling */
    *bytes = 4.0 * (ni + no) + (s->kind <= K_MAX_BWD ? 8.0 * no : 0.0);
    return true;
}

int main(int argc, char **argv)
{
    bench_args args;
    if (!bench_parse_args(argc, argv, "bench_pool", &args))
        return 2;
    int64_t batch = (int64_t)(32 / args.scale) < 1 ? 1 : (int64_t)(32 / args.scale);
    FILE *jf = args.json ? fopen(args.json, "w") : NULL;
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
        const clops_device_info *inf = clops_device_get_info(d);
        int64_t n1 = batch * 64 * 112 * 112;
        double peak = copy_peak(d, n1 - n1 % 4, args.reps);
        printf("device %s: %s (%s, driver %s)\n", clops_device_label(d), inf->name,
               inf->platform_name, inf->driver_version);
        printf("  copy peak (float4 copy kernel, %lld elements): %.1f GB/s, B = %lld\n",
               (long long)n1, peak, (long long)batch);
        printf("  %-30s %10s %8s %10s\n", "case", "GB/s", "/peak", "us/call");
        for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
            pool_ctx c;
            double bytes = 0, t = 0;
            clops_status st = CLOPS_INTERNAL;
            if (setup(&specs[i], d, batch, &c, &bytes))
                t = time_calls(d, run_pool, &c, args.reps, 5, &st);
            if (st) {
                printf("  %-30s error: %s\n", specs[i].name, clops_last_error());
            } else {
                double gbs = bytes / t / 1e9;
                printf("  %-30s %10.1f %8.3f %10.1f\n", specs[i].name, gbs,
                       peak > 0 ? gbs / peak : 0, t * 1e6);
                if (jf)
                    fprintf(jf,
                            "%s  {\"device\": \"%s\", \"device_name\": \"%s\", \"case\": \"%s\", "
                            "\"gbs\": %.3f, \"peak_gbs\": %.3f, \"ratio_to_peak\": %.4f, "
                            "\"us_per_call\": %.3f}",
                            first ? "" : ",\n", clops_device_label(d), inf->name, specs[i].name,
                            gbs, peak, peak > 0 ? gbs / peak : 0, t * 1e6);
                first = false;
            }
            clops_tensor_release(c.x);
            clops_tensor_release(c.g);
            clops_tensor_release(c.ix);
        }
    }
    if (jf) {
        fprintf(jf, "\n]\n");
        fclose(jf);
    }
    clops_shutdown();
    return 0;
}
