/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/support/ct_check.c: the operator suite of issue 4 as cmocka tests:
 * every op x every dtype it accepts x the check engine's `ci` cases x every
 * OpenCL device under test, against the CPU reference.
 *
 * The engine is tools/check/ (the one `clops check` runs); this file picks
 * the ops of one test executable (a range of first letters, so ctest runs
 * several executables side by side), prints every failing case with op,
 * dtype, case, device, kernel and the largest errors, and fails the test
 * when any case failed.  Without an OpenCL device the CPU device is checked
 * against itself, which still runs every case through the reference.
 *
 * CLOPS_TEST_CHECK_OPS=GLOB narrows a run to matching op names (for
 * working on one op), CLOPS_TEST_CHECK_VERBOSE=1 prints every result.
 */
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "clops_test.h"
#include "tools/check/check.h"

/* The range of first characters and the optional glob of a run. */
typedef struct range {
    char first, last;
    const char *glob;
} range;

/* Whether op is in the run's range of first letters (and glob). */
static bool in_range(const clops_op *op, void *ctx)
{
    const range *r = ctx;
    const char *name = clops_op_name(op);
    if (name[0] < r->first || name[0] > r->last)
        return false;
    return !r->glob || fnmatch(r->glob, name, 0) == 0;
}

/* Prints failing (and, verbose, all) results. */
static void on_result(void *ctx, const chk_result *res)
{
    bool verbose = *(const bool *)ctx;
    if (verbose || res->status == CHK_FAIL || res->status == CHK_ERROR)
        chk_print_result(stderr, res);
}

/* Monotonic clock in seconds. */
static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

void ct_check_ops_range(char first, char last)
{
    clops_device *devs[CT_MAX_DEVICES];
    int ndev = ct_opencl_devices(devs, CT_MAX_DEVICES);
    if (ndev == 0) {
        devs[0] = ct_cpu();
        ndev = 1;
    }
    const char *v = getenv("CLOPS_TEST_CHECK_VERBOSE");
    bool verbose = v && *v && *v != '0';
    range r = {first, last, getenv("CLOPS_TEST_CHECK_OPS")};
    if (r.glob && !*r.glob)
        r.glob = NULL;
    chk_selection sel = {CHK_SET_CI, in_range, &r};
    const clops_op **ops = NULL;
    int n = 0;
    CT_OK(chk_select_ops(&sel, &ops, &n));
    chk_totals tot = {0, 0, 0, 0};
    chk_callbacks cb = {on_result, &verbose};
    double t0 = now_s();
    for (int i = 0; i < n; i++) {
        clops_status st = chk_run_op(ops[i], CHK_SET_CI, 0, devs, ndev, &cb, &tot);
        if (st) {
            free(ops);
            ct_fail("the check engine failed on %s: %s: %s", clops_op_name(ops[i]),
                    clops_status_name(st), clops_last_error());
        }
    }
    free(ops);
    print_message("checked %d ops whose names start with '%c'..'%c' on %d device(s) in %.1f s: "
                  "%d passed, %d failed, %d errors, %d skipped\n",
                  n, first, last, ndev, now_s() - t0, tot.passed, tot.failed, tot.errors,
                  tot.skipped);
    CT_ASSERT_MSG(n > 0 || r.glob, "no op starts with a character in '%c'..'%c'", first, last);
    CT_ASSERT_MSG(tot.failed + tot.errors == 0,
                  "%d case(s) failed and %d errored (each is listed above with op, dtype, "
                  "case, device, kernel and the largest errors)",
                  tot.failed, tot.errors);
}
