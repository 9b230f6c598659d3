/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cl_kernels/gemm.cl: clops' matrix engine (ops/gemm/gemm_engine.c,
 * docs/gemm.md).  One source, specialised by the #defines the host puts in
 * front of it:
 *
 *   GEMM_DT        0 float32, 1 float16, 2 bfloat16: the storage dtype of A,
 *                  B and C.  float16 is read with vload_half, bfloat16 as
 *                  ushort bits; products accumulate in float32 and C is
 *                  rounded once, on store.
 *   GEMM_FMA       the portable FMA atom for GPUs: a BM x BN tile per
 *                  work-group staged through __local, a TM x TN register
 *                  tile per work item (BM, BN, BK, TM, TN).
 *   GEMM_CPU       the FMA atom for CPU devices (POCL): work-groups of one
 *                  item, each computing an (RM * mb) x (16 * NV * NB) block
 *                  of C from packed panels of B and A where it is, with an
 *                  RM x (16 * NV) register tile of float16 vectors (RM, NV,
 *                  MB: the largest mb, NB, KC); no barriers.
 *   GEMM_MMA       NVIDIA mma.sync m16n8k16 (bf16 or fp16 in, fp32
 *                  accumulate): cp.async staging of BK = 32 deep tiles in
 *                  STAGES buffers, ldmatrix fragments, a WM x WN warp tile
 *                  (BM, BN, WM, WN, STAGES, WAIT_GROUPS = STAGES - 2; A_UK,
 *                  B_UK: the unit-stride direction of A and B, 1 along K;
 *                  A_CP, B_CP: 1 when the operand is 16-byte aligned for
 *                  cp.async, else staged with plain loads).  The PTX
 *                  atoms (cp.async, ldmatrix, mma.sync) come from
 *                  cl_kernels/mma.clh, which the host puts in front of
 *                  these programs only.
 *
 *   GEMM_CONV      1 or 2: A is the im2col view of an image, read on the fly
 *                  (implicit-GEMM convolution, ops/conv/conv_gemm.c): row m
 *                  = (sample, output position), column k = (kernel tap,
 *                  channel of the group) with the channel fastest; 1: the
 *                  position is o * stride - pad + j * dilation (a
 *                  convolution's "to small" product), 2: (i + pad - j *
 *                  dilation) / stride where that divides (its "to big"
 *                  product: a transposed convolution, an input gradient).
 *                  C's (and R's) rows are (sample, position) too.  Taps
 *                  outside the image are zeros.
 *
 * The fused epilogue (GEMM_EPILOGUE) is chosen at run time by the argument
 * epi (a uniform branch in the store, so that one program serves every
 * epilogue): bit 0 a bias vector E (e_scale * E[b * e_sb + gm * e_sm + gn *
 * e_sn]), bits 1-2 a residual R of C's shape added before (1) or after (2)
 * the activation, bits 3-6 the activation (ops/gemm/gemm.h gemm_act), all
 * in the float32 accumulator before the one rounding.
 *
 * Every kernel takes the same arguments: the three operands as buffers with
 * element offsets and strides (batch, row, column; any sign, stride 0 for
 * a broadcast batch), M, N, K, alpha, beta and whether beta is zero (C is
 * then not read, as PyTorch does).  Each element of C is one work item's
 * sequential multiply-add chain over k in increasing order (the mma atom
 * sums 16-deep products in the tensor core's fixed order), so a kernel gives
 * the same bits on every run.  Offsets are computed in 64 bits.
 */

#if GEMM_DT == 0
typedef float gemm_t;
#define GLD(p, i) ((p)[i])
#define GST(v, p, i) ((p)[i] = (v))
#elif GEMM_DT == 1
typedef ushort gemm_t;
#define GLD(p, i) vload_half((size_t)(i), (__global const half *)(p))
#define GST(v, p, i) vstore_half_rte((v), (size_t)(i), (__global half *)(p))
#else
typedef ushort gemm_t;
#define GLD(p, i) clops_bf16_to_float((p)[i])
#define GST(v, p, i) ((p)[i] = clops_float_to_bf16(v))
#endif

#ifndef GEMM_CONV
#define GEMM_CONV 0
#endif

/* The operands, then the epilogue's (bias E, residual R) and the
 * convolution geometry of GEMM_CONV (always passed, read only when set):
 * the image's strides (sample, channel, depth, height, width), channels
 * per group cv_cg, kernel taps cv_k*, the sizes of the rows' positions
 * cv_o* and of the image read cv_i*, stride, padding, dilation, and the
 * sample strides of C and R. */
#define GEMM_ARGS                                                                           \
    __global const gemm_t *A, long a_off, long a_sb, long a_sm, long a_sk,                  \
        __global const gemm_t *B, long b_off, long b_sb, long b_sk, long b_sn,              \
        __global gemm_t *C, long c_off, long c_sb, long c_sm, long c_sn, int M, int N, int K, \
        float alpha, float beta, int beta_zero, int tiles_m, int tiles_n,                   \
        int epi, __global const gemm_t *E, long e_off, long e_sm, long e_sn, long e_sb,      \
        float e_scale,                                                                      \
        __global const gemm_t *R, long r_off, long r_sb, long r_sm, long r_sn, long x_sn,   \
        long x_sc, long x_sd, long x_sh, long x_sw, int cv_cg, int cv_kd, int cv_kh,        \
        int cv_kw, int cv_od, int cv_oh, int cv_ow, int cv_id, int cv_ih, int cv_iw,        \
        int cv_sd, int cv_sh, int cv_sw, int cv_pd, int cv_ph, int cv_pw, int cv_dd,        \
        int cv_dh, int cv_dw, long c_img, long r_img

/* Row gm of C (R): a plain row, or (sample, position) of a convolution. */
#if GEMM_CONV
#define CONV_LS (cv_od * cv_oh * cv_ow)
#define ROW_OF(gm, sm, img) ((long)((gm) / CONV_LS) * (img) + (long)((gm) % CONV_LS) * (sm))
#else
#define ROW_OF(gm, sm, img) ((long)(gm) * (sm))
#endif

/* Activation act of the epilogue (numbered as gemm_act in ops/gemm/gemm.h);
 * NaN propagates through each as through PyTorch's. */
static inline float gemm_act(float x, int act)
{
    switch (act) {
    case 1: /* relu */
        return x < 0.0f ? 0.0f : x;
    case 2: /* relu6 (hardtanh 0, 6) */
        return x < 0.0f ? 0.0f : x > 6.0f ? 6.0f : x;
    case 3: /* hardswish */
        return x < -3.0f ? 0.0f : x > 3.0f ? x : x * (x + 3.0f) / 6.0f;
    case 4: /* silu */
        return x / (1.0f + exp(-x));
    case 5: /* gelu, exact */
        return 0.5f * x * (1.0f + erf(x * 0.70710678118654752f));
    case 6: /* gelu, tanh approximation */
        return 0.5f * x * (1.0f + tanh(0.79788456080286536f * (x + 0.044715f * x * x * x)));
    case 7: /* sigmoid */
        return 1.0f / (1.0f + exp(-x));
    default:
        return x;
    }
}

/* The epilogue hook: bias, residual and activation (as epi says) on the
 * float32 value r of C[gm, gn] before its rounding. */
#define GEMM_EPILOGUE(r, gm, gn)                                                            \
    do {                                                                                    \
        if (epi) {                                                                          \
            int res_ = (epi >> 1) & 3;                                                      \
            if (epi & 1)                                                                    \
                r += e_scale * GLD(E, e_off + bat * e_sb + (long)(gm) * e_sm +              \
                                          (long)(gn) * e_sn);                               \
            if (res_ == 1)                                                                  \
                r += GLD(R, r_off + bat * r_sb + ROW_OF(gm, r_sm, r_img) +                  \
                                (long)(gn) * r_sn);                                         \
            r = gemm_act(r, epi >> 3);                                                      \
            if (res_ == 2)                                                                  \
                r += GLD(R, r_off + bat * r_sb + ROW_OF(gm, r_sm, r_img) +                  \
                                (long)(gn) * r_sn);                                         \
        }                                                                                   \
    } while (0)

/* C[gm, gn] = epilogue(alpha * acc + beta * C[gm, gn]), rounded once to C's
 * dtype (cbase: C's offset and batch entry). */
#define GEMM_STORE(acc, gm, gn)                                                             \
    do {                                                                                    \
        long ci_ = cbase + ROW_OF(gm, c_sm, c_img) + (long)(gn) * c_sn;                     \
        float r_ = alpha * (acc);                                                           \
        if (!beta_zero)                                                                     \
            r_ += beta * GLD(C, ci_);                                                       \
        GEMM_EPILOGUE(r_, gm, gn);                                                          \
        GST(r_, C, ci_);                                                                    \
    } while (0)

/* --- the im2col view of GEMM_CONV -------------------------------------------- */
#if GEMM_CONV
/* Row m of A: the image's sample base (abase + n * x_sn) and the three
 * position terms p0..p2 (GEMM_CONV 1: o * stride - pad; 2: i + pad); a row
 * past M gets terms no tap brings into the image. */
#define CONV_ROW(m, base, p0, p1, p2)                                                       \
    do {                                                                                    \
        int m_ = (m), n_ = m_ / CONV_LS, o_ = m_ - n_ * CONV_LS;                            \
        int w_ = o_ % cv_ow, t_ = o_ / cv_ow, h_ = t_ % cv_oh, d_ = t_ / cv_oh;             \
        base = abase + (long)n_ * x_sn;                                                     \
        if (GEMM_CONV == 1) {                                                               \
            p0 = d_ * cv_sd - cv_pd, p1 = h_ * cv_sh - cv_ph, p2 = w_ * cv_sw - cv_pw;      \
        } else {                                                                            \
            p0 = d_ + cv_pd, p1 = h_ + cv_ph, p2 = w_ + cv_pw;                              \
        }                                                                                   \
        if (m_ >= M)                                                                        \
            p0 = GEMM_CONV == 1 ? -0x3fffffff : 0x3fffffff;                                 \
    } while (0)

/* Column k of A: the channel's offset and the taps' terms q0..q2 (j * d). */
#define CONV_COL(k, coff, q0, q1, q2)                                                       \
    do {                                                                                    \
        int k_ = (k), j_ = k_ / cv_cg, c_ = k_ - j_ * cv_cg;                                \
        int w_ = j_ % cv_kw, t_ = j_ / cv_kw;                                               \
        coff = (long)c_ * x_sc;                                                             \
        q0 = (t_ / cv_kh) * cv_dd, q1 = (t_ % cv_kh) * cv_dh, q2 = w_ * cv_dw;              \
    } while (0)

/* One image position term: pos (GEMM_CONV 1: p + q; 2: (p - q) / stride)
 * and whether it lies in the image. */
static inline bool conv_pos(int p, int q, int st, int lim, int *pos)
{
#if GEMM_CONV == 1
    *pos = p + q;
    return (uint)*pos < (uint)lim;
#else
    int t = p - q;
    *pos = t / st;
    return t >= 0 && t - *pos * st == 0 && *pos < lim;
#endif
}

/* The element index of A[row (base, p), column (coff, q)], -1 outside the
 * image. */
static inline long conv_at(long base, int p0, int p1, int p2, long coff, int q0, int q1, int q2,
                           int sd, int sh, int sw, int id, int ih, int iw, long x_sd, long x_sh,
                           long x_sw)
{
    int i0, i1, i2;
    bool in = conv_pos(p0, q0, sd, id, &i0);
    in = conv_pos(p1, q1, sh, ih, &i1) && in;
    in = conv_pos(p2, q2, sw, iw, &i2) && in;
    return in ? base + coff + (long)i0 * x_sd + (long)i1 * x_sh + (long)i2 * x_sw : -1;
}
#define CONV_AT(base, p0, p1, p2, coff, q0, q1, q2)                                         \
    conv_at(base, p0, p1, p2, coff, q0, q1, q2, cv_sd, cv_sh, cv_sw, cv_id, cv_ih, cv_iw,  \
            x_sd, x_sh, x_sw)

/* v = A[gm, gk] (gm < M, gk < K) as a float, 0 outside the image. */
#define A_LOAD_TO(v, gm, gk)                                                                \
    do {                                                                                    \
        long base_, coff_, x_;                                                              \
        int p0_, p1_, p2_, q0_, q1_, q2_;                                                   \
        CONV_ROW(gm, base_, p0_, p1_, p2_);                                                 \
        CONV_COL(gk, coff_, q0_, q1_, q2_);                                                 \
        x_ = CONV_AT(base_, p0_, p1_, p2_, coff_, q0_, q1_, q2_);                           \
        v = x_ < 0 ? 0.0f : GLD(A, x_);                                                     \
    } while (0)
#else
#define A_LOAD_TO(v, gm, gk) (v = GLD(A, abase + (long)(gm) * a_sm + (long)(gk) * a_sk))
#endif

/* Work-group g's batch entry and tile (tm, tn), tiles grouped 8 rows high so
 * that work-groups running together share panels of A and B in cache. */
#define GEMM_TILE_OF(g, bat, tm, tn)                                                        \
    do {                                                                                    \
        long per_ = (long)tiles_m * tiles_n;                                                \
        bat = (long)((g) / per_);                                                           \
        int r_ = (int)((g) - bat * per_);                                                   \
        int span_ = 8 * tiles_n;                                                            \
        int first_ = (r_ / span_) * 8;                                                      \
        int rows_ = min(tiles_m - first_, 8);                                               \
        tm = first_ + (r_ % span_) % rows_;                                                 \
        tn = (r_ % span_) / rows_;                                                          \
    } while (0)

/* ------------------------------------------------------------------------ */
#ifdef GEMM_FMA
#define FMA_WG ((BM / TM) * (BN / TN))

/* The tile loads take A's (B's) unit-stride direction from a_uk (b_uk), a
 * uniform branch, so that neighbouring work items read neighbouring
 * elements in every layout. */
__kernel __attribute__((reqd_work_group_size(FMA_WG, 1, 1))) void gemm_fma(GEMM_ARGS, int a_uk,
                                                                            int b_uk)
{
    __local float As[BK][BM + 1];
    __local float Bs[BK][BN + 1];
    const int lid = (int)get_local_id(0);
    long bat;
    int tm, tn;
    GEMM_TILE_OF(get_group_id(0), bat, tm, tn);
    const int m0 = tm * BM, n0 = tn * BN;
    const int tx = lid % (BN / TN), ty = lid / (BN / TN);
    const long abase = a_off + bat * a_sb, bbase = b_off + bat * b_sb;
    float acc[TM][TN];
#pragma unroll
    for (int i = 0; i < TM; i++)
#pragma unroll
        for (int j = 0; j < TN; j++)
            acc[i][j] = 0.0f;
    for (int k0 = 0; k0 < K; k0 += BK) {
        for (int q = lid; q < BM * BK; q += FMA_WG) {
            int kk = a_uk ? q % BK : q / BM, mm = a_uk ? q / BK : q % BM;
            int gm = m0 + mm, gk = k0 + kk;
            float v = 0.0f;
            if (gm < M && gk < K)
                A_LOAD_TO(v, gm, gk);
            As[kk][mm] = v;
        }
        for (int q = lid; q < BN * BK; q += FMA_WG) {
            int kk = b_uk ? q % BK : q / BN, nn = b_uk ? q / BK : q % BN;
            int gn = n0 + nn, gk = k0 + kk;
            Bs[kk][nn] =
                gn < N && gk < K ? GLD(B, bbase + (long)gk * b_sk + (long)gn * b_sn) : 0.0f;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll 4
        for (int kk = 0; kk < BK; kk++) {
            float a[TM], b[TN];
#pragma unroll
            for (int i = 0; i < TM; i++)
                a[i] = As[kk][ty + i * (BM / TM)];
#pragma unroll
            for (int j = 0; j < TN; j++)
                b[j] = Bs[kk][tx + j * (BN / TN)];
#pragma unroll
            for (int i = 0; i < TM; i++)
#pragma unroll
                for (int j = 0; j < TN; j++)
                    acc[i][j] = fma(a[i], b[j], acc[i][j]);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    const long cbase = c_off + bat * c_sb;
#pragma unroll
    for (int i = 0; i < TM; i++) {
        int gm = m0 + ty + i * (BM / TM);
        if (gm >= M)
            continue;
#pragma unroll
        for (int j = 0; j < TN; j++) {
            int gn = n0 + tx + j * (BN / TN);
            if (gn < N)
                GEMM_STORE(acc[i][j], gm, gn);
        }
    }
}
#endif /* GEMM_FMA */

/* ------------------------------------------------------------------------ */
#ifdef GEMM_CPU
#define RN (16 * NV)
#define CBN (RN * NB)

/* 16 consecutive elements of B as floats (rows of B with unit N stride). */
#if GEMM_DT == 0
#define GLD16(p, i) vload16(0, (p) + (i))
#elif GEMM_DT == 1
#define GLD16(p, i) vload_half16(0, (__global const half *)((p) + (i)))
#else
#define GLD16(p, i) as_float16(convert_uint16(vload16(0, (p) + (i))) << 16)
#endif

/*
 * One work item (a work-group of one) computes a (RM * mb) x CBN block of
 * C.  For each KC-deep slice of K it packs the block's columns of B into
 * RN-column panels ([panel][k][RN], floats; zeros past N), then runs the
 * RM x RN register tile (RM float16 x NV accumulators) over every panel
 * and every RM rows of A, which it reads where it is (rows past M repeat
 * row M - 1 and are not stored), carrying the float sums in Cacc between
 * slices.  Packing B costs a few loads per element and is shared by the
 * block's RM * mb rows; mb (<= MB) is chosen by the host so that every
 * core gets blocks.
 */
__kernel __attribute__((reqd_work_group_size(1, 1, 1))) void gemm_cpu(GEMM_ARGS, int a_uk,
                                                                       int b_uk, int mb)
{
    __local float Bp[CBN * KC];
    __local float Cacc[RM * MB * CBN];
#if GEMM_CONV
    /* RM rows of the im2col view for one KC slice, gathered once and read
     * by every panel. */
    __local float Ap[RM * KC];
#endif
    long bat;
    int tm, tn;
    GEMM_TILE_OF(get_group_id(0), bat, tm, tn);
    const int m0 = tm * RM * mb, n0 = tn * CBN;
    const long abase = a_off + bat * a_sb, bbase = b_off + bat * b_sb;
    for (int k0 = 0; k0 < K || k0 == 0; k0 += KC) {
        const int kc = min(KC, K - k0);
        for (int p = 0; p < CBN / 16; p++) {
            const int nb = n0 + p * 16;
            __local float *dst = Bp + (p / NV) * (KC * RN) + (p % NV) * 16;
            if (b_sn == 1 && nb + 16 <= N) {
                for (int k = 0; k < kc; k++)
                    vstore16(GLD16(B, bbase + (long)(k0 + k) * b_sk + nb), 0, dst + k * RN);
            } else if (b_uk) {
                for (int j = 0; j < 16; j++) {
                    const long base = bbase + (long)(nb + j) * b_sn + (long)k0 * b_sk;
                    if (nb + j < N)
                        for (int k = 0; k < kc; k++)
                            dst[k * RN + j] = GLD(B, base + (long)k * b_sk);
                    else
                        for (int k = 0; k < kc; k++)
                            dst[k * RN + j] = 0.0f;
                }
            } else {
                for (int k = 0; k < kc; k++) {
                    const long base = bbase + (long)(k0 + k) * b_sk + (long)nb * b_sn;
                    for (int j = 0; j < 16; j++)
                        dst[k * RN + j] = nb + j < N ? GLD(B, base + (long)j * b_sn) : 0.0f;
                }
            }
        }
        for (int mi = 0; mi < mb && m0 + mi * RM < M; mi++) {
            long arow[RM];
#pragma unroll
            for (int r = 0; r < RM; r++)
                arow[r] = abase + (long)min(m0 + mi * RM + r, M - 1) * a_sm + (long)k0 * a_sk;
#if GEMM_CONV
            {
                long rb[RM];
                int rp0[RM], rp1[RM], rp2[RM];
                for (int r = 0; r < RM; r++)
                    CONV_ROW(min(m0 + mi * RM + r, M - 1), rb[r], rp0[r], rp1[r], rp2[r]);
                /* A tap's channels form one run of the slice: its
                 * position is checked once, then the run is copied
                 * through the channel stride. */
                for (int k = 0; k < kc;) {
                    long coff;
                    int q0, q1, q2;
                    CONV_COL(k0 + k, coff, q0, q1, q2);
                    const int run = min(kc - k, cv_cg - (k0 + k) % cv_cg);
                    for (int r = 0; r < RM; r++) {
                        long x = CONV_AT(rb[r], rp0[r], rp1[r], rp2[r], coff, q0, q1, q2);
                        __local float *ap = Ap + r * KC + k;
                        if (x < 0)
                            for (int e = 0; e < run; e++)
                                ap[e] = 0.0f;
                        else if (x_sc == 1)
                            for (int e = 0; e < run; e++)
                                ap[e] = GLD(A, x + e);
                        else
                            for (int e = 0; e < run; e++)
                                ap[e] = GLD(A, x + (long)e * x_sc);
                    }
                    k += run;
                }
            }
#define CPU_A(r, k) Ap[(r) * KC + (k)]
#else
#define CPU_A(r, k) GLD(A, arow[r] + (k))
#endif
            for (int ni = 0; ni < NB; ni++) {
                float16 acc[RM][NV];
                __local float *cp = Cacc + (mi * RM) * CBN + ni * RN;
#pragma unroll
                for (int r = 0; r < RM; r++)
#pragma unroll
                    for (int v = 0; v < NV; v++)
                        acc[r][v] = k0 == 0 ? (float16)(0.0f) : vload16(v, cp + r * CBN);
                const __local float *bp = Bp + ni * (KC * RN);
                /* Two copies of the loop: unit stride along K lets the
                 * compiler step the row pointers.  (Kept as copies: one
                 * loop in a helper taking acc by pointer ran 3x slower
                 * under POCL 3.1, and #pragma cannot go in a macro.) */
                if (GEMM_CONV || a_sk == 1) {
                    for (int k = 0; k < kc; k++) {
                        float16 b[NV];
#pragma unroll
                        for (int v = 0; v < NV; v++)
                            b[v] = vload16(v, bp + k * RN);
#pragma unroll
                        for (int r = 0; r < RM; r++) {
                            float16 a = (float16)(CPU_A(r, k));
#pragma unroll
                            for (int v = 0; v < NV; v++)
                                acc[r][v] = mad(a, b[v], acc[r][v]);
                        }
                    }
                } else {
                    for (int k = 0; k < kc; k++) {
                        float16 b[NV];
#pragma unroll
                        for (int v = 0; v < NV; v++)
                            b[v] = vload16(v, bp + k * RN);
#pragma unroll
                        for (int r = 0; r < RM; r++) {
                            float16 a = (float16)(GLD(A, arow[r] + (long)k * a_sk));
#pragma unroll
                            for (int v = 0; v < NV; v++)
                                acc[r][v] = mad(a, b[v], acc[r][v]);
                        }
                    }
                }
#pragma unroll
                for (int r = 0; r < RM; r++)
#pragma unroll
                    for (int v = 0; v < NV; v++)
                        vstore16(acc[r][v], v, cp + r * CBN);
            }
        }
        if (K == 0)
            break;
    }
    const long cbase = c_off + bat * c_sb;
    for (int m = 0; m < RM * mb && m0 + m < M; m++)
        for (int n = 0; n < CBN && n0 + n < N; n++)
            GEMM_STORE(Cacc[m * CBN + n], m0 + m, n0 + n);
}
#endif /* GEMM_CPU */

/* ------------------------------------------------------------------------ */
#ifdef GEMM_MMA
/*
 * Tiles in __local, 16-byte chunks of CE elements (8 float16/bfloat16, 4
 * float32), BK = 4 CE deep, XOR-swizzled so that the eight row addresses
 * of every ldmatrix fall in distinct bank groups:
 *   K-major tile [rows][BK] (A with unit stride along K, B along K): 4
 *     chunks a row, chunk c of row r stored at c ^ ((r >> 1) & 3);
 *   M/N-major tile [BK][rows] (unit stride along M or N): rows / CE >= 8
 *     chunks a row, chunk c of row r stored at c ^ (r & 7).
 * A is multiplied as the "row" operand and B as the "col" operand of
 * mma.m16n8k16 (float16/bfloat16) or mma.m16n8k8 (float32 as TF32, rounded
 * to nearest with cvt.rna: the "high" and "medium" precision modes only);
 * ldmatrix.trans serves the 16-bit M/N-major tiles, scalar __local reads
 * the 32-bit ones.
 */
#define CE (16 / (int)sizeof(gemm_t))
#define BK (4 * CE)
#define WARPS ((BM / WM) * (BN / WN))
#define MMA_WG (WARPS * 32)
#define MT (WM / 16)
#define NT (WN / 8)
#define A_TILE (BM * BK)
#define B_TILE (BN * BK)
#if GEMM_DT == 1
#define MMA_TY "f16"
#else
#define MMA_TY "bf16"
#endif

/* Element index of chunk c of row r in a K-major / an M- or N-major tile,
 * and of element e of row r in an M- or N-major tile. */
#define KMAJ(r, c) ((r) * BK + (((c) ^ (((r) >> 1) & 3)) * CE))
#define XMAJ(r, c, rows) ((r) * (rows) + (((c) ^ ((r) & 7)) * CE))
#define XIDX(r, e, rows) (XMAJ(r, (e) / CE, rows) + (e) % CE)

/* CE elements P[base + e * step], e < n (0..CE), zeros after them, into
 * one 16-byte chunk: the staging of operands cp.async cannot take. */
static inline void gemm_plain(__local gemm_t *dst, __global const gemm_t *P, long base, long step,
                              int n)
{
#pragma unroll
    for (int e = 0; e < CE; e++)
        dst[e] = e < n ? P[base + e * step] : (gemm_t)0;
}

/*
 * The staging of one operand X (A: rows M, "other" stride a_sm; B: rows N,
 * b_sn) into a tile of R rows: chunk i of this work item is fixed for the
 * whole loop, so its address and bounds are computed once (xp, xl, xr) and
 * each K-slice adds k0 (unit stride along K) or k0 * stride (unit stride
 * along rows).  X_CP: 16-byte cp.async (aligned operands), else plain loads
 * with the operand's strides.
 */
#define STAGE_SETUP(X, R, X_UK, X_CP, base, srow, sk, lim_rows)                              \
    long X##p[R * 4 / MMA_WG];                                                              \
    int X##l[R * 4 / MMA_WG], X##r[R * 4 / MMA_WG], X##o[R * 4 / MMA_WG];                   \
    for (int i = 0; i < R * 4 / MMA_WG; i++)                                                \
    {                                                                                       \
        int q = lid + i * MMA_WG;                                                           \
        if (X_UK) {                                                                         \
            int r = q >> 2, c = q & 3, g = r0_##X + r;                                      \
            X##o[i] = KMAJ(r, c);                                                           \
            X##r[i] = c * CE;                                                               \
            X##l[i] = g < lim_rows ? K - c * CE : 0;                                        \
            X##p[i] = base + (long)(g < lim_rows ? g : 0) * srow +                          \
                      (long)(c * CE) * (X_CP ? 1 : sk);                                     \
        } else {                                                                            \
            int r = q / (R / CE), c = q % (R / CE), g = r0_##X + c * CE;                    \
            X##o[i] = XMAJ(r, c, R);                                                        \
            X##r[i] = r;                                                                    \
            X##l[i] = lim_rows - g;                                                         \
            X##p[i] = base + (long)r * sk + (long)(g < lim_rows ? g : 0) * srow;            \
        }                                                                                   \
    }

#define STAGE_RUN(X, R, X_UK, X_CP, P, tile, k0, srow, sk)                                  \
    for (int i = 0; i < R * 4 / MMA_WG; i++)                                                \
    {                                                                                       \
        int n_;                                                                             \
        long at_;                                                                           \
        if (X_UK) {                                                                         \
            n_ = clamp(X##l[i] - (k0), 0, CE);                                              \
            at_ = X##p[i] + (long)(k0) * (X_CP ? 1 : sk);                                   \
        } else {                                                                            \
            n_ = (k0) + X##r[i] < K ? clamp(X##l[i], 0, CE) : 0;                            \
            at_ = X##p[i] + (long)(k0) * sk;                                                \
        }                                                                                   \
        if (X_CP)                                                                           \
            mma_cp16((tile) + X##o[i], n_ ? P + at_ : P, n_ * (int)sizeof(gemm_t));        \
        else                                                                                \
            gemm_plain((tile) + X##o[i], P, at_, X_UK ? sk : srow, n_);                     \
    }

/*
 * The staging of A.  A plain operand goes through STAGE_SETUP/STAGE_RUN.
 * The im2col view of GEMM_CONV precomputes the decomposition of each of
 * the work item's rows (K-major tiles: a chunk is CE channels of one tap
 * of one row) or recomputes it per element (M-major tiles, plain loads: a
 * chunk is CE rows at one column).  With A_CP the channels of a tap are
 * contiguous and 16-byte aligned (the host checks: cv_cg a multiple of CE,
 * unit channel stride, aligned strides and offset), so a chunk is one
 * cp.async or, outside the image, zeros.
 */
#if GEMM_CONV
#define APC (BM * 4 / MMA_WG)
#if A_UK
#define STAGE_A_SETUP                                                                       \
    long ab[APC];                                                                           \
    int ap0[APC], ap1[APC], ap2[APC], ao[APC];                                              \
    for (int i = 0; i < APC; i++) {                                                         \
        int q = lid + i * MMA_WG, r = q >> 2;                                               \
        ao[i] = KMAJ(r, q & 3);                                                             \
        CONV_ROW(m0 + r, ab[i], ap0[i], ap1[i], ap2[i]);                                    \
    }
#if A_CP
#define STAGE_A_RUN(tile, k0)                                                               \
    {                                                                                       \
        long coff_ = 0;                                                                     \
        int q0_ = 0, q1_ = 0, q2_ = 0, kk_ = (k0) + (lid & 3) * CE;                         \
        if (kk_ < K)                                                                        \
            CONV_COL(kk_, coff_, q0_, q1_, q2_);                                            \
        for (int i = 0; i < APC; i++) {                                                     \
            long x_ = kk_ < K ? CONV_AT(ab[i], ap0[i], ap1[i], ap2[i], coff_, q0_, q1_, q2_) \
                              : -1;                                                         \
            mma_cp16((tile) + ao[i], x_ >= 0 ? A + x_ : A, x_ >= 0 ? 16 : 0);               \
        }                                                                                   \
    }
#else
#define STAGE_A_RUN(tile, k0)                                                               \
    for (int i = 0; i < APC; i++) {                                                         \
        for (int e = 0; e < CE; e++)                                                        \
        {                                                                                   \
            int kk_ = (k0) + (lid & 3) * CE + e;                                            \
            long x_ = -1, coff_;                                                            \
            int q0_, q1_, q2_;                                                              \
            if (kk_ < K) {                                                                  \
                CONV_COL(kk_, coff_, q0_, q1_, q2_);                                        \
                x_ = CONV_AT(ab[i], ap0[i], ap1[i], ap2[i], coff_, q0_, q1_, q2_);          \
            }                                                                               \
            (tile)[ao[i] + e] = x_ >= 0 ? A[x_] : (gemm_t)0;                                \
        }                                                                                   \
    }
#endif
#else /* M-major tile of the im2col view: plain loads */
#define STAGE_A_SETUP                                                                       \
    int ao[APC], ar[APC], ag[APC];                                                          \
    for (int i = 0; i < APC; i++) {                                                         \
        int q = lid + i * MMA_WG, r = q / (BM / CE), c = q % (BM / CE);                     \
        ao[i] = XMAJ(r, c, BM);                                                             \
        ar[i] = r;                                                                          \
        ag[i] = m0 + c * CE;                                                                \
    }
#define STAGE_A_RUN(tile, k0)                                                               \
    for (int i = 0; i < APC; i++) {                                                         \
        int kk_ = (k0) + ar[i], q0_ = 0, q1_ = 0, q2_ = 0;                                  \
        long coff_ = 0;                                                                     \
        if (kk_ < K)                                                                        \
            CONV_COL(kk_, coff_, q0_, q1_, q2_);                                            \
        for (int e = 0; e < CE; e++)                                                        \
        {                                                                                   \
            long x_ = -1, b_;                                                               \
            int p0_, p1_, p2_;                                                              \
            if (kk_ < K && ag[i] + e < M) {                                                 \
                CONV_ROW(ag[i] + e, b_, p0_, p1_, p2_);                                     \
                x_ = CONV_AT(b_, p0_, p1_, p2_, coff_, q0_, q1_, q2_);                      \
            }                                                                               \
            (tile)[ao[i] + e] = x_ >= 0 ? A[x_] : (gemm_t)0;                                \
        }                                                                                   \
    }
#endif
#else
#define STAGE_A_SETUP STAGE_SETUP(a, BM, A_UK, A_CP, abase, a_sm, a_sk, M)
#define STAGE_A_RUN(tile, k0) STAGE_RUN(a, BM, A_UK, A_CP, A, tile, k0, a_sm, a_sk)
#endif

__kernel __attribute__((reqd_work_group_size(MMA_WG, 1, 1))) void gemm_mma(GEMM_ARGS)
{
    __local gemm_t As[STAGES * A_TILE] __attribute__((aligned(16)));
    __local gemm_t Bs[STAGES * B_TILE] __attribute__((aligned(16)));
    const int lid = (int)get_local_id(0);
    const int lane = lid & 31, warp = lid >> 5;
    const int wm0 = (warp / (BN / WN)) * WM, wn0 = (warp % (BN / WN)) * WN;
    long bat;
    int tm, tn;
    GEMM_TILE_OF(get_group_id(0), bat, tm, tn);
    const int m0 = tm * BM, n0 = tn * BN;
    const long abase = a_off + bat * a_sb, bbase = b_off + bat * b_sb;
    const int ktiles = (K + BK - 1) / BK;
    const int r0_a = m0, r0_b = n0;
    STAGE_A_SETUP
    STAGE_SETUP(b, BN, B_UK, B_CP, bbase, b_sn, b_sk, N)

    float acc[MT][NT][4];
#pragma unroll
    for (int i = 0; i < MT; i++)
#pragma unroll
        for (int j = 0; j < NT; j++)
#pragma unroll
            for (int e = 0; e < 4; e++)
                acc[i][j][e] = 0.0f;

#pragma unroll
    for (int s = 0; s < STAGES - 1; s++) {
        if (s < ktiles) {
            STAGE_A_RUN(As + s * A_TILE, s * BK)
            STAGE_RUN(b, BN, B_UK, B_CP, B, Bs + s * B_TILE, s * BK, b_sn, b_sk)
        }
        MMA_CP_COMMIT();
    }

    /* The lane's row and chunk within each ldmatrix.x4 (see docs/gemm.md):
     * lanes 8j..8j+7 address the rows of matrix j. */
    const int lr = lane & 7, lj = lane >> 3;
    for (int kt = 0; kt < ktiles; kt++) {
        MMA_CP_WAIT(WAIT_GROUPS);
        barrier(CLK_LOCAL_MEM_FENCE);
        {
            int nk = kt + STAGES - 1;
            if (nk < ktiles) {
                int s = nk % STAGES;
                STAGE_A_RUN(As + s * A_TILE, nk * BK)
                STAGE_RUN(b, BN, B_UK, B_CP, B, Bs + s * B_TILE, nk * BK, b_sn, b_sk)
            }
            MMA_CP_COMMIT();
        }
        const int s = kt % STAGES;
        __local const gemm_t *as = As + s * A_TILE;
        __local const gemm_t *bs = Bs + s * B_TILE;
#if GEMM_DT == 0
        /* TF32: 8-deep steps; fragments a (g, t), (g + 8, t), (g, t + 4),
         * (g + 8, t + 4) and b (k t, n g), (k t + 4, n g), g = lane / 4,
         * t = lane % 4 (ldmatrix of 32-bit rows gives the K-major ones). */
        const int g = lane >> 2, t = lane & 3;
#pragma unroll
        for (int kk = 0; kk < BK; kk += 8) {
            uint af[MT][4], bf[NT][2];
#pragma unroll
            for (int i = 0; i < MT; i++) {
#if A_UK
                int r = wm0 + i * 16 + lr + 8 * (lj & 1), c = kk / CE + (lj >> 1);
                MMA_LDSM_X4(af[i], mma_saddr(as + KMAJ(r, c)));
#else
                int m = wm0 + i * 16 + g;
                af[i][0] = as_uint(as[XIDX(kk + t, m, BM)]);
                af[i][1] = as_uint(as[XIDX(kk + t, m + 8, BM)]);
                af[i][2] = as_uint(as[XIDX(kk + t + 4, m, BM)]);
                af[i][3] = as_uint(as[XIDX(kk + t + 4, m + 8, BM)]);
#endif
#pragma unroll
                for (int e = 0; e < 4; e++)
                    MMA_TF32(af[i][e]);
            }
#pragma unroll
            for (int p = 0; p < NT / 2; p++) {
#if B_UK
                uint q4[4];
                int r = wn0 + p * 16 + lr + 8 * (lj >> 1), c = kk / CE + (lj & 1);
                MMA_LDSM_X4(q4, mma_saddr(bs + KMAJ(r, c)));
                bf[2 * p][0] = q4[0];
                bf[2 * p][1] = q4[1];
                bf[2 * p + 1][0] = q4[2];
                bf[2 * p + 1][1] = q4[3];
#else
                int n = wn0 + p * 16 + g;
                bf[2 * p][0] = as_uint(bs[XIDX(kk + t, n, BN)]);
                bf[2 * p][1] = as_uint(bs[XIDX(kk + t + 4, n, BN)]);
                bf[2 * p + 1][0] = as_uint(bs[XIDX(kk + t, n + 8, BN)]);
                bf[2 * p + 1][1] = as_uint(bs[XIDX(kk + t + 4, n + 8, BN)]);
#endif
            }
#pragma unroll
            for (int j = 0; j < NT; j++)
#pragma unroll
                for (int e = 0; e < 2; e++)
                    MMA_TF32(bf[j][e]);
#pragma unroll
            for (int i = 0; i < MT; i++)
#pragma unroll
                for (int j = 0; j < NT; j++)
                    MMA_M16N8K8_TF32(acc[i][j], af[i], bf[j]);
        }
#else
#pragma unroll
        for (int kk = 0; kk < BK; kk += 16) {
            uint af[MT][4], bf[NT][2];
#pragma unroll
            for (int i = 0; i < MT; i++) {
#if A_UK
                int r = wm0 + i * 16 + lr + 8 * (lj & 1), c = (kk / CE) + (lj >> 1);
                MMA_LDSM_X4(af[i], mma_saddr(as + KMAJ(r, c)));
#else
                int r = kk + lr + 8 * (lj >> 1), c = (wm0 + i * 16) / CE + (lj & 1);
                MMA_LDSM_X4_T(af[i], mma_saddr(as + XMAJ(r, c, BM)));
#endif
            }
#pragma unroll
            for (int p = 0; p < NT / 2; p++) {
                uint t[4];
#if B_UK
                int r = wn0 + p * 16 + lr + 8 * (lj >> 1), c = (kk / CE) + (lj & 1);
                MMA_LDSM_X4(t, mma_saddr(bs + KMAJ(r, c)));
#else
                int r = kk + lr + 8 * (lj & 1), c = (wn0 + p * 16) / CE + (lj >> 1);
                MMA_LDSM_X4_T(t, mma_saddr(bs + XMAJ(r, c, BN)));
#endif
                bf[2 * p][0] = t[0];
                bf[2 * p][1] = t[1];
                bf[2 * p + 1][0] = t[2];
                bf[2 * p + 1][1] = t[3];
            }
#pragma unroll
            for (int i = 0; i < MT; i++)
#pragma unroll
                for (int j = 0; j < NT; j++)
                    MMA_M16N8K16(acc[i][j], af[i], bf[j], MMA_TY);
        }
#endif
    }
    MMA_CP_WAIT(0);

    /* acc[i][j][e]: row g (+8 for e >= 2), column 2t + (e & 1) of the
     * 16 x 8 tile (i, j), g = lane / 4, t = lane % 4. */
    const long cbase = c_off + bat * c_sb;
    const int g = lane >> 2, t = lane & 3;
#pragma unroll
    for (int i = 0; i < MT; i++)
#pragma unroll
        for (int e2 = 0; e2 < 2; e2++) {
            int gm = m0 + wm0 + i * 16 + g + 8 * e2;
            if (gm >= M)
                continue;
#pragma unroll
            for (int j = 0; j < NT; j++)
#pragma unroll
                for (int e1 = 0; e1 < 2; e1++) {
                    int gn = n0 + wn0 + j * 8 + 2 * t + e1;
                    if (gn < N)
                        GEMM_STORE(acc[i][j][2 * e2 + e1], gm, gn);
                }
        }
}
#endif /* GEMM_MMA */
