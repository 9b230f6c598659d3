/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/test_views.c: the view operators and the geometry helpers under
 * them (core/view.c, core/geometry.c), checked against PyTorch.
 *
 * Views are metadata, so every test runs on CPU tensors (device 0).  The
 * single-behaviour tests below read as a specification: what geometry each
 * op gives in its corner cases, which calls fail, with which status and
 * message.  The table-driven test replays tests/data/view_cases.json, which
 * tests/data/gen_view_cases.py writes from PyTorch itself: for every case the
 * result's sizes, strides, storage offset and whether it shares the input's
 * storage must match, or the call must fail with the status that matches
 * PyTorch's exception type (IndexError is CLOPS_INDEX_OUT_OF_RANGE; a
 * RuntimeError is CLOPS_INVALID_SHAPE or CLOPS_INVALID_ARGUMENT).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <cmocka.h>

#include "core/tensor_impl.h"
#include "ops/tensor/tensor.h"

#ifndef CLOPS_TEST_DATA_DIR
#error "CLOPS_TEST_DATA_DIR must name tests/data"
#endif

/* An int64 array literal and its length, for sizes, strides and dims. */
#define I64(...) ((const int64_t[]){__VA_ARGS__})
#define LEN(...) ((int)(sizeof((int64_t[]){__VA_ARGS__}) / sizeof(int64_t)))
#define LIST(...) I64(__VA_ARGS__), LEN(__VA_ARGS__)

/* Room for a formatted shape of CLOPS_MAX_DIMS entries. */
#define SHAPE_CAP (CLOPS_MAX_DIMS * 22 + 4)

/* --- helpers ------------------------------------------------------------- */

/* A float32 CPU tensor with the given geometry over a fresh storage of
 * storage_numel elements (built as empty_strided + as_strided, as
 * PyTorch's torch.empty(n).as_strided(...)). */
static clops_tensor *make_input(int ndim, const int64_t *sizes, const int64_t *strides,
                                int64_t offset, int64_t storage_numel)
{
    clops_device *dev = NULL;
    clops_tensor *base = NULL;
    clops_tensor *t = NULL;
    const int64_t one = 1;

    assert_int_equal(clops_device_get(0, &dev), CLOPS_OK);
    assert_int_equal(clops_empty_strided(dev, CLOPS_FLOAT32, 1, &storage_numel, &one, &base),
                     CLOPS_OK);
    assert_int_equal(core_as_strided(base, sizes, ndim, strides, ndim, &offset, &t), CLOPS_OK);
    clops_tensor_release(base);
    return t;
}

/* A row-major tensor of the given sizes at offset 0. */
static clops_tensor *make_contiguous(int ndim, const int64_t *sizes)
{
    int64_t strides[CLOPS_MAX_DIMS];
    int64_t numel = 1;

    contiguous_strides(ndim, sizes, strides);
    for (int d = 0; d < ndim; d++)
        numel *= sizes[d];
    return make_input(ndim, sizes, strides, 0, numel);
}

/* A zero-dim tensor at offset 0. */
static clops_tensor *make_scalar(void)
{
    return make_input(0, NULL, NULL, 0, 1);
}

/* Asserts the full geometry of t. */
static void assert_geometry(const clops_tensor *t, int ndim, const int64_t *sizes,
                            const int64_t *strides, int64_t offset)
{
    assert_non_null(t);
    assert_int_equal(t->ndim, ndim);
    for (int d = 0; d < ndim; d++) {
        assert_int_equal(t->sizes[d], sizes[d]);
        assert_int_equal(t->strides[d], strides[d]);
    }
    assert_int_equal(t->offset, offset);
}

/* Asserts that the last error message contains text. */
static void assert_error_contains(const char *text)
{
    const char *msg = clops_last_error();
    if (!strstr(msg, text))
        fail_msg("error message \"%s\" lacks \"%s\"", msg, text);
}

/* --- geometry helpers ---------------------------------------------------- */

static void test_contiguous_strides_treat_size_zero_and_one_dims_as_pytorch(void **state)
{
    int64_t strides[4];
    (void)state;

    contiguous_strides(4, I64(2, 0, 3, 1), strides);
    assert_int_equal(strides[0], 3);
    assert_int_equal(strides[1], 3);
    assert_int_equal(strides[2], 1);
    assert_int_equal(strides[3], 1);
    contiguous_strides(3, I64(4, 1, 5), strides);
    assert_int_equal(strides[0], 5);
    assert_int_equal(strides[1], 5);
    assert_int_equal(strides[2], 1);
}

static void test_check_sizes_rejects_negative_sizes_too_many_dims_and_overflow(void **state)
{
    int64_t many[CLOPS_MAX_DIMS + 1] = {0};
    (void)state;

    assert_int_equal(check_sizes("test", 0, NULL), CLOPS_OK);
    assert_int_equal(check_sizes("test", 3, I64(2, 0, 3)), CLOPS_OK);
    assert_int_equal(check_sizes("test", 2, I64(2, -1)), CLOPS_INVALID_SHAPE);
    assert_error_contains("negative dimension -1");
    assert_int_equal(check_sizes("test", CLOPS_MAX_DIMS + 1, many), CLOPS_INVALID_SHAPE);
    assert_int_equal(check_sizes("test", 2, I64(INT64_MAX / 2, 3)), CLOPS_INVALID_SHAPE);
    /* An empty tensor whose other dims would overflow a contiguous stride. */
    assert_int_equal(check_sizes("test", 3, I64(0, INT64_MAX / 2, 3)), CLOPS_INVALID_SHAPE);
}

static void test_storage_bytes_needed_counts_offset_and_furthest_element(void **state)
{
    size_t n = 1;
    (void)state;

    assert_int_equal(storage_bytes_needed("test", CLOPS_FLOAT32, 2, I64(3, 4), I64(1, 3), 2, &n),
                     CLOPS_OK);
    assert_int_equal(n, (2 + 2 * 1 + 3 * 3 + 1) * 4);
    assert_int_equal(storage_bytes_needed("test", CLOPS_INT64, 0, NULL, NULL, 5, &n), CLOPS_OK);
    assert_int_equal(n, 6 * 8);
    /* Stride-0 (broadcast) dims reach nothing new. */
    assert_int_equal(storage_bytes_needed("test", CLOPS_FLOAT16, 2, I64(5, 4), I64(0, 1), 0, &n),
                     CLOPS_OK);
    assert_int_equal(n, 4 * 2);
}

static void test_storage_bytes_needed_is_zero_for_an_empty_tensor_at_any_offset(void **state)
{
    size_t n = 1;
    (void)state;

    assert_int_equal(
        storage_bytes_needed("test", CLOPS_FLOAT32, 2, I64(0, 4), I64(4, 1), 1000, &n), CLOPS_OK);
    assert_int_equal(n, 0);
}

static void test_storage_bytes_needed_rejects_overflow_and_negative_reach(void **state)
{
    size_t n = 0;
    (void)state;

    assert_int_equal(storage_bytes_needed("test", CLOPS_FLOAT64, 2, I64(2, 2),
                                          I64(INT64_MAX / 2, 1), 0, &n),
                     CLOPS_INVALID_SHAPE);
    assert_int_equal(storage_bytes_needed("test", CLOPS_FLOAT32, 1, I64(3), I64(-1), 1, &n),
                     CLOPS_INVALID_SHAPE);
    assert_int_equal(storage_bytes_needed("test", CLOPS_FLOAT32, 1, I64(3), I64(-1), 2, &n),
                     CLOPS_OK);
    assert_int_equal(n, 3 * 4);
    assert_int_equal(storage_bytes_needed("test", CLOPS_FLOAT32, 1, I64(3), I64(1), -1, &n),
                     CLOPS_INVALID_SHAPE);
}

static void test_wrap_dim_counts_negative_dims_from_the_end(void **state)
{
    int d = -1;
    (void)state;

    assert_int_equal(wrap_dim("test", -1, 3, &d), CLOPS_OK);
    assert_int_equal(d, 2);
    assert_int_equal(wrap_dim("test", -3, 3, &d), CLOPS_OK);
    assert_int_equal(d, 0);
}

static void test_wrap_dim_accepts_minus_one_and_zero_on_a_zero_dim_tensor(void **state)
{
    int d = -1;
    (void)state;

    assert_int_equal(wrap_dim("test", -1, 0, &d), CLOPS_OK);
    assert_int_equal(d, 0);
    assert_int_equal(wrap_dim("test", 0, 0, &d), CLOPS_OK);
    assert_int_equal(d, 0);
    assert_int_equal(wrap_dim("test", 1, 0, &d), CLOPS_INDEX_OUT_OF_RANGE);
    assert_error_contains("expected to be in range of [-1, 0], but got 1");
}

static void test_wrap_dim_reports_the_range_as_pytorch_does(void **state)
{
    int d;
    (void)state;

    assert_int_equal(wrap_dim("select", 2, 2, &d), CLOPS_INDEX_OUT_OF_RANGE);
    assert_string_equal(clops_last_error(), "select: Dimension out of range (expected to be in "
                                            "range of [-2, 1], but got 2)");
    assert_int_equal(wrap_dim("select", -3, 2, &d), CLOPS_INDEX_OUT_OF_RANGE);
}

static void test_infer_size_fills_in_the_single_minus_one(void **state)
{
    int64_t out[3];
    (void)state;

    assert_int_equal(infer_size("view", 24, LIST(2, -1, 3), out), CLOPS_OK);
    assert_int_equal(out[0], 2);
    assert_int_equal(out[1], 4);
    assert_int_equal(out[2], 3);
    assert_int_equal(infer_size("view", 0, LIST(-1), out), CLOPS_OK);
    assert_int_equal(out[0], 0);
}

static void test_infer_size_error_names_the_shape_and_the_element_count(void **state)
{
    int64_t out[2];
    (void)state;

    assert_int_equal(infer_size("view", 7, LIST(2, -1), out), CLOPS_INVALID_SHAPE);
    assert_string_equal(clops_last_error(), "view: shape '[2, -1]' is invalid for input of size 7");
    assert_int_equal(infer_size("view", 7, LIST(2, 3), out), CLOPS_INVALID_SHAPE);
    assert_error_contains("shape '[2, 3]' is invalid for input of size 7");
}

static void test_infer_size_allows_only_one_minus_one(void **state)
{
    int64_t out[2];
    (void)state;

    assert_int_equal(infer_size("view", 4, LIST(-1, -1), out), CLOPS_INVALID_SHAPE);
    assert_string_equal(clops_last_error(), "view: only one dimension can be inferred");
    assert_int_equal(infer_size("view", 4, LIST(-2, -2), out), CLOPS_INVALID_SHAPE);
    assert_error_contains("invalid shape dimension -2");
}

static void test_infer_size_refuses_minus_one_next_to_a_zero_as_ambiguous(void **state)
{
    int64_t out[2];
    (void)state;

    assert_int_equal(infer_size("view", 0, LIST(-1, 0), out), CLOPS_INVALID_SHAPE);
    assert_error_contains("cannot reshape tensor of 0 elements into shape [-1, 0]");
}

static void test_view_compute_strides_fails_when_a_new_dim_spans_two_chunks(void **state)
{
    int64_t strides[3];
    (void)state;

    /* [4, 3] strides [1, 4] is a transposed [3, 4]: its dims do not merge ... */
    assert_false(view_compute_strides(2, I64(4, 3), I64(1, 4), 1, I64(12), strides));
    /* ... but each can still be split. */
    assert_true(view_compute_strides(2, I64(4, 3), I64(1, 4), 3, I64(2, 2, 3), strides));
    assert_int_equal(strides[0], 2);
    assert_int_equal(strides[1], 1);
    assert_int_equal(strides[2], 4);
}

/* --- view and reshape ---------------------------------------------------- */

static void test_view_shares_storage_and_keeps_the_offset(void **state)
{
    clops_tensor *x = make_input(2, I64(2, 4), I64(4, 1), 4, 12);
    clops_tensor *y = NULL;
    (void)state;

    assert_int_equal(core_view(x, LIST(-1), &y), CLOPS_OK);
    assert_geometry(y, 1, I64(8), I64(1), 4);
    assert_ptr_equal(y->storage, x->storage);
    clops_tensor_release(y);
    clops_tensor_release(x);
}

static void test_view_of_a_transposed_tensor_fails_and_suggests_reshape(void **state)
{
    clops_tensor *x = make_input(2, I64(4, 3), I64(1, 4), 0, 12);
    clops_tensor *y = (clops_tensor *)x; /* must be cleared */
    (void)state;

    assert_int_equal(core_view(x, LIST(12), &y), CLOPS_INVALID_SHAPE);
    assert_null(y);
    assert_string_equal(clops_last_error(),
                        "view: view size is not compatible with input tensor's size and stride "
                        "(at least one dimension spans across two contiguous subspaces). Use "
                        ".reshape(...) instead. (input [4, 3] strides [1, 4], requested [12])");
    clops_tensor_release(x);
}

static void test_view_of_an_empty_tensor_uses_row_major_strides_for_a_new_shape(void **state)
{
    clops_tensor *x = make_input(2, I64(3, 0), I64(1, 3), 0, 0);
    clops_tensor *y = NULL;
    (void)state;

    assert_int_equal(core_view(x, LIST(0, 3), &y), CLOPS_OK);
    assert_geometry(y, 2, I64(0, 3), I64(3, 1), 0);
    clops_tensor_release(y);
    assert_int_equal(core_view(x, LIST(3, 0), &y), CLOPS_OK);
    assert_geometry(y, 2, I64(3, 0), I64(1, 3), 0);
    clops_tensor_release(y);
    clops_tensor_release(x);
}

static void test_view_of_a_zero_dim_tensor_gives_stride_one_everywhere(void **state)
{
    clops_tensor *x = make_input(0, NULL, NULL, 5, 6);
    clops_tensor *y = NULL;
    (void)state;

    assert_int_equal(core_view(x, LIST(1, -1, 1), &y), CLOPS_OK);
    assert_geometry(y, 3, I64(1, 1, 1), I64(1, 1, 1), 5);
    clops_tensor_release(y);
    clops_tensor_release(x);
}

static void test_reshape_returns_a_view_when_the_strides_allow_one(void **state)
{
    clops_tensor *x = make_input(2, I64(4, 3), I64(1, 4), 0, 12);
    clops_tensor *y = NULL;
    (void)state;

    assert_int_equal(core_reshape(x, LIST(2, 2, 3), &y), CLOPS_OK);
    assert_geometry(y, 3, I64(2, 2, 3), I64(2, 1, 4), 0);
    assert_ptr_equal(y->storage, x->storage);
    clops_tensor_release(y);
    clops_tensor_release(x);
}

static void test_reshape_copies_to_a_contiguous_tensor_when_no_view_exists(void **state)
{
    clops_tensor *x = make_input(2, I64(3, 4), I64(10, 2), 1, 28);
    clops_tensor *y = NULL;
    (void)state;

    assert_int_equal(core_reshape(x, LIST(2, -1), &y), CLOPS_OK);
    assert_geometry(y, 2, I64(2, 6), I64(6, 1), 0);
    assert_ptr_not_equal(y->storage, x->storage);
    clops_tensor_release(y);
    clops_tensor_release(x);
}

static void test_a_view_keeps_the_storage_alive_after_its_base_is_released(void **state)
{
    clops_tensor *x = make_contiguous(2, I64(3, 4));
    clops_tensor *y = NULL;
    (void)state;

    assert_int_equal(core_transpose(x, 0, 1, &y), CLOPS_OK);
    clops_tensor_release(x);
    assert_int_equal(atomic_load(&y->storage->refcount), 1);
    assert_true(y->storage->nbytes >= 12 * 4);
    clops_tensor_release(y);
}

/* --- as_strided ---------------------------------------------------------- */

static void test_as_strided_keeps_the_input_offset_when_none_is_given(void **state)
{
    clops_tensor *x = make_input(2, I64(2, 4), I64(4, 1), 4, 12);
    clops_tensor *y = NULL;
    const int64_t offset = 0;
    (void)state;

    assert_int_equal(core_as_strided(x, LIST(2), LIST(3), NULL, &y), CLOPS_OK);
    assert_geometry(y, 1, I64(2), I64(3), 4);
    clops_tensor_release(y);
    assert_int_equal(core_as_strided(x, LIST(2), LIST(3), &offset, &y), CLOPS_OK);
    assert_geometry(y, 1, I64(2), I64(3), 0);
    clops_tensor_release(y);
    clops_tensor_release(x);
}

static void test_as_strided_rejects_a_geometry_outside_the_storage(void **state)
{
    clops_tensor *x = make_contiguous(2, I64(3, 4));
    clops_tensor *y = NULL;
    const int64_t offset = 100;
    (void)state;

    assert_int_equal(core_as_strided(x, LIST(13), LIST(1), NULL, &y), CLOPS_INVALID_SHAPE);
    assert_null(y);
    /* An empty result may sit anywhere. */
    assert_int_equal(core_as_strided(x, LIST(0), LIST(1), &offset, &y), CLOPS_OK);
    clops_tensor_release(y);
    clops_tensor_release(x);
}

static void test_as_strided_rejects_negative_strides_offsets_and_length_mismatch(void **state)
{
    clops_tensor *x = make_contiguous(2, I64(3, 4));
    clops_tensor *y = NULL;
    const int64_t offset = -1;
    (void)state;

    assert_int_equal(core_as_strided(x, LIST(3), LIST(-1), NULL, &y), CLOPS_INVALID_ARGUMENT);
    assert_error_contains("Negative strides");
    assert_int_equal(core_as_strided(x, LIST(2), LIST(1), &offset, &y), CLOPS_INVALID_ARGUMENT);
    assert_int_equal(core_as_strided(x, LIST(2, 2), LIST(1), NULL, &y), CLOPS_INVALID_SHAPE);
    assert_error_contains("mismatch in length of strides and shape");
    assert_null(y);
    clops_tensor_release(x);
}

/* --- permute, transpose, t ----------------------------------------------- */

static void test_permute_accepts_negative_dims(void **state)
{
    clops_tensor *x = make_contiguous(3, I64(2, 3, 4));
    clops_tensor *y = NULL;
    (void)state;

    assert_int_equal(core_permute(x, LIST(-1, 0, 1), &y), CLOPS_OK);
    assert_geometry(y, 3, I64(4, 2, 3), I64(1, 12, 4), 0);
    clops_tensor_release(y);
    clops_tensor_release(x);
}

static void test_permute_rejects_repeated_dims_and_a_wrong_count(void **state)
{
    clops_tensor *x = make_contiguous(3, I64(2, 3, 4));
    clops_tensor *y = NULL;
    (void)state;

    assert_int_equal(core_permute(x, LIST(0, -3, 1), &y), CLOPS_INVALID_ARGUMENT);
    assert_error_contains("duplicate dims are not allowed");
    assert_int_equal(core_permute(x, LIST(0, 1), &y), CLOPS_INVALID_SHAPE);
    assert_error_contains("input.dim() = 3 is not equal to len(dims) = 2");
    assert_int_equal(core_permute(x, LIST(0, 1, 3), &y), CLOPS_INDEX_OUT_OF_RANGE);
    clops_tensor_release(x);
}

static void test_transpose_of_a_dim_with_itself_is_an_alias(void **state)
{
    clops_tensor *x = make_input(2, I64(3, 4), I64(8, 2), 1, 25);
    clops_tensor *y = NULL;
    (void)state;

    assert_int_equal(core_transpose(x, -1, 1, &y), CLOPS_OK);
    assert_geometry(y, 2, I64(3, 4), I64(8, 2), 1);
    assert_ptr_not_equal(y, x);
    clops_tensor_release(y);
    clops_tensor_release(x);
}

static void test_t_rejects_more_than_two_dims(void **state)
{
    clops_tensor *x = make_contiguous(3, I64(2, 3, 4));
    clops_tensor *y = NULL;
    (void)state;

    assert_int_equal(core_t(x, &y), CLOPS_INVALID_SHAPE);
    assert_string_equal(clops_last_error(),
                        "t: t() expects a tensor with <= 2 dimensions, but self is 3D");
    clops_tensor_release(x);
}

static void test_t_of_a_vector_or_scalar_is_an_alias(void **state)
{
    clops_tensor *v = make_input(1, I64(5), I64(2), 1, 10);
    clops_tensor *s = make_scalar();
    clops_tensor *y = NULL;
    (void)state;

    assert_int_equal(core_t(v, &y), CLOPS_OK);
    assert_geometry(y, 1, I64(5), I64(2), 1);
    clops_tensor_release(y);
    assert_int_equal(core_t(s, &y), CLOPS_OK);
    assert_geometry(y, 0, NULL, NULL, 0);
    clops_tensor_release(y);
    clops_tensor_release(s);
    clops_tensor_release(v);
}

/* --- expand -------------------------------------------------------------- */

static void test_expand_broadcasts_size_one_and_new_dims_with_stride_zero(void **state)
{
    clops_tensor *x = make_contiguous(2, I64(3, 1));
    clops_tensor *y = NULL;
    (void)state;

    assert_int_equal(core_expand(x, LIST(2, -1, 5), false, &y), CLOPS_OK);
    assert_geometry(y, 3, I64(2, 3, 5), I64(0, 1, 0), 0);
    clops_tensor_release(y);
    clops_tensor_release(x);
}

static void test_expand_gives_a_new_size_one_dim_the_stride_over_the_dims_after_it(void **state)
{
    clops_tensor *x = make_contiguous(2, I64(3, 4));
    clops_tensor *y = NULL;
    (void)state;

    assert_int_equal(core_expand(x, LIST(1, 1, 3, 4), false, &y), CLOPS_OK);
    assert_geometry(y, 4, I64(1, 1, 3, 4), I64(12, 12, 4, 1), 0);
    clops_tensor_release(y);
    clops_tensor_release(x);
}

static void test_expand_of_a_zero_dim_tensor_has_all_strides_zero(void **state)
{
    clops_tensor *x = make_scalar();
    clops_tensor *y = NULL;
    (void)state;

    assert_int_equal(core_expand(x, LIST(1, 3), false, &y), CLOPS_OK);
    assert_geometry(y, 2, I64(1, 3), I64(0, 0), 0);
    clops_tensor_release(y);
    clops_tensor_release(x);
}

static void test_expand_error_names_the_target_and_tensor_sizes(void **state)
{
    clops_tensor *x = make_contiguous(2, I64(2, 3));
    clops_tensor *y = NULL;
    (void)state;

    assert_int_equal(core_expand(x, LIST(2, 4), false, &y), CLOPS_INVALID_SHAPE);
    assert_string_equal(clops_last_error(),
                        "expand: The expanded size of the tensor (4) must match the existing "
                        "size (3) at non-singleton dimension 1.  Target sizes: [2, 4].  Tensor "
                        "sizes: [2, 3]");
    assert_int_equal(core_expand(x, LIST(3), false, &y), CLOPS_INVALID_SHAPE);
    assert_error_contains("the number of sizes provided (1) must be greater or equal");
    assert_int_equal(core_expand(x, LIST(-1, 2, 3), false, &y), CLOPS_INVALID_SHAPE);
    assert_error_contains("isn't allowed in a leading, non-existing dimension 0");
    clops_tensor_release(x);
}

/* --- narrow, slice, select ----------------------------------------------- */

static void test_narrow_accepts_a_negative_start_and_an_empty_range_at_the_end(void **state)
{
    clops_tensor *x = make_contiguous(2, I64(3, 4));
    clops_tensor *y = NULL;
    (void)state;

    assert_int_equal(core_narrow(x, 1, -2, 2, &y), CLOPS_OK);
    assert_geometry(y, 2, I64(3, 2), I64(4, 1), 2);
    clops_tensor_release(y);
    assert_int_equal(core_narrow(x, 1, 4, 0, &y), CLOPS_OK);
    assert_geometry(y, 2, I64(3, 0), I64(4, 1), 4);
    clops_tensor_release(y);
    clops_tensor_release(x);
}

static void test_narrow_rejects_a_start_outside_the_dim_and_a_range_past_its_end(void **state)
{
    clops_tensor *x = make_contiguous(2, I64(3, 4));
    clops_tensor *y = NULL;
    (void)state;

    assert_int_equal(core_narrow(x, 1, 5, 0, &y), CLOPS_INDEX_OUT_OF_RANGE);
    assert_error_contains("start out of range (expected to be in range of [-4, 4], but got 5)");
    assert_int_equal(core_narrow(x, 1, 2, 3, &y), CLOPS_INVALID_ARGUMENT);
    assert_error_contains("start (2) + length (3) exceeds dimension size (4).");
    clops_tensor_release(x);
}

static void test_slice_clamps_bounds_into_the_dim(void **state)
{
    clops_tensor *x = make_contiguous(2, I64(3, 4));
    clops_tensor *y = NULL;
    const int64_t lo = -10, hi = 10, past = 20;
    (void)state;

    assert_int_equal(core_slice(x, 1, &lo, &hi, 3, &y), CLOPS_OK);
    assert_geometry(y, 2, I64(3, 2), I64(4, 3), 0);
    clops_tensor_release(y);
    /* Both bounds past the end: empty, starting at the end. */
    assert_int_equal(core_slice(x, 1, &hi, &past, 1, &y), CLOPS_OK);
    assert_geometry(y, 2, I64(3, 0), I64(4, 1), 4);
    clops_tensor_release(y);
    clops_tensor_release(x);
}

static void test_slice_with_no_bounds_and_a_step_rounds_the_size_up(void **state)
{
    clops_tensor *x = make_input(1, I64(5), I64(2), 1, 10);
    clops_tensor *y = NULL;
    (void)state;

    assert_int_equal(core_slice(x, 0, NULL, NULL, 2, &y), CLOPS_OK);
    assert_geometry(y, 1, I64(3), I64(4), 1);
    clops_tensor_release(y);
    clops_tensor_release(x);
}

static void test_slice_rejects_a_step_that_is_not_positive(void **state)
{
    clops_tensor *x = make_contiguous(2, I64(3, 4));
    clops_tensor *y = NULL;
    (void)state;

    assert_int_equal(core_slice(x, 0, NULL, NULL, 0, &y), CLOPS_INVALID_ARGUMENT);
    assert_error_contains("slice step must be positive");
    assert_int_equal(core_slice(x, 0, NULL, NULL, -1, &y), CLOPS_INVALID_ARGUMENT);
    clops_tensor_release(x);
}

static void test_select_counts_a_negative_index_from_the_end(void **state)
{
    clops_tensor *x = make_contiguous(2, I64(3, 4));
    clops_tensor *y = NULL;
    (void)state;

    assert_int_equal(core_select(x, -1, -1, &y), CLOPS_OK);
    assert_geometry(y, 1, I64(3), I64(4), 3);
    clops_tensor_release(y);
    clops_tensor_release(x);
}

static void test_select_rejects_an_index_out_of_range_and_a_zero_dim_tensor(void **state)
{
    clops_tensor *x = make_contiguous(2, I64(3, 4));
    clops_tensor *s = make_scalar();
    clops_tensor *y = NULL;
    (void)state;

    assert_int_equal(core_select(x, 0, 3, &y), CLOPS_INDEX_OUT_OF_RANGE);
    assert_error_contains("index 3 out of range for tensor of size [3, 4] at dimension 0");
    assert_int_equal(core_select(s, 0, 0, &y), CLOPS_INDEX_OUT_OF_RANGE);
    assert_error_contains("select() cannot be applied to a 0-dim tensor.");
    clops_tensor_release(s);
    clops_tensor_release(x);
}

/* --- squeeze, unsqueeze -------------------------------------------------- */

static void test_squeeze_removes_only_size_one_dims(void **state)
{
    clops_tensor *x = make_input(3, I64(2, 1, 3), I64(3, 100, 1), 0, 6);
    clops_tensor *y = NULL;
    (void)state;

    assert_int_equal(core_squeeze(x, &y), CLOPS_OK);
    assert_geometry(y, 2, I64(2, 3), I64(3, 1), 0);
    clops_tensor_release(y);
    assert_int_equal(core_squeeze_dim(x, 0, &y), CLOPS_OK);
    assert_geometry(y, 3, I64(2, 1, 3), I64(3, 100, 1), 0);
    clops_tensor_release(y);
    clops_tensor_release(x);
}

static void test_squeeze_dims_rejects_a_dim_named_twice(void **state)
{
    clops_tensor *x = make_contiguous(4, I64(1, 3, 1, 4));
    clops_tensor *y = NULL;
    (void)state;

    assert_int_equal(core_squeeze_dims(x, LIST(-2, 0), &y), CLOPS_OK);
    assert_geometry(y, 2, I64(3, 4), I64(4, 1), 0);
    clops_tensor_release(y);
    assert_int_equal(core_squeeze_dims(x, LIST(0, -4), &y), CLOPS_INVALID_ARGUMENT);
    assert_error_contains("dim 0 appears multiple times in the list of dims");
    clops_tensor_release(x);
}

static void test_unsqueeze_stride_steps_over_the_dim_after_it_or_is_one_at_the_end(void **state)
{
    clops_tensor *x = make_input(2, I64(4, 3), I64(1, 4), 0, 12);
    clops_tensor *y = NULL;
    (void)state;

    assert_int_equal(core_unsqueeze(x, 1, &y), CLOPS_OK);
    assert_geometry(y, 3, I64(4, 1, 3), I64(1, 12, 4), 0);
    clops_tensor_release(y);
    assert_int_equal(core_unsqueeze(x, -1, &y), CLOPS_OK);
    assert_geometry(y, 3, I64(4, 3, 1), I64(1, 4, 1), 0);
    clops_tensor_release(y);
    assert_int_equal(core_unsqueeze(x, 3, &y), CLOPS_INDEX_OUT_OF_RANGE);
    assert_error_contains("expected to be in range of [-3, 2], but got 3");
    clops_tensor_release(x);
}

/* --- flatten, unflatten -------------------------------------------------- */

static void test_flatten_of_a_zero_dim_tensor_is_a_one_element_vector(void **state)
{
    clops_tensor *x = make_input(0, NULL, NULL, 5, 6);
    clops_tensor *y = NULL;
    (void)state;

    assert_int_equal(core_flatten(x, 0, -1, &y), CLOPS_OK);
    assert_geometry(y, 1, I64(1), I64(1), 5);
    assert_ptr_equal(y->storage, x->storage);
    clops_tensor_release(y);
    clops_tensor_release(x);
}

static void test_flatten_copies_when_the_dims_do_not_merge(void **state)
{
    clops_tensor *x = make_input(3, I64(4, 2, 3), I64(1, 12, 4), 0, 24);
    clops_tensor *y = NULL;
    (void)state;

    assert_int_equal(core_flatten(x, 1, 2, &y), CLOPS_OK);
    assert_geometry(y, 2, I64(4, 6), I64(1, 4), 0);
    assert_ptr_equal(y->storage, x->storage);
    clops_tensor_release(y);
    assert_int_equal(core_flatten(x, 0, -1, &y), CLOPS_OK);
    assert_geometry(y, 1, I64(24), I64(1), 0);
    assert_ptr_not_equal(y->storage, x->storage);
    clops_tensor_release(y);
    assert_int_equal(core_flatten(x, -1, 0, &y), CLOPS_INVALID_ARGUMENT);
    assert_error_contains("start_dim cannot come after end_dim");
    clops_tensor_release(x);
}

static void test_unflatten_splits_a_dim_and_infers_one_size(void **state)
{
    clops_tensor *x = make_contiguous(2, I64(3, 4));
    clops_tensor *y = NULL;
    (void)state;

    assert_int_equal(core_unflatten(x, -1, LIST(2, -1), &y), CLOPS_OK);
    assert_geometry(y, 3, I64(3, 2, 2), I64(4, 2, 1), 0);
    clops_tensor_release(y);
    assert_int_equal(core_unflatten(x, 1, LIST(2, 3), &y), CLOPS_INVALID_SHAPE);
    assert_string_equal(clops_last_error(), "unflatten: Provided sizes [2, 3] don't multiply up "
                                            "to the size of dim 1 (4) in the input tensor");
    assert_int_equal(core_unflatten(x, 1, NULL, 0, &y), CLOPS_INVALID_SHAPE);
    assert_error_contains("sizes must be non-empty");
    clops_tensor_release(x);
}

/* --- diagonal, alias ----------------------------------------------------- */

static void test_diagonal_offsets_move_along_dim2_or_dim1(void **state)
{
    clops_tensor *x = make_contiguous(2, I64(3, 4));
    clops_tensor *y = NULL;
    (void)state;

    assert_int_equal(core_diagonal(x, 1, 0, 1, &y), CLOPS_OK);
    assert_geometry(y, 1, I64(3), I64(5), 1);
    clops_tensor_release(y);
    assert_int_equal(core_diagonal(x, -1, 0, 1, &y), CLOPS_OK);
    assert_geometry(y, 1, I64(2), I64(5), 4);
    clops_tensor_release(y);
    /* Off the matrix: empty, and the offset is left alone. */
    assert_int_equal(core_diagonal(x, 10, 0, 1, &y), CLOPS_OK);
    assert_geometry(y, 1, I64(0), I64(5), 0);
    clops_tensor_release(y);
    clops_tensor_release(x);
}

static void test_diagonal_appends_the_diagonal_as_the_last_dim(void **state)
{
    clops_tensor *x = make_contiguous(3, I64(2, 3, 4));
    clops_tensor *y = NULL;
    (void)state;

    assert_int_equal(core_diagonal(x, 0, 0, 2, &y), CLOPS_OK);
    assert_geometry(y, 2, I64(3, 2), I64(4, 13), 0);
    clops_tensor_release(y);
    clops_tensor_release(x);
}

static void test_diagonal_rejects_identical_dims(void **state)
{
    clops_tensor *x = make_contiguous(2, I64(3, 4));
    clops_tensor *y = NULL;
    (void)state;

    assert_int_equal(core_diagonal(x, 0, 0, -2, &y), CLOPS_INVALID_ARGUMENT);
    assert_error_contains("diagonal dimensions cannot be identical 0, -2");
    clops_tensor_release(x);
}

static void test_alias_is_a_new_object_with_the_same_geometry(void **state)
{
    clops_tensor *x = make_input(2, I64(3, 0), I64(1, 3), 0, 0);
    clops_tensor *y = NULL;
    (void)state;

    assert_int_equal(core_alias(x, &y), CLOPS_OK);
    assert_ptr_not_equal(y, x);
    assert_ptr_equal(y->storage, x->storage);
    assert_geometry(y, 2, I64(3, 0), I64(1, 3), 0);
    clops_tensor_release(y);
    clops_tensor_release(x);
}

/* --- argument checks ----------------------------------------------------- */

static void test_null_arguments_are_invalid_arguments(void **state)
{
    clops_tensor *x = make_contiguous(2, I64(3, 4));
    clops_tensor *y = NULL;
    (void)state;

    assert_int_equal(core_view(NULL, LIST(12), &y), CLOPS_INVALID_ARGUMENT);
    assert_int_equal(core_view(x, LIST(12), NULL), CLOPS_INVALID_ARGUMENT);
    assert_int_equal(core_view(x, NULL, 1, &y), CLOPS_INVALID_ARGUMENT);
    assert_int_equal(core_permute(x, NULL, 2, &y), CLOPS_INVALID_ARGUMENT);
    assert_int_equal(core_alias(NULL, &y), CLOPS_INVALID_ARGUMENT);
    assert_null(y);
    clops_tensor_release(x);
}

/* --- PyTorch's answers --------------------------------------------------- */

/* Reads a JSON int list into out (at most cap); -1 when it is not one. */
static int json_ints(const cJSON *arr, int64_t *out, int cap)
{
    int n = 0;
    const cJSON *item;

    if (!cJSON_IsArray(arr))
        return -1;
    cJSON_ArrayForEach(item, arr)
    {
        if (!cJSON_IsNumber(item) || n >= cap)
            return -1;
        out[n++] = (int64_t)item->valuedouble;
    }
    return n;
}

/* An int member of obj. */
static int64_t json_int(const cJSON *obj, const char *key)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!cJSON_IsNumber(item))
        fail_msg("missing integer \"%s\"", key);
    return (int64_t)item->valuedouble;
}

/* An optional int member: NULL for JSON null, else *slot holds it. */
static const int64_t *json_opt_int(const cJSON *obj, const char *key, int64_t *slot)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (cJSON_IsNull(item))
        return NULL;
    if (!cJSON_IsNumber(item))
        fail_msg("missing optional integer \"%s\"", key);
    *slot = (int64_t)item->valuedouble;
    return slot;
}

/* Runs one case's op on x; *known is false for an op name the table does
 * not know. */
static clops_status run_case(const char *op, const cJSON *args, clops_tensor *x,
                             clops_tensor **out, bool *known)
{
    int64_t a[64], b[64];
    int64_t s0, s1;
    int na, nb;

    *known = true;
    if (!strcmp(op, "view") || !strcmp(op, "reshape")) {
        na = json_ints(cJSON_GetObjectItemCaseSensitive(args, "shape"), a, 64);
        return op[0] == 'v' ? core_view(x, a, na, out) : core_reshape(x, a, na, out);
    }
    if (!strcmp(op, "as_strided")) {
        na = json_ints(cJSON_GetObjectItemCaseSensitive(args, "size"), a, 64);
        nb = json_ints(cJSON_GetObjectItemCaseSensitive(args, "stride"), b, 64);
        return core_as_strided(x, a, na, b, nb, json_opt_int(args, "storage_offset", &s0), out);
    }
    if (!strcmp(op, "permute")) {
        na = json_ints(cJSON_GetObjectItemCaseSensitive(args, "dims"), a, 64);
        return core_permute(x, a, na, out);
    }
    if (!strcmp(op, "transpose"))
        return core_transpose(x, json_int(args, "dim0"), json_int(args, "dim1"), out);
    if (!strcmp(op, "t"))
        return core_t(x, out);
    if (!strcmp(op, "expand")) {
        na = json_ints(cJSON_GetObjectItemCaseSensitive(args, "size"), a, 64);
        return core_expand(x, a, na, false, out);
    }
    if (!strcmp(op, "narrow"))
        return core_narrow(x, json_int(args, "dim"), json_int(args, "start"),
                           json_int(args, "length"), out);
    if (!strcmp(op, "slice"))
        return core_slice(x, json_int(args, "dim"), json_opt_int(args, "start", &s0),
                          json_opt_int(args, "end", &s1), json_int(args, "step"), out);
    if (!strcmp(op, "select"))
        return core_select(x, json_int(args, "dim"), json_int(args, "index"), out);
    if (!strcmp(op, "squeeze"))
        return core_squeeze(x, out);
    if (!strcmp(op, "squeeze_dim"))
        return core_squeeze_dim(x, json_int(args, "dim"), out);
    if (!strcmp(op, "squeeze_dims")) {
        na = json_ints(cJSON_GetObjectItemCaseSensitive(args, "dims"), a, 64);
        return core_squeeze_dims(x, a, na, out);
    }
    if (!strcmp(op, "unsqueeze"))
        return core_unsqueeze(x, json_int(args, "dim"), out);
    if (!strcmp(op, "flatten"))
        return core_flatten(x, json_int(args, "start_dim"), json_int(args, "end_dim"), out);
    if (!strcmp(op, "unflatten")) {
        na = json_ints(cJSON_GetObjectItemCaseSensitive(args, "sizes"), a, 64);
        return core_unflatten(x, json_int(args, "dim"), a, na, out);
    }
    if (!strcmp(op, "diagonal"))
        return core_diagonal(x, json_int(args, "offset"), json_int(args, "dim1"),
                             json_int(args, "dim2"), out);
    if (!strcmp(op, "alias"))
        return core_alias(x, out);
    *known = false;
    return CLOPS_INTERNAL;
}

/* True when st is the status PyTorch's exception type maps to. */
static bool status_matches(clops_status st, const char *exception)
{
    if (!strcmp(exception, "IndexError"))
        return st == CLOPS_INDEX_OUT_OF_RANGE;
    if (!strcmp(exception, "RuntimeError"))
        return st == CLOPS_INVALID_SHAPE || st == CLOPS_INVALID_ARGUMENT;
    if (!strcmp(exception, "ValueError") || !strcmp(exception, "TypeError"))
        return st == CLOPS_INVALID_ARGUMENT;
    return false;
}

/* Compares one case's outcome with PyTorch's; describes a difference in why
 * (empty when they agree). */
static void check_case(const cJSON *c, char *why, size_t cap)
{
    const cJSON *input = cJSON_GetObjectItemCaseSensitive(c, "input");
    const cJSON *expect = cJSON_GetObjectItemCaseSensitive(c, "expect");
    const cJSON *op = cJSON_GetObjectItemCaseSensitive(c, "op");
    const cJSON *error = cJSON_GetObjectItemCaseSensitive(expect, "error");
    int64_t sizes[CLOPS_MAX_DIMS], strides[CLOPS_MAX_DIMS];
    int64_t want_sizes[CLOPS_MAX_DIMS], want_strides[CLOPS_MAX_DIMS];
    clops_tensor *x, *y = NULL;
    bool known;
    int ndim, want_ndim;
    clops_status st;

    why[0] = '\0';
    assert_true(cJSON_IsString(op));
    ndim = json_ints(cJSON_GetObjectItemCaseSensitive(input, "sizes"), sizes, CLOPS_MAX_DIMS);
    assert_int_equal(json_ints(cJSON_GetObjectItemCaseSensitive(input, "strides"), strides,
                               CLOPS_MAX_DIMS),
                     ndim);
    x = make_input(ndim, sizes, strides, json_int(input, "offset"), json_int(input, "storage"));
    st = run_case(op->valuestring, cJSON_GetObjectItemCaseSensitive(c, "args"), x, &y, &known);
    if (!known) {
        snprintf(why, cap, "unknown op");
    } else if (cJSON_IsString(error)) {
        if (st == CLOPS_OK)
            snprintf(why, cap, "succeeded, PyTorch raises %s", error->valuestring);
        else if (!status_matches(st, error->valuestring))
            snprintf(why, cap, "failed with %s (%s), PyTorch raises %s", clops_status_name(st),
                     clops_last_error(), error->valuestring);
        else if (y)
            snprintf(why, cap, "failed but left out set");
    } else if (st != CLOPS_OK) {
        snprintf(why, cap, "failed with %s: %s", clops_status_name(st), clops_last_error());
    } else {
        const cJSON *is_view = cJSON_GetObjectItemCaseSensitive(expect, "is_view");
        want_ndim = json_ints(cJSON_GetObjectItemCaseSensitive(expect, "sizes"), want_sizes,
                              CLOPS_MAX_DIMS);
        json_ints(cJSON_GetObjectItemCaseSensitive(expect, "strides"), want_strides,
                  CLOPS_MAX_DIMS);
        bool same = y->ndim == want_ndim && y->offset == json_int(expect, "offset");
        for (int d = 0; same && d < want_ndim; d++)
            same = y->sizes[d] == want_sizes[d] && y->strides[d] == want_strides[d];
        if (!same) {
            char got[2][SHAPE_CAP];
            snprintf(why, cap, "got sizes %s strides %s offset %lld",
                     clops__fmt_shape(got[0], SHAPE_CAP, y->ndim, y->sizes),
                     clops__fmt_shape(got[1], SHAPE_CAP, y->ndim, y->strides),
                     (long long)y->offset);
        } else if (cJSON_IsTrue(is_view) != (y->storage == x->storage)) {
            snprintf(why, cap, "%s the input's storage, PyTorch %s",
                     y->storage == x->storage ? "shares" : "does not share",
                     cJSON_IsTrue(is_view) ? "returns a view" : "copies");
        }
    }
    clops_tensor_release(y);
    clops_tensor_release(x);
}

static void test_every_case_matches_pytorch(void **state)
{
    const char *path = CLOPS_TEST_DATA_DIR "/view_cases.json";
    FILE *f = fopen(path, "rb");
    char *text;
    long len;
    cJSON *cases;
    const cJSON *c;
    int index = 0, failures = 0;
    (void)state;

    if (!f)
        fail_msg("cannot open %s", path);
    fseek(f, 0, SEEK_END);
    len = ftell(f);
    fseek(f, 0, SEEK_SET);
    text = malloc((size_t)len + 1);
    assert_non_null(text);
    assert_int_equal(fread(text, 1, (size_t)len, f), (size_t)len);
    text[len] = '\0';
    fclose(f);
    cases = cJSON_Parse(text);
    free(text);
    if (!cJSON_IsArray(cases))
        fail_msg("%s is not a JSON list", path);

    cJSON_ArrayForEach(c, cases)
    {
        char why[1024];
        check_case(c, why, sizeof why);
        if (why[0]) {
            char *line = cJSON_PrintUnformatted(c);
            print_error("case %d (line %d): %s\n    %s\n", index, index + 2, why, line);
            free(line);
            failures++;
        }
        index++;
    }
    cJSON_Delete(cases);
    print_message("%d view cases checked against PyTorch, %d differ\n", index, failures);
    assert_true(index >= 150);
    assert_int_equal(failures, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_contiguous_strides_treat_size_zero_and_one_dims_as_pytorch),
        cmocka_unit_test(test_check_sizes_rejects_negative_sizes_too_many_dims_and_overflow),
        cmocka_unit_test(test_storage_bytes_needed_counts_offset_and_furthest_element),
        cmocka_unit_test(test_storage_bytes_needed_is_zero_for_an_empty_tensor_at_any_offset),
        cmocka_unit_test(test_storage_bytes_needed_rejects_overflow_and_negative_reach),
        cmocka_unit_test(test_wrap_dim_counts_negative_dims_from_the_end),
        cmocka_unit_test(test_wrap_dim_accepts_minus_one_and_zero_on_a_zero_dim_tensor),
        cmocka_unit_test(test_wrap_dim_reports_the_range_as_pytorch_does),
        cmocka_unit_test(test_infer_size_fills_in_the_single_minus_one),
        cmocka_unit_test(test_infer_size_error_names_the_shape_and_the_element_count),
        cmocka_unit_test(test_infer_size_allows_only_one_minus_one),
        cmocka_unit_test(test_infer_size_refuses_minus_one_next_to_a_zero_as_ambiguous),
        cmocka_unit_test(test_view_compute_strides_fails_when_a_new_dim_spans_two_chunks),
        cmocka_unit_test(test_view_shares_storage_and_keeps_the_offset),
        cmocka_unit_test(test_view_of_a_transposed_tensor_fails_and_suggests_reshape),
        cmocka_unit_test(test_view_of_an_empty_tensor_uses_row_major_strides_for_a_new_shape),
        cmocka_unit_test(test_view_of_a_zero_dim_tensor_gives_stride_one_everywhere),
        cmocka_unit_test(test_reshape_returns_a_view_when_the_strides_allow_one),
        cmocka_unit_test(test_reshape_copies_to_a_contiguous_tensor_when_no_view_exists),
        cmocka_unit_test(test_a_view_keeps_the_storage_alive_after_its_base_is_released),
        cmocka_unit_test(test_as_strided_keeps_the_input_offset_when_none_is_given),
        cmocka_unit_test(test_as_strided_rejects_a_geometry_outside_the_storage),
        cmocka_unit_test(test_as_strided_rejects_negative_strides_offsets_and_length_mismatch),
        cmocka_unit_test(test_permute_accepts_negative_dims),
        cmocka_unit_test(test_permute_rejects_repeated_dims_and_a_wrong_count),
        cmocka_unit_test(test_transpose_of_a_dim_with_itself_is_an_alias),
        cmocka_unit_test(test_t_rejects_more_than_two_dims),
        cmocka_unit_test(test_t_of_a_vector_or_scalar_is_an_alias),
        cmocka_unit_test(test_expand_broadcasts_size_one_and_new_dims_with_stride_zero),
        cmocka_unit_test(test_expand_gives_a_new_size_one_dim_the_stride_over_the_dims_after_it),
        cmocka_unit_test(test_expand_of_a_zero_dim_tensor_has_all_strides_zero),
        cmocka_unit_test(test_expand_error_names_the_target_and_tensor_sizes),
        cmocka_unit_test(test_narrow_accepts_a_negative_start_and_an_empty_range_at_the_end),
        cmocka_unit_test(test_narrow_rejects_a_start_outside_the_dim_and_a_range_past_its_end),
        cmocka_unit_test(test_slice_clamps_bounds_into_the_dim),
        cmocka_unit_test(test_slice_with_no_bounds_and_a_step_rounds_the_size_up),
        cmocka_unit_test(test_slice_rejects_a_step_that_is_not_positive),
        cmocka_unit_test(test_select_counts_a_negative_index_from_the_end),
        cmocka_unit_test(test_select_rejects_an_index_out_of_range_and_a_zero_dim_tensor),
        cmocka_unit_test(test_squeeze_removes_only_size_one_dims),
        cmocka_unit_test(test_squeeze_dims_rejects_a_dim_named_twice),
        cmocka_unit_test(test_unsqueeze_stride_steps_over_the_dim_after_it_or_is_one_at_the_end),
        cmocka_unit_test(test_flatten_of_a_zero_dim_tensor_is_a_one_element_vector),
        cmocka_unit_test(test_flatten_copies_when_the_dims_do_not_merge),
        cmocka_unit_test(test_unflatten_splits_a_dim_and_infers_one_size),
        cmocka_unit_test(test_diagonal_offsets_move_along_dim2_or_dim1),
        cmocka_unit_test(test_diagonal_appends_the_diagonal_as_the_last_dim),
        cmocka_unit_test(test_diagonal_rejects_identical_dims),
        cmocka_unit_test(test_alias_is_a_new_object_with_the_same_geometry),
        cmocka_unit_test(test_null_arguments_are_invalid_arguments),
        cmocka_unit_test(test_every_case_matches_pytorch),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
