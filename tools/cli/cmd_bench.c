/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tools/cli/cmd_bench.c: `clops bench`, per op and device: achieved GB/s
 * (GFLOP/s for matrix products) and its ratio to the device's copy peak
 * measured in the same run, host cost per call, and the first call's time
 * with an empty and with a warm kernel cache (two child processes).
 *
 *     clops bench [--device SEL]... [--op GLOB]... [--dtype LIST]... [--set SET]
 *                 [--reps N] [--no-first-calls] [--cases [--scale S]] [--json FILE]
 *
 * `--cases` times every check case of the selected ops (tools/check's case
 * generator, the cases `clops check` runs) at their shapes, or grown by
 * `--scale`, and writes JSON rows like the family benchmarks'.
 *
 * `--first-calls` is the child mode: it prints each op's first-call time on
 * one device as JSON and nothing else.
 */
#include <stdlib.h>
#include <string.h>

#include <math.h>

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
    {"cases", 0, CLI_OPT_FLAG, NULL,
     "time every case `clops check` runs for the ops (the set's cases), not one large case"},
    {"scale", 0, CLI_OPT_VALUE, "S",
     "with --cases: every case dim above 1 multiplied by S (default 1: the check shapes)"},
    CLI_OPTION_JSON,
    CLI_OPTION_END,
};

/* Adds a number member unless it is NAN. */
static void add_num(cJSON *o, const char *key, double v)
{
    if (isfinite(v))
        cJSON_AddNumberToObject(o, key, v);
}

/* One result of --cases as a JSON row (the family benches' row fields:
 * device, device_name, case, op, dtype, us_per_call, bytes, gbs, flop,
 * gflops; and status, kernel, message). */
static cJSON *case_row(const chk_bench_result *b, clops_device *d)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "device", clops_device_label(d));
    cJSON_AddStringToObject(o, "device_name", clops_device_get_info(d)->name);
    cJSON_AddStringToObject(o, "case", b->case_name);
    cJSON_AddStringToObject(o, "op", b->op);
    cJSON_AddStringToObject(o, "dtype", b->dtype);
    cJSON_AddStringToObject(o, "status", chk_status_name(b->status));
    cJSON_AddStringToObject(o, "kernel", b->kernel_name);
    add_num(o, "us_per_call", b->device_us);
    add_num(o, "bytes", b->bytes);
    add_num(o, "gbs", b->gbs);
    add_num(o, "flop", b->flop);
    add_num(o, "gflops", b->gflops);
    if (b->message[0])
        cJSON_AddStringToObject(o, "message", b->message);
    return o;
}

/* `clops bench --cases`: every case of the set for the selected ops and
 * dtypes, grown by --scale, on every selected device; a table on stdout
 * and the rows as JSON.  Exit status 1 when a case errored. */
static int run_cases(const cli_suite *s, const clops_op *const *ops, int n, int reps,
                     int64_t grow, const char *json)
{
    bool quiet = json && strcmp(json, "-") == 0;
    cJSON *rows = cJSON_CreateArray();
    int rc = rows ? CLI_EXIT_OK : CLI_EXIT_RUNTIME;
    if (!quiet)
        printf("%-26s %-9s %-48s %-9s %10s %9s %9s\n", "op", "dtype", "case", "device",
               "us/call", "GB/s", "GFLOP/s");
    for (int i = 0; i < n && rc != CLI_EXIT_RUNTIME; i++) {
        chk_opinfo info;
        clops_status st = chk_opinfo_init(ops[i], &info);
        for (int dt = 0; st == CLOPS_OK && dt < CLOPS_DTYPE_COUNT; dt++) {
            if (!(s->dtypes & (1u << dt)))
                continue;
            chk_case *cases = NULL;
            int nc = 0;
            st = chk_cases(&info, s->set, (clops_dtype)dt, &cases, &nc, NULL, 0);
            for (int c = 0; st == CLOPS_OK && c < nc; c++) {
                chk_case_grow(&cases[c], grow, &info);
                for (int k = 0; st == CLOPS_OK && k < s->ndev; k++) {
                    chk_bench_result b;
                    st = chk_bench_check_case(&info, &cases[c], s->devs[k], NULL, reps, &b);
                    if (st)
                        break;
                    if (b.status == CHK_ERROR)
                        rc = CLI_EXIT_FAILURES;
                    char gbs[32] = "-", gfl[32] = "-";
                    if (isfinite(b.gbs))
                        snprintf(gbs, sizeof gbs, "%.2f", b.gbs);
                    if (isfinite(b.gflops))
                        snprintf(gfl, sizeof gfl, "%.2f", b.gflops);
                    if (!quiet && b.status == CHK_PASS)
                        printf("%-26s %-9s %-48s %-9s %10.2f %9s %9s\n", b.op, b.dtype,
                               b.case_name, clops_device_label(s->devs[k]), b.device_us, gbs,
                               gfl);
                    else if (!quiet)
                        printf("%-26s %-9s %-48s %-9s %s: %s\n", b.op, b.dtype, b.case_name,
                               clops_device_label(s->devs[k]), chk_status_name(b.status),
                               b.message);
                    cJSON *row = case_row(&b, s->devs[k]);
                    if (!row || !cJSON_AddItemToArray(rows, row))
                        st = clops__fail(CLOPS_HOST_OUT_OF_MEMORY, "bench: a JSON row");
                }
            }
            free(cases);
        }
        chk_opinfo_free(&info);
        if (st)
            rc = cli_status_error(st, "%s", clops_op_name(ops[i]));
    }
    if (json && rc != CLI_EXIT_RUNTIME && cli_json_write(rows, json) != CLI_EXIT_OK)
        rc = CLI_EXIT_RUNTIME;
    cJSON_Delete(rows);
    return rc;
}

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
    const char *sv = cli_value(args, "scale");
    int64_t grow = 1;
    if (sv) {
        char *end = NULL;
        long long v = strtoll(sv, &end, 10);
        if (!end || *end || v < 1 || v > 4096)
            rc = cli_usage_error(cmd, "--scale takes a factor from 1 to 4096, not '%s'", sv);
        else if (!cli_flag(args, "cases"))
            rc = cli_usage_error(cmd, "--scale goes with --cases");
        grow = v;
    }
    if (rc == CLI_EXIT_OK && cli_flag(args, "cases")) {
        rc = run_cases(&s, ops, n, reps, grow, cli_value(args, "json"));
        free(ops);
        free(s.devs);
        return rc;
    }
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
             "[--reps N] [--no-first-calls] [--cases [--scale S]] [--json FILE]",
    .help = "Measures each device's copy peak (the best of several copy kernels and a read-only "
            "stream, over 256 MiB and again at the ops' tensor size), launch overhead and "
            "enqueue cost, then each selected op (default: the representative set; float32 "
            "unless --dtype says otherwise) on large contiguous tensors sized so one call "
            "moves about 2 ms of data at the copy peak (matrix products: side 256 on CPU-like "
            "devices, 2048 on GPUs): GB/s of bytes read and written, the ratio to the copy "
            "peak, GFLOP/s for matrix products, device time per call and host time to issue a "
            "small call.  Then two child processes per device time each op's first call on its "
            "small standard case: with an empty kernel cache (a fresh cache folder: the "
            "program build is included) and again with that cache filled (what every new "
            "process pays).  Medians over --reps repetitions.  With --cases, every case that "
            "`clops check` runs for the selected ops and dtypes (the case generator of the "
            "check engine) is timed instead, at the check shapes or with every dim above 1 "
            "multiplied by --scale: one line per case and device with the time per call, "
            "GB/s and GFLOP/s, and --json writes them as a list of rows like the family "
            "benchmarks' (bench/bench_family.c).  Exit status 1 when an op errored.",
    .options = bench_options,
    .min_pos = 0,
    .max_pos = 0,
    .run = run_bench,
};
