/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tools/check/ulp.h: distances between floating-point values measured in
 * units in the last place (ULPs) of a clops dtype, and the tolerance rule
 * every comparison of a device result with the CPU reference uses.
 *
 * These are pure functions of their arguments (no clops state, no test
 * framework).  They are part of the check engine (tools/check/, the static
 * library clops_check), so the tests (tests/support/ wraps them) and the
 * CLI's `clops check` judge results by one copy of the same rule:
 *
 *   actual matches expected when
 *     - both are NaN, or
 *     - both are the same infinity, or
 *     - both are finite and |actual - expected| <= max(ulp * ulp_spacing(expected), atol),
 *       and, when signed_zero is asked for, a zero result has the sign of
 *       the expected zero.
 *
 * Values are passed as double whatever the dtype; a float16 or bfloat16
 * value is exactly representable in double, so nothing is lost.  The ULP of
 * a dtype at x is the gap between |x| and the next larger representable
 * magnitude of that dtype (2^(e - p + 1) for |x| in [2^e, 2^(e+1)), with p
 * the precision: 11 for float16, 8 for bfloat16, 24 for float32, 53 for
 * float64), and the subnormal spacing below the smallest normal.  Integer and
 * bool dtypes have an ULP of 1.
 */
#ifndef CLOPS_TOOLS_CHECK_ULP_H
#define CLOPS_TOOLS_CHECK_ULP_H

#include <stdbool.h>
#include <stdint.h>

#include "clops/dtype.h"

/* How close a result must be to the reference (see the rule above). */
typedef struct ulp_tol {
    double ulp;       /* allowed error in ULPs of the dtype at the expected value */
    double atol;      /* absolute floor: an error this small always passes */
    bool signed_zero; /* a zero must carry the expected zero's sign */
} ulp_tol;

/* Precision p (significand bits, the implicit one included) of a floating
 * dtype; 0 for the others. */
int ulp_precision(clops_dtype dt);

/* Smallest normal exponent emin of a floating dtype (the smallest normal is
 * 2^emin): -14, -126, -126, -1022; 0 for the others. */
int ulp_min_exponent(clops_dtype dt);

/* Largest finite value of a floating dtype (65504, 3.3895e38, ...); the
 * largest value of an integer dtype; 1 for bool. */
double ulp_max_finite(clops_dtype dt);

/* The ULP of dt at x (see above).  1 for integer and bool dtypes; NaN for a
 * non-finite x.  At or beyond the largest finite value it is the ULP of the
 * largest finite value. */
double ulp_spacing(clops_dtype dt, double x);

/* |actual - expected| in ULPs of dt at expected: 0 when both are NaN or the
 * same infinity, INFINITY when only one is NaN or the infinities differ
 * (or only one is infinite). */
double ulp_error(clops_dtype dt, double actual, double expected);

/* Number of representable values of dt one must step over to go from a to
 * b (0 when equal; +0 and -0 are one step apart only when counted with
 * signed zeros, here they count as equal).  Both values are assumed to be
 * representable in dt (they are rounded to it first otherwise).  UINT64_MAX
 * when either is NaN.  For integer dtypes it is |a - b|. */
uint64_t ulp_distance(clops_dtype dt, double a, double b);

/* Whether actual matches expected under tol for a value of dtype dt.  For
 * integer and bool dtypes the values must be equal (tol is ignored). */
bool ulp_close(clops_dtype dt, double actual, double expected, const ulp_tol *tol);

#endif /* CLOPS_TOOLS_CHECK_ULP_H */
