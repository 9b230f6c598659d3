/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tools/cli/report_html.c: report.html, the self-contained HTML report.
 *
 * One file that opens anywhere, offline: inline CSS, inline SVG charts, no
 * scripts, no fonts or images from the network (the tests check that the
 * output holds no http:// or https:// reference).  Sections: summary cards,
 * the device table with measured figures, the op × device pass/fail matrix
 * with maximum errors, the charts and performance tables
 * (report_html_perf.c), the ops that fell back to the CPU per device, the
 * skipped cases by reason, and the failing cases.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tools/cli/cli.h"
#include "tools/cli/report.h"
#include "tools/cli/report_html.h"

/* Most failing cases listed in full. */
#define HTML_MAX_FAILURES 500

/* Device colours (colour-blind friendly, none of them the red of "fail"). */
static const char *const html_palette[] = {"#4e79a7", "#f28e2b", "#76b7b2", "#b07aa1",
                                           "#59a14f", "#9c755f", "#ff9da7", "#bab0ac"};

const char *html_color(int j)
{
    return html_palette[j % (int)(sizeof html_palette / sizeof html_palette[0])];
}

void html_esc(strbuf *sb, const char *s)
{
    for (const char *p = s ? s : ""; *p; p++) {
        switch (*p) {
        case '&': sb_append(sb, "&amp;"); break;
        case '<': sb_append(sb, "&lt;"); break;
        case '>': sb_append(sb, "&gt;"); break;
        case '"': sb_append(sb, "&quot;"); break;
        case '\'': sb_append(sb, "&#39;"); break;
        default: sb_putc(sb, *p);
        }
    }
}

static const char html_css[] =
    ":root{--bg:#f4f5f7;--card:#fff;--ink:#1c2230;--muted:#606a7b;--line:#e4e7ec;"
    "--pass:#1a7f37;--pass-bg:#e7f5ec;--fail:#c62828;--fail-bg:#fdeceb;--skip:#6b7280;"
    "--skip-bg:#eef0f3;--err:#8e24aa;--err-bg:#f6e9f9;--warn:#a15c00;--warn-bg:#fff3dc}\n"
    "*{box-sizing:border-box}\n"
    "body{margin:0;background:var(--bg);color:var(--ink);font:14px/1.5 system-ui,-apple-system,"
    "'Segoe UI',Roboto,'Helvetica Neue',Arial,sans-serif}\n"
    ".wrap{max-width:1380px;margin:0 auto;padding:0 28px}\n"
    "header.top{background:#1e2633;color:#fff;padding:26px 0 22px}\n"
    "header.top h1{margin:0;font-size:23px;font-weight:600;letter-spacing:.2px}\n"
    "header.top .meta{margin:6px 0 0;color:#c3cad6;font-size:13px}\n"
    "header.top .meta b{color:#fff;font-weight:600}\n"
    "nav.toc{margin:18px 0 0;font-size:13px}\n"
    "nav.toc a{color:#9fc2ff;text-decoration:none;margin-right:18px}\n"
    ".cards{display:grid;grid-template-columns:repeat(auto-fit,minmax(150px,1fr));gap:14px;"
    "margin:22px 0}\n"
    ".card{background:var(--card);border:1px solid var(--line);border-radius:10px;"
    "padding:14px 18px}\n"
    ".card .num{font-size:26px;font-weight:650;line-height:1.2;"
    "font-variant-numeric:tabular-nums}\n"
    ".card .lbl{color:var(--muted);font-size:11.5px;text-transform:uppercase;"
    "letter-spacing:.6px}\n"
    ".card.ok .num{color:var(--pass)}.card.bad .num{color:var(--fail)}"
    ".card.warn .num{color:var(--warn)}\n"
    "section.panel{background:var(--card);border:1px solid var(--line);border-radius:10px;"
    "padding:20px 24px 22px;margin:20px 0;box-shadow:0 1px 2px rgba(16,24,40,.04)}\n"
    "h2{font-size:17px;font-weight:620;margin:0 0 4px}\n"
    "p.hint{color:var(--muted);margin:0 0 14px;font-size:13px}\n"
    ".scroll{overflow-x:auto}\n"
    "table{border-collapse:collapse;width:100%;font-size:13px}\n"
    "th,td{padding:7px 10px;border-bottom:1px solid var(--line);text-align:left;"
    "vertical-align:top}\n"
    "th{font-weight:600;color:var(--muted);font-size:12px;background:#f9fafb;"
    "white-space:nowrap;vertical-align:bottom}\n"
    "td.dev{min-width:240px}td.plat{min-width:190px}\n"
    "tbody tr:hover td{background:#fafbfd}\n"
    "td.num,th.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}\n"
    "td.na{color:#a3aab6}\n"
    ".op,code{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,'Liberation Mono',"
    "monospace;font-size:12.5px}\n"
    ".sub{display:block;color:var(--muted);font-size:12px;font-weight:400}\n"
    ".dot{display:inline-block;width:10px;height:10px;border-radius:3px;margin-right:7px;"
    "vertical-align:0}\n"
    ".pill{display:inline-block;padding:0 8px;border-radius:999px;font-size:11px;"
    "font-weight:650;text-transform:uppercase;letter-spacing:.4px;line-height:18px}\n"
    ".pill.pass{background:var(--pass-bg);color:var(--pass)}"
    ".pill.fail{background:var(--fail-bg);color:var(--fail)}"
    ".pill.skip{background:var(--skip-bg);color:var(--skip)}"
    ".pill.error{background:var(--err-bg);color:var(--err)}"
    ".pill.cpu{background:var(--warn-bg);color:var(--warn)}\n"
    ".pill.yes{background:var(--pass-bg);color:var(--pass)}"
    ".pill.no{background:var(--skip-bg);color:#9aa1ad;text-decoration:line-through}\n"
    "td.m{white-space:nowrap;min-width:150px}\n"
    "td.m.bad{background:#fff8f7}\n"
    ".frac{margin-left:6px;font-variant-numeric:tabular-nums;color:var(--ink)}\n"
    ".err{display:inline-block;margin-left:10px;color:var(--muted);font-size:11.5px;"
    "font-variant-numeric:tabular-nums}\n"
    "td.op,td.m{padding-top:4px;padding-bottom:4px}\n"
    ".legend{margin:0 0 10px;font-size:13px}\n"
    ".legend>span{margin-right:20px;white-space:nowrap;display:inline-block}\n"
    "td.nw{white-space:nowrap}\n"
    "tr.grp td{border-top:2px solid #d5d9e0}\n"
    ".chip{display:inline-block;background:var(--warn-bg);color:#6e4300;border-radius:6px;"
    "padding:1px 8px;margin:3px 6px 3px 0;font-size:12px}\n"
    ".fb h3{font-size:14px;margin:14px 0 4px}\n"
    ".none{color:var(--muted);font-size:13px}\n"
    ".note{background:var(--warn-bg);border-radius:8px;padding:8px 12px;margin:10px 0 0;"
    "font-size:13px}\n"
    "td.msg{max-width:520px;white-space:pre-wrap;word-break:break-word;color:#3b4250}\n"
    "svg text{font-family:system-ui,-apple-system,'Segoe UI',Roboto,Arial,sans-serif}\n"
    "svg .mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}\n"
    "footer{color:var(--muted);font-size:12px;padding:6px 0 40px}\n"
    /* The family table keeps its width (four devices and PyTorch columns
     * are wider than half the page); the lists beside it wrap below. */
    ".sum{display:flex;flex-wrap:wrap;gap:18px;align-items:flex-start}\n"
    ".sum>div{flex:1 1 320px}\n"
    ".sum>div:first-child{flex:0 1 auto}\n"
    ".sum h3{font-size:13.5px;margin:0 0 6px}\n"
    ".above{color:var(--fail);font-weight:600}\n"
    "td.dv{border-left:2px solid #d5d9e0}\n";

/* Header bar, summary cards and table of contents. */
static void html_head(const report *r, const report_matrix *m, strbuf *sb)
{
    report_summary s = report_summarize(r);
    int fallbacks = 0;
    for (int i = 0; i < m->nops; i++)
        for (int j = 0; j < m->ndevices; j++)
            fallbacks += report_matrix_cell(m, i, j)->fallback;
    char wall[32];
    sb_append(sb, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                  "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
    sb_printf(sb, "<title>clops report: %d devices, %d ops</title>\n<style>\n",
              report_ndevices_clops(r), m->nops);
    sb_append(sb, html_css);
    sb_append(sb, "</style>\n</head>\n<body>\n<header class=\"top\"><div class=\"wrap\">\n"
                  "<h1>clops operator report</h1>\n<p class=\"meta\">clops <b>");
    html_esc(sb, r->clops_version);
    sb_append(sb, "</b> &middot; <code>clops ");
    html_esc(sb, r->command);
    sb_append(sb, "</code>");
    if (r->mode[0]) {
        sb_append(sb, " (");
        html_esc(sb, r->mode);
        sb_append(sb, " run)");
    }
    sb_append(sb, " &middot; ");
    html_esc(sb, r->created[0] ? r->created : "unknown time");
    sb_append(sb, " &middot; host <b>");
    html_esc(sb, r->host[0] ? r->host : "?");
    sb_printf(sb, "</b> &middot; %s</p>\n", cli_fmt_seconds(r->wall_s, wall, sizeof wall));
    sb_append(sb, "<nav class=\"toc\"><a href=\"#summary\">Summary</a>");
    if (r->nmodels)
        sb_append(sb, "<a href=\"#models\">Models</a>");
    sb_append(sb, "<a href=\"#devices\">"
                  "Devices</a><a href=\"#matrix\">Correctness</a><a href=\"#bandwidth\">"
                  "Charts</a><a href=\"#perf\">Performance</a><a href=\"#fallbacks\">CPU "
                  "fallbacks</a><a href=\"#skips\">Skipped</a><a href=\"#failures\">"
                  "Failures</a></nav>\n</div></header>\n<main class=\"wrap\">\n"
                  "<section class=\"cards\">\n");
    struct {
        const char *cls, *label;
        int value;
    } cards[] = {{"", "devices", report_ndevices_clops(r)},        {"", "ops", m->nops},
                 {"ok", "cases passed", s.passed},    {s.failed ? "bad" : "", "failed", s.failed},
                 {"", "skipped", s.skipped},          {fallbacks ? "warn" : "", "CPU fallbacks",
                                                       fallbacks}};
    for (size_t i = 0; i < sizeof cards / sizeof cards[0]; i++)
        sb_printf(sb, "<div class=\"card %s\"><div class=\"num\">%d</div>"
                      "<div class=\"lbl\">%s</div></div>\n",
                  cards[i].cls, cards[i].value, cards[i].label);
    sb_append(sb, "</section>\n");
}

void html_num(strbuf *sb, double v, const char *fmt)
{
    char buf[48];
    report_fmt(v, fmt, buf, sizeof buf);
    sb_printf(sb, "<td class=\"num%s\">%s</td>", isfinite(v) ? "" : " na", buf);
}

/* Device name with its colour dot and label underneath. */
static void html_device_name(strbuf *sb, const report_device *d, int j)
{
    sb_printf(sb, "<span class=\"dot\" style=\"background:%s\"></span>", html_color(j));
    html_esc(sb, d->info.name);
    sb_append(sb, "<span class=\"sub\">");
    html_esc(sb, d->label);
    sb_append(sb, " &middot; ");
    html_esc(sb, clops_vendor_name(d->info.vendor));
    sb_append(sb, "</span>");
}

/* The device table. */
static void html_devices(const report *r, strbuf *sb)
{
    sb_append(sb, "<section class=\"panel\" id=\"devices\"><h2>Devices</h2>\n"
                  "<p class=\"hint\">Capabilities as the driver reports them, and figures "
                  "measured in this run: copy peak (the best of several copy kernels on a large "
                  "buffer, named under the figure: a ceiling for every op), "
                  "launch overhead (launch + finish of a tiny kernel), host enqueue cost and "
                  "program build times.</p>\n<div class=\"scroll\"><table><thead><tr>"
                  "<th>#</th><th>Device</th><th>Platform</th><th>Driver</th><th>Type</th>"
                  "<th class=\"num\">CUs</th><th class=\"num\">Memory</th><th>Float types</th>"
                  "<th class=\"num\">Copy peak<br>GB/s</th><th class=\"num\">Launch<br>&micro;s"
                  "</th><th class=\"num\">Enqueue<br>&micro;s</th><th class=\"num\">Build s<br>"
                  "cold / warm</th></tr></thead><tbody>\n");
    for (int j = 0; j < r->ndevices; j++) {
        const report_device *d = &r->devices[j];
        char mem[32];
        if (d->torch)
            continue; /* a PyTorch column: its settings follow the table */
        sb_printf(sb, "<tr><td class=\"num\">%d</td><td class=\"dev\">", d->info.index);
        html_device_name(sb, d, j);
        sb_append(sb, "</td><td class=\"plat\">");
        html_esc(sb, d->info.platform_name);
        sb_append(sb, "<span class=\"sub\">");
        html_esc(sb, d->info.platform_version);
        sb_append(sb, "</span></td><td>");
        html_esc(sb, d->info.driver_version);
        sb_printf(sb, "</td><td>%s</td><td class=\"num\">%u</td><td class=\"num\">%s</td>",
                  d->info.type == CLOPS_DEVICE_CPU ? "host" : d->info.is_gpu ? "GPU" : "CPU",
                  d->info.compute_units, cli_fmt_bytes(d->info.global_mem_bytes, mem, sizeof mem));
        sb_printf(sb, "<td class=\"nw\"><span class=\"pill %s\">fp64</span> "
                      "<span class=\"pill %s\">fp16</span></td>",
                  d->info.fp64 ? "yes" : "no", d->info.fp16 ? "yes" : "no");
        {
            char pk[32];
            sb_printf(sb, "<td class=\"num\">%s", report_fmt(d->copy_peak_gbs, "%.1f", pk,
                                                             sizeof pk));
            if (d->copy_peak_kernel[0]) {
                sb_append(sb, "<span class=\"sub\">");
                html_esc(sb, d->copy_peak_kernel);
                sb_append(sb, "</span>");
            }
            sb_append(sb, "</td>");
        }
        html_num(sb, d->launch_us, "%.1f");
        html_num(sb, d->enqueue_us, "%.1f");
        char cold[32], warm[32];
        sb_printf(sb, "<td class=\"num\">%s / %s</td>",
                  report_fmt(d->build_cold_s, "%.2f", cold, sizeof cold),
                  report_fmt(d->build_warm_s, "%.3f", warm, sizeof warm));
        sb_append(sb, "</tr>\n");
    }
    sb_append(sb, "</tbody></table></div>\n");
    if (r->note && *r->note) {
        sb_append(sb, "<p class=\"note\"><b>Device discovery:</b> ");
        html_esc(sb, r->note);
        sb_append(sb, "</p>\n");
    }
    for (int j = 0; j < r->ndevices; j++)
        if (r->devices[j].torch) {
            sb_printf(sb, "<p class=\"note\"><span class=\"dot\" style=\"background:%s\">"
                          "</span><b>PyTorch column ",
                      html_color(j));
            html_esc(sb, r->devices[j].label);
            sb_append(sb, ":</b> ");
            html_esc(sb, r->devices[j].settings);
            sb_append(sb, ".</p>\n");
        }
    sb_append(sb, "</section>\n");
}

/* One cell of the pass/fail matrix. */
static void html_matrix_cell(strbuf *sb, const report_cell *c)
{
    int ran = c->pass + c->fail + c->error;
    if (ran + c->skip == 0) {
        sb_append(sb, "<td class=\"m na\">&mdash;</td>");
        return;
    }
    bool bad = c->fail || c->error;
    const char *cls = c->fail ? "fail" : c->error ? "error" : ran ? "pass" : "skip";
    sb_printf(sb, "<td class=\"m%s\"><span class=\"pill %s\">%s</span>", bad ? " bad" : "", cls,
              cls);
    if (ran)
        sb_printf(sb, "<span class=\"frac\">%d/%d</span>", c->pass, ran);
    if (c->fallback)
        sb_append(sb, " <span class=\"pill cpu\" title=\"ran on the CPU fallback\">cpu</span>");
    if (isfinite(c->max_abs_err)) {
        char e[32], u[32];
        sb_printf(sb, "<span class=\"err\">max err %s",
                  report_fmt_err(c->max_abs_err, e, sizeof e));
        if (isfinite(c->max_ulp_err))
            sb_printf(sb, " &middot; %s ulp", report_fmt(c->max_ulp_err, "%.0f", u, sizeof u));
        sb_append(sb, "</span>");
    } else if (c->skip && ran) {
        sb_printf(sb, "<span class=\"err\">%d skipped</span>", c->skip);
    }
    sb_append(sb, "</td>");
}

/* The op × device pass/fail matrix. */
static void html_matrix(const report *r, const report_matrix *m, strbuf *sb)
{
    sb_append(sb, "<section class=\"panel\" id=\"matrix\"><h2>Correctness: op &times; device"
                  "</h2>\n<p class=\"hint\">Each cell counts the cases (dtypes &times; shapes "
                  "&times; layouts) that passed against the CPU reference, with the largest "
                  "absolute error and, for floating types, the largest error in ULPs. "
                  "<span class=\"pill cpu\">cpu</span> marks ops that ran on the CPU fallback."
                  "</p>\n");
    if (r->nchecks == 0) {
        sb_append(sb, "<p class=\"none\">No correctness results in this report.</p></section>\n");
        return;
    }
    sb_append(sb, "<div class=\"scroll\"><table><thead><tr><th>Op</th>");
    for (int j = 0; j < r->ndevices; j++) {
        if (r->devices[j].torch)
            continue; /* PyTorch is timed, not checked */
        sb_append(sb, "<th>");
        html_device_name(sb, &r->devices[j], j);
        sb_append(sb, "</th>");
    }
    sb_append(sb, "</tr></thead><tbody>\n");
    for (int i = 0; i < m->nops; i++) {
        sb_append(sb, "<tr><td class=\"op\">");
        html_esc(sb, m->ops[i]);
        sb_append(sb, "</td>");
        for (int j = 0; j < r->ndevices; j++)
            if (!r->devices[j].torch)
                html_matrix_cell(sb, report_matrix_cell(m, i, j));
        sb_append(sb, "</tr>\n");
    }
    sb_append(sb, "</tbody></table></div></section>\n");
}

/* The model table (compare --torch). */
static void html_models(const report *r, strbuf *sb)
{
    const char *names[16];
    int n = report_model_names(r, names, 16);
    if (n == 0)
        return;
    sb_append(sb, "<section class=\"panel\" id=\"models\"><h2>Models</h2>\n<p class=\"hint\">"
                  "A whole model&#39;s forward step on each device (through the clops PyTorch "
                  "device) and on PyTorch: the median time per step, and the CPU fallback "
                  "calls per step with their ops.</p>\n<div class=\"scroll\"><table><thead>"
                  "<tr><th>Model</th>");
    for (int j = 0; j < r->ndevices; j++) {
        sb_printf(sb, "<th class=\"num\"><span class=\"dot\" style=\"background:%s\"></span>",
                  html_color(j));
        html_esc(sb, r->devices[j].label);
        sb_append(sb, "</th>");
    }
    sb_append(sb, "</tr></thead><tbody>\n");
    for (int i = 0; i < n; i++) {
        sb_append(sb, "<tr><td class=\"op\">");
        html_esc(sb, names[i]);
        sb_append(sb, "</td>");
        for (int j = 0; j < r->ndevices; j++) {
            const report_model *m = report_model_at(r, names[i], j);
            char buf[600];
            sb_printf(sb, "<td class=\"num%s\">", m && m->status == REPORT_PASS ? "" : " na");
            html_esc(sb, m ? report_model_text(m, buf, sizeof buf) : "-");
            sb_append(sb, "</td>");
        }
        sb_append(sb, "</tr>\n");
    }
    sb_append(sb, "</tbody></table></div></section>\n");
}

/* The ops that ran on the CPU fallback, per device. */
static void html_fallbacks(const report *r, const report_matrix *m, strbuf *sb)
{
    sb_append(sb, "<section class=\"panel fb\" id=\"fallbacks\"><h2>Ops that fell back to the "
                  "CPU</h2>\n<p class=\"hint\">These ops have no kernel for the device: their "
                  "inputs were copied to the host, computed by the CPU reference and copied "
                  "back.</p>\n");
    for (int j = 0; j < r->ndevices; j++) {
        const report_device *d = &r->devices[j];
        if (d->info.type == CLOPS_DEVICE_CPU || d->torch)
            continue;
        int n = 0;
        for (int i = 0; i < m->nops; i++)
            n += report_matrix_cell(m, i, j)->fallback;
        sb_printf(sb, "<h3><span class=\"dot\" style=\"background:%s\"></span>", html_color(j));
        html_esc(sb, d->label);
        sb_append(sb, " &middot; ");
        html_esc(sb, d->info.name);
        sb_printf(sb, " <span class=\"sub\" style=\"display:inline\">(%d)</span></h3>\n<div>", n);
        if (n == 0)
            sb_append(sb, "<span class=\"none\">None: every op ran on the device.</span>");
        for (int i = 0; i < m->nops; i++)
            if (report_matrix_cell(m, i, j)->fallback) {
                sb_append(sb, "<span class=\"chip op\">");
                html_esc(sb, m->ops[i]);
                sb_append(sb, "</span>");
            }
        sb_append(sb, "</div>\n");
    }
    sb_append(sb, "</section>\n");
}

/* The failing and erroring cases. */
static void html_failures(const report *r, strbuf *sb)
{
    report_summary s = report_summarize(r);
    sb_printf(sb, "<section class=\"panel\" id=\"failures\"><h2>Failures (%d)</h2>\n", s.failed);
    if (s.failed == 0) {
        sb_append(sb, "<p class=\"none\">No failing case.</p></section>\n");
        return;
    }
    sb_append(sb, "<div class=\"scroll\"><table><thead><tr><th>Op</th><th>dtype</th>"
                  "<th>Case</th><th>Device</th><th>Status</th><th>Kernel</th><th class=\"num\">"
                  "Max abs err</th><th class=\"num\">Max ulp</th><th>Message</th></tr></thead>"
                  "<tbody>\n");
    int shown = 0;
    for (int i = 0; i < r->nchecks && shown < HTML_MAX_FAILURES; i++) {
        const report_check *c = &r->checks[i];
        if (c->status != REPORT_FAIL && c->status != REPORT_ERROR)
            continue;
        int j = report_device_pos(r, c->device);
        char e[32];
        sb_append(sb, "<tr><td class=\"op\">");
        html_esc(sb, c->op);
        sb_append(sb, "</td><td>");
        html_esc(sb, c->dtype);
        sb_append(sb, "</td><td>");
        html_esc(sb, c->case_name);
        sb_printf(sb, "</td><td class=\"nw\"><span class=\"dot\" style=\"background:%s\">"
                      "</span>",
                  html_color(j < 0 ? 0 : j));
        html_esc(sb, j < 0 ? "?" : r->devices[j].label);
        sb_printf(sb, "</td><td><span class=\"pill %s\">%s</span></td><td class=\"nw\">%s</td>"
                      "<td class=\"num\">%s</td>",
                  report_status_name(c->status), report_status_name(c->status),
                  report_kernel_human(c->kernel), report_fmt_err(c->max_abs_err, e, sizeof e));
        html_num(sb, c->max_ulp_err, "%.0f");
        sb_append(sb, "<td class=\"msg\">");
        html_esc(sb, c->message);
        sb_append(sb, "</td></tr>\n");
        shown++;
    }
    sb_append(sb, "</tbody></table></div>\n");
    if (s.failed > shown)
        sb_printf(sb, "<p class=\"hint\">%d more in report.json.</p>\n", s.failed - shown);
    sb_append(sb, "</section>\n");
}

clops_status report_render_html(const report *r, strbuf *sb)
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
    html_head(r, &m, sb);
    html_summary(r, &m, &t, sb);
    html_models(r, sb);
    html_devices(r, sb);
    html_matrix(r, &m, sb);
    html_charts(r, &t, sb);
    html_perf(r, &t, sb);
    html_fallbacks(r, &m, sb);
    html_skips(r, sb);
    html_failures(r, sb);
    sb_append(sb, "</main>\n<footer class=\"wrap\">Generated by clops ");
    html_esc(sb, r->clops_version);
    sb_append(sb, ". This page is self-contained: it loads nothing from the network. The same "
                  "results are in report.json (machine-readable) and report.md (for bug "
                  "reports).</footer>\n</body>\n</html>\n");
    report_matrix_free(&m);
    report_bench_table_free(&t);
    return sb_finish(sb, "report.html");
}
