/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ops/loss/loss.h: the loss family's internal interface (nll_loss and
 * nll_loss2d, forward and backward: ops/loss/loss_nll.c plans the call and
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
#include "host/host.h"
#include "ref/ref_loss.h"

/* The canonical problems (loss_nll, loss_pw) and their CPU references are
 * declared in ref/ref_loss.h. */

/* --- shared by ops/loss/loss_nll.c and ops/loss/loss_pointwise.c ------------------ */

/* Groups of a partial launch at most (each folds a contiguous chunk). */
#define LOSS_MAX_PARTS 1024

/* Kernel `which` of the loss program (cl_kernels/loss.cl) for input dtype
 * dt on d: 0 loss_nll_none, 1 loss_nll_part, 2 loss_nll_finish, 3
 * loss_nll_backward, 4 loss_pw_none, 5 loss_pw_part, 6 loss_pw_backward; CPU
 * devices only: 7 loss_nll_cpu, 8 loss_pw_part_cpu, 9 loss_pw_backward_cpu, 10
 * loss_nll_backward_cpu. */
clops_status loss_kernel(clops_device *d, int which, clops_dtype dt, const char *op,
                         host_kernel **k);
/* The 32-byte device-side flag of a launch sequence, zeroed. */
clops_status loss_flag_new(clops_device *d, host_block **eb);
/* Reads the flag when st is CLOPS_OK and frees it: a recorded value is
 * ref_loss_target_error (C > 0 classes), or with C == 0 (binary_cross_entropy's
 * bits) ref_loss_input_range_error, else ref_loss_target_range_error. */
clops_status loss_flag_check(const char *op, clops_device *d, host_block *eb, clops_status st,
                             int64_t C);

#endif /* CLOPS_OPS_LOSS_H */
