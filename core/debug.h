/* SPDX-License-Identifier: Apache-2.0 */
/*
 * core/debug.h: the library's test and debug settings, in one place.
 *
 * A setting is a named integer (0 by default, meaning "normal behaviour")
 * that a family reads where it chooses a path or a launch geometry; tests
 * set it to reach a path the device would not take by itself, or to show
 * that results do not depend on a choice.  Every setting is listed in
 * CLOPS_DEBUG_LIST below with its name and meaning (docs/architecture.md,
 * "Test and debug settings"); nothing else in the library is a test hook.
 *
 *     clops_debug_set("norm.streaming", 1);   // tests, tools
 *     ... run ...
 *     clops_debug_set("norm.streaming", 0);
 *
 *     if (clops_debug_get(CLOPS_DEBUG_NORM_STREAMING))   // the family
 *
 * Values are atomics: a setting may change while other threads run ops,
 * which then see the old or the new value per read.  Settings are process
 * wide (all devices), not saved anywhere, and not part of the public API.
 */
#ifndef CLOPS_CORE_DEBUG_H
#define CLOPS_CORE_DEBUG_H

#include <stdint.h>

#include "clops/status.h"

/* X(ENUM, "name", meaning) */
#define CLOPS_DEBUG_LIST(X)                                                                        \
    X(NORM_STREAMING, "norm.streaming",                                                            \
      "1: softmax and log_softmax read each row twice (the streaming path) on every device, "      \
      "never keeping it in local memory (ops/norm/norm.c); tests compare the two paths' bits")     \
    X(RANDOM_WG, "random.wg",                                                                      \
      "work-group size of every random kernel launch (0: the default; with random.groups 0 too, "  \
      "CLOPS_RANDOM_WG/CLOPS_RANDOM_GROUPS or the device's choice; ops/random/random.c)")          \
    X(RANDOM_GROUPS, "random.groups",                                                              \
      "number of work-groups of every random kernel launch (0: the default, as random.wg); "       \
      "the values never depend on the geometry, which tests show with these two")                  \
    X(SORT_WIDE_POSITIONS, "sort.wide_positions",                                                  \
      "1: the sort kernels keep 64-bit positions for every line, the path of lines longer than "   \
      "2^31-1 elements (ops/sort/sort.c); tests run it on small lines against the 32-bit one")     \
    X(SORT_HISTC_CHUNK, "sort.histc_chunk",                                                        \
      "N > 0: histc counts on OpenCL devices in chunks of N elements (0: 2^31-1, the most a "      \
      "chunk's 32-bit counts hold; ops/sort/sort_count.c); tests compare small chunks with one")   \
    X(INDEX_NONZERO_CHUNK, "index.nonzero_chunk",                                                  \
      "N > 0: nonzero, argwhere and nonzero_static scan inputs of more than N elements in chunks " \
      "of about N (0: 2^22 elements; ops/index/index_nonzero.c); tests compare small chunks with " \
      "one")                                                                                       \
    X(GEMM_CANARY_FAIL, "gemm.canary_fail",                                                        \
      "1: the GEMM engine treats every OpenCL device as having a matrix-unit atom and fails its "   \
      "known-answer check on purpose, so products fall back to the FMA atom with one warning "    \
      "per device and config (ops/gemm/gemm_engine.c); a change forgets the checks made so far")  \
    X(GEMM_CONFIG, "gemm.config",                                                                  \
      "N > 0: every mma.sync product of the GEMM engine uses tile configuration N - 1 of "         \
      "gemm_engine_config_name (benchmarks sweep them; each passes its own known-answer check)")   \
    X(GEMM_SPLITS, "gemm.splits",                                                                  \
      "N > 1: the GEMM engine splits K of every product it takes into (at most) N parts summed "   \
      "in a fixed order by a second kernel (1: never split; 0: by shape)")                         \
    X(GEMM_SKINNY, "gemm.skinny",                                                                  \
      "1: the GEMM engine's skinny path (M or N <= 16) on every OpenCL device, CPU devices too; "  \
      "2: never (0: on GPUs)")                                                                     \
    X(ATTENTION_CPU_BWD, "attention.cpu_bwd",                                                      \
      "attention's backward on CPU devices (ops/attention/attention.c): 0 attn_bwd_dkv_cpu and "   \
      "attn_bwd_dq_cpu with the dS scratch where it fits, 1 the same without it (dQ computes the " \
      "scores and dP again), 2 the work-group kernels (as CLOPS_ATTN_CPU_BWD=0), 3 as 0 but the " \
      "scratch's allocation fails as out of memory (the backward recomputes, as 1)")

typedef enum clops_debug_key {
#define CLOPS__DEBUG_ENUM(e, name, meaning) CLOPS_DEBUG_##e,
    CLOPS_DEBUG_LIST(CLOPS__DEBUG_ENUM)
#undef CLOPS__DEBUG_ENUM
    CLOPS_DEBUG_COUNT
} clops_debug_key;

/* Sets the setting called `name` to value.  CLOPS_INVALID_ARGUMENT naming
 * the known settings when there is none of that name; a negative value is
 * refused the same way. */
clops_status clops_debug_set(const char *name, int64_t value);

/* The current value of a setting (0 unless set). */
int64_t clops_debug_get(clops_debug_key key);

/* The name and the meaning of a setting, or NULL for a key out of range. */
const char *clops_debug_name(clops_debug_key key);
const char *clops_debug_meaning(clops_debug_key key);

#endif /* CLOPS_CORE_DEBUG_H */
