/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ref/ref.h: what every CPU reference kernel of ref/ shares: the value an
 * element is computed in, and PyTorch's conversions between a host buffer
 * of any dtype and that value (ref/value.c).
 *
 * ref/ is the oracle of clops: the CPU device runs it, and the tests and
 * `clops check` compare every OpenCL result against it.  So that a bug of a
 * family's planning or kernels cannot hide in both sides, ref/ includes
 * only include/clops/, core/ and its own headers, and computes each op
 * from its semantics (its tensors and parameters), never from a family's
 * plan.  The families call it through the ref/ headers (one per family:
 * ref_gemm.h, ref_conv.h, ...).
 */
#ifndef CLOPS_REF_REF_H
#define CLOPS_REF_REF_H

#include <stdint.h>

#include "clops/dtype.h"
#include "core/tensor_impl.h"

/* An element converted to the reference compute type: double for floating
 * computes, int64 for integer and bool computes. */
typedef union ref_value {
    double f;
    int64_t i;
} ref_value;

/* Reads element `index` (in elements from the storage start) of a host
 * buffer of dtype dt as a ref_value of the given compute dtype: floats
 * widen (and round to float32 for a float32/float16/bfloat16 compute),
 * integers wrap to a narrower integer compute as a C cast does, floats
 * truncate to an integer compute (clamped where C's cast is undefined). */
ref_value ref_load(const void *base, int64_t index, clops_dtype dt, clops_dtype compute);
/* Stores v (computed in `compute`) into element index of dtype dt with
 * PyTorch's conversion rules. */
void ref_store(void *base, int64_t index, clops_dtype dt, clops_dtype compute, ref_value v);

/* Rounds a double to float32 precision (keeping NaN and infinities). */
static inline double ref_round_f32(double x)
{
    return (double)(float)x;
}

/* Wraps an int64 to the width of integer dtype dt (two's complement; bool
 * gives 0 or 1, int64 and non-integer dtypes keep x). */
int64_t ref_wrap_int(int64_t x, clops_dtype dt);

/* Storage offset (elements) of the line of t at position pos (pos[dim] is
 * 0: the line's first element); NULL t gives 0.  For walks along one dim. */
static inline int64_t ref_line_offset(const clops_tensor *t, const int64_t *pos)
{
    if (!t)
        return 0;
    int64_t o = t->offset;
    for (int i = 0; i < t->ndim; i++)
        o += pos[i] * t->strides[i];
    return o;
}

/* Advances pos to the next line along dim: an odometer over every dim of
 * sizes (nd of them) but dim. */
static inline void ref_next_line(int64_t *pos, const int64_t *sizes, int nd, int dim)
{
    for (int i = nd - 1; i >= 0; i--) {
        if (i == dim)
            continue;
        if (++pos[i] < sizes[i])
            break;
        pos[i] = 0;
    }
}

#endif /* CLOPS_REF_REF_H */
