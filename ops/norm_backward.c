/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ops/norm_backward.c: native_layer_norm_backward and
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
 */
#include <string.h>

#include "clops/ops.h"
#include "ops/core.h"
#include "ops/kernels_generated.h"
#include "ops/reduce.h"

#define NB_TEMPS 16

/* The temporaries of one backward call, released together. */
typedef struct nb_ctx {
    clops_tensor *t[NB_TEMPS];
    int n;
} nb_ctx;

/* Keeps t for release; returns it. */
static clops_tensor *keep(nb_ctx *c, clops_tensor *t)
{
    if (c->n < NB_TEMPS)
        c->t[c->n++] = t;
    return t;
}

static void release_all(nb_ctx *c)
{
    for (int i = 0; i < c->n; i++)
        clops_tensor_release(c->t[i]);
    c->n = 0;
}

/* t cast to dtype (kept). */
static clops_status as(nb_ctx *c, const char *op, clops_tensor *t, clops_dtype dt,
                       clops_tensor **out)
{
    clops_status st = reduce_cast_input(op, t, dt, out);
    if (!st)
        keep(c, *out);
    return st;
}

/* a * b, a - b (kept). */
static clops_status mul(nb_ctx *c, clops_tensor *a, clops_tensor *b, clops_tensor **out)
{
    clops_status st = clops_mul(a, b, out);
    if (!st)
        keep(c, *out);
    return st;
}

static clops_status sub(nb_ctx *c, clops_tensor *a, clops_tensor *b, clops_tensor **out)
{
    clops_status st = clops_sub(a, b, clops_scalar_int(1), out);
    if (!st)
        keep(c, *out);
    return st;
}

/* mean over the last nsl dims, kept as size 1 (kept). */
static clops_status row_mean(nb_ctx *c, clops_tensor *t, int nsl, clops_tensor **out)
{
    int64_t dims[CLOPS_MAX_DIMS];
    for (int i = 0; i < nsl; i++)
        dims[i] = t->ndim - nsl + i;
    clops_status st = clops_mean_dim(t, dims, nsl, true, CLOPS_DTYPE_NONE, out);
    if (!st)
        keep(c, *out);
    return st;
}

/* sum over the leading dims (all but the last nsl), cast to dt: a new
 * reference the caller owns. */
static clops_status lead_sum(clops_tensor *t, int nsl, clops_dtype dt, clops_tensor **out)
{
    int nlead = t->ndim - nsl;
    int64_t dims[CLOPS_MAX_DIMS];
    for (int i = 0; i < nlead; i++)
        dims[i] = i;
    if (nlead == 0)
        return core_to_copy(t, dt, NULL, out);
    return clops_sum_dim_intlist(t, dims, nlead, false, dt, out);
}

/* The shared body: dx, dw, db into *o0, *o1, *o2 (NULL when not asked). */
static clops_status backward(const char *op, bool rms, clops_tensor *grad, clops_tensor *input,
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
    clops_dtype ct = input->dtype == CLOPS_FLOAT64 ? CLOPS_FLOAT64 : CLOPS_FLOAT32;
    nb_ctx c = {0};
    clops_tensor *x, *g, *r, *m = NULL, *w = NULL, *xhat, *gw, *t1, *dx = NULL;
    clops_status st = as(&c, op, input, ct, &x);
    if (!st)
        st = as(&c, op, grad, ct, &g);
    if (!st)
        st = as(&c, op, rstd, ct, &r);
    if (!st && !rms)
        st = as(&c, op, mean, ct, &m);
    if (!st && weight)
        st = as(&c, op, weight, ct, &w);
    /* xhat */
    if (!st && !rms) {
        st = sub(&c, x, m, &t1);
        if (!st)
            st = mul(&c, t1, r, &xhat);
    } else if (!st) {
        st = mul(&c, x, r, &xhat);
    }
    if (!st && mask[0]) {
        gw = g;
        clops_tensor *c1, *c2, *gx, *a, *b2;
        if (w)
            st = mul(&c, g, w, &gw);
        if (!st)
            st = mul(&c, gw, xhat, &gx);
        if (!st)
            st = row_mean(&c, gx, nsl, &c2);
        if (!st)
            st = mul(&c, xhat, c2, &b2);
        if (!st)
            st = sub(&c, gw, b2, &a);
        if (!st && !rms) {
            st = row_mean(&c, gw, nsl, &c1);
            if (!st)
                st = sub(&c, a, c1, &a);
        }
        if (!st)
            st = mul(&c, a, r, &t1);
        if (!st)
            st = core_to_copy(t1, input->dtype, NULL, &dx);
    }
    clops_tensor *dw = NULL, *db = NULL, *gx2;
    if (!st && mask[1] && weight) {
        st = mul(&c, g, xhat, &gx2);
        if (!st)
            st = lead_sum(gx2, nsl, weight->dtype, &dw);
    }
    if (!st && !rms && mask[2] && bias)
        st = lead_sum(g, nsl, bias->dtype, &db);
    release_all(&c);
    if (st) {
        clops_tensor_release(dx);
        clops_tensor_release(dw);
        clops_tensor_release(db);
        return st;
    }
    *o0 = dx;
    *o1 = dw;
    if (o2)
        *o2 = db;
    return CLOPS_OK;
}

clops_status norm_native_layer_norm_backward(clops_tensor *grad_out, clops_tensor *input,
                                             const int64_t *normalized_shape,
                                             int normalized_shape_len, clops_tensor *mean,
                                             clops_tensor *rstd, clops_tensor *weight,
                                             clops_tensor *bias, const bool *output_mask,
                                             int output_mask_len, clops_tensor **out0,
                                             clops_tensor **out1, clops_tensor **out2)
{
    for (int i = 0; i < normalized_shape_len && i < input->ndim; i++)
        if (input->sizes[input->ndim - normalized_shape_len + i] != normalized_shape[i])
            return clops__fail(CLOPS_INVALID_SHAPE,
                               "native_layer_norm_backward: normalized_shape does not match the "
                               "input's trailing dims");
    if (output_mask_len != 3)
        return clops__fail(CLOPS_INVALID_ARGUMENT,
                           "native_layer_norm_backward: output_mask needs 3 entries");
    return backward("native_layer_norm_backward", false, grad_out, input, normalized_shape_len,
                    mean, rstd, weight, bias, output_mask, out0, out1, out2);
}

clops_status norm_fused_rms_norm_backward(clops_tensor *grad_out, clops_tensor *input,
                                          const int64_t *normalized_shape,
                                          int normalized_shape_len, clops_tensor *rstd,
                                          clops_tensor *weight, const bool *output_mask,
                                          int output_mask_len, clops_tensor **out0,
                                          clops_tensor **out1)
{
    for (int i = 0; i < normalized_shape_len && i < input->ndim; i++)
        if (input->sizes[input->ndim - normalized_shape_len + i] != normalized_shape[i])
            return clops__fail(CLOPS_INVALID_SHAPE,
                               "_fused_rms_norm_backward: normalized_shape does not match the "
                               "input's trailing dims");
    if (output_mask_len != 2)
        return clops__fail(CLOPS_INVALID_ARGUMENT,
                           "_fused_rms_norm_backward: output_mask needs 2 entries");
    return backward("_fused_rms_norm_backward", true, grad_out, input, normalized_shape_len,
                    NULL, rstd, weight, NULL, output_mask, out0, out1, NULL);
}
