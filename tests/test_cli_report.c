/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/test_cli_report.c: the report model and writers of `clops compare`
 * (tools/cli/report*.c).
 *
 * A model with three devices, passing, failing, erroring and skipped cases,
 * CPU fallbacks, bandwidth and compute results is rendered to JSON, Markdown
 * and HTML.  The JSON is parsed back with cJSON and checked against the
 * fields docs/json-format.md documents, then read back into a model that
 * must render identically; the HTML must be self-contained (no http:// or
 * https:// reference, no script) and have a row per op; malformed
 * report.json files are refused with messages naming the file.
 *
 * Set CLOPS_TEST_REPORT_DIR to keep the rendered sample report there (used
 * to take the screenshot in docs/).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <cjson/cJSON.h>

#include "clops/tensor.h"
#include "core/strbuf.h"

#ifdef CLOPS_CLI_LIB
#include "tools/cli/report.h"
#else
#include "tools/cli/output.c"
#include "tools/cli/report.c"
#include "tools/cli/report_agg.c"
#include "tools/cli/report_html.c"
#include "tools/cli/report_md.c"
#endif

static char tmpdir[256];

static int setup_tmpdir(void **state)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/clops-test-report-XXXXXX");
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int remove_tmpdir(void **state)
{
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

/* Adds a device with measured figures. */
static void add_device(report *r, int index, const char *label, clops_vendor vendor, bool gpu,
                       const char *platform, const char *name, const char *driver, double peak,
                       double launch, double cold)
{
    clops_device_info in;
    memset(&in, 0, sizeof in);
    in.index = index;
    in.type = CLOPS_DEVICE_OPENCL;
    in.vendor = vendor;
    in.is_gpu = gpu;
    snprintf(in.name, sizeof in.name, "%s", name);
    snprintf(in.vendor_name, sizeof in.vendor_name, "%s",
             gpu ? "NVIDIA Corporation" : "AuthenticAMD");
    snprintf(in.platform_name, sizeof in.platform_name, "%s", platform);
    snprintf(in.platform_version, sizeof in.platform_version, "OpenCL 3.0 %s", driver);
    snprintf(in.device_version, sizeof in.device_version, "OpenCL 3.0");
    snprintf(in.driver_version, sizeof in.driver_version, "%s", driver);
    in.compute_units = gpu ? 132 : 16;
    in.global_mem_bytes = gpu ? 150ull << 30 : 64ull << 30;
    in.max_alloc_bytes = in.global_mem_bytes / 4;
    in.local_mem_bytes = 48 << 10;
    in.max_work_group_size = gpu ? 1024 : 4096;
    in.max_parameter_size = 4352;
    in.mem_base_addr_align = 1024;
    in.fp64 = true;
    in.fp16 = !gpu;
    report_device *d;
    assert_int_equal(report_add_device(r, &in, label, &d), CLOPS_OK);
    d->copy_peak_gbs = peak;
    snprintf(d->copy_peak_kernel, sizeof d->copy_peak_kernel, "%s",
             gpu ? "float per item" : "float4 per item, wg 64");
    d->launch_us = launch;
    d->enqueue_us = launch / 5;
    d->build_cold_s = cold;
    d->build_warm_s = cold / 20;
    d->compile_total_s = cold * 40;
}

static const char *const ops[] = {"add.Tensor", "mul.Tensor", "exp", "sum.dim_IntList",
                                  "_softmax", "native_layer_norm", "cumsum", "sort.stable",
                                  "mm", "where.self"};
#define NOPS (sizeof ops / sizeof ops[0])
static const char *const evil_op = "evil<script>alert(1)</script>|op";

/* The sample model: 3 devices, 10 ops (11 with the evil name). */
static void build_model(report *r, bool evil)
{
    report_init(r, "compare");
    snprintf(r->mode, sizeof r->mode, "representative");
    r->wall_s = 212.4;
    add_device(r, 1, "opencl:0", CLOPS_VENDOR_POCL, false, "Portable Computing Language",
               "pthread-skylake-avx512-AMD EPYC 7B13", "3.1+debian", 23.1, 45, 0.92);
    add_device(r, 2, "opencl:1", CLOPS_VENDOR_POCL, false, "Portable Computing Language",
               "cpu-x86-64-AMD EPYC 9454 (16 cores)", "5.0", 128.4, 55, 0.9);
    add_device(r, 3, "opencl:2", CLOPS_VENDOR_NVIDIA, true, "NVIDIA CUDA", "NVIDIA H200",
               "550.90.07", 4262, 15, 0.23);
    static const char *const dtypes[] = {"float32", "float16", "int64"};
    static const char *const cases[] = {"5x7x11x13 contiguous", "5x7x11x13 transposed",
                                        "[8192,1] broadcast"};
    size_t nops = NOPS + (evil ? 1 : 0);
    for (size_t o = 0; o < nops; o++) {
        const char *op = o < NOPS ? ops[o] : evil_op;
        for (int dev = 1; dev <= 3; dev++)
            for (int t = 0; t < 3; t++)
                for (int k = 0; k < 3; k++) {
                    report_check c;
                    report_check_init(&c);
                    snprintf(c.op, sizeof c.op, "%s", op);
                    snprintf(c.dtype, sizeof c.dtype, "%s", dtypes[t]);
                    snprintf(c.case_name, sizeof c.case_name, "%s", cases[k]);
                    c.device = dev;
                    c.status = REPORT_PASS;
                    c.kernel = REPORT_KERNEL_DEVICE;
                    bool flt = t < 2;
                    c.max_abs_err = flt ? (t == 0 ? 2.4e-7 : 9.8e-4) * (1 + (int)o % 3) : 0;
                    c.max_ulp_err = flt ? 1 + (int)o % 2 : NAN;
                    c.seconds = 0.01;
                    if (strcmp(op, "cumsum") == 0 && dev == 1 && t == 1)
                        c.kernel = REPORT_KERNEL_FALLBACK;
                    if (strcmp(op, "sort.stable") == 0 && dev == 3)
                        c.kernel = REPORT_KERNEL_FALLBACK;
                    if (strcmp(op, "sum.dim_IntList") == 0 && dev == 3)
                        c.kernel = REPORT_KERNEL_OVERRIDE;
                    if (strcmp(op, "native_layer_norm") == 0 && dev == 2 && t == 1 && k == 1) {
                        c.status = REPORT_FAIL;
                        c.max_abs_err = 0.0625;
                        c.max_ulp_err = 64;
                        c.message = "max abs error 0.0625 > tolerance 0.001 at index [2, 3, 0, "
                                    "7] | got 1.0625, want 1";
                    }
                    if (strcmp(op, "mm") == 0 && dev == 1 && t == 2) {
                        c.status = REPORT_SKIP;
                        c.max_abs_err = c.max_ulp_err = NAN;
                        c.kernel = REPORT_KERNEL_NONE;
                        c.message = "mm: int64 is not supported by CLBlast";
                    }
                    if (strcmp(op, "sort.stable") == 0 && dev == 2 && t == 0 && k == 2) {
                        c.status = REPORT_ERROR;
                        c.max_abs_err = c.max_ulp_err = NAN;
                        c.message = "sort.stable: clEnqueueNDRangeKernel failed: "
                                    "CL_OUT_OF_RESOURCES (-5) on opencl:1";
                    }
                    assert_int_equal(report_add_check(r, &c), CLOPS_OK);
                }
        for (int dev = 1; dev <= 3; dev++) {
            report_bench b;
            report_bench_init(&b);
            snprintf(b.op, sizeof b.op, "%s", op);
            snprintf(b.dtype, sizeof b.dtype, "float32");
            snprintf(b.family, sizeof b.family, "%s",
                     strcmp(op, "mm") == 0                ? "matrix"
                     : strstr(op, "sum") || op[0] == '_' ? "reduction"
                     : strstr(op, "sort") || strstr(op, "cumsum") ? "other"
                                                                  : "pointwise");
            snprintf(b.case_name, sizeof b.case_name, "%s",
                     strcmp(op, "mm") == 0 ? "4096x4096x4096" : "[8192,8192]");
            b.device = dev;
            b.status = REPORT_PASS;
            b.kernel = REPORT_KERNEL_DEVICE;
            double peak = r->devices[dev - 1].copy_peak_gbs;
            double eff = 0.35 + 0.06 * (double)((o * 7 + (size_t)dev * 3) % 10);
            if (strcmp(op, "mm") == 0) {
                b.gflops = dev == 3 ? 31000 : dev == 2 ? 30 : 4.1;
                b.flop = 2.0 * 4096 * 4096 * 4096;
            } else {
                b.gbs = peak * eff;
                b.ratio_to_peak = eff;
                b.bytes = 3.0 * 8192 * 8192 * 4;
            }
            b.device_us = 805306368.0 / (peak * eff * 1e3);
            b.host_us = r->devices[dev - 1].enqueue_us * 1.3;
            b.cold_compile_s = r->devices[dev - 1].build_cold_s * 1.1;
            b.warm_first_call_s = r->devices[dev - 1].build_warm_s * 1.2;
            b.reps = 20;
            if (strcmp(op, "sort.stable") == 0 && dev == 3)
                b.kernel = REPORT_KERNEL_FALLBACK;
            if (strcmp(op, "cumsum") == 0 && dev == 2) {
                b.status = REPORT_SKIP;
                b.kernel = REPORT_KERNEL_NONE;
                b.gbs = b.ratio_to_peak = b.bytes = NAN;
                b.message = "cumsum: skipped by --op filter";
            }
            assert_int_equal(report_add_bench(r, &b), CLOPS_OK);
        }
    }
}

/* Renders one document into a malloc'd string. */
static char *render(const report *r, clops_status (*fn)(const report *, strbuf *))
{
    strbuf sb = STRBUF_INIT;
    assert_int_equal(fn(r, &sb), CLOPS_OK);
    return sb_take(&sb);
}

/* The report as JSON text, parsed back with cJSON. */
static cJSON *json_of(const report *r)
{
    cJSON *j = report_to_json(r);
    assert_non_null(j);
    char *text = cJSON_Print(j);
    cJSON_Delete(j);
    assert_non_null(text);
    cJSON *back = cJSON_Parse(text);
    cJSON_free(text);
    assert_non_null(back);
    return back;
}

/* A string member's value (fails the test when absent). */
static const char *str_of(const cJSON *o, const char *key)
{
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!cJSON_IsString(it))
        fail_msg("'%s' is not a string", key);
    return it->valuestring;
}

static void json_has_the_documented_fields(void **state)
{
    report r;
    build_model(&r, false);
    cJSON *j = json_of(&r);
    assert_string_equal(str_of(j, "clops_version"), clops_version());
    assert_string_equal(str_of(j, "command"), "compare");
    const cJSON *devs = cJSON_GetObjectItemCaseSensitive(j, "devices");
    assert_true(cJSON_IsArray(devs));
    assert_int_equal(cJSON_GetArraySize(devs), 3);
    bool seen[8] = {false};
    const cJSON *d;
    cJSON_ArrayForEach(d, devs)
    {
        const cJSON *idx = cJSON_GetObjectItemCaseSensitive(d, "index");
        assert_true(cJSON_IsNumber(idx));
        assert_true(idx->valueint > 0 && idx->valueint < 8);
        seen[idx->valueint] = true;
        str_of(d, "platform");
        str_of(d, "name");
        str_of(d, "driver");
        assert_true(strcmp(str_of(d, "vendor"), "pocl") == 0 ||
                    strcmp(str_of(d, "vendor"), "nvidia") == 0);
        const cJSON *cap = cJSON_GetObjectItemCaseSensitive(d, "capabilities");
        assert_true(cJSON_IsObject(cap));
        assert_true(cJSON_IsBool(cJSON_GetObjectItemCaseSensitive(cap, "fp64")));
        assert_true(cJSON_IsBool(cJSON_GetObjectItemCaseSensitive(cap, "fp16")));
        assert_true(cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(cap, "global_mem_bytes")));
        const cJSON *m = cJSON_GetObjectItemCaseSensitive(d, "measured");
        assert_true(cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(m, "copy_peak_gbs")));
        assert_true(strstr(str_of(m, "copy_peak_kernel"), "per item") != NULL);
        assert_true(cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(m, "launch_us")));
    }
    /* No --baseline: null (the first device). */
    assert_true(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(j, "baseline_device")));
    const cJSON *res = cJSON_GetObjectItemCaseSensitive(j, "results");
    assert_int_equal(cJSON_GetArraySize(res), r.nchecks + r.nbenches);
    int passed = 0, failed = 0, skipped = 0;
    const cJSON *o;
    cJSON_ArrayForEach(o, res)
    {
        const char *kind = str_of(o, "kind");
        str_of(o, "op");
        str_of(o, "dtype");
        str_of(o, "case");
        const cJSON *dev = cJSON_GetObjectItemCaseSensitive(o, "device");
        assert_true(cJSON_IsNumber(dev) && seen[dev->valueint]);
        const char *st = str_of(o, "status");
        report_status s = REPORT_SKIP;
        assert_true(report_status_from_name(st, &s));
        report_kernel k;
        assert_true(report_kernel_from_name(str_of(o, "kernel"), &k));
        if (strcmp(kind, "check") == 0) {
            const cJSON *e = cJSON_GetObjectItemCaseSensitive(o, "max_abs_error");
            assert_true(cJSON_IsNumber(e) || cJSON_IsNull(e));
            assert_non_null(cJSON_GetObjectItemCaseSensitive(o, "max_ulp_error"));
            passed += s == REPORT_PASS;
            failed += s == REPORT_FAIL || s == REPORT_ERROR;
            skipped += s == REPORT_SKIP;
        } else {
            assert_string_equal(kind, "bench");
            assert_non_null(cJSON_GetObjectItemCaseSensitive(o, "gbs"));
            assert_non_null(cJSON_GetObjectItemCaseSensitive(o, "ratio_to_peak"));
            assert_true(str_of(o, "family")[0] != '\0');
            const cJSON *by = cJSON_GetObjectItemCaseSensitive(o, "bytes_per_call");
            const cJSON *fl = cJSON_GetObjectItemCaseSensitive(o, "flop_per_call");
            bool mm = strcmp(str_of(o, "op"), "mm") == 0;
            bool pass = strcmp(st, "pass") == 0;
            assert_true(mm || !pass ? cJSON_IsNull(by) : cJSON_IsNumber(by));
            assert_true(mm ? cJSON_IsNumber(fl) : cJSON_IsNull(fl));
            assert_non_null(cJSON_GetObjectItemCaseSensitive(o, "host_us_per_call"));
            assert_non_null(cJSON_GetObjectItemCaseSensitive(o, "cold_compile_s"));
            assert_non_null(cJSON_GetObjectItemCaseSensitive(o, "warm_first_call_s"));
        }
    }
    const cJSON *sum = cJSON_GetObjectItemCaseSensitive(j, "summary");
    assert_int_equal(cJSON_GetObjectItemCaseSensitive(sum, "passed")->valueint, passed);
    assert_int_equal(cJSON_GetObjectItemCaseSensitive(sum, "failed")->valueint, failed);
    assert_int_equal(cJSON_GetObjectItemCaseSensitive(sum, "skipped")->valueint, skipped);
    assert_int_equal(cJSON_GetObjectItemCaseSensitive(sum, "errors")->valueint, 1);
    assert_int_equal(failed, 2); /* one fail, one error */
    cJSON_Delete(j);
    report_free(&r);
}

static void unmeasured_figures_are_null(void **state)
{
    report r;
    build_model(&r, false);
    r.devices[0].copy_peak_gbs = NAN;
    cJSON *j = json_of(&r);
    const cJSON *d0 = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(j, "devices"), 0);
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(d0, "measured");
    assert_true(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(m, "copy_peak_gbs")));
    /* mm has GFLOP/s only: its gbs is null. */
    const cJSON *o;
    bool found = false;
    cJSON_ArrayForEach(o, cJSON_GetObjectItemCaseSensitive(j, "results"))
    {
        if (strcmp(str_of(o, "op"), "mm") == 0 && strcmp(str_of(o, "kind"), "bench") == 0) {
            assert_true(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(o, "gbs")));
            assert_true(cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(o, "gflops")));
            found = true;
        }
    }
    assert_true(found);
    cJSON_Delete(j);
    report_free(&r);
}

static void json_reads_back_into_an_identical_report(void **state)
{
    report r, back;
    build_model(&r, true);
    cJSON *j = report_to_json(&r);
    assert_int_equal(report_from_json(j, "mem.json", &back), CLOPS_OK);
    cJSON_Delete(j);
    assert_int_equal(back.ndevices, r.ndevices);
    assert_int_equal(back.nchecks, r.nchecks);
    assert_int_equal(back.nbenches, r.nbenches);
    assert_string_equal(back.devices[2].info.name, "NVIDIA H200");
    assert_int_equal(back.devices[2].info.vendor, CLOPS_VENDOR_NVIDIA);
    assert_int_equal(back.devices[2].info.global_mem_bytes, 150ull << 30);
    char *a = render(&r, report_render_md), *b = render(&back, report_render_md);
    assert_string_equal(a, b);
    free(a);
    free(b);
    a = render(&r, report_render_html);
    b = render(&back, report_render_html);
    assert_string_equal(a, b);
    free(a);
    free(b);
    report_free(&r);
    report_free(&back);
}

static void markdown_has_a_row_per_op_and_escapes_cells(void **state)
{
    report r;
    build_model(&r, true);
    char *md = render(&r, report_render_md);
    for (size_t i = 0; i < NOPS; i++) {
        char row[160];
        snprintf(row, sizeof row, "\n| %s |", ops[i]);
        if (!strstr(md, row))
            fail_msg("no matrix row for %s", ops[i]);
    }
    assert_non_null(strstr(md, "evil<script>alert(1)</script>\\|op"));
    assert_non_null(strstr(md, "at index [2, 3, 0, 7] \\| got 1.0625"));
    assert_non_null(strstr(md, "## Devices"));
    assert_non_null(strstr(md, "NVIDIA H200"));
    assert_non_null(strstr(md, "`sort.stable`"));     /* fell back on the H200 */
    assert_non_null(strstr(md, "**FAIL** 8/9"));      /* layer_norm on opencl:1 */
    free(md);
    report_free(&r);
}

static void html_is_self_contained_with_a_row_per_op(void **state)
{
    report r;
    build_model(&r, true);
    char *html = render(&r, report_render_html);
    assert_null(strstr(html, "http://"));
    assert_null(strstr(html, "https://"));
    assert_null(strstr(html, "<script"));
    assert_null(strstr(html, "<link"));
    assert_null(strstr(html, "@import"));
    assert_null(strstr(html, "url("));
    assert_non_null(strstr(html, "<svg"));
    assert_non_null(strstr(html, "evil&lt;script&gt;alert(1)&lt;/script&gt;|op"));
    for (size_t i = 0; i < NOPS; i++) {
        char row[160];
        snprintf(row, sizeof row, "<tr><td class=\"op\">%s</td>", ops[i]);
        if (!strstr(html, row))
            fail_msg("no matrix row for %s", ops[i]);
    }
    int open = 0, close = 0;
    for (const char *p = html; (p = strstr(p, "<table")); p++)
        open++;
    for (const char *p = html; (p = strstr(p, "</table>")); p++)
        close++;
    assert_int_equal(open, close);
    assert_non_null(strstr(html, "<span class=\"chip op\">sort.stable</span>"));
    assert_non_null(strstr(html, "CL_OUT_OF_RESOURCES"));
    free(html);
    report_free(&r);
}

/* Occurrences of needle in hay. */
static int count_of(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = hay; (p = strstr(p, needle)); p++)
        n++;
    return n;
}

/* A bandwidth (gflops NAN) or compute bench of op on device 1. */
static void add_one_bench(report *r, const char *op, const char *family, double gbs,
                          double gflops)
{
    report_bench b;
    report_bench_init(&b);
    snprintf(b.op, sizeof b.op, "%s", op);
    snprintf(b.dtype, sizeof b.dtype, "float32");
    snprintf(b.family, sizeof b.family, "%s", family);
    snprintf(b.case_name, sizeof b.case_name, "[8192, 1024] contiguous");
    b.device = 1;
    b.status = REPORT_PASS;
    b.kernel = REPORT_KERNEL_DEVICE;
    if (isfinite(gflops)) {
        b.gflops = gflops;
        b.flop = 2.0 * 256 * 256 * 256;
    } else {
        b.gbs = gbs;
        b.bytes = 2.0 * 8192 * 1024 * 4;
        b.ratio_to_peak = gbs / r->devices[0].copy_peak_gbs;
    }
    b.device_us = 1000;
    b.reps = 20;
    assert_int_equal(report_add_bench(r, &b), CLOPS_OK);
}

/* One POCL device whose GPU-style copy kernels set a peak of 16 GB/s while
 * clops' own chunked copy_ reaches 20. */
static void one_device_model(report *r)
{
    report_init(r, "compare");
    add_device(r, 1, "opencl:0", CLOPS_VENDOR_POCL, false, "Portable Computing Language",
               "cpu-x86-64-AMD EPYC 9454 (16 cores)", "5.0", 16.0, 45, 0.9);
    add_one_bench(r, "copy_", "pointwise", 20.0, NAN);
    add_one_bench(r, "add.Tensor", "pointwise", 10.0, NAN);
    add_one_bench(r, "sum.dim_IntList", "reduction", 5.0, NAN);
    add_one_bench(r, "mm", "matrix", NAN, 40.0);
}

static void the_copy_peak_is_the_fastest_copy_measured(void **state)
{
    (void)state;
    report r;
    one_device_model(&r);
    /* Before: copy_ reads above the peak of the copy kernels. */
    assert_true(report_bench_above_peak(&r, &r.benches[0]));
    report_raise_peak_to_copy(&r, &r.devices[0]);
    assert_true(fabs(r.devices[0].copy_peak_gbs - 20.0) < 1e-9);
    assert_non_null(strstr(r.devices[0].copy_peak_kernel, "copy_"));
    assert_true(fabs(r.benches[1].ratio_to_peak - 0.5) < 1e-9);
    assert_true(isnan(r.benches[3].ratio_to_peak));
    for (int i = 0; i < r.nbenches; i++)
        assert_false(report_bench_above_peak(&r, &r.benches[i]));
    /* A faster copy kernel keeps its peak: copy_ is only ever a floor. */
    r.devices[0].copy_peak_gbs = 30.0;
    snprintf(r.devices[0].copy_peak_kernel, sizeof r.devices[0].copy_peak_kernel,
             "float4 chunked (CPU launch)");
    report_raise_peak_to_copy(&r, &r.devices[0]);
    assert_true(fabs(r.devices[0].copy_peak_gbs - 30.0) < 1e-9);
    assert_string_equal(r.devices[0].copy_peak_kernel, "float4 chunked (CPU launch)");
    /* A later, faster measurement raises it again; NAN never does. */
    report_raise_peak(&r, &r.devices[0], NAN, "nothing");
    assert_true(fabs(r.devices[0].copy_peak_gbs - 30.0) < 1e-9);
    report_raise_peak(&r, &r.devices[0], 40.0, "clEnqueueCopyBuffer, 32 MiB");
    assert_string_equal(r.devices[0].copy_peak_kernel, "clEnqueueCopyBuffer, 32 MiB");
    assert_true(fabs(r.benches[1].ratio_to_peak - 0.25) < 1e-9);
    /* The arithmetic ceilings likewise: mm's 40 GFLOP/s above an FMA peak
     * of 30 measured in a busier moment, then below one of 80. */
    r.devices[0].fma_peak_gflops = 30.0;
    r.benches[3].ratio_to_peak = 40.0 / 30.0;
    assert_true(report_bench_above_peak(&r, &r.benches[3]));
    report_raise_arith_peaks(&r, &r.devices[0], 20.0, NAN); /* lower: kept */
    assert_true(fabs(r.devices[0].fma_peak_gflops - 30.0) < 1e-9);
    report_raise_arith_peaks(&r, &r.devices[0], 80.0, NAN);
    assert_true(fabs(r.devices[0].fma_peak_gflops - 80.0) < 1e-9);
    assert_true(isnan(r.devices[0].mma_peak_gflops));
    assert_true(fabs(r.benches[3].ratio_to_peak - 0.5) < 1e-9);
    assert_false(report_bench_above_peak(&r, &r.benches[3]));
    assert_true(fabs(r.benches[1].ratio_to_peak - 0.25) < 1e-9); /* bandwidth rows: untouched */
    /* A float16 copy_ is no float32 copy: not a ceiling. */
    report_free(&r);
    one_device_model(&r);
    snprintf(r.benches[0].dtype, sizeof r.benches[0].dtype, "float16");
    report_raise_peak_to_copy(&r, &r.devices[0]);
    assert_true(fabs(r.devices[0].copy_peak_gbs - 16.0) < 1e-9);
    report_free(&r);
}

static void one_device_summary_is_against_the_ceiling(void **state)
{
    (void)state;
    report r;
    one_device_model(&r);
    report_raise_peak_to_copy(&r, &r.devices[0]);
    report_bench_table t;
    assert_int_equal(report_bench_table_build(&r, &t), CLOPS_OK);
    report_perf_summary ps;
    report_perf_summarize(&r, &t, &ps);
    report_bench_table_free(&t);
    assert_false(report_perf_compares(&ps));
    assert_int_equal(ps.above_peak, 0);
    int pw = -1, mx = -1;
    for (int f = 0; f < ps.nfamilies; f++) {
        if (strcmp(ps.fam[f].family, "pointwise") == 0)
            pw = f;
        if (strcmp(ps.fam[f].family, "matrix") == 0)
            mx = f;
    }
    assert_true(pw >= 0 && mx >= 0);
    /* copy_ at 1.0 and add at 0.5: geometric mean sqrt(0.5). */
    assert_int_equal(ps.fam[pw].ceiling_rows[0], 2);
    assert_true(fabs(ps.fam[pw].of_ceiling[0] - sqrt(0.5)) < 1e-9);
    assert_true(fabs(ps.fam[pw].of_ceiling_min[0] - 0.5) < 1e-9);
    assert_true(fabs(ps.fam[pw].of_ceiling_max[0] - 1.0) < 1e-9);
    /* No arithmetic peak is measured: the matrix family has no fraction. */
    assert_int_equal(ps.fam[mx].ceiling_rows[0], 0);
    assert_true(isnan(ps.fam[mx].of_ceiling[0]));
    {
        /* With one, a GFLOP/s row stands against it, and raising the copy
         * peak leaves its ratio alone. */
        report r2;
        one_device_model(&r2);
        int m = -1;
        for (int i = 0; i < r2.nbenches; i++)
            if (report_bench_is_compute(&r2.benches[i]))
                m = i;
        assert_true(m >= 0);
        r2.benches[m].ratio_to_peak = 0.4;
        report_raise_peak(&r2, &r2.devices[0], 1000.0, "a faster copy");
        assert_true(fabs(r2.benches[m].ratio_to_peak - 0.4) < 1e-12);
        report_bench_table t2;
        assert_int_equal(report_bench_table_build(&r2, &t2), CLOPS_OK);
        report_perf_summary ps2;
        report_perf_summarize(&r2, &t2, &ps2);
        report_bench_table_free(&t2);
        for (int f = 0; f < ps2.nfamilies; f++)
            if (strcmp(ps2.fam[f].family, "matrix") == 0) {
                assert_int_equal(ps2.fam[f].ceiling_rows[0], 1);
                assert_true(fabs(ps2.fam[f].of_ceiling[0] - 0.4) < 1e-9);
            }
        report_free(&r2);
    }
    char *md = render(&r, report_render_md);
    assert_non_null(strstr(md, "**opencl:0 against its ceilings** (copy peak 20.0 GB/s"));
    assert_non_null(strstr(md, "| pointwise | 2 | 71% | 50% | 100% |"));
    assert_non_null(strstr(md, "| reduction | 1 | 25% | 25% | 25% |"));
    assert_non_null(strstr(md, "| matrix | 1 | - | - | - |"));
    assert_non_null(strstr(md, "Benchmarks: 0 above the copy peak"));
    assert_null(strstr(md, "Fastest device per op family"));
    assert_null(strstr(md, "1.00x"));
    free(md);
    char *html = render(&r, report_render_html);
    assert_non_null(strstr(html, "Each op family against the device&#39;s ceiling"));
    assert_non_null(strstr(html, "<td class=\"num\">71%</td>"));
    assert_null(strstr(html, "Fastest device per op family"));
    assert_null(strstr(html, "1.00&times;"));
    assert_non_null(strstr(html, "0 above the copy peak"));
    free(html);
    /* report.json carries the same summary: no self-ratio, the share of
     * the ceiling per family. */
    cJSON *j = json_of(&r);
    cJSON *sum = cJSON_GetObjectItemCaseSensitive(j, "summary");
    assert_int_equal(cJSON_GetObjectItemCaseSensitive(sum, "above_copy_peak")->valueint, 0);
    cJSON *fams = cJSON_GetObjectItemCaseSensitive(sum, "families");
    assert_int_equal(cJSON_GetArraySize(fams), ps.nfamilies);
    cJSON *fam = cJSON_GetArrayItem(fams, pw);
    assert_string_equal(str_of(fam, "family"), "pointwise");
    assert_true(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(fam, "fastest_device")));
    cJSON *d0 = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(fam, "devices"), 0);
    assert_int_equal(cJSON_GetObjectItemCaseSensitive(d0, "device")->valueint, 1);
    assert_true(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(d0, "speed_vs_baseline")));
    assert_true(fabs(cJSON_GetObjectItemCaseSensitive(d0, "of_copy_peak")->valuedouble -
                     sqrt(0.5)) < 1e-9);
    d0 = cJSON_GetArrayItem(
        cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(fams, mx), "devices"), 0);
    assert_true(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(d0, "of_copy_peak")));
    report back;
    assert_int_equal(report_from_json(j, "test", &back), CLOPS_OK);
    assert_true(fabs(back.devices[0].copy_peak_gbs - 20.0) < 1e-9);
    report_free(&back);
    cJSON_Delete(j);
    report_free(&r);
}

/* Two devices and PyTorch on both peers (`compare --torch-defaults` on a
 * GPU host): each OpenCL device is compared with the PyTorch column on its
 * own peer, CUDA beside the NVIDIA GPU and the CPU beside POCL, not both
 * with the CUDA column that is the baseline. */
static void each_device_against_its_own_torch_peer(void **state)
{
    (void)state;
    report r;
    report_init(&r, "compare");
    add_device(&r, 1, "opencl:0", CLOPS_VENDOR_POCL, false, "Portable Computing Language",
               "cpu-x86-64-AMD EPYC 9454 (16 cores)", "5.0", 16.0, 45, 0.9);
    add_device(&r, 2, "opencl:1", CLOPS_VENDOR_NVIDIA, true, "NVIDIA CUDA", "NVIDIA H100",
               "580.159.04", 2800.0, 10, 0.1);
    static const char *const labels[] = {"torch-defaults:cuda", "torch-defaults:cpu"};
    for (int k = 0; k < 2; k++) {
        clops_device_info in;
        memset(&in, 0, sizeof in);
        in.index = REPORT_TORCH_INDEX + k;
        snprintf(in.name, sizeof in.name, "%s", k ? "CPU" : "NVIDIA H100");
        snprintf(in.platform_name, sizeof in.platform_name, "PyTorch");
        report_device *td;
        assert_int_equal(report_add_device(&r, &in, labels[k], &td), CLOPS_OK);
        td->torch = true;
    }
    r.baseline = REPORT_TORCH_INDEX;
    /* add.Tensor: POCL 1000 us, the H100 100, PyTorch CUDA 50, PyTorch CPU 2000. */
    static const struct {
        int device;
        double us;
    } rows[] = {{1, 1000}, {2, 100}, {REPORT_TORCH_INDEX, 50}, {REPORT_TORCH_INDEX + 1, 2000}};
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        report_bench b;
        report_bench_init(&b);
        snprintf(b.op, sizeof b.op, "add.Tensor");
        snprintf(b.dtype, sizeof b.dtype, "float32");
        snprintf(b.family, sizeof b.family, "pointwise");
        snprintf(b.case_name, sizeof b.case_name, "[8192, 1024] contiguous");
        b.device = rows[i].device;
        b.status = REPORT_PASS;
        b.kernel = REPORT_KERNEL_DEVICE;
        b.device_us = rows[i].us;
        b.reps = 3;
        assert_int_equal(report_add_bench(&r, &b), CLOPS_OK);
    }
    assert_int_equal(report_peer_pos(&r, 0), 3); /* POCL: PyTorch CPU */
    assert_int_equal(report_peer_pos(&r, 1), 2); /* the H100: PyTorch CUDA */
    assert_int_equal(report_peer_pos(&r, 3), 2); /* a PyTorch column: the baseline */
    report_bench_table t;
    assert_int_equal(report_bench_table_build(&r, &t), CLOPS_OK);
    report_perf_summary ps;
    report_perf_summarize(&r, &t, &ps);
    report_bench_table_free(&t);
    assert_int_equal(ps.nfamilies, 1);
    assert_true(fabs(ps.fam[0].speedup[0] - 2.0) < 1e-12); /* 2000 / 1000, not 50 / 1000 */
    assert_true(fabs(ps.fam[0].speedup[1] - 0.5) < 1e-12);
    char *md = render(&r, report_render_md);
    assert_non_null(strstr(md, "each OpenCL device against the PyTorch column of the same "
                               "settings on its own peer"));
    assert_non_null(strstr(md, "1000.0 µs · - GB/s · 2.00x"));
    assert_non_null(strstr(md, "100.0 µs · - GB/s · 0.50x"));
    free(md);
    /* One PyTorch peer (no ":cuda"/":cpu" labels): everything against it. */
    snprintf(r.devices[2].label, sizeof r.devices[2].label, "torch");
    assert_int_equal(report_peer_pos(&r, 0), 2);
    assert_string_equal(report_peer_note(&r), "");
    report_free(&r);
}

/* One POCL device and a PyTorch column beside it: the column takes part in
 * the performance tables, summaries and JSON, not in the device table,
 * correctness matrix, call costs or fallback lists. */
static void a_torch_column_beside_one_device(void **state)
{
    (void)state;
    report r;
    one_device_model(&r);
    report_check c;
    report_check_init(&c);
    snprintf(c.op, sizeof c.op, "add.Tensor");
    snprintf(c.dtype, sizeof c.dtype, "float32");
    snprintf(c.case_name, sizeof c.case_name, "5x7 contiguous");
    c.device = 1;
    c.status = REPORT_PASS;
    assert_int_equal(report_add_check(&r, &c), CLOPS_OK);
    clops_device_info in;
    memset(&in, 0, sizeof in);
    in.index = REPORT_TORCH_INDEX;
    snprintf(in.name, sizeof in.name, "CPU");
    snprintf(in.platform_name, sizeof in.platform_name, "PyTorch");
    snprintf(in.driver_version, sizeof in.driver_version, "2.15.0");
    report_device *td;
    assert_int_equal(report_add_device(&r, &in, "torch", &td), CLOPS_OK);
    td->torch = true;
    snprintf(td->settings, sizeof td->settings, "PyTorch 2.15.0 on the CPU (CPU, 16 threads)");
    r.baseline = REPORT_TORCH_INDEX;
    /* PyTorch twice as fast as clops on add, half as fast on mm. */
    int n = r.nbenches;
    for (int i = 0; i < n; i++) {
        report_bench b = r.benches[i];
        if (strcmp(b.op, "add.Tensor") != 0 && strcmp(b.op, "mm") != 0)
            continue;
        b.device = REPORT_TORCH_INDEX;
        b.device_us = strcmp(b.op, "mm") == 0 ? 2000 : 500;
        b.gbs = isfinite(b.bytes) ? b.bytes / b.device_us / 1e3 : NAN;
        b.gflops = isfinite(b.flop) ? b.flop / b.device_us / 1e3 : NAN;
        b.ratio_to_peak = NAN;
        snprintf(b.kernel_name, sizeof b.kernel_name, "aten::%.80s", b.op);
        b.message = NULL;
        assert_int_equal(report_add_bench(&r, &b), CLOPS_OK);
    }
    assert_int_equal(report_ndevices_clops(&r), 1);
    assert_int_equal(report_single_clops_device(&r), 0);
    /* The model table: clops with two CPU fallbacks per step, PyTorch. */
    report_model mr;
    report_model_init(&mr);
    snprintf(mr.model, sizeof mr.model, "GPT-2 124m forward");
    mr.device = 1;
    mr.status = REPORT_PASS;
    mr.ms_per_step = 812.25;
    mr.fallbacks_per_step = 2;
    mr.message = "aten::foo.default";
    assert_int_equal(report_add_model(&r, &mr), CLOPS_OK);
    mr.device = REPORT_TORCH_INDEX;
    mr.ms_per_step = 400;
    mr.fallbacks_per_step = NAN;
    mr.message = NULL;
    assert_int_equal(report_add_model(&r, &mr), CLOPS_OK);
    report_bench_table t;
    assert_int_equal(report_bench_table_build(&r, &t), CLOPS_OK);
    report_perf_summary ps;
    report_perf_summarize(&r, &t, &ps);
    report_bench_table_free(&t);
    assert_true(report_perf_compares(&ps));
    assert_int_equal(ps.baseline, 1);
    for (int f = 0; f < ps.nfamilies; f++) {
        const report_family_perf *fp = &ps.fam[f];
        if (strcmp(fp->family, "pointwise") == 0) {
            /* add: clops takes 1000 us, PyTorch 500: clops at 0.5x. */
            assert_true(fabs(fp->speedup[0] - 0.5) < 1e-12);
            assert_int_equal(fp->rows, 1);
            assert_int_equal(fp->measured[0], 2);
            assert_int_equal(fp->fastest, 1);
        }
        if (strcmp(fp->family, "matrix") == 0)
            assert_true(fabs(fp->speedup[0] - 2.0) < 1e-12);
        /* PyTorch has no ceiling. */
        assert_int_equal(fp->ceiling_rows[1], 0);
    }
    char *md = render(&r, report_render_md);
    /* Both summaries: the device against its ceilings, then against PyTorch. */
    assert_non_null(strstr(md, "**opencl:0 against its ceilings**"));
    assert_non_null(strstr(md, "| pointwise | 2 | "));
    assert_non_null(strstr(md, "speed: torch's time over the device's, geometric mean; above "
                               "1.00x: faster than PyTorch"));
    assert_non_null(strstr(md, "| pointwise | torch (1 of 1) | 0.50x | 1.00x |"));
    assert_non_null(strstr(md, "| matrix | opencl:0 (1 of 1) | 2.00x | 1.00x |"));
    assert_non_null(strstr(md, "over 4 ops on 1 device, timed beside PyTorch."));
    assert_non_null(strstr(md, "PyTorch column **torch**: PyTorch 2.15.0 on the CPU"));
    /* The performance table has the column; the other tables do not. */
    assert_non_null(strstr(md, "| opencl:0 (cpu-x86-64-AMD EPYC 9454 (16 cores)) | torch (CPU) |"));
    assert_non_null(strstr(md, "500.0 µs · 134.2 GB/s · 1.00x"));
    assert_int_equal(count_of(md, "| 1000 |"), 0);
    assert_int_equal(count_of(md, "torch (CPU)"), 1);
    assert_null(strstr(md, "**torch** (CPU):"));
    assert_non_null(strstr(md, "| GPT-2 124m forward | 812.2 ms/step, 2 CPU fallbacks/step "
                               "(aten::foo.default) | 400.0 ms/step |"));
    free(md);
    char *html = render(&r, report_render_html);
    assert_non_null(strstr(html, "Each op family against the device&#39;s ceiling"));
    assert_non_null(strstr(html, "Fastest per op family"));
    assert_non_null(strstr(html, "here PyTorch"));
    assert_non_null(strstr(html, "<b>PyTorch column torch:</b> PyTorch 2.15.0 on the CPU"));
    assert_non_null(strstr(html, "134.2 GB/s</td>"));
    assert_non_null(strstr(html, "<div class=\"num\">1</div><div class=\"lbl\">devices"));
    assert_null(strstr(html, "<td class=\"num\">1000</td>"));
    assert_non_null(strstr(html, "<td class=\"num\">400.0 ms/step</td>"));
    free(html);
    /* report.json: "type": "torch" with its settings, read back as such. */
    cJSON *j = json_of(&r);
    cJSON *devs = cJSON_GetObjectItemCaseSensitive(j, "devices");
    cJSON *tj = cJSON_GetArrayItem(devs, 1);
    assert_string_equal(str_of(tj, "type"), "torch");
    assert_string_equal(str_of(tj, "settings"), td->settings);
    assert_int_equal(cJSON_GetObjectItemCaseSensitive(j, "baseline_device")->valueint,
                     REPORT_TORCH_INDEX);
    report back;
    assert_int_equal(report_from_json(j, "test", &back), CLOPS_OK);
    assert_int_equal(back.ndevices, 2);
    assert_true(back.devices[1].torch && !back.devices[0].torch);
    assert_string_equal(back.devices[1].settings, td->settings);
    assert_int_equal(back.nmodels, 2);
    assert_string_equal(back.models[0].message, "aten::foo.default");
    assert_true(isnan(back.models[1].fallbacks_per_step));
    char *md1 = render(&r, report_render_md), *md2 = render(&back, report_render_md);
    assert_string_equal(md1, md2);
    free(md1);
    free(md2);
    report_free(&back);
    cJSON_Delete(j);
    report_free(&r);
}

/* The engine path of matrix, convolution and attention rows in words. */
static void engine_paths_are_named(void **state)
{
    (void)state;
    static const struct {
        const char *family, *launches, *path;
    } cases[] = {
        {"matrix", "gemm/mma/float16/a-k/b-n/128x128-w64x64-s3:gemm_mma", "mma 128x128-w64x64-s3"},
        {"matrix", "gemm/mma/bfloat16/a-m-plain/b-k/64x64-w32x32-s4/split:gemm_mma, "
                   "gemm/reduce/bfloat16:gemm_reduce",
         "mma 64x64-w32x32-s4, split-K"},
        {"matrix", "gemm/wgmma/bfloat16/a-k/b-n/wg128x128-k64-s1-tma-cs:gemm_mma",
         "wgmma wg128x128-k64-s1-tma-cs"},
        {"matrix", "gemm/wgmma/float32/a-k/b-k/wg128x128-s3-cs/3xtf32-s3-promote:gemm_mma",
         "wgmma wg128x128-s3-cs"},
        {"matrix", "gemm/fma/float32:gemm_fma", "FMA"},
        {"matrix", "gemm/cpu/float32:gemm_cpu", "FMA (CPU atom)"},
        {"matrix", "gemm/skinny/float32/m4/b-n/v4:gemm_skinny", "skinny"},
        {"matrix", "CLBlast", "CLBlast"},
        {"matrix", "pw/copy/all-dtypes/i32:pw_copy, CLBlast", "CLBlast"},
        {"conv", "gemm/cpu/float32/conv:gemm_cpu", "implicit GEMM, FMA (CPU atom)"},
        {"conv", "conv/float32-i32:conv_im2col, gemm/fma/float32:gemm_fma", "im2col + GEMM, FMA"},
        {"conv", "conv/float32-i32:conv_im2col, CLBlast", "im2col + GEMM, CLBlast"},
        {"conv", "conv/float32-i32:conv_depthwise", "depthwise"},
        {"attention", "attention-mma/float16/d64:attn_fwd", "fused, mma"},
        {"attention", "attention/float32/d256:attn_fwd", "fused, FMA"},
        {"pointwise", "pw/add/float32:pw_add", ""},
        {"matrix", "", ""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        report_bench b;
        report_bench_init(&b);
        snprintf(b.family, sizeof b.family, "%s", cases[i].family);
        snprintf(b.launches, sizeof b.launches, "%s", cases[i].launches);
        char buf[96];
        assert_string_equal(report_engine_path(&b, buf, sizeof buf), cases[i].path);
    }
    /* Shown beside the row's figures in both documents, kept in report.json. */
    report r;
    one_device_model(&r);
    snprintf(r.benches[3].launches, sizeof r.benches[3].launches,
             "gemm/mma/float16/a-k/b-n/64x64-w32x32-s4:gemm_mma");
    char *md = render(&r, report_render_md);
    assert_non_null(strstr(md, "40.0 GFLOP/s · mma 64x64-w32x32-s4 |"));
    free(md);
    char *html = render(&r, report_render_html);
    assert_non_null(strstr(html, "<span class=\"sub\">mma 64x64-w32x32-s4</span>"));
    free(html);
    cJSON *j = json_of(&r);
    report back;
    assert_int_equal(report_from_json(j, "test", &back), CLOPS_OK);
    assert_string_equal(back.benches[3].launches, r.benches[3].launches);
    report_free(&back);
    cJSON_Delete(j);
    report_free(&r);
}

static void devices_side_by_side_with_a_summary(void **state)
{
    report r;
    build_model(&r, false);
    r.baseline = 3; /* the H200 */
    for (int i = 0; i < r.nbenches; i++) {
        report_bench *b = &r.benches[i];
        if (strcmp(b->op, "add.Tensor") == 0 && b->device == 1) {
            b->ratio_to_peak = 4.8; /* what the old copy peak gave */
            b->gbs = r.devices[0].copy_peak_gbs * 4.8;
        }
    }
    char *html = render(&r, report_render_html);
    /* One performance row per op, a column group per device. */
    for (size_t i = 0; i < NOPS; i++) {
        char row[160];
        snprintf(row, sizeof row, "<tr><td><span class=\"op\">%s</span><span class=\"sub\">",
                 ops[i]);
        if (count_of(html, row) != 1)
            fail_msg("%d performance rows for %s", count_of(html, row), ops[i]);
    }
    assert_int_equal(count_of(html, "<th colspan=\"3\" class=\"dv\">"), 3);
    assert_non_null(strstr(html, "opencl:2 (baseline)"));
    /* Above the copy peak: said so, never as a percentage over 100. */
    assert_non_null(strstr(html, "above copy peak"));
    assert_null(strstr(html, "480%"));
    /* The summary at the top, before the device table. */
    const char *sum = strstr(html, "id=\"summary\"");
    assert_non_null(sum);
    assert_true(sum < strstr(html, "id=\"devices\""));
    assert_non_null(strstr(html, "Fastest device per op family"));
    assert_non_null(strstr(html, "Ops failing anywhere (2)"));
    assert_non_null(strstr(html, "Ops that fell back to the CPU (2)"));
    assert_non_null(strstr(html, "1 above the copy peak"));
    /* Charts in GB/s and GFLOP/s; skip reasons with counts. */
    assert_non_null(strstr(html, "GB/s (log scale)"));
    assert_non_null(strstr(html, "GFLOP/s (log scale)"));
    const char *skips = strstr(html, "id=\"skips\"");
    assert_non_null(skips);
    assert_non_null(strstr(skips, "cumsum: skipped by --op filter"));
    assert_non_null(strstr(skips, "mm: int64 is not supported by CLBlast"));
    free(html);
    char *md = render(&r, report_render_md);
    assert_non_null(strstr(md, "above copy peak"));
    assert_non_null(strstr(md, "**Fastest device per op family**"));
    assert_non_null(strstr(md, "relative to opencl:2"));
    free(md);
    /* The baseline survives report.json. */
    cJSON *j = json_of(&r);
    assert_int_equal(cJSON_GetObjectItemCaseSensitive(j, "baseline_device")->valueint, 3);
    cJSON *fam0 = cJSON_GetArrayItem(
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(j, "summary"),
                                         "families"),
        0);
    assert_true(cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(fam0, "fastest_device")));
    cJSON *base_dev = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(fam0, "devices"), 2);
    assert_true(
        fabs(cJSON_GetObjectItemCaseSensitive(base_dev, "speed_vs_baseline")->valuedouble - 1.0) <
        1e-9);
    report back;
    assert_int_equal(report_from_json(j, "test", &back), CLOPS_OK);
    assert_int_equal(back.baseline, 3);
    assert_string_equal(back.devices[2].copy_peak_kernel, "float per item");
    assert_string_equal(back.benches[0].family, r.benches[0].family);
    assert_true(fabs(back.benches[0].bytes - r.benches[0].bytes) < 1 ||
                (isnan(back.benches[0].bytes) && isnan(r.benches[0].bytes)));
    report_free(&back);
    cJSON_Delete(j);
    report_free(&r);
}

static void empty_report_renders(void **state)
{
    report r;
    report_init(&r, "check");
    char *s = render(&r, report_render_md);
    assert_non_null(strstr(s, "0 passed"));
    free(s);
    s = render(&r, report_render_html);
    assert_non_null(strstr(s, "</html>"));
    free(s);
    cJSON *j = json_of(&r);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(j, "results")), 0);
    cJSON_Delete(j);
    report_free(&r);
}

static void writes_a_report_folder_and_reads_it_back(void **state)
{
    report r, back;
    build_model(&r, false);
    const char *keep = getenv("CLOPS_TEST_REPORT_DIR");
    char dir[300];
    snprintf(dir, sizeof dir, "%s/sub/report", tmpdir);
    assert_int_equal(report_write_dir(&r, dir), CLOPS_OK);
    if (keep && *keep)
        assert_int_equal(report_write_dir(&r, keep), CLOPS_OK);
    static const char *const names[] = {"report.json", "report.md", "report.html"};
    for (int i = 0; i < 3; i++) {
        char p[400];
        snprintf(p, sizeof p, "%s/%s", dir, names[i]);
        assert_int_equal(access(p, R_OK), 0);
    }
    char p[400];
    snprintf(p, sizeof p, "%s/report.json", dir);
    assert_int_equal(report_read_json(p, &back), CLOPS_OK);
    report_summary a = report_summarize(&r), b = report_summarize(&back);
    assert_memory_equal(&a, &b, sizeof a);
    assert_string_equal(back.mode, "representative");
    assert_true(fabs(back.wall_s - 212.4) < 1e-9);
    report_free(&back);
    report_free(&r);
}

/* Writes text to a file in tmpdir and returns its path (static buffer). */
static const char *write_tmp(const char *name, const char *text)
{
    static char path[400];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    return path;
}

static void refuses_malformed_report_json(void **state)
{
    static const char *const bad[] = {
        "{ not json",
        "[1, 2, 3]",
        "{\"clops_version\": \"0.1.0\", \"results\": []}",
        "{\"clops_version\": \"0.1.0\", \"devices\": [], \"results\": [{\"kind\": \"check\", "
        "\"op\": \"add\", \"device\": 4, \"status\": \"pass\"}]}",
        "{\"clops_version\": \"0.1.0\", \"devices\": [{\"index\": 1}], \"results\": "
        "[{\"kind\": \"check\", \"op\": \"add\", \"device\": 1, \"status\": \"great\"}]}",
        "{\"clops_version\": \"0.1.0\", \"devices\": [{\"index\": 1}], \"results\": "
        "[{\"kind\": \"poll\", \"op\": \"add\", \"device\": 1, \"status\": \"pass\"}]}",
        "{\"clops_version\": \"0.1.0\", \"devices\": [{\"index\": 1}, {\"index\": 1}], "
        "\"results\": []}",
        "{\"clops_version\": \"0.1.0\", \"devices\": [{\"name\": \"x\"}], \"results\": []}",
        "{\"clops_version\": \"0.1.0\", \"devices\": [{\"index\": 1}], \"results\": "
        "[{\"kind\": \"check\", \"op\": 7, \"device\": 1, \"status\": \"pass\"}]}",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const char *path = write_tmp("bad.json", bad[i]);
        report r;
        clops_status st = report_read_json(path, &r);
        if (st != CLOPS_INVALID_ARGUMENT)
            fail_msg("case %zu: expected INVALID_ARGUMENT, got %s", i, clops_status_name(st));
        assert_non_null(strstr(clops_last_error(), path));
        assert_int_equal(r.ndevices + r.nchecks + r.nbenches, 0);
        report_free(&r);
    }
    report r;
    char missing[400];
    snprintf(missing, sizeof missing, "%s/none.json", tmpdir);
    assert_int_equal(report_read_json(missing, &r), CLOPS_IO_ERROR);
}

static void matrix_aggregates_over_dtypes_and_cases(void **state)
{
    report r;
    build_model(&r, false);
    report_matrix m;
    assert_int_equal(report_matrix_build(&r, &m), CLOPS_OK);
    assert_int_equal(m.nops, (int)NOPS);
    assert_string_equal(m.ops[0], "add.Tensor");
    int ln = 5, so = 7, cs = 6, mm = 8;
    assert_string_equal(m.ops[ln], "native_layer_norm");
    const report_cell *c = report_matrix_cell(&m, ln, 1);
    assert_int_equal(c->pass, 8);
    assert_int_equal(c->fail, 1);
    assert_true(c->max_abs_err == 0.0625);
    assert_true(report_matrix_cell(&m, so, 2)->fallback);
    assert_false(report_matrix_cell(&m, so, 0)->fallback);
    assert_true(report_matrix_cell(&m, cs, 0)->fallback);
    assert_int_equal(report_matrix_cell(&m, mm, 0)->skip, 3);
    assert_int_equal(report_matrix_cell(&m, so, 1)->error, 1);
    report_matrix_free(&m);
    report_bench_table t;
    assert_int_equal(report_bench_table_build(&r, &t), CLOPS_OK);
    assert_int_equal(t.nrows, (int)NOPS);
    for (int k = 0; k < t.nrows; k++)
        for (int j = 0; j < 3; j++)
            assert_non_null(t.rows[k].per_device[j]);
    report_bench_table_free(&t);
    report_free(&r);
}

/* A skipped result ran nothing, so it names no kernel, whatever the case
 * generator resolved before deciding to skip (docs/json-format.md). */
static void skipped_results_carry_no_kernel_name(void **state)
{
    (void)state;
    report r;
    report_init(&r, "check");
    report_check c;
    report_check_init(&c);
    snprintf(c.op, sizeof c.op, "add.Tensor");
    snprintf(c.dtype, sizeof c.dtype, "float64");
    c.status = REPORT_SKIP;
    c.kernel = REPORT_KERNEL_DEVICE;
    snprintf(c.kernel_name, sizeof c.kernel_name, "pointwise:add");
    c.message = "add: float64 is not supported on this device";
    assert_int_equal(report_add_check(&r, &c), CLOPS_OK);
    report_bench b;
    report_bench_init(&b);
    snprintf(b.op, sizeof b.op, "add.Tensor");
    b.status = REPORT_SKIP;
    b.kernel = REPORT_KERNEL_DEVICE;
    snprintf(b.kernel_name, sizeof b.kernel_name, "pointwise:add");
    assert_int_equal(report_add_bench(&r, &b), CLOPS_OK);
    cJSON *json = report_to_json(&r);
    assert_non_null(json);
    const cJSON *res = cJSON_GetObjectItemCaseSensitive(json, "results");
    int n = 0;
    for (const cJSON *o = res->child; o; o = o->next, n++) {
        assert_string_equal(cJSON_GetObjectItemCaseSensitive(o, "status")->valuestring, "skip");
        assert_string_equal(cJSON_GetObjectItemCaseSensitive(o, "kernel")->valuestring, "none");
        assert_string_equal(cJSON_GetObjectItemCaseSensitive(o, "kernel_name")->valuestring, "");
    }
    assert_int_equal(n, 2);
    cJSON_Delete(json);
    report_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(json_has_the_documented_fields),
        cmocka_unit_test(unmeasured_figures_are_null),
        cmocka_unit_test(json_reads_back_into_an_identical_report),
        cmocka_unit_test(markdown_has_a_row_per_op_and_escapes_cells),
        cmocka_unit_test(html_is_self_contained_with_a_row_per_op),
        cmocka_unit_test(devices_side_by_side_with_a_summary),
        cmocka_unit_test(the_copy_peak_is_the_fastest_copy_measured),
        cmocka_unit_test(one_device_summary_is_against_the_ceiling),
        cmocka_unit_test(a_torch_column_beside_one_device),
        cmocka_unit_test(each_device_against_its_own_torch_peer),
        cmocka_unit_test(engine_paths_are_named),
        cmocka_unit_test(empty_report_renders),
        cmocka_unit_test(writes_a_report_folder_and_reads_it_back),
        cmocka_unit_test(refuses_malformed_report_json),
        cmocka_unit_test(matrix_aggregates_over_dtypes_and_cases),
        cmocka_unit_test(skipped_results_carry_no_kernel_name),
    };
    return cmocka_run_group_tests(tests, setup_tmpdir, remove_tmpdir);
}
