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
            CTV mv = (CTV)(-(CT)INFINITY);
            for (long j = h0; j < h1; j += NV)
                mv = NMAXV(mv, LDXV(xr, j));
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
        CT m = (CT)0;
        if (!rms) {
            CT s = (CT)0;
            for (long j = 0; j < h0; j++)
                s += LDX(xr, j);
            if (h1 > h0) {
                CTV sv = (CTV)0;
                for (long j = h0; j < h1; j += NV)
                    sv += LDXV(xr, j);
                CT sh;
                HFOLD(sv, HADD, HADD, sh);
                s += sh;
            }
            for (long j = h1; j < n; j++)
                s += LDX(xr, j);
            m = s / (CT)n;
        }
        CT q = (CT)0;
        for (long j = 0; j < h0; j++) {
            CT d = LDX(xr, j) - m;
            q += d * d;
        }
        if (h1 > h0) {
            CTV qv = (CTV)0;
            for (long j = h0; j < h1; j += NV) {
                CTV d = LDXV(xr, j) - m;
                qv += d * d;
            }
            CT qh;
            HFOLD(qv, HADD, HADD, qh);
            q += qh;
        }
        for (long j = h1; j < n; j++) {
            CT d = LDX(xr, j) - m;
            q += d * d;
        }
        CT rs = (CT)1 / sqrt(q / (CT)n + eps);
        if (flags & 8) {
            mean[row] = m;
            rstd[row] = rs;
        }
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
 * Batch and group norm's normalization on a CPU device
 * (ops/norm/norm_affine.c): y = shift[p % hmod] + x * scale[p % smod] over
 * planes p of S contiguous elements (x [P, S], y likewise), work item i
 * taking elements [i * chunk, (i + 1) * chunk) plane run by plane run, the
 * runs' aligned middles as NV-wide vectors.  The expression of the
 * pointwise addcmul(shift, x, scale) with value 1 (whose 1 * x is exact),
 * without contraction as there, so the bits are the same; the pointwise
 * kernel read the two [*, C, 1] operands through its general strided loop
 * (index arithmetic per element).  Last in the file: the pragma below holds
 * to the end of the program.
 */
#pragma OPENCL FP_CONTRACT OFF
__kernel void norm_affine_cpu(global const TIN_T *x, long xoff, global TOUT_T *y, long yoff,
                              global const CT *sc, long soff, long smod, global const CT *sh,
                              long hoff, long hmod, long total, long S, long chunk)
{
    long e = (long)get_global_id(0) * chunk, e1 = min(total, e + chunk);
    while (e < e1) {
        long p = e / S, n = min(e1, (p + 1) * S) - e;
        CT a = sc[soff + p % smod], b = sh[hoff + p % hmod];
        global const TIN_T *xr = x + xoff + e;
        global TOUT_T *yr = y + yoff + e;
        long h0, h1;
        NORM_VSPAN(xoff + e, yoff + e, 1, n, h0, h1);
        for (long j = 0; j < h0; j++)
            STY(yr, j, b + LDX(xr, j) * a);
        for (long j = h0; j < h1; j += NV)
            STYV(yr, j, (CTV)b + LDXV(xr, j) * (CTV)a);
        for (long j = h1; j < n; j++)
            STY(yr, j, b + LDX(xr, j) * a);
        e += n;
    }
}
#endif /* NORM_CPU */
