/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench/bench_loss.c: time per call of the loss family, per OpenCL device,
 * in one run.
 *
 *     bench_loss [--device SEL]... [--scale S] [--reps N] [--json FILE]
 *
 * Cases (issue 17): nll_loss over the log-probabilities of a GPT-2
 * training step, float32 [B*T, V] with B*T = 8*512 rows and V = 50257
 * classes (targets uniform, none ignored): forward with reduction mean
 * and none, and the backward (mean), which writes the whole grad_input;
 * and a ResNet-style [64, 1000] forward and backward (mean).  Each is
 * timed through the public API into preallocated out= tensors (the
 * forward's output and total_weight, the backward's grad_input), as the
 * median of batches of back-to-back calls ended by one clFinish.  The
 * forward reads one element per row (a gather) plus the targets, so the
 * figure that matters is us/call; GB/s counts the bytes the op must move
 * (targets, gathered elements and outputs; for the backward all of
 * grad_input) and is compared with the device's copy peak.
 * bench/torch_loss.py runs the same cases with PyTorch under the same
 * names.  --scale divides the rows (at least 1) so POCL runs finish
 * quickly.
 */
#include <stdio.h>
#include <stdlib.h>

#include "clops/ops.h"
#include "bench/bench_common.h"

typedef struct loss_ctx {
    int kind; /* 0 forward mean, 1 forward none, 2 backward mean */
    clops_tensor *x, *t, *out, *tw, *go, *gi;
} loss_ctx;

static const struct {
    const char *name;
    int kind;
    int64_t rows, classes;
} specs[] = {
    {"nll_fwd_mean_gpt2_f32", 0, 8 * 512, 50257},
    {"nll_fwd_none_gpt2_f32", 1, 8 * 512, 50257},
    {"nll_bwd_mean_gpt2_f32", 2, 8 * 512, 50257},
    {"nll_fwd_mean_64x1000_f32", 0, 64, 1000},
    {"nll_bwd_mean_64x1000_f32", 2, 64, 1000},
};

/* One call of the case. */
static clops_status run_loss(void *vctx)
{
    loss_ctx *c = vctx;
    if (c->kind == 2)
        return clops_nll_loss_backward_grad_input_out(c->go, c->x, c->t, NULL, 1, -100, c->tw,
                                                      c->gi);
    return clops_nll_loss_forward_output(c->x, c->t, NULL, c->kind == 1 ? 0 : 1, -100, c->out,
                                         c->tw);
}

/* Allocates the tensors of case i on d (rows already scaled); bytes moved. */
static bool setup(size_t i, clops_device *d, int64_t rows, loss_ctx *c, double *bytes)
{
    int64_t C = specs[i].classes, xs[2] = {rows, C};
    *c = (loss_ctx){.kind = specs[i].kind};
    int64_t *tv = malloc(sizeof(int64_t) * (size_t)rows);
    if (!tv)
        return false;
    for (int64_t r = 0; r < rows; r++)
        tv[r] = (r * 2654435761LL) % C;
    bool ok = clops_randn(xs, 2, CLOPS_FLOAT32, -1, d, NULL, &c->x) == CLOPS_OK &&
              clops_full(d, CLOPS_INT64, 1, &rows, clops_scalar_int(0), &c->t) == CLOPS_OK &&
              clops_tensor_from_host(c->t, tv, sizeof(int64_t) * (size_t)rows) == CLOPS_OK &&
              clops_full(d, CLOPS_FLOAT32, c->kind == 1 ? 1 : 0, &rows, clops_scalar_float(0),
                         &c->out) == CLOPS_OK &&
              clops_full(d, CLOPS_FLOAT32, 0, NULL, clops_scalar_float(1), &c->tw) == CLOPS_OK;
    free(tv);
    if (ok && c->kind == 2)
        ok = clops_full(d, CLOPS_FLOAT32, 0, NULL, clops_scalar_float(1), &c->go) == CLOPS_OK &&
             clops_full(d, CLOPS_FLOAT32, 2, xs, clops_scalar_float(0), &c->gi) == CLOPS_OK;
    double small = (double)rows * (8.0 + 4.0) + (c->kind == 1 ? 4.0 * (double)rows : 8.0);
    *bytes = c->kind == 2 ? small + 4.0 * (double)rows * (double)C : small;
    return ok;
}

/* Releases the case's tensors. */
static void teardown(loss_ctx *c)
{
    clops_tensor *all[] = {c->x, c->t, c->out, c->tw, c->go, c->gi};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        clops_tensor_release(all[i]);
}

int main(int argc, char **argv)
{
    bench_args args;
    if (!bench_parse_args(argc, argv, "bench_loss", &args))
        return 2;
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
        int64_t pn = (int64_t)(64.0 * 1024 * 1024 / args.scale);
        double peak = copy_peak(d, pn - pn % 4, args.reps);
        printf("device %s: %s (%s, driver %s)\n", clops_device_label(d), in->name,
               in->platform_name, in->driver_version);
        printf("  copy peak (float4 copy kernel): %.1f GB/s, scale %g\n", peak, args.scale);
        printf("  %-26s %10s %8s %10s\n", "case", "GB/s", "/peak", "us/call");
        for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
            int64_t rows = (int64_t)((double)specs[i].rows / args.scale);
            loss_ctx c;
            double bytes = 0, t = 0;
            clops_status st = CLOPS_INTERNAL;
            if (setup(i, d, rows < 1 ? 1 : rows, &c, &bytes))
                t = time_calls(d, run_loss, &c, args.reps, 5, &st);
            if (st) {
                printf("  %-26s error: %s\n", specs[i].name, clops_last_error());
            } else {
                double gbs = bytes / t / 1e9;
                printf("  %-26s %10.1f %8.3f %10.1f\n", specs[i].name, gbs,
                       peak > 0 ? gbs / peak : 0, t * 1e6);
                if (jf)
                    fprintf(jf,
                            "%s  {\"device\": \"%s\", \"device_name\": \"%s\", \"case\": \"%s\", "
                            "\"gbs\": %.3f, \"peak_gbs\": %.3f, \"us_per_call\": %.3f}",
                            first ? "" : ",\n", clops_device_label(d), in->name, specs[i].name,
                            gbs, peak, t * 1e6);
                first = false;
            }
            teardown(&c);
        }
    }
    if (jf) {
        fprintf(jf, "\n]\n");
        fclose(jf);
    }
    clops_shutdown();
    return 0;
}
