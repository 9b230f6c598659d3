/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/test_cache_safety.c: the disk cache against another local user and
 * against lying or unwritable cache folders.
 *
 * Another user must not be able to make clops write through a planted
 * symlink (neither the cache's temporary files nor the source dumped after
 * a failed build), cache folders are created private (0700), and a cache
 * folder others can write (without the sticky bit) or that another user
 * owns is refused with a warning while clops carries on without it.  A
 * cache file whose header, key and checksum are right but whose payload is
 * another program's binary is discarded and rebuilt from source, once.  A
 * cache filled by root and read by an unprivileged user (a container image)
 * works: POCL's own cache is not pointed into the read-only folder.  The
 * process environment is changed once per process, and not at all with
 * CLOPS_NO_SETENV=1.
 *
 * Tests that need a fresh process run this binary again with a mode
 * argument; the read-only test runs its second child as user `nobody`
 * (CI runs as root) and skips, saying why, when it cannot.  main() sets
 * CLOPS_CACHE_POCL=1 so POCL stores clops' binaries too.
 */
#define _DEFAULT_SOURCE /* setgroups */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
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

static char test_root[512];
static char nonce[64];
static char self_exe[1024];

/* --- a test program with a chosen kernel name ------------------------------------ */

typedef struct prog_ctx {
    const char *kname;
    bool broken;
} prog_ctx;

/* Source of a one-kernel program writing 7 + i to p[i]. */
static clops_status gen_source(void *vctx, const clops_device *d, strbuf *sb)
{
    const prog_ctx *c = vctx;
    (void)d;
    sb_printf(sb, "/* test_cache_safety %s %s */\n", nonce, c->kname);
    sb_printf(sb, "__kernel void %s(__global int *p, int n) { int i = (int)get_global_id(0); "
                  "if (i < n) p[i] = 7 + i; }\n",
              c->kname);
    if (c->broken)
        sb_append(sb, "__kernel void broken(__global int *p) { p[0] = ; }\n");
    return CLOPS_OK;
}

/* The request and kernel key of program `kname`. */
static host_kernel_request request_for(prog_ctx *c, char *pname, size_t cap)
{
    snprintf(pname, cap, "safety/%s", c->kname);
    host_kernel_request req = {
        .program_name = pname, .kernel_name = c->kname, .gen_source = gen_source, .ctx = c};
    return req;
}

static host_kkey key_for(const char *kname)
{
    host_kkey k = {{0x5AFE000000ull, 0, 0, 0}};
    for (const char *p = kname; *p; p++)
        k.w[1] = k.w[1] * 131 + (unsigned char)*p;
    for (const char *p = nonce; *p; p++)
        k.w[2] = k.w[2] * 131 + (unsigned char)*p;
    return k;
}

/* Gets the program's kernel on d. */
static clops_status get_kernel(clops_device *d, const char *kname, bool broken, host_kernel **out)
{
    prog_ctx c = {kname, broken};
    char pname[96];
    host_kernel_request req = request_for(&c, pname, sizeof pname);
    host_kkey key = key_for(kname);
    return host_kernel_get(d, &key, &req, out);
}

/* The program's disk key on d, computed as host/program.c does. */
static host_dkey disk_key_for(clops_device *d, const char *kname)
{
    prog_ctx c = {kname, false};
    strbuf sb = STRBUF_INIT;
    gen_source(&c, d, &sb);
    char opts[512];
    host_build_options(d, NULL, opts, sizeof opts);
    host_dkey k = host_disk_key(d, sb_str(&sb), sb.len, opts);
    sb_free(&sb);
    return k;
}

/* Runs the kernel over 16 ints and checks 7 + i came back. */
static void check_runs(clops_device *d, host_kernel *k)
{
    clops_tensor *t = NULL;
    CT_OK(clops_empty(d, CLOPS_INT32, 1, CT_I64(16), &t));
    cl_mem mem = t->storage->block->mem;
    const int n = 16;
    host_arg args[2] = {{sizeof mem, &mem}, {sizeof n, &n}};
    CT_OK(host_launch(d, k, 2, args, (size_t)n));
    int32_t *got = ct_to_host(t);
    for (int i = 0; i < 16; i++)
        CT_ASSERT_MSG(got[i] == 7 + i, "element %d is %d", i, got[i]);
    free(got);
    clops_tensor_release(t);
}

/* --- folders, files and processes -------------------------------------------------- */

/* Points CLOPS_CACHE_DIR at <root>/<name> (not created: clops creates it). */
static void use_cache_dir(const char *name, char *dir, size_t cap)
{
    snprintf(dir, cap, "%s/%s", test_root, name);
    ct_remove_tree(dir);
    setenv("CLOPS_CACHE_DIR", dir, 1);
}

/* A fresh start of clops; returns the OpenCL devices (skips when none). */
static int restart(clops_device **devs)
{
    clops_shutdown();
    CT_OK(clops_init());
    int n = ct_opencl_devices(devs, CT_MAX_DEVICES);
    if (n == 0)
        skip();
    return n;
}

/* Writes `text` to path (a fresh regular file). */
static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    CT_ASSERT_MSG(f != NULL, "%s: %s", path, strerror(errno));
    fputs(text, f);
    fclose(f);
}

/* Whether the file at path holds exactly `text`. */
static bool file_is(const char *path, const char *text)
{
    char buf[256] = "";
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    return strcmp(buf, text) == 0;
}

/* Mode bits of path. */
static mode_t mode_of(const char *path)
{
    struct stat st;
    CT_ASSERT_MSG(stat(path, &st) == 0, "%s: %s", path, strerror(errno));
    return st.st_mode & 07777;
}

/* A malloc'd copy of environ without the variables named in drop (NULL
 * terminated), plus `extra` entries (NULL terminated). */
static char **make_env(const char *const *drop, const char *const *extra)
{
    size_t n = 0, m = 0;
    while (environ[n])
        n++;
    while (extra && extra[m])
        m++;
    char **env = calloc(n + m + 1, sizeof *env);
    CT_ASSERT(env != NULL);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        bool skip_it = false;
        for (const char *const *d = drop; d && *d; d++) {
            size_t len = strlen(*d);
            if (strncmp(environ[i], *d, len) == 0 && environ[i][len] == '=')
                skip_it = true;
        }
        if (!skip_it)
            env[k++] = environ[i];
    }
    for (size_t j = 0; j < m; j++)
        env[k++] = (char *)extra[j];
    return env;
}

/* Runs this binary with `mode` (and arg) in env, as uid/gid when uid >= 0;
 * returns the exit status (-signal when killed). */
static int run_child(const char *mode, const char *arg, char **env, int uid, int gid)
{
    pid_t pid = fork();
    CT_ASSERT(pid >= 0);
    if (pid == 0) {
        if (uid >= 0 && (setgroups(0, NULL) != 0 || setgid((gid_t)gid) != 0 ||
                         setuid((uid_t)uid) != 0))
            _exit(120);
        char *argv[] = {"test_cache_safety", (char *)mode, (char *)arg, NULL};
        execve(self_exe, argv, env);
        _exit(121);
    }
    int status = 0;
    CT_ASSERT(waitpid(pid, &status, 0) == pid);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
}

/* Captures what fn writes to stderr into buf. */
static void capture_stderr(void (*fn)(void *), void *arg, char *buf, size_t cap)
{
    char path[600];
    snprintf(path, sizeof path, "%s/stderr.txt", test_root);
    fflush(stderr);
    int saved = dup(2);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    CT_ASSERT(saved >= 0 && fd >= 0);
    dup2(fd, 2);
    close(fd);
    fn(arg);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(buf, 1, cap - 1, f) : 0;
    if (f)
        fclose(f);
    buf[n] = '\0';
}

/* --- symlink plants ------------------------------------------------------------------ */

static void test_a_symlink_planted_at_a_cache_temporary_is_never_followed(void **state)
{
    (void)state;
    char dir[1024], victim[1100];
    clops_device *devs[CT_MAX_DEVICES];
    use_cache_dir("plant-temp", dir, sizeof dir);
    int n = restart(devs);
    snprintf(victim, sizeof victim, "%s/victim-temp.txt", test_root);
    write_file(victim, "precious");
    for (int k = 0; k < n; k++) {
        ct_set_device(devs[k]);
        /* Every temporary name clops ever used for this file in this
         * process (<key>.bin.tmp.<pid>.<n>) points at the victim. */
        char kdir[1024], link[1400];
        CT_ASSERT(host_cache_subdir("kernels", true, kdir, sizeof kdir));
        snprintf(kdir + strlen(kdir), sizeof kdir - strlen(kdir), "/%s", devs[k]->cache_tag);
        CT_ASSERT(mkdir(kdir, 0700) == 0);
        host_dkey key = disk_key_for(devs[k], "planted_temp");
        for (int c = 0; c < 256; c++) {
            snprintf(link, sizeof link, "%s/%016llx%016llx.bin.tmp.%ld.%d", kdir,
                     (unsigned long long)key.hi, (unsigned long long)key.lo, (long)getpid(), c);
            CT_ASSERT(symlink(victim, link) == 0);
        }
        host_kernel *kern = NULL;
        CT_OK(get_kernel(devs[k], "planted_temp", false, &kern));
        check_runs(devs[k], kern);
        CT_ASSERT_MSG(file_is(victim, "precious"), "clops wrote through a planted symlink");
        CT_ASSERT(ct_count_files(kdir, ".bin") >= 1);
    }
    ct_clear_context();
}

static void test_a_symlink_planted_at_a_failed_build_dump_is_never_followed(void **state)
{
    (void)state;
    char dir[1024], victim[1100], tmp[1100], link[1400];
    clops_device *devs[CT_MAX_DEVICES];
    use_cache_dir("plant-dump", dir, sizeof dir);
    int n = restart(devs);
    char root[1024];
    CT_ASSERT(host_cache_subdir("", true, root, sizeof root));
    snprintf(victim, sizeof victim, "%s/victim-dump.txt", test_root);
    write_file(victim, "precious");
    /* The old fixed folder, $TMPDIR/clops-failed-builds, and the new one. */
    snprintf(tmp, sizeof tmp, "%s/tmp", dir);
    CT_ASSERT(mkdir(tmp, 0777) == 0);
    char *old_tmpdir = getenv("TMPDIR") ? strdup(getenv("TMPDIR")) : NULL;
    setenv("TMPDIR", tmp, 1);
    char shared[1200], own[1100];
    snprintf(shared, sizeof shared, "%s/clops-failed-builds", tmp);
    CT_ASSERT(mkdir(shared, 0777) == 0);
    CT_ASSERT(host_cache_subdir("failed-builds", true, own, sizeof own));
    for (int k = 0; k < n; k++) {
        ct_set_device(devs[k]);
        prog_ctx c = {"planted_dump", true};
        strbuf sb = STRBUF_INIT;
        gen_source(&c, devs[k], &sb);
        char opts[512];
        host_build_options(devs[k], NULL, opts, sizeof opts);
        host_dkey key = host_disk_key(devs[k], sb_str(&sb), sb.len, opts);
        sb_free(&sb);
        const char *folders[] = {shared, own};
        for (int f = 0; f < 2; f++) {
            snprintf(link, sizeof link, "%s/safety_planted_dump-%016llx.cl", folders[f],
                     (unsigned long long)key.lo);
            unlink(link);
            CT_ASSERT(symlink(victim, link) == 0);
        }
        host_kernel *kern = NULL;
        CT_STATUS(get_kernel(devs[k], "planted_dump", true, &kern), CLOPS_BUILD_FAILURE);
        CT_ERROR_CONTAINS("source written to ");
        CT_ERROR_CONTAINS(own);
        CT_ASSERT_MSG(file_is(victim, "precious"), "clops wrote through a planted symlink");
        struct stat st;
        CT_ASSERT(lstat(link, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 077) == 0);
    }
    if (old_tmpdir)
        setenv("TMPDIR", old_tmpdir, 1);
    else
        unsetenv("TMPDIR");
    free(old_tmpdir);
    ct_clear_context();
}

/* --- folder ownership and modes ------------------------------------------------------- */

static void test_cache_folders_are_created_private(void **state)
{
    (void)state;
    char dir[1024], path[1200];
    clops_device *devs[CT_MAX_DEVICES];
    use_cache_dir("private", dir, sizeof dir);
    int n = restart(devs);
    for (int k = 0; k < n; k++) {
        ct_set_device(devs[k]);
        host_kernel *kern = NULL;
        CT_OK(get_kernel(devs[k], "privfolder", false, &kern));
        CT_ASSERT_MSG((mode_of(dir) & 077) == 0, "%s has mode %o", dir, mode_of(dir));
        snprintf(path, sizeof path, "%s/kernels", dir);
        CT_ASSERT_MSG((mode_of(path) & 077) == 0, "%s has mode %o", path, mode_of(path));
        snprintf(path, sizeof path, "%s/kernels/%s", dir, devs[k]->cache_tag);
        CT_ASSERT_MSG((mode_of(path) & 077) == 0, "%s has mode %o", path, mode_of(path));
        CT_ASSERT(ct_count_files(path, ".bin") == 1);
    }
    ct_clear_context();
}

typedef struct build_args {
    clops_device **devs;
    int n;
    const char *kname;
} build_args;

/* Builds and runs the program on every device (for capture_stderr). */
static void build_all(void *varg)
{
    build_args *a = varg;
    for (int k = 0; k < a->n; k++) {
        host_kernel *kern = NULL;
        CT_OK(get_kernel(a->devs[k], a->kname, false, &kern));
        check_runs(a->devs[k], kern);
    }
}

static void test_unsafe_cache_folders_are_refused_with_a_warning(void **state)
{
    (void)state;
    char dir[1024], err[4096];
    clops_device *devs[CT_MAX_DEVICES];
    /* Writable by everyone, no sticky bit: refused, warned, no file. */
    use_cache_dir("world-writable", dir, sizeof dir);
    CT_ASSERT(mkdir(dir, 0700) == 0 && chmod(dir, 0777) == 0);
    int n = restart(devs);
    build_args a = {devs, n, "world_writable"};
    capture_stderr(build_all, &a, err, sizeof err);
    CT_ASSERT_MSG(strstr(err, "refusing the kernel cache folder") && strstr(err, dir) &&
                      strstr(err, "writable by every user"),
                  "stderr: '%s'", err);
    CT_ASSERT_MSG(ct_count_files(dir, ".bin") == 0, "%d files written to a world-writable cache",
                  ct_count_files(dir, ".bin"));
    /* Owned by another user: refused too. */
    use_cache_dir("foreign", dir, sizeof dir);
    CT_ASSERT(mkdir(dir, 0755) == 0);
    if (geteuid() == 0) {
        CT_ASSERT(chown(dir, 65534, 65534) == 0);
        n = restart(devs);
        a = (build_args){devs, n, "foreign_owner"};
        build_all(&a);
        CT_ASSERT(ct_count_files(dir, ".bin") == 0);
    }
    /* Sticky and writable by everyone (like /tmp): fine, and what clops
     * creates inside is private. */
    use_cache_dir("sticky", dir, sizeof dir);
    CT_ASSERT(mkdir(dir, 0700) == 0 && chmod(dir, 01777) == 0);
    n = restart(devs);
    a = (build_args){devs, n, "sticky"};
    build_all(&a);
    CT_ASSERT(ct_count_files(dir, ".bin") == n);
    ct_clear_context();
}

/* --- a payload that is not what the key promises -------------------------------------- */

static void test_a_cache_file_with_another_programs_payload_is_rebuilt_once(void **state)
{
    (void)state;
    char dir[1024];
    clops_device *devs[CT_MAX_DEVICES];
    use_cache_dir("wrong-payload", dir, sizeof dir);
    int n = restart(devs);
    for (int k = 0; k < n; k++) {
        host_kernel *kern = NULL;
        CT_OK(get_kernel(devs[k], "payload_other", false, &kern));
        CT_OK(get_kernel(devs[k], "payload_mine", false, &kern));
    }
    clops_shutdown(); /* every binary is on disk now */
    n = restart(devs);
    for (int k = 0; k < n; k++) {
        ct_set_device(devs[k]);
        /* Valid header, key and checksum; another program's binary. */
        host_dkey other = disk_key_for(devs[k], "payload_other");
        host_dkey mine = disk_key_for(devs[k], "payload_mine");
        unsigned char *bin = NULL;
        size_t size = 0;
        bool rejected = false;
        CT_OK(host_disk_load(devs[k], other, &bin, &size, &rejected));
        CT_ASSERT(bin != NULL && !rejected);
        CT_OK(host_disk_store(devs[k], mine, bin, size));
        free(bin);
    }
    n = restart(devs);
    for (int k = 0; k < n; k++) {
        ct_set_device(devs[k]);
        host_kernel *kern = NULL;
        CT_OK(get_kernel(devs[k], "payload_mine", false, &kern));
        check_runs(devs[k], kern);
        host_kcache_stats s;
        host_kcache_get_stats(devs[k], &s);
        CT_ASSERT_MSG(s.disk_rejected == 1 && s.programs_built == 1,
                      "rejected %llu built %llu loaded %llu", (unsigned long long)s.disk_rejected,
                      (unsigned long long)s.programs_built, (unsigned long long)s.programs_loaded);
    }
    /* The rebuilt binary replaced the bad file: the next process loads it. */
    n = restart(devs);
    for (int k = 0; k < n; k++) {
        ct_set_device(devs[k]);
        host_kernel *kern = NULL;
        CT_OK(get_kernel(devs[k], "payload_mine", false, &kern));
        host_kcache_stats s;
        host_kcache_get_stats(devs[k], &s);
        CT_ASSERT(s.programs_loaded == 1 && s.programs_built == 0 && s.disk_rejected == 0);
    }
    ct_clear_context();
}

/* --- a read-only cache, used by another user ------------------------------------------- */

/* Child: runs add on every OpenCL device; 0 when every result is right. */
static int child_add(void)
{
    int count = 0, bad = 0;
    if (clops_device_count(&count))
        return 2;
    for (int i = 1; i < count; i++) {
        clops_device *d = NULL;
        clops_tensor *a = NULL, *out = NULL;
        float got[8];
        if (clops_device_get(i, &d) ||
            clops_full(d, CLOPS_FLOAT32, 1, CT_I64(8), clops_scalar_float(1.5), &a) ||
            clops_add(a, a, clops_scalar_int(1), &out) ||
            clops_tensor_to_host(out, got, sizeof got) || got[7] != 3.0f) {
            fprintf(stderr, "child: device %d: %s\n", i, clops_last_error());
            bad++;
        }
        clops_tensor_release(a);
        clops_tensor_release(out);
    }
    clops_shutdown();
    return bad ? 1 : 0;
}

static void test_a_read_only_cache_works_for_another_user(void **state)
{
    (void)state;
    if (geteuid() != 0) {
        print_message("skipped: needs root to fill a cache and use it as another user (CI runs "
                      "as root)\n");
        skip();
    }
    struct passwd *pw = getpwnam("nobody");
    if (!pw) {
        print_message("skipped: no user 'nobody' to run as\n");
        skip();
    }
    char dir[1024], home[1100], cdir[1200], hdir[1200];
    use_cache_dir("read-only", dir, sizeof dir);
    snprintf(home, sizeof home, "%s/home-nobody", test_root);
    CT_ASSERT(mkdir(home, 0700) == 0 && chown(home, pw->pw_uid, pw->pw_gid) == 0);
    /* The whole root must be traversable by nobody. */
    CT_ASSERT(chmod(test_root, 0755) == 0);
    snprintf(cdir, sizeof cdir, "CLOPS_CACHE_DIR=%s", dir);
    snprintf(hdir, sizeof hdir, "HOME=%s", home);
    const char *drop[] = {"POCL_CACHE_DIR", "POCL_KERNEL_CACHE", "CLOPS_CACHE_DIR", "HOME",
                          "XDG_CACHE_HOME", "CLOPS_CACHE_POCL", "CLOPS_NO_SETENV", NULL};
    const char *extra[] = {cdir, hdir, NULL};
    char **env = make_env(drop, extra);
    /* Filled as root, then opened up read-only for everyone. */
    int rc = run_child("--add", "", env, -1, -1);
    CT_ASSERT_MSG(rc == 0, "filling the cache as root failed (%d)", rc);
    char cmd[1300];
    snprintf(cmd, sizeof cmd, "chmod -R a+rX,go-w '%s'", dir);
    CT_ASSERT(system(cmd) == 0);
    rc = run_child("--add", "", env, (int)pw->pw_uid, (int)pw->pw_gid);
    free(env);
    CT_ASSERT_MSG(rc == 0, "running as nobody on the read-only cache failed (%d)", rc);
}

/* --- the process environment ------------------------------------------------------------- */

/* Child: the environment is changed at the first initialisation only, and
 * with CLOPS_NO_SETENV=1 never.  argv[2]: "once" or "never". */
static int child_env(const char *what)
{
    if (clops_init())
        return 2;
    int count = 0;
    clops_device_count(&count);
    if (count < 2)
        return 0; /* no OpenCL: nothing to configure */
    const char *set = getenv("POCL_CACHE_DIR");
    if (strcmp(what, "never") == 0)
        return set ? 3 : 0;
    if (!set)
        return 4;
    unsetenv("POCL_CACHE_DIR");
    clops_shutdown();
    if (clops_init())
        return 5;
    int rc = getenv("POCL_CACHE_DIR") ? 6 : 0;
    clops_shutdown();
    return rc;
}

static void test_the_environment_is_set_once_and_never_with_clops_no_setenv(void **state)
{
    (void)state;
    char dir[1024], cdir[1200];
    use_cache_dir("env", dir, sizeof dir);
    snprintf(cdir, sizeof cdir, "CLOPS_CACHE_DIR=%s", dir);
    const char *drop[] = {"POCL_CACHE_DIR", "CLOPS_CACHE_DIR", "CLOPS_NO_SETENV", NULL};
    const char *extra[] = {cdir, NULL};
    char **env = make_env(drop, extra);
    int rc = run_child("--env", "once", env, -1, -1);
    free(env);
    CT_ASSERT_MSG(rc == 0, "the environment was changed again by a second clops_init (%d)", rc);
    const char *extra2[] = {cdir, "CLOPS_NO_SETENV=1", NULL};
    env = make_env(drop, extra2);
    rc = run_child("--env", "never", env, -1, -1);
    free(env);
    CT_ASSERT_MSG(rc == 0, "CLOPS_NO_SETENV=1 did not keep clops from setting POCL_CACHE_DIR (%d)",
                  rc);
}

int main(int argc, char **argv)
{
    ssize_t len = readlink("/proc/self/exe", self_exe, sizeof self_exe - 1);
    if (len <= 0)
        return 1;
    self_exe[len] = '\0';
    if (argc == 3 && strcmp(argv[1], "--add") == 0)
        return child_add();
    if (argc == 3 && strcmp(argv[1], "--env") == 0)
        return child_env(argv[2]);

    /* Before clops initialises: clops' own cache on POCL too. */
    setenv("CLOPS_CACHE_POCL", "1", 1);
    const char *t = getenv("TMPDIR");
    snprintf(test_root, sizeof test_root, "%s/clops-test-safety-XXXXXX", t && *t ? t : "/tmp");
    if (!mkdtemp(test_root)) {
        perror("mkdtemp");
        return 1;
    }
    setenv("CLOPS_CACHE_DIR", test_root, 1);
    snprintf(nonce, sizeof nonce, "%ld-%ld", (long)getpid(), (long)time(NULL));

    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_symlink_planted_at_a_cache_temporary_is_never_followed),
        cmocka_unit_test(test_a_symlink_planted_at_a_failed_build_dump_is_never_followed),
        cmocka_unit_test(test_cache_folders_are_created_private),
        cmocka_unit_test(test_unsafe_cache_folders_are_refused_with_a_warning),
        cmocka_unit_test(test_a_cache_file_with_another_programs_payload_is_rebuilt_once),
        cmocka_unit_test(test_a_read_only_cache_works_for_another_user),
        cmocka_unit_test(test_the_environment_is_set_once_and_never_with_clops_no_setenv),
    };
    int rc = cmocka_run_group_tests(tests, NULL, ct_teardown_group);
    ct_remove_tree(test_root);
    return rc;
}
