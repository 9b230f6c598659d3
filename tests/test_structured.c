/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/test_structured.c: the rules of the three forms of a structured
 * operator (dispatch/structured.h), which every structured family and the
 * pointwise engine apply.
 *
 * A family computes the result's shape and dtype, then structured_begin
 * hands it the tensor to write: a new one (functional), self (in-place) or
 * out (out=).  PyTorch's rules, each a test here:
 *   - in-place: self must already have the result's shape, and the result
 *     dtype must be castable to self's dtype;
 *   - out=: out is resized when its shape differs; partial overlap between
 *     out and an input is refused, full overlap (the same view) is allowed,
 *     and out must not have internal overlap;
 *   - when the destination's dtype differs from the result dtype the kernel
 *     writes a temporary that structured_finish copies (and converts) into
 *     the destination.
 * Every test runs on every device under test.
 */
#include <stdlib.h>
#include <string.h>

#include "dispatch/structured.h"
#include "host/host.h"
#include "ops/tensor/tensor.h"
#include "support/clops_test.h"

/* Loops over the devices under test with the failure context set. */
#define FOR_EACH_DEVICE(d)                                                                \
    clops_device *devs_[CT_MAX_DEVICES];                                                  \
    int ndevs_ = ct_devices(devs_, CT_MAX_DEVICES);                                       \
    clops_device *d = NULL;                                                               \
    for (int i_ = 0; i_ < ndevs_ && (d = devs_[i_], ct_set_device(d), 1); i_++)

/* A tensor of dtype on dev holding 0, 1, 2, ... converted to dtype. */
static clops_tensor *iota(clops_device *dev, clops_dtype dt, int ndim, const int64_t *sizes)
{
    int64_t n = ct_numel(ndim, sizes);
    double *v = malloc((size_t)(n ? n : 1) * sizeof *v);
    CT_ASSERT(v != NULL);
    for (int64_t i = 0; i < n; i++)
        v[i] = (double)i;
    clops_tensor *f64 = NULL, *t = NULL;
    CT_OK(clops_from_host(ct_cpu(), CLOPS_FLOAT64, ndim, sizes, v, (size_t)n * sizeof *v, &f64));
    free(v);
    t = ct_empty_layout(dev, dt, ndim, sizes, CT_CONTIGUOUS);
    CT_OK(core_copy_(t, f64, false));
    clops_tensor_release(f64);
    return t;
}

/* Writes values 10, 11, ... (as int32) into an int32 target. */
static void write_int32_pattern(clops_tensor *t)
{
    int64_t n = clops_tensor_numel(t);
    int32_t *v = malloc((size_t)n * sizeof *v);
    CT_ASSERT(v != NULL);
    for (int64_t i = 0; i < n; i++)
        v[i] = (int32_t)(10 + i);
    CT_OK(clops_tensor_from_host(t, v, (size_t)n * sizeof *v));
    free(v);
}

/* A one-dimensional view of `len` elements at `offset` of base. */
static clops_tensor *window(clops_tensor *base, int64_t offset, int64_t len)
{
    clops_tensor *v = NULL;
    CT_OK(core_as_strided(base, &len, 1, CT_I64(1), 1, &offset, &v));
    return v;
}

/* --- functional -------------------------------------------------------------- */

static void functional_gives_a_new_tensor_of_the_result_shape_and_dtype(void **state)
{
    (void)state;
    FOR_EACH_DEVICE(d)
    {
        structured_call c;
        clops_tensor *in = iota(d, CLOPS_FLOAT32, 2, CT_I64(2, 3)), *out = NULL;
        CT_OK(structured_begin(&c, "fam", PW_FUNCTIONAL, NULL, d, CLOPS_INT16, 2, CT_I64(2, 3),
                               &in, 1));
        CT_ASSERT(c.target != NULL && c.target != in);
        CT_ASSERT(clops_tensor_device(c.target) == d);
        CT_ASSERT(clops_tensor_dtype(c.target) == CLOPS_INT16);
        CT_ASSERT(clops_tensor_is_contiguous(c.target) && clops_tensor_size(c.target, 1) == 3);
        clops_tensor *target = c.target;
        CT_OK(structured_finish(&c, CLOPS_OK, &out));
        CT_ASSERT(out == target && c.target == NULL);
        clops_tensor_release(out);
        clops_tensor_release(in);
    }
    ct_clear_context();
}

static void finish_passes_a_kernel_failure_through_and_hands_out_nothing(void **state)
{
    (void)state;
    FOR_EACH_DEVICE(d)
    {
        structured_call c;
        clops_tensor *out = NULL;
        CT_OK(structured_begin(&c, "fam", PW_FUNCTIONAL, NULL, d, CLOPS_FLOAT32, 1, CT_I64(4),
                               NULL, 0));
        CT_STATUS(structured_finish(&c, CLOPS_INVALID_SHAPE, &out), CLOPS_INVALID_SHAPE);
        CT_ASSERT(out == NULL && c.target == NULL);
    }
    ct_clear_context();
}

static void a_result_dtype_the_device_cannot_hold_is_refused(void **state)
{
    (void)state;
    FOR_EACH_DEVICE(d)
    {
        if (host_is_cpu(d) || !clops_device_get_info(d)->fp64)
            continue;
        CT_OK(clops_device_set_capability(d, CLOPS_CAP_FP64, false));
        structured_call c;
        clops_status st = structured_begin(&c, "fam", PW_FUNCTIONAL, NULL, d, CLOPS_FLOAT64, 1,
                                           CT_I64(4), NULL, 0);
        CT_OK(clops_device_set_capability(d, CLOPS_CAP_FP64, true));
        CT_STATUS(st, CLOPS_UNSUPPORTED);
        CT_ERROR_CONTAINS("fam");
    }
    ct_clear_context();
}

/* --- in-place --------------------------------------------------------------------- */

static void inplace_writes_self_when_shape_and_dtype_match(void **state)
{
    (void)state;
    FOR_EACH_DEVICE(d)
    {
        clops_tensor *self = iota(d, CLOPS_FLOAT32, 2, CT_I64(2, 3));
        structured_call c;
        /* self is an input too: the same view is not an overlap. */
        CT_OK(structured_begin(&c, "fam_", PW_INPLACE, self, d, CLOPS_FLOAT32, 2, CT_I64(2, 3),
                               &self, 1));
        CT_ASSERT(c.target == self);
        CT_OK(structured_finish(&c, CLOPS_OK, NULL));
        clops_tensor_release(self);
    }
    ct_clear_context();
}

static void inplace_with_a_shape_other_than_the_result_is_an_error(void **state)
{
    (void)state;
    FOR_EACH_DEVICE(d)
    {
        clops_tensor *self = iota(d, CLOPS_FLOAT32, 2, CT_I64(1, 3));
        structured_call c;
        /* [1, 3] op [4, 3] broadcasts to [4, 3], which does not fit self. */
        CT_STATUS(structured_begin(&c, "fam_", PW_INPLACE, self, d, CLOPS_FLOAT32, 2,
                                   CT_I64(4, 3), &self, 1),
                  CLOPS_INVALID_SHAPE);
        CT_ERROR_CONTAINS("fam_: output with shape [1, 3] doesn't match the broadcast shape "
                          "[4, 3]");
        CT_ASSERT(c.target == NULL);
        CT_ASSERT(clops_tensor_size(self, 0) == 1); /* not resized */
        clops_tensor_release(self);
    }
    ct_clear_context();
}

static void inplace_of_a_float_result_into_an_integer_self_is_an_error(void **state)
{
    (void)state;
    FOR_EACH_DEVICE(d)
    {
        clops_tensor *self = iota(d, CLOPS_INT32, 1, CT_I64(3));
        structured_call c;
        CT_STATUS(structured_begin(&c, "fam_", PW_INPLACE, self, d, CLOPS_FLOAT32, 1, CT_I64(3),
                                   &self, 1),
                  CLOPS_INVALID_DTYPE);
        CT_ERROR_CONTAINS("fam_: result type float32 can't be cast to the desired output type "
                          "int32");
        CT_ASSERT(c.target == NULL);
        clops_tensor_release(self);
    }
    ct_clear_context();
}

static void inplace_of_an_integer_result_into_a_float_self_goes_through_a_temporary(void **state)
{
    (void)state;
    FOR_EACH_DEVICE(d)
    {
        clops_tensor *self = iota(d, CLOPS_FLOAT32, 1, CT_I64(4));
        structured_call c;
        CT_OK(structured_begin(&c, "fam_", PW_INPLACE, self, d, CLOPS_INT32, 1, CT_I64(4), &self,
                               1));
        CT_ASSERT(c.target != self && clops_tensor_dtype(c.target) == CLOPS_INT32);
        CT_ASSERT(clops_tensor_device(c.target) == d);
        write_int32_pattern(c.target);
        CT_OK(structured_finish(&c, CLOPS_OK, NULL));
        float *h = ct_to_host(self);
        CT_ASSERT(h[0] == 10.0f && h[3] == 13.0f);
        free(h);
        clops_tensor_release(self);
    }
    ct_clear_context();
}

static void inplace_partially_overlapping_an_input_is_refused(void **state)
{
    (void)state;
    FOR_EACH_DEVICE(d)
    {
        clops_tensor *base = iota(d, CLOPS_FLOAT32, 1, CT_I64(8));
        clops_tensor *self = window(base, 0, 4), *in = window(base, 2, 4);
        structured_call c;
        CT_STATUS(structured_begin(&c, "fam_", PW_INPLACE, self, d, CLOPS_FLOAT32, 1, CT_I64(4),
                                   &in, 1),
                  CLOPS_MEMORY_OVERLAP);
        CT_ERROR_CONTAINS("some elements of the input tensor and the written-to tensor refer to "
                          "a single memory location");
        clops_tensor_release(in);
        clops_tensor_release(self);
        clops_tensor_release(base);
    }
    ct_clear_context();
}

/* --- out= ----------------------------------------------------------------------------- */

static void out_of_the_result_shape_and_dtype_is_written_directly(void **state)
{
    (void)state;
    FOR_EACH_DEVICE(d)
    {
        clops_tensor *in = iota(d, CLOPS_FLOAT32, 1, CT_I64(3));
        clops_tensor *out = ct_empty_layout(d, CLOPS_INT32, 1, CT_I64(3), CT_CONTIGUOUS);
        structured_call c;
        CT_OK(structured_begin(&c, "fam.out", PW_OUT, out, d, CLOPS_INT32, 1, CT_I64(3), &in, 1));
        CT_ASSERT(c.target == out);
        write_int32_pattern(c.target);
        CT_OK(structured_finish(&c, CLOPS_OK, NULL));
        int32_t *h = ct_to_host(out);
        CT_ASSERT(h[2] == 12);
        free(h);
        clops_tensor_release(out);
        clops_tensor_release(in);
    }
    ct_clear_context();
}

static void out_is_resized_when_its_shape_differs(void **state)
{
    (void)state;
    FOR_EACH_DEVICE(d)
    {
        clops_tensor *out = ct_empty_layout(d, CLOPS_INT32, 1, CT_I64(5), CT_CONTIGUOUS);
        structured_call c;
        CT_OK(structured_begin(&c, "fam.out", PW_OUT, out, d, CLOPS_INT32, 2, CT_I64(3, 4), NULL,
                               0));
        CT_ASSERT(c.target == out);
        CT_ASSERT(clops_tensor_ndim(out) == 2 && clops_tensor_size(out, 0) == 3 &&
                  clops_tensor_size(out, 1) == 4 && clops_tensor_is_contiguous(out));
        CT_ASSERT(clops_tensor_storage_nbytes(out) >= 12 * sizeof(int32_t));
        write_int32_pattern(c.target);
        CT_OK(structured_finish(&c, CLOPS_OK, NULL));
        int32_t *h = ct_to_host(out);
        CT_ASSERT(h[11] == 21);
        free(h);
        /* Shrinking works the same way. */
        CT_OK(structured_begin(&c, "fam.out", PW_OUT, out, d, CLOPS_INT32, 0, NULL, NULL, 0));
        CT_ASSERT(clops_tensor_ndim(out) == 0 && clops_tensor_numel(out) == 1);
        CT_OK(structured_finish(&c, CLOPS_OK, NULL));
        clops_tensor_release(out);
    }
    ct_clear_context();
}

static void out_with_a_dtype_other_than_the_result_goes_through_a_temporary(void **state)
{
    (void)state;
    FOR_EACH_DEVICE(d)
    {
        const clops_dtype dts[2] = {CLOPS_INT64, CLOPS_FLOAT32};
        for (int k = 0; k < 2; k++) {
            ct_set_case("out %s, result int32", clops_dtype_name(dts[k]));
            clops_tensor *out = ct_empty_layout(d, dts[k], 1, CT_I64(4), CT_CONTIGUOUS);
            structured_call c;
            CT_OK(structured_begin(&c, "fam.out", PW_OUT, out, d, CLOPS_INT32, 1, CT_I64(4), NULL,
                                   0));
            CT_ASSERT(c.target != out && clops_tensor_dtype(c.target) == CLOPS_INT32);
            write_int32_pattern(c.target);
            CT_OK(structured_finish(&c, CLOPS_OK, NULL));
            CT_ASSERT(c.target == NULL);
            clops_tensor *expect = iota(ct_cpu(), dts[k], 1, CT_I64(4));
            clops_tensor *ten = NULL;
            CT_OK(clops_full(ct_cpu(), dts[k], 1, CT_I64(4), clops_scalar_int(10), &ten));
            /* expect = iota + 10 */
            void *e = ct_to_host(expect), *t10 = ct_to_host(ten);
            if (dts[k] == CLOPS_INT64)
                for (int i = 0; i < 4; i++)
                    ((int64_t *)e)[i] += ((int64_t *)t10)[i];
            else
                for (int i = 0; i < 4; i++)
                    ((float *)e)[i] += ((float *)t10)[i];
            void *got = ct_to_host(out);
            CT_ASSERT(memcmp(got, e, 4 * clops_dtype_size(dts[k])) == 0);
            free(got);
            free(e);
            free(t10);
            clops_tensor_release(ten);
            clops_tensor_release(expect);
            clops_tensor_release(out);
        }
    }
    ct_clear_context();
}

static void out_of_a_dtype_the_result_cannot_be_cast_to_is_an_error(void **state)
{
    (void)state;
    FOR_EACH_DEVICE(d)
    {
        clops_tensor *out = ct_empty_layout(d, CLOPS_BOOL, 1, CT_I64(2), CT_CONTIGUOUS);
        structured_call c;
        CT_STATUS(structured_begin(&c, "fam.out", PW_OUT, out, d, CLOPS_FLOAT32, 1, CT_I64(2),
                                   NULL, 0),
                  CLOPS_INVALID_DTYPE);
        CT_ERROR_CONTAINS("can't be cast to the desired output type bool");
        clops_tensor_release(out);
    }
    ct_clear_context();
}

static void out_partially_overlapping_an_input_is_refused(void **state)
{
    (void)state;
    FOR_EACH_DEVICE(d)
    {
        clops_tensor *base = iota(d, CLOPS_FLOAT32, 1, CT_I64(10));
        clops_tensor *out = window(base, 0, 6), *in = window(base, 3, 6);
        clops_tensor *inputs[2] = {NULL, in}; /* NULL entries are skipped */
        structured_call c;
        CT_STATUS(structured_begin(&c, "fam.out", PW_OUT, out, d, CLOPS_FLOAT32, 1, CT_I64(6),
                                   inputs, 2),
                  CLOPS_MEMORY_OVERLAP);
        CT_ERROR_CONTAINS("fam.out: unsupported operation: some elements of the input tensor");
        CT_ASSERT(c.target == NULL);
        clops_tensor_release(in);
        clops_tensor_release(out);
        clops_tensor_release(base);
    }
    ct_clear_context();
}

static void out_fully_overlapping_an_input_is_allowed(void **state)
{
    (void)state;
    FOR_EACH_DEVICE(d)
    {
        clops_tensor *base = iota(d, CLOPS_FLOAT32, 1, CT_I64(10));
        clops_tensor *out = window(base, 2, 6), *in = window(base, 2, 6);
        clops_tensor *apart = window(base, 8, 2); /* same storage, disjoint */
        clops_tensor *inputs[2] = {in, apart};
        structured_call c;
        CT_OK(structured_begin(&c, "fam.out", PW_OUT, out, d, CLOPS_FLOAT32, 1, CT_I64(6), inputs,
                               2));
        CT_ASSERT(c.target == out);
        CT_OK(structured_finish(&c, CLOPS_OK, NULL));
        clops_tensor_release(apart);
        clops_tensor_release(in);
        clops_tensor_release(out);
        clops_tensor_release(base);
    }
    ct_clear_context();
}

static void out_with_internal_overlap_is_refused(void **state)
{
    (void)state;
    FOR_EACH_DEVICE(d)
    {
        clops_tensor *base = iota(d, CLOPS_FLOAT32, 1, CT_I64(3)), *out = NULL;
        CT_OK(core_expand(base, CT_I64(2, 3), 2, false, &out));
        structured_call c;
        CT_STATUS(structured_begin(&c, "fam.out", PW_OUT, out, d, CLOPS_FLOAT32, 2, CT_I64(2, 3),
                                   NULL, 0),
                  CLOPS_MEMORY_OVERLAP);
        CT_ERROR_CONTAINS("more than one element of the written-to tensor refers to a single "
                          "memory location");
        clops_tensor_release(out);
        clops_tensor_release(base);
    }
    ct_clear_context();
}

static void out_on_another_device_than_the_inputs_is_refused(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int n = ct_opencl_devices(devs, CT_MAX_DEVICES);
    if (n == 0) {
        skip();
        return;
    }
    clops_tensor *out = ct_empty_layout(ct_cpu(), CLOPS_FLOAT32, 1, CT_I64(2), CT_CONTIGUOUS);
    structured_call c;
    CT_STATUS(structured_begin(&c, "fam.out", PW_OUT, out, devs[0], CLOPS_FLOAT32, 1, CT_I64(2),
                               NULL, 0),
              CLOPS_DEVICE_MISMATCH);
    CT_ERROR_CONTAINS("fam.out: output is on cpu but the inputs are on ");
    CT_ERROR_CONTAINS(clops_device_label(devs[0]));
    clops_tensor_release(out);
}

static void a_missing_destination_is_an_invalid_argument(void **state)
{
    (void)state;
    structured_call c;
    CT_STATUS(structured_begin(&c, "fam_", PW_INPLACE, NULL, ct_cpu(), CLOPS_FLOAT32, 1,
                               CT_I64(2), NULL, 0),
              CLOPS_INVALID_ARGUMENT);
    CT_ERROR_CONTAINS("destination tensor is NULL");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(functional_gives_a_new_tensor_of_the_result_shape_and_dtype),
        cmocka_unit_test(finish_passes_a_kernel_failure_through_and_hands_out_nothing),
        cmocka_unit_test(a_result_dtype_the_device_cannot_hold_is_refused),
        cmocka_unit_test(inplace_writes_self_when_shape_and_dtype_match),
        cmocka_unit_test(inplace_with_a_shape_other_than_the_result_is_an_error),
        cmocka_unit_test(inplace_of_a_float_result_into_an_integer_self_is_an_error),
        cmocka_unit_test(inplace_of_an_integer_result_into_a_float_self_goes_through_a_temporary),
        cmocka_unit_test(inplace_partially_overlapping_an_input_is_refused),
        cmocka_unit_test(out_of_the_result_shape_and_dtype_is_written_directly),
        cmocka_unit_test(out_is_resized_when_its_shape_differs),
        cmocka_unit_test(out_with_a_dtype_other_than_the_result_goes_through_a_temporary),
        cmocka_unit_test(out_of_a_dtype_the_result_cannot_be_cast_to_is_an_error),
        cmocka_unit_test(out_partially_overlapping_an_input_is_refused),
        cmocka_unit_test(out_fully_overlapping_an_input_is_allowed),
        cmocka_unit_test(out_with_internal_overlap_is_refused),
        cmocka_unit_test(out_on_another_device_than_the_inputs_is_refused),
        cmocka_unit_test(a_missing_destination_is_an_invalid_argument),
    };
    return cmocka_run_group_tests(tests, NULL, ct_teardown_group);
}
