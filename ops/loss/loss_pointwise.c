/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ops/loss/loss_pointwise.c: the elementwise losses mse_loss,
 * binary_cross_entropy, smooth_l1_loss and huber_loss and their backward
 * ops (dispatch/inventory/loss.yaml), as structured family functions.
 *
 * self, target (and binary_cross_entropy's weight) are broadcast to one
 * shape (PyTorch broadcasts them, with a warning in Python), cast to the
 * result dtype (promoted; binary_cross_entropy requires equal dtypes) and
 * made contiguous (at storage offset 0, as the kernels read them); the
 * CPU device runs ref/loss.c, OpenCL devices the loss_pw_* kernels of
 * cl_kernels/loss.cl: reduction=none one launch,
 * mean and sum the partial launch and loss_nll_finish (the same ordered
 * tree as nll_loss, the count of elements as the divisor of mean, so an
 * empty input gives NaN as in PyTorch).  binary_cross_entropy checks its
 * input range on the device (the flag of ops/loss/loss_nll.c).
 */
#include <string.h>

#include "codegen_pointwise/pw.h"
#include "host/host.h"
#include "ops/tensor/tensor.h"
#include "ops/kernels_generated.h"
#include "ops/kit/kit.h"
#include "ops/loss/loss.h"
#include "ops/reduce/reduce.h"

/* The kernel argument of the compute type (float, or double for
 * float64). */
typedef struct ct_arg {
    float f;
    double d;
    bool dbl;
} ct_arg;

/* v as the compute type of dt. */
static ct_arg ct_of(clops_dtype dt, double v)
{
    return (ct_arg){(float)v, v, dt == CLOPS_FLOAT64};
}

/* The host_arg of c. */
static host_arg ct_host_arg(const ct_arg *c)
{
    return c->dbl ? (host_arg){sizeof c->d, &c->d} : (host_arg){sizeof c->f, &c->f};
}

/* Checks reduction and the parameter; the result dtype and broadcast
 * shape of (ts[0..n)); contiguous broadcast copies cast to it into
 * cs[0..n) (NULL entries stay NULL), except ts[one] when it has a single
 * element: cs[one] is then that element alone (one < 0: none). */
static clops_status prepare(loss_pw *p, int64_t reduction, clops_tensor *const *ts, int n,
                            int one, bool same_dtype, clops_dtype *dt, int *nd, int64_t *sz,
                            clops_tensor **cs)
{
    const char *op = p->op;
    for (int i = 0; i < n; i++) {
        if (!ts[i])
            continue;
        if (ts[i]->storage->device != ts[0]->storage->device)
            return clops__fail(CLOPS_DEVICE_MISMATCH, "%s: tensors on %s and %s", op,
                               ts[0]->storage->device->label, ts[i]->storage->device->label);
        if (!clops_dtype_is_floating(ts[i]->dtype))
            return clops__fail(CLOPS_INVALID_DTYPE, "%s: expected floating tensors, got %s (on %s)",
                               op, clops_dtype_name(ts[i]->dtype), ts[0]->storage->device->label);
        if (same_dtype && ts[i]->dtype != ts[0]->dtype)
            return clops__fail(CLOPS_INVALID_DTYPE, "%s: Found dtype %s but expected %s", op,
                               clops_dtype_name(ts[i]->dtype), clops_dtype_name(ts[0]->dtype));
    }
    if (reduction < 0 || reduction > 2)
        return clops__fail(CLOPS_INVALID_ARGUMENT,
                           "%s: reduction %lld is not 0 (none), 1 (mean) or 2 (sum)", op,
                           (long long)reduction);
    if (p->mode == LOSS_SMOOTH_L1 && !(p->p >= 0))
        return clops__fail(CLOPS_INVALID_ARGUMENT,
                           "%s: smooth_l1_loss does not support negative values for beta", op);
    if (p->mode == LOSS_HUBER && !(p->p > 0))
        return clops__fail(CLOPS_INVALID_ARGUMENT,
                           "%s: huber_loss does not support non-positive values for delta", op);
    clops_tensor *live[4];
    pw_type_operand tops[4];
    int nl = 0;
    for (int i = 0; i < n; i++)
        if (ts[i]) {
            tops[nl] = pw_tensor_operand(ts[i]->dtype, ts[i]->ndim);
            live[nl++] = ts[i];
        }
    *dt = pw_result_type(tops, nl);
    clops_status st = pw_broadcast_shape(op, (const clops_tensor *const *)live, nl, nd, sz);
    for (int i = 0; i < n && !st; i++) {
        if (!ts[i])
            continue;
        clops_tensor *e = NULL, *c = NULL;
        if (i == one && tensor_numel(ts[i]) == 1)
            st = core_reshape(ts[i], NULL, 0, &e);
        else
            st = core_expand(ts[i], sz, *nd, false, &e);
        if (!st)
            st = reduce_cast_input(op, e, *dt, &c);
        /* The kernels read the operands from element 0 of their storage. */
        if (!st)
            st = c->offset ? core_contiguous_copy(c, &cs[i]) : core_contiguous(c, &cs[i]);
        clops_tensor_release(e);
        clops_tensor_release(c);
    }
    p->M = 1;
    for (int i = 0; i < *nd; i++)
        p->M *= sz[i];
    p->per_elem = reduction == 0;
    p->mean = reduction == 1;
    return st;
}

/* The OpenCL forward into contiguous out. */
static clops_status forward_cl(const loss_pw *p, clops_tensor *out)
{
    clops_device *d = p->x->storage->device;
    clops_dtype dt = p->x->dtype;
    host_block *eb = NULL, *pb = NULL;
    host_kernel *k = NULL;
    cl_mem xm = p->x->storage->block ? p->x->storage->block->mem : NULL;
    cl_mem ym = p->y->storage->block ? p->y->storage->block->mem : NULL;
    cl_mem wm = p->w && p->w->storage->block ? p->w->storage->block->mem : xm;
    cl_mem om = out->storage->block ? out->storage->block->mem : NULL;
    cl_long oo = out->offset, M = p->M;
    cl_int hasw = p->w != NULL, mode = (cl_int)p->mode, mean = p->mean;
    ct_arg pa = ct_of(dt, p->p);
    clops_status st = loss_flag_new(d, &eb);
    cl_mem em = eb ? eb->mem : NULL;
    if (p->per_elem) {
        if (!st && M > 0)
            st = loss_kernel(d, 4, dt, p->op, &k);
        if (!st && M > 0) {
            host_arg a[] = {{sizeof xm, &xm}, {sizeof ym, &ym}, {sizeof wm, &wm},
                            {sizeof hasw, &hasw}, {sizeof om, &om}, {sizeof oo, &oo},
                            {sizeof M, &M}, {sizeof mode, &mode}, ct_host_arg(&pa),
                            {sizeof em, &em}};
            st = host_launch_items(d, k, (int)(sizeof a / sizeof a[0]), a, (uint64_t)M);
        }
        return loss_flag_check(p->op, d, eb, st, 0);
    }
    int64_t wg = (int64_t)reduce_wg(d), groups = (M + wg - 1) / wg;
    if (groups > LOSS_MAX_PARTS)
        groups = LOSS_MAX_PARTS;
    cl_long chunk = groups ? (M + groups - 1) / groups : 0;
    groups = chunk ? (M + chunk - 1) / chunk : 0;
    if (!st)
        st = host_alloc(d, (size_t)(groups > 0 ? groups : 1) * 2 * (pa.dbl ? 8 : 4), &pb);
    cl_mem pm = pb ? pb->mem : NULL;
    /* CPU devices: each group's lanes and tree in one work item
     * (loss_pw_part_cpu, the same order). */
    bool cpu = kit_is_cpu(d);
    if (!st && groups > 0)
        st = loss_kernel(d, cpu ? 8 : 5, dt, p->op, &k);
    if (!st && groups > 0) {
        host_arg a[] = {{sizeof xm, &xm}, {sizeof ym, &ym}, {sizeof wm, &wm},
                        {sizeof hasw, &hasw}, {sizeof pm, &pm}, {sizeof M, &M},
                        {sizeof chunk, &chunk}, {sizeof mode, &mode}, ct_host_arg(&pa),
                        {sizeof em, &em}};
        st = cpu ? host_launch_local(d, k, (int)(sizeof a / sizeof a[0]), a, (size_t)groups, 1)
                 : host_launch(d, k, (int)(sizeof a / sizeof a[0]), a, (size_t)(groups * wg));
    }
    if (!st)
        st = loss_kernel(d, 2, dt, p->op, &k);
    if (!st) {
        /* total_weight goes to a scratch slot after the partials. */
        cl_long np = groups, two = 0;
        host_block *tb = NULL;
        st = host_alloc(d, 8, &tb);
        cl_mem tm = tb ? tb->mem : NULL;
        host_arg a[] = {{sizeof pm, &pm}, {sizeof np, &np},   {sizeof om, &om}, {sizeof oo, &oo},
                        {sizeof tm, &tm}, {sizeof two, &two}, {sizeof mean, &mean}};
        if (!st)
            st = host_launch(d, k, (int)(sizeof a / sizeof a[0]), a, (size_t)wg);
        host_free(tb);
    }
    host_free(pb);
    return loss_flag_check(p->op, d, eb, st, 0);
}

/* The forward of an elementwise loss, any variant. */
static clops_status pw_forward(const char *op, loss_pw_mode mode, double param,
                               pw_variant variant, clops_tensor *dst, clops_tensor *self,
                               clops_tensor *target, clops_tensor *weight, int64_t reduction,
                               clops_tensor **out)
{
    loss_pw p = {.op = op, .mode = mode, .p = param};
    clops_tensor *ts[3] = {self, target, weight}, *cs[3] = {NULL, NULL, NULL};
    clops_dtype dt = CLOPS_FLOAT32;
    int nd = 0;
    int64_t sz[CLOPS_MAX_DIMS];
    clops_status st = prepare(&p, reduction, ts, 3, -1, mode == LOSS_BCE, &dt, &nd, sz, cs);
    structured_call c;
    memset(&c, 0, sizeof c);
    if (!st)
        st = structured_begin(&c, op, variant, dst, self->storage->device, dt,
                              p.per_elem ? nd : 0, sz, ts, 3);
    if (st) {
        for (int i = 0; i < 3; i++)
            clops_tensor_release(cs[i]);
        return st;
    }
    p.x = cs[0];
    p.y = cs[1];
    p.w = cs[2];
    clops_tensor *o = NULL;
    st = core_contiguous(c.target, &o);
    if (!st)
        st = kit_is_host(o->storage->device) ? loss_ref_pw_forward(&p, o) : forward_cl(&p, o);
    if (!st && o != c.target)
        st = core_copy_(c.target, o, false);
    clops_tensor_release(o);
    for (int i = 0; i < 3; i++)
        clops_tensor_release(cs[i]);
    return structured_finish(&c, st, out);
}

/* The OpenCL backward into contiguous gi. */
static clops_status backward_cl(const loss_pw *p, const clops_tensor *go, double norm,
                                clops_tensor *gi)
{
    if (p->M == 0)
        return CLOPS_OK;
    clops_device *d = p->x->storage->device;
    clops_dtype dt = p->x->dtype;
    host_kernel *k = NULL;
    /* CPU devices: loss_pw_backward_cpu, a single-element grad_output
     * (prepare left it unexpanded) read as one value */
    bool cpu = kit_is_cpu(d);
    clops_status st = loss_kernel(d, cpu ? 9 : 6, dt, p->op, &k);
    if (st)
        return st;
    cl_mem gm = go->storage->block->mem, xm = p->x->storage->block->mem;
    cl_mem ym = p->y->storage->block->mem, wm = p->w ? p->w->storage->block->mem : xm;
    cl_mem gim = gi->storage->block->mem;
    cl_long gio = gi->offset, M = p->M, gstep = tensor_numel(go) == M ? 1 : 0;
    cl_int hasw = p->w != NULL, mode = (cl_int)p->mode;
    ct_arg pa = ct_of(dt, p->p), nrm = ct_of(dt, norm);
    host_arg a[12];
    int na = 0;
    a[na++] = (host_arg){sizeof gm, &gm};
    if (cpu) /* the GPU kernel has no gstep */
        a[na++] = (host_arg){sizeof gstep, &gstep};
    a[na++] = (host_arg){sizeof xm, &xm};
    a[na++] = (host_arg){sizeof ym, &ym};
    a[na++] = (host_arg){sizeof wm, &wm};
    a[na++] = (host_arg){sizeof hasw, &hasw};
    a[na++] = (host_arg){sizeof gim, &gim};
    a[na++] = (host_arg){sizeof gio, &gio};
    a[na++] = (host_arg){sizeof M, &M};
    a[na++] = (host_arg){sizeof mode, &mode};
    a[na++] = ct_host_arg(&pa);
    a[na++] = ct_host_arg(&nrm);
    return host_launch_items(d, k, na, a, (uint64_t)M);
}

/* The backward of an elementwise loss, any variant: grad_input of the
 * broadcast shape of (grad_output, self, target). */
static clops_status pw_backward(const char *op, loss_pw_mode mode, double param,
                                pw_variant variant, clops_tensor *dst, clops_tensor *grad_output,
                                clops_tensor *self, clops_tensor *target, clops_tensor *weight,
                                int64_t reduction, clops_tensor **out)
{
    loss_pw p = {.op = op, .mode = mode, .p = param};
    clops_tensor *ts[4] = {self, target, weight, grad_output};
    clops_tensor *cs[4] = {NULL, NULL, NULL, NULL};
    clops_dtype dt = CLOPS_FLOAT32;
    int nd = 0;
    int64_t sz[CLOPS_MAX_DIMS];
    clops_status st = prepare(&p, reduction, ts, 4, kit_is_cpu(self->storage->device) ? 3 : -1,
                             mode == LOSS_BCE, &dt, &nd, sz, cs);
    structured_call c;
    memset(&c, 0, sizeof c);
    if (!st)
        st = structured_begin(&c, op, variant, dst, self->storage->device, dt, nd, sz, ts, 4);
    if (st) {
        for (int i = 0; i < 4; i++)
            clops_tensor_release(cs[i]);
        return st;
    }
    p.x = cs[0];
    p.y = cs[1];
    p.w = cs[2];
    int64_t n = tensor_numel(self);
    double norm = (mode == LOSS_MSE ? 2.0 : 1.0) / (p.mean ? (double)n : 1.0);
    clops_tensor *gi = NULL;
    st = core_contiguous(c.target, &gi);
    if (!st)
        st = kit_is_host(gi->storage->device) ? loss_ref_pw_backward(&p, cs[3], norm, gi)
                                               : backward_cl(&p, cs[3], norm, gi);
    if (!st && gi != c.target)
        st = core_copy_(c.target, gi, false);
    clops_tensor_release(gi);
    for (int i = 0; i < 4; i++)
        clops_tensor_release(cs[i]);
    return structured_finish(&c, st, out);
}

clops_status loss_mse_loss(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                           clops_tensor *target, int64_t reduction, clops_tensor **out)
{
    return pw_forward("mse_loss", LOSS_MSE, 0, variant, dst, self, target, NULL, reduction, out);
}

clops_status loss_mse_loss_backward(pw_variant variant, clops_tensor *dst,
                                    clops_tensor *grad_output, clops_tensor *self,
                                    clops_tensor *target, int64_t reduction, clops_tensor **out)
{
    return pw_backward("mse_loss_backward", LOSS_MSE, 0, variant, dst, grad_output, self, target,
                       NULL, reduction, out);
}

clops_status loss_binary_cross_entropy(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                                       clops_tensor *target, clops_tensor *weight,
                                       int64_t reduction, clops_tensor **out)
{
    return pw_forward("binary_cross_entropy", LOSS_BCE, 0, variant, dst, self, target, weight,
                      reduction, out);
}

clops_status loss_binary_cross_entropy_backward(pw_variant variant, clops_tensor *dst,
                                                clops_tensor *grad_output, clops_tensor *self,
                                                clops_tensor *target, clops_tensor *weight,
                                                int64_t reduction, clops_tensor **out)
{
    return pw_backward("binary_cross_entropy_backward", LOSS_BCE, 0, variant, dst, grad_output,
                       self, target, weight, reduction, out);
}

clops_status loss_smooth_l1_loss(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                                 clops_tensor *target, int64_t reduction, double beta,
                                 clops_tensor **out)
{
    return pw_forward("smooth_l1_loss", LOSS_SMOOTH_L1, beta, variant, dst, self, target, NULL,
                      reduction, out);
}

clops_status loss_smooth_l1_loss_backward(pw_variant variant, clops_tensor *dst,
                                          clops_tensor *grad_output, clops_tensor *self,
                                          clops_tensor *target, int64_t reduction, double beta,
                                          clops_tensor **out)
{
    return pw_backward("smooth_l1_loss_backward", LOSS_SMOOTH_L1, beta, variant, dst,
                       grad_output, self, target, NULL, reduction, out);
}

clops_status loss_huber_loss(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                             clops_tensor *target, int64_t reduction, double delta,
                             clops_tensor **out)
{
    return pw_forward("huber_loss", LOSS_HUBER, delta, variant, dst, self, target, NULL,
                      reduction, out);
}

clops_status loss_huber_loss_backward(pw_variant variant, clops_tensor *dst,
                                      clops_tensor *grad_output, clops_tensor *self,
                                      clops_tensor *target, int64_t reduction, double delta,
                                      clops_tensor **out)
{
    return pw_backward("huber_loss_backward", LOSS_HUBER, delta, variant, dst, grad_output, self,
                       target, NULL, reduction, out);
}
