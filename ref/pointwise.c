/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ref/pointwise.c: the CPU reference of the pointwise ops (ref/ref_pw.h).
 *
 * The CPU dispatch key runs pointwise ops here, and the tests use the same
 * code as the oracle for device kernels.  It does not use the pointwise
 * engine's plan: it walks the output's own index space in row-major order
 * and broadcasts every operand from that tensor's own sizes and strides
 * (PyTorch's rules: trailing dims aligned, size-1 and missing dims
 * repeated), so a planning bug of the engine shows as a difference.  Each
 * operand is converted to its compute type (double for floating computes,
 * int64 for integer and bool computes), rounded to a float16/bfloat16
 * common dtype where the call says (as PyTorch converts an operand to the
 * common dtype first), the op's scalar function computes the element, and
 * the result is rounded to the result's compute dtype (float for
 * float16/bfloat16/float32) and stored with PyTorch's conversion rules.
 */
#include <string.h>

#include "ref/ref_binary.h"
#include "ref/ref_pw.h"
#include "ref/ref_unary.h"

/* copy (and every cast): the value unchanged (the load and the store do the
 * conversion). */
static ref_value ref_copy(const ref_pw_ctx *ctx, const ref_value *in)
{
    (void)ctx;
    return in[0];
}

/* ref's table of the built-in pointwise ops: name -> scalar function. */
typedef struct ref_pw_entry {
    const char *name;
    ref_pw_fn fn;
} ref_pw_entry;

static const ref_pw_entry pw_table[] = {
    {"copy", ref_copy},
#define REF_PW__BINARY(name) {#name, ref_##name},
#define REF_PW__UNARY(name) {#name, ref_unary_##name},
#define REF_PW__ACT(name) {#name, ref_act_##name},
    REF_BINARY_OPS(REF_PW__BINARY) REF_UNARY_MATH_OPS(REF_PW__UNARY)
        REF_ACTIVATION_OPS(REF_PW__ACT)
#undef REF_PW__BINARY
#undef REF_PW__UNARY
#undef REF_PW__ACT
};

ref_pw_fn ref_pw_lookup(const char *name)
{
    for (size_t i = 0; i < sizeof pw_table / sizeof pw_table[0]; i++)
        if (strcmp(pw_table[i].name, name) == 0)
            return pw_table[i].fn;
    return NULL;
}

/* Strides of tensor t broadcast to shape (nd, sizes): 0 where t repeats;
 * false when t does not broadcast to it. */
static bool broadcast_strides(const clops_tensor *t, int nd, const int64_t *sizes, int64_t *st)
{
    if (t->ndim > nd)
        return false;
    for (int d = 0; d < nd; d++) {
        int i = d - (nd - t->ndim);
        if (i < 0 || t->sizes[i] == 1)
            st[d] = 0;
        else if (t->sizes[i] == sizes[d])
            st[d] = t->strides[i];
        else
            return false;
    }
    return true;
}

clops_status ref_pointwise(const ref_pw_call *c)
{
    const clops_tensor *out = c->out;
    int nd = out->ndim, nin = c->n_in;
    int64_t numel = 1;
    for (int d = 0; d < nd; d++)
        numel *= out->sizes[d];
    if (numel == 0)
        return CLOPS_OK;
    /* A scalar operand (no tensor) keeps strides 0: its offset never moves. */
    int64_t st[REF_PW_MAX_IN][CLOPS_MAX_DIMS] = {{0}}, off[REF_PW_MAX_IN];
    const void *base[REF_PW_MAX_IN];
    for (int j = 0; j < nin; j++) {
        const clops_tensor *t = c->in[j].t;
        base[j] = t ? t->storage->host_ptr : NULL;
        off[j] = t ? t->offset : 0;
        if (t && !broadcast_strides(t, nd, out->sizes, st[j])) {
            char a[400], b[400];
            return clops__fail(CLOPS_INTERNAL,
                               "%s: the reference got operand %d of shape %s for an output of "
                               "shape %s",
                               c->op, j, clops__fmt_shape(a, sizeof a, t->ndim, t->sizes),
                               clops__fmt_shape(b, sizeof b, nd, out->sizes));
        }
    }
    void *out_base = out->storage->host_ptr;
    int64_t out_off = out->offset;
    bool rc_float = clops_dtype_is_floating(c->result);
    int64_t coord[CLOPS_MAX_DIMS] = {0};
    ref_value in[REF_PW_MAX_IN];
    for (int64_t e = 0; e < numel; e++) {
        for (int j = 0; j < nin; j++) {
            const ref_pw_operand *o = &c->in[j];
            if (!base[j]) {
                in[j] = o->scalar;
                continue;
            }
            in[j] = ref_load(base[j], off[j], o->t->dtype, o->compute);
            if (o->round == CLOPS_FLOAT16)
                in[j].f = clops_half_to_float(clops_float_to_half((float)in[j].f));
            else if (o->round == CLOPS_BFLOAT16)
                in[j].f = clops_bfloat16_to_float(clops_float_to_bfloat16((float)in[j].f));
        }
        ref_value r = c->fn(c->ctx, in);
        if (rc_float && c->result != CLOPS_FLOAT64)
            r.f = ref_round_f32(r.f);
        else if (!rc_float)
            r.i = ref_wrap_int(r.i, c->result);
        ref_store(out_base, out_off, out->dtype, c->result, r);
        /* Next coordinate, row-major. */
        for (int d = nd - 1; d >= 0; d--) {
            out_off += out->strides[d];
            for (int j = 0; j < nin; j++)
                off[j] += st[j][d];
            if (++coord[d] < out->sizes[d])
                break;
            out_off -= out->strides[d] * out->sizes[d];
            for (int j = 0; j < nin; j++)
                off[j] -= st[j][d] * out->sizes[d];
            coord[d] = 0;
        }
    }
    return CLOPS_OK;
}
