/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/test_golden_unary.c: the CPU reference of the unary, activation and
 * activation-backward ops against PyTorch's own results.
 *
 * tests/data/golden_unary.json is written by tests/data/gen_golden_unary.py
 * (torch on a CPU): every op and parameter set on every dtype, with special
 * values among the inputs, and either PyTorch's output or the exception it
 * raised.  Each row is replayed here on the CPU device through the pw_op
 * record or the glue function that implements the schema, and must:
 *   - fail where PyTorch raised, and succeed where it did not;
 *   - give the same result dtype;
 *   - give equal integers and bools, NaN where NaN, equal infinities, zeros
 *     of the same sign (float32 and float64), and floats within
 *     torch.testing's default
 *     tolerances for the dtype (float32: rtol 1.3e-6, atol 1e-5; float64:
 *     1e-7, 1e-7; float16: 1e-3, 1e-5; bfloat16: 1.6e-2, 1e-5) or within
 *     the op's ulp bound.  PyTorch computes in float32 and our reference in
 *     long double, so the tolerance covers PyTorch's own rounding.
 * A few elements where PyTorch's own kernels disagree between dtypes are
 * left out, counted and listed in pytorch_disagrees_with_itself().
 * The test is skipped, saying so, when the file is absent.
 */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <cmocka.h>

#include "clops/device.h"
#include "codegen_pointwise/ops_unary.h"
#include "core/tensor_impl.h"

#ifndef CLOPS_TEST_DATA_DIR
#error "CLOPS_TEST_DATA_DIR must name tests/data"
#endif

#define MAX_VALS 64

/* Schemas served directly by a pw_op record (parameters by name). */
static const struct {
    const char *func;
    const pw_op *op;
} direct[] = {
    {"abs", &pw_op_abs},
    {"neg", &pw_op_neg},
    {"sign", &pw_op_sign},
    {"sgn", &pw_op_sign},
    {"signbit", &pw_op_signbit},
    {"square", &pw_op_square},
    {"reciprocal", &pw_op_reciprocal},
    {"floor", &pw_op_floor},
    {"ceil", &pw_op_ceil},
    {"round", &pw_op_round},
    {"trunc", &pw_op_trunc},
    {"frac", &pw_op_frac},
    {"isnan", &pw_op_isnan},
    {"isinf", &pw_op_isinf},
    {"isposinf", &pw_op_isposinf},
    {"isneginf", &pw_op_isneginf},
    {"isfinite", &pw_op_isfinite},
    {"deg2rad", &pw_op_deg2rad},
    {"rad2deg", &pw_op_rad2deg},
    {"sqrt", &pw_op_sqrt},
    {"rsqrt", &pw_op_rsqrt},
    {"exp", &pw_op_exp},
    {"exp2", &pw_op_exp2},
    {"expm1", &pw_op_expm1},
    {"log", &pw_op_log},
    {"log2", &pw_op_log2},
    {"log10", &pw_op_log10},
    {"log1p", &pw_op_log1p},
    {"sin", &pw_op_sin},
    {"cos", &pw_op_cos},
    {"tan", &pw_op_tan},
    {"asin", &pw_op_asin},
    {"acos", &pw_op_acos},
    {"atan", &pw_op_atan},
    {"sinh", &pw_op_sinh},
    {"cosh", &pw_op_cosh},
    {"tanh", &pw_op_tanh},
    {"asinh", &pw_op_asinh},
    {"acosh", &pw_op_acosh},
    {"atanh", &pw_op_atanh},
    {"erf", &pw_op_erf},
    {"erfc", &pw_op_erfc},
    {"erfinv", &pw_op_erfinv},
    {"lgamma", &pw_op_lgamma},
    {"digamma", &pw_op_digamma},
    {"sinc", &pw_op_sinc},
    {"relu", &pw_op_relu},
    {"leaky_relu", &pw_op_leaky_relu},
    {"elu", &pw_op_elu},
    {"silu", &pw_op_silu},
    {"mish", &pw_op_mish},
    {"softplus", &pw_op_softplus},
    {"hardsigmoid", &pw_op_hardsigmoid},
    {"hardswish", &pw_op_hardswish},
    {"sigmoid", &pw_op_sigmoid},
    {"log_sigmoid", &pw_op_logsigmoid},
    {"silu_backward", &pw_op_silu_backward},
    {"sigmoid_backward", &pw_op_sigmoid_backward},
    {"tanh_backward", &pw_op_tanh_backward},
    {"hardsigmoid_backward", &pw_op_hardsigmoid_backward},
    {"hardswish_backward", &pw_op_hardswish_backward},
    {"softplus_backward", &pw_op_softplus_backward},
};

/* --- reading rows -------------------------------------------------------------- */

/* Reads a whole file; NULL when it cannot be read. */
static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    if (buf)
        buf[n] = '\0';
    fclose(f);
    return buf;
}

/* A Scalar argument: integral numbers as int scalars, bools as bools. */
static clops_scalar arg_scalar(const cJSON *args, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(args, name);
    if (cJSON_IsBool(v))
        return clops_scalar_bool(cJSON_IsTrue(v));
    double d = cJSON_IsNumber(v) ? v->valuedouble : 0.0;
    if (d == floor(d) && fabs(d) < 9e15)
        return clops_scalar_int((int64_t)d);
    return clops_scalar_float(d);
}

/* A `float?` argument: NULL for null, else a pointer to *slot. */
static const double *arg_opt_float(const cJSON *args, const char *name, double *slot)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(args, name);
    if (!cJSON_IsNumber(v))
        return NULL;
    *slot = v->valuedouble;
    return slot;
}

static bool arg_bool(const cJSON *args, const char *name)
{
    return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(args, name));
}

static const char *arg_str(const cJSON *args, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(args, name);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* Parses a value string of dtype dt into slot i of buf.  A 16-bit NaN keeps
 * its sign bit ("-nan"): PyTorch's inputs may carry one (signbit sees it),
 * while a conversion from float would make it the canonical positive NaN. */
static void put_value(void *buf, int i, clops_dtype dt, const char *s)
{
    pw_value v;
    if (clops_dtype_is_floating(dt)) {
        v.f = strtod(s, NULL); /* "nan", "-nan", "inf", "-0.0" included */
        if (isnan(v.f) && (dt == CLOPS_FLOAT16 || dt == CLOPS_BFLOAT16)) {
            uint16_t bits = dt == CLOPS_FLOAT16 ? 0x7e00 : 0x7fc0;
            ((uint16_t *)buf)[i] = (uint16_t)(bits | (signbit(v.f) ? 0x8000 : 0));
            return;
        }
        pw_ref_store(buf, i, dt, CLOPS_FLOAT64, v);
    } else {
        v.i = strtoll(s, NULL, 10);
        pw_ref_store(buf, i, dt, CLOPS_INT64, v);
    }
}

/* A CPU tensor from a JSON array of value strings; *n gets its length. */
static clops_tensor *tensor_from(const cJSON *values, clops_dtype dt, int *n)
{
    uint64_t buf[MAX_VALS];
    int k = 0;
    const cJSON *v;
    cJSON_ArrayForEach(v, values)
    {
        assert_true(k < MAX_VALS && cJSON_IsString(v));
        put_value(buf, k++, dt, v->valuestring);
    }
    clops_device *cpu = NULL;
    assert_int_equal(clops_device_get(0, &cpu), CLOPS_OK);
    int64_t size = k;
    clops_tensor *t = NULL;
    assert_int_equal(clops_from_host(cpu, dt, 1, &size, buf, (size_t)k * clops_dtype_size(dt), &t),
                     CLOPS_OK);
    *n = k;
    return t;
}

/* --- calling ---------------------------------------------------------------------- */

/* Runs the row's schema on the inputs; *ulp gets the op's ulp bound. */
static clops_status call(const char *func, const cJSON *args, clops_tensor *const *in, int nin,
                         clops_tensor **out, int *ulp)
{
    *ulp = 2;
    for (size_t k = 0; k < sizeof direct / sizeof direct[0]; k++) {
        if (strcmp(func, direct[k].func) != 0)
            continue;
        const pw_op *op = direct[k].op;
        clops_scalar params[PW_MAX_PARAMS];
        for (int p = 0; p < op->n_params; p++)
            params[p] = arg_scalar(args, op->param_names[p]);
        pw_operand ops[PW_MAX_IN];
        assert_int_equal(nin, op->n_in);
        for (int j = 0; j < nin; j++)
            ops[j] = pw_tensor(in[j]);
        *ulp = op->ulp ? op->ulp : 2;
        return pw_run(op, PW_FUNCTIONAL, ops, params, NULL, NULL, out);
    }
    double s1, s2, s3;
    *ulp = 20;
    if (strcmp(func, "round.decimals") == 0)
        return pw_glue_round_decimals(PW_FUNCTIONAL, NULL, in[0],
                                      clops_scalar_to_int64(arg_scalar(args, "decimals")), out);
    if (strcmp(func, "nan_to_num") == 0)
        return pw_glue_nan_to_num(PW_FUNCTIONAL, NULL, in[0], arg_opt_float(args, "nan", &s1),
                                  arg_opt_float(args, "posinf", &s2),
                                  arg_opt_float(args, "neginf", &s3), out);
    if (strcmp(func, "threshold") == 0)
        return pw_glue_threshold(PW_FUNCTIONAL, NULL, in[0], arg_scalar(args, "threshold"),
                                 arg_scalar(args, "value"), out);
    if (strcmp(func, "threshold_backward") == 0)
        return pw_glue_threshold_backward(PW_FUNCTIONAL, NULL, in[0], in[1],
                                          arg_scalar(args, "threshold"), out);
    if (strcmp(func, "hardtanh") == 0)
        return pw_glue_hardtanh(PW_FUNCTIONAL, NULL, in[0], arg_scalar(args, "min_val"),
                                arg_scalar(args, "max_val"), out);
    if (strcmp(func, "relu6") == 0)
        return pw_glue_relu6(PW_FUNCTIONAL, NULL, in[0], out);
    if (strcmp(func, "selu") == 0)
        return pw_glue_selu(PW_FUNCTIONAL, NULL, in[0], out);
    if (strcmp(func, "celu") == 0)
        return pw_glue_celu(PW_FUNCTIONAL, NULL, in[0], arg_scalar(args, "alpha"), out);
    if (strcmp(func, "gelu") == 0)
        return pw_glue_gelu(PW_FUNCTIONAL, NULL, in[0], arg_str(args, "approximate"), out);
    if (strcmp(func, "hardshrink") == 0)
        return pw_glue_hardshrink(PW_FUNCTIONAL, NULL, in[0], arg_scalar(args, "lambd"), out);
    if (strcmp(func, "softshrink") == 0)
        return pw_glue_softshrink(PW_FUNCTIONAL, NULL, in[0], arg_scalar(args, "lambd"), out);
    if (strcmp(func, "logit") == 0)
        return pw_glue_logit(PW_FUNCTIONAL, NULL, in[0], arg_opt_float(args, "eps", &s1), out);
    if (strcmp(func, "gelu_backward") == 0)
        return pw_glue_gelu_backward(PW_FUNCTIONAL, NULL, in[0], in[1],
                                     arg_str(args, "approximate"), out);
    if (strcmp(func, "logit_backward") == 0)
        return pw_glue_logit_backward(PW_FUNCTIONAL, NULL, in[0], in[1],
                                      arg_opt_float(args, "eps", &s1), out);
    if (strcmp(func, "leaky_relu_backward") == 0)
        return pw_glue_leaky_relu_backward(PW_FUNCTIONAL, NULL, in[0], in[1],
                                           arg_scalar(args, "negative_slope"),
                                           arg_bool(args, "self_is_result"), out);
    if (strcmp(func, "elu_backward") == 0)
        return pw_glue_elu_backward(PW_FUNCTIONAL, NULL, in[0], arg_scalar(args, "alpha"),
                                    arg_scalar(args, "scale"), arg_scalar(args, "input_scale"),
                                    arg_bool(args, "is_result"), in[1], out);
    return clops__fail(CLOPS_UNKNOWN_OP, "golden: no handler for '%s'", func);
}

/* --- comparing -------------------------------------------------------------------------- */

/*
 * Elements where PyTorch's own CPU kernels disagree between dtypes, so no
 * single definition can match every row; clops follows PyTorch's float32
 * kernels everywhere:
 *   - hardswish_backward and elu_backward of NaN: the float32 kernels give
 *     the gradient branch (NaN fails `x <= -3` / `x <= 0`), the float64
 *     vectorized kernels blend in the NaN of the other branch;
 *   - logit_backward in float16/bfloat16 runs the scalar formula (grad * inf
 *     at -0.0, NaN for NaN with eps) where float32 runs the vectorized one
 *     (grad / (x (1 - x)), and 0 for NaN with eps);
 *   - gelu (approximate='none') of +inf is NaN in float32 and below (the
 *     vectorized float erf inside its kernel gives NaN at infinity) but +inf
 *     in float64, as x * Phi(x) is; clops gives +inf.
 */
static bool pytorch_disagrees_with_itself(const char *func, const cJSON *args, clops_dtype dt,
                                          double x)
{
    bool half = dt == CLOPS_FLOAT16 || dt == CLOPS_BFLOAT16;
    const cJSON *approx = cJSON_GetObjectItemCaseSensitive(args, "approximate");
    if (strcmp(func, "gelu") == 0 && x == INFINITY && dt != CLOPS_FLOAT64 &&
        cJSON_IsString(approx) && strcmp(approx->valuestring, "none") == 0)
        return true;
    if (isnan(x) && dt == CLOPS_FLOAT64 &&
        (strcmp(func, "hardswish_backward") == 0 || strcmp(func, "elu_backward") == 0))
        return true;
    if (half && strcmp(func, "logit_backward") == 0 && (isnan(x) || (x == 0.0 && signbit(x))))
        return true;
    return false;
}

/* Whether our float value matches PyTorch's (see the file comment).  The
 * sign of a zero result is compared for float32 and float64; PyTorch's
 * float16/bfloat16 kernels (float opmath, several vector paths) do not keep
 * it consistently. */
static bool float_match(clops_dtype dt, double ours, double theirs, int ulp)
{
    if (isnan(theirs) || isnan(ours))
        return isnan(theirs) && isnan(ours);
    if (theirs == 0.0 && ours == 0.0)
        return signbit(theirs) == signbit(ours) || dt == CLOPS_FLOAT16 || dt == CLOPS_BFLOAT16;
    if (ours == theirs)
        return true;
    if (isinf(ours) || isinf(theirs))
        return false;
    double rtol = 1.3e-6, atol = 1e-5, u;
    switch (dt) {
    case CLOPS_FLOAT64:
        rtol = 1e-7, atol = 1e-7;
        u = nextafter(fabs(theirs), INFINITY) - fabs(theirs);
        break;
    case CLOPS_FLOAT16:
        rtol = 1e-3;
        u = ldexp(1.0, (theirs == 0.0 ? -14 : fmax(ilogb(fabs(theirs)), -14)) - 10);
        break;
    case CLOPS_BFLOAT16:
        rtol = 1.6e-2;
        u = ldexp(1.0, (theirs == 0.0 ? -126 : fmax(ilogb(fabs(theirs)), -126)) - 7);
        break;
    default:
        u = (double)nextafterf(fabsf((float)theirs), INFINITY) - fabs(theirs);
        break;
    }
    double diff = fabs(ours - theirs);
    return diff <= atol + rtol * fabs(theirs) || diff <= ulp * u;
}

/* Elements left out by pytorch_disagrees_with_itself. */
static int skipped;

/* Replays one row; returns the number of problems (printed). */
static int check_row(const cJSON *row, int index)
{
    const char *func = cJSON_GetObjectItemCaseSensitive(row, "func")->valuestring;
    const char *dname = cJSON_GetObjectItemCaseSensitive(row, "dtype")->valuestring;
    const cJSON *args = cJSON_GetObjectItemCaseSensitive(row, "args");
    const cJSON *inputs = cJSON_GetObjectItemCaseSensitive(row, "inputs");
    const cJSON *error = cJSON_GetObjectItemCaseSensitive(row, "error");
    clops_dtype dt;
    assert_int_equal(clops_dtype_from_name(dname, &dt), CLOPS_OK);
    clops_tensor *in[PW_MAX_IN] = {NULL};
    int nin = 0, n = 0;
    const cJSON *inp;
    cJSON_ArrayForEach(inp, inputs)
    {
        in[nin++] = tensor_from(cJSON_GetObjectItemCaseSensitive(inp, "values"), dt, &n);
    }
    clops_tensor *out = NULL;
    int ulp = 2;
    clops_status st = call(func, args, in, nin, &out, &ulp);
    int bad = 0;
    if (cJSON_IsString(error)) {
        if (st == CLOPS_OK) {
            print_error("row %d: %s %s: PyTorch raised %s, clops succeeded\n", index, func, dname,
                        error->valuestring);
            bad++;
        }
    } else if (st != CLOPS_OK) {
        print_error("row %d: %s %s: clops failed: %s\n", index, func, dname, clops_last_error());
        bad++;
    } else {
        clops_dtype odt;
        const char *oname = cJSON_GetObjectItemCaseSensitive(row, "out_dtype")->valuestring;
        assert_int_equal(clops_dtype_from_name(oname, &odt), CLOPS_OK);
        if (out->dtype != odt) {
            print_error("row %d: %s %s: result dtype %s, PyTorch %s\n", index, func, dname,
                        clops_dtype_name(out->dtype), oname);
            bad++;
        } else {
            uint64_t got[MAX_VALS], want[MAX_VALS];
            assert_int_equal(clops_tensor_to_host(out, got, (size_t)n * clops_dtype_size(odt)),
                             CLOPS_OK);
            const cJSON *v;
            int k = 0;
            cJSON_ArrayForEach(v, cJSON_GetObjectItemCaseSensitive(row, "output"))
            {
                put_value(want, k++, odt, v->valuestring);
            }
            const cJSON *xs = cJSON_GetObjectItemCaseSensitive(
                cJSON_GetArrayItem(inputs, nin - 1), "values");
            for (int i = 0; i < n; i++) {
                bool ok;
                double o, t;
                const cJSON *xi = cJSON_GetArrayItem(xs, i);
                double x = xi ? strtod(xi->valuestring, NULL) : 0.0;
                if (pytorch_disagrees_with_itself(func, args, odt, x)) {
                    skipped++;
                    continue;
                }
                if (clops_dtype_is_floating(odt)) {
                    o = pw_ref_load(got, i, odt, CLOPS_FLOAT64).f;
                    t = pw_ref_load(want, i, odt, CLOPS_FLOAT64).f;
                    ok = float_match(odt, o, t, ulp);
                } else {
                    o = (double)pw_ref_load(got, i, odt, CLOPS_INT64).i;
                    t = (double)pw_ref_load(want, i, odt, CLOPS_INT64).i;
                    ok = pw_ref_load(got, i, odt, CLOPS_INT64).i ==
                         pw_ref_load(want, i, odt, CLOPS_INT64).i;
                }
                if (!ok) {
                    char *a = cJSON_PrintUnformatted(args);
                    print_error("row %d: %s%s %s: [%d] x=%s: clops %.9g, PyTorch %.9g\n", index,
                                func, a ? a : "", dname, i, xi ? xi->valuestring : "?", o, t);
                    free(a);
                    bad++;
                }
            }
        }
    }
    for (int j = 0; j < nin; j++)
        clops_tensor_release(in[j]);
    clops_tensor_release(out);
    return bad;
}

static void test_golden_rows(void **state)
{
    (void)state;
    const char *path = CLOPS_TEST_DATA_DIR "/golden_unary.json";
    char *text = slurp(path);
    if (!text) {
        print_message("skipped: %s not found (write it with tests/data/gen_golden_unary.py)\n",
                      path);
        skip();
    }
    cJSON *rows = cJSON_Parse(text);
    free(text);
    assert_non_null(rows);
    int bad = 0, index = 0;
    const cJSON *row;
    cJSON_ArrayForEach(row, rows)
    {
        bad += check_row(row, index++);
    }
    print_message("%d golden rows checked, %d problems, %d elements where PyTorch's dtypes "
                  "disagree left out\n",
                  index, bad, skipped);
    cJSON_Delete(rows);
    assert_true(index > 0);
    assert_int_equal(bad, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_golden_rows),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    clops_shutdown();
    return rc;
}
