/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/test_conv.c: the convolution family (convolution,
 * convolution_backward, im2col, col2im): PyTorch's own results on every
 * device (tests/data/golden_conv.json from tests/data/gen_golden_conv.py,
 * replayed by tests/support/ct_golden.c); a sweep of 1-D, 2-D and 3-D
 * geometries (stride, padding, dilation, groups, depthwise, 1x1,
 * transposed with output_padding, bias, odd sizes, empty batches, strided
 * inputs) forward and backward under every output_mask on each OpenCL
 * device against the CPU reference; float64 gradients of the reference
 * against finite differences; float16/bfloat16 against float32; run-to-run
 * determinism; PyTorch's refusals with messages naming op and shapes.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "clops/matmul.h"
#include "clops/ops.h"
#include "core/debug.h"
#include "core/tensor_impl.h"
#include "ops/conv/conv.h"
#include "ops/gemm/gemm.h"
#include "ops/tensor/tensor.h"
#include "support/clops_test.h"

/* Every golden case on every device. */
static void test_conv_matches_pytorch(void **state)
{
    (void)state;
    ct_replay_golden("golden_conv.json");
}

/* One convolution configuration. */
typedef struct conv_case {
    int nsp;
    int64_t N, cin, cout, groups;
    int64_t in[3], k[3], stride[3], pad[3], dil[3], outpad[3];
    bool transposed, bias;
    ct_layout layout; /* of the input */
} conv_case;

/* The output size of spatial dim i of c; <= 0 when the geometry is bad. */
static int64_t out_size(const conv_case *c, int i)
{
    int64_t eff = c->dil[i] * (c->k[i] - 1) + 1;
    if (c->transposed)
        return (c->in[i] - 1) * c->stride[i] - 2 * c->pad[i] + eff + c->outpad[i];
    int64_t padded = c->in[i] + 2 * c->pad[i];
    return padded < eff ? 0 : (padded - eff) / c->stride[i] + 1;
}

/* The input, weight and output shapes of c. */
static void case_shapes(const conv_case *c, int64_t *xs, int64_t *ws, int64_t *ys)
{
    xs[0] = ys[0] = c->N;
    xs[1] = c->cin;
    ys[1] = c->cout;
    ws[0] = c->transposed ? c->cin : c->cout;
    ws[1] = c->transposed ? c->cout / c->groups : c->cin / c->groups;
    for (int i = 0; i < c->nsp; i++) {
        xs[2 + i] = c->in[i];
        ws[2 + i] = c->k[i];
        ys[2 + i] = out_size(c, i);
    }
}

/* A random valid configuration from r (kind 1: depthwise, 2: 1x1 stride 1). */
static conv_case random_case(ct_rng *r, int kind)
{
    conv_case c;
    for (;;) {
        memset(&c, 0, sizeof c);
        c.nsp = (int)ct_rng_range(r, 1, 3);
        c.groups = ct_rng_range(r, 1, 3);
        c.cin = c.groups * ct_rng_range(r, 1, 3);
        c.cout = c.groups * ct_rng_range(r, 1, 3);
        c.N = ct_rng_range(r, 0, 3) == 0 ? 0 : ct_rng_range(r, 1, 3);
        c.transposed = ct_rng_range(r, 0, 2) == 0;
        c.bias = ct_rng_range(r, 0, 1) == 1;
        c.layout = ct_rng_range(r, 0, 3) == 0 ? CT_TRANSPOSED
                   : ct_rng_range(r, 0, 3) == 0           ? CT_SLICED
                                                          : CT_CONTIGUOUS;
        if (kind == 1) {
            c.transposed = false;
            c.groups = c.cin = ct_rng_range(r, 1, 4);
            c.cout = c.cin * ct_rng_range(r, 1, 2);
        }
        bool ok = true;
        for (int i = 0; i < c.nsp; i++) {
            int64_t maxin = c.nsp == 3 ? 5 : 9;
            c.in[i] = ct_rng_range(r, 1, maxin);
            c.k[i] = kind == 2 ? 1 : ct_rng_range(r, 1, 3);
            c.stride[i] = kind == 2 ? 1 : ct_rng_range(r, 1, 2);
            c.pad[i] = kind == 2 ? 0 : ct_rng_range(r, 0, 1);
            c.dil[i] = kind == 2 ? 1 : ct_rng_range(r, 1, 2);
            int64_t mx = c.stride[i] > c.dil[i] ? c.stride[i] : c.dil[i];
            c.outpad[i] = c.transposed ? ct_rng_range(r, 0, mx - 1) : 0;
            ok &= out_size(&c, i) > 0;
        }
        if (ok)
            return c;
    }
}

/* Runs forward and backward (output_mask from the low 3 bits of mask) of c
 * in dt on dev and on the CPU reference, and compares. */
static void check_case(clops_device *dev, const conv_case *c, clops_dtype dt, unsigned mask,
                       uint64_t seed)
{
    ct_set_case("%dD N=%lld cin=%lld cout=%lld groups=%lld in=[%lld,%lld,%lld] "
                "k=[%lld,%lld,%lld] stride=[%lld,%lld,%lld] pad=[%lld,%lld,%lld] "
                "dil=[%lld,%lld,%lld] outpad=[%lld,%lld,%lld] transposed=%d bias=%d %s %s "
                "mask=%u",
                c->nsp, (long long)c->N, (long long)c->cin, (long long)c->cout,
                (long long)c->groups, (long long)c->in[0], (long long)c->in[1],
                (long long)c->in[2], (long long)c->k[0], (long long)c->k[1], (long long)c->k[2],
                (long long)c->stride[0], (long long)c->stride[1], (long long)c->stride[2],
                (long long)c->pad[0], (long long)c->pad[1], (long long)c->pad[2],
                (long long)c->dil[0], (long long)c->dil[1], (long long)c->dil[2],
                (long long)c->outpad[0], (long long)c->outpad[1], (long long)c->outpad[2],
                c->transposed, c->bias, ct_layout_name(c->layout), clops_dtype_name(dt), mask);
    int nd = 2 + c->nsp;
    int64_t xs[5], ws[5], ys[5];
    case_shapes(c, xs, ws, ys);
    int n = c->nsp;
    clops_tensor *x = ct_random(dev, dt, nd, xs, c->layout, PW_DOMAIN_SMALL, seed);
    clops_tensor *w = ct_random(dev, dt, nd, ws, CT_CONTIGUOUS, PW_DOMAIN_SMALL, seed + 1);
    clops_tensor *b =
        c->bias ? ct_random(dev, dt, 1, &c->cout, CT_CONTIGUOUS, PW_DOMAIN_SMALL, seed + 2) : NULL;
    clops_tensor *g = ct_random(dev, dt, nd, ys, CT_CONTIGUOUS, PW_DOMAIN_SMALL, seed + 3);
    clops_tensor *xc = ct_to_cpu(x), *wc = ct_to_cpu(w), *bc = b ? ct_to_cpu(b) : NULL,
                 *gc = ct_to_cpu(g);
    clops_tensor *y = NULL, *yc = NULL;
    CT_OK(clops_convolution(x, w, b, c->stride, n, c->pad, n, c->dil, n, c->transposed,
                            c->outpad, n, c->groups, &y));
    CT_OK(clops_convolution(xc, wc, bc, c->stride, n, c->pad, n, c->dil, n, c->transposed,
                            c->outpad, n, c->groups, &yc));
    /* The sums have up to cin * K terms of values below 2 in size. */
    ct_tol tol = dt == CLOPS_FLOAT32 ? ct_tol_ulp_atol(64, 1e-5) : ct_tol_ulp_atol(2, 2e-2);
    CT_ASSERT_CLOSE(y, yc, tol);
    bool m[3] = {mask & 1, (mask >> 1) & 1, (mask >> 2) & 1};
    clops_tensor *o[3] = {NULL, NULL, NULL}, *oc[3] = {NULL, NULL, NULL};
    CT_OK(clops_convolution_backward(g, x, w, &c->cout, 1, c->stride, n, c->pad, n, c->dil, n,
                                     c->transposed, c->outpad, n, c->groups, m, 3, &o[0], &o[1],
                                     &o[2]));
    CT_OK(clops_convolution_backward(gc, xc, wc, &c->cout, 1, c->stride, n, c->pad, n, c->dil, n,
                                     c->transposed, c->outpad, n, c->groups, m, 3, &oc[0],
                                     &oc[1], &oc[2]));
    /* grad_weight and grad_bias sum over the batch and positions too: the
     * float32 rounding error grows with the number of terms. */
    int64_t terms = c->N;
    for (int i = 0; i < c->nsp; i++)
        terms *= c->transposed ? c->in[i] : out_size(c, i);
    double scale = terms > 512 ? (double)terms / 512 : 1.0;
    ct_tol btol = dt == CLOPS_FLOAT32 ? ct_tol_ulp_atol(256, 1e-4 * scale)
                                      : ct_tol_ulp_atol(4, 1e-1 * scale);
    for (int i = 0; i < 3; i++) {
        CT_ASSERT_MSG((o[i] != NULL) == m[i], "result %d present %d, asked %d", i, o[i] != NULL,
                      m[i]);
        if (o[i] && oc[i])
            CT_ASSERT_CLOSE(o[i], oc[i], i ? btol : tol);
    }
    clops_tensor *all[] = {x,  w,  b,    g,    xc,   wc,    bc,    gc,
                           y,  yc, o[0], o[1], o[2], oc[0], oc[1], oc[2]};
    for (size_t i = 0; i < CT_COUNT(all); i++)
        clops_tensor_release(all[i]);
}

/* Random geometries (general, depthwise, 1x1) forward and backward under
 * every output_mask against the CPU reference on each OpenCL device. */
static void test_geometries_match_the_reference(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_opencl_devices(devs, CT_MAX_DEVICES);
    for (int di = 0; di < nd; di++) {
        ct_set_device(devs[di]);
        ct_rng r = ct_rng_seeded(18);
        for (int i = 0; i < 48; i++) {
            conv_case c = random_case(&r, i % 6 == 4 ? 1 : i % 6 == 5 ? 2 : 0);
            check_case(devs[di], &c, CLOPS_FLOAT32, (unsigned)((i + i / 6) % 8),
                       (uint64_t)(100 + i));
        }
        /* Many positions per sample: the weight gradient's GEMM is cut
         * into per-sample slices summed in order (ops/conv/conv_gemm.c). */
        conv_case big = {.nsp = 2, .N = 3, .cin = 2, .cout = 3, .groups = 1,
                         .in = {66, 66, 1}, .k = {3, 3, 1}, .stride = {1, 1, 1},
                         .pad = {0, 0, 0}, .dil = {1, 1, 1}, .bias = true,
                         .layout = CT_CONTIGUOUS};
        check_case(devs[di], &big, CLOPS_FLOAT32, 7, 99);
        big.groups = 2;
        big.cout = 4;
        check_case(devs[di], &big, CLOPS_FLOAT32, 2, 98);
    }
    ct_clear_context();
}

/* float16 and bfloat16 (float32 inside) close to the reference. */
static void test_half_types_match_the_reference(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_opencl_devices(devs, CT_MAX_DEVICES);
    for (int di = 0; di < nd; di++) {
        ct_set_device(devs[di]);
        ct_rng r = ct_rng_seeded(19);
        for (int i = 0; i < 6; i++) {
            conv_case c = random_case(&r, i % 3);
            check_case(devs[di], &c, i % 2 ? CLOPS_BFLOAT16 : CLOPS_FLOAT16, 7,
                       (uint64_t)(300 + i));
        }
    }
    ct_clear_context();
}

/* sum(conv(x, w, b) * r) of host arrays on the CPU device (float64). */
static double loss(const conv_case *c, const double *xv, const double *wv, const double *bv,
                   const double *rv, const int64_t *xs, const int64_t *ws, const int64_t *ys)
{
    int nd = 2 + c->nsp, n = c->nsp;
    clops_device *cpu = ct_cpu();
    clops_tensor *x = ct_from_values(cpu, CLOPS_FLOAT64, nd, xs, CT_CONTIGUOUS, xv);
    clops_tensor *w = ct_from_values(cpu, CLOPS_FLOAT64, nd, ws, CT_CONTIGUOUS, wv);
    clops_tensor *b = ct_from_values(cpu, CLOPS_FLOAT64, 1, &c->cout, CT_CONTIGUOUS, bv);
    clops_tensor *y = NULL;
    CT_OK(clops_convolution(x, w, b, c->stride, n, c->pad, n, c->dil, n, c->transposed,
                            c->outpad, n, c->groups, &y));
    double *yv = ct_to_host(y), s = 0;
    for (int64_t i = 0; i < ct_numel(nd, ys); i++)
        s += yv[i] * rv[i];
    free(yv);
    clops_tensor_release(x);
    clops_tensor_release(w);
    clops_tensor_release(b);
    clops_tensor_release(y);
    return s;
}

/* Central differences of loss against convolution_backward for every
 * element of input, weight and bias (float64, CPU device). */
static void test_reference_gradients_match_finite_differences(void **state)
{
    (void)state;
    static const conv_case cases[] = {
        {2, 2, 4, 6, 2, {5, 4}, {3, 2}, {2, 1}, {1, 0}, {1, 2}, {0, 0}, false, true, 0},
        {2, 2, 4, 6, 2, {3, 3}, {2, 3}, {2, 1}, {1, 1}, {1, 1}, {1, 0}, true, true, 0},
        {1, 3, 2, 4, 1, {6}, {3}, {1}, {1}, {2}, {0}, false, true, 0},
        {3, 1, 2, 2, 2, {3, 2, 3}, {2, 1, 2}, {1, 1, 2}, {0, 1, 1}, {1, 1, 1}, {0, 0, 0}, false,
         true, 0},
    };
    ct_set_device(ct_cpu());
    for (size_t ci = 0; ci < CT_COUNT(cases); ci++) {
        const conv_case *c = &cases[ci];
        ct_set_case("finite differences, case %zu", ci);
        int nd = 2 + c->nsp, n = c->nsp;
        int64_t xs[5], ws[5], ys[5];
        case_shapes(c, xs, ws, ys);
        int64_t nx = ct_numel(nd, xs), nw = ct_numel(nd, ws), ny = ct_numel(nd, ys);
        double *v[4] = {malloc(sizeof(double) * (size_t)nx), malloc(sizeof(double) * (size_t)nw),
                        malloc(sizeof(double) * (size_t)c->cout),
                        malloc(sizeof(double) * (size_t)ny)};
        int64_t cnt[4] = {nx, nw, c->cout, ny};
        ct_rng r = ct_rng_seeded(40 + ci);
        for (int t = 0; t < 4; t++)
            ct_fill(v[t], cnt[t], CLOPS_FLOAT64, PW_DOMAIN_SMALL, &r);
        clops_device *cpu = ct_cpu();
        clops_tensor *x = ct_from_values(cpu, CLOPS_FLOAT64, nd, xs, CT_CONTIGUOUS, v[0]);
        clops_tensor *w = ct_from_values(cpu, CLOPS_FLOAT64, nd, ws, CT_CONTIGUOUS, v[1]);
        clops_tensor *g = ct_from_values(cpu, CLOPS_FLOAT64, nd, ys, CT_CONTIGUOUS, v[3]);
        clops_tensor *o[3] = {NULL, NULL, NULL};
        const bool mask[3] = {true, true, true};
        CT_OK(clops_convolution_backward(g, x, w, &c->cout, 1, c->stride, n, c->pad, n, c->dil, n,
                                         c->transposed, c->outpad, n, c->groups, mask, 3, &o[0],
                                         &o[1], &o[2]));
        for (int t = 0; t < 3; t++) {
            double *an = ct_to_host(o[t]);
            for (int64_t i = 0; i < cnt[t]; i++) {
                double keep = v[t][i], h = 1e-5;
                v[t][i] = keep + h;
                double lp = loss(c, v[0], v[1], v[2], v[3], xs, ws, ys);
                v[t][i] = keep - h;
                double lm = loss(c, v[0], v[1], v[2], v[3], xs, ws, ys);
                v[t][i] = keep;
                double fd = (lp - lm) / (2 * h);
                CT_ASSERT_MSG(fabs(fd - an[i]) <= 1e-6 * (1 + fabs(fd)),
                              "gradient %d element %lld: backward %.12g, finite differences %.12g",
                              t, (long long)i, an[i], fd);
            }
            free(an);
        }
        clops_tensor *all[] = {x, w, g, o[0], o[1], o[2]};
        for (size_t i = 0; i < CT_COUNT(all); i++)
            clops_tensor_release(all[i]);
        for (int t = 0; t < 4; t++)
            free(v[t]);
    }
    ct_clear_context();
}

/* t (contiguous [N, C, sp...]) as a channels-last tensor: the same values
 * in a storage ordered [N, sp..., C]. */
static clops_tensor *channels_last(const clops_tensor *t)
{
    int nd = t->ndim;
    int64_t psz[5], pst[5], cst[5], vst[5];
    psz[0] = t->sizes[0];
    for (int i = 2; i < nd; i++)
        psz[i - 1] = t->sizes[i];
    psz[nd - 1] = t->sizes[1];
    contiguous_strides(nd, psz, cst);
    clops_tensor *buf = NULL, *v = NULL;
    CT_OK(tensor_new(t->storage->device, t->dtype, nd, psz, NULL, &buf));
    vst[0] = cst[0];
    vst[1] = cst[nd - 1];
    for (int i = 2; i < nd; i++)
        vst[i] = cst[i - 1];
    (void)pst;
    CT_OK(tensor_make_view("test", buf, nd, t->sizes, vst, 0, &v));
    CT_OK(core_copy_(v, (clops_tensor *)t, false));
    clops_tensor_release(buf);
    return v;
}

/* The tolerance of c's weight gradient in dt: sums of N * (small
 * positions) products below 4 in size (TF32: operands rounded to 11
 * significant bits). */
static ct_tol wgrad_tol(const conv_case *c, clops_dtype dt, bool tf32)
{
    double terms = (double)c->N;
    for (int i = 0; i < c->nsp; i++)
        terms *= (double)(c->transposed ? c->in[i] : out_size(c, i));
    return tf32                 ? ct_tol_ulp_atol(64, terms * 4 * 0x1p-10)
           : dt == CLOPS_FLOAT32 ? ct_tol_ulp_atol(64, 1e-5 + terms * 1e-6)
                                 : ct_tol_ulp_atol(4, 2e-2 + terms * 1e-4);
}

/* Engine launches so far (every atom). */
static uint64_t engine_calls(void)
{
    gemm_engine_stats st;
    gemm_engine_get_stats(&st);
    return st.fma_calls + st.cpu_calls + st.mma_calls;
}

/* A case's input x, weight w and grad_output g on a device (x and g
 * channels-last when cl; x0, g0 their contiguous originals) and their
 * CPU copies. */
typedef struct conv_operands {
    clops_tensor *x0, *x, *w, *g0, *g, *xc, *wc, *gc;
} conv_operands;

static conv_operands make_operands(clops_device *dev, const conv_case *c, clops_dtype dt, bool cl,
                                   uint64_t seed)
{
    int ndim = 2 + c->nsp;
    int64_t xs[5], ws[5], ys[5];
    case_shapes(c, xs, ws, ys);
    conv_operands o;
    o.x0 = ct_random(dev, dt, ndim, xs, CT_CONTIGUOUS, PW_DOMAIN_SMALL, seed);
    o.w = ct_random(dev, dt, ndim, ws, CT_CONTIGUOUS, PW_DOMAIN_SMALL, seed + 1);
    o.g0 = ct_random(dev, dt, ndim, ys, CT_CONTIGUOUS, PW_DOMAIN_SMALL, seed + 3);
    o.x = cl ? channels_last(o.x0) : o.x0;
    o.g = cl ? channels_last(o.g0) : o.g0;
    o.xc = ct_to_cpu(o.x);
    o.wc = ct_to_cpu(o.w);
    o.gc = ct_to_cpu(o.g);
    return o;
}

static void release_operands(conv_operands *o)
{
    if (o->x != o->x0)
        clops_tensor_release(o->x);
    if (o->g != o->g0)
        clops_tensor_release(o->g);
    clops_tensor *all[] = {o->x0, o->w, o->g0, o->xc, o->wc, o->gc};
    for (size_t i = 0; i < CT_COUNT(all); i++)
        clops_tensor_release(all[i]);
}

/*
 * The implicit-GEMM path (ops/conv/conv_gemm.c, cl_kernels/gemm.cl
 * GEMM_CONV): forward with the fused bias, transposed forward, the input
 * gradient and the weight gradient (GEMM_CONV 3), channels-last (channel counts multiples of 8: the cp.async
 * staging of the matrix-unit atom) and NCHW inputs (plain loads), stride,
 * padding, dilation, groups, 1-D/2-D/3-D, against the CPU reference (the
 * GPU copies and the padded stem seen failing here with a planted
 * channel offset / channel stride, under CLOPS_CPU_LAUNCH=gridstride); the
 * engine must have run (where it takes the dtype) and a second run must
 * give the same bits.
 */
static void test_implicit_gemm_paths(void **state)
{
    (void)state;
    static const conv_case cases[] = {
        /* nsp N cin cout groups in k stride pad dil outpad transposed bias */
        {2, 2, 16, 24, 1, {7, 9}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {0, 0}, false, true, 0},
        {2, 3, 3, 8, 1, {11, 10}, {5, 3}, {2, 2}, {2, 1}, {1, 1}, {0, 0}, false, true, 0},
        {2, 1, 16, 32, 2, {6, 7}, {3, 3}, {2, 1}, {1, 0}, {2, 1}, {0, 0}, false, false, 0},
        {2, 2, 8, 16, 1, {5, 5}, {1, 1}, {2, 2}, {0, 0}, {1, 1}, {0, 0}, false, true, 0},
        {1, 2, 8, 5, 1, {13}, {4}, {3}, {2}, {2}, {0}, false, true, 0},
        {3, 1, 8, 8, 1, {4, 5, 3}, {2, 3, 1}, {1, 2, 1}, {1, 1, 0}, {1, 1, 1}, {0, 0, 0},
         false, true, 0},
        {2, 2, 16, 8, 1, {5, 6}, {3, 3}, {2, 2}, {1, 1}, {1, 1}, {1, 0}, true, true, 0},
        {2, 1, 12, 6, 3, {4, 4}, {2, 3}, {3, 1}, {0, 1}, {1, 2}, {2, 0}, true, false, 0},
        /* NCHW images past CONV_NHWC_COPY_MIN: channels-last copies
         * (ops/conv/conv_gemm.c channels_last_copy; on GPUs the weight
         * gradient's two images too) */
        {2, 2, 16, 16, 1, {24, 24}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {0, 0}, false, true, 0},
        /* ResNet's stem shrunk, past CONV_NHWC_COPY_MIN: on GPUs (and POCL
         * under CLOPS_CPU_LAUNCH=gridstride) the half types' 3 channels
         * padded to 8 zero channels, image and weight
         * (ops/conv/conv_gemm.c padded_channels) */
        {2, 2, 3, 8, 1, {64, 64}, {7, 7}, {2, 2}, {3, 3}, {1, 1}, {0, 0}, false, true, 0},
        /* 18,496 rows, 145 blocks of 128 x 128 (more than an H100's or
         * H200's 132 units) and 16 / 8 channels: on GPUs the forward and
         * input gradient on conv_tile's 64 x 64 blocks, which the engine
         * alone takes only for products of fewer blocks than units */
        {2, 1, 8, 16, 1, {136, 136}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {0, 0}, false, true, 0},
    };
    /* The last entry: float32 under the "high" convolution precision (TF32
     * on matrix units; exact float32 where there are none). */
    static const clops_dtype dts[] = {CLOPS_FLOAT32, CLOPS_FLOAT16, CLOPS_BFLOAT16,
                                      CLOPS_FLOAT32};
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_opencl_devices(devs, CT_MAX_DEVICES);
    for (int di = 0; di < nd; di++) {
        ct_set_device(devs[di]);
        for (size_t ci = 0; ci < CT_COUNT(cases); ci++)
            for (int li = 0; li < 2; li++)
                for (size_t ti = 0; ti < CT_COUNT(dts); ti++) {
                    const conv_case *c = &cases[ci];
                    clops_dtype dt = dts[ti];
                    bool tf32 = ti == 3;
                    if ((dt != CLOPS_FLOAT32 || tf32) && (ci + (size_t)li) % 2)
                        continue; /* half types, TF32: half the cases suffice */
                    CT_OK(clops_set_float32_conv_precision(tf32 ? "high" : NULL));
                    ct_set_case("implicit case %zu %s %s%s", ci, li ? "channels-last" : "NCHW",
                                clops_dtype_name(dt), tf32 ? " (conv precision high)" : "");
                    int n = c->nsp, ndim = 2 + n;
                    uint64_t seed = 700 + ci * 10 + ti;
                    conv_operands op = make_operands(devs[di], c, dt, li, seed);
                    clops_tensor *x = op.x, *w = op.w, *g = op.g;
                    clops_tensor *xc = op.xc, *wc = op.wc, *gc = op.gc;
                    clops_tensor *b = c->bias ? ct_random(devs[di], dt, 1, &c->cout,
                                                          CT_CONTIGUOUS, PW_DOMAIN_SMALL,
                                                          seed + 2)
                                              : NULL;
                    clops_tensor *bc = b ? ct_to_cpu(b) : NULL;
                    clops_tensor *y[2] = {NULL, NULL}, *yc = NULL;
                    bool fused = gemm_engine_convolves(devs[di], dt);
                    uint64_t before = engine_calls();
                    for (int r = 0; r < 2; r++)
                        CT_OK(clops_convolution(x, w, b, c->stride, n, c->pad, n, c->dil, n,
                                                c->transposed, c->outpad, n, c->groups, &y[r]));
                    if (fused)
                        CT_ASSERT_MSG(engine_calls() >= before + 2,
                                      "the engine did not run the convolution");
                    CT_OK(clops_convolution(xc, wc, bc, c->stride, n, c->pad, n, c->dil, n,
                                            c->transposed, c->outpad, n, c->groups, &yc));
                    /* Sums of up to cin * taps (cout * taps backward)
                     * products below 4 in size, accumulated in float32. */
                    double terms = (double)(c->cin > c->cout ? c->cin : c->cout);
                    for (int i = 0; i < n; i++)
                        terms *= (double)c->k[i];
                    /* TF32 rounds each operand to 11 significant bits. */
                    ct_tol tol = tf32                 ? ct_tol_ulp_atol(64, terms * 4 * 0x1p-10)
                                 : dt == CLOPS_FLOAT32 ? ct_tol_ulp_atol(64, 1e-5 + terms * 1e-6)
                                                       : ct_tol_ulp_atol(2, 2e-2);
                    CT_ASSERT_CLOSE(y[0], yc, tol);
                    CT_ASSERT_CLOSE(y[1], y[0], CT_TOL_EXACT);
                    /* PyTorch's memory format: channels-last in, out. */
                    if (ndim >= 4)
                        CT_ASSERT_MSG((y[0]->strides[1] == 1) == (li == 1),
                                      "result channel stride %lld for a %s input",
                                      (long long)y[0]->strides[1], li ? "channels-last" : "NCHW");
                    /* The input gradient: the other direction of the same
                     * geometry; the weight gradient: its third product. */
                    const bool mask[3] = {true, true, false};
                    clops_tensor *o[2][3] = {{NULL}}, *oc[3] = {NULL, NULL, NULL};
                    for (int r = 0; r < 2; r++)
                        CT_OK(clops_convolution_backward(
                            g, x, w, &c->cout, 1, c->stride, n, c->pad, n, c->dil, n,
                            c->transposed, c->outpad, n, c->groups, mask, 3, &o[r][0], &o[r][1],
                            &o[r][2]));
                    CT_OK(clops_convolution_backward(gc, xc, wc, &c->cout, 1, c->stride, n,
                                                     c->pad, n, c->dil, n, c->transposed,
                                                     c->outpad, n, c->groups, mask, 3, &oc[0],
                                                     &oc[1], &oc[2]));
                    CT_ASSERT_CLOSE(o[0][0], oc[0], tol);
                    if (ndim >= 4)
                        CT_ASSERT((o[0][0]->strides[1] == 1) == (li == 1));
                    CT_ASSERT_CLOSE(o[1][0], o[0][0], CT_TOL_EXACT);
                    CT_ASSERT_CLOSE(o[0][1], oc[1], wgrad_tol(c, dt, tf32));
                    CT_ASSERT_CLOSE(o[1][1], o[0][1], CT_TOL_EXACT);
                    clops_tensor *all[] = {b,       bc,      y[0],    y[1],    yc,      o[0][0],
                                           o[1][0], oc[0],   o[0][1], o[1][1], oc[1]};
                    for (size_t i = 0; i < CT_COUNT(all); i++)
                        clops_tensor_release(all[i]);
                    release_operands(&op);
                }
    }
    CT_OK(clops_set_float32_conv_precision(NULL));
    ct_clear_context();
}

/*
 * The weight gradient on the engine (GEMM_CONV 3) with a long reduction
 * (K = N * positions in the thousands) split along K: unsplit and forced
 * into 3 parts (the debug setting gemm.splits) and left to the engine,
 * channels-last and NCHW, every dtype the engine takes, against the CPU
 * reference; the engine (and, when forced, the split launch) must have
 * run, and each configuration gives the same bits twice.
 */
static void test_implicit_weight_gradient_splits(void **state)
{
    (void)state;
    static const conv_case cases[] = {
        /* nsp N cin cout groups in k stride pad dil outpad transposed bias */
        {2, 3, 5, 7, 1, {30, 31}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {0, 0}, false, false, 0},
        {2, 2, 3, 16, 1, {41, 37}, {7, 7}, {2, 2}, {3, 3}, {1, 1}, {0, 0}, false, false, 0},
        {2, 2, 16, 12, 4, {29, 23}, {3, 3}, {1, 2}, {2, 1}, {2, 1}, {0, 0}, false, false, 0},
        {1, 4, 8, 9, 1, {301}, {5}, {1}, {2}, {3}, {0}, false, false, 0},
        {2, 2, 8, 6, 2, {17, 16}, {3, 2}, {2, 2}, {1, 0}, {1, 1}, {1, 1}, true, false, 0},
    };
    static const clops_dtype dts[] = {CLOPS_FLOAT32, CLOPS_FLOAT16, CLOPS_BFLOAT16};
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_opencl_devices(devs, CT_MAX_DEVICES);
    for (int di = 0; di < nd; di++) {
        ct_set_device(devs[di]);
        for (size_t ti = 0; ti < CT_COUNT(dts); ti++)
            for (size_t ci = 0; ci < CT_COUNT(cases); ci++)
                for (int li = 0; li < 2; li++) {
                    const conv_case *c = &cases[ci];
                    clops_dtype dt = dts[ti];
                    if (dt != CLOPS_FLOAT32 && (ci + (size_t)li + ti) % 2)
                        continue; /* half types: half the cases suffice */
                    int n = c->nsp;
                    conv_operands op = make_operands(devs[di], c, dt, li, 900 + ci * 10 + ti);
                    clops_tensor *x = op.x, *w = op.w, *g = op.g;
                    const bool mask[3] = {false, true, false};
                    clops_tensor *oc[3] = {NULL, NULL, NULL};
                    CT_OK(clops_convolution_backward(op.gc, op.xc, op.wc, &c->cout, 1, c->stride,
                                                     n, c->pad, n, c->dil, n, c->transposed,
                                                     c->outpad, n, c->groups, mask, 3, &oc[0],
                                                     &oc[1], &oc[2]));
                    bool engine = gemm_engine_convolves(devs[di], dt);
                    /* 0: the engine's choice, then 1 and 3 parts. */
                    for (int sp = 0; sp < 3; sp++) {
                        int splits = sp == 0 ? 0 : sp == 1 ? 1 : 3;
                        ct_set_case("weight gradient case %zu %s %s splits %d", ci,
                                    li ? "channels-last" : "NCHW", clops_dtype_name(dt), splits);
                        CT_OK(clops_debug_set("gemm.splits", splits));
                        gemm_engine_stats s0, s1;
                        gemm_engine_get_stats(&s0);
                        clops_tensor *o[2][3] = {{NULL}};
                        for (int r = 0; r < 2; r++)
                            CT_OK(clops_convolution_backward(
                                g, x, w, &c->cout, 1, c->stride, n, c->pad, n, c->dil, n,
                                c->transposed, c->outpad, n, c->groups, mask, 3, &o[r][0],
                                &o[r][1], &o[r][2]));
                        gemm_engine_get_stats(&s1);
                        if (engine) {
                            CT_ASSERT_MSG(s1.fma_calls + s1.cpu_calls + s1.mma_calls >=
                                              s0.fma_calls + s0.cpu_calls + s0.mma_calls + 2,
                                          "the engine did not run the weight gradient");
                            if (splits == 3)
                                CT_ASSERT_MSG(s1.split_calls >= s0.split_calls + 2,
                                              "the weight gradient was not split");
                        }
                        CT_ASSERT_CLOSE(o[0][1], oc[1], wgrad_tol(c, dt, false));
                        CT_ASSERT_CLOSE(o[1][1], o[0][1], CT_TOL_EXACT);
                        clops_tensor_release(o[0][1]);
                        clops_tensor_release(o[1][1]);
                    }
                    CT_OK(clops_debug_set("gemm.splits", 0));
                    clops_tensor_release(oc[1]);
                    release_operands(&op);
                }
    }
    ct_clear_context();
}

/*
 * The weight gradient with the samples as the engine's groups
 * (ops/conv/conv_gemm.c weight_samples: one partial per sample, summed
 * over the samples in a fixed order; the default on GPUs for small-channel
 * images such as ResNet's RGB stem), forced on every device with
 * CLOPS_CONV_WSAMPLES=all: PyTorch's golden cases, the geometry sweep
 * (every output_mask, float32), and a stem-like 7x7 stride-2 layer on 3
 * channels, a grouped and a transposed one in every dtype the engine takes
 * (float16 and bfloat16 widened to float32 partials), with the
 * sample-interleaved copies and without (CLOPS_CONV_WS_COPY=0), against
 * the reference, the same bits twice, and the path must have run.
 */
static void test_weight_gradient_by_samples(void **state)
{
    (void)state;
    setenv("CLOPS_CONV_WSAMPLES", "all", 1);
    uint64_t n0 = conv_weight_samples_calls();
    ct_replay_golden("golden_conv.json");
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_opencl_devices(devs, CT_MAX_DEVICES);
    static const conv_case cases[] = {
        /* nsp N cin cout groups in k stride pad dil outpad transposed bias */
        {2, 3, 3, 8, 1, {23, 20}, {7, 7}, {2, 2}, {3, 3}, {1, 1}, {0, 0}, false, false, 0},
        {2, 2, 6, 4, 2, {13, 11}, {3, 3}, {1, 2}, {1, 0}, {1, 1}, {0, 0}, false, true, 0},
        {2, 2, 4, 6, 2, {9, 8}, {3, 2}, {2, 2}, {1, 0}, {1, 1}, {1, 1}, true, false, 0},
    };
    static const clops_dtype dts[] = {CLOPS_FLOAT32, CLOPS_FLOAT16, CLOPS_BFLOAT16};
    for (int di = 0; di < nd; di++) {
        ct_set_device(devs[di]);
        ct_rng r = ct_rng_seeded(18);
        for (int i = 0; i < 24; i++) {
            conv_case c = random_case(&r, i % 6 == 5 ? 2 : 0);
            check_case(devs[di], &c, CLOPS_FLOAT32, (unsigned)((i + i / 6) % 8) | 2u,
                       (uint64_t)(700 + i));
        }
        /* GPUs: float32 (and the widened half types) on the engine only
         * under the "high" conv precision (TF32) */
        bool gpu = !kit_is_cpu(devs[di]);
        CT_OK(clops_set_float32_conv_precision("high"));
        for (size_t ti = 0; ti < CT_COUNT(dts); ti++) {
            clops_dtype dt = dts[ti];
            if (!gemm_engine_convolves(devs[di], CLOPS_FLOAT32) ||
                !gemm_engine_convolves(devs[di], dt))
                continue;
            for (size_t ci = 0; ci < 2 * CT_COUNT(cases); ci++) {
                /* the interleaved float32 copies (the default), then the
                 * images read where they are (CLOPS_CONV_WS_COPY=0) */
                bool copy = ci < CT_COUNT(cases);
                const conv_case *c = &cases[ci % CT_COUNT(cases)];
                int n = c->nsp;
                setenv("CLOPS_CONV_WS_COPY", copy ? "1" : "0", 1);
                ct_set_case("samples as groups: case %zu %s%s", ci % CT_COUNT(cases),
                            clops_dtype_name(dt), copy ? "" : " (no copies)");
                conv_operands op = make_operands(devs[di], c, dt, 0, 800 + ci * 10 + ti);
                const bool mask[3] = {false, true, false};
                clops_tensor *oc[3] = {NULL, NULL, NULL}, *o[2][3] = {{NULL}};
                CT_OK(clops_convolution_backward(op.gc, op.xc, op.wc, &c->cout, 1, c->stride, n,
                                                 c->pad, n, c->dil, n, c->transposed, c->outpad,
                                                 n, c->groups, mask, 3, &oc[0], &oc[1], &oc[2]));
                uint64_t before = conv_weight_samples_calls();
                for (int k = 0; k < 2; k++)
                    CT_OK(clops_convolution_backward(op.g, op.x, op.w, &c->cout, 1, c->stride, n,
                                                     c->pad, n, c->dil, n, c->transposed,
                                                     c->outpad, n, c->groups, mask, 3, &o[k][0],
                                                     &o[k][1], &o[k][2]));
                CT_ASSERT_MSG(conv_weight_samples_calls() >= before + 2,
                              "the weight gradient did not run with the samples as groups");
                CT_ASSERT_CLOSE(o[0][1], oc[1], wgrad_tol(c, dt, gpu && dt == CLOPS_FLOAT32));
                CT_ASSERT_CLOSE(o[1][1], o[0][1], CT_TOL_EXACT);
                clops_tensor_release(oc[1]);
                clops_tensor_release(o[0][1]);
                clops_tensor_release(o[1][1]);
                release_operands(&op);
            }
        }
        CT_OK(clops_set_float32_conv_precision(NULL));
    }
    CT_ASSERT_MSG(conv_weight_samples_calls() > n0, "the samples path never ran");
    unsetenv("CLOPS_CONV_WSAMPLES");
    unsetenv("CLOPS_CONV_WS_COPY");
    ct_clear_context();
}

/*
 * Forward and input-gradient products on Hopper's wgmma (ops/conv/conv_gemm.c
 * conv_wgmma_tile) in dtype dt under the switch env (CLOPS_CONV_WGMMA for
 * float32 as TF32, CLOPS_CONV_WGMMA_HALF for float16 / bfloat16) at "all"
 * and "1" (the default rule):
 * channels-last and NCHW sources (copied channels-last), a bias, groups,
 * a 1x1 stride-2 kernel (the weight read in place), a transposed
 * convolution (the engine's gather), the padded 3-channel stem, rows and
 * columns not multiples of the 128 x 128 / 64 x 128 blocks, against the
 * CPU reference with the dtype's tolerance, the same bits twice, and
 * wgmma must have run where it is a candidate ("all").  Other devices run
 * the same cases (the switch changes nothing there).
 */
/* One case c of wgmma_cases (cl: a channels-last input; seed for the
 * operands): forward and input gradient twice, against the CPU reference,
 * the bits twice; at least min_wg wgmma launches among the 4 products.
 * (conv15: also the 64-wide blocks' cases, test_conv_wgmma_n64.) */
static void wgmma_case(clops_device *dev, clops_dtype dt, const conv_case *c, bool cl,
                       uint64_t seed, uint64_t min_wg)
{
    int n = c->nsp;
    bool tf32 = !kit_is_cpu(dev) && gemm_engine_convolves(dev, dt) && dt == CLOPS_FLOAT32;
    conv_operands op = make_operands(dev, c, dt, cl, seed);
    clops_tensor *b = c->bias ? ct_random(dev, dt, 1, &c->cout, CT_CONTIGUOUS, PW_DOMAIN_SMALL,
                                          seed + 50)
                              : NULL;
    clops_tensor *bc = b ? ct_to_cpu(b) : NULL;
    clops_tensor *y[2] = {NULL, NULL}, *yc = NULL;
    const bool mask[3] = {true, false, false};
    clops_tensor *o[2][3] = {{NULL}}, *oc[3] = {NULL, NULL, NULL};
    gemm_engine_stats s0, s1;
    gemm_engine_get_stats(&s0);
    for (int r = 0; r < 2; r++) {
        CT_OK(clops_convolution(op.x, op.w, b, c->stride, n, c->pad, n, c->dil, n,
                                c->transposed, c->outpad, n, c->groups, &y[r]));
        CT_OK(clops_convolution_backward(op.g, op.x, op.w, &c->cout, 1, c->stride, n, c->pad, n,
                                         c->dil, n, c->transposed, c->outpad, n, c->groups, mask,
                                         3, &o[r][0], &o[r][1], &o[r][2]));
    }
    gemm_engine_get_stats(&s1);
    CT_ASSERT_MSG(s1.wgmma_calls >= s0.wgmma_calls + min_wg, "wgmma ran %llu of the 4 products",
                  (unsigned long long)(s1.wgmma_calls - s0.wgmma_calls));
    CT_OK(clops_convolution(op.xc, op.wc, bc, c->stride, n, c->pad, n, c->dil, n, c->transposed,
                            c->outpad, n, c->groups, &yc));
    CT_OK(clops_convolution_backward(op.gc, op.xc, op.wc, &c->cout, 1, c->stride, n, c->pad, n,
                                     c->dil, n, c->transposed, c->outpad, n, c->groups, mask, 3,
                                     &oc[0], &oc[1], &oc[2]));
    double terms = (double)(c->cin > c->cout ? c->cin : c->cout);
    for (int i = 0; i < n; i++)
        terms *= (double)c->k[i];
    ct_tol tol = tf32                  ? ct_tol_ulp_atol(64, terms * 4 * 0x1p-10)
                 : dt == CLOPS_FLOAT32 ? ct_tol_ulp_atol(64, 1e-5 + terms * 1e-6)
                 : dt == CLOPS_FLOAT16 ? ct_tol_ulp_atol(4, 2e-2 + terms * 1e-3)
                                       : ct_tol_ulp_atol(4, 1e-1 + terms * 8e-3);
    CT_ASSERT_CLOSE(y[0], yc, tol);
    CT_ASSERT_CLOSE(y[1], y[0], CT_TOL_EXACT);
    CT_ASSERT((y[0]->strides[1] == 1) == cl);
    CT_ASSERT_CLOSE(o[0][0], oc[0], tol);
    CT_ASSERT_CLOSE(o[1][0], o[0][0], CT_TOL_EXACT);
    clops_tensor *all[] = {b, bc, y[0], y[1], yc, o[0][0], o[1][0], oc[0]};
    for (size_t i = 0; i < CT_COUNT(all); i++)
        clops_tensor_release(all[i]);
    release_operands(&op);
}

/*
 * Cases cases[0 .. nc) (cls: channels-last inputs) in dtype dt under each
 * of the nm settings modes of the switch env on every device (wgmma_case,
 * seeds seed + case): case wg_only (-1 none) only where wgmma runs; at
 * least 4 wgmma launches a case on Hopper under modes[count] (-1: every
 * mode).
 */
static void wgmma_sweep(clops_dtype dt, const char *env, const char *const *modes, size_t nm,
                        const conv_case *cases, const bool *cls, size_t nc, uint64_t seed,
                        int wg_only, int count)
{
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_opencl_devices(devs, CT_MAX_DEVICES);
    for (int di = 0; di < nd; di++) {
        ct_set_device(devs[di]);
        bool wg = !kit_is_cpu(devs[di]) && gemm_engine_convolves(devs[di], dt) &&
                  gemm_engine_wgmma_candidate(devs[di], CLOPS_BFLOAT16);
        for (size_t mi = 0; mi < nm; mi++)
            for (size_t ci = 0; ci < nc; ci++) {
                if ((int)ci == wg_only && !wg)
                    continue;
                setenv(env, modes[mi], 1);
                ct_set_case("wgmma %s (%s=%s) case %zu %s", clops_dtype_name(dt), env, modes[mi],
                            ci, cls[ci] ? "channels-last" : "NCHW");
                bool counted = wg && (count < 0 || (int)mi == count);
                wgmma_case(devs[di], dt, &cases[ci], cls[ci], seed + ci, counted ? 4 : 0);
            }
    }
    unsetenv(env);
    ct_clear_context();
}

static void wgmma_cases(clops_dtype dt, const char *env)
{
    static const conv_case cases[] = {
        /* nsp N cin cout groups in k stride pad dil outpad transposed bias */
        {2, 2, 16, 136, 1, {20, 20}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {0, 0}, false, true, 0},
        {2, 2, 32, 72, 1, {24, 24}, {3, 3}, {2, 2}, {1, 1}, {1, 1}, {0, 0}, false, false, 0},
        {2, 1, 16, 144, 2, {13, 11}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {0, 0}, false, true, 0},
        {2, 4, 64, 80, 1, {17, 17}, {1, 1}, {2, 2}, {0, 0}, {1, 1}, {0, 0}, false, true, 0},
        {2, 2, 72, 16, 1, {7, 8}, {3, 3}, {2, 2}, {1, 1}, {1, 1}, {1, 0}, true, true, 0},
        {2, 2, 3, 24, 1, {64, 64}, {7, 7}, {2, 2}, {3, 3}, {1, 1}, {0, 0}, false, true, 0},
        /* 33,800 rows: 265 blocks of 128 x 128 (twice an H200's 132 units
         * and more), so "wg128x128-s3-cs" */
        {2, 2, 16, 64, 1, {130, 130}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {0, 0}, false, false, 0},
    };
    /* channels-last inputs (the others NCHW, large enough to be copied) */
    static const bool cls[] = {true, false, true, false, true, false, true};
    static const char *const modes[] = {"all", "1"};
    /* (case 6: wgmma's 128 x 128 blocks only; wgmma counted under "all") */
    wgmma_sweep(dt, env, modes, CT_COUNT(modes), cases, cls, CT_COUNT(cases), 900, 6, 0);
}

/* float32 as TF32 (conv11; passed on the H200 in conv11's job, whose
 * forward outputs of ResNet-18 were the same bits with and without wgmma). */
static void test_conv_wgmma_tf32(void **state)
{
    (void)state;
    CT_OK(clops_set_float32_conv_precision("high"));
    wgmma_cases(CLOPS_FLOAT32, "CLOPS_CONV_WGMMA");
    CT_OK(clops_set_float32_conv_precision(NULL));
}

/* bfloat16 and float16 (conv12, CLOPS_CONV_WGMMA_HALF), one test each
 * (conv13): on NVIDIA each dtype's cold program builds take over a minute,
 * so a job runs the two in processes of their own
 * (CLOPS_TEST_FILTER=test_conv_wgmma_half_bf16 / _f16; test_conv_wgmma_half*
 * runs both). */
static void test_conv_wgmma_half_bf16(void **state)
{
    (void)state;
    wgmma_cases(CLOPS_BFLOAT16, "CLOPS_CONV_WGMMA_HALF");
}

static void test_conv_wgmma_half_f16(void **state)
{
    (void)state;
    wgmma_cases(CLOPS_FLOAT16, "CLOPS_CONV_WGMMA_HALF");
}

/*
 * (conv15) The 64-wide wgmma blocks (m64n64: "wg128x64-s3-cs",
 * "wg64x64-s4-cs", CLOPS_CONV_WGMMA64 naming each) on forward and
 * input-gradient products of 64 or fewer destination channels in dtype
 * dt: ResNet's first-stage 3x3 (channels-last, a bias), a stride-2 layer
 * of 48 columns (a partial block, NCHW images copied), the padded 3-channel
 * stem, groups of 32, a transposed convolution; against the CPU
 * reference, the bits twice, and at least 4 wgmma launches per case on
 * Hopper.  Other devices run the same cases (no wgmma there).
 */
static void wgmma_n64_cases(clops_dtype dt)
{
    static const conv_case cases[] = {
        /* nsp N cin cout groups in k stride pad dil outpad transposed bias */
        {2, 2, 64, 64, 1, {30, 30}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {0, 0}, false, true, 0},
        /* (grad_output 3 x 48 x 17 x 18: large enough to be copied
         * channels-last, CONV_NHWC_COPY_MIN; at 9 x 10 the input gradient
         * read it NCHW, on mma.sync: conv15's job) */
        {2, 3, 32, 48, 1, {33, 35}, {3, 3}, {2, 2}, {1, 1}, {1, 1}, {0, 0}, false, false, 0},
        {2, 2, 3, 64, 1, {64, 64}, {7, 7}, {2, 2}, {3, 3}, {1, 1}, {0, 0}, false, true, 0},
        {2, 2, 64, 64, 2, {12, 12}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {0, 0}, false, false, 0},
        {2, 2, 48, 32, 1, {9, 8}, {3, 3}, {2, 2}, {1, 1}, {1, 1}, {1, 1}, true, true, 0},
    };
    static const bool cls[] = {true, false, false, true, true};
    static const char *const modes[] = {"wg128x64-s3-cs", "wg64x64-s4-cs"};
    wgmma_sweep(dt, "CLOPS_CONV_WGMMA64", modes, CT_COUNT(modes), cases, cls, CT_COUNT(cases),
                1300, -1, -1);
}

static void test_conv_wgmma_n64_tf32(void **state)
{
    (void)state;
    CT_OK(clops_set_float32_conv_precision("high"));
    wgmma_n64_cases(CLOPS_FLOAT32);
    CT_OK(clops_set_float32_conv_precision(NULL));
}

static void test_conv_wgmma_n64_bf16(void **state)
{
    (void)state;
    wgmma_n64_cases(CLOPS_BFLOAT16);
}

/*
 * The rule's host logic (conv_wgmma_rule; every device: it needs none) on
 * an H200's 132 units at ResNet's batch 64: the 64-channel first stage
 * takes 128 x 64 blocks (conv15; mma.sync under CLOPS_CONV_WGMMA64=0), the
 * last stage's 3,136 rows of 512 channels keep mma.sync, the second stage
 * takes 128 x 128 blocks, the third 64 x 128; "0" none, "all" even the
 * narrow ones, a configuration's name that one, an unknown name none.
 */
static void test_conv_wgmma_rule(void **state)
{
    (void)state;
    int big = 0, few = 0, n64 = 0, n64few = 0;
    for (int i = 0; i < gemm_engine_config_count(); i++) {
        if (strcmp(gemm_engine_config_name(i), "wg128x128-s3-cs") == 0)
            big = i + 1;
        if (strcmp(gemm_engine_config_name(i), "wg64x128-s4-cs") == 0)
            few = i + 1;
        if (strcmp(gemm_engine_config_name(i), "wg128x64-s3-cs") == 0)
            n64 = i + 1;
        if (strcmp(gemm_engine_config_name(i), "wg64x64-s4-cs") == 0)
            n64few = i + 1;
    }
    CT_ASSERT(big > 0 && few > 0 && big != few && n64 > 0 && n64few > 0 && n64 != n64few);
    static const char *const rule[] = {NULL, "1"};
    for (size_t i = 0; i < CT_COUNT(rule); i++)
        for (size_t j = 0; j < CT_COUNT(rule); j++) {
            /* (conv15) the 64-channel stage on 128 x 64 blocks, fewer rows
             * on 64 x 64 ones, fewer still on mma.sync */
            CT_ASSERT(conv_wgmma_rule(rule[i], rule[j], 64, 200704, 1, 132) == n64);
            CT_ASSERT(conv_wgmma_rule(rule[i], rule[j], 64, 33665, 1, 132) == n64);
            CT_ASSERT(conv_wgmma_rule(rule[i], rule[j], 64, 33664, 1, 132) == n64few);
            CT_ASSERT(conv_wgmma_rule(rule[i], rule[j], 16, 16833, 1, 132) == n64few);
            CT_ASSERT(conv_wgmma_rule(rule[i], rule[j], 16, 16832, 1, 132) == 0);
            CT_ASSERT(conv_wgmma_rule(rule[i], rule[j], 32, 8192, 3, 132) == n64few);
            CT_ASSERT(conv_wgmma_rule(rule[i], rule[j], 128, 50176, 1, 132) == big);
            CT_ASSERT(conv_wgmma_rule(rule[i], rule[j], 256, 12544, 1, 132) == few);
            CT_ASSERT(conv_wgmma_rule(rule[i], rule[j], 512, 3136, 1, 132) == 0);
            CT_ASSERT(conv_wgmma_rule(rule[i], rule[j], 2048, 3136, 1, 132) == big);
            CT_ASSERT(conv_wgmma_rule(rule[i], rule[j], 72, 8192, 1, 132) == 0);
            CT_ASSERT(conv_wgmma_rule(rule[i], rule[j], 72, 8192, 3, 132) == few);
            /* CLOPS_CONV_WGMMA64=0: the choice before conv15 */
            CT_ASSERT(conv_wgmma_rule(rule[i], "0", 64, 200704, 1, 132) == 0);
            CT_ASSERT(conv_wgmma_rule(rule[i], "0", 128, 50176, 1, 132) == big);
        }
    CT_ASSERT(conv_wgmma_rule("0", NULL, 128, 50176, 1, 132) == 0);
    CT_ASSERT(conv_wgmma_rule("0", NULL, 64, 200704, 1, 132) == 0);
    CT_ASSERT(conv_wgmma_rule("0", "wg64x64-s4-cs", 64, 200704, 1, 132) == 0);
    CT_ASSERT(conv_wgmma_rule("all", "0", 64, 3136, 1, 132) == few);
    CT_ASSERT(conv_wgmma_rule("all", "0", 64, 200704, 1, 132) == big);
    CT_ASSERT(conv_wgmma_rule("all", NULL, 64, 3136, 1, 132) == n64few);
    CT_ASSERT(conv_wgmma_rule("all", NULL, 64, 200704, 1, 132) == n64);
    CT_ASSERT(conv_wgmma_rule(NULL, "wg64x64-s4-cs", 64, 200704, 1, 132) == n64few);
    CT_ASSERT(conv_wgmma_rule(NULL, "wg64x64-s4-cs", 128, 50176, 1, 132) == big);
    CT_ASSERT(conv_wgmma_rule(NULL, "no-such-config", 64, 200704, 1, 132) == 0);
    CT_ASSERT(conv_wgmma_rule("wg64x128-s4-cs", NULL, 16, 1, 1, 132) == few);
    CT_ASSERT(conv_wgmma_rule("no-such-config", NULL, 128, 50176, 1, 132) == 0);
}

/*
 * (conv16) Weight gradients on wgmma (GEMM_CONV 3 in gemm_wgmma,
 * ops/conv/conv_gemm.c conv_wgrad_tile) in dtype dt under
 * CLOPS_CONV_WGMMA_WGRAD=mode: 128-wide blocks (136 and 80 channels), the
 * 64-wide ones (48 channels, stride 2), groups, channels-last and NCHW
 * images (float32 read in place as K-major tiles; the half types copied
 * channels-last where large enough: M/N-major cp.async tiles), the 3-channel
 * stem, K = samples x positions split into parts (up to 2,304 deep: the
 * engine's deterministic split); against the CPU reference, the bits
 * twice, and wgmma counted (at least one launch a case) on Hopper.  Other
 * devices run the same cases (the switch changes nothing there).
 */
static void wgrad_wgmma_cases(clops_dtype dt, const char *mode)
{
    static const conv_case cases[] = {
        /* nsp N cin cout groups in k stride pad dil outpad transposed bias */
        {2, 4, 32, 136, 1, {24, 24}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {0, 0}, false, false, 0},
        {2, 3, 40, 48, 1, {25, 23}, {3, 3}, {2, 2}, {1, 1}, {1, 1}, {0, 0}, false, false, 0},
        {2, 2, 64, 160, 2, {14, 14}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {0, 0}, false, false, 0},
        /* (1,024 positions a sample: the samples-as-groups path, on wgmma
         * under "all" only) */
        {2, 2, 3, 64, 1, {64, 64}, {7, 7}, {2, 2}, {3, 3}, {1, 1}, {0, 0}, false, false, 0},
        {2, 4, 64, 80, 1, {17, 17}, {1, 1}, {2, 2}, {0, 0}, {1, 1}, {0, 0}, false, false, 0},
    };
    static const bool cls[] = {false, true, false, false, true};
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_opencl_devices(devs, CT_MAX_DEVICES);
    const bool mask[3] = {false, true, false};
    for (int di = 0; di < nd; di++) {
        ct_set_device(devs[di]);
        clops_device *dev = devs[di];
        bool wg = !kit_is_cpu(dev) && gemm_engine_convolves(dev, dt) &&
                  gemm_engine_wgmma_candidate(dev, CLOPS_BFLOAT16);
        bool tf32 = !kit_is_cpu(dev) && gemm_engine_convolves(dev, dt) && dt == CLOPS_FLOAT32;
        setenv("CLOPS_CONV_WGMMA_WGRAD", mode, 1);
        for (size_t ci = 0; ci < CT_COUNT(cases); ci++) {
            const conv_case *c = &cases[ci];
            int n = c->nsp;
            ct_set_case("wgrad wgmma %s (%s) case %zu %s", clops_dtype_name(dt), mode, ci,
                        cls[ci] ? "channels-last" : "NCHW");
            conv_operands op = make_operands(dev, c, dt, cls[ci], 1600 + ci);
            clops_tensor *o[2][3] = {{NULL}}, *oc[3] = {NULL, NULL, NULL};
            gemm_engine_stats s0, s1;
            gemm_engine_get_stats(&s0);
            for (int r = 0; r < 2; r++)
                CT_OK(clops_convolution_backward(op.g, op.x, op.w, &c->cout, 1, c->stride, n,
                                                 c->pad, n, c->dil, n, c->transposed, c->outpad,
                                                 n, c->groups, mask, 3, &o[r][0], &o[r][1],
                                                 &o[r][2]));
            gemm_engine_get_stats(&s1);
            bool counted = wg && (ci != 3 || strcmp(mode, "all") == 0);
            CT_ASSERT_MSG(!counted || s1.wgmma_calls >= s0.wgmma_calls + 2,
                          "wgmma ran %llu of the 2 weight gradients",
                          (unsigned long long)(s1.wgmma_calls - s0.wgmma_calls));
            CT_OK(clops_convolution_backward(op.gc, op.xc, op.wc, &c->cout, 1, c->stride, n,
                                             c->pad, n, c->dil, n, c->transposed, c->outpad, n,
                                             c->groups, mask, 3, &oc[0], &oc[1], &oc[2]));
            /* each weight element sums samples x output positions terms */
            double terms = (double)c->N;
            for (int i = 0; i < n; i++)
                terms *= (double)out_size(c, i);
            ct_tol tol = tf32                  ? ct_tol_ulp_atol(64, terms * 4 * 0x1p-10)
                         : dt == CLOPS_FLOAT32 ? ct_tol_ulp_atol(64, 1e-5 + terms * 1e-6)
                         : dt == CLOPS_FLOAT16 ? ct_tol_ulp_atol(4, 2e-2 + terms * 1e-3)
                                               : ct_tol_ulp_atol(4, 1e-1 + terms * 8e-3);
            CT_ASSERT_CLOSE(o[0][1], oc[1], tol);
            CT_ASSERT_CLOSE(o[1][1], o[0][1], CT_TOL_EXACT);
            clops_tensor *all[] = {o[0][1], o[1][1], oc[1]};
            for (size_t i = 0; i < CT_COUNT(all); i++)
                clops_tensor_release(all[i]);
            release_operands(&op);
        }
        unsetenv("CLOPS_CONV_WGMMA_WGRAD");
    }
    ct_clear_context();
}

/* float32 as TF32 (the conv precision "high") under "all" (the rule keeps
 * float32 on mma.sync; the stem's 1,024 positions a sample take the
 * samples-as-groups path, on wgmma too).  Passed on the H200 in conv16's
 * job; failed there with the B descriptor's two K steps swapped in the
 * GEMM_CONV 3 programs (37,692 of 39,168 elements of case 0). */
static void test_conv_wgrad_wgmma_tf32(void **state)
{
    (void)state;
    CT_OK(clops_set_float32_conv_precision("high"));
    wgrad_wgmma_cases(CLOPS_FLOAT32, "all");
    CT_OK(clops_set_float32_conv_precision(NULL));
}

/* bfloat16 under the rule (the stem, on the samples path, uncounted) and
 * "all". */
static void test_conv_wgrad_wgmma_bf16(void **state)
{
    (void)state;
    wgrad_wgmma_cases(CLOPS_BFLOAT16, "1");
    wgrad_wgmma_cases(CLOPS_BFLOAT16, "all");
}

/* The weight-gradient rule's host logic (conv_wgrad_rule; every device):
 * the half types' weight gradients on the implicit path on 128 x 128 blocks
 * above 64 channels, 128 x 64 at 64 or fewer; float32 and the samples path
 * only under "all"; "0" none; a name that one for all. */
static void test_conv_wgrad_rule(void **state)
{
    (void)state;
    int big = 0, n64 = 0, few = 0;
    for (int i = 0; i < gemm_engine_config_count(); i++) {
        if (strcmp(gemm_engine_config_name(i), "wg128x128-s3-cs") == 0)
            big = i + 1;
        if (strcmp(gemm_engine_config_name(i), "wg128x64-s3-cs") == 0)
            n64 = i + 1;
        if (strcmp(gemm_engine_config_name(i), "wg64x128-s4-cs") == 0)
            few = i + 1;
    }
    CT_ASSERT(big > 0 && n64 > 0 && few > 0);
    static const char *const rule[] = {NULL, "1", "all"};
    for (size_t i = 0; i < CT_COUNT(rule); i++) {
        bool all = i == 2;
        CT_ASSERT(conv_wgrad_rule(rule[i], 128, false, true) == big);
        CT_ASSERT(conv_wgrad_rule(rule[i], 65, false, true) == big);
        CT_ASSERT(conv_wgrad_rule(rule[i], 64, false, true) == n64);
        CT_ASSERT(conv_wgrad_rule(rule[i], 1, false, true) == n64);
        CT_ASSERT(conv_wgrad_rule(rule[i], 128, false, false) == (all ? big : 0));
        CT_ASSERT(conv_wgrad_rule(rule[i], 64, false, false) == (all ? n64 : 0));
        CT_ASSERT(conv_wgrad_rule(rule[i], 64, true, true) == (all ? n64 : 0));
        CT_ASSERT(conv_wgrad_rule(rule[i], 512, true, false) == (all ? big : 0));
    }
    CT_ASSERT(conv_wgrad_rule("0", 128, false, true) == 0);
    CT_ASSERT(conv_wgrad_rule("0", 64, true, false) == 0);
    CT_ASSERT(conv_wgrad_rule("wg64x128-s4-cs", 512, false, false) == few);
    CT_ASSERT(conv_wgrad_rule("wg64x128-s4-cs", 64, true, true) == few);
    CT_ASSERT(conv_wgrad_rule("no-such-config", 128, false, true) == 0);
}

/* The same call twice gives the same bits (no float atomics anywhere). */
static void test_results_are_deterministic(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_opencl_devices(devs, CT_MAX_DEVICES);
    conv_case c = {2, 3, 4, 6, 2, {9, 8}, {3, 3}, {2, 1}, {1, 1}, {1, 2}, {0, 0}, false, true, 0};
    int64_t xs[4] = {3, 4, 9, 8}, ws[4] = {6, 2, 3, 3}, ys[4] = {3, 6, 5, 6};
    for (int di = 0; di < nd; di++) {
        ct_set_device(devs[di]);
        ct_set_case("determinism");
        clops_tensor *x =
            ct_random(devs[di], CLOPS_FLOAT32, 4, xs, CT_CONTIGUOUS, PW_DOMAIN_SMALL, 5);
        clops_tensor *w =
            ct_random(devs[di], CLOPS_FLOAT32, 4, ws, CT_CONTIGUOUS, PW_DOMAIN_SMALL, 6);
        clops_tensor *g =
            ct_random(devs[di], CLOPS_FLOAT32, 4, ys, CT_CONTIGUOUS, PW_DOMAIN_SMALL, 7);
        clops_tensor *r[2][3] = {{NULL}};
        const bool mask[3] = {true, true, true};
        for (int k = 0; k < 2; k++)
            CT_OK(clops_convolution_backward(g, x, w, &c.cout, 1, c.stride, 2, c.pad, 2, c.dil, 2,
                                             false, c.outpad, 2, 2, mask, 3, &r[k][0], &r[k][1],
                                             &r[k][2]));
        for (int i = 0; i < 3; i++)
            CT_ASSERT_CLOSE(r[0][i], r[1][i], CT_TOL_EXACT);
        clops_tensor *all[] = {x, w, g, r[0][0], r[0][1], r[0][2], r[1][0], r[1][1], r[1][2]};
        for (size_t i = 0; i < CT_COUNT(all); i++)
            clops_tensor_release(all[i]);
    }
    ct_clear_context();
}

/* PyTorch's refusals, worded with the op, the shapes and the device. */
static void test_bad_arguments_are_refused(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_devices(devs, CT_MAX_DEVICES);
    for (int di = 0; di < nd; di++) {
        ct_set_device(devs[di]);
        clops_device *d = devs[di];
        clops_tensor *x = ct_random(d, CLOPS_FLOAT32, 4, CT_I64(2, 4, 5, 4), CT_CONTIGUOUS,
                                    PW_DOMAIN_SMALL, 1);
        clops_tensor *w = ct_random(d, CLOPS_FLOAT32, 4, CT_I64(6, 3, 3, 3), CT_CONTIGUOUS,
                                    PW_DOMAIN_SMALL, 2);
        clops_tensor *w2 = ct_random(d, CLOPS_FLOAT32, 2, CT_I64(6, 4), CT_CONTIGUOUS,
                                     PW_DOMAIN_SMALL, 3);
        clops_tensor *wd = ct_random(d, CLOPS_FLOAT64, 4, CT_I64(6, 4, 3, 3), CT_CONTIGUOUS,
                                     PW_DOMAIN_SMALL, 4);
        clops_tensor *wbig = ct_random(d, CLOPS_FLOAT32, 4, CT_I64(6, 4, 9, 3), CT_CONTIGUOUS,
                                       PW_DOMAIN_SMALL, 5);
        clops_tensor *y = NULL;
        const int64_t one[] = {1}, zero[] = {0};
        CT_STATUS(clops_convolution(x, w, NULL, one, 1, zero, 1, one, 1, false, zero, 1, 1, &y),
                  CLOPS_INVALID_SHAPE);
        CT_ERROR_CONTAINS("convolution: Given groups=1, weight of size [6, 3, 3, 3], expected "
                          "input[2, 4, 5, 4] to have 3 channels, but got 4 channels instead");
        CT_STATUS(clops_convolution(x, w2, NULL, one, 1, zero, 1, one, 1, false, zero, 1, 1, &y),
                  CLOPS_INVALID_SHAPE);
        CT_ERROR_CONTAINS("weight should have at least three dimensions");
        CT_STATUS(clops_convolution(x, wd, NULL, one, 1, zero, 1, one, 1, false, zero, 1, 1, &y),
                  CLOPS_INVALID_DTYPE);
        CT_ERROR_CONTAINS("Input type (float) and weight type (double) should be the same");
        CT_STATUS(clops_convolution(x, wbig, NULL, one, 1, zero, 1, one, 1, false, zero, 1, 1, &y),
                  CLOPS_INVALID_SHAPE);
        CT_ERROR_CONTAINS("Kernel size can't be greater than actual input size");
        CT_STATUS(clops_convolution(x, w, NULL, zero, 1, zero, 1, one, 1, false, zero, 1, 1, &y),
                  CLOPS_INVALID_ARGUMENT);
        CT_ERROR_CONTAINS("non-positive stride is not supported");
        CT_STATUS(clops_convolution(x, wbig, NULL, CT_I64(1, 1, 1), 3, zero, 1, one, 1, false,
                                    zero, 1, 1, &y),
                  CLOPS_INVALID_ARGUMENT);
        CT_ERROR_CONTAINS("expected stride to be a single integer value or a list of 2 values");
        CT_ASSERT(y == NULL);
        clops_tensor *all[] = {x, w, w2, wd, wbig};
        for (size_t i = 0; i < CT_COUNT(all); i++)
            clops_tensor_release(all[i]);
    }
    ct_clear_context();
}

/* The fused epilogue of one _clops_conv_epilogue case: which parts take
 * part (bias; the affine: 0 none, 1 an eval batch norm, 2 scale and shift
 * alone, 3 shift alone; the residual: 0 none, 1 before the activation, 2
 * after it; its layout) and the activation (gemm_act). */
typedef struct epi_case {
    bool bias;
    int affine, residual, act;
    ct_layout rlayout;
} epi_case;

/* x + y of two CPU-device tensors (released), or x when y is NULL. */
static clops_tensor *plus(clops_tensor *x, clops_tensor *y)
{
    if (!y)
        return x;
    clops_tensor *o = NULL;
    CT_OK(clops_add(x, y, clops_scalar_int(1), &o));
    clops_tensor_release(x);
    return o;
}

/* act (gemm_act) of a CPU-device tensor (released) through PyTorch's op. */
static clops_tensor *activated(clops_tensor *x, int act)
{
    clops_tensor *o = NULL;
    switch (act) {
    case 0:
        return x;
    case 1:
        CT_OK(clops_relu(x, &o));
        break;
    case 2:
        CT_OK(clops_hardtanh(x, clops_scalar_int(0), clops_scalar_int(6), &o));
        break;
    case 3:
        CT_OK(clops_hardswish(x, &o));
        break;
    case 4:
        CT_OK(clops_silu(x, &o));
        break;
    case 5:
    case 6:
        CT_OK(clops_gelu(x, act == 6 ? "tanh" : "none", &o));
        break;
    case 7:
        CT_OK(clops_sigmoid(x, &o));
        break;
    default:
        CT_OK(clops_hardsigmoid(x, &o));
        break;
    }
    clops_tensor_release(x);
    return o;
}

/* float64 copy of a CPU-device tensor (NULL stays NULL). */
static clops_tensor *f64(const clops_tensor *t)
{
    clops_tensor *o = NULL;
    if (t)
        CT_OK(core_to_copy((clops_tensor *)t, CLOPS_FLOAT64, NULL, &o));
    return o;
}

/*
 * _clops_conv_epilogue (convolution + bias + eval batch norm or affine +
 * residual before/after + activation) on each OpenCL device in float32,
 * float16, bfloat16 (and float64 where the device has it: the fallback of
 * the convolution then one epilogue pass), NCHW and channels-last, plain,
 * grouped, strided/dilated, depthwise, 1x1, transposed, 1-D and 3-D, against the
 * CPU device (the reference, ref/conv.c: double, one rounding; the
 * channels-last cases with a channels-last weight too), itself
 * checked in float64 against the ops one by one (convolution,
 * _native_batch_norm_legit_no_training, add, the activation ops).  Where
 * the matrix engine takes the call the whole op is at most two launches
 * (the fold and the engine's GEMM), depthwise one (its direct kernel); the
 * same bits on a second run.
 */
static void test_conv_epilogue_matches_the_ops(void **state)
{
    (void)state;
    static const conv_case cases[] = {
        /* nsp N cin cout groups in k stride pad dil outpad transposed bias */
        {2, 2, 8, 12, 1, {7, 6}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {0, 0}, false, true, 0},
        {2, 2, 6, 4, 2, {9, 8}, {3, 2}, {2, 1}, {1, 0}, {2, 1}, {0, 0}, false, true, 0},
        {2, 2, 6, 6, 6, {7, 7}, {3, 3}, {2, 2}, {1, 1}, {1, 1}, {0, 0}, false, true, 0},
        {2, 1, 8, 16, 1, {5, 5}, {1, 1}, {1, 1}, {0, 0}, {1, 1}, {0, 0}, false, true, 0},
        {2, 2, 8, 6, 2, {4, 5}, {3, 3}, {2, 1}, {1, 1}, {1, 1}, {1, 0}, true, true, 0},
        {1, 2, 4, 6, 1, {11}, {3}, {2}, {1}, {1}, {0}, false, true, 0},
        {3, 1, 4, 4, 2, {3, 4, 4}, {2, 3, 3}, {1, 1, 1}, {1, 1, 1}, {1, 1, 1}, {0, 0, 0},
         false, true, 0},
    };
    static const epi_case epis[] = {
        {true, 1, 2, 1, CT_CONTIGUOUS},  /* ResNet: conv, BN, relu, + identity */
        {false, 1, 0, 3, CT_CONTIGUOUS}, /* MobileNet: conv, BN, hardswish */
        {true, 2, 1, 4, CT_SLICED},      /* residual before, one the engine cannot read */
        {false, 0, 2, 5, CT_CONTIGUOUS}, {true, 3, 0, 2, CT_CONTIGUOUS},
        {false, 1, 1, 7, CT_CONTIGUOUS}, {true, 0, 0, 6, CT_CONTIGUOUS},
        {true, 0, 0, 8, CT_CONTIGUOUS}, /* MobileNet's squeeze-excitation: conv, hardsigmoid */
    };
    static const clops_dtype dts[] = {CLOPS_FLOAT32, CLOPS_FLOAT16, CLOPS_BFLOAT16,
                                      CLOPS_FLOAT64};
    clops_device *cpu = ct_cpu();
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_opencl_devices(devs, CT_MAX_DEVICES);
    for (int di = 0; di < nd; di++) {
        ct_set_device(devs[di]);
        for (size_t ci = 0; ci < CT_COUNT(cases); ci++)
            for (size_t ti = 0; ti < CT_COUNT(dts); ti++)
                for (int li = 0; li < 2; li++) {
                    const conv_case *c = &cases[ci];
                    clops_dtype dt = dts[ti];
                    int n = c->nsp, ndim = 2 + n;
                    if (!ct_device_supports(devs[di], dt) || (li && ndim < 4) ||
                        (ti > 0 && (ci + ti + (size_t)li) % 2))
                        continue; /* other dtypes: half the cases suffice */
                    const epi_case *e = &epis[(2 * ci + ti + (size_t)li) % CT_COUNT(epis)];
                    ct_set_case("epilogue case %zu %s %s: bias %d affine %d residual %d (%s) "
                                "act %d",
                                ci, li ? "channels-last" : "NCHW", clops_dtype_name(dt), e->bias,
                                e->affine, e->residual, ct_layout_name(e->rlayout), e->act);
                    uint64_t seed = 900 + ci * 20 + ti * 4 + (uint64_t)li;
                    conv_operands op = make_operands(devs[di], c, dt, li, seed);
                    int64_t xs[5], ws[5], ys[5];
                    case_shapes(c, xs, ws, ys);
                    /* the vectors: bias, scale, shift, mean, var (> 0.25) */
                    clops_tensor *v[5] = {NULL}, *vc[5] = {NULL};
                    bool has[5] = {e->bias, e->affine == 1 || e->affine == 2, e->affine != 0,
                                   e->affine == 1, e->affine == 1};
                    for (int i = 0; i < 5; i++) {
                        if (!has[i])
                            continue;
                        clops_tensor *r = ct_random(devs[di], dt, 1, &c->cout, CT_CONTIGUOUS,
                                                    PW_DOMAIN_SMALL, seed + 10 + (uint64_t)i);
                        if (i == 4) {
                            clops_tensor *a = NULL;
                            CT_OK(clops_abs(r, &a));
                            CT_OK(clops_add_scalar(a, clops_scalar_float(0.25), clops_scalar_int(1),
                                                   &v[i]));
                            clops_tensor_release(a);
                            clops_tensor_release(r);
                        } else {
                            v[i] = r;
                        }
                        vc[i] = ct_to_cpu(v[i]);
                    }
                    clops_tensor *res = e->residual ? ct_random(devs[di], dt, ndim, ys,
                                                                e->rlayout, PW_DOMAIN_SMALL,
                                                                seed + 20)
                                                    : NULL;
                    clops_tensor *resc = res ? ct_to_cpu(res) : NULL;
                    double eps = 1e-5;
                    clops_tensor *y[2] = {NULL, NULL}, *yc = NULL;
                    /* channels-last: the weight too (read where it is) */
                    clops_tensor *wd = li ? channels_last(op.w) : op.w;
                    bool engine = gemm_engine_convolves(devs[di], dt) && c->cin != c->groups;
                    bool depthwise = c->cin == c->groups && !c->transposed;
                    clops_device_counters k0, k1;
                    for (int r = 0; r < 2; r++) {
                        CT_OK(clops_device_get_counters(devs[di], &k0));
                        CT_OK(clops__clops_conv_epilogue(
                            op.x, wd, v[0], c->stride, n, c->pad, n, c->dil, n, c->transposed,
                            c->outpad, n, c->groups, v[1], v[2], v[3], v[4], eps, res, e->act,
                            e->residual == 2, &y[r]));
                        CT_OK(clops_device_get_counters(devs[di], &k1));
                    }
                    uint64_t launches = k1.launches - k0.launches;
                    if ((engine && !(e->residual && e->rlayout == CT_SLICED)) || depthwise)
                        CT_ASSERT_MSG(launches <= (depthwise ? 1u : 2u),
                                      "%llu launches for a fused convolution",
                                      (unsigned long long)launches);
                    CT_OK(clops__clops_conv_epilogue(
                        op.xc, op.wc, vc[0], c->stride, n, c->pad, n, c->dil, n, c->transposed,
                        c->outpad, n, c->groups, vc[1], vc[2], vc[3], vc[4], eps, resc, e->act,
                        e->residual == 2, &yc));
                    /* the reference in float64 against the ops one by one */
                    clops_tensor *x64 = f64(op.xc), *w64 = f64(op.wc), *v64[5], *r64 = f64(resc);
                    for (int i = 0; i < 5; i++)
                        v64[i] = f64(vc[i]);
                    clops_tensor *want = NULL, *got64 = NULL, *t = NULL, *s1 = NULL, *s2 = NULL;
                    CT_OK(clops__clops_conv_epilogue(
                        x64, w64, v64[0], c->stride, n, c->pad, n, c->dil, n, c->transposed,
                        c->outpad, n, c->groups, v64[1], v64[2], v64[3], v64[4], eps, r64,
                        e->act, e->residual == 2, &got64));
                    CT_OK(clops_convolution(x64, w64, v64[0], c->stride, n, c->pad, n, c->dil,
                                            n, c->transposed, c->outpad, n, c->groups, &t));
                    if (e->affine) {
                        /* scale/shift alone: a batch norm of mean 0, var 1, eps 0 */
                        clops_tensor *mz = NULL, *vo = NULL;
                        CT_OK(tensor_new(cpu, CLOPS_FLOAT64, 1, &c->cout, NULL, &mz));
                        CT_OK(tensor_fill(mz, clops_scalar_int(0)));
                        CT_OK(tensor_new(cpu, CLOPS_FLOAT64, 1, &c->cout, NULL, &vo));
                        CT_OK(tensor_fill(vo, clops_scalar_int(1)));
                        CT_OK(clops__native_batch_norm_legit_no_training(
                            t, v64[1], v64[2], v64[3] ? v64[3] : mz, v64[4] ? v64[4] : vo, 0.1,
                            v64[4] ? eps : 0.0, &want, &s1, &s2));
                        clops_tensor_release(t);
                        clops_tensor_release(mz);
                        clops_tensor_release(vo);
                        t = want;
                    }
                    if (e->residual == 1)
                        t = plus(t, r64);
                    t = activated(t, e->act);
                    if (e->residual == 2)
                        t = plus(t, r64);
                    want = t;
                    CT_ASSERT_CLOSE(got64, want, ct_tol_ulp_atol(64, 1e-12));
                    /* the device against the reference: sums of up to
                     * cin * taps products below 4, scaled by up to 3 */
                    double terms = (double)(c->cin > c->cout ? c->cin : c->cout);
                    for (int i = 0; i < n; i++)
                        terms *= (double)c->k[i];
                    ct_tol tol = dt == CLOPS_FLOAT32   ? ct_tol_ulp_atol(64, 1e-5 + terms * 4e-6)
                                 : dt == CLOPS_FLOAT64 ? ct_tol_ulp_atol(64, 1e-12)
                                 : dt == CLOPS_FLOAT16 ? ct_tol_ulp_atol(4, 2e-2 + terms * 1e-3)
                                                       : ct_tol_ulp_atol(4, 1e-1 + terms * 8e-3);
                    CT_ASSERT_CLOSE(y[0], yc, tol);
                    CT_ASSERT_CLOSE(y[1], y[0], CT_TOL_EXACT);
                    if (ndim >= 4)
                        CT_ASSERT_MSG((y[0]->strides[1] == 1) == (li == 1),
                                      "result channel stride %lld for a %s input",
                                      (long long)y[0]->strides[1], li ? "channels-last" : "NCHW");
                    if (wd != op.w)
                        clops_tensor_release(wd);
                    clops_tensor *all[] = {y[0], y[1], yc, res, resc, x64, w64, r64, got64, want,
                                           s1, s2};
                    for (size_t i = 0; i < CT_COUNT(all); i++)
                        clops_tensor_release(all[i]);
                    for (int i = 0; i < 5; i++) {
                        clops_tensor_release(v[i]);
                        clops_tensor_release(vc[i]);
                        clops_tensor_release(v64[i]);
                    }
                    release_operands(&op);
                }
    }
    ct_clear_context();
}

/* _clops_conv_epilogue's own refusals (the convolution's are
 * convolution's, above): an activation out of range, vectors of the wrong
 * size or dtype, a residual of the wrong shape. */
static void test_conv_epilogue_refusals(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_devices(devs, CT_MAX_DEVICES);
    for (int di = 0; di < nd; di++) {
        ct_set_device(devs[di]);
        clops_device *d = devs[di];
        clops_tensor *x = ct_random(d, CLOPS_FLOAT32, 4, CT_I64(2, 3, 5, 4), CT_CONTIGUOUS,
                                    PW_DOMAIN_SMALL, 1);
        clops_tensor *w = ct_random(d, CLOPS_FLOAT32, 4, CT_I64(6, 3, 3, 3), CT_CONTIGUOUS,
                                    PW_DOMAIN_SMALL, 2);
        clops_tensor *v5 = ct_random(d, CLOPS_FLOAT32, 1, CT_I64(5), CT_CONTIGUOUS,
                                     PW_DOMAIN_SMALL, 3);
        clops_tensor *vd = ct_random(d, CLOPS_FLOAT64, 1, CT_I64(6), CT_CONTIGUOUS,
                                     PW_DOMAIN_SMALL, 4);
        clops_tensor *r = ct_random(d, CLOPS_FLOAT32, 4, CT_I64(2, 6, 3, 3), CT_CONTIGUOUS,
                                    PW_DOMAIN_SMALL, 5);
        clops_tensor *y = NULL;
        const int64_t one[] = {1}, zero[] = {0};
        CT_STATUS(clops__clops_conv_epilogue(x, w, NULL, one, 1, zero, 1, one, 1, false, zero, 1,
                                             1, NULL, NULL, NULL, NULL, 1e-5, NULL, 9, false, &y),
                  CLOPS_INVALID_ARGUMENT);
        CT_ERROR_CONTAINS("_clops_conv_epilogue: activation 9 is not one of 0 (none) to 8");
        CT_STATUS(clops__clops_conv_epilogue(x, w, NULL, one, 1, zero, 1, one, 1, false, zero, 1,
                                             1, v5, NULL, NULL, NULL, 1e-5, NULL, 0, false, &y),
                  CLOPS_INVALID_SHAPE);
        CT_ERROR_CONTAINS("scale must be 1-dimensional with 6 elements (the output channels), "
                          "but got size [5]");
        CT_STATUS(clops__clops_conv_epilogue(x, w, NULL, one, 1, zero, 1, one, 1, false, zero, 1,
                                             1, NULL, NULL, NULL, vd, 1e-5, NULL, 0, false, &y),
                  CLOPS_INVALID_DTYPE);
        CT_ERROR_CONTAINS("var must have the input's dtype Float, but got Double");
        CT_STATUS(clops__clops_conv_epilogue(x, w, NULL, one, 1, zero, 1, one, 1, false, zero, 1,
                                             1, NULL, NULL, NULL, NULL, 1e-5, r, 1, true, &y),
                  CLOPS_INVALID_SHAPE);
        CT_ERROR_CONTAINS("the residual must have the convolution's output shape [2, 6, 3, 2], "
                          "but got [2, 6, 3, 3]");
        CT_ASSERT(y == NULL);
        clops_tensor *all[] = {x, w, v5, vd, r};
        for (size_t i = 0; i < CT_COUNT(all); i++)
            clops_tensor_release(all[i]);
    }
    ct_clear_context();
}

/* CLOPS_TEST_FILTER (a cmocka glob) runs a subset (the GPU job runs the
 * epilogue tests first). */
int main(void)
{
    const char *filter = getenv("CLOPS_TEST_FILTER");
    if (filter && *filter)
        cmocka_set_test_filter(filter);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_conv_matches_pytorch),
        cmocka_unit_test(test_geometries_match_the_reference),
        cmocka_unit_test(test_half_types_match_the_reference),
        cmocka_unit_test(test_reference_gradients_match_finite_differences),
        cmocka_unit_test(test_implicit_gemm_paths),
        cmocka_unit_test(test_implicit_weight_gradient_splits),
        cmocka_unit_test(test_weight_gradient_by_samples),
        cmocka_unit_test(test_conv_wgmma_tf32),
        cmocka_unit_test(test_conv_wgmma_half_bf16),
        cmocka_unit_test(test_conv_wgmma_half_f16),
        cmocka_unit_test(test_conv_wgmma_n64_tf32),
        cmocka_unit_test(test_conv_wgmma_n64_bf16),
        cmocka_unit_test(test_conv_wgmma_rule),
        cmocka_unit_test(test_conv_wgrad_wgmma_tf32),
        cmocka_unit_test(test_conv_wgrad_wgmma_bf16),
        cmocka_unit_test(test_conv_wgrad_rule),
        cmocka_unit_test(test_results_are_deterministic),
        cmocka_unit_test(test_bad_arguments_are_refused),
        cmocka_unit_test(test_conv_epilogue_matches_the_ops),
        cmocka_unit_test(test_conv_epilogue_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, ct_teardown_group);
}
