/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tools/cli/report_perf.c: the performance summary of a report, shared by
 * report.html, report.md and the terminal summary of `clops compare`.
 *
 * Rows are the bench table's (op, dtype, case) rows, measured at the same
 * shapes on every device; a row measured on only one device of several
 * (a skip elsewhere, or a report from before the shapes were shared) takes
 * no part in the comparison.  Per op family (the `family` of the results) it
 * counts on how many rows each device was the fastest (shortest time per
 * call) and the geometric mean of each device's speed relative to the
 * baseline device (baseline time / device time, over the rows both
 * measured) and, per device, the share of its copy peak its bandwidth rows
 * reach (the one-device summary: a device against itself says nothing,
 * against its ceiling it says how much of the memory system the ops use);
 * it also counts the results above the copy peak and the
 * benchmarks skipped or erroring.  The ops failing a check anywhere and
 * the ops that fell back to the CPU come from the op x device matrix.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tools/cli/report.h"

/* The family of a row ("other" when the report does not say). */
static const char *row_family(const report_bench_row *row)
{
    return row->first->family[0] ? row->first->family : "other";
}

bool report_bench_measured(const report_bench *b)
{
    return b && b->status == REPORT_PASS && isfinite(b->device_us) && b->device_us > 0;
}

bool report_bench_above_peak(const report *r, const report_bench *b)
{
    (void)r;
    return b && isfinite(b->ratio_to_peak) && b->ratio_to_peak > REPORT_PEAK_NOISE;
}

void report_perf_summarize(const report *r, const report_bench_table *t, report_perf_summary *s)
{
    memset(s, 0, sizeof *s);
    int nd = t->ndevices < REPORT_SUM_MAX_DEVICES ? t->ndevices : REPORT_SUM_MAX_DEVICES;
    s->ndevices = nd;
    s->baseline = report_baseline_pos(r);
    double logsum[REPORT_SUM_MAX_FAMILIES][REPORT_SUM_MAX_DEVICES] = {{0}};
    double logpeak[REPORT_SUM_MAX_FAMILIES][REPORT_SUM_MAX_DEVICES] = {{0}};
    for (int k = 0; k < t->nrows; k++) {
        const report_bench_row *row = &t->rows[k];
        for (int j = 0; j < nd; j++) {
            const report_bench *b = row->per_device[j];
            if (!b)
                continue;
            s->above_peak += report_bench_above_peak(r, b);
            s->skipped += b->status == REPORT_SKIP;
            s->errors += b->status == REPORT_ERROR;
        }
        const char *fam = row_family(row);
        int f = 0;
        while (f < s->nfamilies && strcmp(s->fam[f].family, fam) != 0)
            f++;
        if (f == s->nfamilies) {
            if (f == REPORT_SUM_MAX_FAMILIES)
                f--; /* the last family collects the rest */
            else
                snprintf(s->fam[s->nfamilies++].family, sizeof s->fam[f].family, "%s", fam);
        }
        report_family_perf *fp = &s->fam[f];
        for (int j = 0; j < nd; j++) {
            const report_bench *b = row->per_device[j];
            double q = b ? b->ratio_to_peak : NAN;
            fp->measured[j] += report_bench_measured(b);
            if (!report_bench_measured(b) || !isfinite(q) || q <= 0)
                continue;
            if (fp->ceiling_rows[j] == 0 || q < fp->of_ceiling_min[j])
                fp->of_ceiling_min[j] = q;
            if (fp->ceiling_rows[j] == 0 || q > fp->of_ceiling_max[j])
                fp->of_ceiling_max[j] = q;
            logpeak[f][j] += log(q);
            fp->ceiling_rows[j]++;
        }
        int best = -1, measured = 0;
        for (int j = 0; j < nd; j++) {
            const report_bench *b = row->per_device[j];
            measured += report_bench_measured(b);
            if (report_bench_measured(b) &&
                (best < 0 || b->device_us < row->per_device[best]->device_us))
                best = j;
        }
        /* A row measured on one device of several compares nothing. */
        if (best < 0 || (nd > 1 && measured < 2))
            continue;
        fp->rows++;
        fp->wins[best]++;
        for (int j = 0; j < nd; j++) {
            int bp = report_peer_pos(r, j);
            const report_bench *base = row->per_device[bp < nd ? bp : 0];
            const report_bench *b = row->per_device[j];
            if (report_bench_measured(b) && report_bench_measured(base)) {
                logsum[f][j] += log(base->device_us / b->device_us);
                fp->compared[j]++;
            }
        }
    }
    for (int f = 0; f < s->nfamilies; f++) {
        report_family_perf *fp = &s->fam[f];
        fp->fastest = -1;
        for (int j = 0; j < nd; j++) {
            fp->speedup[j] = fp->compared[j] ? exp(logsum[f][j] / fp->compared[j]) : NAN;
            int c = fp->ceiling_rows[j];
            fp->of_ceiling[j] = c ? exp(logpeak[f][j] / c) : NAN;
            if (!c)
                fp->of_ceiling_min[j] = fp->of_ceiling_max[j] = NAN;
            if (fp->wins[j] && (fp->fastest < 0 || fp->wins[j] > fp->wins[fp->fastest]))
                fp->fastest = j;
        }
    }
}

bool report_perf_compares(const report_perf_summary *s)
{
    return s->ndevices > 1;
}

/* Appends `name` to a comma-separated list in buf (bounded, "..." when
 * full); returns the new count. */
static int list_add(char *buf, size_t cap, int n, const char *name)
{
    size_t len = strlen(buf);
    if (len + strlen(name) + 8 < cap)
        snprintf(buf + len, cap - len, "%s%s", n ? ", " : "", name);
    else if (len + 5 < cap && !strstr(buf, "..."))
        snprintf(buf + len, cap - len, ", ...");
    return n + 1;
}

void report_op_lists(const report *r, const report_matrix *m, const report_bench_table *t,
                     report_op_lists_t *out)
{
    memset(out, 0, sizeof *out);
    for (int i = 0; i < m->nops; i++) {
        bool failing = false, fellback = false;
        for (int j = 0; j < m->ndevices; j++) {
            const report_cell *c = report_matrix_cell(m, i, j);
            failing |= c->fail + c->error > 0;
            fellback |= c->fallback;
        }
        for (int k = 0; k < t->nrows && !fellback; k++)
            if (strcmp(t->rows[k].first->op, m->ops[i]) == 0)
                for (int j = 0; j < t->ndevices; j++)
                    fellback |= t->rows[k].per_device[j] &&
                                t->rows[k].per_device[j]->kernel == REPORT_KERNEL_FALLBACK;
        if (failing)
            out->nfailing = list_add(out->failing, sizeof out->failing, out->nfailing, m->ops[i]);
        if (fellback)
            out->nfallback =
                list_add(out->fallback, sizeof out->fallback, out->nfallback, m->ops[i]);
    }
    (void)r;
}

/* The words of one gemm program name ("gemm/mma/float16/a-k/b-n/CONFIG[/split]", "gemm/wgmma/..."). */
static void gemm_words(const char *prog, char *buf, size_t cap)
{
    char kind[16] = "";
    sscanf(prog, "gemm/%15[^/]", kind);
    bool split = strstr(prog, "/split") != NULL;
    if (strcmp(kind, "mma") == 0 || strcmp(kind, "wgmma") == 0) {
        /* the configuration is the component after b-... */
        const char *cfg = strstr(prog, "/b-");
        cfg = cfg ? strchr(cfg + 1, '/') : NULL;
        int len = cfg ? (int)strcspn(cfg + 1, "/:") : 0;
        snprintf(buf, cap, "%s %.*s%s", kind, len, cfg ? cfg + 1 : "", split ? ", split-K" : "");
    } else {
        snprintf(buf, cap, "%s%s",
                 strcmp(kind, "fma") == 0    ? "FMA"
                 : strcmp(kind, "cpu") == 0  ? "FMA (CPU atom)"
                 : kind[0]                   ? kind
                                             : "GEMM",
                 split ? ", split-K" : "");
    }
}

char *report_engine_path(const report_bench *b, char *buf, size_t cap)
{
    buf[0] = '\0';
    const char *fam = b->family;
    if (!b->launches[0] || (strcmp(fam, "matrix") != 0 && strcmp(fam, "conv") != 0 &&
                            strcmp(fam, "attention") != 0))
        return buf;
    char gemm[96] = "";
    bool clblast = strstr(b->launches, "CLBlast") != NULL;
    bool im2col = strstr(b->launches, ":conv_im2col") || strstr(b->launches, ":conv_col2im");
    bool depthwise = strstr(b->launches, ":conv_depthwise") != NULL;
    const char *g = strstr(b->launches, "gemm/");
    if (g)
        gemm_words(g, gemm, sizeof gemm);
    else if (clblast)
        snprintf(gemm, sizeof gemm, "CLBlast");
    if (strstr(b->launches, "attention-mma/"))
        snprintf(buf, cap, "fused, mma");
    else if (strncmp(b->launches, "attention/", 10) == 0 || strstr(b->launches, ", attention/"))
        snprintf(buf, cap, "fused, FMA");
    else if (strcmp(fam, "conv") == 0 && depthwise)
        snprintf(buf, cap, "depthwise");
    else if (strcmp(fam, "conv") == 0 && gemm[0])
        snprintf(buf, cap, "%s, %s", im2col ? "im2col + GEMM" : "implicit GEMM", gemm);
    else if (gemm[0])
        snprintf(buf, cap, "%s%s", gemm, clblast && g ? " + CLBlast" : "");
    return buf;
}

int report_model_names(const report *r, const char **names, int cap)
{
    int n = 0;
    for (int i = 0; i < r->nmodels; i++) {
        bool seen = false;
        for (int k = 0; k < n; k++)
            seen |= strcmp(names[k], r->models[i].model) == 0;
        if (!seen && n < cap)
            names[n++] = r->models[i].model;
    }
    return n;
}

const report_model *report_model_at(const report *r, const char *model, int j)
{
    for (int i = 0; i < r->nmodels; i++)
        if (strcmp(r->models[i].model, model) == 0 &&
            report_device_pos(r, r->models[i].device) == j)
            return &r->models[i];
    return NULL;
}

char *report_model_text(const report_model *m, char *buf, size_t cap)
{
    if (m->status != REPORT_PASS) {
        snprintf(buf, cap, "%s%s%.200s", report_status_name(m->status), m->message ? ": " : "",
                 m->message ? m->message : "");
        return buf;
    }
    int n = snprintf(buf, cap, "%.1f ms/step", m->ms_per_step);
    if (isfinite(m->fallbacks_per_step) && n > 0 && (size_t)n < cap)
        snprintf(buf + n, cap - (size_t)n, ", %.0f CPU fallback%s/step%s%.200s%s",
                 m->fallbacks_per_step, m->fallbacks_per_step == 1 ? "" : "s",
                 m->message ? " (" : "", m->message ? m->message : "", m->message ? ")" : "");
    return buf;
}
