/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench/bench_family.c: the one runner of the op-family benchmarks.  Each
 * family is a descriptor, bench/cases/<family>.yaml (the vocabulary is in
 * tools/check/check_family.c); this program times its rows on every
 * selected OpenCL device, with the device's copy peak measured in the same
 * run, and bench/torch_family.py times the same rows with PyTorch.
 *
 *     bench_family --family NAME [--device SEL]... [--scale S] [--reps N]
 *                  [--json FILE] [--case GLOB] [--cases FILE] [--list]
 *     bench_family --floor [--device SEL]... [--reps N]
 *     bench_<family> [same options]   (links to bench_family made by the build:
 *                                      bench_reduce, bench_sort, bench_norm, ...)
 *
 * Each row is materialised once (inputs filled as the row says, out=
 * tensors resized by the first, untimed call) and called boxed through the
 * dispatcher: the median over 5 batches of --reps back-to-back calls, each
 * batch ended by one synchronisation (bench_common.h's time_calls, which
 * torch_common.py's time_call mirrors).  GB/s counts the row's byte model,
 * GFLOP/s its flop model, Mkeys/s its key model (check_family.h).
 * --scale S shrinks the size symbols as the descriptor says (POCL runs);
 * --list prints the rows with their evaluated shapes and models, which
 * `torch_family.py --list` prints identically.  --json writes one object
 * per (device, row): device, device_name, case, torch_case, op, dtype,
 * us_per_call, and where the row has them bytes, gbs, peak_gbs,
 * ratio_to_peak, gflops, rate and rate_unit (what bench/compare_family.py
 * and bench/compare_torch.py read).  Exit status 0; 1 when a row failed
 * (its error is printed in its place); 2 for a bad command line or
 * descriptor; 3 when the JSON cannot be written.
 *
 * --floor times the driver's own cost per call on each selected device,
 * no clops op involved (issue 36: the floor of the short CPU rows): an
 * empty one-item kernel enqueued back to back (one finish per batch), the
 * same with clFinish after each, with a blocking 8-byte read after each
 * (what an op that checks a device-side flag waits for), and a buffer
 * fill + kernel + read (the index family's flag sequence); wall and
 * process CPU time (POCL's worker threads included) per call, the median
 * of 5 batches of --reps.  bench/cases/floor_cpu.yaml gives the same
 * floor through clops' ops, beside PyTorch's.
 */
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "bench/bench_common.h"
#include "clops/ops.h"
#include "tools/check/check_family.h"
#include "tools/opgen/yaml_json.h"

#ifndef CLOPS_BENCH_CASES_DIR
#define CLOPS_BENCH_CASES_DIR "bench/cases"
#endif

/* Reads a YAML file as JSON (NULL with a message on stderr). */
static cJSON *load_yaml(const char *path)
{
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        fprintf(stderr, "bench: cannot open %s\n", path);
        return NULL;
    }
    yaml_parser_t parser;
    yaml_document_t doc;
    cJSON *json = NULL;
    if (!yaml_parser_initialize(&parser)) {
        fclose(fp);
        return NULL;
    }
    yaml_parser_set_input_file(&parser, fp);
    if (!yaml_parser_load(&parser, &doc)) {
        fprintf(stderr, "bench: %s: line %zu: %s\n", path, parser.problem_mark.line + 1,
                parser.problem ? parser.problem : "YAML error");
    } else {
        strbuf sb = STRBUF_INIT;
        yaml_to_json(&sb, &doc, yaml_document_get_root_node(&doc));
        if (sb_finish(&sb, "bench descriptor") == CLOPS_OK)
            json = cJSON_Parse(sb_str(&sb));
        if (!json)
            fprintf(stderr, "bench: %s: not a descriptor\n", path);
        sb_free(&sb);
        yaml_document_delete(&doc);
    }
    yaml_parser_delete(&parser);
    fclose(fp);
    return json;
}

static clops_status run_row(void *ctx)
{
    return chk_fam_call(ctx);
}

/* Adds a number member unless it is NAN. */
static void add_num(cJSON *o, const char *key, double v)
{
    if (isfinite(v))
        cJSON_AddNumberToObject(o, key, v);
}

/* Times row i on d; prints its line and adds its JSON object to rows.
 * false when the row failed (its error printed). */
static bool bench_row(const chk_fam *f, int i, clops_device *d, double peak, int reps,
                      cJSON *rows)
{
    const char *id = chk_fam_row_id(f, i);
    chk_fam_row *r = NULL;
    clops_status st = chk_fam_prepare(f, i, d, &r);
    double t = 0;
    if (st == CLOPS_OK)
        t = time_calls(d, run_row, r, reps, 5, &st);
    /* kernel launches of one more call (the per-call floor times them on
     * CPU devices) */
    clops_device_counters c0, c1;
    double launches = NAN;
    if (st == CLOPS_OK && clops_device_get_counters(d, &c0) == CLOPS_OK &&
        (st = run_row(r)) == CLOPS_OK && clops_device_get_counters(d, &c1) == CLOPS_OK)
        launches = (double)(c1.launches - c0.launches);
    if (st) {
        printf("  %-36s error: %s\n", id, clops_last_error());
        chk_fam_row_free(r);
        return false;
    }
    double bytes, flop, keys;
    chk_fam_model(r, &bytes, &flop, &keys);
    chk_fam_row_free(r);
    double gbs = bytes > 0 ? bytes / t / 1e9 : NAN, ratio = peak > 0 ? gbs / peak : NAN;
    double gflops = flop / t / 1e9, mkeys = keys / t / 1e6;
    char extra[64] = "";
    if (isfinite(gflops))
        snprintf(extra, sizeof extra, "%10.1f GFLOP/s", gflops);
    else if (isfinite(mkeys))
        snprintf(extra, sizeof extra, "%10.1f Mkeys/s", mkeys);
    printf("  %-36s %10.1f %10.1f %8.3f %s\n", id, t * 1e6, gbs, ratio, extra);
    fflush(stdout);
    if (!rows)
        return true;
    const clops_device_info *in = clops_device_get_info(d);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "device", clops_device_label(d));
    cJSON_AddStringToObject(o, "device_name", in->name);
    cJSON_AddStringToObject(o, "case", id);
    cJSON_AddStringToObject(o, "torch_case", chk_fam_row_torch_case(f, i));
    cJSON_AddStringToObject(o, "op", chk_fam_row_op(f, i));
    cJSON_AddStringToObject(o, "dtype", chk_fam_row_dtype(f, i));
    cJSON_AddNumberToObject(o, "us_per_call", t * 1e6);
    add_num(o, "bytes", bytes);
    add_num(o, "gbs", gbs);
    add_num(o, "peak_gbs", peak);
    add_num(o, "ratio_to_peak", ratio);
    add_num(o, "launches", launches);
    add_num(o, "flop", flop);
    add_num(o, "gflops", gflops);
    if (isfinite(mkeys)) {
        cJSON_AddNumberToObject(o, "rate", mkeys);
        cJSON_AddStringToObject(o, "rate_unit", "Mkeys/s");
    }
    cJSON_AddItemToArray(rows, o);
    return true;
}

/* Writes the JSON rows to path. */
static bool write_json(const char *path, const cJSON *rows)
{
    char *text = cJSON_Print(rows);
    FILE *fp = text ? fopen(path, "w") : NULL;
    bool ok = fp && fputs(text, fp) >= 0 && fputc('\n', fp) != EOF;
    if (fp && fclose(fp) != 0)
        ok = false;
    if (!ok)
        fprintf(stderr, "bench: cannot write %s\n", path);
    free(text);
    return ok;
}

/* ---- --floor ------------------------------------------------------------- */

typedef struct floor_ctx {
    clops_device *d;
    host_kernel *k;
    host_block *b;
    int mode; /* 0 enqueue, 1 + finish, 2 + read, 3 fill + enqueue + read */
} floor_ctx;

static clops_status floor_source(void *ctx, const clops_device *d, strbuf *sb)
{
    (void)ctx;
    (void)d;
    sb_append(sb, "__kernel void floor_nop(__global int *p) { }\n");
    return CLOPS_OK;
}

static clops_status floor_call(floor_ctx *c)
{
    clops_status st = CLOPS_OK;
    if (c->mode == 3)
        st = host_fill_zero(c->d, c->b->mem, 0, 32);
    host_arg a[] = {{sizeof c->b->mem, &c->b->mem}};
    if (!st)
        st = host_launch_local(c->d, c->k, 1, a, 1, 1);
    if (!st && c->mode == 1)
        st = host_finish(c->d);
    if (!st && c->mode >= 2) {
        int64_t v = 0;
        st = host_read(c->d, c->b->mem, 0, &v, sizeof v);
    }
    return st;
}

/* Microseconds on clock id. */
static double clock_us(clockid_t id)
{
    struct timespec t;
    clock_gettime(id, &t);
    return (double)t.tv_sec * 1e6 + (double)t.tv_nsec * 1e-3;
}

/* The --floor table of device d. */
static int floor_device(clops_device *d, int reps)
{
    static const char *const what[] = {"enqueue (back to back)", "enqueue + clFinish",
                                       "enqueue + blocking read 8 B",
                                       "fill 32 B + enqueue + read 8 B"};
    host_kkey key = {{0x666c6f6f72ull << 24, 0, 0, 0}};
    host_kernel_request req = {.program_name = "bench/floor",
                               .kernel_name = "floor_nop",
                               .gen_source = floor_source};
    floor_ctx c = {.d = d};
    clops_status st = host_kernel_get(d, &key, &req, &c.k);
    if (!st)
        st = host_alloc(d, 32, &c.b);
    const clops_device_info *in = clops_device_get_info(d);
    printf("device %s: %s (%s, driver %s)\n  driver floor per call, %d calls a batch:\n",
           clops_device_label(d), in->name, in->platform_name, in->driver_version, reps);
    printf("  %-34s %10s %10s\n", "sequence", "wall us", "CPU us");
    for (int m = 0; m < 4 && !st; m++) {
        c.mode = m;
        double w[5], cpu[5];
        st = floor_call(&c);
        if (!st)
            st = host_finish(d);
        for (int b = 0; b < 5 && !st; b++) {
            double w0 = clock_us(CLOCK_MONOTONIC), c0 = clock_us(CLOCK_PROCESS_CPUTIME_ID);
            for (int r = 0; r < reps && !st; r++)
                st = floor_call(&c);
            if (!st)
                st = host_finish(d);
            w[b] = (clock_us(CLOCK_MONOTONIC) - w0) / reps;
            cpu[b] = (clock_us(CLOCK_PROCESS_CPUTIME_ID) - c0) / reps;
        }
        if (st)
            break;
        qsort(w, 5, sizeof w[0], cmp_double);
        qsort(cpu, 5, sizeof cpu[0], cmp_double);
        printf("  %-34s %10.1f %10.1f\n", what[m], w[2], cpu[2]);
    }
    host_free(c.b);
    if (st)
        printf("  error: %s\n", clops_last_error());
    fflush(stdout);
    return st ? 1 : 0;
}

/* The runner: family NULL takes it from --family. */
static int bench_family_main(int argc, char **argv, const char *family)
{
    bench_args args;
    bool floor = false;
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--floor") == 0) {
            floor = true;
            memmove(&argv[i], &argv[i + 1], (size_t)(argc - i) * sizeof argv[0]);
            argc--;
            break;
        }
    if (!bench_parse_args(argc, argv, argv[0], true, &args))
        return 2;
    if (floor) {
        int rc = 0, ndev = 0;
        clops_device_count(&ndev);
        for (int di = 1; di < ndev; di++) {
            clops_device *d = bench_selected(&args, di);
            if (d)
                rc |= floor_device(d, args.reps);
        }
        clops_shutdown();
        return rc;
    }
    if (!family)
        family = args.family;
    char path[1024];
    if (args.cases)
        snprintf(path, sizeof path, "%s", args.cases);
    else if (family)
        snprintf(path, sizeof path, "%s/%s.yaml", CLOPS_BENCH_CASES_DIR, family);
    else {
        fprintf(stderr, "%s: --family NAME or --cases FILE, please\n", argv[0]);
        return 2;
    }
    cJSON *doc = load_yaml(path);
    chk_fam *f = NULL;
    if (!doc || chk_fam_open(doc, args.scale, &f) != CLOPS_OK) {
        if (doc)
            fprintf(stderr, "bench: %s: %s\n", path, clops_last_error());
        return 2;
    }
    char sizes[512];
    chk_fam_sizes_text(f, sizes, sizeof sizes);
    int rc = 0;
    if (args.list) {
        printf("family %s: %s\n", chk_fam_name(f), sizes);
        for (int i = 0; i < chk_fam_nrows(f) && rc == 0; i++) {
            char line[2048];
            if (args.only && fnmatch(args.only, chk_fam_row_id(f, i), 0) != 0)
                continue;
            if (chk_fam_row_text(f, i, line, sizeof line) == CLOPS_OK) {
                printf("%s\n", line);
            } else {
                fprintf(stderr, "bench: %s\n", clops_last_error());
                rc = 2;
            }
        }
        chk_fam_free(f);
        return rc;
    }
    cJSON *rows = args.json ? cJSON_CreateArray() : NULL;
    int ndev = 0;
    clops_device_count(&ndev);
    for (int di = 1; di < ndev; di++) {
        clops_device *d = bench_selected(&args, di);
        if (!d)
            continue;
        const clops_device_info *in = clops_device_get_info(d);
        int64_t pn = chk_fam_peak_elems(f);
        double peak = copy_peak(d, pn, args.reps);
        printf("device %s: %s (%s, driver %s)\n", clops_device_label(d), in->name,
               in->platform_name, in->driver_version);
        printf("  family %s, %s\n", chk_fam_name(f), sizes);
        printf("  copy peak (float4 copy kernel, %lld elements): %.1f GB/s\n", (long long)pn,
               peak);
        printf("  %-36s %10s %10s %8s\n", "case", "us/call", "GB/s", "/peak");
        for (int i = 0; i < chk_fam_nrows(f); i++)
            if ((!args.only || fnmatch(args.only, chk_fam_row_id(f, i), 0) == 0) &&
                !bench_row(f, i, d, peak, args.reps, rows))
                rc = 1;
    }
    if (rows && !write_json(args.json, rows))
        rc = 3;
    cJSON_Delete(rows);
    chk_fam_free(f);
    clops_shutdown();
    return rc;
}

/* bench_<family> (a link to this program) runs that family. */
int main(int argc, char **argv)
{
    const char *base = strrchr(argv[0], '/');
    base = base ? base + 1 : argv[0];
    bool named = strncmp(base, "bench_", 6) == 0 && strcmp(base, "bench_family") != 0;
    return bench_family_main(argc, argv, named ? base + 6 : NULL);
}
