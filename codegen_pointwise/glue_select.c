/* SPDX-License-Identifier: Apache-2.0 */
/*
 * codegen_pointwise/glue_select.c: structured family functions of clamp
 * (optional Scalar or Tensor bounds), where (condition dtype, exact out
 * dtype), masked_fill (bool mask, 0-dim value tensor) and fill.
 *
 * They check what PyTorch checks before its kernels run and pick the
 * pw_op: clamp with both bounds is pw_op_clamp, with one Scalar bound
 * clamp_min/clamp_max (a NaN bound ignored; the clamp_min/clamp_max ops
 * themselves fill with a NaN bound), with one Tensor bound
 * maximum/minimum (NaN propagating), as PyTorch's clamp kernels do.  Scalar
 * values a kernel converts to its dtype (clamp bounds, masked_fill and fill
 * values) must fit that dtype (pw_check_scalar_fits), like c10's checked
 * conversions.
 */
#include <math.h>
#include <string.h>

#include "codegen_pointwise/ops_binary.h"
#include "dispatch/structured.h"
#include "host/host.h"
#include "ops/tensor/tensor.h"

/* ---- clamp --------------------------------------------------------------- */

/* The error for clamp with neither bound. */
static clops_status clamp_no_bounds(void)
{
    return clops__fail(CLOPS_INVALID_ARGUMENT,
                       "clamp: torch.clamp: At least one of 'min' or 'max' must not be None");
}

/* Scalar-bound clamp on operands {self, bounds...}: the bounds must fit the
 * common dtype, which they take part in. */
static clops_status clamp_scalars(const char *opname, const pw_op *op, pw_variant variant,
                                  clops_tensor *dst, const pw_operand *ops, int n,
                                  clops_tensor **out)
{
    clops_dtype common = pw_glue_common_dtype(ops, n);
    for (int i = 1; i < n && common != CLOPS_DTYPE_NONE; i++) {
        clops_status st = pw_check_scalar_fits(opname, ops[i].scalar, common);
        if (st)
            return st;
    }
    return pw_glue_run(op, opname, variant, dst, ops, NULL, NULL, out);
}

/* clamp with optional Scalar bounds. */
clops_status pw_fn_clamp(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                         const clops_scalar *min, const clops_scalar *max, clops_tensor **out)
{
    if (!min && !max)
        return clamp_no_bounds();
    pw_operand ops[3] = {pw_tensor(self)};
    if (min && max) {
        ops[1] = pw_scalar(*min);
        ops[2] = pw_scalar(*max);
        return clamp_scalars("clamp", &pw_op_clamp, variant, dst, ops, 3, out);
    }
    ops[1] = pw_scalar(min ? *min : *max);
    return clamp_scalars("clamp", min ? &pw_op_clamp_min : &pw_op_clamp_max, variant, dst, ops, 2,
                         out);
}

/* clamp.Tensor with optional Tensor bounds. */
clops_status pw_fn_clamp_tensor(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                                clops_tensor *min, clops_tensor *max, clops_tensor **out)
{
    if (!min && !max)
        return clamp_no_bounds();
    pw_operand ops[3] = {pw_tensor(self)};
    if (min && max) {
        ops[1] = pw_tensor(min);
        ops[2] = pw_tensor(max);
        return pw_glue_run(&pw_op_clamp, "clamp", variant, dst, ops, NULL, NULL, out);
    }
    ops[1] = pw_tensor(min ? min : max);
    return pw_glue_run(min ? &pw_op_maximum : &pw_op_minimum, "clamp", variant, dst, ops, NULL,
                       NULL, out);
}

/* True for a floating Scalar holding NaN. */
static bool scalar_is_nan(clops_scalar s)
{
    return s.kind == CLOPS_SCALAR_FLOAT && isnan(s.v.f);
}

/* clamp_min with a Scalar bound.  Unlike clamp(self, min=NaN), which ignores
 * the bound, PyTorch's clamp_min fills the result with a NaN bound; the
 * NaN-propagating maximum does exactly that. */
clops_status pw_fn_clamp_min(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                             clops_scalar min, clops_tensor **out)
{
    const pw_operand ops[2] = {pw_tensor(self), pw_scalar(min)};
    return clamp_scalars("clamp_min", scalar_is_nan(min) ? &pw_op_maximum : &pw_op_clamp_min,
                         variant, dst, ops, 2, out);
}

/* clamp_max with a Scalar bound; a NaN bound fills the result (see
 * clamp_min). */
clops_status pw_fn_clamp_max(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                             clops_scalar max, clops_tensor **out)
{
    const pw_operand ops[2] = {pw_tensor(self), pw_scalar(max)};
    return clamp_scalars("clamp_max", scalar_is_nan(max) ? &pw_op_minimum : &pw_op_clamp_max,
                         variant, dst, ops, 2, out);
}

/* ---- where --------------------------------------------------------------- */

/* where(condition, a, b) for any mix of tensor and scalar a, b. */
static clops_status run_where(pw_variant variant, clops_tensor *dst, clops_tensor *condition,
                              pw_operand a, pw_operand b, clops_tensor **out)
{
    if (!condition)
        return clops__fail(CLOPS_INVALID_ARGUMENT, "where: condition is NULL");
    if (condition->dtype != CLOPS_BOOL && condition->dtype != CLOPS_UINT8)
        return clops__fail(CLOPS_INVALID_DTYPE,
                           "where: where expected condition to be a boolean tensor, but got a "
                           "tensor with dtype %s",
                           clops_dtype_name(condition->dtype));
    const pw_operand ops[3] = {pw_tensor(condition), a, b};
    if (variant == PW_OUT && dst) {
        clops_dtype result = pw_glue_common_dtype(ops + 1, 2);
        if (dst->dtype != result)
            return clops__fail(CLOPS_INVALID_DTYPE, "where: Expected out type to be %s but got %s",
                               clops_dtype_name(result), clops_dtype_name(dst->dtype));
    }
    return pw_glue_run(&pw_op_where, "where", variant, dst, ops, NULL, NULL, out);
}

/* where.self: two tensors. */
clops_status pw_fn_where_self(pw_variant variant, clops_tensor *dst, clops_tensor *condition,
                              clops_tensor *self, clops_tensor *other, clops_tensor **out)
{
    return run_where(variant, dst, condition, pw_tensor(self), pw_tensor(other), out);
}

/* where.ScalarSelf: a Python scalar where the condition holds. */
clops_status pw_fn_where_scalar_self(pw_variant variant, clops_tensor *dst,
                                     clops_tensor *condition, clops_scalar self,
                                     clops_tensor *other, clops_tensor **out)
{
    return run_where(variant, dst, condition, pw_scalar(self), pw_tensor(other), out);
}

/* where.ScalarOther: a Python scalar where it does not. */
clops_status pw_fn_where_scalar_other(pw_variant variant, clops_tensor *dst,
                                      clops_tensor *condition, clops_tensor *self,
                                      clops_scalar other, clops_tensor **out)
{
    return run_where(variant, dst, condition, pw_tensor(self), pw_scalar(other), out);
}

/* where.Scalar: two Python scalars. */
clops_status pw_fn_where_scalar(pw_variant variant, clops_tensor *dst, clops_tensor *condition,
                                clops_scalar self, clops_scalar other, clops_tensor **out)
{
    return run_where(variant, dst, condition, pw_scalar(self), pw_scalar(other), out);
}

/* ---- masked_fill ----------------------------------------------------------- */

/* masked_fill.Scalar: value where the bool mask holds. */
clops_status pw_fn_masked_fill_scalar(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                                      clops_tensor *mask, clops_scalar value, clops_tensor **out)
{
    if (mask->dtype != CLOPS_BOOL)
        return clops__fail(CLOPS_INVALID_DTYPE,
                           "masked_fill: masked_fill_ only supports boolean masks, but got mask "
                           "with dtype %s",
                           clops_dtype_name(mask->dtype));
    clops_status st = pw_check_scalar_fits("masked_fill", value, self->dtype);
    if (st)
        return st;
    const pw_operand ops[2] = {pw_tensor(self), pw_tensor(mask)};
    return pw_glue_run(&pw_op_masked_fill, "masked_fill", variant, dst, ops, &value, NULL, out);
}

/* The value of a 0-dim tensor argument; `what` names the op in messages. */
static clops_status zero_dim_value(const char *what, const clops_tensor *value, clops_scalar *s)
{
    if (value->ndim != 0)
        return clops__fail(CLOPS_INVALID_SHAPE,
                           "%s only supports a 0-dimensional value tensor, but got tensor with %d "
                           "dimension(s).",
                           what, value->ndim);
    return clops_tensor_item(value, s);
}

/* masked_fill.Tensor: the value of a 0-dim tensor. */
clops_status pw_fn_masked_fill_tensor(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                                      clops_tensor *mask, clops_tensor *value, clops_tensor **out)
{
    clops_scalar s;
    clops_status st = zero_dim_value("masked_fill_", value, &s);
    if (st)
        return st;
    return pw_fn_masked_fill_scalar(variant, dst, self, mask, s, out);
}

/* ---- fill ------------------------------------------------------------------ */

/* Gives out self's shape (out= resizing rule). */
static clops_status resize_like(clops_tensor *out, const clops_tensor *self)
{
    if (!out)
        return clops__fail(CLOPS_INVALID_ARGUMENT, "fill: out tensor is NULL");
    if (out->ndim == self->ndim &&
        memcmp(out->sizes, self->sizes, sizeof(int64_t) * (size_t)self->ndim) == 0)
        return CLOPS_OK;
    return tensor_resize(out, self->ndim, self->sizes);
}

/* fill.Scalar and its in-place and out forms. */
clops_status pw_fn_fill_scalar(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                               clops_scalar value, clops_tensor **out)
{
    clops_status st = pw_check_scalar_fits("fill_", value, self->dtype);
    if (st)
        return st;
    if (variant == PW_INPLACE)
        return tensor_fill(self, value);
    if (variant == PW_OUT) {
        /* fill.Scalar_out copies fill(self, value) into out: the value goes
         * through self's dtype first. */
        st = resize_like(dst, self);
        return st ? st : tensor_fill(dst, pw_glue_scalar_as(value, self->dtype));
    }
    structured_call call;
    st = pw_glue_begin_like(&call, "fill", PW_FUNCTIONAL, NULL, self, self->dtype);
    if (st)
        return st;
    st = tensor_fill(call.target, value);
    return structured_finish(&call, st, out);
}

/* copy_ of a 0-dim value into t, cloning first when value shares t's
 * storage (fill_.Tensor with a view of self). */
static clops_status fill_from(clops_tensor *t, clops_tensor *value)
{
    if (!clops_tensor_shares_storage(t, value))
        return core_copy_(t, value, false);
    clops_tensor *copy = NULL;
    clops_status st = core_clone(value, &copy);
    if (st == CLOPS_OK)
        st = core_copy_(t, copy, false);
    clops_tensor_release(copy);
    return st;
}

/* fill.Tensor: the value of a 0-dim tensor. */
clops_status pw_fn_fill_tensor(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                               clops_tensor *value, clops_tensor **out)
{
    if (value->ndim != 0)
        return clops__fail(CLOPS_INVALID_SHAPE,
                           "fill_: fill_ only supports 0-dimension value tensor but got tensor "
                           "with %d dimensions.",
                           value->ndim);
    if (value->storage->device != self->storage->device) {
        clops_scalar s;
        clops_status st = clops_tensor_item(value, &s);
        return st ? st : pw_fn_fill_scalar(variant, dst, self, s, out);
    }
    if (variant == PW_INPLACE)
        return fill_from(self, value);
    /* fill(self, value) = empty_like(self).fill_(value); out= copies it. */
    structured_call call;
    clops_tensor *result = NULL;
    clops_status st = pw_glue_begin_like(&call, "fill", PW_FUNCTIONAL, NULL, self, self->dtype);
    if (st)
        return st;
    st = core_copy_(call.target, value, false);
    st = structured_finish(&call, st, &result);
    if (st == CLOPS_OK && variant == PW_FUNCTIONAL) {
        *out = result;
        return CLOPS_OK;
    }
    if (st == CLOPS_OK)
        st = resize_like(dst, self);
    if (st == CLOPS_OK)
        st = core_copy_(dst, result, false);
    clops_tensor_release(result);
    return st;
}
