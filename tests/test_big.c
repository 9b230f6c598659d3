/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/test_big.c: tensors of more than 2^31 elements (issue 33), behind
 * CLOPS_TEST_BIG=1 (about 4.5 GiB of memory at the peak: never more than two
 * 2 GiB tensors at a time; skipped otherwise).
 *
 * x is a uint8 tensor of N = 251 * 8,559,815 = 2,148,513,565 elements
 * (2^31 + 1,030,317), x[i] = i % 251, built on the device by repeat(); one
 * element past 2^31, x[N - 2], is set to 255.  On every device (the CPU
 * device and each OpenCL device; CLOPS_TEST_DEVICES selects) the test runs
 *
 *   pointwise      x + 5 (add.Scalar) and x > 249, x > 254 (gt.Scalar, bool)
 *   reductions     sum, amax, argmax, any and count_nonzero over all of x
 *                  and of the bool tensors (the only true element of x > 254
 *                  lies past 2^31)
 *   copies         x[7:] (a storage offset) cloned, and cast to
 *                  bool (_to_copy)
 *   indexing       index_select and gather at positions past 2^31
 *   scan           cumsum with dtype uint8 (wrapping, as PyTorch's)
 *   selection      topk(x, 3): the planted maximum's position is past 2^31
 *                  (CPU devices keep 64-bit positions in their heap; the
 *                  32-bit kernels refused the line)
 *   histc          of x cast to float32 (8 GiB; skipped where the device's
 *                  largest buffer is smaller): 256 bins, exact, and one bin
 *                  counting all N elements (past 2^31 - 1)
 *   sort           with CLOPS_TEST_BIG=sort only: sort.stable of all of x
 *                  in one line (values and int64 indices: the indices alone
 *                  take 16 GiB, the merge passes' key/position pairs
 *                  another 48 GiB, about 70 GiB in all)
 *
 * A second test reduces a stride-0 view of 2^31 + 3.4e7 elements over
 * 16 KiB (sum, amax, argmax, count_nonzero: the strided walk) on the
 * OpenCL devices.  Neither runs in .ci/run: on a 7 GiB runner POCL's
 * largest buffer is 2 GiB, below x (docs/reliability.md).
 *
 * and checks each result at sampled positions (both sides of 2^31, the ends,
 * random ones) against values computed on the host.  Each step prints its
 * wall time and the growth of the process's peak RSS over the step
 * (VmHWM, reset before it).  docs/reliability.md lists the figures.
 *
 * The reductions, selections (topk, histc) and the view reductions must
 * take O(output + small) extra memory (issue 33): their device memory
 * beyond what was alive before the step (the allocator's peak) may exceed
 * the result by 64 MiB at most, and on the CPU device the peak RSS may grow
 * by 256 MiB at most (expect_extra_at_most): nonzero(x > 254) too (its
 * scan runs in chunks of 2^22 elements) and topk on GPUs (chunks of 4,096
 * select their candidates).  Not met, so not capped: the sort (64 GiB of
 * merge temporaries).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clops/ops.h"
#include "support/clops_test.h"

#define PERIOD 251
#define REPEATS 8559815
#define N ((int64_t)PERIOD * REPEATS)
#define PLANT (N - 2)
#define PLANT_VALUE 255
#define TWO31 ((int64_t)1 << 31)

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The process's peak RSS in KiB (VmHWM), and its reset. */
static long hwm_kib(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long v = -1;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "VmHWM: %ld kB", &v) == 1)
            break;
    if (f)
        fclose(f);
    return v;
}

static void hwm_reset(void)
{
    int fd = open("/proc/self/clear_refs", O_WRONLY);
    if (fd >= 0) {
        ssize_t w = write(fd, "5", 1);
        (void)w;
        close(fd);
    }
}

static double step_t0;
static long step_rss0, step_hwm, run_peak;
static clops_device *step_dev; /* the device of the steps (big_on, the view test) */
static size_t step_mem0;       /* its bytes in storages before the step */

static void step_begin(const char *what)
{
    ct_set_case("%s", what);
    hwm_reset();
    step_rss0 = hwm_kib();
    size_t cached = 0, peak = 0;
    step_mem0 = 0;
    if (step_dev && clops_memory_stats(step_dev, &step_mem0, &cached) == CLOPS_OK)
        (void)clops_memory_peak(step_dev, true, &peak);
    step_t0 = now_s();
}

/* The memory bound of issue 33: a step whose result is result_bytes took at
 * most that plus 64 MiB of device storage beyond what was alive before it
 * (the allocator's peak, on OpenCL devices), and on the CPU device (whose
 * storages are host memory the allocator does not count) its peak RSS grew
 * by at most that plus 256 MiB.  An O(input) temporary of a 2^31-element
 * tensor is 2 GiB or more. */
static void expect_extra_at_most(const char *what, int64_t result_bytes)
{
    size_t peak = 0;
    if (step_dev && clops_memory_peak(step_dev, false, &peak) == CLOPS_OK && peak > 0) {
        int64_t extra = (int64_t)peak - (int64_t)step_mem0;
        CT_ASSERT_MSG(extra <= result_bytes + ((int64_t)64 << 20),
                      "%s took %lld MiB of device memory beyond its %lld-byte result", what,
                      (long long)(extra >> 20), (long long)result_bytes);
    }
    if (step_dev && step_dev == ct_cpu()) {
        int64_t grew = (int64_t)(step_hwm - step_rss0) * 1024;
        CT_ASSERT_MSG(grew <= result_bytes + ((int64_t)256 << 20),
                      "%s grew the peak RSS by %lld MiB beyond its %lld-byte result", what,
                      (long long)(grew >> 20), (long long)result_bytes);
    }
}

static void step_end(const char *what, clops_device *dev)
{
    CT_OK(clops_device_synchronize(dev));
    long hwm = hwm_kib();
    step_hwm = hwm;
    run_peak = hwm > run_peak ? hwm : run_peak;
    print_message("%-10s %-44s %7.2f s, peak RSS +%ld MiB\n", ct_device_name(dev), what,
                  now_s() - step_t0, (hwm - step_rss0) / 1024);
}

/* The value of x at i. */
static int64_t xval(int64_t i)
{
    return i == PLANT ? PLANT_VALUE : i % PERIOD;
}

/* Element i of a 1-D contiguous tensor t as an int64 (through a one-element
 * view, so nothing of t's size is read back). */
static int64_t at(const clops_tensor *t, int64_t i)
{
    clops_tensor *v = NULL;
    clops_scalar s;
    int64_t r = INT64_MIN;
    if (!t)
        return r;
    CT_OK(clops_tensor_from_storage(clops_tensor_storage(t), clops_tensor_dtype(t), 0, NULL, NULL,
                                    clops_tensor_storage_offset(t) + i * clops_tensor_stride(t, 0),
                                    &v));
    if (v && clops_tensor_item(v, &s) == CLOPS_OK)
        r = s.kind == CLOPS_SCALAR_BOOL ? (int64_t)s.v.b
            : s.kind == CLOPS_SCALAR_INT ? s.v.i
                                         : (int64_t)s.v.f;
    clops_tensor_release(v);
    return r;
}

/* A 0-dim result as an int64. */
static int64_t item(const clops_tensor *t)
{
    clops_scalar s;
    if (!t || clops_tensor_item(t, &s) != CLOPS_OK)
        return INT64_MIN;
    return s.kind == CLOPS_SCALAR_BOOL ? (int64_t)s.v.b
           : s.kind == CLOPS_SCALAR_INT ? s.v.i
                                        : (int64_t)s.v.f;
}

/* *t (a 0-dim result) is want; *t is released. */
static void expect_item(clops_tensor **t, int64_t want, const char *what)
{
    int64_t got = item(*t);
    CT_ASSERT_MSG(got == want, "%s is %lld, expected %lld", what, (long long)got,
                  (long long)want);
    clops_tensor_release(*t);
    *t = NULL;
}

/* Sampled positions: the ends, both sides of 2^31 and of the planted
 * element, and random ones. */
#define NSAMPLES 24
static void samples(int64_t len, int64_t *pos)
{
    const int64_t fixed[10] = {0, 1, 250, 251, TWO31 - 1, TWO31, TWO31 + 1, PLANT - 1, PLANT, N - 1};
    ct_rng r = ct_rng_seeded(33);
    for (int i = 0; i < NSAMPLES; i++) {
        int64_t p = i < 10 ? fixed[i] : ct_rng_range(&r, 0, len - 1);
        pos[i] = p < len ? p : len - 1;
    }
}

/* t[p] == want(p) at the sampled positions. */
static void expect_samples(const clops_tensor *t, int64_t (*want)(int64_t), const char *what)
{
    CT_ASSERT_MSG(t != NULL, "%s: no result", what);
    if (!t)
        return;
    int64_t len = clops_tensor_numel(t);
    int64_t pos[NSAMPLES];
    samples(len, pos);
    for (int i = 0; i < NSAMPLES; i++) {
        int64_t got = at(t, pos[i]), w = want(pos[i]);
        CT_ASSERT_MSG(got == w, "%s: element %lld is %lld, expected %lld", what,
                      (long long)pos[i], (long long)got, (long long)w);
    }
}

static int64_t want_plus5(int64_t i)
{
    return (xval(i) + 5) & 0xff; /* uint8 wraps, as in PyTorch */
}

static int64_t want_gt249(int64_t i)
{
    return xval(i) > 249;
}

static int64_t want_shift7(int64_t i)
{
    return xval(i + 7);
}

static int64_t want_shift7_bool(int64_t i)
{
    return xval(i + 7) != 0;
}

/* cumsum of x up to i inclusive, modulo 256. */
static int64_t want_cumsum_u8(int64_t i)
{
    int64_t n = i + 1, q = n / PERIOD, r = n % PERIOD;
    uint64_t s = (uint64_t)q * (PERIOD * (PERIOD - 1) / 2) + (uint64_t)(r * (r - 1) / 2);
    if (i >= PLANT)
        s += (uint64_t)(PLANT_VALUE - PLANT % PERIOD);
    return (int64_t)(s % 256);
}

/* x sorted ascending (stable): every value 0..250 REPEATS times but 249,
 * whose last occurrence (PLANT) became the one 255 at the end. */
static int64_t want_sorted(int64_t p)
{
    if (p == N - 1)
        return PLANT_VALUE;
    if (p < 249 * (int64_t)REPEATS)
        return p / REPEATS;
    return p < 250 * (int64_t)REPEATS - 1 ? 249 : 250;
}

/* The position in x of sorted element p: value v's k-th occurrence is at
 * v + 251 k. */
static int64_t want_sorted_index(int64_t p)
{
    if (p == N - 1)
        return PLANT;
    if (p < 249 * (int64_t)REPEATS)
        return p / REPEATS + PERIOD * (p % REPEATS);
    if (p < 250 * (int64_t)REPEATS - 1)
        return 249 + PERIOD * (p - 249 * (int64_t)REPEATS);
    return 250 + PERIOD * (p - (250 * (int64_t)REPEATS - 1));
}

static void big_on(clops_device *dev, bool with_sort)
{
    ct_set_device(dev);
    step_dev = dev;
    clops_tensor *pat = NULL, *x = NULL, *t = NULL, *u = NULL, *v = NULL, *idx = NULL;

    step_begin("x = repeat(arange(251), 8559815)");
    CT_OK(clops_arange(dev, CLOPS_UINT8, clops_scalar_int(0), clops_scalar_int(PERIOD),
                       clops_scalar_int(1), &pat));
    if (pat)
        CT_OK(clops_repeat(pat, (const int64_t[]){REPEATS}, 1, &x));
    clops_tensor_release(pat);
    if (!x)
        return;
    step_end("x = repeat(arange(251)) [uint8, 2^31 + 1e6]", dev);
    CT_ASSERT(clops_tensor_numel(x) == N);
    {
        clops_tensor *p = NULL;
        const uint8_t pv = PLANT_VALUE;
        CT_OK(clops_tensor_from_storage(clops_tensor_storage(x), CLOPS_UINT8, 0, NULL, NULL,
                                        PLANT, &p));
        if (p)
            CT_OK(clops_tensor_from_host(p, &pv, 1));
        clops_tensor_release(p);
    }
    expect_samples(x, xval, "x");

    step_begin("x + 5");
    CT_OK(clops_add_scalar(x, clops_scalar_int(5), clops_scalar_int(1), &t));
    step_end("x + 5 (add.Scalar)", dev);
    expect_samples(t, want_plus5, "x + 5");
    clops_tensor_release(t);
    t = NULL;

    int64_t sum = (int64_t)REPEATS * (PERIOD * (PERIOD - 1) / 2) + PLANT_VALUE - PLANT % PERIOD;
    step_begin("sum(x)");
    CT_OK(clops_sum(x, CLOPS_DTYPE_NONE, &t));
    step_end("sum(x) -> int64", dev);
    expect_extra_at_most("sum(x)", 8);
    expect_item(&t, sum, "sum(x)");

    step_begin("amax(x)");
    CT_OK(clops_amax(x, NULL, 0, false, &t));
    step_end("amax(x)", dev);
    expect_extra_at_most("amax(x)", 1);
    expect_item(&t, PLANT_VALUE, "amax(x)");

    step_begin("argmax(x)");
    CT_OK(clops_argmax(x, NULL, false, &t));
    step_end("argmax(x) (the maximum lies past 2^31)", dev);
    expect_extra_at_most("argmax(x)", 8);
    expect_item(&t, PLANT, "argmax(x)");

    step_begin("x > 249");
    CT_OK(clops_gt_scalar(x, clops_scalar_int(249), &t));
    step_end("x > 249 (gt.Scalar -> bool)", dev);
    expect_samples(t, want_gt249, "x > 249");
    step_begin("any(x > 249)");
    CT_OK(clops_any(t, &u));
    step_end("any(bool)", dev);
    expect_extra_at_most("any(x > 249)", 1);
    expect_item(&u, 1, "any(x > 249)");
    step_begin("sum(x > 249)");
    CT_OK(clops_sum(t, CLOPS_DTYPE_NONE, &u));
    step_end("sum(bool) -> int64", dev);
    expect_extra_at_most("sum(x > 249)", 8);
    /* value 250 once per period, except where the planted 255 replaced one */
    int64_t count = REPEATS + (PLANT % PERIOD == 250 ? 0 : 1);
    expect_item(&u, count, "sum(x > 249)");
    step_begin("count_nonzero(x > 249)");
    CT_OK(clops_count_nonzero(t, NULL, &u));
    step_end("count_nonzero(bool)", dev);
    expect_extra_at_most("count_nonzero(x > 249)", 8);
    expect_item(&u, count, "count_nonzero(x > 249)");
    clops_tensor_release(t);
    t = NULL;

    CT_OK(clops_narrow(x, 0, 7, N - 7, &v));
    step_begin("clone(x[7:])");
    if (v)
        CT_OK(clops_clone(v, -1, &t));
    step_end("clone(x[7:]) (from storage offset 7)", dev);
    CT_ASSERT(t == NULL || clops_tensor_storage_offset(t) == 0);
    expect_samples(t, want_shift7, "clone(x[7:])");
    clops_tensor_release(t);
    t = NULL;
    step_begin("_to_copy(x[7:], bool)");
    if (v)
        CT_OK(clops__to_copy(v, CLOPS_BOOL, -1, NULL, NULL, false, -1, &t));
    step_end("x[7:] cast to bool (_to_copy)", dev);
    expect_samples(t, want_shift7_bool, "bool(x[7:])");
    clops_tensor_release(t);
    t = NULL;
    clops_tensor_release(v);
    v = NULL;

    const int64_t iv[6] = {N - 1, TWO31, TWO31 + 1, 5, PLANT, TWO31 - 1};
    idx = ct_from_values(dev, CLOPS_INT64, 1, CT_I64(6), CT_CONTIGUOUS, iv);
    step_begin("index_select");
    CT_OK(clops_index_select(x, 0, idx, &t));
    step_end("index_select at positions past 2^31", dev);
    step_begin("gather");
    CT_OK(clops_gather(x, 0, idx, false, &u));
    step_end("gather at positions past 2^31", dev);
    for (int i = 0; i < 6; i++) {
        CT_ASSERT_MSG(at(t, i) == xval(iv[i]), "index_select[%d] = %lld, expected %lld", i,
                      (long long)at(t, i), (long long)xval(iv[i]));
        CT_ASSERT_MSG(at(u, i) == xval(iv[i]), "gather[%d] = %lld, expected %lld", i,
                      (long long)at(u, i), (long long)xval(iv[i]));
    }
    clops_tensor_release(t);
    clops_tensor_release(u);
    clops_tensor_release(idx);
    t = u = NULL;

    step_begin("cumsum");
    CT_OK(clops_cumsum(x, 0, CLOPS_UINT8, &t));
    step_end("cumsum(x, dtype=uint8)", dev);
    expect_samples(t, want_cumsum_u8, "cumsum");
    clops_tensor_release(t);
    t = NULL;

    step_begin("topk(x, 3)");
    CT_OK(clops_topk(x, 3, 0, true, true, &t, &u));
    step_end("topk(x, 3) (the largest past 2^31)", dev);
    /* CPU devices select with a k-element heap; GPUs per 4,096-element
     * chunk and then among the candidates (ops/sort/sort_ops.c,
     * topk_tournament): 3 per chunk, 14 MiB here, where sorting the line
     * took about 24 bytes an element. */
    expect_extra_at_most("topk(x, 3)", 3 + 3 * 8);
    const int64_t tv[3] = {PLANT_VALUE, 250, 250}, ti[3] = {PLANT, 250, 250 + PERIOD};
    for (int i = 0; i < 3; i++)
        CT_ASSERT_MSG(at(t, i) == tv[i] && at(u, i) == ti[i],
                      "topk[%d] = %lld at %lld, expected %lld at %lld", i, (long long)at(t, i),
                      (long long)at(u, i), (long long)tv[i], (long long)ti[i]);
    clops_tensor_release(t);
    clops_tensor_release(u);
    t = u = NULL;
    CT_OK(clops_empty_cache(dev));

    if (with_sort) {
        const bool stable = true;
        step_begin("sort(x)");
        CT_OK(clops_sort_stable(x, &stable, 0, false, &t, &u));
        step_end("sort.stable(x), one line of 2^31 + 1e6", dev);
        expect_samples(t, want_sorted, "sort values");
        expect_samples(u, want_sorted_index, "sort indices");
        clops_tensor_release(t);
        clops_tensor_release(u);
        t = u = NULL;
        CT_OK(clops_empty_cache(dev));
    }

    /* histc of x as float32 (8 GiB more): every element counted, in 64
     * bits (the chunks' 32-bit rows summed), one bin holding all N. */
    int64_t fbytes = N * 4;
    if ((int64_t)clops_device_get_info(dev)->max_alloc_bytes < fbytes) {
        print_message("%-10s histc skipped: float32 x needs one buffer of %lld bytes, the "
                      "device's largest is %llu\n",
                      ct_device_name(dev), (long long)fbytes,
                      (unsigned long long)clops_device_get_info(dev)->max_alloc_bytes);
    } else {
        clops_tensor *xf = NULL;
        step_begin("float32(x)");
        CT_OK(clops__to_copy(x, CLOPS_FLOAT32, -1, NULL, NULL, false, -1, &xf));
        step_end("x cast to float32 (_to_copy)", dev);
        step_begin("histc(x, 256, 0, 256)");
        if (xf)
            CT_OK(clops_histc(xf, 256, clops_scalar_float(0), clops_scalar_float(256), &t));
        step_end("histc(float32(x), bins=256)", dev);
        expect_extra_at_most("histc(x, 256)", 256 * 4);
        for (int b = 0; t && b < 256; b++) {
            int64_t w = b == PLANT_VALUE ? 1
                        : b >= PERIOD    ? 0
                        : b == PLANT % PERIOD ? REPEATS - 1
                                              : REPEATS;
            CT_ASSERT_MSG(at(t, b) == w, "histc bin %d is %lld, expected %lld", b,
                          (long long)at(t, b), (long long)w);
        }
        clops_tensor_release(t);
        t = NULL;
        step_begin("histc(x, 1, 0, 255)");
        if (xf)
            CT_OK(clops_histc(xf, 1, clops_scalar_float(0), clops_scalar_float(255), &t));
        step_end("histc(float32(x), bins=1): one count of N", dev);
        expect_extra_at_most("histc(x, 1)", 4);
        if (t) {
            clops_scalar sc;
            CT_OK(clops_tensor_item(t, &sc));
            CT_ASSERT_MSG(sc.v.f == (double)(float)N, "histc's one bin is %.1f, expected %.1f",
                          sc.v.f, (double)(float)N);
        }
        clops_tensor_release(t);
        clops_tensor_release(xf);
        t = NULL;
        CT_OK(clops_empty_cache(dev));
    }

    /* The only true element lies past 2^31. */
    CT_OK(clops_gt_scalar(x, clops_scalar_int(254), &t));
    clops_tensor_release(x); /* at most two 2 GiB tensors at a time */
    x = NULL;
    step_begin("any(x > 254)");
    CT_OK(clops_any(t, &u));
    step_end("any(bool), one true element past 2^31", dev);
    expect_extra_at_most("any(x > 254)", 1);
    expect_item(&u, 1, "any(x > 254)");
    /* nonzero: count_nonzero, then the mask scanned in chunks of 2^22
     * elements (ops/index/index_nonzero.c): a chunk's int64 positions,
     * 32 MiB, where one scan of all of x took 16 GiB. */
    step_begin("nonzero(x > 254)");
    CT_OK(clops_nonzero(t, &u));
    step_end("nonzero(bool), one true element past 2^31", dev);
    expect_extra_at_most("nonzero(x > 254)", 8);
    CT_ASSERT_MSG(u && clops_tensor_numel(u) == 1 && at(u, 0) == PLANT,
                  "nonzero(x > 254) is not [[%lld]]", (long long)PLANT);
    clops_tensor_release(u);
    u = NULL;
    step_begin("uint8(x > 254)");
    clops_tensor *tu = NULL;
    CT_OK(clops__to_copy(t, CLOPS_UINT8, -1, NULL, NULL, false, -1, &tu));
    step_end("bool -> uint8 (_to_copy)", dev);
    clops_tensor_release(t);
    t = NULL;
    step_begin("argmax(uint8(x > 254))");
    if (tu)
        CT_OK(clops_argmax(tu, NULL, false, &u));
    step_end("argmax, the one 1 past 2^31", dev);
    expect_extra_at_most("argmax(uint8(x > 254))", 8);
    expect_item(&u, PLANT, "argmax(uint8(x > 254))");
    clops_tensor_release(tu);

    CT_OK(clops_empty_cache(dev));
    print_message("%-10s the process's peak RSS over the steps: %ld MiB\n", ct_device_name(dev),
                  run_peak / 1024);
    run_peak = 0;
    step_dev = NULL;
    ct_clear_context();
}

/* CLOPS_TEST_BIG: 0 unset (the tests skip), 1 for "1", 2 for "sort". */
static int big_mode(void)
{
    const char *v = getenv("CLOPS_TEST_BIG");
    if (v && strcmp(v, "1") == 0)
        return 1;
    if (v && strcmp(v, "sort") == 0)
        return 2;
    print_message("skipped: set CLOPS_TEST_BIG=1 (about 5 GiB of memory, minutes), or "
                  "CLOPS_TEST_BIG=sort to sort x too (about 70 GiB)\n");
    return 0;
}

/*
 * Views of more than 2^31 elements over a small storage, on the OpenCL
 * devices: the reductions' strided walk (x above is contiguous).  No
 * large buffer, but each pass walks 2^31 elements through their strides
 * (about 16 s of CPU per pass on POCL), hence behind CLOPS_TEST_BIG too.
 * v is [64, 135805, 251] with strides [251, 0, 1] over 64 rows
 * of 251 bytes, v[b, m, c] = c, except row 63's column 7, 255: 2,181,571,520
 * elements, the first 255 at flat index 2,147,484,472 (past 2^31).  The
 * reductions over all of it walk the strides with 64-bit flat indices.
 */
#define VK 64
#define VM 135805
#define VN ((int64_t)VK * VM * PERIOD)
static void test_reductions_over_a_view_past_2_31_elements(void **state)
{
    (void)state;
    if (!big_mode())
        skip();
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_opencl_devices(devs, CT_MAX_DEVICES);
    uint8_t *rows = malloc((size_t)VK * PERIOD);
    for (int i = 0; i < VK * PERIOD; i++)
        rows[i] = (uint8_t)(i % PERIOD);
    rows[(VK - 1) * PERIOD + 7] = PLANT_VALUE;
    const int64_t first = (int64_t)(VK - 1) * VM * PERIOD + 7;
    for (int di = 0; di < nd; di++) {
        clops_device *dev = devs[di];
        ct_set_device(dev);
        step_dev = dev;
        clops_storage *st = NULL;
        clops_tensor *flat = NULL, *v = NULL, *t = NULL;
        CT_OK(clops_storage_new(dev, (size_t)VK * PERIOD, &st));
        if (st)
            CT_OK(clops_tensor_from_storage(st, CLOPS_UINT8, 1, CT_I64(VK * PERIOD), CT_I64(1), 0,
                                            &flat));
        if (flat)
            CT_OK(clops_tensor_from_host(flat, rows, (size_t)VK * PERIOD));
        if (st)
            CT_OK(clops_tensor_from_storage(st, CLOPS_UINT8, 3, CT_I64(VK, VM, PERIOD),
                                            CT_I64(PERIOD, 0, 1), 0, &v));
        clops_tensor_release(flat);
        clops_storage_release(st);
        if (!v)
            continue;
        CT_ASSERT(clops_tensor_numel(v) == VN && first > TWO31);
        step_begin("sum(v)");
        CT_OK(clops_sum(v, CLOPS_DTYPE_NONE, &t));
        step_end("sum of a [64, 135805, 251] stride-0 view", dev);
        expect_extra_at_most("sum(v)", 8);
        expect_item(&t, VN / PERIOD * (PERIOD * (PERIOD - 1) / 2) + (int64_t)VM * (PLANT_VALUE - 7),
                    "sum(v)");
        step_begin("amax(v)");
        CT_OK(clops_amax(v, NULL, 0, false, &t));
        step_end("amax of the view", dev);
        expect_extra_at_most("amax(v)", 1);
        expect_item(&t, PLANT_VALUE, "amax(v)");
        step_begin("argmax(v)");
        CT_OK(clops_argmax(v, NULL, false, &t));
        step_end("argmax of the view (first maximum past 2^31)", dev);
        expect_extra_at_most("argmax(v)", 8);
        expect_item(&t, first, "argmax(v)");
        step_begin("count_nonzero(v)");
        CT_OK(clops_count_nonzero(v, NULL, &t));
        step_end("count_nonzero of the view", dev);
        expect_extra_at_most("count_nonzero(v)", 8);
        expect_item(&t, VN - VN / PERIOD, "count_nonzero(v)");
        clops_tensor_release(v);
    }
    free(rows);
    step_dev = NULL;
    ct_clear_context();
}

static void test_more_than_2_31_elements(void **state)
{
    (void)state;
    int mode = big_mode();
    if (!mode)
        skip();
    bool with_sort = mode == 2;
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_devices(devs, CT_MAX_DEVICES);
    for (int di = 0; di < nd; di++)
        big_on(devs[di], with_sort);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reductions_over_a_view_past_2_31_elements),
        cmocka_unit_test(test_more_than_2_31_elements),
    };
    /* CLOPS_TEST_BIG_FILTER=PATTERN runs the tests whose names match
     * (cmocka's filter: "test_more*" skips the view test). */
    const char *filter = getenv("CLOPS_TEST_BIG_FILTER");
    if (filter && *filter)
        cmocka_set_test_filter(filter);
    return cmocka_run_group_tests(tests, NULL, ct_teardown_group);
}
