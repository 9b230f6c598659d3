/* SPDX-License-Identifier: Apache-2.0 */
/*
 * clops/generator.h: random-number generators.
 *
 * A clops_generator is the state of one counter-based random stream: a
 * 64-bit seed (the Philox4x32-10 key) and a 64-bit offset (the next unused
 * Philox counter).  Every random operator takes a `clops_generator *`
 * argument (the schema's `Generator? generator`); NULL means the default
 * generator of the device the op runs on.  Element i of an op's output is
 * drawn from counter offset + f(i), where f depends only on the element
 * index and the op (docs/random.md), and the op then advances the offset by
 * a documented number of counters.  So the same seed gives the same bits on
 * every device (the CPU reference, POCL, NVIDIA, ...) whatever the launch
 * geometry, and a generator may drive ops on any device.
 *
 * State layout (clops_generator_get_state / set_state): 16 bytes, the seed
 * as a little-endian uint64 followed by the offset (in Philox counters) as a
 * little-endian uint64.
 *
 * Threads: every function may be called from several threads at once; each
 * op reserves its counters with one locked step, so concurrent ops on one
 * generator draw disjoint counters (in an order the threads decide).
 *
 * Ownership: clops_generator_create hands out a generator the caller frees
 * with clops_generator_release (NULL is a no-op).  The default generators
 * belong to the library (releasing one is a no-op); clops_shutdown frees
 * them, and the next use re-creates them with the default seed.
 */
#ifndef CLOPS_GENERATOR_H
#define CLOPS_GENERATOR_H

#include <stddef.h>
#include <stdint.h>

#include "clops/device.h"
#include "clops/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct clops_generator clops_generator;

/* Bytes of a serialised state: seed (u64 LE) then offset (u64 LE). */
#define CLOPS_GENERATOR_STATE_SIZE 16
/* The seed of a new generator (PyTorch's default_rng_seed_val). */
#define CLOPS_DEFAULT_SEED 67280421310721ull

/* A new generator with seed CLOPS_DEFAULT_SEED and offset 0, associated with
 * device (NULL: the default device); the association is informational. */
CLOPS_API clops_status clops_generator_create(clops_device *device, clops_generator **out);
/* Frees a generator from clops_generator_create.  NULL and the default
 * generators are ignored. */
CLOPS_API void clops_generator_release(clops_generator *g);
/* The default generator of device (NULL: the default device), borrowed. */
CLOPS_API clops_status clops_generator_default(clops_device *device, clops_generator **out);
/* The device a generator was created for. */
CLOPS_API clops_device *clops_generator_device(const clops_generator *g);

/* Sets the seed and resets the offset to 0 (torch.Generator.manual_seed). */
CLOPS_API clops_status clops_generator_manual_seed(clops_generator *g, uint64_t seed);
/* Seeds from a non-deterministic source, resets the offset, and returns the
 * seed in *out (may be NULL) (torch.Generator.seed). */
CLOPS_API clops_status clops_generator_seed(clops_generator *g, uint64_t *out);
/* The seed last set (torch.Generator.initial_seed). */
CLOPS_API uint64_t clops_generator_initial_seed(const clops_generator *g);
/* The offset: the next Philox counter an op will use. */
CLOPS_API uint64_t clops_generator_offset(const clops_generator *g);

/* Writes CLOPS_GENERATOR_STATE_SIZE bytes (layout above) into state, which
 * holds cap bytes. */
CLOPS_API clops_status clops_generator_get_state(const clops_generator *g, void *state, size_t cap);
/* Restores a state written by clops_generator_get_state (nbytes must be
 * CLOPS_GENERATOR_STATE_SIZE). */
CLOPS_API clops_status clops_generator_set_state(clops_generator *g, const void *state,
                                                 size_t nbytes);

/* Seeds the default generator of every device (torch.manual_seed). */
CLOPS_API clops_status clops_manual_seed(uint64_t seed);

#ifdef __cplusplus
}
#endif

#endif /* CLOPS_GENERATOR_H */
