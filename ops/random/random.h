/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ops/random/random.h: the engine of the random family (ops/random/random.c) and the
 * generators' internal side (ops/random/random_generator.c), used by the op
 * functions in ops/random/random_ops.c, ops/random/random_sampling.c and
 * ops/random/random_factories.c, and by clops_shutdown.
 */
#ifndef CLOPS_OPS_RANDOM_H
#define CLOPS_OPS_RANDOM_H

#include "clops/generator.h"
#include "clops/tensor.h"
#include "ref/random.h"

/* Fills every element of dst (any strides, any device) from distribution
 * f.dist with parameters f.a/b/c/ia/ib, drawing from gen (NULL: the
 * default generator of dst's device) and advancing it by rnd_counters(). */
clops_status random_fill(const char *op, clops_tensor *dst, rnd_fill f, clops_generator *gen);

/* native_dropout of a floating tensor: new contiguous out (input's dtype)
 * and mask (bool); keep when the word >= thr. */
clops_status random_dropout(const char *op, clops_tensor *input, uint64_t thr, double scale,
                            clops_generator *gen, clops_tensor **out, clops_tensor **mask);

/* Reads g's seed and offset and advances the offset by `counters`, in one
 * locked step (ops/random/random_generator.c).  g NULL means device's default
 * generator. */
clops_status generator_reserve(clops_generator *g, clops_device *device, uint64_t counters,
                               uint64_t *seed, uint64_t *offset);
/* Frees the default generators (clops_shutdown); they are re-created, with
 * the default seed, on next use. */
void generator_shutdown(void);

/* Reserves counters for a host algorithm (multinomial, randperm). */
clops_status random_reserve(clops_generator *gen, clops_device *device, uint64_t counters,
                            uint64_t *seed, uint64_t *offset);

#endif /* CLOPS_OPS_RANDOM_H */
