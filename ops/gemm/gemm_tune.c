/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ops/gemm/gemm_tune.c: per-device tuning of CLBlast's GEMM kernel, its
 * persistence in the clops cache folder, and its automatic application.
 *
 * CLBlast picks kernel parameters from a database compiled into it; devices
 * it does not know (Hopper-class NVIDIA GPUs in 1.5.3) get a vendor default.
 * CLBlastOverrideParameters replaces the parameters of one kernel for one
 * device and precision at run time.  blas_tune_gemm uses it to search the
 * 16 parameters of the "Xgemm" kernel:
 *
 *   1. The direct/indirect switch ("GemmRoutine" XGEMM_MIN_INDIRECT_SIZE) is
 *      set to 64 so that every timed size runs the Xgemm kernel.
 *   2. CLBlast's current parameters are timed as the baseline.
 *   3. Candidates (a few known-good shapes first, then random draws from a
 *      grid that respects the kernel's constraints) are applied, checked
 *      against a double-precision host product of an odd-sized problem
 *      (which exercises the padding kernels), and timed on square sizes,
 *      until the budget is spent; a local search then varies one parameter
 *      of the best at a time.
 *   4. With the winner applied, the direct and the indirect kernel are timed
 *      over a range of sizes to place the switch where the indirect kernel
 *      starts to win.
 *
 * Every candidate costs a program build (CLBlast caches programs by their
 * parameter values, so returning to one is free).  The winners go to
 *
 *     $CLOPS_CACHE_DIR/tuning/gemm-<device>-<hash>.txt
 *
 * where the hash covers the platform name, the device name, the driver
 * version and the CLBlast version: a driver or CLBlast update makes the
 * old file unreachable, as it does for the binary cache.  The file repeats
 * those strings and is checked against the device before use; a file that
 * does not parse or does not match is ignored, never half-applied.
 * blas_tune_autoload applies it once per device, on the first GEMM; it never
 * searches.
 */
#include <clblast_c.h>
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <xxhash.h>

#include "host/host.h"
#include "ops/gemm/gemm.h"
#include "ops/kit/kit.h"

/* --- the tunable kernels ------------------------------------------------------ */

#define MAX_KPARAMS 16

/* One parameter set of a kernel, in the order of its names. */
typedef struct kcfg {
    size_t v[MAX_KPARAMS];
} kcfg;

/* The values the search draws one parameter from. */
typedef struct value_set {
    int n;
    size_t v[6];
} value_set;

/* A kernel the search tunes. */
typedef struct kspec {
    const char *kernel;       /* CLBlast's name */
    int n;                    /* number of parameters */
    const char *const *names; /* in the order of CLBlast's database (alphabetical) */
    const value_set *grid[2]; /* the second (may be NULL) is drawn one time in ten */
    const kcfg *seeds;        /* tried first */
    int nseeds;
    bool (*valid)(const kcfg *c, const clops_device *d, size_t elsize);
    size_t route;                   /* XGEMM_MIN_INDIRECT_SIZE sending every timed size to it */
    int gpu_sizes[2], cpu_sizes[2]; /* square sizes timed */
} kspec;

/* Whether x is a nonzero multiple of y. */
static bool multiple(size_t x, size_t y)
{
    return y != 0 && x % y == 0 && x >= y;
}

/* clang-format off */
/* Xgemm, the indirect kernel of large products. */
#define XGEMM_PARAMS(X)                                                                      \
    X(GEMMK) X(KREG) X(KWG) X(KWI) X(MDIMA) X(MDIMC) X(MWG) X(NDIMB) X(NDIMC) X(NWG) X(SA)    \
    X(SB) X(STRM) X(STRN) X(VWM) X(VWN)

enum {
#define XP_ENUM(name) P_##name,
    XGEMM_PARAMS(XP_ENUM)
#undef XP_ENUM
    NPARAMS
};

static const char *const xgemm_names[NPARAMS] = {
#define XP_NAME(name) #name,
    XGEMM_PARAMS(XP_NAME)
#undef XP_NAME
};

/* Known-good shapes: CLBlast's NVIDIA default and its Volta, Turing and
 * Ampere entries, and larger tiles for Hopper-class GPUs. */
static const kcfg xgemm_seeds[] = {
    {{0, 1, 32, 2, 16, 16, 128, 16, 16, 128, 1, 1, 0, 0, 4, 4}},
    {{0, 1, 16, 2, 16, 16, 128, 16, 16, 128, 1, 1, 0, 0, 4, 4}},
    {{0, 1, 32, 2, 8, 32, 128, 16, 8, 128, 1, 1, 1, 1, 2, 2}},
    {{0, 1, 32, 8, 16, 16, 128, 16, 16, 128, 1, 1, 1, 1, 4, 4}},
    {{0, 1, 32, 2, 16, 16, 64, 16, 16, 64, 1, 1, 0, 0, 4, 4}},
    {{0, 1, 32, 2, 16, 16, 64, 8, 8, 32, 1, 1, 0, 0, 4, 4}},
    {{0, 1, 32, 2, 32, 16, 128, 32, 16, 128, 1, 1, 0, 0, 4, 4}},
    {{0, 1, 16, 2, 8, 8, 64, 8, 8, 64, 1, 1, 0, 0, 4, 4}},
};

static const value_set xgemm_grid0[NPARAMS] = {
    [P_GEMMK] = {1, {0}},          [P_KREG] = {1, {1}},
    [P_KWG] = {2, {16, 32}},       [P_KWI] = {2, {2, 8}},
    [P_MDIMA] = {3, {8, 16, 32}},  [P_MDIMC] = {3, {8, 16, 32}},
    [P_MWG] = {4, {16, 32, 64, 128}}, [P_NDIMB] = {3, {8, 16, 32}},
    [P_NDIMC] = {3, {8, 16, 32}},  [P_NWG] = {4, {16, 32, 64, 128}},
    [P_SA] = {2, {0, 1}},          [P_SB] = {2, {0, 1}},
    [P_STRM] = {2, {0, 1}},        [P_STRN] = {2, {0, 1}},
    [P_VWM] = {4, {1, 2, 4, 8}},   [P_VWN] = {4, {1, 2, 4, 8}},
};

static const value_set xgemm_grid1[NPARAMS] = {
    [P_GEMMK] = {1, {1}},             [P_KREG] = {5, {1, 2, 4, 8, 16}},
    [P_KWG] = {1, {1}},               [P_KWI] = {1, {1}},
    [P_MDIMA] = {4, {4, 8, 16, 32}},  [P_MDIMC] = {4, {4, 8, 16, 32}},
    [P_MWG] = {4, {16, 32, 64, 128}}, [P_NDIMB] = {4, {4, 8, 16, 32}},
    [P_NDIMC] = {4, {4, 8, 16, 32}},  [P_NWG] = {4, {16, 32, 64, 128}},
    [P_SA] = {1, {0}},                [P_SB] = {1, {0}},
    [P_STRM] = {1, {0}},              [P_STRN] = {1, {0}},
    [P_VWM] = {4, {1, 2, 4, 8}},      [P_VWN] = {4, {1, 2, 4, 8}},
};

/* XgemmDirect, the one-kernel path of small and batched products. */
#define XDIRECT_PARAMS(X)                                                                    \
    X(KWID) X(MDIMAD) X(MDIMCD) X(NDIMBD) X(NDIMCD) X(PADA) X(PADB) X(VWMD) X(VWND) X(WGD)

enum {
#define XD_ENUM(name) D_##name,
    XDIRECT_PARAMS(XD_ENUM)
#undef XD_ENUM
    NDPARAMS
};

static const char *const xdirect_names[NDPARAMS] = {
#define XD_NAME(name) #name,
    XDIRECT_PARAMS(XD_NAME)
#undef XD_NAME
};

/* CLBlast's Ampere entry and larger tiles. */
static const kcfg xdirect_seeds[] = {
    {{8, 8, 16, 32, 16, 1, 1, 2, 1, 32}},
    {{8, 16, 16, 32, 16, 1, 1, 4, 1, 64}},
    {{16, 16, 16, 16, 16, 1, 1, 4, 4, 64}},
    {{8, 16, 16, 16, 16, 0, 0, 4, 4, 64}},
    {{2, 16, 16, 16, 16, 1, 1, 2, 2, 32}},
    {{2, 8, 8, 8, 8, 1, 1, 2, 2, 32}},
};

static const value_set xdirect_grid[NDPARAMS] = {
    [D_KWID] = {3, {2, 8, 16}},      [D_MDIMAD] = {3, {8, 16, 32}},
    [D_MDIMCD] = {3, {8, 16, 32}},   [D_NDIMBD] = {3, {8, 16, 32}},
    [D_NDIMCD] = {3, {8, 16, 32}},   [D_PADA] = {2, {0, 1}},
    [D_PADB] = {2, {0, 1}},          [D_VWMD] = {4, {1, 2, 4, 8}},
    [D_VWND] = {4, {1, 2, 4, 8}},    [D_WGD] = {4, {8, 16, 32, 64}},
};
/* clang-format on */

/*
 * The Xgemm kernel's constraints (CLBlast's tuner, src/tuning/kernels/
 * xgemm.hpp) and the device's limits: work-group size and local memory.
 * GEMMK 1 additionally needs MWG == NWG in CLBlast 1.5.3 (fixed in 1.6.3).
 */
static bool xgemm_valid(const kcfg *c, const clops_device *d, size_t elsize)
{
    const size_t *v = c->v;
    if (v[P_MDIMC] * v[P_NDIMC] > d->info.max_work_group_size)
        return false;
    if (!multiple(v[P_KWG], v[P_KWI]) || !multiple(v[P_MWG], v[P_MDIMC] * v[P_VWM]) ||
        !multiple(v[P_NWG], v[P_NDIMC] * v[P_VWN]) || !multiple(v[P_MWG], v[P_MDIMA] * v[P_VWM]) ||
        !multiple(v[P_NWG], v[P_NDIMB] * v[P_VWN]))
        return false;
    if (v[P_GEMMK] == 0) {
        size_t threads = v[P_MDIMC] * v[P_NDIMC];
        if (v[P_KREG] != 1 || threads % v[P_MDIMA] || threads % v[P_NDIMB] ||
            !multiple(v[P_KWG], threads / v[P_MDIMA]) || !multiple(v[P_KWG], threads / v[P_NDIMB]))
            return false;
        size_t local = elsize * (v[P_SA] * v[P_KWG] * v[P_MWG] + v[P_SB] * v[P_KWG] * v[P_NWG]);
        return local <= d->info.local_mem_bytes;
    }
    return v[P_GEMMK] == 1 && multiple(v[P_KREG], v[P_VWN]) && v[P_MDIMC] == v[P_MDIMA] &&
           v[P_NDIMC] == v[P_NDIMB] && v[P_MWG] == v[P_NWG] && v[P_KWG] == 1 && v[P_KWI] == 1 &&
           v[P_SA] == 0 && v[P_SB] == 0 && v[P_STRM] == 0 && v[P_STRN] == 0;
}

/* The XgemmDirect kernel's constraints (src/tuning/kernels/xgemm_direct.hpp)
 * and the device's limits. */
static bool xdirect_valid(const kcfg *c, const clops_device *d, size_t elsize)
{
    const size_t *v = c->v;
    size_t wgd = v[D_WGD], threads = v[D_MDIMCD] * v[D_NDIMCD];
    if (threads > d->info.max_work_group_size)
        return false;
    if (!multiple(wgd, v[D_KWID]) || !multiple(wgd, v[D_MDIMCD] * v[D_VWMD]) ||
        !multiple(wgd, v[D_NDIMCD] * v[D_VWND]) || !multiple(wgd, v[D_MDIMAD] * v[D_VWMD]) ||
        !multiple(wgd, v[D_NDIMBD] * v[D_VWND]))
        return false;
    if (threads % v[D_MDIMAD] || threads % v[D_NDIMBD] || !multiple(wgd, threads / v[D_MDIMAD]) ||
        !multiple(wgd, threads / v[D_NDIMBD]))
        return false;
    size_t local = elsize * (wgd * (wgd + v[D_PADA]) + wgd * (wgd + v[D_PADB]));
    return local <= d->info.local_mem_bytes;
}

/* The indirect kernel is timed with every size routed to it (64), the
 * direct one with every size routed to it (a switch beyond any size). */
#define ROUTE_INDIRECT 64
#define ROUTE_DIRECT 100000

static const kspec kspec_xgemm = {
    "Xgemm",      NPARAMS,
    xgemm_names,  {xgemm_grid0, xgemm_grid1},
    xgemm_seeds,  (int)(sizeof xgemm_seeds / sizeof xgemm_seeds[0]),
    xgemm_valid,  ROUTE_INDIRECT,
    {2048, 4096}, {256, 512},
};

static const kspec kspec_xdirect = {
    "XgemmDirect",        NDPARAMS,      xdirect_names,
    {xdirect_grid, NULL}, xdirect_seeds, (int)(sizeof xdirect_seeds / sizeof xdirect_seeds[0]),
    xdirect_valid,        ROUTE_DIRECT,  {512, 1024},
    {128, 256},
};

/* "MWG=64 NWG=64 ..." into buf. */
static char *cfg_format(const kspec *k, const kcfg *c, char *buf, size_t cap)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int i = 0; i < k->n && len < cap; i++)
        len +=
            (size_t)snprintf(buf + len, cap - len, "%s%s=%zu", i ? " " : "", k->names[i], c->v[i]);
    return buf;
}

/* --- identity and file -------------------------------------------------------- */

bool blas_tune_file_path(const clops_device *d, char *buf, size_t cap)
{
    char root[1024];
    if (!d || kit_is_host(d) || !host_cache_dir(root, sizeof root))
        return false;
    const char *parts[] = {d->info.platform_name, d->info.name, d->info.driver_version,
                           blas_clblast_version()};
    XXH3_state_t *hs = XXH3_createState();
    if (!hs)
        return false;
    XXH3_64bits_reset(hs);
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
        XXH3_64bits_update(hs, parts[i], strlen(parts[i]) + 1);
    uint64_t h = XXH3_64bits_digest(hs);
    XXH3_freeState(hs);
    char clean[64];
    size_t j = 0;
    for (const char *p = d->info.name; *p && j + 1 < sizeof clean; p++)
        clean[j++] = (isalnum((unsigned char)*p) || *p == '-') ? *p : '_';
    clean[j] = '\0';
    int n = snprintf(buf, cap, "%s/tuning/gemm-%s-%016llx.txt", root, clean, (unsigned long long)h);
    return n > 0 && (size_t)n < cap;
}

#define MAX_ENTRIES 8
#define MAX_ENTRY_PARAMS 20

/* One "param" line: overrides for one kernel and precision. */
typedef struct tune_entry {
    int precision; /* 32 or 64 */
    char kernel[32];
    int n;
    char names[MAX_ENTRY_PARAMS][24];
    size_t values[MAX_ENTRY_PARAMS];
} tune_entry;

typedef struct tune_file {
    int nentries;
    tune_entry e[MAX_ENTRIES];
    int nnotes;
    char notes[MAX_ENTRIES][256];
} tune_file;

/* The device identity lines every file starts with. */
static void identity_lines(const clops_device *d, char (*lines)[300])
{
    snprintf(lines[0], 300, "device %s", d->info.name);
    snprintf(lines[1], 300, "platform %s", d->info.platform_name);
    snprintf(lines[2], 300, "driver %s", d->info.driver_version);
    snprintf(lines[3], 300, "clblast %s", blas_clblast_version());
}

#define FILE_MAGIC "clops-gemm-tuning 1"

/* Parses a "param" line's rest ("32 Xgemm A=1 B=2"). */
static bool parse_param_line(char *rest, tune_entry *e)
{
    memset(e, 0, sizeof *e);
    char *save = NULL;
    char *tok = strtok_r(rest, " ", &save);
    if (!tok || (strcmp(tok, "32") != 0 && strcmp(tok, "64") != 0))
        return false;
    e->precision = atoi(tok);
    tok = strtok_r(NULL, " ", &save);
    if (!tok || strlen(tok) >= sizeof e->kernel)
        return false;
    strcpy(e->kernel, tok);
    while ((tok = strtok_r(NULL, " ", &save)) != NULL) {
        char *eq = strchr(tok, '=');
        if (!eq || eq == tok || e->n >= MAX_ENTRY_PARAMS ||
            (size_t)(eq - tok) >= sizeof e->names[0])
            return false;
        char *end = NULL;
        unsigned long long v = strtoull(eq + 1, &end, 10);
        if (!end || *end || end == eq + 1 || v > 1000000)
            return false;
        memcpy(e->names[e->n], tok, (size_t)(eq - tok));
        e->names[e->n][eq - tok] = '\0';
        e->values[e->n++] = (size_t)v;
    }
    return e->n > 0;
}

/*
 * Reads and checks a tuning file: the magic line, the four identity lines of
 * device d, "param" and "note" lines, and the final "end".  *why says what
 * was wrong.  CLOPS_IO_ERROR for a missing file (why = "missing").
 */
static clops_status read_tune_file(const clops_device *d, const char *path, tune_file *tf,
                                   const char **why)
{
    memset(tf, 0, sizeof *tf);
    FILE *f = fopen(path, "r");
    if (!f) {
        *why = "missing";
        return CLOPS_IO_ERROR;
    }
    char want[4][300];
    identity_lines(d, want);
    char line[1024];
    int lineno = 0;
    bool ended = false;
    *why = NULL;
    while (!*why && fgets(line, sizeof line, f)) {
        size_t len = strlen(line);
        if (len == 0 || line[len - 1] != '\n') {
            *why = "truncated line";
            break;
        }
        line[--len] = '\0';
        if (ended)
            *why = "text after 'end'";
        else if (lineno == 0)
            *why = strcmp(line, FILE_MAGIC) == 0 ? NULL : "not a clops GEMM tuning file";
        else if (lineno <= 4)
            *why = strcmp(line, want[lineno - 1]) == 0 ? NULL
                                                       : "written for another device, "
                                                         "driver or CLBlast version";
        else if (strcmp(line, "end") == 0)
            ended = true;
        else if (strncmp(line, "note ", 5) == 0) {
            if (tf->nnotes < MAX_ENTRIES) {
                size_t n = strlen(line + 5);
                if (n >= sizeof tf->notes[0])
                    n = sizeof tf->notes[0] - 1;
                memcpy(tf->notes[tf->nnotes], line + 5, n);
                tf->notes[tf->nnotes++][n] = '\0';
            }
        } else if (strncmp(line, "param ", 6) == 0) {
            if (tf->nentries >= MAX_ENTRIES || !parse_param_line(line + 6, &tf->e[tf->nentries]))
                *why = "malformed 'param' line";
            else
                tf->nentries++;
        } else {
            *why = "unknown line";
        }
        lineno++;
    }
    fclose(f);
    if (!*why && !ended)
        *why = "truncated (no 'end' line)";
    return *why ? CLOPS_INVALID_ARGUMENT : CLOPS_OK;
}

/* Writes tf for device d atomically (temp file + rename). */
static clops_status write_tune_file(const clops_device *d, const char *path, const tune_file *tf)
{
    char dir[1300], tmp[1300];
    snprintf(dir, sizeof dir, "%.1200s", path);
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = '\0';
    if (!host_make_dirs_mode(dir, 0700))
        return clops__fail(CLOPS_IO_ERROR, "cannot create the tuning folder %s", dir);
    FILE *f = host_create_temp(path, tmp, sizeof tmp);
    if (!f)
        return clops__fail(CLOPS_IO_ERROR, "cannot write %s", tmp);
    char id[4][300];
    identity_lines(d, id);
    fprintf(f, "%s\n", FILE_MAGIC);
    for (int i = 0; i < 4; i++)
        fprintf(f, "%s\n", id[i]);
    for (int i = 0; i < tf->nentries; i++) {
        const tune_entry *e = &tf->e[i];
        fprintf(f, "param %d %s", e->precision, e->kernel);
        for (int j = 0; j < e->n; j++)
            fprintf(f, " %s=%zu", e->names[j], e->values[j]);
        fputc('\n', f);
    }
    for (int i = 0; i < tf->nnotes; i++)
        fprintf(f, "note %s\n", tf->notes[i]);
    fprintf(f, "end\n");
    bool ok = fflush(f) == 0 && !ferror(f);
    ok = (fclose(f) == 0) && ok;
    if (!ok || rename(tmp, path) != 0) {
        remove(tmp);
        return clops__fail(CLOPS_IO_ERROR, "cannot write the tuning file %s", path);
    }
    return CLOPS_OK;
}

/* Applies one entry through CLBlast's override API. */
static clops_status apply_entry(const clops_device *d, const tune_entry *e)
{
    const char *names[MAX_ENTRY_PARAMS];
    for (int i = 0; i < e->n; i++)
        names[i] = e->names[i];
    CLBlastStatusCode s = CLBlastOverrideParameters(
        d->id, e->kernel, e->precision == 64 ? CLBlastPrecisionDouble : CLBlastPrecisionSingle,
        (size_t)e->n, names, e->values);
    if (s != CLBlastSuccess)
        return blas_fail(s, "CLBlastOverrideParameters", d);
    return CLOPS_OK;
}

/* --- automatic application ------------------------------------------------------ */

#define MAX_DEV_SLOTS 64
static atomic_bool autoload_off;
static _Atomic(const clops_device *) loaded[MAX_DEV_SLOTS];
static pthread_mutex_t load_lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_bool warned;

void blas_tune_set_autoload(bool on)
{
    atomic_store(&autoload_off, !on);
}

/* Marks device d as handled (its file applied, or tuned in this process). */
static void mark_loaded(const clops_device *d)
{
    int i = d->info.index;
    if (i >= 0 && i < MAX_DEV_SLOTS)
        atomic_store(&loaded[i], d);
}

/* Parses "param ..." lines into tf; false on a malformed or surplus line. */
static bool parse_param_lines(const char *lines, tune_file *tf)
{
    memset(tf, 0, sizeof *tf);
    while (lines && *lines) {
        const char *nl = strchr(lines, '\n');
        size_t len = nl ? (size_t)(nl - lines) : strlen(lines);
        char line[1024];
        if (len >= sizeof line || len < 6 || strncmp(lines, "param ", 6) != 0 ||
            tf->nentries >= MAX_ENTRIES)
            return false;
        memcpy(line, lines, len);
        line[len] = '\0';
        if (!parse_param_line(line + 6, &tf->e[tf->nentries]))
            return false;
        tf->nentries++;
        lines = nl ? nl + 1 : lines + len;
    }
    return tf->nentries > 0;
}

bool blas_tune_parse_params(const char *lines, int *nentries)
{
    tune_file tf;
    bool ok = parse_param_lines(lines, &tf);
    if (nentries)
        *nentries = ok ? tf.nentries : 0;
    return ok;
}

/* The shipped parameters for d into tf; false when there are none. */
static bool builtin_tune_file(const clops_device *d, tune_file *tf, const char **source)
{
    const char *lines = blas_tune_builtin(d->info.name, blas_clblast_version(), source);
    return lines && parse_param_lines(lines, tf);
}

clops_status blas_tune_apply(clops_device *d, bool *applied)
{
    if (applied)
        *applied = false;
    if (!d || kit_is_host(d))
        return clops__fail(CLOPS_INVALID_ARGUMENT, "GEMM tuning: an OpenCL device is needed");
    const char *off = host_env("CLOPS_GEMM_TUNING");
    if (off && strcmp(off, "0") == 0)
        return CLOPS_OK;
    char path[1200];
    tune_file tf;
    const char *why = NULL;
    clops_status st = blas_tune_file_path(d, path, sizeof path)
                          ? read_tune_file(d, path, &tf, &why)
                          : CLOPS_IO_ERROR;
    if (st == CLOPS_IO_ERROR) {
        if (!builtin_tune_file(d, &tf, NULL))
            return CLOPS_OK;
        snprintf(path, sizeof path, "clops' shipped parameters for %s", d->info.name);
        st = CLOPS_OK;
    }
    for (int i = 0; st == CLOPS_OK && i < tf.nentries; i++) {
        st = apply_entry(d, &tf.e[i]);
        if (st)
            why = clops_last_error();
    }
    if (st) {
        if (!atomic_exchange(&warned, true))
            fprintf(stderr, "clops: warning: ignoring the GEMM tuning file %s: %s\n", path, why);
        return CLOPS_OK;
    }
    /* CLOPS_GEMM_MIN_INDIRECT=N moves the direct/indirect switch (float32
     * and float64) after the file: for measuring where it belongs. */
    const char *mi = host_env("CLOPS_GEMM_MIN_INDIRECT");
    if (mi && atoi(mi) > 0) {
        for (int prec = 32; prec <= 64 && st == CLOPS_OK; prec += 32) {
            tune_entry e;
            memset(&e, 0, sizeof e);
            snprintf(e.kernel, sizeof e.kernel, "GemmRoutine");
            e.precision = prec;
            e.n = 1;
            snprintf(e.names[0], sizeof e.names[0], "XGEMM_MIN_INDIRECT_SIZE");
            e.values[0] = (size_t)atoi(mi);
            if (prec == 64 && !d->info.fp64)
                break;
            st = apply_entry(d, &e);
        }
        if (st) {
            fprintf(stderr, "clops: warning: CLOPS_GEMM_MIN_INDIRECT=%s not applied: %s\n", mi,
                    clops_last_error());
            return CLOPS_OK;
        }
    }
    if (applied)
        *applied = true;
    return CLOPS_OK;
}

void blas_tune_autoload(clops_device *d)
{
    int i = d->info.index;
    if (i < 0 || i >= MAX_DEV_SLOTS ||
        atomic_load_explicit(&loaded[i], memory_order_acquire) == d || atomic_load(&autoload_off))
        return;
    pthread_mutex_lock(&load_lock);
    if (atomic_load(&loaded[i]) != d) {
        blas_tune_apply(d, NULL);
        mark_loaded(d);
    }
    pthread_mutex_unlock(&load_lock);
}

/* Prints a tuning file's entries and notes, indented. */
static void print_entries(const tune_file *tf, FILE *f)
{
    for (int i = 0; i < tf->nentries; i++) {
        fprintf(f, "  float%d %s:", tf->e[i].precision, tf->e[i].kernel);
        for (int j = 0; j < tf->e[i].n; j++)
            fprintf(f, " %s=%zu", tf->e[i].names[j], tf->e[i].values[j]);
        fputc('\n', f);
    }
    for (int i = 0; i < tf->nnotes; i++)
        fprintf(f, "  %s\n", tf->notes[i]);
}

clops_status blas_tune_describe(const clops_device *d, FILE *f)
{
    char path[1200] = "";
    if (!d || kit_is_host(d))
        return clops__fail(CLOPS_INVALID_ARGUMENT, "GEMM tuning: an OpenCL device is needed");
    tune_file tf;
    const char *why = NULL;
    clops_status st = CLOPS_IO_ERROR;
    if (blas_tune_file_path(d, path, sizeof path))
        st = read_tune_file(d, path, &tf, &why);
    else
        snprintf(path, sizeof path, "the cache is disabled (CLOPS_CACHE=0)");
    if (st == CLOPS_OK) {
        fprintf(f, "%s (%s): tuning file %s (CLBlast %s)\n", d->label, d->info.name, path,
                blas_clblast_version());
        print_entries(&tf, f);
        return CLOPS_OK;
    }
    if (st != CLOPS_IO_ERROR)
        fprintf(f, "%s (%s): tuning file %s is ignored: %s\n", d->label, d->info.name, path, why);
    const char *source = NULL;
    if (builtin_tune_file(d, &tf, &source)) {
        fprintf(f, "%s (%s): %sclops' shipped parameters apply (CLBlast %s; %s)\n", d->label,
                d->info.name, st == CLOPS_IO_ERROR ? "no tuning file; " : "", blas_clblast_version(),
                source);
        print_entries(&tf, f);
    } else if (st == CLOPS_IO_ERROR) {
        fprintf(f, "%s (%s): no tuning file (%s); CLBlast's defaults apply\n", d->label,
                d->info.name, path);
    }
    return CLOPS_OK;
}

/* --- the search ----------------------------------------------------------------- */

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* splitmix64: the candidate order is reproducible from the seed. */
static uint64_t rng_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Everything one precision's search uses. */
typedef struct tune_ctx {
    clops_device *d;
    FILE *log;
    bool f64;
    size_t elsize;
    int sizes[4]; /* timed square sizes of the kernel being searched */
    int nsizes;
    clops_tensor *a, *b, *c;    /* big enough for the largest timed size */
    clops_tensor *ca, *cb, *cc; /* the check problem */
    double *check_ref;          /* its host result */
    int cm, cn, ck;
    double best_time[4]; /* per size, of the best so far (0: none yet) */
    double cand_cost;    /* seconds one candidate takes (running average) */
    uint64_t rng;
} tune_ctx;

/* Prints a progress line when a log is given. */
static void tlog(const tune_ctx *t, const char *fmt, ...) CLOPS__PRINTF(2, 3);
static void tlog(const tune_ctx *t, const char *fmt, ...)
{
    if (!t->log)
        return;
    va_list ap;
    va_start(ap, fmt);
    vfprintf(t->log, fmt, ap);
    va_end(ap);
    fflush(t->log);
}

/* One GEMM through CLBlast, column-major without transposes: the form
 * ops/gemm/gemm_blas.c gives CLBlast for a row-major result (which it swaps into
 * C^T = B^T A^T), so the search times what the ops run. */
static CLBlastStatusCode run_once(const tune_ctx *t, int m, int n, int k, clops_tensor *a,
                                  clops_tensor *b, clops_tensor *c)
{
    cl_command_queue q = t->d->queue;
    cl_mem ma = a->storage->block->mem, mb = b->storage->block->mem, mc = c->storage->block->mem;
    if (t->f64)
        return CLBlastDgemm(CLBlastLayoutColMajor, CLBlastTransposeNo, CLBlastTransposeNo,
                            (size_t)m, (size_t)n, (size_t)k, 1.0, ma, 0, (size_t)m, mb, 0,
                            (size_t)k, 0.0, mc, 0, (size_t)m, &q, NULL);
    return CLBlastSgemm(CLBlastLayoutColMajor, CLBlastTransposeNo, CLBlastTransposeNo, (size_t)m,
                        (size_t)n, (size_t)k, 1.0f, ma, 0, (size_t)m, mb, 0, (size_t)k, 0.0f, mc, 0,
                        (size_t)m, &q, NULL);
}

/* An override entry for t's precision. */
static void make_entry(const tune_ctx *t, tune_entry *e, const char *kernel, int n,
                       const char *const *names, const size_t *values)
{
    memset(e, 0, sizeof *e);
    e->precision = t->f64 ? 64 : 32;
    snprintf(e->kernel, sizeof e->kernel, "%s", kernel);
    for (int i = 0; i < n; i++) {
        snprintf(e->names[i], sizeof e->names[0], "%s", names[i]);
        e->values[i] = values[i];
    }
    e->n = n;
}

/* Sets the direct/indirect switch of the GemmRoutine for t's precision. */
static clops_status set_min_indirect(const tune_ctx *t, size_t size)
{
    static const char *const name[1] = {"XGEMM_MIN_INDIRECT_SIZE"};
    tune_entry e;
    make_entry(t, &e, "GemmRoutine", 1, name, &size);
    return apply_entry(t->d, &e);
}

/* Applies a configuration of kernel k. */
static clops_status set_cfg(const tune_ctx *t, const kspec *k, const kcfg *c)
{
    tune_entry e;
    make_entry(t, &e, k->kernel, k->n, k->names, c->v);
    return apply_entry(t->d, &e);
}

/* Seconds per call of an s^3 product (after one untimed warm-up call that
 * also builds the program); a negative value on failure.  Gives up early
 * (returns the one time measured) when the first timed call is more than
 * three times slower than cutoff. */
static double time_size(tune_ctx *t, int s, double cutoff)
{
    if (run_once(t, s, s, s, t->a, t->b, t->c) != CLBlastSuccess || host_finish(t->d))
        return -1;
    double t0 = now_seconds();
    if (run_once(t, s, s, s, t->a, t->b, t->c) != CLBlastSuccess || host_finish(t->d))
        return -1;
    double one = now_seconds() - t0;
    if (cutoff > 0 && one > 3 * cutoff)
        return one;
    int reps = one > 0 ? (int)(0.05 / one) : 10;
    reps = reps < 2 ? 2 : reps > 10 ? 10 : reps;
    double best = one;
    for (int round = 0; round < 2; round++) {
        t0 = now_seconds();
        for (int i = 0; i < reps; i++)
            if (run_once(t, s, s, s, t->a, t->b, t->c) != CLBlastSuccess)
                return -1;
        if (host_finish(t->d))
            return -1;
        double per = (now_seconds() - t0) / reps;
        if (per < best)
            best = per;
    }
    return best;
}

/* Runs the check problem and compares with the host product. */
static bool check_result(tune_ctx *t)
{
    if (run_once(t, t->cm, t->cn, t->ck, t->ca, t->cb, t->cc) != CLBlastSuccess)
        return false;
    size_t n = (size_t)t->cm * (size_t)t->cn;
    void *host = malloc(n * t->elsize);
    bool ok = host && clops_tensor_to_host(t->cc, host, n * t->elsize) == CLOPS_OK;
    double tol = t->f64 ? 1e-9 : 2e-3;
    for (size_t i = 0; ok && i < n; i++) {
        double v = t->f64 ? ((double *)host)[i] : ((float *)host)[i];
        ok = fabs(v - t->check_ref[i]) <= tol;
    }
    free(host);
    return ok;
}

/* Geometric mean of GFLOP/s over the sizes for the current parameters;
 * 0 when it fails or computes wrongly, and 0 with *cut set when a size ran
 * more than three times slower than the best so far (not worth finishing). */
static double score_current(tune_ctx *t, double *times, bool *cut)
{
    *cut = false;
    if (!check_result(t))
        return 0;
    double logsum = 0;
    for (int i = 0; i < t->nsizes; i++) {
        double best = t->best_time[i];
        times[i] = time_size(t, t->sizes[i], best);
        if (times[i] <= 0)
            return 0;
        if (best > 0 && times[i] > 3 * best) {
            *cut = true;
            return 0;
        }
        double s = t->sizes[i];
        logsum += log(2.0 * s * s * s / times[i] * 1e-9);
    }
    return exp(logsum / t->nsizes);
}

/* A tensor of rows*cols uniform values in [-1, 1] (and their doubles). */
static clops_status random_matrix(tune_ctx *t, int rows, int cols, uint64_t *seed,
                                  clops_tensor **out, double *copy)
{
    size_t n = (size_t)rows * (size_t)cols;
    void *buf = malloc(n * t->elsize);
    if (!buf)
        return CLOPS__HOST_OOM("tuning matrix");
    for (size_t i = 0; i < n; i++) {
        double v = (double)(rng_next(seed) >> 11) * (1.0 / 9007199254740992.0) * 2 - 1;
        if (t->f64)
            ((double *)buf)[i] = v;
        else
            ((float *)buf)[i] = (float)v;
        if (copy)
            copy[i] = t->f64 ? v : (double)(float)v;
    }
    int64_t sz[2] = {rows, cols};
    clops_status st = clops_from_host(t->d, t->f64 ? CLOPS_FLOAT64 : CLOPS_FLOAT32, 2, sz, buf,
                                      n * t->elsize, out);
    free(buf);
    return st;
}

/* Allocates the timing buffers (big x big) and the check problem with its
 * column-major host result. */
static clops_status tune_setup(tune_ctx *t, int big)
{
    uint64_t seed = 12345;
    t->cm = 199, t->cn = 203, t->ck = 211;
    double *ha = malloc(sizeof(double) * (size_t)(t->cm * t->ck));
    double *hb = malloc(sizeof(double) * (size_t)(t->ck * t->cn));
    t->check_ref = calloc((size_t)(t->cm * t->cn), sizeof(double));
    clops_status st = (ha && hb && t->check_ref) ? CLOPS_OK : CLOPS__HOST_OOM("tuning check");
    if (st == CLOPS_OK)
        st = random_matrix(t, big, big, &seed, &t->a, NULL);
    if (st == CLOPS_OK)
        st = random_matrix(t, big, big, &seed, &t->b, NULL);
    if (st == CLOPS_OK)
        st = random_matrix(t, big, big, &seed, &t->c, NULL);
    if (st == CLOPS_OK)
        st = random_matrix(t, t->ck, t->cm, &seed, &t->ca, ha);
    if (st == CLOPS_OK)
        st = random_matrix(t, t->cn, t->ck, &seed, &t->cb, hb);
    if (st == CLOPS_OK)
        st = random_matrix(t, t->cn, t->cm, &seed, &t->cc, NULL);
    /* column-major: A(i, p) = ha[i + p*m], B(p, j) = hb[p + j*k] */
    for (int j = 0; st == CLOPS_OK && j < t->cn; j++)
        for (int p = 0; p < t->ck; p++)
            for (int i = 0; i < t->cm; i++)
                t->check_ref[i + j * t->cm] += ha[i + p * t->cm] * hb[p + j * t->ck];
    free(ha);
    free(hb);
    return st;
}

static void tune_teardown(tune_ctx *t)
{
    clops_tensor *ts[] = {t->a, t->b, t->c, t->ca, t->cb, t->cc};
    for (size_t i = 0; i < sizeof ts / sizeof ts[0]; i++)
        clops_tensor_release(ts[i]);
    free(t->check_ref);
}

/* Whether c is among seen[0..n). */
static bool cfg_seen(const kcfg *c, const kcfg *seen, int n)
{
    for (int i = 0; i < n; i++)
        if (memcmp(&seen[i], c, sizeof *c) == 0)
            return true;
    return false;
}

/* A random valid configuration not seen yet; false when many draws found
 * none. */
static bool draw_cfg(tune_ctx *t, const kspec *k, const kcfg *seen, int nseen, kcfg *out)
{
    for (int attempt = 0; attempt < 20000; attempt++) {
        const value_set *g = (k->grid[1] && rng_next(&t->rng) % 10 == 0) ? k->grid[1] : k->grid[0];
        memset(out, 0, sizeof *out);
        for (int i = 0; i < k->n; i++)
            out->v[i] = g[i].v[rng_next(&t->rng) % (uint64_t)g[i].n];
        if (k->valid(out, t->d, t->elsize) && !cfg_seen(out, seen, nseen))
            return true;
    }
    return false;
}

/* The valid configurations one grid step away from c, not seen yet. */
static int neighbours(tune_ctx *t, const kspec *k, const kcfg *c, const kcfg *seen, int nseen,
                      kcfg *out, int cap)
{
    int n = 0;
    const value_set *g =
        (k->grid[1] && c->v[0] == 1 && k == &kspec_xgemm) ? k->grid[1] : k->grid[0];
    for (int i = 0; i < k->n; i++)
        for (int j = 0; j < g[i].n; j++) {
            if (g[i].v[j] != c->v[i])
                continue;
            for (int dir = -1; dir <= 1; dir += 2) {
                int nj = j + dir;
                if (nj < 0 || nj >= g[i].n || n >= cap)
                    continue;
                kcfg x = *c;
                x.v[i] = g[i].v[nj];
                if (k->valid(&x, t->d, t->elsize) && !cfg_seen(&x, seen, nseen) &&
                    !cfg_seen(&x, out, n))
                    out[n++] = x;
            }
        }
    return n;
}

#define MAX_TRIED 4096

/* The result of one kernel's search. */
typedef struct kres {
    double base_score; /* CLBlast's parameters, GFLOP/s */
    kcfg cand;         /* the best candidate */
    double cand_score; /* its score (0: none worked) */
    bool have_winner;  /* it beats the baseline by more than 2% */
    int tried;
} kres;

/* Evaluates one candidate and keeps it when it is the best so far. */
static void try_cfg(tune_ctx *t, const kspec *k, const kcfg *c, kres *r)
{
    char text[400];
    double times[4] = {0};
    double score = 0, t0 = now_seconds();
    bool cut = false;
    if (set_cfg(t, k, c) == CLOPS_OK)
        score = score_current(t, times, &cut);
    double spent = now_seconds() - t0;
    t->cand_cost = t->cand_cost > 0 ? 0.7 * t->cand_cost + 0.3 * spent : spent;
    r->tried++;
    bool best = score > r->cand_score;
    if (score <= 0)
        tlog(t, "  [%d] %s: %s\n", r->tried, cfg_format(k, c, text, sizeof text),
             cut ? "more than 3x slower than the best" : "fails or computes wrongly");
    else
        tlog(t, "  [%d] %s: %.1f GFLOP/s%s\n", r->tried, cfg_format(k, c, text, sizeof text), score,
             best ? (score > r->base_score ? " (best)" : " (best candidate)") : "");
    if (!best)
        return;
    r->cand_score = score;
    r->cand = *c;
    r->have_winner = score > r->base_score * 1.02;
    if (score > r->base_score)
        memcpy(t->best_time, times, sizeof times);
}

/*
 * Searches kernel k until the deadline: times CLBlast's current parameters
 * (the baseline), then the seeds, then alternates a local search around
 * the best candidate (one parameter one grid step away, repeated while it
 * improves) with batches of random draws.  Leaves the best candidate
 * applied.
 */
static clops_status search_kernel(tune_ctx *t, const kspec *k, int limit, double deadline, kres *r)
{
    memset(r, 0, sizeof *r);
    memset(t->best_time, 0, sizeof t->best_time);
    t->nsizes = 0;
    for (int i = 0; i < 2; i++)
        t->sizes[t->nsizes++] = t->d->info.is_gpu ? k->gpu_sizes[i] : k->cpu_sizes[i];
    clops_status st = set_min_indirect(t, k->route);
    if (st)
        return st;
    double times[4] = {0};
    bool cut;
    r->base_score = score_current(t, times, &cut);
    if (r->base_score <= 0)
        return clops__fail(CLOPS_BLAS_ERROR,
                           "GEMM tuning on %s: CLBlast's current float%d %s parameters fail or "
                           "compute wrongly; nothing to compare with",
                           t->d->label, t->f64 ? 64 : 32, k->kernel);
    memcpy(t->best_time, times, sizeof times);
    tlog(t, "float%d %s, sizes %d and %d: CLBlast's parameters for this device: %.1f GFLOP/s\n",
         t->f64 ? 64 : 32, k->kernel, t->sizes[0], t->sizes[1], r->base_score);

    kcfg *seen = malloc(sizeof *seen * MAX_TRIED), nb[2 * MAX_KPARAMS];
    if (!seen)
        return CLOPS__HOST_OOM("tuning candidates");
    int nseen = 0;
    if (limit > MAX_TRIED)
        limit = MAX_TRIED;
#define TIME_LEFT() (nseen < limit && now_seconds() + t->cand_cost < deadline)
    for (int i = 0; i < k->nseeds && TIME_LEFT(); i++)
        if (k->valid(&k->seeds[i], t->d, t->elsize) && !cfg_seen(&k->seeds[i], seen, nseen)) {
            seen[nseen++] = k->seeds[i];
            try_cfg(t, k, &k->seeds[i], r);
        }
    kcfg centre_done;
    memset(&centre_done, 0xff, sizeof centre_done);
    while (TIME_LEFT()) {
        /* local search while it improves */
        while (r->cand_score > 0 && memcmp(&centre_done, &r->cand, sizeof r->cand) != 0 &&
               TIME_LEFT()) {
            centre_done = r->cand;
            int n = neighbours(t, k, &centre_done, seen, nseen, nb, 2 * MAX_KPARAMS);
            for (int i = 0; i < n && TIME_LEFT(); i++) {
                seen[nseen++] = nb[i];
                try_cfg(t, k, &nb[i], r);
            }
        }
        /* then a few random ones */
        bool drew = false;
        for (int i = 0; i < 8 && TIME_LEFT(); i++) {
            kcfg c;
            if (!draw_cfg(t, k, seen, nseen, &c))
                break;
            seen[nseen++] = c;
            try_cfg(t, k, &c, r);
            drew = true;
        }
        if (!drew)
            break;
    }
#undef TIME_LEFT
    free(seen);
    /* Leave the best candidate applied: CLBlast cannot go back to its
     * default (see blas.h). */
    if (r->cand_score > 0)
        set_cfg(t, k, &r->cand);
    return CLOPS_OK;
}

/* Measures where the indirect kernel overtakes the direct one; *cross
 * receives the switch (0 when not measured). */
static void find_crossover(tune_ctx *t, double deadline, size_t *cross)
{
    static const int gpu_sizes[] = {128, 192, 256, 384, 512, 768, 1024, 1536, 2048};
    static const int cpu_sizes[] = {64, 96, 128, 192, 256, 384};
    const int *sz = t->d->info.is_gpu ? gpu_sizes : cpu_sizes;
    int n = t->d->info.is_gpu ? 9 : 6;
    double td[9], ti[9];
    *cross = 0;
    for (int pass = 0; pass < 2; pass++) {
        if (set_min_indirect(t, pass == 0 ? ROUTE_DIRECT : ROUTE_INDIRECT))
            return;
        for (int i = 0; i < n; i++) {
            double *dst = pass == 0 ? td : ti;
            dst[i] = time_size(t, sz[i], 0);
            if (now_seconds() > deadline || dst[i] < 0) {
                tlog(t, "  crossover: out of time or failed; not measured\n");
                return;
            }
        }
    }
    size_t c = (size_t)sz[n - 1];
    for (int i = n - 1; i >= 0 && ti[i] <= td[i]; i--)
        c = (size_t)sz[i];
    for (int i = 0; i < n; i++)
        tlog(t, "  size %d: direct %.1f, indirect %.1f GFLOP/s\n", sz[i],
             2.0 * sz[i] * sz[i] * sz[i] / td[i] * 1e-9,
             2.0 * sz[i] * sz[i] * sz[i] / ti[i] * 1e-9);
    if (set_min_indirect(t, c) == CLOPS_OK) {
        *cross = c;
        tlog(t, "  the indirect kernel from %zu^3 on\n", c);
    }
}

/* One precision: Xgemm, then XgemmDirect, then the crossover, writing the
 * winners into tf. */
static clops_status tune_precision(tune_ctx *t, const blas_tune_options *o, double seconds,
                                   tune_file *tf)
{
    double start = now_seconds();
    int big = t->d->info.is_gpu ? kspec_xgemm.gpu_sizes[1] : kspec_xgemm.cpu_sizes[1];
    clops_status st = tune_setup(t, big);
    if (st)
        return st;
    int limit = o->max_candidates > 0 ? o->max_candidates : MAX_TRIED;
    double share_x = o->skip_direct ? 1.0 : 0.65;
    double reserve = o->skip_crossover ? 0.0 : 0.12;
    kres rx, rd;
    memset(&rd, 0, sizeof rd);
    st = search_kernel(t, &kspec_xgemm, limit, start + seconds * (1 - reserve) * share_x, &rx);
    /* The crossover needs about three program builds: keep them. */
    double end = start + seconds, keep = o->skip_crossover ? 0 : 3 * t->cand_cost;
    double dl = start + seconds * (1 - reserve);
    if (st == CLOPS_OK && !o->skip_direct)
        st = search_kernel(t, &kspec_xdirect, limit, dl < end - keep ? dl : end - keep, &rd);
    size_t cross = 0;
    if (st == CLOPS_OK && rx.have_winner && !o->skip_crossover)
        find_crossover(t, end + t->cand_cost, &cross);
    if (st)
        return st;
    if (!cross) {
        /* Not measured: this process still needs a switch (CLBlast's own
         * cannot be restored); new processes keep CLBlast's. */
        set_min_indirect(t, t->d->info.is_gpu ? 1024 : 128);
    }
    int prec = t->f64 ? 64 : 32;
    if (rx.have_winner && tf->nentries < MAX_ENTRIES)
        make_entry(t, &tf->e[tf->nentries++], "Xgemm", NPARAMS, xgemm_names, rx.cand.v);
    if (rd.have_winner && tf->nentries < MAX_ENTRIES)
        make_entry(t, &tf->e[tf->nentries++], "XgemmDirect", NDPARAMS, xdirect_names, rd.cand.v);
    if (cross && tf->nentries < MAX_ENTRIES)
        make_entry(t, &tf->e[tf->nentries++], "GemmRoutine", 1,
                   (const char *const[]){"XGEMM_MIN_INDIRECT_SIZE"}, &cross);
    const kres *rs[2] = {&rx, &rd};
    const kspec *ks[2] = {&kspec_xgemm, &kspec_xdirect};
    for (int i = 0; i < (o->skip_direct ? 1 : 2) && tf->nnotes < MAX_ENTRIES; i++) {
        const kres *r = rs[i];
        double tuned = r->have_winner ? r->cand_score : r->base_score;
        snprintf(tf->notes[tf->nnotes++], sizeof tf->notes[0],
                 "float%d %s: default %.1f GFLOP/s, tuned %.1f GFLOP/s (%.2fx) over %d "
                 "candidates, sizes %d and %d",
                 prec, ks[i]->kernel, r->base_score, tuned, tuned / r->base_score, r->tried,
                 t->d->info.is_gpu ? ks[i]->gpu_sizes[0] : ks[i]->cpu_sizes[0],
                 t->d->info.is_gpu ? ks[i]->gpu_sizes[1] : ks[i]->cpu_sizes[1]);
        tlog(t, "%s\n", tf->notes[tf->nnotes - 1]);
    }
    return CLOPS_OK;
}

clops_status blas_tune_gemm(clops_device *d, double budget_seconds, FILE *log,
                            const blas_tune_options *opts)
{
    if (!d || kit_is_host(d))
        return clops__fail(CLOPS_INVALID_ARGUMENT,
                           "GEMM tuning needs an OpenCL device (CLBlast runs there)");
    if (!(budget_seconds > 0))
        return clops__fail(CLOPS_INVALID_ARGUMENT, "GEMM tuning: the budget must be positive");
    blas_tune_options o;
    memset(&o, 0, sizeof o);
    if (opts)
        o = *opts;
    bool do32 = !o.skip_float32, do64 = !o.skip_float64 && d->info.fp64;
    if (!do32 && !do64)
        return clops__fail(CLOPS_INVALID_ARGUMENT, "GEMM tuning on %s: no precision to tune",
                           d->label);
    /* This process is now tuning the device: the file must not be applied
     * over the search by a GEMM running later. */
    mark_loaded(d);
    double t0 = now_seconds();
    tune_file tf, old;
    memset(&tf, 0, sizeof tf);
    char path[1200];
    const char *why;
    bool have_path = blas_tune_file_path(d, path, sizeof path);
    bool have_old = have_path && read_tune_file(d, path, &old, &why) == CLOPS_OK;
    clops_status st = CLOPS_OK;
    for (int pass = 0; pass < 2 && st == CLOPS_OK; pass++) {
        bool f64 = pass == 1;
        if (f64 ? !do64 : !do32) {
            /* Keep what an earlier search found for the other precision. */
            for (int i = 0; have_old && i < old.nentries; i++)
                if (old.e[i].precision == (f64 ? 64 : 32) && tf.nentries < MAX_ENTRIES)
                    tf.e[tf.nentries++] = old.e[i];
            continue;
        }
        tune_ctx t;
        memset(&t, 0, sizeof t);
        t.d = d;
        t.log = log;
        t.f64 = f64;
        t.elsize = f64 ? 8 : 4;
        t.rng = o.seed ? o.seed : 0x5eed;
        double share = (do32 && do64) ? (f64 ? 1.0 : 0.7) : 1.0;
        double seconds = (budget_seconds - (now_seconds() - t0)) * share;
        tlog(&t, "tuning float%d GEMM on %s (%s) for %.0f s\n", f64 ? 64 : 32, d->label,
             d->info.name, seconds);
        st = tune_precision(&t, &o, seconds, &tf);
        tune_teardown(&t);
    }
    if (st == CLOPS_OK && !o.dry_run) {
        if (!have_path)
            return clops__fail(CLOPS_IO_ERROR,
                               "GEMM tuning on %s: no cache folder (CLOPS_CACHE=0 or no HOME) to "
                               "keep the result in",
                               d->label);
        st = write_tune_file(d, path, &tf);
        if (st == CLOPS_OK && log)
            fprintf(log, "wrote %s\n", path);
    }
    return st;
}
