/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ops/norm/norm_group.c: group normalization (dispatch/inventory/norm.yaml):
 * native_group_norm and native_group_norm_backward (and their .out forms).
 *
 * The input [N, C, *] (HxW elements per channel) is made contiguous and
 * seen as N * group rows of C / group * HxW contiguous elements.  Without
 * weight and bias the forward is the row-resident layer-norm kernel
 * (norm_layer of cl_kernels/norm.cl, through norm_layer_rows); with them,
 * float32/float64 inputs take one var_mean over the rows and one addcmul
 * pass x * scale + shift per (n, c) (three passes' traffic), and
 * float16/bfloat16 inputs the row kernel into a float32 temporary followed
 * by y * weight + bias per channel.  mean and rstd are [N, group], in the
 * input's dtype, or float32 when a float16/bfloat16 input comes with a
 * float32 weight (PyTorch's mixed-type rule).  The backward is composed:
 * dx by the row backward of layer norm (norm_rows_backward) over the
 * [N, group, C / group, HxW] view with the weight broadcast per channel,
 * dweight = sum(dy * xhat) and dbias = sum(dy) over dims {0, 3}.
 */
#include <string.h>

#include "ops/tensor/tensor.h"
#include "ops/kernels_generated.h"
#include "ops/kit/kit.h"
#include "ops/kit/lines.h"
#include "ops/norm/norm.h"
#include "ops/reduce/reduce.h"

/* The dtype of mean/rstd: the input's, or the weight's float32 for a
 * float16/bfloat16 input with a float32 weight. */
static clops_dtype gn_stat_dtype(const clops_tensor *x, const clops_tensor *w)
{
    if (w && (x->dtype == CLOPS_FLOAT16 || x->dtype == CLOPS_BFLOAT16) &&
        w->dtype == CLOPS_FLOAT32)
        return CLOPS_FLOAT32;
    return x->dtype;
}

/* Checks input, N, C, HxW, group and the per-channel tensors. */
static clops_status gn_check(const char *op, const clops_tensor *x, const clops_tensor *w,
                             const clops_tensor *b, int64_t N, int64_t C, int64_t HxW,
                             int64_t group)
{
    char a[400], s[400];
    const char *dev = x->storage->device->label;
    clops__fmt_shape(a, sizeof a, x->ndim, x->sizes);
    if (!clops_dtype_is_floating(x->dtype) || x->ndim < 2)
        return clops__fail(CLOPS_INVALID_ARGUMENT,
                           "%s: expected a floating input with at least 2 dims, got %s %s (on %s)",
                           op, a, clops_dtype_name(x->dtype), dev);
    int64_t nc = 0, nchw = 0;
    if (group <= 0 || C % group != 0 || x->sizes[0] != N || x->sizes[1] != C ||
        !geom_mul(N, C, &nc) || !geom_mul(nc, HxW, &nchw) || nchw != tensor_numel(x))
        return clops__fail(CLOPS_INVALID_SHAPE,
                           "%s: Expected number of channels in input to be divisible by "
                           "num_groups and N * C * HxW to be the input's size, but got input of "
                           "shape %s (%s on %s), N=%lld, C=%lld, HxW=%lld and num_groups=%lld",
                           op, a, clops_dtype_name(x->dtype), dev, (long long)N, (long long)C,
                           (long long)HxW, (long long)group);
    const clops_tensor *wb[2] = {w, b};
    const char *names[2] = {"weight", "bias"};
    for (int k = 0; k < 2; k++) {
        const clops_tensor *t = wb[k];
        if (!t)
            continue;
        if (!clops_dtype_is_floating(t->dtype) || t->ndim != 1 || t->sizes[0] != C)
            return clops__fail(CLOPS_INVALID_SHAPE,
                               "%s: Expected %s to be a vector of size equal to the number of "
                               "channels in input, but got %s of shape %s (%s) and input of "
                               "shape %s (%s on %s)",
                               op, names[k], names[k],
                               clops__fmt_shape(s, sizeof s, t->ndim, t->sizes),
                               clops_dtype_name(t->dtype), a, clops_dtype_name(x->dtype), dev);
        if (t->storage->device != x->storage->device)
            return clops__fail(CLOPS_DEVICE_MISMATCH, "%s: %s is on %s, input on %s", op,
                               names[k], t->storage->device->label, dev);
    }
    return CLOPS_OK;
}

static cl_mem mem_of(const clops_tensor *t)
{
    return t->storage->block ? t->storage->block->mem : NULL;
}

/* Whether t is NULL or dense in dtype dt on device d (an operand of the CPU
 * kernels below). */
static bool gn_dense_as(const clops_tensor *t, clops_dtype dt, const clops_device *d)
{
    return !t || (t->dtype == dt && norm_dense(t) && t->storage->device == d);
}

/* The operands the forward's CPU kernels (norm_group_affine_cpu,
 * norm_group_cpu) take first, in their order: x, y, mean, rstd, weight,
 * bias (buffer and offset each; an absent weight or bias passes mean's
 * buffer) and the flags (1 weight, 2 bias). */
typedef struct gn_fwd_io {
    cl_mem xm, ym, mm, rm, wm, bm;
    cl_long xo, yo, mo, ro, wo, bo;
    cl_int flags;
} gn_fwd_io;
#define GN_FWD_NARGS 13

/* io of (xc, y, mean_t, rstd_t, w, b), and its GN_FWD_NARGS arguments into
 * args; false (io untouched) when one of them is not dense in xc's dtype
 * on xc's device. */
static bool gn_fwd_io_of(clops_tensor *xc, clops_tensor *w, clops_tensor *b, clops_tensor *y,
                         clops_tensor *mean_t, clops_tensor *rstd_t, gn_fwd_io *io,
                         host_arg *args)
{
    const clops_device *d = xc->storage->device;
    clops_dtype ct = xc->dtype;
    if (!norm_dense(xc) || !gn_dense_as(y, ct, d) || !gn_dense_as(mean_t, ct, d) ||
        !gn_dense_as(rstd_t, ct, d) || !gn_dense_as(w, ct, d) || !gn_dense_as(b, ct, d))
        return false;
    *io = (gn_fwd_io){.xm = mem_of(xc), .ym = mem_of(y), .mm = mem_of(mean_t),
                      .rm = mem_of(rstd_t), .xo = xc->offset, .yo = y->offset,
                      .mo = mean_t->offset, .ro = rstd_t->offset, .wo = w ? w->offset : 0,
                      .bo = b ? b->offset : 0, .flags = (w ? 1 : 0) | (b ? 2 : 0)};
    io->wm = w ? mem_of(w) : io->mm;
    io->bm = b ? mem_of(b) : io->mm;
    const host_arg a[GN_FWD_NARGS] = {
        {sizeof io->xm, &io->xm}, {sizeof io->xo, &io->xo}, {sizeof io->ym, &io->ym},
        {sizeof io->yo, &io->yo}, {sizeof io->mm, &io->mm}, {sizeof io->mo, &io->mo},
        {sizeof io->rm, &io->rm}, {sizeof io->ro, &io->ro}, {sizeof io->wm, &io->wm},
        {sizeof io->wo, &io->wo}, {sizeof io->bm, &io->bm}, {sizeof io->bo, &io->bo},
        {sizeof io->flags, &io->flags}};
    memcpy(args, a, sizeof a);
    return true;
}

/*
 * CPU devices, float32/float64: y = shift + x * scale with scale and shift
 * per (n, c) computed inside the pass from mean_t, rstd_t, w and b
 * (norm_group_affine_cpu, cl_kernels/norm.cl; the expressions of the
 * composed muls and sub, the same bits), one launch instead of four.
 * *done false (nothing launched) when the tensors do not fit its layout.
 */
static clops_status gn_affine_cpu(const char *op, clops_tensor *xc, clops_tensor *w,
                                  clops_tensor *b, int64_t C, int64_t Cg, int64_t S, clops_tensor *y,
                                  clops_tensor *mean_t, clops_tensor *rstd_t, bool *done)
{
    clops_device *d = xc->storage->device;
    gn_fwd_io io;
    host_arg args[GN_FWD_NARGS + 5];
    *done = false;
    if (!gn_fwd_io_of(xc, w, b, y, mean_t, rstd_t, &io, args))
        return CLOPS_OK;
    *done = true;
    int64_t total = tensor_numel(xc);
    host_kernel *k = NULL;
    clops_status st = norm_get_kernel(d, NORM_K_GROUP_AFFINE_CPU, xc->dtype, xc->dtype, op, &k);
    if (st || total == 0)
        return st;
    int64_t chunk = norm_cpu_chunk(d, total);
    cl_long cC = C, cCg = Cg, ctotal = total, cS = S, cchunk = chunk;
    const host_arg rest[] = {{sizeof cC, &cC},     {sizeof cCg, &cCg},     {sizeof ctotal, &ctotal},
                             {sizeof cS, &cS},     {sizeof cchunk, &cchunk}};
    memcpy(args + GN_FWD_NARGS, rest, sizeof rest);
    return host_launch_local(d, k, (int)(sizeof args / sizeof args[0]), args,
                             (size_t)ops_cdiv(total, chunk), 1);
}

/*
 * CPU devices, float32/float64, at least one group row per compute unit: the
 * whole forward in one launch (norm_group_cpu, cl_kernels/norm.cl): each
 * row's statistics, then its planes' scale and shift and y, the bits of the
 * two-launch path below (the same statistics macro and span, the same
 * expressions).  *done false (nothing launched) when the shape or the
 * tensors do not fit.
 */
static clops_status gn_fused_cpu(const char *op, clops_tensor *xc, clops_tensor *w,
                                 clops_tensor *b, int64_t M, int64_t group, int64_t Cg,
                                 int64_t S, double eps, clops_tensor *y, clops_tensor *mean_t,
                                 clops_tensor *rstd_t, bool *done)
{
    clops_device *d = xc->storage->device;
    gn_fwd_io io;
    host_arg args[GN_FWD_NARGS + 6];
    *done = false;
    if (M * 4 < (int64_t)d->max_chunks || !gn_fwd_io_of(xc, w, b, y, mean_t, rstd_t, &io, args))
        return CLOPS_OK;
    *done = true;
    host_kernel *k = NULL;
    clops_status st = norm_get_kernel(d, NORM_K_GROUP_CPU, xc->dtype, xc->dtype, op, &k);
    if (st || M == 0)
        return st;
    cl_long per = ops_cpu_units_per_item(d, M);
    cl_long rows = M, cG = group, cCg = Cg, cS = S;
    float fe = (float)eps;
    bool dbl = xc->dtype == CLOPS_FLOAT64;
    const host_arg rest[] = {
        {sizeof rows, &rows}, {sizeof cG, &cG}, {sizeof cCg, &cCg}, {sizeof cS, &cS},
        {sizeof per, &per},
        {dbl ? sizeof eps : sizeof fe, dbl ? (const void *)&eps : (const void *)&fe}};
    memcpy(args + GN_FWD_NARGS, rest, sizeof rest);
    return host_launch_local(d, k, (int)(sizeof args / sizeof args[0]), args,
                             (size_t)ops_cdiv(M, per), 1);
}

/*
 * The affine path for float32/float64 inputs: the group statistics by one
 * var_mean over the rows of C / group * HxW, then one addcmul pass
 * x * scale + shift with scale[n, c] = rstd[n, g] * weight[c] and
 * shift[n, c] = bias[c] - mean[n, g] * scale[n, c] (PyTorch's formulation).
 */
static clops_status gn_affine(norm_tmps *T, const char *op, clops_tensor *x, clops_tensor *w,
                              clops_tensor *b, int64_t N, int64_t C, int64_t HxW, int64_t group,
                              double eps, clops_tensor *y, clops_tensor *mean_t,
                              clops_tensor *rstd_t)
{
    int64_t Cg = C / group;
    int64_t rows[2] = {N * group, Cg * HxW}, g3[3] = {N, group, 1}, c3[3] = {1, group, Cg};
    int64_t n3[3] = {N, C, 1}, x3s[3] = {N, C, HxW};
    const int64_t dim1 = 1;
    clops_scalar corr = clops_scalar_int(0);
    clops_tensor *xc, *x2, *x3, *var = NULL, *mean = NULL, *ve, *rstd, *m3, *r3, *scale, *shift,
                                *t, *s3, *h3, *v;
    clops_status st = norm_kept(T, core_contiguous(x, &xc), &xc);
    if (!st && kit_is_cpu(xc->storage->device)) {
        /* CPU devices: the statistics by the layer-norm row kernel's two
         * vectorised passes (sum, then squared deviations), mean and rstd
         * alone, straight into the targets: var_mean's per-element
         * update was two thirds of the call on POCL (2-core VM, [2, 256,
         * 56, 56]).  Another summation order than var_mean's: other
         * last bits of mean and rstd (docs/norm.md). */
        bool done = false;
        st = gn_fused_cpu(op, xc, w, b, rows[0], group, Cg, HxW, eps, y, mean_t, rstd_t, &done);
        if (st || done)
            return st;
        st = norm_layer_rows(op, xc, NULL, NULL, rows[0], rows[1], eps, false, NULL, mean_t,
                             rstd_t);
        if (!st)
            st = gn_affine_cpu(op, xc, w, b, C, Cg, HxW, y, mean_t, rstd_t, &done);
        if (st || done)
            return st;
        st = norm_view(T, mean_t, 3, g3, &m3);
        if (!st)
            st = norm_view(T, rstd_t, 3, g3, &r3);
    } else if (!st) {
        st = norm_view(T, xc, 2, rows, &x2);
        if (!st)
            st = reduce_var_mean_correction(x2, &dim1, 1, &corr, false, &var, &mean);
        if (!st) {
            norm_keep(T, var);
            norm_keep(T, mean);
            st = norm_add_scalar(T, var, eps, &ve);
        }
        if (!st)
            st = norm_unary(T, &pw_op_rsqrt, ve, &rstd);
        if (!st)
            st = norm_view(T, mean, 3, g3, &m3);
        if (!st)
            st = norm_view(T, rstd, 3, g3, &r3);
        if (!st)
            st = norm_view(T, mean, mean_t->ndim, mean_t->sizes, &t);
        if (!st)
            st = core_copy_(mean_t, t, false);
        if (!st)
            st = norm_view(T, rstd, rstd_t->ndim, rstd_t->sizes, &t);
        if (!st)
            st = core_copy_(rstd_t, t, false);
    }
    /* scale [N, group, Cg], shift likewise */
    scale = r3;
    if (!st && w) {
        st = norm_view(T, w, 3, c3, &t);
        if (!st)
            st = norm_mul(T, r3, t, &scale);
    }
    if (!st)
        st = norm_mul(T, m3, scale, &t);
    if (!st && b) {
        clops_tensor *bv;
        st = norm_view(T, b, 3, c3, &bv);
        if (!st)
            st = norm_sub(T, bv, t, &shift);
    } else if (!st) {
        st = norm_unary(T, &pw_op_neg, t, &shift);
    }
    /* to [N, C, 1] (scale may still be r3 [N, group, 1]: expand first) */
    if (!st && !w) {
        int64_t e3[3] = {N, group, Cg};
        st = norm_kept(T, core_expand(scale, e3, 3, false, &t), &t);
        if (!st)
            st = norm_kept(T, core_contiguous(t, &scale), &scale);
    }
    if (!st)
        st = norm_view(T, scale, 3, n3, &s3);
    if (!st)
        st = norm_view(T, shift, 3, n3, &h3);
    if (!st)
        st = norm_view(T, xc, 3, x3s, &x3);
    if (!st && norm_dense(y)) {
        st = norm_view(T, y, 3, x3s, &v);
        if (!st)
            st = norm_affine(T, h3, x3, s3, v);
    } else if (!st) {
        st = norm_addcmul(T, h3, x3, s3, NULL, &t);
        if (!st)
            st = norm_view(T, t, y->ndim, y->sizes, &v);
        if (!st)
            st = core_copy_(y, v, false);
    }
    return st;
}

/*
 * Normalizes x into y, mean_t and rstd_t (the structured targets): without
 * weight and bias, or for float16/bfloat16 inputs, the layer-norm row
 * kernel (followed by y * weight + bias per channel); float32/float64
 * inputs with an affine take gn_affine.
 */
static clops_status gn_run(const char *op, clops_tensor *x, clops_tensor *w, clops_tensor *b,
                           int64_t N, int64_t C, int64_t HxW, int64_t group, double eps,
                           clops_tensor *y, clops_tensor *mean_t, clops_tensor *rstd_t)
{
    int64_t M = N * group, D = C / group * HxW;
    if (!w && !b)
        return norm_layer_rows(op, x, NULL, NULL, M, D, eps, false, y, mean_t, rstd_t);
    /* GPUs, float16/bfloat16 inputs: the row kernel with the per-channel
     * weight and bias, one kernel (it replaced the row kernel into a
     * float32 temporary and an affine pass).  float32/float64 keep
     * gn_affine: on the H100 the grouped row kernel ran [32, 256, 56, 56]
     * at 0.74x of PyTorch, var_mean + one pass at 1.04x (docs/norm.md). */
    clops_device *dev = x->storage->device;
    if (!kit_is_host(dev) && !kit_is_cpu(dev) && HxW > 0 &&
        x->dtype != kit_compute_dtype(x->dtype))
        return norm_layer_rows_grouped(op, x, w, b, M, D, group, HxW, eps, false, y, mean_t,
                                       rstd_t);
    norm_tmps T = {0};
    clops_dtype ct = x->dtype == CLOPS_FLOAT64 ? CLOPS_FLOAT64 : CLOPS_FLOAT32;
    clops_tensor *wc = NULL, *bc = NULL;
    clops_status st = CLOPS_OK;
    if (w)
        st = norm_as(&T, op, w, ct, &wc);
    if (!st && b)
        st = norm_as(&T, op, b, ct, &bc);
    if (!st && x->dtype == ct) {
        st = gn_affine(&T, op, x, wc, bc, N, C, HxW, group, eps, y, mean_t, rstd_t);
        norm_release(&T);
        return st;
    }
    int64_t s3[3] = {N, C, HxW}, c3[3] = {1, C, 1};
    clops_tensor *yt = NULL, *w3 = NULL, *b3 = NULL, *t, *v;
    if (!st)
        st = tensor_new(x->storage->device, ct, 3, s3, NULL, &yt);
    if (!st) {
        norm_keep(&T, yt);
        st = norm_layer_rows(op, x, NULL, NULL, M, D, eps, false, yt, mean_t, rstd_t);
    }
    if (!st && w)
        st = norm_view(&T, wc, 3, c3, &w3);
    if (!st && b)
        st = norm_view(&T, bc, 3, c3, &b3);
    /* y = b + yt * w (or the one that is given) */
    const pw_op *aop = w && b ? &pw_op_addcmul : w ? &pw_op_mul : &pw_op_add;
    const pw_operand ops[3] = {pw_tensor(w && b ? b3 : yt), pw_tensor(w && b ? yt : w ? w3 : b3),
                               pw_tensor(w3)};
    const clops_scalar one[1] = {clops_scalar_int(1)};
    if (!st && norm_dense(y)) {
        st = norm_view(&T, y, 3, s3, &v);
        if (!st)
            st = norm_pw(&T, aop, ops, one, v, NULL);
    } else if (!st) {
        st = norm_pw(&T, aop, ops, one, NULL, &t);
        if (!st)
            st = norm_view(&T, t, y->ndim, y->sizes, &v);
        if (!st)
            st = core_copy_(y, v, false);
    }
    norm_release(&T);
    return st;
}

/* The driver of both forward forms (functional when d is NULL). */
static clops_status gn_forward(pw_variant variant, clops_tensor *input, clops_tensor *weight,
                               clops_tensor *bias, int64_t N, int64_t C, int64_t HxW,
                               int64_t group, double eps, clops_tensor *const *d,
                               clops_tensor **o0, clops_tensor **o1, clops_tensor **o2)
{
    const char *op = "native_group_norm";
    clops_status st = gn_check(op, input, weight, bias, N, C, HxW, group);
    if (st)
        return st;
    clops_dtype sdt = gn_stat_dtype(input, weight);
    int64_t ss[2] = {N, group};
    structured_call c[3];
    clops_tensor *ins[3] = {input, weight, bias};
    clops_tensor *none[3] = {NULL, NULL, NULL};
    const clops_dtype dt[3] = {input->dtype, sdt, sdt};
    const int nd[3] = {input->ndim, 2, 2};
    const int64_t *sz[3] = {input->sizes, ss, ss};
    st = norm_begin3(c, op, variant, d ? d : none, input->storage->device, dt, nd, sz, ins, 3);
    if (!st && tensor_numel(input) > 0)
        st = gn_run(op, input, weight, bias, N, C, HxW, group, eps, c[0].target, c[1].target,
                    c[2].target);
    return norm_finish3(c, st, o0, o1, o2);
}

clops_status norm_native_group_norm(clops_tensor *input, clops_tensor *weight, clops_tensor *bias,
                                    int64_t N, int64_t C, int64_t HxW, int64_t group, double eps,
                                    clops_tensor **out0, clops_tensor **out1, clops_tensor **out2)
{
    return gn_forward(PW_FUNCTIONAL, input, weight, bias, N, C, HxW, group, eps, NULL, out0,
                      out1, out2);
}

clops_status norm_native_group_norm_out(clops_tensor *input, clops_tensor *weight,
                                        clops_tensor *bias, int64_t N, int64_t C, int64_t HxW,
                                        int64_t group, double eps, clops_tensor *out0,
                                        clops_tensor *out1, clops_tensor *out2)
{
    clops_tensor *d[3] = {out0, out1, out2};
    return gn_forward(PW_OUT, input, weight, bias, N, C, HxW, group, eps, d, NULL, NULL, NULL);
}

/*
 * CPU devices: dweight and dbias in one launch (norm_group_wgrad_cpu, item
 * c walking channel c's N planes; cl_kernels/norm.cl) into new [C] tensors
 * of dtype pdt, when the channels fill the device (at least one per
 * compute unit) and the program's compute type is ct.  A plane's sums have
 * the bits of norm_chan_partials with one part a plane, folded over n in
 * order.  *done false (nothing launched) otherwise.
 */
static clops_status gn_wgrad_cpu(const char *op, clops_tensor *xc,
                                 clops_tensor *gc, clops_tensor *mc, clops_tensor *rc,
                                 int64_t N, int64_t C, int64_t Cg, int64_t HxW, clops_dtype pdt,
                                 const bool *mask, clops_tensor **dw, clops_tensor **db,
                                 bool *done)
{
    clops_device *d = xc->storage->device;
    clops_dtype ct = kit_compute_dtype(xc->dtype);
    *done = false;
    if (!kit_is_cpu(d) || C * 4 < (int64_t)d->max_chunks || !clops_dtype_is_floating(pdt) ||
        (pdt == CLOPS_FLOAT64) != (ct == CLOPS_FLOAT64) || !norm_dense(xc) || !norm_dense(gc) ||
        gc->dtype != xc->dtype || !gn_dense_as(mc, ct, d) || !gn_dense_as(rc, ct, d) ||
        mc->offset || rc->offset)
        return CLOPS_OK;
    *done = true;
    host_kernel *k = NULL;
    const int64_t c1[1] = {C};
    clops_tensor *w = NULL, *b = NULL;
    clops_status st = norm_get_kernel(d, NORM_K_GROUP_WGRAD_CPU, xc->dtype, pdt, op, &k);
    if (!st && mask[1])
        st = tensor_new(d, pdt, 1, c1, NULL, &w);
    if (!st && mask[2])
        st = tensor_new(d, pdt, 1, c1, NULL, &b);
    if (!st && C > 0) {
        cl_mem xm = mem_of(xc), gm = mem_of(gc), mm = mem_of(mc), rm = mem_of(rc);
        cl_mem wm = w ? mem_of(w) : mm, bm = b ? mem_of(b) : mm;
        cl_long xo = xc->offset, go = gc->offset, cN = N, cC = C, cCg = Cg, cS = HxW, zero = 0;
        cl_int flags = (w ? 1 : 0) | (b ? 2 : 0);
        const host_arg args[] = {{sizeof xm, &xm}, {sizeof xo, &xo},   {sizeof gm, &gm},
                                 {sizeof go, &go}, {sizeof mm, &mm},   {sizeof rm, &rm},
                                 {sizeof cN, &cN}, {sizeof cC, &cC},   {sizeof cCg, &cCg},
                                 {sizeof cS, &cS}, {sizeof flags, &flags}, {sizeof wm, &wm},
                                 {sizeof zero, &zero}, {sizeof bm, &bm}, {sizeof zero, &zero}};
        st = host_launch_local(d, k, (int)(sizeof args / sizeof args[0]), args, (size_t)C, 1);
    }
    if (st) {
        clops_tensor_release(w);
        clops_tensor_release(b);
        return st;
    }
    *dw = w;
    *db = b;
    return CLOPS_OK;
}

/*
 * The fused backward on OpenCL devices: dx by the row backward kernel over
 * the N * group rows with the weight per channel (norm_rows_backward_fused,
 * one launch); dweight and dbias from the per-(n, c) plane sums of dy and
 * dy * (x - mean) (norm_chan_partials over [1, N * C, HxW], one launch),
 * folded over n: dweight[c] = sum_n rstd[n, g] * sum(dy * (x - mean)),
 * dbias[c] = sum_n sum(dy).
 */
static clops_status gn_backward_fused(const char *op, clops_tensor *grad, clops_tensor *input,
                                      clops_tensor *mean, clops_tensor *rstd,
                                      clops_tensor *weight, int64_t N, int64_t C, int64_t HxW,
                                      int64_t group, const bool *mask, clops_tensor **out0,
                                      clops_tensor **out1, clops_tensor **out2)
{
    norm_tmps T = {0};
    clops_dtype ct = kit_compute_dtype(input->dtype);
    int64_t Cg = C / group, M = N * group, P = 0;
    clops_tensor *dx = NULL, *dw = NULL, *db = NULL;
    clops_status st = CLOPS_OK;
    if (mask[0])
        st = norm_rows_backward_fused(op, false, grad, input, M, Cg * HxW, mean, rstd, weight,
                                      group, HxW, &dx, NULL, NULL);
    clops_dtype pdt = weight ? weight->dtype : input->dtype;
    if (!st && (mask[1] || mask[2])) {
        clops_tensor *xc, *gc, *mc, *rc, *o1, *o2, *t, *r3, *s, *v;
        int64_t p3[3] = {N, group, Cg}, r3s[3] = {N, group, 1};
        const int64_t dim0 = 0, c1[1] = {C};
        st = norm_kept(&T, core_contiguous(input, &xc), &xc);
        if (!st)
            st = norm_kept(&T, core_contiguous(grad, &gc), &gc);
        if (!st)
            st = norm_kept(&T, core_contiguous_as(mean, ct, &mc), &mc);
        bool done = false;
        if (!st)
            st = norm_kept(&T, core_contiguous_as(rstd, ct, &rc), &rc);
        if (!st)
            st = gn_wgrad_cpu(op, xc, gc, mc, rc, N, C, Cg, HxW, pdt, mask, &dw, &db, &done);
        if (st || done) {
            norm_release(&T);
            return norm_hand3(st, dx, dw, db, out0, out1, out2);
        }
        if (!st)
            st = norm_chan_partials(&T, op, 1, xc, gc, mc, Cg, 1, N * C, HxW, 1, &o1, &o2, &P);
        if (!st && mask[1]) {
            st = norm_view(&T, rc, 3, r3s, &r3);
            if (!st)
                st = norm_view(&T, o2, 3, p3, &t);
            if (!st)
                st = norm_mul(&T, t, r3, &t);
            if (!st)
                st = norm_sum(&T, t, &dim0, 1, &s);
            if (!st)
                st = norm_view(&T, s, 1, c1, &v);
            if (!st)
                st = core_to_copy(v, pdt, NULL, &dw);
        }
        if (!st && mask[2]) {
            st = norm_view(&T, o1, 3, p3, &t);
            if (!st)
                st = norm_sum(&T, t, &dim0, 1, &s);
            if (!st)
                st = norm_view(&T, s, 1, c1, &v);
            if (!st)
                st = core_to_copy(v, pdt, NULL, &db);
        }
    }
    norm_release(&T);
    return norm_hand3(st, dx, dw, db, out0, out1, out2);
}

clops_status norm_native_group_norm_backward(clops_tensor *grad_out, clops_tensor *input,
                                             clops_tensor *mean, clops_tensor *rstd,
                                             clops_tensor *weight, int64_t N, int64_t C,
                                             int64_t HxW, int64_t group,
                                             const bool *output_mask, int output_mask_len,
                                             clops_tensor **out0, clops_tensor **out1,
                                             clops_tensor **out2)
{
    const char *op = "native_group_norm_backward";
    clops_status st = gn_check(op, input, weight, NULL, N, C, HxW, group);
    if (st)
        return st;
    char a[400], b[400];
    if (tensor_numel(grad_out) != tensor_numel(input) || grad_out->storage->device != input->storage->device ||
        tensor_numel(mean) != N * group || tensor_numel(rstd) != N * group)
        return clops__fail(CLOPS_INVALID_SHAPE,
                           "%s: expected grad_out of the input's shape %s and mean, rstd of "
                           "N * group = %lld elements, got grad_out %s, mean of %lld, rstd of "
                           "%lld (%s on %s)",
                           op, clops__fmt_shape(a, sizeof a, input->ndim, input->sizes),
                           (long long)(N * group),
                           clops__fmt_shape(b, sizeof b, grad_out->ndim, grad_out->sizes),
                           (long long)tensor_numel(mean), (long long)tensor_numel(rstd),
                           clops_dtype_name(input->dtype), input->storage->device->label);
    if (output_mask_len != 3)
        return clops__fail(CLOPS_INVALID_ARGUMENT, "%s: output_mask needs 3 entries", op);
    if (!kit_is_host(input->storage->device) && grad_out->dtype == input->dtype &&
        tensor_numel(input) > 0)
        return gn_backward_fused(op, grad_out, input, mean, rstd, weight, N, C, HxW, group,
                                 output_mask, out0, out1, out2);
    norm_tmps T = {0};
    clops_dtype ct = input->dtype == CLOPS_FLOAT64 ? CLOPS_FLOAT64 : CLOPS_FLOAT32;
    int64_t Cg = C / group;
    int64_t s4[4] = {N, group, Cg, HxW}, m4[4] = {N, group, 1, 1}, w3[3] = {group, Cg, 1};
    const int64_t dims[2] = {0, 3};
    clops_tensor *xc, *x4, *gc, *g4, *mv, *rv, *wv = NULL, *dx4 = NULL, *dx = NULL, *dw = NULL,
                                                    *db = NULL, *t;
    st = norm_kept(&T, core_contiguous(input, &xc), &xc);
    if (!st)
        st = norm_view(&T, xc, 4, s4, &x4);
    if (!st)
        st = norm_kept(&T, core_contiguous(grad_out, &gc), &gc);
    if (!st)
        st = norm_view(&T, gc, 4, s4, &g4);
    if (!st)
        st = norm_view(&T, mean, 4, m4, &mv);
    if (!st)
        st = norm_view(&T, rstd, 4, m4, &rv);
    if (!st && weight)
        st = norm_view(&T, weight, 3, w3, &wv);
    if (!st && output_mask[0] && tensor_numel(input) > 0) {
        const bool m[3] = {true, false, false};
        clops_tensor *u1 = NULL;
        st = norm_rows_backward(op, false, g4, x4, 2, mv, rv, wv, NULL, m, &dx4, &u1, NULL);
        if (!st) {
            norm_keep(&T, dx4);
            st = norm_view(&T, dx4, input->ndim, input->sizes, &t);
        }
        if (!st)
            st = core_clone(t, &dx);
    } else if (!st && output_mask[0]) {
        st = tensor_new(input->storage->device, input->dtype, input->ndim, input->sizes, NULL,
                        &dx);
    }
    clops_dtype pdt = weight ? weight->dtype : input->dtype;
    if (!st && (output_mask[1] || output_mask[2])) {
        clops_tensor *gf, *xf, *mf, *rf, *xhat, *s;
        const int64_t c1[1] = {C};
        st = norm_as(&T, op, g4, ct, &gf);
        if (!st && output_mask[1]) {
            st = norm_as(&T, op, x4, ct, &xf);
            if (!st)
                st = norm_as(&T, op, mv, ct, &mf);
            if (!st)
                st = norm_as(&T, op, rv, ct, &rf);
            if (!st)
                st = norm_sub(&T, xf, mf, &t);
            if (!st)
                st = norm_mul(&T, t, rf, &xhat);
            if (!st)
                st = norm_mul(&T, gf, xhat, &t);
            if (!st)
                st = norm_sum(&T, t, dims, 2, &s);
            if (!st)
                st = norm_as(&T, op, s, pdt, &s);
            if (!st)
                st = core_reshape(s, c1, 1, &dw);
        }
        if (!st && output_mask[2]) {
            st = norm_sum(&T, gf, dims, 2, &s);
            if (!st)
                st = norm_as(&T, op, s, pdt, &s);
            if (!st)
                st = core_reshape(s, c1, 1, &db);
        }
    }
    norm_release(&T);
    return norm_hand3(st, dx, dw, db, out0, out1, out2);
}

clops_status norm_native_group_norm_backward_out(clops_tensor *grad_out, clops_tensor *input,
                                                 clops_tensor *mean, clops_tensor *rstd,
                                                 clops_tensor *weight, int64_t N, int64_t C,
                                                 int64_t HxW, int64_t group,
                                                 const bool *output_mask, int output_mask_len,
                                                 clops_tensor *out0, clops_tensor *out1,
                                                 clops_tensor *out2)
{
    clops_tensor *r[3] = {NULL, NULL, NULL}, *d[3] = {out0, out1, out2};
    clops_tensor *ins[5] = {grad_out, input, mean, rstd, weight};
    clops_status st = norm_native_group_norm_backward(grad_out, input, mean, rstd, weight, N, C,
                                                      HxW, group, output_mask, output_mask_len,
                                                      &r[0], &r[1], &r[2]);
    if (st)
        return st;
    return norm_store3("native_group_norm_backward", r, d, ins, 5);
}
