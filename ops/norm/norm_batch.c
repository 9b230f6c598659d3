/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ops/norm/norm_batch.c: batch normalization (dispatch/inventory/norm.yaml):
 * native_batch_norm, _native_batch_norm_legit (with running stats and
 * .no_stats), _native_batch_norm_legit_functional (the updated running
 * stats as results), _native_batch_norm_legit_no_training, their out=
 * forms, and native_batch_norm_backward (and .out).
 *
 * Composed from the library's operators on every device, called through
 * their families' entry points (ops/norm/norm.h), never the dispatcher.
 * The input [N, C, *] is made contiguous and seen as [N, C, S]: a
 * channel's elements are N runs of S, and its statistics one var_mean reduction over dims
 * {0, 2} (the reduction family's column/strided plans: fixed order,
 * Welford, deterministic).  The output is one addcmul pass,
 * x * scale + shift with scale = invstd * weight and shift = bias - mean *
 * scale per channel (PyTorch's own formulation).  On the CPU device the
 * statistics come from the reference (ref/norm.c, double, two passes).  Training normalizes with
 * the biased variance and updates running_mean/running_var in place with
 * momentum and the unbiased variance; evaluation uses the running stats
 * and gives empty (shape [0]) save_mean/save_invstd.  float16/bfloat16
 * inputs compute in float32 and get float32 statistics (PyTorch's CUDA
 * kernels; float64 inputs compute in float64).
 */
#include <math.h>
#include <string.h>

#include "host/host.h"
#include "ops/kit/kit.h"
#include "ops/tensor/tensor.h"
#include "ops/kernels_generated.h"
#include "ops/norm/norm.h"
#include "ops/reduce/reduce.h"

/* The compute (and statistics) dtype of input dtype dt. */
static clops_dtype stat_dtype(clops_dtype dt)
{
    return dt == CLOPS_FLOAT64 ? CLOPS_FLOAT64 : CLOPS_FLOAT32;
}

/*
 * Checks the input (floating, at least 2 dims) and the per-channel tensors
 * (1-dim of C elements on the input's device; names[i] for p[i], NULL
 * entries absent) with messages naming op, shapes, dtypes and device.
 */
static clops_status channel_check(const char *op, const clops_tensor *x,
                                  const clops_tensor *const *p, const char *const *names, int np,
                                  int64_t C)
{
    char a[400], b[400];
    const char *dev = x->storage->device->label;
    if (!clops_dtype_is_floating(x->dtype) || x->ndim < 2)
        return clops__fail(CLOPS_INVALID_ARGUMENT,
                           "%s: expected a floating input with at least 2 dims, got %s %s (on %s)",
                           op, clops__fmt_shape(a, sizeof a, x->ndim, x->sizes),
                           clops_dtype_name(x->dtype), dev);
    for (int i = 0; i < np; i++) {
        const clops_tensor *t = p[i];
        if (!t)
            continue;
        if (!clops_dtype_is_floating(t->dtype) || t->ndim != 1 || t->sizes[0] != C)
            return clops__fail(CLOPS_INVALID_SHAPE,
                               "%s: expected %s to be a floating tensor of shape [%lld] (the "
                               "input's channels), got %s %s (input %s %s on %s)",
                               op, names[i], (long long)C,
                               clops__fmt_shape(a, sizeof a, t->ndim, t->sizes),
                               clops_dtype_name(t->dtype),
                               clops__fmt_shape(b, sizeof b, x->ndim, x->sizes),
                               clops_dtype_name(x->dtype), dev);
        if (t->storage->device != x->storage->device)
            return clops__fail(CLOPS_DEVICE_MISMATCH, "%s: %s is on %s, input on %s", op,
                               names[i], t->storage->device->label, dev);
    }
    return CLOPS_OK;
}

/* N, C and S of input [N, C, *] (S = 1 for 2-dim inputs). */
static void ncs(const clops_tensor *x, int64_t *s3)
{
    s3[0] = x->sizes[0];
    s3[1] = x->sizes[1];
    s3[2] = 1;
    for (int i = 2; i < x->ndim; i++)
        s3[2] *= x->sizes[i];
}

/* t ([C]) seen as [1, C, 1] (kept). */
static clops_status chan3(norm_tmps *T, clops_tensor *t, int64_t C, clops_tensor **out)
{
    int64_t s[3] = {1, C, 1};
    return norm_view(T, t, 3, s, out);
}

/*
 * Writes shift3 + x3 * scale3 ([N, C, S] against [1, C, 1]) into target y
 * (the input's shape, any layout): straight into y when it is dense, else
 * through a temporary.
 */
static clops_status write_affine(norm_tmps *T, clops_tensor *y, clops_tensor *shift3,
                                 clops_tensor *x3, clops_tensor *scale3)
{
    clops_tensor *v, *r;
    clops_status st;
    if (norm_dense(y)) {
        st = norm_view(T, y, 3, x3->sizes, &v);
        if (!st)
            st = norm_affine(T, shift3, x3, scale3, v);
        return st;
    }
    st = norm_addcmul(T, shift3, x3, scale3, NULL, &r);
    if (!st)
        st = norm_view(T, r, y->ndim, y->sizes, &v);
    if (!st)
        st = core_copy_(y, v, false);
    return st;
}

/* running = (1 - momentum) * running + momentum * v, in place (v in the
 * compute dtype, running any floating dtype). */
static clops_status update_running(norm_tmps *T, const char *op, clops_tensor *running,
                                   clops_tensor *v, double momentum)
{
    clops_tensor *r, *a, *n;
    clops_status st = norm_as(T, op, running, v->dtype, &r);
    if (!st)
        st = norm_mul_scalar(T, r, 1.0 - momentum, &a);
    if (!st)
        st = norm_add(T, a, v, momentum, &n);
    if (!st)
        st = core_copy_(running, n, false);
    return st;
}

/*
 * The fused forward on OpenCL devices (ops/norm/norm_chan.c): training
 * takes the per-channel Welford partials (one launch), their fold with the
 * running-stat update, scale and shift (one launch over C), then one pass
 * y = shift + x * scale (norm_chan_apply on GPUs, norm_affine's plane
 * kernel on CPU devices); evaluation the fold of the running stats and the
 * pass.  Running stats of another dtype or layout are updated in a
 * compute-type copy and copied back.
 */
static clops_status bn_run_fused(const char *op, clops_tensor *x, clops_tensor *w,
                                 clops_tensor *b, clops_tensor *rm, clops_tensor *rv,
                                 bool training, double momentum, double eps, clops_tensor *y,
                                 clops_tensor *sm, clops_tensor *si)
{
    norm_tmps T = {0};
    clops_device *dev = x->storage->device;
    clops_dtype ct = stat_dtype(x->dtype);
    int64_t s3[3];
    ncs(x, s3);
    int64_t C = s3[1], AS = s3[0] * s3[2];
    clops_tensor *xc, *wc = NULL, *bc = NULL, *rmc = NULL, *rvc = NULL, *o1 = NULL, *o2 = NULL,
                      *mean = NULL, *invstd = NULL, *scale, *shift;
    int64_t P = 0;
    clops_status st = norm_kept(&T, core_contiguous(x, &xc), &xc);
    if (!st && w)
        st = norm_kept(&T, core_contiguous_as(w, ct, &wc), &wc);
    if (!st && b)
        st = norm_kept(&T, core_contiguous_as(b, ct, &bc), &bc);
    if (!st && rm)
        st = norm_kept(&T, core_contiguous_as(rm, ct, &rmc), &rmc);
    if (!st && rv)
        st = norm_kept(&T, core_contiguous_as(rv, ct, &rvc), &rvc);
    if (!st)
        st = norm_kept(&T, tensor_new(dev, ct, 1, &C, NULL, &scale), &scale);
    if (!st)
        st = norm_kept(&T, tensor_new(dev, ct, 1, &C, NULL, &shift), &shift);
    /* save_mean/save_invstd written by the fold where they are dense from
     * offset 0 in the compute type (the functional forms' targets) */
    bool sm_direct = training && sm && si && sm->dtype == ct && si->dtype == ct &&
                     sm->offset == 0 && si->offset == 0 && norm_dense(sm) && norm_dense(si);
    if (!st && training && sm_direct) {
        mean = sm;
        invstd = si;
    } else if (!st && training) {
        st = norm_kept(&T, tensor_new(dev, ct, 1, &C, NULL, &mean), &mean);
        if (!st)
            st = norm_kept(&T, tensor_new(dev, ct, 1, &C, NULL, &invstd), &invstd);
    }
    if (!st && training)
        st = norm_chan_partials(&T, op, 0, xc, NULL, NULL, 1, s3[0], C, s3[2], 0, &o1, &o2, &P);
    bool update = training && rm && rv;
    if (!st)
        st = norm_chan_fold_fwd(op, o1, o2, P, AS, C, training, eps, momentum, wc, bc, rmc, rvc,
                                update, mean, invstd, scale, shift);
    if (!st && update && rmc != rm)
        st = core_copy_(rm, rmc, false);
    if (!st && update && rvc != rv)
        st = core_copy_(rv, rvc, false);
    if (!st && training && sm && !sm_direct && C > 0) {
        st = core_copy_(sm, mean, false);
        if (!st)
            st = core_copy_(si, invstd, false);
    }
    clops_tensor *x3, *yt = y, *y3;
    if (!st && tensor_numel(x) > 0 && kit_is_cpu(dev)) {
        clops_tensor *sc3, *sh3;
        st = norm_view(&T, xc, 3, s3, &x3);
        if (!st)
            st = chan3(&T, scale, C, &sc3);
        if (!st)
            st = chan3(&T, shift, C, &sh3);
        if (!st)
            st = write_affine(&T, y, sh3, x3, sc3);
    } else if (!st && tensor_numel(x) > 0) {
        if (!norm_dense(y))
            st = norm_kept(&T, tensor_new(dev, y->dtype, y->ndim, y->sizes, NULL, &yt), &yt);
        if (!st)
            st = norm_view(&T, yt, 3, s3, &y3);
        if (!st)
            st = norm_chan_apply(op, xc, NULL, shift, scale, NULL, NULL, y3, C, s3[2]);
        if (!st && yt != y)
            st = core_copy_(y, yt, false);
    }
    norm_release(&T);
    return st;
}

/*
 * The body of every forward form: normalizes x into target y and, when
 * training, writes the batch mean and invstd into sm and si ([C]) and
 * updates rm/rv (either may be NULL).  OpenCL devices take bn_run_fused;
 * the CPU device composes the library's operators around the reference
 * statistics.
 */
static clops_status bn_run(const char *op, clops_tensor *x, clops_tensor *w, clops_tensor *b,
                           clops_tensor *rm, clops_tensor *rv, bool training, double momentum,
                           double eps, clops_tensor *y, clops_tensor *sm, clops_tensor *si)
{
    if (!kit_is_host(x->storage->device))
        return bn_run_fused(op, x, w, b, rm, rv, training, momentum, eps, y, sm, si);
    norm_tmps T = {0};
    clops_dtype ct = stat_dtype(x->dtype);
    int64_t s3[3];
    ncs(x, s3);
    int64_t C = s3[1], n = s3[0] * s3[2];
    clops_tensor *xc, *x3, *mean = NULL, *var = NULL, *invstd, *ve, *scale, *shift, *t;
    clops_status st = norm_kept(&T, core_contiguous(x, &xc), &xc);
    if (!st)
        st = norm_view(&T, xc, 3, s3, &x3);
    if (!st && training) {
        /* the reference statistics (ref/norm.c, double, two passes) */
        clops_device *dev = x->storage->device;
        st = norm_kept(&T, tensor_new(dev, ct, 1, &C, NULL, &mean), &mean);
        if (!st)
            st = norm_kept(&T, tensor_new(dev, ct, 1, &C, NULL, &var), &var);
        if (!st)
            st = norm_ref_batch_stats(x3, mean, var, s3[0], C, s3[2]);
    } else if (!st) {
        st = norm_as(&T, op, rm, ct, &mean);
        if (!st)
            st = norm_as(&T, op, rv, ct, &var);
    }
    if (!st)
        st = norm_add_scalar(&T, var, eps, &ve);
    if (!st)
        st = norm_unary(&T, &pw_op_rsqrt, ve, &invstd);
    scale = invstd;
    if (!st && w) {
        st = norm_as(&T, op, w, ct, &t);
        if (!st)
            st = norm_mul(&T, invstd, t, &scale);
    }
    if (!st)
        st = norm_mul(&T, mean, scale, &t);
    if (!st && b) {
        clops_tensor *bc;
        st = norm_as(&T, op, b, ct, &bc);
        if (!st)
            st = norm_sub(&T, bc, t, &shift);
    } else if (!st) {
        st = norm_unary(&T, &pw_op_neg, t, &shift);
    }
    clops_tensor *scale3, *shift3;
    if (!st)
        st = chan3(&T, scale, C, &scale3);
    if (!st)
        st = chan3(&T, shift, C, &shift3);
    if (!st && tensor_numel(x) > 0)
        st = write_affine(&T, y, shift3, x3, scale3);
    if (!st && training && sm && C > 0) {
        st = core_copy_(sm, mean, false);
        if (!st)
            st = core_copy_(si, invstd, false);
    }
    if (!st && training && rm)
        st = update_running(&T, op, rm, mean, momentum);
    if (!st && training && rv) {
        /* unbiased = biased * n / (n - 1); n == 1 gives NaN as in PyTorch */
        clops_tensor *u;
        double f = n > 1 ? (double)n / (double)(n - 1) : NAN;
        st = norm_mul_scalar(&T, var, f, &u);
        if (!st)
            st = update_running(&T, op, rv, u, momentum);
    }
    norm_release(&T);
    return st;
}

/* The driver of every forward form (functional when d is NULL). */
static clops_status bn_forward(const char *op, pw_variant variant, clops_tensor *input,
                               clops_tensor *weight, clops_tensor *bias, clops_tensor *rm,
                               clops_tensor *rv, bool training, double momentum, double eps,
                               clops_tensor *const *d, clops_tensor **o0, clops_tensor **o1,
                               clops_tensor **o2)
{
    const clops_tensor *p[4] = {weight, bias, rm, rv};
    static const char *const names[4] = {"weight", "bias", "running_mean", "running_var"};
    int64_t C = input->ndim >= 2 ? input->sizes[1] : 0;
    clops_status st = channel_check(op, input, p, names, 4, C);
    if (st)
        return st;
    if (!training && (!rm || !rv))
        return clops__fail(CLOPS_INVALID_ARGUMENT,
                           "%s: running_mean and running_var must be defined in evaluation mode "
                           "(input %s on %s)",
                           op, clops_dtype_name(input->dtype), input->storage->device->label);
    if (training && tensor_numel(input) == 0) {
        char a[400];
        return clops__fail(CLOPS_INVALID_ARGUMENT,
                           "%s: input tensor must have at least one element, but got "
                           "input_sizes = %s (%s on %s)",
                           op, clops__fmt_shape(a, sizeof a, input->ndim, input->sizes),
                           clops_dtype_name(input->dtype), input->storage->device->label);
    }
    clops_dtype ct = stat_dtype(input->dtype);
    int64_t sc = training ? C : 0;
    structured_call c[3];
    clops_tensor *ins[5] = {input, weight, bias, rm, rv};
    clops_tensor *none[3] = {NULL, NULL, NULL};
    const clops_dtype dt[3] = {input->dtype, ct, ct};
    const int nd[3] = {input->ndim, 1, 1};
    const int64_t *sz[3] = {input->sizes, &sc, &sc};
    st = norm_begin3(c, op, variant, d ? d : none, input->storage->device, dt, nd, sz, ins, 5);
    if (!st)
        st = bn_run(op, input, weight, bias, rm, rv, training, momentum, eps, c[0].target,
                    c[1].target, c[2].target);
    return norm_finish3(c, st, o0, o1, o2);
}

clops_status norm_native_batch_norm(clops_tensor *input, clops_tensor *weight, clops_tensor *bias,
                                    clops_tensor *running_mean, clops_tensor *running_var,
                                    bool training, double momentum, double eps,
                                    clops_tensor **out0, clops_tensor **out1, clops_tensor **out2)
{
    return bn_forward("native_batch_norm", PW_FUNCTIONAL, input, weight, bias, running_mean,
                      running_var, training, momentum, eps, NULL, out0, out1, out2);
}

clops_status norm_native_batch_norm_out(clops_tensor *input, clops_tensor *weight,
                                        clops_tensor *bias, clops_tensor *running_mean,
                                        clops_tensor *running_var, bool training,
                                        double momentum, double eps, clops_tensor *out,
                                        clops_tensor *save_mean, clops_tensor *save_invstd)
{
    clops_tensor *d[3] = {out, save_mean, save_invstd};
    return bn_forward("native_batch_norm", PW_OUT, input, weight, bias, running_mean,
                      running_var, training, momentum, eps, d, NULL, NULL, NULL);
}

clops_status norm_native_batch_norm_legit(clops_tensor *input, clops_tensor *weight,
                                          clops_tensor *bias, clops_tensor *running_mean,
                                          clops_tensor *running_var, bool training,
                                          double momentum, double eps, clops_tensor **out0,
                                          clops_tensor **out1, clops_tensor **out2)
{
    return bn_forward("_native_batch_norm_legit", PW_FUNCTIONAL, input, weight, bias,
                      running_mean, running_var, training, momentum, eps, NULL, out0, out1,
                      out2);
}

clops_status norm_native_batch_norm_legit_out(clops_tensor *input, clops_tensor *weight,
                                              clops_tensor *bias, clops_tensor *running_mean,
                                              clops_tensor *running_var, bool training,
                                              double momentum, double eps, clops_tensor *out,
                                              clops_tensor *save_mean,
                                              clops_tensor *save_invstd)
{
    clops_tensor *d[3] = {out, save_mean, save_invstd};
    return bn_forward("_native_batch_norm_legit", PW_OUT, input, weight, bias, running_mean,
                      running_var, training, momentum, eps, d, NULL, NULL, NULL);
}

/* The functional form: the updated running stats are new tensors (copies
 * of running_mean/running_var, updated when training); the inputs stay. */
clops_status norm_native_batch_norm_legit_functional(
    clops_tensor *input, clops_tensor *weight, clops_tensor *bias, clops_tensor *running_mean,
    clops_tensor *running_var, bool training, double momentum, double eps, clops_tensor **out0,
    clops_tensor **out1, clops_tensor **out2, clops_tensor **running_mean_out,
    clops_tensor **running_var_out)
{
    clops_tensor *rm = NULL, *rv = NULL;
    clops_status st = core_clone(running_mean, &rm);
    if (!st)
        st = core_clone(running_var, &rv);
    if (!st)
        st = bn_forward("_native_batch_norm_legit_functional", PW_FUNCTIONAL, input, weight,
                        bias, rm, rv, training, momentum, eps, NULL, out0, out1, out2);
    if (st) {
        clops_tensor_release(rm);
        clops_tensor_release(rv);
        return st;
    }
    *running_mean_out = rm;
    *running_var_out = rv;
    return CLOPS_OK;
}

clops_status norm_native_batch_norm_legit_no_stats(clops_tensor *input, clops_tensor *weight,
                                                   clops_tensor *bias, bool training,
                                                   double momentum, double eps,
                                                   clops_tensor **out0, clops_tensor **out1,
                                                   clops_tensor **out2)
{
    return bn_forward("_native_batch_norm_legit.no_stats", PW_FUNCTIONAL, input, weight, bias,
                      NULL, NULL, training, momentum, eps, NULL, out0, out1, out2);
}

clops_status norm_native_batch_norm_legit_no_stats_out(clops_tensor *input,
                                                       clops_tensor *weight, clops_tensor *bias,
                                                       bool training, double momentum,
                                                       double eps, clops_tensor *out,
                                                       clops_tensor *save_mean,
                                                       clops_tensor *save_invstd)
{
    clops_tensor *d[3] = {out, save_mean, save_invstd};
    return bn_forward("_native_batch_norm_legit.no_stats", PW_OUT, input, weight, bias, NULL,
                      NULL, training, momentum, eps, d, NULL, NULL, NULL);
}

clops_status norm_native_batch_norm_legit_no_training(clops_tensor *input, clops_tensor *weight,
                                                      clops_tensor *bias,
                                                      clops_tensor *running_mean,
                                                      clops_tensor *running_var, double momentum,
                                                      double eps, clops_tensor **out0,
                                                      clops_tensor **out1, clops_tensor **out2)
{
    return bn_forward("_native_batch_norm_legit_no_training", PW_FUNCTIONAL, input, weight,
                      bias, running_mean, running_var, false, momentum, eps, NULL, out0, out1,
                      out2);
}

clops_status norm_native_batch_norm_legit_no_training_out(
    clops_tensor *input, clops_tensor *weight, clops_tensor *bias, clops_tensor *running_mean,
    clops_tensor *running_var, double momentum, double eps, clops_tensor *out0,
    clops_tensor *out1, clops_tensor *out2)
{
    clops_tensor *d[3] = {out0, out1, out2};
    return bn_forward("_native_batch_norm_legit_no_training", PW_OUT, input, weight, bias,
                      running_mean, running_var, false, momentum, eps, d, NULL, NULL, NULL);
}

/*
 * The fused backward on OpenCL devices (ops/norm/norm_chan.c): the
 * per-channel sums of dy and dy * (x - mean) as partials (one launch), their
 * fold into dweight, dbias and dx's coefficients (one launch over C), then
 * dx = c0 + dy * invstd * w + (x - mean) * q in one pass.
 */
static clops_status bn_backward_fused(const char *op, clops_tensor *grad, clops_tensor *input,
                                      clops_tensor *weight, clops_tensor *mu, clops_tensor *sd,
                                      bool train, double eps, const bool *mask,
                                      clops_tensor **out0, clops_tensor **out1,
                                      clops_tensor **out2)
{
    norm_tmps T = {0};
    clops_device *dev = input->storage->device;
    clops_dtype ct = stat_dtype(input->dtype);
    int64_t s3[3];
    ncs(input, s3);
    int64_t C = s3[1], AS = s3[0] * s3[2], P = 0;
    clops_tensor *xc, *gc, *mc, *sc, *wc = NULL, *o1, *o2, *iw, *c0, *q, *dwc, *dbc, *x3, *g3,
                                    *d3;
    clops_tensor *dx = NULL, *dw = NULL, *db = NULL;
    clops_status st = norm_kept(&T, core_contiguous(input, &xc), &xc);
    if (!st)
        st = norm_kept(&T, core_contiguous(grad, &gc), &gc);
    if (!st)
        st = norm_kept(&T, core_contiguous_as(mu, ct, &mc), &mc);
    if (!st)
        st = norm_kept(&T, core_contiguous_as(sd, ct, &sc), &sc);
    if (!st && weight)
        st = norm_kept(&T, core_contiguous_as(weight, ct, &wc), &wc);
    clops_tensor **cs[5] = {&iw, &c0, &q, &dwc, &dbc};
    for (int i = 0; i < 5 && !st; i++)
        st = norm_kept(&T, tensor_new(dev, ct, 1, &C, NULL, cs[i]), cs[i]);
    if (!st && AS > 0)
        st = norm_chan_partials(&T, op, 1, xc, gc, mc, 1, s3[0], C, s3[2], 0, &o1, &o2, &P);
    if (!st && AS > 0)
        st = norm_chan_fold_bwd(op, o1, o2, P, C, train, (double)AS, eps, wc, sc, iw, c0, q, dwc,
                                dbc);
    else if (!st && C > 0)
        st = tensor_fill(dbc, clops_scalar_int(0));
    if (!st && AS == 0 && C > 0)
        st = tensor_fill(dwc, clops_scalar_int(0));
    if (!st && mask[0]) {
        st = tensor_new(dev, input->dtype, input->ndim, input->sizes, NULL, &dx);
        if (!st && AS > 0) {
            st = norm_view(&T, xc, 3, s3, &x3);
            if (!st)
                st = norm_view(&T, gc, 3, s3, &g3);
            if (!st)
                st = norm_view(&T, dx, 3, s3, &d3);
            if (!st)
                st = norm_chan_apply(op, g3, train ? x3 : NULL, c0, iw, q, mc, d3, C, s3[2]);
        }
    }
    clops_dtype pdt = weight ? weight->dtype : ct;
    if (!st && mask[1])
        st = pdt == ct ? (dw = clops_tensor_retain(dwc), CLOPS_OK)
                       : core_to_copy(dwc, pdt, NULL, &dw);
    if (!st && mask[2])
        st = pdt == ct ? (db = clops_tensor_retain(dbc), CLOPS_OK)
                       : core_to_copy(dbc, pdt, NULL, &db);
    norm_release(&T);
    return norm_hand3(st, dx, dw, db, out0, out1, out2);
}

/*
 * native_batch_norm_backward.  With xmu = x - mean, invstd the saved
 * (train) or running (eval) one, sum_dy and dot = sum(dy * xmu) per
 * channel over (N, *):
 *   train: dx = (dy - sum_dy / n - xmu * dot * invstd^2 / n) * invstd * w
 *   eval:  dx = dy * invstd * w
 *   dweight = dot * invstd, dbias = sum_dy
 * dx as two addcmul passes; the sums are reductions over dims {0, 2}.
 */
clops_status norm_native_batch_norm_backward(clops_tensor *grad_out, clops_tensor *input,
                                             clops_tensor *weight, clops_tensor *running_mean,
                                             clops_tensor *running_var, clops_tensor *save_mean,
                                             clops_tensor *save_invstd, bool train, double eps,
                                             const bool *output_mask, int output_mask_len,
                                             clops_tensor **out0, clops_tensor **out1,
                                             clops_tensor **out2)
{
    const char *op = "native_batch_norm_backward";
    const clops_tensor *p[5] = {weight, running_mean, running_var, save_mean, save_invstd};
    static const char *const names[5] = {"weight", "running_mean", "running_var", "save_mean",
                                         "save_invstd"};
    int64_t C = input->ndim >= 2 ? input->sizes[1] : 0;
    clops_status st = channel_check(op, input, p, names, 5, C);
    if (st)
        return st;
    char a[400], b[400];
    if (grad_out->ndim != input->ndim ||
        memcmp(grad_out->sizes, input->sizes, sizeof(int64_t) * (size_t)input->ndim) != 0 ||
        grad_out->storage->device != input->storage->device)
        return clops__fail(CLOPS_INVALID_SHAPE,
                           "%s: grad_out %s %s (on %s) must match input %s %s (on %s)", op,
                           clops__fmt_shape(a, sizeof a, grad_out->ndim, grad_out->sizes),
                           clops_dtype_name(grad_out->dtype), grad_out->storage->device->label,
                           clops__fmt_shape(b, sizeof b, input->ndim, input->sizes),
                           clops_dtype_name(input->dtype), input->storage->device->label);
    if (output_mask_len != 3)
        return clops__fail(CLOPS_INVALID_ARGUMENT, "%s: output_mask needs 3 entries", op);
    clops_tensor *mu = train ? save_mean : running_mean;
    clops_tensor *sd = train ? save_invstd : running_var;
    if (!mu || !sd)
        return clops__fail(CLOPS_INVALID_ARGUMENT,
                           "%s: %s needs %s (input %s on %s)", op,
                           train ? "training" : "evaluation",
                           train ? "save_mean and save_invstd" : "running_mean and running_var",
                           clops_dtype_name(input->dtype), input->storage->device->label);
    if (!kit_is_host(input->storage->device) && grad_out->dtype == input->dtype)
        return bn_backward_fused(op, grad_out, input, weight, mu, sd, train, eps, output_mask,
                                 out0, out1, out2);
    norm_tmps T = {0};
    clops_dtype ct = stat_dtype(input->dtype);
    int64_t s3[3];
    ncs(input, s3);
    double n = (double)(s3[0] * s3[2]);
    const int64_t dims[2] = {0, 2};
    clops_tensor *xc, *x3, *gc, *g3, *mean, *invstd, *m3, *xmu, *sdy, *gx, *dot = NULL, *iw;
    clops_tensor *dx = NULL, *dw = NULL, *db = NULL, *t;
    st = norm_kept(&T, core_contiguous(input, &xc), &xc);
    if (!st)
        st = norm_view(&T, xc, 3, s3, &t);
    if (!st)
        st = norm_as(&T, op, t, ct, &x3);
    if (!st)
        st = norm_kept(&T, core_contiguous(grad_out, &gc), &gc);
    if (!st)
        st = norm_view(&T, gc, 3, s3, &t);
    if (!st)
        st = norm_as(&T, op, t, ct, &g3);
    if (!st)
        st = norm_as(&T, op, mu, ct, &mean);
    if (!st && train) {
        st = norm_as(&T, op, sd, ct, &invstd);
    } else if (!st) {
        st = norm_as(&T, op, sd, ct, &t);
        if (!st)
            st = norm_add_scalar(&T, t, eps, &t);
        if (!st)
            st = norm_unary(&T, &pw_op_rsqrt, t, &invstd);
    }
    if (!st)
        st = chan3(&T, mean, C, &m3);
    if (!st)
        st = norm_sub(&T, x3, m3, &xmu);
    if (!st)
        st = norm_sum(&T, g3, dims, 2, &sdy);
    if (!st && (output_mask[1] || (train && output_mask[0]))) {
        st = norm_mul(&T, g3, xmu, &gx);
        if (!st)
            st = norm_sum(&T, gx, dims, 2, &dot);
    }
    /* iw = invstd * weight */
    iw = invstd;
    if (!st && weight) {
        st = norm_as(&T, op, weight, ct, &t);
        if (!st)
            st = norm_mul(&T, invstd, t, &iw);
    }
    if (!st && output_mask[0]) {
        clops_tensor *iw3, *r, *dx3;
        st = chan3(&T, iw, C, &iw3);
        if (!st && train) {
            /* c0 = -sum_dy / n * iw; q = -dot * invstd^2 / n * iw */
            clops_tensor *c0, *q, *c03, *q3;
            st = norm_mul(&T, sdy, iw, &t);
            if (!st)
                st = norm_mul_scalar(&T, t, -1.0 / n, &c0);
            if (!st)
                st = norm_mul(&T, dot, invstd, &t);
            if (!st)
                st = norm_mul(&T, t, invstd, &t);
            if (!st)
                st = norm_mul(&T, t, iw, &t);
            if (!st)
                st = norm_mul_scalar(&T, t, -1.0 / n, &q);
            if (!st)
                st = chan3(&T, c0, C, &c03);
            if (!st)
                st = chan3(&T, q, C, &q3);
            if (!st)
                st = norm_addcmul(&T, c03, g3, iw3, NULL, &r);
            if (!st)
                st = norm_addcmul(&T, r, xmu, q3, NULL, &dx3);
        } else if (!st) {
            st = norm_mul(&T, g3, iw3, &dx3);
        }
        if (!st)
            st = norm_view(&T, dx3, input->ndim, input->sizes, &t);
        if (!st)
            st = core_to_copy(t, input->dtype, NULL, &dx);
    }
    /* dweight/dbias: the weight's dtype, else the statistics' one */
    clops_dtype pdt = weight ? weight->dtype : ct;
    if (!st && output_mask[1]) {
        st = norm_mul(&T, dot, invstd, &t);
        if (!st)
            st = core_to_copy(t, pdt, NULL, &dw);
    }
    if (!st && output_mask[2])
        st = core_to_copy(sdy, pdt, NULL, &db);
    norm_release(&T);
    return norm_hand3(st, dx, dw, db, out0, out1, out2);
}

clops_status norm_native_batch_norm_backward_out(
    clops_tensor *grad_out, clops_tensor *input, clops_tensor *weight, clops_tensor *running_mean,
    clops_tensor *running_var, clops_tensor *save_mean, clops_tensor *save_invstd, bool train,
    double eps, const bool *output_mask, int output_mask_len, clops_tensor *out0,
    clops_tensor *out1, clops_tensor *out2)
{
    clops_tensor *r[3] = {NULL, NULL, NULL}, *d[3] = {out0, out1, out2};
    clops_tensor *ins[7] = {grad_out, input, weight, running_mean, running_var, save_mean,
                            save_invstd};
    clops_status st = norm_native_batch_norm_backward(
        grad_out, input, weight, running_mean, running_var, save_mean, save_invstd, train, eps,
        output_mask, output_mask_len, &r[0], &r[1], &r[2]);
    if (st)
        return st;
    return norm_store3("native_batch_norm_backward", r, d, ins, 7);
}
