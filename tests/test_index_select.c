/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/test_index_select.c: the indexing family's selecting ops on every
 * device beyond what the check engine's standard cases cover (those run in
 * test_check_index, tests/check_family.c): out-of-range indices reported by the device
 * kernels with the op, value, dim and size; int32 indices; views as index
 * tensors; plans of more dims than one launch walks; fill_ into an
 * expanded tensor; results against the CPU reference; nonzero and
 * masked_select over masks long enough for the multi-block scan.
 */
#include <stdlib.h>
#include <string.h>

#include "clops/ops.h"
#include "support/clops_test.h"
#include "ops/tensor/tensor.h"

/* An int64 (or int32) index tensor on dev from values. */
static clops_tensor *ix_tensor(clops_device *dev, clops_dtype dt, int ndim, const int64_t *sizes,
                               const int64_t *vals)
{
    int64_t n = ct_numel(ndim, sizes);
    clops_tensor *h = NULL, *t = NULL;
    CT_OK(clops_from_host(ct_cpu(), CLOPS_INT64, ndim, sizes, vals, (size_t)n * sizeof(int64_t), &h));
    CT_OK(core_to_copy(h, dt, dev, &t));
    clops_tensor_release(h);
    return t;
}

/* Out-of-range and negative indices on every device: errors name the op,
 * the value, the dim and its size; nothing crashes. */
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
        clops_tensor *bad = ix_tensor(dev, CLOPS_INT64, 1, CT_I64(3), CT_I64(1, 9, 0));
        clops_tensor *neg = ix_tensor(dev, CLOPS_INT32, 1, CT_I64(2), CT_I64(-1, 0));
        clops_tensor *bad2 = ix_tensor(dev, CLOPS_INT64, 2, CT_I64(1, 2), CT_I64(0, -7));
        clops_tensor *r = NULL;
        CT_STATUS(clops_index_select(x, 1, bad, &r), CLOPS_INDEX_OUT_OF_RANGE);
        CT_ERROR_CONTAINS("index_select: index 9 is out of bounds for dimension 1 with size 6");
        CT_STATUS(clops_index_select(x, 0, neg, &r), CLOPS_INDEX_OUT_OF_RANGE);
        CT_ERROR_CONTAINS("index -1 is out of bounds for dimension 0 with size 4");
        CT_STATUS(clops_gather(x, 1, bad2, false, &r), CLOPS_INDEX_OUT_OF_RANGE);
        CT_ERROR_CONTAINS("gather: index -7 is out of bounds for dimension 1 with size 6");
        CT_STATUS(clops_embedding(x, bad, -1, false, false, &r), CLOPS_INDEX_OUT_OF_RANGE);
        CT_ERROR_CONTAINS("embedding: index 9 is out of bounds for dimension 0 with size 4");
        clops_tensor *bt = ix_tensor(dev, CLOPS_INT64, 1, CT_I64(1), CT_I64(-25));
        CT_STATUS(clops_take(x, bt, &r), CLOPS_INDEX_OUT_OF_RANGE);
        CT_ERROR_CONTAINS("take: index -25 is out of bounds for dimension 0 with size 24");
        clops_tensor_release(bt);
        /* take wraps -1 .. -24; index.Tensor wraps along its dim. */
        clops_tensor *wrap = ix_tensor(dev, CLOPS_INT64, 1, CT_I64(2), CT_I64(-1, -24));
        CT_OK(clops_take(x, wrap, &r));
        clops_tensor_release(r);
        r = NULL;
        clops_tensor *const idx[2] = {NULL, bad};
        CT_STATUS(clops_index(x, idx, 2, &r), CLOPS_INDEX_OUT_OF_RANGE);
        CT_ERROR_CONTAINS("index: index 9 is out of bounds for dimension 1 with size 6");
        CT_ASSERT(r == NULL);
        clops_tensor_release(wrap);
        clops_tensor_release(bad);
        clops_tensor_release(neg);
        clops_tensor_release(bad2);
        clops_tensor_release(x);
    }
    ct_clear_context();
}

/* Runs the selecting ops on dev and on the CPU device with the same inputs
 * (views of every layout, int32 and int64 indices) and compares exactly. */
static void compare_ops(clops_device *dev, clops_dtype dt, ct_layout lay, clops_dtype idt)
{
    clops_device *cpu = ct_cpu();
    clops_device *on[2] = {dev, cpu};
    clops_tensor *res[2][7] = {{NULL}};
    for (int w = 0; w < 2; w++) {
        clops_tensor *x = ct_random(on[w], dt, 3, CT_I64(5, 7, 6), lay, PW_DOMAIN_ANY, 7);
        int64_t iv[12] = {4, 0, 2, 2, 1, 3, 0, 0, 4, 1, 3, 2};
        clops_tensor *i1 = ix_tensor(on[w], idt, 1, CT_I64(12), iv);
        clops_tensor *i2 = NULL, *g = NULL;
        /* A transposed index view for gather along dim 2: [5, 7, 4]. */
        clops_tensor *gsrc = ct_random(on[w], CLOPS_INT64, 3, CT_I64(5, 7, 4), CT_TRANSPOSED,
                                       PW_DOMAIN_INDEX, 9);
        CT_OK(core_to_copy(gsrc, idt, NULL, &g));
        CT_OK(core_narrow(i1, 0, 2, 5, &i2));
        CT_OK(clops_index_select(x, 1, i1, &res[w][0]));
        CT_OK(clops_gather(x, 2, g, false, &res[w][1]));
        clops_tensor *const adv[3] = {i2, NULL, i2};
        CT_OK(clops_index(x, adv, 3, &res[w][2]));
        int64_t dims[2] = {0, 2};
        CT_OK(clops_flip(x, dims, 2, &res[w][3]));
        CT_OK(clops_tril(x, -1, &res[w][4]));
        clops_tensor *const cl[2] = {x, x};
        CT_OK(clops_cat(cl, 2, 1, &res[w][5]));
        /* gather along a row of 100 with runs of 80: CPU devices read the
         * source row before the run (cl_kernels/index.cl, IX_TOUCH_ROW) */
        int64_t gv[3 * 80];
        for (int j = 0; j < 3 * 80; j++)
            gv[j] = (j * 37 + 11) % 100;
        clops_tensor *xr = ct_random(on[w], dt, 2, CT_I64(3, 100), lay, PW_DOMAIN_ANY, 8);
        clops_tensor *gr = ix_tensor(on[w], idt, 2, CT_I64(3, 80), gv);
        CT_OK(clops_gather(xr, 1, gr, false, &res[w][6]));
        clops_tensor_release(xr);
        clops_tensor_release(gr);
        clops_tensor_release(x);
        clops_tensor_release(i1);
        clops_tensor_release(i2);
        clops_tensor_release(g);
        clops_tensor_release(gsrc);
    }
    for (int k = 0; k < 7; k++) {
        CT_ASSERT_CLOSE(res[0][k], res[1][k], CT_TOL_EXACT);
        clops_tensor_release(res[0][k]);
        clops_tensor_release(res[1][k]);
    }
}

static void test_against_reference(void **state)
{
    (void)state;
    static const clops_dtype dts[] = {CLOPS_BOOL, CLOPS_UINT8, CLOPS_INT16, CLOPS_INT32,
                                      CLOPS_INT64, CLOPS_FLOAT16, CLOPS_BFLOAT16, CLOPS_FLOAT32,
                                      CLOPS_FLOAT64};
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_opencl_devices(devs, CT_MAX_DEVICES);
    for (int d = 0; d < nd; d++) {
        ct_set_device(devs[d]);
        for (size_t i = 0; i < CT_COUNT(dts); i++) {
            if (!ct_device_supports(devs[d], dts[i]))
                continue;
            for (int lay = 0; lay < CT_LAYOUT_COUNT; lay++) {
                clops_dtype idt = (i + (size_t)lay) % 2 ? CLOPS_INT32 : CLOPS_INT64;
                ct_set_case("%s %s, %s indices", clops_dtype_name(dts[i]),
                            ct_layout_name((ct_layout)lay), clops_dtype_name(idt));
                compare_ops(devs[d], dts[i], (ct_layout)lay, idt);
            }
        }
    }
    ct_clear_context();
}

/* Results of 4 MiB and more: CPU devices copy contiguous rows with
 * non-temporal stores there (IX_NT_BYTES in cl_kernels/index.cl):
 * index_select of 16- and 8-byte-wide rows, a row of odd width (element
 * by element), embedding and cat, each against the CPU device, bit for
 * bit. */
static void test_large_rows(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_opencl_devices(devs, CT_MAX_DEVICES);
    for (int d = 0; d < nd; d++) {
        ct_set_device(devs[d]);
        static const int64_t widths[] = {1024, 514, 257};
        for (size_t w = 0; w < CT_COUNT(widths); w++) {
            ct_set_case("index_select [1500, %lld] float32 rows", (long long)widths[w]);
            int64_t rows = 1500, nsel = 2100;
            clops_tensor *x = ct_random(devs[d], CLOPS_FLOAT32, 2, CT_I64(rows, widths[w]),
                                        CT_CONTIGUOUS, PW_DOMAIN_ANY, 11 + (int)w);
            int64_t *v = malloc((size_t)nsel * sizeof *v);
            CT_ASSERT(v != NULL);
            for (int64_t i = 0; i < nsel; i++)
                v[i] = (i * 7919 + 13) % rows;
            clops_tensor *ix = ix_tensor(devs[d], CLOPS_INT64, 1, CT_I64(nsel), v);
            free(v);
            clops_tensor *xc = ct_to_cpu(x), *ixc = ct_to_cpu(ix);
            clops_tensor *r = NULL, *rc = NULL, *e = NULL, *ec = NULL;
            CT_OK(clops_index_select(x, 0, ix, &r));
            CT_OK(clops_index_select(xc, 0, ixc, &rc));
            CT_ASSERT_CLOSE(r, rc, CT_TOL_EXACT);
            CT_OK(clops_embedding(x, ix, -1, false, false, &e));
            CT_OK(clops_embedding(xc, ixc, -1, false, false, &ec));
            CT_ASSERT_CLOSE(e, ec, CT_TOL_EXACT);
            clops_tensor *parts[2] = {x, r}, *partsc[2] = {xc, rc};
            clops_tensor *c = NULL, *cc = NULL;
            CT_OK(clops_cat(parts, 2, 0, &c));
            CT_OK(clops_cat(partsc, 2, 0, &cc));
            CT_ASSERT_CLOSE(c, cc, CT_TOL_EXACT);
            clops_tensor *all[] = {x, ix, xc, ixc, r, rc, e, ec, c, cc};
            for (size_t k = 0; k < CT_COUNT(all); k++)
                clops_tensor_release(all[k]);
        }
    }
    ct_clear_context();
}

/* A plan of 10 dims that cannot be merged runs as several launches. */
static void test_high_rank(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_opencl_devices(devs, CT_MAX_DEVICES);
    const int64_t sz[10] = {2, 3, 2, 3, 2, 2, 3, 2, 2, 3};
    for (int d = 0; d < nd; d++) {
        ct_set_device(devs[d]);
        clops_tensor *a = ct_random(devs[d], CLOPS_INT32, 10, sz, CT_SLICED, PW_DOMAIN_ANY, 3);
        clops_tensor *b = ct_to_cpu(a);
        int64_t dims[5] = {0, 2, 4, 6, 8};
        clops_tensor *ra = NULL, *rb = NULL;
        CT_OK(clops_flip(a, dims, 5, &ra));
        CT_OK(clops_flip(b, dims, 5, &rb));
        CT_ASSERT_CLOSE(ra, rb, CT_TOL_EXACT);
        clops_tensor_release(a);
        clops_tensor_release(b);
        clops_tensor_release(ra);
        clops_tensor_release(rb);
    }
    ct_clear_context();
}

/* fill_ into an expanded tensor writes its distinct elements (PyTorch
 * allows it). */
static void test_fill_expanded(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_devices(devs, CT_MAX_DEVICES);
    for (int d = 0; d < nd; d++) {
        ct_set_device(devs[d]);
        clops_tensor *base = NULL, *e = NULL;
        CT_OK(clops_zeros(devs[d], CLOPS_FLOAT32, 2, CT_I64(3, 1), &base));
        CT_OK(clops_expand(base, CT_I64(3, 4), 2, false, &e));
        CT_OK(clops_fill_scalar_(e, clops_scalar_float(2.5)));
        float h[3];
        CT_OK(clops_tensor_to_host(base, h, sizeof h));
        CT_ASSERT(h[0] == 2.5f && h[1] == 2.5f && h[2] == 2.5f);
        clops_tensor_release(e);
        clops_tensor_release(base);
    }
    ct_clear_context();
}

/* An empty index of any dtype and rank: gather gives an empty result of the
 * index's shape and scatter gives self back (PyTorch checks neither the
 * dtype nor the shape of an empty index), while index_select still refuses
 * a uint8 index (PyTorch does too). */
static void test_empty_index_of_any_dtype(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_devices(devs, CT_MAX_DEVICES);
    for (int d = 0; d < nd; d++) {
        ct_set_device(devs[d]);
        clops_tensor *x = NULL, *idx = NULL, *idx2 = NULL, *src = NULL, *g = NULL, *s = NULL;
        CT_OK(clops_arange(devs[d], CLOPS_FLOAT32, clops_scalar_int(0), clops_scalar_int(5),
                           clops_scalar_int(1), &x));
        CT_OK(clops_empty(devs[d], CLOPS_UINT8, 1, CT_I64(0), &idx));
        CT_OK(clops_empty(devs[d], CLOPS_UINT8, 2, CT_I64(2, 0), &idx2));
        CT_OK(clops_empty(devs[d], CLOPS_FLOAT32, 1, CT_I64(0), &src));
        CT_OK(clops_gather(x, 0, idx2, false, &g));
        CT_ASSERT(clops_tensor_ndim(g) == 2 && clops_tensor_numel(g) == 0 &&
                  clops_tensor_dtype(g) == CLOPS_FLOAT32);
        CT_OK(clops_scatter_src(x, 0, idx, src, &s));
        CT_ASSERT_CLOSE(s, x, CT_TOL_EXACT);
        clops_tensor *r = NULL;
        CT_STATUS(clops_index_select(x, 0, idx, &r), CLOPS_INVALID_DTYPE);
        clops_tensor_release(g);
        clops_tensor_release(s);
        clops_tensor_release(x);
        clops_tensor_release(idx);
        clops_tensor_release(idx2);
        clops_tensor_release(src);
    }
    ct_clear_context();
}

/* nonzero, nonzero_static, masked_select, masked_scatter and index.Tensor
 * with a bool mask over ~300k elements (the scan splits the line into
 * blocks) against the CPU reference, on views; the count agrees with
 * count_nonzero; a second run gives the same bits. */
static void test_nonzero_large(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_opencl_devices(devs, CT_MAX_DEVICES);
    const int64_t sz[3] = {3, 257, 401};
    for (int d = 0; d < nd; d++) {
        ct_set_device(devs[d]);
        clops_device *on[2] = {devs[d], ct_cpu()};
        clops_tensor *res[2][7] = {{NULL}};
        for (int w = 0; w < 2; w++) {
            clops_tensor *x = ct_random(on[w], CLOPS_INT32, 3, sz, CT_TRANSPOSED, PW_DOMAIN_INDEX, 5);
            clops_tensor *m = ct_random(on[w], CLOPS_BOOL, 2, sz + 1, CT_SLICED, PW_DOMAIN_ANY, 6);
            clops_tensor *y = ct_random(on[w], CLOPS_FLOAT16, 3, sz, CT_CONTIGUOUS, PW_DOMAIN_ANY, 7);
            CT_OK(clops_nonzero(x, &res[w][0]));
            CT_OK(clops_masked_select(y, m, &res[w][1]));
            CT_OK(clops_nonzero_static(x, 1000, -3, &res[w][2]));
            CT_OK(clops_nonzero_static(m, 60000, -3, &res[w][3]));
            CT_OK(clops_count_nonzero(x, NULL, &res[w][4]));
            clops_tensor *src = ct_random(on[w], CLOPS_FLOAT16, 1, CT_I64(400000), CT_CONTIGUOUS,
                                          PW_DOMAIN_ANY, 8);
            CT_OK(clops_masked_scatter(y, m, src, &res[w][5]));
            clops_tensor *const mi[2] = {NULL, m};
            CT_OK(clops_index(y, mi, 2, &res[w][6]));
            clops_tensor_release(src);
            int64_t cnt = 0;
            CT_OK(clops_tensor_to_host(res[w][4], &cnt, sizeof cnt));
            CT_ASSERT(res[w][0]->sizes[0] == cnt && res[w][0]->sizes[1] == 3);
            if (w == 0) { /* the same bits on a second run */
                clops_tensor *again = NULL;
                CT_OK(clops_masked_select(y, m, &again));
                CT_ASSERT_CLOSE(again, res[0][1], CT_TOL_EXACT);
                clops_tensor_release(again);
            }
            clops_tensor_release(x);
            clops_tensor_release(m);
            clops_tensor_release(y);
        }
        for (int k = 0; k < 7; k++) {
            CT_ASSERT_CLOSE(res[0][k], res[1][k], CT_TOL_EXACT);
            clops_tensor_release(res[0][k]);
            clops_tensor_release(res[1][k]);
        }
    }
    ct_clear_context();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_out_of_range),
        cmocka_unit_test(test_against_reference),
        cmocka_unit_test(test_large_rows),
        cmocka_unit_test(test_high_rank),
        cmocka_unit_test(test_fill_expanded),
        cmocka_unit_test(test_nonzero_large),
        cmocka_unit_test(test_empty_index_of_any_dtype),
    };
    return cmocka_run_group_tests(tests, NULL, ct_teardown_group);
}
