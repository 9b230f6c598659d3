/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ops/random/random_ops.c: the random ops that sample into an existing tensor or
 * one shaped like an input: uniform, exponential, geometric, log_normal,
 * cauchy, random (three overloads), normal (in-place, out and the Tensor
 * overloads), bernoulli (self, Tensor p, float p), native_dropout and its
 * backward, dropout, and multinomial.
 *
 * Each function checks its arguments with PyTorch's messages, computes the
 * distribution's parameters on the host for the destination's dtype (so
 * the CPU reference and every device see the same rounded values), and
 * calls the engine (ops/random/random.c).  The factories are in
 * ops/random/random_factories.c.  docs/random.md lists the offset each op uses.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen_pointwise/ops_binary.h"
#include "core/tensor_impl.h"
#include "ops/tensor/tensor.h"
#include "dispatch/structured.h"
#include "ops/random/random.h"
#include "ops/random/random_internal.h"
#include "ops/kernels_generated.h"

/* --- dtype names as PyTorch prints them ------------------------------------------ */

const char *random_torch_dtype(clops_dtype dt)
{
    switch (dt) {
    case CLOPS_BOOL:
        return "Bool";
    case CLOPS_UINT8:
        return "Byte";
    case CLOPS_INT8:
        return "Char";
    case CLOPS_INT16:
        return "Short";
    case CLOPS_INT32:
        return "Int";
    case CLOPS_INT64:
        return "Long";
    case CLOPS_FLOAT16:
        return "Half";
    case CLOPS_BFLOAT16:
        return "BFloat16";
    case CLOPS_FLOAT32:
        return "Float";
    case CLOPS_FLOAT64:
        return "Double";
    default:
        return "?";
    }
}

/* The C++ type name PyTorch's range checks print ("signed char"). */
static const char *cpp_type(clops_dtype dt)
{
    static const char *const names[] = {"bool",  "unsigned char", "signed char", "short",
                                        "int",   "long",          "c10::Half",   "c10::BFloat16",
                                        "float", "double"};
    return (int)dt >= 0 && dt < CLOPS_DTYPE_COUNT ? names[dt] : "?";
}

clops_status random_require_floating(const char *kernel, const clops_tensor *t)
{
    if (!clops_dtype_is_floating(t->dtype))
        return clops__fail(CLOPS_INVALID_DTYPE, "\"%s\" not implemented for '%s'", kernel,
                           random_torch_dtype(t->dtype));
    return CLOPS_OK;
}

/* --- the destination of a sampler --------------------------------------------------- */

clops_status random_target(const char *op, pw_variant variant, clops_tensor *dst,
                           clops_tensor *like, clops_tensor **target)
{
    if (variant == PW_INPLACE) {
        *target = clops_tensor_retain(dst);
        return CLOPS_OK;
    }
    if (variant == PW_OUT) {
        clops_status st = CLOPS_OK;
        bool same = dst->ndim == like->ndim &&
                    memcmp(dst->sizes, like->sizes, sizeof(int64_t) * (size_t)like->ndim) == 0;
        if (!same)
            st = tensor_resize(dst, like->ndim, like->sizes);
        if (st == CLOPS_OK)
            st = structured_check_overlap(op, dst, &like, 1);
        *target = st ? NULL : clops_tensor_retain(dst);
        return st;
    }
    return tensor_new(like->storage->device, like->dtype, like->ndim, like->sizes, NULL, target);
}

clops_status random_finish(pw_variant variant, clops_tensor *target, clops_status st,
                           clops_tensor **out)
{
    if (st == CLOPS_OK && variant == PW_FUNCTIONAL && out) {
        *out = target;
        return CLOPS_OK;
    }
    clops_tensor_release(target);
    return st;
}

/* Computes a fill's parameters for the target's dtype from ctx. */
typedef clops_status (*params_fn)(const char *op, clops_dtype dtype, const void *ctx, rnd_fill *f);

/* Runs one sampler: target, parameters for its dtype, fill, result. */
static clops_status sample(const char *op, pw_variant variant, clops_tensor *dst,
                           clops_tensor *self, params_fn params, const void *ctx,
                           clops_generator *gen, clops_tensor **out)
{
    clops_tensor *t = NULL;
    clops_status st = random_target(op, variant, dst, self, &t);
    if (st)
        return st;
    rnd_fill f = {0};
    st = params(op, t->dtype, ctx, &f);
    if (st == CLOPS_OK)
        st = random_fill(op, t, f, gen);
    return random_finish(variant, t, st, out);
}

/* Rounds x to the compute precision of dtype (float32 unless float64). */
static double to_compute(clops_dtype dtype, double x)
{
    return dtype == CLOPS_FLOAT64 ? x : (double)(float)x;
}

/* --- continuous distributions ------------------------------------------------------- */

clops_status random_uniform_params(const char *op, clops_dtype dtype, const double *args,
                                   rnd_fill *f)
{
    double from = args[0], to = args[1];
    if (!clops_dtype_is_floating(dtype))
        return clops__fail(CLOPS_INVALID_DTYPE, "\"check_uniform_bounds\" not implemented for '%s'",
                           random_torch_dtype(dtype));
    if (!(from <= to))
        return clops__fail(
            CLOPS_INVALID_ARGUMENT,
            "uniform_ expects to return a [from, to) range, but found from=%g > to=%g", from, to);
    double lim = dtype == CLOPS_FLOAT64    ? 1.7976931348623157e308
                 : dtype == CLOPS_FLOAT16  ? 65504.0
                 : dtype == CLOPS_BFLOAT16 ? 3.3895313892515355e38
                                           : 3.4028234663852886e38;
    if (!(to - from <= lim))
        return clops__fail(CLOPS_INVALID_ARGUMENT,
                           "uniform_ expects to-from <= std::numeric_limits<%s>::max(), but found "
                           "to=%g and from=%g which result in to-from to exceed the limit",
                           random_torch_dtype(dtype), to, from);
    f->dist = RND_DIST_UNIFORM;
    f->a = to_compute(dtype, from);
    f->c = to_compute(dtype, to);
    f->b = to_compute(dtype, f->c - f->a);
    return CLOPS_OK;
}

/* The checks of the continuous samplers other than uniform_: which
 * argument must be positive (or, for normal, non-negative), PyTorch's
 * messages, and the kernel name PyTorch's dtype error shows. */
typedef struct cont_rule {
    const char *kernel;
    int arg;
    bool strict;
    const char *msg;
} cont_rule;

static const cont_rule CONT_RULES[] = {
    [RND_DIST_NORMAL] = {"normal_kernel_cpu", 1, false,
                         "normal expects std >= 0.0, but found std %g"},
    [RND_DIST_LOG_NORMAL] = {"log_normal_cpu", 1, true,
                             "log_normal_ expects std > 0.0, but found std=%g"},
    [RND_DIST_EXPONENTIAL] = {"exponential_cpu", 0, true,
                              "exponential_ expects lambda > 0.0, but found lambda=%g"},
    [RND_DIST_CAUCHY] = {"cauchy_cpu", 1, true, "cauchy_ expects sigma > 0.0, but found sigma=%g"},
};

/* normal (mean, std), log_normal (mean, std), exponential (lambd), cauchy
 * (median, sigma). */
static clops_status continuous_params(rnd_dist dist, clops_dtype dtype, const double *args,
                                      rnd_fill *f)
{
    const cont_rule *r = &CONT_RULES[dist];
    if (!clops_dtype_is_floating(dtype))
        return clops__fail(CLOPS_INVALID_DTYPE, "\"%s\" not implemented for '%s'", r->kernel,
                           random_torch_dtype(dtype));
    double x = args[r->arg];
    if (r->strict ? !(x > 0.0) : !(x >= 0.0))
        return clops__fail(CLOPS_INVALID_ARGUMENT, r->msg, x);
    f->dist = dist;
    if (dist == RND_DIST_EXPONENTIAL) {
        f->a = to_compute(dtype, -1.0 / args[0]);
    } else {
        f->a = to_compute(dtype, args[0]);
        f->b = to_compute(dtype, args[1]);
    }
    return CLOPS_OK;
}

static clops_status geometric_params(clops_dtype dtype, const double *args, rnd_fill *f)
{
    if (dtype == CLOPS_BOOL)
        return clops__fail(CLOPS_INVALID_DTYPE, "\"geometric_cpu\" not implemented for 'Bool'");
    if (!(args[0] > 0.0 && args[0] < 1.0))
        return clops__fail(CLOPS_INVALID_ARGUMENT,
                           "geometric_ expects p to be in (0, 1), but got p=%g", args[0]);
    f->dist = RND_DIST_GEOMETRIC;
    f->a = to_compute(dtype, 1.0 / log1p(-args[0]));
    return CLOPS_OK;
}

/* A continuous sampler and its double arguments. */
typedef struct sampler_ctx {
    rnd_dist dist;
    const double *args;
} sampler_ctx;

/* The parameters of a continuous sampler for dtype (a params_fn). */
static clops_status sampler_params(const char *op, clops_dtype dtype, const void *ctx, rnd_fill *f)
{
    const sampler_ctx *c = ctx;
    if (c->dist == RND_DIST_UNIFORM)
        return random_uniform_params(op, dtype, c->args, f);
    if (c->dist == RND_DIST_GEOMETRIC)
        return geometric_params(dtype, c->args, f);
    return continuous_params(c->dist, dtype, c->args, f);
}

/* sample() of a continuous sampler. */
static clops_status sample_dist(const char *op, pw_variant variant, clops_tensor *dst,
                                clops_tensor *self, rnd_dist dist, const double *args,
                                clops_generator *gen, clops_tensor **out)
{
    sampler_ctx c = {dist, args};
    return sample(op, variant, dst, self, sampler_params, &c, gen, out);
}

clops_status random_uniform(pw_variant variant, clops_tensor *dst, clops_tensor *self, double from,
                            double to, clops_generator *generator, clops_tensor **out)
{
    double a[2] = {from, to};
    return sample_dist("uniform_", variant, dst, self, RND_DIST_UNIFORM, a, generator, out);
}

clops_status random_exponential(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                                double lambd, clops_generator *generator, clops_tensor **out)
{
    return sample_dist("exponential_", variant, dst, self, RND_DIST_EXPONENTIAL, &lambd, generator,
                       out);
}

clops_status random_geometric(pw_variant variant, clops_tensor *dst, clops_tensor *self, double p,
                              clops_generator *generator, clops_tensor **out)
{
    return sample_dist("geometric_", variant, dst, self, RND_DIST_GEOMETRIC, &p, generator, out);
}

clops_status random_log_normal(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                               double mean, double std, clops_generator *generator,
                               clops_tensor **out)
{
    double a[2] = {mean, std};
    return sample_dist("log_normal_", variant, dst, self, RND_DIST_LOG_NORMAL, a, generator, out);
}

clops_status random_cauchy(pw_variant variant, clops_tensor *dst, clops_tensor *self, double median,
                           double sigma, clops_generator *generator, clops_tensor **out)
{
    double a[2] = {median, sigma};
    return sample_dist("cauchy_", variant, dst, self, RND_DIST_CAUCHY, a, generator, out);
}

/* --- random_ ----------------------------------------------------------------------- */

/* Largest integer of dtype random_ draws (2^digits for floating dtypes). */
static int64_t dtype_max_int(clops_dtype dtype)
{
    switch (dtype) {
    case CLOPS_FLOAT16:
        return 1 << 11;
    case CLOPS_BFLOAT16:
        return 1 << 8;
    case CLOPS_FLOAT32:
        return 1 << 24;
    case CLOPS_FLOAT64:
        return (int64_t)1 << 53;
    default: {
        int64_t lo, hi;
        dtype_int_range(dtype, &lo, &hi);
        return hi;
    }
    }
}

/* Sets a RANGE32/RANGE64 fill for [from, from + range) (range 0: 2^64). */
static void set_range(rnd_fill *f, int64_t from, uint64_t range)
{
    f->dist = (range != 0 && range < ((uint64_t)1 << 32)) ? RND_DIST_RANGE32 : RND_DIST_RANGE64;
    f->ia = (uint64_t)from;
    f->ib = range;
}

clops_status random_range_params(const char *op, clops_dtype dtype, int64_t from, const int64_t *to,
                                 rnd_fill *f)
{
    int64_t hi = dtype_max_int(dtype);
    int64_t lo = clops_dtype_is_floating(dtype) ? -hi : 0;
    if (!clops_dtype_is_floating(dtype))
        dtype_int_range(dtype, &lo, &hi);
    if (to) {
        if (!(from < *to))
            return clops__fail(CLOPS_INVALID_ARGUMENT,
                               "random_ expects 'from' to be less than 'to', but got from=%lld >= "
                               "to=%lld",
                               (long long)from, (long long)*to);
        if (from < lo || from > hi)
            return clops__fail(CLOPS_INVALID_ARGUMENT, "from is out of bounds for %s",
                               cpp_type(dtype));
        if (*to - 1 < lo || *to - 1 > hi)
            return clops__fail(CLOPS_INVALID_ARGUMENT, "to - 1 is out of bounds for %s",
                               cpp_type(dtype));
        set_range(f, from, (uint64_t)*to - (uint64_t)from);
        return CLOPS_OK;
    }
    if (from < lo || from > hi)
        return clops__fail(CLOPS_INVALID_ARGUMENT, "from is out of bounds for %s", cpp_type(dtype));
    if (dtype == CLOPS_INT64 && from == INT64_MIN) {
        set_range(f, from, 0); /* every int64 */
        return CLOPS_OK;
    }
    set_range(f, from, (uint64_t)hi - (uint64_t)from + 1);
    return CLOPS_OK;
}

/* random_'s bounds: from, and to (NULL: up to the dtype's limit; absent:
 * random_() with its per-dtype default range). */
typedef struct range_ctx {
    int64_t from;
    const int64_t *to;
    bool defaults;
} range_ctx;

/* The parameters of random_ for dtype (a params_fn). */
static clops_status range_params(const char *op, clops_dtype dtype, const void *ctx, rnd_fill *f)
{
    const range_ctx *c = ctx;
    if (!c->defaults)
        return random_range_params(op, dtype, c->from, c->to, f);
    /* [0, 2^digits] for floating dtypes, [0, max] for integers, {0, 1} for bool. */
    set_range(f, 0, (uint64_t)dtype_max_int(dtype) + 1);
    return CLOPS_OK;
}

/* Fills target with random_(from, to). */
static clops_status random_range(const char *op, pw_variant variant, clops_tensor *dst,
                                 clops_tensor *self, range_ctx c, clops_generator *gen,
                                 clops_tensor **out)
{
    return sample(op, variant, dst, self, range_params, &c, gen, out);
}

clops_status random_random_from(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                                int64_t from, const int64_t *to, clops_generator *generator,
                                clops_tensor **out)
{
    range_ctx c = {from, to, false};
    return random_range("random_", variant, dst, self, c, generator, out);
}

clops_status random_random_to(pw_variant variant, clops_tensor *dst, clops_tensor *self, int64_t to,
                              clops_generator *generator, clops_tensor **out)
{
    range_ctx c = {0, &to, false};
    return random_range("random_", variant, dst, self, c, generator, out);
}

clops_status random_random(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                           clops_generator *generator, clops_tensor **out)
{
    range_ctx c = {0, NULL, true};
    return random_range("random_", variant, dst, self, c, generator, out);
}

/* --- normal ----------------------------------------------------------------------- */

clops_status random_op_normal_(clops_tensor *self, double mean, double std,
                               clops_generator *generator)
{
    double a[2] = {mean, std};
    return sample_dist("normal_", PW_INPLACE, self, self, RND_DIST_NORMAL, a, generator, NULL);
}

clops_status random_op_normal_out(clops_tensor *self, double mean, double std,
                                  clops_generator *generator, clops_tensor *out)
{
    double a[2] = {mean, std};
    return sample_dist("normal", PW_OUT, out, self, RND_DIST_NORMAL, a, generator, NULL);
}

clops_status random_normal_fill(clops_tensor *t, double mean, double std, clops_generator *gen)
{
    double a[2] = {mean, std};
    rnd_fill f = {0};
    clops_status st = continuous_params(RND_DIST_NORMAL, t->dtype, a, &f);
    return st ? st : random_fill("normal", t, f, gen);
}

/* Refuses a std tensor with a negative (or NaN) element, as PyTorch does. */
static clops_status check_std_tensor(clops_tensor *std)
{
    clops_device *cpu = NULL;
    clops_tensor *h = NULL;
    clops_status st = clops_device_get(0, &cpu);
    if (st == CLOPS_OK)
        st = core_to_copy(std, CLOPS_FLOAT64, cpu, &h);
    if (st)
        return st;
    const double *v = (const double *)h->storage->host_ptr;
    for (int64_t i = 0; i < tensor_numel(h); i++)
        if (!(v[i] >= 0.0)) {
            st = clops__fail(CLOPS_INVALID_ARGUMENT, "normal expects all elements of std >= 0.0");
            break;
        }
    clops_tensor_release(h);
    return st;
}

/* normal with tensor mean and/or std: output = z * std + mean, z ~ N(0, 1)
 * drawn into the output first (PyTorch's order: normal_(0, 1), mul_(std),
 * add_(mean)). */
static clops_status normal_tensors(const char *op, pw_variant variant, clops_tensor *dst,
                                   clops_tensor *mean, double mean_v, clops_tensor *std,
                                   double std_v, clops_generator *gen, clops_tensor **out)
{
    clops_tensor *shape_src[2] = {mean, std};
    clops_tensor *like = mean ? mean : std;
    clops_status st = random_require_floating("normal", like);
    if (st == CLOPS_OK && std)
        st = check_std_tensor(std);
    else if (st == CLOPS_OK && !(std_v >= 0.0))
        st = clops__fail(CLOPS_INVALID_ARGUMENT, "normal expects std >= 0.0, but found std %g",
                         std_v);
    if (st)
        return st;
    int ndim = like->ndim;
    int64_t sizes[CLOPS_MAX_DIMS];
    memcpy(sizes, like->sizes, sizeof(int64_t) * (size_t)ndim);
    if (mean && std) {
        st = pw_broadcast_shape(op, (const clops_tensor *const *)shape_src, 2, &ndim, sizes);
        if (st)
            return st;
    }
    clops_tensor *shape = NULL, *t = NULL;
    st = tensor_new(like->storage->device, like->dtype, ndim, sizes, NULL, &shape);
    if (st == CLOPS_OK)
        st = random_target(op, variant, dst, shape, &t);
    clops_tensor_release(shape);
    if (st)
        return st;
    st = random_normal_fill(t, 0.0, std ? 1.0 : std_v, gen);
    pw_operand ops[2] = {pw_tensor(t), std ? pw_tensor(std) : pw_scalar(clops_scalar_float(1.0))};
    clops_scalar one = clops_scalar_int(1);
    if (st == CLOPS_OK && std)
        st = pw_run(&pw_op_mul, PW_INPLACE, ops, NULL, NULL, NULL, NULL);
    ops[1] = mean ? pw_tensor(mean) : pw_scalar(clops_scalar_float(mean_v));
    if (st == CLOPS_OK)
        st = pw_run(&pw_op_add, PW_INPLACE, ops, &one, NULL, NULL, NULL);
    return random_finish(variant, t, st, out);
}

clops_status random_normal_tensor_float(pw_variant variant, clops_tensor *dst, clops_tensor *mean,
                                        double std, clops_generator *generator, clops_tensor **out)
{
    return normal_tensors("normal", variant, dst, mean, 0.0, NULL, std, generator, out);
}

clops_status random_normal_float_tensor(pw_variant variant, clops_tensor *dst, double mean,
                                        clops_tensor *std, clops_generator *generator,
                                        clops_tensor **out)
{
    return normal_tensors("normal", variant, dst, NULL, mean, std, 1.0, generator, out);
}

clops_status random_normal_tensor_tensor(pw_variant variant, clops_tensor *dst, clops_tensor *mean,
                                         clops_tensor *std, clops_generator *generator,
                                         clops_tensor **out)
{
    return normal_tensors("normal", variant, dst, mean, 0.0, std, 1.0, generator, out);
}
