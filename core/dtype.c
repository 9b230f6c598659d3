/* SPDX-License-Identifier: Apache-2.0 */
/*
 * core/dtype.c: dtype names and sizes, scalar conversions, and the host-side
 * float16 / bfloat16 conversions (round-to-nearest-even, as the kernels and
 * PyTorch do).
 */
#include <math.h>
#include <string.h>
#include <strings.h>

#include "clops/dtype.h"
#include "core/error.h"
#include "core/tensor_impl.h"

typedef struct dtype_entry {
    const char *name;
    size_t size;
} dtype_entry;

static const dtype_entry dtype_table[] = {
#define DTYPE_ROW(e, name, size) {name, size},
    CLOPS_DTYPE_LIST(DTYPE_ROW)
#undef DTYPE_ROW
    {"complex64", 8},
    {"complex128", 16},
};

_Static_assert(sizeof dtype_table / sizeof dtype_table[0] == CLOPS_DTYPE_COUNT_ALL,
               "dtype table must match CLOPS_DTYPE_LIST and the complex dtypes");

const char *clops_dtype_name(clops_dtype dtype)
{
    if (dtype == CLOPS_DTYPE_NONE)
        return "none";
    if ((int)dtype < 0 || dtype >= CLOPS_DTYPE_COUNT_ALL)
        return "invalid";
    return dtype_table[dtype].name;
}

size_t clops_dtype_size(clops_dtype dtype)
{
    if ((int)dtype < 0 || dtype >= CLOPS_DTYPE_COUNT_ALL)
        return 0;
    return dtype_table[dtype].size;
}

/* PyTorch's and NumPy's other spellings of the dtypes. */
static const struct {
    const char *alias;
    clops_dtype dtype;
} dtype_aliases[] = {
    {"float", CLOPS_FLOAT32},   {"f32", CLOPS_FLOAT32},    {"double", CLOPS_FLOAT64},
    {"f64", CLOPS_FLOAT64},     {"half", CLOPS_FLOAT16},   {"f16", CLOPS_FLOAT16},
    {"bf16", CLOPS_BFLOAT16},   {"long", CLOPS_INT64},     {"i64", CLOPS_INT64},
    {"int", CLOPS_INT32},       {"i32", CLOPS_INT32},      {"short", CLOPS_INT16},
    {"i16", CLOPS_INT16},       {"i8", CLOPS_INT8},        {"u8", CLOPS_UINT8},
    {"byte", CLOPS_UINT8},      {"char", CLOPS_INT8},      {"b8", CLOPS_BOOL},
    {"torch.float32", CLOPS_FLOAT32}, {"cfloat", CLOPS_COMPLEX64},
    {"cdouble", CLOPS_COMPLEX128},    {"c64", CLOPS_COMPLEX64},
    {"c128", CLOPS_COMPLEX128},
};

clops_status clops_dtype_from_name(const char *name, clops_dtype *out)
{
    if (!name || !out)
        return clops__fail(CLOPS_INVALID_ARGUMENT, "clops_dtype_from_name: NULL argument");
    const char *n = strncmp(name, "torch.", 6) == 0 ? name + 6 : name;
    for (int d = 0; d < CLOPS_DTYPE_COUNT_ALL; d++)
        if (strcasecmp(n, dtype_table[d].name) == 0) {
            *out = (clops_dtype)d;
            return CLOPS_OK;
        }
    for (size_t i = 0; i < sizeof dtype_aliases / sizeof dtype_aliases[0]; i++)
        if (strcasecmp(n, dtype_aliases[i].alias) == 0) {
            *out = dtype_aliases[i].dtype;
            return CLOPS_OK;
        }
    return clops__fail(CLOPS_INVALID_DTYPE,
                       "unknown dtype '%s' (expected one of bool, uint8, int8, int16, int32, int64, "
                       "float16, bfloat16, float32, float64, complex64, complex128)",
                       name);
}

bool clops_dtype_is_floating(clops_dtype dtype)
{
    return dtype == CLOPS_FLOAT16 || dtype == CLOPS_BFLOAT16 || dtype == CLOPS_FLOAT32 ||
           dtype == CLOPS_FLOAT64;
}

bool clops_dtype_is_complex(clops_dtype dtype)
{
    return dtype == CLOPS_COMPLEX64 || dtype == CLOPS_COMPLEX128;
}

clops_dtype clops_dtype_to_real(clops_dtype dtype)
{
    return dtype == CLOPS_COMPLEX64 ? CLOPS_FLOAT32 : dtype == CLOPS_COMPLEX128 ? CLOPS_FLOAT64 : dtype;
}

clops_dtype clops_dtype_to_complex(clops_dtype dtype)
{
    if (dtype == CLOPS_FLOAT32 || dtype == CLOPS_COMPLEX64)
        return CLOPS_COMPLEX64;
    if (dtype == CLOPS_FLOAT64 || dtype == CLOPS_COMPLEX128)
        return CLOPS_COMPLEX128;
    return CLOPS_DTYPE_NONE;
}

bool clops_dtype_is_integral(clops_dtype dtype)
{
    return dtype == CLOPS_UINT8 || dtype == CLOPS_INT8 || dtype == CLOPS_INT16 ||
           dtype == CLOPS_INT32 || dtype == CLOPS_INT64;
}

/* 0 bool, 1 integral, 2 floating, 3 complex; -1 for an invalid dtype. */
static int dtype_kind_rank(clops_dtype d)
{
    if (d == CLOPS_BOOL)
        return 0;
    if (clops_dtype_is_integral(d))
        return 1;
    if (clops_dtype_is_complex(d))
        return 3;
    return clops_dtype_is_floating(d) ? 2 : -1;
}

bool dtype_can_cast(clops_dtype from, clops_dtype to)
{
    int a = dtype_kind_rank(from), b = dtype_kind_rank(to);
    return a >= 0 && b >= 0 && a <= b;
}

bool clops_dtype_is_signed(clops_dtype dtype)
{
    return dtype != CLOPS_BOOL && dtype != CLOPS_UINT8 && (int)dtype >= 0 &&
           dtype < CLOPS_DTYPE_COUNT_ALL;
}

void dtype_int_range(clops_dtype dtype, int64_t *lo, int64_t *hi)
{
    switch (dtype) {
    case CLOPS_BOOL:
        *lo = 0, *hi = 1;
        break;
    case CLOPS_UINT8:
        *lo = 0, *hi = UINT8_MAX;
        break;
    case CLOPS_INT8:
        *lo = INT8_MIN, *hi = INT8_MAX;
        break;
    case CLOPS_INT16:
        *lo = INT16_MIN, *hi = INT16_MAX;
        break;
    case CLOPS_INT32:
        *lo = INT32_MIN, *hi = INT32_MAX;
        break;
    default:
        *lo = INT64_MIN, *hi = INT64_MAX;
        break;
    }
}

double clops_scalar_to_double(clops_scalar s)
{
    switch (s.kind) {
    case CLOPS_SCALAR_BOOL:
        return s.v.b ? 1.0 : 0.0;
    case CLOPS_SCALAR_INT:
        return (double)s.v.i;
    default:
        return s.v.f;
    }
}

int64_t clops_scalar_to_int64(clops_scalar s)
{
    switch (s.kind) {
    case CLOPS_SCALAR_BOOL:
        return s.v.b ? 1 : 0;
    case CLOPS_SCALAR_INT:
        return s.v.i;
    default: {
        double t = trunc(s.v.f);
        if (isnan(t))
            return 0;
        if (t >= 9.2233720368547758e18)
            return INT64_MAX;
        if (t <= -9.2233720368547758e18)
            return INT64_MIN;
        return (int64_t)t;
    }
    }
}

/* Bits of a float. */
static uint32_t f32_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static float bits_f32(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

uint16_t clops_float_to_half(float f)
{
    uint32_t x = f32_bits(f);
    uint32_t sign = (x >> 16) & 0x8000u;
    uint32_t ax = x & 0x7fffffffu;
    if (ax > 0x7f800000u) /* NaN: keep it quiet */
        return (uint16_t)(sign | 0x7e00u | ((ax >> 13) & 0x1ffu));
    if (ax >= 0x477ff000u) /* rounds to >= 65520: infinity */
        return (uint16_t)(sign | 0x7c00u);
    if (ax < 0x38800000u) {
        /* Subnormal half (or zero): scale so the rounding is done by the
         * float adder in round-to-nearest-even mode. */
        float v = bits_f32(ax) + 0.5f; /* 0.5 = 2^-1: aligns to 2^-24 units */
        return (uint16_t)(sign | (f32_bits(v) - f32_bits(0.5f)));
    }
    uint32_t mant_odd = (ax >> 13) & 1u;
    ax += 0xc8000fffu + mant_odd; /* rebias exponent (-112 << 23) and round */
    return (uint16_t)(sign | (ax >> 13));
}

float clops_half_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1fu;
    uint32_t mant = h & 0x3ffu;
    if (exp == 0) {
        /* zero or subnormal: mant * 2^-24 is exact in float */
        float v = (float)mant * 5.9604644775390625e-08f;
        return sign ? -v : v;
    }
    if (exp == 31)
        return bits_f32(sign | 0x7f800000u | (mant << 13));
    return bits_f32(sign | ((exp + 112) << 23) | (mant << 13));
}

uint16_t clops_float_to_bfloat16(float f)
{
    uint32_t u = f32_bits(f);
    if ((u & 0x7fffffffu) > 0x7f800000u)
        return 0x7fc0u;
    u += 0x7fffu + ((u >> 16) & 1u);
    return (uint16_t)(u >> 16);
}

float clops_bfloat16_to_float(uint16_t b)
{
    return bits_f32((uint32_t)b << 16);
}
