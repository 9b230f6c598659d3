/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench/probe_tma.c: can Hopper's tensor-memory accelerator (TMA) be used
 * from NVIDIA's OpenCL?  (issue 29, docs/gemm.md "Hopper: TMA through
 * NVIDIA's OpenCL (engine10)".)
 *
 *     probe_tma [--platform-index N]       run every probe on the first
 *                                           NVIDIA device of compute
 *                                           capability 9.x (exit 77 when
 *                                           there is none)
 *     probe_tma --dump-ptx DIR              write the kernels' PTX to DIR
 *                                           (to assemble with ptxas)
 *
 * The kernels are PTX (bench/probe_tma_ptx.h), loaded with
 * clCreateProgramWithBinary as the engine's PTX route loads its patched
 * text.  The probes, in order, each printed as one "probe ...:" line:
 *   addr      a kernel reads a buffer's device address ((ulong)p) and a
 *             later kernel loads through that address passed as a number;
 *   encode    libcuda's host-only cuTensorMapEncodeTiled, through
 *             dlopen("libcuda.so.1") (with and without cuInit);
 *   load-*    one box through a host-encoded map in a buffer, for each
 *             swizzle, checked element by element against the layout
 *             gemm_tma_chunk_offset computes (zeros past the edges);
 *   patch-*   the map made on the device: the host's template with the
 *             address replaced (tensormap.replace), and one built from
 *             zeros field by field, compared byte for byte with the host's
 *             encoding and used for a load;
 *   cluster   `.reqnctapercluster 2, 1, 1` honoured at an OpenCL launch;
 *   mcast     a TMA multicast into both work-groups of a cluster;
 *   stream    the copy engine's rate feeding 128 x 128 blocks of a GEMM's
 *             K loop (no products), persistent groups, TFLOP/s of the
 *             products those copies would feed (compare `CLOPS_GEMM_PROBE=10`
 *             of bench_gemm, cp.async copies alone).
 * Each step runs in a process of its own (fork, before any OpenCL call in
 * the parent): a kernel that faults takes the process's NVIDIA OpenCL
 * device with it.  libcuda's encoder needs a current CUDA context: each
 * step retains the primary context of CUDA's device 0 when it asks.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <stdalign.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <time.h>

#ifdef __APPLE__
#include <OpenCL/opencl.h>
#else
#include <CL/cl.h>
#endif

#include "bench/probe_tma_ptx.h"
#include "ops/gemm/gemm_tma.h"

/* --- libcuda's encoder ------------------------------------------------------ */

typedef int (*encode_fn)(void *map, int dtype, uint32_t rank, void *addr, const uint64_t *dims,
                         const uint64_t *strides, const uint32_t *box, const uint32_t *estrides,
                         int interleave, int swizzle, int l2promo, int oobfill);
typedef int (*init_fn)(unsigned flags);
typedef int (*errstr_fn)(int err, const char **s);
typedef int (*devget_fn)(int *dev, int ordinal);
typedef int (*retain_fn)(void **ctx, int dev);
typedef int (*setcur_fn)(void *ctx);

static encode_fn cu_encode;
static init_fn cu_init;
static errstr_fn cu_errstr;

typedef struct tmap {
    alignas(64) uint64_t w[16];
} tmap;

static const char *cu_err(int e)
{
    const char *s = NULL;
    if (cu_errstr && cu_errstr(e, &s) == 0 && s)
        return s;
    return "?";
}

/* Encodes m's fields with libcuda (UINT16 elements: the bits are copied as
 * they are; l2 the L2 promotion, 0 none, 3 256 bytes). */
static int encode(const gemm_tma_map2d *m, int l2, tmap *out)
{
    uint64_t dims[2] = {m->gdim[0], m->gdim[1]}, strides[1] = {m->gstride};
    uint32_t box[2] = {m->box[0], m->box[1]}, es[2] = {1, 1};
    memset(out, 0, sizeof *out);
    return cu_encode(out, 1 /* CU_TENSOR_MAP_DATA_TYPE_UINT16 */, 2, (void *)(uintptr_t)m->addr, dims,
                     strides, box, es, 0, (int)m->swizzle, l2, 0);
}

/* --- OpenCL ------------------------------------------------------------------ */

static cl_platform_id plat;
static cl_device_id dev;
static cl_context ctx;
static cl_command_queue q;
static unsigned units;

enum { P_ADDR, P_LOAD, P_PATCH, P_CLUSTER, P_MCAST, P_STREAM, P_N };
static const char *const ptx_src[P_N] = {ptx_addr, ptx_load, ptx_patch, ptx_cluster, ptx_mcast, ptx_stream};
static const char *const ptx_kernel[P_N] = {"probe_addr",    "probe_tma_load",  "probe_tma_patch",
                                            "probe_cluster", "probe_tma_mcast", "probe_tma_stream"};
static cl_kernel kern[P_N];

static bool find_device(void)
{
    cl_platform_id ps[16];
    cl_uint np = 0;
    if (clGetPlatformIDs(16, ps, &np) != CL_SUCCESS)
        return false;
    for (cl_uint i = 0; i < np && i < 16; i++) {
        cl_device_id ds[16];
        cl_uint nd = 0;
        if (clGetDeviceIDs(ps[i], CL_DEVICE_TYPE_GPU, 16, ds, &nd) != CL_SUCCESS)
            continue;
        for (cl_uint j = 0; j < nd && j < 16; j++) {
            char ext[8192] = "";
            clGetDeviceInfo(ds[j], CL_DEVICE_EXTENSIONS, sizeof ext - 1, ext, NULL);
            if (!strstr(ext, "cl_nv_device_attribute_query"))
                continue;
            cl_uint maj = 0;
            if (clGetDeviceInfo(ds[j], 0x4000, sizeof maj, &maj, NULL) != CL_SUCCESS || maj != 9)
                continue;
            plat = ps[i];
            dev = ds[j];
            cl_uint cu = 0;
            clGetDeviceInfo(dev, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof cu, &cu, NULL);
            units = cu ? cu : 1;
            return true;
        }
    }
    return false;
}

/* A context, a queue and every program that builds (each failure printed
 * once with the driver's log). */
static bool setup(bool verbose)
{
    cl_int err = CL_SUCCESS;
    ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    if (!ctx) {
        printf("probe setup: clCreateContext failed (%d)\n", err);
        return false;
    }
    q = clCreateCommandQueue(ctx, dev, 0, &err);
    if (!q) {
        printf("probe setup: clCreateCommandQueue failed (%d)\n", err);
        return false;
    }
    for (int i = 0; i < P_N; i++) {
        size_t len = strlen(ptx_src[i]) + 1;
        const unsigned char *bin = (const unsigned char *)ptx_src[i];
        cl_int bst = CL_SUCCESS;
        cl_program p = clCreateProgramWithBinary(ctx, 1, &dev, &len, &bin, &bst, &err);
        if (p && err == CL_SUCCESS)
            err = clBuildProgram(p, 1, &dev, "", NULL, NULL);
        if (!p || err != CL_SUCCESS || bst != CL_SUCCESS) {
            if (verbose) {
                char log[4096] = "";
                if (p)
                    clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, sizeof log - 1, log, NULL);
                printf("probe build %s: refused (create/build %d, binary status %d): %s\n",
                       ptx_kernel[i], err, bst, log);
            }
        } else {
            kern[i] = clCreateKernel(p, ptx_kernel[i], &err);
            if (!kern[i] && verbose)
                printf("probe build %s: clCreateKernel failed (%d)\n", ptx_kernel[i], err);
        }
        if (p)
            clReleaseProgram(p);
    }
    return true;
}

static void renew(void);

/* Runs kernel k over groups x local items; on failure prints why (the
 * launch or the wait's error code) and makes a new context. */
static bool launch(int k, size_t groups, size_t local, const char *what)
{
    if (!kern[k]) {
        printf("probe %s: skipped (the kernel %s did not build)\n", what, ptx_kernel[k]);
        return false;
    }
    size_t g = groups * local;
    cl_int err = clEnqueueNDRangeKernel(q, kern[k], 1, NULL, &g, &local, 0, NULL, NULL);
    cl_int ferr = err == CL_SUCCESS ? clFinish(q) : CL_SUCCESS;
    if (err != CL_SUCCESS || ferr != CL_SUCCESS) {
        printf("probe %s: launch failed: clEnqueueNDRangeKernel %d, clFinish %d\n",
               what, err, ferr);
        renew();
        return false;
    }
    return true;
}

static void rel(cl_mem m)
{
    if (m)
        clReleaseMemObject(m);
}

static cl_mem buf_new(size_t bytes, const void *init)
{
    cl_int err = CL_SUCCESS;
    cl_mem m = clCreateBuffer(ctx, CL_MEM_READ_WRITE | (init ? CL_MEM_COPY_HOST_PTR : 0), bytes,
                              (void *)init, &err);
    if (!m)
        printf("probe: clCreateBuffer(%zu) failed (%d)\n", bytes, err);
    return m;
}

static bool rd(cl_mem m, size_t bytes, void *host)
{
    return clEnqueueReadBuffer(q, m, CL_TRUE, 0, bytes, host, 0, NULL, NULL) == CL_SUCCESS;
}

#define ARG(k, i, v) clSetKernelArg(kern[k], (i), sizeof(v), &(v))

/* The device address of m, read by probe_addr (0 when it fails). */
static uint64_t address_of(cl_mem m)
{
    uint64_t res[5] = {0};
    cl_mem out = buf_new(sizeof res, res);
    uint64_t raw = 0;
    if (!out || !kern[P_ADDR])
        return 0;
    ARG(P_ADDR, 0, out);
    ARG(P_ADDR, 1, m);
    ARG(P_ADDR, 2, m);
    ARG(P_ADDR, 3, raw);
    uint64_t a = 0;
    if (launch(P_ADDR, 1, 1, "address") && rd(out, sizeof res, res))
        a = res[0];
    clReleaseMemObject(out);
    return a;
}

/* --- the probes -------------------------------------------------------------- */

/* The test tensor: H rows of W 16-bit elements, row stride S elements. */
enum { TW = 200, TH = 300, TS = 208 };
static uint16_t tval(uint32_t row, uint32_t col)
{
    return (uint16_t)((row * 1009u + col * 7u + 1u) & 0xFFFFu) | 1u;
}

static cl_mem src;       /* the test tensor */
static uint64_t src_addr; /* its device address (0: unknown) */

static bool probe_addr_(bool verbose)
{
    static uint16_t host[TH * TS];
    for (uint32_t r = 0; r < TH; r++)
        for (uint32_t c = 0; c < TS; c++)
            host[r * TS + c] = c < TW ? tval(r, c) : 0xDEAD;
    src = buf_new(sizeof host, host);
    cl_mem other = buf_new(4096, NULL);
    uint64_t res[5] = {0};
    cl_mem out = buf_new(sizeof res, res);
    if (!src || !other || !out || !kern[P_ADDR])
        return false;
    uint64_t raw = 0;
    ARG(P_ADDR, 0, out);
    ARG(P_ADDR, 1, src);
    ARG(P_ADDR, 2, other);
    ARG(P_ADDR, 3, raw);
    bool ok = launch(P_ADDR, 1, 1, "addr") && rd(out, sizeof res, res);
    if (ok) {
        if (verbose)
            printf("probe addr: src 0x%" PRIx64 " other 0x%" PRIx64 " cvta.to.global 0x%" PRIx64
                   " cvta.global 0x%" PRIx64 "\n",
                   res[0], res[1], res[2], res[3]);
        /* The second row's first four elements, loaded through the number. */
        raw = res[0] + (uint64_t)TS * 2;
        ARG(P_ADDR, 3, raw);
        uint64_t want;
        memcpy(&want, host + TS, 8);
        ok = launch(P_ADDR, 1, 1, "addr (load through the number)") && rd(out, sizeof res, res);
        if (ok && verbose)
            printf("probe addr: load through the address as a number: 0x%016" PRIx64
                   ", expected 0x%016" PRIx64 ": %s\n",
                   res[4], want, res[4] == want ? "OK" : "MISMATCH");
        ok = ok && res[4] == want;
        src_addr = ok ? raw - (uint64_t)TS * 2 : 0;
    }
    clReleaseMemObject(other);
    clReleaseMemObject(out);
    return ok;
}

/* A new context after a fault, with the test tensor in it. */
static void renew(void)
{
    /* (after a fault the process's device is gone: the step ends) */
    fflush(stdout);
    _exit(3);
}

static bool quiet;

static void probe_encode(void)
{
    void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        printf("probe encode: dlopen(libcuda.so.1) failed: %s\n", dlerror());
        return;
    }
    cu_encode = (encode_fn)(uintptr_t)dlsym(h, "cuTensorMapEncodeTiled");
    cu_init = (init_fn)(uintptr_t)dlsym(h, "cuInit");
    cu_errstr = (errstr_fn)(uintptr_t)dlsym(h, "cuGetErrorString");
    devget_fn devget = (devget_fn)(uintptr_t)dlsym(h, "cuDeviceGet");
    retain_fn retain = (retain_fn)(uintptr_t)dlsym(h, "cuDevicePrimaryCtxRetain");
    setcur_fn setcur = (setcur_fn)(uintptr_t)dlsym(h, "cuCtxSetCurrent");
    if (!cu_encode) {
        printf("probe encode: libcuda.so.1 has no cuTensorMapEncodeTiled\n");
        return;
    }
    gemm_tma_map2d m;
    const char *why = gemm_tma_map2d_plan(&m, 0x10000, TW, TH, TS, 2, 32, 64, 1);
    if (why) {
        printf("probe encode: plan refused: %s\n", why);
        cu_encode = NULL;
        return;
    }
    tmap t;
    int e = encode(&m, 0, &t);
    if (!quiet)
        printf("probe encode: cuTensorMapEncodeTiled before cuInit: %d (%s)\n", e, cu_err(e));
    if (e != 0 && cu_init) {
        int ie = cu_init(0);
        e = encode(&m, 0, &t);
        if (!quiet)
            printf("probe encode: cuInit(0) %d, then cuTensorMapEncodeTiled %d (%s)\n", ie, e,
                   cu_err(e));
    }
    if (e != 0 && devget && retain && setcur) {
        /* (the primary context of CUDA's device 0: this machine's one GPU) */
        int cd = -1;
        void *cc = NULL;
        int e1 = devget(&cd, 0), e2 = e1 ? -1 : retain(&cc, cd), e3 = e2 ? -1 : setcur(cc);
        e = encode(&m, 0, &t);
        if (!quiet)
            printf("probe encode: cuDeviceGet %d, cuDevicePrimaryCtxRetain %d, cuCtxSetCurrent %d, "
                   "then cuTensorMapEncodeTiled %d (%s)\n",
                   e1, e2, e3, e, cu_err(e));
    }
    if (e != 0)
        cu_encode = NULL;
}

/* Checks a box copied out (bytes at got) against the tensor at (c0, c1). */
static bool check_box(const gemm_tma_map2d *m, uint32_t c0, uint32_t c1, const uint8_t *got,
                      const char *what)
{
    uint32_t chunks = m->box[0] * 2 / 16, bad = 0;
    for (uint32_t r = 0; r < m->box[1]; r++)
        for (uint32_t ch = 0; ch < chunks; ch++) {
            const uint8_t *p = got + gemm_tma_chunk_offset(m, r, ch);
            for (uint32_t e = 0; e < 8; e++) {
                uint32_t row = c1 + r, col = c0 + ch * 8 + e;
                uint16_t want = row < TH && col < TW ? tval(row, col) : 0, v;
                memcpy(&v, p + 2 * e, 2);
                if (v != want && bad++ < 3)
                    printf("probe %s: box row %u element %u: 0x%04x, expected 0x%04x\n", what, r,
                           ch * 8 + e, v, want);
            }
        }
    printf("probe %s: %s (%u of %u elements wrong)\n", what, bad ? "WRONG" : "OK", bad,
           m->box[0] * m->box[1]);
    return bad == 0;
}

typedef struct box_case {
    const char *name;
    uint32_t bi, bo, c0, c1;
    int swz;
} box_case;

static const box_case cases[] = {
    {"sw64 32x64 at (176, 256)", 32, 64, 176, 256, 1},
    {"sw128 64x8 at (0, 5)", 64, 8, 0, 5, 1},
    {"sw32 16x32 at (192, 0)", 16, 32, 192, 0, 1},
    {"none 32x16 at (8, 290)", 32, 16, 8, 290, 0},
};

static void probe_loads(int only)
{
    if (!cu_encode || !src_addr) {
        printf("probe load: skipped (%s)\n", src_addr ? "no host encoder" : "no device address");
        return;
    }
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        if ((int)i != only)
            continue;
        const box_case *c = &cases[i];
        char what[96];
        snprintf(what, sizeof what, "load %s", c->name);
        gemm_tma_map2d m;
        const char *why = gemm_tma_map2d_plan(&m, src_addr, TW, TH, TS, 2, c->bi, c->bo, c->swz);
        tmap t;
        int e = why ? -1 : encode(&m, 0, &t);
        if (why || e) {
            printf("probe %s: not encoded (%s%s)\n", what, why ? why : "cuTensorMapEncodeTiled ",
                   why ? "" : cu_err(e));
            continue;
        }
        uint8_t *got = calloc(1, 16384);
        cl_mem mb = buf_new(sizeof t, &t), out = buf_new(16384, got);
        uint32_t n = m.box_bytes;
        if (got && mb && out) {
            ARG(P_LOAD, 0, mb);
            ARG(P_LOAD, 1, out);
            ARG(P_LOAD, 2, c->c0);
            ARG(P_LOAD, 3, c->c1);
            ARG(P_LOAD, 4, n);
            if (launch(P_LOAD, 1, 128, what) && rd(out, 16384, got))
                check_box(&m, c->c0, c->c1, got, what);
        }
        rel(mb);
        rel(out);
        free(got);
    }
}

static void dump_map(const char *what, const tmap *t)
{
    printf("probe %s: bytes", what);
    for (int i = 0; i < 16; i++)
        printf(" %016" PRIx64, t->w[i]);
    printf("\n");
}

/* mode 0: the host's template (encoded for a dummy address) with the
 * address replaced; mode 1: from zeros, every field (minus_one: the
 * sizes and the rank written less one); + 4: the map made and compared,
 * no box loaded through it. */

static void probe_patch(int mode, bool minus_one)
{
    char what[64];
    snprintf(what, sizeof what, "patch-%s%s", (mode & 1) == 0 ? "template" : minus_one ? "zeros-minus-one" : "zeros",
             mode & 4 ? " (made only)" : "");
    if (!src_addr) {
        printf("probe %s: skipped (no device address)\n", what);
        return;
    }
    gemm_tma_map2d m;
    const char *why = gemm_tma_map2d_plan(&m, src_addr, TW, TH, TS, 2, 32, 64, 1);
    if (why) {
        printf("probe %s: %s\n", what, why);
        return;
    }
    tmap tmpl = {{0}}, want = {{0}};
    bool have_want = false;
    if (cu_encode) {
        gemm_tma_map2d dummy = m;
        dummy.addr = 0x100000;
        have_want = encode(&m, 0, &want) == 0;
        if ((mode & 1) == 0 && encode(&dummy, 0, &tmpl) != 0) {
            printf("probe %s: the template did not encode\n", what);
            return;
        }
    } else if ((mode & 1) == 0) {
        printf("probe %s: skipped (no host encoder)\n", what);
        return;
    }
    uint32_t d = minus_one ? 1 : 0;
    uint64_t fields[9] = {2 - d, m.box[0] - d, m.box[1] - d, m.gdim[0] - d, m.gdim[1] - d, m.gstride,
                          1 - d, 1 - d, m.swizzle};
    uint8_t *got = calloc(1, 16384);
    tmap res = {{0}};
    cl_mem tb = buf_new(sizeof tmpl, &tmpl), db = buf_new(sizeof res, &res),
           out = buf_new(16384, got), fb = buf_new(sizeof fields, fields);
    uint32_t c0 = 176, c1 = 256, n = m.box_bytes, md = (uint32_t)mode;
    uint64_t addr = src_addr;
    if (got && tb && db && out && fb) {
        ARG(P_PATCH, 0, tb);
        ARG(P_PATCH, 1, db);
        ARG(P_PATCH, 2, out);
        ARG(P_PATCH, 3, fb);
        ARG(P_PATCH, 4, addr);
        ARG(P_PATCH, 5, c0);
        ARG(P_PATCH, 6, c1);
        ARG(P_PATCH, 7, n);
        ARG(P_PATCH, 8, md);
        if (launch(P_PATCH, 1, 32, what) && rd(out, 16384, got) && rd(db, sizeof res, &res)) {
            bool ok = mode & 4 ? true : check_box(&m, c0, c1, got, what);
            if (have_want) {
                bool same = memcmp(&res, &want, sizeof res) == 0;
                printf("probe %s: the device's map %s the host's encoding\n", what,
                       same ? "equals" : "differs from");
                if (!same) {
                    dump_map("device map", &res);
                    dump_map("host map  ", &want);
                }
            } else {
                dump_map(what, &res);
            }
            (void)ok;
        }
    }
    rel(tb);
    rel(db);
    rel(out);
    rel(fb);
    free(got);
}

static void probe_cluster_(void)
{
    uint32_t res[4 * 8] = {0};
    cl_mem out = buf_new(sizeof res, res);
    if (!out)
        return;
    ARG(P_CLUSTER, 0, out);
    if (launch(P_CLUSTER, 4, 32, "cluster") && rd(out, sizeof res, res)) {
        for (int g = 0; g < 4; g++)
            printf("probe cluster: group %u rank %u of %u, cluster %u of %u, cluster_ctaid %u, "
                   "explicit %u, mark 0x%x\n",
                   res[8 * g], res[8 * g + 1], res[8 * g + 2], res[8 * g + 3], res[8 * g + 4],
                   res[8 * g + 5], res[8 * g + 6], res[8 * g + 7]);
        bool ok = true;
        for (int g = 0; g < 4; g++)
            ok = ok && res[8 * g + 2] == 2 && res[8 * g + 1] == (uint32_t)(g % 2) && res[8 * g + 7] == 0x600d;
        printf("probe cluster: %s\n", ok ? "OK (clusters of 2 as the PTX asks)" : "NOT honoured");
    }
    clReleaseMemObject(out);
}

static void probe_mcast(void)
{
    if (!src_addr) {
        printf("probe mcast: skipped (no device address)\n");
        return;
    }
    gemm_tma_map2d m;
    const char *why = gemm_tma_map2d_plan(&m, src_addr, TW, TH, TS, 2, 32, 64, 1);
    tmap t;
    if (why || !cu_encode || encode(&m, 0, &t) != 0) {
        printf("probe mcast: skipped (no host encoder)\n");
        return;
    }
    uint8_t *got = calloc(2, 16384);
    cl_mem mb = buf_new(sizeof t, &t), out = buf_new(2 * 16384, got);
    uint32_t c0 = 176, c1 = 256, n = m.box_bytes;
    if (got && mb && out) {
        ARG(P_MCAST, 0, mb);
        ARG(P_MCAST, 1, out);
        ARG(P_MCAST, 2, c0);
        ARG(P_MCAST, 3, c1);
        ARG(P_MCAST, 4, n);
        if (launch(P_MCAST, 2, 32, "mcast") && rd(out, 2 * 16384, got)) {
            check_box(&m, c0, c1, got, "mcast group 0");
            check_box(&m, c0, c1, got + n, "mcast group 1");
        }
    }
    rel(mb);
    rel(out);
    free(got);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void probe_stream(void)
{
    if (!cu_encode || !kern[P_STREAM]) {
        printf("probe stream: skipped (%s)\n", cu_encode ? "kernel not built" : "no host encoder");
        return;
    }
    static const struct {
        const char *name;
        uint32_t m, n, k;
    } shapes[] = {{"square 4096", 4096, 4096, 4096},
                  {"square 8192", 8192, 8192, 8192},
                  {"c_attn 4096x2304x768", 4096, 2304, 768}};
    static const struct {
        uint32_t bk, stages;
    } cfgs[] = {{32, 2}, {16, 4}, {16, 5}, {64, 1}};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        uint32_t M = shapes[s].m, N = shapes[s].n, K = shapes[s].k;
        cl_mem a = buf_new((size_t)M * K * 2, NULL), b = buf_new((size_t)N * K * 2, NULL);
        cl_mem out = buf_new(4u * 8192, NULL);
        if (!a || !b || !out)
            return;
        uint16_t zero = 0;
        clEnqueueFillBuffer(q, a, &zero, 2, 0, (size_t)M * K * 2, 0, NULL, NULL);
        clEnqueueFillBuffer(q, b, &zero, 2, 0, (size_t)N * K * 2, 0, NULL, NULL);
        uint64_t aa = address_of(a), ba = address_of(b);
        for (size_t c = 0; c < sizeof cfgs / sizeof cfgs[0]; c++) {
            uint32_t bk = cfgs[c].bk, st = cfgs[c].stages;
            gemm_tma_map2d ma, mb;
            tmap ta, tb;
            const char *w1 = gemm_tma_map2d_plan(&ma, aa, K, M, K, 2, bk, 128, 1);
            const char *w2 = gemm_tma_map2d_plan(&mb, ba, K, N, K, 2, bk, 128, 1);
            if (w1 || w2 || encode(&ma, 3, &ta) || encode(&mb, 3, &tb)) {
                printf("probe stream: %s bk %u: no map (%s)\n", shapes[s].name, bk, w1 ? w1 : w2 ? w2 : "encode");
                continue;
            }
            cl_mem mA = buf_new(sizeof ta, &ta), mB = buf_new(sizeof tb, &tb);
            uint32_t mbl = M / 128, nbl = N / 128, kt = K / bk;
            ARG(P_STREAM, 0, mA);
            ARG(P_STREAM, 1, mB);
            ARG(P_STREAM, 2, out);
            ARG(P_STREAM, 3, mbl);
            ARG(P_STREAM, 4, nbl);
            ARG(P_STREAM, 5, kt);
            ARG(P_STREAM, 6, bk);
            ARG(P_STREAM, 7, st);
            /* groups: 1-4 a unit (persistent), and one a block. */
            for (int f = 1; f <= 5; f++) {
                size_t groups = f <= 4 ? (size_t)units * (size_t)f : (size_t)mbl * nbl;
                char what[96];
                snprintf(what, sizeof what, "stream %s", shapes[s].name);
                if (!launch(P_STREAM, groups, 32, what))
                    return; /* the buffers went with the old context */
                double best = 1e30;
                for (int round = 0; round < 3; round++) {
                    int reps = 0;
                    double t0 = now(), t1 = t0;
                    size_t g = groups * 32, l = 32;
                    while (t1 - t0 < 0.03) {
                        for (int i = 0; i < 4; i++)
                            clEnqueueNDRangeKernel(q, kern[P_STREAM], 1, NULL, &g, &l, 0, NULL, NULL);
                        clFinish(q);
                        reps += 4;
                        t1 = now();
                    }
                    double per = (t1 - t0) / reps;
                    best = per < best ? per : best;
                }
                double tflops = 2.0 * M * N * K / best * 1e-12;
                double tbs = (double)mbl * nbl * kt * 512.0 * bk / best * 1e-12;
                printf("probe stream: %s bk %u stages %u groups %zu (%s): %.1f us, %.1f TFLOP/s of products fed, "
                       "%.2f TB/s into __local\n",
                       shapes[s].name, bk, st, groups, f <= 4 ? "persistent" : "one a block", best * 1e6,
                       tflops, tbs);
            }
            clReleaseMemObject(mA);
            clReleaseMemObject(mB);
        }
        clReleaseMemObject(a);
        clReleaseMemObject(b);
        clReleaseMemObject(out);
    }
}

static int dump_ptx(const char *dir)
{
    mkdir(dir, 0755);
    for (int i = 0; i < P_N; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s.ptx", dir, ptx_kernel[i]);
        FILE *f = fopen(path, "w");
        if (!f || fputs(ptx_src[i], f) < 0) {
            fprintf(stderr, "probe_tma: cannot write %s: %s\n", path, strerror(errno));
            if (f)
                fclose(f);
            return 1;
        }
        fclose(f);
    }
    return 0;
}

/* The steps, each in a process of its own: a kernel that faults takes the
 * process's NVIDIA OpenCL device with it (engine10's first job: after a
 * fault clCreateContext answered -9999). */
static void step_none(int arg)
{
    (void)arg;
}
static void step_load(int arg)
{
    probe_loads(arg);
}
static void step_patch(int arg)
{
    probe_patch(arg & 0xff, (arg >> 8) != 0);
}
static void step_cluster(int arg)
{
    (void)arg;
    probe_cluster_();
}
static void step_mcast(int arg)
{
    (void)arg;
    probe_mcast();
}
static void step_stream(int arg)
{
    (void)arg;
    probe_stream();
}

static int run_step(const char *name, void (*f)(int), int arg, bool first)
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0) {
        printf("probe %s: fork failed: %s\n", name, strerror(errno));
        return -1;
    }
    if (pid == 0) {
        if (!find_device()) {
            printf("probe_tma: skipped: no NVIDIA OpenCL device of compute capability 9.x\n");
            fflush(stdout);
            _exit(77);
        }
        quiet = !first;
        if (first) {
            char nm[256] = "", drv[256] = "";
            clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof nm - 1, nm, NULL);
            clGetDeviceInfo(dev, CL_DRIVER_VERSION, sizeof drv - 1, drv, NULL);
            printf("probe_tma: %s, driver %s, %u units\n", nm, drv, units);
        }
        if (!setup(first))
            _exit(1);
        if (!probe_addr_(first))
            printf("probe addr: FAILED: no device address\n");
        probe_encode();
        f(arg);
        fflush(stdout);
        _exit(0);
    }
    int st = 0;
    if (waitpid(pid, &st, 0) < 0)
        return -1;
    if (WIFSIGNALED(st))
        printf("probe %s: the process died (signal %d)\n", name, WTERMSIG(st));
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--dump-ptx") == 0)
        return dump_ptx(argv[2]);
    if (argc != 1) {
        fprintf(stderr, "usage: probe_tma [--dump-ptx DIR]\n");
        return 2;
    }
    int r = run_step("addr", step_none, 0, true);
    if (r == 77)
        return 77;
    for (int i = 0; i < (int)(sizeof cases / sizeof cases[0]); i++)
        run_step("load", step_load, i, false);
    /* the maps made on the device, compared with the host's, then used */
    run_step("patch", step_patch, 4, false);
    run_step("patch", step_patch, 0, false);
    run_step("patch", step_patch, 5, false);
    run_step("patch", step_patch, 5 | 256, false);
    run_step("patch", step_patch, 1, false);
    run_step("patch", step_patch, 1 | 256, false);
    run_step("cluster", step_cluster, 0, false);
    run_step("mcast", step_mcast, 0, false);
    run_step("stream", step_stream, 0, false);
    printf("probe_tma: done\n");
    return 0;
}
