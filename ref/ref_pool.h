/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ref/ref_pool.h: the CPU reference of the pooling and resampling family
 * (ref/pool.c): the CPU device runs it (through ops/pool/) and the tests
 * and `clops check` use it as the oracle.  A call is described by the
 * op's parameters (pool_geom: extents, kernel, stride, padding, dilation,
 * the op's flags and PyTorch's source-index scales) and its tensors.
 */
#ifndef CLOPS_REF_REF_POOL_H
#define CLOPS_REF_REF_POOL_H

#include <stdint.h>

#include "core/tensor_impl.h"

/* What a call computes (on OpenCL devices, a kernel of cl_kernels/pool.cl). */
typedef enum pool_which {
    POOL_MAX_FWD, /* (x, y, indices): max pooling, fixed or adaptive windows */
    POOL_MAX_BWD, /* (grad_output, indices, grad_input) */
    POOL_AVG_FWD, /* (x, y): average pooling, fixed or adaptive windows */
    POOL_AVG_BWD, /* (grad_output, grad_input) */
    POOL_UP_FWD,  /* (x, y): nearest, bilinear or bicubic upsampling */
    POOL_UP_BWD   /* (grad_output, grad_input) */
} pool_which;

/*
 * The geometry of one call over [N, C, D, H, W] (2-D ops: D = 1 with
 * kernel, stride 1, padding 0, dilation 1): input and output extents,
 * kernel, stride, padding, dilation; flag is count_include_pad (average
 * pooling) or align_corners (upsampling); divisor is divisor_override (0:
 * none); adaptive selects adaptive windows; mode the upsampling formula
 * (0 nearest, 1 bilinear, 2 bicubic); nsc (float, nearest) and lsc
 * (linear and cubic) are the (h, w) source-index scales.
 */
typedef struct pool_geom {
    int64_t N, C, in[3], out[3], k[3], s[3], p[3], dil[3];
    int flag, adaptive, mode;
    int64_t divisor;
    float nsc[2];
    double lsc[2];
} pool_geom;

/* [offset, sN, sC, sD, sH, sW] of t as an [N, C, D, H, W] tensor with nsp
 * spatial dims (an unbatched t, of nsp + 1 dims, has sN = 0). */
void pool_view5(const clops_tensor *t, int nsp, int64_t v[6]);

/* The CPU reference of `which` (direct loops in double; the backward ops
 * scatter each output's gradient into a double buffer as PyTorch's CPU
 * kernels do).  Host tensors, any strides. */
clops_status pool_ref(const char *op, pool_which which, const pool_geom *g, int nsp,
                      const clops_tensor *a, const clops_tensor *b, clops_tensor *c);

#endif /* CLOPS_REF_REF_POOL_H */
