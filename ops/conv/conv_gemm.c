/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ops/conv/conv_gemm.c: the three products of a convolution geometry (ops/conv/conv.h)
 * on OpenCL devices, as GEMMs of the GEMM family's engine (CLBlast with
 * clops' tuned parameters) over im2col columns.
 *
 * Per group, with Wm the weight seen as [groups, Cs/g, Cb/g * K], P the
 * small image permuted to [Cs, N * Ls] and cols the im2col columns of the
 * big image, [Cb * K, N * Ls]:
 *
 *   to small:   P  = Wm @ cols, then P copied into S       (+ bias)
 *   to big:     cols = Wm^T @ P, then col2im into B        (+ bias)
 *   to weight:  Wm = P @ cols^T
 *
 * so each product is one GEMM per group with the batch folded into the
 * columns (large N dimension even for the 7x7 images of late layers).  The
 * batch is cut into chunks that keep the column buffer under
 * CONV_COLS_BUDGET elements; weight gradients accumulate over chunks with
 * beta = 1 (deterministic: the same order every run).  Two shortcuts:
 * depthwise geometry (one big channel per group) runs the direct kernels of
 * cl_kernels/conv.cl for all three products; a 1x1 kernel with stride 1 and
 * no padding (im2col would be a permuted copy) runs "to small" and "to big"
 * as GEMMs straight on the images' memory, batched over (sample, group).
 * Before all this, the matrix engine's implicit GEMM takes every product
 * it can (implicit_product, below: no column buffer at all).
 * docs/conv.md.
 */
#include <stdatomic.h>
#include <string.h>

#include "codegen_pointwise/pw.h"
#include "host/host.h"
#include "ops/conv/conv.h"
#include "ops/tensor/tensor.h"
#include "ops/gemm/gemm.h"
#include "ops/kernels_generated.h"
#include "ops/reduce/reduce.h"

/* Elements of the column buffer of one chunk (256 MiB of float32). */
#define CONV_COLS_BUDGET ((int64_t)1 << 26)

/* The temporaries of one product, released together. */
typedef struct tmps {
    clops_tensor *t[24];
    int n;
} tmps;

/* A view of t (kept in c). */
static clops_status view(tmps *c, const clops_tensor *t, int ndim, const int64_t *sizes,
                         const int64_t *strides, int64_t off, clops_tensor **out)
{
    clops_status st = gemm_view(t, ndim, sizes, strides, off, out);
    if (!st)
        c->t[c->n++] = *out;
    return st;
}

/* A new contiguous 1-D tensor of n elements like t (kept in c). */
static clops_status buffer(tmps *c, const clops_tensor *t, int64_t n, clops_tensor **out)
{
    clops_status st = tensor_new(t->storage->device, t->dtype, 1, &n, NULL, out);
    if (!st)
        c->t[c->n++] = *out;
    return st;
}

/* Samples [n0, n0 + nc) of image t (kept in c). */
static clops_status narrow(tmps *c, const clops_tensor *t, int64_t n0, int64_t nc,
                           clops_tensor **out)
{
    int64_t sz[CLOPS_MAX_DIMS];
    memcpy(sz, t->sizes, sizeof(int64_t) * (size_t)t->ndim);
    sz[0] = nc;
    return view(c, t, t->ndim, sz, t->strides, t->offset + n0 * t->strides[0], out);
}

/*
 * The [C, nc, Ls] buffer buf seen in the shape of an image chunk
 * [nc, C, sp...] (nsp spatial dims of sizes sp), for copies between the
 * two layouts (kept in c).
 */
static clops_status permuted(tmps *c, const clops_tensor *buf, int nsp, int64_t nc, int64_t C,
                             const int64_t *sp, clops_tensor **out)
{
    int64_t sz[2 + CONV_SP], st[2 + CONV_SP], L = 1;
    for (int i = nsp - 1; i >= 0; i--) {
        sz[2 + i] = sp[i];
        st[2 + i] = L;
        L *= sp[i];
    }
    sz[0] = nc;
    st[0] = L;
    sz[1] = C;
    st[1] = nc * L;
    return view(c, buf, 2 + nsp, sz, st, buf->offset, out);
}

/* Whether im2col of g is the identity (1x1 kernel, stride 1, no padding,
 * and images of one size: a transposed convolution's output_padding makes
 * the big image longer, and its extra positions take no tap). */
static bool identity(const conv_geom *g)
{
    for (int i = 0; i < CONV_SP; i++)
        if (g->k[i] != 1 || g->s[i] != 1 || g->p[i] != 0 || g->big[i] != g->small[i])
            return false;
    return true;
}

/* The spatial sizes of g's big or small image (the op's nsp dims). */
static const int64_t *sp_of(const conv_geom *g, bool big)
{
    return (big ? g->big : g->small) + (CONV_SP - g->nsp);
}

/* Adds bias (NULL: nothing) to the channels of image t. */
static clops_status add_bias(tmps *c, clops_tensor *t, clops_tensor *bias, int nsp)
{
    if (!bias || tensor_numel(t) == 0)
        return CLOPS_OK;
    int64_t sz[1 + CONV_SP], st[1 + CONV_SP];
    sz[0] = bias->sizes[0];
    st[0] = bias->strides[0];
    for (int i = 0; i < nsp; i++) {
        sz[1 + i] = 1;
        st[1 + i] = 0;
    }
    clops_tensor *bv = NULL;
    clops_status s = view(c, bias, 1 + nsp, sz, st, bias->offset, &bv);
    if (s)
        return s;
    /* t += bv through the pointwise engine (not the dispatcher) */
    const pw_operand o[2] = {pw_tensor(t), pw_tensor(bv)};
    const clops_scalar alpha = clops_scalar_int(1);
    return pw_run(&pw_op_add, PW_INPLACE, o, &alpha, NULL, NULL, NULL);
}

/*
 * The 1x1 shortcut: dst [N, g, cd/g, L] = Wm (transposed when trans) @
 * src [N, g, cs/g, L] for every sample, batched over (sample, group) on the
 * images' own memory; false in *done when an image's spatial dims cannot
 * be merged.
 */
static clops_status gemm_1x1(tmps *c, const char *op, const conv_geom *g, const clops_tensor *Wc,
                             const clops_tensor *src, clops_tensor *dst, bool trans, bool *done)
{
    int64_t ls_s, ls_d, G = g->groups;
    *done = false;
    if (!gemm_merged_stride(src, &ls_s) || !gemm_merged_stride(dst, &ls_d))
        return CLOPS_OK;
    int64_t cs = src->sizes[1] / G, cd = dst->sizes[1] / G, L = g->Ls;
    int64_t csg = g->Cs / G, cbg = g->Cb / G;
    int64_t wsz[4] = {g->N, G, trans ? cbg : csg, trans ? csg : cbg};
    int64_t wst[4] = {0, csg * cbg, trans ? 1 : cbg, trans ? cbg : 1};
    int64_t ssz[4] = {g->N, G, cs, L}, sst[4] = {src->strides[0], cs * src->strides[1],
                                                 src->strides[1], ls_s};
    int64_t dsz[4] = {g->N, G, cd, L}, dst4[4] = {dst->strides[0], cd * dst->strides[1],
                                                  dst->strides[1], ls_d};
    clops_tensor *a = NULL, *b = NULL, *o = NULL;
    clops_status s = view(c, Wc, 4, wsz, wst, Wc->offset, &a);
    if (!s)
        s = view(c, src, 4, ssz, sst, src->offset, &b);
    if (!s)
        s = view(c, dst, 4, dsz, dst4, dst->offset, &o);
    if (!s)
        s = gemm_run_nd(gemm_engine_of(dst), op, 2, a, b, o, clops_scalar_int(1),
                        clops_scalar_int(0));
    *done = !s;
    return s;
}

/* Work items the depthwise weight gradient's first pass aims at on GPUs
 * (a few per lane of a large GPU: an H200's 132 units hold 270,336). */
#define DW_WEIGHT_ITEMS ((int64_t)1 << 18)

/*
 * The parts P of the small image's rows that the depthwise weight
 * gradient's first pass splits each (channel, tap, sample) sum into.  One
 * item per (channel, tap, sample) gave MobileNetV3's first depthwise layer
 * at batch 64 9,216 items of 12,544 products each, a few warps per unit
 * of a GPU.  GPUs (and POCL under the GPU launch policy) split the rows
 * into up to sH parts until about DW_WEIGHT_ITEMS items, each part of at
 * least 2 rows; CPU devices keep one part (their cores are few, and one
 * sum per item streams its plane).  CLOPS_CONV_DW_SPLIT=0 (read per call,
 * for benchmarks that compare) keeps one part everywhere.
 */
static int64_t dw_weight_parts(const conv_geom *g, const clops_tensor *B)
{
    const char *env = host_env("CLOPS_CONV_DW_SPLIT");
    int64_t items = 0, rows = g->small[CONV_SP - 2];
    if ((env && strcmp(env, "0") == 0) || kit_is_cpu(B->storage->device) ||
        !geom_mul(g->Cs, g->K, &items) || !geom_mul(items, g->N, &items) || items <= 0 ||
        items >= DW_WEIGHT_ITEMS || rows < 4)
        return 1;
    int64_t P = (DW_WEIGHT_ITEMS + items - 1) / items;
    return P < rows / 2 ? P : rows / 2;
}

/* The weight gradient of depthwise geometry: partial sums per sample and
 * part of the rows (conv_cl_depthwise_weight), then their sum. */
static clops_status depthwise_weight(tmps *c, const char *op, const conv_geom *g, clops_tensor *S,
                                     clops_tensor *B, clops_tensor *Wc)
{
    clops_tensor *part = NULL, *pv = NULL;
    int64_t P = dw_weight_parts(g, B), np = 0;
    if (!geom_mul(g->Cs, g->K, &np) || !geom_mul(np, g->N, &np) || !geom_mul(np, P, &np))
        return clops__fail(CLOPS_INVALID_SHAPE,
                           "%s: depthwise weight gradient partials of %lld channels x %lld "
                           "taps x %lld samples x %lld parts overflow",
                           op, (long long)g->Cs, (long long)g->K, (long long)g->N, (long long)P);
    clops_status s = buffer(c, B, np, &part);
    if (!s)
        s = conv_cl_depthwise_weight(op, g, S, B, P, part);
    int64_t sz[2 + CONV_SP + 1], st[2 + CONV_SP + 1];
    int nd = Wc->ndim;
    for (int i = 0; i < nd; i++)
        sz[i] = Wc->sizes[i];
    sz[nd] = g->N * P;
    contiguous_strides(nd + 1, sz, st);
    if (!s)
        s = view(c, part, nd + 1, sz, st, part->offset, &pv);
    if (s)
        return s;
    reduce_call rc = {.opname = op, .kind = RK_SUM, .x = pv, .y = Wc};
    rc.mask[nd] = true;
    return reduce_run(&rc);
}

/* Samples per chunk: the column buffer and P within the budget. */
static int64_t chunk_of(const conv_geom *g)
{
    int64_t per = g->Cb * g->K * g->Ls;
    if (per < g->Cs * g->Ls)
        per = g->Cs * g->Ls;
    int64_t nc = per ? CONV_COLS_BUDGET / per : g->N;
    if (nc < 1)
        nc = 1;
    return nc < g->N ? nc : g->N;
}

/*
 * The weight gradient of one chunk, W (+)= P @ C^T with P [G, csg, nc*Ls]
 * and the columns C [G, nc*Ls, cbk].  One GEMM has K = nc * Ls and, for a
 * small weight, few output tiles to spread over the device (ResNet's stem:
 * 64 x 147 outputs, K = 401408).  So K is cut into slices of q samples
 * (q * Ls >= 4096, partials at most 2^25 elements): one batched GEMM into
 * partials [G, ns, csg, cbk] (slot ns holding W's old value when
 * accumulating), then their sum in a fixed order (ops/reduce/reduce.h).
 */
static clops_status weight_gemm(tmps *c, const char *op, blas_gemm_fn engine,
                                const clops_tensor *P, const clops_tensor *cols, clops_tensor *Wv,
                                int64_t G, int64_t csg, int64_t cbk, int64_t nc, int64_t Ls,
                                bool accumulate)
{
    int64_t out = G * csg * cbk, q = nc;
    for (int64_t d = 1; d <= nc; d++)
        if (nc % d == 0 && d * Ls >= 4096 && (nc / d + 1) * out <= ((int64_t)1 << 25)) {
            q = d;
            break;
        }
    int64_t ns = nc / q, slots = ns + (accumulate ? 1 : 0);
    if (ns < 2)
        return gemm_run_nd(engine, op, 1, P, cols, Wv, clops_scalar_int(1),
                           clops_scalar_int(accumulate));
    int64_t K = nc * Ls, kq = q * Ls;
    int64_t psz[4] = {G, ns, csg, kq}, pst[4] = {csg * K, kq, K, 1};
    int64_t csz[4] = {G, ns, kq, cbk}, cst[4] = {cbk * K, kq, 1, K};
    int64_t rsz[4] = {G, slots, csg, cbk}, rst[4] = {slots * csg * cbk, csg * cbk, cbk, 1};
    int64_t osz[4] = {G, ns, csg, cbk};
    clops_tensor *part = NULL, *P4 = NULL, *C4 = NULL, *R4 = NULL, *O4 = NULL, *old = NULL;
    clops_status s = buffer(c, Wv, G * slots * csg * cbk, &part);
    if (!s)
        s = view(c, P, 4, psz, pst, P->offset, &P4);
    if (!s)
        s = view(c, cols, 4, csz, cst, cols->offset, &C4);
    if (!s)
        s = view(c, part, 4, rsz, rst, part->offset, &R4);
    if (!s)
        s = view(c, part, 4, osz, rst, part->offset, &O4);
    if (!s && accumulate) {
        int64_t wsz[3] = {G, csg, cbk}, wst[3] = {slots * csg * cbk, cbk, 1};
        s = view(c, part, 3, wsz, wst, part->offset + ns * csg * cbk, &old);
        if (!s)
            s = core_copy_(old, Wv, false);
    }
    if (!s)
        s = gemm_run_nd(engine, op, 2, P4, C4, O4, clops_scalar_int(1), clops_scalar_int(0));
    if (s)
        return s;
    reduce_call rc = {.opname = op, .kind = RK_SUM, .x = R4, .y = Wv};
    rc.mask[1] = true;
    return reduce_run(&rc);
}

/* The general path of one product: chunks of samples through im2col,
 * GEMM and col2im. */
static clops_status product_chunks(tmps *c, const char *op, const conv_geom *g, conv_dir dir,
                                   clops_tensor *S, clops_tensor *B, const clops_tensor *Wc)
{
    int64_t G = g->groups, csg = g->Cs / G, cbk = g->Cb / G * g->K, Ls = g->Ls;
    int64_t NC = chunk_of(g);
    clops_tensor *cols = NULL, *P = NULL;
    clops_status s = buffer(c, B, NC * g->Cb * g->K * Ls, &cols);
    if (!s)
        s = buffer(c, B, NC * g->Cs * Ls, &P);
    blas_gemm_fn engine = gemm_engine_of(B);
    int keep = c->n;
    for (int64_t n0 = 0; !s && n0 < g->N; n0 += NC) {
        int64_t nc = g->N - n0 < NC ? g->N - n0 : NC;
        conv_geom gc = *g;
        gc.N = nc;
        conv_cols l = {cols->offset, Ls, nc * Ls};
        int64_t wsz[3] = {G, csg, cbk}, wst[3] = {csg * cbk, cbk, 1};
        int64_t wtst[3] = {csg * cbk, 1, cbk}, wtsz[3] = {G, cbk, csg};
        int64_t csz[3] = {G, cbk, nc * Ls}, cst[3] = {cbk * nc * Ls, nc * Ls, 1};
        int64_t ctsz[3] = {G, nc * Ls, cbk}, ctst[3] = {cbk * nc * Ls, 1, nc * Ls};
        int64_t psz[3] = {G, csg, nc * Ls}, pst[3] = {csg * nc * Ls, nc * Ls, 1};
        clops_tensor *Sc = NULL, *Bc = NULL, *Pv = NULL, *Pp = NULL, *Wv = NULL, *Cv = NULL;
        s = narrow(c, S, n0, nc, &Sc);
        if (!s)
            s = narrow(c, B, n0, nc, &Bc);
        if (!s)
            s = view(c, P, 3, psz, pst, P->offset, &Pv);
        if (!s)
            s = permuted(c, P, g->nsp, nc, g->Cs, sp_of(g, false), &Pp);
        if (!s && dir == CONV_TO_BIG)
            s = view(c, Wc, 3, wtsz, wtst, Wc->offset, &Wv);
        else if (!s)
            s = view(c, Wc, 3, wsz, wst, Wc->offset, &Wv);
        if (!s)
            s = dir == CONV_TO_WEIGHT ? view(c, cols, 3, ctsz, ctst, cols->offset, &Cv)
                                      : view(c, cols, 3, csz, cst, cols->offset, &Cv);
        if (!s && dir != CONV_TO_BIG)
            s = conv_im2col_run(op, &gc, Bc, cols, l);
        if (!s && dir != CONV_TO_SMALL)
            s = core_copy_(Pp, Sc, false);
        if (!s && dir == CONV_TO_SMALL) {
            s = gemm_run_nd(engine, op, 1, Wv, Cv, Pv, clops_scalar_int(1), clops_scalar_int(0));
            if (!s)
                s = core_copy_(Sc, Pp, false);
        } else if (!s && dir == CONV_TO_BIG) {
            s = gemm_run_nd(engine, op, 1, Wv, Pv, Cv, clops_scalar_int(1), clops_scalar_int(0));
            if (!s)
                s = conv_col2im_run(op, &gc, cols, l, Bc);
        } else if (!s) {
            s = weight_gemm(c, op, engine, Pv, Cv, Wv, G, csg, cbk, nc, Ls, n0 > 0);
        }
        /* The chunk's views are not needed past this point. */
        for (; c->n > keep; c->n--)
            clops_tensor_release(c->t[c->n - 1]);
    }
    return s;
}

/* Smaller images keep their strided loads: the copy is one launch more
 * (a fused convolution promises at most two), and what it saves grows
 * with the image (ResNet-18's smallest, layer 4 at batch 1, is 25,088
 * elements). */
#define CONV_NHWC_COPY_MIN 16384

/* Which source images of the engine's products a GPU copies into
 * channels-last order (CLOPS_CONV_NHWC_COPY, read per call for benchmarks
 * that compare: "0" none, the strided loads of earlier stops; "fwd" the
 * forward's and input gradient's source only; anything else, or unset,
 * those and the weight gradient's two images; padded_channels too).  CPU
 * devices follow their own rule (channels_last_copy). */
typedef enum { NHWC_NONE, NHWC_FWD, NHWC_ALL } nhwc_copies;

static nhwc_copies gpu_nhwc_copies(void)
{
    const char *env = host_env("CLOPS_CONV_NHWC_COPY");
    if (env && strcmp(env, "0") == 0)
        return NHWC_NONE;
    return env && strcmp(env, "fwd") == 0 ? NHWC_FWD : NHWC_ALL;
}

/*
 * The engine configuration of a forward or input-gradient product with n
 * destination channels per group on a GPU (gemm_conv.tile: 0 the engine's
 * choice).  The engine's default blocks are 128 x 128 (64 x 64 only when
 * the product has fewer 128 x 128 blocks than compute units), so a product
 * of 64 or fewer output channels (ResNet's first stage, MobileNet's narrow
 * 1x1 layers) computes at least half of every block in vain: such products
 * take 64 x 64 blocks ("64x64-w32x32-s4"; H200, ResNet-18 batch 64 float32
 * forward 9.3 -> 7.8 ms, docs/conv.md).  CLOPS_CONV_TILE (read per call,
 * for benchmarks that compare): "0" the engine's choice, the name of an
 * mma.sync configuration (gemm_engine_config_name; a wgmma name asks for
 * wgmma, as CLOPS_CONV_WGMMA's below) that one for such products; unset or
 * "1" 64 x 64.  (On Hopper, where the staging allows, conv_wgmma_tile's
 * 64-wide wgmma blocks replace it since conv15.)
 */
static int conv_tile_of(const char *want)
{
    for (int i = 0; i < gemm_engine_config_count(); i++)
        if (strcmp(gemm_engine_config_name(i), want) == 0)
            return i + 1;
    return 0;
}

/* conv_tile_of(name) for a configuration the code names (the table is
 * fixed): looked up once, kept in *cell (-1 until then). */
static int conv_tile_named(atomic_int *cell, const char *name)
{
    int t = atomic_load_explicit(cell, memory_order_relaxed);
    if (t < 0) {
        t = conv_tile_of(name);
        atomic_store_explicit(cell, t, memory_order_relaxed);
    }
    return t;
}

static atomic_int tile_narrow = -1, tile_wg64 = -1, tile_wg128 = -1, tile_n64 = -1,
                  tile_n64few = -1;

/*
 * The wgmma configuration of a forward or input-gradient product on
 * Hopper, 0 for none (mma.sync's): float32 as TF32 (the engine's conv
 * precision "high", PyTorch's allow_tf32 default) and, since conv12,
 * float16 / bfloat16.  The engine's wgmma takes TF32 only with both
 * operands K-major: here A is the source image in channels-last order
 * (src, after channels_last_copy / the padded stem: a tap's channels are
 * the unit stride of K, whole 16-byte chunks of them) and B the weight in
 * (tap, channel) order (w_sk 1), which implicit_product already produces;
 * the half types take the same staging (the im2col view's cp.async
 * chunks).  Blocks of 128 x 128 ("wg128x128-s3-cs") where they number
 * twice the compute units or more, else 64 x 128 ("wg64x128-s4-cs", as
 * the engine's plain products), and since conv15 128 x 64 / 64 x 64 for
 * products of 64 or fewer destination channels: conv_wgmma_rule.
 * CLOPS_CONV_WGMMA (float32) and CLOPS_CONV_WGMMA_HALF (float16 /
 * bfloat16), read per call for benchmarks that compare (see wsamples_mode
 * on why per call): unset or "1" the
 * rule, "0" none, "all" every product the staging allows, a
 * configuration's name (gemm_engine_config_name) that one for all.  The
 * engine honours the ask (for float32 without CLOPS_GEMM_WGMMA_TF32, its
 * switch for plain products); each configuration passes its known-answer
 * check first, mma.sync where it fails.
 */
static int conv_wgmma_tile(const clops_tensor *y, const clops_tensor *src, int64_t cg, int64_t n,
                           int64_t m, int64_t groups, int64_t w_sk)
{
    clops_device *d = y->storage->device;
    bool half = y->dtype == CLOPS_FLOAT16 || y->dtype == CLOPS_BFLOAT16;
    if ((!half && y->dtype != CLOPS_FLOAT32) || src->strides[1] != 1 ||
        (cg * (int64_t)clops_dtype_size(y->dtype)) % 16 != 0 || w_sk != 1 ||
        !gemm_engine_wgmma_candidate(d, CLOPS_BFLOAT16))
        return 0;
    int64_t units = d->info.compute_units ? (int64_t)d->info.compute_units : 1;
    return conv_wgmma_rule(host_env(half ? "CLOPS_CONV_WGMMA_HALF" : "CLOPS_CONV_WGMMA"),
                           host_env("CLOPS_CONV_WGMMA64"), n, m, groups, units);
}

/*
 * The rule (mode NULL or "1"): products of more than 64 destination
 * channels per group (the 128-wide blocks; the narrower ones below) with
 * at least twice as many 64 x
 * 128 blocks as compute units (fewer leave wgmma's larger blocks a partial
 * wave: ResNet's last stage at batch 64, 3,136 rows, keeps mma.sync).
 * H200, ResNet-18 at batch 64, float32 NCHW, per call (docs/conv.md
 * "Float32 convolutions on wgmma"): layer2's 3x3 forward 307 -> 223 us,
 * layer3's 278 -> 242, their input gradients 423 -> 286 and 386 -> 321;
 * on wgmma the first stage's lost (389 -> 413, input gradient 463 -> 536)
 * and so did the last stage's (339 -> 358).  The half types take the same
 * rule (docs/conv.md "Half-type convolutions on wgmma", conv12): H200,
 * bfloat16 channels-last at batch 64, every layer it moves to wgmma ran
 * 1.37-2.04x faster (ResNet-50's 1x1 512 -> 128 141 -> 69 us, ResNet-18's
 * layer-2 3x3 175 -> 107, its input gradient 225 -> 142), and ResNet-50's
 * bfloat16 forward went 17.6 -> 14.0 ms; the rows it keeps on mma.sync
 * (64 channels, 3,136 rows of 512) were not measured on wgmma.
 */
/*
 * (conv15) Products of 64 or fewer destination channels per group (ResNet's
 * first stage and stem, the narrow 1x1 layers), which the 128-wide blocks
 * left half empty (conv11: slower than mma.sync's 64 x 64 there), take
 * the 64-wide wgmma blocks under narrow (CLOPS_CONV_WGMMA64, read per
 * call; unset or "1"):
 * 128 x 64 ("wg128x64-s3-cs") where those number twice the compute units
 * or more, else 64 x 64 ("wg64x64-s4-cs"), with at least twice as many
 * 64 x 64 blocks as units (as the wide rule; "all" drops that); "0" the
 * state before (mma.sync's 64 x 64 blocks under the rule, the 128-wide
 * wgmma blocks under "all"); a configuration's name that one for them.
 * mode "0" or a name overrides narrow.  H200, batch 64, us per call
 * (docs/conv.md "The 64-channel stage on 64-wide wgmma blocks"): float32
 * NCHW as TF32 stem 705 -> 507, layer 1's 3x3 371 -> 291, its input
 * gradient 365 -> 308; bfloat16 channels-last 757 -> 509, 213 -> 140,
 * 207 -> 151.
 */
int conv_wgmma_rule(const char *mode, const char *narrow, int64_t n, int64_t m, int64_t groups,
                    int64_t units)
{
    bool all = mode && strcmp(mode, "all") == 0, off = mode && strcmp(mode, "0") == 0;
    if (mode && !all && !off && strcmp(mode, "1") != 0)
        return conv_tile_of(mode); /* a benchmark's configuration, for every product */
    if (!off && n <= 64 && !(narrow && strcmp(narrow, "0") == 0)) {
        if (narrow && strcmp(narrow, "1") != 0)
            return conv_tile_of(narrow);
        if (!all && groups * ((m + 63) / 64) < 2 * units)
            return 0;
        return groups * ((m + 127) / 128) < 2 * units
                   ? conv_tile_named(&tile_n64few, "wg64x64-s4-cs")
                   : conv_tile_named(&tile_n64, "wg128x64-s3-cs");
    }
    int64_t cols = (n + 127) / 128;
    if (off || (!all && (n <= 64 || groups * ((m + 63) / 64) * cols < 2 * units)))
        return 0;
    int64_t blocks = groups * ((m + 127) / 128) * cols;
    return blocks < 2 * units ? conv_tile_named(&tile_wg64, "wg64x128-s4-cs")
                              : conv_tile_named(&tile_wg128, "wg128x128-s3-cs");
}

/*
 * (conv16) The weight gradient on wgmma (GEMM_CONV 3 in gemm_wgmma): the
 * configuration a weight gradient of n small-image channels per group
 * asks for on Hopper, 0 for mma.sync, under mode (CLOPS_CONV_WGMMA_WGRAD,
 * read per call: NULL or "1" the rule, "all" the blocks below for every
 * weight gradient the engine takes (float32 and the samples-as-groups
 * path, weight_samples, too), "0" none, a configuration's name that one
 * for all); samples: whether the caller is weight_samples, half: whether
 * the images are float16 / bfloat16.  The blocks: 128 x 128
 * ("wg128x128-s3-cs") for n > 64, 128 x 64 ("wg128x64-s3-cs") else; the
 * engine's deterministic split along K (sample, position) fills the
 * device as it does for mma.sync's blocks.  The half types take cp.async
 * M/N-major tiles from channels-last images (or K-major plain loads from
 * NCHW ones); float32 runs as TF32 with both tiles K-major, plain loads
 * through the strides of NCHW images read in place (their positions the
 * unit stride of K).
 *
 * The rule (H200, batch 64, us per call, docs/conv.md "The weight
 * gradient on wgmma"): the half types' weight gradients on the implicit
 * path take wgmma (bfloat16 channels-last, ResNet-18's 3x3 layers 1-4:
 * 363 -> 308, 232 -> 163, 142 -> 119, 243 -> 194); float32 keeps mma.sync
 * (its K-major plain loads lost: layer 2's 532 -> 1,178, layer 4's 510 ->
 * 1,374), and so does the samples path (the stem 1,280 -> 2,298 in
 * float32, 1,029 -> 2,057 in bfloat16).
 */
int conv_wgrad_rule(const char *mode, int64_t n, bool samples, bool half)
{
    if (mode && strcmp(mode, "0") == 0)
        return 0;
    bool all = mode && strcmp(mode, "all") == 0;
    if (mode && !all && strcmp(mode, "1") != 0)
        return conv_tile_of(mode);
    if (!all && (samples || !half))
        return 0;
    return n > 64 ? conv_tile_named(&tile_wg128, "wg128x128-s3-cs")
                  : conv_tile_named(&tile_n64, "wg128x64-s3-cs");
}

static int conv_wgrad_tile(const clops_tensor *dw, int64_t n, bool samples)
{
    clops_device *d = dw->storage->device;
    bool half = dw->dtype == CLOPS_FLOAT16 || dw->dtype == CLOPS_BFLOAT16;
    if ((!half && dw->dtype != CLOPS_FLOAT32) || !gemm_engine_wgmma_candidate(d, CLOPS_BFLOAT16))
        return 0;
    return conv_wgrad_rule(host_env("CLOPS_CONV_WGMMA_WGRAD"), n, samples, half);
}

static int conv_tile(const clops_tensor *y, int64_t n)
{
    if (n > 64 || kit_is_cpu(y->storage->device))
        return 0;
    const char *env = host_env("CLOPS_CONV_TILE");
    if (env && strcmp(env, "0") != 0 && strcmp(env, "1") != 0)
        return conv_tile_of(env); /* a benchmark's choice: looked up per call */
    if (env && strcmp(env, "0") == 0)
        return 0;
    return conv_tile_named(&tile_narrow, "64x64-w32x32-s4"); /* the default */
}

/* A channels-last copy of image x [N, C, sp...] with cgp >= C channels
 * (*out): x's in the first C, zeros in the others. */
static clops_status nhwc_copy(tmps *c, const clops_tensor *x, int64_t cgp,
                              const clops_tensor **out)
{
    int nd = x->ndim;
    int64_t sz[2 + CONV_SP], st[2 + CONV_SP], L = cgp, n = 0;
    for (int i = nd - 1; i >= 2; i--) {
        st[i] = L;
        sz[i] = x->sizes[i];
        L *= x->sizes[i];
    }
    st[1] = 1;
    sz[1] = cgp;
    st[0] = L;
    sz[0] = x->sizes[0];
    clops_tensor *buf = NULL, *v = NULL, *part = NULL;
    clops_status s = geom_mul(L, sz[0], &n) ? CLOPS_OK
                                             : clops__fail(CLOPS_INVALID_SHAPE,
                                                           "convolution: image copy too large");
    if (!s)
        s = buffer(c, x, n, &buf);
    if (!s && cgp > x->sizes[1])
        s = tensor_fill(buf, clops_scalar_int(0));
    if (!s)
        s = view(c, buf, nd, sz, st, 0, &v);
    if (!s)
        s = view(c, buf, nd, x->sizes, st, 0, &part);
    if (!s)
        s = core_copy_(part, (clops_tensor *)x, false);
    if (!s)
        *out = v;
    return s;
}

/*
 * An NCHW image x (2 + nsp dims, cg channels per group) read by the
 * engine's A or B operand is copied once into channels-last order (one
 * pass over x) where that pays, and the product reads the copy (*out; x
 * itself where it is already channels-last, or not worth it).
 *
 * CPU devices (KIT_CPU): the CPU atom gathers each K-slice of (tap,
 * channel) columns row by row: from a channels-last image a contiguous
 * run of channels, from an NCHW one a load per channel a whole plane
 * apart; 4 or more channels per group pay for the copy (the forward's and
 * input gradient's source only: the weight gradient's images gained
 * nothing there, docs/conv.md).
 *
 * GPUs: the mma atom stages a tap's channels as 16-byte chunks with
 * cp.async only from a channels-last image whose channels per group are a
 * multiple of 16 bytes (gemm_engine.c conv_image), an NCHW one with one
 * plain load per element a plane apart; the weight gradient's small image
 * likewise (N-major cp.async rows).  So cg must be a multiple of
 * 16 / element size (the RGB stem: padded_channels); which images
 * is gpu_nhwc_copies' switch (wgrad: an image of a weight gradient).
 */
static clops_status channels_last_copy(tmps *c, const clops_tensor *x, int64_t cg, bool wgrad,
                                       const clops_tensor **out)
{
    *out = x;
    int nd = x->ndim;
    if (cg < 4 || x->strides[1] == 1 || nd < 3 || tensor_numel(x) < CONV_NHWC_COPY_MIN)
        return CLOPS_OK;
    if (kit_is_cpu(x->storage->device)) {
        if (wgrad)
            return CLOPS_OK;
    } else {
        nhwc_copies w = gpu_nhwc_copies();
        if (w == NHWC_NONE || (wgrad && w != NHWC_ALL) ||
            cg % (16 / (int64_t)clops_dtype_size(x->dtype)) != 0)
            return CLOPS_OK;
    }
    return nhwc_copy(c, x, x->sizes[1], out);
}

/*
 * The channels per group cg of a forward ("to small", one group) product's
 * source image rounded up to a 16-byte chunk of its dtype on GPUs, where
 * that at most triples K (0: no padding).  The mma atom stages A with
 * cp.async only from a channels-last image whose channels per group are
 * whole 16-byte chunks; ResNet's RGB stem (3 channels, K = 147) read one
 * element at a time through NCHW strides ran at 0.15-0.27 of cuDNN
 * (docs/conv.md).  Its image padded to 4 (float32) or 8 (half types)
 * zero channels and the weight to as many zero columns gives the same sums
 * (each extra product is 0 * 0) on the cp.async path.  Not for images
 * under CONV_NHWC_COPY_MIN (the fill and copies are four launches more)
 * nor with a folded affine (the fused stem of a compiled graph keeps its
 * strided loads).
 */
static int64_t padded_channels(const clops_tensor *x, const conv_geom *g, bool small, int64_t cg,
                               const conv_epi *e)
{
    if (!small || g->groups != 1 || kit_is_cpu(x->storage->device) ||
        gpu_nhwc_copies() == NHWC_NONE || x->ndim < 3 ||
        tensor_numel(x) < CONV_NHWC_COPY_MIN || conv_epi_affine(e))
        return 0;
    int64_t ce = 16 / (int64_t)clops_dtype_size(x->dtype);
    int64_t cgp = (cg + ce - 1) / ce * ce;
    return cg % ce != 0 && cgp <= 3 * cg ? cgp : 0;
}

/*
 * The weight W [Cs, Cb/groups, k...] of a forward product seen as
 * [G, n, taps, cg] (element (group, destination channel, tap, source
 * channel); "to small": destination = small channels, "to big": big
 * ones) through W's own strides, its kernel dims merged into one tap
 * stride; false when they do not merge.
 */
static bool weight_view(const conv_geom *g, bool small, const clops_tensor *W, int64_t *sz,
                        int64_t *st)
{
    int64_t G = g->groups, csg = g->Cs / G, cbg = g->Cb / G, pix = 0;
    if (!gemm_merged_stride(W, &pix))
        return false;
    sz[0] = G;
    sz[1] = small ? csg : cbg;
    sz[2] = g->K;
    sz[3] = small ? cbg : csg;
    st[0] = csg * W->strides[0];
    st[1] = W->strides[small ? 0 : 1];
    st[2] = pix;
    st[3] = W->strides[small ? 1 : 0];
    return true;
}

/* The engine's geometry of g: out the small image's sizes (a forward,
 * a weight gradient) or the big one's (a transposed forward, an input
 * gradient), in the other's. */
static void engine_geometry(gemm_conv *cv, const conv_geom *g, bool out_small)
{
    for (int i = 0; i < 3; i++) {
        cv->k[i] = g->k[i];
        cv->out[i] = out_small ? g->small[i] : g->big[i];
        cv->in[i] = out_small ? g->big[i] : g->small[i];
        cv->s[i] = g->s[i];
        cv->p[i] = g->p[i];
        cv->d[i] = g->d[i];
    }
}

/*
 * The weight gradient with the samples as the engine's groups
 * (CLOPS_CONV_WSAMPLES, read per call, for benchmarks that compare: "0"
 * never; unset or "1" the rule below, on GPUs; "all" every weight
 * gradient whose scratch fits, on every device (CPU devices included: the
 * tests force it on POCL with it)).
 *
 * One product of M = (tap, big channel), N = small channels and K =
 * (sample, position) has few output blocks where the weight is small, and
 * the engine splits K into at most 16 parts: ResNet's stem at batch 64
 * (M 147, N 64, K 802,816) ran as 3 blocks of 64 x 64 times 16 parts, 48
 * work-groups on an H200's 132 units, each staging 50,176 columns of its
 * 3-channel NCHW image by plain loads (no 16-byte chunks of channels):
 * 10.6 ms, ~1.4 TFLOP/s (docs/conv.md).  Here both images are seen as
 * images of one sample and N * groups groups, group (n, g) being sample
 * n's channels of group g, so that one launch computes a partial weight
 * gradient per (sample, group) on N times as many blocks (the stem: 192
 * blocks of 12,544 columns each), into float32 partials [N, Cs, Cb/groups
 * (padded), k...] which the reduction family sums over the samples in a
 * fixed order (the same bits every run; the result rounded once).
 *
 * The images (samples_image): by default (CLOPS_CONV_WS_COPY unset or
 * "1") each is copied once, in float32, into *sample-interleaved
 * channels-last* order [positions..., N, groups, channels per group]: the
 * merged image is channels-last, each group's channels contiguous, the
 * big image's padded with zeros to whole 16-byte chunks (the stem's 3
 * channels to 4: the extra rows of the partials are dropped by the sum),
 * so the engine's mma atom stages both operands with cp.async.
 * CLOPS_CONV_WS_COPY=0 reads the images where they are instead, where
 * their samples and channels merge into one dim (NCHW: sample stride =
 * channels x channel stride; float16/bfloat16 widened into contiguous
 * float32 copies first), with the plain loads of NCHW images.  Both need
 * the engine to take float32 (TF32 under the conv precision "high",
 * PyTorch's allow_tf32 default; every CPU device): float16/bfloat16 values
 * are exact in TF32, so their products are too.
 *
 * The rule (GPUs): the product has fewer 64 x 64 blocks than the device
 * has compute units, the small image has 1024+ positions per sample, the
 * partials and copies fit (WS_PARTIALS_MAX, WS_SCRATCH_MAX), and either
 * the big image's channels per group are not whole 16-byte chunks of its
 * dtype (the existing path reads it by plain loads: channels_last_copy)
 * or the images are float32.  H200, batch 64 (docs/conv.md): the stem
 * 10.57 -> 1.59 ms (TF32) and 10.84 -> 1.56 ms (bfloat16); the first
 * stage's 3x3 weight gradient in float32 1.16 -> 0.78 ms, but in bfloat16
 * its backward 0.80 -> 0.98 ms (the existing path stages bfloat16 chunks
 * natively; here they are widened), so half types with whole chunks keep
 * it.
 */
#define WS_PARTIALS_MAX ((int64_t)1 << 26)
#define WS_SCRATCH_MAX ((int64_t)1 << 28)

typedef enum { WS_OFF, WS_RULE, WS_ALL } ws_mode;

static atomic_uint_fast64_t ws_calls;

uint64_t conv_weight_samples_calls(void)
{
    return (uint64_t)atomic_load(&ws_calls);
}

/* CLOPS_CONV_WSAMPLES and CLOPS_CONV_WS_COPY, as CLOPS_CONV_WGMMA /
 * CLOPS_CONV_WGMMA_HALF and CLOPS_CONV_TILE above, are read per call, not
 * cached as ops/gemm/gemm_engine.c's env_switch: bench/conv_models_job.sh
 * (bench/conv_models.py, AB=NAME=V1,V2) alternates such a switch step by
 * step in one process (its runs alternated CLOPS_CONV_WGMMA,
 * CLOPS_CONV_WGMMA_HALF and CLOPS_CONV_WSAMPLES).  Each is one getenv per
 * product, beside its launches. */
static ws_mode wsamples_mode(void)
{
    const char *env = host_env("CLOPS_CONV_WSAMPLES");
    if (env && strcmp(env, "0") == 0)
        return WS_OFF;
    return env && strcmp(env, "all") == 0 ? WS_ALL : WS_RULE;
}

static bool ws_copy(void)
{
    const char *env = host_env("CLOPS_CONV_WS_COPY");
    return !(env && strcmp(env, "0") == 0);
}

/* Whether image t [N, C, sp...] is [1, N * C, sp...] through one channel
 * stride (its sample stride is C channel strides). */
static bool samples_merge(const clops_tensor *t)
{
    return t->sizes[0] <= 1 || t->strides[0] == t->sizes[1] * t->strides[1];
}

/* The big image's channels per group in the copies: cg rounded up to 4
 * (16 bytes of float32). */
static int64_t ws_padded(int64_t cg)
{
    return (cg + 3) / 4 * 4;
}

/* Whether the weight gradient of g (small image S, big image B) runs with
 * the samples as groups (weight_samples); *copy: CLOPS_CONV_WS_COPY's
 * choice, read once here for weight_samples. */
static bool weight_by_samples(const conv_geom *g, const clops_tensor *S, const clops_tensor *B,
                              bool *copy_out)
{
    ws_mode m = wsamples_mode();
    clops_device *d = B->storage->device;
    bool copy = *copy_out = ws_copy();
    int64_t G = g->groups, cbg = g->Cb / G, csg = g->Cs / G, rows = 0, parts = 0;
    int64_t cgp = copy ? ws_padded(cbg) : cbg, big = 0;
    if (m == WS_OFF || (m == WS_RULE && kit_is_cpu(d)) || g->N < 2 ||
        !geom_mul(g->K, cgp, &rows) || !geom_mul(rows, g->Cs, &parts) ||
        !geom_mul(parts, g->N, &parts) || parts > WS_PARTIALS_MAX ||
        !geom_mul(tensor_numel(B) / g->Cb, G * cgp, &big))
        return false;
    int64_t scratch = big + tensor_numel(S);
    /* the copies (and, without them, a half type's float32 copies) fit;
     * float32 images without copies are read in place */
    if (copy || B->dtype != CLOPS_FLOAT32 ? scratch > WS_SCRATCH_MAX
                                          : !(samples_merge(B) && samples_merge(S)))
        return false;
    if (B->dtype != CLOPS_FLOAT32 && !gemm_engine_convolves(d, CLOPS_FLOAT32))
        return false;
    if (m == WS_ALL)
        return true;
    int64_t cu = d->info.compute_units ? (int64_t)d->info.compute_units : 1;
    int64_t ce = 16 / (int64_t)clops_dtype_size(B->dtype);
    int64_t blocks = G * ((rows + 63) / 64) * ((csg + 63) / 64);
    return blocks < cu && g->Ls >= 1024 && (cbg % ce != 0 || B->dtype == CLOPS_FLOAT32);
}

/*
 * Image t [N, C = G * cg, sp...] (nd dims) as the engine's image of one
 * sample and N * G groups of cgp channels, [1, N * G * cgp, sp...]
 * (*out): copied into float32 [sp..., N, G, cgp] (zeros in channels cg..
 * cgp) when copy, else t itself (a float32 copy of a half type) through
 * merged strides (samples_merge; cgp == cg).
 */
static clops_status samples_image(tmps *c, const clops_tensor *t, int64_t G, int64_t cg,
                                  int64_t cgp, bool copy, clops_tensor **out)
{
    int nd = t->ndim;
    int64_t N = t->sizes[0], sz[2 + CONV_SP], st[2 + CONV_SP];
    clops_status s = CLOPS_OK;
    if (!copy) {
        if (t->dtype != CLOPS_FLOAT32) {
            clops_tensor *w = NULL;
            if ((s = core_contiguous_as((clops_tensor *)t, CLOPS_FLOAT32, &w)))
                return s;
            c->t[c->n++] = w;
            t = w;
        }
        memcpy(sz, t->sizes, sizeof(int64_t) * (size_t)nd);
        memcpy(st, t->strides, sizeof(int64_t) * (size_t)nd);
        sz[1] *= N;
        sz[0] = 1;
        st[0] = sz[1] * st[1];
        return view(c, t, nd, sz, st, t->offset, out);
    }
    /* positions innermost-last: stride N * G * cgp for the last spatial dim */
    int64_t lane = N * G * cgp, L = lane;
    int64_t dsz[3 + CONV_SP], dst[3 + CONV_SP], ssz[3 + CONV_SP], sst[3 + CONV_SP];
    for (int i = nd - 1; i >= 2; i--) {
        sz[i] = dsz[i + 1] = ssz[i + 1] = t->sizes[i];
        st[i] = dst[i + 1] = L;
        sst[i + 1] = t->strides[i];
        L *= t->sizes[i];
    }
    /* the copy: [N, G, cg, sp...] of t into the buffer */
    dsz[0] = ssz[0] = N, dsz[1] = ssz[1] = G, dsz[2] = ssz[2] = cg;
    dst[0] = G * cgp, dst[1] = cgp, dst[2] = 1;
    sst[0] = t->strides[0], sst[1] = cg * t->strides[1], sst[2] = t->strides[1];
    clops_tensor *buf = NULL, *dv = NULL, *sv = NULL;
    if (!(s = tensor_new(t->storage->device, CLOPS_FLOAT32, 1, &L, NULL, &buf)))
        c->t[c->n++] = buf;
    if (!s && cgp > cg)
        s = tensor_fill(buf, clops_scalar_int(0));
    if (!s)
        s = view(c, buf, nd + 1, dsz, dst, buf->offset, &dv);
    if (!s)
        s = view(c, t, nd + 1, ssz, sst, t->offset, &sv);
    if (!s)
        s = core_copy_(dv, sv, false);
    if (s)
        return s;
    sz[0] = 1, sz[1] = lane;
    st[0] = L, st[1] = 1;
    return view(c, buf, nd, sz, st, buf->offset, out);
}

/* The weight gradient W of g (weight_by_samples, which gave copy): the
 * partials of every (sample, group) by one engine launch, then their sum
 * over the samples.  *done false: the engine did not take it (W not
 * written). */
static clops_status weight_samples(tmps *c, const char *op, const conv_geom *g,
                                   const clops_tensor *S, const clops_tensor *B, bool copy,
                                   clops_tensor *W, bool *done)
{
    *done = false;
    clops_device *d = W->storage->device;
    int nd = B->ndim;
    int64_t N = g->N, G = g->groups, cbg = g->Cb / G, csg = g->Cs / G, taps = g->K;
    int64_t cgp = copy ? ws_padded(cbg) : cbg;
    clops_tensor *bx = NULL, *sy = NULL;
    clops_status s = samples_image(c, B, G, cbg, cgp, copy, &bx);
    if (!s)
        s = samples_image(c, S, G, csg, csg, copy, &sy);
    /* the partials [N * Cs, cgp, k...] (float32), and their channels below
     * cbg as [N, Cs, cbg * taps] */
    int64_t psz[2 + CONV_SP], pst[2 + CONV_SP];
    memcpy(psz, W->sizes, sizeof(int64_t) * (size_t)nd);
    psz[0] *= N;
    psz[1] = cgp;
    contiguous_strides(nd, psz, pst);
    clops_tensor *part = NULL, *pr = NULL;
    int64_t rsz[3] = {N, g->Cs, cbg * taps}, rst[3] = {g->Cs * cgp * taps, cgp * taps, 1};
    if (!s && !(s = tensor_new(d, CLOPS_FLOAT32, nd, psz, pst, &part)))
        c->t[c->n++] = part;
    if (!s)
        s = view(c, part, 3, rsz, rst, part->offset, &pr);
    if (s)
        return s;
    int wt = conv_wgrad_tile(W, csg, true);
    gemm_conv cv = {.x = bx, .y = sy, .groups = N * G, .samples = 1, .cg = cgp, .n = csg,
                    .tile = wt                ? wt
                            : kit_is_cpu(d) ? 0
                                            : conv_tile_named(&tile_narrow, "64x64-w32x32-s4")};
    engine_geometry(&cv, g, true);
    s = gemm_engine_conv_weight(op, &cv, part, done);
    if (s || !*done)
        return s;
    atomic_fetch_add(&ws_calls, 1);
    /* the sum over the samples: straight into W when it is a contiguous
     * float32 tensor, else into a float32 buffer copied into W */
    clops_tensor *acc = NULL, *av = NULL;
    int64_t ysz[2] = {g->Cs, cbg * taps}, yst[2] = {cbg * taps, 1};
    bool direct = W->dtype == CLOPS_FLOAT32 && clops_tensor_is_contiguous(W);
    if (direct) {
        s = view(c, W, 2, ysz, yst, W->offset, &acc);
    } else if (!(s = tensor_new(d, CLOPS_FLOAT32, 2, ysz, NULL, &acc))) {
        c->t[c->n++] = acc;
    }
    if (s)
        return s;
    reduce_call rc = {.opname = op, .kind = RK_SUM, .x = pr, .y = acc};
    rc.mask[0] = true;
    s = reduce_run(&rc);
    if (!s && !direct) {
        int64_t wst[2 + CONV_SP];
        contiguous_strides(nd, W->sizes, wst);
        s = view(c, acc, nd, W->sizes, wst, acc->offset, &av);
        if (!s)
            s = core_copy_(W, av, false);
    }
    return s;
}

/*
 * The implicit-GEMM path: "to small" and "to big" as one launch of the
 * matrix engine (gemm_engine_conv) that reads the source image as its
 * im2col view on the fly (no column buffer), with the bias fused into the
 * store; "to weight" as one product (gemm_engine_conv_weight: the
 * transposed view of B times S, split along its long K = N * Ls, written
 * straight into W).  Per group the engine's K runs over (tap, source channel) with the
 * channel fastest, so the weight is seen as [G, n, taps, cg] (n destination
 * channels, cg source channels per group) and copied into that order
 * unless it already is (cg == 1, or a 1x1 kernel "to small").  *done false:
 * the engine does not take the call (dtype, device, precision, sizes).
 */
static clops_status implicit_product(tmps *c, const char *op, const conv_geom *g, conv_dir dir,
                                     clops_tensor *S, clops_tensor *B, const clops_tensor *Wc,
                                     const conv_epi *e, bool *done)
{
    *done = false;
    bool small = dir == CONV_TO_SMALL;
    clops_tensor *y = small ? S : B;
    int64_t pix = 0;
    if (!gemm_engine_convolves(y->storage->device, y->dtype) ||
        (e && e->residual && !gemm_merged_stride(e->residual, &pix)))
        return CLOPS_OK; /* (a residual the engine cannot read: before any fold) */
    int64_t G = g->groups, csg = g->Cs / G, cbg = g->Cb / G, taps = g->K;
    if (dir == CONV_TO_WEIGHT) {
        /* W [Cs, cbg, taps] = sum over (sample, small position) of S
         * times B's window: M = (tap, big channel), N = small channels,
         * K = (sample, position), written straight into W. */
        bool copy = true;
        if (weight_by_samples(g, S, B, &copy)) {
            clops_status s = weight_samples(c, op, g, S, B, copy, (clops_tensor *)Wc, done);
            if (s || *done)
                return s;
        }
        /* (conv16) on wgmma, float32 (TF32, K-major tiles) reads NCHW
         * images where they are: no channels-last copies */
        int wt = conv_wgrad_tile(Wc, csg, false);
        bool in_place = wt && Wc->dtype == CLOPS_FLOAT32;
        const clops_tensor *bx = B, *sy = S;
        clops_status s = in_place ? CLOPS_OK : channels_last_copy(c, B, cbg, true, &bx);
        if (!s && !in_place)
            s = channels_last_copy(c, S, csg, true, &sy);
        if (s)
            return s;
        gemm_conv cv = {.x = bx, .y = sy, .groups = G, .samples = g->N, .cg = cbg, .n = csg,
                        .tile = wt};
        engine_geometry(&cv, g, true);
        return gemm_engine_conv_weight(op, &cv, (clops_tensor *)Wc, done);
    }
    int64_t sz[4], st[4];
    if (!weight_view(g, small, Wc, sz, st))
        return CLOPS_OK;
    int64_t n = sz[1], cg = sz[3];
    const clops_tensor *src = small ? B : S;
    /* cgp: the engine's channels per tap (cg, or cg padded with zeros) */
    int64_t cgp = padded_channels(src, g, small, cg, e);
    bool padded = cgp != 0;
    if (!padded)
        cgp = cg;
    /* the engine's weight [G, n, taps, cgp] when it is copied (cst) */
    int64_t psz[4] = {G, n, taps, cgp}, cst[4], wn = 0;
    if (!geom_mul(G * n * taps, cgp, &wn))
        return CLOPS_OK;
    contiguous_strides(4, psz, cst);
    clops_status s = padded ? nhwc_copy(c, src, cgp, &src)
                            : channels_last_copy(c, src, cg, false, &src);
    if (s)
        return s;
    gemm_conv cv = {.x = src, .y = y, .transposed = !small, .groups = G,
                    .samples = g->N, .cg = cgp, .n = n, .tile = conv_tile(y, n)};
    engine_geometry(&cv, g, small);
    bool reorder = padded || !(cg == 1 || (small && taps == 1));
    const clops_tensor *bias = e ? e->bias : NULL;
    if (conv_epi_affine(e)) {
        /* The affine folded into the weight (in the engine's order, from
         * wherever W lies; never padded: padded_channels) and the bias by
         * one launch. */
        clops_tensor *wr = NULL, *bf = NULL;
        int64_t cout = G * n;
        s = buffer(c, Wc, wn, &wr);
        if (!s)
            s = buffer(c, Wc, cout, &bf);
        if (!s)
            s = conv_cl_fold(op, Wc, st, wr, cst, sz, e, bf);
        if (s)
            return s;
        cv.w = wr;
        bias = bf;
        cv.w_sg = cst[0], cv.w_sn = cst[1], cv.w_sk = 1;
    } else if (!reorder) {
        cv.w = Wc;
        cv.w_sg = st[0], cv.w_sn = st[1], cv.w_sk = cg == 1 ? st[2] : st[3];
    } else {
        clops_tensor *wv = NULL, *wr = NULL, *wrv = NULL;
        s = view(c, Wc, 4, sz, st, Wc->offset, &wv);
        if (!s)
            s = buffer(c, Wc, wn, &wr);
        if (!s && padded)
            s = tensor_fill(wr, clops_scalar_int(0));
        if (!s)
            s = view(c, wr, 4, sz, cst, wr->offset, &wrv);
        if (!s)
            s = core_copy_(wrv, wv, false);
        if (s)
            return s;
        cv.w = wr;
        cv.w_sg = cst[0], cv.w_sn = cst[1], cv.w_sk = 1;
    }
    int wt = conv_wgmma_tile(y, src, cgp, n, g->N * (small ? g->Ls : g->Lb), G, cv.w_sk);
    if (wt)
        cv.tile = wt;
    gemm_epilogue epi = {.bias = bias,
                         .bias_scale = 1.0,
                         .residual = e ? e->residual : NULL,
                         .residual_after = e && e->residual_after,
                         .act = e ? (gemm_act)e->act : GEMM_ACT_NONE};
    bool any = bias || epi.residual || epi.act != GEMM_ACT_NONE;
    return gemm_engine_conv(op, &cv, any ? &epi : NULL, done);
}

/* wide[i] = a float32 copy of in[i] for each of the n tensors (NULL stays
 * NULL), but wide[di] a new float32 tensor of in[di]'s shape (the
 * destination, written later). */
static clops_status widen(const clops_tensor *const *in, int n, int di, clops_tensor **wide)
{
    clops_status s = CLOPS_OK;
    for (int i = 0; i < n && !s; i++) {
        if (!in[i])
            continue;
        if (i == di)
            s = tensor_new(in[i]->storage->device, CLOPS_FLOAT32, in[i]->ndim, in[i]->sizes,
                           NULL, &wide[i]);
        else
            s = core_to_copy((clops_tensor *)in[i], CLOPS_FLOAT32, NULL, &wide[i]);
    }
    return s;
}

/*
 * A float16/bfloat16 product computed in float32 (the columns and the
 * per-group partial results too, so each result is rounded once): the
 * operands widened, the product run, the destination narrowed.
 */
static clops_status product_widened(const char *op, const conv_geom *g, conv_dir dir,
                                    clops_tensor *S, clops_tensor *B, clops_tensor *W,
                                    clops_tensor *bias)
{
    const clops_tensor *in[4] = {S, B, W, bias};
    clops_tensor *wide[4] = {NULL, NULL, NULL, NULL};
    int di = dir == CONV_TO_SMALL ? 0 : dir == CONV_TO_BIG ? 1 : 2;
    clops_status s = widen(in, 4, di, wide);
    if (!s)
        s = conv_product(op, g, dir, wide[0], wide[1], wide[2], wide[3]);
    if (!s)
        s = core_copy_(di == 0 ? S : di == 1 ? B : W, wide[di], false);
    for (int i = 0; i < 4; i++)
        clops_tensor_release(wide[i]);
    return s;
}

/* Whether a product goes to the implicit-GEMM path first: an OpenCL
 * device, something to sum, not depthwise (its direct kernels stay). */
static bool implicit_candidate(const conv_geom *g, conv_dir dir, const clops_tensor *dst)
{
    /* CLOPS_CONV_IMPLICIT=0 keeps every product on im2col + GEMM (for
     * benchmarks that compare the two); read once per process, not per
     * convolution. */
    static atomic_int off = -1;
    int o = atomic_load_explicit(&off, memory_order_relaxed);
    if (o < 0) {
        const char *env = host_env("CLOPS_CONV_IMPLICIT");
        o = env && strcmp(env, "0") == 0;
        atomic_store_explicit(&off, o, memory_order_relaxed);
    }
    if (o)
        return false;
    return !kit_is_host(dst->storage->device) && g->Cb != g->groups &&
           tensor_numel(dst) > 0 && g->N > 0 && g->K > 0 && g->Cb > 0 && g->Cs > 0 && g->Ls > 0;
}

clops_status conv_backward_source(const conv_geom *g, const clops_tensor *go, clops_tensor **out)
{
    *out = NULL;
    clops_device *d = go->storage->device;
    /* both products' implicit_candidate (its checks but the
     * destination's size: the input's and the weight's are not 0 when
     * go's is not) */
    if (kit_is_cpu(d) || !implicit_candidate(g, CONV_TO_BIG, go) ||
        !gemm_engine_convolves(d, go->dtype))
        return CLOPS_OK;
    /* (CLOPS_CONV_WSAMPLES=all with CLOPS_CONV_WS_COPY=0: the weight
     * gradient reads go's NCHW samples as groups where it is; the input
     * gradient makes its own copy) */
    bool copy = true;
    if (wsamples_mode() == WS_ALL && !ws_copy() && weight_by_samples(g, go, go, &copy))
        return CLOPS_OK;
    tmps c = {.n = 0};
    const clops_tensor *v = go;
    clops_status s = channels_last_copy(&c, go, go->sizes[1] / g->groups, true, &v);
    if (!s && v != go)
        *out = clops_tensor_retain((clops_tensor *)v);
    for (int i = 0; i < c.n; i++)
        clops_tensor_release(c.t[i]);
    return s;
}

clops_status conv_product(const char *op, const conv_geom *g, conv_dir dir, clops_tensor *S,
                          clops_tensor *B, clops_tensor *W, clops_tensor *bias)
{
    tmps c = {.n = 0};
    clops_status s = CLOPS_OK;
    clops_tensor *dst0 = dir == CONV_TO_SMALL ? S : dir == CONV_TO_BIG ? B : W;
    if (implicit_candidate(g, dir, dst0)) {
        clops_tensor *Wi = NULL;
        bool done = false;
        /* The weight gradient is written where it is. */
        if (dir == CONV_TO_WEIGHT)
            Wi = clops_tensor_retain(W);
        else
            s = core_contiguous(W, &Wi);
        conv_epi eb = {.bias = bias};
        if (!s)
            s = implicit_product(&c, op, g, dir, S, B, Wi, &eb, &done);
        for (int i = 0; i < c.n; i++)
            clops_tensor_release(c.t[i]);
        c.n = 0;
        clops_tensor_release(Wi);
        if (s || done)
            return s;
    }
    if (B->dtype == CLOPS_FLOAT16 || B->dtype == CLOPS_BFLOAT16)
        return product_widened(op, g, dir, S, B, W, bias);
    clops_tensor *Wc = NULL, *Wt = NULL;
    clops_tensor *dst = dir == CONV_TO_SMALL ? S : dir == CONV_TO_BIG ? B : W;
    if (dir == CONV_TO_WEIGHT) {
        /* The GEMM writes the weight as [groups, Cs/g, Cb/g * K]. */
        if (!clops_tensor_is_contiguous(W))
            s = tensor_new(W->storage->device, W->dtype, W->ndim, W->sizes, NULL, &Wt);
        Wc = Wt ? Wt : W;
    } else {
        s = core_contiguous(W, &Wt);
        Wc = Wt;
    }
    bool done = false;
    if (s || tensor_numel(dst) == 0)
        goto out;
    if (g->N == 0 || g->K == 0 || g->Cb == 0 || g->Cs == 0 || g->Ls == 0) {
        /* Nothing to sum: zeros (plus the bias). */
        s = tensor_fill(dir == CONV_TO_WEIGHT ? Wc : dst, clops_scalar_int(0));
        done = true;
    } else if (kit_is_host(dst->storage->device)) {
        s = conv_ref_product(g, dir, S, B, Wc);
        done = true;
    } else if (dir == CONV_TO_SMALL && g->Cb == g->groups) {
        conv_epi eb = {.bias = bias};
        s = conv_cl_depthwise(op, g, B, Wc, &eb, S);
        bias = NULL;
        done = true;
    } else if (dir == CONV_TO_BIG && g->Cb == g->groups) {
        s = conv_cl_depthwise_big(op, g, S, Wc, B);
        done = true;
    } else if (dir == CONV_TO_WEIGHT && g->Cb == g->groups) {
        s = depthwise_weight(&c, op, g, S, B, Wc);
        done = true;
    } else if (dir != CONV_TO_WEIGHT && identity(g)) {
        s = dir == CONV_TO_SMALL ? gemm_1x1(&c, op, g, Wc, B, S, false, &done)
                                 : gemm_1x1(&c, op, g, Wc, S, B, true, &done);
    }
    if (!s && !done)
        s = product_chunks(&c, op, g, dir, S, B, Wc);
    if (!s && dir != CONV_TO_WEIGHT)
        s = add_bias(&c, dst, bias, g->nsp);
    if (!s && dir == CONV_TO_WEIGHT && Wt)
        s = core_copy_(W, Wt, false);
out:
    for (int i = 0; i < c.n; i++)
        clops_tensor_release(c.t[i]);
    clops_tensor_release(Wt);
    return s;
}

/* The product and epilogue e in float32 for a float16/bfloat16
 * destination: the operands, vectors and residual widened, the
 * destination narrowed once (what the engine's epilogue does in its
 * accumulator). */
static clops_status product_epi_widened(const char *op, const conv_geom *g, conv_dir dir,
                                        clops_tensor *S, clops_tensor *B, clops_tensor *W,
                                        const conv_epi *e)
{
    const clops_tensor *in[9] = {S, B, W, e->bias, e->scale, e->shift, e->mean, e->var,
                                 e->residual};
    clops_tensor *wide[9] = {NULL};
    int di = dir == CONV_TO_SMALL ? 0 : 1;
    clops_status s = widen(in, 9, di, wide);
    conv_epi ew = *e;
    ew.bias = wide[3], ew.scale = wide[4], ew.shift = wide[5], ew.mean = wide[6];
    ew.var = wide[7], ew.residual = wide[8];
    if (!s)
        s = conv_product_epi(op, g, dir, wide[0], wide[1], wide[2], &ew);
    if (!s)
        s = core_copy_(di == 0 ? S : B, wide[di], false);
    for (int i = 0; i < 9; i++)
        clops_tensor_release(wide[i]);
    return s;
}

clops_status conv_product_epi(const char *op, const conv_geom *g, conv_dir dir, clops_tensor *S,
                              clops_tensor *B, clops_tensor *W, const conv_epi *e)
{
    if (dir == CONV_TO_WEIGHT)
        return clops__fail(CLOPS_INTERNAL, "%s: a weight gradient takes no epilogue", op);
    clops_tensor *y = dir == CONV_TO_SMALL ? S : B;
    clops_device *dev = y->storage->device;
    if (tensor_numel(y) == 0)
        return CLOPS_OK;
    if (kit_is_host(dev)) {
        conv_ref_epi re = {.bias = e->bias,
                           .scale = e->scale,
                           .shift = e->shift,
                           .mean = e->mean,
                           .var = e->var,
                           .eps = e->eps,
                           .residual = e->residual,
                           .residual_after = e->residual_after,
                           .act = e->act};
        return conv_ref_product_epi(g, dir, S, B, W, &re);
    }
    bool affine = conv_epi_affine(e);
    tmps c = {.n = 0};
    clops_tensor *Wc = NULL;
    int64_t pix = 0;
    /* any weight whose kernel dims merge (a channels-last one too) is read
     * where it is: by the fold, the engine, the depthwise kernel (the
     * fallback's conv_product makes its own contiguous copy) */
    clops_status s = CLOPS_OK;
    if (gemm_merged_stride(W, &pix))
        Wc = clops_tensor_retain(W);
    else
        s = core_contiguous(W, &Wc);
    bool done = false;
    if (!s && implicit_candidate(g, dir, y))
        s = implicit_product(&c, op, g, dir, S, B, Wc, e, &done);
    if (s || done)
        goto out;
    if (dir == CONV_TO_SMALL && g->Cb == g->groups && g->N > 0 && g->K > 0) {
        /* depthwise: the whole epilogue in the direct kernel */
        s = conv_cl_depthwise(op, g, B, Wc, e, S);
        goto out;
    }
    bool rest = affine || e->residual || e->act != GEMM_ACT_NONE;
    if ((y->dtype == CLOPS_FLOAT16 || y->dtype == CLOPS_BFLOAT16) && rest) {
        s = product_epi_widened(op, g, dir, S, B, W, e);
        goto out;
    }
    /* the plain product (the original weight), then the rest of the
     * epilogue, the bias with it, as one pass */
    s = conv_product(op, g, dir, S, B, Wc, rest ? NULL : (clops_tensor *)e->bias);
    if (!s && rest)
        s = conv_cl_epilogue_pass(op, g->nsp, e, y);
out:
    for (int i = 0; i < c.n; i++)
        clops_tensor_release(c.t[i]);
    clops_tensor_release(Wc);
    return s;
}
