/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ops/kit/lines.c: what the hand-written families that work along one dim
 * (scans, sorts) share: line geometry and work-group sizes; ops_kernel and
 * ops_program_source, thin wrappers over the kit's program assembler
 * (ops/kit/kit.h), for callers that write a whole source themselves
 * (ops/kit/lines.h).
 */
#include "host/host.h"
#include "ops/kit/kit.h"
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

/* A whole source written by a caller's gen (ops_kernel). */
typedef struct raw_source {
    clops_status (*gen)(void *, const clops_device *, strbuf *);
    void *ctx;
} raw_source;

static clops_status write_raw(const void *vctx, const clops_device *d, strbuf *sb)
{
    const raw_source *r = vctx;
    return r->gen(r->ctx, d, sb);
}

clops_status ops_kernel(clops_device *d, host_kkey key, const char *pname, const char *kname,
                        clops_status (*gen)(void *, const clops_device *, strbuf *), void *ctx,
                        int wg, host_kernel **out)
{
    raw_source r = {gen, ctx};
    kit_program p = {.name = pname, .bare = true, .write = write_raw, .ctx = &r};
    return kit_kernel(d, &key, &p, kname, wg, NULL, out);
}

static clops_status write_defines(const void *vctx, const clops_device *d, strbuf *sb)
{
    (void)d;
    sb_append(sb, vctx);
    return CLOPS_OK;
}

clops_status ops_program_source(strbuf *sb, const char *defines, const char *file)
{
    kit_program p = {.name = file, .write = write_defines, .file = file, .ctx = defines};
    return kit_program_source(&p, NULL, sb);
}
