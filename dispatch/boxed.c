/* SPDX-License-Identifier: Apache-2.0 */
/*
 * dispatch/boxed.c: checking boxed arguments against a schema.
 *
 * A boxed call may leave out trailing arguments that have defaults; every
 * given value must fit its schema type.  Values are normalised so kernels
 * see one tag per type: an int or float or bool where a Scalar is expected
 * becomes a Scalar, an int where a float is expected becomes a float, an
 * int where an int[N] is expected is repeated N times (PyTorch's rule for
 * `int[2] stride=1`).  Defaults are built once per operator from its schema.
 */
#include <stdlib.h>
#include <string.h>

#include "dispatch/dispatch.h"

/* Enum-like identifiers native_functions.yaml uses as defaults. */
static const struct {
    const char *ident;
    clops_value_tag tag;
    int64_t value;
} ident_defaults[] = {
    {"contiguous_format", CLOPS_V_ENUM, 0},
    {"preserve_format", CLOPS_V_ENUM, 1},
    {"channels_last", CLOPS_V_ENUM, 2},
    {"channels_last_3d", CLOPS_V_ENUM, 3},
    {"strided", CLOPS_V_ENUM, 0},
    {"Mean", CLOPS_V_INT, 1},
    {"Sum", CLOPS_V_INT, 2},
    {"long", CLOPS_V_DTYPE, CLOPS_INT64},
    {"int", CLOPS_V_DTYPE, CLOPS_INT32},
    {"float", CLOPS_V_DTYPE, CLOPS_FLOAT32},
    {"double", CLOPS_V_DTYPE, CLOPS_FLOAT64},
};

/* Short description of a value tag for messages. */
static const char *tag_name(clops_value_tag t)
{
    static const char *const names[] = {"None",      "Tensor",     "Scalar",     "int",
                                        "float",     "bool",       "int list",   "float list",
                                        "bool list", "Tensor list", "ScalarType", "str",
                                        "Device",    "enum",       "Generator"};
    return (int)t >= 0 && t <= CLOPS_V_GENERATOR ? names[t] : "?";
}

clops_status dispatch_build_defaults(struct clops_op *op)
{
    const op_schema *s = op->schema;
    int total_ints = 0;
    for (int i = 0; i < s->nargs; i++) {
        const schema_arg *a = &s->args[i];
        if (a->def.kind == SCHEMA_DEFAULT_INT_LIST)
            total_ints += a->def.n_ints;
        else if (a->def.kind == SCHEMA_DEFAULT_INT && a->type.is_list)
            total_ints += a->type.list_size > 0 ? a->type.list_size : 1;
    }
    size_t nslots = s->nargs > 0 ? (size_t)s->nargs : 1;
    op->defaults = calloc(nslots, sizeof *op->defaults);
    op->has_default = calloc(nslots, sizeof *op->has_default);
    op->default_ints = calloc((size_t)(total_ints ? total_ints : 1), sizeof *op->default_ints);
    if (!op->defaults || !op->has_default || !op->default_ints)
        return CLOPS__HOST_OOM("operator defaults");
    int used = 0;
    for (int i = 0; i < s->nargs; i++) {
        const schema_arg *a = &s->args[i];
        const schema_default *d = &a->def;
        clops_value v = clops_value_none();
        switch (d->kind) {
        case SCHEMA_DEFAULT_NONE_GIVEN:
            continue;
        case SCHEMA_DEFAULT_NONE:
            break;
        case SCHEMA_DEFAULT_INT:
            if (a->type.is_list) {
                int n = a->type.list_size > 0 ? a->type.list_size : 1;
                for (int k = 0; k < n; k++)
                    op->default_ints[used + k] = d->i;
                v = clops_value_ints(op->default_ints + used, n);
                used += n;
            } else if (a->type.base == SCHEMA_SCALAR) {
                v = clops_value_scalar(clops_scalar_int(d->i));
            } else if (a->type.base == SCHEMA_FLOAT) {
                v = clops_value_float((double)d->i);
            } else {
                v = clops_value_int(d->i);
            }
            break;
        case SCHEMA_DEFAULT_FLOAT:
            v = a->type.base == SCHEMA_SCALAR ? clops_value_scalar(clops_scalar_float(d->f))
                                              : clops_value_float(d->f);
            break;
        case SCHEMA_DEFAULT_BOOL:
            v = a->type.base == SCHEMA_SCALAR ? clops_value_scalar(clops_scalar_bool(d->b))
                                              : clops_value_bool(d->b);
            break;
        case SCHEMA_DEFAULT_STRING:
            v = clops_value_string(d->s);
            break;
        case SCHEMA_DEFAULT_INT_LIST:
            if (d->n_ints > 0) /* an empty list (`int[] dims=[]`) has no array */
                memcpy(op->default_ints + used, d->ints, sizeof(int64_t) * (size_t)d->n_ints);
            v = clops_value_ints(op->default_ints + used, d->n_ints);
            used += d->n_ints;
            break;
        case SCHEMA_DEFAULT_IDENT: {
            bool found = false;
            for (size_t k = 0; k < sizeof ident_defaults / sizeof ident_defaults[0]; k++)
                if (strcmp(ident_defaults[k].ident, d->s) == 0) {
                    v.tag = ident_defaults[k].tag;
                    if (v.tag == CLOPS_V_DTYPE)
                        v.v.dtype = (clops_dtype)ident_defaults[k].value;
                    else
                        v.v.i = ident_defaults[k].value;
                    found = true;
                }
            if (!found)
                return clops__fail(CLOPS_SCHEMA_ERROR, "%s: unknown default '%s' for argument '%s'",
                                   op->name, d->s, a->name);
            break;
        }
        default:
            continue;
        }
        op->defaults[i] = v;
        op->has_default[i] = true;
    }
    return CLOPS_OK;
}

/* Normalises one value for schema argument a; CLOPS_INVALID_ARGUMENT with
 * a message when it does not fit. */
static clops_status fit(const struct clops_op *op, int idx, const schema_arg *a, clops_value *v,
                        int64_t *scratch, int scratch_len, int *scratch_used)
{
    const schema_type *t = &a->type;
    if (v->tag == CLOPS_V_NONE) {
        if (t->optional || (t->base == SCHEMA_TENSOR && !t->is_list && t->optional))
            return CLOPS_OK;
        goto mismatch;
    }
    if (v->tag == CLOPS_V_TENSOR && !v->v.t) {
        *v = clops_value_none();
        if (t->optional)
            return CLOPS_OK;
        goto mismatch;
    }
    if (t->is_list) {
        switch (t->base) {
        case SCHEMA_TENSOR:
            if (v->tag == CLOPS_V_TENSOR_LIST)
                return CLOPS_OK;
            goto mismatch;
        case SCHEMA_FLOAT:
            if (v->tag == CLOPS_V_FLOAT_LIST)
                return CLOPS_OK;
            goto mismatch;
        case SCHEMA_BOOL:
            if (v->tag == CLOPS_V_BOOL_LIST)
                return CLOPS_OK;
            goto mismatch;
        default:
            if (v->tag == CLOPS_V_INT_LIST) {
                /* int[N] takes N ints or one (expanded), or none (the
                 * pooling ops' stride=[] default: the kernel decides);
                 * int[1] (reduction dims, roll's shifts) takes any number,
                 * as in PyTorch: the size only lets a bare int stand for a
                 * list. */
                if (t->list_size > 1 && v->v.ints.len != t->list_size && v->v.ints.len != 1 &&
                    v->v.ints.len != 0)
                    return clops__fail(CLOPS_INVALID_ARGUMENT,
                                       "%s: argument '%s' (position %d) expects %d ints, got %d",
                                       op->name, a->name, idx, t->list_size, v->v.ints.len);
                if (t->list_size > 1 && v->v.ints.len == 1) {
                    int64_t x = v->v.ints.data[0];
                    v->tag = CLOPS_V_INT;
                    v->v.i = x;
                } else {
                    return CLOPS_OK;
                }
            }
            if (v->tag == CLOPS_V_INT) {
                int n = t->list_size > 0 ? t->list_size : 1;
                if (*scratch_used + n > scratch_len)
                    return clops__fail(CLOPS_INVALID_ARGUMENT, "%s: too many list arguments",
                                       op->name);
                int64_t *dst = scratch + *scratch_used;
                for (int k = 0; k < n; k++)
                    dst[k] = v->v.i;
                *scratch_used += n;
                *v = clops_value_ints(dst, n);
                return CLOPS_OK;
            }
            goto mismatch;
        }
    }
    switch (t->base) {
    case SCHEMA_TENSOR:
        if (v->tag == CLOPS_V_TENSOR)
            return CLOPS_OK;
        break;
    case SCHEMA_SCALAR:
        if (v->tag == CLOPS_V_SCALAR)
            return CLOPS_OK;
        if (v->tag == CLOPS_V_INT) {
            *v = clops_value_scalar(clops_scalar_int(v->v.i));
            return CLOPS_OK;
        }
        if (v->tag == CLOPS_V_FLOAT) {
            *v = clops_value_scalar(clops_scalar_float(v->v.f));
            return CLOPS_OK;
        }
        if (v->tag == CLOPS_V_BOOL) {
            *v = clops_value_scalar(clops_scalar_bool(v->v.b));
            return CLOPS_OK;
        }
        break;
    case SCHEMA_INT:
    case SCHEMA_SYMINT:
        if (v->tag == CLOPS_V_INT)
            return CLOPS_OK;
        if (v->tag == CLOPS_V_BOOL) {
            *v = clops_value_int(v->v.b);
            return CLOPS_OK;
        }
        if (v->tag == CLOPS_V_SCALAR && v->v.s.kind != CLOPS_SCALAR_FLOAT) {
            *v = clops_value_int(clops_scalar_to_int64(v->v.s));
            return CLOPS_OK;
        }
        break;
    case SCHEMA_FLOAT:
        if (v->tag == CLOPS_V_FLOAT)
            return CLOPS_OK;
        if (v->tag == CLOPS_V_INT) {
            *v = clops_value_float((double)v->v.i);
            return CLOPS_OK;
        }
        if (v->tag == CLOPS_V_SCALAR) {
            *v = clops_value_float(clops_scalar_to_double(v->v.s));
            return CLOPS_OK;
        }
        break;
    case SCHEMA_BOOL:
    case SCHEMA_SYMBOOL:
        if (v->tag == CLOPS_V_BOOL)
            return CLOPS_OK;
        break;
    case SCHEMA_STR:
        if (v->tag == CLOPS_V_STRING && v->v.str)
            return CLOPS_OK;
        break;
    case SCHEMA_SCALAR_TYPE:
        if (v->tag == CLOPS_V_DTYPE && (int)v->v.dtype >= 0 && v->v.dtype < CLOPS_DTYPE_COUNT_ALL)
            return CLOPS_OK;
        break;
    case SCHEMA_DEVICE:
        if (v->tag == CLOPS_V_DEVICE && v->v.device)
            return CLOPS_OK;
        break;
    case SCHEMA_GENERATOR:
        if (v->tag == CLOPS_V_GENERATOR && v->v.gen)
            return CLOPS_OK;
        break;
    default:
        if (v->tag == CLOPS_V_ENUM)
            return CLOPS_OK;
        if (v->tag == CLOPS_V_INT) {
            v->tag = CLOPS_V_ENUM;
            return CLOPS_OK;
        }
        break;
    }
mismatch:;
    strbuf tb = STRBUF_INIT;
    schema_type_print(&tb, t, NULL);
    clops_status st = clops__fail(CLOPS_INVALID_ARGUMENT,
                                  "%s: argument '%s' (position %d) must be %s, not %s", op->name,
                                  a->name, idx, tb.failed ? "?" : sb_str(&tb), tag_name(v->tag));
    sb_free(&tb);
    return st;
}

clops_status dispatch_check_args(const struct clops_op *op, const clops_value *args, int nargs,
                                 clops_value *full, int64_t *scratch, int scratch_len)
{
    const op_schema *s = op->schema;
    if (nargs > s->nargs)
        return clops__fail(CLOPS_INVALID_ARGUMENT, "%s: takes %d arguments but %d were given (%s)",
                           op->name, s->nargs, nargs, op->text);
    int used = 0;
    for (int i = 0; i < s->nargs; i++) {
        const schema_arg *a = &s->args[i];
        if (i < nargs) {
            full[i] = args[i];
        } else if (op->has_default[i]) {
            full[i] = op->defaults[i];
        } else if (a->type.optional) {
            full[i] = clops_value_none();
        } else {
            return clops__fail(CLOPS_INVALID_ARGUMENT,
                               "%s: missing %sargument '%s' (position %d) (%s)", op->name,
                               a->kwarg_only ? "keyword-only " : "", a->name, i, op->text);
        }
        clops_status st = fit(op, i, a, &full[i], scratch, scratch_len, &used);
        if (st)
            return st;
    }
    return CLOPS_OK;
}
