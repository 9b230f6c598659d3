/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tools/check/check_bench.c: the measurements behind `clops bench`.
 *
 * Absolute times on shared machines are noise; the figures that count are
 * ratios within one run, so each device's own copy peak is measured in the
 * same run as its ops:
 *
 *   copy peak      the best of a few copies over a buffer of 256 MiB, or
 *                  an eighth of the largest allocation if smaller: one
 *                  float (GPUs only), float4 or float16 per work item at
 *                  the driver's work-group size, float4 at 64 and 256,
 *                  clEnqueueCopyBuffer, and on CPU devices the chunked
 *                  float4 copy of their launch policy (the one clops'
 *                  copy_ runs there), a read-only stream (bytes, not
 *                  2 x bytes: read-heavy ops beat a copy) and an in-place
 *                  stream (in-place ops skip a CPU's read for ownership,
 *                  which a copy pays); again at the
 *                  ops' tensor size once it is known
 *                  (chk_bench_peak_at_size); 2 x bytes /
 *                  median time of each, the fastest wins (memcpy on the CPU
 *                  device).  A ceiling: no op moves data faster than the
 *                  fastest plain copy, within noise;
 *   launch         launch + finish of a one-work-item kernel, median of 200;
 *   enqueue        host time of one enqueue without waiting, median of 200;
 *   cold build     building a program whose source no cache has seen (the
 *                  copy kernel with a unique comment), once.
 *
 * An op's bench case is its first standard case scaled up, the same on
 * every device of the run (chk_bench_sizes): contiguous tensors of 2^23 to
 * 2^26 elements (a call moves at least 2 ms of data at the fastest
 * device's copy peak, and the tensors do not fit in CPU or GPU caches), or
 * matrices of side 256 (a CPU-like device takes part) / 2048 (GPUs only)
 * for ops with shape hints.  Timed figures are
 * medians over `reps` repetitions, each a batch of calls ended by one
 * synchronisation (the batch is sized so it lasts at least 2 ms), after two
 * untimed calls.  GB/s counts the bytes of the inputs (an expanded input its
 * base; an input the op overwrites without reading, such as copy_'s self,
 * the `unread` check hint, not at all) and of the outputs once (an op that
 * writes nothing, a view, has no GB/s); GFLOP/s counts 2 x result elements x the
 * reduction length for ops whose hints name a reduction (the matrix
 * family).  The host cost is the time to issue one call of the small
 * (standard) case without waiting, over 100 back-to-back calls.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "host/host.h"
#include "ops/gemm/gemm.h"
#include "ops/kit/kit.h"
#include "tools/check/check_internal.h"

#define DEFAULT_REPS 20

/* Monotonic clock in seconds. */
static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* qsort order of doubles. */
static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median of v[0..n) (sorts v). */
static double median(double *v, int n)
{
    if (n <= 0)
        return NAN;
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* --- device figures -------------------------------------------------------------- */

/* The kernels of the device measurements; `nonce` makes the source unique
 * for the cold build. */
typedef struct src_ctx {
    char nonce[64];
} src_ctx;

/* Writes the device-figures program (host_kernel_request.gen_source). */
static clops_status bench_source(void *vctx, const clops_device *d, strbuf *sb)
{
    const src_ctx *c = vctx;
    (void)d;
    sb_printf(sb,
              "/* clops check engine: device figures %s */\n"
              "__kernel void chk_copy4(__global float4 *restrict dst,\n"
              "                        __global const float4 *restrict src, ulong n)\n"
              "{\n"
              "    ulong i = get_global_id(0);\n"
              "    if (i < n)\n"
              "        dst[i] = src[i];\n"
              "}\n"
              "__kernel void chk_copy1(__global float *restrict dst,\n"
              "                        __global const float *restrict src, ulong n)\n"
              "{\n"
              "    ulong i = get_global_id(0);\n"
              "    if (i < n)\n"
              "        dst[i] = src[i];\n"
              "}\n"
              "__kernel void chk_copy16(__global float16 *restrict dst,\n"
              "                         __global const float16 *restrict src, ulong n)\n"
              "{\n"
              "    ulong i = get_global_id(0);\n"
              "    if (i < n)\n"
              "        dst[i] = src[i];\n"
              "}\n"
              "__kernel void chk_copy_chunk(__global float4 *restrict dst,\n"
              "                             __global const float4 *restrict src, ulong n)\n"
              "{\n"
              "    ulong per = (n + get_global_size(0) - 1) / get_global_size(0);\n"
              "    ulong i = get_global_id(0) * per;\n"
              "    ulong end = n - min(i, n) < per ? n : i + per;\n"
              "    for (; i < end; i++)\n"
              "        dst[i] = src[i];\n"
              "}\n"
              "__kernel void chk_read_chunk(__global uint16 *restrict dst,\n"
              "                             __global const uint16 *restrict src, ulong n)\n"
              "{\n"
              "    ulong per = (n + get_global_size(0) - 1) / get_global_size(0);\n"
              "    ulong i = get_global_id(0) * per;\n"
              "    ulong end = n - min(i, n) < per ? n : i + per;\n"
              "    uint16 acc = 0;\n"
              "    for (; i < end; i++)\n"
              "        acc ^= src[i];\n"
              "    dst[get_global_id(0)] = acc;\n"
              "}\n"
              "__kernel void chk_read_stride(__global uint4 *restrict dst,\n"
              "                              __global const uint4 *restrict src, ulong n)\n"
              "{\n"
              "    uint4 acc = 0;\n"
              "    for (ulong i = get_global_id(0); i < n; i += get_global_size(0))\n"
              "        acc ^= src[i];\n"
              "    dst[get_global_id(0)] = acc;\n"
              "}\n"
              "__kernel void chk_inplace_chunk(__global uint4 *restrict dst,\n"
              "                                __global const uint4 *restrict src, ulong n)\n"
              "{\n"
              "    ulong per = (n + get_global_size(0) - 1) / get_global_size(0);\n"
              "    ulong i = get_global_id(0) * per;\n"
              "    ulong end = n - min(i, n) < per ? n : i + per;\n"
              "    for (; i < end; i++)\n"
              "        dst[i] = ~dst[i];\n"
              "}\n"
              "__kernel void chk_inplace4(__global uint4 *restrict dst,\n"
              "                           __global const uint4 *restrict src, ulong n)\n"
              "{\n"
              "    ulong i = get_global_id(0);\n"
              "    if (i < n)\n"
              "        dst[i] = ~dst[i];\n"
              "}\n"
              "__kernel void chk_empty(__global int *p)\n"
              "{\n"
              "    if (get_global_id(0) == 1u << 30)\n"
              "        p[0] = 0;\n"
              "}\n",
              c->nonce);
    return CLOPS_OK;
}

/* Gets kernel `name` of the device-figures program (key tag 1: the
 * reusable program; tag 2 + nonce: a unique one). */
static clops_status get_kernel(clops_device *d, const char *name, uint64_t tag, src_ctx *sc,
                               host_kernel **k)
{
    host_kkey key = {{0x63686b62656e6368ull, tag, chk_hash_str(CHK_HASH_INIT, name), 1}};
    char pname[96];
    snprintf(pname, sizeof pname, "check/device-figures/%llx", (unsigned long long)tag);
    host_kernel_request req = {
        .program_name = pname, .kernel_name = name, .gen_source = bench_source, .ctx = sc};
    return host_kernel_get(d, &key, &req, k);
}

/* The copy peak of the CPU device: memcpy of 64 MiB. */
static double cpu_copy_peak(int reps)
{
    size_t bytes = (size_t)64 << 20;
    char *a = malloc(bytes), *b = malloc(bytes);
    double t[64], gbs = NAN;
    if (a && b) {
        memset(a, 1, bytes);
        memset(b, 2, bytes);
        for (int r = 0; r < reps && r < 64; r++) {
            double t0 = now_s();
            memcpy(b, a, bytes);
            t[r] = now_s() - t0;
            a[r] = b[bytes - 1 - (size_t)r];
        }
        gbs = 2.0 * (double)bytes / median(t, reps < 64 ? reps : 64) / 1e9;
    }
    free(a);
    free(b);
    return gbs;
}

/* One copy of the copy peak: kernel `name` (NULL: clEnqueueCopyBuffer)
 * moving vectors of vec_bytes, one per work item; local 0: the driver's
 * work-group size; gpu_only: tried on GPUs only (a CPU runtime never
 * gains from narrower vectors, and they take seconds there); chunked: the
 * CPU-device launch policy clops' own ops use (host_launch_chunked: a few
 * work items per core, each a serial loop over one contiguous run, as the
 * pointwise copy_ kernel runs on CPU devices), tried on chunked devices
 * only (on a GPU a few hundred items leave the memory system idle).  On
 * POCL the GPU-style float4 kernels reach about half of what the chunked
 * copy does, so without it clops' own copy_ read "above the copy peak".  A grid-stride
 * loop was tried too and dropped: never the fastest, and 15 times slower
 * than the others on POCL. */
typedef struct copy_variant {
    const char *label, *name;
    size_t vec_bytes, local;
    bool gpu_only, chunked;
    /* read: a read-only stream (bytes / time, not 2 x bytes): each item
     * folds its part of src with xor (one-cycle latency, so the loop waits
     * on memory, not on a dependency chain) and writes one uint4; chunked
     * on chunked devices, a grid-stride loop (host_grid_size items)
     * elsewhere.  An op that reads more than it writes (a reduction,
     * addcmul's three inputs for one output) can beat the copy, whose
     * writes cost a CPU a read for ownership too: the ceiling is the
     * faster of the two.  The in-place streams (each uint4 read and
     * written back where it was, 2 x bytes) are the same for ops that
     * write where they read (add_): writing a line just read costs no
     * read for ownership, so they beat a copy by up to half on a CPU. */
    bool read;
} copy_variant;

static const copy_variant copy_variants[] = {
    {"float4 per item", "chk_copy4", 16, 0, false, false, false},
    {"float per item", "chk_copy1", 4, 0, true, false, false},
    {"float16 per item", "chk_copy16", 64, 0, false, false, false},
    {"float4 per item, wg 64", "chk_copy4", 16, 64, false, false, false},
    {"float4 per item, wg 256", "chk_copy4", 16, 256, false, false, false},
    {"clEnqueueCopyBuffer", NULL, 1, 0, false, false, false},
    {"float4 chunked (CPU launch)", "chk_copy_chunk", 16, 0, false, true, false},
    {"read-only stream, chunked", "chk_read_chunk", 64, 0, false, true, true},
    {"read-only stream, grid-stride", "chk_read_stride", 16, 0, true, false, true},
    {"in-place stream, chunked", "chk_inplace_chunk", 16, 0, false, true, false},
    {"in-place stream, uint4 per item", "chk_inplace4", 16, 0, true, false, false},
};

/* The fastest of `reps` runs of copy variant v from src to dst, seconds:
 * a ceiling is the best the device did (on a shared machine, load from
 * other processes only ever slows a run down, and the ops' medians fall
 * in the quieter moments too). */
static clops_status time_copy(clops_device *d, const copy_variant *v, host_block *dst,
                              host_block *src, size_t bytes, int reps, double *seconds)
{
    *seconds = NAN;
    host_kernel *k = NULL;
    src_ctx sc;
    snprintf(sc.nonce, sizeof sc.nonce, "reusable");
    clops_status st = v->name ? get_kernel(d, v->name, 1, &sc, &k) : CLOPS_OK;
    if (st)
        return st;
    if (v->local > d->info.max_work_group_size || (v->gpu_only && !d->info.is_gpu) ||
        (v->chunked && !d->chunked))
        return CLOPS_OK;
    cl_ulong n = bytes / v->vec_bytes;
    host_arg args[3] = {{sizeof dst->mem, &dst->mem}, {sizeof src->mem, &src->mem},
                        {sizeof n, &n}};
    size_t global = (size_t)n;
    double t[64];
    for (int r = -1; r < reps && st == CLOPS_OK; r++) {
        double t0 = now_s();
        if (!k)
            st = host_copy_buffer(d, src->mem, 0, dst->mem, 0, bytes);
        else if (v->chunked)
            st = host_launch_chunked(d, k, 3, args, n);
        else if (v->read)
            st = host_launch(d, k, 3, args, host_grid_size(d, k, n));
        else if (v->local)
            st = host_launch_local(d, k, 3, args, global, v->local);
        else
            st = host_launch(d, k, 3, args, global);
        if (st == CLOPS_OK)
            st = host_finish(d);
        if (r >= 0) /* r = -1: an untimed first run */
            t[r] = now_s() - t0;
    }
    if (st == CLOPS_OK) {
        *seconds = t[0];
        for (int r = 1; r < reps; r++)
            *seconds = t[r] < *seconds ? t[r] : *seconds;
    }
    return st;
}

/* Raises out's copy peak to the fastest of copy_variants over buffers of
 * `bytes` (at most an eighth of the largest allocation); at_size: name the
 * size next to the kernel (a measurement at the ops' tensor size). */
static clops_status copy_peak(clops_device *d, size_t bytes, bool at_size, int reps,
                              chk_device_figures *out)
{
    if (bytes > d->info.max_alloc_bytes / 8)
        bytes = (size_t)(d->info.max_alloc_bytes / 8) & ~(size_t)63;
    host_block *src = NULL, *dst = NULL;
    clops_status st = host_alloc(d, bytes, &src);
    if (st == CLOPS_OK)
        st = host_alloc(d, bytes, &dst);
    if (st == CLOPS_OK) {
        /* Real data in both buffers: pages the OS never handed out read as
         * one shared zero page, which would flatter the peak. */
        unsigned char *fill = malloc(bytes);
        if (!fill)
            st = clops__fail(CLOPS_HOST_OUT_OF_MEMORY, "bench: %zu bytes", bytes);
        else
            memset(fill, 0x3c, bytes);
        if (st == CLOPS_OK)
            st = host_write(d, src->mem, 0, fill, bytes);
        if (st == CLOPS_OK)
            st = host_write(d, dst->mem, 0, fill, bytes);
        free(fill);
    }
    for (size_t i = 0; i < sizeof copy_variants / sizeof copy_variants[0] && st == CLOPS_OK;
         i++) {
        double sec = NAN;
        st = time_copy(d, &copy_variants[i], dst, src, bytes, reps, &sec);
        double gbs = (copy_variants[i].read ? 1.0 : 2.0) * (double)bytes / sec / 1e9;
        if (st == CLOPS_OK && isfinite(gbs) &&
            (!isfinite(out->copy_peak_gbs) || gbs > out->copy_peak_gbs)) {
            out->copy_peak_gbs = gbs;
            if (at_size)
                snprintf(out->copy_peak_kernel, sizeof out->copy_peak_kernel, "%s, %zu MiB",
                         copy_variants[i].label, bytes >> 20);
            else
                snprintf(out->copy_peak_kernel, sizeof out->copy_peak_kernel, "%s",
                         copy_variants[i].label);
        }
    }
    host_free(src);
    host_free(dst);
    return st;
}

clops_status chk_bench_device(clops_device *d, int reps, chk_device_figures *out)
{
    out->copy_peak_gbs = out->launch_us = out->enqueue_us = out->build_cold_s = NAN;
    out->fma_peak_gflops = out->mma_peak_gflops = NAN;
    snprintf(out->copy_peak_kernel, sizeof out->copy_peak_kernel, "%s",
             host_is_cpu(d) ? "memcpy" : "-");
    if (reps <= 0)
        reps = 10;
    if (reps > 64)
        reps = 64;
    if (host_is_cpu(d)) {
        out->copy_peak_gbs = cpu_copy_peak(reps);
        return CLOPS_OK;
    }
    src_ctx sc;
    snprintf(sc.nonce, sizeof sc.nonce, "reusable");
    host_kernel *empty = NULL;
    clops_status st = get_kernel(d, "chk_empty", 1, &sc, &empty);
    if (st)
        return st;

    st = copy_peak(d, (size_t)256 << 20, false, reps, out);
    if (st)
        return st;

    /* Launch + finish, and enqueue alone, of a one-item kernel. */
    host_block *one = NULL;
    st = host_alloc(d, 64, &one);
    if (st)
        return st;
    host_arg a1 = {sizeof one->mem, &one->mem};
    double tl[200], te[200];
    for (int r = 0; r < 200 && st == CLOPS_OK; r++) {
        double t0 = now_s();
        st = host_launch(d, empty, 1, &a1, 1);
        double t1 = now_s();
        if (st == CLOPS_OK)
            st = host_finish(d);
        tl[r] = now_s() - t0;
        te[r] = t1 - t0;
    }
    if (st == CLOPS_OK) {
        out->launch_us = median(tl, 200) * 1e6;
        out->enqueue_us = median(te, 200) * 1e6;
    }
    host_free(one);
    if (st)
        return st;

    /* A cold build: the same program with a source no cache has seen. */
    snprintf(sc.nonce, sizeof sc.nonce, "unique %ld.%ld", (long)getpid(), (long)(now_s() * 1e6));
    uint64_t tag = chk_hash_str(CHK_HASH_INIT, sc.nonce) | 2;
    host_kernel *cold = NULL;
    double t0 = now_s();
    st = get_kernel(d, "chk_copy4", tag, &sc, &cold);
    if (st == CLOPS_OK)
        out->build_cold_s = now_s() - t0;
    return st;
}

clops_status chk_time_program_build(clops_device *d, double *seconds)
{
    *seconds = NAN;
    if (host_is_cpu(d))
        return CLOPS_OK;
    src_ctx sc;
    snprintf(sc.nonce, sizeof sc.nonce, "reusable");
    host_kernel *k = NULL;
    double t0 = now_s();
    clops_status st = get_kernel(d, "chk_copy4", 1, &sc, &k);
    if (st == CLOPS_OK)
        *seconds = now_s() - t0;
    return st;
}

/* --- matrix peaks ------------------------------------------------------------------ */

/* The register-only arithmetic ceilings (as ../shared/probes measured them):
 * every work item runs MP_CHAINS independent float4 multiply-add chains
 * (FMA), or, on NVIDIA with matrix units (kit kind KIT_MMA), every warp
 * runs MP_CHAINS independent bfloat16 mma.sync m16n8k16 accumulations; the
 * operands stay in registers and the results are stored, so nothing is
 * optimised away and no memory traffic counts. */
#define MP_CHAINS 8
#define MP_ITERS 4096

/* The float32 multiply-add loops: one kernel per (vector width, chains).
 * Work item g runs `chains` independent floatW chains of iters multiply-adds
 * on values derived from g and s; the sums are stored. */
static const struct {
    const char *name;
    int width, chains;
    bool cpu; /* launched in work groups of one item (CPU devices) */
} fma_loops[] = {
    /* GPUs: work groups of 256, eight float8 chains per item. */
    {"chk_fma_peak", 8, MP_CHAINS, false},
    /* CPU devices (POCL runs one work item's loop at a time per thread: the
     * vector units must be filled inside the item, with enough independent
     * chains to cover the multiply-add latency): twelve chains of 8 lanes
     * (AVX2: twelve ymm registers) and of 16 lanes (AVX-512). Eight float8
     * chains reached 55 GFLOP/s on the 2-core development VM, twelve 95-100,
     * where its float32 mm ran at 64. */
    {"chk_fma_peak_cpu8", 8, 12, true},
    {"chk_fma_peak_cpu16", 16, 12, true},
};

static void fma_loop_source(strbuf *sb, const char *name, int w, int chains)
{
    sb_printf(sb,
              "__kernel void %s(__global float *out, int iters, float s, uint n)\n"
              "{\n"
              "    float%d x = (float%d)(s) + (float)get_global_id(0) * 1e-3f;\n",
              name, w, w);
    for (int c = 0; c < chains; c++)
        sb_printf(sb, "    float%d a%d = x + %d.0f;\n", w, c, c);
    sb_printf(sb, "    for (int i = 0; i < iters; i++) {\n");
    for (int c = 0; c < chains; c++)
        sb_printf(sb, "        a%d = mad(a%d, x, (float%d)s);\n", c, c, w);
    sb_printf(sb, "    }\n    float%d t = a0;\n", w);
    for (int c = 1; c < chains; c++)
        sb_printf(sb, "    t += a%d;\n", c);
    sb_printf(sb, "    float r = 0.0f;\n");
    for (int l = 0; l < w; l++)
        sb_printf(sb, "    r += t.s%c;\n", "0123456789abcdef"[l]);
    sb_printf(sb, "    if (get_global_id(0) < n)\n        out[get_global_id(0)] = r;\n}\n");
}

static clops_status matrix_source(void *vctx, const clops_device *d, strbuf *sb)
{
    bool mma = *(const bool *)vctx;
    (void)d;
    sb_printf(sb, "/* clops check engine: arithmetic ceilings */\n#define MP_CHAINS %d\n",
              MP_CHAINS);
    for (size_t i = 0; i < sizeof fma_loops / sizeof fma_loops[0]; i++)
        fma_loop_source(sb, fma_loops[i].name, fma_loops[i].width, fma_loops[i].chains);
    if (!mma)
        return CLOPS_OK;
    const char *hdr = NULL;
    clops_status st = host_cl_source("mma.clh", &hdr);
    if (st)
        return st;
    sb_printf(sb, "%s\n", hdr);
    sb_printf(sb,
              "__kernel void chk_mma_peak(__global float *out, int iters, float s, uint n)\n"
              "{\n"
              "    uint a[4], b[2];\n"
              "    uint bits = as_uint(s + (float)get_global_id(0));\n"
              "    for (int r = 0; r < 4; r++)\n"
              "        a[r] = (bits >> 16) * 0x10001u;\n"
              "    b[0] = b[1] = 0x3f803f80u; /* bfloat16 1.0 twice */\n"
              "    float d[MP_CHAINS][4];\n"
              "    for (int c = 0; c < MP_CHAINS; c++)\n"
              "        for (int r = 0; r < 4; r++)\n"
              "            d[c][r] = 0.0f;\n"
              "    for (int i = 0; i < iters; i++)\n"
              "        for (int c = 0; c < MP_CHAINS; c++)\n"
              "            MMA_M16N8K16_BF16(d[c], a, b);\n"
              "    float sum = 0.0f;\n"
              "    for (int c = 0; c < MP_CHAINS; c++)\n"
              "        sum += d[c][0] + d[c][1] + d[c][2] + d[c][3];\n"
              "    if (get_global_id(0) < n)\n"
              "        out[get_global_id(0)] = sum;\n"
              "}\n");
    return CLOPS_OK;
}

/* Times kernel `name` of the ceilings program on `items` work items (work
 * groups of wg) and returns GFLOP/s at flop_per_item_iter per item and
 * iteration (the best of reps runs). */
static clops_status time_peak(clops_device *d, bool mma, const char *name, size_t items,
                              size_t wg, double flop_per_item_iter, int reps, double *gflops)
{
    *gflops = NAN;
    host_kkey key = {{0x63686b7065616b73ull, mma, chk_hash_str(CHK_HASH_INIT, name), 1}};
    host_kernel_request req = {.program_name = mma ? "check/ceilings/mma" : "check/ceilings/fma",
                               .kernel_name = name,
                               .gen_source = matrix_source,
                               .ctx = &mma};
    host_kernel *k = NULL;
    clops_status st = host_kernel_get(d, &key, &req, &k);
    if (st)
        return st;
    host_block *out = NULL;
    if ((st = host_alloc(d, items * sizeof(float), &out)) != CLOPS_OK)
        return st;
    int iters = MP_ITERS;
    float sv = 1e-3f;
    cl_uint n = (cl_uint)items;
    host_arg args[4] = {{sizeof out->mem, &out->mem},
                        {sizeof iters, &iters},
                        {sizeof sv, &sv},
                        {sizeof n, &n}};
    double best = 0;
    for (int r = 0; r < reps + 1 && st == CLOPS_OK; r++) {
        double t0 = now_s();
        st = wg ? host_launch_local(d, k, 4, args, items, wg) : host_launch(d, k, 4, args, items);
        if (st == CLOPS_OK)
            st = host_finish(d);
        double t = now_s() - t0;
        if (st == CLOPS_OK && r > 0 && t > 0) { /* the first run warms up */
            double g = flop_per_item_iter * (double)items * iters / t / 1e9;
            best = g > best ? g : best;
        }
    }
    host_free(out);
    if (st == CLOPS_OK && best > 0)
        *gflops = best;
    return st;
}

clops_status chk_bench_matrix_peaks(clops_device *d, int reps, chk_device_figures *out)
{
    out->fma_peak_gflops = out->mma_peak_gflops = NAN;
    if (host_is_cpu(d)) /* the clops CPU device runs no OpenCL C */
        return CLOPS_OK;
    if (reps <= 0)
        reps = 3;
    const clops_device_info *in = clops_device_get_info(d);
    bool cpu = kit_kind_of(d) == KIT_CPU || !in->is_gpu;
    /* Enough items to fill every compute unit many times over. */
    size_t units = in->compute_units > 0 ? (size_t)in->compute_units : 1;
    size_t items = units * (cpu ? 64 : 2048);
    if (items > ((size_t)1 << 24))
        items = (size_t)1 << 24;
    /* The device kind's own loops; the best of them is the ceiling (a
     * loop that does not fill the vector units is no ceiling). */
    clops_status st = CLOPS_OK;
    for (size_t i = 0; i < sizeof fma_loops / sizeof fma_loops[0] && st == CLOPS_OK; i++) {
        if (fma_loops[i].cpu != cpu)
            continue;
        double g = NAN;
        st = time_peak(d, false, fma_loops[i].name, items, cpu ? 1 : 256,
                       2.0 * fma_loops[i].width * fma_loops[i].chains, reps, &g);
        if (st == CLOPS_OK && isfinite(g) &&
            !(isfinite(out->fma_peak_gflops) && out->fma_peak_gflops >= g))
            out->fma_peak_gflops = g;
    }
    if (st == CLOPS_OK && kit_kind_of(d) == KIT_MMA)
        st = time_peak(d, true, "chk_mma_peak", (units < 4096 ? units : 4096) * 32 * 32, 256,
                       2.0 * 16 * 8 * 16 / 32 * MP_CHAINS, reps, &out->mma_peak_gflops);
    return st;
}

double chk_matrix_ceiling(const chk_device_figures *fig, clops_dtype dt)
{
    if (!fig)
        return NAN;
    if ((dt == CLOPS_FLOAT16 || dt == CLOPS_BFLOAT16) && isfinite(fig->mma_peak_gflops))
        return fig->mma_peak_gflops;
    if (dt == CLOPS_FLOAT32 || dt == CLOPS_FLOAT16 || dt == CLOPS_BFLOAT16)
        return fig->fma_peak_gflops;
    return NAN;
}

/* --- bench cases ----------------------------------------------------------------------- */

/* The op's own bench case from its `bench` hint ({shapes, args}: one shape
 * set and one value per argument, model-sized), contiguous; false when the
 * op has none or it builds no case. */
static bool hinted_bench_case(const chk_opinfo *info, clops_dtype dt, chk_case *out)
{
    const cJSON *bench = chk_hint(info, "bench");
    if (!cJSON_IsObject(bench))
        return false;
    chk_opinfo alt = *info;
    alt.hints = cJSON_Duplicate(info->hints, true);
    if (!alt.hints)
        return false;
    alt.nfloat_nodes = 0; /* the copies: bench values with a fraction are floats anyway */
    for (const char *key = "shapes"; key; key = strcmp(key, "shapes") == 0 ? "args" : NULL) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(bench, key);
        cJSON_DeleteItemFromObjectCaseSensitive(alt.hints, key);
        if (v)
            cJSON_AddItemToObject(alt.hints, key, cJSON_Duplicate(v, true));
    }
    chk_case *cases = NULL;
    int n = 0;
    bool ok = chk_cases(&alt, CHK_SET_CI, dt, &cases, &n, NULL, 0) == CLOPS_OK && n > 0;
    if (ok) {
        *out = cases[0];
        for (int i = 0; i < out->nargs; i++) {
            out->args[i].t.layout = CHK_CONTIGUOUS;
            for (int k = 0; k < out->args[i].nlist; k++)
                out->args[i].list[k].layout = CHK_CONTIGUOUS;
        }
    }
    free(cases);
    cJSON_Delete(alt.hints);
    return ok;
}

bool chk_bench_case(const chk_opinfo *info, clops_dtype dt, int64_t elems, int64_t side,
                    chk_case *out)
{
    if ((elems > 0 || side > 0) && hinted_bench_case(info, dt, out))
        return true;
    chk_case *cases = NULL;
    int n = 0;
    if (chk_cases(info, CHK_SET_CI, dt, &cases, &n, NULL, 0) != CLOPS_OK || n == 0) {
        free(cases);
        return false;
    }
    *out = cases[0];
    free(cases);
    if (elems <= 0 && side <= 0)
        return true;
    bool hinted = cJSON_IsArray(chk_hint(info, "shapes"));
    int64_t cols = 1024, rows = elems / cols > 0 ? elems / cols : 1;
    char shape[96] = "";
    for (int i = 0; i < out->nargs; i++) {
        chk_argval *a = &out->args[i];
        if (a->role == CHK_ROLE_VALUE && a->tag == CLOPS_V_INT_LIST && info->ninputs == 0 &&
            strcmp(info->schema->args[i].name, "size") == 0) {
            a->nints = 2;
            a->ints[0] = rows;
            a->ints[1] = cols;
            snprintf(shape, sizeof shape, "[%lld, %lld]", (long long)rows, (long long)cols);
        }
        if ((a->role != CHK_ROLE_INPUT && a->role != CHK_ROLE_MUTATED) || a->t.none)
            continue;
        chk_tspec *t = &a->t;
        t->layout = CHK_CONTIGUOUS;
        if (hinted) {
            for (int d = 0; d < t->ndim; d++)
                if (t->sizes[d] > 1)
                    t->sizes[d] = t->ndim >= 3 && d < t->ndim - 2 ? 8 : side;
        } else {
            t->ndim = 2;
            t->sizes[0] = rows;
            t->sizes[1] = cols;
        }
        if (!shape[0]) {
            char s[80];
            clops__fmt_shape(s, sizeof s, t->ndim, t->sizes);
            snprintf(shape, sizeof shape, "%s", s);
        }
    }
    snprintf(out->name, sizeof out->name, "%s contiguous", shape[0] ? shape : "default");
    return true;
}

/* --- one op ---------------------------------------------------------------------------- */

/* Median seconds per call of p over reps batches (each at least ~2 ms);
 * *first_s receives the first call's wall time (the kernels' builds). */
static clops_status time_calls(chk_prepared *p, int reps, double *per_call, double *out_bytes,
                               double *first_s)
{
    double t0 = now_s();
    clops_status st = chk_prepared_call(p, true, out_bytes);
    *first_s = now_s() - t0;
    if (st == CLOPS_OK)
        st = chk_prepared_call(p, true, NULL);
    t0 = now_s();
    if (st == CLOPS_OK)
        st = chk_prepared_call(p, true, NULL);
    double one = now_s() - t0;
    int batch = one > 0 ? (int)ceil(2e-3 / one) : 64;
    if (batch < 1)
        batch = 1;
    if (batch > 64)
        batch = 64;
    double *t = calloc((size_t)reps, sizeof *t);
    if (!t)
        return clops__fail(CLOPS_HOST_OUT_OF_MEMORY, "bench: timings");
    for (int r = 0; r < reps && st == CLOPS_OK; r++) {
        t0 = now_s();
        for (int b = 0; b < batch && st == CLOPS_OK; b++)
            st = chk_prepared_call(p, b == batch - 1, NULL);
        t[r] = (now_s() - t0) / batch;
    }
    if (st == CLOPS_OK)
        *per_call = median(t, reps);
    free(t);
    return st;
}

/* Host time to issue one call of p (no waiting), over 100 calls. */
static clops_status host_cost(chk_prepared *p, double *us)
{
    clops_status st = CLOPS_OK;
    for (int i = 0; i < 3 && st == CLOPS_OK; i++)
        st = chk_prepared_call(p, i == 2, NULL);
    if (st)
        return st;
    double t0 = now_s();
    for (int i = 0; i < 100 && st == CLOPS_OK; i++)
        st = chk_prepared_call(p, false, NULL);
    double t1 = now_s();
    if (st == CLOPS_OK)
        st = chk_prepared_call(p, true, NULL);
    *us = (t1 - t0) / 100 * 1e6;
    return st;
}

static int64_t bench_elems(const chk_bench_sizes *sz, int ntensors);

clops_status chk_bench_peak_at_size(clops_device *d, const chk_bench_sizes *sz, int reps,
                                    chk_device_figures *out)
{
    if (host_is_cpu(d))
        return CLOPS_OK;
    if (reps <= 0)
        reps = 10;
    if (reps > 64)
        reps = 64;
    size_t bytes = (size_t)bench_elems(sz, 2) * 4;
    return copy_peak(d, bytes, true, reps, out);
}

void chk_bench_sizes_for(clops_device *const *devs, const chk_device_figures *figs, int n,
                         chk_bench_sizes *out)
{
    out->size_peak_gbs = NAN;
    out->max_alloc_bytes = out->mem_bytes = UINT64_MAX;
    out->side = 2048;
    out->describe = false;
    for (int k = 0; k < n; k++) {
        const clops_device_info *in = clops_device_get_info(devs[k]);
        double pk = figs ? figs[k].copy_peak_gbs : NAN;
        if (isfinite(pk) && (!isfinite(out->size_peak_gbs) || pk > out->size_peak_gbs))
            out->size_peak_gbs = pk;
        if (!in->is_gpu)
            out->side = 256;
        if (in->type == CLOPS_DEVICE_OPENCL && in->max_alloc_bytes &&
            in->max_alloc_bytes < out->max_alloc_bytes)
            out->max_alloc_bytes = in->max_alloc_bytes;
        if (in->type == CLOPS_DEVICE_OPENCL && in->global_mem_bytes &&
            in->global_mem_bytes < out->mem_bytes)
            out->mem_bytes = in->global_mem_bytes;
    }
}

/* Elements per tensor: a call moves ~2 ms of data at the fastest device's
 * copy peak, within [2^23, 2^26] (at least 32 MiB of float32 per tensor,
 * more than the last-level caches of the CPUs POCL runs on and of current
 * GPUs, so GB/s is memory bandwidth, comparable with the copy peak), and
 * within the smallest device's limits (one tensor of 8-byte elements under
 * its largest allocation, all of them under half its memory). */
static int64_t bench_elems(const chk_bench_sizes *sz, int ntensors)
{
    double peak = sz && isfinite(sz->size_peak_gbs) ? sz->size_peak_gbs : 20.0;
    int nt = ntensors > 0 ? ntensors : 1;
    double e = peak * 1e9 * 2e-3 / (4.0 * nt);
    if (e < 8388608)
        e = 8388608;
    if (e > 67108864)
        e = 67108864;
    if (sz && sz->max_alloc_bytes != UINT64_MAX && e > (double)sz->max_alloc_bytes / 8)
        e = (double)sz->max_alloc_bytes / 8;
    if (sz && sz->mem_bytes != UINT64_MAX && e * 8 * nt > (double)sz->mem_bytes / 2)
        e = (double)sz->mem_bytes / 2 / 8 / nt;
    return (int64_t)e & ~(int64_t)1023;
}

/* Empties a result's figures; status skip. */
static void bench_result_init(chk_bench_result *out, const clops_op *op, clops_device *d,
                              const char *dtype, int reps)
{
    memset(out, 0, sizeof *out);
    out->op = clops_op_name(op);
    snprintf(out->dtype, sizeof out->dtype, "%s", dtype);
    out->device = d->info.index;
    out->status = CHK_SKIP;
    out->gbs = out->gflops = out->ratio_to_peak = out->host_us = out->device_us = NAN;
    out->bytes = out->flop = NAN;
    out->cold_compile_s = out->warm_first_call_s = NAN;
    out->reps = reps > 0 ? reps : DEFAULT_REPS;
}

/* The launch log as text: "program:kernel, ...", then "CLBlast". */
static void launches_text(const host_launch_log *log, bool clblast, char *buf, size_t cap)
{
    size_t n = 0;
    buf[0] = '\0';
    for (int i = 0; i <= log->n && n < cap; i++) {
        const char *name = i < log->n ? log->names[i] : clblast ? "CLBlast" : NULL;
        if (name)
            n += (size_t)snprintf(buf + n, cap - n, "%s%s", n ? ", " : "", name);
    }
    if (log->more && n < cap)
        snprintf(buf + n, cap - n, ", %d more", log->more);
}

/* Times case c of info on d into out (device_us, bytes, GB/s and its
 * ratio to fig's copy peak, GFLOP/s for matrix products); the op's own
 * failure is returned, with out's figures NAN. */
static clops_status measure_case(const chk_opinfo *info, const chk_case *c, clops_device *d,
                                 const chk_device_figures *fig, bool describe,
                                 chk_bench_result *out)
{
    chk_prepared *p = NULL;
    clops_clear_error();
    double t0 = now_s();
    clops_status op_st = chk_prepare(info, c, d, true, &p);
    if (op_st == CLOPS_OK)
        op_st = clops_device_synchronize(d);
    double t1 = now_s();
    out->phase_inputs_s += t1 - t0;
    double per_call = NAN, out_bytes = 0;
    /* Which kernels the calls launch: the engine path of the row. */
    host_launch_log log;
    gemm_engine_stats g0, g1;
    gemm_engine_get_stats(&g0);
    host_launch_log_open(&log);
    if (op_st == CLOPS_OK)
        op_st = time_calls(p, out->reps, &per_call, &out_bytes, &out->phase_first_s);
    out->phase_timed_s += now_s() - t1 - out->phase_first_s;
    host_launch_log_close();
    gemm_engine_get_stats(&g1);
    launches_text(&log, g1.clblast_calls > g0.clblast_calls, out->launches,
                  sizeof out->launches);
    /* After the first calls: an out= tensor the op resized has its final
     * shape. */
    if (op_st == CLOPS_OK && describe && !(out->call = chk_prepared_json(p))) {
        chk_prepared_free(p);
        return clops__fail(CLOPS_HOST_OUT_OF_MEMORY, "bench: the call of %s as JSON",
                           info->name);
    }
    if (op_st == CLOPS_OK) {
        double bytes = chk_prepared_input_bytes(p) + out_bytes;
        out->device_us = per_call * 1e6;
        bool blas = info->reduce_arg >= 0 && clops_op_has_tag(info->op, "blas");
        /* A convolution (bench hint `flop: conv`, weight [Cout, Cin/groups,
         * k...], not transposed) is compute-bound too: 2 x result elements x
         * the weight elements per output channel. */
        const cJSON *flop = cJSON_GetObjectItemCaseSensitive(chk_hint(info, "bench"), "flop");
        bool conv = false, conv_model = cJSON_IsString(flop) && strcmp(flop->valuestring, "conv") == 0;
        int w = -1;
        for (int i = 0; i < c->nargs && conv_model; i++)
            if (strcmp(info->schema->args[i].name, "weight") == 0 && c->args[i].t.ndim >= 3 &&
                c->args[i].t.sizes[0] > 0)
                w = i;
        for (int i = 0; i < c->nargs && w >= 0; i++)
            if (strcmp(info->schema->args[i].name, "transposed") == 0 && c->args[i].b)
                w = -1;
        if (w >= 0 && out_bytes > 0) {
            const chk_tspec *t = &c->args[w].t;
            double res_elems = out_bytes / (double)clops_dtype_size(c->dtype);
            out->flop = 2.0 * res_elems * ((double)chk_numel(t->ndim, t->sizes) / (double)t->sizes[0]);
            out->gflops = out->flop / per_call / 1e9;
            blas = conv = true; /* no ratio to the copy peak */
        }
        /* Attention (bench hint `flop: attention`; query [..., Lq, D], key
         * [..., Lk, D], value [..., Lk, Dv]): the two products, 2 x Lq x Lk
         * x (D + Dv) per batch and head, whatever the kernel computes
         * besides (softmax, the logsumexp). */
        bool attn_model = cJSON_IsString(flop) && strcmp(flop->valuestring, "attention") == 0;
        if (attn_model && !conv && out_bytes > 0 && c->nargs >= 3 && c->args[0].t.ndim >= 2 &&
            c->args[1].t.ndim == c->args[0].t.ndim && c->args[2].t.ndim == c->args[0].t.ndim) {
            const chk_tspec *q = &c->args[0].t, *k = &c->args[1].t, *v = &c->args[2].t;
            int nd = q->ndim;
            double heads = (double)chk_numel(nd - 2, q->sizes);
            out->flop = 2.0 * heads * (double)q->sizes[nd - 2] * (double)k->sizes[nd - 2] *
                        (double)(q->sizes[nd - 1] + v->sizes[nd - 1]);
            out->gflops = out->flop / per_call / 1e9;
            blas = conv = true; /* compute-bound: no ratio to the copy peak */
        }
        /* An op that writes nothing (a view) moves no data: no GB/s. */
        if (out_bytes > 0) {
            out->bytes = bytes;
            out->gbs = bytes / per_call / 1e9;
        }
        /* Matrix products are compute-bound: GFLOP/s, no ratio to the
         * copy peak. */
        if (!blas && out_bytes > 0 && fig && isfinite(fig->copy_peak_gbs) &&
            fig->copy_peak_gbs > 0)
            out->ratio_to_peak = out->gbs / fig->copy_peak_gbs;
        if (blas && !conv && out_bytes > 0) {
            const chk_tspec *t = &c->args[info->reduce_arg].t;
            int dim = info->reduce_dim < 0 ? t->ndim + info->reduce_dim : info->reduce_dim;
            if (dim >= 0 && dim < t->ndim) {
                /* result elements: the output bytes over the dtype size */
                double res_elems = out_bytes / (double)clops_dtype_size(c->dtype);
                out->flop = 2.0 * res_elems * (double)t->sizes[dim];
                out->gflops = out->flop / per_call / 1e9;
            }
        }
    }
    /* Compute-bound rows against the device's arithmetic ceiling. */
    double ceiling = chk_matrix_ceiling(fig, c->dtype);
    if (op_st == CLOPS_OK && isfinite(out->gflops) && isfinite(ceiling) && ceiling > 0)
        out->ratio_to_peak = out->gflops / ceiling;
    chk_prepared_free(p);
    return op_st;
}

/* Records the op's failure in out (a refused dtype is a skip). */
static void bench_failed(clops_status op_st, chk_bench_result *out)
{
    bool refused = op_st == CLOPS_INVALID_DTYPE || op_st == CLOPS_UNSUPPORTED;
    cJSON_Delete(out->call);
    out->call = NULL;
    out->status = refused ? CHK_SKIP : CHK_ERROR;
    snprintf(out->message, sizeof out->message, "%s%s",
             refused ? "not supported for this dtype: " : "", clops_last_error());
    out->gbs = out->gflops = out->ratio_to_peak = out->device_us = out->host_us = NAN;
    out->bytes = out->flop = NAN;
}

clops_status chk_bench_op(const clops_op *op, clops_device *d, clops_dtype dt,
                          const chk_device_figures *fig, const chk_bench_sizes *sz, int reps,
                          chk_bench_result *out)
{
    bench_result_init(out, op, d, clops_dtype_name(dt), reps);
    chk_opinfo info;
    clops_status st = chk_opinfo_init(op, &info);
    if (st)
        return st;
    out->kernel = chk_resolve_kernel(op, d, out->kernel_name, sizeof out->kernel_name);
    chk_case big, small;
    int64_t side = sz ? sz->side : d->info.is_gpu ? 2048 : 256;
    if (info.skip[0] || !chk_bench_case(&info, dt, 0, 0, &small) ||
        !chk_bench_case(&info, dt, bench_elems(sz, info.ninputs + 1), side, &big)) {
        snprintf(out->message, sizeof out->message, "%s",
                 info.skip[0] ? info.skip : "no bench case for this dtype");
        snprintf(out->case_name, sizeof out->case_name, "-");
        chk_opinfo_free(&info);
        return CLOPS_OK;
    }
    snprintf(out->case_name, sizeof out->case_name, "%s", big.name);
    clops_status op_st = measure_case(&info, &big, d, fig, sz && sz->describe, out);
    if (op_st == CLOPS_OK) {
        chk_prepared *p = NULL;
        double t0 = now_s();
        op_st = chk_prepare(&info, &small, d, false, &p);
        double t1 = now_s();
        out->phase_inputs_s += t1 - t0;
        if (op_st == CLOPS_OK)
            op_st = host_cost(p, &out->host_us);
        chk_prepared_free(p);
        out->phase_host_s += now_s() - t1;
    }
    if (op_st == CLOPS_OK)
        out->status = CHK_PASS;
    else
        bench_failed(op_st, out);
    chk_opinfo_free(&info);
    return CLOPS_OK;
}

void chk_case_grow(chk_case *c, int64_t factor, const chk_opinfo *info)
{
    if (factor <= 1)
        return;
    for (int i = 0; i < c->nargs; i++) {
        chk_argval *a = &c->args[i];
        chk_tspec *ts[CHK_MAX_LIST + 1];
        int nt = 0;
        if (a->role == CHK_ROLE_INPUT || a->role == CHK_ROLE_MUTATED ||
            (a->role == CHK_ROLE_OUT && !a->t.from_result))
            ts[nt++] = &a->t;
        for (int k = 0; a->role == CHK_ROLE_LIST && k < a->nlist; k++)
            ts[nt++] = &a->list[k];
        for (int k = 0; k < nt; k++)
            for (int d = 0; d < ts[k]->ndim; d++)
                if (ts[k]->sizes[d] > 1 && ts[k]->sizes[d] <= INT64_MAX / factor)
                    ts[k]->sizes[d] *= factor;
        /* a factory's shape */
        if (a->role == CHK_ROLE_VALUE && a->tag == CLOPS_V_INT_LIST && info &&
            info->ninputs == 0 && strcmp(info->schema->args[i].name, "size") == 0)
            for (int d = 0; d < a->nints; d++)
                if (a->ints[d] > 1 && a->ints[d] <= INT64_MAX / factor)
                    a->ints[d] *= factor;
    }
    size_t len = strlen(c->name);
    snprintf(c->name + len, sizeof c->name - len, ", sizes x%lld", (long long)factor);
}

clops_status chk_bench_check_case(const chk_opinfo *info, const chk_case *c, clops_device *d,
                                  const chk_device_figures *fig, int reps, chk_bench_result *out)
{
    bench_result_init(out, info->op, d, c->dtype_label, reps);
    out->kernel = chk_resolve_kernel(info->op, d, out->kernel_name, sizeof out->kernel_name);
    snprintf(out->case_name, sizeof out->case_name, "%s", c->name);
    clops_status op_st = measure_case(info, c, d, fig, false, out);
    if (op_st == CLOPS_OK) {
        out->status = CHK_PASS;
        return CLOPS_OK;
    }
    bench_failed(op_st, out);
    /* A case the CPU reference refuses too (a dim out of range for a
     * zero-dim input) is a skip, as `clops check` judges it. */
    clops_device *cpu = NULL;
    char msg[sizeof out->message];
    snprintf(msg, sizeof msg, "%s", out->message);
    if (out->status == CHK_ERROR && clops_device_get(0, &cpu) == CLOPS_OK && cpu != d &&
        chk_call_case(info, c, cpu, NULL) != CLOPS_OK) {
        out->status = CHK_SKIP;
        snprintf(out->message, sizeof out->message, "the reference refuses it too: %.470s", msg);
    }
    clops_clear_error();
    return CLOPS_OK;
}

clops_status chk_first_call(const clops_op *op, clops_device *d, clops_dtype dt, double *seconds,
                            char *msg, size_t cap)
{
    *seconds = NAN;
    if (msg && cap)
        msg[0] = '\0';
    chk_opinfo info;
    clops_status st = chk_opinfo_init(op, &info);
    if (st)
        return st;
    chk_case c;
    if (info.skip[0] || !chk_bench_case(&info, dt, 0, 0, &c)) {
        if (msg && cap)
            snprintf(msg, cap, "%s", info.skip[0] ? info.skip : "no case for this dtype");
        chk_opinfo_free(&info);
        return CLOPS_OK;
    }
    st = chk_call_case(&info, &c, d, seconds);
    if (st) {
        *seconds = NAN;
        if (msg && cap)
            snprintf(msg, cap, "%s", clops_last_error());
    }
    chk_opinfo_free(&info);
    return st;
}
