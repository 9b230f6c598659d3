/* SPDX-License-Identifier: Apache-2.0 */
/*
 * clops/dtype.h: element types and Python-style scalars.
 *
 * float16 and bfloat16 are storage types: kernels load them into float,
 * compute in float and round back on store (round-to-nearest-even).  float64
 * needs a device with cl_khr_fp64; without it an op fails with
 * CLOPS_UNSUPPORTED rather than computing in float32.
 *
 * The dtype list is written once in CLOPS_DTYPE_LIST and expanded wherever a
 * per-dtype table is needed.
 */
#ifndef CLOPS_DTYPE_H
#define CLOPS_DTYPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "clops/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* X(ENUM, name, size in bytes) in promotion-lattice order within each kind. */
#define CLOPS_DTYPE_LIST(X)                                                         \
    X(BOOL, "bool", 1)                                                              \
    X(UINT8, "uint8", 1)                                                            \
    X(INT8, "int8", 1)                                                              \
    X(INT16, "int16", 2)                                                            \
    X(INT32, "int32", 4)                                                            \
    X(INT64, "int64", 8)                                                            \
    X(FLOAT16, "float16", 2)                                                        \
    X(BFLOAT16, "bfloat16", 2)                                                      \
    X(FLOAT32, "float32", 4)                                                        \
    X(FLOAT64, "float64", 8)

typedef enum clops_dtype {
    /* "No dtype given" where an argument is optional (ScalarType? = None). */
    CLOPS_DTYPE_NONE = -1,
#define CLOPS__DTYPE_ENUM(e, name, size) CLOPS_##e,
    CLOPS_DTYPE_LIST(CLOPS__DTYPE_ENUM)
#undef CLOPS__DTYPE_ENUM
    /* The real dtypes: every op family's per-dtype table (the kit's
     * ops/kit/dtypes.def, type promotion, ...) has one row per dtype below
     * this value. */
    CLOPS_DTYPE_COUNT,
    /* The complex dtypes (PyTorch's complex64 / complex128): interleaved
     * (real, imaginary) pairs of float32 / float64.  They follow the real
     * dtypes so that no per-dtype table grows a row: a complex tensor has
     * creation (empty, zeros, full, fill_, zero_), copies (host and device,
     * strided, casts to and from the real dtypes), views, and the FFT family
     * (docs/fft.md); every other op refuses it with CLOPS_NOT_IMPLEMENTED
     * naming the op and the dtype. */
    CLOPS_COMPLEX64 = CLOPS_DTYPE_COUNT,
    CLOPS_COMPLEX128,
    /* Every dtype, real and complex. */
    CLOPS_DTYPE_COUNT_ALL
} clops_dtype;

/* "float32"; "none" for CLOPS_DTYPE_NONE; "invalid" for anything else. */
CLOPS_API const char *clops_dtype_name(clops_dtype dtype);

/* Element size in bytes; 0 for an invalid dtype. */
CLOPS_API size_t clops_dtype_size(clops_dtype dtype);

/* Parses "float32" and PyTorch's aliases ("float", "half", "long", "int",
 * "double", "short", "bf16", "f32", ...).  CLOPS_INVALID_DTYPE if unknown. */
CLOPS_API clops_status clops_dtype_from_name(const char *name, clops_dtype *out);

/* False for the complex dtypes, as PyTorch's is_floating_point. */
CLOPS_API bool clops_dtype_is_floating(clops_dtype dtype);
/* True for complex64 and complex128. */
CLOPS_API bool clops_dtype_is_complex(clops_dtype dtype);
/* The dtype of a complex dtype's parts (complex64: float32); any other dtype
 * is returned as it is. */
CLOPS_API clops_dtype clops_dtype_to_real(clops_dtype dtype);
/* The complex dtype whose parts are `dtype` (float32: complex64, float64:
 * complex128, a complex dtype: itself); CLOPS_DTYPE_NONE for the others
 * (PyTorch's complex32 is not a clops dtype). */
CLOPS_API clops_dtype clops_dtype_to_complex(clops_dtype dtype);
/* True for the integer types, bool excluded. */
CLOPS_API bool clops_dtype_is_integral(clops_dtype dtype);
/* True for bool, int8..int64 and the floating types' signedness as C sees it:
 * false for bool and uint8 only. */
CLOPS_API bool clops_dtype_is_signed(clops_dtype dtype);

/*
 * A Python-style scalar: the `Scalar` of a schema.  Its kind is part of type
 * promotion (an int scalar never promotes a float16 tensor to float32).
 */
typedef enum clops_scalar_kind {
    CLOPS_SCALAR_BOOL,
    CLOPS_SCALAR_INT,
    CLOPS_SCALAR_FLOAT
} clops_scalar_kind;

typedef struct clops_scalar {
    clops_scalar_kind kind;
    union {
        bool b;
        int64_t i;
        double f;
    } v;
} clops_scalar;

static inline clops_scalar clops_scalar_int(int64_t i)
{
    clops_scalar s;
    s.kind = CLOPS_SCALAR_INT;
    s.v.i = i;
    return s;
}

static inline clops_scalar clops_scalar_float(double f)
{
    clops_scalar s;
    s.kind = CLOPS_SCALAR_FLOAT;
    s.v.f = f;
    return s;
}

static inline clops_scalar clops_scalar_bool(bool b)
{
    clops_scalar s;
    s.kind = CLOPS_SCALAR_BOOL;
    s.v.b = b;
    return s;
}

/* The value as double / int64 (truncating toward zero, as a C cast does). */
CLOPS_API double clops_scalar_to_double(clops_scalar s);
CLOPS_API int64_t clops_scalar_to_int64(clops_scalar s);

/* Bits of one IEEE half / bfloat16 value, round-to-nearest-even. */
CLOPS_API uint16_t clops_float_to_half(float f);
CLOPS_API float clops_half_to_float(uint16_t h);
CLOPS_API uint16_t clops_float_to_bfloat16(float f);
CLOPS_API float clops_bfloat16_to_float(uint16_t b);

#ifdef __cplusplus
}
#endif

#endif /* CLOPS_DTYPE_H */
