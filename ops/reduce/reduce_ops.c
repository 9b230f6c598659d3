/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ops/reduce/reduce_ops.c: the arithmetic reductions: sum, nansum, mean, nanmean,
 * prod, var, std, var_mean, std_mean, logsumexp, norm and
 * linalg_vector_norm (structured family functions of
 * dispatch/inventory/reduce.yaml, plus the typed kernels of the two-result ops).
 *
 * Each checks its arguments with PyTorch's words, picks the result dtype
 * (integer and bool sums and products give int64; `dtype=` casts the input
 * first, as PyTorch does), and reduces through reduce_structured or
 * reduce_pair (ops/reduce/reduce_plan.c, this file).
 */
#include <math.h>
#include <string.h>

#include "host/host.h"
#include "ops/reduce/reduce.h"
#include "ops/kernels_generated.h"

/* "<op>: ... Got: <dtype>" failures name the input and its device. */
static clops_status dtype_fail(const char *op, const char *what, const clops_tensor *x,
                               clops_dtype got)
{
    char shape[400];
    return clops__fail(CLOPS_INVALID_DTYPE, "%s: %s Got: %s (input %s%s on %s)", op, what,
                       clops_dtype_name(got), clops_dtype_name(x->dtype),
                       clops__fmt_shape(shape, sizeof shape, x->ndim, x->sizes),
                       x->storage->device->label);
}

/* sum/nansum/prod: cast to dtype= (if given), reduce over dims. */
static clops_status sum_like(const char *op, pw_variant variant, clops_tensor *dst,
                             clops_tensor *self, const int64_t *dim, int dim_len,
                             bool keepdim, clops_dtype dtype, reduce_kind kind,
                             clops_tensor **out)
{
    bool mask[CLOPS_MAX_DIMS];
    clops_status st = reduce_dims_mask(op, self, dim, dim_len, true, mask);
    if (st)
        return st;
    clops_dtype src = dtype != CLOPS_DTYPE_NONE ? dtype : self->dtype;
    clops_dtype result = dtype != CLOPS_DTYPE_NONE       ? dtype
                         : clops_dtype_is_floating(src) ? src
                                                        : CLOPS_INT64;
    if (kind == RK_NANSUM && !clops_dtype_is_floating(src))
        kind = RK_SUM;
    clops_tensor *xin = NULL;
    st = reduce_cast_input(op, self, src, &xin);
    if (st)
        return st;
    st = reduce_structured(op, variant, dst, xin, mask, keepdim, kind, result, 0, 0, out);
    clops_tensor_release(xin);
    return st;
}

clops_status reduce_sum_dim(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                            const int64_t *dim, int dim_len, bool keepdim, clops_dtype dtype,
                            clops_tensor **out)
{
    return sum_like("sum", variant, dst, self, dim, dim_len, keepdim, dtype, RK_SUM, out);
}

clops_status reduce_sum(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                        clops_dtype dtype, clops_tensor **out)
{
    return sum_like("sum", variant, dst, self, NULL, 0, false, dtype, RK_SUM, out);
}

clops_status reduce_nansum(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                           const int64_t *dim, int dim_len, bool keepdim, clops_dtype dtype,
                           clops_tensor **out)
{
    return sum_like("nansum", variant, dst, self, dim, dim_len, keepdim, dtype, RK_NANSUM, out);
}

clops_status reduce_prod(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                         clops_dtype dtype, clops_tensor **out)
{
    return sum_like("prod", variant, dst, self, NULL, 0, false, dtype, RK_PROD, out);
}

clops_status reduce_prod_dim(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                             int64_t dim, bool keepdim, clops_dtype dtype, clops_tensor **out)
{
    return sum_like("prod", variant, dst, self, &dim, 1, keepdim, dtype, RK_PROD, out);
}

/* mean/nanmean: floating inputs or a floating dtype= only. */
static clops_status mean_like(const char *op, pw_variant variant, clops_tensor *dst,
                              clops_tensor *self, const int64_t *dim, int dim_len,
                              bool keepdim, clops_dtype dtype, reduce_kind kind,
                              clops_tensor **out)
{
    if (kind == RK_NANMEAN && !clops_dtype_is_floating(self->dtype))
        return dtype_fail(op, "expected input to have floating point or complex dtype but got",
                          self, self->dtype);
    if (dtype != CLOPS_DTYPE_NONE && !clops_dtype_is_floating(dtype))
        return dtype_fail(op,
                          "could not infer output dtype. Optional dtype must be either a "
                          "floating point or complex dtype.",
                          self, dtype);
    if (dtype == CLOPS_DTYPE_NONE && !clops_dtype_is_floating(self->dtype))
        return dtype_fail(op,
                          "could not infer output dtype. Input dtype must be either a floating "
                          "point or complex dtype.",
                          self, self->dtype);
    bool mask[CLOPS_MAX_DIMS];
    clops_status st = reduce_dims_mask(op, self, dim, dim_len, true, mask);
    if (st)
        return st;
    clops_dtype src = dtype != CLOPS_DTYPE_NONE ? dtype : self->dtype;
    clops_tensor *xin = NULL;
    st = reduce_cast_input(op, self, src, &xin);
    if (st)
        return st;
    st = reduce_structured(op, variant, dst, xin, mask, keepdim, kind, src, 0, 0, out);
    clops_tensor_release(xin);
    return st;
}

clops_status reduce_mean(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                         clops_dtype dtype, clops_tensor **out)
{
    return mean_like("mean", variant, dst, self, NULL, 0, false, dtype, RK_MEAN, out);
}

clops_status reduce_mean_dim(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                             const int64_t *dim, int dim_len, bool keepdim, clops_dtype dtype,
                             clops_tensor **out)
{
    return mean_like("mean", variant, dst, self, dim, dim_len, keepdim, dtype, RK_MEAN, out);
}

clops_status reduce_nanmean(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                            const int64_t *dim, int dim_len, bool keepdim, clops_dtype dtype,
                            clops_tensor **out)
{
    return mean_like("nanmean", variant, dst, self, dim, dim_len, keepdim, dtype, RK_NANMEAN,
                     out);
}

/* --- two results -------------------------------------------------------- */

clops_status reduce_pair(const char *op, pw_variant variant, clops_tensor *self,
                         const bool *mask, bool keepdim, reduce_kind kind, clops_dtype dt1,
                         clops_dtype dt2, clops_tensor *dst1, clops_tensor *dst2,
                         clops_tensor **out1, clops_tensor **out2, double p0, double p1)
{
    int nd;
    int64_t sizes[CLOPS_MAX_DIMS];
    reduce_out_shape(self, mask, keepdim, &nd, sizes);
    structured_call c1, c2;
    memset(&c2, 0, sizeof c2);
    clops_device *dev = self->storage->device;
    clops_status st = structured_begin(&c1, op, variant, dst1, dev, dt1, nd, sizes, &self, 1);
    if (st)
        return st;
    st = structured_begin(&c2, op, variant, dst2, dev, dt2, nd, sizes, &self, 1);
    if (st)
        return structured_finish(&c1, st, NULL);
    if (variant == PW_OUT && dst1->storage == dst2->storage)
        st = structured_check_overlap(op, dst1, &dst2, 1);
    if (!st) {
        reduce_call c = {0};
        c.opname = op;
        c.kind = kind;
        c.x = self;
        memcpy(c.mask, mask, sizeof c.mask);
        c.y = c1.target;
        c.y2 = c2.target;
        c.p0 = p0;
        c.p1 = p1;
        st = reduce_run(&c);
    }
    st = structured_finish(&c1, st, out1);
    clops_status st2 = structured_finish(&c2, st, out2);
    if (st && out1 && *out1) {
        clops_tensor_release(*out1);
        *out1 = NULL;
    }
    return st ? st : st2;
}

/* --- var / std ----------------------------------------------------------- */

/* The correction of var.correction (None: 1). */
static double correction_of(const clops_scalar *c)
{
    return c ? clops_scalar_to_double(*c) : 1.0;
}

/* Shared checks and mask of the var/std family. */
static clops_status var_prepare(const char *op, clops_tensor *self, const int64_t *dim,
                                int dim_len, bool *mask)
{
    if (!clops_dtype_is_floating(self->dtype))
        return dtype_fail(op, "std and var only support floating point and complex dtypes.",
                          self, self->dtype);
    return reduce_dims_mask(op, self, dim, dim_len, true, mask);
}

/* var (std=false) or std over dim with a correction. */
static clops_status var_like(const char *op, pw_variant variant, clops_tensor *dst,
                             clops_tensor *self, const int64_t *dim, int dim_len, double corr,
                             bool keepdim, bool std, clops_tensor **out)
{
    bool mask[CLOPS_MAX_DIMS];
    clops_status st = var_prepare(op, self, dim, dim_len, mask);
    if (st)
        return st;
    return reduce_structured(op, variant, dst, self, mask, keepdim, RK_VAR, self->dtype,
                             std ? 1 : 0, corr, out);
}

clops_status reduce_var(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                        bool unbiased, clops_tensor **out)
{
    return var_like("var", variant, dst, self, NULL, 0, unbiased, false, false, out);
}

clops_status reduce_var_dim(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                            const int64_t *dim, int dim_len, bool unbiased, bool keepdim,
                            clops_tensor **out)
{
    return var_like("var", variant, dst, self, dim, dim_len, unbiased, keepdim, false, out);
}

clops_status reduce_var_correction(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                                   const int64_t *dim, int dim_len,
                                   const clops_scalar *correction, bool keepdim,
                                   clops_tensor **out)
{
    return var_like("var", variant, dst, self, dim, dim_len, correction_of(correction), keepdim,
                    false, out);
}

clops_status reduce_std(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                        bool unbiased, clops_tensor **out)
{
    return var_like("std", variant, dst, self, NULL, 0, unbiased, false, true, out);
}

clops_status reduce_std_dim(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                            const int64_t *dim, int dim_len, bool unbiased, bool keepdim,
                            clops_tensor **out)
{
    return var_like("std", variant, dst, self, dim, dim_len, unbiased, keepdim, true, out);
}

clops_status reduce_std_correction(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                                   const int64_t *dim, int dim_len,
                                   const clops_scalar *correction, bool keepdim,
                                   clops_tensor **out)
{
    return var_like("std", variant, dst, self, dim, dim_len, correction_of(correction), keepdim,
                    true, out);
}

/* var_mean / std_mean: (var or std, mean) in one pass. */
static clops_status var_mean_like(const char *op, pw_variant variant, clops_tensor *self,
                                  const int64_t *dim, int dim_len, double corr, bool keepdim,
                                  bool std, clops_tensor *d0, clops_tensor *d1,
                                  clops_tensor **out0, clops_tensor **out1)
{
    bool mask[CLOPS_MAX_DIMS];
    clops_status st = var_prepare(op, self, dim, dim_len, mask);
    if (st)
        return st;
    return reduce_pair(op, variant, self, mask, keepdim, RK_VAR, self->dtype, self->dtype, d0, d1,
                       out0, out1, std ? 1 : 0, corr);
}

clops_status reduce_var_mean(clops_tensor *self, bool unbiased, clops_tensor **out0,
                             clops_tensor **out1)
{
    return var_mean_like("var_mean", PW_FUNCTIONAL, self, NULL, 0, unbiased, false, false, NULL,
                         NULL, out0, out1);
}

clops_status reduce_var_mean_dim(clops_tensor *self, const int64_t *dim, int dim_len,
                                 bool unbiased, bool keepdim, clops_tensor **out0,
                                 clops_tensor **out1)
{
    return var_mean_like("var_mean", PW_FUNCTIONAL, self, dim, dim_len, unbiased, keepdim, false,
                         NULL, NULL, out0, out1);
}

clops_status reduce_var_mean_correction(clops_tensor *self, const int64_t *dim, int dim_len,
                                        const clops_scalar *correction, bool keepdim,
                                        clops_tensor **out0, clops_tensor **out1)
{
    return var_mean_like("var_mean", PW_FUNCTIONAL, self, dim, dim_len,
                         correction_of(correction), keepdim, false, NULL, NULL, out0, out1);
}

clops_status reduce_var_mean_correction_out(clops_tensor *self, const int64_t *dim, int dim_len,
                                            const clops_scalar *correction, bool keepdim,
                                            clops_tensor *out0, clops_tensor *out1)
{
    return var_mean_like("var_mean", PW_OUT, self, dim, dim_len, correction_of(correction),
                         keepdim, false, out0, out1, NULL, NULL);
}

clops_status reduce_std_mean(clops_tensor *self, bool unbiased, clops_tensor **out0,
                             clops_tensor **out1)
{
    return var_mean_like("std_mean", PW_FUNCTIONAL, self, NULL, 0, unbiased, false, true, NULL,
                         NULL, out0, out1);
}

clops_status reduce_std_mean_dim(clops_tensor *self, const int64_t *dim, int dim_len,
                                 bool unbiased, bool keepdim, clops_tensor **out0,
                                 clops_tensor **out1)
{
    return var_mean_like("std_mean", PW_FUNCTIONAL, self, dim, dim_len, unbiased, keepdim, true,
                         NULL, NULL, out0, out1);
}

clops_status reduce_std_mean_correction(clops_tensor *self, const int64_t *dim, int dim_len,
                                        const clops_scalar *correction, bool keepdim,
                                        clops_tensor **out0, clops_tensor **out1)
{
    return var_mean_like("std_mean", PW_FUNCTIONAL, self, dim, dim_len,
                         correction_of(correction), keepdim, true, NULL, NULL, out0, out1);
}

clops_status reduce_std_mean_correction_out(clops_tensor *self, const int64_t *dim, int dim_len,
                                            const clops_scalar *correction, bool keepdim,
                                            clops_tensor *out0, clops_tensor *out1)
{
    return var_mean_like("std_mean", PW_OUT, self, dim, dim_len, correction_of(correction),
                         keepdim, true, out0, out1, NULL, NULL);
}

/* --- logsumexp ------------------------------------------------------------ */

clops_status reduce_logsumexp(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                              const int64_t *dim, int dim_len, bool keepdim, clops_tensor **out)
{
    bool mask[CLOPS_MAX_DIMS];
    clops_status st = reduce_dims_mask("logsumexp", self, dim, dim_len, true, mask);
    if (st)
        return st;
    /* Integer inputs are computed in the default float dtype. */
    clops_dtype dt = clops_dtype_is_floating(self->dtype) ? self->dtype : CLOPS_FLOAT32;
    clops_tensor *xin = NULL;
    st = reduce_cast_input("logsumexp", self, dt, &xin);
    if (st)
        return st;
    st = reduce_structured("logsumexp", variant, dst, xin, mask, keepdim, RK_LSE, dt, 0, 0, out);
    clops_tensor_release(xin);
    return st;
}

/* --- norms ---------------------------------------------------------------- */

/* The vector p-norm of x over dims, in dtype (cast first when given). */
static clops_status vector_norm(const char *op, pw_variant variant, clops_tensor *dst,
                                clops_tensor *self, double p, const int64_t *dim, int dim_len,
                                bool keepdim, clops_dtype dtype, clops_tensor **out)
{
    if (!clops_dtype_is_floating(self->dtype))
        return dtype_fail(op, "Expected a floating point or complex tensor as input.", self,
                          self->dtype);
    if (dtype != CLOPS_DTYPE_NONE && !clops_dtype_is_floating(dtype))
        return dtype_fail(op, "the desired output dtype should be either floating point or complex.",
                          self, dtype);
    bool mask[CLOPS_MAX_DIMS];
    clops_status st = reduce_dims_mask(op, self, dim, dim_len, true, mask);
    if (st)
        return st;
    if (p < 0 || isinf(p)) {
        int64_t n = 1;
        for (int d = 0; d < self->ndim; d++)
            if (mask[d])
                n *= self->sizes[d];
        if (n == 0 && tensor_numel(self) == 0)
            return clops__fail(CLOPS_INVALID_ARGUMENT,
                               "%s: linalg.vector_norm cannot compute the %g norm on an empty "
                               "tensor because the operation does not have an identity",
                               op, p);
    }
    reduce_kind kind = p == 0           ? RK_NORM0
                       : p == 1         ? RK_NORM1
                       : p == 2         ? RK_NORM2
                       : p == INFINITY  ? RK_NORMINF
                       : p == -INFINITY ? RK_NORMNINF
                                        : RK_NORMP;
    clops_dtype dt = dtype != CLOPS_DTYPE_NONE ? dtype : self->dtype;
    clops_tensor *xin = NULL;
    st = reduce_cast_input(op, self, dt, &xin);
    if (st)
        return st;
    st = reduce_structured(op, variant, dst, xin, mask, keepdim, kind, dt, p, 0, out);
    clops_tensor_release(xin);
    return st;
}

/* p of the norm overloads (None: 2). */
static double p_of(const clops_scalar *p)
{
    return p ? clops_scalar_to_double(*p) : 2.0;
}

clops_status reduce_norm_scalar(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                                clops_scalar p, clops_tensor **out)
{
    return vector_norm("norm", variant, dst, self, clops_scalar_to_double(p), NULL, 0, false,
                       CLOPS_DTYPE_NONE, out);
}

clops_status reduce_norm_dim(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                             const clops_scalar *p, const int64_t *dim, int dim_len,
                             bool keepdim, clops_tensor **out)
{
    return vector_norm("norm", variant, dst, self, p_of(p), dim, dim_len, keepdim,
                       CLOPS_DTYPE_NONE, out);
}

clops_status reduce_norm_dim_dtype(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                                   const clops_scalar *p, const int64_t *dim, int dim_len,
                                   bool keepdim, clops_dtype dtype, clops_tensor **out)
{
    return vector_norm("norm", variant, dst, self, p_of(p), dim, dim_len, keepdim, dtype, out);
}

clops_status reduce_norm_dtype(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                               const clops_scalar *p, clops_dtype dtype, clops_tensor **out)
{
    return vector_norm("norm", variant, dst, self, p_of(p), NULL, 0, false, dtype, out);
}

clops_status reduce_linalg_vector_norm(pw_variant variant, clops_tensor *dst,
                                       clops_tensor *self, clops_scalar ord, const int64_t *dim,
                                       int dim_len, bool keepdim, clops_dtype dtype,
                                       clops_tensor **out)
{
    return vector_norm("linalg_vector_norm", variant, dst, self, clops_scalar_to_double(ord), dim,
                       dim_len, keepdim, dtype, out);
}
