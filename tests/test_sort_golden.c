/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/test_sort_golden.c: the sort family on every device (the CPU
 * reference and each OpenCL device) against PyTorch's own results.
 *
 * tests/data/golden_sort.json is written by tests/data/gen_golden_sort.py
 * (torch on a CPU): stable sorts ascending and descending of inputs with
 * NaN, infinities, signed zeros, denormals, ties, integer extremes and
 * bool, 1- and 2-D along each dim; topk, kthvalue, median and nanmedian
 * values (and the
 * errors PyTorch raises for bool).  Each case must give PyTorch's values
 * bit for bit (zeros of the input's sign: a sort moves elements, it never
 * computes them) and, for sorts, PyTorch's indices; the selections
 * equal values (a tie between -0.0 and +0.0 may pick either); searchsorted
 * (left, right, side, sorter, N-D boundaries, NaN, mixed dtypes) PyTorch's
 * positions.  The test is skipped,
 * saying so, when the file is absent.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clops/ops.h"
#include "support/clops_test.h"
#include "support/ct_json.h"

/* Replays one case on one device. */
static void run_case(clops_device *dev, const cJSON *c)
{
    const char *op = cJSON_GetObjectItem(c, "op")->valuestring;
    clops_dtype dt = ct_dtype_named(cJSON_GetObjectItem(c, "dtype")->valuestring);
    if (!ct_device_supports(dev, dt))
        return;
    const cJSON *shape = cJSON_GetObjectItem(c, "shape");
    int nd = cJSON_GetArraySize(shape);
    int64_t sizes[CLOPS_MAX_DIMS], osz[CLOPS_MAX_DIMS];
    for (int i = 0; i < nd; i++)
        sizes[i] = osz[i] = (int64_t)cJSON_GetArrayItem(shape, i)->valuedouble;
    int64_t dim = (int64_t)cJSON_GetObjectItem(c, "dim")->valuedouble;
    int d = (int)((dim + nd) % nd);
    const cJSON *jk = cJSON_GetObjectItem(c, "k");
    int64_t k = jk ? (int64_t)jk->valuedouble : 0;
    bool flag = cJSON_IsTrue(cJSON_GetObjectItem(c, "descending")) ||
                cJSON_IsTrue(cJSON_GetObjectItem(c, "largest"));
    char *in_text = cJSON_PrintUnformatted(cJSON_GetObjectItem(c, "input"));
    ct_set_case("%s %s dim %lld k %lld %s input %s", op, clops_dtype_name(dt), (long long)dim,
                (long long)k, flag ? "descending/largest" : "ascending/smallest",
                in_text ? in_text : "?");
    free(in_text);
    void *in = ct_json_values(cJSON_GetObjectItem(c, "input"), dt);
    clops_tensor *x = ct_from_values(dev, dt, nd, sizes, CT_CONTIGUOUS, in);
    free(in);
    clops_tensor *v = NULL, *ix = NULL;
    clops_status st;
    int ond = nd;
    if (strcmp(op, "searchsorted") == 0) {
        clops_dtype bdt = ct_dtype_named(cJSON_GetObjectItem(c, "bdtype")->valuestring);
        const cJSON *bs = cJSON_GetObjectItem(c, "bshape");
        int bnd = cJSON_GetArraySize(bs);
        int64_t bsz[CLOPS_MAX_DIMS];
        for (int i = 0; i < bnd; i++)
            bsz[i] = (int64_t)cJSON_GetArrayItem(bs, i)->valuedouble;
        void *bv = ct_json_values(cJSON_GetObjectItem(c, "boundaries"), bdt);
        clops_tensor *b = ct_from_values(dev, bdt, bnd, bsz, CT_CONTIGUOUS, bv);
        free(bv);
        clops_tensor *so = NULL;
        const cJSON *js = cJSON_GetObjectItem(c, "sorter");
        if (cJSON_IsArray(js)) {
            void *sv = ct_json_values(js, CLOPS_INT64);
            so = ct_from_values(dev, CLOPS_INT64, bnd, bsz, CT_CONTIGUOUS, sv);
            free(sv);
        }
        const cJSON *side = cJSON_GetObjectItem(c, "side");
        st = clops_searchsorted(b, x, false, cJSON_IsTrue(cJSON_GetObjectItem(c, "right")),
                                cJSON_IsString(side) ? side->valuestring : NULL, so, &ix);
        clops_tensor_release(b);
        clops_tensor_release(so);
    } else if (strcmp(op, "sort") == 0) {
        bool stable = true;
        st = clops_sort_stable(x, &stable, dim, flag, &v, &ix);
    } else if (strcmp(op, "topk") == 0) {
        st = clops_topk(x, k, dim, flag, true, &v, &ix);
        osz[d] = k;
    } else {
        if (strcmp(op, "median") == 0)
            st = clops_median_dim(x, dim, false, &v, &ix);
        else if (strcmp(op, "nanmedian") == 0)
            st = clops_nanmedian_dim(x, dim, false, &v, &ix);
        else
            st = clops_kthvalue(x, k, dim, false, &v, &ix);
        for (int i = d; i + 1 < nd; i++)
            osz[i] = osz[i + 1];
        ond = nd - 1;
    }
    if (cJSON_GetObjectItem(c, "error")) {
        CT_ASSERT_MSG(st != CLOPS_OK, "PyTorch raised '%s' but clops succeeded",
                      cJSON_GetObjectItem(c, "error")->valuestring);
    } else {
        CT_OK(st);
        if (v) {
            CT_ASSERT(v->dtype == dt && v->ndim == ond);
            void *want = ct_json_values(cJSON_GetObjectItem(c, "values"), dt);
            void *got = ct_to_host(v);
            /* Selections pick among ties in their own order: equal
             * values, but a -0.0 may stand where PyTorch has +0.0. */
            ct_tol tol = CT_TOL_EXACT;
            tol.signed_zero = strcmp(op, "sort") == 0;
            CT_ASSERT_CLOSE_HOST(got, want, dt, ond, osz, tol);
            free(want);
            free(got);
        }
        const cJSON *ji = cJSON_GetObjectItem(c, "indices");
        if (ji && ix) {
            void *want = ct_json_values(ji, CLOPS_INT64);
            void *got = ct_to_host(ix);
            CT_ASSERT_CLOSE_HOST(got, want, CLOPS_INT64, ond, osz, CT_TOL_EXACT);
            free(want);
            free(got);
        }
    }
    clops_tensor_release(v);
    clops_tensor_release(ix);
    clops_tensor_release(x);
}

/* Every case of golden_sort.json on every device. */
static void test_golden_sort(void **state)
{
    (void)state;
    ct_json_replay("golden_sort.json", run_case);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_golden_sort),
    };
    return cmocka_run_group_tests(tests, NULL, ct_teardown_group);
}
