/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tools/cli/report_md.c: report.md, the Markdown form of a report.
 *
 * This is the text people paste into a bug report to a driver vendor or an
 * issue tracker, so it favours plain GitHub-flavoured tables over layout:
 * the devices with their measured figures, the op × device pass/fail matrix
 * with maximum errors, bandwidth and call costs per op and device, the ops
 * that fell back to the CPU, and the failing cases with their messages.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tools/cli/cli.h"
#include "tools/cli/report.h"

/* Most failing cases listed in full; the JSON has all of them. */
#define MD_MAX_FAILURES 200

/* Appends text as one table cell: '|' escaped, newlines flattened. */
static void md_cell(strbuf *sb, const char *s)
{
    sb_append(sb, " ");
    for (const char *p = s ? s : ""; *p; p++) {
        if (*p == '|')
            sb_append(sb, "\\|");
        else if (*p == '\n' || *p == '\r' || *p == '\t')
            sb_putc(sb, ' ');
        else
            sb_putc(sb, *p);
    }
    sb_append(sb, " |");
}

/* Appends a header row and its separator; align is 'l' or 'r' per column. */
static void md_header(strbuf *sb, int n, const char *const *names, const char *align)
{
    sb_append(sb, "|");
    for (int i = 0; i < n; i++)
        md_cell(sb, names[i]);
    sb_append(sb, "\n|");
    for (int i = 0; i < n; i++)
        sb_append(sb, align[i] == 'r' ? " ---: |" : " --- |");
    sb_putc(sb, '\n');
}

/* "opencl:0 (NVIDIA H200)" for column headings. */
static void md_device_title(const report_device *d, char *buf, size_t cap)
{
    snprintf(buf, cap, "%s (%.60s)", d->label[0] ? d->label : "?", d->info.name);
}

/* The devices table. */
static void md_devices(const report *r, strbuf *sb)
{
    static const char *const h[] = {"#", "Device", "Platform", "Driver", "Type", "CUs",
                                    "Memory", "fp64", "fp16", "Copy peak GB/s", "Launch µs",
                                    "Enqueue µs", "Build cold s", "Build warm s"};
    sb_append(sb, "## Devices\n\n");
    md_header(sb, 14, h, "lllllrrllrrrrr");
    for (int i = 0; i < r->ndevices; i++) {
        const report_device *d = &r->devices[i];
        char buf[300];
        if (d->torch)
            continue; /* a PyTorch column: its settings follow the table */
        sb_append(sb, "|");
        snprintf(buf, sizeof buf, "%d", d->info.index);
        md_cell(sb, buf);
        snprintf(buf, sizeof buf, "%s %s", d->label, d->info.name);
        md_cell(sb, buf);
        snprintf(buf, sizeof buf, "%s (%s)", d->info.platform_name,
                 clops_vendor_name(d->info.vendor));
        md_cell(sb, buf);
        md_cell(sb, d->info.driver_version);
        md_cell(sb, d->info.type == CLOPS_DEVICE_CPU ? "host" : d->info.is_gpu ? "GPU" : "CPU");
        snprintf(buf, sizeof buf, "%u", d->info.compute_units);
        md_cell(sb, buf);
        md_cell(sb, cli_fmt_bytes(d->info.global_mem_bytes, buf, sizeof buf));
        md_cell(sb, d->info.fp64 ? "yes" : "no");
        md_cell(sb, d->info.fp16 ? "yes" : "no");
        md_cell(sb, report_fmt(d->copy_peak_gbs, "%.1f", buf, sizeof buf));
        md_cell(sb, report_fmt(d->launch_us, "%.1f", buf, sizeof buf));
        md_cell(sb, report_fmt(d->enqueue_us, "%.1f", buf, sizeof buf));
        md_cell(sb, report_fmt(d->build_cold_s, "%.2f", buf, sizeof buf));
        md_cell(sb, report_fmt(d->build_warm_s, "%.3f", buf, sizeof buf));
        sb_putc(sb, '\n');
    }
    if (r->note && *r->note)
        sb_printf(sb, "\nDevice discovery: %s\n", r->note);
    for (int i = 0; i < r->ndevices; i++)
        if (r->devices[i].torch)
            sb_printf(sb, "\nPyTorch column **%s**: %s.\n", r->devices[i].label,
                      r->devices[i].settings);
    sb_putc(sb, '\n');
}

/* One matrix cell's text: "pass 12/12, err 3.0e-07 (1 ulp)". */
static void md_matrix_text(const report_cell *c, char *buf, size_t cap)
{
    int ran = c->pass + c->fail + c->error;
    int n = 0;
    if (ran + c->skip == 0)
        n = snprintf(buf, cap, "-");
    else if (c->fail || c->error)
        n = snprintf(buf, cap, "**%s** %d/%d", c->error && !c->fail ? "ERROR" : "FAIL", c->pass,
                     ran);
    else if (ran == 0)
        n = snprintf(buf, cap, "skip");
    else
        n = snprintf(buf, cap, "pass %d/%d", c->pass, ran);
    char e[32], u[32];
    if (isfinite(c->max_abs_err) && n > 0 && (size_t)n < cap)
        n += snprintf(buf + n, cap - (size_t)n, ", err %s",
                      report_fmt_err(c->max_abs_err, e, sizeof e));
    if (isfinite(c->max_ulp_err) && c->max_ulp_err > 0 && n > 0 && (size_t)n < cap)
        n += snprintf(buf + n, cap - (size_t)n, " (%s ulp)", report_fmt(c->max_ulp_err, "%.0f", u,
                                                                        sizeof u));
    if (c->skip && ran && n > 0 && (size_t)n < cap)
        n += snprintf(buf + n, cap - (size_t)n, ", %d skipped", c->skip);
    if (c->fallback && n > 0 && (size_t)n < cap)
        snprintf(buf + n, cap - (size_t)n, ", CPU fallback");
}

/* The op × device pass/fail matrix. */
static void md_matrix(const report *r, const report_matrix *m, strbuf *sb)
{
    if (r->nchecks == 0)
        return;
    sb_append(sb, "## Correctness: op × device\n\n"
                  "Each cell: passed/ran cases over every dtype and case, the largest absolute "
                  "error, and the largest ULP error for floating types.\n\n|");
    md_cell(sb, "Op");
    for (int j = 0; j < r->ndevices; j++) {
        char t[128];
        if (r->devices[j].torch)
            continue; /* PyTorch is timed, not checked */
        md_device_title(&r->devices[j], t, sizeof t);
        md_cell(sb, t);
    }
    sb_append(sb, "\n| --- |");
    for (int j = 0; j < r->ndevices; j++)
        if (!r->devices[j].torch)
            sb_append(sb, " --- |");
    sb_putc(sb, '\n');
    for (int i = 0; i < m->nops; i++) {
        sb_append(sb, "|");
        md_cell(sb, m->ops[i]);
        for (int j = 0; j < r->ndevices; j++) {
            char buf[160];
            if (r->devices[j].torch)
                continue;
            md_matrix_text(report_matrix_cell(m, i, j), buf, sizeof buf);
            md_cell(sb, buf);
        }
        sb_putc(sb, '\n');
    }
    sb_putc(sb, '\n');
}

/* The performance summary: fastest device per op family, ops failing
 * anywhere, ops that fell back to the CPU. */
static void md_summary(const report *r, const report_matrix *m, const report_bench_table *t,
                       strbuf *sb)
{
    report_perf_summary ps;
    report_perf_summarize(r, t, &ps);
    report_op_lists_t ol;
    report_op_lists(r, m, t, &ol);
    int one = report_single_clops_device(r);
    if (ps.nfamilies > 0 && one >= 0 && one < ps.ndevices) {
        /* One device: each family against the device's ceiling. */
        const report_device *d = &r->devices[one];
        char pk[32], fm[32], mm[32], q[32];
        sb_printf(sb,
                  "**%s against its ceilings** (copy peak %s GB/s, set by %s; FMA peak %s "
                  "GFLOP/s; mma peak %s GFLOP/s; per op family the achieved GB/s over the "
                  "copy peak and GFLOP/s over the arithmetic peak of the dtype, geometric "
                  "mean, lowest and highest; \"-\": no rows against a ceiling, as views move "
                  "no data and float64 products have no measured arithmetic peak):\n\n"
                  "| Family | Ops | Of ceiling | Lowest | Highest |\n"
                  "| --- | ---: | ---: | ---: | ---: |\n",
                  d->label, report_fmt(d->copy_peak_gbs, "%.1f", pk, sizeof pk),
                  d->copy_peak_kernel[0] ? d->copy_peak_kernel : "an unknown kernel",
                  report_fmt(d->fma_peak_gflops, "%.0f", fm, sizeof fm),
                  report_fmt(d->mma_peak_gflops, "%.0f", mm, sizeof mm));
        for (int f = 0; f < ps.nfamilies; f++) {
            const report_family_perf *fp = &ps.fam[f];
            sb_append(sb, "|");
            md_cell(sb, fp->family);
            sb_printf(sb, " %d |", fp->measured[one]);
            md_cell(sb, report_fmt(100.0 * fp->of_ceiling[one], "%.0f%%", q, sizeof q));
            md_cell(sb, report_fmt(100.0 * fp->of_ceiling_min[one], "%.0f%%", q, sizeof q));
            md_cell(sb, report_fmt(100.0 * fp->of_ceiling_max[one], "%.0f%%", q, sizeof q));
            sb_putc(sb, '\n');
        }
    }
    if (ps.nfamilies > 0 && report_perf_compares(&ps)) {
        const report_device *bd = &r->devices[ps.baseline];
        sb_printf(sb, "%s**Fastest device per op family** (speed: %s's time over the device's, "
                      "geometric mean%s%s):\n\n| Family | Fastest |",
                  one >= 0 ? "\n" : "", bd->label,
                  bd->torch ? "; above 1.00x: faster than PyTorch" : "", report_peer_note(r));
        for (int j = 0; j < ps.ndevices; j++)
            md_cell(sb, r->devices[j].label);
        sb_append(sb, "\n| --- | --- |");
        for (int j = 0; j < ps.ndevices; j++)
            sb_append(sb, " ---: |");
        sb_putc(sb, '\n');
        for (int f = 0; f < ps.nfamilies; f++) {
            const report_family_perf *fp = &ps.fam[f];
            char fast[64], sp[32];
            if (fp->fastest >= 0)
                snprintf(fast, sizeof fast, "%s (%d of %d)", r->devices[fp->fastest].label,
                         fp->wins[fp->fastest], fp->rows);
            else
                snprintf(fast, sizeof fast, "-");
            sb_append(sb, "|");
            md_cell(sb, fp->family);
            md_cell(sb, fast);
            for (int j = 0; j < ps.ndevices; j++)
                md_cell(sb, report_fmt(fp->speedup[j], "%.2fx", sp, sizeof sp));
            sb_putc(sb, '\n');
        }
    }
    if (ps.nfamilies > 0 && ps.ndevices > 0) {
        sb_printf(sb, "\nBenchmarks: %d above the copy peak, %d skipped, %d errors.\n\n",
                  ps.above_peak, ps.skipped, ps.errors);
    }
    sb_printf(sb, "**Ops failing anywhere (%d):** %s\n\n**Ops that fell back to the CPU "
                  "(%d):** %s\n\n",
              ol.nfailing, ol.nfailing ? ol.failing : "none", ol.nfallback,
              ol.nfallback ? ol.fallback : "none");
}

/* The model table: time per forward step per column, with clops' CPU
 * fallbacks. */
static void md_models(const report *r, strbuf *sb)
{
    const char *names[16];
    int n = report_model_names(r, names, 16);
    if (n == 0)
        return;
    sb_append(sb, "## Models\n\nA whole model's forward step on each device (through the "
                  "clops PyTorch device) and on PyTorch: the median time per step, and the CPU "
                  "fallback calls per step with their ops.\n\n|");
    md_cell(sb, "Model");
    for (int j = 0; j < r->ndevices; j++)
        md_cell(sb, r->devices[j].label);
    sb_append(sb, "\n| --- |");
    for (int j = 0; j < r->ndevices; j++)
        sb_append(sb, " ---: |");
    sb_putc(sb, '\n');
    for (int i = 0; i < n; i++) {
        sb_append(sb, "|");
        md_cell(sb, names[i]);
        for (int j = 0; j < r->ndevices; j++) {
            const report_model *m = report_model_at(r, names[i], j);
            char buf[600];
            md_cell(sb, m ? report_model_text(m, buf, sizeof buf) : "-");
        }
        sb_putc(sb, '\n');
    }
    sb_putc(sb, '\n');
}

/* Bandwidth and call costs, one row per (op, dtype, case). */
static void md_bench(const report *r, const report_bench_table *t, strbuf *sb)
{
    if (t->nrows == 0)
        return;
    sb_printf(sb, "## Performance\n\n"
                  "Every device on the same shapes: median time per call, achieved GB/s (with "
                  "the share of the device's copy peak) or GFLOP/s%s%s%s%s%s; matrix products, "
                  "convolutions and attention name the engine path that ran (mma with its "
                  "tile configuration, FMA, CLBlast; implicit GEMM or im2col).\n\n|",
              r->ndevices > 1 ? ", and the speed relative to " : "",
              r->ndevices > 1 ? r->devices[report_baseline_pos(r)].label : "",
              r->ndevices > 1 ? " (its time over the device's" : "",
              r->ndevices > 1 ? report_peer_note(r) : "", r->ndevices > 1 ? ")" : "");
    md_cell(sb, "Op");
    md_cell(sb, "dtype");
    md_cell(sb, "case");
    for (int j = 0; j < r->ndevices; j++) {
        char h[128];
        md_device_title(&r->devices[j], h, sizeof h);
        md_cell(sb, h);
    }
    sb_append(sb, "\n| --- | --- | --- |");
    for (int j = 0; j < r->ndevices; j++)
        sb_append(sb, " ---: |");
    sb_putc(sb, '\n');
    for (int k = 0; k < t->nrows; k++) {
        const report_bench *f = t->rows[k].first;
        sb_append(sb, "|");
        md_cell(sb, f->op);
        md_cell(sb, f->dtype);
        md_cell(sb, f->case_name);
        for (int j = 0; j < r->ndevices; j++) {
            const report_bench *b = t->rows[k].per_device[j];
            char buf[300], a[32], p[32], tm[32], xs[32], x[140] = "", path[96] = "";
            if (b)
                report_engine_path(b, path, sizeof path);
            const report_bench *base = t->rows[k].per_device[report_peer_pos(r, j)];
            report_fmt(b ? b->device_us : NAN, "%.1f", tm, sizeof tm);
            report_fmt(report_bench_measured(b) && report_bench_measured(base)
                           ? base->device_us / b->device_us
                           : NAN,
                       "%.2fx", xs, sizeof xs);
            /* One device: no speed against itself. */
            if (r->ndevices > 1)
                snprintf(x, sizeof x, " · %s", xs);
            if (path[0]) {
                size_t len = strlen(x);
                snprintf(x + len, sizeof x - len, " · %s", path);
            }
            if (!b)
                snprintf(buf, sizeof buf, "-");
            else if (b->status != REPORT_PASS)
                snprintf(buf, sizeof buf, "%s", report_status_name(b->status));
            else if (report_bench_is_compute(b))
                snprintf(buf, sizeof buf, "%s µs · %s GFLOP/s%s", tm,
                         report_fmt(b->gflops, "%.1f", a, sizeof a), x);
            else if (!isfinite(b->ratio_to_peak)) /* no ceiling (a PyTorch column) */
                snprintf(buf, sizeof buf, "%s µs · %s GB/s%s", tm,
                         report_fmt(b->gbs, "%.1f", a, sizeof a), x);
            else if (report_bench_above_peak(r, b))
                snprintf(buf, sizeof buf, "%s µs · %s GB/s (above copy peak)%s", tm,
                         report_fmt(b->gbs, "%.1f", a, sizeof a), x);
            else
                snprintf(buf, sizeof buf, "%s µs · %s GB/s (%s)%s", tm,
                         report_fmt(b->gbs, "%.1f", a, sizeof a),
                         report_fmt(isfinite(b->ratio_to_peak) ? b->ratio_to_peak * 100 : NAN,
                                    "%.0f%%", p, sizeof p),
                         x);
            md_cell(sb, buf);
        }
        sb_putc(sb, '\n');
    }
    sb_append(sb, "\nCall costs per device: host µs per call / cold compile s / warm first "
                  "call s.\n\n|");
    md_cell(sb, "Op");
    md_cell(sb, "dtype");
    md_cell(sb, "case");
    for (int j = 0; j < r->ndevices; j++)
        if (!r->devices[j].torch)
            md_cell(sb, r->devices[j].label);
    sb_append(sb, "\n| --- | --- | --- |");
    for (int j = 0; j < r->ndevices; j++)
        if (!r->devices[j].torch)
            sb_append(sb, " ---: |");
    sb_putc(sb, '\n');
    for (int k = 0; k < t->nrows; k++) {
        const report_bench *f = t->rows[k].first;
        sb_append(sb, "|");
        md_cell(sb, f->op);
        md_cell(sb, f->dtype);
        md_cell(sb, f->case_name);
        for (int j = 0; j < r->ndevices; j++) {
            const report_bench *b = t->rows[k].per_device[j];
            char buf[128], h[32], c[32], w[32];
            if (r->devices[j].torch)
                continue;
            if (!b)
                snprintf(buf, sizeof buf, "-");
            else
                snprintf(buf, sizeof buf, "%s / %s / %s",
                         report_fmt(b->host_us, "%.1f", h, sizeof h),
                         report_fmt(b->cold_compile_s, "%.2f", c, sizeof c),
                         report_fmt(b->warm_first_call_s, "%.3f", w, sizeof w));
            md_cell(sb, buf);
        }
        sb_putc(sb, '\n');
    }
    sb_putc(sb, '\n');
}

/* The ops that ran on the CPU fallback, per device. */
static void md_fallbacks(const report *r, const report_matrix *m, strbuf *sb)
{
    sb_append(sb, "## Ops that fell back to the CPU\n\n");
    for (int j = 0; j < r->ndevices; j++) {
        const report_device *d = &r->devices[j];
        if (d->info.type == CLOPS_DEVICE_CPU || d->torch)
            continue;
        int n = 0;
        sb_printf(sb, "- **%s** (%s):", d->label, d->info.name);
        for (int i = 0; i < m->nops; i++)
            if (report_matrix_cell(m, i, j)->fallback)
                sb_printf(sb, "%s `%s`", n++ ? "," : "", m->ops[i]);
        sb_append(sb, n ? "\n" : " none\n");
    }
    sb_putc(sb, '\n');
}

/* The failing and erroring cases, with their messages. */
static void md_failures(const report *r, strbuf *sb)
{
    report_summary s = report_summarize(r);
    if (s.failed == 0)
        return;
    static const char *const h[] = {"Op", "dtype", "case", "device", "status", "kernel",
                                    "max abs err", "max ulp", "message"};
    sb_printf(sb, "## Failures (%d)\n\n", s.failed);
    md_header(sb, 9, h, "llllllrrl");
    int shown = 0;
    for (int i = 0; i < r->nchecks && shown < MD_MAX_FAILURES; i++) {
        const report_check *c = &r->checks[i];
        if (c->status != REPORT_FAIL && c->status != REPORT_ERROR)
            continue;
        const report_device *d = report_find_device(r, c->device);
        char e[32], u[32];
        sb_append(sb, "|");
        md_cell(sb, c->op);
        md_cell(sb, c->dtype);
        md_cell(sb, c->case_name);
        md_cell(sb, d ? d->label : "?");
        md_cell(sb, report_status_name(c->status));
        md_cell(sb, report_kernel_human(c->kernel));
        md_cell(sb, report_fmt_err(c->max_abs_err, e, sizeof e));
        md_cell(sb, report_fmt(c->max_ulp_err, "%.0f", u, sizeof u));
        md_cell(sb, c->message);
        sb_putc(sb, '\n');
        shown++;
    }
    if (s.failed > shown)
        sb_printf(sb, "\n%d more in report.json.\n", s.failed - shown);
    sb_putc(sb, '\n');
}

clops_status report_render_md(const report *r, strbuf *sb)
{
    report_matrix m;
    report_bench_table t;
    clops_status st = report_matrix_build(r, &m);
    if (st)
        return st;
    st = report_bench_table_build(r, &t);
    if (st) {
        report_matrix_free(&m);
        return st;
    }
    char wall[32];
    report_summary s = report_summarize(r);
    sb_printf(sb, "# clops report\n\nclops %s · `clops %s`%s%s%s · %s · host `%s` · %s\n\n",
              r->clops_version, r->command, r->mode[0] ? " (" : "", r->mode,
              r->mode[0] ? " run)" : "", r->created[0] ? r->created : "unknown time",
              r->host[0] ? r->host : "?", cli_fmt_seconds(r->wall_s, wall, sizeof wall));
    sb_printf(sb, "**Summary:** %d passed, %d failed", s.passed, s.failed);
    if (s.errors)
        sb_printf(sb, " (%d error%s)", s.errors, s.errors == 1 ? "" : "s");
    int nclops = report_ndevices_clops(r);
    sb_printf(sb, ", %d skipped, over %d op%s on %d device%s%s.\n\n", s.skipped, m.nops,
              m.nops == 1 ? "" : "s", nclops, nclops == 1 ? "" : "s",
              nclops < r->ndevices ? ", timed beside PyTorch" : "");
    md_summary(r, &m, &t, sb);
    md_models(r, sb);
    md_devices(r, sb);
    md_matrix(r, &m, sb);
    md_bench(r, &t, sb);
    md_fallbacks(r, &m, sb);
    md_failures(r, sb);
    report_matrix_free(&m);
    report_bench_table_free(&t);
    return sb_finish(sb, "report.md");
}
