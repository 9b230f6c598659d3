/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ref/ref_conv.h: the CPU reference of the convolution family (ref/conv.c):
 * the CPU device runs it (through ops/conv/) and the tests use it as the
 * oracle.  A convolution is described by its geometry (conv_geom: the
 * extents of the "big" image B [N, Cb, big...], the "small" image S
 * [N, Cs, small...] and the weight W [Cs, Cb/g, k...], with stride s,
 * padding p, dilation d and g groups; ops/conv/conv.h explains the three
 * products that cover every op).
 */
#ifndef CLOPS_REF_REF_CONV_H
#define CLOPS_REF_REF_CONV_H

#include <stdbool.h>
#include <stdint.h>

#include "core/tensor_impl.h"

/* Spatial dims are padded to three with leading size-1 dims. */
#define CONV_SP 3

typedef struct conv_geom {
    int nsp;                    /* spatial dims of the op: 1, 2 or 3 */
    int64_t N, groups;          /* batch, groups */
    int64_t Cb, Cs;             /* channels of the big and the small image */
    int64_t big[CONV_SP], small[CONV_SP];
    int64_t k[CONV_SP], s[CONV_SP], p[CONV_SP], d[CONV_SP];
    int64_t K, Lb, Ls;          /* products of k, big and small */
} conv_geom;

/* The three products (see above). */
typedef enum conv_dir { CONV_TO_SMALL, CONV_TO_BIG, CONV_TO_WEIGHT } conv_dir;

/*
 * The columns of a conv_geom: element (n, c * K + j, o) of the columns of
 * image channel c, kernel position j and small position o (linear) lies at
 * off + n * sn + (c * K + j) * sck + o.  aten::im2col's [N, C*K, L] result
 * has sn = C*K*L, sck = L; the convolution's [C*K, N*L] has sn = L,
 * sck = N*L.
 */
typedef struct conv_cols {
    int64_t off, sn, sck;
} conv_cols;

/*
 * One product of geometry g between host tensors of any strides and
 * floating dtypes: S [N, Cs, small...], B [N, Cb, big...], W [Cs, Cb/groups,
 * k...] (2 + g->nsp dims each); the destination of `dir` is overwritten,
 * the other two are read.  Direct loops accumulating in double.
 */
clops_status conv_ref_product(const conv_geom *g, conv_dir dir, clops_tensor *S, clops_tensor *B,
                              clops_tensor *W);
/*
 * The pointwise consumers of a forward product (_clops_conv_epilogue), in
 * double on the destination's values before their one rounding, op by op:
 *     y += bias[c]
 *     y = y * s[c] + (shift[c] - mean[c] * s[c]),
 *         s = scale[c] / sqrt(var[c] + eps) (scale alone without var)
 *     y += residual (unless residual_after); y = act(y);
 *     y += residual (when residual_after)
 * Every tensor may be NULL (none; scale 1, shift and mean 0); the vectors
 * are 1-D host tensors of the destination's channels, residual a host
 * tensor of its shape; act numbered as the matrix engine's gemm_act (0 none,
 * 1 relu, 2 relu6, 3 hardswish, 4 silu, 5 gelu, 6 gelu tanh, 7 sigmoid).
 */
typedef struct conv_ref_epi {
    const clops_tensor *bias, *scale, *shift, *mean, *var, *residual;
    double eps;
    bool residual_after;
    int act;
} conv_ref_epi;

/* A forward product (CONV_TO_SMALL or CONV_TO_BIG) as conv_ref_product,
 * followed by epilogue e (NULL: none). */
clops_status conv_ref_product_epi(const conv_geom *g, conv_dir dir, clops_tensor *S,
                                  clops_tensor *B, clops_tensor *W, const conv_ref_epi *e);
/* act (numbered as conv_ref_epi's) of x in double. */
double conv_ref_act(double x, int act);
/* im2col of host image B (any strides) into host columns cols (layout l). */
clops_status conv_ref_im2col(const conv_geom *g, const clops_tensor *B, clops_tensor *cols,
                             conv_cols l);
/* col2im: host image B (overwritten) = the sum, in double, of the columns
 * meeting each element. */
clops_status conv_ref_col2im(const conv_geom *g, const clops_tensor *cols, conv_cols l,
                             clops_tensor *B);

#endif /* CLOPS_REF_REF_CONV_H */
