/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tools/cli/cmd_cache.c: `clops cache info` and `clops cache clear`.
 *
 * The cache directory (host_cache_dir: CLOPS_CACHE_DIR, else
 * $XDG_CACHE_HOME/clops, else ~/.cache/clops) holds
 *     kernels/<device tag>/<32 hex digits>.bin   clops' program binaries
 *     pocl/...                                   POCL's own kernel cache, placed
 *                                                there by host/device.c
 * A device tag names the device and hashes its platform, driver and the
 * clops version, so a driver update starts a new folder; folders whose tag
 * matches no present device are stale and reported as such.
 *
 * `clear` deletes only what clops and POCL write there, by name: binaries
 * and their temporary files in kernels/<tag>/, and POCL's entries in pocl/
 * (two-letter hash folders, tempfile_*, uncached, kcache).  It never follows
 * symbolic links, and refuses a cache path that looks wrong ("/", the home
 * directory or one of its parents, a system directory, a top-level folder,
 * a folder owned by another user).
 */
/* realpath() is XSI-2008; the project builds with _POSIX_C_SOURCE only. */
#ifndef _XOPEN_SOURCE
#define _XOPEN_SOURCE 700
#endif

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "host/host.h"
#include "tools/cli/cli.h"

static const cli_option cache_options[] = {
    CLI_OPTION_JSON,
    {"dry-run", 'n', CLI_OPT_FLAG, NULL, "clear: list what would be removed, remove nothing"},
    CLI_OPTION_END,
};

/* Deepest folder level walked (POCL nests four levels). */
#define CACHE_MAX_DEPTH 12

/* dir + "/" + name into buf; false when it does not fit. */
static bool join(char *buf, size_t cap, const char *dir, const char *name)
{
    int n = snprintf(buf, cap, "%s/%s", dir, name);
    return n > 0 && (size_t)n < cap;
}

/* Files and bytes under a path. */
typedef struct cache_usage {
    uint64_t files, bytes;
} cache_usage;

/* Adds the sizes of every file under path (symlinks counted, not followed). */
static void walk_usage(const char *path, int depth, cache_usage *u)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return;
    if (!S_ISDIR(st.st_mode)) {
        u->files++;
        u->bytes += S_ISREG(st.st_mode) ? (uint64_t)st.st_size : 0;
        return;
    }
    DIR *d = depth < CACHE_MAX_DEPTH ? opendir(path) : NULL;
    if (!d)
        return;
    for (struct dirent *e; (e = readdir(d));) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        char sub[PATH_MAX];
        if (join(sub, sizeof sub, path, e->d_name))
            walk_usage(sub, depth + 1, u);
    }
    closedir(d);
}

/* True for "<32 lowercase hex>.bin" and its temporary "….bin.tmp.<pid>.<n>". */
static bool is_kernel_file(const char *name)
{
    for (int i = 0; i < 32; i++)
        if (!isxdigit((unsigned char)name[i]) || isupper((unsigned char)name[i]))
            return false;
    if (strncmp(name + 32, ".bin", 4) != 0)
        return false;
    const char *rest = name + 36;
    if (*rest == '\0')
        return true;
    if (strncmp(rest, ".tmp.", 5) != 0)
        return false;
    for (rest += 5; *rest; rest++)
        if (!isdigit((unsigned char)*rest) && *rest != '.')
            return false;
    return true;
}

/* True for the entries POCL writes at the top of its cache folder. */
static bool is_pocl_entry(const char *name)
{
    if (strlen(name) == 2 && isupper((unsigned char)name[0]) && isupper((unsigned char)name[1]))
        return true;
    return strncmp(name, "tempfile_", 9) == 0 || strcmp(name, "uncached") == 0 ||
           strcmp(name, "kcache") == 0;
}

/* --- info ---------------------------------------------------------------------- */

/* Where the cache directory came from, for people. */
static const char *cache_source(void)
{
    if (host_env("CLOPS_CACHE_DIR"))
        return "CLOPS_CACHE_DIR";
    if (host_env("XDG_CACHE_HOME"))
        return "$XDG_CACHE_HOME/clops";
    return "~/.cache/clops";
}

/* One kernels/<tag>/ folder. */
typedef struct tag_info {
    char tag[256];
    int device;        /* clops index of the device with this tag, or -1 */
    uint64_t entries;  /* *.bin files */
    uint64_t temp;     /* leftover temporary files */
    uint64_t other;    /* files clops did not write */
    uint64_t bytes;
} tag_info;

/* Lists kernels/ into *tags (malloc'd). */
static int scan_kernels(const char *root, tag_info **tags, int *ntags)
{
    *tags = NULL;
    *ntags = 0;
    char kdir[PATH_MAX];
    if (!join(kdir, sizeof kdir, root, "kernels"))
        return CLI_EXIT_OK;
    DIR *d = opendir(kdir);
    if (!d)
        return CLI_EXIT_OK;
    int cap = 0;
    for (struct dirent *e; (e = readdir(d));) {
        char sub[PATH_MAX];
        struct stat st;
        if (e->d_name[0] == '.' || !join(sub, sizeof sub, kdir, e->d_name) ||
            lstat(sub, &st) != 0 || !S_ISDIR(st.st_mode))
            continue;
        if (*ntags == cap) {
            cap = cap ? cap * 2 : 8;
            tag_info *p = realloc(*tags, (size_t)cap * sizeof *p);
            if (!p) {
                closedir(d);
                cli_error("out of host memory");
                return CLI_EXIT_RUNTIME;
            }
            *tags = p;
        }
        tag_info *t = &(*tags)[(*ntags)++];
        memset(t, 0, sizeof *t);
        memcpy(t->tag, e->d_name, strnlen(e->d_name, sizeof t->tag - 1));
        t->tag[sizeof t->tag - 1] = '\0';
        t->device = -1;
        int n = 0;
        clops_status st2 = clops_device_count(&n);
        for (int i = 1; !st2 && i < n; i++)
            if (strcmp(host_device_at(i)->cache_tag, t->tag) == 0)
                t->device = i;
        DIR *dd = opendir(sub);
        for (struct dirent *f; dd && (f = readdir(dd));) {
            char fp[PATH_MAX];
            struct stat fs;
            if (strcmp(f->d_name, ".") == 0 || strcmp(f->d_name, "..") == 0 ||
                !join(fp, sizeof fp, sub, f->d_name) ||
                lstat(fp, &fs) != 0)
                continue;
            if (S_ISREG(fs.st_mode) && is_kernel_file(f->d_name)) {
                if (strlen(f->d_name) == 36)
                    t->entries++;
                else
                    t->temp++;
            } else {
                t->other++;
            }
            t->bytes += S_ISREG(fs.st_mode) ? (uint64_t)fs.st_size : 0;
        }
        if (dd)
            closedir(dd);
    }
    closedir(d);
    return CLI_EXIT_OK;
}

/* Prints the human-readable info. */
static void print_info(const char *root, const cache_usage *total, const tag_info *tags,
                       int ntags, const cache_usage *pocl, const char *user_pocl)
{
    char a[32], b[32];
    printf("Kernel cache: %s  (from %s)\n", root, cache_source());
    printf("Total size:   %s in %llu file%s\n\n", cli_fmt_bytes(total->bytes, a, sizeof a),
           (unsigned long long)total->files, total->files == 1 ? "" : "s");
    printf("Compiled kernels (kernels/<device tag>/):\n");
    cli_table t;
    static const char *const h[] = {"Folder", "Device", "Entries", "Size", "Note"};
    cli_table_init(&t, "llrrl", 5, h);
    int n = 0;
    clops_device_count(&n);
    /* Present OpenCL devices first (with or without a folder), then stale. */
    for (int i = 1; i < n; i++) {
        const clops_device *dev = host_device_at(i);
        const tag_info *ti = NULL;
        for (int k = 0; k < ntags; k++)
            if (tags[k].device == i)
                ti = &tags[k];
        char label[300], cnt[32] = "0", size[32] = "-", note[160] = "";
        snprintf(label, sizeof label, "%s %s", dev->label, dev->info.name);
        if (ti) {
            snprintf(cnt, sizeof cnt, "%llu", (unsigned long long)ti->entries);
            cli_fmt_bytes(ti->bytes, size, sizeof size);
            if (!dev->cache_binaries)
                snprintf(note, sizeof note, "POCL caches its own binaries");
            else if (ti->temp)
                snprintf(note, sizeof note, "%llu leftover temporary files",
                         (unsigned long long)ti->temp);
        } else {
            snprintf(note, sizeof note, "%s",
                     dev->cache_binaries ? "no folder yet" : "POCL caches its own binaries");
        }
        const char *row[] = {dev->cache_tag, label, cnt, size, note};
        cli_table_row(&t, row);
    }
    for (int k = 0; k < ntags; k++) {
        if (tags[k].device >= 0)
            continue;
        char cnt[32], size[32];
        snprintf(cnt, sizeof cnt, "%llu", (unsigned long long)tags[k].entries);
        const char *row[] = {tags[k].tag, "(none present)", cnt,
                             cli_fmt_bytes(tags[k].bytes, size, sizeof size),
                             "stale: another device, driver or clops version"};
        cli_table_row(&t, row);
    }
    if (t.nrows > 1)
        cli_table_print(&t, stdout, "  ");
    else
        printf("  (none: no OpenCL device and no cached binaries)\n");
    cli_table_free(&t);
    printf("\nPOCL's own cache (pocl/): %llu file%s, %s\n", (unsigned long long)pocl->files,
           pocl->files == 1 ? "" : "s", cli_fmt_bytes(pocl->bytes, b, sizeof b));
    if (user_pocl)
        printf("  POCL_CACHE_DIR is set to %s: POCL caches there instead, and clops leaves "
               "that folder alone.\n",
               user_pocl);
}

/* Builds the JSON document of `cache info`. */
static cJSON *info_json(const char *root, const cache_usage *total, const tag_info *tags,
                        int ntags, const cache_usage *pocl, const char *user_pocl)
{
    cJSON *doc = cli_json_document("cache info");
    cJSON *c = doc ? cJSON_AddObjectToObject(doc, "cache") : NULL;
    cJSON *arr = c ? cJSON_AddArrayToObject(c, "kernels") : NULL;
    cJSON *devs = doc ? cJSON_GetObjectItemCaseSensitive(doc, "devices") : NULL;
    bool ok = arr && devs && cJSON_AddStringToObject(c, "dir", root) &&
              cJSON_AddStringToObject(c, "source", cache_source()) &&
              cJSON_AddNumberToObject(c, "total_files", (double)total->files) &&
              cJSON_AddNumberToObject(c, "total_bytes", (double)total->bytes);
    int n = 0;
    clops_device_count(&n);
    for (int i = 1; ok && i < n; i++) {
        const clops_device *dev = host_device_at(i);
        cJSON *o = cJSON_CreateObject();
        ok = o && cJSON_AddItemToArray(devs, o) &&
             cJSON_AddNumberToObject(o, "index", dev->info.index) &&
             cJSON_AddStringToObject(o, "label", dev->label) &&
             cJSON_AddStringToObject(o, "name", dev->info.name) &&
             cJSON_AddStringToObject(o, "cache_tag", dev->cache_tag) &&
             cJSON_AddBoolToObject(o, "clops_caches_binaries", dev->cache_binaries);
    }
    for (int k = 0; ok && k < ntags; k++) {
        cJSON *o = cJSON_CreateObject();
        ok = o && cJSON_AddItemToArray(arr, o) && cJSON_AddStringToObject(o, "tag", tags[k].tag) &&
             (tags[k].device >= 0 ? cJSON_AddNumberToObject(o, "device", tags[k].device)
                                  : cJSON_AddNullToObject(o, "device")) &&
             cJSON_AddBoolToObject(o, "stale", tags[k].device < 0) &&
             cJSON_AddNumberToObject(o, "entries", (double)tags[k].entries) &&
             cJSON_AddNumberToObject(o, "temp_files", (double)tags[k].temp) &&
             cJSON_AddNumberToObject(o, "other_files", (double)tags[k].other) &&
             cJSON_AddNumberToObject(o, "bytes", (double)tags[k].bytes);
    }
    cJSON *p = ok ? cJSON_AddObjectToObject(c, "pocl") : NULL;
    ok = p && cJSON_AddNumberToObject(p, "files", (double)pocl->files) &&
         cJSON_AddNumberToObject(p, "bytes", (double)pocl->bytes) &&
         (user_pocl ? cJSON_AddStringToObject(p, "user_dir", user_pocl)
                    : cJSON_AddNullToObject(p, "user_dir"));
    if (!ok) {
        cJSON_Delete(doc);
        return NULL;
    }
    return doc;
}

/* `clops cache info`. */
static int cache_info(const cli_args *args, const char *root)
{
    /* Read before device discovery, which sets POCL_CACHE_DIR itself. */
    const char *env = getenv("POCL_CACHE_DIR");
    char user_pocl[PATH_MAX] = "", ours[PATH_MAX];
    if (!join(ours, sizeof ours, root, "pocl"))
        ours[0] = '\0';
    if (env && *env && strcmp(env, ours) != 0)
        snprintf(user_pocl, sizeof user_pocl, "%s", env);
    int n = 0;
    clops_status st = clops_device_count(&n);
    if (st)
        return cli_status_error(st, "device discovery failed");
    cache_usage total = {0, 0}, pocl = {0, 0};
    walk_usage(root, 0, &total);
    walk_usage(ours, 0, &pocl);
    tag_info *tags;
    int ntags, rc = scan_kernels(root, &tags, &ntags);
    if (rc)
        return rc;
    const char *json = cli_value(args, "json");
    if (!json || strcmp(json, "-") != 0)
        print_info(root, &total, tags, ntags, &pocl, user_pocl[0] ? user_pocl : NULL);
    if (json) {
        cJSON *doc = info_json(root, &total, tags, ntags, &pocl, user_pocl[0] ? user_pocl : NULL);
        if (!doc) {
            cli_error("out of host memory while building JSON");
            rc = CLI_EXIT_RUNTIME;
        } else {
            rc = cli_json_write(doc, json);
            cJSON_Delete(doc);
        }
    }
    free(tags);
    return rc;
}

/* --- clear --------------------------------------------------------------------- */

/* Why the resolved cache path is unsafe to clear, or NULL when it is fine. */
static const char *unsafe_reason(const char *real)
{
    static const char *const system[] = {"/usr", "/etc", "/bin", "/sbin", "/lib", "/lib32",
                                         "/lib64", "/boot", "/dev", "/proc", "/sys", "/run"};
    if (strcmp(real, "/") == 0)
        return "it is the root directory";
    const char *home = getenv("HOME");
    char rhome[PATH_MAX];
    if (home && *home && realpath(home, rhome)) {
        size_t n = strlen(real);
        if (strcmp(real, rhome) == 0)
            return "it is the home directory";
        if (strncmp(rhome, real, n) == 0 && rhome[n] == '/')
            return "it contains the home directory";
    }
    int parts = 0;
    for (const char *p = real; *p; p++)
        parts += *p == '/' && p[1] && p[1] != '/';
    if (parts < 2)
        return "it is a top-level directory";
    for (size_t i = 0; i < sizeof system / sizeof system[0]; i++) {
        size_t n = strlen(system[i]);
        if (strncmp(real, system[i], n) == 0 && (real[n] == '/' || real[n] == '\0'))
            return "it is inside a system directory";
    }
    struct stat st;
    if (lstat(real, &st) != 0 || !S_ISDIR(st.st_mode))
        return "it is not a directory";
    if (st.st_uid != geteuid())
        return "it belongs to another user";
    return NULL;
}

/* What clear removed (or would remove). */
typedef struct clear_tally {
    cache_usage kernels, pocl;
    uint64_t kept;   /* files left because clops did not write them */
    uint64_t failed; /* removals that failed */
    bool dry;
} clear_tally;

/* Removes path and everything below it without following symlinks. */
static void remove_tree(const char *path, int depth, cache_usage *u, clear_tally *t)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return;
    if (S_ISDIR(st.st_mode) && depth < CACHE_MAX_DEPTH) {
        DIR *d = opendir(path);
        for (struct dirent *e; d && (e = readdir(d));) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            char sub[PATH_MAX];
            if (join(sub, sizeof sub, path, e->d_name))
                remove_tree(sub, depth + 1, u, t);
        }
        if (d)
            closedir(d);
        if (!t->dry && rmdir(path) != 0)
            t->failed++;
        return;
    }
    u->files++;
    u->bytes += S_ISREG(st.st_mode) ? (uint64_t)st.st_size : 0;
    if (!t->dry && unlink(path) != 0)
        t->failed++;
}

/* Clears kernels/<tag>/ binaries. */
static void clear_kernels(const char *root, clear_tally *t)
{
    char kdir[PATH_MAX];
    if (!join(kdir, sizeof kdir, root, "kernels"))
        return;
    DIR *d = opendir(kdir);
    for (struct dirent *e; d && (e = readdir(d));) {
        char sub[PATH_MAX];
        struct stat st;
        if (e->d_name[0] == '.' ||
            !join(sub, sizeof sub, kdir, e->d_name) ||
            lstat(sub, &st) != 0)
            continue;
        if (!S_ISDIR(st.st_mode)) {
            t->kept++;
            continue;
        }
        DIR *dd = opendir(sub);
        for (struct dirent *f; dd && (f = readdir(dd));) {
            char fp[PATH_MAX];
            struct stat fs;
            if (strcmp(f->d_name, ".") == 0 || strcmp(f->d_name, "..") == 0 ||
                !join(fp, sizeof fp, sub, f->d_name) ||
                lstat(fp, &fs) != 0)
                continue;
            if (!S_ISREG(fs.st_mode) || !is_kernel_file(f->d_name)) {
                t->kept++;
                continue;
            }
            t->kernels.files++;
            t->kernels.bytes += (uint64_t)fs.st_size;
            if (!t->dry && unlink(fp) != 0)
                t->failed++;
        }
        if (dd)
            closedir(dd);
        if (!t->dry)
            rmdir(sub); /* fails, harmlessly, when something was kept */
    }
    if (d)
        closedir(d);
    if (!t->dry)
        rmdir(kdir);
}

/* Clears POCL's entries in pocl/. */
static void clear_pocl(const char *root, clear_tally *t)
{
    char pdir[PATH_MAX];
    if (!join(pdir, sizeof pdir, root, "pocl"))
        return;
    struct stat st;
    if (lstat(pdir, &st) != 0 || !S_ISDIR(st.st_mode))
        return;
    DIR *d = opendir(pdir);
    for (struct dirent *e; d && (e = readdir(d));) {
        char sub[PATH_MAX];
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0 ||
            !join(sub, sizeof sub, pdir, e->d_name))
            continue;
        if (is_pocl_entry(e->d_name))
            remove_tree(sub, 1, &t->pocl, t);
        else
            t->kept++;
    }
    if (d)
        closedir(d);
    if (!t->dry)
        rmdir(pdir);
}

/* `clops cache clear`. */
static int cache_clear(const cli_args *args, const char *root)
{
    char real[PATH_MAX];
    if (!realpath(root, real)) {
        if (errno == ENOENT) {
            printf("Nothing to clear: %s does not exist.\n", root);
            return CLI_EXIT_OK;
        }
        cli_error("cannot resolve the cache directory %s: %s", root, strerror(errno));
        return CLI_EXIT_RUNTIME;
    }
    const char *why = unsafe_reason(real);
    if (why) {
        cli_error("refusing to clear %s: %s.  Point CLOPS_CACHE_DIR (or XDG_CACHE_HOME) at a "
                  "dedicated folder",
                  real, why);
        return CLI_EXIT_USAGE;
    }
    clear_tally t;
    memset(&t, 0, sizeof t);
    t.dry = cli_flag(args, "dry-run");
    clear_kernels(real, &t);
    clear_pocl(real, &t);
    char a[32], b[32];
    printf("%s %llu kernel binaries (%s) and %llu files of POCL's cache (%s) in %s\n",
           t.dry ? "Would remove" : "Removed", (unsigned long long)t.kernels.files,
           cli_fmt_bytes(t.kernels.bytes, a, sizeof a), (unsigned long long)t.pocl.files,
           cli_fmt_bytes(t.pocl.bytes, b, sizeof b), real);
    if (t.kept)
        printf("Left %llu entries that clops did not write.\n", (unsigned long long)t.kept);
    if (t.failed) {
        cli_error("%llu files or folders could not be removed (permissions?)",
                  (unsigned long long)t.failed);
        return CLI_EXIT_RUNTIME;
    }
    return CLI_EXIT_OK;
}

/* `clops cache [info|clear]`. */
static int cache_run(const cli_args *args)
{
    const char *action = args->npos ? args->pos[0] : "info";
    bool info = strcmp(action, "info") == 0, clear = strcmp(action, "clear") == 0;
    if (!info && !clear)
        return cli_usage_error(args->cmd, "unknown action '%s' (expected 'info' or 'clear')",
                               action);
    if (clear && cli_value(args, "json"))
        return cli_usage_error(args->cmd, "--json applies to 'cache info' only");
    if (info && cli_flag(args, "dry-run"))
        return cli_usage_error(args->cmd, "--dry-run applies to 'cache clear' only");
    char root[PATH_MAX];
    if (!host_cache_dir(root, sizeof root)) {
        const char *off = host_env("CLOPS_CACHE");
        if (off && strcmp(off, "0") == 0) {
            if (clear)
                return cli_usage_error(args->cmd, "the disk cache is disabled (CLOPS_CACHE=0): "
                                                  "unset CLOPS_CACHE to clear it");
            printf("The disk cache is disabled (CLOPS_CACHE=0): nothing is read or written.\n");
            return CLI_EXIT_OK;
        }
        cli_error("no cache directory: set CLOPS_CACHE_DIR, XDG_CACHE_HOME or HOME");
        return CLI_EXIT_USAGE;
    }
    return info ? cache_info(args, root) : cache_clear(args, root);
}

const cli_command cli_cmd_cache = {
    .name = "cache",
    .summary = "Show where the kernel cache is and how big, or clear it",
    .usage = "clops cache [info] [--json FILE]  |  clops cache clear [--dry-run]",
    .help = "info (the default) prints the cache directory and where its location came from,\n"
            "its total size, the number of compiled programs per device folder\n"
            "(kernels/<device tag>/), mapped to the devices present; folders of no present\n"
            "device are stale (another device, driver or clops version) and listed as such;\n"
            "and the size of POCL's own kernel cache (pocl/).\n\n"
            "clear removes clops' program binaries and POCL's cache entries, by name, and\n"
            "nothing else; it refuses a cache path that looks wrong (/, the home directory,\n"
            "a system or top-level directory, a folder of another user).\n\n"
            "The location is CLOPS_CACHE_DIR, else $XDG_CACHE_HOME/clops, else\n"
            "~/.cache/clops; CLOPS_CACHE=0 disables the cache.",
    .options = cache_options,
    .min_pos = 0,
    .max_pos = 1,
    .run = cache_run,
};
