/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/test_gemm_engine.c: clops' matrix engine (ops/gemm/gemm_engine.c,
 * cl_kernels/gemm.cl) on every OpenCL device, called at its seam
 * (gemm_engine_cl on 3-D views) and through the ops.
 *
 * Each product is computed twice from the same bits: by the engine on the
 * device and by the CPU reference (ref_gemm, float64 accumulation, one
 * rounding) on the same views of a CPU copy.  Operands are views of 1-D
 * buffers: A with unit stride along K or M, B along K or N (the four
 * NN/NT/TN/TT layouts), leading dimensions and batch strides either
 * multiples of 8 elements with 8-element offsets (what the cp.async staging
 * of the matrix-unit atoms needs) or odd with odd offsets (which must fall
 * back, not fault), batches packed or broadcast (stride 0).  Elements of A
 * and B outside the views hold NaN, so a read past a view shows; elements
 * of C outside its view hold a sentinel that must survive.
 *
 * Tolerance rule (docs/gemm.md): the engine accumulates in float32 and
 * rounds once, the reference accumulates in float64 and rounds once, values
 * lie in (-1, 1) and |alpha|, |beta| <= 1.5, so the results may differ by
 *     atol = K * 2^-22 * 1.5   (K float32 accumulation steps, each allowed
 *                               4 float32 ulps of 1, times |alpha|)
 * or 2 ulps of the result in float32 (1 ulp in float16/bfloat16: both sides
 * round once, half an ulp each); float32 as TF32 (precision "high")
 * K * 2^-10 * 1.5 (inputs rounded to 10 mantissa bits), twice that where
 * wgmma reads them truncated (GEMM_TF32_TRUNC: gemm_engine_tf32_convert).
 *
 * POCL compiles one program per dtype (the CPU atom takes every layout);
 * shapes stay small so the whole file runs in seconds once compiled.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clops/matmul.h"
#include "clops/ops.h"
#include "host/host.h"
#include "core/debug.h"
#include "ops/gemm/gemm.h"
#include "ops/gemm/gemm_tma.h"
#include "support/clops_test.h"
#include "ref/tf32_split.clh"

static const clops_dtype dtypes[] = {CLOPS_FLOAT32, CLOPS_FLOAT16, CLOPS_BFLOAT16};

/* The bits of NaN, or of the C sentinel 7, in dtype dt at element i of buf. */
static void put_float(void *buf, int64_t i, clops_dtype dt, float v)
{
    if (dt == CLOPS_FLOAT32)
        ((float *)buf)[i] = v;
    else if (dt == CLOPS_FLOAT16)
        ((uint16_t *)buf)[i] = clops_float_to_half(v);
    else
        ((uint16_t *)buf)[i] = clops_float_to_bfloat16(v);
}

static float get_float(const void *buf, int64_t i, clops_dtype dt)
{
    if (dt == CLOPS_FLOAT32)
        return ((const float *)buf)[i];
    if (dt == CLOPS_FLOAT16)
        return clops_half_to_float(((const uint16_t *)buf)[i]);
    return clops_bfloat16_to_float(((const uint16_t *)buf)[i]);
}

/* A [batch, r, c] operand: its geometry in a 1-D buffer. */
typedef struct opnd {
    int64_t sizes[3], strides[3], off, total;
} opnd;

static int64_t round8(int64_t x)
{
    return (x + 7) / 8 * 8;
}

/* unit_cols: unit stride along c (else along r); aligned: leading dimension,
 * batch stride and offset multiples of 8 (else odd); bcast: batch stride 0. */
static opnd geom(int64_t batch, int64_t r, int64_t c, bool unit_cols, bool aligned, bool bcast)
{
    opnd o;
    int64_t len = unit_cols ? c : r, other = unit_cols ? r : c;
    int64_t ld = aligned ? round8(len) : len + 3;
    int64_t span = r == 0 || c == 0 ? 0 : ld * (other - 1) + len;
    int64_t bs = bcast ? 0 : aligned ? round8(span + 4) : span + 1;
    o.sizes[0] = batch, o.sizes[1] = r, o.sizes[2] = c;
    o.strides[0] = bs;
    o.strides[1] = unit_cols ? ld : 1;
    o.strides[2] = unit_cols ? 1 : ld;
    o.off = aligned ? 8 : 5;
    o.total = o.off + (bcast ? 0 : (batch - 1) * bs) + span + 2;
    return o;
}

/* Host contents of an operand's buffer: random values of dt at the view's
 * elements (seed), `gap` elsewhere; *inview marks the view's elements. */
static void *host_buffer(const opnd *o, clops_dtype dt, uint64_t seed, float gap, bool **inview)
{
    size_t es = clops_dtype_size(dt);
    void *buf = malloc((size_t)o->total * es);
    bool *mask = calloc((size_t)o->total, 1);
    CT_ASSERT(buf && mask);
    int64_t nvals = o->sizes[0] * o->sizes[1] * o->sizes[2];
    void *vals = malloc((size_t)(nvals > 0 ? nvals : 1) * es);
    CT_ASSERT(vals != NULL);
    ct_rng rng = ct_rng_seeded(seed);
    ct_fill(vals, nvals, dt, PW_DOMAIN_UNIT, &rng);
    for (int64_t i = 0; i < o->total; i++)
        put_float(buf, i, dt, gap);
    int64_t v = 0;
    for (int64_t b = 0; b < o->sizes[0]; b++)
        for (int64_t i = 0; i < o->sizes[1]; i++)
            for (int64_t j = 0; j < o->sizes[2]; j++, v++) {
                int64_t p = o->off + b * o->strides[0] + i * o->strides[1] + j * o->strides[2];
                if (!mask[p])
                    memcpy((char *)buf + p * (int64_t)es, (char *)vals + v * (int64_t)es, es);
                mask[p] = true;
            }
    free(vals);
    if (inview)
        *inview = mask;
    else
        free(mask);
    return buf;
}

/* The buffer on d and the view of it. */
static void upload(clops_device *d, clops_dtype dt, const opnd *o, const void *host,
                   clops_tensor **base, clops_tensor **view)
{
    CT_OK(clops_empty(d, dt, 1, &o->total, base));
    CT_OK(clops_tensor_from_host(*base, host, (size_t)o->total * clops_dtype_size(dt)));
    CT_OK(core_as_strided(*base, o->sizes, 3, o->strides, 3, &o->off, view));
}

/* Products checked with TF32's tolerance (float32_under_high_precision),
 * or 3xTF32's (float32_highest_on_3xtf32: K * 2^-20 * 1.5). */
static bool tf32_tol, x3_tol;

typedef struct pcase {
    int64_t batch, m, n, k;
    bool aligned, bcast_a, bcast_b;
    double alpha, beta;
} pcase;

/* Runs one product on d and on the CPU and compares; returns the device
 * result's buffer (host memory, malloc'd) when keep. */
static void *check_product(clops_device *d, clops_dtype dt, const pcase *pc, bool a_uk, bool b_uk,
                           bool keep)
{
    opnd oa = geom(pc->batch, pc->m, pc->k, a_uk, pc->aligned, pc->bcast_a);
    opnd ob = geom(pc->batch, pc->k, pc->n, !b_uk, pc->aligned, pc->bcast_b);
    opnd oc = geom(pc->batch, pc->m, pc->n, true, pc->aligned, false);
    const float sentinel = 7.0f;
    bool *cmask = NULL;
    void *ha = host_buffer(&oa, dt, 11, NAN, NULL);
    void *hb = host_buffer(&ob, dt, 12, NAN, NULL);
    /* beta == 0: C's own values are NaN and must not reach the result. */
    void *hc = host_buffer(&oc, dt, 13, sentinel, &cmask);
    if (pc->beta == 0.0)
        for (int64_t i = 0; i < oc.total; i++)
            if (cmask[i])
                put_float(hc, i, dt, NAN);
    clops_tensor *ba, *bb, *bc, *va, *vb, *vc, *xa, *xb, *xc, *ya, *yb, *yc;
    upload(d, dt, &oa, ha, &ba, &va);
    upload(d, dt, &ob, hb, &bb, &vb);
    upload(d, dt, &oc, hc, &bc, &vc);
    clops_device *cpu = ct_cpu();
    upload(cpu, dt, &oa, ha, &xa, &ya);
    upload(cpu, dt, &ob, hb, &xb, &yb);
    upload(cpu, dt, &oc, hc, &xc, &yc);
    clops_scalar al = clops_scalar_float(pc->alpha), be = clops_scalar_float(pc->beta);
    CT_OK(gemm_engine_cl("test", va, vb, vc, al, be));
    CT_OK(ref_gemm("test", ya, yb, yc, al, be));
    double kk = (double)(pc->k > 0 ? pc->k : 1);
    /* (TF32 by truncation: each operand's error below one TF32 ulp, not
     * half of one) */
    double tf32_u = gemm_engine_tf32_convert() == GEMM_TF32_TRUNC ? 0x1p-9 : 0x1p-10;
    ct_tol tol = ct_tol_ulp_atol(dt == CLOPS_FLOAT32 ? 2 : 1,
                                 kk * (tf32_tol ? tf32_u : x3_tol ? 0x1p-20 : 0x1p-22) * 1.5);
    CT_ASSERT_CLOSE(vc, yc, tol);
    /* Memory around C's view is untouched. */
    void *out = ct_to_host(bc);
    for (int64_t i = 0; i < oc.total; i++)
        if (!cmask[i])
            CT_ASSERT_MSG(get_float(out, i, dt) == sentinel, "element %lld outside C changed",
                          (long long)i);
    clops_tensor *all[] = {ba, bb, bc, va, vb, vc, xa, xb, xc, ya, yb, yc};
    for (size_t i = 0; i < CT_COUNT(all); i++)
        clops_tensor_release(all[i]);
    free(ha);
    free(hb);
    free(hc);
    free(cmask);
    if (keep)
        return out;
    free(out);
    return NULL;
}

/* The counter of a path named by gemm_engine_path. */
static uint64_t path_calls(const gemm_engine_stats *s, const char *path)
{
    return strcmp(path, "mma") == 0       ? s->mma_calls
           : strcmp(path, "cpu") == 0     ? s->cpu_calls
           : strcmp(path, "clblast") == 0 ? s->clblast_calls
                                          : s->fma_calls;
}

static const char *const lay_names[] = {"A M-major", "A K-major"};
static const char *const lay_names_b[] = {"B N-major", "B K-major"};

/* The wgmma paths not yet run on a GPU (the warp-specialised
 * configurations, TF32 through wgmma: docs/gemm.md) are tested only with
 * CLOPS_TEST_WGMMA_NEW=1, so that a hang there cannot stall a shared GPU
 * job before their first run. */
static bool wgmma_new_on(void)
{
    const char *v = getenv("CLOPS_TEST_WGMMA_NEW");
    return v && strcmp(v, "1") == 0;
}

/* CLOPS_TEST_WGMMA_ONLY=NAME1,NAME2..: only the wgmma configurations named
 * are forced (GPU jobs short of time run several processes side by side). */
static bool wgmma_config_listed(const char *name)
{
    const char *v = getenv("CLOPS_TEST_WGMMA_ONLY");
    if (!v || !*v)
        return true;
    while (*v) {
        size_t n = strcspn(v, ",");
        if (n && strlen(name) == n && strncmp(name, v, n) == 0)
            return true;
        v += n + (v[n] == ',');
    }
    return false;
}

/* Seconds on a monotonic clock. */
static double mono_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* CLOPS_TEST_TIMING=1 (GPU jobs: the whole test must fit one): where the
 * time goes, to the standard error — each test function's wall time, and
 * in the wgmma test one line per configuration and dtype with the
 * programs built. */
static bool timing_on(void)
{
    const char *v = getenv("CLOPS_TEST_TIMING");
    return v && strcmp(v, "1") == 0;
}

static void wgmma_time_line(clops_device *d, const char *what, double t0,
                            const host_kcache_stats *k0)
{
    if (!timing_on())
        return;
    host_kcache_stats k1;
    host_kcache_get_stats(d, &k1);
    fprintf(stderr, "test_gemm_engine: %s: %.1f s, %llu programs built in %.1f s, %llu loaded\n",
            what, mono_seconds() - t0, (unsigned long long)(k1.programs_built - k0->programs_built),
            k1.build_seconds - k0->build_seconds,
            (unsigned long long)(k1.programs_loaded - k0->programs_loaded));
}

/* NVIDIA compute capability 9.0 (H100, H200): where wgmma runs. */
static bool is_hopper(const clops_device *d)
{
    return d->info.vendor == CLOPS_VENDOR_NVIDIA && d->nv_cc_major == 9 && d->nv_cc_minor == 0;
}

/* Every dtype x layout x odd sizes, batches broadcast, offsets aligned and
 * not, beta 0 / 1 / other. */
static void engine_matches_reference_in_every_layout(void **state)
{
    (void)state;
    static const pcase cases[] = {
        {1, 1, 1, 1, false, false, false, 1.0, 0.0},
        {2, 7, 5, 3, false, true, false, 1.5, 1.0},
        {3, 127, 33, 65, false, false, true, 1.0, -0.5},
        {1, 1000, 7, 127, false, false, false, -1.0, 0.0},
        {1, 3, 130, 1000, false, false, false, 1.0, 1.0},
        {2, 136, 72, 80, true, false, false, 1.0, 0.0},
        {3, 70, 150, 48, true, true, false, 0.5, 1.5},
        {2, 129, 17, 41, true, false, true, 1.0, 1.0},
    };
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_opencl_devices(devs, CT_MAX_DEVICES);
    for (int di = 0; di < nd; di++) {
        clops_device *d = devs[di];
        ct_set_device(d);
        for (size_t t = 0; t < CT_COUNT(dtypes); t++) {
            gemm_engine_stats s0, s1;
            gemm_engine_get_stats(&s0);
            for (int lay = 0; lay < 4; lay++)
                for (size_t ci = 0; ci < CT_COUNT(cases); ci++) {
                    const pcase *pc = &cases[ci];
                    ct_set_case("%s, %s, %s, [%lld] %lldx%lldx%lld, %s, alpha %g beta %g",
                                clops_dtype_name(dtypes[t]), lay_names[lay >> 1],
                                lay_names_b[lay & 1], (long long)pc->batch, (long long)pc->m,
                                (long long)pc->n, (long long)pc->k,
                                pc->aligned ? "aligned" : "odd offsets", pc->alpha, pc->beta);
                    check_product(d, dtypes[t], pc, lay >> 1, lay & 1, false);
                }
            gemm_engine_get_stats(&s1);
            /* Every product took the path the engine names for the dtype
             * (CLBlast for float32 on GPUs). */
            /* (or, on GPUs, the skinny path for M or N <= 16). */
            const char *path = gemm_engine_path(d, dtypes[t]);
            uint64_t took = path_calls(&s1, path) - path_calls(&s0, path);
            if (strcmp(path, "clblast") != 0)
                took += s1.skinny_calls - s0.skinny_calls;
            CT_ASSERT_MSG(took == 4 * CT_COUNT(cases), "%s: %llu of %zu products took the %s path",
                          clops_dtype_name(dtypes[t]), (unsigned long long)took,
                          4 * CT_COUNT(cases), path);
        }
    }
    ct_clear_context();
}

static int first_wg_config(void);

/* float32's products of the precision tests: aligned and odd, batched and
 * broadcast, M, N and K off the tiles. */
static const pcase f32_cases[] = {
    {2, 136, 72, 80, true, false, false, 1.0, 0.0},
    {3, 127, 33, 65, false, false, true, 1.0, -0.5},
    {1, 70, 150, 48, true, true, false, 0.5, 1.5},
};

/* f32_cases on d in the layouts of `lays` (bit 2 * A K-major + B K-major),
 * within TF32's tolerance (tol 1), 3xTF32's (2) or float32's (0), the case
 * named after `what`; returns how many had both operands K-major. */
static uint64_t check_f32_cases(clops_device *d, const char *what, unsigned lays, int tol)
{
    uint64_t both = 0;
    for (int lay = 0; lay < 4; lay++) {
        if (!(lays >> lay & 1))
            continue;
        for (size_t ci = 0; ci < CT_COUNT(f32_cases); ci++) {
            const pcase *pc = &f32_cases[ci];
            ct_set_case("float32 %s, %s, %s, %lldx%lldx%lld, %s", what, lay_names[lay >> 1],
                        lay_names_b[lay & 1], (long long)pc->m, (long long)pc->n,
                        (long long)pc->k, pc->aligned ? "aligned" : "odd offsets");
            tf32_tol = tol == 1;
            x3_tol = tol == 2;
            check_product(d, CLOPS_FLOAT32, pc, lay >> 1, lay & 1, false);
            tf32_tol = x3_tol = false;
            both += lay == 3;
        }
    }
    return both;
}

/* Under "high", float32 may run as TF32 on matrix units (NVIDIA): every
 * layout, aligned and not, within TF32's tolerance (inputs rounded to 10
 * mantissa bits: K * 2^-10 * 1.5).  Elsewhere float32 keeps its path.  On
 * Hopper, TF32 through wgmma (on by default since tf32-11's job): the
 * default rule takes it for a product of K-major operands that fills the
 * device, and mma.sync with it switched off; the two default wgmma
 * configurations forced (every configuration with CLOPS_TEST_WGMMA_NEW=1),
 * products with both operands K-major on wgmma (cp.async and plain loads),
 * the others on mma.sync. */
static void float32_under_high_precision(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_opencl_devices(devs, CT_MAX_DEVICES);
    CT_OK(clops_set_float32_matmul_precision("high"));
    for (int di = 0; di < nd; di++) {
        clops_device *d = devs[di];
        ct_set_device(d);
        const char *path = gemm_engine_path(d, CLOPS_FLOAT32);
        gemm_engine_stats s0, s1;
        gemm_engine_get_stats(&s0);
        char what[96];
        snprintf(what, sizeof what, "\"high\" (%s)", path);
        check_f32_cases(d, what, 0xF, strcmp(path, "mma") == 0);
        gemm_engine_get_stats(&s1);
        CT_ASSERT_MSG(path_calls(&s1, path) - path_calls(&s0, path) +
                              (strcmp(path, "mma") == 0 ? s1.skinny_calls - s0.skinny_calls : 0) ==
                          4 * CT_COUNT(f32_cases),
                      "not every product took the %s path", path);
        if (!is_hopper(d))
            continue;
        /* A product of more 128 x 128 blocks than compute units. */
        int64_t side = 128;
        while ((side / 128) * (side / 128) < (int64_t)d->info.compute_units)
            side += 128;
        pcase big = {1, side + 5, side + 3, 40, true, false, false, 1.0, 0.0};
        for (int on = 1; on >= 0; on--) {
            ct_set_case("float32 \"high\", %lldx%lldx%lld, TF32 through wgmma %s",
                        (long long)big.m, (long long)big.n, (long long)big.k,
                        on ? "on (the default)" : "switched off");
            gemm_engine_set_wgmma_tf32(on != 0);
            gemm_engine_get_stats(&s0);
            tf32_tol = true;
            check_product(d, CLOPS_FLOAT32, &big, true, true, false);
            tf32_tol = false;
            gemm_engine_get_stats(&s1);
            CT_ASSERT(s1.mma_calls == s0.mma_calls + 1);
            CT_ASSERT(s1.wgmma_calls == s0.wgmma_calls + (on ? 1u : 0u));
        }
        gemm_engine_set_wgmma_tf32(true);
        int count = gemm_engine_config_count(), first = first_wg_config();
        for (int cfg = 0; cfg < count; cfg++) {
            if (strncmp(gemm_engine_config_name(cfg), "w", 1) != 0 ||
                !wgmma_config_listed(gemm_engine_config_name(cfg)) ||
                (!wgmma_new_on() && cfg != first && cfg != first + 1))
                continue;
            CT_OK(clops_debug_set("gemm.config", cfg + 1));
            gemm_engine_get_stats(&s0);
            snprintf(what, sizeof what, "\"high\" on wgmma %s", gemm_engine_config_name(cfg));
            /* (A M-major, B N-major: mma.sync, or wgmma where transposed
             * tiles are switched on and fit; both K-major: wgmma) */
            uint64_t runs = check_f32_cases(d, what, 0x9, 1);
            gemm_engine_get_stats(&s1);
            uint64_t wgr = s1.wgmma_calls - s0.wgmma_calls;
            CT_ASSERT_MSG(gemm_engine_wgmma_tf32_xt() ? wgr >= runs : wgr == runs,
                          "%llu wgmma launches", (unsigned long long)wgr);
            CT_ASSERT(s1.canary_failures == s0.canary_failures);
        }
        CT_OK(clops_debug_set("gemm.config", 0));
    }
    CT_OK(clops_set_float32_matmul_precision("highest"));
    ct_clear_context();
}

/* K == 0: C = beta * C (zeros for beta 0, NaN in C ignored). */
static void empty_reduction_scales_c(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_opencl_devices(devs, CT_MAX_DEVICES);
    for (int di = 0; di < nd; di++) {
        ct_set_device(devs[di]);
        for (size_t t = 0; t < CT_COUNT(dtypes); t++) {
            ct_set_case("%s, K = 0, beta 0 and 2", clops_dtype_name(dtypes[t]));
            pcase z = {2, 9, 11, 0, false, false, false, 1.0, 0.0};
            check_product(devs[di], dtypes[t], &z, true, false, false);
            z.beta = 2.0;
            check_product(devs[di], dtypes[t], &z, false, true, false);
        }
    }
    ct_clear_context();
}

/* The same product twice gives the same bits. */
static void the_same_product_gives_the_same_bits(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_opencl_devices(devs, CT_MAX_DEVICES);
    for (int di = 0; di < nd; di++) {
        ct_set_device(devs[di]);
        for (size_t t = 0; t < CT_COUNT(dtypes); t++)
            for (int aligned = 0; aligned < 2; aligned++) {
                ct_set_case("%s, %s", clops_dtype_name(dtypes[t]),
                            aligned ? "aligned" : "odd offsets");
                pcase p = {2, 200, 136, 520, aligned != 0, false, false, 1.0, 0.0};
                void *r1 = check_product(devs[di], dtypes[t], &p, true, false, true);
                void *r2 = check_product(devs[di], dtypes[t], &p, true, false, true);
                opnd oc = geom(p.batch, p.m, p.n, true, p.aligned, false);
                CT_ASSERT(memcmp(r1, r2, (size_t)oc.total * clops_dtype_size(dtypes[t])) == 0);
                free(r1);
                free(r2);
            }
    }
    ct_clear_context();
}

/* The ops reach the engine with views as they are (bfloat16: no
 * conversions, no copies); float64 goes to CLBlast; switched off,
 * everything does. */
static void ops_reach_the_engine_and_float64_goes_to_clblast(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_opencl_devices(devs, CT_MAX_DEVICES);
    for (int di = 0; di < nd; di++) {
        clops_device *d = devs[di];
        ct_set_device(d);
        ct_set_case("mm of a transposed and a step-sliced bfloat16 view");
        clops_tensor *a = ct_random(d, CLOPS_BFLOAT16, 2, CT_I64(9, 5), CT_TRANSPOSED,
                                    PW_DOMAIN_UNIT, 1);
        clops_tensor *b = ct_random(d, CLOPS_BFLOAT16, 2, CT_I64(5, 4), CT_SLICED,
                                    PW_DOMAIN_UNIT, 2);
        clops_tensor *r = NULL, *ca = ct_to_cpu(a), *cb = ct_to_cpu(b), *e = NULL;
        gemm_engine_stats s0, s1;
        blas_stats b0, b1;
        gemm_engine_get_stats(&s0);
        blas_get_stats(&b0);
        CT_OK(clops_mm(a, b, &r));
        gemm_engine_get_stats(&s1);
        blas_get_stats(&b1);
        const char *path = gemm_engine_path(d, CLOPS_BFLOAT16);
        CT_ASSERT(strcmp(path, "clblast") != 0);
        /* (N = 4: the skinny path on GPUs) */
        CT_ASSERT(path_calls(&s1, path) + s1.skinny_calls ==
                  path_calls(&s0, path) + s0.skinny_calls + 1);
        CT_ASSERT(b1.operand_copies == b0.operand_copies && b1.gemm_calls == b0.gemm_calls &&
                  b1.half_conversions == b0.half_conversions);
        CT_OK(clops_mm(ca, cb, &e));
        CT_ASSERT_CLOSE(r, e, ct_tol_ulp_atol(1, 5 * 0x1p-22 * 1.5));
        clops_tensor_release(r);
        r = NULL;
        ct_set_case("with the engine switched off, CLBlast");
        gemm_engine_set_enabled(false);
        gemm_engine_get_stats(&s0);
        CT_OK(clops_mm(a, b, &r));
        gemm_engine_get_stats(&s1);
        gemm_engine_set_enabled(true);
        CT_ASSERT(s1.clblast_calls == s0.clblast_calls + 1);
        CT_ASSERT(strcmp(gemm_engine_path(d, CLOPS_FLOAT64), "clblast") == 0);
        CT_ASSERT_CLOSE(r, e, ct_tol_ulp_atol(1, 5 * 0x1p-22 * 1.5));
        /* CLBlast's routines count as launches of the device (a float32
         * product under the GPU launch policy runs there): one each. */
        ct_set_case("a contiguous float32 product on CLBlast counts its launch");
        clops_tensor *fa = ct_random(d, CLOPS_FLOAT32, 2, CT_I64(33, 17), CT_CONTIGUOUS,
                                     PW_DOMAIN_UNIT, 3);
        clops_tensor *fb = ct_random(d, CLOPS_FLOAT32, 2, CT_I64(17, 21), CT_CONTIGUOUS,
                                     PW_DOMAIN_UNIT, 4);
        clops_tensor *fr = NULL;
        clops_device_counters k0, k1;
        gemm_engine_set_enabled(false);
        blas_get_stats(&b0);
        CT_OK(clops_device_get_counters(d, &k0));
        CT_OK(clops_mm(fa, fb, &fr));
        CT_OK(clops_device_get_counters(d, &k1));
        blas_get_stats(&b1);
        gemm_engine_set_enabled(true);
        uint64_t routines = (b1.gemm_calls - b0.gemm_calls) + (b1.batched_calls - b0.batched_calls);
        CT_ASSERT_MSG(routines >= 1 && b1.operand_copies == b0.operand_copies &&
                          k1.launches - k0.launches == routines,
                      "%llu CLBlast routines, %llu launches counted",
                      (unsigned long long)routines, (unsigned long long)(k1.launches - k0.launches));
        clops_tensor_release(fa);
        clops_tensor_release(fb);
        clops_tensor_release(fr);
        clops_tensor *all[] = {a, b, r, ca, cb, e};
        for (size_t i = 0; i < CT_COUNT(all); i++)
            clops_tensor_release(all[i]);
    }
    ct_clear_context();
}

/* A matrix-unit config whose known-answer check fails is checked once,
 * warns once and leaves the product to the FMA atom, correctly. */
static void a_failed_known_answer_check_falls_back_to_fma(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_opencl_devices(devs, CT_MAX_DEVICES);
    CT_ASSERT(clops_debug_set("gemm.canary_fail", 1) == CLOPS_OK);
    for (int di = 0; di < nd; di++) {
        clops_device *d = devs[di];
        ct_set_device(d);
        ct_set_case("bfloat16, aligned, check forced to fail");
        gemm_engine_stats s0, s1;
        gemm_engine_get_stats(&s0);
        pcase p = {2, 136, 72, 80, true, false, false, 1.0, 0.0};
        check_product(d, CLOPS_BFLOAT16, &p, true, false, false);
        check_product(d, CLOPS_BFLOAT16, &p, true, false, false);
        gemm_engine_get_stats(&s1);
        /* (A product this small does not try wgmma on Hopper.) */
        CT_ASSERT(s1.canary_runs == s0.canary_runs + 1);
        CT_ASSERT(s1.canary_failures == s0.canary_failures + 1);
        CT_ASSERT(s1.mma_calls == s0.mma_calls);
        CT_ASSERT(s1.fma_calls + s1.cpu_calls == s0.fma_calls + s0.cpu_calls + 2);
    }
    CT_ASSERT(clops_debug_set("gemm.canary_fail", 0) == CLOPS_OK);
    ct_clear_context();
}

/* The skinny path (M or N <= 16; forced onto every device with the debug
 * setting gemm.skinny, CPU devices included) and split K (gemm.splits:
 * partial sums added in split order by a second kernel) against the
 * reference in every layout, aligned and not, and the same bits twice. */
static void skinny_and_split_products_match_reference(void **state)
{
    (void)state;
    static const pcase cases[] = {
        {1, 1, 300, 70, true, false, false, 1.0, 0.0},
        {2, 3, 270, 41, true, false, false, 1.0, 0.5},
        {2, 16, 33, 1000, false, false, true, 1.5, -0.5},
        {1, 5, 130, 513, true, false, false, -1.0, 1.0},
        {3, 200, 7, 600, true, true, false, 1.0, 0.0},
        {1, 300, 1, 257, false, false, false, 0.5, 1.0},
        {2, 40, 72, 1100, true, false, false, 1.0, 0.0},
    };
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_opencl_devices(devs, CT_MAX_DEVICES);
    for (int mode = 0; mode < 3; mode++) {
        /* 0: skinny, 1: split K, 2: both */
        CT_OK(clops_debug_set("gemm.skinny", mode == 1 ? 2 : 1));
        CT_OK(clops_debug_set("gemm.splits", mode == 0 ? 1 : 3));
        for (int di = 0; di < nd; di++) {
            clops_device *d = devs[di];
            ct_set_device(d);
            for (size_t t = 0; t < CT_COUNT(dtypes); t++) {
                if (strcmp(gemm_engine_path(d, dtypes[t]), "clblast") == 0)
                    continue;
                gemm_engine_stats s0, s1;
                gemm_engine_get_stats(&s0);
                int skinny = 0, split = 0;
                /* Both at once: one layout. */
                for (int lay = mode == 2 ? 3 : 0; lay < 4; lay++)
                    for (size_t ci = 0; ci < CT_COUNT(cases); ci++) {
                        const pcase *pc = &cases[ci];
                        ct_set_case("%s, %s, %s, %s, [%lld] %lldx%lldx%lld, %s",
                                    mode == 0 ? "skinny" : mode == 1 ? "split K" : "both",
                                    clops_dtype_name(dtypes[t]), lay_names[lay >> 1],
                                    lay_names_b[lay & 1], (long long)pc->batch, (long long)pc->m,
                                    (long long)pc->n, (long long)pc->k,
                                    pc->aligned ? "aligned" : "odd offsets");
                        void *r1 = check_product(d, dtypes[t], pc, lay >> 1, lay & 1, true);
                        void *r2 = check_product(d, dtypes[t], pc, lay >> 1, lay & 1, true);
                        opnd oc = geom(pc->batch, pc->m, pc->n, true, pc->aligned, false);
                        CT_ASSERT(memcmp(r1, r2, (size_t)oc.total * clops_dtype_size(dtypes[t])) ==
                                  0);
                        free(r1);
                        free(r2);
                        skinny += mode != 1 && (pc->m <= 16 || pc->n <= 16);
                        /* gemm.splits 3: parts of whole 256s, K >= 512. */
                        split += mode != 0 && pc->k >= 512;
                    }
                gemm_engine_get_stats(&s1);
                CT_ASSERT_MSG(s1.skinny_calls - s0.skinny_calls == 2 * (uint64_t)skinny,
                              "%s: %llu skinny products, expected %d", clops_dtype_name(dtypes[t]),
                              (unsigned long long)(s1.skinny_calls - s0.skinny_calls), 2 * skinny);
                CT_ASSERT_MSG(s1.split_calls - s0.split_calls == 2 * (uint64_t)split,
                              "%s: %llu split products, expected %d", clops_dtype_name(dtypes[t]),
                              (unsigned long long)(s1.split_calls - s0.split_calls), 2 * split);
            }
        }
    }
    CT_OK(clops_debug_set("gemm.skinny", 0));
    CT_OK(clops_debug_set("gemm.splits", 0));
    ct_clear_context();
}

/* The float32 precision setting takes PyTorch's three names. */
static void float32_precision_setting_takes_pytorch_names(void **state)
{
    (void)state;
    CT_ASSERT(strcmp(clops_get_float32_matmul_precision(), "highest") == 0);
    CT_OK(clops_set_float32_matmul_precision("high"));
    CT_ASSERT(strcmp(clops_get_float32_matmul_precision(), "high") == 0);
    CT_OK(clops_set_float32_matmul_precision("medium"));
    CT_ASSERT(strcmp(clops_get_float32_matmul_precision(), "medium") == 0);
    CT_STATUS(clops_set_float32_matmul_precision("fast"), CLOPS_INVALID_ARGUMENT);
    CT_ERROR_CONTAINS("Invalid precision \"fast\"");
    CT_ASSERT(strcmp(clops_get_float32_matmul_precision(), "medium") == 0);
    CT_OK(clops_set_float32_matmul_precision("highest"));
}

/* The epilogue's activation in double (gemm_act). */
static double act_ref(int act, double x)
{
    switch (act) {
    case GEMM_ACT_RELU:
        return x < 0 ? 0 : x;
    case GEMM_ACT_RELU6:
        return x < 0 ? 0 : x > 6 ? 6 : x;
    case GEMM_ACT_HARDSWISH:
        return x * fmin(fmax(x + 3, 0), 6) / 6;
    case GEMM_ACT_SILU:
        return x / (1 + exp(-x));
    case GEMM_ACT_GELU:
        return 0.5 * x * (1 + erf(x / sqrt(2.0)));
    case GEMM_ACT_GELU_TANH:
        return 0.5 * x * (1 + tanh(0.79788456080286535588 * (x + 0.044715 * x * x * x)));
    case GEMM_ACT_SIGMOID:
        return 1 / (1 + exp(-x));
    case GEMM_ACT_HARDSIGMOID:
        return fmin(fmax(x + 3, 0), 6) / 6;
    default:
        return x;
    }
}

/*
 * The fused epilogue (gemm_engine_epi) on every device and dtype the engine
 * fuses: every activation, bias along N or M (strided, scaled), a residual
 * (odd layout) before or after the activation, with and without beta * C,
 * against the host's double computation (tolerance as the products', plus
 * 4 ulps of float32 for the activations' own rounding); the same bits on a
 * second run.  float16/bfloat16 take a few combinations (each is a program
 * build on POCL).
 */
static void fused_epilogues_match_the_host(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_opencl_devices(devs, CT_MAX_DEVICES);
    const int64_t B = 2, M = 37, N = 45, K = 29;
    for (int di = 0; di < nd; di++) {
        clops_device *d = devs[di];
        ct_set_device(d);
        /* The default configurations, then (Hopper) each wgmma one that
         * stores C through __local ("-cs") forced, in the 16-bit dtypes:
         * C's rows of 48 elements take its 16-byte stores up to column 40
         * and its element stores after. */
        for (int cfg = -1; cfg < gemm_engine_config_count(); cfg++) {
        if (cfg >= 0) {
            /* ("-cs" at the end, or before engine11's "-oN") */
            if (!is_hopper(d) || !strstr(gemm_engine_config_name(cfg), "-cs") ||
                !wgmma_config_listed(gemm_engine_config_name(cfg)))
                continue;
        }
        CT_OK(clops_debug_set("gemm.config", cfg + 1));
        for (size_t ti = 0; ti < CT_COUNT(dtypes); ti++) {
            clops_dtype dt = dtypes[ti];
            if (!gemm_engine_fuses(d, dt) || (cfg >= 0 && dt == CLOPS_FLOAT32))
                continue;
            gemm_engine_stats s0, s1;
            gemm_engine_get_stats(&s0);
            uint64_t runs = 0;
            for (int act = 0; act < GEMM_ACT_COUNT; act++) {
                if (dt != CLOPS_FLOAT32 && act % 3 != (int)ti)
                    continue;
                int bmode = act % 3, rmode = (act + 1) % 3; /* none, N/M, before/after */
                double alpha = 1.25, beta = act % 2 ? 0.5 : 0.0, bscale = 0.75;
                ct_set_case("%s act %d bias %d residual %d beta %g, config %s",
                            clops_dtype_name(dt), act, bmode, rmode, beta,
                            cfg >= 0 ? gemm_engine_config_name(cfg) : "default");
                opnd oa = geom(B, M, K, true, true, false), ob = geom(B, K, N, false, true, false);
                opnd oc = geom(B, M, N, true, true, false), orr = geom(B, M, N, false, false, false);
                int64_t blen = bmode == 2 ? M : N;
                opnd oe = {{1, 1, blen}, {0, 0, 2}, 1, 2 * blen + 1};
                void *ha = host_buffer(&oa, dt, 21, NAN, NULL);
                void *hb = host_buffer(&ob, dt, 22, NAN, NULL);
                void *hc = host_buffer(&oc, dt, 23, 7.0f, NULL);
                void *hr = host_buffer(&orr, dt, 24, NAN, NULL);
                void *he = host_buffer(&oe, dt, 25, NAN, NULL);
                clops_tensor *ba, *bb, *bc, *br, *be, *va, *vb, *vc, *vr, *ve, *ve1 = NULL;
                upload(d, dt, &oa, ha, &ba, &va);
                upload(d, dt, &ob, hb, &bb, &vb);
                upload(d, dt, &oc, hc, &bc, &vc);
                upload(d, dt, &orr, hr, &br, &vr);
                upload(d, dt, &oe, he, &be, &ve);
                CT_OK(core_as_strided(be, &blen, 1, &oe.strides[2], 1, &oe.off, &ve1));
                gemm_epilogue epi = {.bias = bmode ? ve1 : NULL, .bias_rows = bmode == 2,
                                     .bias_scale = bscale, .residual = rmode ? vr : NULL,
                                     .residual_after = rmode == 2, .act = (gemm_act)act};
                bool done = false;
                void *got[2] = {NULL, NULL};
                runs += 2;
                for (int r = 0; r < 2; r++) {
                    CT_OK(clops_tensor_from_host(bc, hc, (size_t)oc.total * clops_dtype_size(dt)));
                    CT_OK(gemm_engine_epi("test", va, vb, vc, clops_scalar_float(alpha),
                                          clops_scalar_float(beta), &epi, &done));
                    CT_ASSERT_MSG(done, "the engine did not take the product");
                    got[r] = ct_to_host(bc);
                }
                CT_ASSERT_MSG(memcmp(got[0], got[1], (size_t)oc.total * clops_dtype_size(dt)) == 0,
                              "two runs gave different bits");
                int bad = 0;
                for (int64_t b = 0; b < B; b++)
                    for (int64_t i = 0; i < M; i++)
                        for (int64_t j = 0; j < N; j++) {
                            double acc = 0, mag = 0;
                            for (int64_t k = 0; k < K; k++) {
                                double p = (double)get_float(ha, oa.off + b * oa.strides[0] + i * oa.strides[1] + k * oa.strides[2], dt) *
                                           get_float(hb, ob.off + b * ob.strides[0] + k * ob.strides[1] + j * ob.strides[2], dt);
                                acc += p;
                                mag += fabs(p);
                            }
                            int64_t ci = oc.off + b * oc.strides[0] + i * oc.strides[1] + j * oc.strides[2];
                            int64_t ri = orr.off + b * orr.strides[0] + i * orr.strides[1] + j * orr.strides[2];
                            double r = alpha * acc;
                            if (beta != 0)
                                r += beta * get_float(hc, ci, dt);
                            if (bmode)
                                r += bscale * get_float(he, oe.off + (bmode == 2 ? i : j) * 2, dt);
                            if (rmode == 1)
                                r += get_float(hr, ri, dt);
                            r = act_ref(act, r);
                            if (rmode == 2)
                                r += get_float(hr, ri, dt);
                            double ulp = dt == CLOPS_FLOAT32 ? 0x1p-23 : dt == CLOPS_FLOAT16 ? 0x1p-10 : 0x1p-7;
                            double tol = 1.5 * mag * (double)K * 0x1p-24 + 4 * 0x1p-23 * (1 + fabs(r)) +
                                         fabs(r) * ulp;
                            double g = get_float(got[0], ci, dt);
                            if (!(fabs(g - r) <= tol) && bad++ < 3)
                                print_message("  [%lld, %lld, %lld]: got %.9g expected %.9g\n",
                                              (long long)b, (long long)i, (long long)j, g, r);
                        }
                CT_ASSERT_MSG(bad == 0, "%d elements differ", bad);
                clops_tensor *all[] = {ba, bb, bc, br, be, va, vb, vc, vr, ve, ve1};
                for (size_t i = 0; i < CT_COUNT(all); i++)
                    clops_tensor_release(all[i]);
                void *hs[] = {ha, hb, hc, hr, he, got[0], got[1]};
                for (size_t i = 0; i < CT_COUNT(hs); i++)
                    free(hs[i]);
            }
            gemm_engine_get_stats(&s1);
            /* (a forced configuration: every product on wgmma) */
            if (cfg >= 0) {
                CT_ASSERT_MSG(s1.wgmma_calls - s0.wgmma_calls == runs,
                              "%s: %llu of %llu products on wgmma", gemm_engine_config_name(cfg),
                              (unsigned long long)(s1.wgmma_calls - s0.wgmma_calls),
                              (unsigned long long)runs);
                CT_ASSERT(s1.canary_failures == s0.canary_failures);
            }
        }
        }
        CT_OK(clops_debug_set("gemm.config", 0));
    }
    ct_clear_context();
}

/* addmm with a bias vector and _addmm_activation through the ops: the same
 * values on every device as on the CPU device (which runs them unfused), and
 * the engine ran on OpenCL devices where it fuses. */
static void addmm_activation_matches_the_cpu(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_opencl_devices(devs, CT_MAX_DEVICES);
    for (int di = 0; di < nd; di++) {
        clops_device *d = devs[di];
        ct_set_device(d);
        for (size_t ti = 0; ti < CT_COUNT(dtypes); ti++) {
            clops_dtype dt = dtypes[ti];
            for (int kind = 0; kind < 4; kind++) {
                ct_set_case("%s kind %d", clops_dtype_name(dt), kind);
                /* 0: addmm, bias [N]; 1: relu, bias [1, N]; 2: gelu, bias [M, 1];
                 * 3: relu, full self, beta 0.5 */
                int64_t bsz[2] = {kind == 2 ? 19 : 1, kind == 2 ? 1 : 23};
                if (kind == 3)
                    bsz[0] = 19, bsz[1] = 23;
                clops_tensor *self = ct_random(d, dt, kind == 0 ? 1 : 2, kind == 0 ? &bsz[1] : bsz,
                                               CT_CONTIGUOUS, PW_DOMAIN_SMALL, 31 + kind);
                clops_tensor *m1 = ct_random(d, dt, 2, CT_I64(19, 17), CT_CONTIGUOUS,
                                             PW_DOMAIN_SMALL, 41);
                clops_tensor *m2 = ct_random(d, dt, 2, CT_I64(17, 23), CT_TRANSPOSED,
                                             PW_DOMAIN_SMALL, 42);
                clops_tensor *sc = ct_to_cpu(self), *m1c = ct_to_cpu(m1), *m2c = ct_to_cpu(m2);
                clops_scalar beta = clops_scalar_float(kind == 3 ? 0.5 : 1.5);
                clops_scalar alpha = clops_scalar_float(0.75);
                clops_tensor *y = NULL, *yc = NULL;
                gemm_engine_stats s0, s1;
                gemm_engine_get_stats(&s0);
                if (kind == 0) {
                    CT_OK(clops_addmm(self, m1, m2, beta, alpha, &y));
                    CT_OK(clops_addmm(sc, m1c, m2c, beta, alpha, &yc));
                } else {
                    CT_OK(clops__addmm_activation(self, m1, m2, beta, alpha, kind == 2, &y));
                    CT_OK(clops__addmm_activation(sc, m1c, m2c, beta, alpha, kind == 2, &yc));
                }
                gemm_engine_get_stats(&s1);
                if (gemm_engine_fuses(d, dt))
                    CT_ASSERT_MSG(s1.fma_calls + s1.cpu_calls + s1.mma_calls >
                                      s0.fma_calls + s0.cpu_calls + s0.mma_calls,
                                  "the engine did not run");
                CT_ASSERT_CLOSE(y, yc,
                                dt == CLOPS_FLOAT32 ? ct_tol_ulp_atol(16, 1e-5)
                                                    : ct_tol_ulp_atol(2, 1e-2));
                clops_tensor *all[] = {self, m1, m2, sc, m1c, m2c, y, yc};
                for (size_t i = 0; i < CT_COUNT(all); i++)
                    clops_tensor_release(all[i]);
            }
        }
    }
    ct_clear_context();
}

/* Hopper's wgmma atom is tried only on NVIDIA devices of compute
 * capability 9.0 (nowhere else, POCL included: no wgmma launch is counted
 * there), and there by default for products that fill the device with
 * 128 x 128 blocks.  Where it runs, every wgmma configuration (forced with
 * gemm.config: the default in every layout, aligned (cp.async) and odd
 * (plain loads), in float16 and bfloat16; the others in bfloat16, K-major
 * and M/N-major, aligned, but the first warp-specialised one in every
 * layout and staging; the warp-specialised ones only with
 * CLOPS_TEST_WGMMA_NEW=1 until their first GPU run) matches the reference
 * with M, N and K off the tiles, batched and broadcast; switched off
 * (CLOPS_GEMM_WGMMA=0, gemm_engine_set_wgmma), the products run on
 * mma.sync, correctly. */
static void wgmma_is_chosen_by_capability(void **state)
{
    (void)state;
    static const pcase cases[] = {
        {1, 136, 72, 80, true, false, false, 1.0, 0.0},
        {3, 70, 150, 48, true, true, false, 0.5, 1.5},
        {2, 129, 17, 41, false, false, true, 1.0, 1.0},
        {1, 200, 264, 520, true, false, false, -1.0, 0.5},
    };
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_opencl_devices(devs, CT_MAX_DEVICES);
    int count = gemm_engine_config_count(), first = 0;
    while (first < count && strncmp(gemm_engine_config_name(first), "wg", 2) != 0)
        first++;
    CT_ASSERT(first < count);
    for (int di = 0; di < nd; di++) {
        clops_device *d = devs[di];
        ct_set_device(d);
        bool hopper = is_hopper(d);
        /* A product of more 128 x 128 blocks than compute units. */
        int64_t side = 128;
        while ((side / 128) * (side / 128) < (int64_t)d->info.compute_units)
            side += 128;
        pcase big = {1, side + 5, side + 3, 40, true, false, false, 1.0, 0.0};
        for (size_t t = 1; t < CT_COUNT(dtypes); t++) {
            ct_set_case("%s: wgmma a candidate only on compute capability 9.0",
                        clops_dtype_name(dtypes[t]));
            CT_ASSERT(gemm_engine_wgmma_candidate(d, dtypes[t]) == hopper);
            CT_ASSERT(!gemm_engine_wgmma_candidate(d, CLOPS_FLOAT32));
            for (int cfg = hopper ? first : count; cfg < count; cfg++) {
                /* (the warp-specialised ones: wgmma_new_on; the TMA ones:
                 * tma_configurations_match_the_default_bits) */
                bool ws = strncmp(gemm_engine_config_name(cfg), "ws", 2) == 0;
                if ((ws && !wgmma_new_on()) || !wgmma_config_listed(gemm_engine_config_name(cfg)) ||
                    strstr(gemm_engine_config_name(cfg), "-tma"))
                    continue;
                /* the first of them: every layout and staging */
                bool all = cfg == first ||
                           (ws && strncmp(gemm_engine_config_name(cfg - 1), "ws", 2) != 0);
                CT_OK(clops_debug_set("gemm.config", cfg + 1));
                double tc0 = mono_seconds();
                host_kcache_stats kc0;
                host_kcache_get_stats(d, &kc0);
                gemm_engine_stats s0, s1;
                gemm_engine_get_stats(&s0);
                uint64_t runs = 0;
                /* (Each configuration, layout and staging is a program of
                 * its own: the other configurations in bfloat16 only, in
                 * two layouts, aligned, but the first warp-specialised one
                 * (its producer is new) in every layout and staging.) */
                if (cfg != first && dtypes[t] != CLOPS_BFLOAT16)
                    continue;
                for (int lay = 0; lay < 4; lay++) {
                    if (!all && (lay == 1 || lay == 2))
                        continue;
                    for (size_t ci = 0; ci < CT_COUNT(cases); ci++) {
                        const pcase *pc = &cases[ci];
                        if (!all && !pc->aligned)
                            continue;
                        runs++;
                        ct_set_case("%s, wgmma config %s, %s, %s, [%lld] %lldx%lldx%lld, %s",
                                    clops_dtype_name(dtypes[t]), gemm_engine_config_name(cfg),
                                    lay_names[lay >> 1], lay_names_b[lay & 1],
                                    (long long)pc->batch, (long long)pc->m, (long long)pc->n,
                                    (long long)pc->k, pc->aligned ? "aligned" : "odd offsets");
                        check_product(d, dtypes[t], pc, lay >> 1, lay & 1, false);
                    }
                }
                /* Persistent ones ("-p"): more tiles than compute units, so
                 * that work-groups take several, K shorter than the
                 * pipeline (the stream of K tiles crosses tiles). */
                size_t nl = strlen(gemm_engine_config_name(cfg));
                if (nl > 2 && strcmp(gemm_engine_config_name(cfg) + nl - 2, "-p") == 0) {
                    int64_t cu = (int64_t)d->info.compute_units;
                    pcase many = {2, 128 * 2 + 77, 256 * (cu / 2 + 1) + 3, 40, true,
                                  false, true, 1.0, 0.5};
                    ct_set_case("%s, wgmma config %s, [%lld] %lldx%lldx%lld (broadcast B)",
                                clops_dtype_name(dtypes[t]), gemm_engine_config_name(cfg),
                                (long long)many.batch, (long long)many.m, (long long)many.n,
                                (long long)many.k);
                    check_product(d, dtypes[t], &many, true, false, false);
                    runs++;
                }
                gemm_engine_get_stats(&s1);
                /* (no product here is skinny: M, N > 16) */
                CT_ASSERT_MSG(s1.wgmma_calls - s0.wgmma_calls == runs, "%llu wgmma launches",
                              (unsigned long long)(s1.wgmma_calls - s0.wgmma_calls));
                CT_ASSERT(s1.canary_failures == s0.canary_failures);
                char what[96];
                snprintf(what, sizeof what, "%s %s, %llu products", gemm_engine_config_name(cfg),
                         clops_dtype_name(dtypes[t]), (unsigned long long)runs);
                wgmma_time_line(d, what, tc0, &kc0);
            }
            CT_OK(clops_debug_set("gemm.config", 0));
            double tb0 = mono_seconds();
            host_kcache_stats kb0;
            host_kcache_get_stats(d, &kb0);
            for (int on = 1; on >= 0; on--) {
                ct_set_case("%s, %lldx%lldx%lld, wgmma %s", clops_dtype_name(dtypes[t]),
                            (long long)big.m, (long long)big.n, (long long)big.k,
                            on ? "on" : "switched off");
                gemm_engine_set_wgmma(on != 0);
                CT_ASSERT(gemm_engine_wgmma_candidate(d, dtypes[t]) == (hopper && on));
                const char *path = gemm_engine_path(d, dtypes[t]);
                gemm_engine_stats s0, s1;
                gemm_engine_get_stats(&s0);
                check_product(d, dtypes[t], &big, true, true, false);
                check_product(d, dtypes[t], &cases[0], false, false, false);
                gemm_engine_get_stats(&s1);
                gemm_engine_set_wgmma(true);
                /* The big product on wgmma where it is on; the small one on
                 * mma.sync (or the device's own path) either way. */
                CT_ASSERT(s1.wgmma_calls - s0.wgmma_calls == (hopper && on ? 1u : 0u));
                CT_ASSERT(path_calls(&s1, path) == path_calls(&s0, path) + 2);
            }
            if (hopper) {
                char what[96];
                snprintf(what, sizeof what, "%s default rule, on and off", clops_dtype_name(dtypes[t]));
                wgmma_time_line(d, what, tb0, &kb0);
            }
        }
    }
    ct_clear_context();
}

/* A program source whose only instruction the driver's own target
 * rejects is hidden behind "//@" (cl_kernels/wgmma.clh's convention). */
static clops_status ptx_route_source(void *ctx, const clops_device *d, strbuf *sb)
{
    (void)ctx;
    /* (inline PTX only for NVIDIA's compiler) */
    sb_printf(sb, "__kernel void routed(__global int *o)\n{\n%s    o[get_global_id(0)] = 42;\n}\n",
              d->info.vendor == CLOPS_VENDOR_NVIDIA
                  ? "    asm volatile(\"//@wgmma.fence.sync.aligned;\" ::: \"memory\");\n"
                  : "");
    return CLOPS_OK;
}

/* The program layer's PTX route (host_kernel_request.ptx_target and
 * .ptx_entry_directives): on Hopper a program with an sm_90a instruction
 * builds and runs, with the driver's entry directives and with its own;
 * on every other device the request fails with a build failure that names
 * the route (POCL's binaries are not PTX text), and nothing is cached.
 * Everywhere, entry directives without a target and a target that is not
 * one token are refused before anything is built.  (The engine's own use,
 * gemm_wgmma, is checked by the tests above.) */
static void the_ptx_route_builds_on_hopper_and_fails_clearly_elsewhere(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_opencl_devices(devs, CT_MAX_DEVICES);
    for (int di = 0; di < nd; di++) {
        clops_device *d = devs[di];
        ct_set_device(d);
        bool hopper = is_hopper(d);
        bool nvidia = d->info.vendor == CLOPS_VENDOR_NVIDIA;
        if (nvidia && !hopper)
            continue; /* (sm_90a code does not run there) */
        /* Requests the route must refuse, whatever the device. */
        static const struct {
            const char *target, *entry, *says;
        } bad[] = {
            {NULL, ".maxntid 256, 1, 1\n", "entry directives without"},
            {"sm_90a\n.maxntid 256, 1, 1\n", NULL, "not one token"},
            {"", NULL, "not one token"},
        };
        for (size_t bi = 0; bi < sizeof bad / sizeof bad[0]; bi++) {
            ct_set_case("PTX route refuses request %zu", bi);
            host_kernel_request req = {.program_name = "test/ptx-route-bad",
                                       .kernel_name = "routed",
                                       .gen_source = ptx_route_source,
                                       .ptx_target = bad[bi].target,
                                       .ptx_entry_directives = bad[bi].entry};
            host_kkey key = {{0x50545852u, 2, 2, (uint64_t)bi}};
            host_kernel *k = NULL;
            CT_ASSERT(host_kernel_get(d, &key, &req, &k) == CLOPS_INTERNAL);
            CT_ASSERT_MSG(strstr(clops_last_error(), bad[bi].says) != NULL, "%s",
                          clops_last_error());
            CT_ASSERT(host_kernel_lookup(d, &key) == NULL);
        }
        /* The target alone, then with the entry's directives in place of
         * the driver's (a misplaced directive does not assemble): a cap of
         * 64 items is what the driver then reports for the kernel. */
        static const char *const entries[] = {NULL, ".maxntid 256, 1, 1\n.minnctapersm 1\n",
                                              ".maxntid 64, 1, 1\n"};
        static const size_t widths[] = {128, 256, 64};
        for (int ti = 0; ti < 3; ti++) {
            ct_set_case("PTX route to sm_90a, entry %s, %s",
                        entries[ti] ? entries[ti] : "(the driver's)", hopper ? "Hopper" : "not NVIDIA");
            host_kernel_request req = {.program_name = "test/ptx-route",
                                       .kernel_name = "routed",
                                       .gen_source = ptx_route_source,
                                       .ptx_target = "sm_90a",
                                       .ptx_entry_directives = entries[ti]};
            host_kkey key = {{0x50545852u, 1, 2, (uint64_t)(3 + ti)}};
            host_kernel *k = NULL;
            clops_status st = host_kernel_get(d, &key, &req, &k);
            if (!hopper) {
                CT_ASSERT(st == CLOPS_BUILD_FAILURE);
                CT_ASSERT_MSG(strstr(clops_last_error(), "PTX route") != NULL, "%s",
                              clops_last_error());
                CT_ASSERT(host_kernel_lookup(d, &key) == NULL);
                continue;
            }
            CT_OK(st);
            if (ti == 2) {
                /* (launching it failed on the H200 with CL_OUT_OF_RESOURCES
                 * at 64 items: only what the driver reports is checked) */
                CT_ASSERT_MSG(k->wg_size == 64, "kernel with .maxntid 64: work-groups of %zu",
                              k->wg_size);
                continue;
            }
            host_block *o = NULL;
            CT_OK(host_alloc(d, 256 * sizeof(int), &o));
            host_arg args[] = {{sizeof o->mem, &o->mem}};
            CT_OK(host_launch_local(d, k, 1, args, 256, widths[ti]));
            int h[256] = {0};
            CT_OK(host_read(d, o->mem, 0, h, sizeof h));
            for (int i = 0; i < 256; i++)
                CT_ASSERT(h[i] == 42);
            host_free(o);
        }
    }
    ct_clear_context();
}

static double test_t0;

static int time_setup(void **state)
{
    (void)state;
    test_t0 = mono_seconds();
    return 0;
}

static int time_teardown(void **state)
{
    (void)state;
    if (timing_on())
        fprintf(stderr, "test_gemm_engine: the running test took %.1f s\n", mono_seconds() - test_t0);
    return 0;
}

/*
 * The tensor-map fields of a GEMM operand (ops/gemm/gemm_tma.c: host logic
 * of bench/probe_tma.c's TMA loads, no device needed): the swizzle each
 * box width selects, the box's bytes and __local alignment, the refusals
 * (unaligned address or row stride, empty or oversized dimensions and
 * boxes, inner bytes no swizzle takes), and the swizzle's permutation as
 * wgmma's canonical layouts place a 16-byte chunk (the 64-byte one is the
 * KMAJ layout of the cp.async staging: chunk c of row r at c ^ ((r >> 1) & 3)).
 */
static void tma_map_fields_follow_the_encoder_rules(void **state)
{
    (void)state;
    gemm_tma_map2d m;
    /* A bfloat16 K-major operand of 4096 rows of K = 4096, box 32 x 128. */
    assert_null(gemm_tma_map2d_plan(&m, 0x7f0000000000ull, 4096, 4096, 4096, 2, 32, 128, 1));
    assert_int_equal(m.swizzle, GEMM_TMA_SWIZZLE_64B);
    assert_int_equal(m.box_bytes, 8192);
    assert_int_equal(m.smem_align, 512);
    assert_true(m.gstride == 8192 && m.gdim[0] == 4096 && m.gdim[1] == 4096);
    assert_null(gemm_tma_map2d_plan(&m, 0x1000, 768, 4096, 768, 2, 16, 128, 1));
    assert_int_equal(m.swizzle, GEMM_TMA_SWIZZLE_32B);
    assert_int_equal(m.smem_align, 256);
    assert_null(gemm_tma_map2d_plan(&m, 0x1000, 2304, 768, 2304, 2, 64, 32, 1));
    assert_int_equal(m.swizzle, GEMM_TMA_SWIZZLE_128B);
    assert_int_equal(m.smem_align, 1024);
    assert_int_equal(m.box_bytes, 4096);
    assert_null(gemm_tma_map2d_plan(&m, 0x1000, 200, 300, 208, 2, 32, 16, 0));
    assert_int_equal(m.swizzle, GEMM_TMA_SWIZZLE_NONE);
    assert_int_equal(m.smem_align, 128);
    /* Refusals: each names what no tensor map can take. */
    assert_non_null(gemm_tma_map2d_plan(&m, 0x1008, 4096, 4096, 4096, 2, 32, 128, 1));
    assert_non_null(gemm_tma_map2d_plan(&m, 0x1000, 4095, 4096, 4095, 2, 32, 128, 1));
    assert_non_null(gemm_tma_map2d_plan(&m, 0x1000, 4096, 4096, 4000, 2, 32, 128, 1));
    assert_non_null(gemm_tma_map2d_plan(&m, 0x1000, 0, 4096, 4096, 2, 32, 128, 1));
    assert_non_null(gemm_tma_map2d_plan(&m, 0x1000, 4096, (1ull << 32) + 1, 4096, 2, 32, 128, 1));
    assert_non_null(gemm_tma_map2d_plan(&m, 0x1000, 4096, 4096, 4096, 2, 32, 257, 1));
    assert_non_null(gemm_tma_map2d_plan(&m, 0x1000, 4096, 4096, 4096, 2, 24, 128, 1));
    assert_non_null(gemm_tma_map2d_plan(&m, 0x1000, 4096, 4096, 4096, 2, 4, 128, 0));
    assert_non_null(gemm_tma_map2d_plan(&m, 0x1000, 4096, 4096, 4096, 3, 32, 128, 1));
    assert_non_null(gemm_tma_map2d_plan(&m, 0x1000, 64, 4, 1ull << 40, 2, 32, 4, 1));
    /* The permutations: 64-byte rows (KMAJ, BK 32), 128-byte rows (M/N-major
     * atoms: chunk c of k-row r at c ^ r), 32-byte rows (BK 16), none. */
    assert_null(gemm_tma_map2d_plan(&m, 0x1000, 4096, 4096, 4096, 2, 32, 128, 1));
    for (uint32_t r = 0; r < 128; r++)
        for (uint32_t c = 0; c < 4; c++)
            assert_int_equal(gemm_tma_chunk_offset(&m, r, c), r * 64 + ((c ^ ((r >> 1) & 3)) * 16));
    assert_null(gemm_tma_map2d_plan(&m, 0x1000, 4096, 4096, 4096, 2, 64, 32, 1));
    for (uint32_t r = 0; r < 32; r++)
        for (uint32_t c = 0; c < 8; c++)
            assert_int_equal(gemm_tma_chunk_offset(&m, r, c), r * 128 + ((c ^ (r & 7)) * 16));
    assert_null(gemm_tma_map2d_plan(&m, 0x1000, 4096, 4096, 4096, 2, 16, 128, 1));
    for (uint32_t r = 0; r < 128; r++)
        for (uint32_t c = 0; c < 2; c++)
            assert_int_equal(gemm_tma_chunk_offset(&m, r, c), r * 32 + ((c ^ ((r >> 2) & 1)) * 16));
    assert_null(gemm_tma_map2d_plan(&m, 0x1000, 4096, 4096, 4096, 2, 32, 16, 0));
    assert_int_equal(gemm_tma_chunk_offset(&m, 5, 3), 5 * 64 + 48);
}

/*
 * The "-tma" wgmma configurations (tiles through the tensor-memory
 * accelerator; forced only) on every device: forced, a bfloat16 product
 * in the layouts of a plain mm (A K-major, B N-major), of a linear layer
 * (both K-major) and both transposed (M- and N-major: the other kind of
 * box), aligned and with odd offsets (no tensor map: the
 * default configuration takes it), gives the reference's result and the
 * bits of the wgmma default wg128x128-s3-cs, forced too (the same products
 * in the same order).  Then float32 under "high" (TF32 through TMA boxes,
 * engine12: both operands K-major, the only layout wgmma's tf32 takes;
 * the tiles rounded to TF32 in __local memory as the cp.async kernel
 * rounds its chunks, so the same bits again: under GEMM_TF32_PASS, set
 * here, since the TMA copy's conversion, the default from engine14 on,
 * rounds ties to even where the pass rounds them away).  On
 * Hopper each runs on wgmma, its known-answer check passed; elsewhere the
 * forced configuration is ignored (the device's own path both times).
 */
static void tma_configurations_match_the_default_bits(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_opencl_devices(devs, CT_MAX_DEVICES);
    int count = gemm_engine_config_count();
    static const pcase cases[] = {
        {1, 200, 264, 520, true, false, false, 1.0, 0.0},
        {1, 129, 17, 41, false, false, false, 1.0, 1.0},
    };
    /* The wgmma default, forced (these products are small enough for
     * mma.sync by the size rule). */
    int dflt = 0;
    while (dflt < count && strcmp(gemm_engine_config_name(dflt), "wg128x128-s3-cs") != 0)
        dflt++;
    CT_ASSERT(dflt < count);
    int mode0 = gemm_engine_tf32_convert();
    for (int di = 0; di < nd; di++) {
        clops_device *d = devs[di];
        ct_set_device(d);
        /* li 0: float32 (TF32), linear (first: the newest path, so that a
         * GPU job's limit cuts the 16-bit cases instead); then bfloat16 with
         * (A, B) unit-stride along (K, N): mm; (K, K): linear; (M, N): every
         * box kind of both operands */
        static const bool lays[4][2] = {{true, true}, {true, false}, {true, true}, {false, false}};
        for (int li = 0; li < 4; li++)
            for (size_t ci = 0; ci < CT_COUNT(cases); ci++) {
                const pcase *pc = &cases[ci];
                const bool a_uk = lays[li][0], b_uk = lays[li][1];
                const clops_dtype dt = li == 0 ? CLOPS_FLOAT32 : CLOPS_BFLOAT16;
                /* (float32 on Hopper's tensor cores: under "high" only; the
                 * device's own float32 path elsewhere; with the rounding
                 * pass in every configuration: the TMA copy's conversion,
                 * the default since engine14, rounds ties to even where the
                 * pass and the cp.async default round them away, so their
                 * bits differ at ties) */
                bool mu = li == 0 && is_hopper(d);
                gemm_engine_set_tf32_convert(li == 0 ? GEMM_TF32_PASS : mode0);
                CT_OK(clops_set_float32_matmul_precision(li == 0 ? "high" : "highest"));
                CT_OK(clops_debug_set("gemm.config", dflt + 1));
                ct_set_case("%s %lldx%lldx%lld, A %s-major, B %s-major, %s, wg128x128-s3-cs",
                            clops_dtype_name(dt), (long long)pc->m, (long long)pc->n,
                            (long long)pc->k, a_uk ? "K" : "M", b_uk ? "K" : "N",
                            pc->aligned ? "aligned" : "odd offsets");
                tf32_tol = mu;
                void *want = check_product(d, dt, pc, a_uk, b_uk, true);
                int seen = 0;
                for (int cfg = 0; cfg < count; cfg++) {
                    const char *name = gemm_engine_config_name(cfg);
                    if (!strstr(name, "-tma") || !wgmma_config_listed(name))
                        continue;
                    seen++;
                    CT_OK(clops_debug_set("gemm.config", cfg + 1));
                    ct_set_case("%s %lldx%lldx%lld, A %s-major, B %s-major, %s, config %s",
                                clops_dtype_name(dt), (long long)pc->m, (long long)pc->n,
                                (long long)pc->k, a_uk ? "K" : "M", b_uk ? "K" : "N",
                                pc->aligned ? "aligned" : "odd offsets", name);
                    gemm_engine_stats s0, s1;
                    gemm_engine_get_stats(&s0);
                    void *got = check_product(d, dt, pc, a_uk, b_uk, true);
                    gemm_engine_get_stats(&s1);
                    CT_ASSERT(s1.canary_failures == s0.canary_failures);
                    CT_ASSERT(s1.wgmma_calls - s0.wgmma_calls == (is_hopper(d) ? 1u : 0u));
                    /* (C's view with its sentinels around it, as bits) */
                    opnd oc = geom(pc->batch, pc->m, pc->n, true, pc->aligned, false);
                    CT_ASSERT_MSG(memcmp(got, want, (size_t)oc.total * clops_dtype_size(dt)) == 0,
                                  "the bits differ from the default configuration's");
                    free(got);
                }
                tf32_tol = false;
                CT_ASSERT(seen > 0 || getenv("CLOPS_TEST_WGMMA_ONLY"));
                free(want);
            }
        CT_OK(clops_set_float32_matmul_precision("highest"));
        CT_OK(clops_debug_set("gemm.config", 0));
    }
    gemm_engine_set_tf32_convert(mode0);
    ct_clear_context();
}

/* An environment variable's value, saved (NULL: unset) and put back. */
static char *env_save(const char *var)
{
    const char *v = getenv(var);
    return v ? strdup(v) : NULL;
}

static void env_restore(const char *var, char *keep)
{
    if (keep)
        setenv(var, keep, 1);
    else
        unsetenv(var);
    free(keep);
}

typedef struct env_case {
    const char *v;
    int want; /* -1: what the unset variable gives */
} env_case;

/* Each value of var gives get()'s `want`; returns what unset gives. */
static int env_values_parse(const char *var, int (*get)(void), const env_case *cases, size_t n)
{
    char *keep = env_save(var);
    unsetenv(var);
    int dflt = get();
    for (size_t i = 0; i < n; i++) {
        ct_set_case("%s=%s", var, cases[i].v);
        setenv(var, cases[i].v, 1);
        CT_ASSERT_MSG(get() == (cases[i].want < 0 ? dflt : cases[i].want), "%s gives %d", var,
                      get());
    }
    env_restore(var, keep);
    return dflt;
}

/*
 * engine12's settings (host logic, every device): 3xTF32's promotion
 * period from CLOPS_GEMM_3XTF32_PROMOTE (1, 2, 4, 8; 0 none; anything else
 * the built-in default, which the unset variable gives too), and the
 * switch of float32's TMA tiles.
 */
static void float32_engine_settings_follow_the_environment(void **state)
{
    (void)state;
    static const env_case cases[] = {{"0", 0},   {"1", 1},   {"2", 2},  {"4", 4},
                                     {"8", 8},   {"3", -1},  {"16", -1}, {"", -1},
                                     {"4x", -1}, {"x", -1},  {"-1", -1}};
    int dflt = env_values_parse("CLOPS_GEMM_3XTF32_PROMOTE", gemm_engine_3xtf32_period, cases,
                                CT_COUNT(cases));
    CT_ASSERT(dflt == 0 || dflt == 1 || dflt == 2 || dflt == 4 || dflt == 8);
    ct_set_case("the float32 TMA switch");
    bool on = gemm_engine_tf32_tma();
    gemm_engine_set_tf32_tma(!on);
    CT_ASSERT(gemm_engine_tf32_tma() == !on);
    gemm_engine_set_tf32_tma(on);
    CT_ASSERT(gemm_engine_tf32_tma() == on);
    /* 3xTF32's period reaches its program as WG_X3P (and WG_X3 1): the
     * mapping from P to the configuration's mode and back (a swapped pair
     * fails here); under every TF32 conversion, none of which a 3xTF32
     * program takes (its split rounds: no WG_TF32_TRUNC even under trunc;
     * failed with x3_fit's clearing and gemm_defines' !c->x3 dropped). */
    static const int periods[] = {0, 1, 2, 4, 8};
    int conv_keep = gemm_engine_tf32_convert();
    for (size_t i = 0; i < 3 * CT_COUNT(periods); i++) {
        int conv = (int)(i / CT_COUNT(periods)), p = periods[i % CT_COUNT(periods)];
        gemm_engine_set_tf32_convert(conv);
        ct_set_case("3xTF32's program defines with promotion every %d K tiles, conversion %d", p,
                    conv);
        char defs[2048];
        CT_OK(gemm_engine_3xtf32_defines(p, 0, false, defs, sizeof defs));
        const char *x3 = strstr(defs, "#define WG_X3 "), *x3p = strstr(defs, "#define WG_X3P ");
        CT_ASSERT_MSG(x3 && x3p, "no WG_X3 / WG_X3P in:\n%s", defs);
        CT_ASSERT(atoi(x3 + strlen("#define WG_X3 ")) == 1);
        CT_ASSERT_MSG(atoi(x3p + strlen("#define WG_X3P ")) == p, "WG_X3P %d",
                      atoi(x3p + strlen("#define WG_X3P ")));
        CT_ASSERT_MSG(strstr(defs, "WG_TF32_TRUNC") == NULL, "defines:\n%s", defs);
    }
    gemm_engine_set_tf32_convert(conv_keep);
    /* Switches read at start (a job that sets them runs this test first):
     * CLOPS_GEMM_TF32_TMA=0, CLOPS_GEMM_WGMMA_TF32_XT=0|1, CLOPS_GEMM_3XTF32_NT=0|1,
     * CLOPS_GEMM_TF32_CONVERT=pass|trunc|tma (another value: the default,
     * as a mode out of range). */
    static const struct {
        const char *var;
        bool (*get)(void);
        void (*set)(bool);
    } sw[] = {{"CLOPS_GEMM_TF32_TMA", gemm_engine_tf32_tma, gemm_engine_set_tf32_tma},
              {"CLOPS_GEMM_WGMMA_TF32_XT", gemm_engine_wgmma_tf32_xt,
               gemm_engine_set_wgmma_tf32_xt},
              {"CLOPS_GEMM_3XTF32_NT", gemm_engine_3xtf32_nt, gemm_engine_set_3xtf32_nt}};
    for (size_t i = 0; i < CT_COUNT(sw); i++) {
        ct_set_case("%s", sw[i].var);
        const char *v = getenv(sw[i].var);
        bool cur = sw[i].get();
        if (v && (strcmp(v, "0") == 0 || strcmp(v, "1") == 0))
            CT_ASSERT_MSG(cur == (v[0] == '1'), "%s=%s, the switch reads %d", sw[i].var, v,
                          (int)cur);
        sw[i].set(!cur);
        CT_ASSERT(sw[i].get() == !cur);
        sw[i].set(cur);
        CT_ASSERT(sw[i].get() == cur);
    }
    /* CLOPS_GEMM_3XTF32: 1 forced, 0 off, anything else (unset included)
     * the rule's products (x3-13's default) */
    ct_set_case("CLOPS_GEMM_3XTF32");
    const char *xv = getenv("CLOPS_GEMM_3XTF32");
    int xwant = xv && strcmp(xv, "1") == 0 ? 1 : xv && strcmp(xv, "0") == 0 ? 0 : 2;
    gemm_engine_reset_3xtf32();
    CT_ASSERT_MSG(gemm_engine_3xtf32_state() == xwant, "CLOPS_GEMM_3XTF32=%s, the state reads %d",
                  xv ? xv : "(unset)", gemm_engine_3xtf32_state());
    gemm_engine_set_3xtf32(true);
    CT_ASSERT(gemm_engine_3xtf32_state() == 1);
    gemm_engine_set_3xtf32(false);
    CT_ASSERT(gemm_engine_3xtf32_state() == 0);
    gemm_engine_reset_3xtf32();
    CT_ASSERT(gemm_engine_3xtf32_state() == xwant);
    ct_set_case("CLOPS_GEMM_TF32_CONVERT");
    const char *cv = getenv("CLOPS_GEMM_TF32_CONVERT");
    int mode = gemm_engine_tf32_convert();
    static const char *const modes[] = {"pass", "trunc", "tma"};
    for (int m = GEMM_TF32_PASS; m <= GEMM_TF32_TMA; m++)
        if (cv && strcmp(cv, modes[m]) == 0)
            CT_ASSERT_MSG(mode == m, "CLOPS_GEMM_TF32_CONVERT=%s, the mode reads %d", cv, mode);
    for (int m = GEMM_TF32_PASS; m <= GEMM_TF32_TMA; m++) {
        gemm_engine_set_tf32_convert(m);
        CT_ASSERT(gemm_engine_tf32_convert() == m);
    }
    /* (the default: the TMA copy's conversion since engine14) */
    gemm_engine_set_tf32_convert(7);
    CT_ASSERT(gemm_engine_tf32_convert() == GEMM_TF32_TMA);
    gemm_engine_set_tf32_convert(mode);
    ct_clear_context();
}

/*
 * The wgmma configuration a float32 product asks for under "high" (host
 * logic, no device; gemm_engine_wgmma_want): TMA boxes (engine12) for
 * products of K-major operands where engine11's rule takes them and the
 * float32 TMA switch is on; the cp.async defaults with it off, and for
 * every product with an M/N-major operand (float32 boxes take no
 * transpose) whatever the switch; 16-bit products follow the rule either
 * way.  132 units (H100, H200).
 */
static void float32_tma_default_follows_its_switch(void **state)
{
    (void)state;
    const char *off = getenv("CLOPS_GEMM_TMA_RULE");
    bool rule = !(off && strcmp(off, "0") == 0), was = gemm_engine_tf32_tma();
    static const struct {
        clops_dtype dt;
        int64_t m, n, k;
        bool a_uk, b_uk;
        const char *on, *off; /* float32 TMA on, off (with the rule) */
    } cases[] = {
        {CLOPS_FLOAT32, 4096, 4096, 4096, true, true, "wg128x128-k64-s1-tma-cs", "wg128x128-s3-cs"},
        {CLOPS_FLOAT32, 8192, 8192, 8192, true, true, "wg128x128-k64-s1-tma-cs", "wg128x128-s3-cs"},
        {CLOPS_FLOAT32, 4096, 3072, 768, true, true, "wg128x128-k64-s1-tma-cs", "wg128x128-s3-cs"},
        {CLOPS_FLOAT32, 4096, 768, 3072, true, true, "wg64x128-k64-s1-tma-cs", "wg64x128-s4-cs"},
        {CLOPS_FLOAT32, 4096, 768, 768, true, true, "wg64x128-k64-s1-tma-cs", "wg64x128-s4-cs"},
        {CLOPS_FLOAT32, 4096, 4096, 4096, true, false, "wg128x128-s3-cs", "wg128x128-s3-cs"},
        {CLOPS_FLOAT32, 4096, 768, 3072, true, false, "wg64x128-s4-cs", "wg64x128-s4-cs"},
        {CLOPS_FLOAT32, 4096, 4096, 4096, false, true, "wg128x128-s3-cs", "wg128x128-s3-cs"},
        {CLOPS_FLOAT32, 4096, 4096, 512, true, true, "wg128x128-s3-cs", "wg128x128-s3-cs"},
        {CLOPS_BFLOAT16, 4096, 4096, 4096, true, false, "wg64x128-k64-s1-tma-cs",
         "wg64x128-k64-s1-tma-cs"},
        {CLOPS_BFLOAT16, 4096, 768, 3072, true, false, "wg64x128-s3-tma-cs-o5",
         "wg64x128-s3-tma-cs-o5"},
    };
    for (int on = 1; on >= 0; on--) {
        gemm_engine_set_tf32_tma(on != 0);
        for (size_t i = 0; i < CT_COUNT(cases); i++) {
            ct_set_case("%s %lldx%lldx%lld, A %s-major, B %s-major, float32 TMA %s",
                        clops_dtype_name(cases[i].dt), (long long)cases[i].m,
                        (long long)cases[i].n, (long long)cases[i].k, cases[i].a_uk ? "K" : "M",
                        cases[i].b_uk ? "K" : "N", on ? "on" : "off");
            int got = gemm_engine_wgmma_want(cases[i].dt, 1, cases[i].m, cases[i].n, cases[i].k,
                                             132, cases[i].a_uk, cases[i].b_uk);
            CT_ASSERT(got >= 0 && got < gemm_engine_config_count());
            /* (without the rule: the cp.async defaults) */
            const char *want = !rule ? (cases[i].m * cases[i].n >= 2 * 132 * 128 * 128
                                            ? "wg128x128-s3-cs"
                                            : "wg64x128-s4-cs")
                               : on ? cases[i].on
                                    : cases[i].off;
            CT_ASSERT_MSG(strcmp(gemm_engine_config_name(got), want) == 0, "%s, not %s",
                          gemm_engine_config_name(got), want);
        }
    }
    gemm_engine_set_tf32_tma(was);
    ct_clear_context();
}

/*
 * engine11's rule for the wgmma defaults (host logic, no device; the
 * products take a "-tma" configuration only where libcuda encodes tensor
 * maps, mma_config): GPT-2's products at 8 x 512 tokens and Llama's on 132
 * units (H100, H200), in a plain mm's layout (A K-major, B N-major: Conv1D)
 * and a linear layer's (both K-major), with and without rows aligned for
 * TMA.  CLOPS_GEMM_TMA_RULE=0: the cp.async defaults everywhere.
 */
static void tma_rule_picks_the_measured_defaults(void **state)
{
    (void)state;
    const char *off = getenv("CLOPS_GEMM_TMA_RULE");
    bool rule = !(off && strcmp(off, "0") == 0);
    static const char *const names[] = {"wg128x128-s3-cs", "wg64x128-s4-cs",
                                        "wg64x128-k64-s1-tma-cs", "wg128x128-k64-s1-tma-cs",
                                        "wg64x128-s3-tma-cs-o5"};
    static const struct {
        int64_t batch, m, n, k;
        bool a_uk, b_uk, tma;
        int rule, plain; /* names[]: with the rule, without it */
    } cases[] = {
        {1, 4096, 4096, 4096, true, false, true, 2, 0},   /* square 4096, mm */
        {1, 4096, 4096, 4096, true, true, true, 3, 0},    /* linear */
        {1, 4096, 4096, 4096, false, false, true, 2, 0},  /* both transposed */
        {1, 8192, 8192, 8192, true, false, true, 2, 0},   /* square 8192 */
        {1, 4096, 4096, 11008, true, true, true, 3, 0},   /* Llama's down projection */
        {1, 4096, 11008, 4096, true, true, true, 3, 0},   /* Llama's up projection */
        {1, 4096, 2304, 768, true, false, true, 2, 0},    /* GPT-2's c_attn */
        {1, 4096, 3072, 768, true, false, true, 2, 0},    /* c_fc */
        {1, 4096, 768, 768, true, false, true, 2, 1},     /* c_proj: K 768 */
        {1, 4096, 768, 3072, true, false, true, 4, 1},    /* mlp c_proj */
        {1, 4096, 768, 3072, true, true, true, 2, 1},     /* as a linear layer */
        {1, 4096, 768, 3072, true, false, false, 1, 1},   /* rows not aligned */
        {1, 4096, 4096, 4096, true, false, false, 0, 0},  /* rows not aligned */
        {1, 4096, 4096, 512, true, false, true, 0, 0},    /* K below 768 */
        {32, 512, 512, 64, true, false, true, 0, 0},      /* batched */
        {8, 1024, 1024, 1024, true, false, true, 0, 0},   /* batched */
        {1, 1024, 1024, 8192, true, false, true, 1, 1},   /* 64 blocks: split K */
    };
    for (size_t i = 0; i < CT_COUNT(cases); i++) {
        int got = gemm_engine_wgmma_default(cases[i].batch, cases[i].m, cases[i].n, cases[i].k,
                                            132, cases[i].a_uk, cases[i].b_uk, cases[i].tma);
        const char *want = names[rule ? cases[i].rule : cases[i].plain];
        ct_set_case("%lld x %lldx%lldx%lld, A %s-major, B %s-major, %s", (long long)cases[i].batch,
                    (long long)cases[i].m, (long long)cases[i].n, (long long)cases[i].k,
                    cases[i].a_uk ? "K" : "M", cases[i].b_uk ? "K" : "N",
                    cases[i].tma ? "aligned" : "not aligned");
        CT_ASSERT(got >= 0 && got < gemm_engine_config_count());
        CT_ASSERT_MSG(strcmp(gemm_engine_config_name(got), want) == 0, "the rule picked %s, not %s",
                      gemm_engine_config_name(got), want);
    }
    ct_clear_context();
}

/* --- 3xTF32 (float32 "highest" on Hopper's tensor cores) --------------------- */

/* The largest |C - C64| of a 3xTF32 product emulated on the CPU (M x N x K
 * of uniform values in (-1, 1)): every operand split as the kernel splits
 * it (ref/tf32_split.clh), per k the products a_hi b_lo, a_lo b_hi, a_hi
 * b_hi (each exact in float32: 11 x 11 significant bits) added to a float32
 * sum in that order; terms: bit 0 a_hi b_lo, bit 1 a_lo b_hi, bit 2 a_hi
 * b_hi (7 the kernel, fewer a planted bug). */
static double x3_emulated_error(int m, int n, int k, int terms, uint64_t seed)
{
    float *a = malloc(sizeof(float) * (size_t)(m * k)), *b = malloc(sizeof(float) * (size_t)(k * n));
    float *ah = malloc(sizeof(float) * (size_t)(m * k)), *al = malloc(sizeof(float) * (size_t)(m * k));
    float *bh = malloc(sizeof(float) * (size_t)(k * n)), *bl = malloc(sizeof(float) * (size_t)(k * n));
    CT_ASSERT(a && b && ah && al && bh && bl);
    ct_rng rng = ct_rng_seeded(seed);
    for (int i = 0; i < m * k; i++) {
        a[i] = (float)(2 * ct_rng_uniform(&rng) - 1);
        ah[i] = tf32_split(a[i], &al[i]);
    }
    for (int i = 0; i < k * n; i++) {
        b[i] = (float)(2 * ct_rng_uniform(&rng) - 1);
        bh[i] = tf32_split(b[i], &bl[i]);
    }
    double worst = 0;
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) {
            volatile float acc = 0.0f; /* (one float32 rounding per addition) */
            double ref = 0;
            for (int kk = 0; kk < k; kk++) {
                const int ia = i * k + kk, ib = kk * n + j;
                if (terms & 1)
                    acc = acc + ah[ia] * bl[ib];
                if (terms & 2)
                    acc = acc + al[ia] * bh[ib];
                if (terms & 4)
                    acc = acc + ah[ia] * bh[ib];
                ref += (double)a[ia] * b[ib];
            }
            double e = fabs((double)acc - ref);
            if (e > worst)
                worst = e;
        }
    free(a), free(b), free(ah), free(al), free(bh), free(bl);
    return worst;
}

/*
 * The split (ref/tf32_split.clh, the kernel's own source) on the CPU: hi
 * and lo are TF32 values (low 13 bits zero), x - hi - lo within 2^-22 |x|,
 * rounding to nearest with ties away from zero, finite near FLT_MAX,
 * infinities and NaN kept; and the three products, emulated in float32,
 * within float32's own tolerance (K * 2^-22 * 1.5, docs/gemm.md) of the
 * float64 product, while leaving out either low product (or both: 1xTF32)
 * exceeds it: the bound the GPU test tightens TF32's to can tell a kernel
 * that drops one.
 */
static void tf32_split_and_three_products_meet_the_float32_bound(void **state)
{
    (void)state;
    ct_set_case("tf32_split");
    ct_rng rng = ct_rng_seeded(29);
    for (int i = 0; i < 100000; i++) {
        /* random bits: every exponent, both signs (not inf/NaN here) */
        uint32_t u = (uint32_t)ct_rng_next(&rng);
        if ((u & 0x7F800000u) == 0x7F800000u)
            continue;
        float x = t32_float(u), lo, hi = tf32_split(x, &lo);
        CT_ASSERT_MSG((t32_bits(hi) & 0x1FFFu) == 0 && (t32_bits(lo) & 0x1FFFu) == 0 &&
                          isfinite(hi) && isfinite(lo),
                      "x %08x: hi %08x lo %08x", (unsigned)u, (unsigned)t32_bits(hi),
                      (unsigned)t32_bits(lo));
        /* (a lo below 2^-126 is subnormal: TF32's 10 bits there are 2^-136
         * apart, so tiny x keep 2^-137 absolute) */
        CT_ASSERT_MSG(fabs((double)x - hi - lo) <= 0x1p-22 * fabs((double)x) + 0x1p-137,
                      "x %a: hi %a lo %a", (double)x, (double)hi, (double)lo);
        /* to nearest: |x - hi| at most half of hi's TF32 ulp */
        CT_ASSERT(fabs((double)x - hi) <= 0x1p-11 * fabs((double)x) + 0x1p-137);
    }
    float lo;
    CT_ASSERT(tf32_split(1.0f + 0x1p-11f, &lo) == 1.0f + 0x1p-10f && lo == -0x1p-11f);
    CT_ASSERT(tf32_split(-1.0f - 0x1p-11f, &lo) == -1.0f - 0x1p-10f && lo == 0x1p-11f);
    CT_ASSERT(tf32_split(1.0f + 0x1p-12f, &lo) == 1.0f && lo == 0x1p-12f);
    CT_ASSERT(tf32_split(FLT_MAX, &lo) == t32_float(0x7F7FE000u) && isfinite(lo));
    CT_ASSERT(tf32_split(INFINITY, &lo) == INFINITY && lo == 0.0f);
    CT_ASSERT(isnan(tf32_split(t32_float(0x7F800001u), &lo)) && lo == 0.0f);
    static const int ks[] = {48, 1000};
    for (size_t t = 0; t < CT_COUNT(ks); t++) {
        int k = ks[t];
        double bound = k * 0x1p-22 * 1.5;
        ct_set_case("3xTF32 emulated, 48 x 40 x %d", k);
        double e = x3_emulated_error(48, 40, k, 7, 30 + t);
        CT_ASSERT_MSG(e <= bound, "error %g, bound %g", e, bound);
        for (int terms = 4; terms <= 6; terms++) {
            double d = x3_emulated_error(48, 40, k, terms, 30 + t);
            CT_ASSERT_MSG(d > bound, "products %d: error %g within the bound %g", terms, d, bound);
        }
    }
}

/* The name of the default wgmma configuration (and of the one of products
 * with few blocks after it): the first "wg" one. */
static int first_wg_config(void)
{
    int count = gemm_engine_config_count(), first = 0;
    while (first < count && strncmp(gemm_engine_config_name(first), "wg", 2) != 0)
        first++;
    CT_ASSERT(first < count);
    return first;
}

/* The index of the engine configuration named name (asserted to exist). */
static int config_named(const char *name)
{
    int i = 0;
    while (i < gemm_engine_config_count() && strcmp(gemm_engine_config_name(i), name) != 0)
        i++;
    CT_ASSERT_MSG(i < gemm_engine_config_count(), "no configuration %s", name);
    return i;
}

/*
 * Where float32 "highest" goes with 3xTF32 switched on (host logic, every
 * device): only Hopper is a candidate (or any device while gemm.canary_fail
 * pretends); "high" is not affected; a configuration whose known-answer
 * check fails is checked once and leaves its products to CLBlast, correctly
 * (on POCL the pretended check fails before building anything).
 */
static void float32_highest_takes_3xtf32_only_where_checked(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_opencl_devices(devs, CT_MAX_DEVICES);
    int wg = first_wg_config();
    /* (one matrix: CLBlast's plain SGEMM, which the tests before built) */
    pcase p = {1, 136, 72, 80, true, false, false, 1.0, 0.0};
    for (int di = 0; di < nd; di++) {
        clops_device *d = devs[di];
        ct_set_device(d);
        ct_set_case("3xTF32 candidates");
        gemm_engine_set_3xtf32(false);
        CT_ASSERT(!gemm_engine_3xtf32_candidate(d));
        gemm_engine_set_3xtf32(true);
        CT_ASSERT(gemm_engine_3xtf32_candidate(d) == is_hopper(d));
        /* A forced wgmma configuration, so that the small product tries it. */
        CT_OK(clops_debug_set("gemm.config", wg + 1));
        CT_OK(clops_debug_set("gemm.canary_fail", 1));
        CT_ASSERT(gemm_engine_3xtf32_candidate(d));
        gemm_engine_stats s0, s1;
        gemm_engine_get_stats(&s0);
        for (int i = 0; i < 2; i++) {
            ct_set_case("float32 \"highest\", 3xTF32 check forced to fail, product %d", i);
            check_product(d, CLOPS_FLOAT32, &p, true, true, false);
        }
        gemm_engine_get_stats(&s1);
        CT_ASSERT(s1.canary_runs == s0.canary_runs + 1);
        CT_ASSERT(s1.canary_failures == s0.canary_failures + 1);
        CT_ASSERT(s1.mma_calls == s0.mma_calls && s1.wgmma_calls == s0.wgmma_calls);
        CT_ASSERT(s1.clblast_calls == s0.clblast_calls + 2);
        CT_OK(clops_debug_set("gemm.canary_fail", 0));
        /* "high": TF32 (or the device's float32 path), never 3xTF32. */
        CT_OK(clops_set_float32_matmul_precision("high"));
        ct_set_case("float32 \"high\" with 3xTF32 on");
        const char *path = gemm_engine_path(d, CLOPS_FLOAT32);
        gemm_engine_get_stats(&s0);
        tf32_tol = strcmp(path, "mma") == 0;
        check_product(d, CLOPS_FLOAT32, &p, true, true, false);
        tf32_tol = false;
        gemm_engine_get_stats(&s1);
        CT_ASSERT(path_calls(&s1, path) == path_calls(&s0, path) + 1);
        CT_OK(clops_set_float32_matmul_precision("highest"));
        CT_OK(clops_debug_set("gemm.config", 0));
        gemm_engine_reset_3xtf32();
    }
    ct_clear_context();
}

/*
 * 3xTF32 on Hopper (passed on the H200 in tf32-11's job): the
 * default wgmma configurations forced (their 3xTF32 geometry: 128 x 128 and
 * 64 x 128 blocks), every layout (M-major A and N-major B staged K-major
 * with plain loads), aligned and odd, batched and broadcast, within K *
 * 2^-20 * 1.5 of the float64 reference (TF32's is K * 2^-10 * 1.5), each a
 * wgmma launch, no check failing.  CLOPS_GEMM_3XTF32_DROP=1 (the a_lo b_hi
 * product left out, the check skipped) must make it fail.  Then the
 * default configuration again with promotion (CLOPS_GEMM_3XTF32_PROMOTE=1:
 * passed on the H200 in tf32-11's second job, 28.9 s with the above, and
 * failed with CLOPS_GEMM_3XTF32_DROP=1 beside it, 0.0021 against 1.1e-4);
 * with CLOPS_GEMM_3XTF32_PROMOTE=P set (P 1, 2, 4, 8: engine12's periods),
 * every geometry runs with it.
 */
static void float32_highest_on_3xtf32(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_opencl_devices(devs, CT_MAX_DEVICES);
    int first = first_wg_config();
    for (int di = 0; di < nd; di++) {
        clops_device *d = devs[di];
        ct_set_device(d);
        if (!is_hopper(d))
            continue;
        gemm_engine_set_3xtf32(true);
        /* (with CLOPS_TEST_WGMMA_NEW=1 also engine12's 128 x 128 geometry at
         * two work-groups a unit, "-o2") */
        int o2 = config_named("wg128x128-s3-cs-o2");
        for (int ci = 0; ci < 3; ci++) {
            int cfg = ci < 2 ? first + ci : o2;
            if (!wgmma_config_listed(gemm_engine_config_name(cfg)) || (ci == 2 && !wgmma_new_on()))
                continue;
            char what[96];
            snprintf(what, sizeof what, "\"highest\" on 3xTF32 %s", gemm_engine_config_name(cfg));
            CT_OK(clops_debug_set("gemm.config", cfg + 1));
            gemm_engine_stats s0, s1;
            gemm_engine_get_stats(&s0);
            check_f32_cases(d, what, 0xF, 2);
            gemm_engine_get_stats(&s1);
            CT_ASSERT_MSG(s1.wgmma_calls - s0.wgmma_calls == 4 * CT_COUNT(f32_cases),
                          "%llu wgmma launches",
                          (unsigned long long)(s1.wgmma_calls - s0.wgmma_calls));
            CT_ASSERT(s1.canary_failures == s0.canary_failures);
        }
        if (!getenv("CLOPS_GEMM_3XTF32_PROMOTE")) {
            CT_OK(clops_debug_set("gemm.config", first + 1));
            setenv("CLOPS_GEMM_3XTF32_PROMOTE", "1", 1);
            gemm_engine_stats s0, s1;
            gemm_engine_get_stats(&s0);
            check_f32_cases(d, "\"highest\" on 3xTF32 with promotion", 0xF, 2);
            gemm_engine_get_stats(&s1);
            unsetenv("CLOPS_GEMM_3XTF32_PROMOTE");
            CT_ASSERT(s1.wgmma_calls - s0.wgmma_calls == 4 * CT_COUNT(f32_cases));
            CT_ASSERT(s1.canary_failures == s0.canary_failures);
        }
        CT_OK(clops_debug_set("gemm.config", 0));
        gemm_engine_reset_3xtf32();
    }
    ct_clear_context();
}

/*
 * x3-13 (host logic, every device): 3xTF32's programs follow the settings.
 * CLOPS_GEMM_3XTF32_PASSES parses 0, 2, 4 and "4o" (5), anything else the
 * built-in default; and the defines of each (period, passes) are the ones
 * the kernel needs: WG_X3P the period itself for the full-width set (so a
 * period mapped to the wrong WG_X3P, say 2 and 4 swapped, fails here: the
 * GPU's accuracy tests pass with either), with passes WG_X3P 1 and the
 * period in the tile's depth (BKC 2: 8 deep, BKC 4: 16 deep beside one
 * lo slot), passes only for periods 1 and 2.
 */
static void float32_3xtf32_programs_follow_the_settings(void **state)
{
    (void)state;
    static const env_case cases[] = {{"0", 0},  {"2", 2},   {"4", 4},   {"4o", 5}, {"1", -1},
                                     {"8", -1}, {"", -1},   {"2o", -1}, {"4x", -1}, {"o", -1}};
    int dflt = env_values_parse("CLOPS_GEMM_3XTF32_PASSES", gemm_engine_3xtf32_passes, cases,
                                CT_COUNT(cases));
    CT_ASSERT(dflt == 0 || dflt == 2 || dflt == 4 || dflt == 5);
    static const int periods[] = {0, 1, 2, 4, 8}, passes[] = {0, 2, 4, 5};
    for (int few = 0; few < 2; few++)
        for (size_t i = 0; i < CT_COUNT(periods); i++)
            for (size_t j = 0; j < CT_COUNT(passes); j++) {
                int p = periods[i], h = passes[j];
                ct_set_case("3xTF32 period %d, passes %d, %s", p, h,
                            few ? "64 x 128" : "128 x 128");
                char defs[2048], want[256];
                CT_OK(gemm_engine_3xtf32_defines(p, h, few != 0, defs, sizeof defs));
                bool narrow = h && (p == 1 || p == 2);
                snprintf(want, sizeof want,
                         "#define WG_X3 1\n#define WG_X3P %d\n#define WG_X3H %d\n"
                         "#define WG_X3OV %d\n#define WG_X3LO %d\n",
                         narrow ? 1 : p, narrow ? (h == 5 ? 4 : h) : 0, narrow && h == 5,
                         narrow && p == 2 ? 1 : 2);
                CT_ASSERT_MSG(strstr(defs, want) != NULL, "defines:\n%s", defs);
                /* (BK 16 beside one lo slot: 2 stages of 16 KiB at 128 x 128,
                 * 3 of 12 KiB at 64 x 128) */
                snprintf(want, sizeof want, "#define STAGES %d\n", narrow && p == 2 && !few ? 2 : 3);
                CT_ASSERT_MSG(strstr(defs, want) != NULL, "defines:\n%s", defs);
                snprintf(want, sizeof want, "#define BKC %d\n", narrow && p == 2 ? 4 : 2);
                CT_ASSERT_MSG(strstr(defs, want) != NULL, "defines:\n%s", defs);
            }
    ct_clear_context();
}

/*
 * x3-13 (Hopper): the narrower promotion set gives the full-width set's
 * bits.  Its column passes run the same products in the same order into
 * each column's temporary sums and add them to the running sums once per
 * period as the full-width set does, so for periods 1 and 2 every pass
 * setting (2, 4, 4 overlapped) must match CLOPS_GEMM_3XTF32_PASSES=0 bit
 * for bit (and the float64 reference within 3xTF32's tolerance), in the
 * two default geometries, K-major operands through cp.async and (128 x 128
 * only) an M-major A / N-major B at odd offsets through plain loads.
 */
static void float32_3xtf32_passes_give_the_full_width_bits(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_opencl_devices(devs, CT_MAX_DEVICES);
    int first = first_wg_config();
    char *pkeep = env_save("CLOPS_GEMM_3XTF32_PROMOTE"),
         *hkeep = env_save("CLOPS_GEMM_3XTF32_PASSES");
    static const pcase cases[] = {
        {1, 300, 272, 1000, true, false, false, 1.0, 0.0},
        {2, 127, 200, 520, false, false, true, 1.0, -0.5},
    };
    static const char *const hs[] = {"2", "4", "4o"};
    for (int di = 0; di < nd; di++) {
        clops_device *d = devs[di];
        ct_set_device(d);
        if (!is_hopper(d))
            continue;
        gemm_engine_set_3xtf32(true);
        for (int ci = 0; ci < 2; ci++) {
            CT_OK(clops_debug_set("gemm.config", first + ci + 1));
            for (int p = 1; p <= 2; p++) {
                char pv[4];
                snprintf(pv, sizeof pv, "%d", p);
                setenv("CLOPS_GEMM_3XTF32_PROMOTE", pv, 1);
                /* (the 64 x 128 geometry: the K-major case only, for time) */
                for (size_t k = 0; k < (ci ? 1 : CT_COUNT(cases)); k++) {
                    const pcase *pc = &cases[k];
                    bool uk = pc->aligned;
                    opnd oc = geom(pc->batch, pc->m, pc->n, true, pc->aligned, false);
                    ct_set_case("%s, period %d, full width, %lldx%lldx%lld",
                                gemm_engine_config_name(first + ci), p, (long long)pc->m,
                                (long long)pc->n, (long long)pc->k);
                    setenv("CLOPS_GEMM_3XTF32_PASSES", "0", 1);
                    x3_tol = true;
                    void *r0 = check_product(d, CLOPS_FLOAT32, pc, uk, uk, true);
                    for (size_t j = 0; j < CT_COUNT(hs); j++) {
                        ct_set_case("%s, period %d, passes %s, %lldx%lldx%lld",
                                    gemm_engine_config_name(first + ci), p, hs[j],
                                    (long long)pc->m, (long long)pc->n, (long long)pc->k);
                        setenv("CLOPS_GEMM_3XTF32_PASSES", hs[j], 1);
                        gemm_engine_stats s0, s1;
                        gemm_engine_get_stats(&s0);
                        void *r = check_product(d, CLOPS_FLOAT32, pc, uk, uk, true);
                        gemm_engine_get_stats(&s1);
                        CT_ASSERT(s1.wgmma_calls - s0.wgmma_calls == 1);
                        CT_ASSERT(s1.canary_failures == s0.canary_failures);
                        size_t diff = 0;
                        for (int64_t i = 0; i < oc.total; i++)
                            diff += memcmp((float *)r + i, (float *)r0 + i, sizeof(float)) != 0;
                        CT_ASSERT_MSG(diff == 0, "%zu of %lld elements differ from the full width",
                                      diff, (long long)oc.total);
                        free(r);
                    }
                    x3_tol = false;
                    free(r0);
                }
            }
        }
        CT_OK(clops_debug_set("gemm.config", 0));
        gemm_engine_reset_3xtf32();
    }
    env_restore("CLOPS_GEMM_3XTF32_PROMOTE", pkeep);
    env_restore("CLOPS_GEMM_3XTF32_PASSES", hkeep);
    ct_clear_context();
}

/*
 * x3xt14 (Hopper): 3xTF32 with an N-major B (GPT-2's Conv1D weights) gives
 * the same bits whether B lands in its own layout and each K tile's split
 * transposes it (gemm_engine_set_3xtf32_nt(true): WG_X3T, cp.async of
 * 16-byte rows along N where aligned, plain loads along N at an odd
 * offset) or is staged K-major with plain loads (false, x3-13): the same
 * floats reach the same K-major hi and lo tiles.  Within 3xTF32's
 * tolerance of the float64 reference, one wgmma launch each, no check
 * failing; the rule's period and passes (2 and 2), both default
 * geometries and the "-o2" one; an M-major A beside it once.
 */
/* Each part on every Hopper device (nothing elsewhere), with 3xTF32's
 * switches and the forced configuration given back after (x3xt14). */
static void on_hopper_3xtf32(void (*part)(clops_device *d))
{
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_opencl_devices(devs, CT_MAX_DEVICES);
    for (int di = 0; di < nd; di++)
        if (is_hopper(devs[di])) {
            ct_set_device(devs[di]);
            part(devs[di]);
            CT_OK(clops_debug_set("gemm.config", 0));
            gemm_engine_reset_3xtf32_nt();
            gemm_engine_reset_3xtf32();
        }
    ct_clear_context();
}

static void x3_nmajor_bits(clops_device *d)
{
    int first = first_wg_config();
    char *pkeep = env_save("CLOPS_GEMM_3XTF32_PROMOTE"),
         *hkeep = env_save("CLOPS_GEMM_3XTF32_PASSES");
    static const struct {
        pcase p;
        bool a_uk;
    } cases[] = {
        {{1, 300, 272, 1000, true, false, false, 1.0, 0.0}, true},
        {{1, 127, 200, 520, false, false, false, 1.0, -0.5}, true},
        {{1, 260, 136, 776, true, false, false, 0.5, 1.0}, false},
    };
    gemm_engine_set_3xtf32(true);
    setenv("CLOPS_GEMM_3XTF32_PROMOTE", "2", 1);
    setenv("CLOPS_GEMM_3XTF32_PASSES", "2", 1);
    int o2 = config_named("wg128x128-s3-cs-o2");
    for (int ci = 0; ci < 3; ci++) {
        int cfg = ci < 2 ? first + ci : o2;
        CT_OK(clops_debug_set("gemm.config", cfg + 1));
        for (size_t k = 0; k < CT_COUNT(cases); k++) {
            const pcase *pc = &cases[k].p;
            opnd oc = geom(pc->batch, pc->m, pc->n, true, pc->aligned, false);
            void *r[2];
            for (int nt = 0; nt < 2; nt++) {
                ct_set_case("%s, B N-major%s, A %s, %s, %lldx%lldx%lld",
                            gemm_engine_config_name(cfg), pc->aligned ? "" : " at an odd offset",
                            cases[k].a_uk ? "K-major" : "M-major",
                            nt ? "landing + transposing split" : "plain loads K-major",
                            (long long)pc->m, (long long)pc->n, (long long)pc->k);
                gemm_engine_set_3xtf32_nt(nt != 0);
                gemm_engine_stats s0, s1;
                gemm_engine_get_stats(&s0);
                x3_tol = true;
                r[nt] = check_product(d, CLOPS_FLOAT32, pc, cases[k].a_uk, false, true);
                x3_tol = false;
                gemm_engine_get_stats(&s1);
                CT_ASSERT(s1.wgmma_calls - s0.wgmma_calls == 1);
                CT_ASSERT(s1.canary_failures == s0.canary_failures);
            }
            size_t diff = 0;
            for (int64_t i = 0; i < oc.total; i++)
                diff += memcmp((float *)r[0] + i, (float *)r[1] + i, sizeof(float)) != 0;
            CT_ASSERT_MSG(diff == 0, "%zu of %lld elements differ from the plain loads' bits",
                          diff, (long long)oc.total);
            free(r[0]);
            free(r[1]);
        }
    }
    env_restore("CLOPS_GEMM_3XTF32_PROMOTE", pkeep);
    env_restore("CLOPS_GEMM_3XTF32_PASSES", hkeep);
}

static void float32_3xtf32_nmajor_b_gives_the_plain_bits(void **state)
{
    (void)state;
    on_hopper_3xtf32(x3_nmajor_bits);
}

/*
 * x3-13's default (host logic, every device): CLOPS_GEMM_3XTF32 read again
 * after gemm_engine_reset_3xtf32: "0" off everywhere, "1" and unset (the
 * rule) a candidate on Hopper only; and the rule takes exactly the
 * products x3-13's job measured faster than CLBlast (GPT-2's and
 * BERT-base's layers as linear layers: both operands K-major), not the
 * squares, the MLP, the LM head, attention's batched products, other
 * layouts, misaligned rows, short K or too few blocks.
 */
static void float32_highest_rule_takes_the_measured_products(void **state)
{
    (void)state;
    char *keep = env_save("CLOPS_GEMM_3XTF32");
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_opencl_devices(devs, CT_MAX_DEVICES);
    static const char *const vals[] = {"0", "1", NULL};
    for (int di = 0; di < nd; di++) {
        ct_set_device(devs[di]);
        for (size_t i = 0; i < CT_COUNT(vals); i++) {
            ct_set_case("CLOPS_GEMM_3XTF32=%s", vals[i] ? vals[i] : "(unset)");
            if (vals[i])
                setenv("CLOPS_GEMM_3XTF32", vals[i], 1);
            else
                unsetenv("CLOPS_GEMM_3XTF32");
            gemm_engine_reset_3xtf32();
            CT_ASSERT(gemm_engine_3xtf32_candidate(devs[di]) == (i > 0 && is_hopper(devs[di])));
        }
    }
    env_restore("CLOPS_GEMM_3XTF32", keep);
    gemm_engine_reset_3xtf32();
    static const struct {
        const char *what;
        int64_t batch, m, n, k;
        bool a_k, b_k;
        bool want;
    } cases[] = {
        {"GPT-2 c_attn", 1, 4096, 2304, 768, true, true, true},
        {"GPT-2 c_proj", 1, 4096, 768, 768, true, true, true},
        {"GPT-2 c_fc", 1, 4096, 3072, 768, true, true, true},
        {"GPT-2 mlp c_proj", 1, 4096, 768, 3072, true, true, true},
        {"GPT-2 lm_head", 1, 4096, 50257, 768, true, true, false},
        {"square 4096", 1, 4096, 4096, 4096, true, true, false},
        {"square 2048", 1, 2048, 2048, 2048, true, true, false},
        {"MLP", 1, 4096, 4096, 11008, true, true, false},
        {"N 3072, K 3072", 1, 4096, 3072, 3072, true, true, false},
        {"attention", 32, 512, 512, 64, true, true, false},
        {"batched c_proj", 2, 4096, 768, 768, true, true, false},
        {"K 512", 1, 4096, 768, 512, true, true, false},
        {"B N-major (Conv1D)", 1, 4096, 2304, 768, true, false, false},
        {"A M-major", 1, 4096, 2304, 768, false, true, false},
        {"too few blocks", 1, 1024, 768, 768, true, true, false},
    };
    for (size_t i = 0; i < CT_COUNT(cases); i++) {
        ct_set_case("the 3xTF32 rule: %s", cases[i].what);
        CT_ASSERT(gemm_engine_3xtf32_rule(cases[i].batch, cases[i].m, cases[i].n, cases[i].k,
                                          cases[i].a_k, cases[i].b_k, 132) == cases[i].want);
    }
    /* x3xt14: the B operands the rule's b_kmajor admits: K-major and
     * aligned, and GPT-2's Conv1D weights (N-major, aligned) of the
     * products its H200 job measured faster than CLBlast with such a B
     * (c_attn, c_proj, MLP c_proj; not c_fc, N 3072: a tie) while the
     * N-major staging (landing tiles, the split transposing) is on; never
     * a misaligned one, nor an N-major one on plain loads (x3-13's). */
    static const struct {
        const char *what;
        int64_t m, n, k;
        bool want;
    } conv1d[] = {
        {"GPT-2 c_attn", 4096, 2304, 768, true},
        {"GPT-2 c_proj", 4096, 768, 768, true},
        {"GPT-2 c_fc", 4096, 3072, 768, false},
        {"GPT-2 mlp c_proj", 4096, 768, 3072, true},
        {"GPT-2 lm_head", 4096, 50257, 768, false},
        {"K 512", 4096, 768, 512, false},
    };
    for (int nt = 0; nt < 2; nt++) {
        ct_set_case("3xTF32's B, N-major staging %s", nt ? "on" : "off");
        gemm_engine_set_3xtf32_nt(nt != 0);
        CT_ASSERT(gemm_engine_3xtf32_nt() == (nt != 0));
        CT_ASSERT(gemm_engine_3xtf32_b_fits(false, true, 3072));
        CT_ASSERT(gemm_engine_3xtf32_b_fits(true, true, 2304) == (nt != 0));
        CT_ASSERT(!gemm_engine_3xtf32_b_fits(true, true, 2305));
        CT_ASSERT(!gemm_engine_3xtf32_b_fits(true, false, 768));
        CT_ASSERT(!gemm_engine_3xtf32_b_fits(false, false, 768));
        for (size_t i = 0; i < CT_COUNT(conv1d); i++) {
            ct_set_case("the 3xTF32 rule, B N-major (Conv1D), staging %s: %s", nt ? "on" : "off",
                        conv1d[i].what);
            bool b_ok = gemm_engine_3xtf32_b_fits(true, true, conv1d[i].n);
            CT_ASSERT(gemm_engine_3xtf32_rule(1, conv1d[i].m, conv1d[i].n, conv1d[i].k, true,
                                              b_ok, 132) == (conv1d[i].want && nt));
        }
    }
    /* (and by default, unless the environment says otherwise) */
    ct_set_case("3xTF32's N-major staging by default");
    gemm_engine_reset_3xtf32_nt();
    const char *ntv = getenv("CLOPS_GEMM_3XTF32_NT");
    CT_ASSERT(gemm_engine_3xtf32_nt() == !(ntv && strcmp(ntv, "0") == 0));
    ct_clear_context();
}

/*
 * x3-13's default on Hopper (not run on a GPU by x3-13: its one job ran
 * before the rule existed): unforced, a product of the rule's class
 * (4096 x 768 x 768 with both operands K-major; since x3xt14 also with B
 * N-major and aligned, with and without beta, while the N-major staging
 * is on) is one wgmma launch within 3xTF32's tolerance; outside it (K
 * 512, B N-major on x3-13's plain loads) CLBlast's; and with 3xTF32
 * switched off CLBlast's again.
 */
static void float32_highest_default_on_hopper_follows_the_rule(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_opencl_devices(devs, CT_MAX_DEVICES);
    for (int di = 0; di < nd; di++) {
        clops_device *d = devs[di];
        ct_set_device(d);
        if (!is_hopper(d))
            continue;
        gemm_engine_reset_3xtf32();
        const char *v = getenv("CLOPS_GEMM_3XTF32");
        if (v && *v) /* (forced or off from outside: not the default) */
            continue;
        /* (x3xt14: B N-major and aligned, GPT-2's Conv1D weight, by the
         * rule with the N-major staging on, not with it off; a bias added
         * through beta, as addmm's) */
        static const struct {
            pcase p;
            bool b_k, off, want, plain;
        } cases[] = {
            {{1, 4096, 768, 768, true, false, false, 1.0, 0.0}, true, false, true, false},
            {{1, 4096, 768, 512, true, false, false, 1.0, 0.0}, true, false, false, false},
            {{1, 4096, 768, 768, true, false, false, 1.0, 0.0}, false, false, true, false},
            {{1, 4096, 768, 768, true, false, false, 1.0, 1.0}, false, false, true, false},
            {{1, 4096, 768, 768, true, false, false, 1.0, 0.0}, false, false, false, true},
            {{1, 4096, 768, 768, true, false, false, 1.0, 0.0}, true, true, false, false},
        };
        for (size_t i = 0; i < CT_COUNT(cases); i++) {
            const pcase *pc = &cases[i].p;
            ct_set_case("float32 \"highest\" %lldx%lldx%lld, B %s%s%s%s", (long long)pc->m,
                        (long long)pc->n, (long long)pc->k, cases[i].b_k ? "K-major" : "N-major",
                        pc->beta != 0.0 ? ", beta 1" : "",
                        cases[i].plain ? ", N-major staging off" : "",
                        cases[i].off ? ", 3xTF32 off" : "");
            if (cases[i].off)
                gemm_engine_set_3xtf32(false);
            gemm_engine_set_3xtf32_nt(!cases[i].plain);
            gemm_engine_stats s0, s1;
            gemm_engine_get_stats(&s0);
            x3_tol = true;
            check_product(d, CLOPS_FLOAT32, pc, true, cases[i].b_k, false);
            x3_tol = false;
            gemm_engine_get_stats(&s1);
            /* (the N-major cases as gemm_engine_3xtf32_b_fits says: x3xt14's
             * measured decision, its host test above) */
            bool want = cases[i].want &&
                        (cases[i].b_k || gemm_engine_3xtf32_b_fits(true, true, pc->n));
            CT_ASSERT(s1.wgmma_calls - s0.wgmma_calls == (want ? 1u : 0u));
            CT_ASSERT(s1.clblast_calls - s0.clblast_calls == (want ? 0u : 1u));
            CT_ASSERT(s1.canary_failures == s0.canary_failures);
            gemm_engine_reset_3xtf32();
        }
        gemm_engine_reset_3xtf32_nt();
    }
    ct_clear_context();
}

/*
 * x3xt14 (Hopper): GPT-2's Conv1D through the C API, addmm(bias, x, W)
 * with W [K, N] row-major (B N-major) and a bias vector [N], float32 under
 * "highest" by default (the rule): one wgmma launch (3xTF32 with the
 * N-major staging, where gemm_engine_3xtf32_b_fits admits such a B; else
 * CLBlast's) with the bias epilogue, close to the CPU device's.  2816
 * rows: 22 x 6 = 132 blocks of 128 x 128, an H100's units (the rule's
 * "fills the device").
 */
static void x3_addmm_bias(clops_device *d)
{
    if (getenv("CLOPS_GEMM_3XTF32") && *getenv("CLOPS_GEMM_3XTF32"))
        return; /* (forced or off from outside: not the default) */
    gemm_engine_reset_3xtf32();
    const int64_t m = 2816 * ((d->info.compute_units + 131) / 132), n = 768, k = 768;
    ct_set_case("addmm(bias [%lld], x [%lld, %lld], W [%lld, %lld])", (long long)n, (long long)m,
                (long long)k, (long long)k, (long long)n);
    clops_tensor *bias =
        ct_random(d, CLOPS_FLOAT32, 1, CT_I64(n), CT_CONTIGUOUS, PW_DOMAIN_SMALL, 51);
    clops_tensor *x =
        ct_random(d, CLOPS_FLOAT32, 2, CT_I64(m, k), CT_CONTIGUOUS, PW_DOMAIN_SMALL, 52);
    clops_tensor *w =
        ct_random(d, CLOPS_FLOAT32, 2, CT_I64(k, n), CT_CONTIGUOUS, PW_DOMAIN_SMALL, 53);
    clops_tensor *bc = ct_to_cpu(bias), *xc = ct_to_cpu(x), *wc = ct_to_cpu(w);
    clops_tensor *y = NULL, *yc = NULL;
    gemm_engine_stats s0, s1;
    gemm_engine_get_stats(&s0);
    CT_OK(clops_addmm(bias, x, w, clops_scalar_int(1), clops_scalar_int(1), &y));
    gemm_engine_get_stats(&s1);
    CT_OK(clops_addmm(bc, xc, wc, clops_scalar_int(1), clops_scalar_int(1), &yc));
    bool want = gemm_engine_3xtf32_b_fits(true, true, n);
    CT_ASSERT_MSG(s1.wgmma_calls - s0.wgmma_calls == (want ? 1u : 0u), "%llu wgmma launches",
                  (unsigned long long)(s1.wgmma_calls - s0.wgmma_calls));
    CT_ASSERT(s1.canary_failures == s0.canary_failures);
    CT_ASSERT_CLOSE(y, yc, ct_tol_ulp_atol(64, 2e-5 * sqrt((double)k)));
    clops_tensor *all[] = {bias, x, w, bc, xc, wc, y, yc};
    for (size_t i = 0; i < CT_COUNT(all); i++)
        clops_tensor_release(all[i]);
}

static void float32_highest_addmm_bias_on_3xtf32(void **state)
{
    (void)state;
    on_hopper_3xtf32(x3_addmm_bias);
}

/*
 * float32 as TF32 on Hopper (engine13): which conversion each switch gives,
 * by a known answer (test float32_tf32_conversion_known_answers; the
 * transposed tiles against the reference, below, are
 * float32_transposed_tiles_match_reference: two tests since engine14, so
 * that a GPU job can run the known answers alone).  A's rows in turn
 * 1 + 3 * 2^-12 (below TF32's 10 mantissa bits: to nearest 1 + 2^-10,
 * truncated 1) and two ties (engine14): 1 + 2^-11 (to even 1, away
 * 1 + 2^-10, truncated 1) and 1 + 3 * 2^-11 (to even and away 1 + 2^-9,
 * truncated 1 + 2^-10); B's elements 1, K 16, a product that fills the
 * device: C's row is exactly 16 times A's value as converted, rounded to
 * nearest with ties away (cvt.rna: the rounding pass, mma.sync's
 * fragments), truncated where wgmma reads them as staged, and by the TMA
 * copy's conversion (TMA tiles forced under "tma") to nearest with ties to
 * even (engine14's H200, where the test accepted either rounding to
 * nearest and printed which: ties to even, as cuBLAS TF32 rounds; printed
 * still); under each gemm_engine_set_tf32_convert mode, for B K-major
 * (wgmma: the default cp.async tiles, and TMA tiles forced) and N-major
 * (mma.sync, or wgmma with gemm_engine_set_wgmma_tf32_xt), the launches
 * counted.  (The float32 tests above cover mma.sync's TF32 elsewhere.)
 */
static void tf32_known_answers(clops_device *d)
{
    static const char *const mnames[] = {"rounded by a pass", "truncated",
                                         "converted by TMA copies"};
    int tma_cfg = -1;
    for (int i = 0; i < gemm_engine_config_count(); i++)
        if (strcmp(gemm_engine_config_name(i), "wg128x128-k64-s1-tma-cs") == 0)
            tma_cfg = i;
    CT_ASSERT(tma_cfg >= 0);
    int64_t side = 128;
    while ((side / 128) * (side / 128) < 2 * (int64_t)d->info.compute_units)
        side += 128;
    const int64_t k = 16;
    int64_t sa[2] = {side, k}, sb[2] = {k, side}, sw[2] = {side, k}, sc[2] = {side, side};
    int64_t off = 0;
    size_t na = (size_t)(side * k);
    float *ha = malloc(na * 4), *hb = malloc(na * 4), *hc = malloc((size_t)(side * side) * 4);
    CT_ASSERT(ha && hb && hc);
    /* (A's values; what each becomes: to nearest with ties away, to
     * nearest with ties to even, truncated) */
    static const float av[3] = {1.0f + 3 * 0x1p-12f, 1.0f + 0x1p-11f, 1.0f + 3 * 0x1p-11f};
    static const float conv[3][3] = {{1.0f + 0x1p-10f, 1.0f + 0x1p-10f, 1.0f},
                                     {1.0f + 0x1p-10f, 1.0f, 1.0f},
                                     {1.0f + 0x1p-9f, 1.0f + 0x1p-9f, 1.0f + 0x1p-10f}};
    enum { AWAY, EVEN, TRUNC };
    static const char *const rnames[] = {"to nearest, ties away", "to nearest, ties to even",
                                         "truncated"};
    for (size_t i = 0; i < na; i++)
        ha[i] = av[i / (size_t)k % 3], hb[i] = 1.0f;
    clops_tensor *ta, *tbn, *tw, *tc, *va, *vbn, *vbk, *vc;
    CT_OK(clops_from_host(d, CLOPS_FLOAT32, 2, sa, ha, na * 4, &ta));
    CT_OK(clops_from_host(d, CLOPS_FLOAT32, 2, sb, hb, na * 4, &tbn));
    CT_OK(clops_from_host(d, CLOPS_FLOAT32, 2, sw, hb, na * 4, &tw));
    CT_OK(clops_empty(d, CLOPS_FLOAT32, 2, sc, &tc));
    /* (3-D views: A [1, side, k], B [1, k, side] N-major or the
     * transpose of W [side, k] (K-major), C [1, side, side]) */
    int64_t s3a[3] = {1, side, k}, s3b[3] = {1, k, side}, s3c[3] = {1, side, side};
    int64_t t3a[3] = {side * k, k, 1}, t3bn[3] = {k * side, side, 1},
            t3bk[3] = {k * side, 1, k}, t3c[3] = {side * side, side, 1};
    CT_OK(core_as_strided(ta, s3a, 3, t3a, 3, &off, &va));
    CT_OK(core_as_strided(tbn, s3b, 3, t3bn, 3, &off, &vbn));
    CT_OK(core_as_strided(tw, s3b, 3, t3bk, 3, &off, &vbk));
    CT_OK(core_as_strided(tc, s3c, 3, t3c, 3, &off, &vc));
    for (int v = 0; v < 3 * 2 * 3; v++) {
        /* (B: N-major, K-major, K-major with TMA tiles forced) */
        int mode = v % 3, bl = v / 6;
        bool xt = v / 3 % 2, bk = bl > 0;
        if (bl == 2 && xt)
            continue;
        ct_set_case("float32 \"high\", %lldx%lldx%lld, B %s, TF32 %s, transposed tiles %s",
                    (long long)side, (long long)side, (long long)k,
                    bl == 2 ? "K-major, TMA tiles forced" : bk ? "K-major" : "N-major",
                    mnames[mode], xt ? "on" : "off");
        gemm_engine_set_tf32_convert(mode);
        gemm_engine_set_wgmma_tf32_xt(xt);
        CT_OK(clops_debug_set("gemm.config", bl == 2 ? tma_cfg + 1 : 0));
        clops_tensor *vb = bk ? vbk : vbn;
        gemm_engine_stats s0, s1;
        gemm_engine_get_stats(&s0);
        CT_OK(gemm_engine_cl("test", va, vb, vc, clops_scalar_float(1.0),
                             clops_scalar_float(0.0)));
        gemm_engine_get_stats(&s1);
        bool wg = bk || xt;
        CT_ASSERT_MSG(s1.wgmma_calls - s0.wgmma_calls == (wg ? 1u : 0u) &&
                          s1.mma_calls - s0.mma_calls == 1,
                      "wgmma %llu, mma %llu launches",
                      (unsigned long long)(s1.wgmma_calls - s0.wgmma_calls),
                      (unsigned long long)(s1.mma_calls - s0.mma_calls));
        CT_OK(clops_tensor_to_host(tc, hc, (size_t)(side * side) * 4));
        /* The TMA copy's conversion as C's first row of each tie shows
         * it (1 + 2^-11 rounded up: ties away; else 1 + 3 * 2^-11 rounded
         * up: ties to even; else truncation): ties to even (engine14's
         * H200, as cuBLAS TF32); the rest as cvt.rna or truncation. */
        int r = wg && mode == GEMM_TF32_TRUNC ? TRUNC : AWAY;
        if (bl == 2 && mode == GEMM_TF32_TMA) {
            int seen = hc[side] == (float)k * conv[1][AWAY]       ? AWAY
                       : hc[2 * side] == (float)k * conv[2][EVEN] ? EVEN
                                                                  : TRUNC;
            print_message("  the TMA copy converts float32 to TF32 %s: C %.9g (16 * (1 + 2^-11)), "
                          "%.9g (16 * (1 + 3 * 2^-11))\n",
                          rnames[seen], (double)hc[side], (double)hc[2 * side]);
            CT_ASSERT_MSG(seen == EVEN, "the TMA copy converts float32 to TF32 %s, not %s",
                          rnames[seen], rnames[EVEN]);
            r = EVEN;
        }
        int64_t bad = 0, first = -1;
        for (int64_t i = 0; i < side * side; i++)
            if (hc[i] != (float)k * conv[i / side % 3][r]) {
                bad++;
                if (first < 0)
                    first = i;
            }
        CT_ASSERT_MSG(bad == 0, "%lld of %lld elements differ from 16 * A's value %s "
                      "(first %lld: %.9g against %.9g)",
                      (long long)bad, (long long)(side * side), rnames[r], (long long)first,
                      first >= 0 ? (double)hc[first] : 0.0,
                      first >= 0 ? (double)k * conv[first / side % 3][r] : 0.0);
    }
    CT_OK(clops_debug_set("gemm.config", 0));
    clops_tensor *all[] = {ta, tbn, tw, tc, va, vbn, vbk, vc};
    for (size_t i = 0; i < CT_COUNT(all); i++)
        clops_tensor_release(all[i]);
    free(ha), free(hb), free(hc);
}

/*
 * float32 as TF32 on Hopper with transposed tiles on (engine13), rounded
 * and truncated: the two default wgmma configurations forced (every
 * configuration with CLOPS_TEST_WGMMA_NEW=1, or those of
 * CLOPS_TEST_WGMMA_ONLY) in every layout, aligned and odd, against the
 * reference within TF32's tolerance (truncated: twice it); only products
 * whose operands are both M/N-major may miss wgmma (their two K-major tiles
 * do not fit 48 KiB beside 128 x 128 slots), and no known-answer check
 * fails.
 */
static void tf32_transposed_tiles(clops_device *d)
{
    gemm_engine_set_wgmma_tf32_xt(true);
    int count = gemm_engine_config_count(), first = first_wg_config();
    for (int trunc = 0; trunc < 2; trunc++) {
        gemm_engine_set_tf32_convert(trunc ? GEMM_TF32_TRUNC : GEMM_TF32_PASS);
        for (int cfg = 0; cfg < count; cfg++) {
            if (strncmp(gemm_engine_config_name(cfg), "w", 1) != 0 ||
                !wgmma_config_listed(gemm_engine_config_name(cfg)) ||
                (!wgmma_new_on() && !getenv("CLOPS_TEST_WGMMA_ONLY") && cfg != first &&
                 cfg != first + 1))
                continue;
            CT_OK(clops_debug_set("gemm.config", cfg + 1));
            gemm_engine_stats s0, s1;
            gemm_engine_get_stats(&s0);
            char what[96];
            snprintf(what, sizeof what, "\"high\" on wgmma %s, %s, transposed tiles",
                     gemm_engine_config_name(cfg), trunc ? "truncated" : "rounded");
            check_f32_cases(d, what, 0xF, 1);
            gemm_engine_get_stats(&s1);
            uint64_t wgr = s1.wgmma_calls - s0.wgmma_calls;
            CT_ASSERT_MSG(wgr >= 3 * CT_COUNT(f32_cases), "%llu wgmma launches",
                          (unsigned long long)wgr);
            CT_ASSERT(s1.canary_failures == s0.canary_failures);
        }
    }
}

/* Each part above on every Hopper device under "high" (nothing elsewhere),
 * the TF32 switches it changes given back after. */
static void on_hopper_under_high(void (*part)(clops_device *d))
{
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_opencl_devices(devs, CT_MAX_DEVICES);
    int mode0 = gemm_engine_tf32_convert();
    bool xt0 = gemm_engine_wgmma_tf32_xt();
    CT_OK(clops_set_float32_matmul_precision("high"));
    for (int di = 0; di < nd; di++)
        if (is_hopper(devs[di])) {
            ct_set_device(devs[di]);
            part(devs[di]);
            CT_OK(clops_debug_set("gemm.config", 0));
        }
    gemm_engine_set_tf32_convert(mode0);
    gemm_engine_set_wgmma_tf32_xt(xt0);
    CT_OK(clops_set_float32_matmul_precision("highest"));
    ct_clear_context();
}

static void float32_tf32_conversion_known_answers(void **state)
{
    (void)state;
    on_hopper_under_high(tf32_known_answers);
}

static void float32_transposed_tiles_match_reference(void **state)
{
    (void)state;
    on_hopper_under_high(tf32_transposed_tiles);
}

#define TIMED(f) cmocka_unit_test_setup_teardown(f, time_setup, time_teardown)

int main(void)
{
    const struct CMUnitTest tests[] = {
        TIMED(float32_precision_setting_takes_pytorch_names),
        TIMED(tma_map_fields_follow_the_encoder_rules),
        TIMED(tma_configurations_match_the_default_bits),
        TIMED(tma_rule_picks_the_measured_defaults),
        TIMED(float32_engine_settings_follow_the_environment),
        TIMED(float32_tma_default_follows_its_switch),
        TIMED(engine_matches_reference_in_every_layout),
        TIMED(empty_reduction_scales_c),
        TIMED(float32_under_high_precision),
        TIMED(float32_tf32_conversion_known_answers),
        TIMED(float32_transposed_tiles_match_reference),
        TIMED(the_same_product_gives_the_same_bits),
        TIMED(skinny_and_split_products_match_reference),
        TIMED(ops_reach_the_engine_and_float64_goes_to_clblast),
        TIMED(a_failed_known_answer_check_falls_back_to_fma),
        TIMED(fused_epilogues_match_the_host),
        TIMED(addmm_activation_matches_the_cpu),
        TIMED(wgmma_is_chosen_by_capability),
        TIMED(the_ptx_route_builds_on_hopper_and_fails_clearly_elsewhere),
        TIMED(tf32_split_and_three_products_meet_the_float32_bound),
        TIMED(float32_highest_takes_3xtf32_only_where_checked),
        TIMED(float32_highest_on_3xtf32),
        TIMED(float32_3xtf32_programs_follow_the_settings),
        TIMED(float32_3xtf32_passes_give_the_full_width_bits),
        TIMED(float32_3xtf32_nmajor_b_gives_the_plain_bits),
        TIMED(float32_highest_rule_takes_the_measured_products),
        TIMED(float32_highest_default_on_hopper_follows_the_rule),
        TIMED(float32_highest_addmm_bias_on_3xtf32),
    };
    /* CLOPS_TEST_FILTER: only the tests whose names match (cmocka's
     * pattern), for GPU jobs that time one path. */
    const char *filter = getenv("CLOPS_TEST_FILTER");
    if (filter && *filter)
        cmocka_set_test_filter(filter);
    return cmocka_run_group_tests(tests, NULL, ct_teardown_group);
}
