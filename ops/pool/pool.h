/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ops/pool/pool.h: the pooling and resampling family inside clops (max and
 * average pooling, adaptive pooling, upsampling, pixel shuffle;
 * dispatch/inventory/pool.yaml, docs/pool.md).  ops/pool/pool.c plans and launches
 * cl_kernels/pool.cl, ops/pool/pool_ops.c holds the operator entry points, and
 * the CPU device and the tests use the direct-loop reference of ref/pool.c.
 */
#ifndef CLOPS_OPS_POOL_H
#define CLOPS_OPS_POOL_H

#include "core/tensor_impl.h"
#include "dispatch/structured.h"

/* What a launch computes (a kernel of cl_kernels/pool.cl). */
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

/* Runs `which` on a, b, c (see pool_which; all of one device) over g:
 * cl_kernels/pool.cl on OpenCL devices, ref/pool.c on the CPU device. */
clops_status pool_run(const char *op, pool_which which, const pool_geom *g, int nsp,
                      clops_tensor *a, clops_tensor *b, clops_tensor *c);

/* The CPU reference of `which` (direct loops in double; the backward ops
 * scatter each output's gradient into a double buffer as PyTorch's CPU
 * kernels do).  Host tensors, any strides. */
clops_status pool_ref(const char *op, pool_which which, const pool_geom *g, int nsp,
                      const clops_tensor *a, const clops_tensor *b, clops_tensor *c);

/* Whether t is a 4-D channels-last tensor (C > 1, NHWC strides; the
 * strides of size-1 dims do not count). */
bool pool_channels_last(const clops_tensor *t);

/*
 * structured_begin for a result of dtype dt and shape (nd, sz), except that
 * a functional result of a 4-D op takes like's channels-last layout, as
 * PyTorch's does: then *fresh is that new tensor (NULL otherwise), which
 * pool_finish hands to *out.
 */
clops_status pool_begin(structured_call *c, const char *op, pw_variant variant, clops_tensor *dst,
                        const clops_tensor *like, clops_dtype dt, int nd, const int64_t *sz,
                        clops_tensor *const *ins, int n, clops_tensor **fresh);
/* structured_finish of a pool_begin call. */
clops_status pool_finish(structured_call *c, clops_status st, clops_tensor *fresh,
                         clops_tensor **out);

/* PyTorch's pooling output size along one dim (pooling_output_shape). */
int64_t pool_out_size(int64_t in, int64_t k, int64_t pad, int64_t stride, int64_t dil,
                      bool ceil_mode);

#endif /* CLOPS_OPS_POOL_H */
