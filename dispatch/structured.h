/* SPDX-License-Identifier: Apache-2.0 */
/*
 * dispatch/structured.h: PyTorch's rules for the three forms of a structured
 * operator, shared by every family (pointwise ops get them from pw_run).
 *
 * A structured family function (docs/operator-inventory.md) computes the
 * result's shape and dtype (its "meta" step), then calls structured_begin to
 * get the tensor to write:
 *   PW_FUNCTIONAL  a new tensor of that shape and dtype on the device;
 *   PW_INPLACE     self, which must already have that shape, and whose dtype
 *                  the result dtype must be castable to;
 *   PW_OUT         out, resized to the shape when it differs (as PyTorch
 *                  does), castable dtype, no partial overlap with an input.
 * When the destination's dtype differs from the result dtype, the target is a
 * temporary of the result dtype and structured_finish copies it into the
 * destination.  structured_finish also hands the functional result to *out.
 */
#ifndef CLOPS_DISPATCH_STRUCTURED_H
#define CLOPS_DISPATCH_STRUCTURED_H

#include "core/tensor_impl.h"

/* Which variant of an op is being run (changes output handling). */
typedef enum pw_variant {
    PW_FUNCTIONAL, /* allocate the output */
    PW_INPLACE,    /* write into operand 0 */
    PW_OUT         /* write into the given out tensor (resized if needed) */
} pw_variant;

typedef struct structured_call {
    const char *opname;
    pw_variant variant;
    clops_tensor *dst;    /* the user's destination (NULL for functional) */
    clops_tensor *target; /* what the kernel writes (owned reference) */
} structured_call;

/*
 * Prepares the target.  inputs (n of them, NULL entries skipped) are checked
 * against the destination for partial overlap.  On failure nothing is held.
 */
clops_status structured_begin(structured_call *call, const char *opname, pw_variant variant,
                              clops_tensor *dst, clops_device *device, clops_dtype dtype, int ndim,
                              const int64_t *sizes, clops_tensor *const *inputs, int n);

/* Copies a temporary target into the destination if needed, gives the
 * functional result to *out (may be NULL for the other variants), and drops
 * the call's references.  Pass the kernel's status: on failure it only
 * cleans up and returns that status. */
clops_status structured_finish(structured_call *call, clops_status st, clops_tensor **out);

/* PyTorch's overlap checks for a written tensor: CLOPS_MEMORY_OVERLAP when
 * dst has internal overlap (a stride-0 dim of size > 1) or partially
 * overlaps one of the inputs (NULL entries skipped). */
clops_status structured_check_overlap(const char *opname, const clops_tensor *dst,
                                      clops_tensor *const *inputs, int n);

/* True when t covers a dense block of memory in some dimension order
 * (PyTorch's is_non_overlapping_and_dense: its dims of size other than 1,
 * ordered by stride, have the strides of a contiguous tensor). */
bool structured_non_overlapping_dense(const clops_tensor *t);

#endif /* CLOPS_DISPATCH_STRUCTURED_H */
