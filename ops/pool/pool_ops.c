/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ops/pool/pool_ops.c: the pooling operators of dispatch/inventory/pool.yaml:
 * max_pool2d/3d_with_indices and their backward ops, avg_pool2d/3d and
 * their backward ops, _adaptive_avg_pool2d (+ backward) and
 * adaptive_max_pool2d (+ backward), with PyTorch's argument rules, output
 * sizes and error texts.  Each op fills a pool_geom and calls pool_run
 * (ops/pool/pool.c) on the structured target(s).
 */
#include <stdio.h>
#include <string.h>

#include "host/host.h"
#include "ops/kernels_generated.h"
#include "ops/pool/pool.h"

/* The spatial extents of x as a "CxHxW"-style text. */
static const char *dims_text(char *buf, size_t cap, int n, const int64_t *v)
{
    size_t at = 0;
    buf[0] = 0;
    for (int i = 0; i < n && at < cap; i++)
        at += (size_t)snprintf(buf + at, cap - at, "%s%lld", i ? "x" : "", (long long)v[i]);
    return buf;
}

/* Checks x for an op over nsp spatial dims: floating, nsp + 1 or nsp + 2
 * dims, every dim but the batch non-zero. */
static clops_status check_input(const char *op, const clops_tensor *x, int nsp)
{
    char a[400];
    clops__fmt_shape(a, sizeof a, x->ndim, x->sizes);
    const char *dev = x->storage->device->label;
    if (!clops_dtype_is_floating(x->dtype))
        return clops__fail(CLOPS_INVALID_DTYPE, "%s: not implemented for '%s' (input %s on %s)",
                           op, clops_dtype_name(x->dtype), a, dev);
    bool ok = x->ndim == nsp + 1 || x->ndim == nsp + 2;
    for (int d = x->ndim == nsp + 2 ? 1 : 0; ok && d < x->ndim; d++)
        ok = x->sizes[d] > 0;
    if (!ok)
        return clops__fail(CLOPS_INVALID_SHAPE,
                           "%s: Expected %dD or %dD (batch mode) tensor with optional 0 dim "
                           "batch size for input, but got %s (%s on %s)",
                           op, nsp + 1, nsp + 2, a, clops_dtype_name(x->dtype), dev);
    return CLOPS_OK;
}

/* One int[nsp] argument: a single value repeated, or nsp values; empty
 * takes dflt (NULL: not allowed). */
static clops_status int_arg(const char *op, const char *name, int nsp, const int64_t *v, int n,
                            const int64_t *dflt, int64_t *out)
{
    if ((!v || n == 0) && dflt) {
        memcpy(out, dflt, sizeof(int64_t) * (size_t)nsp);
        return CLOPS_OK;
    }
    if (!v || (n != 1 && n != nsp))
        return clops__fail(CLOPS_INVALID_ARGUMENT,
                           "%s: %s must either be a single int, or a tuple of %d ints", op, name,
                           nsp);
    for (int i = 0; i < nsp; i++)
        out[i] = v[n == 1 ? 0 : i];
    return CLOPS_OK;
}

/* The geometry of a fixed-window pooling call on x (nsp spatial dims):
 * arguments parsed and checked as PyTorch's pool2d/3d_shape_check, output
 * extents by pooling_output_shape. */
static clops_status pool_geometry(const char *op, const clops_tensor *x, int nsp,
                                  const int64_t *ks, int nks, const int64_t *sv, int ns,
                                  const int64_t *pv, int np, const int64_t *dv, int nd,
                                  bool ceil_mode, pool_geom *g)
{
    clops_status st = check_input(op, x, nsp);
    int64_t k[3], s[3], p[3], dl[3];
    const int64_t zero[3] = {0, 0, 0}, one[3] = {1, 1, 1};
    if (!st)
        st = int_arg(op, "kernel_size", nsp, ks, nks, NULL, k);
    if (!st)
        st = int_arg(op, "stride", nsp, sv, ns, k, s);
    if (!st)
        st = int_arg(op, "padding", nsp, pv, np, zero, p);
    if (!st)
        st = int_arg(op, "dilation", nsp, dv, nd, one, dl);
    if (st)
        return st;
    memset(g, 0, sizeof *g);
    int lead = x->ndim - nsp;
    g->N = lead == 2 ? x->sizes[0] : 1;
    g->C = x->sizes[lead - 1];
    for (int d = 0; d < 3; d++) {
        int i = d - (3 - nsp); /* index into the nsp-long arrays, < 0 for D of 2-D */
        g->in[d] = i < 0 ? 1 : x->sizes[lead + i];
        g->k[d] = i < 0 ? 1 : k[i];
        g->s[d] = i < 0 ? 1 : s[i];
        g->p[d] = i < 0 ? 0 : p[i];
        g->dil[d] = i < 0 ? 1 : dl[i];
        if (g->k[d] <= 0 || g->s[d] <= 0 || g->dil[d] <= 0 || g->p[d] < 0)
            return clops__fail(CLOPS_INVALID_ARGUMENT,
                               "%s: kernel size, stride and dilation should be greater than "
                               "zero and padding non-negative, but got kernel_size=%lld, "
                               "stride=%lld, padding=%lld, dilation=%lld",
                               op, (long long)g->k[d], (long long)g->s[d], (long long)g->p[d],
                               (long long)g->dil[d]);
        int64_t ek = 0; /* the effective kernel size, (k - 1) * dilation + 1 */
        if (!geom_mul(g->k[d] - 1, g->dil[d], &ek) || !geom_add(ek, 1, &ek))
            return clops__fail(CLOPS_INVALID_SHAPE,
                               "%s: kernel_size=%lld with dilation=%lld gives an effective "
                               "kernel size that overflows int64",
                               op, (long long)g->k[d], (long long)g->dil[d]);
        if (g->p[d] > ek / 2)
            return clops__fail(CLOPS_INVALID_ARGUMENT,
                               "%s: pad should be at most half of effective kernel size, but "
                               "got pad=%lld, kernel_size=%lld and dilation=%lld",
                               op, (long long)g->p[d], (long long)g->k[d], (long long)g->dil[d]);
        g->out[d] = pool_out_size(g->in[d], g->k[d], g->p[d], g->s[d], g->dil[d], ceil_mode);
    }
    if (g->out[0] < 1 || g->out[1] < 1 || g->out[2] < 1) {
        char a[128], b[128];
        int64_t iv[4] = {g->C, g->in[3 - nsp], g->in[4 - nsp], g->in[2]};
        int64_t ov[4] = {g->C, g->out[3 - nsp], g->out[4 - nsp], g->out[2]};
        return clops__fail(CLOPS_INVALID_SHAPE,
                           "%s: Given input size: (%s). Calculated output size: (%s). Output "
                           "size is too small",
                           op, dims_text(a, sizeof a, nsp + 1, iv),
                           dims_text(b, sizeof b, nsp + 1, ov));
    }
    return CLOPS_OK;
}

/* The shape of a pooling result: x's leading dims, then g's outputs. */
static int out_shape(const clops_tensor *x, int nsp, const pool_geom *g, int64_t *sz)
{
    int lead = x->ndim - nsp;
    for (int i = 0; i < lead; i++)
        sz[i] = x->sizes[i];
    for (int i = 0; i < nsp; i++)
        sz[lead + i] = g->out[3 - nsp + i];
    return x->ndim;
}

/* Runs a (values, indices) forward into d0/d1 (functional when PW_FUNCTIONAL). */
static clops_status run_pair(const char *op, pw_variant variant, clops_tensor *x, int nsp,
                             const pool_geom *g, clops_tensor *d0, clops_tensor *d1,
                             clops_tensor **o0, clops_tensor **o1)
{
    int64_t sz[5];
    int nd = out_shape(x, nsp, g, sz);
    structured_call c0, c1;
    clops_tensor *ins0[2] = {x, d1}, *ins1[2] = {x, d0}, *f0 = NULL, *f1 = NULL;
    clops_status st = pool_begin(&c0, op, variant, d0, x, x->dtype, nd, sz, ins0, 2, &f0);
    if (st)
        return st;
    st = pool_begin(&c1, op, variant, d1, x, CLOPS_INT64, nd, sz, ins1, 2, &f1);
    if (st)
        return pool_finish(&c0, st, f0, NULL);
    st = pool_run(op, POOL_MAX_FWD, g, nsp, x, c0.target, c1.target);
    clops_status s0 = pool_finish(&c0, st, f0, o0);
    clops_status s1 = pool_finish(&c1, s0 ? s0 : st, f1, o1);
    if (s1 && !s0 && o0 && *o0) {
        clops_tensor_release(*o0);
        *o0 = NULL;
    }
    return s0 ? s0 : s1;
}

/* max_pool{2,3}d_with_indices in every form. */
static clops_status max_pool(const char *op, int nsp, pw_variant variant, clops_tensor *self,
                             const int64_t *ks, int nks, const int64_t *sv, int ns,
                             const int64_t *pv, int np, const int64_t *dv, int nd, bool ceil_mode,
                             clops_tensor *d0, clops_tensor *d1, clops_tensor **o0,
                             clops_tensor **o1)
{
    pool_geom g;
    clops_status st = pool_geometry(op, self, nsp, ks, nks, sv, ns, pv, np, dv, nd, ceil_mode, &g);
    return st ? st : run_pair(op, variant, self, nsp, &g, d0, d1, o0, o1);
}

clops_status pool_max_pool2d_with_indices(clops_tensor *self, const int64_t *kernel_size,
                                          int kernel_size_len, const int64_t *stride,
                                          int stride_len, const int64_t *padding, int padding_len,
                                          const int64_t *dilation, int dilation_len,
                                          bool ceil_mode, clops_tensor **out0,
                                          clops_tensor **out1)
{
    return max_pool("max_pool2d_with_indices", 2, PW_FUNCTIONAL, self, kernel_size,
                    kernel_size_len, stride, stride_len, padding, padding_len, dilation,
                    dilation_len, ceil_mode, NULL, NULL, out0, out1);
}

clops_status pool_max_pool2d_with_indices_out(clops_tensor *self, const int64_t *kernel_size,
                                              int kernel_size_len, const int64_t *stride,
                                              int stride_len, const int64_t *padding,
                                              int padding_len, const int64_t *dilation,
                                              int dilation_len, bool ceil_mode, clops_tensor *out,
                                              clops_tensor *indices)
{
    return max_pool("max_pool2d_with_indices", 2, PW_OUT, self, kernel_size, kernel_size_len,
                    stride, stride_len, padding, padding_len, dilation, dilation_len, ceil_mode,
                    out, indices, NULL, NULL);
}

clops_status pool_max_pool3d_with_indices(clops_tensor *self, const int64_t *kernel_size,
                                          int kernel_size_len, const int64_t *stride,
                                          int stride_len, const int64_t *padding, int padding_len,
                                          const int64_t *dilation, int dilation_len,
                                          bool ceil_mode, clops_tensor **out0,
                                          clops_tensor **out1)
{
    return max_pool("max_pool3d_with_indices", 3, PW_FUNCTIONAL, self, kernel_size,
                    kernel_size_len, stride, stride_len, padding, padding_len, dilation,
                    dilation_len, ceil_mode, NULL, NULL, out0, out1);
}

clops_status pool_max_pool3d_with_indices_out(clops_tensor *self, const int64_t *kernel_size,
                                              int kernel_size_len, const int64_t *stride,
                                              int stride_len, const int64_t *padding,
                                              int padding_len, const int64_t *dilation,
                                              int dilation_len, bool ceil_mode, clops_tensor *out,
                                              clops_tensor *indices)
{
    return max_pool("max_pool3d_with_indices", 3, PW_OUT, self, kernel_size, kernel_size_len,
                    stride, stride_len, padding, padding_len, dilation, dilation_len, ceil_mode,
                    out, indices, NULL, NULL);
}

/* Checks that grad (and indices, may be NULL) have the pooling output's
 * shape for input self, and grad self's dtype and device. */
static clops_status check_grad(const char *op, const clops_tensor *grad, const clops_tensor *self,
                               const clops_tensor *indices, int nsp, const pool_geom *g)
{
    int64_t sz[5];
    int nd = out_shape(self, nsp, g, sz);
    char a[400], b[400];
    const clops_tensor *ts[2] = {grad, indices};
    for (int i = 0; i < 2; i++) {
        const clops_tensor *t = ts[i];
        if (!t)
            continue;
        if (t->ndim != nd || memcmp(t->sizes, sz, sizeof(int64_t) * (size_t)nd) != 0)
            return clops__fail(CLOPS_INVALID_SHAPE,
                               "%s: expected %s of shape %s (the output for input %s), got %s",
                               op, i ? "indices" : "grad_output",
                               clops__fmt_shape(a, sizeof a, nd, sz),
                               clops__fmt_shape(b, sizeof b, self->ndim, self->sizes),
                               clops__fmt_shape(a, sizeof a, t->ndim, t->sizes));
        if (t->storage->device != self->storage->device)
            return clops__fail(CLOPS_DEVICE_MISMATCH, "%s: %s is on %s, input on %s", op,
                               i ? "indices" : "grad_output", t->storage->device->label,
                               self->storage->device->label);
    }
    if (grad->dtype != self->dtype)
        return clops__fail(CLOPS_INVALID_DTYPE,
                           "%s: expected grad_output of the input's dtype %s, got %s", op,
                           clops_dtype_name(self->dtype), clops_dtype_name(grad->dtype));
    if (indices && indices->dtype != CLOPS_INT64)
        return clops__fail(CLOPS_INVALID_DTYPE, "%s: expected int64 indices, got %s", op,
                           clops_dtype_name(indices->dtype));
    return CLOPS_OK;
}

/* The backward of a max pooling (fixed windows from the arguments, or
 * adaptive ones when g is given): grad_input of self's shape. */
static clops_status max_backward(const char *op, int nsp, pw_variant variant, clops_tensor *dst,
                                 clops_tensor *grad, clops_tensor *self, const pool_geom *g,
                                 clops_tensor *indices, clops_tensor **out)
{
    clops_status st = check_grad(op, grad, self, indices, nsp, g);
    if (st)
        return st;
    structured_call c;
    clops_tensor *ins[3] = {grad, self, indices}, *f = NULL;
    st = pool_begin(&c, op, variant, dst, self, self->dtype, self->ndim, self->sizes, ins, 3, &f);
    if (st)
        return st;
    st = pool_run(op, POOL_MAX_BWD, g, nsp, grad, indices, c.target);
    return pool_finish(&c, st, f, out);
}

clops_status pool_max_pool2d_backward(pw_variant variant, clops_tensor *dst,
                                      clops_tensor *grad_output, clops_tensor *self,
                                      const int64_t *kernel_size, int kernel_size_len,
                                      const int64_t *stride, int stride_len,
                                      const int64_t *padding, int padding_len,
                                      const int64_t *dilation, int dilation_len, bool ceil_mode,
                                      clops_tensor *indices, clops_tensor **out)
{
    const char *op = "max_pool2d_with_indices_backward";
    pool_geom g;
    clops_status st = pool_geometry(op, self, 2, kernel_size, kernel_size_len, stride, stride_len,
                                    padding, padding_len, dilation, dilation_len, ceil_mode, &g);
    return st ? st : max_backward(op, 2, variant, dst, grad_output, self, &g, indices, out);
}

clops_status pool_max_pool3d_backward(pw_variant variant, clops_tensor *dst,
                                      clops_tensor *grad_output, clops_tensor *self,
                                      const int64_t *kernel_size, int kernel_size_len,
                                      const int64_t *stride, int stride_len,
                                      const int64_t *padding, int padding_len,
                                      const int64_t *dilation, int dilation_len, bool ceil_mode,
                                      clops_tensor *indices, clops_tensor **out)
{
    const char *op = "max_pool3d_with_indices_backward";
    pool_geom g;
    clops_status st = pool_geometry(op, self, 3, kernel_size, kernel_size_len, stride, stride_len,
                                    padding, padding_len, dilation, dilation_len, ceil_mode, &g);
    return st ? st : max_backward(op, 3, variant, dst, grad_output, self, &g, indices, out);
}

/* avg_pool{2,3}d's geometry (no dilation) with its flags. */
static clops_status avg_geometry(const char *op, int nsp, const clops_tensor *self,
                                 const int64_t *ks, int nks, const int64_t *sv, int ns,
                                 const int64_t *pv, int np, bool ceil_mode,
                                 bool count_include_pad, const int64_t *divisor_override,
                                 pool_geom *g)
{
    clops_status st =
        pool_geometry(op, self, nsp, ks, nks, sv, ns, pv, np, NULL, 0, ceil_mode, g);
    if (st)
        return st;
    if (divisor_override && *divisor_override == 0)
        return clops__fail(CLOPS_INVALID_ARGUMENT, "%s: divisor must be not zero", op);
    g->flag = count_include_pad;
    g->divisor = divisor_override ? *divisor_override : 0;
    return CLOPS_OK;
}

/* avg_pool{2,3}d in every form. */
static clops_status avg_pool(const char *op, int nsp, pw_variant variant, clops_tensor *dst,
                             clops_tensor *self, const int64_t *ks, int nks, const int64_t *sv,
                             int ns, const int64_t *pv, int np, bool ceil_mode,
                             bool count_include_pad, const int64_t *divisor_override,
                             clops_tensor **out)
{
    pool_geom g;
    clops_status st = avg_geometry(op, nsp, self, ks, nks, sv, ns, pv, np, ceil_mode,
                                   count_include_pad, divisor_override, &g);
    if (st)
        return st;
    int64_t sz[5];
    int nd = out_shape(self, nsp, &g, sz);
    structured_call c;
    clops_tensor *f = NULL;
    st = pool_begin(&c, op, variant, dst, self, self->dtype, nd, sz, &self, 1, &f);
    if (st)
        return st;
    st = pool_run(op, POOL_AVG_FWD, &g, nsp, self, c.target, NULL);
    return pool_finish(&c, st, f, out);
}

clops_status pool_avg_pool2d(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                             const int64_t *kernel_size, int kernel_size_len,
                             const int64_t *stride, int stride_len, const int64_t *padding,
                             int padding_len, bool ceil_mode, bool count_include_pad,
                             const int64_t *divisor_override, clops_tensor **out)
{
    return avg_pool("avg_pool2d", 2, variant, dst, self, kernel_size, kernel_size_len, stride,
                    stride_len, padding, padding_len, ceil_mode, count_include_pad,
                    divisor_override, out);
}

clops_status pool_avg_pool3d(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                             const int64_t *kernel_size, int kernel_size_len,
                             const int64_t *stride, int stride_len, const int64_t *padding,
                             int padding_len, bool ceil_mode, bool count_include_pad,
                             const int64_t *divisor_override, clops_tensor **out)
{
    return avg_pool("avg_pool3d", 3, variant, dst, self, kernel_size, kernel_size_len, stride,
                    stride_len, padding, padding_len, ceil_mode, count_include_pad,
                    divisor_override, out);
}

/* The backward of a pooling without indices (average, fixed or adaptive):
 * grad_input of self's shape. */
static clops_status avg_backward(const char *op, int nsp, pw_variant variant, clops_tensor *dst,
                                 clops_tensor *grad, clops_tensor *self, const pool_geom *g,
                                 clops_tensor **out)
{
    clops_status st = check_grad(op, grad, self, NULL, nsp, g);
    if (st)
        return st;
    structured_call c;
    clops_tensor *ins[2] = {grad, self}, *f = NULL;
    st = pool_begin(&c, op, variant, dst, self, self->dtype, self->ndim, self->sizes, ins, 2, &f);
    if (st)
        return st;
    st = pool_run(op, POOL_AVG_BWD, g, nsp, grad, c.target, NULL);
    return pool_finish(&c, st, f, out);
}

clops_status pool_avg_pool2d_backward(pw_variant variant, clops_tensor *dst,
                                      clops_tensor *grad_output, clops_tensor *self,
                                      const int64_t *kernel_size, int kernel_size_len,
                                      const int64_t *stride, int stride_len,
                                      const int64_t *padding, int padding_len, bool ceil_mode,
                                      bool count_include_pad, const int64_t *divisor_override,
                                      clops_tensor **out)
{
    const char *op = "avg_pool2d_backward";
    pool_geom g;
    clops_status st = avg_geometry(op, 2, self, kernel_size, kernel_size_len, stride, stride_len,
                                   padding, padding_len, ceil_mode, count_include_pad,
                                   divisor_override, &g);
    return st ? st : avg_backward(op, 2, variant, dst, grad_output, self, &g, out);
}

clops_status pool_avg_pool3d_backward(pw_variant variant, clops_tensor *dst,
                                      clops_tensor *grad_output, clops_tensor *self,
                                      const int64_t *kernel_size, int kernel_size_len,
                                      const int64_t *stride, int stride_len,
                                      const int64_t *padding, int padding_len, bool ceil_mode,
                                      bool count_include_pad, const int64_t *divisor_override,
                                      clops_tensor **out)
{
    const char *op = "avg_pool3d_backward";
    pool_geom g;
    clops_status st = avg_geometry(op, 3, self, kernel_size, kernel_size_len, stride, stride_len,
                                   padding, padding_len, ceil_mode, count_include_pad,
                                   divisor_override, &g);
    return st ? st : avg_backward(op, 3, variant, dst, grad_output, self, &g, out);
}

/* The geometry of an adaptive 2-D pooling of x to output_size. */
static clops_status adaptive_geometry(const char *op, const clops_tensor *x, const int64_t *os,
                                      int nos, pool_geom *g)
{
    clops_status st = check_input(op, x, 2);
    if (st)
        return st;
    if (!os || nos != 2)
        return clops__fail(CLOPS_INVALID_ARGUMENT, "%s: output_size must be 2", op);
    if (os[0] < 0 || os[1] < 0)
        return clops__fail(CLOPS_INVALID_ARGUMENT,
                           "%s: elements of output_size must be greater than or equal to 0 but "
                           "received {%lld, %lld}",
                           op, (long long)os[0], (long long)os[1]);
    memset(g, 0, sizeof *g);
    int lead = x->ndim - 2;
    g->N = lead == 2 ? x->sizes[0] : 1;
    g->C = x->sizes[lead - 1];
    g->in[0] = g->out[0] = g->k[0] = g->s[0] = g->dil[0] = 1;
    for (int d = 1; d < 3; d++) {
        g->in[d] = x->sizes[lead + d - 1];
        g->out[d] = os[d - 1];
        g->k[d] = g->s[d] = g->dil[d] = 1;
    }
    g->adaptive = 1;
    return CLOPS_OK;
}

clops_status pool_adaptive_avg_pool2d(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                                      const int64_t *output_size, int output_size_len,
                                      clops_tensor **out)
{
    const char *op = "_adaptive_avg_pool2d";
    pool_geom g;
    clops_status st = adaptive_geometry(op, self, output_size, output_size_len, &g);
    if (st)
        return st;
    int64_t sz[4];
    int nd = out_shape(self, 2, &g, sz);
    structured_call c;
    clops_tensor *f = NULL;
    st = pool_begin(&c, op, variant, dst, self, self->dtype, nd, sz, &self, 1, &f);
    if (st)
        return st;
    st = pool_run(op, POOL_AVG_FWD, &g, 2, self, c.target, NULL);
    return pool_finish(&c, st, f, out);
}

clops_status pool_adaptive_avg_pool2d_backward(pw_variant variant, clops_tensor *dst,
                                               clops_tensor *grad_output, clops_tensor *self,
                                               clops_tensor **out)
{
    const char *op = "_adaptive_avg_pool2d_backward";
    pool_geom g;
    const int64_t *os = grad_output->ndim >= 2 ? grad_output->sizes + grad_output->ndim - 2 : NULL;
    clops_status st = adaptive_geometry(op, self, os, os ? 2 : 0, &g);
    return st ? st : avg_backward(op, 2, variant, dst, grad_output, self, &g, out);
}

clops_status pool_adaptive_max_pool2d(clops_tensor *self, const int64_t *output_size,
                                      int output_size_len, clops_tensor **out0,
                                      clops_tensor **out1)
{
    pool_geom g;
    const char *op = "adaptive_max_pool2d";
    clops_status st = adaptive_geometry(op, self, output_size, output_size_len, &g);
    return st ? st : run_pair(op, PW_FUNCTIONAL, self, 2, &g, NULL, NULL, out0, out1);
}

clops_status pool_adaptive_max_pool2d_out(clops_tensor *self, const int64_t *output_size,
                                          int output_size_len, clops_tensor *out,
                                          clops_tensor *indices)
{
    pool_geom g;
    const char *op = "adaptive_max_pool2d";
    clops_status st = adaptive_geometry(op, self, output_size, output_size_len, &g);
    return st ? st : run_pair(op, PW_OUT, self, 2, &g, out, indices, NULL, NULL);
}

clops_status pool_adaptive_max_pool2d_backward(pw_variant variant, clops_tensor *dst,
                                               clops_tensor *grad_output, clops_tensor *self,
                                               clops_tensor *indices, clops_tensor **out)
{
    const char *op = "adaptive_max_pool2d_backward";
    pool_geom g;
    const int64_t *os = grad_output->ndim >= 2 ? grad_output->sizes + grad_output->ndim - 2 : NULL;
    clops_status st = adaptive_geometry(op, self, os, os ? 2 : 0, &g);
    return st ? st : max_backward(op, 2, variant, dst, grad_output, self, &g, indices, out);
}
