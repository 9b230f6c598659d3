/* SPDX-License-Identifier: Apache-2.0 */
/*
 * codegen_pointwise/glue_binary.c: structured family functions of the
 * arithmetic and floating binary ops whose schemas do not map one to one
 * onto a pw_op (docs/operator-inventory.md, "Structured family functions"),
 * and the helpers the glue files share.
 *
 * What each function adds to pw_run is a rule of PyTorch that depends on an
 * operand's own dtype or on a scalar's value, which the pointwise engine
 * does not see: sub's refusal of bool operands, div's rounding_mode string,
 * pow's short cuts (exponent 0 fills 1, exponent 1 copies, base 1 fills 1)
 * and its specialised exponents, float_power's float64 compute,
 * heaviside's and lerp's same-dtype rules, addcdiv's refusal of integer
 * division, and the format nextafter steps in.
 */
#include <math.h>
#include <string.h>

#include "codegen_pointwise/ops_binary.h"
#include "dispatch/structured.h"
#include "host/host.h"
#include "ops/tensor/tensor.h"
#include "ref/ref_binary.h"

/* ---- shared helpers ------------------------------------------------------ */

/* Promotion operand of a pw_operand (see run.c's promote()). */
static pw_type_operand type_operand(const pw_operand *o)
{
    if (o->tensor)
        return pw_tensor_operand(o->tensor->dtype, o->tensor->ndim);
    if (o->is_cpu_scalar)
        return pw_tensor_operand(o->scalar_dtype, 0);
    return pw_scalar_operand(o->scalar);
}

/* Folds the operands through pw_result_type (see ops_binary.h). */
clops_dtype pw_glue_common_dtype(const pw_operand *operands, int n)
{
    pw_type_operand tops[PW_MAX_IN];
    for (int i = 0; i < n && i < PW_MAX_IN; i++)
        tops[i] = type_operand(&operands[i]);
    return pw_result_type(tops, n < PW_MAX_IN ? n : PW_MAX_IN);
}

/* pw_run with a family function's destination conventions (see ops_binary.h). */
clops_status pw_glue_run(const pw_op *op, const char *opname, pw_variant variant,
                         clops_tensor *dst, const pw_operand *operands, const clops_scalar *params,
                         const pw_options *opts, clops_tensor **out)
{
    pw_options o = {.result = CLOPS_DTYPE_NONE, .compute = CLOPS_DTYPE_NONE};
    if (opts)
        o = *opts;
    o.opname = opname;
    return pw_run(op, variant, operands, params, variant == PW_OUT ? dst : NULL, &o,
                  variant == PW_FUNCTIONAL ? out : NULL);
}

/* Target of a fill or copy short cut (see ops_binary.h). */
clops_status pw_glue_begin_like(structured_call *call, const char *opname, pw_variant variant,
                                clops_tensor *dst, clops_tensor *like, clops_dtype dtype)
{
    clops_device *device = like->storage->device;
    if (variant != PW_FUNCTIONAL)
        return structured_begin(call, opname, variant, dst, device, dtype, like->ndim,
                                like->sizes, &like, 1);
    memset(call, 0, sizeof *call);
    call->opname = opname;
    call->variant = variant;
    clops_status st = check_dtype_on_device(opname, dtype, device);
    if (st)
        return st;
    const clops_tensor *inputs[1] = {like};
    int64_t strides[CLOPS_MAX_DIMS];
    pw_output_strides(inputs, 1, like->ndim, like->sizes, strides);
    st = tensor_new(device, dtype, like->ndim, like->sizes, strides, &call->target);
    return st ? clops__error_prefix(st, "%s", opname) : CLOPS_OK;
}

/* The scalar as dtype stores it (see ops_binary.h). */
clops_scalar pw_glue_scalar_as(clops_scalar value, clops_dtype dtype)
{
    double f = clops_scalar_to_double(value);
    int64_t i = clops_scalar_to_int64(value);
    switch (dtype) {
    case CLOPS_BOOL:
        return clops_scalar_bool(value.kind == CLOPS_SCALAR_FLOAT ? f != 0.0 : i != 0);
    case CLOPS_UINT8:
        return clops_scalar_int((uint8_t)(uint64_t)i);
    case CLOPS_INT8:
        return clops_scalar_int((int8_t)(uint8_t)(uint64_t)i);
    case CLOPS_INT16:
        return clops_scalar_int((int16_t)(uint16_t)(uint64_t)i);
    case CLOPS_INT32:
        return clops_scalar_int((int32_t)(uint32_t)(uint64_t)i);
    case CLOPS_INT64:
        return clops_scalar_int(i);
    case CLOPS_FLOAT16:
        return clops_scalar_float(clops_half_to_float(clops_float_to_half((float)f)));
    case CLOPS_BFLOAT16:
        return clops_scalar_float(clops_bfloat16_to_float(clops_float_to_bfloat16((float)f)));
    case CLOPS_FLOAT32:
        return clops_scalar_float((float)f);
    default:
        return clops_scalar_float(f);
    }
}

/* C++ type name PyTorch's overflow message uses for a dtype. */
static const char *cpp_type_name(clops_dtype dt)
{
    switch (dt) {
    case CLOPS_UINT8:
        return "uint8_t";
    case CLOPS_INT8:
        return "int8_t";
    case CLOPS_INT16:
        return "int16_t";
    case CLOPS_INT32:
        return "int32_t";
    case CLOPS_INT64:
        return "int64_t";
    case CLOPS_FLOAT16:
        return "at::Half";
    case CLOPS_BFLOAT16:
        return "at::BFloat16";
    case CLOPS_FLOAT32:
        return "float";
    default:
        return "double";
    }
}

/* c10::checked_convert's overflow rule (see ops_binary.h). */
clops_status pw_check_scalar_fits(const char *opname, clops_scalar value, clops_dtype dtype)
{
    static const double fmax_of[] = {[CLOPS_FLOAT16] = 65504.0,
                                     [CLOPS_BFLOAT16] = 3.3895313892515355e38,
                                     [CLOPS_FLOAT32] = 3.4028234663852886e38};
    bool fits = true;
    if (dtype == CLOPS_BOOL || value.kind == CLOPS_SCALAR_BOOL || dtype == CLOPS_FLOAT64) {
        fits = true;
    } else if (value.kind == CLOPS_SCALAR_INT) {
        int64_t v = value.v.i;
        switch (dtype) {
        case CLOPS_UINT8: /* negatives wrap, as c10 allows for unsigned types */
            fits = v >= -255 && v <= 255;
            break;
        case CLOPS_INT8:
            fits = v >= INT8_MIN && v <= INT8_MAX;
            break;
        case CLOPS_INT16:
            fits = v >= INT16_MIN && v <= INT16_MAX;
            break;
        case CLOPS_INT32:
            fits = v >= INT32_MIN && v <= INT32_MAX;
            break;
        case CLOPS_INT64:
            break;
        default:
            fits = fabs((double)v) <= fmax_of[dtype];
        }
    } else {
        double v = value.v.f;
        if (clops_dtype_is_floating(dtype)) {
            fits = isinf(v) || isnan(v) || fabs(v) <= fmax_of[dtype];
        } else {
            static const double lo[] = {[CLOPS_UINT8] = 0.0, [CLOPS_INT8] = -128.0,
                                        [CLOPS_INT16] = -32768.0, [CLOPS_INT32] = -2147483648.0,
                                        [CLOPS_INT64] = -9223372036854775808.0};
            static const double hi[] = {[CLOPS_UINT8] = 255.0, [CLOPS_INT8] = 127.0,
                                        [CLOPS_INT16] = 32767.0, [CLOPS_INT32] = 2147483647.0,
                                        [CLOPS_INT64] = 9223372036854775807.0};
            fits = !isnan(v) && v >= lo[dtype] && v <= hi[dtype];
        }
    }
    if (fits)
        return CLOPS_OK;
    return clops__fail(CLOPS_INVALID_ARGUMENT,
                       "%s: value cannot be converted to type %s without overflow", opname,
                       cpp_type_name(dtype));
}

/* ---- sub, rsub ------------------------------------------------------------- */

/* Whether an operand is bool (a bool tensor or a Python bool, which PyTorch
 * wraps into a bool tensor). */
static bool is_bool_operand(const pw_operand *o)
{
    return o->tensor ? o->tensor->dtype == CLOPS_BOOL : o->scalar.kind == CLOPS_SCALAR_BOOL;
}

/* PyTorch's sub_check, then self - alpha * other. */
static clops_status run_sub(const char *opname, pw_variant variant, clops_tensor *dst,
                            pw_operand self, pw_operand other, clops_scalar alpha,
                            clops_tensor **out)
{
    bool a = is_bool_operand(&self), b = is_bool_operand(&other);
    if (a && b)
        return clops__fail(CLOPS_INVALID_DTYPE,
                           "%s: Subtraction, the `-` operator, with two bool tensors is not "
                           "supported. Use the `^` or `logical_xor()` operator instead.",
                           opname);
    if (a || b)
        return clops__fail(CLOPS_INVALID_DTYPE,
                           "%s: Subtraction, the `-` operator, with a bool tensor is not "
                           "supported. If you are trying to invert a mask, use the `~` or "
                           "`logical_not()` operator instead.",
                           opname);
    const pw_operand ops[2] = {self, other};
    return pw_glue_run(&pw_op_sub, opname, variant, dst, ops, &alpha, NULL, out);
}

/* sub.Tensor: self - alpha * other. */
clops_status pw_fn_sub_tensor(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                              clops_tensor *other, clops_scalar alpha, clops_tensor **out)
{
    return run_sub("sub", variant, dst, pw_tensor(self), pw_tensor(other), alpha, out);
}

/* sub.Scalar: self - alpha * other with a Python scalar other. */
clops_status pw_fn_sub_scalar(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                              clops_scalar other, clops_scalar alpha, clops_tensor **out)
{
    return run_sub("sub", variant, dst, pw_tensor(self), pw_scalar(other), alpha, out);
}

/* rsub is sub with the operands swapped (PyTorch: at::sub(other, self)). */
clops_status pw_fn_rsub_tensor(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                               clops_tensor *other, clops_scalar alpha, clops_tensor **out)
{
    if (variant == PW_INPLACE)
        return clops__fail(CLOPS_INVALID_ARGUMENT, "rsub: has no in-place variant");
    return run_sub("rsub", variant, dst, pw_tensor(other), pw_tensor(self), alpha, out);
}

/* rsub.Scalar: other - alpha * self. */
clops_status pw_fn_rsub_scalar(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                               clops_scalar other, clops_scalar alpha, clops_tensor **out)
{
    if (variant == PW_INPLACE)
        return clops__fail(CLOPS_INVALID_ARGUMENT, "rsub: has no in-place variant");
    return run_sub("rsub", variant, dst, pw_scalar(other), pw_tensor(self), alpha, out);
}

/* ---- div with rounding_mode ------------------------------------------------ */

/* The op for a rounding mode, or an error naming the accepted ones. */
static clops_status div_mode_op(const char *mode, const pw_op **op)
{
    if (!mode)
        *op = &pw_op_div;
    else if (strcmp(mode, "trunc") == 0)
        *op = &pw_op_div_trunc;
    else if (strcmp(mode, "floor") == 0)
        *op = &pw_op_div_floor;
    else
        return clops__fail(CLOPS_INVALID_ARGUMENT,
                           "div expected rounding_mode to be one of None, 'trunc', or 'floor' "
                           "but found '%s'",
                           mode);
    return CLOPS_OK;
}

/* div.Tensor_mode: true, trunc or floor division by the mode. */
clops_status pw_fn_div_tensor_mode(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                                   clops_tensor *other, const char *rounding_mode,
                                   clops_tensor **out)
{
    const pw_op *op = NULL;
    clops_status st = div_mode_op(rounding_mode, &op);
    if (st)
        return st;
    const pw_operand ops[2] = {pw_tensor(self), pw_tensor(other)};
    return pw_glue_run(op, "div", variant, dst, ops, NULL, NULL, out);
}

/* div.Scalar_mode: the same with a Python scalar divisor. */
clops_status pw_fn_div_scalar_mode(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                                   clops_scalar other, const char *rounding_mode,
                                   clops_tensor **out)
{
    const pw_op *op = NULL;
    clops_status st = div_mode_op(rounding_mode, &op);
    if (st)
        return st;
    const pw_operand ops[2] = {pw_tensor(self), pw_scalar(other)};
    return pw_glue_run(op, "div", variant, dst, ops, NULL, NULL, out);
}

/* ---- pow and float_power ------------------------------------------------- */

/* Runs pw_op_pow in `mode`; f64 forces PyTorch's float_power compute. */
static clops_status run_pow(const char *opname, pw_variant variant, clops_tensor *dst,
                            pw_operand base, pw_operand exponent, ref_pow_mode mode, bool f64,
                            clops_tensor **out)
{
    const pw_operand ops[2] = {base, exponent};
    const clops_scalar param = clops_scalar_int((int64_t)mode);
    pw_options o = {.result = CLOPS_DTYPE_NONE, .compute = CLOPS_DTYPE_NONE};
    if (f64)
        o.result = o.compute = CLOPS_FLOAT64;
    return pw_glue_run(&pw_op_pow, opname, variant, dst, ops, &param, &o, out);
}

/* Writes `value` (fill) or `src` (copy, when src is not NULL) into the
 * target of a short-cut pow call shaped like `like`. */
static clops_status pow_shortcut(const char *opname, pw_variant variant, clops_tensor *dst,
                                 clops_tensor *like, clops_dtype dtype, clops_tensor *src,
                                 clops_tensor **out)
{
    structured_call call;
    clops_status st = pw_glue_begin_like(&call, opname, variant, dst, like, dtype);
    if (st)
        return st;
    if (src)
        st = core_copy_(call.target, src, false);
    else
        st = tensor_fill(call.target, clops_scalar_int(1));
    return structured_finish(&call, st, out);
}

/* c10::Scalar::equal(double): a bool scalar equals no number (True is not
 * 1.0 there); ints and floats compare by value. */
static bool scalar_equals(clops_scalar s, double v)
{
    return s.kind != CLOPS_SCALAR_BOOL && clops_scalar_to_double(s) == v;
}

/* The kernel mode and exponent PyTorch's pow_tensor_scalar_kernel uses for
 * a floating common dtype: sqrt/rsqrt/reciprocal for 0.5, -0.5 and -1
 * (float32, float64, bfloat16), multiplications for 2, 3, -2 (float32 and
 * float64, and bfloat16 after rounding the exponent to bfloat16); float16
 * and bfloat16 otherwise use the exponent rounded to their own type. */
static ref_pow_mode pow_scalar_mode(clops_dtype dt, double e, double *exp_out)
{
    *exp_out = e;
    if (dt == CLOPS_FLOAT16) {
        *exp_out = clops_half_to_float(clops_float_to_half((float)e));
        return REF_POW_GENERIC;
    }
    if (e == 0.5)
        return REF_POW_SQRT;
    if (e == -0.5)
        return REF_POW_RSQRT;
    if (e == -1.0)
        return REF_POW_RECIP;
    if (dt == CLOPS_BFLOAT16)
        *exp_out = e = clops_bfloat16_to_float(clops_float_to_bfloat16((float)e));
    if (e == 2.0)
        return REF_POW_SQUARE;
    if (e == 3.0)
        return REF_POW_CUBE;
    if (e == -2.0)
        return REF_POW_INVSQ;
    return REF_POW_GENERIC;
}

/* pow(Tensor, Scalar) and float_power(Tensor, Scalar) (f64). */
static clops_status pow_tensor_scalar(const char *opname, pw_variant variant, clops_tensor *dst,
                                      clops_tensor *self, clops_scalar exponent, bool f64,
                                      clops_tensor **out)
{
    if (f64)
        exponent = clops_scalar_float(clops_scalar_to_double(exponent));
    if (!f64 && !clops_dtype_is_floating(self->dtype) && exponent.kind == CLOPS_SCALAR_INT &&
        exponent.v.i < 0)
        return clops__fail(CLOPS_INVALID_ARGUMENT,
                           "%s: Integers to negative integer powers are not allowed.", opname);
    pw_operand base = pw_tensor(self);
    pw_operand expo = pw_scalar(exponent);
    const pw_operand both[2] = {base, expo};
    clops_dtype common = f64 ? CLOPS_FLOAT64 : pw_glue_common_dtype(both, 2);
    bool is_bool = exponent.kind == CLOPS_SCALAR_BOOL;
    bool is_zero = is_bool ? !exponent.v.b : scalar_equals(exponent, 0.0);
    bool is_one = is_bool ? exponent.v.b : scalar_equals(exponent, 1.0);
    if (is_zero || is_one)
        return pow_shortcut(opname, variant, dst, self, common, is_one ? self : NULL, out);
    if (!clops_dtype_is_floating(common)) {
        if (common == CLOPS_BOOL)
            return clops__fail(CLOPS_INVALID_DTYPE, "%s: not implemented for dtype bool",
                               opname);
        clops_status st = pw_check_scalar_fits(opname, exponent, common);
        if (st)
            return st;
        return run_pow(opname, variant, dst, base, expo, REF_POW_GENERIC, false, out);
    }
    double e = 0.0;
    ref_pow_mode mode = pow_scalar_mode(common, clops_scalar_to_double(exponent), &e);
    return run_pow(opname, variant, dst, base, pw_scalar(clops_scalar_float(e)), mode, f64, out);
}

/* pow(Scalar, Tensor) and float_power(Scalar, Tensor) (f64): base 1 fills 1. */
static clops_status pow_scalar_base(const char *opname, pw_variant variant, clops_tensor *dst,
                                    clops_scalar self, clops_tensor *exponent, bool f64,
                                    clops_tensor **out)
{
    if (f64)
        self = clops_scalar_float(clops_scalar_to_double(self));
    pw_operand base = pw_scalar(self);
    pw_operand expo = pw_tensor(exponent);
    const pw_operand both[2] = {base, expo};
    clops_dtype common = f64 ? CLOPS_FLOAT64 : pw_glue_common_dtype(both, 2);
    if (scalar_equals(self, 1.0))
        return pow_shortcut(opname, variant, dst, exponent, common, NULL, out);
    return run_pow(opname, variant, dst, base, expo, REF_POW_GENERIC, f64, out);
}

/* pow.Tensor_Tensor: pow() elementwise (integer powers by squaring). */
clops_status pw_fn_pow_tensor_tensor(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                                     clops_tensor *exponent, clops_tensor **out)
{
    return run_pow("pow", variant, dst, pw_tensor(self), pw_tensor(exponent), REF_POW_GENERIC,
                   false, out);
}

/* pow.Tensor_Scalar with PyTorch's short cuts and specialised exponents. */
clops_status pw_fn_pow_tensor_scalar(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                                     clops_scalar exponent, clops_tensor **out)
{
    return pow_tensor_scalar("pow", variant, dst, self, exponent, false, out);
}

/* pow.Scalar: a Python base to tensor exponents. */
clops_status pw_fn_pow_scalar(pw_variant variant, clops_tensor *dst, clops_scalar self,
                              clops_tensor *exponent, clops_tensor **out)
{
    return pow_scalar_base("pow", variant, dst, self, exponent, false, out);
}

/* float_power's destination rule (the result is float64, never cast) and
 * the device's fp64 capability. */
static clops_status float_power_check(pw_variant variant, clops_tensor *dst,
                                      const clops_tensor *any_input)
{
    if (variant == PW_OUT && dst && dst->dtype != CLOPS_FLOAT64)
        return clops__fail(CLOPS_INVALID_DTYPE,
                           "float_power: the output given to float_power has dtype %s but the "
                           "operation's result requires dtype float64",
                           clops_dtype_name(dst->dtype));
    if (variant == PW_INPLACE && dst && dst->dtype != CLOPS_FLOAT64)
        return clops__fail(CLOPS_INVALID_DTYPE,
                           "float_power_: the base given to float_power_ has dtype %s but the "
                           "operation's result requires dtype float64",
                           clops_dtype_name(dst->dtype));
    return check_dtype_on_device("float_power", CLOPS_FLOAT64, any_input->storage->device);
}

/* float_power.Tensor_Tensor: pow in float64. */
clops_status pw_fn_float_power_tensor_tensor(pw_variant variant, clops_tensor *dst,
                                             clops_tensor *self, clops_tensor *exponent,
                                             clops_tensor **out)
{
    clops_status st = float_power_check(variant, dst, self);
    if (st)
        return st;
    return run_pow("float_power", variant, dst, pw_tensor(self), pw_tensor(exponent),
                   REF_POW_GENERIC, true, out);
}

/* float_power.Tensor_Scalar: pow in float64 with pow's short cuts. */
clops_status pw_fn_float_power_tensor_scalar(pw_variant variant, clops_tensor *dst,
                                             clops_tensor *self, clops_scalar exponent,
                                             clops_tensor **out)
{
    clops_status st = float_power_check(variant, dst, self);
    if (st)
        return st;
    return pow_tensor_scalar("float_power", variant, dst, self, exponent, true, out);
}

/* float_power.Scalar: a Python base, float64. */
clops_status pw_fn_float_power_scalar(pw_variant variant, clops_tensor *dst, clops_scalar self,
                                      clops_tensor *exponent, clops_tensor **out)
{
    clops_status st = float_power_check(variant, dst, exponent);
    if (st)
        return st;
    return pow_scalar_base("float_power", variant, dst, self, exponent, true, out);
}

/* ---- nextafter, heaviside, lerp, addcdiv -------------------------------- */

/* nextafter: the stepping format follows the common dtype. */
clops_status pw_fn_nextafter(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                             clops_tensor *other, clops_tensor **out)
{
    const pw_operand ops[2] = {pw_tensor(self), pw_tensor(other)};
    clops_dtype common = pw_glue_common_dtype(ops, 2);
    ref_nextafter_mode mode = common == CLOPS_FLOAT16    ? REF_NEXTAFTER_F16
                              : common == CLOPS_BFLOAT16 ? REF_NEXTAFTER_BF16
                                                         : REF_NEXTAFTER_NATIVE;
    const clops_scalar param = clops_scalar_int((int64_t)mode);
    return pw_glue_run(&pw_op_nextafter, "nextafter", variant, dst, ops, &param, NULL, out);
}

/* heaviside: values where self is 0; one dtype for all tensors. */
clops_status pw_fn_heaviside(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                             clops_tensor *values, clops_tensor **out)
{
    if (self->dtype != values->dtype || (variant == PW_OUT && dst && dst->dtype != self->dtype))
        return clops__fail(CLOPS_INVALID_DTYPE,
                           "heaviside: heaviside is not yet implemented for tensors with "
                           "different dtypes (%s and %s)",
                           clops_dtype_name(self->dtype), clops_dtype_name(values->dtype));
    const pw_operand ops[2] = {pw_tensor(self), pw_tensor(values)};
    return pw_glue_run(&pw_op_heaviside, "heaviside", variant, dst, ops, NULL, NULL, out);
}

/* lerp's rule: every tensor has self's dtype. */
static clops_status lerp_check(const clops_tensor *self, const clops_tensor *t, const char *what)
{
    if (t->dtype == self->dtype)
        return CLOPS_OK;
    return clops__fail(CLOPS_INVALID_DTYPE, "lerp: expected dtype %s for `%s` but got dtype %s",
                       clops_dtype_name(self->dtype), what, clops_dtype_name(t->dtype));
}

/* lerp.Scalar: a scalar weight. */
clops_status pw_fn_lerp_scalar(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                               clops_tensor *end, clops_scalar weight, clops_tensor **out)
{
    clops_status st = lerp_check(self, end, "end");
    if (st)
        return st;
    const pw_operand ops[2] = {pw_tensor(self), pw_tensor(end)};
    return pw_glue_run(&pw_op_lerp, "lerp", variant, dst, ops, &weight, NULL, out);
}

/* lerp.Tensor: a tensor weight. */
clops_status pw_fn_lerp_tensor(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                               clops_tensor *end, clops_tensor *weight, clops_tensor **out)
{
    clops_status st = lerp_check(self, end, "end");
    if (st == CLOPS_OK)
        st = lerp_check(self, weight, "weight");
    if (st)
        return st;
    const pw_operand ops[3] = {pw_tensor(self), pw_tensor(end), pw_tensor(weight)};
    return pw_glue_run(&pw_op_lerp_tensor, "lerp", variant, dst, ops, NULL, NULL, out);
}

/* addcdiv: self + value * tensor1 / tensor2. */
clops_status pw_fn_addcdiv(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                           clops_tensor *tensor1, clops_tensor *tensor2, clops_scalar value,
                           clops_tensor **out)
{
    if (!clops_dtype_is_floating(tensor1->dtype) && !clops_dtype_is_floating(tensor2->dtype))
        return clops__fail(CLOPS_INVALID_DTYPE,
                           "addcdiv: Integer division with addcdiv is no longer supported, and "
                           "in a future release addcdiv will perform a true division of tensor1 "
                           "and tensor2. The historic addcdiv behavior can be implemented as "
                           "(input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for "
                           "integer inputs and as (input + value * tensor1 / tensor2) for float "
                           "inputs. The future addcdiv behavior is just the latter "
                           "implementation: (input + value * tensor1 / tensor2), for all dtypes.");
    const pw_operand ops[3] = {pw_tensor(self), pw_tensor(tensor1), pw_tensor(tensor2)};
    return pw_glue_run(&pw_op_addcdiv, "addcdiv", variant, dst, ops, &value, NULL, out);
}
