/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ref/pw_ref.c: the CPU reference executor for pointwise ops.
 *
 * The CPU dispatch key runs pointwise ops here, and the tests use the same
 * code as the oracle for device kernels.  It walks the plan made by
 * codegen_pointwise/plan.c with plain strided loops, converts every operand
 * to the reference compute type (double for floating computes, int64 for
 * integer and bool computes), calls the op's C reference function, and
 * stores the result with PyTorch's conversion rules.  Like PyTorch (and the
 * kernels), an operand is converted to the common dtype first: an integer
 * wraps to a narrower integer common dtype, any other dtype rounds to a
 * float16/bfloat16 common dtype before it widens to the compute type.  Floating results are
 * rounded to the compute dtype first (float for float16/bfloat16/float32)
 * so that, say, a float32 op rounds like the device does before the store.
 */
#include <math.h>
#include <string.h>

#include "clops/dtype.h"
#include "codegen_pointwise/pw.h"

/* Rounds a double to float32 precision (keeping NaN/inf). */
static double round_f32(double x)
{
    return (double)(float)x;
}

/* Wraps an int64 to the width of an integer dtype (two's complement). */
static int64_t wrap_int(int64_t x, clops_dtype dt)
{
    switch (dt) {
    case CLOPS_BOOL:
        return x != 0;
    case CLOPS_UINT8:
        return (uint8_t)(uint64_t)x;
    case CLOPS_INT8:
        return (int8_t)(uint8_t)(uint64_t)x;
    case CLOPS_INT16:
        return (int16_t)(uint16_t)(uint64_t)x;
    case CLOPS_INT32:
        return (int32_t)(uint32_t)(uint64_t)x;
    default:
        return x;
    }
}

pw_value pw_ref_load(const void *base, int64_t index, clops_dtype dt, clops_dtype compute)
{
    pw_value v;
    double f = 0.0;
    int64_t i = 0;
    bool is_float = false;
    switch (dt) {
    case CLOPS_BOOL:
        i = ((const uint8_t *)base)[index] != 0;
        break;
    case CLOPS_UINT8:
        i = ((const uint8_t *)base)[index];
        break;
    case CLOPS_INT8:
        i = ((const int8_t *)base)[index];
        break;
    case CLOPS_INT16:
        i = ((const int16_t *)base)[index];
        break;
    case CLOPS_INT32:
        i = ((const int32_t *)base)[index];
        break;
    case CLOPS_INT64:
        i = ((const int64_t *)base)[index];
        break;
    case CLOPS_FLOAT16:
        f = clops_half_to_float(((const uint16_t *)base)[index]);
        is_float = true;
        break;
    case CLOPS_BFLOAT16:
        f = clops_bfloat16_to_float(((const uint16_t *)base)[index]);
        is_float = true;
        break;
    case CLOPS_FLOAT32:
        f = ((const float *)base)[index];
        is_float = true;
        break;
    case CLOPS_FLOAT64:
        f = ((const double *)base)[index];
        is_float = true;
        break;
    default:
        break;
    }
    if (clops_dtype_is_floating(compute)) {
        v.f = is_float ? f : (double)i;
        if (compute != CLOPS_FLOAT64)
            v.f = round_f32(v.f);
    } else if (compute == CLOPS_BOOL) {
        v.i = is_float ? (f != 0.0) : (i != 0);
    } else if (is_float) {
        /* Float to integer truncates; to uint8 it goes through int64 (as
         * PyTorch does, so -1.0 becomes 255).  Out-of-range values are
         * undefined in PyTorch too; clamp to avoid C's undefined cast. */
        double t = trunc(f);
        if (isnan(t))
            t = 0;
        if (t >= 9.2233720368547758e18)
            t = 9.2233720368547748e18;
        if (t < -9.2233720368547758e18)
            t = -9.2233720368547758e18;
        v.i = (int64_t)t;
    } else {
        /* An integer narrows to an integer compute dtype by wrapping, as a
         * C cast does (int32 300 read as int8 is 44). */
        v.i = wrap_int(i, compute);
    }
    return v;
}

void pw_ref_store(void *base, int64_t index, clops_dtype dt, clops_dtype compute, pw_value v)
{
    bool from_float = clops_dtype_is_floating(compute);
    if (clops_dtype_is_floating(dt)) {
        double f = from_float ? v.f : (double)v.i;
        switch (dt) {
        case CLOPS_FLOAT16:
            ((uint16_t *)base)[index] = clops_float_to_half((float)f);
            break;
        case CLOPS_BFLOAT16:
            ((uint16_t *)base)[index] = clops_float_to_bfloat16((float)f);
            break;
        case CLOPS_FLOAT32:
            ((float *)base)[index] = (float)f;
            break;
        default:
            ((double *)base)[index] = f;
            break;
        }
        return;
    }
    int64_t i;
    if (dt == CLOPS_BOOL)
        i = from_float ? (v.f != 0.0) : (v.i != 0);
    else if (from_float)
        i = pw_ref_load(&v.f, 0, CLOPS_FLOAT64, CLOPS_INT64).i;
    else
        i = v.i;
    i = wrap_int(i, dt);
    switch (dt) {
    case CLOPS_BOOL:
    case CLOPS_UINT8:
        ((uint8_t *)base)[index] = (uint8_t)i;
        break;
    case CLOPS_INT8:
        ((int8_t *)base)[index] = (int8_t)i;
        break;
    case CLOPS_INT16:
        ((int16_t *)base)[index] = (int16_t)i;
        break;
    case CLOPS_INT32:
        ((int32_t *)base)[index] = (int32_t)i;
        break;
    default:
        ((int64_t *)base)[index] = i;
        break;
    }
}

/* Compute dtype operand j is read in (the device's, see emit.c). */
static clops_dtype operand_compute(const pw_spec *s, int j)
{
    switch (s->op->roles[j]) {
    case PW_ROLE_BOOL:
        return CLOPS_BOOL;
    case PW_ROLE_OWN:
        return (s->in_dtype[j] == CLOPS_FLOAT16 || s->in_dtype[j] == CLOPS_BFLOAT16)
                   ? CLOPS_FLOAT32
                   : s->in_dtype[j];
    default:
        return s->compute;
    }
}

/* The dtype the reference function's result is in. */
static clops_dtype result_compute(const pw_spec *s)
{
    if (s->op->promotion == PW_PROMOTE_ALWAYS_BOOL || s->op->fixed_result == CLOPS_BOOL)
        return CLOPS_BOOL;
    if (s->op->fixed_result != CLOPS_DTYPE_NONE)
        return s->op->fixed_result;
    return s->compute;
}

/* For ops marked ref_same_precision, rounds float32-computed inputs (they
 * already are) and the result to float32; otherwise keeps double. */
static pw_value finish(const pw_spec *s, clops_dtype rc, pw_value r)
{
    if (clops_dtype_is_floating(rc) && rc != CLOPS_FLOAT64)
        r.f = round_f32(r.f);
    else if (!clops_dtype_is_floating(rc))
        r.i = wrap_int(r.i, rc == CLOPS_FLOAT16 ? CLOPS_INT64 : rc);
    (void)s;
    return r;
}

clops_status pw_ref_execute(const pw_spec *spec, const pw_plan *plan,
                            const clops_tensor *const *tensors, const pw_value *scalar_in,
                            const pw_ref_ctx *ctx)
{
    const pw_op *op = spec->op;
    int nin = op->n_in;
    clops_dtype rc = result_compute(spec);
    void *out_base = tensors[0]->storage->host_ptr;
    const void *in_base[PW_MAX_IN];
    clops_dtype in_ct[PW_MAX_IN], in_round[PW_MAX_IN];
    for (int j = 0; j < nin; j++) {
        in_base[j] = tensors[1 + j] ? tensors[1 + j]->storage->host_ptr : NULL;
        in_ct[j] = operand_compute(spec, j);
        /* Converted to the common dtype first, as on devices (emit.c). */
        in_round[j] = pw_operand_rounding(spec, j);
        /* A zero-dim tensor on the CPU is a CPU scalar to PyTorch, which
         * some ops keep in opmath precision (pw_op.scalar_opmath). */
        if (op->scalar_opmath && tensors[1 + j] && tensors[1 + j]->ndim == 0)
            in_round[j] = CLOPS_DTYPE_NONE;
    }
    int nd = plan->ndim;
    int64_t coord[CLOPS_MAX_DIMS] = {0};
    int64_t off[PW_MAX_OPERANDS];
    for (int k = 0; k <= nin; k++)
        off[k] = plan->offsets[k];
    pw_value in[PW_MAX_IN];
    for (int64_t e = 0; e < plan->numel; e++) {
        for (int j = 0; j < nin; j++) {
            if (!in_base[j]) {
                in[j] = scalar_in[j];
                continue;
            }
            in[j] = pw_ref_load(in_base[j], off[1 + j], spec->in_dtype[j], in_ct[j]);
            if (in_round[j] == CLOPS_FLOAT16)
                in[j].f = clops_half_to_float(clops_float_to_half((float)in[j].f));
            else if (in_round[j] == CLOPS_BFLOAT16)
                in[j].f = clops_bfloat16_to_float(clops_float_to_bfloat16((float)in[j].f));
        }
        pw_value r = finish(spec, rc, op->ref(ctx, in));
        pw_ref_store(out_base, off[0], spec->out_dtype, rc, r);
        /* Advance the innermost-first odometer. */
        for (int d = 0; d < nd; d++) {
            coord[d]++;
            for (int k = 0; k <= nin; k++)
                off[k] += plan->strides[k][d];
            if (coord[d] < plan->sizes[d])
                break;
            for (int k = 0; k <= nin; k++)
                off[k] -= plan->strides[k][d] * plan->sizes[d];
            coord[d] = 0;
        }
    }
    return CLOPS_OK;
}
