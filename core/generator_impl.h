/*
 * core/generator_impl.h: what the random ops need from the generators
 * (core/generator.c): reserving counters, and freeing the defaults at
 * shutdown.
 */
#ifndef CLOPS_CORE_GENERATOR_IMPL_H
#define CLOPS_CORE_GENERATOR_IMPL_H

#include <stdint.h>

#include "clops/generator.h"

/* Reads g's seed and offset and advances the offset by `counters`, in one
 * locked step.  g NULL means device's default generator. */
clops_status generator_reserve(clops_generator *g, clops_device *device, uint64_t counters,
                               uint64_t *seed, uint64_t *offset);

/* Frees the default generators (clops_shutdown); they are re-created, with
 * the default seed, on next use. */
void generator_shutdown(void);

#endif /* CLOPS_CORE_GENERATOR_IMPL_H */
