/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cl_kernels/sort.cl: stable sort of every line of a tensor along one dim
 * (sort, argsort, msort, topk, kthvalue build on it), by bitonic sorts in
 * local memory and, for lines longer than one block, merge passes.
 *
 * Every element becomes a pair (key, position): the key is an unsigned
 * integer whose order is PyTorch's order of the values (NaN after +inf,
 * -0.0 equal to +0.0; all ones-complemented for descending, which puts NaN
 * first), the position is the element's index in its line.  Pairs compare
 * by key, then position, so the order is total: the result is the stable
 * sort, the same on every device and every run.
 *
 * The host (ops/sort/sort.c) prepends pw_prelude.clh and defines T (storage
 * type), KEY (uint or ulong), TOKEY(v) (storage value -> ascending key),
 * WG (work-group size), LMAX (block length, a power of two) and POS, the
 * type of a position in its line, with POS_MAX: int, or long for lines of
 * more than 2^31-1 elements (issue 33; a program of its own).
 *
 *   sort_block   one work-group per (line, block of LMAX elements): loads
 *                the block's pairs, bitonic-sorts them in local memory;
 *                with one block per line it writes the results (values
 *                gathered from the input, and indices), else the pairs.
 *   sort_merge   one work-item per element: merges runs of width w into
 *                runs of 2w.  An element's output position is its rank in
 *                its own run plus the number of elements of the partner run
 *                that precede it (binary search), which needs no other
 *                work-item's result.
 *   sort_write   one work-item per element: values and indices from pairs.
 */

#define LINE_BASE(off, line, inner, s_o, s_i)                                              \
    ((off) + ((line) / (inner)) * (s_o) + ((line) % (inner)) * (s_i))

/* The key of element k of a line (ascending or descending). */
#define LOAD_KEY(src, base, k, s_n, desc) ((desc) ? ~TOKEY((src)[(base) + (k) * (s_n)]) : TOKEY((src)[(base) + (k) * (s_n)]))

/* Canonical float keys: NaN largest, both zeros equal. */
uint sort_key_f32(uint u)
{
    if ((u & 0x7fffffffu) > 0x7f800000u)
        return 0xffffffffu;
    if ((u & 0x7fffffffu) == 0)
        u = 0;
    return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
}

uint sort_key_f16(uint h, uint expmask)
{
    if ((h & 0x7fffu) > expmask)
        return 0xffffu;
    if ((h & 0x7fffu) == 0)
        h = 0;
    return (h & 0x8000u) ? (~h & 0xffffu) : (h | 0x8000u);
}

#ifdef CLOPS_HAS_FP64
ulong sort_key_f64(ulong u)
{
    if ((u & 0x7fffffffffffffffUL) > 0x7ff0000000000000UL)
        return 0xffffffffffffffffUL;
    if ((u & 0x7fffffffffffffffUL) == 0)
        u = 0;
    return (u & 0x8000000000000000UL) ? ~u : (u | 0x8000000000000000UL);
}
#endif

/* Whether pair a comes after pair b. */
#define PAIR_GT(ka, ia, kb, ib) ((ka) > (kb) || ((ka) == (kb) && (ia) > (ib)))

__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void
sort_block(__global const T *src, long soff, long s_o, long s_n, long s_i, long n, long inner,
           long nblk, int desc, __global KEY *kout, __global POS *iout, __global T *vals,
           long voff, long v_o, long v_n, long v_i, __global long *idx, long xoff, long x_o,
           long x_n, long x_i, int want_vals, int want_idx)
{
    __local KEY lk[LMAX];
    __local POS li[LMAX];
    const int lid = (int)get_local_id(0);
    const long g = (long)get_group_id(0);
    const long line = g / nblk, b = g % nblk;
    const long sbase = LINE_BASE(soff, line, inner, s_o, s_i);
    const long k0 = b * LMAX;
    long m = n - k0;
    if (m > LMAX)
        m = LMAX;
    int p = 1;
    while (p < m)
        p <<= 1;
    for (int j = lid; j < p; j += WG) {
        if (j < m) {
            lk[j] = LOAD_KEY(src, sbase, k0 + j, s_n, desc);
            li[j] = (POS)(k0 + j);
        } else {
            lk[j] = (KEY)~(KEY)0;
            li[j] = POS_MAX;
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int k = 2; k <= p; k <<= 1) {
        for (int j = k >> 1; j > 0; j >>= 1) {
            for (int t = lid; t < (p >> 1); t += WG) {
                int i = ((t & ~(j - 1)) << 1) | (t & (j - 1));
                int l = i + j;
                bool up = (i & k) == 0;
                KEY ka = lk[i], kb = lk[l];
                POS ia = li[i], ib = li[l];
                if (PAIR_GT(ka, ia, kb, ib) == up) {
                    lk[i] = kb;
                    lk[l] = ka;
                    li[i] = ib;
                    li[l] = ia;
                }
            }
            barrier(CLK_LOCAL_MEM_FENCE);
        }
    }
    if (nblk == 1) {
        const long vbase = LINE_BASE(voff, line, inner, v_o, v_i);
        const long xbase = LINE_BASE(xoff, line, inner, x_o, x_i);
        for (int j = lid; j < m; j += WG) {
            POS at = li[j];
            if (want_vals)
                vals[vbase + j * v_n] = src[sbase + at * s_n];
            if (want_idx)
                idx[xbase + j * x_n] = at;
        }
    } else {
        for (int j = lid; j < m; j += WG) {
            kout[line * n + k0 + j] = lk[j];
            iout[line * n + k0 + j] = li[j];
        }
    }
}

__kernel void sort_merge(__global const KEY *kin, __global const POS *iin, __global KEY *kout,
                         __global POS *iout, long n, long lines, long w)
{
    const long g = (long)get_global_id(0);
    if (g >= lines * n)
        return;
    const long line = g / n, j = g % n;
    const long r0 = (j / (2 * w)) * (2 * w);
    const bool in_a = j - r0 < w;
    long a1 = r0 + w;
    if (a1 > n)
        a1 = n;
    long b1 = r0 + 2 * w;
    if (b1 > n)
        b1 = n;
    __global const KEY *kl = kin + line * n;
    const KEY key = kl[j];
    /* Count partner elements before this one: in B those with a smaller
     * key (equal keys of B come later: larger positions); in A those with
     * a key <= ours. */
    long lo = in_a ? a1 : r0, hi = in_a ? b1 : a1;
    while (lo < hi) {
        long mid = lo + ((hi - lo) >> 1);
        bool before = in_a ? kl[mid] < key : kl[mid] <= key;
        if (before)
            lo = mid + 1;
        else
            hi = mid;
    }
    long pos = in_a ? (j - r0) + (lo - a1) : (j - a1) + (lo - r0);
    kout[line * n + r0 + pos] = key;
    iout[line * n + r0 + pos] = iin[line * n + j];
}

__kernel void sort_write(__global const POS *iin, __global const T *src, long soff, long s_o,
                         long s_n, long s_i, long n, long inner, long lines, __global T *vals,
                         long voff, long v_o, long v_n, long v_i, __global long *idx, long xoff,
                         long x_o, long x_n, long x_i, int want_vals, int want_idx)
{
    const long g = (long)get_global_id(0);
    if (g >= lines * n)
        return;
    const long line = g / n, j = g % n;
    const POS at = iin[g];
    if (want_vals)
        vals[LINE_BASE(voff, line, inner, v_o, v_i) + j * v_n] =
            src[LINE_BASE(soff, line, inner, s_o, s_i) + at * s_n];
    if (want_idx)
        idx[LINE_BASE(xoff, line, inner, x_o, x_i) + j * x_n] = at;
}

/* One work-item per line of a sorted (ascending) tensor: the median
 * (mode 0: the first NaN when the line has one, else the lower median) or
 * the nanmedian (mode 1: the lower median of the non-NaN prefix; position 0
 * when all are NaN) into ov/oi[line].  NaN sorts last, so the NaN count is
 * found by a binary search for the first NaN key. */
__kernel void sort_pick(__global const T *sv, __global const long *si, long n, long inner,
                        long s_o, long s_n, long s_i, long lines, int mode, __global T *ov,
                        __global long *oi)
{
    const long g = (long)get_global_id(0);
    if (g >= lines)
        return;
    const long base = LINE_BASE(0, g, inner, s_o, s_i);
    long lo = 0, hi = n;
    while (lo < hi) {
        long mid = lo + ((hi - lo) >> 1);
        if (IS_NAN_KEY(TOKEY(sv[base + mid * s_n])))
            hi = mid;
        else
            lo = mid + 1;
    }
    long pos = mode == 0 ? (lo < n ? lo : (n - 1) / 2) : (lo > 0 ? (lo - 1) / 2 : 0);
    ov[g] = sv[base + pos * s_n];
    oi[g] = si[base + pos * s_n];
}

/* searchsorted/bucketize: one work-item per value.  bd holds rows of nb
 * boundaries (one row when brows == 1, else row = value index / vrow);
 * sorter (when has_sorter) gives each row's ascending order.  PyTorch's
 * comparisons: left finds the first boundary b with !(b < v) written as
 * (b >= v), right the first with (b > v); a NaN value goes past the end. */
__kernel void sort_search(__global const T *bd, __global const T *v, __global const long *sorter,
                          int has_sorter, long nb, long brows, long vrow, long total, int right,
                          __global long *out)
{
    const long g = (long)get_global_id(0);
    if (g >= total)
        return;
    const long row = brows == 1 ? 0 : g / vrow;
    const long base = row * nb;
    const VT val = LOADV(v, g);
    long lo = 0, hi = nb;
    while (lo < hi) {
        long mid = lo + ((hi - lo) >> 1);
        long at = has_sorter ? sorter[base + mid] + base : base + mid;
        VT b = LOADV(bd, at);
        bool go_right = right ? !(b > val) : !(b >= val);
        if (go_right)
            lo = mid + 1;
        else
            hi = mid;
    }
    out[g] = lo;
}

/* ---- mode, unique, bincount, histc (ops/sort/sort_unique.c, ops/sort/sort_count.c) ---- */

/* PyTorch's == of two elements by their keys: equal keys, and not NaN (a
 * NaN equals nothing, itself included); -0.0 == +0.0. */
#define KEY_EQ(a, b) ((a) == (b) && !IS_NAN_KEY(a))

/* mode: one work-group per line of a sorted (ascending, stable) tensor.
 * Every run of equal elements is found at its first element (a binary
 * search for its end: the line is sorted); the longest run wins, the first
 * (smallest value) among equally long ones.  The result is the run's last
 * element: its value and its position (the last occurrence in the input,
 * the sort being stable).  A NaN is a run of its own. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void
sort_mode(__global const T *sv, __global const long *si, long n, long inner, long s_o, long s_n,
          long s_i, __global T *ov, __global long *oi)
{
    __local long bl[WG];
    __local long bs[WG];
    const int lid = (int)get_local_id(0);
    const long line = (long)get_group_id(0);
    const long base = LINE_BASE(0, line, inner, s_o, s_i);
    long best_len = 0, best_st = 0;
    for (long j = lid; j < n; j += WG) {
        const KEY k = TOKEY(sv[base + j * s_n]);
        if (j > 0 && KEY_EQ(TOKEY(sv[base + (j - 1) * s_n]), k))
            continue;
        long len = 1;
        if (!IS_NAN_KEY(k)) {
            long lo = j + 1, hi = n;
            while (lo < hi) {
                long mid = lo + ((hi - lo) >> 1);
                if (TOKEY(sv[base + mid * s_n]) <= k)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            len = lo - j;
        }
        if (len > best_len) {
            best_len = len;
            best_st = j;
        }
    }
    bl[lid] = best_len;
    bs[lid] = best_st;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = WG / 2; s > 0; s >>= 1) {
        if (lid < s) {
            long ol = bl[lid + s], os = bs[lid + s];
            if (ol > bl[lid] || (ol == bl[lid] && ol > 0 && os < bs[lid])) {
                bl[lid] = ol;
                bs[lid] = os;
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) {
        const long end = base + (bs[0] + bl[0] - 1) * s_n;
        ov[line] = sv[end];
        oi[line] = si[end];
    }
}

/* unique: rows of m elements of src (row r at r * m), visited in the order
 * perm gives (identity when !has_perm).  flags[j] = 1 where the j-th
 * visited row differs from the one before (PyTorch's == on every element),
 * and for j = 0; an inclusive scan turns them into group numbers + 1. */
__kernel void sort_uflags(__global const T *src, __global const long *perm, int has_perm, long n,
                          long m, __global long *flags)
{
    const long g = (long)get_global_id(0);
    if (g >= n)
        return;
    long f = 1;
    if (g > 0) {
        const long a = (has_perm ? perm[g - 1] : g - 1) * m, b = (has_perm ? perm[g] : g) * m;
        f = 0;
        for (long c = 0; c < m && !f; c++)
            f = !KEY_EQ(TOKEY(src[a + c]), TOKEY(src[b + c]));
    }
    flags[g] = f;
}

/* unique: the first row of every group into out[group], the group's first
 * visit into start[group], and (want_inv) every row's group into inv. */
__kernel void sort_ucompact(__global const T *src, __global const long *perm, int has_perm,
                            long n, long m, __global const long *pos, __global T *out,
                            __global long *start, __global long *inv, int want_inv)
{
    const long g = (long)get_global_id(0);
    if (g >= n)
        return;
    const long row = has_perm ? perm[g] : g, grp = pos[g] - 1;
    if (g == 0 || pos[g - 1] != pos[g]) {
        for (long c = 0; c < m; c++)
            out[grp * m + c] = src[row * m + c];
        start[grp] = g;
    }
    if (want_inv)
        inv[row] = grp;
}

/* unique: each group's size from its start and the next one's. */
__kernel void sort_ucounts(__global const long *start, long groups, long n, __global long *cnt)
{
    const long g = (long)get_global_id(0);
    if (g < groups)
        cnt[g] = (g + 1 < groups ? start[g + 1] : n) - start[g];
}

/* unique_dim's lexicographic sort: column c of the rows in perm's order. */
__kernel void sort_ugather(__global const T *src, __global const long *perm, long n, long m,
                           long c, __global T *out)
{
    const long g = (long)get_global_id(0);
    if (g < n)
        out[g] = src[perm[g] * m + c];
}

/* out = perm[p2]: the row order after one more stable sort pass. */
__kernel void sort_ucompose(__global const long *perm, __global const long *p2, long n,
                            __global long *out)
{
    const long g = (long)get_global_id(0);
    if (g < n)
        out[g] = perm[p2[g]];
}

/* bincount: one work-item per bin b of the sorted int64 input sv (with its
 * positions si): the bin's run [lo, hi) by two binary searches; its size,
 * or (has_w) the sum of its weights in input order (the sort is stable),
 * the order of PyTorch's sequential CPU loop, in T. */
__kernel void sort_bincount(__global const long *sv, __global const long *si, long n,
                            __global const T *w, int has_w, long nbins, __global T *out)
{
    const long b = (long)get_global_id(0);
    if (b >= nbins)
        return;
    long lo = 0, hi = n;
    while (lo < hi) {
        long mid = lo + ((hi - lo) >> 1);
        if (sv[mid] < b)
            lo = mid + 1;
        else
            hi = mid;
    }
    const long first = lo;
    hi = n;
    while (lo < hi) {
        long mid = lo + ((hi - lo) >> 1);
        if (sv[mid] <= b)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (has_w) {
        T acc = 0;
        for (long j = first; j < lo; j++)
            acc += w[si[j]];
        out[b] = acc;
    } else {
        out[b] = (T)(lo - first);
    }
}

/* histc: one work-item per element of [off, end); PyTorch's bin arithmetic in
 * the input's type (RND rounds float16/bfloat16 after every operation, as
 * c10::Half does), elements outside [lo, hi] and NaN skipped, x == hi in the
 * last bin.  Counts are integer atomics into cnt's row for this chunk (the
 * host launches chunks of at most 2^31 - 1 elements, so a row's 32-bit
 * counts cannot wrap): the same result in any order. */
__kernel void sort_histc(__global const T *x, long off, long end, VT lo, VT hi, long bins,
                         __global uint *cnt, long coff)
{
    const long g = off + (long)get_global_id(0);
    if (g >= end)
        return;
    const VT e = LOADV(x, g);
    if (!(e >= lo && e <= hi))
        return;
    long pos = (long)(RND(RND(RND(e - lo) * RND((VT)bins)) / RND(hi - lo)));
    if (pos >= bins)
        pos = bins - 1;
    if (pos < 0)
        pos = 0;
    atomic_inc(&cnt[coff + pos]);
}

/* histc's counts: bin b of the result is the sum of the chunks' rows
 * cnt[r * bins + b], r = 0..rows-1, in 64 bits and in row order. */
__kernel void sort_histc_sum(__global const uint *cnt, long rows, long bins, __global long *acc)
{
    const long b = (long)get_global_id(0);
    if (b >= bins)
        return;
    long s = 0;
    for (long r = 0; r < rows; r++)
        s += (long)cnt[r * bins + b];
    acc[b] = s;
}

/* topk of lines of at most TK_NMAX elements, k <= TK_KMAX, 32-bit keys:
 * one work-group per line selects instead of sorting the line.  The keys
 * (complemented for largest) are cached in local memory; a radix select
 * over four 8-bit digits (local histograms, integer local atomics: the
 * counts do not depend on their order; TK_HC copies, one per item modulo
 * TK_HC, to spread contention on popular digits; a scan over the 256 bins
 * picks the digit) finds the k-th smallest key KT and
 * how many elements equal to KT belong to the result (`need`).  Elements
 * with a key below KT, and the first `need` equal to KT in line order,
 * are placed by an exclusive scan of per-item counts over contiguous
 * chunks (positions fixed by the data, no atomics), then bitonic-sorted by
 * (key, position): the same elements in the same order as the first k of
 * the stable sort. */
#define TK_NMAX 4096
#define TK_KMAX 256
#define TK_HC 4

__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void
sort_topk(__global const T *src, long soff, long s_o, long s_n, long s_i, long n, long inner,
          int k, int desc, __global T *vals, long voff, long v_o, long v_n, long v_i,
          __global long *idx, long xoff, long x_o, long x_n, long x_i)
{
    __local uint lk[TK_NMAX];
    __local uint hist[TK_HC * 256];
    __local uint scan[WG > 256 ? WG : 256];
    __local uint sk[TK_KMAX];
    __local int sp[TK_KMAX];
    __local uint sel[2];
    const int lid = (int)get_local_id(0);
    const long line = (long)get_group_id(0);
    const long sbase = LINE_BASE(soff, line, inner, s_o, s_i);
    const int m = (int)n;
    for (int j = lid; j < m; j += WG)
        lk[j] = (uint)LOAD_KEY(src, sbase, j, s_n, desc);
    uint prefix = 0, mask = 0, need = (uint)k;
    for (int shift = 24; shift >= 0; shift -= 8) {
        for (int b = lid; b < TK_HC * 256; b += WG)
            hist[b] = 0;
        barrier(CLK_LOCAL_MEM_FENCE);
        __local uint *hc = hist + (lid % TK_HC) * 256;
        for (int j = lid; j < m; j += WG) {
            uint key = lk[j];
            if ((key & mask) == prefix)
                atomic_inc(&hc[(key >> shift) & 255u]);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        /* Inclusive scan of the 256 bin totals; the bin where the running
         * count reaches `need` is KT's digit (exactly one bin). */
        for (int b = lid; b < 256; b += WG) {
            uint h = 0;
            for (int c = 0; c < TK_HC; c++)
                h += hist[c * 256 + b];
            scan[b] = h;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int off = 1; off < 256; off <<= 1) {
            uint add[256 / WG > 0 ? 256 / WG : 1];
            for (int b = lid, q = 0; b < 256; b += WG, q++)
                add[q] = b >= off ? scan[b - off] : 0;
            barrier(CLK_LOCAL_MEM_FENCE);
            for (int b = lid, q = 0; b < 256; b += WG, q++)
                scan[b] += add[q];
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        for (int b = lid; b < 256; b += WG) {
            uint incl = scan[b], excl = b ? scan[b - 1] : 0;
            if (excl < need && incl >= need) {
                sel[0] = prefix | ((uint)b << shift);
                sel[1] = need - excl;
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        prefix = sel[0];
        need = sel[1];
        mask |= 0xffu << shift;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    /* prefix is KT; k - need keys are below it. */
    const int chunk = (m + WG - 1) / WG;
    const int j0 = lid * chunk < m ? lid * chunk : m;
    const int j1 = j0 + chunk < m ? j0 + chunk : m;
    uint lt = 0, eq = 0;
    for (int j = j0; j < j1; j++) {
        lt += lk[j] < prefix;
        eq += lk[j] == prefix;
    }
    const uint mine = lt | (eq << 16);
    scan[lid] = mine;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int off = 1; off < WG; off <<= 1) {
        uint add = lid >= off ? scan[lid - off] : 0;
        barrier(CLK_LOCAL_MEM_FENCE);
        scan[lid] += add;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    const uint excl = scan[lid] - mine;
    uint lpos = excl & 0xffffu, epos = excl >> 16;
    const uint below = (uint)k - need;
    for (int j = j0; j < j1; j++) {
        uint key = lk[j];
        if (key < prefix) {
            sk[lpos] = key;
            sp[lpos++] = j;
        } else if (key == prefix && epos < need) {
            sk[below + epos] = key;
            sp[below + epos++] = j;
        }
    }
    int p = 1;
    while (p < k)
        p <<= 1;
    for (int j = k + lid; j < p; j += WG) {
        sk[j] = 0xffffffffu;
        sp[j] = 0x7fffffff;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int w = 2; w <= p; w <<= 1) {
        for (int h = w >> 1; h > 0; h >>= 1) {
            for (int t = lid; t < (p >> 1); t += WG) {
                int i = ((t & ~(h - 1)) << 1) | (t & (h - 1));
                int l = i + h;
                bool up = (i & w) == 0;
                uint ka = sk[i], kb = sk[l];
                int ia = sp[i], ib = sp[l];
                if (PAIR_GT(ka, ia, kb, ib) == up) {
                    sk[i] = kb;
                    sk[l] = ka;
                    sp[i] = ib;
                    sp[l] = ia;
                }
            }
            barrier(CLK_LOCAL_MEM_FENCE);
        }
    }
    const long vbase = LINE_BASE(voff, line, inner, v_o, v_i);
    const long xbase = LINE_BASE(xoff, line, inner, x_o, x_i);
    for (int j = lid; j < k; j += WG) {
        int at = sp[j];
        vals[vbase + j * v_n] = src[sbase + at * s_n];
        idx[xbase + j * x_n] = at;
    }
}

#if defined(CLOPS_CHUNKED) && defined(LMAXC)
/*
 * CPU devices (issue 19): work items of one, each taking `per` consecutive
 * units (blocks or lines) with serial loops; no barriers.  The host
 * defines LMAXC (block length, sized to the device's local memory) and
 * KBYTES (the key's significant bytes: the dtype's size).
 *
 *   sort_block_cpu  a stable LSD radix sort of each block's (key,
 *                   position) pairs in local memory, 8-bit digits: one
 *                   read builds every digit's histogram, then one
 *                   scatter pass per digit (skipped when every key has the
 *                   same digit there).  Stable passes over pairs loaded in
 *                   position order give the (key, position) order, the
 *                   same result as sort_block.  Writes the results (one
 *                   block per line) or the pairs for sort_merge.
 *   sort_merge_cpu  sort_merge by chunks of outputs merged serially.
 *   sort_topk_cpu   one line at a time: a max-heap of the k smallest
 *                   (key, position) pairs seen so far (elements come in
 *                   position order, so a new element enters only when its
 *                   key is below the root's), then a heap sort of the k
 *                   pairs: the first k of the stable sort in O(n log k).
 */
__kernel __attribute__((reqd_work_group_size(1, 1, 1))) void
sort_block_cpu(__global const T *src, long soff, long s_o, long s_n, long s_i, long n,
               long inner, long nblk, int desc, __global KEY *kout, __global POS *iout,
               __global T *vals, long voff, long v_o, long v_n, long v_i, __global long *idx,
               long xoff, long x_o, long x_n, long x_i, int want_vals, int want_idx, long units,
               long per)
{
    __local KEY ka[LMAXC], kb[LMAXC];
    __local POS ia[LMAXC], ib[LMAXC];
    __local uint hist[KBYTES][256];
    const long u0 = (long)get_global_id(0) * per;
    const long u1 = u0 + per < units ? u0 + per : units;
    for (long g = u0; g < u1; g++) {
        const long line = g / nblk, b = g % nblk;
        const long sbase = LINE_BASE(soff, line, inner, s_o, s_i);
        const long k0 = b * LMAXC;
        const int m = (int)(n - k0 < LMAXC ? n - k0 : LMAXC);
        for (int q = 0; q < KBYTES; q++)
            for (int h = 0; h < 256; h++)
                hist[q][h] = 0;
        for (int j = 0; j < m; j++) {
            const KEY key = LOAD_KEY(src, sbase, k0 + j, s_n, desc);
            ka[j] = key;
            ia[j] = (POS)(k0 + j);
            for (int q = 0; q < KBYTES; q++)
                hist[q][(uint)(key >> (8 * q)) & 255u]++;
        }
        __local KEY *sk = ka, *dk = kb;
        __local POS *si = ia, *di = ib;
        for (int q = 0; q < KBYTES; q++) {
            __local uint *hq = hist[q];
            if (hq[(uint)(sk[0] >> (8 * q)) & 255u] == (uint)m)
                continue;
            uint run = 0;
            for (int h = 0; h < 256; h++) {
                const uint c = hq[h];
                hq[h] = run;
                run += c;
            }
            for (int j = 0; j < m; j++) {
                const KEY key = sk[j];
                const uint o = hq[(uint)(key >> (8 * q)) & 255u]++;
                dk[o] = key;
                di[o] = si[j];
            }
            __local KEY *tk = sk;
            sk = dk;
            dk = tk;
            __local POS *ti = si;
            si = di;
            di = ti;
        }
        if (nblk == 1) {
            const long vbase = LINE_BASE(voff, line, inner, v_o, v_i);
            const long xbase = LINE_BASE(xoff, line, inner, x_o, x_i);
            if (want_vals)
                for (int j = 0; j < m; j++)
                    vals[vbase + j * v_n] = src[sbase + si[j] * s_n];
            if (want_idx)
                for (int j = 0; j < m; j++)
                    idx[xbase + j * x_n] = si[j];
        } else {
            for (int j = 0; j < m; j++) {
                kout[line * n + k0 + j] = sk[j];
                iout[line * n + k0 + j] = si[j];
            }
        }
    }
}

/* sort_merge on CPU devices: merges runs of width w into runs of 2w by
 * chunks of MCHUNK outputs, `per` chunks per work item (units = lines x
 * runs of 2w x chunks per run).  A chunk finds where it starts in each run
 * by a binary search (the co-rank: how many of its first d0 outputs come
 * from A), then merges serially.  Equal keys take A first: A's positions
 * are all below B's, so this is the (key, position) order. */
__kernel __attribute__((reqd_work_group_size(1, 1, 1))) void
sort_merge_cpu(__global const KEY *kin, __global const POS *iin, __global KEY *kout,
               __global POS *iout, long n, long w, long runs, long cpr, long units, long per)
{
    const long u0 = (long)get_global_id(0) * per;
    const long u1 = u0 + per < units ? u0 + per : units;
    for (long u = u0; u < u1; u++) {
        const long line = u / (runs * cpr), r = (u / cpr) % runs, c = u % cpr;
        const long r0 = r * 2 * w;
        const long a1 = r0 + w < n ? r0 + w : n, b1 = r0 + 2 * w < n ? r0 + 2 * w : n;
        const long la = a1 - r0, lb = b1 - a1;
        long d0 = c * MCHUNK, d1 = d0 + MCHUNK;
        if (d1 > la + lb)
            d1 = la + lb;
        if (d0 >= d1)
            continue;
        __global const KEY *ka = kin + line * n + r0, *kb = ka + la;
        __global const POS *pa = iin + line * n + r0, *pb = pa + la;
        long lo = d0 > lb ? d0 - lb : 0, hi = d0 < la ? d0 : la;
        while (lo < hi) {
            const long mid = lo + ((hi - lo) >> 1);
            if (ka[mid] <= kb[d0 - 1 - mid])
                lo = mid + 1;
            else
                hi = mid;
        }
        long i = lo, j = d0 - lo;
        __global KEY *ko = kout + line * n + r0;
        __global POS *io = iout + line * n + r0;
        for (long o = d0; o < d1; o++) {
            const bool take_a = j >= lb || (i < la && ka[i] <= kb[j]);
            if (take_a) {
                ko[o] = ka[i];
                io[o] = pa[i++];
            } else {
                ko[o] = kb[j];
                io[o] = pb[j++];
            }
        }
    }
}

/* Sifts pair (key, pos) down from the root of the max-heap hk/hp of sz
 * pairs (ordered by PAIR_GT). */
void topk_sift_down(__local KEY *hk, __local POS *hp, int sz, KEY key, POS pos)
{
    int c = 0;
    for (;;) {
        int l = 2 * c + 1;
        if (l >= sz)
            break;
        int r = l + 1;
        int ch = r < sz && PAIR_GT(hk[r], hp[r], hk[l], hp[l]) ? r : l;
        if (!PAIR_GT(hk[ch], hp[ch], key, pos))
            break;
        hk[c] = hk[ch];
        hp[c] = hp[ch];
        c = ch;
    }
    hk[c] = key;
    hp[c] = pos;
}

__kernel __attribute__((reqd_work_group_size(1, 1, 1))) void
sort_topk_cpu(__global const T *src, long soff, long s_o, long s_n, long s_i, long n, long inner,
              int k, int desc, __global T *vals, long voff, long v_o, long v_n, long v_i,
              __global long *idx, long xoff, long x_o, long x_n, long x_i, long lines, long per)
{
    __local KEY hk[TKC_KMAX];
    __local POS hp[TKC_KMAX];
    const long l0 = (long)get_global_id(0) * per;
    const long l1 = l0 + per < lines ? l0 + per : lines;
    for (long line = l0; line < l1; line++) {
        const long sbase = LINE_BASE(soff, line, inner, s_o, s_i);
        for (int j = 0; j < k; j++) {
            const KEY key = LOAD_KEY(src, sbase, j, s_n, desc);
            int c = j;
            while (c > 0) {
                const int p = (c - 1) >> 1;
                if (!PAIR_GT(key, j, hk[p], hp[p]))
                    break;
                hk[c] = hk[p];
                hp[c] = hp[p];
                c = p;
            }
            hk[c] = key;
            hp[c] = j;
        }
        /* Later positions are larger, so a key equal to the root's ranks
         * after it: only smaller keys enter. */
        for (long j = k; j < n; j++) {
            const KEY key = LOAD_KEY(src, sbase, j, s_n, desc);
            if (key < hk[0])
                topk_sift_down(hk, hp, k, key, (POS)j);
        }
        for (int e = k - 1; e > 0; e--) {
            const KEY rk = hk[0];
            const POS rp = hp[0];
            topk_sift_down(hk, hp, e, hk[e], hp[e]);
            hk[e] = rk;
            hp[e] = rp;
        }
        const long vbase = LINE_BASE(voff, line, inner, v_o, v_i);
        const long xbase = LINE_BASE(xoff, line, inner, x_o, x_i);
        for (int j = 0; j < k; j++) {
            vals[vbase + j * v_n] = src[sbase + (long)hp[j] * s_n];
            idx[xbase + j * x_n] = hp[j];
        }
    }
}
#endif
