/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ops/norm/norm_layer.c: native_layer_norm, rms_norm and _fused_rms_norm (the
 * forward ops; dispatch/inventory/norm.yaml).
 *
 * The input is seen as M rows of N contiguous elements (N the product of
 * normalized_shape, the input's trailing dims).  Weight and bias are cast
 * to the compute dtype (float32, float64 for float64 inputs) as PyTorch's
 * kernels read them; the row statistics are computed in the compute dtype
 * and stored into mean/rstd with PyTorch's dtypes (the input's for
 * native_layer_norm on the CPU, the compute dtype for _fused_rms_norm).
 * The kernel is norm_layer of cl_kernels/norm.cl (one row per L lanes, a
 * Welford pass merged by a tree, then one write pass); the CPU device runs
 * ref/norm.c.
 */
#include <float.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "host/host.h"
#include "ops/tensor/tensor.h"
#include "ops/kernels_generated.h"
#include "ops/kit/lines.h"
#include "ops/kit/kit.h"
#include "ops/norm/norm.h"
#include "ops/reduce/reduce.h"

/* Checks input, normalized_shape, weight and bias; rows and row length. */
static clops_status layer_check(const char *op, const clops_tensor *x, const int64_t *ns, int nsl,
                                const clops_tensor *w, const clops_tensor *b, int64_t *M,
                                int64_t *N)
{
    char a[400], s[400], s2[400];
    if (!clops_dtype_is_floating(x->dtype))
        return clops__fail(CLOPS_INVALID_DTYPE, "%s: expected a floating input, got %s (on %s)",
                           op, clops_dtype_name(x->dtype), x->storage->device->label);
    bool ok = nsl >= 1 && nsl <= x->ndim;
    for (int i = 0; ok && i < nsl; i++)
        ok = x->sizes[x->ndim - nsl + i] == ns[i];
    if (!ok)
        return clops__fail(CLOPS_INVALID_SHAPE,
                           "%s: Given normalized_shape=%s, expected input with shape [*, %s, but "
                           "got input of size%s",
                           op, clops__fmt_shape(s, sizeof s, nsl, ns),
                           clops__fmt_shape(s2, sizeof s2, nsl, ns) + 1,
                           clops__fmt_shape(a, sizeof a, x->ndim, x->sizes));
    const clops_tensor *wb[2] = {w, b};
    const char *names[2] = {"weight", "bias"};
    for (int k = 0; k < 2; k++) {
        const clops_tensor *t = wb[k];
        if (!t)
            continue;
        if (t->ndim != nsl || memcmp(t->sizes, ns, sizeof(int64_t) * (size_t)nsl) != 0)
            return clops__fail(CLOPS_INVALID_SHAPE,
                               "%s: Expected %s to be of same shape as normalized_shape, but got "
                               "%s of shape %s and normalized_shape = %s",
                               op, names[k], names[k],
                               clops__fmt_shape(a, sizeof a, t->ndim, t->sizes),
                               clops__fmt_shape(s, sizeof s, nsl, ns));
        if (t->storage->device != x->storage->device)
            return clops__fail(CLOPS_DEVICE_MISMATCH, "%s: %s is on %s, input on %s", op,
                               names[k], t->storage->device->label, x->storage->device->label);
    }
    *N = 1;
    for (int i = 0; i < nsl; i++)
        *N *= ns[i];
    *M = 1;
    for (int i = 0; i < x->ndim - nsl; i++)
        *M *= x->sizes[i];
    return CLOPS_OK;
}

/* True when t is row-major contiguous (size-1 dims aside). */
bool norm_dense(const clops_tensor *t)
{
    int64_t expect = 1;
    for (int d = t->ndim - 1; d >= 0; d--) {
        if (t->sizes[d] != 1 && t->strides[d] != expect)
            return false;
        expect *= t->sizes[d];
    }
    return true;
}

/* The most elements a row of norm_layer_rr holds: RRV (cl_kernels/norm.cl)
 * groups of 4 per lane, lanes up to the work-group. */
#define NORM_RR_PER_LANE 32

/*
 * norm_layer_rr's lanes per row for rows of n elements on d (0: the row
 * does not fit, norm_layer takes it): the smallest power of two that
 * holds the row at NORM_RR_PER_LANE elements a lane — 32 (a warp) for
 * GPT-2's 768, a whole work-group of 256 for 8192 — on GPUs, for layer
 * and rms norm (G = D = 1).  CLOPS_NORM_LAYER_RR=0 (read once per process)
 * keeps norm_layer (the streaming kernel), for benchmarks.
 */
static int64_t rr_lanes(const clops_device *d, int64_t n, int64_t G, int64_t D)
{
    static atomic_int off = -1;
    int o = atomic_load_explicit(&off, memory_order_relaxed);
    if (o < 0) {
        const char *v = host_env("CLOPS_NORM_LAYER_RR");
        o = v && strcmp(v, "0") == 0;
        atomic_store_explicit(&off, o, memory_order_relaxed);
    }
    int64_t wg = (int64_t)reduce_wg(d);
    if (o || kit_is_cpu(d) || G != 1 || D != 1 || n > wg * NORM_RR_PER_LANE)
        return 0;
    int64_t L = 1;
    while (L * NORM_RR_PER_LANE < n)
        L *= 2;
    return L;
}

/* Launches norm_layer (norm_layer_rr where the row fits) on an OpenCL
 * device. */
/* raw (norm_layer_rr only): 1 weight and bias are in the input's dtype,
 * 2 mean and rstd in the output's (else both in the compute dtype). */
static clops_status launch(const char *op, clops_tensor *x, clops_tensor *w, clops_tensor *b,
                           clops_tensor *y, clops_tensor *mean, clops_tensor *rstd, int64_t M,
                           int64_t N, int64_t G, int64_t D, double eps, bool rms, int raw)
{
    clops_device *d = x->storage->device;
    host_kernel *k = NULL;
    int64_t rr = rr_lanes(d, N, G, D);
    clops_status st = norm_get_kernel(d, kit_is_cpu(d) ? NORM_K_LAYER_CPU
                                         : rr         ? NORM_K_LAYER_RR
                                                      : NORM_K_LAYER,
                                      x->dtype, y ? y->dtype : x->dtype, op, &k);
    if (st)
        return st;
    int64_t wg = (int64_t)reduce_wg(d);
    int64_t L = rr ? rr : reduce_pow2_floor(N / 8 > 1 ? N / 8 : 1);
    if (L > wg)
        L = wg;
    /* CPU devices: norm_layer_cpu, `per` rows per work item, in place of L. */
    cl_long per = ops_cpu_units_per_item(d, M);
    cl_mem xm = x->storage->block->mem;
    cl_mem wm = w ? w->storage->block->mem : xm, bm = b ? b->storage->block->mem : xm;
    cl_mem ym = y ? y->storage->block->mem : xm;
    cl_mem mm = mean ? mean->storage->block->mem : xm, rm = rstd ? rstd->storage->block->mem : xm;
    cl_int flags = (w ? 1 : 0) | (b ? 2 : 0) | (rms ? 4 : 0) | (mean ? 8 : 0) | (y ? 0 : 16),
           cL = (cl_int)L;
    cl_long xo = x->offset, yo = y ? y->offset : 0, rows = M, n = N, wo = w ? w->offset : 0,
            bo = b ? b->offset : 0;
    cl_long cG = G, cD = D;
    float fe = (float)eps;
    bool dbl = kit_compute_dtype(x->dtype) == CLOPS_FLOAT64;
    if (kit_is_cpu(d)) {
        /* norm_layer_cpu has no per-channel weight (group norm takes the
         * affine pass there: ops/norm/norm_group.c) */
        if (D != 1)
            return clops__fail(CLOPS_INTERNAL, "%s: grouped weights on a CPU device", op);
        /* y NULL: the row statistics alone (flag 16) */
        host_arg args[] = {
            {sizeof xm, &xm},   {sizeof xo, &xo},     {sizeof wm, &wm}, {sizeof wo, &wo},
            {sizeof bm, &bm},   {sizeof bo, &bo},     {sizeof flags, &flags},
            {sizeof ym, &ym},   {sizeof yo, &yo},     {sizeof mm, &mm},
            {sizeof rm, &rm},   {sizeof rows, &rows}, {sizeof n, &n},
            {sizeof per, &per},
            {dbl ? sizeof eps : sizeof fe, dbl ? (const void *)&eps : (const void *)&fe},
        };
        return host_launch_local(d, k, (int)(sizeof args / sizeof args[0]), args,
                                 (size_t)((M + per - 1) / per), 1);
    }
    if (!y)
        return clops__fail(CLOPS_INTERNAL, "%s: row statistics alone on a GPU", op);
    int64_t per_group = wg / L;
    size_t global = (size_t)((M + per_group - 1) / per_group * wg);
    if (rr) {
        /* flags & 128: whole groups of 4 as one vector (every row and the
         * weights start on a multiple of 4 elements); its own bit, apart
         * from norm_layer_cpu's 16 (the statistics alone) */
        if (N % 4 == 0 && xo % 4 == 0 && yo % 4 == 0 && wo % 4 == 0 && bo % 4 == 0)
            flags |= 128;
        flags |= (raw & 1 ? 32 : 0) | (raw & 2 ? 64 : 0);
        host_arg rargs[] = {
            {sizeof xm, &xm},     {sizeof xo, &xo},   {sizeof wm, &wm},   {sizeof wo, &wo},
            {sizeof bm, &bm},     {sizeof bo, &bo},   {sizeof flags, &flags},
            {sizeof ym, &ym},     {sizeof yo, &yo},   {sizeof mm, &mm},   {sizeof rm, &rm},
            {sizeof rows, &rows}, {sizeof n, &n},     {sizeof cL, &cL},
            {dbl ? sizeof eps : sizeof fe, dbl ? (const void *)&eps : (const void *)&fe},
        };
        return host_launch(d, k, (int)(sizeof rargs / sizeof rargs[0]), rargs, global);
    }
    host_arg args[] = {
        {sizeof xm, &xm},   {sizeof xo, &xo},      {sizeof wm, &wm}, {sizeof wo, &wo},
        {sizeof bm, &bm},   {sizeof bo, &bo},      {sizeof cG, &cG}, {sizeof cD, &cD},
        {sizeof flags, &flags},
        {sizeof ym, &ym},   {sizeof yo, &yo},      {sizeof mm, &mm},
        {sizeof rm, &rm},   {sizeof rows, &rows},  {sizeof n, &n},
        {sizeof cL, &cL},
        {dbl ? sizeof eps : sizeof fe, dbl ? (const void *)&eps : (const void *)&fe},
    };
    return host_launch(d, k, (int)(sizeof args / sizeof args[0]), args, global);
}

/* Whether norm_layer may write row statistics straight into t: dense, of
 * the compute dtype ct, at offset 0 (the kernel indexes it by row). */
static bool stat_direct(const clops_tensor *t, clops_dtype ct)
{
    return t->dtype == ct && t->offset == 0 && norm_dense(t);
}

/* The row normalization (ops/norm/norm.h). */
clops_status norm_layer_rows(const char *op, clops_tensor *x, clops_tensor *w, clops_tensor *b,
                              int64_t M, int64_t N, double eps, bool rms, clops_tensor *y,
                              clops_tensor *mean_t, clops_tensor *rstd_t)
{
    return norm_layer_rows_grouped(op, x, w, b, M, N, 1, 1, eps, rms, y, mean_t, rstd_t);
}

/* The same with per-channel weights (ops/norm/norm.h). */
clops_status norm_layer_rows_grouped(const char *op, clops_tensor *x, clops_tensor *w,
                                     clops_tensor *b, int64_t M, int64_t N, int64_t G, int64_t D,
                                     double eps, bool rms, clops_tensor *y, clops_tensor *mean_t,
                                     clops_tensor *rstd_t)
{
    if (D != 1 && kit_is_host(x->storage->device))
        return clops__fail(CLOPS_INTERNAL, "%s: grouped weights on the CPU device", op);
    clops_device *dev = x->storage->device;
    clops_dtype ct = kit_compute_dtype(x->dtype);
    clops_tensor *xc = NULL, *wc = NULL, *bc = NULL, *yt = NULL, *mt = NULL, *rt = NULL;
    /* norm_layer_rr reads weight and bias of the input's dtype as they are
     * and writes statistics of the output's dtype straight into them: a
     * 16-bit layer_norm is one launch, not five (two casts, two copies) */
    bool rr = !kit_is_host(dev) && rr_lanes(dev, N, G, D) > 0;
    int raw = 0;
    if (rr && ct != x->dtype && (!w || (w->dtype == x->dtype && norm_dense(w))) &&
        (!b || (b->dtype == x->dtype && norm_dense(b))))
        raw |= 1;
    if (rr && ct != y->dtype && (!mean_t || stat_direct(mean_t, y->dtype)) &&
        (!rstd_t || stat_direct(rstd_t, y->dtype)))
        raw |= 2;
    clops_status st = core_contiguous(x, &xc);
    if (!st && w && (raw & 1))
        wc = clops_tensor_retain(w);
    else if (!st && w)
        st = reduce_cast_input(op, w, ct, &wc);
    if (!st && wc && !norm_dense(wc)) {
        clops_tensor *t = wc;
        st = core_contiguous(t, &wc);
        clops_tensor_release(t);
    }
    if (!st && b && (raw & 1))
        bc = clops_tensor_retain(b);
    else if (!st && b)
        st = reduce_cast_input(op, b, ct, &bc);
    if (!st && bc && !norm_dense(bc)) {
        clops_tensor *t = bc;
        st = core_contiguous(t, &bc);
        clops_tensor_release(t);
    }
    if (!st && y && !norm_dense(y))
        st = tensor_new(dev, y->dtype, y->ndim, y->sizes, NULL, &yt);
    const clops_tensor *stat = mean_t ? mean_t : rstd_t;
    /* GPUs write the row statistics straight into a dense destination of
     * the compute dtype at offset 0 (float32 inputs: two copy launches
     * fewer per call); else through a compute-dtype temporary and a copy */
    bool direct = !kit_is_host(dev) && !kit_is_cpu(dev);
    bool mdirect = direct && mean_t && ((raw & 2) || stat_direct(mean_t, ct));
    bool rdirect = direct && rstd_t && ((raw & 2) || stat_direct(rstd_t, ct));
    if (!st && mean_t && !mdirect)
        st = tensor_new(dev, ct, stat->ndim, stat->sizes, NULL, &mt);
    if (!st && rstd_t && !rdirect)
        st = tensor_new(dev, ct, stat->ndim, stat->sizes, NULL, &rt);
    if (!st && M > 0 && N > 0) {
        clops_tensor *yd = yt ? yt : y;
        if (!yd && !kit_is_cpu(dev))
            st = clops__fail(CLOPS_INTERNAL, "%s: row statistics alone on %s", op, dev->label);
        else if (kit_is_host(dev))
            st = norm_ref_layer(xc, wc, bc, yd, mt, rt, M, N, eps, rms);
        else
            st = launch(op, xc, wc, bc, yd, mdirect ? mean_t : mt, rdirect ? rstd_t : rt, M, N,
                        G, D, eps, rms, raw);
    }
    if (!st && yt)
        st = core_copy_(y, yt, false);
    if (!st && mt && M > 0 && N > 0)
        st = core_copy_(mean_t, mt, false);
    if (!st && rt && M > 0 && N > 0)
        st = core_copy_(rstd_t, rt, false);
    /* Rows of no element: PyTorch's moments of an empty row are mean 0 and
     * variance 0 / 0, so rstd is NaN (layer, group and rms norms alike). */
    if (!st && mean_t && M > 0 && N == 0)
        st = tensor_fill(mean_t, clops_scalar_int(0));
    if (!st && rstd_t && M > 0 && N == 0)
        st = tensor_fill(rstd_t, clops_scalar_float(NAN));
    clops_tensor *all[] = {xc, wc, bc, yt, mt, rt};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        clops_tensor_release(all[i]);
    return st;
}

/* Shape of the row statistics: the input's with the normalized dims 1. */
static void stat_shape(const clops_tensor *x, int nsl, int64_t *sizes)
{
    for (int i = 0; i < x->ndim; i++)
        sizes[i] = i < x->ndim - nsl ? x->sizes[i] : 1;
}

/* The three-result driver of native_layer_norm (functional or out=). */
static clops_status layer_norm(pw_variant variant, clops_tensor *input, const int64_t *ns,
                               int nsl, clops_tensor *weight, clops_tensor *bias, double eps,
                               clops_tensor *d0, clops_tensor *d1, clops_tensor *d2,
                               clops_tensor **o0, clops_tensor **o1, clops_tensor **o2)
{
    const char *op = "native_layer_norm";
    int64_t M, N;
    clops_status st = layer_check(op, input, ns, nsl, weight, bias, &M, &N);
    if (st)
        return st;
    int64_t ss[CLOPS_MAX_DIMS];
    stat_shape(input, nsl, ss);
    clops_device *dev = input->storage->device;
    structured_call c[3];
    clops_tensor *ins[3] = {input, weight, bias};
    clops_tensor *d[3] = {d0, d1, d2};
    const clops_dtype dt[3] = {input->dtype, input->dtype, input->dtype};
    const int nd[3] = {input->ndim, input->ndim, input->ndim};
    const int64_t *sz[3] = {input->sizes, ss, ss};
    st = norm_begin3(c, op, variant, d, dev, dt, nd, sz, ins, 3);
    if (!st)
        st = norm_layer_rows(op, input, weight, bias, M, N, eps, false, c[0].target,
                             c[1].target, c[2].target);
    return norm_finish3(c, st, o0, o1, o2);
}

/* The three destinations (ops/norm/norm.h). */
clops_status norm_begin3(structured_call *c, const char *op, pw_variant variant,
                         clops_tensor *const *d, clops_device *dev, const clops_dtype *dt,
                         const int *nd, const int64_t *const *sz, clops_tensor *const *ins,
                         int nins)
{
    memset(c, 0, 3 * sizeof *c);
    clops_status st = CLOPS_OK;
    for (int i = 0; i < 3 && !st; i++)
        st = structured_begin(&c[i], op, variant, d[i], dev, dt[i], nd[i], sz[i], ins, nins);
    if (st)
        for (int i = 0; i < 3; i++)
            if (c[i].target)
                structured_finish(&c[i], st, NULL);
    return st;
}

/* Hands the three results over (ops/norm/norm.h). */
clops_status norm_finish3(structured_call *c, clops_status st, clops_tensor **o0,
                          clops_tensor **o1, clops_tensor **o2)
{
    clops_status s0 = structured_finish(&c[0], st, o0);
    clops_status s1 = structured_finish(&c[1], st ? st : s0, o1);
    clops_status s2 = structured_finish(&c[2], st ? st : (s0 ? s0 : s1), o2);
    st = st ? st : s0 ? s0 : s1 ? s1 : s2;
    if (st) {
        clops_tensor **outs[3] = {o0, o1, o2};
        for (int i = 0; i < 3; i++)
            if (outs[i] && *outs[i]) {
                clops_tensor_release(*outs[i]);
                *outs[i] = NULL;
            }
    }
    return st;
}

/* The out= form of a three-result backward op (ops/norm/norm.h). */
clops_status norm_store3(const char *op, clops_tensor **res, clops_tensor *const *d,
                         clops_tensor *const *ins, int nins)
{
    clops_status st = CLOPS_OK;
    for (int i = 0; i < 3 && !st; i++) {
        if (!res[i])
            continue;
        if (!d[i]) {
            st = clops__fail(CLOPS_INVALID_ARGUMENT, "%s: out%d is None", op, i);
            break;
        }
        structured_call c;
        st = structured_begin(&c, op, PW_OUT, d[i], res[i]->storage->device, res[i]->dtype,
                              res[i]->ndim, res[i]->sizes, ins, nins);
        if (!st)
            st = structured_finish(&c, core_copy_(c.target, res[i], false), NULL);
    }
    for (int i = 0; i < 3; i++) {
        clops_tensor_release(res[i]);
        res[i] = NULL;
    }
    return st;
}

clops_status norm_native_layer_norm(clops_tensor *input, const int64_t *normalized_shape,
                                    int normalized_shape_len, clops_tensor *weight,
                                    clops_tensor *bias, double eps, clops_tensor **out0,
                                    clops_tensor **out1, clops_tensor **out2)
{
    return layer_norm(PW_FUNCTIONAL, input, normalized_shape, normalized_shape_len, weight, bias,
                      eps, NULL, NULL, NULL, out0, out1, out2);
}

clops_status norm_native_layer_norm_out(clops_tensor *input, const int64_t *normalized_shape,
                                        int normalized_shape_len, clops_tensor *weight,
                                        clops_tensor *bias, double eps, clops_tensor *out0,
                                        clops_tensor *out1, clops_tensor *out2)
{
    return layer_norm(PW_OUT, input, normalized_shape, normalized_shape_len, weight, bias, eps,
                      out0, out1, out2, NULL, NULL, NULL);
}

/* eps of the rms ops: given, or the machine epsilon of the compute dtype
 * (float32's for float16 and bfloat16 inputs, as PyTorch's kernels use). */
static double rms_eps(const clops_tensor *x, const double *eps)
{
    if (eps)
        return *eps;
    return x->dtype == CLOPS_FLOAT64 ? DBL_EPSILON : FLT_EPSILON;
}

clops_status norm_rms_norm(pw_variant variant, clops_tensor *dst, clops_tensor *input,
                           const int64_t *normalized_shape, int normalized_shape_len,
                           clops_tensor *weight, const double *eps, clops_tensor **out)
{
    const char *op = "rms_norm";
    int64_t M, N;
    clops_status st = layer_check(op, input, normalized_shape, normalized_shape_len, weight,
                                  NULL, &M, &N);
    if (st)
        return st;
    structured_call c;
    clops_tensor *ins[2] = {input, weight};
    st = structured_begin(&c, op, variant, dst, input->storage->device, input->dtype,
                          input->ndim, input->sizes, ins, 2);
    if (st)
        return st;
    st = norm_layer_rows(op, input, weight, NULL, M, N, rms_eps(input, eps), true, c.target, NULL,
                   NULL);
    return structured_finish(&c, st, out);
}

clops_status norm_fused_rms_norm(clops_tensor *input, const int64_t *normalized_shape,
                                 int normalized_shape_len, clops_tensor *weight,
                                 const double *eps, clops_tensor **out0, clops_tensor **out1)
{
    const char *op = "_fused_rms_norm";
    int64_t M, N;
    clops_status st = layer_check(op, input, normalized_shape, normalized_shape_len, weight,
                                  NULL, &M, &N);
    if (st)
        return st;
    int64_t ss[CLOPS_MAX_DIMS];
    stat_shape(input, normalized_shape_len, ss);
    clops_device *dev = input->storage->device;
    clops_tensor *y = NULL, *r = NULL, *m = NULL;
    st = tensor_new(dev, input->dtype, input->ndim, input->sizes, NULL, &y);
    if (!st)
        st = tensor_new(dev, kit_compute_dtype(input->dtype), input->ndim, ss, NULL, &r);
    /* The kernel writes a mean beside rstd (0 for rms). */
    if (!st)
        st = tensor_new(dev, kit_compute_dtype(input->dtype), input->ndim, ss, NULL, &m);
    if (!st)
        st = norm_layer_rows(op, input, weight, NULL, M, N, rms_eps(input, eps), true, y, m, r);
    clops_tensor_release(m);
    if (st) {
        clops_tensor_release(y);
        clops_tensor_release(r);
        return st;
    }
    *out0 = y;
    *out1 = r;
    return CLOPS_OK;
}
