/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tools/cli/report.c: the report model of tools/cli/report.h and its JSON
 * form (writing, and reading back into the model).  The aggregations the
 * renderers share and report_write_dir are in report_agg.c.
 *
 * The JSON layout is the contract documented in docs/json-format.md: change
 * both together.
 */
#include "tools/cli/report.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clops/tensor.h"
#include "core/error.h"

/* --- names -------------------------------------------------------------------- */

static const char *const status_names[] = {
#define RJ_STATUS_NAME(e, name) name,
    REPORT_STATUS_LIST(RJ_STATUS_NAME)
#undef RJ_STATUS_NAME
};
static const char *const kernel_names[] = {
#define RJ_KERNEL_NAME(e, name, human) name,
    REPORT_KERNEL_LIST(RJ_KERNEL_NAME)
#undef RJ_KERNEL_NAME
};
static const char *const kernel_humans[] = {
#define RJ_KERNEL_HUMAN(e, name, human) human,
    REPORT_KERNEL_LIST(RJ_KERNEL_HUMAN)
#undef RJ_KERNEL_HUMAN
};

const char *report_status_name(report_status s)
{
    return (int)s >= 0 && s < REPORT_STATUS_COUNT ? status_names[s] : "invalid";
}

bool report_status_from_name(const char *name, report_status *out)
{
    for (int i = 0; i < REPORT_STATUS_COUNT; i++)
        if (name && strcmp(name, status_names[i]) == 0) {
            *out = (report_status)i;
            return true;
        }
    return false;
}

const char *report_kernel_name(report_kernel k)
{
    return (int)k >= 0 && k < REPORT_KERNEL_COUNT ? kernel_names[k] : "invalid";
}

const char *report_kernel_human(report_kernel k)
{
    return (int)k >= 0 && k < REPORT_KERNEL_COUNT ? kernel_humans[k] : "invalid";
}

bool report_kernel_from_name(const char *name, report_kernel *out)
{
    for (int i = 0; i < REPORT_KERNEL_COUNT; i++)
        if (name && strcmp(name, kernel_names[i]) == 0) {
            *out = (report_kernel)i;
            return true;
        }
    return false;
}

/* --- building --------------------------------------------------------------------- */

void report_init(report *r, const char *command)
{
    memset(r, 0, sizeof *r);
    snprintf(r->clops_version, sizeof r->clops_version, "%s", clops_version());
    snprintf(r->command, sizeof r->command, "%s", command ? command : "");
    time_t now = time(NULL);
    struct tm tm;
    if (gmtime_r(&now, &tm))
        strftime(r->created, sizeof r->created, "%Y-%m-%dT%H:%M:%SZ", &tm);
    if (gethostname(r->host, sizeof r->host) != 0)
        r->host[0] = '\0';
    r->host[sizeof r->host - 1] = '\0';
    r->wall_s = NAN;
    r->baseline = -1;
}

void report_free(report *r)
{
    if (!r)
        return;
    for (int i = 0; i < r->nchecks; i++)
        free(r->checks[i].message);
    for (int i = 0; i < r->nbenches; i++)
        free(r->benches[i].message);
    for (int i = 0; i < r->nmodels; i++)
        free(r->models[i].message);
    free(r->checks);
    free(r->benches);
    free(r->models);
    free(r->devices);
    free(r->note);
    memset(r, 0, sizeof *r);
}

/* strdup that accepts NULL. */
static char *rj_strdup(const char *s)
{
    if (!s)
        return NULL;
    size_t n = strlen(s) + 1;
    char *p = malloc(n);
    if (p)
        memcpy(p, s, n);
    return p;
}

clops_status report_set_note(report *r, const char *note)
{
    free(r->note);
    r->note = NULL;
    if (note && *note && !(r->note = rj_strdup(note)))
        return CLOPS__HOST_OOM("report note");
    return CLOPS_OK;
}

/* Grows an array of elements of size `size` to hold one more. */
static bool rj_grow(void **arr, int *cap, int count, size_t size)
{
    if (count < *cap)
        return true;
    int ncap = *cap ? *cap * 2 : 16;
    void *p = realloc(*arr, (size_t)ncap * size);
    if (!p)
        return false;
    *arr = p;
    *cap = ncap;
    return true;
}

clops_status report_add_device(report *r, const clops_device_info *info, const char *label,
                               report_device **out)
{
    if (report_find_device(r, info->index))
        return clops__fail(CLOPS_INVALID_ARGUMENT, "report: device %d added twice", info->index);
    if (!rj_grow((void **)&r->devices, &r->devices_cap, r->ndevices, sizeof *r->devices))
        return CLOPS__HOST_OOM("report devices");
    report_device *d = &r->devices[r->ndevices++];
    memset(d, 0, sizeof *d);
    d->info = *info;
    snprintf(d->label, sizeof d->label, "%s", label ? label : "");
    d->copy_peak_gbs = d->launch_us = d->enqueue_us = NAN;
    d->build_cold_s = d->build_warm_s = d->compile_total_s = NAN;
    d->fma_peak_gflops = d->mma_peak_gflops = NAN;
    if (out)
        *out = d;
    return CLOPS_OK;
}

report_device *report_find_device(const report *r, int index)
{
    int pos = report_device_pos(r, index);
    return pos < 0 ? NULL : &r->devices[pos];
}

int report_ndevices_clops(const report *r)
{
    int n = 0;
    for (int i = 0; i < r->ndevices; i++)
        n += !r->devices[i].torch;
    return n;
}

int report_single_clops_device(const report *r)
{
    int pos = -1;
    for (int i = 0; i < r->ndevices; i++)
        if (!r->devices[i].torch) {
            if (pos >= 0)
                return -1;
            pos = i;
        }
    return pos;
}

int report_device_pos(const report *r, int index)
{
    for (int i = 0; i < r->ndevices; i++)
        if (r->devices[i].info.index == index)
            return i;
    return -1;
}

void report_check_init(report_check *c)
{
    memset(c, 0, sizeof *c);
    c->status = REPORT_SKIP;
    c->kernel = REPORT_KERNEL_NONE;
    c->max_abs_err = c->max_ulp_err = c->seconds = NAN;
}

void report_bench_init(report_bench *b)
{
    memset(b, 0, sizeof *b);
    b->status = REPORT_SKIP;
    b->kernel = REPORT_KERNEL_NONE;
    b->gbs = b->gflops = b->ratio_to_peak = b->host_us = b->device_us = NAN;
    b->bytes = b->flop = NAN;
    b->cold_compile_s = b->warm_first_call_s = NAN;
}

clops_status report_add_check(report *r, const report_check *c)
{
    if (!rj_grow((void **)&r->checks, &r->checks_cap, r->nchecks, sizeof *r->checks))
        return CLOPS__HOST_OOM("report checks");
    report_check *d = &r->checks[r->nchecks];
    *d = *c;
    if (d->status == REPORT_SKIP) {
        /* Nothing ran: no kernel, no name (docs/json-format.md). */
        d->kernel = REPORT_KERNEL_NONE;
        d->kernel_name[0] = '\0';
    }
    d->message = rj_strdup(c->message);
    if (c->message && !d->message)
        return CLOPS__HOST_OOM("report message");
    r->nchecks++;
    return CLOPS_OK;
}

clops_status report_add_bench(report *r, const report_bench *b)
{
    if (!rj_grow((void **)&r->benches, &r->benches_cap, r->nbenches, sizeof *r->benches))
        return CLOPS__HOST_OOM("report benches");
    report_bench *d = &r->benches[r->nbenches];
    *d = *b;
    if (d->status == REPORT_SKIP) {
        d->kernel = REPORT_KERNEL_NONE;
        d->kernel_name[0] = '\0';
    }
    d->message = rj_strdup(b->message);
    if (b->message && !d->message)
        return CLOPS__HOST_OOM("report message");
    r->nbenches++;
    return CLOPS_OK;
}

void report_model_init(report_model *m)
{
    memset(m, 0, sizeof *m);
    m->status = REPORT_SKIP;
    m->ms_per_step = m->fallbacks_per_step = NAN;
}

clops_status report_add_model(report *r, const report_model *m)
{
    if (!rj_grow((void **)&r->models, &r->models_cap, r->nmodels, sizeof *r->models))
        return CLOPS__HOST_OOM("report models");
    report_model *d = &r->models[r->nmodels];
    *d = *m;
    d->message = rj_strdup(m->message);
    if (m->message && !d->message)
        return CLOPS__HOST_OOM("report message");
    r->nmodels++;
    return CLOPS_OK;
}

report_summary report_summarize(const report *r)
{
    report_summary s = {0, 0, 0, 0};
    for (int i = 0; i < r->nchecks; i++)
        switch (r->checks[i].status) {
        case REPORT_PASS: s.passed++; break;
        case REPORT_FAIL: s.failed++; break;
        case REPORT_ERROR: s.failed++, s.errors++; break;
        default: s.skipped++; break;
        }
    return s;
}

/* --- JSON out ------------------------------------------------------------------------ */

/* Adds a number, or null for NAN/infinity; clears *ok on failure. */
static void rj_num(cJSON *o, const char *key, double v, bool *ok)
{
    cJSON *item = isfinite(v) ? cJSON_AddNumberToObject(o, key, v) : cJSON_AddNullToObject(o, key);
    if (!item)
        *ok = false;
}

/* Adds a string (NULL -> null). */
static void rj_str(cJSON *o, const char *key, const char *s, bool *ok)
{
    cJSON *item = s ? cJSON_AddStringToObject(o, key, s) : cJSON_AddNullToObject(o, key);
    if (!item)
        *ok = false;
}

/* Adds a boolean. */
static void rj_bool(cJSON *o, const char *key, bool v, bool *ok)
{
    if (!cJSON_AddBoolToObject(o, key, v))
        *ok = false;
}

cJSON *report_device_info_json(const clops_device_info *in, const char *label)
{
    bool ok = true;
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    rj_num(o, "index", in->index, &ok);
    rj_str(o, "label", label ? label : "", &ok);
    rj_str(o, "type", in->type == CLOPS_DEVICE_CPU ? "cpu" : "opencl", &ok);
    rj_str(o, "platform", in->platform_name, &ok);
    rj_str(o, "platform_version", in->platform_version, &ok);
    rj_str(o, "name", in->name, &ok);
    rj_str(o, "vendor", clops_vendor_name(in->vendor), &ok);
    rj_str(o, "vendor_name", in->vendor_name, &ok);
    rj_str(o, "driver", in->driver_version, &ok);
    rj_str(o, "device_version", in->device_version, &ok);
    rj_str(o, "opencl_c_version", in->opencl_c_version, &ok);
    rj_bool(o, "is_gpu", in->is_gpu, &ok);
    cJSON *cap = cJSON_AddObjectToObject(o, "capabilities");
    if (cap) {
        rj_bool(cap, "fp64", in->fp64, &ok);
        rj_bool(cap, "fp16", in->fp16, &ok);
        rj_num(cap, "compute_units", in->compute_units, &ok);
        rj_num(cap, "max_clock_mhz", in->max_clock_mhz, &ok);
        rj_num(cap, "global_mem_bytes", (double)in->global_mem_bytes, &ok);
        rj_num(cap, "max_alloc_bytes", (double)in->max_alloc_bytes, &ok);
        rj_num(cap, "local_mem_bytes", (double)in->local_mem_bytes, &ok);
        rj_num(cap, "max_work_group_size", (double)in->max_work_group_size, &ok);
        /* null: no limit (the CPU device) */
        rj_num(cap, "max_parameter_size",
               in->max_parameter_size == SIZE_MAX ? NAN : (double)in->max_parameter_size, &ok);
        rj_num(cap, "mem_base_addr_align", in->mem_base_addr_align, &ok);
    }
    if (!ok || !cap) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

/* The fields shared by check and bench result objects. */
static cJSON *rj_result_head(const char *kind, const char *op, int device, const char *dtype,
                             const char *case_name, report_status st, report_kernel k, bool *ok)
{
    cJSON *o = cJSON_CreateObject();
    if (!o) {
        *ok = false;
        return NULL;
    }
    rj_str(o, "kind", kind, ok);
    rj_str(o, "op", op, ok);
    rj_num(o, "device", device, ok);
    rj_str(o, "dtype", dtype, ok);
    rj_str(o, "case", case_name, ok);
    rj_str(o, "status", report_status_name(st), ok);
    rj_str(o, "kernel", report_kernel_name(k), ok);
    return o;
}

/* The performance summary (report_perf_summarize) into sum: the results
 * above the copy peak and per op family each device's speed against the
 * baseline (several devices) and share of its copy peak (its bandwidth
 * rows).  False when out of memory. */
static bool rj_perf_summary(const report *r, cJSON *sum)
{
    report_bench_table t;
    if (report_bench_table_build(r, &t) != CLOPS_OK)
        return false;
    report_perf_summary ps;
    report_perf_summarize(r, &t, &ps);
    report_bench_table_free(&t);
    bool ok = true, vs = report_perf_compares(&ps);
    rj_num(sum, "above_copy_peak", ps.above_peak, &ok);
    cJSON *fams = cJSON_AddArrayToObject(sum, "families");
    for (int f = 0; fams && ok && f < ps.nfamilies; f++) {
        const report_family_perf *fp = &ps.fam[f];
        cJSON *o = cJSON_CreateObject();
        if (!o || !cJSON_AddItemToArray(fams, o)) {
            cJSON_Delete(o);
            return false;
        }
        rj_str(o, "family", fp->family, &ok);
        rj_num(o, "rows", fp->rows, &ok);
        rj_num(o, "fastest_device",
               vs && fp->fastest >= 0 ? r->devices[fp->fastest].info.index : NAN, &ok);
        cJSON *devs = cJSON_AddArrayToObject(o, "devices");
        for (int j = 0; devs && ok && j < ps.ndevices; j++) {
            cJSON *d = cJSON_CreateObject();
            if (!d || !cJSON_AddItemToArray(devs, d)) {
                cJSON_Delete(d);
                return false;
            }
            rj_num(d, "device", r->devices[j].info.index, &ok);
            rj_num(d, "speed_vs_baseline", vs ? fp->speedup[j] : NAN, &ok);
            rj_num(d, "of_copy_peak", fp->of_ceiling[j], &ok);
            rj_num(d, "of_copy_peak_lowest", fp->of_ceiling_min[j], &ok);
            rj_num(d, "of_copy_peak_highest", fp->of_ceiling_max[j], &ok);
        }
        ok = ok && devs;
    }
    return ok && fams;
}

cJSON *report_to_json(const report *r)
{
    bool ok = true;
    cJSON *root = cJSON_CreateObject();
    if (!root)
        return NULL;
    rj_str(root, "clops_version", r->clops_version, &ok);
    rj_str(root, "command", r->command, &ok);
    rj_str(root, "created", r->created, &ok);
    rj_str(root, "host", r->host, &ok);
    rj_str(root, "mode", r->mode, &ok);
    rj_num(root, "wall_seconds", r->wall_s, &ok);
    rj_num(root, "baseline_device", r->baseline >= 0 ? r->baseline : NAN, &ok);
    rj_str(root, "discovery_note", r->note ? r->note : "", &ok);
    cJSON *devs = cJSON_AddArrayToObject(root, "devices");
    cJSON *res = cJSON_AddArrayToObject(root, "results");
    if (!devs || !res)
        ok = false;
    for (int i = 0; ok && i < r->ndevices; i++) {
        const report_device *d = &r->devices[i];
        cJSON *o = report_device_info_json(&d->info, d->label);
        if (!o || !cJSON_AddItemToArray(devs, o)) {
            cJSON_Delete(o);
            ok = false;
            break;
        }
        cJSON *m = cJSON_AddObjectToObject(o, "measured");
        if (!m) {
            ok = false;
            break;
        }
        rj_num(m, "copy_peak_gbs", d->copy_peak_gbs, &ok);
        rj_str(m, "copy_peak_kernel", d->copy_peak_kernel, &ok);
        rj_num(m, "launch_us", d->launch_us, &ok);
        rj_num(m, "enqueue_us", d->enqueue_us, &ok);
        rj_num(m, "build_cold_s", d->build_cold_s, &ok);
        rj_num(m, "build_warm_s", d->build_warm_s, &ok);
        rj_num(m, "compile_total_s", d->compile_total_s, &ok);
        rj_num(m, "fma_peak_gflops", d->fma_peak_gflops, &ok);
        rj_num(m, "mma_peak_gflops", d->mma_peak_gflops, &ok);
        if (d->torch) {
            /* A PyTorch column: "type": "torch" and how it ran. */
            cJSON *type = cJSON_CreateString("torch");
            if (!type || !cJSON_ReplaceItemInObjectCaseSensitive(o, "type", type)) {
                cJSON_Delete(type);
                ok = false;
            }
            rj_str(o, "settings", d->settings, &ok);
        }
    }
    for (int i = 0; ok && i < r->nchecks; i++) {
        const report_check *c = &r->checks[i];
        cJSON *o = rj_result_head("check", c->op, c->device, c->dtype, c->case_name, c->status,
                                  c->kernel, &ok);
        if (!o || !cJSON_AddItemToArray(res, o)) {
            cJSON_Delete(o);
            ok = false;
            break;
        }
        rj_str(o, "kernel_name", c->kernel_name, &ok);
        rj_num(o, "max_abs_error", c->max_abs_err, &ok);
        rj_num(o, "max_ulp_error", c->max_ulp_err, &ok);
        rj_num(o, "seconds", c->seconds, &ok);
        rj_str(o, "message", c->message, &ok);
    }
    for (int i = 0; ok && i < r->nbenches; i++) {
        const report_bench *b = &r->benches[i];
        cJSON *o = rj_result_head("bench", b->op, b->device, b->dtype, b->case_name, b->status,
                                  b->kernel, &ok);
        if (!o || !cJSON_AddItemToArray(res, o)) {
            cJSON_Delete(o);
            ok = false;
            break;
        }
        rj_str(o, "kernel_name", b->kernel_name, &ok);
        rj_str(o, "family", b->family, &ok);
        rj_num(o, "bytes_per_call", b->bytes, &ok);
        rj_num(o, "flop_per_call", b->flop, &ok);
        rj_num(o, "gbs", b->gbs, &ok);
        rj_num(o, "gflops", b->gflops, &ok);
        rj_num(o, "ratio_to_peak", b->ratio_to_peak, &ok);
        rj_num(o, "host_us_per_call", b->host_us, &ok);
        rj_num(o, "device_us_per_call", b->device_us, &ok);
        rj_num(o, "cold_compile_s", b->cold_compile_s, &ok);
        rj_num(o, "warm_first_call_s", b->warm_first_call_s, &ok);
        rj_num(o, "reps", b->reps, &ok);
        rj_str(o, "message", b->message, &ok);
        rj_str(o, "launches", b->launches, &ok);
    }
    cJSON *models = r->nmodels ? cJSON_AddArrayToObject(root, "models") : NULL;
    if (r->nmodels && !models)
        ok = false;
    for (int i = 0; ok && i < r->nmodels; i++) {
        const report_model *m = &r->models[i];
        cJSON *o = cJSON_CreateObject();
        if (!o || !cJSON_AddItemToArray(models, o)) {
            cJSON_Delete(o);
            ok = false;
            break;
        }
        rj_str(o, "model", m->model, &ok);
        rj_num(o, "device", m->device, &ok);
        rj_str(o, "status", report_status_name(m->status), &ok);
        rj_num(o, "ms_per_step", m->ms_per_step, &ok);
        rj_num(o, "fallbacks_per_step", m->fallbacks_per_step, &ok);
        rj_str(o, "message", m->message, &ok);
    }
    report_summary s = report_summarize(r);
    cJSON *sum = cJSON_AddObjectToObject(root, "summary");
    if (sum) {
        rj_num(sum, "passed", s.passed, &ok);
        rj_num(sum, "failed", s.failed, &ok);
        rj_num(sum, "skipped", s.skipped, &ok);
        rj_num(sum, "errors", s.errors, &ok);
        ok = ok && rj_perf_summary(r, sum);
    }
    if (!ok || !sum) {
        cJSON_Delete(root);
        return NULL;
    }
    return root;
}

/* --- JSON in ------------------------------------------------------------------------- */

/* String member into buf ("" when absent or null); false when of another type. */
static bool rj_get_str(const cJSON *o, const char *key, char *buf, size_t cap)
{
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, key);
    buf[0] = '\0';
    if (!it || cJSON_IsNull(it))
        return true;
    if (!cJSON_IsString(it) || !it->valuestring)
        return false;
    snprintf(buf, cap, "%s", it->valuestring);
    return true;
}

/* Number member, NAN when absent, null or not a number. */
static double rj_get_num(const cJSON *o, const char *key)
{
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(it) ? it->valuedouble : NAN;
}

/* Non-negative number member as uint64 (0 when absent). */
static uint64_t rj_get_u64(const cJSON *o, const char *key)
{
    double v = rj_get_num(o, key);
    if (!(v > 0))
        return 0;
    return v >= 18446744073709551615.0 ? UINT64_MAX : (uint64_t)v;
}

/* Boolean member (false when absent). */
static bool rj_get_bool(const cJSON *o, const char *key)
{
    return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, key));
}

/* Required integer member; false when missing or not an integer. */
static bool rj_get_int(const cJSON *o, const char *key, int *out)
{
    double v = rj_get_num(o, key);
    if (!isfinite(v) || v != floor(v) || v < -1e9 || v > 1e9)
        return false;
    *out = (int)v;
    return true;
}

/* Reads one device object into the report. */
static clops_status rj_read_device(const cJSON *o, const char *name, int i, report *r)
{
    clops_device_info in;
    memset(&in, 0, sizeof in);
    if (!cJSON_IsObject(o) || !rj_get_int(o, "index", &in.index) || in.index < 0)
        return clops__fail(CLOPS_INVALID_ARGUMENT, "%s: devices[%d]: missing or bad 'index'",
                           name, i);
    char type[16], vendor[32], label[24];
    rj_get_str(o, "type", type, sizeof type);
    in.type = strcmp(type, "cpu") == 0 ? CLOPS_DEVICE_CPU : CLOPS_DEVICE_OPENCL;
    rj_get_str(o, "vendor", vendor, sizeof vendor);
    in.vendor = CLOPS_VENDOR_OTHER;
    for (int v = 0; v < CLOPS_VENDOR_COUNT; v++)
        if (strcmp(vendor, clops_vendor_name((clops_vendor)v)) == 0)
            in.vendor = (clops_vendor)v;
    rj_get_str(o, "label", label, sizeof label);
    rj_get_str(o, "platform", in.platform_name, sizeof in.platform_name);
    rj_get_str(o, "platform_version", in.platform_version, sizeof in.platform_version);
    rj_get_str(o, "name", in.name, sizeof in.name);
    rj_get_str(o, "vendor_name", in.vendor_name, sizeof in.vendor_name);
    rj_get_str(o, "driver", in.driver_version, sizeof in.driver_version);
    rj_get_str(o, "device_version", in.device_version, sizeof in.device_version);
    rj_get_str(o, "opencl_c_version", in.opencl_c_version, sizeof in.opencl_c_version);
    in.is_gpu = rj_get_bool(o, "is_gpu");
    const cJSON *cap = cJSON_GetObjectItemCaseSensitive(o, "capabilities");
    if (cJSON_IsObject(cap)) {
        in.fp64 = rj_get_bool(cap, "fp64");
        in.fp16 = rj_get_bool(cap, "fp16");
        in.compute_units = (uint32_t)rj_get_u64(cap, "compute_units");
        in.max_clock_mhz = (uint32_t)rj_get_u64(cap, "max_clock_mhz");
        in.global_mem_bytes = rj_get_u64(cap, "global_mem_bytes");
        in.max_alloc_bytes = rj_get_u64(cap, "max_alloc_bytes");
        in.local_mem_bytes = rj_get_u64(cap, "local_mem_bytes");
        in.max_work_group_size = (size_t)rj_get_u64(cap, "max_work_group_size");
        in.max_parameter_size = cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(
                                    cap, "max_parameter_size"))
                                    ? SIZE_MAX
                                    : (size_t)rj_get_u64(cap, "max_parameter_size");
        in.mem_base_addr_align = (uint32_t)rj_get_u64(cap, "mem_base_addr_align");
    }
    report_device *d;
    clops_status st = report_add_device(r, &in, label, &d);
    if (st)
        return clops__error_prefix(st, "%s: devices[%d]", name, i);
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(o, "measured");
    if (cJSON_IsObject(m)) {
        d->copy_peak_gbs = rj_get_num(m, "copy_peak_gbs");
        rj_get_str(m, "copy_peak_kernel", d->copy_peak_kernel, sizeof d->copy_peak_kernel);
        d->launch_us = rj_get_num(m, "launch_us");
        d->enqueue_us = rj_get_num(m, "enqueue_us");
        d->build_cold_s = rj_get_num(m, "build_cold_s");
        d->build_warm_s = rj_get_num(m, "build_warm_s");
        d->fma_peak_gflops = rj_get_num(m, "fma_peak_gflops");
        d->mma_peak_gflops = rj_get_num(m, "mma_peak_gflops");
        d->compile_total_s = rj_get_num(m, "compile_total_s");
    }
    if (strcmp(type, "torch") == 0) {
        d->torch = true;
        if (!rj_get_str(o, "settings", d->settings, sizeof d->settings))
            return clops__fail(CLOPS_INVALID_ARGUMENT, "%s: devices[%d]: 'settings' is not a "
                               "string", name, i);
    }
    return CLOPS_OK;
}

/* Reads one result object (check or bench) into the report. */
static clops_status rj_read_result(const cJSON *o, const char *name, int i, report *r)
{
    char kind[16], status[16], kernel[16], kernel_name[96], message[4096];
    char op[REPORT_NAME_MAX], dtype[32], case_name[REPORT_NAME_MAX];
    int device;
    if (!cJSON_IsObject(o))
        return clops__fail(CLOPS_INVALID_ARGUMENT, "%s: results[%d] is not an object", name, i);
    if (!rj_get_str(o, "kind", kind, sizeof kind) || !rj_get_str(o, "op", op, sizeof op) ||
        !rj_get_str(o, "dtype", dtype, sizeof dtype) ||
        !rj_get_str(o, "case", case_name, sizeof case_name) ||
        !rj_get_str(o, "status", status, sizeof status) ||
        !rj_get_str(o, "kernel", kernel, sizeof kernel) ||
        !rj_get_str(o, "kernel_name", kernel_name, sizeof kernel_name) ||
        !rj_get_str(o, "message", message, sizeof message))
        return clops__fail(CLOPS_INVALID_ARGUMENT, "%s: results[%d]: a text field has a "
                           "non-string value", name, i);
    report_status st;
    report_kernel k = REPORT_KERNEL_NONE;
    if (!op[0] || !rj_get_int(o, "device", &device) || !report_status_from_name(status, &st) ||
        (kernel[0] && !report_kernel_from_name(kernel, &k)))
        return clops__fail(CLOPS_INVALID_ARGUMENT,
                           "%s: results[%d]: missing or bad 'op', 'device', 'status' or "
                           "'kernel'",
                           name, i);
    if (!report_find_device(r, device))
        return clops__fail(CLOPS_INVALID_ARGUMENT,
                           "%s: results[%d]: device %d is not in 'devices'", name, i, device);
    const char *msg = cJSON_IsString(cJSON_GetObjectItemCaseSensitive(o, "message")) ? message
                                                                                      : NULL;
    if (strcmp(kind, "check") == 0) {
        report_check c;
        report_check_init(&c);
        memcpy(c.op, op, sizeof c.op);
        memcpy(c.dtype, dtype, sizeof c.dtype);
        memcpy(c.case_name, case_name, sizeof c.case_name);
        c.device = device;
        c.status = st;
        c.kernel = k;
        memcpy(c.kernel_name, kernel_name, sizeof c.kernel_name);
        c.max_abs_err = rj_get_num(o, "max_abs_error");
        c.max_ulp_err = rj_get_num(o, "max_ulp_error");
        c.seconds = rj_get_num(o, "seconds");
        c.message = (char *)msg;
        return report_add_check(r, &c);
    }
    if (strcmp(kind, "bench") == 0) {
        report_bench b;
        report_bench_init(&b);
        memcpy(b.op, op, sizeof b.op);
        memcpy(b.dtype, dtype, sizeof b.dtype);
        memcpy(b.case_name, case_name, sizeof b.case_name);
        b.device = device;
        b.status = st;
        b.kernel = k;
        memcpy(b.kernel_name, kernel_name, sizeof b.kernel_name);
        rj_get_str(o, "family", b.family, sizeof b.family);
        if (!rj_get_str(o, "launches", b.launches, sizeof b.launches))
            return clops__fail(CLOPS_INVALID_ARGUMENT, "%s: results[%d]: 'launches' is not a "
                               "string", name, i);
        b.bytes = rj_get_num(o, "bytes_per_call");
        b.flop = rj_get_num(o, "flop_per_call");
        b.gbs = rj_get_num(o, "gbs");
        b.gflops = rj_get_num(o, "gflops");
        b.ratio_to_peak = rj_get_num(o, "ratio_to_peak");
        b.host_us = rj_get_num(o, "host_us_per_call");
        b.device_us = rj_get_num(o, "device_us_per_call");
        b.cold_compile_s = rj_get_num(o, "cold_compile_s");
        b.warm_first_call_s = rj_get_num(o, "warm_first_call_s");
        double reps = rj_get_num(o, "reps");
        b.reps = isfinite(reps) && reps >= 0 && reps < 1e9 ? (int)reps : 0;
        b.message = (char *)msg;
        return report_add_bench(r, &b);
    }
    return clops__fail(CLOPS_INVALID_ARGUMENT,
                       "%s: results[%d]: 'kind' must be \"check\" or \"bench\", not \"%s\"", name,
                       i, kind);
}

/* Reads one model row into the report. */
static clops_status rj_read_model(const cJSON *o, const char *name, int i, report *r)
{
    report_model m;
    report_model_init(&m);
    char status[16], message[1024];
    if (!cJSON_IsObject(o) || !rj_get_str(o, "model", m.model, sizeof m.model) ||
        !rj_get_str(o, "status", status, sizeof status) ||
        !rj_get_str(o, "message", message, sizeof message) ||
        !rj_get_int(o, "device", &m.device) || !report_status_from_name(status, &m.status))
        return clops__fail(CLOPS_INVALID_ARGUMENT,
                           "%s: models[%d]: missing or bad 'model', 'device', 'status' or "
                           "'message'",
                           name, i);
    if (!report_find_device(r, m.device))
        return clops__fail(CLOPS_INVALID_ARGUMENT,
                           "%s: models[%d]: device %d is not in 'devices'", name, i, m.device);
    m.ms_per_step = rj_get_num(o, "ms_per_step");
    m.fallbacks_per_step = rj_get_num(o, "fallbacks_per_step");
    m.message = cJSON_IsString(cJSON_GetObjectItemCaseSensitive(o, "message")) ? message : NULL;
    return report_add_model(r, &m);
}

clops_status report_from_json(const cJSON *root, const char *name, report *r)
{
    memset(r, 0, sizeof *r);
    r->wall_s = NAN;
    clops_status st = CLOPS_OK;
    const cJSON *devs = cJSON_GetObjectItemCaseSensitive(root, "devices");
    const cJSON *res = cJSON_GetObjectItemCaseSensitive(root, "results");
    char note[2048];
    if (!cJSON_IsObject(root) || !cJSON_IsArray(devs) || !cJSON_IsArray(res) ||
        !rj_get_str(root, "clops_version", r->clops_version, sizeof r->clops_version) ||
        !r->clops_version[0]) {
        st = clops__fail(CLOPS_INVALID_ARGUMENT,
                         "%s: not a clops report (needs 'clops_version', 'devices' and "
                         "'results')",
                         name);
        goto fail;
    }
    rj_get_str(root, "command", r->command, sizeof r->command);
    rj_get_str(root, "created", r->created, sizeof r->created);
    rj_get_str(root, "host", r->host, sizeof r->host);
    rj_get_str(root, "mode", r->mode, sizeof r->mode);
    r->wall_s = rj_get_num(root, "wall_seconds");
    double base = rj_get_num(root, "baseline_device");
    r->baseline = isfinite(base) && base >= 0 && base < 1e9 ? (int)base : -1;
    rj_get_str(root, "discovery_note", note, sizeof note);
    if ((st = report_set_note(r, note)))
        goto fail;
    int i = 0;
    for (const cJSON *d = devs->child; d; d = d->next, i++)
        if ((st = rj_read_device(d, name, i, r)))
            goto fail;
    i = 0;
    for (const cJSON *o = res->child; o; o = o->next, i++)
        if ((st = rj_read_result(o, name, i, r)))
            goto fail;
    const cJSON *models = cJSON_GetObjectItemCaseSensitive(root, "models");
    i = 0;
    for (const cJSON *o = cJSON_IsArray(models) ? models->child : NULL; o; o = o->next, i++)
        if ((st = rj_read_model(o, name, i, r)))
            goto fail;
    return CLOPS_OK;
fail:
    report_free(r);
    return st;
}

clops_status report_read_json(const char *path, report *r)
{
    memset(r, 0, sizeof *r);
    FILE *f = fopen(path, "rb");
    if (!f)
        return clops__fail(CLOPS_IO_ERROR, "%s: cannot open: %s", path, strerror(errno));
    strbuf sb = STRBUF_INIT;
    char chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
        sb_append_n(&sb, chunk, n);
    bool err = ferror(f);
    fclose(f);
    clops_status st = sb_finish(&sb, path);
    if (!st && err)
        st = clops__fail(CLOPS_IO_ERROR, "%s: read error", path);
    if (st) {
        sb_free(&sb);
        return st;
    }
    cJSON *root = cJSON_ParseWithLength(sb_str(&sb), sb.len);
    if (!root) {
        const char *at = cJSON_GetErrorPtr();
        long off = at && sb.data ? (long)(at - sb.data) : -1;
        sb_free(&sb);
        return clops__fail(CLOPS_INVALID_ARGUMENT, "%s: not valid JSON (near byte %ld)", path,
                           off);
    }
    sb_free(&sb);
    st = report_from_json(root, path, r);
    cJSON_Delete(root);
    return st;
}
