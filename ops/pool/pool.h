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
#include "ref/ref_pool.h"

/* pool_which, pool_geom, pool_view5 and the CPU reference pool_ref are
 * declared in ref/ref_pool.h. */

/* Runs `which` on a, b, c (see pool_which; all of one device) over g:
 * cl_kernels/pool.cl on OpenCL devices, ref/pool.c on the CPU device. */
clops_status pool_run(const char *op, pool_which which, const pool_geom *g, int nsp,
                      clops_tensor *a, clops_tensor *b, clops_tensor *c);

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
