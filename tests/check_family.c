/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/check_family.c: the operator suite of one inventory family: every
 * op of dispatch/inventory/<family>.yaml x every dtype it accepts x the `ci`
 * cases (odd sizes, broadcasting both ways, transposed, step-sliced with an
 * offset, expanded, zero-dim, zero-size, in-place on a fresh copy, out=
 * into a guarded transposed view) x every OpenCL device, against the CPU
 * reference.
 *
 * tests/CMakeLists.txt builds this file once per inventory file, as
 * test_check_<family> (a large family as test_check_<family>_1 ... _N, one
 * part each), with CLOPS_CHECK_FAMILY, CLOPS_CHECK_PART (1-based) and
 * CLOPS_CHECK_PARTS defined, so ctest runs the parts side by side and a new
 * inventory file gets its suite without editing anything here.
 * tests/support/ct_check.c runs the check engine (tools/check/), the same
 * cases as `clops check --set ci`.
 */
#include "support/clops_test.h"

#if !defined(CLOPS_CHECK_FAMILY) || !defined(CLOPS_CHECK_PART) || !defined(CLOPS_CHECK_PARTS)
#error "tests/CMakeLists.txt defines CLOPS_CHECK_FAMILY, CLOPS_CHECK_PART and CLOPS_CHECK_PARTS"
#endif

/* Every case of the family's ops (of this part) passes on every device. */
static void test_ops_match_the_cpu_reference(void **state)
{
    (void)state;
    ct_check_ops_family(CLOPS_CHECK_FAMILY, CLOPS_CHECK_PART - 1, CLOPS_CHECK_PARTS);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ops_match_the_cpu_reference),
    };
    return cmocka_run_group_tests(tests, NULL, ct_teardown_group);
}
