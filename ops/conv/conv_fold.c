/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ops/conv/conv_fold.c: aten::im2col and aten::col2im (what torch.nn.Unfold and
 * Fold reach) on the column kernels of the convolution family: the 2-D
 * geometry of ops/conv/conv.h with the image as the big side and the sliding
 * blocks as the small one.  Arguments are checked as PyTorch's
 * im2col_shape_check and col2im_shape_check do.
 */
#include <string.h>

#include "dispatch/structured.h"
#include "host/host.h"
#include "ops/conv/conv.h"
#include "ops/tensor/tensor.h"
#include "ops/kernels_generated.h"

/* Reads the four int[2] arguments into g's last two spatial dims. */
static clops_status fold_params(const char *op, const int64_t *ks, int ks_len,
                                const int64_t *dil, int dil_len, const int64_t *pad, int pad_len,
                                const int64_t *str, int str_len, conv_geom *g)
{
    if (ks_len != 2 || dil_len != 2 || pad_len != 2 || str_len != 2)
        return clops__fail(CLOPS_INVALID_ARGUMENT,
                           "%s: kernel_size, dilation, padding and stride must have 2 values "
                           "each",
                           op);
    if (ks[0] <= 0 || ks[1] <= 0)
        return clops__fail(CLOPS_INVALID_ARGUMENT,
                           "%s: kernel size should be greater than zero, but got kernel_height: "
                           "%lld kernel_width: %lld",
                           op, (long long)ks[0], (long long)ks[1]);
    if (dil[0] <= 0 || dil[1] <= 0)
        return clops__fail(CLOPS_INVALID_ARGUMENT,
                           "%s: dilation should be greater than zero, but got dilation_height: "
                           "%lld dilation_width: %lld",
                           op, (long long)dil[0], (long long)dil[1]);
    if (pad[0] < 0 || pad[1] < 0)
        return clops__fail(CLOPS_INVALID_ARGUMENT,
                           "%s: padding should be non-negative, but got pad_height: %lld "
                           "pad_width: %lld",
                           op, (long long)pad[0], (long long)pad[1]);
    if (str[0] <= 0 || str[1] <= 0)
        return clops__fail(CLOPS_INVALID_ARGUMENT,
                           "%s: stride should be greater than zero, but got stride_height: %lld "
                           "stride_width: %lld",
                           op, (long long)str[0], (long long)str[1]);
    memset(g, 0, sizeof *g);
    g->nsp = 2;
    g->groups = 1;
    g->k[0] = g->s[0] = g->d[0] = g->big[0] = g->small[0] = 1;
    for (int i = 0; i < 2; i++) {
        g->k[1 + i] = ks[i];
        g->d[1 + i] = dil[i];
        g->p[1 + i] = pad[i];
        g->s[1 + i] = str[i];
    }
    return CLOPS_OK;
}

/* The sliding blocks of g (big sizes set) into g->small[1..2]:
 * (big + 2 * pad - (dil * (k - 1) + 1)) / stride + 1 per dim, checked, and
 * the products conv_geom_finish takes (kernel taps, blocks, channels x
 * taps) checked too. */
static clops_status fold_blocks(const char *op, conv_geom *g, int64_t channels)
{
    int64_t prod = 1;
    for (int i = 1; i <= 2; i++) {
        int64_t span, twop, num;
        if (!geom_mul(g->d[i], g->k[i] - 1, &span) || !geom_add(span, 1, &span) ||
            !geom_mul(2, g->p[i], &twop) || !geom_add(g->big[i], twop, &num) ||
            !geom_sub(num, span, &num))
            return clops__fail(CLOPS_INVALID_SHAPE,
                               "%s: the sliding blocks of spatial dimension %d overflow int64 "
                               "(size %lld, kernel size %lld, dilation %lld, padding %lld, "
                               "stride %lld)",
                               op, i - 1, (long long)g->big[i], (long long)g->k[i],
                               (long long)g->d[i], (long long)g->p[i], (long long)g->s[i]);
        g->small[i] = num / g->s[i] + 1;
    }
    if (!geom_mul(g->k[1], g->k[2], &prod) || !geom_mul(prod, channels, &prod) ||
        !geom_mul(g->small[1] > 0 ? g->small[1] : 0, g->small[2] > 0 ? g->small[2] : 0, &prod))
        return clops__fail(CLOPS_INVALID_SHAPE,
                           "%s: kernel_size=(%lld, %lld) with %lld channels and its sliding "
                           "blocks overflow int64",
                           op, (long long)g->k[1], (long long)g->k[2], (long long)channels);
    return CLOPS_OK;
}

clops_status conv_im2col(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                         const int64_t *kernel_size, int kernel_size_len, const int64_t *dilation,
                         int dilation_len, const int64_t *padding, int padding_len,
                         const int64_t *stride, int stride_len, clops_tensor **out)
{
    static const char op[] = "im2col";
    conv_geom g;
    clops_status st = fold_params(op, kernel_size, kernel_size_len, dilation, dilation_len,
                                  padding, padding_len, stride, stride_len, &g);
    if (st)
        return st;
    char s[200];
    int nd = self->ndim;
    bool ok = (nd == 3 && self->sizes[0] && self->sizes[1] && self->sizes[2]) ||
              (nd == 4 && self->sizes[1] && self->sizes[2] && self->sizes[3]);
    if (!ok)
        return clops__fail(CLOPS_INVALID_SHAPE,
                           "%s: Expected non-empty 3D or 4D input tensor, but got input of size "
                           "%s",
                           op, clops__fmt_shape(s, sizeof s, nd, self->sizes));
    if (!clops_dtype_is_floating(self->dtype))
        return clops__fail(CLOPS_INVALID_DTYPE, "%s: not implemented for '%s' (on %s)", op,
                           clops_dtype_name(self->dtype), self->storage->device->label);
    int b = nd - 3;
    g.N = b ? self->sizes[0] : 1;
    g.Cb = g.Cs = self->sizes[b];
    g.big[1] = self->sizes[b + 1];
    g.big[2] = self->sizes[b + 2];
    if ((st = fold_blocks(op, &g, g.Cb)))
        return st;
    if (g.small[1] < 1 || g.small[2] < 1)
        return clops__fail(CLOPS_INVALID_SHAPE,
                           "%s: Given input with spatial size (%lld, %lld), kernel_size=(%lld, "
                           "%lld), dilation=(%lld, %lld), padding=(%lld, %lld), calculated shape "
                           "of the array of sliding blocks as (%lld, %lld), but its components "
                           "must be at least one.",
                           op, (long long)g.big[1], (long long)g.big[2], (long long)g.k[1],
                           (long long)g.k[2], (long long)g.d[1], (long long)g.d[2],
                           (long long)g.p[1], (long long)g.p[2], (long long)g.small[1],
                           (long long)g.small[2]);
    conv_geom_finish(&g);
    int64_t osz[3] = {g.N, g.Cb * g.K, g.Ls};
    structured_call call;
    st = structured_begin(&call, op, variant, dst, self->storage->device, self->dtype, b ? 3 : 2,
                          b ? osz : osz + 1, &self, 1);
    if (st)
        return st;
    /* The image as [N, C, 1, H, W] for the 2-D geometry. */
    clops_tensor *img = NULL, *tmp = NULL;
    int64_t isz[4] = {1, self->sizes[b], g.big[1], g.big[2]};
    int64_t ist[4] = {0, self->strides[b], self->strides[b + 1], self->strides[b + 2]};
    if (b) {
        isz[0] = self->sizes[0];
        ist[0] = self->strides[0];
    }
    st = tensor_make_view(op, self, 4, isz, ist, self->offset, &img);
    clops_tensor *t = call.target;
    if (!st && !clops_tensor_is_contiguous(t))
        st = tensor_new(t->storage->device, t->dtype, t->ndim, t->sizes, NULL, &tmp);
    clops_tensor *w = tmp ? tmp : t;
    conv_cols l = {w->offset, g.Cb * g.K * g.Ls, g.Ls};
    if (!st && tensor_numel(w) > 0)
        st = conv_im2col_run(op, &g, img, w, l);
    if (!st && tmp)
        st = core_copy_(t, tmp, false);
    clops_tensor_release(img);
    clops_tensor_release(tmp);
    return structured_finish(&call, st, out);
}

clops_status conv_col2im(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                         const int64_t *output_size, int output_size_len,
                         const int64_t *kernel_size, int kernel_size_len, const int64_t *dilation,
                         int dilation_len, const int64_t *padding, int padding_len,
                         const int64_t *stride, int stride_len, clops_tensor **out)
{
    static const char op[] = "col2im";
    conv_geom g;
    clops_status st = fold_params(op, kernel_size, kernel_size_len, dilation, dilation_len,
                                  padding, padding_len, stride, stride_len, &g);
    if (st)
        return st;
    if (output_size_len != 2)
        return clops__fail(CLOPS_INVALID_ARGUMENT, "%s: output_size must have 2 values", op);
    char s[200];
    int nd = self->ndim;
    bool ok = (nd == 2 && self->sizes[0] && self->sizes[1]) ||
              (nd == 3 && self->sizes[1] && self->sizes[2]);
    if (!ok)
        return clops__fail(CLOPS_INVALID_SHAPE,
                           "%s: Expected 2D or 3D (batch mode) tensor for input with possibly 0 "
                           "batch size and non-zero dimensions for input, but got: %s",
                           op, clops__fmt_shape(s, sizeof s, nd, self->sizes));
    if (!clops_dtype_is_floating(self->dtype))
        return clops__fail(CLOPS_INVALID_DTYPE, "%s: not implemented for '%s' (on %s)", op,
                           clops_dtype_name(self->dtype), self->storage->device->label);
    int b = nd - 2;
    g.N = b ? self->sizes[0] : 1;
    int64_t ck = self->sizes[b], L = self->sizes[b + 1];
    if (!geom_mul(g.k[1], g.k[2], &g.K))
        return clops__fail(CLOPS_INVALID_SHAPE, "%s: kernel_size=(%lld, %lld) overflows int64",
                           op, (long long)g.k[1], (long long)g.k[2]);
    if (ck % g.K != 0)
        return clops__fail(CLOPS_INVALID_SHAPE,
                           "%s: Expected size of input's dimension 1 to be divisible by the "
                           "product of kernel_size, but got input.size(1)=%lld and "
                           "kernel_size=(%lld, %lld)",
                           op, (long long)ck, (long long)g.k[1], (long long)g.k[2]);
    g.big[1] = output_size[0];
    g.big[2] = output_size[1];
    if ((st = fold_blocks(op, &g, 1)))
        return st;
    if (g.small[1] < 1 || g.small[2] < 1)
        return clops__fail(CLOPS_INVALID_SHAPE,
                           "%s: Given output_size=(%lld, %lld), kernel_size=(%lld, %lld), "
                           "dilation=(%lld, %lld), padding=(%lld, %lld), stride=(%lld, %lld), "
                           "calculated shape of the array of sliding blocks as (%lld, %lld), "
                           "which is too small (non-positive)",
                           op, (long long)g.big[1], (long long)g.big[2], (long long)g.k[1],
                           (long long)g.k[2], (long long)g.d[1], (long long)g.d[2],
                           (long long)g.p[1], (long long)g.p[2], (long long)g.s[1],
                           (long long)g.s[2], (long long)g.small[1], (long long)g.small[2]);
    if (g.small[1] * g.small[2] != L)
        return clops__fail(CLOPS_INVALID_SHAPE,
                           "%s: Given output_size=(%lld, %lld), kernel_size=(%lld, %lld), "
                           "dilation=(%lld, %lld), padding=(%lld, %lld), stride=(%lld, %lld), "
                           "expected size of input's dimension 2 to match the calculated number "
                           "of sliding blocks %lld * %lld = %lld, but got input.size(2)=%lld.",
                           op, (long long)g.big[1], (long long)g.big[2], (long long)g.k[1],
                           (long long)g.k[2], (long long)g.d[1], (long long)g.d[2],
                           (long long)g.p[1], (long long)g.p[2], (long long)g.s[1],
                           (long long)g.s[2], (long long)g.small[1], (long long)g.small[2],
                           (long long)(g.small[1] * g.small[2]), (long long)L);
    g.Cb = g.Cs = ck / g.K;
    conv_geom_finish(&g);
    int64_t osz[4] = {g.N, g.Cb, g.big[1], g.big[2]};
    structured_call call;
    st = structured_begin(&call, op, variant, dst, self->storage->device, self->dtype, b ? 4 : 3,
                          b ? osz : osz + 1, &self, 1);
    if (st)
        return st;
    clops_tensor *cols = NULL, *img = NULL, *t = call.target;
    st = core_contiguous(self, &cols);
    int64_t isz[4] = {g.N, g.Cb, g.big[1], g.big[2]};
    int64_t ist[4] = {b ? t->strides[0] : 0, t->strides[b], t->strides[b + 1],
                      t->strides[b + 2]};
    if (!st)
        st = tensor_make_view(op, t, 4, isz, ist, t->offset, &img);
    conv_cols l = {cols ? cols->offset : 0, ck * L, L};
    if (!st && tensor_numel(t) > 0)
        st = conv_col2im_run(op, &g, cols, l, img);
    clops_tensor_release(cols);
    clops_tensor_release(img);
    return structured_finish(&call, st, out);
}
