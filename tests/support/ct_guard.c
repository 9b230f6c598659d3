/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/support/ct_guard.c: output tensors surrounded by sentinel bytes, to
 * catch kernels that write outside the elements they were given.
 *
 * The storage layout, the sentinel and the verification are the check
 * engine's (tools/check/check_guard.c, the same guards `clops check` puts
 * around every output); this file turns them into cmocka failures.
 */
#include "clops_test.h"

ct_guarded ct_guarded_new(clops_device *dev, clops_dtype dt, int ndim, const int64_t *sizes,
                          ct_layout layout)
{
    ct_guarded g = {NULL, NULL, 0};
    CT_ASSERT_MSG(layout != CT_EXPANDED, "ct_guarded_new: an expanded tensor cannot be written");
    CT_OK(chk_guarded_new(dev, dt, ndim, sizes, layout, NULL, &g));
    return g;
}

void ct_guarded_check_at(const ct_guarded *g, const char *file, int line)
{
    bool intact = true;
    char msg[1024];
    ct_check_ok_at(chk_guarded_verify(g, &intact, msg, sizeof msg), "chk_guarded_verify",
                   file, line);
    if (!intact)
        ct_fail_at(file, line, "%s", msg);
}

void ct_guarded_release(ct_guarded *g)
{
    chk_guarded_release(g);
}
