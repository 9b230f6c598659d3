/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/support/ct_check.c: the operator suite of issue 4 as cmocka tests:
 * every op x every dtype it accepts x the check engine's `ci` cases x every
 * OpenCL device under test, against the CPU reference.
 *
 * The engine is tools/check/ (the one `clops check` runs); this file picks
 * the ops of one test executable (one inventory family, or one part of it,
 * so ctest runs several executables side by side: tests/check_family.c),
 * prints every failing case with op,
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
#include <string.h>
#include <time.h>

#include "clops_test.h"
#include "dispatch/dispatch.h"
#include "tools/check/check.h"

/* The family, the part of it and the optional glob of a run; base and
 * group follow the family's ops in registry order. */
typedef struct shard {
    const char *family;
    int part, nparts;
    const char *glob;
    char base[128]; /* base name of the last op of the family seen */
    int group;      /* index of its run of same-base ops in the family */
} shard;

/* Length of an op name's base: up to the overload ('.'), without the
 * in-place '_' ("add_.Tensor" -> "add"). */
static size_t base_len(const char *name)
{
    size_t len = strcspn(name, ".");
    if (len > 1 && name[len - 1] == '_')
        len--;
    return len;
}

/* Whether op is in the run's family and part (and glob).  Called once per
 * op in registry order: each run of consecutive ops of the family with the
 * same base name (an op with its overloads, in-place and out= forms, which
 * the inventory lists together) is one group, and group k belongs to part
 * k mod nparts. */
static bool in_shard(const clops_op *op, void *ctx)
{
    shard *s = ctx;
    const char *family = dispatch_op_family(op);
    if (!family || strcmp(family, s->family) != 0)
        return false;
    const char *name = clops_op_name(op);
    size_t len = base_len(name);
    if (len >= sizeof s->base)
        len = sizeof s->base - 1;
    if (s->group < 0 || strncmp(s->base, name, len) != 0 || s->base[len] != '\0') {
        s->group++;
        memcpy(s->base, name, len);
        s->base[len] = '\0';
    }
    if (s->group % s->nparts != s->part)
        return false;
    return !s->glob || fnmatch(s->glob, name, 0) == 0;
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

void ct_check_ops_family(const char *family, int part, int nparts)
{
    clops_device *devs[CT_MAX_DEVICES];
    int ndev = ct_opencl_devices(devs, CT_MAX_DEVICES);
    if (ndev == 0) {
        devs[0] = ct_cpu();
        ndev = 1;
    }
    const char *v = getenv("CLOPS_TEST_CHECK_VERBOSE");
    bool verbose = v && *v && *v != '0';
    CT_ASSERT_MSG(nparts >= 1 && part >= 0 && part < nparts, "part %d of %d", part + 1, nparts);
    shard s = {family, part, nparts, getenv("CLOPS_TEST_CHECK_OPS"), "", -1};
    if (s.glob && !*s.glob)
        s.glob = NULL;
    chk_selection sel = {CHK_SET_CI, in_shard, &s};
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
    print_message("checked %d ops of family %s (part %d of %d) on %d device(s) in %.1f s: "
                  "%d passed, %d failed, %d errors, %d skipped\n",
                  n, family, part + 1, nparts, ndev, now_s() - t0, tot.passed, tot.failed,
                  tot.errors, tot.skipped);
    CT_ASSERT_MSG(n > 0 || s.glob, "no op of family %s in part %d of %d", family, part + 1,
                  nparts);
    CT_ASSERT_MSG(tot.failed + tot.errors == 0,
                  "%d case(s) failed and %d errored (each is listed above with op, dtype, "
                  "case, device, kernel and the largest errors)",
                  tot.failed, tot.errors);
}
