/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tools/cli/cmd_tune.c: `clops tune gemm`, the per-device search of
 * CLBlast's GEMM kernel parameters (ops/gemm/gemm_tune.c, docs/gemm.md).
 *
 *     clops tune gemm [--device SEL] [--budget SECONDS]
 *                     [--precision float32|float64|all] [--dry-run] [--show]
 *
 * For each selected OpenCL device (default: the default device) it runs
 * blas_tune_gemm for the budget, printing progress on stderr, and stores the
 * winners in the clops cache folder, where every later process applies them
 * on its first GEMM on that device.  --show prints what the tuning file of
 * each device holds instead.  The search should run in a process of its
 * own: CLBlast cannot return to its default parameters in a process that
 * has overridden them, so this command is the place for it.
 */
#include <stdlib.h>
#include <string.h>

#include "ops/gemm/gemm.h"
#include "host/host.h"
#include "tools/cli/cli.h"

static const cli_option tune_options[] = {
    CLI_OPTION_DEVICE,
    {"budget", 'b', CLI_OPT_VALUE, "SECONDS",
     "wall time for the search on each device, program builds included (default 300)"},
    {"precision", 'p', CLI_OPT_VALUE, "LIST",
     "float32, float64 or all (default: all the device has)"},
    {"dry-run", 'n', CLI_OPT_FLAG, NULL, "search, but do not write the tuning file"},
    {"show", 0, CLI_OPT_FLAG, NULL, "print each device's tuning file and exit"},
    CLI_OPTION_END,
};

/* Parses --budget: a positive number of seconds. */
static bool parse_budget(const char *s, double *out)
{
    char *end = NULL;
    double v = strtod(s, &end);
    if (!end || *end || !(v > 0) || v > 7 * 24 * 3600)
        return false;
    *out = v;
    return true;
}

/* Runs `clops tune gemm`. */
static int run_tune(const cli_args *args)
{
    const cli_command *cmd = args->cmd;
    if (strcmp(args->pos[0], "gemm") != 0)
        return cli_usage_error(cmd, "unknown tuning target '%s' (only 'gemm' is tunable)",
                               args->pos[0]);
    double budget = 300;
    const char *b = cli_value(args, "budget");
    if (b && !parse_budget(b, &budget))
        return cli_usage_error(cmd, "--budget takes a positive number of seconds, not '%s'", b);
    blas_tune_options o;
    memset(&o, 0, sizeof o);
    const char *p = cli_value(args, "precision");
    if (p && (strcmp(p, "float32") == 0 || strcmp(p, "f32") == 0 || strcmp(p, "float") == 0))
        o.skip_float64 = true;
    else if (p && (strcmp(p, "float64") == 0 || strcmp(p, "f64") == 0 || strcmp(p, "double") == 0))
        o.skip_float32 = true;
    else if (p && strcmp(p, "all") != 0)
        return cli_usage_error(cmd, "--precision takes float32, float64 or all, not '%s'", p);
    o.dry_run = cli_flag(args, "dry-run");

    clops_device **devs = NULL;
    int n = 0;
    int rc = cli_select_devices(args, CLI_DEVICES_DEFAULT, &devs, &n);
    if (rc != CLI_EXIT_OK)
        return rc;
    for (int i = 0; i < n && rc == CLI_EXIT_OK; i++) {
        clops_device *d = devs[i];
        if (host_is_cpu(d)) {
            rc = cli_usage_error(cmd, "the CPU device has no CLBlast to tune; choose an OpenCL "
                                      "device with --device");
            break;
        }
        if (cli_flag(args, "show")) {
            clops_status st = blas_tune_describe(d, stdout);
            if (st)
                rc = cli_status_error(st, "reading the tuning file of %s", d->label);
            continue;
        }
        if (o.skip_float32 && !d->info.fp64) {
            rc = cli_usage_error(cmd, "%s (%s) has no float64 to tune", d->label, d->info.name);
            break;
        }
        clops_status st = blas_tune_gemm(d, budget, stderr, &o);
        if (st) {
            rc = cli_status_error(st, "tuning GEMM on %s", d->label);
            break;
        }
        blas_tune_describe(d, stdout);
    }
    free(devs);
    return rc;
}

const cli_command cli_cmd_tune = {
    .name = "tune",
    .summary = "search CLBlast's GEMM kernel parameters for a device and keep the best",
    .usage = "clops tune gemm [--device SEL] [--budget SECONDS] [--precision float32|float64|all] "
             "[--dry-run] [--show]",
    .help = "Times candidate parameter sets of CLBlast's two GEMM kernels on the device "
            "(Xgemm for large products, XgemmDirect for small and batched ones; each "
            "candidate is checked against a host product first), keeps per kernel the fastest "
            "if it beats CLBlast's own choice, measures where the indirect kernel overtakes the "
            "direct one, and writes the result to $CLOPS_CACHE_DIR/tuning/.  Every later "
            "process applies it on its first matrix product on that device; a driver or "
            "CLBlast update makes it stale.  Run it once per machine, in a process of its own; "
            "each candidate costs one program build (1-2 s on GPU drivers, 7-8 s on POCL), so "
            "a few minutes go a long way on GPUs.  See docs/gemm.md.",
    .options = tune_options,
    .min_pos = 1,
    .max_pos = 1,
    .run = run_tune,
};

/*
 * The handler as a plain function, for a command table that dispatches on
 * (argc, argv) (the words after "tune"): parses the options of cli_cmd_tune
 * and runs it.  Returns the exit code.
 */
int cli_tune(int argc, char **argv);
int cli_tune(int argc, char **argv)
{
    cli_args args;
    int rc = cli_parse(&cli_cmd_tune, argc, argv, &args);
    if (rc == CLI_PARSE_HELP)
        rc = CLI_EXIT_OK;
    else if (rc == CLI_EXIT_OK)
        rc = cli_cmd_tune.run(&args);
    cli_args_free(&args);
    return rc;
}
