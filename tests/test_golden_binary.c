/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/test_golden_binary.c: clops' CPU reference of the binary,
 * comparison, logical and bitwise ops against PyTorch's answers in
 * tests/data/golden_binary.json (written by tests/data/gen_golden_binary.py
 * with torch, or by golden_binary_model.py, a pure-Python model of
 * PyTorch's rules, where torch is not installed).
 *
 * Every row names an ATen overload and its arguments (1-D or zero-dim
 * tensors, Python scalars, strings, None); the test runs the same overload
 * on the CPU device, through the pw_op its inventory entry binds (schema
 * arguments named like the op's parameters are parameters, the rest
 * operands) or through its family function, and requires:
 *   - for an error row, a failing status (any: PyTorch raises RuntimeError
 *     for unsupported dtypes, bad scalars and rule violations alike), except
 *     rows marked "zero_division", where clops documents a result (quotient
 *     0, remainder the dividend) instead of PyTorch's ZeroDivisionError:
 *     those must succeed;
 *   - otherwise the same dtype and shape, integers and bool exactly, floats
 *     with NaN parity, equal infinities, the op's ulp budget (float16 and
 *     bfloat16: one ulp of their own type more) and the sign of zero, except
 *     for max/min/clamp, whose zero sign PyTorch's vectorised and scalar
 *     loops choose differently.
 * Without the data file the test is skipped with a message.
 */
#include <cjson/cJSON.h>

#include "pw_binary_check.h"

#ifndef CLOPS_TEST_DATA_DIR
#error "CLOPS_TEST_DATA_DIR must name tests/data"
#endif

#define GOLDEN_FILE CLOPS_TEST_DATA_DIR "/golden_binary.json"
#define MAX_ARGS 5

/* One decoded argument. */
typedef struct garg {
    const char *name;
    clops_tensor *t; /* NULL for scalars, strings and None */
    clops_scalar s;
    const char *str;
    bool none;
} garg;

typedef clops_status (*adapter_fn)(const garg *a, clops_tensor **out);

/* Adapters for family functions, by argument pattern (T tensor or None,
 * S scalar, R string). */
#define ADAPT_TT(fn)                                                                               \
    static clops_status ad_##fn(const garg *a, clops_tensor **o)                                   \
    {                                                                                              \
        return fn(PW_FUNCTIONAL, NULL, a[0].t, a[1].t, o);                                         \
    }
#define ADAPT_TS(fn)                                                                               \
    static clops_status ad_##fn(const garg *a, clops_tensor **o)                                   \
    {                                                                                              \
        return fn(PW_FUNCTIONAL, NULL, a[0].t, a[1].s, o);                                         \
    }
#define ADAPT_ST(fn)                                                                               \
    static clops_status ad_##fn(const garg *a, clops_tensor **o)                                   \
    {                                                                                              \
        return fn(PW_FUNCTIONAL, NULL, a[0].s, a[1].t, o);                                         \
    }
#define ADAPT_TTS(fn)                                                                              \
    static clops_status ad_##fn(const garg *a, clops_tensor **o)                                   \
    {                                                                                              \
        return fn(PW_FUNCTIONAL, NULL, a[0].t, a[1].t, a[2].s, o);                                 \
    }
#define ADAPT_TSS(fn)                                                                              \
    static clops_status ad_##fn(const garg *a, clops_tensor **o)                                   \
    {                                                                                              \
        return fn(PW_FUNCTIONAL, NULL, a[0].t, a[1].s, a[2].s, o);                                 \
    }
#define ADAPT_TST(fn)                                                                              \
    static clops_status ad_##fn(const garg *a, clops_tensor **o)                                   \
    {                                                                                              \
        return fn(PW_FUNCTIONAL, NULL, a[0].t, a[1].s, a[2].t, o);                                 \
    }
#define ADAPT_TTT(fn)                                                                              \
    static clops_status ad_##fn(const garg *a, clops_tensor **o)                                   \
    {                                                                                              \
        return fn(PW_FUNCTIONAL, NULL, a[0].t, a[1].t, a[2].t, o);                                 \
    }
#define ADAPT_TTR(fn)                                                                              \
    static clops_status ad_##fn(const garg *a, clops_tensor **o)                                   \
    {                                                                                              \
        return fn(PW_FUNCTIONAL, NULL, a[0].t, a[1].t, a[2].str, o);                               \
    }
#define ADAPT_TSR(fn)                                                                              \
    static clops_status ad_##fn(const garg *a, clops_tensor **o)                                   \
    {                                                                                              \
        return fn(PW_FUNCTIONAL, NULL, a[0].t, a[1].s, a[2].str, o);                               \
    }

ADAPT_TTS(pw_fn_sub_tensor)
ADAPT_TSS(pw_fn_sub_scalar)
ADAPT_TTS(pw_fn_rsub_tensor)
ADAPT_TSS(pw_fn_rsub_scalar)
ADAPT_TTR(pw_fn_div_tensor_mode)
ADAPT_TSR(pw_fn_div_scalar_mode)
ADAPT_TT(pw_fn_pow_tensor_tensor)
ADAPT_TS(pw_fn_pow_tensor_scalar)
ADAPT_ST(pw_fn_pow_scalar)
ADAPT_TT(pw_fn_float_power_tensor_tensor)
ADAPT_TS(pw_fn_float_power_tensor_scalar)
ADAPT_ST(pw_fn_float_power_scalar)
ADAPT_TT(pw_fn_nextafter)
ADAPT_TT(pw_fn_heaviside)
ADAPT_TTS(pw_fn_lerp_scalar)
ADAPT_TTT(pw_fn_lerp_tensor)
ADAPT_TTT(pw_fn_clamp_tensor)
ADAPT_TS(pw_fn_clamp_min)
ADAPT_TS(pw_fn_clamp_max)
ADAPT_TTT(pw_fn_where_self)
ADAPT_TST(pw_fn_where_scalar_self)
ADAPT_TTS(pw_fn_where_scalar_other)
ADAPT_TSS(pw_fn_where_scalar)
ADAPT_TTS(pw_fn_masked_fill_scalar)
ADAPT_TTT(pw_fn_masked_fill_tensor)
ADAPT_TS(pw_fn_fill_scalar)
ADAPT_TT(pw_fn_fill_tensor)

/* addcdiv(self, tensor1, tensor2, *, value). */
static clops_status ad_pw_fn_addcdiv(const garg *a, clops_tensor **o)
{
    return pw_fn_addcdiv(PW_FUNCTIONAL, NULL, a[0].t, a[1].t, a[2].t, a[3].s, o);
}

/* clamp(self, Scalar? min, Scalar? max). */
static clops_status ad_pw_fn_clamp(const garg *a, clops_tensor **o)
{
    return pw_fn_clamp(PW_FUNCTIONAL, NULL, a[0].t, a[1].none ? NULL : &a[1].s,
                       a[2].none ? NULL : &a[2].s, o);
}

/* How one overload runs: through pw_op `op` by the inventory's binding rule
 * (adapter NULL) or through its family function; op also gives the
 * tolerance.  zero_free: the sign of a zero result is not compared. */
typedef struct runner {
    const char *opname;
    const pw_op *op;
    adapter_fn adapter;
    bool zero_free;
} runner;

#define PW(name, o) {name, &pw_op_##o, NULL, false}
#define FN(name, o, fn) {name, &pw_op_##o, ad_##fn, false}

static const runner runners[] = {
    PW("add.Tensor", add), PW("add.Scalar", add), FN("sub.Tensor", sub, pw_fn_sub_tensor),
    FN("sub.Scalar", sub, pw_fn_sub_scalar), FN("rsub.Tensor", sub, pw_fn_rsub_tensor),
    FN("rsub.Scalar", sub, pw_fn_rsub_scalar), PW("mul.Tensor", mul), PW("mul.Scalar", mul),
    PW("div.Tensor", div), PW("div.Scalar", div), PW("true_divide.Tensor", div),
    FN("div.Tensor_mode", div, pw_fn_div_tensor_mode),
    FN("div.Scalar_mode", div, pw_fn_div_scalar_mode), PW("floor_divide", div_floor),
    PW("floor_divide.Scalar", div_floor), PW("remainder.Tensor", remainder),
    PW("remainder.Scalar", remainder), PW("remainder.Scalar_Tensor", remainder),
    PW("fmod.Tensor", fmod), PW("fmod.Scalar", fmod),
    FN("pow.Tensor_Tensor", pow, pw_fn_pow_tensor_tensor),
    FN("pow.Tensor_Scalar", pow, pw_fn_pow_tensor_scalar), FN("pow.Scalar", pow, pw_fn_pow_scalar),
    FN("float_power.Tensor_Tensor", pow, pw_fn_float_power_tensor_tensor),
    FN("float_power.Tensor_Scalar", pow, pw_fn_float_power_tensor_scalar),
    FN("float_power.Scalar", pow, pw_fn_float_power_scalar), PW("atan2", atan2),
    PW("hypot", hypot), PW("copysign.Tensor", copysign), PW("copysign.Scalar", copysign),
    FN("nextafter", nextafter, pw_fn_nextafter), PW("xlogy.Tensor", xlogy),
    PW("xlogy.Scalar_Self", xlogy), PW("xlogy.Scalar_Other", xlogy), PW("logaddexp", logaddexp),
    PW("logaddexp2", logaddexp2), FN("heaviside", heaviside, pw_fn_heaviside),
    FN("lerp.Scalar", lerp, pw_fn_lerp_scalar), FN("lerp.Tensor", lerp_tensor, pw_fn_lerp_tensor),
    PW("addcmul", addcmul), FN("addcdiv", addcdiv, pw_fn_addcdiv),
    {"maximum", &pw_op_maximum, NULL, true}, {"minimum", &pw_op_minimum, NULL, true},
    {"fmax", &pw_op_fmax, NULL, true}, {"fmin", &pw_op_fmin, NULL, true},
    {"clamp", &pw_op_clamp, ad_pw_fn_clamp, true},
    {"clamp.Tensor", &pw_op_clamp, ad_pw_fn_clamp_tensor, true},
    {"clamp_min", &pw_op_clamp_min, ad_pw_fn_clamp_min, true},
    {"clamp_min.Tensor", &pw_op_maximum, NULL, true},
    {"clamp_max", &pw_op_clamp_max, ad_pw_fn_clamp_max, true},
    {"clamp_max.Tensor", &pw_op_minimum, NULL, true}, PW("eq.Tensor", eq), PW("eq.Scalar", eq),
    PW("ne.Tensor", ne), PW("ne.Scalar", ne), PW("lt.Tensor", lt), PW("lt.Scalar", lt),
    PW("le.Tensor", le), PW("le.Scalar", le), PW("gt.Tensor", gt), PW("gt.Scalar", gt),
    PW("ge.Tensor", ge), PW("ge.Scalar", ge), PW("logical_and", logical_and),
    PW("logical_or", logical_or), PW("logical_xor", logical_xor), PW("logical_not", logical_not),
    PW("bitwise_and.Tensor", bitwise_and), PW("bitwise_and.Scalar", bitwise_and),
    PW("bitwise_and.Scalar_Tensor", bitwise_and), PW("bitwise_or.Tensor", bitwise_or),
    PW("bitwise_or.Scalar", bitwise_or), PW("bitwise_or.Scalar_Tensor", bitwise_or),
    PW("bitwise_xor.Tensor", bitwise_xor), PW("bitwise_xor.Scalar", bitwise_xor),
    PW("bitwise_xor.Scalar_Tensor", bitwise_xor), PW("bitwise_not", bitwise_not),
    PW("bitwise_left_shift.Tensor", bitwise_left_shift),
    PW("bitwise_left_shift.Tensor_Scalar", bitwise_left_shift),
    PW("bitwise_left_shift.Scalar_Tensor", bitwise_left_shift),
    PW("bitwise_right_shift.Tensor", bitwise_right_shift),
    PW("bitwise_right_shift.Tensor_Scalar", bitwise_right_shift),
    PW("bitwise_right_shift.Scalar_Tensor", bitwise_right_shift),
    FN("where.self", where, pw_fn_where_self),
    FN("where.ScalarSelf", where, pw_fn_where_scalar_self),
    FN("where.ScalarOther", where, pw_fn_where_scalar_other),
    FN("where.Scalar", where, pw_fn_where_scalar),
    FN("masked_fill.Scalar", masked_fill, pw_fn_masked_fill_scalar),
    FN("masked_fill.Tensor", masked_fill, pw_fn_masked_fill_tensor),
    FN("fill.Scalar", masked_fill, pw_fn_fill_scalar),
    FN("fill.Tensor", masked_fill, pw_fn_fill_tensor),
};

/* The runner of an overload, or NULL. */
static const runner *find_runner(const char *opname)
{
    for (size_t i = 0; i < CT_COUNT(runners); i++)
        if (strcmp(runners[i].opname, opname) == 0)
            return &runners[i];
    return NULL;
}

/* A JSON value (number, bool, "nan"/"inf"/"-inf", decimal string) as a
 * pw_value of dtype dt (.f for floats, .i otherwise). */
static pw_value json_value(const cJSON *v, clops_dtype dt)
{
    pw_value r;
    bool fl = clops_dtype_is_floating(dt);
    if (cJSON_IsBool(v)) {
        r.i = cJSON_IsTrue(v);
        if (fl)
            r.f = (double)r.i;
    } else if (cJSON_IsString(v)) {
        const char *s = v->valuestring;
        if (fl)
            r.f = strcmp(s, "nan") == 0 ? NAN : strcmp(s, "inf") == 0 ? INFINITY
                  : strcmp(s, "-inf") == 0                          ? -INFINITY
                                                                    : strtod(s, NULL);
        else
            r.i = strtoll(s, NULL, 10);
    } else if (fl) {
        r.f = v->valuedouble;
    } else {
        r.i = (int64_t)v->valuedouble;
    }
    return r;
}

/* A dtype by name; fails the test for an unknown one. */
static clops_dtype dtype_of(const cJSON *name)
{
    clops_dtype dt = CLOPS_DTYPE_NONE;
    CT_ASSERT(cJSON_IsString(name));
    CT_OK(clops_dtype_from_name(name->valuestring, &dt));
    return dt;
}

/* A CPU tensor from {"dtype", "shape", "values"}. */
static clops_tensor *json_tensor(const cJSON *j)
{
    clops_dtype dt = dtype_of(cJSON_GetObjectItem(j, "dtype"));
    const cJSON *shape = cJSON_GetObjectItem(j, "shape");
    const cJSON *vals = cJSON_GetObjectItem(j, "values");
    int ndim = cJSON_GetArraySize(shape);
    int64_t sizes[CLOPS_MAX_DIMS];
    for (int d = 0; d < ndim; d++)
        sizes[d] = (int64_t)cJSON_GetArrayItem(shape, d)->valuedouble;
    int n = cJSON_GetArraySize(vals);
    size_t es = clops_dtype_size(dt);
    void *buf = calloc((size_t)n + 1, es);
    assert_non_null(buf);
    clops_dtype ct = clops_dtype_is_floating(dt) ? CLOPS_FLOAT64 : CLOPS_INT64;
    for (int k = 0; k < n; k++)
        pw_ref_store(buf, k, dt, ct, json_value(cJSON_GetArrayItem(vals, k), dt));
    clops_tensor *t = NULL;
    CT_OK(clops_from_host(ct_cpu(), dt, ndim, sizes, buf, (size_t)n * es, &t));
    free(buf);
    return t;
}

/* Decodes one argument. */
static garg json_arg(const cJSON *j)
{
    garg a;
    memset(&a, 0, sizeof a);
    a.name = cJSON_GetObjectItem(j, "name")->valuestring;
    const cJSON *x;
    if ((x = cJSON_GetObjectItem(j, "tensor")) != NULL) {
        a.t = json_tensor(x);
    } else if ((x = cJSON_GetObjectItem(j, "scalar")) != NULL) {
        const char *kind = cJSON_GetObjectItem(x, "kind")->valuestring;
        const cJSON *v = cJSON_GetObjectItem(x, "value");
        if (strcmp(kind, "bool") == 0)
            a.s = clops_scalar_bool(cJSON_IsTrue(v));
        else if (strcmp(kind, "int") == 0)
            a.s = clops_scalar_int(json_value(v, CLOPS_INT64).i);
        else
            a.s = clops_scalar_float(json_value(v, CLOPS_FLOAT64).f);
    } else if ((x = cJSON_GetObjectItem(j, "str")) != NULL) {
        a.str = x->valuestring;
    } else {
        a.none = true;
    }
    return a;
}

/* Runs an overload through its pw_op: arguments named like the op's
 * parameters are parameters, the others operands in order. */
static clops_status run_pointwise(const pw_op *op, const garg *a, int n, clops_tensor **out)
{
    pw_operand ops[PW_MAX_IN];
    clops_scalar params[PW_MAX_PARAMS];
    int nin = 0;
    for (int i = 0; i < n; i++) {
        int p = -1;
        for (int k = 0; k < op->n_params; k++)
            if (op->param_names[k] && strcmp(op->param_names[k], a[i].name) == 0)
                p = k;
        if (p >= 0)
            params[p] = a[i].s;
        else if (nin < PW_MAX_IN)
            ops[nin++] = a[i].t ? pw_tensor(a[i].t) : pw_scalar(a[i].s);
    }
    CT_ASSERT_MSG(nin == op->n_in, "%d operands for pw_op_%s", nin, op->name);
    pw_options o = {.result = CLOPS_DTYPE_NONE, .compute = CLOPS_DTYPE_NONE};
    return pw_run(op, PW_FUNCTIONAL, ops, params, NULL, &o, out);
}

/* Checks one row; returns true when it was a documented divergence. */
static bool check_row(const cJSON *row, int index)
{
    const char *opname = cJSON_GetObjectItem(row, "op")->valuestring;
    const runner *r = find_runner(opname);
    CT_ASSERT_MSG(r != NULL, "row %d: no runner for %s", index, opname);
    const cJSON *jargs = cJSON_GetObjectItem(row, "args");
    garg args[MAX_ARGS];
    int n = cJSON_GetArraySize(jargs);
    CT_ASSERT(n <= MAX_ARGS);
    for (int i = 0; i < n; i++)
        args[i] = json_arg(cJSON_GetArrayItem(jargs, i));
    char *text = cJSON_PrintUnformatted(jargs);
    ct_set_case("row %d: %s %s", index, opname, text ? text : "");
    free(text);
    clops_tensor *got = NULL;
    clops_status st = r->adapter ? r->adapter(args, &got) : run_pointwise(r->op, args, n, &got);
    const cJSON *expect = cJSON_GetObjectItem(row, "expect");
    bool divergence = false;
    if (cJSON_GetObjectItem(expect, "error")) {
        divergence = cJSON_IsTrue(cJSON_GetObjectItem(expect, "zero_division"));
        if (divergence)
            CT_ASSERT_MSG(st == CLOPS_OK, "documented integer division by zero failed: %s",
                          clops_last_error());
        else
            CT_ASSERT_MSG(st != CLOPS_OK, "PyTorch raises %s; clops succeeded",
                          cJSON_GetObjectItem(expect, "error")->valuestring);
    } else {
        CT_OK(st);
        clops_tensor *want = json_tensor(expect);
        CT_ASSERT_CLOSE(got, want, pwt_tol(want->dtype, r->op->ulp, 0.0, !r->zero_free));
        clops_tensor_release(want);
    }
    clops_tensor_release(got);
    for (int i = 0; i < n; i++)
        clops_tensor_release(args[i].t);
    return divergence;
}

/* Reads the whole file; NULL when it does not exist. */
static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)len + 1);
    assert_non_null(buf);
    size_t got = fread(buf, 1, (size_t)len, f);
    fclose(f);
    buf[got] = '\0';
    return buf;
}

static void test_cpu_reference_matches_every_golden_row(void **state)
{
    (void)state;
    char *text = read_file(GOLDEN_FILE);
    if (!text) {
        print_message("skipped: %s is missing (python3 tests/data/gen_golden_binary.py writes "
                      "it with torch; tests/data/golden_binary_model.py without)\n",
                      GOLDEN_FILE);
        skip();
    }
    cJSON *rows = cJSON_Parse(text);
    free(text);
    CT_ASSERT_MSG(cJSON_IsArray(rows), "%s is not a JSON array", GOLDEN_FILE);
    int n = cJSON_GetArraySize(rows), divergences = 0;
    ct_set_device(ct_cpu());
    for (int i = 0; i < n; i++)
        divergences += check_row(cJSON_GetArrayItem(rows, i), i);
    ct_clear_context();
    print_message("%d golden rows checked; %d integer divisions by zero give clops' documented "
                  "result where PyTorch raises\n",
                  n, divergences);
    cJSON_Delete(rows);
}

/* Every runner names a real overload of the inventory's families (a typo
 * would make rows fail with "no runner"). */
static void test_every_golden_op_has_a_runner(void **state)
{
    (void)state;
    for (size_t i = 0; i < CT_COUNT(runners); i++)
        CT_ASSERT(runners[i].op != NULL && strchr(runners[i].opname, ' ') == NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_golden_op_has_a_runner),
        cmocka_unit_test(test_cpu_reference_matches_every_golden_row),
    };
    return cmocka_run_group_tests(tests, NULL, ct_teardown_group);
}
