/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cl_kernels/norm.cl: the row-resident kernels of the normalization family:
 * _softmax, _log_softmax and their backward ops (ops/norm/norm.c).
 *
 * The host builds one program per (input dtype, output dtype) with TIN_T,
 * TOUT_T (storage types), IN_KIND/OUT_KIND (0 float/double, 1 half, 2
 * bfloat16) and CT (compute type: float, or double for float64) defined.
 * A row is `n` elements at stride `st` from its base; rows are numbered
 * r = a * inner + b with base a * n * inner + b (a contiguous tensor
 * reduced over one dim).  L lanes (a power of two) work on each row, RWG/L
 * rows per work-group: pass 1 folds the row into an online (max, sum of
 * exp) state per lane (softmax) or a sum (backward), merged by a tree in
 * local memory and shared through it; pass 2 reads the row again and
 * writes the result.  The order of operations is fixed by the shape.
 */
#define LDX(p, i) CLOPS_LD(IN_KIND, CT, p, i)
#define LDY(p, i) CLOPS_LD(OUT_KIND, CT, p, i)
#define STY(p, i, v) CLOPS_ST(OUT_KIND, TOUT_T, CT, p, i, v)

/* Online max and sum of exp(x - max), as logsumexp in reduce.cl. */
#define SM_ADD(m, s, x)                                                                    \
    do {                                                                                   \
        CT x_ = (x);                                                                       \
        if (isnan(x_)) {                                                                   \
            m = x_;                                                                        \
        } else if (!isnan(m) && x_ != -(CT)INFINITY) {                                     \
            if (x_ > m) {                                                                  \
                s = s * exp(m - x_) + (CT)1;                                               \
                m = x_;                                                                    \
            } else if (m != (CT)INFINITY) {                                                \
                s += exp(x_ - m);                                                          \
            }                                                                              \
        }                                                                                  \
    } while (0)
#define SM_MERGE(m, s, bm, bs)                                                             \
    do {                                                                                   \
        if (isnan(bm)) {                                                                   \
            m = bm;                                                                        \
        } else if (!isnan(m) && (bm) != -(CT)INFINITY) {                                   \
            if (m == -(CT)INFINITY) {                                                      \
                m = bm;                                                                    \
                s = bs;                                                                    \
            } else if (m == (CT)INFINITY || (bm) == (CT)INFINITY) {                        \
                m = (CT)INFINITY;                                                          \
            } else if (m >= (bm)) {                                                        \
                s += (bs) * exp((bm) - m);                                                 \
            } else {                                                                       \
                s = s * exp(m - (bm)) + (bs);                                              \
                m = bm;                                                                    \
            }                                                                              \
        }                                                                                  \
    } while (0)

/* Row geometry shared by the kernels: row index, base, lane. */
#define NORM_ROW                                                                           \
    int lid = (int)get_local_id(0);                                                        \
    int lane = lid & (L - 1);                                                              \
    long row = (long)get_group_id(0) * (RWG / L) + lid / L;                                \
    bool live = row < rows;                                                                \
    long base = live ? (row / inner) * n * inner + row % inner : 0;

/* Merges the Welford state (bn, bm, bm2) — count, mean, sum of squared
 * deviations — into (cnt, m, m2) by Chan's formula. */
#define NORM_CHAN_MERGE(cnt, m, m2, bn, bm, bm2)                                           \
    do {                                                                                   \
        if ((cnt) == 0) {                                                                  \
            m = (bm);                                                                      \
            m2 = (bm2);                                                                    \
            cnt = (bn);                                                                    \
        } else {                                                                           \
            long nn_ = (cnt) + (bn);                                                       \
            CT d_ = (bm) - m, f_ = (CT)(bn) / (CT)nn_;                                     \
            m += d_ * f_;                                                                  \
            m2 += (bm2) + d_ * d_ * (CT)(cnt) * f_;                                        \
            cnt = nn_;                                                                     \
        }                                                                                  \
    } while (0)

/* The per-channel weight index of element j of row `row`: j itself for
 * layer and rms norm (G = D = 1); for group norm's rows of C / group * HxW
 * elements (G = group, D = HxW) the channel (row % G) * (n / D) + j / D:
 * NORM_WIDX(NORM_WBASE(row, G, D, n), j, D, n), the base once per row. */
#define NORM_WBASE(row, G, D, n) ((G) == 1 ? 0 : ((row) % (G)) * ((n) / (D)))
#define NORM_WIDX(wb, j, D, n)                                                             \
    ((wb) + ((D) == 1 ? (j) : (n) <= 0xffffffffL ? (long)((uint)(j) / (uint)(D)) : (j) / (D)))

/* Row residency of softmax: where RES > 0 (ops/norm/norm.c sizes it to the
 * device's local memory, for 4- and 8-byte inputs) and a row has at most
 * L * RES elements, the row stays in local memory (RES slots per lane of
 * the work-group) between the statistics pass and the output pass, so it
 * is read from global memory once.  The arithmetic and its order are those
 * of the streaming loop, so both paths give the same bits. */
#ifndef RES
#define RES 0
#endif
#if RES > 0
#define RES_FITS(n, L, ok) ((ok) && (n) <= (long)(L) * RES)
#else
#define RES_FITS(n, L, ok) 0
#endif

/* softmax (logm & 1 = 0) or log_softmax (logm & 1) over rows of n
 * elements; logm & 2 allows the resident path. */
__kernel __attribute__((reqd_work_group_size(RWG, 1, 1))) void
norm_softmax(global const TIN_T *x, long xoff, global TOUT_T *y, long yoff, long rows, long n,
             long inner, int L, int logm)
{
    local CT lm[RWG], ls[RWG];
    NORM_ROW
    CT m = -(CT)INFINITY, s = (CT)0;
#if RES > 0
    local CT rowbuf[RWG * RES];
    local CT *rb = rowbuf + (lid - lane) * RES;
    bool fits = RES_FITS(n, L, logm & 2);
#endif
    if (live)
        for (long j = lane; j < n; j += L) {
            CT v = LDX(x, xoff + base + j * inner);
#if RES > 0
            if (fits)
                rb[j] = v;
#endif
            SM_ADD(m, s, v);
        }
    lm[lid] = m;
    ls[lid] = s;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int h = L / 2; h > 0; h >>= 1) {
        if (lane < h) {
            SM_MERGE(m, s, lm[lid + h], ls[lid + h]);
            lm[lid] = m;
            ls[lid] = s;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    m = lm[lid - lane];
    s = ls[lid - lane];
    /* An infinite maximum makes PyTorch's sum of exp(x - max) NaN. */
    if (m == (CT)INFINITY)
        s = (CT)NAN;
    if (!live)
        return;
    CT ls_ = log(s);
    for (long j = lane; j < n; j += L) {
        long i = base + j * inner;
#if RES > 0
        CT v = (fits ? rb[j] : LDX(x, xoff + i)) - m;
#else
        CT v = LDX(x, xoff + i) - m;
#endif
        STY(y, yoff + i, (logm & 1) ? v - ls_ : exp(v) / s);
    }
}

/* Backward of softmax (logm = 0): g_in = y * (g - sum(g * y)); of
 * log_softmax (logm = 1): g_in = g - exp(y) * sum(g).  g and y have the
 * output's storage type (TIN_T here), the result TOUT_T. */
__kernel __attribute__((reqd_work_group_size(RWG, 1, 1))) void
norm_softmax_backward(global const TIN_T *g, long goff, global const TIN_T *yv, long yvoff,
                      global TOUT_T *out, long ooff, long rows, long n, long inner, int L,
                      int logm)
{
    local CT lsum[RWG];
    NORM_ROW
    CT acc = (CT)0;
    if (live)
        for (long j = lane; j < n; j += L) {
            long i = base + j * inner;
            CT gv = LDX(g, goff + i);
            acc += logm ? gv : gv * LDX(yv, yvoff + i);
        }
    lsum[lid] = acc;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int h = L / 2; h > 0; h >>= 1) {
        if (lane < h) {
            acc += lsum[lid + h];
            lsum[lid] = acc;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    acc = lsum[lid - lane];
    if (!live)
        return;
    for (long j = lane; j < n; j += L) {
        long i = base + j * inner;
        CT gv = LDX(g, goff + i), yy = LDX(yv, yvoff + i);
        STY(out, ooff + i, logm ? gv - exp(yy) * acc : yy * (gv - acc));
    }
}

/* layer_norm (flags & 4 == 0) or rms_norm (flags & 4) of rows of n
 * contiguous elements: y = (x - mean) * rstd * w + b, or x * rstd * w, with
 * rstd = 1 / sqrt(var + eps) (biased variance; Welford per lane, Chan's
 * merge) or 1 / sqrt(mean(x^2) + eps).  w and b (flags 1 and 2, contiguous
 * from woff and boff) are in the compute type; with flags & 8 the row's mean and rstd go to mean[row] and
 * rstd[row] (compute type). */
__kernel __attribute__((reqd_work_group_size(RWG, 1, 1))) void
norm_layer(global const TIN_T *x, long xoff, global const CT *w, long woff, global const CT *b,
           long boff, long G, long D, int flags,
           global TOUT_T *y, long yoff, global CT *mean, global CT *rstd, long rows, long n,
           int L, CT eps)
{
    local CT lmean[RWG], lm2[RWG];
    local long lcnt[RWG];
    long inner = 1;
    NORM_ROW
    bool rms = (flags & 4) != 0;
    CT m = (CT)0, m2 = (CT)0;
    long cnt = 0;
    if (live)
        for (long j = lane; j < n; j += L) {
            CT v = LDX(x, xoff + base + j);
            if (rms) {
                m2 += v * v;
            } else {
                cnt++;
                CT d = v - m;
                m += d / (CT)cnt;
                m2 += d * (v - m);
            }
        }
    lmean[lid] = m;
    lm2[lid] = m2;
    lcnt[lid] = cnt;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int h = L / 2; h > 0; h >>= 1) {
        if (lane < h) {
            CT bm = lmean[lid + h], bm2 = lm2[lid + h];
            long bn = lcnt[lid + h];
            if (rms) {
                m2 += bm2;
            } else if (bn > 0) {
                NORM_CHAN_MERGE(cnt, m, m2, bn, bm, bm2);
            }
            lmean[lid] = m;
            lm2[lid] = m2;
            lcnt[lid] = cnt;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    m = rms ? (CT)0 : lmean[lid - lane];
    CT var = lm2[lid - lane] / (CT)n;
    CT rs = (CT)1 / sqrt(var + eps);
    if (!live)
        return;
    if ((flags & 8) && lane == 0) {
        mean[row] = m;
        rstd[row] = rs;
    }
    long wb = NORM_WBASE(row, G, D, n);
    for (long j = lane; j < n; j += L) {
        CT v = (LDX(x, xoff + base + j) - m) * rs;
        long wj = NORM_WIDX(wb, j, D, n);
        if (flags & 1)
            v *= w[woff + wj];
        if (flags & 2)
            v += b[boff + wj];
        STY(y, yoff + base + j, v);
    }
}

/* ---- layer_norm and rms_norm with the row in registers (GPUs) ------------ */

#if !NORM_CPU
/* The most 4-element groups a lane of norm_layer_rr holds: rows of up to
 * L * 4 * RRV elements (the host picks L). */
#define RRV 8
/* Loads elements j .. j + 3 of row data p (compute type) into v0..v3: one
 * 16-byte (float), 8-byte (16-bit) or 32-byte (double) load where `vec`
 * (the host's: n % 4 == 0 and 4-element aligned offsets) and the group is
 * whole, else element by element with zeros past n. */
#if IN_KIND == 1
#define NORM_VLD4(p, j, v) vload_half4(0, (p) + (j))
#elif IN_KIND == 2
#define NORM_VLD4(p, j, v)                                                                 \
    ((ushort4)(*(global const ushort4 *)((p) + (j))))
#else
#define NORM_VLD4(p, j, v) (*(global const CLOPS_CAT(TIN_T, 4) *)((p) + (j)))
#endif
#define NORM_LD4(p, j, n, vec, v)                                                          \
    do {                                                                                   \
        if ((vec) && (j) + 3 < (n)) {                                                      \
            NORM_LD4_WHOLE(p, j, v);                                                       \
        } else {                                                                           \
            for (int c_ = 0; c_ < 4; c_++)                                                 \
                (v)[c_] = (j) + c_ < (n) ? LDX(p, (j) + c_) : (CT)0;                       \
        }                                                                                  \
    } while (0)
#if IN_KIND == 2
#define NORM_LD4_WHOLE(p, j, v)                                                            \
    do {                                                                                   \
        ushort4 u_ = NORM_VLD4(p, j, v);                                                   \
        (v)[0] = (CT)clops_bf16_to_float(u_.x);                                            \
        (v)[1] = (CT)clops_bf16_to_float(u_.y);                                            \
        (v)[2] = (CT)clops_bf16_to_float(u_.z);                                            \
        (v)[3] = (CT)clops_bf16_to_float(u_.w);                                            \
    } while (0)
#else
#define NORM_LD4_WHOLE(p, j, v)                                                            \
    do {                                                                                   \
        CLOPS_CAT(IN_VT, 4) u_ = NORM_VLD4(p, j, v);                                       \
        (v)[0] = (CT)u_.x;                                                                 \
        (v)[1] = (CT)u_.y;                                                                 \
        (v)[2] = (CT)u_.z;                                                                 \
        (v)[3] = (CT)u_.w;                                                                 \
    } while (0)
#endif
#if IN_KIND == 1
#define IN_VT float
#else
#define IN_VT TIN_T
#endif
/* Stores v[0..3] (compute type) into elements j .. j + 3 of y, as
 * NORM_LD4 loads. */
#if OUT_KIND == 1
#define NORM_ST4_WHOLE(p, j, v)                                                            \
    vstore_half4_rte((float4)((float)(v)[0], (float)(v)[1], (float)(v)[2], (float)(v)[3]), \
                     0, (p) + (j))
#elif OUT_KIND == 2
#define NORM_ST4_WHOLE(p, j, v)                                                            \
    (*(global ushort4 *)((p) + (j)) =                                                      \
         (ushort4)(clops_float_to_bf16((float)(v)[0]), clops_float_to_bf16((float)(v)[1]), \
                   clops_float_to_bf16((float)(v)[2]), clops_float_to_bf16((float)(v)[3])))
#else
#define NORM_ST4_WHOLE(p, j, v)                                                            \
    (*(global CLOPS_CAT(TOUT_T, 4) *)((p) + (j)) =                                         \
         (CLOPS_CAT(TOUT_T, 4))((TOUT_T)(v)[0], (TOUT_T)(v)[1], (TOUT_T)(v)[2],            \
                                (TOUT_T)(v)[3]))
#endif

/* The sum over a row's L lanes of each lane's s (every lane gets it), in
 * a fixed order: the lanes' values through l1, summed by every lane in
 * chunks of up to 32 lanes; with L > 32 each chunk's sum goes through l2
 * and those are summed in order.  Ends with a barrier (l1, l2 free). */
#define NORM_RR_SUM(s)                                                                     \
    do {                                                                                   \
        l1[lid] = s;                                                                       \
        barrier(CLK_LOCAL_MEM_FENCE);                                                      \
        int c_ = L < 32 ? L : 32, k0_ = lid & ~(c_ - 1);                                   \
        s = (CT)0;                                                                         \
        for (int i_ = 0; i_ < c_; i_++)                                                    \
            s += l1[k0_ + i_];                                                             \
        if (L > 32) {                                                                      \
            if ((lid & 31) == 0)                                                           \
                l2[lid >> 5] = s;                                                          \
            barrier(CLK_LOCAL_MEM_FENCE);                                                  \
            s = (CT)0;                                                                     \
            for (int i_ = 0; i_ < L / 32; i_++)                                            \
                s += l2[((lid - lane) >> 5) + i_];                                         \
        }                                                                                  \
        barrier(CLK_LOCAL_MEM_FENCE);                                                      \
    } while (0)

/*
 * layer_norm (flags & 4 == 0) or rms_norm (flags & 4) of rows of n <= L *
 * 4 * RRV contiguous elements, each row read once: L lanes per row (a
 * power of two up to RWG: 32, a warp, for GPT-2's 768), a lane holding
 * groups of 4 consecutive elements (group k at (k L + lane) 4), loaded as
 * one vector where flags & 128 (n % 4 == 0, aligned offsets: the host's;
 * its own bit: norm_layer_cpu's 16 means "the statistics alone").
 * Two passes over the registers: mean = sum(x) / n, then var = sum((x -
 * mean)^2) / n (biased; rms: mean(x^2)), rstd = 1 / sqrt(var + eps); each
 * sum a fixed order (NORM_RR_SUM): the same bits every run.  Then y = (x -
 * mean) * rstd * w + b as norm_layer; flags 1, 2, 8 as norm_layer's; with
 * flags & 32 w and b hold the input's storage type (TIN_T), with flags & 64
 * mean and rstd the output's (TOUT_T), in place of the compute type.
 */
__kernel __attribute__((reqd_work_group_size(RWG, 1, 1))) void
norm_layer_rr(global const TIN_T *x, long xoff, global const CT *w, long woff, global const CT *b,
              long boff, int flags, global TOUT_T *y, long yoff, global CT *mean,
              global CT *rstd, long rows, long n, int L, CT eps)
{
    local CT l1[RWG], l2[RWG / 32 > 0 ? RWG / 32 : 1];
    long inner = 1;
    NORM_ROW
    bool rms = (flags & 4) != 0, vec = (flags & 128) != 0;
    global const TIN_T *xr = x + xoff + base;
    CT v[4 * RRV];
    CT s = (CT)0;
#pragma unroll
    for (int k = 0; k < RRV; k++) {
        long j = ((long)k * L + lane) * 4;
        if (live && j < n)
            NORM_LD4(xr, j, n, vec, v + 4 * k);
        else
            v[4 * k] = v[4 * k + 1] = v[4 * k + 2] = v[4 * k + 3] = (CT)0;
        for (int c = 0; c < 4; c++)
            s += rms ? v[4 * k + c] * v[4 * k + c] : v[4 * k + c];
    }
    NORM_RR_SUM(s);
    CT m = (CT)0, q = s;
    if (!rms) {
        m = s / (CT)n;
        q = (CT)0;
#pragma unroll
        for (int k = 0; k < RRV; k++) {
            long j = ((long)k * L + lane) * 4;
            for (int c = 0; c < 4; c++) {
                CT d = v[4 * k + c] - m;
                if (j + c < n)
                    q += d * d;
            }
        }
        NORM_RR_SUM(q);
    }
    CT rs = (CT)1 / sqrt(q / (CT)n + eps);
    if (!live)
        return;
    if ((flags & 8) && lane == 0) {
        if (flags & 64) {
            STY((global TOUT_T *)mean, row, m);
            STY((global TOUT_T *)rstd, row, rs);
        } else {
            mean[row] = m;
            rstd[row] = rs;
        }
    }
    global TOUT_T *yr = y + yoff + base;
    global const TIN_T *wr = (global const TIN_T *)w, *br = (global const TIN_T *)b;
#pragma unroll
    for (int k = 0; k < RRV; k++) {
        long j = ((long)k * L + lane) * 4;
        if (j >= n)
            break;
        CT o[4];
        for (int c = 0; c < 4; c++) {
            long jc = j + c < n ? j + c : j;
            CT t = (v[4 * k + c] - m) * rs;
            if (flags & 1)
                t *= (flags & 32) ? LDX(wr, woff + jc) : w[woff + jc];
            if (flags & 2)
                t += (flags & 32) ? LDX(br, boff + jc) : b[boff + jc];
            o[c] = t;
        }
        if (vec && j + 3 < n) {
            NORM_ST4_WHOLE(yr, j, o);
        } else {
            for (int c = 0; c < 4; c++)
                if (j + c < n)
                    STY(yr, j + c, o[c]);
        }
    }
}
#endif /* !NORM_CPU */

/* ---- fused backward and channel kernels (issue 30) ------------------------ */

/* Merges the per-lane sums a, b of a row's L lanes (lanes of one row are
 * neighbours in the work-group) through l1, l2; every lane gets the row's
 * sums.  A fixed tree: the same bits every run. */
#define NORM_TREE2(l1, l2, a, b)                                                           \
    do {                                                                                   \
        l1[lid] = a;                                                                       \
        l2[lid] = b;                                                                       \
        barrier(CLK_LOCAL_MEM_FENCE);                                                      \
        for (int h_ = L / 2; h_ > 0; h_ >>= 1) {                                           \
            if (lane < h_) {                                                               \
                a += l1[lid + h_];                                                         \
                b += l2[lid + h_];                                                         \
                l1[lid] = a;                                                               \
                l2[lid] = b;                                                               \
            }                                                                              \
            barrier(CLK_LOCAL_MEM_FENCE);                                                  \
        }                                                                                  \
        a = l1[lid - lane];                                                                \
        b = l2[lid - lane];                                                                \
    } while (0)

#if !NORM_CPU
/*
 * The input gradient of layer norm (flags & 4 == 0) or rms norm (flags & 4)
 * in one kernel, L lanes per row of n contiguous elements: with gw = g * w
 * (flags & 1; w in the compute type, indexed by NORM_WIDX) and xhat =
 * (x - mean) * rstd (rms: x * rstd), pass 1 sums gw and gw * xhat per
 * lane, a tree merges them, pass 2 writes
 *   dx = rstd * (gw - sum(gw) / n - xhat * sum(gw * xhat) / n)
 * (rms: without the sum(gw) term).  mean and rstd: one compute-type value
 * per row, or (flags & 32) one of the input's storage type; w (flags & 64)
 * of the input's storage type.
 */
#define NORM_LDSTAT(p, i) ((flags & 32) ? LDX((global const TIN_T *)(p), i) : (p)[i])
#define NORM_LDW(p, i) ((flags & 64) ? LDX((global const TIN_T *)(p), i) : (p)[i])
__kernel __attribute__((reqd_work_group_size(RWG, 1, 1))) void
norm_layer_backward(global const TIN_T *g, long goff, global const TIN_T *x, long xoff,
                    global const CT *mean, long moff, global const CT *rstd, long roff,
                    global const CT *w, long woff, long G, long D, int flags, global TOUT_T *dx,
                    long dxoff, long rows, long n, int L)
{
    local CT l1[RWG], l2[RWG];
    long inner = 1;
    NORM_ROW
    bool rms = (flags & 4) != 0, hw = (flags & 1) != 0;
    CT mu = (CT)0, rs = (CT)0, s1 = (CT)0, s2 = (CT)0;
    long wb = NORM_WBASE(row, G, D, n);
    if (live) {
        mu = rms ? (CT)0 : NORM_LDSTAT(mean, moff + row);
        rs = NORM_LDSTAT(rstd, roff + row);
        for (long j = lane; j < n; j += L) {
            CT gv = LDX(g, goff + base + j);
            if (hw)
                gv *= NORM_LDW(w, woff + NORM_WIDX(wb, j, D, n));
            CT xh = (LDX(x, xoff + base + j) - mu) * rs;
            s1 += gv;
            s2 += gv * xh;
        }
    }
    NORM_TREE2(l1, l2, s1, s2);
    if (!live)
        return;
    CT a = rms ? (CT)0 : s1 / (CT)n, q = s2 / (CT)n;
    for (long j = lane; j < n; j += L) {
        CT gv = LDX(g, goff + base + j);
        if (hw)
            gv *= NORM_LDW(w, woff + NORM_WIDX(wb, j, D, n));
        CT xh = (LDX(x, xoff + base + j) - mu) * rs;
        STY(dx, dxoff + base + j, rs * (gv - a - xh * q));
    }
}

/*
 * Stage 1 of layer/rms norm's weight and bias gradients: item (p, j) sums
 * g * xhat and g over rows [p * R, (p + 1) * R) of column j into pw[p * n +
 * j] and pb[p * n + j] (flags & 2: the bias part too; flags & 4: rms, no
 * mean; flags & 32: mean and rstd of the input's storage type).  Neighbouring items read neighbouring columns.  The host folds the
 * P partials of a column in a fixed order (a sum over dim 0).
 */
__kernel void norm_layer_wgrad(global const TIN_T *g, long goff, global const TIN_T *x, long xoff,
                               global const CT *mean, long moff, global const CT *rstd,
                               long roff, int flags, global CT *pw, global CT *pb, long rows,
                               long n, long R)
{
    long gid = (long)get_global_id(0);
    long p = gid / n, j = gid - p * n;
    if (p * R >= rows)
        return;
    long r1 = min(rows, (p + 1) * R);
    bool rms = (flags & 4) != 0;
    CT sw = (CT)0, sb = (CT)0;
    for (long r = p * R; r < r1; r++) {
        CT gv = LDX(g, goff + r * n + j);
        CT xh = (LDX(x, xoff + r * n + j) - (rms ? (CT)0 : NORM_LDSTAT(mean, moff + r))) *
                NORM_LDSTAT(rstd, roff + r);
        sw += gv * xh;
        sb += gv;
    }
    pw[gid] = sw;
    if (flags & 2)
        pb[gid] = sb;
}

/*
 * Stage 1 of per-channel statistics over x seen as [A, C, S] (NCHW: [N, C,
 * H*W]; channels-last or 2-dim: [N*H*W, C, 1]): work-group (c, p) takes
 * part p of the A * S elements of channel c (P parts of E = ceil(A*S / P),
 * lanes striding by RWG).  mode 0: a Welford state per lane merged by
 * Chan's formula, the part's mean into o1[c * P + p] and its sum of squared
 * deviations into o2 (the count is the host's: the part's size); mode 1:
 * the sums of g and of g * (x - mu[c / mdiv]) (batch and group norm's
 * backward).  The order is fixed by the shape.
 */
__kernel __attribute__((reqd_work_group_size(RWG, 1, 1))) void
norm_chan_partial(global const TIN_T *x, long xoff, global const TIN_T *g, long goff,
                  global const CT *mu, long muoff, long mdiv, long A, long C, long S, long P,
                  int mode, global CT *o1, global CT *o2)
{
    local CT l1[RWG], l2[RWG];
    local long lc[RWG];
    int lid = (int)get_local_id(0);
    long grp = (long)get_group_id(0), c = grp / P, p = grp - c * P;
    long AS = A * S, CS = C * S, E = (AS + P - 1) / P, e = p * E + lid,
         e1 = min(AS, p * E + E);
    long a = e / S, s = e - a * S;
    global const TIN_T *xc = x + xoff + c * S;
    global const TIN_T *gc = g + goff + c * S;
    CT m = (CT)0, m2 = (CT)0, mc = mode ? mu[muoff + c / mdiv] : (CT)0;
    long cnt = 0;
    for (; e < e1; e += RWG) {
        long off = a * CS + s;
        CT v = LDX(xc, off);
        if (mode) {
            CT gv = LDX(gc, off);
            m += gv;
            m2 += gv * (v - mc);
        } else {
            cnt++;
            CT d = v - m;
            m += d / (CT)cnt;
            m2 += d * (v - m);
        }
        s += RWG;
        if (s >= S) {
            a += s / S;
            s %= S;
        }
    }
    l1[lid] = m;
    l2[lid] = m2;
    lc[lid] = cnt;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int h = RWG / 2; h > 0; h >>= 1) {
        if (lid < h) {
            CT bm = l1[lid + h], bm2 = l2[lid + h];
            long bn = lc[lid + h];
            if (mode) {
                m += bm;
                m2 += bm2;
            } else if (bn > 0) {
                NORM_CHAN_MERGE(cnt, m, m2, bn, bm, bm2);
            }
            l1[lid] = m;
            l2[lid] = m2;
            lc[lid] = cnt;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) {
        o1[grp] = m;
        o2[grp] = m2;
    }
}
#endif /* !NORM_CPU */

/*
 * Stage 2 of batch norm's forward, one item per channel: folds the P
 * partial (mean, m2) states of channel c (part p holding min(E, AS - p * E)
 * elements) in order by Chan's formula (flags & 4, training) or reads the
 * running stats (evaluation), then writes scale = invstd * w and shift = b
 * - mean * scale (flags 1 and 2: w, b given), in training the batch mean
 * and invstd, and with flags & 8 updates running_mean/running_var in place:
 * (1 - momentum) * running + momentum * stat, the variance unbiased (NaN
 * for one element, as PyTorch).  Everything in the compute type.
 */
__kernel void norm_chan_fold_fwd(global const CT *o1, global const CT *o2, long P, long AS, long C,
                                 int flags, CT eps, CT momentum, global const CT *w, long woff,
                                 global const CT *b, long boff, global CT *rm, long rmoff,
                                 global CT *rv, long rvoff, global CT *mean, global CT *invstd,
                                 global CT *scale, global CT *shift)
{
    CLOPS_ITEMS(long, c, C)
    {
        CT m = (CT)0, var;
        if (flags & 4) {
            long E = (AS + P - 1) / P, cnt = 0;
            CT m2 = (CT)0;
            for (long p = 0; p < P; p++) {
                long bn = min(E, AS - p * E);
                if (bn <= 0)
                    break;
                NORM_CHAN_MERGE(cnt, m, m2, bn, o1[c * P + p], o2[c * P + p]);
            }
            var = m2 / (CT)AS;
        } else {
            m = rm[rmoff + c];
            var = rv[rvoff + c];
        }
        CT inv = (CT)1 / sqrt(var + eps);
        CT sc = (flags & 1) ? inv * w[woff + c] : inv;
        CT sh = ((flags & 2) ? b[boff + c] : (CT)0) - m * sc;
        scale[c] = sc;
        shift[c] = sh;
        if (flags & 4) {
            mean[c] = m;
            invstd[c] = inv;
        }
        if (flags & 8) {
            CT u = AS > 1 ? var * ((CT)AS / (CT)(AS - 1)) : (CT)NAN;
            rm[rmoff + c] = ((CT)1 - momentum) * rm[rmoff + c] + momentum * m;
            rv[rvoff + c] = ((CT)1 - momentum) * rv[rvoff + c] + momentum * u;
        }
    }
}

/*
 * Stage 2 of batch norm's backward, one item per channel: sum_dy and dot =
 * sum(dy * (x - mean)) folded from the P partials in order; invstd the
 * saved one (flags & 4, training) or 1 / sqrt(running_var + eps); iw =
 * invstd * w (flags & 1).  Writes dw = dot * invstd, db = sum_dy and the
 * coefficients of dx = c0 + dy * iw + (x - mean) * q: in training c0 =
 * -sum_dy * iw / n and q = -dot * invstd^2 * iw / n, in evaluation 0.
 */
__kernel void norm_chan_fold_bwd(global const CT *o1, global const CT *o2, long P, long C,
                                 int flags, CT n, CT eps, global const CT *w, long woff,
                                 global const CT *sd, long sdoff, global CT *iw, global CT *c0,
                                 global CT *q, global CT *dw, global CT *db)
{
    CLOPS_ITEMS(long, c, C)
    {
        CT sg = (CT)0, dot = (CT)0;
        for (long p = 0; p < P; p++) {
            sg += o1[c * P + p];
            dot += o2[c * P + p];
        }
        CT inv = (flags & 4) ? sd[sdoff + c] : (CT)1 / sqrt(sd[sdoff + c] + eps);
        CT k = (flags & 1) ? inv * w[woff + c] : inv;
        iw[c] = k;
        dw[c] = dot * inv;
        db[c] = sg;
        c0[c] = (flags & 4) ? sg * k * (-(CT)1 / n) : (CT)0;
        q[c] = (flags & 4) ? dot * inv * inv * k * (-(CT)1 / n) : (CT)0;
    }
}

/*
 * The per-channel pass of batch norm over [A, C, S] (element e's channel is
 * (e / S) % C): out = k0[c] + a * k1[c], plus (b - mu[c]) * k2[c] with
 * flags & 1.  Forward: a = x, k1 = scale, k0 = shift; backward: a = dy, b =
 * x, k1 = invstd * w, k0 = c0, k2 = q (norm_chan_fold_bwd).
 */
__kernel void norm_chan_apply(global const TIN_T *av, long aoff, global const TIN_T *bv, long boff,
                              global const CT *k0, global const CT *k1, global const CT *k2,
                              global const CT *mu, int flags, global TOUT_T *out, long ooff,
                              long total, long C, long S)
{
    bool narrow = total <= 0xffffffffL;
    CLOPS_ITEMS(long, e, total)
    {
        long c = narrow ? (long)(((uint)e / (uint)S) % (uint)C) : (e / S) % C;
        CT v = k0[c] + LDX(av, aoff + e) * k1[c];
        if (flags & 1)
            v += (LDX(bv, boff + e) - mu[c]) * k2[c];
        STY(out, ooff + e, v);
    }
}

#if NORM_CPU
/*
 * CPU devices (NORM_CPU, ops/norm/norm.c and ops/norm/norm_layer.c): work items of
 * one, each taking `per` whole rows with plain loops, no local memory or
 * barriers (POCL would run a 256-item group as a loop over its barrier
 * regions).  A contiguous row (inner == 1) runs on NV-wide vectors from
 * its first element whose offset is a multiple of NV in x and y (a
 * scalar head before it, a scalar tail after), so POCL uses its vector
 * math library for exp/log; otherwise, and for interleaved rows, the loop
 * is scalar.  Softmax takes three passes over the row (max, sum of exp,
 * output: the row is in cache by then) instead of the online (max, sum)
 * state, whose branch per element does not vectorise; layer norm takes the
 * mean first, then the sum of squared deviations.  The order of the
 * operations depends on the shape and the offsets only.
 */
#define CTV RCATN(CT, NV)
#define RCATN_(a, b) a##b
#define RCATN(a, b) RCATN_(a, b)
#define VLOADN RCATN(vload, NV)
#define VSTOREN RCATN(vstore, NV)
#if IN_KIND == 1
#define LDXV(p, i) RCATN(convert_, CTV)(RCATN(vload_half, NV)(0, (p) + (i)))
#elif IN_KIND == 2
#define LDXV(p, i)                                                                         \
    RCATN(convert_, CTV)(RCATN(as_float, NV)(RCATN(convert_uint, NV)(VLOADN(0, (p) + (i))) << 16))
#else
#define LDXV(p, i) RCATN(convert_, CTV)(VLOADN(0, (p) + (i)))
#endif
#if OUT_KIND == 1
#define STYV(p, i, v) RCATN(RCATN(vstore_half, NV), _rte)(RCATN(convert_float, NV)(v), 0, (p) + (i))
#elif OUT_KIND == 2
/* Through a vector pointer (the offsets are multiples of NV, NORM_VSPAN):
 * POCL split vstoreN of a ushortN into one 2-byte store per lane, half of
 * bfloat16 softmax's time (the pointwise generator's fix, issue 19). */
#define STYV(p, i, v)                                                                      \
    (*(global RCATN(ushort, NV) *)((p) + (i)) = norm_bf16v(RCATN(convert_float, NV)(v)))
/* clops_float_to_bf16 on a vector: round to nearest even, NaN to 0x7fc0. */
RCATN(ushort, NV) norm_bf16v(RCATN(float, NV) f)
{
    RCATN(uint, NV) u = RCATN(as_uint, NV)(f);
    RCATN(uint, NV) r = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
    r = select(r, (RCATN(uint, NV))0x7fc0u, RCATN(as_uint, NV)(isnan(f)));
    return RCATN(convert_ushort, NV)(r);
}
#else
#define STYV(p, i, v) VSTOREN(RCATN(convert_, RCATN(TOUT_T, NV))(v), 0, (p) + (i))
#endif
/* Larger of a and b, a NaN in either wins (b's only where a is not NaN:
 * the first NaN of a lane stays). */
#define NMAXS(a, b) (((b) > (a) || isnan(b)) && !isnan(a) ? (b) : (a))
#define NMAXV(a, b) select((a), (b), (((b) > (a)) | isnan(b)) & ~isnan(a))
/* isnan's lane type for CTV */
#define NORM_ITV RCATN(RCATN(CT_I_, CT), NV)
#define CT_I_float int
#define CT_I_double long
/* Folds the lanes of v in halves (F on vectors, FS on the last pair). */
#if NV == 16
#define HFOLD(v, F, FS, out)                                                               \
    do {                                                                                   \
        RCATN(CT, 8) h8_ = F((v).lo, (v).hi);                                              \
        RCATN(CT, 4) h4_ = F(h8_.lo, h8_.hi);                                              \
        RCATN(CT, 2) h2_ = F(h4_.lo, h4_.hi);                                              \
        out = FS(h2_.lo, h2_.hi);                                                          \
    } while (0)
#else
#define HFOLD(v, F, FS, out)                                                               \
    do {                                                                                   \
        RCATN(CT, 4) h4_ = F((v).lo, (v).hi);                                              \
        RCATN(CT, 2) h2_ = F(h4_.lo, h4_.hi);                                              \
        out = FS(h2_.lo, h2_.hi);                                                          \
    } while (0)
#endif
#define HADD(a, b) ((a) + (b))

/* Where the vector part of a contiguous row starts and ends: h0 is the
 * first j with xo + j and yo + j multiples of NV (n when there is none or
 * the row is interleaved), h1 the end of the last whole vector. */
#define NORM_VSPAN(xo, yo, inner, n, h0, h1)                                               \
    do {                                                                                   \
        long ph_ = (NV - (xo) % NV) % NV;                                                  \
        bool ok_ = (inner) == 1 && ((xo) - (yo)) % NV == 0 && ph_ + NV <= (n);             \
        h0 = ok_ ? ph_ : (n);                                                              \
        h1 = ok_ ? h0 + ((n) - h0) / NV * NV : (n);                                        \
    } while (0)

/* Softmax into a y narrower than the compute type (float16, bfloat16)
 * keeps the exps of a row's vector part, up to NORM_EBUF of them, in a
 * private array between the sum and the output pass instead of computing
 * them twice (bfloat16 softmax took twice float32's time); the same values
 * either way. */
#define NORM_EBUF 4096
__kernel void norm_softmax_cpu(global const TIN_T *x, long xoff, global TOUT_T *y, long yoff,
                               long rows, long n, long inner, long per, int logm)
{
    long it = (long)get_global_id(0);
#if !Y_IS_CT
    CT eb[NORM_EBUF];
#endif
    for (long row = it * per; row < min(rows, (it + 1) * per); row++) {
        long base = (row / inner) * n * inner + row % inner;
        global const TIN_T *xr = x + xoff + base;
        global TOUT_T *yr = y + yoff + base;
        long h0, h1;
        NORM_VSPAN(xoff + base, yoff + base, inner, n, h0, h1);
        /* max */
        CT m = -(CT)INFINITY;
        for (long j = 0; j < h0; j++)
            m = NMAXS(m, LDX(xr, j * inner));
        if (h1 > h0) {
            /* a plain compare-and-select per lane and a NaN flag (the
             * NaN-aware NMAXV packed its lane masks to bytes and back: a
             * third of the kernel, bfloat16 rows on POCL 3.1); a row with
             * a NaN takes NMAXV again, so m is the same value either way */
            CTV mv = (CTV)(-(CT)INFINITY);
            NORM_ITV nanv = (NORM_ITV)0;
            for (long j = h0; j < h1; j += NV) {
                CTV v = LDXV(xr, j);
                mv = select(mv, v, v > mv);
                nanv |= isnan(v);
            }
            if (any(nanv)) {
                mv = (CTV)(-(CT)INFINITY);
                for (long j = h0; j < h1; j += NV)
                    mv = NMAXV(mv, LDXV(xr, j));
            }
            CT mh;
            HFOLD(mv, NMAXV, NMAXS, mh);
            m = NMAXS(m, mh);
        }
        for (long j = h1; j < n; j++)
            m = NMAXS(m, LDX(xr, j * inner));
        /* sum of exp(x - max); an infinite max makes it NaN, as PyTorch's.
         * Softmax into a y of the compute type keeps each exp there and
         * divides it by the sum in the last pass (Y_IS_CT). */
        bool keep = Y_IS_CT && !(logm & 1);
#if !Y_IS_CT
        bool held = !(logm & 1) && h1 - h0 <= NORM_EBUF;
#endif
        CT s = (CT)0;
        for (long j = 0; j < h0; j++) {
            CT e = exp(LDX(xr, j * inner) - m);
            s += e;
            if (keep)
                STY(yr, j * inner, e);
        }
        if (h1 > h0) {
            CTV sv = (CTV)0;
            for (long j = h0; j < h1; j += NV) {
                CTV e = exp(LDXV(xr, j) - m);
                sv += e;
                if (keep)
                    STYV(yr, j, e);
#if !Y_IS_CT
                else if (held)
                    VSTOREN(e, 0, eb + (j - h0));
#endif
            }
            CT sh;
            HFOLD(sv, HADD, HADD, sh);
            s += sh;
        }
        for (long j = h1; j < n; j++) {
            CT e = exp(LDX(xr, j * inner) - m);
            s += e;
            if (keep)
                STY(yr, j * inner, e);
        }
        if (m == (CT)INFINITY)
            s = (CT)NAN;
        CT ls = log(s);
#if Y_IS_CT
        if (keep) {
            for (long j = 0; j < h0; j++)
                yr[j * inner] /= s;
            for (long j = h0; j < h1; j += NV)
                VSTOREN(VLOADN(0, yr + j) / s, 0, yr + j);
            for (long j = h1; j < n; j++)
                yr[j * inner] /= s;
            continue;
        }
#endif
        /* output */
        for (long j = 0; j < h0; j++) {
            CT v = LDX(xr, j * inner) - m;
            STY(yr, j * inner, (logm & 1) ? v - ls : exp(v) / s);
        }
        for (long j = h0; j < h1; j += NV) {
            CTV v = LDXV(xr, j) - m;
            if (logm & 1)
                STYV(yr, j, v - ls);
#if !Y_IS_CT
            else if (held)
                STYV(yr, j, VLOADN(0, eb + (j - h0)) / s);
#endif
            else
                STYV(yr, j, exp(v) / s);
        }
        for (long j = h1; j < n; j++) {
            CT v = LDX(xr, j * inner) - m;
            STY(yr, j * inner, (logm & 1) ? v - ls : exp(v) / s);
        }
    }
}

/* norm_softmax_backward's rows on a CPU device (the same arguments, `per`
 * for L): two passes, the sum (of g * y, or of g for log_softmax), then the
 * output; vectors where g, y and out share their alignment. */
__kernel void norm_softmax_backward_cpu(global const TIN_T *g, long goff, global const TIN_T *yv,
                                        long yvoff, global TOUT_T *out, long ooff, long rows,
                                        long n, long inner, long per, int logm)
{
    long it = (long)get_global_id(0);
    for (long row = it * per; row < min(rows, (it + 1) * per); row++) {
        long base = (row / inner) * n * inner + row % inner;
        global const TIN_T *gr = g + goff + base, *yr = yv + yvoff + base;
        global TOUT_T *orow = out + ooff + base;
        long h0, h1;
        NORM_VSPAN(goff + base, yvoff + base, inner, n, h0, h1);
        if ((goff - ooff) % NV != 0)
            h0 = h1 = n;
        CT acc = (CT)0;
        for (long j = 0; j < h0; j++) {
            CT gv = LDX(gr, j * inner);
            acc += (logm & 1) ? gv : gv * LDX(yr, j * inner);
        }
        if (h1 > h0) {
            CTV av = (CTV)0;
            for (long j = h0; j < h1; j += NV) {
                CTV gv = LDXV(gr, j);
                av += (logm & 1) ? gv : gv * LDXV(yr, j);
            }
            CT ah;
            HFOLD(av, HADD, HADD, ah);
            acc += ah;
        }
        for (long j = h1; j < n; j++) {
            CT gv = LDX(gr, j * inner);
            acc += (logm & 1) ? gv : gv * LDX(yr, j * inner);
        }
        for (long j = 0; j < h0; j++) {
            CT gv = LDX(gr, j * inner), yy = LDX(yr, j * inner);
            STY(orow, j * inner, (logm & 1) ? gv - exp(yy) * acc : yy * (gv - acc));
        }
        for (long j = h0; j < h1; j += NV) {
            CTV gv = LDXV(gr, j), yy = LDXV(yr, j);
            if (logm & 1)
                STYV(orow, j, gv - exp(yy) * acc);
            else
                STYV(orow, j, yy * (gv - acc));
        }
        for (long j = h1; j < n; j++) {
            CT gv = LDX(gr, j * inner), yy = LDX(yr, j * inner);
            STY(orow, j * inner, (logm & 1) ? gv - exp(yy) * acc : yy * (gv - acc));
        }
    }
}

/* A row's statistics on a CPU device: xr's n elements, their aligned middle
 * [h0, h1) as NV-wide vectors; m the mean (0 when rms), rs 1 / sqrt(the
 * mean squared deviation + eps), into CT variables m, rs.  One expression
 * for norm_layer_cpu and norm_group_cpu, the same bits in both. */
#define NORM_ROW_STATS(xr, n, h0, h1, rms, eps, m, rs)                                     \
    do {                                                                                   \
        m = (CT)0;                                                                         \
        if (!rms) {                                                                        \
            CT s = (CT)0;                                                                  \
            for (long j = 0; j < h0; j++)                                                  \
                s += LDX((xr), j);                                                         \
            if (h1 > h0) {                                                                 \
                CTV sv = (CTV)0;                                                           \
                for (long j = h0; j < h1; j += NV)                                         \
                    sv += LDXV((xr), j);                                                   \
                CT sh;                                                                     \
                HFOLD(sv, HADD, HADD, sh);                                                 \
                s += sh;                                                                   \
            }                                                                              \
            for (long j = h1; j < n; j++)                                                  \
                s += LDX((xr), j);                                                         \
            m = s / (CT)n;                                                                 \
        }                                                                                  \
        CT q = (CT)0;                                                                      \
        for (long j = 0; j < h0; j++) {                                                    \
            CT d = LDX((xr), j) - m;                                                       \
            q += d * d;                                                                    \
        }                                                                                  \
        if (h1 > h0) {                                                                     \
            CTV qv = (CTV)0;                                                               \
            for (long j = h0; j < h1; j += NV) {                                           \
                CTV d = LDXV((xr), j) - m;                                                 \
                qv += d * d;                                                               \
            }                                                                              \
            CT qh;                                                                         \
            HFOLD(qv, HADD, HADD, qh);                                                     \
            q += qh;                                                                       \
        }                                                                                  \
        for (long j = h1; j < n; j++) {                                                    \
            CT d = LDX((xr), j) - m;                                                       \
            q += d * d;                                                                    \
        }                                                                                  \
        rs = (CT)1 / sqrt(q / (CT)n + (eps));                                              \
    } while (0)

/* norm_layer's rows on a CPU device (the same arguments plus `per`). */
__kernel void norm_layer_cpu(global const TIN_T *x, long xoff, global const CT *w, long woff,
                             global const CT *b, long boff, int flags, global TOUT_T *y, long yoff,
                             global CT *mean, global CT *rstd, long rows, long n, long per,
                             CT eps)
{
    long it = (long)get_global_id(0);
    bool rms = (flags & 4) != 0;
    for (long row = it * per; row < min(rows, (it + 1) * per); row++) {
        long base = row * n;
        global const TIN_T *xr = x + xoff + base;
        global TOUT_T *yr = y + yoff + base;
        long h0, h1;
        NORM_VSPAN(xoff + base, yoff + base, 1, n, h0, h1);
        /* w and b vectors only where their offsets keep the same phase */
        bool wv = !(flags & 1) || (woff - (xoff + base)) % NV == 0;
        bool bv = !(flags & 2) || (boff - (xoff + base)) % NV == 0;
        if (!wv || !bv)
            h0 = h1 = n;
        CT m, rs;
        NORM_ROW_STATS(xr, n, h0, h1, rms, eps, m, rs);
        if (flags & 8) {
            mean[row] = m;
            rstd[row] = rs;
        }
        if (flags & 16) /* the statistics alone (group norm's affine path) */
            continue;
        for (long j = 0; j < n; j++) {
            if (j == h0 && h1 > h0) {
                for (; j < h1; j += NV) {
                    CTV v = (LDXV(xr, j) - m) * rs;
                    if (flags & 1)
                        v *= VLOADN(0, w + woff + j);
                    if (flags & 2)
                        v += VLOADN(0, b + boff + j);
                    STYV(yr, j, v);
                }
                if (j >= n)
                    break;
            }
            CT v = (LDX(xr, j) - m) * rs;
            if (flags & 1)
                v *= w[woff + j];
            if (flags & 2)
                v += b[boff + j];
            STY(yr, j, v);
        }
    }
}

/*
 * Group norm forward on a CPU device in one launch (ops/norm/norm_group.c):
 * row r = a * G + g of n = Cg * S contiguous elements (Cg planes of S, one
 * channel each), `per` rows per work item.  The row's statistics by
 * NORM_ROW_STATS with the vector span of norm_layer_cpu's statistics-alone
 * call (flag 16, y offset 0), so mean and rstd have its bits; then per
 * plane c = g * Cg + k: scale = rs * w[c] (rs without a weight), shift =
 * b[c] - m * scale (-(m * scale) without a bias), y = shift + x * scale as
 * two statements (no contraction: the bits of norm_group_affine_cpu and of
 * the pointwise path).  mean, rstd: CT [rows] from moff, roff; flags 1: w,
 * 2: b.
 */
__kernel void norm_group_cpu(global const TIN_T *x, long xoff, global TOUT_T *y, long yoff,
                             global CT *mean, long moff, global CT *rstd, long roff,
                             global const CT *w, long woff, global const CT *bv, long boff,
                             int flags, long rows, long G, long Cg, long S, long per, CT eps)
{
    long it = (long)get_global_id(0), n = Cg * S;
    for (long row = it * per; row < min(rows, (it + 1) * per); row++) {
        long base = row * n, g = row % G;
        global const TIN_T *xr = x + xoff + base;
        long h0, h1;
        NORM_VSPAN(xoff + base, base, 1, n, h0, h1);
        CT m, rs;
        NORM_ROW_STATS(xr, n, h0, h1, false, eps, m, rs);
        mean[moff + row] = m;
        rstd[roff + row] = rs;
        for (long k = 0; k < Cg; k++) {
            long c = g * Cg + k, o = base + k * S;
            CT a = (flags & 1) ? rs * w[woff + c] : rs;
            CT t = m * a;
            CT sh = (flags & 2) ? bv[boff + c] - t : -t;
            global const TIN_T *xp = x + xoff + o;
            global TOUT_T *yp = y + yoff + o;
            long p0, p1;
            NORM_VSPAN(xoff + o, yoff + o, 1, S, p0, p1);
            for (long j = 0; j < p0; j++) {
                CT u = LDX(xp, j) * a;
                STY(yp, j, sh + u);
            }
            for (long j = p0; j < p1; j += NV) {
                CTV u = LDXV(xp, j) * (CTV)a;
                STYV(yp, j, (CTV)sh + u);
            }
            for (long j = p1; j < S; j++) {
                CT u = LDX(xp, j) * a;
                STY(yp, j, sh + u);
            }
        }
    }
}

/* norm_layer_backward's rows on a CPU device (the same arguments, `per`
 * rows per work item in place of L): the same two passes per row. */
__kernel void norm_layer_backward_cpu(global const TIN_T *g, long goff, global const TIN_T *x,
                                      long xoff, global const CT *mean, long moff,
                                      global const CT *rstd, long roff, global const CT *w,
                                      long woff, long G, long D, int flags, global TOUT_T *dx,
                                      long dxoff, long rows, long n, long per)
{
    long it = (long)get_global_id(0);
    bool rms = (flags & 4) != 0, hw = (flags & 1) != 0;
    for (long row = it * per; row < min(rows, (it + 1) * per); row++) {
        long base = row * n;
        global const TIN_T *gr = g + goff + base, *xr = x + xoff + base;
        global TOUT_T *dr = dx + dxoff + base;
        global const CT *wr = w + woff;
        CT mu = rms ? (CT)0 : mean[moff + row], rs = rstd[roff + row];
        CT s1 = (CT)0, s2 = (CT)0;
        if (G == 1 && D == 1) {
            /* layer/rms norm: the middle of the row as NV-wide vectors,
             * aligned in dx (vload reads g, x and w at any offset) */
            long h0, h1;
            NORM_VSPAN(dxoff + base, dxoff + base, 1, n, h0, h1);
            for (long j = 0; j < h0; j++) {
                CT gv = LDX(gr, j) * (hw ? wr[j] : (CT)1), xh = (LDX(xr, j) - mu) * rs;
                s1 += gv;
                s2 += gv * xh;
            }
            if (h1 > h0) {
                CTV v1 = (CTV)0, v2 = (CTV)0;
                for (long j = h0; j < h1; j += NV) {
                    CTV gv = LDXV(gr, j), xh = (LDXV(xr, j) - mu) * rs;
                    if (hw)
                        gv *= VLOADN(0, wr + j);
                    v1 += gv;
                    v2 += gv * xh;
                }
                CT t1, t2;
                HFOLD(v1, HADD, HADD, t1);
                HFOLD(v2, HADD, HADD, t2);
                s1 += t1;
                s2 += t2;
            }
            for (long j = h1; j < n; j++) {
                CT gv = LDX(gr, j) * (hw ? wr[j] : (CT)1), xh = (LDX(xr, j) - mu) * rs;
                s1 += gv;
                s2 += gv * xh;
            }
            CT a = rms ? (CT)0 : s1 / (CT)n, q = s2 / (CT)n;
            for (long j = 0; j < h0; j++) {
                CT gv = LDX(gr, j) * (hw ? wr[j] : (CT)1), xh = (LDX(xr, j) - mu) * rs;
                STY(dr, j, rs * (gv - a - xh * q));
            }
            for (long j = h0; j < h1; j += NV) {
                CTV gv = LDXV(gr, j), xh = (LDXV(xr, j) - mu) * rs;
                if (hw)
                    gv *= VLOADN(0, wr + j);
                STYV(dr, j, rs * (gv - a - xh * q));
            }
            for (long j = h1; j < n; j++) {
                CT gv = LDX(gr, j) * (hw ? wr[j] : (CT)1), xh = (LDX(xr, j) - mu) * rs;
                STY(dr, j, rs * (gv - a - xh * q));
            }
            continue;
        }
        /* group norm: runs of D elements sharing a weight; the sums as
         * NV-wide vector accumulations over each run's whole vectors
         * (vload: any offset) and scalar ones over its tail, folded at
         * the end (a fixed order for the shape; the serial scalar chain
         * took three quarters of the kernel: perf, the dev VM) */
        long ch = NORM_WBASE(row, G, D, n);
        CTV v1 = (CTV)0, v2 = (CTV)0;
        for (long j0 = 0, c = ch; j0 < n; j0 += D, c++) {
            CT wv = hw ? wr[c] : (CT)1;
            long j = j0;
            for (; j + NV <= j0 + D; j += NV) {
                CTV gv = LDXV(gr, j) * wv, xh = (LDXV(xr, j) - mu) * rs;
                v1 += gv;
                v2 += gv * xh;
            }
            for (; j < j0 + D; j++) {
                CT gv = LDX(gr, j) * wv, xh = (LDX(xr, j) - mu) * rs;
                s1 += gv;
                s2 += gv * xh;
            }
        }
        {
            CT t1, t2;
            HFOLD(v1, HADD, HADD, t1);
            HFOLD(v2, HADD, HADD, t2);
            s1 += t1;
            s2 += t2;
        }
        CT a = rms ? (CT)0 : s1 / (CT)n, q = s2 / (CT)n;
        for (long j0 = 0, c = ch; j0 < n; j0 += D, c++) {
            CT wv = hw ? wr[c] : (CT)1;
            for (long j = j0; j < j0 + D; j++) {
                CT gv = LDX(gr, j) * wv, xh = (LDX(xr, j) - mu) * rs;
                STY(dr, j, rs * (gv - a - xh * q));
            }
        }
    }
}

/* norm_layer_wgrad on a CPU device: item p walks its block of R rows row by
 * row (contiguous reads) and accumulates the partial sums of every column
 * into pw[p * n + j] and pb[p * n + j], in row order, NV columns at a time
 * (vload/vstore: any offset). */
__kernel void norm_layer_wgrad_cpu(global const TIN_T *g, long goff, global const TIN_T *x,
                                   long xoff, global const CT *mean, long moff,
                                   global const CT *rstd, long roff, int flags, global CT *pw,
                                   global CT *pb, long rows, long n, long R)
{
    long p = (long)get_global_id(0);
    if (p * R >= rows)
        return;
    long r1 = min(rows, (p + 1) * R), nv = n / NV * NV;
    bool rms = (flags & 4) != 0, hb = (flags & 2) != 0;
    global CT *w = pw + p * n, *b = pb + p * n;
    for (long j = 0; j < n; j++) {
        w[j] = (CT)0;
        if (hb)
            b[j] = (CT)0;
    }
    for (long r = p * R; r < r1; r++) {
        global const TIN_T *gr = g + goff + r * n, *xr = x + xoff + r * n;
        CT mu = rms ? (CT)0 : mean[moff + r], rs = rstd[roff + r];
        for (long j = 0; j < nv; j += NV) {
            CTV gv = LDXV(gr, j);
            VSTOREN(VLOADN(0, w + j) + gv * ((LDXV(xr, j) - mu) * rs), 0, w + j);
            if (hb)
                VSTOREN(VLOADN(0, b + j) + gv, 0, b + j);
        }
        for (long j = nv; j < n; j++) {
            CT gv = LDX(gr, j);
            w[j] += gv * ((LDX(xr, j) - mu) * rs);
            if (hb)
                b[j] += gv;
        }
    }
}

/* The sums of g and of g * (x - mc) over a run of k elements at xr, gr into
 * s1, s2 (CT, zero on entry): [0, h0) and [h1, k) one by one, the aligned
 * middle [h0, h1) as NV-wide vectors folded by HFOLD.  One expression for
 * norm_chan_partial_cpu (mode 1) and norm_group_wgrad_cpu, so a plane's
 * sums have the same bits in both. */
#define NORM_GSUMS(xr, gr, h0, h1, k, mc, s1, s2)                                          \
    do {                                                                                   \
        for (long i_ = 0; i_ < (h0); i_++) {                                               \
            CT gv_ = LDX(gr, i_);                                                          \
            s1 += gv_;                                                                     \
            s2 += gv_ * (LDX(xr, i_) - (mc));                                              \
        }                                                                                  \
        if ((h1) > (h0)) {                                                                 \
            CTV v1_ = (CTV)0, v2_ = (CTV)0;                                                \
            for (long i_ = (h0); i_ < (h1); i_ += NV) {                                    \
                CTV gv_ = LDXV(gr, i_);                                                    \
                v1_ += gv_;                                                                \
                v2_ += gv_ * (LDXV(xr, i_) - (mc));                                        \
            }                                                                              \
            CT t1_, t2_;                                                                   \
            HFOLD(v1_, HADD, HADD, t1_);                                                   \
            HFOLD(v2_, HADD, HADD, t2_);                                                   \
            s1 += t1_;                                                                     \
            s2 += t2_;                                                                     \
        }                                                                                  \
        for (long i_ = (h1); i_ < (k); i_++) {                                             \
            CT gv_ = LDX(gr, i_);                                                          \
            s1 += gv_;                                                                     \
            s2 += gv_ * (LDX(xr, i_) - (mc));                                              \
        }                                                                                  \
    } while (0)

/* norm_chan_partial on a CPU device: item (c, p) walks part p of channel c
 * plane run by plane run, the runs' aligned middles as NV-wide vectors:
 * each run's mean and squared deviations (two passes, the run in cache for
 * the second) merged into the part's state by Chan's formula (mode 0), or
 * the two sums (mode 1).  No division per element. */
__kernel void norm_chan_partial_cpu(global const TIN_T *x, long xoff, global const TIN_T *g,
                                    long goff, global const CT *mu, long muoff, long mdiv, long A,
                                    long C, long S, long P, int mode, global CT *o1,
                                    global CT *o2)
{
    long grp = (long)get_global_id(0);
    if (grp >= C * P)
        return;
    long c = grp / P, p = grp - c * P;
    long AS = A * S, CS = C * S, E = (AS + P - 1) / P, e = p * E, e1 = min(AS, p * E + E);
    CT m = (CT)0, m2 = (CT)0, mc = mode ? mu[muoff + c / mdiv] : (CT)0;
    long cnt = 0;
    while (e < e1) {
        long a = e / S, s = e - a * S, k = min(e1 - e, S - s), o = a * CS + c * S + s;
        global const TIN_T *xr = x + xoff + o, *gr = g + goff + o;
        /* the run's aligned middle as NV-wide vectors (x and g in phase) */
        long h0, h1;
        NORM_VSPAN(xoff + o, goff + o, 1, k, h0, h1);
        if (!mode && (xoff + o) % NV != 0)
            h0 = h1 = k;
        if (mode) {
            CT s1 = (CT)0, s2 = (CT)0;
            NORM_GSUMS(xr, gr, h0, h1, k, mc, s1, s2);
            m += s1;
            m2 += s2;
        } else {
            /* the run's mean and squared deviations in two passes (it is
             * in cache for the second), merged by Chan's formula */
            CT rs = (CT)0, rq = (CT)0;
            for (long i = 0; i < h0; i++)
                rs += LDX(xr, i);
            if (h1 > h0) {
                CTV v = (CTV)0;
                for (long i = h0; i < h1; i += NV)
                    v += LDXV(xr, i);
                CT t;
                HFOLD(v, HADD, HADD, t);
                rs += t;
            }
            for (long i = h1; i < k; i++)
                rs += LDX(xr, i);
            CT rm = rs / (CT)k;
            for (long i = 0; i < h0; i++) {
                CT d = LDX(xr, i) - rm;
                rq += d * d;
            }
            if (h1 > h0) {
                CTV v = (CTV)0;
                for (long i = h0; i < h1; i += NV) {
                    CTV d = LDXV(xr, i) - rm;
                    v += d * d;
                }
                CT t;
                HFOLD(v, HADD, HADD, t);
                rq += t;
            }
            for (long i = h1; i < k; i++) {
                CT d = LDX(xr, i) - rm;
                rq += d * d;
            }
            NORM_CHAN_MERGE(cnt, m, m2, k, rm, rq);
        }
        e += k;
    }
    o1[grp] = m;
    o2[grp] = m2;
}

/*
 * Group norm's dweight and dbias on a CPU device (ops/norm/norm_group.c),
 * one launch: item c walks channel c's N planes of S elements (x and g
 * contiguous [N, C, S]), each plane's sums s1 of g and s2 of g * (x -
 * mean[n, c / Cg]) by NORM_GSUMS (the bits of norm_chan_partial_cpu with
 * one part a plane), then in order of n db += s1 and dw += s2 * rstd[n,
 * c / Cg] (two statements: the product rounded before the add, as the
 * composed mul and sum were).  mean and rstd contiguous [N, G] of CT;
 * flags 1: write dw, 2: write db (TOUT_T).
 */
__kernel void norm_group_wgrad_cpu(global const TIN_T *x, long xoff, global const TIN_T *g,
                                   long goff, global const CT *mean, global const CT *rstd,
                                   long N, long C, long Cg, long S, int flags,
                                   global TOUT_T *dw, long dwoff, global TOUT_T *db, long dboff)
{
    long c = (long)get_global_id(0);
    if (c >= C)
        return;
    long G = C / Cg, gi = c / Cg;
    CT aw = (CT)0, ab = (CT)0;
    for (long n = 0; n < N; n++) {
        long o = (n * C + c) * S;
        global const TIN_T *xr = x + xoff + o, *gr = g + goff + o;
        CT mc = mean[n * G + gi], s1 = (CT)0, s2 = (CT)0;
        long h0, h1;
        NORM_VSPAN(xoff + o, goff + o, 1, S, h0, h1);
        NORM_GSUMS(xr, gr, h0, h1, S, mc, s1, s2);
        CT t = s2 * rstd[n * G + gi];
        ab += s1;
        aw += t;
    }
    if (flags & 1)
        STY(dw, dwoff + c, aw);
    if (flags & 2)
        STY(db, dboff + c, ab);
}

/* norm_chan_apply on a CPU device: work item i takes elements [i * chunk,
 * (i + 1) * chunk) plane run by plane run (a plane: S elements of one
 * channel), the channel's numbers loaded once per run, the runs' aligned
 * middles as NV-wide vectors. */
__kernel void norm_chan_apply_cpu(global const TIN_T *av, long aoff, global const TIN_T *bv,
                                  long boff, global const CT *k0, global const CT *k1,
                                  global const CT *k2, global const CT *mu, int flags,
                                  global TOUT_T *out, long ooff, long total, long C, long S,
                                  long chunk)
{
    long e = (long)get_global_id(0) * chunk, e1 = min(total, e + chunk);
    bool hb = (flags & 1) != 0;
    while (e < e1) {
        long p = e / S, n = min(e1, (p + 1) * S) - e, c = p % C;
        CT c0 = k0[c], c1 = k1[c], c2 = hb ? k2[c] : (CT)0, m = hb ? mu[c] : (CT)0;
        global const TIN_T *ar = av + aoff + e, *br = bv + boff + e;
        global TOUT_T *orow = out + ooff + e;
        long h0, h1;
        NORM_VSPAN(aoff + e, ooff + e, 1, n, h0, h1);
        if (hb && (boff - aoff) % NV != 0)
            h0 = h1 = n;
        for (long i = 0; i < h0; i++)
            STY(orow, i, hb ? c0 + LDX(ar, i) * c1 + (LDX(br, i) - m) * c2
                            : c0 + LDX(ar, i) * c1);
        for (long i = h0; i < h1; i += NV) {
            CTV v = (CTV)c0 + LDXV(ar, i) * c1;
            if (hb)
                v += (LDXV(br, i) - m) * c2;
            STYV(orow, i, v);
        }
        for (long i = h1; i < n; i++)
            STY(orow, i, hb ? c0 + LDX(ar, i) * c1 + (LDX(br, i) - m) * c2
                            : c0 + LDX(ar, i) * c1);
        e += n;
    }
}

/*
 * Batch and group norm's normalization on a CPU device
 * (ops/norm/norm_affine.c): y = shift[p % hmod] + x * scale[p % smod] over
 * planes p of S contiguous elements (x [P, S], y likewise), work item i
 * taking elements [i * chunk, (i + 1) * chunk) plane run by plane run, the
 * runs' aligned middles as NV-wide vectors.  The expression of the
 * pointwise addcmul(shift, x, scale) with value 1 (whose 1 * x is exact),
 * without contraction as there, so the bits are the same; the pointwise
 * kernel read the two [*, C, 1] operands through its general strided loop
 * (index arithmetic per element).  Last in the file with
 * norm_group_affine_cpu: the pragma below holds to the end of the program.
 */
#pragma OPENCL FP_CONTRACT OFF
/* y = b + x * a over the run of n elements at e of x and y, its aligned
 * middle as NV-wide vectors (norm_affine_cpu, norm_group_affine_cpu). */
#define NORM_AFFINE_RUN(x, xoff, y, yoff, e, n, a, b)                                      \
    do {                                                                                   \
        global const TIN_T *xr_ = (x) + (xoff) + (e);                                      \
        global TOUT_T *yr_ = (y) + (yoff) + (e);                                           \
        long h0_, h1_;                                                                     \
        NORM_VSPAN((xoff) + (e), (yoff) + (e), 1, (n), h0_, h1_);                          \
        for (long j_ = 0; j_ < h0_; j_++)                                                  \
            STY(yr_, j_, (b) + LDX(xr_, j_) * (a));                                        \
        for (long j_ = h0_; j_ < h1_; j_ += NV)                                            \
            STYV(yr_, j_, (CTV)(b) + LDXV(xr_, j_) * (CTV)(a));                            \
        for (long j_ = h1_; j_ < (n); j_++)                                                \
            STY(yr_, j_, (b) + LDX(xr_, j_) * (a));                                        \
    } while (0)
__kernel void norm_affine_cpu(global const TIN_T *x, long xoff, global TOUT_T *y, long yoff,
                              global const CT *sc, long soff, long smod, global const CT *sh,
                              long hoff, long hmod, long total, long S, long chunk)
{
    long e = (long)get_global_id(0) * chunk, e1 = min(total, e + chunk);
    while (e < e1) {
        long p = e / S, n = min(e1, (p + 1) * S) - e;
        CT a = sc[soff + p % smod], b = sh[hoff + p % hmod];
        NORM_AFFINE_RUN(x, xoff, y, yoff, e, n, a, b);
        e += n;
    }
}

/*
 * Group norm's normalization on a CPU device with its per-channel numbers
 * computed in place (ops/norm/norm_group.c): plane p = n * C + c of S
 * contiguous elements takes r = rstd[n, c / Cg], m = mean[n, c / Cg]
 * (contiguous [N, C / Cg] of CT), scale = r * w[c] (r without a weight),
 * shift = b[c] - m * scale (-(m * scale) without a bias), y = shift + x *
 * scale: the expressions, in the same order and rounded the same way, of
 * the composed path (two muls and a sub into [N, C, 1] tensors, then
 * norm_affine_cpu), which took four launches.  flags 1: w, 2: b.
 */
__kernel void norm_group_affine_cpu(global const TIN_T *x, long xoff, global TOUT_T *y,
                                    long yoff, global const CT *mean, long moff,
                                    global const CT *rstd, long roff, global const CT *w,
                                    long woff, global const CT *bv, long boff, int flags,
                                    long C, long Cg, long total, long S, long chunk)
{
    long e = (long)get_global_id(0) * chunk, e1 = min(total, e + chunk), G = C / Cg;
    while (e < e1) {
        long p = e / S, n = min(e1, (p + 1) * S) - e, an = p / C, c = p - an * C;
        long ng = an * G + c / Cg;
        CT r = rstd[roff + ng], a = (flags & 1) ? r * w[woff + c] : r;
        CT t = mean[moff + ng] * a;
        CT b = (flags & 2) ? bv[boff + c] - t : -t;
        NORM_AFFINE_RUN(x, xoff, y, yoff, e, n, a, b);
        e += n;
    }
}
#endif /* NORM_CPU */
