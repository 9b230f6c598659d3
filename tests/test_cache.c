/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/test_cache.c: the kernel caches of host/program.c and
 * host/diskcache.c, driven through host/host.h with a tiny program of the
 * test's own.
 *
 * In memory: a second request for a kernel is a hit that returns the same
 * kernel and builds nothing.  On disk: a fresh process (clops_shutdown() and
 * a new initialisation, or a child process running this binary) loads the
 * program instead of building it; a corrupt, truncated or foreign file is
 * deleted, counted and rebuilt, never trusted; a different driver version
 * is a different cache; writes leave no temporary files; CLOPS_CACHE=0
 * writes nothing.  A program that does not compile fails with its build log
 * and the path of its saved source (under the cache folder).
 *
 * On POCL clops leaves binary caching to POCL's own cache (host/program.c
 * says why) unless CLOPS_CACHE_POCL=1, which main() sets before clops starts
 * so the mechanism is tested on POCL too.  Every test works in its own cache
 * folder under a temporary root that main() removes at the end.
 */
#include <dirent.h>
#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "clops/ops.h"
#include "host/host.h"
#include "support/clops_test.h"

extern char **environ;

/* The temporary root holding every cache folder of this run. */
static char test_root[512];
/* Makes this run's sources differ from any earlier run's. */
static char nonce[64];

/* --- the test program ---------------------------------------------------------- */

typedef struct prog_ctx {
    const char *tag; /* distinguishes the programs of different tests */
    bool broken;     /* emit a syntax error */
} prog_ctx;

/* Source of the test program: two kernels writing v + i to p[i]. */
static clops_status gen_test_source(void *vctx, const clops_device *d, strbuf *sb)
{
    const prog_ctx *c = vctx;
    (void)d;
    sb_printf(sb, "/* clops test_cache program %s %s */\n", nonce, c->tag);
    sb_append(sb, "__kernel void ct_fill(__global int *p, int v, int n)\n"
                  "{\n"
                  "    int i = (int)get_global_id(0);\n"
                  "    if (i < n)\n"
                  "        p[i] = v + i;\n"
                  "}\n"
                  "__kernel void ct_fill2(__global int *p, int v, int n)\n"
                  "{\n"
                  "    int i = (int)get_global_id(0);\n"
                  "    if (i < n)\n"
                  "        p[i] = v - i;\n"
                  "}\n");
    if (c->broken)
        sb_append(sb, "__kernel void ct_broken(__global int *p) { p[0] = ; }\n");
    return CLOPS_OK;
}

/* The key of kernel `which` (0: ct_fill, 1: ct_fill2) of a tagged program. */
static host_kkey test_key(const char *tag, int which)
{
    host_kkey k = {{0xC1095CAC4Eull << 8 | (uint64_t)which, 0, 0, 0}};
    for (const char *p = tag; *p; p++)
        k.w[1] = k.w[1] * 131 + (unsigned char)*p;
    for (const char *p = nonce; *p; p++)
        k.w[2] = k.w[2] * 131 + (unsigned char)*p;
    return k;
}

/* Gets kernel `which` of the tagged program on d. */
static clops_status get_kernel(clops_device *d, const char *tag, int which, bool broken,
                               host_kernel **out)
{
    prog_ctx c = {tag, broken};
    char pname[96];
    snprintf(pname, sizeof pname, "test/%s", tag);
    host_kernel_request req = {.program_name = pname,
                               .kernel_name = which ? "ct_fill2" : "ct_fill",
                               .gen_source = gen_test_source,
                               .ctx = &c};
    host_kkey key = test_key(tag, which);
    return host_kernel_get(d, &key, &req, out);
}

/* Runs ct_fill (or ct_fill2) on d and checks what it wrote. */
static void check_kernel_runs(clops_device *d, host_kernel *k, int which)
{
    const int n = 100, v = 1000;
    clops_tensor *t = NULL;
    CT_OK(clops_empty(d, CLOPS_INT32, 1, CT_I64(100), &t));
    cl_mem mem = t->storage->block->mem;
    host_arg args[3] = {{sizeof mem, &mem}, {sizeof v, &v}, {sizeof n, &n}};
    CT_OK(host_launch(d, k, 3, args, (size_t)n));
    int32_t *got = ct_to_host(t);
    for (int i = 0; i < n; i++)
        CT_ASSERT_MSG(got[i] == (which ? v - i : v + i), "element %d is %d", i, got[i]);
    free(got);
    clops_tensor_release(t);
}

/* --- cache folders and processes ------------------------------------------------ */

/* Points CLOPS_CACHE_DIR at a fresh folder <root>/<name>. */
static void use_cache_dir(const char *name, char *dir, size_t cap)
{
    snprintf(dir, cap, "%s/%s", test_root, name);
    ct_remove_tree(dir);
    CT_ASSERT_MSG(mkdir(dir, 0755) == 0, "mkdir %s: %s", dir, strerror(errno));
    setenv("CLOPS_CACHE_DIR", dir, 1);
}

/* Simulates a fresh process: shuts clops down and initialises it again.
 * Returns the OpenCL devices under test (skips the test when none). */
static int restart(clops_device **devs)
{
    clops_shutdown();
    CT_OK(clops_init());
    int n = ct_opencl_devices(devs, CT_MAX_DEVICES);
    if (n == 0)
        skip();
    return n;
}

/* Stats of d. */
static host_kcache_stats stats_of(clops_device *d)
{
    host_kcache_stats s;
    host_kcache_get_stats(d, &s);
    return s;
}

/* Path of the one cache file of d into path; fails when there is not
 * exactly one. */
static void the_cache_file(clops_device *d, char *path, size_t cap)
{
    char dir[1024];
    CT_ASSERT(host_cache_device_dir(d, dir, sizeof dir));
    CT_ASSERT_MSG(ct_count_files(dir, ".bin") == 1, "%d cache files in %s",
                  ct_count_files(dir, ".bin"), dir);
    DIR *dp = opendir(dir);
    CT_ASSERT(dp != NULL);
    struct dirent *e;
    path[0] = '\0';
    while ((e = readdir(dp)) != NULL)
        if (strstr(e->d_name, ".bin"))
            snprintf(path, cap, "%.1000s/%.150s", dir, e->d_name);
    closedir(dp);
    CT_ASSERT(path[0] != '\0');
}

/* Builds the tagged program on every device in a fresh process with a fresh
 * cache folder; returns the device count. */
static int build_fresh(const char *tag, clops_device **devs, char *dir, size_t cap)
{
    use_cache_dir(tag, dir, cap);
    int n = restart(devs);
    for (int k = 0; k < n; k++) {
        ct_set_device(devs[k]);
        host_kernel *kern = NULL;
        CT_OK(get_kernel(devs[k], tag, 0, false, &kern));
        host_kcache_stats s = stats_of(devs[k]);
        CT_ASSERT(s.programs_built == 1 && s.programs_loaded == 0);
    }
    return n;
}

/* --- pointwise kernels per signature ---------------------------------------------- */

/* CPU devices (the chunked launch policy) compile one pointwise kernel per
 * signature: contiguous, transposed, broadcast, 3-D and unaligned-view
 * float32 adds all take it (codegen_pointwise/emit.c, pw_kernel_rank); a
 * GPU takes at least the contiguous and unrolled-rank kernels. */
static void test_cpu_devices_compile_one_pointwise_kernel_per_signature(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_devices(devs, CT_MAX_DEVICES);
    for (int k = 0; k < nd; k++) {
        clops_device *d = devs[k];
        if (host_is_cpu(d))
            continue;
        ct_set_device(d);
        int64_t sz[3] = {48, 48, 3}, col[2] = {48, 1};
        clops_tensor *a = NULL, *b = NULL, *c = NULL, *a3 = NULL;
        CT_OK(clops_full(d, CLOPS_FLOAT32, 2, sz, clops_scalar_float(1.5), &a));
        CT_OK(clops_full(d, CLOPS_FLOAT32, 2, sz, clops_scalar_float(2.0), &b));
        CT_OK(clops_full(d, CLOPS_FLOAT32, 2, col, clops_scalar_float(3.0), &c));
        CT_OK(clops_full(d, CLOPS_FLOAT32, 3, sz, clops_scalar_float(4.0), &a3));
        clops_tensor *at = NULL, *bt = NULL, *an = NULL, *bn = NULL;
        CT_OK(clops_transpose(a, 0, 1, &at));
        CT_OK(clops_transpose(b, 0, 1, &bt));
        CT_OK(clops_narrow(a, 1, 3, 40, &an)); /* a view at an offset of 3 */
        CT_OK(clops_narrow(b, 1, 0, 40, &bn));
        host_kcache_stats s0 = stats_of(d);
        clops_tensor *r[5] = {NULL};
        CT_OK(clops_add(a, b, clops_scalar_int(1), &r[0]));
        CT_OK(clops_add(at, b, clops_scalar_int(1), &r[1]));
        CT_OK(clops_add(a, c, clops_scalar_int(1), &r[2]));
        CT_OK(clops_add(a3, a3, clops_scalar_int(1), &r[3]));
        CT_OK(clops_add(an, bn, clops_scalar_int(1), &r[4]));
        CT_OK(clops_device_synchronize(d));
        host_kcache_stats s1 = stats_of(d);
        uint64_t made = s1.kernel_misses - s0.kernel_misses;
        if (d->chunked)
            CT_ASSERT_MSG(made == 1, "%s: %llu pointwise kernels for one signature",
                          clops_device_label(d), (unsigned long long)made);
        else
            CT_ASSERT_MSG(made >= 2, "%s: %llu kernels", clops_device_label(d),
                          (unsigned long long)made);
        clops_tensor *all[] = {a, b, c, a3, at, bt, an, bn, r[0], r[1], r[2], r[3], r[4]};
        for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
            clops_tensor_release(all[i]);
    }
}

/* --- in memory ----------------------------------------------------------------- */

static void test_a_second_request_for_a_kernel_is_a_memory_hit(void **state)
{
    (void)state;
    char dir[1024];
    clops_device *devs[CT_MAX_DEVICES];
    use_cache_dir("memory-hit", dir, sizeof dir);
    int n = restart(devs);
    for (int k = 0; k < n; k++) {
        ct_set_device(devs[k]);
        host_kernel *first = NULL, *again = NULL;
        CT_ASSERT(host_kernel_lookup(devs[k], &(host_kkey){{1, 2, 3, 4}}) == NULL);
        host_kcache_stats s0 = stats_of(devs[k]);
        CT_OK(get_kernel(devs[k], "memory-hit", 0, false, &first));
        host_kcache_stats s1 = stats_of(devs[k]);
        CT_ASSERT(s1.kernel_misses == s0.kernel_misses + 1);
        CT_ASSERT(s1.programs_built == s0.programs_built + 1 && s1.build_seconds > 0);
        CT_OK(get_kernel(devs[k], "memory-hit", 0, false, &again));
        host_kkey key = test_key("memory-hit", 0);
        host_kernel *looked = host_kernel_lookup(devs[k], &key);
        host_kcache_stats s2 = stats_of(devs[k]);
        CT_ASSERT(again == first && looked == first);
        CT_ASSERT(s2.kernel_hits == s1.kernel_hits + 2 && s2.kernel_misses == s1.kernel_misses);
        CT_ASSERT(s2.programs_built == s1.programs_built && s2.programs_loaded == 0);
        check_kernel_runs(devs[k], first, 0);
    }
    ct_clear_context();
}

static void test_a_second_kernel_of_a_built_program_builds_nothing(void **state)
{
    (void)state;
    char dir[1024];
    clops_device *devs[CT_MAX_DEVICES];
    int n = build_fresh("two-kernels", devs, dir, sizeof dir);
    for (int k = 0; k < n; k++) {
        ct_set_device(devs[k]);
        host_kernel *second = NULL;
        CT_OK(get_kernel(devs[k], "two-kernels", 1, false, &second));
        host_kcache_stats s = stats_of(devs[k]);
        CT_ASSERT(s.programs_built == 1 && s.kernel_misses == 2);
        check_kernel_runs(devs[k], second, 1);
    }
    ct_clear_context();
}

/* --- on disk ---------------------------------------------------------------------- */

static void test_a_fresh_process_loads_the_program_from_the_disk_cache(void **state)
{
    (void)state;
    char dir[1024];
    clops_device *devs[CT_MAX_DEVICES];
    build_fresh("reload", devs, dir, sizeof dir);
    int n = restart(devs);
    for (int k = 0; k < n; k++) {
        ct_set_device(devs[k]);
        host_kernel *kern = NULL;
        CT_OK(get_kernel(devs[k], "reload", 0, false, &kern));
        host_kcache_stats s = stats_of(devs[k]);
        CT_ASSERT_MSG(s.programs_loaded == 1 && s.programs_built == 0 && s.disk_rejected == 0,
                      "loaded %llu built %llu rejected %llu", (unsigned long long)s.programs_loaded,
                      (unsigned long long)s.programs_built, (unsigned long long)s.disk_rejected);
        check_kernel_runs(devs[k], kern, 0);
    }
    ct_clear_context();
}

/* The child's side of the next test: loads the program (argv[2] is the
 * nonce) and exits 0 when every device the parent built it on loaded it
 * from disk.  The child inherits the parent's environment, so ct_devices
 * gives the parent's selection (CLOPS_TEST_DEVICES): with every OpenCL
 * device instead, a device the parent never built on (POCL beside an
 * NVIDIA GPU under CLOPS_TEST_DEVICES=nvidia) counted as a failure. */
static int child_main(const char *child_nonce)
{
    snprintf(nonce, sizeof nonce, "%s", child_nonce);
    clops_device *devs[CT_MAX_DEVICES];
    int count = ct_devices(devs, CT_MAX_DEVICES), failures = 0;
    for (int i = 0; i < count; i++) {
        clops_device *d = devs[i];
        if (host_is_cpu(d))
            continue;
        host_kernel *kern = NULL;
        if (get_kernel(d, "child", 0, false, &kern)) {
            fprintf(stderr, "child: %s\n", clops_last_error());
            failures++;
            continue;
        }
        host_kcache_stats s = stats_of(d);
        if (s.programs_loaded != 1 || s.programs_built != 0) {
            fprintf(stderr, "child: %s loaded %llu built %llu\n", d->label,
                    (unsigned long long)s.programs_loaded, (unsigned long long)s.programs_built);
            failures++;
        }
    }
    clops_shutdown();
    return failures ? 1 : 0;
}

static void test_a_child_process_loads_what_its_parent_built(void **state)
{
    (void)state;
    char dir[1024];
    clops_device *devs[CT_MAX_DEVICES];
    build_fresh("child", devs, dir, sizeof dir);
    clops_shutdown(); /* writes pending binaries; the child sees them all */
    char *argv[] = {"test_cache", "--cache-child", nonce, NULL};
    pid_t pid;
    int rc = posix_spawn(&pid, "/proc/self/exe", NULL, NULL, argv, environ);
    CT_ASSERT_MSG(rc == 0, "posix_spawn: %s", strerror(rc));
    int status = 0;
    CT_ASSERT(waitpid(pid, &status, 0) == pid);
    CT_ASSERT_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0,
                  "the child did not load every program from %s (status %d)", dir, status);
}

/* Corrupts the cache file at path in one of three ways. */
typedef enum corruption { FLIP_PAYLOAD_BYTE, TRUNCATE, WRONG_MAGIC } corruption;

static void corrupt(const char *path, corruption how)
{
    FILE *f = fopen(path, "r+b");
    CT_ASSERT(f != NULL);
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    CT_ASSERT(size > 128);
    long at = how == WRONG_MAGIC ? 0 : size - size / 4;
    fseek(f, at, SEEK_SET);
    int c = fgetc(f);
    fseek(f, at, SEEK_SET);
    fputc(c ^ 0x5a, f);
    fclose(f);
    if (how == TRUNCATE)
        CT_ASSERT(truncate(path, size / 2) == 0);
}

/* Reads a whole file into a malloc'd buffer. */
static unsigned char *slurp(const char *path, long *size)
{
    FILE *f = fopen(path, "rb");
    CT_ASSERT(f != NULL);
    fseek(f, 0, SEEK_END);
    *size = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *buf = malloc((size_t)*size + 1);
    bool ok = buf && fread(buf, 1, (size_t)*size, f) == (size_t)*size;
    fclose(f);
    CT_ASSERT(ok);
    return buf;
}

/* Builds, corrupts the file, and checks the next process rejects, deletes
 * and rebuilds it, and the one after loads the new file. */
static void check_corruption_is_rebuilt(const char *tag, corruption how)
{
    char dir[1024], path[1200];
    clops_device *devs[CT_MAX_DEVICES];
    int n = build_fresh(tag, devs, dir, sizeof dir);
    for (int k = 0; k < n; k++) {
        the_cache_file(devs[k], path, sizeof path);
        corrupt(path, how);
    }
    n = restart(devs);
    for (int k = 0; k < n; k++) {
        ct_set_device(devs[k]);
        the_cache_file(devs[k], path, sizeof path);
        long bad_size = 0;
        unsigned char *bad = slurp(path, &bad_size);
        host_kernel *kern = NULL;
        CT_OK(get_kernel(devs[k], tag, 0, false, &kern));
        host_kcache_stats s = stats_of(devs[k]);
        CT_ASSERT_MSG(s.disk_rejected == 1 && s.programs_built == 1 && s.programs_loaded == 0,
                      "rejected %llu built %llu loaded %llu", (unsigned long long)s.disk_rejected,
                      (unsigned long long)s.programs_built, (unsigned long long)s.programs_loaded);
        check_kernel_runs(devs[k], kern, 0);
        long good_size = 0;
        the_cache_file(devs[k], path, sizeof path); /* rewritten */
        unsigned char *good = slurp(path, &good_size);
        bool same = good_size == bad_size && memcmp(good, bad, (size_t)good_size) == 0;
        free(bad);
        free(good);
        CT_ASSERT_MSG(!same, "the corrupt file was kept");
    }
    n = restart(devs);
    for (int k = 0; k < n; k++) {
        ct_set_device(devs[k]);
        host_kernel *kern = NULL;
        CT_OK(get_kernel(devs[k], tag, 0, false, &kern));
        host_kcache_stats s = stats_of(devs[k]);
        CT_ASSERT(s.programs_loaded == 1 && s.programs_built == 0 && s.disk_rejected == 0);
    }
    ct_clear_context();
}

static void test_a_cache_file_with_a_flipped_payload_byte_is_deleted_and_rebuilt(void **state)
{
    (void)state;
    check_corruption_is_rebuilt("flipped", FLIP_PAYLOAD_BYTE);
}

static void test_a_truncated_cache_file_is_deleted_and_rebuilt(void **state)
{
    (void)state;
    check_corruption_is_rebuilt("truncated", TRUNCATE);
}

static void test_a_cache_file_with_a_wrong_magic_is_deleted_and_rebuilt(void **state)
{
    (void)state;
    check_corruption_is_rebuilt("magic", WRONG_MAGIC);
}

static void test_a_different_driver_version_uses_another_cache_folder(void **state)
{
    (void)state;
    char dir[1024], kernels[1100];
    clops_device *devs[CT_MAX_DEVICES];
    build_fresh("driver", devs, dir, sizeof dir);
    int n = restart(devs);
    for (int k = 0; k < n; k++) {
        ct_set_device(devs[k]);
        clops_device *d = devs[k];
        char old_tag[sizeof d->cache_tag], old_version[sizeof d->info.driver_version];
        snprintf(old_tag, sizeof old_tag, "%s", d->cache_tag);
        snprintf(old_version, sizeof old_version, "%s", d->info.driver_version);
        snprintf(d->info.driver_version, sizeof d->info.driver_version, "%.100s-updated",
                 old_version);
        host_device_refresh_identity(d);
        CT_ASSERT_MSG(strcmp(d->cache_tag, old_tag) != 0, "cache tag %s did not change",
                      old_tag);
        host_kernel *kern = NULL;
        clops_status st = get_kernel(d, "driver", 0, false, &kern);
        host_kcache_stats s = stats_of(d);
        snprintf(d->info.driver_version, sizeof d->info.driver_version, "%s", old_version);
        host_device_refresh_identity(d);
        CT_OK(st);
        CT_ASSERT_MSG(s.programs_built == 1 && s.programs_loaded == 0,
                      "built %llu loaded %llu", (unsigned long long)s.programs_built,
                      (unsigned long long)s.programs_loaded);
        CT_ASSERT(strcmp(d->cache_tag, old_tag) == 0);
    }
    snprintf(kernels, sizeof kernels, "%s/kernels", dir);
    CT_ASSERT_MSG(ct_count_files(kernels, ".bin") == 2 * n, "%d files under %s",
                  ct_count_files(kernels, ".bin"), kernels);
    ct_clear_context();
}

static void test_cache_writes_leave_no_temporary_files(void **state)
{
    (void)state;
    char dir[1024];
    clops_device *devs[CT_MAX_DEVICES];
    int n = build_fresh("atomic", devs, dir, sizeof dir);
    for (int k = 0; k < n; k++) {
        host_kernel *kern = NULL;
        CT_OK(get_kernel(devs[k], "atomic-2", 0, false, &kern));
    }
    clops_shutdown();
    char kernels[1100];
    snprintf(kernels, sizeof kernels, "%s/kernels", dir);
    CT_ASSERT(ct_count_files(kernels, ".bin") == 2 * n);
    CT_ASSERT_MSG(ct_count_files(kernels, NULL) == 2 * n, "%d files under %s, %d .tmp files",
                  ct_count_files(kernels, NULL), kernels, ct_count_files(kernels, ".tmp"));
}

static void test_clops_cache_0_writes_nothing_and_loads_nothing(void **state)
{
    (void)state;
    char dir[1024];
    clops_device *devs[CT_MAX_DEVICES];
    use_cache_dir("disabled", dir, sizeof dir);
    setenv("CLOPS_CACHE", "0", 1);
    for (int round = 0; round < 2; round++) {
        int n = restart(devs);
        for (int k = 0; k < n; k++) {
            ct_set_device(devs[k]);
            host_kernel *kern = NULL;
            clops_status st = get_kernel(devs[k], "disabled", 0, false, &kern);
            host_kcache_stats s = stats_of(devs[k]);
            if (st || s.programs_built != 1 || s.programs_loaded != 0)
                unsetenv("CLOPS_CACHE");
            CT_OK(st);
            CT_ASSERT(s.programs_built == 1 && s.programs_loaded == 0);
        }
    }
    clops_shutdown();
    unsetenv("CLOPS_CACHE");
    CT_ASSERT_MSG(ct_count_files(dir, NULL) == 0, "%d files were written under %s",
                  ct_count_files(dir, NULL), dir);
    ct_clear_context();
}

static void test_pocl_devices_leave_binaries_to_pocl_unless_clops_cache_pocl_is_set(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    const char *settings[] = {NULL, "0", "1"};
    for (size_t i = 0; i < CT_COUNT(settings); i++) {
        if (settings[i])
            setenv("CLOPS_CACHE_POCL", settings[i], 1);
        else
            unsetenv("CLOPS_CACHE_POCL");
        int n = restart(devs);
        for (int k = 0; k < n; k++) {
            ct_set_device(devs[k]);
            ct_set_case("CLOPS_CACHE_POCL=%s", settings[i] ? settings[i] : "(unset)");
            bool pocl = clops_device_get_info(devs[k])->vendor == CLOPS_VENDOR_POCL;
            bool want = !pocl || (settings[i] && strcmp(settings[i], "1") == 0);
            if (devs[k]->cache_binaries != want)
                setenv("CLOPS_CACHE_POCL", "1", 1);
            CT_ASSERT(devs[k]->cache_binaries == want);
        }
    }
    setenv("CLOPS_CACHE_POCL", "1", 1);
    ct_clear_context();
}

/* --- build failures ------------------------------------------------------------------ */

static void test_a_syntax_error_fails_with_the_build_log_and_the_saved_source(void **state)
{
    (void)state;
    char dir[1024], own[1100];
    clops_device *devs[CT_MAX_DEVICES];
    use_cache_dir("broken", dir, sizeof dir);
    /* Under the user's own cache folder, never a shared temporary one. */
    snprintf(own, sizeof own, "%s/failed-builds/", dir);
    int n = restart(devs);
    for (int k = 0; k < n; k++) {
        ct_set_device(devs[k]);
        host_kernel *kern = NULL;
        clops_status st = get_kernel(devs[k], "broken", 0, true, &kern);
        char msg[CLOPS__ERROR_CAP];
        snprintf(msg, sizeof msg, "%s", clops_last_error());
        CT_STATUS(st, CLOPS_BUILD_FAILURE);
        CT_ERROR_CONTAINS("test/broken");
        CT_ERROR_CONTAINS("clBuildProgram");
        CT_ERROR_CONTAINS("build log");
        CT_ERROR_CONTAINS("error");
        CT_ERROR_CONTAINS("source written to ");
        CT_ERROR_CONTAINS(own);
        const char *p = strstr(msg, "source written to ") + strlen("source written to ");
        char path[1200];
        snprintf(path, sizeof path, "%s", p);
        path[strcspn(path, "\n")] = '\0';
        long size = 0;
        char *src = (char *)slurp(path, &size);
        src[size] = '\0';
        bool has = strstr(src, nonce) && strstr(src, "ct_broken");
        free(src);
        CT_ASSERT_MSG(has, "%s does not hold the program source", path);
        host_kkey key = test_key("broken", 0);
        CT_ASSERT(host_kernel_lookup(devs[k], &key) == NULL);
        CT_ASSERT(stats_of(devs[k]).programs_built == 0);
    }
    ct_clear_context();
}

/* Programs ask for exactly rounded float division and sqrt on every device
 * that offers it (OpenCL otherwise allows 2.5 ULP, which NVIDIA's driver
 * uses: trunc division of an exact 2 gave 1), and keep the caller's options. */
static void test_programs_ask_for_exact_division_where_the_device_has_it(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_devices(devs, CT_MAX_DEVICES);
    int checked = 0;
    for (int k = 0; k < nd; k++) {
        if (host_is_cpu(devs[k]))
            continue;
        cl_device_fp_config cfg = 0;
        CT_ASSERT(clGetDeviceInfo(devs[k]->id, CL_DEVICE_SINGLE_FP_CONFIG, sizeof cfg, &cfg,
                                  NULL) == CL_SUCCESS);
        char opts[512];
        host_build_options(devs[k], "-DEXTRA=1", opts, sizeof opts);
        bool asked = strstr(opts, "-cl-fp32-correctly-rounded-divide-sqrt") != NULL;
        CT_ASSERT_MSG(asked == ((cfg & CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT) != 0),
                      "%s: options '%s'", clops_device_label(devs[k]), opts);
        CT_ASSERT(strstr(opts, "-cl-std=CL1.2") && strstr(opts, "-DEXTRA=1"));
        checked++;
    }
    if (checked == 0)
        print_message("skipped: no OpenCL device\n");
}

int main(int argc, char **argv)
{
    /* Before clops initialises: test clops' cache on POCL too. */
    setenv("CLOPS_CACHE_POCL", "1", 1);
    if (argc == 3 && strcmp(argv[1], "--cache-child") == 0)
        return child_main(argv[2]);

    const char *t = getenv("TMPDIR");
    snprintf(test_root, sizeof test_root, "%s/clops-test-cache-XXXXXX", t && *t ? t : "/tmp");
    if (!mkdtemp(test_root)) {
        perror("mkdtemp");
        return 1;
    }
    setenv("CLOPS_CACHE_DIR", test_root, 1);
    snprintf(nonce, sizeof nonce, "%ld-%ld", (long)getpid(), (long)time(NULL));

    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cpu_devices_compile_one_pointwise_kernel_per_signature),
        cmocka_unit_test(test_a_second_request_for_a_kernel_is_a_memory_hit),
        cmocka_unit_test(test_a_second_kernel_of_a_built_program_builds_nothing),
        cmocka_unit_test(test_a_fresh_process_loads_the_program_from_the_disk_cache),
        cmocka_unit_test(test_a_child_process_loads_what_its_parent_built),
        cmocka_unit_test(test_a_cache_file_with_a_flipped_payload_byte_is_deleted_and_rebuilt),
        cmocka_unit_test(test_a_truncated_cache_file_is_deleted_and_rebuilt),
        cmocka_unit_test(test_a_cache_file_with_a_wrong_magic_is_deleted_and_rebuilt),
        cmocka_unit_test(test_a_different_driver_version_uses_another_cache_folder),
        cmocka_unit_test(test_cache_writes_leave_no_temporary_files),
        cmocka_unit_test(test_clops_cache_0_writes_nothing_and_loads_nothing),
        cmocka_unit_test(test_pocl_devices_leave_binaries_to_pocl_unless_clops_cache_pocl_is_set),
        cmocka_unit_test(test_a_syntax_error_fails_with_the_build_log_and_the_saved_source),
        cmocka_unit_test(test_programs_ask_for_exact_division_where_the_device_has_it),
    };
    int rc = cmocka_run_group_tests(tests, NULL, ct_teardown_group);
    ct_remove_tree(test_root);
    return rc;
}
