/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench/bench_reduce.c: bandwidth of the reductions (and softmax/norm rows)
 * against the device's own copy peak, per OpenCL device, in one run.
 *
 *     bench_reduce [--device SEL]... [--scale S] [--reps N] [--json FILE]
 *
 * Cases (issue 13): float32 [N, N] (N = 8192) sum over rows (dim 1), over
 * columns (dim 0) and over everything, mean, amax and var over rows,
 * argmax over rows; sum over rows of [M, 64] (M = 2^20) in float32 and
 * bfloat16; softmax and log_softmax over rows of [N, N] float32, softmax
 * of bfloat16 and softmax's backward (float32); layer_norm (weight and
 * bias) and rms_norm (weight) over rows of [N, N] float32 (their results
 * are allocated per call, as PyTorch's functional calls do; bytes count
 * the input and output, not the statistics or the weights); batch_norm in training (statistics, running-stat
 * update, normalization) and in evaluation, and group_norm (32 groups), of
 * a float32 [B, 256, 56, 56] activation (B = 32; bytes: input and output
 * once).  Each is timed through the public API into a preallocated
 * out= tensor (so the allocator is not measured), as the median of
 * batches of back-to-back calls ended by one clFinish; bandwidth counts the
 * bytes read and written once.  bench/torch_reduce.py runs the same cases
 * with PyTorch (CUDA, or the CPU with a thread count) and prints the same
 * case names, so a run on the GPU machine puts both side by side.
 *
 * --scale divides the element counts (N by sqrt(S), M and B by S, B at
 * least 2) so POCL runs
 * finish quickly.
 */
#include <math.h>
#include <stdio.h>

#include "clops/ops.h"
#include "bench/bench_common.h"

typedef struct red_ctx {
    int kind;
    clops_tensor *x, *out, *out2;
    clops_tensor *w, *b; /* layer/rms norm weight and bias */
    int64_t dim, n;
} red_ctx;

enum {
    K_SUM,
    K_MEAN,
    K_AMAX,
    K_VAR,
    K_ARGMAX,
    K_SUM_ALL,
    K_SOFTMAX,
    K_LOG_SOFTMAX,
    K_SOFTMAX_BACKWARD,
    K_LAYER_NORM,
    K_RMS_NORM,
    K_BATCH_NORM_TRAIN,
    K_BATCH_NORM_EVAL,
    K_GROUP_NORM
};

/* The [B, 256, 56, 56] activation of the batch/group norm cases. */
#define ACT_C 256
#define ACT_HW 56
#define ACT_GROUPS 32

static clops_status run_red(void *vctx)
{
    red_ctx *c = vctx;
    clops_scalar corr = clops_scalar_int(1);
    switch (c->kind) {
    case K_MEAN:
        return clops_mean_out(c->x, &c->dim, 1, false, CLOPS_DTYPE_NONE, c->out);
    case K_AMAX:
        return clops_amax_out(c->x, &c->dim, 1, false, c->out);
    case K_VAR:
        return clops_var_correction_out(c->x, &c->dim, 1, &corr, false, c->out);
    case K_ARGMAX:
        return clops_argmax_out(c->x, &c->dim, false, c->out);
    case K_SUM_ALL:
        return clops_sum_out(c->x, CLOPS_DTYPE_NONE, c->out);
    case K_SOFTMAX:
        return clops__softmax_out(c->x, c->dim, false, c->out);
    case K_LOG_SOFTMAX:
        return clops__log_softmax_out(c->x, c->dim, false, c->out);
    case K_SOFTMAX_BACKWARD:
        /* x is both the gradient and the softmax output */
        return clops__softmax_backward_data_out(c->x, c->x, c->dim, CLOPS_FLOAT32, c->out);
    case K_LAYER_NORM: {
        clops_tensor *o0 = NULL, *o1 = NULL, *o2 = NULL;
        clops_status st = clops_native_layer_norm(c->x, &c->n, 1, c->w, c->b, 1e-5, &o0, &o1, &o2);
        clops_tensor_release(o0);
        clops_tensor_release(o1);
        clops_tensor_release(o2);
        return st;
    }
    case K_RMS_NORM: {
        clops_tensor *o = NULL;
        double eps = 1e-6;
        clops_status st = clops_rms_norm(c->x, &c->n, 1, c->w, &eps, &o);
        clops_tensor_release(o);
        return st;
    }
    case K_BATCH_NORM_TRAIN:
    case K_BATCH_NORM_EVAL:
    case K_GROUP_NORM: {
        /* out and out2 hold the running mean and variance */
        clops_tensor *o0 = NULL, *o1 = NULL, *o2 = NULL;
        clops_status st =
            c->kind == K_GROUP_NORM
                ? clops_native_group_norm(c->x, c->w, c->b, c->n, ACT_C, ACT_HW * ACT_HW,
                                          ACT_GROUPS, 1e-5, &o0, &o1, &o2)
                : clops_native_batch_norm(c->x, c->w, c->b, c->out, c->out2,
                                          c->kind == K_BATCH_NORM_TRAIN, 0.1, 1e-5, &o0, &o1,
                                          &o2);
        clops_tensor_release(o0);
        clops_tensor_release(o1);
        clops_tensor_release(o2);
        return st;
    }
    default:
        return clops_sum_intlist_out(c->x, &c->dim, 1, false, CLOPS_DTYPE_NONE, c->out);
    }
}

typedef struct red_spec {
    const char *name; /* also the case name of torch_reduce.py */
    int kind;
    clops_dtype dt;
    int shape; /* 0: [N, N]; 1: [M, 64]; 2: [B, 256, 56, 56] */
    int64_t dim;
} red_spec;

static const red_spec specs[] = {
    {"sum_rows_f32", K_SUM, CLOPS_FLOAT32, 0, 1},
    {"sum_cols_f32", K_SUM, CLOPS_FLOAT32, 0, 0},
    {"sum_all_f32", K_SUM_ALL, CLOPS_FLOAT32, 0, 0},
    {"mean_rows_f32", K_MEAN, CLOPS_FLOAT32, 0, 1},
    {"amax_rows_f32", K_AMAX, CLOPS_FLOAT32, 0, 1},
    {"var_rows_f32", K_VAR, CLOPS_FLOAT32, 0, 1},
    {"argmax_rows_f32", K_ARGMAX, CLOPS_FLOAT32, 0, 1},
    {"sum_short_rows_f32", K_SUM, CLOPS_FLOAT32, 1, 1},
    {"sum_short_rows_bf16", K_SUM, CLOPS_BFLOAT16, 1, 1},
    {"softmax_rows_f32", K_SOFTMAX, CLOPS_FLOAT32, 0, 1},
    {"log_softmax_rows_f32", K_LOG_SOFTMAX, CLOPS_FLOAT32, 0, 1},
    {"softmax_rows_bf16", K_SOFTMAX, CLOPS_BFLOAT16, 0, 1},
    {"softmax_backward_rows_f32", K_SOFTMAX_BACKWARD, CLOPS_FLOAT32, 0, 1},
    {"layer_norm_rows_f32", K_LAYER_NORM, CLOPS_FLOAT32, 0, 1},
    {"rms_norm_rows_f32", K_RMS_NORM, CLOPS_FLOAT32, 0, 1},
    {"batch_norm_train_f32", K_BATCH_NORM_TRAIN, CLOPS_FLOAT32, 2, 1},
    {"batch_norm_eval_f32", K_BATCH_NORM_EVAL, CLOPS_FLOAT32, 2, 1},
    {"group_norm_f32", K_GROUP_NORM, CLOPS_FLOAT32, 2, 1},
};

/* The batch/group norm cases: x [B, 256, 56, 56], weight, bias and running
 * stats of 256 (out, out2), B in c->n. */
static bool setup_act(const red_spec *s, clops_device *d, int64_t batch, red_ctx *c,
                      double *bytes)
{
    int64_t sizes[4] = {batch, ACT_C, ACT_HW, ACT_HW}, ch = ACT_C;
    c->n = batch;
    if (clops_full(d, s->dt, 4, sizes, clops_scalar_float(1.0), &c->x) != CLOPS_OK ||
        clops_full(d, s->dt, 1, &ch, clops_scalar_float(1.0), &c->w) != CLOPS_OK ||
        clops_full(d, s->dt, 1, &ch, clops_scalar_float(0.0), &c->b) != CLOPS_OK ||
        clops_full(d, s->dt, 1, &ch, clops_scalar_float(0.0), &c->out) != CLOPS_OK ||
        clops_full(d, s->dt, 1, &ch, clops_scalar_float(1.0), &c->out2) != CLOPS_OK)
        return false;
    *bytes = 2.0 * (double)(batch * ACT_C * ACT_HW * ACT_HW) * (double)clops_dtype_size(s->dt);
    return true;
}

/* Makes the input and output of spec s; bytes moved into *bytes. */
static bool setup(const red_spec *s, clops_device *d, int64_t n, int64_t m, int64_t batch,
                  red_ctx *c, double *bytes)
{
    memset(c, 0, sizeof *c);
    c->kind = s->kind;
    c->dim = s->dim;
    if (s->shape == 2)
        return setup_act(s, d, batch, c, bytes);
    int64_t sizes[2] = {s->shape ? m : n, s->shape ? 64 : n};
    if (clops_full(d, s->dt, 2, sizes, clops_scalar_float(1.0), &c->x) != CLOPS_OK)
        return false;
    bool rowwise = s->kind >= K_SOFTMAX;
    c->n = sizes[1];
    if (s->kind >= K_LAYER_NORM &&
        (clops_full(d, s->dt, 1, &sizes[1], clops_scalar_float(1.0), &c->w) != CLOPS_OK ||
         clops_full(d, s->dt, 1, &sizes[1], clops_scalar_float(0.0), &c->b) != CLOPS_OK))
        return false;
    int64_t outn = s->kind == K_SUM_ALL ? 1 : rowwise ? sizes[0] * sizes[1] : sizes[1 - s->dim];
    clops_dtype odt = s->kind == K_ARGMAX ? CLOPS_INT64 : s->dt;
    int nd = s->kind == K_SUM_ALL ? 0 : rowwise ? 2 : 1;
    if (clops_full(d, odt, nd, rowwise ? sizes : &outn, clops_scalar_float(0.0), &c->out) !=
        CLOPS_OK)
        return false;
    *bytes = (double)(sizes[0] * sizes[1]) * (double)clops_dtype_size(s->dt) *
                 (s->kind == K_SOFTMAX_BACKWARD ? 2.0 : 1.0) +
             (double)outn * (double)clops_dtype_size(odt);
    return true;
}

int main(int argc, char **argv)
{
    bench_args args;
    if (!bench_parse_args(argc, argv, "bench_reduce", &args))
        return 2;
    int reps = args.reps;
    double scale = args.scale;
    const char *json = args.json;
    int64_t n = (int64_t)(8192 / sqrt(scale));
    int64_t m = (int64_t)((double)(1 << 20) / scale);
    int64_t batch = (int64_t)(32 / scale) < 2 ? 2 : (int64_t)(32 / scale);
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
        int64_t n1 = n * n;
        double peak = copy_peak(d, n1 - n1 % 4, reps);
        printf("device %s: %s (%s, driver %s)\n", clops_device_label(d), in->name,
               in->platform_name, in->driver_version);
        printf("  copy peak (float4 copy kernel, %lld elements): %.1f GB/s\n", (long long)n1,
               peak);
        printf("  N = %lld, M = %lld, B = %lld\n", (long long)n, (long long)m,
               (long long)batch);
        printf("  %-24s %10s %8s %10s\n", "case", "GB/s", "/peak", "us/call");
        for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
            red_ctx c;
            double bytes = 0, t = 0;
            clops_status st = CLOPS_INTERNAL;
            if (setup(&specs[i], d, n, m, batch, &c, &bytes))
                t = time_calls(d, run_red, &c, reps, 5, &st);
            if (st) {
                printf("  %-24s error: %s\n", specs[i].name, clops_last_error());
            } else {
                double gbs = bytes / t / 1e9;
                printf("  %-24s %10.1f %8.3f %10.1f\n", specs[i].name, gbs,
                       peak > 0 ? gbs / peak : 0, t * 1e6);
                if (jf)
                    fprintf(jf,
                            "%s  {\"device\": \"%s\", \"device_name\": \"%s\", \"case\": \"%s\", "
                            "\"gbs\": %.3f, \"peak_gbs\": %.3f, \"ratio_to_peak\": %.4f, "
                            "\"us_per_call\": %.3f}",
                            first ? "" : ",\n", clops_device_label(d), in->name, specs[i].name,
                            gbs, peak, peak > 0 ? gbs / peak : 0, t * 1e6);
                first = false;
            }
            clops_tensor_release(c.x);
            clops_tensor_release(c.out);
            clops_tensor_release(c.out2);
            clops_tensor_release(c.w);
            clops_tensor_release(c.b);
        }
    }
    if (jf) {
        fprintf(jf, "\n]\n");
        fclose(jf);
    }
    clops_shutdown();
    return 0;
}
