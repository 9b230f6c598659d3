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
 * under <cache>/pocl for POCL devices).  Then a child process (`--child`)
 * runs the same pass with the cache now filled, and the two times are
 * reported side by side.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

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
    {"child", 0, CLI_OPT_FLAG, NULL,
     "internal: run the pass on one device and print its figures as JSON"},
    CLI_OPTION_END,
};

/* What one pass over a device did. */
typedef struct pass_figures {
    double seconds;
    uint64_t programs_built, programs_loaded, kernels;
    int calls, failed_calls;
} pass_figures;

/* Calls every case of ops on d once. */
static int warm_pass(const cli_suite *s, const clops_op *const *ops, int n, clops_device *d,
                     cli_progress *p, pass_figures *pf)
{
    memset(pf, 0, sizeof *pf);
    host_kcache_stats before = {0}, after = {0};
    if (!host_is_cpu(d))
        host_kcache_get_stats(d, &before);
    double t0 = cli_now();
    for (int i = 0; i < n; i++) {
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
    return o;
}

/* Runs the warm pass in a child process; *warm receives its figures. */
static bool child_pass(const cli_args *args, const cli_suite *s, const clops_device *d,
                       pass_figures *warm)
{
    char exe[4096], dev[16], dts[256];
    if (!chk_self_exe(exe, sizeof exe))
        return false;
    snprintf(dev, sizeof dev, "%d", clops_device_get_info(d)->index);
    size_t n = 0;
    dts[0] = '\0';
    for (int dt = 0; dt < CLOPS_DTYPE_COUNT && n < sizeof dts; dt++)
        if (s->dtypes & (1u << dt))
            n += (size_t)snprintf(dts + n, sizeof dts - n, "%s%s", n ? "," : "",
                                  clops_dtype_name((clops_dtype)dt));
    /* The child repeats the parent's selection: the same options. */
    char *argv[64] = {exe, "warmup", "--child", "--device", dev, "--json", "-"};
    int argc = 7;
    if (cli_value(args, "set")) {
        argv[argc++] = "--set";
        argv[argc++] = (char *)cli_value(args, "set");
    }
    if (s->dtypes_given) {
        argv[argc++] = "--dtype";
        argv[argc++] = dts;
    }
    for (int k = 0; k < cli_count(args, "op") && argc < 60; k++) {
        argv[argc++] = "--op";
        argv[argc++] = (char *)cli_value_at(args, "op", k);
    }
    argv[argc] = NULL;
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
        memset(warm, 0, sizeof *warm);
        warm->seconds = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(w, "seconds"));
        warm->programs_built = (uint64_t)cJSON_GetNumberValue(
            cJSON_GetObjectItemCaseSensitive(w, "programs_built"));
        warm->programs_loaded = (uint64_t)cJSON_GetNumberValue(
            cJSON_GetObjectItemCaseSensitive(w, "programs_loaded"));
        warm->kernels = (uint64_t)cJSON_GetNumberValue(
            cJSON_GetObjectItemCaseSensitive(w, "kernels"));
    }
    cJSON_Delete(doc);
    return ok;
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
    cli_table t;
    static const char *const h[] = {"device", "programs built", "kernels", "cold s", "warm s",
                                    "cold/warm"};
    cli_table_init(&t, "lrrrrr", 6, h);
    cli_progress p;
    if (!child)
        cli_progress_start(&p, CLI_PROGRESS_AUTO, "warmup", "ops", n * s.ndev);
    for (int k = 0; rc == CLI_EXIT_OK && k < s.ndev; k++) {
        pass_figures cold, warm;
        rc = warm_pass(&s, ops, n, s.devs[k], child ? NULL : &p, &cold);
        if (rc)
            break;
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
        printf("Warm-up of the %s set (%d ops) into %s:\n", chk_set_name(s.set), n, dir);
        cli_table_print(&t, stdout, "  ");
        printf("cold: this process, building (or, on POCL, compiling through POCL's cache) every "
               "program; warm: a fresh process running the same calls with the cache filled.\n");
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
             "[--dtype LIST]... [--json FILE]",
    .help = "Calls every case of the chosen case set (default: representative) once on each "
            "selected device (default: every OpenCL device) without checking values, which "
            "builds every program and creates every kernel those cases need; the binaries go "
            "to the disk cache (clops' own, or POCL's cache under <cache>/pocl on POCL "
            "devices).  It reports the time of that cold pass and of the same pass in a fresh "
            "child process with the cache filled: what the first calls of a new process cost "
            "after a warm-up.  With CLOPS_CACHE=0 there is nothing to warm and it says so.",
    .options = warmup_options,
    .min_pos = 0,
    .max_pos = 0,
    .run = run_warmup,
};
