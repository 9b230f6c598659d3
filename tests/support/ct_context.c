/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/support/ct_context.c: the failure context (which device, which
 * case) and the checks that fail a cmocka test with it.
 *
 * cmocka's own assertions print only their operands; a loop over devices
 * and dtypes needs to say which iteration failed.  The context lives in
 * thread-local buffers set by the loops and is printed by every ct_ check.
 *
 * (The LeakSanitizer suppressions of a CLOPS_SANITIZE build are in
 * tests/lsan.supp, which tests/CMakeLists.txt hands to every test.)
 */
#include <stdio.h>
#include <string.h>

#include "clops_test.h"

static _Thread_local char ctx_device[320];
static _Thread_local char ctx_case[512];
static _Thread_local char ctx_text[900];

void ct_set_device(const clops_device *d)
{
    if (!d) {
        ctx_device[0] = '\0';
        return;
    }
    snprintf(ctx_device, sizeof ctx_device, "%s", ct_device_name(d));
}

void ct_set_case(const char *fmt, ...)
{
    if (!fmt) {
        ctx_case[0] = '\0';
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ctx_case, sizeof ctx_case, fmt, ap);
    va_end(ap);
}

void ct_clear_context(void)
{
    ctx_device[0] = '\0';
    ctx_case[0] = '\0';
}

const char *ct_context(void)
{
    if (!ctx_device[0] && !ctx_case[0]) {
        ctx_text[0] = '\0';
        return ctx_text;
    }
    snprintf(ctx_text, sizeof ctx_text, "[%s%s%s] ", ctx_device,
             (ctx_device[0] && ctx_case[0]) ? " | " : "", ctx_case);
    return ctx_text;
}

void ct_fail_at(const char *file, int line, const char *fmt, ...)
{
    char msg[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    print_error("%s:%d: %s%s\n", file, line, ct_context(), msg);
    /* The failure ends the test: the next one starts without context. */
    ct_clear_context();
    _fail(file, line);
}

void ct_check_ok_at(clops_status st, const char *expr, const char *file, int line)
{
    if (st == CLOPS_OK)
        return;
    ct_fail_at(file, line, "%s returned %s: %s", expr, clops_status_name(st), clops_last_error());
}

void ct_check_status_at(clops_status st, clops_status expected, const char *expr,
                        const char *file, int line)
{
    if (st == expected)
        return;
    ct_fail_at(file, line, "%s returned %s, expected %s%s%s", expr, clops_status_name(st),
               clops_status_name(expected), st ? "; message: " : "",
               st ? clops_last_error() : "");
}

void ct_check_error_contains_at(const char *needle, const char *file, int line)
{
    const char *msg = clops_last_error();
    if (strstr(msg, needle))
        return;
    ct_fail_at(file, line, "the error message does not mention '%s': \"%s\"", needle, msg);
}

int ct_teardown_group(void **state)
{
    (void)state;
    clops_shutdown();
    return 0;
}
