/* SPDX-License-Identifier: Apache-2.0 */
/*
 * host/alloc.c: the caching device-buffer allocator.
 *
 * Creating an OpenCL buffer costs tens of microseconds on GPU drivers, more
 * than a small kernel.  Freed buffers therefore go to a per-device cache,
 * keyed by their rounded size, and a later request of the same rounded size
 * reuses one without calling the driver.  Sizes round up to 512 bytes below
 * 1 MiB and to 2 MiB above, so a workload of repeated shapes hits the cache
 * every time.
 *
 * Out of memory is a status, never a crash: a request larger than the
 * device's largest allocation is refused up front; when the driver refuses a
 * buffer, the cache is released and the request retried once; if it still
 * fails the message names the request, the limits and what is in use.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/host.h"

#define SMALL_LIMIT ((size_t)1 << 20)
#define SMALL_ROUND ((size_t)512)
#define LARGE_ROUND ((size_t)2 << 20)
#define NBUCKETS 256 /* open-addressed table of free lists, power of two */

typedef struct bucket {
    size_t size; /* 0: empty slot */
    host_block *head;
} bucket;

struct host_allocator {
    pthread_mutex_t lock;
    bucket buckets[NBUCKETS];
    size_t nbuckets_used;
    size_t in_use;  /* bytes handed out */
    size_t cached;  /* bytes in free lists */
    size_t peak;    /* most bytes handed out at once since start or reset */
};

/* Rounds a request up to its allocation class. */
static size_t round_size(size_t n)
{
    size_t r = n < SMALL_LIMIT ? SMALL_ROUND : LARGE_ROUND;
    if (n > SIZE_MAX - r)
        return 0;
    return (n + r - 1) / r * r;
}

/* Slot for a size class (existing, or the empty slot where it would go);
 * NULL if the table is full. */
static bucket *find_bucket(host_allocator *a, size_t size)
{
    size_t h = (size / SMALL_ROUND) * 0x9E3779B97F4A7C15ull;
    for (size_t i = 0; i < NBUCKETS; i++) {
        bucket *b = &a->buckets[(h + i) & (NBUCKETS - 1)];
        if (b->size == size || b->size == 0)
            return b;
    }
    return NULL;
}

clops_status host_alloc_create(clops_device *d)
{
    host_allocator *a = calloc(1, sizeof *a);
    if (!a)
        return CLOPS__HOST_OOM("allocator");
    pthread_mutex_init(&a->lock, NULL);
    d->alloc = a;
    return CLOPS_OK;
}

/* Releases every cached block (lock held). */
static void trim_locked(host_allocator *a)
{
    for (size_t i = 0; i < NBUCKETS; i++) {
        host_block *b = a->buckets[i].head;
        while (b) {
            host_block *next = b->next;
            clReleaseMemObject(b->mem);
            a->cached -= b->size;
            free(b);
            b = next;
        }
        a->buckets[i].head = NULL;
        /* Keep the slot's size: emptied slots must not break probe chains. */
    }
}

void host_alloc_destroy(clops_device *d)
{
    host_allocator *a = d->alloc;
    if (!a)
        return;
    pthread_mutex_lock(&a->lock);
    trim_locked(a);
    pthread_mutex_unlock(&a->lock);
    pthread_mutex_destroy(&a->lock);
    free(a);
    d->alloc = NULL;
}

void host_alloc_trim(clops_device *d)
{
    host_allocator *a = d->alloc;
    if (!a)
        return;
    pthread_mutex_lock(&a->lock);
    trim_locked(a);
    pthread_mutex_unlock(&a->lock);
}

void host_alloc_stats(clops_device *d, size_t *in_use, size_t *cached)
{
    host_allocator *a = d->alloc;
    pthread_mutex_lock(&a->lock);
    if (in_use)
        *in_use = a->in_use;
    if (cached)
        *cached = a->cached;
    pthread_mutex_unlock(&a->lock);
}

size_t host_alloc_peak(clops_device *d, bool reset)
{
    host_allocator *a = d->alloc;
    pthread_mutex_lock(&a->lock);
    size_t peak = a->peak;
    if (reset)
        a->peak = a->in_use;
    pthread_mutex_unlock(&a->lock);
    return peak;
}

/* Human-readable byte count ("1.5 GiB"). */
static const char *fmt_bytes(char *buf, size_t cap, double n)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    int u = 0;
    while (n >= 1024.0 && u < 6) {
        n /= 1024.0;
        u++;
    }
    snprintf(buf, cap, u ? "%.1f %s" : "%.0f %s", n, units[u]);
    return buf;
}

/* Records an out-of-memory failure with every figure that explains it. */
static clops_status oom(clops_device *d, size_t nbytes, const char *why)
{
    char req[32], maxa[32], glob[32], used[32];
    host_allocator *a = d->alloc;
    return clops__fail(CLOPS_OUT_OF_MEMORY,
                       "out of memory on %s (%s): %s; requested %zu bytes (%s), largest single "
                       "buffer %s, device memory %s, in use by clops %s",
                       d->label, d->info.name, why, nbytes, fmt_bytes(req, sizeof req, (double)nbytes),
                       fmt_bytes(maxa, sizeof maxa, (double)d->info.max_alloc_bytes),
                       fmt_bytes(glob, sizeof glob, (double)d->info.global_mem_bytes),
                       fmt_bytes(used, sizeof used, (double)a->in_use));
}

clops_status host_alloc(clops_device *d, size_t nbytes, host_block **out)
{
    host_allocator *a = d->alloc;
    size_t size = round_size(nbytes);
    if (nbytes == 0 || size == 0 || size > d->info.max_alloc_bytes)
        return oom(d, nbytes, "larger than the device's largest single buffer");

    pthread_mutex_lock(&a->lock);
    bucket *bk = find_bucket(a, size);
    if (bk && bk->head) {
        host_block *b = bk->head;
        bk->head = b->next;
        b->next = NULL;
        a->cached -= size;
        a->in_use += size;
        if (a->in_use > a->peak)
            a->peak = a->in_use;
        pthread_mutex_unlock(&a->lock);
        *out = b;
        return CLOPS_OK;
    }
    if (a->in_use + size > d->info.global_mem_bytes) {
        trim_locked(a);
        if (a->in_use + size > d->info.global_mem_bytes) {
            clops_status st = oom(d, nbytes, "more than the device memory left");
            pthread_mutex_unlock(&a->lock);
            return st;
        }
    }
    host_block *b = calloc(1, sizeof *b);
    if (!b) {
        pthread_mutex_unlock(&a->lock);
        return CLOPS__HOST_OOM("buffer record");
    }
    cl_int err = CL_SUCCESS;
    b->mem = clCreateBuffer(d->context, CL_MEM_READ_WRITE, size, NULL, &err);
    if (!b->mem || err != CL_SUCCESS) {
        /* The driver may hold memory we cached: give it back and retry. */
        trim_locked(a);
        err = CL_SUCCESS;
        b->mem = clCreateBuffer(d->context, CL_MEM_READ_WRITE, size, NULL, &err);
    }
    if (!b->mem || err != CL_SUCCESS) {
        char why[96];
        snprintf(why, sizeof why, "clCreateBuffer: %s", host_cl_error_name(err));
        clops_status st = oom(d, nbytes, why);
        pthread_mutex_unlock(&a->lock);
        free(b);
        return st;
    }
    b->size = size;
    b->device = d;
    b->generation = host_generation();
    a->in_use += size;
    if (a->in_use > a->peak)
        a->peak = a->in_use;
    pthread_mutex_unlock(&a->lock);
    *out = b;
    return CLOPS_OK;
}

void host_free(host_block *b)
{
    if (!b)
        return;
    if (b->borrowed || b->generation != host_generation()) {
        /* A caller's buffer: drop clops' retain only.  Or released after
         * clops_shutdown: the device record is gone, but the buffer still
         * holds its context; releasing it frees both. */
        clReleaseMemObject(b->mem);
        free(b);
        return;
    }
    host_allocator *a = b->device->alloc;
    pthread_mutex_lock(&a->lock);
    a->in_use -= b->size;
    bucket *bk = find_bucket(a, b->size);
    if (!bk) {
        /* Table full of other sizes: do not cache this one. */
        pthread_mutex_unlock(&a->lock);
        clReleaseMemObject(b->mem);
        free(b);
        return;
    }
    if (bk->size == 0) {
        bk->size = b->size;
        a->nbuckets_used++;
    }
    b->next = bk->head;
    bk->head = b;
    a->cached += b->size;
    pthread_mutex_unlock(&a->lock);
}
