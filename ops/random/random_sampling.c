/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ops/random/random_sampling.c: bernoulli (self, Tensor p, float p), dropout
 * (native_dropout, its backward, dropout and dropout_ composed as PyTorch's
 * CompositeImplicit dropout does), and multinomial.
 *
 * bernoulli with a float p and dropout compare one Philox word per element
 * with the integer threshold floor(p * 2^32), computed here; bernoulli with
 * a tensor p draws uniforms of p's precision and compares them with p
 * (pointwise lt), both exact, so every device agrees.  multinomial runs the
 * host algorithm of ref/random.c over the same stream and uploads the
 * indices.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "codegen_pointwise/ops_binary.h"
#include "core/tensor_impl.h"
#include "ops/tensor/tensor.h"
#include "dispatch/structured.h"
#include "ops/random/random.h"
#include "ops/random/random_internal.h"
#include "ops/kernels_generated.h"

/* A float64 copy of t on the CPU device, row-major contiguous (new
 * reference): multinomial reads it as rows.  core_to_copy keeps t's layout
 * (a transposed t gave a column-major copy, and the rows were read wrong). */
static clops_status host_f64_copy(clops_tensor *t, clops_tensor **out)
{
    clops_device *cpu = NULL;
    clops_tensor *h = NULL;
    clops_status st = clops_device_find("cpu", &cpu);
    if (st == CLOPS_OK)
        st = core_to_copy(t, CLOPS_FLOAT64, cpu, &h);
    if (st == CLOPS_OK)
        st = core_contiguous_as(h, CLOPS_FLOAT64, out);
    clops_tensor_release(h);
    return st;
}

/* --- bernoulli ---------------------------------------------------------------------- */

/* floor(p * 2^32): a word below it means "1". */
static uint64_t threshold_of(double p)
{
    return (uint64_t)floor(p * 4294967296.0);
}

/* bernoulli_(p) with a float p into t. */
static clops_status bernoulli_scalar(clops_tensor *t, double p, clops_generator *gen)
{
    if (!(p >= 0.0 && p <= 1.0))
        return clops__fail(CLOPS_INVALID_ARGUMENT,
                           "bernoulli_ expects p to be in [0, 1], but got p=%g", p);
    rnd_fill f = {0};
    f.dist = RND_DIST_BERNOULLI;
    f.ia = threshold_of(p);
    return random_fill("bernoulli_", t, f, gen);
}

/* bernoulli with probabilities p (broadcast to target's shape) into target:
 * u ~ U[0, 1) in p's precision, target = (u < p). */
static clops_status bernoulli_tensor_into(clops_tensor *target, clops_tensor *p,
                                          clops_generator *gen)
{
    clops_status st = random_require_floating("bernoulli_tensor_cpu_p_", p);
    if (st)
        return st;
    clops_tensor *h = NULL, *u = NULL, *m = NULL;
    st = host_f64_copy(p, &h);
    if (st)
        return st;
    const double *v = (const double *)h->storage->host_ptr;
    for (int64_t i = 0; i < tensor_numel(h) && st == CLOPS_OK; i++)
        if (!(v[i] >= 0.0 && v[i] <= 1.0))
            st = clops__fail(CLOPS_INVALID_ARGUMENT,
                             "Expected p_in >= 0 && p_in <= 1 to be true, but got false.");
    clops_tensor_release(h);
    clops_dtype ut = p->dtype == CLOPS_FLOAT64 ? CLOPS_FLOAT64 : CLOPS_FLOAT32;
    if (st == CLOPS_OK)
        st = tensor_new(target->storage->device, ut, target->ndim, target->sizes, NULL, &u);
    if (st == CLOPS_OK) {
        double a[2] = {0.0, 1.0};
        rnd_fill f = {0};
        st = random_uniform_params("bernoulli_", ut, a, &f);
        if (st == CLOPS_OK)
            st = random_fill("bernoulli_", u, f, gen);
    }
    if (st == CLOPS_OK) {
        pw_operand ops[2] = {pw_tensor(u), pw_tensor(p)};
        st = pw_run(&pw_op_lt, PW_FUNCTIONAL, ops, NULL, NULL, NULL, &m);
    }
    if (st == CLOPS_OK)
        st = core_copy_(target, m, false);
    clops_tensor_release(u);
    clops_tensor_release(m);
    return st;
}

clops_status random_bernoulli(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                              clops_generator *generator, clops_tensor **out)
{
    clops_status st = random_require_floating("bernoulli_tensor_cpu_self_", self);
    clops_tensor *t = NULL;
    if (st == CLOPS_OK)
        st = random_target("bernoulli", variant, dst, self, &t);
    if (st)
        return st;
    return random_finish(variant, t, bernoulli_tensor_into(t, self, generator), out);
}

clops_status random_bernoulli_tensor(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                                     clops_tensor *p, clops_generator *generator,
                                     clops_tensor **out)
{
    clops_tensor *t = NULL;
    clops_status st = random_target("bernoulli", variant, dst, self, &t);
    if (st)
        return st;
    return random_finish(variant, t, bernoulli_tensor_into(t, p, generator), out);
}

clops_status random_op_bernoulli_tensor_out(clops_tensor *self, clops_tensor *p,
                                            clops_generator *generator, clops_tensor *out)
{
    return random_bernoulli_tensor(PW_OUT, out, self, p, generator, NULL);
}

clops_status random_op_bernoulli_p(clops_tensor *self, double p, clops_generator *generator,
                                   clops_tensor **out)
{
    clops_tensor *t = NULL;
    clops_status st = random_target("bernoulli", PW_FUNCTIONAL, NULL, self, &t);
    if (st)
        return st;
    return random_finish(PW_FUNCTIONAL, t, bernoulli_scalar(t, p, generator), out);
}

clops_status random_op_bernoulli_float_(clops_tensor *self, double p, clops_generator *generator)
{
    return bernoulli_scalar(self, p, generator);
}

clops_status random_op_bernoulli_float_out(clops_tensor *self, double p, clops_generator *generator,
                                           clops_tensor *out)
{
    clops_tensor *t = NULL;
    clops_status st = random_target("bernoulli", PW_OUT, out, self, &t);
    if (st)
        return st;
    return random_finish(PW_OUT, t, bernoulli_scalar(t, p, generator), NULL);
}

/* --- dropout ------------------------------------------------------------------------ */

clops_status random_op_native_dropout(clops_tensor *input, double p, const bool *train,
                                      clops_tensor **out0, clops_tensor **out1)
{
    clops_status st = random_require_floating("native_dropout", input);
    if (st)
        return st;
    clops_device *d = input->storage->device;
    if (tensor_numel(input) == 0 || (train && !*train)) {
        clops_tensor *o = NULL, *m = NULL;
        st = core_clone(input, &o);
        if (st == CLOPS_OK)
            st = tensor_numel(input) == 0
                     ? tensor_new(d, CLOPS_BOOL, input->ndim, input->sizes, NULL, &m)
                     : clops_ones(d, CLOPS_BOOL, input->ndim, input->sizes, &m);
        if (st) {
            clops_tensor_release(o);
            return st;
        }
        *out0 = o;
        *out1 = m;
        return CLOPS_OK;
    }
    double p1m = 1.0 - p;
    if (!(p1m >= 0.0 && p1m <= 1.0))
        return clops__fail(CLOPS_INVALID_ARGUMENT,
                           "bernoulli_ expects p to be in [0, 1], but got p=%g", p1m);
    double scale = p1m == 0.0 ? 0.0 : 1.0 / p1m;
    return random_dropout("native_dropout", input, threshold_of(p), scale, NULL, out0, out1);
}

clops_status random_op_native_dropout_out(clops_tensor *input, double p, const bool *train,
                                          clops_tensor *out0, clops_tensor *out1)
{
    clops_tensor *o = NULL, *m = NULL;
    clops_status st = random_op_native_dropout(input, p, train, &o, &m);
    if (st == CLOPS_OK)
        st = tensor_resize(out0, input->ndim, input->sizes);
    if (st == CLOPS_OK)
        st = tensor_resize(out1, input->ndim, input->sizes);
    if (st == CLOPS_OK)
        st = core_copy_(out0, o, false);
    if (st == CLOPS_OK)
        st = core_copy_(out1, m, false);
    clops_tensor_release(o);
    clops_tensor_release(m);
    return st;
}

/* PyTorch's _dropout: the checks and shortcuts before native_dropout. */
static clops_status dropout_common(clops_tensor *input, double p, bool train, bool *done)
{
    if (!(p >= 0.0 && p <= 1.0))
        return clops__fail(CLOPS_INVALID_ARGUMENT,
                           "dropout probability has to be between 0 and 1, but got %g", p);
    *done = p == 0.0 || !train || tensor_numel(input) == 0;
    return CLOPS_OK;
}

clops_status random_op_dropout(clops_tensor *input, double p, bool train, clops_tensor **out)
{
    bool done = false;
    clops_status st = dropout_common(input, p, train, &done);
    if (st)
        return st;
    if (done) {
        *out = clops_tensor_retain(input);
        return CLOPS_OK;
    }
    if (p == 1.0) {
        pw_operand ops[2] = {pw_tensor(input), pw_scalar(clops_scalar_float(0.0))};
        return pw_run(&pw_op_mul, PW_FUNCTIONAL, ops, NULL, NULL, NULL, out);
    }
    clops_tensor *mask = NULL;
    st = random_op_native_dropout(input, p, &train, out, &mask);
    clops_tensor_release(mask);
    return st;
}

clops_status random_op_dropout_(clops_tensor *self, double p, bool train)
{
    bool done = false;
    clops_status st = dropout_common(self, p, train, &done);
    if (st || done)
        return st;
    if (p == 1.0) {
        pw_operand ops[2] = {pw_tensor(self), pw_scalar(clops_scalar_float(0.0))};
        return pw_run(&pw_op_mul, PW_INPLACE, ops, NULL, NULL, NULL, NULL);
    }
    clops_tensor *o = NULL, *mask = NULL;
    st = random_op_native_dropout(self, p, &train, &o, &mask);
    if (st == CLOPS_OK)
        st = core_copy_(self, o, false);
    clops_tensor_release(o);
    clops_tensor_release(mask);
    return st;
}

clops_status random_native_dropout_backward(pw_variant variant, clops_tensor *dst,
                                            clops_tensor *grad_output, clops_tensor *mask,
                                            double scale, clops_tensor **out)
{
    if (mask->dtype != CLOPS_BOOL)
        return clops__fail(CLOPS_INVALID_DTYPE, "Mask should be Bool Scalar Type%s",
                           random_torch_dtype(mask->dtype));
    clops_tensor *gm = NULL;
    pw_operand ops[2] = {pw_tensor(grad_output), pw_tensor(mask)};
    clops_status st = pw_run(&pw_op_mul, PW_FUNCTIONAL, ops, NULL, NULL, NULL, &gm);
    if (st)
        return st;
    pw_operand ops2[2] = {pw_tensor(gm), pw_scalar(clops_scalar_float(scale))};
    st = pw_run(&pw_op_mul, variant, ops2, NULL, dst, NULL, out);
    clops_tensor_release(gm);
    return st;
}

/* --- multinomial -------------------------------------------------------------------- */

/* PyTorch's argument checks of multinomial. */
static clops_status multinomial_check(clops_tensor *self, int64_t num_samples, bool replacement)
{
    if (self->ndim != 1 && self->ndim != 2)
        return clops__fail(CLOPS_INVALID_SHAPE, "prob_dist must be 1 or 2 dim");
    if (!clops_dtype_is_floating(self->dtype))
        return clops__fail(CLOPS_INVALID_DTYPE,
                           "multinomial only supports floating-point dtypes for input, got: %s",
                           random_torch_dtype(self->dtype));
    if (num_samples <= 0)
        return clops__fail(CLOPS_INVALID_ARGUMENT, "cannot sample n_sample <= 0 samples");
    int64_t k = self->sizes[self->ndim - 1];
    if (!replacement && num_samples > k)
        return clops__fail(
            CLOPS_INVALID_ARGUMENT,
            "cannot sample n_sample > prob_dist.size(-1) samples without replacement");
    if (k > ((int64_t)1 << 24))
        return clops__fail(CLOPS_INVALID_ARGUMENT, "number of categories cannot exceed 2^24");
    return CLOPS_OK;
}

clops_status random_multinomial(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                                int64_t num_samples, bool replacement, clops_generator *generator,
                                clops_tensor **out)
{
    clops_status st = multinomial_check(self, num_samples, replacement);
    if (st)
        return st;
    int64_t k = self->sizes[self->ndim - 1];
    int64_t rows = self->ndim == 2 ? self->sizes[0] : 1;
    int64_t sizes[2] = {rows, num_samples};
    int ndim = self->ndim;
    const int64_t *shape = ndim == 2 ? sizes : sizes + 1;
    clops_tensor *h = NULL, *t = NULL;
    int64_t *idx = NULL;
    st = host_f64_copy(self, &h);
    if (st)
        return st;
    const double *w = (const double *)h->storage->host_ptr;
    for (int64_t r = 0; r < rows && st == CLOPS_OK; r++) {
        double sum = 0.0;
        for (int64_t j = 0; j < k && st == CLOPS_OK; j++) {
            double x = w[r * k + j];
            if (!(x >= 0.0) || isinf(x))
                st = clops__fail(CLOPS_INVALID_ARGUMENT,
                                 "probability tensor contains either `inf`, `nan` or element < 0");
            sum += x;
        }
        if (st == CLOPS_OK && !(sum > 0.0))
            st = clops__fail(CLOPS_INVALID_ARGUMENT,
                             "invalid multinomial distribution (sum of probabilities <= 0)");
    }
    if (st == CLOPS_OK && variant == PW_OUT && dst->dtype != CLOPS_INT64)
        st = clops__fail(CLOPS_INVALID_DTYPE, "multinomial expects Long tensor out, got: %s",
                         random_torch_dtype(dst->dtype));
    if (st == CLOPS_OK) {
        idx = malloc((size_t)(rows * num_samples > 0 ? rows * num_samples : 1) * sizeof *idx);
        if (!idx)
            st = CLOPS__HOST_OOM("multinomial indices");
    }
    uint64_t seed = 0, offset = 0;
    if (st == CLOPS_OK)
        st = random_reserve(generator, self->storage->device,
                            rnd_multinomial_counters(rows, k, num_samples, replacement), &seed,
                            &offset);
    if (st == CLOPS_OK && !ref_multinomial(w, rows, k, num_samples, replacement, seed, offset, idx))
        st = CLOPS__HOST_OOM("multinomial");
    if (st == CLOPS_OK) {
        if (variant == PW_OUT) {
            st = tensor_resize(dst, ndim, shape);
            t = st ? NULL : clops_tensor_retain(dst);
        } else {
            st = tensor_new(self->storage->device, CLOPS_INT64, ndim, shape, NULL, &t);
        }
    }
    if (st == CLOPS_OK)
        st = clops_tensor_from_host(t, idx, (size_t)(rows * num_samples) * sizeof *idx);
    free(idx);
    clops_tensor_release(h);
    return random_finish(variant, t, st, out);
}
