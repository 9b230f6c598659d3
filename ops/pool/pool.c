/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ops/pool/pool.c: planning and launching of the pooling and resampling family
 * (dispatch/inventory/pool.yaml; the entry points are in ops/pool/pool_ops.c).
 *
 * Every tensor is described to the kernels as [N, C, D, H, W] by its offset
 * and element strides, so strided and channels-last inputs and outputs are
 * read and written in place (no layout copy).  One program per dtype holds
 * the six kernels of cl_kernels/pool.cl; each work item computes whole
 * elements in a grid-stride loop.  On CPU devices, with enough (n, c)
 * planes, the backward passes (float, double) scatter plane by plane
 * instead and upsampling walks planes row by row (the _cpu kernels).  The
 * CPU device runs ref/pool.c.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "host/host.h"
#include "ops/kit/kit.h"
#include "ops/kit/lines.h"
#include "ops/pool/pool.h"

/* The defines of dtype *(clops_dtype *)ctx's program. */
static clops_status write_defines(const void *ctx, const clops_device *d, strbuf *sb)
{
    (void)d;
    clops_dtype dt = *(const clops_dtype *)ctx;
    const char *ct = kit_cl_compute(dt);
    sb_printf(sb, "#define DT %s\n#define KIND %d\n#define CT %s\n#define CT2 %s2\n",
              kit_cl_storage(dt), (int)kit_load_store(dt), ct, ct);
    return CLOPS_OK;
}

/* The kernel of `which` for dtype dt on device d (cpu 1: the CPU devices'
 * kernel of `which`, planes per work item, or for POOL_MAX_FWD the
 * channels-last one; cpu 2: POOL_MAX_FWD by planes). */
static clops_status get_kernel(clops_device *d, pool_which which, clops_dtype dt, int cpu,
                               const char *op, host_kernel **k)
{
    static const char *const names[] = {"pool_max_fwd", "pool_max_bwd", "pool_avg_fwd",
                                        "pool_avg_bwd", "pool_up_fwd",  "pool_up_bwd"};
    static const char *const cpu_names[] = {"pool_max_fwd_cpu",
                                            "pool_max_bwd_cpu",
                                            "pool_avg_fwd_cpu",
                                            "pool_avg_bwd_cpu",
                                            "pool_up_fwd_cpu",
                                            "pool_up_bwd_cpu"};
    host_kkey key = {{(0x50ull << 56) | ((uint64_t)cpu << 16) | ((uint64_t)which << 8) |
                          (uint64_t)dt,
                      0, 0, 0}};
    *k = kit_find(d, &key);
    if (*k)
        return CLOPS_OK;
    char pname[64], title[80];
    snprintf(pname, sizeof pname, "pool/%s", clops_dtype_name(dt));
    snprintf(title, sizeof title, "clops pooling program %s (see ops/pool/pool.c)",
             clops_dtype_name(dt));
    kit_program p = {.name = pname,
                     .title = title,
                     .headers = {"items.clh"},
                     .write = write_defines,
                     .file = "pool.cl",
                     .ctx = &dt};
    return kit_build(d, &key, &p,
                     cpu == 2 ? "pool_max_fwd_planes_cpu"
                     : cpu    ? cpu_names[which]
                              : names[which],
                     op, k);
}

int64_t pool_out_size(int64_t in, int64_t k, int64_t pad, int64_t stride, int64_t dil,
                      bool ceil_mode)
{
    /* PyTorch's (in + 2 pad - dil (k - 1) - 1 [+ stride - 1]) / stride + 1,
     * rounded toward -inf, in an order that cannot overflow for the
     * arguments pool_geometry lets through (in >= 1, k, stride, dil >= 1,
     * 0 <= 2 pad <= dil (k - 1) + 1, that effective kernel within int64). */
    int64_t ek = dil * (k - 1) + 1;
    int64_t base = in - ek + 2 * pad;
    int64_t q;
    if (ceil_mode && base >= 0)
        q = base / stride + (base % stride != 0);
    else {
        int64_t num = ceil_mode ? base + (stride - 1) : base;
        q = num / stride;
        if (num % stride != 0 && num < 0)
            q--; /* div_rtn: round toward -inf */
    }
    int64_t out = q + 1, reach = 0, limit = 0;
    /* the last window must start inside the input or its left padding */
    bool reach_fits = geom_mul(q, stride, &reach), limit_fits = geom_add(in, pad, &limit);
    if (ceil_mode && (!reach_fits || (limit_fits && reach >= limit)))
        out--;
    return out;
}

bool pool_channels_last(const clops_tensor *t)
{
    if (t->ndim != 4 || t->sizes[1] < 2 || t->strides[1] != 1)
        return false;
    return (t->sizes[3] < 2 || t->strides[3] == t->sizes[1]) &&
           (t->sizes[2] < 2 || t->strides[2] == t->sizes[3] * t->sizes[1]);
}

clops_status pool_begin(structured_call *c, const char *op, pw_variant variant, clops_tensor *dst,
                        const clops_tensor *like, clops_dtype dt, int nd, const int64_t *sz,
                        clops_tensor *const *ins, int n, clops_tensor **fresh)
{
    *fresh = NULL;
    clops_device *dev = like->storage->device;
    if (variant != PW_FUNCTIONAL || nd != 4 || !pool_channels_last(like) || sz[1] < 2)
        return structured_begin(c, op, variant, dst, dev, dt, nd, sz, ins, n);
    const int64_t st[4] = {sz[1] * sz[2] * sz[3], 1, sz[3] * sz[1], sz[1]};
    clops_status s = tensor_new(dev, dt, 4, sz, st, fresh);
    if (!s)
        s = structured_begin(c, op, PW_OUT, *fresh, dev, dt, nd, sz, ins, n);
    if (s) {
        clops_tensor_release(*fresh);
        *fresh = NULL;
    }
    return s;
}

clops_status pool_finish(structured_call *c, clops_status st, clops_tensor *fresh,
                         clops_tensor **out)
{
    if (!fresh)
        return structured_finish(c, st, out);
    st = structured_finish(c, st, NULL);
    if (st) {
        clops_tensor_release(fresh);
        return st;
    }
    *out = fresh;
    return CLOPS_OK;
}

/* The cl_mem of t's storage (NULL for an empty one). */
static cl_mem mem_of(const clops_tensor *t)
{
    return t->storage->block ? t->storage->block->mem : NULL;
}

clops_status pool_run(const char *op, pool_which which, const pool_geom *g, int nsp,
                      clops_tensor *a, clops_tensor *b, clops_tensor *c)
{
    int64_t items = g->N * g->C;
    bool fwd = which == POOL_MAX_FWD || which == POOL_AVG_FWD || which == POOL_UP_FWD;
    for (int i = 0; i < 3; i++)
        items *= fwd ? g->out[i] : g->in[i];
    if (items == 0)
        return CLOPS_OK;
    clops_device *d = a->storage->device;
    if (kit_is_host(d))
        return pool_ref(op, which, g, nsp, a, b, c);
    /* the dtype of the floating tensors (b holds indices for POOL_MAX_BWD) */
    clops_tensor *ts[3] = {a, b, c};
    clops_dtype dt = a->dtype;
    /* CPU devices, when there are at least as many (n, c) planes as cores:
     * the backward passes of float and double scatter plane by plane, the
     * forward passes walk planes row by row (any dtype). */
    int64_t planes = g->N * g->C;
    bool fp = dt == CLOPS_FLOAT32 || dt == CLOPS_FLOAT64;
    int cpu = kit_is_cpu(d) && planes * 4 >= (int64_t)d->max_chunks && (fwd || fp);
    if (cpu && which == POOL_MAX_FWD)
        cpu = 2;
    /* ... and max pooling forward of channels-last input and output (any
     * dtype, any count): a vector loop over channels per output position.
     * Its work units are output positions, not planes. */
    int64_t units = planes;
    if (kit_is_cpu(d) && which == POOL_MAX_FWD && g->C > 1) {
        int64_t va[6], vb[6];
        pool_view5(a, nsp, va);
        pool_view5(b, nsp, vb);
        if (va[2] == 1 && vb[2] == 1) {
            cpu = 1;
            units = g->N * g->out[0] * g->out[1] * g->out[2];
        }
    }
    host_kernel *k = NULL;
    clops_status st = get_kernel(d, which, dt, cpu, op, &k);
    if (st)
        return st;
    cl_mem mems[3];
    cl_long8 views[3];
    int nt = 0;
    for (int i = 0; i < 3; i++) {
        if (!ts[i])
            continue;
        int64_t v[6];
        pool_view5(ts[i], nsp, v);
        for (int j = 0; j < 8; j++)
            views[nt].s[j] = j < 6 ? v[j] : 0;
        mems[nt++] = mem_of(ts[i]);
    }
    cl_int16 gi;
    /* A stride places the windows after the first one only: along a dim of
     * one output (forward) or grad_output (backward) element it changes
     * nothing, and PyTorch takes any, so a huge one is sent as 1 there
     * rather than refused by the 32-bit check below. */
    int64_t s[3];
    for (int i = 0; i < 3; i++)
        s[i] = g->out[i] == 1 ? 1 : g->s[i];
    const int64_t gv[16] = {g->N,    g->C,    g->in[0], g->in[1], g->in[2], g->out[0],
                            g->out[1], g->out[2], g->k[0], g->k[1], g->k[2], s[0],
                            s[1], s[2], g->p[0], g->p[1]};
    /* divisor_override travels as a long of its own (average kernels'
     * dvo): PyTorch takes any int64. */
    /* g2.s5: max pooling backward may take the covering outputs of
     * regular undilated windows as a range (pool_max_bwd's cover_dense;
     * CLOPS_POOL_BWD_RANGE=0 keeps the candidate per kernel tap: the same
     * sums either way).  Read per call, and by max pooling backward only
     * (no other kernel reads g2.s5): bench/conv_tf32_job.sh's model runs
     * alternate it in one process. */
    const char *rg = which == POOL_MAX_BWD ? host_env("CLOPS_POOL_BWD_RANGE") : NULL;
    const int64_t range = which == POOL_MAX_BWD && !(rg && strcmp(rg, "0") == 0);
    const int64_t g2v[8] = {g->p[2], g->dil[0], g->dil[1], g->dil[2],
                            g->flag, range,    g->adaptive, g->mode};
    for (int j = 0; j < 24; j++) {
        int64_t v = j < 16 ? gv[j] : g2v[j - 16];
        if (v > INT32_MAX || v < INT32_MIN)
            return clops__fail(CLOPS_UNSUPPORTED,
                               "%s: a size or argument of %lld does not fit the kernels' 32-bit "
                               "geometry (on %s)",
                               op, (long long)v, d->label);
    }
    for (int j = 0; j < 16; j++)
        gi.s[j] = (cl_int)gv[j];
    cl_int8 g2;
    for (int j = 0; j < 8; j++)
        g2.s[j] = (cl_int)g2v[j];
    /* items walk the outputs (forward) or grad_input (backward) in its
     * memory order: channels fastest for a channels-last one */
    const clops_tensor *walk = fwd ? b : which == POOL_MAX_BWD ? c : b;
    int64_t wv[6];
    pool_view5(walk, nsp, wv);
    cl_int cl = wv[2] == 1 && g->C > 1;
    cl_float2 nsc = {{g->nsc[0], g->nsc[1]}};
    cl_float2 lf = {{(float)g->lsc[0], (float)g->lsc[1]}};
    cl_double2 ld = {{g->lsc[0], g->lsc[1]}};
    host_arg args[15];
    int na = 0;
    for (int i = 0; i < nt; i++) {
        args[na++] = (host_arg){sizeof mems[i], &mems[i]};
        args[na++] = (host_arg){sizeof views[i], &views[i]};
    }
    args[na++] = (host_arg){sizeof gi, &gi};
    args[na++] = (host_arg){sizeof g2, &g2};
    cl_long dvo = g->divisor;
    if (which == POOL_AVG_FWD || which == POOL_AVG_BWD)
        args[na++] = (host_arg){sizeof dvo, &dvo};
    if (which == POOL_UP_FWD || which == POOL_UP_BWD) {
        args[na++] = (host_arg){sizeof nsc, &nsc};
        if (dt == CLOPS_FLOAT64)
            args[na++] = (host_arg){sizeof ld, &ld};
        else
            args[na++] = (host_arg){sizeof lf, &lf};
    }
    args[na++] = (host_arg){sizeof cl, &cl};
    if (cpu) {
        cl_long a_units = units, per = ops_cpu_units_per_item(d, units);
        args[na++] = (host_arg){sizeof a_units, &a_units};
        args[na++] = (host_arg){sizeof per, &per};
        return host_launch_local(d, k, na, args, (size_t)((units + per - 1) / per), 1);
    }
    /* max pooling forward walks its outputs with CLOPS_ITEMS: contiguous
     * chunks on CPU devices (channels-last: neighbouring channels read
     * neighbouring inputs), a grid-stride loop elsewhere. */
    if (which == POOL_MAX_FWD)
        return host_launch_items(d, k, na, args, (uint64_t)items);
    return host_launch(d, k, na, args, host_grid_size(d, k, (uint64_t)items));
}
