/* SPDX-License-Identifier: Apache-2.0 */
/*
 * codegen_pointwise/emit.c: writes OpenCL C for pointwise kernels.
 *
 * One kernel is specialised on the op, the storage dtype of the output and
 * of every operand, the compute dtype, the rank after coalescing (0 for the
 * contiguous fast path, 1..PW_SPEC_RANKS unrolled, PW_GENERIC_RANK for a
 * loop over up to CLOPS_MAX_DIMS dimensions) and the index width.  Sizes,
 * strides, offsets, scalar operands and parameters are kernel arguments, so
 * one binary serves every shape and value.
 *
 * Kernel arguments, in order:
 *   __global OUT *out, __global const INj *inj (one per operand),
 *   a struct of indices { n; ndim; off[1 + n_in]; size[R]; stride[1 + n_in][R] },
 *   one scalar per operand in its compute type (used when the operand is a
 *   scalar: flag bit j), uint flags (bit j: operand j is a scalar; bit 8 + j:
 *   operand j is a tensor read at one element), then the op's parameters.
 *
 * On GPUs the contiguous fast path moves pw_emit_vec_width() elements per
 * work item with vector loads and stores and evaluates the expression once
 * per lane; both paths use grid-stride loops.  On CPU-like devices (KIT_CPU,
 * ops/kit/kit.h) each work item walks one contiguous chunk instead, one
 * innermost-dim run at a time from offsets computed once per run: POCL runs
 * a grid-stride loop as a strided walk per work item, which was 10-30x
 * slower (bench/bench_launch.c, docs/benchmarks.md).  There a signature has
 * one kernel, the generic-rank one, with the contiguous fast path inside it
 * (emit_strided_chunked): every kernel a process launches costs POCL a
 * compile, and one kernel instead of six per signature took the test
 * suite's cold run from 5241 kernel compiles to the figure in
 * docs/benchmarks.md.
 *
 * Grouping into programs (see pw_emit_program): on devices where a program
 * build has a large fixed cost (POCL, CPU drivers) all "standard" kernels of
 * an op (every accepted dtype with all operands of that dtype, every rank)
 * share one program; elsewhere one program holds the ranks of one dtype
 * signature.  Anything else (mixed dtypes, casting outputs) gets a program
 * per signature.  64-bit-index kernels live in programs of their own, built
 * only when a tensor needs them.
 */
#include <stdio.h>
#include <string.h>

#include "codegen_pointwise/pw.h"
#include "host/host.h"
#include "ops/kit/kit.h"

/*
 * Lanes per work item: 4, so a float32 load is 16 bytes.  On CPU devices
 * (POCL), 8 when every array has a 1- or 2-byte dtype: measured on 16-core
 * Xeon hosts with POCL 5.0, float16 add went from 0.28 to 0.59 of the copy
 * peak and bfloat16 from 0.14 to 0.27.  Not on GPUs: on an H200 with
 * NVIDIA's driver, 8 lanes took float16 add from 0.87 down to 0.60.
 */
int pw_emit_vec_width(const pw_spec *s, const clops_device *d)
{
    if (d->info.is_gpu)
        return 4;
    size_t widest = clops_dtype_size(s->out_dtype);
    for (int j = 0; j < s->op->n_in; j++)
        if (!s->in_is_scalar[j] && !s->in_uniform[j] && clops_dtype_size(s->in_dtype[j]) > widest)
            widest = clops_dtype_size(s->in_dtype[j]);
    return widest <= 2 ? 8 : 4;
}

/* The dtype names, compute dtypes and load/store spellings come from the
 * kit's dtype table (ops/kit/dtypes.def, ops/kit/kit.h). */

pw_class pw_dtype_class(clops_dtype dt)
{
    if (dt == CLOPS_BOOL)
        return PW_CLASS_BOOL;
    if (dt == CLOPS_UINT8)
        return PW_CLASS_UINT;
    if (clops_dtype_is_floating(dt))
        return PW_CLASS_FLOAT;
    return PW_CLASS_SINT;
}

/* Dtype an operand is computed in. */
static clops_dtype operand_compute(const pw_spec *s, int j)
{
    switch (s->op->roles[j]) {
    case PW_ROLE_BOOL:
        return CLOPS_BOOL;
    case PW_ROLE_OWN:
        return kit_compute_dtype(s->in_dtype[j]);
    default:
        return s->compute;
    }
}

/* Dtype the expression's value has: bool for predicates, else compute. */
static clops_dtype result_compute(const pw_spec *s)
{
    if (s->op->promotion == PW_PROMOTE_ALWAYS_BOOL || s->op->fixed_result == CLOPS_BOOL)
        return CLOPS_BOOL;
    if (s->op->fixed_result != CLOPS_DTYPE_NONE)
        return kit_compute_dtype(s->op->fixed_result);
    return s->compute;
}

/* C type of a parameter in this spec. */
static const char *param_type(const pw_spec *s, int k)
{
    switch (s->op->params[k]) {
    case PW_PARAM_INT:
        return "long";
    case PW_PARAM_FLOAT:
        return s->compute == CLOPS_FLOAT64 ? "double" : "float";
    default:
        return kit_cl_compute(s->compute);
    }
}

/* Appends `x` converted from compute dtype `from` to compute dtype `to`
 * with PyTorch's cast rules (to bool: x != 0; float to uint8 through int64). */
static void emit_convert(strbuf *sb, const char *x, clops_dtype from, clops_dtype to)
{
    from = kit_compute_dtype(from);
    to = kit_compute_dtype(to);
    if (from == to)
        sb_printf(sb, "(%s)", x);
    else if (to == CLOPS_BOOL)
        sb_printf(sb, "(uchar)((%s) != 0)", x);
    else if (to == CLOPS_UINT8 && clops_dtype_is_floating(from))
        sb_printf(sb, "(uchar)(long)(%s)", x);
    else
        sb_printf(sb, "(%s)(%s)", kit_cl_storage(to), x);
}

clops_dtype pw_operand_rounding(const pw_spec *s, int j)
{
    if (s->op->is_cast || s->op->roles[j] != PW_ROLE_COMMON || s->in_dtype[j] == s->common)
        return CLOPS_DTYPE_NONE;
    return (s->common == CLOPS_FLOAT16 || s->common == CLOPS_BFLOAT16) ? s->common
                                                                       : CLOPS_DTYPE_NONE;
}

/* Whether some operand of s is rounded to the common dtype after loading. */
static bool spec_rounds(const pw_spec *s)
{
    for (int j = 0; j < s->op->n_in; j++)
        if (pw_operand_rounding(s, j) != CLOPS_DTYPE_NONE)
            return true;
    return false;
}

/* Appends `x` (a value of compute dtype `from`, as loaded) converted to the
 * compute dtype of operand j: first to the common dtype, as PyTorch converts
 * every input to it (pw_operand_rounding), then to the compute type. */
static void emit_operand_convert(strbuf *sb, const char *x, clops_dtype from, const pw_spec *s,
                                 int j)
{
    clops_dtype round = pw_operand_rounding(s, j);
    if (round == CLOPS_DTYPE_NONE) {
        emit_convert(sb, x, from, operand_compute(s, j));
        return;
    }
    sb_append(sb, round == CLOPS_FLOAT16 ? "clops_round_half(" : "clops_round_bf16(");
    emit_convert(sb, x, from, CLOPS_FLOAT32);
    sb_putc(sb, ')');
}

/* Appends a load of element `idx` of buffer `ptr` (operand j), converted
 * to the operand's compute dtype. */
static void emit_load(strbuf *sb, const char *ptr, const char *idx, const pw_spec *s, int j)
{
    strbuf raw = STRBUF_INIT;
    clops_dtype dt = s->in_dtype[j];
    kit_cl_load(&raw, dt, ptr, idx);
    emit_operand_convert(sb, sb_str(&raw), dt, s, j);
    if (raw.failed)
        sb->failed = true;
    sb_free(&raw);
}

/* Appends a statement storing `val` (compute dtype `from`) to element idx
 * of out (storage dtype dt). */
static void emit_store(strbuf *sb, const char *idx, const char *val, clops_dtype from,
                       clops_dtype dt)
{
    strbuf v = STRBUF_INIT;
    emit_convert(&v, val, from, dt);
    kit_cl_store(sb, dt, "out", idx, sb_str(&v));
    sb_putc(sb, ';');
    if (v.failed)
        sb->failed = true;
    sb_free(&v);
}

/* Appends the op's expression for this spec with $T/$U/$R replaced. */
static clops_status emit_expr(strbuf *sb, const pw_spec *s)
{
    const pw_op *op = s->op;
    const char *e = op->expr[pw_dtype_class(s->compute)];
    if (!e)
        e = op->expr_default;
    if (!e)
        return clops__fail(CLOPS_INVALID_DTYPE, "%s: no expression for compute dtype %s", op->name,
                           clops_dtype_name(s->compute));
    sb_putc(sb, '(');
    for (const char *p = e; *p; p++) {
        if (p[0] == '$' && p[1] == 'T') {
            sb_append(sb, kit_cl_compute(s->compute));
            p++;
        } else if (p[0] == '$' && p[1] == 'U') {
            sb_append(sb, kit_cl_unsigned(s->compute));
            p++;
        } else if (p[0] == '$' && p[1] == 'R') {
            sb_append(sb, kit_cl_compute(result_compute(s)));
            p++;
        } else {
            sb_putc(sb, *p);
        }
    }
    sb_putc(sb, ')');
    return CLOPS_OK;
}

void pw_kernel_name(const pw_spec *s, char *buf, size_t cap)
{
    int n = snprintf(buf, cap, "pw_%s_%s_%s", s->op->name, kit_dtype_tag(s->out_dtype),
                     kit_dtype_tag(s->compute));
    for (int j = 0; j < s->op->n_in && n > 0 && (size_t)n < cap; j++)
        n += snprintf(buf + n, cap - (size_t)n, "_%s", kit_dtype_tag(s->in_dtype[j]));
    if (n > 0 && (size_t)n < cap && spec_rounds(s))
        n += snprintf(buf + n, cap - (size_t)n, "_to%s", kit_dtype_tag(s->common));
    if (n > 0 && (size_t)n < cap) {
        if (s->rank == 0)
            snprintf(buf + n, cap - (size_t)n, "_c%s", s->index64 ? "64" : "32");
        else if (s->rank == PW_GENERIC_RANK)
            snprintf(buf + n, cap - (size_t)n, "_rn%s", s->index64 ? "64" : "32");
        else
            snprintf(buf + n, cap - (size_t)n, "_r%d%s", s->rank, s->index64 ? "64" : "32");
    }
}

/* Number of dims the meta struct carries for a rank. */
static int meta_dims(int rank)
{
    return rank == PW_GENERIC_RANK ? CLOPS_MAX_DIMS : rank;
}

/* Appends the kernel's parameter list. */
static void emit_signature(strbuf *sb, const pw_spec *s, const char *name, const char *idx)
{
    const pw_op *op = s->op;
    int nt = 1 + op->n_in;
    int md = meta_dims(s->rank);
    sb_printf(sb, "typedef struct { %s n; %s ndim; %s off[%d];", idx, idx, idx, nt);
    if (md)
        sb_printf(sb, " %s size[%d]; %s stride[%d][%d];", idx, md, idx, nt, md);
    sb_printf(sb, " } M_%s;\n", name);
    sb_printf(sb, "__kernel void %s(__global %s *out", name, kit_cl_storage(s->out_dtype));
    for (int j = 0; j < op->n_in; j++)
        sb_printf(sb, ", __global const %s *in%d", kit_cl_storage(s->in_dtype[j]), j);
    sb_printf(sb, ", M_%s m", name);
    for (int j = 0; j < op->n_in; j++)
        sb_printf(sb, ", %s sc%d", kit_cl_compute(operand_compute(s, j)), j);
    sb_append(sb, ", uint flags");
    for (int k = 0; k < op->n_params; k++)
        sb_printf(sb, ", %s p%d", param_type(s, k), k);
    sb_append(sb, ")\n{\n");
}

/* Appends declarations of the operands a, b, c, d at offsets <pfx>1..n. */
static void emit_operands_at(strbuf *sb, const pw_spec *s, const char *indent, char pfx)
{
    static const char names[] = "abcd";
    for (int j = 0; j < s->op->n_in; j++) {
        clops_dtype ct = operand_compute(s, j);
        char ptr[8], idx[8];
        snprintf(ptr, sizeof ptr, "in%d", j);
        snprintf(idx, sizeof idx, "%c%d", pfx, j + 1);
        sb_printf(sb, "%s%s %c = (flags & %uu) ? sc%d : ", indent, kit_cl_compute(ct), names[j],
                  1u << j, j);
        emit_load(sb, ptr, idx, s, j);
        sb_append(sb, ";\n");
    }
}

/* Appends declarations of the operands at offsets o1..on. */
static void emit_operands(strbuf *sb, const pw_spec *s, const char *indent)
{
    emit_operands_at(sb, s, indent, 'o');
}

/* Appends "o0 = m.off[0] + ..." offsets for the strided kernels. */
static void emit_offsets(strbuf *sb, const pw_spec *s, const char *idx)
{
    int nt = 1 + s->op->n_in;
    if (s->rank == PW_GENERIC_RANK) {
        for (int k = 0; k < nt; k++)
            sb_printf(sb, "        %s o%d = m.off[%d];\n", idx, k, k);
        sb_printf(sb, "        %s rem = i;\n", idx);
        sb_append(sb, "        for (int dd = 0; dd < (int)m.ndim; dd++) {\n");
        sb_printf(sb, "            %s c = rem %% m.size[dd];\n", idx);
        sb_append(sb, "            rem /= m.size[dd];\n");
        for (int k = 0; k < nt; k++)
            sb_printf(sb, "            o%d += c * m.stride[%d][dd];\n", k, k);
        sb_append(sb, "        }\n");
        return;
    }
    if (s->rank == 1) {
        for (int k = 0; k < nt; k++)
            sb_printf(sb, "        %s o%d = m.off[%d] + i * m.stride[%d][0];\n", idx, k, k, k);
        return;
    }
    sb_printf(sb, "        %s rem = i;\n", idx);
    for (int dd = 0; dd < s->rank; dd++) {
        if (dd + 1 < s->rank)
            sb_printf(sb, "        %s c%d = rem %% m.size[%d]; rem /= m.size[%d];\n", idx, dd, dd,
                      dd);
        else
            sb_printf(sb, "        %s c%d = rem;\n", idx, dd);
    }
    for (int k = 0; k < nt; k++) {
        sb_printf(sb, "        %s o%d = m.off[%d]", idx, k, k);
        for (int dd = 0; dd < s->rank; dd++)
            sb_printf(sb, " + c%d * m.stride[%d][%d]", dd, k, dd);
        sb_append(sb, ";\n");
    }
}

/* Appends the body of a strided kernel. */
static clops_status emit_strided(strbuf *sb, const pw_spec *s, const char *idx)
{
    sb_printf(sb, "    for (%s i = get_global_id(0); i < m.n; i += get_global_size(0)) {\n", idx);
    emit_offsets(sb, s, idx);
    emit_operands(sb, s, "        ");
    sb_printf(sb, "        %s r = ", kit_cl_compute(result_compute(s)));
    clops_status st = emit_expr(sb, s);
    sb_append(sb, ";\n        ");
    emit_store(sb, "o0", "r", result_compute(s), s->out_dtype);
    sb_append(sb, "\n    }\n");
    return st;
}

/* Appends the bounds of this work item's chunk for the CPU launch policy
 * (host_chunk_grid): [lo, hi) of `n` units, split evenly over the grid in
 * pieces of a whole multiple of `multiple` units. */
static void emit_chunk_bounds(strbuf *sb, const char *idx, const char *n, const char *lo,
                              const char *hi, int multiple)
{
    sb_printf(sb, "    %s per_item = (%s + (%s)get_global_size(0) - 1) / (%s)get_global_size(0);\n",
              idx, n, idx, idx);
    if (multiple > 1)
        sb_printf(sb, "    per_item = (per_item + %d) & ~(%s)%d;\n", multiple - 1, idx,
                  multiple - 1);
    sb_printf(sb, "    %s %s = (%s)get_global_id(0) * per_item;\n", idx, lo, idx);
    sb_printf(sb, "    %s %s = %s - min(%s, %s) < per_item ? %s : %s + per_item;\n", idx, hi, n, lo,
              n, n, lo);
}

/* Appends the lanes r_0..r_{vw-1} of a vector step, each the expression
 * of the lanes a_l, b_l, ... of the operands. */
static clops_status emit_lane_exprs(strbuf *sb, const pw_spec *s, int vw, const char *indent)
{
    static const char names[] = "abcd";
    sb_printf(sb, "%s%s r_0", indent, kit_cl_compute(result_compute(s)));
    for (int l = 1; l < vw; l++)
        sb_printf(sb, ", r_%d", l);
    sb_append(sb, ";\n");
    for (int l = 0; l < vw; l++) {
        sb_printf(sb, "%s{", indent);
        for (int j = 0; j < s->op->n_in; j++)
            sb_printf(sb, " %s %c = %c_%d;", kit_cl_compute(operand_compute(s, j)), names[j],
                      names[j], l);
        sb_printf(sb, " r_%d = ", l);
        clops_status st = emit_expr(sb, s);
        if (st)
            return st;
        sb_append(sb, "; }\n");
    }
    return CLOPS_OK;
}

/* Appends the store of the lanes r_0..r_{vw-1} as one vector at `at`.
 * `aligned` (the CPU devices' unit-stride loop, whose offsets are multiples
 * of vw): a bfloat16 output is rounded as one vector (clops_floatN_to_bf16),
 * and 1- and 2-byte vectors are stored through a vector pointer, not with
 * vstoreN, which POCL 5.0 split into one store per lane for ushort16 (4- and
 * 8-byte types keep vstoreN: exp float32 through a float16 pointer measured
 * 0.74-0.86 of PyTorch against 0.93-1.00 in the same job).  Else lane by
 * lane rounding and vstoreN. */
static void emit_vector_store(strbuf *sb, const pw_spec *s, int vw, const char *indent,
                              const char *at, bool aligned)
{
    clops_dtype od = s->out_dtype, oc = kit_compute_dtype(od), rc = result_compute(s);
    const char *st = kit_cl_storage(od);
    strbuf lanes = STRBUF_INIT;
    for (int l = 0; l < vw; l++) {
        char r[16];
        snprintf(r, sizeof r, "r_%d", l);
        if (l)
            sb_append(&lanes, ", ");
        if (od == CLOPS_BFLOAT16 && !aligned) {
            sb_append(&lanes, "clops_float_to_bf16(");
            emit_convert(&lanes, r, rc, oc);
            sb_append(&lanes, ")");
        } else {
            emit_convert(&lanes, r, rc, oc);
        }
    }
    if (od == CLOPS_FLOAT16)
        sb_printf(sb, "%svstore_half%d_rte((float%d)(%s), 0, %s);\n", indent, vw, vw,
                  sb_str(&lanes), at);
    else if (od == CLOPS_BFLOAT16 && aligned)
        sb_printf(sb, "%s*(__global ushort%d *)(%s) = clops_float%d_to_bf16((float%d)(%s));\n",
                  indent, vw, at, vw, vw, sb_str(&lanes));
    else if (aligned && clops_dtype_size(od) <= 2)
        sb_printf(sb, "%s*(__global %s%d *)(%s) = (%s%d)(%s);\n", indent, st, vw, at, st, vw,
                  sb_str(&lanes));
    else
        sb_printf(sb, "%svstore%d((%s%d)(%s), 0, %s);\n", indent, vw, st, vw, sb_str(&lanes), at);
    if (lanes.failed)
        sb->failed = true;
    sb_free(&lanes);
}

/* True when the CPU devices' unit-stride runs evaluate the op on whole
 * vectors: a lanewise built-in (pw_op.lanewise) or a plain arithmetic
 * expression (pw_op.vector_expr) of a floating compute dtype whose operands
 * compute in that dtype.  For a built-in POCL then calls its vectorised
 * math library once per vector instead of the scalar routine once per lane,
 * which its loop vectoriser cannot widen (the routines branch): exp f32 on
 * 16 Xeon cores went from 0.07 of PyTorch's speed to the figure in
 * docs/benchmarks.md.  For arithmetic, POCL 5.0's SLP vectoriser left the
 * lanes scalar (a vfmadd213ss per lane between shuffles for float16 add);
 * on whole vectors it is one vfmadd213ps.  GPUs keep the scalar form (one
 * lane per thread is already what their compilers want). */
static bool vector_body(const pw_spec *s)
{
    const pw_op *op = s->op;
    if (!(op->vector_expr || (op->lanewise && op->n_in == 1)) ||
        pw_dtype_class(s->compute) != PW_CLASS_FLOAT || result_compute(s) != s->compute)
        return false;
    for (int j = 0; j < op->n_in; j++)
        if (operand_compute(s, j) != s->compute)
            return false;
    return true;
}

/* Lanes per step of the unit-stride run loop on CPU devices: the contiguous
 * path's widths (pw_emit_vec_width), and 16 (8 in double) for a body on
 * whole vectors: vector math wants the widest vectors (exp float32 on
 * POCL 5.0, 16 Xeon cores, one job: 59 GB/s with 4 lanes, 106-109 with 8,
 * 100-171 with 16; PyTorch 140-186), and one AVX-512 register holds 16. */
#define PW_UNIT_RUN_MAX_WIDTH 16
static int unit_run_width(const pw_spec *s, const clops_device *d)
{
    if (vector_body(s))
        return s->compute == CLOPS_FLOAT64 ? 8 : PW_UNIT_RUN_MAX_WIDTH;
    return pw_emit_vec_width(s, d);
}

/*
 * Appends the vector part of a run whose output and inputs all have stride
 * 1 (declares `t`, leaves the rest of the run to the scalar loop after it):
 * VW lanes per step loaded with vloadVW, the expression per lane, or once on
 * the whole vector (vector_body), and one vector store.  Only when every
 * offset is a multiple of VW: POCL compiles vloadN to an aligned load
 * (vload_half8 at an offset of 3 halves crashed POCL 3.1) and 1- and
 * 2-byte results are stored through a vector pointer (aligned: buffers
 * start at multiples of CL_DEVICE_MEM_BASE_ADDR_ALIGN, at least the 128
 * bytes of a long16), so
 * chunks start at multiples of PW_UNIT_RUN_MAX_WIDTH elements
 * (emit_chunk_bounds) and a run at an unaligned offset (a view) goes the
 * scalar way.
 * This is the old contiguous kernel's body, so contiguous tensors on CPU
 * devices need no kernel of their own.
 */
static clops_status emit_unit_run_vector(strbuf *sb, const pw_spec *s, const clops_device *d,
                                         const char *idx, unsigned mask)
{
    static const char names[] = "abcd";
    int vw = unit_run_width(s, d);
    clops_dtype rc = result_compute(s);
    const char *rct = kit_cl_compute(rc);
    sb_printf(sb, "            %s t = 0;\n", idx);
    /* Vectors only from aligned offsets (then every step is aligned). */
    sb_append(sb, "            if (((o0");
    for (int j = 0; j < s->op->n_in; j++)
        if ((mask >> j) & 1)
            sb_printf(sb, " | o%d", j + 1);
    sb_printf(sb, ") & %du) == 0)\n", vw - 1);
    sb_printf(sb, "            for (; t + %d <= run; t += %d) {\n", vw, vw);
    for (int j = 0; j < s->op->n_in; j++) {
        clops_dtype dt = s->in_dtype[j];
        const char *ctn = kit_cl_compute(operand_compute(s, j));
        if (!((mask >> j) & 1)) {
            /* A broadcast input: its value of the run in every lane. */
            for (int l = 0; l < vw; l++)
                sb_printf(sb, "                %s %c_%d = %c_run;\n", ctn, names[j], l, names[j]);
            continue;
        }
        char at[48];
        snprintf(at, sizeof at, "in%d + o%d + t", j, j + 1);
        sb_printf(sb, "                %s%d v%d = ",
                  kit_load_store(dt) == KIT_LS_PLAIN ? kit_cl_storage(dt) : "float", vw, j);
        kit_cl_vload(sb, dt, vw, at);
        sb_append(sb, ";\n");
        for (int l = 0; l < vw; l++) {
            char lane[64];
            snprintf(lane, sizeof lane, "v%d.s%x", j, l);
            sb_printf(sb, "                %s %c_%d = ", ctn, names[j], l);
            emit_operand_convert(sb, lane, dt, s, j);
            sb_append(sb, ";\n");
        }
    }
    clops_status st = CLOPS_OK;
    if (vector_body(s)) {
        sb_printf(sb, "                %s%d r;\n                {\n", rct, vw);
        for (int j = 0; j < s->op->n_in; j++) {
            sb_printf(sb, "                    %s%d %c = (%s%d)(%c_0", rct, vw, names[j], rct, vw,
                      names[j]);
            for (int l = 1; l < vw; l++)
                sb_printf(sb, ", %c_%d", names[j], l);
            sb_append(sb, ");\n");
        }
        sb_append(sb, "                    r = ");
        st = emit_expr(sb, s);
        sb_append(sb, ";\n                }\n");
        for (int l = 0; l < vw; l++)
            sb_printf(sb, "                %s r_%d = r.s%x;\n", rct, l, l);
    } else {
        st = emit_lane_exprs(sb, s, vw, "                ");
    }
    if (st)
        return st;
    emit_vector_store(sb, s, vw, "                ", "out + o0 + t", true);
    sb_append(sb, "            }\n");
    return CLOPS_OK;
}

/*
 * Appends the body of a strided kernel for CPU devices: the work item walks
 * its chunk one run of the innermost dim at a time; the offsets are computed
 * once per run (the divmods of emit_offsets) and the run is a plain loop
 * with a constant stride per operand, which the compiler vectorises (stride
 * 1) or at least keeps free of index arithmetic.  Before that loop come
 * loops for runs with a unit-stride output: one where every input has
 * stride 1 too (the vector body of emit_unit_run_vector: contiguous tensors
 * take this kernel on CPU devices, there is no separate contiguous one),
 * and, for ops of at most PW_RUN_VERSION_INPUTS inputs, one per pattern of
 * unit-stride and broadcast (stride 0) inputs, the broadcast ones and
 * scalars read once per run: LLVM versions a loop on symbolic strides being
 * 1 but not 0, so [N, N] + [N, 1] otherwise ran element by element.
 */
#define PW_RUN_VERSION_INPUTS 2
static clops_status emit_strided_chunked(strbuf *sb, const pw_spec *s, const clops_device *d,
                                         const char *idx)
{
    int nt = 1 + s->op->n_in;
    emit_chunk_bounds(sb, idx, "m.n", "i", "i_end", PW_UNIT_RUN_MAX_WIDTH);
    sb_append(sb, "    while (i < i_end) {\n");
    emit_offsets(sb, s, idx);
    sb_printf(sb,
              "        %s run = m.size[0] - i %% m.size[0];\n"
              "        if (run > i_end - i)\n            run = i_end - i;\n",
              idx);
    clops_status st = CLOPS_OK;
    /* One loop per pattern of unit (stride 1) and broadcast (stride 0)
     * inputs in the run, chosen per run, all-unit first (with the
     * vector body); the generic loop last. */
    const char *ct = kit_cl_compute(result_compute(s));
    unsigned full = (1u << s->op->n_in) - 1;
    unsigned last = s->op->n_in <= PW_RUN_VERSION_INPUTS && full ? 1 : full;
    for (unsigned mask = full;; mask--) {
        static const char names[] = "abcd";
        sb_printf(sb, "        %sif (m.stride[0][0] == 1", mask == full ? "" : "} else ");
        for (int j = 0; j < s->op->n_in; j++)
            sb_printf(sb, " && m.stride[%d][0] == %d", j + 1, (mask >> j) & 1);
        sb_append(sb, ") {\n");
        for (int j = 0; j < s->op->n_in; j++) {
            if ((mask >> j) & 1)
                continue;
            char ptr[16], at[16];
            snprintf(ptr, sizeof ptr, "in%d", j);
            snprintf(at, sizeof at, "o%d", j + 1);
            sb_printf(sb, "            %s %c_run = (flags & %uu) ? sc%d : ",
                      kit_cl_compute(operand_compute(s, j)), names[j], 1u << j, j);
            emit_load(sb, ptr, at, s, j);
            sb_append(sb, ";\n");
        }
        st = emit_unit_run_vector(sb, s, d, idx, mask);
        if (st)
            return st;
        /* The rest of the run (under VW elements, or all of an unaligned
         * run) stays a plain loop: vectorising it again cost compile time on
         * every kernel for nothing. */
        sb_append(sb, "            #pragma clang loop vectorize(disable) unroll(disable)\n");
        sb_append(sb, "            for (; t < run; t++) {\n");
        for (int j = 0; j < s->op->n_in; j++) {
            sb_printf(sb, "                %s %c = ", kit_cl_compute(operand_compute(s, j)),
                      names[j]);
            if ((mask >> j) & 1) {
                char ptr[16], at[24];
                snprintf(ptr, sizeof ptr, "in%d", j);
                snprintf(at, sizeof at, "o%d + t", j + 1);
                emit_load(sb, ptr, at, s, j);
            } else {
                sb_printf(sb, "%c_run", names[j]);
            }
            sb_append(sb, ";\n");
        }
        sb_printf(sb, "                %s r = ", ct);
        st = emit_expr(sb, s);
        if (st)
            return st;
        sb_append(sb, ";\n                ");
        emit_store(sb, "o0 + t", "r", result_compute(s), s->out_dtype);
        sb_append(sb, "\n            }\n");
        if (mask == last)
            break;
    }
    /* The generic loop: any strides. */
    sb_append(sb, "        } else {\n");
    sb_append(sb, "            #pragma clang loop vectorize(disable)\n");
    sb_printf(sb, "            for (%s t = 0; t < run; t++) {\n", idx);
    for (int k = 0; k < nt; k++)
        sb_printf(sb, "                %s q%d = o%d + t * m.stride[%d][0];\n", idx, k, k, k);
    emit_operands_at(sb, s, "                ", 'q');
    sb_printf(sb, "                %s r = ", kit_cl_compute(result_compute(s)));
    st = emit_expr(sb, s);
    sb_append(sb, ";\n                ");
    emit_store(sb, "q0", "r", result_compute(s), s->out_dtype);
    sb_append(sb, "\n            }\n        }\n");
    sb_append(sb, "        i += run;\n    }\n");
    return st;
}

/* Appends the vector-load of lane values for operand j in the fast path:
 * declares a_0..a_{VEC-1} for operand name `nm`. */
static void emit_vec_load(strbuf *sb, const pw_spec *s, int vw, int j, char nm)
{
    clops_dtype dt = s->in_dtype[j];
    clops_dtype ct = operand_compute(s, j);
    const char *ctn = kit_cl_compute(ct);
    sb_printf(sb, "        %s %c_0", ctn, nm);
    for (int l = 1; l < vw; l++)
        sb_printf(sb, ", %c_%d", nm, l);
    sb_append(sb, ";\n");
    sb_printf(sb, "        if (flags & %uu) {\n           ", 1u << j);
    for (int l = 0; l < vw; l++)
        sb_printf(sb, " %c_%d =", nm, l);
    sb_printf(sb, " sc%d;\n        } else if (flags & %uu) {\n            %s u = ", j, 1u << (8 + j),
              ctn);
    char ptr[8], idx[16];
    snprintf(ptr, sizeof ptr, "in%d", j);
    snprintf(idx, sizeof idx, "m.off[%d]", j + 1);
    emit_load(sb, ptr, idx, s, j);
    sb_append(sb, ";\n           ");
    for (int l = 0; l < vw; l++)
        sb_printf(sb, " %c_%d =", nm, l);
    sb_append(sb, " u;\n        } else {\n");
    const char *st = kit_cl_storage(dt);
    if (dt == CLOPS_FLOAT16)
        sb_printf(sb, "            float%d v = vload_half%d(0, in%d + m.off[%d] + base);\n", vw,
                  vw, j, j + 1);
    else
        sb_printf(sb, "            %s%d v = vload%d(0, in%d + m.off[%d] + base);\n", st, vw,
                  vw, j, j + 1);
    for (int l = 0; l < vw; l++) {
        char lane[48];
        if (dt == CLOPS_BFLOAT16)
            snprintf(lane, sizeof lane, "clops_bf16_to_float(v.s%d)", l);
        else
            snprintf(lane, sizeof lane, "v.s%d", l);
        sb_printf(sb, "            %c_%d = ", nm, l);
        emit_operand_convert(sb, lane, dt, s, j);
        sb_append(sb, ";\n");
    }
    sb_append(sb, "        }\n");
}

/* Appends the body of the contiguous fast path (GPUs; CPU devices run
 * contiguous tensors through emit_strided_chunked's unit-stride loop). */
static clops_status emit_contiguous(strbuf *sb, const pw_spec *s, int vw, const char *idx)
{
    static const char names[] = "abcd";
    const pw_op *op = s->op;
    clops_dtype rc = result_compute(s);
    const char *rct = kit_cl_compute(rc);
    clops_status st = CLOPS_OK;
    sb_printf(sb, "    %s nvec = m.n / %d;\n", idx, vw);
    sb_printf(sb, "    for (%s v_i = get_global_id(0); v_i < nvec; v_i += get_global_size(0)) {\n",
              idx);
    sb_printf(sb, "        %s base = v_i * %d;\n", idx, vw);
    for (int j = 0; j < op->n_in; j++)
        emit_vec_load(sb, s, vw, j, names[j]);
    st = emit_lane_exprs(sb, s, vw, "        ");
    if (st)
        return st;
    emit_vector_store(sb, s, vw, "        ", "out + m.off[0] + base", false);
    sb_append(sb, "    }\n");
    /* The tail (n % vw elements), also grid-stride: the grid may be smaller
     * than vw when a kernel's work-group limit is tiny. */
    sb_printf(sb, "    for (%s i = nvec * %d + get_global_id(0); i < m.n; i += get_global_size(0)) {\n",
              idx, vw);
    sb_printf(sb, "        %s o0 = m.off[0] + i;\n", idx);
    for (int j = 0; j < op->n_in; j++)
        sb_printf(sb, "        %s o%d = m.off[%d] + ((flags & %uu) ? 0 : i);\n", idx, j + 1, j + 1,
                  1u << (8 + j));
    emit_operands(sb, s, "        ");
    sb_printf(sb, "        %s r = ", rct);
    st = emit_expr(sb, s);
    sb_append(sb, ";\n        ");
    emit_store(sb, "o0", "r", rc, s->out_dtype);
    sb_append(sb, "\n    }\n");
    return st;
}

clops_status pw_emit_kernel(const pw_spec *s, const clops_device *d, strbuf *sb)
{
    char name[128];
    pw_kernel_name(s, name, sizeof name);
    const char *idx = s->index64 ? "ulong" : "uint";
    const pw_op *op = s->op;
    sb_printf(sb, "\n/* ---- %s: out %s, compute %s, in", op->name, clops_dtype_name(s->out_dtype),
              clops_dtype_name(s->compute));
    for (int j = 0; j < op->n_in; j++)
        sb_printf(sb, " %s", clops_dtype_name(s->in_dtype[j]));
    if (s->rank == 0)
        sb_printf(sb, "; contiguous fast path, %d-wide vectors", pw_emit_vec_width(s, d));
    else if (s->rank == PW_GENERIC_RANK)
        sb_printf(sb, "; strided, any rank up to %d", CLOPS_MAX_DIMS);
    else
        sb_printf(sb, "; strided, rank %d", s->rank);
    sb_printf(sb, "; %s index ---- */\n", s->index64 ? "64-bit" : "32-bit");
    emit_signature(sb, s, name, idx);
    clops_status st;
    if (s->rank == 0)
        st = emit_contiguous(sb, s, pw_emit_vec_width(s, d), idx);
    else if (kit_is_cpu(d))
        st = emit_strided_chunked(sb, s, d, idx);
    else
        st = emit_strided(sb, s, idx);
    sb_append(sb, "}\n");
    return st;
}

/* ---- programs ------------------------------------------------------------ */

bool pw_standard_spec(const pw_op *op, clops_dtype common, int rank, bool index64, pw_spec *out)
{
    if (!(op->dtypes & (1u << common)))
        return false;
    memset(out, 0, sizeof *out);
    out->op = op;
    clops_dtype compute, result;
    pw_compute_types(op->promotion, common, &compute, &result);
    if (compute == CLOPS_DTYPE_NONE)
        return false;
    out->compute = compute;
    out->out_dtype = op->fixed_result != CLOPS_DTYPE_NONE ? op->fixed_result : result;
    out->common = common;
    for (int j = 0; j < op->n_in; j++)
        out->in_dtype[j] = op->roles[j] == PW_ROLE_BOOL ? CLOPS_BOOL : common;
    out->rank = rank;
    out->index64 = index64;
    return true;
}

/* True when a and b are the same kernel signature (ignoring rank). */
static bool same_signature(const pw_spec *a, const pw_spec *b)
{
    if (a->op != b->op || a->out_dtype != b->out_dtype || a->compute != b->compute ||
        a->index64 != b->index64 || spec_rounds(a) != spec_rounds(b))
        return false;
    for (int j = 0; j < a->op->n_in; j++)
        if (a->in_dtype[j] != b->in_dtype[j])
            return false;
    return true;
}

/* The common dtype a standard spec was made from (its first COMMON operand's
 * dtype), or NONE when the op has no COMMON operand. */
static clops_dtype spec_common(const pw_spec *s)
{
    for (int j = 0; j < s->op->n_in; j++)
        if (s->op->roles[j] == PW_ROLE_COMMON)
            return s->in_dtype[j];
    return CLOPS_DTYPE_NONE;
}

bool pw_spec_is_standard(const pw_spec *s)
{
    if (s->op->is_cast)
        return s->compute == kit_compute_dtype(s->out_dtype);
    clops_dtype common = spec_common(s);
    pw_spec std;
    return common != CLOPS_DTYPE_NONE && pw_standard_spec(s->op, common, s->rank, s->index64, &std) &&
           same_signature(s, &std);
}

bool pw_group_by_op(const clops_device *d)
{
    return d->info.vendor == CLOPS_VENDOR_POCL || !d->info.is_gpu;
}

/*
 * CPU-like devices (KIT_CPU) have one kernel per signature, the generic-rank
 * one: a chunked kernel computes its offsets once per innermost run, so
 * unrolling the rank buys nothing measurable there, and its unit-stride
 * loop is the contiguous fast path; while every kernel a process launches
 * costs POCL a work-group function compile (~0.1 s of a core on the 2-core
 * CI machine, 85% of a cold test run: of the 5241 kernels the suite
 * compiled, 3084 were rank-unrolled strided ones for 1222 signatures and
 * 1330 contiguous ones).  GPUs keep the contiguous and unrolled kernels.
 */
int pw_kernel_rank(const clops_device *d, bool contiguous, int ndim)
{
    if (kit_is_cpu(d) || (!contiguous && ndim > PW_SPEC_RANKS))
        return PW_GENERIC_RANK;
    return contiguous ? 0 : ndim;
}

static const int group_ranks[] = {0, 1, 2, 3, 4, PW_GENERIC_RANK};
static const int group_ranks_chunked[] = {PW_GENERIC_RANK};

/* Appends every rank variant of one signature. */
static clops_status emit_signature_ranks(const pw_spec *sig, const clops_device *d, strbuf *sb)
{
    const int *ranks = kit_is_cpu(d) ? group_ranks_chunked : group_ranks;
    size_t nr = kit_is_cpu(d) ? sizeof group_ranks_chunked / sizeof group_ranks_chunked[0]
                           : sizeof group_ranks / sizeof group_ranks[0];
    for (size_t r = 0; r < nr; r++) {
        pw_spec k = *sig;
        k.rank = ranks[r];
        clops_status st = pw_emit_kernel(&k, d, sb);
        if (st)
            return st;
    }
    return CLOPS_OK;
}

void pw_program_name(const pw_spec *s, const clops_device *d, char *buf, size_t cap)
{
    if (pw_group_by_op(d) && pw_spec_is_standard(s)) {
        snprintf(buf, cap, "pw/%s/all-dtypes/i%s", s->op->name, s->index64 ? "64" : "32");
        return;
    }
    pw_spec k = *s;
    k.rank = 0;
    char name[128];
    pw_kernel_name(&k, name, sizeof name);
    snprintf(buf, cap, "pw/%s/%s", s->op->name, name);
}

/* The generated part of spec's program (a kit_program's write()): the
 * op's helpers and every kernel of spec's group, without contraction.
 *
 * No contraction: every multiply and add of an expression rounds as
 * written, on every device.  OpenCL's default (FP_CONTRACT ON) leaves it to
 * the compiler, and compilers differ: POCL's clang fuses a multiply and an
 * add of one expression into an fma where the CPU has one, NVIDIA's
 * compiler fuses them across statements too.  An op fused by
 * torch.compile(backend="clops") (python/clops/torch/_compile.py) is the
 * eager ops' expressions, one statement each, in one kernel; eager rounds
 * every op's result to memory.  With contraction allowed, NVIDIA fused a
 * multiply of one op into the add of the next (1 ulp from eager), and a
 * fused kernel could not keep an op's inner contraction (eager's) while
 * forbidding it at the op's boundary.  Off everywhere, the fused kernel is
 * eager's arithmetic by the language's rules, and an op's bits are the same
 * on every conforming device (lerp, addcmul and addcdiv asked for this in
 * their helpers already). */
static clops_status write_body(const void *ctx, const clops_device *d, strbuf *sb)
{
    const pw_spec *s = ctx;
    clops_status st = CLOPS_OK;
    sb_append(sb, "\n#pragma OPENCL FP_CONTRACT OFF\n");
    if (s->op->helpers) {
        sb_printf(sb, "\n/* ---- helpers of %s ---- */\n", s->op->name);
        sb_append(sb, s->op->helpers);
        sb_append(sb, "\n");
    }
    if (pw_group_by_op(d) && pw_spec_is_standard(s) && s->op->is_cast) {
        /* Every (input, output) pair of a cast. */
        for (int o = 0; o < CLOPS_DTYPE_COUNT; o++)
            for (int i = 0; i < CLOPS_DTYPE_COUNT; i++) {
                if (!d->info.fp64 && (o == CLOPS_FLOAT64 || i == CLOPS_FLOAT64))
                    continue;
                pw_spec sig = *s;
                sig.out_dtype = (clops_dtype)o;
                sig.compute = kit_compute_dtype((clops_dtype)o);
                sig.in_dtype[0] = (clops_dtype)i;
                st = emit_signature_ranks(&sig, d, sb);
                if (st)
                    return st;
            }
        return CLOPS_OK;
    }
    if (pw_group_by_op(d) && pw_spec_is_standard(s)) {
        for (int dt = 0; dt < CLOPS_DTYPE_COUNT; dt++) {
            pw_spec sig;
            if (dt == CLOPS_FLOAT64 && !d->info.fp64)
                continue;
            if (!pw_standard_spec(s->op, (clops_dtype)dt, 0, s->index64, &sig))
                continue;
            if (sig.compute == CLOPS_FLOAT64 && !d->info.fp64)
                continue;
            st = emit_signature_ranks(&sig, d, sb);
            if (st)
                return st;
        }
        return CLOPS_OK;
    }
    return emit_signature_ranks(s, d, sb);
}

/* Spec's program as the kit assembles it: a title naming it, the prelude,
 * then write_body. */
static kit_program program_of(const pw_spec *s, const char *pname, char *title, size_t cap)
{
    snprintf(title, cap, "clops pointwise program %s (generated; see codegen_pointwise/emit.c)",
             pname);
    return (kit_program){.name = pname, .title = title, .write = write_body, .ctx = s};
}

clops_status pw_emit_program(const pw_spec *s, const clops_device *d, strbuf *sb)
{
    char pname[160], title[240];
    pw_program_name(s, d, pname, sizeof pname);
    kit_program p = program_of(s, pname, title, sizeof title);
    return kit_program_source(&p, d, sb);
}

clops_status pw_build_kernel(clops_device *d, const host_kkey *key, const pw_spec *s,
                             const char *op, host_kernel **out)
{
    char kname[128], pname[160], title[240];
    pw_kernel_name(s, kname, sizeof kname);
    pw_program_name(s, d, pname, sizeof pname);
    kit_program p = program_of(s, pname, title, sizeof title);
    return kit_build(d, key, &p, kname, op, out);
}
