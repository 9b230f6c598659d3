/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/test_check_ops_a.c: the operator suite for ops whose names start
 * with '_' to 'a': every op x every dtype it accepts x the `ci` cases
 * (odd sizes, broadcasting both ways, transposed, step-sliced with an
 * offset, expanded, zero-dim, zero-size, in-place on a fresh copy, out=
 * into a guarded transposed view) x every OpenCL device, against the CPU
 * reference.  The suite is split by first letter so ctest runs the parts
 * side by side; tests/support/ct_check.c runs the check engine
 * (tools/check/), the same cases as `clops check --set ci`.
 */
#include "support/clops_test.h"

/* Every case of the ops in the range passes on every device. */
static void test_ops_match_the_cpu_reference(void **state)
{
    (void)state;
    ct_check_ops_range('_', 'a');
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ops_match_the_cpu_reference),
    };
    return cmocka_run_group_tests(tests, NULL, ct_teardown_group);
}
