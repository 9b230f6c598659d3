/* SPDX-License-Identifier: Apache-2.0 */
/*
 * core/status.c: status-code tables and the per-thread error message.
 *
 * The tables are expanded from CLOPS_STATUS_LIST.  The message lives in a
 * fixed thread-local buffer, so recording an error never allocates and can
 * report an allocation failure too.
 */
#include <stdio.h>
#include <string.h>

#include "core/error.h"

typedef struct status_entry {
    clops_status code;
    const char *name;
    const char *message;
} status_entry;

static const status_entry status_table[] = {
#define STATUS_ROW(name, value, msg) {CLOPS_##name, #name, msg},
    CLOPS_STATUS_LIST(STATUS_ROW)
#undef STATUS_ROW
};

_Static_assert(sizeof status_table / sizeof status_table[0] == CLOPS_STATUS_COUNT,
               "CLOPS_STATUS_COUNT must match CLOPS_STATUS_LIST");

static _Thread_local char last_error[CLOPS__ERROR_CAP];

static const status_entry *status_find(clops_status status)
{
    /* Codes are 0, -1, -2, ... in list order. */
    int idx = -(int)status;
    if (idx < 0 || idx >= CLOPS_STATUS_COUNT)
        return NULL;
    return &status_table[idx];
}

const char *clops_status_string(clops_status status)
{
    const status_entry *e = status_find(status);
    return e ? e->message : "unknown status";
}

const char *clops_status_name(clops_status status)
{
    const status_entry *e = status_find(status);
    return e ? e->name : "UNKNOWN";
}

const char *clops_last_error(void)
{
    return last_error;
}

void clops_clear_error(void)
{
    last_error[0] = '\0';
}

/* Marks a message that did not fit. */
static void mark_truncated(void)
{
    static const char marker[] = " [...truncated]";
    memcpy(last_error + CLOPS__ERROR_CAP - sizeof marker, marker, sizeof marker);
}

clops_status clops__vfail(clops_status status, const char *fmt, va_list ap)
{
    int n = vsnprintf(last_error, CLOPS__ERROR_CAP, fmt, ap);
    if (n >= CLOPS__ERROR_CAP)
        mark_truncated();
    return status;
}

clops_status clops__fail(clops_status status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    clops__vfail(status, fmt, ap);
    va_end(ap);
    return status;
}

clops_status clops__error_prefix(clops_status status, const char *fmt, ...)
{
    char prefix[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(prefix, sizeof prefix, fmt, ap);
    va_end(ap);
    if (n < 0)
        return status;
    size_t plen = strlen(prefix);
    size_t old = strlen(last_error);
    if (plen + 2 >= CLOPS__ERROR_CAP)
        return status;
    size_t keep = old;
    if (plen + 2 + keep >= CLOPS__ERROR_CAP)
        keep = CLOPS__ERROR_CAP - plen - 3;
    memmove(last_error + plen + 2, last_error, keep);
    memcpy(last_error, prefix, plen);
    last_error[plen] = ':';
    last_error[plen + 1] = ' ';
    last_error[plen + 2 + keep] = '\0';
    if (keep < old)
        mark_truncated();
    return status;
}

void clops__error_append(const char *text)
{
    size_t old = strlen(last_error);
    size_t add = strlen(text);
    if (old + add >= CLOPS__ERROR_CAP) {
        memcpy(last_error + old, text, CLOPS__ERROR_CAP - old - 1);
        last_error[CLOPS__ERROR_CAP - 1] = '\0';
        mark_truncated();
        return;
    }
    memcpy(last_error + old, text, add + 1);
}

char *clops__fmt_shape(char *buf, size_t cap, int ndim, const int64_t *sizes)
{
    size_t pos = 0;
    if (cap == 0)
        return buf;
    buf[0] = '\0';
    pos += (size_t)snprintf(buf + pos, cap - pos, "[");
    for (int i = 0; i < ndim && pos < cap; i++)
        pos += (size_t)snprintf(buf + pos, cap - pos, "%s%lld", i ? ", " : "", (long long)sizes[i]);
    if (pos < cap)
        snprintf(buf + pos, cap - pos, "]");
    return buf;
}
