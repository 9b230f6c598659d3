/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench/bench_pointwise.c: bandwidth of pointwise ops against the device's
 * own copy peak, per OpenCL device, in one run.
 *
 *     bench_pointwise [--device SEL]... [--scale S] [--reps N] [--json FILE]
 *
 * For each device it first measures a plain float4 copy kernel (the peak a
 * memory-bound kernel can reach there), then times each case through the
 * public API: contiguous add in float32/float16/bfloat16, the broadcast add
 * [N,N] + [N,1], a transposed plus a contiguous operand, a step-sliced
 * operand, a unary op (exp) and a ternary op (addcmul).  Figures are medians
 * of batches of back-to-back calls ended by one clFinish; bandwidth counts
 * the bytes each op must read and write once.  Every figure is printed with
 * its ratio to the copy peak measured in the same run; bench/
 * torch_pointwise.py measures PyTorch's CUDA kernels on the same shapes so a
 * run on the GPU machine puts both side by side.
 *
 * --scale divides the default sizes (N = 8192 for the 2-D cases, 2^26
 * elements for the 1-D ones) so POCL runs finish quickly.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clops/ops.h"
#include "core/tensor_impl.h"
#include "host/host.h"
#include "bench/bench_common.h"

/* ---- the op cases -------------------------------------------------------- */

typedef struct op_ctx {
    clops_tensor *a, *b, *c;
    clops_tensor *out; /* preallocated: measures the kernel, not the allocator */
    int kind;          /* 0 add, 1 exp, 2 addcmul */
} op_ctx;

static clops_status run_op(void *vctx)
{
    op_ctx *c = vctx;
    switch (c->kind) {
    case 1:
        return clops_exp_out(c->a, c->out);
    case 2:
        return clops_addcmul_out(c->a, c->b, c->c, clops_scalar_float(0.5), c->out);
    default:
        return clops_add_out(c->a, c->b, clops_scalar_int(1), c->out);
    }
}

/* A tensor of the given shape filled with 1 (values do not matter here). */
static clops_tensor *make(clops_device *d, clops_dtype dt, int nd, int64_t s0, int64_t s1)
{
    int64_t sizes[2] = {s0, s1};
    clops_tensor *t = NULL;
    if (clops_full(d, dt, nd, sizes, clops_scalar_float(1.0), &t) != CLOPS_OK) {
        fprintf(stderr, "bench: %s\n", clops_last_error());
        return NULL;
    }
    return t;
}

static void release_ctx(op_ctx *c)
{
    clops_tensor_release(c->a);
    clops_tensor_release(c->b);
    clops_tensor_release(c->c);
    clops_tensor_release(c->out);
    memset(c, 0, sizeof *c);
}

/* Sets up case i; returns false when there is no case i. */
static bool setup_case(int i, clops_device *d, int64_t n2, int64_t n1, op_ctx *c, bench_case *bc)
{
    memset(c, 0, sizeof *c);
    memset(bc, 0, sizeof *bc);
    bc->run = run_op;
    bc->ctx = c;
    clops_tensor *base = NULL;
    int64_t start = 0, step = 2;
    switch (i) {
    case 0:
    case 1:
    case 2: {
        clops_dtype dt = i == 0 ? CLOPS_FLOAT32 : i == 1 ? CLOPS_FLOAT16 : CLOPS_BFLOAT16;
        bc->name = i == 0 ? "add contiguous float32" : i == 1 ? "add contiguous float16"
                                                              : "add contiguous bfloat16";
        bc->torch_name = i == 0 ? "add_f32" : i == 1 ? "add_f16" : "add_bf16";
        c->a = make(d, dt, 1, n1, 0);
        c->b = make(d, dt, 1, n1, 0);
        c->out = make(d, dt, 1, n1, 0);
        bc->bytes = 3.0 * (double)n1 * (double)clops_dtype_size(dt);
        break;
    }
    case 3:
        bc->name = "add broadcast [N,N]+[N,1] float32";
        bc->torch_name = "add_bcast";
        c->a = make(d, CLOPS_FLOAT32, 2, n2, n2);
        c->b = make(d, CLOPS_FLOAT32, 2, n2, 1);
        c->out = make(d, CLOPS_FLOAT32, 2, n2, n2);
        bc->bytes = 4.0 * (2.0 * (double)n2 * (double)n2 + (double)n2);
        break;
    case 4:
        bc->name = "add transposed+contiguous float32";
        bc->torch_name = "add_transposed";
        base = make(d, CLOPS_FLOAT32, 2, n2, n2);
        if (base)
            core_transpose(base, 0, 1, &c->a);
        clops_tensor_release(base);
        c->b = make(d, CLOPS_FLOAT32, 2, n2, n2);
        c->out = make(d, CLOPS_FLOAT32, 2, n2, n2);
        bc->bytes = 4.0 * 3.0 * (double)n2 * (double)n2;
        break;
    case 5:
        bc->name = "add step-sliced [:, ::2] float32";
        bc->torch_name = "add_sliced";
        base = make(d, CLOPS_FLOAT32, 2, n2, 2 * n2);
        if (base)
            core_slice(base, 1, &start, NULL, step, &c->a);
        clops_tensor_release(base);
        c->b = make(d, CLOPS_FLOAT32, 2, n2, n2);
        c->out = make(d, CLOPS_FLOAT32, 2, n2, n2);
        bc->bytes = 4.0 * 3.0 * (double)n2 * (double)n2;
        break;
    case 6:
        bc->name = "exp contiguous float32";
        bc->torch_name = "exp_f32";
        c->kind = 1;
        c->a = make(d, CLOPS_FLOAT32, 1, n1, 0);
        c->out = make(d, CLOPS_FLOAT32, 1, n1, 0);
        bc->bytes = 2.0 * 4.0 * (double)n1;
        break;
    case 7:
        bc->name = "addcmul contiguous float32";
        bc->torch_name = "addcmul_f32";
        c->kind = 2;
        c->a = make(d, CLOPS_FLOAT32, 1, n1, 0);
        c->b = make(d, CLOPS_FLOAT32, 1, n1, 0);
        c->c = make(d, CLOPS_FLOAT32, 1, n1, 0);
        c->out = make(d, CLOPS_FLOAT32, 1, n1, 0);
        bc->bytes = 4.0 * 4.0 * (double)n1;
        break;
    default:
        return false;
    }
    return true;
}

int main(int argc, char **argv)
{
    bench_args args;
    if (!bench_parse_args(argc, argv, "bench_pointwise", &args))
        return 2;
    double scale = args.scale;
    int reps = args.reps;
    const char *json = args.json;
    int64_t n2 = (int64_t)(8192 / sqrt(scale));
    int64_t n1 = (int64_t)((double)(1 << 26) / scale);
    n1 -= n1 % 4;
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
        double peak = copy_peak(d, n1, reps);
        printf("device %s: %s (%s, driver %s)\n", clops_device_label(d), in->name,
               in->platform_name, in->driver_version);
        printf("  copy peak (float4 copy kernel, %lld elements): %.1f GB/s\n", (long long)n1,
               peak);
        printf("  %-38s %10s %8s %10s\n", "case", "GB/s", "/peak", "us/call");
        for (int i = 0;; i++) {
            op_ctx c;
            bench_case bc;
            if (!setup_case(i, d, n2, n1, &c, &bc))
                break;
            clops_status st = CLOPS_OK;
            double t = 0;
            if (!c.a || !c.out || (bc.bytes > 0 && c.kind != 1 && !c.b))
                st = CLOPS_INTERNAL;
            else
                t = time_calls(d, bc.run, bc.ctx, reps, 5, &st);
            if (st) {
                printf("  %-38s error: %s\n", bc.name, clops_last_error());
            } else {
                double gbs = bc.bytes / t / 1e9;
                printf("  %-38s %10.1f %8.3f %10.1f\n", bc.name, gbs, peak > 0 ? gbs / peak : 0,
                       t * 1e6);
                if (jf)
                    fprintf(jf,
                            "%s  {\"device\": \"%s\", \"device_name\": \"%s\", \"case\": \"%s\", "
                            "\"torch_case\": \"%s\", \"gbs\": %.3f, \"peak_gbs\": %.3f, "
                            "\"ratio_to_peak\": %.4f, \"us_per_call\": %.3f}",
                            first ? "" : ",\n", clops_device_label(d), in->name, bc.name,
                            bc.torch_name, gbs, peak, peak > 0 ? gbs / peak : 0, t * 1e6);
                first = false;
            }
            release_ctx(&c);
        }
    }
    if (jf) {
        fprintf(jf, "\n]\n");
        fclose(jf);
    }
    clops_shutdown();
    return 0;
}
