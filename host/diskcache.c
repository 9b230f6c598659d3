/* SPDX-License-Identifier: Apache-2.0 */
/*
 * host/diskcache.c: the on-disk cache of compiled program binaries.
 *
 * A binary is valid only for the exact source, build options, platform,
 * device, driver and clops version that produced it; stale caches after a
 * driver update are a classic bug of OpenCL libraries.  So the file name is
 * a 128-bit hash of the source, the options and the device identity (which
 * hashes platform name and version, device name, driver version and the
 * clops version), and the file sits in a per-device folder:
 *
 *     $CLOPS_CACHE_DIR/kernels/<device tag>/<32 hex digits>.bin
 *
 * Each file carries a header (magic, format version, payload size, the key,
 * the device identity and an XXH3 checksum of the payload).  A file whose
 * header or checksum does not match is deleted and reported as a miss, never
 * trusted.  Writes go to a temporary file in the same folder and are renamed
 * into place, so readers never see half a file, even with several processes
 * sharing the cache.
 *
 * CLOPS_CACHE=0 disables the disk cache.  A cache that cannot be written is
 * not an error: the library warns once on stderr and carries on.
 *
 * Another local user must not be able to redirect what clops writes: every
 * folder clops creates under the cache root is created 0700; a cache folder
 * (the root or any folder under it that clops uses) that is writable by
 * others without the sticky bit, or owned by someone other than the user or
 * root, is refused with one warning and the library carries on without the
 * disk cache; files are written through mkstemp() in their own folder
 * (O_CREAT|O_EXCL, so a planted symlink is never followed) and renamed into
 * place.  A root-owned folder is accepted so a cache filled when a
 * container image was built can be read by the user that runs it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <xxhash.h>

#include "host/host.h"

#ifndef S_ISVTX
#define S_ISVTX 01000 /* XSI; the sticky bit */
#endif

#define CACHE_MAGIC "CLOPSKC1"
#define CACHE_FORMAT 1u

typedef struct cache_header {
    char magic[8];
    uint32_t format;
    uint32_t header_size;
    uint64_t payload_size;
    uint64_t key_lo, key_hi;
    uint64_t identity;
    uint64_t checksum;
} cache_header;

static atomic_bool warned;
static atomic_bool warned_unsafe;

bool host_cache_dir(char *buf, size_t cap)
{
    const char *off = host_env("CLOPS_CACHE");
    if (off && strcmp(off, "0") == 0)
        return false;
    const char *dir = host_env("CLOPS_CACHE_DIR");
    if (dir) {
        snprintf(buf, cap, "%s", dir);
        return true;
    }
    const char *xdg = host_env("XDG_CACHE_HOME");
    if (xdg) {
        snprintf(buf, cap, "%s/clops", xdg);
        return true;
    }
    const char *home = host_env("HOME");
    if (home) {
        snprintf(buf, cap, "%s/.cache/clops", home);
        return true;
    }
    return false;
}

/* Warns once per process that a cache folder is refused. */
static void warn_unsafe_once(const char *path, const char *why)
{
    if (!atomic_exchange(&warned_unsafe, true))
        fprintf(stderr, "clops: warning: refusing the kernel cache folder %s: %s; carrying on "
                        "without the disk cache\n",
                path, why);
}

bool host_dir_is_safe(const char *path, const char **why)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        *why = "cannot stat it";
        return false;
    }
    if (!S_ISDIR(st.st_mode)) {
        *why = "not a folder";
        return false;
    }
    if (st.st_uid != geteuid() && st.st_uid != 0) {
        *why = "owned by another user";
        return false;
    }
    if ((st.st_mode & S_IWOTH) && !(st.st_mode & S_ISVTX)) {
        *why = "writable by every user, without the sticky bit";
        return false;
    }
    return true;
}

bool host_cache_subdir(const char *sub, bool create, char *buf, size_t cap)
{
    char root[1024];
    if (!host_cache_dir(root, sizeof root))
        return false;
    int n = snprintf(buf, cap, "%s%s%s", root, sub && *sub ? "/" : "", sub ? sub : "");
    if (n <= 0 || (size_t)n >= cap)
        return false;
    if (create && !host_make_dirs_mode(root, 0700) && errno != EACCES && errno != EROFS)
        return false;
    /* Check the root and then every folder below it, creating each (0700)
     * when asked; a folder that does not exist yet is checked once made. */
    size_t len = strlen(root);
    for (;;) {
        char save = buf[len];
        buf[len] = '\0';
        struct stat st;
        bool exists = stat(buf, &st) == 0;
        if (!exists && create && mkdir(buf, 0700) == 0)
            exists = true;
        const char *why = NULL;
        if (exists && !host_dir_is_safe(buf, &why)) {
            warn_unsafe_once(buf, why);
            buf[len] = save;
            errno = 0; /* warned already: not a write failure */
            return false;
        }
        buf[len] = save;
        if (!exists)
            return !create; /* a lookup of a missing folder just misses */
        if (save == '\0')
            return true;
        len++;
        while (buf[len] && buf[len] != '/')
            len++;
    }
}

bool host_cache_device_dir(const clops_device *d, char *buf, size_t cap)
{
    char sub[128];
    snprintf(sub, sizeof sub, "kernels/%s", d->cache_tag);
    return host_cache_subdir(sub, false, buf, cap);
}

bool host_make_dirs_mode(const char *path, mode_t mode)
{
    char tmp[1024];
    int n = snprintf(tmp, sizeof tmp, "%s", path);
    if (n <= 0 || (size_t)n >= sizeof tmp)
        return false;
    for (char *p = tmp + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(tmp, mode) != 0 && errno != EEXIST)
            return false;
        *p = '/';
    }
    return mkdir(tmp, mode) == 0 || errno == EEXIST;
}

bool host_make_dirs(const char *path)
{
    return host_make_dirs_mode(path, 0755);
}

FILE *host_create_temp(const char *final_path, char *tmp, size_t cap)
{
    int n = snprintf(tmp, cap, "%s.tmp.XXXXXX", final_path);
    if (n <= 0 || (size_t)n >= cap) {
        errno = ENAMETOOLONG;
        return NULL;
    }
    int fd = mkstemp(tmp); /* O_CREAT|O_EXCL, mode 0600: never follows a link */
    if (fd < 0)
        return NULL;
    FILE *f = fdopen(fd, "wb");
    if (!f) {
        int err = errno;
        close(fd);
        unlink(tmp);
        errno = err;
    }
    return f;
}

host_dkey host_disk_key(const clops_device *d, const char *source, size_t source_len,
                        const char *options)
{
    XXH3_state_t *st = XXH3_createState();
    host_dkey key = {0, 0};
    if (!st)
        return key;
    XXH3_128bits_reset(st);
    XXH3_128bits_update(st, source, source_len);
    XXH3_128bits_update(st, "\0", 1);
    XXH3_128bits_update(st, options, strlen(options) + 1);
    XXH3_128bits_update(st, &d->identity_hash, sizeof d->identity_hash);
    XXH128_hash_t h = XXH3_128bits_digest(st);
    XXH3_freeState(st);
    key.lo = h.low64;
    key.hi = h.high64;
    return key;
}

/* Path of a key's file. */
static bool key_path(const clops_device *d, host_dkey key, char *buf, size_t cap)
{
    char dir[1024];
    if (!host_cache_device_dir(d, dir, sizeof dir))
        return false;
    int n = snprintf(buf, cap, "%s/%016llx%016llx.bin", dir, (unsigned long long)key.hi,
                     (unsigned long long)key.lo);
    return n > 0 && (size_t)n < cap;
}

clops_status host_disk_load(const clops_device *d, host_dkey key, unsigned char **data,
                            size_t *size, bool *rejected)
{
    *data = NULL;
    *size = 0;
    *rejected = false;
    char path[1200];
    if (!key_path(d, key, path, sizeof path))
        return CLOPS_OK;
    FILE *f = fopen(path, "rb");
    if (!f)
        return CLOPS_OK;
    cache_header h;
    unsigned char *buf = NULL;
    bool ok = fread(&h, sizeof h, 1, f) == 1 && memcmp(h.magic, CACHE_MAGIC, 8) == 0 &&
              h.format == CACHE_FORMAT && h.header_size == sizeof h && h.key_lo == key.lo &&
              h.key_hi == key.hi && h.identity == d->identity_hash && h.payload_size > 0 &&
              h.payload_size < ((uint64_t)1 << 34);
    if (ok) {
        buf = malloc(h.payload_size);
        ok = buf && fread(buf, 1, h.payload_size, f) == h.payload_size;
        /* Trailing bytes mean the file is not what we wrote. */
        ok = ok && fgetc(f) == EOF;
        ok = ok && XXH3_64bits(buf, h.payload_size) == h.checksum;
    }
    fclose(f);
    if (!ok) {
        free(buf);
        unlink(path);
        *rejected = true;
        return CLOPS_OK;
    }
    *data = buf;
    *size = h.payload_size;
    return CLOPS_OK;
}

/* Warns once per process that the cache cannot be written. */
static void warn_once(const char *path, int err)
{
    if (!atomic_exchange(&warned, true))
        fprintf(stderr, "clops: warning: cannot write the kernel cache at %s (%s); compiled "
                        "kernels will not be reused by later runs\n",
                path, strerror(err));
}

void host_disk_remove(const clops_device *d, host_dkey key)
{
    char path[1200];
    if (key_path(d, key, path, sizeof path))
        unlink(path);
}

clops_status host_disk_store(const clops_device *d, host_dkey key, const unsigned char *data,
                             size_t size)
{
    char dir[1024], path[1200], tmp[1300];
    char sub[128];
    snprintf(sub, sizeof sub, "kernels/%s", d->cache_tag);
    errno = 0;
    if (!host_cache_subdir(sub, true, dir, sizeof dir)) {
        if (errno)
            warn_once(dir, errno);
        return CLOPS_OK;
    }
    if (!key_path(d, key, path, sizeof path))
        return CLOPS_OK;
    cache_header h;
    memset(&h, 0, sizeof h);
    memcpy(h.magic, CACHE_MAGIC, 8);
    h.format = CACHE_FORMAT;
    h.header_size = sizeof h;
    h.payload_size = size;
    h.key_lo = key.lo;
    h.key_hi = key.hi;
    h.identity = d->identity_hash;
    h.checksum = XXH3_64bits(data, size);
    FILE *f = host_create_temp(path, tmp, sizeof tmp);
    if (!f) {
        warn_once(dir, errno);
        return CLOPS_OK;
    }
    bool ok = fwrite(&h, sizeof h, 1, f) == 1 && fwrite(data, 1, size, f) == size;
    int err = errno;
    ok = (fclose(f) == 0) && ok;
    if (!ok || rename(tmp, path) != 0) {
        if (!ok)
            errno = err;
        warn_once(path, errno);
        unlink(tmp);
    }
    return CLOPS_OK;
}
