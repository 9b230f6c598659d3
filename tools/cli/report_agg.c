/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tools/cli/report_agg.c: what the report renderers share: the op × device
 * matrix and the bench rows (built in one pass each through a small hash
 * index, so a full run of hundreds of thousands of results renders
 * quickly), number formatting, and report_write_dir, which writes the
 * three report files.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/error.h"
#include "host/host.h"
#include "tools/cli/report.h"

/* --- aggregation ----------------------------------------------------------------------- */

/* FNV-1a over up to three strings separated by a zero byte. */
static uint64_t rj_hash3(const char *a, const char *b, const char *c)
{
    uint64_t h = 1469598103934665603ull;
    const char *parts[3] = {a, b, c};
    for (int k = 0; k < 3; k++) {
        for (const char *p = parts[k]; p && *p; p++)
            h = (h ^ (unsigned char)*p) * 1099511628211ull;
        h = (h ^ 0xffu) * 1099511628211ull;
    }
    return h;
}

/* A hash set of keys given by index; key(i) compares through the callback. */
typedef struct rj_index {
    size_t cap;  /* power of two */
    int *slots;  /* key index + 1, 0 = empty */
} rj_index;

/* Finds the key (a, b, c) among keys[] through `same`, or inserts `fresh`
 * (returned then).  Returns the key's index. */
static int rj_index_find(rj_index *ix, const char *a, const char *b, const char *c, int fresh,
                         bool (*same)(const void *ctx, int i, const char *, const char *,
                                      const char *),
                         const void *ctx)
{
    size_t mask = ix->cap - 1, pos = (size_t)rj_hash3(a, b, c) & mask;
    while (ix->slots[pos]) {
        int i = ix->slots[pos] - 1;
        if (same(ctx, i, a, b, c))
            return i;
        pos = (pos + 1) & mask;
    }
    ix->slots[pos] = fresh + 1;
    return fresh;
}

/* Creates an index for up to n keys. */
static bool rj_index_init(rj_index *ix, int n)
{
    ix->cap = 16;
    while (ix->cap < (size_t)n * 2 + 16)
        ix->cap *= 2;
    ix->slots = calloc(ix->cap, sizeof *ix->slots);
    return ix->slots != NULL;
}

/* Key comparison for op names of the matrix. */
static bool rj_same_op(const void *ctx, int i, const char *a, const char *b, const char *c)
{
    const report_matrix *m = ctx;
    return strcmp(m->ops[i], a) == 0;
}

/* Folds one result's error into a cell. */
static void rj_cell_add(report_cell *cell, report_status st, report_kernel k, double abs_err,
                        double ulp_err, bool count)
{
    if (count) {
        switch (st) {
        case REPORT_PASS: cell->pass++; break;
        case REPORT_FAIL: cell->fail++; break;
        case REPORT_ERROR: cell->error++; break;
        default: cell->skip++; break;
        }
    }
    if (isfinite(abs_err) && !(abs_err <= cell->max_abs_err))
        cell->max_abs_err = abs_err;
    if (isfinite(ulp_err) && !(ulp_err <= cell->max_ulp_err))
        cell->max_ulp_err = ulp_err;
    cell->fallback |= k == REPORT_KERNEL_FALLBACK;
    cell->override_used |= k == REPORT_KERNEL_OVERRIDE;
}

clops_status report_matrix_build(const report *r, report_matrix *m)
{
    memset(m, 0, sizeof *m);
    int total = r->nchecks + r->nbenches;
    rj_index ix = {0, NULL};
    int *op_of = malloc(((size_t)total + 1) * sizeof *op_of);
    m->ops = malloc(((size_t)total + 1) * sizeof *m->ops);
    if (!op_of || !m->ops || !rj_index_init(&ix, total))
        goto oom;
    for (int i = 0; i < total; i++) {
        const char *op = i < r->nchecks ? r->checks[i].op : r->benches[i - r->nchecks].op;
        m->ops[m->nops] = op;
        op_of[i] = rj_index_find(&ix, op, NULL, NULL, m->nops, rj_same_op, m);
        if (op_of[i] == m->nops)
            m->nops++;
    }
    m->ndevices = r->ndevices;
    m->cells = calloc((size_t)m->nops * (size_t)m->ndevices + 1, sizeof *m->cells);
    if (!m->cells)
        goto oom;
    for (size_t k = 0; k < (size_t)m->nops * (size_t)m->ndevices; k++)
        m->cells[k].max_abs_err = m->cells[k].max_ulp_err = NAN;
    for (int i = 0; i < total; i++) {
        bool is_check = i < r->nchecks;
        const report_check *c = is_check ? &r->checks[i] : NULL;
        const report_bench *b = is_check ? NULL : &r->benches[i - r->nchecks];
        int j = report_device_pos(r, is_check ? c->device : b->device);
        if (j < 0)
            continue;
        report_cell *cell = &m->cells[(size_t)op_of[i] * (size_t)m->ndevices + (size_t)j];
        if (is_check)
            rj_cell_add(cell, c->status, c->kernel, c->max_abs_err, c->max_ulp_err, true);
        else
            rj_cell_add(cell, b->status, b->kernel, NAN, NAN, false);
    }
    free(op_of);
    free(ix.slots);
    return CLOPS_OK;
oom:
    free(op_of);
    free(ix.slots);
    report_matrix_free(m);
    return CLOPS__HOST_OOM("report matrix");
}

void report_matrix_free(report_matrix *m)
{
    if (!m)
        return;
    free(m->ops);
    free(m->cells);
    memset(m, 0, sizeof *m);
}

/* Key comparison for (op, dtype, case) rows of the bench table. */
static bool rj_same_row(const void *ctx, int i, const char *a, const char *b, const char *c)
{
    const report_bench_table *t = ctx;
    const report_bench *f = t->rows[i].first;
    return strcmp(f->op, a) == 0 && strcmp(f->dtype, b) == 0 && strcmp(f->case_name, c) == 0;
}

clops_status report_bench_table_build(const report *r, report_bench_table *t)
{
    memset(t, 0, sizeof *t);
    rj_index ix = {0, NULL};
    t->ndevices = r->ndevices;
    t->rows = calloc((size_t)r->nbenches + 1, sizeof *t->rows);
    if (!t->rows || !rj_index_init(&ix, r->nbenches))
        goto oom;
    int *row_of = malloc(((size_t)r->nbenches + 1) * sizeof *row_of);
    if (!row_of)
        goto oom;
    for (int i = 0; i < r->nbenches; i++) {
        const report_bench *b = &r->benches[i];
        t->rows[t->nrows].first = b;
        row_of[i] = rj_index_find(&ix, b->op, b->dtype, b->case_name, t->nrows, rj_same_row, t);
        if (row_of[i] == t->nrows)
            t->nrows++;
    }
    t->slots = calloc((size_t)t->nrows * (size_t)t->ndevices + 1, sizeof *t->slots);
    if (!t->slots) {
        free(row_of);
        goto oom;
    }
    for (int k = 0; k < t->nrows; k++)
        t->rows[k].per_device = t->slots + (size_t)k * (size_t)t->ndevices;
    for (int i = 0; i < r->nbenches; i++) {
        int j = report_device_pos(r, r->benches[i].device);
        if (j >= 0)
            t->rows[row_of[i]].per_device[j] = &r->benches[i];
    }
    free(row_of);
    free(ix.slots);
    return CLOPS_OK;
oom:
    free(ix.slots);
    report_bench_table_free(t);
    return CLOPS__HOST_OOM("report bench table");
}

void report_bench_table_free(report_bench_table *t)
{
    if (!t)
        return;
    free(t->rows);
    free(t->slots);
    memset(t, 0, sizeof *t);
}

char *report_fmt(double v, const char *fmt, char *buf, size_t cap)
{
    if (!isfinite(v))
        snprintf(buf, cap, "-");
    else
        snprintf(buf, cap, fmt, v);
    return buf;
}

char *report_fmt_err(double v, char *buf, size_t cap)
{
    if (!isfinite(v))
        snprintf(buf, cap, "-");
    else if (v == 0)
        snprintf(buf, cap, "0");
    else if (fabs(v) >= 1e-2 && fabs(v) < 1e4)
        snprintf(buf, cap, "%.3g", v);
    else
        snprintf(buf, cap, "%.1e", v);
    return buf;
}

/* --- files ---------------------------------------------------------------------------- */

/* Writes text to dir/name through a temporary file. */
static clops_status rj_write(const char *dir, const char *name, const char *text, size_t len)
{
    char path[4096], tmp[4200];
    int n = snprintf(path, sizeof path, "%s/%s", dir, name);
    if (n <= 0 || (size_t)n >= sizeof path)
        return clops__fail(CLOPS_IO_ERROR, "%s: path too long", dir);
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "wb");
    if (!f)
        return clops__fail(CLOPS_IO_ERROR, "%s: cannot create: %s", path, strerror(errno));
    bool ok = fwrite(text, 1, len, f) == len;
    int err = errno;
    ok = fclose(f) == 0 && ok;
    if (ok && rename(tmp, path) == 0)
        return CLOPS_OK;
    if (ok)
        err = errno;
    unlink(tmp);
    return clops__fail(CLOPS_IO_ERROR, "%s: cannot write: %s", path, strerror(err));
}

/* Writes report.md and report.html into an existing dir. */
static clops_status write_documents(const report *r, const char *dir)
{
    strbuf sb = STRBUF_INIT;
    clops_status st = report_render_md(r, &sb);
    if (!st)
        st = rj_write(dir, "report.md", sb_str(&sb), sb.len);
    sb_clear(&sb);
    if (!st)
        st = report_render_html(r, &sb);
    if (!st)
        st = rj_write(dir, "report.html", sb_str(&sb), sb.len);
    sb_free(&sb);
    return st;
}

clops_status report_write_docs(const report *r, const char *dir)
{
    if (!host_make_dirs(dir))
        return clops__fail(CLOPS_IO_ERROR, "%s: cannot create the directory: %s", dir,
                           strerror(errno));
    return write_documents(r, dir);
}

clops_status report_write_dir(const report *r, const char *dir)
{
    if (!host_make_dirs(dir))
        return clops__fail(CLOPS_IO_ERROR, "%s: cannot create the directory: %s", dir,
                           strerror(errno));
    cJSON *json = report_to_json(r);
    char *text = json ? cJSON_Print(json) : NULL;
    cJSON_Delete(json);
    if (!text)
        return CLOPS__HOST_OOM("report.json");
    strbuf sb = STRBUF_INIT;
    sb_append(&sb, text);
    sb_putc(&sb, '\n');
    cJSON_free(text);
    clops_status st = sb_finish(&sb, "report.json");
    if (!st)
        st = rj_write(dir, "report.json", sb_str(&sb), sb.len);
    sb_free(&sb);
    return st ? st : write_documents(r, dir);
}

int report_baseline_pos(const report *r)
{
    int pos = r->baseline >= 0 ? report_device_pos(r, r->baseline) : -1;
    return pos >= 0 ? pos : 0;
}

int report_peer_pos(const report *r, int pos)
{
    int base = report_baseline_pos(r);
    if (pos < 0 || pos >= r->ndevices || base >= r->ndevices || !r->devices[base].torch ||
        r->devices[pos].torch)
        return base;
    const char *bl = r->devices[base].label, *colon = strchr(bl, ':');
    if (!colon)
        return base;
    const clops_device_info *in = &r->devices[pos].info;
    const char *peer = in->is_gpu && in->vendor == CLOPS_VENDOR_NVIDIA ? "cuda" : "cpu";
    for (int j = 0; j < r->ndevices; j++) {
        const char *l = r->devices[j].label;
        if (r->devices[j].torch && strncmp(l, bl, (size_t)(colon - bl)) == 0 &&
            l[colon - bl] == ':' && strcmp(l + (colon - bl) + 1, peer) == 0)
            return j;
    }
    return base;
}

const char *report_peer_note(const report *r)
{
    for (int j = 0; j < r->ndevices; j++)
        if (report_peer_pos(r, j) != report_baseline_pos(r))
            return "; each OpenCL device against the PyTorch column of the same settings on "
                   "its own peer: CUDA beside an NVIDIA GPU, the CPU beside a CPU device";
    return "";
}

bool report_bench_is_compute(const report_bench *b)
{
    return isfinite(b->gflops) || isfinite(b->flop);
}

/* Raises rd's copy peak to clops' own float32 copy_ when that ran faster
 * in this run: copy_ is a plain copy too (on CPU devices the chunked
 * kernel of their launch policy, at the ops' own tensor size), so it is a
 * ceiling as much as the copy-peak kernels are, and an op above the
 * fastest copy measured is a measuring error, not an op above a wrong
 * ceiling.  The ratios of rd's results follow the new peak. */
void report_raise_peak_to_copy(report *r, report_device *rd)
{
    const report_bench *best = NULL;
    for (int i = 0; i < r->nbenches; i++) {
        const report_bench *b = &r->benches[i];
        if (b->device == rd->info.index && strcmp(b->op, "copy_") == 0 &&
            strcmp(b->dtype, "float32") == 0 && report_bench_measured(b) &&
            !report_bench_is_compute(b) && isfinite(b->gbs) && (!best || b->gbs > best->gbs))
            best = b;
    }
    if (best)
        report_raise_peak(r, rd, best->gbs, "clops' own copy_ (float32, the ops' size)");
}

void report_raise_arith_peaks(report *r, report_device *rd, double fma, double mma)
{
    double old_fma = rd->fma_peak_gflops, old_mma = rd->mma_peak_gflops;
    if (isfinite(fma) && !(isfinite(old_fma) && fma <= old_fma))
        rd->fma_peak_gflops = fma;
    if (isfinite(mma) && !(isfinite(old_mma) && mma <= old_mma))
        rd->mma_peak_gflops = mma;
    for (int i = 0; i < r->nbenches; i++) {
        report_bench *b = &r->benches[i];
        if (b->device != rd->info.index || !report_bench_is_compute(b) || !isfinite(b->gflops))
            continue;
        bool half = strcmp(b->dtype, "float16") == 0 || strcmp(b->dtype, "bfloat16") == 0;
        double ceiling = half && isfinite(rd->mma_peak_gflops) ? rd->mma_peak_gflops
                         : half || strcmp(b->dtype, "float32") == 0 ? rd->fma_peak_gflops
                                                                    : NAN;
        if (isfinite(ceiling) && ceiling > 0)
            b->ratio_to_peak = b->gflops / ceiling;
    }
}

void report_raise_peak(report *r, report_device *rd, double gbs, const char *kernel)
{
    if (!isfinite(gbs) || (isfinite(rd->copy_peak_gbs) && gbs <= rd->copy_peak_gbs))
        return;
    rd->copy_peak_gbs = gbs;
    snprintf(rd->copy_peak_kernel, sizeof rd->copy_peak_kernel, "%s", kernel);
    for (int i = 0; i < r->nbenches; i++) {
        report_bench *b = &r->benches[i];
        if (b->device == rd->info.index && isfinite(b->gbs) && !report_bench_is_compute(b))
            b->ratio_to_peak = b->gbs / gbs;
    }
}
