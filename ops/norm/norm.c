/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ops/norm/norm.c: the normalization family: _softmax, _log_softmax and their
 * backward ops (_softmax_backward_data, _log_softmax_backward_data), as
 * structured family functions of dispatch/inventory/norm.yaml.
 *
 * A call is planned as rows: the input made contiguous, `n` elements of
 * the softmax dim at stride `inner` (the product of the later dims), one
 * row per (outer, inner) pair.  The CPU device runs ref/norm.c; OpenCL
 * devices run cl_kernels/norm.cl with L lanes per row: L near n/8 (at most
 * the work-group size) when rows are contiguous (inner == 1), else 1 (rows
 * interleaved in memory: neighbouring items read neighbouring elements).
 * One program per (input dtype, output dtype) holds every kernel (layer
 * and rms norm too: ops/norm/norm_layer.c).
 */
#include <stdio.h>
#include <string.h>

#include "core/debug.h"
#include "host/host.h"
#include "ops/tensor/tensor.h"
#include "ops/kit/kit.h"
#include "ops/kit/lines.h"
#include "ops/norm/norm.h"
#include "ops/reduce/reduce.h"
#include "ops/kernels_generated.h"

typedef struct gen_ctx {
    clops_dtype in, out;
} gen_ctx;

/* The defines of one (input, output) dtype pair's program. */
static clops_status write_defines(const void *vctx, const clops_device *d, strbuf *sb)
{
    const gen_ctx *g = vctx;
    bool dbl = g->in == CLOPS_FLOAT64 || g->out == CLOPS_FLOAT64;
    sb_printf(sb,
              "#define RWG %zu\n#define TIN_T %s\n#define TOUT_T %s\n#define IN_KIND %d\n"
              "#define OUT_KIND %d\n#define CT %s\n#define RES %d\n#define NORM_CPU %d\n"
              "#define NV %d\n#define Y_IS_CT %d\n",
              reduce_wg(d), kit_cl_storage(g->in), kit_cl_storage(g->out),
              (int)kit_load_store(g->in), (int)kit_load_store(g->out), dbl ? "double" : "float",
              norm_residency(d, g->in, g->out), kit_is_cpu(d) ? 1 : 0, dbl ? 8 : 16,
              g->out == (dbl ? CLOPS_FLOAT64 : CLOPS_FLOAT32) ? 1 : 0);
    return CLOPS_OK;
}

int norm_residency(const clops_device *d, clops_dtype in, clops_dtype out)
{
    /* Measured on an H100 (docs/benchmarks.md): a resident row pays for
     * 4- and 8-byte inputs (softmax 0.79x -> 0.96x of PyTorch); for 2-byte
     * inputs the second read costs less than the occupancy the local
     * array takes (bf16 softmax 1.09x -> 0.89x), and layer/rms norm,
     * whose second read hits the cache, did not gain.  At most 32 KiB of
     * the device's local memory, leaving room for the kernels' reduction
     * arrays (at most 24 bytes a work-item). */
    if (clops_dtype_size(in) < 4)
        return 0;
    size_t ct = in == CLOPS_FLOAT64 || out == CLOPS_FLOAT64 ? 8 : 4, wg = reduce_wg(d);
    uint64_t budget = d->info.local_mem_bytes > 24 * wg + 1024
                          ? d->info.local_mem_bytes - 24 * wg - 1024
                          : 0;
    if (budget > 32768)
        budget = 32768;
    return (int)(budget / (wg * ct));
}

int norm_resident_flag(void)
{
    return clops_debug_get(CLOPS_DEBUG_NORM_STREAMING) ? 0 : 1;
}

clops_status norm_get_kernel(clops_device *d, int which, clops_dtype in, clops_dtype out,
                            const char *op, host_kernel **k)
{
    static const char *const names[NORM_K_COUNT] = {
        [NORM_K_SOFTMAX] = "norm_softmax",
        [NORM_K_SOFTMAX_BACKWARD] = "norm_softmax_backward",
        [NORM_K_LAYER] = "norm_layer",
        [NORM_K_SOFTMAX_CPU] = "norm_softmax_cpu",
        [NORM_K_LAYER_CPU] = "norm_layer_cpu",
        [NORM_K_SOFTMAX_BACKWARD_CPU] = "norm_softmax_backward_cpu",
        [NORM_K_AFFINE_CPU] = "norm_affine_cpu",
        [NORM_K_LAYER_BACKWARD] = "norm_layer_backward",
        [NORM_K_LAYER_BACKWARD_CPU] = "norm_layer_backward_cpu",
        [NORM_K_LAYER_WGRAD] = "norm_layer_wgrad",
        [NORM_K_LAYER_WGRAD_CPU] = "norm_layer_wgrad_cpu",
        [NORM_K_CHAN_PARTIAL] = "norm_chan_partial",
        [NORM_K_CHAN_PARTIAL_CPU] = "norm_chan_partial_cpu",
        [NORM_K_CHAN_FOLD_FWD] = "norm_chan_fold_fwd",
        [NORM_K_CHAN_FOLD_BWD] = "norm_chan_fold_bwd",
        [NORM_K_CHAN_APPLY] = "norm_chan_apply",
        [NORM_K_CHAN_APPLY_CPU] = "norm_chan_apply_cpu",
        [NORM_K_LAYER_RR] = "norm_layer_rr",
        [NORM_K_GROUP_AFFINE_CPU] = "norm_group_affine_cpu",
        [NORM_K_GROUP_WGRAD_CPU] = "norm_group_wgrad_cpu",
        [NORM_K_GROUP_CPU] = "norm_group_cpu"};
    /* the kernels with reqd_work_group_size(RWG) */
    static const bool needs_wg[NORM_K_COUNT] = {
        [NORM_K_SOFTMAX] = true,       [NORM_K_SOFTMAX_BACKWARD] = true,
        [NORM_K_LAYER] = true,         [NORM_K_LAYER_BACKWARD] = true,
        [NORM_K_CHAN_PARTIAL] = true,  [NORM_K_LAYER_RR] = true};
    if (which < 0 || which >= NORM_K_COUNT)
        return clops__fail(CLOPS_INTERNAL, "%s: no normalization kernel %d", op, which);
    host_kkey key = {{(4ull << 56) | ((uint64_t)which << 16) | ((uint64_t)in << 8) | out,
                      reduce_wg(d), 0, 0}};
    host_kernel *kern = kit_find(d, &key);
    if (!kern) {
        char pname[64], title[96];
        snprintf(pname, sizeof pname, "norm/%s-%s", clops_dtype_name(in), clops_dtype_name(out));
        snprintf(title, sizeof title,
                 "clops normalization program %s -> %s (see ops/norm/norm.c)",
                 clops_dtype_name(in), clops_dtype_name(out));
        gen_ctx g = {in, out};
        kit_program p = {.name = pname,
                         .title = title,
                         .headers = {"items.clh"},
                         .write = write_defines,
                         .file = "norm.cl",
                         .ctx = &g};
        clops_status st = kit_build(d, &key, &p, names[which], op, &kern);
        if (st)
            return st;
    }
    clops_status st =
        kit_need_wg(kern, needs_wg[which] ? (int64_t)reduce_wg(d) : 0, d, op);
    if (st == CLOPS_OK)
        *k = kern;
    return st;
}

static cl_mem mem_of(const clops_tensor *t)
{
    return t->storage->block ? t->storage->block->mem : NULL;
}

/* The rows of a contiguous tensor t over dim: count, length, stride. */
static void rows_of(const clops_tensor *t, int dim, int64_t *rows, int64_t *n, int64_t *inner)
{
    *n = t->ndim ? t->sizes[dim] : 1;
    *inner = 1;
    for (int d = dim + 1; d < t->ndim; d++)
        *inner *= t->sizes[d];
    int64_t numel = tensor_numel(t);
    *rows = *n ? numel / *n : 0;
}

/* Softmax (which 0) or its backward (which 1) on contiguous a (and b)
 * into contiguous y, planned as rows (rows_of). */
typedef struct rows_job {
    const char *op;
    int which;
    bool logm;
    const clops_tensor *a, *b;
    clops_tensor *y;
    int64_t rows, n, inner;
} rows_job;

/* The kernel arguments every kind's launch passes first. */
typedef struct rows_args {
    cl_long ao, bo, yo, rows, n, inner;
    cl_mem am, bm, ym;
    host_arg a[11];
    int na;
} rows_args;

static void rows_args_init(const rows_job *j, rows_args *r)
{
    r->ao = j->a->offset;
    r->bo = j->b ? j->b->offset : 0;
    r->yo = j->y->offset;
    r->rows = j->rows;
    r->n = j->n;
    r->inner = j->inner;
    r->am = mem_of(j->a);
    r->bm = j->b ? mem_of(j->b) : NULL;
    r->ym = mem_of(j->y);
    r->na = 0;
    r->a[r->na++] = (host_arg){sizeof r->am, &r->am};
    r->a[r->na++] = (host_arg){sizeof r->ao, &r->ao};
    if (j->which) {
        r->a[r->na++] = (host_arg){sizeof r->bm, &r->bm};
        r->a[r->na++] = (host_arg){sizeof r->bo, &r->bo};
    }
    r->a[r->na++] = (host_arg){sizeof r->ym, &r->ym};
    r->a[r->na++] = (host_arg){sizeof r->yo, &r->yo};
    r->a[r->na++] = (host_arg){sizeof r->rows, &r->rows};
    r->a[r->na++] = (host_arg){sizeof r->n, &r->n};
    r->a[r->na++] = (host_arg){sizeof r->inner, &r->inner};
}

/* The host CPU device: ref/norm.c. */
static clops_status rows_host(void *job)
{
    const rows_job *j = job;
    return j->which ? norm_ref_softmax_backward(j->a, j->b, j->y, j->rows, j->n, j->inner, j->logm)
                    : norm_ref_softmax(j->a, j->y, j->rows, j->n, j->inner, j->logm);
}

/* CPU-like devices: norm_softmax_cpu / norm_softmax_backward_cpu, `per`
 * whole rows per work item of one. */
static clops_status rows_cpu(void *job)
{
    const rows_job *j = job;
    clops_device *d = j->a->storage->device;
    host_kernel *k = NULL;
    clops_status st =
        norm_get_kernel(d, j->which ? NORM_K_SOFTMAX_BACKWARD_CPU : NORM_K_SOFTMAX_CPU,
                        j->a->dtype, j->y->dtype, j->op, &k);
    if (st)
        return st;
    rows_args r;
    rows_args_init(j, &r);
    cl_long per = ops_cpu_units_per_item(d, j->rows);
    cl_int clog = j->logm ? 1 : 0;
    r.a[r.na++] = (host_arg){sizeof per, &per};
    r.a[r.na++] = (host_arg){sizeof clog, &clog};
    return host_launch_local(d, k, r.na, r.a, (size_t)ops_cdiv(j->rows, per), 1);
}

/* GPUs: L lanes per row (L near n/8 for contiguous rows), wg/L rows per
 * work-group. */
static clops_status rows_gpu(void *job)
{
    const rows_job *j = job;
    clops_device *d = j->a->storage->device;
    host_kernel *k = NULL;
    clops_status st = norm_get_kernel(d, j->which, j->a->dtype, j->y->dtype, j->op, &k);
    if (st)
        return st;
    int64_t wg = (int64_t)reduce_wg(d);
    int64_t L = j->inner == 1 ? reduce_pow2_floor(j->n / 8 > 1 ? j->n / 8 : 1) : 1;
    if (L > wg)
        L = wg;
    rows_args r;
    rows_args_init(j, &r);
    cl_int cL = (cl_int)L, clog = (j->logm ? 1 : 0) | (j->which ? 0 : 2 * norm_resident_flag());
    r.a[r.na++] = (host_arg){sizeof cL, &cL};
    r.a[r.na++] = (host_arg){sizeof clog, &clog};
    int64_t per = wg / L;
    return host_launch(d, k, r.na, r.a, (size_t)((j->rows + per - 1) / per * wg));
}

static const kit_launches rows_launches = {
    "softmax", {[KIT_HOST] = rows_host, [KIT_CPU] = rows_cpu, [KIT_GPU] = rows_gpu}};

static clops_status run_rows(const char *op, int which, bool logm, const clops_tensor *a,
                             const clops_tensor *b, clops_tensor *y, int dim)
{
    rows_job j = {op, which, logm, a, b, y, 0, 0, 0};
    rows_of(a, dim, &j.rows, &j.n, &j.inner);
    if (j.rows == 0 || j.n == 0)
        return CLOPS_OK;
    return kit_run(&rows_launches, a->storage->device, &j);
}

/* Destination handling shared by forward and backward: runs into the
 * structured target, or a contiguous temporary copied into it. */
static clops_status run_into(const char *op, int which, bool logm, clops_tensor *a,
                             clops_tensor *b, int dim, structured_call *call)
{
    clops_tensor *ac = NULL, *bc = NULL, *tmp = NULL;
    clops_tensor *t = call->target;
    clops_status st = core_contiguous(a, &ac);
    if (!st && b)
        st = core_contiguous(b, &bc);
    bool dense = true;
    int64_t expect = 1;
    for (int d = t->ndim - 1; d >= 0; d--) {
        if (t->sizes[d] != 1 && t->strides[d] != expect)
            dense = false;
        expect *= t->sizes[d];
    }
    if (!st && !dense)
        st = tensor_new(t->storage->device, t->dtype, t->ndim, t->sizes, NULL, &tmp);
    if (!st)
        st = run_rows(op, which, logm, ac, bc, tmp ? tmp : t, dim);
    if (!st && tmp)
        st = core_copy_(t, tmp, false);
    clops_tensor_release(ac);
    clops_tensor_release(bc);
    clops_tensor_release(tmp);
    return st;
}

/* _softmax / _log_softmax. */
static clops_status softmax_like(const char *op, bool logm, pw_variant variant,
                                 clops_tensor *dst, clops_tensor *self, int64_t dim,
                                 bool half_to_float, clops_tensor **out)
{
    if (!clops_dtype_is_floating(self->dtype))
        return clops__fail(CLOPS_INVALID_DTYPE, "%s: not implemented for '%s' (on %s)", op,
                           clops_dtype_name(self->dtype), self->storage->device->label);
    if (half_to_float && self->dtype != CLOPS_FLOAT16)
        return clops__fail(CLOPS_INVALID_ARGUMENT,
                           "%s: conversion is supported for Half type only (input %s on %s)", op,
                           clops_dtype_name(self->dtype), self->storage->device->label);
    int w = 0;
    clops_status st = wrap_dim(op, dim, self->ndim ? self->ndim : 1, &w);
    if (st)
        return st;
    clops_dtype rt = half_to_float ? CLOPS_FLOAT32 : self->dtype;
    structured_call call;
    st = structured_begin(&call, op, variant, dst, self->storage->device, rt, self->ndim,
                          self->sizes, &self, 1);
    if (st)
        return st;
    st = run_into(op, 0, logm, self, NULL, self->ndim ? w : 0, &call);
    return structured_finish(&call, st, out);
}

clops_status norm_softmax(pw_variant variant, clops_tensor *dst, clops_tensor *self, int64_t dim,
                          bool half_to_float, clops_tensor **out)
{
    return softmax_like("_softmax", false, variant, dst, self, dim, half_to_float, out);
}

clops_status norm_log_softmax(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                              int64_t dim, bool half_to_float, clops_tensor **out)
{
    return softmax_like("_log_softmax", true, variant, dst, self, dim, half_to_float, out);
}

/* The backward ops: grad_input of input_dtype from grad_output and the
 * forward's output (same shape and dtype). */
static clops_status backward_like(const char *op, bool logm, pw_variant variant,
                                  clops_tensor *dst, clops_tensor *grad, clops_tensor *output,
                                  int64_t dim, clops_dtype input_dtype, clops_tensor **out)
{
    char a[400], b[400];
    if (grad->ndim != output->ndim ||
        memcmp(grad->sizes, output->sizes, sizeof(int64_t) * (size_t)grad->ndim) != 0)
        return clops__fail(CLOPS_INVALID_SHAPE, "%s: grad_output %s and output %s differ", op,
                           clops__fmt_shape(a, sizeof a, grad->ndim, grad->sizes),
                           clops__fmt_shape(b, sizeof b, output->ndim, output->sizes));
    if (grad->dtype != output->dtype || !clops_dtype_is_floating(grad->dtype) ||
        !clops_dtype_is_floating(input_dtype))
        return clops__fail(CLOPS_INVALID_DTYPE,
                           "%s: expected floating grad_output and output of one dtype, got %s "
                           "and %s (input_dtype %s)",
                           op, clops_dtype_name(grad->dtype), clops_dtype_name(output->dtype),
                           clops_dtype_name(input_dtype));
    if (grad->storage->device != output->storage->device)
        return clops__fail(CLOPS_DEVICE_MISMATCH, "%s: grad_output is on %s, output on %s", op,
                           grad->storage->device->label, output->storage->device->label);
    int w = 0;
    clops_status st = wrap_dim(op, dim, grad->ndim ? grad->ndim : 1, &w);
    if (st)
        return st;
    clops_tensor *ins[2] = {grad, output};
    structured_call call;
    st = structured_begin(&call, op, variant, dst, grad->storage->device, input_dtype,
                          grad->ndim, grad->sizes, ins, 2);
    if (st)
        return st;
    st = run_into(op, 1, logm, grad, output, grad->ndim ? w : 0, &call);
    return structured_finish(&call, st, out);
}

clops_status norm_softmax_backward(pw_variant variant, clops_tensor *dst,
                                   clops_tensor *grad_output, clops_tensor *output, int64_t dim,
                                   clops_dtype input_dtype, clops_tensor **out)
{
    return backward_like("_softmax_backward_data", false, variant, dst, grad_output, output, dim,
                         input_dtype, out);
}

clops_status norm_log_softmax_backward(pw_variant variant, clops_tensor *dst,
                                       clops_tensor *grad_output, clops_tensor *output,
                                       int64_t dim, clops_dtype input_dtype, clops_tensor **out)
{
    return backward_like("_log_softmax_backward_data", true, variant, dst, grad_output, output,
                         dim, input_dtype, out);
}
