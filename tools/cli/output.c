/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tools/cli/output.c: how `clops` talks to people and files: error and
 * warning lines, terminal detection, human-readable sizes and durations,
 * aligned text tables, and JSON documents written atomically to a file or to
 * stdout.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "tools/cli/cli.h"

void cli_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("clops: error: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

void cli_warn(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("clops: warning: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

int cli_usage_error(const cli_command *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "clops %s: ", cmd ? cmd->name : "");
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    if (cmd)
        fprintf(stderr, "Run 'clops %s --help' for usage.\n", cmd->name);
    return CLI_EXIT_USAGE;
}

int cli_status_error(clops_status st, const char *what, ...)
{
    const char *detail = clops_last_error();
    va_list ap;
    va_start(ap, what);
    fputs("clops: error: ", stderr);
    vfprintf(stderr, what, ap);
    va_end(ap);
    fprintf(stderr, ": %s [%s]\n", detail && *detail ? detail : clops_status_string(st),
            clops_status_name(st));
    switch (st) {
    case CLOPS_UNKNOWN_OP:
    case CLOPS_NO_DEVICE:
    case CLOPS_INVALID_DTYPE:
    case CLOPS_INVALID_ARGUMENT:
    case CLOPS_INVALID_SHAPE:
    case CLOPS_SCHEMA_ERROR:
        return CLI_EXIT_USAGE;
    default:
        return CLI_EXIT_RUNTIME;
    }
}

bool cli_isatty(FILE *f)
{
    return f && isatty(fileno(f));
}

bool cli_color(FILE *f)
{
    const char *term = getenv("TERM");
    const char *no = getenv("NO_COLOR");
    return cli_isatty(f) && !(no && *no) && !(term && strcmp(term, "dumb") == 0);
}

int cli_term_width(FILE *f)
{
    const char *c = getenv("COLUMNS");
    if (c) {
        int w = atoi(c);
        if (w >= 20 && w <= 1000)
            return w;
    }
#ifdef TIOCGWINSZ
    struct winsize ws;
    if (f && isatty(fileno(f)) && ioctl(fileno(f), TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 20)
        return ws.ws_col;
#endif
    return 80;
}

char *cli_fmt_bytes(uint64_t bytes, char *buf, size_t cap)
{
    static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    double v = (double)bytes;
    int u = 0;
    while (v >= 1024.0 && u < 5) {
        v /= 1024.0;
        u++;
    }
    if (u == 0)
        snprintf(buf, cap, "%llu B", (unsigned long long)bytes);
    else
        snprintf(buf, cap, v < 10 ? "%.2f %s" : v < 100 ? "%.1f %s" : "%.0f %s", v, unit[u]);
    return buf;
}

char *cli_fmt_seconds(double s, char *buf, size_t cap)
{
    if (!(s >= 0))
        snprintf(buf, cap, "-");
    else if (s < 1e-3)
        snprintf(buf, cap, "%.0f µs", s * 1e6);
    else if (s < 1.0)
        snprintf(buf, cap, "%.0f ms", s * 1e3);
    else if (s < 60.0)
        snprintf(buf, cap, "%.1f s", s);
    else if (s < 3600.0)
        snprintf(buf, cap, "%dm%02ds", (int)(s / 60), (int)s % 60);
    else
        snprintf(buf, cap, "%dh%02dm", (int)(s / 3600), ((int)s % 3600) / 60);
    return buf;
}

double cli_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

cJSON *cli_json_document(const char *command)
{
    cJSON *doc = cJSON_CreateObject();
    if (!doc)
        return NULL;
    bool ok = cJSON_AddStringToObject(doc, "clops_version", clops_version()) &&
              cJSON_AddStringToObject(doc, "command", command) &&
              cJSON_AddArrayToObject(doc, "devices") && cJSON_AddArrayToObject(doc, "results");
    if (!ok) {
        cJSON_Delete(doc);
        return NULL;
    }
    return doc;
}

bool cli_write_file(const char *path, const char *data, size_t len)
{
    char tmp[4200];
    int n = snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    if (n <= 0 || (size_t)n >= sizeof tmp) {
        errno = ENAMETOOLONG;
        return false;
    }
    FILE *f = fopen(tmp, "wb");
    if (!f)
        return false;
    bool ok = fwrite(data, 1, len, f) == len;
    int err = errno;
    ok = fclose(f) == 0 && ok;
    if (ok && rename(tmp, path) == 0)
        return true;
    if (ok)
        err = errno;
    unlink(tmp);
    errno = err;
    return false;
}

int cli_json_write(const cJSON *doc, const char *path)
{
    char *text = cJSON_Print(doc);
    if (!text) {
        cli_error("out of host memory while writing JSON");
        return CLI_EXIT_RUNTIME;
    }
    int rc = CLI_EXIT_OK;
    size_t len = strlen(text);
    if (strcmp(path, "-") == 0) {
        if (fwrite(text, 1, len, stdout) != len || fputc('\n', stdout) == EOF ||
            fflush(stdout) != 0) {
            cli_error("cannot write JSON to stdout: %s", strerror(errno));
            rc = CLI_EXIT_RUNTIME;
        }
    } else {
        char *withnl = realloc(text, len + 2);
        if (withnl) {
            text = withnl;
            text[len++] = '\n';
            text[len] = '\0';
        }
        if (!cli_write_file(path, text, len)) {
            cli_error("cannot write %s: %s", path, strerror(errno));
            rc = CLI_EXIT_RUNTIME;
        }
    }
    cJSON_free(text);
    return rc;
}

/* --- tables --------------------------------------------------------------- */

/* Display width of UTF-8 text (code points; every one taken as one column). */
static int text_width(const char *s)
{
    int w = 0;
    for (; *s; s++)
        w += ((unsigned char)*s & 0xC0) != 0x80;
    return w;
}

/* Copies s (NULL: "") or NULL on failure. */
static char *dup_or_empty(const char *s)
{
    s = s ? s : "";
    size_t n = strlen(s) + 1;
    char *p = malloc(n);
    if (p)
        memcpy(p, s, n);
    return p;
}

void cli_table_init(cli_table *t, const char *align, int ncols, const char *const *headers)
{
    memset(t, 0, sizeof *t);
    t->ncols = ncols > 16 ? 16 : ncols;
    t->align = align;
    cli_table_row(t, headers);
}

void cli_table_row(cli_table *t, const char *const *cells)
{
    if (t->failed)
        return;
    if (t->nrows == t->cap) {
        int cap = t->cap ? t->cap * 2 : 16;
        char **p = realloc(t->cells, (size_t)cap * (size_t)t->ncols * sizeof *p);
        if (!p) {
            t->failed = true;
            return;
        }
        t->cells = p;
        t->cap = cap;
    }
    char **row = t->cells + (size_t)t->nrows * (size_t)t->ncols;
    for (int c = 0; c < t->ncols; c++) {
        row[c] = dup_or_empty(cells[c]);
        if (!row[c])
            t->failed = true;
    }
    t->nrows++;
}

void cli_table_print(const cli_table *t, FILE *f, const char *indent)
{
    int width[16] = {0};
    for (int r = 0; r < t->nrows; r++)
        for (int c = 0; c < t->ncols; c++) {
            const char *cell = t->cells[r * t->ncols + c];
            int w = cell ? text_width(cell) : 0;
            if (w > width[c])
                width[c] = w;
        }
    bool color = cli_color(f);
    for (int r = 0; r < t->nrows; r++) {
        fputs(indent ? indent : "", f);
        if (r == 0 && color)
            fputs("\033[1m", f);
        for (int c = 0; c < t->ncols; c++) {
            const char *cell = t->cells[r * t->ncols + c];
            cell = cell ? cell : "";
            int pad = width[c] - text_width(cell);
            bool right = t->align && t->align[c] == 'r';
            bool last = c == t->ncols - 1;
            if (right)
                fprintf(f, "%*s", pad, "");
            fputs(cell, f);
            if (!right && !last)
                fprintf(f, "%*s", pad, "");
            if (!last)
                fputs("  ", f);
        }
        if (r == 0 && color)
            fputs("\033[0m", f);
        fputc('\n', f);
        if (r == 0 && !color) {
            fputs(indent ? indent : "", f);
            for (int c = 0; c < t->ncols; c++) {
                for (int k = 0; k < width[c]; k++)
                    fputc('-', f);
                if (c != t->ncols - 1)
                    fputs("  ", f);
            }
            fputc('\n', f);
        }
    }
    if (t->failed)
        fputs("(table truncated: out of host memory)\n", f);
}

void cli_table_free(cli_table *t)
{
    if (!t)
        return;
    for (int i = 0; i < t->nrows * t->ncols; i++)
        free(t->cells[i]);
    free(t->cells);
    memset(t, 0, sizeof *t);
}
