/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ops/loss.h: the loss family's internal interface (nll_loss and
 * nll_loss2d, forward and backward: ops/loss_nll.c plans the call and
 * launches cl_kernels/loss.cl; the CPU device and the tests use the
 * reference below, ref/loss.c).
 *
 * Every call is reduced to one canonical problem: the input x contiguous
 * [N, C, S] (S = 1 for nll_loss, H * W for nll_loss2d; N = 1 for a 1-D
 * input), the target t M = N * S contiguous int64 values, the weight w
 * contiguous [C] of x's dtype or NULL.
 */
#ifndef CLOPS_OPS_LOSS_H
#define CLOPS_OPS_LOSS_H

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

/* The out-of-range error of target value v. */
clops_status loss_target_error(const char *op, int64_t v, int64_t C);

#endif /* CLOPS_OPS_LOSS_H */
