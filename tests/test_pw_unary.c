/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/test_pw_unary.c: every unary, activation and activation-backward
 * pointwise op (codegen_pointwise/ops_unary.h) on every accepted dtype, on
 * the CPU device and on every OpenCL device, against the CPU reference.
 *
 * For each op, dtype and layout the test makes deterministic inputs (the
 * special values 0, -0, +-inf and NaN for floats, the extremes for
 * integers, then edge and random values of the op's domain), computes the
 * expected result on the CPU device from contiguous copies (the C
 * reference), then runs the op on each device with the inputs laid out as
 * the layout says and compares:
 *   - integer and bool results exactly;
 *   - float32 within the op's `ulp` (of float32) of the reference, float16
 *     and bfloat16 within one ulp of their own type more, float64 within
 *     `ulp` float64 ulps; NaN where the reference is NaN and only there,
 *     infinities equal, subnormal results may flush to zero; ops with a
 *     zero inside their domain (digamma, lgamma, the gelu and silu
 *     gradients) also accept an absolute error of a few epsilons scaled by
 *     the inputs' magnitude;
 *   - on the CPU device itself, bit for bit.
 * Layouts: contiguous (61 elements: vector loop plus tail), a storage
 * offset, a step slice, a transposed input written through out=, an
 * expanded (stride 0) input, a permuted 3-D input, out= into a
 * non-contiguous view whose neighbours must stay untouched, zero-dim and
 * zero-size.  To bound the number of kernels compiled on a cold cache (POCL
 * compiles each kernel at first launch), float32 gets every layout, the
 * other floating dtypes contiguous and non-contiguous out=, integers and
 * bool contiguous only.
 *
 * CLOPS_TEST_VERBOSE=1 prints the largest float32 ulp error seen per op and
 * device, which is how the records' `ulp` values were chosen.
 */
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "clops/device.h"
#include "codegen_pointwise/ops_binary.h"
#include "codegen_pointwise/ops_unary.h"
#include "core/tensor_impl.h"

#define MAX_ELEMS 64
#define F(x) {CLOPS_SCALAR_FLOAT, {.f = (x)}}
#define I(x) {CLOPS_SCALAR_INT, {.i = (x)}}

/* One op under test with the parameters it runs with. */
typedef struct op_case {
    const char *label;
    const pw_op *op;
    clops_scalar params[PW_MAX_PARAMS];
    /* Extra absolute tolerance, in epsilons of the compute dtype times the
     * product of max(1, |input|) over the inputs (0: none). */
    double atol_eps;
} op_case;

static const op_case cases[] = {
    {"abs", &pw_op_abs, {{0}}, 0},
    {"neg", &pw_op_neg, {{0}}, 0},
    {"sign", &pw_op_sign, {{0}}, 0},
    {"signbit", &pw_op_signbit, {{0}}, 0},
    {"square", &pw_op_square, {{0}}, 0},
    {"reciprocal", &pw_op_reciprocal, {{0}}, 0},
    {"floor", &pw_op_floor, {{0}}, 0},
    {"ceil", &pw_op_ceil, {{0}}, 0},
    {"round", &pw_op_round, {{0}}, 0},
    {"round_decimals_2", &pw_op_round_decimals, {F(100.0), I(0)}, 0},
    {"round_decimals_minus1", &pw_op_round_decimals, {F(10.0), I(1)}, 0},
    {"trunc", &pw_op_trunc, {{0}}, 0},
    {"frac", &pw_op_frac, {{0}}, 0},
    {"isnan", &pw_op_isnan, {{0}}, 0},
    {"isinf", &pw_op_isinf, {{0}}, 0},
    {"isposinf", &pw_op_isposinf, {{0}}, 0},
    {"isneginf", &pw_op_isneginf, {{0}}, 0},
    {"isfinite", &pw_op_isfinite, {{0}}, 0},
    {"nan_to_num", &pw_op_nan_to_num, {F(1.5), F(100.0), F(-100.0)}, 0},
    {"deg2rad", &pw_op_deg2rad, {{0}}, 0},
    {"rad2deg", &pw_op_rad2deg, {{0}}, 0},
    {"sqrt", &pw_op_sqrt, {{0}}, 0},
    {"rsqrt", &pw_op_rsqrt, {{0}}, 0},
    {"exp", &pw_op_exp, {{0}}, 0},
    {"exp2", &pw_op_exp2, {{0}}, 0},
    {"expm1", &pw_op_expm1, {{0}}, 0},
    {"log", &pw_op_log, {{0}}, 0},
    {"log2", &pw_op_log2, {{0}}, 0},
    {"log10", &pw_op_log10, {{0}}, 0},
    {"log1p", &pw_op_log1p, {{0}}, 0},
    {"sin", &pw_op_sin, {{0}}, 0},
    {"cos", &pw_op_cos, {{0}}, 0},
    {"tan", &pw_op_tan, {{0}}, 0},
    {"asin", &pw_op_asin, {{0}}, 0},
    {"acos", &pw_op_acos, {{0}}, 0},
    {"atan", &pw_op_atan, {{0}}, 0},
    {"sinh", &pw_op_sinh, {{0}}, 0},
    {"cosh", &pw_op_cosh, {{0}}, 0},
    {"tanh", &pw_op_tanh, {{0}}, 0},
    {"asinh", &pw_op_asinh, {{0}}, 0},
    {"acosh", &pw_op_acosh, {{0}}, 0},
    {"atanh", &pw_op_atanh, {{0}}, 0},
    {"erf", &pw_op_erf, {{0}}, 0},
    {"erfc", &pw_op_erfc, {{0}}, 0},
    {"erfinv", &pw_op_erfinv, {{0}}, 0},
    {"lgamma", &pw_op_lgamma, {{0}}, 8},
    {"digamma", &pw_op_digamma, {{0}}, 8},
    {"sinc", &pw_op_sinc, {{0}}, 0},
    {"relu", &pw_op_relu, {{0}}, 0},
    {"hardtanh", &pw_op_hardtanh, {I(-2), I(3)}, 0},
    {"leaky_relu", &pw_op_leaky_relu, {F(0.1)}, 0},
    {"elu", &pw_op_elu, {F(1.0), F(1.0), F(1.0)}, 0},
    {"elu_params", &pw_op_elu, {F(0.5), F(2.0), F(1.5)}, 0},
    {"gelu", &pw_op_gelu, {{0}}, 0},
    {"gelu_tanh", &pw_op_gelu_tanh, {{0}}, 0},
    {"silu", &pw_op_silu, {{0}}, 0},
    {"mish", &pw_op_mish, {{0}}, 0},
    {"softplus", &pw_op_softplus, {F(1.0), F(20.0)}, 0},
    {"softplus_beta2", &pw_op_softplus, {F(2.0), F(5.0)}, 0},
    {"softshrink", &pw_op_softshrink, {F(0.5)}, 0},
    {"hardshrink", &pw_op_hardshrink, {F(0.5)}, 0},
    {"hardsigmoid", &pw_op_hardsigmoid, {{0}}, 0},
    {"hardswish", &pw_op_hardswish, {{0}}, 0},
    {"sigmoid", &pw_op_sigmoid, {{0}}, 0},
    {"logsigmoid", &pw_op_logsigmoid, {{0}}, 0},
    {"logit", &pw_op_logit, {F(-1.0), F(2.0)}, 0},
    {"logit_eps", &pw_op_logit, {F(0.1), F(0.9)}, 0},
    {"threshold", &pw_op_threshold, {F(0.5), F(-2.0)}, 0},
    {"threshold_backward", &pw_op_threshold_backward, {F(0.5)}, 0},
    {"gelu_backward", &pw_op_gelu_backward, {{0}}, 4},
    {"gelu_backward_tanh", &pw_op_gelu_backward_tanh, {{0}}, 4},
    {"silu_backward", &pw_op_silu_backward, {{0}}, 4},
    {"sigmoid_backward", &pw_op_sigmoid_backward, {{0}}, 0},
    {"tanh_backward", &pw_op_tanh_backward, {{0}}, 0},
    {"leaky_relu_backward", &pw_op_leaky_relu_backward, {F(0.1)}, 0},
    {"elu_backward", &pw_op_elu_backward, {F(1.0), F(1.0), F(1.0)}, 0},
    {"elu_backward_result", &pw_op_elu_backward_result, {F(1.0), F(1.0), F(1.0)}, 0},
    {"softplus_backward", &pw_op_softplus_backward, {F(1.0), F(20.0)}, 0},
    {"hardsigmoid_backward", &pw_op_hardsigmoid_backward, {{0}}, 0},
    {"hardswish_backward", &pw_op_hardswish_backward, {{0}}, 0},
    {"logit_backward", &pw_op_logit_backward, {F(-1.0), F(2.0)}, 0},
    {"logit_backward_eps", &pw_op_logit_backward, {F(0.1), F(0.9)}, 0},
};

#define NCASES ((int)(sizeof cases / sizeof cases[0]))

/* --- layouts ---------------------------------------------------------------- */

typedef enum layout_kind {
    L_CONTIG,        /* fresh contiguous inputs, functional */
    L_OFFSET,        /* inputs at a storage offset */
    L_SLICED,        /* inputs taken with step 3 */
    L_TRANSPOSED,    /* transposed inputs, out= a contiguous tensor */
    L_EXPANDED,      /* operand 0 expanded from one row (stride 0) */
    L_PERMUTED,      /* 3-D inputs with permuted strides */
    L_OUT_NONCONTIG, /* contiguous inputs, out= a transposed narrow view */
    L_ZERODIM,       /* zero-dim tensors */
    L_ZEROSIZE       /* a [0, 3] tensor */
} layout_kind;

typedef struct layout {
    const char *name;
    layout_kind kind;
    int ndim;
    int64_t sizes[3];
} layout;

static const layout layouts[] = {
    {"contiguous", L_CONTIG, 1, {61, 0, 0}},     {"offset", L_OFFSET, 1, {13, 0, 0}},
    {"sliced", L_SLICED, 1, {13, 0, 0}},         {"transposed", L_TRANSPOSED, 2, {7, 5, 0}},
    {"expanded", L_EXPANDED, 2, {3, 5, 0}},      {"permuted", L_PERMUTED, 3, {3, 4, 2}},
    {"out_noncontig", L_OUT_NONCONTIG, 2, {5, 7, 0}}, {"zero_dim", L_ZERODIM, 0, {0, 0, 0}},
    {"zero_size", L_ZEROSIZE, 2, {0, 3, 0}},
};

#define NLAYOUTS ((int)(sizeof layouts / sizeof layouts[0]))

/* Which layouts a dtype is run with (see the file comment). */
static bool layout_applies(clops_dtype dt, layout_kind k)
{
    if (dt == CLOPS_FLOAT32)
        return true;
    if (clops_dtype_is_floating(dt))
        return k == L_CONTIG || k == L_OUT_NONCONTIG;
    return k == L_CONTIG;
}

/* Number of logical elements of a layout. */
static int64_t layout_numel(const layout *l)
{
    int64_t n = 1;
    for (int d = 0; d < l->ndim; d++)
        n *= l->sizes[d];
    return n;
}

/* --- input values ------------------------------------------------------------- */

/* A small deterministic generator (64-bit LCG). */
static uint64_t rng_next(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return *s >> 33;
}

/* Uniform in [lo, hi). */
static double rng_range(uint64_t *s, double lo, double hi)
{
    return lo + (hi - lo) * (double)rng_next(s) / 2147483648.0;
}

/* Edge values and the random range of each domain. */
static void domain_info(pw_domain dom, const double **edges, int *nedges, double *lo, double *hi)
{
    static const double any[] = {0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 1, -1, 3, -3, 1e-3, -1e-3, 20};
    static const double pos[] = {1, 0.5, 2, 1e-3, 10, 1e-30};
    static const double unit[] = {1, -1, 0.5, -0.5, 0.999999, -0.999999, 1e-6, -0.99999994};
    static const double ge1[] = {1, 1.5, 2, 10};
    static const double small[] = {-3, 3, 0.5, -0.5, -1.5, 1.5, 1, -1};
    static const double prob[] = {0, 1, 0.5, 0.25, 0.75, 1e-6, 0.999999, 0.5000001};
#define SET(arr, l, h)                                                              \
    (*edges = arr, *nedges = (int)(sizeof arr / sizeof arr[0]), *lo = l, *hi = h)
    switch (dom) {
    case PW_DOMAIN_POSITIVE:
        SET(pos, 0.0, 10.0);
        break;
    case PW_DOMAIN_UNIT:
        SET(unit, -1.0, 1.0);
        break;
    case PW_DOMAIN_GE1:
        SET(ge1, 1.0, 10.0);
        break;
    case PW_DOMAIN_SMALL:
        SET(small, -3.0, 3.0);
        break;
    case PW_DOMAIN_PROB:
        SET(prob, 0.0, 1.0);
        break;
    default:
        SET(any, -10.0, 10.0);
        break;
    }
#undef SET
}

/* Fills n logical elements of dtype dt into buf: for floats the special
 * values first, then the domain's edges, then random domain values; for
 * integers 0, +-1, the dtype's extremes, then small random values. */
static void fill_values(void *buf, int64_t n, clops_dtype dt, pw_domain dom, uint64_t seed)
{
    uint64_t s = seed * 2654435761u + 12345;
    if (clops_dtype_is_floating(dt)) {
        static const double specials[] = {0.0, -0.0, INFINITY, -INFINITY, NAN};
        const double *edges;
        int nedges;
        double lo, hi;
        domain_info(dom, &edges, &nedges, &lo, &hi);
        for (int64_t i = 0; i < n; i++) {
            pw_value v;
            int64_t k = (i + (int64_t)(seed % 3)) % (n > 12 ? n : 12); /* vary positions */
            if (k < 5)
                v.f = specials[k];
            else if (k - 5 < nedges)
                v.f = edges[k - 5];
            else
                v.f = rng_range(&s, lo, hi);
            pw_ref_store(buf, i, dt, CLOPS_FLOAT64, v);
        }
        return;
    }
    for (int64_t i = 0; i < n; i++) {
        pw_value v;
        int64_t k = (i + (int64_t)(seed % 3)) % (n > 8 ? n : 8);
        if (dt == CLOPS_BOOL)
            v.i = (int64_t)(rng_next(&s) & 1);
        else if (dt == CLOPS_UINT8)
            v.i = k == 0 ? 0 : k == 1 ? 255 : k == 2 ? 128 : k == 3 ? 1 : (int64_t)(rng_next(&s) % 21);
        else if (k == 0)
            v.i = 0;
        else if (k == 1 || k == 2)
            v.i = k == 1 ? 1 : -1;
        else if (k == 3)
            v.i = INT64_MIN; /* wraps to each dtype's minimum below */
        else if (k == 4)
            v.i = INT64_MAX;
        else
            v.i = (int64_t)(rng_next(&s) % 21) - 10;
        if (k == 3 || k == 4) {
            int bits = (int)clops_dtype_size(dt) * 8;
            if (bits < 64)
                v.i = k == 3 ? -((int64_t)1 << (bits - 1)) : ((int64_t)1 << (bits - 1)) - 1;
        }
        pw_ref_store(buf, i, dt, CLOPS_INT64, v);
    }
}

/* --- tensors ---------------------------------------------------------------------- */

/* Makes operand j of a layout on device dev from logical row-major data. */
static clops_status make_operand(clops_device *dev, clops_dtype dt, const layout *l, int j,
                                 const void *data, clops_tensor **out)
{
    size_t es = clops_dtype_size(dt);
    int64_t n = layout_numel(l);
    size_t nbytes = (size_t)n * es;
    static const char dummy[8];
    clops_tensor *base = NULL;
    clops_status st = CLOPS_OK;
    switch (l->kind) {
    case L_OFFSET: {
        int64_t total = n + 3, stride = 1, off = 3;
        st = clops_empty(dev, dt, 1, &total, &base);
        if (!st)
            st = core_as_strided(base, l->sizes, 1, &stride, 1, &off, out);
        break;
    }
    case L_SLICED: {
        int64_t total = 3 * n, start = 1;
        st = clops_empty(dev, dt, 1, &total, &base);
        if (!st)
            st = core_slice(base, 0, &start, NULL, 3, out);
        break;
    }
    case L_TRANSPOSED: {
        int64_t bs[2] = {l->sizes[1], l->sizes[0]};
        st = clops_empty(dev, dt, 2, bs, &base);
        if (!st)
            st = core_transpose(base, 0, 1, out);
        break;
    }
    case L_PERMUTED: {
        int64_t bs[3] = {l->sizes[2], l->sizes[0], l->sizes[1]};
        int64_t perm[3] = {1, 2, 0};
        st = clops_empty(dev, dt, 3, bs, &base);
        if (!st)
            st = core_permute(base, perm, 3, out);
        break;
    }
    case L_EXPANDED:
        if (j == 0) {
            int64_t row[2] = {1, l->sizes[1]};
            st = clops_from_host(dev, dt, 2, row, data, (size_t)l->sizes[1] * es, &base);
            if (!st)
                st = core_expand(base, l->sizes, 2, false, out);
            clops_tensor_release(base);
            return st;
        }
        return clops_from_host(dev, dt, l->ndim, l->sizes, data, nbytes, out);
    default:
        return clops_from_host(dev, dt, l->ndim, l->sizes, nbytes ? data : dummy, nbytes, out);
    }
    clops_tensor_release(base);
    if (!st)
        st = clops_tensor_from_host(*out, data, nbytes);
    return st;
}

/* Dtype of the op's result for a common dtype. */
static clops_dtype result_dtype(const pw_op *op, clops_dtype dt)
{
    clops_dtype compute, result;
    pw_compute_types(op->promotion, dt, &compute, &result);
    return op->fixed_result != CLOPS_DTYPE_NONE ? op->fixed_result : result;
}

/* Runs case c over inputs on device dev with layout l; the logical result
 * goes to host buffer res.  *guard_ok reports whether out='s neighbours
 * kept their sentinel. */
static clops_status run_layout(const op_case *c, clops_device *dev, clops_dtype dt,
                               const layout *l, void *const *inputs, void *res, bool *guard_ok)
{
    const pw_op *op = c->op;
    clops_dtype rdt = result_dtype(op, dt);
    clops_tensor *ins[PW_MAX_IN] = {NULL};
    clops_tensor *out = NULL, *dst = NULL, *base = NULL, *tmp = NULL;
    pw_operand operands[PW_MAX_IN];
    pw_variant variant = PW_FUNCTIONAL;
    clops_status st = CLOPS_OK;
    *guard_ok = true;
    for (int j = 0; j < op->n_in && !st; j++) {
        st = make_operand(dev, dt, l, j, inputs[j], &ins[j]);
        operands[j] = pw_tensor(ins[j]);
    }
    if (!st && l->kind == L_TRANSPOSED) {
        variant = PW_OUT;
        st = clops_empty(dev, rdt, l->ndim, l->sizes, &dst);
    } else if (!st && l->kind == L_OUT_NONCONTIG) {
        int64_t bs[2] = {l->sizes[1], l->sizes[0] + 1};
        variant = PW_OUT;
        st = clops_full(dev, rdt, 2, bs, clops_scalar_int(1), &base);
        if (!st)
            st = core_narrow(base, 1, 0, l->sizes[0], &tmp);
        if (!st)
            st = core_transpose(tmp, 0, 1, &dst);
    }
    if (!st)
        st = pw_run(op, variant, operands, c->params, dst, NULL,
                    variant == PW_FUNCTIONAL ? &out : NULL);
    clops_tensor *r = variant == PW_FUNCTIONAL ? out : dst;
    if (!st && (r->dtype != rdt || r->ndim != l->ndim ||
                memcmp(r->sizes, l->sizes, sizeof(int64_t) * (size_t)l->ndim) != 0))
        st = clops__fail(CLOPS_INTERNAL, "result has the wrong dtype or shape");
    if (!st)
        st = clops_tensor_to_host(r, res, (size_t)layout_numel(l) * clops_dtype_size(rdt));
    if (!st && base) {
        unsigned char all[8 * 8 * 8];
        int64_t rows = l->sizes[1], cols = l->sizes[0] + 1;
        st = clops_tensor_to_host(base, all, (size_t)(rows * cols) * clops_dtype_size(rdt));
        for (int64_t rr = 0; rr < rows && !st; rr++) {
            pw_value v = pw_ref_load(all, rr * cols + cols - 1, rdt, CLOPS_FLOAT64);
            if (v.f != 1.0)
                *guard_ok = false;
        }
    }
    for (int j = 0; j < op->n_in; j++)
        clops_tensor_release(ins[j]);
    clops_tensor_release(out);
    clops_tensor_release(dst);
    clops_tensor_release(tmp);
    clops_tensor_release(base);
    return st;
}

/* Computes the expected result on the CPU device from contiguous inputs. */
static clops_status expected_result(const op_case *c, clops_dtype dt, const layout *l,
                                    void *const *inputs, void *res)
{
    clops_device *cpu = NULL;
    clops_status st = clops_device_get(0, &cpu);
    if (st)
        return st;
    layout flat = {"contiguous", l->kind == L_ZERODIM ? L_ZERODIM : L_CONTIG, l->ndim,
                   {l->sizes[0], l->sizes[1], l->sizes[2]}};
    bool guard;
    return run_layout(c, cpu, dt, &flat, inputs, res, &guard);
}

/* --- comparison -------------------------------------------------------------------- */

/* Spacing of float32 values around |x| (FLT_TRUE_MIN for tiny x). */
static double ulp32(double x)
{
    float a = fabsf((float)x);
    if (!isfinite(a))
        return INFINITY;
    return (double)nextafterf(a, INFINITY) - (double)a;
}

/* Spacing of float64 values around |x|. */
static double ulp64(double x)
{
    double a = fabs(x);
    return nextafter(a, INFINITY) - a;
}

/* Spacing of a 16-bit float dtype around |x|. */
static double ulp16(double x, clops_dtype dt)
{
    int mant = dt == CLOPS_FLOAT16 ? 10 : 7;
    int emin = dt == CLOPS_FLOAT16 ? -14 : -126;
    int e = x == 0.0 ? emin : ilogb(fabs(x));
    if (e < emin)
        e = emin;
    return ldexp(1.0, e - mant);
}

/* Whether a device value matches the reference for case c (see the file
 * comment); *ulps receives the error in ulps of the compute precision. */
static bool float_close(const op_case *c, clops_dtype rdt, double dev, double ref, double scale,
                        bool exact, double *ulps)
{
    *ulps = 0;
    if (isnan(ref) || isnan(dev))
        return isnan(ref) && isnan(dev);
    if (dev == ref)
        return exact ? signbit(dev) == signbit(ref) || dev != 0.0 : true;
    if (exact || isinf(ref) || isinf(dev))
        return false;
    bool f64 = rdt == CLOPS_FLOAT64;
    double tiny = f64 ? DBL_MIN : FLT_MIN;
    if (fabs(ref) <= 2 * tiny && fabs(dev) <= 2 * tiny)
        return true; /* subnormal results may be flushed */
    double diff = fabs(dev - ref);
    double u = f64 ? ulp64(ref) : ulp32(ref);
    *ulps = diff / u;
    int ulp = c->op->ulp ? c->op->ulp : 2;
    double allowed = ulp * u;
    if (rdt == CLOPS_FLOAT16 || rdt == CLOPS_BFLOAT16)
        allowed += ulp16(ref, rdt);
    if (c->atol_eps > 0)
        allowed = fmax(allowed, c->atol_eps * (f64 ? DBL_EPSILON : FLT_EPSILON) * scale);
    return diff <= allowed;
}

/* Product of max(1, |input|) over the inputs of element i. */
static double input_scale(const pw_op *op, clops_dtype dt, void *const *inputs, int64_t i)
{
    double s = 1.0;
    for (int j = 0; j < op->n_in; j++) {
        double v = clops_dtype_is_floating(dt) ? pw_ref_load(inputs[j], i, dt, CLOPS_FLOAT64).f
                                               : (double)pw_ref_load(inputs[j], i, dt,
                                                                     CLOPS_INT64).i;
        if (isfinite(v))
            s *= fmax(1.0, fabs(v));
    }
    return s;
}

/* Compares n results; prints the first few mismatches; returns their count. */
static int compare(const op_case *c, clops_dtype dt, const layout *l, const char *devname,
                   void *const *inputs, const void *got, const void *want, bool exact,
                   double *max_ulps)
{
    clops_dtype rdt = result_dtype(c->op, dt);
    int64_t n = layout_numel(l);
    int bad = 0;
    for (int64_t i = 0; i < n; i++) {
        int64_t src = i; /* inputs are logical (expanded rows replicated) */
        bool ok;
        double d, r, ulps = 0;
        if (clops_dtype_is_floating(rdt)) {
            d = pw_ref_load(got, i, rdt, CLOPS_FLOAT64).f;
            r = pw_ref_load(want, i, rdt, CLOPS_FLOAT64).f;
            ok = float_close(c, rdt, d, r, input_scale(c->op, dt, inputs, src), exact, &ulps);
            if (ulps > *max_ulps && rdt == CLOPS_FLOAT32)
                *max_ulps = ulps;
        } else {
            d = (double)pw_ref_load(got, i, rdt, CLOPS_INT64).i;
            r = (double)pw_ref_load(want, i, rdt, CLOPS_INT64).i;
            ok = pw_ref_load(got, i, rdt, CLOPS_INT64).i == pw_ref_load(want, i, rdt, CLOPS_INT64).i;
        }
        if (!ok && bad++ < 4) {
            double x0 = clops_dtype_is_floating(dt) ? pw_ref_load(inputs[0], src, dt, CLOPS_FLOAT64).f
                                                    : (double)pw_ref_load(inputs[0], src, dt,
                                                                          CLOPS_INT64).i;
            double x1 = c->op->n_in > 1
                            ? (clops_dtype_is_floating(dt)
                                   ? pw_ref_load(inputs[1], src, dt, CLOPS_FLOAT64).f
                                   : (double)pw_ref_load(inputs[1], src, dt, CLOPS_INT64).i)
                            : 0.0;
            print_error("%s %s %s on %s: [%lld] in (%.9g, %.9g): got %.17g want %.17g (%.1f ulp)\n",
                        c->label, clops_dtype_name(dt), l->name, devname, (long long)i, x0, x1, d,
                        r, ulps);
        }
    }
    return bad;
}

/* --- the test ------------------------------------------------------------------------ */

/* FNV-1a of a string, for per-op seeds. */
static uint64_t hash_str(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

/* Runs one case on every accepted dtype, layout and device. */
static void test_op(void **state)
{
    const op_case *c = *state;
    const pw_op *op = c->op;
    int ndev = 0;
    assert_int_equal(clops_device_count(&ndev), CLOPS_OK);
    bool verbose = getenv("CLOPS_TEST_VERBOSE") != NULL;
    int failures = 0;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int d = 0; d < ndev; d++) {
        clops_device *dev = NULL;
        assert_int_equal(clops_device_get(d, &dev), CLOPS_OK);
        const clops_device_info *info = clops_device_get_info(dev);
        double max_ulps = 0;
        for (int dti = 0; dti < CLOPS_DTYPE_COUNT; dti++) {
            clops_dtype dt = (clops_dtype)dti;
            if (!(op->dtypes & PW_DT(dt)))
                continue;
            if (dt == CLOPS_FLOAT64 && d > 0 && !info->fp64)
                continue;
            for (int li = 0; li < NLAYOUTS; li++) {
                const layout *l = &layouts[li];
                if (!layout_applies(dt, l->kind))
                    continue;
                int64_t n = layout_numel(l);
                uint64_t buf_in[PW_MAX_IN][MAX_ELEMS];
                uint64_t want[MAX_ELEMS], got[MAX_ELEMS];
                void *inputs[PW_MAX_IN];
                for (int j = 0; j < op->n_in; j++) {
                    pw_domain dom = (j + 1 < op->n_in) ? PW_DOMAIN_ANY : op->domain;
                    int64_t fill = l->kind == L_EXPANDED && j == 0 ? l->sizes[1] : n;
                    inputs[j] = buf_in[j];
                    fill_values(buf_in[j], fill, dt, dom,
                                hash_str(c->label) + (uint64_t)(dti * 131 + li * 7 + j));
                    if (l->kind == L_EXPANDED && j == 0) /* replicate the row */
                        for (int64_t i = fill; i < n; i++)
                            pw_ref_store(buf_in[j], i, dt,
                                         clops_dtype_is_floating(dt) ? CLOPS_FLOAT64 : CLOPS_INT64,
                                         pw_ref_load(buf_in[j], i % fill, dt,
                                                     clops_dtype_is_floating(dt) ? CLOPS_FLOAT64
                                                                                 : CLOPS_INT64));
                }
                clops_status st = expected_result(c, dt, l, inputs, want);
                if (st) {
                    print_error("%s %s %s: CPU reference failed: %s\n", c->label,
                                clops_dtype_name(dt), l->name, clops_last_error());
                    failures++;
                    continue;
                }
                bool guard_ok = true;
                st = run_layout(c, dev, dt, l, inputs, got, &guard_ok);
                if (st) {
                    print_error("%s %s %s on %s: %s\n", c->label, clops_dtype_name(dt), l->name,
                                info->name, clops_last_error());
                    failures++;
                    continue;
                }
                if (!guard_ok) {
                    print_error("%s %s %s on %s: wrote outside the out= view\n", c->label,
                                clops_dtype_name(dt), l->name, info->name);
                    failures++;
                }
                failures += compare(c, dt, l, info->name, inputs, got, want, d == 0, &max_ulps);
            }
        }
        if (verbose && d > 0)
            print_message("%-22s max float32 error on %s: %.2f ulp (allowed %d)\n", c->label,
                          info->name, max_ulps, op->ulp ? op->ulp : 2);
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (verbose)
        print_message("%-22s %.2f s\n", c->label,
                      (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec));
    assert_int_equal(failures, 0);
}

/* Every record of ops_unary.h has a case. */
static void test_every_op_has_a_case(void **state)
{
    (void)state;
    static const pw_op *const all[] = {
#define PW_UNARY__ADDR(name) &pw_op_##name,
        PW_UNARY_OPS(PW_UNARY__ADDR)
#undef PW_UNARY__ADDR
    };
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
        bool found = false;
        for (int k = 0; k < NCASES; k++)
            found |= cases[k].op == all[i];
        if (!found)
            print_error("pw_op_%s has no case\n", all[i]->name);
        assert_true(found);
    }
}

/* Every built-in pointwise record (the unary and binary families and the
 * cast) has a reference in ref's own table, found by the op's name: the
 * CPU device would refuse the op otherwise. */
static void test_every_op_has_a_reference(void **state)
{
    (void)state;
    static const pw_op *const all[] = {
#define PW_ALL__ADDR(name) &pw_op_##name,
        PW_UNARY_OPS(PW_ALL__ADDR) PW_BINARY_OPS(PW_ALL__ADDR)
#undef PW_ALL__ADDR
            &pw_op_copy,
    };
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
        if (!ref_pw_lookup(all[i]->name))
            print_error("pw_op_%s has no reference in ref/\n", all[i]->name);
        assert_non_null(ref_pw_lookup(all[i]->name));
        assert_null(all[i]->ref); /* user ops only */
    }
    assert_null(ref_pw_lookup("no_such_op"));
}

/* One cmocka test per case, named by its label. */
int main(void)
{
    struct CMUnitTest tests[NCASES + 2];
    tests[0] = (struct CMUnitTest)cmocka_unit_test(test_every_op_has_a_case);
    tests[1] = (struct CMUnitTest)cmocka_unit_test(test_every_op_has_a_reference);
    for (int k = 0; k < NCASES; k++) {
        struct CMUnitTest t = {cases[k].label, test_op, NULL, NULL, (void *)&cases[k]};
        tests[k + 2] = t;
    }
    int rc = _cmocka_run_group_tests("pw_unary", tests, NCASES + 2, NULL, NULL);
    clops_shutdown();
    return rc;
}
