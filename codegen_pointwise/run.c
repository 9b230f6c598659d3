/* SPDX-License-Identifier: Apache-2.0 */
/*
 * codegen_pointwise/run.c: one pointwise call from operands to launch.
 *
 * pw_run checks and promotes the operands, prepares the output for the
 * variant (allocate / in place / out=), plans the iteration, then either
 * runs the C reference (CPU device) or finds the specialised kernel by its
 * packed key and launches it.  The hot path builds no strings: the kernel
 * key is four words, and the program source is generated only on a miss.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "codegen_pointwise/pw.h"
#include "dispatch/structured.h"
#include "host/host.h"
#include "ops/kit/kit.h"

/* Everything pw_run derives before launching. */
typedef struct pw_call {
    const pw_op *op;
    const char *opname;
    clops_device *device;
    pw_operand operands[PW_MAX_IN];
    clops_dtype common, compute, result;
} pw_call;

/* Bytes of a scalar converted to compute dtype ct (as the kernel expects). */
typedef union scalar_bytes {
    uint8_t u8;
    int8_t i8;
    int16_t i16;
    int32_t i32;
    int64_t i64;
    float f32;
    double f64;
} scalar_bytes;

/* Converts a scalar to the storage of compute dtype ct; returns its size.
 * (Launch hot path: each case converts only the way it needs.) */
static size_t scalar_to_compute(clops_scalar s, clops_dtype ct, scalar_bytes *out)
{
    switch (ct) {
    case CLOPS_BOOL:
        out->u8 = s.kind == CLOPS_SCALAR_FLOAT ? (clops_scalar_to_double(s) != 0.0)
                                               : (clops_scalar_to_int64(s) != 0);
        return 1;
    case CLOPS_UINT8:
        out->u8 = (uint8_t)clops_scalar_to_int64(s);
        return 1;
    case CLOPS_INT8:
        out->i8 = (int8_t)clops_scalar_to_int64(s);
        return 1;
    case CLOPS_INT16:
        out->i16 = (int16_t)clops_scalar_to_int64(s);
        return 2;
    case CLOPS_INT32:
        out->i32 = (int32_t)clops_scalar_to_int64(s);
        return 4;
    case CLOPS_INT64:
        out->i64 = clops_scalar_to_int64(s);
        return 8;
    case CLOPS_FLOAT64:
        out->f64 = clops_scalar_to_double(s);
        return 8;
    default: /* float32 and the 16-bit floats compute in float */
        out->f32 = (float)clops_scalar_to_double(s);
        return 4;
    }
}

/* Rounds a float to the reduced-precision common dtype `round` (float16 or
 * bfloat16; CLOPS_DTYPE_NONE leaves it): PyTorch converts a scalar operand
 * to the common dtype before computing, so 0.1 meets float16 as 0.099976. */
static float round_to_common(float f, clops_dtype round)
{
    if (round == CLOPS_FLOAT16)
        return clops_half_to_float(clops_float_to_half(f));
    if (round == CLOPS_BFLOAT16)
        return clops_bfloat16_to_float(clops_float_to_bfloat16(f));
    return f;
}

/* The dtype a scalar operand j of a call with common dtype `common` is
 * rounded to (see round_to_common). */
static clops_dtype scalar_rounding(const pw_op *op, int j, clops_dtype common)
{
    if (op->is_cast || op->scalar_opmath || op->roles[j] != PW_ROLE_COMMON)
        return CLOPS_DTYPE_NONE;
    return (common == CLOPS_FLOAT16 || common == CLOPS_BFLOAT16) ? common : CLOPS_DTYPE_NONE;
}

/* Value of a scalar for the reference functions in compute dtype ct. */
static pw_value scalar_to_value(clops_scalar s, clops_dtype ct)
{
    pw_value v;
    if (clops_dtype_is_floating(ct)) {
        v.f = clops_scalar_to_double(s);
        if (ct != CLOPS_FLOAT64)
            v.f = (double)(float)v.f;
    } else if (ct == CLOPS_BOOL) {
        v.i = s.kind == CLOPS_SCALAR_FLOAT ? (s.v.f != 0.0) : (clops_scalar_to_int64(s) != 0);
    } else {
        /* Wrap to the compute width, as the kernel's argument would. */
        scalar_bytes b;
        scalar_to_compute(s, ct, &b);
        switch (ct) {
        case CLOPS_UINT8:
            v.i = b.u8;
            break;
        case CLOPS_INT8:
            v.i = b.i8;
            break;
        case CLOPS_INT16:
            v.i = b.i16;
            break;
        case CLOPS_INT32:
            v.i = b.i32;
            break;
        default:
            v.i = b.i64;
        }
    }
    return v;
}

/* Compute dtype of operand j. */
static clops_dtype operand_compute_dtype(const pw_op *op, int j, clops_dtype compute,
                                         clops_dtype own)
{
    if (op->roles[j] == PW_ROLE_BOOL)
        return CLOPS_BOOL;
    if (op->roles[j] == PW_ROLE_OWN)
        return (own == CLOPS_FLOAT16 || own == CLOPS_BFLOAT16) ? CLOPS_FLOAT32 : own;
    return compute;
}

/* Reads a zero-dim CPU tensor as a scalar of its kind. */
static clops_scalar cpu_tensor_scalar(const clops_tensor *t)
{
    pw_value v = pw_ref_load(t->storage->host_ptr, t->offset, t->dtype,
                             clops_dtype_is_floating(t->dtype) ? CLOPS_FLOAT64 : CLOPS_INT64);
    if (clops_dtype_is_floating(t->dtype))
        return clops_scalar_float(v.f);
    if (t->dtype == CLOPS_BOOL)
        return clops_scalar_bool(v.i != 0);
    return clops_scalar_int(v.i);
}

/* Describes the operands for error messages ("float32[3, 4], int scalar"). */
static void describe_operands(const pw_call *c, char *buf, size_t cap)
{
    size_t pos = 0;
    buf[0] = '\0';
    for (int j = 0; j < c->op->n_in && pos < cap; j++) {
        const pw_operand *o = &c->operands[j];
        char one[512];
        if (o->tensor) {
            char shape[400];
            clops__fmt_shape(shape, sizeof shape, o->tensor->ndim, o->tensor->sizes);
            snprintf(one, sizeof one, "%s%s", clops_dtype_name(o->tensor->dtype), shape);
        } else if (o->is_cpu_scalar) {
            snprintf(one, sizeof one, "%s zero-dim cpu tensor", clops_dtype_name(o->scalar_dtype));
        } else {
            static const char *const kinds[] = {"bool", "int", "float"};
            snprintf(one, sizeof one, "%s scalar", kinds[o->scalar.kind]);
        }
        pos += (size_t)snprintf(buf + pos, cap - pos, "%s%s", j ? ", " : "", one);
    }
}

/* Finds the device, turning zero-dim CPU tensors into scalars when the op
 * runs elsewhere (as PyTorch lets a CPU scalar tensor join a device op). */
static clops_status resolve_device(pw_call *c, const clops_tensor *dst)
{
    clops_device *dev = dst ? dst->storage->device : NULL;
    for (int j = 0; j < c->op->n_in && !dev; j++) {
        const clops_tensor *t = c->operands[j].tensor;
        if (t && !(t->ndim == 0 && kit_is_host(t->storage->device)))
            dev = t->storage->device;
    }
    for (int j = 0; j < c->op->n_in && !dev; j++)
        if (c->operands[j].tensor)
            dev = c->operands[j].tensor->storage->device;
    if (!dev) {
        clops_status st = clops_device_get(0, &dev);
        if (st)
            return st;
    }
    for (int j = 0; j < c->op->n_in; j++) {
        pw_operand *o = &c->operands[j];
        if (!o->tensor || o->tensor->storage->device == dev)
            continue;
        if (o->tensor->ndim == 0 && kit_is_host(o->tensor->storage->device)) {
            o->is_cpu_scalar = true;
            o->scalar_dtype = o->tensor->dtype;
            o->scalar = cpu_tensor_scalar(o->tensor);
            o->tensor = NULL;
            continue;
        }
        return clops__fail(CLOPS_DEVICE_MISMATCH,
                           "%s: expected all tensors on the same device, but found tensors on %s "
                           "(%s) and %s (%s)",
                           c->opname, dev->label, dev->info.name, o->tensor->storage->device->label,
                           o->tensor->storage->device->info.name);
    }
    c->device = dev;
    return CLOPS_OK;
}

/* Computes common, compute and result dtypes; checks the op accepts them. */
static clops_status promote(pw_call *c, const pw_options *opts)
{
    const pw_op *op = c->op;
    pw_type_operand tops[PW_MAX_IN];
    int n = 0;
    for (int j = 0; j < op->n_in; j++) {
        if (op->roles[j] != PW_ROLE_COMMON)
            continue;
        const pw_operand *o = &c->operands[j];
        if (o->tensor)
            tops[n++] = pw_tensor_operand(o->tensor->dtype, o->tensor->ndim);
        else if (o->is_cpu_scalar)
            tops[n++] = pw_tensor_operand(o->scalar_dtype, 0);
        else
            tops[n++] = pw_scalar_operand(o->scalar);
    }
    if (opts && opts->compute != CLOPS_DTYPE_NONE) {
        c->common = opts->compute;
        c->compute = opts->compute;
        c->result = opts->result != CLOPS_DTYPE_NONE ? opts->result : opts->compute;
        return CLOPS_OK;
    }
    c->common = n ? pw_result_type(tops, n) : CLOPS_BOOL;
    char desc[1024];
    if (c->common == CLOPS_DTYPE_NONE || !(op->dtypes & (1u << c->common))) {
        describe_operands(c, desc, sizeof desc);
        return clops__fail(CLOPS_INVALID_DTYPE, "%s: not implemented for dtype %s (operands: %s)",
                           c->opname, clops_dtype_name(c->common), desc);
    }
    pw_compute_types(op->promotion, c->common, &c->compute, &c->result);
    if (op->fixed_result != CLOPS_DTYPE_NONE)
        c->result = op->fixed_result;
    if (opts && opts->result != CLOPS_DTYPE_NONE)
        c->result = opts->result;
    return CLOPS_OK;
}

/* PyTorch's checks on an `alpha` parameter. */
static clops_status check_params(const pw_call *c, const clops_scalar *params)
{
    for (int k = 0; k < c->op->n_params; k++) {
        const char *name = c->op->param_names[k];
        if (!name || strcmp(name, "alpha") != 0)
            continue;
        if (params[k].kind == CLOPS_SCALAR_FLOAT && !clops_dtype_is_floating(c->compute))
            return clops__fail(CLOPS_INVALID_ARGUMENT,
                               "%s: for integral input tensors, argument alpha must not be a "
                               "floating point number",
                               c->opname);
        if (params[k].kind == CLOPS_SCALAR_BOOL && c->result != CLOPS_BOOL)
            return clops__fail(CLOPS_INVALID_ARGUMENT,
                               "%s: boolean alpha only supported for Boolean results", c->opname);
    }
    return CLOPS_OK;
}

/* Sets up the destination for the variant; *dst_out gets a new reference. */
static clops_status prepare_output(pw_call *c, pw_variant variant, clops_tensor *given, int ndim,
                                   const int64_t *sizes, clops_tensor **dst_out)
{
    char a[400], b[400];
    clops_tensor *dst = NULL;
    if (variant == PW_FUNCTIONAL) {
        const clops_tensor *inputs[PW_MAX_IN];
        int ni = 0, nscalars = 0;
        for (int j = 0; j < c->op->n_in; j++) {
            if (c->operands[j].tensor)
                inputs[ni++] = c->operands[j].tensor;
            else
                nscalars++;
        }
        int64_t strides[CLOPS_MAX_DIMS];
        pw_result_strides(inputs, ni, nscalars, ndim, sizes, strides);
        clops_status st = tensor_new(c->device, c->result, ndim, sizes, strides, &dst);
        if (st)
            return clops__error_prefix(st, "%s", c->opname);
        *dst_out = dst;
        return CLOPS_OK;
    }
    dst = variant == PW_INPLACE ? (clops_tensor *)c->operands[0].tensor : given;
    if (!dst)
        return clops__fail(CLOPS_INVALID_ARGUMENT, "%s: %s", c->opname,
                           variant == PW_INPLACE ? "in-place operand 0 must be a tensor"
                                                 : "out tensor is NULL");
    if (dst->storage->device != c->device)
        return clops__fail(CLOPS_DEVICE_MISMATCH, "%s: output is on %s but the inputs are on %s",
                           c->opname, dst->storage->device->label, c->device->label);
    bool same_shape = dst->ndim == ndim &&
                      memcmp(dst->sizes, sizes, sizeof(int64_t) * (size_t)ndim) == 0;
    if (!same_shape) {
        if (variant == PW_INPLACE)
            return clops__fail(CLOPS_INVALID_SHAPE,
                               "%s: output with shape %s doesn't match the broadcast shape %s",
                               c->opname, clops__fmt_shape(a, sizeof a, dst->ndim, dst->sizes),
                               clops__fmt_shape(b, sizeof b, ndim, sizes));
        clops_status st = tensor_resize(dst, ndim, sizes);
        if (st)
            return clops__error_prefix(st, "%s: resizing out", c->opname);
    }
    if (!c->op->is_cast && !pw_can_cast(c->result, dst->dtype))
        return clops__fail(CLOPS_INVALID_DTYPE,
                           "%s: result type %s can't be cast to the desired output type %s",
                           c->opname, clops_dtype_name(c->result), clops_dtype_name(dst->dtype));
    clops_tensor *inputs[PW_MAX_IN];
    for (int j = 0; j < c->op->n_in; j++)
        inputs[j] = (clops_tensor *)c->operands[j].tensor;
    clops_status st = structured_check_overlap(c->opname, dst, inputs, c->op->n_in);
    if (st)
        return st;
    *dst_out = clops_tensor_retain(dst);
    return CLOPS_OK;
}

/* Packs the index struct the kernel expects (see emit.c). */
static size_t pack_meta(const pw_plan *plan, int rank, bool index64, void *buf)
{
    int nt = plan->n_tensors;
    int md = rank == PW_GENERIC_RANK ? CLOPS_MAX_DIMS : rank;
    uint64_t vals[2 + PW_MAX_OPERANDS + CLOPS_MAX_DIMS + PW_MAX_OPERANDS * CLOPS_MAX_DIMS];
    size_t n = 0;
    vals[n++] = (uint64_t)plan->numel;
    vals[n++] = (uint64_t)plan->ndim;
    for (int k = 0; k < nt; k++)
        vals[n++] = (uint64_t)plan->offsets[k];
    for (int d = 0; d < md; d++)
        vals[n++] = d < plan->ndim ? (uint64_t)plan->sizes[d] : 1;
    for (int k = 0; k < nt; k++)
        for (int d = 0; d < md; d++)
            vals[n++] = d < plan->ndim ? (uint64_t)plan->strides[k][d] : 0;
    if (index64) {
        memcpy(buf, vals, n * 8);
        return n * 8;
    }
    uint32_t *b32 = buf;
    for (size_t i = 0; i < n; i++)
        b32[i] = (uint32_t)vals[i];
    return n * 4;
}


/* Packs a spec into a kernel-cache key. */
static host_kkey spec_key(const pw_spec *s)
{
    host_kkey k = {{0, 0, 0, 0}};
    k.w[0] = (1ull << 56) | ((uint64_t)(unsigned)s->op->id << 32) |
             ((uint64_t)s->out_dtype << 24) | ((uint64_t)s->compute << 16) |
             ((uint64_t)s->rank << 8) | (uint64_t)s->index64;
    for (int j = 0; j < s->op->n_in; j++)
        k.w[1] |= (uint64_t)s->in_dtype[j] << (8 * j);
    k.w[1] |= (uint64_t)(unsigned)s->common << 40;
    /* The op record's address separates user ops that reuse a name. */
    k.w[2] = (uint64_t)(uintptr_t)s->op;
    return k;
}

/* Launches the kernel of spec over plan on an OpenCL device. */
static clops_status launch(const pw_call *c, const pw_spec *spec, const pw_plan *plan,
                           const clops_tensor *const *tensors, const int *tmap,
                           const clops_scalar *params)
{
    clops_device *d = c->device;
    host_kkey key = spec_key(spec);
    host_kernel *k = kit_find(d, &key);
    if (!k) {
        clops_status st = pw_build_kernel(d, &key, spec, c->opname, &k);
        if (st)
            return st;
    }
    const pw_op *op = c->op;
    host_arg args[1 + PW_MAX_IN + 1 + PW_MAX_IN + 1 + PW_MAX_PARAMS];
    cl_mem mems[PW_MAX_OPERANDS];
    int na = 0;
    mems[0] = tensors[0]->storage->block ? tensors[0]->storage->block->mem : NULL;
    args[na++] = (host_arg){sizeof(cl_mem), &mems[0]};
    for (int j = 0; j < op->n_in; j++) {
        const clops_tensor *t = tmap[j] >= 0 ? tensors[tmap[j]] : NULL;
        mems[1 + j] = (t && t->storage->block) ? t->storage->block->mem : NULL;
        args[na++] = (host_arg){sizeof(cl_mem), &mems[1 + j]};
    }
    /* The plan holds only the tensors; widen to one slot per operand.  Only
     * what pack_meta reads is filled in: copying the whole plan (16 dims of
     * strides per operand) was the largest single cost of this function. */
    pw_plan full;
    full.numel = plan->numel;
    full.ndim = plan->ndim;
    full.n_tensors = 1 + op->n_in;
    memcpy(full.sizes, plan->sizes, sizeof(int64_t) * (size_t)plan->ndim);
    full.offsets[0] = plan->offsets[0];
    memcpy(full.strides[0], plan->strides[0], sizeof(int64_t) * (size_t)plan->ndim);
    uint32_t flags = 0;
    for (int j = op->n_in - 1; j >= 0; j--) {
        int src = tmap[j];
        if (src < 0) {
            flags |= 1u << j;
            full.offsets[1 + j] = 0;
            for (int dd = 0; dd < plan->ndim; dd++)
                full.strides[1 + j][dd] = 0;
        } else {
            full.offsets[1 + j] = plan->offsets[src];
            for (int dd = 0; dd < plan->ndim; dd++)
                full.strides[1 + j][dd] = plan->strides[src][dd];
            if (plan->uniform[src])
                flags |= 1u << (8 + j);
        }
    }
    uint64_t meta[2 + PW_MAX_OPERANDS + CLOPS_MAX_DIMS + PW_MAX_OPERANDS * CLOPS_MAX_DIMS];
    size_t meta_size = pack_meta(&full, spec->rank, spec->index64, meta);
    args[na++] = (host_arg){meta_size, meta};
    scalar_bytes sc[PW_MAX_IN];
    for (int j = 0; j < op->n_in; j++) {
        clops_dtype ct = operand_compute_dtype(op, j, spec->compute, spec->in_dtype[j]);
        clops_scalar s = tmap[j] < 0 ? c->operands[j].scalar : clops_scalar_int(0);
        size_t sz = scalar_to_compute(s, ct, &sc[j]);
        if (tmap[j] < 0 && ct == CLOPS_FLOAT32)
            sc[j].f32 = round_to_common(sc[j].f32, scalar_rounding(op, j, spec->common));
        args[na++] = (host_arg){sz, &sc[j]};
    }
    args[na++] = (host_arg){sizeof flags, &flags};
    scalar_bytes pv[PW_MAX_PARAMS];
    for (int p = 0; p < op->n_params; p++) {
        size_t sz;
        if (op->params[p] == PW_PARAM_INT) {
            pv[p].i64 = clops_scalar_to_int64(params[p]);
            sz = 8;
        } else if (op->params[p] == PW_PARAM_FLOAT) {
            sz = scalar_to_compute(params[p],
                                   spec->compute == CLOPS_FLOAT64 ? CLOPS_FLOAT64 : CLOPS_FLOAT32,
                                   &pv[p]);
        } else {
            sz = scalar_to_compute(params[p], spec->compute, &pv[p]);
        }
        args[na++] = (host_arg){sz, &pv[p]};
    }
    uint64_t vw = (uint64_t)pw_emit_vec_width(spec, d);
    uint64_t work = spec->rank == 0 ? (uint64_t)(plan->numel + vw - 1) / vw : (uint64_t)plan->numel;
    /* chunked on CPU-like devices, a grid-stride grid on GPUs */
    clops_status st = host_launch_items(d, k, na, args, work);
    if (st)
        return clops__error_prefix(st, "%s", c->opname);
    return CLOPS_OK;
}

/*
 * Whether the contiguous fast path may use its vector loads and stores:
 * every tensor it moves vectors of (the output and the inputs not read at
 * one element) starts at a multiple of the vector width.  vloadN needs only
 * element alignment in OpenCL C, but POCL 3.1 emits an aligned N-element
 * load for vload_half8 and crashes on a view at an offset of 3 halves; so on
 * devices with the grid-stride policy an unaligned view takes the rank-1
 * strided kernel of the same program instead (chunked CPU devices check the
 * alignment per run inside their one kernel, emit.c).  Buffers themselves start aligned (CL_DEVICE_MEM_BASE_ADDR_ALIGN
 * is at least the largest vector type).
 */
static bool vector_aligned(const pw_spec *spec, const pw_plan *plan, const clops_device *d)
{
    int64_t vw = pw_emit_vec_width(spec, d);
    for (int k = 0; k < plan->n_tensors; k++)
        if ((k == 0 || !plan->uniform[k]) && plan->offsets[k] % vw != 0)
            return false;
    return true;
}

/* The dtype an op's reference function returns for spec. */
static clops_dtype result_compute(const pw_spec *s)
{
    if (s->op->promotion == PW_PROMOTE_ALWAYS_BOOL || s->op->fixed_result == CLOPS_BOOL)
        return CLOPS_BOOL;
    if (s->op->fixed_result != CLOPS_DTYPE_NONE)
        return s->op->fixed_result;
    return s->compute;
}

/*
 * Runs the call on the CPU device: the reference of ref/pointwise.c, given
 * the op's scalar function (ref's own, found by the op's name; a user op's
 * from its record), the output and every operand with the dtypes the
 * promotion chose.  The reference walks the tensors itself, not `plan`.
 */
static clops_status run_reference(const pw_call *c, const pw_spec *spec,
                                  const clops_tensor *const *tensors, const int *tmap,
                                  const clops_scalar *params)
{
    const pw_op *op = c->op;
    ref_pw_call rc;
    memset(&rc, 0, sizeof rc);
    rc.op = c->opname;
    rc.fn = op->user ? op->ref : ref_pw_lookup(op->name);
    if (!rc.fn)
        return clops__fail(CLOPS_INTERNAL, "%s: no CPU reference for pointwise op '%s'",
                           c->opname, op->name);
    pw_ref_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.user = op->user;
    ctx.compute = spec->compute;
    rc.ctx = &ctx;
    rc.out = (clops_tensor *)tensors[0];
    rc.result = result_compute(spec);
    rc.n_in = op->n_in;
    for (int j = 0; j < op->n_in; j++) {
        ref_pw_operand *o = &rc.in[j];
        ctx.in_dtype[j] = spec->in_dtype[j];
        o->compute = operand_compute_dtype(op, j, spec->compute, spec->in_dtype[j]);
        o->round = CLOPS_DTYPE_NONE;
        if (tmap[j] < 0) {
            o->scalar = scalar_to_value(c->operands[j].scalar, o->compute);
            clops_dtype round = scalar_rounding(op, j, spec->common);
            if (round != CLOPS_DTYPE_NONE)
                o->scalar.f = round_to_common((float)o->scalar.f, round);
            continue;
        }
        o->t = tensors[tmap[j]];
        /* Converted to the common dtype first, as on devices (emit.c).  A
         * zero-dim tensor on the CPU is a CPU scalar to PyTorch, which some
         * ops keep in opmath precision (pw_op.scalar_opmath). */
        if (!(op->scalar_opmath && o->t->ndim == 0))
            o->round = pw_operand_rounding(spec, j);
    }
    ctx.params_float = clops_dtype_is_floating(spec->compute);
    for (int p = 0; p < op->n_params; p++) {
        if (op->params[p] == PW_PARAM_INT)
            ctx.params[p].i = clops_scalar_to_int64(params[p]);
        else if (op->params[p] == PW_PARAM_FLOAT && !ctx.params_float)
            ctx.params[p].f = (double)(float)clops_scalar_to_double(params[p]);
        else
            ctx.params[p] = scalar_to_value(params[p], op->params[p] == PW_PARAM_FLOAT &&
                                                               spec->compute != CLOPS_FLOAT64
                                                           ? CLOPS_FLOAT32
                                                           : spec->compute);
    }
    return ref_pointwise(&rc);
}

clops_status pw_run(const pw_op *op, pw_variant variant, const pw_operand *operands,
                    const clops_scalar *params, clops_tensor *dst, const pw_options *opts,
                    clops_tensor **out)
{
    pw_call c;
    memset(&c, 0, sizeof c);
    c.op = op;
    c.opname = (opts && opts->opname) ? opts->opname : op->name;
    for (int j = 0; j < op->n_in; j++)
        c.operands[j] = operands[j];
    clops_status st = resolve_device(&c, variant == PW_OUT ? dst : NULL);
    if (st)
        return st;
    st = promote(&c, opts);
    if (st)
        return st;
    st = check_params(&c, params);
    if (st)
        return st;

    /* Broadcast shape of the tensor operands. */
    const clops_tensor *tens[PW_MAX_OPERANDS];
    int tmap[PW_MAX_IN];
    int nt = 1;
    for (int j = 0; j < op->n_in; j++) {
        tmap[j] = -1;
        if (c.operands[j].tensor) {
            tmap[j] = nt;
            tens[nt++] = c.operands[j].tensor;
        }
    }
    int ndim = 0;
    int64_t sizes[CLOPS_MAX_DIMS];
    bool dst_shape = opts && opts->dst_defines_shape && variant == PW_OUT && dst;
    if (dst_shape)
        tens[0] = dst;
    st = pw_broadcast_shape(c.opname, dst_shape ? tens : tens + 1, dst_shape ? nt : nt - 1, &ndim,
                            sizes);
    if (st)
        return st;
    if (dst_shape && (ndim != dst->ndim ||
                      memcmp(sizes, dst->sizes, sizeof(int64_t) * (size_t)ndim) != 0)) {
        char a[400], b[400];
        return clops__fail(CLOPS_INVALID_SHAPE,
                           "%s: output with shape %s doesn't match the broadcast shape %s",
                           c.opname, clops__fmt_shape(a, sizeof a, dst->ndim, dst->sizes),
                           clops__fmt_shape(b, sizeof b, ndim, sizes));
    }
    clops_tensor *result = NULL;
    st = prepare_output(&c, variant, dst, ndim, sizes, &result);
    if (st)
        return st;
    tens[0] = result;

    /* Capability checks: float64 anywhere needs fp64. */
    st = check_dtype_on_device(c.opname, c.compute, c.device);
    for (int k = 0; k < nt && st == CLOPS_OK; k++)
        st = check_dtype_on_device(c.opname, tens[k]->dtype, c.device);
    if (st)
        goto fail;

    pw_plan plan;
    st = pw_make_plan(c.opname, tens, nt, ndim, sizes, &plan);
    if (st)
        goto fail;
    if (plan.numel > 0) {
        pw_spec spec;
        memset(&spec, 0, sizeof spec);
        spec.op = op;
        spec.out_dtype = result->dtype;
        spec.compute = c.compute;
        spec.common = c.common;
        for (int j = 0; j < op->n_in; j++) {
            if (tmap[j] >= 0)
                spec.in_dtype[j] = c.operands[j].tensor->dtype;
            else
                spec.in_dtype[j] = op->roles[j] == PW_ROLE_BOOL ? CLOPS_BOOL : c.common;
        }
        spec.index64 = plan.index64;
        spec.rank = pw_kernel_rank(c.device, plan.contiguous, plan.ndim);
        if (spec.rank == 0 && !kit_is_host(c.device) && !vector_aligned(&spec, &plan, c.device))
            spec.rank = 1; /* chunked (CPU) devices never take rank 0 */
        if (kit_is_host(c.device))
            st = run_reference(&c, &spec, tens, tmap, params);
        else
            st = launch(&c, &spec, &plan, tens, tmap, params);
        if (st)
            goto fail;
    }
    if (out)
        *out = result;
    else
        clops_tensor_release(result);
    return CLOPS_OK;
fail:
    clops_tensor_release(result);
    return st;
}
