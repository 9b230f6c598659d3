/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tools/check/check_compare.h: elementwise comparison of a result with its
 * reference, the report of the differences, and the tolerance rule of the
 * check engine.
 *
 * Both sides are row-major host buffers of one dtype and shape (the caller
 * brings tensors to the host first).  Integer dtypes compare exactly, bool
 * by the stored byte (a 2 where 1 was expected is caught), floats by
 * ulp_close (ulp.h): NaN where the reference is NaN and only there, the same
 * infinities, and finite values within the tolerance.  The report keeps the
 * largest absolute and ULP errors over finite pairs and the first
 * CHK_CMP_MISMATCHES mismatches with their multi-index and raw bits, which
 * is what one needs to tell a rounding slip from a wrong index.
 *
 * tests/support/ct_compare.c is a thin wrapper over these functions, so the
 * tests and `clops check` judge results the same way.
 */
#ifndef CLOPS_TOOLS_CHECK_COMPARE_H
#define CLOPS_TOOLS_CHECK_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "clops/dtype.h"
#include "tools/check/ulp.h"

/* How many mismatches a report lists. */
#define CHK_CMP_MISMATCHES 8

typedef struct chk_cmp {
    int64_t numel;
    int64_t mismatches;
    double max_abs_err; /* over finite pairs */
    double max_ulp_err; /* over finite pairs whose error exceeds the absolute floor
                           (tol->atol), in ULPs of the dtype (0 for integers) */
    char detail[2048];  /* "\n  at [1, 2]: got 1.5 (0x3fc0) expected 1.25 (0x3fa0), ..." */
} chk_cmp;

/*
 * Compares actual with expected (row-major host buffers of dtype dt and the
 * given shape) under tol.  Returns true when everything matches; rep (may
 * be NULL) receives the counts, the maximum errors and the first
 * mismatches.
 */
bool chk_compare_host(const void *actual, const void *expected, clops_dtype dt, int ndim,
                        const int64_t *sizes, const ulp_tol *tol, chk_cmp *rep);

/* "[1, 0, 3]": the multi-index of row-major position `linear` in a shape. */
char *chk_format_index(char *buf, size_t cap, int ndim, const int64_t *sizes, int64_t linear);

/*
 * The check engine's tolerance for a floating result of dtype dt (the
 * reference computes in double, devices in float for float16/bfloat16/
 * float32 and in double for float64):
 *
 *   float32, float64   `ulp` ULPs of the result dtype;
 *   float16, bfloat16  one ULP of the result dtype (the two sides round a
 *                      float and a double to it) plus `ulp` float32 ULPs;
 *   absolute floor     max(atol, smallest normal of the compute type), so a
 *                      device that flushes subnormals is not failed for it;
 *   reductions         with reduce_len = K > 0 (the length of a dot
 *                      product), the ULP budget is multiplied by K and the
 *                      floor raised to K * ulp * ULP(compute, bound^2):
 *                      rounding errors of K products of inputs up to
 *                      `bound` add up in any summation order.
 *
 * ulp <= 0 means the default, 4.
 */
ulp_tol chk_tolerance(clops_dtype dt, double ulp, double atol, int64_t reduce_len,
                        double bound);

#endif /* CLOPS_TOOLS_CHECK_COMPARE_H */
