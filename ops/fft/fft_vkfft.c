/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ops/fft/fft_vkfft.c: batched complex-to-complex FFT passes on OpenCL
 * devices with VkFFT (Debian's libvkfft-dev, a single header; its OpenCL
 * backend, VKFFT_BACKEND 3).  docs/fft.md, docs/dependencies.md.
 *
 * A VkFFT "application" is a plan: VkFFT writes OpenCL C for the sizes,
 * batch and precision and builds it with clBuildProgram when the plan is
 * made, so a new shape costs program builds at its first call (the figures
 * are in docs/fft.md); after that, a pass is a few kernel launches on the
 * device's in-order queue.  Plans are cached per (device, rank, sizes,
 * batch, precision, direction: a plan builds the kernels of one direction
 * only), at most FFT_PLAN_CAP of them (least recently used first out), and
 * freed by clops_shutdown.
 *
 * One mutex serialises plan creation and launches: VkFFT keeps the buffers
 * of the current launch in the plan, and while it generates code it sets
 * the process's locale to "C" (setlocale, process-wide), which is saved
 * and restored around it here.
 *
 * The header is compiled in this file only, without clops' warning flags
 * (CMakeLists.txt): it is third-party code.
 */
#define VKFFT_BACKEND 3
#include <locale.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <vkFFT.h>

#include "host/host.h"
#include "ops/fft/fft.h"

#define FFT_PLAN_CAP 64

typedef struct fft_plan {
    struct fft_plan *next;
    clops_device *device;
    unsigned generation;
    int rank;
    uint64_t n[3]; /* VkFFT's order: n[0] innermost */
    uint64_t batch;
    bool dbl;
    bool forward; /* a plan builds one direction's kernels only */
    uint64_t last_use;
    /* VkFFT keeps pointers to these (the configuration's arrays and
     * buffers): they live as long as the plan. */
    uint64_t buffer_size;
    cl_mem buffer;
    VkFFTApplication app;
} fft_plan;

static pthread_mutex_t plans_lock = PTHREAD_MUTEX_INITIALIZER;
static fft_plan *plans;
static int nplans;
static uint64_t use_clock;

static clops_status vk_fail(VkFFTResult r, const char *what, const clops_device *d,
                            const fft_pass *p)
{
    clops_status st = CLOPS_OPENCL_ERROR;
    if (r == VKFFT_ERROR_MALLOC_FAILED)
        st = CLOPS_HOST_OUT_OF_MEMORY;
    else if (r == VKFFT_ERROR_FAILED_TO_ALLOCATE || r == VKFFT_ERROR_FAILED_TO_CREATE_BUFFER)
        st = CLOPS_OUT_OF_MEMORY;
    else if (r == VKFFT_ERROR_FAILED_TO_COMPILE_PROGRAM ||
             r == VKFFT_ERROR_FAILED_TO_CREATE_PROGRAM)
        st = CLOPS_BUILD_FAILURE;
    else if (r >= VKFFT_ERROR_UNSUPPORTED_RADIX && r <= VKFFT_ERROR_UNSUPPORTED_FFT_OMIT)
        st = CLOPS_UNSUPPORTED;
    return clops__fail(st,
                       "fft: VkFFT %s failed with VkFFTResult %d for a %s transform of rank %d, "
                       "sizes [%lld, %lld, %lld] (innermost last), batch %lld on %s (%s)",
                       what, (int)r, p->data->dtype == CLOPS_COMPLEX128 ? "complex128" : "complex64",
                       p->rank, (long long)p->n[0], (long long)(p->rank > 1 ? p->n[1] : 1),
                       (long long)(p->rank > 2 ? p->n[2] : 1), (long long)p->batch, d->label,
                       d->info.name);
}

static void plan_free(fft_plan *pl)
{
    /* A plan of an earlier generation lost its context with its device. */
    if (pl->generation == host_generation())
        deleteVkFFT(&pl->app);
    free(pl);
}

/* Makes a plan (lock held). */
static clops_status plan_make(const fft_pass *p, const uint64_t n[3], bool dbl, fft_plan **out)
{
    clops_device *d = p->data->storage->device;
    fft_plan *pl = calloc(1, sizeof *pl);
    if (!pl)
        return CLOPS__HOST_OOM("fft plan");
    pl->device = d;
    pl->generation = host_generation();
    pl->rank = p->rank;
    memcpy(pl->n, n, sizeof pl->n);
    pl->batch = (uint64_t)p->batch;
    pl->dbl = dbl;
    pl->forward = p->forward;
    pl->buffer_size = (uint64_t)tensor_numel(p->data) * clops_dtype_size(p->data->dtype);
    pl->buffer = p->data->storage->block->mem;

    VkFFTConfiguration c;
    memset(&c, 0, sizeof c);
    c.FFTdim = (uint64_t)p->rank;
    for (int i = 0; i < 3; i++)
        c.size[i] = n[i];
    c.numberBatches = pl->batch;
    c.doublePrecision = dbl;
    /* Only the direction asked for: half the programs to build. */
    c.makeForwardPlanOnly = p->forward;
    c.makeInversePlanOnly = !p->forward;
    c.platform = &d->platform;
    c.device = &d->id;
    c.context = &d->context;
    c.bufferNum = 1;
    c.bufferSize = &pl->buffer_size;
    c.buffer = &pl->buffer;
    /* 64-bit addressing where an element index may pass 2^31. */
    c.useUint64 = pl->buffer_size / 8 > (uint64_t)INT32_MAX;

    /* VkFFT saves the locale name and restores it after generating code;
     * with the locale already "C" the name it saves is the static "C",
     * never a string a later setlocale frees. */
    const char *cur = setlocale(LC_ALL, NULL);
    char *saved = cur ? strdup(cur) : NULL;
    setlocale(LC_ALL, "C");
    VkFFTResult r = initializeVkFFT(&pl->app, c);
    if (saved) {
        setlocale(LC_ALL, saved);
        free(saved);
    }
    if (r != VKFFT_SUCCESS) {
        free(pl);
        return vk_fail(r, "plan creation", d, p);
    }
    *out = pl;
    return CLOPS_OK;
}

/* The cached plan for p, made on a miss (lock held). */
static clops_status plan_get(const fft_pass *p, fft_plan **out)
{
    clops_device *d = p->data->storage->device;
    bool dbl = p->data->dtype == CLOPS_COMPLEX128;
    uint64_t n[3] = {1, 1, 1};
    for (int i = 0; i < p->rank; i++)
        n[i] = (uint64_t)p->n[p->rank - 1 - i];
    unsigned gen = host_generation();
    fft_plan **lru = NULL;
    for (fft_plan **pp = &plans; *pp;) {
        fft_plan *pl = *pp;
        if (pl->generation != gen) { /* from before a clops_shutdown */
            *pp = pl->next;
            plan_free(pl);
            nplans--;
            continue;
        }
        if (pl->device == d && pl->rank == p->rank && pl->dbl == dbl && pl->forward == p->forward &&
            pl->batch == (uint64_t)p->batch && memcmp(pl->n, n, sizeof n) == 0) {
            pl->last_use = ++use_clock;
            *out = pl;
            return CLOPS_OK;
        }
        if (!lru || pl->last_use < (*lru)->last_use)
            lru = pp;
        pp = &pl->next;
    }
    if (nplans >= FFT_PLAN_CAP && lru) {
        fft_plan *victim = *lru;
        *lru = victim->next;
        plan_free(victim);
        nplans--;
    }
    fft_plan *pl = NULL;
    clops_status st = plan_make(p, n, dbl, &pl);
    if (st)
        return st;
    pl->last_use = ++use_clock;
    pl->next = plans;
    plans = pl;
    nplans++;
    *out = pl;
    return CLOPS_OK;
}

clops_status fft_vkfft_run(const fft_pass *p)
{
    clops_device *d = p->data->storage->device;
    if (p->data->offset != 0 || !clops_tensor_is_contiguous(p->data))
        return clops__fail(CLOPS_INTERNAL, "fft: a VkFFT pass needs a contiguous tensor at offset 0");
    pthread_mutex_lock(&plans_lock);
    fft_plan *pl = NULL;
    clops_status st = plan_get(p, &pl);
    if (st == CLOPS_OK) {
        /* VkFFT reads the buffer through the plan's pointer at each
         * launch. */
        pl->buffer = p->data->storage->block->mem;
        VkFFTLaunchParams lp;
        memset(&lp, 0, sizeof lp);
        lp.commandQueue = &d->queue;
        lp.buffer = &pl->buffer;
        VkFFTResult r = VkFFTAppend(&pl->app, p->forward ? -1 : 1, &lp);
        if (r != VKFFT_SUCCESS)
            st = vk_fail(r, "launch", d, p);
        else
            atomic_fetch_add_explicit(&d->launches, 1, memory_order_relaxed);
    }
    pthread_mutex_unlock(&plans_lock);
    return st;
}

void fft_shutdown(void)
{
    pthread_mutex_lock(&plans_lock);
    while (plans) {
        fft_plan *pl = plans;
        plans = pl->next;
        plan_free(pl);
    }
    nplans = 0;
    pthread_mutex_unlock(&plans_lock);
}
