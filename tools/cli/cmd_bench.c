/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tools/cli/cmd_bench.c: `clops bench`, per op and device: achieved GB/s
 * (GFLOP/s for matrix products) and its ratio to the device's copy peak
 * measured in the same run, host cost per call, and the first call's time
 * with an empty and with a warm kernel cache (two child processes).
 *
 *     clops bench [--device SEL]... [--op GLOB]... [--dtype LIST]... [--set SET]
 *                 [--reps N] [--no-first-calls] [--json FILE]
 *
 * `--first-calls` is the child mode: it prints each op's first-call time on
 * one device as JSON and nothing else.
 */
#include <stdlib.h>
#include <string.h>

#include "tools/cli/cli.h"
#include "tools/cli/suite.h"

static const cli_option bench_options[] = {
    CLI_OPTION_DEVICE,
    CLI_OPTION_OP,
    CLI_OPTION_DTYPE,
    {"set", 0, CLI_OPT_VALUE, "SET",
     "which ops: ci or full (every op), representative (default without --op)"},
    {"reps", 'r', CLI_OPT_VALUE, "N", "repetitions behind each median (default 20)"},
    {"no-first-calls", 0, CLI_OPT_FLAG, NULL,
     "do not measure cold and warm first calls (no child processes)"},
    {"first-calls", 0, CLI_OPT_FLAG, NULL,
     "child mode: only time each op's first call on one device, print JSON"},
    CLI_OPTION_JSON,
    CLI_OPTION_END,
};

/* Runs `clops bench`. */
static int run_bench(const cli_args *args)
{
    const cli_command *cmd = args->cmd;
    int reps = 20;
    const char *rv = cli_value(args, "reps");
    if (rv) {
        char *end = NULL;
        long v = strtol(rv, &end, 10);
        if (!end || *end || v < 1 || v > 10000)
            return cli_usage_error(cmd, "--reps takes a count from 1 to 10000, not '%s'", rv);
        reps = (int)v;
    }
    cli_suite s;
    int rc = cli_suite_options(args, CHK_SET_REPRESENTATIVE, 1u << CLOPS_FLOAT32, &s);
    if (rc)
        return rc;
    rc = cli_select_devices(args, CLI_DEVICES_OPENCL, &s.devs, &s.ndev);
    if (rc)
        return rc;
    const clops_op **ops = NULL;
    int n = 0;
    rc = cli_suite_ops(&s, &ops, &n);
    if (rc == CLI_EXIT_OK && cli_flag(args, "first-calls")) {
        rc = cli_suite_first_calls(&s, ops, n, cli_value(args, "json"));
        free(ops);
        free(s.devs);
        return rc;
    }
    report r;
    report_init(&r, "bench");
    snprintf(r.mode, sizeof r.mode, "%s", chk_set_name(s.set));
    report_set_note(&r, clops_device_discovery_note());
    double t0 = cli_now();
    if (rc == CLI_EXIT_OK)
        rc = cli_suite_bench(&s, ops, n, reps, !cli_flag(args, "no-first-calls"), &r);
    r.wall_s = cli_now() - t0;
    const char *json = cli_value(args, "json");
    if (rc == CLI_EXIT_OK) {
        if (!(json && strcmp(json, "-") == 0))
            cli_print_bench_table(&r, stdout);
        if (json) {
            cJSON *doc = report_to_json(&r);
            rc = doc ? cli_json_write(doc, json) : CLI_EXIT_RUNTIME;
            cJSON_Delete(doc);
        }
        for (int i = 0; rc == CLI_EXIT_OK && i < r.nbenches; i++)
            if (r.benches[i].status == REPORT_ERROR)
                rc = CLI_EXIT_FAILURES;
    }
    report_free(&r);
    free(ops);
    free(s.devs);
    return rc;
}

const cli_command cli_cmd_bench = {
    .name = "bench",
    .summary = "GB/s (GFLOP/s) per op and device as a ratio of the device's copy peak",
    .usage = "clops bench [--device SEL]... [--op GLOB]... [--dtype LIST]... [--set SET] "
             "[--reps N] [--no-first-calls] [--json FILE]",
    .help = "Measures each device's copy peak (a float4 copy kernel), launch overhead and "
            "enqueue cost, then each selected op (default: the representative set; float32 "
            "unless --dtype says otherwise) on large contiguous tensors sized so one call "
            "moves about 2 ms of data at the copy peak (matrix products: side 256 on CPU-like "
            "devices, 2048 on GPUs): GB/s of bytes read and written, the ratio to the copy "
            "peak, GFLOP/s for matrix products, device time per call and host time to issue a "
            "small call.  Then two child processes per device time each op's first call on its "
            "small standard case: with an empty kernel cache (a fresh cache folder: the "
            "program build is included) and again with that cache filled (what every new "
            "process pays).  Medians over --reps repetitions.  Exit status 1 when an op "
            "errored.",
    .options = bench_options,
    .min_pos = 0,
    .max_pos = 0,
    .run = run_bench,
};
