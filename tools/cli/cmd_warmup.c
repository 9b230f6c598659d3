/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tools/cli/cmd_warmup.c: `clops warmup`, compiling every kernel the
 * standard op set needs into the disk cache ahead of time, then timing a
 * warm start.
 *
 *     clops warmup [--device SEL]... [--set SET] [--op GLOB]... [--dtype LIST]...
 *                  [--json FILE]
 *
 * The pass calls every case of the set once per device (no reference, no
 * comparison), which builds every program and creates every kernel the
 * checks use; the binaries land in the disk cache (clops' own, or POCL's
 * under <cache>/pocl for POCL devices).  With --jobs N (default: the
 * online CPUs) the cold pass runs as N child processes, each calling every
 * N-th op (`--shard K/N`): a program build and a kernel's first launch are
 * single-threaded in every driver we have (POCL compiles a kernel in the
 * calling thread), so N processes fill one shared cache up to N times as
 * fast.  Then a child process (`--child`) runs the whole pass with the
 * cache filled, and the two times are reported side by side.
 *
 * The pass also builds the fused pointwise ops that torch.compile(backend=
 * "clops") generated in earlier processes and recorded in the cache folder
 * (<cache>/fused/<name>.json, python/clops/torch/_compile.py
 * _record_fused): each is registered and called once per recorded
 * signature (operand dtypes, rank) on zero tensors, which builds its
 * program, so a compiled model's first call after a cache wipe (a driver
 * update, a new machine image with the records copied) builds nothing.
 */
#include <dirent.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clops/dispatch.h"
#include "clops/pointwise.h"
#include "host/host.h"
#include "tools/cli/cli.h"
#include "tools/cli/progress.h"
#include "tools/cli/suite.h"

static const cli_option warmup_options[] = {
    CLI_OPTION_DEVICE,
    {"set", 0, CLI_OPT_VALUE, "SET", "case set: representative (default), ci or full"},
    CLI_OPTION_OP,
    CLI_OPTION_DTYPE,
    CLI_OPTION_JSON,
    {"jobs", 'j', CLI_OPT_VALUE, "N",
     "compile in N processes at once (default: the number of online CPUs)"},
    {"child", 0, CLI_OPT_FLAG, NULL,
     "internal: run the pass on one device and print its figures as JSON"},
    {"shard", 0, CLI_OPT_VALUE, "K/N", "internal: with --child, call only every N-th op from K"},
    CLI_OPTION_END,
};

/* What one pass over a device did. */
typedef struct pass_figures {
    double seconds;
    uint64_t programs_built, programs_loaded, kernels;
    int calls, failed_calls;
    int fused_calls; /* of them, fused ops recorded by torch.compile */
} pass_figures;

/* A recorded fused op's file, whole (NULL: unreadable or over 1 MiB). */
static char *read_record(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    enum { MAX_RECORD = 1 << 20 };
    char *text = malloc(MAX_RECORD + 1);
    size_t n = text ? fread(text, 1, MAX_RECORD + 1, f) : 0;
    bool ok = text && !ferror(f) && n <= MAX_RECORD;
    fclose(f);
    if (!ok) {
        free(text);
        return NULL;
    }
    text[n] = '\0';
    return text;
}

/* Whether name is a generated fused op's name: clops_fused_ and hex digits. */
static bool fused_name(const char *name)
{
    static const char prefix[] = "clops_fused_";
    if (!name || strncmp(name, prefix, sizeof prefix - 1) != 0 || strlen(name) > 64)
        return false;
    const char *c = name + sizeof prefix - 1;
    if (!*c)
        return false;
    for (; *c; c++)
        if (!strchr("0123456789abcdef", *c))
            return false;
    return true;
}

/* The fused op a record defines, registered in this process if it is not
 * yet (NULL: a malformed record, or registration failed). */
static const clops_op *fused_op(const cJSON *doc, int *n_in)
{
    const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(doc, "name"));
    const char *expr = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(doc, "expr"));
    const char *helpers = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(doc, "helpers"));
    const char *result = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(doc, "result"));
    const cJSON *inputs = cJSON_GetObjectItemCaseSensitive(doc, "inputs");
    if (!fused_name(name) || !expr || !result || !cJSON_IsNumber(inputs) ||
        inputs->valuedouble < 1 || inputs->valuedouble > 4)
        return NULL;
    *n_in = (int)inputs->valuedouble;
    const clops_op *op = NULL;
    if (clops_op_find(name, &op) == CLOPS_OK)
        return op;
    clops_clear_error();
    char schema[160];
    int len = snprintf(schema, sizeof schema, "%s(", name);
    for (int j = 0; j < *n_in; j++)
        len += snprintf(schema + len, sizeof schema - (size_t)len, "%sTensor %c", j ? ", " : "",
                        'a' + j);
    snprintf(schema + len, sizeof schema - (size_t)len, ") -> Tensor");
    clops_pointwise_def def = {.schema = schema,
                               .expr = expr,
                               .helpers = helpers && *helpers ? helpers : NULL,
                               .promotion = "none",
                               .result = result,
                               .variants = true};
    if (clops_pointwise_register(&def, &op) != CLOPS_OK) {
        clops_clear_error();
        return NULL;
    }
    return op;
}

/* Calls op on zero tensors of one recorded signature ({"dtypes": [...],
 * "rank": r}: every size 2) on d. */
static clops_status fused_call(const clops_op *op, int n_in, const cJSON *sig, clops_device *d)
{
    const cJSON *dts = cJSON_GetObjectItemCaseSensitive(sig, "dtypes");
    const cJSON *rank = cJSON_GetObjectItemCaseSensitive(sig, "rank");
    if (!cJSON_IsArray(dts) || cJSON_GetArraySize(dts) != n_in || !cJSON_IsNumber(rank) ||
        rank->valuedouble < 0 || rank->valuedouble > 8)
        return CLOPS_INVALID_ARGUMENT; /* 2^8 elements at most */
    int64_t sizes[8] = {2, 2, 2, 2, 2, 2, 2, 2};
    clops_tensor *ts[4] = {NULL};
    clops_value args[4], ret = clops_value_none();
    clops_status st = CLOPS_OK;
    for (int j = 0; j < n_in && !st; j++) {
        clops_dtype dt;
        st = clops_dtype_from_name(cJSON_GetStringValue(cJSON_GetArrayItem(dts, j)), &dt);
        if (!st)
            st = clops_zeros(d, dt, (int)rank->valuedouble, sizes, &ts[j]);
        args[j] = clops_value_tensor(ts[j]);
    }
    if (!st)
        st = clops_call_boxed(op, args, n_in, &ret, 1);
    if (!st)
        clops_tensor_release(ret.v.t);
    for (int j = 0; j < n_in; j++)
        clops_tensor_release(ts[j]);
    return st;
}

/* Builds every fused op recorded under <cache>/fused on d (one call per
 * signature, counted in pf). */
static void warm_fused(clops_device *d, pass_figures *pf)
{
    char root[4000], dir[4096], path[4400];
    if (!host_cache_dir(root, sizeof root))
        return;
    snprintf(dir, sizeof dir, "%s/fused", root);
    DIR *dp = opendir(dir);
    if (!dp)
        return;
    struct dirent *e;
    while ((e = readdir(dp)) != NULL) {
        size_t len = strlen(e->d_name);
        if (len < 6 || strcmp(e->d_name + len - 5, ".json") != 0)
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        char *text = read_record(path);
        cJSON *doc = text ? cJSON_Parse(text) : NULL;
        free(text);
        int n_in = 0;
        const clops_op *op = doc ? fused_op(doc, &n_in) : NULL;
        const cJSON *sigs = op ? cJSON_GetObjectItemCaseSensitive(doc, "signatures") : NULL;
        const cJSON *sig;
        cJSON_ArrayForEach(sig, sigs)
        {
            pf->calls++;
            pf->fused_calls++;
            if (fused_call(op, n_in, sig, d) != CLOPS_OK) {
                pf->failed_calls++;
                clops_clear_error();
            }
        }
        cJSON_Delete(doc);
    }
    closedir(dp);
}

/* Calls every case of ops[i] on d once, for the i with i % nshard == shard. */
static int warm_pass(const cli_suite *s, const clops_op *const *ops, int n, int shard, int nshard,
                     clops_device *d, cli_progress *p, pass_figures *pf)
{
    memset(pf, 0, sizeof *pf);
    host_kcache_stats before = {0}, after = {0};
    if (!host_is_cpu(d))
        host_kcache_get_stats(d, &before);
    double t0 = cli_now();
    for (int i = shard; i < n; i += nshard) {
        if (p)
            cli_progress_begin(p, clops_op_name(ops[i]));
        chk_opinfo info;
        clops_status st = chk_opinfo_init(ops[i], &info);
        if (st)
            return cli_status_error(st, "warming up %s", clops_op_name(ops[i]));
        for (int dt = 0; dt < CLOPS_DTYPE_COUNT; dt++) {
            if (!(s->dtypes & (1u << dt)))
                continue;
            chk_case *cases = NULL;
            int nc = 0;
            st = chk_cases(&info, s->set, (clops_dtype)dt, &cases, &nc, NULL, 0);
            for (int c = 0; st == CLOPS_OK && c < nc; c++) {
                clops_status cst = chk_call_case(&info, &cases[c], d, NULL);
                pf->calls++;
                pf->failed_calls += cst != CLOPS_OK;
                /* A dtype the op refuses: its other cases are refused too. */
                if (c == 0 && (cst == CLOPS_INVALID_DTYPE || cst == CLOPS_UNSUPPORTED))
                    break;
            }
            free(cases);
            clops_clear_error();
        }
        chk_opinfo_free(&info);
        if (p)
            cli_progress_end(p, true, NULL);
    }
    if (shard == 0)
        warm_fused(d, pf);
    pf->seconds = cli_now() - t0;
    if (!host_is_cpu(d)) {
        host_kcache_get_stats(d, &after);
        pf->programs_built = after.programs_built - before.programs_built;
        pf->programs_loaded = after.programs_loaded - before.programs_loaded;
        pf->kernels = after.kernel_misses - before.kernel_misses;
    }
    return CLI_EXIT_OK;
}

/* The JSON object of a pass. */
static cJSON *pass_json(const clops_device *d, const pass_figures *pf)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "device", clops_device_get_info(d)->index);
    cJSON_AddNumberToObject(o, "seconds", pf->seconds);
    cJSON_AddNumberToObject(o, "programs_built", (double)pf->programs_built);
    cJSON_AddNumberToObject(o, "programs_loaded", (double)pf->programs_loaded);
    cJSON_AddNumberToObject(o, "kernels", (double)pf->kernels);
    cJSON_AddNumberToObject(o, "calls", pf->calls);
    cJSON_AddNumberToObject(o, "fused_calls", pf->fused_calls);
    return o;
}

/* The argv of a child pass over device d with the parent's selection
 * (its strings live in buf); NULL-terminated, with room for two more. */
typedef struct child_cmd {
    char exe[4096], dev[16], dts[256];
    char *argv[72];
    int argc;
} child_cmd;

static bool child_command(const cli_args *args, const cli_suite *s, const clops_device *d,
                          child_cmd *c)
{
    if (!chk_self_exe(c->exe, sizeof c->exe))
        return false;
    snprintf(c->dev, sizeof c->dev, "%d", clops_device_get_info(d)->index);
    size_t n = 0;
    c->dts[0] = '\0';
    for (int dt = 0; dt < CLOPS_DTYPE_COUNT && n < sizeof c->dts; dt++)
        if (s->dtypes & (1u << dt))
            n += (size_t)snprintf(c->dts + n, sizeof c->dts - n, "%s%s", n ? "," : "",
                                  clops_dtype_name((clops_dtype)dt));
    /* The child repeats the parent's selection: the same options. */
    char *head[] = {c->exe, "warmup", "--child", "--device", c->dev, "--json", "-"};
    c->argc = 0;
    for (size_t k = 0; k < sizeof head / sizeof head[0]; k++)
        c->argv[c->argc++] = head[k];
    if (cli_value(args, "set")) {
        c->argv[c->argc++] = "--set";
        c->argv[c->argc++] = (char *)cli_value(args, "set");
    }
    if (s->dtypes_given) {
        c->argv[c->argc++] = "--dtype";
        c->argv[c->argc++] = c->dts;
    }
    for (int k = 0; k < cli_count(args, "op") && c->argc < 66; k++) {
        c->argv[c->argc++] = "--op";
        c->argv[c->argc++] = (char *)cli_value_at(args, "op", k);
    }
    c->argv[c->argc] = NULL;
    return true;
}

/* Runs a child's command and reads its figures into *pf. */
static bool run_child(char *const *argv, pass_figures *pf)
{
    char *env[] = {"CLOPS_PROGRESS=off", NULL};
    char *out = NULL;
    int code = -1;
    if (chk_spawn_capture(argv, env, &out, &code) != CLOPS_OK || code != 0) {
        free(out);
        return false;
    }
    cJSON *doc = cJSON_Parse(out);
    free(out);
    const cJSON *w = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(doc, "warmup"), 0);
    bool ok = cJSON_IsObject(w);
    if (ok) {
        memset(pf, 0, sizeof *pf);
        pf->seconds = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(w, "seconds"));
        pf->programs_built = (uint64_t)cJSON_GetNumberValue(
            cJSON_GetObjectItemCaseSensitive(w, "programs_built"));
        pf->programs_loaded = (uint64_t)cJSON_GetNumberValue(
            cJSON_GetObjectItemCaseSensitive(w, "programs_loaded"));
        pf->kernels = (uint64_t)cJSON_GetNumberValue(
            cJSON_GetObjectItemCaseSensitive(w, "kernels"));
        pf->calls = (int)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(w, "calls"));
        pf->fused_calls =
            (int)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(w, "fused_calls"));
    }
    cJSON_Delete(doc);
    return ok;
}

/* Runs the warm pass in a child process; *warm receives its figures. */
static bool child_pass(const cli_args *args, const cli_suite *s, const clops_device *d,
                       pass_figures *warm)
{
    child_cmd c;
    return child_command(args, s, d, &c) && run_child(c.argv, warm);
}

/* One process of a parallel cold pass. */
typedef struct shard_job {
    child_cmd cmd;
    char shard[32];
    pass_figures pf;
    bool ok;
} shard_job;

static void *shard_main(void *arg)
{
    shard_job *j = arg;
    j->ok = run_child(j->cmd.argv, &j->pf);
    return NULL;
}

/* The cold pass over d as `jobs` child processes at once, each calling every
 * jobs-th op; *pf receives the wall time and the summed counts. */
static int parallel_pass(const cli_args *args, const cli_suite *s, const clops_device *d,
                         int jobs, pass_figures *pf)
{
    memset(pf, 0, sizeof *pf);
    shard_job *j = calloc((size_t)jobs, sizeof *j);
    pthread_t *th = calloc((size_t)jobs, sizeof *th);
    bool *started = calloc((size_t)jobs, sizeof *started);
    int rc = (j && th && started) ? CLI_EXIT_OK : CLI_EXIT_RUNTIME;
    double t0 = cli_now();
    for (int k = 0; rc == CLI_EXIT_OK && k < jobs; k++) {
        if (!child_command(args, s, d, &j[k].cmd)) {
            rc = CLI_EXIT_RUNTIME;
            break;
        }
        snprintf(j[k].shard, sizeof j[k].shard, "%d/%d", k, jobs);
        j[k].cmd.argv[j[k].cmd.argc++] = "--shard";
        j[k].cmd.argv[j[k].cmd.argc++] = j[k].shard;
        j[k].cmd.argv[j[k].cmd.argc] = NULL;
        started[k] = pthread_create(&th[k], NULL, shard_main, &j[k]) == 0;
        if (!started[k])
            rc = CLI_EXIT_RUNTIME;
    }
    for (int k = 0; k < jobs && j && th && started; k++) {
        if (!started[k])
            continue;
        pthread_join(th[k], NULL);
        if (!j[k].ok)
            rc = rc ? rc : CLI_EXIT_RUNTIME;
        pf->programs_built += j[k].pf.programs_built;
        pf->programs_loaded += j[k].pf.programs_loaded;
        pf->kernels += j[k].pf.kernels;
        pf->calls += j[k].pf.calls;
        pf->fused_calls += j[k].pf.fused_calls;
    }
    pf->seconds = cli_now() - t0;
    if (rc)
        fprintf(stderr, "clops warmup: a warm-up process on %s failed\n", clops_device_label(d));
    free(j);
    free(th);
    free(started);
    return rc;
}

/* --jobs (default: the online CPUs), or 0 after an error message. */
static int jobs_option(const cli_args *args)
{
    const char *v = cli_value(args, "jobs");
    if (!v) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        return n < 1 ? 1 : n > 64 ? 64 : (int)n;
    }
    char *end = NULL;
    long n = strtol(v, &end, 10);
    if (!*v || *end || n < 1 || n > 256) {
        fprintf(stderr, "clops warmup: --jobs wants a whole number from 1 to 256, not '%s'\n", v);
        return 0;
    }
    return (int)n;
}

/* --shard K/N of a child into *k, *n (0/1 when absent); false when malformed. */
static bool shard_option(const cli_args *args, int *k, int *n)
{
    *k = 0;
    *n = 1;
    const char *v = cli_value(args, "shard");
    if (!v)
        return true;
    if (sscanf(v, "%d/%d", k, n) != 2 || *n < 1 || *k < 0 || *k >= *n) {
        fprintf(stderr, "clops warmup: --shard wants K/N with 0 <= K < N, not '%s'\n", v);
        return false;
    }
    return true;
}

/* Runs `clops warmup`. */
static int run_warmup(const cli_args *args)
{
    char dir[4096];
    if (!host_cache_dir(dir, sizeof dir)) {
        printf("The kernel cache is off (CLOPS_CACHE=0 or no home directory): nothing to warm "
               "up.\n");
        return CLI_EXIT_OK;
    }
    cli_suite s;
    int rc = cli_suite_options(args, CHK_SET_REPRESENTATIVE, 0, &s);
    if (rc)
        return rc;
    if (s.ops_from_globs && !cli_value(args, "set"))
        s.set = CHK_SET_REPRESENTATIVE;
    rc = cli_select_devices(args, CLI_DEVICES_OPENCL, &s.devs, &s.ndev);
    if (rc)
        return rc;
    const clops_op **ops = NULL;
    int n = 0;
    rc = cli_suite_ops(&s, &ops, &n);
    cJSON *doc = cli_json_document("warmup");
    cJSON *arr = doc ? cJSON_AddArrayToObject(doc, "warmup") : NULL;
    if (!arr)
        rc = rc ? rc : CLI_EXIT_RUNTIME;
    bool child = cli_flag(args, "child");
    int jobs = child ? 1 : jobs_option(args), shard = 0, nshard = 1, fused_total = 0;
    if (!rc && (jobs == 0 || !shard_option(args, &shard, &nshard)))
        rc = CLI_EXIT_USAGE;
    cli_table t;
    static const char *const h[] = {"device", "programs built", "kernels", "cold s", "warm s",
                                    "cold/warm"};
    cli_table_init(&t, "lrrrrr", 6, h);
    cli_progress p;
    if (!child)
        cli_progress_start(&p, CLI_PROGRESS_AUTO, "warmup", jobs > 1 && n > 1 ? "devices" : "ops",
                           jobs > 1 && n > 1 ? s.ndev : n * s.ndev);
    for (int k = 0; rc == CLI_EXIT_OK && k < s.ndev; k++) {
        pass_figures cold, warm;
        if (jobs > 1 && n > 1) {
            cli_progress_begin(&p, clops_device_label(s.devs[k]));
            rc = parallel_pass(args, &s, s.devs[k], jobs < n ? jobs : n, &cold);
            cli_progress_end(&p, rc == CLI_EXIT_OK, NULL);
        } else {
            rc = warm_pass(&s, ops, n, shard, nshard, s.devs[k], child ? NULL : &p, &cold);
        }
        if (rc)
            break;
        fused_total += cold.fused_calls;
        cJSON *o = pass_json(s.devs[k], &cold);
        if (!child) {
            bool have_warm = child_pass(args, &s, s.devs[k], &warm);
            cJSON_AddStringToObject(o, "label", clops_device_label(s.devs[k]));
            cJSON_AddNumberToObject(o, "cold_s", cold.seconds);
            if (have_warm)
                cJSON_AddNumberToObject(o, "warm_s", warm.seconds);
            else
                cJSON_AddNullToObject(o, "warm_s");
            char built[32], kern[32], cs[32], ws[32], ratio[32];
            snprintf(built, sizeof built, "%llu", (unsigned long long)cold.programs_built);
            snprintf(kern, sizeof kern, "%llu", (unsigned long long)cold.kernels);
            snprintf(cs, sizeof cs, "%.2f", cold.seconds);
            snprintf(ws, sizeof ws, "%s", "-");
            snprintf(ratio, sizeof ratio, "%s", "-");
            if (have_warm) {
                snprintf(ws, sizeof ws, "%.2f", warm.seconds);
                snprintf(ratio, sizeof ratio, "%.1fx",
                         warm.seconds > 0 ? cold.seconds / warm.seconds : NAN);
            }
            const char *row[] = {clops_device_label(s.devs[k]), built, kern, cs, ws, ratio};
            cli_table_row(&t, row);
        }
        cJSON_AddItemToArray(arr, o);
    }
    if (!child)
        cli_progress_finish(&p);
    const char *json = cli_value(args, "json");
    if (rc == CLI_EXIT_OK && !child && !(json && strcmp(json, "-") == 0)) {
        printf("Warm-up of the %s set (%d ops, %d process%s) into %s:\n", chk_set_name(s.set), n,
               jobs < n ? jobs : n, (jobs < n ? jobs : n) == 1 ? "" : "es", dir);
        cli_table_print(&t, stdout, "  ");
        printf("cold: building (or, on POCL, compiling through POCL's cache) every program, in "
               "--jobs processes at once; warm: a fresh process running the same calls with the "
               "cache filled.\n");
        if (fused_total)
            printf("Included: %d calls of fused ops torch.compile(backend=\"clops\") recorded "
                   "under %s/fused.\n",
                   fused_total, dir);
    }
    if (rc == CLI_EXIT_OK && json)
        rc = cli_json_write(doc, json);
    cli_table_free(&t);
    cJSON_Delete(doc);
    free(ops);
    free(s.devs);
    return rc;
}

const cli_command cli_cmd_warmup = {
    .name = "warmup",
    .summary = "compile every kernel of the standard op set into the disk cache ahead of time",
    .usage = "clops warmup [--device SEL]... [--set ci|representative|full] [--op GLOB]... "
             "[--dtype LIST]... [--jobs N] [--json FILE]",
    .help = "Calls every case of the chosen case set (default: representative) once on each "
            "selected device (default: every OpenCL device) without checking values, which "
            "builds every program and creates every kernel those cases need, in --jobs "
            "processes at once (default: one per online CPU), each calling a share of the ops; "
            "the binaries go to the disk cache (clops' own, or POCL's cache under "
            "<cache>/pocl on POCL devices).  It also calls the fused ops that "
            "torch.compile(backend=\"clops\") recorded under <cache>/fused, once per recorded "
            "signature.  It reports the time of that cold pass and of the same pass in a "
            "fresh child process with the cache filled: what the first calls of a new process "
            "cost after a warm-up.  With CLOPS_CACHE=0 there is nothing to warm and it says so.",
    .options = warmup_options,
    .min_pos = 0,
    .max_pos = 0,
    .run = run_warmup,
};
