/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cl_kernels/scan.cl: inclusive scans along one dimension (cumsum, cumprod,
 * cummax/cummin with indices, logcumsumexp) by reduce-then-scan.
 *
 * The host (ops/scan/scan.c) views the tensor as lines: line l = (o, i) with
 * o < outer, i < inner, element k of a line at offset + o*s_o + k*s_n +
 * i*s_i.  It prepends pw_prelude.clh and these defines:
 *   T_IN, T_OUT      storage types of input and output
 *   ACC              compute type (float for float16/bfloat16)
 *   LOAD(p, k)       element k of p as ACC;  STORE(p, k, v)
 *   IDENT            identity of the combine
 *   COMBINE(a, b)    a (earlier) combined with b (later); SCAN_IDX ops
 *                    combine (value, index) pairs with PICK_LATER(a, b)
 *   WG, VT           work-group size of scan_rows and values per item
 *
 * Three kernels, three phases (only barriers inside a work-group, separate
 * launches between phases; nothing waits on another work-group):
 *   scan_rows  one work-group per (line, block) of consecutive tiles of
 *              WG*VT elements, staged coalesced through local memory.
 *              mode 0 reduces the block into sums[line*nblk + blk]; mode 1
 *              scans the block starting from the exclusive prefix in sums
 *              (or IDENT when nblk == 1) and writes it.
 *   scan_cols  one work-item per (line, chunk of the dim), consecutive items
 *              on consecutive lines (coalesced when lines are adjacent in
 *              memory); the same two modes.
 *   scan_sums  one work-item per line: exclusive scan of its nblk sums.
 * With one block (or chunk) per line only mode 1 runs: one launch.
 * Combination order is fixed by the tile sizes, so results are bitwise
 * reproducible.
 */

#if SCAN_IDX
#define DECL_IDX(x, init) long x = (init)
#else
#define DECL_IDX(x, init)
#endif

#if SCAN_IDX
/* (av, ai) <- combine((av, ai), (bv, bi)): the later pair wins ties and NaN. */
#define COMBINE_P(av, ai, bv, bi)                                                          \
    do {                                                                                   \
        if (PICK_LATER(av, bv)) {                                                          \
            av = (bv);                                                                     \
            ai = (bi);                                                                     \
        }                                                                                  \
    } while (0)
#else
#define COMBINE_P(av, ai, bv, bi) av = COMBINE(av, bv)
#endif

/* Pointer to line `line`'s element 0 (offset in elements). */
#define LINE_BASE(off, line, inner, s_o, s_i) ((off) + ((line) / (inner)) * (s_o) + ((line) % (inner)) * (s_i))

__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void
scan_rows(__global const T_IN *src, long soff, long s_o, long s_n, long s_i, __global T_OUT *dst,
          long doff, long d_o, long d_n, long d_i, __global long *idx, long xoff, long n,
          long inner, long tpb, long nblk, int mode, __global ACC *sums, __global long *sidx)
{
    __local ACC lv[WG * VT];
    __local ACC wv[WG];
#if SCAN_IDX
    __local long li[WG * VT];
    __local long wi[WG];
#endif
    const int lid = (int)get_local_id(0);
    const long g = (long)get_group_id(0);
    const long line = g / nblk, blk = g % nblk;
    const long sbase = LINE_BASE(soff, line, inner, s_o, s_i);
    const long dbase = LINE_BASE(doff, line, inner, d_o, d_i);
    const long xbase = LINE_BASE(xoff, line, inner, d_o, d_i);

    ACC carry = IDENT;
    DECL_IDX(carry_i, -1);
    if (mode == 1 && nblk > 1) {
        carry = sums[line * nblk + blk];
#if SCAN_IDX
        carry_i = sidx[line * nblk + blk];
#endif
    }
    const long tile = (long)WG * VT;
    long t0 = blk * tpb, t1 = t0 + tpb;
    const long ntiles = (n + tile - 1) / tile;
    if (t1 > ntiles)
        t1 = ntiles;
    for (long t = t0; t < t1; t++) {
        const long base = t * tile;
        /* Coalesced load into local memory; padding gets the identity. */
        for (int j = 0; j < VT; j++) {
            long k = base + (long)j * WG + lid;
            lv[j * WG + lid] = k < n ? LOAD(src, sbase + k * s_n) : IDENT;
#if SCAN_IDX
            li[j * WG + lid] = k;
#endif
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        /* Each item scans its VT consecutive values. */
        ACC a = lv[lid * VT];
        DECL_IDX(ai, 0);
#if SCAN_IDX
        ai = li[lid * VT];
#endif
        for (int j = 1; j < VT; j++) {
            COMBINE_P(a, ai, lv[lid * VT + j], li[lid * VT + j]);
            if (mode == 1) {
                lv[lid * VT + j] = a;
#if SCAN_IDX
                li[lid * VT + j] = ai;
#endif
            }
        }
        wv[lid] = a;
#if SCAN_IDX
        wi[lid] = ai;
#endif
        barrier(CLK_LOCAL_MEM_FENCE);
        /* Inclusive scan of the item totals (Hillis-Steele). */
        for (int off = 1; off < WG; off <<= 1) {
            ACC x = IDENT;
            DECL_IDX(xi, -1);
            if (lid >= off) {
                x = wv[lid - off];
#if SCAN_IDX
                xi = wi[lid - off];
#endif
            }
            barrier(CLK_LOCAL_MEM_FENCE);
            if (lid >= off) {
                COMBINE_P(x, xi, wv[lid], wi[lid]);
                wv[lid] = x;
#if SCAN_IDX
                wi[lid] = xi;
#endif
            }
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        if (mode == 1) {
            /* Prefix of this item = carry + totals of the items before it. */
            ACC p = carry;
            DECL_IDX(pi, carry_i);
            if (lid > 0)
                COMBINE_P(p, pi, wv[lid - 1], wi[lid - 1]);
            for (int j = 0; j < VT; j++) {
                ACC v = p;
                DECL_IDX(vi, pi);
                COMBINE_P(v, vi, lv[lid * VT + j], li[lid * VT + j]);
                lv[lid * VT + j] = v;
#if SCAN_IDX
                li[lid * VT + j] = vi;
#endif
            }
        }
        COMBINE_P(carry, carry_i, wv[WG - 1], wi[WG - 1]);
        barrier(CLK_LOCAL_MEM_FENCE);
        if (mode == 1) {
            for (int j = 0; j < VT; j++) {
                long k = base + (long)j * WG + lid;
                if (k < n) {
                    STORE(dst, dbase + k * d_n, lv[j * WG + lid]);
#if SCAN_IDX
                    idx[xbase + k * d_n] = li[j * WG + lid];
#endif
                }
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (mode == 0 && lid == 0) {
        sums[line * nblk + blk] = carry;
#if SCAN_IDX
        sidx[line * nblk + blk] = carry_i;
#endif
    }
}

__kernel void scan_cols(__global const T_IN *src, long soff, long s_o, long s_n, long s_i,
                        __global T_OUT *dst, long doff, long d_o, long d_n, long d_i,
                        __global long *idx, long xoff, long n, long inner, long lines, long chunk,
                        long nblk, int mode, __global ACC *sums, __global long *sidx)
{
    const long g = (long)get_global_id(0);
    if (g >= lines * nblk)
        return;
    const long line = g % lines, blk = g / lines;
    const long sbase = LINE_BASE(soff, line, inner, s_o, s_i);
    const long dbase = LINE_BASE(doff, line, inner, d_o, d_i);
    const long xbase = LINE_BASE(xoff, line, inner, d_o, d_i);
    ACC carry = IDENT;
    DECL_IDX(carry_i, -1);
    if (mode == 1 && nblk > 1) {
        carry = sums[line * nblk + blk];
#if SCAN_IDX
        carry_i = sidx[line * nblk + blk];
#endif
    }
    long k0 = blk * chunk, k1 = k0 + chunk;
    if (k1 > n)
        k1 = n;
    for (long k = k0; k < k1; k++) {
        ACC v = LOAD(src, sbase + k * s_n);
        COMBINE_P(carry, carry_i, v, k);
        if (mode == 1) {
            STORE(dst, dbase + k * d_n, carry);
#if SCAN_IDX
            idx[xbase + k * d_n] = carry_i;
#endif
        }
    }
    if (mode == 0) {
        sums[line * nblk + blk] = carry;
#if SCAN_IDX
        sidx[line * nblk + blk] = carry_i;
#endif
    }
}

__kernel void scan_sums(__global ACC *sums, __global long *sidx, long lines, long nblk)
{
    const long line = (long)get_global_id(0);
    if (line >= lines)
        return;
    ACC carry = IDENT;
    DECL_IDX(carry_i, -1);
    for (long b = 0; b < nblk; b++) {
        ACC v = sums[line * nblk + b];
        DECL_IDX(vi, 0);
#if SCAN_IDX
        vi = sidx[line * nblk + b];
        sidx[line * nblk + b] = carry_i;
#endif
        sums[line * nblk + b] = carry;
        COMBINE_P(carry, carry_i, v, vi);
    }
}

#if defined(SCAN_CPU) && !SCAN_IDX
/*
 * CPU devices (ops/scan/scan.c, KIT_CPU), lines adjacent in memory (a
 * column scan of a row-major matrix): scan_cols's lanes (line, chunk),
 * numbered q = blk * lines + line as scan_cols numbers its items, SCAN_SL
 * of them per work item, walked side by side.  Each lane folds its chunk in
 * the same order from the same start as scan_cols (same bits).  Where the
 * SCAN_SL lanes are adjacent lines of one chunk one after another in memory
 * a step reads and writes them as one run (SCAN_V16: one 16-wide vector of
 * float or double sums/products; other dtypes and kinds as 16 scalars);
 * an item whose lanes straddle an outer index or a chunk boundary walks
 * them one by one per step.  scan_cols walked one line per item down a
 * column, a cache line per element, one serial chain at a time.
 */
#define SCAN_SL 16

/* scan_cols's arguments, which the CPU kernels take too. */
#define SCAN_CPU_ARGS                                                                            \
    __global const T_IN *src, long soff, long s_o, long s_n, long s_i, __global T_OUT *dst,      \
        long doff, long d_o, long d_n, long d_i, __global long *idx, long xoff, long n,          \
        long inner, long lines, long chunk, long nblk, int mode, __global ACC *sums,             \
        __global long *sidx

/* A CPU kernel's first lane q0 (LANES lanes per work item, numbered as
 * scan_cols numbers its items) and its number of lanes ql; items past
 * the last lane return. */
#define SCAN_CPU_ITEM(LANES)                                                                     \
    (void)idx;                                                                                   \
    (void)xoff;                                                                                  \
    (void)sidx;                                                                                  \
    const long q0 = (long)get_global_id(0) * (LANES), nq = lines * nblk;                         \
    if (q0 >= nq)                                                                                \
        return;                                                                                  \
    const int ql = (int)min((long)(LANES), nq - q0);

/* mode 0: each lane's total into sums, where scan_cols puts it. */
#define SCAN_CPU_SUMS_OUT                                                                        \
    if (mode == 0)                                                                               \
        for (int j = 0; j < ql; j++) {                                                           \
            const long q = q0 + j;                                                               \
            sums[(q % lines) * nblk + q / lines] = carry[j];                                     \
        }

__kernel void scan_cols_cpu(SCAN_CPU_ARGS)
{
    SCAN_CPU_ITEM(SCAN_SL)
    long sb[SCAN_SL], db[SCAN_SL], kb[SCAN_SL], ke[SCAN_SL];
    ACC carry[SCAN_SL];
    bool run = ql == SCAN_SL;
    for (int j = 0; j < SCAN_SL; j++) {
        const long q = q0 + (j < ql ? j : 0), line = q % lines, blk = q / lines;
        sb[j] = LINE_BASE(soff, line, inner, s_o, s_i);
        db[j] = LINE_BASE(doff, line, inner, d_o, d_i);
        kb[j] = blk * chunk;
        ke[j] = j < ql ? min(kb[j] + chunk, n) : kb[j];
        carry[j] = mode == 1 && nblk > 1 ? sums[line * nblk + blk] : IDENT;
        run = run && kb[j] == kb[0] && sb[j] == sb[0] + j && db[j] == db[0] + j;
    }
    long steps = 0;
    for (int j = 0; j < SCAN_SL; j++)
        steps = max(steps, ke[j] - kb[j]);
#ifdef SCAN_V16
    if (run) {
        /* SCAN_SL adjacent lines, the same chunk: one vector per step. */
        SCAN_V16 c = vload16(0, carry);
        __global const T_IN *ps = src + sb[0] + kb[0] * s_n;
        __global T_OUT *pd = dst + db[0] + kb[0] * d_n;
        for (long k = 0; k < steps; k++) {
            c = COMBINE(c, vload16(0, ps + k * s_n));
            if (mode == 1)
                vstore16(c, 0, pd + k * d_n);
        }
        vstore16(c, 0, carry);
    } else
#endif
    {
        (void)run;
        for (long k = 0; k < steps; k++) {
            for (int j = 0; j < SCAN_SL; j++) {
                const long kk = kb[j] + k;
                if (kk < ke[j]) {
                    carry[j] = COMBINE(carry[j], LOAD(src, sb[j] + kk * s_n));
                    if (mode == 1)
                        STORE(dst, db[j] + kk * d_n, carry[j]);
                }
            }
        }
    }
    SCAN_CPU_SUMS_OUT
}
#endif

#if defined(SCAN_CPU) && !SCAN_IDX
/*
 * CPU devices (ops/scan/scan.c, KIT_CPU), lines apart in memory (rows of a
 * row-major matrix, a 1-D tensor's chunks): scan_cols's lanes (line,
 * chunk), numbered as there, SCAN_CL per work item, walked side by side as
 * SCAN_CL independent scalar chains (each lane folded in the same order
 * from the same start as scan_cols: same bits).  scan_cols ran one serial
 * chain per item: every element waited for the previous add (perf on the
 * dev VM: the add's latency took the whole loop in both the chunk-sum pass
 * and the scan pass of cumsum 1-D); here the SCAN_CL chains overlap, one
 * load, combine and store per lane per step.  Four lanes, not eight: the
 * lanes' streams lie a power of two apart (a 1-D scan's 64 KiB chunks,
 * the 8 KiB rows of [2048, 2048]), so eight loads and eight stores a step
 * fell in one L1 set and thrashed (measured 3x slower than scan_cols).
 */
#define SCAN_CL 4
#define SCAN_CL_EACH(F) F(0) F(1) F(2) F(3)
#define SCAN_CL_DECL(j)                                                                          \
    __global const T_IN *ps##j = ps[j];                                                          \
    __global T_OUT *pd##j = pd[j];                                                               \
    ACC c##j = carry[j];
#define SCAN_CL_STEP0(j) c##j = COMBINE(c##j, LOAD(ps##j, k0 * s_n));
#define SCAN_CL_STEP1(j)                                                                         \
    c##j = COMBINE(c##j, LOAD(ps##j, k0 * s_n));                                                 \
    STORE(pd##j, k0 * d_n, c##j);
#define SCAN_CL_BACK(j) carry[j] = c##j;

__kernel void scan_chains_cpu(SCAN_CPU_ARGS)
{
    SCAN_CPU_ITEM(SCAN_CL)
    __global const T_IN *ps[SCAN_CL];
    __global T_OUT *pd[SCAN_CL];
    long len[SCAN_CL];
    ACC carry[SCAN_CL];
    long common = chunk;
    for (int j = 0; j < SCAN_CL; j++) {
        const long q = q0 + (j < ql ? j : 0), line = q % lines, blk = q / lines;
        const long kb = blk * chunk;
        ps[j] = src + LINE_BASE(soff, line, inner, s_o, s_i) + kb * s_n;
        pd[j] = dst + LINE_BASE(doff, line, inner, d_o, d_i) + kb * d_n;
        len[j] = j < ql ? min(chunk, n - kb) : 0;
        carry[j] = mode == 1 && nblk > 1 && j < ql ? sums[line * nblk + blk] : IDENT;
        common = min(common, len[j]);
    }
    long k0 = 0;
    if (ql == SCAN_CL) {
        /* the lanes as named scalars: POCL's CPU target gives private and
         * global memory one address space, so arrays here would be
         * reloaded after every store to dst (measured 7x slower) */
        SCAN_CL_EACH(SCAN_CL_DECL)
        if (mode == 1) {
            for (; k0 < common; k0++) {
                SCAN_CL_EACH(SCAN_CL_STEP1)
            }
        } else {
            for (; k0 < common; k0++) {
                SCAN_CL_EACH(SCAN_CL_STEP0)
            }
        }
        SCAN_CL_EACH(SCAN_CL_BACK)
    }
    for (int j = 0; j < ql; j++) {
        ACC cj = carry[j];
        for (long k = k0; k < len[j]; k++) {
            cj = COMBINE(cj, LOAD(ps[j], k * s_n));
            if (mode == 1)
                STORE(pd[j], k * d_n, cj);
        }
        carry[j] = cj;
    }
    SCAN_CPU_SUMS_OUT
}
#endif

#if defined(SCAN_CPU) && defined(SCAN_V8) && !SCAN_IDX
/*
 * CPU devices (ops/scan/scan.c, KIT_CPU), each line contiguous in memory
 * (rows of a row-major matrix, a 1-D tensor's chunks): scan_cols's lanes
 * (line, chunk), numbered as there, 8 per work item, each lane folded in
 * the same order from the same start (same bits).  Every 8 steps the 8
 * lanes' next 8 elements are read as 8 vectors (one per lane, contiguous),
 * transposed in registers (scan_t8: lane j of vector k = lane j's element
 * k), combined as 8 vector steps (8 independent chains at once, where
 * scan_cols ran one serial chain per item), transposed back and stored as
 * 8 vectors; the lanes' remainders one element at a time.  The host takes
 * it for logsumexp (exp and log1p per element: 8 lanes per vector);
 * memory-bound sums and products keep scan_cols, cummax/cummin and the
 * 16-bit floats too.  The host defines SCAN_V8 (float8
 * or double8), SCAN_M8 (a uint8 shuffle mask as SCAN_V8's mask type) and
 * COMBINE8 (COMBINE on SCAN_V8 lanes).
 */
inline void scan_t8(SCAN_V8 *r)
{
    SCAN_V8 a[8], b[8];
    const uint8 ev = (uint8)(0, 8, 2, 10, 4, 12, 6, 14), od = (uint8)(1, 9, 3, 11, 5, 13, 7, 15);
    const uint8 lo2 = (uint8)(0, 1, 8, 9, 4, 5, 12, 13), hi2 = (uint8)(2, 3, 10, 11, 6, 7, 14, 15);
    const uint8 lo4 = (uint8)(0, 1, 2, 3, 8, 9, 10, 11), hi4 = (uint8)(4, 5, 6, 7, 12, 13, 14, 15);
    for (int i = 0; i < 8; i += 2) {
        a[i] = shuffle2(r[i], r[i + 1], SCAN_M8(ev));
        a[i + 1] = shuffle2(r[i], r[i + 1], SCAN_M8(od));
    }
    for (int i = 0; i < 8; i += 4)
        for (int j = 0; j < 2; j++) {
            b[i + j] = shuffle2(a[i + j], a[i + j + 2], SCAN_M8(lo2));
            b[i + j + 2] = shuffle2(a[i + j], a[i + j + 2], SCAN_M8(hi2));
        }
    /* b[0..3] hold columns (0,4) (1,5) (2,6) (3,7) of rows 0-3, b[4..7] of rows 4-7 */
    for (int j = 0; j < 4; j++) {
        r[j] = shuffle2(b[j], b[j + 4], SCAN_M8(lo4));
        r[j + 4] = shuffle2(b[j], b[j + 4], SCAN_M8(hi4));
    }
}

__kernel void scan_lines_cpu(SCAN_CPU_ARGS)
{
    (void)s_n;
    (void)d_n;
    SCAN_CPU_ITEM(8)
    long sb[8], db[8], len[8];
    ACC carry[8];
    long common = chunk;
    for (int j = 0; j < 8; j++) {
        const long q = q0 + (j < ql ? j : 0), line = q % lines, blk = q / lines;
        const long kb = blk * chunk;
        sb[j] = LINE_BASE(soff, line, inner, s_o, s_i) + kb;
        db[j] = LINE_BASE(doff, line, inner, d_o, d_i) + kb;
        len[j] = j < ql ? min(chunk, n - kb) : 0;
        carry[j] = mode == 1 && nblk > 1 && j < ql ? sums[line * nblk + blk] : IDENT;
        common = min(common, len[j]);
    }
    long k0 = 0;
    if (ql == 8) {
        SCAN_V8 c = vload8(0, carry), t[8];
        for (; k0 + 8 <= common; k0 += 8) {
            for (int j = 0; j < 8; j++)
                t[j] = vload8(0, src + sb[j] + k0);
            scan_t8(t);
            for (int k = 0; k < 8; k++) {
                c = COMBINE8(c, t[k]);
                t[k] = c;
            }
            if (mode == 1) {
                scan_t8(t);
                for (int j = 0; j < 8; j++)
                    vstore8(t[j], 0, dst + db[j] + k0);
            }
        }
        vstore8(c, 0, carry);
    }
    for (int j = 0; j < ql; j++) {
        ACC cj = carry[j];
        for (long k = k0; k < len[j]; k++) {
            cj = COMBINE(cj, LOAD(src, sb[j] + k));
            if (mode == 1)
                STORE(dst, db[j] + k, cj);
        }
        carry[j] = cj;
    }
    SCAN_CPU_SUMS_OUT
}
#endif
