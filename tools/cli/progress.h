/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tools/cli/progress.h: progress display for long commands (check, bench,
 * compare, warmup).
 *
 * On a terminal it draws one line that it redraws in place:
 *
 *     check  [##########..........]  12/40 ops  30%  2 failed  ETA 1m12s  add.Tensor
 *
 * (at most ten redraws a second).  When stderr is not a terminal (CI logs,
 * pipes) it prints one plain line per finished item instead:
 *
 *     check: [12/40] add.Tensor ok (0.8 s, ETA 1m12s)
 *
 * CLOPS_PROGRESS=bar|plain|off overrides the choice.  Output goes to stderr
 * so it never mixes with a JSON document on stdout.  Not thread-safe: one
 * thread drives a progress record.
 */
#ifndef CLOPS_TOOLS_CLI_PROGRESS_H
#define CLOPS_TOOLS_CLI_PROGRESS_H

#include <stdbool.h>
#include <stdio.h>

typedef enum cli_progress_mode {
    CLI_PROGRESS_AUTO,  /* bar on a terminal, plain lines otherwise */
    CLI_PROGRESS_BAR,
    CLI_PROGRESS_PLAIN,
    CLI_PROGRESS_OFF
} cli_progress_mode;

typedef struct cli_progress {
    FILE *out;
    cli_progress_mode mode; /* resolved: never AUTO after start */
    char title[32];         /* "check" */
    char unit[16];          /* "ops" */
    int total, done, failed;
    double start, item_start, last_draw;
    double first_end;       /* when the first item finished (the ETA's origin) */
    char current[96];       /* item in progress */
    int width;              /* terminal columns */
    bool drawn;             /* a bar line is on screen */
} cli_progress;

/* Starts a display of `total` items called `unit` ("ops", "kernels"). */
void cli_progress_start(cli_progress *p, cli_progress_mode mode, const char *title,
                        const char *unit, int total);
/* An item starts (shown on the bar; plain mode prints nothing yet). */
void cli_progress_begin(cli_progress *p, const char *item);
/* The current item finished; `ok` false counts it as failed; `note` (may be
 * NULL) is appended to the plain line ("3 cases failed"). */
void cli_progress_end(cli_progress *p, bool ok, const char *note);
/* Prints a message line without breaking the bar (e.g. a warning). */
void cli_progress_message(cli_progress *p, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Clears the bar and prints "check: 40 ops in 2m10s, 2 failed". */
void cli_progress_finish(cli_progress *p);

/* Seconds left at the rate of the items after the first (which pays the
 * start-up: cold caches, first builds), or a negative number while fewer
 * than two items finished. */
double cli_progress_eta(const cli_progress *p);

#endif /* CLOPS_TOOLS_CLI_PROGRESS_H */
