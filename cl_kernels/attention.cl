/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cl_kernels/attention.cl: fused scaled-dot-product attention, the
 * FlashAttention-2 scheme on FMA (ops/attention/attention.c plans and
 * launches; ref/ref_attention.h defines the problem and ref/attention.c
 * the semantics).
 *
 * Defines from the host: T (storage type), KIND (its kit_load_store), D
 * (the head dimension padded: 32, 64, 128 or 256), BQ and BK (forward
 * query and key tiles), BT (backward tile), NT (work-group size).
 *
 *   attn_fwd      one work-group per (batch, query head, BQ query rows):
 *                 the query tile stays in __local, key tiles and then value
 *                 tiles pass through __local, scores and the online softmax
 *                 (running max and sum per row, float32) rescale the output
 *                 accumulators held in registers; writes out and the row
 *                 logsumexp.
 *   attn_bwd_pre  D_i = dO_i . O_i per row.
 *   attn_bwd_dkv  one work-group per (batch, key/value head, BT key rows):
 *                 dK and dV accumulate in registers over every query head
 *                 of the group and every query tile, in a fixed order (no
 *                 atomics: the same bits every run).
 *   attn_bwd_dq   one work-group per (batch, query head, BT query rows):
 *                 dQ over the key tiles.
 *
 * Tensors are addressed through their own element strides (b, h, row,
 * col); the mask is bool (bm) or additive of T (am) with broadcast
 * strides 0.  Dropout element n = ((b * Hq + h) * L + i) * S + j keeps
 * when word n % 4 of Philox counter roff + n / 4 is >= thr (thr 0: off).
 */
#define LD(p, i) CLOPS_LD(KIND, float, p, i)
#define ST(p, i, v) CLOPS_ST(KIND, T, float, p, i, v)

/* Row stride of the __local tiles: one float of padding, so the items of
 * a warp reading one column of different rows hit different banks. */
#define DS (D + 1)

#define OPT (BQ * D / NT) /* forward output accumulators per item */
#define KPT (BT * D / NT) /* backward accumulators per item */

#define ATTN_GEOM(n) long n##_o, long n##_0, long n##_1, long n##_2, long n##_3

/* The dropout factor of element n: 0 or dscale. */
static inline float attn_keep(ulong n, ulong roff, uint k_0, uint k_1, ulong thr, float dscale)
{
    uint w[4];
    rnd_philox(roff + (n >> 2), k_0, k_1, w);
    return (ulong)w[n & 3] >= thr ? dscale : 0.0f;
}

/* The masked, scaled score of (i, j) from the dot product s. */
static inline float attn_score(float s, long i, long j, long L, long S, float scale, int causal,
                               int mkind, __global const uchar *bm, __global const T *am,
                               long mb, long m_2, long m_3)
{
    s *= scale;
    if (i >= L || j >= S || (causal && j > i))
        return -INFINITY;
    if (mkind == 1 && !bm[mb + i * m_2 + j * m_3])
        return -INFINITY;
    if (mkind == 2)
        s += LD(am, mb + i * m_2 + j * m_3);
    return s;
}

/* rows [r0, r0 + R) of a [rows, cols] view into dst[R * DS], zero-padded. */
#define ATTN_LOAD_TILE(dst, R, p, r_0, rows, cols, sr, sc)                                       \
    for (int x_ = get_local_id(0); x_ < (R) * D; x_ += NT) {                                    \
        int r_ = x_ / D, c_ = x_ % D;                                                           \
        long i_ = (r_0) + r_;                                                                    \
        dst[r_ * DS + c_] = (i_ < (rows) && c_ < (cols)) ? LD(p, i_ * (sr) + c_ * (sc)) : 0.0f;           \
    }

__kernel __attribute__((reqd_work_group_size(NT, 1, 1))) void
attn_fwd(__global const T *q, ATTN_GEOM(q), __global const T *k, ATTN_GEOM(k),
         __global const T *v, ATTN_GEOM(v), __global const uchar *bm, __global const T *am,
         ATTN_GEOM(m), __global T *o, ATTN_GEOM(o), __global float *lse, long Hq, long G, long L,
         long S, long E, long Ev, long nqt, float scale, int causal, int mkind, ulong thr,
         float dscale, uint sk0, uint sk1, ulong roff)
{
    __local float qs[BQ * DS];
    __local float kv[BK * DS];
    __local float ss[BQ * BK];
    __local float mrow[BQ], lrow[BQ], arow[BQ];
    int t = get_local_id(0);
    long g = get_group_id(0);
    long qt = g % nqt, bh = g / nqt;
    long b = bh / Hq, h = bh % Hq, hk = h / G;
    long i0 = qt * BQ;
    q += q_o + b * q_0 + h * q_1;
    k += k_o + b * k_0 + hk * k_1;
    v += v_o + b * v_0 + hk * v_1;
    o += o_o + b * o_0 + h * o_1;
    long mb = m_o + b * m_0 + h * m_1;
    ATTN_LOAD_TILE(qs, BQ, q, i0, L, E, q_2, q_3)
    if (t < BQ) {
        mrow[t] = -INFINITY;
        lrow[t] = 0.0f;
    }
    float acc[OPT];
    for (int u = 0; u < OPT; u++)
        acc[u] = 0.0f;
    long kend = causal ? min(S, i0 + BQ) : S;
    for (long j0 = 0; j0 < kend; j0 += BK) {
        barrier(CLK_LOCAL_MEM_FENCE);
        ATTN_LOAD_TILE(kv, BK, k, j0, S, E, k_2, k_3)
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int x = t; x < BQ * BK; x += NT) {
            int r = x / BK, c = x % BK;
            float s = 0.0f;
            for (int e = 0; e < D; e++)
                s = fma(qs[r * DS + e], kv[c * DS + e], s);
            ss[x] = attn_score(s, i0 + r, j0 + c, L, S, scale, causal, mkind, bm, am, mb, m_2, m_3);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        /* value tile into kv while the rows update their statistics */
        ATTN_LOAD_TILE(kv, BK, v, j0, S, Ev, v_2, v_3)
        if (t < BQ) {
            float mold = mrow[t], mx = mold;
            for (int c = 0; c < BK; c++)
                mx = fmax(mx, ss[t * BK + c]);
            float mu = mx == -INFINITY ? 0.0f : mx;
            float al = mx == -INFINITY ? 1.0f : exp(mold - mu);
            float l = lrow[t] * al;
            long i = i0 + t;
            for (int c = 0; c < BK; c++) {
                float pz = exp(ss[t * BK + c] - mu);
                l += pz;
                if (thr && i < L && j0 + c < S)
                    pz *= attn_keep((ulong)((bh * L + i) * S + j0 + c), roff, sk0, sk1, thr,
                                    dscale);
                ss[t * BK + c] = pz;
            }
            mrow[t] = mx;
            lrow[t] = l;
            arow[t] = al;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int u = 0; u < OPT; u++) {
            int x = t + u * NT, r = x / D, c = x % D;
            float a = acc[u] * arow[r];
            for (int jj = 0; jj < BK; jj++)
                a = fma(ss[r * BK + jj], kv[jj * DS + c], a);
            acc[u] = a;
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int u = 0; u < OPT; u++) {
        int x = t + u * NT, r = x / D, c = x % D;
        long i = i0 + r;
        float l = lrow[r];
        if (i < L && c < Ev)
            ST(o, i * o_2 + c * o_3, l == 0.0f ? 0.0f : acc[u] / l);
    }
    if (t < BQ && i0 + t < L)
        lse[bh * L + i0 + t] = lrow[t] == 0.0f ? -INFINITY : mrow[t] + log(lrow[t]);
}

__kernel void attn_bwd_pre(__global const T *gout, ATTN_GEOM(g), __global const T *o, ATTN_GEOM(o),
                           __global float *Dv, long Hq, long L, long Ev, long n)
{
    for (long x = get_global_id(0); x < n; x += get_global_size(0)) {
        long i = x % L, bh = x / L, b = bh / Hq, h = bh % Hq;
        long pg = g_o + b * g_0 + h * g_1 + i * g_2, po = o_o + b * o_0 + h * o_1 + i * o_2;
        float s = 0.0f;
        for (long c = 0; c < Ev; c++)
            s = fma(LD(gout, pg + c * g_3), LD(o, po + c * o_3), s);
        Dv[x] = s;
    }
}

/* ds (and ps: the dropped probabilities) of the BT x BT tile at (i0, j0). */
#define ATTN_BWD_TILE(WITH_P)                                                                   \
    for (int x = t; x < BT * BT; x += NT) {                                                     \
        int r = x / BT, c = x % BT;                                                             \
        long i = i0 + r, j = j0 + c;                                                            \
        float s = 0.0f, dp = 0.0f;                                                              \
        for (int e = 0; e < D; e++) {                                                           \
            s = fma(qs[r * DS + e], ks[c * DS + e], s);                                           \
            dp = fma(dos[r * DS + e], vs[c * DS + e], dp);                                        \
        }                                                                                       \
        s = attn_score(s, i, j, L, S, scale, causal, mkind, bm, am, mb, m_2, m_3);                \
        float lv = lr[r];                                                                       \
        float p = (lv == -INFINITY || s == -INFINITY) ? 0.0f : exp(s - lv);                     \
        float z = (thr && i < L && j < S)                                                       \
                      ? attn_keep((ulong)((bh * L + i) * S + j), roff, sk0, sk1, thr, dscale)   \
                      : 1.0f;                                                                   \
        if (WITH_P)                                                                             \
            ps[x] = p * z;                                                                      \
        ds[x] = p * (dp * z - dr[r]);                                                           \
    }

#define ATTN_BWD_ARGS                                                                           \
    __global const T *q, ATTN_GEOM(q), __global const T *k, ATTN_GEOM(k), __global const T *v, \
        ATTN_GEOM(v), __global const uchar *bm, __global const T *am, ATTN_GEOM(m),             \
        __global const T *gout, ATTN_GEOM(g), __global const float *lse,                          \
        __global const float *Dv, __global T *gr, ATTN_GEOM(r), __global T *gr2, ATTN_GEOM(s),  \
        long Hq, long G, long L, long S, long E, long Ev, long ntile, float scale, int causal,  \
        int mkind, ulong thr, float dscale, uint sk0, uint sk1, ulong roff

/* Loads the query-side tile of (b, h) at rows i0: q, dO, logsumexp, D. */
#define ATTN_LOAD_QSIDE()                                                                       \
    ATTN_LOAD_TILE(qs, BT, (q + q_o + b * q_0 + h * q_1), i0, L, E, q_2, q_3)                        \
    ATTN_LOAD_TILE(dos, BT, (gout + g_o + b * g_0 + h * g_1), i0, L, Ev, g_2, g_3)                    \
    if (t < BT) {                                                                               \
        long i_ = i0 + t;                                                                       \
        lr[t] = i_ < L ? lse[bh * L + i_] : -INFINITY;                                          \
        dr[t] = i_ < L ? Dv[bh * L + i_] : 0.0f;                                                \
    }

__kernel __attribute__((reqd_work_group_size(NT, 1, 1))) void attn_bwd_dkv(ATTN_BWD_ARGS)
{
    /* gr: dK, gr2: dV */
    __local float ks[BT * DS], vs[BT * DS], qs[BT * DS], dos[BT * DS];
    __local float ps[BT * BT], ds[BT * BT], lr[BT], dr[BT];
    int t = get_local_id(0);
    long g = get_group_id(0);
    long kt = g % ntile, bhk = g / ntile;
    long Hkv = Hq / G, b = bhk / Hkv, hk = bhk % Hkv;
    long j0 = kt * BT;
    ATTN_LOAD_TILE(ks, BT, (k + k_o + b * k_0 + hk * k_1), j0, S, E, k_2, k_3)
    ATTN_LOAD_TILE(vs, BT, (v + v_o + b * v_0 + hk * v_1), j0, S, Ev, v_2, v_3)
    float dk[KPT], dv[KPT];
    for (int u = 0; u < KPT; u++)
        dk[u] = dv[u] = 0.0f;
    long nqt = (L + BT - 1) / BT;
    for (long h = hk * G; h < (hk + 1) * G; h++) {
        long bh = b * Hq + h, mb = m_o + b * m_0 + h * m_1;
        for (long qt = causal ? j0 / BT : 0; qt < nqt; qt++) {
            long i0 = qt * BT;
            barrier(CLK_LOCAL_MEM_FENCE);
            ATTN_LOAD_QSIDE()
            barrier(CLK_LOCAL_MEM_FENCE);
            ATTN_BWD_TILE(1)
            barrier(CLK_LOCAL_MEM_FENCE);
            for (int u = 0; u < KPT; u++) {
                int x = t + u * NT, c = x / D, e = x % D;
                float a = dk[u], w = dv[u];
                for (int r = 0; r < BT; r++) {
                    a = fma(ds[r * BT + c], qs[r * DS + e], a);
                    w = fma(ps[r * BT + c], dos[r * DS + e], w);
                }
                dk[u] = a;
                dv[u] = w;
            }
        }
    }
    for (int u = 0; u < KPT; u++) {
        int x = t + u * NT, c = x / D, e = x % D;
        long j = j0 + c;
        if (j < S && e < E)
            ST(gr, r_o + b * r_0 + hk * r_1 + j * r_2 + e * r_3, dk[u] * scale);
        if (j < S && e < Ev)
            ST(gr2, s_o + b * s_0 + hk * s_1 + j * s_2 + e * s_3, dv[u]);
    }
}

__kernel __attribute__((reqd_work_group_size(NT, 1, 1))) void attn_bwd_dq(ATTN_BWD_ARGS)
{
    /* gr: dQ (gr2 unused) */
    __local float ks[BT * DS], vs[BT * DS], qs[BT * DS], dos[BT * DS];
    __local float ps[1], ds[BT * BT], lr[BT], dr[BT];
    int t = get_local_id(0);
    long g = get_group_id(0);
    long qt = g % ntile, bh = g / ntile;
    long b = bh / Hq, h = bh % Hq, hk = h / G;
    long i0 = qt * BT, mb = m_o + b * m_0 + h * m_1;
    ATTN_LOAD_QSIDE()
    float dq[KPT];
    for (int u = 0; u < KPT; u++)
        dq[u] = 0.0f;
    long kend = causal ? min(S, i0 + BT) : S;
    for (long j0 = 0; j0 < kend; j0 += BT) {
        barrier(CLK_LOCAL_MEM_FENCE);
        ATTN_LOAD_TILE(ks, BT, (k + k_o + b * k_0 + hk * k_1), j0, S, E, k_2, k_3)
        ATTN_LOAD_TILE(vs, BT, (v + v_o + b * v_0 + hk * v_1), j0, S, Ev, v_2, v_3)
        barrier(CLK_LOCAL_MEM_FENCE);
        ATTN_BWD_TILE(0)
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int u = 0; u < KPT; u++) {
            int x = t + u * NT, r = x / D, e = x % D;
            float a = dq[u];
            for (int c = 0; c < BT; c++)
                a = fma(ds[r * BT + c], ks[c * DS + e], a);
            dq[u] = a;
        }
    }
    (void)ps;
    (void)gr2;
    for (int u = 0; u < KPT; u++) {
        int x = t + u * NT, r = x / D, e = x % D;
        long i = i0 + r;
        if (i < L && e < E)
            ST(gr, r_o + b * r_0 + h * r_1 + i * r_2 + e * r_3, dq[u] * scale);
    }
}
