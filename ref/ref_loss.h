/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ref/ref_loss.h: the CPU reference of the loss family (ref/loss.c): the
 * CPU device runs it (through ops/loss/) and the tests use it as the
 * oracle.  Its arguments are the op's canonical problem, filled by the
 * family from the op's tensors and parameters: the input x contiguous
 * [N, C, S] (S = 1 for nll_loss, H * W for nll_loss2d; N = 1 for a 1-D
 * input), the target t M = N * S contiguous int64 values, the weight w
 * contiguous [C] of x's dtype or NULL; the elementwise losses' operands
 * contiguous and broadcast to M elements.
 */
#ifndef CLOPS_REF_REF_LOSS_H
#define CLOPS_REF_REF_LOSS_H

#include <stdbool.h>
#include <stdint.h>

#include "core/tensor_impl.h"

/* The canonical nll problem (see above). */
typedef struct loss_nll {
    const char *op;
    clops_tensor *x, *t, *w;
    int64_t N, C, S;
    int64_t ignore;
    bool per_elem; /* reduction=none with a batch: one loss per element */
    bool mean;     /* reduction=mean */
} loss_nll;

/*
 * The forward into host tensors out (contiguous: M elements when per_elem,
 * else one) and tw (one element), in double, elements in order.  An
 * out-of-range target is CLOPS_INDEX_OUT_OF_RANGE ("<op>: Target V is out
 * of bounds.").
 */
clops_status loss_ref_nll_forward(const loss_nll *p, clops_tensor *out, clops_tensor *tw);

/*
 * The backward into host tensor gi (contiguous [N, C, S], zeroed here):
 * grad_output go (contiguous, M elements when per_elem, else one) and the
 * total weight tw (one element) of x's dtype.
 */
clops_status loss_ref_nll_backward(const loss_nll *p, const clops_tensor *go,
                                   const clops_tensor *tw, clops_tensor *gi);

/* The elementwise losses (ops/loss/loss_pointwise.c): x, y and w (NULL: none)
 * contiguous, broadcast to M elements of one floating dtype. */
typedef enum loss_pw_mode {
    LOSS_MSE = 0,
    LOSS_BCE = 1,
    LOSS_SMOOTH_L1 = 2,
    LOSS_HUBER = 3
} loss_pw_mode;

typedef struct loss_pw {
    const char *op;
    loss_pw_mode mode;
    double p; /* beta (smooth_l1), delta (huber) */
    clops_tensor *x, *y, *w;
    int64_t M;
    bool per_elem; /* reduction=none */
    bool mean;
} loss_pw;

/* The forward into contiguous host tensor out (M elements when per_elem,
 * else one: the sum, or the sum / M for mean), in double, in order.  BCE
 * refuses an input outside [0, 1]. */
clops_status loss_ref_pw_forward(const loss_pw *p, clops_tensor *out);
/* The backward into contiguous host tensor gi (M elements) from go
 * (contiguous, M elements); norm scales every element. */
clops_status loss_ref_pw_backward(const loss_pw *p, const clops_tensor *go, double norm,
                                  clops_tensor *gi);

/* The out-of-range error of target value v (every device reports it). */
clops_status ref_loss_target_error(const char *op, int64_t v, int64_t C);
/* binary_cross_entropy's error for an input outside [0, 1]. */
clops_status ref_loss_input_range_error(const char *op);
/* binary_cross_entropy's error for a target outside [0, 1]. */
clops_status ref_loss_target_range_error(const char *op);

#endif /* CLOPS_REF_REF_LOSS_H */
