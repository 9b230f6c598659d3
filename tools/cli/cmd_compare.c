/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tools/cli/cmd_compare.c: `clops compare`, the main job: check and bench on
 * every device found, written as report.html, report.md and report.json.
 *
 *     clops compare [--out DIR] [--full] [--set SET] [--device SEL]... [--op GLOB]...
 *                   [--dtype LIST]... [--reps N] [--no-bench] [--no-check]
 */
#include <stdlib.h>
#include <string.h>

#include "tools/cli/cli.h"
#include "tools/cli/suite.h"

static const cli_option compare_options[] = {
    CLI_OPTION_OUT,
    {"full", 0, CLI_OPT_FLAG, NULL, "every op, dtype and case (same as --set full)"},
    {"set", 0, CLI_OPT_VALUE, "SET", "case set: representative (default), ci or full"},
    CLI_OPTION_DEVICE,
    CLI_OPTION_OP,
    CLI_OPTION_DTYPE,
    {"reps", 'r', CLI_OPT_VALUE, "N", "bench repetitions behind each median (default 10)"},
    {"no-bench", 0, CLI_OPT_FLAG, NULL, "check only"},
    {"no-check", 0, CLI_OPT_FLAG, NULL, "bench only"},
    CLI_OPTION_END,
};

/* Runs `clops compare`. */
static int run_compare(const cli_args *args)
{
    const cli_command *cmd = args->cmd;
    bool do_check = !cli_flag(args, "no-check"), do_bench = !cli_flag(args, "no-bench");
    if (!do_check && !do_bench)
        return cli_usage_error(cmd, "--no-check and --no-bench leave nothing to do");
    int reps = 10;
    const char *rv = cli_value(args, "reps");
    if (rv) {
        char *end = NULL;
        long v = strtol(rv, &end, 10);
        if (!end || *end || v < 1 || v > 10000)
            return cli_usage_error(cmd, "--reps takes a count from 1 to 10000, not '%s'", rv);
        reps = (int)v;
    }
    const char *dir = cli_value(args, "out");
    if (!dir)
        dir = "./clops-report";
    cli_suite cs, bs;
    int rc = cli_suite_options(args, CHK_SET_REPRESENTATIVE, 0, &cs);
    if (rc == CLI_EXIT_OK)
        rc = cli_suite_options(args, CHK_SET_REPRESENTATIVE, 1u << CLOPS_FLOAT32, &bs);
    if (rc)
        return rc;
    /* Named ops keep the set's cases (compare is about the report). */
    if (cs.ops_from_globs && !cli_value(args, "set") && !cli_flag(args, "full"))
        cs.set = bs.set = CHK_SET_REPRESENTATIVE;
    rc = cli_select_devices(args, CLI_DEVICES_OPENCL, &cs.devs, &cs.ndev);
    if (rc)
        return rc;
    bs.devs = cs.devs;
    bs.ndev = cs.ndev;
    const clops_op **ops = NULL;
    int n = 0;
    report r;
    report_init(&r, "compare");
    snprintf(r.mode, sizeof r.mode, "%s", chk_set_name(cs.set));
    report_set_note(&r, clops_device_discovery_note());
    double t0 = cli_now();
    rc = cli_suite_ops(&cs, &ops, &n);
    if (rc == CLI_EXIT_OK && do_check)
        rc = cli_suite_check(&cs, ops, n, false, &r);
    if (rc == CLI_EXIT_OK && do_bench)
        rc = cli_suite_bench(&bs, ops, n, reps, true, &r);
    r.wall_s = cli_now() - t0;
    if (rc == CLI_EXIT_OK) {
        clops_status st = report_write_dir(&r, dir);
        if (st) {
            rc = cli_status_error(st, "writing the report into %s", dir);
        } else {
            report_summary sum = report_summarize(&r);
            if (do_check)
                cli_print_failures(&r, stdout, 10);
            char secs[32];
            printf("\n%d ops on %d device%s in %s: %d passed, %d failed (%d errors), %d "
                   "skipped\nReport written to %s/report.html (also report.md, report.json)\n",
                   n, cs.ndev, cs.ndev == 1 ? "" : "s",
                   cli_fmt_seconds(r.wall_s, secs, sizeof secs),
                   sum.passed, sum.failed, sum.errors, sum.skipped, dir);
            if (sum.failed > 0)
                rc = CLI_EXIT_FAILURES;
        }
    }
    report_free(&r);
    free(ops);
    free(cs.devs);
    return rc;
}

const cli_command cli_cmd_compare = {
    .name = "compare",
    .summary = "check + bench on every device, written as report.html, report.md, report.json",
    .usage = "clops compare [--out DIR] [--full] [--set SET] [--device SEL]... [--op GLOB]... "
             "[--dtype LIST]... [--reps N] [--no-bench] [--no-check]",
    .help = "Runs `clops check` and then `clops bench` on every OpenCL device (or the "
            "--device selection; the CPU when there is no OpenCL device) and writes into DIR "
            "(default ./clops-report): report.html (self-contained: inline CSS and SVG, "
            "nothing loaded from the network), report.md (to paste into a bug report) and "
            "report.json (every result; the documents can be regenerated from it).  The "
            "default is the representative set: one op per kernel family, the dtypes float32, "
            "float16, int32 and bool and the main layouts for the checks, float32 for the "
            "benchmarks; --full runs every op, dtype and case.  Prints where the report is.  "
            "Exit status 1 when a check failed (the report is written anyway).",
    .options = compare_options,
    .min_pos = 0,
    .max_pos = 0,
    .run = run_compare,
};
