/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tools/check/check_guard.h: tensors in the layouts kernels must handle,
 * placed inside storages of sentinel bytes that catch out-of-bounds writes.
 *
 * Layouts (the geometry a user gets from the view functions):
 *   contiguous  row-major at the start of its extent;
 *   transposed  every dim reversed in memory: dense, strides increasing
 *               from the first dim to the last (a permuted view);
 *   sliced      elements 1, 3, 5, ... of each dim of a larger base: step-2
 *               strides, a storage offset, a gap after every element;
 *   expanded    a base with size 1 in dims 0, 2, 4, ... viewed with stride
 *               0 there (several elements share one memory location;
 *               read-only).
 *
 * A guarded tensor's storage is laid out as
 *
 *     [CHK_GUARD_ELEMS elements of guard][the view's extent][CHK_GUARD_ELEMS of guard]
 *
 * and every byte starts with a position-dependent sentinel value; the gaps
 * of a sliced layout are guards too.  The view's elements hold either given
 * values or the sentinel (outputs: an element an op forgets to write shows
 * up in the comparison).  After an op ran, chk_guarded_verify() finds any
 * byte outside the view's elements that lost its sentinel (ggml's
 * test-backend-ops does the same with sentinel tensors between outputs).
 * Because every byte of the storage is determined, views that reach
 * outside the elements (as_strided) read the same bytes on every device.
 *
 * tests/support/ct_guard.c wraps these functions for the tests.
 */
#ifndef CLOPS_TOOLS_CHECK_GUARD_H
#define CLOPS_TOOLS_CHECK_GUARD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "clops/tensor.h"

typedef enum chk_layout {
    CHK_CONTIGUOUS,
    CHK_TRANSPOSED,
    CHK_SLICED,
    CHK_EXPANDED,
    CHK_OFFSET, /* contiguous at a storage offset of CHK_ODD_OFFSET elements */
    CHK_LAYOUT_COUNT
} chk_layout;

/* The storage offset of CHK_OFFSET: a multiple of no vector width, so
 * vector loads and stores meet a view that is not aligned to them. */
#define CHK_ODD_OFFSET 3

/* "contiguous", "transposed", "sliced", "expanded", "offset". */
const char *chk_layout_name(chk_layout layout);

/* Shape of the base of an expanded tensor: 1 in dims 0, 2, 4, ... */
void chk_expanded_base(int ndim, const int64_t *sizes, int64_t *base);

/* Number of elements of a shape (1 for ndim 0). */
int64_t chk_numel(int ndim, const int64_t *sizes);

/* Elements of sentinel before the first and after the last element. */
#define CHK_GUARD_ELEMS 64

typedef struct chk_guarded {
    clops_tensor *t;     /* the view an op reads or writes */
    clops_tensor *bytes; /* uint8 view of the whole storage */
    size_t nbytes;
} chk_guarded;

/*
 * A tensor of the layout on dev inside a guarded storage.  values (may be
 * NULL: the elements keep the sentinel) holds the logical row-major values:
 * numel elements of dt, or for CHK_EXPANDED the numel of the base
 * (chk_expanded_base).  One transfer writes the whole storage (a large
 * one without values: its first block, tiled on the device).  On
 * failure *out is empty and the status says why.
 */
clops_status chk_guarded_new(clops_device *dev, clops_dtype dt, int ndim, const int64_t *sizes,
                               chk_layout layout, const void *values, chk_guarded *out);

/*
 * chk_guarded_new for values that repeat every `period` elements (0: no
 * repetition known).  A CHK_CONTIGUOUS view of more than `period` elements
 * reads only the first `period` values and is written one period at a
 * time, tiled on the device; other layouts read every value.  The bytes
 * are the same as chk_guarded_new's.
 */
clops_status chk_guarded_new_tiled(clops_device *dev, clops_dtype dt, int ndim,
                                   const int64_t *sizes, chk_layout layout, const void *values,
                                   int64_t period, chk_guarded *out);

/*
 * Reads the storage back and looks for bytes outside the view's elements
 * that lost their sentinel.  *intact receives the answer; when false, msg
 * (cap bytes) says how many bytes changed, where the first one is and what
 * it holds.  The status reports a failed read only.
 */
clops_status chk_guarded_verify(const chk_guarded *g, bool *intact, char *msg, size_t cap);

/* Releases both views; safe on an empty or released record. */
void chk_guarded_release(chk_guarded *g);

#endif /* CLOPS_TOOLS_CHECK_GUARD_H */
