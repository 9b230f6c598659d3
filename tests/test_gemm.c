/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/test_gemm.c: the matrix-multiplication family (mm, bmm, addmm,
 * addmv, mv, dot, outer/ger, addr, baddbmm, addbmm, matmul, linear) on
 * every device, the CLBlast glue and the GEMM tuning file.
 *
 * The CPU reference engine is first checked exactly against naive loops on
 * small integer-valued data.  Every OpenCL device is then checked against
 * the CPU device on the same values, for every op, dtype (float32, float64
 * where the device has it, float16, bfloat16) and operand layout: row-major,
 * column-major (a transposed view), row- and column-major with a gap between
 * rows and a storage offset (a slice of a wider matrix), and a step-2 slice
 * (neither unit stride: the one layout CLBlast cannot take, which is
 * copied), with batches packed, with gaps, broadcast (stride 0) and
 * innermost.  Gaps hold NaN, so an engine reading one shows.  Results are
 * written into guarded outputs of several layouts.  Tolerances scale with
 * the reduction length K.
 *
 * float32, float16 and bfloat16 run in clops' engine (tests/test_gemm_engine.c
 * tests it at its seam); the two tests of CLBlast's glue switch it off.
 * CLBlast compiles one program per (routine, precision) on first use, which
 * takes 7-15 s each on POCL; the tests use four (float32 and float64, plain
 * and strided-batched) and keep the tuning tests, which compile one program
 * per parameter set, last.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clops/ops.h"
#include "support/clops_test.h"
#include "ops/gemm/gemm.h"
#include "host/host.h"
#include "ops_generated.h"

#define I64 CT_I64

/* --- operand layouts ---------------------------------------------------- */

typedef enum mlayout {
    ML_ROW,     /* row-major, packed */
    ML_COL,     /* column-major (a transposed view) */
    ML_ROW_GAP, /* row-major, leading dimension > columns, storage offset */
    ML_COL_GAP, /* column-major, leading dimension > rows, storage offset */
    ML_STEP,    /* step-2 in both dims: no unit stride (copied for CLBlast) */
    ML_COUNT
} mlayout;

static const char *const ml_names[ML_COUNT] = {"row-major", "column-major", "row-major+gap",
                                               "column-major+gap", "step-2"};

typedef enum blayout {
    BL_PACKED, /* batches one after another */
    BL_GAP,    /* a gap between batches */
    BL_BCAST,  /* every batch the same matrix (stride 0) */
    BL_INNER   /* batch innermost in memory (row-major only) */
} blayout;

static const char *const bl_names[] = {"packed", "gapped", "broadcast", "innermost"};

/* Strides, offset and footprint of one matrix of a layout. */
static void mgeom(mlayout l, int64_t r, int64_t c, int64_t *rs, int64_t *cs, int64_t *off,
                  int64_t *foot)
{
    int64_t ld;
    switch (l) {
    case ML_ROW: *rs = c, *cs = 1, *off = 0; break;
    case ML_COL: *rs = 1, *cs = r, *off = 0; break;
    case ML_ROW_GAP: ld = c + 3, *rs = ld, *cs = 1, *off = 2 * ld + 1; break;
    case ML_COL_GAP: ld = r + 2, *rs = 1, *cs = ld, *off = ld + 3; break;
    default: *rs = 4 * (c > 0 ? c : 1), *cs = 2, *off = 1; break;
    }
    int64_t last = 0;
    if (r > 0 && c > 0)
        last = (r - 1) * *rs + (c - 1) * *cs;
    *foot = *off + last + 1;
}

/* Host values of a dtype: (-1, 1) for floats, [-3, 3] for integers. */
static void *host_values(clops_dtype dt, int64_t n, uint64_t seed)
{
    ct_rng rng = ct_rng_seeded(seed);
    void *buf = malloc((size_t)(n > 0 ? n : 1) * clops_dtype_size(dt));
    CT_ASSERT(buf != NULL);
    ct_fill(buf, n, dt, clops_dtype_is_floating(dt) ? PW_DOMAIN_UNIT : PW_DOMAIN_SMALL, &rng);
    return buf;
}

/*
 * A tensor [bsz..., r, c] of matrix layout ml and batch layout bl on d,
 * holding the values of seed.  Memory outside its elements holds NaN (99 for
 * integers).
 */
static clops_tensor *mk(clops_device *d, clops_dtype dt, int nb, const int64_t *bsz, int64_t r,
                        int64_t c, mlayout ml, blayout bl, uint64_t seed)
{
    int64_t rs, cs, off, foot;
    mgeom(ml, r, c, &rs, &cs, &off, &foot);
    int nd = nb + 2;
    int64_t sizes[CLOPS_MAX_DIMS], strides[CLOPS_MAX_DIMS];
    int64_t bprod = 1;
    for (int i = 0; i < nb; i++)
        bprod *= bsz[i];
    /* the batch dims (with the matrix strides) */
    int64_t step = foot + (bl == BL_GAP ? 5 : 0);
    for (int i = nb - 1; i >= 0; i--) {
        sizes[i] = bl == BL_BCAST ? 1 : bsz[i];
        strides[i] = step;
        step *= bsz[i] > 0 ? bsz[i] : 1;
    }
    sizes[nb] = r, sizes[nb + 1] = c;
    strides[nb] = rs, strides[nb + 1] = cs;
    if (bl == BL_INNER) {
        CT_ASSERT(nb == 1 && ml == ML_ROW);
        off = 0;
        strides[0] = 1, strides[1] = c * bsz[0], strides[2] = bsz[0];
    }
    int64_t total = off + 1;
    for (int i = 0; i < nd; i++)
        if (sizes[i] > 0)
            total += (sizes[i] - 1) * strides[i];
    clops_tensor *base = NULL, *view = NULL, *full = NULL;
    clops_scalar fill =
        clops_dtype_is_floating(dt) ? clops_scalar_float(NAN) : clops_scalar_int(99);
    CT_OK(clops_full(d, dt, 1, &total, fill, &base));
    CT_OK(core_as_strided(base, sizes, nd, strides, nd, &off, &view));
    int64_t n = ct_numel(nd, sizes);
    void *vals = host_values(dt, n, seed);
    CT_OK(clops_tensor_from_host(view, vals, (size_t)n * clops_dtype_size(dt)));
    free(vals);
    clops_tensor_release(base);
    if (bl != BL_BCAST || bprod == 0)
        return view;
    int64_t want[CLOPS_MAX_DIMS];
    memcpy(want, bsz, sizeof(int64_t) * (size_t)nb);
    want[nb] = r, want[nb + 1] = c;
    CT_OK(core_expand(view, want, nd, false, &full));
    clops_tensor_release(view);
    return full;
}

/* A 2-D matrix of a layout. */
static clops_tensor *mat(clops_device *d, clops_dtype dt, int64_t r, int64_t c, mlayout ml,
                         uint64_t seed)
{
    return mk(d, dt, 0, NULL, r, c, ml, BL_PACKED, seed);
}

/* A vector of n elements with the given stride and an offset of 3. */
static clops_tensor *vec(clops_device *d, clops_dtype dt, int64_t n, int64_t stride, uint64_t seed)
{
    int64_t total = 3 + (n > 0 ? (n - 1) * stride : 0) + 1, off = 3;
    clops_tensor *base = NULL, *v = NULL;
    clops_scalar fill =
        clops_dtype_is_floating(dt) ? clops_scalar_float(NAN) : clops_scalar_int(99);
    CT_OK(clops_full(d, dt, 1, &total, fill, &base));
    CT_OK(core_as_strided(base, &n, 1, &stride, 1, &off, &v));
    void *vals = host_values(dt, n, seed);
    CT_OK(clops_tensor_from_host(v, vals, (size_t)n * clops_dtype_size(dt)));
    free(vals);
    clops_tensor_release(base);
    return v;
}

/* The tolerance for a product of reduction length k with values in (-1, 1)
 * and scalars up to 2. */
static ct_tol tol_for(clops_dtype dt, int64_t k)
{
    double kk = (double)(k > 0 ? k : 1);
    switch (dt) {
    case CLOPS_FLOAT32: return ct_tol_ulp_atol(8, 8 * kk * 0x1p-24);
    case CLOPS_FLOAT64: return ct_tol_ulp_atol(8, 8 * kk * 0x1p-53);
    case CLOPS_FLOAT16:
    case CLOPS_BFLOAT16: return ct_tol_ulp_atol(2, 8 * kk * 0x1p-24);
    default: return CT_TOL_EXACT;
    }
}

/* The floating dtypes device d runs GEMMs in. */
static int float_dtypes(const clops_device *d, clops_dtype *out)
{
    int n = 0;
    out[n++] = CLOPS_FLOAT32;
    if (clops_device_get_info(d)->fp64)
        out[n++] = CLOPS_FLOAT64;
    out[n++] = CLOPS_FLOAT16;
    out[n++] = CLOPS_BFLOAT16;
    return n;
}

/* The OpenCL devices under test. */
static int cl_devices(clops_device **out)
{
    return ct_opencl_devices(out, CT_MAX_DEVICES);
}

/* Releases up to 6 tensors. */
static void rel(clops_tensor *a, clops_tensor *b, clops_tensor *c, clops_tensor *d, clops_tensor *e,
                clops_tensor *f)
{
    clops_tensor *ts[] = {a, b, c, d, e, f};
    for (int i = 0; i < 6; i++)
        clops_tensor_release(ts[i]);
}

/* --- the CPU reference against naive loops ---------------------------------- */

/* Row-major host product of [m, k] @ [k, n] in double. */
static void naive_mm(const double *a, const double *b, double *c, int m, int k, int n)
{
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) {
            double s = 0;
            for (int p = 0; p < k; p++)
                s += a[i * k + p] * b[p * n + j];
            c[i * n + j] = s;
        }
}

/* Integer-valued doubles in [-4, 4]: every product below is exact. */
static void small_ints(double *v, int n, uint64_t seed)
{
    ct_rng r = ct_rng_seeded(seed);
    for (int i = 0; i < n; i++)
        v[i] = (double)ct_rng_range(&r, -4, 4);
}

static void cpu_reference_matches_naive_loops(void **state)
{
    (void)state;
    clops_device *cpu = ct_cpu();
    enum { M = 70, K = 300, N = 67 }; /* more than one tile and one panel */
    static double a[M * K], b[K * N], c[M * N], got[M * N], s[M * N];
    small_ints(a, M * K, 1);
    small_ints(b, K * N, 2);
    small_ints(s, M * N, 3);
    naive_mm(a, b, c, M, K, N);
    clops_tensor *ta = NULL, *tb = NULL, *tc = NULL, *ts = NULL, *tr = NULL;
    CT_OK(clops_from_host(cpu, CLOPS_FLOAT64, 2, I64(M, K), a, sizeof a, &ta));
    CT_OK(clops_from_host(cpu, CLOPS_FLOAT64, 2, I64(K, N), b, sizeof b, &tb));
    CT_OK(clops_from_host(cpu, CLOPS_FLOAT64, 2, I64(M, N), s, sizeof s, &ts));
    CT_OK(clops_mm(ta, tb, &tc));
    void *hc = ct_to_host(tc);
    CT_ASSERT_CLOSE_HOST(hc, c, CLOPS_FLOAT64, 2, I64(M, N), CT_TOL_EXACT);
    free(hc);
    /* addmm: 2 * s - 3 * a @ b */
    CT_OK(clops_addmm(ts, ta, tb, clops_scalar_int(2), clops_scalar_int(-3), &tr));
    void *h = ct_to_host(tr);
    memcpy(got, h, sizeof got);
    free(h);
    for (int i = 0; i < M * N; i++)
        CT_ASSERT_MSG(got[i] == 2 * s[i] - 3 * c[i], "addmm element %d: %g", i, got[i]);
    rel(ta, tb, tc, ts, tr, NULL);

    /* int64 and int8 (wrapping) products */
    static int64_t ia[6] = {1, 2, 3, 4, 5, 6}, ib[6] = {7, 8, 9, 10, 11, 12}, ic[4];
    CT_OK(clops_from_host(cpu, CLOPS_INT64, 2, I64(2, 3), ia, sizeof ia, &ta));
    CT_OK(clops_from_host(cpu, CLOPS_INT64, 2, I64(3, 2), ib, sizeof ib, &tb));
    CT_OK(clops_mm(ta, tb, &tc));
    CT_OK(clops_tensor_to_host(tc, ic, sizeof ic));
    CT_ASSERT(ic[0] == 58 && ic[1] == 64 && ic[2] == 139 && ic[3] == 154);
    rel(ta, tb, tc, NULL, NULL, NULL);
    int8_t xa[2] = {100, 100}, xb[2] = {2, 1};
    int8_t xc[1];
    CT_OK(clops_from_host(cpu, CLOPS_INT8, 2, I64(1, 2), xa, sizeof xa, &ta));
    CT_OK(clops_from_host(cpu, CLOPS_INT8, 2, I64(2, 1), xb, sizeof xb, &tb));
    CT_OK(clops_mm(ta, tb, &tc));
    CT_OK(clops_tensor_to_host(tc, xc, sizeof xc));
    CT_ASSERT_MSG(xc[0] == (int8_t)44, "300 wraps to 44 in int8, got %d", xc[0]);
    rel(ta, tb, tc, NULL, NULL, NULL);
}

/* matmul with broadcast batches on the CPU against naive loops. */
static void cpu_matmul_broadcasts_batches_like_pytorch(void **state)
{
    (void)state;
    clops_device *cpu = ct_cpu();
    /* [2, 1, 3, 4] @ [3, 4, 5] -> [2, 3, 3, 5] */
    static double a[2 * 3 * 4], b[3 * 4 * 5], want[2 * 3 * 3 * 5];
    small_ints(a, 24, 4);
    small_ints(b, 60, 5);
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 3; j++)
            naive_mm(a + i * 12, b + j * 20, want + (i * 3 + j) * 15, 3, 4, 5);
    clops_tensor *ta = NULL, *tb = NULL, *tc = NULL;
    CT_OK(clops_from_host(cpu, CLOPS_FLOAT64, 4, I64(2, 1, 3, 4), a, sizeof a, &ta));
    CT_OK(clops_from_host(cpu, CLOPS_FLOAT64, 3, I64(3, 4, 5), b, sizeof b, &tb));
    CT_OK(clops_matmul(ta, tb, &tc));
    CT_ASSERT(clops_tensor_ndim(tc) == 4 && clops_tensor_size(tc, 0) == 2 &&
              clops_tensor_size(tc, 1) == 3 && clops_tensor_size(tc, 2) == 3 &&
              clops_tensor_size(tc, 3) == 5);
    void *hc = ct_to_host(tc);
    CT_ASSERT_CLOSE_HOST(hc, want, CLOPS_FLOAT64, 4, I64(2, 3, 3, 5), CT_TOL_EXACT);
    free(hc);
    rel(ta, tb, tc, NULL, NULL, NULL);
}

/* --- device against the CPU reference -------------------------------------- */

/* Runs mm on d for every pair of operand layouts and a few output layouts. */
static void mm_matches_cpu_for_every_layout_and_dtype(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int nd = cl_devices(devs);
    const int64_t M = 13, K = 17, N = 11;
    for (int di = 0; di < nd; di++) {
        clops_device *d = devs[di];
        ct_set_device(d);
        clops_dtype dts[4];
        int ndt = float_dtypes(d, dts);
        for (int t = 0; t < ndt; t++)
            for (int la = 0; la < ML_COUNT; la++)
                for (int lb = 0; lb < ML_COUNT; lb++) {
                    /* all pairs for float32; the diagonal for the others */
                    if (dts[t] != CLOPS_FLOAT32 && la != lb)
                        continue;
                    ct_set_case("mm %s, A %s, B %s", clops_dtype_name(dts[t]), ml_names[la],
                                ml_names[lb]);
                    clops_tensor *a = mat(d, dts[t], M, K, (mlayout)la, 10 + la);
                    clops_tensor *b = mat(d, dts[t], K, N, (mlayout)lb, 20 + lb);
                    clops_tensor *ca = ct_to_cpu(a), *cb = ct_to_cpu(b), *r = NULL, *e = NULL;
                    CT_OK(clops_mm(a, b, &r));
                    CT_OK(clops_mm(ca, cb, &e));
                    CT_ASSERT_CLOSE(r, e, tol_for(dts[t], K));
                    /* the out form into guarded outputs of three layouts */
                    if (la == lb) {
                        for (int lo = 0; lo < 3; lo++) {
                            ct_set_case("mm.out %s, A/B %s, out %s", clops_dtype_name(dts[t]),
                                        ml_names[la], ct_layout_name((ct_layout)lo));
                            ct_guarded g = ct_guarded_new(d, dts[t], 2, I64(M, N), (ct_layout)lo);
                            CT_OK(clops_mm_out(a, b, g.t));
                            CT_ASSERT_CLOSE(g.t, e, tol_for(dts[t], K));
                            CT_GUARDS_INTACT(&g);
                            ct_guarded_release(&g);
                        }
                    }
                    rel(a, b, ca, cb, r, e);
                }
    }
    ct_clear_context();
}

/* addmm with beta and alpha, broadcast self, in-place and out forms. */
static void addmm_scales_and_adds_self_like_pytorch(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int nd = cl_devices(devs);
    const int64_t M = 9, K = 33, N = 7;
    for (int di = 0; di < nd; di++) {
        clops_device *d = devs[di];
        ct_set_device(d);
        clops_dtype dts[4];
        int ndt = float_dtypes(d, dts);
        for (int t = 0; t < ndt; t++) {
            clops_dtype dt = dts[t];
            clops_tensor *a = mat(d, dt, M, K, ML_COL_GAP, 1), *b = mat(d, dt, K, N, ML_ROW, 2);
            clops_tensor *ca = ct_to_cpu(a), *cb = ct_to_cpu(b);
            clops_scalar beta = clops_scalar_float(-0.5), alpha = clops_scalar_float(1.5);
            /* self of three shapes: [M, N], [N] (broadcast), [] */
            clops_tensor *selfs[3] = {mat(d, dt, M, N, ML_COL, 3), vec(d, dt, N, 2, 4), NULL};
            CT_OK(clops_full(d, dt, 0, NULL, clops_scalar_float(0.25), &selfs[2]));
            for (int si = 0; si < 3; si++) {
                ct_set_case("addmm %s, self of rank %d", clops_dtype_name(dt),
                            clops_tensor_ndim(selfs[si]));
                clops_tensor *cs = ct_to_cpu(selfs[si]), *r = NULL, *e = NULL;
                CT_OK(clops_addmm(selfs[si], a, b, beta, alpha, &r));
                CT_OK(clops_addmm(cs, ca, cb, beta, alpha, &e));
                CT_ASSERT_CLOSE(r, e, tol_for(dt, K));
                rel(cs, r, e, NULL, NULL, NULL);
            }
            /* in place on a column-major self; out into a sliced out */
            ct_set_case("addmm_ %s on a column-major self", clops_dtype_name(dt));
            clops_tensor *cself = ct_to_cpu(selfs[0]);
            CT_OK(clops_addmm_(selfs[0], a, b, beta, alpha));
            CT_OK(clops_addmm_(cself, ca, cb, beta, alpha));
            CT_ASSERT_CLOSE(selfs[0], cself, tol_for(dt, K));
            ct_set_case("addmm.out %s into a sliced out", clops_dtype_name(dt));
            ct_guarded g = ct_guarded_new(d, dt, 2, I64(M, N), CT_SLICED);
            clops_tensor *e = NULL;
            CT_OK(clops_addmm_out(selfs[1], a, b, beta, alpha, g.t));
            clops_tensor *cs1 = ct_to_cpu(selfs[1]);
            CT_OK(clops_addmm(cs1, ca, cb, beta, alpha, &e));
            clops_tensor_release(cs1);
            CT_ASSERT_CLOSE(g.t, e, tol_for(dt, K));
            CT_GUARDS_INTACT(&g);
            ct_guarded_release(&g);
            rel(a, b, ca, cb, cself, e);
            rel(selfs[0], selfs[1], selfs[2], NULL, NULL, NULL);
        }
    }
    ct_clear_context();
}

/* beta == 0 ignores NaN and Inf in self, as PyTorch does. */
static void addmm_with_beta_zero_ignores_nan_in_self(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int n = ct_devices(devs, CT_MAX_DEVICES);
    for (int di = 0; di < n; di++) {
        clops_device *d = devs[di];
        ct_set_device(d);
        clops_tensor *self = NULL, *a = mat(d, CLOPS_FLOAT32, 4, 5, ML_ROW, 1);
        clops_tensor *b = mat(d, CLOPS_FLOAT32, 5, 3, ML_COL, 2), *r = NULL, *e = NULL;
        CT_OK(clops_full(d, CLOPS_FLOAT32, 2, I64(4, 3), clops_scalar_float(NAN), &self));
        CT_OK(clops_addmm(self, a, b, clops_scalar_int(0), clops_scalar_int(1), &r));
        CT_OK(clops_mm(a, b, &e));
        CT_ASSERT_CLOSE(r, e, tol_for(CLOPS_FLOAT32, 5));
        /* in place too */
        CT_OK(clops_addmm_(self, a, b, clops_scalar_float(0.0), clops_scalar_int(1)));
        CT_ASSERT_CLOSE(self, e, tol_for(CLOPS_FLOAT32, 5));
        rel(self, a, b, r, e, NULL);
    }
    ct_clear_context();
}

/* bmm and baddbmm over packed, gapped, broadcast and innermost batches. */
static void bmm_matches_cpu_for_batch_layouts(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int nd = cl_devices(devs);
    const int64_t B = 3, M = 7, K = 5, N = 6;
    const blayout bls[] = {BL_PACKED, BL_GAP, BL_BCAST, BL_INNER};
    for (int di = 0; di < nd; di++) {
        clops_device *d = devs[di];
        ct_set_device(d);
        clops_dtype dts[4];
        int ndt = float_dtypes(d, dts);
        for (int t = 0; t < ndt; t++)
            for (int ba = 0; ba < 4; ba++)
                for (int bb = 0; bb < 4; bb++) {
                    const clops_dtype dt = dts[t];
                    if (dt != CLOPS_FLOAT32 && ba != bb)
                        continue;
                    mlayout mla = bls[ba] == BL_INNER ? ML_ROW : (mlayout)(ba % 4);
                    mlayout mlb = bls[bb] == BL_INNER ? ML_ROW : (mlayout)((bb + 1) % 4);
                    ct_set_case("bmm %s, A %s/%s, B %s/%s", clops_dtype_name(dt), bl_names[ba],
                                ml_names[mla], bl_names[bb], ml_names[mlb]);
                    clops_tensor *a = mk(d, dt, 1, I64(B), M, K, mla, bls[ba], 30 + ba);
                    clops_tensor *b = mk(d, dt, 1, I64(B), K, N, mlb, bls[bb], 40 + bb);
                    clops_tensor *ca = ct_to_cpu(a), *cb = ct_to_cpu(b), *r = NULL, *e = NULL;
                    CT_OK(clops_bmm(a, b, &r));
                    CT_OK(clops_bmm(ca, cb, &e));
                    CT_ASSERT_CLOSE(r, e, tol_for(dt, K));
                    if (ba == bb) {
                        /* baddbmm into outputs of three layouts */
                        clops_tensor *self = mk(d, dt, 1, I64(B), M, N, ML_ROW, BL_GAP, 5);
                        clops_tensor *cself = ct_to_cpu(self), *e2 = NULL;
                        CT_OK(clops_baddbmm(cself, ca, cb, clops_scalar_float(2.0),
                                            clops_scalar_float(-1.0), &e2));
                        for (int lo = 0; lo < 3; lo++) {
                            ct_set_case("baddbmm.out A/B %s, out %s", bl_names[ba],
                                        ct_layout_name((ct_layout)lo));
                            ct_guarded g = ct_guarded_new(d, dt, 3, I64(B, M, N), (ct_layout)lo);
                            CT_OK(clops_baddbmm_out(self, a, b, clops_scalar_float(2.0),
                                                    clops_scalar_float(-1.0), g.t));
                            CT_ASSERT_CLOSE(g.t, e2, tol_for(dt, K));
                            CT_GUARDS_INTACT(&g);
                            ct_guarded_release(&g);
                        }
                        CT_OK(clops_baddbmm_(self, a, b, clops_scalar_float(2.0),
                                             clops_scalar_float(-1.0)));
                        CT_ASSERT_CLOSE(self, e2, tol_for(dt, K));
                        rel(self, cself, e2, NULL, NULL, NULL);
                    }
                    rel(a, b, ca, cb, r, e);
                }
    }
    ct_clear_context();
}

/* Batched products large enough for CLBlast's indirect kernel, with
 * offsets and gaps (CLBlast 1.5.3's strided-batched offset bug), in every
 * dtype including float64. */
static void bmm_large_with_offsets_matches_cpu(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int nd = cl_devices(devs);
    const int64_t B = 3, M = 64, K = 80, N = 72;
    for (int di = 0; di < nd; di++) {
        clops_device *d = devs[di];
        ct_set_device(d);
        clops_dtype dts[4];
        int ndt = float_dtypes(d, dts);
        for (int t = 0; t < ndt; t++)
            for (int bl = 0; bl < 3; bl++) {
                ct_set_case("bmm %s, %lldx%lldx%lldx%lld, batches %s", clops_dtype_name(dts[t]),
                            (long long)B, (long long)M, (long long)K, (long long)N, bl_names[bl]);
                /* a slice of a bigger batch: offset, packed rows */
                clops_tensor *big = mk(d, dts[t], 1, I64(B + 1), M, K, ML_ROW, (blayout)bl, 50);
                clops_tensor *a = NULL;
                int64_t one = 1, end = B + 1;
                CT_OK(core_slice(big, 0, &one, &end, 1, &a));
                clops_tensor *b = mk(d, dts[t], 1, I64(B), K, N, ML_ROW, (blayout)bl, 51);
                clops_tensor *ca = ct_to_cpu(a), *cb = ct_to_cpu(b), *r = NULL, *e = NULL;
                CT_OK(clops_bmm(a, b, &r));
                CT_OK(clops_bmm(ca, cb, &e));
                CT_ASSERT_CLOSE(r, e, tol_for(dts[t], K));
                rel(big, a, b, ca, cb, r);
                clops_tensor_release(e);
            }
    }
    ct_clear_context();
}

/* addbmm: one product when batch1 views as [M, B*K], a loop otherwise. */
static void addbmm_sums_the_batch_products(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int n = ct_devices(devs, CT_MAX_DEVICES);
    for (int di = 0; di < n; di++) {
        clops_device *d = devs[di];
        ct_set_device(d);
        clops_dtype dts[4];
        int ndt = float_dtypes(d, dts);
        for (int t = 0; t < ndt; t++)
            for (int mode = 0; mode < 3; mode++) {
                const clops_dtype dt = dts[t];
                int64_t B = mode == 2 ? 0 : 4;
                ct_set_case("addbmm %s, %s", clops_dtype_name(dt),
                            mode == 0   ? "viewable as one product"
                            : mode == 1 ? "looped"
                                        : "no batches");
                /* mode 0: batch1 [B, M, K] from a [M, B, K] contiguous tensor */
                clops_tensor *a = NULL;
                if (mode == 0) {
                    clops_tensor *m3 = mk(d, dt, 1, I64(5), B, 6, ML_ROW, BL_PACKED, 60);
                    CT_OK(core_transpose(m3, 0, 1, &a));
                    clops_tensor_release(m3);
                } else {
                    a = mk(d, dt, 1, I64(B), 5, 6, ML_COL, BL_GAP, 61);
                }
                clops_tensor *b = mk(d, dt, 1, I64(B), 6, 7, ML_ROW, BL_PACKED, 62);
                clops_tensor *self = vec(d, dt, 7, 1, 63);
                clops_tensor *ca = ct_to_cpu(a), *cb = ct_to_cpu(b), *cs = ct_to_cpu(self);
                clops_tensor *r = NULL, *e = NULL;
                CT_OK(
                    clops_addbmm(self, a, b, clops_scalar_float(0.5), clops_scalar_float(2.0), &r));
                CT_OK(
                    clops_addbmm(cs, ca, cb, clops_scalar_float(0.5), clops_scalar_float(2.0), &e));
                /* the looped form rounds to the dtype after every batch entry */
                ct_tol tol = tol_for(dt, 6 * 4);
                if (dt == CLOPS_FLOAT16 || dt == CLOPS_BFLOAT16)
                    tol.atol = (double)B * 4 * (dt == CLOPS_FLOAT16 ? 0x1p-10 : 0x1p-7);
                CT_ASSERT_CLOSE(r, e, tol);
                if (mode == 2 && dt == CLOPS_FLOAT32) {
                    /* beta * self broadcast */
                    float h[35];
                    CT_OK(clops_tensor_to_host(e, h, sizeof h));
                    float sv[7];
                    CT_OK(clops_tensor_to_host(cs, sv, sizeof sv));
                    for (int i = 0; i < 35; i++)
                        CT_ASSERT(h[i] == 0.5f * sv[i % 7]);
                }
                rel(a, b, self, ca, cb, cs);
                rel(r, e, NULL, NULL, NULL, NULL);
            }
    }
    ct_clear_context();
}

/* matmul over every rank combination PyTorch accepts. */
static void matmul_handles_every_rank_combination(void **state)
{
    (void)state;
    struct mcase {
        int na, nb;
        int64_t a[4], b[4];
        mlayout la, lb;
    } cases[] = {
        {1, 1, {9}, {9}, ML_ROW, ML_ROW},                   /* dot */
        {2, 1, {5, 9}, {9}, ML_COL, ML_ROW},                /* mv */
        {1, 2, {9}, {9, 4}, ML_ROW, ML_COL_GAP},            /* vector @ matrix */
        {2, 2, {5, 9}, {9, 4}, ML_ROW_GAP, ML_ROW},         /* mm */
        {3, 1, {3, 5, 9}, {9}, ML_ROW, ML_ROW},             /* batched mv, folded */
        {1, 3, {9}, {3, 9, 4}, ML_ROW, ML_COL},             /* vector @ batch */
        {3, 2, {3, 5, 9}, {9, 4}, ML_ROW, ML_COL},          /* folded into mm */
        {3, 2, {3, 5, 9}, {9, 4}, ML_COL_GAP, ML_ROW},      /* not foldable */
        {2, 3, {5, 9}, {3, 9, 4}, ML_ROW, ML_ROW},          /* broadcast A */
        {3, 3, {3, 5, 9}, {3, 9, 4}, ML_STEP, ML_ROW_GAP},  /* bmm, copied A */
        {4, 3, {2, 1, 5, 9}, {3, 9, 4}, ML_ROW, ML_COL},    /* two batch dims */
        {4, 4, {2, 3, 5, 9}, {1, 3, 9, 4}, ML_COL, ML_ROW}, /* broadcast dim 0 */
        {4, 2, {2, 3, 5, 9}, {9, 4}, ML_ROW_GAP, ML_ROW},   /* 4-D @ 2-D */
        {2, 4, {5, 9}, {2, 3, 9, 4}, ML_ROW, ML_ROW},       /* 2-D @ 4-D */
    };
    clops_device *devs[CT_MAX_DEVICES];
    int nd = cl_devices(devs);
    for (int di = 0; di < nd; di++) {
        clops_device *d = devs[di];
        ct_set_device(d);
        clops_dtype dts[4];
        int ndt = float_dtypes(d, dts);
        for (int t = 0; t < ndt; t++)
            for (size_t i = 0; i < CT_COUNT(cases); i++) {
                struct mcase *c = &cases[i];
                const clops_dtype dt = dts[t];
                ct_set_case("matmul %s %dD @ %dD (case %zu)", clops_dtype_name(dt), c->na, c->nb,
                            i);
                clops_tensor *a, *b;
                if (c->na == 1)
                    a = vec(d, dt, c->a[0], 2, 70);
                else
                    a = mk(d, dt, c->na - 2, c->a, c->a[c->na - 2], c->a[c->na - 1], c->la,
                           BL_PACKED, 71);
                if (c->nb == 1)
                    b = vec(d, dt, c->b[0], 3, 72);
                else
                    b = mk(d, dt, c->nb - 2, c->b, c->b[c->nb - 2], c->b[c->nb - 1], c->lb,
                           BL_PACKED, 73);
                clops_tensor *ca = ct_to_cpu(a), *cb = ct_to_cpu(b), *r = NULL, *e = NULL;
                CT_OK(clops_matmul(a, b, &r));
                CT_OK(clops_matmul(ca, cb, &e));
                CT_ASSERT_CLOSE(r, e, tol_for(dt, 9));
                /* the out form, resizing an empty out */
                clops_tensor *o = NULL;
                CT_OK(clops_empty(d, dt, 1, I64(0), &o));
                CT_OK(clops_matmul_out(a, b, o));
                CT_ASSERT_CLOSE(o, e, tol_for(dt, 9));
                rel(a, b, ca, cb, r, e);
                clops_tensor_release(o);
            }
    }
    ct_clear_context();
}

/* linear with and without bias, inputs of rank 1 to 3. */
static void linear_matches_cpu_with_and_without_bias(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int nd = cl_devices(devs);
    for (int di = 0; di < nd; di++) {
        clops_device *d = devs[di];
        ct_set_device(d);
        clops_dtype dts[4];
        int ndt = float_dtypes(d, dts);
        for (int t = 0; t < ndt; t++)
            for (int rank = 1; rank <= 3; rank++)
                for (int withbias = 0; withbias < 2; withbias++)
                    for (int wrank = 1; wrank <= 2; wrank++) {
                        const clops_dtype dt = dts[t];
                        ct_set_case("linear %s input %dD, weight %dD, %s bias",
                                    clops_dtype_name(dt), rank, wrank,
                                    withbias ? "with" : "without");
                        const int64_t in = 12, outf = 5;
                        clops_tensor *x =
                            rank == 1 ? vec(d, dt, in, 1, 80)
                                      : mk(d, dt, rank - 2, I64(4), 3, in, ML_ROW, BL_PACKED, 80);
                        clops_tensor *w =
                            wrank == 1 ? vec(d, dt, in, 2, 81) : mat(d, dt, outf, in, ML_ROW, 81);
                        clops_tensor *bias = NULL;
                        if (withbias)
                            bias = wrank == 1 ? NULL : vec(d, dt, outf, 1, 82);
                        if (withbias && wrank == 1)
                            CT_OK(clops_full(d, dt, 0, NULL, clops_scalar_float(0.5), &bias));
                        clops_tensor *cx = ct_to_cpu(x), *cw = ct_to_cpu(w);
                        clops_tensor *cbias = bias ? ct_to_cpu(bias) : NULL, *r = NULL, *e = NULL;
                        CT_OK(clops_linear(x, w, bias, &r));
                        CT_OK(clops_linear(cx, cw, cbias, &e));
                        CT_ASSERT_CLOSE(r, e, tol_for(dt, in));
                        rel(x, w, bias, cx, cw, cbias);
                        rel(r, e, NULL, NULL, NULL, NULL);
                    }
    }
    ct_clear_context();
}

/* mv, addmv, dot, outer, ger and addr on strided vectors. */
static void vector_products_match_cpu(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int nd = cl_devices(devs);
    for (int di = 0; di < nd; di++) {
        clops_device *d = devs[di];
        ct_set_device(d);
        clops_dtype dts[4];
        int ndt = float_dtypes(d, dts);
        for (int t = 0; t < ndt; t++) {
            clops_dtype dt = dts[t];
            clops_tensor *m = mat(d, dt, 6, 10, ML_COL_GAP, 90), *x = vec(d, dt, 10, 3, 91);
            clops_tensor *y = vec(d, dt, 6, 2, 92), *cm = ct_to_cpu(m), *cx = ct_to_cpu(x);
            clops_tensor *cy = ct_to_cpu(y), *r = NULL, *e = NULL;
            ct_set_case("mv %s", clops_dtype_name(dt));
            CT_OK(clops_mv(m, x, &r));
            CT_OK(clops_mv(cm, cx, &e));
            CT_ASSERT_CLOSE(r, e, tol_for(dt, 10));
            rel(r, e, NULL, NULL, NULL, NULL);
            ct_set_case("addmv %s", clops_dtype_name(dt));
            CT_OK(clops_addmv(y, m, x, clops_scalar_float(2.0), clops_scalar_float(0.5), &r));
            CT_OK(clops_addmv(cy, cm, cx, clops_scalar_float(2.0), clops_scalar_float(0.5), &e));
            CT_ASSERT_CLOSE(r, e, tol_for(dt, 10));
            CT_OK(clops_addmv_(y, m, x, clops_scalar_float(2.0), clops_scalar_float(0.5)));
            CT_ASSERT_CLOSE(y, e, tol_for(dt, 10));
            rel(r, e, cy, NULL, NULL, NULL);
            cy = ct_to_cpu(y); /* y changed in place */
            ct_set_case("dot %s", clops_dtype_name(dt));
            clops_tensor *x2 = vec(d, dt, 10, 1, 93), *cx2 = ct_to_cpu(x2);
            CT_OK(clops_dot(x, x2, &r));
            CT_OK(clops_dot(cx, cx2, &e));
            CT_ASSERT(clops_tensor_ndim(r) == 0);
            CT_ASSERT_CLOSE(r, e, tol_for(dt, 10));
            rel(r, e, NULL, NULL, NULL, NULL);
            ct_set_case("outer/ger %s", clops_dtype_name(dt));
            CT_OK(clops_outer(x, y, &r));
            CT_OK(clops_outer(cx, cy, &e));
            CT_ASSERT_CLOSE(r, e, tol_for(dt, 1));
            rel(r, NULL, NULL, NULL, NULL, NULL);
            CT_OK(clops_ger(x, y, &r));
            CT_ASSERT_CLOSE(r, e, tol_for(dt, 1));
            rel(r, e, NULL, NULL, NULL, NULL);
            ct_set_case("addr %s", clops_dtype_name(dt));
            clops_tensor *s = mat(d, dt, 10, 6, ML_COL, 94), *cs = ct_to_cpu(s);
            CT_OK(clops_addr(s, x, y, clops_scalar_float(-1.0), clops_scalar_float(2.0), &r));
            CT_OK(clops_addr(cs, cx, cy, clops_scalar_float(-1.0), clops_scalar_float(2.0), &e));
            CT_ASSERT_CLOSE(r, e, tol_for(dt, 1));
            CT_OK(clops_addr_(s, x, y, clops_scalar_float(-1.0), clops_scalar_float(2.0)));
            CT_ASSERT_CLOSE(s, e, tol_for(dt, 1));
            rel(r, e, s, cs, x2, cx2);
            rel(m, x, y, cm, cx, cy);
        }
        /* outer promotes like mul: float32 x float64 -> float64 */
        if (clops_device_get_info(d)->fp64) {
            ct_set_case("outer float32 x float64");
            clops_tensor *a = vec(d, CLOPS_FLOAT32, 4, 1, 95), *b = vec(d, CLOPS_FLOAT64, 3, 1, 96);
            clops_tensor *r = NULL, *e = NULL, *ca = ct_to_cpu(a), *cb = ct_to_cpu(b);
            CT_OK(clops_outer(a, b, &r));
            CT_OK(clops_outer(ca, cb, &e));
            CT_ASSERT(clops_tensor_dtype(r) == CLOPS_FLOAT64);
            CT_ASSERT_CLOSE(r, e, tol_for(CLOPS_FLOAT64, 1));
            rel(a, b, r, e, ca, cb);
        }
    }
    ct_clear_context();
}

/* Zero-size dimensions give the right shapes and beta * self or zeros. */
static void zero_sizes_give_shapes_and_beta_self(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int n = ct_devices(devs, CT_MAX_DEVICES);
    for (int di = 0; di < n; di++) {
        clops_device *d = devs[di];
        ct_set_device(d);
        clops_tensor *a = NULL, *b = NULL, *r = NULL, *self = NULL;
        ct_set_case("mm [0, 4] @ [4, 3]");
        CT_OK(clops_empty(d, CLOPS_FLOAT32, 2, I64(0, 4), &a));
        CT_OK(clops_empty(d, CLOPS_FLOAT32, 2, I64(4, 3), &b));
        CT_OK(clops_mm(a, b, &r));
        CT_ASSERT(clops_tensor_size(r, 0) == 0 && clops_tensor_size(r, 1) == 3);
        rel(a, b, r, NULL, NULL, NULL);

        ct_set_case("mm [2, 0] @ [0, 3] is zeros");
        CT_OK(clops_empty(d, CLOPS_FLOAT32, 2, I64(2, 0), &a));
        CT_OK(clops_empty(d, CLOPS_FLOAT32, 2, I64(0, 3), &b));
        CT_OK(clops_mm(a, b, &r));
        float h[6];
        CT_OK(clops_tensor_to_host(r, h, sizeof h));
        for (int i = 0; i < 6; i++)
            CT_ASSERT(h[i] == 0.0f);
        rel(r, NULL, NULL, NULL, NULL, NULL);

        ct_set_case("addmm with K = 0 is beta * self");
        CT_OK(clops_full(d, CLOPS_FLOAT32, 2, I64(2, 3), clops_scalar_float(1.5), &self));
        CT_OK(clops_addmm(self, a, b, clops_scalar_float(2.0), clops_scalar_float(7.0), &r));
        CT_OK(clops_tensor_to_host(r, h, sizeof h));
        for (int i = 0; i < 6; i++)
            CT_ASSERT_MSG(h[i] == 3.0f, "element %d is %g", i, h[i]);
        rel(r, self, NULL, NULL, NULL, NULL);
        CT_OK(clops_full(d, CLOPS_FLOAT32, 2, I64(2, 3), clops_scalar_float(NAN), &self));
        CT_OK(clops_addmm(self, a, b, clops_scalar_int(0), clops_scalar_int(1), &r));
        CT_OK(clops_tensor_to_host(r, h, sizeof h));
        for (int i = 0; i < 6; i++)
            CT_ASSERT(h[i] == 0.0f);
        rel(r, self, a, b, NULL, NULL);

        ct_set_case("bmm with no batches, dot of empty vectors");
        CT_OK(clops_empty(d, CLOPS_FLOAT32, 3, I64(0, 2, 4), &a));
        CT_OK(clops_empty(d, CLOPS_FLOAT32, 3, I64(0, 4, 3), &b));
        CT_OK(clops_bmm(a, b, &r));
        CT_ASSERT(clops_tensor_numel(r) == 0 && clops_tensor_ndim(r) == 3);
        rel(a, b, r, NULL, NULL, NULL);
        CT_OK(clops_empty(d, CLOPS_FLOAT32, 1, I64(0), &a));
        CT_OK(clops_empty(d, CLOPS_FLOAT32, 1, I64(0), &b));
        CT_OK(clops_dot(a, b, &r));
        clops_scalar s;
        CT_OK(clops_tensor_item(r, &s));
        CT_ASSERT(s.v.f == 0.0);
        rel(a, b, r, NULL, NULL, NULL);
        CT_OK(clops_empty(d, CLOPS_FLOAT32, 3, I64(2, 0, 4), &a));
        CT_OK(clops_empty(d, CLOPS_FLOAT32, 2, I64(4, 5), &b));
        CT_OK(clops_matmul(a, b, &r));
        CT_ASSERT(clops_tensor_ndim(r) == 3 && clops_tensor_size(r, 1) == 0 &&
                  clops_tensor_size(r, 2) == 5);
        rel(a, b, r, NULL, NULL, NULL);
    }
    ct_clear_context();
}

/* An out tensor that is an operand is computed aside and still correct. */
static void out_aliasing_an_operand_is_still_correct(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int n = ct_devices(devs, CT_MAX_DEVICES);
    for (int di = 0; di < n; di++) {
        clops_device *d = devs[di];
        ct_set_device(d);
        clops_tensor *a = mat(d, CLOPS_FLOAT32, 6, 6, ML_ROW, 1),
                     *b = mat(d, CLOPS_FLOAT32, 6, 6, ML_COL, 2);
        clops_tensor *e = NULL;
        CT_OK(clops_mm(a, b, &e));
        CT_OK(clops_mm_out(a, b, a));
        CT_ASSERT_CLOSE(a, e, tol_for(CLOPS_FLOAT32, 6));
        rel(a, b, e, NULL, NULL, NULL);
    }
    ct_clear_context();
}

/* --- errors ------------------------------------------------------------------ */

static void shape_and_dtype_errors_use_pytorch_wording(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int n = ct_devices(devs, CT_MAX_DEVICES);
    for (int di = 0; di < n; di++) {
        clops_device *d = devs[di];
        ct_set_device(d);
        clops_tensor *a = NULL, *b = NULL, *c = NULL, *v = NULL, *r = NULL;
        CT_OK(clops_zeros(d, CLOPS_FLOAT32, 2, I64(2, 3), &a));
        CT_OK(clops_zeros(d, CLOPS_FLOAT32, 2, I64(4, 5), &b));
        CT_OK(clops_zeros(d, CLOPS_FLOAT64, 2, I64(3, 4), &c));
        CT_OK(clops_zeros(d, CLOPS_FLOAT32, 1, I64(4), &v));
        CT_STATUS(clops_mm(a, b, &r), CLOPS_INVALID_SHAPE);
        CT_ERROR_CONTAINS("mm: mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)");
        CT_ERROR_CONTAINS(clops_device_label(d));
        if (clops_device_get_info(d)->fp64) {
            CT_STATUS(clops_mm(a, c, &r), CLOPS_INVALID_DTYPE);
            CT_ERROR_CONTAINS(
                "expected m1 and m2 to have the same dtype, but got: float != double");
            CT_STATUS(clops_addmm(a, a, c, clops_scalar_int(1), clops_scalar_int(1), &r),
                      CLOPS_INVALID_DTYPE);
            CT_ERROR_CONTAINS("self and mat2 must have the same dtype, but got Float and Double");
        }
        CT_STATUS(clops_mm(a, v, &r), CLOPS_INVALID_SHAPE);
        CT_ERROR_CONTAINS("mat2 must be a matrix");
        CT_STATUS(clops_bmm(a, b, &r), CLOPS_INVALID_SHAPE);
        CT_ERROR_CONTAINS("batch1 must be a 3D tensor");
        CT_STATUS(clops_mv(a, v, &r), CLOPS_INVALID_SHAPE);
        CT_ERROR_CONTAINS("size mismatch, got input (2), mat (2x3), vec (4)");
        CT_STATUS(clops_dot(v, a, &r), CLOPS_INVALID_SHAPE);
        CT_ERROR_CONTAINS("1D tensors expected, but got 1D and 2D tensors");
        CT_STATUS(clops_matmul(a, b, &r), CLOPS_INVALID_SHAPE);
        CT_ERROR_CONTAINS("matmul: mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)");
        clops_tensor *z = NULL;
        CT_OK(clops_zeros(d, CLOPS_FLOAT32, 0, NULL, &z));
        CT_STATUS(clops_matmul(z, a, &r), CLOPS_INVALID_SHAPE);
        CT_ERROR_CONTAINS(
            "both arguments to matmul need to be at least 1D, but they are 0D and 2D");
        CT_STATUS(clops_outer(a, v, &r), CLOPS_INVALID_SHAPE);
        CT_ERROR_CONTAINS("outer: Expected 1-D argument self, but got 2-D");
        clops_tensor *o = NULL;
        CT_OK(clops_empty(d, CLOPS_INT32, 2, I64(2, 3), &o));
        CT_STATUS(clops_mm_out(a, a, o), CLOPS_INVALID_SHAPE);
        clops_tensor *sq = NULL;
        CT_OK(clops_zeros(d, CLOPS_FLOAT32, 2, I64(3, 3), &sq));
        CT_STATUS(clops_mm_out(a, sq, o), CLOPS_INVALID_DTYPE);
        CT_ERROR_CONTAINS("Expected out tensor to have dtype float, but got int instead");
        rel(a, b, c, v, z, o);
        clops_tensor_release(sq);
    }
    ct_clear_context();
}

static void opencl_refuses_integers_and_missing_fp64_clearly(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int nd = cl_devices(devs);
    for (int di = 0; di < nd; di++) {
        clops_device *d = devs[di];
        ct_set_device(d);
        clops_tensor *a = NULL, *r = NULL;
        CT_OK(clops_zeros(d, CLOPS_INT32, 2, I64(2, 2), &a));
        CT_STATUS(clops_mm(a, a, &r), CLOPS_INVALID_DTYPE);
        CT_ERROR_CONTAINS("OpenCL devices support floating dtypes only");
        CT_ERROR_CONTAINS("int32");
        clops_tensor_release(a);
        if (!clops_device_get_info(d)->fp64)
            continue;
        CT_OK(clops_zeros(d, CLOPS_FLOAT64, 2, I64(2, 2), &a));
        CT_OK(clops_device_set_capability(d, CLOPS_CAP_FP64, false));
        CT_STATUS(clops_mm(a, a, &r), CLOPS_UNSUPPORTED);
        CT_ERROR_CONTAINS("float64 is not supported");
        CT_STATUS(clops_matmul(a, a, &r), CLOPS_UNSUPPORTED);
        CT_OK(clops_device_set_capability(d, CLOPS_CAP_FP64, true));
        clops_tensor_release(a);
    }
    /* mixing devices */
    if (nd > 0) {
        clops_tensor *a = NULL, *b = NULL, *r = NULL;
        CT_OK(clops_zeros(devs[0], CLOPS_FLOAT32, 2, I64(2, 2), &a));
        CT_OK(clops_zeros(ct_cpu(), CLOPS_FLOAT32, 2, I64(2, 2), &b));
        CT_ASSERT(gemm_mm(PW_FUNCTIONAL, NULL, a, b, &r) == CLOPS_DEVICE_MISMATCH);
        CT_ERROR_CONTAINS("Expected all tensors to be on the same device");
        rel(a, b, NULL, NULL, NULL, NULL);
    }
    /* bool on the CPU */
    clops_tensor *t = NULL, *r = NULL;
    CT_OK(clops_zeros(ct_cpu(), CLOPS_BOOL, 2, I64(2, 2), &t));
    CT_STATUS(clops_mm(t, t, &r), CLOPS_INVALID_DTYPE);
    CT_ERROR_CONTAINS("'Bool'");
    clops_tensor_release(t);
    ct_clear_context();
}

/* --- the CLBlast glue ----------------------------------------------------------- */

static void clblast_status_codes_have_names(void **state)
{
    (void)state;
    CT_ASSERT(strcmp(blas_status_name(-1016), "CLBlastInvalidLeadDimA") == 0);
    CT_ASSERT(strcmp(blas_status_name(-2044), "CLBlastNoDoublePrecision") == 0);
    CT_ASSERT(strcmp(blas_status_name(12345), "CLBlastUnknownStatus") == 0);
    CT_ASSERT(blas_fail(-2046, "CLBlastSgemm", NULL) == CLOPS_BLAS_ERROR);
    CT_ERROR_CONTAINS("CLBlastSgemm failed: CLBlastInvalidLocalMemUsage (-2046)");
    CT_ASSERT(blas_fail(-4, "x", NULL) == CLOPS_OUT_OF_MEMORY);
    CT_ASSERT(blas_fail(-11, "x", NULL) == CLOPS_BUILD_FAILURE);
    CT_ASSERT(blas_fail(-2044, "x", NULL) == CLOPS_UNSUPPORTED);
    CT_ASSERT(strcmp(blas_clblast_version(), "1.5.3") == 0 || blas_clblast_version()[0] == '1');
}

/* What the CLBlast engine did since `before`. */
static blas_stats stats_delta(const blas_stats *before)
{
    blas_stats now, d;
    blas_get_stats(&now);
    d.gemm_calls = now.gemm_calls - before->gemm_calls;
    d.batched_calls = now.batched_calls - before->batched_calls;
    d.operand_copies = now.operand_copies - before->operand_copies;
    d.result_temps = now.result_temps - before->result_temps;
    d.half_conversions = now.half_conversions - before->half_conversions;
    d.per_batch_splits = now.per_batch_splits - before->per_batch_splits;
    d.sub_buffers = now.sub_buffers - before->sub_buffers;
    return d;
}

/* Transposes, leading-dimension gaps, offsets and broadcast batches reach
 * CLBlast as flags, leading dimensions, offsets and strides: no copies. */
static void expressible_views_reach_clblast_without_copies(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int nd = cl_devices(devs);
    blas_stats s0, dl;
    /* CLBlast's glue: with clops' engine off, float32 goes to CLBlast. */
    gemm_engine_set_enabled(false);
    for (int di = 0; di < nd; di++) {
        clops_device *d = devs[di];
        ct_set_device(d);
        for (int la = 0; la < ML_STEP; la++)
            for (int lb = 0; lb < ML_STEP; lb++) {
                ct_set_case("mm A %s, B %s", ml_names[la], ml_names[lb]);
                clops_tensor *a = mat(d, CLOPS_FLOAT32, 5, 6, (mlayout)la, 1);
                clops_tensor *b = mat(d, CLOPS_FLOAT32, 6, 4, (mlayout)lb, 2), *r = NULL;
                blas_get_stats(&s0);
                CT_OK(clops_mm(a, b, &r));
                dl = stats_delta(&s0);
                CT_ASSERT(dl.gemm_calls == 1 && dl.operand_copies == 0 && dl.result_temps == 0);
                rel(a, b, r, NULL, NULL, NULL);
            }
        ct_set_case("mm with a step-2 operand and a step-2 out");
        clops_tensor *a = mat(d, CLOPS_FLOAT32, 5, 6, ML_STEP, 1);
        clops_tensor *b = mat(d, CLOPS_FLOAT32, 6, 4, ML_COL_GAP, 2);
        ct_guarded g = ct_guarded_new(d, CLOPS_FLOAT32, 2, I64(5, 4), CT_SLICED);
        blas_get_stats(&s0);
        CT_OK(clops_mm_out(a, b, g.t));
        dl = stats_delta(&s0);
        CT_ASSERT(dl.operand_copies == 1 && dl.result_temps == 1);
        ct_guarded_release(&g);
        rel(a, b, NULL, NULL, NULL, NULL);

        ct_set_case("bmm with gapped and broadcast batches");
        a = mk(d, CLOPS_FLOAT32, 1, I64(4), 5, 6, ML_COL_GAP, BL_GAP, 3);
        b = mk(d, CLOPS_FLOAT32, 1, I64(4), 6, 3, ML_ROW, BL_BCAST, 4);
        clops_tensor *r = NULL;
        blas_get_stats(&s0);
        CT_OK(clops_bmm(a, b, &r));
        dl = stats_delta(&s0);
        CT_ASSERT(dl.batched_calls == 1 && dl.gemm_calls == 0 && dl.operand_copies == 0);
        rel(a, b, r, NULL, NULL, NULL);

        ct_set_case("matmul [3, 5, 9] @ [9, 4] folds into one mm");
        a = mk(d, CLOPS_FLOAT32, 1, I64(3), 5, 9, ML_ROW, BL_PACKED, 5);
        b = mat(d, CLOPS_FLOAT32, 9, 4, ML_COL, 6);
        blas_get_stats(&s0);
        CT_OK(clops_matmul(a, b, &r));
        dl = stats_delta(&s0);
        CT_ASSERT(dl.gemm_calls == 1 && dl.batched_calls == 0 && dl.operand_copies == 0);
        rel(a, b, r, NULL, NULL, NULL);

        ct_set_case("linear on a 3-D input with bias is one mm");
        a = mk(d, CLOPS_FLOAT32, 1, I64(2), 3, 8, ML_ROW, BL_PACKED, 7);
        b = mat(d, CLOPS_FLOAT32, 5, 8, ML_ROW, 8);
        clops_tensor *bias = vec(d, CLOPS_FLOAT32, 5, 1, 9);
        blas_get_stats(&s0);
        CT_OK(clops_linear(a, b, bias, &r));
        dl = stats_delta(&s0);
        CT_ASSERT(dl.gemm_calls == 1 && dl.batched_calls == 0 && dl.operand_copies == 0);
        rel(a, b, r, bias, NULL, NULL);

        ct_set_case("a large batched product with offsets runs entry by entry");
        clops_tensor *big = mk(d, CLOPS_FLOAT32, 1, I64(4), 64, 80, ML_ROW, BL_PACKED, 50);
        int64_t one = 1, end = 4;
        CT_OK(core_slice(big, 0, &one, &end, 1, &a));
        b = mk(d, CLOPS_FLOAT32, 1, I64(3), 80, 72, ML_ROW, BL_PACKED, 51);
        blas_get_stats(&s0);
        CT_OK(clops_bmm(a, b, &r));
        dl = stats_delta(&s0);
        CT_ASSERT(dl.per_batch_splits == 1 && dl.gemm_calls == 3 && dl.operand_copies == 0);
        rel(big, a, b, r, NULL, NULL);
    }
    gemm_engine_set_enabled(true);
    ct_clear_context();
}

/* With a tiny index limit every operand is rebased on sub-buffers and the
 * batch is split; results must not change. */
static void offsets_past_the_index_limit_are_rebased(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int nd = cl_devices(devs);
    gemm_engine_set_enabled(false); /* CLBlast's 32-bit limit */
    for (int di = 0; di < nd; di++) {
        clops_device *d = devs[di];
        ct_set_device(d);
        /* a [6, 9, 7] @ [6, 7, 5] product whose A sits 5000 elements in */
        clops_tensor *big = mk(d, CLOPS_FLOAT32, 1, I64(90), 9, 7, ML_ROW, BL_PACKED, 100);
        clops_tensor *a = NULL;
        int64_t from = 80, to = 86;
        CT_OK(core_slice(big, 0, &from, &to, 1, &a));
        clops_tensor *b = mk(d, CLOPS_FLOAT32, 1, I64(6), 7, 5, ML_COL, BL_GAP, 101);
        clops_tensor *ca = ct_to_cpu(a), *cb = ct_to_cpu(b), *e = NULL, *r = NULL;
        CT_OK(clops_bmm(ca, cb, &e));
        blas_stats s0;
        blas_get_stats(&s0);
        /* The environment changes only while no kernel runs: POCL's worker
         * threads call getenv while they execute kernels. */
        CT_OK(clops_device_synchronize(d));
        setenv("CLOPS_GEMM_INDEX_LIMIT", "300", 1);
        clops_status st = clops_bmm(a, b, &r);
        if (st == CLOPS_OK)
            st = clops_device_synchronize(d);
        unsetenv("CLOPS_GEMM_INDEX_LIMIT");
        CT_OK(st);
        blas_stats dl = stats_delta(&s0);
        CT_ASSERT_MSG(dl.sub_buffers > 0 && dl.batched_calls > 1,
                      "%llu sub-buffers, %llu batched calls", (unsigned long long)dl.sub_buffers,
                      (unsigned long long)dl.batched_calls);
        CT_ASSERT_CLOSE(r, e, tol_for(CLOPS_FLOAT32, 7));
        rel(big, a, b, ca, cb, e);
        clops_tensor_release(r);
    }
    gemm_engine_set_enabled(true);
    ct_clear_context();
}

/* --- tuning (last: overrides make CLBlast build new programs) ------------- */

/* Writes text into path. */
static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    CT_ASSERT(f != NULL);
    fputs(text, f);
    fclose(f);
}

static void tuning_files_are_checked_before_use(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int nd = cl_devices(devs);
    if (nd == 0)
        return;
    clops_device *d = devs[0];
    ct_set_device(d);
    char dir[512], path[1200], text[4096];
    ct_temp_dir("gemm-tune", dir, sizeof dir);
    const char *old = getenv("CLOPS_CACHE_DIR");
    char saved[1024] = "";
    if (old)
        snprintf(saved, sizeof saved, "%s", old);
    setenv("CLOPS_CACHE_DIR", dir, 1);
    CT_ASSERT(blas_tune_file_path(d, path, sizeof path));
    CT_ASSERT(strstr(path, dir) == path && strstr(path, "/tuning/gemm-") != NULL);
    /* No file: the parameters clops ships for this device apply where it
     * ships some (ops/gemm/gemm_tune_builtin.c: the H100 and H200), and
     * nothing does elsewhere (POCL). */
    const clops_device_info *in = clops_device_get_info(d);
    bool shipped = blas_tune_builtin(in->name, blas_clblast_version(), NULL) != NULL;
    bool applied = !shipped;
    CT_OK(blas_tune_apply(d, &applied));
    CT_ASSERT_MSG(applied == shipped, "no file on %s: applied %d, shipped parameters %d",
                  in->name, (int)applied, (int)shipped);

    char head[1024];
    snprintf(head, sizeof head,
             "clops-gemm-tuning 1\ndevice %s\nplatform %s\ndriver %s\n"
             "clblast %s\n",
             in->name, in->platform_name, in->driver_version, blas_clblast_version());
    char tuning_dir[1100];
    snprintf(tuning_dir, sizeof tuning_dir, "%s/tuning", dir);
    CT_ASSERT(host_make_dirs(tuning_dir));
    /* truncated: no "end" */
    snprintf(text, sizeof text, "%sparam 32 GemmRoutine XGEMM_MIN_INDIRECT_SIZE=64\n", head);
    write_text(path, text);
    CT_OK(blas_tune_apply(d, &applied));
    CT_ASSERT(!applied);
    /* another driver */
    snprintf(text, sizeof text,
             "clops-gemm-tuning 1\ndevice %s\nplatform %s\ndriver not-this-one\nclblast %s\nend\n",
             in->name, in->platform_name, blas_clblast_version());
    write_text(path, text);
    CT_OK(blas_tune_apply(d, &applied));
    CT_ASSERT(!applied);
    /* a valid file: CLBlast's NVIDIA default parameters and a crossover */
    snprintf(text, sizeof text,
             "%sparam 32 Xgemm GEMMK=0 KREG=1 KWG=16 KWI=2 MDIMA=8 MDIMC=8 MWG=32 NDIMB=8 "
             "NDIMC=8 NWG=32 SA=1 SB=1 STRM=0 STRN=0 VWM=2 VWN=2\n"
             "param 32 GemmRoutine XGEMM_MIN_INDIRECT_SIZE=64\nnote handmade\nend\n",
             head);
    write_text(path, text);
    CT_OK(blas_tune_apply(d, &applied));
    CT_ASSERT(applied);
    /* GEMMs still compute correctly with the new parameters (indirect path) */
    clops_tensor *a = mat(d, CLOPS_FLOAT32, 70, 65, ML_ROW_GAP, 1);
    clops_tensor *b = mat(d, CLOPS_FLOAT32, 65, 66, ML_COL, 2);
    clops_tensor *ca = ct_to_cpu(a), *cb = ct_to_cpu(b), *r = NULL, *e = NULL;
    CT_OK(clops_mm(a, b, &r));
    CT_OK(clops_mm(ca, cb, &e));
    CT_ASSERT_CLOSE(r, e, tol_for(CLOPS_FLOAT32, 65));
    rel(a, b, ca, cb, r, e);
    FILE *f = tmpfile();
    CT_OK(blas_tune_describe(d, f));
    rewind(f);
    size_t got = fread(text, 1, sizeof text - 1, f);
    text[got] = '\0';
    fclose(f);
    CT_ASSERT_MSG(strstr(text, "MWG=32") && strstr(text, "handmade"), "describe said: %s", text);
    if (saved[0])
        setenv("CLOPS_CACHE_DIR", saved, 1);
    else
        unsetenv("CLOPS_CACHE_DIR");
    ct_remove_tree(dir);
    ct_clear_context();
}

/* A (very short) search runs, writes a file the next process would apply,
 * and leaves GEMMs correct. */
static void a_short_tuning_search_writes_a_usable_file(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int nd = cl_devices(devs);
    if (nd == 0)
        return;
    clops_device *d = devs[0];
    ct_set_device(d);
    char dir[512], path[1200];
    ct_temp_dir("gemm-search", dir, sizeof dir);
    const char *old = getenv("CLOPS_CACHE_DIR");
    char saved[1024] = "";
    if (old)
        snprintf(saved, sizeof saved, "%s", old);
    setenv("CLOPS_CACHE_DIR", dir, 1);
    blas_tune_options o;
    memset(&o, 0, sizeof o);
    o.skip_float64 = true;
    o.skip_direct = true;
    o.max_candidates = 1;
    o.skip_crossover = true;
    FILE *log = tmpfile();
    CT_OK(blas_tune_gemm(d, 600, log, &o));
    fclose(log);
    CT_ASSERT(blas_tune_file_path(d, path, sizeof path));
    CT_ASSERT_MSG(access(path, R_OK) == 0, "no tuning file at %s", path);
    bool applied = false;
    CT_OK(blas_tune_apply(d, &applied));
    CT_ASSERT(applied);
    clops_tensor *a = mat(d, CLOPS_FLOAT32, 67, 70, ML_ROW, 3);
    clops_tensor *b = mat(d, CLOPS_FLOAT32, 70, 66, ML_ROW_GAP, 4);
    clops_tensor *ca = ct_to_cpu(a), *cb = ct_to_cpu(b), *r = NULL, *e = NULL;
    CT_OK(clops_mm(a, b, &r));
    CT_OK(clops_mm(ca, cb, &e));
    CT_ASSERT_CLOSE(r, e, tol_for(CLOPS_FLOAT32, 70));
    rel(a, b, ca, cb, r, e);
    CT_STATUS(blas_tune_gemm(ct_cpu(), 10, NULL, NULL), CLOPS_INVALID_ARGUMENT);
    if (saved[0])
        setenv("CLOPS_CACHE_DIR", saved, 1);
    else
        unsetenv("CLOPS_CACHE_DIR");
    ct_remove_tree(dir);
    ct_clear_context();
}

/* The parameters clops ships parse as tuning-file lines, set only CLBlast's
 * GEMM kernels, and match a device name exactly and CLBlast's major.minor. */
static void shipped_parameters_parse_and_match_exactly(void **state)
{
    (void)state;
    CT_ASSERT(blas_tune_builtin_count() >= 2);
    for (int i = 0; i < blas_tune_builtin_count(); i++) {
        const char *name = NULL;
        const char *lines = blas_tune_builtin_at(i, &name);
        int n = 0;
        CT_ASSERT_MSG(lines && name && blas_tune_parse_params(lines, &n) && n >= 2,
                      "entry %d (%s) does not parse", i, name ? name : "?");
        for (const char *l = lines; *l; l = strchr(l, '\n') + 1) {
            CT_ASSERT_MSG(strncmp(l, "param 32 Xgemm ", 15) == 0 ||
                              strncmp(l, "param 32 XgemmDirect ", 21) == 0 ||
                              strncmp(l, "param 32 GemmRoutine ", 21) == 0,
                          "entry %s: unexpected line %.60s", name, l);
            CT_ASSERT(strchr(l, '\n'));
        }
        const char *source = NULL;
        CT_ASSERT(blas_tune_builtin(name, "1.5.3", &source) == lines && source);
    }
    CT_ASSERT(blas_tune_builtin("NVIDIA H100 80GB HBM3", "1.5", NULL) != NULL);
    CT_ASSERT(blas_tune_builtin("NVIDIA H100 80GB HBM3", "1.50.1", NULL) == NULL);
    CT_ASSERT(blas_tune_builtin("NVIDIA H100 80GB HBM3", "2.0.0", NULL) == NULL);
    CT_ASSERT(blas_tune_builtin("NVIDIA H100", "1.5.3", NULL) == NULL);
    CT_ASSERT(blas_tune_builtin("nvidia h200", "1.5.3", NULL) == NULL);
    int n = 0;
    CT_ASSERT(!blas_tune_parse_params("param 32 Xgemm KWG\n", &n) && n == 0);
    CT_ASSERT(!blas_tune_parse_params("note hello\n", &n));
    CT_ASSERT(!blas_tune_parse_params("", &n));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(cpu_reference_matches_naive_loops),
        cmocka_unit_test(cpu_matmul_broadcasts_batches_like_pytorch),
        cmocka_unit_test(clblast_status_codes_have_names),
        cmocka_unit_test(shape_and_dtype_errors_use_pytorch_wording),
        cmocka_unit_test(opencl_refuses_integers_and_missing_fp64_clearly),
        cmocka_unit_test(mm_matches_cpu_for_every_layout_and_dtype),
        cmocka_unit_test(addmm_scales_and_adds_self_like_pytorch),
        cmocka_unit_test(addmm_with_beta_zero_ignores_nan_in_self),
        cmocka_unit_test(out_aliasing_an_operand_is_still_correct),
        cmocka_unit_test(zero_sizes_give_shapes_and_beta_self),
        cmocka_unit_test(vector_products_match_cpu),
        cmocka_unit_test(linear_matches_cpu_with_and_without_bias),
        cmocka_unit_test(matmul_handles_every_rank_combination),
        cmocka_unit_test(bmm_matches_cpu_for_batch_layouts),
        cmocka_unit_test(bmm_large_with_offsets_matches_cpu),
        cmocka_unit_test(addbmm_sums_the_batch_products),
        cmocka_unit_test(expressible_views_reach_clblast_without_copies),
        cmocka_unit_test(offsets_past_the_index_limit_are_rebased),
        cmocka_unit_test(shipped_parameters_parse_and_match_exactly),
        cmocka_unit_test(tuning_files_are_checked_before_use),
        cmocka_unit_test(a_short_tuning_search_writes_a_usable_file),
    };
    return cmocka_run_group_tests(tests, NULL, ct_teardown_group);
}
