/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/test_scan_golden.c: the scan family on every device (the CPU
 * reference and each OpenCL device) against PyTorch's own results.
 *
 * tests/data/golden_scan.json is written by tests/data/gen_golden_scan.py
 * (torch on a CPU): cumsum, cumprod, cummax, cummin and logcumsumexp of
 * inputs with NaN, infinities, signed zeros, ties and integer extremes, in
 * every dtype, 0-, 1- and 2-D.  Each case must:
 *   - fail where PyTorch raised (logcumsumexp of integers), succeed where
 *     it did not, with the same result dtype (int64 for integer cumsum);
 *   - give equal integers and bools (wrap-around included), equal indices
 *     (ties go to the later element, NaN to the last NaN), NaN where NaN,
 *     equal infinities, zeros of PyTorch's sign, and floats within
 *     torch.testing's default tolerance for the dtype.
 * The test is skipped, saying so, when the file is absent.
 */
#include <math.h>
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
    int64_t sizes[CLOPS_MAX_DIMS];
    for (int i = 0; i < nd; i++)
        sizes[i] = (int64_t)cJSON_GetArrayItem(shape, i)->valuedouble;
    int64_t dim = (int64_t)cJSON_GetObjectItem(c, "dim")->valuedouble;
    char label[512];
    char *in_text = cJSON_PrintUnformatted(cJSON_GetObjectItem(c, "input"));
    snprintf(label, sizeof label, "%s %s dim %lld input %s", op, clops_dtype_name(dt),
             (long long)dim, in_text ? in_text : "?");
    free(in_text);
    ct_set_case("%s", label);
    void *in = ct_json_values(cJSON_GetObjectItem(c, "input"), dt);
    clops_tensor *x = ct_from_values(dev, dt, nd, sizes, CT_CONTIGUOUS, in);
    free(in);
    clops_tensor *v = NULL, *ix = NULL;
    clops_status st;
    bool two = strcmp(op, "cummax") == 0 || strcmp(op, "cummin") == 0;
    if (strcmp(op, "cumsum") == 0)
        st = clops_cumsum(x, dim, CLOPS_DTYPE_NONE, &v);
    else if (strcmp(op, "cumprod") == 0)
        st = clops_cumprod(x, dim, CLOPS_DTYPE_NONE, &v);
    else if (strcmp(op, "cummax") == 0)
        st = clops_cummax(x, dim, &v, &ix);
    else if (strcmp(op, "cummin") == 0)
        st = clops_cummin(x, dim, &v, &ix);
    else
        st = clops_logcumsumexp(x, dim, &v);
    if (cJSON_GetObjectItem(c, "error")) {
        CT_ASSERT_MSG(st != CLOPS_OK, "PyTorch raised '%s' but clops succeeded",
                      cJSON_GetObjectItem(c, "error")->valuestring);
    } else {
        CT_OK(st);
        clops_dtype rdt = ct_dtype_named(cJSON_GetObjectItem(c, "out_dtype")->valuestring);
        CT_ASSERT(v && v->dtype == rdt);
        if (v && v->dtype == rdt) {
            void *want = ct_json_values(cJSON_GetObjectItem(c, "values"), rdt);
            void *got = ct_to_host(v);
            CT_ASSERT_CLOSE_HOST(got, want, rdt, nd, sizes, ct_torch_tol(rdt));
            free(want);
            free(got);
        }
        if (two && ix) {
            void *want = ct_json_values(cJSON_GetObjectItem(c, "indices"), CLOPS_INT64);
            void *got = ct_to_host(ix);
            CT_ASSERT_CLOSE_HOST(got, want, CLOPS_INT64, nd, sizes, CT_TOL_EXACT);
            free(want);
            free(got);
        }
    }
    clops_tensor_release(v);
    clops_tensor_release(ix);
    clops_tensor_release(x);
}

/* Every case of golden_scan.json on every device. */
static void test_golden_scan(void **state)
{
    (void)state;
    ct_json_replay("golden_scan.json", run_case);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_golden_scan),
    };
    return cmocka_run_group_tests(tests, NULL, ct_teardown_group);
}
