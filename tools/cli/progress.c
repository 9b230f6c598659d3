/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tools/cli/progress.c: the progress bar and plain progress lines of
 * tools/cli/progress.h.
 */
#include "tools/cli/progress.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "tools/cli/cli.h"

/* Picks the mode from the request, CLOPS_PROGRESS and the terminal. */
static cli_progress_mode resolve_mode(cli_progress_mode mode, FILE *out)
{
    const char *env = getenv("CLOPS_PROGRESS");
    if (env && *env) {
        if (strcasecmp(env, "bar") == 0)
            return CLI_PROGRESS_BAR;
        if (strcasecmp(env, "plain") == 0)
            return CLI_PROGRESS_PLAIN;
        if (strcasecmp(env, "off") == 0 || strcmp(env, "0") == 0)
            return CLI_PROGRESS_OFF;
    }
    if (mode != CLI_PROGRESS_AUTO)
        return mode;
    const char *term = getenv("TERM");
    if (cli_isatty(out) && !(term && strcmp(term, "dumb") == 0))
        return CLI_PROGRESS_BAR;
    return CLI_PROGRESS_PLAIN;
}

void cli_progress_start(cli_progress *p, cli_progress_mode mode, const char *title,
                        const char *unit, int total)
{
    memset(p, 0, sizeof *p);
    p->out = stderr;
    p->mode = resolve_mode(mode, p->out);
    snprintf(p->title, sizeof p->title, "%s", title ? title : "");
    snprintf(p->unit, sizeof p->unit, "%s", unit ? unit : "items");
    p->total = total > 0 ? total : 0;
    p->start = p->item_start = cli_now();
    p->last_draw = -1.0;
    p->width = cli_term_width(p->out);
}

double cli_progress_eta(const cli_progress *p)
{
    if (p->total && p->done >= p->total)
        return 0.0;
    /* The first item pays the phase's start-up (a cold kernel cache, the
     * first program builds): the rate comes from the items after it. */
    if (p->done < 2)
        return -1.0;
    double elapsed = cli_now() - p->first_end;
    return elapsed / (p->done - 1) * (p->total - p->done);
}

/* Erases the bar line. */
static void clear_line(cli_progress *p)
{
    if (p->drawn) {
        fprintf(p->out, "\r\033[K");
        p->drawn = false;
    }
}

/* Redraws the bar (throttled unless force). */
static void draw(cli_progress *p, bool force)
{
    double now = cli_now();
    if (!force && p->last_draw >= 0 && now - p->last_draw < 0.1)
        return;
    p->last_draw = now;
    char eta[32] = "";
    double e = cli_progress_eta(p);
    if (e > 0) {
        char t[24];
        snprintf(eta, sizeof eta, "  ETA %s", cli_fmt_seconds(e, t, sizeof t));
    }
    char failed[32] = "";
    if (p->failed)
        snprintf(failed, sizeof failed, "  %d failed", p->failed);
    int pct = p->total ? (int)(100.0 * p->done / p->total) : 0;
    enum { barw = 20 };
    int fill = p->total ? barw * p->done / p->total : 0;
    char bar[barw + 1];
    for (int i = 0; i < barw; i++)
        bar[i] = i < fill ? '#' : '.';
    bar[barw] = '\0';
    char line[512];
    int n = snprintf(line, sizeof line, "%s  [%s]  %d/%d %s  %d%%%s%s  %s", p->title, bar,
                     p->done, p->total, p->unit, pct, failed, eta, p->current);
    /* Never wrap: a wrapped line cannot be redrawn in place. */
    int maxw = p->width - 1;
    if (n > maxw && maxw > 0 && maxw < (int)sizeof line) {
        while (maxw > 0 && ((unsigned char)line[maxw] & 0xC0) == 0x80)
            maxw--; /* do not cut a UTF-8 sequence */
        line[maxw] = '\0';
    }
    fprintf(p->out, "\r%s\033[K", line);
    fflush(p->out);
    p->drawn = true;
}

void cli_progress_begin(cli_progress *p, const char *item)
{
    snprintf(p->current, sizeof p->current, "%s", item ? item : "");
    p->item_start = cli_now();
    if (p->mode == CLI_PROGRESS_BAR)
        draw(p, false);
}

void cli_progress_end(cli_progress *p, bool ok, const char *note)
{
    p->done++;
    if (p->done == 1)
        p->first_end = cli_now();
    if (!ok)
        p->failed++;
    if (p->mode == CLI_PROGRESS_BAR) {
        draw(p, p->done == p->total);
    } else if (p->mode == CLI_PROGRESS_PLAIN) {
        char took[24], eta[24];
        double e = cli_progress_eta(p);
        fprintf(p->out, "%s: [%d/%d] %s %s (%s", p->title, p->done, p->total, p->current,
                ok ? "ok" : "FAILED",
                cli_fmt_seconds(cli_now() - p->item_start, took, sizeof took));
        if (e > 0)
            fprintf(p->out, ", ETA %s", cli_fmt_seconds(e, eta, sizeof eta));
        fprintf(p->out, ")%s%s\n", note && *note ? ": " : "", note ? note : "");
        fflush(p->out);
    }
}

void cli_progress_message(cli_progress *p, const char *fmt, ...)
{
    if (p->mode == CLI_PROGRESS_OFF)
        return;
    clear_line(p);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(p->out, fmt, ap);
    va_end(ap);
    fputc('\n', p->out);
    if (p->mode == CLI_PROGRESS_BAR)
        draw(p, true);
}

void cli_progress_finish(cli_progress *p)
{
    if (p->mode == CLI_PROGRESS_OFF)
        return;
    clear_line(p);
    char took[24];
    fprintf(p->out, "%s: %d %s in %s", p->title, p->done, p->unit,
            cli_fmt_seconds(cli_now() - p->start, took, sizeof took));
    if (p->failed)
        fprintf(p->out, ", %d failed", p->failed);
    fputc('\n', p->out);
    fflush(p->out);
}
