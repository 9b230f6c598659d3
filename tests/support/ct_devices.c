/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/support/ct_devices.c: which devices a test runs on.
 *
 * By default every device clops found: the CPU device (the reference) and
 * each OpenCL device.  CLOPS_TEST_DEVICES narrows the list for a run, e.g.
 * "cpu" under valgrind or "opencl:1" to chase a bug on one GPU.  Selectors
 * are those of clops_device_find plus "all" and "opencl" (every OpenCL
 * device); a selector that matches nothing fails the test rather than
 * silently testing less.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "clops_test.h"

/* Marks the devices one selector names; fails the test if none. */
static void select_one(const char *sel, int count, bool *chosen)
{
    if (strcasecmp(sel, "all") == 0) {
        for (int i = 0; i < count; i++)
            chosen[i] = true;
        return;
    }
    if (strcasecmp(sel, "opencl") == 0) {
        for (int i = 0; i < count; i++) {
            clops_device *d = NULL;
            CT_OK(clops_device_get(i, &d));
            if (clops_device_get_info(d)->type == CLOPS_DEVICE_OPENCL)
                chosen[i] = true;
        }
        return;
    }
    clops_device *d = NULL;
    clops_status st = clops_device_find(sel, &d);
    if (st)
        ct_fail("CLOPS_TEST_DEVICES: selector '%s' matches no device: %s", sel,
                clops_last_error());
    chosen[clops_device_get_info(d)->index] = true;
}

int ct_devices(clops_device **out, int cap)
{
    int count = 0;
    CT_OK(clops_device_count(&count));
    if (count > CT_MAX_DEVICES)
        count = CT_MAX_DEVICES;
    bool chosen[CT_MAX_DEVICES] = {false};
    const char *env = getenv("CLOPS_TEST_DEVICES");
    if (!env || !*env) {
        for (int i = 0; i < count; i++)
            chosen[i] = true;
    } else {
        char list[1024];
        snprintf(list, sizeof list, "%s", env);
        char *save = NULL;
        for (char *tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
            while (*tok == ' ')
                tok++;
            size_t len = strlen(tok);
            while (len && tok[len - 1] == ' ')
                tok[--len] = '\0';
            if (*tok)
                select_one(tok, count, chosen);
        }
    }
    int n = 0;
    for (int i = 0; i < count && n < cap; i++) {
        if (!chosen[i])
            continue;
        CT_OK(clops_device_get(i, &out[n]));
        n++;
    }
    return n;
}

int ct_opencl_devices(clops_device **out, int cap)
{
    clops_device *all[CT_MAX_DEVICES];
    int n = ct_devices(all, CT_MAX_DEVICES);
    int k = 0;
    for (int i = 0; i < n && k < cap; i++)
        if (clops_device_get_info(all[i])->type == CLOPS_DEVICE_OPENCL)
            out[k++] = all[i];
    return k;
}

clops_device *ct_cpu(void)
{
    clops_device *d = NULL;
    CT_OK(clops_device_get(0, &d));
    return d;
}

const char *ct_device_name(const clops_device *d)
{
    static _Thread_local char buf[300];
    if (!d)
        return "(no device)";
    snprintf(buf, sizeof buf, "%s '%s'", clops_device_label(d), clops_device_get_info(d)->name);
    return buf;
}

bool ct_device_supports(const clops_device *d, clops_dtype dt)
{
    return dt != CLOPS_FLOAT64 || clops_device_get_info(d)->fp64;
}
