/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ops/random/random_internal.h: helpers the files of the random family share
 * (ops/random/random_ops.c defines them; ops/random/random_sampling.c and
 * ops/random/random_factories.c use them).
 */
#ifndef CLOPS_OPS_RANDOM_INTERNAL_H
#define CLOPS_OPS_RANDOM_INTERNAL_H

#include "codegen_pointwise/pw.h"
#include "ops/random/random.h"

/* "Long", "Float", ... as PyTorch names dtypes in messages. */
const char *random_torch_dtype(clops_dtype dt);
/* `"kernel" not implemented for 'Long'` unless t is floating. */
clops_status random_require_floating(const char *kernel, const clops_tensor *t);

/* The tensor a sampler writes: dst itself (in-place), dst resized to like's
 * shape (out), or a new contiguous tensor like `like` (functional).  New
 * reference in *target. */
clops_status random_target(const char *op, pw_variant variant, clops_tensor *dst,
                           clops_tensor *like, clops_tensor **target);
/* Hands a functional result to *out, else drops the reference; passes st. */
clops_status random_finish(pw_variant variant, clops_tensor *target, clops_status st,
                           clops_tensor **out);

/* Parameters of uniform_(from, to) (args[0], args[1]) for dtype. */
clops_status random_uniform_params(const char *op, clops_dtype dtype, const double *args,
                                   rnd_fill *f);
/* Parameters of random_(from, to) (to NULL: up to the dtype's limit). */
clops_status random_range_params(const char *op, clops_dtype dtype, int64_t from, const int64_t *to,
                                 rnd_fill *f);
/* normal_(mean, std) on t. */
clops_status random_normal_fill(clops_tensor *t, double mean, double std, clops_generator *gen);

#endif /* CLOPS_OPS_RANDOM_INTERNAL_H */
