/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ops/norm/norm_backward.c: native_layer_norm_backward and
 * _fused_rms_norm_backward, composed from the library's own operators
 * (casts, pointwise products and differences, and the reductions of
 * ops/reduce*.c), so they run on every device with the same code:
 *
 *   xhat = (x - mean) * rstd          (rms: x * rstd)
 *   gw   = grad_out * weight          (grad_out without a weight)
 *   dx   = rstd * (gw - mean(gw) - xhat * mean(gw * xhat))
 *          (rms: rstd * (gw - xhat * mean(gw * xhat)))
 *   dw   = sum over the leading dims of grad_out * xhat
 *   db   = sum over the leading dims of grad_out
 *
 * with the means over the normalized dims.  float16 and bfloat16 inputs
 * are computed in float32 and the results cast back, as PyTorch computes
 * them.  Results not asked for by output_mask (or without a weight/bias)
 * are None.  Several passes over the data: correct everywhere, not fast.
 *
 * The steps call the families' own entry points (the pointwise engine's
 * pw_run and structured family functions, the reductions' structured
 * functions, core's views), never the generated public wrappers: no step
 * goes through the dispatcher again (docs/architecture.md, Layers).
 */
#include <string.h>

#include "ops/tensor/tensor.h"
#include "host/host.h"
#include "ops/kernels_generated.h"
#include "ops/kit/kit.h"
#include "ops/kit/lines.h"
#include "ops/norm/norm.h"
#include "ops/reduce/reduce.h"

/* Keeps t for release with the others of c; returns t.  NORM_TMPS is above
 * the longest chain of any caller (a fixed, shape-independent count). */
clops_tensor *norm_keep(norm_tmps *c, clops_tensor *t)
{
    if (c->n < NORM_TMPS)
        c->t[c->n++] = t;
    return t;
}

/* Hands three results over (ops/norm/norm.h). */
clops_status norm_hand3(clops_status st, clops_tensor *r0, clops_tensor *r1, clops_tensor *r2,
                        clops_tensor **o0, clops_tensor **o1, clops_tensor **o2)
{
    if (st) {
        clops_tensor_release(r0);
        clops_tensor_release(r1);
        clops_tensor_release(r2);
        return st;
    }
    *o0 = r0;
    *o1 = r1;
    if (o2)
        *o2 = r2;
    return CLOPS_OK;
}

/* Releases every tensor kept in c. */
void norm_release(norm_tmps *c)
{
    for (int i = 0; i < c->n; i++)
        clops_tensor_release(c->t[i]);
    c->n = 0;
}

/* st, keeping *out in c when st is CLOPS_OK (wraps an operator call). */
clops_status norm_kept(norm_tmps *c, clops_status st, clops_tensor **out)
{
    if (!st)
        norm_keep(c, *out);
    return st;
}

/* t cast to dtype (kept). */
clops_status norm_as(norm_tmps *c, const char *op, clops_tensor *t, clops_dtype dt,
                     clops_tensor **out)
{
    clops_status st = reduce_cast_input(op, t, dt, out);
    if (!st)
        norm_keep(c, *out);
    return st;
}

/* op over operands through the pointwise engine (kept; see norm.h). */
clops_status norm_pw(norm_tmps *c, const pw_op *op, const pw_operand *operands,
                     const clops_scalar *params, clops_tensor *dst, clops_tensor **out)
{
    if (dst)
        return pw_run(op, PW_OUT, operands, params, dst, NULL, NULL);
    clops_status st = pw_run(op, PW_FUNCTIONAL, operands, params, NULL, NULL, out);
    if (!st)
        norm_keep(c, *out);
    return st;
}

/* a * b (kept). */
clops_status norm_mul(norm_tmps *c, clops_tensor *a, clops_tensor *b, clops_tensor **out)
{
    const pw_operand o[2] = {pw_tensor(a), pw_tensor(b)};
    return norm_pw(c, &pw_op_mul, o, NULL, NULL, out);
}

/* a * v for a Python scalar v (kept). */
clops_status norm_mul_scalar(norm_tmps *c, clops_tensor *a, double v, clops_tensor **out)
{
    const pw_operand o[2] = {pw_tensor(a), pw_scalar(clops_scalar_float(v))};
    return norm_pw(c, &pw_op_mul, o, NULL, NULL, out);
}

/* a + alpha * b (kept). */
clops_status norm_add(norm_tmps *c, clops_tensor *a, clops_tensor *b, double alpha,
                      clops_tensor **out)
{
    const pw_operand o[2] = {pw_tensor(a), pw_tensor(b)};
    const clops_scalar p[1] = {clops_scalar_float(alpha)};
    return norm_pw(c, &pw_op_add, o, p, NULL, out);
}

/* a + v for a Python scalar v (kept). */
clops_status norm_add_scalar(norm_tmps *c, clops_tensor *a, double v, clops_tensor **out)
{
    const pw_operand o[2] = {pw_tensor(a), pw_scalar(clops_scalar_float(v))};
    const clops_scalar p[1] = {clops_scalar_int(1)};
    return norm_pw(c, &pw_op_add, o, p, NULL, out);
}

/* A one-operand op (rsqrt, neg) of a (kept). */
clops_status norm_unary(norm_tmps *c, const pw_op *op, clops_tensor *a, clops_tensor **out)
{
    const pw_operand o[1] = {pw_tensor(a)};
    return norm_pw(c, op, o, NULL, NULL, out);
}

/* self + t1 * t2 into dst, or a new tensor (kept) when dst is NULL. */
clops_status norm_addcmul(norm_tmps *c, clops_tensor *self, clops_tensor *t1, clops_tensor *t2,
                          clops_tensor *dst, clops_tensor **out)
{
    const pw_operand o[3] = {pw_tensor(self), pw_tensor(t1), pw_tensor(t2)};
    const clops_scalar p[1] = {clops_scalar_int(1)};
    return norm_pw(c, &pw_op_addcmul, o, p, dst, out);
}

/* a - b (kept): sub's structured family function. */
clops_status norm_sub(norm_tmps *c, clops_tensor *a, clops_tensor *b, clops_tensor **out)
{
    clops_status st = pw_fn_sub_tensor(PW_FUNCTIONAL, NULL, a, b, clops_scalar_int(1), out);
    if (!st)
        norm_keep(c, *out);
    return st;
}

/* The sum over dims of t (the reductions' structured function; kept). */
clops_status norm_sum(norm_tmps *c, clops_tensor *t, const int64_t *dims, int ndims,
                      clops_tensor **out)
{
    clops_status st = reduce_sum_dim(PW_FUNCTIONAL, NULL, t, dims, ndims, false,
                                     CLOPS_DTYPE_NONE, out);
    if (!st)
        norm_keep(c, *out);
    return st;
}

/* A view (or contiguous copy) of t with shape sizes (kept). */
clops_status norm_view(norm_tmps *c, clops_tensor *t, int ndim, const int64_t *sizes,
                       clops_tensor **out)
{
    clops_status st = core_reshape(t, sizes, ndim, out);
    if (!st)
        norm_keep(c, *out);
    return st;
}

/* mean over the last nsl dims, kept as size 1 (kept). */
static clops_status row_mean(norm_tmps *c, clops_tensor *t, int nsl, clops_tensor **out)
{
    int64_t dims[CLOPS_MAX_DIMS];
    for (int i = 0; i < nsl; i++)
        dims[i] = t->ndim - nsl + i;
    clops_status st = reduce_mean_dim(PW_FUNCTIONAL, NULL, t, dims, nsl, true, CLOPS_DTYPE_NONE,
                                      out);
    if (!st)
        norm_keep(c, *out);
    return st;
}

/* sum over the leading dims (all but the last nsl) in t's dtype, then cast
 * to dt (a sum with dtype dt would round every term to dt first): a new
 * reference the caller owns. */
static clops_status lead_sum(clops_tensor *t, int nsl, clops_dtype dt, clops_tensor **out)
{
    int nlead = t->ndim - nsl;
    int64_t dims[CLOPS_MAX_DIMS];
    for (int i = 0; i < nlead; i++)
        dims[i] = i;
    if (nlead == 0)
        return core_to_copy(t, dt, NULL, out);
    clops_tensor *s = NULL;
    clops_status st =
        reduce_sum_dim(PW_FUNCTIONAL, NULL, t, dims, nlead, false, CLOPS_DTYPE_NONE, &s);
    if (!st)
        st = core_to_copy(s, dt, NULL, out);
    clops_tensor_release(s);
    return st;
}

/* The composite body: the CPU device, and shapes the fused kernels do not
 * take (broadcast statistics, mixed grad/input dtypes, empty rows). */
static clops_status rows_backward_composite(const char *op, bool rms, clops_tensor *grad,
                                            clops_tensor *input, int nsl, clops_tensor *mean,
                                            clops_tensor *rstd, clops_tensor *weight,
                                            clops_tensor *bias, const bool *mask,
                                            clops_tensor **o0, clops_tensor **o1,
                                            clops_tensor **o2)
{
    clops_dtype ct = input->dtype == CLOPS_FLOAT64 ? CLOPS_FLOAT64 : CLOPS_FLOAT32;
    norm_tmps c = {0};
    clops_tensor *x, *g, *r, *m = NULL, *w = NULL, *xhat, *gw, *t1, *dx = NULL;
    clops_status st = norm_as(&c, op, input, ct, &x);
    if (!st)
        st = norm_as(&c, op, grad, ct, &g);
    if (!st)
        st = norm_as(&c, op, rstd, ct, &r);
    if (!st && !rms)
        st = norm_as(&c, op, mean, ct, &m);
    if (!st && weight)
        st = norm_as(&c, op, weight, ct, &w);
    /* xhat */
    if (!st && !rms) {
        st = norm_sub(&c, x, m, &t1);
        if (!st)
            st = norm_mul(&c, t1, r, &xhat);
    } else if (!st) {
        st = norm_mul(&c, x, r, &xhat);
    }
    if (!st && mask[0]) {
        gw = g;
        clops_tensor *c1, *c2, *gx, *a, *b2;
        if (w)
            st = norm_mul(&c, g, w, &gw);
        if (!st)
            st = norm_mul(&c, gw, xhat, &gx);
        if (!st)
            st = row_mean(&c, gx, nsl, &c2);
        if (!st)
            st = norm_mul(&c, xhat, c2, &b2);
        if (!st)
            st = norm_sub(&c, gw, b2, &a);
        if (!st && !rms) {
            st = row_mean(&c, gw, nsl, &c1);
            if (!st)
                st = norm_sub(&c, a, c1, &a);
        }
        if (!st)
            st = norm_mul(&c, a, r, &t1);
        if (!st)
            st = core_contiguous_as(t1, input->dtype, &dx);
    }
    clops_tensor *dw = NULL, *db = NULL, *gx2;
    if (!st && mask[1] && weight) {
        st = norm_mul(&c, g, xhat, &gx2);
        if (!st)
            st = lead_sum(gx2, nsl, weight->dtype, &dw);
    }
    if (!st && !rms && mask[2] && bias)
        st = lead_sum(g, nsl, bias->dtype, &db);
    norm_release(&c);
    return norm_hand3(st, dx, dw, db, o0, o1, o2);
}

/* ---- the fused path (OpenCL devices) -------------------------------------- */

typedef struct rows_bwd_job {
    const char *op;
    bool rms;
    clops_tensor *g, *x, *mean, *rstd, *w; /* contiguous; mean/rstd/w compute type */
    int64_t M, N, G, D;
    /* GPUs: 1 mean and rstd, 2 w of the input's dtype instead (a 16-bit
     * input's own statistics and weight, read without a cast launch) */
    int raw;
    clops_tensor *dx;      /* contiguous, the input's dtype; NULL: not asked for */
    clops_tensor *pw, *pb; /* [P, N] partials (compute type); NULL: not asked for */
    int64_t P, R;
} rows_bwd_job;

static cl_mem mem_of(const clops_tensor *t)
{
    return t && t->storage->block ? t->storage->block->mem : NULL;
}

/* dx (norm_layer_backward[_cpu]) and the weight/bias partials
 * (norm_layer_wgrad[_cpu]) on an OpenCL device. */
static clops_status rows_bwd_launch(const rows_bwd_job *j, bool cpu)
{
    clops_device *d = j->x->storage->device;
    clops_dtype ct = kit_compute_dtype(j->x->dtype);
    cl_mem gm = mem_of(j->g), xm = mem_of(j->x), rm = mem_of(j->rstd);
    cl_mem mm = j->mean ? mem_of(j->mean) : rm, wm = j->w ? mem_of(j->w) : rm;
    cl_long go = j->g->offset, xo = j->x->offset, mo = j->mean ? j->mean->offset : 0,
            ro = j->rstd->offset, wo = j->w ? j->w->offset : 0, G = j->G, D = j->D, rows = j->M,
            n = j->N;
    clops_status st = CLOPS_OK;
    if (j->dx) {
        host_kernel *k = NULL;
        st = norm_get_kernel(d, cpu ? NORM_K_LAYER_BACKWARD_CPU : NORM_K_LAYER_BACKWARD,
                             j->x->dtype, j->dx->dtype, j->op, &k);
        if (st)
            return st;
        int64_t wg = (int64_t)reduce_wg(d);
        int64_t L = reduce_pow2_floor(j->N / 8 > 1 ? j->N / 8 : 1);
        if (L > wg)
            L = wg;
        cl_int flags = (j->w ? 1 : 0) | (j->rms ? 4 : 0) | (j->raw & 1 ? 32 : 0) |
                       (j->raw & 2 ? 64 : 0),
               cL = (cl_int)L;
        cl_long per = ops_cpu_units_per_item(d, j->M);
        cl_mem dm = mem_of(j->dx);
        cl_long dxo = j->dx->offset;
        host_arg args[] = {{sizeof gm, &gm},     {sizeof go, &go},   {sizeof xm, &xm},
                           {sizeof xo, &xo},     {sizeof mm, &mm},   {sizeof mo, &mo},
                           {sizeof rm, &rm},     {sizeof ro, &ro},   {sizeof wm, &wm},
                           {sizeof wo, &wo},     {sizeof G, &G},     {sizeof D, &D},
                           {sizeof flags, &flags}, {sizeof dm, &dm}, {sizeof dxo, &dxo},
                           {sizeof rows, &rows}, {sizeof n, &n},
                           cpu ? (host_arg){sizeof per, &per} : (host_arg){sizeof cL, &cL}};
        int na = (int)(sizeof args / sizeof args[0]);
        if (cpu)
            st = host_launch_local(d, k, na, args, (size_t)ops_cdiv(j->M, per), 1);
        else
            st = host_launch(d, k, na, args, (size_t)(ops_cdiv(j->M, wg / L) * wg));
        if (st)
            return st;
    }
    if (j->pw) {
        host_kernel *k = NULL;
        st = norm_get_kernel(d, cpu ? NORM_K_LAYER_WGRAD_CPU : NORM_K_LAYER_WGRAD, j->x->dtype,
                             ct, j->op, &k);
        if (st)
            return st;
        cl_int flags = (j->pb ? 2 : 0) | (j->rms ? 4 : 0) | (j->raw & 1 ? 32 : 0);
        cl_mem pwm = mem_of(j->pw), pbm = j->pb ? mem_of(j->pb) : pwm;
        cl_long R = j->R;
        host_arg args[] = {{sizeof gm, &gm},   {sizeof go, &go},   {sizeof xm, &xm},
                           {sizeof xo, &xo},   {sizeof mm, &mm},   {sizeof mo, &mo},
                           {sizeof rm, &rm},   {sizeof ro, &ro},   {sizeof flags, &flags},
                           {sizeof pwm, &pwm}, {sizeof pbm, &pbm}, {sizeof rows, &rows},
                           {sizeof n, &n},     {sizeof R, &R}};
        int na = (int)(sizeof args / sizeof args[0]);
        if (cpu)
            st = host_launch_local(d, k, na, args, (size_t)j->P, 1);
        else
            st = host_launch(d, k, na, args, (size_t)(j->P * j->N));
    }
    return st;
}

static clops_status rows_bwd_cpu(void *job)
{
    return rows_bwd_launch(job, true);
}

static clops_status rows_bwd_gpu(void *job)
{
    return rows_bwd_launch(job, false);
}

static clops_status rows_bwd_host(void *job)
{
    const rows_bwd_job *j = job;
    return clops__fail(CLOPS_INTERNAL, "%s: the fused backward on the CPU device", j->op);
}

static const kit_launches rows_bwd_launches = {
    "layer/rms norm backward",
    {[KIT_HOST] = rows_bwd_host, [KIT_CPU] = rows_bwd_cpu, [KIT_GPU] = rows_bwd_gpu}};

/*
 * The fused row backward (ops/norm/norm.h): grad and input of one dtype,
 * seen as M rows of N contiguous elements; mean (NULL for rms) and rstd of M
 * elements; w of G * (N / D) elements or NULL.  dx (the input's dtype and
 * shape) into *dx when dx is not NULL; with pw, the column sums of
 * grad * xhat and (pb) of grad over the rows, [N] in the compute type,
 * folded from per-block partials in a fixed order.
 */
clops_status norm_rows_backward_fused(const char *op, bool rms, clops_tensor *grad,
                                      clops_tensor *input, int64_t M, int64_t N,
                                      clops_tensor *mean, clops_tensor *rstd,
                                      clops_tensor *weight, int64_t G, int64_t D,
                                      clops_tensor **dx, clops_tensor **sw, clops_tensor **sb)
{
    clops_device *dev = input->storage->device;
    clops_dtype ct = kit_compute_dtype(input->dtype);
    norm_tmps T = {0};
    rows_bwd_job j = {op, rms, NULL, NULL, NULL, NULL, NULL, M, N, G, D, 0, NULL, NULL, NULL, 1, M};
    clops_tensor *out = NULL;
    /* GPUs read a 16-bit input's dense statistics and weight as they are
     * (the CPU kernels take the compute type) */
    bool gpu = !kit_is_host(dev) && !kit_is_cpu(dev) && ct != input->dtype;
    if (gpu && (rms || (mean->dtype == input->dtype && norm_dense(mean))) &&
        rstd->dtype == input->dtype && norm_dense(rstd))
        j.raw |= 1;
    if (gpu && weight && weight->dtype == input->dtype && norm_dense(weight))
        j.raw |= 2;
    clops_status st = norm_kept(&T, core_contiguous(grad, &j.g), &j.g);
    if (!st)
        st = norm_kept(&T, core_contiguous(input, &j.x), &j.x);
    if (!st && !rms)
        st = norm_kept(&T, core_contiguous_as(mean, j.raw & 1 ? mean->dtype : ct, &j.mean),
                       &j.mean);
    if (!st)
        st = norm_kept(&T, core_contiguous_as(rstd, j.raw & 1 ? rstd->dtype : ct, &j.rstd),
                       &j.rstd);
    if (!st && weight)
        st = norm_kept(&T, core_contiguous_as(weight, j.raw & 2 ? weight->dtype : ct, &j.w),
                       &j.w);
    if (!st && dx)
        st = tensor_new(dev, input->dtype, input->ndim, input->sizes, NULL, &out);
    j.dx = out;
    if (!st && sw) {
        /* P blocks of R rows: about 128K items on a GPU, one block per
         * work item of a CPU device (ops_cpu_units_per_item) */
        int64_t P = kit_is_cpu(dev) ? ops_cdiv(M, ops_cpu_units_per_item(dev, M))
                                    : ops_cdiv(131072, N);
        if (P > M)
            P = M;
        if (P < 1)
            P = 1;
        j.R = ops_cdiv(M, P);
        j.P = ops_cdiv(M, j.R);
        int64_t ps[2] = {j.P, N};
        st = norm_kept(&T, tensor_new(dev, ct, 2, ps, NULL, &j.pw), &j.pw);
        if (!st && sb)
            st = norm_kept(&T, tensor_new(dev, ct, 2, ps, NULL, &j.pb), &j.pb);
    }
    if (!st)
        st = kit_run(&rows_bwd_launches, dev, &j);
    const int64_t dim0 = 0;
    if (!st && sw)
        st = reduce_sum_dim(PW_FUNCTIONAL, NULL, j.pw, &dim0, 1, false, CLOPS_DTYPE_NONE, sw);
    if (!st && sb) {
        st = reduce_sum_dim(PW_FUNCTIONAL, NULL, j.pb, &dim0, 1, false, CLOPS_DTYPE_NONE, sb);
        if (st && sw) {
            clops_tensor_release(*sw);
            *sw = NULL;
        }
    }
    norm_release(&T);
    if (st) {
        clops_tensor_release(out);
        return st;
    }
    if (dx)
        *dx = out;
    return CLOPS_OK;
}

/* The column sum s ([N], compute type) as a tensor of t's shape and dtype
 * (dweight/dbias). */
static clops_status as_param(const clops_tensor *t, clops_tensor *s, clops_tensor **out)
{
    clops_tensor *v = NULL;
    clops_status st = core_reshape(s, t->sizes, t->ndim, &v);
    if (!st && v->dtype == t->dtype) {
        *out = v; /* a view of the fresh sum: no copy */
        return CLOPS_OK;
    }
    if (!st)
        st = core_to_copy(v, t->dtype, NULL, out);
    clops_tensor_release(v);
    return st;
}

/* The shared body (ops/norm/norm.h): the fused kernels on OpenCL devices
 * where the shapes allow, else the composite. */
clops_status norm_rows_backward(const char *op, bool rms, clops_tensor *grad, clops_tensor *input,
                                int nsl, clops_tensor *mean, clops_tensor *rstd,
                                clops_tensor *weight, clops_tensor *bias, const bool *mask,
                                clops_tensor **o0, clops_tensor **o1, clops_tensor **o2)
{
    if (!clops_dtype_is_floating(input->dtype) || nsl < 1 || nsl > input->ndim ||
        grad->ndim != input->ndim ||
        memcmp(grad->sizes, input->sizes, sizeof(int64_t) * (size_t)input->ndim) != 0)
        return clops__fail(CLOPS_INVALID_ARGUMENT,
                           "%s: grad_out and input must be floating tensors of one shape with "
                           "at least the %d normalized dims",
                           op, nsl);
    int64_t N = 1, M = 1;
    for (int i = 0; i < input->ndim; i++)
        if (i < input->ndim - nsl)
            M *= input->sizes[i];
        else
            N *= input->sizes[i];
    bool want_w = mask[1] && weight, want_b = !rms && mask[2] && bias;
    bool fused = !kit_is_host(input->storage->device) && M > 0 && N > 0 &&
                 grad->dtype == input->dtype && clops_dtype_is_floating(rstd->dtype) &&
                 tensor_numel(rstd) == M &&
                 (rms || (clops_dtype_is_floating(mean->dtype) && tensor_numel(mean) == M)) &&
                 (!weight || (clops_dtype_is_floating(weight->dtype) && tensor_numel(weight) == N &&
                              weight->storage->device == input->storage->device)) &&
                 (!want_b || (tensor_numel(bias) == N && clops_dtype_is_floating(bias->dtype))) &&
                 (!want_w || weight->ndim == nsl);
    if (!fused)
        return rows_backward_composite(op, rms, grad, input, nsl, mean, rstd, weight, bias, mask,
                                       o0, o1, o2);
    clops_tensor *dx = NULL, *sw = NULL, *sb = NULL, *dw = NULL, *db = NULL;
    clops_status st = norm_rows_backward_fused(
        op, rms, grad, input, M, N, mean, rstd, weight, 1, 1, mask[0] ? &dx : NULL,
        want_w || want_b ? &sw : NULL, want_b ? &sb : NULL);
    if (!st && want_w)
        st = as_param(weight, sw, &dw);
    if (!st && want_b)
        st = as_param(bias, sb, &db);
    clops_tensor_release(sw);
    clops_tensor_release(sb);
    return norm_hand3(st, dx, dw, db, o0, o1, o2);
}

clops_status norm_native_layer_norm_backward(clops_tensor *grad_out, clops_tensor *input,
                                             const int64_t *normalized_shape,
                                             int normalized_shape_len, clops_tensor *mean,
                                             clops_tensor *rstd, clops_tensor *weight,
                                             clops_tensor *bias, const bool *output_mask,
                                             int output_mask_len, clops_tensor **out0,
                                             clops_tensor **out1, clops_tensor **out2)
{
    if (normalized_shape_len < 0 || normalized_shape_len > input->ndim)
        return clops__fail(CLOPS_INVALID_SHAPE,
                           "native_layer_norm_backward: normalized_shape has %d dims, the input %d",
                           normalized_shape_len, input->ndim);
    for (int i = 0; i < normalized_shape_len; i++)
        if (input->sizes[input->ndim - normalized_shape_len + i] != normalized_shape[i])
            return clops__fail(CLOPS_INVALID_SHAPE,
                               "native_layer_norm_backward: normalized_shape does not match the "
                               "input's trailing dims");
    if (output_mask_len != 3)
        return clops__fail(CLOPS_INVALID_ARGUMENT,
                           "native_layer_norm_backward: output_mask needs 3 entries");
    return norm_rows_backward("native_layer_norm_backward", false, grad_out, input, normalized_shape_len,
                    mean, rstd, weight, bias, output_mask, out0, out1, out2);
}

clops_status norm_fused_rms_norm_backward(clops_tensor *grad_out, clops_tensor *input,
                                          const int64_t *normalized_shape,
                                          int normalized_shape_len, clops_tensor *rstd,
                                          clops_tensor *weight, const bool *output_mask,
                                          int output_mask_len, clops_tensor **out0,
                                          clops_tensor **out1)
{
    if (normalized_shape_len < 0 || normalized_shape_len > input->ndim)
        return clops__fail(CLOPS_INVALID_SHAPE,
                           "_fused_rms_norm_backward: normalized_shape has %d dims, the input %d",
                           normalized_shape_len, input->ndim);
    for (int i = 0; i < normalized_shape_len; i++)
        if (input->sizes[input->ndim - normalized_shape_len + i] != normalized_shape[i])
            return clops__fail(CLOPS_INVALID_SHAPE,
                               "_fused_rms_norm_backward: normalized_shape does not match the "
                               "input's trailing dims");
    if (output_mask_len != 2)
        return clops__fail(CLOPS_INVALID_ARGUMENT,
                           "_fused_rms_norm_backward: output_mask needs 2 entries");
    return norm_rows_backward("_fused_rms_norm_backward", true, grad_out, input, normalized_shape_len,
                    NULL, rstd, weight, NULL, output_mask, out0, out1, NULL);
}
