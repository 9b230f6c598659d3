/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ops/pool/pool_resample.c: the resampling operators of dispatch/inventory/pool.yaml:
 * upsample_nearest2d, upsample_bilinear2d, upsample_bicubic2d and their
 * backward ops (PyTorch's source-index scales: align_corners, the optional
 * scales_h/scales_w), pixel_shuffle and pixel_unshuffle (a permuted copy).
 */
#include <string.h>

#include "ops/tensor/tensor.h"
#include "host/host.h"
#include "ops/kernels_generated.h"
#include "ops/pool/pool.h"

/* The geometry of an upsampling from input_size [N, C, H, W] to
 * output_size [OH, OW] in mode (0 nearest, 1 bilinear, 2 bicubic). */
static clops_status up_geometry(const char *op, const int64_t *in, int nin, const int64_t *os,
                                int nos, int mode, bool align_corners, const double *sh,
                                const double *sw, pool_geom *g)
{
    if (!os || nos != 2)
        return clops__fail(CLOPS_INVALID_ARGUMENT,
                           "%s: It is expected output_size equals to 2, but got size %d", op,
                           nos);
    if (nin != 4)
        return clops__fail(CLOPS_INVALID_ARGUMENT,
                           "%s: It is expected input_size equals to 4, but got size %d", op, nin);
    if (in[2] <= 0 || in[3] <= 0 || os[0] <= 0 || os[1] <= 0)
        return clops__fail(CLOPS_INVALID_SHAPE,
                           "%s: Input and output sizes should be greater than 0, but got input "
                           "(H: %lld, W: %lld) output (H: %lld, W: %lld)",
                           op, (long long)in[2], (long long)in[3], (long long)os[0],
                           (long long)os[1]);
    memset(g, 0, sizeof *g);
    g->N = in[0];
    g->C = in[1];
    g->in[0] = g->out[0] = 1;
    const double *scales[2] = {sh, sw};
    for (int d = 0; d < 2; d++) {
        int64_t I = in[2 + d], O = os[d];
        g->in[1 + d] = I;
        g->out[1 + d] = O;
        const double *s = scales[d];
        bool given = s && *s > 0;
        g->nsc[d] = given ? (float)(1.0 / *s) : (float)I / (float)O;
        if (align_corners)
            g->lsc[d] = O > 1 ? (double)(I - 1) / (double)(O - 1) : 0;
        else
            g->lsc[d] = given ? 1.0 / *s : (double)I / (double)O;
    }
    for (int d = 0; d < 3; d++)
        g->k[d] = g->s[d] = g->dil[d] = 1;
    g->mode = mode;
    g->flag = align_corners;
    return CLOPS_OK;
}

/* The forward of every upsampling op. */
static clops_status upsample(const char *op, int mode, pw_variant variant, clops_tensor *dst,
                             clops_tensor *self, const int64_t *os, int nos, bool align_corners,
                             const double *sh, const double *sw, clops_tensor **out)
{
    char a[400];
    if (!clops_dtype_is_floating(self->dtype))
        return clops__fail(CLOPS_INVALID_DTYPE, "%s: not implemented for '%s' (on %s)", op,
                           clops_dtype_name(self->dtype), self->storage->device->label);
    if (self->ndim != 4 || (tensor_numel(self) == 0 && self->sizes[0] != 0))
        return clops__fail(CLOPS_INVALID_SHAPE,
                           "%s: Non-empty 4D data tensor expected but got a tensor with sizes %s "
                           "(on %s)",
                           op, clops__fmt_shape(a, sizeof a, self->ndim, self->sizes),
                           self->storage->device->label);
    pool_geom g;
    clops_status st = up_geometry(op, self->sizes, 4, os, nos, mode, align_corners, sh, sw, &g);
    if (st)
        return st;
    int64_t sz[4] = {self->sizes[0], self->sizes[1], os[0], os[1]};
    structured_call c;
    clops_tensor *f = NULL;
    st = pool_begin(&c, op, variant, dst, self, self->dtype, 4, sz, &self, 1, &f);
    if (st)
        return st;
    st = pool_run(op, POOL_UP_FWD, &g, 2, self, c.target, NULL);
    return pool_finish(&c, st, f, out);
}

/* The backward of every upsampling op: grad_input of input_size. */
static clops_status upsample_backward(const char *op, int mode, pw_variant variant,
                                      clops_tensor *dst, clops_tensor *grad, const int64_t *os,
                                      int nos, const int64_t *in, int nin, bool align_corners,
                                      const double *sh, const double *sw, clops_tensor **out)
{
    char a[400], b[400];
    pool_geom g;
    clops_status st = up_geometry(op, in, nin, os, nos, mode, align_corners, sh, sw, &g);
    if (st)
        return st;
    if (!clops_dtype_is_floating(grad->dtype))
        return clops__fail(CLOPS_INVALID_DTYPE, "%s: not implemented for '%s' (on %s)", op,
                           clops_dtype_name(grad->dtype), grad->storage->device->label);
    int64_t want[4] = {in[0], in[1], os[0], os[1]};
    if (grad->ndim != 4 || memcmp(grad->sizes, want, sizeof want) != 0)
        return clops__fail(CLOPS_INVALID_SHAPE,
                           "%s: Expected grad_output to have the shape of the output %s, but "
                           "got %s (on %s)",
                           op, clops__fmt_shape(a, sizeof a, 4, want),
                           clops__fmt_shape(b, sizeof b, grad->ndim, grad->sizes),
                           grad->storage->device->label);
    structured_call c;
    clops_tensor *f = NULL;
    st = pool_begin(&c, op, variant, dst, grad, grad->dtype, 4, in, &grad, 1, &f);
    if (st)
        return st;
    st = pool_run(op, POOL_UP_BWD, &g, 2, grad, c.target, NULL);
    return pool_finish(&c, st, f, out);
}

clops_status pool_upsample_nearest2d(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                                     const int64_t *output_size, int output_size_len,
                                     const double *scales_h, const double *scales_w,
                                     clops_tensor **out)
{
    return upsample("upsample_nearest2d", 0, variant, dst, self, output_size, output_size_len,
                    false, scales_h, scales_w, out);
}

clops_status pool_upsample_bilinear2d(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                                      const int64_t *output_size, int output_size_len,
                                      bool align_corners, const double *scales_h,
                                      const double *scales_w, clops_tensor **out)
{
    return upsample("upsample_bilinear2d", 1, variant, dst, self, output_size, output_size_len,
                    align_corners, scales_h, scales_w, out);
}

clops_status pool_upsample_bicubic2d(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                                     const int64_t *output_size, int output_size_len,
                                     bool align_corners, const double *scales_h,
                                     const double *scales_w, clops_tensor **out)
{
    return upsample("upsample_bicubic2d", 2, variant, dst, self, output_size, output_size_len,
                    align_corners, scales_h, scales_w, out);
}

clops_status pool_upsample_nearest2d_backward(pw_variant variant, clops_tensor *dst,
                                              clops_tensor *grad_output,
                                              const int64_t *output_size, int output_size_len,
                                              const int64_t *input_size, int input_size_len,
                                              const double *scales_h, const double *scales_w,
                                              clops_tensor **out)
{
    return upsample_backward("upsample_nearest2d_backward", 0, variant, dst, grad_output,
                             output_size, output_size_len, input_size, input_size_len, false,
                             scales_h, scales_w, out);
}

clops_status pool_upsample_bilinear2d_backward(pw_variant variant, clops_tensor *dst,
                                               clops_tensor *grad_output,
                                               const int64_t *output_size, int output_size_len,
                                               const int64_t *input_size, int input_size_len,
                                               bool align_corners, const double *scales_h,
                                               const double *scales_w, clops_tensor **out)
{
    return upsample_backward("upsample_bilinear2d_backward", 1, variant, dst, grad_output,
                             output_size, output_size_len, input_size, input_size_len,
                             align_corners, scales_h, scales_w, out);
}

clops_status pool_upsample_bicubic2d_backward(pw_variant variant, clops_tensor *dst,
                                              clops_tensor *grad_output,
                                              const int64_t *output_size, int output_size_len,
                                              const int64_t *input_size, int input_size_len,
                                              bool align_corners, const double *scales_h,
                                              const double *scales_w, clops_tensor **out)
{
    return upsample_backward("upsample_bicubic2d_backward", 2, variant, dst, grad_output,
                             output_size, output_size_len, input_size, input_size_len,
                             align_corners, scales_h, scales_w, out);
}

/*
 * pixel_shuffle (up) or pixel_unshuffle: [*, C*r*r, H, W] <-> [*, C, H*r,
 * W*r] as a permuted view of self copied into the target (shape checks and
 * texts as PyTorch's).
 */
static clops_status shuffle(const char *op, bool up, pw_variant variant, clops_tensor *dst,
                            clops_tensor *self, int64_t r, clops_tensor **out)
{
    char a[400];
    int nd = self->ndim;
    if (nd < 3)
        return clops__fail(CLOPS_INVALID_SHAPE,
                           "%s expects input to have at least 3 dimensions, but got input with "
                           "%d dimension(s)",
                           op, nd);
    if (r <= 0)
        return clops__fail(CLOPS_INVALID_ARGUMENT, "%s expects a positive %s, but got %lld", op,
                           up ? "upscale_factor" : "downscale_factor", (long long)r);
    int64_t C = self->sizes[nd - 3], H = self->sizes[nd - 2], W = self->sizes[nd - 1];
    /* r * r, and the output sizes H * r, W * r (up) or C * r * r (down),
     * checked: a factor whose square overflows divides no channel count
     * but 0, and the output must still be a tensor. */
    int64_t r2 = 0, hr = 0, wr = 0, cr2 = 0;
    bool r2_fits = geom_mul(r, r, &r2);
    if (up && !r2_fits) /* PyTorch's check, before the channels' (a ValueError there) */
        return clops__fail(CLOPS_INVALID_SHAPE,
                           "%s: upscale factor is too large, (upscale_factor)^2 overflowed: "
                           "upscale_factor=%lld (input %s)",
                           op, (long long)r, clops__fmt_shape(a, sizeof a, nd, self->sizes));
    if (up && C % r2 != 0)
        return clops__fail(CLOPS_INVALID_SHAPE,
                           "%s expects its input's 'channel' dimension to be divisible by the "
                           "square of upscale_factor, but input.size(-3)=%lld is not divisible "
                           "by %lld (input %s)",
                           op, (long long)C, (long long)r2,
                           clops__fmt_shape(a, sizeof a, nd, self->sizes));
    if (up ? !r2_fits || !geom_mul(H, r, &hr) || !geom_mul(W, r, &wr)
           : !r2_fits || !geom_mul(C, r2, &cr2))
        return clops__fail(CLOPS_INVALID_SHAPE,
                           "%s: the output size of input %s with %s %lld overflows int64", op,
                           clops__fmt_shape(a, sizeof a, nd, self->sizes),
                           up ? "upscale_factor" : "downscale_factor", (long long)r);
    if (!up && (H % r != 0 || W % r != 0))
        return clops__fail(CLOPS_INVALID_SHAPE,
                           "%s expects %s dimension to be divisible by downscale_factor, but "
                           "input.size(%d)=%lld is not divisible by %lld (input %s)",
                           op, H % r ? "height" : "width", H % r ? -2 : -1,
                           (long long)(H % r ? H : W), (long long)r,
                           clops__fmt_shape(a, sizeof a, nd, self->sizes));
    int64_t osz[8], v6[8];
    int64_t perm[8];
    int lead = nd - 3;
    for (int i = 0; i < lead; i++) {
        osz[i] = v6[i] = self->sizes[i];
        perm[i] = i;
    }
    if (up) { /* [*, C', r, r, H, W] -> [*, C', H, r, W, r] */
        int64_t oc = C / r2;
        int64_t v[6] = {oc, r, r, H, W, 0};
        int64_t p[5] = {0, 3, 1, 4, 2};
        for (int i = 0; i < 5; i++) {
            v6[lead + i] = v[i];
            perm[lead + i] = lead + p[i];
        }
        osz[lead] = oc;
        osz[lead + 1] = hr;
        osz[lead + 2] = wr;
    } else { /* [*, C, H', r, W', r] -> [*, C, r, r, H', W'] */
        int64_t v[6] = {C, H / r, r, W / r, r, 0};
        int64_t p[5] = {0, 2, 4, 1, 3};
        for (int i = 0; i < 5; i++) {
            v6[lead + i] = v[i];
            perm[lead + i] = lead + p[i];
        }
        osz[lead] = cr2;
        osz[lead + 1] = H / r;
        osz[lead + 2] = W / r;
    }
    structured_call c;
    clops_status st = structured_begin(&c, op, variant, dst, self->storage->device, self->dtype,
                                       nd, osz, &self, 1);
    if (st)
        return st;
    clops_tensor *v = NULL, *pv = NULL, *pc = NULL, *res = NULL;
    st = core_reshape(self, v6, lead + 5, &v);
    if (!st)
        st = core_permute(v, perm, lead + 5, &pv);
    if (!st)
        st = core_contiguous(pv, &pc);
    if (!st)
        st = core_view(pc, osz, nd, &res);
    if (!st)
        st = core_copy_(c.target, res, false);
    clops_tensor_release(v);
    clops_tensor_release(pv);
    clops_tensor_release(pc);
    clops_tensor_release(res);
    return structured_finish(&c, st, out);
}

clops_status pool_pixel_shuffle(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                                int64_t upscale_factor, clops_tensor **out)
{
    return shuffle("pixel_shuffle", true, variant, dst, self, upscale_factor, out);
}

clops_status pool_pixel_unshuffle(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                                  int64_t downscale_factor, clops_tensor **out)
{
    return shuffle("pixel_unshuffle", false, variant, dst, self, downscale_factor, out);
}
