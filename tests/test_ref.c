/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/test_ref.c: the reference (ref/) computes from the op's tensors and
 * parameters, independently of the families' plans: the pointwise walk
 * broadcasts from each tensor's own sizes and strides, the reduction walks
 * the input itself (argmax indices are logical, whatever the layout), and
 * the references refuse a call whose description disagrees with its
 * tensors (a planner bug) instead of reading out of bounds.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "clops/device.h"
#include "clops/ops.h"
#include "core/tensor_impl.h"
#include "ref/ref_conv.h"
#include "ref/ref_pw.h"
#include "ref/ref_reduce.h"

static clops_device *cpu(void)
{
    clops_device *d = NULL;
    assert_int_equal(clops_device_find("cpu", &d), CLOPS_OK);
    return d;
}

/* A new float32 CPU tensor of the given values. */
static clops_tensor *floats(int nd, const int64_t *sz, const float *v)
{
    int64_t n = 1;
    for (int i = 0; i < nd; i++)
        n *= sz[i];
    clops_tensor *t = NULL;
    assert_int_equal(clops_from_host(cpu(), CLOPS_FLOAT32, nd, sz, v, sizeof(float) * (size_t)n, &t),
                     CLOPS_OK);
    return t;
}

static clops_tensor *transposed(clops_tensor *t)
{
    int64_t p[] = {1, 0};
    clops_tensor *o = NULL;
    assert_int_equal(clops_permute(t, p, 2, &o), CLOPS_OK);
    return o;
}

/* out[i][j] = a[i][j] + 0.5 * b[j] with a a transposed view and b a row:
 * the walk finds both layouts from the tensors alone. */
static void test_pointwise_broadcasts_from_the_tensors_own_strides(void **state)
{
    (void)state;
    int64_t s32[] = {3, 2}, s3[] = {3}, s23[] = {2, 3};
    float av[] = {1, 2, 3, 4, 5, 6}, bv[] = {10, 20, 30};
    clops_tensor *a0 = floats(2, s32, av), *a = transposed(a0), *b = floats(1, s3, bv), *out = NULL;
    assert_int_equal(clops_empty(cpu(), CLOPS_FLOAT32, 2, s23, &out), CLOPS_OK);
    ref_pw_ctx ctx = {.compute = CLOPS_FLOAT32, .params_float = true};
    ctx.params[0].f = 0.5;
    ref_pw_call c = {.op = "add", .fn = ref_pw_lookup("add"), .ctx = &ctx, .out = out,
                     .result = CLOPS_FLOAT32, .n_in = 2};
    assert_non_null(c.fn);
    c.in[0] = (ref_pw_operand){.t = a, .compute = CLOPS_FLOAT32, .round = CLOPS_DTYPE_NONE};
    c.in[1] = (ref_pw_operand){.t = b, .compute = CLOPS_FLOAT32, .round = CLOPS_DTYPE_NONE};
    assert_int_equal(ref_pointwise(&c), CLOPS_OK);
    const float *o = out->storage->host_ptr;
    /* a (transposed) is [[1, 3, 5], [2, 4, 6]] */
    float want[] = {6, 13, 20, 7, 14, 21};
    for (int i = 0; i < 6; i++)
        assert_true(o[i] == want[i]);
    /* A scalar operand in place of b. */
    c.in[1] = (ref_pw_operand){.t = NULL, .scalar = {.f = 2}, .compute = CLOPS_FLOAT32};
    assert_int_equal(ref_pointwise(&c), CLOPS_OK);
    float want2[] = {2, 4, 6, 3, 5, 7};
    for (int i = 0; i < 6; i++)
        assert_true(o[i] == want2[i]);
    clops_tensor_release(a0);
    clops_tensor_release(a);
    clops_tensor_release(b);
    clops_tensor_release(out);
}

/* An operand that does not broadcast to the output is the caller's bug:
 * CLOPS_INTERNAL, and nothing is written. */
static void test_pointwise_refuses_an_operand_that_does_not_broadcast(void **state)
{
    (void)state;
    int64_t s4[] = {4}, s23[] = {2, 3};
    float bv[] = {1, 2, 3, 4}, zero[6] = {0};
    clops_tensor *b = floats(1, s4, bv), *out = floats(2, s23, zero);
    ref_pw_ctx ctx = {.compute = CLOPS_FLOAT32, .params_float = true};
    ref_pw_call c = {.op = "neg", .fn = ref_pw_lookup("neg"), .ctx = &ctx, .out = out,
                     .result = CLOPS_FLOAT32, .n_in = 1};
    c.in[0] = (ref_pw_operand){.t = b, .compute = CLOPS_FLOAT32, .round = CLOPS_DTYPE_NONE};
    assert_int_equal(ref_pointwise(&c), CLOPS_INTERNAL);
    assert_memory_equal(out->storage->host_ptr, zero, sizeof zero);
    assert_null(ref_pw_lookup("no_such_op"));
    clops_tensor_release(b);
    clops_tensor_release(out);
}

/* argmax over dim 1 of a transposed view: the index is the logical one
 * (position along dim 1), not the memory position. */
static void test_reduce_walks_the_input_itself(void **state)
{
    (void)state;
    int64_t s22[] = {2, 2}, s2[] = {2};
    float xv[] = {1, 5, 7, 2}; /* transposed: [[1, 7], [5, 2]] */
    clops_tensor *x0 = floats(2, s22, xv), *x = transposed(x0), *y = NULL, *s = NULL;
    assert_int_equal(clops_empty(cpu(), CLOPS_INT64, 1, s2, &y), CLOPS_OK);
    reduce_call c = {.opname = "argmax", .kind = RK_ARGMAX, .x = x, .y = y};
    c.mask[1] = true;
    assert_int_equal(reduce_ref_run(&c), CLOPS_OK);
    const int64_t *yi = y->storage->host_ptr;
    assert_int_equal(yi[0], 1);
    assert_int_equal(yi[1], 0);
    assert_int_equal(clops_empty(cpu(), CLOPS_FLOAT32, 1, s2, &s), CLOPS_OK);
    reduce_call c2 = {.opname = "sum", .kind = RK_SUM, .x = x, .y = s};
    c2.mask[0] = true;
    assert_int_equal(reduce_ref_run(&c2), CLOPS_OK);
    const float *sf = s->storage->host_ptr;
    assert_true(sf[0] == 6 && sf[1] == 9);
    clops_tensor_release(x0);
    clops_tensor_release(x);
    clops_tensor_release(y);
    clops_tensor_release(s);
}

/* A convolution geometry whose small extent does not fit the big image, or
 * whose tensors have other shapes, is refused. */
static void test_conv_refuses_a_geometry_that_disagrees(void **state)
{
    (void)state;
    /* 1-D: B [1, 1, 4], W [1, 1, 3], S [1, 1, 2] (stride 1, no padding). */
    int64_t sb[] = {1, 1, 4}, sw[] = {1, 1, 3}, ss[] = {1, 1, 2}, ss3[] = {1, 1, 3};
    float bv[] = {1, 2, 3, 4}, wv[] = {1, 1, 1}, sv[3] = {0};
    clops_tensor *B = floats(3, sb, bv), *W = floats(3, sw, wv), *S = floats(3, ss, sv),
                 *S3 = floats(3, ss3, sv);
    conv_geom g = {.nsp = 1, .N = 1, .groups = 1, .Cb = 1, .Cs = 1,
                   .big = {1, 1, 4}, .small = {1, 1, 2}, .k = {1, 1, 3},
                   .s = {1, 1, 1}, .p = {0, 0, 0}, .d = {1, 1, 1}, .K = 3, .Lb = 4, .Ls = 2};
    assert_int_equal(conv_ref_product(&g, CONV_TO_SMALL, S, B, W), CLOPS_OK);
    const float *o = S->storage->host_ptr;
    assert_true(o[0] == 6 && o[1] == 9);
    /* Three windows of 3 do not fit in 4 elements. */
    conv_geom bad = g;
    bad.small[2] = 3;
    bad.Ls = 3;
    assert_int_equal(conv_ref_product(&bad, CONV_TO_SMALL, S3, B, W), CLOPS_INTERNAL);
    /* The tensors' shapes must be the geometry's. */
    assert_int_equal(conv_ref_product(&g, CONV_TO_SMALL, S3, B, W), CLOPS_INTERNAL);
    clops_tensor_release(B);
    clops_tensor_release(W);
    clops_tensor_release(S);
    clops_tensor_release(S3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pointwise_broadcasts_from_the_tensors_own_strides),
        cmocka_unit_test(test_pointwise_refuses_an_operand_that_does_not_broadcast),
        cmocka_unit_test(test_reduce_walks_the_input_itself),
        cmocka_unit_test(test_conv_refuses_a_geometry_that_disagrees),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    clops_shutdown();
    return rc;
}
