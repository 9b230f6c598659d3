/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cl_kernels/attention.cl: fused scaled-dot-product attention, the
 * FlashAttention-2 scheme on FMA (ops/attention/attention.c plans and
 * launches; ref/ref_attention.h defines the problem and ref/attention.c
 * the semantics).
 *
 * Defines from the host: T (storage type), KIND (its kit_load_store), D
 * (the head dimension padded: 32, 64, 128 or 256), BQ and BK (forward
 * query and key tiles: 16 x 16, or for decoding 1, 2 or 4 query rows
 * against 32 to 128 keys), BT (backward tile), NT (work-group size).
 *
 *   attn_fwd      one work-group per (batch, query head, BQ query rows):
 *                 the query tile stays in __local, key tiles and then value
 *                 tiles pass through __local, scores and the online softmax
 *                 (running max and sum per row, float32) rescale the output
 *                 accumulators held in registers; writes out and the row
 *                 logsumexp.
 *                 Split-KV (decoding: few query rows, long S): several
 *                 work-groups per query tile over chunks of the keys write
 *                 partial (output, max, sum); attn_fwd_combine merges them
 *                 in a fixed order.
 *   attn_bwd_pre  D_i = dO_i . O_i per row.
 *   attn_bwd_dkv  one work-group per (batch, key/value head, BT key rows):
 *                 dK and dV accumulate in registers over every query head
 *                 of the group and every query tile, in a fixed order (no
 *                 atomics: the same bits every run); with dsg, writes dS
 *                 (each element once: the additive mask's gradient).
 *   attn_bwd_dq   one work-group per (batch, query head, BT query rows):
 *                 dQ over the key tiles.
 *   attn_bwd_dmask the gradient of a broadcast additive mask: one
 *                 work-group per tile of it recomputes and sums dS over
 *                 the broadcast dims in a fixed order.
 * CPU devices (ATTN_CPU) take attn_fwd_cpu, attn_bwd_dkv_cpu and
 * attn_bwd_dq_cpu instead: single work items, vectors across 8 rows or
 * keys, no __local or barriers.
 * The tensor-core programs (ATTN_MMA, NVIDIA only) follow at the end:
 * attn_fwd_mma (1), attn_bwd_dkv_mma and attn_bwd_fold (2),
 * attn_bwd_dq_mma (3), attn_fwd_wg (4: Hopper's wgmma, sm_90a),
 * attn_bwd_dkv_wg with its own attn_bwd_fold (5: wgmma, sm_90a), and
 * attn_bwd_dq_wg (6: wgmma, sm_90a).
 *
 * Tensors are addressed through their own element strides (b, h, row,
 * col); the mask is bool (bm) or additive of T (am) with broadcast
 * strides 0.  causal masks (i, j) when j > i + coff (coff 0: top-left
 * alignment; S - L: bottom-right).  Dropout element n = ((b * Hq + h) * L + i) * S + j keeps
 * when word n % 4 of Philox counter roff + n / 4 is >= thr (thr 0: off).
 */
#define LD(p, i) CLOPS_LD(KIND, float, p, i)
#define ST(p, i, v) CLOPS_ST(KIND, T, float, p, i, v)

/* Row stride of the __local tiles: one float of padding, so the items of
 * a warp reading one column of different rows hit different banks. */
#define DS (D + 1)

/* forward output accumulators per item (decoding programs have BQ * D <
 * NT: items past BQ * D idle in the P.V step) */
#define OPT ((BQ * D + NT - 1) / NT)
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
                               long coff, int mkind, __global const uchar *bm,
                               __global const T *am, long mb, long m_2, long m_3)
{
    s *= scale;
    if (i >= L || j >= S || (causal && j > i + coff))
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

/* The forward kernels' arguments, and their first steps: the work-group's
 * (batch, head, first query row i0 of BQR rows) from its index gi_, the
 * tensors moved to their (b, h) planes, the mask's plane offset mb. */
#define ATTN_FWD_ARGS                                                                           \
    __global const T *q, ATTN_GEOM(q), __global const T *k, ATTN_GEOM(k), __global const T *v, \
        ATTN_GEOM(v), __global const uchar *bm, __global const T *am, ATTN_GEOM(m),             \
        __global T *o, ATTN_GEOM(o), __global float *lse, long Hq, long G, long L, long S,      \
        long E, long Ev, long nqt, float scale, int causal, long coff, int mkind, ulong thr,     \
        float dscale, uint sk0, uint sk1, ulong roff
#define ATTN_FWD_SETUP(BQR, gi_)                                                                \
    long gid_ = (gi_);                                                                          \
    long qt = gid_ % nqt, bh = gid_ / nqt;                                                      \
    long b = bh / Hq, h = bh % Hq, hk = h / G;                                                  \
    long i0 = qt * (BQR);                                                                       \
    q += q_o + b * q_0 + h * q_1;                                                               \
    k += k_o + b * k_0 + hk * k_1;                                                              \
    v += v_o + b * v_0 + hk * v_1;                                                              \
    o += o_o + b * o_0 + h * o_1;                                                               \
    long mb = m_o + b * m_0 + h * m_1;

/* The FMA kernels: in every program but the tensor-core ones (ATTN_MMA:
 * programs of their own, which hold only attn_fwd_mma, or the tensor-core
 * backward's kernels). */
#ifndef ATTN_MMA
/* nsplit > 1 (split-KV): work-group index = tile * nsplit + sp runs keys
 * [sp * kchunk, (sp + 1) * kchunk) and writes its unnormalized output, row
 * max and row sum to part (attn_fwd_combine's layout) instead of o and
 * lse. */
__kernel __attribute__((reqd_work_group_size(NT, 1, 1))) void
attn_fwd(ATTN_FWD_ARGS, long nsplit, long kchunk, __global float *part)
{
    __local float qs[BQ * DS];
    __local float kv[BK * DS];
    __local float ss[BQ * BK];
    __local float mrow[BQ], lrow[BQ], arow[BQ];
    int t = get_local_id(0);
    long sp = get_group_id(0) % nsplit;
    ATTN_FWD_SETUP(BQ, get_group_id(0) / nsplit)
    ATTN_LOAD_TILE(qs, BQ, q, i0, L, E, q_2, q_3)
    if (t < BQ) {
        mrow[t] = -INFINITY;
        lrow[t] = 0.0f;
    }
    float acc[OPT];
    for (int u = 0; u < OPT; u++)
        acc[u] = 0.0f;
    long kend = min(causal ? min(S, i0 + BQ + coff) : S, (sp + 1) * kchunk);
    for (long j0 = sp * kchunk; j0 < kend; j0 += BK) {
        barrier(CLK_LOCAL_MEM_FENCE);
        ATTN_LOAD_TILE(kv, BK, k, j0, S, E, k_2, k_3)
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int x = t; x < BQ * BK; x += NT) {
            int r = x / BK, c = x % BK;
            float s = 0.0f;
            for (int e = 0; e < D; e++)
                s = fma(qs[r * DS + e], kv[c * DS + e], s);
            ss[x] = attn_score(s, i0 + r, j0 + c, L, S, scale, causal, coff, mkind, bm, am, mb,
                               m_2, m_3);
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
        for (int u = 0; u < OPT && t + u * NT < BQ * D; u++) {
            int x = t + u * NT, r = x / D, c = x % D;
            float a = acc[u] * arow[r];
            for (int jj = 0; jj < BK; jj++)
                a = fma(ss[r * BK + jj], kv[jj * DS + c], a);
            acc[u] = a;
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (nsplit > 1) {
        long R = get_num_groups(0) / (nsplit * nqt) * L; /* rows B * Hq * L */
        __global float *po = part + (sp * R + bh * L) * Ev;
        for (int u = 0; u < OPT && t + u * NT < BQ * D; u++) {
            int x = t + u * NT, r = x / D, c = x % D;
            if (i0 + r < L && c < Ev)
                po[(i0 + r) * Ev + c] = acc[u];
        }
        if (t < BQ && i0 + t < L) {
            part[nsplit * R * Ev + sp * R + bh * L + i0 + t] = mrow[t];
            part[nsplit * R * (Ev + 1) + sp * R + bh * L + i0 + t] = lrow[t];
        }
        return;
    }
    for (int u = 0; u < OPT && t + u * NT < BQ * D; u++) {
        int x = t + u * NT, r = x / D, c = x % D;
        long i = i0 + r;
        float l = lrow[r];
        if (i < L && c < Ev)
            ST(o, i * o_2 + c * o_3, l == 0.0f ? 0.0f : acc[u] / l);
    }
    if (t < BQ && i0 + t < L)
        lse[bh * L + i0 + t] = lrow[t] == 0.0f ? -INFINITY : mrow[t] + log(lrow[t]);
}

/* The split-KV combine: row r (of R = B * Hq * L) from the nsplit partial
 * results of attn_fwd, in split order (the same bits every run): part
 * holds the outputs [nsplit][R][Ev], then the row maxima [nsplit][R], then
 * the row sums [nsplit][R]. */
__kernel void attn_fwd_combine(__global const float *part, __global T *o, ATTN_GEOM(o),
                               __global float *lse, long Hq, long L, long Ev, long nsplit, long R)
{
    long ev = max(Ev, 1L);
    __global const float *pm = part + nsplit * R * Ev, *pl = pm + nsplit * R;
    for (long x = get_global_id(0); x < R * ev; x += get_global_size(0)) {
        long r = x / ev, c = x % ev;
        float m = -INFINITY;
        for (long s = 0; s < nsplit; s++)
            m = fmax(m, pm[s * R + r]);
        float mu = m == -INFINITY ? 0.0f : m, l = 0.0f, a = 0.0f;
        for (long s = 0; s < nsplit; s++) {
            float w = exp(pm[s * R + r] - mu);
            l = fma(pl[s * R + r], w, l);
            if (c < Ev)
                a = fma(part[(s * R + r) * Ev + c], w, a);
        }
        long i = r % L, bh = r / L, b = bh / Hq, h = bh % Hq;
        if (c < Ev)
            ST(o, o_o + b * o_0 + h * o_1 + i * o_2 + c * o_3, l == 0.0f ? 0.0f : a / l);
        if (c == 0)
            lse[r] = l == 0.0f ? -INFINITY : m + log(l);
    }
}

#endif /* !ATTN_MMA */

#ifdef ATTN_CPU
/*
 * CPU devices (KIT_CPU: ops/attention/attention.c, fwd_cpu): attn_fwd's
 * online softmax as one work item per (batch, query head, CRQ = 8 query
 * rows), no work-group, barrier or __local (POCL runs attn_fwd's 128-item
 * work-groups as loops per barrier region, with the tiles in memory).
 * Vectors run across the 8 rows: the queries are transposed once into
 * qtr[D][8], so a step of CBK = 8 keys is 8 score vectors s[jj] (lane r:
 * row r), each fma'd over the head dim in order with key elements
 * broadcast from memory (the same fma chain as attn_fwd's: the same
 * scores, bit for bit); the rows' maxima, rescale factors, exps and sums
 * are vector operations across rows (sums in key order, as attn_fwd's);
 * the output accumulators (8 rows x D / 8 float8) are rescaled and fma'd
 * over the 8 keys in key order.  Rows past L, keys past S and masked keys
 * get attn_score's -inf; dropout as attn_fwd (the same Philox elements).
 */
#define CRQ 8
#define CBK 8
#define CDV (D / 8)
/* The output update of a key tile: per row, its D / 8 accumulator vectors
 * rescaled by alr[r] and fma'd over the CBK keys in key order (VROW: value
 * row jj's vector c). */
#define ATTN_CPU_PV(VROW)                                                                        \
    for (int r = 0; r < nr; r++) {                                                               \
        float8 a_[CDV];                                                                          \
        _Pragma("unroll") for (int c = 0; c < CDV; c++) a_[c] = acc[r * CDV + c] * alr[r];       \
        for (int jj = 0; jj < CBK; jj++) {                                                       \
            float8 pb_ = (float8)(p[jj * CRQ + r]);                                              \
            _Pragma("unroll") for (int c = 0; c < CDV; c++) a_[c] = fma(pb_, VROW, a_[c]);       \
        }                                                                                        \
        _Pragma("unroll") for (int c = 0; c < CDV; c++) acc[r * CDV + c] = a_[c];                \
    }

__kernel void attn_fwd_cpu(ATTN_FWD_ARGS)
{
    ATTN_FWD_SETUP(CRQ, (long)get_global_id(0))
    float qtr[D * CRQ], vt[CBK * D], p[CBK * CRQ];
    float8 acc[CRQ * CDV];
    const int nr = (int)min((long)CRQ, L - i0);
    const bool vdirect = KIND == 0 && v_3 == 1 && Ev == D;
    for (int e = 0; e < D; e++)
        for (int r = 0; r < CRQ; r++)
            qtr[e * CRQ + r] = r < nr && e < E ? LD(q, (i0 + r) * q_2 + e * q_3) : 0.0f;
    for (int x = 0; x < CRQ * CDV; x++)
        acc[x] = (float8)(0.0f);
    float8 m = (float8)(-INFINITY), l = (float8)(0.0f);
    const long kend = causal ? min(S, i0 + nr + coff) : S;
    for (long j0 = 0; j0 < kend; j0 += CBK) {
        const int nk = (int)min((long)CBK, S - j0);
        float8 s[CBK];
#pragma unroll
        for (int jj = 0; jj < CBK; jj++)
            s[jj] = (float8)(0.0f);
        if (nk == CBK) {
            for (int e = 0; e < E; e++) {
                float8 qv = vload8(e, qtr);
#pragma unroll
                for (int jj = 0; jj < CBK; jj++)
                    s[jj] = fma(qv, (float8)(LD(k, (j0 + jj) * k_2 + e * k_3)), s[jj]);
            }
        } else {
            for (int e = 0; e < E; e++) {
                float8 qv = vload8(e, qtr);
                for (int jj = 0; jj < nk; jj++)
                    s[jj] = fma(qv, (float8)(LD(k, (j0 + jj) * k_2 + e * k_3)), s[jj]);
            }
        }
        /* the value rows, read in place (float32, unit column stride, no
         * padding, a whole tile: vdirect) or converted into vt */
        const bool vin = vdirect && nk == CBK;
        if (!vin)
            for (int jj = 0; jj < CBK; jj++)
                for (int e = 0; e < D; e++)
                    vt[jj * D + e] = jj < nk && e < Ev ? LD(v, (j0 + jj) * v_2 + e * v_3) : 0.0f;
        /* whole tile unmasked: every row and key inside, before the diagonal */
        const bool plain = mkind == 0 && nk == CBK && nr == CRQ &&
                           (!causal || j0 + CBK - 1 <= i0 + coff);
        if (plain) {
#pragma unroll
            for (int jj = 0; jj < CBK; jj++)
                s[jj] *= scale;
        } else if (mkind == 0) {
            /* attn_score's tests as lane masks: rows past L, keys past S,
             * keys after the diagonal (j > i + coff: lanes r < j - i0 - coff) */
            const int8 lane = (int8)(0, 1, 2, 3, 4, 5, 6, 7);
            const int8 out = lane >= (int8)(nr);
            for (int jj = 0; jj < CBK; jj++) {
                long dj = causal ? clamp(j0 + jj - i0 - coff, -1L, (long)CRQ) : -1L;
                int8 off = out | (lane < (int8)((int)dj)) | (int8)(jj < nk ? 0 : -1);
                s[jj] = select(s[jj] * scale, (float8)(-INFINITY), off);
            }
        } else {
            for (int jj = 0; jj < CBK; jj++) {
                float t[CRQ];
                vstore8(s[jj], 0, t);
                for (int r = 0; r < CRQ; r++)
                    t[r] = attn_score(t[r], i0 + r, j0 + jj, L, S, scale, causal, coff, mkind, bm,
                                      am, mb, m_2, m_3);
                s[jj] = vload8(0, t);
            }
        }
        float8 mx = m;
#pragma unroll
        for (int jj = 0; jj < CBK; jj++)
            mx = fmax(mx, s[jj]);
        const int8 none = mx == (float8)(-INFINITY);
        float8 mu = select(mx, (float8)(0.0f), none);
        float8 al = select(exp(m - mu), (float8)(1.0f), none);
        l *= al;
#pragma unroll
        for (int jj = 0; jj < CBK; jj++) {
            float8 pz = exp(s[jj] - mu);
            l += pz;
            vstore8(pz, jj, p);
        }
        m = mx;
        if (thr)
            for (int jj = 0; jj < nk; jj++)
                for (int r = 0; r < nr; r++)
                    p[jj * CRQ + r] *= attn_keep((ulong)((bh * L + i0 + r) * S + j0 + jj), roff,
                                                 sk0, sk1, thr, dscale);
        float alr[CRQ];
        vstore8(al, 0, alr);
#if KIND == 0
        if (vin) {
            __global const T *vg = v + j0 * v_2;
            ATTN_CPU_PV(convert_float8(vload8(c, vg + jj * v_2)))
        } else
#endif
        {
            ATTN_CPU_PV(vload8(c, vt + jj * D))
        }
    }
    float lr[CRQ], mr[CRQ];
    vstore8(l, 0, lr);
    vstore8(m, 0, mr);
    for (int r = 0; r < nr; r++) {
        long i = i0 + r;
        for (int c = 0; c < CDV; c++) {
            float8 ov8 = lr[r] == 0.0f ? (float8)(0.0f) : acc[r * CDV + c] / lr[r];
#if KIND == 0
            if (o_3 == 1 && Ev == D) {
                vstore8(convert_float8(ov8), 0, o + i * o_2 + c * 8);
                continue;
            }
#endif
            float ov[8];
            vstore8(ov8, 0, ov);
            for (int e = 0; e < 8 && c * 8 + e < Ev; e++)
                ST(o, i * o_2 + (c * 8 + e) * o_3, ov[e]);
        }
        lse[bh * L + i] = lr[r] == 0.0f ? -INFINITY : mr[r] + log(lr[r]);
    }
}
#endif /* ATTN_CPU */

#ifndef ATTN_MMA
/* pw (16 or 1) items per row, NT / pw rows per work-group: item l of a
 * row sums columns l, l + pw, ... in order (16 consecutive columns across
 * the row's items: coalesced, where one item per row reads a sector of
 * another row for every column), then the row's first item adds the pw
 * partial sums in item order: a fixed order, the same bits every run.
 * pw 1 (CLOPS_ATTN_PRE_W=1, for benchmarks) is the kernel before attn12:
 * one item per row, its bits.  (attn12: one item per row took 147 us of
 * Llama's backward on the H200.) */
__kernel __attribute__((reqd_work_group_size(NT, 1, 1))) void
attn_bwd_pre(__global const T *gout, ATTN_GEOM(g), __global const T *o, ATTN_GEOM(o),
             __global float *Dv, long Hq, long L, long Ev, long n, int pw)
{
    __local float red[NT];
    const int t = get_local_id(0), r = t / pw, l = t % pw;
    const long rstep = (long)get_num_groups(0) * (NT / pw);
    for (long x0 = (long)get_group_id(0) * (NT / pw); x0 < n; x0 += rstep) {
        long x = x0 + r;
        float s = 0.0f;
        if (x < n) {
            long i = x % L, bh = x / L, b = bh / Hq, h = bh % Hq;
            long pg = g_o + b * g_0 + h * g_1 + i * g_2, po = o_o + b * o_0 + h * o_1 + i * o_2;
            for (long c = l; c < Ev; c += pw)
                s = fma(LD(gout, pg + c * g_3), LD(o, po + c * o_3), s);
        }
        red[t] = s;
        barrier(CLK_LOCAL_MEM_FENCE);
        if (l == 0 && x < n) {
            float a = red[t];
            for (int e = 1; e < pw; e++)
                a += red[t + e];
            Dv[x] = a;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}

#endif /* !ATTN_MMA */

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
        s = attn_score(s, i, j, L, S, scale, causal, coff, mkind, bm, am, mb, m_2, m_3);          \
        float lv = lr[r];                                                                       \
        float p = (lv == -INFINITY || s == -INFINITY) ? 0.0f : exp(s - lv);                     \
        float z = (thr && i < L && j < S)                                                       \
                      ? attn_keep((ulong)((bh * L + i) * S + j), roff, sk0, sk1, thr, dscale)   \
                      : 1.0f;                                                                   \
        float d_ = p * (dp * z - dr[r]);                                                        \
        if (WITH_P)                                                                             \
            ps[x] = p * z;                                                                      \
        if (WITH_P && wds && i < L && j < S)                                                    \
            dsg[(bh * L + i) * S + j] = d_;                                                     \
        ds[x] = d_;                                                                             \
    }

#define ATTN_BWD_ARGS                                                                           \
    __global const T *q, ATTN_GEOM(q), __global const T *k, ATTN_GEOM(k), __global const T *v, \
        ATTN_GEOM(v), __global const uchar *bm, __global const T *am, ATTN_GEOM(m),             \
        __global const T *gout, ATTN_GEOM(g), __global const float *lse,                          \
        __global const float *Dv, __global T *gr, ATTN_GEOM(r), __global T *gr2, ATTN_GEOM(s),  \
        __global float *dsg, int wds, long Hq, long G, long L, long S, long E, long Ev,         \
        long ntile, float scale, int causal, long coff, int mkind, ulong thr, float dscale,     \
        uint sk0, uint sk1, ulong roff

#ifndef ATTN_MMA
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
        for (long qt = causal ? max(j0 - coff, 0L) / BT : 0; qt < nqt; qt++) {
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
    long kend = causal ? min(S, i0 + BT + coff) : S;
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
    (void)dsg;
    (void)wds;
    for (int u = 0; u < KPT; u++) {
        int x = t + u * NT, r = x / D, e = x % D;
        long i = i0 + r;
        if (i < L && e < E)
            ST(gr, r_o + b * r_0 + h * r_1 + i * r_2 + e * r_3, dq[u] * scale);
    }
}

/*
 * attn_bwd_dmask: the gradient of a broadcast additive mask, dS summed
 * over the dims the mask broadcasts, without the [B, Hq, L, S] dS: dsg is
 * the float32 [mB, mH, mL, mS] result (each of mB, mH, mL, mS is the
 * problem's size or 1 where the mask broadcasts).  One work-group per
 * BT x BT tile of it (a tile of one row or column where mL or mS is 1):
 * it recomputes dS = P o (dP o z - D) for every (b, h, query tile, key
 * tile) that folds onto its tile, in a fixed order (b, h, query tile, key
 * tile; causal tiles past the diagonal skipped), accumulating per item in
 * registers, then sums its rows (mL == 1) and columns (mS == 1) in index
 * order: the same bits every run, no atomics.  gr, gr2 and wds unused.
 */
#define DMPT ((BT * BT + NT - 1) / NT)
__kernel __attribute__((reqd_work_group_size(NT, 1, 1))) void
attn_bwd_dmask(ATTN_BWD_ARGS, long B, long mB, long mH, long mL, long mS)
{
    __local float ks[BT * DS], vs[BT * DS], qs[BT * DS], dos[BT * DS];
    __local float ps[1], ds[BT * BT], lr[BT], dr[BT];
    int t = get_local_id(0);
    long nqt = (L + BT - 1) / BT, nkt = (S + BT - 1) / BT;
    long nit = mL == 1 ? 1 : nqt, njt = mS == 1 ? 1 : nkt;
    long g = get_group_id(0);
    long jt = g % njt, it = g / njt % nit, mh = g / (njt * nit) % mH, mbi = g / (njt * nit * mH);
    float acc[DMPT];
    for (int u = 0; u < DMPT; u++)
        acc[u] = 0.0f;
    for (long b = mB == 1 ? 0 : mbi; b < (mB == 1 ? B : mbi + 1); b++)
        for (long h = mH == 1 ? 0 : mh; h < (mH == 1 ? Hq : mh + 1); h++) {
            long hk = h / G, bh = b * Hq + h, mb = m_o + b * m_0 + h * m_1;
            for (long qt = mL == 1 ? 0 : it; qt < (mL == 1 ? nqt : it + 1); qt++) {
                long i0 = qt * BT;
                barrier(CLK_LOCAL_MEM_FENCE);
                ATTN_LOAD_QSIDE()
                for (long kt = mS == 1 ? 0 : jt; kt < (mS == 1 ? nkt : jt + 1); kt++) {
                    long j0 = kt * BT;
                    if (causal && j0 > i0 + BT - 1 + coff)
                        break; /* this tile and the later ones: every position masked */
                    barrier(CLK_LOCAL_MEM_FENCE);
                    ATTN_LOAD_TILE(ks, BT, (k + k_o + b * k_0 + hk * k_1), j0, S, E, k_2, k_3)
                    ATTN_LOAD_TILE(vs, BT, (v + v_o + b * v_0 + hk * v_1), j0, S, Ev, v_2, v_3)
                    barrier(CLK_LOCAL_MEM_FENCE);
                    ATTN_BWD_TILE(0)
                    for (int u = 0; u < DMPT && t + u * NT < BT * BT; u++)
                        acc[u] += ds[t + u * NT];
                }
            }
        }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int u = 0; u < DMPT && t + u * NT < BT * BT; u++)
        ds[t + u * NT] = acc[u];
    barrier(CLK_LOCAL_MEM_FENCE);
    int nr = mL == 1 ? 1 : BT, nc = mS == 1 ? 1 : BT;
    for (int x = t; x < nr * nc; x += NT) {
        int r = x / nc, c = x % nc;
        long i = mL == 1 ? 0 : it * BT + r, j = mS == 1 ? 0 : jt * BT + c;
        float a = 0.0f;
        for (int rr = mL == 1 ? 0 : r; rr < (mL == 1 ? BT : r + 1); rr++)
            for (int cc = mS == 1 ? 0 : c; cc < (mS == 1 ? BT : c + 1); cc++)
                a += ds[rr * BT + cc];
        if (i < mL && j < mS)
            dsg[((mbi * mH + mh) * mL + i) * mS + j] = a;
    }
    (void)ps;
    (void)gr;
    (void)gr2;
    (void)wds;
    (void)ntile;
}

#endif /* !ATTN_MMA */

#ifdef ATTN_CPU
/*
 * The backward on CPU devices (KIT_CPU: ops/attention/attention.c,
 * bwd_cpu): attn_bwd_dkv and attn_bwd_dq as single work items, no
 * work-group, barrier or __local (POCL runs their 128-item work-groups as
 * loops per barrier region, with the tiles in memory: 28-50x slower than
 * attn_fwd_cpu at B 1, H 12, L 256).  CRQ = 8 rows of a side per item,
 * vectors across them:
 *   attn_bwd_dkv_cpu  one item per (batch, key/value head, 8 keys): the
 *                     keys and values transposed once into ktr/vtr[D][8];
 *                     a step of 8 query rows (every query head of the
 *                     group, query rows in order, from the causal
 *                     diagonal on) gives 8 score and 8 dP vectors (lane c:
 *                     key c, fma'd over the head dim in order, as
 *                     attn_bwd_dkv's), P and dS as vector operations,
 *                     then per key dK and dV (D / 8 float8 each) fma'd
 *                     over the 8 rows in row order: every (key, column)
 *                     sum in query-row order, as attn_bwd_dkv's.
 *   attn_bwd_dq_cpu   one item per (batch, query head, 8 query rows): the
 *                     queries and dO transposed into qtr/dtr[D][8]; a step
 *                     of 8 keys gives 8 score and dP vectors (lane r: row
 *                     r), dS, then per row dQ fma'd over the keys in key
 *                     order, as attn_bwd_dq's.
 * Masks past the lanes' tests and dropout per element (attn_score,
 * attn_keep: the same elements); dS written for a full additive mask's
 * gradient (wds) by attn_bwd_dkv_cpu, each element once.  No atomics, a
 * fixed order: the same bits every run.
 */
/* rows [r0, r0 + CRQ) of a [rows, cols] view into dst, zero-padded:
 * transposed (ATTN_CPU_TR: dst[D][CRQ]) or not (ATTN_CPU_ROWS: dst[CRQ][D]) */
#define ATTN_CPU_COPY(dst, TRANS, p, r_0, rows, cols, sr, sc)                                   \
    for (int r_ = 0; r_ < CRQ; r_++)                                                             \
        for (int e_ = 0; e_ < D; e_++)                                                           \
            dst[(TRANS) ? e_ * CRQ + r_ : r_ * D + e_] =                                         \
                (r_0) + r_ < (rows) && e_ < (cols) ? LD(p, ((r_0) + r_) * (sr) + e_ * (sc))      \
                                                   : 0.0f;
#define ATTN_CPU_TR(dst, ...) ATTN_CPU_COPY(dst, 1, __VA_ARGS__)
#define ATTN_CPU_ROWS(dst, ...) ATTN_CPU_COPY(dst, 0, __VA_ARGS__)

/* The scores ss[x] and dP dps[x] of a step's 8 rows or keys x (lanes: the
 * item's 8 keys or rows, transposed in AT[D][8], BT[D][8]): 16 fma chains
 * at once over the head dim in order; AE(x, e), BE(x, e) the step's
 * elements, broadcast (x past the step's end: zeros, masked after).
 * FMA(a, b, c) puts the operands in attn_bwd_dkv's / attn_bwd_dq's order. */
#define ATTN_BCAST_L(a, b, c) fma(a, b, c)
#define ATTN_BCAST_R(a, b, c) fma(b, a, c)
#define ATTN_CPU_SDP(AE, BE, AT, BT, FMA)                                                        \
    float8 ss[CRQ], dps[CRQ];                                                                    \
    _Pragma("unroll") for (int x_ = 0; x_ < CRQ; x_++) ss[x_] = dps[x_] = (float8)(0.0f);       \
    for (int e = 0; e < D; e++) {                                                                \
        float8 at_ = vload8(e, AT), bt_ = vload8(e, BT);                                         \
        _Pragma("unroll") for (int x_ = 0; x_ < CRQ; x_++) {                                     \
            ss[x_] = FMA((float8)(AE(x_, e)), at_, ss[x_]);                                      \
            dps[x_] = FMA((float8)(BE(x_, e)), bt_, dps[x_]);                                    \
        }                                                                                        \
    }

/* A step of attn_bwd_dkv_cpu: the query rows [i0, i0 + ni) of head h
 * against the item's keys.  QE(ii, e), DE(ii, e): row ii's q and dO
 * elements; QV(ii, u), DV(ii, u): their float8 u (zero past E, Ev). */
#define ATTN_DKV_STEP(QE, DE, QV, DV)                                                            \
    ATTN_CPU_SDP(QE, DE, ktr, vtr, ATTN_BCAST_L)                                                 \
    for (int ii = 0; ii < CRQ; ii++) {                                                           \
        float8 s = ss[ii], dp = dps[ii];                                                         \
        long i = i0 + ii;                                                                        \
        /* attn_score: rows past L, keys past S, the diagonal (lanes c > i + coff - j0) */       \
        if (mkind == 0) {                                                                        \
            long dj = causal ? clamp(i + coff - j0, -1L, (long)CRQ) : (long)CRQ;                 \
            int8 off = kout | (lane > (int8)((int)dj)) | (int8)(ii < ni ? 0 : -1);               \
            s = select(s * scale, (float8)(-INFINITY), off);                                     \
        } else {                                                                                 \
            float t[CRQ];                                                                        \
            vstore8(s, 0, t);                                                                    \
            for (int c = 0; c < CRQ; c++)                                                        \
                t[c] = attn_score(t[c], i, j0 + c, L, S, scale, causal, coff, mkind, bm, am, mb, \
                                  m_2, m_3);                                                     \
            s = vload8(0, t);                                                                    \
        }                                                                                        \
        float lv = ii < ni ? lse[bh * L + i] : -INFINITY;                                        \
        float drv = ii < ni ? Dv[bh * L + i] : 0.0f;                                             \
        float8 p = select(exp(s - (float8)(lv)), (float8)(0.0f),                                 \
                          (int8)(lv == -INFINITY ? -1 : 0) | (s == (float8)(-INFINITY)));        \
        float8 z = (float8)(1.0f);                                                               \
        if (thr && ii < ni) {                                                                    \
            float zt[CRQ];                                                                       \
            for (int c = 0; c < CRQ; c++)                                                        \
                zt[c] = c < nk ? attn_keep((ulong)((bh * L + i) * S + j0 + c), roff, sk0, sk1,   \
                                           thr, dscale)                                          \
                               : 1.0f;                                                           \
            z = vload8(0, zt);                                                                   \
        }                                                                                        \
        float8 d_ = p * (dp * z - (float8)(drv));                                                \
        vstore8(p * z, ii, pp);                                                                  \
        vstore8(d_, ii, dd);                                                                     \
        if (wds && ii < ni) {                                                                    \
            if (nk == CRQ)                                                                       \
                vstore8(d_, 0, dsg + (bh * L + i) * S + j0);                                     \
            else                                                                                 \
                for (int c = 0; c < nk; c++)                                                     \
                    dsg[(bh * L + i) * S + j0 + c] = dd[ii * CRQ + c];                           \
        }                                                                                        \
    }                                                                                            \
    /* per key: dK and dV over the step's rows in row order */                                   \
    ATTN_CPU_KEYS(dk, dd, QV)                                                                    \
    ATTN_CPU_KEYS(dv, pp, DV)
/* ACC[c] (8 keys' D / 8 float8) += W[ii][c] * V(ii, .) over the step's rows
 * in row order, two keys at a time (one load of V(ii, u) for both; an odd
 * last key runs twice, the same sums) */
#define ATTN_CPU_KEYS(ACC, W, V)                                                                 \
    for (int c = 0; c < nk; c += 2) {                                                            \
        const int c1 = c + 1 < nk ? c + 1 : c;                                                   \
        float8 a0_[CDV], a1_[CDV];                                                               \
        _Pragma("unroll") for (int u = 0; u < CDV; u++) {                                        \
            a0_[u] = ACC[c * CDV + u];                                                           \
            a1_[u] = ACC[c1 * CDV + u];                                                          \
        }                                                                                        \
        for (int ii = 0; ii < ni; ii++) {                                                        \
            float8 b0_ = (float8)(W[ii * CRQ + c]), b1_ = (float8)(W[ii * CRQ + c1]);            \
            _Pragma("unroll") for (int u = 0; u < CDV; u++) {                                    \
                float8 x_ = V(ii, u);                                                            \
                a0_[u] = fma(b0_, x_, a0_[u]);                                                   \
                a1_[u] = fma(b1_, x_, a1_[u]);                                                   \
            }                                                                                    \
        }                                                                                        \
        _Pragma("unroll") for (int u = 0; u < CDV; u++) {                                        \
            ACC[c1 * CDV + u] = a1_[u];                                                          \
            ACC[c * CDV + u] = a0_[u];                                                           \
        }                                                                                        \
    }
#define ATTN_QBE(ii_, e_) qb[(ii_) * D + (e_)]
#define ATTN_DBE(ii_, e_) db[(ii_) * D + (e_)]
#define ATTN_QBV(ii_, u_) vload8(u_, qb + (ii_) * D)
#define ATTN_DBV(ii_, u_) vload8(u_, db + (ii_) * D)
#define ATTN_QGE(ii_, e_) qr[(ii_) * q_2 + (e_)]
#define ATTN_DGE(ii_, e_) gq_[(ii_) * g_2 + (e_)]
#define ATTN_QGV(ii_, u_) convert_float8(vload8(u_, qr + (ii_) * q_2))
#define ATTN_DGV(ii_, u_) convert_float8(vload8(u_, gq_ + (ii_) * g_2))

__kernel void attn_bwd_dkv_cpu(ATTN_BWD_ARGS)
{
    /* gr: dK, gr2: dV */
    long g = get_global_id(0);
    long kt = g % ntile, bhk = g / ntile;
    long Hkv = Hq / G, b = bhk / Hkv, hk = bhk % Hkv;
    long j0 = kt * CRQ;
    const int nk = (int)min((long)CRQ, S - j0);
    float ktr[D * CRQ], vtr[D * CRQ], qb[CRQ * D], db[CRQ * D], pp[CRQ * CRQ], dd[CRQ * CRQ];
    float8 dk[CRQ * CDV], dv[CRQ * CDV];
    ATTN_CPU_TR(ktr, (k + k_o + b * k_0 + hk * k_1), j0, S, E, k_2, k_3)
    ATTN_CPU_TR(vtr, (v + v_o + b * v_0 + hk * v_1), j0, S, Ev, v_2, v_3)
    for (int x = 0; x < CRQ * CDV; x++)
        dk[x] = dv[x] = (float8)(0.0f);
    const int8 lane = (int8)(0, 1, 2, 3, 4, 5, 6, 7);
    const int8 kout = lane >= (int8)(nk);
    /* q and dO rows read in place: float32, unit column stride, no padding */
    const bool direct = KIND == 0 && q_3 == 1 && g_3 == 1 && E == D && Ev == D;
    for (long h = hk * G; h < (hk + 1) * G; h++) {
        long bh = b * Hq + h, mb = m_o + b * m_0 + h * m_1;
        __global const T *qh = q + q_o + b * q_0 + h * q_1;
        __global const T *gh = gout + g_o + b * g_0 + h * g_1;
        for (long i0 = causal ? max(j0 - coff, 0L) : 0; i0 < L; i0 += CRQ) {
            const int ni = (int)min((long)CRQ, L - i0);
#if KIND == 0
            if (direct && ni == CRQ) {
                __global const T *qr = qh + i0 * q_2, *gq_ = gh + i0 * g_2;
                ATTN_DKV_STEP(ATTN_QGE, ATTN_DGE, ATTN_QGV, ATTN_DGV)
            } else
#endif
            {
                ATTN_CPU_ROWS(qb, qh, i0, L, E, q_2, q_3)
                ATTN_CPU_ROWS(db, gh, i0, L, Ev, g_2, g_3)
                ATTN_DKV_STEP(ATTN_QBE, ATTN_DBE, ATTN_QBV, ATTN_DBV)
            }
        }
    }
    for (int c = 0; c < nk; c++) {
        long j = j0 + c;
        float ok[D], ov[D];
        for (int u = 0; u < CDV; u++) {
            vstore8(dk[c * CDV + u] * scale, u, ok);
            vstore8(dv[c * CDV + u], u, ov);
        }
        for (int e = 0; e < E; e++)
            ST(gr, r_o + b * r_0 + hk * r_1 + j * r_2 + e * r_3, ok[e]);
        for (int e = 0; e < Ev; e++)
            ST(gr2, s_o + b * s_0 + hk * s_1 + j * s_2 + e * s_3, ov[e]);
    }
}

/* A step of attn_bwd_dq_cpu: the keys [j0, j0 + nk) against the item's
 * rows.  KE(jj, e), VE(jj, e): key jj's k and v elements; KV(jj, u): k's
 * float8 u (zero past E). */
#define ATTN_DQ_STEP(KE, VE, KV)                                                                 \
    ATTN_CPU_SDP(KE, VE, qtr, dtr, ATTN_BCAST_R)                                                 \
    for (int jj = 0; jj < CRQ; jj++) {                                                           \
        float8 s = ss[jj], dp = dps[jj];                                                         \
        long j = j0 + jj;                                                                        \
        if (mkind == 0) {                                                                        \
            /* keys after the diagonal: j > i + coff, lanes r < j - i0 - coff */                 \
            long dj = causal ? clamp(j - i0 - coff, -1L, (long)CRQ) : -1L;                       \
            int8 off = rout | (lane < (int8)((int)dj)) | (int8)(jj < nk ? 0 : -1);               \
            s = select(s * scale, (float8)(-INFINITY), off);                                     \
        } else {                                                                                 \
            float t[CRQ];                                                                        \
            vstore8(s, 0, t);                                                                    \
            for (int r = 0; r < CRQ; r++)                                                        \
                t[r] = attn_score(t[r], i0 + r, j, L, S, scale, causal, coff, mkind, bm, am, mb, \
                                  m_2, m_3);                                                     \
            s = vload8(0, t);                                                                    \
        }                                                                                        \
        float8 p = select(exp(s - lv), (float8)(0.0f), lnone | (s == (float8)(-INFINITY)));      \
        float8 z = (float8)(1.0f);                                                               \
        if (thr && jj < nk) {                                                                    \
            float zt[CRQ];                                                                       \
            for (int r = 0; r < CRQ; r++)                                                        \
                zt[r] = r < ni ? attn_keep((ulong)((bh * L + i0 + r) * S + j), roff, sk0, sk1,   \
                                           thr, dscale)                                          \
                               : 1.0f;                                                           \
            z = vload8(0, zt);                                                                   \
        }                                                                                        \
        vstore8(p * (dp * z - drv), jj, dd);                                                     \
    }                                                                                            \
    ATTN_DQ_UPDATE(KV, ATTN_DDX)
/* per row: dQ over the step's keys in key order */
#define ATTN_DQ_UPDATE(KV, DS)                                                                   \
    for (int r = 0; r < ni; r++) {                                                               \
        float8 a_[CDV];                                                                          \
        _Pragma("unroll") for (int u = 0; u < CDV; u++) a_[u] = dq[r * CDV + u];                 \
        for (int jj = 0; jj < nk; jj++) {                                                        \
            float8 ds8 = (float8)(DS(jj, r));                                                    \
            _Pragma("unroll") for (int u = 0; u < CDV; u++) a_[u] = fma(ds8, KV(jj, u), a_[u]);  \
        }                                                                                        \
        _Pragma("unroll") for (int u = 0; u < CDV; u++) dq[r * CDV + u] = a_[u];                 \
    }
#define ATTN_KBE(jj_, e_) kb[(jj_) * D + (e_)]
#define ATTN_DDX(jj_, r_) dd[(jj_) * CRQ + (r_)]
#define ATTN_DGX(jj_, r_) dg[(r_) * S + (jj_)]
#define ATTN_VBE(jj_, e_) vb[(jj_) * D + (e_)]
#define ATTN_KBV(jj_, u_) vload8(u_, kb + (jj_) * D)
#define ATTN_KGE(jj_, e_) kr[(jj_) * k_2 + (e_)]
#define ATTN_VGE(jj_, e_) vr[(jj_) * v_2 + (e_)]
#define ATTN_KGV(jj_, u_) convert_float8(vload8(u_, kr + (jj_) * k_2))

__kernel void attn_bwd_dq_cpu(ATTN_BWD_ARGS)
{
    /* gr: dQ (gr2 unused) */
    long g = get_global_id(0);
    long qt = g % ntile, bh = g / ntile;
    long b = bh / Hq, h = bh % Hq, hk = h / G;
    long i0 = qt * CRQ, mb = m_o + b * m_0 + h * m_1;
    const int ni = (int)min((long)CRQ, L - i0);
    float qtr[D * CRQ], dtr[D * CRQ], kb[CRQ * D], vb[CRQ * D], dd[CRQ * CRQ];
    float8 dq[CRQ * CDV];
    ATTN_CPU_TR(qtr, (q + q_o + b * q_0 + h * q_1), i0, L, E, q_2, q_3)
    ATTN_CPU_TR(dtr, (gout + g_o + b * g_0 + h * g_1), i0, L, Ev, g_2, g_3)
    __global const T *kh = k + k_o + b * k_0 + hk * k_1;
    __global const T *vh = v + v_o + b * v_0 + hk * v_1;
    for (int x = 0; x < CRQ * CDV; x++)
        dq[x] = (float8)(0.0f);
    const int8 lane = (int8)(0, 1, 2, 3, 4, 5, 6, 7);
    const int8 rout = lane >= (int8)(ni);
    float lt[CRQ], dt[CRQ];
    for (int r = 0; r < CRQ; r++) {
        lt[r] = r < ni ? lse[bh * L + i0 + r] : -INFINITY;
        dt[r] = r < ni ? Dv[bh * L + i0 + r] : 0.0f;
    }
    const float8 lv = vload8(0, lt), drv = vload8(0, dt);
    const int8 lnone = lv == (float8)(-INFINITY);
    /* k and v rows read in place: float32, unit column stride, no padding */
    const bool direct = KIND == 0 && k_3 == 1 && v_3 == 1 && E == D && Ev == D;
    const long kend = causal ? min(S, i0 + ni + coff) : S;
    for (long j0 = 0; j0 < kend; j0 += CRQ) {
        const int nk = (int)min((long)CRQ, S - j0);
        if (wds == 2) {
            /* dS from attn_bwd_dkv_cpu (the same elements: the same fma
             * chains and exps), read in place; on the diagonal's steps
             * copied, 0 past the diagonal (it wrote nothing there) */
            __global const float *dg = dsg + (bh * L + i0) * S + j0;
            const bool diag = causal && j0 + nk - 1 > i0 + coff;
            if (diag)
                for (int jj = 0; jj < nk; jj++)
                    for (int r = 0; r < ni; r++)
                        dd[jj * CRQ + r] = j0 + jj > i0 + r + coff ? 0.0f : dg[r * S + jj];
#if KIND == 0
            if (k_3 == 1 && E == D && nk == CRQ) {
                __global const T *kr = kh + j0 * k_2;
                if (diag) {
                    ATTN_DQ_UPDATE(ATTN_KGV, ATTN_DDX)
                } else {
                    ATTN_DQ_UPDATE(ATTN_KGV, ATTN_DGX)
                }
                continue;
            }
#endif
            ATTN_CPU_ROWS(kb, kh, j0, S, E, k_2, k_3)
            if (diag) {
                ATTN_DQ_UPDATE(ATTN_KBV, ATTN_DDX)
            } else {
                ATTN_DQ_UPDATE(ATTN_KBV, ATTN_DGX)
            }
            continue;
        }
#if KIND == 0
        if (direct && nk == CRQ) {
            __global const T *kr = kh + j0 * k_2, *vr = vh + j0 * v_2;
            ATTN_DQ_STEP(ATTN_KGE, ATTN_VGE, ATTN_KGV)
        } else
#endif
        {
            ATTN_CPU_ROWS(kb, kh, j0, S, E, k_2, k_3)
            ATTN_CPU_ROWS(vb, vh, j0, S, Ev, v_2, v_3)
            ATTN_DQ_STEP(ATTN_KBE, ATTN_VBE, ATTN_KBV)
        }
    }
    (void)gr2;
    for (int r = 0; r < ni; r++) {
        long i = i0 + r;
        float oq[D];
        for (int u = 0; u < CDV; u++)
            vstore8(dq[r * CDV + u] * scale, u, oq);
        for (int e = 0; e < E; e++)
            ST(gr, r_o + b * r_0 + h * r_1 + i * r_2 + e * r_3, oq[e]);
    }
}
#endif /* ATTN_CPU */

#ifdef ATTN_MMA
/*
 * attn_fwd_mma: the forward on NVIDIA's tensor cores (mma.sync m16n8k16,
 * bfloat16 or float16 in, float32 accumulation; built only into the
 * programs of KIT_MMA devices, after the host's known-answer check).
 * 128 query rows per work-group (MBQ): 8 warps of 16 rows (MR = 1, the
 * host's default), or 4 warps of 32 rows (MR = 2 atoms of 16 rows, each
 * key/value fragment from __local feeding two mma.sync; slower on the
 * H100).  Key/value tiles of MBK rows (64 for head dims up to 64, else 32)
 * in __local, double-buffered: while the warps compute on one tile, the
 * next one is in flight through cp.async (16-byte copies, zero-filled past
 * the rows and columns), when every view has a unit last stride and
 * 16-byte aligned rows (`vec`, decided by the host); other layouts load
 * element by element (still one tile ahead).  One barrier per tile: the
 * tile has landed, and the buffer the warps left behind takes the next
 * tile.  Rows are padded by 8 elements: 16-byte aligned for ldmatrix and
 * cp.async, conflict-free.  The query tile is staged in the same __local
 * memory (beside the first key/value tile when it fits one buffer: MQOV),
 * its fragments kept in registers.  S = Q Kᵀ is two m16n8k16 per 16 keys
 * and k-step; the online softmax runs on the accumulators in log2 units
 * (each row's four lanes combined with shfl.sync; native_exp2:
 * ex2.approx; on mask-free tiles the scale is folded into the exponent's
 * fma), and P, rounded to the input type, is the A operand of O += P V (V
 * through ldmatrix.trans), never through __local.  The output goes out as
 * 32-bit pairs where its rows allow (`vec` & 2).  A
 * warp skips the key tiles that causality masks for all its rows and takes
 * a mask-free path on tiles that are visible to all its rows.  Work-groups
 * take query tiles last first (the longest causal rows start first).  Same
 * masks and causality as attn_fwd; no dropout (the host runs attn_fwd
 * then).
 * The ldmatrix, mma.sync and cp.async atoms are cl_kernels/mma.clh's (the
 * host puts it in front of these programs).
 */
/* MR (from the host): 16-row atoms per warp, 1 or 2; MW (from the host):
 * 16-row slices per work-group, 4, 8 or 16 (64, 128 or 256 query rows) */
#ifndef MW
#define MW 8
#endif
#define MWARPS (MW / MR) /* warps per work-group */
#define MNT (MWARPS * 32)
#define MBQ (MWARPS * 16 * MR) /* query rows */
#define MBK (D <= 64 ? 64 : 32)
#define DSM (D + 8)
#define NB (D / 8)
#define KS (D / 16)
/* the two key/value buffers; the query tile is staged in rounds of MQCH
 * rows where it would not fit them and 40 KiB (256 rows at head dim 128) */
#define MKV (4 * MBK * DSM)
#define MQCH (MBQ * DSM * 2 <= 40960 || MBQ * DSM <= MKV ? MBQ : MKV / DSM)
#define MSMEM (MQCH * DSM > MKV ? MQCH * DSM : MKV)
/* the query tile fits one key/value buffer: the first key/value tile loads
 * beside it */
#define MQOV (MBQ <= 2 * MBK)

static inline float attn_shfl_xor(float v, int m)
{
    uint r;
    asm volatile("shfl.sync.bfly.b32 %0, %1, %2, 0x1f, 0xffffffff;"
                 : "=r"(r)
                 : "r"(as_uint(v)), "r"(m));
    return as_float(r);
}

/* ATTN_XM (from the host): 1, the general program of a tensor-core
 * kernel (boolean and additive masks, dropout, the mask's gradient:
 * attn_score and attn_keep per element of a masked tile); 0, the lean
 * program the host runs for problems without them (the mask and dropout
 * arguments read as 0 and a masked tile tests bounds and causality
 * through attention_vis.clh's column ranges: the same scores, fewer
 * registers).  CLOPS_ATTN_MASK_SPLIT=0 gives every problem the general
 * program. */
#ifndef ATTN_XM
#define ATTN_XM 1
#endif
#if ATTN_XM
#define ATTN_LEAN()
#else
#define ATTN_LEAN()                                                                             \
    mkind = 0;                                                                                  \
    thr = 0;
#endif

/* Two floats as one register of two 16-bit values (lo in the low half). */
static inline uint attn_pack(float lo, float hi)
{
    uint r;
    asm("cvt.rn." MMA_TY "x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
    return r;
}

/* The forwards' output: x0, x1 (row i, columns c, c + 1) through o's
 * strides, as one 32-bit store where vec & 2 (unit column stride, even
 * offsets) and both columns lie inside Ev. */
static inline void attn_out_pair(__global T *o, long i, long o_2, long o_3, int c, long Ev,
                                 int vec, float x0, float x1)
{
    if ((vec & 2) && c + 1 < Ev) {
        *(__global uint *)((__global ushort *)o + i * o_2 + c) = attn_pack(x0, x1);
    } else {
        if (c < Ev)
            ST(o, i * o_2 + c * o_3, x0);
        if (c + 1 < Ev)
            ST(o, i * o_2 + (c + 1) * o_3, x1);
    }
}

/* Row i's logsumexp (natural log) from its running maximum m (log2
 * units) and sum l, written by the row's first lane (t 0). */
#define ATTN_LSE(i, m, l)                                                                       \
    if (t == 0)                                                                                 \
        lse[bh * L + (i)] = (l) == 0.0f ? -INFINITY : ((m) + log2(l)) * M_LN2_F;

/* The dropout arguments the tensor-core forwards do not read (the host
 * runs attn_fwd for dropout). */
#define ATTN_FWD_UNUSED()                                                                       \
    (void)thr;                                                                                  \
    (void)dscale;                                                                               \
    (void)sk0;                                                                                  \
    (void)sk1;                                                                                  \
    (void)roff;
/* The first steps of attn_fwd_wg and attn_fwd_tf32: the work-group's
 * query tile of BQR rows (tiles slowest and last first, as attn_fwd_mma:
 * with causality the long tiles start first), the lean arguments, the
 * scale in log2 units (sl2; pos: positive), the key tiles of BKN keys the
 * tile needs (ntile). */
#define ATTN_FWD_TILES(BQR, BKN)                                                                \
    long nbh_ = get_num_groups(0) / nqt, gid0_ = get_group_id(0);                               \
    ATTN_FWD_SETUP(BQR, gid0_ % nbh_ * nqt + (nqt - 1 - gid0_ / nbh_))                          \
    ATTN_LEAN()                                                                                 \
    const float sl2 = scale * M_LOG2E_F;                                                        \
    const bool pos = sl2 > 0.0f;                                                                \
    long kend = causal ? min(S, i0 + (BQR) + coff) : S;                                         \
    int ntile = kend > 0 ? (int)((kend + (BKN) - 1) / (BKN)) : 0;
/* The online softmax of the scores of key tile jt (BKN keys; attn_fwd_mma's
 * steps, 16 rows of a warp), shared by attn_fwd_wg and attn_fwd_tf32:
 * s[BKN / 2] holds a lane's scores in the accumulators' layout (s[n]: row
 * g + 8 ((n >> 1) & 1), key 8 (n >> 2) + 2 t + (n & 1)); the new row
 * maxima mr, al the factor of the old sums lsum and of O, s becomes P
 * (float32). */
#define ATTN_SOFTMAX(jt, BKN)                                                                   \
    {                                                                                           \
        long j0 = (long)(jt) * (BKN);                                                           \
        bool plain = pos && mkind == 0 && j0 + (BKN) <= S && j0 + (BKN) - 1 <= wfull;           \
        float f = plain ? sl2 : 1.0f;                                                           \
        float mx[2] = {-INFINITY, -INFINITY};                                                   \
        if (plain) {                                                                            \
            _Pragma("unroll") for (int n = 0; n < (BKN) / 2; n++) mx[(n >> 1) & 1] =            \
                fmax(mx[(n >> 1) & 1], s[n]);                                                   \
        } else {                                                                                \
            /* row r's visible keys: 8 (n / 4) + (n & 1) < end[rr] (the                         \
             * lane's 2 t taken off) */                                                         \
            int end[2];                                                                         \
            for (int rr = 0; rr < 2; rr++)                                                      \
                end[rr] = attn_vis_end(g + 8 * rr, L - w0, S - j0,                              \
                                       causal ? w0 + coff - j0 : ATTN_VIS_ALL) -                \
                          2 * t;                                                                \
            _Pragma("unroll") for (int n = 0; n < (BKN) / 2; n++)                               \
            {                                                                                   \
                int rr = (n >> 1) & 1;                                                          \
                float x = ((n >> 2) * 8 + (n & 1) < end[rr] ? s[n] * scale : -INFINITY) *       \
                          M_LOG2E_F;                                                            \
                s[n] = x;                                                                       \
                mx[rr] = fmax(mx[rr], x);                                                       \
            }                                                                                   \
        }                                                                                       \
        float mu[2], ls[2] = {0.0f, 0.0f};                                                      \
        _Pragma("unroll") for (int rr = 0; rr < 2; rr++)                                        \
        {                                                                                       \
            mx[rr] = fmax(mx[rr], attn_shfl_xor(mx[rr], 1));                                    \
            mx[rr] = fmax(mx[rr], attn_shfl_xor(mx[rr], 2));                                    \
            mx[rr] = fmax(mr[rr], mx[rr] * f);                                                  \
            mu[rr] = mx[rr] == -INFINITY ? 0.0f : mx[rr];                                       \
            al[rr] = mx[rr] == -INFINITY ? 1.0f : native_exp2(mr[rr] - mu[rr]);                 \
            mr[rr] = mx[rr];                                                                    \
        }                                                                                       \
        _Pragma("unroll") for (int n = 0; n < (BKN) / 2; n++)                                   \
        {                                                                                       \
            float p_ = native_exp2(fma(s[n], f, -mu[(n >> 1) & 1]));                            \
            ls[(n >> 1) & 1] += p_;                                                             \
            s[n] = p_;                                                                          \
        }                                                                                       \
        _Pragma("unroll") for (int rr = 0; rr < 2; rr++)                                        \
        {                                                                                       \
            ls[rr] += attn_shfl_xor(ls[rr], 1);                                                 \
            ls[rr] += attn_shfl_xor(ls[rr], 2);                                                 \
            lsum[rr] = lsum[rr] * al[rr] + ls[rr];                                              \
        }                                                                                       \
    }
/* rows [r0, r0 + R) of a [rows, cols] view of 16-bit values into
 * dst[R * DSM]: by cp.async when vec (unit column stride, 16-byte aligned
 * rows; the copies are committed by the caller), else element by
 * element; zero past rows and cols. */
#define ATTN_LOAD_BITS(dst, R, p, r_0, rows, cols, sr, sc)                                      \
    ATTN_LOAD_BITS_N(dst, R, p, r_0, rows, cols, sr, sc, MNT)
/* The same by a work-group of NTH items. */
#define ATTN_LOAD_BITS_N(dst, R, p, r_0, rows, cols, sr, sc, NTH)                               \
    ATTN_LOAD_ROWS(ushort, 2, DSM, dst, R, p, r_0, rows, cols, sr, sc, NTH)
/* The same for elements of type ET, EB bytes each, rows of RS elements
 * in dst (attn_fwd_tf32's float32 tiles too). */
#define ATTN_LOAD_ROWS(ET, EB, RS, dst, R, p, r_0, rows, cols, sr, sc, NTH)                     \
    if (vec & 1) {                                                                              \
        for (int x_ = get_local_id(0); x_ < (R) * (D / (16 / EB)); x_ += (NTH)) {               \
            int r_ = x_ / (D / (16 / EB)), c_ = x_ % (D / (16 / EB)) * (16 / EB);               \
            long i_ = (r_0) + r_;                                                               \
            int nb_ = i_ < (rows) ? (int)clamp(((long)(cols) - c_) * EB, 0L, 16L) : 0;          \
            mma_cp16((dst) + r_ * (RS) + c_,                                                    \
                     (__global const ET *)(p) + (nb_ ? i_ * (sr) + c_ : 0), nb_);               \
        }                                                                                       \
    } else {                                                                                    \
        for (int x_ = get_local_id(0); x_ < (R) * D; x_ += (NTH)) {                             \
            int r_ = x_ / D, c_ = x_ % D;                                                       \
            long i_ = (r_0) + r_;                                                               \
            (dst)[r_ * (RS) + c_] = (i_ < (rows) && c_ < (cols))                                \
                                        ? ((__global const ET *)(p))[i_ * (sr) + c_ * (sc)]     \
                                        : (ET)0;                                                \
        }                                                                                       \
    }

#if ATTN_MMA == 1 /* the forward's program */
__kernel __attribute__((reqd_work_group_size(MNT, 1, 1))) void attn_fwd_mma(ATTN_FWD_ARGS,
                                                                            int vec)
{
    __local ushort sm[MSMEM] __attribute__((aligned(16)));
    const int lid = get_local_id(0), lane = lid & 31, warp = lid >> 5;
    const int g = lane >> 2, t = lane & 3, lr = lane & 7, lm = lane >> 3;
    /* query tiles slowest and last first: with causality the long tiles
     * start first and the short ones fill the last wave */
    long nbh_ = get_num_groups(0) / nqt, gid0_ = get_group_id(0);
    ATTN_FWD_SETUP(MBQ, gid0_ % nbh_ * nqt + (nqt - 1 - gid0_ / nbh_))
    /* Scores in log2 units (exp2 of the softmax; lse converted back).  On
     * tiles without masks (`plain`) the scale is folded into the exponent
     * (exp2(s * sl2 - m), one fma) and the row maxima are taken of the raw
     * products: the same maxima, as sl2 > 0 (a scale <= 0 takes the masked
     * path, which scales first). */
    ATTN_LEAN()
    const float sl2 = scale * M_LOG2E_F;
    const bool pos = sl2 > 0.0f;
    /* The query tile, and with MQOV the first key/value tile beside it
     * (buffer 1; the query tile fills buffer 0): tile jt sits in buffer
     * (jt + MQOV) & 1. */
#if MQCH < MBQ
    long kend = causal ? min(S, i0 + MBQ + coff) : S;
    int ntile = kend > 0 ? (int)((kend + MBK - 1) / MBK) : 0;
    long w0 = i0 + warp * 16 * MR; /* the warp's first query row */
    uint qa[MR][KS][4];
    /* the query tile in rounds of MQCH rows, each warp's fragments from
     * the round holding its rows; then the first key/value tile */
    for (int r0 = 0; r0 < MBQ; r0 += MQCH) {
        ATTN_LOAD_BITS(sm, MQCH, q, i0 + r0, L, E, q_2, q_3)
        MMA_CP_COMMIT();
        MMA_CP_WAIT(0);
        barrier(CLK_LOCAL_MEM_FENCE);
        if (warp * 16 * MR >= r0 && warp * 16 * MR < r0 + MQCH) {
#pragma unroll
            for (int m = 0; m < MR; m++)
#pragma unroll
                for (int kk = 0; kk < KS; kk++)
                    MMA_LDSM_X4(qa[m][kk],
                                mma_saddr(sm + ((warp * MR + m) * 16 - r0 + (lm & 1) * 8 + lr) * DSM +
                                          kk * 16 + (lm >> 1) * 8));
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (ntile > 0) {
        ATTN_LOAD_BITS(sm, MBK, k, 0, S, E, k_2, k_3)
        ATTN_LOAD_BITS(sm + MBK * DSM, MBK, v, 0, S, Ev, v_2, v_3)
        MMA_CP_COMMIT();
    }
#else
    ATTN_LOAD_BITS(sm, MBQ, q, i0, L, E, q_2, q_3)
    MMA_CP_COMMIT();
    long kend = causal ? min(S, i0 + MBQ + coff) : S;
    int ntile = kend > 0 ? (int)((kend + MBK - 1) / MBK) : 0;
    if (MQOV && ntile > 0) {
        ATTN_LOAD_BITS(sm + 2 * MBK * DSM, MBK, k, 0, S, E, k_2, k_3)
        ATTN_LOAD_BITS(sm + 3 * MBK * DSM, MBK, v, 0, S, Ev, v_2, v_3)
        MMA_CP_COMMIT();
        MMA_CP_WAIT(1); /* the query tile's copies (the older group) */
    } else {
        MMA_CP_WAIT(0);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    long w0 = i0 + warp * 16 * MR; /* the warp's first query row */
    uint qa[MR][KS][4];
#pragma unroll
    for (int m = 0; m < MR; m++)
#pragma unroll
        for (int kk = 0; kk < KS; kk++)
            MMA_LDSM_X4(qa[m][kk], mma_saddr(sm + ((warp * MR + m) * 16 + (lm & 1) * 8 + lr) * DSM +
                                            kk * 16 + (lm >> 1) * 8));
    if (!MQOV && ntile > 0) {
        barrier(CLK_LOCAL_MEM_FENCE); /* the query tile's memory holds key/value tiles next */
        ATTN_LOAD_BITS(sm, MBK, k, 0, S, E, k_2, k_3)
        ATTN_LOAD_BITS(sm + MBK * DSM, MBK, v, 0, S, Ev, v_2, v_3)
        MMA_CP_COMMIT();
    }
#endif
    float oa[MR][NB][4];
    float mr[MR][2], lsum[MR][2];
#pragma unroll
    for (int m = 0; m < MR; m++) {
#pragma unroll
        for (int n = 0; n < NB; n++)
            oa[m][n][0] = oa[m][n][1] = oa[m][n][2] = oa[m][n][3] = 0.0f;
        mr[m][0] = mr[m][1] = -INFINITY;
        lsum[m][0] = lsum[m][1] = 0.0f;
    }
    /* the last key a row of this warp sees (causal), and the last key every
     * row of it sees */
    long wlast = causal ? w0 + 16 * MR - 1 + coff : S;
    long wfull = causal ? w0 + coff : S;
    for (int jt = 0; jt < ntile; jt++) {
        long j0 = (long)jt * MBK;
        /* One barrier per tile: tile jt has landed (each item's copies
         * waited for, then the barrier), and every warp is done with tile
         * jt - 1, whose buffer takes tile jt + 1 now, in flight while the
         * warps compute on tile jt. */
        MMA_CP_WAIT(0);
        barrier(CLK_LOCAL_MEM_FENCE);
        __local ushort *ks = sm + ((jt + MQOV) & 1) * 2 * MBK * DSM, *vs = ks + MBK * DSM;
        if (jt + 1 < ntile) {
            __local ushort *kn = sm + ((jt + 1 + MQOV) & 1) * 2 * MBK * DSM;
            ATTN_LOAD_BITS(kn, MBK, k, j0 + MBK, S, E, k_2, k_3)
            ATTN_LOAD_BITS(kn + MBK * DSM, MBK, v, j0 + MBK, S, Ev, v_2, v_3)
            MMA_CP_COMMIT();
        }
        /* causal: skip a tile every row of this warp masks */
        if (j0 > wlast)
            continue;
        float s[MR][MBK / 8][4];
#pragma unroll
        for (int m = 0; m < MR; m++)
#pragma unroll
            for (int n = 0; n < MBK / 8; n++)
                s[m][n][0] = s[m][n][1] = s[m][n][2] = s[m][n][3] = 0.0f;
#pragma unroll
        for (int kk = 0; kk < KS; kk++)
#pragma unroll
            for (int p = 0; p < MBK / 16; p++) {
                uint bb[4];
                MMA_LDSM_X4(bb, mma_saddr(ks + (p * 16 + (lm >> 1) * 8 + lr) * DSM + kk * 16 +
                                          (lm & 1) * 8));
#pragma unroll
                for (int m = 0; m < MR; m++) {
                    MMA_M16N8K16(s[m][2 * p], qa[m][kk], bb, MMA_TY);
                    MMA_M16N8K16(s[m][2 * p + 1], qa[m][kk], bb + 2, MMA_TY);
                }
            }
        /* every (row, key) of the tile visible to the warp's rows: the raw
         * products, the scale folded into the exponent */
        bool plain = pos && mkind == 0 && j0 + MBK <= S && j0 + MBK - 1 <= wfull;
        float f = plain ? sl2 : 1.0f;
#pragma unroll
        for (int m = 0; m < MR; m++) {
            float mx[2] = {-INFINITY, -INFINITY};
            if (plain) {
#pragma unroll
                for (int n = 0; n < MBK / 8; n++)
#pragma unroll
                    for (int e = 0; e < 4; e++)
                        mx[e >> 1] = fmax(mx[e >> 1], s[m][n][e]);
            } else {
#if !ATTN_XM
                /* row r's visible keys: n * 8 + (e & 1) < end[rr] (the
                 * lane's 2 t taken off) */
                int end[2];
                for (int rr = 0; rr < 2; rr++)
                    end[rr] = attn_vis_end(m * 16 + g + 8 * rr, L - w0, S - j0,
                                           causal ? w0 + coff - j0 : ATTN_VIS_ALL) -
                              2 * t;
#endif
#pragma unroll
                for (int n = 0; n < MBK / 8; n++)
#pragma unroll
                    for (int e = 0; e < 4; e++) {
                        int rr = e >> 1;
#if ATTN_XM
                        float x = attn_score(s[m][n][e], w0 + m * 16 + g + rr * 8,
                                             j0 + n * 8 + 2 * t + (e & 1), L, S, scale, causal,
                                             coff, mkind, bm, am, mb, m_2, m_3) *
                                  M_LOG2E_F;
#else
                        float x = (n * 8 + (e & 1) < end[rr] ? s[m][n][e] * scale : -INFINITY) *
                                  M_LOG2E_F;
#endif
                        s[m][n][e] = x;
                        mx[rr] = fmax(mx[rr], x);
                    }
            }
            float mu[2], al[2], ls[2] = {0.0f, 0.0f};
#pragma unroll
            for (int rr = 0; rr < 2; rr++) {
                mx[rr] = fmax(mx[rr], attn_shfl_xor(mx[rr], 1));
                mx[rr] = fmax(mx[rr], attn_shfl_xor(mx[rr], 2));
                mx[rr] = fmax(mr[m][rr], mx[rr] * f);
                mu[rr] = mx[rr] == -INFINITY ? 0.0f : mx[rr];
                al[rr] = mx[rr] == -INFINITY ? 1.0f : native_exp2(mr[m][rr] - mu[rr]);
                mr[m][rr] = mx[rr];
            }
#pragma unroll
            for (int n = 0; n < MBK / 8; n++)
#pragma unroll
                for (int e = 0; e < 4; e++) {
                    float p = native_exp2(fma(s[m][n][e], f, -mu[e >> 1]));
                    ls[e >> 1] += p;
                    s[m][n][e] = p;
                }
#pragma unroll
            for (int rr = 0; rr < 2; rr++) {
                ls[rr] += attn_shfl_xor(ls[rr], 1);
                ls[rr] += attn_shfl_xor(ls[rr], 2);
                lsum[m][rr] = lsum[m][rr] * al[rr] + ls[rr];
            }
#pragma unroll
            for (int n = 0; n < NB; n++) {
                oa[m][n][0] *= al[0];
                oa[m][n][1] *= al[0];
                oa[m][n][2] *= al[1];
                oa[m][n][3] *= al[1];
            }
        }
#pragma unroll
        for (int kk = 0; kk < MBK / 16; kk++) {
            uint pa[MR][4];
#pragma unroll
            for (int m = 0; m < MR; m++) {
                pa[m][0] = attn_pack(s[m][2 * kk][0], s[m][2 * kk][1]);
                pa[m][1] = attn_pack(s[m][2 * kk][2], s[m][2 * kk][3]);
                pa[m][2] = attn_pack(s[m][2 * kk + 1][0], s[m][2 * kk + 1][1]);
                pa[m][3] = attn_pack(s[m][2 * kk + 1][2], s[m][2 * kk + 1][3]);
            }
#pragma unroll
            for (int p = 0; p < NB / 2; p++) {
                uint vb[4];
                MMA_LDSM_X4_T(vb, mma_saddr(vs + (kk * 16 + (lm & 1) * 8 + lr) * DSM + p * 16 +
                                            (lm >> 1) * 8));
#pragma unroll
                for (int m = 0; m < MR; m++) {
                    MMA_M16N8K16(oa[m][2 * p], pa[m], vb, MMA_TY);
                    MMA_M16N8K16(oa[m][2 * p + 1], pa[m], vb + 2, MMA_TY);
                }
            }
        }
    }
    /* vec & 2: the output has a unit column stride and even rows: each
     * lane's two adjacent columns as one 32-bit store */
#pragma unroll
    for (int m = 0; m < MR; m++) {
#pragma unroll
        for (int rr = 0; rr < 2; rr++) {
            long i = w0 + m * 16 + g + rr * 8;
            float l = lsum[m][rr], il = l == 0.0f ? 0.0f : 1.0f / l;
            if (i < L) {
#pragma unroll
                for (int n = 0; n < NB; n++)
                    attn_out_pair(o, i, o_2, o_3, n * 8 + 2 * t, Ev, vec,
                                  oa[m][n][2 * rr] * il, oa[m][n][2 * rr + 1] * il);
                ATTN_LSE(i, mr[m][rr], l)
            }
        }
    }
    ATTN_FWD_UNUSED()
}
#endif /* ATTN_MMA == 1 */
#if ATTN_MMA == 2 || ATTN_MMA == 3 /* the backward's programs: 2 attn_bwd_dkv_mma and attn_bwd_fold, 3 attn_bwd_dq_mma */
/*
 * The backward on the tensor cores (the FlashAttention-2 scheme; float16
 * or bfloat16 in, float32 accumulation, head dims up to 128; after the
 * host's known-answer check).  attn_bwd_pre's D_i = dO_i . O_i comes
 * first.  Every product is one of attn_fwd_mma's two forms: X Yᵀ with X
 * and Y row-major [row][e] tiles in __local (A and B through ldmatrix),
 * or C Z with C a float32 accumulator fragment rounded to the input type
 * (the A operand, as P in the forward) and Z a row-major [k][e] tile (B
 * through ldmatrix.trans).  Tiles load as in attn_fwd_mma (cp.async when
 * `vec`, rows padded by 8 elements).  P and dS are rounded to the input
 * type before their products, as FlashAttention does.
 *
 *   attn_bwd_dkv_mma  one work-group per (batch, key/value head, BKV = 64
 *       keys): BKW = 4 warps of 16 keys, each holding its K and V rows as
 *       A fragments and dK, dV in registers.  It walks every query head of
 *       the group and every query tile of BQS rows (from the first the
 *       block's keys are visible to when causal) in that fixed order, the
 *       next tile (Q, dO, logsumexp, D) in flight while the warps compute:
 *       Sᵀ = K Qᵀ, dPᵀ = V dOᵀ, Pᵀ = exp(Sᵀ - lse), dSᵀ = Pᵀ o (dPᵀ o z -
 *       D), dV += (Pᵀ o z) dO, dK += dSᵀ Q; dK is scaled at the end.  With
 *       wds it stores each dS element (one work-group computes each).
 *       When the (batch, key/value head, key block) work-groups are too
 *       few for the device, the host splits a group's G query heads over
 *       nsp work-groups (G / nsp heads each, in order), which write
 *       float32 partial sums; attn_bwd_fold adds them in split order.
 *   attn_bwd_dq_mma   one work-group per (batch, query head, 128 query
 *       rows): 8 warps of 16 rows hold their Q and dO rows as A fragments
 *       and dQ in registers; key/value tiles of MBK keys double-buffered
 *       as in attn_fwd_mma: S = Q Kᵀ, dP = dO Vᵀ, dS = P o (dP o z - D),
 *       dQ += dS K (K through ldmatrix.trans); scaled at the end.
 * No atomics: each result element is summed by one warp in a fixed order,
 * the same bits every run.
 */
/* BKW, QBW (from the host): the work-groups' warps, 4 or 8 */
#ifndef BKW
#define BKW 4
#endif
#define BKN (BKW * 32)          /* attn_bwd_dkv_mma's work items */
#define BKV (BKW * 16)          /* its keys */
#define BQS (D <= 64 ? 64 : 32) /* its query rows per step */
/* the block's K and V rows staged at once (else K, then V: 128 keys at
 * head dim 128 would take 68 KiB) */
#define BK1 (2 * BKV * DSM * 2 <= 36864)
#define BSMEM ((BK1 ? 2 : 1) * BKV * DSM > 4 * BQS * DSM ? (BK1 ? 2 : 1) * BKV * DSM : 4 * BQS * DSM)
#ifndef QBW
#define QBW 8
#endif
#define QBN (QBW * 32) /* attn_bwd_dq_mma's work items */
#define QBQ (QBW * 16) /* its query rows */
#define QSMEM (QBQ * DSM > 4 * MBK * DSM ? QBQ * DSM : 4 * MBK * DSM)

/* The four registers of an A operand (16 x 16) from the accumulator
 * fragments c[2 kk] and c[2 kk + 1] (columns 16 kk .. 16 kk + 15),
 * rounded to the input type. */
#define ATTN_PACK_A(a, c, kk)                                                                   \
    (a)[0] = attn_pack((c)[2 * (kk)][0], (c)[2 * (kk)][1]);                                     \
    (a)[1] = attn_pack((c)[2 * (kk)][2], (c)[2 * (kk)][3]);                                     \
    (a)[2] = attn_pack((c)[2 * (kk) + 1][0], (c)[2 * (kk) + 1][1]);                             \
    (a)[3] = attn_pack((c)[2 * (kk) + 1][2], (c)[2 * (kk) + 1][3]);

/* The A fragments (16 rows from `rows`, k-step kk) of a row-major tile. */
#define ATTN_LDSM_A(r, rows, kk)                                                                \
    MMA_LDSM_X4(r, mma_saddr((rows) + ((lm & 1) * 8 + lr) * DSM + (kk) * 16 + (lm >> 1) * 8))
/* The B fragments of X Yᵀ for Y rows 16 p .. 16 p + 15 of tile y, k-step
 * kk: r[0..1] the first 8 rows, r[2..3] the next 8. */
#define ATTN_LDSM_BT(r, y, p, kk)                                                               \
    MMA_LDSM_X4(r, mma_saddr((y) + ((p) * 16 + (lm >> 1) * 8 + lr) * DSM + (kk) * 16 +          \
                             (lm & 1) * 8))
/* The B fragments of C Z for Z rows (k) 16 kk .. 16 kk + 15 and columns
 * 16 p .. 16 p + 15: r[0..1] columns 16 p .., r[2..3] columns 16 p + 8 .. */
#define ATTN_LDSM_BN(r, z, kk, p)                                                               \
    MMA_LDSM_X4_T(r, mma_saddr((z) + ((kk) * 16 + (lm & 1) * 8 + lr) * DSM + (p) * 16 +         \
                               (lm >> 1) * 8))

/* Rows [r_0, r_0 + R) of a view staged into sm by the work-group's NTH
 * items: the copies waited for, then a barrier (the warps' ldmatrix
 * reads follow). */
#define ATTN_STAGE(R, p, r_0, rows, cols, sr, sc, NTH)                                          \
    ATTN_LOAD_BITS_N(sm, R, p, r_0, rows, cols, sr, sc, NTH)                                    \
    MMA_CP_COMMIT();                                                                            \
    MMA_CP_WAIT(0);                                                                             \
    barrier(CLK_LOCAL_MEM_FENCE);

#if ATTN_MMA == 2
/* attn_bwd_dkv_mma's step s_ (query head hk * G + h0s + s_ / nst, query tile
 * qt0 + s_ % nst) into buffer s_ & 1: Q, dO (cp.async when vec; the
 * caller commits), the logsumexp in log2 units and D. */
#define ATTN_DKV_LOAD(s_)                                                                       \
    {                                                                                           \
        long h_ = hk * G + h0s + (s_) / nst, i0_ = (qt0 + (s_) % nst) * BQS, bh_ = b * Hq + h_; \
        __local ushort *qb_ = sm + ((s_) & 1) * 2 * BQS * DSM;                                  \
        ATTN_LOAD_BITS_N(qb_, BQS, (q + q_o + b * q_0 + h_ * q_1), i0_, L, E, q_2, q_3, BKN)    \
        ATTN_LOAD_BITS_N(qb_ + BQS * DSM, BQS, (gout + g_o + b * g_0 + h_ * g_1), i0_, L, Ev,   \
                         g_2, g_3, BKN)                                                         \
        for (int x_ = lid; x_ < BQS; x_ += BKN) {                                               \
            long i_ = i0_ + x_;                                                                 \
            lq[(s_) & 1][x_] = i_ < L ? lse[bh_ * L + i_] * M_LOG2E_F : -INFINITY;              \
            dd[(s_) & 1][x_] = i_ < L ? Dv[bh_ * L + i_] : 0.0f;                                \
        }                                                                                       \
    }

__kernel __attribute__((reqd_work_group_size(BKN, 1, 1))) void
attn_bwd_dkv_mma(ATTN_BWD_ARGS, int vec, long nsp, __global float *part)
{
    /* gr: dK, gr2: dV; with nsp > 1 (a grouped-query group's heads split
     * over nsp work-groups), float32 partial sums into part instead
     * (attn_bwd_fold's layout), folded by attn_bwd_fold */
    __local ushort sm[BSMEM] __attribute__((aligned(16)));
    __local float lq[2][BQS], dd[2][BQS];
    const int lid = get_local_id(0), lane = lid & 31, warp = lid >> 5;
    const int g = lane >> 2, t = lane & 3, lr = lane & 7, lm = lane >> 3;
    long gi = get_group_id(0), nbhk = get_num_groups(0) / (ntile * nsp);
    long kt = gi % ntile, bhk = gi / ntile % nbhk, sp = gi / ntile / nbhk;
    long Hkv = Hq / G, b = bhk / Hkv, hk = bhk % Hkv;
    long hps = G / nsp, h0s = sp * hps; /* this work-group's query heads of the group */
    ATTN_LEAN()
#if !ATTN_XM
    wds = 0; /* dS is written for an additive mask's gradient only */
#endif
    long j0 = kt * BKV, wj = j0 + warp * 16; /* the block's and the warp's first key */
    const float sl2 = scale * M_LOG2E_F;
    ATTN_LOAD_BITS_N(sm, BKV, (k + k_o + b * k_0 + hk * k_1), j0, S, E, k_2, k_3, BKN)
    if (BK1) {
        ATTN_LOAD_BITS_N(sm + BKV * DSM, BKV, (v + v_o + b * v_0 + hk * v_1), j0, S, Ev, v_2,
                         v_3, BKN)
    }
    MMA_CP_COMMIT();
    MMA_CP_WAIT(0);
    barrier(CLK_LOCAL_MEM_FENCE);
    uint ka[KS][4], va[KS][4];
#pragma unroll
    for (int kk = 0; kk < KS; kk++) {
        ATTN_LDSM_A(ka[kk], sm + warp * 16 * DSM, kk);
        if (BK1)
            ATTN_LDSM_A(va[kk], sm + (BKV + warp * 16) * DSM, kk);
    }
    if (!BK1) { /* V in the memory K leaves */
        barrier(CLK_LOCAL_MEM_FENCE);
        ATTN_STAGE(BKV, (v + v_o + b * v_0 + hk * v_1), j0, S, Ev, v_2, v_3, BKN)
#pragma unroll
        for (int kk = 0; kk < KS; kk++)
            ATTN_LDSM_A(va[kk], sm + warp * 16 * DSM, kk);
    }
    barrier(CLK_LOCAL_MEM_FENCE); /* the memory holds query tiles next */
    float dk[NB][4], dv[NB][4];
#pragma unroll
    for (int n = 0; n < NB; n++)
        for (int e = 0; e < 4; e++)
            dk[n][e] = dv[n][e] = 0.0f;
    long rowj[2] = {wj + g, wj + g + 8};
    long nqt = (L + BQS - 1) / BQS;
    long qt0 = causal ? min(max(j0 - coff, 0L) / BQS, nqt) : 0;
    long nst = nqt - qt0, nsteps = nst * hps;
    if (nsteps > 0) {
        ATTN_DKV_LOAD(0)
        MMA_CP_COMMIT();
    }
    for (long s = 0; s < nsteps; s++) {
        if (s + 1 < nsteps) {
            ATTN_DKV_LOAD(s + 1)
            MMA_CP_COMMIT();
            MMA_CP_WAIT(1);
        } else {
            MMA_CP_WAIT(0);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        long h = hk * G + h0s + s / nst, i0 = (qt0 + s % nst) * BQS, bh = b * Hq + h;
        long mb = m_o + b * m_0 + h * m_1;
        __local ushort *qs = sm + (s & 1) * 2 * BQS * DSM, *dos = qs + BQS * DSM;
        __local float *lqs = lq[s & 1], *dds = dd[s & 1];
        /* a warp whose keys are all past S, or all masked by causality
         * for this tile, has nothing to add */
        if (!(wj >= S || (causal && wj > i0 + BQS - 1 + coff))) {
            float st[BQS / 8][4], pt[BQS / 8][4]; /* Sᵀ, dPᵀ: rows keys, columns queries */
#pragma unroll
            for (int n = 0; n < BQS / 8; n++)
                for (int e = 0; e < 4; e++)
                    st[n][e] = pt[n][e] = 0.0f;
#pragma unroll
            for (int kk = 0; kk < KS; kk++)
#pragma unroll
                for (int p = 0; p < BQS / 16; p++) {
                    uint bb[4];
                    ATTN_LDSM_BT(bb, qs, p, kk);
                    MMA_M16N8K16(st[2 * p], ka[kk], bb, MMA_TY);
                    MMA_M16N8K16(st[2 * p + 1], ka[kk], bb + 2, MMA_TY);
                    ATTN_LDSM_BT(bb, dos, p, kk);
                    MMA_M16N8K16(pt[2 * p], va[kk], bb, MMA_TY);
                    MMA_M16N8K16(pt[2 * p + 1], va[kk], bb + 2, MMA_TY);
                }
            /* every (query, key) of the tile visible, no dropout: only the
             * scale (rows past L have logsumexp -inf: P 0) */
            bool plain = mkind == 0 && !thr && wj + 16 <= S &&
                         !(causal && wj + 15 > i0 + coff);
#if !ATTN_XM
            /* key row r's visible queries: first[rr] <= n * 8 + (e & 1) <
             * cend (the lane's 2 t taken off) */
            int first[2], cend = attn_vis_clamp(L - i0) - 2 * t;
            for (int rr = 0; rr < 2; rr++)
                first[rr] = attn_vis_first(g + 8 * rr, S - wj,
                                           causal ? wj - i0 - coff : -ATTN_VIS_ALL) -
                            2 * t;
#endif
#pragma unroll
            for (int n = 0; n < BQS / 8; n++)
#pragma unroll
                for (int e = 0; e < 4; e++) {
                    int c = n * 8 + 2 * t + (e & 1);
                    long i = i0 + c, j = rowj[e >> 1];
#if ATTN_XM
                    float x = plain ? st[n][e] * sl2
                                    : attn_score(st[n][e], i, j, L, S, scale, causal, coff,
                                                 mkind, bm, am, mb, m_2, m_3) *
                                          M_LOG2E_F;
#else
                    int cc = n * 8 + (e & 1);
                    float x = plain ? st[n][e] * sl2
                                    : (cc >= first[e >> 1] && cc < cend ? st[n][e] * scale
                                                                        : -INFINITY) *
                                          M_LOG2E_F;
#endif
                    float lv = lqs[c];
                    float pv = (lv == -INFINITY || x == -INFINITY) ? 0.0f : native_exp2(x - lv);
                    float z = (thr && i < L && j < S)
                                  ? attn_keep((ulong)((bh * L + i) * S + j), roff, sk0, sk1, thr,
                                              dscale)
                                  : 1.0f;
                    float dsv = pv * (pt[n][e] * z - dds[c]);
                    if (wds && i < L && j < S)
                        dsg[(bh * L + i) * S + j] = dsv;
                    st[n][e] = pv * z;
                    pt[n][e] = dsv;
                }
#pragma unroll
            for (int kk = 0; kk < BQS / 16; kk++) {
                uint pa[4], da[4];
                ATTN_PACK_A(pa, st, kk)
                ATTN_PACK_A(da, pt, kk)
#pragma unroll
                for (int p = 0; p < NB / 2; p++) {
                    uint bb[4];
                    ATTN_LDSM_BN(bb, dos, kk, p);
                    MMA_M16N8K16(dv[2 * p], pa, bb, MMA_TY);
                    MMA_M16N8K16(dv[2 * p + 1], pa, bb + 2, MMA_TY);
                    ATTN_LDSM_BN(bb, qs, kk, p);
                    MMA_M16N8K16(dk[2 * p], da, bb, MMA_TY);
                    MMA_M16N8K16(dk[2 * p + 1], da, bb + 2, MMA_TY);
                }
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE); /* this buffer is refilled two steps on */
    }
#pragma unroll
    for (int n = 0; n < NB; n++)
#pragma unroll
        for (int e = 0; e < 4; e++) {
            int c = n * 8 + 2 * t + (e & 1);
            long j = rowj[e >> 1];
            if (nsp > 1) {
                /* the partial sums: [nsp][B * Hkv][S][D] for dK, then dV */
                long pk = ((sp * nbhk + bhk) * S + j) * D + c;
                if (j < S) {
                    part[pk] = dk[n][e];
                    part[nsp * nbhk * S * D + pk] = dv[n][e];
                }
            } else {
                if (j < S && c < E)
                    ST(gr, r_o + b * r_0 + hk * r_1 + j * r_2 + c * r_3, dk[n][e] * scale);
                if (j < S && c < Ev)
                    ST(gr2, s_o + b * s_0 + hk * s_1 + j * s_2 + c * s_3, dv[n][e]);
            }
        }
}

#endif /* ATTN_MMA == 2 */
#if ATTN_MMA == 3
__kernel __attribute__((reqd_work_group_size(QBN, 1, 1))) void attn_bwd_dq_mma(ATTN_BWD_ARGS,
                                                                               int vec)
{
    /* gr: dQ (gr2, dsg, wds unused) */
    __local ushort sm[QSMEM] __attribute__((aligned(16)));
    const int lid = get_local_id(0), lane = lid & 31, warp = lid >> 5;
    const int g = lane >> 2, t = lane & 3, lr = lane & 7, lm = lane >> 3;
    /* query tiles slowest and last first, as attn_fwd_mma */
    long nbh = get_num_groups(0) / ntile, gi = get_group_id(0);
    long qt = ntile - 1 - gi / nbh, bh = gi % nbh;
    long b = bh / Hq, h = bh % Hq, hk = h / G;
    long i0 = qt * QBQ, w0 = i0 + warp * 16, mb = m_o + b * m_0 + h * m_1;
    __global const T *kp = k + k_o + b * k_0 + hk * k_1, *vp = v + v_o + b * v_0 + hk * v_1;
    ATTN_LEAN()
    const float sl2 = scale * M_LOG2E_F;
    uint qa[KS][4], oa[KS][4]; /* the warp's Q and dO rows */
    ATTN_STAGE(QBQ, (q + q_o + b * q_0 + h * q_1), i0, L, E, q_2, q_3, QBN)
#pragma unroll
    for (int kk = 0; kk < KS; kk++)
        ATTN_LDSM_A(qa[kk], sm + warp * 16 * DSM, kk);
    barrier(CLK_LOCAL_MEM_FENCE);
    ATTN_STAGE(QBQ, (gout + g_o + b * g_0 + h * g_1), i0, L, Ev, g_2, g_3, QBN)
#pragma unroll
    for (int kk = 0; kk < KS; kk++)
        ATTN_LDSM_A(oa[kk], sm + warp * 16 * DSM, kk);
    barrier(CLK_LOCAL_MEM_FENCE); /* the memory holds key/value tiles next */
    long rowi[2] = {w0 + g, w0 + g + 8};
    float lrow[2], drow[2];
    for (int rr = 0; rr < 2; rr++) {
        lrow[rr] = rowi[rr] < L ? lse[bh * L + rowi[rr]] * M_LOG2E_F : -INFINITY;
        drow[rr] = rowi[rr] < L ? Dv[bh * L + rowi[rr]] : 0.0f;
    }
    float dq[NB][4];
#pragma unroll
    for (int n = 0; n < NB; n++)
        for (int e = 0; e < 4; e++)
            dq[n][e] = 0.0f;
    long kend = causal ? min(S, i0 + QBQ + coff) : S;
    long ntk = kend > 0 ? (kend + MBK - 1) / MBK : 0;
    if (ntk > 0) {
        ATTN_LOAD_BITS_N(sm, MBK, kp, 0, S, E, k_2, k_3, QBN)
        ATTN_LOAD_BITS_N(sm + MBK * DSM, MBK, vp, 0, S, Ev, v_2, v_3, QBN)
        MMA_CP_COMMIT();
    }
    for (long jt = 0; jt < ntk; jt++) {
        long j0 = jt * MBK;
        __local ushort *ks = sm + (jt & 1) * 2 * MBK * DSM, *vs = ks + MBK * DSM;
        if (jt + 1 < ntk) {
            __local ushort *kn = sm + ((jt + 1) & 1) * 2 * MBK * DSM;
            ATTN_LOAD_BITS_N(kn, MBK, kp, j0 + MBK, S, E, k_2, k_3, QBN)
            ATTN_LOAD_BITS_N(kn + MBK * DSM, MBK, vp, j0 + MBK, S, Ev, v_2, v_3, QBN)
            MMA_CP_COMMIT();
            MMA_CP_WAIT(1);
        } else {
            MMA_CP_WAIT(0);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        /* rows all past L, or a tile causality masks for all of them */
        if (!(w0 >= L || (causal && j0 > w0 + 15 + coff))) {
            float s[MBK / 8][4], dp[MBK / 8][4];
#pragma unroll
            for (int n = 0; n < MBK / 8; n++)
                for (int e = 0; e < 4; e++)
                    s[n][e] = dp[n][e] = 0.0f;
#pragma unroll
            for (int kk = 0; kk < KS; kk++)
#pragma unroll
                for (int p = 0; p < MBK / 16; p++) {
                    uint bb[4];
                    ATTN_LDSM_BT(bb, ks, p, kk);
                    MMA_M16N8K16(s[2 * p], qa[kk], bb, MMA_TY);
                    MMA_M16N8K16(s[2 * p + 1], qa[kk], bb + 2, MMA_TY);
                    ATTN_LDSM_BT(bb, vs, p, kk);
                    MMA_M16N8K16(dp[2 * p], oa[kk], bb, MMA_TY);
                    MMA_M16N8K16(dp[2 * p + 1], oa[kk], bb + 2, MMA_TY);
                }
            bool plain = mkind == 0 && !thr && j0 + MBK <= S &&
                         !(causal && j0 + MBK - 1 > w0 + coff);
#if !ATTN_XM
            /* row r's visible keys: n * 8 + (e & 1) < end[rr] (as
             * attn_fwd_mma's) */
            int end[2];
            for (int rr = 0; rr < 2; rr++)
                end[rr] = attn_vis_end(g + 8 * rr, L - w0, S - j0,
                                       causal ? w0 + coff - j0 : ATTN_VIS_ALL) -
                          2 * t;
#endif
#pragma unroll
            for (int n = 0; n < MBK / 8; n++)
#pragma unroll
                for (int e = 0; e < 4; e++) {
                    int rr = e >> 1;
                    long i = rowi[rr], j = j0 + n * 8 + 2 * t + (e & 1);
#if ATTN_XM
                    float x = plain ? s[n][e] * sl2
                                    : attn_score(s[n][e], i, j, L, S, scale, causal, coff, mkind,
                                                 bm, am, mb, m_2, m_3) *
                                          M_LOG2E_F;
#else
                    float x = plain ? s[n][e] * sl2
                                    : (n * 8 + (e & 1) < end[rr] ? s[n][e] * scale : -INFINITY) *
                                          M_LOG2E_F;
#endif
                    float pv = (lrow[rr] == -INFINITY || x == -INFINITY)
                                   ? 0.0f
                                   : native_exp2(x - lrow[rr]);
                    float z = (thr && i < L && j < S)
                                  ? attn_keep((ulong)((bh * L + i) * S + j), roff, sk0, sk1, thr,
                                              dscale)
                                  : 1.0f;
                    s[n][e] = pv * (dp[n][e] * z - drow[rr]);
                }
#pragma unroll
            for (int kk = 0; kk < MBK / 16; kk++) {
                uint da[4];
                ATTN_PACK_A(da, s, kk)
#pragma unroll
                for (int p = 0; p < NB / 2; p++) {
                    uint bb[4];
                    ATTN_LDSM_BN(bb, ks, kk, p);
                    MMA_M16N8K16(dq[2 * p], da, bb, MMA_TY);
                    MMA_M16N8K16(dq[2 * p + 1], da, bb + 2, MMA_TY);
                }
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE); /* this buffer is refilled two tiles on */
    }
#pragma unroll
    for (int n = 0; n < NB; n++)
#pragma unroll
        for (int e = 0; e < 4; e++) {
            int c = n * 8 + 2 * t + (e & 1);
            long i = rowi[e >> 1];
            if (i < L && c < E)
                ST(gr, r_o + b * r_0 + h * r_1 + i * r_2 + c * r_3, dq[n][e] * scale);
        }
    (void)gr2;
    (void)dsg;
    (void)wds;
    (void)s_o;
    (void)s_0;
    (void)s_1;
    (void)s_2;
    (void)s_3;
}
#endif /* ATTN_MMA == 3 */
#endif /* ATTN_MMA == 2 || ATTN_MMA == 3 */
#if ATTN_MMA == 4 || ATTN_MMA == 5 || ATTN_MMA == 6
/* Element offset of the 8-element chunk c of row r of a tile of R rows in
 * the backward's one layout for both its reads: 128-byte-swizzled atoms of
 * 8 rows x 64 dims (1024 bytes, chunk c of row r at c ^ (r & 7)), the
 * atoms of the next 64 dims R / 8 atoms further (attn_bwd_dkv_wg's query
 * side, K and V tiles; attn_bwd_dq_wg's key side). */
#define WGB_OFF(r, c, R)                                                                        \
    (((((c) >> 3) * ((R) / 8) + ((r) >> 3)) << 9) + (((r) & 7) << 6) + ((((c) & 7) ^ ((r) & 7)) << 3))
/* Such a tile of R rows at __local address a_ read K-major, as the B
 * operand of a product whose N is the tile's rows: the 16-deep step kk 32
 * bytes into the 128-byte rows, the next 64 dims R / 8 atoms further. */
#define WGB_KDESC(a_, kk, R) wg_desc((a_) + ((kk) >> 2) * ((R) / 8) * 1024 + ((kk) & 3) * 32, 16u, 1024u, 1u)
/* The same tile read N-major (the transpose bit), as the B operand of a
 * product whose K is the tile's rows: 16-row step kk (two atoms), the next
 * 64 dims R / 8 atoms further. */
#define WGB_NDESC(a_, kk, R) wg_desc((a_) + (kk) * 2048, ((R) / 8) * 1024, 1024u, 1u)
/* The backward's arguments the lean wgmma kernels do not use (no mask,
 * no dropout, no dS written). */
#define WG_BWD_LEAN_UNUSED()                                                                    \
    (void)dsg;                                                                                  \
    (void)wds;                                                                                  \
    (void)bm;                                                                                   \
    (void)am;                                                                                   \
    (void)m_o;                                                                                  \
    (void)m_0;                                                                                  \
    (void)m_1;                                                                                  \
    (void)m_2;                                                                                  \
    (void)m_3;                                                                                  \
    (void)thr;                                                                                  \
    (void)dscale;                                                                               \
    (void)sk0;                                                                                  \
    (void)sk1;                                                                                  \
    (void)roff;                                                                                 \
    (void)mkind;
/* Rows [i_0, i_0 + R) of a [lim, cols] view (p) into a tile of the wgmma
 * programs, the 8-element chunk c of row r at element OFF(r, c); zeros
 * past lim and cols; by the work-group's NTH items, cp.async when `vec`
 * bit 0 (the caller commits), else element by element. */
#define WG_LOAD_TILE(dst, p, i_0, lim, cols, sr, sc, R, OFF, NTH)                               \
    if (vec & 1) {                                                                              \
        for (int x_ = lid; x_ < (R) * (D / 8); x_ += (NTH)) {                                   \
            int r_ = x_ / (D / 8), c_ = x_ % (D / 8);                                           \
            long i_ = (i_0) + r_;                                                               \
            int nb_ = i_ < (lim) ? (int)clamp(((long)(cols) - c_ * 8) * 2, 0L, 16L) : 0;        \
            mma_cp16((dst) + OFF(r_, c_),                                                       \
                     (__global const ushort *)(p) + (nb_ ? i_ * (sr) + c_ * 8 : 0), nb_);       \
        }                                                                                       \
    } else {                                                                                    \
        for (int x_ = lid; x_ < (R) * D; x_ += (NTH)) {                                         \
            int r_ = x_ / D, c_ = x_ % D;                                                       \
            long i_ = (i_0) + r_;                                                               \
            (dst)[OFF(r_, c_ >> 3) + (c_ & 7)] =                                                \
                (i_ < (lim) && c_ < (cols))                                                     \
                    ? ((__global const ushort *)(p))[i_ * (sr) + c_ * (sc)]                     \
                    : (ushort)0;                                                                \
        }                                                                                       \
    }

/* Rows wj + g, wj + g + 8 of a [S, cols] view (p at its (b, head)) as the
 * warp's A fragments of 16-deep step kk: a[0..3] (g, 2t), (g + 8, 2t), (g,
 * 2t + 8), (g + 8, 2t + 8) and their next columns; zeros past S and cols.
 * attn_bwd_dkv_wg's K and V rows; attn_fwd_wg's Q rows take the same loop
 * inline, the text the H200 checked (through this function clang's PTX
 * differs). */
static inline void wg_afrag(uint a[4], __global const ushort *p, long wj, int g, int t, int kk,
                             long S, long cols, long sr, long sc, int vec)
{
#pragma unroll
    for (int e = 0; e < 4; e++) {
        long j = wj + g + (e & 1) * 8;
        long c = (long)kk * 16 + (long)t * 2 + (long)(e >> 1) * 8;
        uint x = 0;
        if (j < S && (vec & 1) && c + 1 < cols) {
            x = *(const __global uint *)(p + j * sr + c);
        } else if (j < S) {
            uint lo = c < cols ? p[j * sr + c * sc] : 0u;
            uint hi = c + 1 < cols ? p[j * sr + (c + 1) * sc] : 0u;
            x = lo | hi << 16;
        }
        a[e] = x;
    }
}
#endif
#if ATTN_MMA == 4 /* the wgmma forward's program (sm_90a, through the PTX route) */
/*
 * attn_fwd_wg: the forward on Hopper's warpgroup products (wgmma; the
 * atoms of cl_kernels/wgmma.clh and wgmma_attn.clh), FlashAttention-3's
 * structure without TMA or warp specialisation, within NVIDIA OpenCL's
 * 48 KiB of __local memory; bfloat16 or float16, head dims 64 and 128, the
 * lean problems only (ATTN_XM 0: no boolean or additive mask, no
 * dropout; the host runs attn_fwd_mma for the others).
 *
 * A work-group of WGN warpgroups (128 items each) takes 64 WGN query rows
 * of one (batch, head); warp w holds rows 16 w .. 16 w + 15 and their Q
 * fragments in registers (loaded from global memory, the A operand of
 * every S product).  Key and value tiles of WBK rows go through a ring of
 * WNS = 4 __local slots in the order K_0, V_0, K_1, V_1, ...: item n in
 * slot n % 4, K tiles K-major with the 64-byte swizzle (sub-tiles of 32
 * dims, WBK x 64 bytes each), V tiles N-major with the 128-byte swizzle
 * (atoms of 8 keys x 64 dims), the canonical layouts gemm_wgmma stages
 * (cl_kernels/gemm.cl KMAJ, XMAJ); cp.async when every view allows it
 * (`vec` bit 0), else element by element.
 *
 * Step jt (0 .. ntile; one barrier each): the copies of V_{jt-1} and K_jt
 * have landed (each item waited for its own, fenced them for the tensor
 * cores' proxy, then the barrier); V_jt and K_{jt+1} go into the slots of
 * V_{jt-2} and K_{jt-1}, whose products every warpgroup waited for in
 * step jt - 1.  Each warpgroup then issues S_jt = Q K_jtᵀ (D / 16
 * products m64nWBKk16, A from registers, B K-major) and O += P_{jt-1}
 * V_{jt-1} (WBK / 16 products m64nDk16, P from registers, B N-major),
 * waits for S_jt only, runs the online softmax on its accumulators while
 * the P V product runs (the intra-warpgroup overlap of FlashAttention-3),
 * waits for that, rescales O by the new row maxima and rounds P_jt to the
 * input type as the next step's A operand.  The softmax is attn_fwd_mma's
 * (log2 units, the scale folded into the exponent on tiles every row of
 * the warp sees, attention_vis.clh's ranges on the others), so the
 * logsumexp is the one the backward reads.
 */
#ifndef WBK
#define WBK 64
#endif
#ifndef WGN
#define WGN 2
#endif
/* 1: each step's tile copies issued after its products (CLOPS_ATTN_WG_LATE,
 * attn12), so the products start right after the barrier; 0: before */
#ifndef WG_LATE
#define WG_LATE 0
#endif
#define WNT (WGN * 128)
#define WBQ (WGN * 64)
#define WNS 4
#define WSLOT (WBK * D) /* 16-bit elements of one key or value tile */
#if WBK % 16 || WBK > 128 || (D != 64 && D != 128) || WNS * WSLOT * 2 > 49152
#error "attn_fwd_wg: key tiles of 16 to 128 rows, head dims 64 or 128, 48 KiB of slots"
#endif
#if WBK == 32
#define WGA_MMA_S WGA_MMA_N32
#elif WBK == 48
#define WGA_MMA_S WGA_MMA_N48
#elif WBK == 64
#define WGA_MMA_S WGA_MMA_N64
#elif WBK == 96
#define WGA_MMA_S WGA_MMA_N96
#else
#error "attn_fwd_wg: key tiles of 32, 48, 64 or 96 rows"
#endif
#if D == 64
#define WGA_MMA_O WGA_MMA_N64
#else
#define WGA_MMA_O WGA_MMA_N128
#endif
/* Element offset in a slot of the 8-element chunk c of key r: K (K-major,
 * 64-byte swizzle, sub-tiles of 32 dims) and V (N-major, 128-byte
 * swizzle, atoms of 8 keys x 64 dims, those of the next 64 dims WBK / 8
 * atoms further). */
#define WG_KOFF(r, c) (((c) >> 2) * (WBK * 32) + (r) * 32 + ((((c) & 3) ^ (((r) >> 1) & 3)) << 3))
#define WG_VOFF(r, c)                                                                           \
    (((((c) >> 3) * (WBK / 8) + ((r) >> 3)) << 9) + (((r) & 7) << 6) +                         \
     ((((c) & 7) ^ ((r) & 7)) << 3))
/* Keys [j_0, j_0 + WBK) of a [S, cols] view into a slot, in layout OFF;
 * zeros past S and cols. */
#define WG_LOAD(slot, p, j_0, cols, sr, sc, OFF)                                                \
    WG_LOAD_TILE(slot, p, j_0, S, cols, sr, sc, WBK, OFF, WNT)

__kernel __attribute__((reqd_work_group_size(WNT, 1, 1))) void attn_fwd_wg(ATTN_FWD_ARGS,
                                                                           int vec)
{
    __local ushort sm[WNS * WSLOT] __attribute__((aligned(1024)));
    const int lid = get_local_id(0), lane = lid & 31, warp = lid >> 5;
    const int g = lane >> 2, t = lane & 3;
    ATTN_FWD_TILES(WBQ, WBK)
    const uint sb = mma_saddr(sm);
    /* K_0 into slot 0, in flight while the Q fragments load */
    if (ntile > 0) {
        WG_LOAD(sm, k, 0, E, k_2, k_3, WG_KOFF)
    }
    MMA_CP_COMMIT();
    long w0 = i0 + warp * 16; /* the warp's first query row */
    /* (wg_afrag's loop, kept inline: the text the H200 checked) */
    const __global ushort *qb = (const __global ushort *)q;
    uint qa[D / 16][4];
#pragma unroll
    for (int kk = 0; kk < D / 16; kk++)
#pragma unroll
        for (int e = 0; e < 4; e++) {
            long i = w0 + g + (e & 1) * 8;
            int c = kk * 16 + 2 * t + (e >> 1) * 8;
            uint x = 0;
            if (i < L && (vec & 1) && c + 1 < E) {
                x = *(const __global uint *)(qb + i * q_2 + c);
            } else if (i < L) {
                uint lo = c < E ? qb[i * q_2 + c * q_3] : 0u;
                uint hi = c + 1 < E ? qb[i * q_2 + (c + 1) * q_3] : 0u;
                x = lo | hi << 16;
            }
            qa[kk][e] = x;
        }
    float oa[D / 2];
#pragma unroll
    for (int n = 0; n < D / 2; n++)
        oa[n] = 0.0f;
    float mr[2] = {-INFINITY, -INFINITY}, lsum[2] = {0.0f, 0.0f}, al[2], s[WBK / 2];
    uint pa[WBK / 16][4]; /* P_{jt-1}, the A operand of O += P V */
    long wfull = causal ? w0 + coff : S; /* the last key every row of the warp sees */
    /* Step jt's start: the copies of V_{jt-1} and K_jt landed and fenced
     * for the tensor cores, then V_jt and K_{jt+1} into their slots. */
#define WG_SYNC(jt)                                                                             \
    MMA_CP_WAIT(0);                                                                             \
    WG_PROXY_FENCE();                                                                           \
    barrier(CLK_LOCAL_MEM_FENCE);                                                               \
    if (!WG_LATE) {                                                                             \
        WG_LOADS(jt)                                                                            \
    }
    /* V_jt and K_{jt+1} into the slots of V_{jt-2} and K_{jt-1}: at the
     * step's start, or (WG_LATE) once the step's products are issued */
#define WG_LOADS(jt)                                                                            \
    if ((jt) < ntile) {                                                                         \
        WG_LOAD(sm + (2 * (jt) + 1) % WNS * WSLOT, v, (long)(jt) * WBK, Ev, v_2, v_3, WG_VOFF)   \
    }                                                                                           \
    if ((jt) + 1 < ntile) {                                                                     \
        WG_LOAD(sm + (2 * (jt) + 2) % WNS * WSLOT, k, (long)((jt) + 1) * WBK, E, k_2, k_3,       \
                WG_KOFF)                                                                        \
    }                                                                                           \
    MMA_CP_COMMIT();
    /* S_jt = Q K_jtᵀ (the first product overwrites s) and O += P V_jt */
#define WG_ISSUE_S(jt)                                                                          \
    {                                                                                           \
        uint ka_ = sb + (uint)((2 * (jt)) % WNS * WSLOT * 2);                                   \
        _Pragma("unroll") for (int kk = 0; kk < D / 16; kk++)                                   \
            WGA_MMA_S(s, qa[kk],                                                                \
                      wg_desc(ka_ + (kk >> 1) * (WBK * 64) + (kk & 1) * 32, 16u, 512u, 2u),     \
                      MMA_TY, "0", kk > 0);                                                     \
        WG_COMMIT();                                                                            \
    }
#define WG_ISSUE_PV(jt)                                                                         \
    {                                                                                           \
        uint va_ = sb + (uint)((2 * (jt) + 1) % WNS * WSLOT * 2);                               \
        _Pragma("unroll") for (int kk = 0; kk < WBK / 16; kk++)                                 \
            WGA_MMA_O(oa, pa[kk], wg_desc(va_ + kk * 2048, (WBK / 8) * 1024, 1024u, 1u),        \
                      MMA_TY, "1", 1);                                                          \
        WG_COMMIT();                                                                            \
    }
    /* The online softmax of S_jt (ATTN_SOFTMAX's, WBK keys) */
#define WG_SOFTMAX(jt) ATTN_SOFTMAX(jt, WBK)
    /* P rounded to the input type: the next P V product's A operand */
#define WG_PACK()                                                                               \
    _Pragma("unroll") for (int kk = 0; kk < WBK / 16; kk++)                                     \
    {                                                                                           \
        pa[kk][0] = attn_pack(s[8 * kk], s[8 * kk + 1]);                                        \
        pa[kk][1] = attn_pack(s[8 * kk + 2], s[8 * kk + 3]);                                    \
        pa[kk][2] = attn_pack(s[8 * kk + 4], s[8 * kk + 5]);                                    \
        pa[kk][3] = attn_pack(s[8 * kk + 6], s[8 * kk + 7]);                                    \
    }
    /* Straight-line steps (no product behind a branch, which has ptxas
     * serialise the products): the first tile, the loop, the last P V. */
    if (ntile > 0) {
        WG_SYNC(0)
        WG_FENCE();
        WG_ISSUE_S(0)
        if (WG_LATE) {
            WG_LOADS(0)
        }
        WG_WAIT(0);
        WG_SOFTMAX(0)
        WG_PACK()
        for (int jt = 1; jt < ntile; jt++) {
            WG_SYNC(jt)
            WG_FENCE();
            WG_ISSUE_S(jt)
            WG_ISSUE_PV(jt - 1)
            if (WG_LATE) {
                WG_LOADS(jt)
            }
            WG_WAIT(1); /* S_jt; P_{jt-1} V_{jt-1} may still run */
            WG_SOFTMAX(jt)
            WG_WAIT(0);
#pragma unroll
            for (int n = 0; n < D / 2; n++)
                oa[n] *= al[(n >> 1) & 1];
            WG_PACK()
        }
        WG_SYNC(ntile)
        WG_FENCE();
        WG_ISSUE_PV(ntile - 1)
        if (WG_LATE) {
            WG_LOADS(ntile)
        }
        WG_WAIT(0);
    }
    /* as attn_fwd_mma: vec & 2, the output's column pairs as 32-bit stores */
#pragma unroll
    for (int rr = 0; rr < 2; rr++) {
        long i = w0 + g + rr * 8;
        float l = lsum[rr], il = l == 0.0f ? 0.0f : 1.0f / l;
        if (i < L) {
#pragma unroll
            for (int n = 0; n < D / 8; n++)
                attn_out_pair(o, i, o_2, o_3, n * 8 + 2 * t, Ev, vec, oa[4 * n + 2 * rr] * il,
                              oa[4 * n + 2 * rr + 1] * il);
            ATTN_LSE(i, mr[rr], l)
        }
    }
    ATTN_FWD_UNUSED()
    (void)m_2;
    (void)m_3;
    (void)mb;
}
#endif /* ATTN_MMA == 4 */
#if ATTN_MMA == 2 || ATTN_MMA == 5
/* dK and dV from attn_bwd_dkv_mma's (or attn_bwd_dkv_wg's) nsp partial
 * sums (part: [nsp][nbhk = B * Hkv][S][D] for dK, then the same for dV),
 * summed in split order: one work item per (b, key/value head, key,
 * column), a fixed order, the same bits every run.  In both programs, so
 * the wgmma dK/dV needs no mma.sync program beside it. */
__kernel void attn_bwd_fold(__global const float *part, __global T *gr, ATTN_GEOM(r),
                            __global T *gr2, ATTN_GEOM(s), long Hkv, long S, long E, long Ev,
                            long nsp, long n, float scale)
{
    /* four columns an item (D and n are multiples of 4: 16-byte loads,
     * the row's divisions once per four elements; attn12) */
    for (long x4 = get_global_id(0); x4 < n / 4; x4 += get_global_size(0)) {
        long x = x4 * 4, row = x / D;
        long c0 = x % D, j = row % S, bhk = row / S, b = bhk / Hkv, hk = bhk % Hkv;
        float4 sk = (float4)(0.0f), sv = (float4)(0.0f);
        for (long sp = 0; sp < nsp; sp++) {
            sk += vload4(0, part + sp * n + x);
            sv += vload4(0, part + (nsp + sp) * n + x);
        }
        float ks[4], vs[4];
        vstore4(sk, 0, ks);
        vstore4(sv, 0, vs);
#pragma unroll
        for (int e = 0; e < 4; e++) {
            long c = c0 + e;
            if (c < E)
                ST(gr, r_o + b * r_0 + hk * r_1 + j * r_2 + c * r_3, ks[e] * scale);
            if (c < Ev)
                ST(gr2, s_o + b * s_0 + hk * s_1 + j * s_2 + c * s_3, vs[e]);
        }
    }
}
#endif /* ATTN_MMA == 2 || ATTN_MMA == 5 */
#if ATTN_MMA == 5 /* the wgmma dK/dV's program (sm_90a, through the PTX route) */
/*
 * attn_bwd_dkv_wg: attn_bwd_dkv_mma on Hopper's warpgroup products
 * (wgmma; wgmma.clh and wgmma_attn.clh), FlashAttention-3's dK/dV without
 * TMA or warp specialisation, inside NVIDIA OpenCL's 48 KiB of __local;
 * bfloat16 or float16, head dims 64 and 128, the lean problems only
 * (ATTN_XM 0: no mask, no dropout, no dS written).  The same arguments,
 * work-group geometry (128 items, 64 keys: one warpgroup) and head split
 * (nsp > 1: float32 partial sums into part, attn_bwd_fold after it) as
 * attn_bwd_dkv_mma with its default 4 warps, so the host swaps the kernel.
 *
 * Warp w holds keys j0 + 16 w .. + 15 and their K and V rows as A
 * fragments in registers (loaded once from global memory), dK and dV
 * (64 keys x D each, wgmma's accumulator layout) in registers.  The query
 * side of every step (query head h, query rows i0 .. i0 + WQ - 1) is a Q
 * and a dO tile in __local, double-buffered (cp.async when `vec` bit 0,
 * else element by element; zeros past L, E and Ev), each in one layout
 * that serves both of its products: 128-byte-swizzled atoms of 8 rows x
 * 64 dims (1024 bytes, chunk c of row r at c ^ (r & 7); the atoms of the
 * next 64 dims WQ / 8 atoms further) read K-major by Sᵀ = K Qᵀ and dPᵀ =
 * V dOᵀ (rows the product's N, 128-byte rows, 8-row groups 1024 bytes
 * apart, the 16-deep step 32 bytes in) and N-major by dV += Pᵀ dO and dK
 * += dSᵀ Q (gemm_wgmma's XMAJ, as attn_fwd_wg's V tiles), and the rows'
 * logsumexp (log2 units) and D.  Step s: its tile has landed (each item
 * waited for its copies and fenced them for the tensor cores' proxy, then
 * the barrier), step s + 1's goes into the other buffer (step s - 1's,
 * whose products every warp waited for); Sᵀ and dPᵀ issued (m64nWQk16, A
 * from registers, B K-major), Pᵀ = exp2(Sᵀ sl2 - lse) computed on the
 * accumulators as soon as Sᵀ is done (while dPᵀ runs), rounded to the
 * input type and issued as dV += Pᵀ dO (m64nDk16, B N-major with the
 * transpose bit); dSᵀ = Pᵀ o (dPᵀ - D) while that runs, rounded and
 * issued as dK += dSᵀ Q; the step ends when both are done.  The
 * accumulator fragments are the A fragments (no shuffle), as Pᵀ in
 * attn_fwd_wg.  No product sits behind a branch: every warp runs every
 * step (a step's keys and query rows are masked per element through
 * attention_vis.clh's ranges; steps wholly past the diagonal are not
 * taken: the first step is the first query tile the block's keys are
 * visible to).  Each dK/dV element is summed by one lane in a fixed order:
 * the same bits every run.
 */
#ifndef WQ
#define WQ 32 /* query rows per step (from the host: 16, 32, 64) */
#endif
#define WQT (WQ * D)           /* 16-bit elements of one Q or dO tile */
/* WKS (from the host): 1, the block's K and V tiles in __local (the
 * query side's layout, 64 rows; the A operand of Sᵀ and dPᵀ through a
 * descriptor, K-major) instead of registers, and the steps' logsumexp
 * and D read by each lane from global memory: 64 registers fewer at head
 * dim 128, where 48 KiB then hold 16-row steps only */
#ifndef WKS
#define WKS 0
#endif
#define WKV (WKS ? 2 * 64 * D : 0) /* 16-bit elements of the K and V tiles */
#if (D != 64 && D != 128) || (WQ != 16 && WQ != 32 && WQ != 64) || (WKV + 4 * WQT) * 2 > 49152
#error "attn_bwd_dkv_wg: head dims 64 or 128, steps of 16, 32 or 64 rows, 48 KiB of __local"
#endif
#if WQ == 16
#define WGB_MMA_S WGA_MMA_N16
#define WGS_MMA_S WGS_MMA_N16
#elif WQ == 32
#define WGB_MMA_S WGA_MMA_N32
#define WGS_MMA_S WGS_MMA_N32
#else
#define WGB_MMA_S WGA_MMA_N64
#define WGS_MMA_S WGS_MMA_N64
#endif
#if D == 64
#define WGB_MMA_G WGA_MMA_N64
#else
#define WGB_MMA_G WGA_MMA_N128
#endif
/* the query-side tiles' and the K and V tiles' layouts (WGB_OFF: a
 * query-side tile has WQ rows, the K and V tiles 64) */
#define WGB_QOFF(r, c) WGB_OFF(r, c, WQ)
#define WGB_KOFF(r, c) WGB_OFF(r, c, 64)
#if WKS
#define WGB_LSE_D(s_)
#else
#define WGB_LSE_D(s_)                                                                           \
    for (int x_ = lid; x_ < WQ; x_ += 128) {                                                    \
        long i_ = i0_ + x_;                                                                     \
        lq[(s_) & 1][x_] = i_ < L ? lse[bh_ * L + i_] * M_LOG2E_F : -INFINITY;                  \
        dd[(s_) & 1][x_] = i_ < L ? Dv[bh_ * L + i_] : 0.0f;                                    \
    }
#endif
/* Step s_'s query side (query head hk * G + h0s + s_ / nst, query tile
 * qt0 + s_ % nst) into buffer s_ & 1: Q, dO, the logsumexp in log2 units
 * and D (the caller commits the copies). */
#define WGB_STEP_LOAD(s_)                                                                       \
    {                                                                                           \
        long h_ = hk * G + h0s + (s_) / nst, i0_ = (qt0 + (s_) % nst) * WQ, bh_ = b * Hq + h_;  \
        __local ushort *qb_ = sm + WKV + ((s_) & 1) * 2 * WQT;                                  \
        WG_LOAD_TILE(qb_, (q + q_o + b * q_0 + h_ * q_1), i0_, L, E, q_2, q_3, WQ, WGB_QOFF,    \
                     128)                                                                       \
        WG_LOAD_TILE(qb_ + WQT, (gout + g_o + b * g_0 + h_ * g_1), i0_, L, Ev, g_2, g_3, WQ,    \
                     WGB_QOFF, 128)                                                             \
        WGB_LSE_D(s_)                                                                           \
        (void)bh_;                                                                              \
    }
__kernel __attribute__((reqd_work_group_size(128, 1, 1))) void
attn_bwd_dkv_wg(ATTN_BWD_ARGS, int vec, long nsp, __global float *part)
{
    /* gr: dK, gr2: dV (dsg, wds unused: the lean problems only) */
    __local ushort sm[WKV + 4 * WQT] __attribute__((aligned(1024)));
#if !WKS
    __local float lq[2][WQ], dd[2][WQ];
#endif
    const int lid = get_local_id(0), lane = lid & 31, warp = lid >> 5;
    const int g = lane >> 2, t = lane & 3;
    long gi = get_group_id(0), nbhk = get_num_groups(0) / (ntile * nsp);
    long kt = gi % ntile, bhk = gi / ntile % nbhk, sp = gi / ntile / nbhk;
    long Hkv = Hq / G, b = bhk / Hkv, hk = bhk % Hkv;
    long hps = G / nsp, h0s = sp * hps; /* this work-group's query heads of the group */
    ATTN_LEAN()
    long j0 = kt * 64, wj = j0 + warp * 16; /* the block's and the warp's first key */
    const float sl2 = scale * M_LOG2E_F;
    long nqt = (L + WQ - 1) / WQ;
    long qt0 = causal ? min(max(j0 - coff, 0L) / WQ, nqt) : 0;
    long nst = nqt - qt0, nsteps = nst * hps;
#if WKS
    WG_LOAD_TILE(sm, (k + k_o + b * k_0 + hk * k_1), j0, S, E, k_2, k_3, 64, WGB_KOFF, 128)
    WG_LOAD_TILE(sm + 64 * D, (v + v_o + b * v_0 + hk * v_1), j0, S, Ev, v_2, v_3, 64, WGB_KOFF,
                 128)
#endif
    if (nsteps > 0) {
        WGB_STEP_LOAD(0)
    }
    MMA_CP_COMMIT();
#if !WKS
    uint ka[D / 16][4], va[D / 16][4];
#pragma unroll
    for (int kk = 0; kk < D / 16; kk++) {
        wg_afrag(ka[kk], (__global const ushort *)(k + k_o + b * k_0 + hk * k_1), wj, g, t, kk,
                  S, E, k_2, k_3, vec);
        wg_afrag(va[kk], (__global const ushort *)(v + v_o + b * v_0 + hk * v_1), wj, g, t, kk,
                  S, Ev, v_2, v_3, vec);
    }
#endif
    float dk[D / 2], dv[D / 2];
#pragma unroll
    for (int n = 0; n < D / 2; n++)
        dk[n] = dv[n] = 0.0f;
    const uint sb = mma_saddr(sm);
    for (long s = 0; s < nsteps; s++) {
        MMA_CP_WAIT(0);
        WG_PROXY_FENCE();
        barrier(CLK_LOCAL_MEM_FENCE);
        if (s + 1 < nsteps) {
            WGB_STEP_LOAD(s + 1)
        }
        MMA_CP_COMMIT();
        long i0 = (qt0 + s % nst) * WQ;
        const uint qa = sb + (uint)(WKV * 2 + (s & 1) * 4 * WQT), oa = qa + 2 * WQT;
        float st[WQ / 2], pt[WQ / 2]; /* Sᵀ, dPᵀ: rows keys, columns queries */
        WG_FENCE();
        /* the K-major tiles' 16-deep step kk: WGB_KDESC */
#pragma unroll
        for (int kk = 0; kk < D / 16; kk++) {
#if WKS
            WGS_MMA_S(st, WGB_KDESC(sb, kk, 64), WGB_KDESC(qa, kk, WQ), MMA_TY, "0", kk > 0);
#else
            WGB_MMA_S(st, ka[kk], WGB_KDESC(qa, kk, WQ), MMA_TY, "0", kk > 0);
#endif
        }
        WG_COMMIT();
#pragma unroll
        for (int kk = 0; kk < D / 16; kk++) {
#if WKS
            WGS_MMA_S(pt, WGB_KDESC(sb + 64 * D * 2, kk, 64), WGB_KDESC(oa, kk, WQ), MMA_TY, "0",
                      kk > 0);
#else
            WGB_MMA_S(pt, va[kk], WGB_KDESC(oa, kk, WQ), MMA_TY, "0", kk > 0);
#endif
        }
        WG_COMMIT();
#if WKS
        /* the lane's query columns' logsumexp (log2 units) and D: column
         * 8 (x / 4) + 2 t + (x & 1) of accumulator x at [(x / 4) * 2 + (x & 1)] */
        float lqv[WQ / 4], ddv[WQ / 4];
        {
            long bh = b * Hq + hk * G + h0s + s / nst;
#pragma unroll
            for (int u = 0; u < WQ / 4; u++) {
                long i = i0 + (u >> 1) * 8 + 2 * t + (u & 1);
                lqv[u] = i < L ? lse[bh * L + i] * M_LOG2E_F : -INFINITY;
                ddv[u] = i < L ? Dv[bh * L + i] : 0.0f;
            }
        }
#define WGB_LQ(x) lqv[((x) >> 2) * 2 + ((x) & 1)]
#define WGB_DD(x) ddv[((x) >> 2) * 2 + ((x) & 1)]
#else
        __local float *lqs = lq[s & 1], *dds = dd[s & 1];
#define WGB_LQ(x) lqs[((x) >> 2) * 8 + 2 * t + ((x) & 1)]
#define WGB_DD(x) dds[((x) >> 2) * 8 + 2 * t + ((x) & 1)]
#endif
        WG_WAIT(1); /* Sᵀ; dPᵀ may still run */
        /* every (query, key) of the step visible to the warp's keys: only
         * the scale (rows past L have logsumexp -inf: P 0) */
        bool plain = wj + 16 <= S && !(causal && wj + 15 > i0 + coff);
        /* key row r's visible queries: first[rr] <= 8 (x / 4) + (x & 1) <
         * cend (the lane's 2 t taken off) */
        int first[2], cend = attn_vis_clamp(L - i0) - 2 * t;
        for (int rr = 0; rr < 2; rr++)
            first[rr] = attn_vis_first(g + 8 * rr, S - wj,
                                       causal ? wj - i0 - coff : -ATTN_VIS_ALL) -
                        2 * t;
#pragma unroll
        for (int x = 0; x < WQ / 2; x++) {
            int cc = (x >> 2) * 8 + (x & 1);
            float y = plain ? st[x] * sl2
                            : (cc >= first[(x >> 1) & 1] && cc < cend ? st[x] * scale : -INFINITY) *
                                  M_LOG2E_F;
            float lv = WGB_LQ(x);
            st[x] = (lv == -INFINITY || y == -INFINITY) ? 0.0f : native_exp2(y - lv);
        }
        uint pa[WQ / 16][4], da[WQ / 16][4];
        /* accumulators x rounded to the input type: the A operand a */
#define WGB_PACK(a, x)                                                                          \
    _Pragma("unroll") for (int kk = 0; kk < WQ / 16; kk++)                                      \
        _Pragma("unroll") for (int e = 0; e < 4; e++)                                           \
            (a)[kk][e] = attn_pack((x)[8 * kk + 2 * e], (x)[8 * kk + 2 * e + 1]);
        WGB_PACK(pa, st)
        WG_FENCE();
#pragma unroll
        for (int kk = 0; kk < WQ / 16; kk++)
            WGB_MMA_G(dv, pa[kk], WGB_NDESC(oa, kk, WQ), MMA_TY,
                      "1", 1);
        WG_COMMIT();
        WG_WAIT(1); /* dPᵀ; dV += Pᵀ dO may still run */
#pragma unroll
        for (int x = 0; x < WQ / 2; x++)
            pt[x] = st[x] * (pt[x] - WGB_DD(x));
        WGB_PACK(da, pt)
        WG_FENCE();
#pragma unroll
        for (int kk = 0; kk < WQ / 16; kk++)
            WGB_MMA_G(dk, da[kk], WGB_NDESC(qa, kk, WQ), MMA_TY,
                      "1", 1);
        WG_COMMIT();
        WG_WAIT(0);
    }
    MMA_CP_WAIT(0);
    long rowj[2] = {wj + g, wj + g + 8};
#pragma unroll
    for (int x = 0; x < D / 2; x++) {
        int c = (x >> 2) * 8 + 2 * t + (x & 1);
        long j = rowj[(x >> 1) & 1];
        if (nsp > 1) {
            /* the partial sums: [nsp][B * Hkv][S][D] for dK, then dV */
            long pk = ((sp * nbhk + bhk) * S + j) * D + c;
            if (j < S) {
                part[pk] = dk[x];
                part[nsp * nbhk * S * D + pk] = dv[x];
            }
        } else {
            if (j < S && c < E)
                ST(gr, r_o + b * r_0 + hk * r_1 + j * r_2 + c * r_3, dk[x] * scale);
            if (j < S && c < Ev)
                ST(gr2, s_o + b * s_0 + hk * s_1 + j * s_2 + c * s_3, dv[x]);
        }
    }
    WG_BWD_LEAN_UNUSED()
}
#endif /* ATTN_MMA == 5 */
#if ATTN_MMA == 6 /* the wgmma dQ's program (sm_90a, through the PTX route) */
/*
 * attn_bwd_dq_wg: attn_bwd_dq_mma on Hopper's warpgroup products (wgmma;
 * wgmma.clh and wgmma_attn.clh), attn_bwd_dkv_wg's scheme turned around
 * (issue 30, attn12): bfloat16 or float16, head dims 64 and 128, the lean
 * problems only (ATTN_XM 0: no mask, no dropout).  The same arguments as
 * attn_bwd_dq_mma; one work-group (128 items: one warpgroup) per (batch,
 * query head, 64 query rows), query tiles slowest and last first.
 *
 * Warp w holds query rows i0 + 16 w .. + 15: their Q and dO rows as A
 * fragments in registers (loaded once from global memory), their
 * logsumexp (log2 units) and D in registers, dQ (64 rows x D, wgmma's
 * accumulator layout) in registers.  Step s is key tile s (WK keys, from
 * 0 to the last key the block's last row sees): its K and V tiles in
 * __local, double-buffered (cp.async when `vec` bit 0, else element by
 * element; zeros past S, E and Ev), in WGB_OFF's layout: read K-major by
 * S = Q Kᵀ and dP = dO Vᵀ (m64nWKk16, A from registers) and, K, N-major
 * with the transpose bit by dQ += dS K (m64nDk16, dS from registers).
 * S and dP are issued together; P = exp2(S sl2 - lse) on the
 * accumulators once S is done (while dP runs); dS = P o (dP - D) once dP
 * is, rounded to the input type and issued as dQ's A operand (the
 * accumulator fragments are the A fragments); the step ends when that is
 * done.  Masks: attention_vis.clh's ranges per element on the tiles not
 * every row of the warp sees whole (causal diagonal, the last key tile,
 * rows past L: logsumexp -inf, P 0).  No product behind a branch: every
 * warp runs every step.  Each dQ element is summed by one lane in key
 * order: the same bits every run; dQ is scaled at the end.
 */
#ifndef WK
#define WK 32 /* keys per step (from the host: 16, 32, 48 or 64) */
#endif
#define WKT (WK * D) /* 16-bit elements of one K or V tile */
#if (D != 64 && D != 128) || (WK % 16) || WK > 64 || 4 * WKT * 2 > 49152
#error "attn_bwd_dq_wg: head dims 64 or 128, steps of 16 to 64 keys, 48 KiB of __local"
#endif
#if WK == 16
#define WGQ_MMA_S WGA_MMA_N16
#elif WK == 32
#define WGQ_MMA_S WGA_MMA_N32
#elif WK == 48
#define WGQ_MMA_S WGA_MMA_N48
#else
#define WGQ_MMA_S WGA_MMA_N64
#endif
#if D == 64
#define WGQ_MMA_G WGA_MMA_N64
#else
#define WGQ_MMA_G WGA_MMA_N128
#endif
#define WGQ_KOFF(r, c) WGB_OFF(r, c, WK)
/* key tile kt_'s K and V into buffer kt_ & 1 (the caller commits) */
#define WGQ_STEP_LOAD(kt_)                                                                      \
    {                                                                                           \
        __local ushort *kb_ = sm + ((kt_) & 1) * 2 * WKT;                                       \
        long j0_ = (long)(kt_) * WK;                                                            \
        WG_LOAD_TILE(kb_, kp, j0_, S, E, k_2, k_3, WK, WGQ_KOFF, 128)                           \
        WG_LOAD_TILE(kb_ + WKT, vp, j0_, S, Ev, v_2, v_3, WK, WGQ_KOFF, 128)                    \
    }
__kernel __attribute__((reqd_work_group_size(128, 1, 1))) void attn_bwd_dq_wg(ATTN_BWD_ARGS,
                                                                              int vec)
{
    /* gr: dQ (gr2, dsg, wds unused) */
    __local ushort sm[4 * WKT] __attribute__((aligned(1024)));
    const int lid = get_local_id(0), lane = lid & 31, warp = lid >> 5;
    const int g = lane >> 2, t = lane & 3;
    /* query tiles slowest and last first, as attn_bwd_dq_mma */
    long nbh = get_num_groups(0) / ntile, gi = get_group_id(0);
    long qt = ntile - 1 - gi / nbh, bh = gi % nbh;
    long b = bh / Hq, h = bh % Hq, hk = h / G;
    long i0 = qt * 64, w0 = i0 + warp * 16; /* the block's and the warp's first row */
    __global const T *kp = k + k_o + b * k_0 + hk * k_1, *vp = v + v_o + b * v_0 + hk * v_1;
    ATTN_LEAN()
    const float sl2 = scale * M_LOG2E_F;
    long kend = causal ? min(S, i0 + 64 + coff) : S; /* the keys the block's rows see */
    long nkt = kend > 0 ? (kend + WK - 1) / WK : 0;
    if (nkt > 0) {
        WGQ_STEP_LOAD(0)
    }
    MMA_CP_COMMIT();
    uint qa[D / 16][4], oa[D / 16][4];
#pragma unroll
    for (int kk = 0; kk < D / 16; kk++) {
        wg_afrag(qa[kk], (__global const ushort *)(q + q_o + b * q_0 + h * q_1), w0, g, t, kk, L,
                 E, q_2, q_3, vec);
        wg_afrag(oa[kk], (__global const ushort *)(gout + g_o + b * g_0 + h * g_1), w0, g, t, kk,
                 L, Ev, g_2, g_3, vec);
    }
    long rowi[2] = {w0 + g, w0 + g + 8};
    float lrow[2], drow[2];
    for (int rr = 0; rr < 2; rr++) {
        lrow[rr] = rowi[rr] < L ? lse[bh * L + rowi[rr]] * M_LOG2E_F : -INFINITY;
        drow[rr] = rowi[rr] < L ? Dv[bh * L + rowi[rr]] : 0.0f;
    }
    float dq[D / 2];
#pragma unroll
    for (int n = 0; n < D / 2; n++)
        dq[n] = 0.0f;
    const uint sb = mma_saddr(sm);
    for (long kt = 0; kt < nkt; kt++) {
        MMA_CP_WAIT(0);
        WG_PROXY_FENCE();
        barrier(CLK_LOCAL_MEM_FENCE);
        if (kt + 1 < nkt) {
            WGQ_STEP_LOAD(kt + 1)
        }
        MMA_CP_COMMIT();
        long j0 = kt * WK;
        const uint ka = sb + (uint)((kt & 1) * 4 * WKT), va = ka + 2 * WKT;
        float sa[WK / 2], pa[WK / 2]; /* S, dP: rows queries, columns keys */
        WG_FENCE();
#pragma unroll
        for (int kk = 0; kk < D / 16; kk++)
            WGQ_MMA_S(sa, qa[kk], WGB_KDESC(ka, kk, WK), MMA_TY, "0", kk > 0);
        WG_COMMIT();
#pragma unroll
        for (int kk = 0; kk < D / 16; kk++)
            WGQ_MMA_S(pa, oa[kk], WGB_KDESC(va, kk, WK), MMA_TY, "0", kk > 0);
        WG_COMMIT();
        WG_WAIT(1); /* S; dP may still run */
        /* every key of the tile visible to every row of the warp: only the
         * scale (rows past L have logsumexp -inf: P 0) */
        bool plain = j0 + WK <= S && !(causal && j0 + WK - 1 > w0 + coff);
        /* row r's visible keys: 8 (x / 4) + (x & 1) < end[rr] (the lane's
         * 2 t taken off) */
        int end[2];
        for (int rr = 0; rr < 2; rr++)
            end[rr] = attn_vis_end(g + 8 * rr, L - w0, S - j0,
                                   causal ? w0 + coff - j0 : ATTN_VIS_ALL) -
                      2 * t;
#pragma unroll
        for (int x = 0; x < WK / 2; x++) {
            int rr = (x >> 1) & 1, cc = (x >> 2) * 8 + (x & 1);
            float y = plain ? sa[x] * sl2 : (cc < end[rr] ? sa[x] * scale : -INFINITY) * M_LOG2E_F;
            float lv = lrow[rr];
            sa[x] = (lv == -INFINITY || y == -INFINITY) ? 0.0f : native_exp2(y - lv);
        }
        WG_WAIT(0); /* dP */
        uint da[WK / 16][4];
#pragma unroll
        for (int x = 0; x < WK / 2; x++)
            pa[x] = sa[x] * (pa[x] - drow[(x >> 1) & 1]);
#pragma unroll
        for (int kk = 0; kk < WK / 16; kk++)
#pragma unroll
            for (int e = 0; e < 4; e++)
                da[kk][e] = attn_pack(pa[8 * kk + 2 * e], pa[8 * kk + 2 * e + 1]);
        WG_FENCE();
#pragma unroll
        for (int kk = 0; kk < WK / 16; kk++)
            WGQ_MMA_G(dq, da[kk], WGB_NDESC(ka, kk, WK), MMA_TY, "1", 1);
        WG_COMMIT();
        WG_WAIT(0);
    }
    MMA_CP_WAIT(0);
#pragma unroll
    for (int x = 0; x < D / 2; x++) {
        int c = (x >> 2) * 8 + 2 * t + (x & 1);
        long i = rowi[(x >> 1) & 1];
        if (i < L && c < E)
            ST(gr, r_o + b * r_0 + h * r_1 + i * r_2 + c * r_3, dq[x] * scale);
    }
    (void)gr2;
    (void)s_o;
    (void)s_0;
    (void)s_1;
    (void)s_2;
    (void)s_3;
    WG_BWD_LEAN_UNUSED()
}
#endif /* ATTN_MMA == 6 */
#if ATTN_MMA == 7 /* the float32 forward's program (mma.sync tf32, 3xTF32) */
/*
 * attn_fwd_tf32 (attn14): the float32 forward on the tensor cores, as
 * PyTorch's own float32 SDPA on sm80+ runs (the memory-efficient kernel,
 * whose products are CUTLASS's OpMultiplyAddFastF32: 3xTF32 on
 * mma.sync m16n8k8).  Each operand x is split as hi = tf32(x), lo =
 * tf32(x - hi) (cvt.rna: ref/tf32_split.clh's split) and a product is
 * lo·hi + hi·lo + hi·hi, accumulated in float32: about float32's
 * accuracy (the lo·lo term, < 2^-22 relative, is dropped).
 * The FlashAttention-2 structure of attn_fwd_mma, lean problems only
 * (ATTN_XM 0: no mask, no dropout; causal or not): TW warps of 16 query
 * rows (the host's default 4: 64 rows), their query fragments read from
 * global memory once (the tile would not fit __local beside the key/value
 * tiles in float32) and kept split in registers (TQPRE 1) or as floats
 * split at each use (TQPRE 0, head dim 128: registers); key/value tiles of
 * TBK rows in __local, double-buffered through cp.async (16-byte copies,
 * zero-filled) when every view allows it (`vec` & 1), rows padded by 4
 * floats (16-byte aligned, conflict-free for the fragment loads below).
 * S = Q Kᵀ: B fragments K[j0 + g][kk + t], K[j0 + g][kk + t + 4].  P V
 * without shuffles: in P's accumulator layout a lane holds keys 2t and
 * 2t + 1 of each 8-key block, so the product's k index t stands for key
 * 2t and t + 4 for key 2t + 1 (A = {c0, c2, c1, c3}), and V's B fragment
 * reads rows 2t and 2t + 1 to match.  The online softmax is
 * attn_fwd_mma's (log2 units, ex2.approx, the scale folded into the
 * exponent on unmasked tiles, lse saved).
 */
#ifndef TW
#define TW 4
#endif
#ifndef TBK
#define TBK (D <= 64 ? 32 : 16)
#endif
#ifndef TQPRE
#define TQPRE (D <= 64)
#endif
/* TPROMO (from the host, CLOPS_ATTN_TF32_PROMOTE): where the three
 * products' running sums leave the tensor cores, whose float32
 * accumulation rounds toward zero (attn14's job: the errors all short in
 * magnitude; docs/gemm.md's 3xTF32 promotion found the same).  0: never (S
 * over the head dim and O over every key in the accumulators); 1
 * (attn14's): every 8-wide k step of both into a fresh accumulator added
 * in float32; 2 (attn15's): O by key tile: each tile's P V into zeroed
 * accumulators, O = al O + tile by fma (O never crosses tiles in the
 * tensor cores; the rescale is the fma); 3: 2 and S's k steps as 1. */
#ifndef TPROMO
#define TPROMO 0
#endif
#define TNT (TW * 32)
#define TBQ (TW * 16)
#define TDS (D + 4)
#define TNB (D / 8)
#if 4 * TBK * TDS * 4 > 49152 || TBK % 8 || (D != 64 && D != 128) || TPROMO < 0 || TPROMO > 3
#error "attn_fwd_tf32: the key/value tiles do not fit 48 KiB, or a head dim or TPROMO it does not take"
#endif

/* x as hi (tf32(x)) and lo (tf32(x - hi)), the bits of two TF32 values. */
static inline void attn_t3(float x, uint *hi, uint *lo)
{
    uint h, l;
    asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(h) : "f"(x));
    asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(l) : "f"(x - as_float(h)));
    *hi = h;
    *lo = l;
}

/* d += a b in 3xTF32: a and b split (ah, al, bh, bl), the small products first. */
#define ATTN_T3_MMA(d, ah, al, bh, bl)                                                          \
    MMA_M16N8K8_TF32(d, al, bh);                                                                \
    MMA_M16N8K8_TF32(d, ah, bl);                                                                \
    MMA_M16N8K8_TF32(d, ah, bh)
/* d += a b, the products into a fresh accumulator added in float32 */
#define ATTN_T3_PROMO(d, ah, al, bh, bl)                                                        \
    {                                                                                           \
        float z_[4] = {0.0f, 0.0f, 0.0f, 0.0f};                                                 \
        ATTN_T3_MMA(z_, ah, al, bh, bl);                                                        \
        (d)[0] += z_[0];                                                                        \
        (d)[1] += z_[1];                                                                        \
        (d)[2] += z_[2];                                                                        \
        (d)[3] += z_[3];                                                                        \
    }
#if TPROMO & 1
#define ATTN_T3_ACC(d, ah, al, bh, bl) ATTN_T3_PROMO(d, ah, al, bh, bl)
#else
#define ATTN_T3_ACC(d, ah, al, bh, bl) ATTN_T3_MMA(d, ah, al, bh, bl)
#endif

/* rows [r0, r0 + R) of a [rows, cols] float32 view into dst[R * TDS]:
 * by cp.async when vec & 1 (committed by the caller), else element by
 * element; zero past rows and cols. */
#define ATTN_LOAD_F32(dst, R, p, r_0, rows, cols, sr, sc)                                       \
    ATTN_LOAD_ROWS(float, 4, TDS, dst, R, p, r_0, rows, cols, sr, sc, TNT)

__kernel __attribute__((reqd_work_group_size(TNT, 1, 1))) void attn_fwd_tf32(ATTN_FWD_ARGS,
                                                                             int vec)
{
    __local float sm[4 * TBK * TDS] __attribute__((aligned(16)));
    const int lid = get_local_id(0), lane = lid & 31, warp = lid >> 5;
    const int g = lane >> 2, t = lane & 3;
    ATTN_FWD_TILES(TBQ, TBK)
    if (ntile > 0) {
        ATTN_LOAD_F32(sm, TBK, k, 0, S, E, k_2, k_3)
        ATTN_LOAD_F32(sm + TBK * TDS, TBK, v, 0, S, Ev, v_2, v_3)
        MMA_CP_COMMIT();
    }
    long w0 = i0 + warp * 16; /* the warp's first query row */
    /* the query fragments (A of m16n8k8: rows g, g + 8, columns t, t + 4
     * of each 8-column step) from global memory */
#if TQPRE
    uint qh[TNB][4], ql[TNB][4];
#else
    float qf[TNB][4];
#endif
#pragma unroll
    for (int kk = 0; kk < TNB; kk++)
#pragma unroll
        for (int e = 0; e < 4; e++) {
            long i = w0 + g + (e & 1) * 8;
            int c = kk * 8 + t + (e >> 1) * 4;
            float x = i < L && c < E ? LD(q, i * q_2 + c * q_3) : 0.0f;
#if TQPRE
            attn_t3(x, &qh[kk][e], &ql[kk][e]);
#else
            qf[kk][e] = x;
#endif
        }
    float oa[TNB][4];
#pragma unroll
    for (int n = 0; n < TNB; n++)
        oa[n][0] = oa[n][1] = oa[n][2] = oa[n][3] = 0.0f;
    float mr[2] = {-INFINITY, -INFINITY}, lsum[2] = {0.0f, 0.0f};
    long wlast = causal ? w0 + 15 + coff : S;
    long wfull = causal ? w0 + coff : S;
    for (int jt = 0; jt < ntile; jt++) {
        long j0 = (long)jt * TBK;
        /* one barrier per tile (attn_fwd_mma's scheme): tile jt landed,
         * tile jt - 1's buffer takes tile jt + 1 */
        MMA_CP_WAIT(0);
        barrier(CLK_LOCAL_MEM_FENCE);
        __local float *ks = sm + (jt & 1) * 2 * TBK * TDS, *vs = ks + TBK * TDS;
        if (jt + 1 < ntile) {
            __local float *kn = sm + ((jt + 1) & 1) * 2 * TBK * TDS;
            ATTN_LOAD_F32(kn, TBK, k, j0 + TBK, S, E, k_2, k_3)
            ATTN_LOAD_F32(kn + TBK * TDS, TBK, v, j0 + TBK, S, Ev, v_2, v_3)
            MMA_CP_COMMIT();
        }
        if (j0 > wlast)
            continue;
        /* S in the accumulators' layout: s[4 n + e] is element e of the
         * 8-key block n (ATTN_SOFTMAX's) */
        float s[TBK / 2], al[2];
#pragma unroll
        for (int n = 0; n < TBK / 2; n++)
            s[n] = 0.0f;
#pragma unroll
        for (int kk = 0; kk < TNB; kk++) {
            uint ah[4], al_[4];
#pragma unroll
            for (int e = 0; e < 4; e++) {
#if TQPRE
                ah[e] = qh[kk][e];
                al_[e] = ql[kk][e];
#else
                attn_t3(qf[kk][e], &ah[e], &al_[e]);
#endif
            }
#pragma unroll
            for (int n = 0; n < TBK / 8; n++) {
                uint bh[2], bl[2];
                __local const float *kr = ks + (n * 8 + g) * TDS + kk * 8 + t;
                attn_t3(kr[0], &bh[0], &bl[0]);
                attn_t3(kr[4], &bh[1], &bl[1]);
                ATTN_T3_ACC(s + 4 * n, ah, al_, bh, bl);
            }
        }
        ATTN_SOFTMAX(jt, TBK)
#if TPROMO >= 2
        /* O = al O + P V, the tile's products in zeroed accumulators: P
         * split once (k index t is key 2t, t + 4 key 2t + 1, above), then
         * each 8-column block of O over the tile's keys */
        uint ph[TBK / 8][4], pl[TBK / 8][4];
#pragma unroll
        for (int kk = 0; kk < TBK / 8; kk++) {
            attn_t3(s[4 * kk], &ph[kk][0], &pl[kk][0]);
            attn_t3(s[4 * kk + 2], &ph[kk][1], &pl[kk][1]);
            attn_t3(s[4 * kk + 1], &ph[kk][2], &pl[kk][2]);
            attn_t3(s[4 * kk + 3], &ph[kk][3], &pl[kk][3]);
        }
#pragma unroll
        for (int n = 0; n < TNB; n++) {
            float z[4] = {0.0f, 0.0f, 0.0f, 0.0f};
#pragma unroll
            for (int kk = 0; kk < TBK / 8; kk++) {
                uint bh[2], bl[2];
                __local const float *vr = vs + (kk * 8 + 2 * t) * TDS + g + n * 8;
                attn_t3(vr[0], &bh[0], &bl[0]);
                attn_t3(vr[TDS], &bh[1], &bl[1]);
                ATTN_T3_MMA(z, ph[kk], pl[kk], bh, bl);
            }
            oa[n][0] = fma(oa[n][0], al[0], z[0]);
            oa[n][1] = fma(oa[n][1], al[0], z[1]);
            oa[n][2] = fma(oa[n][2], al[1], z[2]);
            oa[n][3] = fma(oa[n][3], al[1], z[3]);
        }
#else
#pragma unroll
        for (int n = 0; n < TNB; n++) {
            oa[n][0] *= al[0];
            oa[n][1] *= al[0];
            oa[n][2] *= al[1];
            oa[n][3] *= al[1];
        }
        /* O += P V: k index t is key 2t, t + 4 key 2t + 1 (above) */
#pragma unroll
        for (int kk = 0; kk < TBK / 8; kk++) {
            uint ph[4], pl[4];
            attn_t3(s[4 * kk], &ph[0], &pl[0]);
            attn_t3(s[4 * kk + 2], &ph[1], &pl[1]);
            attn_t3(s[4 * kk + 1], &ph[2], &pl[2]);
            attn_t3(s[4 * kk + 3], &ph[3], &pl[3]);
            __local const float *vr = vs + (kk * 8 + 2 * t) * TDS + g;
#pragma unroll
            for (int n = 0; n < TNB; n++) {
                uint bh[2], bl[2];
                attn_t3(vr[n * 8], &bh[0], &bl[0]);
                attn_t3(vr[TDS + n * 8], &bh[1], &bl[1]);
                ATTN_T3_ACC(oa[n], ph, pl, bh, bl);
            }
        }
#endif
    }
#pragma unroll
    for (int rr = 0; rr < 2; rr++) {
        long i = w0 + g + rr * 8;
        float l = lsum[rr], il = l == 0.0f ? 0.0f : 1.0f / l;
        if (i < L) {
#pragma unroll
            for (int n = 0; n < TNB; n++) {
                int c = n * 8 + 2 * t;
                if (c < Ev)
                    ST(o, i * o_2 + c * o_3, oa[n][2 * rr] * il);
                if (c + 1 < Ev)
                    ST(o, i * o_2 + (c + 1) * o_3, oa[n][2 * rr + 1] * il);
            }
            ATTN_LSE(i, mr[rr], l)
        }
    }
    ATTN_FWD_UNUSED()
}
#endif /* ATTN_MMA == 7 */
#endif /* ATTN_MMA */
