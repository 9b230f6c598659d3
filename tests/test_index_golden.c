/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/test_index_golden.c: the indexing family against PyTorch's answers
 * (tests/data/golden_index.json, written by tests/data/gen_golden_index.py)
 * on every device: advanced-indexing result shapes, negative indices that
 * wrap or fail, duplicate indices, empty index tensors, zero-size inputs,
 * list-returning splits, and the errors PyTorch raises (out-of-range
 * indices are checked on the devices too, where the kernel reports them).
 *
 * Every case is called boxed by its schema name, so the test exercises the
 * registrations, the boxed adapters and the Tensor[] results as well.
 */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clops/dispatch.h"
#include "support/clops_test.h"
#include "ops/tensor/tensor.h"

#define GOLDEN_FILE CLOPS_TEST_DATA_DIR "/golden_index.json"

/* A tensor on dev from {"dtype", "shape", "values"}. */
static clops_tensor *json_tensor(const cJSON *j, clops_device *dev)
{
    clops_dtype dt;
    CT_OK(clops_dtype_from_name(cJSON_GetObjectItem(j, "dtype")->valuestring, &dt));
    const cJSON *shape = cJSON_GetObjectItem(j, "shape"), *vals = cJSON_GetObjectItem(j, "values");
    int ndim = cJSON_GetArraySize(shape), n = cJSON_GetArraySize(vals);
    int64_t sizes[CLOPS_MAX_DIMS];
    for (int d = 0; d < ndim; d++)
        sizes[d] = (int64_t)cJSON_GetArrayItem(shape, d)->valuedouble;
    double *buf = calloc((size_t)n + 1, sizeof *buf);
    for (int k = 0; k < n; k++) {
        const cJSON *v = cJSON_GetArrayItem(vals, k);
        buf[k] = cJSON_IsBool(v)     ? (double)cJSON_IsTrue(v)
                 : cJSON_IsString(v) ? strtod(v->valuestring, NULL) /* "nan", "inf" */
                                     : v->valuedouble;
    }
    clops_tensor *h = NULL, *t = NULL;
    CT_OK(clops_from_host(ct_cpu(), CLOPS_FLOAT64, ndim, sizes, buf, (size_t)n * sizeof *buf, &h));
    CT_OK(core_to_copy(h, dt, dev, &t));
    clops_tensor_release(h);
    free(buf);
    return t;
}

/* Compares a result tensor with the expected JSON tensor exactly. */
static void expect_tensor(const clops_tensor *r, const cJSON *j, const char *what)
{
    clops_device *cpu = ct_cpu();
    clops_tensor *e = json_tensor(j, cpu);
    CT_ASSERT_MSG(r->dtype == e->dtype, "%s: dtype %s, PyTorch %s", what,
                  clops_dtype_name(r->dtype), clops_dtype_name(e->dtype));
    CT_ASSERT_MSG(r->ndim == e->ndim && !memcmp(r->sizes, e->sizes, sizeof(int64_t) * (size_t)r->ndim),
                  "%s: shape differs from PyTorch's", what);
    /* Exact, but for float sums whose order PyTorch chooses differently
     * (embedding_dense_backward's scaled rows): 2 ULP. */
    if (r->dtype == e->dtype && r->ndim == e->ndim)
        CT_ASSERT_CLOSE(r, e, clops_dtype_is_floating(r->dtype) ? ct_tol_ulp(2) : CT_TOL_EXACT);
    clops_tensor_release(e);
}

/* Runs one case on dev. */
static void run_case(const cJSON *c, clops_device *dev, int idx)
{
    const char *opname = cJSON_GetObjectItem(c, "op")->valuestring;
    ct_set_case("case %d: %s", idx, opname);
    const clops_op *op = NULL;
    CT_OK(clops_op_find(opname, &op));
    const cJSON *args = cJSON_GetObjectItem(c, "args"), *res = cJSON_GetObjectItem(c, "result");
    int na = cJSON_GetArraySize(args);
    clops_value v[16];
    clops_tensor *owned[64];
    CT_ASSERT(na <= 16);
    clops_tensor *lists[8][16];
    int64_t ints[8][16];
    int no = 0, nl = 0, ni = 0;
    for (int i = 0; i < na; i++) {
        const cJSON *a = cJSON_GetArrayItem(args, i), *x;
        if ((x = cJSON_GetObjectItem(a, "t"))) {
            owned[no] = json_tensor(x, dev);
            v[i] = clops_value_tensor(owned[no++]);
        } else if ((x = cJSON_GetObjectItem(a, "tl"))) {
            int n = cJSON_GetArraySize(x);
            for (int k = 0; k < n; k++) {
                const cJSON *e = cJSON_GetArrayItem(x, k);
                lists[nl][k] = cJSON_IsNull(e) ? NULL : (owned[no++] = json_tensor(e, dev));
            }
            v[i] = (clops_value){.tag = CLOPS_V_TENSOR_LIST, .v.tensors = {lists[nl++], n}};
        } else if ((x = cJSON_GetObjectItem(a, "ints"))) {
            int n = cJSON_GetArraySize(x);
            for (int k = 0; k < n; k++)
                ints[ni][k] = (int64_t)cJSON_GetArrayItem(x, k)->valuedouble;
            v[i] = clops_value_ints(ints[ni++], n);
        } else if ((x = cJSON_GetObjectItem(a, "i")) && !cJSON_GetObjectItem(a, "dtype")) {
            v[i] = clops_value_int((int64_t)x->valuedouble);
        } else if ((x = cJSON_GetObjectItem(a, "s"))) {
            double d = x->valuedouble;
            v[i] = clops_value_scalar(d == (double)(int64_t)d ? clops_scalar_int((int64_t)d)
                                                              : clops_scalar_float(d));
        } else if ((x = cJSON_GetObjectItem(a, "dev"))) {
            v[i] = clops_value_device(dev);
        } else if ((x = cJSON_GetObjectItem(a, "dtype"))) {
            clops_dtype dt;
            CT_OK(clops_dtype_from_name(x->valuestring, &dt));
            v[i] = clops_value_dtype(dt);
        } else if ((x = cJSON_GetObjectItem(a, "f"))) {
            v[i] = clops_value_float(x->valuedouble);
        } else if ((x = cJSON_GetObjectItem(a, "str"))) {
            v[i] = clops_value_string(x->valuestring);
        } else if ((x = cJSON_GetObjectItem(a, "b"))) {
            v[i] = clops_value_bool(cJSON_IsTrue(x));
        } else {
            v[i] = clops_value_none();
        }
    }
    clops_value r = clops_value_none();
    clops_status st = clops_call_boxed(op, v, na, &r, 1);
    if (cJSON_GetObjectItem(res, "error")) {
        CT_ASSERT_MSG(st != CLOPS_OK, "PyTorch raises (%s) but clops succeeded",
                      cJSON_GetObjectItem(c, "why")->valuestring);
        if (st != CLOPS_OK && strstr(cJSON_GetObjectItem(c, "why")->valuestring, "out of"))
            CT_ASSERT_MSG(strstr(clops_last_error(), opname) || strstr(clops_last_error(), "index"),
                          "error does not name the op: %s", clops_last_error());
    } else {
        CT_OK(st);
        const cJSON *list = cJSON_GetObjectItem(res, "list");
        if (st == CLOPS_OK && list) {
            CT_ASSERT(r.tag == CLOPS_V_TENSOR_LIST);
            CT_ASSERT_MSG(r.v.tensors.len == cJSON_GetArraySize(list), "%d pieces, PyTorch %d",
                          r.v.tensors.len, cJSON_GetArraySize(list));
            for (int k = 0; k < r.v.tensors.len && k < cJSON_GetArraySize(list); k++)
                expect_tensor(r.v.tensors.data[k], cJSON_GetArrayItem(list, k), "piece");
        } else if (st == CLOPS_OK) {
            CT_ASSERT(r.tag == CLOPS_V_TENSOR);
            expect_tensor(r.v.t, cJSON_GetObjectItem(res, "t"), "result");
        }
    }
    clops_value_clear(&r);
    for (int i = 0; i < no; i++)
        clops_tensor_release(owned[i]);
}

static void test_golden(void **state)
{
    (void)state;
    char *text = NULL;
    FILE *f = fopen(GOLDEN_FILE, "rb");
    CT_ASSERT(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    text = malloc((size_t)n + 1);
    CT_ASSERT(fread(text, 1, (size_t)n, f) == (size_t)n);
    text[n] = 0;
    fclose(f);
    cJSON *root = cJSON_Parse(text);
    free(text);
    CT_ASSERT(root);
    const cJSON *cases = cJSON_GetObjectItem(root, "cases");
    CT_ASSERT(cJSON_GetArraySize(cases) > 50);
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_devices(devs, CT_MAX_DEVICES);
    for (int d = 0; d < nd; d++) {
        ct_set_device(devs[d]);
        int i = 0;
        for (const cJSON *c = cases->child; c; c = c->next)
            run_case(c, devs[d], i++);
    }
    ct_clear_context();
    cJSON_Delete(root);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_golden)};
    return cmocka_run_group_tests(tests, NULL, ct_teardown_group);
}
