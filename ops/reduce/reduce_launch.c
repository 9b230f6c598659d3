/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ops/reduce/reduce_launch.c: runs a reduction plan on an OpenCL device with the
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
 *
 * CPU-like devices (KIT_CPU, ops/kit/kit.h) get their own program: one kernel per kind
 * (_cpu) in work items of one, each a serial loop with RW accumulators the
 * compiler vectorises (reduce_cpu_run below), because POCL runs a 256-item
 * work-group with local-memory trees and barriers as a loop per region,
 * 10-30x behind PyTorch's CPU loops.  Its strategy, also from the shape
 * only: columns (kept dim 0 denser than the reduced one) take blocks of RW
 * adjacent outputs, rows RW lanes per output, `per` blocks or rows per
 * item (d->max_chunks items, a few per core, as for pointwise: this does
 * not change the results); a reduction with fewer than RED_CPU_ITEMS blocks or rows is split into
 * chunks of at least RED_CPU_MIN_CHUNK elements, folded by a second launch
 * of the same kernel (mode 2).
 */
#include <stdio.h>
#include <string.h>

#include "host/host.h"
#include "ops/kit/kit.h"
#include "ops/reduce/reduce.h"

#define RED_TARGET_GROUPS 1024
#define RED_CPU_ITEMS 256      /* units a CPU reduction aims for (split below) */
#define RED_CPU_COL_ITEMS 1024 /* work items of a column reduction at most */
#define RED_CPU_MIN_CHUNK 4096 /* elements of one split chunk at least */
#define RED_CPU_CG 4           /* column blocks side by side (RED_CG, reduce.cl) */
#define RED_STATE_BYTES 32 /* upper bound of sizeof(accumulator) on any device */

enum { K_ROW, K_MERGE, K_CPU };
static const char *const kernel_suffix[] = {"row", "merge", "cpu"};

/* reduce.cl's IN_KIND of an input dtype: its load/store kind (1 float16, 2
 * bfloat16), else 3 float32, 4 float64, 5 bool, 0 the integers. */
static int in_kind(clops_dtype dt)
{
    if (kit_load_store(dt) != KIT_LS_PLAIN)
        return (int)kit_load_store(dt);
    return dt == CLOPS_BOOL ? 5 : dt == CLOPS_FLOAT32 ? 3 : dt == CLOPS_FLOAT64 ? 4 : 0;
}

/* Whether kind k has kernels for input dtype dt. */
static bool kind_accepts(reduce_kind k, clops_dtype dt)
{
    return clops_dtype_is_floating(dt) || !reduce_kind_float_only(k);
}

/* The work-group size of the reduction kernels (see ops/reduce/reduce.h). */
size_t reduce_wg(const clops_device *d)
{
    size_t w = 1;
    while (w * 2 <= d->wg_size && w * 2 <= 256)
        w *= 2;
    return w;
}

/* Accumulators side by side in a CPU kernel (lanes of a row, or adjacent
 * outputs of a column reduction): 16 of a 4-byte compute type, 8 of an
 * 8-byte one (a 512-bit vector).  Four times as many ran no faster on the
 * dev VM's AVX2 cores and took 2-4x longer to compile. */
static int cpu_lanes(clops_dtype dt)
{
    return clops_dtype_is_floating(dt) && dt != CLOPS_FLOAT64 ? 16 : 8;
}

/* The defines of one input dtype's program (ctx: the clops_dtype). */
static clops_status write_defines(const void *ctx, const clops_device *d, strbuf *sb)
{
    clops_dtype dt = *(const clops_dtype *)ctx;
    /* integers accumulate in long */
    const char *ct = clops_dtype_is_floating(dt) ? kit_cl_compute(dt) : "long";
    sb_printf(sb,
              "#define RWG %zu\n#define TIN_T %s\n#define CT %s\n#define CT4 %s4\n"
              "#define IN_KIND %d\n#define IN_LS %d\n#define CT_FLOAT %d\n#define PT %s\n"
              "#define RED_CPU %d\n#define RW %d\n",
              reduce_wg(d), kit_cl_storage(dt), ct, ct, in_kind(dt), (int)kit_load_store(dt),
              clops_dtype_is_floating(dt) ? 1 : 0, dt == CLOPS_FLOAT64 ? "double" : "float",
              kit_is_cpu(d) ? 1 : 0, cpu_lanes(dt));
    return CLOPS_OK;
}

/* Copy k of reduce.cl: kind k's defines, when k accepts the dtype. */
static bool write_kind(const void *ctx, int k, strbuf *sb)
{
    if (!kind_accepts((reduce_kind)k, *(const clops_dtype *)ctx))
        return false;
    sb_printf(sb, "#define RK %d\n#define KN %s\n", k, reduce_kind_name((reduce_kind)k));
    return true;
}

/* The kernel `which` of kind k for input dtype dt on d. */
static clops_status get_kernel(clops_device *d, reduce_kind k, clops_dtype dt, int which,
                               const char *op, host_kernel **out)
{
    host_kkey key = {{(3ull << 56) | ((uint64_t)k << 16) | ((uint64_t)which << 8) | (uint64_t)dt,
                      reduce_wg(d), 0, 0}};
    host_kernel *kern = kit_find(d, &key);
    if (!kern) {
        char pname[64], kname[64], title[96];
        snprintf(pname, sizeof pname, "reduce/%s", clops_dtype_name(dt));
        snprintf(kname, sizeof kname, "red_%s_%s", reduce_kind_name(k), kernel_suffix[which]);
        snprintf(title, sizeof title,
                 "clops reduction program for %s (see ops/reduce/reduce_launch.c)",
                 clops_dtype_name(dt));
        kit_program p = {.name = pname,
                         .title = title,
                         .write = write_defines,
                         .file = "reduce.cl",
                         .copies = RK_COUNT,
                         .copy = write_kind,
                         .ctx = &dt};
        clops_status st = kit_build(d, &key, &p, kname, op, &kern);
        if (st)
            return st;
    }
    clops_status st = kit_need_wg(kern, which != K_CPU ? (int64_t)reduce_wg(d) : 0, d, op);
    if (st == CLOPS_OK)
        *out = kern;
    return st;
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

/* The buffer of S partial accumulator states per output of a split. */
static clops_status new_partials(const reduce_call *c, const reduce_plan *p, int64_t S,
                                 clops_tensor **part)
{
    int64_t bytes = p->O * S * RED_STATE_BYTES;
    clops_status st = tensor_new(c->x->storage->device, CLOPS_UINT8, 1, &bytes, NULL, part);
    return st ? clops__error_prefix(st, "%s: partial results", c->opname) : CLOPS_OK;
}

/* Rounds a split of R elements into S chunks to chunks of a multiple of
 * `round` elements (S shrinks when the last chunks would be empty). */
static void split_chunks(int64_t R, int64_t round, int64_t *S, int64_t *chunk)
{
    *chunk = (R + *S - 1) / *S;
    *chunk = (*chunk + round - 1) / round * round;
    *S = (R + *chunk - 1) / *chunk;
}

/* The geometry arguments every kernel of a kind takes (RED_GEOM_ARGS in
 * cl_kernels/reduce.cl), as values that outlive the host_arg pointers. */
typedef struct red_geom {
    cl_mem ym, y2m;
    cl_long yoff, yoff2, O, R;
    cl_int w2, rrank;
    cl_long4 ksz, kis, kos, kos2, rsz, ris, rlm;
    float f0, f1;
    double d0, d1;
} red_geom;
enum { NGEOM = 17 };

/* Fills g from the call and plan and points args[0..NGEOM) at it. */
static void geom_args(const reduce_call *c, const reduce_plan *p, red_geom *g, host_arg *args)
{
    g->ym = mem_of(c->y);
    g->y2m = c->y2 ? mem_of(c->y2) : g->ym;
    g->yoff = p->yoff;
    g->yoff2 = p->yoff2;
    g->O = p->O;
    g->R = p->R;
    g->w2 = c->y2 != NULL;
    g->rrank = p->rd > 1 ? p->rd : 1;
    g->ksz = l4(p->ksz);
    g->kis = l4(p->kis);
    g->kos = l4(p->kos);
    g->kos2 = l4(p->kos2);
    g->rsz = l4(p->rsz);
    g->ris = l4(p->ris);
    g->rlm = l4(p->rlm);
    g->f0 = (float)c->p0;
    g->f1 = (float)c->p1;
    g->d0 = c->p0;
    g->d1 = c->p1;
    bool dbl = c->x->dtype == CLOPS_FLOAT64;
    const host_arg a[NGEOM] = {
        {sizeof g->ym, &g->ym},     {sizeof g->yoff, &g->yoff}, {sizeof g->y2m, &g->y2m},
        {sizeof g->yoff2, &g->yoff2}, {sizeof g->w2, &g->w2},   {sizeof g->O, &g->O},
        {sizeof g->R, &g->R},       {sizeof g->ksz, &g->ksz},   {sizeof g->kis, &g->kis},
        {sizeof g->kos, &g->kos},   {sizeof g->kos2, &g->kos2}, {sizeof g->rsz, &g->rsz},
        {sizeof g->ris, &g->ris},   {sizeof g->rlm, &g->rlm},   {sizeof g->rrank, &g->rrank},
        {dbl ? sizeof g->d0 : sizeof g->f0, dbl ? (const void *)&g->d0 : (const void *)&g->f0},
        {dbl ? sizeof g->d1 : sizeof g->f1, dbl ? (const void *)&g->d1 : (const void *)&g->f1},
    };
    memcpy(args, a, sizeof a);
}

/* The launches of a CPU device (see the file comment). */
static clops_status reduce_cpu_run(const reduce_call *c, const reduce_plan *p)
{
    clops_device *d = c->x->storage->device;
    int64_t rw = cpu_lanes(c->x->dtype);
    bool index = reduce_kind_has_index(c->kind);
    bool col = p->kd > 0 && p->rd > 0 && p->kis[0] < p->ris[0] && p->ksz[0] >= 4;
    /* Units of work: outputs (rows) or blocks of rw outputs (columns). */
    int64_t units = col ? (p->O / p->ksz[0]) * ((p->ksz[0] + rw - 1) / rw) : p->O;
    int64_t S = 1, chunk = p->R;
    if (units < RED_CPU_ITEMS && p->R >= 2 * RED_CPU_MIN_CHUNK) {
        S = (RED_CPU_ITEMS + units - 1) / units;
        if (S > p->R / RED_CPU_MIN_CHUNK)
            S = p->R / RED_CPU_MIN_CHUNK;
        split_chunks(p->R, rw, &S, &chunk);
    }
    /* Units per work item: rows grouped into d->max_chunks items, column
     * blocks into at most RED_CPU_COL_ITEMS items (on the 16-core host
     * neither grouping measured apart from the other beyond the run-to-run
     * noise).  The grouping changes the order of no fold (S and chunk do,
     * and come from the shape only). */
    int64_t cap = col ? RED_CPU_COL_ITEMS : (int64_t)d->max_chunks;
    int64_t per = S > 1 ? 1 : (units + cap - 1) / cap;
    /* Column blocks go RED_CPU_CG to an item where that leaves at least
     * about one item per core (max_chunks / 4): the kernel folds such
     * groups side by side, reading RED_CPU_CG times longer runs per row. */
    if (col && per < RED_CPU_CG && (units / RED_CPU_CG) * S >= (int64_t)d->max_chunks / 4)
        per = RED_CPU_CG;
    int64_t items = (units + per - 1) / per;
    host_kernel *k = NULL;
    clops_status st = get_kernel(d, c->kind, c->x->dtype, K_CPU, c->opname, &k);
    if (st)
        return st;
    clops_tensor *part = NULL;
    if (S > 1 && (st = new_partials(c, p, S, &part)))
        return st;
    cl_mem xm = mem_of(c->x), pm = mem_of(part);
    cl_long xoff = p->xoff, cS = S, cchunk = chunk, cper = per;
    cl_int mode = col ? 1 : 0;
    /* Contiguous runs in the reduced dims: lanes across each (one run for
     * an index kind, whose lanes assume ascending indices). */
    cl_int vec = p->rd >= 1 && p->ris[0] == 1 && (!index || (p->rd == 1 && p->rlm[0] == 1));
    host_arg args[8 + NGEOM];
    red_geom g;
    int na = 0;
    args[na++] = (host_arg){sizeof xm, &xm};
    args[na++] = (host_arg){sizeof xoff, &xoff};
    args[na++] = (host_arg){sizeof pm, &pm};
    args[na++] = (host_arg){sizeof cS, &cS};
    args[na++] = (host_arg){sizeof cchunk, &cchunk};
    args[na++] = (host_arg){sizeof cper, &cper};
    args[na++] = (host_arg){sizeof mode, &mode};
    args[na++] = (host_arg){sizeof vec, &vec};
    geom_args(c, p, &g, args + na);
    na += NGEOM;
    st = host_launch_local(d, k, na, args, (size_t)(items * S), 1);
    if (!st && S > 1) {
        /* The merge: same kernel, mode 2, `per` outputs per item. */
        mode = 2;
        cper = (p->O + (int64_t)d->max_chunks - 1) / (int64_t)d->max_chunks;
        st = host_launch_local(d, k, na, args, (size_t)((p->O + cper - 1) / cper), 1);
    }
    clops_tensor_release(part);
    return st;
}

/* The launches of a GPU (see the file comment). */
static clops_status reduce_gpu_run(const reduce_call *c, const reduce_plan *p)
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
        split_chunks(p->R, 4, &S, &chunk);
    }
    host_kernel *k1 = NULL, *k2 = NULL;
    clops_status st = get_kernel(d, kind, c->x->dtype, K_ROW, c->opname, &k1);
    if (!st && S > 1)
        st = get_kernel(d, kind, c->x->dtype, K_MERGE, c->opname, &k2);
    if (st)
        return st;
    clops_tensor *part = NULL;
    if (S > 1 && (st = new_partials(c, p, S, &part)))
        return st;
    cl_mem xm = mem_of(c->x), pm = mem_of(part);
    cl_long xoff = p->xoff, cS = S, cchunk = chunk;
    cl_int cL = (cl_int)L, cvec = vec;
    red_geom g;
    host_arg geom[NGEOM];
    geom_args(c, p, &g, geom);
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

/* --- the launch per device kind (ops/kit/kit.h) ---------------------------- */

typedef struct reduce_job {
    const reduce_call *c;
    const reduce_plan *p;
} reduce_job;

static clops_status launch_host(void *job)
{
    const reduce_job *j = job;
    return reduce_ref_run(j->c);
}

static clops_status launch_cpu(void *job)
{
    const reduce_job *j = job;
    return reduce_cpu_run(j->c, j->p);
}

static clops_status launch_gpu(void *job)
{
    const reduce_job *j = job;
    return reduce_gpu_run(j->c, j->p);
}

static const kit_launches launches = {
    "reduction", {[KIT_HOST] = launch_host, [KIT_CPU] = launch_cpu, [KIT_GPU] = launch_gpu}};

clops_status reduce_launch(const reduce_call *c, const reduce_plan *p)
{
    reduce_job j = {c, p};
    return kit_run(&launches, c->x->storage->device, &j);
}
