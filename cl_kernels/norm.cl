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

/* softmax (logm = 0) or log_softmax (logm = 1) over rows of n elements. */
__kernel __attribute__((reqd_work_group_size(RWG, 1, 1))) void
norm_softmax(global const TIN_T *x, long xoff, global TOUT_T *y, long yoff, long rows, long n,
             long inner, int L, int logm)
{
    local CT lm[RWG], ls[RWG];
    NORM_ROW
    CT m = -(CT)INFINITY, s = (CT)0;
    if (live)
        for (long j = lane; j < n; j += L)
            SM_ADD(m, s, LDX(x, xoff + base + j * inner));
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
        CT v = LDX(x, xoff + i) - m;
        STY(y, yoff + i, logm ? v - ls_ : exp(v) / s);
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
