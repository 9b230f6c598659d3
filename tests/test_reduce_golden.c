/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/test_reduce_golden.c: the reduction ops against PyTorch's own
 * results, on the CPU device and on every OpenCL device.
 *
 * tests/data/golden_reduce.json is written by tests/data/gen_golden_reduce.py
 * (torch on a CPU): result dtypes, NaN propagation and first index on ties,
 * empty reductions, dtype= handling, var/std corrections on large means,
 * logsumexp with infinities, every norm order, and the calls PyTorch
 * refuses.  tests/support/ct_golden.c replays the cases (rules there).
 */
#include "support/clops_test.h"

/* Every case of the file on every device. */
static void test_reductions_match_pytorch(void **state)
{
    (void)state;
    ct_replay_golden("golden_reduce.json");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reductions_match_pytorch),
    };
    return cmocka_run_group_tests(tests, NULL, ct_teardown_group);
}
