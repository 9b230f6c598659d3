/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tools/cli/suite.c: running the check engine for the commands (see
 * suite.h): op selection, check and bench runs with progress, the child
 * processes of the first-call measurements, and the summary tables.
 */
#define _XOPEN_SOURCE 700 /* nftw */
#include <errno.h>
#include <ftw.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dispatch/dispatch.h"
#include "host/host.h"
#include "tools/cli/progress.h"
#include "tools/cli/suite.h"

/* --- options and ops --------------------------------------------------------------- */

int cli_suite_options(const cli_args *a, chk_set set_default, uint32_t dtype_default,
                      cli_suite *s)
{
    memset(s, 0, sizeof *s);
    s->args = a;
    s->set = set_default;
    const char *set = cli_value(a, "set");
    bool full = cli_count(a, "full") > 0 && cli_flag(a, "full");
    if (set && full && strcmp(set, "full") != 0)
        return cli_usage_error(a->cmd, "--full and --set %s contradict each other", set);
    if (set && !chk_set_from_name(set, &s->set))
        return cli_usage_error(a->cmd, "unknown case set '%s' (ci, representative or full)",
                               set);
    if (full)
        s->set = CHK_SET_FULL;
    s->ops_from_globs = cli_count(a, "op") > 0 && !set && !full;
    if (s->ops_from_globs && set_default == CHK_SET_REPRESENTATIVE)
        s->set = CHK_SET_CI; /* named ops: every dtype, the compact layouts */
    s->dtypes_given = cli_count(a, "dtype") > 0;
    uint32_t def = dtype_default ? dtype_default : chk_set_dtypes(s->set);
    int rc = cli_select_dtypes(a, def, &s->dtypes);
    if (rc)
        return rc;
    return CLI_EXIT_OK;
}

/* The op filter of a suite: the --op globs. */
static bool glob_filter(const clops_op *op, void *ctx)
{
    const cli_suite *s = ctx;
    return cli_op_selected(s->args, clops_op_name(op));
}

int cli_suite_ops(const cli_suite *s, const clops_op ***ops, int *n)
{
    chk_selection sel = {s->ops_from_globs ? CHK_SET_FULL : s->set, glob_filter, (void *)s};
    clops_status st = chk_select_ops(&sel, ops, n);
    if (st)
        return cli_status_error(st, "selecting ops");
    if (*n == 0 && cli_count(s->args, "op") > 0) {
        free(*ops);
        *ops = NULL;
        char hint[512];
        cli_op_glob_hint(s->args, hint, sizeof hint);
        return cli_usage_error(s->args->cmd, "--op selects no operator: %s",
                               hint[0] ? hint : "the globs match no operator of this command");
    }
    return CLI_EXIT_OK;
}

int cli_report_devices(report *r, clops_device *const *devs, int n)
{
    for (int i = 0; i < n; i++) {
        if (report_find_device(r, clops_device_get_info(devs[i])->index))
            continue;
        clops_status st = report_add_device(r, clops_device_get_info(devs[i]),
                                            clops_device_label(devs[i]), NULL);
        if (st)
            return cli_status_error(st, "building the report");
    }
    return CLI_EXIT_OK;
}

/* --- check ------------------------------------------------------------------------- */

void cli_report_check_from(report_check *c, const chk_result *res)
{
    report_check_init(c);
    snprintf(c->op, sizeof c->op, "%s", res->op);
    snprintf(c->dtype, sizeof c->dtype, "%s", res->dtype);
    snprintf(c->case_name, sizeof c->case_name, "%s", res->case_name);
    snprintf(c->kernel_name, sizeof c->kernel_name, "%s", res->kernel_name);
    c->device = res->device;
    c->status = (report_status)res->status; /* same order: pass, fail, skip, error */
    c->kernel = (report_kernel)res->kernel; /* same order: none, device, override, ... */
    c->max_abs_err = res->max_abs_err;
    c->max_ulp_err = res->max_ulp_err;
    c->seconds = res->seconds;
    c->message = res->message[0] ? (char *)res->message : NULL;
}

/* What the result callback needs. */
typedef struct check_ctx {
    report *r;
    bool verbose;
    int failed;          /* of the current op */
    clops_status st;     /* a failure to record a result */
    cli_progress *progress;
} check_ctx;

/* Records one check result in the report (and prints it when verbose). */
static void on_result(void *vctx, const chk_result *res)
{
    check_ctx *x = vctx;
    report_check c;
    cli_report_check_from(&c, res);
    if (x->st == CLOPS_OK)
        x->st = report_add_check(x->r, &c);
    if (res->status == CHK_FAIL || res->status == CHK_ERROR)
        x->failed++;
    if (x->verbose || res->status == CHK_FAIL || res->status == CHK_ERROR) {
        char line[1400];
        FILE *mem = fmemopen(line, sizeof line, "w");
        if (mem) {
            chk_print_result(mem, res);
            fclose(mem);
            line[sizeof line - 1] = '\0';
            size_t len = strlen(line);
            if (len && line[len - 1] == '\n')
                line[len - 1] = '\0';
            if (x->verbose)
                cli_progress_message(x->progress, "%s", line);
        }
    }
}

int cli_suite_check(const cli_suite *s, const clops_op *const *ops, int n, bool verbose,
                    report *r)
{
    int rc = cli_report_devices(r, s->devs, s->ndev);
    if (rc)
        return rc;
    cli_progress p;
    cli_progress_start(&p, CLI_PROGRESS_AUTO, "check", "ops", n);
    check_ctx x = {r, verbose, 0, CLOPS_OK, &p};
    chk_callbacks cb = {on_result, &x};
    for (int i = 0; i < n; i++) {
        cli_progress_begin(&p, clops_op_name(ops[i]));
        x.failed = 0;
        clops_status st = chk_run_op(ops[i], s->set, s->dtypes, s->devs, s->ndev, &cb, NULL);
        if (st == CLOPS_OK && x.st)
            st = x.st;
        if (st) {
            cli_progress_finish(&p);
            return cli_status_error(st, "checking %s", clops_op_name(ops[i]));
        }
        char note[64] = "";
        if (x.failed)
            snprintf(note, sizeof note, "%d case%s failed", x.failed, x.failed == 1 ? "" : "s");
        cli_progress_end(&p, x.failed == 0, note[0] ? note : NULL);
    }
    cli_progress_finish(&p);
    return CLI_EXIT_OK;
}

/* --- first calls in child processes -------------------------------------------------- */

/* nftw callback of remove_tree. */
static int remove_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb, (void)flag, (void)ftw;
    return remove(path) == 0 ? 0 : 0;
}

/* Removes a directory tree we created. */
static void remove_tree(const char *path)
{
    nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* Per (op, dtype) figures of one child. */
typedef struct child_times {
    double program_build_s;
    int n;
    char (*key)[CHK_NAME_MAX + 40]; /* "op|dtype" */
    double *seconds;
} child_times;

/* Runs `clops bench --first-calls` on device d with the cache in dir and
 * reads its times.  false (with a warning) when the child failed. */
static bool run_child(const char *exe, const clops_device *d, const char *dtypes,
                      const char *oplist, const char *dir, child_times *ct)
{
    char dev[16], env_cache[4200], env_pocl[4200];
    snprintf(dev, sizeof dev, "%d", clops_device_get_info(d)->index);
    snprintf(env_cache, sizeof env_cache, "CLOPS_CACHE_DIR=%s", dir);
    snprintf(env_pocl, sizeof env_pocl, "POCL_CACHE_DIR=%s/pocl", dir);
    char *argv[] = {(char *)exe, "bench", "--first-calls", "--device", dev,   "--op",
                    (char *)oplist, "--json", "-", "--dtype", (char *)dtypes, NULL};
    if (!dtypes)
        argv[9] = NULL; /* the child's default: float32 with the same fallback */
    char *env[] = {env_cache, env_pocl, "CLOPS_PROGRESS=off", NULL};
    char *out = NULL;
    int code = -1;
    clops_status st = chk_spawn_capture(argv, env, &out, &code);
    if (st || code != 0) {
        cli_warn("first-call measurement on %s failed (exit %d): %s", clops_device_label(d), code,
                 st ? clops_last_error() : "see above");
        free(out);
        return false;
    }
    cJSON *doc = cJSON_Parse(out);
    free(out);
    const cJSON *res = cJSON_GetObjectItemCaseSensitive(doc, "results");
    const cJSON *pb = cJSON_GetObjectItemCaseSensitive(doc, "program_build_s");
    ct->program_build_s = cJSON_IsNumber(pb) ? pb->valuedouble : NAN;
    int m = cJSON_GetArraySize(res);
    ct->key = calloc((size_t)(m ? m : 1), sizeof *ct->key);
    ct->seconds = calloc((size_t)(m ? m : 1), sizeof *ct->seconds);
    ct->n = 0;
    for (const cJSON *o = res ? res->child : NULL; o && ct->key && ct->seconds; o = o->next) {
        const cJSON *op = cJSON_GetObjectItemCaseSensitive(o, "op");
        const cJSON *dt = cJSON_GetObjectItemCaseSensitive(o, "dtype");
        const cJSON *s = cJSON_GetObjectItemCaseSensitive(o, "first_call_s");
        if (!cJSON_IsString(op) || !cJSON_IsString(dt))
            continue;
        snprintf(ct->key[ct->n], sizeof ct->key[0], "%s|%s", op->valuestring, dt->valuestring);
        ct->seconds[ct->n++] = cJSON_IsNumber(s) ? s->valuedouble : NAN;
    }
    cJSON_Delete(doc);
    return ct->key && ct->seconds;
}

/* The time a child measured for (op, dtype), or NAN. */
static double child_lookup(const child_times *ct, const char *op, const char *dtype)
{
    char key[CHK_NAME_MAX + 40];
    snprintf(key, sizeof key, "%s|%s", op, dtype);
    for (int i = 0; i < ct->n; i++)
        if (strcmp(ct->key[i], key) == 0)
            return ct->seconds[i];
    return NAN;
}

/* Frees what run_child read. */
static void child_free(child_times *ct)
{
    free(ct->key);
    free(ct->seconds);
    memset(ct, 0, sizeof *ct);
}

int cli_suite_first_calls(const cli_suite *s, const clops_op *const *ops, int n,
                          const char *json_path)
{
    if (s->ndev != 1)
        return cli_usage_error(s->args->cmd, "--first-calls measures one device; give one "
                                             "--device");
    clops_device *d = s->devs[0];
    /* Start the device (context, queue) before anything is timed. */
    clops_tensor *t = NULL;
    if (clops_empty(d, CLOPS_FLOAT32, 1, (const int64_t[]){1}, &t) == CLOPS_OK)
        clops_tensor_release(t);
    clops_device_synchronize(d);
    cJSON *doc = cli_json_document("bench-first-calls");
    if (!doc) {
        cli_error("out of host memory");
        return CLI_EXIT_RUNTIME;
    }
    double pb = NAN;
    chk_time_program_build(d, &pb);
    if (isfinite(pb))
        cJSON_AddNumberToObject(doc, "program_build_s", pb);
    else
        cJSON_AddNullToObject(doc, "program_build_s");
    cJSON *res = cJSON_GetObjectItemCaseSensitive(doc, "results");
    for (int i = 0; i < n; i++)
        for (int dt = 0; dt < CLOPS_DTYPE_COUNT; dt++) {
            if (!(s->dtypes & (1u << dt)))
                continue;
            double secs = NAN;
            char msg[512];
            clops_dtype used = (clops_dtype)dt;
            clops_status st = chk_first_call(ops[i], d, used, &secs, msg, sizeof msg);
            /* Without --dtype, an op that refuses float32 is measured in the
             * dtype the parent's bench falls back to. */
            static const clops_dtype others[] = {CLOPS_INT32, CLOPS_INT64, CLOPS_BOOL};
            for (size_t k = 0; !s->dtypes_given && (st == CLOPS_INVALID_DTYPE ||
                                                    st == CLOPS_UNSUPPORTED) &&
                               k < sizeof others / sizeof others[0];
                 k++) {
                used = others[k];
                st = chk_first_call(ops[i], d, used, &secs, msg, sizeof msg);
            }
            cJSON *o = cJSON_CreateObject();
            cJSON_AddStringToObject(o, "op", clops_op_name(ops[i]));
            cJSON_AddNumberToObject(o, "device", clops_device_get_info(d)->index);
            cJSON_AddStringToObject(o, "dtype", clops_dtype_name(used));
            if (isfinite(secs))
                cJSON_AddNumberToObject(o, "first_call_s", secs);
            else
                cJSON_AddNullToObject(o, "first_call_s");
            cJSON_AddStringToObject(o, "message", msg);
            cJSON_AddItemToArray(res, o);
        }
    int rc = cli_json_write(doc, json_path ? json_path : "-");
    cJSON_Delete(doc);
    return rc;
}

/* --- bench --------------------------------------------------------------------------- */

/* "float32,float16" for a dtype mask. */
static void dtype_list(uint32_t mask, char *buf, size_t cap)
{
    size_t n = 0;
    buf[0] = '\0';
    for (int dt = 0; dt < CLOPS_DTYPE_COUNT && n < cap; dt++)
        if (mask & (1u << dt))
            n += (size_t)snprintf(buf + n, cap - n, "%s%s", n ? "," : "",
                                  clops_dtype_name((clops_dtype)dt));
}

/* Measures cold and warm first calls of ops on d in two children and
 * fills the bench results and device figures of r. */
static void first_calls(const cli_suite *s, const clops_op *const *ops, int n, clops_device *d,
                        report *r, cli_progress *p)
{
    char exe[4096], dir[4200], dts[256];
    const char *tmp = getenv("TMPDIR");
    if (!chk_self_exe(exe, sizeof exe)) {
        cli_progress_message(p, "clops: warning: cannot find the clops executable; first "
                                "calls not measured");
        return;
    }
    if (!host_cache_dir(dir, sizeof dir)) {
        cli_progress_message(p, "clops: note: the kernel cache is off (CLOPS_CACHE=0): cold "
                                "and warm first calls are not measured");
        return;
    }
    snprintf(dir, sizeof dir, "%s/clops-bench-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        cli_progress_message(p, "clops: warning: cannot create a temporary cache: %s",
                             strerror(errno));
        return;
    }
    size_t cap = 64;
    for (int i = 0; i < n; i++)
        cap += strlen(clops_op_name(ops[i])) + 1;
    char *oplist = calloc(cap, 1);
    dtype_list(s->dtypes, dts, sizeof dts);
    child_times cold = {0}, warm = {0};
    if (oplist) {
        for (int i = 0; i < n; i++) {
            strcat(oplist, clops_op_name(ops[i]));
            if (i + 1 < n)
                strcat(oplist, ",");
        }
        const char *dlist = s->dtypes_given ? dts : NULL;
        cli_progress_begin(p, "first calls, empty cache (child process)");
        bool ok = run_child(exe, d, dlist, oplist, dir, &cold);
        cli_progress_begin(p, "first calls, warm cache (child process)");
        ok = ok && run_child(exe, d, dlist, oplist, dir, &warm);
        (void)ok;
    }
    int idx = clops_device_get_info(d)->index;
    for (int i = 0; i < r->nbenches; i++) {
        report_bench *b = &r->benches[i];
        if (b->device != idx)
            continue;
        b->cold_compile_s = child_lookup(&cold, b->op, b->dtype);
        b->warm_first_call_s = child_lookup(&warm, b->op, b->dtype);
    }
    report_device *rd = report_find_device(r, idx);
    if (rd && isfinite(cold.program_build_s))
        rd->build_cold_s = cold.program_build_s;
    if (rd)
        rd->build_warm_s = warm.program_build_s;
    child_free(&cold);
    child_free(&warm);
    free(oplist);
    remove_tree(dir);
}

/* The family an op's benchmark is summarised under: its first kind tag
 * ("matrix" for blas), else its inventory family (conv, pool, norm, index,
 * loss, ...), else "other" (user-defined ops). */
static const char *op_family(const clops_op *op)
{
    static const char *const tags[][2] = {
        {"blas", "matrix"},   {"pointwise", "pointwise"}, {"reduction", "reduction"},
        {"scan", "scan"},     {"sort", "sort"},           {"random", "random"},
        {"factory", "factory"}, {"view", "view"},
    };
    for (size_t i = 0; i < sizeof tags / sizeof tags[0]; i++)
        if (clops_op_has_tag(op, tags[i][0]))
            return tags[i][1];
    const char *family = dispatch_op_family(op);
    return family && family[0] ? family : "other";
}

/* Appends a measured call (taken over) to calls with the row's device,
 * family and models of bytes and flop. */
static clops_status add_call(cJSON *calls, cJSON *call, const report_bench *rb)
{
    /* The row's dtype (the engine's label names a mixed case's dtypes). */
    cJSON *dtype = cJSON_CreateString(rb->dtype);
    if (!dtype || !cJSON_ReplaceItemInObjectCaseSensitive(call, "dtype", dtype)) {
        cJSON_Delete(dtype);
        cJSON_Delete(call);
        return CLOPS__HOST_OOM("the calls of the bench");
    }
    bool ok = cJSON_AddNumberToObject(call, "device", rb->device) &&
              cJSON_AddStringToObject(call, "family", rb->family) &&
              (isfinite(rb->bytes) ? cJSON_AddNumberToObject(call, "bytes", rb->bytes)
                                   : cJSON_AddNullToObject(call, "bytes")) &&
              (isfinite(rb->flop) ? cJSON_AddNumberToObject(call, "flop", rb->flop)
                                  : cJSON_AddNullToObject(call, "flop"));
    if (!ok || !cJSON_AddItemToArray(calls, call)) {
        cJSON_Delete(call);
        return CLOPS__HOST_OOM("the calls of the bench");
    }
    return CLOPS_OK;
}

/* Benchmarks ops[i] on d in every dtype of s at sizes sz into r; *ok false
 * when it errored.  Returns an exit code. */
static int bench_one(const cli_suite *s, const clops_op *op, clops_device *d,
                     const chk_device_figures *fig, const chk_bench_sizes *sz, int reps,
                     report *r, bool *ok, double phase[4])
{
    for (int dt = 0; dt < CLOPS_DTYPE_COUNT; dt++) {
        if (!(s->dtypes & (1u << dt)))
            continue;
        chk_bench_result b;
        clops_status st = chk_bench_op(op, d, (clops_dtype)dt, fig, sz, reps, &b);
        /* The default dtype the op refuses: its next dtype of these. */
        static const clops_dtype others[] = {CLOPS_INT32, CLOPS_INT64, CLOPS_BOOL};
        for (size_t o = 0; !st && !s->dtypes_given && b.status == CHK_SKIP &&
                           o < sizeof others / sizeof others[0];
             o++)
        {
            phase[0] += b.phase_inputs_s;
            phase[1] += b.phase_first_s;
            phase[2] += b.phase_timed_s;
            phase[3] += b.phase_host_s;
            st = chk_bench_op(op, d, others[o], fig, sz, reps, &b);
        }
        phase[0] += b.phase_inputs_s;
        phase[1] += b.phase_first_s;
        phase[2] += b.phase_timed_s;
        phase[3] += b.phase_host_s;
        if (st)
            return cli_status_error(st, "benchmarking %s", clops_op_name(op));
        report_bench rb;
        report_bench_init(&rb);
        snprintf(rb.op, sizeof rb.op, "%s", b.op);
        snprintf(rb.dtype, sizeof rb.dtype, "%s", b.dtype);
        snprintf(rb.case_name, sizeof rb.case_name, "%s", b.case_name);
        snprintf(rb.kernel_name, sizeof rb.kernel_name, "%s", b.kernel_name);
        snprintf(rb.family, sizeof rb.family, "%s", op_family(op));
        snprintf(rb.launches, sizeof rb.launches, "%s", b.launches);
        rb.device = b.device;
        rb.status = (report_status)b.status;
        rb.kernel = (report_kernel)b.kernel;
        rb.bytes = b.bytes;
        rb.flop = b.flop;
        rb.gbs = b.gbs;
        rb.gflops = b.gflops;
        rb.ratio_to_peak = b.ratio_to_peak;
        rb.host_us = b.host_us;
        rb.device_us = b.device_us;
        rb.reps = b.reps;
        rb.message = b.message[0] ? b.message : NULL;
        *ok &= b.status != CHK_ERROR;
        st = report_add_bench(r, &rb);
        if (st == CLOPS_OK && b.call)
            st = add_call(s->calls, b.call, &rb);
        else
            cJSON_Delete(b.call);
        if (st)
            return cli_status_error(st, "building the report");
    }
    return CLI_EXIT_OK;
}

/* How many of rd's bandwidth rows (compute: its compute rows) are above
 * their ceiling. */
static int device_rows_above_peak(const report *r, const report_device *rd, bool compute)
{
    int n = 0;
    for (int i = 0; i < r->nbenches; i++)
        n += r->benches[i].device == rd->info.index &&
             report_bench_is_compute(&r->benches[i]) == compute &&
             report_bench_above_peak(r, &r->benches[i]);
    return n;
}

int cli_suite_bench(const cli_suite *s, const clops_op *const *ops, int n, int reps,
                    bool first, report *r)
{
    int rc = cli_report_devices(r, s->devs, s->ndev);
    if (rc)
        return rc;
    chk_device_figures *figs = calloc((size_t)s->ndev + 1, sizeof *figs);
    if (!figs)
        return cli_status_error(CLOPS__HOST_OOM("bench figures"), "benchmarking");
    /* Every device's figures first: the common sizes depend on them. */
    cli_progress p;
    cli_progress_start(&p, CLI_PROGRESS_AUTO, "peaks", "devices", s->ndev);
    for (int k = 0; k < s->ndev; k++) {
        clops_device *d = s->devs[k];
        char item[96];
        snprintf(item, sizeof item, "copy peak and launch overhead of %s",
                 clops_device_label(d));
        cli_progress_begin(&p, item);
        clops_status st = chk_bench_device(d, 5, &figs[k]);
        if (st == CLOPS_OK)
            st = chk_bench_matrix_peaks(d, 3, &figs[k]);
        if (st)
            cli_progress_message(&p, "clops: warning: measuring %s: %s", clops_device_label(d),
                                 clops_last_error());
        report_device *rd = report_find_device(r, clops_device_get_info(d)->index);
        if (rd) {
            rd->copy_peak_gbs = figs[k].copy_peak_gbs;
            snprintf(rd->copy_peak_kernel, sizeof rd->copy_peak_kernel, "%s",
                     figs[k].copy_peak_kernel);
            rd->launch_us = figs[k].launch_us;
            rd->enqueue_us = figs[k].enqueue_us;
            rd->build_cold_s = figs[k].build_cold_s;
            rd->fma_peak_gflops = figs[k].fma_peak_gflops;
            rd->mma_peak_gflops = figs[k].mma_peak_gflops;
        }
        char pk[32], fm[32], mm[32], note[160];
        snprintf(note, sizeof note, "copy peak %s GB/s (%s), FMA %s GFLOP/s, mma %s GFLOP/s",
                 report_fmt(figs[k].copy_peak_gbs, "%.1f", pk, sizeof pk),
                 figs[k].copy_peak_kernel, report_fmt(figs[k].fma_peak_gflops, "%.0f", fm, sizeof fm),
                 report_fmt(figs[k].mma_peak_gflops, "%.0f", mm, sizeof mm));
        cli_progress_end(&p, st == CLOPS_OK, note);
    }
    cli_progress_finish(&p);
    chk_bench_sizes sz, gpu_sz;
    chk_bench_sizes_for(s->devs, figs, s->ndev, &sz);
    /* The ceiling at the ops' own tensor size too (cache effects). */
    for (int k = 0; k < s->ndev; k++) {
        clops_device *d = s->devs[k];
        if (chk_bench_peak_at_size(d, &sz, 5, &figs[k]) != CLOPS_OK)
            fprintf(stderr, "clops: warning: measuring %s at the ops' size: %s\n",
                    clops_device_label(d), clops_last_error());
        report_device *rd = report_find_device(r, clops_device_get_info(d)->index);
        if (rd) {
            rd->copy_peak_gbs = figs[k].copy_peak_gbs;
            snprintf(rd->copy_peak_kernel, sizeof rd->copy_peak_kernel, "%s",
                     figs[k].copy_peak_kernel);
        }
    }
    /* Matrix products at 256 on a CPU are too small for a GPU: the GPUs
     * also run them at 2048 (a second row). */
    sz.describe = s->calls != NULL;
    gpu_sz = sz;
    gpu_sz.side = 2048;
    cli_progress_start(&p, CLI_PROGRESS_AUTO, "bench", "ops", n * s->ndev);
    for (int k = 0; k < s->ndev && rc == CLI_EXIT_OK; k++) {
        clops_device *d = s->devs[k];
        bool gpu2 = clops_device_get_info(d)->is_gpu && sz.side < gpu_sz.side;
        double phase[4] = {0, 0, 0, 0}, t0 = cli_now();
        for (int i = 0; i < n && rc == CLI_EXIT_OK; i++) {
            char item[CHK_NAME_MAX + 32];
            snprintf(item, sizeof item, "%s on %s", clops_op_name(ops[i]), clops_device_label(d));
            cli_progress_begin(&p, item);
            bool ok = true;
            rc = bench_one(s, ops[i], d, &figs[k], &sz, reps, r, &ok, phase);
            if (rc == CLI_EXIT_OK && gpu2 && clops_op_has_tag(ops[i], "blas"))
                rc = bench_one(s, ops[i], d, &figs[k], &gpu_sz, reps, r, &ok, phase);
            cli_progress_end(&p, ok, ok ? NULL : "error");
        }
        double t1 = cli_now();
        if (rc == CLI_EXIT_OK && first && !host_is_cpu(d))
            first_calls(s, ops, n, d, r, &p);
        double t2 = cli_now();
        report_device *rd = report_find_device(r, clops_device_get_info(d)->index);
        if (rd && rc == CLI_EXIT_OK) {
            /* The ceiling is the best copy seen over the run: once more at
             * the ops' size after them (load from other processes on a
             * shared machine only ever slows a measurement down), and
             * clops' own copy_. */
            chk_device_figures again = figs[k];
            if (chk_bench_peak_at_size(d, &sz, 5, &again) == CLOPS_OK)
                report_raise_peak(r, rd, again.copy_peak_gbs, again.copy_peak_kernel);
            report_raise_peak_to_copy(r, rd);
            /* Rows still above it met the device in a quieter moment than
             * the copies did: measure again, at most three times. */
            for (int tries = 0; tries < 3 && device_rows_above_peak(r, rd, false); tries++)
                if (chk_bench_peak_at_size(d, &sz, 5, &again) == CLOPS_OK)
                    report_raise_peak(r, rd, again.copy_peak_gbs, again.copy_peak_kernel);
            /* The same for the arithmetic ceilings and the compute rows. */
            for (int tries = 0; tries < 3 && device_rows_above_peak(r, rd, true); tries++)
                if (chk_bench_matrix_peaks(d, 3, &again) == CLOPS_OK)
                    report_raise_arith_peaks(r, rd, again.fma_peak_gflops,
                                             again.mma_peak_gflops);
        }
        /* Where the device's time went: users wait for this too. */
        if (rc == CLI_EXIT_OK)
            cli_progress_message(&p, "bench: %s: %.1f s over %d ops: inputs %.1f s, first calls "
                                     "%.1f s (kernel builds), timed calls %.1f s, host cost "
                                     "%.1f s; first-call child processes %.1f s; ceilings "
                                     "again %.1f s",
                                 clops_device_label(d), t1 - t0, n, phase[0], phase[1],
                                 phase[2], phase[3], t2 - t1, cli_now() - t2);
        if (rd && !host_is_cpu(d)) {
            host_kcache_stats ks;
            host_kcache_get_stats(d, &ks);
            rd->compile_total_s = ks.build_seconds;
        }
    }
    cli_progress_finish(&p);
    free(figs);
    return rc;
}

/* --- tables --------------------------------------------------------------------------- */

/* The label of the device with clops index idx. */
static const char *device_label(const report *r, int idx)
{
    const report_device *d = report_find_device(r, idx);
    return d ? d->label : "?";
}

void cli_print_check_table(const report *r, FILE *f)
{
    report_matrix m;
    if (report_matrix_build(r, &m) != CLOPS_OK)
        return;
    cli_table t;
    static const char *const h[] = {"op",       "device", "pass",    "fail",
                                    "skip",     "error",  "max abs", "max ULP", "kernel"};
    cli_table_init(&t, "llrrrrrrl", 9, h);
    for (int i = 0; i < m.nops; i++)
        for (int j = 0; j < m.ndevices; j++) {
            const report_cell *c = report_matrix_cell(&m, i, j);
            if (c->pass + c->fail + c->skip + c->error == 0)
                continue;
            char pa[16], fa[16], sk[16], er[16], ab[32], ul[32];
            snprintf(pa, sizeof pa, "%d", c->pass);
            snprintf(fa, sizeof fa, "%d", c->fail);
            snprintf(sk, sizeof sk, "%d", c->skip);
            snprintf(er, sizeof er, "%d", c->error);
            report_fmt_err(c->max_abs_err, ab, sizeof ab);
            report_fmt(c->max_ulp_err, "%.3g", ul, sizeof ul);
            const char *k = c->fallback        ? "CPU fallback"
                            : c->override_used ? "vendor override"
                                               : "";
            const char *row[] = {m.ops[i], r->devices[j].label, pa, fa, sk, er, ab, ul, k};
            cli_table_row(&t, row);
        }
    cli_table_print(&t, f, "  ");
    cli_table_free(&t);
    report_matrix_free(&m);
    report_summary s = report_summarize(r);
    fprintf(f, "\n%d passed, %d failed (%d errors), %d skipped\n", s.passed, s.failed, s.errors,
            s.skipped);
}

void cli_print_failures(const report *r, FILE *f, int full)
{
    int shown = 0, total = 0;
    for (int i = 0; i < r->nchecks; i++)
        total += r->checks[i].status == REPORT_FAIL || r->checks[i].status == REPORT_ERROR;
    if (!total)
        return;
    fprintf(f, "\nFailing cases (%d):\n", total);
    for (int i = 0; i < r->nchecks; i++) {
        const report_check *c = &r->checks[i];
        if (c->status != REPORT_FAIL && c->status != REPORT_ERROR)
            continue;
        char ab[32], ul[32];
        report_fmt_err(c->max_abs_err, ab, sizeof ab);
        report_fmt(c->max_ulp_err, "%.3g", ul, sizeof ul);
        fprintf(f, "  %s %s %s [%s] on %s (%s %s): max abs %s, max ULP %s",
                c->status == REPORT_FAIL ? "FAIL" : "ERROR", c->op, c->dtype, c->case_name,
                device_label(r, c->device), report_kernel_human(c->kernel), c->kernel_name, ab,
                ul);
        if (c->message) {
            if (shown < full) {
                fprintf(f, ":\n    ");
                for (const char *p = c->message; *p; p++) {
                    fputc(*p, f);
                    if (*p == '\n')
                        fputs("    ", f);
                }
            } else {
                fprintf(f, ": %.*s", (int)strcspn(c->message, "\n"), c->message);
            }
        }
        fputc('\n', f);
        shown++;
    }
}

void cli_print_bench_table(const report *r, FILE *f)
{
    for (int j = 0; j < r->ndevices; j++) {
        const report_device *d = &r->devices[j];
        char a[32], b[32], c[32], e[32], g[32];
        char fm[32], mm[32];
        fprintf(f, "%s (%s): copy peak %s GB/s, FMA peak %s GFLOP/s, mma peak %s GFLOP/s, "
                   "launch %s us, enqueue %s us, program build %s s cold / %s s warm\n",
                d->label, d->info.name, report_fmt(d->copy_peak_gbs, "%.1f", a, sizeof a),
                report_fmt(d->fma_peak_gflops, "%.0f", fm, sizeof fm),
                report_fmt(d->mma_peak_gflops, "%.0f", mm, sizeof mm),
                report_fmt(d->launch_us, "%.1f", b, sizeof b),
                report_fmt(d->enqueue_us, "%.2f", c, sizeof c),
                report_fmt(d->build_cold_s, "%.3f", e, sizeof e),
                report_fmt(d->build_warm_s, "%.3f", g, sizeof g));
    }
    cli_table t;
    static const char *const h[] = {"op",   "dtype",     "device",      "case",   "GB/s", "/peak",
                                    "GFLOP/s", "us/call", "host us", "cold s", "warm s"};
    cli_table_init(&t, "llllrrrrrrr", 11, h);
    for (int i = 0; i < r->nbenches; i++) {
        const report_bench *b = &r->benches[i];
        char gbs[32], ratio[32], gf[32], dus[32], hus[32], cold[32], warm[32];
        report_fmt(b->gbs, "%.2f", gbs, sizeof gbs);
        report_fmt(b->ratio_to_peak, "%.3f", ratio, sizeof ratio);
        report_fmt(b->gflops, "%.1f", gf, sizeof gf);
        report_fmt(b->device_us, "%.1f", dus, sizeof dus);
        report_fmt(b->host_us, "%.1f", hus, sizeof hus);
        report_fmt(b->cold_compile_s, "%.3f", cold, sizeof cold);
        report_fmt(b->warm_first_call_s, "%.3f", warm, sizeof warm);
        const char *row[] = {b->op, b->dtype, device_label(r, b->device), b->case_name, gbs, ratio,
                             gf,    dus,      hus,   cold, warm};
        cli_table_row(&t, row);
    }
    cli_table_print(&t, f, "  ");
    cli_table_free(&t);
    for (int i = 0; i < r->nbenches; i++)
        if (r->benches[i].status != REPORT_PASS && r->benches[i].message)
            fprintf(f, "  %s %s on %s: %s: %s\n", r->benches[i].op, r->benches[i].dtype,
                    device_label(r, r->benches[i].device),
                    report_status_name(r->benches[i].status), r->benches[i].message);
}
