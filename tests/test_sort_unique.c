/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/test_sort_unique.c: mode, the unique family, bincount and histc
 * (ops/sort/sort_unique.c, ops/sort/sort_count.c, the sort_mode..sort_histc kernels
 * of cl_kernels/sort.cl).
 *
 * What each test pins down:
 *   - PyTorch's results bit for bit on every device (the CPU reference and
 *     each OpenCL device): tests/data/golden_sort_unique.json, written by
 *     tests/data/gen_golden_sort_unique.py (ties, NaN, -0.0, integer
 *     extremes, bool, float16/bfloat16, empty and one-element inputs, result
 *     dtypes, errors);
 *   - the OpenCL devices against the CPU reference at sizes that use many
 *     work-groups (the merge-path sort, the multi-block scan, the
 *     lexicographic row sort), with strided inputs;
 *   - determinism: two runs give the same bits (weighted bincount sums,
 *     histc counts).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clops/ops.h"
#include "support/clops_test.h"
#include "support/ct_json.h"

#define I64 CT_I64

/* A tensor of the case's dtype/shape/values on dev (keys dtype, shape,
 * values named by the arguments). */
static clops_tensor *json_tensor(clops_device *dev, const cJSON *c, const char *dkey,
                                 const char *skey, const char *vkey)
{
    clops_dtype dt = ct_dtype_named(cJSON_GetObjectItem(c, dkey)->valuestring);
    const cJSON *shape = skey ? cJSON_GetObjectItem(c, skey) : NULL;
    const cJSON *vals = cJSON_GetObjectItem(c, vkey);
    int nd = shape ? cJSON_GetArraySize(shape) : 1;
    int64_t sizes[CLOPS_MAX_DIMS];
    for (int i = 0; i < nd; i++)
        sizes[i] = shape ? (int64_t)cJSON_GetArrayItem(shape, i)->valuedouble
                         : cJSON_GetArraySize(vals);
    void *buf = ct_json_values(vals, dt);
    clops_tensor *t = ct_from_values(dev, dt, nd, sizes, CT_CONTIGUOUS, buf);
    free(buf);
    return t;
}

/* An integer argument of the case. */
static int64_t arg_int(const cJSON *c, const char *name)
{
    return (int64_t)cJSON_GetObjectItem(cJSON_GetObjectItem(c, "args"), name)->valuedouble;
}

/* A bool argument of the case. */
static bool arg_bool(const cJSON *c, const char *name)
{
    return cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetObjectItem(c, "args"), name));
}

/* Runs one op of the file; up to three results into r. */
static clops_status run_op(clops_device *dev, const cJSON *c, clops_tensor *x,
                           clops_tensor *r[3])
{
    const char *op = cJSON_GetObjectItem(c, "op")->valuestring;
    if (strcmp(op, "mode") == 0)
        return clops_mode(x, arg_int(c, "dim"), arg_bool(c, "keepdim"), &r[0], &r[1]);
    if (strcmp(op, "_unique2") == 0)
        return clops__unique2(x, true, arg_bool(c, "inverse"), arg_bool(c, "counts"), &r[0],
                              &r[1], &r[2]);
    if (strcmp(op, "unique_consecutive") == 0)
        return clops_unique_consecutive(x, arg_bool(c, "inverse"), arg_bool(c, "counts"), NULL,
                                        &r[0], &r[1], &r[2]);
    if (strcmp(op, "unique_consecutive_dim") == 0) {
        int64_t d = arg_int(c, "dim");
        return clops_unique_consecutive(x, true, true, &d, &r[0], &r[1], &r[2]);
    }
    if (strcmp(op, "unique_dim") == 0)
        return clops_unique_dim(x, arg_int(c, "dim"), true, true, true, &r[0], &r[1], &r[2]);
    if (strcmp(op, "unique_dim_consecutive") == 0)
        return clops_unique_dim_consecutive(x, arg_int(c, "dim"), true, true, &r[0], &r[1],
                                            &r[2]);
    if (strcmp(op, "bincount") == 0) {
        clops_tensor *w = cJSON_GetObjectItem(c, "weights")
                              ? json_tensor(dev, c, "wdtype", NULL, "weights")
                              : NULL;
        clops_status st = clops_bincount(x, w, arg_int(c, "minlength"), &r[0]);
        clops_tensor_release(w);
        return st;
    }
    const cJSON *a = cJSON_GetObjectItem(c, "args");
    return clops_histc(x, arg_int(c, "bins"),
                       clops_scalar_float(cJSON_GetObjectItem(a, "min")->valuedouble),
                       clops_scalar_float(cJSON_GetObjectItem(a, "max")->valuedouble), &r[0]);
}

/* Replays one golden case on one device: PyTorch's error, or its results
 * (dtype, shape, values) bit for bit, zero signs included. */
static void run_case(clops_device *dev, const cJSON *c)
{
    clops_dtype dt = ct_dtype_named(cJSON_GetObjectItem(c, "dtype")->valuestring);
    const cJSON *wdt = cJSON_GetObjectItem(c, "wdtype");
    if (!ct_device_supports(dev, dt) || !ct_device_supports(dev, CLOPS_FLOAT64) ||
        (wdt && !ct_device_supports(dev, ct_dtype_named(wdt->valuestring))))
        return;
    char *in_text = cJSON_PrintUnformatted(cJSON_GetObjectItem(c, "input"));
    char *args_text = cJSON_PrintUnformatted(cJSON_GetObjectItem(c, "args"));
    ct_set_case("%s %s %s input %s", cJSON_GetObjectItem(c, "op")->valuestring,
                clops_dtype_name(dt), args_text ? args_text : "?", in_text ? in_text : "?");
    free(in_text);
    free(args_text);
    clops_tensor *x = json_tensor(dev, c, "dtype", "shape", "input");
    clops_tensor *r[3] = {NULL, NULL, NULL};
    clops_status st = run_op(dev, c, x, r);
    const cJSON *err = cJSON_GetObjectItem(c, "error");
    if (err) {
        CT_ASSERT_MSG(st != CLOPS_OK, "PyTorch raised '%s' but clops succeeded",
                      err->valuestring);
    } else {
        CT_OK(st);
        const cJSON *outs = cJSON_GetObjectItem(c, "outputs");
        int k = 0;
        for (const cJSON *o = outs ? outs->child : NULL; o && st == CLOPS_OK; o = o->next, k++) {
            clops_dtype odt = ct_dtype_named(cJSON_GetObjectItem(o, "dtype")->valuestring);
            const cJSON *shape = cJSON_GetObjectItem(o, "shape");
            int nd = cJSON_GetArraySize(shape);
            int64_t sizes[CLOPS_MAX_DIMS];
            for (int i = 0; i < nd; i++)
                sizes[i] = (int64_t)cJSON_GetArrayItem(shape, i)->valuedouble;
            CT_ASSERT_MSG(r[k] != NULL, "result %d missing", k);
            CT_ASSERT_MSG(r[k]->dtype == odt && r[k]->ndim == nd,
                          "result %d: dtype %s rank %d, PyTorch %s rank %d", k,
                          clops_dtype_name(r[k]->dtype), r[k]->ndim, clops_dtype_name(odt), nd);
            for (int i = 0; i < nd; i++)
                CT_ASSERT_MSG(r[k]->sizes[i] == sizes[i], "result %d: size %lld of dim %d, "
                              "PyTorch %lld", k, (long long)r[k]->sizes[i], i,
                              (long long)sizes[i]);
            void *want = ct_json_values(cJSON_GetObjectItem(o, "values"), odt);
            void *got = ct_to_host(r[k]);
            CT_ASSERT_CLOSE_HOST(got, want, odt, nd, sizes, CT_TOL_EXACT);
            free(want);
            free(got);
        }
    }
    for (int k = 0; k < 3; k++)
        clops_tensor_release(r[k]);
    clops_tensor_release(x);
}

/* Every case of golden_sort_unique.json on every device. */
static void test_golden(void **state)
{
    (void)state;
    ct_json_replay("golden_sort_unique.json", run_case);
}

/* Results of an op on an OpenCL tensor and on its CPU copy equal (every
 * result bitwise). */
static void assert_same(clops_tensor *const a[3], clops_tensor *const e[3])
{
    for (int k = 0; k < 3; k++)
        if (a[k] || e[k]) {
            CT_ASSERT_MSG(a[k] && e[k], "result %d present on one side only", k);
            CT_ASSERT_CLOSE(a[k], e[k], CT_TOL_EXACT);
        }
}

/* Releases up to three results. */
static void release3(clops_tensor *r[3])
{
    for (int k = 0; k < 3; k++) {
        clops_tensor_release(r[k]);
        r[k] = NULL;
    }
}

/* mode and the unique family at sizes with many work-groups, strided
 * inputs, against the CPU reference. */
static void test_large_vs_cpu(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_opencl_devices(devs, CT_MAX_DEVICES);
    for (int di = 0; di < nd; di++) {
        ct_set_device(devs[di]);
        static const clops_dtype dts[] = {CLOPS_FLOAT32, CLOPS_INT64, CLOPS_FLOAT16};
        for (size_t t = 0; t < CT_COUNT(dts); t++) {
            if (!ct_device_supports(devs[di], dts[t]))
                continue;
            /* 5000 x 3 transposed: 1-D uniques of 15000 elements (merge
             * path, multi-block scan), rows of 3 (lexicographic sort). */
            clops_tensor *x = ct_random(devs[di], dts[t], 2, I64(5000, 3), CT_TRANSPOSED,
                                        PW_DOMAIN_SMALL, 7 + t);
            clops_tensor *xc = ct_to_cpu(x);
            clops_tensor *a[3] = {0}, *e[3] = {0};
            ct_set_case("_unique2 %s [5000, 3] transposed", clops_dtype_name(dts[t]));
            CT_OK(clops__unique2(x, true, true, true, &a[0], &a[1], &a[2]));
            CT_OK(clops__unique2(xc, true, true, true, &e[0], &e[1], &e[2]));
            assert_same(a, e);
            release3(a);
            release3(e);
            ct_set_case("unique_consecutive %s", clops_dtype_name(dts[t]));
            CT_OK(clops_unique_consecutive(x, true, true, NULL, &a[0], &a[1], &a[2]));
            CT_OK(clops_unique_consecutive(xc, true, true, NULL, &e[0], &e[1], &e[2]));
            assert_same(a, e);
            release3(a);
            release3(e);
            for (int64_t dim = 0; dim < 2; dim++) {
                ct_set_case("unique_dim %s dim %lld", clops_dtype_name(dts[t]), (long long)dim);
                CT_OK(clops_unique_dim(x, dim, true, true, true, &a[0], &a[1], &a[2]));
                CT_OK(clops_unique_dim(xc, dim, true, true, true, &e[0], &e[1], &e[2]));
                assert_same(a, e);
                release3(a);
                release3(e);
                ct_set_case("mode %s dim %lld", clops_dtype_name(dts[t]), (long long)dim);
                CT_OK(clops_mode(x, dim, false, &a[0], &a[1]));
                CT_OK(clops_mode(xc, dim, false, &e[0], &e[1]));
                assert_same(a, e);
                release3(a);
                release3(e);
            }
            clops_tensor_release(x);
            clops_tensor_release(xc);
        }
    }
    ct_clear_context();
}

/* bincount (with and without float32/float64 weights) and histc over many
 * work-groups and sliced inputs, against the CPU reference, twice
 * (determinism: the same bits). */
static void test_counts_vs_cpu(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_opencl_devices(devs, CT_MAX_DEVICES);
    for (int di = 0; di < nd; di++) {
        ct_set_device(devs[di]);
        int64_t n = 30000;
        int64_t *vals = malloc(sizeof(int64_t) * (size_t)n);
        ct_rng rng = ct_rng_seeded(11);
        for (int64_t i = 0; i < n; i++) /* skewed: bin 0 holds about half */
            vals[i] = ct_rng_uniform(&rng) < 0.5 ? 0 : ct_rng_range(&rng, 0, 700);
        clops_tensor *x = ct_from_values(devs[di], CLOPS_INT64, 1, &n, CT_SLICED, vals);
        clops_tensor *xc = ct_to_cpu(x);
        free(vals);
        clops_tensor *a = NULL, *b = NULL, *e = NULL;
        ct_set_case("bincount int64 [30000] sliced");
        CT_OK(clops_bincount(x, NULL, 5, &a));
        CT_OK(clops_bincount(xc, NULL, 5, &e));
        CT_ASSERT_CLOSE(a, e, CT_TOL_EXACT);
        clops_tensor_release(a);
        clops_tensor_release(e);
        static const clops_dtype wdts[] = {CLOPS_FLOAT32, CLOPS_FLOAT64};
        for (size_t t = 0; t < CT_COUNT(wdts); t++) {
            if (!ct_device_supports(devs[di], wdts[t]) ||
                !ct_device_supports(devs[di], CLOPS_FLOAT64))
                continue;
            ct_set_case("bincount weights %s", clops_dtype_name(wdts[t]));
            clops_tensor *w =
                ct_random(devs[di], wdts[t], 1, &n, CT_TRANSPOSED, PW_DOMAIN_SMALL, 12 + t);
            clops_tensor *wc = ct_to_cpu(w);
            CT_OK(clops_bincount(x, w, 0, &a));
            CT_OK(clops_bincount(x, w, 0, &b));
            CT_OK(clops_bincount(xc, wc, 0, &e));
            CT_ASSERT_CLOSE(a, e, CT_TOL_EXACT);
            CT_ASSERT_CLOSE(a, b, CT_TOL_EXACT);
            clops_tensor_release(a);
            clops_tensor_release(b);
            clops_tensor_release(e);
            clops_tensor_release(w);
            clops_tensor_release(wc);
        }
        clops_tensor_release(x);
        clops_tensor_release(xc);
        static const clops_dtype hdts[] = {CLOPS_FLOAT32, CLOPS_FLOAT16, CLOPS_BFLOAT16,
                                           CLOPS_FLOAT64};
        for (size_t t = 0; t < CT_COUNT(hdts); t++) {
            if (!ct_device_supports(devs[di], hdts[t]) ||
                !ct_device_supports(devs[di], CLOPS_FLOAT64))
                continue;
            clops_tensor *h = ct_random(devs[di], hdts[t], 2, I64(300, 200), CT_SLICED,
                                        PW_DOMAIN_ANY, 20 + t);
            clops_tensor *hc = ct_to_cpu(h);
            for (int r = 0; r < 2; r++) {
                ct_set_case("histc %s [300, 200] sliced %s", clops_dtype_name(hdts[t]),
                            r ? "range [-2, 3]" : "bins 37, range [-1.5, 1.25]");
                clops_scalar lo = clops_scalar_float(r ? -2.0 : -1.5);
                clops_scalar hi = clops_scalar_float(r ? 3.0 : 1.25);
                int64_t bins = r ? 1000 : 37;
                CT_OK(clops_histc(h, bins, lo, hi, &a));
                CT_OK(clops_histc(h, bins, lo, hi, &b));
                CT_OK(clops_histc(hc, bins, lo, hi, &e));
                CT_ASSERT_CLOSE(a, e, CT_TOL_EXACT);
                CT_ASSERT_CLOSE(a, b, CT_TOL_EXACT);
                clops_tensor_release(a);
                clops_tensor_release(b);
                clops_tensor_release(e);
            }
            clops_tensor_release(h);
            clops_tensor_release(hc);
        }
    }
    ct_clear_context();
}

/* out= forms into guarded views: resized, the guards intact, PyTorch's
 * values. */
static void test_out_forms(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_opencl_devices(devs, CT_MAX_DEVICES);
    for (int di = 0; di < nd; di++) {
        ct_set_device(devs[di]);
        ct_set_case("mode.values into transposed guarded views, keepdim");
        clops_tensor *x = ct_random(devs[di], CLOPS_INT32, 2, I64(6, 9), CT_CONTIGUOUS,
                                    PW_DOMAIN_SMALL, 3);
        clops_tensor *xc = ct_to_cpu(x), *ev = NULL, *ei = NULL;
        ct_guarded gv = ct_guarded_new(devs[di], CLOPS_INT32, 2, I64(6, 1), CT_TRANSPOSED);
        ct_guarded gi = ct_guarded_new(devs[di], CLOPS_INT64, 2, I64(6, 1), CT_SLICED);
        CT_OK(clops_mode_values_out(x, 1, true, gv.t, gi.t));
        CT_GUARDS_INTACT(&gv);
        CT_GUARDS_INTACT(&gi);
        CT_OK(clops_mode(xc, 1, true, &ev, &ei));
        CT_ASSERT_CLOSE(gv.t, ev, CT_TOL_EXACT);
        CT_ASSERT_CLOSE(gi.t, ei, CT_TOL_EXACT);
        ct_guarded_release(&gv);
        ct_guarded_release(&gi);
        clops_tensor_release(ev);
        clops_tensor_release(ei);
        ct_set_case("_unique2.out resizes its outputs; a wrong out dtype is refused");
        clops_tensor *o[3] = {0}, *e[3] = {0};
        CT_OK(clops_empty(devs[di], CLOPS_INT32, 1, I64(0), &o[0]));
        CT_OK(clops_empty(devs[di], CLOPS_INT64, 1, I64(2), &o[1]));
        CT_OK(clops_empty(devs[di], CLOPS_INT64, 1, I64(100), &o[2]));
        CT_OK(clops__unique2_out(x, true, true, true, o[0], o[1], o[2]));
        CT_OK(clops__unique2(xc, true, true, true, &e[0], &e[1], &e[2]));
        assert_same(o, e);
        CT_ASSERT(clops__unique2_out(x, true, true, true, o[1], o[1], o[2]) != CLOPS_OK);
        release3(o);
        release3(e);
        ct_set_case("histc.out into a float64 tensor for float32 input is refused");
        clops_tensor *h = ct_random(devs[di], CLOPS_FLOAT32, 1, I64(50), CT_CONTIGUOUS,
                                    PW_DOMAIN_ANY, 4);
        CT_OK(clops_empty(devs[di], CLOPS_FLOAT32, 1, I64(3), &o[0]));
        CT_OK(clops_histc_out(h, 10, clops_scalar_float(-1), clops_scalar_float(1), o[0]));
        CT_ASSERT(o[0]->ndim == 1 && o[0]->sizes[0] == 10);
        clops_tensor_release(o[0]);
        CT_OK(clops_empty(devs[di], CLOPS_FLOAT64, 1, I64(10), &o[0]));
        CT_ASSERT(clops_histc_out(h, 10, clops_scalar_float(-1), clops_scalar_float(1), o[0]) !=
                  CLOPS_OK);
        clops_tensor_release(o[0]);
        clops_tensor_release(h);
        clops_tensor_release(x);
        clops_tensor_release(xc);
    }
    ct_clear_context();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_golden),
        cmocka_unit_test(test_large_vs_cpu),
        cmocka_unit_test(test_counts_vs_cpu),
        cmocka_unit_test(test_out_forms),
    };
    return cmocka_run_group_tests(tests, NULL, ct_teardown_group);
}
