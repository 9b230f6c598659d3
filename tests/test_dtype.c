/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/test_dtype.c: dtype names, sizes and aliases, and the float16 and
 * bfloat16 conversions (core/dtype.c) that the CPU reference, the scalar
 * arguments and the host-side checks all depend on.
 *
 * The host conversions are checked exhaustively where the space is small
 * (every one of the 65536 half and bfloat16 bit patterns; every tie between
 * two adjacent values), at the edges (overflow, subnormals, NaN), and
 * against the devices: the pointwise engine's cast kernels use OpenCL's
 * vstore_half_rte / vload_half and clops' bfloat16 helpers, and on every
 * device they must give the same bits as the host functions for a large
 * sample of float32 values.
 */
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops/tensor/tensor.h"
#include "support/clops_test.h"

/* --- helpers ---------------------------------------------------------------- */

static float bits_to_float(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static uint32_t float_to_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static bool half_is_nan(uint16_t h)
{
    return (h & 0x7c00u) == 0x7c00u && (h & 0x03ffu) != 0;
}

static bool bf16_is_nan(uint16_t b)
{
    return (b & 0x7f80u) == 0x7f80u && (b & 0x007fu) != 0;
}

/* The value of half bits from the IEEE 754 binary16 definition. */
static double half_by_definition(uint16_t h)
{
    int sign = h >> 15, exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
    double v;
    if (exp == 0)
        v = ldexp(mant, -24);
    else if (exp == 31)
        v = mant ? NAN : INFINITY;
    else
        v = ldexp(1024 + mant, exp - 25);
    return sign ? -v : v;
}

/* --- names, sizes, aliases -------------------------------------------------- */

static void test_every_dtype_has_its_name_and_size(void **state)
{
    (void)state;
    static const struct {
        clops_dtype dt;
        const char *name;
        size_t size;
    } expect[] = {
        {CLOPS_BOOL, "bool", 1},       {CLOPS_UINT8, "uint8", 1},
        {CLOPS_INT8, "int8", 1},       {CLOPS_INT16, "int16", 2},
        {CLOPS_INT32, "int32", 4},     {CLOPS_INT64, "int64", 8},
        {CLOPS_FLOAT16, "float16", 2}, {CLOPS_BFLOAT16, "bfloat16", 2},
        {CLOPS_FLOAT32, "float32", 4}, {CLOPS_FLOAT64, "float64", 8},
        {CLOPS_COMPLEX64, "complex64", 8}, {CLOPS_COMPLEX128, "complex128", 16},
    };
    assert_int_equal(CT_COUNT(expect), CLOPS_DTYPE_COUNT_ALL);
    for (size_t i = 0; i < CT_COUNT(expect); i++) {
        assert_string_equal(clops_dtype_name(expect[i].dt), expect[i].name);
        assert_int_equal(clops_dtype_size(expect[i].dt), expect[i].size);
        clops_dtype back = CLOPS_DTYPE_NONE;
        CT_OK(clops_dtype_from_name(expect[i].name, &back));
        assert_int_equal(back, expect[i].dt);
    }
}

static void test_dtype_none_and_invalid_values_have_names_but_no_size(void **state)
{
    (void)state;
    assert_string_equal(clops_dtype_name(CLOPS_DTYPE_NONE), "none");
    assert_string_equal(clops_dtype_name((clops_dtype)CLOPS_DTYPE_COUNT_ALL), "invalid");
    assert_string_equal(clops_dtype_name((clops_dtype)-7), "invalid");
    assert_int_equal(clops_dtype_size(CLOPS_DTYPE_NONE), 0);
    assert_int_equal(clops_dtype_size((clops_dtype)CLOPS_DTYPE_COUNT_ALL), 0);
}

static void test_dtype_from_name_accepts_pytorch_aliases_in_any_case(void **state)
{
    (void)state;
    static const struct {
        const char *alias;
        clops_dtype dt;
    } cases[] = {
        {"float", CLOPS_FLOAT32},   {"f32", CLOPS_FLOAT32},         {"double", CLOPS_FLOAT64},
        {"f64", CLOPS_FLOAT64},     {"half", CLOPS_FLOAT16},        {"f16", CLOPS_FLOAT16},
        {"bf16", CLOPS_BFLOAT16},   {"long", CLOPS_INT64},          {"int", CLOPS_INT32},
        {"short", CLOPS_INT16},     {"byte", CLOPS_UINT8},          {"char", CLOPS_INT8},
        {"FLOAT32", CLOPS_FLOAT32}, {"torch.float16", CLOPS_FLOAT16}, {"torch.long", CLOPS_INT64},
        {"torch.bfloat16", CLOPS_BFLOAT16}, {"Half", CLOPS_FLOAT16}, {"torch.bool", CLOPS_BOOL},
    };
    for (size_t i = 0; i < CT_COUNT(cases); i++) {
        ct_set_case("alias '%s'", cases[i].alias);
        clops_dtype dt = CLOPS_DTYPE_NONE;
        CT_OK(clops_dtype_from_name(cases[i].alias, &dt));
        CT_ASSERT_MSG(dt == cases[i].dt, "got %s, expected %s", clops_dtype_name(dt),
                      clops_dtype_name(cases[i].dt));
    }
    ct_clear_context();
}

static void test_dtype_from_name_rejects_unknown_names_listing_the_valid_ones(void **state)
{
    (void)state;
    clops_dtype dt = CLOPS_FLOAT32;
    CT_STATUS(clops_dtype_from_name("float17", &dt), CLOPS_INVALID_DTYPE);
    CT_ERROR_CONTAINS("float17");
    CT_ERROR_CONTAINS("bfloat16");
    assert_int_equal(dt, CLOPS_FLOAT32); /* untouched on failure */
    CT_STATUS(clops_dtype_from_name("", &dt), CLOPS_INVALID_DTYPE);
    CT_STATUS(clops_dtype_from_name(NULL, &dt), CLOPS_INVALID_ARGUMENT);
    CT_STATUS(clops_dtype_from_name("float32", NULL), CLOPS_INVALID_ARGUMENT);
}

static void test_dtype_predicates_split_bool_integers_and_floats(void **state)
{
    (void)state;
    for (int d = 0; d < CLOPS_DTYPE_COUNT; d++) {
        clops_dtype dt = (clops_dtype)d;
        bool fl = dt == CLOPS_FLOAT16 || dt == CLOPS_BFLOAT16 || dt == CLOPS_FLOAT32 ||
                  dt == CLOPS_FLOAT64;
        bool in = dt != CLOPS_BOOL && !fl;
        bool sg = dt != CLOPS_BOOL && dt != CLOPS_UINT8;
        ct_set_case("%s", clops_dtype_name(dt));
        CT_ASSERT(clops_dtype_is_floating(dt) == fl);
        CT_ASSERT(clops_dtype_is_integral(dt) == in);
        CT_ASSERT(clops_dtype_is_signed(dt) == sg);
    }
    ct_clear_context();
    CT_ASSERT(!clops_dtype_is_signed(CLOPS_DTYPE_NONE));
    CT_ASSERT(!clops_dtype_is_floating(CLOPS_DTYPE_NONE));
}

static void test_scalar_to_int64_truncates_toward_zero_and_saturates(void **state)
{
    (void)state;
    assert_int_equal(clops_scalar_to_int64(clops_scalar_float(2.7)), 2);
    assert_int_equal(clops_scalar_to_int64(clops_scalar_float(-2.7)), -2);
    assert_int_equal(clops_scalar_to_int64(clops_scalar_float(NAN)), 0);
    assert_true(clops_scalar_to_int64(clops_scalar_float(1e300)) == INT64_MAX);
    assert_true(clops_scalar_to_int64(clops_scalar_float(-1e300)) == INT64_MIN);
    assert_int_equal(clops_scalar_to_int64(clops_scalar_bool(true)), 1);
    assert_true(clops_scalar_to_double(clops_scalar_int(-5)) == -5.0);
}

/* --- float16 on the host ---------------------------------------------------- */

static void test_half_to_float_gives_the_ieee_value_of_every_bit_pattern(void **state)
{
    (void)state;
    for (uint32_t h = 0; h < 65536; h++) {
        float f = clops_half_to_float((uint16_t)h);
        double want = half_by_definition((uint16_t)h);
        if (half_is_nan((uint16_t)h)) {
            CT_ASSERT_MSG(isnan(f), "half 0x%04x should be NaN, got %g", h, (double)f);
            continue;
        }
        CT_ASSERT_MSG((double)f == want && !signbit(f) == !signbit(want),
                      "half 0x%04x: got %.10g expected %.10g", h, (double)f, want);
    }
}

static void test_half_round_trips_every_non_nan_bit_pattern(void **state)
{
    (void)state;
    for (uint32_t h = 0; h < 65536; h++) {
        if (half_is_nan((uint16_t)h))
            continue;
        uint16_t back = clops_float_to_half(clops_half_to_float((uint16_t)h));
        CT_ASSERT_MSG(back == h, "half 0x%04x came back as 0x%04x", h, back);
    }
}

static void test_float_to_half_keeps_nan_a_quiet_nan_of_the_same_sign(void **state)
{
    (void)state;
    const uint32_t nans[] = {0x7fc00000u, 0x7f800001u, 0x7fbfffffu, 0xffc00000u, 0xff800123u,
                             0x7fffffffu};
    for (size_t i = 0; i < CT_COUNT(nans); i++) {
        uint16_t h = clops_float_to_half(bits_to_float(nans[i]));
        CT_ASSERT_MSG(half_is_nan(h) && (h & 0x0200u), "NaN 0x%08x gave half 0x%04x", nans[i], h);
        CT_ASSERT_MSG((h >> 15) == (nans[i] >> 31), "NaN 0x%08x lost its sign: 0x%04x", nans[i],
                      h);
    }
}

/* For every pair of adjacent finite halves (both signs), the float exactly
 * between them rounds to the one with an even mantissa, and the floats
 * just beside the midpoint round to the nearer one. */
static void test_float_to_half_rounds_ties_to_even_between_every_adjacent_pair(void **state)
{
    (void)state;
    for (uint32_t h = 0; h < 0x7bffu; h++) {
        for (int sign = 0; sign < 2; sign++) {
            uint16_t lo = (uint16_t)(h | (sign ? 0x8000u : 0)), hi = (uint16_t)(lo + 1);
            float a = clops_half_to_float(lo), b = clops_half_to_float(hi);
            float mid = (float)(((double)a + (double)b) / 2); /* exact: 12 bits */
            uint16_t even = (lo & 1u) ? hi : lo;
            uint16_t got = clops_float_to_half(mid);
            CT_ASSERT_MSG(got == even, "tie %.10g between 0x%04x and 0x%04x gave 0x%04x",
                          (double)mid, lo, hi, got);
            float below = nextafterf(mid, a), above = nextafterf(mid, b);
            CT_ASSERT_MSG(clops_float_to_half(below) == lo && clops_float_to_half(above) == hi,
                          "values beside the tie %.10g (0x%04x/0x%04x) did not round to the "
                          "nearer half: 0x%04x 0x%04x",
                          (double)mid, lo, hi, clops_float_to_half(below),
                          clops_float_to_half(above));
        }
    }
}

static void test_float_to_half_overflows_to_infinity_from_65520(void **state)
{
    (void)state;
    assert_int_equal(clops_float_to_half(65504.0f), 0x7bff);
    assert_int_equal(clops_float_to_half(nextafterf(65520.0f, 0.0f)), 0x7bff);
    assert_int_equal(clops_float_to_half(65520.0f), 0x7c00);
    assert_int_equal(clops_float_to_half(-65520.0f), 0xfc00);
    assert_int_equal(clops_float_to_half(1e10f), 0x7c00);
    assert_int_equal(clops_float_to_half(FLT_MAX), 0x7c00);
    assert_int_equal(clops_float_to_half(-FLT_MAX), 0xfc00);
    assert_int_equal(clops_float_to_half(INFINITY), 0x7c00);
    assert_int_equal(clops_float_to_half(-INFINITY), 0xfc00);
}

static void test_float_to_half_makes_subnormals_and_underflows_to_signed_zero(void **state)
{
    (void)state;
    assert_int_equal(clops_float_to_half(0x1p-24f), 0x0001);
    assert_int_equal(clops_float_to_half(-0x1p-24f), 0x8001);
    assert_int_equal(clops_float_to_half(0x1p-25f), 0x0000);            /* tie to even 0 */
    assert_int_equal(clops_float_to_half(nextafterf(0x1p-25f, 1.0f)), 0x0001);
    assert_int_equal(clops_float_to_half(0x3p-25f), 0x0002);            /* tie to even 2 */
    assert_int_equal(clops_float_to_half(0x1p-14f - 0x1p-24f), 0x03ff); /* largest subnormal */
    assert_int_equal(clops_float_to_half(0x1p-14f), 0x0400);            /* smallest normal */
    assert_int_equal(clops_float_to_half(1e-10f), 0x0000);
    assert_int_equal(clops_float_to_half(-1e-10f), 0x8000);
    assert_int_equal(clops_float_to_half(1e-40f), 0x0000); /* a float subnormal */
    assert_int_equal(clops_float_to_half(0.0f), 0x0000);
    assert_int_equal(clops_float_to_half(-0.0f), 0x8000);
}

/* --- bfloat16 on the host ---------------------------------------------------- */

static void test_bfloat16_round_trips_every_non_nan_bit_pattern(void **state)
{
    (void)state;
    for (uint32_t b = 0; b < 65536; b++) {
        if (bf16_is_nan((uint16_t)b))
            continue;
        float f = clops_bfloat16_to_float((uint16_t)b);
        CT_ASSERT_MSG(float_to_bits(f) == b << 16, "bfloat16 0x%04x widened to 0x%08x", b,
                      float_to_bits(f));
        uint16_t back = clops_float_to_bfloat16(f);
        CT_ASSERT_MSG(back == b, "bfloat16 0x%04x came back as 0x%04x", b, back);
    }
}

static void test_float_to_bfloat16_rounds_ties_to_even_between_every_adjacent_pair(void **state)
{
    (void)state;
    for (uint32_t b = 0; b < 0x7f7fu; b++) {
        for (int sign = 0; sign < 2; sign++) {
            uint32_t lo = b | (sign ? 0x8000u : 0), hi = lo + 1;
            uint32_t mid = (lo << 16) | 0x8000u; /* the float exactly between */
            uint16_t even = (uint16_t)((lo & 1u) ? hi : lo);
            uint16_t got = clops_float_to_bfloat16(bits_to_float(mid));
            CT_ASSERT_MSG(got == even, "tie 0x%08x between 0x%04x and 0x%04x gave 0x%04x", mid,
                          lo, hi, got);
            CT_ASSERT(clops_float_to_bfloat16(bits_to_float(mid - 1)) == lo);
            CT_ASSERT(clops_float_to_bfloat16(bits_to_float(mid + 1)) == hi);
        }
    }
}

static void test_float_to_bfloat16_overflows_to_infinity_past_the_largest_value(void **state)
{
    (void)state;
    assert_int_equal(clops_float_to_bfloat16(bits_to_float(0x7f7f0000u)), 0x7f7f);
    assert_int_equal(clops_float_to_bfloat16(bits_to_float(0x7f7f7fffu)), 0x7f7f);
    assert_int_equal(clops_float_to_bfloat16(bits_to_float(0x7f7f8000u)), 0x7f80); /* tie, odd */
    assert_int_equal(clops_float_to_bfloat16(FLT_MAX), 0x7f80);
    assert_int_equal(clops_float_to_bfloat16(-FLT_MAX), 0xff80);
    assert_int_equal(clops_float_to_bfloat16(INFINITY), 0x7f80);
    assert_int_equal(clops_float_to_bfloat16(-INFINITY), 0xff80);
}

static void test_float_to_bfloat16_makes_every_nan_the_canonical_0x7fc0(void **state)
{
    (void)state;
    const uint32_t nans[] = {0x7fc00000u, 0x7f800001u, 0x7fbfffffu, 0xffc00000u, 0xff800123u,
                             0x7fffffffu, 0xffffffffu};
    for (size_t i = 0; i < CT_COUNT(nans); i++)
        CT_ASSERT_MSG(clops_float_to_bfloat16(bits_to_float(nans[i])) == 0x7fc0,
                      "NaN 0x%08x gave 0x%04x", nans[i],
                      clops_float_to_bfloat16(bits_to_float(nans[i])));
}

static void test_float_to_bfloat16_keeps_float_subnormals_and_signed_zeros(void **state)
{
    (void)state;
    assert_int_equal(clops_float_to_bfloat16(bits_to_float(0x00010000u)), 0x0001);
    assert_int_equal(clops_float_to_bfloat16(bits_to_float(0x00008000u)), 0x0000); /* tie */
    assert_int_equal(clops_float_to_bfloat16(bits_to_float(0x00018000u)), 0x0002); /* tie */
    assert_int_equal(clops_float_to_bfloat16(bits_to_float(0x80010000u)), 0x8001);
    assert_int_equal(clops_float_to_bfloat16(0.0f), 0x0000);
    assert_int_equal(clops_float_to_bfloat16(-0.0f), 0x8000);
}


/* --- ULPs (tools/check/ulp.c, shared with `clops check`) ----------------- */

static void test_ulp_spacing_is_the_gap_above_a_value_in_each_dtype(void **state)
{
    (void)state;
    assert_true(ulp_spacing(CLOPS_FLOAT32, 1.0) == 0x1p-23);
    assert_true(ulp_spacing(CLOPS_FLOAT32, 1.99) == 0x1p-23);
    assert_true(ulp_spacing(CLOPS_FLOAT32, -2.0) == 0x1p-22);
    assert_true(ulp_spacing(CLOPS_FLOAT16, 1.0) == 0x1p-10);
    assert_true(ulp_spacing(CLOPS_BFLOAT16, 1.0) == 0x1p-7);
    assert_true(ulp_spacing(CLOPS_FLOAT64, 1.0) == 0x1p-52);
    assert_true(ulp_spacing(CLOPS_FLOAT16, 0.0) == 0x1p-24);   /* subnormal spacing */
    assert_true(ulp_spacing(CLOPS_FLOAT16, 0x1p-20) == 0x1p-24);
    assert_true(ulp_spacing(CLOPS_FLOAT32, 0.0) == 0x1p-149);
    assert_true(ulp_spacing(CLOPS_BFLOAT16, 0.0) == 0x1p-133);
    assert_true(ulp_spacing(CLOPS_FLOAT16, 65504.0) == 32.0);
    assert_true(ulp_spacing(CLOPS_INT32, 12345.0) == 1.0);
    assert_true(isnan(ulp_spacing(CLOPS_FLOAT32, INFINITY)));
    assert_true(ulp_max_finite(CLOPS_FLOAT16) == 65504.0);
    assert_true(ulp_max_finite(CLOPS_FLOAT32) == (double)FLT_MAX);
    assert_true(ulp_max_finite(CLOPS_FLOAT64) == DBL_MAX);
    assert_true(ulp_max_finite(CLOPS_BFLOAT16) == (double)clops_bfloat16_to_float(0x7f7f));
}

static void test_ulp_distance_counts_one_between_every_pair_of_adjacent_halves(void **state)
{
    (void)state;
    for (uint32_t h = 0; h < 0x7c00u; h++) {
        for (int sign = 0; sign < 2; sign++) {
            uint16_t lo = (uint16_t)(h | (sign ? 0x8000u : 0));
            double a = clops_half_to_float(lo), b = clops_half_to_float((uint16_t)(lo + 1));
            CT_ASSERT_MSG(ulp_distance(CLOPS_FLOAT16, a, b) == 1, "halves 0x%04x, 0x%04x", lo,
                          lo + 1);
        }
    }
    assert_true(ulp_distance(CLOPS_FLOAT16, -0.0, 0.0) == 0);
    assert_true(ulp_distance(CLOPS_FLOAT16, -0x1p-24, 0x1p-24) == 2);
    assert_true(ulp_distance(CLOPS_FLOAT32, 1.0, 1.0 + 0x1p-23 * 5) == 5);
    assert_true(ulp_distance(CLOPS_FLOAT64, -DBL_MAX, DBL_MAX) == 2 * (0x7fefffffffffffffull));
    assert_true(ulp_distance(CLOPS_BFLOAT16, 1.0, 2.0) == 128);
    assert_true(ulp_distance(CLOPS_FLOAT32, (double)FLT_MAX, INFINITY) == 1);
    assert_true(ulp_distance(CLOPS_FLOAT32, NAN, 1.0) == UINT64_MAX);
    assert_true(ulp_distance(CLOPS_INT64, 7.0, -3.0) == 10);
}

/* float32 and float64 bit patterns ordered as integers: the distance
 * between two values is the difference of these. */
static int64_t ordered_f32(float f)
{
    int32_t i;
    memcpy(&i, &f, sizeof i);
    return i < 0 ? -(int64_t)(i & 0x7fffffff) : (int64_t)i;
}

static void test_ulp_distance_matches_ordered_bit_patterns_for_float32(void **state)
{
    (void)state;
    ct_rng r = ct_rng_seeded(32);
    for (int n = 0; n < 200000; n++) {
        uint32_t ua = (uint32_t)ct_rng_next(&r), ub = (uint32_t)ct_rng_next(&r);
        if (n % 2) /* nearby values too, across zero and binades */
            ub = ua + (uint32_t)ct_rng_range(&r, -300, 300);
        float a = bits_to_float(ua), b = bits_to_float(ub);
        if (isnan(a) || isnan(b))
            continue;
        int64_t d = ordered_f32(a) - ordered_f32(b);
        uint64_t want = (uint64_t)(d < 0 ? -d : d);
        uint64_t got = ulp_distance(CLOPS_FLOAT32, a, b);
        CT_ASSERT_MSG(got == want, "distance(%a, %a): got %llu, want %llu", (double)a, (double)b,
                      (unsigned long long)got, (unsigned long long)want);
    }
}

static void test_ulp_close_needs_nan_parity_equal_infinities_and_signed_zeros(void **state)
{
    (void)state;
    ulp_tol two = {2.0, 0.0, false}, exact_signed = {0.0, 0.0, true}, floor = {1.0, 1e-3, false};
    assert_true(ulp_close(CLOPS_FLOAT32, NAN, NAN, &two));
    assert_false(ulp_close(CLOPS_FLOAT32, NAN, 1.0, &two));
    assert_false(ulp_close(CLOPS_FLOAT32, 1.0, NAN, &two));
    assert_true(ulp_close(CLOPS_FLOAT32, INFINITY, INFINITY, &two));
    assert_false(ulp_close(CLOPS_FLOAT32, -INFINITY, INFINITY, &two));
    assert_false(ulp_close(CLOPS_FLOAT32, (double)FLT_MAX, INFINITY, &two));
    assert_true(ulp_close(CLOPS_FLOAT32, 1.0 + 2 * 0x1p-23, 1.0, &two));
    assert_false(ulp_close(CLOPS_FLOAT32, 1.0 + 3 * 0x1p-23, 1.0, &two));
    assert_true(ulp_close(CLOPS_FLOAT16, 1.0 + 2 * 0x1p-10, 1.0, &two));
    assert_true(ulp_close(CLOPS_FLOAT32, -0.0, 0.0, &two));
    assert_false(ulp_close(CLOPS_FLOAT32, -0.0, 0.0, &exact_signed));
    assert_true(ulp_close(CLOPS_FLOAT32, 0.0, 0.0, &exact_signed));
    assert_true(ulp_close(CLOPS_FLOAT32, 5e-4, 0.0, &floor));   /* under the floor */
    assert_false(ulp_close(CLOPS_FLOAT32, 2e-3, 0.0, &floor));
    assert_false(ulp_close(CLOPS_INT32, 3.0, 4.0, &floor));     /* integers: exact */
    assert_true(ulp_error(CLOPS_FLOAT32, 1.0 + 0x1p-22, 1.0) == 2.0);
    assert_true(isinf(ulp_error(CLOPS_FLOAT32, NAN, 1.0)));
    assert_true(ulp_error(CLOPS_FLOAT32, NAN, NAN) == 0.0);
}

/* --- devices against the host ------------------------------------------------- */

#define SAMPLE_COUNT (1 << 20)

/*
 * float32 bit patterns that exercise a conversion to 16 bits: a quarter
 * fully random (NaN payloads, huge and tiny values), half with exponents
 * from below the half subnormals to past the half overflow, a quarter
 * exact ties for half (low 13 mantissa bits 0x1000) or bfloat16 (low 16
 * bits 0x8000) in the same range, and every special at the front.
 */
static uint32_t *make_float_sample(int64_t n)
{
    uint32_t *s = malloc((size_t)n * sizeof *s);
    CT_ASSERT(s != NULL);
    const uint32_t specials[] = {0x00000000u, 0x80000000u, 0x7f800000u, 0xff800000u,
                                 0x7fc00000u, 0xffc00001u, 0x7f800001u, 0x477fe000u,
                                 0x477ff000u, 0x477fefffu, 0x33000000u, 0x33000001u,
                                 0x387fc000u, 0x38800000u, 0x7f7fffffu, 0x7f7f8000u,
                                 0x00000001u, 0x00400000u};
    ct_rng r = ct_rng_seeded(16);
    for (int64_t i = 0; i < n; i++) {
        uint32_t u = (uint32_t)ct_rng_next(&r);
        uint32_t exp = (uint32_t)ct_rng_range(&r, 96, 145);
        switch (i % 4) {
        case 0:
            break;
        case 1:
        case 2:
            u = (u & 0x807fffffu) | (exp << 23);
            break;
        default:
            u = (u & 0x807fffffu) | (exp << 23);
            u = (i & 4) ? ((u & ~0x1fffu) | 0x1000u) : ((u & ~0xffffu) | 0x8000u);
            break;
        }
        s[i] = u;
    }
    for (size_t i = 0; i < CT_COUNT(specials) && (int64_t)i < n; i++)
        s[i] = specials[i];
    return s;
}

/* Converts the float32 sample to `to` on dev with the engine's cast and
 * returns the 16-bit results (malloc'd). */
static uint16_t *device_narrow(clops_device *dev, const uint32_t *sample, int64_t n,
                               clops_dtype to)
{
    clops_tensor *src = NULL, *dst = NULL;
    int64_t size[1] = {n};
    CT_OK(clops_from_host(dev, CLOPS_FLOAT32, 1, size, sample, (size_t)n * 4, &src));
    CT_OK(core_to_copy(src, to, NULL, &dst));
    uint16_t *out = ct_to_host(dst);
    clops_tensor_release(src);
    clops_tensor_release(dst);
    return out;
}

static void test_every_device_rounds_float32_to_float16_as_the_host_does(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_devices(devs, CT_MAX_DEVICES);
    uint32_t *sample = make_float_sample(SAMPLE_COUNT);
    for (int k = 0; k < nd; k++) {
        ct_set_device(devs[k]);
        uint16_t *got = device_narrow(devs[k], sample, SAMPLE_COUNT, CLOPS_FLOAT16);
        int64_t bad = 0, first = -1;
        for (int64_t i = 0; i < SAMPLE_COUNT; i++) {
            uint16_t want = clops_float_to_half(bits_to_float(sample[i]));
            bool ok = half_is_nan(want) ? half_is_nan(got[i]) : got[i] == want;
            if (!ok && bad++ == 0)
                first = i;
        }
        uint16_t g = first >= 0 ? got[first] : 0;
        free(got);
        if (bad) {
            uint32_t in = sample[first];
            free(sample);
            ct_fail("%lld of %d conversions differ from clops_float_to_half; first: float "
                    "0x%08x (%.10g) gave 0x%04x, host 0x%04x",
                    (long long)bad, SAMPLE_COUNT, in, (double)bits_to_float(in), g,
                    clops_float_to_half(bits_to_float(in)));
        }
    }
    free(sample);
    ct_clear_context();
}

static void test_every_device_rounds_float32_to_bfloat16_as_the_host_does(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_devices(devs, CT_MAX_DEVICES);
    uint32_t *sample = make_float_sample(SAMPLE_COUNT);
    for (int k = 0; k < nd; k++) {
        ct_set_device(devs[k]);
        uint16_t *got = device_narrow(devs[k], sample, SAMPLE_COUNT, CLOPS_BFLOAT16);
        int64_t bad = 0, first = -1;
        for (int64_t i = 0; i < SAMPLE_COUNT; i++)
            if (got[i] != clops_float_to_bfloat16(bits_to_float(sample[i])) && bad++ == 0)
                first = i;
        uint16_t g = first >= 0 ? got[first] : 0;
        free(got);
        if (bad) {
            uint32_t in = sample[first];
            free(sample);
            ct_fail("%lld of %d conversions differ from clops_float_to_bfloat16; first: float "
                    "0x%08x gave 0x%04x, host 0x%04x",
                    (long long)bad, SAMPLE_COUNT, in, g,
                    clops_float_to_bfloat16(bits_to_float(in)));
        }
    }
    free(sample);
    ct_clear_context();
}

/* Widening is exact: every half and every bfloat16 pattern must give the
 * host's float bits on every device (NaN: any NaN). */
static void test_every_device_widens_all_16_bit_patterns_as_the_host_does(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_devices(devs, CT_MAX_DEVICES);
    uint16_t *all = malloc(65536 * sizeof *all);
    CT_ASSERT(all != NULL);
    for (uint32_t i = 0; i < 65536; i++)
        all[i] = (uint16_t)i;
    const clops_dtype from[] = {CLOPS_FLOAT16, CLOPS_BFLOAT16};
    for (int k = 0; k < nd; k++) {
        ct_set_device(devs[k]);
        for (size_t f = 0; f < CT_COUNT(from); f++) {
            clops_tensor *src = NULL, *dst = NULL;
            CT_OK(clops_from_host(devs[k], from[f], 1, CT_I64(65536), all, 65536 * 2, &src));
            CT_OK(core_to_copy(src, CLOPS_FLOAT32, NULL, &dst));
            uint32_t *got = ct_to_host(dst);
            clops_tensor_release(src);
            clops_tensor_release(dst);
            int64_t bad = 0, first = -1;
            for (uint32_t i = 0; i < 65536; i++) {
                float want = from[f] == CLOPS_FLOAT16 ? clops_half_to_float((uint16_t)i)
                                                      : clops_bfloat16_to_float((uint16_t)i);
                bool ok = isnan(want) ? isnan(bits_to_float(got[i]))
                                      : got[i] == float_to_bits(want);
                if (!ok && bad++ == 0)
                    first = i;
            }
            uint32_t g = first >= 0 ? got[first] : 0;
            free(got);
            if (bad) {
                free(all);
                ct_fail("%s -> float32: %lld of 65536 patterns differ; first 0x%04x gave "
                        "0x%08x",
                        clops_dtype_name(from[f]), (long long)bad, (unsigned)first, g);
            }
        }
    }
    free(all);
    ct_clear_context();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_dtype_has_its_name_and_size),
        cmocka_unit_test(test_dtype_none_and_invalid_values_have_names_but_no_size),
        cmocka_unit_test(test_dtype_from_name_accepts_pytorch_aliases_in_any_case),
        cmocka_unit_test(test_dtype_from_name_rejects_unknown_names_listing_the_valid_ones),
        cmocka_unit_test(test_dtype_predicates_split_bool_integers_and_floats),
        cmocka_unit_test(test_scalar_to_int64_truncates_toward_zero_and_saturates),
        cmocka_unit_test(test_half_to_float_gives_the_ieee_value_of_every_bit_pattern),
        cmocka_unit_test(test_half_round_trips_every_non_nan_bit_pattern),
        cmocka_unit_test(test_float_to_half_keeps_nan_a_quiet_nan_of_the_same_sign),
        cmocka_unit_test(test_float_to_half_rounds_ties_to_even_between_every_adjacent_pair),
        cmocka_unit_test(test_float_to_half_overflows_to_infinity_from_65520),
        cmocka_unit_test(test_float_to_half_makes_subnormals_and_underflows_to_signed_zero),
        cmocka_unit_test(test_bfloat16_round_trips_every_non_nan_bit_pattern),
        cmocka_unit_test(test_float_to_bfloat16_rounds_ties_to_even_between_every_adjacent_pair),
        cmocka_unit_test(test_float_to_bfloat16_overflows_to_infinity_past_the_largest_value),
        cmocka_unit_test(test_float_to_bfloat16_makes_every_nan_the_canonical_0x7fc0),
        cmocka_unit_test(test_float_to_bfloat16_keeps_float_subnormals_and_signed_zeros),
        cmocka_unit_test(test_ulp_spacing_is_the_gap_above_a_value_in_each_dtype),
        cmocka_unit_test(test_ulp_distance_counts_one_between_every_pair_of_adjacent_halves),
        cmocka_unit_test(test_ulp_distance_matches_ordered_bit_patterns_for_float32),
        cmocka_unit_test(test_ulp_close_needs_nan_parity_equal_infinities_and_signed_zeros),
        cmocka_unit_test(test_every_device_rounds_float32_to_float16_as_the_host_does),
        cmocka_unit_test(test_every_device_rounds_float32_to_bfloat16_as_the_host_does),
        cmocka_unit_test(test_every_device_widens_all_16_bit_patterns_as_the_host_does),
    };
    return cmocka_run_group_tests(tests, NULL, ct_teardown_group);
}
