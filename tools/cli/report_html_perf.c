/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tools/cli/report_html_perf.c: the performance parts of report.html.
 *
 *   - the summary panel at the top: the fastest device per op family with
 *     each device's speed relative to the baseline, the ops failing a check
 *     anywhere, the ops that fell back to the CPU, and the bench counts;
 *   - two inline SVG charts, bandwidth (GB/s) and compute (GFLOP/s, the
 *     matrix products): per op a group of bars, one per device, side by
 *     side, on a logarithmic axis (devices differ by orders of magnitude)
 *     whose tick labels are thinned so they never overlap; each bandwidth
 *     bar shows its device's copy peak as a tick, a bar above it beyond
 *     noise says "above copy peak" and a bar beyond the axis ends in an
 *     arrow;
 *   - the performance table: one row per op (every device ran the same
 *     shapes), a column group per device with the time per call, GB/s or
 *     GFLOP/s and the speed relative to the baseline device, then the
 *     host costs and first calls;
 *   - the skipped checks and benchmarks counted by reason.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/cli/report_html.h"

/* --- summary ------------------------------------------------------------------------ */

void html_summary(const report *r, const report_matrix *m, const report_bench_table *t,
                  strbuf *sb)
{
    report_perf_summary ps;
    report_perf_summarize(r, t, &ps);
    report_op_lists_t ol;
    report_op_lists(r, m, t, &ol);
    int pos = report_single_clops_device(r);
    bool one = ps.nfamilies > 0 && pos >= 0 && pos < ps.ndevices;
    bool vs = ps.nfamilies > 0 && report_perf_compares(&ps);
    sb_printf(sb, "<section class=\"panel\" id=\"summary\"><h2>Summary</h2>\n"
                  "<div class=\"sum\"><div><h3>%s</h3>\n",
              one ? "Each op family against the device&#39;s ceiling"
                  : "Fastest device per op family");
    if (ps.nfamilies == 0 || ps.ndevices == 0)
        sb_append(sb, "<p class=\"none\">No benchmarks in this report.</p>");
    if (one) {
        /* One device: its speed against itself says nothing; the share of
         * its copy peak says how much of the memory system the ops use. */
        sb_append(sb, "<table><thead><tr><th>Family</th><th class=\"num\">Ops</th>"
                      "<th class=\"num\">Of ceiling</th><th class=\"num\">Lowest</th>"
                      "<th class=\"num\">Highest</th></tr></thead><tbody>\n");
        for (int f = 0; f < ps.nfamilies; f++) {
            const report_family_perf *fp = &ps.fam[f];
            sb_append(sb, "<tr><td>");
            html_esc(sb, fp->family);
            sb_printf(sb, "</td><td class=\"num\">%d</td>", fp->measured[pos]);
            html_num(sb, 100.0 * fp->of_ceiling[pos], "%.0f%%");
            html_num(sb, 100.0 * fp->of_ceiling_min[pos], "%.0f%%");
            html_num(sb, 100.0 * fp->of_ceiling_max[pos], "%.0f%%");
            sb_append(sb, "</tr>\n");
        }
        char pk[32];
        sb_append(sb, "</tbody></table><p class=\"hint\">Per op family: the achieved GB/s over "
                      "the copy peak of ");
        html_esc(sb, r->devices[pos].label);
        sb_printf(sb, " (%s GB/s, set by ", report_fmt(r->devices[pos].copy_peak_gbs, "%.1f", pk,
                                                         sizeof pk));
        html_esc(sb, r->devices[pos].copy_peak_kernel[0] ? r->devices[pos].copy_peak_kernel
                                                       : "an unknown kernel");
        char fm[32], mm[32];
        sb_printf(sb, "), and the achieved GFLOP/s of matrix products and convolutions over the "
                      "arithmetic peak of their dtype (FMA %s GFLOP/s, mma %s GFLOP/s: "
                      "register-only loops), geometric mean, lowest and highest. &quot;-&quot;: "
                      "no rows against a ceiling, as views move no data and float64 products "
                      "have no measured arithmetic peak.</p>",
                  report_fmt(r->devices[pos].fma_peak_gflops, "%.0f", fm, sizeof fm),
                  report_fmt(r->devices[pos].mma_peak_gflops, "%.0f", mm, sizeof mm));
    }
    if (vs) {
        const report_device *bd = &r->devices[ps.baseline];
        if (one)
            sb_append(sb, "<h3>Fastest per op family</h3>\n");
        sb_append(sb, "<table><thead><tr><th>Family</th><th>Fastest</th>");
        for (int j = 0; j < ps.ndevices; j++) {
            sb_append(sb, "<th class=\"num\">");
            html_esc(sb, r->devices[j].label);
            sb_printf(sb, "%s</th>", j == ps.baseline ? " (base)" : "");
        }
        sb_append(sb, "</tr></thead><tbody>\n");
        for (int f = 0; f < ps.nfamilies; f++) {
            const report_family_perf *fp = &ps.fam[f];
            sb_append(sb, "<tr><td>");
            html_esc(sb, fp->family);
            sb_append(sb, "</td><td class=\"nw\">");
            if (fp->fastest >= 0) {
                sb_printf(sb, "<span class=\"dot\" style=\"background:%s\"></span>",
                          html_color(fp->fastest));
                html_esc(sb, r->devices[fp->fastest].label);
                sb_printf(sb, " <span class=\"err\">%d of %d ops</span>", fp->wins[fp->fastest],
                          fp->rows);
            } else {
                sb_append(sb, "-");
            }
            sb_append(sb, "</td>");
            for (int j = 0; j < ps.ndevices; j++)
                html_num(sb, fp->speedup[j], "%.2f&times;");
            sb_append(sb, "</tr>\n");
        }
        sb_append(sb, "</tbody></table><p class=\"hint\">Per device: the geometric mean of "
                      "the baseline&#39;s time over the device&#39;s, on the same shapes "
                      "(above 1: faster than the baseline");
        if (bd->torch)
            sb_append(sb, ", here PyTorch: see its settings under Devices");
        html_esc(sb, report_peer_note(r));
        sb_append(sb, ").</p>");
    }
    sb_printf(sb, "</div><div><h3>Ops failing anywhere (%d)</h3><p class=\"%s\">",
              ol.nfailing, ol.nfailing ? "op" : "none");
    html_esc(sb, ol.nfailing ? ol.failing : "none");
    sb_printf(sb, "</p><h3>Ops that fell back to the CPU (%d)</h3><p class=\"%s\">",
              ol.nfallback, ol.nfallback ? "op" : "none");
    html_esc(sb, ol.nfallback ? ol.fallback : "none");
    sb_printf(sb, "</p><h3>Benchmarks</h3><p>%d above the copy peak%s, %d skipped, %d "
                  "errors (<a href=\"#skips\">reasons</a>)</p></div></div></section>\n",
              ps.above_peak, ps.above_peak ? " <span class=\"above\">(a measuring error: see "
                                              "the table)</span>"
                                            : "",
              ps.skipped, ps.errors);
}

/* --- charts ------------------------------------------------------------------------- */

enum {
    SVG_W = 1240,    /* viewBox width */
    SVG_LABEL = 300, /* left column for op labels */
    SVG_RIGHT = 250, /* the value labels' column */
    SVG_BAR = 13,    /* bar height */
    SVG_GAP = 3,     /* between bars of one op */
    SVG_PAD = 10,    /* above and below each op's group */
    SVG_TOP = 30     /* axis labels */
};

/* The charted value of b (GB/s or GFLOP/s), NAN when none. */
static double chart_value(const report_bench *b, bool compute)
{
    if (!b || b->status != REPORT_PASS)
        return NAN;
    double v = compute ? b->gflops : b->gbs;
    return isfinite(v) && v > 0 ? v : NAN;
}

/* Whether row k belongs to the compute chart (compute) or the bandwidth
 * one, with a value on some device. */
static bool chart_row(const report_bench_table *t, int k, bool compute)
{
    bool any = false, comp = false;
    for (int j = 0; j < t->ndevices; j++) {
        const report_bench *b = t->rows[k].per_device[j];
        if (b && report_bench_is_compute(b))
            comp = true;
        any |= isfinite(chart_value(b, compute));
    }
    return any && comp == compute;
}

/* x of value v on the log axis [lo, hi] over plot pixels from x0. */
static double axis_x(double v, double lo, double hi, double x0, double plot)
{
    if (v <= lo)
        return x0;
    return x0 + plot * log10(v / lo) / log10(hi / lo);
}

/* A tick value label: "0.01", "2", "500", "2k", "10k". */
static void tick_label(double v, char *buf, size_t cap)
{
    if (v >= 1000)
        snprintf(buf, cap, "%gk", v / 1000);
    else
        snprintf(buf, cap, "%g", v);
}

/* One chart: per row a group of bars, one per device. */
static void html_chart(const report *r, const report_bench_table *t, bool compute, strbuf *sb)
{
    double vmax = 0, vmin = INFINITY;
    int rows = 0;
    for (int k = 0; k < t->nrows; k++) {
        if (!chart_row(t, k, compute))
            continue;
        rows++;
        for (int j = 0; j < t->ndevices; j++) {
            double v = chart_value(t->rows[k].per_device[j], compute);
            if (isfinite(v)) {
                vmax = v > vmax ? v : vmax;
                vmin = v < vmin ? v : vmin;
            }
        }
    }
    /* The bandwidth axis ends at the fastest copy peak: no op can honestly
     * go beyond it, and a bar that does is marked. */
    double top = compute ? vmax : 0;
    for (int j = 0; !compute && j < r->ndevices; j++)
        if (isfinite(r->devices[j].copy_peak_gbs) && r->devices[j].copy_peak_gbs > top)
            top = r->devices[j].copy_peak_gbs;
    if (!(top > 0))
        top = vmax;
    double hi = pow(10, ceil(log10(top) - 1e-9));
    if (hi / 2 >= top)
        hi /= 2;
    double lo = pow(10, floor(log10(vmin)));
    if (lo < hi / 1e5)
        lo = hi / 1e5;
    if (lo >= hi)
        lo = hi / 10;
    int nd = t->ndevices > 0 ? t->ndevices : 1;
    int group = nd * SVG_BAR + (nd - 1) * SVG_GAP + 2 * SVG_PAD;
    int height = SVG_TOP + rows * group + 8;
    double x0 = SVG_LABEL, plot = SVG_W - SVG_LABEL - SVG_RIGHT;
    const char *unit = compute ? "GFLOP/s" : "GB/s";
    sb_printf(sb, "<svg class=\"chart\" viewBox=\"0 0 %d %d\" width=\"100%%\" role=\"img\" "
                  "aria-label=\"%s per op and device\">\n",
              SVG_W, height, unit);
    for (int k = 0; k < rows; k++)
        if (k % 2 == 0)
            sb_printf(sb, "<rect x=\"0\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#f7f8fa\"/>\n",
                      SVG_TOP + k * group, SVG_W, group);
    /* Ticks at 1, 2, 5 x 10^k; labels on the powers of ten, and on 2 and 5
     * too when the axis spans at most two decades, each only where it
     * does not touch the previous label; the unit once, at the axis end. */
    bool minor_labels = hi / lo <= 100.0001;
    double last_label = -1e9;
    for (double dec = lo; dec <= hi * 1.0001; dec *= 10)
        for (int m = 0; m < 3; m++) {
            double v = dec * (m == 0 ? 1 : m == 1 ? 2 : 5);
            if (v > hi * 1.0001)
                break;
            double x = axis_x(v, lo, hi, x0, plot);
            bool major = m == 0;
            sb_printf(sb, "<line class=\"tick\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" "
                          "stroke=\"%s\" stroke-width=\"1\"/>\n",
                      x, SVG_TOP - 6, x, height - 8, major ? "#d5d9e0" : "#eef0f3");
            char lab[32];
            tick_label(v, lab, sizeof lab);
            double w = 7.0 * (double)strlen(lab) + 12; /* label width + gap, px */
            if ((!major && !minor_labels) || x - last_label < w)
                continue;
            last_label = x;
            sb_printf(sb, "<text class=\"axis\" x=\"%.1f\" y=\"%d\" font-size=\"11\" "
                          "fill=\"#606a7b\" text-anchor=\"middle\">%s</text>\n",
                      x, SVG_TOP - 12, lab);
        }
    sb_printf(sb, "<text class=\"axis\" x=\"%.1f\" y=\"%d\" font-size=\"11\" "
                  "font-weight=\"600\" fill=\"#606a7b\">%s (log scale)</text>\n",
              x0 + plot + 14, SVG_TOP - 12, unit);
    int row = 0;
    for (int k = 0; k < t->nrows; k++) {
        if (!chart_row(t, k, compute))
            continue;
        const report_bench *f = t->rows[k].first;
        int y0 = SVG_TOP + row * group + SVG_PAD;
        int mid = y0 + (group - 2 * SVG_PAD) / 2;
        sb_printf(sb, "<text class=\"mono\" x=\"12\" y=\"%d\" font-size=\"12.5\" "
                      "fill=\"#1c2230\">",
                  mid - 2);
        html_esc(sb, f->op);
        sb_printf(sb, "</text>\n<text x=\"12\" y=\"%d\" font-size=\"11\" fill=\"#606a7b\">",
                  mid + 12);
        html_esc(sb, f->dtype);
        sb_append(sb, " &#183; ");
        html_esc(sb, f->case_name);
        sb_append(sb, "</text>\n");
        for (int j = 0; j < t->ndevices; j++) {
            const report_bench *b = t->rows[k].per_device[j];
            int y = y0 + j * (SVG_BAR + SVG_GAP);
            double v = chart_value(b, compute);
            if (!isfinite(v)) {
                sb_printf(sb, "<text x=\"%.1f\" y=\"%d\" font-size=\"11\" fill=\"#a3aab6\">%s"
                              "</text>\n",
                          x0 + 4, y + SVG_BAR - 3,
                          !b ? "not run" : b->status == REPORT_PASS ? "no figure"
                                                                    : report_status_name(b->status));
                continue;
            }
            bool beyond = v > hi * 1.0001;
            double xe = axis_x(beyond ? hi : v, lo, hi, x0, plot);
            double w = xe - x0 < 1.5 ? 1.5 : xe - x0;
            sb_printf(sb, "<rect class=\"bar\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" "
                          "rx=\"2\" fill=\"%s\"><title>",
                      x0, y, w, SVG_BAR, html_color(j));
            html_esc(sb, r->devices[j].label);
            sb_printf(sb, ": %.4g %s</title></rect>\n", v, unit);
            if (beyond)
                sb_printf(sb, "<path class=\"beyond\" d=\"M%.1f %d l9 %d l-9 %d z\" "
                              "fill=\"#c62828\"><title>beyond the axis</title></path>\n",
                          x0 + w - 9, y, SVG_BAR / 2, SVG_BAR / 2 + SVG_BAR % 2);
            double peak = r->devices[j].copy_peak_gbs;
            if (!compute && isfinite(peak) && peak > lo && peak <= hi * 1.0001) {
                double xp = axis_x(peak, lo, hi, x0, plot);
                sb_printf(sb, "<line class=\"peak\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" "
                              "stroke=\"#1c2230\" stroke-width=\"2\"><title>copy peak</title>"
                              "</line>\n",
                          xp, y - 1, xp, y + SVG_BAR + 1);
            }
            char txt[96];
            int n = snprintf(txt, sizeof txt, v >= 100 ? "%.0f %s" : "%.3g %s", v, unit);
            bool above = !compute && report_bench_above_peak(r, b);
            if (!compute && isfinite(b->ratio_to_peak) && !above)
                snprintf(txt + n, sizeof txt - (size_t)n, " &#183; %.0f%% of peak",
                         b->ratio_to_peak * 100);
            /* Values in the right-hand column: never under a tick or a bar. */
            sb_printf(sb, "<text class=\"val\" x=\"%.1f\" y=\"%d\" font-size=\"11\" "
                          "fill=\"%s\">%s%s</text>\n",
                      x0 + plot + 14, y + SVG_BAR - 3, above ? "#c62828" : "#3b4250", txt,
                      above ? " &#183; above copy peak" : "");
        }
        row++;
    }
    sb_append(sb, "</svg>\n");
}

void html_charts(const report *r, const report_bench_table *t, strbuf *sb)
{
    bool bw = false, comp = false;
    for (int k = 0; k < t->nrows; k++) {
        bw |= chart_row(t, k, false);
        comp |= chart_row(t, k, true);
    }
    sb_append(sb, "<section class=\"panel\" id=\"bandwidth\"><h2>Bandwidth per op and device"
                  "</h2>\n<p class=\"hint\">Bytes read plus bytes written per call (each operand "
                  "once) over the median time per call, every device on the same shapes; "
                  "logarithmic axis up to the fastest copy peak. The black tick on each bar is "
                  "that device&#39;s copy peak (the best of several copy kernels): a bar above "
                  "it by more than noise is a measuring error and says so; a red arrow marks a "
                  "bar beyond the axis.</p>\n<div class=\"legend\">");
    for (int j = 0; j < r->ndevices; j++) {
        char peak[32];
        sb_printf(sb, "<span><span class=\"dot\" style=\"background:%s\"></span>", html_color(j));
        html_esc(sb, r->devices[j].label);
        sb_append(sb, " ");
        html_esc(sb, r->devices[j].info.name);
        if (r->devices[j].torch)
            sb_append(sb, " (PyTorch)</span>");
        else
            sb_printf(sb, " (copy peak %s GB/s)</span>",
                      report_fmt(r->devices[j].copy_peak_gbs, "%.1f", peak, sizeof peak));
    }
    sb_append(sb, "</div>\n");
    if (bw)
        html_chart(r, t, false, sb);
    else
        sb_append(sb, "<p class=\"none\">No bandwidth results in this report.</p>\n");
    if (comp) {
        sb_append(sb, "<h2 id=\"compute\">Compute per op and device</h2>\n<p class=\"hint\">"
                      "Matrix products: 2 &times; M &times; N &times; K floating-point "
                      "operations per call over the median time per call.</p>\n");
        html_chart(r, t, true, sb);
    }
    sb_append(sb, "</section>\n");
}

/* --- performance table -------------------------------------------------------------- */

/* The figure cells of b: time, rate, and (vs: several devices) the speed
 * relative to base. */
static void perf_cells(const report *r, const report_bench *b, const report_bench *base,
                       bool vs, strbuf *sb)
{
    int cols = vs ? 3 : 2;
    if (!b) {
        sb_printf(sb, "<td class=\"num na dv\" colspan=\"%d\">not run</td>", cols);
        return;
    }
    if (b->status != REPORT_PASS) {
        sb_printf(sb, "<td class=\"dv\" colspan=\"%d\"><span class=\"pill %s\">%s</span> ",
                  cols, report_status_name(b->status), report_status_name(b->status));
        html_esc(sb, b->message);
        sb_append(sb, "</td>");
        return;
    }
    char buf[48];
    sb_printf(sb, "<td class=\"num dv\">%s", report_fmt(b->device_us, "%.1f", buf, sizeof buf));
    if (b->kernel == REPORT_KERNEL_FALLBACK)
        sb_append(sb, " <span class=\"pill cpu\">CPU</span>");
    char path[96];
    if (report_engine_path(b, path, sizeof path)[0]) {
        sb_append(sb, "<span class=\"sub\">");
        html_esc(sb, path);
        sb_append(sb, "</span>");
    }
    sb_append(sb, "</td>");
    if (report_bench_is_compute(b)) {
        sb_printf(sb, "<td class=\"num\">%s GFLOP/s</td>",
                  report_fmt(b->gflops, "%.1f", buf, sizeof buf));
    } else if (report_bench_above_peak(r, b)) {
        sb_printf(sb, "<td class=\"num above\">%s GB/s<span class=\"sub\">above copy peak"
                      "</span></td>",
                  report_fmt(b->gbs, "%.1f", buf, sizeof buf));
    } else if (isfinite(b->gbs) && !isfinite(b->ratio_to_peak)) {
        sb_printf(sb, "<td class=\"num\">%s GB/s</td>", report_fmt(b->gbs, "%.1f", buf, sizeof buf));
    } else if (isfinite(b->gbs)) {
        char p[32];
        sb_printf(sb, "<td class=\"num\">%s GB/s<span class=\"sub\">%s of peak</span></td>",
                  report_fmt(b->gbs, "%.1f", buf, sizeof buf),
                  report_fmt(b->ratio_to_peak * 100, "%.0f%%", p, sizeof p));
    } else {
        sb_append(sb, "<td class=\"num na\">-</td>");
    }
    if (!vs)
        return;
    double ratio = report_bench_measured(base) ? base->device_us / b->device_us : NAN;
    html_num(sb, ratio, "%.2f&times;");
}

void html_perf(const report *r, const report_bench_table *t, strbuf *sb)
{
    int base = report_baseline_pos(r);
    /* One device: no speed against itself. */
    bool vs = r->ndevices > 1;
    sb_append(sb, "<section class=\"panel\" id=\"perf\"><h2>Performance</h2>\n<p class=\"hint\">"
                  "One row per op: every device ran the same shapes. Per device: the median "
                  "time per call in &micro;s, GB/s (with the share of that device&#39;s copy "
                  "peak) or GFLOP/s");
    if (vs) {
        sb_append(sb, ", and the speed relative to the baseline ");
        html_esc(sb, r->devices[base].label);
        sb_append(sb, " (its time over the device&#39;s");
        html_esc(sb, report_peer_note(r));
        sb_append(sb, ")");
    }
    sb_append(sb, "; under the time of matrix products, convolutions and attention the "
                  "engine path that ran (mma with its tile configuration, FMA, CLBlast; "
                  "implicit GEMM or im2col).</p>\n");
    if (t->nrows == 0) {
        sb_append(sb, "<p class=\"none\">No performance results in this report.</p></section>\n");
        return;
    }
    sb_append(sb, "<div class=\"scroll\"><table><thead><tr><th rowspan=\"2\">Op</th>");
    for (int j = 0; j < t->ndevices; j++) {
        sb_printf(sb, "<th colspan=\"%d\" class=\"dv\"><span class=\"dot\" style=\"background:"
                      "%s\"></span>",
                  vs ? 3 : 2, html_color(j));
        html_esc(sb, r->devices[j].label);
        sb_printf(sb, "%s</th>", vs && j == base ? " (baseline)" : "");
    }
    sb_append(sb, "</tr><tr>");
    for (int j = 0; j < t->ndevices; j++)
        sb_printf(sb, "<th class=\"num dv\">&micro;s/call</th><th class=\"num\">rate</th>%s",
                  vs ? "<th class=\"num\">vs base</th>" : "");
    sb_append(sb, "</tr></thead><tbody>\n");
    for (int k = 0; k < t->nrows; k++) {
        const report_bench *f = t->rows[k].first;
        sb_append(sb, "<tr><td><span class=\"op\">");
        html_esc(sb, f->op);
        sb_append(sb, "</span><span class=\"sub\">");
        html_esc(sb, f->dtype);
        sb_append(sb, " &middot; ");
        html_esc(sb, f->case_name);
        sb_append(sb, "</span></td>");
        for (int j = 0; j < t->ndevices; j++)
            perf_cells(r, t->rows[k].per_device[j],
                       t->rows[k].per_device[report_peer_pos(r, j)], vs, sb);
        sb_append(sb, "</tr>\n");
    }
    sb_append(sb, "</tbody></table></div>\n<h2>Host cost and first calls</h2>\n<p class=\"hint\">"
                  "Host &micro;s: issuing one call of the small case without waiting. Cold: the "
                  "first call with an empty kernel cache (s); warm: the first call of a new "
                  "process with the cache filled (s).</p>\n<div class=\"scroll\"><table><thead>"
                  "<tr><th>Op</th>");
    for (int j = 0; j < t->ndevices; j++) {
        if (r->devices[j].torch)
            continue;
        sb_append(sb, "<th class=\"num dv\">");
        html_esc(sb, r->devices[j].label);
        sb_append(sb, " host &micro;s</th><th class=\"num\">cold s</th><th class=\"num\">warm s"
                      "</th>");
    }
    sb_append(sb, "</tr></thead><tbody>\n");
    for (int k = 0; k < t->nrows; k++) {
        sb_append(sb, "<tr class=\"cost\"><td><span class=\"op\">");
        html_esc(sb, t->rows[k].first->op);
        sb_append(sb, "</span></td>");
        for (int j = 0; j < t->ndevices; j++) {
            const report_bench *b = t->rows[k].per_device[j];
            char buf[32];
            if (r->devices[j].torch)
                continue;
            sb_printf(sb, "<td class=\"num dv%s\">%s</td>", b ? "" : " na",
                      report_fmt(b ? b->host_us : NAN, "%.1f", buf, sizeof buf));
            html_num(sb, b ? b->cold_compile_s : NAN, "%.2f");
            html_num(sb, b ? b->warm_first_call_s : NAN, "%.3f");
        }
        sb_append(sb, "</tr>\n");
    }
    sb_append(sb, "</tbody></table></div></section>\n");
}

/* --- skips -------------------------------------------------------------------------- */

#define SKIP_GROUPS 64

/* Skip reasons and their counts. */
typedef struct skip_groups {
    int n, other;
    const char *why[SKIP_GROUPS];
    int count[SKIP_GROUPS];
} skip_groups;

/* Counts one skip under its reason (the message, "no reason given" when
 * there is none). */
static void skip_add(skip_groups *g, const char *msg)
{
    const char *why = msg && *msg ? msg : "no reason given";
    for (int i = 0; i < g->n; i++)
        if (strcmp(g->why[i], why) == 0) {
            g->count[i]++;
            return;
        }
    if (g->n == SKIP_GROUPS) {
        g->other++;
        return;
    }
    g->why[g->n] = why;
    g->count[g->n++] = 1;
}

/* One table of skip reasons. */
static void skip_table(const char *title, const skip_groups *g, int total, strbuf *sb)
{
    sb_printf(sb, "<h3>%s: %d</h3>\n", title, total);
    if (total == 0)
        return;
    sb_append(sb, "<table><thead><tr><th class=\"num\">Count</th><th>Reason</th></tr></thead>"
                  "<tbody>\n");
    for (int i = 0; i < g->n; i++) {
        sb_printf(sb, "<tr><td class=\"num\">%d</td><td class=\"msg\">", g->count[i]);
        html_esc(sb, g->why[i]);
        sb_append(sb, "</td></tr>\n");
    }
    if (g->other)
        sb_printf(sb, "<tr><td class=\"num\">%d</td><td class=\"msg\">other reasons (see "
                      "report.json)</td></tr>\n",
                  g->other);
    sb_append(sb, "</tbody></table>\n");
}

void html_skips(const report *r, strbuf *sb)
{
    skip_groups *g = calloc(2, sizeof *g);
    sb_append(sb, "<section class=\"panel\" id=\"skips\"><h2>Skipped</h2>\n<p class=\"hint\">"
                  "Cases and benchmarks that did not run, counted by reason.</p>\n");
    if (!g) {
        sb_append(sb, "<p class=\"none\">(out of memory)</p></section>\n");
        return;
    }
    int nc = 0, nb = 0;
    for (int i = 0; i < r->nchecks; i++)
        if (r->checks[i].status == REPORT_SKIP) {
            skip_add(&g[0], r->checks[i].message);
            nc++;
        }
    for (int i = 0; i < r->nbenches; i++)
        if (r->benches[i].status == REPORT_SKIP) {
            skip_add(&g[1], r->benches[i].message);
            nb++;
        }
    skip_table("Skipped checks", &g[0], nc, sb);
    skip_table("Skipped benchmarks", &g[1], nb, sb);
    sb_append(sb, "</section>\n");
    free(g);
}
