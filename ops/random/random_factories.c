/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ops/random/random_factories.c: the random factories: rand, randn, randint (every
 * overload), randperm, normal.float_float, their out forms, and rand_like,
 * randn_like, randint_like.
 *
 * A factory makes a contiguous tensor (default dtype float32, int64 for
 * randint and randperm; device NULL: the default device) and fills it
 * through the engine (ops/random/random.c) exactly as the in-place op would:
 * rand = uniform_(0, 1), randn = normal_(0, 1), randint = random_(low,
 * high).  randperm sorts random keys on the host (ref/random.c) and copies
 * the permutation to the device.
 */
#include <stdlib.h>
#include <string.h>

#include "core/tensor_impl.h"
#include "ops/tensor/tensor.h"
#include "ops/random/random.h"
#include "ops/random/random_internal.h"
#include "ops/kernels_generated.h"

#define LAYOUT_STRIDED 0
#define MEMORY_FORMAT_CONTIGUOUS 0
#define MEMORY_FORMAT_PRESERVE 1

/* What a factory fills its tensor with. */
typedef enum factory_kind { F_UNIFORM, F_NORMAL, F_RANGE } factory_kind;

typedef struct factory_args {
    factory_kind kind;
    double mean, std;  /* F_NORMAL */
    int64_t low, high; /* F_RANGE */
} factory_args;

/* Refuses layouts and memory formats other than strided / contiguous or
 * preserve (which gives a contiguous result). */
static clops_status check_layout(const char *op, int64_t layout, int64_t memory_format)
{
    if (layout >= 0 && layout != LAYOUT_STRIDED)
        return clops__fail(CLOPS_UNSUPPORTED, "%s: only the strided layout is supported (got %lld)",
                           op, (long long)layout);
    if (memory_format >= 0 && memory_format != MEMORY_FORMAT_CONTIGUOUS &&
        memory_format != MEMORY_FORMAT_PRESERVE)
        return clops__fail(CLOPS_UNSUPPORTED,
                           "%s: memory format %lld is not supported (contiguous and preserve only)",
                           op, (long long)memory_format);
    return CLOPS_OK;
}

/* Fills t as the factory says. */
static clops_status factory_fill(const char *op, clops_tensor *t, const factory_args *a,
                                 clops_generator *gen)
{
    if (a->kind == F_NORMAL)
        return random_normal_fill(t, a->mean, a->std, gen);
    rnd_fill f = {0};
    clops_status st;
    if (a->kind == F_UNIFORM) {
        double ab[2] = {0.0, 1.0};
        st = random_uniform_params(op, t->dtype, ab, &f);
    } else {
        st = random_range_params(op, t->dtype, a->low, &a->high, &f);
    }
    return st ? st : random_fill(op, t, f, gen);
}

/* A new tensor of size on device, filled. */
static clops_status factory(const char *op, const factory_args *a, const int64_t *size,
                            int size_len, clops_generator *gen, clops_dtype dtype, int64_t layout,
                            clops_device *device, clops_tensor **out)
{
    clops_status st = check_layout(op, layout, -1);
    if (st)
        return st;
    if (size_len < 0 || size_len > CLOPS_MAX_DIMS)
        return clops__fail(CLOPS_INVALID_SHAPE, "%s: %d dimensions; at most %d are supported", op,
                           size_len, CLOPS_MAX_DIMS);
    if (dtype == CLOPS_DTYPE_NONE)
        dtype = a->kind == F_RANGE ? CLOPS_INT64 : CLOPS_FLOAT32;
    clops_tensor *t = NULL;
    st = clops_empty(device, dtype, size_len, size, &t);
    if (st == CLOPS_OK)
        st = factory_fill(op, t, a, gen);
    return random_finish(PW_FUNCTIONAL, t, st, out);
}

/* The out form: out resized to size, then filled. */
static clops_status factory_out(const char *op, const factory_args *a, const int64_t *size,
                                int size_len, clops_generator *gen, clops_tensor *out)
{
    clops_status st = check_sizes(op, size_len, size);
    if (st == CLOPS_OK)
        st = tensor_resize(out, size_len, size);
    return st ? st : factory_fill(op, out, a, gen);
}

/* The _like form: self's shape, device and dtype unless given. */
static clops_status factory_like(const char *op, const factory_args *a, clops_tensor *self,
                                 clops_generator *gen, clops_dtype dtype, int64_t layout,
                                 clops_device *device, int64_t memory_format, clops_tensor **out)
{
    clops_status st = check_layout(op, layout, memory_format);
    if (st)
        return st;
    if (dtype == CLOPS_DTYPE_NONE)
        dtype = self->dtype;
    if (!device)
        device = self->storage->device;
    clops_tensor *t = NULL;
    st = clops_empty(device, dtype, self->ndim, self->sizes, &t);
    if (st == CLOPS_OK)
        st = factory_fill(op, t, a, gen);
    return random_finish(PW_FUNCTIONAL, t, st, out);
}

/* The _like out form: out resized to self's shape, then filled in out's
 * dtype. */
static clops_status factory_like_out(const char *op, const factory_args *a, clops_tensor *self,
                                     clops_generator *gen, int64_t memory_format, clops_tensor *out)
{
    clops_status st = check_layout(op, -1, memory_format);
    if (st == CLOPS_OK)
        st = tensor_resize(out, self->ndim, self->sizes);
    return st ? st : factory_fill(op, out, a, gen);
}

static const factory_args UNIFORM = {F_UNIFORM, 0.0, 0.0, 0, 0};
static const factory_args NORMAL = {F_NORMAL, 0.0, 1.0, 0, 0};

static factory_args range_args(int64_t low, int64_t high)
{
    factory_args a = {F_RANGE, 0.0, 0.0, low, high};
    return a;
}

/* --- rand / randn ----------------------------------------------------------------------- */

clops_status random_op_rand(const int64_t *size, int size_len, clops_dtype dtype, int64_t layout,
                            clops_device *device, const bool *pin_memory, clops_tensor **out)
{
    return factory("rand", &UNIFORM, size, size_len, NULL, dtype, layout, device, out);
}

clops_status random_op_rand_generator(const int64_t *size, int size_len, clops_generator *generator,
                                      clops_dtype dtype, int64_t layout, clops_device *device,
                                      const bool *pin_memory, clops_tensor **out)
{
    return factory("rand", &UNIFORM, size, size_len, generator, dtype, layout, device, out);
}

clops_status random_op_rand_out(const int64_t *size, int size_len, clops_tensor *out)
{
    return factory_out("rand", &UNIFORM, size, size_len, NULL, out);
}

clops_status random_op_rand_generator_out(const int64_t *size, int size_len,
                                          clops_generator *generator, clops_tensor *out)
{
    return factory_out("rand", &UNIFORM, size, size_len, generator, out);
}

clops_status random_op_randn(const int64_t *size, int size_len, clops_dtype dtype, int64_t layout,
                             clops_device *device, const bool *pin_memory, clops_tensor **out)
{
    return factory("randn", &NORMAL, size, size_len, NULL, dtype, layout, device, out);
}

clops_status random_op_randn_generator(const int64_t *size, int size_len,
                                       clops_generator *generator, clops_dtype dtype,
                                       int64_t layout, clops_device *device, const bool *pin_memory,
                                       clops_tensor **out)
{
    return factory("randn", &NORMAL, size, size_len, generator, dtype, layout, device, out);
}

clops_status random_op_randn_out(const int64_t *size, int size_len, clops_tensor *out)
{
    return factory_out("randn", &NORMAL, size, size_len, NULL, out);
}

clops_status random_op_randn_generator_out(const int64_t *size, int size_len,
                                           clops_generator *generator, clops_tensor *out)
{
    return factory_out("randn", &NORMAL, size, size_len, generator, out);
}

clops_status random_op_normal_float_float(double mean, double std, const int64_t *size,
                                          int size_len, clops_generator *generator,
                                          clops_dtype dtype, int64_t layout, clops_device *device,
                                          const bool *pin_memory, clops_tensor **out)
{
    factory_args a = {F_NORMAL, mean, std, 0, 0};
    return factory("normal", &a, size, size_len, generator, dtype, layout, device, out);
}

clops_status random_op_normal_float_float_out(double mean, double std, const int64_t *size,
                                              int size_len, clops_generator *generator,
                                              clops_tensor *out)
{
    factory_args a = {F_NORMAL, mean, std, 0, 0};
    return factory_out("normal", &a, size, size_len, generator, out);
}

/* --- randint ---------------------------------------------------------------------------- */

clops_status random_op_randint(int64_t high, const int64_t *size, int size_len, clops_dtype dtype,
                               int64_t layout, clops_device *device, const bool *pin_memory,
                               clops_tensor **out)
{
    factory_args a = range_args(0, high);
    return factory("randint", &a, size, size_len, NULL, dtype, layout, device, out);
}

clops_status random_op_randint_generator(int64_t high, const int64_t *size, int size_len,
                                         clops_generator *generator, clops_dtype dtype,
                                         int64_t layout, clops_device *device,
                                         const bool *pin_memory, clops_tensor **out)
{
    factory_args a = range_args(0, high);
    return factory("randint", &a, size, size_len, generator, dtype, layout, device, out);
}

clops_status random_op_randint_low(int64_t low, int64_t high, const int64_t *size, int size_len,
                                   clops_dtype dtype, int64_t layout, clops_device *device,
                                   const bool *pin_memory, clops_tensor **out)
{
    factory_args a = range_args(low, high);
    return factory("randint", &a, size, size_len, NULL, dtype, layout, device, out);
}

clops_status random_op_randint_low_generator(int64_t low, int64_t high, const int64_t *size,
                                             int size_len, clops_generator *generator,
                                             clops_dtype dtype, int64_t layout,
                                             clops_device *device, const bool *pin_memory,
                                             clops_tensor **out)
{
    factory_args a = range_args(low, high);
    return factory("randint", &a, size, size_len, generator, dtype, layout, device, out);
}

clops_status random_op_randint_out(int64_t high, const int64_t *size, int size_len,
                                   clops_tensor *out)
{
    factory_args a = range_args(0, high);
    return factory_out("randint", &a, size, size_len, NULL, out);
}

clops_status random_op_randint_generator_out(int64_t high, const int64_t *size, int size_len,
                                             clops_generator *generator, clops_tensor *out)
{
    factory_args a = range_args(0, high);
    return factory_out("randint", &a, size, size_len, generator, out);
}

clops_status random_op_randint_low_out(int64_t low, int64_t high, const int64_t *size, int size_len,
                                       clops_tensor *out)
{
    factory_args a = range_args(low, high);
    return factory_out("randint", &a, size, size_len, NULL, out);
}

clops_status random_op_randint_low_generator_out(int64_t low, int64_t high, const int64_t *size,
                                                 int size_len, clops_generator *generator,
                                                 clops_tensor *out)
{
    factory_args a = range_args(low, high);
    return factory_out("randint", &a, size, size_len, generator, out);
}

/* --- *_like ----------------------------------------------------------------------------- */

clops_status random_op_rand_like(clops_tensor *self, clops_dtype dtype, int64_t layout,
                                 clops_device *device, const bool *pin_memory,
                                 int64_t memory_format, clops_tensor **out)
{
    return factory_like("rand_like", &UNIFORM, self, NULL, dtype, layout, device, memory_format,
                        out);
}

clops_status random_op_rand_like_generator(clops_tensor *self, clops_generator *generator,
                                           clops_dtype dtype, int64_t layout, clops_device *device,
                                           const bool *pin_memory, int64_t memory_format,
                                           clops_tensor **out)
{
    return factory_like("rand_like", &UNIFORM, self, generator, dtype, layout, device,
                        memory_format, out);
}

clops_status random_op_randn_like(clops_tensor *self, clops_dtype dtype, int64_t layout,
                                  clops_device *device, const bool *pin_memory,
                                  int64_t memory_format, clops_tensor **out)
{
    return factory_like("randn_like", &NORMAL, self, NULL, dtype, layout, device, memory_format,
                        out);
}

clops_status random_op_randn_like_generator(clops_tensor *self, clops_generator *generator,
                                            clops_dtype dtype, int64_t layout, clops_device *device,
                                            const bool *pin_memory, int64_t memory_format,
                                            clops_tensor **out)
{
    return factory_like("randn_like", &NORMAL, self, generator, dtype, layout, device,
                        memory_format, out);
}

clops_status random_op_randint_like(clops_tensor *self, int64_t high, clops_dtype dtype,
                                    int64_t layout, clops_device *device, const bool *pin_memory,
                                    int64_t memory_format, clops_tensor **out)
{
    factory_args a = range_args(0, high);
    return factory_like("randint_like", &a, self, NULL, dtype, layout, device, memory_format, out);
}

clops_status random_op_randint_like_generator(clops_tensor *self, int64_t high,
                                              clops_generator *generator, clops_dtype dtype,
                                              int64_t layout, clops_device *device,
                                              const bool *pin_memory, int64_t memory_format,
                                              clops_tensor **out)
{
    factory_args a = range_args(0, high);
    return factory_like("randint_like", &a, self, generator, dtype, layout, device, memory_format,
                        out);
}

clops_status random_op_randint_like_low_dtype(clops_tensor *self, int64_t low, int64_t high,
                                              clops_dtype dtype, int64_t layout,
                                              clops_device *device, const bool *pin_memory,
                                              int64_t memory_format, clops_tensor **out)
{
    factory_args a = range_args(low, high);
    return factory_like("randint_like", &a, self, NULL, dtype, layout, device, memory_format, out);
}

clops_status random_op_randint_like_low_generator_dtype(clops_tensor *self, int64_t low,
                                                        int64_t high, clops_generator *generator,
                                                        clops_dtype dtype, int64_t layout,
                                                        clops_device *device,
                                                        const bool *pin_memory,
                                                        int64_t memory_format, clops_tensor **out)
{
    factory_args a = range_args(low, high);
    return factory_like("randint_like", &a, self, generator, dtype, layout, device, memory_format,
                        out);
}

/* The value of a one-element integer `high` tensor. */
static clops_status high_value(clops_tensor *high, int64_t *out)
{
    if (tensor_numel(high) != 1 || clops_dtype_is_floating(high->dtype))
        return clops__fail(CLOPS_INVALID_ARGUMENT,
                           "randint_like: high must be a one-element integer tensor");
    clops_scalar s;
    clops_status st = clops_tensor_item(high, &s);
    if (st == CLOPS_OK)
        *out = clops_scalar_to_int64(s);
    return st;
}

clops_status random_op_randint_like_tensor(clops_tensor *self, clops_tensor *high,
                                           clops_dtype dtype, int64_t layout, clops_device *device,
                                           const bool *pin_memory, int64_t memory_format,
                                           clops_tensor **out)
{
    int64_t h = 0;
    clops_status st = high_value(high, &h);
    return st ? st
              : random_op_randint_like(self, h, dtype, layout, device, pin_memory, memory_format,
                                       out);
}

clops_status random_op_randint_like_tensor_generator(clops_tensor *self, clops_tensor *high,
                                                     clops_generator *generator, clops_dtype dtype,
                                                     int64_t layout, clops_device *device,
                                                     const bool *pin_memory, int64_t memory_format,
                                                     clops_tensor **out)
{
    int64_t h = 0;
    clops_status st = high_value(high, &h);
    return st ? st
              : random_op_randint_like_generator(self, h, generator, dtype, layout, device,
                                                 pin_memory, memory_format, out);
}

/* --- *_like out forms -------------------------------------------------------------------- */

clops_status random_op_rand_like_out(clops_tensor *self, int64_t memory_format, clops_tensor *out)
{
    return factory_like_out("rand_like", &UNIFORM, self, NULL, memory_format, out);
}

clops_status random_op_rand_like_generator_out(clops_tensor *self, clops_generator *generator,
                                               int64_t memory_format, clops_tensor *out)
{
    return factory_like_out("rand_like", &UNIFORM, self, generator, memory_format, out);
}

clops_status random_op_randn_like_out(clops_tensor *self, int64_t memory_format, clops_tensor *out)
{
    return factory_like_out("randn_like", &NORMAL, self, NULL, memory_format, out);
}

clops_status random_op_randn_like_generator_out(clops_tensor *self, clops_generator *generator,
                                                int64_t memory_format, clops_tensor *out)
{
    return factory_like_out("randn_like", &NORMAL, self, generator, memory_format, out);
}

clops_status random_op_randint_like_low_generator_dtype_out(clops_tensor *self, int64_t low,
                                                            int64_t high,
                                                            clops_generator *generator,
                                                            int64_t memory_format,
                                                            clops_tensor *out)
{
    factory_args a = range_args(low, high);
    return factory_like_out("randint_like", &a, self, generator, memory_format, out);
}

clops_status random_op_randint_like_low_dtype_out(clops_tensor *self, int64_t low, int64_t high,
                                                  int64_t memory_format, clops_tensor *out)
{
    return random_op_randint_like_low_generator_dtype_out(self, low, high, NULL, memory_format,
                                                          out);
}

clops_status random_op_randint_like_generator_out(clops_tensor *self, int64_t high,
                                                  clops_generator *generator, int64_t memory_format,
                                                  clops_tensor *out)
{
    return random_op_randint_like_low_generator_dtype_out(self, 0, high, generator, memory_format,
                                                          out);
}

clops_status random_op_randint_like_out(clops_tensor *self, int64_t high, int64_t memory_format,
                                        clops_tensor *out)
{
    return random_op_randint_like_low_generator_dtype_out(self, 0, high, NULL, memory_format, out);
}

clops_status random_op_randint_like_tensor_generator_out(clops_tensor *self, clops_tensor *high,
                                                         clops_generator *generator,
                                                         int64_t memory_format, clops_tensor *out)
{
    int64_t h = 0;
    clops_status st = high_value(high, &h);
    return st ? st
              : random_op_randint_like_low_generator_dtype_out(self, 0, h, generator, memory_format,
                                                               out);
}

clops_status random_op_randint_like_tensor_out(clops_tensor *self, clops_tensor *high,
                                               int64_t memory_format, clops_tensor *out)
{
    return random_op_randint_like_tensor_generator_out(self, high, NULL, memory_format, out);
}

/* --- randperm --------------------------------------------------------------------------- */

/* Writes randperm(n) into t (resized to [n]). */
static clops_status randperm_into(int64_t n, clops_generator *gen, clops_tensor *t)
{
    if (n < 0)
        return clops__fail(CLOPS_INVALID_ARGUMENT, "n must be non-negative, got%lld", (long long)n);
    int64_t lo = 0, hi = 0;
    if (clops_dtype_is_floating(t->dtype)) {
        hi = t->dtype == CLOPS_FLOAT16    ? (1 << 11) + 1
             : t->dtype == CLOPS_BFLOAT16 ? (1 << 8) + 1
             : t->dtype == CLOPS_FLOAT32  ? (1 << 24) + 1
                                          : ((int64_t)1 << 53) + 1;
    } else {
        dtype_int_range(t->dtype, &lo, &hi);
        hi = hi == INT64_MAX ? hi : hi + 1;
    }
    if (t->dtype == CLOPS_BOOL || n > hi)
        return clops__fail(CLOPS_INVALID_ARGUMENT, "n is too large for result tensor type: '%s'",
                           random_torch_dtype(t->dtype));
    clops_status st = tensor_resize(t, 1, &n);
    if (st || n == 0)
        return st;
    uint64_t seed = 0, offset = 0;
    st = random_reserve(gen, t->storage->device, ((uint64_t)n + 1) / 2, &seed, &offset);
    if (st)
        return st;
    int64_t *perm = malloc((size_t)n * sizeof *perm);
    if (!perm || !ref_randperm(n, seed, offset, perm)) {
        free(perm);
        return CLOPS__HOST_OOM("randperm");
    }
    clops_device *cpu = NULL;
    clops_tensor *h = NULL;
    st = clops_device_find("cpu", &cpu);
    if (st == CLOPS_OK)
        st = clops_from_host(cpu, CLOPS_INT64, 1, &n, perm, (size_t)n * sizeof *perm, &h);
    if (st == CLOPS_OK)
        st = core_copy_(t, h, false);
    clops_tensor_release(h);
    free(perm);
    return st;
}

clops_status random_op_randperm_generator(int64_t n, clops_generator *generator, clops_dtype dtype,
                                          int64_t layout, clops_device *device,
                                          const bool *pin_memory, clops_tensor **out)
{
    clops_status st = check_layout("randperm", layout, -1);
    if (st)
        return st;
    if (n < 0)
        return clops__fail(CLOPS_INVALID_ARGUMENT, "n must be non-negative, got%lld", (long long)n);
    clops_tensor *t = NULL;
    st = clops_empty(device, dtype == CLOPS_DTYPE_NONE ? CLOPS_INT64 : dtype, 1, &n, &t);
    if (st == CLOPS_OK)
        st = randperm_into(n, generator, t);
    return random_finish(PW_FUNCTIONAL, t, st, out);
}

clops_status random_op_randperm(int64_t n, clops_dtype dtype, int64_t layout, clops_device *device,
                                const bool *pin_memory, clops_tensor **out)
{
    return random_op_randperm_generator(n, NULL, dtype, layout, device, pin_memory, out);
}

clops_status random_op_randperm_out(int64_t n, clops_tensor *out)
{
    return randperm_into(n, NULL, out);
}

clops_status random_op_randperm_generator_out(int64_t n, clops_generator *generator,
                                              clops_tensor *out)
{
    return randperm_into(n, generator, out);
}
