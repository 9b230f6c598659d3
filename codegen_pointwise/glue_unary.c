/* SPDX-License-Identifier: Apache-2.0 */
/*
 * codegen_pointwise/glue_unary.c: structured family functions of the unary
 * and activation ops whose schema does not map one-to-one onto a pw_op
 * record (docs/operator-inventory.md, "Structured family functions").
 *
 * Each function checks what PyTorch checks (with PyTorch's message), turns
 * the schema's arguments into a pw_op and its scalar parameters, and runs it
 * with pw_run, which implements the three variants (functional, in-place,
 * out=) with PyTorch's output rules:
 *   gelu / gelu_backward     the `approximate` string picks the record;
 *   nan_to_num               dtype-dependent defaults, out dtype == input's;
 *   round.decimals           10^|decimals| and its sign as parameters;
 *   logit / logit_backward   optional eps (None is passed as -1);
 *   hardtanh, relu6          integer limits, uint8 refuses negative ones;
 *   threshold(_backward)     integer parameters must fit the dtype;
 *   selu, celu               elu with fixed or derived parameters;
 *   softshrink               lambd >= 0;
 *   hardshrink               lambd rounded to float16/bfloat16 like the input;
 *   leaky_relu_backward,
 *   elu_backward             the in-place-forward check on the slope/alpha,
 *                            and elu's choice between input and result.
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include "codegen_pointwise/ops_unary.h"

/* PyTorch's SELU constants. */
#define SELU_ALPHA 1.6732632423543772848170429916717
#define SELU_SCALE 1.0507009873554804934193349852946

/* Name of the schema a variant runs, for messages. */
static const char *variant_name(pw_variant variant, const char *functional, const char *inplace,
                                const char *out)
{
    if (variant == PW_INPLACE && inplace)
        return inplace;
    if (variant == PW_OUT && out)
        return out;
    return functional;
}

/* Runs op over n operands for a variant: the result goes to *out
 * (functional), into operand 0 (in-place) or into dst (out=). */
static clops_status glue_run(const pw_op *op, pw_variant variant, clops_tensor *dst,
                             const pw_operand *operands, const clops_scalar *params,
                             const char *opname, clops_tensor **out)
{
    pw_options opts;
    memset(&opts, 0, sizeof opts);
    opts.result = CLOPS_DTYPE_NONE;
    opts.compute = CLOPS_DTYPE_NONE;
    opts.opname = opname;
    if (variant == PW_FUNCTIONAL && !out)
        return clops__fail(CLOPS_INVALID_ARGUMENT, "%s: no place for the result (out is NULL)",
                           opname);
    return pw_run(op, variant, operands, params, variant == PW_OUT ? dst : NULL, &opts,
                  variant == PW_FUNCTIONAL ? out : NULL);
}

/* Checks that the tensor arguments are present. */
static clops_status need_tensor(const char *opname, const char *arg, const clops_tensor *t)
{
    if (!t)
        return clops__fail(CLOPS_INVALID_ARGUMENT, "%s: argument '%s' must be a tensor, not None",
                           opname, arg);
    return CLOPS_OK;
}

/* The record of an `approximate` string; NULL (with the error set) when it
 * is neither 'none' nor 'tanh'. */
static const pw_op *gelu_kind(const char *opname, const char *approximate, const pw_op *none,
                              const pw_op *tanh_form)
{
    if (!approximate || strcmp(approximate, "none") == 0)
        return none;
    if (strcmp(approximate, "tanh") == 0)
        return tanh_form;
    clops__fail(CLOPS_INVALID_ARGUMENT, "%s: approximate argument must be either none or tanh.",
                opname);
    return NULL;
}

clops_status pw_glue_gelu(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                          const char *approximate, clops_tensor **out)
{
    const char *name = variant_name(variant, "gelu", "gelu_", "gelu.out");
    clops_status st = need_tensor(name, "self", self);
    if (st)
        return st;
    const pw_op *op = gelu_kind(name, approximate, &pw_op_gelu, &pw_op_gelu_tanh);
    if (!op)
        return CLOPS_INVALID_ARGUMENT;
    pw_operand x = pw_tensor(self);
    return glue_run(op, variant, dst, &x, NULL, name, out);
}

clops_status pw_glue_gelu_backward(pw_variant variant, clops_tensor *dst,
                                   clops_tensor *grad_output, clops_tensor *self,
                                   const char *approximate, clops_tensor **out)
{
    const char *name = variant_name(variant, "gelu_backward", NULL, "gelu_backward.grad_input");
    clops_status st = need_tensor(name, "grad_output", grad_output);
    if (!st)
        st = need_tensor(name, "self", self);
    if (st)
        return st;
    const pw_op *op =
        gelu_kind(name, approximate, &pw_op_gelu_backward, &pw_op_gelu_backward_tanh);
    if (!op)
        return CLOPS_INVALID_ARGUMENT;
    pw_operand ops[2] = {pw_tensor(grad_output), pw_tensor(self)};
    return glue_run(op, variant, dst, ops, NULL, name, out);
}

/* Largest finite value of a floating dtype (numeric_limits::max). */
static double dtype_max(clops_dtype dt)
{
    switch (dt) {
    case CLOPS_FLOAT16:
        return 65504.0;
    case CLOPS_BFLOAT16:
        return 3.3895313892515355e38; /* 0x7F7F */
    case CLOPS_FLOAT32:
        return FLT_MAX;
    default:
        return DBL_MAX;
    }
}

clops_status pw_glue_nan_to_num(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                                const double *nan, const double *posinf, const double *neginf,
                                clops_tensor **out)
{
    const char *name = variant_name(variant, "nan_to_num", "nan_to_num_", "nan_to_num.out");
    clops_status st = need_tensor(name, "self", self);
    if (st)
        return st;
    if (variant == PW_OUT && dst && dst->dtype != self->dtype)
        return clops__fail(CLOPS_INVALID_DTYPE,
                           "%s: dtype of out: %s should be same as input: %s", name,
                           clops_dtype_name(dst->dtype), clops_dtype_name(self->dtype));
    clops_scalar params[3] = {clops_scalar_float(0.0), clops_scalar_float(0.0),
                              clops_scalar_float(0.0)};
    if (clops_dtype_is_floating(self->dtype)) {
        double mx = dtype_max(self->dtype);
        params[0] = clops_scalar_float(nan ? *nan : 0.0);
        params[1] = clops_scalar_float(posinf ? *posinf : mx);
        params[2] = clops_scalar_float(neginf ? *neginf : -mx);
    }
    pw_operand x = pw_tensor(self);
    return glue_run(&pw_op_nan_to_num, variant, dst, &x, params, name, out);
}

clops_status pw_glue_round_decimals(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                                    int64_t decimals, clops_tensor **out)
{
    const char *name =
        variant_name(variant, "round.decimals", "round_.decimals", "round.decimals_out");
    clops_status st = need_tensor(name, "self", self);
    if (st)
        return st;
    if (!clops_dtype_is_floating(self->dtype))
        return clops__fail(CLOPS_INVALID_DTYPE, "%s: \"round_cpu\" not implemented for '%s'",
                           name, clops_dtype_name(self->dtype));
    pw_operand x = pw_tensor(self);
    if (decimals == 0)
        return glue_run(&pw_op_round, variant, dst, &x, NULL, name, out);
    double mag = fabs((double)decimals);
    clops_scalar params[2] = {clops_scalar_float(pow(10.0, mag)),
                              clops_scalar_int(decimals < 0 ? 1 : 0)};
    return glue_run(&pw_op_round_decimals, variant, dst, &x, params, name, out);
}

/* v rounded to a floating dtype (and float16/bfloat16 to their grids);
 * integer and bool inputs of logit compute in float32. */
static double round_to(double v, clops_dtype dt)
{
    switch (dt) {
    case CLOPS_FLOAT64:
        return v;
    case CLOPS_FLOAT16:
        return clops_half_to_float(clops_float_to_half((float)v));
    case CLOPS_BFLOAT16:
        return clops_bfloat16_to_float(clops_float_to_bfloat16((float)v));
    default:
        return (float)v;
    }
}

/* logit's clamp bounds [eps, 1 - eps] as PyTorch forms them: eps converted
 * to the tensor's dtype (float16 and bfloat16 included) and 1 - eps
 * computed in that dtype; eps < 0 (None is -1) means no clamp. */
static void logit_bounds(const double *eps, clops_dtype dt, clops_scalar *params)
{
    double lo = round_to(eps ? *eps : -1.0, dt);
    params[0] = clops_scalar_float(lo);
    params[1] = clops_scalar_float(round_to(1.0 - lo, dt));
}

clops_status pw_glue_logit(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                           const double *eps, clops_tensor **out)
{
    const char *name = variant_name(variant, "logit", "logit_", "logit.out");
    clops_status st = need_tensor(name, "self", self);
    if (st)
        return st;
    clops_scalar params[2];
    logit_bounds(eps, self->dtype, params);
    pw_operand x = pw_tensor(self);
    return glue_run(&pw_op_logit, variant, dst, &x, params, name, out);
}

clops_status pw_glue_logit_backward(pw_variant variant, clops_tensor *dst,
                                    clops_tensor *grad_output, clops_tensor *self,
                                    const double *eps, clops_tensor **out)
{
    const char *name =
        variant_name(variant, "logit_backward", NULL, "logit_backward.grad_input");
    clops_status st = need_tensor(name, "grad_output", grad_output);
    if (!st)
        st = need_tensor(name, "self", self);
    if (st)
        return st;
    clops_scalar params[2];
    logit_bounds(eps, pw_promote_types(grad_output->dtype, self->dtype), params);
    pw_operand ops[2] = {pw_tensor(grad_output), pw_tensor(self)};
    return glue_run(&pw_op_logit_backward, variant, dst, ops, params, name, out);
}

/* PyTorch's Scalar::to<T>() for an integer dtype: the value must fit
 * (checked conversion), else "value cannot be converted ... overflow". */
static clops_status check_fits(const char *opname, clops_dtype dt, clops_scalar s)
{
    static const char *const cnames[CLOPS_DTYPE_COUNT] = {
        "bool", "uint8_t", "int8_t", "int16_t", "int", "int64_t", "", "", "", ""};
    if (!clops_dtype_is_integral(dt) || dt == CLOPS_INT64 || s.kind == CLOPS_SCALAR_BOOL)
        return CLOPS_OK;
    int bits = (int)clops_dtype_size(dt) * 8;
    double lo = dt == CLOPS_UINT8 ? 0.0 : -ldexp(1.0, bits - 1);
    double hi = dt == CLOPS_UINT8 ? 255.0 : ldexp(1.0, bits - 1) - 1.0;
    double v = s.kind == CLOPS_SCALAR_INT ? (double)s.v.i : s.v.f;
    if (v < lo || v > hi)
        return clops__fail(CLOPS_INVALID_ARGUMENT,
                           "%s: value cannot be converted to type %s without overflow", opname,
                           cnames[dt]);
    return CLOPS_OK;
}

/* hardtanh under a given name (relu6 shares it). */
static clops_status run_hardtanh(const char *name, pw_variant variant, clops_tensor *dst,
                                 clops_tensor *self, clops_scalar min_val, clops_scalar max_val,
                                 clops_tensor **out)
{
    clops_status st = need_tensor(name, "self", self);
    if (st)
        return st;
    if (self->dtype == CLOPS_BOOL)
        return clops__fail(CLOPS_INVALID_DTYPE, "%s: Bool inputs not supported for hardtanh",
                           name);
    clops_scalar params[2] = {min_val, max_val};
    if (clops_dtype_is_integral(self->dtype)) {
        /* Integer limits, as PyTorch's min.toLong() (no type promotion). */
        int64_t lo = clops_scalar_to_int64(min_val);
        int64_t hi = clops_scalar_to_int64(max_val);
        if (self->dtype == CLOPS_UINT8 && (lo < 0 || hi < 0))
            return clops__fail(CLOPS_INVALID_ARGUMENT,
                               "%s: cannot do hardtanh on an unsigned type with negative limits",
                               name);
        params[0] = clops_scalar_int(lo);
        params[1] = clops_scalar_int(hi);
        st = check_fits(name, self->dtype, params[0]);
        if (!st)
            st = check_fits(name, self->dtype, params[1]);
        if (st)
            return st;
    }
    pw_operand x = pw_tensor(self);
    return glue_run(&pw_op_hardtanh, variant, dst, &x, params, name, out);
}

clops_status pw_glue_hardtanh(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                              clops_scalar min_val, clops_scalar max_val, clops_tensor **out)
{
    const char *name = variant_name(variant, "hardtanh", "hardtanh_", "hardtanh.out");
    return run_hardtanh(name, variant, dst, self, min_val, max_val, out);
}

clops_status pw_glue_relu6(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                           clops_tensor **out)
{
    const char *name = variant_name(variant, "relu6", "relu6_", "relu6.out");
    return run_hardtanh(name, variant, dst, self, clops_scalar_int(0), clops_scalar_int(6), out);
}

clops_status pw_glue_threshold(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                               clops_scalar threshold, clops_scalar value, clops_tensor **out)
{
    const char *name = variant_name(variant, "threshold", "threshold_", "threshold.out");
    clops_status st = need_tensor(name, "self", self);
    if (!st)
        st = check_fits(name, self->dtype, threshold);
    if (!st)
        st = check_fits(name, self->dtype, value);
    if (st)
        return st;
    clops_scalar params[2] = {threshold, value};
    pw_operand x = pw_tensor(self);
    return glue_run(&pw_op_threshold, variant, dst, &x, params, name, out);
}

clops_status pw_glue_threshold_backward(pw_variant variant, clops_tensor *dst,
                                        clops_tensor *grad_output, clops_tensor *self,
                                        clops_scalar threshold, clops_tensor **out)
{
    const char *name =
        variant_name(variant, "threshold_backward", NULL, "threshold_backward.grad_input");
    clops_status st = need_tensor(name, "grad_output", grad_output);
    if (!st)
        st = need_tensor(name, "self", self);
    if (!st)
        st = check_fits(name, pw_promote_types(grad_output->dtype, self->dtype), threshold);
    if (st)
        return st;
    pw_operand ops[2] = {pw_tensor(grad_output), pw_tensor(self)};
    return glue_run(&pw_op_threshold_backward, variant, dst, ops, &threshold, name, out);
}

/* elu under a given name with explicit parameters (selu, celu). */
static clops_status run_elu(const char *name, pw_variant variant, clops_tensor *dst,
                            clops_tensor *self, double alpha, double scale, double input_scale,
                            clops_tensor **out)
{
    clops_status st = need_tensor(name, "self", self);
    if (st)
        return st;
    clops_scalar params[3] = {clops_scalar_float(alpha), clops_scalar_float(scale),
                              clops_scalar_float(input_scale)};
    pw_operand x = pw_tensor(self);
    return glue_run(&pw_op_elu, variant, dst, &x, params, name, out);
}

clops_status pw_glue_selu(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                          clops_tensor **out)
{
    const char *name = variant_name(variant, "selu", "selu_", "selu.out");
    return run_elu(name, variant, dst, self, SELU_ALPHA, SELU_SCALE, 1.0, out);
}

clops_status pw_glue_celu(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                          clops_scalar alpha, clops_tensor **out)
{
    const char *name = variant_name(variant, "celu", "celu_", "celu.out");
    double a = clops_scalar_to_double(alpha);
    if (a == 0.0)
        return clops__fail(CLOPS_INVALID_ARGUMENT,
                           "%s: ZeroDivisionError: alpha cannot be 0 for CELU", name);
    return run_elu(name, variant, dst, self, a, 1.0, 1.0 / a, out);
}

clops_status pw_glue_softshrink(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                                clops_scalar lambd, clops_tensor **out)
{
    const char *name = variant_name(variant, "softshrink", "softshrink_", "softshrink.out");
    clops_status st = need_tensor(name, "self", self);
    if (st)
        return st;
    double l = clops_scalar_to_double(lambd);
    if (!(l >= 0.0))
        return clops__fail(CLOPS_INVALID_ARGUMENT,
                           "%s: lambda must be greater or equal to 0, but found to be %g.", name,
                           l);
    pw_operand x = pw_tensor(self);
    return glue_run(&pw_op_softshrink, variant, dst, &x, &lambd, name, out);
}

clops_status pw_glue_hardshrink(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                                clops_scalar lambd, clops_tensor **out)
{
    const char *name = variant_name(variant, "hardshrink", "hardshrink_", "hardshrink.out");
    clops_status st = need_tensor(name, "self", self);
    if (st)
        return st;
    /* PyTorch converts lambd to the tensor's dtype (float16 and bfloat16
     * included) before comparing. */
    clops_scalar l = clops_scalar_float(round_to(clops_scalar_to_double(lambd), self->dtype));
    pw_operand x = pw_tensor(self);
    return glue_run(&pw_op_hardshrink, variant, dst, &x, &l, name, out);
}

clops_status pw_glue_leaky_relu_backward(pw_variant variant, clops_tensor *dst,
                                         clops_tensor *grad_output, clops_tensor *self,
                                         clops_scalar negative_slope, bool self_is_result,
                                         clops_tensor **out)
{
    const char *name =
        variant_name(variant, "leaky_relu_backward", NULL, "leaky_relu_backward.grad_input");
    clops_status st = need_tensor(name, "grad_output", grad_output);
    if (!st)
        st = need_tensor(name, "self", self);
    if (st)
        return st;
    if (self_is_result && clops_scalar_to_double(negative_slope) < 0.0)
        return clops__fail(CLOPS_INVALID_ARGUMENT,
                           "%s: In-place leakyReLu backward calculation is triggered with a "
                           "negative slope which is not supported. This is caused by calling "
                           "in-place forward function with a negative slope, please call "
                           "out-of-place version instead.",
                           name);
    pw_operand ops[2] = {pw_tensor(grad_output), pw_tensor(self)};
    return glue_run(&pw_op_leaky_relu_backward, variant, dst, ops, &negative_slope, name, out);
}

clops_status pw_glue_elu_backward(pw_variant variant, clops_tensor *dst,
                                  clops_tensor *grad_output, clops_scalar alpha,
                                  clops_scalar scale, clops_scalar input_scale, bool is_result,
                                  clops_tensor *self_or_result, clops_tensor **out)
{
    const char *name = variant_name(variant, "elu_backward", NULL, "elu_backward.grad_input");
    clops_status st = need_tensor(name, "grad_output", grad_output);
    if (!st)
        st = need_tensor(name, "self_or_result", self_or_result);
    if (st)
        return st;
    if (is_result && clops_scalar_to_double(alpha) < 0.0)
        return clops__fail(CLOPS_INVALID_ARGUMENT,
                           "%s: In-place elu backward calculation is triggered with a negative "
                           "slope which is not supported. This is caused by calling in-place "
                           "forward function with a negative slope, please call out-of-place "
                           "version instead.",
                           name);
    clops_scalar params[3] = {alpha, scale, input_scale};
    pw_operand ops[2] = {pw_tensor(grad_output), pw_tensor(self_or_result)};
    return glue_run(is_result ? &pw_op_elu_backward_result : &pw_op_elu_backward, variant, dst,
                    ops, params, name, out);
}
