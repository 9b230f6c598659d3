/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench/bench_conv.c: time and GFLOP/s of the convolution family on the
 * layer shapes of ResNet-18 and ResNet-50 (and depthwise 3x3 layers of the
 * MobileNet kind), forward and backward, per OpenCL device, in one run.
 *
 *     bench_conv [--device SEL]... [--scale S] [--reps N] [--json FILE]
 *
 * Cases, float32, batch B = 32 (--scale divides it, at least 1): the 7x7
 * stride-2 stem, 3x3 stride 1 and 2, 1x1 stride 1 and 2 (downsample,
 * bottleneck reduce/expand), depthwise 3x3 stride 1 and 2; no bias, as in
 * the models.  "_fwd" is convolution into a preallocated out= tensor;
 * "_bwd" is convolution_backward with grad_input and grad_weight (the stem
 * only grad_weight, as autograd asks for the first layer).  FLOPs count
 * 2 * multiply-adds of the direct definition.  Each case is the median of
 * batches of back-to-back calls ended by one clFinish.
 * bench/torch_conv.py runs the same cases with PyTorch (cuDNN and TF32 off)
 * under the same names; bench/compare_family.py joins the two JSON files.
 */
#include <stdio.h>

#include "clops/ops.h"
#include "bench/bench_common.h"

typedef struct conv_spec {
    const char *name;
    int64_t cin, hw, cout, k, stride, pad, groups;
    bool grad_input; /* the backward asks for grad_input */
} conv_spec;

static const conv_spec specs[] = {
    {"r18_stem_7x7s2", 3, 224, 64, 7, 2, 3, 1, false},
    {"r18_l1_3x3", 64, 56, 64, 3, 1, 1, 1, true},
    {"r18_l2_3x3s2", 64, 56, 128, 3, 2, 1, 1, true},
    {"r18_l2_down_1x1s2", 64, 56, 128, 1, 2, 0, 1, true},
    {"r18_l2_3x3", 128, 28, 128, 3, 1, 1, 1, true},
    {"r18_l3_3x3", 256, 14, 256, 3, 1, 1, 1, true},
    {"r18_l4_3x3", 512, 7, 512, 3, 1, 1, 1, true},
    {"r50_l1_1x1_reduce", 256, 56, 64, 1, 1, 0, 1, true},
    {"r50_l1_1x1_expand", 64, 56, 256, 1, 1, 0, 1, true},
    {"r50_l2_3x3s2", 128, 56, 128, 3, 2, 1, 1, true},
    {"r50_l3_1x1", 1024, 14, 256, 1, 1, 0, 1, true},
    {"r50_l4_1x1_expand", 512, 7, 2048, 1, 1, 0, 1, true},
    {"dw_3x3", 128, 56, 128, 3, 1, 1, 128, true},
    {"dw_3x3s2", 256, 28, 256, 3, 2, 1, 256, true},
};

typedef struct conv_ctx {
    const conv_spec *s;
    bool backward;
    clops_tensor *x, *w, *y, *g;
} conv_ctx;

static clops_status run_conv(void *vctx)
{
    conv_ctx *c = vctx;
    const conv_spec *s = c->s;
    const int64_t st[1] = {s->stride}, pd[1] = {s->pad}, one[1] = {1}, zero[1] = {0};
    if (!c->backward)
        return clops_convolution_out(c->x, c->w, NULL, st, 1, pd, 1, one, 1, false, zero, 1,
                                     s->groups, c->y);
    const bool mask[3] = {s->grad_input, true, false};
    clops_tensor *o[3] = {NULL, NULL, NULL};
    clops_status r = clops_convolution_backward(c->g, c->x, c->w, NULL, 0, st, 1, pd, 1, one, 1,
                                                false, zero, 1, s->groups, mask, 3, &o[0], &o[1],
                                                &o[2]);
    for (int i = 0; i < 3; i++)
        clops_tensor_release(o[i]);
    return r;
}

/* Output side of spec s. */
static int64_t out_hw(const conv_spec *s)
{
    return (s->hw + 2 * s->pad - s->k) / s->stride + 1;
}

int main(int argc, char **argv)
{
    bench_args args;
    if (!bench_parse_args(argc, argv, "bench_conv", &args))
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
        const clops_device_info *in = clops_device_get_info(d);
        printf("device %s: %s (%s, driver %s), batch %lld, float32\n", clops_device_label(d),
               in->name, in->platform_name, in->driver_version, (long long)batch);
        printf("  %-26s %10s %10s\n", "case", "GFLOP/s", "us/call");
        for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++)
            for (int bw = 0; bw < 2; bw++) {
                const conv_spec *s = &specs[i];
                int64_t o = out_hw(s);
                int64_t xs[4] = {batch, s->cin, s->hw, s->hw};
                int64_t ws[4] = {s->cout, s->cin / s->groups, s->k, s->k};
                int64_t ys[4] = {batch, s->cout, o, o};
                conv_ctx c = {s, bw == 1, NULL, NULL, NULL, NULL};
                clops_status st = clops_full(d, CLOPS_FLOAT32, 4, xs, clops_scalar_float(0.5),
                                             &c.x);
                if (!st)
                    st = clops_full(d, CLOPS_FLOAT32, 4, ws, clops_scalar_float(0.25), &c.w);
                if (!st)
                    st = clops_full(d, CLOPS_FLOAT32, 4, ys, clops_scalar_float(0.0), &c.y);
                if (!st)
                    st = clops_full(d, CLOPS_FLOAT32, 4, ys, clops_scalar_float(1.0), &c.g);
                double t = 0;
                if (!st)
                    t = time_calls(d, run_conv, &c, args.reps, 5, &st);
                double fwd = 2.0 * (double)batch * (double)s->cout * (double)(o * o) *
                             (double)(s->cin / s->groups) * (double)(s->k * s->k);
                double flops = bw ? fwd * (s->grad_input ? 2 : 1) : fwd;
                char name[64];
                snprintf(name, sizeof name, "%s_%s", s->name, bw ? "bwd" : "fwd");
                if (st) {
                    printf("  %-26s error: %s\n", name, clops_last_error());
                } else {
                    printf("  %-26s %10.1f %10.1f\n", name, flops / t / 1e9, t * 1e6);
                    if (jf)
                        fprintf(jf,
                                "%s  {\"device\": \"%s\", \"device_name\": \"%s\", \"case\": "
                                "\"%s\", \"batch\": %lld, \"gflops\": %.3f, \"us_per_call\": "
                                "%.3f}",
                                first ? "" : ",\n", clops_device_label(d), in->name, name,
                                (long long)batch, flops / t / 1e9, t * 1e6);
                    first = false;
                }
                clops_tensor_release(c.x);
                clops_tensor_release(c.w);
                clops_tensor_release(c.y);
                clops_tensor_release(c.g);
            }
    }
    if (jf) {
        fprintf(jf, "\n]\n");
        fclose(jf);
    }
    clops_shutdown();
    return 0;
}
