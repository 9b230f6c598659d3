/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ops/gemm/gemm.c: the matrix-product operators mm, bmm, addmm, baddbmm and
 * addbmm, and the helpers every GEMM-family operator shares (argument
 * checks worded as PyTorch words them, and gemm_run_nd, which maps a batched
 * product of views onto the engines of ops/gemm/gemm.h).
 *
 * Each operator is one structured family function (docs/operator-
 * inventory.md) written once over an engine and registered for the CPU and
 * OpenCL keys (dispatch/inventory/gemm.yaml); gemm_engine_of picks ref_gemm or
 * gemm_engine_cl (clops' engine, CLBlast behind it) from the tensors' device.  A family function checks its arguments, computes
 * the result shape, gets its destination from structured_begin (a new
 * tensor, self, or out resized), seeds it with beta * self where the op has
 * an input term, and runs the engine on views: transposes, slices and
 * broadcast batches reach the engine as strides, never as copies.  matmul,
 * linear and the vector products live in ops/gemm/gemm_matmul.c.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "codegen_pointwise/ops_binary.h"
#include "codegen_pointwise/ops_unary.h"
#include "dispatch/structured.h"
#include "host/host.h"
#include "ops/tensor/tensor.h"
#include "ops/gemm/gemm.h"
#include "ops/kernels_generated.h"
#include "ops/kit/kit.h"

/* --- names and messages --------------------------------------------------- */

const char *gemm_typemeta_name(clops_dtype dt)
{
    switch (dt) {
    case CLOPS_BOOL: return "bool";
    case CLOPS_UINT8: return "unsigned char";
    case CLOPS_INT8: return "signed char";
    case CLOPS_INT16: return "short int";
    case CLOPS_INT32: return "int";
    case CLOPS_INT64: return "long int";
    case CLOPS_FLOAT16: return "c10::Half";
    case CLOPS_BFLOAT16: return "c10::BFloat16";
    case CLOPS_FLOAT32: return "float";
    case CLOPS_FLOAT64: return "double";
    default: return "invalid";
    }
}

const char *gemm_scalartype_name(clops_dtype dt)
{
    switch (dt) {
    case CLOPS_BOOL: return "Bool";
    case CLOPS_UINT8: return "Byte";
    case CLOPS_INT8: return "Char";
    case CLOPS_INT16: return "Short";
    case CLOPS_INT32: return "Int";
    case CLOPS_INT64: return "Long";
    case CLOPS_FLOAT16: return "Half";
    case CLOPS_BFLOAT16: return "BFloat16";
    case CLOPS_FLOAT32: return "Float";
    case CLOPS_FLOAT64: return "Double";
    default: return "Invalid";
    }
}

clops_status gemm_failf(clops_status st, const char *op, clops_tensor *const *ts,
                        const char *const *names, int n, const char *fmt, ...)
{
    char text[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    strbuf sb = STRBUF_INIT;
    sb_printf(&sb, "%s: %s (", op, text);
    const char *label = NULL;
    int shown = 0;
    for (int i = 0; i < n; i++) {
        if (!ts[i])
            continue;
        char shape[400];
        sb_printf(&sb, "%s%s: %s%s", shown++ ? ", " : "", names[i], clops_dtype_name(ts[i]->dtype),
                  clops__fmt_shape(shape, sizeof shape, ts[i]->ndim, ts[i]->sizes));
        if (!label)
            label = ts[i]->storage->device->label;
    }
    sb_printf(&sb, "%son %s)", shown ? " " : "", label ? label : "?");
    clops_status r = clops__fail(st, "%s", sb.failed ? text : sb_str(&sb));
    sb_free(&sb);
    return r;
}

blas_gemm_fn gemm_engine_of(const clops_tensor *t)
{
    return t && !kit_is_host(t->storage->device) ? gemm_engine_cl : ref_gemm;
}

clops_status gemm_check_devices(const char *op, clops_tensor *const *tensors, const bool *optional,
                                int n, clops_device **device)
{
    clops_device *dev = NULL;
    for (int i = 0; i < n; i++) {
        if (!tensors[i]) {
            if (optional && optional[i])
                continue;
            return clops__fail(CLOPS_INVALID_ARGUMENT, "%s: tensor argument %d is NULL", op, i);
        }
        clops_device *d = tensors[i]->storage->device;
        if (dev && d != dev)
            return clops__fail(CLOPS_DEVICE_MISMATCH,
                               "%s: Expected all tensors to be on the same device, but found at "
                               "least two devices, %s and %s!",
                               op, dev->label, d->label);
        dev = d;
    }
    if (!dev)
        return clops__fail(CLOPS_INVALID_ARGUMENT, "%s: no tensor argument", op);
    *device = dev;
    return CLOPS_OK;
}

clops_status gemm_check_out_dtype(const char *op, pw_variant variant, const clops_tensor *dst,
                                  clops_dtype dtype)
{
    if (variant != PW_OUT || !dst || dst->dtype == dtype)
        return CLOPS_OK;
    return clops__fail(CLOPS_INVALID_DTYPE,
                       "%s: Expected out tensor to have dtype %s, but got %s instead (out: %s on "
                       "%s)",
                       op, gemm_typemeta_name(dtype), gemm_typemeta_name(dst->dtype),
                       clops_dtype_name(dst->dtype), dst->storage->device->label);
}

bool gemm_same_view(const clops_tensor *a, const clops_tensor *b)
{
    return a && b && a->storage == b->storage && a->offset == b->offset && a->ndim == b->ndim &&
           a->dtype == b->dtype &&
           memcmp(a->sizes, b->sizes, sizeof(int64_t) * (size_t)a->ndim) == 0 &&
           memcmp(a->strides, b->strides, sizeof(int64_t) * (size_t)a->ndim) == 0;
}

bool gemm_scalar_is_zero(clops_scalar s)
{
    return s.kind == CLOPS_SCALAR_BOOL ? !s.v.b : clops_scalar_to_double(s) == 0.0;
}

clops_status gemm_view(const clops_tensor *t, int ndim, const int64_t *sizes,
                       const int64_t *strides, int64_t offset, clops_tensor **out)
{
    return tensor_make_view("gemm", t, ndim, sizes, strides, offset, out);
}

clops_status gemm_seed(clops_tensor *target, clops_tensor *self, clops_scalar beta)
{
    if (gemm_scalar_is_zero(beta) || gemm_same_view(target, self))
        return CLOPS_OK;
    return core_copy_(target, self, false);
}

/* --- gemm_run_nd ------------------------------------------------------------ */

/* First and one-past-last element a view reaches (empty: lo == hi). */
static void reach(const clops_tensor *t, int64_t *lo, int64_t *hi)
{
    int64_t l = t->offset, h = t->offset;
    for (int i = 0; i < t->ndim; i++) {
        if (t->sizes[i] == 0) {
            *lo = *hi = t->offset;
            return;
        }
        int64_t span = (t->sizes[i] - 1) * t->strides[i];
        if (span < 0)
            l += span;
        else
            h += span;
    }
    *lo = l;
    *hi = h + 1;
}

/* Whether two views may touch the same memory. */
static bool may_overlap(const clops_tensor *a, const clops_tensor *b)
{
    if (a->storage != b->storage)
        return false;
    int64_t al, ah, bl, bh;
    reach(a, &al, &ah);
    reach(b, &bl, &bh);
    size_t ea = clops_dtype_size(a->dtype), eb = clops_dtype_size(b->dtype);
    return al < ah && bl < bh && (size_t)al * ea < (size_t)bh * eb &&
           (size_t)bl * eb < (size_t)ah * ea;
}

/* One engine call on 3-D views of a, b, c with the given batch geometry. */
static clops_status engine_3d(blas_gemm_fn engine, const char *op, int64_t count, const int64_t *s,
                              const int64_t *off, const clops_tensor *a, const clops_tensor *b,
                              clops_tensor *c, int nbatch, clops_scalar alpha, clops_scalar beta)
{
    const clops_tensor *t[3] = {a, b, c};
    clops_tensor *v[3] = {NULL, NULL, NULL};
    clops_status st = CLOPS_OK;
    for (int i = 0; i < 3 && st == CLOPS_OK; i++) {
        int64_t sz[3] = {count, t[i]->sizes[nbatch], t[i]->sizes[nbatch + 1]};
        int64_t str[3] = {s[i], t[i]->strides[nbatch], t[i]->strides[nbatch + 1]};
        st = gemm_view(t[i], 3, sz, str, off[i], &v[i]);
    }
    if (st == CLOPS_OK)
        st = engine(op, v[0], v[1], v[2], alpha, beta);
    for (int i = 0; i < 3; i++)
        clops_tensor_release(v[i]);
    return st;
}

/* Tries to run the whole batch as one product with the batch folded into M
 * (b repeats one matrix; a and c viewable as [P*M, .]) or into N (a repeats
 * one matrix; b and c viewable as [., P*N] once the batch sits between the
 * matrix dimensions).  *done says whether it ran. */
static clops_status try_fold(blas_gemm_fn engine, const char *op, int nb, const int64_t *bsz,
                             const int64_t (*bs)[CLOPS_MAX_DIMS], const int64_t *off,
                             const clops_tensor *a, const clops_tensor *b, clops_tensor *c,
                             int nbatch, clops_scalar alpha, clops_scalar beta, bool *done)
{
    *done = false;
    const clops_tensor *t[3] = {a, b, c};
    bool zero[3] = {true, true, true};
    int64_t prod = 1;
    for (int i = 0; i < nb; i++) {
        prod *= bsz[i];
        for (int j = 0; j < 3; j++)
            zero[j] = zero[j] && bs[j][i] == 0;
    }
    /* rows: fold into M (0: a, c; b is repeated); cols: fold into N. */
    for (int mode = 0; mode < 2; mode++) {
        int rep = mode == 0 ? 1 : 0; /* the repeated operand */
        if (!zero[rep] || zero[2])
            continue;
        int64_t nsz[3][2], nstr[3][2];
        bool ok = true;
        for (int j = 0; j < 3 && ok; j++) {
            const clops_tensor *x = t[j];
            int64_t r = x->sizes[nbatch], cl = x->sizes[nbatch + 1];
            int64_t rs = x->strides[nbatch], cs = x->strides[nbatch + 1];
            if (j == rep) {
                nsz[j][0] = r, nsz[j][1] = cl, nstr[j][0] = rs, nstr[j][1] = cs;
                continue;
            }
            int64_t sz[CLOPS_MAX_DIMS + 2], str[CLOPS_MAX_DIMS + 2], want[2];
            if (mode == 0) { /* [batch..., r, cl] -> [P*r, cl] */
                for (int i = 0; i < nb; i++)
                    sz[i] = bsz[i], str[i] = bs[j][i];
                sz[nb] = r, str[nb] = rs, sz[nb + 1] = cl, str[nb + 1] = cs;
                want[0] = prod * r, want[1] = cl;
            } else { /* [r, batch..., cl] -> [r, P*cl] */
                sz[0] = r, str[0] = rs;
                for (int i = 0; i < nb; i++)
                    sz[i + 1] = bsz[i], str[i + 1] = bs[j][i];
                sz[nb + 1] = cl, str[nb + 1] = cs;
                want[0] = r, want[1] = prod * cl;
            }
            ok = view_compute_strides(nb + 2, sz, str, 2, want, nstr[j]);
            nsz[j][0] = want[0], nsz[j][1] = want[1];
        }
        if (!ok)
            continue;
        clops_tensor *v[3] = {NULL, NULL, NULL};
        clops_status st = CLOPS_OK;
        for (int j = 0; j < 3 && st == CLOPS_OK; j++) {
            int64_t sz[3] = {1, nsz[j][0], nsz[j][1]}, str[3] = {0, nstr[j][0], nstr[j][1]};
            st = gemm_view(t[j], 3, sz, str, off[j], &v[j]);
        }
        if (st == CLOPS_OK)
            st = engine(op, v[0], v[1], v[2], alpha, beta);
        for (int j = 0; j < 3; j++)
            clops_tensor_release(v[j]);
        *done = true;
        return st;
    }
    return CLOPS_OK;
}

clops_status gemm_run_nd(blas_gemm_fn engine, const char *op, int nbatch, const clops_tensor *a,
                         const clops_tensor *b, clops_tensor *c, clops_scalar alpha,
                         clops_scalar beta)
{
    if (tensor_numel(c) == 0)
        return CLOPS_OK;
    if (may_overlap(c, a) || may_overlap(c, b)) {
        /* The result would overwrite an operand while it is read. */
        clops_tensor *tmp = NULL;
        clops_status st = tensor_new(c->storage->device, c->dtype, c->ndim, c->sizes, NULL, &tmp);
        if (st == CLOPS_OK && !gemm_scalar_is_zero(beta))
            st = core_copy_(tmp, c, false);
        if (st == CLOPS_OK)
            st = gemm_run_nd(engine, op, nbatch, a, b, tmp, alpha, beta);
        if (st == CLOPS_OK)
            st = core_copy_(c, tmp, false);
        clops_tensor_release(tmp);
        return st;
    }
    /* Batch dimensions without the size-1 ones, coalesced where all three
     * operands allow it. */
    int nb = 0;
    int64_t bsz[CLOPS_MAX_DIMS], bs[3][CLOPS_MAX_DIMS];
    const clops_tensor *t[3] = {a, b, c};
    for (int i = 0; i < nbatch; i++) {
        if (c->sizes[i] == 1)
            continue;
        bool merge = nb > 0;
        for (int j = 0; j < 3 && merge; j++)
            merge = bs[j][nb - 1] == t[j]->strides[i] * c->sizes[i];
        if (merge) {
            bsz[nb - 1] *= c->sizes[i];
            for (int j = 0; j < 3; j++)
                bs[j][nb - 1] = t[j]->strides[i];
            continue;
        }
        bsz[nb] = c->sizes[i];
        for (int j = 0; j < 3; j++)
            bs[j][nb] = t[j]->strides[i];
        nb++;
    }
    int64_t off[3] = {a->offset, b->offset, c->offset};
    if (nb == 0) {
        int64_t s[3] = {0, 0, 0};
        return engine_3d(engine, op, 1, s, off, a, b, c, nbatch, alpha, beta);
    }
    bool done = false;
    clops_status st = try_fold(engine, op, nb, bsz, bs, off, a, b, c, nbatch, alpha, beta, &done);
    if (st || done)
        return st;
    /* The largest dimension goes to CLBlast as the batch; loop the rest. */
    int inner = 0;
    for (int i = 1; i < nb; i++)
        if (bsz[i] > bsz[inner])
            inner = i;
    int64_t idx[CLOPS_MAX_DIMS] = {0};
    int64_t s[3] = {bs[0][inner], bs[1][inner], bs[2][inner]};
    for (;;) {
        int64_t o[3];
        for (int j = 0; j < 3; j++) {
            o[j] = off[j];
            for (int i = 0; i < nb; i++)
                if (i != inner)
                    o[j] += idx[i] * bs[j][i];
        }
        st = engine_3d(engine, op, bsz[inner], s, o, a, b, c, nbatch, alpha, beta);
        if (st)
            return st;
        int i = nb - 1;
        for (; i >= 0; i--) {
            if (i == inner)
                continue;
            if (++idx[i] < bsz[i])
                break;
            idx[i] = 0;
        }
        if (i < 0)
            return CLOPS_OK;
    }
}

/* --- the operators ------------------------------------------------------------ */

/* Fails with the op's argument list appended (tensors ts named nm). */
#define FAIL(st, ...) gemm_failf((st), op, ts, nm, (int)(sizeof nm / sizeof nm[0]), __VA_ARGS__)

/* mm(self, mat2): [M, K] @ [K, N]. */
static clops_status mm_impl(blas_gemm_fn engine, pw_variant variant, clops_tensor *dst,
                            clops_tensor *self, clops_tensor *mat2, clops_tensor **out)
{
    static const char op[] = "mm";
    clops_tensor *ts[] = {self, mat2};
    static const char *const nm[] = {"self", "mat2"};
    clops_device *dev = NULL;
    clops_status st = gemm_check_devices(op, ts, NULL, 2, &dev);
    if (st)
        return st;
    if (self->ndim != 2)
        return FAIL(CLOPS_INVALID_SHAPE, "self must be a matrix");
    if (mat2->ndim != 2)
        return FAIL(CLOPS_INVALID_SHAPE, "mat2 must be a matrix");
    if (self->sizes[1] != mat2->sizes[0])
        return FAIL(CLOPS_INVALID_SHAPE,
                    "mat1 and mat2 shapes cannot be multiplied (%lldx%lld and %lldx%lld)",
                    (long long)self->sizes[0], (long long)self->sizes[1], (long long)mat2->sizes[0],
                    (long long)mat2->sizes[1]);
    if (self->dtype != mat2->dtype)
        return FAIL(CLOPS_INVALID_DTYPE,
                    "expected m1 and m2 to have the same dtype, but got: %s != %s",
                    gemm_typemeta_name(self->dtype), gemm_typemeta_name(mat2->dtype));
    clops_dtype dt = self->dtype;
    if ((st = blas_check_dtype(engine, op, dt, dev)) ||
        (st = gemm_check_out_dtype(op, variant, dst, dt)))
        return st;
    int64_t shape[2] = {self->sizes[0], mat2->sizes[1]};
    structured_call call;
    st = structured_begin(&call, op, variant, dst, dev, dt, 2, shape, ts, 2);
    if (st)
        return st;
    st = gemm_run_nd(engine, op, 0, self, mat2, call.target, clops_scalar_int(1),
                     clops_scalar_int(0));
    return structured_finish(&call, st, out);
}

/* bmm(self, mat2): [B, M, K] @ [B, K, N]. */
static clops_status bmm_impl(blas_gemm_fn engine, pw_variant variant, clops_tensor *dst,
                             clops_tensor *self, clops_tensor *mat2, clops_tensor **out)
{
    static const char op[] = "bmm";
    clops_tensor *ts[] = {self, mat2};
    static const char *const nm[] = {"self", "mat2"};
    clops_device *dev = NULL;
    clops_status st = gemm_check_devices(op, ts, NULL, 2, &dev);
    if (st)
        return st;
    if (self->ndim != 3)
        return FAIL(CLOPS_INVALID_SHAPE, "batch1 must be a 3D tensor");
    if (mat2->ndim != 3)
        return FAIL(CLOPS_INVALID_SHAPE, "batch2 must be a 3D tensor");
    if (mat2->sizes[0] != self->sizes[0] || mat2->sizes[1] != self->sizes[2])
        return FAIL(CLOPS_INVALID_SHAPE,
                    "Expected size for first two dimensions of batch2 tensor to be: [%lld, %lld] "
                    "but got: [%lld, %lld].",
                    (long long)self->sizes[0], (long long)self->sizes[2], (long long)mat2->sizes[0],
                    (long long)mat2->sizes[1]);
    if (self->dtype != mat2->dtype)
        return FAIL(CLOPS_INVALID_DTYPE, "expected scalar type %s but found %s",
                    gemm_scalartype_name(self->dtype), gemm_scalartype_name(mat2->dtype));
    clops_dtype dt = self->dtype;
    if ((st = blas_check_dtype(engine, op, dt, dev)) ||
        (st = gemm_check_out_dtype(op, variant, dst, dt)))
        return st;
    int64_t shape[3] = {self->sizes[0], self->sizes[1], mat2->sizes[2]};
    structured_call call;
    st = structured_begin(&call, op, variant, dst, dev, dt, 3, shape, ts, 2);
    if (st)
        return st;
    st = gemm_run_nd(engine, op, 1, self, mat2, call.target, clops_scalar_int(1),
                     clops_scalar_int(0));
    return structured_finish(&call, st, out);
}

/* t = act(t) in place through the pointwise engine: the unfused epilogue
 * (the ops PyTorch would run: relu, hardtanh(0, 6), hardswish, silu, gelu,
 * gelu(approximate='tanh'), sigmoid, hardsigmoid). */
static clops_status activate(clops_tensor *t, gemm_act act)
{
    if (act == GEMM_ACT_NONE || tensor_numel(t) == 0)
        return CLOPS_OK;
    if (act == GEMM_ACT_RELU6) {
        const pw_operand o[3] = {pw_tensor(t), pw_scalar(clops_scalar_int(0)),
                                 pw_scalar(clops_scalar_int(6))};
        return pw_run(&pw_op_clamp, PW_INPLACE, o, NULL, NULL, NULL, NULL);
    }
    const pw_op *f = act == GEMM_ACT_GELU        ? &pw_op_gelu
                     : act == GEMM_ACT_GELU_TANH ? &pw_op_gelu_tanh
                     : act == GEMM_ACT_SILU      ? &pw_op_silu
                     : act == GEMM_ACT_SIGMOID   ? &pw_op_sigmoid
                     : act == GEMM_ACT_HARDSWISH ? &pw_op_hardswish
                     : act == GEMM_ACT_HARDSIGMOID ? &pw_op_hardsigmoid
                                                 : &pw_op_relu;
    const pw_operand o[1] = {pw_tensor(t)};
    return pw_run(f, PW_INPLACE, o, NULL, NULL, NULL, NULL);
}

/* t += r in place through the pointwise engine (the unfused residual). */
static clops_status add_residual(clops_tensor *t, clops_tensor *r)
{
    if (!r || tensor_numel(t) == 0)
        return CLOPS_OK;
    const pw_operand o[2] = {pw_tensor(t), pw_tensor(r)};
    const clops_scalar one = clops_scalar_int(1);
    return pw_run(&pw_op_add, PW_INPLACE, o, &one, NULL, NULL, NULL);
}

/*
 * addmm's product with its epilogue fused into the engine's store, where
 * the engine's kernels take the dtype on the device: a self broadcast
 * along rows or columns (a bias vector) becomes the epilogue's bias, scaled
 * by beta, and C is not read; a full self is seeded into target and read
 * with beta as usual, the activation fused.  *done false: not fused (the
 * caller runs the plain path; target may hold self's seed).
 */
static clops_status addmm_fused(blas_gemm_fn engine, const char *op, clops_tensor *self,
                                clops_tensor *selfx, clops_tensor *mat1, clops_tensor *mat2,
                                clops_tensor *target, clops_scalar beta, clops_scalar alpha,
                                gemm_act act, clops_tensor *residual, bool residual_after,
                                bool *done)
{
    *done = false;
    bool vec = selfx && !gemm_scalar_is_zero(beta) &&
               (selfx->strides[0] == 0 || selfx->strides[1] == 0) && !gemm_same_view(target, self);
    if (engine != gemm_engine_cl || (!vec && act == GEMM_ACT_NONE && !residual) ||
        !gemm_engine_fuses(target->storage->device, target->dtype) ||
        may_overlap(target, mat1) || may_overlap(target, mat2) ||
        (vec && may_overlap(target, selfx)) ||
        (residual && may_overlap(target, residual) && !gemm_same_view(target, residual)))
        return CLOPS_OK;
    const clops_tensor *t2[4] = {mat1, mat2, target, residual};
    clops_tensor *v[4] = {NULL, NULL, NULL, NULL}, *bias = NULL;
    clops_status st = CLOPS_OK;
    for (int i = 0; i < 4 && !st; i++) {
        if (!t2[i])
            continue;
        int64_t sz[3] = {1, t2[i]->sizes[0], t2[i]->sizes[1]};
        int64_t str[3] = {0, t2[i]->strides[0], t2[i]->strides[1]};
        st = gemm_view(t2[i], 3, sz, str, t2[i]->offset, &v[i]);
    }
    gemm_epilogue epi = {.act = act,
                         .bias_scale = clops_scalar_to_double(beta),
                         .residual = v[3],
                         .residual_after = residual_after};
    if (!st && vec) {
        epi.bias_rows = selfx->strides[1] == 0 && selfx->strides[0] != 0;
        int64_t n = selfx->sizes[epi.bias_rows ? 0 : 1];
        int64_t bs = selfx->strides[epi.bias_rows ? 0 : 1];
        st = gemm_view(selfx, 1, &n, &bs, selfx->offset, &bias);
        epi.bias = bias;
    } else if (!st) {
        st = gemm_seed(target, self, beta);
    }
    if (!st)
        st = gemm_engine_epi(op, v[0], v[1], v[2], alpha,
                             vec || gemm_scalar_is_zero(beta) ? clops_scalar_int(0) : beta, &epi,
                             done);
    for (int i = 0; i < 4; i++)
        clops_tensor_release(v[i]);
    clops_tensor_release(bias);
    return st;
}

/* addmm(self, mat1, mat2, beta, alpha) = beta * self + alpha * mat1 @ mat2,
 * _addmm_activation: act of it (relu, or gelu when use_gelu), and
 * _clops_addmm_epilogue: with a residual added before or after act, and
 * self NULL for none (mm). */
static clops_status addmm_impl(blas_gemm_fn engine, const char *op, gemm_act act,
                               pw_variant variant, clops_tensor *dst, clops_tensor *self,
                               clops_tensor *mat1, clops_tensor *mat2, clops_scalar beta,
                               clops_scalar alpha, clops_tensor *residual, bool residual_after,
                               clops_tensor **out)
{
    clops_tensor *ts[] = {self, mat1, mat2, residual};
    static const char *const nm[] = {"self", "mat1", "mat2", "residual"};
    static const bool optional[] = {true, false, false, true};
    clops_device *dev = NULL;
    clops_status st = gemm_check_devices(op, ts, optional, 4, &dev);
    if (st)
        return st;
    if (self && self->dtype != mat2->dtype)
        return FAIL(CLOPS_INVALID_DTYPE,
                    "self and mat2 must have the same dtype, but got %s and %s",
                    gemm_scalartype_name(self->dtype), gemm_scalartype_name(mat2->dtype));
    if (mat1->dtype != mat2->dtype)
        return FAIL(CLOPS_INVALID_DTYPE,
                    "mat1 and mat2 must have the same dtype, but got %s and %s",
                    gemm_scalartype_name(mat1->dtype), gemm_scalartype_name(mat2->dtype));
    if (mat1->ndim != 2)
        return FAIL(CLOPS_INVALID_SHAPE, "mat1 must be a matrix, got %d-D tensor", mat1->ndim);
    if (mat2->ndim != 2)
        return FAIL(CLOPS_INVALID_SHAPE, "mat2 must be a matrix, got %d-D tensor", mat2->ndim);
    if (mat1->sizes[1] != mat2->sizes[0])
        return FAIL(CLOPS_INVALID_SHAPE,
                    "mat1 and mat2 shapes cannot be multiplied (%lldx%lld and %lldx%lld)",
                    (long long)mat1->sizes[0], (long long)mat1->sizes[1], (long long)mat2->sizes[0],
                    (long long)mat2->sizes[1]);
    int64_t shape[2] = {mat1->sizes[0], mat2->sizes[1]};
    if (residual && residual->dtype != mat2->dtype)
        return FAIL(CLOPS_INVALID_DTYPE, "residual and mat2 must have the same dtype, but got %s and %s",
                    gemm_scalartype_name(residual->dtype), gemm_scalartype_name(mat2->dtype));
    if (residual && (residual->ndim != 2 || residual->sizes[0] != shape[0] ||
                     residual->sizes[1] != shape[1]))
        return FAIL(CLOPS_INVALID_SHAPE, "the residual must have the product's shape [%lld, %lld]",
                    (long long)shape[0], (long long)shape[1]);
    clops_dtype dt = mat1->dtype;
    if ((st = blas_check_dtype(engine, op, dt, dev)) ||
        (st = gemm_check_out_dtype(op, variant, dst, dt)))
        return st;
    if (!self)
        beta = clops_scalar_int(0);
    clops_tensor *selfx = NULL;
    st = self ? core_expand(self, shape, 2, false, &selfx) : CLOPS_OK;
    if (st)
        return clops__error_prefix(st, "%s", op);
    structured_call call;
    st = structured_begin(&call, op, variant, dst, dev, dt, 2, shape, ts, 4);
    if (st) {
        clops_tensor_release(selfx);
        return st;
    }
    bool done = false;
    st = addmm_fused(engine, op, variant == PW_INPLACE ? self : selfx, selfx, mat1, mat2,
                     call.target, beta, alpha, act, residual, residual_after, &done);
    if (st == CLOPS_OK && !done && self)
        st = gemm_seed(call.target, variant == PW_INPLACE ? self : selfx, beta);
    if (st == CLOPS_OK && !done)
        st = gemm_run_nd(engine, op, 0, mat1, mat2, call.target, alpha,
                         gemm_scalar_is_zero(beta) ? clops_scalar_int(0) : beta);
    if (st == CLOPS_OK && !done && !residual_after)
        st = add_residual(call.target, residual);
    if (st == CLOPS_OK && !done)
        st = activate(call.target, act);
    if (st == CLOPS_OK && !done && residual_after)
        st = add_residual(call.target, residual);
    clops_tensor_release(selfx);
    return structured_finish(&call, st, out);
}

/* baddbmm(self, batch1, batch2, beta, alpha), batched addmm. */
static clops_status baddbmm_impl(blas_gemm_fn engine, pw_variant variant, clops_tensor *dst,
                                 clops_tensor *self, clops_tensor *batch1, clops_tensor *batch2,
                                 clops_scalar beta, clops_scalar alpha, clops_tensor **out)
{
    static const char op[] = "baddbmm";
    clops_tensor *ts[] = {self, batch1, batch2};
    static const char *const nm[] = {"self", "batch1", "batch2"};
    clops_device *dev = NULL;
    clops_status st = gemm_check_devices(op, ts, NULL, 3, &dev);
    if (st)
        return st;
    if (batch1->ndim != 3)
        return FAIL(CLOPS_INVALID_SHAPE, "batch1 must be a 3D tensor");
    if (batch2->ndim != 3)
        return FAIL(CLOPS_INVALID_SHAPE, "batch2 must be a 3D tensor");
    if (self->dtype != batch1->dtype || batch1->dtype != batch2->dtype)
        return FAIL(CLOPS_INVALID_DTYPE,
                    "Input dtypes must be the same, got: input %s, batch1: %s, batch2: %s",
                    gemm_typemeta_name(self->dtype), gemm_typemeta_name(batch1->dtype),
                    gemm_typemeta_name(batch2->dtype));
    if (batch2->sizes[0] != batch1->sizes[0] || batch2->sizes[1] != batch1->sizes[2])
        return FAIL(CLOPS_INVALID_SHAPE,
                    "Expected size for first two dimensions of batch2 tensor to be: [%lld, %lld] "
                    "but got: [%lld, %lld].",
                    (long long)batch1->sizes[0], (long long)batch1->sizes[2],
                    (long long)batch2->sizes[0], (long long)batch2->sizes[1]);
    clops_dtype dt = batch1->dtype;
    if ((st = blas_check_dtype(engine, op, dt, dev)) ||
        (st = gemm_check_out_dtype(op, variant, dst, dt)))
        return st;
    int64_t shape[3] = {batch1->sizes[0], batch1->sizes[1], batch2->sizes[2]};
    clops_tensor *selfx = NULL;
    st = core_expand(self, shape, 3, false, &selfx);
    if (st)
        return clops__error_prefix(st, "%s", op);
    structured_call call;
    st = structured_begin(&call, op, variant, dst, dev, dt, 3, shape, ts, 3);
    if (st) {
        clops_tensor_release(selfx);
        return st;
    }
    st = gemm_seed(call.target, variant == PW_INPLACE ? self : selfx, beta);
    if (st == CLOPS_OK)
        st = gemm_run_nd(engine, op, 1, batch1, batch2, call.target, alpha,
                         gemm_scalar_is_zero(beta) ? clops_scalar_int(0) : beta);
    clops_tensor_release(selfx);
    return structured_finish(&call, st, out);
}

/*
 * addbmm: beta * self + alpha * sum_b batch1[b] @ batch2[b].  When batch1
 * can be viewed as [M, B*K] and batch2 as [B*K, N] (the common contiguous
 * case for batch2; batch1 needs stride(0) == K * stride(2)) the sum is one
 * product of depth B*K; otherwise one product per batch entry, accumulating
 * into the result with beta 1 after the first.
 */
static clops_status addbmm_run(blas_gemm_fn engine, const char *op, clops_tensor *b1,
                               clops_tensor *b2, clops_tensor *c, clops_scalar beta,
                               clops_scalar alpha)
{
    int64_t nb = b1->sizes[0], m = b1->sizes[1], k = b1->sizes[2], n = b2->sizes[2];
    clops_scalar b0 = gemm_scalar_is_zero(beta) ? clops_scalar_int(0) : beta;
    int64_t sa[3] = {m, nb, k}, ta[3] = {b1->strides[1], b1->strides[0], b1->strides[2]};
    int64_t wa[2] = {m, nb * k}, wb[2] = {nb * k, n}, ra[2], rb[2];
    clops_tensor *va = NULL, *vb = NULL;
    clops_status st = CLOPS_OK;
    if (nb * k == 0 || (view_compute_strides(3, sa, ta, 2, wa, ra) &&
                        view_compute_strides(3, b2->sizes, b2->strides, 2, wb, rb))) {
        if (nb * k == 0)
            ra[0] = ra[1] = rb[0] = rb[1] = 1;
        st = gemm_view(b1, 2, wa, ra, b1->offset, &va);
        if (st == CLOPS_OK)
            st = gemm_view(b2, 2, wb, rb, b2->offset, &vb);
        if (st == CLOPS_OK)
            st = gemm_run_nd(engine, op, 0, va, vb, c, alpha, b0);
        clops_tensor_release(va);
        clops_tensor_release(vb);
        return st;
    }
    for (int64_t i = 0; i < nb && st == CLOPS_OK; i++) {
        int64_t s1[2] = {m, k}, s2[2] = {k, n};
        st = gemm_view(b1, 2, s1, b1->strides + 1, b1->offset + i * b1->strides[0], &va);
        if (st == CLOPS_OK)
            st = gemm_view(b2, 2, s2, b2->strides + 1, b2->offset + i * b2->strides[0], &vb);
        if (st == CLOPS_OK)
            st = gemm_run_nd(engine, op, 0, va, vb, c, alpha, i == 0 ? b0 : clops_scalar_int(1));
        clops_tensor_release(va);
        clops_tensor_release(vb);
        va = vb = NULL;
    }
    return st;
}

/* addbmm(self, batch1, batch2, beta, alpha). */
static clops_status addbmm_impl(blas_gemm_fn engine, pw_variant variant, clops_tensor *dst,
                                clops_tensor *self, clops_tensor *batch1, clops_tensor *batch2,
                                clops_scalar beta, clops_scalar alpha, clops_tensor **out)
{
    static const char op[] = "addbmm";
    clops_tensor *ts[] = {self, batch1, batch2};
    static const char *const nm[] = {"self", "batch1", "batch2"};
    clops_device *dev = NULL;
    clops_status st = gemm_check_devices(op, ts, NULL, 3, &dev);
    if (st)
        return st;
    if (batch1->ndim != 3)
        return FAIL(CLOPS_INVALID_SHAPE, "batch1 must be a 3D tensor");
    if (batch2->ndim != 3)
        return FAIL(CLOPS_INVALID_SHAPE, "batch2 must be a 3D tensor");
    if (batch1->sizes[0] != batch2->sizes[0])
        return FAIL(CLOPS_INVALID_SHAPE,
                    "batch1 and batch2 must have same number of batches, got %lld and %lld",
                    (long long)batch1->sizes[0], (long long)batch2->sizes[0]);
    if (batch1->sizes[2] != batch2->sizes[1])
        return FAIL(CLOPS_INVALID_SHAPE,
                    "Incompatible matrix sizes for bmm (%lldx%lld and %lldx%lld)",
                    (long long)batch1->sizes[1], (long long)batch1->sizes[2],
                    (long long)batch2->sizes[1], (long long)batch2->sizes[2]);
    if (self->dtype != batch2->dtype)
        return FAIL(CLOPS_INVALID_DTYPE,
                    "self and mat2 must have the same dtype, but got %s and %s",
                    gemm_scalartype_name(self->dtype), gemm_scalartype_name(batch2->dtype));
    if (batch1->dtype != batch2->dtype)
        return FAIL(CLOPS_INVALID_DTYPE,
                    "mat1 and mat2 must have the same dtype, but got %s and %s",
                    gemm_scalartype_name(batch1->dtype), gemm_scalartype_name(batch2->dtype));
    clops_dtype dt = batch1->dtype;
    if ((st = blas_check_dtype(engine, op, dt, dev)) ||
        (st = gemm_check_out_dtype(op, variant, dst, dt)))
        return st;
    int64_t shape[2] = {batch1->sizes[1], batch2->sizes[2]};
    clops_tensor *selfx = NULL;
    st = core_expand(self, shape, 2, false, &selfx);
    if (st)
        return clops__error_prefix(st, "%s", op);
    structured_call call;
    st = structured_begin(&call, op, variant, dst, dev, dt, 2, shape, ts, 3);
    if (st) {
        clops_tensor_release(selfx);
        return st;
    }
    st = gemm_seed(call.target, variant == PW_INPLACE ? self : selfx, beta);
    if (st == CLOPS_OK)
        st = addbmm_run(engine, op, batch1, batch2, call.target, beta, alpha);
    clops_tensor_release(selfx);
    return structured_finish(&call, st, out);
}

#undef FAIL

/* --- the family functions of dispatch/inventory/gemm.yaml: one for every device, the
 * engine chosen from the tensors' device (gemm_engine_of) ------------------- */

clops_status gemm_mm(pw_variant variant, clops_tensor *dst, clops_tensor *self, clops_tensor *mat2,
                     clops_tensor **out)
{
    return mm_impl(gemm_engine_of(self), variant, dst, self, mat2, out);
}

clops_status gemm_bmm(pw_variant variant, clops_tensor *dst, clops_tensor *self, clops_tensor *mat2,
                      clops_tensor **out)
{
    return bmm_impl(gemm_engine_of(self), variant, dst, self, mat2, out);
}

clops_status gemm_addmm(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                        clops_tensor *mat1, clops_tensor *mat2, clops_scalar beta,
                        clops_scalar alpha, clops_tensor **out)
{
    return addmm_impl(gemm_engine_of(self), "addmm", GEMM_ACT_NONE, variant, dst, self, mat1,
                      mat2, beta, alpha, NULL, false, out);
}

clops_status gemm_addmm_activation(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                                   clops_tensor *mat1, clops_tensor *mat2, clops_scalar beta,
                                   clops_scalar alpha, bool use_gelu, clops_tensor **out)
{
    return addmm_impl(gemm_engine_of(self), "_addmm_activation",
                      use_gelu ? GEMM_ACT_GELU : GEMM_ACT_RELU, variant, dst, self, mat1, mat2,
                      beta, alpha, NULL, false, out);
}

clops_status gemm_addmm_epilogue(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                                 clops_tensor *mat1, clops_tensor *mat2, clops_tensor *residual,
                                 clops_scalar beta, clops_scalar alpha, int64_t activation,
                                 bool residual_after, clops_tensor **out)
{
    static const char op[] = "_clops_addmm_epilogue";
    if (activation < 0 || activation >= GEMM_ACT_COUNT)
        return clops__fail(CLOPS_INVALID_ARGUMENT,
                           "%s: activation %lld is not one of 0 (none) to %d (ops/gemm/gemm.h "
                           "gemm_act)",
                           op, (long long)activation, GEMM_ACT_COUNT - 1);
    return addmm_impl(gemm_engine_of(mat1), op, (gemm_act)activation, variant, dst, self, mat1,
                      mat2, beta, alpha, residual, residual_after, out);
}

clops_status gemm_baddbmm(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                          clops_tensor *batch1, clops_tensor *batch2, clops_scalar beta,
                          clops_scalar alpha, clops_tensor **out)
{
    return baddbmm_impl(gemm_engine_of(self), variant, dst, self, batch1, batch2, beta, alpha, out);
}

clops_status gemm_addbmm(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                         clops_tensor *batch1, clops_tensor *batch2, clops_scalar beta,
                         clops_scalar alpha, clops_tensor **out)
{
    return addbmm_impl(gemm_engine_of(self), variant, dst, self, batch1, batch2, beta, alpha, out);
}
