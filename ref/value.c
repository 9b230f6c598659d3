/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ref/value.c: PyTorch's conversions between host buffers of every dtype
 * and the reference compute value (ref/ref.h).  Like PyTorch (and the
 * kernels), a float converted to an integer truncates, to uint8 through
 * int64 (-1.0 becomes 255), and an integer narrows by wrapping.
 */
#include <math.h>
#include <stdbool.h>

#include "ref/ref.h"

int64_t ref_wrap_int(int64_t x, clops_dtype dt)
{
    switch (dt) {
    case CLOPS_BOOL:
        return x != 0;
    case CLOPS_UINT8:
        return (uint8_t)(uint64_t)x;
    case CLOPS_INT8:
        return (int8_t)(uint8_t)(uint64_t)x;
    case CLOPS_INT16:
        return (int16_t)(uint16_t)(uint64_t)x;
    case CLOPS_INT32:
        return (int32_t)(uint32_t)(uint64_t)x;
    default:
        return x;
    }
}

ref_value ref_load(const void *base, int64_t index, clops_dtype dt, clops_dtype compute)
{
    ref_value v;
    double f = 0.0;
    int64_t i = 0;
    bool is_float = false;
    switch (dt) {
    case CLOPS_BOOL:
        i = ((const uint8_t *)base)[index] != 0;
        break;
    case CLOPS_UINT8:
        i = ((const uint8_t *)base)[index];
        break;
    case CLOPS_INT8:
        i = ((const int8_t *)base)[index];
        break;
    case CLOPS_INT16:
        i = ((const int16_t *)base)[index];
        break;
    case CLOPS_INT32:
        i = ((const int32_t *)base)[index];
        break;
    case CLOPS_INT64:
        i = ((const int64_t *)base)[index];
        break;
    case CLOPS_FLOAT16:
        f = clops_half_to_float(((const uint16_t *)base)[index]);
        is_float = true;
        break;
    case CLOPS_BFLOAT16:
        f = clops_bfloat16_to_float(((const uint16_t *)base)[index]);
        is_float = true;
        break;
    case CLOPS_FLOAT32:
        f = ((const float *)base)[index];
        is_float = true;
        break;
    case CLOPS_FLOAT64:
        f = ((const double *)base)[index];
        is_float = true;
        break;
    default:
        break;
    }
    if (clops_dtype_is_floating(compute)) {
        v.f = is_float ? f : (double)i;
        if (compute != CLOPS_FLOAT64)
            v.f = ref_round_f32(v.f);
    } else if (compute == CLOPS_BOOL) {
        v.i = is_float ? (f != 0.0) : (i != 0);
    } else if (is_float) {
        /* Float to integer truncates; to uint8 it goes through int64 (as
         * PyTorch does, so -1.0 becomes 255).  Out-of-range values are
         * undefined in PyTorch too; clamp to avoid C's undefined cast. */
        double t = trunc(f);
        if (isnan(t))
            t = 0;
        if (t >= 9.2233720368547758e18)
            t = 9.2233720368547748e18;
        if (t < -9.2233720368547758e18)
            t = -9.2233720368547758e18;
        v.i = (int64_t)t;
    } else {
        /* An integer narrows to an integer compute dtype by wrapping, as a
         * C cast does (int32 300 read as int8 is 44). */
        v.i = ref_wrap_int(i, compute);
    }
    return v;
}

void ref_store(void *base, int64_t index, clops_dtype dt, clops_dtype compute, ref_value v)
{
    bool from_float = clops_dtype_is_floating(compute);
    if (clops_dtype_is_floating(dt)) {
        double f = from_float ? v.f : (double)v.i;
        switch (dt) {
        case CLOPS_FLOAT16:
            ((uint16_t *)base)[index] = clops_float_to_half((float)f);
            break;
        case CLOPS_BFLOAT16:
            ((uint16_t *)base)[index] = clops_float_to_bfloat16((float)f);
            break;
        case CLOPS_FLOAT32:
            ((float *)base)[index] = (float)f;
            break;
        default:
            ((double *)base)[index] = f;
            break;
        }
        return;
    }
    int64_t i;
    if (dt == CLOPS_BOOL)
        i = from_float ? (v.f != 0.0) : (v.i != 0);
    else if (from_float)
        i = ref_load(&v.f, 0, CLOPS_FLOAT64, CLOPS_INT64).i;
    else
        i = v.i;
    i = ref_wrap_int(i, dt);
    switch (dt) {
    case CLOPS_BOOL:
    case CLOPS_UINT8:
        ((uint8_t *)base)[index] = (uint8_t)i;
        break;
    case CLOPS_INT8:
        ((int8_t *)base)[index] = (int8_t)i;
        break;
    case CLOPS_INT16:
        ((int16_t *)base)[index] = (int16_t)i;
        break;
    case CLOPS_INT32:
        ((int32_t *)base)[index] = (int32_t)i;
        break;
    default:
        ((int64_t *)base)[index] = i;
        break;
    }
}
