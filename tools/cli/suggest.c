/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tools/cli/suggest.c: "did you mean" for mistyped names.
 *
 * Unknown commands, options, dtypes and op names are usage errors; the
 * message names the closest known names (within two edits, or names the
 * typed word is a prefix of) so a typo costs one look, not a trip to
 * --help.  One edit distance serves every caller.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clops/dispatch.h"
#include "clops/dtype.h"
#include "tools/cli/cli.h"

int cli_edit_distance(const char *a, const char *b)
{
    int la = (int)strlen(a), lb = (int)strlen(b);
    if (la > 31 || lb > 31)
        return 99;
    int d[32][32];
    for (int i = 0; i <= la; i++)
        d[i][0] = i;
    for (int j = 0; j <= lb; j++)
        d[0][j] = j;
    for (int i = 1; i <= la; i++)
        for (int j = 1; j <= lb; j++) {
            int sub = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
            int del = d[i - 1][j] + 1, ins = d[i][j - 1] + 1;
            d[i][j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
        }
    return d[la][lb];
}

/* Distance used for suggestions: a prefix of at least two characters
 * counts as one edit. */
static int suggest_distance(const char *typed, const char *name)
{
    size_t len = strlen(typed);
    if (len >= 2 && strncmp(typed, name, len) == 0)
        return 1;
    return cli_edit_distance(typed, name);
}

void cli_suggest(const char *typed, const char *const *names, int n, char *out, size_t cap)
{
    out[0] = '\0';
    int best = 3;
    for (int i = 0; i < n; i++) {
        int d = suggest_distance(typed, names[i]);
        if (d < best)
            best = d;
    }
    if (best > 2 || cap < 32)
        return;
    size_t used = 0;
    int shown = 0;
    for (int i = 0; i < n && shown < 3; i++) {
        if (suggest_distance(typed, names[i]) != best)
            continue;
        bool dup = false;
        for (int j = 0; j < i; j++)
            if (strcmp(names[j], names[i]) == 0 && suggest_distance(typed, names[j]) == best)
                dup = true;
        if (dup)
            continue;
        int w = snprintf(out + used, cap - used, "%s'%s'", shown ? ", " : "; did you mean ",
                         names[i]);
        if (w < 0 || (size_t)w >= cap - used - 2)
            break;
        used += (size_t)w;
        shown++;
    }
    if (shown)
        snprintf(out + used, cap - used, "?");
    else
        out[0] = '\0';
}

void cli_suggest_op(const char *typed, char *out, size_t cap)
{
    int count = clops_op_count();
    const char **names = calloc((size_t)(count > 0 ? count : 1) * 2, sizeof *names);
    char(*bases)[64] = calloc((size_t)(count > 0 ? count : 1), sizeof *bases);
    out[0] = '\0';
    if (!names || !bases) {
        free(names);
        free(bases);
        return;
    }
    int n = 0;
    /* A name without an overload ("add") is compared with base names, a
     * qualified one with qualified names. */
    bool qualified = strchr(typed, '.') != NULL;
    for (int i = 0; i < count; i++) {
        const char *name = clops_op_name(clops_op_at(i));
        if (qualified) {
            names[n++] = name;
            continue;
        }
        snprintf(bases[i], sizeof bases[i], "%s", name);
        bases[i][strcspn(bases[i], ".")] = '\0';
        names[n++] = bases[i];
    }
    cli_suggest(typed, names, n, out, cap);
    free(names);
    free(bases);
}

void cli_suggest_dtype(const char *typed, char *out, size_t cap)
{
    const char *names[CLOPS_DTYPE_COUNT];
    for (int i = 0; i < CLOPS_DTYPE_COUNT; i++)
        names[i] = clops_dtype_name((clops_dtype)i);
    cli_suggest(typed, names, CLOPS_DTYPE_COUNT, out, cap);
}
