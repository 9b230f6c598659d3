/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tools/cli/compare_torch.c: the PyTorch columns of `clops compare --torch`.
 *
 * The bench phase records every call it measured (the case as materialised
 * on the device: chk_prepared_json).  Here they are handed to a Python
 * helper, torch_cases.py, once per PyTorch peer: CUDA beside an NVIDIA GPU,
 * the CPU beside every other device (with as many threads as the compared
 * CPU device has compute units, the threads POCL runs on).  The helper runs
 * the same aten overloads on the same shapes, strides, dtypes and argument
 * values, timed the way the C side times them, and writes the times back;
 * each peer becomes a column of the report (a report_device with `torch`
 * set), its rows the clops rows' op, dtype and case with the clops rows'
 * byte and flop models, so GB/s and GFLOP/s are counted the same way.
 *
 * The helper is found through CLOPS_TORCH_HELPER, else next to the
 * installed program (<prefix>/share/clops/torch_cases.py), else in the
 * source tree the program was built from (bench/torch_cases.py); it runs
 * under CLOPS_PYTHON (default python3, found on PATH).  Without Python,
 * torch or the helper, one line says so and the report has no PyTorch
 * column: the job itself never fails for it.
 */
#define _XOPEN_SOURCE 700 /* mkdtemp */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clops/matmul.h"
#include "tools/cli/compare_torch.h"

#define TORCH_HELPER "torch_cases.py"
#define TORCH_MAX_PEERS 2

/* Whether path names a regular file. */
static bool is_file(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 && S_ISREG(sb.st_mode);
}

/* The helper's path into buf; false when none was found. */
static bool find_helper(char *buf, size_t cap)
{
    const char *env = getenv("CLOPS_TORCH_HELPER");
    if (env && *env) {
        snprintf(buf, cap, "%s", env);
        return is_file(buf);
    }
    char exe[4096];
    if (chk_self_exe(exe, sizeof exe)) {
        char *slash = strrchr(exe, '/');
        if (slash) {
            *slash = '\0';
            snprintf(buf, cap, "%s/../share/clops/%s", exe, TORCH_HELPER);
            if (is_file(buf))
                return true;
        }
    }
#ifdef CLOPS_SOURCE_DIR
    snprintf(buf, cap, "%s/bench/%s", CLOPS_SOURCE_DIR, TORCH_HELPER);
    if (is_file(buf))
        return true;
#endif
    buf[0] = '\0';
    return false;
}

/* The PyTorch peer of a compared device: "cuda" beside an NVIDIA GPU. */
static const char *peer_of(const clops_device *d)
{
    const clops_device_info *in = clops_device_get_info(d);
    return in->is_gpu && in->vendor == CLOPS_VENDOR_NVIDIA ? "cuda" : "cpu";
}

/* The CPU threads PyTorch gets: the compute units of the first compared
 * OpenCL CPU device (POCL's threads), else 0 (PyTorch's own default). */
static int cpu_threads(const cli_suite *s)
{
    for (int k = 0; k < s->ndev; k++) {
        const clops_device_info *in = clops_device_get_info(s->devs[k]);
        if (in->type == CLOPS_DEVICE_OPENCL && !in->is_gpu && in->compute_units > 0)
            return (int)in->compute_units;
    }
    return 0;
}

/* Whether the helper prints a line per case (CLOPS_PROGRESS is not off). */
static bool progress_wanted(void)
{
    const char *p = getenv("CLOPS_PROGRESS");
    return !p || strcmp(p, "off") != 0;
}

/* Whether calls[0..i) holds a call with the same op, dtype and case as c
 * for the same peer. */
static bool seen_before(const cJSON *calls, const cJSON *c, const char *peer,
                        const cli_suite *s)
{
    const char *keys[] = {"op", "dtype", "case"};
    for (const cJSON *o = calls->child; o && o != c; o = o->next) {
        const cJSON *dev = cJSON_GetObjectItemCaseSensitive(o, "device");
        bool same = cJSON_IsNumber(dev);
        for (int k = 0; same && k < s->ndev; k++)
            if (clops_device_get_info(s->devs[k])->index == dev->valueint)
                same = strcmp(peer_of(s->devs[k]), peer) == 0;
        for (size_t k = 0; same && k < sizeof keys / sizeof keys[0]; k++) {
            const cJSON *a = cJSON_GetObjectItemCaseSensitive(o, keys[k]);
            const cJSON *b = cJSON_GetObjectItemCaseSensitive(c, keys[k]);
            same = cJSON_IsString(a) && cJSON_IsString(b) &&
                   strcmp(a->valuestring, b->valuestring) == 0;
        }
        if (same)
            return true;
    }
    return false;
}

/* The peer's device indices' calls, each (op, dtype, case) once: the
 * torch-cases document (docs/json-format.md#torch-cases).  The cases are
 * references into calls (the document must be freed before calls). */
static cJSON *cases_document(const cli_suite *s, const cJSON *calls, const char *peer, int reps,
                             const char *mode, int *ncases)
{
    cJSON *doc = cJSON_CreateObject();
    cJSON *cases = doc ? cJSON_AddArrayToObject(doc, "cases") : NULL;
    bool ok = cases && cJSON_AddStringToObject(doc, "format", "clops-torch-cases") &&
              cJSON_AddNumberToObject(doc, "version", 1) &&
              cJSON_AddStringToObject(doc, "device", peer) &&
              cJSON_AddNumberToObject(doc, "threads", strcmp(peer, "cpu") == 0 ? cpu_threads(s)
                                                                               : 0) &&
              cJSON_AddNumberToObject(doc, "reps", reps) &&
              cJSON_AddBoolToObject(doc, "progress", progress_wanted()) &&
              cJSON_AddStringToObject(doc, "settings", mode) &&
              cJSON_AddStringToObject(doc, "float32_matmul_precision",
                                      clops_get_float32_matmul_precision());
    *ncases = 0;
    for (const cJSON *c = calls->child; ok && c; c = c->next) {
        const cJSON *dev = cJSON_GetObjectItemCaseSensitive(c, "device");
        bool mine = false;
        for (int k = 0; cJSON_IsNumber(dev) && k < s->ndev; k++)
            mine |= clops_device_get_info(s->devs[k])->index == dev->valueint &&
                    strcmp(peer_of(s->devs[k]), peer) == 0;
        if (!mine || seen_before(calls, c, peer, s))
            continue;
        cJSON *ref = cJSON_CreateObjectReference(c->child);
        ok = ref && cJSON_AddItemToArray(cases, ref);
        if (!ok)
            cJSON_Delete(ref);
        *ncases += ok;
    }
    if (!ok) {
        cJSON_Delete(doc);
        return NULL;
    }
    return doc;
}

/* Writes text to path; false (errno set) on failure. */
static bool write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return false;
    size_t n = strlen(text);
    bool ok = fwrite(text, 1, n, f) == n;
    return fclose(f) == 0 && ok;
}

/* Reads and parses a JSON file (NULL on failure). */
static cJSON *read_json(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    strbuf sb = STRBUF_INIT;
    char chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
        sb_append_n(&sb, chunk, n);
    fclose(f);
    cJSON *doc = sb_finish(&sb, path) == CLOPS_OK ? cJSON_ParseWithLength(sb_str(&sb), sb.len)
                                                  : NULL;
    sb_free(&sb);
    return doc;
}

/* The first line of text (at most cap - 1 bytes) into buf. */
static void first_line(const char *text, char *buf, size_t cap)
{
    snprintf(buf, cap, "%.*s", (int)strcspn(text ? text : "", "\n"), text ? text : "");
}

/* String member or "". */
static const char *str_of(const cJSON *o, const char *key)
{
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(it) && it->valuestring ? it->valuestring : "";
}

/* Number member or NAN. */
static double num_of(const cJSON *o, const char *key)
{
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(it) ? it->valuedouble : NAN;
}

/* The strings of a JSON array joined by ", " into buf ("" when none). */
static void join_strings(const cJSON *arr, char *buf, size_t cap)
{
    size_t n = 0;
    buf[0] = '\0';
    for (const cJSON *e = cJSON_IsArray(arr) ? arr->child : NULL; e && n < cap; e = e->next)
        if (cJSON_IsString(e))
            n += (size_t)snprintf(buf + n, cap - n, "%s%s", n ? ", " : "", e->valuestring);
}

/* Adds one model's spec (model "gpt2" or "resnet18") to the list. */
static cJSON *add_model(cJSON *list, const char *model, const char *size, int idx)
{
    cJSON *m = cJSON_CreateObject();
    if (!m || !cJSON_AddItemToArray(list, m)) {
        cJSON_Delete(m);
        return NULL;
    }
    bool small = strcmp(size, "small") == 0;
    bool ok = cJSON_AddStringToObject(m, "model", model) &&
              cJSON_AddStringToObject(m, "size", size) &&
              cJSON_AddNumberToObject(m, "batch", 1) &&
              cJSON_AddNumberToObject(m, "peer_index", idx);
    if (ok && strcmp(model, "gpt2") == 0)
        ok = cJSON_AddNumberToObject(m, "seq", 128) != NULL;
    else if (ok)
        ok = cJSON_AddNumberToObject(m, "image", small ? 32 : 224) != NULL;
    return ok && cJSON_AddArrayToObject(m, "clops_devices") ? m : NULL;
}

/* Asks the helper for the model table: GPT-2 (CLOPS_TORCH_MODEL: 124m, the
 * default, or small; none: no table) and ResNet-18 (224x224 images; 32x32
 * with small) on the peer (column index idx) and, with the_clops, on every
 * compared OpenCL device through the clops PyTorch device (opencl:K is
 * clops:K).  False when out of memory. */
static bool add_models_spec(cJSON *doc, const cli_suite *s, int idx, bool the_clops)
{
    const char *size = getenv("CLOPS_TORCH_MODEL");
    if (!size || !*size)
        size = "124m";
    if (strcmp(size, "none") == 0)
        return true;
    static const char *const models[] = {"gpt2", "resnet18"};
    cJSON *list = cJSON_AddArrayToObject(doc, "models");
    bool ok = list != NULL;
    for (size_t i = 0; ok && i < sizeof models / sizeof models[0]; i++) {
        cJSON *m = add_model(list, models[i], size, idx);
        cJSON *devs = m ? cJSON_GetObjectItemCaseSensitive(m, "clops_devices") : NULL;
        ok = devs != NULL;
        for (int k = 0; ok && the_clops && k < s->ndev; k++) {
            const char *label = clops_device_label(s->devs[k]);
            int K = -1;
            if (clops_device_get_info(s->devs[k])->type != CLOPS_DEVICE_OPENCL ||
                sscanf(label, "opencl:%d", &K) != 1)
                continue;
            char where[32];
            snprintf(where, sizeof where, "clops:%d", K);
            cJSON *d = cJSON_CreateObject();
            ok = d && cJSON_AddItemToArray(devs, d);
            if (!ok)
                cJSON_Delete(d);
            ok = ok &&
                 cJSON_AddNumberToObject(d, "index", clops_device_get_info(s->devs[k])->index) &&
                 cJSON_AddStringToObject(d, "torch", where);
        }
    }
    return ok;
}

/* Adds the helper's model rows to r (device indices checked). */
static clops_status add_models(report *r, const cJSON *res)
{
    const cJSON *models = cJSON_GetObjectItemCaseSensitive(res, "models");
    clops_status st = CLOPS_OK;
    for (const cJSON *o = cJSON_IsArray(models) ? models->child : NULL; o && !st; o = o->next) {
        double dev = num_of(o, "device");
        if (!(dev == floor(dev)) || !report_find_device(r, (int)dev))
            continue;
        report_model m;
        report_model_init(&m);
        snprintf(m.model, sizeof m.model, "%s", str_of(o, "model"));
        m.device = (int)dev;
        const char *status = str_of(o, "status");
        double ms = num_of(o, "ms_per_step");
        char msg[1024] = "";
        if (strcmp(status, "pass") == 0 && isfinite(ms) && ms > 0) {
            m.status = REPORT_PASS;
            m.ms_per_step = ms;
            m.fallbacks_per_step = num_of(o, "fallbacks_per_step");
            join_strings(cJSON_GetObjectItemCaseSensitive(o, "fallback_ops"), msg, sizeof msg);
        } else {
            m.status = strcmp(status, "skip") == 0 ? REPORT_SKIP : REPORT_ERROR;
            snprintf(msg, sizeof msg, "%s", str_of(o, "message"));
        }
        m.message = msg[0] ? msg : NULL;
        st = report_add_model(r, &m);
    }
    return st;
}

/* The settings line of a PyTorch column. */
static void settings_text(const cJSON *st, const char *note, char *buf, size_t cap)
{
    bool cuda = strcmp(str_of(st, "device"), "cuda") == 0;
    char threads[48] = "";
    if (!cuda)
        snprintf(threads, sizeof threads, ", %.0f thread%s", num_of(st, "threads"),
                 num_of(st, "threads") == 1 ? "" : "s");
    char sdpa[96];
    join_strings(cJSON_GetObjectItemCaseSensitive(st, "sdpa_backends"), sdpa, sizeof sdpa);
    bool defaults = strcmp(str_of(st, "mode"), "defaults") == 0;
    snprintf(buf, cap,
             "%s: PyTorch %s on %s (%s%s%s); float32 matmul precision %s, TF32 matmul %s, TF32 "
             "cuDNN %s, cuDNN %s, SDPA backends %s, deterministic algorithms %s; timed as clops "
             "times: two untimed calls, batches of about 2 ms, the median of the batches%s%s",
             defaults ? "PyTorch's defaults (as users run it; --torch-defaults)"
                      : "held at clops' precision (--torch)",
             str_of(st, "torch"), cuda ? "CUDA" : "the CPU", str_of(st, "device_name"),
             cuda && str_of(st, "cuda")[0] ? ", CUDA " : "", cuda ? str_of(st, "cuda") : threads,
             str_of(st, "float32_matmul_precision"),
             cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(st, "tf32_matmul")) ? "on" : "off",
             cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(st, "tf32_cudnn")) ? "on" : "off",
             cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(st, "cudnn")) ? "on" : "off",
             sdpa[0] ? sdpa : "unknown",
             cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(st, "deterministic")) ? "on" : "off",
             note && *note ? "; " : "", note ? note : "");
}

/* Adds the PyTorch column `label` (index idx) and its rows from the
 * helper's results; cases is the document the helper read. */
static clops_status add_column(report *r, int idx, const char *label, const cJSON *cases,
                               const cJSON *res, int *measured)
{
    const cJSON *st = cJSON_GetObjectItemCaseSensitive(res, "settings");
    clops_device_info in;
    memset(&in, 0, sizeof in);
    in.index = idx;
    in.type = CLOPS_DEVICE_OPENCL;
    in.vendor = CLOPS_VENDOR_OTHER;
    in.is_gpu = strcmp(str_of(st, "device"), "cuda") == 0;
    snprintf(in.name, sizeof in.name, "%s", str_of(st, "device_name"));
    snprintf(in.platform_name, sizeof in.platform_name, "PyTorch");
    snprintf(in.driver_version, sizeof in.driver_version, "%s", str_of(st, "torch"));
    report_device *d = NULL;
    clops_status s = report_add_device(r, &in, label, &d);
    if (s)
        return s;
    d->torch = true;
    settings_text(st, str_of(res, "note"), d->settings, sizeof d->settings);
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(cases, "cases");
    const cJSON *results = cJSON_GetObjectItemCaseSensitive(res, "results");
    int n = cJSON_GetArraySize(list);
    *measured = 0;
    for (const cJSON *o = cJSON_IsArray(results) ? results->child : NULL; o && !s; o = o->next) {
        double i = num_of(o, "index");
        if (!(i >= 0 && i < n && i == floor(i)))
            continue;
        const cJSON *c = cJSON_GetArrayItem(list, (int)i);
        report_bench b;
        report_bench_init(&b);
        snprintf(b.op, sizeof b.op, "%s", str_of(c, "op"));
        snprintf(b.dtype, sizeof b.dtype, "%s", str_of(c, "dtype"));
        snprintf(b.case_name, sizeof b.case_name, "%s", str_of(c, "case"));
        snprintf(b.family, sizeof b.family, "%s", str_of(c, "family"));
        snprintf(b.kernel_name, sizeof b.kernel_name, "aten::%s", str_of(c, "op"));
        b.device = idx;
        b.kernel = REPORT_KERNEL_DEVICE;
        double us = num_of(o, "us_per_call"), reps = num_of(o, "reps");
        const char *status = str_of(o, "status");
        if (strcmp(status, "pass") == 0 && isfinite(us) && us > 0) {
            b.status = REPORT_PASS;
            b.device_us = us;
            b.reps = isfinite(reps) && reps > 0 && reps < 1e9 ? (int)reps : 0;
            b.bytes = num_of(c, "bytes");
            b.flop = num_of(c, "flop");
            if (isfinite(b.bytes) && b.bytes > 0)
                b.gbs = b.bytes / us / 1e3;
            if (isfinite(b.flop) && b.flop > 0)
                b.gflops = b.flop / us / 1e3;
            (*measured)++;
        } else {
            b.status = strcmp(status, "skip") == 0 ? REPORT_SKIP : REPORT_ERROR;
            b.message = (char *)str_of(o, "message");
        }
        s = report_add_bench(r, &b);
    }
    return s;
}

/* Runs the helper on one peer's cases; false (with *why) when there is no
 * column. */
static bool run_peer(const char *python, const char *helper, const char *dir, const char *peer,
                     const cJSON *doc, cJSON **res, char *why, size_t cap, bool *absent)
{
    *absent = false;
    char in[4300], out[4300];
    snprintf(in, sizeof in, "%s/cases-%s.json", dir, peer);
    snprintf(out, sizeof out, "%s/results-%s.json", dir, peer);
    char *text = cJSON_PrintUnformatted(doc);
    if (!text || !write_text(in, text)) {
        snprintf(why, cap, "cannot write %.200s: %s", in, text ? strerror(errno) : "out of memory");
        free(text);
        return false;
    }
    free(text);
    char *argv[] = {"/usr/bin/env", (char *)python, (char *)helper, in, out, NULL};
    char *captured = NULL;
    int code = -1;
    clops_status st = chk_spawn_capture(argv, NULL, &captured, &code);
    if (st) {
        snprintf(why, cap, "cannot run %.100s: %.200s", python, clops_last_error());
    } else if (code == 127) {
        snprintf(why, cap, "%.100s not found (CLOPS_PYTHON names the interpreter)", python);
        *absent = true;
    } else if (code != 0) {
        *absent = code == 3; /* the helper's "torch is not importable" */
        char line[300];
        first_line(captured, line, sizeof line);
        if (line[0])
            snprintf(why, cap, "%s", line);
        else
            snprintf(why, cap, "%.100s %.200s exited with status %d", python, helper, code);
    } else if (!(*res = read_json(out)) ||
               strcmp(str_of(*res, "format"), "clops-torch-results") != 0) {
        snprintf(why, cap, "%.150s wrote no clops-torch-results document to %.150s", helper, out);
        cJSON_Delete(*res);
        *res = NULL;
    }
    free(captured);
    remove(in);
    remove(out);
    return *res != NULL;
}

int cli_compare_torch(const cli_suite *s, const cJSON *calls, int reps, unsigned modes,
                      report *r)
{
    char helper[4200], why[400] = "", dir[4200];
    const char *python = getenv("CLOPS_PYTHON");
    if (!python || !*python)
        python = "python3";
    bool quiet = (modes & CLI_TORCH_AUTO) != 0;
    if (!find_helper(helper, sizeof helper)) {
        if (!quiet)
            fprintf(stderr, "compare: no PyTorch column: %s not found%s%s\n", TORCH_HELPER,
                helper[0] ? " at " : "", helper);
        return CLI_EXIT_OK;
    }
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/clops-torch-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        fprintf(stderr, "compare: no PyTorch column: cannot create a temporary folder: %s\n",
                strerror(errno));
        return CLI_EXIT_OK;
    }
    const char *peers[TORCH_MAX_PEERS];
    int npeers = 0;
    for (int k = 0; k < s->ndev; k++) {
        const char *p = peer_of(s->devs[k]);
        bool have = false;
        for (int j = 0; j < npeers; j++)
            have |= strcmp(peers[j], p) == 0;
        if (!have && npeers < TORCH_MAX_PEERS)
            peers[npeers++] = p;
    }
    /* One column per settings mode and peer: clops' precision first. */
    static const struct {
        unsigned bit;
        const char *mode, *label;
    } kinds[] = {{CLI_TORCH_CLOPS, "clops", "torch"},
                 {CLI_TORCH_DEFAULTS, "defaults", "torch-defaults"}};
    int rc = CLI_EXIT_OK, col = 0;
    bool failed = false;
    for (size_t m = 0; m < sizeof kinds / sizeof kinds[0] && !failed; m++) {
        if (!(modes & kinds[m].bit))
            continue;
        for (int j = 0; j < npeers && rc == CLI_EXIT_OK; j++) {
            int ncases = 0, idx = REPORT_TORCH_INDEX + col;
            cJSON *doc = cases_document(s, calls, peers[j], reps, kinds[m].mode, &ncases);
            /* The models run on clops' devices once, with the first column. */
            if (doc && !add_models_spec(doc, s, idx, col == 0)) {
                cJSON_Delete(doc);
                doc = NULL;
            }
            if (!doc) {
                rc = cli_status_error(CLOPS__HOST_OOM("the torch cases"), "compare --torch");
                break;
            }
            if (ncases == 0) {
                cJSON_Delete(doc);
                continue;
            }
            fprintf(stderr, "torch: %d case%s on PyTorch %s, %s settings (%s %s%s)...\n",
                    ncases, ncases == 1 ? "" : "s",
                    strcmp(peers[j], "cuda") == 0 ? "CUDA" : "CPU",
                    strcmp(kinds[m].mode, "clops") == 0 ? "clops'" : "PyTorch's default",
                    python, helper, quiet ? "; when it imports torch: --no-torch leaves it out" : "");
            cJSON *res = NULL;
            bool absent = false;
            if (!run_peer(python, helper, dir, peers[j], doc, &res, why, sizeof why, &absent)) {
                if (!(quiet && absent))
                    fprintf(stderr, "compare: no PyTorch column: %s\n", why);
                cJSON_Delete(doc);
                failed = true; /* the next column would fail the same way */
                break;
            }
            char label[24];
            if (npeers > 1)
                snprintf(label, sizeof label, "%s:%s", kinds[m].label, peers[j]);
            else
                snprintf(label, sizeof label, "%s", kinds[m].label);
            int measured = 0;
            clops_status st = add_column(r, idx, label, doc, res, &measured);
            if (st == CLOPS_OK)
                st = add_models(r, res);
            if (st)
                rc = cli_status_error(st, "compare --torch");
            else
                fprintf(stderr, "torch: %d of %d measured (%s)\n", measured, ncases,
                        r->devices[r->ndevices - 1].settings);
            col++;
            cJSON_Delete(res);
            cJSON_Delete(doc);
        }
        if (rc != CLI_EXIT_OK)
            break;
    }
    rmdir(dir);
    return rc;
}
