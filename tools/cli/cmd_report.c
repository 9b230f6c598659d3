/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tools/cli/cmd_report.c: `clops report`, rendering report.md and
 * report.html again from a report.json.
 *
 *     clops report FILE.json [--out DIR]
 *
 * `clops compare` writes report.json with every result; this command reads
 * it back (the reader of tools/cli/report.c checks every field) and writes
 * the two documents with the current renderers, so a report from another
 * machine -- the GPU runs -- can be regenerated or compared here.  The JSON
 * file itself is never rewritten.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/cli/cli.h"
#include "tools/cli/report.h"

static const cli_option report_options[] = {
    {"out", 0, CLI_OPT_VALUE, "DIR",
     "write report.md and report.html into DIR (default: the folder of FILE.json)"},
    CLI_OPTION_END,
};

/* Runs `clops report`. */
static int run_report(const cli_args *args)
{
    const char *path = args->pos[0];
    char dir[1024];
    const char *out = cli_value(args, "out");
    if (out) {
        snprintf(dir, sizeof dir, "%s", out);
    } else {
        snprintf(dir, sizeof dir, "%s", path);
        char *slash = strrchr(dir, '/');
        if (slash)
            *slash = '\0';
        else
            snprintf(dir, sizeof dir, ".");
    }
    report r;
    report_init(&r, "compare");
    clops_status st = report_read_json(path, &r);
    int rc = CLI_EXIT_OK;
    if (st) {
        /* A file named on the command line that is not a report: usage. */
        cli_status_error(st, "reading %s", path);
        rc = CLI_EXIT_USAGE;
    } else if ((st = report_write_docs(&r, dir)) != CLOPS_OK) {
        cli_status_error(st, "writing the report into %s", dir);
        rc = CLI_EXIT_RUNTIME;
    } else {
        report_summary sum = report_summarize(&r);
        printf("%d passed, %d failed (%d errors), %d skipped\nReport written to "
               "%s/report.html (also report.md)\n",
               sum.passed, sum.failed, sum.errors, sum.skipped, dir);
    }
    report_free(&r);
    return rc;
}

const cli_command cli_cmd_report = {
    .name = "report",
    .summary = "render report.html and report.md again from a report.json",
    .usage = "clops report FILE.json [--out DIR]",
    .help = "Reads a report.json written by `clops compare` (on this machine or another) and "
            "writes report.html and report.md from it into DIR (default: the folder of "
            "FILE.json), with this build's renderers.  The JSON file is not rewritten.  "
            "Exit status 0; 2 when FILE.json cannot be read or is not a clops report (the "
            "message names the field); 3 when the documents cannot be written.",
    .options = report_options,
    .min_pos = 1,
    .max_pos = 1,
    .run = run_report,
};
