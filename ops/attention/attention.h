/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ops/attention/attention.h: the attention family (fused scaled-dot-product
 * attention, forward and backward: ops/attention/attention.c checks and
 * plans a call as the problem of ref/ref_attention.h and launches
 * cl_kernels/attention.cl; the CPU device runs ref/attention.c).
 * docs/attention.md.
 */
#ifndef CLOPS_OPS_ATTENTION_H
#define CLOPS_OPS_ATTENTION_H

#include <stdbool.h>
#include <stdint.h>

#include "core/tensor_impl.h"
#include "ref/ref_attention.h"

/* The largest head dimension (query/key and value) the fused kernels take. */
#define ATTN_MAX_HEAD_DIM 256

/* Calls on OpenCL devices since the process started, by the kernels that
 * ran (known-answer checks excluded; tests check which path a device
 * took): backwards on the tensor cores (attn_bwd_dkv_mma and
 * attn_bwd_dq_mma) and on the FMA kernels, forwards on the tensor cores
 * (attn_fwd_mma), and tensor-core backwards whose grouped-query heads
 * were split over work-groups (attn_bwd_fold after them); of those on
 * the tensor cores, the forwards and backwards whose kernels were built
 * through the PTX route with an occupancy request (docs/attention.md);
 * of the tensor-core forwards, those on Hopper's warpgroup products
 * (attn_fwd_wg, fwd_wg); and the wgmma forward's known-answer checks run
 * (wg_checks) and failed (wg_fails); of the tensor-core backwards, those
 * whose dK/dV ran on attn_bwd_dkv_wg (bwd_wg), and its known-answer checks
 * run (wgb_checks) and failed (wgb_fails). */
typedef struct attn_stats {
    uint64_t bwd_mma, bwd_fma, fwd_mma, bwd_split, fwd_routed, bwd_routed;
    uint64_t fwd_wg, wg_checks, wg_fails;
    uint64_t bwd_wg, wgb_checks, wgb_fails;
    uint64_t bwd_wgq, wgq_checks, wgq_fails; /* attn_bwd_dq_wg's */
    uint64_t fwd_tf32, tf32_checks, tf32_fails; /* attn_fwd_tf32's (float32, 3xTF32) */
    /* backwards on attn_bwd_dkv_cpu / attn_bwd_dq_cpu (CPU devices), and
     * of those, the ones whose dQ read dS from the scratch */
    uint64_t bwd_cpu, bwd_cpu_ds;
} attn_stats;
void attention_stats(attn_stats *out);

/* For tests: on, every problem takes the general tensor-core programs
 * (ATTN_XM 1), as CLOPS_ATTN_MASK_SPLIT=0 does; off, the lean programs
 * where they apply again (the default).  test_attention compares the two
 * programs' bits on a problem both run. */
void attention_force_general(bool on);

/* The wgmma forward (attn_fwd_wg, Hopper: NVIDIA compute capability 9.0
 * exactly; docs/attention.md): at head dim 128 by default, at 64 and 128
 * with CLOPS_ATTN_WGMMA=1, nowhere with =0 (read at first use).
 * attention_set_wgmma(1 / 0) turns it on (both head dims) or off for the
 * process, -1 back to the environment's choice. */
void attention_set_wgmma(int on);

/* For tests: on, every OpenCL device counts as a Hopper for the wgmma
 * forward's choice (its program then fails to build on any other device:
 * the fallback's path). */
void attention_wgmma_pretend(bool on);

/* For tests: whether a lean forward (no mask, no dropout) in dtype dt of
 * padded head dim dp (64 or 128) on d runs attn_fwd_wg — the choice
 * fwd_mma makes, the known-answer check included (once per device, dtype
 * and head dim; a failure warns once and leaves attn_fwd_mma in charge). */
bool attention_wgmma_chosen(clops_device *d, clops_dtype dt, int dp);

/* The wgmma dK/dV (attn_bwd_dkv_wg, Hopper; docs/attention.md): off by
 * default, at head dims 64 and 128 with CLOPS_ATTN_WGMMA_BWD=1 (read at
 * first use); attention_set_wgmma_bwd(1 / 0) turns it on or off for the
 * process, -1 back to the environment's choice.  attention_wgmma_pretend
 * pretends for it too. */
void attention_set_wgmma_bwd(int on);

/* For tests: whether the dK/dV of a lean 16-bit backward of padded head
 * dim dp (64 or 128) on d runs attn_bwd_dkv_wg — the choice bwd_mma makes,
 * its known-answer check included (once per device, dtype and head dim; a
 * failure warns once and leaves attn_bwd_dkv_mma in charge). */
bool attention_wgmma_bwd_chosen(clops_device *d, clops_dtype dt, int dp);

/* The wgmma dQ (attn_bwd_dq_wg, Hopper; docs/attention.md): off by
 * default, at head dims 64 and 128 with CLOPS_ATTN_WGMMA_DQ=1 (read at
 * first use); attention_set_wgmma_dq(1 / 0) turns it on or off for the
 * process, -1 back to the environment's choice.  attention_wgmma_pretend
 * pretends for it too. */
void attention_set_wgmma_dq(int on);

/* For tests: whether the dQ of a lean 16-bit backward of padded head dim
 * dp (64 or 128) on d runs attn_bwd_dq_wg — the choice bwd_mma makes, its
 * known-answer check included (once per device, dtype and head dim; a
 * failure warns once and leaves attn_bwd_dq_mma in charge). */
bool attention_wgmma_dq_chosen(clops_device *d, clops_dtype dt, int dp);

/* The float32 forward on the tensor cores (attn_fwd_tf32: 3xTF32 on
 * mma.sync, NVIDIA compute capability >= 8.0; docs/attention.md): on by
 * default (attn15) for the lean float32 problems at padded head dims 64
 * and 128; CLOPS_ATTN_TF32=0 (read once per process) or attention_set_tf32
 * (1 on, 0 off, -1 back to the environment's and the default) turns it
 * off.  attention_tf32_on: that setting; attention_tf32_promote: where its
 * products' sums leave the tensor cores (CLOPS_ATTN_TF32_PROMOTE, default
 * 3).  attention_tf32_chosen: whether it runs for dp on d, its
 * known-answer check included (once per device and head dim; a failure
 * warns once and leaves attn_fwd in charge). */
void attention_set_tf32(int on);
bool attention_tf32_on(void);
int attention_tf32_promote(void);
bool attention_tf32_chosen(clops_device *d, int dp);

#endif /* CLOPS_OPS_ATTENTION_H */
