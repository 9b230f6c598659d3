/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ops/loss/loss_nll.c: nll_loss_forward, nll_loss_backward, nll_loss2d_forward
 * and nll_loss2d_backward (dispatch/inventory/loss.yaml), functional and out=.
 *
 * A call is checked with PyTorch's rules and messages, then planned as the
 * canonical problem of ops/loss/loss.h: input contiguous [N, C, S], target
 * int64 contiguous (a uint8 target is cast), weight contiguous [C].  The
 * CPU device runs ref/loss.c; OpenCL devices run cl_kernels/loss.cl (one
 * program per input dtype): reduction=none is one launch writing a loss
 * per element, mean and sum are two launches (per-group partials, then
 * one group folding them in a fixed order; float32 accumulation for
 * float16 and bfloat16), the backward zero-fills grad_input and scatters
 * one value per counted element.  Out-of-range targets set a device-side
 * flag read back after the launches (the index family's mechanism,
 * docs/index.md): CLOPS_INDEX_OUT_OF_RANGE "<op>: Target V is out of
 * bounds.".
 */
#include <stdio.h>
#include <string.h>

#include "host/host.h"
#include "ops/tensor/tensor.h"
#include "ops/kit/kit.h"
#include "ops/kernels_generated.h"
#include "ops/loss/loss.h"
#include "ops/reduce/reduce.h"

/* The defines of the loss program of input dtype *ctx. */
static clops_status write_defines(const void *vctx, const clops_device *d, strbuf *sb)
{
    clops_dtype dt = *(const clops_dtype *)vctx;
    sb_printf(sb, "#define RWG %zu\n#define T %s\n#define KIND %d\n#define CT %s\n",
              reduce_wg(d), kit_cl_storage(dt), (int)kit_load_store(dt), kit_cl_compute(dt));
    /* CPU devices only (GPU programs are unchanged): loss_nll_cpu,
     * loss_pw_part_cpu, contiguous element ranges per item. */
    if (kit_is_cpu(d))
        sb_printf(sb, "#define LOSS_CPU 1\n#define CT8 %s8\n", kit_cl_compute(dt));
    return CLOPS_OK;
}

/* Kernel `which` of the loss program for dtype dt (ops/loss/loss.h). */
clops_status loss_kernel(clops_device *d, int which, clops_dtype dt, const char *op,
                         host_kernel **k)
{
    static const char *const names[] = {"loss_nll_none",     "loss_nll_part", "loss_nll_finish",
                                        "loss_nll_backward", "loss_pw_none",  "loss_pw_part",
                                        "loss_pw_backward",  "loss_nll_cpu",  "loss_pw_part_cpu",
                                        "loss_pw_backward_cpu", "loss_nll_backward_cpu"};
    host_kkey key = {{(0x4Cull << 56) | ((uint64_t)which << 16) | (uint64_t)dt, reduce_wg(d), 0,
                      0}};
    host_kernel *kern = kit_find(d, &key);
    if (!kern) {
        char pname[64], title[80];
        snprintf(pname, sizeof pname, "loss/%s", clops_dtype_name(dt));
        snprintf(title, sizeof title, "clops loss program %s (see ops/loss/loss_nll.c)",
                 clops_dtype_name(dt));
        kit_program p = {
            .name = pname, .title = title, .write = write_defines, .file = "loss.cl", .ctx = &dt};
        clops_status st = kit_build(d, &key, &p, names[which], op, &kern);
        if (st)
            return st;
    }
    bool grouped = which == 1 || which == 2 || which == 5;
    clops_status st = kit_need_wg(kern, grouped ? (int64_t)reduce_wg(d) : 0, d, op);
    if (st == CLOPS_OK)
        *k = kern;
    return st;
}

/* cl_mem of a tensor's storage (NULL for an empty one). */
static cl_mem mem_of(const clops_tensor *t)
{
    return t && t->storage->block ? t->storage->block->mem : NULL;
}

/* Checks a tensor argument's device against the input's. */
static clops_status same_device(const char *op, const char *name, const clops_tensor *t,
                                const clops_tensor *x)
{
    if (t && t->storage->device != x->storage->device)
        return clops__fail(CLOPS_DEVICE_MISMATCH, "%s: %s is on %s, self on %s", op, name,
                           t->storage->device->label, x->storage->device->label);
    return CLOPS_OK;
}

/* Checks a tensor argument's dtype against the input's (PyTorch's
 * "expected scalar type" check). */
static clops_status same_dtype(const char *op, const char *name, const clops_tensor *t,
                               const clops_tensor *x)
{
    if (t && t->dtype != x->dtype)
        return clops__fail(CLOPS_INVALID_DTYPE,
                           "%s: expected scalar type %s but found %s (%s, on %s)", op,
                           clops_dtype_name(x->dtype), clops_dtype_name(t->dtype), name,
                           x->storage->device->label);
    return CLOPS_OK;
}

/*
 * PyTorch's checks of (self, target, weight, reduction) for nll_loss
 * (two_d false) or nll_loss2d; fills the geometry of p (not its tensors)
 * and the output shape (ondim, osz).
 */
static clops_status check_args(loss_nll *p, bool two_d, bool bwd, const clops_tensor *x,
                               const clops_tensor *t, const clops_tensor *w, int64_t reduction,
                               int *ondim, int64_t *osz)
{
    const char *op = p->op;
    char a[200], b[200];
    clops_status st = same_device(op, "target", t, x);
    if (!st)
        st = same_device(op, "weight", w, x);
    if (st)
        return st;
    if (!clops_dtype_is_floating(x->dtype))
        return clops__fail(CLOPS_INVALID_DTYPE, "%s: expected a floating input, got %s (on %s)",
                           op, clops_dtype_name(x->dtype), x->storage->device->label);
    if (t->dtype != CLOPS_INT64 && t->dtype != CLOPS_UINT8)
        return clops__fail(CLOPS_INVALID_DTYPE,
                           "%s: expected target dtype to be Long or Byte, but got %s", op,
                           clops_dtype_name(t->dtype));
    if (reduction < 0 || reduction > 2)
        return clops__fail(CLOPS_INVALID_ARGUMENT,
                           "%s: reduction %lld is not 0 (none), 1 (mean) or 2 (sum)", op,
                           (long long)reduction);
    if (!two_d) {
        if (x->ndim < 1 || x->ndim > 2)
            return clops__fail(CLOPS_INVALID_SHAPE,
                               "%s: input tensor should be 1D or 2D, got %s", op,
                               clops__fmt_shape(a, sizeof a, x->ndim, x->sizes));
        if (t->ndim > 1)
            return clops__fail(CLOPS_INVALID_SHAPE,
                               "%s: 0D or 1D target tensor expected, multi-target not "
                               "supported (target %s)",
                               op, clops__fmt_shape(a, sizeof a, t->ndim, t->sizes));
        if (x->ndim == 2 && (t->ndim != 1 || x->sizes[0] != t->sizes[0]))
            return clops__fail(CLOPS_INVALID_SHAPE, "%s: size mismatch (got input: %s, target: %s)",
                               op, clops__fmt_shape(a, sizeof a, x->ndim, x->sizes),
                               clops__fmt_shape(b, sizeof b, t->ndim, t->sizes));
        /* PyTorch's backward checks a 1-D target against a 1-D input's
         * length (the forward against 1). */
        if (bwd && x->ndim == 1 && t->ndim == 1 && x->sizes[0] != t->sizes[0])
            return clops__fail(CLOPS_INVALID_SHAPE, "%s: size mismatch (got input: %s, target: %s)",
                               op, clops__fmt_shape(a, sizeof a, x->ndim, x->sizes),
                               clops__fmt_shape(b, sizeof b, t->ndim, t->sizes));
        if (x->ndim == 1 && t->ndim == 1 && t->sizes[0] != 1)
            return clops__fail(CLOPS_INVALID_SHAPE,
                               "%s: For 1D input, 1D target must have size 1, but got target "
                               "size: %lld",
                               op, (long long)t->sizes[0]);
        p->N = x->ndim == 2 ? x->sizes[0] : 1;
        p->C = x->sizes[x->ndim - 1];
        p->S = 1;
        p->per_elem = reduction == 0 && x->ndim == 2;
        *ondim = p->per_elem ? 1 : 0;
        osz[0] = p->N;
    } else {
        if (x->ndim != 4)
            return clops__fail(CLOPS_INVALID_SHAPE,
                               "%s: only batches of spatial inputs supported (4D tensors), but "
                               "got input of dimension: %d",
                               op, x->ndim);
        if (t->ndim != 3)
            return clops__fail(CLOPS_INVALID_SHAPE,
                               "%s: only batches of spatial targets supported (3D tensors) but "
                               "got targets of dimension: %d",
                               op, t->ndim);
        if (x->sizes[0] != t->sizes[0] || x->sizes[2] != t->sizes[1] ||
            x->sizes[3] != t->sizes[2])
            return clops__fail(CLOPS_INVALID_SHAPE, "%s: size mismatch (got input: %s, target: %s)",
                               op, clops__fmt_shape(a, sizeof a, x->ndim, x->sizes),
                               clops__fmt_shape(b, sizeof b, t->ndim, t->sizes));
        p->N = x->sizes[0];
        p->C = x->sizes[1];
        p->S = x->sizes[2] * x->sizes[3];
        p->per_elem = reduction == 0;
        *ondim = p->per_elem ? 3 : 0;
        memcpy(osz, t->sizes, 3 * sizeof(int64_t));
    }
    if (w && (w->ndim != 1 || w->sizes[0] != p->C))
        return clops__fail(CLOPS_INVALID_SHAPE,
                           "%s: weight tensor should be defined either for all %lld classes or "
                           "no classes but got weight tensor of shape: %s",
                           op, (long long)p->C, clops__fmt_shape(a, sizeof a, w->ndim, w->sizes));
    p->mean = reduction == 1;
    return same_dtype(op, "weight", w, x);
}

/* Contiguous temporaries of the problem's tensors (released by
 * release_plan): x, the int64 target, the weight. */
static clops_status plan_tensors(loss_nll *p, clops_tensor *x, clops_tensor *t, clops_tensor *w)
{
    clops_tensor *t64 = NULL;
    clops_status st = core_contiguous(x, &p->x);
    if (!st)
        st = reduce_cast_input(p->op, t, CLOPS_INT64, &t64);
    if (!st)
        st = core_contiguous(t64, &p->t);
    if (!st && w)
        st = core_contiguous(w, &p->w);
    clops_tensor_release(t64);
    return st;
}

/* Releases the problem's temporaries. */
static void release_plan(loss_nll *p)
{
    clops_tensor_release(p->x);
    clops_tensor_release(p->t);
    clops_tensor_release(p->w);
    p->x = p->t = p->w = NULL;
}

/* The flag buffer of a launch sequence, zeroed (ops/loss/loss.h). */
clops_status loss_flag_new(clops_device *d, host_block **eb)
{
    clops_status st = host_alloc(d, 32, eb);
    if (!st)
        st = host_fill_zero(d, (*eb)->mem, 0, 32);
    return st;
}

/* Reads the flag after the launches; frees it (ops/loss/loss.h). */
clops_status loss_flag_check(const char *op, clops_device *d, host_block *eb, clops_status st,
                             int64_t C)
{
    if (!st && eb) {
        int64_t e[2] = {0, 0};
        st = host_read(d, eb->mem, 0, e, sizeof e);
        int32_t flag = (int32_t)e[0];
        if (!st && flag != 0)
            st = C > 0       ? ref_loss_target_error(op, e[1], C)
                 : flag & 1 ? ref_loss_input_range_error(op)
                            : ref_loss_target_range_error(op);
    }
    host_free(eb);
    return st;
}

/* The OpenCL forward into contiguous out and tw (x's dtype). */
static clops_status forward_cl(const loss_nll *p, clops_tensor *out, clops_tensor *tw)
{
    clops_device *d = p->x->storage->device;
    int64_t M = p->N * p->S;
    host_block *eb = NULL, *pb = NULL;
    host_kernel *k = NULL;
    cl_mem xm = mem_of(p->x), tm = mem_of(p->t), wm = p->w ? mem_of(p->w) : xm;
    cl_mem om = mem_of(out), twm = mem_of(tw);
    cl_long xo = p->x->offset, to = p->t->offset, wo = p->w ? p->w->offset : 0;
    cl_long oo = out->offset, two = tw->offset, cM = M, cC = p->C, cS = p->S, ign = p->ignore;
    cl_int hasw = p->w != NULL, mean = p->mean;
    /* CPU devices, mean and sum: loss_nll_cpu, which zeroes the flag. */
    bool cpu = kit_is_cpu(d) && !p->per_elem;
    clops_status st = CLOPS_OK;
    if (cpu)
        st = host_alloc(d, 32, &eb);
    else if (M > 0)
        st = loss_flag_new(d, &eb);
    cl_mem em = eb ? eb->mem : xm;
    if (p->per_elem) {
        if (!st && M > 0)
            st = loss_kernel(d, 0, p->x->dtype, p->op, &k);
        if (!st && M > 0) {
            host_arg a[] = {{sizeof xm, &xm}, {sizeof xo, &xo},     {sizeof tm, &tm},
                            {sizeof to, &to}, {sizeof wm, &wm},     {sizeof wo, &wo},
                            {sizeof hasw, &hasw}, {sizeof om, &om}, {sizeof oo, &oo},
                            {sizeof cM, &cM}, {sizeof cC, &cC},     {sizeof cS, &cS},
                            {sizeof ign, &ign}, {sizeof em, &em}};
            st = host_launch_items(d, k, (int)(sizeof a / sizeof a[0]), a, (uint64_t)M);
        }
        if (!st)
            st = tensor_fill(tw, clops_scalar_int(0));
        return loss_flag_check(p->op, d, eb, st, p->C);
    }
    int64_t wg = (int64_t)reduce_wg(d);
    int64_t groups = (M + wg - 1) / wg;
    if (groups > LOSS_MAX_PARTS)
        groups = LOSS_MAX_PARTS;
    cl_long chunk = groups ? (M + groups - 1) / groups : 0;
    groups = chunk ? (M + chunk - 1) / chunk : 0;
    if (cpu) {
        /* one item, the same order as loss_nll_part + loss_nll_finish */
        if (!st)
            st = loss_kernel(d, 7, p->x->dtype, p->op, &k);
        if (!st) {
            cl_long ng = groups;
            host_arg a[] = {{sizeof xm, &xm},     {sizeof xo, &xo},       {sizeof tm, &tm},
                            {sizeof to, &to},     {sizeof wm, &wm},       {sizeof wo, &wo},
                            {sizeof hasw, &hasw}, {sizeof om, &om},       {sizeof oo, &oo},
                            {sizeof twm, &twm},   {sizeof two, &two},     {sizeof mean, &mean},
                            {sizeof cM, &cM},     {sizeof cC, &cC},       {sizeof cS, &cS},
                            {sizeof ign, &ign},   {sizeof chunk, &chunk}, {sizeof ng, &ng},
                            {sizeof em, &em}};
            st = host_launch_local(d, k, (int)(sizeof a / sizeof a[0]), a, 1, 1);
        }
        return loss_flag_check(p->op, d, eb, st, p->C);
    }
    size_t csz = p->x->dtype == CLOPS_FLOAT64 ? 8 : 4;
    if (!st)
        st = host_alloc(d, (size_t)(groups > 0 ? groups : 1) * 2 * csz, &pb);
    cl_mem pm = pb ? pb->mem : NULL;
    if (!st && groups > 0)
        st = loss_kernel(d, 1, p->x->dtype, p->op, &k);
    if (!st && groups > 0) {
        host_arg a[] = {{sizeof xm, &xm},   {sizeof xo, &xo},   {sizeof tm, &tm},
                        {sizeof to, &to},   {sizeof wm, &wm},   {sizeof wo, &wo},
                        {sizeof hasw, &hasw}, {sizeof pm, &pm}, {sizeof cM, &cM},
                        {sizeof cC, &cC},   {sizeof cS, &cS},   {sizeof ign, &ign},
                        {sizeof chunk, &chunk}, {sizeof em, &em}};
        st = host_launch(d, k, (int)(sizeof a / sizeof a[0]), a, (size_t)(groups * wg));
    }
    if (!st)
        st = loss_kernel(d, 2, p->x->dtype, p->op, &k);
    if (!st) {
        cl_long np = groups;
        host_arg a[] = {{sizeof pm, &pm}, {sizeof np, &np},   {sizeof om, &om}, {sizeof oo, &oo},
                        {sizeof twm, &twm}, {sizeof two, &two}, {sizeof mean, &mean}};
        st = host_launch(d, k, (int)(sizeof a / sizeof a[0]), a, (size_t)wg);
    }
    st = loss_flag_check(p->op, d, eb, st, p->C);
    host_free(pb);
    return st;
}

/* The forward of nll_loss (two_d false) or nll_loss2d: functional (d0, d1
 * NULL; results into *o0, *o1) or out= (into d0, d1). */
static clops_status nll_forward(const char *op, bool two_d, pw_variant variant,
                                clops_tensor *self, clops_tensor *target, clops_tensor *weight,
                                int64_t reduction, int64_t ignore_index, clops_tensor *d0,
                                clops_tensor *d1, clops_tensor **o0, clops_tensor **o1)
{
    loss_nll p = {.op = op, .ignore = ignore_index};
    int ondim = 0;
    int64_t osz[3] = {0, 0, 0};
    clops_status st = check_args(&p, two_d, false, self, target, weight, reduction, &ondim, osz);
    if (st)
        return st;
    clops_device *dev = self->storage->device;
    clops_tensor *ins[3] = {self, target, weight};
    structured_call c0, c1;
    memset(&c1, 0, sizeof c1);
    st = structured_begin(&c0, op, variant, d0, dev, self->dtype, ondim, osz, ins, 3);
    if (st)
        return st;
    st = structured_begin(&c1, op, variant, d1, dev, self->dtype, 0, NULL, ins, 3);
    if (st)
        return structured_finish(&c0, st, NULL);
    if (variant == PW_OUT && d0 == d1)
        st = clops__fail(CLOPS_MEMORY_OVERLAP, "%s: output and total_weight are one tensor", op);
    clops_tensor *out = NULL, *tw = NULL;
    if (!st)
        st = plan_tensors(&p, self, target, weight);
    /* Contiguous results (a new tensor when the target is strided). */
    if (!st)
        st = core_contiguous(c0.target, &out);
    if (!st)
        st = core_contiguous(c1.target, &tw);
    if (!st)
        st = kit_is_host(dev) ? loss_ref_nll_forward(&p, out, tw) : forward_cl(&p, out, tw);
    if (!st && out != c0.target)
        st = core_copy_(c0.target, out, false);
    if (!st && tw != c1.target)
        st = core_copy_(c1.target, tw, false);
    clops_tensor_release(out);
    clops_tensor_release(tw);
    release_plan(&p);
    clops_status s0 = structured_finish(&c0, st, o0);
    clops_status s1 = structured_finish(&c1, st ? st : s0, o1);
    st = st ? st : s0 ? s0 : s1;
    if (st && o0 && *o0) {
        clops_tensor_release(*o0);
        *o0 = NULL;
    }
    return st;
}

/* The OpenCL backward into contiguous gi, zeroed unless zero (the CPU
 * kernel that zeroes each batch entry's block first). */
static clops_status backward_cl(const loss_nll *p, const clops_tensor *go,
                                const clops_tensor *twt, clops_tensor *gi, bool zero)
{
    clops_device *d = p->x->storage->device;
    int64_t M = p->N * p->S;
    if (M == 0)
        return CLOPS_OK;
    host_block *eb = NULL;
    host_kernel *k = NULL;
    clops_status st = loss_flag_new(d, &eb);
    if (!st)
        st = loss_kernel(d, zero ? 10 : 3, p->x->dtype, p->op, &k);
    if (!st) {
        cl_mem gm = mem_of(go), tm = mem_of(p->t), wm = p->w ? mem_of(p->w) : gm;
        cl_mem twm = mem_of(twt), gim = mem_of(gi), em = eb->mem;
        cl_long goo = go->offset, to = p->t->offset, wo = p->w ? p->w->offset : 0;
        cl_long two = twt->offset, gio = gi->offset, cM = M, cC = p->C, cS = p->S;
        cl_long ign = p->ignore;
        cl_int per = p->per_elem, hasw = p->w != NULL, mean = p->mean;
        host_arg a[] = {{sizeof gm, &gm},     {sizeof goo, &goo}, {sizeof per, &per},
                        {sizeof tm, &tm},     {sizeof to, &to},   {sizeof wm, &wm},
                        {sizeof wo, &wo},     {sizeof hasw, &hasw}, {sizeof twm, &twm},
                        {sizeof two, &two},   {sizeof mean, &mean}, {sizeof gim, &gim},
                        {sizeof gio, &gio},   {sizeof cM, &cM},   {sizeof cC, &cC},
                        {sizeof cS, &cS},     {sizeof ign, &ign}, {sizeof em, &em}};
        /* the zeroing kernel (N >= max_chunks): the device's chunk count
         * of items (host_launch_items would give a batch of 256 one item:
         * it counts 4096 elements an item) */
        if (zero)
            st = host_launch_local(d, k, (int)(sizeof a / sizeof a[0]), a, d->max_chunks, 1);
        else
            st = host_launch_items(d, k, (int)(sizeof a / sizeof a[0]), a, (uint64_t)M);
    }
    return loss_flag_check(p->op, d, eb, st, p->C);
}

/* Checks grad_output and total_weight of a backward call. */
static clops_status check_backward(const loss_nll *p, const clops_tensor *x,
                                   const clops_tensor *go, const clops_tensor *tw, int ondim,
                                   const int64_t *osz)
{
    char a[200], b[200];
    clops_status st = same_device(p->op, "grad_output", go, x);
    if (!st)
        st = same_device(p->op, "total_weight", tw, x);
    if (!st)
        st = same_dtype(p->op, "grad_output", go, x);
    if (!st)
        st = same_dtype(p->op, "total_weight", tw, x);
    if (st)
        return st;
    if (tensor_numel(tw) != 1)
        return clops__fail(CLOPS_INVALID_SHAPE,
                           "%s: expected total_weight to be a single element tensor, got: %s "
                           "(%lld elements)",
                           p->op, clops__fmt_shape(a, sizeof a, tw->ndim, tw->sizes),
                           (long long)tensor_numel(tw));
    if (!p->per_elem) {
        if (tensor_numel(go) != 1)
            return clops__fail(CLOPS_INVALID_SHAPE,
                               "%s: Expected a single element grad_output tensor, but got: %s",
                               p->op, clops__fmt_shape(a, sizeof a, go->ndim, go->sizes));
        return CLOPS_OK;
    }
    if (go->ndim != ondim || memcmp(go->sizes, osz, sizeof(int64_t) * (size_t)ondim) != 0)
        return clops__fail(CLOPS_INVALID_SHAPE,
                           "%s: Expected grad_output of shape %s (reduction=none), but got %s",
                           p->op, clops__fmt_shape(a, sizeof a, ondim, osz),
                           clops__fmt_shape(b, sizeof b, go->ndim, go->sizes));
    return CLOPS_OK;
}

/* The backward of nll_loss (two_d false) or nll_loss2d, any variant. */
static clops_status nll_backward(const char *op, bool two_d, pw_variant variant,
                                 clops_tensor *dst, clops_tensor *grad_output,
                                 clops_tensor *self, clops_tensor *target, clops_tensor *weight,
                                 int64_t reduction, int64_t ignore_index,
                                 clops_tensor *total_weight, clops_tensor **out)
{
    loss_nll p = {.op = op, .ignore = ignore_index};
    int ondim = 0;
    int64_t osz[3] = {0, 0, 0};
    clops_status st = check_args(&p, two_d, true, self, target, weight, reduction, &ondim, osz);
    if (!st)
        st = check_backward(&p, self, grad_output, total_weight, ondim, osz);
    if (st)
        return st;
    clops_device *dev = self->storage->device;
    clops_tensor *ins[5] = {grad_output, self, target, weight, total_weight};
    structured_call c;
    st = structured_begin(&c, op, variant, dst, dev, self->dtype, self->ndim, self->sizes, ins,
                          5);
    if (st)
        return st;
    clops_tensor *go = NULL, *gi = NULL;
    st = plan_tensors(&p, self, target, weight);
    if (!st)
        st = core_contiguous(grad_output, &go);
    if (!st)
        st = core_contiguous(c.target, &gi);
    if (!st && kit_is_host(dev))
        st = loss_ref_nll_backward(&p, go, total_weight, gi);
    else if (!st) {
        /* CPU devices: with a batch entry per item of the device's grid
         * at least, loss_nll_backward_cpu zeroes gi's blocks itself, in
         * parallel, where that is faster; else gi is contiguous, its bytes
         * zeroed as one run by the driver's buffer fill (POCL 3.1: 7.1 ->
         * 2.2 ms of CPU time per call against the fill kernel on [256,
         * 50257] float32, but one thread: 4.9 ms on the 16-core host
         * against PyTorch's 0.6).  The fill streams past the caches; the
         * kernel's stores read each line first, so beyond the caches it
         * needs the cores of 8 compute units or more (2-core VM, 51 MB:
         * 1.6 -> 3.5 ms of CPU time, kept off there). */
        size_t gbytes = (size_t)tensor_numel(gi) * clops_dtype_size(gi->dtype);
        bool zero = kit_is_cpu(dev) && p.N * p.S > 0 && p.N >= (int64_t)dev->max_chunks &&
                    (dev->max_chunks >= 32 || gbytes <= ((size_t)4 << 20));
        if (zero)
            st = CLOPS_OK;
        else if (kit_is_cpu(dev) && gi->storage->block)
            st = host_fill_zero(dev, gi->storage->block->mem,
                                (size_t)gi->offset * clops_dtype_size(gi->dtype),
                                (size_t)tensor_numel(gi) * clops_dtype_size(gi->dtype));
        else
            st = tensor_fill(gi, clops_scalar_int(0));
        if (!st)
            st = backward_cl(&p, go, total_weight, gi, zero);
    }
    if (!st && gi != c.target)
        st = core_copy_(c.target, gi, false);
    clops_tensor_release(go);
    clops_tensor_release(gi);
    release_plan(&p);
    return structured_finish(&c, st, out);
}

clops_status loss_nll_loss_forward(clops_tensor *self, clops_tensor *target, clops_tensor *weight,
                                   int64_t reduction, int64_t ignore_index, clops_tensor **output,
                                   clops_tensor **total_weight)
{
    return nll_forward("nll_loss_forward", false, PW_FUNCTIONAL, self, target, weight, reduction,
                       ignore_index, NULL, NULL, output, total_weight);
}

clops_status loss_nll_loss_forward_output(clops_tensor *self, clops_tensor *target,
                                          clops_tensor *weight, int64_t reduction,
                                          int64_t ignore_index, clops_tensor *output,
                                          clops_tensor *total_weight)
{
    return nll_forward("nll_loss_forward", false, PW_OUT, self, target, weight, reduction,
                       ignore_index, output, total_weight, NULL, NULL);
}

clops_status loss_nll_loss2d_forward(clops_tensor *self, clops_tensor *target,
                                     clops_tensor *weight, int64_t reduction,
                                     int64_t ignore_index, clops_tensor **output,
                                     clops_tensor **total_weight)
{
    return nll_forward("nll_loss2d_forward", true, PW_FUNCTIONAL, self, target, weight,
                       reduction, ignore_index, NULL, NULL, output, total_weight);
}

clops_status loss_nll_loss2d_forward_output(clops_tensor *self, clops_tensor *target,
                                            clops_tensor *weight, int64_t reduction,
                                            int64_t ignore_index, clops_tensor *output,
                                            clops_tensor *total_weight)
{
    return nll_forward("nll_loss2d_forward", true, PW_OUT, self, target, weight, reduction,
                       ignore_index, output, total_weight, NULL, NULL);
}

clops_status loss_nll_loss_backward(pw_variant variant, clops_tensor *dst,
                                    clops_tensor *grad_output, clops_tensor *self,
                                    clops_tensor *target, clops_tensor *weight, int64_t reduction,
                                    int64_t ignore_index, clops_tensor *total_weight,
                                    clops_tensor **out)
{
    return nll_backward("nll_loss_backward", false, variant, dst, grad_output, self, target,
                        weight, reduction, ignore_index, total_weight, out);
}

clops_status loss_nll_loss2d_backward(pw_variant variant, clops_tensor *dst,
                                      clops_tensor *grad_output, clops_tensor *self,
                                      clops_tensor *target, clops_tensor *weight,
                                      int64_t reduction, int64_t ignore_index,
                                      clops_tensor *total_weight, clops_tensor **out)
{
    return nll_backward("nll_loss2d_backward", true, variant, dst, grad_output, self, target,
                        weight, reduction, ignore_index, total_weight, out);
}
