/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tools/cli/cmd_devices.c: `clops devices`, the list of platforms and
 * devices with every field of their capability record, and the discovery
 * note that says why a device is missing.
 *
 * It works on a machine without any OpenCL platform: device 0 (the host
 * CPU) is always there, and the note explains the rest.
 */
#include <stdlib.h>
#include <string.h>

#include "host/host.h"
#include "tools/cli/cli.h"
#include "tools/cli/report.h"

static const cli_option devices_options[] = {
    CLI_OPTION_JSON,
    {"brief", 'b', CLI_OPT_FLAG, NULL, "only the summary table, not every capability"},
    CLI_OPTION_END,
};

/* "GPU", "CPU" (an OpenCL CPU device) or "host". */
static const char *device_kind(const clops_device_info *in)
{
    if (in->type == CLOPS_DEVICE_CPU)
        return "host";
    return in->is_gpu ? "GPU" : "CPU";
}

/* Prints the distinct platforms with their device counts. */
static void print_platforms(clops_device *const *devs, int n)
{
    cli_table t;
    static const char *const h[] = {"Platform", "Version", "Devices"};
    cli_table_init(&t, "llr", 3, h);
    for (int i = 0; i < n; i++) {
        const clops_device_info *in = clops_device_get_info(devs[i]);
        bool seen = false;
        for (int k = 0; k < i && !seen; k++)
            seen = strcmp(clops_device_get_info(devs[k])->platform_name, in->platform_name) == 0;
        if (seen)
            continue;
        int count = 0;
        for (int k = i; k < n; k++)
            count += strcmp(clops_device_get_info(devs[k])->platform_name, in->platform_name) == 0;
        char c[16], version[72];
        snprintf(c, sizeof c, "%d", count);
        /* Some drivers pack build details into the version: keep it short
         * here; the details below show it whole. */
        snprintf(version, sizeof version, "%.64s%s", in->platform_version,
                 strlen(in->platform_version) > 64 ? "..." : "");
        const char *row[] = {in->platform_name, version, c};
        cli_table_row(&t, row);
    }
    cli_table_print(&t, stdout, "  ");
    cli_table_free(&t);
}

/* Prints the one-line-per-device summary table. */
static void print_summary(clops_device *const *devs, int n)
{
    cli_table t;
    static const char *const h[] = {"#",      "Label", "Type", "Vendor", "Name", "Driver",
                                    "CUs",    "Memory", "fp64", "fp16"};
    cli_table_init(&t, "rllllrrrll", 10, h);
    for (int i = 0; i < n; i++) {
        const clops_device_info *in = clops_device_get_info(devs[i]);
        char idx[16], cu[16], mem[32];
        snprintf(idx, sizeof idx, "%d", in->index);
        snprintf(cu, sizeof cu, "%u", in->compute_units);
        cli_fmt_bytes(in->global_mem_bytes, mem, sizeof mem);
        const char *row[] = {idx,           clops_device_label(devs[i]), device_kind(in),
                             clops_vendor_name(in->vendor), in->name, in->driver_version,
                             cu,            mem, in->fp64 ? "yes" : "no", in->fp16 ? "yes" : "no"};
        cli_table_row(&t, row);
    }
    cli_table_print(&t, stdout, "  ");
    cli_table_free(&t);
}

/* Prints every field of one device's capability record. */
static void print_details(const clops_device *d)
{
    const clops_device_info *in = clops_device_get_info(d);
    bool color = cli_color(stdout);
    char a[64], b[64], c[64];
    printf("\n%sDevice %d: %s  %s%s\n", color ? "\033[1m" : "", in->index, clops_device_label(d),
           in->name, color ? "\033[0m" : "");
#define FIELD(label, ...)                                                                   \
    do {                                                                                    \
        printf("  %-22s", label);                                                           \
        printf(__VA_ARGS__);                                                                \
        putchar('\n');                                                                      \
    } while (0)
    FIELD("type", "%s (%s)", device_kind(in),
          in->type == CLOPS_DEVICE_CPU ? "reference kernels on host memory" : "OpenCL");
    FIELD("vendor", "%s (dispatch family: %s)", in->vendor_name, clops_vendor_name(in->vendor));
    FIELD("platform", "%s", in->platform_name);
    FIELD("platform version", "%s", in->platform_version);
    if (in->type != CLOPS_DEVICE_CPU) {
        FIELD("device version", "%s", in->device_version);
        FIELD("OpenCL C version", "%s", in->opencl_c_version);
    }
    FIELD("driver version", "%s", in->driver_version);
    FIELD("compute units", "%u", in->compute_units);
    if (in->max_clock_mhz)
        FIELD("max clock", "%u MHz", in->max_clock_mhz);
    FIELD("global memory", "%s", cli_fmt_bytes(in->global_mem_bytes, a, sizeof a));
    FIELD("max allocation", "%s", cli_fmt_bytes(in->max_alloc_bytes, b, sizeof b));
    if (in->type != CLOPS_DEVICE_CPU) {
        FIELD("local memory", "%s", cli_fmt_bytes(in->local_mem_bytes, c, sizeof c));
        FIELD("max work-group size", "%zu", in->max_work_group_size);
        FIELD("max parameter size", "%zu bytes", in->max_parameter_size);
        FIELD("base address align", "%u bits", in->mem_base_addr_align);
    }
    FIELD("float64", "%s%s", in->fp64 ? "yes" : "no",
          in->type == CLOPS_DEVICE_CPU ? "" : " (cl_khr_fp64)");
    FIELD("float16 arithmetic", "%s%s", in->fp16 ? "yes" : "no",
          in->type == CLOPS_DEVICE_CPU ? "" : " (cl_khr_fp16; storage works either way)");
    if (in->type != CLOPS_DEVICE_CPU)
        FIELD("kernel cache folder", "kernels/%s%s", d->cache_tag,
              d->cache_binaries ? "" : " (unused: POCL caches its own binaries)");
#undef FIELD
}

/* Builds the --json document. */
static cJSON *devices_json(clops_device *const *devs, int n)
{
    cJSON *doc = cli_json_document("devices");
    if (!doc)
        return NULL;
    cJSON *arr = cJSON_GetObjectItemCaseSensitive(doc, "devices");
    bool ok = true;
    for (int i = 0; i < n && ok; i++) {
        cJSON *o = report_device_info_json(clops_device_get_info(devs[i]),
                                           clops_device_label(devs[i]));
        ok = o && cJSON_AddItemToArray(arr, o);
        if (!ok) {
            cJSON_Delete(o);
            break;
        }
        if (devs[i]->info.type != CLOPS_DEVICE_CPU)
            ok = cJSON_AddStringToObject(o, "cache_tag", devs[i]->cache_tag) != NULL;
    }
    ok = ok && cJSON_AddStringToObject(doc, "discovery_note", clops_device_discovery_note());
    if (!ok) {
        cJSON_Delete(doc);
        return NULL;
    }
    return doc;
}

/* `clops devices`. */
static int devices_run(const cli_args *args)
{
    int n = 0;
    clops_status st = clops_device_count(&n);
    if (st)
        return cli_status_error(st, "device discovery failed");
    clops_device **devs = calloc((size_t)n, sizeof *devs);
    if (!devs) {
        cli_error("out of host memory");
        return CLI_EXIT_RUNTIME;
    }
    int rc = CLI_EXIT_OK;
    for (int i = 0; i < n && !rc; i++)
        if ((st = clops_device_get(i, &devs[i])))
            rc = cli_status_error(st, "device %d", i);
    const char *json = cli_value(args, "json");
    bool table = !json || strcmp(json, "-") != 0;
    if (!rc && table) {
        const char *note = clops_device_discovery_note();
        printf("clops %s: %d device%s (device 0 is the host CPU running the reference "
               "kernels)\n\nPlatforms:\n",
               clops_version(), n, n == 1 ? "" : "s");
        print_platforms(devs, n);
        printf("\nDevices:\n");
        print_summary(devs, n);
        if (!cli_flag(args, "brief"))
            for (int i = 0; i < n; i++)
                print_details(devs[i]);
        if (note && *note)
            printf("\nNote: %s\n", note);
        else if (n == 1)
            printf("\nNote: no OpenCL device found; only the CPU device is available.\n");
    }
    if (!rc && json) {
        cJSON *doc = devices_json(devs, n);
        if (!doc) {
            cli_error("out of host memory while building JSON");
            rc = CLI_EXIT_RUNTIME;
        } else {
            rc = cli_json_write(doc, json);
            cJSON_Delete(doc);
        }
    }
    free(devs);
    return rc;
}

const cli_command cli_cmd_devices = {
    .name = "devices",
    .summary = "List OpenCL platforms and devices with their capabilities",
    .usage = "clops devices [--brief] [--json FILE]",
    .help = "Lists every device clops can run on: device 0 is the host CPU (the plain-C\n"
            "reference kernels), then every OpenCL device of every platform. For each it\n"
            "prints the capability record (vendor family, driver, memory, work-group limits,\n"
            "fp64/fp16 support) and the folder of its compiled kernels in the cache. When a\n"
            "platform or device could not be used, a note says why.\n\n"
            "The selectors that --device accepts elsewhere are shown in the Label column\n"
            "(cpu, opencl:K); a device index or a substring of the name, vendor or platform\n"
            "works as well.",
    .options = devices_options,
    .min_pos = 0,
    .max_pos = 0,
    .run = devices_run,
};
