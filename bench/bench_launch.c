/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench/bench_launch.c: the launch-policy probe.  The same memory-bound work
 * (a float4 copy, a float add, exp, a transposed rank-2 add) written as
 * kernel variants and launched with different geometries, timed side by
 * side in one run on each device, so the cost of a launch policy is
 * measured rather than guessed (issue 19: clops on POCL far below what the
 * same CPU does).
 *
 *     bench_launch [--device SEL]... [--scale S] [--reps N]
 *
 * Variants, per case:
 *   gridstride/gpu   for (i = gid; i < n; i += global) with the GPU policy's
 *                    grid (at most max_groups groups of wg_size): what clops
 *                    launched everywhere before issue 19;
 *   gridstride/full  the same code with one work item per element;
 *   chunk/K          each work item walks a contiguous chunk of n / (K items)
 *                    elements with a serial loop (K = compute units x 1, 4, 16);
 *   chunkvec         the chunked loop with vload4/vstore4 (float4 lanes);
 *   (transposed add) divmod per element versus a hoisted base index stepped
 *                    along the innermost dim;
 *   (2-byte dtypes)  chunked only: a ushort8 copy, float16 add through
 *                    vload_half8, bfloat16 add converted lane by lane
 *                    through scalar helpers or as whole vectors.
 * Figures are GB/s (bytes each kernel must move) and, per case, the ratio to
 * the best variant.  Run with POCL_AFFINITY=1, POCL_WORK_GROUP_METHOD=...
 * etc. in the environment to see what POCL's own knobs do.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clops/ops.h"
#include "host/host.h"
#include "bench/bench_common.h"

static const char probe_src[] =
    "__kernel void gs_copy4(__global float4 *d, __global const float4 *s, ulong n)\n"
    "{ for (ulong i = get_global_id(0); i < n; i += get_global_size(0)) d[i] = s[i]; }\n"
    "__kernel void ck_copy4(__global float4 *d, __global const float4 *s, ulong n, ulong chunk)\n"
    "{ ulong b = get_global_id(0) * chunk, e = min(b + chunk, n);\n"
    "  for (ulong i = b; i < e; i++) d[i] = s[i]; }\n"
    "__kernel void gs_add(__global float *o, __global const float *a, __global const float *b, ulong n)\n"
    "{ for (ulong i = get_global_id(0); i < n; i += get_global_size(0)) o[i] = a[i] + b[i]; }\n"
    "__kernel void ck_add(__global float *o, __global const float *a, __global const float *b, ulong n, ulong chunk)\n"
    "{ ulong s = get_global_id(0) * chunk, e = min(s + chunk, n);\n"
    "  for (ulong i = s; i < e; i++) o[i] = a[i] + b[i]; }\n"
    "__kernel void gs_add4(__global float *o, __global const float *a, __global const float *b, ulong n)\n"
    "{ for (ulong i = get_global_id(0); i < n / 4; i += get_global_size(0))\n"
    "    vstore4(vload4(i, a) + vload4(i, b), i, o); }\n"
    "__kernel void ck_add4(__global float *o, __global const float *a, __global const float *b, ulong n, ulong chunk)\n"
    "{ ulong s = get_global_id(0) * chunk, e = min(s + chunk, n / 4);\n"
    "  for (ulong i = s; i < e; i++) vstore4(vload4(i, a) + vload4(i, b), i, o); }\n"
    "__kernel void gs_exp(__global float *o, __global const float *a, __global const float *b, ulong n)\n"
    "{ for (ulong i = get_global_id(0); i < n; i += get_global_size(0)) o[i] = exp(a[i]); }\n"
    "__kernel void ck_exp(__global float *o, __global const float *a, __global const float *b, ulong n, ulong chunk)\n"
    "{ ulong s = get_global_id(0) * chunk, e = min(s + chunk, n);\n"
    "  for (ulong i = s; i < e; i++) o[i] = exp(a[i]); }\n"
    /* out[r][c] = a[c][r] + b[r][c], rank 2, side N: o = r*N + c. */
    "__kernel void gs_tadd(__global float *o, __global const float *a, __global const float *b, ulong n, uint N)\n"
    "{ for (uint i = get_global_id(0); i < (uint)n; i += get_global_size(0)) {\n"
    "    uint c = i % N, r = i / N; o[i] = a[c * N + r] + b[r * N + c]; } }\n"
    "__kernel void ck_tadd(__global float *o, __global const float *a, __global const float *b, ulong n, uint N, ulong chunk)\n"
    "{ uint s = get_global_id(0) * (uint)chunk, e = min(s + (uint)chunk, (uint)n);\n"
    "  if (s >= e) return;\n"
    "  uint c = s % N, r = s / N, oa = c * N + r, ob = s;\n"
    "  for (uint i = s; i < e; i++) { o[i] = a[oa] + b[ob]; ob++; oa += N;\n"
    "    if (++c == N) { c = 0; r++; oa = r; } } }\n"
    /* 2-byte adds over n / 8 vectors of 8 (chunked only): a ushort8 copy
     * (the 2-byte peak), float16 through vload_half8/vstore_half8_rte, and
     * bfloat16 converted lane by lane through the prelude's scalar helpers
     * (what the generated kernels did) or as whole vectors. */
    "#define CK8 ulong s = get_global_id(0) * chunk, e = min(s + chunk, n / 8);\n"
    "__kernel void ck_cp16(__global ushort *o, __global const ushort *a, __global const ushort *b, ulong n, ulong chunk)\n"
    "{ CK8 for (ulong i = s; i < e; i++) vstore8(vload8(i, a), i, o); }\n"
    "__kernel void ck_hadd(__global half *o, __global const half *a, __global const half *b, ulong n, ulong chunk)\n"
    "{ CK8 for (ulong i = s; i < e; i++) vstore_half8_rte(vload_half8(i, a) + vload_half8(i, b), i, o); }\n"
    "float bf2f(ushort b) { return as_float(((uint)b) << 16); }\n"
    "ushort f2bf(float f) { uint u = as_uint(f); if ((u & 0x7fffffffu) > 0x7f800000u) return (ushort)0x7fc0;\n"
    "  u += 0x7fffu + ((u >> 16) & 1u); return (ushort)(u >> 16); }\n"
    "#define L8(F, v) (F(v.s0), F(v.s1), F(v.s2), F(v.s3), F(v.s4), F(v.s5), F(v.s6), F(v.s7))\n"
    "__kernel void ck_bfadd(__global ushort *o, __global const ushort *a, __global const ushort *b, ulong n, ulong chunk)\n"
    "{ CK8 for (ulong i = s; i < e; i++) { ushort8 x = vload8(i, a), y = vload8(i, b);\n"
    "    float8 r = (float8)L8(bf2f, x) + (float8)L8(bf2f, y); vstore8((ushort8)L8(f2bf, r), i, o); } }\n"
    "float8 bf2f8(ushort8 b) { return as_float8(convert_uint8(b) << 16); }\n"
    "ushort8 f2bf8(float8 f) { uint8 u = as_uint8(f);\n"
    "  uint8 r = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;\n"
    "  return convert_ushort8(select(r, (uint8)0x7fc0u, (u & 0x7fffffffu) > 0x7f800000u)); }\n"
    "__kernel void ck_bfaddv(__global ushort *o, __global const ushort *a, __global const ushort *b, ulong n, ulong chunk)\n"
    "{ CK8 for (ulong i = s; i < e; i++) vstore8(f2bf8(bf2f8(vload8(i, a)) + bf2f8(vload8(i, b))), i, o); }\n";

typedef struct probe {
    clops_device *d;
    host_kernel *k;
    cl_mem o, a, b;
    cl_ulong n, chunk;
    cl_uint side;
    int form;     /* 0 copy (o, a, n), 1 elementwise (o, a, b, n), 2 transposed (+ side) */
    bool chunked; /* passes chunk as the last argument */
    size_t global, local;
} probe;

static clops_status run_probe(void *vctx)
{
    probe *p = vctx;
    host_arg args[6];
    int na = 0;
    args[na++] = (host_arg){sizeof p->o, &p->o};
    args[na++] = (host_arg){sizeof p->a, &p->a};
    if (p->form)
        args[na++] = (host_arg){sizeof p->b, &p->b};
    args[na++] = (host_arg){sizeof p->n, &p->n};
    if (p->form == 2)
        args[na++] = (host_arg){sizeof p->side, &p->side};
    if (p->chunked)
        args[na++] = (host_arg){sizeof p->chunk, &p->chunk};
    return host_launch_local(p->d, p->k, na, args, p->global, p->local);
}

static clops_status probe_source(void *ctx, const clops_device *d, strbuf *sb)
{
    (void)ctx;
    (void)d;
    sb_append(sb, probe_src);
    return CLOPS_OK;
}

/* Kernel `name` of the probe program. */
static clops_status probe_kernel(clops_device *d, const char *name, host_kernel **out)
{
    uint64_t h = 1469598103934665603ull;
    for (const char *c = name; *c; c++)
        h = (h ^ (unsigned char)*c) * 1099511628211ull;
    host_kkey key = {{0x70726f62656c6e63ull, h, 0, 0}};
    host_kernel_request req = {
        .program_name = "bench/launch-probe", .kernel_name = name, .gen_source = probe_source};
    return host_kernel_get(d, &key, &req, out);
}

/* Times one variant; prints it; returns GB/s (0 on error). */
static double variant(probe *p, const char *kname, const char *label, double bytes, int reps)
{
    clops_status st = probe_kernel(p->d, kname, &p->k);
    double t = 0;
    if (st == CLOPS_OK)
        t = time_calls(p->d, run_probe, p, reps, 5, &st);
    if (st) {
        printf("    %-34s error: %s\n", label, clops_last_error());
        return 0;
    }
    double gbs = bytes / t / 1e9;
    printf("    %-34s %8.1f GB/s %10.1f us  (global %zu, local %zu)\n", label, gbs, t * 1e6,
           p->global, p->local);
    return gbs;
}

/* Runs every launch variant of one kernel pair (gs_X, ck_X) over `items`
 * work units (elements, or float4s for copy4/add4). */
static void case_variants(probe *p, const char *x, uint64_t items, double bytes, int reps)
{
    char gs[32], ck[32], label[64];
    snprintf(gs, sizeof gs, "gs_%s", x);
    snprintf(ck, sizeof ck, "ck_%s", x);
    size_t cu = clops_device_get_info(p->d)->compute_units;
    size_t wg = p->d->wg_size;
    p->chunked = false;
    p->local = wg;
    p->global = (size_t)cu * (clops_device_get_info(p->d)->is_gpu ? 32 : 4) * wg;
    if (p->global > items)
        p->global = host_grid_size(p->d, &(host_kernel){.wg_size = wg}, items);
    variant(p, gs, "gridstride/gpu policy", bytes, reps);
    p->global = (size_t)((items + wg - 1) / wg * wg);
    variant(p, gs, "gridstride/full grid", bytes, reps);
    const size_t mult[] = {1, 4, 16, 64};
    for (size_t m = 0; m < sizeof mult / sizeof mult[0]; m++) {
        size_t nitems = cu * mult[m];
        p->chunk = (items + nitems - 1) / nitems;
        p->chunked = true;
        p->global = nitems;
        p->local = 1;
        snprintf(label, sizeof label, "chunk/%zu items x %llu", nitems,
                 (unsigned long long)p->chunk);
        variant(p, ck, label, bytes, reps);
    }
    p->chunked = false;
}

/* The chunked kernel ck_X alone, 4 work items per compute unit, over n / 8
 * vectors (the 2-byte cases). */
static void case_chunk8(probe *p, const char *x, const char *label, double bytes, int reps)
{
    char ck[32];
    snprintf(ck, sizeof ck, "ck_%s", x);
    size_t nitems = clops_device_get_info(p->d)->compute_units * 4;
    p->chunk = (p->n / 8 + nitems - 1) / nitems;
    p->chunked = true;
    p->global = nitems;
    p->local = 1;
    variant(p, ck, label, bytes, reps);
    p->chunked = false;
}

int main(int argc, char **argv)
{
    bench_args args;
    if (!bench_parse_args(argc, argv, "bench_launch", false, &args))
        return 2;
    int64_t n1 = (int64_t)((double)(1 << 26) / args.scale);
    n1 -= n1 % 64;
    cl_uint side = (cl_uint)(8192 / sqrt(args.scale));
    int ndev = 0;
    clops_device_count(&ndev);
    for (int di = 1; di < ndev; di++) {
        clops_device *d = bench_selected(&args, di);
        if (!d)
            continue;
        const clops_device_info *in = clops_device_get_info(d);
        printf("device %s: %s (%s, driver %s), %u compute units, wg %zu\n",
               clops_device_label(d), in->name, in->platform_name, in->driver_version,
               (unsigned)in->compute_units, d->wg_size);
        size_t bytes = (size_t)n1 * 4;
        if ((size_t)side * side * 4 > bytes)
            bytes = (size_t)side * side * 4;
        host_block *o = NULL, *a = NULL, *b = NULL;
        if (host_alloc(d, bytes, &o) || host_alloc(d, bytes, &a) || host_alloc(d, bytes, &b)) {
            printf("  alloc failed: %s\n", clops_last_error());
        } else {
            probe p = {.d = d, .o = o->mem, .a = a->mem, .b = b->mem};
            unsigned char *fill = calloc(1, bytes);
            if (fill) {
                host_write(d, a->mem, 0, fill, bytes);
                host_write(d, b->mem, 0, fill, bytes);
                host_write(d, o->mem, 0, fill, bytes);
                free(fill);
            }
            p.n = (cl_ulong)(n1 / 4);
            p.form = 0;
            printf("  copy4 (float4 copy, %lld floats)\n", (long long)n1);
            case_variants(&p, "copy4", p.n, 8.0 * (double)n1, args.reps);
            p.form = 1;
            p.n = (cl_ulong)n1;
            printf("  add float32 scalar lanes\n");
            case_variants(&p, "add", p.n, 12.0 * (double)n1, args.reps);
            printf("  add float32 float4 lanes\n");
            case_variants(&p, "add4", p.n / 4, 12.0 * (double)n1, args.reps);
            printf("  exp float32\n");
            case_variants(&p, "exp", p.n, 8.0 * (double)n1, args.reps);
            printf("  2-byte dtypes, chunk per item (4 items per compute unit)\n");
            case_chunk8(&p, "cp16", "ushort8 copy", 4.0 * (double)n1, args.reps);
            case_chunk8(&p, "hadd", "float16 add, vload_half8", 6.0 * (double)n1, args.reps);
            case_chunk8(&p, "bfadd", "bfloat16 add, lane by lane", 6.0 * (double)n1, args.reps);
            case_chunk8(&p, "bfaddv", "bfloat16 add, vector convert", 6.0 * (double)n1, args.reps);
            p.form = 2;
            p.side = side;
            p.n = (cl_ulong)side * side;
            printf("  transposed add [%u,%u]: divmod per element vs stepped base\n", side, side);
            case_variants(&p, "tadd", p.n, 12.0 * (double)p.n, args.reps);
        }
        host_free(o);
        host_free(a);
        host_free(b);
    }
    clops_shutdown();
    return 0;
}
