/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ops/norm/norm_affine.c: the normalization pass of batch and group norm,
 * dst = shift3 + x3 * scale3 per (a, c) plane of S elements (norm.h).
 *
 * Every device can run it as the pointwise addcmul (norm_addcmul); on a
 * CPU-like device (KIT_CPU) the addcmul reads its two [*, C, 1] operands
 * through the generator's general strided loop, index arithmetic per
 * element (batch_norm eval at 0.15x and group_norm at 0.19x of PyTorch's
 * CPU kernels, issue 36), so there norm_affine_cpu (cl_kernels/norm.cl)
 * walks contiguous chunks of elements plane run by plane run with the
 * plane's two numbers loaded once: the same expression, the same bits.
 */
#include "host/host.h"
#include "ops/kit/kit.h"
#include "ops/kit/lines.h"
#include "ops/norm/norm.h"

typedef struct affine_job {
    norm_tmps *c;
    clops_tensor *shift3, *x3, *scale3, *dst;
} affine_job;

static cl_mem mem_of(const clops_tensor *t)
{
    return t->storage->block ? t->storage->block->mem : NULL;
}

/* Whether p ([1 or A, C, 1]) is a dense per-plane operand of dtype ct for
 * x3 [A, C, S]. */
static bool plane_operand(const clops_tensor *p, const clops_tensor *x3, clops_dtype ct)
{
    return p->ndim == 3 && p->dtype == ct && p->sizes[2] == 1 && p->sizes[1] == x3->sizes[1] &&
           (p->sizes[0] == 1 || p->sizes[0] == x3->sizes[0]) && norm_dense(p) &&
           p->storage->device == x3->storage->device;
}

static clops_status affine_addcmul(void *job)
{
    const affine_job *j = job;
    return norm_addcmul(j->c, j->shift3, j->x3, j->scale3, j->dst, NULL);
}

/* CPU-like devices: norm_affine_cpu when the layouts allow, else the
 * addcmul. */
static clops_status affine_cpu(void *job)
{
    const affine_job *j = job;
    const clops_tensor *x3 = j->x3, *y = j->dst;
    clops_dtype ct =
        x3->dtype == CLOPS_FLOAT64 || y->dtype == CLOPS_FLOAT64 ? CLOPS_FLOAT64 : CLOPS_FLOAT32;
    bool fits = x3->ndim == 3 && y->ndim == 3 && clops_dtype_is_floating(x3->dtype) &&
                clops_dtype_is_floating(y->dtype) && x3->sizes[0] == y->sizes[0] &&
                x3->sizes[1] == y->sizes[1] && x3->sizes[2] == y->sizes[2] && norm_dense(x3) &&
                norm_dense(y) && plane_operand(j->scale3, x3, ct) &&
                plane_operand(j->shift3, x3, ct);
    if (!fits)
        return affine_addcmul(job);
    int64_t A = x3->sizes[0], C = x3->sizes[1], S = x3->sizes[2];
    int64_t total = tensor_numel(x3);
    if (total == 0)
        return CLOPS_OK;
    clops_device *d = x3->storage->device;
    host_kernel *k = NULL;
    clops_status st =
        norm_get_kernel(d, NORM_K_AFFINE_CPU, x3->dtype, y->dtype, "normalization", &k);
    if (st)
        return st;
    int64_t chunk = norm_cpu_chunk(d, total);
    cl_mem xm = mem_of(x3), ym = mem_of(y), sm = mem_of(j->scale3), hm = mem_of(j->shift3);
    cl_long xo = x3->offset, yo = y->offset, so = j->scale3->offset, ho = j->shift3->offset;
    cl_long smod = j->scale3->sizes[0] == 1 ? C : A * C;
    cl_long hmod = j->shift3->sizes[0] == 1 ? C : A * C;
    cl_long ctotal = total, cS = S, cchunk = chunk;
    const host_arg args[] = {{sizeof xm, &xm},     {sizeof xo, &xo},       {sizeof ym, &ym},
                             {sizeof yo, &yo},     {sizeof sm, &sm},       {sizeof so, &so},
                             {sizeof smod, &smod}, {sizeof hm, &hm},       {sizeof ho, &ho},
                             {sizeof hmod, &hmod}, {sizeof ctotal, &ctotal}, {sizeof cS, &cS},
                             {sizeof cchunk, &cchunk}};
    return host_launch_local(d, k, (int)(sizeof args / sizeof args[0]), args,
                             (size_t)ops_cdiv(total, chunk), 1);
}

static const kit_launches affine_launches = {
    "batch/group normalization",
    {[KIT_HOST] = affine_addcmul, [KIT_CPU] = affine_cpu, [KIT_GPU] = affine_addcmul}};

int64_t norm_cpu_chunk(const clops_device *d, int64_t total)
{
    /* whole 16-element vectors, at least HOST_MIN_CHUNK, at most
     * d->max_chunks items (the split changes no result) */
    int64_t items = d->max_chunks ? (int64_t)d->max_chunks : 1;
    int64_t chunk = ops_cdiv(total, items);
    if (chunk < HOST_MIN_CHUNK)
        chunk = HOST_MIN_CHUNK;
    return ops_cdiv(chunk, 16) * 16;
}

clops_status norm_affine(norm_tmps *c, clops_tensor *shift3, clops_tensor *x3,
                         clops_tensor *scale3, clops_tensor *dst)
{
    affine_job j = {c, shift3, x3, scale3, dst};
    return kit_run(&affine_launches, x3->storage->device, &j);
}
