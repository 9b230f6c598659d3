/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cl_kernels/reduce.cl: the reduction kernels (sum, mean, amax, argmax, var,
 * logsumexp, norms, ...), one template instantiated once per reduction kind.
 *
 * The host (ops/reduce/reduce_launch.c) builds one program per input dtype: the
 * prelude (pw_prelude.clh), the type macros of that dtype (TIN_T storage
 * type, CT compute type, IN_KIND, IN_LS), then this file once per kind with RK (the
 * kind number, see ops/reduce/reduce.h) and KN (its name) defined.  Each kind
 * defines an accumulator struct and five steps:
 *   A_INIT(a)          the identity;
 *   A_ADD(a, x, i)     fold element x (compute type) with logical index i;
 *   A_MERGE(a, b)      fold the state b of another range into a;
 *   A_FINAL(a)         write the outputs (y at yo, y2 at yo2) from the state;
 * pointwise prologues (abs, x*x, NaN skipping) and epilogues (divide for
 * mean, sqrt for std and the 2-norm) are part of these steps, so a
 * reduction is one pass over its input.
 *
 * Two kernels per kind, both with work-groups of RWG items, local memory
 * and barriers only, and a reduction order fixed by the shape (the same bits
 * on every run):
 *   _row    L lanes per output (L a power of two): lane j folds elements
 *           j, j+L, ... of its output's range (4-wide vector loads when the
 *           reduced dimension is contiguous), then a tree in local memory;
 *           RWG/L outputs per group.  With L = 1 it is the column kernel:
 *           one output per work item, walking its range sequentially
 *           (outputs adjacent in memory, so loads coalesce across items).
 *           With a split S > 1 each group folds one of S chunks and writes
 *           its state to `part`.
 *   _merge  folds the S partial states of each output (L lanes per output,
 *           tree in local memory) and writes the outputs.
 * On CPU devices the program holds one kernel per kind instead, _cpu
 * (RED_CPU, below): serial loops in work items of one.
 */
#ifndef RED_COMMON
#define RED_COMMON
#define RCAT_(a, b) a##b
#define RCAT(a, b) RCAT_(a, b)

/* Loads element i of p as the compute type (IN_LS: the input's load/store
 * kind, CLOPS_LD in pw_prelude.clh), and four elements as a vector. */
#define LD(p, i) CLOPS_LD(IN_LS, CT, p, i)
#if IN_KIND == 1
#define VLD4(p, i) vload_half4(0, (p) + (i))
#elif IN_KIND == 2
#define VLD4(p, i) red_bf16x4(vload4(0, (p) + (i)))
float4 red_bf16x4(ushort4 u)
{
    return (float4)(clops_bf16_to_float(u.s0), clops_bf16_to_float(u.s1),
                    clops_bf16_to_float(u.s2), clops_bf16_to_float(u.s3));
}
#else
#define VLD4(p, i) RCAT(convert_, CT4)(vload4(0, (p) + (i)))
#endif

/* Stores compute value v into p[i] as the input's storage type (bool as
 * 0/1). */
#if IN_KIND == 5
#define ST_IN(p, i, v) ((p)[i] = (uchar)((v) != 0))
#else
#define ST_IN(p, i, v) CLOPS_ST(IN_LS, TIN_T, CT, p, i, v)
#endif

#if CT_FLOAT
#define CADD(a, b) ((a) + (b))
#define CMUL(a, b) ((a) * (b))
#define CT_LOWEST (-(CT)INFINITY)
#define CT_HIGHEST ((CT)INFINITY)
#if RED_CPU
/* x != x compiles to vector compares; POCL's isnan is an integer test on
 * the bits that keeps the CPU loops scalar. */
#define CISNAN(x) ((x) != (x))
#else
#define CISNAN(x) isnan(x)
#endif
#define CABS(x) fabs(x)
#else
/* Integer sums and products wrap as two's complement, as PyTorch's do. */
#define CADD(a, b) ((long)((ulong)(a) + (ulong)(b)))
#define CMUL(a, b) ((long)((ulong)(a) * (ulong)(b)))
#define CT_LOWEST LONG_MIN
#define CT_HIGHEST LONG_MAX
#define CISNAN(x) 0
#define CABS(x) ((x) < 0 ? -(x) : (x))
#endif

/* Offset of the kept coordinates of output o: its input base, or with the
 * output strides its place in an output. */
long red_koff(long o, long4 sz, long4 st)
{
    long c0 = o % sz.x;
    o /= sz.x;
    long c1 = o % sz.y;
    o /= sz.y;
    long c2 = o % sz.z;
    o /= sz.z;
    return c0 * st.x + c1 * st.y + c2 * st.z + o * st.w;
}
#if RED_CPU && CT_FLOAT
/* RW consecutive elements from an offset that is a multiple of RW, as a
 * compute-type vector (the CPU kernels' vector lanes). */
#define RCATV_(a, b) a##b
#define RCATV(a, b) RCATV_(a, b)
#define CTV RCATV(CT, RW)
#if IN_KIND == 1
#define LDV(p, i) RCATV(vload_half, RW)(0, (p) + (i))
#elif IN_KIND == 2
#define LDV(p, i) RCATV(as_float, RW)(RCATV(convert_uint, RW)(RCATV(vload, RW)(0, (p) + (i))) << 16)
#else
#define LDV(p, i) RCATV(vload, RW)(0, (p) + (i))
#endif
#endif
#endif /* RED_COMMON */

/* ---- the kind's accumulator ---- */
#define ACC RCAT(acc_, KN)
#define KNAME(s) RCAT(RCAT(red_, KN), s)
#define A_ADD4(a, v, r)                                                                    \
    do {                                                                                   \
        A_ADD(a, (v).s0, (r));                                                             \
        A_ADD(a, (v).s1, (r) + 1);                                                         \
        A_ADD(a, (v).s2, (r) + 2);                                                         \
        A_ADD(a, (v).s3, (r) + 3);                                                         \
    } while (0)
/* Result storage types: same as the input, int64, or bool/uint8 bytes. */
#define TOUT_SAME TIN_T
#define ST_SAME(p, i, v) ST_IN(p, i, v)
#define ST_LONG(p, i, v) ((p)[i] = (long)(v))

#if RK == 0 || RK == 3 || RK == 1 || RK == 13 || RK == 15
/* sum (0), mean (3), nansum (1), 1-norm (13), 2-norm (15) */
typedef struct {
    CT v;
} ACC;
#define A_INIT(a) ((a).v = (CT)0)
#if RK == 1
#define A_ADD(a, x, i) ((a).v = CISNAN(x) ? (a).v : CADD((a).v, (x)))
#elif RK == 13
#define A_ADD(a, x, i) ((a).v = CADD((a).v, CABS(x)))
#elif RK == 15
#define A_ADD(a, x, i) ((a).v = (a).v + (x) * (x))
#else
#define A_ADD(a, x, i) ((a).v = CADD((a).v, (x)))
#endif
#define A_MERGE(a, b) ((a).v = CADD((a).v, (b).v))
#if RK == 3
#define A_FINAL(a) ST_OUT(y, yo, (a).v / (CT)R)
#elif RK == 15
#define A_FINAL(a) ST_OUT(y, yo, sqrt((a).v))
#else
#define A_FINAL(a) ST_OUT(y, yo, (a).v)
#endif
#if CT_FLOAT || RK == 3
#define TOUT_T TOUT_SAME
#define ST_OUT ST_SAME
#else
#define TOUT_T long
#define ST_OUT ST_LONG
#endif

#elif RK == 2
/* prod */
typedef struct {
    CT v;
} ACC;
#define A_INIT(a) ((a).v = (CT)1)
#define A_ADD(a, x, i) ((a).v = CMUL((a).v, (x)))
#define A_MERGE(a, b) ((a).v = CMUL((a).v, (b).v))
#define A_FINAL(a) ST_OUT(y, yo, (a).v)
#if CT_FLOAT
#define TOUT_T TOUT_SAME
#define ST_OUT ST_SAME
#else
#define TOUT_T long
#define ST_OUT ST_LONG
#endif

#elif RK == 4
/* nanmean: sum and count of the non-NaN elements */
typedef struct {
    CT v;
    long n;
} ACC;
#define A_INIT(a) ((a).v = (CT)0, (a).n = 0)
#define A_ADD(a, x, i) (CISNAN(x) ? 0 : ((a).v += (x), (a).n++))
#define A_MERGE(a, b) ((a).v += (b).v, (a).n += (b).n)
#define A_FINAL(a) ST_OUT(y, yo, (a).v / (CT)(a).n)
#define TOUT_T TOUT_SAME
#define ST_OUT ST_SAME

#elif RK == 5 || RK == 6 || RK == 16 || RK == 17
/* amax (5), amin (6), inf-norm (16), -inf-norm (17): NaN propagates */
typedef struct {
    CT v;
} ACC;
#if RK == 5 || RK == 16
#define A_INIT(a) ((a).v = CT_LOWEST)
#define RBETTER(x, v) ((x) > (v) || CISNAN(x))
#else
#define A_INIT(a) ((a).v = CT_HIGHEST)
#define RBETTER(x, v) ((x) < (v) || CISNAN(x))
#endif
#if RK >= 16
#define RPRE(x) CABS(x)
#else
#define RPRE(x) (x)
#endif
#define A_ADD(a, x, i) ((a).v = RBETTER(RPRE(x), (a).v) ? RPRE(x) : (a).v)
#define A_MERGE(a, b) ((a).v = RBETTER((b).v, (a).v) ? (b).v : (a).v)
#define A_FINAL(a) ST_OUT(y, yo, (a).v)
#define TOUT_T TOUT_SAME
#define ST_OUT ST_SAME

#elif RK == 7 || RK == 8
/* argmax (7), argmin (8), also max.dim/min.dim (values to y2): the first
 * index of the extreme; a NaN is the extreme, the first NaN wins. */
typedef struct {
    CT v;
    long i;
} ACC;
#define A_INIT(a) ((a).v = (RK == 7 ? CT_LOWEST : CT_HIGHEST), (a).i = LONG_MAX)
#if RK == 7
#define RGT(x, v) ((x) > (v))
#else
#define RGT(x, v) ((x) < (v))
#endif
#define RTAKE(x, xi, v, vi)                                                                \
    (CISNAN(x) ? (!CISNAN(v) || (xi) < (vi))                                               \
               : (!CISNAN(v) && (RGT(x, v) || ((x) == (v) && (xi) < (vi)))))
#define A_ADD(a, x, idx)                                                                   \
    do {                                                                                   \
        CT x_ = (x);                                                                       \
        long i_ = (idx);                                                                   \
        if (RTAKE(x_, i_, (a).v, (a).i)) {                                                 \
            (a).v = x_;                                                                    \
            (a).i = i_;                                                                    \
        }                                                                                  \
    } while (0)
#define A_MERGE(a, b) A_ADD(a, (b).v, (b).i)
/* Folding in ascending index order (the CPU loops): a later element wins
 * only when strictly better or a first NaN; the first element always. */
#if RK == 7
#define A_ADDS(a, x, idx)                                                                  \
    do {                                                                                   \
        CT x_ = (x);                                                                       \
        bool t_ = !CISNAN((a).v) && (!(x_ <= (a).v) || (a).i == LONG_MAX);                 \
        (a).v = t_ ? x_ : (a).v;                                                           \
        (a).i = t_ ? (long)(idx) : (a).i;                                                  \
    } while (0)
#else
#define A_ADDS(a, x, idx)                                                                  \
    do {                                                                                   \
        CT x_ = (x);                                                                       \
        bool t_ = !CISNAN((a).v) && (!(x_ >= (a).v) || (a).i == LONG_MAX);                 \
        (a).v = t_ ? x_ : (a).v;                                                           \
        (a).i = t_ ? (long)(idx) : (a).i;                                                  \
    } while (0)
#endif
#define A_FINAL(a)                                                                         \
    do {                                                                                   \
        y[yo] = (a).i;                                                                     \
        if (w2)                                                                            \
            ST_IN(y2, yo2, (a).v);                                                         \
    } while (0)
#define TOUT_T long
#define TOUT2_T TIN_T

#elif RK == 9 || RK == 10
/* any (9), all (10) */
typedef struct {
    int v;
} ACC;
#if RK == 9
#define A_INIT(a) ((a).v = 0)
#define A_ADD(a, x, i) ((a).v |= ((x) != 0))
#define A_MERGE(a, b) ((a).v |= (b).v)
#else
#define A_INIT(a) ((a).v = 1)
#define A_ADD(a, x, i) ((a).v &= ((x) != 0))
#define A_MERGE(a, b) ((a).v &= (b).v)
#endif
#define A_FINAL(a) (y[yo] = (uchar)(a).v)
#define TOUT_T uchar

#elif RK == 11 || RK == 18
/* count_nonzero (11, int64 result), 0-"norm" (18, result of the input) */
typedef struct {
    long v;
} ACC;
#define A_INIT(a) ((a).v = 0)
#define A_ADD(a, x, i) ((a).v += ((x) != 0))
#define A_MERGE(a, b) ((a).v += (b).v)
#if RK == 11
#define A_FINAL(a) (y[yo] = (a).v)
#define TOUT_T long
#else
#define A_FINAL(a) ST_IN(y, yo, (CT)(a).v)
#define TOUT_T TOUT_SAME
#endif

#elif RK == 12
/* var/std (Welford; p0: 1 for std; p1: correction), mean to y2 */
typedef struct {
    CT m;
    CT m2;
    long n;
} ACC;
#define A_INIT(a) ((a).m = (CT)0, (a).m2 = (CT)0, (a).n = 0)
#define A_ADD(a, x, i)                                                                     \
    do {                                                                                   \
        CT x_ = (x);                                                                       \
        (a).n++;                                                                           \
        CT d_ = x_ - (a).m;                                                                \
        (a).m += d_ / (CT)(a).n;                                                           \
        (a).m2 += d_ * (x_ - (a).m);                                                       \
    } while (0)
#define A_MERGE(a, b)                                                                      \
    do {                                                                                   \
        if ((b).n > 0) {                                                                   \
            if ((a).n == 0) {                                                              \
                (a) = (b);                                                                 \
            } else {                                                                       \
                long n_ = (a).n + (b).n;                                                   \
                CT d_ = (b).m - (a).m;                                                     \
                CT f_ = (CT)(b).n / (CT)n_;                                                \
                (a).m += d_ * f_;                                                          \
                (a).m2 += (b).m2 + d_ * d_ * (CT)(a).n * f_;                               \
                (a).n = n_;                                                                \
            }                                                                              \
        }                                                                                  \
    } while (0)
/* Four elements at once: their mean and squared deviations in registers,
 * merged as one block (one division instead of four). */
#undef A_ADD4
#define A_ADD4(a, v, r)                                                                    \
    do {                                                                                   \
        ACC b_;                                                                            \
        CT s_ = ((v).s0 + (v).s1) + ((v).s2 + (v).s3);                                     \
        b_.m = s_ * (CT)0.25;                                                              \
        CT e0 = (v).s0 - b_.m, e1 = (v).s1 - b_.m, e2 = (v).s2 - b_.m, e3 = (v).s3 - b_.m; \
        b_.m2 = (e0 * e0 + e1 * e1) + (e2 * e2 + e3 * e3);                                 \
        b_.n = 4;                                                                          \
        A_MERGE(a, b_);                                                                    \
    } while (0)
#define A_FINAL(a)                                                                         \
    do {                                                                                   \
        CT dv_ = (CT)(a).n - (CT)p1;                                                       \
        CT var_ = (a).m2 / (dv_ > (CT)0 ? dv_ : (CT)0);                                    \
        ST_IN(y, yo, p0 != 0 ? sqrt(var_) : var_);                                         \
        if (w2)                                                                            \
            ST_IN(y2, yo2, (a).n > 0 ? (a).m : (CT)NAN);                                   \
    } while (0)
#define TOUT_T TOUT_SAME

#elif RK == 14
/* p-norm (p0 = p): sum |x|^p, then ^(1/p) */
typedef struct {
    CT v;
} ACC;
#define A_INIT(a) ((a).v = (CT)0)
#define A_ADD(a, x, i) ((a).v += pow(fabs(x), (CT)p0))
#define A_MERGE(a, b) ((a).v += (b).v)
#define A_FINAL(a) ST_IN(y, yo, pow((a).v, (CT)1 / (CT)p0))
#define TOUT_T TOUT_SAME

#elif RK == 19
/* logsumexp: online max and sum of exp(x - max) */
typedef struct {
    CT m;
    CT s;
} ACC;
#define A_INIT(a) ((a).m = -(CT)INFINITY, (a).s = (CT)0)
#define A_ADD(a, x, i)                                                                     \
    do {                                                                                   \
        CT x_ = (x);                                                                       \
        if (isnan(x_)) {                                                                   \
            (a).m = x_;                                                                    \
        } else if (!isnan((a).m) && x_ != -(CT)INFINITY) {                                 \
            if (x_ > (a).m) {                                                              \
                (a).s = (a).s * exp((a).m - x_) + (CT)1;                                   \
                (a).m = x_;                                                                \
            } else if ((a).m != (CT)INFINITY) {                                            \
                (a).s += exp(x_ - (a).m);                                                  \
            }                                                                              \
        }                                                                                  \
    } while (0)
#define A_MERGE(a, b)                                                                      \
    do {                                                                                   \
        if (isnan((b).m)) {                                                                \
            (a).m = (b).m;                                                                 \
        } else if (!isnan((a).m) && (b).m != -(CT)INFINITY) {                              \
            if ((a).m == -(CT)INFINITY) {                                                  \
                (a) = (b);                                                                 \
            } else if ((a).m == (CT)INFINITY || (b).m == (CT)INFINITY) {                   \
                (a).m = (CT)INFINITY;                                                      \
            } else if ((a).m >= (b).m) {                                                   \
                (a).s += (b).s * exp((b).m - (a).m);                                       \
            } else {                                                                       \
                (a).s = (a).s * exp((a).m - (b).m) + (b).s;                                \
                (a).m = (b).m;                                                             \
            }                                                                              \
        }                                                                                  \
    } while (0)
#define A_FINAL(a) ST_IN(y, yo, (isnan((a).m) || isinf((a).m)) ? (a).m : log((a).s) + (a).m)
#define TOUT_T TOUT_SAME

#elif RK == 20
/* aminmax: min to y, max to y2 */
typedef struct {
    CT lo;
    CT hi;
} ACC;
#define A_INIT(a) ((a).lo = CT_HIGHEST, (a).hi = CT_LOWEST)
#define A_ADD(a, x, i)                                                                     \
    do {                                                                                   \
        CT x_ = (x);                                                                       \
        (a).lo = ((x_ < (a).lo) || CISNAN(x_)) ? x_ : (a).lo;                              \
        (a).hi = ((x_ > (a).hi) || CISNAN(x_)) ? x_ : (a).hi;                              \
    } while (0)
/* Lows with lows, highs with highs: an empty state (lo = +inf, hi = -inf)
 * leaves a unchanged. */
#define A_MERGE(a, b)                                                                      \
    do {                                                                                   \
        (a).lo = (((b).lo < (a).lo) || CISNAN((b).lo)) ? (b).lo : (a).lo;                  \
        (a).hi = (((b).hi > (a).hi) || CISNAN((b).hi)) ? (b).hi : (a).hi;                  \
    } while (0)
#define A_FINAL(a)                                                                         \
    do {                                                                                   \
        ST_IN(y, yo, (a).lo);                                                              \
        ST_IN(y2, yo2, (a).hi);                                                            \
    } while (0)
#define TOUT_T TOUT_SAME
#endif

#ifndef TOUT2_T
#define TOUT2_T TOUT_T
#endif
#ifndef A_ADDS
#define A_ADDS(a, x, i) A_ADD(a, x, i)
#endif

/* The geometry every kernel of the kind takes (see ops/reduce/reduce.h). */
#define RED_GEOM_ARGS                                                                      \
    global TOUT_T *y, long yoff, global TOUT2_T *y2, long yoff2, int w2, long O, long R,   \
        long4 ksz, long4 kis, long4 kos, long4 kos2, long4 rsz, long4 ris, long4 rlm,      \
        int rrank, PT p0, PT p1

/* Element offset (relative to the output's base) and logical index of
 * reduced position r. */
#define RED_ROFF(r) (rrank == 1 ? (r) * ris.x : red_koff((r), rsz, ris))
#define RED_RIDX(r) (rrank == 1 ? (r) * rlm.x : red_koff((r), rsz, rlm))

/* Folds the input elements [r0, r1) of one output starting at lane, step L. */
#define RED_FOLD(a, xb, r0, r1, lane, L, vec)                                              \
    do {                                                                                   \
        if (vec) {                                                                         \
            long nq_ = ((r1) - (r0)) / 4;                                                  \
            for (long q_ = (lane); q_ < nq_; q_ += (L)) {                                  \
                long r_ = (r0) + 4 * q_;                                                   \
                A_ADD4(a, VLD4(x, (xb) + r_), r_);                                         \
            }                                                                              \
            for (long r_ = (r0) + 4 * nq_ + (lane); r_ < (r1); r_ += (L))                  \
                A_ADD(a, LD(x, (xb) + r_), r_);                                            \
        } else if (rrank == 1) {                                                           \
            for (long r_ = (r0) + (lane); r_ < (r1); r_ += (L))                            \
                A_ADD(a, LD(x, (xb) + r_ * ris.x), r_ * rlm.x);                            \
        } else {                                                                           \
            for (long r_ = (r0) + (lane); r_ < (r1); r_ += (L))                            \
                A_ADD(a, LD(x, (xb) + red_koff(r_, rsz, ris)), red_koff(r_, rsz, rlm));    \
        }                                                                                  \
    } while (0)

/* Tree of the L lanes of each slot in local memory; lane 0 ends with the
 * slot's state in a.  Every item of the group must reach it. */
#define RED_TREE(a, lm, lid, lane, L)                                                      \
    do {                                                                                   \
        lm[lid] = a;                                                                       \
        barrier(CLK_LOCAL_MEM_FENCE);                                                      \
        for (int h_ = (L) / 2; h_ > 0; h_ >>= 1) {                                         \
            if ((lane) < h_) {                                                             \
                ACC b_ = lm[(lid) + h_];                                                   \
                A_MERGE(a, b_);                                                            \
                lm[lid] = a;                                                               \
            }                                                                              \
            barrier(CLK_LOCAL_MEM_FENCE);                                                  \
        }                                                                                  \
    } while (0)

/* Writes the outputs of output ob, or its partial state for split s. */
#define RED_EMIT(a, ob, s, S)                                                              \
    do {                                                                                   \
        if ((S) == 1) {                                                                    \
            long yo = yoff + red_koff((ob), ksz, kos);                                     \
            long yo2 = yoff2 + red_koff((ob), ksz, kos2);                                  \
            (void)yo2;                                                                     \
            A_FINAL(a);                                                                    \
        } else {                                                                           \
            part[(ob) * (S) + (s)] = a;                                                    \
        }                                                                                  \
    } while (0)

#if RED_CPU
/*
 * CPU devices (RED_CPU, ops/reduce/reduce_launch.c): one kernel per kind, work
 * items of one, each a serial loop that the compiler can vectorise: RW
 * accumulators side by side (lane j takes every RW-th element of a row, or
 * output j of RW adjacent outputs), merged in a fixed tree at the end.  No
 * local memory or barriers, which would make POCL run each work-group as a
 * loop over its items.  Modes (the order of operations depends on the
 * shape only):
 *   0 rows: item i folds chunk i % S of outputs (i / S) * per ... + per - 1,
 *     RW lanes per output;
 *   1 columns: item i folds chunk i % S of blocks (i / S) * per ... of RW
 *     adjacent outputs (kept dim 0), one accumulator each (one explicit
 *     vector for the one-value floating kinds when the block is aligned),
 *     walking the reduced range;
 *   2 merge: item i folds the S partial states of outputs i * per ... in
 *     order and writes the results.
 */
/* The one-value floating kinds fold RW lanes as one explicit vector
 * (POCL 5.0 left the accumulator array scalar): AV_ID the identity,
 * AV_ADD(va, v) the fold, AV_MERGE(a, b) the lane merge on vectors (the
 * same as A_MERGE on each lane). */
#if CT_FLOAT && (RK == 0 || RK == 1 || RK == 2 || RK == 3 || RK == 5 || RK == 6 || \
                 RK == 13 || RK == 15 || RK == 16 || RK == 17)
#define RED_VLANES 1
/* Column blocks folded side by side in mode 1 (four 16-lane vectors: 256
 * bytes of float32 per row). */
#define RED_CG 4
#define AV_NAN(v) ((v) != (v))
#if RK == 0 || RK == 3
#define AV_ID ((CT)0)
#define AV_ADD(va, v) ((va) + (v))
#elif RK == 1
#define AV_ID ((CT)0)
#define AV_ADD(va, v) ((va) + select((v), (CTV)0, AV_NAN(v)))
#elif RK == 2
#define AV_ID ((CT)1)
#define AV_ADD(va, v) ((va) * (v))
#elif RK == 13
#define AV_ID ((CT)0)
#define AV_ADD(va, v) ((va) + fabs(v))
#elif RK == 15
#define AV_ID ((CT)0)
#define AV_ADD(va, v) ((va) + (v) * (v))
#elif RK == 5
#define AV_ID (-(CT)INFINITY)
#define AV_ADD(va, v) select((va), (v), ((v) > (va)) | AV_NAN(v))
#elif RK == 6
#define AV_ID ((CT)INFINITY)
#define AV_ADD(va, v) select((va), (v), ((v) < (va)) | AV_NAN(v))
#elif RK == 16
#define AV_ID (-(CT)INFINITY)
#define AV_ADD(va, v) select((va), fabs(v), (fabs(v) > (va)) | AV_NAN(v))
#else
#define AV_ID ((CT)INFINITY)
#define AV_ADD(va, v) select((va), fabs(v), (fabs(v) < (va)) | AV_NAN(v))
#endif
/* Merging two lane vectors: sums and products combine, the extreme kinds
 * take the other side where it is better (or NaN). */
#if RK == 2
#define AV_MERGE(a, b) ((a) * (b))
#elif RK == 5 || RK == 16
#define AV_MERGE(a, b) select((a), (b), ((b) > (a)) | AV_NAN(b))
#elif RK == 6 || RK == 17
#define AV_MERGE(a, b) select((a), (b), ((b) < (a)) | AV_NAN(b))
#else
#define AV_MERGE(a, b) ((a) + (b))
#endif
#else
#define RED_VLANES 0
#endif

/* Lanes across a row: RW, but one for nanmean, the p-norm, logsumexp and
 * aminmax, whose 16 unrolled states cost POCL up to 1.4 s of compile per
 * kernel (logsumexp: 1.41 s with 16 lanes, 0.69 s with one, on the dev VM)
 * for ops that are rarely on a hot path. */
#if RK == 4 || RK == 14 || RK == 19 || RK == 20
#define RL 1
#else
#define RL RW
#endif
__kernel void KNAME(_cpu)(global const TIN_T *x, long xoff, global ACC *part, long S,
                          long chunk, long per, int mode, int vec, RED_GEOM_ARGS)
{
    /* Accumulator arrays are indexed by constants only (loops over them
     * unrolled), so they live in registers; everything else is plain
     * loops with one accumulator, to keep the code (and POCL's compile
     * time) small. */
    long i = (long)get_global_id(0);
    if (mode == 2) {
        for (long ob = i * per; ob < min(O, (i + 1) * per); ob++) {
            ACC a;
            A_INIT(a);
            for (long j = 0; j < S; j++) {
                ACC b = part[ob * S + j];
                A_MERGE(a, b);
            }
            long yo = yoff + red_koff(ob, ksz, kos);
            long yo2 = yoff2 + red_koff(ob, ksz, kos2);
            (void)yo2;
            A_FINAL(a);
        }
        return;
    }
    long s = i % S, t = i / S;
    long r0 = s * chunk, r1 = min(R, r0 + chunk);
    if (mode == 1) {
        long nb = (ksz.x + RW - 1) / RW;
        for (long u = t * per; u < min(nb * (O / ksz.x), (t + 1) * per); u++) {
            long c0 = (u % nb) * RW;
            long o0 = (u / nb) * ksz.x + c0;
            int nw = (int)min((long)RW, ksz.x - c0);
            long xb = xoff + red_koff(o0, ksz, kis);
#if RED_VLANES
            /* RED_CG full aligned blocks of this item side by side: each
             * row is read as RED_CG * RW contiguous elements instead of RW
             * (the column walk is memory-bound: a 64-byte strip per row
             * crossed a page per row and defeated the prefetcher); per
             * output the same folds in the same order as one block. */
            if (kis.x == 1 && rrank == 1 && c0 + RED_CG * RW <= ksz.x &&
                u + RED_CG <= min(nb * (O / ksz.x), (t + 1) * per) && xb % RW == 0 &&
                ris.x % RW == 0) {
                CTV cv[RED_CG];
#pragma unroll
                for (int q = 0; q < RED_CG; q++)
                    cv[q] = (CTV)AV_ID;
                for (long r = r0; r < r1; r++) {
                    global const TIN_T *xr = x + xb + r * ris.x;
#pragma unroll
                    for (int q = 0; q < RED_CG; q++)
                        cv[q] = AV_ADD(cv[q], LDV(xr, q * RW));
                }
                for (int q = 0; q < RED_CG; q++) {
                    CT cs[RW];
                    ACC c[RW];
                    RCATV(vstore, RW)(cv[q], 0, cs);
                    for (int j = 0; j < RW; j++)
                        c[j].v = cs[j];
                    long oq = o0 + q * RW;
                    if (S == 1) {
                        long yb = yoff + red_koff(oq, ksz, kos),
                             yb2 = yoff2 + red_koff(oq, ksz, kos2);
                        for (int j = 0; j < RW; j++) {
                            long yo = yb + j * kos.x, yo2 = yb2 + j * kos2.x;
                            (void)yo2;
                            A_FINAL(c[j]);
                        }
                    } else {
                        for (int j = 0; j < RW; j++)
                            part[(oq + j) * S + s] = c[j];
                    }
                }
                u += RED_CG - 1;
                continue;
            }
#endif
            if (nw == RW && kis.x == 1 && rrank == 1) {
                ACC c[RW];
#if RED_VLANES
                /* The block as one explicit vector when every row of it
                 * starts at a multiple of RW: the same operations, lane by
                 * lane, as the accumulator array below. */
                if (xb % RW == 0 && ris.x % RW == 0) {
                    CTV cv = (CTV)AV_ID;
                    for (long r = r0; r < r1; r++)
                        cv = AV_ADD(cv, LDV(x, xb + r * ris.x));
                    CT cs[RW];
                    RCATV(vstore, RW)(cv, 0, cs);
#pragma unroll
                    for (int j = 0; j < RW; j++)
                        c[j].v = cs[j];
                } else
#endif
                {
#pragma unroll
                    for (int j = 0; j < RW; j++)
                        A_INIT(c[j]);
                    for (long r = r0; r < r1; r++) {
                        global const TIN_T *xr = x + xb + r * ris.x;
                        long ri = r * rlm.x;
#pragma unroll
                        for (int j = 0; j < RW; j++)
                            A_ADDS(c[j], LD(xr, j), ri);
                    }
                }
                if (S == 1) {
                    long yb = yoff + red_koff(o0, ksz, kos), yb2 = yoff2 + red_koff(o0, ksz, kos2);
#pragma unroll
                    for (int j = 0; j < RW; j++) {
                        long yo = yb + j * kos.x, yo2 = yb2 + j * kos2.x;
                        (void)yo2;
                        A_FINAL(c[j]);
                    }
                } else {
#pragma unroll
                    for (int j = 0; j < RW; j++)
                        part[(o0 + j) * S + s] = c[j];
                }
            } else {
                for (int j = 0; j < nw; j++) {
                    ACC b;
                    A_INIT(b);
                    for (long r = r0; r < r1; r++)
                        A_ADD(b, LD(x, xb + j * kis.x + RED_ROFF(r)), RED_RIDX(r));
                    RED_EMIT(b, o0 + j, s, S);
                }
            }
        }
        return;
    }
    for (long ob = t * per; ob < min(O, (t + 1) * per); ob++) {
        long xb = xoff + red_koff(ob, ksz, kis);
        ACC b;
        A_INIT(b);
#if RED_VLANES
        if (vec) {
            /* Runs of `run` contiguous elements, each from its first
             * element at a multiple of RW (the head before it and the tail
             * into b), RW lanes in one vector, halves merged at the end. */
            CTV va = (CTV)AV_ID;
            long run = rrank == 1 ? R : rsz.x;
            for (long r = r0; r < r1;) {
                long e = min(r1, (r / run + 1) * run);
                long o = xb + RED_ROFF(r);
                long h = min(e - r, (RW - o % RW) % RW);
                for (long k = 0; k < h; k++)
                    A_ADD(b, LD(x, o + k), 0);
                long nq = (e - r - h) / RW;
                global const TIN_T *xr = x + o + h;
                for (long q = 0; q < nq; q++)
                    va = AV_ADD(va, LDV(xr, q * RW));
                for (long k = h + nq * RW; k < e - r; k++)
                    A_ADD(b, LD(x, o + k), 0);
                r = e;
            }
#if RW == 16
            RCATV(CT, 8) v8 = AV_MERGE(va.lo, va.hi);
#else
            RCATV(CT, 8) v8 = va;
#endif
            RCATV(CT, 4) v4 = AV_MERGE(v8.lo, v8.hi);
            RCATV(CT, 2) v2 = AV_MERGE(v4.lo, v4.hi);
            ACC a0, a1;
            a0.v = v2.lo;
            a1.v = v2.hi;
            A_MERGE(a0, a1);
            A_MERGE(a0, b);
            b = a0;
        } else {
            for (long r = r0; r < r1; r++)
                A_ADD(b, LD(x, xb + RED_ROFF(r)), RED_RIDX(r));
        }
#else
        if (vec) {
            /* Runs of `run` contiguous elements (the innermost reduced dim),
             * RL lanes across each, the runs' tails into b. */
            ACC a[RL];
#pragma unroll
            for (int j = 0; j < RL; j++)
                A_INIT(a[j]);
            long run = rrank == 1 ? R : rsz.x;
            for (long r = r0; r < r1;) {
                long e = min(r1, (r / run + 1) * run);
                global const TIN_T *xr = x + xb + RED_ROFF(r);
                long nq = (e - r) / RL;
                for (long q = 0; q < nq; q++) {
                    long k = q * RL;
#pragma unroll
                    for (int j = 0; j < RL; j++)
                        A_ADDS(a[j], LD(xr, k + j), r + k + j);
                }
                for (long k = nq * RL; k < e - r; k++)
                    A_ADDS(b, LD(xr, k), r + k);
                r = e;
            }
#pragma unroll
            for (int h = RL / 2; h > 0; h >>= 1)
#pragma unroll
                for (int j = 0; j < RL / 2; j++)
                    if (j < h)
                        A_MERGE(a[j], a[j + h]);
            A_MERGE(a[0], b);
            b = a[0];
        } else {
            for (long r = r0; r < r1; r++)
                A_ADD(b, LD(x, xb + RED_ROFF(r)), RED_RIDX(r));
        }
#endif
        RED_EMIT(b, ob, s, S);
    }
}
#else
/* Reduced dimension contiguous (or few outputs): L lanes per output. */
__kernel __attribute__((reqd_work_group_size(RWG, 1, 1))) void KNAME(_row)(
    global const TIN_T *x, long xoff, global ACC *part, int L, long S, long chunk, int vec,
    RED_GEOM_ARGS)
{
    local ACC lm[RWG];
    int lid = (int)get_local_id(0);
    int lane = lid & (L - 1);
    long g = (long)get_group_id(0);
    long s = g % S;
    long ob = (g / S) * (RWG / L) + lid / L;
    ACC a;
    A_INIT(a);
    if (ob < O) {
        long xb = xoff + red_koff(ob, ksz, kis);
        long r0 = s * chunk;
        long r1 = min(R, r0 + chunk);
        RED_FOLD(a, xb, r0, r1, lane, L, vec);
    }
    RED_TREE(a, lm, lid, lane, L);
    if (lane == 0 && ob < O)
        RED_EMIT(a, ob, s, S);
}

/* Second launch of a split reduction: folds the S states of each output. */
__kernel __attribute__((reqd_work_group_size(RWG, 1, 1))) void KNAME(_merge)(
    global const ACC *part, int L, long S, RED_GEOM_ARGS)
{
    local ACC lm[RWG];
    int lid = (int)get_local_id(0);
    int lane = lid & (L - 1);
    long ob = (long)get_group_id(0) * (RWG / L) + lid / L;
    ACC a;
    A_INIT(a);
    if (ob < O)
        for (long j = lane; j < S; j += L) {
            ACC b = part[ob * S + j];
            A_MERGE(a, b);
        }
    RED_TREE(a, lm, lid, lane, L);
    if (lane == 0 && ob < O) {
        long yo = yoff + red_koff(ob, ksz, kos);
        long yo2 = yoff2 + red_koff(ob, ksz, kos2);
        (void)yo2;
        A_FINAL(a);
    }
}
#endif /* RED_CPU */

#undef ACC
#undef KNAME
#undef A_INIT
#undef A_ADD
#undef A_ADD4
#undef A_ADDS
#undef RL
#undef RED_VLANES
#undef RED_CG
#undef AV_NAN
#undef AV_ID
#undef AV_ADD
#undef AV_MERGE
#undef A_MERGE
#undef A_FINAL
#undef TOUT_T
#undef TOUT2_T
#undef TOUT_SAME
#undef ST_OUT
#undef ST_SAME
#undef ST_LONG
#undef RBETTER
#undef RPRE
#undef RGT
#undef RTAKE
#undef RED_GEOM_ARGS
#undef RED_ROFF
#undef RED_RIDX
#undef RED_FOLD
#undef RED_TREE
#undef RED_EMIT
#undef RK
#undef KN
