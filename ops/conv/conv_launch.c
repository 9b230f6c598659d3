/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ops/conv/conv_launch.c: builds and launches the kernels of cl_kernels/conv.cl
 * (im2col, col2im, depthwise) for the convolution family, and picks the
 * reference or the kernel for im2col/col2im by the tensors' device.
 *
 * One program per (dtype, index width) holds all three kernels: 32-bit
 * index arithmetic whenever every index of the call fits (division is much
 * cheaper on GPUs), 64-bit otherwise.  Kernels use grid-stride loops over
 * host_grid_size items.
 */
#include <float.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/host.h"
#include "ops/conv/conv.h"
#include "ops/kit/kit.h"

typedef struct gen_ctx {
    clops_dtype dt;
    bool wide;
} gen_ctx;

/* The defines of one (dtype, index width) (see the top of cl_kernels/conv.cl). */
static clops_status write_defines(const void *vctx, const clops_device *d, strbuf *sb)
{
    (void)d;
    const gen_ctx *g = vctx;
    sb_printf(sb, "#define RAW_T %s\n#define VAL_T %s\n#define KIND %d\n#define ACC %s\n"
                  "#define IDX %s\n",
              kit_cl_bits(g->dt), kit_cl_storage(g->dt), (int)kit_load_store(g->dt),
              kit_cl_compute(g->dt), g->wide ? "long" : "int");
    return CLOPS_OK;
}

/* Kernel `which` (0 im2col, 1 col2im, 2 depthwise, 3 its input gradient, 4
 * its weight gradient's partial sums, 5 the batch-norm fold, 6 the epilogue
 * as a pass, 7 the tiled channels-last depthwise kernel of GPUs) for dt on
 * d. */
static clops_status get_kernel(clops_device *d, int which, clops_dtype dt, bool wide,
                               const char *op, host_kernel **k)
{
    static const char *const names[] = {"conv_im2col",          "conv_col2im",
                                        "conv_depthwise",       "conv_depthwise_big",
                                        "conv_depthwise_weight", "conv_fold",
                                        "conv_epilogue_pass",   "conv_depthwise_tiled"};
    if (dt != CLOPS_FLOAT32 && dt != CLOPS_FLOAT64 && dt != CLOPS_FLOAT16 &&
        dt != CLOPS_BFLOAT16)
        return clops__fail(CLOPS_INVALID_DTYPE, "%s: not implemented for '%s' on %s", op,
                           clops_dtype_name(dt), d->label);
    if (dt == CLOPS_FLOAT64 && !d->info.fp64)
        return clops__fail(CLOPS_UNSUPPORTED, "%s: %s has no float64 (cl_khr_fp64)", op,
                           d->label);
    host_kkey key = {{(0x43ull << 56) | ((uint64_t)which << 16) | ((uint64_t)wide << 8) |
                          (uint64_t)dt,
                      0, 0, 0x636f6e76ull}};
    *k = kit_find(d, &key);
    if (*k)
        return CLOPS_OK;
    char pname[64], title[96];
    snprintf(pname, sizeof pname, "conv/%s-%s", clops_dtype_name(dt), wide ? "i64" : "i32");
    snprintf(title, sizeof title,
             "clops convolution program %s, %s indices (see ops/conv/conv_launch.c)",
             clops_dtype_name(dt), wide ? "64-bit" : "32-bit");
    gen_ctx g = {dt, wide};
    kit_program p = {.name = pname,
                     .title = title,
                     .headers = {"act.clh"},
                     .write = write_defines,
                     .file = "conv.cl",
                     .ctx = &g};
    return kit_build(d, &key, &p, names[which], op, k);
}

static cl_mem mem_of(const clops_tensor *t)
{
    return t->storage->block ? t->storage->block->mem : NULL;
}

/* Strides of image or weight tensor t as 5-D (size-1 spatial dims in
 * front, stride 0); the largest element index reachable into *reach. */
static void strides5(const clops_tensor *t, int nsp, int64_t *st, int64_t *reach)
{
    st[0] = t->strides[0];
    st[1] = t->strides[1];
    int64_t r = t->offset;
    for (int i = 0; i < 2 + nsp; i++)
        if (t->sizes[i] > 0)
            r += (t->sizes[i] - 1) * t->strides[i];
    for (int i = 0; i < CONV_SP; i++) {
        int src = i - (CONV_SP - nsp);
        st[2 + i] = src < 0 ? 0 : t->strides[2 + src];
    }
    if (*reach < r)
        *reach = r;
}

#define ARG_CAP 96

/* An argument list under construction: values stored in `v` (cl_long or
 * cl_int by index width), pointers into it in `a`. */
typedef struct arglist {
    host_arg a[ARG_CAP];
    union {
        cl_long l;
        cl_int i;
        cl_mem m;
        cl_float f;
        cl_double d;
    } v[ARG_CAP];
    int n;
    bool wide;
    bool overflow; /* more arguments than ARG_CAP: the launch is refused */
} arglist;

static void arg_mem(arglist *l, cl_mem m)
{
    if (l->n >= ARG_CAP) {
        l->overflow = true;
        return;
    }
    l->v[l->n].m = m;
    l->a[l->n] = (host_arg){sizeof(cl_mem), &l->v[l->n].m};
    l->n++;
}

static void arg_long(arglist *l, int64_t x)
{
    if (l->n >= ARG_CAP) {
        l->overflow = true;
        return;
    }
    l->v[l->n].l = x;
    l->a[l->n] = (host_arg){sizeof(cl_long), &l->v[l->n].l};
    l->n++;
}

static void arg_int(arglist *l, int x)
{
    if (l->n >= ARG_CAP) {
        l->overflow = true;
        return;
    }
    l->v[l->n].i = x;
    l->a[l->n] = (host_arg){sizeof(cl_int), &l->v[l->n].i};
    l->n++;
}

/* A __local buffer of `bytes`. */
static void arg_local(arglist *l, size_t bytes)
{
    if (l->n >= ARG_CAP) {
        l->overflow = true;
        return;
    }
    l->a[l->n] = (host_arg){bytes, NULL};
    l->n++;
}

/* An ACC argument of dtype dt's kernels (double for float64, else float). */
static void arg_acc(arglist *l, clops_dtype dt, double x)
{
    if (l->n >= ARG_CAP) {
        l->overflow = true;
        return;
    }
    if (dt == CLOPS_FLOAT64) {
        l->v[l->n].d = x;
        l->a[l->n] = (host_arg){sizeof(cl_double), &l->v[l->n].d};
    } else {
        /* (a value past float's range becomes an infinity, not UB) */
        l->v[l->n].f = x > FLT_MAX ? INFINITY : x < -FLT_MAX ? -INFINITY : (cl_float)x;
        l->a[l->n] = (host_arg){sizeof(cl_float), &l->v[l->n].f};
    }
    l->n++;
}

/* An IDX argument. */
static void arg_idx(arglist *l, int64_t x)
{
    if (l->wide)
        arg_long(l, x);
    else
        arg_int(l, (int)x);
}

/* The CONV_GEOM_ARGS of g with C channels. */
static void arg_geom(arglist *l, const conv_geom *g, int64_t C)
{
    arg_idx(l, g->N);
    arg_idx(l, C);
    for (int i = 0; i < CONV_SP; i++)
        arg_idx(l, g->big[i]);
    for (int i = 0; i < CONV_SP; i++)
        arg_idx(l, g->small[i]);
    const int64_t *v[4] = {g->k, g->s, g->p, g->d};
    for (int a = 0; a < 4; a++)
        for (int i = 0; i < CONV_SP; i++)
            arg_idx(l, v[a][i]);
}

/* Whether an index up to `reach` (or a big coordinate of g) needs 64 bits. */
static bool needs_wide(const conv_geom *g, int64_t reach)
{
    int64_t lim = INT_MAX / 2;
    int64_t n = g->N * (g->Cb > g->Cs ? g->Cb : g->Cs) * g->K * (g->Lb > g->Ls ? g->Lb : g->Ls);
    return reach > lim || n > lim || g->N * g->Cb * g->Lb > lim;
}

/* Launches k over `total` items with the arguments of l. */
static clops_status launch(clops_device *d, host_kernel *k, const arglist *l, int64_t total)
{
    if (l->overflow)
        return clops__fail(CLOPS_INTERNAL, "convolution kernel: more than %d arguments",
                           ARG_CAP);
    if (total <= 0)
        return CLOPS_OK;
    return host_launch(d, k, l->n, l->a, host_grid_size(d, k, (uint64_t)total));
}

/* The largest column index of layout cl over g. */
static int64_t cols_reach(const conv_geom *g, const clops_tensor *cols, conv_cols cl)
{
    (void)cols;
    if (g->N == 0 || g->Cb == 0 || g->K == 0 || g->Ls == 0)
        return 0;
    return cl.off + (g->N - 1) * cl.sn + (g->Cb * g->K - 1) * cl.sck + g->Ls - 1;
}

/* im2col (which 0) or col2im (which 1) between image B and columns cols:
 * both kernels take the image first, then the columns. */
static clops_status cl_fold(const char *op, int which, const conv_geom *g, const clops_tensor *B,
                            const clops_tensor *cols, conv_cols cl)
{
    clops_device *d = B->storage->device;
    int64_t st[5], reach = cols_reach(g, cols, cl);
    strides5(B, g->nsp, st, &reach);
    arglist l = {.wide = needs_wide(g, reach)};
    host_kernel *k = NULL;
    clops_status s = get_kernel(d, which, B->dtype, l.wide, op, &k);
    if (s)
        return s;
    arg_mem(&l, mem_of(B));
    arg_long(&l, B->offset);
    for (int i = 0; i < 5; i++)
        arg_idx(&l, st[i]);
    arg_mem(&l, mem_of(cols));
    arg_long(&l, cl.off);
    arg_idx(&l, cl.sn);
    arg_idx(&l, cl.sck);
    arg_geom(&l, g, g->Cb);
    return launch(d, k, &l, which ? g->N * g->Cb * g->Lb : g->N * g->Cb * g->K * g->Ls);
}

clops_status conv_cl_im2col(const char *op, const conv_geom *g, const clops_tensor *B,
                            clops_tensor *cols, conv_cols cl)
{
    return cl_fold(op, 0, g, B, cols, cl);
}

clops_status conv_cl_col2im(const char *op, const conv_geom *g, const clops_tensor *cols,
                            conv_cols cl, clops_tensor *B)
{
    return cl_fold(op, 1, g, B, cols, cl);
}

/* The image and (when W is not NULL) weight arguments of the depthwise
 * kernels, in their order. */
static void dw_args(arglist *l, const clops_tensor *B, const int64_t *bs, const clops_tensor *W,
                    const int64_t *ws)
{
    arg_mem(l, mem_of(B));
    arg_long(l, B->offset);
    for (int i = 0; i < 5; i++)
        arg_idx(l, bs[i]);
    if (W) {
        arg_mem(l, mem_of(W));
        arg_long(l, W->offset);
        arg_idx(l, ws[0]);
        for (int i = 2; i < 5; i++)
            arg_idx(l, ws[i]);
    }
}

/* The largest element index the vectors of e reach over C channels. */
static int64_t vec_reach(const conv_epi *e, int64_t C)
{
    int64_t r = 0;
    const clops_tensor *v[5] = {e->bias, e->scale, e->shift, e->mean, e->var};
    for (int i = 0; i < 5; i++)
        if (v[i] && C > 0) {
            int64_t x = v[i]->offset + (C - 1) * llabs(v[i]->strides[0]);
            r = x > r ? x : r;
        }
    return r;
}

/* The CONV_VEC_ARGS of e (any stands in for absent vectors' buffers). */
static void vec_args(arglist *l, const conv_epi *e, const clops_tensor *any, clops_dtype dt)
{
    const clops_tensor *v[5] = {e->bias, e->scale, e->shift, e->mean, e->var};
    int has = 0;
    for (int i = 0; i < 5; i++) {
        arg_mem(l, v[i] ? mem_of(v[i]) : mem_of(any));
        arg_long(l, v[i] ? v[i]->offset : 0);
        arg_idx(l, v[i] ? v[i]->strides[0] : 0);
        has |= v[i] ? 1 << i : 0;
    }
    arg_int(l, has);
    arg_acc(l, dt, e->eps);
}

/* An image of a 1-D/2-D tiled kernel: its buffer, element offset, and the
 * sample, channel, H and W strides of its strides5 st. */
static void arg_image2d(arglist *l, cl_mem m, int64_t off, const int64_t *st)
{
    arg_mem(l, m);
    arg_long(l, off);
    arg_idx(l, st[0]);
    arg_idx(l, st[1]);
    arg_idx(l, st[3]);
    arg_idx(l, st[4]);
}

/* The tiled depthwise kernel's tile (cl_kernels/conv.cl DW_CT, DW_TH, DW_TW). */
enum { DW_CT = 32, DW_TH = 4, DW_TW = 8 };

/* Launches the tiled depthwise kernel k (cl_kernels/conv.cl
 * conv_depthwise_tiled) with a __local window of wbytes: strides bs, ws,
 * rs, ss as strides5 gives them (H, W at 3, 4). */
static clops_status depthwise_tiled(clops_device *d, host_kernel *k, arglist *l,
                                    const conv_geom *g, const clops_tensor *B, const int64_t *bs,
                                    const clops_tensor *W, const int64_t *ws, const conv_epi *e,
                                    const int64_t *rs, clops_tensor *S, const int64_t *ss,
                                    size_t wbytes)
{
    int64_t tilesH = (g->small[1] + DW_TH - 1) / DW_TH, tilesW = (g->small[2] + DW_TW - 1) / DW_TW;
    int64_t cblk = (g->Cb + DW_CT - 1) / DW_CT, groups = 0;
    if (!geom_mul(g->N, cblk, &groups) || !geom_mul(groups, tilesH, &groups) ||
        !geom_mul(groups, tilesW, &groups) || groups > (int64_t)(SIZE_MAX / (DW_CT * DW_TH)) ||
        (!l->wide && groups > INT_MAX / 2))
        return clops__fail(CLOPS_INVALID_SHAPE,
                           "convolution: depthwise %" PRId64 " x %" PRId64
                           " channels over %" PRId64 " x %" PRId64 " outputs: too many tiles",
                           g->N, g->Cb, g->small[1], g->small[2]);
    arg_image2d(l, mem_of(B), B->offset, bs);
    arg_mem(l, mem_of(W));
    arg_long(l, W->offset);
    arg_idx(l, ws[0]);
    arg_idx(l, ws[3]);
    arg_idx(l, ws[4]);
    vec_args(l, e, W, B->dtype);
    arg_image2d(l, e->residual ? mem_of(e->residual) : mem_of(W),
                e->residual ? e->residual->offset : 0, rs);
    arg_int(l, e->residual ? (e->residual_after ? 2 : 1) : 0);
    arg_int(l, e->act);
    arg_image2d(l, mem_of(S), S->offset, ss);
    arg_idx(l, g->Cb);
    const int64_t *v[] = {g->big, g->small, g->k, g->s, g->p, g->d};
    for (size_t a = 0; a < sizeof v / sizeof v[0]; a++) {
        arg_idx(l, v[a][1]);
        arg_idx(l, v[a][2]);
    }
    arg_idx(l, (DW_TH - 1) * g->s[1] + (g->k[1] - 1) * g->d[1] + 1);
    arg_idx(l, (DW_TW - 1) * g->s[2] + (g->k[2] - 1) * g->d[2] + 1);
    arg_idx(l, tilesH);
    arg_idx(l, tilesW);
    arg_idx(l, cblk);
    arg_local(l, wbytes);
    if (l->overflow)
        return clops__fail(CLOPS_INTERNAL, "convolution kernel: more than %d arguments",
                           ARG_CAP);
    if (groups == 0)
        return CLOPS_OK;
    return host_launch_local(d, k, l->n, l->a, (size_t)groups * (DW_CT * DW_TH),
                             DW_CT * DW_TH);
}

/* Whether the forward depthwise product of g from B goes to the tiled
 * kernel: a GPU (not a CPU device: its one-item-per-element kernel is
 * vectorised along the positions), a channels-last 1-D/2-D image, one
 * destination channel per source channel, a window that fits the local
 * memory; its __local bytes into *bytes.  CLOPS_CONV_DEPTHWISE=direct
 * keeps conv_depthwise (benchmarks compare the two). */
static bool dw_tiled(const clops_device *d, const conv_geom *g, const clops_tensor *B,
                     size_t *bytes)
{
    const char *env = host_env("CLOPS_CONV_DEPTHWISE");
    if ((env && strcmp(env, "direct") == 0) || kit_is_cpu(d) || g->nsp > 2 ||
        g->Cs != g->Cb || g->Cb < 2 || B->strides[1] != 1)
        return false;
    /* the window of a DW_TH x DW_TW tile (H, W: the last two of CONV_SP) */
    int64_t wh = (DW_TH - 1) * g->s[1] + (g->k[1] - 1) * g->d[1] + 1;
    int64_t ww = (DW_TW - 1) * g->s[2] + (g->k[2] - 1) * g->d[2] + 1;
    size_t acc = B->dtype == CLOPS_FLOAT64 ? 8 : 4;
    uint64_t cap = d->info.local_mem_bytes < 32768 ? d->info.local_mem_bytes : 32768;
    if (wh > 64 || ww > 64 || (uint64_t)(wh * ww * DW_CT) * acc > cap)
        return false;
    *bytes = (size_t)(wh * ww * DW_CT) * acc;
    return true;
}

clops_status conv_cl_depthwise(const char *op, const conv_geom *g, const clops_tensor *B,
                               const clops_tensor *W, const conv_epi *e, clops_tensor *S)
{
    clops_device *d = B->storage->device;
    const conv_epi none = {.eps = 0};
    if (!e)
        e = &none;
    int64_t bs[5], ws[5], ss[5], rs[5] = {0}, reach = vec_reach(e, g->Cs);
    strides5(B, g->nsp, bs, &reach);
    strides5(W, g->nsp, ws, &reach);
    strides5(S, g->nsp, ss, &reach);
    if (e->residual)
        strides5(e->residual, g->nsp, rs, &reach);
    size_t wbytes = 0;
    bool tiled = dw_tiled(d, g, B, &wbytes);
    arglist l = {.wide = needs_wide(g, reach)};
    host_kernel *k = NULL;
    clops_status s = get_kernel(d, tiled ? 7 : 2, B->dtype, l.wide, op, &k);
    if (s)
        return s;
    if (tiled)
        return depthwise_tiled(d, k, &l, g, B, bs, W, ws, e, rs, S, ss, wbytes);
    dw_args(&l, B, bs, W, ws);
    vec_args(&l, e, W, B->dtype);
    arg_mem(&l, e->residual ? mem_of(e->residual) : mem_of(W));
    arg_long(&l, e->residual ? e->residual->offset : 0);
    for (int i = 0; i < 5; i++)
        arg_idx(&l, rs[i]);
    arg_int(&l, e->residual ? (e->residual_after ? 2 : 1) : 0);
    arg_int(&l, e->act);
    arg_mem(&l, mem_of(S));
    arg_long(&l, S->offset);
    for (int i = 0; i < 5; i++)
        arg_idx(&l, ss[i]);
    arg_idx(&l, g->Cs);
    arg_geom(&l, g, g->Cb);
    return launch(d, k, &l, g->N * g->Cs * g->Ls);
}

clops_status conv_cl_depthwise_big(const char *op, const conv_geom *g, const clops_tensor *S,
                                   const clops_tensor *W, clops_tensor *B)
{
    clops_device *d = B->storage->device;
    int64_t bs[5], ws[5], ss[5], reach = 0;
    strides5(B, g->nsp, bs, &reach);
    strides5(W, g->nsp, ws, &reach);
    strides5(S, g->nsp, ss, &reach);
    arglist l = {.wide = needs_wide(g, reach)};
    host_kernel *k = NULL;
    clops_status s = get_kernel(d, 3, B->dtype, l.wide, op, &k);
    if (s)
        return s;
    dw_args(&l, B, bs, W, ws);
    arg_mem(&l, mem_of(S));
    arg_long(&l, S->offset);
    for (int i = 0; i < 5; i++)
        arg_idx(&l, ss[i]);
    arg_idx(&l, g->Cs);
    arg_geom(&l, g, g->Cb);
    return launch(d, k, &l, g->N * g->Cb * g->Lb);
}

clops_status conv_cl_depthwise_weight(const char *op, const conv_geom *g, const clops_tensor *S,
                                      const clops_tensor *B, int64_t P, clops_tensor *part)
{
    clops_device *d = B->storage->device;
    int64_t bs[5], ss[5], reach = tensor_numel(part);
    strides5(B, g->nsp, bs, &reach);
    strides5(S, g->nsp, ss, &reach);
    arglist l = {.wide = needs_wide(g, reach)};
    host_kernel *k = NULL;
    clops_status s = get_kernel(d, 4, B->dtype, l.wide, op, &k);
    if (s)
        return s;
    dw_args(&l, B, bs, NULL, NULL);
    arg_mem(&l, mem_of(part));
    arg_mem(&l, mem_of(S));
    arg_long(&l, S->offset);
    for (int i = 0; i < 5; i++)
        arg_idx(&l, ss[i]);
    arg_idx(&l, g->Cs);
    arg_idx(&l, P);
    arg_geom(&l, g, g->Cb);
    return launch(d, k, &l, tensor_numel(part));
}

clops_status conv_cl_fold(const char *op, const clops_tensor *w, const int64_t *ws,
                          clops_tensor *wo, const int64_t *wos, const int64_t *dims,
                          const conv_epi *e, clops_tensor *bo)
{
    clops_device *d = w->storage->device;
    int64_t nw = dims[0] * dims[1] * dims[2] * dims[3], nb = dims[0] * dims[1];
    int64_t reach = vec_reach(e, nb), rw = w->offset, ro = wo->offset;
    for (int i = 0; i < 4; i++)
        if (dims[i] > 0) {
            rw += (dims[i] - 1) * llabs(ws[i]);
            ro += (dims[i] - 1) * llabs(wos[i]);
        }
    reach = reach > rw ? reach : rw;
    reach = reach > ro ? reach : ro;
    arglist l = {.wide = reach > INT_MAX / 2 || nw + nb > INT_MAX / 2};
    host_kernel *k = NULL;
    clops_status s = get_kernel(d, 5, w->dtype, l.wide, op, &k);
    if (s)
        return s;
    arg_mem(&l, mem_of(w));
    arg_long(&l, w->offset);
    for (int i = 0; i < 4; i++)
        arg_idx(&l, ws[i]);
    arg_mem(&l, mem_of(wo));
    arg_long(&l, wo->offset);
    for (int i = 0; i < 4; i++)
        arg_idx(&l, wos[i]);
    for (int i = 0; i < 4; i++)
        arg_idx(&l, dims[i]);
    /* Elements per work item: a row of cg on CPU devices (s computed once
     * per row), one on GPUs (every element its own item, coalesced). */
    int64_t cg = dims[3], chunk = kit_is_cpu(d) && cg > 1 ? cg : 1;
    arg_idx(&l, chunk);
    vec_args(&l, e, w, w->dtype);
    arg_mem(&l, mem_of(bo));
    arg_long(&l, bo->offset);
    return launch(d, k, &l, dims[0] * dims[1] * dims[2] * ((cg + chunk - 1) / chunk) + nb);
}

clops_status conv_cl_epilogue_pass(const char *op, int nsp, const conv_epi *e, clops_tensor *y)
{
    clops_device *d = y->storage->device;
    int64_t ys[5], rs[5] = {0}, reach = vec_reach(e, y->sizes[1]), total = tensor_numel(y);
    strides5(y, nsp, ys, &reach);
    if (e->residual)
        strides5(e->residual, nsp, rs, &reach);
    arglist l = {.wide = reach > INT_MAX / 2 || total > INT_MAX / 2};
    host_kernel *k = NULL;
    clops_status s = get_kernel(d, 6, y->dtype, l.wide, op, &k);
    if (s)
        return s;
    arg_mem(&l, mem_of(y));
    arg_long(&l, y->offset);
    for (int i = 0; i < 5; i++)
        arg_idx(&l, ys[i]);
    vec_args(&l, e, y, y->dtype);
    arg_mem(&l, e->residual ? mem_of(e->residual) : mem_of(y));
    arg_long(&l, e->residual ? e->residual->offset : 0);
    for (int i = 0; i < 5; i++)
        arg_idx(&l, rs[i]);
    arg_int(&l, e->residual ? (e->residual_after ? 2 : 1) : 0);
    arg_int(&l, e->act);
    arg_idx(&l, y->sizes[0]);
    arg_idx(&l, y->sizes[1]);
    for (int i = 0; i < CONV_SP; i++) {
        int src = i - (CONV_SP - nsp);
        arg_idx(&l, src < 0 ? 1 : y->sizes[2 + src]);
    }
    return launch(d, k, &l, total);
}

clops_status conv_im2col_run(const char *op, const conv_geom *g, const clops_tensor *B,
                             clops_tensor *cols, conv_cols l)
{
    if (kit_is_host(B->storage->device))
        return conv_ref_im2col(g, B, cols, l);
    return conv_cl_im2col(op, g, B, cols, l);
}

clops_status conv_col2im_run(const char *op, const conv_geom *g, const clops_tensor *cols,
                             conv_cols l, clops_tensor *B)
{
    if (kit_is_host(B->storage->device))
        return conv_ref_col2im(g, cols, l, B);
    return conv_cl_col2im(op, g, cols, l, B);
}
