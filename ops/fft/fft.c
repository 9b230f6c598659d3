/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ops/fft/fft.c: PyTorch's _fft_r2c, _fft_c2r and _fft_c2c (the FFT family,
 * docs/fft.md).
 *
 * The ops check their arguments as PyTorch does, compute the result's shape
 * and dtype, and run by device kind (kit_run):
 *
 *   KIT_HOST  the CPU device runs the reference, ref/fft.c (a direct DFT in
 *             long double);
 *   KIT_GPU   every OpenCL device (POCL and GPUs alike) runs VkFFT's
 *             complex-to-complex transforms (ops/fft/fft_vkfft.c) in passes
 *             of at most three dims: the tensor is permuted so that the
 *             pass's dims are innermost, copied contiguous, transformed in
 *             place, and permuted back.  r2c is the c2c transform of the
 *             input as complex numbers (imaginary part 0), cut to n/2 + 1
 *             along the last dim when one-sided; c2r is the real part of the
 *             backward c2c transform of Z, where along the last dim Z holds
 *             the first n/2 + 1 inputs, the ones strictly between the first
 *             and the n/2-th doubled, and zeros after:
 *               x[j] = Re sum_k Z[k] exp(2 pi i j k / n)
 *             is the Hermitian sum PyTorch's c2r computes (the imaginary
 *             parts of Z[0] and of Z[n/2] for even n only reach the
 *             imaginary part of x, which is dropped).
 *
 * normalization is ATen's: 0 none, 1 by 1/sqrt(n), 2 by 1/n, n the product
 * of the signal sizes; it is applied after the transform, in the result's
 * precision.
 */
#include <math.h>
#include <string.h>

#include "codegen_pointwise/pw.h"
#include "dispatch/structured.h"
#include "ops/fft/fft.h"
#include "ops/kernels_generated.h"
#include "ops/kit/kit.h"
#include "ops/tensor/tensor.h"
#include "ref/ref_fft.h"

/* A checked call: the reference's problem plus where the result goes. */
typedef struct fft_job {
    const char *op;
    ref_fft_problem p; /* in = self, out = the structured target */
} fft_job;

/* ---- arguments ---------------------------------------------------------- */

static clops_status check_args(fft_job *j, clops_tensor *self, const int64_t *dim, int dim_len,
                               int64_t normalization, int *ndim_out, int64_t *out_sizes,
                               clops_dtype *out_dtype)
{
    const char *op = j->op;
    ref_fft_kind kind = j->p.kind;
    if (kind == REF_FFT_R2C && self->dtype != CLOPS_FLOAT32 && self->dtype != CLOPS_FLOAT64)
        return clops__fail(CLOPS_INVALID_DTYPE,
                           "%s: Only supports floating-point dtypes (float32, float64 on clops), "
                           "but found: %s",
                           op, clops_dtype_name(self->dtype));
    if (kind != REF_FFT_R2C && !clops_dtype_is_complex(self->dtype))
        return clops__fail(CLOPS_INVALID_DTYPE,
                           "%s: Only supports complex dtypes, but found: %s", op,
                           clops_dtype_name(self->dtype));
    if (dim_len < 1)
        return clops__fail(CLOPS_INVALID_ARGUMENT, "%s: dim must name at least one dimension",
                           op);
    if (dim_len > self->ndim || dim_len > CLOPS_MAX_DIMS)
        return clops__fail(CLOPS_INVALID_ARGUMENT,
                           "%s: %d dims given for a tensor of %d dims", op, dim_len, self->ndim);
    if (normalization < 0 || normalization > 2)
        return clops__fail(CLOPS_INVALID_ARGUMENT,
                           "%s: normalization must be 0 (none), 1 (by 1/sqrt(n)) or 2 (by 1/n), "
                           "got %lld",
                           op, (long long)normalization);
    bool seen[CLOPS_MAX_DIMS] = {false};
    for (int i = 0; i < dim_len; i++) {
        int d;
        clops_status st = wrap_dim(op, dim[i], self->ndim, &d);
        if (st)
            return st;
        if (seen[d])
            return clops__fail(CLOPS_INVALID_ARGUMENT, "%s: dims must be unique, dim %d repeats",
                               op, d);
        seen[d] = true;
        j->p.dims[i] = d;
    }
    j->p.ndims = dim_len;
    j->p.normalization = (int)normalization;
    int last = j->p.dims[dim_len - 1];
    for (int i = 0; i < dim_len; i++) {
        int d = j->p.dims[i];
        if (self->sizes[d] < 1 && !(kind == REF_FFT_C2R && d == last))
            return clops__fail(CLOPS_INVALID_ARGUMENT,
                               "%s: Invalid number of data points (%lld) specified in dim %d", op,
                               (long long)self->sizes[d], d);
    }
    *ndim_out = self->ndim;
    memcpy(out_sizes, self->sizes, sizeof(int64_t) * (size_t)self->ndim);
    if (kind == REF_FFT_R2C) {
        if (j->p.forward) /* onesided */
            out_sizes[last] = self->sizes[last] / 2 + 1;
        *out_dtype = clops_dtype_to_complex(self->dtype);
        j->p.forward = true;
    } else if (kind == REF_FFT_C2R) {
        int64_t n = j->p.last_dim_size;
        if (n < 1)
            return clops__fail(CLOPS_INVALID_ARGUMENT,
                               "%s: Invalid number of data points (%lld) specified", op,
                               (long long)n);
        if (self->sizes[last] != n / 2 + 1 && self->sizes[last] != n)
            return clops__fail(CLOPS_INVALID_SHAPE,
                               "%s: the last transformed dim (%d) has %lld values; a real output "
                               "of %lld points needs %lld (n/2 + 1) or %lld",
                               op, last, (long long)self->sizes[last], (long long)n,
                               (long long)(n / 2 + 1), (long long)n);
        out_sizes[last] = n;
        *out_dtype = clops_dtype_to_real(self->dtype);
        j->p.forward = false;
    } else {
        *out_dtype = self->dtype;
    }
    return CLOPS_OK;
}

/* ---- OpenCL devices ----------------------------------------------------- */

/* Multiplies t in place by f (complex tensors as their real view). */
static clops_status scale_by(clops_tensor *t, double f)
{
    if (f == 1.0 || tensor_numel(t) == 0)
        return CLOPS_OK;
    clops_tensor *rv = NULL;
    clops_status st = CLOPS_OK;
    if (clops_dtype_is_complex(t->dtype))
        st = core_view_as_real(t, &rv);
    else
        rv = clops_tensor_retain(t);
    if (st)
        return st;
    pw_operand ops[2] = {pw_tensor(rv), pw_scalar(clops_scalar_float(f))};
    st = pw_run(&pw_op_mul, PW_INPLACE, ops, NULL, NULL, NULL, NULL);
    clops_tensor_release(rv);
    return st;
}

/* The c2c transform of x (complex, any layout) over dims: a tensor on new
 * storage (possibly a permuted view of it) in *out. */
static clops_status c2c_passes(clops_tensor *x, const int *dims, int ndims, bool forward,
                               clops_tensor **out)
{
    int nd = x->ndim;
    int todo[CLOPS_MAX_DIMS], ntodo = 0;
    for (int i = 0; i < ndims; i++)
        if (x->sizes[dims[i]] > 1) /* a DFT of one point is the point */
            todo[ntodo++] = dims[i];
    /* Each pass copies its input; with no pass, the result is a copy. */
    clops_tensor *cur = NULL;
    clops_status st = CLOPS_OK;
    if (ntodo > 0)
        cur = clops_tensor_retain(x);
    else
        st = tensor_new(x->storage->device, x->dtype, nd, x->sizes, NULL, &cur);
    if (st == CLOPS_OK && ntodo == 0)
        st = tensor_copy(cur, x);
    while (st == CLOPS_OK && ntodo > 0) {
        int k = ntodo < 3 ? ntodo : 3;
        const int *g = todo + ntodo - k;
        ntodo -= k;
        /* The other dims in order, then the pass's dims in order. */
        int64_t perm[CLOPS_MAX_DIMS], inv[CLOPS_MAX_DIMS];
        int np = 0;
        for (int d = 0; d < nd; d++) {
            bool in_g = false;
            for (int i = 0; i < k; i++)
                in_g |= g[i] == d;
            if (!in_g)
                perm[np++] = d;
        }
        for (int i = 0; i < k; i++)
            perm[np++] = g[i];
        for (int i = 0; i < nd; i++)
            inv[perm[i]] = i;
        clops_tensor *p = NULL, *c = NULL, *back = NULL;
        st = core_permute(cur, perm, nd, &p);
        if (st == CLOPS_OK)
            st = tensor_new(p->storage->device, p->dtype, nd, p->sizes, NULL, &c);
        if (st == CLOPS_OK)
            st = tensor_copy(c, p);
        int64_t batch = 1;
        for (int i = 0; i < nd - k; i++)
            batch *= c ? c->sizes[i] : 1; /* a product of a tensor's sizes */
        if (st == CLOPS_OK && batch > 0) {
            fft_pass pass = {.data = c, .rank = k, .batch = batch, .forward = forward};
            for (int i = 0; i < k; i++)
                pass.n[i] = c->sizes[nd - k + i];
            st = fft_vkfft_run(&pass);
        }
        if (st == CLOPS_OK)
            st = core_permute(c, inv, nd, &back);
        clops_tensor_release(p);
        clops_tensor_release(c);
        clops_tensor_release(cur);
        cur = back;
    }
    if (st) {
        clops_tensor_release(cur);
        return st;
    }
    *out = cur;
    return CLOPS_OK;
}

static double norm_factor(const fft_job *j)
{
    const ref_fft_problem *p = &j->p;
    double n = 1;
    for (int i = 0; i < p->ndims; i++)
        n *= (double)(p->kind == REF_FFT_C2R && i == p->ndims - 1 ? p->last_dim_size
                                                                  : p->in->sizes[p->dims[i]]);
    return p->normalization == 1 ? 1.0 / sqrt(n) : p->normalization == 2 ? 1.0 / n : 1.0;
}

static clops_status run_opencl(void *arg)
{
    fft_job *j = arg;
    const ref_fft_problem *p = &j->p;
    clops_tensor *self = (clops_tensor *)p->in, *x = NULL, *r = NULL, *part = NULL;
    clops_device *dev = self->storage->device;
    int last = p->dims[p->ndims - 1];
    clops_status st = CLOPS_OK;
    if (p->kind == REF_FFT_C2C) {
        st = c2c_passes(self, p->dims, p->ndims, p->forward, &r);
    } else if (p->kind == REF_FFT_R2C) {
        st = tensor_new(dev, p->out->dtype, self->ndim, self->sizes, NULL, &x);
        if (st == CLOPS_OK)
            st = tensor_copy(x, self); /* imaginary parts 0 */
        if (st == CLOPS_OK)
            st = c2c_passes(x, p->dims, p->ndims, true, &r);
        if (st == CLOPS_OK && p->out->sizes[last] != self->sizes[last]) {
            st = core_narrow(r, last, 0, p->out->sizes[last], &part);
            clops_tensor_release(r);
            r = part;
            part = NULL;
        }
    } else {
        int64_t n = p->last_dim_size, sizes[CLOPS_MAX_DIMS];
        memcpy(sizes, self->sizes, sizeof(int64_t) * (size_t)self->ndim);
        sizes[last] = n;
        clops_tensor *src = NULL;
        st = tensor_new(dev, self->dtype, self->ndim, sizes, NULL, &x);
        if (st == CLOPS_OK)
            st = tensor_fill(x, clops_scalar_int(0));
        if (st == CLOPS_OK)
            st = core_narrow(x, last, 0, n / 2 + 1, &part);
        if (st == CLOPS_OK)
            st = core_narrow(self, last, 0, n / 2 + 1, &src);
        if (st == CLOPS_OK)
            st = tensor_copy(part, src);
        clops_tensor_release(part);
        clops_tensor_release(src);
        part = NULL;
        if (st == CLOPS_OK && (n - 1) / 2 >= 1)
            st = core_narrow(x, last, 1, (n - 1) / 2, &part);
        if (st == CLOPS_OK && part)
            st = scale_by(part, 2.0);
        clops_tensor_release(part);
        part = NULL;
        if (st == CLOPS_OK)
            st = c2c_passes(x, p->dims, p->ndims, false, &r);
    }
    if (st == CLOPS_OK)
        st = scale_by(r, norm_factor(j));
    if (st == CLOPS_OK)
        st = tensor_copy(p->out, r); /* c2r: the real parts */
    clops_tensor_release(x);
    clops_tensor_release(r);
    return st;
}

/* The CPU device's direct DFT does numel * (sum of the transformed
 * lengths) complex multiply-adds; past this it would run for hours. */
#define FFT_HOST_MAX_WORK 1e11

static clops_status run_host(void *arg)
{
    fft_job *j = arg;
    const ref_fft_problem *p = &j->p;
    double work = 0;
    for (int i = 0; i < p->ndims; i++)
        work += (double)(p->kind == REF_FFT_C2R && i == p->ndims - 1 ? p->last_dim_size
                                                                     : p->in->sizes[p->dims[i]]);
    work *= (double)tensor_numel(p->in) + (double)tensor_numel(p->out);
    if (work > FFT_HOST_MAX_WORK)
        return clops__fail(CLOPS_UNSUPPORTED,
                           "%s: the CPU device computes FFTs with its reference, a direct DFT of "
                           "O(n^2) per line; this one needs %.3g complex multiply-adds (at most "
                           "%.3g): run it on an OpenCL device",
                           j->op, work, FFT_HOST_MAX_WORK);
    return ref_fft(p);
}

static const kit_launches fft_launches = {
    .family = "fft",
    .by_kind = {[KIT_HOST] = run_host, [KIT_GPU] = run_opencl},
};

/* ---- the ops ------------------------------------------------------------ */

static clops_status fft_op(fft_job *j, pw_variant variant, clops_tensor *dst, clops_tensor *self,
                           const int64_t *dim, int dim_len, int64_t normalization,
                           clops_tensor **out)
{
    int nd = 0;
    int64_t sizes[CLOPS_MAX_DIMS];
    clops_dtype dt = CLOPS_DTYPE_NONE;
    clops_status st = check_args(j, self, dim, dim_len, normalization, &nd, sizes, &dt);
    if (st)
        return st;
    structured_call call;
    clops_tensor *inputs[1] = {self};
    st = structured_begin(&call, j->op, variant, dst, self->storage->device, dt, nd, sizes,
                          inputs, 1);
    if (st)
        return st;
    j->p.in = self;
    j->p.out = call.target;
    if (tensor_numel(call.target) > 0)
        st = kit_run(&fft_launches, self->storage->device, j);
    return structured_finish(&call, st, out);
}

clops_status fft_fn_r2c(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                        const int64_t *dim, int dim_len, int64_t normalization, bool onesided,
                        clops_tensor **out)
{
    fft_job j = {.op = "_fft_r2c", .p = {.kind = REF_FFT_R2C, .forward = onesided}};
    return fft_op(&j, variant, dst, self, dim, dim_len, normalization, out);
}

clops_status fft_fn_c2r(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                        const int64_t *dim, int dim_len, int64_t normalization,
                        int64_t last_dim_size, clops_tensor **out)
{
    fft_job j = {.op = "_fft_c2r", .p = {.kind = REF_FFT_C2R, .last_dim_size = last_dim_size}};
    return fft_op(&j, variant, dst, self, dim, dim_len, normalization, out);
}

clops_status fft_fn_c2c(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                        const int64_t *dim, int dim_len, int64_t normalization, bool forward,
                        clops_tensor **out)
{
    fft_job j = {.op = "_fft_c2c", .p = {.kind = REF_FFT_C2C, .forward = forward}};
    return fft_op(&j, variant, dst, self, dim, dim_len, normalization, out);
}
