/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ref/ref_attention.h: fused scaled-dot-product attention as a problem
 * description (filled by ops/attention/, read by ref/attention.c and by
 * the family's launches) and its CPU reference.
 *
 * Every tensor is seen as four dimensions [B, H, rows, cols] through its
 * own element strides (a broadcast dimension has stride 0): query
 * [B, Hq, L, E], key [B, Hkv, S, E], value [B, Hkv, S, Ev], the mask
 * [B, Hq, L, S], the output and its gradient [B, Hq, L, Ev].  Query head h
 * reads key/value head h / (Hq / Hkv) (PyTorch's enable_gqa:
 * repeat_interleave of key and value along the heads).  logsumexp is
 * float32 contiguous [B, Hq, L].
 *
 * The semantics are PyTorch's math path (torch.nn.functional.
 * scaled_dot_product_attention): s = scale * q.k + mask (bool false and
 * causal positions j > i + causal_off are -inf: causal_off 0 is the top-left
 * alignment of is_causal, S - L the bottom-right one of causal_lower_right),
 * p = softmax(s) over
 * j, a row with every position masked gives p = 0 (the _safe_softmax
 * convention) and logsumexp -inf, dropout keeps p with clops' dropout
 * stream (docs/random.md) and scales kept values by 1 / (1 - dropout_p),
 * out = p . v.  Element n = ((b * Hq + h) * L + i) * S + j of the
 * probabilities is dropped when word n % 4 of Philox counter
 * offset + n / 4 is below thr = floor(dropout_p * 2^32).
 */
#ifndef CLOPS_REF_REF_ATTENTION_H
#define CLOPS_REF_REF_ATTENTION_H

#include <stdbool.h>
#include <stdint.h>

#include "clops/tensor.h"
#include "core/tensor_impl.h"

/* What the mask is. */
typedef enum attn_mask_kind { ATTN_MASK_NONE = 0, ATTN_MASK_BOOL = 1, ATTN_MASK_ADD = 2 } attn_mask_kind;

/* One tensor seen as [B, H, rows, cols]. */
typedef struct attn_view {
    clops_tensor *t; /* NULL: absent */
    int64_t st[4];   /* element strides */
} attn_view;

typedef struct attn_problem {
    const char *op;
    int64_t B, Hq, Hkv, L, S, E, Ev;
    attn_view q, k, v, mask, out;
    attn_mask_kind mask_kind;
    bool causal;
    int64_t causal_off; /* causal: (i, j) masked when j > i + causal_off */
    double scale;
    /* dropout: on when dropout_p > 0 */
    double dropout_p;
    uint64_t thr;      /* floor(dropout_p * 2^32) */
    float drop_scale;  /* 1 / (1 - dropout_p) in float32; 0 when dropout_p == 1 */
    uint64_t seed, offset;
    clops_tensor *lse; /* float32 contiguous [B, Hq, L] */
    /* backward only */
    attn_view go, gq, gk, gv;
    clops_tensor *ds; /* NULL, or float32 contiguous [mB, mH, mL, mS]: the
                       * gradient of an additive mask, dS (the gradient of
                       * the scores) summed over the dims the mask
                       * broadcasts; each of mB, mH, mL, mS is B, Hq, L, S
                       * or 1 (a broadcast dim) */
} attn_problem;

/* Philox counters the dropout of p uses: ceil(B * Hq * L * S / 4). */
uint64_t attn_dropout_counters(const attn_problem *p);

/* The forward on host tensors: out and lse (float64 arithmetic, one
 * rounding into the output dtype). */
clops_status ref_attention_forward(const attn_problem *p);
/* The backward on host tensors: gq, gk, gv (and ds when set) from go, q,
 * k, v (out and lse are recomputed from the definition, not read). */
clops_status ref_attention_backward(const attn_problem *p);

#endif /* CLOPS_REF_REF_ATTENTION_H */
