/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/test_index_scatter.c: the writing ops of the indexing family
 * (segment plans) on every device: heavy duplicate indices summed
 * deterministically (bitwise equal across runs and equal to the CPU
 * reference, which folds in the same order), out-of-range indices reported
 * by each op, and the in-place forms writing into views.
 */
#include <stdlib.h>
#include <string.h>

#include "clops/ops.h"
#include "support/clops_test.h"
#include "ops/tensor/tensor.h"

/* Random int64 indices in [0, hi) on dev. */
static clops_tensor *rand_index(clops_device *dev, int ndim, const int64_t *sizes, int64_t hi,
                                uint64_t seed)
{
    int64_t n = ct_numel(ndim, sizes);
    int64_t *v = malloc((size_t)n * sizeof *v);
    ct_rng r = ct_rng_seeded(seed);
    for (int64_t i = 0; i < n; i++)
        v[i] = ct_rng_range(&r, 0, hi - 1);
    clops_tensor *t = NULL;
    CT_OK(clops_from_host(dev, CLOPS_INT64, ndim, sizes, v, (size_t)n * sizeof *v, &t));
    free(v);
    return t;
}

/* Bitwise equality of two tensors' bytes (same dtype and shape). */
static bool same_bits(const clops_tensor *a, const clops_tensor *b)
{
    void *x = ct_to_host(a), *y = ct_to_host(b);
    bool same = memcmp(x, y, (size_t)tensor_numel(a) * clops_dtype_size(a->dtype)) == 0;
    free(x);
    free(y);
    return same;
}

/* scatter_add, index_add, index_put_(accumulate) (rows of 5 and 37),
 * embedding_dense_backward, scatter_reduce (prod, mean, amax, amin, with
 * and without self) and scatter (last duplicate wins) with heavy
 * duplicates: three runs give the same bits, and the device (line scans
 * for the scatters, segment plans for the rest) matches the CPU reference
 * bit for bit (same fold order, no contraction). */
static void test_determinism(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_devices(devs, CT_MAX_DEVICES);
    enum { NOPS = 16 };
    clops_tensor *ref[NOPS] = {NULL};
    for (int d = 0; d < nd; d++) {
        clops_device *dev = devs[d];
        ct_set_device(dev);
        clops_tensor *self = ct_random(dev, CLOPS_FLOAT32, 2, CT_I64(6, 5), CT_CONTIGUOUS,
                                       PW_DOMAIN_UNIT, 1);
        clops_tensor *src = ct_random(dev, CLOPS_FLOAT32, 2, CT_I64(6, 3000), CT_TRANSPOSED,
                                      PW_DOMAIN_UNIT, 2);
        clops_tensor *idx = rand_index(dev, 2, CT_I64(6, 3000), 5, 3);
        clops_tensor *rows = rand_index(dev, 1, CT_I64(3000), 6, 4);
        clops_tensor *rsrc = ct_random(dev, CLOPS_FLOAT32, 2, CT_I64(3000, 5), CT_SLICED,
                                       PW_DOMAIN_UNIT, 5);
        clops_tensor *grad = ct_random(dev, CLOPS_FLOAT32, 3, CT_I64(30, 100, 5), CT_CONTIGUOUS,
                                       PW_DOMAIN_UNIT, 6);
        clops_tensor *ids = rand_index(dev, 2, CT_I64(30, 100), 6, 7);
        clops_tensor *idx0 = rand_index(dev, 2, CT_I64(3000, 5), 6, 8);
        /* rows of 37 contiguous elements: CPU devices fold two blocks of
         * 16 side by side and a remainder of 5 (cl_kernels/index.cl) */
        clops_tensor *self37 = ct_random(dev, CLOPS_FLOAT32, 2, CT_I64(6, 37), CT_CONTIGUOUS,
                                         PW_DOMAIN_UNIT, 9);
        clops_tensor *rsrc37 = ct_random(dev, CLOPS_FLOAT32, 2, CT_I64(3000, 37), CT_CONTIGUOUS,
                                         PW_DOMAIN_UNIT, 10);
        clops_tensor *res[NOPS][3] = {{NULL}};
        static const char *const reds[] = {"prod", "mean", "amax", "amin"};
        for (int run = 0; run < 3; run++) {
            CT_OK(clops_scatter_add(self, 1, idx, src, &res[0][run]));
            CT_OK(clops_index_add(self, 0, rows, rsrc, clops_scalar_float(0.5), &res[1][run]));
            clops_tensor *const li[1] = {rows};
            CT_OK(clops_index_put(self, li, 1, rsrc, true, &res[2][run]));
            CT_OK(clops_embedding_dense_backward(grad, ids, 6, 2, true, &res[3][run]));
            for (int r = 0; r < 8; r++)
                CT_OK(clops_scatter_reduce_two(self, 1, idx, src, reds[r / 2], r % 2 == 0,
                                               &res[4 + r][run]));
            CT_OK(clops_scatter_src(self, 1, idx, src, &res[12][run]));
            CT_OK(clops_scatter_reduce_two(self, 0, idx0, rsrc, "sum", false, &res[13][run]));
            CT_OK(clops_index_put(self37, li, 1, rsrc37, true, &res[14][run]));
            CT_OK(clops_index_add(self37, 0, rows, rsrc37, clops_scalar_float(0.5),
                                  &res[15][run]));
        }
        for (int k = 0; k < NOPS; k++) {
            ct_set_case("op %d", k);
            CT_ASSERT_MSG(same_bits(res[k][0], res[k][1]) && same_bits(res[k][0], res[k][2]),
                          "op %d: runs differ", k);
            if (d == 0)
                ref[k] = clops_tensor_retain(res[k][0]);
            else
                CT_ASSERT_MSG(same_bits(res[k][0], ref[k]), "op %d: device differs from the CPU "
                                                            "reference", k);
            for (int run = 0; run < 3; run++)
                clops_tensor_release(res[k][run]);
        }
        clops_tensor_release(self);
        clops_tensor_release(src);
        clops_tensor_release(idx);
        clops_tensor_release(rows);
        clops_tensor_release(rsrc);
        clops_tensor_release(grad);
        clops_tensor_release(ids);
        clops_tensor_release(idx0);
        clops_tensor_release(self37);
        clops_tensor_release(rsrc37);
    }
    for (int k = 0; k < NOPS; k++)
        clops_tensor_release(ref[k]);
    ct_clear_context();
}

/* Every writing op names the bad index, the dim and its size. */
static void test_out_of_range(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_devices(devs, CT_MAX_DEVICES);
    for (int d = 0; d < nd; d++) {
        clops_device *dev = devs[d];
        ct_set_device(dev);
        clops_tensor *x = ct_random(dev, CLOPS_FLOAT32, 2, CT_I64(4, 6), CT_CONTIGUOUS,
                                    PW_DOMAIN_ANY, 1);
        int64_t bv[2] = {1, 7};
        clops_tensor *bad = NULL, *bad2 = NULL, *r = NULL, *src = NULL;
        CT_OK(clops_from_host(dev, CLOPS_INT64, 1, CT_I64(2), bv, sizeof bv, &bad));
        CT_OK(clops_from_host(dev, CLOPS_INT64, 2, CT_I64(1, 2), bv, sizeof bv, &bad2));
        src = ct_random(dev, CLOPS_FLOAT32, 2, CT_I64(2, 6), CT_CONTIGUOUS, PW_DOMAIN_ANY, 2);
        CT_STATUS(clops_scatter_add(x, 1, bad2, src, &r), CLOPS_INDEX_OUT_OF_RANGE);
        CT_ERROR_CONTAINS("scatter_add: index 7 is out of bounds for dimension 1 with size 6");
        CT_STATUS(clops_index_add(x, 0, bad, src, clops_scalar_int(1), &r),
                  CLOPS_INDEX_OUT_OF_RANGE);
        CT_ERROR_CONTAINS("index_add: index 7 is out of bounds for dimension 0 with size 4");
        clops_tensor *const li[1] = {bad};
        CT_STATUS(clops_index_put_(x, li, 1, src, false), CLOPS_INDEX_OUT_OF_RANGE);
        CT_ERROR_CONTAINS("index_put: index 7 is out of bounds for dimension 0 with size 4");
        CT_STATUS(clops_index_fill_int_scalar_(x, 0, bad, clops_scalar_int(1)), CLOPS_INDEX_OUT_OF_RANGE);
        CT_ERROR_CONTAINS("index_fill: index 7 is out of bounds for dimension 0 with size 4");
        CT_ASSERT(r == NULL);
        clops_tensor_release(bad);
        clops_tensor_release(bad2);
        clops_tensor_release(src);
        clops_tensor_release(x);
    }
    ct_clear_context();
}

/* In-place forms write through views: index_fill_ into a transposed view
 * matches the CPU device. */
static void test_inplace_views(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_opencl_devices(devs, CT_MAX_DEVICES);
    for (int d = 0; d < nd; d++) {
        ct_set_device(devs[d]);
        clops_device *on[2] = {devs[d], ct_cpu()};
        clops_tensor *res[2] = {NULL};
        for (int w = 0; w < 2; w++) {
            clops_tensor *x = ct_random(on[w], CLOPS_BFLOAT16, 2, CT_I64(5, 7), CT_TRANSPOSED,
                                        PW_DOMAIN_ANY, 3);
            clops_tensor *i = rand_index(on[w], 1, CT_I64(4), 7, 4);
            clops_tensor *s = ct_random(on[w], CLOPS_BFLOAT16, 2, CT_I64(5, 4), CT_SLICED,
                                        PW_DOMAIN_ANY, 5);
            CT_OK(clops_index_copy_(x, 1, i, s));
            CT_OK(clops_index_fill_int_scalar_(x, 0, i, clops_scalar_float(-1.5)));
            res[w] = x;
            clops_tensor_release(i);
            clops_tensor_release(s);
        }
        CT_ASSERT_CLOSE(res[0], res[1], CT_TOL_EXACT);
        clops_tensor_release(res[0]);
        clops_tensor_release(res[1]);
    }
    ct_clear_context();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_determinism),
        cmocka_unit_test(test_out_of_range),
        cmocka_unit_test(test_inplace_views),
    };
    return cmocka_run_group_tests(tests, NULL, ct_teardown_group);
}
