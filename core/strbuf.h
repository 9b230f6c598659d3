/* SPDX-License-Identifier: Apache-2.0 */
/*
 * core/strbuf.h: a growable string for building kernel source, messages and
 * reports.
 *
 * Appending never fails loudly: on allocation failure the buffer records
 * `failed` and further appends are ignored, so a long chain of appends is
 * checked once at the end (sb_finish).  The contents are always NUL-terminated
 * when len > 0.
 */
#ifndef CLOPS_CORE_STRBUF_H
#define CLOPS_CORE_STRBUF_H

#include <stdbool.h>
#include <stddef.h>

#include "clops/status.h"
#include "core/error.h"

typedef struct strbuf {
    char *data;
    size_t len;
    size_t cap;
    bool failed;
} strbuf;

#define STRBUF_INIT {NULL, 0, 0, false}

void sb_append(strbuf *sb, const char *s);
void sb_append_n(strbuf *sb, const char *s, size_t n);
void sb_printf(strbuf *sb, const char *fmt, ...) CLOPS__PRINTF(2, 3);
void sb_putc(strbuf *sb, char c);
/* Empties the buffer and keeps its memory. */
void sb_clear(strbuf *sb);
/* CLOPS_HOST_OUT_OF_MEMORY (with a message naming `what`) if any append
 * failed, else CLOPS_OK. */
clops_status sb_finish(const strbuf *sb, const char *what);
/* The contents ("" when empty); valid until the next append. */
const char *sb_str(const strbuf *sb);
/* Frees the memory; the buffer may be reused after sb_free. */
void sb_free(strbuf *sb);
/* Hands the string to the caller (free() it), leaving the buffer empty.
 * NULL if an append failed. */
char *sb_take(strbuf *sb);

#endif /* CLOPS_CORE_STRBUF_H */
