/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/test_check_engine.c: the check engine itself (tools/check/): the
 * cases it builds from schemas and hints, its tolerance rule, and that it
 * catches what it exists to catch.  Faulty kernels are planted as vendor
 * overrides on the device under test (a wrong value, a write outside the
 * output, a dtype the reference refuses), and a user op with only a CPU
 * kernel shows up as a CPU fallback.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clops/ops.h"
#include "dispatch/dispatch.h"
#include "ops/tensor/tensor.h"
#include "support/clops_test.h"
#include "tools/check/check.h"

/* --- helpers ------------------------------------------------------------------ */

static const clops_op *find_op(const char *name)
{
    const clops_op *op = NULL;
    CT_OK(clops_op_find(name, &op));
    return op;
}

/* Counts of the results of a run, and the first failure. */
typedef struct collected {
    int pass, fail, skip, error;
    int value_fail;          /* failures that are not only about the result's strides */
    chk_kernel kernel;       /* of the last result that ran something */
    char first_fail[1200];
} collected;

/* Result callback: counts and the first failure. */
static void collect(void *ctx, const chk_result *r)
{
    collected *c = ctx;
    switch (r->status) {
    case CHK_PASS:
        c->pass++;
        break;
    case CHK_FAIL:
        c->fail++;
        c->value_fail += !strstr(r->message, ": strides ") || strstr(r->message, " differ (");
        break;
    case CHK_SKIP:
        c->skip++;
        break;
    default:
        c->error++;
        break;
    }
    if (r->kernel != CHK_KERNEL_NONE)
        c->kernel = r->kernel;
    if ((r->status == CHK_FAIL || r->status == CHK_ERROR) && !c->first_fail[0])
        snprintf(c->first_fail, sizeof c->first_fail, "%s [%s] %s", r->dtype, r->case_name,
                 r->message);
}

/* Runs op's ci cases in the dtypes of mask on d. */
static collected run_op(const char *name, uint32_t mask, clops_device *d)
{
    collected c;
    memset(&c, 0, sizeof c);
    chk_callbacks cb = {collect, &c};
    CT_OK(chk_run_op(find_op(name), CHK_SET_CI, mask, &d, 1, &cb, NULL));
    return c;
}

/* The first OpenCL device under test, or NULL. */
static clops_device *opencl_device(void)
{
    clops_device *devs[CT_MAX_DEVICES];
    return ct_opencl_devices(devs, CT_MAX_DEVICES) > 0 ? devs[0] : NULL;
}

/* The vendor dispatch key of an OpenCL device (vendor and key enums share
 * their order). */
static clops_dispatch_key vendor_key(const clops_device *d)
{
    return (clops_dispatch_key)clops_device_get_info(d)->vendor;
}

/* Whether a case list has a case whose name contains text. */
static bool has_case(const chk_case *cases, int n, const char *text)
{
    for (int i = 0; i < n; i++)
        if (strstr(cases[i].name, text))
            return true;
    return false;
}

/* The cases of an op in a set and dtype. */
static chk_case *cases_of(const char *name, chk_set set, clops_dtype dt, chk_opinfo *info, int *n)
{
    CT_OK(chk_opinfo_init(find_op(name), info));
    chk_case *cases = NULL;
    CT_OK(chk_cases(info, set, dt, &cases, n, NULL, 0));
    return cases;
}

/* --- cases and knowledge ------------------------------------------------------------- */

/* The ci cases of a binary op cover the shapes and layouts issue 4 lists. */
static void test_ci_cases_cover_the_required_layouts(void **state)
{
    (void)state;
    chk_opinfo info;
    int n = 0;
    chk_case *c = cases_of("add.Tensor", CHK_SET_CI, CLOPS_FLOAT32, &info, &n);
    const char *want[] = {"5x7x11x13 contiguous", "transposed", "step-sliced+offset",
                          "expanded (stride 0)", "7x1 broadcast", "broadcast both ways",
                          "zero-dim", "5x7 + zero-dim", "zero-size"};
    for (size_t k = 0; k < CT_COUNT(want); k++)
        CT_ASSERT_MSG(has_case(c, n, want[k]), "add.Tensor has no '%s' case", want[k]);
    CT_ASSERT(!has_case(c, n, "rank 5"));
    const chk_case *sl = NULL;
    for (int i = 0; i < n; i++)
        if (strstr(c[i].name, "sliced"))
            sl = &c[i];
    CT_ASSERT(sl && sl->args[0].t.layout == CHK_SLICED && sl->args[1].t.layout == CHK_SLICED);
    CT_ASSERT(sl->args[0].t.ndim == 3 && sl->args[0].t.sizes[2] == 11);
    CT_ASSERT(strcmp(c[0].dtype_label, "float32") == 0);
    free(c);
    chk_opinfo_free(&info);

    /* In place: self is never broadcast or expanded. */
    c = cases_of("add_.Tensor", CHK_SET_CI, CLOPS_FLOAT32, &info, &n);
    CT_ASSERT(info.inplace && info.roles[0] == CHK_ROLE_MUTATED);
    CT_ASSERT(!has_case(c, n, "both ways"));
    for (int i = 0; i < n; i++)
        CT_ASSERT(c[i].args[0].t.layout != CHK_EXPANDED);
    free(c);
    chk_opinfo_free(&info);

    /* out=: guarded outs of the reference's shape, one transposed. */
    c = cases_of("add.out", CHK_SET_CI, CLOPS_FLOAT16, &info, &n);
    CT_ASSERT(info.nouts == 1 && info.functional == find_op("add.Tensor"));
    CT_ASSERT(has_case(c, n, "out= transposed"));
    int out = -1;
    for (int i = 0; i < info.nargs; i++)
        if (info.roles[i] == CHK_ROLE_OUT)
            out = i;
    CT_ASSERT(out >= 0 && c[0].args[out].t.from_result);
    free(c);
    chk_opinfo_free(&info);

    /* The full set adds the generic rank, mixed dtypes and CPU scalars. */
    c = cases_of("mul.Tensor", CHK_SET_FULL, CLOPS_FLOAT32, &info, &n);
    CT_ASSERT(has_case(c, n, "rank 5") && has_case(c, n, "mixed dtypes") &&
              has_case(c, n, "on the CPU"));
    bool mixed = false;
    for (int i = 0; i < n; i++)
        mixed |= strcmp(c[i].dtype_label, "float32,float16") == 0;
    CT_ASSERT(mixed);
    free(c);
    chk_opinfo_free(&info);
}

/* In-place and out= forms find their functional op, and through it the
 * pointwise op's domain and ULP budget. */
static void test_variants_find_their_functional_op(void **state)
{
    (void)state;
    CT_ASSERT(chk_functional_of(find_op("add_.Tensor")) == find_op("add.Tensor"));
    CT_ASSERT(chk_functional_of(find_op("add.out")) == find_op("add.Tensor"));
    CT_ASSERT(chk_functional_of(find_op("add.Scalar_out")) == find_op("add.Scalar"));
    CT_ASSERT(chk_functional_of(find_op("add.Tensor")) == find_op("add.Tensor"));
    CT_ASSERT(chk_functional_of(find_op("threshold_backward.grad_input")) ==
              find_op("threshold_backward"));
    chk_opinfo info;
    CT_OK(chk_opinfo_init(find_op("sqrt_"), &info));
    CT_ASSERT(info.pw && info.domain == info.pw->domain);
    chk_opinfo_free(&info);
}

/* Hints give argument values (int and float Scalars kept apart), domains,
 * tolerances, dtypes and, for the matrix family, shapes and a reduction. */
static void test_hints_shape_the_cases(void **state)
{
    (void)state;
    chk_opinfo info;
    int n = 0;
    chk_case *c = cases_of("pow.Tensor_Scalar", CHK_SET_CI, CLOPS_FLOAT32, &info, &n);
    CT_ASSERT(info.domain == PW_DOMAIN_SMALL);
    CT_ASSERT(has_case(c, n, "exponent=2") && has_case(c, n, "exponent=0.5"));
    for (int i = 0; i < n; i++) {
        size_t len = strlen(c[i].name);
        if (len > 10 && strcmp(c[i].name + len - 10, "exponent=2") == 0)
            CT_ASSERT(c[i].args[1].s.kind == CLOPS_SCALAR_INT);
        if (strstr(c[i].name, "exponent=0.5"))
            CT_ASSERT(c[i].args[1].s.kind == CLOPS_SCALAR_FLOAT);
    }
    free(c);
    chk_opinfo_free(&info);

    c = cases_of("celu", CHK_SET_CI, CLOPS_FLOAT32, &info, &n);
    bool float_alpha = false;
    for (int i = 0; i < n; i++)
        float_alpha |= c[i].args[1].tag == CLOPS_V_SCALAR && c[i].args[1].s.kind ==
                                                                   CLOPS_SCALAR_FLOAT;
    CT_ASSERT_MSG(float_alpha, "alpha: [1.0, 2.0] must give float Scalars");
    free(c);
    chk_opinfo_free(&info);

    c = cases_of("gelu", CHK_SET_CI, CLOPS_INT32, &info, &n);
    CT_ASSERT(n == 0 && info.ulp == 20);
    free(c);
    chk_opinfo_free(&info);

    c = cases_of("mm", CHK_SET_CI, CLOPS_FLOAT32, &info, &n);
    CT_ASSERT(n > 0 && info.reduce_arg == 0 && info.reduce_dim == 1);
    CT_ASSERT(c[0].args[0].t.ndim == 2 && c[0].args[0].t.sizes[1] == c[0].args[1].t.sizes[0]);
    free(c);
    chk_opinfo_free(&info);
}

/* Index lists (`Tensor?[]`) spelled element by element in the hints: None
 * entries, bool masks, and the out-of-range case that must be refused. */
static void test_index_lists_in_hints(void **state)
{
    (void)state;
    chk_opinfo info;
    int n = 0;
    chk_case *c = cases_of("index.Tensor", CHK_SET_CI, CLOPS_FLOAT32, &info, &n);
    CT_ASSERT_MSG(n > 0 && !info.skip[0], "index.Tensor: %s", info.skip);
    bool none_entry = false, mask = false, refusal = false;
    for (int i = 0; i < n; i++) {
        const chk_argval *a = &c[i].args[1];
        CT_ASSERT(a->role == CHK_ROLE_LIST && a->nlist >= 1);
        for (int k = 0; k < a->nlist; k++) {
            none_entry |= a->list[k].none;
            mask |= !a->list[k].none && a->list[k].dtype == CLOPS_BOOL;
            if (!a->list[k].none && a->list[k].dtype != CLOPS_BOOL)
                CT_ASSERT(a->list[k].dtype == CLOPS_INT64);
        }
        refusal |= c[i].expect_refusal;
        CT_ASSERT(c[i].expect_refusal == (strstr(c[i].name, "beyond") != NULL));
    }
    CT_ASSERT(none_entry && mask && refusal);
    free(c);
    chk_opinfo_free(&info);
}

/* index.Tensor that answers an out-of-range index with zeros instead of
 * the error (what a lenient kernel would do). */
static clops_status lenient_index(const clops_kernel_ctx *ctx, clops_value *args, int nargs,
                                  clops_value *rets, int nrets)
{
    clops_status st = clops_kernel_call_fallback(ctx, args, nargs, rets, nrets);
    if (st == CLOPS_OK)
        return st;
    clops_clear_error();
    const clops_tensor *self = args[0].v.t;
    const int64_t one = 1;
    clops_tensor *r = NULL;
    st = clops_zeros(clops_tensor_device(self), clops_tensor_dtype(self), 1, &one, &r);
    if (st == CLOPS_OK)
        rets[0] = clops_value_tensor(r);
    return st;
}

/* An out-of-range index case passes only when the device refuses it. */
static void test_out_of_range_must_be_refused(void **state)
{
    (void)state;
    clops_device *d = opencl_device();
    if (!d)
        skip();
    collected ok = run_op("index.Tensor", 1u << CLOPS_FLOAT32, d);
    CT_ASSERT_MSG(ok.fail == 0 && ok.error == 0 && ok.pass > 0, "%s", ok.first_fail);
    clops_override *h = NULL;
    CT_OK(clops_kernel_register(find_op("index.Tensor"), vendor_key(d), lenient_index, NULL,
                                "lenient-index", 0, &h));
    collected c = run_op("index.Tensor", 1u << CLOPS_FLOAT32, d);
    CT_OK(clops_kernel_remove(h));
    CT_ASSERT(c.fail > 0);
    CT_ASSERT_MSG(strstr(c.first_fail, "must be refused"), "message: %s", c.first_fail);
}

/* The tolerance rule of check_compare.h. */
static void test_tolerance_rule(void **state)
{
    (void)state;
    ulp_tol t = chk_tolerance(CLOPS_FLOAT32, 4, 0, 0, 1);
    CT_ASSERT(t.ulp == 4 && t.atol == ldexp(1.0, -126));
    t = chk_tolerance(CLOPS_FLOAT32, 0, 0, 0, 1);
    CT_ASSERT(t.ulp == 4);
    t = chk_tolerance(CLOPS_FLOAT16, 4, 0, 0, 1);
    CT_ASSERT(fabs(t.ulp - (1.0 + 4.0 * 0x1p-23 / 0x1p-10)) < 1e-12);
    t = chk_tolerance(CLOPS_FLOAT64, 3, 1e-5, 0, 1);
    CT_ASSERT(t.ulp == 3 && t.atol == 1e-5);
    t = chk_tolerance(CLOPS_FLOAT32, 4, 0, 7, 3);
    CT_ASSERT(t.ulp == 28 && t.atol >= 7 * 4 * ulp_spacing(CLOPS_FLOAT32, 9.0));
    t = chk_tolerance(CLOPS_INT32, 4, 1, 0, 1);
    CT_ASSERT(t.ulp == 0 && t.atol == 0);
}

/* --- what the engine catches --------------------------------------------------------- */

/* A correct op passes every case on the device, run by its device kernel. */
static void test_a_correct_op_passes(void **state)
{
    (void)state;
    clops_device *d = opencl_device();
    if (!d)
        skip();
    collected c = run_op("add.Tensor", 1u << CLOPS_FLOAT32, d);
    CT_ASSERT_MSG(c.fail + c.error == 0, "add.Tensor failed: %s", c.first_fail);
    CT_ASSERT(c.pass >= 9 && c.kernel == CHK_KERNEL_DEVICE);
    c = run_op("add.Tensor", 1u << CLOPS_FLOAT32, ct_cpu());
    CT_ASSERT(c.fail + c.error == 0 && c.kernel == CHK_KERNEL_REFERENCE);
}

/* neg that computes abs. */
static clops_status wrong_neg(const clops_kernel_ctx *ctx, clops_value *args, int nargs,
                              clops_value *rets, int nrets)
{
    (void)ctx, (void)nargs, (void)nrets;
    clops_tensor *out = NULL;
    clops_status st = clops_abs(args[0].v.t, &out);
    if (st == CLOPS_OK)
        rets[0] = clops_value_tensor(out);
    return st;
}

/* A wrong kernel fails, and the result names the override and the error. */
static void test_a_wrong_kernel_fails(void **state)
{
    (void)state;
    clops_device *d = opencl_device();
    if (!d)
        skip();
    clops_override *h = NULL;
    CT_OK(clops_kernel_register(find_op("neg"), vendor_key(d), wrong_neg, NULL, "wrong-neg",
                                CLOPS_OVERRIDE_UNCONDITIONAL, &h));
    collected c = run_op("neg", 1u << CLOPS_FLOAT32, d);
    CT_OK(clops_kernel_remove(h));
    CT_ASSERT(c.fail > 0 && c.kernel == CHK_KERNEL_OVERRIDE);
    CT_ASSERT_MSG(strstr(c.first_fail, "differ") && strstr(c.first_fail, "expected"),
                  "message: %s", c.first_fail);
}

/* neg.out that also writes the element before its output. */
static clops_status leaky_neg_out(const clops_kernel_ctx *ctx, clops_value *args, int nargs,
                                  clops_value *rets, int nrets)
{
    clops_status st = clops_kernel_call_fallback(ctx, args, nargs, rets, nrets);
    clops_tensor *out = args[1].v.t, *before = NULL;
    if (st == CLOPS_OK && out->offset > 0)
        st = tensor_make_view("leaky", out, 0, NULL, NULL, out->offset - 1, &before);
    if (st == CLOPS_OK && before)
        st = tensor_fill(before, clops_scalar_int(7));
    clops_tensor_release(before);
    return st;
}

/* A write outside the output is caught by the guard regions. */
static void test_an_out_of_bounds_write_fails(void **state)
{
    (void)state;
    clops_device *d = opencl_device();
    if (!d)
        skip();
    clops_override *h = NULL;
    CT_OK(clops_kernel_register(find_op("neg.out"), vendor_key(d), leaky_neg_out, NULL,
                                "leaky-neg-out", 0, &h));
    collected c = run_op("neg.out", 1u << CLOPS_INT32, d);
    CT_OK(clops_kernel_remove(h));
    CT_ASSERT(c.fail > 0);
    CT_ASSERT_MSG(strstr(c.first_fail, "out-of-bounds write"), "message: %s", c.first_fail);
}

/* bitwise_not that accepts floats (the reference refuses them). */
static clops_status lax_bitwise_not(const clops_kernel_ctx *ctx, clops_value *args, int nargs,
                                    clops_value *rets, int nrets)
{
    (void)nargs, (void)nrets;
    clops_tensor *self = args[0].v.t, *out = NULL;
    if (!clops_dtype_is_floating(clops_tensor_dtype(self)))
        return clops_kernel_call_fallback(ctx, args, nargs, rets, nrets);
    clops_status st = clops_clone(self, -1, &out);
    if (st == CLOPS_OK)
        rets[0] = clops_value_tensor(out);
    return st;
}

/* A device that accepts a dtype the reference refuses fails; refusing it
 * like the reference is a skip. */
static void test_dtype_support_must_agree(void **state)
{
    (void)state;
    clops_device *d = opencl_device();
    if (!d)
        skip();
    collected c = run_op("bitwise_not", 1u << CLOPS_FLOAT32, d);
    CT_ASSERT(c.fail == 0 && c.skip > 0 && c.pass == 0);
    clops_override *h = NULL;
    CT_OK(clops_kernel_register(find_op("bitwise_not"), vendor_key(d), lax_bitwise_not, NULL,
                                "lax-bitwise-not", 0, &h));
    c = run_op("bitwise_not", 1u << CLOPS_FLOAT32, d);
    CT_OK(clops_kernel_remove(h));
    CT_ASSERT(c.fail > 0);
    CT_ASSERT_MSG(strstr(c.first_fail, "accepted dtype float32"), "message: %s", c.first_fail);
}

/* twice(x) = x + x on the CPU only. */
static clops_status twice_cpu(const clops_kernel_ctx *ctx, clops_value *args, int nargs,
                              clops_value *rets, int nrets)
{
    (void)ctx, (void)nargs, (void)nrets;
    clops_tensor *out = NULL;
    clops_status st = clops_add(args[0].v.t, args[0].v.t, clops_scalar_int(1), &out);
    if (st == CLOPS_OK)
        rets[0] = clops_value_tensor(out);
    return st;
}

/* An op with only a CPU kernel runs through the CPU fallback on a device,
 * and the results say so. */
static void test_cpu_fallback_is_reported(void **state)
{
    (void)state;
    clops_device *d = opencl_device();
    if (!d)
        skip();
    const clops_op *op = NULL;
    CT_OK(clops_op_define("chk_test_twice(Tensor self) -> Tensor", "test", &op));
    CT_OK(clops_kernel_register(op, CLOPS_KEY_CPU, twice_cpu, NULL, "twice-cpu", 0, NULL));
    collected c = run_op("chk_test_twice", 1u << CLOPS_FLOAT32, d);
    CT_ASSERT(c.pass > 0 && c.kernel == CHK_KERNEL_FALLBACK);
    CT_ASSERT_MSG(c.value_fail + c.error == 0, "%s", c.first_fail);
    /* The fallback copies inputs to the host contiguous, so a result of a
     * transposed input comes back in another layout than the reference's
     * (dispatch/fallback.c); the engine reports that as a failure of the
     * op, which is what it should do.  The values are right. */
    if (c.fail)
        print_message("note: the CPU fallback returns results in another layout than the "
                      "reference for non-contiguous inputs: %s\n",
                      c.first_fail);
}

/* The whole storage of a guarded tensor, read back (the caller frees it). */
static unsigned char *guarded_image(const chk_guarded *g)
{
    unsigned char *img = malloc(g->nbytes);
    CT_ASSERT(img != NULL);
    CT_OK(clops_tensor_to_host(g->bytes, img, g->nbytes));
    return img;
}

/* A large contiguous tensor whose values repeat a block is written one
 * block at a time and tiled on the device (benchmarks' inputs): the storage
 * holds the same bytes, guards included, as the image composed on the host;
 * a large storage without values holds the sentinel everywhere.  On the CPU
 * device and the first OpenCL device under test. */
static void test_tiled_guarded_storage_matches_the_composed_one(void **state)
{
    (void)state;
    clops_device *devs[2] = {NULL, opencl_device()};
    CT_OK(clops_device_get(0, &devs[0]));
    const int64_t period = 65536, sizes[2] = {300, 1000}; /* 4.6 periods: a partial last tile */
    const int64_t n = sizes[0] * sizes[1];
    float *values = malloc((size_t)n * sizeof *values);
    CT_ASSERT(values != NULL);
    for (int64_t i = 0; i < n; i++)
        values[i] = (float)((i % period) * 7 % 1000) - 500.0f;
    for (int k = 0; k < 2 && devs[k]; k++) {
        chk_guarded whole, tiled, empty;
        CT_OK(chk_guarded_new(devs[k], CLOPS_FLOAT32, 2, sizes, CHK_CONTIGUOUS, values, &whole));
        CT_OK(chk_guarded_new_tiled(devs[k], CLOPS_FLOAT32, 2, sizes, CHK_CONTIGUOUS, values,
                                    period, &tiled));
        CT_ASSERT(whole.nbytes == tiled.nbytes);
        unsigned char *a = guarded_image(&whole), *b = guarded_image(&tiled);
        size_t first = 0;
        while (first < whole.nbytes && a[first] == b[first])
            first++;
        CT_ASSERT_MSG(first == whole.nbytes, "device %d: byte %zu of %zu differs (%u, %u)", k,
                      first, whole.nbytes, first < whole.nbytes ? a[first] : 0,
                      first < whole.nbytes ? b[first] : 0);
        free(a);
        free(b);
        /* An output of 4 MiB: the sentinel tiled from its first 64 KiB. */
        const int64_t big[1] = {1 << 20};
        CT_OK(chk_guarded_new(devs[k], CLOPS_FLOAT32, 1, big, CHK_CONTIGUOUS, NULL, &empty));
        unsigned char *e = guarded_image(&empty);
        size_t bad = 0;
        for (size_t i = 0; i < empty.nbytes; i++)
            bad += e[i] != (unsigned char)(0xA5u ^ (unsigned char)(i * 0x3Bu));
        CT_ASSERT_MSG(bad == 0, "device %d: %zu of %zu bytes are not the sentinel", k, bad,
                      empty.nbytes);
        bool intact = false;
        CT_OK(chk_guarded_verify(&tiled, &intact, NULL, 0));
        CT_ASSERT(intact);
        free(e);
        chk_guarded_release(&whole);
        chk_guarded_release(&tiled);
        chk_guarded_release(&empty);
    }
    free(values);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ci_cases_cover_the_required_layouts),
        cmocka_unit_test(test_variants_find_their_functional_op),
        cmocka_unit_test(test_hints_shape_the_cases),
        cmocka_unit_test(test_index_lists_in_hints),
        cmocka_unit_test(test_out_of_range_must_be_refused),
        cmocka_unit_test(test_tolerance_rule),
        cmocka_unit_test(test_a_correct_op_passes),
        cmocka_unit_test(test_a_wrong_kernel_fails),
        cmocka_unit_test(test_an_out_of_bounds_write_fails),
        cmocka_unit_test(test_dtype_support_must_agree),
        cmocka_unit_test(test_cpu_fallback_is_reported),
        cmocka_unit_test(test_tiled_guarded_storage_matches_the_composed_one),
    };
    return cmocka_run_group_tests(tests, NULL, ct_teardown_group);
}
