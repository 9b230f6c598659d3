/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ops/reduce_launch.c: runs a reduction plan on an OpenCL device with the
 * kernels of cl_kernels/reduce.cl.
 *
 * Programs: one per input dtype and device ("reduce/float32"), holding the
 * two kernels (_row, _merge) of every kind that accepts that dtype,
 * so a cold cache builds at most one program per dtype.
 *
 * Strategy, all from the plan's shape (never from the device's compute-unit
 * count, so the order of floating-point operations, and so the bits, are
 * the same on every run and on every device with the same work-group size):
 *   col  when the innermost kept dim is denser in memory than the reduced
 *        one and there are at least 64 outputs: the row kernel with L = 1,
 *        one output per work item;
 *   row  otherwise: L lanes per output, L the power of two nearest R/8
 *        (at most the work-group size), with 4-wide loads when the reduced
 *        dim is contiguous;
 *   split  when the first launch would have fewer than 1024 groups and the
 *        reduction is long, it is cut into S chunks whose states a second
 *        launch (_merge) folds, L lanes per output.
 */
#include <stdio.h>
#include <string.h>

#include "host/host.h"
#include "ops/reduce.h"

#define RED_TARGET_GROUPS 1024
#define RED_STATE_BYTES 32 /* upper bound of sizeof(accumulator) on any device */

enum { K_ROW, K_MERGE };
static const char *const kernel_suffix[] = {"row", "merge"};

/* OpenCL type names of an input dtype: storage, compute, IN_KIND. */
static void type_info(clops_dtype dt, const char **tin, const char **ct, int *kind)
{
    *ct = "long";
    *kind = 0;
    switch (dt) {
    case CLOPS_BOOL: *tin = "uchar"; *kind = 5; break;
    case CLOPS_UINT8: *tin = "uchar"; break;
    case CLOPS_INT8: *tin = "char"; break;
    case CLOPS_INT16: *tin = "short"; break;
    case CLOPS_INT32: *tin = "int"; break;
    case CLOPS_INT64: *tin = "long"; break;
    case CLOPS_FLOAT16: *tin = "half"; *ct = "float"; *kind = 1; break;
    case CLOPS_BFLOAT16: *tin = "ushort"; *ct = "float"; *kind = 2; break;
    case CLOPS_FLOAT32: *tin = "float"; *ct = "float"; *kind = 3; break;
    default: *tin = "double"; *ct = "double"; *kind = 4; break;
    }
}

/* Whether kind k has kernels for input dtype dt. */
static bool kind_accepts(reduce_kind k, clops_dtype dt)
{
    return clops_dtype_is_floating(dt) || !reduce_kind_float_only(k);
}

/* The work-group size of the reduction kernels (see ops/reduce.h). */
size_t reduce_wg(const clops_device *d)
{
    size_t w = 1;
    while (w * 2 <= d->wg_size && w * 2 <= 256)
        w *= 2;
    return w;
}

typedef struct gen_ctx {
    clops_dtype dtype;
} gen_ctx;

/* Writes the program of one input dtype. */
static clops_status gen_program(void *vctx, const clops_device *d, strbuf *sb)
{
    const gen_ctx *g = vctx;
    const char *prelude = NULL, *body = NULL;
    clops_status st = host_cl_source("pw_prelude.clh", &prelude);
    if (!st)
        st = host_cl_source("reduce.cl", &body);
    if (st)
        return st;
    const char *tin, *ct;
    int kind;
    type_info(g->dtype, &tin, &ct, &kind);
    sb_printf(sb, "/* clops reduction program for %s (see ops/reduce_launch.c) */\n",
              clops_dtype_name(g->dtype));
    sb_append(sb, prelude);
    sb_printf(sb,
              "\n#define RWG %zu\n#define TIN_T %s\n#define CT %s\n#define CT4 %s4\n"
              "#define IN_KIND %d\n#define CT_FLOAT %d\n#define PT %s\n",
              reduce_wg(d), tin, ct, ct, kind, clops_dtype_is_floating(g->dtype) ? 1 : 0,
              g->dtype == CLOPS_FLOAT64 ? "double" : "float");
    for (int k = 0; k < RK_COUNT; k++) {
        if (!kind_accepts((reduce_kind)k, g->dtype))
            continue;
        sb_printf(sb, "\n#define RK %d\n#define KN %s\n", k, reduce_kind_name((reduce_kind)k));
        sb_append(sb, body);
    }
    return sb->failed ? CLOPS__HOST_OOM("reduction program source") : CLOPS_OK;
}

/* The kernel `which` of kind k for input dtype dt on d. */
static clops_status get_kernel(clops_device *d, reduce_kind k, clops_dtype dt, int which,
                               const char *op, host_kernel **out)
{
    host_kkey key = {{(3ull << 56) | ((uint64_t)k << 16) | ((uint64_t)which << 8) | (uint64_t)dt,
                      reduce_wg(d), 0, 0}};
    host_kernel *kern = host_kernel_lookup(d, &key);
    if (!kern) {
        char pname[64], kname[64];
        snprintf(pname, sizeof pname, "reduce/%s", clops_dtype_name(dt));
        snprintf(kname, sizeof kname, "red_%s_%s", reduce_kind_name(k), kernel_suffix[which]);
        gen_ctx g = {dt};
        host_kernel_request req = {pname, kname, gen_program, &g, NULL};
        clops_status st = host_kernel_get(d, &key, &req, &kern);
        if (st)
            return clops__error_prefix(st, "%s", op);
    }
    if (kern->wg_size != reduce_wg(d))
        return clops__fail(CLOPS_UNSUPPORTED,
                           "%s: kernel %s can run only %zu work items per group on %s, the "
                           "reduction kernels need %zu",
                           op, kern->name, kern->wg_size, d->label, reduce_wg(d));
    *out = kern;
    return CLOPS_OK;
}

/* Largest power of two <= v (v >= 1). */
int64_t reduce_pow2_floor(int64_t v)
{
    int64_t p = 1;
    while (p * 2 <= v)
        p *= 2;
    return p;
}

static cl_long4 l4(const int64_t *v)
{
    cl_long4 r;
    for (int i = 0; i < 4; i++)
        r.s[i] = v[i];
    return r;
}

static cl_mem mem_of(const clops_tensor *t)
{
    return t && t->storage->block ? t->storage->block->mem : NULL;
}

clops_status reduce_cl_run(const reduce_call *c, const reduce_plan *p)
{
    clops_device *d = c->x->storage->device;
    int64_t wg = (int64_t)reduce_wg(d);
    reduce_kind kind = c->kind;
    bool index = reduce_kind_has_index(kind);
    /* Strategy (see the file comment). */
    bool col = p->kd > 0 && p->rd > 0 && p->kis[0] < p->ris[0] && p->O >= 64;
    int64_t L = 1, S = 1, chunk = p->R, groups0;
    int vec = 0;
    if (col) {
        groups0 = (p->O + wg - 1) / wg;
        if (groups0 < RED_TARGET_GROUPS && p->R >= 64) {
            S = (RED_TARGET_GROUPS + groups0 - 1) / groups0;
            if (S > p->R / 32)
                S = p->R / 32;
        }
    } else {
        L = reduce_pow2_floor(p->R / 8 > 1 ? p->R / 8 : 1);
        if (L > wg)
            L = wg;
        vec = p->rd == 1 && p->ris[0] == 1 && (!index || p->rlm[0] == 1);
        groups0 = (p->O + wg / L - 1) / (wg / L);
        if (groups0 < RED_TARGET_GROUPS && p->R >= 4 * L * 64) {
            S = (RED_TARGET_GROUPS + groups0 - 1) / groups0;
            if (S > p->R / (4 * L * 32))
                S = p->R / (4 * L * 32);
        }
    }
    if (S < 1)
        S = 1;
    if (S > 1) {
        chunk = (p->R + S - 1) / S;
        chunk = (chunk + 3) / 4 * 4;
        S = (p->R + chunk - 1) / chunk;
    }
    host_kernel *k1 = NULL, *k2 = NULL;
    clops_status st = get_kernel(d, kind, c->x->dtype, K_ROW, c->opname, &k1);
    if (!st && S > 1)
        st = get_kernel(d, kind, c->x->dtype, K_MERGE, c->opname, &k2);
    if (st)
        return st;
    clops_tensor *part = NULL;
    if (S > 1) {
        int64_t bytes = p->O * S * RED_STATE_BYTES;
        st = tensor_new(d, CLOPS_UINT8, 1, &bytes, NULL, &part);
        if (st)
            return clops__error_prefix(st, "%s: partial results", c->opname);
    }
    cl_mem xm = mem_of(c->x), pm = mem_of(part), ym = mem_of(c->y);
    cl_mem y2m = c->y2 ? mem_of(c->y2) : ym;
    cl_long xoff = p->xoff, yoff = p->yoff, yoff2 = p->yoff2, O = p->O, R = p->R, cS = S,
            cchunk = chunk;
    cl_int cL = (cl_int)L, cvec = vec, w2 = c->y2 != NULL, rrank = p->rd > 1 ? p->rd : 1;
    cl_long4 ksz = l4(p->ksz), kis = l4(p->kis), kos = l4(p->kos), kos2 = l4(p->kos2),
             rsz = l4(p->rsz), ris = l4(p->ris), rlm = l4(p->rlm);
    float f0 = (float)c->p0, f1 = (float)c->p1;
    double d0 = c->p0, d1 = c->p1;
    bool dbl = c->x->dtype == CLOPS_FLOAT64;
    host_arg geom[] = {
        {sizeof ym, &ym},     {sizeof yoff, &yoff}, {sizeof y2m, &y2m},   {sizeof yoff2, &yoff2},
        {sizeof w2, &w2},     {sizeof O, &O},       {sizeof R, &R},       {sizeof ksz, &ksz},
        {sizeof kis, &kis},   {sizeof kos, &kos},   {sizeof kos2, &kos2}, {sizeof rsz, &rsz},
        {sizeof ris, &ris},   {sizeof rlm, &rlm},   {sizeof rrank, &rrank},
        {dbl ? sizeof d0 : sizeof f0, dbl ? (const void *)&d0 : (const void *)&f0},
        {dbl ? sizeof d1 : sizeof f1, dbl ? (const void *)&d1 : (const void *)&f1},
    };
    enum { NGEOM = sizeof geom / sizeof geom[0] };
    host_arg args[7 + NGEOM];
    int na = 0;
    args[na++] = (host_arg){sizeof xm, &xm};
    args[na++] = (host_arg){sizeof xoff, &xoff};
    args[na++] = (host_arg){sizeof pm, &pm};
    args[na++] = (host_arg){sizeof cL, &cL};
    args[na++] = (host_arg){sizeof cS, &cS};
    args[na++] = (host_arg){sizeof cchunk, &cchunk};
    args[na++] = (host_arg){sizeof cvec, &cvec};
    memcpy(args + na, geom, sizeof geom);
    na += NGEOM;
    int64_t per_group = wg / L;
    size_t global = (size_t)(((p->O + per_group - 1) / per_group) * S * wg);
    st = host_launch(d, k1, na, args, global);
    if (!st && S > 1) {
        cl_int mL = (cl_int)(S < wg ? reduce_pow2_floor(S) : wg);
        na = 0;
        args[na++] = (host_arg){sizeof pm, &pm};
        args[na++] = (host_arg){sizeof mL, &mL};
        args[na++] = (host_arg){sizeof cS, &cS};
        memcpy(args + na, geom, sizeof geom);
        na += NGEOM;
        int64_t per = wg / mL;
        global = (size_t)(((p->O + per - 1) / per) * wg);
        st = host_launch(d, k2, na, args, global);
    }
    clops_tensor_release(part);
    return st;
}
