/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tools/cli/cmd_ops.c: `clops ops`, the registered operators with their
 * schemas, tags and the kernel a call would run on each device, and one
 * op's dispatch table with the provenance of each key's kernel.
 *
 *     clops ops [--op GLOB]... [--tag TAG]... [--device SEL]... [--verbose] [--json FILE]
 *     clops ops --table NAME
 */
#include <stdlib.h>
#include <string.h>

#include "clops/dispatch.h"
#include "tools/cli/cli.h"
#include "tools/cli/report.h"

static const cli_option ops_options[] = {
    CLI_OPTION_OP,
    {"tag", 't', CLI_OPT_LIST, "TAG", "only ops carrying the tag (pointwise, blas, view, ...)"},
    CLI_OPTION_DEVICE,
    {"table", 0, CLI_OPT_VALUE, "NAME", "print one op's dispatch table (every key, provenance)"},
    {"verbose", 'v', CLI_OPT_FLAG, NULL, "also print each op's dispatch table"},
    CLI_OPTION_JSON,
    CLI_OPTION_END,
};

/* How a call of op on d would run: "device", "override NVIDIA", "fallback",
 * "cpu" or "missing"; *kind receives the report's kernel kind. */
static const char *resolution(const clops_op *op, const clops_device *d, char *buf, size_t cap,
                              report_kernel *kind)
{
    clops_kernel_info ki;
    *kind = REPORT_KERNEL_NONE;
    if (clops_op_resolve(op, d, &ki) != CLOPS_OK || ki.provenance == CLOPS_PROV_MISSING) {
        snprintf(buf, cap, "missing");
        return buf;
    }
    if (clops_device_get_info(d)->type == CLOPS_DEVICE_CPU) {
        *kind = REPORT_KERNEL_REFERENCE;
        snprintf(buf, cap, "cpu");
    } else if (ki.provenance == CLOPS_PROV_FALLBACK) {
        *kind = REPORT_KERNEL_FALLBACK;
        snprintf(buf, cap, "fallback");
    } else if (ki.provenance == CLOPS_PROV_OVERRIDE ||
               (ki.key >= CLOPS_KEY_NVIDIA && ki.key <= CLOPS_KEY_OTHER)) {
        *kind = REPORT_KERNEL_OVERRIDE;
        snprintf(buf, cap, "override %s", clops_dispatch_key_name(ki.key));
    } else {
        *kind = REPORT_KERNEL_DEVICE;
        snprintf(buf, cap, "device");
    }
    return buf;
}

/* Whether op carries every --tag given (any of them when several). */
static bool tag_selected(const cli_args *a, const clops_op *op)
{
    int n = cli_count(a, "tag");
    if (n == 0)
        return true;
    for (int k = 0; k < n; k++) {
        char buf[256];
        snprintf(buf, sizeof buf, "%s", cli_value_at(a, "tag", k));
        for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok;
             tok = strtok_r(NULL, ",", &save))
            if (clops_op_has_tag(op, tok))
                return true;
    }
    return false;
}

/* Prints op's dispatch table: one line per key. */
static void print_table(const clops_op *op, FILE *f, const char *indent)
{
    cli_table t;
    static const char *const h[] = {"key", "kernel", "provenance", "stacked"};
    cli_table_init(&t, "lllr", 4, h);
    for (int k = 0; k < CLOPS_KEY_COUNT; k++) {
        clops_kernel_info ki;
        if (clops_op_kernel_info(op, (clops_dispatch_key)k, &ki) != CLOPS_OK)
            continue;
        char depth[16];
        snprintf(depth, sizeof depth, "%d", ki.depth);
        const char *row[] = {clops_dispatch_key_name((clops_dispatch_key)k),
                             ki.name ? ki.name : "-", clops_provenance_name(ki.provenance), depth};
        cli_table_row(&t, row);
    }
    cli_table_print(&t, f, indent);
    cli_table_free(&t);
}

/* The `kernels` object of an op result: per key {provenance, name, depth}. */
static cJSON *kernels_json(const clops_op *op)
{
    cJSON *o = cJSON_CreateObject();
    for (int k = 0; o && k < CLOPS_KEY_COUNT; k++) {
        clops_kernel_info ki;
        if (clops_op_kernel_info(op, (clops_dispatch_key)k, &ki) != CLOPS_OK)
            continue;
        cJSON *e = cJSON_AddObjectToObject(o, clops_dispatch_key_name((clops_dispatch_key)k));
        if (!e)
            continue;
        cJSON_AddStringToObject(e, "provenance", clops_provenance_name(ki.provenance));
        if (ki.name)
            cJSON_AddStringToObject(e, "name", ki.name);
        else
            cJSON_AddNullToObject(e, "name");
        cJSON_AddNumberToObject(e, "depth", ki.depth);
    }
    return o;
}

/* Appends the `op` results of one op (one per device) to the document. */
static void add_json(cJSON *results, const clops_op *op, clops_device *const *devs, int ndev)
{
    for (int i = 0; i < ndev; i++) {
        char how[64];
        report_kernel kind;
        resolution(op, devs[i], how, sizeof how, &kind);
        clops_kernel_info ki;
        clops_op_resolve(op, devs[i], &ki);
        cJSON *o = cJSON_CreateObject();
        if (!o)
            return;
        cJSON_AddStringToObject(o, "kind", "op");
        cJSON_AddStringToObject(o, "op", clops_op_name(op));
        cJSON_AddNumberToObject(o, "device", clops_device_get_info(devs[i])->index);
        cJSON_AddStringToObject(o, "dtype", "");
        cJSON_AddStringToObject(o, "case", "");
        cJSON_AddStringToObject(o, "status", kind == REPORT_KERNEL_NONE ? "skip" : "pass");
        cJSON_AddStringToObject(o, "kernel", report_kernel_name(kind));
        if (ki.name && kind != REPORT_KERNEL_NONE)
            cJSON_AddStringToObject(o, "kernel_name", ki.name);
        else
            cJSON_AddStringToObject(o, "kernel_name", "");
        if (kind == REPORT_KERNEL_NONE)
            cJSON_AddStringToObject(o, "message", "no kernel: the call would fail with "
                                                  "CLOPS_NOT_IMPLEMENTED");
        else
            cJSON_AddNullToObject(o, "message");
        cJSON_AddStringToObject(o, "schema", clops_op_schema(op));
        cJSON *tags = cJSON_AddArrayToObject(o, "tags");
        char buf[256];
        snprintf(buf, sizeof buf, "%s", clops_op_tags(op));
        for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tags && tok;
             tok = strtok_r(NULL, ",", &save))
            cJSON_AddItemToArray(tags, cJSON_CreateString(tok));
        cJSON *k = kernels_json(op);
        if (k)
            cJSON_AddItemToObject(o, "kernels", k);
        cJSON_AddItemToArray(results, o);
    }
}

/* Runs `clops ops`. */
static int run_ops(const cli_args *args)
{
    const cli_command *cmd = args->cmd;
    const char *table = cli_value(args, "table");
    if (table) {
        const clops_op *op = NULL;
        clops_status st = clops_op_find(table, &op);
        if (st)
            return cli_usage_error(cmd, "%s", clops_last_error());
        printf("%s\n  %s\n  tags: %s\n\n", clops_op_name(op), clops_op_schema(op),
               clops_op_tags(op)[0] ? clops_op_tags(op) : "-");
        print_table(op, stdout, "  ");
        return CLI_EXIT_OK;
    }
    clops_device **devs = NULL;
    int ndev = 0;
    int rc = cli_select_devices(args, CLI_DEVICES_ALL, &devs, &ndev);
    if (rc)
        return rc;
    const char *json = cli_value(args, "json");
    bool text = !(json && strcmp(json, "-") == 0);
    cJSON *doc = json ? cli_json_document("ops") : NULL;
    cJSON *results = doc ? cJSON_GetObjectItemCaseSensitive(doc, "results") : NULL;
    cJSON *jdevs = doc ? cJSON_GetObjectItemCaseSensitive(doc, "devices") : NULL;
    if (json && (!results || !jdevs)) {
        cJSON_Delete(doc);
        free(devs);
        cli_error("out of host memory");
        return CLI_EXIT_RUNTIME;
    }
    for (int i = 0; jdevs && i < ndev; i++)
        cJSON_AddItemToArray(jdevs, report_device_info_json(clops_device_get_info(devs[i]),
                                                            clops_device_label(devs[i])));
    const char *headers[3 + 16];
    char align[3 + 17];
    int ncols = 0;
    headers[ncols] = "op", align[ncols++] = 'l';
    headers[ncols] = "tags", align[ncols++] = 'l';
    int shown_dev = ndev < 16 ? ndev : 16;
    for (int i = 0; i < shown_dev; i++)
        headers[ncols] = clops_device_label(devs[i]), align[ncols++] = 'l';
    headers[ncols] = "schema", align[ncols++] = 'l';
    align[ncols] = '\0';
    cli_table t;
    cli_table_init(&t, align, ncols, headers);
    int count = clops_op_count(), nsel = 0;
    int fallbacks[16] = {0}, missing[16] = {0};
    bool verbose = cli_flag(args, "verbose");
    for (int i = 0; i < count; i++) {
        const clops_op *op = clops_op_at(i);
        if (!cli_op_selected(args, clops_op_name(op)) || !tag_selected(args, op))
            continue;
        nsel++;
        char how[16][64];
        const char *row[3 + 16];
        int c = 0;
        row[c++] = clops_op_name(op);
        row[c++] = clops_op_tags(op);
        for (int k = 0; k < shown_dev; k++) {
            report_kernel kind;
            row[c++] = resolution(op, devs[k], how[k], sizeof how[k], &kind);
            fallbacks[k] += kind == REPORT_KERNEL_FALLBACK;
            missing[k] += kind == REPORT_KERNEL_NONE;
        }
        row[c++] = clops_op_schema(op);
        if (text && verbose) {
            cli_table_row(&t, row);
            cli_table_print(&t, stdout, "");
            cli_table_free(&t);
            print_table(op, stdout, "      ");
            putchar('\n');
            cli_table_init(&t, align, ncols, headers);
        } else {
            cli_table_row(&t, row);
        }
        if (results)
            add_json(results, op, devs, ndev);
    }
    if (nsel == 0) {
        cli_table_free(&t);
        cJSON_Delete(doc);
        free(devs);
        char hint[512];
        cli_op_glob_hint(args, hint, sizeof hint);
        return cli_usage_error(cmd, "--op/--tag select no operator%s%s", hint[0] ? ": " : "",
                               hint);
    }
    if (text) {
        if (!verbose)
            cli_table_print(&t, stdout, "");
        printf("\n%d ops", nsel);
        for (int k = 0; k < shown_dev; k++)
            printf("; %s: %d CPU fallback%s, %d missing", clops_device_label(devs[k]), fallbacks[k],
                   fallbacks[k] == 1 ? "" : "s", missing[k]);
        printf("\n");
    }
    cli_table_free(&t);
    if (doc)
        rc = cli_json_write(doc, json);
    cJSON_Delete(doc);
    free(devs);
    return rc;
}

const cli_command cli_cmd_ops = {
    .name = "ops",
    .summary = "the registered operators, their schemas and which kernel serves each device",
    .usage = "clops ops [--op GLOB]... [--tag TAG]... [--device SEL]... [--verbose] [--json FILE]"
             "\n       clops ops --table NAME",
    .help = "Lists the registered operators in registry order: the name, tags, for each "
            "selected device (default: every device) the kernel a call would run there "
            "(clops_op_resolve: device = the generic OpenCL kernel, override KEY = a vendor "
            "key's kernel, fallback = the boxed CPU fallback, cpu = the reference kernel on "
            "the CPU device, missing = the call fails with CLOPS_NOT_IMPLEMENTED) and the "
            "canonical schema; the last line counts the ops and, per device, the CPU "
            "fallbacks.  --table NAME prints one op's dispatch table: every dispatch key with "
            "its kernel's label, where it came from (kernel, structured, override, fallback, "
            "missing) and how many kernels are stacked there; --verbose prints that table "
            "under every op.",
    .options = ops_options,
    .min_pos = 0,
    .max_pos = 0,
    .run = run_ops,
};
