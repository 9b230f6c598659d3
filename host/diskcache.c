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
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <xxhash.h>

#include "host/host.h"

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

bool host_cache_device_dir(const clops_device *d, char *buf, size_t cap)
{
    char root[1024];
    if (!host_cache_dir(root, sizeof root))
        return false;
    int n = snprintf(buf, cap, "%s/kernels/%s", root, d->cache_tag);
    return n > 0 && (size_t)n < cap;
}

bool host_make_dirs(const char *path)
{
    char tmp[1024];
    int n = snprintf(tmp, sizeof tmp, "%s", path);
    if (n <= 0 || (size_t)n >= sizeof tmp)
        return false;
    for (char *p = tmp + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(tmp, 0755) != 0 && errno != EEXIST)
            return false;
        *p = '/';
    }
    return mkdir(tmp, 0755) == 0 || errno == EEXIST;
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

clops_status host_disk_store(const clops_device *d, host_dkey key, const unsigned char *data,
                             size_t size)
{
    char dir[1024], path[1200], tmp[1300];
    if (!host_cache_device_dir(d, dir, sizeof dir) || !key_path(d, key, path, sizeof path))
        return CLOPS_OK;
    if (!host_make_dirs(dir)) {
        warn_once(dir, errno);
        return CLOPS_OK;
    }
    static atomic_uint counter;
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld.%u", path, (long)getpid(), atomic_fetch_add(&counter, 1));
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
    FILE *f = fopen(tmp, "wb");
    if (!f) {
        warn_once(tmp, errno);
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
