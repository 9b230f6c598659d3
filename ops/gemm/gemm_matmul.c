/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ops/gemm/gemm_matmul.c: matmul and linear, and the vector products mv, addmv,
 * dot, outer (ger) and addr, all as views over the batched GEMM of
 * ops/gemm/gemm.h.
 *
 * matmul is composite in PyTorch (dot, mv, mm or bmm after expand and
 * reshape); here every rank combination becomes one gemm_run_nd call:
 * a 1-D left operand is a [1, K] matrix, a 1-D right operand a [K, 1]
 * matrix, the batch dimensions of both are broadcast by giving the smaller
 * one stride 0, and the result's view leaves out the unit dimensions again.
 * gemm_run_nd then folds a batch into M (PyTorch's should_fold case,
 * [b, m, k] @ [k, n] as one [b*m, k] @ [k, n] product) or hands it to
 * CLBlast's strided-batched GEMM, so no operand is copied unless CLBlast
 * cannot express its layout.  linear is matmul with the transposed weight
 * and the bias as the beta = 1 term.  The vector products are GEMMs with a
 * unit dimension (n = 1 for mv, m = n = 1 for dot, k = 1 for outer).
 */
#include <string.h>

#include "dispatch/structured.h"
#include "host/host.h"
#include "ops/tensor/tensor.h"
#include "ops/gemm/gemm.h"
#include "ops/kernels_generated.h"

/* Fails with the op's argument list appended (tensors ts named nm). */
#define FAIL(st, ...) gemm_failf((st), op, ts, nm, (int)(sizeof nm / sizeof nm[0]), __VA_ARGS__)

/* A [rows, cols] matrix view of vector t (stride s along it). */
static clops_status vec_as_matrix(const clops_tensor *t, bool column, clops_tensor **out)
{
    int64_t n = t->ndim ? t->sizes[0] : 1, s = t->ndim ? t->strides[0] : 1;
    int64_t sz[2] = {column ? n : 1, column ? 1 : n};
    int64_t str[2] = {column ? s : 1, column ? 1 : s};
    return gemm_view(t, 2, sz, str, t->offset, out);
}

/* --- matmul and linear ------------------------------------------------------ */

/* PyTorch's broadcast of two batch shapes (infer_size). */
static clops_status broadcast_batch(const char *op, clops_tensor *const *ts, const char *const *nm,
                                    int na, const int64_t *a, int nb, const int64_t *b, int *n,
                                    int64_t *out)
{
    int nd = na > nb ? na : nb;
    for (int i = nd - 1; i >= 0; i--) {
        int ia = i - (nd - na), ib = i - (nd - nb);
        int64_t sa = ia >= 0 ? a[ia] : 1, sb = ib >= 0 ? b[ib] : 1;
        if (sa != sb && sa != 1 && sb != 1)
            return gemm_failf(CLOPS_INVALID_SHAPE, op, ts, nm, 3,
                              "The size of tensor a (%lld) must match the size of tensor b (%lld) "
                              "at non-singleton dimension %d",
                              (long long)sa, (long long)sb, i);
        out[i] = sa == 1 ? sb : sa;
    }
    *n = nd;
    return CLOPS_OK;
}

/* Batch strides of t (batch dims `bt` of it) aligned to an output batch of
 * nb dims: broadcast dims get stride 0. */
static void batch_strides(const clops_tensor *t, int bt, int nb, const int64_t *bsz, int64_t *out)
{
    for (int i = 0; i < nb; i++) {
        int d = i - (nb - bt);
        out[i] = (d >= 0 && t->sizes[d] == bsz[i]) ? t->strides[d] : 0;
    }
}

/* Checks dtypes and inner sizes of matmul's operands (messages of the op
 * PyTorch decomposes the call into). */
static clops_status matmul_checks(const char *op, clops_tensor *const *ts, const char *const *nm,
                                  clops_tensor *a, clops_tensor *b, clops_tensor *addend,
                                  int64_t prod)
{
    int da = a->ndim, db = b->ndim;
    if (addend && addend->dtype != b->dtype)
        return gemm_failf(CLOPS_INVALID_DTYPE, op, ts, nm, 3,
                          "self and mat2 must have the same dtype, but got %s and %s",
                          gemm_scalartype_name(addend->dtype), gemm_scalartype_name(b->dtype));
    if (a->dtype != b->dtype) {
        if (addend)
            return gemm_failf(CLOPS_INVALID_DTYPE, op, ts, nm, 3,
                              "mat1 and mat2 must have the same dtype, but got %s and %s",
                              gemm_scalartype_name(a->dtype), gemm_scalartype_name(b->dtype));
        if (da == 1 && db == 1)
            return gemm_failf(CLOPS_INVALID_DTYPE, op, ts, nm, 3,
                              "dot : expected both vectors to have same dtype, but found %s and %s",
                              gemm_scalartype_name(a->dtype), gemm_scalartype_name(b->dtype));
        if (da == 2 && db == 1)
            return gemm_failf(
                CLOPS_INVALID_DTYPE, op, ts, nm, 3,
                "addmv input tensors must have the same dtype, but got %s, %s, and %s",
                gemm_scalartype_name(b->dtype), gemm_scalartype_name(a->dtype),
                gemm_scalartype_name(b->dtype));
        return gemm_failf(CLOPS_INVALID_DTYPE, op, ts, nm, 3,
                          "expected m1 and m2 to have the same dtype, but got: %s != %s",
                          gemm_typemeta_name(a->dtype), gemm_typemeta_name(b->dtype));
    }
    int64_t n = da > 1 ? a->sizes[da - 2] : 1, k1 = a->sizes[da - 1];
    int64_t k2 = db > 1 ? b->sizes[db - 2] : b->sizes[0], p = db > 1 ? b->sizes[db - 1] : 1;
    if (k1 == k2)
        return CLOPS_OK;
    if (da == 1 && db == 1)
        return gemm_failf(
            CLOPS_INVALID_SHAPE, op, ts, nm, 3,
            "inconsistent tensor size, expected tensor [%lld] and src [%lld] to have "
            "the same number of elements, but got %lld and %lld elements respectively",
            (long long)k1, (long long)k2, (long long)k1, (long long)k2);
    if (da == 2 && db == 1)
        return gemm_failf(CLOPS_INVALID_SHAPE, op, ts, nm, 3,
                          "size mismatch, got input (%lld), mat (%lldx%lld), vec (%lld)",
                          (long long)n, (long long)n, (long long)k1, (long long)k2);
    if (da <= 2 && db <= 2)
        return gemm_failf(CLOPS_INVALID_SHAPE, op, ts, nm, 3,
                          "mat1 and mat2 shapes cannot be multiplied (%lldx%lld and %lldx%lld)",
                          (long long)n, (long long)k1, (long long)k2, (long long)p);
    return gemm_failf(CLOPS_INVALID_SHAPE, op, ts, nm, 3,
                      "Expected size for first two dimensions of batch2 tensor to be: [%lld, %lld] "
                      "but got: [%lld, %lld].",
                      (long long)prod, (long long)k1, (long long)prod, (long long)k2);
}

clops_status gemm_matmul_impl(blas_gemm_fn engine, const char *op, pw_variant variant,
                              clops_tensor *dst, clops_tensor *a, clops_tensor *b,
                              clops_tensor *addend, clops_tensor **out)
{
    bool linear = strcmp(op, "linear") == 0;
    clops_tensor *ts[] = {a, b, addend};
    static const char *const mnames[] = {"self", "other", "addend"};
    static const char *const lnames[] = {"input", "weight.t()", "bias"};
    const char *const *nm = linear ? lnames : mnames;
    static const bool optional[3] = {false, false, true};
    clops_device *dev = NULL;
    clops_status st = gemm_check_devices(op, ts, optional, 3, &dev);
    if (st)
        return st;
    int da = a->ndim, db = b->ndim;
    if (da == 0 || db == 0)
        return gemm_failf(CLOPS_INVALID_SHAPE, op, ts, nm, 3,
                          "both arguments to matmul need to be at least 1D, but they are %dD and "
                          "%dD",
                          da, db);
    /* Shapes: batch (broadcast) + [n] + [p], unit dims of 1-D operands left
     * out of the result. */
    int ba = da > 2 ? da - 2 : 0, bb = db > 2 ? db - 2 : 0, nb = 0;
    int64_t bsz[CLOPS_MAX_DIMS], prod = 1;
    if ((st = broadcast_batch(op, ts, nm, ba, a->sizes, bb, b->sizes, &nb, bsz)))
        return st;
    for (int i = 0; i < nb; i++)
        prod *= bsz[i];
    if ((st = matmul_checks(op, ts, nm, a, b, addend, prod)))
        return st;
    clops_dtype dt = a->dtype;
    if ((st = blas_check_dtype(engine, op, dt, dev)) ||
        (st = gemm_check_out_dtype(op, variant, dst, dt)))
        return st;
    if (nb + 2 > CLOPS_MAX_DIMS)
        return gemm_failf(CLOPS_INVALID_SHAPE, op, ts, nm, 3, "too many dimensions");
    int64_t n = da > 1 ? a->sizes[da - 2] : 1, k = a->sizes[da - 1];
    int64_t p = db > 1 ? b->sizes[db - 1] : 1;
    int64_t shape[CLOPS_MAX_DIMS];
    int nd = nb;
    memcpy(shape, bsz, sizeof(int64_t) * (size_t)nb);
    if (da > 1)
        shape[nd++] = n;
    if (db > 1)
        shape[nd++] = p;

    clops_tensor *addx = NULL, *va = NULL, *vb = NULL, *vc = NULL;
    if (addend && (st = core_expand(addend, shape, nd, false, &addx)))
        return clops__error_prefix(st, "%s", op);
    structured_call call;
    if ((st = structured_begin(&call, op, variant, dst, dev, dt, nd, shape, ts, addend ? 3 : 2))) {
        clops_tensor_release(addx);
        return st;
    }
    clops_tensor *t = call.target;
    if (addx)
        st = gemm_seed(t, addx, clops_scalar_int(1));

    /* The three views: batch + [n, k], batch + [k, p], batch + [n, p]. */
    int64_t sz[CLOPS_MAX_DIMS], str[CLOPS_MAX_DIMS];
    memcpy(sz, bsz, sizeof(int64_t) * (size_t)nb);
    if (st == CLOPS_OK) {
        batch_strides(a, ba, nb, bsz, str);
        sz[nb] = n, sz[nb + 1] = k;
        str[nb] = da > 1 ? a->strides[da - 2] : 1;
        str[nb + 1] = a->strides[da - 1];
        st = gemm_view(a, nb + 2, sz, str, a->offset, &va);
    }
    if (st == CLOPS_OK) {
        batch_strides(b, bb, nb, bsz, str);
        sz[nb] = k, sz[nb + 1] = p;
        str[nb] = db > 1 ? b->strides[db - 2] : b->strides[0];
        str[nb + 1] = db > 1 ? b->strides[db - 1] : 1;
        st = gemm_view(b, nb + 2, sz, str, b->offset, &vb);
    }
    if (st == CLOPS_OK) {
        memcpy(str, t->strides, sizeof(int64_t) * (size_t)nb);
        sz[nb] = n, sz[nb + 1] = p;
        int at = nb;
        str[nb] = da > 1 ? t->strides[at++] : 1;
        str[nb + 1] = db > 1 ? t->strides[at] : 1;
        st = gemm_view(t, nb + 2, sz, str, t->offset, &vc);
    }
    if (st == CLOPS_OK)
        st = gemm_run_nd(engine, op, nb, va, vb, vc, clops_scalar_int(1),
                         clops_scalar_int(addx ? 1 : 0));
    clops_tensor_release(va);
    clops_tensor_release(vb);
    clops_tensor_release(vc);
    clops_tensor_release(addx);
    return structured_finish(&call, st, out);
}

/* linear(input, weight, bias) = input @ weight.t() + bias. */
static clops_status linear_impl(blas_gemm_fn engine, pw_variant variant, clops_tensor *dst,
                                clops_tensor *input, clops_tensor *weight, clops_tensor *bias,
                                clops_tensor **out)
{
    static const char op[] = "linear";
    clops_tensor *ts[] = {input, weight, bias};
    static const char *const nm[] = {"input", "weight", "bias"};
    static const bool optional[3] = {false, false, true};
    clops_device *dev = NULL;
    clops_status st = gemm_check_devices(op, ts, optional, 3, &dev);
    if (st)
        return st;
    if (weight->ndim > 2)
        return FAIL(CLOPS_INVALID_SHAPE,
                    "t() expects a tensor with <= 2 dimensions, but self is %dD", weight->ndim);
    clops_tensor *wt = NULL;
    if (weight->ndim == 2) {
        int64_t sz[2] = {weight->sizes[1], weight->sizes[0]};
        int64_t str[2] = {weight->strides[1], weight->strides[0]};
        st = gemm_view(weight, 2, sz, str, weight->offset, &wt);
    } else {
        wt = clops_tensor_retain(weight);
    }
    if (st == CLOPS_OK)
        st = gemm_matmul_impl(engine, op, variant, dst, input, wt, bias, out);
    clops_tensor_release(wt);
    return st;
}

/* --- vector products ------------------------------------------------------------ */

/* mv(self, vec): [M, K] @ [K]. */
static clops_status mv_impl(blas_gemm_fn engine, pw_variant variant, clops_tensor *dst,
                            clops_tensor *self, clops_tensor *vec, clops_tensor **out)
{
    static const char op[] = "mv";
    clops_tensor *ts[] = {self, vec};
    static const char *const nm[] = {"self", "vec"};
    clops_device *dev = NULL;
    clops_status st = gemm_check_devices(op, ts, NULL, 2, &dev);
    if (st)
        return st;
    if (self->ndim != 2 || vec->ndim != 1)
        return FAIL(CLOPS_INVALID_SHAPE, "vector + matrix @ vector expected, got 1, %d, %d",
                    self->ndim, vec->ndim);
    if (self->sizes[1] != vec->sizes[0])
        return FAIL(CLOPS_INVALID_SHAPE,
                    "size mismatch, got input (%lld), mat (%lldx%lld), vec (%lld)",
                    (long long)self->sizes[0], (long long)self->sizes[0], (long long)self->sizes[1],
                    (long long)vec->sizes[0]);
    if (self->dtype != vec->dtype)
        return FAIL(CLOPS_INVALID_DTYPE,
                    "addmv input tensors must have the same dtype, but got %s, %s, and %s",
                    gemm_scalartype_name(vec->dtype), gemm_scalartype_name(self->dtype),
                    gemm_scalartype_name(vec->dtype));
    clops_dtype dt = self->dtype;
    if ((st = blas_check_dtype(engine, op, dt, dev)) ||
        (st = gemm_check_out_dtype(op, variant, dst, dt)))
        return st;
    int64_t shape[1] = {self->sizes[0]};
    structured_call call;
    if ((st = structured_begin(&call, op, variant, dst, dev, dt, 1, shape, ts, 2)))
        return st;
    clops_tensor *vb = NULL, *vc = NULL;
    st = vec_as_matrix(vec, true, &vb);
    if (st == CLOPS_OK)
        st = vec_as_matrix(call.target, true, &vc);
    if (st == CLOPS_OK)
        st = gemm_run_nd(engine, op, 0, self, vb, vc, clops_scalar_int(1), clops_scalar_int(0));
    clops_tensor_release(vb);
    clops_tensor_release(vc);
    return structured_finish(&call, st, out);
}

/* addmv(self, mat, vec, beta, alpha) = beta * self + alpha * mat @ vec. */
static clops_status addmv_impl(blas_gemm_fn engine, pw_variant variant, clops_tensor *dst,
                               clops_tensor *self, clops_tensor *mat, clops_tensor *vec,
                               clops_scalar beta, clops_scalar alpha, clops_tensor **out)
{
    static const char op[] = "addmv";
    clops_tensor *ts[] = {self, mat, vec};
    static const char *const nm[] = {"self", "mat", "vec"};
    clops_device *dev = NULL;
    clops_status st = gemm_check_devices(op, ts, NULL, 3, &dev);
    if (st)
        return st;
    if (mat->ndim != 2 || vec->ndim != 1 || self->ndim > 1)
        return FAIL(CLOPS_INVALID_SHAPE, "vector + matrix @ vector expected, got %d, %d, %d",
                    self->ndim, mat->ndim, vec->ndim);
    int64_t sn = tensor_numel(self);
    if (mat->sizes[1] != vec->sizes[0] || (mat->sizes[0] != sn && sn != 1))
        return FAIL(CLOPS_INVALID_SHAPE,
                    "size mismatch, got input (%lld), mat (%lldx%lld), vec (%lld)", (long long)sn,
                    (long long)mat->sizes[0], (long long)mat->sizes[1], (long long)vec->sizes[0]);
    if (self->dtype != mat->dtype || mat->dtype != vec->dtype)
        return FAIL(CLOPS_INVALID_DTYPE,
                    "addmv input tensors must have the same dtype, but got %s, %s, and %s",
                    gemm_scalartype_name(self->dtype), gemm_scalartype_name(mat->dtype),
                    gemm_scalartype_name(vec->dtype));
    clops_dtype dt = mat->dtype;
    if ((st = blas_check_dtype(engine, op, dt, dev)) ||
        (st = gemm_check_out_dtype(op, variant, dst, dt)))
        return st;
    int64_t shape[1] = {mat->sizes[0]};
    clops_tensor *selfx = NULL, *vb = NULL, *vc = NULL;
    if ((st = core_expand(self, shape, 1, false, &selfx)))
        return clops__error_prefix(st, "%s", op);
    structured_call call;
    if ((st = structured_begin(&call, op, variant, dst, dev, dt, 1, shape, ts, 3))) {
        clops_tensor_release(selfx);
        return st;
    }
    st = gemm_seed(call.target, variant == PW_INPLACE ? self : selfx, beta);
    if (st == CLOPS_OK)
        st = vec_as_matrix(vec, true, &vb);
    if (st == CLOPS_OK)
        st = vec_as_matrix(call.target, true, &vc);
    if (st == CLOPS_OK)
        st = gemm_run_nd(engine, op, 0, mat, vb, vc, alpha,
                         gemm_scalar_is_zero(beta) ? clops_scalar_int(0) : beta);
    clops_tensor_release(selfx);
    clops_tensor_release(vb);
    clops_tensor_release(vc);
    return structured_finish(&call, st, out);
}

/* dot(self, tensor): a zero-dim result. */
static clops_status dot_impl(blas_gemm_fn engine, pw_variant variant, clops_tensor *dst,
                             clops_tensor *self, clops_tensor *tensor, clops_tensor **out)
{
    static const char op[] = "dot";
    clops_tensor *ts[] = {self, tensor};
    static const char *const nm[] = {"self", "tensor"};
    clops_device *dev = NULL;
    clops_status st = gemm_check_devices(op, ts, NULL, 2, &dev);
    if (st)
        return st;
    if (self->ndim != 1 || tensor->ndim != 1)
        return FAIL(CLOPS_INVALID_SHAPE, "1D tensors expected, but got %dD and %dD tensors",
                    self->ndim, tensor->ndim);
    if (self->dtype != tensor->dtype)
        return FAIL(CLOPS_INVALID_DTYPE,
                    "dot : expected both vectors to have same dtype, but found %s and %s",
                    gemm_scalartype_name(self->dtype), gemm_scalartype_name(tensor->dtype));
    if (self->sizes[0] != tensor->sizes[0])
        return FAIL(CLOPS_INVALID_SHAPE,
                    "inconsistent tensor size, expected tensor [%lld] and src [%lld] to have the "
                    "same number of elements, but got %lld and %lld elements respectively",
                    (long long)self->sizes[0], (long long)tensor->sizes[0],
                    (long long)self->sizes[0], (long long)tensor->sizes[0]);
    clops_dtype dt = self->dtype;
    if ((st = blas_check_dtype(engine, op, dt, dev)))
        return st;
    if (variant == PW_OUT && dst && dst->dtype != dt)
        return FAIL(CLOPS_INVALID_DTYPE, "result dtype %s does not match input dtype %s",
                    gemm_scalartype_name(dst->dtype), gemm_scalartype_name(dt));
    structured_call call;
    if ((st = structured_begin(&call, op, variant, dst, dev, dt, 0, NULL, ts, 2)))
        return st;
    clops_tensor *va = NULL, *vb = NULL, *vc = NULL;
    st = vec_as_matrix(self, false, &va);
    if (st == CLOPS_OK)
        st = vec_as_matrix(tensor, true, &vb);
    if (st == CLOPS_OK)
        st = vec_as_matrix(call.target, true, &vc);
    if (st == CLOPS_OK)
        st = gemm_run_nd(engine, op, 0, va, vb, vc, clops_scalar_int(1), clops_scalar_int(0));
    clops_tensor_release(va);
    clops_tensor_release(vb);
    clops_tensor_release(vc);
    return structured_finish(&call, st, out);
}

/* x converted to dtype dt (a new reference; x itself when it has it). */
static clops_status as_dtype(clops_tensor *x, clops_dtype dt, clops_tensor **out)
{
    if (x->dtype == dt) {
        *out = clops_tensor_retain(x);
        return CLOPS_OK;
    }
    return core_to_copy(x, dt, NULL, out);
}

/* The k = 1 product outer(x, y) written into target (beta * target added). */
static clops_status outer_run(blas_gemm_fn engine, const char *op, clops_tensor *x, clops_tensor *y,
                              clops_tensor *target, clops_scalar alpha, clops_scalar beta)
{
    clops_tensor *cx = NULL, *cy = NULL, *va = NULL, *vb = NULL;
    clops_status st = as_dtype(x, target->dtype, &cx);
    if (st == CLOPS_OK)
        st = as_dtype(y, target->dtype, &cy);
    if (st == CLOPS_OK)
        st = vec_as_matrix(cx, true, &va);
    if (st == CLOPS_OK)
        st = vec_as_matrix(cy, false, &vb);
    if (st == CLOPS_OK)
        st = gemm_run_nd(engine, op, 0, va, vb, target, alpha, beta);
    clops_tensor_release(cx);
    clops_tensor_release(cy);
    clops_tensor_release(va);
    clops_tensor_release(vb);
    return st;
}

/* outer(self, vec2) (and its alias ger): promotes like PyTorch's mul. */
static clops_status outer_impl(blas_gemm_fn engine, const char *op, pw_variant variant,
                               clops_tensor *dst, clops_tensor *self, clops_tensor *vec2,
                               clops_tensor **out)
{
    clops_tensor *ts[] = {self, vec2};
    static const char *const nm[] = {"self", "vec2"};
    clops_device *dev = NULL;
    clops_status st = gemm_check_devices(op, ts, NULL, 2, &dev);
    if (st)
        return st;
    if (self->ndim != 1)
        return FAIL(CLOPS_INVALID_SHAPE, "Expected 1-D argument self, but got %d-D", self->ndim);
    if (vec2->ndim != 1)
        return FAIL(CLOPS_INVALID_SHAPE, "Expected 1-D argument vec2, but got %d-D", vec2->ndim);
    clops_dtype dt = pw_promote_types(self->dtype, vec2->dtype);
    if ((st = blas_check_dtype(engine, op, dt, dev)))
        return st;
    int64_t shape[2] = {self->sizes[0], vec2->sizes[0]};
    structured_call call;
    if ((st = structured_begin(&call, op, variant, dst, dev, dt, 2, shape, ts, 2)))
        return st;
    st = outer_run(engine, op, self, vec2, call.target, clops_scalar_int(1), clops_scalar_int(0));
    return structured_finish(&call, st, out);
}

/* PyTorch's checks of addr's scalars against the result dtype. */
static clops_status addr_scalar_check(const char *op, clops_tensor *const *ts,
                                      const char *const *nm, clops_dtype dt, clops_scalar s,
                                      const char *name)
{
    if (s.kind == CLOPS_SCALAR_BOOL && dt != CLOPS_BOOL)
        return gemm_failf(CLOPS_INVALID_ARGUMENT, op, ts, nm, 3,
                          "Boolean %s only supported for Boolean results.", name);
    if (!clops_dtype_is_floating(dt) && s.kind == CLOPS_SCALAR_FLOAT)
        return gemm_failf(CLOPS_INVALID_ARGUMENT, op, ts, nm, 3,
                          "For integral input tensors, argument %s must not be a floating point "
                          "number.",
                          name);
    return CLOPS_OK;
}

/* addr(self, vec1, vec2, beta, alpha) = beta * self + alpha * outer(vec1, vec2). */
static clops_status addr_impl(blas_gemm_fn engine, pw_variant variant, clops_tensor *dst,
                              clops_tensor *self, clops_tensor *vec1, clops_tensor *vec2,
                              clops_scalar beta, clops_scalar alpha, clops_tensor **out)
{
    static const char op[] = "addr";
    clops_tensor *ts[] = {self, vec1, vec2};
    static const char *const nm[] = {"self", "vec1", "vec2"};
    clops_device *dev = NULL;
    clops_status st = gemm_check_devices(op, ts, NULL, 3, &dev);
    if (st)
        return st;
    if (vec1->ndim != 1)
        return FAIL(CLOPS_INVALID_SHAPE, "Expected 1-D argument vec1, but got %d-D", vec1->ndim);
    if (vec2->ndim != 1)
        return FAIL(CLOPS_INVALID_SHAPE, "Expected 1-D argument vec2, but got %d-D", vec2->ndim);
    int64_t shape[2] = {vec1->sizes[0], vec2->sizes[0]};
    char a[400], b[400], c[400];
    if (variant == PW_INPLACE && self->ndim != 2)
        return FAIL(CLOPS_INVALID_SHAPE, "2D tensor expected, got %dD tensor for input",
                    self->ndim);
    if (variant == PW_INPLACE && (self->sizes[0] != shape[0] || self->sizes[1] != shape[1]))
        return FAIL(CLOPS_INVALID_SHAPE, "size mismatch, input: %s, v1: %s, v2: %s",
                    clops__fmt_shape(a, sizeof a, self->ndim, self->sizes),
                    clops__fmt_shape(b, sizeof b, 1, vec1->sizes),
                    clops__fmt_shape(c, sizeof c, 1, vec2->sizes));
    pw_type_operand tops[3] = {pw_tensor_operand(self->dtype, self->ndim),
                               pw_tensor_operand(vec1->dtype, 1),
                               pw_tensor_operand(vec2->dtype, 1)};
    clops_dtype dt = pw_result_type(tops, 3);
    if ((st = addr_scalar_check(op, ts, nm, dt, beta, "beta")) ||
        (st = addr_scalar_check(op, ts, nm, dt, alpha, "alpha")) ||
        (st = blas_check_dtype(engine, op, dt, dev)))
        return st;
    clops_tensor *selfx = NULL;
    if ((st = core_expand(self, shape, 2, false, &selfx)))
        return clops__error_prefix(st, "%s", op);
    structured_call call;
    if ((st = structured_begin(&call, op, variant, dst, dev, dt, 2, shape, ts, 3))) {
        clops_tensor_release(selfx);
        return st;
    }
    st = gemm_seed(call.target, variant == PW_INPLACE ? self : selfx, beta);
    if (st == CLOPS_OK)
        st = outer_run(engine, op, vec1, vec2, call.target, alpha,
                       gemm_scalar_is_zero(beta) ? clops_scalar_int(0) : beta);
    clops_tensor_release(selfx);
    return structured_finish(&call, st, out);
}

#undef FAIL

/* --- the family functions of dispatch/inventory/gemm.yaml: one for every device, the
 * engine chosen from the tensors' device (gemm_engine_of) ------------------- */

clops_status gemm_matmul(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                         clops_tensor *other, clops_tensor **out)
{
    return gemm_matmul_impl(gemm_engine_of(self), "matmul", variant, dst, self, other, NULL, out);
}

clops_status gemm_linear(pw_variant variant, clops_tensor *dst, clops_tensor *input,
                         clops_tensor *weight, clops_tensor *bias, clops_tensor **out)
{
    return linear_impl(gemm_engine_of(input), variant, dst, input, weight, bias, out);
}

clops_status gemm_mv(pw_variant variant, clops_tensor *dst, clops_tensor *self, clops_tensor *vec,
                     clops_tensor **out)
{
    return mv_impl(gemm_engine_of(self), variant, dst, self, vec, out);
}

clops_status gemm_addmv(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                        clops_tensor *mat, clops_tensor *vec, clops_scalar beta, clops_scalar alpha,
                        clops_tensor **out)
{
    return addmv_impl(gemm_engine_of(self), variant, dst, self, mat, vec, beta, alpha, out);
}

clops_status gemm_dot(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                      clops_tensor *tensor, clops_tensor **out)
{
    return dot_impl(gemm_engine_of(self), variant, dst, self, tensor, out);
}

clops_status gemm_outer(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                        clops_tensor *vec2, clops_tensor **out)
{
    return outer_impl(gemm_engine_of(self), "outer", variant, dst, self, vec2, out);
}

/* ger: outer's deprecated alias. */
clops_status gemm_ger(pw_variant variant, clops_tensor *dst, clops_tensor *self, clops_tensor *vec2,
                      clops_tensor **out)
{
    return outer_impl(gemm_engine_of(self), "ger", variant, dst, self, vec2, out);
}

clops_status gemm_addr(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                       clops_tensor *vec1, clops_tensor *vec2, clops_scalar beta,
                       clops_scalar alpha, clops_tensor **out)
{
    return addr_impl(gemm_engine_of(self), variant, dst, self, vec1, vec2, beta, alpha, out);
}
