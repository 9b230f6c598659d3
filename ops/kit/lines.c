/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ops/kit/lines.c: what the hand-written families that work along one dim
 * (scans, sorts) share: line geometry and work-group sizes
 * (ops/kit/lines.h).
 */
#include "host/host.h"
#include "ops/kit/lines.h"

/* Coalesces dims [a, b) of t into one (size, stride); false when they are
 * not one arithmetic progression. */
static bool coalesce(const clops_tensor *t, int a, int b, int64_t *size, int64_t *stride)
{
    int64_t sz = 1, st = 0;
    bool any = false;
    for (int i = b - 1; i >= a; i--) {
        if (t->sizes[i] == 1)
            continue;
        if (!any) {
            st = t->strides[i];
            any = true;
        } else if (t->strides[i] != st * sz) {
            return false;
        }
        sz *= t->sizes[i];
    }
    *size = sz;
    *stride = st;
    return true;
}

bool ops_lines_of(const clops_tensor *t, int dim, ops_lines *g)
{
    g->offset = t->offset;
    if (t->ndim == 0) {
        g->outer = g->n = g->inner = 1;
        g->s_o = g->s_n = g->s_i = 0;
        return true;
    }
    g->n = t->sizes[dim];
    g->s_n = t->strides[dim];
    return coalesce(t, 0, dim, &g->outer, &g->s_o) &&
           coalesce(t, dim + 1, t->ndim, &g->inner, &g->s_i);
}


int ops_wg_pow2(const clops_device *d, int cap)
{
    int wg = 1;
    while (wg * 2 <= cap && (size_t)(wg * 2) <= d->wg_size)
        wg *= 2;
    return wg;
}
