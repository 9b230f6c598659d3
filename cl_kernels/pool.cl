/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cl_kernels/pool.cl: the pooling and resampling family (ops/pool/pool.c):
 * max and average pooling (fixed and adaptive windows, 2-D and 3-D) and
 * nearest, bilinear and bicubic upsampling, forward and backward.
 *
 * The host builds one program per dtype with DT (storage type), KIND (0
 * float/double, 1 half, 2 bfloat16) and CT (compute type: float, or double
 * for float64) defined.  Every tensor is seen as [N, C, D, H, W] through a
 * long8 {offset, sN, sC, sD, sH, sW} (element strides: channels-last and
 * other strided inputs are read in place); 2-D ops have D = 1.  The int16 g
 * holds {N, C, ID, IH, IW, OD, OH, OW, kd, kh, kw, sd, sh, sw, pd, ph} and
 * the int8 g2 {pw, dd, dh, dw, flag, range, adaptive, mode} (range:
 * pool_max_bwd may use cover_dense); the average
 * kernels take divisor_override (0 for none) as a long after g2, as
 * PyTorch's int64 (issue 33: any value, not only int32's).  Every item
 * computes whole output elements (forward) or whole input-gradient elements
 * (backward, gather-style: it sums over the windows that cover its element
 * in a fixed order), so results are deterministic and no atomics are used.
 */
#define LD(p, i) CLOPS_LD(KIND, CT, p, i)
#define ST(p, i, v) CLOPS_ST(KIND, DT, CT, p, i, v)

/* Element offset of (n, c, z, y, x) in a tensor described by t. */
#define AT(t, n, c, z, y, x) ((t).s0 + (n) * (t).s1 + (c) * (t).s2 + (z) * (t).s3 + (y) * (t).s4 + (x) * (t).s5)

/* Splits linear index i of a [N, C, A, B, E] grid into its coordinates,
 * W fastest (cl = 0) or C fastest (cl = 1: channels-last tensors, so
 * neighbouring items touch neighbouring elements); 32-bit arithmetic
 * inside a batch element when it fits. */
inline void split5(long i, int C, int A, int B, int E, int cl, int *n, int *c, int *z, int *y,
                   int *x)
{
    long pl = (long)C * A * B * E, nn = i / pl, r = i - nn * pl;
    *n = (int)nn;
    if (pl <= 0x7fffffff) {
        int q = (int)r;
        if (cl) {
            *c = q % C;
            q /= C;
        }
        *x = q % E;
        q /= E;
        *y = q % B;
        q /= B;
        *z = q % A;
        if (!cl)
            *c = q / A;
        return;
    }
    if (cl) {
        *c = (int)(r % C);
        r /= C;
    }
    *x = (int)(r % E);
    r /= E;
    *y = (int)(r % B);
    r /= B;
    *z = (int)(r % A);
    if (!cl)
        *c = (int)(r / A);
}
#define SPLIT5(i, C, A, B, E, n, c, z, y, x)                                                \
    int n, c, z, y, x;                                                                     \
    split5((i), (C), (A), (B), (E), cl, &n, &c, &z, &y, &x);

/* The input window of output o along one dim: first element, step and
 * count of taps (taps may fall outside [0, I) and are skipped there). */
inline void win(int o, int I, int O, int k, int s, int p, int dil, int adaptive, int *start,
                int *step, int *count)
{
    if (adaptive) {
        int a = (int)(((long)o * I) / O), b = (int)((((long)o + 1) * I + O - 1) / O);
        *start = a;
        *step = 1;
        *count = b - a;
    } else {
        *start = o * s - p;
        *step = dil;
        *count = k;
    }
}

/* The outputs whose windows may cover input i along one dim, as candidate
 * number t of *count: regular windows by kernel tap (o = (i + p - t * dil)
 * / s when exact), adaptive ones a contiguous range from *first. */
inline void cover(int i, int I, int O, int k, int s, int p, int dil, int adaptive, int *first,
                  int *count)
{
    if (adaptive) {
        int a = (int)(((long)i * O) / I), b = (int)((((long)i + 1) * O + I - 1) / I);
        *first = a;
        *count = b - a;
    } else {
        *first = 0;
        *count = k;
    }
}

/* Candidate t of cover(): an output index, or -1 when none. */
inline int cover_at(int t, int first, int i, int O, int s, int p, int dil, int adaptive)
{
    if (adaptive)
        return first + t < O ? first + t : -1;
    int num = i + p - t * dil;
    if (num < 0 || num % s)
        return -1;
    int o = num / s;
    return o < O ? o : -1;
}

/* Declares the taps (z0, zs, zn), (y0, ys, yn), (x0, xs, xn) of output
 * (oz, oy, ox)'s window with the taps before the start dropped (taps past
 * the end are cut by the loops). */
#define MAX_WINDOW(oz, oy, ox)                                                               \
    int z0, zs, zn, y0, ys, yn, x0, xs, xn;                                                  \
    win((int)(oz), g.s2, g.s5, g.s8, g.sb, g.se, g2.s1, g2.s6, &z0, &zs, &zn);               \
    win((int)(oy), g.s3, g.s6, g.s9, g.sc, g.sf, g2.s2, g2.s6, &y0, &ys, &yn);               \
    win((int)(ox), g.s4, g.s7, g.sa, g.sd, g2.s0, g2.s3, g2.s6, &x0, &xs, &xn);              \
    while (z0 < 0) { z0 += zs; zn--; }                                                       \
    while (y0 < 0) { y0 += ys; yn--; }                                                       \
    while (x0 < 0) { x0 += xs; xn--; }

/* max pooling forward: value and flat index (over D*H*W of the plane) of
 * the largest element of each window; NaN wins (the last NaN's index), an
 * all -inf window reports its first valid tap. */
__kernel void pool_max_fwd(global const DT *x, long8 xg, global DT *y, long8 yg,
                           global long *ix, long8 ig, int16 g, int8 g2, int cl)
{
    long total = (long)g.s0 * g.s1 * g.s5 * g.s6 * g.s7;
    CLOPS_ITEMS(long, i, total) {
        SPLIT5(i, g.s1, g.s5, g.s6, g.s7, n, c, oz, oy, ox)
        MAX_WINDOW(oz, oy, ox)
        CT m = -(CT)INFINITY;
        long best = ((long)z0 * g.s3 + y0) * g.s4 + x0;
        for (int a = 0; a < zn; a++) {
            int zz = z0 + a * zs;
            if (zz >= g.s2)
                break;
            for (int b = 0; b < yn; b++) {
                int yy = y0 + b * ys;
                if (yy >= g.s3)
                    break;
                for (int e = 0; e < xn; e++) {
                    int xx = x0 + e * xs;
                    if (xx >= g.s4)
                        break;
                    CT v = LD(x, AT(xg, n, c, zz, yy, xx));
                    if (v > m || isnan(v)) {
                        m = v;
                        best = ((long)zz * g.s3 + yy) * g.s4 + xx;
                    }
                }
            }
        }
        ST(y, AT(yg, n, c, oz, oy, ox), m);
        ix[AT(ig, n, c, oz, oy, ox)] = best;
    }
}

/* The outputs whose regular, undilated windows (kernel k, stride s,
 * padding p) cover input i along one dim: *hi down to *hi - *n + 1, the
 * order in which cover_at's candidates t = 0, 1, ... name them (two
 * divisions instead of two per tap). */
inline void cover_dense(int i, int O, int k, int s, int p, int *hi, int *n)
{
    int top = (i + p) / s, low = i + p - k + 1;
    int lo = low > 0 ? (low + s - 1) / s : 0;
    *hi = min(top, O - 1);
    *n = max(*hi - lo + 1, 0);
}

/* max pooling backward: each input element sums the gradients of the
 * outputs covering it whose index names it (in the order of the kernel's
 * taps: the outputs from the last down; regular windows without dilation,
 * ResNet's 3x3/2, take cover_dense's ranges, others cover_at's
 * candidates, the same outputs in the same order). */
__kernel void pool_max_bwd(global const DT *go, long8 gg, global const long *ix, long8 ig,
                           global DT *gi, long8 og, int16 g, int8 g2, int cl)
{
    long total = (long)g.s0 * g.s1 * g.s2 * g.s3 * g.s4;
    const bool dense = g2.s5 && !g2.s6 && g2.s1 == 1 && g2.s2 == 1 && g2.s3 == 1;
    for (long i = get_global_id(0); i < total; i += get_global_size(0)) {
        SPLIT5(i, g.s1, g.s2, g.s3, g.s4, n, c, iz, iy, ixx)
        long me = ((long)iz * g.s3 + iy) * g.s4 + ixx;
        if (dense) {
            int zh, zn, yh, yn, xh, xn;
            cover_dense((int)iz, g.s5, g.s8, g.sb, g.se, &zh, &zn);
            cover_dense((int)iy, g.s6, g.s9, g.sc, g.sf, &yh, &yn);
            cover_dense((int)ixx, g.s7, g.sa, g.sd, g2.s0, &xh, &xn);
            const long ib = AT(ig, n, c, 0, 0, 0), gb = AT(gg, n, c, 0, 0, 0);
            CT acc = 0;
            for (int oz = zh; oz > zh - zn; oz--)
                for (int oy = yh; oy > yh - yn; oy--) {
                    const long ir = ib + oz * ig.s3 + oy * ig.s4, gr = gb + oz * gg.s3 + oy * gg.s4;
                    for (int ox = xh; ox > xh - xn; ox--)
                        if (ix[ir + ox * ig.s5] == me)
                            acc += LD(go, gr + ox * gg.s5);
                }
            ST(gi, AT(og, n, c, iz, iy, ixx), acc);
            continue;
        }
        int zf, zc, yf, yc, xf, xc;
        cover((int)iz, g.s2, g.s5, g.s8, g.sb, g.se, g2.s1, g2.s6, &zf, &zc);
        cover((int)iy, g.s3, g.s6, g.s9, g.sc, g.sf, g2.s2, g2.s6, &yf, &yc);
        cover((int)ixx, g.s4, g.s7, g.sa, g.sd, g2.s0, g2.s3, g2.s6, &xf, &xc);
        CT acc = 0;
        for (int a = 0; a < zc; a++) {
            int oz = cover_at(a, zf, (int)iz, g.s5, g.sb, g.se, g2.s1, g2.s6);
            if (oz < 0)
                continue;
            for (int b = 0; b < yc; b++) {
                int oy = cover_at(b, yf, (int)iy, g.s6, g.sc, g.sf, g2.s2, g2.s6);
                if (oy < 0)
                    continue;
                for (int e = 0; e < xc; e++) {
                    int ox = cover_at(e, xf, (int)ixx, g.s7, g.sd, g2.s0, g2.s3, g2.s6);
                    if (ox >= 0 && ix[AT(ig, n, c, oz, oy, ox)] == me)
                        acc += LD(go, AT(gg, n, c, oz, oy, ox));
                }
            }
        }
        ST(gi, AT(og, n, c, iz, iy, ixx), acc);
    }
}

/* One dim of an average window: clamped [*lo, *hi) and the padded extent
 * *full (PyTorch's pool_size factor before clamping). */
inline void avg_win(int o, int I, int O, int k, int s, int p, int adaptive, int *lo, int *hi,
                    int *full)
{
    int st, step, cnt;
    win(o, I, O, k, s, p, 1, adaptive, &st, &step, &cnt);
    int en = adaptive ? st + cnt : min(st + k, I + p);
    *full = en - st;
    *lo = max(st, 0);
    *hi = min(en, I);
}

/* The divisor of average window (oz, oy, ox), in 64 bits as PyTorch's
 * (a window's volume may pass 2^31); 0 for an empty window. */
inline long avg_div(int oz, int oy, int ox, int16 g, int8 g2, long dvo)
{
    int zl, zh, zf, yl, yh, yf, xl, xh, xf;
    avg_win(oz, g.s2, g.s5, g.s8, g.sb, g.se, g2.s6, &zl, &zh, &zf);
    avg_win(oy, g.s3, g.s6, g.s9, g.sc, g.sf, g2.s6, &yl, &yh, &yf);
    avg_win(ox, g.s4, g.s7, g.sa, g.sd, g2.s0, g2.s6, &xl, &xh, &xf);
    if (zl >= zh || yl >= yh || xl >= xh)
        return 0;
    if (dvo)
        return dvo;
    if (g2.s4 && !g2.s6)
        return (long)zf * yf * xf;
    return (long)(zh - zl) * (yh - yl) * (xh - xl);
}

/* average pooling forward (count_include_pad in g2.s4, divisor_override in
 * dvo, adaptive windows when g2.s6). */
__kernel void pool_avg_fwd(global const DT *x, long8 xg, global DT *y, long8 yg, int16 g, int8 g2,
                           long dvo, int cl)
{
    long total = (long)g.s0 * g.s1 * g.s5 * g.s6 * g.s7;
    for (long i = get_global_id(0); i < total; i += get_global_size(0)) {
        SPLIT5(i, g.s1, g.s5, g.s6, g.s7, n, c, oz, oy, ox)
        int zl, zh, zf, yl, yh, yf, xl, xh, xf;
        avg_win((int)oz, g.s2, g.s5, g.s8, g.sb, g.se, g2.s6, &zl, &zh, &zf);
        avg_win((int)oy, g.s3, g.s6, g.s9, g.sc, g.sf, g2.s6, &yl, &yh, &yf);
        avg_win((int)ox, g.s4, g.s7, g.sa, g.sd, g2.s0, g2.s6, &xl, &xh, &xf);
        long dv = avg_div((int)oz, (int)oy, (int)ox, g, g2, dvo);
        CT acc = 0;
        for (int zz = zl; zz < zh; zz++)
            for (int yy = yl; yy < yh; yy++)
                for (int xx = xl; xx < xh; xx++)
                    acc += LD(x, AT(xg, n, c, zz, yy, xx));
        ST(y, AT(yg, n, c, oz, oy, ox), dv ? acc / (CT)dv : (CT)0);
    }
}

/* average pooling backward: each input element sums grad / divisor over
 * the windows covering it. */
__kernel void pool_avg_bwd(global const DT *go, long8 gg, global DT *gi, long8 og, int16 g,
                           int8 g2, long dvo, int cl)
{
    long total = (long)g.s0 * g.s1 * g.s2 * g.s3 * g.s4;
    for (long i = get_global_id(0); i < total; i += get_global_size(0)) {
        SPLIT5(i, g.s1, g.s2, g.s3, g.s4, n, c, iz, iy, ixx)
        int zf, zc, yf, yc, xf, xc;
        cover((int)iz, g.s2, g.s5, g.s8, g.sb, g.se, 1, g2.s6, &zf, &zc);
        cover((int)iy, g.s3, g.s6, g.s9, g.sc, g.sf, 1, g2.s6, &yf, &yc);
        cover((int)ixx, g.s4, g.s7, g.sa, g.sd, g2.s0, 1, g2.s6, &xf, &xc);
        CT acc = 0;
        for (int a = 0; a < zc; a++) {
            int oz = cover_at(a, zf, (int)iz, g.s5, g.sb, g.se, 1, g2.s6);
            if (oz < 0)
                continue;
            for (int b = 0; b < yc; b++) {
                int oy = cover_at(b, yf, (int)iy, g.s6, g.sc, g.sf, 1, g2.s6);
                if (oy < 0)
                    continue;
                for (int e = 0; e < xc; e++) {
                    int ox = cover_at(e, xf, (int)ixx, g.s7, g.sd, g2.s0, 1, g2.s6);
                    if (ox < 0)
                        continue;
                    long dv = avg_div(oz, oy, ox, g, g2, dvo);
                    if (dv)
                        acc += LD(go, AT(gg, n, c, oz, oy, ox)) / (CT)dv;
                }
            }
        }
        ST(gi, AT(og, n, c, iz, iy, ixx), acc);
    }
}

/* The taps of output o along one upsampled dim (mode 0 nearest, 1
 * bilinear, 2 bicubic): input indices (ascending, clamped) and weights;
 * returns their number.  PyTorch's formulas: nearest in float, the others
 * in CT with area_pixel_compute_source_index. */
inline int up_taps(int mode, int o, int I, int O, float nsc, CT sc, int ac, int *idx, CT *w)
{
    if (mode == 0) {
        int s = O == I ? o : O == 2 * I ? o >> 1 : min((int)floor((float)o * nsc), I - 1);
        idx[0] = s;
        w[0] = 1;
        return 1;
    }
    CT r = ac ? sc * (CT)o : sc * ((CT)o + (CT)0.5) - (CT)0.5;
    if (mode == 1 && r < 0)
        r = 0;
    int b = min((int)floor(r), I - 1);
    CT t = min(max(r - (CT)b, (CT)0), (CT)1);
    if (mode == 1) {
        idx[0] = b;
        idx[1] = b + (b < I - 1 ? 1 : 0);
        w[0] = (CT)1 - t;
        w[1] = t;
        return 2;
    }
    const CT A = (CT)-0.75;
    CT t1 = t + (CT)1, t2 = (CT)1 - t, t3 = (CT)2 - t;
    w[0] = ((A * t1 - (CT)5 * A) * t1 + (CT)8 * A) * t1 - (CT)4 * A;
    w[1] = ((A + (CT)2) * t - (A + (CT)3)) * t * t + (CT)1;
    w[2] = ((A + (CT)2) * t2 - (A + (CT)3)) * t2 * t2 + (CT)1;
    w[3] = ((A * t3 - (CT)5 * A) * t3 + (CT)8 * A) * t3 - (CT)4 * A;
    for (int q = 0; q < 4; q++)
        idx[q] = min(max(b - 1 + q, 0), I - 1);
    return 4;
}

/* Upsampling forward: g2.s7 the mode, g2.s4 align_corners; nsc/lsc the
 * (h, w) scales of the nearest and the linear/cubic formulas. */
__kernel void pool_up_fwd(global const DT *x, long8 xg, global DT *y, long8 yg, int16 g, int8 g2,
                          float2 nsc, CT2 lsc, int cl)
{
    long total = (long)g.s0 * g.s1 * g.s6 * g.s7;
    for (long i = get_global_id(0); i < total; i += get_global_size(0)) {
        SPLIT5(i, g.s1, 1, g.s6, g.s7, n, c, oz, oy, ox)
        int hy[4], hx[4];
        CT wy[4], wx[4];
        int ny = up_taps(g2.s7, (int)oy, g.s3, g.s6, nsc.x, lsc.x, g2.s4, hy, wy);
        int nx = up_taps(g2.s7, (int)ox, g.s4, g.s7, nsc.y, lsc.y, g2.s4, hx, wx);
        CT acc = 0;
        for (int a = 0; a < ny; a++) {
            CT r = 0;
            for (int b = 0; b < nx; b++)
                r += wx[b] * LD(x, AT(xg, n, c, 0, hy[a], hx[b]));
            acc += wy[a] * r;
        }
        ST(y, AT(yg, n, c, oz, oy, ox), acc);
    }
}

/* The outputs [*lo, *hi] whose taps along one dim may reach input i: the
 * first whose largest tap is >= i and the last whose smallest is <= i
 * (taps grow with o), found by bisection. */
inline void up_range(int mode, int i, int I, int O, float nsc, CT sc, int ac, int *lo, int *hi)
{
    int idx[4];
    CT w[4];
    int a = 0, b = O;
    while (a < b) {
        int m = (a + b) / 2;
        int k = up_taps(mode, m, I, O, nsc, sc, ac, idx, w);
        if (idx[k - 1] >= i)
            b = m;
        else
            a = m + 1;
    }
    *lo = a;
    a = 0;
    b = O;
    while (a < b) {
        int m = (a + b) / 2;
        up_taps(mode, m, I, O, nsc, sc, ac, idx, w);
        if (idx[0] <= i)
            a = m + 1;
        else
            b = m;
    }
    *hi = a - 1;
}

/* The summed weight of the taps of output o that land on input i; *hit
 * says whether any does. */
inline CT up_weight(int mode, int o, int i, int I, int O, float nsc, CT sc, int ac, int *hit)
{
    int idx[4];
    CT w[4], s = 0;
    int k = up_taps(mode, o, I, O, nsc, sc, ac, idx, w);
    *hit = 0;
    for (int q = 0; q < k; q++)
        if (idx[q] == i) {
            s += w[q];
            *hit = 1;
        }
    return s;
}

/* Upsampling backward: each input element sums grad * weight over the
 * outputs whose taps reach it (the w weights cached when few). */
#define UP_CACHE 16
__kernel void pool_up_bwd(global const DT *go, long8 gg, global DT *gi, long8 og, int16 g,
                          int8 g2, float2 nsc, CT2 lsc, int cl)
{
    long total = (long)g.s0 * g.s1 * g.s3 * g.s4;
    for (long i = get_global_id(0); i < total; i += get_global_size(0)) {
        SPLIT5(i, g.s1, 1, g.s3, g.s4, n, c, iz, iy, ixx)
        int ylo, yhi, xlo, xhi;
        up_range(g2.s7, (int)iy, g.s3, g.s6, nsc.x, lsc.x, g2.s4, &ylo, &yhi);
        up_range(g2.s7, (int)ixx, g.s4, g.s7, nsc.y, lsc.y, g2.s4, &xlo, &xhi);
        /* the w weights of up to UP_CACHE outputs, computed once */
        CT wxs[UP_CACHE];
        int hxs[UP_CACHE];
        bool cached = xhi - xlo < UP_CACHE;
        for (int q = 0; cached && q <= xhi - xlo; q++)
            wxs[q] = up_weight(g2.s7, xlo + q, (int)ixx, g.s4, g.s7, nsc.y, lsc.y, g2.s4, &hxs[q]);
        CT acc = 0;
        for (int oy = ylo; oy <= yhi; oy++) {
            int hy, hx;
            CT wy = up_weight(g2.s7, oy, (int)iy, g.s3, g.s6, nsc.x, lsc.x, g2.s4, &hy);
            if (!hy)
                continue;
            for (int ox = xlo; ox <= xhi; ox++) {
                CT wx;
                if (cached) {
                    wx = wxs[ox - xlo];
                    hx = hxs[ox - xlo];
                } else {
                    wx = up_weight(g2.s7, ox, (int)ixx, g.s4, g.s7, nsc.y, lsc.y, g2.s4, &hx);
                }
                if (hx)
                    acc += wy * wx * LD(go, AT(gg, n, c, 0, oy, ox));
            }
        }
        ST(gi, AT(og, n, c, iz, iy, ixx), acc);
    }
}

#ifdef CLOPS_CHUNKED
/* The taps of UP_XB outputs along W, computed once for every row and plane
 * of a work item (the CPU upsampling kernels). */
#define UP_XB 64
/* Upsampling forward on CPU devices: work items of one, `per` consecutive
 * (n, c) planes each, walked in blocks of UP_XB output columns (their taps
 * computed once per block for all the item's planes and rows), row by row;
 * bilinear rows as a loop without the tap loops.  The same arithmetic, in
 * the same order, as pool_up_fwd. */
__kernel __attribute__((reqd_work_group_size(1, 1, 1))) void
pool_up_fwd_cpu(global const DT *x, long8 xg, global DT *y, long8 yg, int16 g, int8 g2,
                float2 nsc, CT2 lsc, int cl, long planes, long per)
{
    const long p0 = (long)get_global_id(0) * per, p1 = min(p0 + per, planes);
    int hxs[4 * UP_XB];
    CT wxs[4 * UP_XB];
    for (int ox0 = 0; ox0 < g.s7; ox0 += UP_XB) {
        const int nb = min(UP_XB, g.s7 - ox0);
        int nx = 1;
        for (int q = 0; q < nb; q++)
            nx = up_taps(g2.s7, ox0 + q, g.s4, g.s7, nsc.y, lsc.y, g2.s4, hxs + 4 * q,
                         wxs + 4 * q);
        for (long p = p0; p < p1; p++) {
            const int n = (int)(p / g.s1), c = (int)(p % g.s1);
            const long xb = xg.s0 + n * xg.s1 + c * xg.s2;
            const long yb = yg.s0 + n * yg.s1 + c * yg.s2 + ox0 * yg.s5;
            for (int oy = 0; oy < g.s6; oy++) {
                int hy[4];
                CT wy[4];
                const int ny = up_taps(g2.s7, oy, g.s3, g.s6, nsc.x, lsc.x, g2.s4, hy, wy);
                global DT *yr = y + yb + oy * yg.s4;
                if (nx == 2 && ny == 2) {
                    global const DT *r0 = x + xb + hy[0] * xg.s4, *r1 = x + xb + hy[1] * xg.s4;
                    for (int q = 0; q < nb; q++) {
                        const long i0 = hxs[4 * q] * xg.s5, i1 = hxs[4 * q + 1] * xg.s5;
                        const CT w0 = wxs[4 * q], w1 = wxs[4 * q + 1];
                        CT s0 = 0, s1 = 0, acc = 0;
                        s0 += w0 * LD(r0, i0);
                        s0 += w1 * LD(r0, i1);
                        s1 += w0 * LD(r1, i0);
                        s1 += w1 * LD(r1, i1);
                        acc += wy[0] * s0;
                        acc += wy[1] * s1;
                        ST(yr, q * yg.s5, acc);
                    }
                    continue;
                }
                for (int q = 0; q < nb; q++) {
                    CT acc = 0;
                    for (int a = 0; a < ny; a++) {
                        global const DT *ra = x + xb + hy[a] * xg.s4;
                        CT r = 0;
                        for (int b = 0; b < nx; b++)
                            r += wxs[4 * q + b] * LD(ra, hxs[4 * q + b] * xg.s5);
                        acc += wy[a] * r;
                    }
                    ST(yr, q * yg.s5, acc);
                }
            }
        }
    }
}
#endif

#ifdef CLOPS_CHUNKED
/*
 * CPU devices, forward passes of inputs that are not channels-last (issue
 * 36): work items of one, `per` consecutive (n, c) planes each, outputs in
 * order, the plane's offsets taken once (the CLOPS_ITEMS and grid-stride
 * kernels split every output index by division and computed every tap's
 * offset from five strides).  The same taps, comparisons and sums in the
 * same order as pool_max_fwd and pool_avg_fwd: the same values and indices.
 */
#define PCAT_(a, b) a##b
#define PCAT(a, b) PCAT_(a, b)
/* Four outputs of one row at once where their windows lie inside the
 * input along W (fixed windows): lane j is output ox + j, the taps read as
 * 4-wide vectors and the running maxima updated by a vector select (the
 * scalar update was a branch mispredicted half the time on random data);
 * per lane the comparisons of pool_max_fwd in its order. */
__kernel __attribute__((reqd_work_group_size(1, 1, 1))) void
pool_max_fwd_planes_cpu(global const DT *x, long8 xg, global DT *y, long8 yg, global long *ix,
                        long8 ig, int16 g, int8 g2, int cl, long planes, long per)
{
    const long p0 = (long)get_global_id(0) * per, p1 = min(p0 + per, planes);
    /* outputs whose fixed window lies inside [0, W) along W */
    const int sx = g.sd, px = g2.s0, dx = g2.s3, kx = g.sa;
    const int oxlo = g2.s6 ? g.s7 : (px + sx - 1) / sx;
    const int oxhi = g2.s6 ? -1 : (g.s4 - 1 - (kx - 1) * dx + px) / sx; /* inclusive */
    for (long p = p0; p < p1; p++) {
        const int n = (int)(p / g.s1), c = (int)(p % g.s1);
        global const DT *xp = x + AT(xg, n, c, 0, 0, 0);
        const long yb = AT(yg, n, c, 0, 0, 0), ib = AT(ig, n, c, 0, 0, 0);
        for (int oz = 0; oz < g.s5; oz++)
            for (int oy = 0; oy < g.s6; oy++) {
                for (int ox = 0; ox < g.s7;) {
                    if (ox >= oxlo && ox + 3 <= oxhi && g.s4 - 1 - (kx - 1) * dx + px >= 0) {
                        MAX_WINDOW(oz, oy, ox)
                        PCAT(CT, 4) m = (PCAT(CT, 4))(-(CT)INFINITY);
                        /* idx32: 3 * sx <= W - 1 + pw < 2^31 on this path (ox + 3 <= oxhi),
                           W and pw checked to fit int in ops/pool/pool.c (pool_run) */
                        const long4 lane = (long4)(0, sx, 2 * sx, 3 * sx);
                        long4 best = (long4)(((long)z0 * g.s3 + y0) * g.s4 + x0) + lane;
                        for (int a = 0; a < zn; a++) {
                            int zz = z0 + a * zs;
                            if (zz >= g.s2)
                                break;
                            for (int b = 0; b < yn; b++) {
                                int yy = y0 + b * ys;
                                if (yy >= g.s3)
                                    break;
                                global const DT *xr = xp + zz * xg.s3 + yy * xg.s4;
                                for (int e = 0; e < xn; e++) {
                                    int xx = x0 + e * xs;
                                    PCAT(CT, 4)
                                    v = (PCAT(CT, 4))(LD(xr, xx * xg.s5),
                                                      LD(xr, (xx + sx) * xg.s5),
                                                      /* idx32: xx + 3 * sx <= W - 1 + pw < 2^31 on this path (ox + 3 <= oxhi),
                                                         W and pw checked to fit int in ops/pool/pool.c (pool_run) */
                                                      LD(xr, (xx + 2 * sx) * xg.s5),
                                                      LD(xr, (xx + 3 * sx) * xg.s5));
                                    __typeof__(v > m) take = (v > m) | isnan(v);
                                    m = select(m, v, take);
                                    best = select(best,
                                                  (long4)(((long)zz * g.s3 + yy) * g.s4 + xx) +
                                                      lane,
                                                  convert_long4(take));
                                }
                            }
                        }
                        const long yo = yb + oz * yg.s3 + oy * yg.s4;
                        const long io = ib + oz * ig.s3 + oy * ig.s4;
                        ST(y, yo + ox * yg.s5, m.s0);
                        ST(y, yo + (ox + 1) * yg.s5, m.s1);
                        ST(y, yo + (ox + 2) * yg.s5, m.s2);
                        ST(y, yo + (ox + 3) * yg.s5, m.s3);
                        ix[io + ox * ig.s5] = best.s0;
                        ix[io + (ox + 1) * ig.s5] = best.s1;
                        ix[io + (ox + 2) * ig.s5] = best.s2;
                        ix[io + (ox + 3) * ig.s5] = best.s3;
                        ox += 4;
                        continue;
                    }
                    MAX_WINDOW(oz, oy, ox)
                    CT m = -(CT)INFINITY;
                    long best = ((long)z0 * g.s3 + y0) * g.s4 + x0;
                    for (int a = 0; a < zn; a++) {
                        int zz = z0 + a * zs;
                        if (zz >= g.s2)
                            break;
                        for (int b = 0; b < yn; b++) {
                            int yy = y0 + b * ys;
                            if (yy >= g.s3)
                                break;
                            global const DT *xr = xp + zz * xg.s3 + yy * xg.s4;
                            for (int e = 0; e < xn; e++) {
                                int xx = x0 + e * xs;
                                if (xx >= g.s4)
                                    break;
                                CT v = LD(xr, xx * xg.s5);
                                if (v > m || isnan(v)) {
                                    m = v;
                                    best = ((long)zz * g.s3 + yy) * g.s4 + xx;
                                }
                            }
                        }
                    }
                    ST(y, yb + oz * yg.s3 + oy * yg.s4 + ox * yg.s5, m);
                    ix[ib + oz * ig.s3 + oy * ig.s4 + ox * ig.s5] = best;
                    ox++;
                }
            }
    }
}

/* Average pooling forward by planes: PAVG_PL planes at once, each its own
 * sum in pool_avg_fwd's order (independent chains, so the adds overlap:
 * [2, 2048, 7, 7] to 1x1 was one add's latency per element), the window
 * computed once for the block; a block past the item's last plane repeats
 * that plane and stores nothing for it. */
#define PAVG_PL 4
__kernel __attribute__((reqd_work_group_size(1, 1, 1))) void
pool_avg_fwd_cpu(global const DT *x, long8 xg, global DT *y, long8 yg, int16 g, int8 g2,
                 long dvo, int cl, long planes, long per)
{
    const long p0 = (long)get_global_id(0) * per, p1 = min(p0 + per, planes);
    for (long pb = p0; pb < p1; pb += PAVG_PL) {
        long xb[PAVG_PL], yb[PAVG_PL];
        for (int k = 0; k < PAVG_PL; k++) {
            const long p = min(pb + k, p1 - 1);
            const int n = (int)(p / g.s1), c = (int)(p % g.s1);
            xb[k] = AT(xg, n, c, 0, 0, 0);
            yb[k] = AT(yg, n, c, 0, 0, 0);
        }
        for (int oz = 0; oz < g.s5; oz++)
            for (int oy = 0; oy < g.s6; oy++)
                for (int ox = 0; ox < g.s7; ox++) {
                    int zl, zh, zf, yl, yh, yf, xl, xh, xf;
                    avg_win(oz, g.s2, g.s5, g.s8, g.sb, g.se, g2.s6, &zl, &zh, &zf);
                    avg_win(oy, g.s3, g.s6, g.s9, g.sc, g.sf, g2.s6, &yl, &yh, &yf);
                    avg_win(ox, g.s4, g.s7, g.sa, g.sd, g2.s0, g2.s6, &xl, &xh, &xf);
                    long dv = avg_div(oz, oy, ox, g, g2, dvo);
                    CT acc[PAVG_PL];
                    for (int k = 0; k < PAVG_PL; k++)
                        acc[k] = 0;
                    for (int zz = zl; zz < zh; zz++)
                        for (int yy = yl; yy < yh; yy++) {
                            const long r = zz * xg.s3 + yy * xg.s4;
                            for (int xx = xl; xx < xh; xx++)
                                for (int k = 0; k < PAVG_PL; k++)
                                    acc[k] += LD(x, xb[k] + r + xx * xg.s5);
                        }
                    const long o = oz * yg.s3 + oy * yg.s4 + ox * yg.s5;
                    for (int k = 0; k < PAVG_PL && pb + k < p1; k++)
                        ST(y, yb[k] + o, dv ? acc[k] / (CT)dv : (CT)0);
                }
    }
}
#endif

#ifdef CLOPS_CHUNKED
/*
 * CPU devices, channels-last max pooling forward (issue 19), every dtype
 * (the host picks it for any channels-last input): work items of one,
 * each taking `per` consecutive output positions (n, oz, oy, ox); for
 * each block of POOL_CB channels it walks the window's taps in the order
 * of pool_max_fwd and updates every channel's running maximum and index at
 * once (neighbouring channels are neighbouring elements, so the channel
 * loop is a vector loop).  The same comparisons in the same order per
 * channel as pool_max_fwd: the same values and indices.
 */
#define POOL_CB 64
#if KIND == 0
/* Channels cv.. cv + W - 1 of output position (n, oz, oy, ox) as W-wide
 * vectors, while W channels are left (channels-last input).  The indices
 * are kept in the comparison's lane type (int for float: planes of at
 * most INT_MAX elements, `small`), so a tap's blend needs no widening of
 * the mask (the widening to long was half of the loop: perf, 2-core VM),
 * and widened to long once at the end. */
#define POOL_MAXC_BLOCK(W)                                                                   \
    for (; xg.s2 == 1 && small && cv + (W) <= g.s1; cv += (W)) {                             \
        PCAT(CT, W) mv = (PCAT(CT, W))(-(CT)INFINITY);                                       \
        __typeof__(mv > mv) bv = (__typeof__(mv > mv))first;                                 \
        for (int a = 0; a < zn; a++) {                                                       \
            int zz = z0 + a * zs;                                                            \
            if (zz >= g.s2)                                                                  \
                break;                                                                       \
            for (int b = 0; b < yn; b++) {                                                   \
                int yy = y0 + b * ys;                                                        \
                if (yy >= g.s3)                                                              \
                    break;                                                                   \
                for (int e = 0; e < xn; e++) {                                               \
                    int xx = x0 + e * xs;                                                    \
                    if (xx >= g.s4)                                                          \
                        break;                                                               \
                    PCAT(CT, W) v = PCAT(vload, W)(0, x + AT(xg, n, cv, zz, yy, xx));        \
                    __typeof__(v > mv) take = (v > mv) | isnan(v);                           \
                    mv = select(mv, v, take);                                                \
                    bv = select(bv, (__typeof__(bv))((zz * g.s3 + yy) * g.s4 + xx), take);   \
                }                                                                            \
            }                                                                                \
        }                                                                                    \
        CT mo[W];                                                                            \
        long bo[W];                                                                          \
        PCAT(vstore, W)(mv, 0, mo);                                                          \
        PCAT(vstore, W)(PCAT(convert_long, W)(bv), 0, bo);                                   \
        for (int j = 0; j < (W); j++) {                                                      \
            ST(y, AT(yg, n, cv + j, oz, oy, ox), mo[j]);                                     \
            ix[AT(ig, n, cv + j, oz, oy, ox)] = bo[j];                                       \
        }                                                                                    \
    }
#endif
__kernel __attribute__((reqd_work_group_size(1, 1, 1))) void
pool_max_fwd_cpu(global const DT *x, long8 xg, global DT *y, long8 yg, global long *ix, long8 ig,
                 int16 g, int8 g2, int cl, long units, long per)
{
    CT m[POOL_CB];
    long best[POOL_CB];
    const long u0 = (long)get_global_id(0) * per, u1 = min(u0 + per, units);
    for (long u = u0; u < u1; u++) {
        long r = u;
        const int ox = (int)(r % g.s7);
        r /= g.s7;
        const int oy = (int)(r % g.s6);
        r /= g.s6;
        const int oz = (int)(r % g.s5);
        const int n = (int)(r / g.s5);
        MAX_WINDOW(oz, oy, ox)
        const long first = ((long)z0 * g.s3 + y0) * g.s4 + x0;
        int cv = 0;
#if KIND == 0
        const bool small = (long)g.s2 * g.s3 * g.s4 <= INT_MAX;
        /* float and double: blocks of 16, then 8, channels in registers
         * (the running maxima and indices of the block below live on the
         * stack, stored and reloaded at every tap), the taps innermost;
         * the same comparisons per channel in the same order.  16 channels
         * are two independent vector chains per tap: with 8 the loop waited
         * on each tap's compare and blend (perf, 2-core VM). */
        POOL_MAXC_BLOCK(16)
        POOL_MAXC_BLOCK(8)
#endif
        for (int c0 = cv; c0 < g.s1; c0 += POOL_CB) {
            const int cn = min(POOL_CB, g.s1 - c0);
            for (int j = 0; j < cn; j++) {
                m[j] = -(CT)INFINITY;
                best[j] = first;
            }
            for (int a = 0; a < zn; a++) {
                int zz = z0 + a * zs;
                if (zz >= g.s2)
                    break;
                for (int b = 0; b < yn; b++) {
                    int yy = y0 + b * ys;
                    if (yy >= g.s3)
                        break;
                    for (int e = 0; e < xn; e++) {
                        int xx = x0 + e * xs;
                        if (xx >= g.s4)
                            break;
                        const long tap = ((long)zz * g.s3 + yy) * g.s4 + xx;
                        const long at = AT(xg, n, c0, zz, yy, xx);
                        for (int j = 0; j < cn; j++) {
                            CT v = LD(x, at + j * xg.s2);
                            bool take = v > m[j] || isnan(v);
                            m[j] = take ? v : m[j];
                            best[j] = take ? tap : best[j];
                        }
                    }
                }
            }
            for (int j = 0; j < cn; j++) {
                ST(y, AT(yg, n, c0 + j, oz, oy, ox), m[j]);
                ix[AT(ig, n, c0 + j, oz, oy, ox)] = best[j];
            }
        }
    }
}
#endif

#if defined(CLOPS_CHUNKED) && KIND == 0
/*
 * CPU devices, float and double (issue 19): the backward passes scatter
 * instead of gathering.  Work items of one, each taking `per` consecutive
 * (n, c) planes: it zeroes the plane of grad_input, then walks the plane's
 * outputs in order adding each gradient into the inputs it came from, so
 * every sum is taken in one fixed order (the outputs' order, as PyTorch's
 * CPU kernels do) with no atomics, and an input costs nothing per window
 * that does not pick it.  The host uses these when there are enough planes
 * to share among the cores (a shape-only choice).
 */

/* Zeroes plane (n, c) of gi: one run when the plane is dense (a loop the
 * compiler vectorises), else row by row. */
inline void zero_plane(global DT *gi, long8 og, int n, int c, int16 g)
{
    global DT *pl = gi + AT(og, n, c, 0, 0, 0);
    if (og.s5 == 1 && og.s4 == g.s4 && og.s3 == (long)g.s3 * g.s4) {
        const long sz = (long)g.s2 * g.s3 * g.s4;
        for (long i = 0; i < sz; i++)
            pl[i] = (DT)0;
        return;
    }
    for (int z = 0; z < g.s2; z++)
        for (int y = 0; y < g.s3; y++) {
            global DT *r = pl + z * og.s3 + y * og.s4;
            for (int x = 0; x < g.s4; x++)
                r[x * og.s5] = (DT)0;
        }
}

/* Whether v is one of the taps (start, step, count) of a window. */
inline bool in_win(int v, int start, int step, int count)
{
    int d = v - start;
    return d >= 0 && d % step == 0 && d / step < count;
}

/* in_win for a step of 1 (no division). */
inline bool in_win1(int v, int start, int step, int count)
{
    return step == 1 ? v >= start && v - start < count : in_win(v, start, step, count);
}

/* max pooling backward: gi[index of output o] += go[o], where the index
 * lies in o's window (as the gather kernel: other indices add nothing).
 * The index is decoded without dividing (its row below), its depth (3-D
 * only) by division. */
__kernel __attribute__((reqd_work_group_size(1, 1, 1))) void
pool_max_bwd_cpu(global const DT *go, long8 gg, global const long *ix, long8 ig, global DT *gi,
                 long8 og, int16 g, int8 g2, int cl, long planes, long per)
{
    const long p0 = (long)get_global_id(0) * per, p1 = min(p0 + per, planes);
    const long hw = (long)g.s3 * g.s4, isz = (long)g.s2 * hw;
    const float rw = 1.0f / (float)g.s4;
    const bool small = hw < (1L << 22);
    for (long p = p0; p < p1; p++) {
        const int n = (int)(p / g.s1), c = (int)(p % g.s1);
        zero_plane(gi, og, n, c, g);
        const long gb = gg.s0 + n * gg.s1 + c * gg.s2, ib = ig.s0 + n * ig.s1 + c * ig.s2;
        const long ob = og.s0 + n * og.s1 + c * og.s2;
        for (int oz = 0; oz < g.s5; oz++) {
            int z0, zs, zn;
            win(oz, g.s2, g.s5, g.s8, g.sb, g.se, g2.s1, g2.s6, &z0, &zs, &zn);
            const bool z0in = in_win(0, z0, zs, zn);
            for (int oy = 0; oy < g.s6; oy++) {
                int y0, ys, yn;
                win(oy, g.s3, g.s6, g.s9, g.sc, g.sf, g2.s2, g2.s6, &y0, &ys, &yn);
                const long io = ib + oz * ig.s3 + oy * ig.s4, go_ = gb + oz * gg.s3 + oy * gg.s4;
                for (int ox = 0; ox < g.s7; ox++) {
                    const long t = ix[io + ox * ig.s5];
                    if (t < 0 || t >= isz)
                        continue;
                    int z = 0;
                    long r = t;
                    if (g.s2 > 1) {
                        z = (int)(t / hw);
                        r = t - z * hw;
                        if (!in_win(z, z0, zs, zn))
                            continue;
                    } else if (!z0in) {
                        continue;
                    }
                    /* the row: r / width, in planes under 2^22 elements
                     * by a multiply by the float reciprocal and a
                     * correction of one either way (exact there), else by
                     * division; a search of the window's rows (the index
                     * lies in one at random) cost a mispredicted branch
                     * per output (perf: a third of the kernel's samples) */
                    long y = small ? (long)((float)r * rw) : r / g.s4;
                    y -= y * g.s4 > r;
                    y += (y + 1) * g.s4 <= r;
                    if (!in_win1((int)y, y0, ys, yn))
                        continue;
                    const int x = (int)(r - y * g.s4);
                    int x0, xs, xn;
                    win(ox, g.s4, g.s7, g.sa, g.sd, g2.s0, g2.s3, g2.s6, &x0, &xs, &xn);
                    if (!in_win1(x, x0, xs, xn))
                        continue;
                    const long at = ob + z * og.s3 + y * og.s4 + x * og.s5;
                    gi[at] = (DT)(gi[at] + go[go_ + ox * gg.s5]);
                }
            }
        }
    }
}

/* average pooling backward: go[o] / divisor into every input of o's
 * window (clamped to the input, as in the forward). */
__kernel __attribute__((reqd_work_group_size(1, 1, 1))) void
pool_avg_bwd_cpu(global const DT *go, long8 gg, global DT *gi, long8 og, int16 g, int8 g2,
                 long dvo, int cl, long planes, long per)
{
    const long p0 = (long)get_global_id(0) * per, p1 = min(p0 + per, planes);
    for (long p = p0; p < p1; p++) {
        const int n = (int)(p / g.s1), c = (int)(p % g.s1);
        zero_plane(gi, og, n, c, g);
        for (int oz = 0; oz < g.s5; oz++) {
            int zl, zh, zf;
            avg_win(oz, g.s2, g.s5, g.s8, g.sb, g.se, g2.s6, &zl, &zh, &zf);
            for (int oy = 0; oy < g.s6; oy++) {
                int yl, yh, yf;
                avg_win(oy, g.s3, g.s6, g.s9, g.sc, g.sf, g2.s6, &yl, &yh, &yf);
                for (int ox = 0; ox < g.s7; ox++) {
                    const long dv = avg_div(oz, oy, ox, g, g2, dvo);
                    if (!dv)
                        continue;
                    int xl, xh, xf;
                    avg_win(ox, g.s4, g.s7, g.sa, g.sd, g2.s0, g2.s6, &xl, &xh, &xf);
                    const CT v = go[AT(gg, n, c, oz, oy, ox)] / (CT)dv;
                    for (int zz = zl; zz < zh; zz++)
                        for (int yy = yl; yy < yh; yy++)
                            for (int xx = xl; xx < xh; xx++) {
                                const long at = AT(og, n, c, zz, yy, xx);
                                gi[at] = (DT)(gi[at] + v);
                            }
                }
            }
        }
    }
}
/* Upsampling backward: go[o] * (y weight x x weight) into each tap of o,
 * the outputs of a plane in order (a row's taps once per row, the W taps
 * once per item when a row has at most UP_XMAX outputs; bilinear without
 * the tap loops): the same terms added in the same order as before. */
#define UP_XMAX 256
__kernel __attribute__((reqd_work_group_size(1, 1, 1))) void
pool_up_bwd_cpu(global const DT *go, long8 gg, global DT *gi, long8 og, int16 g, int8 g2,
                float2 nsc, CT2 lsc, int cl, long planes, long per)
{
    const long p0 = (long)get_global_id(0) * per, p1 = min(p0 + per, planes);
    int hxs[4 * UP_XMAX];
    CT wxs[4 * UP_XMAX];
    const bool pre = g.s7 <= UP_XMAX;
    for (int ox = 0; pre && ox < g.s7; ox++)
        up_taps(g2.s7, ox, g.s4, g.s7, nsc.y, lsc.y, g2.s4, hxs + 4 * ox, wxs + 4 * ox);
    for (long p = p0; p < p1; p++) {
        const int n = (int)(p / g.s1), c = (int)(p % g.s1);
        zero_plane(gi, og, n, c, g);
        const long gb = gg.s0 + n * gg.s1 + c * gg.s2, ib = og.s0 + n * og.s1 + c * og.s2;
        for (int oy = 0; oy < g.s6; oy++) {
            int hy[4];
            CT wy[4];
            const int ny = up_taps(g2.s7, oy, g.s3, g.s6, nsc.x, lsc.x, g2.s4, hy, wy);
            global const DT *gr = go + gb + oy * gg.s4;
            if (pre && g2.s7 == 1 && ny == 2) {
                global DT *r0 = gi + ib + hy[0] * og.s4, *r1 = gi + ib + hy[1] * og.s4;
                for (int ox = 0; ox < g.s7; ox++) {
                    const long i0 = hxs[4 * ox] * og.s5, i1 = hxs[4 * ox + 1] * og.s5;
                    const CT w0 = wxs[4 * ox], w1 = wxs[4 * ox + 1];
                    const CT v = gr[ox * gg.s5];
                    r0[i0] = (DT)(r0[i0] + wy[0] * w0 * v);
                    r0[i1] = (DT)(r0[i1] + wy[0] * w1 * v);
                    r1[i0] = (DT)(r1[i0] + wy[1] * w0 * v);
                    r1[i1] = (DT)(r1[i1] + wy[1] * w1 * v);
                }
                continue;
            }
            for (int ox = 0; ox < g.s7; ox++) {
                int hx[4];
                CT wx[4];
                int nx;
                if (pre) {
                    nx = g2.s7 == 0 ? 1 : g2.s7 == 1 ? 2 : 4;
                    for (int b = 0; b < nx; b++) {
                        hx[b] = hxs[4 * ox + b];
                        wx[b] = wxs[4 * ox + b];
                    }
                } else {
                    nx = up_taps(g2.s7, ox, g.s4, g.s7, nsc.y, lsc.y, g2.s4, hx, wx);
                }
                const CT v = gr[ox * gg.s5];
                for (int a = 0; a < ny; a++)
                    for (int b = 0; b < nx; b++) {
                        const long at = ib + hy[a] * og.s4 + hx[b] * og.s5;
                        gi[at] = (DT)(gi[at] + wy[a] * wx[b] * v);
                    }
            }
        }
    }
}
#endif
