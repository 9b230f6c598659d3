/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tools/cli/cmd_compare.c: `clops compare`, the main job: check and bench on
 * every device found, written as report.html, report.md and report.json.
 *
 *     clops compare [--out DIR] [--full] [--set SET] [--device SEL]... [--op GLOB]...
 *                   [--dtype LIST]... [--reps N] [--baseline DEVICE|torch] [--torch]
 *                   [--torch-defaults] [--no-torch] [--no-bench] [--no-check]
 *                   [--no-first-calls]
 *
 * It names the devices first, runs the checks, measures every device's
 * copy peak and then benchmarks every op at the same shapes on every
 * device, and ends with a short performance summary (the fastest device
 * per op family, each device's speed relative to the baseline) above the
 * counts and the report's path.  With --torch, PyTorch runs the same calls
 * on each device's peer (compare_torch.c) and becomes a column beside the
 * devices, the one the speeds refer to unless --baseline names a device;
 * --torch-defaults adds (or, alone, is) a column of PyTorch with its own
 * defaults instead of clops' precision.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/cli/cli.h"
#include "tools/cli/compare_torch.h"
#include "tools/cli/suite.h"

static const cli_option compare_options[] = {
    CLI_OPTION_OUT,
    {"full", 0, CLI_OPT_FLAG, NULL, "every op, dtype and case (same as --set full)"},
    {"set", 0, CLI_OPT_VALUE, "SET", "case set: representative (default), ci or full"},
    CLI_OPTION_DEVICE,
    CLI_OPTION_OP,
    CLI_OPTION_DTYPE,
    {"reps", 'r', CLI_OPT_VALUE, "N", "bench repetitions behind each median (default 10)"},
    {"baseline", 0, CLI_OPT_VALUE, "DEVICE",
     "the device speed ratios refer to (default: the first device, or PyTorch with --torch); "
     "'torch' implies --torch"},
    {"torch", 0, CLI_OPT_FLAG, NULL,
     "also time every benchmark with PyTorch (CUDA beside NVIDIA, else the CPU) as a column, "
     "held at clops' precision (TF32 off unless the matmul precision allows it)"},
    {"torch-defaults", 0, CLI_OPT_FLAG, NULL,
     "a PyTorch column with PyTorch's own defaults, as users run it (cuDNN TF32 convolutions, "
     "every SDPA backend); with --torch, both columns"},
    {"no-torch", 0, CLI_OPT_FLAG, NULL,
     "no PyTorch column (without --torch or --torch-defaults there is one when CLOPS_PYTHON, "
     "default python3, imports torch)"},
    {"no-bench", 0, CLI_OPT_FLAG, NULL, "check only"},
    {"no-check", 0, CLI_OPT_FLAG, NULL, "bench only"},
    {"no-first-calls", 0, CLI_OPT_FLAG, NULL,
     "no cold and warm first-call columns (their two child processes call every op again, "
     "building every kernel with an empty cache: on POCL as long as the bench)"},
    CLI_OPTION_END,
};

/* Prints the devices taking part (stderr, before the long phases). */
static void print_devices(clops_device *const *devs, int n, int base)
{
    fprintf(stderr, "compare: %d device%s\n", n, n == 1 ? "" : "s");
    for (int k = 0; k < n; k++) {
        const clops_device_info *in = clops_device_get_info(devs[k]);
        fprintf(stderr, "  %-10s %s (%s, %s)%s\n", clops_device_label(devs[k]), in->name,
                in->type == CLOPS_DEVICE_CPU ? "clops CPU device" : in->platform_name,
                in->driver_version[0] ? in->driver_version : "-",
                k == base ? "  [baseline]" : "");
    }
}

/* The one-device summary: per op family the share of the device's
 * ceilings its rows reach (geometric mean, lowest and highest): bandwidth
 * rows against the copy peak, compute rows (matrix products, convolution)
 * against the arithmetic peak of their dtype. */
static void print_ceiling_summary(const report *r, const report_perf_summary *ps, int pos,
                                  FILE *f)
{
    const report_device *d = &r->devices[pos];
    char pk[32], fm[32], mm[32];
    fprintf(f, "\nPerformance of %s against its ceilings (copy peak %s GB/s, %s; FMA peak %s "
               "GFLOP/s; mma peak %s GFLOP/s; GB/s over the copy peak, GFLOP/s over the "
               "arithmetic peak of the dtype, geometric mean per family):\n",
            d->label, report_fmt(d->copy_peak_gbs, "%.1f", pk, sizeof pk),
            d->copy_peak_kernel[0] ? d->copy_peak_kernel : "kernel unknown",
            report_fmt(d->fma_peak_gflops, "%.0f", fm, sizeof fm),
            report_fmt(d->mma_peak_gflops, "%.0f", mm, sizeof mm));
    cli_table tb;
    const char *h[] = {"family", "ops", "of ceiling", "lowest", "highest"};
    cli_table_init(&tb, "lrrrr", 5, h);
    for (int i = 0; i < ps->nfamilies; i++) {
        const report_family_perf *fp = &ps->fam[i];
        char rows[16], q[3][32];
        snprintf(rows, sizeof rows, "%d", fp->measured[pos]);
        report_fmt(100.0 * fp->of_ceiling[pos], "%.0f%%", q[0], sizeof q[0]);
        report_fmt(100.0 * fp->of_ceiling_min[pos], "%.0f%%", q[1], sizeof q[1]);
        report_fmt(100.0 * fp->of_ceiling_max[pos], "%.0f%%", q[2], sizeof q[2]);
        const char *row[] = {fp->family, rows, q[0], q[1], q[2]};
        cli_table_row(&tb, row);
    }
    cli_table_print(&tb, f, "  ");
    cli_table_free(&tb);
    for (int i = 0; i < ps->nfamilies; i++)
        if (ps->fam[i].ceiling_rows[pos] == 0) {
            fprintf(f, "  (\"-\": no rows against a ceiling: views move no data, and float64 "
                       "products have no measured arithmetic peak)\n");
            break;
        }
}

/* The short performance summary: per op family the fastest device and
 * each device's speed relative to the baseline; with one device, each
 * family against the device's ceiling instead. */
static void print_perf_summary(const report *r, FILE *f)
{
    report_bench_table t;
    if (report_bench_table_build(r, &t) != CLOPS_OK)
        return;
    report_perf_summary ps;
    report_perf_summarize(r, &t, &ps);
    int one = report_single_clops_device(r);
    if (ps.nfamilies > 0 && one >= 0 && one < ps.ndevices)
        print_ceiling_summary(r, &ps, one, f);
    if (ps.nfamilies > 0 && report_perf_compares(&ps)) {
        const report_device *bd = &r->devices[ps.baseline];
        fprintf(f, "\nPerformance (same shapes on every device; speed = %s's time / the "
                   "device's, geometric mean%s%s):\n",
                bd->label, bd->torch ? "; above 1.00x: faster than PyTorch" : "",
                report_peer_note(r));
        cli_table tb;
        const char *h[3 + REPORT_SUM_MAX_DEVICES] = {"family", "ops", "fastest"};
        char align[4 + REPORT_SUM_MAX_DEVICES] = "lrl";
        for (int j = 0; j < ps.ndevices; j++) {
            h[3 + j] = r->devices[j].label;
            align[3 + j] = 'r';
            align[4 + j] = '\0';
        }
        cli_table_init(&tb, align, 3 + ps.ndevices, h);
        for (int i = 0; i < ps.nfamilies; i++) {
            const report_family_perf *fp = &ps.fam[i];
            char rows[16], fast[64], sp[REPORT_SUM_MAX_DEVICES][32];
            const char *row[3 + REPORT_SUM_MAX_DEVICES];
            snprintf(rows, sizeof rows, "%d", fp->rows);
            if (fp->fastest >= 0)
                snprintf(fast, sizeof fast, "%s (%d)", r->devices[fp->fastest].label,
                         fp->wins[fp->fastest]);
            else
                snprintf(fast, sizeof fast, "-");
            row[0] = fp->family;
            row[1] = rows;
            row[2] = fast;
            for (int j = 0; j < ps.ndevices; j++) {
                if (isfinite(fp->speedup[j]))
                    snprintf(sp[j], sizeof sp[j], "%.2fx", fp->speedup[j]);
                else
                    snprintf(sp[j], sizeof sp[j], "-");
                row[3 + j] = sp[j];
            }
            cli_table_row(&tb, row);
        }
        cli_table_print(&tb, f, "  ");
        cli_table_free(&tb);
    }
    const char *models[16];
    int nm = report_model_names(r, models, 16);
    int width = 10; /* the labels' column ("torch-defaults" is longer) */
    for (int j = 0; j < r->ndevices; j++)
        if ((int)strlen(r->devices[j].label) > width)
            width = (int)strlen(r->devices[j].label);
    for (int i = 0; i < nm; i++) {
        fprintf(f, "\n%s, time per step:\n", models[i]);
        for (int j = 0; j < r->ndevices; j++) {
            const report_model *m = report_model_at(r, models[i], j);
            char buf[600];
            if (m)
                fprintf(f, "  %-*s %s\n", width, r->devices[j].label,
                        report_model_text(m, buf, sizeof buf));
        }
    }
    if (ps.nfamilies > 0 && ps.ndevices > 0) {
        if (ps.above_peak)
            fprintf(f, "  %d result%s above a ceiling (see the report)\n", ps.above_peak,
                    ps.above_peak == 1 ? "" : "s");
        fprintf(f, "  benchmarks: %d skipped, %d errors\n", ps.skipped, ps.errors);
    }
    report_bench_table_free(&t);
}

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
    int base = 0;
    const char *bv = cli_value(args, "baseline");
    bool base_torch = bv && strcmp(bv, "torch") == 0;
    unsigned torch_modes = (cli_flag(args, "torch") || base_torch ? CLI_TORCH_CLOPS : 0u) |
                           (cli_flag(args, "torch-defaults") ? CLI_TORCH_DEFAULTS : 0u);
    bool torch = torch_modes != 0;
    if (torch && !do_bench) {
        free(cs.devs);
        return cli_usage_error(cmd, "--torch and --torch-defaults time the benchmarks, and "
                                    "--no-bench leaves none");
    }
    if (torch && cli_flag(args, "no-torch")) {
        free(cs.devs);
        return cli_usage_error(cmd, "--no-torch and --torch, --torch-defaults or --baseline "
                                    "torch contradict each other");
    }
    /* Unasked, PyTorch is a column when it is importable (the helper finds
     * out, after the bench; silently nothing when it is not). */
    bool torch_auto = !torch && do_bench && !cli_flag(args, "no-torch");
    if (torch_auto)
        torch_modes = CLI_TORCH_CLOPS | CLI_TORCH_AUTO;
    if (base_torch)
        bv = NULL;
    if (bv) {
        clops_device *bd = NULL;
        base = -1;
        if (clops_device_find(bv, &bd) == CLOPS_OK)
            for (int k = 0; k < cs.ndev; k++)
                if (cs.devs[k] == bd)
                    base = k;
        if (base < 0) {
            free(cs.devs);
            return cli_usage_error(cmd, "--baseline '%s' is not one of the compared devices",
                                   bv);
        }
    }
    print_devices(cs.devs, cs.ndev, torch && !bv ? -1 : base);
    if (torch && !bv)
        fprintf(stderr, "  %-10s PyTorch on each device's peer  [baseline]\n", "torch");
    if (torch_auto)
        fprintf(stderr, "  %-10s PyTorch on each device's peer if %s imports torch "
                        "(--no-torch: none)%s\n",
                "torch", getenv("CLOPS_PYTHON") && *getenv("CLOPS_PYTHON") ? getenv("CLOPS_PYTHON")
                                                                          : "python3",
                bv ? "" : "  [then the baseline]");
    if ((torch || torch_auto) && !(bs.calls = cJSON_CreateArray())) {
        free(cs.devs);
        return cli_status_error(CLOPS__HOST_OOM("the calls of the bench"), "compare");
    }
    const clops_op **ops = NULL;
    int n = 0;
    report r;
    report_init(&r, "compare");
    snprintf(r.mode, sizeof r.mode, "%s", chk_set_name(cs.set));
    if (bv)
        r.baseline = clops_device_get_info(cs.devs[base])->index;
    report_set_note(&r, clops_device_discovery_note());
    double t0 = cli_now();
    rc = cli_suite_ops(&cs, &ops, &n);
    if (rc == CLI_EXIT_OK && do_check)
        rc = cli_suite_check(&cs, ops, n, false, &r);
    if (rc == CLI_EXIT_OK && do_bench)
        rc = cli_suite_bench(&bs, ops, n, reps, !cli_flag(args, "no-first-calls"), &r);
    if (rc == CLI_EXIT_OK && (torch || torch_auto)) {
        rc = cli_compare_torch(&bs, bs.calls, reps, torch_modes, &r);
        if (!bv && report_find_device(&r, REPORT_TORCH_INDEX))
            r.baseline = REPORT_TORCH_INDEX;
    }
    cJSON_Delete(bs.calls);
    r.wall_s = cli_now() - t0;
    if (rc == CLI_EXIT_OK) {
        clops_status st = report_write_dir(&r, dir);
        if (st) {
            rc = cli_status_error(st, "writing the report into %s", dir);
        } else {
            report_summary sum = report_summarize(&r);
            if (do_check)
                cli_print_failures(&r, stdout, 10);
            if (do_bench)
                print_perf_summary(&r, stdout);
            char secs[32];
            printf("\n%d ops on %d device%s%s in %s: %d passed, %d failed (%d errors), %d "
                   "skipped\nReport written to %s/report.html (also report.md, report.json)\n",
                   n, cs.ndev, cs.ndev == 1 ? "" : "s",
                   report_ndevices_clops(&r) < r.ndevices ? " and PyTorch" : "",
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
             "[--dtype LIST]... [--reps N] [--baseline DEVICE|torch] [--torch] "
             "[--torch-defaults] [--no-torch] [--no-bench] [--no-check] [--no-first-calls]",
    .help = "Runs `clops check` and then `clops bench` on every OpenCL device (or the "
            "--device selection; the CPU when there is no OpenCL device) and writes into DIR "
            "(default ./clops-report): report.html (self-contained: inline CSS and SVG, "
            "nothing loaded from the network), report.md (to paste into a bug report) and "
            "report.json (every result; the documents can be regenerated from it).  The "
            "default is the representative set: one op per kernel family, the dtypes float32, "
            "float16, int32 and bool and the main layouts for the checks, float32 for the "
            "benchmarks; --full runs every op, dtype and case.  Every device is benchmarked at "
            "the same shapes, so each op has one row with a column per device (time, GB/s or "
            "GFLOP/s, speed relative to the first device or --baseline).  Ends with a short "
            "performance summary and where the report is.  --torch also times every "
            "benchmark with PyTorch on each device's peer (CUDA beside an NVIDIA GPU when "
            "torch.cuda is available, else the CPU with the threads of the CPU device), as a "
            "column the speeds refer to (unless --baseline names a device), held at clops' "
            "precision (TF32 off in matrix products and cuDNN unless clops' matmul precision "
            "allows it); --torch-defaults adds PyTorch as users run it (its defaults: cuDNN "
            "TF32 convolutions, every SDPA backend), alone or beside --torch; each column "
            "states its settings.  Without Python or "
            "torch one line says so and the report has no such column.  Without --torch, "
            "--torch-defaults or --no-torch, the --torch column is there when CLOPS_PYTHON "
            "(default python3) imports torch, and nothing is said when it does not.  "
            "Exit status 1 when a check failed (the report is written anyway).",
    .options = compare_options,
    .min_pos = 0,
    .max_pos = 0,
    .run = run_compare,
};
