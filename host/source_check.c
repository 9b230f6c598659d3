/* SPDX-License-Identifier: Apache-2.0 */
/*
 * host/source_check.c: limits on the kernel source handed to a driver.
 *
 * OpenCL compilers are recursive-descent parsers and recursive AST walkers:
 * an expression nested thousands deep (or a chain of thousands of binary
 * operators, which is a tree thousands deep) overflows the compiler's stack
 * inside clBuildProgram and takes the process down.  Every program source
 * passes this check before it reaches the driver, so no generated source --
 * whatever a user-defined op's expression holds -- can drive a compiler that
 * deep.  The limits are far above anything clops writes itself; user
 * expressions have tighter limits of their own, checked at registration
 * (codegen_pointwise/user_ops.c).
 */
#include <string.h>

#include "host/host.h"

/* Skips a comment or a string/char literal starting at p; returns the
 * first character after it (p itself when none starts there). */
static const char *skip_lexeme(const char *p)
{
    if (p[0] == '/' && p[1] == '/') {
        const char *e = strchr(p, '\n');
        return e ? e : p + strlen(p);
    }
    if (p[0] == '/' && p[1] == '*') {
        const char *e = strstr(p + 2, "*/");
        return e ? e + 2 : p + strlen(p);
    }
    if (p[0] == '"' || p[0] == '\'') {
        char q = p[0];
        const char *e = p + 1;
        while (*e && *e != q && *e != '\n')
            e += (e[0] == '\\' && e[1]) ? 2 : 1;
        return *e == q ? e + 1 : e;
    }
    return p;
}

clops_status host_source_check(const char *program_name, const char *src)
{
    int depth = 0, max_depth = 0, line = 1, worst_line = 1;
    size_t stmt = 0, max_stmt = 0;
    int stmt_line = 1;
    for (const char *p = src; *p;) {
        const char *q = skip_lexeme(p);
        if (q != p) {
            for (; p < q; p++)
                line += *p == '\n';
            continue;
        }
        char ch = *p++;
        if (ch == '\n')
            line++;
        if (ch == '(' || ch == '[' || ch == '{') {
            if (++depth > max_depth) {
                max_depth = depth;
                worst_line = line;
            }
        } else if (ch == ')' || ch == ']' || ch == '}') {
            depth--;
        }
        if (ch == ';' || ch == '{' || ch == '}') {
            stmt = 0;
        } else if (++stmt > max_stmt) {
            max_stmt = stmt;
            stmt_line = line;
        }
    }
    if (max_depth > HOST_SOURCE_MAX_DEPTH)
        return clops__fail(CLOPS_BUILD_FAILURE,
                           "program '%s': brackets nested %d deep at line %d (the limit is %d, "
                           "so the OpenCL compiler cannot overflow its stack); not built",
                           program_name, max_depth, worst_line, HOST_SOURCE_MAX_DEPTH);
    if (max_stmt > HOST_SOURCE_MAX_STATEMENT)
        return clops__fail(CLOPS_BUILD_FAILURE,
                           "program '%s': a statement of %zu characters at line %d (the limit is "
                           "%d, so the OpenCL compiler cannot overflow its stack); not built",
                           program_name, max_stmt, stmt_line, HOST_SOURCE_MAX_STATEMENT);
    return CLOPS_OK;
}
