/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ops/kit/lines.c: what the hand-written families that work along one dim
 * (scans, sorts) share: line geometry, kernel lookup, program sources
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

clops_status ops_kernel(clops_device *d, host_kkey key, const char *pname, const char *kname,
                        clops_status (*gen)(void *, const clops_device *, strbuf *), void *ctx,
                        int wg, host_kernel **out)
{
    host_kernel *k = host_kernel_lookup(d, &key);
    if (!k) {
        host_kernel_request req = {pname, kname, gen, ctx, NULL};
        clops_status st = host_kernel_get(d, &key, &req, &k);
        if (st)
            return st;
    }
    if (wg > 0 && k->wg_size != (size_t)wg)
        return clops__fail(CLOPS_UNSUPPORTED, "%s needs work-groups of %d items; %s allows %zu",
                           kname, wg, d->label, k->wg_size);
    *out = k;
    return CLOPS_OK;
}

clops_status ops_program_source(strbuf *sb, const char *defines, const char *file)
{
    const char *prelude = NULL, *body = NULL;
    clops_status st = host_cl_source("pw_prelude.clh", &prelude);
    if (st == CLOPS_OK)
        st = host_cl_source(file, &body);
    if (st)
        return st;
    sb_append(sb, prelude);
    sb_append(sb, "\n");
    sb_append(sb, defines);
    sb_printf(sb, "#line 1 \"%s\"\n%s", file, body);
    return CLOPS_OK;
}
