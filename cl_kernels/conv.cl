/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cl_kernels/conv.cl: the device half of the convolution family
 * (ops/conv/conv_launch.c): im2col, col2im, the direct depthwise kernels
 * (the forward one with the fused epilogue of _clops_conv_epilogue) and
 * the batch-norm fold of that op's matrix-engine path.
 *
 * The host builds one program per dtype with these defined:
 *   RAW_T   storage type moved bit for bit (ushort for float16/bfloat16)
 *   VAL_T   storage type read and written as numbers (half for float16)
 *   KIND    load/store kind (CLOPS_LD/CLOPS_ST in pw_prelude.clh): 0 float/double,
 *           1 float16, 2 bfloat16
 *   ACC     accumulation type (float, double for float64)
 *   IDX     index type: int when every index of the call fits, else long
 * Geometry (ops/conv/conv.h): images are 5-D [N, C, D, H, W] views of any
 * strides (missing spatial dims have size 1), "big" sizes bD, bH, bW,
 * "small" sizes sD, sH, sW, kernel kD, kH, kW; small position (od, oh, ow)
 * and kernel position (jd, jh, jw) meet big position o * s - p + j * d.
 * Column (n, c * K + j, o) lies at coff + n * csn + (c * K + j) * csk + o.
 * Every work item writes one element; nothing is accumulated across items.
 */
#define LD(p, i) CLOPS_LD(KIND, ACC, p, i)
#define ST(p, i, v) CLOPS_ST(KIND, VAL_T, ACC, p, i, v)

/* The geometry arguments every kernel takes, in this order. */
#define CONV_GEOM_ARGS                                                                     \
    IDX N, IDX C, IDX bD, IDX bH, IDX bW, IDX sD, IDX sH, IDX sW, IDX kD, IDX kH, IDX kW,  \
        IDX strD, IDX strH, IDX strW, IDX padD, IDX padH, IDX padW, IDX dilD, IDX dilH,    \
        IDX dilW

/* im2col: one item per column element (n, c, j, o), o fastest. */
__kernel void conv_im2col(__global const RAW_T *x, long xoff, IDX xsn, IDX xsc, IDX xsd,
                          IDX xsh, IDX xsw, __global RAW_T *col, long coff, IDX csn, IDX csk,
                          CONV_GEOM_ARGS)
{
    IDX Ls = sD * sH * sW, K = kD * kH * kW;
    IDX total = N * C * K * Ls;
    for (IDX e = (IDX)get_global_id(0); e < total; e += (IDX)get_global_size(0)) {
        IDX o = e % Ls, r = e / Ls;
        IDX j = r % K, nc = r / K;
        IDX c = nc % C, n = nc / C;
        IDX ow = o % sW, oh = o / sW % sH, od = o / (sW * sH);
        IDX jw = j % kW, jh = j / kW % kH, jd = j / (kW * kH);
        IDX id = od * strD - padD + jd * dilD;
        IDX ih = oh * strH - padH + jh * dilH;
        IDX iw = ow * strW - padW + jw * dilW;
        RAW_T v = 0;
        if (id >= 0 && id < bD && ih >= 0 && ih < bH && iw >= 0 && iw < bW)
            v = x[xoff + n * xsn + c * xsc + id * xsd + ih * xsh + iw * xsw];
        col[coff + n * csn + (c * K + j) * csk + o] = v;
    }
}

/* col2im: one item per image element (n, c, i), summing the columns that
 * meet it in kernel-position order. */
__kernel void conv_col2im(__global VAL_T *x, long xoff, IDX xsn, IDX xsc, IDX xsd, IDX xsh,
                          IDX xsw, __global const VAL_T *col, long coff, IDX csn, IDX csk,
                          CONV_GEOM_ARGS)
{
    IDX Lb = bD * bH * bW, K = kD * kH * kW;
    IDX total = N * C * Lb;
    for (IDX e = (IDX)get_global_id(0); e < total; e += (IDX)get_global_size(0)) {
        IDX i = e % Lb, nc = e / Lb;
        IDX c = nc % C, n = nc / C;
        IDX iw = i % bW, ih = i / bW % bH, id = i / (bW * bH);
        ACC acc = 0;
        __global const VAL_T *cb = col + coff + n * csn + c * K * csk;
        for (IDX jd = 0; jd < kD; jd++) {
            IDX td = id + padD - jd * dilD;
            if (td < 0 || td % strD != 0 || td / strD >= sD)
                continue;
            for (IDX jh = 0; jh < kH; jh++) {
                IDX th = ih + padH - jh * dilH;
                if (th < 0 || th % strH != 0 || th / strH >= sH)
                    continue;
                for (IDX jw = 0; jw < kW; jw++) {
                    IDX tw = iw + padW - jw * dilW;
                    if (tw < 0 || tw % strW != 0 || tw / strW >= sW)
                        continue;
                    IDX j = (jd * kH + jh) * kW + jw;
                    IDX o = ((td / strD) * sH + th / strH) * sW + tw / strW;
                    acc += LD(cb, j * csk + o);
                }
            }
        }
        ST(x, xoff + n * xsn + c * xsc + id * xsd + ih * xsh + iw * xsw, acc);
    }
}

/* The activations of a fused epilogue (_clops_conv_epilogue), numbered and
 * written as the matrix engine's (cl_kernels/act.clh, ops/gemm/gemm.h
 * gemm_act) in the accumulation type. */
CLOPS_ACT_FN(conv_act, ACC)

/* The per-channel vectors of a fused epilogue: bias, scale, shift, mean and
 * var (bit i of vhas: vector i is given), each a buffer, an element offset
 * and a stride, and the batch norm's eps. */
#define CONV_VEC_ARGS                                                                      \
    __global const VAL_T *vb, long vb_off, IDX vb_st, __global const VAL_T *vs, long vs_off, \
        IDX vs_st, __global const VAL_T *vt, long vt_off, IDX vt_st,                       \
        __global const VAL_T *vm, long vm_off, IDX vm_st, __global const VAL_T *vv,        \
        long vv_off, IDX vv_st, int vhas, ACC eps
#define VEC_LD(p, c, bit, dflt) ((vhas & (bit)) ? LD(p, p##_off + (c) * p##_st) : (ACC)(dflt))

/* Channel c's affine y * s_ + t_: s_ = scale * invstd with invstd =
 * 1 / sqrt(var + eps) (PyTorch's eval batch norm: alpha = invstd * weight,
 * beta = bias - mean * alpha; scale alone without var), t_ = shift -
 * mean * s_. */
#define AFFINE_OF(c, s_, t_)                                                               \
    do {                                                                                   \
        s_ = VEC_LD(vs, c, 2, 1);                                                          \
        if (vhas & 16)                                                                     \
            s_ = ((ACC)1 / sqrt(VEC_LD(vv, c, 16, 1) + eps)) * s_;                         \
        t_ = VEC_LD(vt, c, 4, 0) - VEC_LD(vm, c, 8, 0) * s_;                               \
    } while (0)

/* The epilogue on value v of channel c (ACC, in place): bias (vhas bit 0),
 * the affine (bits 1-4), the residual element at ri added before (rmode 1)
 * or after (rmode 2) the activation act. */
#define CONV_EPILOGUE(v, c, ri)                                                            \
    do {                                                                                   \
        if (vhas & 1)                                                                      \
            v += LD(vb, vb_off + (c) * vb_st);                                             \
        if (vhas & 30) {                                                                   \
            ACC s_, t_;                                                                    \
            AFFINE_OF(c, s_, t_);                                                          \
            v = v * s_ + t_;                                                               \
        }                                                                                  \
        ACC rv_ = rmode ? LD(r, ri) : (ACC)0;                                              \
        if (rmode == 1)                                                                    \
            v += rv_;                                                                      \
        v = conv_act(v, act);                                                              \
        if (rmode == 2)                                                                    \
            v += rv_;                                                                      \
    } while (0)

/* The batch-norm fold of the matrix engine's path: for the weight seen as
 * [G, n, taps, cg] through strides ws* (destination channel c = g * n + j),
 * wo[...] = w[...] * s_(c) in wo's strides wo* (the engine's (tap, channel)
 * order or the weight's own), and the folded bias bo[c] = bias[c] * s_ +
 * t_ for c < G * n (the items past the weight's).  One item per chunk
 * consecutive elements of a (channel, tap) row of cg (s_ computed once per
 * item): CPU devices a whole row, GPUs one element (rows of one item each
 * left a GPU mostly idle: ResNet-18's layer-3 fold took 108 us on the H100,
 * docs/conv.md). */
__kernel void conv_fold(__global const VAL_T *w, long woff, IDX ws0, IDX ws1, IDX ws2, IDX ws3,
                        __global VAL_T *wo, long wooff, IDX wo0, IDX wo1, IDX wo2, IDX wo3,
                        IDX G, IDX n, IDX taps, IDX cg, IDX chunk, CONV_VEC_ARGS,
                        __global VAL_T *bo, long booff)
{
    IDX per = (cg + chunk - 1) / chunk, nr = G * n * taps * per, total = nr + G * n;
    for (IDX e = (IDX)get_global_id(0); e < total; e += (IDX)get_global_size(0)) {
        IDX row = e < nr ? e / per : 0, c = e < nr ? row / taps : e - nr;
        ACC s_, t_;
        AFFINE_OF(c, s_, t_);
        if (e < nr) {
            IDX t = row % taps, j = c % n, gg = c / n, i0 = (e - row * per) * chunk;
            IDX i1 = min(i0 + chunk, cg);
            __global const VAL_T *src = w + woff + gg * ws0 + j * ws1 + t * ws2;
            long dst = wooff + gg * wo0 + j * wo1 + t * wo2;
            for (IDX i = i0; i < i1; i++)
                ST(wo, dst + i * wo3, LD(src, i * ws3) * s_);
        } else {
            ST(bo, booff + c, VEC_LD(vb, c, 1, 0) * s_ + t_);
        }
    }
}

/* The epilogue as one pass over a convolution's result y [N, C, D, H, W]
 * (any strides), in place, where the product ran without it: y += bias
 * (vhas bit 0), y = y * s_ + t_ (bits 1-4), the residual r before (rmode
 * 1) or after (rmode 2) the activation act, in ACC, one rounding. */
__kernel void conv_epilogue_pass(__global VAL_T *y, long yoff, IDX ysn, IDX ysc, IDX ysd,
                                 IDX ysh, IDX ysw, CONV_VEC_ARGS, __global const VAL_T *r,
                                 long roff, IDX rsn, IDX rsc, IDX rsd, IDX rsh, IDX rsw,
                                 int rmode, int act, IDX N, IDX C, IDX D, IDX H, IDX W)
{
    IDX total = N * C * D * H * W;
    for (IDX e = (IDX)get_global_id(0); e < total; e += (IDX)get_global_size(0)) {
        IDX w = e % W, h = e / W % H, d = e / (W * H) % D, nc = e / (W * H * D);
        IDX c = nc % C, n = nc / C;
        IDX yi = yoff + n * ysn + c * ysc + d * ysd + h * ysh + w * ysw;
        ACC v = LD(y, yi);
        CONV_EPILOGUE(v, c, roff + n * rsn + c * rsc + d * rsd + h * rsh + w * rsw);
        ST(y, yi, v);
    }
}

/* Depthwise convolution (one big channel per group, Cs = m * C small
 * channels): one item per small element (n, cs, o), the window summed in
 * kernel-position order, then the epilogue: bias[cs] (vhas bit 0), the
 * affine of AFFINE_OF (bits 1-4), the residual r added before (rmode 1) or
 * after (rmode 2) the activation act, all in ACC before the one rounding. */
__kernel void conv_depthwise(__global const VAL_T *x, long xoff, IDX xsn, IDX xsc, IDX xsd,
                             IDX xsh, IDX xsw, __global const VAL_T *w, long woff, IDX wsc,
                             IDX wsd, IDX wsh, IDX wsw, CONV_VEC_ARGS, __global const VAL_T *r,
                             long roff, IDX rsn, IDX rsc, IDX rsd, IDX rsh, IDX rsw, int rmode,
                             int act, __global VAL_T *y, long yoff, IDX ysn, IDX ysc, IDX ysd,
                             IDX ysh, IDX ysw, IDX Cs, CONV_GEOM_ARGS)
{
    IDX Ls = sD * sH * sW, m = Cs / C;
    IDX total = N * Cs * Ls;
    for (IDX e = (IDX)get_global_id(0); e < total; e += (IDX)get_global_size(0)) {
        IDX o = e % Ls, nc = e / Ls;
        IDX cs = nc % Cs, n = nc / Cs, c = cs / m;
        IDX ow = o % sW, oh = o / sW % sH, od = o / (sW * sH);
        __global const VAL_T *xb = x + xoff + n * xsn + c * xsc;
        __global const VAL_T *wb = w + woff + cs * wsc;
        ACC acc = 0;
        for (IDX jd = 0; jd < kD; jd++) {
            IDX id = od * strD - padD + jd * dilD;
            if (id < 0 || id >= bD)
                continue;
            for (IDX jh = 0; jh < kH; jh++) {
                IDX ih = oh * strH - padH + jh * dilH;
                if (ih < 0 || ih >= bH)
                    continue;
                for (IDX jw = 0; jw < kW; jw++) {
                    IDX iw = ow * strW - padW + jw * dilW;
                    if (iw < 0 || iw >= bW)
                        continue;
                    acc += LD(xb, id * xsd + ih * xsh + iw * xsw) *
                           LD(wb, jd * wsd + jh * wsh + jw * wsw);
                }
            }
        }
        CONV_EPILOGUE(acc, cs, roff + n * rsn + cs * rsc + od * rsd + oh * rsh + ow * rsw);
        ST(y, yoff + n * ysn + cs * ysc + od * ysd + oh * ysh + ow * ysw, acc);
    }
}

/* Depthwise convolution on GPUs for channels-last images (one source
 * channel per destination channel, 1-D or 2-D; ops/conv/conv_launch.c
 * conv_cl_depthwise picks it): a work-group of DW_CT x DW_TH items takes
 * DW_CT consecutive channels of a tile of DW_TH x DW_TW outputs of one
 * sample.  The tile's input window (WH x WW pixels, zeros outside the
 * image) is staged once in __local as ACC, the channel fastest (lanes read
 * consecutive channels of one pixel: coalesced in NHWC memory, and no bank
 * conflicts); then item (lane, row) sums its DW_TW outputs in registers,
 * taps in kernel-position order skipping those outside the image (the
 * order and terms of conv_depthwise), and applies the epilogue before the
 * one rounding.  The group count is N * cblk * tilesH * tilesW. */
#define DW_CT 32
#define DW_TH 4
#define DW_TW 8
__kernel __attribute__((reqd_work_group_size(DW_CT * DW_TH, 1, 1))) void
conv_depthwise_tiled(__global const VAL_T *x, long xoff, IDX xsn, IDX xsc, IDX xsh, IDX xsw,
                     __global const VAL_T *w, long woff, IDX wsc, IDX wsh, IDX wsw,
                     CONV_VEC_ARGS, __global const VAL_T *r, long roff, IDX rsn, IDX rsc,
                     IDX rsh, IDX rsw, int rmode, int act, __global VAL_T *y, long yoff,
                     IDX ysn, IDX ysc, IDX ysh, IDX ysw, IDX C, IDX bH, IDX bW, IDX sH, IDX sW,
                     IDX kH, IDX kW, IDX strH, IDX strW, IDX padH, IDX padW, IDX dilH,
                     IDX dilW, IDX WH, IDX WW, IDX tilesH, IDX tilesW, IDX cblk,
                     __local ACC *win)
{
    IDX lid = (IDX)get_local_id(0), lane = lid % DW_CT, row = lid / DW_CT;
    IDX gid = (IDX)get_group_id(0);
    IDX tw = gid % tilesW, th = gid / tilesW % tilesH, cb = gid / (tilesW * tilesH) % cblk;
    IDX n = gid / (tilesW * tilesH * cblk);
    IDX c0 = cb * DW_CT, oh0 = th * DW_TH, ow0 = tw * DW_TW;
    IDX ih0 = oh0 * strH - padH, iw0 = ow0 * strW - padW;
    __global const VAL_T *xb = x + xoff + n * xsn;
    for (IDX e = lid; e < WH * WW * DW_CT; e += DW_CT * DW_TH) {
        IDX cl = e % DW_CT, p = e / DW_CT;
        IDX c = c0 + cl, ih = ih0 + p / WW, iw = iw0 + p % WW;
        ACC v = 0;
        if (c < C && ih >= 0 && ih < bH && iw >= 0 && iw < bW)
            v = LD(xb, c * xsc + ih * xsh + iw * xsw);
        win[e] = v;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    IDX c = c0 + lane, oh = oh0 + row;
    if (c >= C || oh >= sH)
        return; /* (no barrier follows) */
    ACC acc[DW_TW];
    for (int t = 0; t < DW_TW; t++)
        acc[t] = 0;
    __global const VAL_T *wb = w + woff + c * wsc;
    for (IDX jh = 0; jh < kH; jh++) {
        IDX ph = row * strH + jh * dilH;
        if (ih0 + ph < 0 || ih0 + ph >= bH)
            continue;
        __local const ACC *wr = win + ph * WW * DW_CT + lane;
        for (IDX jw = 0; jw < kW; jw++) {
            ACC wv = LD(wb, jh * wsh + jw * wsw);
            for (int t = 0; t < DW_TW; t++) {
                IDX pw = t * strW + jw * dilW;
                if (iw0 + pw >= 0 && iw0 + pw < bW)
                    acc[t] += wr[pw * DW_CT] * wv;
            }
        }
    }
    for (int t = 0; t < DW_TW; t++) {
        IDX ow = ow0 + t;
        if (ow >= sW)
            break;
        ACC v = acc[t];
        CONV_EPILOGUE(v, c, roff + n * rsn + c * rsc + oh * rsh + ow * rsw);
        ST(y, yoff + n * ysn + c * ysc + oh * ysh + ow * ysw, v);
    }
}

/* The input gradient of a depthwise convolution (its "to big" product):
 * one item per big element (n, c, i), summing S * W over the m small
 * channels of c's group and the kernel positions meeting i, in order. */
__kernel void conv_depthwise_big(__global VAL_T *x, long xoff, IDX xsn, IDX xsc, IDX xsd,
                                 IDX xsh, IDX xsw, __global const VAL_T *w, long woff, IDX wsc,
                                 IDX wsd, IDX wsh, IDX wsw, __global const VAL_T *y, long yoff,
                                 IDX ysn, IDX ysc, IDX ysd, IDX ysh, IDX ysw, IDX Cs,
                                 CONV_GEOM_ARGS)
{
    IDX Lb = bD * bH * bW, m = Cs / C;
    IDX total = N * C * Lb;
    for (IDX e = (IDX)get_global_id(0); e < total; e += (IDX)get_global_size(0)) {
        IDX i = e % Lb, nc = e / Lb;
        IDX c = nc % C, n = nc / C;
        IDX iw = i % bW, ih = i / bW % bH, id = i / (bW * bH);
        ACC acc = 0;
        for (IDX cs = c * m; cs < c * m + m; cs++) {
            __global const VAL_T *yb = y + yoff + n * ysn + cs * ysc;
            __global const VAL_T *wb = w + woff + cs * wsc;
            for (IDX jd = 0; jd < kD; jd++) {
                IDX td = id + padD - jd * dilD;
                if (td < 0 || td % strD != 0 || td / strD >= sD)
                    continue;
                for (IDX jh = 0; jh < kH; jh++) {
                    IDX th = ih + padH - jh * dilH;
                    if (th < 0 || th % strH != 0 || th / strH >= sH)
                        continue;
                    for (IDX jw = 0; jw < kW; jw++) {
                        IDX tw = iw + padW - jw * dilW;
                        if (tw < 0 || tw % strW != 0 || tw / strW >= sW)
                            continue;
                        acc += LD(yb, (td / strD) * ysd + (th / strH) * ysh + (tw / strW) * ysw) *
                               LD(wb, jd * wsd + jh * wsh + jw * wsw);
                    }
                }
            }
        }
        ST(x, xoff + n * xsn + c * xsc + id * xsd + ih * xsh + iw * xsw, acc);
    }
}

/* The weight gradient of a depthwise convolution, first pass: one item per
 * (small channel cs, kernel position j, sample n, part p of the P parts of
 * the small rows, P <= sH) summing S * B over its small positions in order
 * into part[((cs * K + j) * N + n) * P + p]; the host sums the N * P
 * partials (ops/reduce/reduce.h). */
__kernel void conv_depthwise_weight(__global const VAL_T *x, long xoff, IDX xsn, IDX xsc,
                                    IDX xsd, IDX xsh, IDX xsw, __global ACC *part,
                                    __global const VAL_T *y, long yoff, IDX ysn, IDX ysc,
                                    IDX ysd, IDX ysh, IDX ysw, IDX Cs, IDX P,
                                    CONV_GEOM_ARGS)
{
    IDX K = kD * kH * kW, m = Cs / C;
    IDX total = Cs * K * N * P, rows = (sH + P - 1) / P;
    for (IDX e = (IDX)get_global_id(0); e < total; e += (IDX)get_global_size(0)) {
        IDX pp = e % P, n = e / P % N, r = e / P / N;
        IDX j = r % K, cs = r / K, c = cs / m;
        IDX oh0 = pp * rows, oh1 = oh0 + rows < sH ? oh0 + rows : sH;
        IDX jw = j % kW, jh = j / kW % kH, jd = j / (kW * kH);
        __global const VAL_T *xb = x + xoff + n * xsn + c * xsc;
        __global const VAL_T *yb = y + yoff + n * ysn + cs * ysc;
        ACC acc = 0;
        for (IDX od = 0; od < sD; od++) {
            IDX id = od * strD - padD + jd * dilD;
            if (id < 0 || id >= bD)
                continue;
            for (IDX oh = oh0; oh < oh1; oh++) {
                IDX ih = oh * strH - padH + jh * dilH;
                if (ih < 0 || ih >= bH)
                    continue;
                for (IDX ow = 0; ow < sW; ow++) {
                    IDX iw = ow * strW - padW + jw * dilW;
                    if (iw < 0 || iw >= bW)
                        continue;
                    acc += LD(yb, od * ysd + oh * ysh + ow * ysw) *
                           LD(xb, id * xsd + ih * xsh + iw * xsw);
                }
            }
        }
        part[e] = acc;
    }
}
