/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tools/cli/report_html.h: what the two files of the HTML report share:
 * report_html.c (page, devices, correctness matrix, fallbacks, failures)
 * and report_html_perf.c (summary, charts, performance tables, skips).
 */
#ifndef CLOPS_TOOLS_CLI_REPORT_HTML_H
#define CLOPS_TOOLS_CLI_REPORT_HTML_H

#include "core/strbuf.h"
#include "tools/cli/report.h"

/* Colour of the device at position j. */
const char *html_color(int j);
/* Appends text with &, <, >, " and ' escaped. */
void html_esc(strbuf *sb, const char *s);
/* A numeric table cell ("-" cells greyed). */
void html_num(strbuf *sb, double v, const char *fmt);

/* The summary panel: fastest device per op family, ops failing anywhere,
 * ops that fell back to the CPU, benchmark counts. */
void html_summary(const report *r, const report_matrix *m, const report_bench_table *t,
                  strbuf *sb);
/* The charts: bandwidth (GB/s) and compute (GFLOP/s), one group of bars
 * per op with a bar per device, on logarithmic axes. */
void html_charts(const report *r, const report_bench_table *t, strbuf *sb);
/* The performance table: one row per op, a column group per device (time,
 * GB/s or GFLOP/s, speed relative to the baseline), then host costs and
 * first calls. */
void html_perf(const report *r, const report_bench_table *t, strbuf *sb);
/* Skipped checks and benchmarks, counted by reason. */
void html_skips(const report *r, strbuf *sb);

#endif /* CLOPS_TOOLS_CLI_REPORT_HTML_H */
