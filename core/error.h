/* SPDX-License-Identifier: Apache-2.0 */
/*
 * core/error.h: setting the thread-local error message from inside clops.
 *
 * Library code reports a failure with `return clops__fail(CLOPS_X, "fmt",
 * ...)`: the formatted detail becomes the calling thread's last error and the
 * status is returned unchanged, so one line both records and propagates.  A
 * caller that adds context to a failure from below uses clops__error_prefix,
 * which keeps the original detail after the new prefix.
 */
#ifndef CLOPS_CORE_ERROR_H
#define CLOPS_CORE_ERROR_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "clops/status.h"

#if defined(__GNUC__)
#define CLOPS__PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define CLOPS__PRINTF(a, b)
#endif

/* Size of the per-thread message buffer; longer messages are truncated with
 * a marker. */
#define CLOPS__ERROR_CAP 16384

/* Records the formatted message as the last error; returns status. */
clops_status clops__fail(clops_status status, const char *fmt, ...) CLOPS__PRINTF(2, 3);
clops_status clops__vfail(clops_status status, const char *fmt, va_list ap);

/* Prepends "prefix: " to the current message; returns status. */
clops_status clops__error_prefix(clops_status status, const char *fmt, ...) CLOPS__PRINTF(2, 3);

/* Appends text to the current message (for long details such as build logs). */
void clops__error_append(const char *text);

/* "[3, 4, 5]" into buf; returns buf.  cap of 16 * 22 bytes always suffices. */
char *clops__fmt_shape(char *buf, size_t cap, int ndim, const int64_t *sizes);

/* Shorthand for the common `if (!p) return out-of-memory` check. */
#define CLOPS__HOST_OOM(what) clops__fail(CLOPS_HOST_OUT_OF_MEMORY, "out of host memory: %s", what)

#endif /* CLOPS_CORE_ERROR_H */
