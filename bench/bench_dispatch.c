/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench/bench_dispatch.c: the host cost of one operator call through the
 * dispatcher, against the raw OpenCL enqueue of the same kernel.
 *
 *     bench_dispatch [--calls N] [--batches B] [--finish-every F] [--device SEL]
 *                    [--op copy_|add.out]
 *
 * Two calls are measured, each the smallest of its kind that launches
 * exactly one device kernel, on one-element float32 tensors:
 *   copy_    out(int32) <- a: the pointwise engine's cast kernel (a
 *            same-dtype copy would be a clEnqueueCopyBuffer instead);
 *   add.out  out <- a + 0.5 * b: a pointwise op of the inventory, reached
 *            through its pointwise binding.
 * Every variant of a call enqueues the same cl_kernel with the same
 * arguments, so the differences between variants are host work only:
 *
 *   raw          clSetKernelArg per argument + clEnqueueNDRangeKernel on the
 *                cl_kernel the dispatch path uses
 *   host_launch  host_kernel_lookup (the kernel cache's hash probe) +
 *                host_launch (lock, set arguments, enqueue)
 *   pw_run       the pointwise engine alone: promotion, output checks,
 *                planning, key packing, lookup and launch
 *   kernel_fn    the typed kernel the dispatcher runs (core_copy_, or
 *                pw_bound_run for add.out)
 *   dispatch     the public typed wrapper (clops_copy_, clops_add_out):
 *                dispatcher + all of the above
 *   boxed        clops_call_boxed: argument checking against the schema,
 *                then the same kernel through its boxed adapter
 *
 * Timing is enqueue-only: no clFinish per call, but one every F calls
 * (outside the timed region) so the queue does not grow without bound.  A
 * batch is N calls; variants run in interleaved batches so that drifts of
 * the machine hit all of them alike, and the figure per variant is the
 * median over B batches.  Each batch is timed twice: CPU time of the calling
 * thread (CLOCK_THREAD_CPUTIME_ID: the host work itself, immune to the
 * thread being preempted by the OpenCL runtime's workers or other
 * processes, which on a small shared machine dominates wall time) and wall
 * time.  The figures that matter are the difference dispatch - raw (the
 * issue's target: at most 1 us) and the ratio dispatch / raw, measured in
 * one run on one device.  One machine-readable line per device and call
 * starts with "BENCH_DISPATCH".
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clops/ops.h"
#include "codegen_pointwise/pw.h"
#include "codegen_pointwise/pw_bind.h"
#include "dispatch/dispatch.h"
#include "host/host.h"
#include "ops/tensor/tensor.h"

enum { V_RAW, V_HOST_LAUNCH, V_PW_RUN, V_KERNEL_FN, V_DISPATCH, V_BOXED, V_COUNT };

static const char *const variant_names[V_COUNT] = {"raw", "host_launch", "pw_run",
                                                   "kernel_fn", "dispatch", "boxed"};

/* The two calls measured. */
enum { CASE_COPY, CASE_ADD, CASE_COUNT };

static const char *const case_names[CASE_COUNT] = {"copy_", "add.out"};
static const char *const case_help[CASE_COUNT][V_COUNT] = {
    {"clSetKernelArg x5 + clEnqueueNDRangeKernel", "host_kernel_lookup + host_launch",
     "pw_run (pointwise engine, no dispatcher)", "core_copy_ (the kernel dispatch runs)",
     "clops_copy_ (typed wrapper, full path)", "clops_call_boxed(copy_)"},
    {"clSetKernelArg x8 + clEnqueueNDRangeKernel", "host_kernel_lookup + host_launch",
     "pw_run (pointwise engine, no dispatcher)", "pw_bound_run (the kernel dispatch runs)",
     "clops_add_out (typed wrapper, full path)", "clops_call_boxed(add.out)"},
};

#define MAX_RAW_ARGS 8

/* Everything one measured call needs. */
typedef struct bench_ctx {
    int which; /* CASE_* */
    clops_device *dev;
    clops_tensor *a, *b, *out; /* copy_: out <- a; add.out: out <- a + alpha * b */
    clops_scalar alpha;
    const clops_op *op;
    pw_binding *binding; /* add.Tensor's binding (add.out shares it) */
    host_kernel *kernel;
    host_kkey key;
    /* Raw launch arguments, packed as codegen_pointwise/run.c packs them. */
    host_arg raw[MAX_RAW_ARGS];
    int nraw;
    cl_mem mems[3];
    uint32_t meta[5];
    uint32_t scalars[2]; /* 4-byte compute type: int32 (copy), float (add) */
    uint32_t flags;
    float alpha_f;
    size_t global, local;
} bench_ctx;

/* Microseconds on a clock: CLOCK_MONOTONIC (wall) or
 * CLOCK_THREAD_CPUTIME_ID (CPU time of the calling thread). */
static double now_us(clockid_t clock)
{
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec * 1e-3;
}

/* The kernel-cache key of a pointwise kernel over one contiguous element
 * (rank 0, 32-bit indices), packed exactly as spec_key() in
 * codegen_pointwise/run.c does; setup() fails loudly if the two ever drift
 * apart. */
static host_kkey pointwise_key(const pw_op *op, clops_dtype out, clops_dtype compute,
                               const clops_dtype *in)
{
    host_kkey k = {{0, 0, 0, 0}};
    k.w[0] = (1ull << 56) | ((uint64_t)(unsigned)op->id << 32) | ((uint64_t)out << 24) |
             ((uint64_t)compute << 16);
    for (int j = 0; j < op->n_in; j++)
        k.w[1] |= (uint64_t)in[j] << (8 * j);
    k.w[2] = (uint64_t)(uintptr_t)op;
    return k;
}

/* The pw_op of the case. */
static const pw_op *case_op(const bench_ctx *b)
{
    return b->which == CASE_COPY ? &pw_op_copy : b->binding->op;
}

/* One call of variant v. */
static clops_status call_once(bench_ctx *b, int v)
{
    switch (v) {
    case V_RAW: {
        cl_kernel k = b->kernel->kernel;
        cl_int err = CL_SUCCESS;
        for (int i = 0; i < b->nraw; i++)
            err |= clSetKernelArg(k, (cl_uint)i, b->raw[i].size, b->raw[i].value);
        if (err == CL_SUCCESS)
            err = clEnqueueNDRangeKernel(b->dev->queue, k, 1, NULL, &b->global, &b->local, 0,
                                         NULL, NULL);
        return err == CL_SUCCESS ? CLOPS_OK : host_cl_fail(err, "raw enqueue", b->dev);
    }
    case V_HOST_LAUNCH: {
        host_kernel *k = host_kernel_lookup(b->dev, &b->key);
        if (!k)
            return clops__fail(CLOPS_INTERNAL, "kernel vanished from the cache");
        return host_launch(b->dev, k, b->nraw, b->raw, host_grid_size(b->dev, k, 1));
    }
    case V_PW_RUN: {
        pw_operand in[2] = {pw_tensor(b->a), pw_tensor(b->b)};
        if (b->which == CASE_COPY) {
            pw_options opts = {.result = CLOPS_INT32,
                               .compute = CLOPS_INT32,
                               .opname = "copy_",
                               .dst_defines_shape = true};
            return pw_run(&pw_op_copy, PW_OUT, in, NULL, b->out, &opts, NULL);
        }
        pw_options opts = {.result = CLOPS_DTYPE_NONE, .compute = CLOPS_DTYPE_NONE,
                           .opname = "add.out"};
        return pw_run(case_op(b), PW_OUT, in, &b->alpha, b->out, &opts, NULL);
    }
    case V_KERNEL_FN: {
        if (b->which == CASE_COPY)
            return core_copy_(b->out, b->a, false);
        const pw_arg args[3] = {pw_arg_t(b->a), pw_arg_t(b->b), pw_arg_s(b->alpha)};
        return pw_bound_run(b->binding, PW_OUT, b->out, args, 3, NULL);
    }
    case V_DISPATCH:
        if (b->which == CASE_COPY)
            return clops_copy_(b->out, b->a, false);
        return clops_add_out(b->a, b->b, b->alpha, b->out);
    default: {
        clops_value args[4];
        int n = 0;
        if (b->which == CASE_COPY) {
            args[n++] = clops_value_tensor(b->out);
            args[n++] = clops_value_tensor(b->a);
            args[n++] = clops_value_bool(false);
        } else {
            args[n++] = clops_value_tensor(b->a);
            args[n++] = clops_value_tensor(b->b);
            args[n++] = clops_value_scalar(b->alpha);
            args[n++] = clops_value_tensor(b->out);
        }
        clops_value rets[1];
        clops_status st = clops_call_boxed(b->op, args, n, rets, 1);
        if (st == CLOPS_OK)
            clops_value_clear(&rets[0]);
        return st;
    }
    }
}

/* One batch of `calls` calls of variant v: microseconds per call of the
 * calling thread's CPU time into *cpu and of wall time into *wall; false on
 * failure.  The queue is drained every finish_every calls, outside the
 * timed region. */
static bool run_batch(bench_ctx *b, int v, int calls, int finish_every, double *cpu,
                      double *wall)
{
    double tc = 0.0, tw = 0.0;
    for (int done = 0; done < calls;) {
        int chunk = calls - done < finish_every ? calls - done : finish_every;
        double w0 = now_us(CLOCK_MONOTONIC), c0 = now_us(CLOCK_THREAD_CPUTIME_ID);
        for (int i = 0; i < chunk; i++)
            if (call_once(b, v) != CLOPS_OK)
                return false;
        tc += now_us(CLOCK_THREAD_CPUTIME_ID) - c0;
        tw += now_us(CLOCK_MONOTONIC) - w0;
        if (host_finish(b->dev) != CLOPS_OK)
            return false;
        done += chunk;
    }
    *cpu = tc / calls;
    *wall = tw / calls;
    return true;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* A one-element tensor of dtype dt on dev holding v (float32) or (int)v. */
static clops_status one_element(clops_device *dev, clops_dtype dt, float v, clops_tensor **out)
{
    const int64_t n1 = 1;
    int32_t iv = (int32_t)v;
    return clops_from_host(dev, dt, 1, &n1, dt == CLOPS_FLOAT32 ? (const void *)&v : &iv, 4, out);
}

/* Sets up the case's tensors, makes the first call (which compiles the
 * kernel), finds that kernel in the cache and packs its raw arguments. */
static clops_status setup(bench_ctx *b, clops_device *dev, int which)
{
    memset(b, 0, sizeof *b);
    b->which = which;
    b->dev = dev;
    b->alpha = clops_scalar_float(0.5);
    clops_status st = one_element(dev, CLOPS_FLOAT32, 1.0f, &b->a);
    if (st == CLOPS_OK)
        st = one_element(dev, CLOPS_FLOAT32, 2.0f, &b->b);
    if (st == CLOPS_OK)
        st = one_element(dev, which == CASE_COPY ? CLOPS_INT32 : CLOPS_FLOAT32, 0.0f, &b->out);
    if (st == CLOPS_OK)
        st = clops_op_find(case_names[which], &b->op);
    for (int i = 0; st == CLOPS_OK && which == CASE_ADD && i < dispatch_pw_binding_count; i++)
        if (strcmp(dispatch_pw_bindings[i].opname, "add.Tensor") == 0)
            b->binding = &dispatch_pw_bindings[i];
    if (st == CLOPS_OK && which == CASE_ADD && !b->binding)
        st = clops__fail(CLOPS_INTERNAL, "add.Tensor has no pointwise binding");
    if (st == CLOPS_OK)
        st = call_once(b, V_DISPATCH);
    if (st == CLOPS_OK)
        st = host_finish(dev);
    if (st)
        return st;
    const pw_op *op = case_op(b);
    clops_dtype in[2] = {CLOPS_FLOAT32, CLOPS_FLOAT32};
    clops_dtype res = which == CASE_COPY ? CLOPS_INT32 : CLOPS_FLOAT32;
    b->key = pointwise_key(op, res, res, in);
    b->kernel = host_kernel_lookup(dev, &b->key);
    if (!b->kernel)
        return clops__fail(CLOPS_INTERNAL,
                           "%s: the kernel is not in the cache under the expected key: "
                           "bench_dispatch's pointwise_key() no longer matches spec_key() in "
                           "codegen_pointwise/run.c",
                           case_names[which]);
    /* Arguments: out, inputs, {numel, ndim, offsets...}, one scalar slot per
     * input (unused: the inputs are tensors), flags (each one-element input
     * reads a single element: bit 8 + j), the parameters (alpha). */
    int nin = op->n_in;
    b->mems[0] = b->out->storage->block->mem;
    b->mems[1] = b->a->storage->block->mem;
    b->mems[2] = b->b->storage->block->mem;
    b->meta[0] = 1;
    b->meta[1] = 0;
    b->meta[2] = (uint32_t)b->out->offset;
    b->meta[3] = (uint32_t)b->a->offset;
    b->meta[4] = (uint32_t)b->b->offset;
    b->flags = 0;
    for (int j = 0; j < nin; j++)
        b->flags |= 1u << (8 + j);
    b->alpha_f = 0.5f;
    int n = 0;
    for (int j = 0; j <= nin; j++)
        b->raw[n++] = (host_arg){sizeof(cl_mem), &b->mems[j]};
    b->raw[n++] = (host_arg){(size_t)(3 + nin) * sizeof(uint32_t), b->meta};
    for (int j = 0; j < nin; j++)
        b->raw[n++] = (host_arg){sizeof(uint32_t), &b->scalars[j]};
    b->raw[n++] = (host_arg){sizeof b->flags, &b->flags};
    if (which == CASE_ADD)
        b->raw[n++] = (host_arg){sizeof b->alpha_f, &b->alpha_f};
    b->nraw = n;
    b->local = b->kernel->wg_size;
    b->global = host_grid_size(dev, b->kernel, 1);
    return CLOPS_OK;
}

/* Releases a case's tensors. */
static void teardown(bench_ctx *b)
{
    clops_tensor_release(b->a);
    clops_tensor_release(b->b);
    clops_tensor_release(b->out);
}

/* Median and quartiles of n values (sorted in place). */
typedef struct stats {
    double med, lo, hi;
} stats;

static stats summarize(double *x, int n)
{
    qsort(x, (size_t)n, sizeof(double), cmp_double);
    return (stats){x[n / 2], x[n / 4], x[(3 * n) / 4]};
}

/* Measures every variant of one case on one device and prints the report. */
static int bench_case(clops_device *dev, int which, int calls, int batches, int finish_every)
{
    bench_ctx b;
    clops_status st = setup(&b, dev, which);
    if (st) {
        fprintf(stderr, "bench_dispatch: %s: %s: %s\n", clops_device_label(dev),
                case_names[which], clops_last_error());
        teardown(&b);
        return 1;
    }
    double *cpu[V_COUNT], *wall[V_COUNT], c, w;
    for (int v = 0; v < V_COUNT; v++) {
        cpu[v] = calloc((size_t)batches, sizeof(double));
        wall[v] = calloc((size_t)batches, sizeof(double));
    }
    /* Warm-up: one batch of each, discarded. */
    for (int v = 0; v < V_COUNT; v++)
        run_batch(&b, v, calls, finish_every, &c, &w);
    int rc = 0;
    for (int i = 0; i < batches && rc == 0; i++)
        for (int j = 0; j < V_COUNT && rc == 0; j++) {
            int v = (i + j) % V_COUNT; /* rotate the order */
            if (!run_batch(&b, v, calls, finish_every, &cpu[v][i], &wall[v][i])) {
                fprintf(stderr, "bench_dispatch: %s: %s: %s failed: %s\n",
                        clops_device_label(dev), case_names[which], variant_names[v],
                        clops_last_error());
                rc = 1;
            }
        }
    stats sc[V_COUNT], sw[V_COUNT];
    for (int v = 0; v < V_COUNT && rc == 0; v++) {
        sc[v] = summarize(cpu[v], batches);
        sw[v] = summarize(wall[v], batches);
    }
    if (rc == 0) {
        const clops_device_info *info = clops_device_get_info(dev);
        printf("\n%s: %s (%s, %s)\n", clops_device_label(dev), info->name,
               clops_vendor_name(info->vendor), info->platform_version);
        printf("  %s on one-element tensors: %d batches x %d calls, clFinish every %d calls "
               "(untimed); per call: median [quartiles] of the batches\n",
               case_names[which], batches, calls, finish_every);
        printf("  %-12s %-42s %-31s %s\n", "variant", "what", "thread CPU time, us", "wall, us");
        for (int v = 0; v < V_COUNT; v++)
            printf("  %-12s %-42s %6.3f [%6.3f, %6.3f] x%.2f  %6.3f [%6.3f, %6.3f]\n",
                   variant_names[v], case_help[which][v], sc[v].med, sc[v].lo, sc[v].hi,
                   sc[v].med / sc[V_RAW].med, sw[v].med, sw[v].lo, sw[v].hi);
        double over = sc[V_DISPATCH].med - sc[V_RAW].med;
        double over_w = sw[V_DISPATCH].med - sw[V_RAW].med;
        printf("  dispatcher + argument handling above the raw enqueue: %+.3f us/call CPU, "
               "%+.3f us/call wall (target <= 1 us: %s)\n",
               over, over_w, over <= 1.0 ? "met" : "NOT met");
        printf("    of which (CPU): host_launch %+.3f, pointwise engine %+.3f, kernel function "
               "%+.3f, dispatcher %+.3f\n",
               sc[V_HOST_LAUNCH].med - sc[V_RAW].med, sc[V_PW_RUN].med - sc[V_HOST_LAUNCH].med,
               sc[V_KERNEL_FN].med - sc[V_PW_RUN].med, sc[V_DISPATCH].med - sc[V_KERNEL_FN].med);
        printf("BENCH_DISPATCH device=%s vendor=%s name=\"%s\" op=%s calls=%d batches=%d "
               "finish_every=%d",
               clops_device_label(dev), clops_vendor_name(info->vendor), info->name,
               case_names[which], calls, batches, finish_every);
        for (int v = 0; v < V_COUNT; v++)
            printf(" %s_cpu_us=%.4f", variant_names[v], sc[v].med);
        for (int v = 0; v < V_COUNT; v++)
            printf(" %s_wall_us=%.4f", variant_names[v], sw[v].med);
        printf(" dispatch_over_raw_cpu_us=%.4f dispatch_over_raw_wall_us=%.4f "
               "dispatcher_only_cpu_us=%.4f dispatch_over_raw_cpu_ratio=%.3f\n",
               over, over_w, sc[V_DISPATCH].med - sc[V_KERNEL_FN].med,
               sc[V_DISPATCH].med / sc[V_RAW].med);
    }
    for (int v = 0; v < V_COUNT; v++) {
        free(cpu[v]);
        free(wall[v]);
    }
    host_finish(dev);
    teardown(&b);
    return rc;
}

/* Reads the integer after an option; exits the usage path on bad input. */
static int int_arg(int argc, char **argv, int *i, int *out)
{
    if (*i + 1 >= argc)
        return 1;
    char *end = NULL;
    long v = strtol(argv[++*i], &end, 10);
    if (!end || *end || v <= 0 || v > 100000000)
        return 1;
    *out = (int)v;
    return 0;
}

int main(int argc, char **argv)
{
    int calls = 2000, batches = 21, finish_every = 64;
    const char *sel = NULL, *only = NULL;
    for (int i = 1; i < argc; i++) {
        int bad = 0;
        if (strcmp(argv[i], "--calls") == 0)
            bad = int_arg(argc, argv, &i, &calls);
        else if (strcmp(argv[i], "--batches") == 0)
            bad = int_arg(argc, argv, &i, &batches);
        else if (strcmp(argv[i], "--finish-every") == 0)
            bad = int_arg(argc, argv, &i, &finish_every);
        else if (strcmp(argv[i], "--device") == 0 && i + 1 < argc)
            sel = argv[++i];
        else if (strcmp(argv[i], "--op") == 0 && i + 1 < argc)
            only = argv[++i];
        else
            bad = 1;
        if (bad) {
            fprintf(stderr, "usage: %s [--calls N] [--batches B] [--finish-every F] "
                            "[--device SEL] [--op copy_|add.out]\n",
                    argv[0]);
            return 2;
        }
    }
    int count = 0;
    if (clops_device_count(&count) != CLOPS_OK) {
        fprintf(stderr, "bench_dispatch: %s\n", clops_last_error());
        return 1;
    }
    printf("bench_dispatch: host cost of one call that launches one small kernel, per OpenCL "
           "device\n");
    int rc = 0, ran = 0;
    for (int i = 1; i < count; i++) {
        clops_device *d = NULL;
        if (clops_device_get(i, &d) != CLOPS_OK)
            continue;
        if (sel) {
            clops_device *want = NULL;
            if (clops_device_find(sel, &want) != CLOPS_OK || want != d)
                continue;
        }
        for (int c = 0; c < CASE_COUNT; c++)
            if (!only || strcmp(only, case_names[c]) == 0)
                rc |= bench_case(d, c, calls, batches, finish_every);
        ran++;
    }
    if (ran == 0)
        printf("no OpenCL device to measure (%s)\n", clops_device_discovery_note());
    clops_shutdown();
    return rc;
}
