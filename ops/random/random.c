/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ops/random/random.c: the engine of the random family: filling a tensor with one
 * distribution, and native_dropout, on the CPU device (ref/random.c) or an
 * OpenCL device (cl_kernels/random.cl).
 *
 * A fill reserves its counters from the generator in one locked step
 * (offset advance = rnd_counters(): ceil(numel / E), E elements per
 * counter), then writes the tensor's elements in row-major order: element i
 * of the tensor is stream element i, whatever its strides.  A contiguous
 * destination is written in place (at its storage offset); any other goes
 * through a contiguous temporary and copy_.  The op functions built on it
 * (schemas, argument checks, PyTorch's errors) are in ops/random/random_ops.c.
 *
 * Launch geometry overrides: CLOPS_RANDOM_WG=N forces the work-group size
 * of the random kernels and CLOPS_RANDOM_GROUPS=M the number of groups (read
 * per launch, for users checking that the values do not depend on it);
 * the settings random.wg and random.groups (core/debug.h) do the same from
 * inside the process, which is what the tests use: changing the environment
 * while a driver's threads read it (POCL's workers call getenv) crashed
 * them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/debug.h"
#include "core/tensor_impl.h"
#include "host/host.h"
#include "ops/tensor/tensor.h"
#include "ops/random/random.h"

/* --- kernels ---------------------------------------------------------------------- */

/* Writes the program: the two shared headers, then the kernels. */
static clops_status gen_source(void *ctx, const clops_device *d, strbuf *sb)
{
    (void)ctx;
    (void)d;
    static const char *const files[] = {"items.clh", "random_math.clh", "random_dist.clh",
                                        "random.cl"};
    for (int i = 0; i < 4; i++) {
        const char *text = NULL;
        clops_status st = host_cl_source(files[i], &text);
        if (st)
            return st;
        sb_printf(sb, "/* ---- %s ---- */\n", files[i]);
        sb_append(sb, text);
        sb_append(sb, "\n");
    }
    return sb->failed ? CLOPS__HOST_OOM("random program source") : CLOPS_OK;
}

/* The kernel of (dist, dtype) on device d. */
static clops_status get_kernel(clops_device *d, rnd_dist dist, clops_dtype dtype, host_kernel **out)
{
    host_kkey key = {
        {(0x52ull << 56) | ((uint64_t)dist << 8) | (uint64_t)dtype, 0, 0, 0x72616e646f6dull}};
    host_kernel *k = host_kernel_lookup(d, &key);
    if (k) {
        *out = k;
        return CLOPS_OK;
    }
    char name[64];
    rnd_kernel_name(dist, dtype, name, sizeof name);
    host_kernel_request req = {"random", name, gen_source, NULL, NULL};
    clops_status st = host_kernel_get(d, &key, &req, &k);
    *out = k;
    return st;
}

/* A positive integer from the environment, or 0. */
static size_t env_size(const char *name)
{
    const char *v = host_env(name);
    if (!v)
        return 0;
    char *end = NULL;
    long long x = strtoll(v, &end, 10);
    return (end && *end == '\0' && x > 0) ? (size_t)x : 0;
}

/* Launches a grid-stride random kernel over `counters` counters. */
static clops_status launch(clops_device *d, host_kernel *k, int nargs, const host_arg *args,
                           uint64_t counters)
{
    size_t wg = (size_t)clops_debug_get(CLOPS_DEBUG_RANDOM_WG);
    size_t groups = (size_t)clops_debug_get(CLOPS_DEBUG_RANDOM_GROUPS);
    if (!wg && !groups) {
        wg = env_size("CLOPS_RANDOM_WG");
        groups = env_size("CLOPS_RANDOM_GROUPS");
    }
    if (!wg && !groups)
        return host_launch_items(d, k, nargs, args, counters);
    if (!wg)
        wg = k->wg_size;
    if (!groups)
        groups = (size_t)((counters + wg - 1) / wg) ? (size_t)((counters + wg - 1) / wg) : 1;
    return host_launch_local(d, k, nargs, args, groups * wg, wg);
}

/* --- fills ------------------------------------------------------------------------ */

/* Runs f into the contiguous elements starting at element `off` of t's
 * storage. */
static clops_status run_fill(const char *op, clops_tensor *t, int64_t off, const rnd_fill *f)
{
    clops_device *d = t->storage->device;
    if (host_is_cpu(d)) {
        ref_random_fill(f, (char *)t->storage->host_ptr + (size_t)off * clops_dtype_size(f->dtype));
        return CLOPS_OK;
    }
    host_kernel *k = NULL;
    clops_status st = get_kernel(d, f->dist, f->dtype, &k);
    if (st)
        return clops__error_prefix(st, "%s", op);
    cl_mem mem = t->storage->block->mem;
    uint64_t uoff = (uint64_t)off;
    cl_uint k0 = (cl_uint)f->seed, k1 = (cl_uint)(f->seed >> 32);
    host_arg args[9] = {{sizeof mem, &mem}, {8, &uoff}, {8, &f->n},
                        {8, &f->offset},    {4, &k0},   {4, &k1}};
    float fa = (float)f->a, fb = (float)f->b, fc = (float)f->c;
    if (f->dist >= RND_DIST_RANGE32) {
        args[6] = (host_arg){8, &f->ia};
        args[7] = (host_arg){8, &f->ib};
        st = launch(d, k, 8, args, rnd_counters(f->dist, f->dtype, f->n));
    } else if (f->dtype == CLOPS_FLOAT64) {
        args[6] = (host_arg){8, &f->a};
        args[7] = (host_arg){8, &f->b};
        args[8] = (host_arg){8, &f->c};
        st = launch(d, k, 9, args, rnd_counters(f->dist, f->dtype, f->n));
    } else {
        args[6] = (host_arg){4, &fa};
        args[7] = (host_arg){4, &fb};
        args[8] = (host_arg){4, &fc};
        st = launch(d, k, 9, args, rnd_counters(f->dist, f->dtype, f->n));
    }
    return st ? clops__error_prefix(st, "%s", op) : CLOPS_OK;
}

clops_status random_fill(const char *op, clops_tensor *dst, rnd_fill f, clops_generator *gen)
{
    clops_device *d = dst->storage->device;
    clops_status st = check_dtype_on_device(op, dst->dtype, d);
    if (st)
        return st;
    f.dtype = dst->dtype;
    f.n = (uint64_t)tensor_numel(dst);
    if (f.n == 0)
        return CLOPS_OK;
    st = generator_reserve(gen, d, rnd_counters(f.dist, f.dtype, f.n), &f.seed, &f.offset);
    if (st)
        return st;
    if (clops_tensor_is_contiguous(dst))
        return run_fill(op, dst, dst->offset, &f);
    clops_tensor *tmp = NULL;
    st = tensor_new(d, dst->dtype, dst->ndim, dst->sizes, NULL, &tmp);
    if (st == CLOPS_OK)
        st = run_fill(op, tmp, 0, &f);
    if (st == CLOPS_OK)
        st = core_copy_(dst, tmp, false);
    clops_tensor_release(tmp);
    return st;
}

/* --- dropout ---------------------------------------------------------------------- */

clops_status random_dropout(const char *op, clops_tensor *input, uint64_t thr, double scale,
                            clops_generator *gen, clops_tensor **out, clops_tensor **mask)
{
    clops_device *d = input->storage->device;
    clops_tensor *in = NULL, *o = NULL, *m = NULL;
    clops_status st = check_dtype_on_device(op, input->dtype, d);
    if (st)
        return st;
    st = core_contiguous(input, &in);
    if (st == CLOPS_OK)
        st = tensor_new(d, input->dtype, input->ndim, input->sizes, NULL, &o);
    if (st == CLOPS_OK)
        st = tensor_new(d, CLOPS_BOOL, input->ndim, input->sizes, NULL, &m);
    uint64_t n = (uint64_t)tensor_numel(input), seed = 0, offset = 0;
    if (st == CLOPS_OK && n > 0)
        st = generator_reserve(gen, d, rnd_counters(RND_DIST_DROPOUT, input->dtype, n), &seed,
                               &offset);
    if (st || n == 0)
        goto done;
    if (host_is_cpu(d)) {
        size_t es = clops_dtype_size(input->dtype);
        ref_random_dropout(input->dtype, (char *)in->storage->host_ptr + (size_t)in->offset * es,
                           o->storage->host_ptr, m->storage->host_ptr, n, seed, offset, thr, scale);
        goto done;
    }
    host_kernel *k = NULL;
    st = get_kernel(d, RND_DIST_DROPOUT, input->dtype, &k);
    if (st) {
        st = clops__error_prefix(st, "%s", op);
        goto done;
    }
    cl_mem min = in->storage->block->mem, mo = o->storage->block->mem, mm = m->storage->block->mem;
    uint64_t in_off = (uint64_t)in->offset, zero = 0;
    cl_uint k0 = (cl_uint)seed, k1 = (cl_uint)(seed >> 32);
    float fscale = (float)scale;
    host_arg args[12] = {{sizeof min, &min}, {8, &in_off}, {sizeof mo, &mo}, {8, &zero},
                         {sizeof mm, &mm},   {8, &zero},   {8, &n},          {8, &offset},
                         {4, &k0},           {4, &k1},     {8, &thr},        {4, &fscale}};
    if (input->dtype == CLOPS_FLOAT64)
        args[11] = (host_arg){8, &scale};
    st = launch(d, k, 12, args, (n + 3) / 4);
    if (st)
        st = clops__error_prefix(st, "%s", op);
done:
    clops_tensor_release(in);
    if (st) {
        clops_tensor_release(o);
        clops_tensor_release(m);
        return st;
    }
    *out = o;
    *mask = m;
    return CLOPS_OK;
}

/* --- host algorithms ------------------------------------------------------------- */

clops_status random_reserve(clops_generator *gen, clops_device *device, uint64_t counters,
                            uint64_t *seed, uint64_t *offset)
{
    return generator_reserve(gen, device, counters, seed, offset);
}
