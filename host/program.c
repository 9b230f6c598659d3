/* SPDX-License-Identifier: Apache-2.0 */
/*
 * host/program.c: program builds and the in-memory kernel cache.
 *
 * A kernel is found by its specialisation key (host_kkey) in an
 * open-addressed table: one hash of four words and a probe, no strings.  On
 * a miss the caller's request says which program holds the kernel and how to
 * write that program's source.  The program is looked up by the hash of its
 * source and build options; if it is not in memory it is loaded from the disk
 * cache or, failing that, built from source and stored there.
 *
 * Programs group many kernels: on POCL a build costs about a second whatever
 * the kernel count, and each kernel is compiled on its first launch.
 *
 * Which devices use the disk cache (d->cache_binaries): asking POCL for a
 * program binary makes it compile every kernel of the program first (54 s
 * for the 600-kernel cast program, against 3 s to build it), and POCL keeps
 * its own cache of built programs and compiled kernels (a warm rebuild of
 * that program takes 0.08 s).  So on POCL clops leaves caching to POCL,
 * pointed at clops' cache folder (host/device.c), unless CLOPS_CACHE_POCL=1
 * asks for clops' cache there too; every other driver, whose binaries are
 * ready after the build, uses clops' cache.
 *
 * A request may name a PTX target (ptx_route below): the program is then
 * built from source, its PTX patched for that target and built again.
 *
 * Builds on one device are serialised by a build lock, so two threads that
 * miss on the same program never build it twice; lookups never wait for a
 * build of another program except for the short table lock.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <xxhash.h>

#include "host/host.h"

typedef struct host_program {
    host_dkey dkey;
    cl_program program;
    bool from_disk; /* loaded from a cached binary (not yet proven good) */
    char name[96];
    struct host_program *next;
} host_program;

typedef struct kentry {
    host_kkey key;
    host_kernel *kernel; /* NULL: empty slot */
} kentry;

struct host_kernel_cache {
    pthread_mutex_t lock;       /* the kernel table and stats */
    pthread_mutex_t build_lock; /* program list and builds */
    kentry *table;
    size_t cap; /* power of two */
    size_t count;
    host_program *programs;
    host_kcache_stats stats;
};

/* Hash of a specialisation key. */
static uint64_t kkey_hash(const host_kkey *k)
{
    return XXH3_64bits(k->w, sizeof k->w);
}

static bool kkey_eq(const host_kkey *a, const host_kkey *b)
{
    return memcmp(a->w, b->w, sizeof a->w) == 0;
}

clops_status host_kcache_create(clops_device *d)
{
    host_kernel_cache *c = calloc(1, sizeof *c);
    if (!c)
        return CLOPS__HOST_OOM("kernel cache");
    c->cap = 256;
    c->table = calloc(c->cap, sizeof *c->table);
    if (!c->table) {
        free(c);
        return CLOPS__HOST_OOM("kernel cache");
    }
    pthread_mutex_init(&c->lock, NULL);
    pthread_mutex_init(&c->build_lock, NULL);
    d->kcache = c;
    return CLOPS_OK;
}

void host_kcache_destroy(clops_device *d)
{
    host_kernel_cache *c = d->kcache;
    if (!c)
        return;
    for (size_t i = 0; i < c->cap; i++) {
        host_kernel *k = c->table[i].kernel;
        if (!k)
            continue;
        clReleaseKernel(k->kernel);
        pthread_mutex_destroy(&k->lock);
        free(k);
    }
    host_program *p = c->programs;
    while (p) {
        host_program *next = p->next;
        clReleaseProgram(p->program);
        free(p);
        p = next;
    }
    free(c->table);
    pthread_mutex_destroy(&c->lock);
    pthread_mutex_destroy(&c->build_lock);
    free(c);
    d->kcache = NULL;
}

/* Probe for key: the slot holding it or the empty slot where it goes. */
static kentry *probe(kentry *table, size_t cap, const host_kkey *key)
{
    size_t i = (size_t)kkey_hash(key) & (cap - 1);
    for (;;) {
        kentry *e = &table[i];
        if (!e->kernel || kkey_eq(&e->key, key))
            return e;
        i = (i + 1) & (cap - 1);
    }
}

host_kernel *host_kernel_lookup(clops_device *d, const host_kkey *key)
{
    host_kernel_cache *c = d->kcache;
    pthread_mutex_lock(&c->lock);
    kentry *e = probe(c->table, c->cap, key);
    host_kernel *k = e->kernel;
    if (k)
        c->stats.kernel_hits++;
    pthread_mutex_unlock(&c->lock);
    return k;
}

/* Inserts a kernel (table lock held), growing the table at 50% load. */
static clops_status insert_locked(host_kernel_cache *c, const host_kkey *key, host_kernel *k)
{
    if ((c->count + 1) * 2 > c->cap) {
        size_t ncap = c->cap * 2;
        kentry *nt = calloc(ncap, sizeof *nt);
        if (!nt)
            return CLOPS__HOST_OOM("kernel cache table");
        for (size_t i = 0; i < c->cap; i++)
            if (c->table[i].kernel)
                *probe(nt, ncap, &c->table[i].key) = c->table[i];
        free(c->table);
        c->table = nt;
        c->cap = ncap;
    }
    kentry *e = probe(c->table, c->cap, key);
    e->key = *key;
    e->kernel = k;
    c->count++;
    return CLOPS_OK;
}

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Fetches the program's binary (single device); malloc'd. */
static clops_status program_binary(const clops_device *d, cl_program p, unsigned char **data,
                                   size_t *size)
{
    size_t n = 0;
    cl_int err = clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof n, &n, NULL);
    if (err != CL_SUCCESS)
        return host_cl_fail(err, "clGetProgramInfo(CL_PROGRAM_BINARY_SIZES)", d);
    if (n == 0) {
        *data = NULL;
        *size = 0;
        return CLOPS_OK;
    }
    unsigned char *buf = malloc(n);
    if (!buf)
        return CLOPS__HOST_OOM("program binary");
    err = clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof buf, &buf, NULL);
    if (err != CL_SUCCESS) {
        free(buf);
        return host_cl_fail(err, "clGetProgramInfo(CL_PROGRAM_BINARIES)", d);
    }
    *data = buf;
    *size = n;
    return CLOPS_OK;
}

/* Writes a freshly built program's binary to the disk cache. */
static void store_program(const clops_device *d, host_program *p)
{
    char dir[1024];
    if (!d->cache_binaries || !host_cache_dir(dir, sizeof dir))
        return;
    unsigned char *bin = NULL;
    size_t n = 0;
    if (program_binary(d, p->program, &bin, &n) == CLOPS_OK && n > 0)
        host_disk_store(d, p->dkey, bin, n);
    free(bin);
}

/* Writes source to <dir>/<name>-<hash>.cl through a temporary file (no
 * planted link is ever followed) and creates dir 0700 when missing; returns
 * the path in `path`. */
static bool dump_source(const char *dir, const char *name, host_dkey key, const char *src,
                        char *path, size_t cap)
{
    if (!host_make_dirs_mode(dir, 0700))
        return false;
    char clean[96], tmp[1100];
    size_t j = 0;
    for (const char *s = name; *s && j + 1 < sizeof clean; s++)
        clean[j++] = (*s == '/' || *s == ' ') ? '_' : *s;
    clean[j] = '\0';
    snprintf(path, cap, "%s/%s-%016llx.cl", dir, clean, (unsigned long long)key.lo);
    FILE *f = host_create_temp(path, tmp, sizeof tmp);
    if (!f)
        return false;
    bool ok = fputs(src, f) >= 0;
    ok = (fclose(f) == 0) && ok;
    if (!ok || rename(tmp, path) != 0) {
        unlink(tmp);
        return false;
    }
    return true;
}

/* Records a build failure with the build log and where the source went:
 * CLOPS_DUMP_KERNELS when set, else <cache>/failed-builds (a folder of the
 * user's own, checked like the rest of the cache). */
static clops_status build_failed(const clops_device *d, cl_program prog, cl_int err,
                                 const char *name, host_dkey key, const char *src)
{
    clops_status st = host_cl_fail(err, "clBuildProgram", d);
    clops__error_prefix(st, "building program '%s'", name);
    size_t n = 0;
    char *log = NULL;
    if (clGetProgramBuildInfo(prog, d->id, CL_PROGRAM_BUILD_LOG, 0, NULL, &n) == CL_SUCCESS && n &&
        (log = malloc(n + 1)) != NULL &&
        clGetProgramBuildInfo(prog, d->id, CL_PROGRAM_BUILD_LOG, n, log, NULL) == CL_SUCCESS) {
        log[n] = '\0';
        clops__error_append("\nbuild log:\n");
        clops__error_append(log);
    }
    free(log);
    const char *dir = host_env("CLOPS_DUMP_KERNELS");
    char cdir[1024];
    if (!dir && host_cache_subdir("failed-builds", true, cdir, sizeof cdir))
        dir = cdir;
    char path[1200];
    if (dir && dump_source(dir, name, key, src, path, sizeof path)) {
        clops__error_append("\nsource written to ");
        clops__error_append(path);
    }
    return st;
}

/* Default build options for every program on a device.  OpenCL lets float
 * division be off by 2.5 ULP and sqrt by 3 unless asked otherwise; NVIDIA's
 * driver takes that licence (a division that should give exactly 2 gives
 * 1.9999999, so div(rounding_mode='trunc') gives 1, and quotients near the
 * float range overflow), while PyTorch's CUDA and CPU kernels divide exactly.
 * Every device that can divide exactly is asked to.  CPU devices get
 * -DCLOPS_CHUNKED=1, their launch policy (cl_kernels/items.clh). */
void host_build_options(const clops_device *d, const char *extra, char *buf, size_t cap)
{
    snprintf(buf, cap, "-cl-std=CL1.2%s%s%s%s%s", d->info.fp64 ? " -DCLOPS_HAS_FP64=1" : "",
             d->exact_div_sqrt ? " -cl-fp32-correctly-rounded-divide-sqrt" : "",
             d->chunked ? " -DCLOPS_CHUNKED=1" : "", extra ? " " : "", extra ? extra : "");
}

/* Creates a program from a cached binary; NULL when absent or unusable. */
static cl_program load_program(clops_device *d, host_dkey key, const char *options)
{
    host_kernel_cache *c = d->kcache;
    unsigned char *bin = NULL;
    size_t n = 0;
    bool rejected = false;
    if (!d->cache_binaries)
        return NULL;
    if (host_disk_load(d, key, &bin, &n, &rejected) != CLOPS_OK || !bin) {
        if (rejected)
            c->stats.disk_rejected++;
        return NULL;
    }
    cl_int err = CL_SUCCESS, bstatus = CL_SUCCESS;
    const unsigned char *bp = bin;
    cl_program p = clCreateProgramWithBinary(d->context, 1, &d->id, &n, &bp, &bstatus, &err);
    free(bin);
    if (p && err == CL_SUCCESS && bstatus == CL_SUCCESS)
        err = clBuildProgram(p, 1, &d->id, options, NULL, NULL);
    if (!p || err != CL_SUCCESS || bstatus != CL_SUCCESS) {
        /* The driver refused the file (e.g. written by another driver build):
         * delete and count it; the caller rebuilds from source. */
        if (p)
            clReleaseProgram(p);
        host_disk_remove(d, key);
        c->stats.disk_rejected++;
        return NULL;
    }
    return p;
}

/*
 * The PTX route (host_kernel_request.ptx_target): NVIDIA's OpenCL compiler
 * writes PTX for the device's own target (`.target sm_90` on an H100) and
 * rejects instructions of the architecture-specific target (sm_90a:
 * wgmma, setmaxnreg), but builds PTX handed back to it as a binary.  So the
 * kernels write those instructions behind "//@" (a PTX comment), and here
 * the built program's PTX is read back (CL_PROGRAM_BINARIES), its
 * `.target` line given `target`, every "//@" removed, and the text built
 * again with clCreateProgramWithBinary.  Every step that fails says which
 * one and why; the caller falls back to another kernel.
 */
/* Whether the line at l (up to n) begins, after blanks, with word. */
static bool line_is(const char *l, size_t n, const char *word)
{
    size_t i = 0, wl = strlen(word);
    while (i < n && (l[i] == ' ' || l[i] == '\t'))
        i++;
    return i + wl <= n && strncmp(l + i, word, wl) == 0;
}

/*
 * entry (may be NULL): the performance directives of the entry `kernel`
 * (PTX ISA "Performance-Tuning Directives": .maxntid, .reqntid,
 * .minnctapersm, .maxnreg), written after its parameter list in place of
 * the driver's own (NVIDIA's compiler writes `.reqntid` for
 * reqd_work_group_size).  A register cap at entry (.maxntid with
 * .minnctapersm 1) is what ptxas needs to honour setmaxnreg.
 */
static clops_status ptx_patch(const char *ptx, size_t n, const char *target, const char *kernel,
                              const char *entry, char **out, size_t *out_len)
{
    size_t tl = strlen(target), el = entry ? strlen(entry) : 0;
    size_t kl = kernel ? strlen(kernel) : 0;
    /* The text grows only at the .target line and the entry's directives. */
    if (n > SIZE_MAX - tl - el - 3)
        return CLOPS__HOST_OOM("PTX route");
    char *buf = malloc(n + tl + el + 3);
    if (!buf)
        return CLOPS__HOST_OOM("PTX route");
    size_t w = 0, i = 0;
    int targets = 0;
    /* The entry's state: 0 before it, 1 in its parameters, 2 in its
     * directives, 3 past them. */
    int es = entry ? 0 : 3;
    while (i < n && ptx[i]) {
        bool line_start = i == 0 || ptx[i - 1] == '\n';
        if (line_start && !targets && i + 8 <= n && strncmp(ptx + i, ".target ", 8) == 0) {
            /* ".target sm_90[, options]": the first token becomes target. */
            memcpy(buf + w, ".target ", 8);
            w += 8;
            i += 8;
            while (i < n && ptx[i] == ' ')
                i++;
            while (i < n && ptx[i] && ptx[i] != ',' && ptx[i] != ' ' && ptx[i] != '\n' &&
                   ptx[i] != '\r')
                i++;
            memcpy(buf + w, target, tl);
            w += tl;
            targets++;
            continue;
        }
        if (line_start && es == 0 &&
            (line_is(ptx + i, n - i, ".entry ") || line_is(ptx + i, n - i, ".visible .entry "))) {
            /* "[.visible ].entry name(" */
            size_t j = i;
            for (int tok = line_is(ptx + i, n - i, ".visible") ? 2 : 1; tok > 0; tok--) {
                while (j < n && (ptx[j] == ' ' || ptx[j] == '\t'))
                    j++;
                while (j < n && ptx[j] != ' ' && ptx[j] != '\t' && ptx[j] != '\n')
                    j++;
            }
            while (j < n && (ptx[j] == ' ' || ptx[j] == '\t'))
                j++;
            if (j + kl < n && strncmp(ptx + j, kernel, kl) == 0 &&
                (ptx[j + kl] == '(' || ptx[j + kl] == ' ' || ptx[j + kl] == '\n' ||
                 ptx[j + kl] == '\r'))
                es = 1;
        } else if (line_start && es == 1 && line_is(ptx + i, n - i, ")")) {
            /* The parameter list's end: its line, then the directives. */
            while (i < n && ptx[i] && ptx[i] != '\n')
                buf[w++] = ptx[i++];
            if (i < n && ptx[i] == '\n')
                buf[w++] = ptx[i++];
            memcpy(buf + w, entry, el);
            w += el;
            if (el && entry[el - 1] != '\n')
                buf[w++] = '\n';
            es = 2;
            continue;
        } else if (line_start && es == 2) {
            if (line_is(ptx + i, n - i, "{")) {
                es = 3;
            } else if (line_is(ptx + i, n - i, ".reqntid") ||
                       line_is(ptx + i, n - i, ".maxntid") ||
                       line_is(ptx + i, n - i, ".minnctapersm") ||
                       line_is(ptx + i, n - i, ".maxnreg")) {
                while (i < n && ptx[i] && ptx[i] != '\n')
                    i++;
                if (i < n && ptx[i] == '\n')
                    i++;
                continue;
            }
        }
        if (i + 3 <= n && strncmp(ptx + i, "//@", 3) == 0) {
            i += 3;
            continue;
        }
        buf[w++] = ptx[i++];
    }
    buf[w] = '\0';
    if (!targets || es != 3) {
        free(buf);
        if (!targets)
            return clops__fail(CLOPS_BUILD_FAILURE,
                               "the program's binary is not PTX text (no .target line)");
        return clops__fail(CLOPS_BUILD_FAILURE,
                           "the program's PTX has no entry '%s' to give its directives",
                           kernel ? kernel : "");
    }
    *out = buf;
    *out_len = w;
    return CLOPS_OK;
}

static clops_status ptx_route(clops_device *d, cl_program built, const host_kernel_request *req,
                              const char *options, host_dkey key, cl_program *out)
{
    unsigned char *bin = NULL;
    size_t n = 0;
    char *ptx = NULL;
    size_t len = 0;
    const char *target = req->ptx_target;
    const char *entry = req->ptx_entry_directives;
    clops_status st = program_binary(d, built, &bin, &n);
    if (st == CLOPS_OK && n == 0)
        st = clops__fail(CLOPS_BUILD_FAILURE, "the driver returned no program binary");
    if (st == CLOPS_OK)
        st = ptx_patch((const char *)bin, n, target, req->kernel_name, entry, &ptx, &len);
    free(bin);
    if (st)
        return clops__error_prefix(st, "program '%s', PTX route to %s on %s", req->program_name,
                                   target, d->label);
    cl_int err = CL_SUCCESS, bstatus = CL_SUCCESS;
    size_t size = len + 1;
    const unsigned char *bp = (const unsigned char *)ptx;
    cl_program p = clCreateProgramWithBinary(d->context, 1, &d->id, &size, &bp, &bstatus, &err);
    if (!p || err != CL_SUCCESS || bstatus != CL_SUCCESS) {
        if (p)
            clReleaseProgram(p);
        free(ptx);
        st = host_cl_fail(err != CL_SUCCESS ? err : bstatus,
                          "clCreateProgramWithBinary (patched PTX)", d);
        return clops__error_prefix(st, "program '%s', PTX route to %s", req->program_name,
                                   target);
    }
    /* CLOPS_PTX_VERBOSE (NVIDIA): the routed build's log (ptxas's
     * registers, spills and shared memory per kernel: -cl-nv-verbose) and
     * the patched PTX's directives go to the standard error. */
    bool verbose = host_env("CLOPS_PTX_VERBOSE") != NULL;
    char vopts[600];
    snprintf(vopts, sizeof vopts, "%s%s", options, verbose ? " -cl-nv-verbose" : "");
    err = clBuildProgram(p, 1, &d->id, vopts, NULL, NULL);
    if (verbose) {
        size_t ln = 0;
        char *log = NULL;
        if (clGetProgramBuildInfo(p, d->id, CL_PROGRAM_BUILD_LOG, 0, NULL, &ln) == CL_SUCCESS &&
            ln && (log = malloc(ln + 1)) != NULL &&
            clGetProgramBuildInfo(p, d->id, CL_PROGRAM_BUILD_LOG, ln, log, NULL) == CL_SUCCESS) {
            log[ln] = '\0';
            fprintf(stderr, "clops: PTX route, program '%s', entry directives:\n%s\nbuild log:\n%s\n",
                    req->program_name, entry ? entry : "(the driver's)\n",
                    log);
        }
        free(log);
    }
    if (err != CL_SUCCESS) {
        char name[160];
        snprintf(name, sizeof name, "%s (PTX for %s)", req->program_name, target);
        st = build_failed(d, p, err, name, key, ptx);
        clReleaseProgram(p);
        free(ptx);
        return st;
    }
    free(ptx);
    *out = p;
    return CLOPS_OK;
}

/* Writes the request's source into src and its build options and disk key;
 * the source is checked against the compiler limits first. */
/*
 * The lines in front of every program for CPU devices.  Clang-based CPU
 * compilers (POCL's) warn on every call that passes or returns a 16-wide
 * vector (float16, uint16: vload16, our register tiles) without AVX-512
 * ("AVX vector argument of type 'float16' without 'avx512f' enabled
 * changes the ABI", -Wpsabi): the callee is POCL's builtin library built
 * for the same target in the same module, so the ABI never differs, but
 * the compiler prints "N warnings generated." to the process's standard
 * error for each such program, in the middle of `clops compare`'s output.
 * POCL refuses -Wno-psabi as a build option; the pragma (clang only) stays
 * inside the program.  #line 1 keeps the line numbers of build logs.
 * build_from_source hands it to the driver as a first string: the source
 * clops checks, hashes and dumps is the family's own.
 */
static const char cpu_prelude[] = "#ifdef __clang__\n"
                                  "#pragma clang diagnostic ignored \"-Wpsabi\"\n"
                                  "#endif\n"
                                  "#line 1\n";

static clops_status make_source(clops_device *d, const host_kernel_request *req, strbuf *src,
                                char *options, size_t cap, host_dkey *key)
{
    clops_status st = req->gen_source(req->ctx, d, src);
    if (st == CLOPS_OK)
        st = sb_finish(src, "kernel source");
    if (st == CLOPS_OK)
        st = host_source_check(req->program_name, sb_str(src));
    if (st)
        return st;
    host_build_options(d, req->build_options, options, cap);
    if (req->ptx_entry_directives && !req->ptx_target)
        return clops__fail(CLOPS_INTERNAL,
                           "program '%s': PTX entry directives without the PTX route's target",
                           req->program_name);
    if (req->ptx_target) {
        size_t tl = strlen(req->ptx_target);
        if (tl == 0 || tl >= 32 || strcspn(req->ptx_target, " \t\r\n,") != tl)
            return clops__fail(CLOPS_INTERNAL, "program '%s': PTX target '%s' is not one token",
                               req->program_name, req->ptx_target);
        /* The route's program is not the source's: another key, with the
         * target and the entry's directives in it. */
        strbuf routed = STRBUF_INIT;
        sb_printf(&routed, "%s ptx-route:%s entry:%s", options, req->ptx_target,
                  req->ptx_entry_directives ? req->ptx_entry_directives : "(driver)");
        st = sb_finish(&routed, "PTX route key");
        if (st == CLOPS_OK)
            *key = host_disk_key(d, sb_str(src), src->len, sb_str(&routed));
        sb_free(&routed);
        if (st)
            return st;
    } else {
        *key = host_disk_key(d, sb_str(src), src->len, options);
    }
    return CLOPS_OK;
}

/* Builds a program from source into *out (build lock held). */
static clops_status build_from_source(clops_device *d, const host_kernel_request *req,
                                      const strbuf *src, const char *options, host_dkey key,
                                      cl_program *out)
{
    cl_int err = CL_SUCCESS;
    const char *text = sb_str(src);
    /* CPU devices: the prelude in front (not part of the source's key or
     * of the dumps: it changes no binary, and #line 1 keeps the lines). */
    const char *parts[2] = {cpu_prelude, text};
    size_t lens[2] = {sizeof cpu_prelude - 1, src->len};
    int first = d->info.is_gpu ? 1 : 0;
    cl_program prog = clCreateProgramWithSource(d->context, (cl_uint)(2 - first), parts + first,
                                                lens + first, &err);
    if (!prog || err != CL_SUCCESS) {
        if (prog)
            clReleaseProgram(prog);
        return host_cl_fail(err, "clCreateProgramWithSource", d);
    }
    err = clBuildProgram(prog, 1, &d->id, options, NULL, NULL);
    if (err != CL_SUCCESS) {
        clops_status st = build_failed(d, prog, err, req->program_name, key, text);
        clReleaseProgram(prog);
        return st;
    }
    if (req->ptx_target) {
        cl_program routed = NULL;
        clops_status st = ptx_route(d, prog, req, options, key, &routed);
        clReleaseProgram(prog);
        if (st)
            return st;
        prog = routed;
    }
    d->kcache->stats.programs_built++;
    *out = prog;
    return CLOPS_OK;
}

/* Finds or creates the program for a request (build lock held). */
static clops_status get_program(clops_device *d, const host_kernel_request *req,
                                host_program **out)
{
    host_kernel_cache *c = d->kcache;
    strbuf src = STRBUF_INIT;
    char options[512];
    host_dkey key;
    clops_status st = make_source(d, req, &src, options, sizeof options, &key);
    if (st) {
        sb_free(&src);
        return st;
    }

    for (host_program *p = c->programs; p; p = p->next)
        if (p->dkey.lo == key.lo && p->dkey.hi == key.hi) {
            sb_free(&src);
            *out = p;
            return CLOPS_OK;
        }

    host_program *p = calloc(1, sizeof *p);
    if (!p) {
        sb_free(&src);
        return CLOPS__HOST_OOM("program record");
    }
    p->dkey = key;
    snprintf(p->name, sizeof p->name, "%s", req->program_name);
    const char *dump = host_env("CLOPS_DUMP_KERNELS");
    if (dump) {
        char path[1200];
        dump_source(dump, req->program_name, key, sb_str(&src), path, sizeof path);
    }

    double t0 = now_seconds();
    p->program = load_program(d, key, options);
    if (p->program) {
        p->from_disk = true;
        c->stats.programs_loaded++;
    } else {
        st = build_from_source(d, req, &src, options, key, &p->program);
        if (st) {
            free(p);
            sb_free(&src);
            return st;
        }
        store_program(d, p);
    }
    c->stats.build_seconds += now_seconds() - t0;
    sb_free(&src);
    p->next = c->programs;
    c->programs = p;
    *out = p;
    return CLOPS_OK;
}

/* A program loaded from a cached binary could not give a kernel: the binary
 * is not what its key promises (another program's binary, a driver that
 * accepts but mangles it).  Deletes the file and rebuilds the program from
 * source in place, once (build lock held).  Kernels already made from the
 * old program keep it alive through their own reference. */
static clops_status rebuild_program(clops_device *d, const host_kernel_request *req,
                                    host_program *p)
{
    host_kernel_cache *c = d->kcache;
    strbuf src = STRBUF_INIT;
    char options[512];
    host_dkey key;
    clops_status st = make_source(d, req, &src, options, sizeof options, &key);
    cl_program fresh = NULL;
    if (st == CLOPS_OK) {
        host_disk_remove(d, p->dkey);
        c->stats.disk_rejected++;
        double t0 = now_seconds();
        st = build_from_source(d, req, &src, options, key, &fresh);
        c->stats.build_seconds += now_seconds() - t0;
    }
    sb_free(&src);
    if (st)
        return st;
    clReleaseProgram(p->program);
    p->program = fresh;
    p->from_disk = false;
    store_program(d, p);
    return CLOPS_OK;
}

clops_status host_kernel_get(clops_device *d, const host_kkey *key, const host_kernel_request *req,
                             host_kernel **out)
{
    host_kernel *k = host_kernel_lookup(d, key);
    if (k) {
        *out = k;
        return CLOPS_OK;
    }
    host_kernel_cache *c = d->kcache;
    pthread_mutex_lock(&c->build_lock);
    clops_status st = CLOPS_OK;
    /* Another thread may have made it while we waited. */
    pthread_mutex_lock(&c->lock);
    k = probe(c->table, c->cap, key)->kernel;
    pthread_mutex_unlock(&c->lock);
    if (k)
        goto done;

    host_program *p = NULL;
    st = get_program(d, req, &p);
    if (st)
        goto done;

    k = calloc(1, sizeof *k);
    if (!k) {
        st = CLOPS__HOST_OOM("kernel record");
        goto done;
    }
    cl_int err = CL_SUCCESS;
    k->kernel = clCreateKernel(p->program, req->kernel_name, &err);
    if ((!k->kernel || err != CL_SUCCESS) && p->from_disk) {
        /* The cached binary lied: discard it and rebuild from source. */
        if (k->kernel)
            clReleaseKernel(k->kernel);
        k->kernel = NULL;
        st = rebuild_program(d, req, p);
        if (st) {
            free(k);
            k = NULL;
            goto done;
        }
        err = CL_SUCCESS;
        k->kernel = clCreateKernel(p->program, req->kernel_name, &err);
    }
    if (!k->kernel || err != CL_SUCCESS) {
        st = host_cl_fail(err, "clCreateKernel", d);
        clops__error_prefix(st, "kernel '%s' of program '%s'", req->kernel_name, req->program_name);
        free(k);
        k = NULL;
        goto done;
    }
    size_t kwg = 0;
    clGetKernelWorkGroupInfo(k->kernel, d->id, CL_KERNEL_WORK_GROUP_SIZE, sizeof kwg, &kwg, NULL);
    k->wg_size = (kwg && kwg < d->wg_size) ? kwg : d->wg_size;
    k->program = p;
    snprintf(k->name, sizeof k->name, "%s", req->kernel_name);
    pthread_mutex_init(&k->lock, NULL);

    pthread_mutex_lock(&c->lock);
    st = insert_locked(c, key, k);
    if (st == CLOPS_OK)
        c->stats.kernel_misses++;
    pthread_mutex_unlock(&c->lock);
    if (st) {
        clReleaseKernel(k->kernel);
        pthread_mutex_destroy(&k->lock);
        free(k);
        k = NULL;
    }
done:
    pthread_mutex_unlock(&c->build_lock);
    if (st == CLOPS_OK)
        *out = k;
    return st;
}

void host_kcache_get_stats(clops_device *d, host_kcache_stats *out)
{
    host_kernel_cache *c = d->kcache;
    pthread_mutex_lock(&c->build_lock);
    pthread_mutex_lock(&c->lock);
    *out = c->stats;
    pthread_mutex_unlock(&c->lock);
    pthread_mutex_unlock(&c->build_lock);
}

const char *host_kernel_program_name(const host_kernel *k)
{
    return k && k->program ? k->program->name : "";
}
