/* SPDX-License-Identifier: Apache-2.0 */
/*
 * core/strbuf.c: the growable string of core/strbuf.h.
 */
#include "core/strbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Makes room for `extra` more bytes plus the terminator. */
static bool sb_reserve(strbuf *sb, size_t extra)
{
    if (sb->failed)
        return false;
    size_t need = sb->len + extra + 1;
    if (need <= sb->cap)
        return true;
    size_t cap = sb->cap ? sb->cap : 256;
    while (cap < need)
        cap *= 2;
    char *p = realloc(sb->data, cap);
    if (!p) {
        sb->failed = true;
        return false;
    }
    sb->data = p;
    sb->cap = cap;
    return true;
}

void sb_append_n(strbuf *sb, const char *s, size_t n)
{
    if (!sb_reserve(sb, n))
        return;
    memcpy(sb->data + sb->len, s, n);
    sb->len += n;
    sb->data[sb->len] = '\0';
}

void sb_append(strbuf *sb, const char *s)
{
    sb_append_n(sb, s, strlen(s));
}

void sb_putc(strbuf *sb, char c)
{
    sb_append_n(sb, &c, 1);
}

void sb_printf(strbuf *sb, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char small[256];
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0) {
        sb->failed = true;
        return;
    }
    if ((size_t)n < sizeof small) {
        sb_append_n(sb, small, (size_t)n);
        return;
    }
    if (!sb_reserve(sb, (size_t)n))
        return;
    va_start(ap, fmt);
    vsnprintf(sb->data + sb->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    sb->len += (size_t)n;
}

void sb_clear(strbuf *sb)
{
    sb->len = 0;
    sb->failed = false;
    if (sb->data)
        sb->data[0] = '\0';
}

clops_status sb_finish(const strbuf *sb, const char *what)
{
    if (sb->failed)
        return CLOPS__HOST_OOM(what);
    return CLOPS_OK;
}

const char *sb_str(const strbuf *sb)
{
    return sb->data ? sb->data : "";
}

void sb_free(strbuf *sb)
{
    free(sb->data);
    sb->data = NULL;
    sb->len = sb->cap = 0;
    sb->failed = false;
}

char *sb_take(strbuf *sb)
{
    char *p = NULL;
    if (!sb->failed) {
        p = sb->data ? sb->data : calloc(1, 1);
        sb->data = NULL;
    }
    sb_free(sb);
    return p;
}
