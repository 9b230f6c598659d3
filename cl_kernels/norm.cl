/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cl_kernels/norm.cl: the row-resident kernels of the normalization family:
 * _softmax, _log_softmax and their backward ops (ops/norm.c).
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
#if IN_KIND == 1
#define LDX(p, i) vload_half(0, (p) + (i))
#elif IN_KIND == 2
#define LDX(p, i) clops_bf16_to_float((p)[i])
#else
#define LDX(p, i) ((CT)(p)[i])
#endif
#if OUT_KIND == 1
#define LDY(p, i) vload_half(0, (p) + (i))
#define STY(p, i, v) vstore_half_rte((v), 0, (p) + (i))
#elif OUT_KIND == 2
#define LDY(p, i) clops_bf16_to_float((p)[i])
#define STY(p, i, v) ((p)[i] = clops_float_to_bf16((float)(v)))
#else
#define LDY(p, i) ((CT)(p)[i])
#define STY(p, i, v) ((p)[i] = (TOUT_T)(v))
#endif

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

/* Row residency of softmax: where RES > 0 (ops/norm.c sizes it to the
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
           long boff, int flags,
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
                if (cnt == 0) {
                    m = bm;
                    m2 = bm2;
                    cnt = bn;
                } else {
                    long nn = cnt + bn;
                    CT d = bm - m, f = (CT)bn / (CT)nn;
                    m += d * f;
                    m2 += bm2 + d * d * (CT)cnt * f;
                    cnt = nn;
                }
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
    for (long j = lane; j < n; j += L) {
        CT v = (LDX(x, xoff + base + j) - m) * rs;
        if (flags & 1)
            v *= w[woff + j];
        if (flags & 2)
            v += b[boff + j];
        STY(y, yoff + base + j, v);
    }
}
