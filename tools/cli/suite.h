/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tools/cli/suite.h: the check and bench runs that `clops check`, `bench`,
 * `compare` and `warmup` share, on top of the check engine
 * (tools/check/check.h): choosing ops from a case set and --op globs,
 * running them with progress into the report model (tools/cli/report.h),
 * measuring first calls in child processes, and printing the summary
 * tables.
 */
#ifndef CLOPS_TOOLS_CLI_SUITE_H
#define CLOPS_TOOLS_CLI_SUITE_H

#include "tools/check/check.h"
#include "tools/cli/cli.h"
#include "tools/cli/report.h"

/* What a run covers. */
typedef struct cli_suite {
    const cli_args *args;  /* --op globs (cli_op_selected) */
    chk_set set;
    bool ops_from_globs;   /* --op was given without --set: every matching op */
    uint32_t dtypes;       /* 0: the set's dtypes */
    bool dtypes_given;     /* --dtype was given (else bench falls back from float32 to
                              int32, int64 or bool for ops that refuse float32) */
    clops_device **devs;
    int ndev;
    /* Non-NULL (a cJSON array): cli_suite_bench appends every measured call
     * (chk_bench_result.call) with "device" (its clops index), "family",
     * "bytes" and "flop", for the PyTorch side of `compare --torch`. */
    cJSON *calls;
} cli_suite;

/*
 * Reads --set/--full and --dtype into s (set_default when neither set
 * option is given; with --op and no set option, ops come from every op that
 * matches).  Returns an exit code (usage errors printed).
 */
int cli_suite_options(const cli_args *a, chk_set set_default, uint32_t dtype_default,
                      cli_suite *s);

/* The ops s covers, in registry order (*ops malloc'd).  A --op glob that
 * selects nothing is a usage error. */
int cli_suite_ops(const cli_suite *s, const clops_op ***ops, int *n);

/* Adds every device of s to the report. */
int cli_report_devices(report *r, clops_device *const *devs, int n);

/* Runs the check cases of ops on s's devices into r, with progress;
 * verbose prints every result.  Returns an exit code (runtime errors
 * only; failures are in r). */
int cli_suite_check(const cli_suite *s, const clops_op *const *ops, int n, bool verbose,
                    report *r);

/*
 * Measures the devices and benchmarks ops in every dtype of s (float32 by
 * default) on s's OpenCL devices, with progress, into r.  first_calls runs
 * two child processes per device (an empty kernel cache, then the same
 * cache filled) to measure each op's cold and warm first call and one
 * program build; they are skipped with CLOPS_CACHE=0.
 */
int cli_suite_bench(const cli_suite *s, const clops_op *const *ops, int n, int reps,
                    bool first_calls, report *r);

/* The --first-calls child mode of `clops bench`: prints a JSON document
 * with each op's first-call time on the single selected device. */
int cli_suite_first_calls(const cli_suite *s, const clops_op *const *ops, int n,
                          const char *json_path);

/* One line per op and device (passed, failed, skipped, errors, maximum
 * errors, kernel) and the totals. */
void cli_print_check_table(const report *r, FILE *f);
/* The failing and erroring cases, the first `full` of them with their
 * whole message. */
void cli_print_failures(const report *r, FILE *f, int full);
/* The devices' measured figures and one line per bench result. */
void cli_print_bench_table(const report *r, FILE *f);

/* Copies an engine result into the report model. */
void cli_report_check_from(report_check *c, const chk_result *res);

#endif /* CLOPS_TOOLS_CLI_SUITE_H */
