/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tools/cli/cmd_check.c: `clops check`, every selected op over its standard
 * cases on each selected device against the CPU reference (the check
 * engine, tools/check/), with a summary table and the failing cases.
 *
 *     clops check [--device SEL]... [--op GLOB]... [--dtype LIST]...
 *                 [--set ci|representative|full] [--full] [--verbose] [--json FILE]
 */
#include <stdlib.h>
#include <string.h>

#include "tools/cli/cli.h"
#include "tools/cli/suite.h"

static const cli_option check_options[] = {
    CLI_OPTION_DEVICE,
    CLI_OPTION_OP,
    CLI_OPTION_DTYPE,
    {"set", 0, CLI_OPT_VALUE, "SET",
     "case set: ci, representative (default without --op) or full"},
    {"full", 0, CLI_OPT_FLAG, NULL, "the full case set (same as --set full)"},
    {"verbose", 'v', CLI_OPT_FLAG, NULL, "print every result as it comes"},
    CLI_OPTION_JSON,
    CLI_OPTION_END,
};

/* Runs `clops check`. */
static int run_check(const cli_args *args)
{
    cli_suite s;
    int rc = cli_suite_options(args, CHK_SET_REPRESENTATIVE, 0, &s);
    if (rc)
        return rc;
    rc = cli_select_devices(args, CLI_DEVICES_OPENCL, &s.devs, &s.ndev);
    if (rc)
        return rc;
    const clops_op **ops = NULL;
    int n = 0;
    report r;
    report_init(&r, "check");
    snprintf(r.mode, sizeof r.mode, "%s", chk_set_name(s.set));
    report_set_note(&r, clops_device_discovery_note());
    double t0 = cli_now();
    rc = cli_suite_ops(&s, &ops, &n);
    if (rc == CLI_EXIT_OK)
        rc = cli_suite_check(&s, ops, n, cli_flag(args, "verbose"), &r);
    r.wall_s = cli_now() - t0;
    const char *json = cli_value(args, "json");
    if (rc == CLI_EXIT_OK) {
        bool to_stdout = json && strcmp(json, "-") == 0;
        if (!to_stdout) {
            cli_print_check_table(&r, stdout);
            cli_print_failures(&r, stdout, 50);
        }
        if (json) {
            cJSON *doc = report_to_json(&r);
            rc = doc ? cli_json_write(doc, json) : CLI_EXIT_RUNTIME;
            cJSON_Delete(doc);
        }
        report_summary sum = report_summarize(&r);
        if (rc == CLI_EXIT_OK && sum.failed > 0)
            rc = CLI_EXIT_FAILURES;
    }
    report_free(&r);
    free(ops);
    free(s.devs);
    return rc;
}

const cli_command cli_cmd_check = {
    .name = "check",
    .summary = "check every op over its standard cases on each device against the CPU reference",
    .usage = "clops check [--device SEL]... [--op GLOB]... [--dtype LIST]... "
             "[--set ci|representative|full] [--full] [--verbose] [--json FILE]",
    .help = "Runs every selected op over its standard cases (dtypes x shapes x layouts: odd "
            "sizes, broadcasting both ways, transposed, step-sliced with a storage offset, "
            "expanded, zero-dim and zero-size tensors, in-place and out= forms with guard "
            "regions) on each selected device (default: every OpenCL device, or the CPU when "
            "there is none) and on the CPU reference with identical inputs, and compares: "
            "integers and bools exactly, floats within the op's ULP budget, NaN and infinity "
            "parity.  The cases are the ones the tests run (tools/check/).  Without --op the "
            "representative set runs (one op per kernel family, float32, float16, int32 and "
            "bool); with --op the named ops run in every dtype over the compact 'ci' layouts; "
            "--set and --full choose explicitly.  Prints one line per op and device, then "
            "every failing case.  Exit status 1 when a case failed or errored.",
    .options = check_options,
    .min_pos = 0,
    .max_pos = 0,
    .run = run_check,
};
