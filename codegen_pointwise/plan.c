/* SPDX-License-Identifier: Apache-2.0 */
/*
 * codegen_pointwise/plan.c: TensorIterator-style planning of a pointwise
 * call.
 *
 * Given the output and the tensor operands, all broadcast-compatible with
 * one shape, the planner
 *   1. expresses every operand's strides in the broadcast shape (stride 0
 *      where an operand is broadcast),
 *   2. orders dimensions from fastest- to slowest-moving by the operands'
 *      strides (the output first), so a transposed or channels-last operand
 *      is walked in memory order,
 *   3. merges adjacent dimensions that are contiguous for every operand,
 *   4. decides whether 32-bit offsets suffice and whether the contiguous
 *      fast path applies.
 * The same ordering decides the strides of a freshly allocated output, so a
 * result is laid out like its inputs, as PyTorch does.
 *
 * All arrays in a plan are innermost-first: sizes[0] is the fastest dim.
 */
#include <string.h>

#include "codegen_pointwise/pw.h"

/* Strides of tensor t expressed in the broadcast shape, outermost first. */
static void broadcast_strides(const clops_tensor *t, int ndim, const int64_t *sizes,
                              int64_t *strides)
{
    int lead = ndim - t->ndim;
    for (int i = 0; i < ndim; i++) {
        int td = i - lead;
        if (td < 0 || (t->sizes[td] == 1 && sizes[i] != 1))
            strides[i] = 0;
        else
            strides[i] = t->strides[td];
    }
}

clops_status pw_broadcast_shape(const char *opname, const clops_tensor *const *tensors, int n,
                                int *ndim, int64_t *sizes)
{
    int nd = 0;
    for (int k = 0; k < n; k++)
        if (tensors[k]->ndim > nd)
            nd = tensors[k]->ndim;
    for (int i = 0; i < nd; i++)
        sizes[i] = 1;
    for (int k = 0; k < n; k++) {
        const clops_tensor *t = tensors[k];
        int lead = nd - t->ndim;
        for (int i = 0; i < t->ndim; i++) {
            int64_t s = t->sizes[i];
            int64_t *b = &sizes[lead + i];
            if (*b == s || s == 1)
                continue;
            if (*b == 1) {
                *b = s;
                continue;
            }
            /* Find the earlier operand that fixed this size, for the message. */
            int other = 0;
            for (; other < k; other++) {
                const clops_tensor *o = tensors[other];
                int od = lead + i - (nd - o->ndim);
                if (od >= 0 && o->sizes[od] == *b)
                    break;
            }
            char sa[400], sb[400];
            clops__fmt_shape(sa, sizeof sa, tensors[other < k ? other : 0]->ndim,
                             tensors[other < k ? other : 0]->sizes);
            clops__fmt_shape(sb, sizeof sb, t->ndim, t->sizes);
            return clops__fail(CLOPS_INVALID_SHAPE,
                               "%s: the size of tensor a (%lld) must match the size of tensor b "
                               "(%lld) at non-singleton dimension %d (shapes %s and %s)",
                               opname, (long long)*b, (long long)s, lead + i, sa, sb);
        }
    }
    *ndim = nd;
    return CLOPS_OK;
}

/*
 * Orders dimensions fastest-first.  perm[i] is the outermost-first index of
 * the dimension placed at innermost-first position i.  strides[k] are the
 * operands' broadcast strides (outermost first); operands whose `skip` flag
 * is set do not vote (an output about to be allocated).
 */
static void order_dims(int ndim, const int64_t *sizes, int nt, int64_t strides[][CLOPS_MAX_DIMS],
                       const bool *skip, int *perm)
{
    for (int i = 0; i < ndim; i++)
        perm[i] = ndim - 1 - i;
    for (int i = 1; i < ndim; i++) {
        int d1 = i;
        for (int d0 = i - 1; d0 >= 0; d0--) {
            /* Should dimension perm[d0] move after perm[d1]? */
            int a = perm[d0], b = perm[d1];
            int cmp = 0;
            for (int k = 0; k < nt && cmp == 0; k++) {
                if (skip && skip[k])
                    continue;
                int64_t s0 = strides[k][a], s1 = strides[k][b];
                if (s0 == 0 || s1 == 0)
                    continue;
                if (s0 < s1) {
                    cmp = -1;
                } else if (s0 > s1) {
                    cmp = 1;
                } else if (sizes[a] > sizes[b]) {
                    cmp = 1;
                }
            }
            if (cmp > 0) {
                int tmp = perm[d0];
                perm[d0] = perm[d1];
                perm[d1] = tmp;
                d1 = d0;
            } else if (cmp < 0) {
                break;
            }
        }
    }
}

/* Whether every input has exactly the shape (ndim, sizes). */
static bool all_same_shape(const clops_tensor *const *inputs, int n, int ndim, const int64_t *sizes)
{
    for (int k = 0; k < n; k++)
        if (inputs[k]->ndim != ndim ||
            memcmp(inputs[k]->sizes, sizes, sizeof(int64_t) * (size_t)ndim) != 0)
            return false;
    return true;
}

void pw_output_strides(const clops_tensor *const *inputs, int n_inputs, int ndim,
                       const int64_t *sizes, int64_t *strides)
{
    pw_result_strides(inputs, n_inputs, 0, ndim, sizes, strides);
}

void pw_result_strides(const clops_tensor *const *inputs, int n_inputs, int n_scalars, int ndim,
                       const int64_t *sizes, int64_t *strides)
{
    int64_t numel = 1;
    for (int i = 0; i < ndim; i++)
        numel *= sizes[i];
    /* TensorIterator's fast setup: operands of one shape that are all
     * contiguous give a contiguous result, and an empty tensor always counts
     * as contiguous.  (A scalar operand is a zero-dim tensor there.) */
    if (numel == 0 && n_scalars == 0 && all_same_shape(inputs, n_inputs, ndim, sizes)) {
        contiguous_strides(ndim, sizes, strides);
        return;
    }
    int64_t st[PW_MAX_OPERANDS][CLOPS_MAX_DIMS];
    int nt = n_inputs < PW_MAX_OPERANDS ? n_inputs : PW_MAX_OPERANDS;
    for (int k = 0; k < nt; k++)
        broadcast_strides(inputs[k], ndim, sizes, st[k]);
    int perm[CLOPS_MAX_DIMS];
    order_dims(ndim, sizes, nt, st, NULL, perm);
    bool inverted = true;
    for (int i = 0; i < ndim; i++)
        if (perm[i] != ndim - 1 - i)
            inverted = false;
    if (inverted) {
        contiguous_strides(ndim, sizes, strides);
        return;
    }
    int64_t running = 1;
    for (int i = 0; i < ndim; i++) {
        strides[perm[i]] = running;
        running *= sizes[perm[i]];
    }
}

clops_status pw_make_plan(const char *opname, const clops_tensor *const *tensors, int n, int ndim,
                          const int64_t *sizes, pw_plan *plan)
{
    (void)opname;
    memset(plan, 0, sizeof *plan);
    plan->n_tensors = n;
    int64_t st[PW_MAX_OPERANDS][CLOPS_MAX_DIMS];
    int64_t numel = 1;
    for (int i = 0; i < ndim; i++)
        numel *= sizes[i];
    plan->numel = numel;
    for (int k = 0; k < n; k++) {
        broadcast_strides(tensors[k], ndim, sizes, st[k]);
        plan->offsets[k] = tensors[k]->offset;
    }
    int perm[CLOPS_MAX_DIMS];
    order_dims(ndim, sizes, n, st, NULL, perm);

    /* Gather innermost-first, then coalesce. */
    int64_t psz[CLOPS_MAX_DIMS];
    int64_t pst[PW_MAX_OPERANDS][CLOPS_MAX_DIMS];
    for (int i = 0; i < ndim; i++) {
        psz[i] = sizes[perm[i]];
        for (int k = 0; k < n; k++)
            pst[k][i] = st[k][perm[i]];
    }
    int nd = 0;
    if (ndim > 0) {
        int prev = 0;
        for (int d = 1; d < ndim; d++) {
            bool can = psz[prev] == 1 || psz[d] == 1;
            if (!can) {
                can = true;
                for (int k = 0; k < n; k++)
                    if (psz[prev] * pst[k][prev] != pst[k][d])
                        can = false;
            }
            if (can) {
                if (psz[prev] == 1)
                    for (int k = 0; k < n; k++)
                        pst[k][prev] = pst[k][d];
                psz[prev] *= psz[d];
            } else {
                prev++;
                if (prev != d) {
                    for (int k = 0; k < n; k++)
                        pst[k][prev] = pst[k][d];
                    psz[prev] = psz[d];
                }
            }
        }
        nd = prev + 1;
    }
    /* A single dimension of size 1 is no dimension. */
    if (nd == 1 && psz[0] == 1)
        nd = 0;
    plan->ndim = nd;
    for (int i = 0; i < nd; i++) {
        plan->sizes[i] = psz[i];
        for (int k = 0; k < n; k++)
            plan->strides[k][i] = pst[k][i];
    }

    /* Index width and fast path. */
    bool contiguous = nd <= 1;
    for (int k = 0; k < n; k++) {
        bool uniform = true;
        uint64_t reach = (uint64_t)plan->offsets[k];
        for (int i = 0; i < nd; i++) {
            if (plan->sizes[i] > 1 && plan->strides[k][i] != 0)
                uniform = false;
            if (plan->sizes[i] > 0)
                reach += (uint64_t)(plan->sizes[i] - 1) * (uint64_t)plan->strides[k][i];
        }
        plan->uniform[k] = uniform;
        if (reach > (uint64_t)INT32_MAX)
            plan->index64 = true;
        if (nd == 1 && !uniform && plan->strides[k][0] != 1)
            contiguous = false;
    }
    /* The output must be written element by element, never uniformly. */
    if (nd == 1 && plan->uniform[0] && plan->sizes[0] > 1)
        contiguous = false;
    if ((uint64_t)numel > (uint64_t)INT32_MAX)
        plan->index64 = true;
    plan->contiguous = contiguous;
    return CLOPS_OK;
}
