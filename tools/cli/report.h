/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tools/cli/report.h: the result model of `clops check`, `bench` and
 * `compare`, and the writers of report.json, report.md and report.html.
 *
 * A report holds the devices that took part (their capability record and
 * the figures measured on them: copy peak, launch overhead, compile times),
 * one check result per (op, dtype, case, device) and one bench result per
 * measured (op, dtype, case, device).  Commands fill it while they run; the
 * writers render it; report_read_json() turns a report.json back into the
 * model so a report can be re-rendered (and tested) without re-running.
 *
 * Figures that were not measured are NAN and appear as null in JSON and as
 * "-" in the documents.  Device numbers in results are clops device indices
 * (the `index` of a device entry), not positions in the device array.
 *
 * The JSON layout is documented in docs/json-format.md; the rendering
 * functions live in report_md.c and report_html.c, the model and JSON in
 * report.c.  Ownership: the report owns every string it holds (copied on
 * add); report_free releases everything.
 */
#ifndef CLOPS_TOOLS_CLI_REPORT_H
#define CLOPS_TOOLS_CLI_REPORT_H

#include <stdbool.h>
#include <stdint.h>

#include "clops/device.h"
#include "clops/status.h"
#include "core/strbuf.h"

#include <cjson/cJSON.h>

#define REPORT_NAME_MAX 128

/* X(ENUM, json name) */
#define REPORT_STATUS_LIST(X) X(PASS, "pass") X(FAIL, "fail") X(SKIP, "skip") X(ERROR, "error")

typedef enum report_status {
#define REPORT__STATUS_ENUM(e, name) REPORT_##e,
    REPORT_STATUS_LIST(REPORT__STATUS_ENUM)
#undef REPORT__STATUS_ENUM
    REPORT_STATUS_COUNT
} report_status;

/* Which kernel ran.  X(ENUM, json name, human name) */
#define REPORT_KERNEL_LIST(X)                                                       \
    X(NONE, "none", "none")                   /* nothing ran (skip, early error) */ \
    X(DEVICE, "device", "device kernel")      /* the generic OpenCL kernel */       \
    X(OVERRIDE, "override", "vendor override") /* a vendor key's kernel */          \
    X(FALLBACK, "fallback", "CPU fallback")   /* the boxed CPU fallback */          \
    X(REFERENCE, "reference", "CPU reference") /* the CPU device's own kernel */

typedef enum report_kernel {
#define REPORT__KERNEL_ENUM(e, name, human) REPORT_KERNEL_##e,
    REPORT_KERNEL_LIST(REPORT__KERNEL_ENUM)
#undef REPORT__KERNEL_ENUM
    REPORT_KERNEL_COUNT
} report_kernel;

/* A device and what was measured on it. */
typedef struct report_device {
    clops_device_info info;   /* info.index is the device's clops index */
    char label[24];           /* "cpu", "opencl:0" */
    double copy_peak_gbs;     /* best of a few copy kernels, large buffer, GB/s */
    char copy_peak_kernel[48]; /* the copy that set it ("float4 per item"); "" if unknown */
    double launch_us;         /* launch + finish of a tiny kernel, µs (median) */
    double enqueue_us;        /* host cost of one enqueue, µs (median) */
    double build_cold_s;      /* one program built from source, s (median) */
    double build_warm_s;      /* the same program from the binary cache, s */
    double compile_total_s;   /* all program builds during the run, s */
    double fma_peak_gflops;   /* float32 multiply-adds in registers, GFLOP/s (NAN: none) */
    double mma_peak_gflops;   /* bfloat16 mma.sync in registers, GFLOP/s (NAN: none) */
    /* PyTorch beside the devices (`compare --torch`): a column, not a clops
     * device.  Its index is REPORT_TORCH_INDEX and up, info names the
     * PyTorch version (driver_version) and the device it ran on (name),
     * settings says how it ran (version, device, threads, TF32 and cuDNN
     * flags, timing).  It has bench results only; the device table, the
     * correctness matrix and the fallback lists leave it out. */
    bool torch;
    char settings[768];
} report_device;

/* The clops index of the first PyTorch column (the next ones follow). */
#define REPORT_TORCH_INDEX 1000

/* One (op, dtype, case, device) correctness result. */
typedef struct report_check {
    char op[REPORT_NAME_MAX];        /* "add.Tensor" */
    char dtype[32];                  /* "float32", or "float16,float32" for mixed cases */
    char case_name[REPORT_NAME_MAX]; /* "5x7x11x13 transposed" */
    int device;                      /* clops device index */
    report_status status;
    report_kernel kernel;
    char kernel_name[96];            /* the kernel's label ("pointwise:add"); "" if unknown */
    double max_abs_err;              /* NAN when not applicable */
    double max_ulp_err;              /* floats only; NAN otherwise */
    double seconds;                  /* wall time of the case, NAN if unknown */
    char *message;                   /* why it failed/skipped/errored; may be NULL */
} report_check;

/* One (op, dtype, case, device) performance result. */
typedef struct report_bench {
    char op[REPORT_NAME_MAX];
    char dtype[32];
    char case_name[REPORT_NAME_MAX];
    int device;
    report_status status;            /* pass (measured), skip or error */
    report_kernel kernel;
    char kernel_name[96];            /* the kernel's label; "" if unknown */
    char family[32];                 /* op family ("pointwise", "matrix"); "" if unknown */
    double bytes;                    /* bytes read + written per call, NAN if none */
    double flop;                     /* floating-point operations per call (matrix products) */
    double gbs;                      /* achieved GB/s (bytes read + written) */
    double gflops;                   /* GFLOP/s for compute-bound ops, else NAN */
    double ratio_to_peak;            /* gbs / device copy peak */
    double host_us;                  /* host time per call (enqueue path), µs */
    double device_us;                /* median time per call, µs */
    double cold_compile_s;           /* first call with an empty cache, s */
    double warm_first_call_s;        /* first call in a new process, warm cache, s */
    int reps;                        /* repetitions behind the medians */
    char *message;
    /* The kernels the calls launched ("gemm/mma/float16/a-k/b-n/128x128-
     * w64x64-s3:gemm_mma, ..."; "CLBlast" for products it ran); "" if
     * unknown.  report_engine_path says it in words. */
    char launches[400];
} report_bench;

/* One model on one column (`compare --torch`): time per forward step and,
 * on a clops device, the CPU fallbacks per step. */
typedef struct report_model {
    char model[96];           /* "GPT-2 124m forward, batch 1, sequence 128, float32" */
    int device;               /* clops index, or a PyTorch column's */
    report_status status;     /* pass (measured), skip or error */
    double ms_per_step;       /* median, NAN unless pass */
    double fallbacks_per_step; /* CPU fallback calls per step (clops devices), else NAN */
    char *message;            /* the fallback ops, or why it did not run; may be NULL */
} report_model;

typedef struct report {
    char clops_version[32];
    char command[16];     /* "compare", "check", "bench" */
    char created[32];     /* "2026-11-03T12:00:00Z" */
    char host[128];       /* host name */
    char mode[32];        /* "representative", "full" or "" */
    int baseline;         /* clops index of the device ratios refer to; -1: the first */
    double wall_s;        /* NAN when unknown */
    char *note;           /* device discovery note; may be NULL */
    report_device *devices;
    int ndevices, devices_cap;
    report_check *checks;
    int nchecks, checks_cap;
    report_bench *benches;
    int nbenches, benches_cap;
    report_model *models;
    int nmodels, models_cap;
} report;

/* Counts over the check results.  failed counts fail and error; errors is
 * the error part of it. */
typedef struct report_summary {
    int passed, failed, skipped, errors;
} report_summary;

const char *report_status_name(report_status s);
bool report_status_from_name(const char *name, report_status *out);
const char *report_kernel_name(report_kernel k);  /* "fallback" */
const char *report_kernel_human(report_kernel k); /* "CPU fallback" */
bool report_kernel_from_name(const char *name, report_kernel *out);

/* --- building --------------------------------------------------------------- */

/* An empty report for `command`, stamped with the version, time and host. */
void report_init(report *r, const char *command);
void report_free(report *r);
/* Sets the discovery note (copied; NULL clears). */
clops_status report_set_note(report *r, const char *note);
/* Adds a device (figures NAN); *out (may be NULL) points at it until the
 * next add.  CLOPS_INVALID_ARGUMENT when the index is already present. */
clops_status report_add_device(report *r, const clops_device_info *info, const char *label,
                               report_device **out);
/* The device with clops index `index`, or NULL. */
report_device *report_find_device(const report *r, int index);
/* Raises rd's copy peak (and the ratios of its results) to the GB/s of
 * clops' own float32 copy_ in r when that copy ran faster than the
 * copy-peak kernels: the ceiling is the fastest plain copy measured. */
void report_raise_peak_to_copy(report *r, report_device *rd);
/* Raises rd's copy peak to gbs (set by `kernel`) when higher, and the
 * ratios of rd's results with it: the ceiling is the best copy seen. */
void report_raise_peak(report *r, report_device *rd, double gbs, const char *kernel);
/* Raises rd's FMA and mma peaks to fma and mma (GFLOP/s) where higher,
 * and the ratios of rd's compute results against them (float32 rows
 * against the FMA peak; float16/bfloat16 rows against the mma peak, or
 * the FMA peak on devices without one). */
void report_raise_arith_peaks(report *r, report_device *rd, double fma, double mma);
/* Results with every figure NAN, status skip, kernel none. */
void report_check_init(report_check *c);
void report_bench_init(report_bench *b);
/* Copies a result into the report (message duplicated). */
clops_status report_add_check(report *r, const report_check *c);
clops_status report_add_bench(report *r, const report_bench *b);
/* Copies a model row into the report (message duplicated); *m with every
 * figure NAN from report_model_init. */
void report_model_init(report_model *m);
clops_status report_add_model(report *r, const report_model *m);
report_summary report_summarize(const report *r);

/* --- JSON -------------------------------------------------------------------------- */

/* A device object as `clops devices --json` and report.json write it
 * (index, label, type, platform, name, vendor, driver, capabilities, ...). */
cJSON *report_device_info_json(const clops_device_info *info, const char *label);
/* The whole report as one JSON object (NULL on out-of-memory). */
cJSON *report_to_json(const report *r);
/* Fills an empty report from a parsed report.json; `name` names the source
 * in messages.  On failure r is left empty (report_free is still safe). */
clops_status report_from_json(const cJSON *root, const char *name, report *r);
/* Reads and parses a report.json file. */
clops_status report_read_json(const char *path, report *r);

/* --- documents -------------------------------------------------------------------- */

/* Appends the Markdown report to out. */
clops_status report_render_md(const report *r, strbuf *out);
/* Appends the self-contained HTML report to out. */
clops_status report_render_html(const report *r, strbuf *out);
/* Creates dir (and parents) and writes report.json, report.md and
 * report.html into it (each through a temporary file). */
clops_status report_write_dir(const report *r, const char *dir);
/* Creates dir (and parents) and writes only report.md and report.html (for
 * `clops report`, which must not rewrite the JSON it read). */
clops_status report_write_docs(const report *r, const char *dir);

/* --- aggregation (shared by the renderers) ------------------------------------------- */

/* Everything known about one op on one device, over its dtypes and cases. */
typedef struct report_cell {
    int pass, fail, skip, error;
    double max_abs_err, max_ulp_err; /* maxima over the cases; NAN if none */
    bool fallback;                   /* some case ran on the CPU fallback */
    bool override_used;              /* some case ran a vendor override */
} report_cell;

/* The op × device matrix: ops in order of first appearance (checks, then
 * benches), devices in report order. */
typedef struct report_matrix {
    int nops;
    const char **ops;   /* point into the report's results */
    int ndevices;
    report_cell *cells; /* nops * ndevices, row-major by op */
} report_matrix;

clops_status report_matrix_build(const report *r, report_matrix *m);
void report_matrix_free(report_matrix *m);
/* Cell of op i on the device at position j of r->devices. */
static inline const report_cell *report_matrix_cell(const report_matrix *m, int i, int j)
{
    return &m->cells[(size_t)i * (size_t)m->ndevices + (size_t)j];
}
/* Position of the device with clops index `index` in r->devices, or -1. */
int report_device_pos(const report *r, int index);
/* The clops devices of r (its PyTorch columns left out). */
int report_ndevices_clops(const report *r);
/* Position of the one clops device of r, or -1 when it has none or several
 * (the summaries then place that device against its ceilings). */
int report_single_clops_device(const report *r);

/* Bench results grouped by (op, dtype, case) with one entry per device. */
typedef struct report_bench_row {
    const report_bench *first;        /* op, dtype, case come from here */
    const report_bench **per_device;  /* ndevices entries, NULL where absent */
} report_bench_row;

typedef struct report_bench_table {
    int nrows, ndevices;
    report_bench_row *rows;
    const report_bench **slots;       /* storage behind per_device */
} report_bench_table;

clops_status report_bench_table_build(const report *r, report_bench_table *t);
void report_bench_table_free(report_bench_table *t);

/* Bench figures above the copy peak by more than this factor are reported
 * as "above copy peak" (measurement noise on shared machines stays below). */
#define REPORT_PEAK_NOISE 1.10

/* Position in r->devices of the baseline device (the first when unset or
 * absent). */
int report_baseline_pos(const report *r);

/* Position in r->devices of the column device `pos` is compared with: the
 * baseline, except when the baseline is a PyTorch column of a report with
 * two PyTorch peers ("torch:cuda", "torch:cpu"): then each OpenCL device
 * is compared with the column of the same settings on its own peer (CUDA
 * beside an NVIDIA GPU, the CPU beside the others). */
int report_peer_pos(const report *r, int pos);

/* "" or a note saying that the devices are compared with their own PyTorch
 * peers (report_peer_pos), to append to a "speed = X's time" heading. */
const char *report_peer_note(const report *r);
/* Whether a bench result is a compute (GFLOP/s) figure rather than a
 * bandwidth one. */
bool report_bench_is_compute(const report_bench *b);

/* --- performance summary (report_perf.c) ------------------------------------------------ */

#define REPORT_SUM_MAX_DEVICES 16
#define REPORT_SUM_MAX_FAMILIES 24

/* One op family: which device was fastest how often, and each device's
 * speed relative to the baseline. */
typedef struct report_family_perf {
    char family[32];
    int rows;                                 /* rows measured on 2+ devices (1 alone) */
    int measured[REPORT_SUM_MAX_DEVICES];     /* rows measured on device j */
    int wins[REPORT_SUM_MAX_DEVICES];         /* rows where device j was the fastest */
    int compared[REPORT_SUM_MAX_DEVICES];     /* rows measured on j and the baseline */
    double speedup[REPORT_SUM_MAX_DEVICES];   /* geometric mean of t_baseline / t_j */
    int fastest;                              /* device position with most wins, -1 */
    /* Against the device's own ceilings: over the family's rows measured
     * on device j (GB/s over its copy peak; GFLOP/s of matrix products and
     * convolutions over the arithmetic peak of their dtype), the count, the
     * geometric mean and the lowest and highest fraction (NAN when none).
     * The summary of a one-device report shows these instead of the
     * device's speed against itself. */
    int ceiling_rows[REPORT_SUM_MAX_DEVICES];
    double of_ceiling[REPORT_SUM_MAX_DEVICES];
    double of_ceiling_min[REPORT_SUM_MAX_DEVICES], of_ceiling_max[REPORT_SUM_MAX_DEVICES];
} report_family_perf;

typedef struct report_perf_summary {
    int ndevices, baseline;  /* baseline: device position */
    int nfamilies;
    report_family_perf fam[REPORT_SUM_MAX_FAMILIES];
    int above_peak;          /* results above REPORT_PEAK_NOISE x the copy peak */
    int skipped, errors;     /* bench results skipped / erroring */
} report_perf_summary;

/* The ops failing a check on some device, and those that ran the CPU
 * fallback on some device (check or bench), as comma-separated lists. */
typedef struct report_op_lists_t {
    int nfailing, nfallback;
    char failing[2048], fallback[2048];
} report_op_lists_t;

/* Whether b holds a measured time. */
bool report_bench_measured(const report_bench *b);
/* Whether b's bandwidth is above its device's copy peak beyond noise. */
bool report_bench_above_peak(const report *r, const report_bench *b);
void report_perf_summarize(const report *r, const report_bench_table *t, report_perf_summary *s);
/* Whether s compares devices (two or more) rather than placing one
 * device against its ceilings. */
bool report_perf_compares(const report_perf_summary *s);
void report_op_lists(const report *r, const report_matrix *m, const report_bench_table *t,
                     report_op_lists_t *out);

/* The engine path of a matrix, convolution or attention row in words,
 * from its launches: "mma 128x128-w64x64-s3", "FMA", "FMA (CPU atom)",
 * "skinny", "CLBlast", with ", split-K"; convolutions "implicit GEMM, ..."
 * or "im2col + GEMM, ..." or "depthwise"; attention "fused, mma" or
 * "fused, FMA".  "" for other families and unknown launches.  Returns buf. */
char *report_engine_path(const report_bench *b, char *buf, size_t cap);

/* The distinct models of r's model rows, in order (at most cap; returns
 * how many), and one model row's cell text: "1234.5 ms/step, 0 CPU
 * fallbacks/step", "skip: why".  Returns buf. */
int report_model_names(const report *r, const char **names, int cap);
char *report_model_text(const report_model *m, char *buf, size_t cap);
/* The model row of `model` on the device at position j, or NULL. */
const report_model *report_model_at(const report *r, const char *model, int j);

/* Formats a figure: "-" for NAN, else printf with `fmt`.  Returns buf. */
char *report_fmt(double v, const char *fmt, char *buf, size_t cap);
/* Formats an error magnitude compactly ("0", "3.1e-07", "0.25"). */
char *report_fmt_err(double v, char *buf, size_t cap);

#endif /* CLOPS_TOOLS_CLI_REPORT_H */
