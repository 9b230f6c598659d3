/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/test_copy.c: copies and conversions between tensors, devices and
 * host memory (ops/tensor/tensor_copy.c), and the filling factories (core/tensor.c).
 *
 * Every element-wise copy runs the pointwise engine's cast op, so these tests
 * check the conversion rules once for all of clops: for every (source,
 * destination) dtype pair on every device, through contiguous, transposed,
 * step-sliced (storage offset, gaps) and expanded views, zero-size and
 * zero-dim tensors, with guard regions around every written view.  The
 * expected values come from the CPU reference's conversion functions
 * (pw_ref_load / pw_ref_store: float to uint8 through int64 as PyTorch does,
 * to bool as x != 0, float16/bfloat16 through float32), applied to the host
 * copy of the source; a table of hand-written cases pins those functions to
 * PyTorch's results.
 *
 * Float-to-integer conversions only see finite values within [-100, 100]:
 * outside the target's range they are undefined in C, OpenCL and PyTorch.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops/tensor/tensor.h"
#include "support/clops_test.h"

/* A shape per rank class used by the pair tests: odd sizes so no dimension
 * is a multiple of a vector width. */
static const int64_t pair_shape[2] = {7, 13};

/* --- helpers ---------------------------------------------------------------- */

/* The compute dtype the cast op uses for a destination dtype. */
static clops_dtype cast_compute(clops_dtype to)
{
    return (to == CLOPS_FLOAT16 || to == CLOPS_BFLOAT16) ? CLOPS_FLOAT32 : to;
}

/* n values of `from` (row-major host data) converted to `to` as copy_ does,
 * into a new host buffer. */
static void *expected_cast(const void *src, int64_t n, clops_dtype from, clops_dtype to)
{
    void *out = malloc(n ? (size_t)n * clops_dtype_size(to) : 1);
    CT_ASSERT(out != NULL);
    clops_dtype ct = cast_compute(to);
    for (int64_t i = 0; i < n; i++)
        pw_ref_store(out, i, to, ct, pw_ref_load(src, i, from, ct));
    return out;
}

/* Host values for a conversion test from `from` to `to`. */
static void *cast_values(int64_t n, clops_dtype from, clops_dtype to, uint64_t seed)
{
    void *buf = malloc(n ? (size_t)n * clops_dtype_size(from) : 1);
    CT_ASSERT(buf != NULL);
    ct_rng r = ct_rng_seeded(seed);
    ct_fill_for_cast(buf, n, from, to, &r);
    return buf;
}

/* Asserts that tensor t holds exactly the n host values `want` of its dtype. */
static void assert_holds(const clops_tensor *t, const void *want)
{
    void *got = ct_to_host(t);
    ct_report rep;
    bool ok = ct_compare_host(got, want, clops_tensor_dtype(t), clops_tensor_ndim(t),
                              clops_tensor_sizes(t), CT_TOL_EXACT, &rep);
    free(got);
    if (!ok)
        ct_fail("%lld of %lld elements differ:%s", (long long)rep.mismatches,
                (long long)rep.numel, rep.detail);
}

/* Sets the case description of a conversion. */
static void set_pair_case(clops_dtype from, clops_dtype to, const char *layouts)
{
    ct_set_case("%s -> %s, %s", clops_dtype_name(from), clops_dtype_name(to), layouts);
}

/* --- every dtype pair ---------------------------------------------------------- */

/* _to_copy of a transposed source keeps its layout (dense in another order),
 * so this runs the contiguous fast path of each of the 100 cast kernels. */
static void test_to_copy_converts_every_dtype_pair_like_the_reference(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_devices(devs, CT_MAX_DEVICES);
    int64_t n = ct_numel(2, pair_shape);
    for (int k = 0; k < nd; k++) {
        ct_set_device(devs[k]);
        for (int f = 0; f < CLOPS_DTYPE_COUNT; f++)
            for (int o = 0; o < CLOPS_DTYPE_COUNT; o++) {
                clops_dtype from = (clops_dtype)f, to = (clops_dtype)o;
                if (!ct_device_supports(devs[k], from) || !ct_device_supports(devs[k], to))
                    continue;
                set_pair_case(from, to, "transposed source");
                void *vals = cast_values(n, from, to, 100u * (unsigned)f + (unsigned)o);
                void *want = expected_cast(vals, n, from, to);
                clops_tensor *src = ct_from_values(devs[k], from, 2, pair_shape, CT_TRANSPOSED,
                                                   vals);
                clops_tensor *dst = NULL;
                CT_OK(core_to_copy(src, to, NULL, &dst));
                CT_ASSERT(clops_tensor_dtype(dst) == to);
                assert_holds(dst, want);
                clops_tensor_release(src);
                clops_tensor_release(dst);
                free(vals);
                free(want);
            }
    }
    ct_clear_context();
}

/* copy_ from a step-sliced source with a storage offset into a transposed
 * destination: the strided kernel of each pair, guards around the output. */
static void test_copy_converts_every_dtype_pair_between_strided_views(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_devices(devs, CT_MAX_DEVICES);
    int64_t n = ct_numel(2, pair_shape);
    for (int k = 0; k < nd; k++) {
        ct_set_device(devs[k]);
        for (int f = 0; f < CLOPS_DTYPE_COUNT; f++)
            for (int o = 0; o < CLOPS_DTYPE_COUNT; o++) {
                clops_dtype from = (clops_dtype)f, to = (clops_dtype)o;
                if (!ct_device_supports(devs[k], from) || !ct_device_supports(devs[k], to))
                    continue;
                set_pair_case(from, to, "sliced source, transposed destination");
                void *vals = cast_values(n, from, to, 7000u + 100u * (unsigned)f + (unsigned)o);
                void *want = expected_cast(vals, n, from, to);
                clops_tensor *src = ct_from_values(devs[k], from, 2, pair_shape, CT_SLICED, vals);
                ct_guarded g = ct_guarded_new(devs[k], to, 2, pair_shape, CT_TRANSPOSED);
                CT_OK(core_copy_(g.t, src, false));
                assert_holds(g.t, want);
                CT_GUARDS_INTACT(&g);
                ct_guarded_release(&g);
                clops_tensor_release(src);
                free(vals);
                free(want);
            }
    }
    ct_clear_context();
}

/* --- layouts ------------------------------------------------------------------- */

/* A few pairs that cover the conversion kinds (same dtype, widening,
 * narrowing, float to int, to bool, from bool). */
static const clops_dtype some_pairs[][2] = {
    {CLOPS_FLOAT32, CLOPS_FLOAT32}, {CLOPS_FLOAT32, CLOPS_FLOAT16}, {CLOPS_BFLOAT16, CLOPS_FLOAT32},
    {CLOPS_INT64, CLOPS_UINT8},     {CLOPS_FLOAT16, CLOPS_INT32},   {CLOPS_INT8, CLOPS_BOOL},
    {CLOPS_BOOL, CLOPS_FLOAT16},    {CLOPS_INT16, CLOPS_INT64},
};

/* Copies a source of layout src_layout into a guarded destination of
 * dst_layout for every pair of some_pairs on every device. */
static void check_layouts(int ndim, const int64_t *sizes, ct_layout src_layout,
                          ct_layout dst_layout)
{
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_devices(devs, CT_MAX_DEVICES);
    char shape[CLOPS_MAX_DIMS * 22 + 4];
    clops__fmt_shape(shape, sizeof shape, ndim, sizes);
    for (int k = 0; k < nd; k++) {
        ct_set_device(devs[k]);
        for (size_t p = 0; p < CT_COUNT(some_pairs); p++) {
            clops_dtype from = some_pairs[p][0], to = some_pairs[p][1];
            ct_set_case("%s -> %s, %s %s source into a %s destination", clops_dtype_name(from),
                        clops_dtype_name(to), shape, ct_layout_name(src_layout),
                        ct_layout_name(dst_layout));
            /* Float-to-integer pairs stay in range (see the file comment). */
            pw_domain dom = clops_dtype_is_floating(from) && clops_dtype_is_integral(to)
                                ? PW_DOMAIN_SMALL
                                : PW_DOMAIN_ANY;
            clops_tensor *src = ct_random(devs[k], from, ndim, sizes, src_layout, dom, 31 + p);
            void *vals = ct_to_host(src);
            void *want = expected_cast(vals, ct_numel(ndim, sizes), from, to);
            ct_guarded g = ct_guarded_new(devs[k], to, ndim, sizes, dst_layout);
            CT_OK(core_copy_(g.t, src, false));
            assert_holds(g.t, want);
            CT_GUARDS_INTACT(&g);
            ct_guarded_release(&g);
            clops_tensor_release(src);
            free(vals);
            free(want);
        }
    }
    ct_clear_context();
}

static void test_copy_broadcasts_an_expanded_source_into_every_layout(void **state)
{
    (void)state;
    const int64_t sizes[3] = {4, 5, 6};
    check_layouts(3, sizes, CT_EXPANDED, CT_CONTIGUOUS);
    check_layouts(3, sizes, CT_EXPANDED, CT_TRANSPOSED);
    check_layouts(3, sizes, CT_EXPANDED, CT_SLICED);
}

static void test_copy_between_dense_views_of_one_dtype_respects_storage_offsets(void **state)
{
    (void)state;
    /* Same dtype and geometry: copy_ may use a plain buffer copy, which
     * must honour both storage offsets and write nothing else. */
    const int64_t sizes[2] = {5, 7};
    check_layouts(2, sizes, CT_CONTIGUOUS, CT_CONTIGUOUS);
    check_layouts(2, sizes, CT_TRANSPOSED, CT_TRANSPOSED);
    check_layouts(2, sizes, CT_SLICED, CT_SLICED);
}

static void test_large_dense_copies_respect_storage_offsets(void **state)
{
    (void)state;
    /* 1.2 MiB of float32: from 1 MiB a CPU device copies with the copy
     * kernel instead of a buffer copy (ops/tensor/tensor_copy.c); the guarded
     * destination has a storage offset. */
    const int64_t sizes[2] = {512, 600};
    check_layouts(2, sizes, CT_CONTIGUOUS, CT_CONTIGUOUS);
}

static void test_copy_of_rank_five_views_that_do_not_coalesce_is_correct(void **state)
{
    (void)state;
    /* Five dims that no reordering merges: the generic-rank kernel. */
    const int64_t sizes[5] = {2, 3, 2, 3, 5};
    check_layouts(5, sizes, CT_SLICED, CT_TRANSPOSED);
    check_layouts(5, sizes, CT_EXPANDED, CT_SLICED);
}

static void test_copy_of_a_one_dimensional_slice_with_a_step_is_correct(void **state)
{
    (void)state;
    const int64_t sizes[1] = {1000};
    check_layouts(1, sizes, CT_SLICED, CT_CONTIGUOUS);
    check_layouts(1, sizes, CT_CONTIGUOUS, CT_SLICED);
}

/* --- zero-size and zero-dim ------------------------------------------------------ */

static void test_copy_of_zero_size_tensors_gives_empty_results_and_writes_nothing(void **state)
{
    (void)state;
    const int64_t shapes[][3] = {{0, 1, 1}, {3, 0, 2}, {4, 5, 0}};
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_devices(devs, CT_MAX_DEVICES);
    for (int k = 0; k < nd; k++) {
        ct_set_device(devs[k]);
        for (size_t s = 0; s < CT_COUNT(shapes); s++) {
            ct_set_case("shape [%lld, %lld, %lld]", (long long)shapes[s][0],
                        (long long)shapes[s][1], (long long)shapes[s][2]);
            clops_tensor *src = ct_random(devs[k], CLOPS_FLOAT32, 3, shapes[s], CT_SLICED,
                                          PW_DOMAIN_ANY, 1);
            clops_tensor *dst = NULL;
            CT_OK(core_to_copy(src, CLOPS_INT16, NULL, &dst));
            CT_ASSERT(clops_tensor_ndim(dst) == 3 && clops_tensor_numel(dst) == 0);
            CT_ASSERT(memcmp(clops_tensor_sizes(dst), shapes[s], sizeof shapes[s]) == 0);
            ct_guarded g = ct_guarded_new(devs[k], CLOPS_INT16, 3, shapes[s], CT_CONTIGUOUS);
            CT_OK(core_copy_(g.t, src, false));
            CT_GUARDS_INTACT(&g);
            CT_OK(clops_tensor_to_host(src, NULL, 0));
            ct_guarded_release(&g);
            clops_tensor_release(src);
            clops_tensor_release(dst);
        }
    }
    ct_clear_context();
}

static void test_copy_of_a_zero_dim_tensor_converts_its_one_value(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_devices(devs, CT_MAX_DEVICES);
    const float value = -3.75f;
    for (int k = 0; k < nd; k++) {
        ct_set_device(devs[k]);
        clops_tensor *src = ct_from_values(devs[k], CLOPS_FLOAT32, 0, NULL, CT_SLICED, &value);
        CT_ASSERT(clops_tensor_storage_offset(src) == 1);
        clops_tensor *dst = NULL;
        CT_OK(core_to_copy(src, CLOPS_INT32, NULL, &dst));
        CT_ASSERT(clops_tensor_ndim(dst) == 0);
        clops_scalar s;
        CT_OK(clops_tensor_item(dst, &s));
        CT_ASSERT(s.kind == CLOPS_SCALAR_INT && s.v.i == -3);
        ct_guarded g = ct_guarded_new(devs[k], CLOPS_FLOAT16, 0, NULL, CT_SLICED);
        CT_OK(core_copy_(g.t, src, false));
        CT_OK(clops_tensor_item(g.t, &s));
        CT_ASSERT(s.kind == CLOPS_SCALAR_FLOAT && s.v.f == -3.75);
        CT_GUARDS_INTACT(&g);
        ct_guarded_release(&g);
        clops_tensor_release(src);
        clops_tensor_release(dst);
    }
    ct_clear_context();
}

static void test_copy_broadcasts_a_zero_dim_source_over_the_whole_destination(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_devices(devs, CT_MAX_DEVICES);
    const int64_t sizes[2] = {6, 9};
    const int8_t value = -7;
    for (int k = 0; k < nd; k++) {
        ct_set_device(devs[k]);
        clops_tensor *src = ct_from_values(devs[k], CLOPS_INT8, 0, NULL, CT_CONTIGUOUS, &value);
        ct_guarded g = ct_guarded_new(devs[k], CLOPS_FLOAT64, 2, sizes, CT_SLICED);
        if (!ct_device_supports(devs[k], CLOPS_FLOAT64)) {
            ct_guarded_release(&g);
            g = ct_guarded_new(devs[k], CLOPS_FLOAT32, 2, sizes, CT_SLICED);
        }
        CT_OK(core_copy_(g.t, src, false));
        double want[54];
        for (int i = 0; i < 54; i++)
            want[i] = -7.0;
        void *w = expected_cast(want, 54, CLOPS_FLOAT64, clops_tensor_dtype(g.t));
        assert_holds(g.t, w);
        CT_GUARDS_INTACT(&g);
        free(w);
        ct_guarded_release(&g);
        clops_tensor_release(src);
    }
    ct_clear_context();
}

static void test_copy_refuses_a_source_that_does_not_broadcast_to_the_destination(void **state)
{
    (void)state;
    clops_tensor *dst = ct_empty_layout(ct_cpu(), CLOPS_FLOAT32, 2, CT_I64(3, 4), CT_CONTIGUOUS);
    clops_tensor *src = ct_empty_layout(ct_cpu(), CLOPS_FLOAT32, 1, CT_I64(5), CT_CONTIGUOUS);
    CT_STATUS(core_copy_(dst, src, false), CLOPS_INVALID_SHAPE);
    CT_ERROR_CONTAINS("copy_");
    clops_tensor_release(dst);
    clops_tensor_release(src);
}

/* --- the conversion rules themselves --------------------------------------------- */

/* Conversions whose results PyTorch defines, written out by hand. */
static void test_notable_conversions_give_pytorchs_results_on_every_device(void **state)
{
    (void)state;
    static const struct {
        clops_dtype from, to;
        double in, out; /* the input as from's value; the expected value of to */
    } cases[] = {
        {CLOPS_FLOAT32, CLOPS_UINT8, -1.5, 255},  /* through int64: -1 wraps */
        {CLOPS_FLOAT32, CLOPS_UINT8, -100.0, 156},
        {CLOPS_FLOAT64, CLOPS_UINT8, 99.99, 99},
        {CLOPS_FLOAT32, CLOPS_INT8, -2.9, -2},    /* truncation toward zero */
        {CLOPS_FLOAT16, CLOPS_INT64, 65504, 65504},
        {CLOPS_FLOAT32, CLOPS_BOOL, -0.0, 0},
        {CLOPS_FLOAT32, CLOPS_BOOL, NAN, 1},
        {CLOPS_FLOAT32, CLOPS_BOOL, 1e-30, 1},
        {CLOPS_BFLOAT16, CLOPS_BOOL, -INFINITY, 1},
        {CLOPS_INT32, CLOPS_BOOL, 256, 1},        /* not truncated to a byte */
        {CLOPS_INT64, CLOPS_INT8, 300, 44},       /* two's complement wrap */
        {CLOPS_INT16, CLOPS_UINT8, -1, 255},
        {CLOPS_UINT8, CLOPS_INT8, 200, -56},
        {CLOPS_BOOL, CLOPS_FLOAT32, 1, 1.0},
        {CLOPS_INT64, CLOPS_FLOAT32, 16777217, 16777216}, /* rounds to even */
        {CLOPS_INT32, CLOPS_FLOAT16, 65535, INFINITY},
        {CLOPS_FLOAT32, CLOPS_FLOAT16, 1e-8, 0.0},
        {CLOPS_FLOAT64, CLOPS_BFLOAT16, 1.00390625, 1.0}, /* tie to even */
        {CLOPS_FLOAT64, CLOPS_FLOAT32, 0.1, 0.100000001490116119384765625},
        {CLOPS_FLOAT16, CLOPS_FLOAT64, -0.0, -0.0},
    };
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_devices(devs, CT_MAX_DEVICES);
    for (int k = 0; k < nd; k++) {
        ct_set_device(devs[k]);
        for (size_t i = 0; i < CT_COUNT(cases); i++) {
            clops_dtype from = cases[i].from, to = cases[i].to;
            if (!ct_device_supports(devs[k], from) || !ct_device_supports(devs[k], to))
                continue;
            ct_set_case("%s %.17g -> %s", clops_dtype_name(from), cases[i].in,
                        clops_dtype_name(to));
            uint64_t in = 0, want = 0;
            pw_ref_store(&in, 0, from, CLOPS_FLOAT64, (pw_value){.f = cases[i].in});
            pw_ref_store(&want, 0, to, CLOPS_FLOAT64, (pw_value){.f = cases[i].out});
            clops_tensor *src = ct_from_values(devs[k], from, 1, CT_I64(1), CT_CONTIGUOUS, &in);
            clops_tensor *dst = NULL;
            CT_OK(core_to_copy(src, to, NULL, &dst));
            assert_holds(dst, &want);
            clops_tensor_release(src);
            clops_tensor_release(dst);
        }
    }
    ct_clear_context();
}

static void test_to_copy_keeps_the_memory_layout_of_a_dense_source(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_devices(devs, CT_MAX_DEVICES);
    for (int k = 0; k < nd; k++) {
        ct_set_device(devs[k]);
        clops_tensor *src = ct_random(devs[k], CLOPS_INT32, 3, CT_I64(2, 3, 4), CT_TRANSPOSED,
                                      PW_DOMAIN_ANY, 5);
        clops_tensor *dst = NULL;
        CT_OK(core_to_copy(src, CLOPS_INT16, NULL, &dst));
        CT_ASSERT(memcmp(clops_tensor_strides(dst), clops_tensor_strides(src),
                         3 * sizeof(int64_t)) == 0);
        CT_ASSERT(clops_tensor_storage_offset(dst) == 0);
        clops_tensor_release(src);
        clops_tensor_release(dst);
    }
    ct_clear_context();
}

/* --- across devices ---------------------------------------------------------------- */

/* Copies src (on a) to device b converting to `to` both with _to_copy and
 * with copy_ into a guarded sliced destination; checks the values. */
static void check_cross_device(clops_device *a, clops_device *b, clops_dtype from, clops_dtype to)
{
    const int64_t sizes[2] = {9, 11};
    ct_set_case("%s on %s -> %s on %s", clops_dtype_name(from), clops_device_label(a),
                clops_dtype_name(to), clops_device_label(b));
    void *vals = cast_values(99, from, to, (uint64_t)from * 16 + (uint64_t)to);
    void *want = expected_cast(vals, 99, from, to);
    clops_tensor *src = ct_from_values(a, from, 2, sizes, CT_SLICED, vals);
    clops_tensor *dst = NULL;
    CT_OK(core_to_copy(src, to, b, &dst));
    CT_ASSERT(clops_tensor_device(dst) == b);
    assert_holds(dst, want);
    ct_guarded g = ct_guarded_new(b, to, 2, sizes, CT_TRANSPOSED);
    CT_OK(core_copy_(g.t, src, false));
    assert_holds(g.t, want);
    CT_GUARDS_INTACT(&g);
    ct_guarded_release(&g);
    clops_tensor_release(src);
    clops_tensor_release(dst);
    free(vals);
    free(want);
}

static void test_copies_between_the_cpu_and_each_opencl_device_convert_every_pair(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_opencl_devices(devs, CT_MAX_DEVICES);
    if (nd == 0)
        skip();
    for (int k = 0; k < nd; k++) {
        ct_set_device(devs[k]);
        for (int f = 0; f < CLOPS_DTYPE_COUNT; f++)
            for (int o = 0; o < CLOPS_DTYPE_COUNT; o++) {
                clops_dtype from = (clops_dtype)f, to = (clops_dtype)o;
                if (!ct_device_supports(devs[k], from) || !ct_device_supports(devs[k], to))
                    continue;
                check_cross_device(ct_cpu(), devs[k], from, to);
                check_cross_device(devs[k], ct_cpu(), from, to);
            }
    }
    ct_clear_context();
}

static void test_copies_between_two_opencl_devices_keep_values(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_opencl_devices(devs, CT_MAX_DEVICES);
    if (nd < 2)
        skip();
    for (int a = 0; a < nd; a++)
        for (int b = 0; b < nd; b++) {
            if (a == b)
                continue;
            ct_set_device(devs[a]);
            check_cross_device(devs[a], devs[b], CLOPS_FLOAT32, CLOPS_FLOAT32);
            check_cross_device(devs[a], devs[b], CLOPS_UINT8, CLOPS_FLOAT16);
            check_cross_device(devs[a], devs[b], CLOPS_FLOAT16, CLOPS_INT32);
        }
    ct_clear_context();
}

static void test_tensor_to_device_gives_a_contiguous_copy_even_on_the_same_device(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_devices(devs, CT_MAX_DEVICES);
    for (int k = 0; k < nd; k++) {
        ct_set_device(devs[k]);
        clops_tensor *src = ct_random(devs[k], CLOPS_INT16, 2, CT_I64(6, 5), CT_SLICED,
                                      PW_DOMAIN_ANY, 77);
        for (int j = 0; j < nd; j++) {
            clops_tensor *dst = NULL;
            CT_OK(clops_tensor_to_device(src, devs[j], &dst));
            CT_ASSERT(clops_tensor_device(dst) == devs[j]);
            CT_ASSERT(clops_tensor_is_contiguous(dst) && !clops_tensor_shares_storage(dst, src));
            CT_ASSERT_CLOSE(dst, src, CT_TOL_EXACT);
            clops_tensor_release(dst);
        }
        clops_tensor_release(src);
    }
    ct_clear_context();
}

/* --- host transfers ------------------------------------------------------------------ */

static void test_to_host_reads_every_layout_in_row_major_order(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_devices(devs, CT_MAX_DEVICES);
    const int64_t sizes[3] = {3, 4, 5};
    int32_t vals[60];
    for (int i = 0; i < 60; i++)
        vals[i] = 1000 + i;
    for (int k = 0; k < nd; k++) {
        ct_set_device(devs[k]);
        for (int l = 0; l < CT_EXPANDED; l++) {
            ct_set_case("%s", ct_layout_name((ct_layout)l));
            clops_tensor *t = ct_from_values(devs[k], CLOPS_INT32, 3, sizes, (ct_layout)l, vals);
            assert_holds(t, vals);
            clops_tensor_release(t);
        }
        /* Expanded: base [1, 4, 1] holds 0..3; every [i, j, k] reads j. */
        ct_set_case("expanded");
        clops_tensor *base = ct_from_values(devs[k], CLOPS_INT32, 3, CT_I64(1, 4, 1),
                                            CT_CONTIGUOUS, (int32_t[]){0, 1, 2, 3});
        clops_tensor *t = NULL;
        CT_OK(core_expand(base, sizes, 3, false, &t));
        int32_t want[60];
        for (int i = 0; i < 60; i++)
            want[i] = (i / 5) % 4;
        assert_holds(t, want);
        clops_tensor_release(t);
        clops_tensor_release(base);
    }
    ct_clear_context();
}

static void test_from_host_writes_the_elements_of_a_strided_view_and_nothing_else(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_devices(devs, CT_MAX_DEVICES);
    const int64_t sizes[3] = {3, 4, 5};
    double vals[60];
    for (int i = 0; i < 60; i++)
        vals[i] = 0.5 * i - 7;
    for (int k = 0; k < nd; k++) {
        ct_set_device(devs[k]);
        for (int l = 0; l < CT_EXPANDED; l++) {
            ct_set_case("%s", ct_layout_name((ct_layout)l));
            clops_dtype dt = ct_device_supports(devs[k], CLOPS_FLOAT64) ? CLOPS_FLOAT64
                                                                        : CLOPS_INT64;
            void *v = expected_cast(vals, 60, CLOPS_FLOAT64, dt);
            ct_guarded g = ct_guarded_new(devs[k], dt, 3, sizes, (ct_layout)l);
            CT_OK(clops_tensor_from_host(g.t, v, 60 * 8));
            assert_holds(g.t, v);
            CT_GUARDS_INTACT(&g);
            ct_guarded_release(&g);
            free(v);
        }
    }
    ct_clear_context();
}

static void test_from_host_refuses_an_expanded_tensor(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_devices(devs, CT_MAX_DEVICES);
    float vals[12] = {0};
    for (int k = 0; k < nd; k++) {
        ct_set_device(devs[k]);
        clops_tensor *t = ct_empty_layout(devs[k], CLOPS_FLOAT32, 2, CT_I64(3, 4), CT_EXPANDED);
        CT_STATUS(clops_tensor_from_host(t, vals, sizeof vals), CLOPS_MEMORY_OVERLAP);
        CT_ERROR_CONTAINS("from_host");
        clops_tensor_release(t);
    }
    ct_clear_context();
}

static void test_transfers_refuse_a_host_buffer_of_the_wrong_size(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_devices(devs, CT_MAX_DEVICES);
    char buf[64] = {0};
    for (int k = 0; k < nd; k++) {
        ct_set_device(devs[k]);
        clops_tensor *t = ct_empty_layout(devs[k], CLOPS_INT16, 2, CT_I64(3, 4), CT_CONTIGUOUS);
        CT_STATUS(clops_tensor_to_host(t, buf, 23), CLOPS_INVALID_ARGUMENT);
        CT_ERROR_CONTAINS("to_host");
        CT_ERROR_CONTAINS("23");
        CT_ERROR_CONTAINS("24");
        CT_STATUS(clops_tensor_from_host(t, buf, 25), CLOPS_INVALID_ARGUMENT);
        CT_ERROR_CONTAINS("from_host");
        CT_STATUS(clops_from_host(devs[k], CLOPS_INT16, 2, CT_I64(3, 4), buf, 48, &t),
                  CLOPS_INVALID_ARGUMENT);
        clops_tensor_release(t);
    }
    ct_clear_context();
}

/* --- item ------------------------------------------------------------------------------- */

static void test_item_returns_the_value_as_the_scalar_kind_of_its_dtype(void **state)
{
    (void)state;
    static const double values[CLOPS_DTYPE_COUNT] = {1, 200, -5, -30000, 2147483647, -4e18,
                                                     1.5, -2.5, 0.1f, 1e300};
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_devices(devs, CT_MAX_DEVICES);
    for (int k = 0; k < nd; k++) {
        ct_set_device(devs[k]);
        for (int d = 0; d < CLOPS_DTYPE_COUNT; d++) {
            clops_dtype dt = (clops_dtype)d;
            if (!ct_device_supports(devs[k], dt))
                continue;
            ct_set_case("%s", clops_dtype_name(dt));
            uint64_t raw = 0;
            bool fl = clops_dtype_is_floating(dt);
            pw_value v = fl ? (pw_value){.f = values[d]} : (pw_value){.i = (int64_t)values[d]};
            pw_ref_store(&raw, 0, dt, fl ? CLOPS_FLOAT64 : CLOPS_INT64, v);
            /* A zero-dim view at a storage offset. */
            clops_tensor *t = ct_from_values(devs[k], dt, 0, NULL, CT_SLICED, &raw);
            clops_scalar s;
            CT_OK(clops_tensor_item(t, &s));
            if (dt == CLOPS_BOOL)
                CT_ASSERT(s.kind == CLOPS_SCALAR_BOOL && s.v.b);
            else if (fl)
                CT_ASSERT(s.kind == CLOPS_SCALAR_FLOAT && s.v.f == values[d]);
            else
                CT_ASSERT(s.kind == CLOPS_SCALAR_INT && s.v.i == (int64_t)values[d]);
            clops_tensor_release(t);
        }
        clops_tensor *two = ct_empty_layout(devs[k], CLOPS_INT32, 1, CT_I64(2), CT_CONTIGUOUS);
        clops_scalar s;
        CT_STATUS(clops_tensor_item(two, &s), CLOPS_INVALID_ARGUMENT);
        CT_ERROR_CONTAINS("item");
        clops_tensor_release(two);
    }
    ct_clear_context();
}

/* --- factories -------------------------------------------------------------------------- */

/* full() with value on dev for every dtype must hold the value converted as
 * a copy would convert it (float scalars from float64, others from int64). */
static void check_full(clops_device *dev, clops_scalar value)
{
    const int64_t sizes[2] = {3, 5};
    for (int d = 0; d < CLOPS_DTYPE_COUNT; d++) {
        clops_dtype dt = (clops_dtype)d;
        if (!ct_device_supports(dev, dt))
            continue;
        bool fl = value.kind == CLOPS_SCALAR_FLOAT;
        ct_set_case("full(%s, %g)", clops_dtype_name(dt), clops_scalar_to_double(value));
        /* PyTorch refuses a float that overflows an integer dtype (NaN and
         * -2.75 into uint8); those fills are not specified. */
        if (fl && clops_dtype_is_integral(dt) &&
            (!isfinite(value.v.f) || (dt == CLOPS_UINT8 && value.v.f < 0)))
            continue;
        uint64_t one = 0;
        if (fl)
            pw_ref_store(&one, 0, CLOPS_FLOAT64, CLOPS_FLOAT64, (pw_value){.f = value.v.f});
        else
            one = (uint64_t)clops_scalar_to_int64(value);
        void *single = expected_cast(&one, 1, fl ? CLOPS_FLOAT64 : CLOPS_INT64, dt);
        char want[15 * 8];
        size_t es = clops_dtype_size(dt);
        for (int i = 0; i < 15; i++)
            memcpy(want + (size_t)i * es, single, es);
        free(single);
        clops_tensor *t = NULL;
        CT_OK(clops_full(dev, dt, 2, sizes, value, &t));
        assert_holds(t, want);
        clops_tensor_release(t);
    }
}

static void test_full_zeros_and_ones_fill_every_dtype_on_every_device(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_devices(devs, CT_MAX_DEVICES);
    for (int k = 0; k < nd; k++) {
        ct_set_device(devs[k]);
        check_full(devs[k], clops_scalar_float(2.75));
        check_full(devs[k], clops_scalar_float(-2.75));
        check_full(devs[k], clops_scalar_float(1e-8));
        check_full(devs[k], clops_scalar_float(NAN));
        check_full(devs[k], clops_scalar_int(-7));
        check_full(devs[k], clops_scalar_bool(true));
        for (int d = 0; d < CLOPS_DTYPE_COUNT; d++) {
            clops_dtype dt = (clops_dtype)d;
            if (!ct_device_supports(devs[k], dt))
                continue;
            ct_set_case("zeros/ones %s", clops_dtype_name(dt));
            clops_tensor *z = NULL, *o = NULL, *o_ref = NULL;
            CT_OK(clops_zeros(devs[k], dt, 2, CT_I64(4, 3), &z));
            CT_OK(clops_ones(devs[k], dt, 2, CT_I64(4, 3), &o));
            char zero[12 * 8] = {0};
            assert_holds(z, zero);
            CT_OK(clops_full(ct_cpu(), dt, 2, CT_I64(4, 3), clops_scalar_int(1), &o_ref));
            CT_ASSERT_CLOSE(o, o_ref, CT_TOL_EXACT);
            clops_tensor_release(z);
            clops_tensor_release(o);
            clops_tensor_release(o_ref);
        }
    }
    ct_clear_context();
}

static void test_full_of_a_zero_size_or_zero_dim_shape_works(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_devices(devs, CT_MAX_DEVICES);
    for (int k = 0; k < nd; k++) {
        ct_set_device(devs[k]);
        clops_tensor *e = NULL, *z = NULL;
        CT_OK(clops_full(devs[k], CLOPS_FLOAT32, 2, CT_I64(0, 4), clops_scalar_float(1.0), &e));
        CT_ASSERT(clops_tensor_numel(e) == 0 && clops_tensor_ndim(e) == 2);
        CT_OK(clops_full(devs[k], CLOPS_INT64, 0, NULL, clops_scalar_int(-9), &z));
        clops_scalar s;
        CT_OK(clops_tensor_item(z, &s));
        CT_ASSERT(clops_tensor_ndim(z) == 0 && s.kind == CLOPS_SCALAR_INT && s.v.i == -9);
        clops_tensor_release(e);
        clops_tensor_release(z);
    }
    ct_clear_context();
}

/* --- arange ------------------------------------------------------------------------------ */

typedef struct arange_case {
    clops_scalar start, end, step;
    clops_dtype dtype;      /* asked for; CLOPS_DTYPE_NONE infers */
    clops_dtype want_dtype;
    int64_t len;
    double first, last;     /* spelled out to pin the rule */
} arange_case;

/* Scalars in a static table. */
#define SI(x) {.kind = CLOPS_SCALAR_INT, .v.i = (x)}
#define SF(x) {.kind = CLOPS_SCALAR_FLOAT, .v.f = (x)}

/* PyTorch's results: length ceil((end - start) / step), values start + i *
 * step computed in double (int64 for integer arguments), int64 when every
 * argument is an integer and float32 otherwise. */
static const arange_case arange_cases[] = {
    {SI(0), SI(10), SI(3), CLOPS_DTYPE_NONE, CLOPS_INT64, 4, 0, 9},
    {SI(0), SI(10), SI(4), CLOPS_DTYPE_NONE, CLOPS_INT64, 3, 0, 8},
    {SI(10), SI(0), SI(-3), CLOPS_DTYPE_NONE, CLOPS_INT64, 4, 10, 1},
    {SI(0), SI(-3), SI(-1), CLOPS_DTYPE_NONE, CLOPS_INT64, 3, 0, -2},
    {SI(5), SI(5), SI(1), CLOPS_DTYPE_NONE, CLOPS_INT64, 0, 0, 0},
    {SF(1), SF(2.5), SF(0.5), CLOPS_DTYPE_NONE, CLOPS_FLOAT32, 3, 1, 2},
    {SI(0), SI(1), SF(0.1), CLOPS_DTYPE_NONE, CLOPS_FLOAT32, 10, 0, 0.9f},
    {SF(-1), SF(1), SF(0.25), CLOPS_DTYPE_NONE, CLOPS_FLOAT32, 8, -1, 0.75},
    {SF(0.5), SI(3), SI(1), CLOPS_DTYPE_NONE, CLOPS_FLOAT32, 3, 0.5, 2.5},
    {SF(2), SF(-1), SF(-0.5), CLOPS_DTYPE_NONE, CLOPS_FLOAT32, 6, 2, -0.5},
    {SI(0), SI(5), SI(1), CLOPS_FLOAT16, CLOPS_FLOAT16, 5, 0, 4},
    {SI(-5), SI(6), SI(5), CLOPS_INT8, CLOPS_INT8, 3, -5, 5},
    {SI(0), SI(100000), SI(1), CLOPS_INT32, CLOPS_INT32, 100000, 0, 99999},
    {SF(0), SF(3), SF(1), CLOPS_FLOAT64, CLOPS_FLOAT64, 3, 0, 2},
};

static void test_arange_follows_pytorchs_length_values_and_dtype_rules(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_devices(devs, CT_MAX_DEVICES);
    for (int k = 0; k < nd; k++) {
        ct_set_device(devs[k]);
        for (size_t c = 0; c < CT_COUNT(arange_cases); c++) {
            const arange_case *a = &arange_cases[c];
            if (!ct_device_supports(devs[k], a->want_dtype))
                continue;
            ct_set_case("arange(%g, %g, %g, %s)", clops_scalar_to_double(a->start),
                        clops_scalar_to_double(a->end), clops_scalar_to_double(a->step),
                        clops_dtype_name(a->dtype));
            clops_tensor *t = NULL;
            CT_OK(clops_arange(devs[k], a->dtype, a->start, a->end, a->step, &t));
            CT_ASSERT(clops_tensor_device(t) == devs[k]);
            CT_ASSERT_MSG(clops_tensor_dtype(t) == a->want_dtype, "dtype %s",
                          clops_dtype_name(clops_tensor_dtype(t)));
            CT_ASSERT_MSG(clops_tensor_ndim(t) == 1 && clops_tensor_numel(t) == a->len,
                          "got %lld elements, expected %lld", (long long)clops_tensor_numel(t),
                          (long long)a->len);
            bool ints = a->start.kind != CLOPS_SCALAR_FLOAT && a->end.kind != CLOPS_SCALAR_FLOAT &&
                        a->step.kind != CLOPS_SCALAR_FLOAT;
            size_t es = clops_dtype_size(a->want_dtype);
            char *want = malloc(a->len ? (size_t)a->len * es : 1);
            CT_ASSERT(want != NULL);
            for (int64_t i = 0; i < a->len; i++) {
                if (ints)
                    pw_ref_store(want, i, a->want_dtype, CLOPS_INT64,
                                 (pw_value){.i = a->start.v.i + i * a->step.v.i});
                else
                    pw_ref_store(want, i, a->want_dtype, CLOPS_FLOAT64,
                                 (pw_value){.f = clops_scalar_to_double(a->start) +
                                                 (double)i * clops_scalar_to_double(a->step)});
            }
            if (a->len > 0) {
                double first = pw_ref_load(want, 0, a->want_dtype, CLOPS_FLOAT64).f;
                double last = pw_ref_load(want, a->len - 1, a->want_dtype, CLOPS_FLOAT64).f;
                CT_ASSERT_MSG(first == a->first && last == a->last,
                              "the rule gives %g .. %g, the table says %g .. %g", first, last,
                              a->first, a->last);
            }
            assert_holds(t, want);
            free(want);
            clops_tensor_release(t);
        }
    }
    ct_clear_context();
}

static void test_arange_refuses_a_zero_step_a_wrong_sign_and_infinite_bounds(void **state)
{
    (void)state;
    clops_tensor *t = NULL;
    clops_device *cpu = ct_cpu();
    const clops_scalar i0 = clops_scalar_int(0), i10 = clops_scalar_int(10);
    const clops_scalar f0 = clops_scalar_float(0), f1 = clops_scalar_float(1);
    CT_STATUS(clops_arange(cpu, CLOPS_DTYPE_NONE, i0, i10, i0, &t), CLOPS_INVALID_ARGUMENT);
    CT_ERROR_CONTAINS("arange");
    CT_ERROR_CONTAINS("step");
    CT_STATUS(clops_arange(cpu, CLOPS_DTYPE_NONE, i0, i10, clops_scalar_int(-1), &t),
              CLOPS_INVALID_ARGUMENT);
    CT_ERROR_CONTAINS("arange");
    CT_STATUS(clops_arange(cpu, CLOPS_DTYPE_NONE, f0, clops_scalar_float(INFINITY), f1, &t),
              CLOPS_INVALID_ARGUMENT);
    CT_STATUS(clops_arange(cpu, CLOPS_DTYPE_NONE, clops_scalar_float(NAN), f1, f1, &t),
              CLOPS_INVALID_ARGUMENT);
    CT_ASSERT(t == NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_to_copy_converts_every_dtype_pair_like_the_reference),
        cmocka_unit_test(test_copy_converts_every_dtype_pair_between_strided_views),
        cmocka_unit_test(test_copy_broadcasts_an_expanded_source_into_every_layout),
        cmocka_unit_test(test_copy_between_dense_views_of_one_dtype_respects_storage_offsets),
        cmocka_unit_test(test_large_dense_copies_respect_storage_offsets),
        cmocka_unit_test(test_copy_of_rank_five_views_that_do_not_coalesce_is_correct),
        cmocka_unit_test(test_copy_of_a_one_dimensional_slice_with_a_step_is_correct),
        cmocka_unit_test(test_copy_of_zero_size_tensors_gives_empty_results_and_writes_nothing),
        cmocka_unit_test(test_copy_of_a_zero_dim_tensor_converts_its_one_value),
        cmocka_unit_test(test_copy_broadcasts_a_zero_dim_source_over_the_whole_destination),
        cmocka_unit_test(test_copy_refuses_a_source_that_does_not_broadcast_to_the_destination),
        cmocka_unit_test(test_notable_conversions_give_pytorchs_results_on_every_device),
        cmocka_unit_test(test_to_copy_keeps_the_memory_layout_of_a_dense_source),
        cmocka_unit_test(test_copies_between_the_cpu_and_each_opencl_device_convert_every_pair),
        cmocka_unit_test(test_copies_between_two_opencl_devices_keep_values),
        cmocka_unit_test(test_tensor_to_device_gives_a_contiguous_copy_even_on_the_same_device),
        cmocka_unit_test(test_to_host_reads_every_layout_in_row_major_order),
        cmocka_unit_test(test_from_host_writes_the_elements_of_a_strided_view_and_nothing_else),
        cmocka_unit_test(test_from_host_refuses_an_expanded_tensor),
        cmocka_unit_test(test_transfers_refuse_a_host_buffer_of_the_wrong_size),
        cmocka_unit_test(test_item_returns_the_value_as_the_scalar_kind_of_its_dtype),
        cmocka_unit_test(test_full_zeros_and_ones_fill_every_dtype_on_every_device),
        cmocka_unit_test(test_full_of_a_zero_size_or_zero_dim_shape_works),
        cmocka_unit_test(test_arange_follows_pytorchs_length_values_and_dtype_rules),
        cmocka_unit_test(test_arange_refuses_a_zero_step_a_wrong_sign_and_infinite_bounds),
    };
    return cmocka_run_group_tests(tests, NULL, ct_teardown_group);
}
