/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ops/conv/conv.c: the operators of the convolution family
 * (dispatch/inventory/conv.yaml): convolution, convolution_backward, their
 * *_overrideable twins, im2col and col2im.  Each checks its arguments as
 * PyTorch does (messages name the op, the shapes, dtypes and device),
 * works out the geometry of ops/conv/conv.h and the result shapes, and hands the
 * products to conv_product (ops/conv/conv_gemm.c) and the columns to
 * conv_im2col_run / conv_col2im_run (ops/conv/conv_launch.c).
 */
#include <stdio.h>
#include <string.h>

#include "dispatch/structured.h"
#include "ops/conv/conv.h"
#include "ops/tensor/tensor.h"
#include "ops/gemm/gemm.h"
#include "ops/kernels_generated.h"
#include "ops/reduce/reduce.h"

/* The list arguments of a convolution, expanded to nsp values each. */
typedef struct conv_params {
    const char *op;
    int nsp;
    bool transposed;
    int64_t groups;
    int64_t stride[CONV_SP], padding[CONV_SP], dilation[CONV_SP], outpad[CONV_SP];
} conv_params;

/* "[1, 2]" of n values into buf. */
static const char *fmt_list(char *buf, size_t cap, const int64_t *v, int n)
{
    return clops__fmt_shape(buf, cap, n, v);
}

/* Expands a list argument to nsp values (one value repeats, as PyTorch's
 * expand_param_if_needed). */
static clops_status expand(const char *op, const char *name, const int64_t *v, int len, int nsp,
                           int64_t *outv)
{
    char b[200];
    if (len == 1) {
        for (int i = 0; i < nsp; i++)
            outv[i] = v[0];
        return CLOPS_OK;
    }
    if (len != nsp || !v)
        return clops__fail(CLOPS_INVALID_ARGUMENT,
                           "%s: expected %s to be a single integer value or a list of %d values "
                           "to match the convolution dimensions, but got %s=%s",
                           op, name, nsp, name, v ? fmt_list(b, sizeof b, v, len) : "None");
    memcpy(outv, v, sizeof(int64_t) * (size_t)nsp);
    return CLOPS_OK;
}

/* The shared argument checks of every convolution op: input, weight and
 * bias (may be NULL) against the parameters; fills g and the result shape
 * (2 + nsp dims) into osz. */
static clops_status check_conv(conv_params *p, clops_tensor *input, clops_tensor *weight,
                               clops_tensor *bias, const int64_t *stride, int stride_len,
                               const int64_t *padding, int padding_len, const int64_t *dilation,
                               int dilation_len, const int64_t *output_padding,
                               int output_padding_len, conv_geom *g, int64_t *osz)
{
    const char *op = p->op;
    clops_tensor *ts[] = {input, weight, bias};
    const char *const nm[] = {"input", "weight", "bias"};
#define FAIL(st, ...) gemm_failf((st), op, ts, nm, 3, __VA_ARGS__)
    static const bool opt[] = {false, false, true};
    clops_device *dev = NULL;
    clops_status st = gemm_check_devices(op, ts, opt, 3, &dev);
    if (st)
        return st;
    char ws[200], is[200], bs[200], a[200], b[200], c[200];
    clops__fmt_shape(ws, sizeof ws, weight->ndim, weight->sizes);
    clops__fmt_shape(is, sizeof is, input->ndim, input->sizes);
    if (weight->ndim < 3)
        return FAIL(CLOPS_INVALID_SHAPE, "weight should have at least three dimensions");
    if (weight->ndim > 5)
        return FAIL(CLOPS_INVALID_SHAPE, "only 1-D, 2-D and 3-D convolutions are supported");
    if (input->ndim != weight->ndim)
        return FAIL(CLOPS_INVALID_SHAPE,
                    "Expected %d-dimensional input for %d-dimensional weight %s, but got "
                    "%d-dimensional input of size %s instead",
                    weight->ndim, weight->ndim, ws, input->ndim, is);
    if (!clops_dtype_is_floating(input->dtype))
        return FAIL(CLOPS_INVALID_DTYPE, "not implemented for '%s'",
                    gemm_scalartype_name(input->dtype));
    if (weight->dtype != input->dtype)
        return FAIL(CLOPS_INVALID_DTYPE,
                    "Input type (%s) and weight type (%s) should be the same",
                    gemm_typemeta_name(input->dtype), gemm_typemeta_name(weight->dtype));
    if (bias && bias->dtype != input->dtype)
        return FAIL(CLOPS_INVALID_DTYPE, "Input type (%s) and bias type (%s) should be the same",
                    gemm_typemeta_name(input->dtype), gemm_typemeta_name(bias->dtype));
    int nsp = p->nsp = weight->ndim - 2;
    if ((st = expand(op, "stride", stride, stride_len, nsp, p->stride)) ||
        (st = expand(op, "padding", padding, padding_len, nsp, p->padding)) ||
        (st = expand(op, "dilation", dilation, dilation_len, nsp, p->dilation)) ||
        (st = expand(op, "output_padding", output_padding, output_padding_len, nsp, p->outpad)))
        return st;
    for (int i = 0; i < nsp; i++) {
        if (p->stride[i] <= 0)
            return FAIL(CLOPS_INVALID_ARGUMENT, "non-positive stride is not supported");
        if (p->padding[i] < 0)
            return FAIL(CLOPS_INVALID_ARGUMENT, "negative padding is not supported");
        if (p->padding[i] > INT64_MAX / 2) /* PyTorch's bound and words */
            return FAIL(CLOPS_INVALID_ARGUMENT,
                        "Given padding=%lld at dimension %d , expected padding to be at most "
                        "%lld",
                        (long long)p->padding[i], i, (long long)(INT64_MAX / 2));
        if (p->dilation[i] <= 0)
            return FAIL(CLOPS_INVALID_ARGUMENT, "dilation should be greater than zero");
        if (p->outpad[i] < 0)
            return FAIL(CLOPS_INVALID_ARGUMENT, "negative output_padding is not supported");
        if (p->transposed && p->outpad[i] >= p->stride[i] && p->outpad[i] >= p->dilation[i])
            return FAIL(CLOPS_INVALID_ARGUMENT,
                        "output padding must be smaller than either stride or dilation, but "
                        "got output_padding=%s, stride=%s, dilation=%s",
                        fmt_list(a, sizeof a, p->outpad, nsp),
                        fmt_list(b, sizeof b, p->stride, nsp),
                        fmt_list(c, sizeof c, p->dilation, nsp));
    }
    if (p->groups <= 0)
        return FAIL(CLOPS_INVALID_ARGUMENT, "non-positive groups is not supported");
    int64_t G = p->groups, C = input->sizes[1];
    if (weight->sizes[0] % G != 0)
        return FAIL(CLOPS_INVALID_SHAPE,
                    "Given groups=%lld, expected weight to be divisible by %lld at dimension 0, "
                    "but got weight of size %s instead",
                    (long long)G, (long long)G, ws);
    int64_t want = p->transposed ? weight->sizes[0] : weight->sizes[1] * G;
    if (C != want) {
        if (p->transposed)
            return FAIL(CLOPS_INVALID_SHAPE,
                        "Given transposed=1, weight of size %s, expected input%s to have %lld "
                        "channels, but got %lld channels instead",
                        ws, is, (long long)want, (long long)C);
        return FAIL(CLOPS_INVALID_SHAPE,
                    "Given groups=%lld, weight of size %s, expected input%s to have %lld "
                    "channels, but got %lld channels instead",
                    (long long)G, ws, is, (long long)want, (long long)C);
    }
    int64_t cout = p->transposed ? weight->sizes[1] * G : weight->sizes[0];
    if (bias && (bias->ndim != 1 || bias->sizes[0] != cout))
        return FAIL(CLOPS_INVALID_SHAPE,
                    "Given weight of size %s, expected bias to be 1-dimensional with %lld "
                    "elements, but got bias of size %s instead",
                    ws, (long long)cout, clops__fmt_shape(bs, sizeof bs, bias->ndim, bias->sizes));
    /* The geometry, spatial dims padded in front. */
    memset(g, 0, sizeof *g);
    g->nsp = nsp;
    g->N = input->sizes[0];
    g->groups = G;
    g->Cs = p->transposed ? C : cout;
    g->Cb = p->transposed ? cout : C;
    int64_t insp[CONV_SP], outsp[CONV_SP], padded[CONV_SP], eff[CONV_SP];
    bool bad = false;
    for (int i = 0; i < CONV_SP; i++) {
        int src = i - (CONV_SP - nsp);
        g->k[i] = src < 0 ? 1 : weight->sizes[2 + src];
        g->s[i] = src < 0 ? 1 : p->stride[src];
        g->p[i] = src < 0 ? 0 : p->padding[src];
        g->d[i] = src < 0 ? 1 : p->dilation[src];
        int64_t in = src < 0 ? 1 : input->sizes[2 + src];
        /* eff = d * (k - 1) + 1, padded = in + 2 * p, and the transposed
         * output (in - 1) * s - 2 * p + eff + output_padding or padded - eff,
         * all checked. */
        int64_t span = 0, twop = 0, o = 0;
        bool fits = geom_mul(g->d[i], g->k[i] - 1, &span) && geom_add(span, 1, &eff[i]) &&
                    geom_mul(2, g->p[i], &twop) && geom_add(in, twop, &padded[i]);
        if (fits && p->transposed)
            fits = geom_mul(in - 1, g->s[i], &o) && geom_sub(o, twop, &o) &&
                   geom_add(o, eff[i], &o) && geom_add(o, src < 0 ? 0 : p->outpad[src], &o);
        else if (fits)
            fits = geom_sub(padded[i], eff[i], &o);
        if (!fits)
            return FAIL(CLOPS_INVALID_SHAPE,
                        "the %soutput size of spatial dimension %d overflows int64 (input size "
                        "%lld, kernel size %lld, stride %lld, padding %lld, dilation %lld)",
                        p->transposed ? "transposed " : "", src, (long long)in,
                        (long long)g->k[i], (long long)g->s[i], (long long)g->p[i],
                        (long long)g->d[i]);
        if (p->transposed) {
            g->small[i] = in;
            g->big[i] = o;
            bad |= o <= 0;
            outsp[i] = o;
        } else {
            o = padded[i] < eff[i] ? 0 : o / g->s[i] + 1;
            g->big[i] = in;
            g->small[i] = o;
            bad |= padded[i] < eff[i];
            outsp[i] = o;
        }
        insp[i] = in;
    }
    int o0 = CONV_SP - nsp;
    if (bad && p->transposed)
        return FAIL(CLOPS_INVALID_SHAPE,
                    "Given input size per channel: %s. Calculated output size per channel: %s. "
                    "Output size is too small",
                    fmt_list(a, sizeof a, insp + o0, nsp), fmt_list(b, sizeof b, outsp + o0, nsp));
    if (bad)
        return FAIL(CLOPS_INVALID_SHAPE,
                    "Calculated padded input size per channel: %s. Kernel size: %s. Kernel size "
                    "can't be greater than actual input size",
                    fmt_list(a, sizeof a, padded + o0, nsp), fmt_list(b, sizeof b, eff + o0, nsp));
    osz[0] = g->N;
    osz[1] = cout;
    for (int i = 0; i < nsp; i++)
        osz[2 + i] = outsp[o0 + i];
    /* The result must be a tensor: its element count fits in int64 (which
     * bounds the products conv_geom_finish takes). */
    if ((st = check_sizes(op, 2 + nsp, osz)))
        return st;
    conv_geom_finish(g);
    return CLOPS_OK;
#undef FAIL
}

void conv_geom_finish(conv_geom *g)
{
    g->K = g->k[0] * g->k[1] * g->k[2];
    g->Lb = g->big[0] * g->big[1] * g->big[2];
    g->Ls = g->small[0] * g->small[1] * g->small[2];
}

/* Whether t (4-D or 5-D) is channels-last: its strides those of a
 * contiguous [N, spatial..., C] (size-1 dims taking any stride) and not
 * plain contiguous, PyTorch's ChannelsLast / ChannelsLast3d. */
static bool is_channels_last(const clops_tensor *t)
{
    if (t->ndim < 4 || t->ndim > 5 || clops_tensor_is_contiguous(t))
        return false;
    int order[5] = {0};
    for (int i = 2; i < t->ndim; i++)
        order[i - 1] = i;
    order[t->ndim - 1] = 1;
    int64_t expect = 1;
    for (int i = t->ndim - 1; i >= 0; i--) {
        int d = order[i];
        if (t->sizes[d] != 1 && t->strides[d] != expect)
            return false;
        expect *= t->sizes[d];
    }
    return true;
}

/* Channels-last strides of a tensor of sizes sz (ndim 4 or 5) into st. */
static void channels_last_strides(int ndim, const int64_t *sz, int64_t *st)
{
    int64_t s = 1;
    st[1] = s;
    s *= sz[1] > 0 ? sz[1] : 1;
    for (int i = ndim - 1; i >= 2; i--) {
        st[i] = s;
        s *= sz[i] > 0 ? sz[i] : 1;
    }
    st[0] = s;
}

/*
 * A new result of sizes sz in the memory format PyTorch gives a
 * convolution's result (cudnn/mkldnn's suggested format): channels-last
 * when the input or the weight is channels-last, else contiguous.
 */
static clops_status new_result(clops_device *dev, clops_dtype dt, int ndim, const int64_t *sz,
                               const clops_tensor *input, const clops_tensor *weight,
                               clops_tensor **out)
{
    int64_t st[5];
    bool cl = ndim >= 4 && (is_channels_last(input) || is_channels_last(weight));
    if (cl)
        channels_last_strides(ndim, sz, st);
    return tensor_new(dev, dt, ndim, sz, cl ? st : NULL, out);
}

/* convolution and convolution_overrideable. */
static clops_status convolution_impl(const char *op, pw_variant variant, clops_tensor *dst,
                                     clops_tensor *input, clops_tensor *weight, clops_tensor *bias,
                                     const int64_t *stride, int stride_len, const int64_t *padding,
                                     int padding_len, const int64_t *dilation, int dilation_len,
                                     bool transposed, const int64_t *output_padding,
                                     int output_padding_len, int64_t groups, clops_tensor **out)
{
    conv_params p = {.op = op, .transposed = transposed, .groups = groups};
    conv_geom g;
    int64_t osz[2 + CONV_SP];
    if (!input || !weight)
        return clops__fail(CLOPS_INVALID_ARGUMENT, "%s: input and weight must not be None", op);
    clops_status st = check_conv(&p, input, weight, bias, stride, stride_len, padding,
                                 padding_len, dilation, dilation_len, output_padding,
                                 output_padding_len, &g, osz);
    if (st)
        return st;
    clops_tensor *ins[] = {input, weight, bias};
    structured_call call;
    /* A functional result takes the inputs' memory format (PyTorch's rule):
     * allocated here and written as an out= argument. */
    clops_tensor *res = NULL;
    if (variant == PW_FUNCTIONAL) {
        st = new_result(input->storage->device, input->dtype, 2 + p.nsp, osz, input, weight,
                        &res);
        if (st)
            return st;
    }
    st = structured_begin(&call, op, res ? PW_OUT : variant, res ? res : dst,
                          input->storage->device, input->dtype, 2 + p.nsp, osz, ins, 3);
    if (st) {
        clops_tensor_release(res);
        return st;
    }
    clops_tensor *y = call.target;
    st = transposed ? conv_product(op, &g, CONV_TO_BIG, input, y, weight, bias)
                    : conv_product(op, &g, CONV_TO_SMALL, y, input, weight, bias);
    st = structured_finish(&call, st, res ? NULL : out);
    if (res && st == CLOPS_OK)
        *out = res;
    else
        clops_tensor_release(res);
    return st;
}

clops_status conv_convolution(pw_variant variant, clops_tensor *dst, clops_tensor *input,
                              clops_tensor *weight, clops_tensor *bias, const int64_t *stride,
                              int stride_len, const int64_t *padding, int padding_len,
                              const int64_t *dilation, int dilation_len, bool transposed,
                              const int64_t *output_padding, int output_padding_len,
                              int64_t groups, clops_tensor **out)
{
    return convolution_impl("convolution", variant, dst, input, weight, bias, stride, stride_len,
                            padding, padding_len, dilation, dilation_len, transposed,
                            output_padding, output_padding_len, groups, out);
}

clops_status conv_convolution_overrideable(pw_variant variant, clops_tensor *dst,
                                           clops_tensor *input, clops_tensor *weight,
                                           clops_tensor *bias, const int64_t *stride,
                                           int stride_len, const int64_t *padding,
                                           int padding_len, const int64_t *dilation,
                                           int dilation_len, bool transposed,
                                           const int64_t *output_padding, int output_padding_len,
                                           int64_t groups, clops_tensor **out)
{
    return convolution_impl("convolution_overrideable", variant, dst, input, weight, bias, stride,
                            stride_len, padding, padding_len, dilation, dilation_len, transposed,
                            output_padding, output_padding_len, groups, out);
}

clops_status conv_conv_epilogue(pw_variant variant, clops_tensor *dst, clops_tensor *input,
                                clops_tensor *weight, clops_tensor *bias, const int64_t *stride,
                                int stride_len, const int64_t *padding, int padding_len,
                                const int64_t *dilation, int dilation_len, bool transposed,
                                const int64_t *output_padding, int output_padding_len,
                                int64_t groups, clops_tensor *scale, clops_tensor *shift,
                                clops_tensor *mean, clops_tensor *var, double eps,
                                clops_tensor *residual, int64_t activation, bool residual_after,
                                clops_tensor **out)
{
    static const char op[] = "_clops_conv_epilogue";
    if (!input || !weight)
        return clops__fail(CLOPS_INVALID_ARGUMENT, "%s: input and weight must not be None", op);
    if (activation < 0 || activation >= GEMM_ACT_COUNT)
        return clops__fail(CLOPS_INVALID_ARGUMENT,
                           "%s: activation %lld is not one of 0 (none) to %d (ops/gemm/gemm.h "
                           "gemm_act)",
                           op, (long long)activation, GEMM_ACT_COUNT - 1);
    conv_params p = {.op = op, .transposed = transposed, .groups = groups};
    conv_geom g;
    int64_t osz[2 + CONV_SP];
    clops_status st = check_conv(&p, input, weight, bias, stride, stride_len, padding,
                                 padding_len, dilation, dilation_len, output_padding,
                                 output_padding_len, &g, osz);
    if (st)
        return st;
    clops_tensor *ts[] = {input, weight, bias, scale, shift, mean, var, residual};
    static const char *const nm[] = {"input", "weight", "bias", "scale",
                                     "shift", "mean",   "var",  "residual"};
    static const bool opt[] = {false, false, true, true, true, true, true, true};
    clops_device *dev = NULL;
    if ((st = gemm_check_devices(op, ts, opt, 8, &dev)))
        return st;
    char a[200], b[200];
    int nd = 2 + p.nsp;
    for (int i = 3; i < 8; i++) {
        clops_tensor *t = ts[i];
        if (!t)
            continue;
        if (t->dtype != input->dtype)
            return gemm_failf(CLOPS_INVALID_DTYPE, op, ts, nm, 8,
                              "%s must have the input's dtype %s, but got %s", nm[i],
                              gemm_scalartype_name(input->dtype), gemm_scalartype_name(t->dtype));
        bool ok = i == 7 ? t->ndim == nd && memcmp(t->sizes, osz, sizeof(int64_t) * (size_t)nd) == 0
                         : t->ndim == 1 && t->sizes[0] == osz[1];
        if (!ok && i == 7)
            return gemm_failf(CLOPS_INVALID_SHAPE, op, ts, nm, 8,
                              "the residual must have the convolution's output shape %s, but "
                              "got %s",
                              clops__fmt_shape(a, sizeof a, nd, osz),
                              clops__fmt_shape(b, sizeof b, t->ndim, t->sizes));
        if (!ok)
            return gemm_failf(CLOPS_INVALID_SHAPE, op, ts, nm, 8,
                              "%s must be 1-dimensional with %lld elements (the output "
                              "channels), but got size %s",
                              nm[i], (long long)osz[1],
                              clops__fmt_shape(a, sizeof a, t->ndim, t->sizes));
    }
    clops_tensor *res = NULL;
    structured_call call;
    if (variant == PW_FUNCTIONAL &&
        (st = new_result(dev, input->dtype, nd, osz, input, weight, &res)))
        return st;
    st = structured_begin(&call, op, res ? PW_OUT : variant, res ? res : dst, dev, input->dtype,
                          nd, osz, ts, 8);
    if (st) {
        clops_tensor_release(res);
        return st;
    }
    /* (functional only: the residual never overlaps the new result) */
    conv_epi e = {.bias = bias,
                  .scale = scale,
                  .shift = shift,
                  .mean = mean,
                  .var = var,
                  .eps = eps,
                  .residual = residual,
                  .residual_after = residual_after,
                  .act = (int)activation};
    st = transposed ? conv_product_epi(op, &g, CONV_TO_BIG, input, call.target, weight, &e)
                    : conv_product_epi(op, &g, CONV_TO_SMALL, call.target, input, weight, &e);
    st = structured_finish(&call, st, res ? NULL : out);
    if (res && st == CLOPS_OK)
        *out = res;
    else
        clops_tensor_release(res);
    return st;
}

/* grad_bias: grad_output summed over every dim but the channels. */
static clops_status grad_bias(const char *op, clops_tensor *grad, clops_tensor **out)
{
    int64_t c = grad->sizes[1];
    clops_status st = tensor_new(grad->storage->device, grad->dtype, 1, &c, NULL, out);
    if (st)
        return st;
    reduce_call rc = {.opname = op, .kind = RK_SUM, .x = grad, .y = *out};
    for (int i = 0; i < grad->ndim; i++)
        rc.mask[i] = i != 1;
    st = reduce_run(&rc);
    if (st) {
        clops_tensor_release(*out);
        *out = NULL;
    }
    return st;
}

/* convolution_backward and convolution_backward_overrideable. */
static clops_status backward_impl(const char *op, clops_tensor *grad_output, clops_tensor *input,
                                  clops_tensor *weight, const int64_t *stride, int stride_len,
                                  const int64_t *padding, int padding_len,
                                  const int64_t *dilation, int dilation_len, bool transposed,
                                  const int64_t *output_padding, int output_padding_len,
                                  int64_t groups, const bool *output_mask, int output_mask_len,
                                  clops_tensor **out0, clops_tensor **out1, clops_tensor **out2)
{
    *out0 = *out1 = *out2 = NULL;
    if (!grad_output || !input || !weight)
        return clops__fail(CLOPS_INVALID_ARGUMENT,
                           "%s: grad_output, input and weight must not be None", op);
    if (output_mask_len != 3)
        return clops__fail(CLOPS_INVALID_ARGUMENT, "%s: output_mask must have 3 values, got %d",
                           op, output_mask_len);
    conv_params p = {.op = op, .transposed = transposed, .groups = groups};
    conv_geom g;
    int64_t osz[2 + CONV_SP];
    clops_status st = check_conv(&p, input, weight, NULL, stride, stride_len, padding,
                                 padding_len, dilation, dilation_len, output_padding,
                                 output_padding_len, &g, osz);
    if (st)
        return st;
    clops_tensor *ts[] = {grad_output, input, weight};
    const char *const nm[] = {"grad_output", "input", "weight"};
    if (grad_output->storage->device != input->storage->device)
        return gemm_failf(CLOPS_DEVICE_MISMATCH, op, ts, nm, 3,
                          "Expected all tensors to be on the same device");
    if (grad_output->dtype != input->dtype)
        return gemm_failf(CLOPS_INVALID_DTYPE, op, ts, nm, 3,
                          "grad_output type (%s) and input type (%s) should be the same",
                          gemm_typemeta_name(grad_output->dtype),
                          gemm_typemeta_name(input->dtype));
    char a[200];
    if (grad_output->ndim != 2 + p.nsp ||
        memcmp(grad_output->sizes, osz, sizeof(int64_t) * (size_t)(2 + p.nsp)) != 0)
        return gemm_failf(CLOPS_INVALID_SHAPE, op, ts, nm, 3,
                          "expected grad_output of size %s (the convolution's output)",
                          clops__fmt_shape(a, sizeof a, 2 + p.nsp, osz));
    clops_device *dev = input->storage->device;
    clops_tensor *gi = NULL, *gw = NULL, *gb = NULL, *goc = NULL;
    /* one channels-last copy of grad_output for both products (GPUs) */
    if (output_mask[0] && output_mask[1])
        st = conv_backward_source(&g, grad_output, &goc);
    clops_tensor *go = goc ? goc : grad_output;
    if (!st && output_mask[0]) {
        st = new_result(dev, input->dtype, input->ndim, input->sizes, input, weight, &gi);
        if (!st)
            st = transposed ? conv_product(op, &g, CONV_TO_SMALL, gi, go, weight, NULL)
                            : conv_product(op, &g, CONV_TO_BIG, go, gi, weight, NULL);
    }
    if (!st && output_mask[1]) {
        st = tensor_new(dev, weight->dtype, weight->ndim, weight->sizes, NULL, &gw);
        if (!st)
            st = transposed ? conv_product(op, &g, CONV_TO_WEIGHT, input, go, gw, NULL)
                            : conv_product(op, &g, CONV_TO_WEIGHT, go, input, gw, NULL);
    }
    clops_tensor_release(goc);
    if (!st && output_mask[2])
        st = grad_bias(op, grad_output, &gb);
    if (st) {
        clops_tensor_release(gi);
        clops_tensor_release(gw);
        clops_tensor_release(gb);
        return st;
    }
    *out0 = gi;
    *out1 = gw;
    *out2 = gb;
    return CLOPS_OK;
}

clops_status conv_convolution_backward(clops_tensor *grad_output, clops_tensor *input,
                                       clops_tensor *weight, const int64_t *bias_sizes,
                                       int bias_sizes_len, const int64_t *stride, int stride_len,
                                       const int64_t *padding, int padding_len,
                                       const int64_t *dilation, int dilation_len, bool transposed,
                                       const int64_t *output_padding, int output_padding_len,
                                       int64_t groups, const bool *output_mask,
                                       int output_mask_len, clops_tensor **out0,
                                       clops_tensor **out1, clops_tensor **out2)
{
    (void)bias_sizes;
    (void)bias_sizes_len;
    return backward_impl("convolution_backward", grad_output, input, weight, stride, stride_len,
                         padding, padding_len, dilation, dilation_len, transposed, output_padding,
                         output_padding_len, groups, output_mask, output_mask_len, out0, out1,
                         out2);
}

clops_status conv_convolution_backward_overrideable(
    clops_tensor *grad_output, clops_tensor *input, clops_tensor *weight, const int64_t *stride,
    int stride_len, const int64_t *padding, int padding_len, const int64_t *dilation,
    int dilation_len, bool transposed, const int64_t *output_padding, int output_padding_len,
    int64_t groups, const bool *output_mask, int output_mask_len, clops_tensor **out0,
    clops_tensor **out1, clops_tensor **out2)
{
    return backward_impl("convolution_backward_overrideable", grad_output, input, weight, stride,
                         stride_len, padding, padding_len, dilation, dilation_len, transposed,
                         output_padding, output_padding_len, groups, output_mask, output_mask_len,
                         out0, out1, out2);
}
