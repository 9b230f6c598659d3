/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ops/random/random_generator.c: the clops_generator objects (clops/generator.h).
 *
 * A generator is a seed and an offset behind a mutex.  Ops reserve counters
 * with generator_reserve (one locked step: read seed and offset, advance the
 * offset), so concurrent ops on one generator never share counters.  The
 * default generators, one per device, are created on first use and kept in a
 * small list keyed by the device's label ("cpu", "opencl:0"), which is stable
 * for the process; clops_shutdown frees them (generator_shutdown).
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clops/generator.h"
#include "core/error.h"
#include "ops/random/random.h"

struct clops_generator {
    pthread_mutex_t lock;
    uint64_t seed;
    uint64_t offset;
    clops_device *device;
    bool is_default;
    char label[24];
    struct clops_generator *next; /* default list link */
};

static pthread_mutex_t defaults_lock = PTHREAD_MUTEX_INITIALIZER;
static clops_generator *defaults;

/* Allocates a generator with the default seed. */
static clops_generator *generator_new(clops_device *device)
{
    clops_generator *g = calloc(1, sizeof *g);
    if (!g)
        return NULL;
    pthread_mutex_init(&g->lock, NULL);
    g->seed = CLOPS_DEFAULT_SEED;
    g->device = device;
    return g;
}

clops_status clops_generator_create(clops_device *device, clops_generator **out)
{
    if (!out)
        return clops__fail(CLOPS_INVALID_ARGUMENT, "clops_generator_create: out is NULL");
    *out = NULL;
    if (!device) {
        clops_status st = clops_device_default(&device);
        if (st)
            return st;
    }
    clops_generator *g = generator_new(device);
    if (!g)
        return CLOPS__HOST_OOM("generator");
    *out = g;
    return CLOPS_OK;
}

void clops_generator_release(clops_generator *g)
{
    if (!g || g->is_default)
        return;
    pthread_mutex_destroy(&g->lock);
    free(g);
}

clops_status clops_generator_default(clops_device *device, clops_generator **out)
{
    if (!out)
        return clops__fail(CLOPS_INVALID_ARGUMENT, "clops_generator_default: out is NULL");
    *out = NULL;
    if (!device) {
        clops_status st = clops_device_default(&device);
        if (st)
            return st;
    }
    const char *label = clops_device_label(device);
    clops_status st = CLOPS_OK;
    pthread_mutex_lock(&defaults_lock);
    clops_generator *g = defaults;
    while (g && strcmp(g->label, label) != 0)
        g = g->next;
    if (!g) {
        g = generator_new(device);
        if (!g) {
            st = CLOPS__HOST_OOM("default generator");
        } else {
            g->is_default = true;
            snprintf(g->label, sizeof g->label, "%s", label);
            g->next = defaults;
            defaults = g;
        }
    }
    if (g)
        g->device = device; /* devices are re-created after clops_shutdown */
    pthread_mutex_unlock(&defaults_lock);
    *out = g;
    return st;
}

clops_device *clops_generator_device(const clops_generator *g)
{
    return g ? g->device : NULL;
}

clops_status clops_generator_manual_seed(clops_generator *g, uint64_t seed)
{
    if (!g)
        return clops__fail(CLOPS_INVALID_ARGUMENT,
                           "clops_generator_manual_seed: generator is NULL");
    pthread_mutex_lock(&g->lock);
    g->seed = seed;
    g->offset = 0;
    pthread_mutex_unlock(&g->lock);
    return CLOPS_OK;
}

/* 64 bits from /dev/urandom, else from the clock and the object's address. */
static uint64_t nondeterministic_seed(const void *salt)
{
    uint64_t s = 0;
    FILE *f = fopen("/dev/urandom", "rb");
    bool ok = f && fread(&s, sizeof s, 1, f) == 1;
    if (f)
        fclose(f);
    if (!ok) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        s = ((uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec) ^
            (uint64_t)(uintptr_t)salt * 0x9E3779B97F4A7C15ull;
    }
    return s;
}

clops_status clops_generator_seed(clops_generator *g, uint64_t *out)
{
    if (!g)
        return clops__fail(CLOPS_INVALID_ARGUMENT, "clops_generator_seed: generator is NULL");
    uint64_t s = nondeterministic_seed(g);
    clops_generator_manual_seed(g, s);
    if (out)
        *out = s;
    return CLOPS_OK;
}

uint64_t clops_generator_initial_seed(const clops_generator *g)
{
    if (!g)
        return 0;
    clops_generator *m = (clops_generator *)g;
    pthread_mutex_lock(&m->lock);
    uint64_t s = m->seed;
    pthread_mutex_unlock(&m->lock);
    return s;
}

uint64_t clops_generator_offset(const clops_generator *g)
{
    if (!g)
        return 0;
    clops_generator *m = (clops_generator *)g;
    pthread_mutex_lock(&m->lock);
    uint64_t o = m->offset;
    pthread_mutex_unlock(&m->lock);
    return o;
}

/* Little-endian store and load of a uint64. */
static void put_le64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t get_le64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

clops_status clops_generator_get_state(const clops_generator *g, void *state, size_t cap)
{
    if (!g || !state)
        return clops__fail(CLOPS_INVALID_ARGUMENT, "clops_generator_get_state: NULL argument");
    if (cap < CLOPS_GENERATOR_STATE_SIZE)
        return clops__fail(CLOPS_INVALID_ARGUMENT,
                           "clops_generator_get_state: the state needs %d bytes, got %zu",
                           CLOPS_GENERATOR_STATE_SIZE, cap);
    clops_generator *m = (clops_generator *)g;
    pthread_mutex_lock(&m->lock);
    put_le64(state, m->seed);
    put_le64((unsigned char *)state + 8, m->offset);
    pthread_mutex_unlock(&m->lock);
    return CLOPS_OK;
}

clops_status clops_generator_set_state(clops_generator *g, const void *state, size_t nbytes)
{
    if (!g || !state)
        return clops__fail(CLOPS_INVALID_ARGUMENT, "clops_generator_set_state: NULL argument");
    if (nbytes != CLOPS_GENERATOR_STATE_SIZE)
        return clops__fail(CLOPS_INVALID_ARGUMENT,
                           "clops_generator_set_state: RNG state must be %d bytes (seed and "
                           "offset, little-endian uint64 each), got %zu",
                           CLOPS_GENERATOR_STATE_SIZE, nbytes);
    pthread_mutex_lock(&g->lock);
    g->seed = get_le64(state);
    g->offset = get_le64((const unsigned char *)state + 8);
    pthread_mutex_unlock(&g->lock);
    return CLOPS_OK;
}

clops_status clops_manual_seed(uint64_t seed)
{
    int n = 0;
    clops_status st = clops_device_count(&n);
    for (int i = 0; st == CLOPS_OK && i < n; i++) {
        clops_device *d = NULL;
        clops_generator *g = NULL;
        st = clops_device_get(i, &d);
        if (st == CLOPS_OK)
            st = clops_generator_default(d, &g);
        if (st == CLOPS_OK)
            st = clops_generator_manual_seed(g, seed);
    }
    return st;
}

clops_status generator_reserve(clops_generator *g, clops_device *device, uint64_t counters,
                               uint64_t *seed, uint64_t *offset)
{
    if (!g) {
        clops_status st = clops_generator_default(device, &g);
        if (st)
            return st;
    }
    pthread_mutex_lock(&g->lock);
    *seed = g->seed;
    *offset = g->offset;
    g->offset += counters;
    pthread_mutex_unlock(&g->lock);
    return CLOPS_OK;
}

void generator_shutdown(void)
{
    pthread_mutex_lock(&defaults_lock);
    clops_generator *g = defaults;
    defaults = NULL;
    pthread_mutex_unlock(&defaults_lock);
    while (g) {
        clops_generator *next = g->next;
        pthread_mutex_destroy(&g->lock);
        free(g);
        g = next;
    }
}
