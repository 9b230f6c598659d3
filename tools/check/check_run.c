/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tools/check/check_run.c: running one case on the CPU reference and on
 * devices (chk_run_case); check_verdict.c judges the device's outputs.
 *
 * For each run the case's tensors are materialised from the same host
 * values inside guarded storages (check_guard.c), the op is called boxed
 * through the real dispatcher (so the device run takes whatever kernel,
 * override or CPU fallback the registry resolves), and every output is
 * brought back to the host in row-major order: the returned values, the
 * tensors written in place and the out= tensors (whose guard bytes are
 * verified).  out= tensors get the shape and dtype of the functional op's
 * result on the reference, computed first.
 *
 * The verdict of a device run against the reference:
 *   reference refuses the dtype      skip "not supported for dtype", if the
 *                                    device refuses too; fail if it accepts
 *   reference refuses otherwise      skip if the device refuses too; fail if
 *                                    the device accepts what the reference
 *                                    refused
 *   device lacks a capability        skip (CLOPS_UNSUPPORTED: float64 without
 *                                    cl_khr_fp64, ...)
 *   device refuses the dtype         fail (the reference accepts it)
 *   device returns another error     error
 *   both ran                         compare: output count, dtype, shape,
 *                                    strides of returned tensors, values
 *                                    within the tolerance, guard bytes
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clops/generator.h"
#include "tools/check/check_internal.h"

/* The seed of the default generators before each run of a case. */
#define CHK_GENERATOR_SEED 20261124u

/* --- small helpers ------------------------------------------------------------ */

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

const char *chk_status_name(chk_status s)
{
    static const char *const n[] = {"pass", "fail", "skip", "error"};
    return (unsigned)s < 4 ? n[s] : "?";
}

const char *chk_kernel_name(chk_kernel k)
{
    static const char *const n[] = {"none", "device", "override", "fallback", "reference"};
    return (unsigned)k < 5 ? n[k] : "?";
}

void chk_result_init(chk_result *r, const char *op, const char *dtype, const char *case_name,
                     int device)
{
    memset(r, 0, sizeof *r);
    r->op = op;
    snprintf(r->dtype, sizeof r->dtype, "%s", dtype ? dtype : "");
    snprintf(r->case_name, sizeof r->case_name, "%s", case_name ? case_name : "");
    r->device = device;
    r->status = CHK_SKIP;
    r->kernel = CHK_KERNEL_NONE;
    r->max_abs_err = r->max_ulp_err = r->seconds = NAN;
}

chk_kernel chk_resolve_kernel(const clops_op *op, const clops_device *dev, char *name, size_t cap)
{
    clops_kernel_info ki;
    if (name && cap)
        name[0] = '\0';
    if (clops_op_resolve(op, dev, &ki) != CLOPS_OK || ki.provenance == CLOPS_PROV_MISSING)
        return CHK_KERNEL_NONE;
    if (name && cap && ki.name)
        snprintf(name, cap, "%s", ki.name);
    if (clops_device_get_info(dev)->type == CLOPS_DEVICE_CPU)
        return CHK_KERNEL_REFERENCE;
    if (ki.provenance == CLOPS_PROV_FALLBACK)
        return CHK_KERNEL_FALLBACK;
    if (ki.provenance == CLOPS_PROV_OVERRIDE ||
        (ki.key >= CLOPS_KEY_NVIDIA && ki.key <= CLOPS_KEY_OTHER))
        return CHK_KERNEL_OVERRIDE;
    return CHK_KERNEL_DEVICE;
}

/* --- outputs ------------------------------------------------------------------ */

/* Frees the host copies of a run's outputs. */
static void outputs_free(chk_outputs *os)
{
    for (int i = 0; i < os->n; i++)
        free(os->o[i].data);
    os->n = 0;
}

/* Appends a tensor output (copied to the host). */
static clops_status add_tensor_output(chk_outputs *os, const char *what, const clops_tensor *t,
                                      bool check_strides)
{
    if (os->n >= CHK_MAX_OUTPUTS)
        return CLOPS_OK;
    chk_output *o = &os->o[os->n];
    memset(o, 0, sizeof *o);
    snprintf(o->what, sizeof o->what, "%s", what);
    o->is_tensor = true;
    o->check_strides = check_strides;
    o->dtype = clops_tensor_dtype(t);
    o->ndim = clops_tensor_ndim(t);
    for (int i = 0; i < o->ndim; i++) {
        o->sizes[i] = clops_tensor_size(t, i);
        o->strides[i] = clops_tensor_stride(t, i);
    }
    size_t nbytes = (size_t)clops_tensor_numel(t) * clops_dtype_size(o->dtype);
    o->data = malloc(nbytes ? nbytes : 1);
    if (!o->data)
        return clops__fail(CLOPS_HOST_OUT_OF_MEMORY, "check: %zu bytes of output", nbytes);
    clops_status st = clops_tensor_to_host(t, o->data, nbytes);
    if (st) {
        free(o->data);
        return st;
    }
    os->n++;
    return CLOPS_OK;
}

/* --- materialised arguments ------------------------------------------------------ */

/* Host values of a case's tensors, shared by every run of the case. */
typedef struct case_values {
    void *v[CHK_MAX_ARGS][CHK_MAX_LIST + 1];
} case_values;

/* The logical values of a spec (numel, or the base's for expanded). */
static void *make_values(const chk_tspec *t)
{
    int64_t shape[CLOPS_MAX_DIMS];
    if (t->layout == CHK_EXPANDED)
        chk_expanded_base(t->ndim, t->sizes, shape);
    else
        memcpy(shape, t->sizes, sizeof(int64_t) * (size_t)t->ndim);
    int64_t n = chk_numel(t->ndim, shape);
    size_t es = clops_dtype_size(t->dtype);
    /* Large tensors (benchmarks) repeat a random block: the values only
     * have to be from the domain, and filling them one by one would cost
     * more than the measurement.  A contiguous one keeps the block alone:
     * chk_guarded_new_tiled tiles it on the device. */
    int64_t block = n > CHK_FILL_BLOCK ? CHK_FILL_BLOCK : n;
    if (t->layout == CHK_CONTIGUOUS)
        n = block;
    void *buf = malloc(n ? (size_t)n * es : 1);
    if (!buf)
        return NULL;
    chk_rng r = chk_rng_seeded(t->seed);
    chk_fill(buf, block, t->dtype, t->domain, &r);
    for (int64_t done = block; done < n;) {
        int64_t k = done < n - done ? done : n - done;
        memcpy((char *)buf + (size_t)done * es, buf, (size_t)k * es);
        done += k;
    }
    return buf;
}

/* Frees the host values of a case. */
static void values_free(case_values *cv)
{
    for (int i = 0; i < CHK_MAX_ARGS; i++)
        for (int k = 0; k <= CHK_MAX_LIST; k++) {
            free(cv->v[i][k]);
            cv->v[i][k] = NULL;
        }
}

/* Fills cv for every input tensor of c. */
static clops_status values_make(const chk_case *c, case_values *cv)
{
    memset(cv, 0, sizeof *cv);
    for (int i = 0; i < c->nargs; i++) {
        const chk_argval *a = &c->args[i];
        if ((a->role == CHK_ROLE_INPUT || a->role == CHK_ROLE_MUTATED) && !a->t.none) {
            if (!(cv->v[i][0] = make_values(&a->t)))
                goto oom;
        }
        for (int k = 0; a->role == CHK_ROLE_LIST && k < a->nlist; k++)
            if (!a->list[k].none && !(cv->v[i][k + 1] = make_values(&a->list[k])))
                goto oom;
    }
    return CLOPS_OK;
oom:
    values_free(cv);
    return clops__fail(CLOPS_HOST_OUT_OF_MEMORY, "check: input values of a case");
}

/* The geometry of a tensor when it was made. */
typedef struct geometry {
    const void *storage;
    int ndim;
    int64_t offset;
    int64_t sizes[CLOPS_MAX_DIMS], strides[CLOPS_MAX_DIMS];
} geometry;

/* Records t's geometry. */
static void geometry_save(const clops_tensor *t, geometry *g)
{
    memset(g, 0, sizeof *g);
    if (!t)
        return;
    g->storage = t->storage;
    g->ndim = t->ndim;
    g->offset = t->offset;
    memcpy(g->sizes, t->sizes, sizeof(int64_t) * (size_t)t->ndim);
    memcpy(g->strides, t->strides, sizeof(int64_t) * (size_t)t->ndim);
}

/* The arguments of one run. */
typedef struct run_args {
    clops_value vals[CHK_MAX_ARGS];
    geometry geo[CHK_MAX_ARGS];
    chk_guarded g[CHK_MAX_ARGS];
    chk_guarded lg[CHK_MAX_ARGS][CHK_MAX_LIST];
    clops_tensor *lists[CHK_MAX_ARGS][CHK_MAX_LIST];
} run_args;

/* Releases the tensors of a run. */
static void run_args_free(run_args *ra, int nargs)
{
    for (int i = 0; i < nargs; i++) {
        chk_guarded_release(&ra->g[i]);
        for (int k = 0; k < CHK_MAX_LIST; k++)
            chk_guarded_release(&ra->lg[i][k]);
    }
}

/* Whether a guarded tensor's geometry or storage differs from when it was
 * made. */
static bool geometry_changed(const chk_guarded *g, const geometry *was)
{
    const clops_tensor *t = g->t;
    if (!t || t->storage != was->storage || t->ndim != was->ndim || t->offset != was->offset)
        return t != NULL;
    return memcmp(t->sizes, was->sizes, sizeof(int64_t) * (size_t)t->ndim) != 0 ||
           memcmp(t->strides, was->strides, sizeof(int64_t) * (size_t)t->ndim) != 0;
}

/* Whether a guarded tensor still has the shape it was made with. */
static bool same_shape_as_before(const chk_guarded *g, const geometry *was)
{
    const clops_tensor *t = g->t;
    return t && t->ndim == was->ndim &&
           memcmp(t->sizes, was->sizes, sizeof(int64_t) * (size_t)t->ndim) == 0;
}

/* Resolved out= geometry: shape and dtype per OUT argument. */
typedef struct out_shapes {
    bool known[CHK_MAX_ARGS];
    clops_dtype dtype[CHK_MAX_ARGS];
    int ndim[CHK_MAX_ARGS];
    int64_t sizes[CHK_MAX_ARGS][CLOPS_MAX_DIMS];
} out_shapes;

/* Builds the arguments of c on dev (CPU-pinned specs on cpu). */
static clops_status materialise(const chk_case *c, const case_values *cv, const out_shapes *os,
                                clops_device *dev, clops_device *cpu, run_args *ra)
{
    memset(ra, 0, sizeof *ra);
    clops_status st = CLOPS_OK;
    for (int i = 0; i < c->nargs && st == CLOPS_OK; i++) {
        const chk_argval *a = &c->args[i];
        const chk_tspec *t = &a->t;
        switch (a->role) {
        case CHK_ROLE_INPUT:
        case CHK_ROLE_MUTATED:
            if (t->none) {
                ra->vals[i] = clops_value_none();
                break;
            }
            st = chk_guarded_new_tiled(t->on_cpu ? cpu : dev, t->dtype, t->ndim, t->sizes,
                                       t->layout, cv->v[i][0], CHK_FILL_BLOCK, &ra->g[i]);
            ra->vals[i] = clops_value_tensor(ra->g[i].t);
            break;
        case CHK_ROLE_OUT:
            if (os && os->known[i])
                st = chk_guarded_new(dev, os->dtype[i], os->ndim[i], os->sizes[i], t->layout, NULL,
                                     &ra->g[i]);
            else
                st = chk_guarded_new(dev, t->dtype, t->ndim, t->sizes, CHK_CONTIGUOUS, NULL,
                                     &ra->g[i]);
            ra->vals[i] = clops_value_tensor(ra->g[i].t);
            break;
        case CHK_ROLE_LIST:
            for (int k = 0; k < a->nlist && st == CLOPS_OK; k++) {
                const chk_tspec *lt = &a->list[k];
                if (lt->none) { /* a None entry of a Tensor?[] list */
                    ra->lists[i][k] = NULL;
                    continue;
                }
                st = chk_guarded_new_tiled(dev, lt->dtype, lt->ndim, lt->sizes, lt->layout,
                                           cv->v[i][k + 1], CHK_FILL_BLOCK, &ra->lg[i][k]);
                ra->lists[i][k] = ra->lg[i][k].t;
            }
            ra->vals[i].tag = CLOPS_V_TENSOR_LIST;
            ra->vals[i].v.tensors.data = ra->lists[i];
            ra->vals[i].v.tensors.len = a->nlist;
            break;
        case CHK_ROLE_DEVICE:
            ra->vals[i] = clops_value_device(dev);
            break;
        default:
            ra->vals[i] = chk_arg_value(a);
            break;
        }
    }
    if (st)
        run_args_free(ra, c->nargs);
    return st;
}

/* --- one run ------------------------------------------------------------------------ */


/* Runs c on dev and collects the outputs.  The returned status is the
 * engine's (materialising, reading back); the op's is in rr->op_status. */
static clops_status run_once(const chk_opinfo *info, const chk_case *c, const case_values *cv,
                             const out_shapes *os, clops_device *dev, clops_device *cpu,
                             chk_run_result *rr)
{
    memset(rr, 0, sizeof *rr);
    rr->outs.guards_ok = true;
    run_args ra;
    double t0 = now_s();
    clops_status st = materialise(c, cv, os, dev, cpu, &ra);
    if (st)
        return st;
    for (int i = 0; i < c->nargs; i++)
        geometry_save(ra.g[i].t, &ra.geo[i]);
    rr->kernel = chk_resolve_kernel(info->op, dev, rr->kernel_name, sizeof rr->kernel_name);
    uint64_t fb = clops_fallback_count(info->op);
    int nrets = info->schema->nrets;
    clops_value rets[CHK_MAX_OUTPUTS];
    for (int r = 0; r < nrets && r < CHK_MAX_OUTPUTS; r++)
        rets[r] = clops_value_none();
    clops_clear_error();
    /* Random ops draw from the default generator of the call's device (the
     * cases pass generator=None): the same state before every run gives the
     * reference and the device the same stream, which clops makes
     * bit-identical across devices (docs/random.md). */
    clops_generator *gen = NULL;
    if (clops_generator_default(dev, &gen) == CLOPS_OK)
        clops_generator_manual_seed(gen, CHK_GENERATOR_SEED);
    if (nrets > CHK_MAX_OUTPUTS) {
        rr->op_status = clops__fail(CLOPS_INVALID_ARGUMENT, "too many returns");
    } else {
        rr->op_status = clops_call_boxed(info->op, ra.vals, c->nargs, rets, nrets);
        if (rr->op_status == CLOPS_OK)
            rr->op_status = clops_device_synchronize(dev);
    }
    if (rr->op_status) {
        snprintf(rr->op_msg, sizeof rr->op_msg, "%s", clops_last_error());
        if (!rr->op_msg[0])
            snprintf(rr->op_msg, sizeof rr->op_msg, "%s", clops_status_string(rr->op_status));
    }
    if (clops_fallback_count(info->op) > fb && rr->kernel != CHK_KERNEL_REFERENCE)
        rr->kernel = CHK_KERNEL_FALLBACK;
    for (int r = 0; rr->op_status == CLOPS_OK && st == CLOPS_OK && r < nrets; r++) {
        const schema_ret *sr = &info->schema->rets[r];
        char what[64];
        snprintf(what, sizeof what, "result %d", r);
        if (rets[r].tag == CLOPS_V_TENSOR) {
            if (sr->alias.present && sr->alias.is_write)
                continue; /* an alias of a written argument, compared below */
            st = add_tensor_output(&rr->outs, what, rets[r].v.t, !sr->alias.present);
        } else if (rets[r].tag == CLOPS_V_TENSOR_LIST) {
            for (int k = 0; k < rets[r].v.tensors.len && st == CLOPS_OK; k++) {
                snprintf(what, sizeof what, "result %d[%d]", r, k);
                if (rets[r].v.tensors.data[k])
                    st = add_tensor_output(&rr->outs, what, rets[r].v.tensors.data[k], true);
            }
        } else if (rr->outs.n < CHK_MAX_OUTPUTS) {
            chk_output *o = &rr->outs.o[rr->outs.n++];
            memset(o, 0, sizeof *o);
            snprintf(o->what, sizeof o->what, "%s", what);
            o->scalar = rets[r];
        }
    }
    for (int i = 0; rr->op_status == CLOPS_OK && st == CLOPS_OK && i < c->nargs; i++) {
        chk_role role = c->args[i].role;
        if (role != CHK_ROLE_MUTATED && role != CHK_ROLE_OUT)
            continue;
        char what[64];
        snprintf(what, sizeof what, "%s (%s)", info->schema->args[i].name,
                 role == CHK_ROLE_OUT ? "out=" : "in place");
        bool intact = true, moved = geometry_changed(&ra.g[i], &ra.geo[i]);
        char msg[512];
        /* An op that changes the tensor's geometry or storage (resize_,
         * set_) makes the guard bytes meaningless; an out= tensor that
         * already had the result's shape must keep its layout, as PyTorch
         * keeps it. */
        if (!moved)
            st = chk_guarded_verify(&ra.g[i], &intact, msg, sizeof msg);
        if (st == CLOPS_OK && !intact && rr->outs.guards_ok) {
            rr->outs.guards_ok = false;
            snprintf(rr->outs.guard_msg, sizeof rr->outs.guard_msg, "%s: %s", what, msg);
        }
        if (moved && role == CHK_ROLE_OUT && same_shape_as_before(&ra.g[i], &ra.geo[i]) &&
            rr->outs.guards_ok) {
            rr->outs.guards_ok = false;
            char desc[400];
            clops_tensor_describe(ra.g[i].t, desc, sizeof desc);
            snprintf(rr->outs.guard_msg, sizeof rr->outs.guard_msg,
                     "%s: the op changed the layout of an out= tensor that already had the "
                     "result's shape (now %s); PyTorch writes into it as it is", what, desc);
        }
        if (st == CLOPS_OK)
            st = add_tensor_output(&rr->outs, what, ra.g[i].t, false);
    }
    rr->seconds = now_s() - t0;
    for (int r = 0; r < nrets && r < CHK_MAX_OUTPUTS; r++)
        clops_value_clear(&rets[r]);
    run_args_free(&ra, c->nargs);
    if (st)
        outputs_free(&rr->outs);
    return st;
}

/* Works out the shapes and dtypes of the out= tensors of c: the results of
 * the functional op on the CPU with the same inputs.  Unknown shapes stay
 * unknown (the out tensor is then an empty one the op resizes). */
static void resolve_out_shapes(const chk_opinfo *info, const chk_case *c, const case_values *cv,
                               clops_device *cpu, out_shapes *os)
{
    memset(os, 0, sizeof *os);
    bool need = false;
    for (int i = 0; i < c->nargs; i++)
        need |= c->args[i].role == CHK_ROLE_OUT && c->args[i].t.from_result;
    if (!need || !info->functional)
        return;
    const op_schema *fs = info->functional->schema;
    if (fs->nargs > CHK_MAX_ARGS || fs->nrets > CHK_MAX_OUTPUTS)
        return;
    run_args ra;
    if (materialise(c, cv, NULL, cpu, cpu, &ra) != CLOPS_OK)
        return;
    clops_value fargs[CHK_MAX_ARGS], rets[CHK_MAX_OUTPUTS];
    bool ok = true;
    for (int j = 0; j < fs->nargs && ok; j++) {
        int found = -1;
        for (int i = 0; i < c->nargs; i++)
            if (strcmp(info->schema->args[i].name, fs->args[j].name) == 0)
                found = i;
        ok = found >= 0;
        if (ok)
            fargs[j] = ra.vals[found];
    }
    for (int r = 0; r < fs->nrets; r++)
        rets[r] = clops_value_none();
    if (ok && clops_call_boxed(info->functional, fargs, fs->nargs, rets, fs->nrets) == CLOPS_OK) {
        for (int i = 0; i < c->nargs; i++) {
            const chk_argval *a = &c->args[i];
            if (a->role != CHK_ROLE_OUT || !a->t.from_result || a->t.result_index >= fs->nrets)
                continue;
            const clops_value *v = &rets[a->t.result_index];
            if (v->tag != CLOPS_V_TENSOR)
                continue;
            os->known[i] = true;
            os->dtype[i] = clops_tensor_dtype(v->v.t);
            os->ndim[i] = clops_tensor_ndim(v->v.t);
            for (int d = 0; d < os->ndim[i]; d++)
                os->sizes[i][d] = clops_tensor_size(v->v.t, d);
        }
    }
    for (int r = 0; r < fs->nrets; r++)
        clops_value_clear(&rets[r]);
    run_args_free(&ra, c->nargs);
    clops_clear_error();
}

clops_status chk_run_case(const chk_opinfo *info, const chk_case *c, clops_device *const *devs,
                          int ndev, chk_result *results)
{
    clops_device *cpu = NULL;
    clops_status st = clops_device_get(0, &cpu);
    if (st)
        return st;
    case_values cv;
    st = values_make(c, &cv);
    if (st)
        return st;
    out_shapes os;
    resolve_out_shapes(info, c, &cv, cpu, &os);
    chk_run_result ref, dev;
    st = run_once(info, c, &cv, &os, cpu, cpu, &ref);
    for (int k = 0; k < ndev && st == CLOPS_OK; k++) {
        chk_result *res = &results[k];
        chk_result_init(res, info->name, c->dtype_label, c->name,
                        clops_device_get_info(devs[k])->index);
        st = run_once(info, c, &cv, &os, devs[k], cpu, &dev);
        if (st)
            break;
        chk_verdict(info, c, &ref.outs, ref.op_status, ref.op_msg, &dev, res);
        outputs_free(&dev.outs);
    }
    outputs_free(&ref.outs);
    values_free(&cv);
    return st;
}

/* A case materialised on one device, ready to be called repeatedly. */
struct chk_prepared {
    const chk_opinfo *info;
    chk_case c;
    clops_device *dev;
    run_args ra;
};

clops_status chk_prepare(const chk_opinfo *info, const chk_case *c, clops_device *dev,
                         bool resolve_on_device, chk_prepared **out)
{
    *out = NULL;
    clops_device *cpu = NULL;
    clops_status st = clops_device_get(0, &cpu);
    if (st)
        return st;
    chk_prepared *p = calloc(1, sizeof *p);
    if (!p)
        return clops__fail(CLOPS_HOST_OUT_OF_MEMORY, "check: a prepared case");
    p->info = info;
    p->c = *c;
    p->dev = dev;
    case_values cv;
    st = values_make(c, &cv);
    if (st) {
        free(p);
        return st;
    }
    out_shapes os;
    resolve_out_shapes(info, c, &cv, resolve_on_device ? dev : cpu, &os);
    st = materialise(c, &cv, &os, dev, cpu, &p->ra);
    values_free(&cv);
    if (st) {
        free(p);
        return st;
    }
    *out = p;
    return CLOPS_OK;
}

clops_status chk_prepared_call(chk_prepared *p, bool sync, double *out_bytes)
{
    int nrets = p->info->schema->nrets;
    clops_value rets[CHK_MAX_OUTPUTS];
    if (nrets > CHK_MAX_OUTPUTS)
        return clops__fail(CLOPS_INVALID_ARGUMENT, "%s: too many returns", p->info->name);
    for (int r = 0; r < nrets; r++)
        rets[r] = clops_value_none();
    clops_status st = clops_call_boxed(p->info->op, p->ra.vals, p->c.nargs, rets, nrets);
    if (st == CLOPS_OK && sync)
        st = clops_device_synchronize(p->dev);
    if (out_bytes) {
        double b = 0;
        for (int r = 0; r < nrets; r++)
            if (rets[r].tag == CLOPS_V_TENSOR && !p->info->schema->rets[r].alias.present)
                b += (double)clops_tensor_numel(rets[r].v.t) *
                     (double)clops_dtype_size(clops_tensor_dtype(rets[r].v.t));
        for (int i = 0; i < p->c.nargs; i++)
            if ((p->c.args[i].role == CHK_ROLE_MUTATED || p->c.args[i].role == CHK_ROLE_OUT) &&
                p->ra.g[i].t)
                b += (double)clops_tensor_numel(p->ra.g[i].t) *
                     (double)clops_dtype_size(clops_tensor_dtype(p->ra.g[i].t));
        *out_bytes = b;
    }
    for (int r = 0; r < nrets; r++)
        clops_value_clear(&rets[r]);
    return st;
}

/* Whether the `unread` hint names argument i: the op overwrites it (or
 * uses only its shape and dtype) without reading its values. */
static bool arg_unread(const chk_opinfo *info, int i)
{
    const cJSON *u = chk_hint(info, "unread");
    const cJSON *e = NULL;
    cJSON_ArrayForEach(e, u)
    {
        if (cJSON_IsString(e) && strcmp(e->valuestring, info->schema->args[i].name) == 0)
            return true;
    }
    return false;
}

double chk_prepared_input_bytes(const chk_prepared *p)
{
    double b = 0;
    for (int i = 0; i < p->c.nargs; i++) {
        const chk_argval *a = &p->c.args[i];
        if ((a->role != CHK_ROLE_INPUT && a->role != CHK_ROLE_MUTATED) || a->t.none ||
            arg_unread(p->info, i))
            continue;
        int64_t shape[CLOPS_MAX_DIMS];
        if (a->t.layout == CHK_EXPANDED)
            chk_expanded_base(a->t.ndim, a->t.sizes, shape);
        else
            memcpy(shape, a->t.sizes, sizeof(int64_t) * (size_t)a->t.ndim);
        b += (double)chk_numel(a->t.ndim, shape) * (double)clops_dtype_size(a->t.dtype);
    }
    return b;
}

void chk_prepared_free(chk_prepared *p)
{
    if (!p)
        return;
    run_args_free(&p->ra, p->c.nargs);
    free(p);
}

clops_status chk_call_case(const chk_opinfo *info, const chk_case *c, clops_device *dev,
                           double *seconds)
{
    chk_prepared *p = NULL;
    clops_status st = chk_prepare(info, c, dev, false, &p);
    if (st)
        return st;
    clops_device_synchronize(dev);
    double t0 = now_s();
    st = chk_prepared_call(p, true, NULL);
    if (seconds)
        *seconds = now_s() - t0;
    chk_prepared_free(p);
    return st;
}

/* --- the call as JSON (the PyTorch side of `clops compare --torch`) ------------------ */

/* A tensor's dtype, sizes and strides (elements) as the call sees it. */
static cJSON *tensor_json(const clops_tensor *t, const chk_tspec *spec, const char *role)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    bool ok = cJSON_AddStringToObject(o, "kind", "tensor") &&
              cJSON_AddStringToObject(o, "role", role) &&
              cJSON_AddStringToObject(o, "dtype", clops_dtype_name(clops_tensor_dtype(t)));
    cJSON *sizes = cJSON_AddArrayToObject(o, "sizes");
    cJSON *strides = cJSON_AddArrayToObject(o, "strides");
    ok = ok && sizes && strides;
    for (int d = 0; ok && d < clops_tensor_ndim(t); d++) {
        cJSON *a = cJSON_CreateNumber((double)clops_tensor_size(t, d));
        cJSON *b = cJSON_CreateNumber((double)clops_tensor_stride(t, d));
        ok = cJSON_AddItemToArray(sizes, a) && cJSON_AddItemToArray(strides, b);
        if (!ok) {
            cJSON_Delete(a);
            cJSON_Delete(b);
        }
    }
    if (ok && spec)
        ok = cJSON_AddStringToObject(o, "domain", chk_domain_name(spec->domain)) &&
             cJSON_AddBoolToObject(o, "on_cpu", spec->on_cpu);
    if (!ok) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

/* A boxed value (not a tensor) as {"kind", "value"}. */
static cJSON *value_json(const clops_value *v)
{
    cJSON *o = cJSON_CreateObject(), *val = NULL;
    if (!o)
        return NULL;
    const char *kind = "none";
    switch (v->tag) {
    case CLOPS_V_SCALAR:
        kind = "scalar";
        val = v->v.s.kind == CLOPS_SCALAR_BOOL  ? cJSON_CreateBool(v->v.s.v.b)
              : v->v.s.kind == CLOPS_SCALAR_INT ? cJSON_CreateNumber((double)v->v.s.v.i)
                                                : cJSON_CreateNumber(v->v.s.v.f);
        if (val && v->v.s.kind == CLOPS_SCALAR_FLOAT && !isfinite(v->v.s.v.f)) {
            cJSON_Delete(val); /* JSON has no infinities or NaN */
            val = cJSON_CreateString(isnan(v->v.s.v.f) ? "nan" : v->v.s.v.f > 0 ? "inf" : "-inf");
        }
        if (val && !cJSON_AddStringToObject(o, "scalar_type",
                                            v->v.s.kind == CLOPS_SCALAR_BOOL  ? "bool"
                                            : v->v.s.kind == CLOPS_SCALAR_INT ? "int"
                                                                              : "float")) {
            cJSON_Delete(val);
            val = NULL;
        }
        break;
    case CLOPS_V_INT:
        kind = "int";
        val = cJSON_CreateNumber((double)v->v.i);
        break;
    case CLOPS_V_ENUM:
        kind = "enum";
        val = cJSON_CreateNumber((double)v->v.i);
        break;
    case CLOPS_V_FLOAT:
        kind = "float";
        val = isfinite(v->v.f) ? cJSON_CreateNumber(v->v.f)
                               : cJSON_CreateString(isnan(v->v.f) ? "nan"
                                                    : v->v.f > 0  ? "inf"
                                                                  : "-inf");
        break;
    case CLOPS_V_BOOL:
        kind = "bool";
        val = cJSON_CreateBool(v->v.b);
        break;
    case CLOPS_V_INT_LIST:
        kind = "int_list";
        val = cJSON_CreateArray();
        for (int k = 0; val && k < v->v.ints.len; k++)
            if (!cJSON_AddItemToArray(val, cJSON_CreateNumber((double)v->v.ints.data[k]))) {
                cJSON_Delete(val);
                val = NULL;
            }
        break;
    case CLOPS_V_FLOAT_LIST:
        kind = "float_list";
        val = cJSON_CreateArray();
        for (int k = 0; val && k < v->v.floats.len; k++)
            if (!cJSON_AddItemToArray(val, cJSON_CreateNumber(v->v.floats.data[k]))) {
                cJSON_Delete(val);
                val = NULL;
            }
        break;
    case CLOPS_V_BOOL_LIST:
        kind = "bool_list";
        val = cJSON_CreateArray();
        for (int k = 0; val && k < v->v.bools.len; k++)
            if (!cJSON_AddItemToArray(val, cJSON_CreateBool(v->v.bools.data[k]))) {
                cJSON_Delete(val);
                val = NULL;
            }
        break;
    case CLOPS_V_DTYPE:
        kind = "dtype";
        val = cJSON_CreateString(clops_dtype_name(v->v.dtype));
        break;
    case CLOPS_V_STRING:
        kind = "string";
        val = cJSON_CreateString(v->v.str);
        break;
    case CLOPS_V_DEVICE:
        kind = "device";
        val = cJSON_CreateNull();
        break;
    case CLOPS_V_GENERATOR:
        kind = "generator";
        val = cJSON_CreateNull();
        break;
    default:
        val = cJSON_CreateNull();
        break;
    }
    if (!val || !cJSON_AddStringToObject(o, "kind", kind) ||
        !cJSON_AddItemToObject(o, "value", val)) {
        cJSON_Delete(val);
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

cJSON *chk_prepared_json(const chk_prepared *p)
{
    cJSON *o = cJSON_CreateObject();
    cJSON *args = o ? cJSON_AddArrayToObject(o, "args") : NULL;
    bool ok = args && cJSON_AddStringToObject(o, "op", p->info->name) &&
              cJSON_AddStringToObject(o, "dtype", p->c.dtype_label) &&
              cJSON_AddStringToObject(o, "case", p->c.name);
    for (int i = 0; ok && i < p->c.nargs; i++) {
        const chk_argval *a = &p->c.args[i];
        const clops_value *v = &p->ra.vals[i];
        cJSON *arg = NULL;
        if (a->role == CHK_ROLE_LIST) {
            arg = cJSON_CreateObject();
            cJSON *items = arg ? cJSON_AddArrayToObject(arg, "value") : NULL;
            ok = items && cJSON_AddStringToObject(arg, "kind", "tensor_list");
            for (int k = 0; ok && k < a->nlist; k++) {
                const clops_tensor *t = p->ra.lists[i][k];
                cJSON *e = t ? tensor_json(t, &a->list[k], "input") : value_json(&(clops_value){0});
                ok = e && cJSON_AddItemToArray(items, e);
                if (!ok)
                    cJSON_Delete(e);
            }
        } else if (v->tag == CLOPS_V_TENSOR) {
            arg = tensor_json(v->v.t, a->role == CHK_ROLE_OUT ? NULL : &a->t,
                              a->role == CHK_ROLE_OUT       ? "out"
                              : a->role == CHK_ROLE_MUTATED ? "mutated"
                                                            : "input");
        } else {
            arg = value_json(v);
        }
        ok = ok && arg && cJSON_AddStringToObject(arg, "name", p->info->schema->args[i].name) &&
             cJSON_AddItemToArray(args, arg);
        if (!ok)
            cJSON_Delete(arg);
    }
    if (!ok) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}
