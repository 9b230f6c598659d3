/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ops/norm/norm_chan.c: the per-channel kernels of batch norm (and group
 * norm's weight gradient) on OpenCL devices (issue 30): x seen as [A, C, S]
 * (a contiguous NCHW input: [N, C, H*W]), a channel's A * S elements.
 *
 *   norm_chan_partial   stage 1: P parts per channel, one work-group each
 *                       (a work item of one on CPU devices): a Welford
 *                       state (mode 0) or the sums of g and g * (x - mu)
 *                       (mode 1), into [C, P] partials;
 *   norm_chan_fold_fwd  stage 2 of the forward, one item per channel: the
 *                       parts folded in order (Chan's formula), the batch
 *                       mean and invstd, scale and shift, the running-stat
 *                       update in place (or the running stats read, eval);
 *   norm_chan_fold_bwd  stage 2 of the backward: dweight, dbias and dx's
 *                       per-channel coefficients;
 *   norm_chan_apply     one pass over the elements: y = shift + x * scale,
 *                       or dx = c0 + dy * iw + (x - mean) * q.
 *
 * No atomics: the parts and their fold order depend on the shape and the
 * device's work-group size only, the same bits on every run.
 */
#include <math.h>

#include "host/host.h"
#include "ops/kit/kit.h"
#include "ops/kit/lines.h"
#include "ops/norm/norm.h"
#include "ops/reduce/reduce.h"
#include "ops/tensor/tensor.h"

static cl_mem mem_of(const clops_tensor *t)
{
    return t && t->storage->block ? t->storage->block->mem : NULL;
}

typedef struct chan_partial_job {
    const char *op;
    clops_tensor *x, *g, *mu, *o1, *o2;
    int64_t mdiv, A, C, S, P;
    int mode;
} chan_partial_job;

static clops_status partial_launch(const chan_partial_job *j, bool cpu)
{
    clops_device *d = j->x->storage->device;
    host_kernel *k = NULL;
    clops_status st = norm_get_kernel(d, cpu ? NORM_K_CHAN_PARTIAL_CPU : NORM_K_CHAN_PARTIAL,
                                      j->x->dtype, kit_compute_dtype(j->x->dtype), j->op, &k);
    if (st)
        return st;
    cl_mem xm = mem_of(j->x), gm = j->g ? mem_of(j->g) : xm, mm = j->mu ? mem_of(j->mu) : xm;
    cl_mem m1 = mem_of(j->o1), m2 = mem_of(j->o2);
    cl_long xo = j->x->offset, go = j->g ? j->g->offset : 0, mo = j->mu ? j->mu->offset : 0,
            mdiv = j->mdiv, A = j->A, C = j->C, S = j->S, P = j->P;
    cl_int mode = j->mode;
    host_arg args[] = {{sizeof xm, &xm}, {sizeof xo, &xo},     {sizeof gm, &gm},
                       {sizeof go, &go}, {sizeof mm, &mm},     {sizeof mo, &mo},
                       {sizeof mdiv, &mdiv}, {sizeof A, &A},   {sizeof C, &C},
                       {sizeof S, &S},   {sizeof P, &P},       {sizeof mode, &mode},
                       {sizeof m1, &m1}, {sizeof m2, &m2}};
    int na = (int)(sizeof args / sizeof args[0]);
    if (cpu)
        return host_launch_local(d, k, na, args, (size_t)(j->C * j->P), 1);
    return host_launch(d, k, na, args, (size_t)(j->C * j->P) * reduce_wg(d));
}

static clops_status partial_cpu(void *job)
{
    return partial_launch(job, true);
}

static clops_status partial_gpu(void *job)
{
    return partial_launch(job, false);
}

static clops_status partial_host(void *job)
{
    const chan_partial_job *j = job;
    return clops__fail(CLOPS_INTERNAL, "%s: channel partials on the CPU device", j->op);
}

static const kit_launches partial_launches = {
    "per-channel statistics",
    {[KIT_HOST] = partial_host, [KIT_CPU] = partial_cpu, [KIT_GPU] = partial_gpu}};

/* Stage 1 (ops/norm/norm.h). */
clops_status norm_chan_partials(norm_tmps *T, const char *op, int mode, clops_tensor *x,
                                clops_tensor *g, clops_tensor *mu, int64_t mdiv, int64_t A,
                                int64_t C, int64_t S, int64_t P, clops_tensor **o1,
                                clops_tensor **o2, int64_t *Pout)
{
    clops_device *d = x->storage->device;
    int64_t AS = A * S;
    if (P <= 0) {
        /* GPUs: about 2048 work-groups, at least 4 elements a lane; CPU
         * devices: about one part per work item, at least 4096 elements */
        bool cpu = kit_is_cpu(d);
        int64_t target = cpu ? (d->max_chunks ? (int64_t)d->max_chunks : 1) : 2048;
        int64_t most = cpu ? ops_cdiv(AS, 4096) : ops_cdiv(AS, 4 * (int64_t)reduce_wg(d));
        P = ops_cdiv(target, C > 0 ? C : 1);
        if (P > most)
            P = most;
        if (P < 1)
            P = 1;
    }
    int64_t ps[2] = {C, P};
    clops_dtype ct = kit_compute_dtype(x->dtype);
    chan_partial_job j = {op, x, g, mu, NULL, NULL, mdiv, A, C, S, P, mode};
    clops_status st = norm_kept(T, tensor_new(d, ct, 2, ps, NULL, &j.o1), &j.o1);
    if (!st)
        st = norm_kept(T, tensor_new(d, ct, 2, ps, NULL, &j.o2), &j.o2);
    if (!st && C * P > 0)
        st = kit_run(&partial_launches, d, &j);
    if (st)
        return st;
    *o1 = j.o1;
    *o2 = j.o2;
    *Pout = P;
    return CLOPS_OK;
}

/* A compute-type scalar argument (float, or double for float64). */
typedef struct ct_arg {
    float f;
    double d;
} ct_arg;

static host_arg ct_host_arg(bool dbl, const ct_arg *a)
{
    return dbl ? (host_arg){sizeof a->d, &a->d} : (host_arg){sizeof a->f, &a->f};
}

/* Stage 2 of the forward (ops/norm/norm.h). */
clops_status norm_chan_fold_fwd(const char *op, clops_tensor *o1, clops_tensor *o2, int64_t P,
                                int64_t AS, int64_t C, bool training, double eps,
                                double momentum, clops_tensor *w, clops_tensor *b,
                                clops_tensor *rm, clops_tensor *rv, bool update,
                                clops_tensor *mean, clops_tensor *invstd, clops_tensor *scale,
                                clops_tensor *shift)
{
    clops_device *d = scale->storage->device;
    clops_dtype ct = scale->dtype;
    bool dbl = ct == CLOPS_FLOAT64;
    host_kernel *k = NULL;
    if (C == 0)
        return CLOPS_OK;
    clops_status st = norm_get_kernel(d, NORM_K_CHAN_FOLD_FWD, ct, ct, op, &k);
    if (st)
        return st;
    cl_mem sm = mem_of(scale);
    cl_mem m1 = o1 ? mem_of(o1) : sm, m2 = o2 ? mem_of(o2) : sm, wm = w ? mem_of(w) : sm,
           bm = b ? mem_of(b) : sm, rmm = rm ? mem_of(rm) : sm, rvm = rv ? mem_of(rv) : sm,
           mm = mean ? mem_of(mean) : sm, im = invstd ? mem_of(invstd) : sm,
           hm = mem_of(shift);
    cl_long cP = P, cAS = AS, cC = C, wo = w ? w->offset : 0, bo = b ? b->offset : 0,
            rmo = rm ? rm->offset : 0, rvo = rv ? rv->offset : 0;
    cl_int flags = (w ? 1 : 0) | (b ? 2 : 0) | (training ? 4 : 0) | (update ? 8 : 0);
    ct_arg e = {(float)eps, eps}, mo = {(float)momentum, momentum};
    host_arg args[] = {{sizeof m1, &m1},   {sizeof m2, &m2},   {sizeof cP, &cP},
                       {sizeof cAS, &cAS}, {sizeof cC, &cC},   {sizeof flags, &flags},
                       ct_host_arg(dbl, &e), ct_host_arg(dbl, &mo), {sizeof wm, &wm},
                       {sizeof wo, &wo},   {sizeof bm, &bm},   {sizeof bo, &bo},
                       {sizeof rmm, &rmm}, {sizeof rmo, &rmo}, {sizeof rvm, &rvm},
                       {sizeof rvo, &rvo}, {sizeof mm, &mm},   {sizeof im, &im},
                       {sizeof sm, &sm},   {sizeof hm, &hm}};
    return host_launch_items(d, k, (int)(sizeof args / sizeof args[0]), args, (uint64_t)C);
}

/* Stage 2 of the backward (ops/norm/norm.h). */
clops_status norm_chan_fold_bwd(const char *op, clops_tensor *o1, clops_tensor *o2, int64_t P,
                                int64_t C, bool train, double n, double eps, clops_tensor *w,
                                clops_tensor *sd, clops_tensor *iw, clops_tensor *c0,
                                clops_tensor *q, clops_tensor *dw, clops_tensor *db)
{
    clops_device *d = iw->storage->device;
    clops_dtype ct = iw->dtype;
    bool dbl = ct == CLOPS_FLOAT64;
    host_kernel *k = NULL;
    if (C == 0)
        return CLOPS_OK;
    clops_status st = norm_get_kernel(d, NORM_K_CHAN_FOLD_BWD, ct, ct, op, &k);
    if (st)
        return st;
    cl_mem m1 = mem_of(o1), m2 = mem_of(o2), wm = w ? mem_of(w) : m1, sm = mem_of(sd),
           im = mem_of(iw), cm = mem_of(c0), qm = mem_of(q), dwm = mem_of(dw), dbm = mem_of(db);
    cl_long cP = P, cC = C, wo = w ? w->offset : 0, so = sd->offset;
    cl_int flags = (w ? 1 : 0) | (train ? 4 : 0);
    ct_arg cn = {(float)n, n}, e = {(float)eps, eps};
    host_arg args[] = {{sizeof m1, &m1}, {sizeof m2, &m2}, {sizeof cP, &cP},
                       {sizeof cC, &cC}, {sizeof flags, &flags}, ct_host_arg(dbl, &cn),
                       ct_host_arg(dbl, &e), {sizeof wm, &wm}, {sizeof wo, &wo},
                       {sizeof sm, &sm}, {sizeof so, &so}, {sizeof im, &im},
                       {sizeof cm, &cm}, {sizeof qm, &qm}, {sizeof dwm, &dwm},
                       {sizeof dbm, &dbm}};
    return host_launch_items(d, k, (int)(sizeof args / sizeof args[0]), args, (uint64_t)C);
}

/* The per-element pass (ops/norm/norm.h). */
clops_status norm_chan_apply(const char *op, clops_tensor *a, clops_tensor *b, clops_tensor *k0,
                             clops_tensor *k1, clops_tensor *k2, clops_tensor *mu,
                             clops_tensor *out, int64_t C, int64_t S)
{
    clops_device *d = a->storage->device;
    bool cpu = kit_is_cpu(d);
    host_kernel *k = NULL;
    clops_status st = norm_get_kernel(d, cpu ? NORM_K_CHAN_APPLY_CPU : NORM_K_CHAN_APPLY,
                                      a->dtype, out->dtype, op, &k);
    if (st)
        return st;
    int64_t total = tensor_numel(out);
    if (total == 0)
        return CLOPS_OK;
    /* CPU devices: norm_affine's split (norm_cpu_chunk) */
    cl_long cchunk = norm_cpu_chunk(d, total);
    cl_mem am = mem_of(a), bm = b ? mem_of(b) : am, m0 = mem_of(k0), m1 = mem_of(k1),
           m2 = k2 ? mem_of(k2) : m0, mm = mu ? mem_of(mu) : m0, om = mem_of(out);
    cl_long ao = a->offset, bo = b ? b->offset : 0, oo = out->offset, ctot = total, cC = C,
            cS = S;
    cl_int flags = b ? 1 : 0;
    host_arg args[] = {{sizeof am, &am}, {sizeof ao, &ao},     {sizeof bm, &bm},
                       {sizeof bo, &bo}, {sizeof m0, &m0},     {sizeof m1, &m1},
                       {sizeof m2, &m2}, {sizeof mm, &mm},     {sizeof flags, &flags},
                       {sizeof om, &om}, {sizeof oo, &oo},     {sizeof ctot, &ctot},
                       {sizeof cC, &cC}, {sizeof cS, &cS}, {sizeof cchunk, &cchunk}};
    int na = (int)(sizeof args / sizeof args[0]);
    if (cpu)
        return host_launch_local(d, k, na, args, (size_t)ops_cdiv(total, cchunk), 1);
    return host_launch_items(d, k, na - 1, args, (uint64_t)total);
}
