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
/* im2col of host image B (any strides) into host columns cols (layout l). */
clops_status conv_ref_im2col(const conv_geom *g, const clops_tensor *B, clops_tensor *cols,
                             conv_cols l);
/* col2im: host image B (overwritten) = the sum, in double, of the columns
 * meeting each element. */
clops_status conv_ref_col2im(const conv_geom *g, const clops_tensor *cols, conv_cols l,
                             clops_tensor *B);

#endif /* CLOPS_REF_REF_CONV_H */
