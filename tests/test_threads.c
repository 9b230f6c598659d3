/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/test_threads.c: several host threads using one device at once.
 *
 * clops promises that every entry point may be called from several threads
 * (host/host.h): the kernel cache builds a program once even when many
 * threads miss on it together, a kernel's arguments are set and enqueued
 * under its lock, and the caching allocator hands each buffer to one owner.
 * Here worker threads create tensors, cast, copy through strided views and
 * read back on the same device at the same time, and every result is checked
 * against the host's conversion of the same values.
 *
 * Workers must not call cmocka (its failures longjmp on the test's thread):
 * they record the first thing that went wrong and the test thread reports it
 * after joining them.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "host/host.h"
#include "ops/tensor/tensor.h"
#include "support/clops_test.h"

#define N_THREADS 4
#define N_ROUNDS 12

/* What one worker does and what it found. */
typedef struct worker {
    clops_device *dev;
    pthread_barrier_t *start;
    int id;
    int rounds_done;
    char failure[1024]; /* empty while all is well */
    /* For the kernel-cache test. */
    host_kernel *kernel;
    int which;
} worker;

/* Records the first failure of a worker. */
static void worker_fail(worker *w, const char *fmt, ...) CLOPS__PRINTF(2, 3);
static void worker_fail(worker *w, const char *fmt, ...)
{
    if (w->failure[0])
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(w->failure, sizeof w->failure, fmt, ap);
    va_end(ap);
}

/* Runs n workers on fn and fails the test with the first failure. */
static void run_workers(worker *ws, int n, void *(*fn)(void *))
{
    pthread_t th[N_THREADS];
    pthread_barrier_t start;
    CT_ASSERT(n <= N_THREADS);
    CT_ASSERT(pthread_barrier_init(&start, NULL, (unsigned)n) == 0);
    for (int i = 0; i < n; i++) {
        ws[i].start = &start;
        CT_ASSERT(pthread_create(&th[i], NULL, fn, &ws[i]) == 0);
    }
    for (int i = 0; i < n; i++)
        pthread_join(th[i], NULL);
    pthread_barrier_destroy(&start);
    for (int i = 0; i < n; i++)
        CT_ASSERT_MSG(!ws[i].failure[0], "thread %d: %s", i, ws[i].failure);
}

/* n values of `from` converted to `to` as copy_ converts them. */
static void host_cast(const void *src, void *dst, int64_t n, clops_dtype from, clops_dtype to)
{
    clops_dtype ct = (to == CLOPS_FLOAT16 || to == CLOPS_BFLOAT16) ? CLOPS_FLOAT32 : to;
    for (int64_t i = 0; i < n; i++)
        pw_ref_store(dst, i, to, ct, pw_ref_load(src, i, from, ct));
}

/* Transposes a rows x cols row-major host matrix of element size es. */
static void host_transpose(const void *src, void *dst, int64_t rows, int64_t cols, size_t es)
{
    for (int64_t r = 0; r < rows; r++)
        for (int64_t c = 0; c < cols; c++)
            memcpy((char *)dst + (size_t)(c * rows + r) * es,
                   (const char *)src + (size_t)(r * cols + c) * es, es);
}

/* One round of a worker: host values of dtype a -> tensor -> cast to b ->
 * transposed view cast to c -> host, checked against the host's result. */
static bool one_round(worker *w, int round)
{
    static const clops_dtype chain[][3] = {
        {CLOPS_FLOAT32, CLOPS_FLOAT16, CLOPS_FLOAT32}, {CLOPS_INT32, CLOPS_INT64, CLOPS_INT8},
        {CLOPS_UINT8, CLOPS_BFLOAT16, CLOPS_INT16},   {CLOPS_INT16, CLOPS_FLOAT32, CLOPS_BOOL},
        {CLOPS_FLOAT16, CLOPS_FLOAT32, CLOPS_UINT8},  {CLOPS_BOOL, CLOPS_INT32, CLOPS_FLOAT16},
    };
    const clops_dtype *dt = chain[(w->id + round) % (int)CT_COUNT(chain)];
    const int64_t rows = 17 + w->id, cols = 33 + round % 5, n = rows * cols;
    size_t esa = clops_dtype_size(dt[0]), esb = clops_dtype_size(dt[1]);
    size_t esc = clops_dtype_size(dt[2]);
    char *vals = malloc((size_t)n * 8), *mid = malloc((size_t)n * 8);
    char *midt = malloc((size_t)n * 8), *want = malloc((size_t)n * 8);
    char *got = malloc((size_t)n * 8);
    clops_tensor *src = NULL, *cast = NULL, *view = NULL, *out = NULL;
    bool ok = false;
    if (!vals || !mid || !midt || !want || !got) {
        worker_fail(w, "out of host memory");
        goto done;
    }
    ct_rng r = ct_rng_seeded((uint64_t)(w->id * 1000 + round));
    ct_fill_for_cast(vals, n, dt[0], dt[1], &r);
    host_cast(vals, mid, n, dt[0], dt[1]);
    const int64_t sizes[2] = {rows, cols};
    ct_report rep;
    clops_status st = clops_from_host(w->dev, dt[0], 2, sizes, vals, (size_t)n * esa, &src);
    if (st == CLOPS_OK)
        st = core_to_copy(src, dt[1], NULL, &cast);
    if (st == CLOPS_OK)
        st = clops_tensor_to_host(cast, got, (size_t)n * esb);
    if (st == CLOPS_OK && !ct_compare_host(got, mid, dt[1], 2, sizes, CT_TOL_EXACT, &rep)) {
        worker_fail(w, "round %d (%s -> %s): %lld of %lld elements differ:%s", round,
                    clops_dtype_name(dt[0]), clops_dtype_name(dt[1]), (long long)rep.mismatches,
                    (long long)rep.numel, rep.detail);
        goto done;
    }
    if (clops_dtype_is_floating(dt[1]) && clops_dtype_is_integral(dt[2])) {
        /* Keep the next float -> int conversion in range. */
        for (int64_t i = 0; i < n; i++) {
            double x = pw_ref_load(mid, i, dt[1], CLOPS_FLOAT64).f;
            if (!(x > -100.0 && x < 100.0))
                pw_ref_store(mid, i, dt[1], CLOPS_FLOAT64, (pw_value){.f = 1.5});
        }
        if (st == CLOPS_OK)
            st = clops_tensor_from_host(cast, mid, (size_t)n * esb);
    }
    host_transpose(mid, midt, rows, cols, esb);
    host_cast(midt, want, n, dt[1], dt[2]);
    if (st == CLOPS_OK)
        st = core_t(cast, &view);
    const int64_t tsizes[2] = {cols, rows};
    if (st == CLOPS_OK) /* a contiguous destination: the strided kernel */
        st = clops_empty(w->dev, dt[2], 2, tsizes, &out);
    if (st == CLOPS_OK)
        st = core_copy_(out, view, false);
    if (st == CLOPS_OK)
        st = clops_tensor_to_host(out, got, (size_t)n * esc);
    if (st) {
        worker_fail(w, "round %d (%s -> %s -> %s): %s: %s", round, clops_dtype_name(dt[0]),
                    clops_dtype_name(dt[1]), clops_dtype_name(dt[2]), clops_status_name(st),
                    clops_last_error());
        goto done;
    }
    if (!ct_compare_host(got, want, dt[2], 2, tsizes, CT_TOL_EXACT, &rep)) {
        worker_fail(w, "round %d (%s -> %s -> %s): %lld of %lld elements differ:%s", round,
                    clops_dtype_name(dt[0]), clops_dtype_name(dt[1]), clops_dtype_name(dt[2]),
                    (long long)rep.mismatches, (long long)rep.numel, rep.detail);
        goto done;
    }
    ok = true;
done:
    clops_tensor_release(out);
    clops_tensor_release(view);
    clops_tensor_release(cast);
    clops_tensor_release(src);
    free(vals);
    free(mid);
    free(midt);
    free(want);
    free(got);
    return ok;
}

static void *cast_worker(void *arg)
{
    worker *w = arg;
    pthread_barrier_wait(w->start);
    for (int round = 0; round < N_ROUNDS && !w->failure[0]; round++)
        if (one_round(w, round))
            w->rounds_done++;
    return NULL;
}

static void test_threads_casting_and_copying_on_one_device_get_correct_results(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_devices(devs, CT_MAX_DEVICES);
    for (int k = 0; k < nd; k++) {
        ct_set_device(devs[k]);
        worker ws[N_THREADS];
        memset(ws, 0, sizeof ws);
        for (int i = 0; i < N_THREADS; i++) {
            ws[i].dev = devs[k];
            ws[i].id = i;
        }
        run_workers(ws, N_THREADS, cast_worker);
        for (int i = 0; i < N_THREADS; i++)
            CT_ASSERT(ws[i].rounds_done == N_ROUNDS);
    }
    ct_clear_context();
}

/* --- the allocator -------------------------------------------------------------------- */

static void *alloc_worker(void *arg)
{
    worker *w = arg;
    pthread_barrier_wait(w->start);
    for (int round = 0; round < 200 && !w->failure[0]; round++) {
        /* Sizes that share allocation classes across threads. */
        int64_t n = 64 + (round % 7) * 100;
        clops_tensor *t = NULL;
        clops_status st = clops_full(w->dev, CLOPS_INT32, 1, &n,
                                     clops_scalar_int(w->id * 100000 + round), &t);
        int32_t *got = malloc((size_t)n * 4);
        if (st == CLOPS_OK && got)
            st = clops_tensor_to_host(t, got, (size_t)n * 4);
        if (st)
            worker_fail(w, "round %d: %s", round, clops_last_error());
        for (int64_t i = 0; st == CLOPS_OK && got && i < n; i++)
            if (got[i] != w->id * 100000 + round) {
                worker_fail(w, "round %d: element %lld is %d: a buffer was shared", round,
                            (long long)i, got[i]);
                break;
            }
        free(got);
        clops_tensor_release(t);
    }
    return NULL;
}

static void test_threads_allocating_at_once_never_share_a_buffer(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_devices(devs, CT_MAX_DEVICES);
    for (int k = 0; k < nd; k++) {
        ct_set_device(devs[k]);
        size_t used_before = 0, used_after = 0;
        bool cl = !host_is_cpu(devs[k]);
        if (cl)
            host_alloc_stats(devs[k], &used_before, NULL);
        worker ws[N_THREADS];
        memset(ws, 0, sizeof ws);
        for (int i = 0; i < N_THREADS; i++) {
            ws[i].dev = devs[k];
            ws[i].id = i;
        }
        run_workers(ws, N_THREADS, alloc_worker);
        if (cl) {
            host_alloc_stats(devs[k], &used_after, NULL);
            CT_ASSERT_MSG(used_after == used_before, "%zu bytes in use before, %zu after",
                          used_before, used_after);
        }
    }
    ct_clear_context();
}

/* --- the kernel cache ------------------------------------------------------------------ */

static char nonce[64];

/* A program of two kernels, unique to this run. */
static clops_status gen_race_source(void *ctx, const clops_device *d, strbuf *sb)
{
    (void)ctx;
    (void)d;
    sb_printf(sb, "/* clops test_threads program %s */\n", nonce);
    sb_append(sb, "__kernel void race0(__global int *p) { p[get_global_id(0)] = 0; }\n"
                  "__kernel void race1(__global int *p) { p[get_global_id(0)] = 1; }\n");
    return CLOPS_OK;
}

static void *kernel_worker(void *arg)
{
    worker *w = arg;
    host_kkey key = {{0x7412EADull << 8 | (uint64_t)w->which, (uint64_t)getpid(), 0, 0}};
    for (const char *p = nonce; *p; p++)
        key.w[2] = key.w[2] * 131 + (unsigned char)*p;
    host_kernel_request req = {.program_name = "test/threads-race",
                               .kernel_name = w->which ? "race1" : "race0",
                               .gen_source = gen_race_source};
    pthread_barrier_wait(w->start);
    clops_status st = host_kernel_get(w->dev, &key, &req, &w->kernel);
    if (st)
        worker_fail(w, "%s", clops_last_error());
    return NULL;
}

static void test_threads_missing_on_one_program_at_once_build_it_once(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_opencl_devices(devs, CT_MAX_DEVICES);
    if (nd == 0)
        skip();
    snprintf(nonce, sizeof nonce, "%ld-%ld", (long)getpid(), (long)time(NULL));
    for (int k = 0; k < nd; k++) {
        ct_set_device(devs[k]);
        host_kcache_stats before, after;
        host_kcache_get_stats(devs[k], &before);
        worker ws[N_THREADS];
        memset(ws, 0, sizeof ws);
        for (int i = 0; i < N_THREADS; i++) {
            ws[i].dev = devs[k];
            ws[i].which = i % 2; /* two kernels of the one program */
        }
        run_workers(ws, N_THREADS, kernel_worker);
        host_kcache_get_stats(devs[k], &after);
        uint64_t programs = (after.programs_built + after.programs_loaded) -
                            (before.programs_built + before.programs_loaded);
        CT_ASSERT_MSG(programs == 1, "the program was made %llu times",
                      (unsigned long long)programs);
        CT_ASSERT_MSG(after.kernel_misses - before.kernel_misses == 2, "%llu kernels created",
                      (unsigned long long)(after.kernel_misses - before.kernel_misses));
        for (int i = 0; i < N_THREADS; i++)
            CT_ASSERT(ws[i].kernel != NULL && ws[i].kernel == ws[i % 2].kernel);
        CT_ASSERT(ws[0].kernel != ws[1].kernel);
    }
    ct_clear_context();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_threads_missing_on_one_program_at_once_build_it_once),
        cmocka_unit_test(test_threads_casting_and_copying_on_one_device_get_correct_results),
        cmocka_unit_test(test_threads_allocating_at_once_never_share_a_buffer),
    };
    return cmocka_run_group_tests(tests, NULL, ct_teardown_group);
}
