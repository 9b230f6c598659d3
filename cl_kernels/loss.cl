/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cl_kernels/loss.cl: the kernels of the loss family (ops/loss/loss_nll.c):
 * nll_loss and nll_loss2d, forward and backward.
 *
 * The host builds one program per input dtype with T (storage type), KIND
 * (0 float/double, 1 half, 2 bfloat16) and CT (compute type: float, or
 * double for float64) defined, and RWG the work-group size.  The input is
 * seen as [N, C, S] contiguous (S = 1 for nll_loss), the target as M = N*S
 * contiguous int64 values, element i = n * S + s reading input
 * n * C * S + target * S + s.  A target that is neither ignore_index nor in
 * [0, C) is recorded in the flag buffer (first reporter wins, an int32
 * atomic_cmpxchg, as the index family's) and counts as ignored.
 *
 * The reduced forward is two launches with a fixed order of operations:
 * loss_nll_part folds a contiguous chunk of elements per work-group into
 * (sum of -w * x, sum of w) by a strided per-lane fold and a tree in local
 * memory; loss_nll_finish (one group) folds the partials the same way and
 * writes output (divided by the total weight for mean) and total_weight.
 */
#define LD(p, i) CLOPS_LD(KIND, CT, p, i)
#define ST(p, i, v) CLOPS_ST(KIND, T, CT, p, i, v)

/* v rounded to the storage type: mse_loss rounds its difference, and the
 * reduced elementwise losses their element losses, to float16/bfloat16 as
 * PyTorch's kernels do (smooth_l1 and huber compute in float). */
#if KIND == 1
#define RND(v) ((CT)clops_round_half((float)(v)))
#elif KIND == 2
#define RND(v) ((CT)clops_round_bf16((float)(v)))
#else
#define RND(v) (v)
#endif

/* The element loop of the one-value-per-element kernels: a grid-stride
 * loop, or on CPU devices (LOSS_CPU) one contiguous range per work item
 * (POCL runs a work-group's items one after another, so a grid-stride loop
 * there touched a cache line per element: mse_loss_backward on [256, 4096]
 * 31 ms of CPU time against 0.46 ms for PyTorch). */
#ifdef LOSS_CPU
#define LOSS_ITEMS(i, M)                                                                         \
    for (long per_ = ((M) + (long)get_global_size(0) - 1) / (long)get_global_size(0),            \
              i = (long)get_global_id(0) * per_, e_ = min(i + per_, (long)(M));                  \
         i < e_; i++)
#else
#define LOSS_ITEMS(i, M) for (long i = get_global_id(0); i < M; i += get_global_size(0))
#endif

/* Records an out-of-range target (first reporter wins). */
void loss_report(__global int *err, long value)
{
    if (atomic_cmpxchg(err, 0, 1) == 0) {
        __global long *e = (__global long *)err;
        e[1] = value;
    }
}

/* Loss and weight of element i: false (both 0) when ignored or out of
 * range. */
bool loss_elem(global const T *x, long xoff, global const long *t, long toff,
               global const T *w, long woff, int hasw, long i, long C, long S, long ignore,
               __global int *err, CT *loss, CT *wt)
{
    long tg = t[toff + i];
    *loss = (CT)0;
    *wt = (CT)0;
    if (tg == ignore)
        return false;
    if (tg < 0 || tg >= C) {
        loss_report(err, tg);
        return false;
    }
    long n = i / S, s = i - n * S;
    CT wv = hasw ? LD(w, woff + tg) : (CT)1;
    *wt = wv;
    *loss = -wv * LD(x, xoff + (n * C + tg) * S + s);
    return true;
}

/* reduction=none: out[i] = -w[t] * x[i, t] (0 where ignored); a
 * grid-stride loop. */
__kernel void loss_nll_none(global const T *x, long xoff, global const long *t, long toff,
                            global const T *w, long woff, int hasw, global T *out, long ooff,
                            long M, long C, long S, long ignore, __global int *err)
{
    LOSS_ITEMS(i, M) {
        CT l, wt;
        loss_elem(x, xoff, t, toff, w, woff, hasw, i, C, S, ignore, err, &l, &wt);
        ST(out, ooff + i, l);
    }
}

/* Folds (a, b) pairs of the group's lanes by a tree in local memory; lane
 * 0 ends with the totals. */
void loss_tree(local CT *la, local CT *lb, CT a, CT b)
{
    int lid = (int)get_local_id(0);
    la[lid] = a;
    lb[lid] = b;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int h = RWG / 2; h > 0; h >>= 1) {
        if (lid < h) {
            la[lid] += la[lid + h];
            lb[lid] += lb[lid + h];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}

/* Partial sums of group g over elements [g * chunk, (g + 1) * chunk) into
 * part[2g] (loss) and part[2g + 1] (weight). */
__kernel __attribute__((reqd_work_group_size(RWG, 1, 1))) void
loss_nll_part(global const T *x, long xoff, global const long *t, long toff, global const T *w,
              long woff, int hasw, global CT *part, long M, long C, long S, long ignore,
              long chunk, __global int *err)
{
    local CT la[RWG], lb[RWG];
    long g = get_group_id(0);
    long lo = g * chunk, hi = min(lo + chunk, M);
    CT a = (CT)0, b = (CT)0;
    for (long i = lo + (long)get_local_id(0); i < hi; i += RWG) {
        CT l, wt;
        if (loss_elem(x, xoff, t, toff, w, woff, hasw, i, C, S, ignore, err, &l, &wt)) {
            a += l;
            b += wt;
        }
    }
    loss_tree(la, lb, a, b);
    if (get_local_id(0) == 0) {
        part[2 * g] = la[0];
        part[2 * g + 1] = lb[0];
    }
}

/* Folds the nparts partials; writes output (sum, or sum / total weight
 * when mean) and total_weight. */
__kernel __attribute__((reqd_work_group_size(RWG, 1, 1))) void
loss_nll_finish(global const CT *part, long nparts, global T *out, long ooff, global T *tw,
                long twoff, int mean)
{
    local CT la[RWG], lb[RWG];
    CT a = (CT)0, b = (CT)0;
    for (long p = (long)get_local_id(0); p < nparts; p += RWG) {
        a += part[2 * p];
        b += part[2 * p + 1];
    }
    loss_tree(la, lb, a, b);
    if (get_local_id(0) == 0) {
        ST(out, ooff, mean ? la[0] / lb[0] : la[0]);
        ST(tw, twoff, lb[0]);
    }
}

#ifdef LOSS_CPU
/* loss_tree's halving tree on a private array: v[0] ends with the total. */
void loss_tree_priv(CT *va, CT *vb)
{
    for (int h = RWG / 2; h > 0; h >>= 1)
        for (int j = 0; j < h; j++) {
            va[j] += va[j + h];
            vb[j] += vb[j + h];
        }
}

/* CPU devices (ops/loss/loss_nll.c, KIT_CPU): the reduced forward in one
 * work item, the operations of loss_nll_part (per group, RWG lane sums
 * strided by RWG, then loss_tree) and loss_nll_finish (lane p % RWG folds
 * partial p in order, then loss_tree) in the same order (the same bits),
 * without the partial buffer, the second launch and the host's fill of
 * the flag (zeroed here: one item, then loss_report as the others). */
__kernel void loss_nll_cpu(global const T *x, long xoff, global const long *t, long toff,
                           global const T *w, long woff, int hasw, global T *out, long ooff,
                           global T *tw, long twoff, int mean, long M, long C, long S,
                           long ignore, long chunk, long groups, __global int *err)
{
    CT la[RWG], lb[RWG], fa[RWG], fb[RWG];
    err[0] = 0;
    for (int j = 0; j < RWG; j++)
        fa[j] = fb[j] = (CT)0;
    for (long g = 0; g < groups; g++) {
        long lo = g * chunk, hi = min(lo + chunk, M);
        for (int j = 0; j < RWG; j++) {
            CT a = (CT)0, b = (CT)0;
            for (long i = lo + j; i < hi; i += RWG) {
                CT l, wt;
                if (loss_elem(x, xoff, t, toff, w, woff, hasw, i, C, S, ignore, err, &l, &wt)) {
                    a += l;
                    b += wt;
                }
            }
            la[j] = a;
            lb[j] = b;
        }
        loss_tree_priv(la, lb);
        fa[g % RWG] += la[0];
        fb[g % RWG] += lb[0];
    }
    loss_tree_priv(fa, fb);
    ST(out, ooff, mean ? fa[0] / fb[0] : fa[0]);
    ST(tw, twoff, fb[0]);
}
#endif

/* The backward: grad_input (zero-filled by the host, contiguous [N, C, S])
 * gets -(g / total_weight) * w[t] (mean) or -g * w[t] at [n, t, s]; g is
 * go[i] when per_elem (reduction=none with a batch) else go[0]; a
 * grid-stride loop. */
/* Batch entry i = n * S + s of loss_nll_backward and its CPU form: its
 * one value of grad_input, or the flag for a target out of range. */
void loss_nll_backward_one(global const T *go, long gooff, int per_elem, global const long *t,
                           long toff, global const T *w, long woff, int hasw,
                           global const T *tw, long twoff, int mean, global T *gi, long gioff,
                           long C, long S, long ignore, __global int *err, long i, long n)
{
    long tg = t[toff + i];
    if (tg == ignore)
        return;
    if (tg < 0 || tg >= C) {
        loss_report(err, tg);
        return;
    }
    CT g = LD(go, gooff + (per_elem ? i : 0));
    CT grad = mean ? -(g / LD(tw, twoff)) : -g;
    if (hasw)
        grad = LD(w, woff + tg) * grad;
    long s = i - n * S;
    ST(gi, gioff + (n * C + tg) * S + s, grad);
}

__kernel void loss_nll_backward(global const T *go, long gooff, int per_elem, global const long *t,
                                long toff, global const T *w, long woff, int hasw,
                                global const T *tw, long twoff, int mean, global T *gi,
                                long gioff, long M, long C, long S, long ignore,
                                __global int *err)
{
    LOSS_ITEMS(i, M) {
        loss_nll_backward_one(go, gooff, per_elem, t, toff, w, woff, hasw, tw, twoff, mean, gi,
                              gioff, C, S, ignore, err, i, i / S);
    }
}

#ifdef LOSS_CPU
/* loss_nll_backward on CPU devices without the host's zero fill: work
 * item by item, contiguous ranges of the M / S batch entries n, each
 * zeroing its [C, S] block of grad_input and then writing its S values
 * by loss_nll_backward_one, as loss_nll_backward does (the same bits).  The driver's
 * buffer fill runs on one thread: on 16 cores it was most of the call. */
__kernel void loss_nll_backward_cpu(global const T *go, long gooff, int per_elem,
                                    global const long *t, long toff, global const T *w, long woff,
                                    int hasw, global const T *tw, long twoff, int mean,
                                    global T *gi, long gioff, long M, long C, long S, long ignore,
                                    __global int *err)
{
    long CS = C * S;
    LOSS_ITEMS(n, M / S) {
        long j = gioff + n * CS;
        const long je = j + CS;
#if KIND == 0
        /* 8-wide zero stores (the element loop stayed scalar: 2x the
         * driver's fill on 2 cores) */
        for (; j < je && (j & 7) != 0; j++)
            gi[j] = (T)0;
        for (; j + 8 <= je; j += 8)
            vstore8((CT8)(0), 0, gi + j);
#endif
        for (; j < je; j++)
            ST(gi, j, (CT)0);
        for (long i = n * S; i < (n + 1) * S; i++)
            loss_nll_backward_one(go, gooff, per_elem, t, toff, w, woff, hasw, tw, twoff, mean,
                                  gi, gioff, C, S, ignore, err, i, n);
    }
}
#endif

/* --- elementwise losses (ops/loss/loss_pointwise.c) ----------------------------
 * x, y (and w when hasw) contiguous, already broadcast to M elements of T.
 * mode 0 mse_loss, 1 binary_cross_entropy (an input outside [0, 1] sets
 * bit 1 of the flag, a target outside [0, 1] bit 2), 2 smooth_l1_loss (p = beta), 3
 * huber_loss (p = delta). */

/* The loss of one element (PyTorch's formulas). */
CT loss_pw_value(int mode, CT x, CT y, CT p, __global int *err)
{
    if (mode == 0) {
        CT d = RND(x - y);
        return d * d;
    }
    if (mode == 1) {
        /* Bits of the flag: 1 an input, 2 a target outside [0, 1] (the
         * host reports the input first, whichever work item came first). */
        if (!(x >= (CT)0 && x <= (CT)1))
            atomic_or(err, 1);
        if (!(y >= (CT)0 && y <= (CT)1))
            atomic_or(err, 2);
        CT lx = max(log(x), (CT)-100), l1x = max(log1p(-x), (CT)-100);
        return (y - (CT)1) * l1x - y * lx;
    }
    CT z = fabs(x - y);
    if (mode == 2)
        return p == (CT)0 ? z : z < p ? (CT)0.5 * z * z / p : z - (CT)0.5 * p;
    return z < p ? (CT)0.5 * z * z : p * (z - (CT)0.5 * p);
}

/* reduction=none: out[i] = loss(x[i], y[i]) * w[i]; a grid-stride loop. */
__kernel void loss_pw_none(global const T *x, global const T *y, global const T *w, int hasw,
                           global T *out, long ooff, long M, int mode, CT p, __global int *err)
{
    LOSS_ITEMS(i, M) {
        CT l = loss_pw_value(mode, LD(x, i), LD(y, i), p, err);
        if (hasw)
            l *= LD(w, i);
        ST(out, ooff + i, l);
    }
}

/* Partials of mean/sum as loss_nll_part's: (sum of losses, count). */
__kernel __attribute__((reqd_work_group_size(RWG, 1, 1))) void
loss_pw_part(global const T *x, global const T *y, global const T *w, int hasw, global CT *part,
             long M, long chunk, int mode, CT p, __global int *err)
{
    local CT la[RWG], lb[RWG];
    long g = get_group_id(0);
    long lo = g * chunk, hi = min(lo + chunk, M);
    CT a = (CT)0, b = (CT)0;
    for (long i = lo + (long)get_local_id(0); i < hi; i += RWG) {
        CT l = RND(loss_pw_value(mode, LD(x, i), LD(y, i), p, err));
        a += hasw ? RND(l * LD(w, i)) : l;
        b += (CT)1;
    }
    loss_tree(la, lb, a, b);
    if (get_local_id(0) == 0) {
        part[2 * g] = la[0];
        part[2 * g + 1] = lb[0];
    }
}

#ifdef LOSS_CPU
/* CPU devices: loss_pw_part's group g as work item g, its RWG lanes one
 * after another and loss_tree's halving tree on private arrays (the same
 * operations in the same order: the same bits), without the work-group's
 * barriers. */
__kernel void loss_pw_part_cpu(global const T *x, global const T *y, global const T *w, int hasw,
                               global CT *part, long M, long chunk, int mode, CT p,
                               __global int *err)
{
    CT la[RWG], lb[RWG];
    long g = get_global_id(0);
    long lo = g * chunk, hi = min(lo + chunk, M);
    int j = 0;
#if KIND == 0
    /* mse_loss without weights: 8 adjacent lanes as one vector (lane j's
     * elements lo + j, lo + j + RWG, ... are adjacent to lane j + 1's),
     * each lane's sum in the same order */
    if (mode == 0 && !hasw)
        for (; j + 8 <= RWG; j += 8) {
            CT8 a = (CT8)(0), b = (CT8)(0);
            long i = lo + j;
            for (; i + 8 <= hi; i += RWG) {
                CT8 d = vload8(0, x + i) - vload8(0, y + i);
                a += d * d;
                b += (CT8)(1);
            }
            vstore8(a, 0, la + j);
            vstore8(b, 0, lb + j);
            for (int u = 0; u < 8 && i + u < hi; u++) {
                CT d = x[i + u] - y[i + u];
                la[j + u] += d * d;
                lb[j + u] += (CT)1;
            }
        }
#endif
    for (; j < RWG; j++) {
        CT a = (CT)0, b = (CT)0;
        for (long i = lo + j; i < hi; i += RWG) {
            CT l = RND(loss_pw_value(mode, LD(x, i), LD(y, i), p, err));
            a += hasw ? RND(l * LD(w, i)) : l;
            b += (CT)1;
        }
        la[j] = a;
        lb[j] = b;
    }
    loss_tree_priv(la, lb);
    part[2 * g] = la[0];
    part[2 * g + 1] = lb[0];
}
#endif

/* d loss / d x for one element times g (* w when hasw) * norm: the body of
 * loss_pw_backward and of its CPU form (the same operations in the same
 * order: the same bits). */
CT loss_pw_grad(int mode, CT xv, CT yv, CT g, int hasw, CT wv, CT p, CT norm)
{
    CT r;
    if (mode == 0) {
        r = norm * RND(xv - yv) * g;
    } else if (mode == 1) {
        /* PyTorch's EPSILON (float 1e-12) in the input dtype: 0 for half. */
        r = g * (xv - yv) / max(((CT)1 - xv) * xv, KIND == 1 ? (CT)0 : (CT)1e-12f);
        if (hasw)
            r *= wv;
        r *= norm;
    } else {
        CT d = xv - yv, s = mode == 2 ? (CT)1 : p;
        if (d <= -p)
            r = -norm * g * s;
        else if (d >= p)
            r = norm * g * s;
        else
            r = mode == 2 ? norm * d * g / p : norm * d * g;
    }
    return r;
}

/* The backward: gi[i] = d loss / d x[i] * g[i] (* w[i]) * norm, norm
 * 1 / numel(self) for mean, else 1 (2 / numel and 2 for mse). */
__kernel void loss_pw_backward(global const T *go, global const T *x, global const T *y,
                               global const T *w, int hasw, global T *gi, long gioff, long M,
                               int mode, CT p, CT norm)
{
    LOSS_ITEMS(i, M) {
        ST(gi, gioff + i, loss_pw_grad(mode, LD(x, i), LD(y, i), LD(go, i), hasw,
                                       hasw ? LD(w, i) : (CT)1, p, norm));
    }
}

#ifdef LOSS_CPU
/* loss_pw_backward on CPU devices with grad_output read at i * gstep:
 * gstep 0 reads a single value (mean and sum reductions), which the GPU
 * path first copies into a tensor of the full shape (mse_loss_backward
 * on [256, 4096]: that copy was half of the call). */
__kernel void loss_pw_backward_cpu(global const T *go, long gstep, global const T *x,
                                   global const T *y, global const T *w, int hasw, global T *gi,
                                   long gioff, long M, int mode, CT p, CT norm)
{
    if (gstep == 0) {
        CT g = LD(go, 0);
        LOSS_ITEMS(i, M) {
            CT r = loss_pw_grad(mode, LD(x, i), LD(y, i), g, hasw, hasw ? LD(w, i) : (CT)1, p,
                                norm);
            ST(gi, gioff + i, r);
        }
    } else {
        LOSS_ITEMS(i, M) {
            CT r = loss_pw_grad(mode, LD(x, i), LD(y, i), LD(go, i * gstep), hasw,
                                hasw ? LD(w, i) : (CT)1, p, norm);
            ST(gi, gioff + i, r);
        }
    }
}
#endif
