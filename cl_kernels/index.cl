/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cl_kernels/index.cl: device code of the indexing family (ops/index*.c).
 *
 * ix_gather_<elsize>_<index type> runs a gather plan (ops/index/index.h): every
 * work item walks result elements in a grid-stride loop, turns the linear
 * element number into coordinates of the IX_NDIM-dim iteration space, and
 * reads the source at its strided offset plus, for each of IX_NIDX index
 * tensors, index value * kstride.  Gathering copies bits, so kernels exist
 * per element size (uchar, ushort, uint, ulong, and uint4 for plans whose
 * innermost dim is a contiguous run the host widened: ops/index/index_gather.c),
 * not per dtype.
 *
 * Build options fix the shape of the code: IX_NDIM (1..8), IX_NIDX (0..4)
 * and IX_I64 (64-bit offset arithmetic when a tensor needs it).
 *
 * Out-of-range indices: the first work item that finds one claims err[0]
 * with an atomic compare-and-swap (an int32 atomic, core OpenCL 1.1) and
 * records the value and which index tensor held it in err's long slots
 * 1 and 2; the host reads err after the launch.  The element is not
 * written.  Negative values wrap when the plan says so (take, index.Tensor),
 * else they are out of range (gather, index_select, embedding).
 */
/* Records an out-of-range index (first reporter wins). */
void ix_report(__global int *err, long value, int k)
{
    if (atomic_cmpxchg(err, 0, 1) == 0) {
        __global long *e = (__global long *)err;
        e[1] = value;
        e[2] = (long)k;
    }
}

#ifndef IX_SEGMENT /* ---- gather plans ---- */

#ifndef IX_NDIM
#define IX_NDIM 1
#endif
#ifndef IX_NIDX
#define IX_NIDX 0
#endif
#define IX_MAXD 8
#define IX_MAXK 4

#if IX_I64
typedef long ixt;
#else
typedef int ixt;
#endif

/* Mirrors ix_geom in ops/index/index_gather.c: only longs, so both sides agree on
 * the layout. */
typedef struct ix_geom {
    long sizes[IX_MAXD];
    long out_st[IX_MAXD];
    long src_st[IX_MAXD];
    long idx_st[IX_MAXK][IX_MAXD];
    long idx_off[IX_MAXK];
    long ksize[IX_MAXK];
    long kstride[IX_MAXK];
    long out_off;
    long src_off;
    long numel;
    long wrap;
    long tri;
    long tri_k;
} ix_geom;

/* Adds index k's contribution to the source offset; false when out of range. */
#define IX_APPLY(K, PTR)                                                        \
    if (IX_NIDX > K && ok) {                                                    \
        long v = (long)PTR[io[K]];                                              \
        long n = g.ksize[K];                                                    \
        long w = (v < 0 && g.wrap) ? v + n : v;                                 \
        if (w < 0 || w >= n) {                                                  \
            ix_report(err, v, K);                                               \
            ok = false;                                                         \
        } else {                                                                \
            s += (ixt)w * (ixt)g.kstride[K];                                    \
        }                                                                       \
    }

/* The geometry in private registers (sz, ost, sst, ist), read once per
 * work item. */
#define IX_LOAD_GEOM                                                                         \
    ixt sz[IX_NDIM], ost[IX_NDIM], sst[IX_NDIM], ist[IX_MAXK][IX_NDIM];                      \
    for (int d = 0; d < IX_NDIM; d++) {                                                      \
        sz[d] = (ixt)g.sizes[d];                                                             \
        ost[d] = (ixt)g.out_st[d];                                                           \
        sst[d] = (ixt)g.src_st[d];                                                           \
        for (int k = 0; k < IX_NIDX; k++)                                                    \
            ist[k][d] = (ixt)g.idx_st[k][d];                                                 \
    }

#ifdef CLOPS_CHUNKED
/* CPU devices (issue 19): each work item takes one contiguous range of
 * result elements (as CLOPS_ITEMS) and walks it run by run along the
 * innermost dim: the coordinates are split once, then carried like an
 * odometer, and the offsets are computed once per run, so no element pays
 * for divisions.  When no index tensor moves along the innermost dim (an
 * embedding or index_select row, a cat slab) the run's indices are read
 * once and the run is a plain strided copy; otherwise each element
 * applies its indices as the GPU kernel does. */
/* One index tensor moving along the innermost dim over a source row of at
 * most IX_TOUCH_MAX bytes (gather along the last dim): the row's cache
 * lines are read in order before the run's random loads (the hardware
 * prefetcher follows the walk; the random loads then hit L1/L2).  Their
 * OR lands in out[ob], which the run's first element overwrites. */
#define IX_TOUCH_MAX 65536
/* Contiguous runs (index_select and embedding rows, cat slabs) are copied
 * with non-temporal stores (8- and 16-byte elements) when the launch writes
 * at least IX_NT_BYTES: the ordinary stores' cache misses (each line read
 * before it is written) held the copy to half of PyTorch's memcpy per core
 * (index_select of [2048, 2048] rows, perf on the dev VM: 56% of the
 * kernel's samples on the store).  Smaller results stay in the cache for
 * the next op. */
#define IX_NT_BYTES (4L << 20)
/* Non-temporal stores are weakly ordered: each run ends with a store fence
 * (x86's sfence), so the stores are visible before the work item's end is
 * signalled to the host.  Elsewhere a sequentially consistent fence. */
#if defined(__x86_64__) || defined(__i386__)
#define IX_NT_FENCE __builtin_ia32_sfence()
#else
#define IX_NT_FENCE mem_fence(CLK_GLOBAL_MEM_FENCE)
#endif
#define IX_TOUCH_ROW(T)                                                                      \
    if (IX_NIDX == 1 && g.kstride[0] == 1 && run >= 64 &&                                    \
        g.ksize[0] * (long)sizeof(T) <= IX_TOUCH_MAX) {                                      \
        T t = (T)0;                                                                          \
        for (ixt q = 0; q < (ixt)g.ksize[0]; q += 64 / (ixt)sizeof(T))                      \
            t |= src[sb + q];                                                                \
        out[ob] = t;                                                                         \
    }
#define IX_GATHER_KERNEL(NAME, T, I)                                                         \
    void ix_copy_run_##NAME(__global T *o, __global const T *s, ixt n, bool nt)              \
    {                                                                                        \
        if (nt && sizeof(T) >= 8) {                                                          \
            for (ixt j = 0; j < n; j++)                                                      \
                __builtin_nontemporal_store(s[j], o + j);                                    \
            IX_NT_FENCE;                                                                     \
        } else                                                                               \
            for (ixt j = 0; j < n; j++)                                                      \
                o[j] = s[j];                                                                 \
    }                                                                                        \
    __kernel void NAME(__global T *out, __global const T *src, __global const I *i0,         \
                       __global const I *i1, __global const I *i2, __global const I *i3,     \
                       __global int *err, const ix_geom g)                                  \
    {                                                                                        \
        IX_LOAD_GEOM                                                                         \
        const ixt numel = (ixt)g.numel, gs = (ixt)get_global_size(0);                       \
        const ixt per = (numel + gs - 1) / gs, lin0 = (ixt)get_global_id(0) * per;           \
        const ixt end = numel - min(lin0, numel) < per ? numel : lin0 + per;                 \
        if (lin0 >= end)                                                                     \
            return;                                                                          \
        const long tri = g.tri, tri_k = g.tri_k;                                             \
        const bool nt = g.numel * (long)sizeof(T) >= IX_NT_BYTES;                            \
        const int L = IX_NDIM - 1;                                                           \
        bool flat = !tri;                                                                    \
        for (int k = 0; k < IX_NIDX; k++)                                                    \
            flat = flat && ist[k][L] == 0;                                                   \
        ixt c[IX_NDIM];                                                                      \
        ixt rem = lin0;                                                                      \
        for (int d = L; d >= 0; d--) {                                                       \
            c[d] = d ? rem % sz[d] : rem;                                                    \
            rem = d ? rem / sz[d] : 0;                                                       \
        }                                                                                    \
        for (ixt lin = lin0; lin < end;) {                                                   \
            ixt ob = (ixt)g.out_off, sb = (ixt)g.src_off, ib[IX_MAXK];                       \
            for (int k = 0; k < IX_NIDX; k++)                                                \
                ib[k] = (ixt)g.idx_off[k];                                                   \
            for (int d = 0; d <= L; d++) {                                                   \
                ob += c[d] * ost[d];                                                         \
                sb += c[d] * sst[d];                                                         \
                for (int k = 0; k < IX_NIDX; k++)                                            \
                    ib[k] += c[d] * ist[k][d];                                               \
            }                                                                                \
            const ixt run = min(sz[L] - c[L], end - lin), oi = ost[L], si = sst[L];          \
            if (flat) {                                                                      \
                ixt s = sb, io[IX_MAXK];                                                     \
                for (int k = 0; k < IX_NIDX; k++)                                            \
                    io[k] = ib[k];                                                           \
                bool ok = true;                                                              \
                IX_APPLY(0, i0)                                                              \
                IX_APPLY(1, i1)                                                              \
                IX_APPLY(2, i2)                                                              \
                IX_APPLY(3, i3)                                                              \
                if (ok && oi == 1 && si == 1)                                                \
                    ix_copy_run_##NAME(out + ob, src + s, run, nt);                         \
                else if (ok)                                                                 \
                    for (ixt j = 0; j < run; j++)                                            \
                        out[ob + j * oi] = src[s + j * si];                                  \
            } else {                                                                         \
                const long row = L ? (long)c[L - 1] : 0;                                     \
                IX_TOUCH_ROW(T)                                                              \
                for (ixt j = 0; j < run; j++) {                                              \
                    ixt s = sb + j * si, io[IX_MAXK];                                        \
                    for (int k = 0; k < IX_NIDX; k++)                                        \
                        io[k] = ib[k] + j * ist[k][L];                                       \
                    bool ok = true;                                                          \
                    IX_APPLY(0, i0)                                                          \
                    IX_APPLY(1, i1)                                                          \
                    IX_APPLY(2, i2)                                                          \
                    IX_APPLY(3, i3)                                                          \
                    if (!ok)                                                                 \
                        continue;                                                            \
                    T val = src[s];                                                          \
                    if (tri) {                                                               \
                        long diff = (long)(c[L] + j) - row;                                  \
                        if (tri == 1 ? diff > tri_k : diff < tri_k)                          \
                            val = (T)0;                                                      \
                    }                                                                        \
                    out[ob + j * oi] = val;                                                  \
                }                                                                            \
            }                                                                                \
            lin += run;                                                                      \
            c[L] += run;                                                                     \
            for (int d = L; d > 0 && c[d] >= sz[d]; d--) {                                   \
                c[d] = 0;                                                                    \
                c[d - 1]++;                                                                  \
            }                                                                                \
        }                                                                                    \
    }
#else
#define IX_GATHER_KERNEL(NAME, T, I)                                                         \
    __kernel void NAME(__global T *out, __global const T *src, __global const I *i0,         \
                       __global const I *i1, __global const I *i2, __global const I *i3,     \
                       __global int *err, const ix_geom g)                                  \
    {                                                                                        \
        IX_LOAD_GEOM                                                                         \
        const ixt numel = (ixt)g.numel, out_off = (ixt)g.out_off, src_off = (ixt)g.src_off;  \
        const long tri = g.tri, tri_k = g.tri_k;                                             \
        CLOPS_ITEMS(ixt, lin, numel) {                                                        \
            ixt rem = lin;                                                                   \
            ixt o = out_off, s = src_off;                                                    \
            ixt io[IX_MAXK];                                                                 \
            for (int k = 0; k < IX_NIDX; k++)                                                \
                io[k] = (ixt)g.idx_off[k];                                                   \
            ixt row = 0, col = 0;                                                            \
            for (int d = IX_NDIM - 1; d >= 0; d--) {                                         \
                ixt c = d ? rem % sz[d] : rem;                                               \
                rem = d ? rem / sz[d] : 0;                                                   \
                o += c * ost[d];                                                             \
                s += c * sst[d];                                                             \
                for (int k = 0; k < IX_NIDX; k++)                                            \
                    io[k] += c * ist[k][d];                                                  \
                if (d == IX_NDIM - 1)                                                        \
                    col = c;                                                                 \
                if (d == IX_NDIM - 2)                                                        \
                    row = c;                                                                 \
            }                                                                                \
            bool ok = true;                                                                  \
            IX_APPLY(0, i0)                                                                  \
            IX_APPLY(1, i1)                                                                  \
            IX_APPLY(2, i2)                                                                  \
            IX_APPLY(3, i3)                                                                  \
            if (!ok)                                                                         \
                continue;                                                                    \
            T val = src[s];                                                                  \
            if (tri) {                                                                       \
                long diff = (long)col - (long)row;                                           \
                if (tri == 1 ? diff > tri_k : diff < tri_k)                                  \
                    val = (T)0;                                                              \
            }                                                                                \
            out[o] = val;                                                                    \
        }                                                                                    \
    }

#endif /* CLOPS_CHUNKED */

IX_GATHER_KERNEL(ix_gather_1_i32, uchar, int)
IX_GATHER_KERNEL(ix_gather_2_i32, ushort, int)
IX_GATHER_KERNEL(ix_gather_4_i32, uint, int)
IX_GATHER_KERNEL(ix_gather_8_i32, ulong, int)
IX_GATHER_KERNEL(ix_gather_1_i64, uchar, long)
IX_GATHER_KERNEL(ix_gather_2_i64, ushort, long)
IX_GATHER_KERNEL(ix_gather_4_i64, uint, long)
IX_GATHER_KERNEL(ix_gather_8_i64, ulong, long)
IX_GATHER_KERNEL(ix_gather_16_i32, uint4, int)
IX_GATHER_KERNEL(ix_gather_16_i64, uint4, long)

#endif /* !IX_SEGMENT */

#ifdef IX_SEGMENT
/* Products and sums round separately, as in the C reference (and PyTorch's
 * alpha * source + self). */
#pragma OPENCL FP_CONTRACT OFF
/* ---- segment plans (ops/index/index_scatter.c) ----------------------------------
 *
 * ix_segment_<dtype> writes the accumulating and overwriting scatters
 * (scatter, scatter_add, scatter_reduce, index_add, index_copy, index_fill,
 * index_put_, put_, embedding_dense_backward).  The host has sorted the
 * index entries by the self element (or row) they target, keeping source
 * order inside each target: segment s holds entries seg_start[s] ..
 * seg_start[s+1]-1, targets self offset seg_target[s], and entry k reads
 * the source at row_src[k].  A work item owns one (segment, inner element)
 * pair and folds its segment in order, so sums are the same bits on every
 * run and need no atomics.  Modes: 0 copy (the last entry wins), 1 sum
 * (times alpha), 2 prod, 3 mean, 4 amax, 5 amin; include_self folds self's
 * old value first; scale_count makes alpha 1 / segment length (embedding's
 * scale_grad_by_freq, which scales each row before adding, as PyTorch).
 */
#define IX_MAXD 8

typedef struct ix_sgeom {
    long sizes[IX_MAXD];
    long self_st[IX_MAXD];
    long src_st[IX_MAXD];
    long ndim, inner, nseg, mode, include_self, scale_count, alpha_i;
    double alpha_f;
} ix_sgeom;

#define IX_SEG_KERNEL(NAME, T, C, LOAD, STORE, ISF)                                          \
    __kernel void NAME(__global T *self, __global const T *src,                              \
                       __global const long *seg_start, __global const long *seg_target,      \
                       __global const long *row_src, const ix_sgeom g)                      \
    {                                                                                        \
        const long total = g.nseg * g.inner;                                                 \
        CLOPS_ITEMS(long, lin, total) {                                                         \
            long s = lin / g.inner, rem = lin % g.inner, so = seg_target[s], sr = 0;         \
            for (int d = (int)g.ndim - 1; d >= 0; d--) {                                     \
                long c = rem % g.sizes[d];                                                   \
                rem /= g.sizes[d];                                                           \
                so += c * g.self_st[d];                                                      \
                sr += c * g.src_st[d];                                                       \
            }                                                                                \
            long k0 = seg_start[s], k1 = seg_start[s + 1];                                   \
            C acc;                                                                           \
            if (g.mode == 0) {                                                               \
                acc = LOAD(src, row_src[k1 - 1] + sr);                                       \
            } else {                                                                         \
                bool have = g.include_self != 0;                                             \
                acc = have ? LOAD(self, so) : (C)(g.mode == 2 ? 1 : 0);                      \
                C al = ISF ? (C)g.alpha_f : (C)g.alpha_i;                                    \
                if (g.scale_count)                                                           \
                    al = (C)1 / (C)(k1 - k0);                                                \
                for (long k = k0; k < k1; k++) {                                             \
                    C v = LOAD(src, row_src[k] + sr);                                        \
                    if (g.mode == 1)                                                         \
                        acc += v * al;                                                       \
                    else if (g.mode == 3)                                                    \
                        acc += v;                                                            \
                    else if (g.mode == 2)                                                    \
                        acc *= v;                                                            \
                    else if (!have)                                                          \
                        acc = v;                                                             \
                    else if (g.mode == 4)                                                    \
                        acc = (ISF && (acc != acc || v != v)) ? (acc != acc ? acc : v)       \
                                                              : (v > acc ? v : acc);         \
                    else                                                                     \
                        acc = (ISF && (acc != acc || v != v)) ? (acc != acc ? acc : v)       \
                                                              : (v < acc ? v : acc);         \
                    have = true;                                                             \
                }                                                                            \
                if (g.mode == 3) {                                                           \
                    long n = k1 - k0 + (g.include_self ? 1 : 0);                             \
                    if (ISF)                                                                 \
                        acc = acc / (C)n;                                                    \
                    else                                                                     \
                        acc = (C)((long)acc / n - ((long)acc % n != 0 && (long)acc < 0));    \
                }                                                                            \
            }                                                                                \
            STORE(self, so, acc);                                                            \
        }                                                                                    \
    }

#ifdef CLOPS_CHUNKED
/* CPU devices (issue 36): the same segment plans, the same fold per
 * element in the same order (self's old value, then the segment's entries
 * in source order), walked differently.  The GPU kernel above (which CPU
 * programs replace with this one) split every (segment, inner element)
 * pair by division (lin / inner, then each inner dim): 60% of index_put_'s
 * CPU time on POCL 3.1.  Here each work item takes one contiguous range
 * of pairs (as CLOPS_ITEMS), splits its first pair once and carries the
 * coordinates like an odometer; along the innermost dim it folds blocks
 * of IX_SB elements side by side, entry by entry (each entry a run of
 * its row: index_put_'s rows, index_add's slices), so one entry's loads
 * are adjacent and the blocks' adds independent. */
#define IX_SB 16
#define IX_SEG_FOLD(acc, v, have, al, ISF)                                                   \
    do {                                                                                     \
        if (g.mode == 1)                                                                     \
            acc += (v) * (al);                                                               \
        else if (g.mode == 3)                                                                \
            acc += (v);                                                                      \
        else if (g.mode == 2)                                                                \
            acc *= (v);                                                                      \
        else if (!(have))                                                                    \
            acc = (v);                                                                       \
        else if (g.mode == 4)                                                                \
            acc = (ISF && (acc != acc || (v) != (v))) ? (acc != acc ? acc : (v))             \
                                                      : ((v) > acc ? (v) : acc);             \
        else                                                                                 \
            acc = (ISF && (acc != acc || (v) != (v))) ? (acc != acc ? acc : (v))             \
                                                      : ((v) < acc ? (v) : acc);             \
    } while (0)

#undef IX_SEG_KERNEL
#define IX_SEG_KERNEL(NAME, T, C, LOAD, STORE, ISF)                                          \
    __kernel void NAME(__global T *self, __global const T *src,                              \
                       __global const long *seg_start, __global const long *seg_target,      \
                       __global const long *row_src, const ix_sgeom g)                      \
    {                                                                                        \
        const long total = g.nseg * g.inner, gs = (long)get_global_size(0);                  \
        const long per = (total + gs - 1) / gs, lin0 = (long)get_global_id(0) * per;         \
        const long end = total - min(lin0, total) < per ? total : lin0 + per;                \
        if (lin0 >= end)                                                                     \
            return;                                                                          \
        const int L = (int)g.ndim - 1;                                                       \
        long c[IX_MAXD], s = lin0 / g.inner, rem = lin0 % g.inner;                           \
        for (int d = L; d >= 0; d--) {                                                       \
            c[d] = rem % g.sizes[d];                                                         \
            rem /= g.sizes[d];                                                               \
        }                                                                                    \
        const long ss = L >= 0 ? g.self_st[L] : 0, rs = L >= 0 ? g.src_st[L] : 0;            \
        for (long lin = lin0; lin < end;) {                                                  \
            long so = seg_target[s], sr = 0;                                                 \
            for (int d = 0; d <= L; d++) {                                                   \
                so += c[d] * g.self_st[d];                                                   \
                sr += c[d] * g.src_st[d];                                                    \
            }                                                                                \
            const long run = L >= 0 ? min(g.sizes[L] - c[L], end - lin) : 1;                \
            const long k0 = seg_start[s], k1 = seg_start[s + 1];                             \
            C al = ISF ? (C)g.alpha_f : (C)g.alpha_i;                                        \
            if (g.scale_count)                                                               \
                al = (C)1 / (C)(k1 - k0);                                                    \
            for (long j0 = 0; j0 < run; j0 += IX_SB) {                                       \
                const int nb = (int)min((long)IX_SB, run - j0);                              \
                C acc[IX_SB];                                                                \
                if (g.mode == 0) {                                                           \
                    const long b = row_src[k1 - 1] + sr + j0 * rs;                           \
                    for (int j = 0; j < nb; j++)                                             \
                        acc[j] = LOAD(src, b + j * rs);                                      \
                } else {                                                                     \
                    bool have = g.include_self != 0;                                         \
                    for (int j = 0; j < nb; j++)                                             \
                        acc[j] = have ? LOAD(self, so + (j0 + j) * ss)                       \
                                      : (C)(g.mode == 2 ? 1 : 0);                            \
                    for (long k = k0; k < k1; k++) {                                         \
                        const long b = row_src[k] + sr + j0 * rs;                            \
                        if (nb == IX_SB && rs == 1 && g.mode == 1) {                         \
                            for (int j = 0; j < IX_SB; j++)                                  \
                                acc[j] += LOAD(src, b + j) * al;                             \
                        } else {                                                             \
                            for (int j = 0; j < nb; j++) {                                   \
                                C v = LOAD(src, b + j * rs);                                 \
                                IX_SEG_FOLD(acc[j], v, have, al, ISF);                       \
                            }                                                                \
                        }                                                                    \
                        have = true;                                                         \
                    }                                                                        \
                    if (g.mode == 3) {                                                       \
                        long n = k1 - k0 + (g.include_self ? 1 : 0);                         \
                        for (int j = 0; j < nb; j++) {                                       \
                            if (ISF)                                                         \
                                acc[j] = acc[j] / (C)n;                                      \
                            else                                                             \
                                acc[j] = (C)((long)acc[j] / n -                              \
                                             ((long)acc[j] % n != 0 && (long)acc[j] < 0));   \
                        }                                                                    \
                    }                                                                        \
                }                                                                            \
                for (int j = 0; j < nb; j++)                                                 \
                    STORE(self, so + (j0 + j) * ss, acc[j]);                                 \
            }                                                                                \
            lin += run;                                                                      \
            int d = L;                                                                       \
            if (d >= 0)                                                                      \
                c[d] += run;                                                                 \
            for (; d > 0 && c[d] >= g.sizes[d]; d--) {                                       \
                c[d] = 0;                                                                    \
                c[d - 1]++;                                                                  \
            }                                                                                \
            if (L < 0 || c[0] >= g.sizes[0]) {                                               \
                if (L >= 0)                                                                  \
                    c[0] = 0;                                                                \
                s++;                                                                         \
            }                                                                                \
        }                                                                                    \
    }
#endif /* CLOPS_CHUNKED */

#define IX_LD_PLAIN(p, i) (p[i])
#define IX_ST_PLAIN(p, i, v) (p[i] = (v))
#define IX_LD_INT(p, i) ((long)p[i])
#define IX_ST_BOOL(p, i, v) (p[i] = (uchar)((v) != 0))
#define IX_LD_HALF(p, i) vload_half((size_t)(i), p)
#define IX_ST_HALF(p, i, v) vstore_half_rte((v), (size_t)(i), p)
#define IX_LD_BF16(p, i) clops_bf16_to_float(p[i])
#define IX_ST_BF16(p, i, v) (p[i] = clops_float_to_bf16(v))

IX_SEG_KERNEL(ix_segment_bool, uchar, long, IX_LD_INT, IX_ST_BOOL, 0)
IX_SEG_KERNEL(ix_segment_uint8, uchar, long, IX_LD_INT, IX_ST_PLAIN, 0)
IX_SEG_KERNEL(ix_segment_int8, char, long, IX_LD_INT, IX_ST_PLAIN, 0)
IX_SEG_KERNEL(ix_segment_int16, short, long, IX_LD_INT, IX_ST_PLAIN, 0)
IX_SEG_KERNEL(ix_segment_int32, int, long, IX_LD_INT, IX_ST_PLAIN, 0)
IX_SEG_KERNEL(ix_segment_int64, long, long, IX_LD_PLAIN, IX_ST_PLAIN, 0)
IX_SEG_KERNEL(ix_segment_float16, half, float, IX_LD_HALF, IX_ST_HALF, 1)
IX_SEG_KERNEL(ix_segment_bfloat16, ushort, float, IX_LD_BF16, IX_ST_BF16, 1)
IX_SEG_KERNEL(ix_segment_float32, float, float, IX_LD_PLAIN, IX_ST_PLAIN, 1)
#ifdef CLOPS_HAS_FP64
IX_SEG_KERNEL(ix_segment_float64, double, double, IX_LD_PLAIN, IX_ST_PLAIN, 1)
#endif

/* ---- line scans (ops/index/index_segment.c, ix_scatter_lines) -------------------
 *
 * scatter, scatter_add and scatter_reduce with an int64 index where self's
 * scatter dim is short: no host sort.  A line is one position of the
 * index's other dims; one work-group of IX_LWG items owns a line.  It
 * stages the line's index and source in chunks of IX_LCH entries in local
 * memory (coalesced reads), and item lid owns targets t = lid + q * IX_LWG
 * (q < IX_LSLOT, so self's dim is at most IX_LWG * IX_LSLOT = 256), folding
 * the entries whose index is t in order: the entries of that target in
 * source order, as the segment plans fold them (the same bits; the CPU
 * device runs the segment plan).  Targets no entry names keep self's value.
 * Out-of-range values are reported through err.  Modes as
 * ix_segment_<dtype>; alpha is 1.
 */
#define IX_LWG 64
#define IX_LCH 256
#define IX_LSLOT 4

typedef struct ix_lgeom {
    long sizes[IX_MAXD]; /* the index's dims, the scatter dim's size 1 */
    long self_st[IX_MAXD];
    long idx_st[IX_MAXD];
    long src_st[IX_MAXD];
    long ndim, nlines, self_len, idx_len, self_d, idx_d, src_d, self_off, idx_off, src_off,
        mode, include_self;
} ix_lgeom;

/* Folds x into (acc, have) by mode m (see ix_segment_<dtype>). */
#define IX_FOLD(ISF, m, acc, have, x)                                                        \
    do {                                                                                     \
        if ((m) == 0)                                                                        \
            acc = x;                                                                         \
        else if ((m) == 1 || (m) == 3)                                                       \
            acc = acc + x;                                                                   \
        else if ((m) == 2)                                                                   \
            acc *= x;                                                                        \
        else if (!(have))                                                                    \
            acc = x;                                                                         \
        else if ((m) == 4)                                                                   \
            acc = (ISF && (acc != acc || x != x)) ? (acc != acc ? acc : x)                   \
                                                  : (x > acc ? x : acc);                     \
        else                                                                                 \
            acc = (ISF && (acc != acc || x != x)) ? (acc != acc ? acc : x)                   \
                                                  : (x < acc ? x : acc);                     \
        have = true;                                                                         \
    } while (0)

/* A mean's sum a of n entries divided: floats divide, integers floor. */
#define IX_MEAN(ISF, C, a, n)                                                                \
    do {                                                                                     \
        long nn_ = (n);                                                                      \
        if (ISF)                                                                             \
            a = a / (C)nn_;                                                                  \
        else                                                                                 \
            a = (C)((long)a / nn_ - ((long)a % nn_ != 0 && (long)a < 0));                    \
    } while (0)

/* The element offsets of line `line` in self, the index and the source. */
inline void ix_line_offsets(long line, const ix_lgeom g, long *so, long *io, long *sr)
{
    long rem = line;
    *so = g.self_off;
    *io = g.idx_off;
    *sr = g.src_off;
    for (int d = (int)g.ndim - 1; d >= 0; d--) {
        long c = rem % g.sizes[d];
        rem /= g.sizes[d];
        *so += c * g.self_st[d];
        *io += c * g.idx_st[d];
        *sr += c * g.src_st[d];
    }
}

#define IX_LINE_KERNEL(NAME, T, C, LOAD, STORE, ISF)                                         \
    __kernel __attribute__((reqd_work_group_size(IX_LWG, 1, 1))) void NAME(                  \
        __global T *self, __global const T *src, __global const long *idx,                   \
        __global int *err, const ix_lgeom g)                                                 \
    {                                                                                        \
        __local long li[IX_LCH];                                                             \
        __local C lv[IX_LCH];                                                                \
        const int lid = (int)get_local_id(0);                                                \
        for (long line = get_group_id(0); line < g.nlines; line += get_num_groups(0)) {      \
            long so, io, sr;                                                                 \
            ix_line_offsets(line, g, &so, &io, &sr);                                         \
            C acc[IX_LSLOT];                                                                 \
            long cnt[IX_LSLOT];                                                              \
            bool have[IX_LSLOT];                                                             \
            for (int q = 0; q < IX_LSLOT; q++) {                                             \
                long t = lid + q * IX_LWG;                                                   \
                have[q] = g.mode != 0 && g.include_self != 0 && t < g.self_len;              \
                acc[q] = have[q] ? LOAD(self, so + t * g.self_d) : (C)(g.mode == 2 ? 1 : 0); \
                cnt[q] = 0;                                                                  \
            }                                                                                \
            for (long j0 = 0; j0 < g.idx_len; j0 += IX_LCH) {                                \
                int n = (int)min((long)IX_LCH, g.idx_len - j0);                              \
                barrier(CLK_LOCAL_MEM_FENCE);                                                \
                for (int e = lid; e < n; e += IX_LWG) {                                      \
                    long v = idx[io + (j0 + e) * g.idx_d];                                   \
                    if (v < 0 || v >= g.self_len)                                            \
                        ix_report(err, v, 0);                                                \
                    li[e] = v;                                                               \
                    lv[e] = LOAD(src, sr + (j0 + e) * g.src_d);                              \
                }                                                                            \
                barrier(CLK_LOCAL_MEM_FENCE);                                                \
                for (int q = 0; q < IX_LSLOT; q++) {                                         \
                    long t = lid + q * IX_LWG;                                               \
                    if (t >= g.self_len)                                                     \
                        break;                                                               \
                    for (int e = 0; e < n; e++)                                              \
                        if (li[e] == t) {                                                    \
                            C x = lv[e];                                                     \
                            cnt[q]++;                                                        \
                            IX_FOLD(ISF, g.mode, acc[q], have[q], x);                        \
                        }                                                                    \
                }                                                                            \
            }                                                                                \
            for (int q = 0; q < IX_LSLOT; q++) {                                             \
                long t = lid + q * IX_LWG;                                                   \
                if (t >= g.self_len || cnt[q] == 0)                                          \
                    continue;                                                                \
                C a = acc[q];                                                                \
                if (g.mode == 3)                                                             \
                    IX_MEAN(ISF, C, a, cnt[q] + (g.include_self ? 1 : 0));                   \
                STORE(self, so + t * g.self_d, a);                                           \
            }                                                                                \
        }                                                                                    \
    }

IX_LINE_KERNEL(ix_lines_bool, uchar, long, IX_LD_INT, IX_ST_BOOL, 0)
IX_LINE_KERNEL(ix_lines_uint8, uchar, long, IX_LD_INT, IX_ST_PLAIN, 0)
IX_LINE_KERNEL(ix_lines_int8, char, long, IX_LD_INT, IX_ST_PLAIN, 0)
IX_LINE_KERNEL(ix_lines_int16, short, long, IX_LD_INT, IX_ST_PLAIN, 0)
IX_LINE_KERNEL(ix_lines_int32, int, long, IX_LD_INT, IX_ST_PLAIN, 0)
IX_LINE_KERNEL(ix_lines_int64, long, long, IX_LD_PLAIN, IX_ST_PLAIN, 0)
IX_LINE_KERNEL(ix_lines_float16, half, float, IX_LD_HALF, IX_ST_HALF, 1)
IX_LINE_KERNEL(ix_lines_bfloat16, ushort, float, IX_LD_BF16, IX_ST_BF16, 1)
IX_LINE_KERNEL(ix_lines_float32, float, float, IX_LD_PLAIN, IX_ST_PLAIN, 1)
#ifdef CLOPS_HAS_FP64
IX_LINE_KERNEL(ix_lines_float64, double, double, IX_LD_PLAIN, IX_ST_PLAIN, 1)
#endif

#ifdef CLOPS_CHUNKED
/* The same on CPU devices: a work item of one walks `per` whole lines, each
 * once in source order, folding every entry into its target's slot (the
 * GPU kernel has each of 64 items compare every staged entry with its
 * targets: 256 comparisons per entry where one indexed add does).  The
 * slots of one target see its entries in source order, so the results are
 * the same bits as ix_lines_<dtype> and the segment plans. */
#define IX_LINE_CPU_KERNEL(NAME, T, C, LOAD, STORE, ISF)                                     \
    __kernel void NAME(__global T *self, __global const T *src, __global const long *idx,    \
                       __global int *err, const ix_lgeom g, const long per)                  \
    {                                                                                        \
        C acc[IX_LWG * IX_LSLOT];                                                            \
        long cnt[IX_LWG * IX_LSLOT];                                                         \
        bool have[IX_LWG * IX_LSLOT];                                                        \
        const long l0 = (long)get_global_id(0) * per, l1 = min(l0 + per, g.nlines);          \
        for (long line = l0; line < l1; line++) {                                            \
            long so, io, sr;                                                                 \
            ix_line_offsets(line, g, &so, &io, &sr);                                         \
            for (long t = 0; t < g.self_len; t++) {                                          \
                have[t] = g.mode != 0 && g.include_self != 0;                                \
                acc[t] = have[t] ? LOAD(self, so + t * g.self_d) : (C)(g.mode == 2 ? 1 : 0); \
                cnt[t] = 0;                                                                  \
            }                                                                                \
            for (long j = 0; j < g.idx_len; j++) {                                           \
                long v = idx[io + j * g.idx_d];                                              \
                if (v < 0 || v >= g.self_len) {                                              \
                    ix_report(err, v, 0);                                                    \
                    continue;                                                                \
                }                                                                            \
                C x = LOAD(src, sr + j * g.src_d);                                           \
                cnt[v]++;                                                                    \
                IX_FOLD(ISF, g.mode, acc[v], have[v], x);                                    \
            }                                                                                \
            for (long t = 0; t < g.self_len; t++) {                                          \
                if (cnt[t] == 0)                                                             \
                    continue;                                                                \
                C a = acc[t];                                                                \
                if (g.mode == 3)                                                             \
                    IX_MEAN(ISF, C, a, cnt[t] + (g.include_self ? 1 : 0));                   \
                STORE(self, so + t * g.self_d, a);                                           \
            }                                                                                \
        }                                                                                    \
    }

IX_LINE_CPU_KERNEL(ix_lines_cpu_bool, uchar, long, IX_LD_INT, IX_ST_BOOL, 0)
IX_LINE_CPU_KERNEL(ix_lines_cpu_uint8, uchar, long, IX_LD_INT, IX_ST_PLAIN, 0)
IX_LINE_CPU_KERNEL(ix_lines_cpu_int8, char, long, IX_LD_INT, IX_ST_PLAIN, 0)
IX_LINE_CPU_KERNEL(ix_lines_cpu_int16, short, long, IX_LD_INT, IX_ST_PLAIN, 0)
IX_LINE_CPU_KERNEL(ix_lines_cpu_int32, int, long, IX_LD_INT, IX_ST_PLAIN, 0)
IX_LINE_CPU_KERNEL(ix_lines_cpu_int64, long, long, IX_LD_PLAIN, IX_ST_PLAIN, 0)
IX_LINE_CPU_KERNEL(ix_lines_cpu_float16, half, float, IX_LD_HALF, IX_ST_HALF, 1)
IX_LINE_CPU_KERNEL(ix_lines_cpu_bfloat16, ushort, float, IX_LD_BF16, IX_ST_BF16, 1)
IX_LINE_CPU_KERNEL(ix_lines_cpu_float32, float, float, IX_LD_PLAIN, IX_ST_PLAIN, 1)
#ifdef CLOPS_HAS_FP64
IX_LINE_CPU_KERNEL(ix_lines_cpu_float64, double, double, IX_LD_PLAIN, IX_ST_PLAIN, 1)
#endif
#endif

/* isin: out[i] = (elements[i] equals some test[j]) != invert, both
 * contiguous and of one dtype (the host promotes them); NaN equals
 * nothing.  A brute-force loop over test (docs/index.md). */
#define IX_ISIN_KERNEL(NAME, T, C, LOAD)                                                     \
    __kernel void NAME(__global uchar *out, __global const T *el, __global const T *test,   \
                       const long n, const long m, const int invert)                        \
    {                                                                                        \
        CLOPS_ITEMS(long, i, n) {                                                               \
            C e = LOAD(el, i);                                                               \
            int hit = 0;                                                                     \
            for (long j = 0; j < m && !hit; j++)                                             \
                hit = LOAD(test, j) == e;                                                    \
            out[i] = (uchar)(hit != invert);                                                 \
        }                                                                                    \
    }

IX_ISIN_KERNEL(ix_isin_bool, uchar, long, IX_LD_INT)
IX_ISIN_KERNEL(ix_isin_uint8, uchar, long, IX_LD_INT)
IX_ISIN_KERNEL(ix_isin_int8, char, long, IX_LD_INT)
IX_ISIN_KERNEL(ix_isin_int16, short, long, IX_LD_INT)
IX_ISIN_KERNEL(ix_isin_int32, int, long, IX_LD_INT)
IX_ISIN_KERNEL(ix_isin_int64, long, long, IX_LD_PLAIN)
IX_ISIN_KERNEL(ix_isin_float16, half, float, IX_LD_HALF)
IX_ISIN_KERNEL(ix_isin_bfloat16, ushort, float, IX_LD_BF16)
IX_ISIN_KERNEL(ix_isin_float32, float, float, IX_LD_PLAIN)
#ifdef CLOPS_HAS_FP64
IX_ISIN_KERNEL(ix_isin_float64, double, double, IX_LD_PLAIN)
#endif

/* ---- compaction by a scan (ops/index/index_nonzero.c) ----------------------------
 *
 * pos holds the inclusive int64 cumsum of a mask of n elements (row-major
 * over the shape `sizes`): element i is selected when pos[i] differs from
 * the value before it, and then goes to packed row pos[i] - 1.  For
 * ix_nonzero, element i is element first + i of `sizes` (a chunk of a
 * larger input scanned on its own: the host places its rows with
 * flat_off); the masked kernels take first = 0.  Every work
 * item owns elements, so the results are the same bits on every run.
 *   ix_nonzero          writes the coordinates of row r at flat[flat_off +
 *                       r * flat_rs + d * flat_cs] (rows >= limit dropped:
 *                       nonzero_static);
 *   ix_nonzero_fill     writes `fill` into the rows from the count to limit;
 *   ix_mselect_<size>   reads the strided tensor at element i into packed
 *                       row r (masked_select);
 *   ix_mscatter_<size>  writes packed row r into the strided tensor at
 *                       element i (masked_scatter).
 */
#define IX_CMAXD 16

/* Mirrors ix_cgeom in ops/index/index_nonzero.c. */
typedef struct ix_cgeom {
    long sizes[IX_CMAXD];
    long st[IX_CMAXD];
    long ndim, n, flat_off, flat_rs, flat_cs, off, limit, fill, first;
} ix_cgeom;

/* Offset of element i in the strided tensor. */
long ix_strided_offset(const ix_cgeom *g, long i)
{
    long o = g->off;
    for (int d = (int)g->ndim - 1; d >= 0; d--) {
        o += (i % g->sizes[d]) * g->st[d];
        i /= g->sizes[d];
    }
    return o;
}

__kernel void ix_nonzero(__global long *flat, __global const long *pos, const ix_cgeom g)
{
    CLOPS_ITEMS(long, i, g.n) {
        long p = pos[i], row = p - 1;
        if (p == (i ? pos[i - 1] : 0) || row >= g.limit)
            continue;
        long rem = g.first + i, base = g.flat_off + row * g.flat_rs;
        for (int d = (int)g.ndim - 1; d >= 0; d--) {
            flat[base + d * g.flat_cs] = rem % g.sizes[d];
            rem /= g.sizes[d];
        }
    }
}

__kernel void ix_nonzero_fill(__global long *flat, __global const long *pos, const ix_cgeom g)
{
    const long count = g.n ? pos[g.n - 1] : 0, total = g.limit * g.ndim;
    CLOPS_ITEMS(long, lin, total) {
        long r = lin / g.ndim, d = lin % g.ndim;
        if (r >= count)
            flat[g.flat_off + r * g.flat_rs + d * g.flat_cs] = g.fill;
    }
}

/* Both write their first argument: masked_select the packed rows (reading
 * the strided tensor), masked_scatter the strided tensor (SCATTER). */
#define IX_MASKED_KERNEL(NAME, T, SCATTER)                                                   \
    __kernel void NAME(__global T *dst, __global const T *src, __global const long *pos,    \
                       const ix_cgeom g)                                                     \
    {                                                                                        \
        CLOPS_ITEMS(long, i, g.n) {                                                             \
            long p = pos[i];                                                                 \
            if (p == (i ? pos[i - 1] : 0))                                                   \
                continue;                                                                    \
            long fo = g.flat_off + (p - 1) * g.flat_rs, so = ix_strided_offset(&g, i);       \
            dst[SCATTER ? so : fo] = src[SCATTER ? fo : so];                                 \
        }                                                                                    \
    }

IX_MASKED_KERNEL(ix_mselect_1, uchar, 0)
IX_MASKED_KERNEL(ix_mselect_2, ushort, 0)
IX_MASKED_KERNEL(ix_mselect_4, uint, 0)
IX_MASKED_KERNEL(ix_mselect_8, ulong, 0)
IX_MASKED_KERNEL(ix_mscatter_1, uchar, 1)
IX_MASKED_KERNEL(ix_mscatter_2, ushort, 1)
IX_MASKED_KERNEL(ix_mscatter_4, uint, 1)
IX_MASKED_KERNEL(ix_mscatter_8, ulong, 1)
#endif /* IX_SEGMENT */
