/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/test_cli_cmds.c: the `clops` commands ops, check, bench, compare,
 * run and warmup, run as the real program (CLOPS_CLI_EXE, the clops
 * executable of this build) in child processes, the way users and CI run
 * them: exit codes, error messages for bad arguments and bad .npy files,
 * the JSON documents of docs/json-format.md parsed with cJSON field by
 * field, and `clops run` round trips against the library's own result.
 */
#include <cjson/cJSON.h>
#include <fcntl.h>
#include <math.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "clops/ops.h"
#include "support/clops_test.h"
#include "tools/cli/npy.h"

#ifndef CLOPS_CLI_EXE
#error "CLOPS_CLI_EXE must name the clops executable"
#endif

extern char **environ;

static char tmpdir[512];

/* --- running the program ------------------------------------------------------ */

/* What a run printed and returned. */
typedef struct run_out {
    int code;
    char *out, *err; /* malloc'd, NUL-terminated */
} run_out;

/* Reads a whole file (malloc'd; "" when missing). */
static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    long n = 0;
    if (f && fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0) {
        buf = malloc((size_t)n + 1);
        if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n)
            n = 0;
    }
    if (f)
        fclose(f);
    if (!buf)
        buf = malloc(1), n = 0;
    assert_non_null(buf);
    buf[n] = '\0';
    return buf;
}

/* Runs `clops ARGS...` (NULL-terminated) with stdout and stderr in files. */
static run_out clops_run(const char *first, ...)
{
    const char *argv[64] = {CLOPS_CLI_EXE};
    int argc = 1;
    va_list ap;
    va_start(ap, first);
    for (const char *a = first; a && argc < 63; a = va_arg(ap, const char *))
        argv[argc++] = a;
    va_end(ap);
    argv[argc] = NULL;
    char out_path[600], err_path[600];
    snprintf(out_path, sizeof out_path, "%s/stdout.txt", tmpdir);
    snprintf(err_path, sizeof err_path, "%s/stderr.txt", tmpdir);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&fa, 2, err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    pid_t pid;
    int rc = posix_spawn(&pid, CLOPS_CLI_EXE, &fa, NULL, (char *const *)argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    CT_ASSERT_MSG(rc == 0, "cannot run %s", CLOPS_CLI_EXE);
    int status = 0;
    waitpid(pid, &status, 0);
    run_out r = {WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(out_path), slurp(err_path)};
    return r;
}

/* Frees what a run printed. */
static void run_free(run_out *r)
{
    free(r->out);
    free(r->err);
}

/* Fails unless the run exited with `code`, printing what it said. */
#define EXPECT_EXIT(r, c)                                                                  \
    CT_ASSERT_MSG((r).code == (c), "exit %d, expected %d\nstdout:\n%s\nstderr:\n%s", (r).code, \
                  (c), (r).out, (r).err)

/* A path in the test's temporary directory. */
static const char *path_of(const char *name)
{
    static char buf[8][700];
    static int k;
    char *p = buf[k++ % 8];
    snprintf(p, 700, "%s/%s", tmpdir, name);
    return p;
}

/* Writes bytes to a file in the temporary directory; returns its path. */
static const char *write_bytes(const char *name, const void *data, size_t len)
{
    const char *p = path_of(name);
    FILE *f = fopen(p, "wb");
    CT_ASSERT(f && fwrite(data, 1, len, f) == len);
    fclose(f);
    return p;
}

/* Writes a float32 .npy file. */
static const char *write_f32(const char *name, int ndim, const int64_t *shape, const float *v)
{
    npy_array a = NPY_ARRAY_INIT;
    CT_OK(npy_alloc(&a, CLOPS_FLOAT32, ndim, shape));
    memcpy(a.data, v, a.nbytes);
    const char *p = path_of(name);
    CT_OK(npy_write_file(p, &a));
    npy_free(&a);
    return p;
}

/* Parses a JSON file (fails the test when it is not JSON). */
static cJSON *read_json(const char *path)
{
    char *text = slurp(path);
    cJSON *doc = cJSON_Parse(text);
    CT_ASSERT_MSG(doc != NULL, "%s is not JSON:\n%.2000s", path, text);
    free(text);
    return doc;
}

/* Member `key` of o; fails the test when it is missing. */
static const cJSON *get(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    CT_ASSERT_MSG(v != NULL, "missing key '%s'", key);
    return v;
}

/* A number or null, as the format says for figures. */
static void expect_number_or_null(const cJSON *o, const char *key)
{
    const cJSON *v = get(o, key);
    CT_ASSERT_MSG(cJSON_IsNumber(v) || cJSON_IsNull(v), "'%s' is neither a number nor null", key);
}

/* Checks the envelope and the device objects of a document; returns the
 * results array. */
static const cJSON *check_envelope(const cJSON *doc, const char *command)
{
    CT_ASSERT(cJSON_IsString(get(doc, "clops_version")));
    CT_ASSERT(strcmp(get(doc, "command")->valuestring, command) == 0);
    const cJSON *devs = get(doc, "devices");
    CT_ASSERT(cJSON_IsArray(devs) && cJSON_GetArraySize(devs) > 0);
    for (const cJSON *d = devs->child; d; d = d->next) {
        CT_ASSERT(cJSON_IsNumber(get(d, "index")));
        const char *keys[] = {"label", "platform", "name", "vendor", "driver"};
        for (size_t k = 0; k < CT_COUNT(keys); k++)
            CT_ASSERT(cJSON_IsString(get(d, keys[k])));
        const cJSON *caps = get(d, "capabilities");
        CT_ASSERT(cJSON_IsBool(get(caps, "fp64")) && cJSON_IsNumber(get(caps, "compute_units")));
    }
    const cJSON *res = get(doc, "results");
    CT_ASSERT(cJSON_IsArray(res));
    for (const cJSON *r = res->child; r; r = r->next) {
        const cJSON *dev = get(r, "device");
        bool found = false;
        for (const cJSON *d = devs->child; d && !found; d = d->next)
            found = get(d, "index")->valueint == dev->valueint;
        CT_ASSERT_MSG(found, "result device %d is not in 'devices'", dev->valueint);
        const char *st = get(r, "status")->valuestring;
        CT_ASSERT(strcmp(st, "pass") == 0 || strcmp(st, "fail") == 0 || strcmp(st, "skip") == 0 ||
                  strcmp(st, "error") == 0);
        CT_ASSERT(cJSON_IsString(get(r, "op")) && cJSON_IsString(get(r, "dtype")) &&
                  cJSON_IsString(get(r, "case")) && cJSON_IsString(get(r, "kernel")));
        const cJSON *m = get(r, "message");
        CT_ASSERT(cJSON_IsString(m) || cJSON_IsNull(m));
    }
    return res;
}

/* --- fixtures --------------------------------------------------------------------- */

static int setup(void **state)
{
    (void)state;
    ct_temp_dir("cli-cmds", tmpdir, sizeof tmpdir);
    setenv("CLOPS_PROGRESS", "plain", 1);
    return 0;
}

/* Removes the temporary directory and shuts clops down. */
static int teardown(void **state)
{
    ct_remove_tree(tmpdir);
    return ct_teardown_group(state);
}

/* --- argument errors ----------------------------------------------------------------- */

/* Every command answers --help with its usage and exit 0. */
static void test_every_command_has_help(void **state)
{
    (void)state;
    const char *cmds[] = {"ops", "check", "bench", "compare", "run", "warmup"};
    for (size_t i = 0; i < CT_COUNT(cmds); i++) {
        run_out r = clops_run(cmds[i], "--help", NULL);
        EXPECT_EXIT(r, 0);
        CT_ASSERT_MSG(strstr(r.out, "clops ") && strstr(r.out, cmds[i]), "%s --help: %s",
                      cmds[i], r.out);
        run_free(&r);
    }
}

/* An unknown op, device, option or case set is a usage error (exit 2)
 * that names it. */
static void test_unknown_names_are_usage_errors(void **state)
{
    (void)state;
    run_out r = clops_run("run", "nosuch_op.Tensor", "x.npy", "-o", "y.npy", NULL);
    EXPECT_EXIT(r, 2);
    CT_ASSERT(strstr(r.err, "nosuch_op"));
    run_free(&r);
    r = clops_run("check", "--op", "nosuch_op*", NULL);
    EXPECT_EXIT(r, 2);
    CT_ASSERT(strstr(r.err, "no operator"));
    run_free(&r);
    r = clops_run("check", "--device", "no-such-device-xyz", "--op", "abs", NULL);
    EXPECT_EXIT(r, 2);
    CT_ASSERT(strstr(r.err, "no-such-device-xyz"));
    run_free(&r);
    r = clops_run("bench", "--set", "huge", NULL);
    EXPECT_EXIT(r, 2);
    CT_ASSERT(strstr(r.err, "huge"));
    run_free(&r);
    r = clops_run("check", "--dtype", "float128", "--op", "abs", NULL);
    EXPECT_EXIT(r, 2);
    run_free(&r);
    r = clops_run("ops", "--table", "nosuch_op", NULL);
    EXPECT_EXIT(r, 2);
    run_free(&r);
}

/* clops run refuses bad .npy files clearly: wrong magic, truncated data,
 * a dtype clops lacks; a missing argument and an unknown --arg too. */
static void test_bad_npy_files_are_usage_errors(void **state)
{
    (void)state;
    const char *bad_magic = write_bytes("bad_magic.npy", "PK\x03\x04not numpy at all", 20);
    run_out r = clops_run("run", "neg", bad_magic, "-o", path_of("o.npy"), NULL);
    EXPECT_EXIT(r, 2);
    CT_ASSERT_MSG(strstr(r.err, "bad_magic.npy"), "%s", r.err);
    run_free(&r);

    /* A valid header for 6 floats followed by 8 bytes of data. */
    unsigned char *img = NULL;
    size_t len = 0;
    npy_array a = NPY_ARRAY_INIT;
    CT_OK(npy_alloc(&a, CLOPS_FLOAT32, 1, (const int64_t[]){6}));
    memset(a.data, 0, a.nbytes);
    CT_OK(npy_encode(&a, 1, &img, &len));
    npy_free(&a);
    const char *trunc = write_bytes("truncated.npy", img, len - 16);
    free(img);
    r = clops_run("run", "neg", trunc, "-o", path_of("o.npy"), NULL);
    EXPECT_EXIT(r, 2);
    CT_ASSERT_MSG(strstr(r.err, "truncated.npy"), "%s", r.err);
    run_free(&r);

    static const char c8[] = "\x93NUMPY\x01\x00\x76\x00{'descr': '<c8', 'fortran_order': False, "
                             "'shape': (2,), }";
    char hdr[10 + 118];
    memset(hdr, ' ', sizeof hdr);
    memcpy(hdr, c8, sizeof c8 - 1);
    hdr[sizeof hdr - 1] = '\n';
    char file[sizeof hdr + 16];
    memcpy(file, hdr, sizeof hdr);
    memset(file + sizeof hdr, 0, 16);
    const char *complex = write_bytes("complex.npy", file, sizeof file);
    r = clops_run("run", "neg", complex, "-o", path_of("o.npy"), NULL);
    EXPECT_EXIT(r, 2);
    CT_ASSERT_MSG(strstr(r.err, "complex.npy") && strstr(r.err, "c8"), "%s", r.err);
    run_free(&r);

    const float v[2] = {1, 2};
    const char *good = write_f32("good.npy", 1, (const int64_t[]){2}, v);
    r = clops_run("run", "add.Tensor", good, "-o", path_of("o.npy"), NULL);
    EXPECT_EXIT(r, 2);
    CT_ASSERT_MSG(strstr(r.err, "other"), "%s", r.err);
    run_free(&r);
    r = clops_run("run", "neg", good, "--arg", "bogus=1", "-o", path_of("o.npy"), NULL);
    EXPECT_EXIT(r, 2);
    CT_ASSERT_MSG(strstr(r.err, "bogus"), "%s", r.err);
    run_free(&r);
}

/* --- clops run ------------------------------------------------------------------------- */

/* Reads a float32 .npy result. */
static npy_array read_npy(const char *path)
{
    npy_array a = NPY_ARRAY_INIT;
    CT_OK(npy_read_file(path, 0, &a));
    return a;
}

/* add.Tensor on .npy inputs equals the library's own add, on the device. */
static void test_run_round_trip_equals_the_library(void **state)
{
    (void)state;
    float x[6] = {1.5f, -2.0f, 3.25f, 0.0f, -0.5f, 100.0f}, y[3] = {0.25f, 4.0f, -8.0f};
    const char *a = write_f32("a.npy", 2, (const int64_t[]){2, 3}, x);
    const char *b = write_f32("b.npy", 1, (const int64_t[]){3}, y);
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_devices(devs, CT_MAX_DEVICES);
    for (int k = 0; k < nd; k++) {
        ct_set_device(devs[k]);
        const char *out = path_of("sum.npy");
        run_out r = clops_run("run", "add.Tensor", "--device", clops_device_label(devs[k]),
                              "--arg", "alpha=2", a, b, "-o", out, NULL);
        EXPECT_EXIT(r, 0);
        CT_ASSERT_MSG(strstr(r.out, "add.Tensor(") && strstr(r.out, "float32[2, 3]"), "%s", r.out);
        run_free(&r);
        npy_array got = read_npy(out);
        CT_ASSERT(got.dtype == CLOPS_FLOAT32 && got.ndim == 2 && got.shape[0] == 2 &&
                  got.shape[1] == 3);
        clops_tensor *ta = NULL, *tb = NULL, *want = NULL;
        CT_OK(clops_from_host(ct_cpu(), CLOPS_FLOAT32, 2, (const int64_t[]){2, 3}, x, sizeof x,
                              &ta));
        CT_OK(clops_from_host(ct_cpu(), CLOPS_FLOAT32, 1, (const int64_t[]){3}, y, sizeof y, &tb));
        CT_OK(clops_add(ta, tb, clops_scalar_int(2), &want));
        float expect[6];
        CT_OK(clops_tensor_to_host(want, expect, sizeof expect));
        CT_ASSERT_CLOSE_HOST(got.data, expect, CLOPS_FLOAT32, 2, got.shape, CT_TOL_EXACT);
        npy_free(&got);
        clops_tensor_release(ta);
        clops_tensor_release(tb);
        clops_tensor_release(want);
    }
    ct_clear_context();
}

/* The exit-code rule of `clops run` (docs/cli.md): 2 when the command line
 * is wrong before the op is called, 3 when the op refuses its inputs. */
static void test_run_exits_3_when_the_op_refuses_its_inputs(void **state)
{
    (void)state;
    float x[6] = {1, 2, 3, 4, 5, 6}, y[4] = {1, 2, 3, 4};
    const char *a = write_f32("a23.npy", 2, (const int64_t[]){2, 3}, x);
    const char *b = write_f32("b4.npy", 1, (const int64_t[]){4}, y);
    /* Shapes that do not broadcast. */
    run_out r = clops_run("run", "add.Tensor", "--device", "cpu", a, b, "-o", path_of("o.npy"),
                          NULL);
    EXPECT_EXIT(r, 3);
    CT_ASSERT_MSG(strstr(r.err, "add.Tensor"), "%s", r.err);
    run_free(&r);
    /* A value the op does not accept. */
    r = clops_run("run", "gelu", "--device", "cpu", "--arg", "approximate=cubic", a, "-o",
                  path_of("o.npy"), NULL);
    EXPECT_EXIT(r, 3);
    CT_ASSERT_MSG(strstr(r.err, "approximate"), "%s", r.err);
    run_free(&r);
    /* A value that does not parse as its schema type is the command line's. */
    r = clops_run("run", "add.Tensor", "--device", "cpu", "--arg", "alpha=abc", a, a, "-o",
                  path_of("o.npy"), NULL);
    EXPECT_EXIT(r, 2);
    run_free(&r);
}

/* Mistyped op names, options and dtypes get the closest names. */
static void test_mistyped_names_get_suggestions(void **state)
{
    (void)state;
    run_out r = clops_run("check", "--op", "addd", NULL);
    EXPECT_EXIT(r, 2);
    CT_ASSERT_MSG(strstr(r.err, "no operator matches 'addd'") && strstr(r.err, "did you mean") &&
                      strstr(r.err, "'add'"),
                  "%s", r.err);
    run_free(&r);
    r = clops_run("check", "--devcie", "cpu", NULL);
    EXPECT_EXIT(r, 2);
    CT_ASSERT_MSG(strstr(r.err, "did you mean '--device'"), "%s", r.err);
    run_free(&r);
    r = clops_run("check", "--op", "abs", "--dtype", "flaot32", NULL);
    EXPECT_EXIT(r, 2);
    CT_ASSERT_MSG(strstr(r.err, "did you mean 'float32'"), "%s", r.err);
    run_free(&r);
    r = clops_run("ops", "--op", "relu_x", NULL);
    EXPECT_EXIT(r, 2);
    CT_ASSERT_MSG(strstr(r.err, "'relu_'"), "%s", r.err);
    run_free(&r);
}

/* A Fortran-ordered input is read in its logical order. */
static void test_run_reads_fortran_order(void **state)
{
    (void)state;
    /* The 2 x 3 array [[1, 2, 3], [4, 5, 6]] stored column by column. */
    static const char head[] = "\x93NUMPY\x01\x00\x76\x00{'descr': '<f4', 'fortran_order': True, "
                               "'shape': (2, 3), }";
    char file[128 + 24];
    memset(file, ' ', 128);
    memcpy(file, head, sizeof head - 1);
    file[127] = '\n';
    const float cols[6] = {1, 4, 2, 5, 3, 6};
    memcpy(file + 128, cols, sizeof cols);
    const char *in = write_bytes("fortran.npy", file, 128 + sizeof cols);
    const char *out = path_of("neg.npy");
    run_out r = clops_run("run", "neg", "--device", "cpu", in, "-o", out, NULL);
    EXPECT_EXIT(r, 0);
    run_free(&r);
    npy_array got = read_npy(out);
    const float want[6] = {-1, -2, -3, -4, -5, -6};
    CT_ASSERT(got.ndim == 2 && got.shape[0] == 2 && got.shape[1] == 3);
    CT_ASSERT(memcmp(got.data, want, sizeof want) == 0);
    npy_free(&got);
}

/* Scalar parameters, None for an optional tensor, and an in-place op. */
static void test_run_parses_arguments_by_schema_type(void **state)
{
    (void)state;
    float x[4] = {-2.0f, -0.5f, 0.5f, 7.0f};
    const char *in = write_f32("x.npy", 1, (const int64_t[]){4}, x);
    const char *out = path_of("clamped.npy");
    run_out r = clops_run("run", "clamp", "--device", "cpu", "--arg", "min=-1", "--arg",
                          "max=inf", in, "-o", out, NULL);
    EXPECT_EXIT(r, 0);
    run_free(&r);
    npy_array got = read_npy(out);
    const float want[4] = {-1.0f, -0.5f, 0.5f, 7.0f};
    CT_ASSERT(memcmp(got.data, want, sizeof want) == 0);
    npy_free(&got);
    r = clops_run("run", "leaky_relu_", "--arg", "negative_slope=0.5", in, "-o", out, NULL);
    EXPECT_EXIT(r, 0);
    run_free(&r);
    got = read_npy(out);
    const float lr[4] = {-1.0f, -0.25f, 0.5f, 7.0f};
    CT_ASSERT(memcmp(got.data, lr, sizeof lr) == 0);
    npy_free(&got);
}

/* --- JSON documents ----------------------------------------------------------------------- */

/* check --json: the envelope, one result per case with the documented
 * fields, and the summary; exit 0 when nothing failed. */
static void test_check_json_has_the_documented_fields(void **state)
{
    (void)state;
    const char *json = path_of("check.json");
    run_out r = clops_run("check", "--op", "abs", "--dtype", "float32,int32", "--json", json,
                          NULL);
    EXPECT_EXIT(r, 0);
    CT_ASSERT(strstr(r.out, "passed"));
    run_free(&r);
    cJSON *doc = read_json(json);
    const cJSON *res = check_envelope(doc, "check");
    int n = 0;
    for (const cJSON *o = res->child; o; o = o->next, n++) {
        CT_ASSERT(strcmp(get(o, "kind")->valuestring, "check") == 0);
        CT_ASSERT(strncmp(get(o, "op")->valuestring, "abs", 3) == 0);
        expect_number_or_null(o, "max_abs_error");
        expect_number_or_null(o, "max_ulp_error");
        expect_number_or_null(o, "seconds");
        CT_ASSERT(cJSON_IsString(get(o, "kernel_name")));
        if (strcmp(get(o, "dtype")->valuestring, "int32") == 0)
            CT_ASSERT(cJSON_IsNull(get(o, "max_ulp_error")));
    }
    CT_ASSERT(n >= 2 * 9);
    const cJSON *sum = get(doc, "summary");
    CT_ASSERT(get(sum, "passed")->valueint > 0 && get(sum, "failed")->valueint == 0);
    CT_ASSERT(cJSON_IsNumber(get(sum, "skipped")) && cJSON_IsNumber(get(sum, "errors")));
    cJSON_Delete(doc);
}

/* compare writes report.html, report.md and report.json with checks,
 * benchmarks and the devices' measured figures, and says where. */
static void test_compare_writes_the_report(void **state)
{
    (void)state;
    const char *dir = path_of("report");
    /* --no-torch: the same report whether or not python3 imports torch. */
    run_out r = clops_run("compare", "--op", "abs", "--out", dir, "--reps", "2", "--no-torch",
                          NULL);
    EXPECT_EXIT(r, 0);
    CT_ASSERT_MSG(strstr(r.out, "Report written to") && strstr(r.out, "report.html"), "%s", r.out);
    /* The devices up front, a performance summary at the end: devices
     * against the baseline, or one device against its ceiling (never a
     * device's speed against itself). */
    CT_ASSERT_MSG(strstr(r.err, "compare: ") && strstr(r.err, "[baseline]"), "%s", r.err);
    CT_ASSERT_MSG((strstr(r.out, "Performance (same shapes on every device") ||
                   strstr(r.out, "against its ceilings (copy peak")) &&
                      strstr(r.out, "pointwise"),
                  "%s", r.out);
    if (strstr(r.out, "against its ceilings"))
        CT_ASSERT_MSG(strstr(r.out, "of ceiling") && strstr(r.out, "FMA peak") &&
                          !strstr(r.out, "1.00x"),
                      "%s", r.out);
    run_free(&r);
    r = clops_run("compare", "--op", "abs", "--out", dir, "--baseline", "no-such-device", NULL);
    EXPECT_EXIT(r, 2);
    CT_ASSERT_MSG(strstr(r.err, "--baseline"), "%s", r.err);
    run_free(&r);
    char p[800];
    snprintf(p, sizeof p, "%s/report.html", dir);
    char *html = slurp(p);
    CT_ASSERT(strstr(html, "<html") && strstr(html, "<svg") && !strstr(html, "http://") &&
              !strstr(html, "<script"));
    free(html);
    snprintf(p, sizeof p, "%s/report.md", dir);
    char *md = slurp(p);
    CT_ASSERT(strstr(md, "abs"));
    free(md);
    snprintf(p, sizeof p, "%s/report.json", dir);
    cJSON *doc = read_json(p);
    const cJSON *res = check_envelope(doc, "compare");
    CT_ASSERT(strcmp(get(doc, "mode")->valuestring, "representative") == 0);
    CT_ASSERT(cJSON_IsNull(get(doc, "baseline_device")));
    CT_ASSERT(cJSON_IsString(get(doc, "created")) && cJSON_IsString(get(doc, "host")));
    expect_number_or_null(doc, "wall_seconds");
    int checks = 0, benches = 0;
    for (const cJSON *o = res->child; o; o = o->next) {
        const char *kind = get(o, "kind")->valuestring;
        if (strcmp(kind, "check") == 0) {
            checks++;
        } else {
            CT_ASSERT(strcmp(kind, "bench") == 0);
            benches++;
            const char *keys[] = {"gbs", "gflops", "ratio_to_peak", "host_us_per_call",
                                  "device_us_per_call", "cold_compile_s", "warm_first_call_s"};
            for (size_t k = 0; k < CT_COUNT(keys); k++)
                expect_number_or_null(o, keys[k]);
            CT_ASSERT(cJSON_IsNumber(get(o, "reps")));
            CT_ASSERT(strcmp(get(o, "family")->valuestring, "pointwise") == 0);
            expect_number_or_null(o, "flop_per_call");
            if (strcmp(get(o, "status")->valuestring, "pass") == 0) {
                CT_ASSERT(cJSON_IsNumber(get(o, "gbs")) && get(o, "gbs")->valuedouble > 0);
                /* abs reads its input and writes its result, once each */
                CT_ASSERT(cJSON_IsNumber(get(o, "bytes_per_call")) &&
                          cJSON_IsNull(get(o, "flop_per_call")));
            }
        }
    }
    CT_ASSERT(checks > 0 && benches > 0);
    for (const cJSON *d = get(doc, "devices")->child; d; d = d->next) {
        const cJSON *m = get(d, "measured");
        expect_number_or_null(m, "copy_peak_gbs");
        CT_ASSERT(cJSON_IsString(get(m, "copy_peak_kernel")));
        expect_number_or_null(m, "launch_us");
        expect_number_or_null(m, "build_cold_s");
    }
    const cJSON *sum = get(doc, "summary");
    CT_ASSERT(cJSON_IsNumber(get(sum, "passed")));
    cJSON_Delete(doc);
    /* clops report renders the same documents again from report.json. */
    const char *again = path_of("report-again");
    r = clops_run("report", p, "--out", again, NULL);
    EXPECT_EXIT(r, 0);
    run_free(&r);
    char p2[800];
    snprintf(p, sizeof p, "%s/report.md", dir);
    snprintf(p2, sizeof p2, "%s/report.md", again);
    char *md1 = slurp(p), *md2 = slurp(p2);
    CT_ASSERT_MSG(md2[0] && strcmp(md1, md2) == 0, "report.md differs when rendered again");
    free(md1);
    free(md2);
    snprintf(p2, sizeof p2, "%s/report.html", again);
    char *html2 = slurp(p2);
    CT_ASSERT(strstr(html2, "<html") && strstr(html2, "abs"));
    free(html2);
    r = clops_run("report", path_of("no-such-report.json"), NULL);
    EXPECT_EXIT(r, 2);
    run_free(&r);
}

/* The fake PyTorch helper of test_compare_torch_column: checks the
 * torch-cases document clops wrote and answers every case with 250 us per
 * call, the settings a real run reports, and `skip` for an op aten lacks. */
static const char fake_torch_helper[] =
    "import json, sys\n"
    "doc = json.load(open(sys.argv[1]))\n"
    "assert doc['format'] == 'clops-torch-cases' and doc['version'] == 1, doc\n"
    "assert doc['device'] == 'cpu' and doc['reps'] == 2, doc\n"
    "assert doc['float32_matmul_precision'] == 'highest', doc\n"
    "res = []\n"
    "for i, c in enumerate(doc['cases']):\n"
    "    assert c['op'] == 'abs.out' and c['dtype'] == 'float32', c\n"
    "    assert c['family'] == 'pointwise', c\n"
    "    a = {x['name']: x for x in c['args']}\n"
    "    t, o = a['self'], a['out']\n"
    "    assert o['kind'] == 'tensor' and o['role'] == 'out' and o['sizes'] == t['sizes'], o\n"
    "    assert t['kind'] == 'tensor' and t['role'] == 'input' and t['dtype'] == 'float32', t\n"
    "    assert len(t['sizes']) == len(t['strides']) == 2 and t['strides'][1] == 1, t\n"
    "    assert c['bytes'] == 8 * t['sizes'][0] * t['sizes'][1] and c['flop'] is None, c\n"
    "    us = 250.0 if doc['settings'] == 'clops' else 125.0\n"
    "    res.append({'index': i, 'status': 'pass', 'us_per_call': us, 'reps': 2})\n"
    "res.append({'index': 99, 'status': 'pass', 'us_per_call': 1.0})\n"
    "ms = doc['models']\n"
    "assert [m['model'] for m in ms] == ['gpt2', 'resnet18'], ms\n"
    "m, idx = ms[0], ms[0]['peer_index']\n"
    "assert m['size'] == '124m' and idx >= 1000 and ms[1]['peer_index'] == idx, ms\n"
    "assert m['seq'] == 128 and ms[1]['image'] == 224, ms\n"
    "assert m['clops_devices'] == [], m  # the CPU device has no clops:K\n"
    "models = [{'model': 'GPT-2 fake', 'device': idx, 'status': 'pass', 'ms_per_step': 12.5},\n"
    "          {'model': 'GPT-2 fake', 'device': 4242, 'status': 'pass', 'ms_per_step': 1.0}]\n"
    "st = {'torch': '9.9.9-fake', 'device': 'cpu', 'device_name': 'CPU', 'threads': 3,\n"
    "      'mode': doc['settings'], 'sdpa_backends': ['flash', 'math'],\n"
    "      'float32_matmul_precision': 'highest', 'tf32_matmul': False,\n"
    "      'tf32_cudnn': doc['settings'] == 'defaults', 'cudnn': True, 'deterministic': False}\n"
    "json.dump({'format': 'clops-torch-results', 'version': 1, 'settings': st, 'note': '',\n"
    "           'results': res, 'models': models}, open(sys.argv[2], 'w'))\n";

/* compare --torch: the bench's calls go to the PyTorch helper (here a fake
 * one), whose times become a `torch` column the speeds refer to; without
 * torch or Python, one line says so and the report has no such column. */
static void test_compare_torch_column(void **state)
{
    (void)state;
    if (system("python3 -c pass >/dev/null 2>&1") != 0)
        skip(); /* no Python: nothing to run the helper with */
    const char *helper = write_bytes("fake_torch.py", fake_torch_helper,
                                     sizeof fake_torch_helper - 1);
    const char *dir = path_of("torch-report");
    setenv("CLOPS_TORCH_HELPER", helper, 1);
    setenv("CLOPS_PYTHON", "python3", 1);
    run_out r = clops_run("compare", "--op", "abs.out", "--device", "cpu", "--no-check",
                          "--reps", "2", "--torch", "--out", dir, NULL);
    EXPECT_EXIT(r, 0);
    CT_ASSERT_MSG(strstr(r.err, "torch: 1 case on PyTorch CPU") &&
                      strstr(r.err, "PyTorch 9.9.9-fake on the CPU (CPU, 3 threads)"),
                  "%s", r.err);
    /* The one device against its ceilings, then against PyTorch. */
    CT_ASSERT_MSG(strstr(r.out, "GPT-2 fake, time per step:\n  torch      12.5 ms/step") &&
                      strstr(r.out, "speed = torch's time / the device's") &&
                      strstr(r.out, "faster than PyTorch") && strstr(r.out, "and PyTorch in"),
                  "%s", r.out);
    run_free(&r);
    char p[800];
    snprintf(p, sizeof p, "%s/report.json", dir);
    cJSON *doc = read_json(p);
    const cJSON *res = check_envelope(doc, "compare");
    CT_ASSERT(get(doc, "baseline_device")->valueint == 1000);
    const cJSON *torch = NULL;
    for (const cJSON *d = get(doc, "devices")->child; d; d = d->next)
        if (strcmp(get(d, "type")->valuestring, "torch") == 0)
            torch = d;
    CT_ASSERT(torch && get(torch, "index")->valueint == 1000 &&
              strcmp(get(torch, "label")->valuestring, "torch") == 0 &&
              strstr(get(torch, "settings")->valuestring, "TF32 matmul off") &&
              strstr(get(torch, "settings")->valuestring, "held at clops' precision") &&
              strstr(get(torch, "settings")->valuestring, "SDPA backends flash, math"));
    const cJSON *mine = NULL, *clops_row = NULL;
    int torch_rows = 0;
    for (const cJSON *o = res->child; o; o = o->next)
        if (get(o, "device")->valueint == 1000)
            mine = o, torch_rows++;
        else
            clops_row = o;
    /* One row (the helper's stray index 99 is ignored), timed by the
     * helper, with the clops row's bytes over the helper's time. */
    CT_ASSERT(torch_rows == 1 && clops_row);
    CT_ASSERT(strcmp(get(mine, "status")->valuestring, "pass") == 0 &&
              strcmp(get(mine, "case")->valuestring, get(clops_row, "case")->valuestring) == 0 &&
              get(mine, "device_us_per_call")->valuedouble == 250.0);
    double bytes = get(clops_row, "bytes_per_call")->valuedouble;
    CT_ASSERT(get(mine, "bytes_per_call")->valuedouble == bytes &&
              fabs(get(mine, "gbs")->valuedouble - bytes / 250e3) < 1e-9 * bytes);
    CT_ASSERT(cJSON_IsNull(get(mine, "ratio_to_peak")));
    /* The model table: the peer's row (the stray device 4242 is dropped). */
    const cJSON *models = get(doc, "models");
    CT_ASSERT(cJSON_GetArraySize(models) == 1);
    CT_ASSERT(get(models->child, "device")->valueint == 1000 &&
              get(models->child, "ms_per_step")->valuedouble == 12.5 &&
              strcmp(get(models->child, "status")->valuestring, "pass") == 0);
    cJSON_Delete(doc);
    snprintf(p, sizeof p, "%s/report.md", dir);
    char *md = slurp(p);
    CT_ASSERT_MSG(strstr(md, "PyTorch column **torch**: held at clops' precision (--torch): "
                             "PyTorch 9.9.9-fake") &&
                      strstr(md, "| torch (CPU) |") && strstr(md, "250.0 µs") &&
                      strstr(md, "## Models") && strstr(md, "| GPT-2 fake | - | 12.5 ms/step |"),
                  "%s", md);
    free(md);
    /* Nothing to time. */
    r = clops_run("compare", "--op", "abs.out", "--torch", "--no-bench", NULL);
    EXPECT_EXIT(r, 2);
    CT_ASSERT_MSG(strstr(r.err, "--torch and --torch-defaults time the benchmarks"), "%s",
                  r.err);
    run_free(&r);
    /* Both columns: clops' precision (the baseline) and PyTorch's defaults,
     * each saying so, each with its own model rows. */
    r = clops_run("compare", "--op", "abs.out", "--device", "cpu", "--no-check", "--reps", "2",
                  "--torch", "--torch-defaults", "--out", dir, NULL);
    EXPECT_EXIT(r, 0);
    CT_ASSERT_MSG(strstr(r.err, "CPU, PyTorch's default settings") &&
                      strstr(r.out, "speed = torch's time / the device's"),
                  "%s%s", r.out, r.err);
    run_free(&r);
    snprintf(p, sizeof p, "%s/report.json", dir);
    doc = read_json(p);
    res = check_envelope(doc, "compare");
    CT_ASSERT(get(doc, "baseline_device")->valueint == 1000);
    const char *labels[2] = {NULL, NULL}, *settings[2] = {NULL, NULL};
    for (const cJSON *d = get(doc, "devices")->child; d; d = d->next) {
        int i = get(d, "index")->valueint - 1000;
        if (strcmp(get(d, "type")->valuestring, "torch") == 0 && i >= 0 && i < 2) {
            labels[i] = get(d, "label")->valuestring;
            settings[i] = get(d, "settings")->valuestring;
        }
    }
    CT_ASSERT(labels[0] && strcmp(labels[0], "torch") == 0 && labels[1] &&
              strcmp(labels[1], "torch-defaults") == 0);
    CT_ASSERT_MSG(strstr(settings[0], "held at clops' precision") &&
                      strstr(settings[0], "TF32 cuDNN off") &&
                      strstr(settings[1], "PyTorch's defaults") &&
                      strstr(settings[1], "TF32 cuDNN on"),
                  "%s | %s", settings[0], settings[1]);
    double us[2] = {0, 0};
    for (const cJSON *o = res->child; o; o = o->next) {
        int i = get(o, "device")->valueint - 1000;
        if (i >= 0 && i < 2)
            us[i] = get(o, "device_us_per_call")->valuedouble;
    }
    CT_ASSERT(us[0] == 250.0 && us[1] == 125.0);
    CT_ASSERT(cJSON_GetArraySize(get(doc, "models")) == 2);
    cJSON_Delete(doc);
    /* --torch-defaults alone: the one column, the baseline. */
    r = clops_run("compare", "--op", "abs.out", "--device", "cpu", "--no-check", "--reps", "2",
                  "--torch-defaults", "--out", dir, NULL);
    EXPECT_EXIT(r, 0);
    run_free(&r);
    doc = read_json(p);
    CT_ASSERT(get(doc, "baseline_device")->valueint == 1000);
    int ntorch = 0;
    for (const cJSON *d = get(doc, "devices")->child; d; d = d->next)
        if (strcmp(get(d, "type")->valuestring, "torch") == 0) {
            ntorch++;
            CT_ASSERT(strcmp(get(d, "label")->valuestring, "torch-defaults") == 0);
        }
    CT_ASSERT(ntorch == 1);
    cJSON_Delete(doc);
    /* Unasked, the column is there when the helper runs (torch importable),
     * and --no-torch leaves it out; it contradicts --torch. */
    r = clops_run("compare", "--op", "abs.out", "--device", "cpu", "--no-check", "--reps", "2",
                  "--out", dir, NULL);
    EXPECT_EXIT(r, 0);
    CT_ASSERT_MSG(strstr(r.err, "if python3 imports torch (--no-torch: none)") &&
                      strstr(r.err, "torch: 1 case on PyTorch CPU") &&
                      strstr(r.out, "speed = torch's time / the device's"),
                  "%s%s", r.out, r.err);
    run_free(&r);
    r = clops_run("compare", "--op", "abs.out", "--device", "cpu", "--no-check", "--reps", "2",
                  "--no-torch", "--out", dir, NULL);
    EXPECT_EXIT(r, 0);
    CT_ASSERT_MSG(!strstr(r.err, "PyTorch") && !strstr(r.out, "torch's"), "%s%s", r.out, r.err);
    run_free(&r);
    doc = read_json(p);
    CT_ASSERT(cJSON_GetArraySize(get(doc, "devices")) == 1);
    cJSON_Delete(doc);
    r = clops_run("compare", "--op", "abs.out", "--no-torch", "--torch-defaults", NULL);
    EXPECT_EXIT(r, 2);
    CT_ASSERT_MSG(strstr(r.err, "--no-torch and --torch"), "%s", r.err);
    run_free(&r);
    /* No torch: one line, no column, exit 0. */
    static const char no_torch[] = "import sys\nprint('PyTorch is not importable with "
                                   "python3 (ModuleNotFoundError)')\nsys.exit(3)\n";
    setenv("CLOPS_TORCH_HELPER", write_bytes("no_torch.py", no_torch, sizeof no_torch - 1), 1);
    /* Unasked: not a word about it. */
    r = clops_run("compare", "--op", "abs.out", "--device", "cpu", "--no-check", "--reps", "1",
                  "--out", dir, NULL);
    EXPECT_EXIT(r, 0);
    CT_ASSERT_MSG(!strstr(r.err, "no PyTorch column") && !strstr(r.out, "PyTorch"), "%s%s",
                  r.out, r.err);
    run_free(&r);
    r = clops_run("compare", "--op", "abs.out", "--device", "cpu", "--no-check", "--reps", "1",
                  "--baseline", "torch", "--out", dir, NULL);
    EXPECT_EXIT(r, 0);
    CT_ASSERT_MSG(strstr(r.err, "compare: no PyTorch column: PyTorch is not importable"), "%s",
                  r.err);
    CT_ASSERT_MSG(!strstr(r.out, "PyTorch") && !strstr(r.out, "torch's"), "%s", r.out);
    run_free(&r);
    snprintf(p, sizeof p, "%s/report.json", dir);
    doc = read_json(p);
    CT_ASSERT(cJSON_GetArraySize(get(doc, "devices")) == 1 &&
              cJSON_IsNull(get(doc, "baseline_device")));
    cJSON_Delete(doc);
    /* No Python. */
    setenv("CLOPS_PYTHON", "no-such-python-clops", 1);
    r = clops_run("compare", "--op", "abs.out", "--device", "cpu", "--no-check", "--reps", "1",
                  "--torch", "--out", dir, NULL);
    EXPECT_EXIT(r, 0);
    CT_ASSERT_MSG(strstr(r.err, "no PyTorch column: no-such-python-clops not found"), "%s",
                  r.err);
    run_free(&r);
    unsetenv("CLOPS_PYTHON");
    unsetenv("CLOPS_TORCH_HELPER");
}

/* Building programs with 16-wide vectors (layer norm's and the CPU GEMM's)
 * on a cold cache prints nothing: POCL's compiler would print "N warnings
 * generated." to our standard error for each (-Wpsabi on CPUs without
 * AVX-512), in the middle of the main job's output. */
static void test_cold_builds_print_no_compiler_warnings(void **state)
{
    (void)state;
    const char *old = getenv("CLOPS_CACHE_DIR");
    char *saved = old ? strdup(old) : NULL;
    setenv("CLOPS_CACHE_DIR", path_of("cold-cache"), 1);
    run_out r = clops_run("warmup", "--op", "native_layer_norm,mm", "--dtype", "float32",
                          "--jobs", "1", NULL);
    if (saved)
        setenv("CLOPS_CACHE_DIR", saved, 1);
    else
        unsetenv("CLOPS_CACHE_DIR");
    free(saved);
    EXPECT_EXIT(r, 0);
    CT_ASSERT_MSG(strstr(r.out, "programs built"), "%s", r.out);
    CT_ASSERT_MSG(!strstr(r.err, "warning"), "%s", r.err);
    run_free(&r);
}

/* ops --json: one op result per device with schema, tags and kernels. */
static void test_ops_json_lists_kernels(void **state)
{
    (void)state;
    const char *json = path_of("ops.json");
    run_out r = clops_run("ops", "--op", "add.Tensor", "--json", json, NULL);
    EXPECT_EXIT(r, 0);
    run_free(&r);
    cJSON *doc = read_json(json);
    const cJSON *res = check_envelope(doc, "ops");
    CT_ASSERT(cJSON_GetArraySize(res) >= 1);
    const cJSON *o = res->child;
    CT_ASSERT(strcmp(get(o, "kind")->valuestring, "op") == 0);
    CT_ASSERT(strstr(get(o, "schema")->valuestring, "add.Tensor(Tensor self"));
    CT_ASSERT(cJSON_IsArray(get(o, "tags")));
    const cJSON *cpu = get(get(o, "kernels"), "CPU");
    CT_ASSERT(strcmp(get(cpu, "provenance")->valuestring, "kernel") == 0);
    cJSON_Delete(doc);
    r = clops_run("ops", "--table", "add.out", NULL);
    EXPECT_EXIT(r, 0);
    CT_ASSERT(strstr(r.out, "structured") && strstr(r.out, "OpenCL"));
    run_free(&r);
}

/* bench --json and warmup --json carry their figures. */
static void test_bench_and_warmup_report_times(void **state)
{
    (void)state;
    const char *json = path_of("bench.json");
    run_out r = clops_run("bench", "--op", "neg", "--reps", "2", "--json", json, NULL);
    EXPECT_EXIT(r, 0);
    run_free(&r);
    cJSON *doc = read_json(json);
    const cJSON *res = check_envelope(doc, "bench");
    CT_ASSERT(cJSON_GetArraySize(res) >= 1);
    cJSON_Delete(doc);
    json = path_of("warmup.json");
    r = clops_run("warmup", "--op", "neg", "--dtype", "float32", "--json", json, NULL);
    EXPECT_EXIT(r, 0);
    run_free(&r);
    doc = read_json(json);
    const cJSON *w = get(doc, "warmup");
    CT_ASSERT(cJSON_IsArray(w) && cJSON_GetArraySize(w) >= 1);
    CT_ASSERT(cJSON_IsNumber(get(w->child, "cold_s")));
    expect_number_or_null(w->child, "warm_s");
    CT_ASSERT(cJSON_IsNumber(get(w->child, "kernels")));
    cJSON_Delete(doc);
}

/* bench --op OPS --cases times the check cases of ops of several families
 * (pointwise, reduce, scan, sort, gemm, index) at the check shapes and grown
 * by --scale, and writes JSON rows: every (op, case, device) once, passing
 * rows with a time, a byte count and GB/s, matrix products with GFLOP/s. */
static void test_bench_cases_json_rows(void **state)
{
    (void)state;
    const char *ops = "add.out,sum.IntList_out,cumsum.out,sort.values,mm.out,gather.out";
    const char *scales[] = {"1", "3"};
    for (int k = 0; k < 2; k++) {
        const char *json = path_of("bench_cases.json");
        run_out r = clops_run("bench", "--op", ops, "--cases", "--dtype", "float32", "--reps",
                              "1", "--scale", scales[k], "--json", json, NULL);
        EXPECT_EXIT(r, 0);
        CT_ASSERT_MSG(strstr(r.out, "us/call") && strstr(r.out, "cumsum.out"),
                      "no table:\n%s", r.out);
        run_free(&r);
        cJSON *doc = read_json(json);
        CT_ASSERT(cJSON_IsArray(doc));
        const char *want[] = {"add.out", "sum.IntList_out", "cumsum.out", "sort.values",
                              "mm.out", "gather.out"};
        int passed[6] = {0}, gflops = 0;
        const cJSON *row = NULL;
        cJSON_ArrayForEach(row, doc)
        {
            const char *op = get(row, "op")->valuestring;
            const char *status = get(row, "status")->valuestring;
            CT_ASSERT(cJSON_IsString(get(row, "case")) && cJSON_IsString(get(row, "device")));
            CT_ASSERT(strncmp(get(row, "dtype")->valuestring, "float32", 7) == 0);
            CT_ASSERT_MSG(strcmp(status, "pass") == 0 || strcmp(status, "skip") == 0,
                          "%s %s: %s", op, get(row, "case")->valuestring, status);
            if (k == 1)
                CT_ASSERT(strstr(get(row, "case")->valuestring, "sizes x3") != NULL);
            for (int i = 0; i < 6; i++)
                if (strcmp(op, want[i]) == 0 && strcmp(status, "pass") == 0) {
                    passed[i]++;
                    CT_ASSERT(get(row, "us_per_call")->valuedouble > 0);
                    if (cJSON_GetObjectItemCaseSensitive(row, "bytes"))
                        CT_ASSERT(get(row, "gbs")->valuedouble > 0);
                }
            gflops += cJSON_GetObjectItemCaseSensitive(row, "gflops") != NULL;
        }
        for (int i = 0; i < 6; i++)
            CT_ASSERT_MSG(passed[i] > 0, "no passing case of %s", want[i]);
        CT_ASSERT(gflops > 0);
        cJSON_Delete(doc);
    }
    run_out r = clops_run("bench", "--op", "neg", "--scale", "2", NULL);
    EXPECT_EXIT(r, 2);
    run_free(&r);
}

/* The figures of the one device of a warmup --json document at path. */
static void warmup_figures(const char *path, double *calls, double *kernels)
{
    cJSON *doc = read_json(path);
    const cJSON *w = get(doc, "warmup");
    CT_ASSERT(cJSON_IsArray(w) && cJSON_GetArraySize(w) == 1);
    *calls = cJSON_GetNumberValue(get(w->child, "calls"));
    *kernels = cJSON_GetNumberValue(get(w->child, "kernels"));
    cJSON_Delete(doc);
}

/* warmup --jobs N splits the ops over N processes: the same calls as one
 * process, every kernel made; bad --jobs values are usage errors. */
static void test_parallel_warmup_covers_every_op(void **state)
{
    (void)state;
    const char *one = path_of("warmup1.json"), *two = path_of("warmup2.json");
    run_out r = clops_run("warmup", "--device", "opencl:0", "--op", "neg", "--op", "abs", "--op",
                          "exp", "--dtype", "float32", "--jobs", "1", "--json", one, NULL);
    EXPECT_EXIT(r, 0);
    run_free(&r);
    r = clops_run("warmup", "--device", "opencl:0", "--op", "neg", "--op", "abs", "--op", "exp",
                  "--dtype", "float32", "-j", "2", "--json", two, NULL);
    EXPECT_EXIT(r, 0);
    run_free(&r);
    double c1, k1, c2, k2;
    warmup_figures(one, &c1, &k1);
    warmup_figures(two, &c2, &k2);
    CT_ASSERT(c1 > 0 && c1 == c2);
    /* Each process also makes the kernels every case needs (the fills of
     * its inputs), so the sum may exceed one process's count. */
    CT_ASSERT(k1 > 0 && k2 >= k1);
    const char *bad[] = {"0", "x", "2x", "-1"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        r = clops_run("warmup", "--op", "neg", "--jobs", bad[i], NULL);
        EXPECT_EXIT(r, 2);
        CT_ASSERT(strstr(r.err, "--jobs"));
        run_free(&r);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_command_has_help),
        cmocka_unit_test(test_unknown_names_are_usage_errors),
        cmocka_unit_test(test_bad_npy_files_are_usage_errors),
        cmocka_unit_test(test_run_round_trip_equals_the_library),
        cmocka_unit_test(test_run_exits_3_when_the_op_refuses_its_inputs),
        cmocka_unit_test(test_mistyped_names_get_suggestions),
        cmocka_unit_test(test_run_reads_fortran_order),
        cmocka_unit_test(test_run_parses_arguments_by_schema_type),
        cmocka_unit_test(test_check_json_has_the_documented_fields),
        cmocka_unit_test(test_compare_writes_the_report),
        cmocka_unit_test(test_compare_torch_column),
        cmocka_unit_test(test_cold_builds_print_no_compiler_warnings),
        cmocka_unit_test(test_ops_json_lists_kernels),
        cmocka_unit_test(test_bench_and_warmup_report_times),
        cmocka_unit_test(test_bench_cases_json_rows),
        cmocka_unit_test(test_parallel_warmup_covers_every_op),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
