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
 *                  3: the weight gradient ("to weight"): A is the transposed
 *                  view, row m = (tap, channel of the group), column k =
 *                  (sample, position of the small image), positions as in
 *                  1; B is the small image, row k at (k / Ls) * b_img +
 *                  (k % Ls) * b_sk (Ls its positions), column n (a channel
 *                  of the group) at n * b_sn; C is the weight, row m at
 *                  (m / cv_cg) * c_img + (m % cv_cg) * c_sm (tap stride
 *                  c_img, channel stride c_sm).  K = samples * Ls is long:
 *                  this mode splits along K (GEMM_SPLIT), a split's k
 *                  offset kept in koff_ rather than in the operands' bases.
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

/* The operands, the split's workspace, then the epilogue's (bias E,
 * residual R) and the convolution geometry of GEMM_CONV (always passed,
 * read only when set): the image's strides (sample, channel, depth,
 * height, width), channels per group cv_cg, kernel taps cv_k*, the sizes of
 * the rows' positions cv_o* and of the image read cv_i*, stride, padding,
 * dilation, and the sample strides of C and R. */
#define GEMM_ARGS                                                                           \
    __global const gemm_t *A, long a_off, long a_sb, long a_sm, long a_sk,                  \
        __global const gemm_t *B, long b_off, long b_sb, long b_sk, long b_sn,              \
        __global gemm_t *C, long c_off, long c_sb, long c_sm, long c_sn, int M, int N, int K, \
        float alpha, float beta, int beta_zero, int tiles_m, int tiles_n, __global float *W, \
        int nbatch, int splits, int kper, int epi, __global const gemm_t *E, long e_off,   \
        long e_sm, long e_sn, long e_sb, float e_scale, __global const gemm_t *R,           \
        long r_off, long r_sb, long r_sm, long r_sn, long x_sn, long x_sc, long x_sd,       \
        long x_sh, long x_sw, int cv_cg, int cv_kd, int cv_kh, int cv_kw, int cv_od,        \
        int cv_oh, int cv_ow, int cv_id, int cv_ih, int cv_iw, int cv_sd, int cv_sh,        \
        int cv_sw, int cv_pd, int cv_ph, int cv_pw, int cv_dd, int cv_dh, int cv_dw,        \
        long c_img, long r_img, long b_img

/* Row gm of C (R): a plain row, (sample, position) of a convolution, or
 * (tap, channel) of a weight gradient. */
#if GEMM_CONV == 3
#define CONV_LS (cv_od * cv_oh * cv_ow)
#define ROW_OF(gm, sm, img) ((long)((gm) / cv_cg) * (img) + (long)((gm) % cv_cg) * (sm))
#elif GEMM_CONV
#define CONV_LS (cv_od * cv_oh * cv_ow)
#define ROW_OF(gm, sm, img) ((long)((gm) / CONV_LS) * (img) + (long)((gm) % CONV_LS) * (sm))
#else
#define ROW_OF(gm, sm, img) ((long)(gm) * (sm))
#endif

/* Activation act of the epilogue (numbered as gemm_act in ops/gemm/gemm.h),
 * in float: cl_kernels/act.clh, shared with the convolution kernels. */
CLOPS_ACT_FN(gemm_act, float)
/* GEMM_ACT_CALL (the wgmma programs that store C through __local, the
 * host's switch CLOPS_GEMM_ACT_CALL): their store writes the epilogue once
 * per element of fully unrolled loops, and 128 copies of the activations'
 * erf/tanh/exp sequences made a program's PTX about 1 MB and its build 6-8
 * s of ptxas (engine9's job); one function called from each (not inlined)
 * keeps one copy.  Products without an activation (act 0) do not call it.
 * Not where the accumulators stay live across the calls (the fragments'
 * own stores: ptxas then needs far more registers). */
/* GEMM_ACT_ANY 0 (programs that store C from the fragments, mma.sync or
 * wgmma, for products without an activation, whose launches pass act 0):
 * no activation code at all. */
#if defined(GEMM_ACT_ANY) && !GEMM_ACT_ANY
#define GEMM_ACT(x, act) (x)
#elif defined(GEMM_ACT_CALL) && GEMM_ACT_CALL
__attribute__((noinline)) static float gemm_act_call(float x, int act)
{
    return gemm_act(x, act);
}
#define GEMM_ACT(x, act) ((act) ? gemm_act_call(x, act) : (x))
#else
#define GEMM_ACT(x, act) gemm_act(x, act)
#endif

/* The epilogue's operands at C[gm, gn]: the bias element (read only when
 * epi has a bias) and the residual element (only when it has one). */
#define GEMM_EPI_E(gm, gn) GLD(E, e_off + bat * e_sb + (long)(gm) * e_sm + (long)(gn) * e_sn)
#define GEMM_EPI_R(gm, gn) GLD(R, r_off + bat * r_sb + ROW_OF(gm, r_sm, r_img) + (long)(gn) * r_sn)

/* The epilogue hook: bias, residual and activation (as epi says) on the
 * float32 value r of C[gm, gn] before its rounding, ev and rv the bias and
 * residual elements (GEMM_EPI_E / GEMM_EPI_R, or values read before). */
#define GEMM_EPILOGUE_V(r, ev, rv)                                                          \
    do {                                                                                    \
        if (epi) {                                                                          \
            int res_ = (epi >> 1) & 3;                                                      \
            if (epi & 1)                                                                    \
                r += e_scale * (ev);                                                        \
            if (res_ == 1)                                                                  \
                r += (rv);                                                                  \
            r = GEMM_ACT(r, epi >> 3);                                                      \
            if (res_ == 2)                                                                  \
                r += (rv);                                                                  \
        }                                                                                   \
    } while (0)


/*
 * The one place where results are written (the hook for epilogues): the
 * float32 sum acc of row gm, column gn of this work-group's batch entry.
 * Normally C = alpha * acc + beta * C, rounded once to C's dtype (C is not
 * read when beta is zero); a work-group of a split product (partial_)
 * writes its float32 partial sum to the workspace W instead, and
 * gemm_reduce sums the partials in split order and stores through here.
 * GEMM_STORE_AT takes C's row index crow (cbase + ROW_OF(gm, c_sm, c_img))
 * and the epilogue's operands (GEMM_EPILOGUE_V) from the caller.
 */
#define GEMM_STORE_AT(acc, gm, gn, crow, ev, rv)                                            \
    do {                                                                                    \
        if (partial_) {                                                                     \
            W[wbase + (long)(gm) * N + (gn)] = (acc);                                       \
        } else {                                                                            \
            long ci_ = (crow) + (long)(gn) * c_sn;                                          \
            float r_ = alpha * (acc);                                                       \
            if (!beta_zero)                                                                 \
                r_ += beta * GLD(C, ci_);                                                   \
            GEMM_EPILOGUE_V(r_, ev, rv);                                                    \
            GST(r_, C, ci_);                                                                \
        }                                                                                   \
    } while (0)
#define GEMM_STORE(acc, gm, gn)                                                             \
    GEMM_STORE_AT(acc, gm, gn, cbase + ROW_OF(gm, c_sm, c_img), GEMM_EPI_E(gm, gn),         \
                  GEMM_EPI_R(gm, gn))

/* Work-group g's batch entry and tile (tm, tn), tiles grouped GEMM_RASTER
 * rows high so that work-groups running together share panels of A and B
 * in cache. */
#ifndef GEMM_RASTER
#define GEMM_RASTER 8
#endif
#define GEMM_TILE_OF(g, bat, tm, tn)                                                        \
    do {                                                                                    \
        long per_ = (long)tiles_m * tiles_n;                                                \
        bat = (long)((g) / per_);                                                           \
        /* idx32: r_ < groups <= INT32_MAX / 16, checked in                                 \
           ops/gemm/gemm_engine.c (engine_launch) */                                        \
        int r_ = (int)((g) - bat * per_);                                                   \
        int span_ = GEMM_RASTER * tiles_n;                                                            \
        int first_ = (r_ / span_) * GEMM_RASTER;                                                      \
        int rows_ = min(tiles_m - first_, GEMM_RASTER);                                               \
        tm = first_ + (r_ % span_) % rows_;                                                 \
        tn = (r_ % span_) / rows_;                                                          \
    } while (0)

/*
 * The start of every kernel: work-group g's split of K (GEMM_SPLIT 1, a
 * program of its own: the groups of split s are the s-th run of
 * nbatch * tiles_m * tiles_n), batch entry and tile; A's and B's bases
 * moved to the split's first k and K made its length (kper each, the last
 * one shorter); C's base and the split's partials in W ([splits][nbatch]
 * [M][N] floats).  (Without GEMM_SPLIT none of this stays live through
 * the K loop: with it, the mma atom's plain-load staging spilled.)
 */
#ifndef GEMM_SPLIT
#define GEMM_SPLIT 0
#endif
#if GEMM_SPLIT
#define GEMM_BEGIN(bat, tm, tn)                                                             \
    long bat;                                                                               \
    int tm, tn;                                                                             \
    const long gps_ = (long)nbatch * tiles_m * tiles_n;                                     \
    const long split_ = (long)get_group_id(0) / gps_;                                       \
    GEMM_TILE_OF((long)get_group_id(0) - split_ * gps_, bat, tm, tn);                       \
    const long kb_ = split_ * kper;                                                         \
    K = (int)min((long)K - kb_, (long)kper);                                                \
    const long abase = a_off + bat * a_sb + (GEMM_CONV == 3 ? 0 : kb_ * a_sk);              \
    const long bbase = b_off + bat * b_sb + (GEMM_CONV == 3 ? 0 : kb_ * b_sk);              \
    const int koff_ = (int)kb_;                                                             \
    const long cbase = c_off + bat * c_sb;                                                  \
    const long wbase = (split_ * nbatch + bat) * M * N;                                     \
    const bool partial_ = true
#else
#define GEMM_BEGIN(bat, tm, tn) GEMM_BEGIN_AT(get_group_id(0), bat, tm, tn)
#endif
/* (Without GEMM_SPLIT: tile g's, for persistent kernels.) */
#define GEMM_BEGIN_AT(g, bat, tm, tn)                                                       \
    long bat;                                                                               \
    int tm, tn;                                                                             \
    GEMM_TILE_OF(g, bat, tm, tn);                                                           \
    const long abase = a_off + bat * a_sb, bbase = b_off + bat * b_sb;                      \
    const long cbase = c_off + bat * c_sb, wbase = 0;                                       \
    const bool partial_ = false;                                                            \
    const int koff_ = 0;                                                                    \
    (void)wbase, (void)splits, (void)kper, (void)nbatch, (void)W, (void)koff_

/* --- the im2col view of GEMM_CONV -------------------------------------------- */
#if GEMM_CONV
/* Row m of A (GEMM_CONV 3: column m): the image's sample base (abase + n *
 * x_sn) and the three position terms p0..p2 (GEMM_CONV 1 and 3: o * stride
 * - pad; 2: i + pad); a row past M gets terms no tap brings into the image
 * (GEMM_CONV 3: the callers keep k below K). */
#define CONV_ROW(m, base, p0, p1, p2)                                                       \
    do {                                                                                    \
        int m_ = (m), n_ = m_ / CONV_LS, o_ = m_ - n_ * CONV_LS;                            \
        int w_ = o_ % cv_ow, t_ = o_ / cv_ow, h_ = t_ % cv_oh, d_ = t_ / cv_oh;             \
        base = abase + (long)n_ * x_sn;                                                     \
        if (GEMM_CONV != 2) {                                                               \
            p0 = d_ * cv_sd - cv_pd, p1 = h_ * cv_sh - cv_ph, p2 = w_ * cv_sw - cv_pw;      \
        } else {                                                                            \
            p0 = d_ + cv_pd, p1 = h_ + cv_ph, p2 = w_ + cv_pw;                              \
        }                                                                                   \
        if (GEMM_CONV != 3 && m_ >= M)                                                      \
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

/* One image position term: pos (GEMM_CONV 1, 3: p + q; 2: (p - q) /
 * stride, no division for a unit stride: the depth of 2-D images, the
 * stride-1 dims of a strided layer) and whether it lies in the image. */
static inline bool conv_pos(int p, int q, int st, int lim, int *pos)
{
#if GEMM_CONV != 2
    *pos = p + q;
    return (uint)*pos < (uint)lim;
#else
    int t = p - q;
    if (st == 1) {
        *pos = t;
        return (uint)t < (uint)lim;
    }
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
#if GEMM_CONV == 3
#define A_VIEW_RC(gm, gk, base_, p0_, p1_, p2_, coff_, q0_, q1_, q2_)                       \
    CONV_ROW(koff_ + (gk), base_, p0_, p1_, p2_);                                           \
    CONV_COL(gm, coff_, q0_, q1_, q2_)
#else
#define A_VIEW_RC(gm, gk, base_, p0_, p1_, p2_, coff_, q0_, q1_, q2_)                       \
    CONV_ROW(gm, base_, p0_, p1_, p2_);                                                     \
    CONV_COL(gk, coff_, q0_, q1_, q2_)
#endif
#define A_LOAD_TO(v, gm, gk)                                                                \
    do {                                                                                    \
        long base_, coff_, x_;                                                              \
        int p0_, p1_, p2_, q0_, q1_, q2_;                                                   \
        A_VIEW_RC(gm, gk, base_, p0_, p1_, p2_, coff_, q0_, q1_, q2_);                      \
        x_ = CONV_AT(base_, p0_, p1_, p2_, coff_, q0_, q1_, q2_);                           \
        v = x_ < 0 ? 0.0f : GLD(A, x_);                                                     \
    } while (0)
#else
#define A_LOAD_TO(v, gm, gk) (v = GLD(A, abase + (long)(gm) * a_sm + (long)(gk) * a_sk))
#endif

/* The offset of B's row k (of this split): the small image's (sample,
 * position) for GEMM_CONV 3. */
#if GEMM_CONV == 3
#define B_KROW(k)                                                                           \
    ((long)((koff_ + (k)) / CONV_LS) * b_img + (long)((koff_ + (k)) % CONV_LS) * b_sk)
#else
#define B_KROW(k) ((long)(k) * b_sk)
#endif

#if (GEMM_CONV == 1 || GEMM_CONV == 2) && GEMM_SPLIT
#error "the im2col view of GEMM_CONV 1 and 2 is not split"
#endif
#if GEMM_CONV && defined(GEMM_SKINNY)
#error "the im2col view of GEMM_CONV is not skinny"
#endif

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
    GEMM_BEGIN(bat, tm, tn);
    const int m0 = tm * BM, n0 = tn * BN;
    const int tx = lid % (BN / TN), ty = lid / (BN / TN);
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
                gn < N && gk < K ? GLD(B, bbase + B_KROW(gk) + (long)gn * b_sn) : 0.0f;
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
#if GEMM_CONV == 3
    /* The slice's columns of A (rows of B): B's row offsets and the image
     * sample bases and position terms, decomposed once per slice. */
    __local long Brow[KC], Xb[KC];
    __local int Xp[3 * KC];
#define CPU_BROW(k) Brow[k]
#else
#define CPU_BROW(k) ((long)(k0 + (k)) * b_sk)
#endif
#if GEMM_CONV == 1 || GEMM_CONV == 2
    /* The slice's runs of columns (one tap's channels each), decomposed
     * once per slice for every row block: at a run's first column k, the
     * channel offset Kc[k] and Kq[4k..4k+3] = the tap's terms and the run's
     * length (a small channel count, the RGB stem's 3, makes many runs). */
    __local long Kc[KC];
    __local int Kq[4 * KC];
#endif
    GEMM_BEGIN(bat, tm, tn);
    const int m0 = tm * RM * mb, n0 = tn * CBN;
    for (int k0 = 0; k0 < K || k0 == 0; k0 += KC) {
        const int kc = min(KC, K - k0);
#if GEMM_CONV == 3
        for (int k = 0; k < kc; k++) {
            Brow[k] = B_KROW(k0 + k);
            CONV_ROW(koff_ + k0 + k, Xb[k], Xp[3 * k], Xp[3 * k + 1], Xp[3 * k + 2]);
        }
#elif GEMM_CONV
        for (int k = 0; k < kc;) {
            CONV_COL(k0 + k, Kc[k], Kq[4 * k], Kq[4 * k + 1], Kq[4 * k + 2]);
            Kq[4 * k + 3] = min(kc - k, cv_cg - (k0 + k) % cv_cg);
            k += Kq[4 * k + 3];
        }
#endif
        for (int p = 0; p < CBN / 16; p++) {
            const int nb = n0 + p * 16;
            __local float *dst = Bp + (p / NV) * (KC * RN) + (p % NV) * 16;
            if (b_sn == 1 && nb + 16 <= N) {
                for (int k = 0; k < kc; k++)
                    vstore16(GLD16(B, bbase + CPU_BROW(k) + nb), 0, dst + k * RN);
            } else if (b_uk) {
                for (int j = 0; j < 16; j++) {
                    const long base = bbase + (long)(nb + j) * b_sn;
                    if (nb + j < N)
                        for (int k = 0; k < kc; k++)
                            dst[k * RN + j] = GLD(B, base + CPU_BROW(k));
                    else
                        for (int k = 0; k < kc; k++)
                            dst[k * RN + j] = 0.0f;
                }
            } else {
                for (int k = 0; k < kc; k++) {
                    const long base = bbase + CPU_BROW(k) + (long)nb * b_sn;
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
#if GEMM_CONV == 3
            {
                /* Row r of A is one (tap, channel): its terms once, then
                 * its element at each of the slice's (sample, position);
                 * rows of the tap of the row before them (the channel is
                 * the fastest) reuse its position check and address. */
                long coff[RM];
                int q0[RM], q1[RM], q2[RM];
                bool same[RM];
                for (int r = 0; r < RM; r++) {
                    CONV_COL(min(m0 + mi * RM + r, M - 1), coff[r], q0[r], q1[r], q2[r]);
                    same[r] = r > 0 && q0[r] == q0[r - 1] && q1[r] == q1[r - 1] &&
                              q2[r] == q2[r - 1];
                }
                for (int k = 0; k < kc; k++) {
                    const long xb = Xb[k];
                    const int p0 = Xp[3 * k], p1 = Xp[3 * k + 1], p2 = Xp[3 * k + 2];
                    long xt = -1;
                    for (int r = 0; r < RM; r++) {
                        if (!same[r])
                            xt = CONV_AT(xb, p0, p1, p2, 0, q0[r], q1[r], q2[r]);
                        Ap[r * KC + k] = xt < 0 ? 0.0f : GLD(A, xt + coff[r]);
                    }
                }
            }
#define CPU_A(r, k) Ap[(r) * KC + (k)]
#elif GEMM_CONV
            {
                long rb[RM];
                int rp0[RM], rp1[RM], rp2[RM];
                for (int r = 0; r < RM; r++)
                    CONV_ROW(min(m0 + mi * RM + r, M - 1), rb[r], rp0[r], rp1[r], rp2[r]);
                /* A tap's channels form one run of the slice: its
                 * position is checked once, then the run is copied
                 * through the channel stride. */
                for (int k = 0; k < kc;) {
                    const long coff = Kc[k];
                    const int q0 = Kq[4 * k], q1 = Kq[4 * k + 1], q2 = Kq[4 * k + 2];
                    const int run = Kq[4 * k + 3];
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
    for (int m = 0; m < RM * mb && m0 + m < M; m++)
        for (int n = 0; n < CBN && n0 + n < N; n++)
            /* idx32: columns n0 + n < N <= GEMM_DIM_MAX, checked in
               ops/gemm/gemm_engine.c (gemm_engine_epi) */
            GEMM_STORE(Cacc[m * CBN + n], m0 + m, n0 + n);
}
#endif /* GEMM_CPU */

/* ------------------------------------------------------------------------ */
#ifdef GEMM_SKINNY
/*
 * Products with M <= MS (<= 16) rows (the host turns small N into this by
 * transposing: C^T = B^T A^T): a matrix-vector style pass that reads B
 * once at memory bandwidth.  A work-group of SK_WG items computes SK_NC
 * columns of C; its items split K among SK_KS lanes per column (SK_BUK, B
 * with unit stride along K: 32 lanes of a column read consecutive k, in
 * chunks of SK_VEC elements (16 bytes) when B is aligned for vector loads;
 * otherwise 32 columns side by side, 8 lanes per column, or 32 chunks of
 * SK_VEC columns read as vectors when B's rows are aligned; below).  Each
 * lane keeps
 * MS float sums over its k in increasing order, reading A where it is (a
 * few KiB, cached; in chunks too when SK_AVEC); the lanes' sums of a
 * column are then added in lane order through __local: the same bits on
 * every run.  No barrier inside a loop.
 */
#define SK_WG 256
#if SK_BUK
#define SK_KS 32
#else
#define SK_KS 8
#endif
#define SK_NC (SK_WG / SK_KS)

/* SK_VEC consecutive elements at p (16-byte aligned) as floats, into the
 * private array a. */
#if GEMM_DT == 0
#define SK_LDV(a, p) vstore4(vload4(0, (p)), 0, (a))
#elif GEMM_DT == 1
#define SK_LDV(a, p) vstore8(vload_half8(0, (__global const half *)(p)), 0, (a))
#else
#define SK_LDV(a, p)                                                                        \
    do {                                                                                    \
        uint4 u_ = *(__global const uint4 *)(p);                                            \
        vstore8(as_float8((uint8)(u_.s0 << 16, u_.s0 & 0xffff0000u, u_.s1 << 16,            \
                                  u_.s1 & 0xffff0000u, u_.s2 << 16, u_.s2 & 0xffff0000u,    \
                                  u_.s3 << 16, u_.s3 & 0xffff0000u)),                       \
                0, (a));                                                                    \
    } while (0)
#endif

#if !SK_BUK && SK_VEC > 1
/*
 * B with unit stride along N, rows 16-byte aligned (MS <= 4): each lane
 * owns SK_VEC consecutive columns and reads them as one 16-byte vector per
 * k (a warp reads 512 contiguous bytes of a row of B), 8 lanes split K;
 * a work-group computes 32 * SK_VEC columns.  Columns past N (the last
 * lane's chunk may straddle N) are read one by one.
 */
#define SK_NCOL (32 * SK_VEC)
__kernel __attribute__((reqd_work_group_size(SK_WG, 1, 1))) void gemm_skinny(GEMM_ARGS)
{
    __local float Red[MS * SK_NCOL * 8];
    const int lid = (int)get_local_id(0);
    GEMM_BEGIN(bat, tm, tn);
    (void)tm;
    const int ks = lid / 32, lane = lid % 32;
    const int n0 = tn * SK_NCOL + lane * SK_VEC;
    float acc[MS][SK_VEC];
#pragma unroll
    for (int m = 0; m < MS; m++)
#pragma unroll
        for (int e = 0; e < SK_VEC; e++)
            acc[m][e] = 0.0f;
    for (int kk = ks; kk < K; kk += 8) {
        float bb[SK_VEC];
        const long row = bbase + (long)kk * b_sk;
        if (n0 + SK_VEC <= N) {
            /* idx32: columns n0 + e < N + SK_VEC <= GEMM_DIM_MAX, checked in
               ops/gemm/gemm_engine.c (gemm_engine_epi) */
            SK_LDV(bb, B + row + n0);
        } else {
#pragma unroll
            for (int e = 0; e < SK_VEC; e++)
                /* idx32: columns n0 + e < N <= GEMM_DIM_MAX, checked in
                   ops/gemm/gemm_engine.c (gemm_engine_epi) */
                bb[e] = n0 + e < N ? GLD(B, row + n0 + e) : 0.0f;
        }
#pragma unroll
        for (int m = 0; m < MS; m++)
            if (m < M) {
                float a = GLD(A, abase + (long)m * a_sm + (long)kk * a_sk);
#pragma unroll
                for (int e = 0; e < SK_VEC; e++)
                    acc[m][e] = fma(a, bb[e], acc[m][e]);
            }
    }
#pragma unroll
    for (int m = 0; m < MS; m++)
#pragma unroll
        for (int e = 0; e < SK_VEC; e++)
            Red[(m * SK_NCOL + lane * SK_VEC + e) * 8 + ks] = acc[m][e];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int p = lid; p < MS * SK_NCOL; p += SK_WG) {
        int m = p / SK_NCOL, gn = tn * SK_NCOL + p % SK_NCOL;
        float sum = 0.0f;
        for (int j = 0; j < 8; j++)
            sum += Red[p * 8 + j];
        if (m < M && gn < N)
            /* idx32: columns gn < N <= GEMM_DIM_MAX, checked in
               ops/gemm/gemm_engine.c (gemm_engine_epi) */
            GEMM_STORE(sum, m, gn);
    }
}
#else
__kernel __attribute__((reqd_work_group_size(SK_WG, 1, 1))) void gemm_skinny(GEMM_ARGS)
{
    __local float Red[SK_WG * MS];
    const int lid = (int)get_local_id(0);
    GEMM_BEGIN(bat, tm, tn);
    (void)tm;
    const int ks = SK_BUK ? lid % SK_KS : lid / SK_NC, nc = SK_BUK ? lid / SK_KS : lid % SK_NC;
    const int n = tn * SK_NC + nc;
    const long bcol = bbase + (long)min(n, N - 1) * b_sn;
    float acc[MS];
#pragma unroll
    for (int m = 0; m < MS; m++)
        acc[m] = 0.0f;
#if SK_VEC > 1
    /* Whole chunks of SK_VEC, then the tail of K element by element. */
    const int kv = K / SK_VEC * SK_VEC;
#pragma unroll 2
    for (int kk = ks * SK_VEC; kk < kv; kk += SK_KS * SK_VEC) {
        float bb[SK_VEC];
        SK_LDV(bb, B + bcol + kk);
#pragma unroll
        for (int m = 0; m < MS; m++) {
            if (m < M) {
                float aa[SK_VEC];
                const long ar = abase + (long)m * a_sm;
#if SK_AVEC
                SK_LDV(aa, A + ar + kk);
#else
#pragma unroll
                for (int e = 0; e < SK_VEC; e++)
                    aa[e] = GLD(A, ar + (long)(kk + e) * a_sk);
#endif
#pragma unroll
                for (int e = 0; e < SK_VEC; e++)
                    acc[m] = fma(aa[e], bb[e], acc[m]);
            }
        }
    }
#else
    const int kv = 0;
#endif
#pragma unroll 4
    for (int kk = kv + ks; kk < K; kk += SK_KS) {
        float b = GLD(B, bcol + (long)kk * b_sk);
#pragma unroll
        for (int m = 0; m < MS; m++)
            if (m < M)
                acc[m] = fma(GLD(A, abase + (long)m * a_sm + (long)kk * a_sk), b, acc[m]);
    }
#pragma unroll
    for (int m = 0; m < MS; m++)
        Red[(m * SK_NC + nc) * SK_KS + ks] = acc[m];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int p = lid; p < MS * SK_NC; p += SK_WG) {
        int m = p / SK_NC, c = p % SK_NC, gn = tn * SK_NC + c;
        float sum = 0.0f;
        for (int j = 0; j < SK_KS; j++)
            sum += Red[p * SK_KS + j];
        if (m < M && gn < N)
            GEMM_STORE(sum, m, gn);
    }
}
#endif
#endif /* GEMM_SKINNY */

/* ------------------------------------------------------------------------ */
#ifdef GEMM_REDUCE
/* The partial sums of a split product ([splits][nbatch][M][N] floats in
 * W), added in split order and stored once per element of C. */
__kernel void gemm_reduce(GEMM_ARGS)
{
    const long id = (long)get_global_id(0);
    const long mn = (long)M * N;
    if (id >= (long)nbatch * mn)
        return;
    const long bat = id / mn;
    const int gm = (int)((id - bat * mn) / N), gn = (int)(id - bat * mn - (long)gm * N);
    float sum = 0.0f;
    for (int s = 0; s < splits; s++)
        sum += W[(long)s * nbatch * mn + id];
    const long cbase = c_off + bat * c_sb, wbase = 0;
    const bool partial_ = false;
    (void)wbase;
    GEMM_STORE(sum, gm, gn);
}
#endif /* GEMM_REDUCE */

/* ------------------------------------------------------------------------ */
#ifdef GEMM_MMA
/*
 * Tiles in __local, 16-byte chunks of CE elements (8 float16/bfloat16, 4
 * float32), BK = BKC chunks deep (BKC 4 or 8), XOR-swizzled so that the
 * eight row addresses of every ldmatrix fall in distinct bank groups:
 *   K-major tile [rows][BK] (A with unit stride along K, B along K): BKC
 *     chunks a row, chunk c of row r stored at c ^ ((r >> 1) & 3) (BKC 4:
 *     two rows share a 128-byte line) or c ^ (r & 7) (BKC 8);
 *   M/N-major tile [BK][rows] (unit stride along M or N): rows / CE >= 8
 *     chunks a row, chunk c of row r stored at c ^ (r & 7).
 * A is multiplied as the "row" operand and B as the "col" operand of
 * mma.m16n8k16 (float16/bfloat16) or mma.m16n8k8 (float32 as TF32, rounded
 * to nearest with cvt.rna: the "high" and "medium" precision modes only);
 * ldmatrix.trans serves the 16-bit M/N-major tiles, scalar __local reads
 * the 32-bit ones.  FRAG_DB 1: the fragments of the next 16 (8) deep step
 * are loaded while the tensor cores work on this one (two register sets),
 * with one barrier per K tile; FRAG_DB 0: load, then multiply.  The slot
 * refilled in tile kt, (kt - 1) % STAGES, was last read before tile kt's
 * barrier, so its copies may be issued anywhere in tile kt (COPY_LATE).
 */
#define CE (16 / (int)sizeof(gemm_t))
#ifndef BKC
#define BKC 4
#endif
#ifndef FRAG_DB
#define FRAG_DB 1
#endif
/* COPY_LATE 1: the next stage's copies are issued after the first step's
 * products (the tensor cores work while the addresses are computed). */
#ifndef COPY_LATE
#define COPY_LATE 0
#endif
#define BK (BKC * CE)
#ifndef GEMM_WGMMA
#define GEMM_WGMMA 0
#endif
#ifndef WG_WS
#define WG_WS 0
#endif
#ifndef WG_PERSIST
#define WG_PERSIST 0
#endif
#if GEMM_WGMMA
/* gemm_wgmma: WGS warpgroups, each owning BM / WGS rows of the block (MH
 * products of 64 rows) and all BN columns.  WG_WS 1 (warp-specialised): a
 * producer warpgroup before them stages the tiles, so MMA_WG (the items
 * that stage) is 128 and the work-group WS_WG items. */
#if WG_WS
#define MMA_WG 128
#define WS_WG ((WGS + 1) * 128)
#else
#define MMA_WG (WGS * 128)
#endif
#define MH (BM / WGS / 64)
#else
#define WARPS ((BM / WM) * (BN / WN))
#define MMA_WG (WARPS * 32)
#define MT (WM / 16)
#define NT (WN / 8)
#endif
#define A_TILE (BM * BK)
#define B_TILE (BN * BK)
#if GEMM_DT == 1
#define MMA_TY "f16"
#else
#define MMA_TY "bf16"
#endif

/* Element index of chunk c of row r in a K-major / an M- or N-major tile,
 * and of element e of row r in an M- or N-major tile. */
#if BKC == 2
/* (gemm_wgmma only: wgmma's 32-byte swizzle) */
#define KMAJ(r, c) ((r) * BK + (((c) ^ (((r) >> 2) & 1)) * CE))
#elif BKC == 4
#define KMAJ(r, c) ((r) * BK + (((c) ^ (((r) >> 1) & 3)) * CE))
#else
#define KMAJ(r, c) ((r) * BK + (((c) ^ ((r) & 7)) * CE))
#endif
#if GEMM_WGMMA && GEMM_DT != 0
/* gemm_wgmma's M/N-major tiles: wgmma's 128-byte-swizzled atoms (8 k-rows
 * of 64 elements, 1024 bytes, chunk c of k-row r at c ^ r; cl_kernels/
 * wgmma.clh), those of the next 64 rows (BK / 8) atoms further, those of
 * the next 8 k-rows the next atom.  (The K-major tiles of BKC 4 above are
 * already wgmma's 64-byte-swizzled layout.) */
#define XMAJ(r, c, rows)                                                                    \
    (((((c) >> 3) * (BK / 8) + ((r) >> 3)) << 9) + (((r) & 7) << 6) +                       \
     ((((c) & 7) ^ ((r) & 7)) * CE))
#else
/* (and gemm_wgmma's float32 M/N-major tiles: landing tiles that WG_XT
 * transposes into K-major ones, never read by wgmma) */
#define XMAJ(r, c, rows) ((r) * (rows) + (((c) ^ ((r) & 7)) * CE))
#endif
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
 * b_sn) into a tile of R rows: this work item's chunk i is chunk
 * q = lid + i * MMA_WG of the tile (K-major: row q / BKC, chunk q % BKC;
 * M/N-major: row (a k) q / (R / CE), chunk q % (R / CE)), fixed for the
 * whole loop, so its address and bounds are computed once (xp, xl, xr, xo)
 * and each K slice adds k0 (unit stride along K) or k0 * stride (unit
 * stride along rows).  (Recomputing them per slice saved registers but not
 * time, and halved the plain-load staging's speed: lm_head 4096 x 50257 x
 * 768, 69 against 133 TFLOP/s.)  X_CP: 16-byte cp.async (aligned operands),
 * else plain loads with the operand's strides.
 */
#define XN(R) (R * BKC / MMA_WG)
#define STAGE_SETUP(X, R, X_UK, X_CP, base, srow, sk, lim_rows, r0)                         \
    long X##p[XN(R)];                                                                       \
    int X##l[XN(R)], X##r[XN(R)], X##o[XN(R)];                                              \
    for (int i = 0; i < XN(R); i++)                                                         \
    {                                                                                       \
        int q = lid + i * MMA_WG;                                                           \
        if (X_UK) {                                                                         \
            int r = q / BKC, c = q % BKC, g = (r0) + r;                                     \
            X##o[i] = KMAJ(r, c);                                                           \
            X##r[i] = c * CE;                                                               \
            X##l[i] = g < lim_rows ? K - c * CE : 0;                                        \
            X##p[i] = (base) + (long)(g < lim_rows ? g : 0) * (srow) +                      \
                      (long)(c * CE) * (X_CP ? 1 : (sk));                                   \
        } else {                                                                            \
            int r = q / (R / CE), c = q % (R / CE), g = (r0) + c * CE;                      \
            X##o[i] = XMAJ(r, c, R);                                                        \
            X##r[i] = r;                                                                    \
            X##l[i] = lim_rows - g;                                                         \
            X##p[i] = (base) + (long)r * (sk) + (long)(g < lim_rows ? g : 0) * (srow);      \
        }                                                                                   \
    }

#define STAGE_RUN(X, R, X_UK, X_CP, P, tile, k0, srow, sk)                                  \
    for (int i = 0; i < XN(R); i++)                                                         \
    {                                                                                       \
        int n_;                                                                             \
        long at_;                                                                           \
        if (X_UK) {                                                                         \
            n_ = clamp(X##l[i] - (k0), 0, CE);                                              \
            at_ = X##p[i] + (long)(k0) * (X_CP ? 1 : (sk));                                 \
        } else {                                                                            \
            n_ = (k0) + X##r[i] < K ? clamp(X##l[i], 0, CE) : 0;                            \
            at_ = X##p[i] + (long)(k0) * (sk);                                              \
        }                                                                                   \
        if (X_CP)                                                                           \
            mma_cp16((tile) + X##o[i], n_ ? P + at_ : P, n_ * (int)sizeof(gemm_t));         \
        else                                                                                \
            gemm_plain((tile) + X##o[i], P, at_, X_UK ? (sk) : (srow), n_);                 \
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
 *
 * GEMM_CONV 3 (a weight gradient) stages the transposed view: its rows
 * are (tap, channel), fixed per work item, so their terms are computed
 * once; the (sample, position) of each K tile's columns per tile.  M-major
 * tiles (channels-last images): a chunk is CE channels of one tap at one
 * position, one cp.async when A_CP (as above); K-major tiles (NCHW): CE
 * positions of one (tap, channel), plain loads.
 */
#if GEMM_CONV == 3
/* (conv13) K row k's (sample n, position d, h, w) of the small image, and
 * the same moved forward to row to: compares and adds where the step is
 * below four rows of the image, conv_k_set's divisions otherwise (or
 * back). */
static inline void conv_k_set(int k, int ow, int oh, int ls, int *n, int *d, int *h, int *w)
{
    int n_ = k / ls, o = k - n_ * ls, t = o / ow;
    *n = n_, *w = o - t * ow, *h = t % oh, *d = t / oh;
}
static inline void conv_k_go(int to, int *k, int *n, int *d, int *h, int *w, int ow, int oh,
                             int od, int ls)
{
    int dk = to - *k;
    *k = to;
    if (dk < 0 || dk >= 4 * ow) {
        conv_k_set(to, ow, oh, ls, n, d, h, w);
        return;
    }
    /* (at most four rows: ResNet's 7- and 14-wide images at BK 16 / 32) */
    for (*w += dk; *w >= ow; *w -= ow)
        if (++*h == oh) {
            *h = 0;
            if (++*d == od)
                *d = 0, ++*n;
        }
}
#define APC XN(BM)
#if A_UK
/*
 * (conv16) K-major tiles (the wgmma kernel's TF32 weight gradient, NCHW
 * images): every chunk of the item's lies in chunk column lid % BKC of the
 * K tile (MMA_WG is a multiple of BKC), so its CE columns are the same
 * (sample, position) for all of the item's rows: one (sample, d, h, w)
 * state of the column, stepped by BK per tile and by one per element
 * (conv_k_go), instead of CONV_ROW's divisions per element per row.  The
 * same addresses as CONV_ROW + CONV_AT.
 */
#define STAGE_A_SETUP                                                                       \
    long acf[APC];                                                                          \
    int aq0[APC], aq1[APC], aq2[APC], ao[APC], av[APC];                                     \
    for (int i = 0; i < APC; i++) {                                                         \
        int q = lid + i * MMA_WG, r = q / BKC, c = q % BKC;                                 \
        ao[i] = KMAJ(r, c);                                                                 \
        av[i] = m0 + r < M;                                                                 \
        CONV_COL(av[i] ? m0 + r : 0, acf[i], aq0[i], aq1[i], aq2[i]);                       \
    }                                                                                       \
    const int ac_ = (lid % BKC) * CE;                                                       \
    int ak_k = koff_ + ac_, ak_n, ak_d, ak_h, ak_w;                                         \
    conv_k_set(ak_k, cv_ow, cv_oh, CONV_LS, &ak_n, &ak_d, &ak_h, &ak_w);
#define STAGE_A_RUN(tile, k0)                                                               \
    {                                                                                       \
        conv_k_go(koff_ + (k0) + ac_, &ak_k, &ak_n, &ak_d, &ak_h, &ak_w, cv_ow, cv_oh,      \
                  cv_od, CONV_LS);                                                          \
        int k_ = ak_k, n_ = ak_n, d_ = ak_d, h_ = ak_h, w_ = ak_w;                          \
        for (int e = 0; e < CE; e++) {                                                      \
            if (e)                                                                          \
                conv_k_go(k_ + 1, &k_, &n_, &d_, &h_, &w_, cv_ow, cv_oh, cv_od, CONV_LS);   \
            const bool kin_ = (k0) + ac_ + e < K;                                           \
            const long b_ = abase + (long)n_ * x_sn;                                        \
            const int p0_ = d_ * cv_sd - cv_pd, p1_ = h_ * cv_sh - cv_ph,                   \
                      p2_ = w_ * cv_sw - cv_pw;                                             \
            for (int i = 0; i < APC; i++) {                                                 \
                long x_ = -1;                                                               \
                if (av[i] && kin_)                                                          \
                    x_ = CONV_AT(b_, p0_, p1_, p2_, acf[i], aq0[i], aq1[i], aq2[i]);        \
                (tile)[ao[i] + e] = x_ >= 0 ? A[x_] : (gemm_t)0;                            \
            }                                                                               \
        }                                                                                   \
    }
#else /* M-major */
#define STAGE_A_SETUP                                                                       \
    long acf[APC];                                                                          \
    int aq0[APC], aq1[APC], aq2[APC], ao[APC], ar[APC], ag[APC];                            \
    for (int i = 0; i < APC; i++) {                                                         \
        int q = lid + i * MMA_WG, r = q / (BM / CE), c = q % (BM / CE);                     \
        ao[i] = XMAJ(r, c, BM);                                                             \
        ar[i] = r;                                                                          \
        ag[i] = m0 + c * CE;                                                                \
        CONV_COL(ag[i] < M ? ag[i] : 0, acf[i], aq0[i], aq1[i], aq2[i]);                    \
    }                                                                                       \
    int ak_k = koff_ + ar[0], ak_n, ak_d, ak_h, ak_w;                                       \
    conv_k_set(ak_k, cv_ow, cv_oh, CONV_LS, &ak_n, &ak_d, &ak_h, &ak_w);
#if A_CP
/*
 * (conv13) The item's chunks sit on rows ar[0] + i * (MMA_WG / (BM / CE))
 * of every K tile: one (sample, d, h, w) state of row ar[0], stepped by BK
 * per tile and by the rows' step per chunk (conv_k_go: compares and adds
 * where the step is below four rows of the image, else conv_k_set's
 * divisions), instead of CONV_ROW's divisions per chunk per tile.  The
 * same addresses as CONV_ROW + CONV_AT.
 */
#define STAGE_A_RUN(tile, k0)                                                               \
    {                                                                                       \
        conv_k_go(koff_ + (k0) + ar[0], &ak_k, &ak_n, &ak_d, &ak_h, &ak_w, cv_ow, cv_oh,    \
                  cv_od, CONV_LS);                                                          \
        int k_ = ak_k, n_ = ak_n, d_ = ak_d, h_ = ak_h, w_ = ak_w;                          \
        for (int i = 0; i < APC; i++) {                                                     \
            if (i)                                                                          \
                conv_k_go(k_ + MMA_WG / (BM / CE), &k_, &n_, &d_, &h_, &w_, cv_ow, cv_oh,   \
                          cv_od, CONV_LS);                                                  \
            int kk_ = (k0) + ar[i];                                                         \
            long x_ = -1;                                                                   \
            if (kk_ < K && ag[i] < M)                                                       \
                x_ = CONV_AT(abase + (long)n_ * x_sn, d_ * cv_sd - cv_pd, h_ * cv_sh - cv_ph, \
                             w_ * cv_sw - cv_pw, acf[i], aq0[i], aq1[i], aq2[i]);           \
            mma_cp16((tile) + ao[i], x_ >= 0 ? A + x_ : A, x_ >= 0 ? 16 : 0);               \
        }                                                                                   \
    }
#else
#define STAGE_A_RUN(tile, k0)                                                               \
    for (int i = 0; i < APC; i++) {                                                         \
        int kk_ = (k0) + ar[i], p0_ = 0, p1_ = 0, p2_ = 0;                                  \
        long b_ = 0;                                                                        \
        if (kk_ < K)                                                                        \
            CONV_ROW(koff_ + kk_, b_, p0_, p1_, p2_);                                       \
        for (int e = 0; e < CE; e++)                                                        \
        {                                                                                   \
            long x_ = -1, cf_;                                                              \
            int q0_, q1_, q2_;                                                              \
            if (kk_ < K && ag[i] + e < M) {                                                 \
                CONV_COL(ag[i] + e, cf_, q0_, q1_, q2_);                                    \
                x_ = CONV_AT(b_, p0_, p1_, p2_, cf_, q0_, q1_, q2_);                        \
            }                                                                               \
            (tile)[ao[i] + e] = x_ >= 0 ? A[x_] : (gemm_t)0;                                \
        }                                                                                   \
    }
#endif
#endif
/* B: the small image, row k = (sample, position) at B_KROW(k).  N-major
 * tiles (channels-last): CE channels at one position, one cp.async when
 * B_CP (unit channel stride; the host checks the alignment of the offset
 * and of the sample, position and group strides); K-major tiles (NCHW): CE
 * positions of one channel, plain loads. */
/* (conv13) B_KROW from a (sample, position) state of row br[0], stepped as
 * A's (conv_ko_go), instead of a division per chunk per tile. */
static inline void conv_ko_go(int to, int *k, int *n, int *o, int ls)
{
    int dk = to - *k;
    *k = to;
    if (dk < 0 || dk >= ls) {
        *n = to / ls, *o = to - *n * ls;
        return;
    }
    *o += dk;
    if (*o >= ls)
        *o -= ls, ++*n;
}
#define BPC XN(BN)
#if B_UK
/* (conv16) As A's K-major tiles: the item's chunks share chunk column lid
 * % BKC, so one (sample, position) state of it (conv_ko_go) gives every
 * element's row offset, instead of B_KROW's division per element per
 * row. */
#define STAGE_B_SETUP                                                                       \
    long bq[BPC];                                                                           \
    int bo[BPC];                                                                            \
    for (int i = 0; i < BPC; i++) {                                                         \
        int q = lid + i * MMA_WG, r = q / BKC, c = q % BKC;                                 \
        bo[i] = KMAJ(r, c);                                                                 \
        bq[i] = n0 + r < N ? bbase + (long)(n0 + r) * b_sn : -1;                            \
    }                                                                                       \
    const int bc_ = (lid % BKC) * CE;                                                       \
    int bk_k = koff_ + bc_, bk_n = bk_k / CONV_LS, bk_o = bk_k - bk_n * CONV_LS;
#define STAGE_B_RUN(tile, k0)                                                               \
    {                                                                                       \
        conv_ko_go(koff_ + (k0) + bc_, &bk_k, &bk_n, &bk_o, CONV_LS);                       \
        int k_ = bk_k, kn_ = bk_n, ko_ = bk_o;                                              \
        for (int e = 0; e < CE; e++) {                                                      \
            if (e)                                                                          \
                conv_ko_go(k_ + 1, &k_, &kn_, &ko_, CONV_LS);                               \
            const bool kin_ = (k0) + bc_ + e < K;                                           \
            const long row_ = (long)kn_ * b_img + (long)ko_ * b_sk;                         \
            for (int i = 0; i < BPC; i++)                                                   \
                (tile)[bo[i] + e] = bq[i] >= 0 && kin_ ? B[bq[i] + row_] : (gemm_t)0;       \
        }                                                                                   \
    }
#else
#define STAGE_B_SETUP                                                                       \
    long bq[BPC];                                                                           \
    int bo[BPC], br[BPC], bl[BPC];                                                          \
    for (int i = 0; i < BPC; i++) {                                                         \
        int q = lid + i * MMA_WG, r = q / (BN / CE), c = q % (BN / CE), g = n0 + c * CE;    \
        bo[i] = XMAJ(r, c, BN);                                                             \
        br[i] = r;                                                                          \
        bl[i] = N - g;                                                                      \
        bq[i] = bbase + (long)(g < N ? g : 0) * b_sn;                                       \
    }                                                                                       \
    int bk_k = koff_ + br[0], bk_n = bk_k / CONV_LS, bk_o = bk_k - bk_n * CONV_LS;
/* (B_KROW from the state of row br[0], conv_ko_go above) */
#define STAGE_B_RUN(tile, k0)                                                               \
    {                                                                                       \
        conv_ko_go(koff_ + (k0) + br[0], &bk_k, &bk_n, &bk_o, CONV_LS);                     \
        int k_ = bk_k, kn_ = bk_n, ko_ = bk_o;                                              \
        for (int i = 0; i < BPC; i++) {                                                     \
            if (i)                                                                          \
                conv_ko_go(k_ + MMA_WG / (BN / CE), &k_, &kn_, &ko_, CONV_LS);              \
            int kk_ = (k0) + br[i], n_ = kk_ < K ? clamp(bl[i], 0, CE) : 0;                 \
            long at_ = bq[i] + (n_ ? (long)kn_ * b_img + (long)ko_ * b_sk : 0);             \
            if (B_CP)                                                                       \
                mma_cp16((tile) + bo[i], n_ ? B + at_ : B, n_ * (int)sizeof(gemm_t));       \
            else                                                                            \
                gemm_plain((tile) + bo[i], B, at_, b_sn, n_);                               \
        }                                                                                   \
    }
#endif
#elif GEMM_CONV
#define APC XN(BM)
/* K-major tiles: each of the item's rows' sample base and position terms. */
#define CONV_A_ROWS                                                                         \
    long ab[APC];                                                                           \
    int ap0[APC], ap1[APC], ap2[APC], ao[APC];                                              \
    for (int i = 0; i < APC; i++) {                                                         \
        int q = lid + i * MMA_WG, r = q / BKC;                                              \
        ao[i] = KMAJ(r, q % BKC);                                                           \
        CONV_ROW(m0 + r, ab[i], ap0[i], ap1[i], ap2[i]);                                    \
    }
#if A_UK && A_CP
/*
 * K-major tiles with cp.async (channels-last images, a tap's channels in
 * whole 16-byte chunks): every item stages the same chunk column of each
 * K tile (lid % BKC), so it keeps that column's (channel, tap) in
 * registers and steps it by BK per tile (no divisions: the tiles are
 * staged in order; a column behind the state is decomposed again), and
 * each row's image offset at its position terms (ab: base + p0 * x_sd +
 * p1 * x_sh + p2 * x_sw), so that a chunk's address is one add of the
 * column's offset (cs_) after three bounds checks; GEMM_CONV 2 with a
 * stride above 1 divides per row as before.  Same addresses, same bits
 * as the per-tile decomposition (CONV_COL and CONV_AT) it replaces.
 */
static inline void conv_col_set(int k, int cg, int kw, int kh, int *c, int *w, int *h, int *dd)
{
    int j = k / cg, t = j / kw;
    *c = k - j * cg, *w = j - t * kw, *h = t % kh, *dd = t / kh;
}
#define STAGE_A_SETUP                                                                       \
    CONV_A_ROWS                                                                             \
    for (int i = 0; i < APC; i++)                                                           \
        ab[i] += (long)ap0[i] * x_sd + (long)ap1[i] * x_sh + (long)ap2[i] * x_sw;           \
    int acol_k = (lid % BKC) * CE, acol_c, acol_w, acol_h, acol_d;                          \
    conv_col_set(acol_k, cv_cg, cv_kw, cv_kh, &acol_c, &acol_w, &acol_h, &acol_d);
#define STAGE_A_RUN(tile, k0)                                                               \
    {                                                                                       \
        int kk_ = (k0) + (lid % BKC) * CE;                                                  \
        if (kk_ < acol_k) {                                                                 \
            conv_col_set(kk_, cv_cg, cv_kw, cv_kh, &acol_c, &acol_w, &acol_h, &acol_d);     \
        } else {                                                                            \
            acol_c += kk_ - acol_k;                                                         \
            while (acol_c >= cv_cg) {                                                       \
                acol_c -= cv_cg;                                                            \
                if (++acol_w == cv_kw) {                                                    \
                    acol_w = 0;                                                             \
                    if (++acol_h == cv_kh)                                                  \
                        acol_h = 0, acol_d++;                                               \
                }                                                                           \
            }                                                                               \
        }                                                                                   \
        acol_k = kk_;                                                                       \
        const int q0_ = acol_d * cv_dd, q1_ = acol_h * cv_dh, q2_ = acol_w * cv_dw;         \
        const long coff_ = (long)acol_c * x_sc;                                             \
        const long qs_ = (long)q0_ * x_sd + (long)q1_ * x_sh + (long)q2_ * x_sw;            \
        const long cs_ = GEMM_CONV == 1 ? coff_ + qs_ : coff_ - qs_;                        \
        const bool unit_ = GEMM_CONV == 1 || (cv_sd == 1 && cv_sh == 1 && cv_sw == 1);      \
        for (int i = 0; i < APC; i++) {                                                     \
            long x_ = -1;                                                                   \
            if (kk_ < K && unit_) {                                                         \
                int d0_ = GEMM_CONV == 1 ? ap0[i] + q0_ : ap0[i] - q0_;                     \
                int d1_ = GEMM_CONV == 1 ? ap1[i] + q1_ : ap1[i] - q1_;                     \
                int d2_ = GEMM_CONV == 1 ? ap2[i] + q2_ : ap2[i] - q2_;                     \
                if (((uint)d0_ < (uint)cv_id) & ((uint)d1_ < (uint)cv_ih) &                 \
                    ((uint)d2_ < (uint)cv_iw))                                              \
                    x_ = ab[i] + cs_;                                                       \
            } else if (kk_ < K) {                                                           \
                int i0_, i1_, i2_;                                                          \
                bool in_ = conv_pos(ap0[i], q0_, cv_sd, cv_id, &i0_);                       \
                in_ = conv_pos(ap1[i], q1_, cv_sh, cv_ih, &i1_) && in_;                     \
                in_ = conv_pos(ap2[i], q2_, cv_sw, cv_iw, &i2_) && in_;                     \
                if (in_)                                                                    \
                    x_ = ab[i] + coff_ + (long)(i0_ - ap0[i]) * x_sd +                      \
                         (long)(i1_ - ap1[i]) * x_sh + (long)(i2_ - ap2[i]) * x_sw;         \
            }                                                                               \
            mma_cp16((tile) + ao[i], x_ >= 0 ? A + x_ : A, x_ >= 0 ? 16 : 0);               \
        }                                                                                   \
    }
#elif A_UK
#define STAGE_A_SETUP CONV_A_ROWS
#define STAGE_A_RUN(tile, k0)                                                               \
    for (int i = 0; i < APC; i++) {                                                         \
        for (int e = 0; e < CE; e++)                                                        \
        {                                                                                   \
            int kk_ = (k0) + (lid % BKC) * CE + e;                                            \
            long x_ = -1, coff_;                                                            \
            int q0_, q1_, q2_;                                                              \
            if (kk_ < K) {                                                                  \
                CONV_COL(kk_, coff_, q0_, q1_, q2_);                                        \
                x_ = CONV_AT(ab[i], ap0[i], ap1[i], ap2[i], coff_, q0_, q1_, q2_);          \
            }                                                                               \
            (tile)[ao[i] + e] = x_ >= 0 ? A[x_] : (gemm_t)0;                                \
        }                                                                                   \
    }
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
#define STAGE_A_SETUP STAGE_SETUP(a, BM, A_UK, A_CP, abase, a_sm, a_sk, M, m0)
#define STAGE_A_RUN(tile, k0) STAGE_RUN(a, BM, A_UK, A_CP, A, tile, k0, a_sm, a_sk)
#endif
#if GEMM_CONV != 3
#define STAGE_B_SETUP STAGE_SETUP(b, BN, B_UK, B_CP, bbase, b_sn, b_sk, N, n0)
#define STAGE_B_RUN(tile, k0) STAGE_RUN(b, BN, B_UK, B_CP, B, tile, k0, b_sn, b_sk)
#endif

/* Both operands' K tile kt into stage slot s. */
#define STAGE_TILE(s, kt)                                                                   \
    do {                                                                                    \
        STAGE_A_RUN(As + (s) * A_TILE, (kt) * BK);                                          \
        /* idx32: kt * BK < K + BK <= GEMM_DIM_MAX + BK, checked in                         \
           ops/gemm/gemm_engine.c (gemm_engine_epi) */                                      \
        STAGE_B_RUN(Bs + (s) * B_TILE, (kt) * BK);                                          \
    } while (0)

#if !GEMM_WGMMA
/*
 * LOAD_A / LOAD_B: a lane's part of the A fragment i and the B fragments
 * 2p, 2p + 1 of the KSTEP-deep step at kk (in load_frags).  The lane's row
 * and chunk within each ldmatrix.x4: lanes 8j..8j+7 address the rows of
 * matrix j (lr, lj); fg, ft: the lane's g and t.
 */
/* TF32 (GEMM_DT 0): 8-deep steps; fragments a (g, t), (g + 8, t),
 * (g, t + 4), (g + 8, t + 4) and b (k t, n g), (k t + 4, n g), g = lane /
 * 4, t = lane % 4: ldmatrix of 32-bit rows gives the K-major ones, scalar
 * __local reads the M/N-major ones.  16-bit: 16-deep steps, ldmatrix
 * (.trans for M/N-major tiles). */
#if GEMM_DT == 0
#define KSTEP 8
#define MMA_ONE(d, a, b) MMA_M16N8K8_TF32(d, a, b)
#else
#define KSTEP 16
#define MMA_ONE(d, a, b) MMA_M16N8K16(d, a, b, MMA_TY)
#endif
#if A_UK
#define LOAD_A(af, as, kk, i)                                                               \
    do {                                                                                    \
        int r_ = wm0 + (i) * 16 + lr + 8 * (lj & 1), c_ = (kk) / CE + (lj >> 1);            \
        MMA_LDSM_X4(af, mma_saddr(as + KMAJ(r_, c_)));                                      \
    } while (0)
#elif GEMM_DT == 0
#define LOAD_A(af, as, kk, i)                                                               \
    do {                                                                                    \
        int m_ = wm0 + (i) * 16 + fg;                                                       \
        (af)[0] = as_uint(as[XIDX((kk) + ft, m_, BM)]);                                     \
        (af)[1] = as_uint(as[XIDX((kk) + ft, m_ + 8, BM)]);                                 \
        (af)[2] = as_uint(as[XIDX((kk) + ft + 4, m_, BM)]);                                 \
        (af)[3] = as_uint(as[XIDX((kk) + ft + 4, m_ + 8, BM)]);                             \
    } while (0)
#else
#define LOAD_A(af, as, kk, i)                                                               \
    do {                                                                                    \
        int r_ = (kk) + lr + 8 * (lj >> 1), c_ = (wm0 + (i) * 16) / CE + (lj & 1);          \
        MMA_LDSM_X4_T(af, mma_saddr(as + XMAJ(r_, c_, BM)));                                \
    } while (0)
#endif
#if B_UK
#define LOAD_B(b0, b1, bs, kk, p)                                                           \
    do {                                                                                    \
        uint q4_[4];                                                                        \
        int r_ = wn0 + (p) * 16 + lr + 8 * (lj >> 1), c_ = (kk) / CE + (lj & 1);            \
        MMA_LDSM_X4(q4_, mma_saddr(bs + KMAJ(r_, c_)));                                     \
        (b0)[0] = q4_[0], (b0)[1] = q4_[1], (b1)[0] = q4_[2], (b1)[1] = q4_[3];             \
    } while (0)
#elif GEMM_DT == 0
#define LOAD_B(b0, b1, bs, kk, p)                                                           \
    do {                                                                                    \
        int n_ = wn0 + (p) * 16 + fg;                                                       \
        (b0)[0] = as_uint(bs[XIDX((kk) + ft, n_, BN)]);                                     \
        (b0)[1] = as_uint(bs[XIDX((kk) + ft + 4, n_, BN)]);                                 \
        (b1)[0] = as_uint(bs[XIDX((kk) + ft, n_ + 8, BN)]);                                 \
        (b1)[1] = as_uint(bs[XIDX((kk) + ft + 4, n_ + 8, BN)]);                             \
    } while (0)
#else
#define LOAD_B(b0, b1, bs, kk, p)                                                           \
    do {                                                                                    \
        uint q4_[4];                                                                        \
        int r_ = (kk) + lr + 8 * (lj & 1), c_ = (wn0 + (p) * 16) / CE + (lj >> 1);          \
        MMA_LDSM_X4_T(q4_, mma_saddr(bs + XMAJ(r_, c_, BN)));                               \
        (b0)[0] = q4_[0], (b0)[1] = q4_[1], (b1)[0] = q4_[2], (b1)[1] = q4_[3];             \
    } while (0)
#endif
#define KSTEPS (BK / KSTEP)

/* The warp's fragments of the step at kk (warp tile at wm0, wn0). */
static inline void load_frags(uint af[MT][4], uint bf[NT][2], __local const gemm_t *as,
                              __local const gemm_t *bs, int kk, int wm0, int wn0, int lane)
{
    const int lr = lane & 7, lj = lane >> 3, fg = lane >> 2, ft = lane & 3;
    (void)lr, (void)lj, (void)fg, (void)ft;
#pragma unroll
    for (int i = 0; i < MT; i++)
        LOAD_A(af[i], as, kk, i);
#pragma unroll
    for (int p = 0; p < NT / 2; p++)
        LOAD_B(bf[2 * p], bf[2 * p + 1], bs, kk, p);
#if GEMM_DT == 0
#pragma unroll
    for (int i = 0; i < MT; i++)
#pragma unroll
        for (int e = 0; e < 4; e++)
            MMA_TF32(af[i][e]);
#pragma unroll
    for (int j = 0; j < NT; j++)
#pragma unroll
        for (int e = 0; e < 2; e++)
            MMA_TF32(bf[j][e]);
#endif
}

/* Every product of the warp tile: acc += af @ bf. */
static inline void mma_all(float acc[MT][NT][4], const uint af[MT][4], const uint bf[NT][2])
{
#pragma unroll
    for (int i = 0; i < MT; i++)
#pragma unroll
        for (int j = 0; j < NT; j++)
            MMA_ONE(acc[i][j], af[i], bf[j]);
}

__kernel __attribute__((reqd_work_group_size(MMA_WG, 1, 1))) void gemm_mma(GEMM_ARGS)
{
    __local gemm_t As[STAGES * A_TILE] __attribute__((aligned(16)));
    __local gemm_t Bs[STAGES * B_TILE] __attribute__((aligned(16)));
    const int lid = (int)get_local_id(0);
    const int lane = lid & 31, warp = lid >> 5;
    const int wm0 = (warp / (BN / WN)) * WM, wn0 = (warp % (BN / WN)) * WN;
    GEMM_BEGIN(bat, tm, tn);
    const int m0 = tm * BM, n0 = tn * BN;
    const int ktiles = (K + BK - 1) / BK;
    STAGE_A_SETUP
    STAGE_B_SETUP
    const int fg = lane >> 2, ft = lane & 3;

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
        if (s < ktiles)
            STAGE_TILE(s, s);
        MMA_CP_COMMIT();
    }

#if FRAG_DB
    /*
     * K tile kt is in slot kt % STAGES.  Step ks loads the fragments of
     * step ks + 1 (of the next tile's step 0 at the last step, after the
     * barrier that makes that tile visible) and multiplies step ks's.
     * The slot written at step 0 of tile kt, (kt - 1) % STAGES, was last
     * read before the barrier of tile kt - 1's last step.
     */
    uint af[2][MT][4], bf[2][NT][2];
    MMA_CP_WAIT(WAIT_GROUPS);
    barrier(CLK_LOCAL_MEM_FENCE);
    int rs = 0, ws = STAGES - 1;
    load_frags(af[0], bf[0], As, Bs, 0, wm0, wn0, lane);
    for (int kt = 0; kt < ktiles; kt++) {
#pragma unroll
        for (int ks = 0; ks < KSTEPS; ks++) {
            if (ks == KSTEPS - 1) {
                MMA_CP_WAIT(WAIT_GROUPS);
                barrier(CLK_LOCAL_MEM_FENCE);
                rs = rs + 1 == STAGES ? 0 : rs + 1;
            }
            load_frags(af[(ks + 1) & 1], bf[(ks + 1) & 1], As + rs * A_TILE, Bs + rs * B_TILE,
                       ((ks + 1) % KSTEPS) * KSTEP, wm0, wn0, lane);
            if (ks == 0 && !COPY_LATE) {
                if (kt + STAGES - 1 < ktiles)
                    STAGE_TILE(ws, kt + STAGES - 1);
                MMA_CP_COMMIT();
                ws = ws + 1 == STAGES ? 0 : ws + 1;
            }
            mma_all(acc, af[ks & 1], bf[ks & 1]);
            if (ks == 0 && COPY_LATE) {
                if (kt + STAGES - 1 < ktiles)
                    STAGE_TILE(ws, kt + STAGES - 1);
                MMA_CP_COMMIT();
                ws = ws + 1 == STAGES ? 0 : ws + 1;
            }
        }
    }
#else
    for (int kt = 0; kt < ktiles; kt++) {
        MMA_CP_WAIT(WAIT_GROUPS);
        barrier(CLK_LOCAL_MEM_FENCE);
        const int nk = kt + STAGES - 1;
        if (!COPY_LATE) {
            if (nk < ktiles)
                STAGE_TILE(nk % STAGES, nk);
            MMA_CP_COMMIT();
        }
        const int s = kt % STAGES;
        __local const gemm_t *as = As + s * A_TILE;
        __local const gemm_t *bs = Bs + s * B_TILE;
#pragma unroll
        for (int kk = 0; kk < BK; kk += KSTEP) {
            uint af[MT][4], bf[NT][2];
            load_frags(af, bf, as, bs, kk, wm0, wn0, lane);
            mma_all(acc, af, bf);
            if (kk == 0 && COPY_LATE) {
                if (nk < ktiles)
                    STAGE_TILE(nk % STAGES, nk);
                MMA_CP_COMMIT();
            }
        }
    }
#endif
    MMA_CP_WAIT(0);

    /* acc[i][j][e]: row g (+8 for e >= 2), column 2t + (e & 1) of the
     * 16 x 8 tile (i, j), g = lane / 4, t = lane % 4.  Per row of the
     * lane: C's row index once, and the epilogue's bias and residual
     * elements of the row (columns past N read column N - 1, never
     * stored) all read before the row's stores.  Read between the stores,
     * which may alias them as far as the compiler knows, each waited for
     * the one before it (and the row index, a division for a convolution,
     * was computed per element): on the H100 each epilogue piece (bias,
     * residual, activation) added 100-130 us to ResNet-18's 218 us
     * layer-1 convolution, 17-23 us now (docs/conv.md "The fused epilogue
     * on GPUs"). */
#pragma unroll
    for (int i = 0; i < MT; i++)
#pragma unroll
        for (int e2 = 0; e2 < 2; e2++) {
            int gm = m0 + wm0 + i * 16 + fg + 8 * e2;
            if (gm >= M)
                continue;
            const long crow = cbase + ROW_OF(gm, c_sm, c_img);
            float ev[NT][2], rv[NT][2];
            if (!partial_ && (epi & 1)) {
#pragma unroll
                for (int j = 0; j < NT; j++)
#pragma unroll
                    for (int e1 = 0; e1 < 2; e1++)
                        ev[j][e1] = GEMM_EPI_E(gm, min(n0 + wn0 + j * 8 + 2 * ft + e1, N - 1));
            } else {
#pragma unroll
                for (int j = 0; j < NT; j++)
                    ev[j][0] = ev[j][1] = 0.0f;
            }
            if (!partial_ && (epi & 6)) {
                const long rrow = r_off + bat * r_sb + ROW_OF(gm, r_sm, r_img);
#pragma unroll
                for (int j = 0; j < NT; j++)
#pragma unroll
                    for (int e1 = 0; e1 < 2; e1++)
                        rv[j][e1] =
                            GLD(R, rrow + (long)min(n0 + wn0 + j * 8 + 2 * ft + e1, N - 1) * r_sn);
            } else {
#pragma unroll
                for (int j = 0; j < NT; j++)
                    rv[j][0] = rv[j][1] = 0.0f;
            }
#pragma unroll
            for (int j = 0; j < NT; j++)
#pragma unroll
                for (int e1 = 0; e1 < 2; e1++) {
                    int gn = n0 + wn0 + j * 8 + 2 * ft + e1;
                    if (gn < N)
                        GEMM_STORE_AT(acc[i][j][2 * e2 + e1], gm, gn, crow, ev[j][e1], rv[j][e1]);
                }
        }
}
#else /* GEMM_WGMMA */
/*
 * gemm_wgmma: Hopper's warpgroup products (cl_kernels/wgmma.clh, built
 * through the PTX route), 16-bit operands or float32 as TF32 (GEMM_DT 0:
 * both operands K-major, 8-deep products, each item rounding the chunks it
 * staged to TF32 with cvt.rna before it publishes them, as the mma.sync
 * atom rounds its fragments), float32 accumulation.  The
 * staging is gemm_mma's (STAGE_SETUP / STAGE_RUN: cp.async for aligned
 * operands, plain loads otherwise, zeros past the edges) into STAGES slots
 * of BK = 16 or 32 deep tiles (BKC 2, 4) in wgmma's canonical layouts:
 * K-major tiles with the 32- or 64-byte swizzle (KMAJ),
 * M/N-major ones with the 128-byte swizzle (XMAJ above), each slot aligned
 * to 1024 bytes.  Warpgroup w owns
 * rows w * BM / WGS .. of the block: per 16-deep step, MH wgmma.m64nBNk16
 * products (A from its rows, B the whole tile).
 *
 * The pipeline: tile kt is in slot kt % STAGES.  Iteration kt waits for
 * its own copies of tile kt (cp.async.wait_group), fences them for the
 * tensor cores (fence.proxy.async) and meets the other items at a barrier;
 * issues tile kt's products; stages tile kt + PREF into its slot; and waits
 * until at most WG_DEPTH groups of products are pending.  PREF = STAGES -
 * 1 - WG_DEPTH: the slot refilled in iteration kt held tile kt - 1 -
 * WG_DEPTH, whose products every warpgroup finished before the barrier.
 */
#if (BKC != 2 && BKC != 4 && !(BKC == 8 && WG_TMA))
#error "gemm_wgmma: tiles of 2 or 4 chunks a row (8 through TMA)"
#endif
/*
 * WG_TF32_TRUNC (float32, engine13): the tensor cores read the float32
 * bits as staged (wgmma's tf32 uses their top 19 bits: truncation toward
 * zero), with no rounding pass over the staged tiles (WG_ROUND below, the
 * TMA kernel's per-item pass); 0: each item rounds its share to nearest
 * (cvt.rna) first.  (3xTF32, WG_X3, splits its operands either way.)
 *
 * WG_XT (float32 with an M-major A or an N-major B, engine13): wgmma's
 * tf32 takes K-major tiles only, so such an operand lands through the
 * usual staging (cp.async, or plain loads) in its own layout, STAGES
 * landing slots of k-rows of BM (BN) floats, 16-byte chunk c of k-row r at
 * c ^ (r & 7) (XMAJ); after the copies of tile kt and a barrier every item
 * transposes its share (4 floats along K of one row at a time: lanes on
 * consecutive rows, no bank conflicts) into the one K-major tile of that
 * operand (Ak, Bk), rounded as WG_TF32_TRUNC says, then fences and meets
 * the others as before.  One K-major tile suffices: no products are left
 * pending across a K tile (WG_DEPTH 0), so tile kt - 1's were done in
 * every warpgroup before tile kt's first barrier.  The block-barrier
 * cp.async kernel only.
 */
#ifndef WG_TF32_TRUNC
#define WG_TF32_TRUNC 0
#endif
#ifndef WG_X3
#define WG_X3 0
#endif
/* WG_X3T (3xTF32 with an N-major B, x3xt14): B lands in its own layout as
 * WG_XT's does (cp.async of 16-byte rows along N, or plain loads along N),
 * and the split (WG_X3_SPLIT_B below) transposes it into the same slot:
 * hi K-major in place, lo into the lo slot, so no K-major tile besides. */
#define WG_X3T (GEMM_DT == 0 && WG_X3 && !B_UK)
#define WG_XT_A (GEMM_DT == 0 && !A_UK)
#define WG_XT_B (GEMM_DT == 0 && !B_UK && !WG_X3)
#define WG_XT (WG_XT_A || WG_XT_B)
#if WG_XT && (WG_WS || WG_TMA || WG_DEPTH || GEMM_CONV)
#error "gemm_wgmma: float32 M/N-major tiles for the block-barrier cp.async kernel, WG_DEPTH 0"
#endif
/* The operands' tiles as wgmma reads them: K-major (16-bit M/N-major
 * tiles read as such). */
#define WG_AK (A_UK || WG_XT_A)
#define WG_BK (B_UK || WG_XT_B || WG_X3T)
/* The depth of one product: 16 elements, 8 for TF32 (32 bytes either way). */
#if GEMM_DT == 0
#define WG_KSTEP 8
#else
#define WG_KSTEP 16
#endif
/* The K-major tiles' swizzle: rows of BKC * 16 bytes (32: mode 3, 64: 2,
 * 128: 1). */
#define WG_KSWZ (BKC == 2 ? 3u : BKC == 4 ? 2u : 1u)
#ifndef WG_DEPTH
#define WG_DEPTH 0
#endif
#define PREF (STAGES - 1 - WG_DEPTH)
#define PREF_WAIT (PREF - 1)
#if PREF < 1 && !(WG_TMA && STAGES == 1)
#error "gemm_wgmma: STAGES - 1 - WG_DEPTH must be at least 1 (TMA: or one stage)"
#endif
#define WG_ACC (BN / 2)
#if BN == 64
/* (conv15: 64-wide blocks, a convolution's products of 64 or fewer
 * destination channels: "wg128x64" / "wg64x64") */
#if GEMM_DT == 0
#define WG_MMA(d, da, db, ta, tb) WG_MMA_N64_TF32(d, da, db)
#else
#define WG_MMA(d, da, db, ta, tb) WG_MMA_N64(d, da, db, MMA_TY, ta, tb)
#endif
#elif BN == 128
#if GEMM_DT == 0
#define WG_MMA(d, da, db, ta, tb) WG_MMA_N128_TF32(d, da, db)
#else
#define WG_MMA(d, da, db, ta, tb) WG_MMA_N128(d, da, db, MMA_TY, ta, tb)
#endif
#elif BN == 256
#if GEMM_DT == 0
#define WG_MMA(d, da, db, ta, tb) WG_MMA_N256_TF32(d, da, db)
#else
#define WG_MMA(d, da, db, ta, tb) WG_MMA_N256(d, da, db, MMA_TY, ta, tb)
#endif
#else
#error "gemm_wgmma: BN must be 64, 128 or 256"
#endif
#if A_UK
#define WG_TA "0"
#else
#define WG_TA "1"
#endif
#if B_UK
#define WG_TB "0"
#else
#define WG_TB "1"
#endif

/* The descriptor of the WG_KSTEP-deep step ks of rows r0 (a multiple of
 * 64) .. of a tile at __local address t: K-major tiles BKC * 16 bytes a
 * row, 8-row groups BKC * 128 bytes apart, the step 32 bytes in; M/N-major
 * tiles (16-bit only) 64-row blocks (BK / 8) * 1024 bytes apart, 8-k-row
 * atoms 1024 apart. */
static inline ulong wg_tile_desc(uint t, int r0, int ks, int kmajor)
{
    return kmajor ? wg_desc(t + (uint)r0 * (BKC * 16u) + (uint)ks * 32u, 16u, BKC * 128u,
                            WG_KSWZ)
                  : wg_desc(t + (uint)(r0 / 64) * (BK / 8) * 1024u + (uint)ks * 2048u,
                            (BK / 8) * 1024u, 1024u, 1u);
}

/* TF32: this item rounds the chunks of slot s it staged (STAGE_SETUP's
 * offsets ao, bo), once its copies of them are complete, before it fences
 * them for the tensor cores; 16-bit operands: nothing. */
/* WG_X3P (3xTF32 with promotion, CLOPS_GEMM_3XTF32_PROMOTE=P): the three
 * products of every P K tiles (P = WG_X3P: 1, 2, 4 or 8) go into zeroed
 * registers (acc_t), added to the running sums with ordinary float32
 * additions (rounded to nearest) once they are done, so that the tensor
 * cores' own accumulation (truncating, docs/gemm.md) spans 24 P products,
 * not K.  P 1 on the H200: 2.6x more accurate than an FMA SGEMM, but 30%
 * slower than without (tf32-11's second job); a larger P pays the 64
 * additions an item once every P tiles (engine12). */
#ifndef WG_X3P
#define WG_X3P 0
#endif
#if WG_X3P && (!WG_X3 || (WG_X3P != 1 && WG_X3P != 2 && WG_X3P != 4 && WG_X3P != 8))
#error "gemm_wgmma: WG_X3P is a 3xTF32 mode of period 1, 2, 4 or 8 K tiles"
#endif
/* WG_X3H (x3-13, CLOPS_GEMM_3XTF32_PASSES=H): promotion with a narrower
 * second accumulator set.  Each K tile's products run in H column passes
 * of BN / H columns (WG_X3W) one after the other into one temporary set of
 * BN / (2 H) registers an item (acc_t), each pass's sums added into its
 * columns of the running float32 sums once its products are done (the
 * first product of a pass overwrites acc_t: wgmma's scale-d 0); A is read
 * from __local H times, the tensor work is the same.  The period is one
 * tile (BK deep: 8 at BKC 2, 16 at BKC 4, so WG_X3P 1 in tiles), so that
 * the set need not hold a column pass across tiles: 64 (H 2) or 96 (H 4)
 * registers an item fewer than full-width promotion's second set.
 * WG_X3LO: the lo slots (2; 1 with a barrier before each tile's split, so
 * that BK 16 in two stages fits 48 KiB: 3 x 16 KiB at 128 x 128).
 * WG_X3OV 1 (4 passes only): two sets of BN / 8 registers, pass c's
 * products issued before pass c - 1's sums are added (wait_group 1), so
 * the additions overlap the tensor work; the registers of 2 passes. */
#ifndef WG_X3H
#define WG_X3H 0
#endif
#ifndef WG_X3OV
#define WG_X3OV 0
#endif
#if WG_X3OV && WG_X3H != 4
#error "gemm_wgmma: WG_X3OV overlaps 4 column passes"
#endif
#ifndef WG_X3LO
#define WG_X3LO 2
#endif
#if WG_X3H && (WG_X3P != 1 || (WG_X3H != 2 && WG_X3H != 4) || BN != 128)
#error "gemm_wgmma: WG_X3H (2 or 4 column passes of BN 128) promotes every tile (WG_X3P 1)"
#endif
#if WG_X3 && WG_X3LO != 1 && WG_X3LO != 2
#error "gemm_wgmma: WG_X3LO is 1 or 2 lo slots"
#endif
#define WG_X3W (BN / (WG_X3H ? WG_X3H : 1))
#if WG_X3W == 64
#define WG_MMA_X3W(d, da, db, sd) WG_MMA_N64_TF32S(d, da, db, sd)
#elif WG_X3W == 32
#define WG_MMA_X3W(d, da, db, sd) WG_MMA_N32_TF32S(d, da, db, sd)
#endif
#if GEMM_DT == 0
static inline void wg_round4(__local float *p)
{
    float4 v = vload4(0, p);
    vstore4((float4)(wg_tf32(v.x), wg_tf32(v.y), wg_tf32(v.z), wg_tf32(v.w)), 0, p);
}
#if WG_X3
/*
 * 3xTF32 (WG_X3 1; 2: the a_lo * b_hi product left out, a planted bug for
 * the tests' own check, CLOPS_GEMM_3XTF32_DROP): each item splits the
 * chunks of slot s it staged (ref/tf32_split.clh), hi in place and lo into
 * the lo slot kt & 1 after the STAGES slots (the block-barrier loop's kt:
 * the only caller).  Two lo slots suffice because no products stay pending
 * across a K tile (WG_DEPTH 0): the lo slot written for tile kt was last
 * read by tile kt - 2's products, which every warpgroup waited for before
 * the barrier of tile kt - 1, which this item has passed.
 */
#if GEMM_DT != 0 || WG_WS || WG_DEPTH || !A_UK
#error "gemm_wgmma: 3xTF32 for the block-barrier kernel of K-major float32 A tiles, WG_DEPTH 0"
#endif
#define WG_ROUND(s)                                                                         \
    do {                                                                                    \
        for (int i = 0; i < XN(BM); i++)                                                    \
            tf32_split4(As + (s) * A_TILE + ao[i], As + (STAGES + kt % WG_X3LO) * A_TILE + ao[i]); \
        for (int i = 0; i < XN(BN) * B_UK; i++)                                             \
            tf32_split4(Bs + (s) * B_TILE + bo[i], Bs + (STAGES + kt % WG_X3LO) * B_TILE + bo[i]); \
    } while (0)
#if WG_X3T
/*
 * WG_X3T: the N-major landing slot s (k-rows of BN floats, XMAJ) into
 * K-major hi (in place) and lo (the lo slot) tiles.  Every item reads its
 * WG_X3T_N 4-deep column pieces (item lid: row q % BN, chunk q / BN for q
 * = lid, lid + WG_ITEMS, ..: lanes on consecutive rows, as WG_XT_RUN)
 * into registers (WG_X3T_READ, once every item's copies of the slot
 * landed), and after a barrier (no item reads the slot any more) writes
 * their split (WG_X3T_WRITE): the same floats in the same K-major places
 * as plain loads in K-major order would have staged and WG_ROUND split.
 */
#define WG_X3T_N (BN * BKC / WG_ITEMS)
#define WG_X3T_READ(s)                                                                      \
    float4 x3t_v[WG_X3T_N];                                                                 \
    _Pragma("unroll") for (int i = 0; i < WG_X3T_N; i++)                                    \
    {                                                                                       \
        const int q_ = lid + i * WG_ITEMS, n_ = q_ % BN, c_ = q_ / BN;                      \
        __local const float *src_ = Bs + (s) * B_TILE;                                      \
        x3t_v[i] = (float4)(src_[XIDX(4 * c_, n_, BN)], src_[XIDX(4 * c_ + 1, n_, BN)],     \
                            src_[XIDX(4 * c_ + 2, n_, BN)], src_[XIDX(4 * c_ + 3, n_, BN)]);\
    }
#define WG_X3T_WRITE(s)                                                                     \
    _Pragma("unroll") for (int i = 0; i < WG_X3T_N; i++)                                    \
    {                                                                                       \
        const int q_ = lid + i * WG_ITEMS, n_ = q_ % BN, c_ = q_ / BN;                      \
        float l0_, l1_, l2_, l3_;                                                           \
        const float4 h_ = (float4)(tf32_split(x3t_v[i].x, &l0_), tf32_split(x3t_v[i].y, &l1_), \
                                   tf32_split(x3t_v[i].z, &l2_), tf32_split(x3t_v[i].w, &l3_)); \
        vstore4(h_, 0, Bs + (s) * B_TILE + KMAJ(n_, c_));                                   \
        vstore4((float4)(l0_, l1_, l2_, l3_), 0,                                            \
                Bs + (STAGES + kt % WG_X3LO) * B_TILE + KMAJ(n_, c_));                      \
    }
#endif
#elif WG_TF32_TRUNC
#define WG_ROUND(s) ((void)0)
#else
/* (K-major operands only: WG_XT rounds the others as it transposes them) */
#define WG_ROUND(s)                                                                         \
    do {                                                                                    \
        for (int i = 0; i < XN(BM) * A_UK; i++)                                             \
            wg_round4(As + (s) * A_TILE + ao[i]);                                           \
        for (int i = 0; i < XN(BN) * B_UK; i++)                                             \
            wg_round4(Bs + (s) * B_TILE + bo[i]);                                           \
    } while (0)
#endif
/* WG_XT: landing slot src (k-rows of R floats) into the K-major tile dst,
 * rounded to TF32 unless WG_TF32_TRUNC; item lid takes row q % R, chunk q
 * / R for q = lid, lid + WG_ITEMS, ... */
#if WG_TF32_TRUNC
#define WG_XT_CVT(x) (x)
#else
#define WG_XT_CVT(x) wg_tf32(x)
#endif
#define WG_XT_RUN(dst, src, R)                                                              \
    for (int q_ = lid; q_ < (R) * BKC; q_ += WG_ITEMS) {                                    \
        const int n_ = q_ % (R), c_ = q_ / (R);                                             \
        float4 v_;                                                                          \
        v_.x = WG_XT_CVT((src)[XIDX(4 * c_, n_, R)]);                                       \
        v_.y = WG_XT_CVT((src)[XIDX(4 * c_ + 1, n_, R)]);                                   \
        v_.z = WG_XT_CVT((src)[XIDX(4 * c_ + 2, n_, R)]);                                   \
        v_.w = WG_XT_CVT((src)[XIDX(4 * c_ + 3, n_, R)]);                                   \
        vstore4(v_, 0, (dst) + KMAJ(n_, c_));                                               \
    }
#else
#define WG_ROUND(s) ((void)0)
#endif

#if WG_WS
/*
 * The warp-specialised gemm_wgmma (WG_WS 1): warpgroup 0 is the producer,
 * warpgroups 1 .. WGS the consumers (each as above: BM / WGS rows, MH
 * products of 64 x BN per 16-deep step).  No work-group barrier in the K
 * loop: the hand-over of each of the STAGES slots goes through hardware
 * named barriers (PTX bar.arrive / bar.sync with a thread count, which take
 * no __local memory: the slots fill NVIDIA's 48 KiB), "full" s (id 1 + s)
 * and "empty" s (id 1 + STAGES + s), each used by the producer and the
 * consumers in strict alternation.
 *
 * Producer, tile j: once WS_N tiles are in flight, waits for its own
 * copies of tile j - WS_N (cp.async.wait_group WS_N - 1), fences them for
 * the tensor cores (fence.proxy.async) and arrives on full[(j - WS_N) %
 * STAGES]; then, from the second round on, waits on empty[j % STAGES] (the
 * consumers are done with tile j - STAGES) and stages tile j into the slot
 * (cp.async, or plain loads through the strides).  At the end it arrives
 * for the tiles still in flight.  WS_N = STAGES - 1: the consumers find
 * the next tile ready when they finish one, and at most STAGES tiles are
 * held.
 *
 * Consumers, tile kt: wait on full[kt % STAGES], issue the tile's products
 * (wgmma.fence, MH * BK / WG_KSTEP wgmma, commit), wait until at most WG_DEPTH
 * product groups are pending, and arrive on empty for the tile whose
 * products are now done (kt - WG_DEPTH), if the producer will refill its
 * slot (tiles below ktiles - STAGES).  No deadlock: the producer's wait
 * on empty[j - STAGES] in iteration j needs the consumers past full[j -
 * STAGES + WG_DEPTH], which it arrived on in iteration j - STAGES +
 * WG_DEPTH + WS_N <= j, before that wait.  Each element of C is still one
 * warpgroup's sum in k order: the same bits every run, and the same as the
 * block-barrier kernel's.
 */
#define WS_N (STAGES - 1)
#define WS_NW (STAGES - 2)
#if WS_N < 1 || WG_DEPTH > 1 || 2 * STAGES > 15
#error "gemm_wgmma (warp-specialised): 2..7 stages, WG_DEPTH 0 or 1"
#endif
/* A named barrier (id) of the whole work-group: arrive without waiting /
 * arrive and wait. */
#define WS_ARRIVE(id) asm volatile("bar.arrive %0, %1;" ::"r"(id), "r"(WS_WG) : "memory")
#define WS_SYNC(id) asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(WS_WG) : "memory")
#define WG_ITEMS WS_WG
/* WG_REGS (sm_90a setmaxnreg, CUTLASS's register split): the producer
 * gives registers back (down to WS_PREGS) and the consumers take them (up
 * to WG_REGS); the kernel's entry carries the cap of its 384 items
 * (.maxntid, host/program.c's PTX route), without which ptxas ignores
 * both.  The counts must fit 64 K registers: WS_PREGS * 128 + WG_REGS *
 * 128 * WGS. */
#ifndef WG_REGS
#define WG_REGS 0
#endif
#define WS_PREGS 104
#if WG_REGS && (WG_REGS % 8 || WS_PREGS * 128 + WG_REGS * 128 * WGS > WS_WG * (65536 / WS_WG / 8 * 8))
#error "gemm_wgmma (warp-specialised): WG_REGS a multiple of 8 within 64 K registers"
#endif
#else
#define WG_ITEMS MMA_WG
#endif

/* WG_PROBE (bench only, CLOPS_GEMM_PROBE in ops/gemm/gemm_engine.c; the
 * results are wrong by design and the known-answer check is skipped): bit
 * 0 runs one K tile whatever K, bit 1 stores nothing (C written only when
 * the first accumulator is exactly 1234.5, which keeps the products live),
 * so that timings split a block's time into the K loop, the store and the
 * rest (launch, tile index, staging set-up, the pipeline's first copies).
 * Bits 2-4 split the K loop itself (engine9): bit 2 copies nothing into
 * the slots (the products read whatever they hold), bit 3 issues no
 * products, bit 4 leaves out the work-group barrier of each K tile. */
#ifndef WG_PROBE
#define WG_PROBE 0
#endif

/*
 * WG_TMA (the block-barrier kernel, 16-bit operands, "-tma"
 * configurations; issue 29, engine10; float32 as TF32 since engine12: the
 * same boxes in bytes, BK half as many elements, K-major only, every item
 * rounding its share of the slot to TF32 after the mbarrier's phase and
 * before the barrier): the tiles come through the
 * tensor-memory accelerator instead of every item's cp.async.  Before its K
 * loop the work-group makes two tensor maps (cl_kernels/wgmma.clh), A's and
 * B's for its batch (their address is (ulong)(A + abase)): warp 0 writes
 * the host's templates (tma_ta, tma_tb: CUtensorMaps encoded by
 * ops/gemm/gemm_tma.c with the operands' sizes and strides; TMA_ZERO 1:
 * zeros, every field then set here, TMA_M1 the sizes' encoding) into the
 * first slot, item 0 sets the address, the warp copies them to the
 * work-group's 256 bytes of W (a scratch buffer of the launch, not C) and
 * item 0 acquires them and sets up one mbarrier a slot.  In the K loop
 * item 0 alone issues a tile's copies: one box of A (BK x BM, K-major) or
 * BM / 64 boxes of 64 x BK (M-major), the same of B, into slot kt % STAGES
 * with the swizzle that writes the layouts above (K-major rows of BK * 2
 * bytes: the 32- or 64-byte swizzle; M/N-major 128-byte rows: the 128-byte
 * one), the slot's mbarrier expecting their bytes; elements past M, N and K
 * arrive as zeros.  Every item waits for the mbarrier's phase instead of
 * its own copies, then the barrier and the products as before; item 0
 * refills the slot the barrier freed.  The products and their order are
 * the cp.async kernel's: the same bits.  NVIDIA's OpenCL allows 48 KiB of
 * __local memory, so the mbarriers take 3 x 16 KiB slots of BK 32 out of
 * reach: BK 32 in 2 stages or BK 16 in 5.
 */
#ifndef WG_TMA
#define WG_TMA 0
#endif
#if WG_TMA
#ifndef TMA_ZERO
#define TMA_ZERO 0
#endif
#if WG_WS || WG_X3 || GEMM_SPLIT || GEMM_CONV || WG_PROBE || (GEMM_DT == 0 && TMA_ZERO)
#error "gemm_wgmma: TMA tiles for the block-barrier kernel of plain products (float32: host templates)"
#endif
#ifndef TMA_M1
#define TMA_M1 0
#endif
/* The K-major boxes' swizzle (TMA's numbering: 1 32 bytes, 2 64 bytes, 3
 * 128 bytes). */
#define TMA_KSWZ (BKC == 2 ? 1 : BKC == 4 ? 2 : 3)
/* Tiles staged before the K loop: PREF, or the one slot of a one-stage
 * program (engine11's BK 64 boxes: 128-byte rows, refilled once the
 * products of the tile in it are done). */
#define TMA_PRE (PREF > 0 ? PREF : 1)
#define TMA_ARGS , ulong16 tma_ta, ulong16 tma_tb
#else
#define TMA_ARGS
#endif

/*
 * WG_CSTAGE (the block-barrier kernel, "-cs" configurations): C goes out
 * through __local instead of from the accumulators' fragments (whose rows
 * of 8 items x 2 elements make every store instruction touch 8 rows).
 * After the K loop the slots are free: per pass (h, 64-column chunk cc),
 * each warpgroup writes its 64 x 64 float32 sums into its own staging area
 * (warpgroup 0 the A slots, 1 the B slots; rows WG_CLD floats apart,
 * padded against bank conflicts), the work-group meets at a barrier, and
 * each item takes 8 consecutive columns of a row: C = alpha * acc + beta
 * * C and the epilogue, element by element exactly as GEMM_STORE_AT (the
 * same bits), then one 16-byte store of the 8 results when C's rows are
 * unit-stride and 16-byte aligned and the 8 columns lie inside N (a warp
 * writes 4 whole 128-byte rows), else 8 GEMM_STOREs.
 */
#ifndef WG_CSTAGE
#define WG_CSTAGE 0
#endif
#if WG_CSTAGE
#if WG_WS || WGS > 2 || BN % 64
#error "gemm_wgmma: the staged store is for the block-barrier kernel of 1-2 warpgroups"
#endif
#define WG_CLD 72
/* (slots smaller than a 64 x 64 staging area, one stage of BK 64 through
 * TMA: that warpgroup's array is padded to it) */
#define WG_CS_MIN (64 * WG_CLD * 4 / (int)sizeof(gemm_t))
/* 8 elements of C at element i (16-byte aligned: one vector access; two
 * for float32) as float8, and back, rounded as GST rounds. */
#if GEMM_DT == 0
#define GLD8(p, i)                                                                          \
    (float8)(*(__global const float4 *)((p) + (i)), *(__global const float4 *)((p) + (i) + 4))
#define GST8(v, p, i)                                                                       \
    do {                                                                                    \
        *(__global float4 *)((p) + (i)) = (v).lo;                                           \
        *(__global float4 *)((p) + (i) + 4) = (v).hi;                                       \
    } while (0)
#elif GEMM_DT == 1
#define GLD8(p, i) vload_half8(0, (__global const half *)((p) + (i)))
#define GST8(v, p, i)                                                                       \
    do {                                                                                    \
        ushort8 h_;                                                                         \
        vstore_half8_rte((v), 0, (__private half *)&h_);                                    \
        *(__global uint4 *)((p) + (i)) = as_uint4(h_);                                      \
    } while (0)
#else
#define GLD8(p, i) as_float8(convert_uint8(as_ushort8(*(__global const uint4 *)((p) + (i)))) << 16)
#define GST8(v, p, i)                                                                       \
    (*(__global uint4 *)((p) + (i)) = as_uint4((ushort8)(                                   \
         clops_float_to_bf16((v).s0), clops_float_to_bf16((v).s1),                          \
         clops_float_to_bf16((v).s2), clops_float_to_bf16((v).s3),                          \
         clops_float_to_bf16((v).s4), clops_float_to_bf16((v).s5),                          \
         clops_float_to_bf16((v).s6), clops_float_to_bf16((v).s7))))
#endif
#endif
#ifndef WG_CS_MIN
#define WG_CS_MIN 0
#endif
#define WG_SLOTS(n) ((n) > WG_CS_MIN ? (n) : WG_CS_MIN)

__kernel __attribute__((reqd_work_group_size(WG_ITEMS, 1, 1))) void gemm_wgmma(GEMM_ARGS TMA_ARGS)
{
    /* (3xTF32: WG_X3LO lo slots after the STAGES slots) */
#define WG_NSLOT (STAGES + WG_X3LO * !!WG_X3)
    __local gemm_t As[WGS == 2 ? WG_SLOTS(WG_NSLOT * A_TILE) : WG_NSLOT * A_TILE]
        __attribute__((aligned(1024)));
    __local gemm_t Bs[WG_SLOTS(WG_NSLOT * B_TILE)] __attribute__((aligned(1024)));
    const int lid = (int)get_local_id(0);
    const int lane = lid & 31, warp = lid >> 5;
    const uint as0 = mma_saddr(As), bs0 = mma_saddr(Bs);
    /* (WG_XT: the K-major tiles of the transposed operands) */
#if WG_XT_A
    __local float Ak[A_TILE] __attribute__((aligned(1024)));
    const uint ak0 = mma_saddr(Ak);
#endif
#if WG_XT_B
    __local float Bk[B_TILE] __attribute__((aligned(1024)));
    const uint bk0 = mma_saddr(Bk);
#endif
#if WG_TMA
    __local ulong tma_bars_[STAGES] __attribute__((aligned(8)));
    const uint tb0_ = mma_saddr(tma_bars_);
#endif
#if WG_WS
    /* The tiles of this work-group: its own (WS_FOR_TILES runs once), or,
     * persistent (WG_PERSIST), tiles g, g + groups, ...: the K tiles of
     * all of them are one stream through the slots, so the producer stages
     * the next tile's while the consumers store this one's. */
#if WG_PERSIST
#if GEMM_SPLIT
#error "gemm_wgmma: persistent programs do not split K"
#endif
    const long ntiles_ = (long)nbatch * tiles_m * tiles_n, gstep_ = (long)get_num_groups(0);
    const long mine_ = (ntiles_ - (long)get_group_id(0) + gstep_ - 1) / gstep_;
#define WS_FOR_TILES for (long tile_ = get_group_id(0); tile_ < ntiles_; tile_ += gstep_)
#define WS_BEGIN(bat, tm, tn) GEMM_BEGIN_AT(tile_, bat, tm, tn)
#define WS_LAST (tile_ + gstep_ >= ntiles_)
#else
    const long mine_ = 1;
#define WS_FOR_TILES for (int once_ = 0; once_ < 1; once_++)
#define WS_BEGIN(bat, tm, tn) GEMM_BEGIN(bat, tm, tn)
#define WS_LAST 1
#endif
    /* j: the position in the stream of K tiles (slot j % STAGES). */
    int j = 0;
    if (warp < 4) {
        /* The producer (gemm_mma's staging, by MMA_WG = 128 items). */
#if WG_REGS
        asm volatile("//@setmaxnreg.dec.sync.aligned.u32 " MMA_STR(WS_PREGS) ";" ::: "memory");
#endif
        WS_FOR_TILES {
            WS_BEGIN(bat, tm, tn);
            const int m0 = tm * BM, n0 = tn * BN;
            const int ktiles = (K + BK - 1) / BK;
            STAGE_A_SETUP
            STAGE_B_SETUP
            for (int kt = 0; kt < ktiles; kt++, j++) {
                if (j >= WS_N) {
                    MMA_CP_WAIT(WS_NW);
                    WG_ROUND((j - WS_N) % STAGES);
                    WG_PROXY_FENCE();
                    WS_ARRIVE(1 + (j - WS_N) % STAGES);
                }
                const int s = j % STAGES;
                if (j >= STAGES)
                    WS_SYNC(1 + STAGES + s);
                STAGE_TILE(s, kt);
                MMA_CP_COMMIT();
            }
            if (WS_LAST) {
                /* The tiles still in flight (rounded with this tile's
                 * offsets in the slots, the same for every tile). */
                MMA_CP_WAIT(0);
                for (int t = max(j - WS_N, 0); t < j; t++)
                    WG_ROUND(t % STAGES);
                WG_PROXY_FENCE();
                for (int t = max(j - WS_N, 0); t < j; t++)
                    WS_ARRIVE(1 + t % STAGES);
            }
        }
        return;
    }
#if WG_REGS
    asm volatile("//@setmaxnreg.inc.sync.aligned.u32 " MMA_STR(WG_REGS) ";" ::: "memory");
#endif
    const int wg = (warp >> 2) - 1;
    WS_FOR_TILES {
        WS_BEGIN(bat, tm, tn);
#else
    {
        GEMM_BEGIN(bat, tm, tn);
#endif
        const int m0 = tm * BM, n0 = tn * BN;
        const int ktiles = WG_PROBE & 1 ? min((K + BK - 1) / BK, 1) : (K + BK - 1) / BK;
#if WG_WS
        /* The stream's length: its last STAGES tiles are never refilled. */
        const long jtot = mine_ * ktiles;
#elif WG_TMA
        const int wg = warp >> 2;
        /* The maps (above): built in slot 0, published to W. */
        __global uchar *tmg_ = (__global uchar *)W + (size_t)get_group_id(0) * 256;
        const ulong tma_a_ = (ulong)tmg_, tma_b_ = (ulong)(tmg_ + 128);
        if (lid == 0) {
            __local ulong16 *t_ = (__local ulong16 *)As;
            t_[0] = TMA_ZERO ? (ulong16)0 : tma_ta;
            t_[1] = TMA_ZERO ? (ulong16)0 : tma_tb;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lid == 0) {
#if TMA_ZERO
#if A_UK
            tma_set_fields(as0, (uint)K, (uint)M, (ulong)a_sm * 2u, BK, BM, TMA_M1);
            TMA_SET_SWIZZLE(as0, TMA_KSWZ);
#else
            tma_set_fields(as0, (uint)M, (uint)K, (ulong)a_sk * 2u, 64, BK, TMA_M1);
            TMA_SET_SWIZZLE(as0, 3);
#endif
#if B_UK
            tma_set_fields(as0 + 128u, (uint)K, (uint)N, (ulong)b_sn * 2u, BK, BN, TMA_M1);
            TMA_SET_SWIZZLE(as0 + 128u, TMA_KSWZ);
#else
            tma_set_fields(as0 + 128u, (uint)N, (uint)K, (ulong)b_sk * 2u, 64, BK, TMA_M1);
            TMA_SET_SWIZZLE(as0 + 128u, 3);
#endif
#endif
            tma_set_address(as0, (ulong)(A + abase));
            tma_set_address(as0 + 128u, (ulong)(B + bbase));
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lid < 32) {
            TMA_PUBLISH(tma_a_, as0);
            TMA_PUBLISH(tma_b_, as0 + 128u);
            /* (the slot's generic writes before the copy engine's) */
            WG_PROXY_FENCE();
        }
        if (lid == 0) {
            TMA_ACQUIRE(tma_a_);
            TMA_ACQUIRE(tma_b_);
            for (int s = 0; s < STAGES; s++)
                TMA_BAR_INIT(tb0_ + 8u * (uint)s);
            TMA_BAR_INIT_FENCE();
        }
        barrier(CLK_LOCAL_MEM_FENCE);
/* Tile kt of an operand (unit stride along K: uk) into its slot at t, the
 * block's rows from r0 (rows of them): one box, or 64-row boxes BK * 128
 * bytes apart (item 0). */
#define TMA_BOXES(uk, t, map, r0, rows, kt, bar)                                            \
    for (int q_ = 0; q_ < ((uk) ? 1 : (rows) / 64); q_++)                                   \
        tma_load((t) + (uint)(q_ * BK * 128), map, (uk) ? (kt) * BK : (r0) + 64 * q_,       \
                 (uk) ? (r0) : (kt) * BK, bar)
#define TMA_STAGE(s, kt)                                                                    \
    do {                                                                                    \
        const uint b_ = tb0_ + 8u * (uint)(s);                                              \
        TMA_EXPECT(b_, (uint)((A_TILE + B_TILE) * (int)sizeof(gemm_t)));                    \
        TMA_BOXES(A_UK, as0 + (uint)((s) * A_TILE * (int)sizeof(gemm_t)), tma_a_, m0, BM, kt, b_); \
        TMA_BOXES(B_UK, bs0 + (uint)((s) * B_TILE * (int)sizeof(gemm_t)), tma_b_, n0, BN, kt, b_); \
    } while (0)
#else
        const int wg = warp >> 2;
        STAGE_A_SETUP
        STAGE_B_SETUP
#endif
        float acc[MH][WG_ACC];
#pragma unroll
        for (int h = 0; h < MH; h++)
#pragma unroll
            for (int e = 0; e < WG_ACC; e++)
                acc[h][e] = 0.0f;
#if WG_X3H
        /* (one column pass's sums of one K tile, BN / WG_X3H columns; two
         * such sets with WG_X3OV) */
        float acc_t[1 + WG_X3OV][WG_X3W / 2];
#pragma unroll
        for (int b = 0; b < 1 + WG_X3OV; b++)
#pragma unroll
            for (int e = 0; e < WG_X3W / 2; e++)
                acc_t[b][e] = 0.0f;
#define WG_ACC_T acc
#elif WG_X3P
        /* (the products' accumulators: one K tile's sums) */
        float acc_t[MH][WG_ACC];
#define WG_ACC_T acc_t
#else
#define WG_ACC_T acc
#endif
#if WG_TMA
        if (lid == 0)
            for (int s = 0; s < TMA_PRE && s < ktiles; s++)
                TMA_STAGE(s, s);
#elif !WG_WS
#pragma unroll
        for (int s = 0; s < PREF; s++) {
            if (s < ktiles && !(WG_PROBE & 4))
                STAGE_TILE(s, s);
            MMA_CP_COMMIT();
        }
#endif
        for (int kt = 0; kt < ktiles; kt++) {
#if WG_WS
            const int s = j % STAGES;
            WS_SYNC(1 + s);
#elif WG_TMA
            const int s = kt % STAGES;
            tma_wait(tb0_ + 8u * (uint)s, (uint)(kt / STAGES) & 1u);
#if GEMM_DT == 0 && !WG_TF32_TRUNC
            /* TF32: the slot's floats rounded as the cp.async kernel rounds
             * them (cvt.rna), each item 16-byte chunks lid, lid + items, ..
             * of both tiles (elementwise: the swizzle does not matter),
             * then fenced for the tensor cores; the slot's next TMA refill
             * follows the barrier after its products. */
            for (int i = lid; i < A_TILE / 4; i += WG_ITEMS)
                wg_round4(As + s * A_TILE + 4 * i);
            for (int i = lid; i < B_TILE / 4; i += WG_ITEMS)
                wg_round4(Bs + s * B_TILE + 4 * i);
            WG_PROXY_FENCE();
#endif
            barrier(CLK_LOCAL_MEM_FENCE);
#else
            const int s = kt % STAGES;
            MMA_CP_WAIT(PREF_WAIT);
#if WG_X3 && (WG_X3LO == 1 || WG_X3T)
            /* (one lo slot: every warpgroup's products of the last tile
             * done before it is written again; WG_X3T: every item's copies
             * of B's landing slot done) */
            if (kt || WG_X3T)
                barrier(CLK_LOCAL_MEM_FENCE);
#endif
#if WG_X3T
            WG_X3T_READ(s)
#endif
            WG_ROUND(s);
#if WG_X3T
            /* (every item's reads of the landing slot done) */
            barrier(CLK_LOCAL_MEM_FENCE);
            WG_X3T_WRITE(s)
#endif
#if WG_XT
            /* (every item's copies of the landing slot, and every
             * warpgroup's products of tile kt - 1, done) */
            barrier(CLK_LOCAL_MEM_FENCE);
#if WG_XT_A
            WG_XT_RUN(Ak, As + s * A_TILE, BM);
#endif
#if WG_XT_B
            WG_XT_RUN(Bk, Bs + s * B_TILE, BN);
#endif
#endif
            WG_PROXY_FENCE();
#if !(WG_PROBE & 16)
            barrier(CLK_LOCAL_MEM_FENCE);
#endif
#endif
#if WG_XT_A
            const uint at = ak0;
#else
            const uint at = as0 + (uint)(s * A_TILE * (int)sizeof(gemm_t));
#endif
#if WG_XT_B
            const uint bt = bk0;
#else
            const uint bt = bs0 + (uint)(s * B_TILE * (int)sizeof(gemm_t));
#endif
#if WG_X3
            const uint alo = as0 + (uint)((STAGES + kt % WG_X3LO) * A_TILE * 4),
                       blo = bs0 + (uint)((STAGES + kt % WG_X3LO) * B_TILE * 4);
#endif
#if WG_X3H
            /* The tile's products in WG_X3H column passes into acc_t (above),
             * each added into its columns once done: acc[h][4j + ..] holds
             * the 8-column block j, so pass c's blocks are acc[h][c *
             * WG_X3W / 2 ..].  (WG_DEPTH 0: nothing else pending.) */
/* pass q's sums (set b) into its columns of acc (each register pinned
 * after the wait, as below) */
#define WG_X3_ADD(b, q)                                                                     \
    _Pragma("unroll") for (int e = 0; e < WG_X3W / 2; e++)                                  \
    {                                                                                       \
        asm volatile("" : "+f"(acc_t[b][e])::"memory");                                     \
        acc[(q) / WG_X3H][(q) % WG_X3H * (WG_X3W / 2) + e] += acc_t[b][e];                  \
    }
#pragma unroll
            for (int q = 0; q < MH * WG_X3H; q++) {
                const int h = q / WG_X3H, c = q % WG_X3H, b = WG_X3OV ? q & 1 : 0;
                WG_FENCE();
#pragma unroll
                for (int ks = 0; ks < BK / WG_KSTEP; ks++) {
                    const ulong da = wg_tile_desc(at, (wg * MH + h) * 64, ks, 1),
                                dl = wg_tile_desc(alo, (wg * MH + h) * 64, ks, 1),
                                db = wg_tile_desc(bt, c * WG_X3W, ks, 1),
                                dbl = wg_tile_desc(blo, c * WG_X3W, ks, 1);
                    WG_MMA_X3W(acc_t[b], da, dbl, ks > 0);
#if WG_X3 != 2
                    WG_MMA_X3W(acc_t[b], dl, db, 1);
#endif
                    WG_MMA_X3W(acc_t[b], da, db, 1);
                }
                WG_COMMIT();
                if (q == 0) {
                    /* (the next tile's copies behind the first pass) */
                    const int nk = kt + PREF;
                    if (nk < ktiles)
                        STAGE_TILE(nk % STAGES, nk);
                    MMA_CP_COMMIT();
                }
#if WG_X3OV
                /* (pass q - 1 done, pass q in flight) */
                if (q > 0) {
                    WG_WAIT(1);
                    WG_X3_ADD(b ^ 1, q - 1)
                }
#else
                WG_WAIT(0);
                WG_X3_ADD(0, q)
#endif
            }
#if WG_X3OV
            WG_WAIT(0);
            WG_X3_ADD((MH * WG_X3H - 1) & 1, MH * WG_X3H - 1)
#endif
#undef WG_X3_ADD
#else
#if WG_X3P
            if (kt % WG_X3P == 0) {
#pragma unroll
                for (int h = 0; h < MH; h++)
#pragma unroll
                    for (int e = 0; e < WG_ACC; e++)
                        acc_t[h][e] = 0.0f;
            }
#endif
            WG_FENCE();
#pragma unroll
            for (int ks = 0; ks < BK / WG_KSTEP; ks++) {
                const ulong db = wg_tile_desc(bt, 0, ks, WG_BK);
#pragma unroll
                for (int h = 0; h < MH; h++) {
                    const ulong da = wg_tile_desc(at, (wg * MH + h) * 64, ks, WG_AK);
#if WG_X3
                    /* The small terms first: a_hi * b_lo, a_lo * b_hi, then
                     * a_hi * b_hi, into the same accumulators. */
                    WG_MMA(WG_ACC_T[h], da, wg_tile_desc(blo, 0, ks, 1), WG_TA, WG_TB);
#if WG_X3 != 2
                    WG_MMA(WG_ACC_T[h], wg_tile_desc(alo, (wg * MH + h) * 64, ks, 1), db, WG_TA,
                           WG_TB);
#endif
#endif
#if !(WG_PROBE & 8)
                    WG_MMA(WG_ACC_T[h], da, db, WG_TA, WG_TB);
#else
                    (void)da, (void)db;
#endif
                }
            }
            WG_COMMIT();
#if WG_WS
            WG_WAIT(WG_DEPTH);
            const int done = j - WG_DEPTH;
            if (done >= 0 && done < jtot - STAGES)
                WS_ARRIVE(1 + STAGES + done % STAGES);
            j++;
#elif WG_TMA && PREF == 0
            /* One stage: its products done in every warpgroup, the next
             * tile into the slot. */
            WG_WAIT(0);
            barrier(CLK_LOCAL_MEM_FENCE);
            if (lid == 0 && kt + 1 < ktiles)
                TMA_STAGE(0, kt + 1);
#elif WG_TMA
            const int nk = kt + PREF;
            if (lid == 0 && nk < ktiles)
                TMA_STAGE(nk % STAGES, nk);
            WG_WAIT(WG_DEPTH);
#else
            const int nk = kt + PREF;
            if (nk < ktiles && !(WG_PROBE & 4))
                STAGE_TILE(nk % STAGES, nk);
            MMA_CP_COMMIT();
            WG_WAIT(WG_DEPTH);
#if WG_X3P
            /* (WG_DEPTH 0: the tile's products are done; each register
             * pinned after the wait, as CUTLASS's warpgroup_fence_operand,
             * so that no addition is moved above it; the last tile of each
             * period of WG_X3P tiles, and the K loop's last) */
            if (kt % WG_X3P == WG_X3P - 1 || kt == ktiles - 1) {
#pragma unroll
                for (int h = 0; h < MH; h++)
#pragma unroll
                    for (int e = 0; e < WG_ACC; e++) {
                        asm volatile("" : "+f"(acc_t[h][e])::"memory");
                        acc[h][e] += acc_t[h][e];
                    }
            }
#endif
#endif
#endif /* WG_X3H */
        }
        WG_WAIT(0);
#if !WG_WS
        MMA_CP_WAIT(0);
#endif

        /* acc[h][4j + e]: row 16 * (warp % 4) + g (+ 8 for e >= 2), column
         * 8j + 2t + (e & 1) of the warpgroup's 64 x BN product h. */
        const int fg = lane >> 2, ft = lane & 3;
#if WG_PROBE & 2
#if WG_WS
#error "WG_PROBE: the block-barrier kernel only"
#endif
        if (acc[0][0] != 1234.5f)
            return;
#endif
#if WG_CSTAGE
        /* Every warpgroup's products done, every copy landed: the slots
         * are free for the staging areas. */
        barrier(CLK_LOCAL_MEM_FENCE);
        __local float *cs_ = (__local float *)(WGS == 2 && wg == 0 ? (__local void *)As
                                                                   : (__local void *)Bs);
        const int wl_ = lid & 127;
        /* 16-byte rows of C: unit-stride, 8-element aligned, not a
         * convolution's rows nor a split's partials. */
#if GEMM_CONV
        const bool cvec_ = false;
#else
        const bool cvec_ = !partial_ && c_sn == 1 && (cbase & 7) == 0 && (c_sm & 7) == 0;
#endif
#pragma unroll
        for (int h = 0; h < MH; h++)
#pragma unroll
            for (int cc = 0; cc < BN / 64; cc++) {
#pragma unroll
                for (int e2 = 0; e2 < 2; e2++)
#pragma unroll
                    for (int jn = 0; jn < 8; jn++)
                        *(__local float2 *)(cs_ + ((warp & 3) * 16 + fg + 8 * e2) * WG_CLD +
                                            jn * 8 + 2 * ft) =
                            (float2)(acc[h][4 * (cc * 8 + jn) + 2 * e2],
                                     acc[h][4 * (cc * 8 + jn) + 2 * e2 + 1]);
                barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
                for (int q = 0; q < 4; q++) {
                    const int v_ = wl_ + q * 128, row_ = v_ >> 3, col_ = (v_ & 7) * 8;
                    const int gm = m0 + (wg * MH + h) * 64 + row_, gn0 = n0 + cc * 64 + col_;
                    if (gm >= M)
                        continue;
                    __local const float4 *ap_ =
                        (__local const float4 *)(cs_ + row_ * WG_CLD + col_);
                    const float8 a_ = (float8)(ap_[0], ap_[1]);
                    const long crow_ = cbase + ROW_OF(gm, c_sm, c_img);
                    if (cvec_ && gn0 + 8 <= N) {
                        float8 r8_ = alpha * a_;
                        if (!beta_zero)
                            r8_ = r8_ + beta * GLD8(C, crow_ + gn0);
                        if (epi) {
                            float rr_[8];
                            vstore8(r8_, 0, rr_);
#pragma unroll
                            for (int e = 0; e < 8; e++)
                                GEMM_EPILOGUE_V(rr_[e], GEMM_EPI_E(gm, gn0 + e),
                                                GEMM_EPI_R(gm, gn0 + e));
                            r8_ = vload8(0, rr_);
                        }
                        GST8(r8_, C, crow_ + gn0);
                    } else {
                        float aa_[8];
                        vstore8(a_, 0, aa_);
#pragma unroll
                        for (int e = 0; e < 8; e++)
                            if (gn0 + e < N)
                                GEMM_STORE_AT(aa_[e], gm, gn0 + e, crow_, GEMM_EPI_E(gm, gn0 + e),
                                              GEMM_EPI_R(gm, gn0 + e));
                    }
                }
                /* (the next pass writes the same area) */
                barrier(CLK_LOCAL_MEM_FENCE);
            }
#else
#pragma unroll
        for (int h = 0; h < MH; h++)
#pragma unroll
            for (int e2 = 0; e2 < 2; e2++) {
                int gm = m0 + (wg * MH + h) * 64 + (warp & 3) * 16 + fg + 8 * e2;
                if (gm >= M)
                    continue;
#pragma unroll
                for (int jn = 0; jn < BN / 8; jn++)
#pragma unroll
                    for (int e1 = 0; e1 < 2; e1++) {
                        int gn = n0 + jn * 8 + 2 * ft + e1;
                        if (gn < N)
                            GEMM_STORE(acc[h][4 * jn + 2 * e2 + e1], gm, gn);
                    }
            }
#endif /* WG_CSTAGE */
    }
}
#endif /* GEMM_WGMMA */
#endif /* GEMM_MMA */
