/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ref/random.h: the CPU reference of the random family, and the plan both
 * the reference and the OpenCL kernels (cl_kernels/random.cl) follow.
 *
 * A fill writes n contiguous elements of one distribution from the Philox
 * stream (seed, offset); ref/random.c computes them with the same source as
 * the kernels (ref/random_math.clh, random_dist.clh) compiled as C
 * without contraction, so the CPU device gives the bits every OpenCL device
 * gives.  multinomial and randperm are host algorithms over the same stream
 * (docs/random.md); the OpenCL path runs them here too and uploads the
 * result.
 */
#ifndef CLOPS_REF_RANDOM_H
#define CLOPS_REF_RANDOM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "clops/dtype.h"

/* Distributions, numbered as in ref/random_dist.clh. */
typedef enum rnd_dist {
    RND_DIST_UNIFORM = 0,
    RND_DIST_NORMAL = 1,
    RND_DIST_LOG_NORMAL = 2,
    RND_DIST_EXPONENTIAL = 3,
    RND_DIST_CAUCHY = 4,
    RND_DIST_GEOMETRIC = 5,
    RND_DIST_RANGE32 = 6,
    RND_DIST_RANGE64 = 7,
    RND_DIST_BERNOULLI = 8,
    RND_DIST_DROPOUT = 9
} rnd_dist;

/* One fill: the distribution, the output dtype, n elements, the stream and
 * the parameters (random_dist.clh says what a, b, c, ia, ib mean; a, b, c are
 * rounded to float32 for every output but float64, by both sides). */
typedef struct rnd_fill {
    rnd_dist dist;
    clops_dtype dtype;
    uint64_t n;
    uint64_t seed;
    uint64_t offset;
    double a, b, c;
    uint64_t ia, ib;
} rnd_fill;

/* Elements one Philox counter serves for this fill (4 or 2). */
int rnd_per_counter(rnd_dist dist, clops_dtype dtype);
/* Counters a fill of n elements uses: the generator's offset advance. */
uint64_t rnd_counters(rnd_dist dist, clops_dtype dtype, uint64_t n);
/* The kernel name ("rnd_normal_float16") into buf. */
void rnd_kernel_name(rnd_dist dist, clops_dtype dtype, char *buf, size_t cap);

/* Writes f->n elements of f->dtype into out (contiguous). */
void ref_random_fill(const rnd_fill *f, void *out);
/* native_dropout over n contiguous floating elements: mask (bool bytes) and
 * out = (in * mask) * scale, keep when the word >= thr. */
void ref_random_dropout(clops_dtype dtype, const void *in, void *out, uint8_t *mask, uint64_t n,
                        uint64_t seed, uint64_t offset, uint64_t thr, double scale);

/* randperm(n) into out (int64): indices sorted by a 64-bit random key from
 * counter offset + i/2 (word pair i%2), ties by index.  Uses ceil(n/2)
 * counters.  False when out of host memory. */
bool ref_randperm(int64_t n, uint64_t seed, uint64_t offset, int64_t *out);
/* multinomial over `rows` rows of k non-negative float64 weights (finite,
 * positive sum, checked by the caller): num_samples int64 indices per row.
 * With replacement, sample s of row r inverts the cumulative weights at a
 * 53-bit uniform from element r*num_samples+s (2 per counter); without,
 * the num_samples largest keys log(u_j)/w_j of the exponential race over
 * element r*k+j (2 per counter) win, ties by index.  Uses the counters
 * rnd_multinomial_counters gives.  False when out of host memory. */
bool ref_multinomial(const double *w, int64_t rows, int64_t k, int64_t num_samples,
                     bool replacement, uint64_t seed, uint64_t offset, int64_t *out);
uint64_t rnd_multinomial_counters(int64_t rows, int64_t k, int64_t num_samples, bool replacement);

#endif /* CLOPS_REF_RANDOM_H */
