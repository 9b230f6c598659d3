/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tools/check/check.h: the check engine: standard cases for every operator
 * of the registry, run on a device and on the CPU reference and compared;
 * and the benchmarks of `clops bench`.
 *
 * The engine is a static library (clops_check) that the `clops` program
 * (check, bench, compare, warmup) and the tests (tests/test_check_*.c) link,
 * so CI and users run the same cases.
 *
 *   chk_opinfo  what the engine knows about one op: the role of each schema
 *               argument (input, mutated in place, out=, value, device),
 *               its functional counterpart, its kernel family, and the
 *               knowledge that does not follow from the schema: value
 *               domains, tolerance, argument values, shapes, dtypes, or a
 *               reason to skip it.  That knowledge comes from the
 *               inventory's `check:` hints (dispatch_op_check_hints,
 *               docs/operator-inventory.md), from the bound pw_op of a
 *               pointwise op (domain, ulp), and from a short built-in table
 *               for ops whose inventory entry has no hints yet
 *               (check_known.c).
 *   chk_case    one concrete call: tensor arguments as specs (dtype, shape,
 *               layout, value domain, seed), other arguments as values.
 *               chk_cases() builds the standard cases of a case set.
 *   chk_run     materialises a case on the CPU and on each device (the same
 *               values, layouts and guard regions), calls the op boxed
 *               through the real dispatcher, and compares every output
 *               (returns, in-place targets, out= tensors) with the
 *               reference; the results say pass / fail / skip / error, the
 *               largest errors and which kernel ran.
 *   chk_suite   selects ops (a case set, globs, tags, a predicate) and runs
 *               them over devices and dtypes with callbacks for progress.
 *   chk_bench   copy peak, launch overhead, and per-op GB/s (GFLOP/s for
 *               matrix products), host cost per call, first-call times.
 *
 * Case sets (chk_set):
 *   ci              every op, every dtype, a compact layout set whose
 *                   strided cases all have rank 3, so each (op, dtype)
 *                   compiles at most two pointwise kernels (the contiguous
 *                   fast path and one rank-3 kernel): what the tests run.
 *   representative  one op per kernel family of a curated list plus the
 *                   first op of every tag nothing in the list carries, the
 *                   dtypes float32, float16, int32 and bool, the main
 *                   layouts: the default of `clops compare`.
 *   full            every op, every dtype, every case (every layout, rank 5
 *                   generic kernels, mixed dtypes, CPU scalars, every hint
 *                   value combination).
 *
 * Threading: one thread drives the engine (it calls into the library, which
 * is thread-safe, but keeps no locks of its own).  Every function returns a
 * clops_status for failures of the engine itself (out of memory, a broken
 * hint); what the op did is in the results.
 */
#ifndef CLOPS_TOOLS_CHECK_CHECK_H
#define CLOPS_TOOLS_CHECK_CHECK_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "clops/dispatch.h"
#include "codegen_pointwise/pw.h"
#include "dispatch/schema.h"
#include "tools/check/check_compare.h"
#include "tools/check/check_guard.h"
#include "tools/check/check_random.h"

#include <cjson/cJSON.h>

/* Most schema arguments the engine handles; ops with more are skipped. */
#define CHK_MAX_ARGS 24
/* Tensors in one Tensor[] argument of a generated case. */
#define CHK_MAX_LIST 4
/* Lengths of the names in results. */
#define CHK_NAME_MAX 128

/* --- case sets ------------------------------------------------------------ */

typedef enum chk_set {
    CHK_SET_CI,
    CHK_SET_REPRESENTATIVE,
    CHK_SET_FULL,
    CHK_SET_COUNT
} chk_set;

/* "ci", "representative", "full". */
const char *chk_set_name(chk_set set);
bool chk_set_from_name(const char *name, chk_set *out);
/* The dtypes a set tries (bit 1u << dtype): every dtype for ci and full;
 * float32, float16, int32 and bool for representative. */
uint32_t chk_set_dtypes(chk_set set);

/* --- what the engine knows about an op ---------------------------------------- */

/* How one schema argument takes part in a call. */
typedef enum chk_role {
    CHK_ROLE_INPUT,   /* a Tensor the op reads */
    CHK_ROLE_MUTATED, /* a positional Tensor(a!): written in place */
    CHK_ROLE_OUT,     /* a keyword-only Tensor(a!): an out= argument */
    CHK_ROLE_LIST,    /* Tensor[] (inputs) */
    CHK_ROLE_DEVICE,  /* Device: the device of the run */
    CHK_ROLE_VALUE    /* everything else: Scalar, int, float, bool, str, lists, dtypes */
} chk_role;

/* reduce_dim of a reduction over every element of its argument (hint
 * `reduction: all`). */
#define CHK_REDUCE_ALL (-1000)

typedef struct chk_opinfo {
    const clops_op *op;
    const char *name;          /* "add.Tensor" (the registry's string) */
    const op_schema *schema;   /* the registry's parsed schema */
    int nargs;
    chk_role roles[CHK_MAX_ARGS];
    int ninputs;               /* INPUT and MUTATED tensors */
    int nouts;                 /* OUT tensors */
    bool inplace;              /* some positional argument is written */
    bool is_functional;        /* nothing is written */
    /* The functional op with the same arguments (without the out= ones):
     * gives the result shapes and dtypes of an out= variant, and the
     * pointwise binding of in-place and out variants.  NULL if none. */
    const clops_op *functional;
    char family[96];           /* kernel label of the OpenCL key (else CPU): "pointwise:add" */
    const pw_op *pw;           /* bound pw_op (of the op or its functional), or NULL */

    /* Knowledge beyond the schema (hints, pw_op, built-in table). */
    pw_domain domain;                  /* tensor values */
    pw_domain arg_domain[CHK_MAX_ARGS];/* per tensor argument */
    clops_dtype arg_dtype[CHK_MAX_ARGS];/* fixed dtype of a tensor argument (index
                                          tensors), CLOPS_DTYPE_NONE: the case's */
    double ulp;                        /* float tolerance in ULPs (see chk_tolerance) */
    double atol;                       /* absolute floor (0: none) */
    int reduce_arg, reduce_dim;        /* reduction length: dim of arg (-1: none;
                                          CHK_REDUCE_ALL: every element of arg) */
    uint32_t dtypes;                   /* dtypes to try (mask), before the set's */
    char skip[192];                    /* non-empty: the op is not checkable by value */
    cJSON *hints;                      /* parsed hints (owned), or NULL */
    const char *hint_source;           /* "inventory", "built-in" or "" */
    /* Which hint numbers were written with a fraction or exponent ("1.0"):
     * a Scalar built from them is a float; "2" gives an int Scalar. */
    const cJSON *float_nodes[64];
    int nfloat_nodes;
} chk_opinfo;

/* Fills info for op.  A malformed hint is CLOPS_INVALID_ARGUMENT naming the
 * op.  chk_opinfo_free releases what it holds (safe after a failure). */
clops_status chk_opinfo_init(const clops_op *op, chk_opinfo *info);
void chk_opinfo_free(chk_opinfo *info);

/* The functional op with the same arguments as op (its out= arguments
 * removed, alias annotations and a trailing underscore ignored): add.Tensor
 * for add_.Tensor and add.out; op itself when it writes nothing; NULL when
 * there is none. */
const clops_op *chk_functional_of(const clops_op *op);

/* --- cases ---------------------------------------------------------------------- */

/* A tensor of a case, before it exists on any device. */
typedef struct chk_tspec {
    clops_dtype dtype;
    int ndim;
    int64_t sizes[CLOPS_MAX_DIMS];
    chk_layout layout;
    pw_domain domain;
    uint64_t seed;
    bool none;        /* Tensor? given as None */
    bool on_cpu;      /* stays on the CPU device in device runs (a zero-dim CPU
                         tensor joining a device call, as PyTorch allows) */
    bool from_result; /* out=: shape and dtype come from the reference's result */
    int result_index; /* which result (from_result) */
} chk_tspec;

/* One argument of a case. */
typedef struct chk_argval {
    chk_role role;
    chk_tspec t;                  /* INPUT, MUTATED, OUT */
    int nlist;                    /* LIST: number of tensors */
    chk_tspec list[CHK_MAX_LIST];
    /* VALUE: the boxed value, rebuilt for each call by chk_arg_value()
     * (lists and strings live here, not behind pointers). */
    clops_value_tag tag;
    clops_scalar s;
    int64_t i;
    double f;
    bool b;
    clops_dtype dtype;
    int nints; /* entries of ints, or of bools for a bool list */
    /* One entry more than a shape holds: the size fuzz's over-long lists
     * (tests/test_size_fuzz.c); the cases themselves use CLOPS_MAX_DIMS. */
    int64_t ints[CLOPS_MAX_DIMS + 1];
    bool bools[CLOPS_MAX_DIMS + 1];
    char str[32];
} chk_argval;

typedef struct chk_case {
    char name[CHK_NAME_MAX];   /* "5x7x11 transposed, exponent=0.5" */
    char dtype_label[32];      /* "float32", "float32,int64" for mixed dtypes */
    clops_dtype dtype;
    int nargs;
    chk_argval args[CHK_MAX_ARGS];
    /* An error case: a tensor holds values outside the op's domain (the
     * `beyond` domain); the device must refuse it with the reference's
     * status, and then the case passes. */
    bool expect_refusal;
} chk_case;

/*
 * The standard cases of op for one dtype in a set, as a malloc'd array
 * (free() it).  *n may be 0 (the op's hints exclude the dtype).  When the
 * op cannot be checked (info->skip, or no value for a required argument),
 * *n is 0 and *why (may be NULL) receives the reason.
 */
clops_status chk_cases(const chk_opinfo *info, chk_set set, clops_dtype dt, chk_case **cases,
                       int *n, char *why, size_t why_cap);

/* The boxed value of a VALUE argument (points into a). */
clops_value chk_arg_value(const chk_argval *a);

/* --- results ----------------------------------------------------------------------- */

typedef enum chk_status { CHK_PASS, CHK_FAIL, CHK_SKIP, CHK_ERROR } chk_status;

/* Which kernel ran (the report's kernel field). */
typedef enum chk_kernel {
    CHK_KERNEL_NONE,      /* nothing ran */
    CHK_KERNEL_DEVICE,    /* the generic OpenCL kernel */
    CHK_KERNEL_OVERRIDE,  /* a vendor key's kernel */
    CHK_KERNEL_FALLBACK,  /* the boxed CPU fallback */
    CHK_KERNEL_REFERENCE  /* the CPU device's own kernel */
} chk_kernel;

const char *chk_status_name(chk_status s);  /* "pass", "fail", "skip", "error" */
const char *chk_kernel_name(chk_kernel k);  /* "none", "device", "override", ... */

typedef struct chk_result {
    const char *op;              /* registry string */
    char dtype[32];
    char case_name[CHK_NAME_MAX];
    int device;                  /* clops device index */
    chk_status status;
    chk_kernel kernel;
    char kernel_name[96];        /* "pointwise:add", "structured:gemm_mm" */
    double max_abs_err;          /* NAN when nothing was compared */
    double max_ulp_err;          /* floats only; NAN otherwise */
    double seconds;              /* wall time of the device side of the case */
    char message[1024];          /* why it failed, was skipped or errored; "" otherwise */
    bool dtype_refused;          /* the reference refused the case's dtype */
} chk_result;

/* A result with every figure NAN, status skip, kernel none. */
void chk_result_init(chk_result *r, const char *op, const char *dtype, const char *case_name,
                     int device);

/* Which kernel a call of op on dev resolves to, and its label. */
chk_kernel chk_resolve_kernel(const clops_op *op, const clops_device *dev, char *name,
                              size_t cap);

/*
 * Runs one case: once on the CPU device (the reference) and once on each
 * of devs[0..ndev) with the same inputs, writing ndev results.  A device
 * that is the CPU device is checked against a second CPU run.
 */
clops_status chk_run_case(const chk_opinfo *info, const chk_case *c, clops_device *const *devs,
                          int ndev, chk_result *results);

/* Calls the op on dev with the case's inputs and nothing else (no reference,
 * no comparison): what `clops warmup` and the first-call timings do.
 * *seconds (may be NULL) receives the call's wall time including the
 * device's completion.  The op's own status is returned. */
clops_status chk_call_case(const chk_opinfo *info, const chk_case *c, clops_device *dev,
                           double *seconds);

/* --- suites ------------------------------------------------------------------------- */

/* Which ops a run covers. */
typedef struct chk_selection {
    chk_set set;
    /* Optional predicate on top of the set's own choice (NULL: all). */
    bool (*filter)(const clops_op *op, void *ctx);
    void *filter_ctx;
} chk_selection;

/* The ops a selection covers, in registry order: every op for ci and full,
 * the representative list for representative.  *ops is malloc'd. */
clops_status chk_select_ops(const chk_selection *sel, const clops_op ***ops, int *n);

/* Callbacks of chk_run_op (each may be NULL). */
typedef struct chk_callbacks {
    void (*result)(void *ctx, const chk_result *r);
    void *ctx;
} chk_callbacks;

/* Totals over results. */
typedef struct chk_totals {
    int passed, failed, skipped, errors;
} chk_totals;

/*
 * Runs every case of op in `set` for every dtype of `dtypes` (a mask; 0:
 * the set's dtypes) on devs, reporting each result through cb and adding
 * to *totals (may be NULL).  A dtype the reference refuses for the first
 * case is reported once, as a skip of "(all cases)" after checking that
 * each device refuses it too.
 */
clops_status chk_run_op(const clops_op *op, chk_set set, uint32_t dtypes,
                        clops_device *const *devs, int ndev, const chk_callbacks *cb,
                        chk_totals *totals);

/* Prints one result as a line ("FAIL add.Tensor float32 [5x7 sliced] on
 * opencl:0: ...") to f. */
void chk_print_result(FILE *f, const chk_result *r);

/* --- benchmarks -------------------------------------------------------------------------- */

/* Figures of a device measured in the same run as its ops. */
typedef struct chk_device_figures {
    double copy_peak_gbs; /* the best of several copy kernels over a large buffer (memcpy on
                             the CPU device): a ceiling for every op's GB/s */
    char copy_peak_kernel[48]; /* which copy won ("float4 per item, wg 256") */
    double launch_us;     /* launch + finish of a one-work-item kernel, median */
    double enqueue_us;    /* host time of one enqueue without waiting, median */
    double build_cold_s;  /* building a program never seen before (a unique copy kernel) */
    /* Arithmetic ceilings (chk_bench_matrix_peaks), GFLOP/s, NAN when not
     * measured: float32 multiply-adds in registers, and on devices with
     * matrix units the clops engine uses (NVIDIA cc >= 8.0) bfloat16
     * mma.sync in registers. */
    double fma_peak_gflops;
    double mma_peak_gflops;
} chk_device_figures;

/* Measures d's arithmetic ceilings into out->fma_peak_gflops and
 * out->mma_peak_gflops (register-only loops, the best of reps runs; 0: 3).
 * NAN on the CPU device. */
clops_status chk_bench_matrix_peaks(clops_device *d, int reps, chk_device_figures *out);

/* The ceiling a compute-bound row of dtype dt stands against: the mma peak
 * for float16/bfloat16 where measured, else the FMA peak for float32 and
 * the half types (float32 runs on FMA at the default precision "highest");
 * NAN for other dtypes. */
double chk_matrix_ceiling(const chk_device_figures *fig, clops_dtype dt);

/* Measures d's copy peak (the best median of a few copy kernels: vector
 * widths, work-group sizes, the chunked CPU-device launch, the driver's own
 * buffer copy, a read-only and an in-place stream), launch overhead, enqueue cost and one cold program build; reps
 * repetitions behind each median (0: default 10). */
clops_status chk_bench_device(clops_device *d, int reps, chk_device_figures *out);

/* Builds (or loads from the caches) the fixed program of the device
 * measurements and times it: in a process with an empty cache that is a
 * cold build, with a filled one a warm load.  NAN for the CPU device. */
clops_status chk_time_program_build(clops_device *d, double *seconds);

/*
 * The shapes every device of one run is benchmarked at, so each op has one
 * row with a column per device: tensors sized so a call moves about 2 ms
 * of data at the fastest device's copy peak (2^23 to 2^26 elements, within
 * the smallest device's allocation limits), matrices of side `side` (256
 * when a CPU-like device takes part, else 2048).
 */
typedef struct chk_bench_sizes {
    double size_peak_gbs;      /* the fastest copy peak of the devices */
    uint64_t max_alloc_bytes;  /* the smallest largest-allocation of the devices */
    uint64_t mem_bytes;        /* the smallest global memory of the devices */
    int64_t side;              /* matrix side of ops with shape hints */
    bool describe;             /* chk_bench_op fills its result's `call` */
} chk_bench_sizes;

/* The common sizes of devs (figs[k] measured on devs[k]). */
void chk_bench_sizes_for(clops_device *const *devs, const chk_device_figures *figs, int n,
                         chk_bench_sizes *out);

/* Raises out's copy peak to the fastest of the same copies (and read-only
 * streams) over buffers of one bench tensor of sz (a float32 copy's): the
 * ops run at that size, and where it is near the last-level cache (a
 * 32 MiB tensor on a CPU with a large L3) their GB/s is that size's, not
 * the 256 MiB buffer's.  The kernel's name then ends in the size
 * ("float4 chunked (CPU launch), 32 MiB").  Nothing for the CPU device. */
clops_status chk_bench_peak_at_size(clops_device *d, const chk_bench_sizes *sz, int reps,
                                    chk_device_figures *out);

typedef struct chk_bench_result {
    const char *op;
    char dtype[32];
    char case_name[CHK_NAME_MAX]; /* "[1280, 4096] contiguous" */
    int device;
    chk_status status;            /* pass (measured), skip or error */
    chk_kernel kernel;
    char kernel_name[96];
    double bytes;                 /* bytes per call: each operand read once (an input whose
                                     values the op does not read, such as copy_'s self, not
                                     at all), each output written once */
    double flop;                  /* matrix products: 2*M*N*K per call, else NAN */
    double gbs;                   /* bytes / median time */
    double gflops;                /* flop / median time */
    double ratio_to_peak;         /* gbs / copy peak (NAN for matrix products) */
    double host_us;               /* host time per call, small tensors, no waiting */
    double device_us;             /* median time per call, large tensors */
    double cold_compile_s;        /* filled by the caller (first call, empty cache) */
    double warm_first_call_s;     /* filled by the caller (first call, warm cache) */
    int reps;
    /* Where the measurement's wall time went (seconds): making the inputs
     * on the device (the large case and the small one), the first call of
     * the large case (kernel builds, a cold cache's loads), the timed
     * calls, and the host-cost calls. */
    double phase_inputs_s, phase_first_s, phase_timed_s, phase_host_s;
    char message[512];
    /* The kernels the measured call launched, "program:kernel" (host
     * launch log) comma-separated in launch order, and "CLBlast" when it
     * handed a product to CLBlast: the engine path of the row. */
    char launches[400];
    /* With sz->describe, the measured call as JSON (chk_prepared_json:
     * every argument as materialised on the device, for the PyTorch side
     * of `clops compare --torch`); NULL otherwise or when nothing ran.
     * The caller owns it (cJSON_Delete). */
    cJSON *call;
} chk_bench_result;

/*
 * Benchmarks op on d in dtype dt on its bench case at the common sizes sz
 * (large contiguous tensors, or matrices of side sz->side for ops with
 * shape hints).  fig->copy_peak_gbs gives the ratio; reps (0: 20)
 * repetitions.
 */
clops_status chk_bench_op(const clops_op *op, clops_device *d, clops_dtype dt,
                          const chk_device_figures *fig, const chk_bench_sizes *sz, int reps,
                          chk_bench_result *out);

/*
 * Times one case as chk_cases() made it (the cases `clops check` runs), on
 * d: median device time per call over `reps` batches, GB/s of its inputs
 * read and outputs written once (ratio to fig's copy peak), GFLOP/s for
 * matrix products.  What `clops bench --cases` runs.  The op's failure is
 * in out (error, or skip for a refused dtype).
 */
clops_status chk_bench_check_case(const chk_opinfo *info, const chk_case *c, clops_device *d,
                                  const chk_device_figures *fig, int reps, chk_bench_result *out);

/* Multiplies every tensor dim above 1 of case c (and a factory's `size`)
 * by factor, and says so in its name ("..., sizes x8"); factor <= 1 leaves
 * it. */
void chk_case_grow(chk_case *c, int64_t factor, const chk_opinfo *info);

/*
 * The op's first call on d in dtype dt on its small bench case, timed
 * (program builds or cache loads included, device completion included).
 * What `clops bench --first-calls` runs in child processes.
 */
clops_status chk_first_call(const clops_op *op, clops_device *d, clops_dtype dt, double *seconds,
                            char *msg, size_t cap);

/* The bench case of op in dtype dt: contiguous inputs of about `elems`
 * elements per tensor (pointwise-like ops) or square matrices of side
 * `side` (ops with shape hints).  false when the op has no case. */
bool chk_bench_case(const chk_opinfo *info, clops_dtype dt, int64_t elems, int64_t side,
                    chk_case *out);

/* --- child processes ---------------------------------------------------------------------- */

/*
 * Runs argv[0] with argv (NULL-terminated) in our environment with the
 * "NAME=value" strings of env_add (NULL-terminated, may be NULL) replacing
 * or adding variables, captures its standard output into *out (malloc'd,
 * NUL-terminated) and its exit code into *exit_code (-1 when it did not
 * exit normally).  Standard error passes through.
 */
clops_status chk_spawn_capture(char *const *argv, char *const *env_add, char **out,
                               int *exit_code);

/* The path of the running executable (/proc/self/exe resolved) into buf. */
bool chk_self_exe(char *buf, size_t cap);

#endif /* CLOPS_TOOLS_CHECK_CHECK_H */
