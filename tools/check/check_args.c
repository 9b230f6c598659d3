/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tools/check/check_args.c: values of the non-tensor arguments of a case.
 *
 * An argument's values come, in this order, from the op's check hints
 * ("args": {name: [values]}, each value a case of its own), from the schema
 * default, and last from a generic value chosen by the argument's name and
 * type (below).  The generic values make the common shapes of schemas work
 * without hints: a `dim` is 0, a `size` of a view is the input's own shape
 * (an identity view, valid for every layout), a Scalar operand is a number
 * of the case dtype's kind.  An argument for which nothing sensible exists
 * (a required `str`) makes the op report "needs a check hint".
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tools/check/check_internal.h"

clops_value chk_arg_value(const chk_argval *a)
{
    clops_value v = clops_value_none();
    switch (a->tag) {
    case CLOPS_V_SCALAR:
        return clops_value_scalar(a->s);
    case CLOPS_V_INT:
        return clops_value_int(a->i);
    case CLOPS_V_FLOAT:
        return clops_value_float(a->f);
    case CLOPS_V_BOOL:
        return clops_value_bool(a->b);
    case CLOPS_V_INT_LIST:
        return clops_value_ints(a->ints, a->nints);
    case CLOPS_V_BOOL_LIST:
        v.tag = CLOPS_V_BOOL_LIST;
        v.v.bools.data = a->bools;
        v.v.bools.len = a->nints;
        return v;
    case CLOPS_V_DTYPE:
        return clops_value_dtype(a->dtype);
    case CLOPS_V_STRING:
        return clops_value_string(a->str);
    case CLOPS_V_ENUM:
        v.tag = CLOPS_V_ENUM;
        v.v.i = a->i;
        return v;
    default:
        return v;
    }
}

/* Stores a boxed value into an argval (lists copied inline). */
static bool store_value(chk_argval *out, const clops_value *v)
{
    out->role = CHK_ROLE_VALUE;
    out->tag = v->tag;
    switch (v->tag) {
    case CLOPS_V_NONE:
        return true;
    case CLOPS_V_SCALAR:
        out->s = v->v.s;
        return true;
    case CLOPS_V_INT:
    case CLOPS_V_ENUM:
        out->i = v->v.i;
        return true;
    case CLOPS_V_FLOAT:
        out->f = v->v.f;
        return true;
    case CLOPS_V_BOOL:
        out->b = v->v.b;
        return true;
    case CLOPS_V_INT_LIST:
        if (v->v.ints.len > CLOPS_MAX_DIMS)
            return false;
        out->nints = v->v.ints.len;
        if (v->v.ints.len)
            memcpy(out->ints, v->v.ints.data, sizeof(int64_t) * (size_t)v->v.ints.len);
        return true;
    case CLOPS_V_BOOL_LIST:
        if (v->v.bools.len > CLOPS_MAX_DIMS)
            return false;
        out->nints = v->v.bools.len;
        if (v->v.bools.len)
            memcpy(out->bools, v->v.bools.data, sizeof(bool) * (size_t)v->v.bools.len);
        return true;
    case CLOPS_V_DTYPE:
        out->dtype = v->v.dtype;
        return true;
    case CLOPS_V_STRING:
        if (strlen(v->v.str) >= sizeof out->str)
            return false;
        snprintf(out->str, sizeof out->str, "%s", v->v.str);
        return true;
    default:
        return false;
    }
}

bool chk_value_default(const chk_opinfo *info, int i, chk_argval *out)
{
    const struct clops_op *op = info->op;
    if (!op->has_default || !op->has_default[i])
        return false;
    memset(out, 0, sizeof *out);
    return store_value(out, &op->defaults[i]);
}

bool chk_value_from_hint(const chk_opinfo *info, int i, const cJSON *v, chk_argval *out,
                         char *why, size_t cap)
{
    const schema_arg *a = &info->schema->args[i];
    memset(out, 0, sizeof *out);
    out->role = CHK_ROLE_VALUE;
    if (cJSON_IsNull(v)) {
        out->tag = CLOPS_V_NONE;
        return true;
    }
    /* JSON has no infinities or NaN: "inf", "-inf" and "nan" stand for them
     * where a Scalar or float is expected. */
    double special = 0;
    bool is_special = cJSON_IsString(v) && (a->type.base == SCHEMA_SCALAR ||
                                            a->type.base == SCHEMA_FLOAT) && !a->type.is_list;
    if (is_special) {
        if (strcmp(v->valuestring, "inf") == 0)
            special = INFINITY;
        else if (strcmp(v->valuestring, "-inf") == 0)
            special = -INFINITY;
        else if (strcmp(v->valuestring, "nan") == 0)
            special = NAN;
        else
            is_special = false;
    }
    if (is_special) {
        out->tag = a->type.base == SCHEMA_SCALAR ? CLOPS_V_SCALAR : CLOPS_V_FLOAT;
        out->s = clops_scalar_float(special);
        out->f = special;
        return true;
    }
    switch (a->type.base) {
    case SCHEMA_SCALAR:
        if (cJSON_IsBool(v)) {
            out->tag = CLOPS_V_SCALAR;
            out->s = clops_scalar_bool(cJSON_IsTrue(v));
            return true;
        }
        if (!cJSON_IsNumber(v))
            break;
        out->tag = CLOPS_V_SCALAR;
        if (chk_hint_is_float(info, v) || v->valuedouble != floor(v->valuedouble) ||
            fabs(v->valuedouble) > 9e15)
            out->s = clops_scalar_float(v->valuedouble);
        else
            out->s = clops_scalar_int((int64_t)v->valuedouble);
        return true;
    case SCHEMA_INT:
    case SCHEMA_SYMINT:
        if (a->type.is_list && cJSON_IsArray(v) && cJSON_GetArraySize(v) <= CLOPS_MAX_DIMS) {
            out->tag = CLOPS_V_INT_LIST;
            for (const cJSON *e = v->child; e; e = e->next) {
                if (!cJSON_IsNumber(e))
                    goto bad;
                out->ints[out->nints++] = (int64_t)e->valuedouble;
            }
            return true;
        }
        if (!cJSON_IsNumber(v))
            break;
        out->tag = a->type.is_list ? CLOPS_V_INT_LIST : CLOPS_V_INT;
        out->i = (int64_t)v->valuedouble;
        out->ints[0] = out->i;
        out->nints = 1;
        return true;
    case SCHEMA_FLOAT:
        if (!cJSON_IsNumber(v))
            break;
        out->tag = CLOPS_V_FLOAT;
        out->f = v->valuedouble;
        return true;
    case SCHEMA_BOOL:
        if (a->type.is_list && cJSON_IsArray(v) && cJSON_GetArraySize(v) <= CLOPS_MAX_DIMS) {
            out->tag = CLOPS_V_BOOL_LIST;
            for (const cJSON *e = v->child; e; e = e->next) {
                if (!cJSON_IsBool(e))
                    goto bad;
                out->bools[out->nints++] = cJSON_IsTrue(e);
            }
            return true;
        }
        if (!cJSON_IsBool(v))
            break;
        out->tag = CLOPS_V_BOOL;
        out->b = cJSON_IsTrue(v);
        return true;
    case SCHEMA_STR:
        if (!cJSON_IsString(v) || strlen(v->valuestring) >= sizeof out->str)
            break;
        out->tag = CLOPS_V_STRING;
        snprintf(out->str, sizeof out->str, "%s", v->valuestring);
        return true;
    case SCHEMA_SCALAR_TYPE:
        if (!cJSON_IsString(v) || clops_dtype_from_name(v->valuestring, &out->dtype) != CLOPS_OK)
            break;
        out->tag = CLOPS_V_DTYPE;
        return true;
    default:
        break;
    }
bad:
    snprintf(why, cap, "check hint value for argument '%s' does not fit its type", a->name);
    return false;
}

/* A Scalar operand of the case dtype's kind: true, 3 or 1.5. */
static clops_scalar scalar_for(clops_dtype dt)
{
    if (dt == CLOPS_BOOL)
        return clops_scalar_bool(true);
    if (clops_dtype_is_floating(dt))
        return clops_scalar_float(1.5);
    return clops_scalar_int(3);
}

bool chk_value_generic(const chk_opinfo *info, int i, const chk_tspec *self, clops_dtype dt,
                       bool factory, chk_argval *out, char *why, size_t cap)
{
    const schema_arg *a = &info->schema->args[i];
    const char *n = a->name;
    memset(out, 0, sizeof *out);
    out->role = CHK_ROLE_VALUE;
    int ndim = self ? self->ndim : 0;
    if (a->type.optional && a->type.base != SCHEMA_SCALAR_TYPE) {
        out->tag = CLOPS_V_NONE;
        return true;
    }
    switch (a->type.base) {
    case SCHEMA_SCALAR:
        out->tag = CLOPS_V_SCALAR;
        if (strcmp(n, "start") == 0)
            out->s = clops_scalar_int(1);
        else if (strcmp(n, "end") == 0)
            out->s = clops_scalar_int(11);
        else
            out->s = scalar_for(dt);
        return true;
    case SCHEMA_INT:
    case SCHEMA_SYMINT:
        if (!a->type.is_list) {
            out->tag = CLOPS_V_INT;
            if (strcmp(n, "dim1") == 0 || strcmp(n, "dim2") == 0 || strcmp(n, "end_dim") == 0)
                out->i = -1;
            else if (strcmp(n, "length") == 0)
                out->i = 2;
            else if (strncmp(n, "dim", 3) == 0 || strcmp(n, "offset") == 0)
                out->i = 0;
            else
                out->i = 1; /* index, start, and anything else */
            return true;
        }
        out->tag = CLOPS_V_INT_LIST;
        if (strcmp(n, "size") == 0 || strcmp(n, "shape") == 0) {
            out->nints = ndim;
            for (int k = 0; k < ndim; k++)
                out->ints[k] = self->sizes[k];
        } else if (strcmp(n, "stride") == 0) {
            out->nints = ndim;
            int64_t st = 1;
            for (int k = ndim - 1; k >= 0; k--) {
                out->ints[k] = st;
                st *= self->sizes[k] > 0 ? self->sizes[k] : 1;
            }
        } else if (strcmp(n, "dims") == 0) {
            out->nints = ndim;
            for (int k = 0; k < ndim; k++)
                out->ints[k] = ndim - 1 - k;
        } else if (strcmp(n, "sizes") == 0) {
            out->nints = 2;
            out->ints[0] = -1;
            out->ints[1] = 1;
        } else if (strcmp(n, "dim") == 0) {
            out->nints = 1;
            out->ints[0] = 0;
        } else {
            out->nints = 1;
            out->ints[0] = 1;
        }
        return true;
    case SCHEMA_FLOAT:
        out->tag = CLOPS_V_FLOAT;
        out->f = 0.5;
        return true;
    case SCHEMA_BOOL:
        out->tag = CLOPS_V_BOOL;
        out->b = false;
        return true;
    case SCHEMA_SCALAR_TYPE:
        if (a->type.optional && !factory) {
            out->tag = CLOPS_V_NONE;
            return true;
        }
        out->tag = CLOPS_V_DTYPE;
        out->dtype = dt;
        return true;
    default:
        break;
    }
    snprintf(why, cap, "no value for argument '%s' of type %s (add it to the op's check hints)",
             n, a->type.base == SCHEMA_STR ? "str" : "this type");
    return false;
}

void chk_value_text(const chk_opinfo *info, int i, const chk_argval *a, char *buf, size_t cap)
{
    const char *n = info->schema->args[i].name;
    switch (a->tag) {
    case CLOPS_V_NONE:
        snprintf(buf, cap, "%s=None", n);
        break;
    case CLOPS_V_SCALAR:
        if (a->s.kind == CLOPS_SCALAR_BOOL)
            snprintf(buf, cap, "%s=%s", n, a->s.v.b ? "True" : "False");
        else if (a->s.kind == CLOPS_SCALAR_INT)
            snprintf(buf, cap, "%s=%lld", n, (long long)a->s.v.i);
        else
            snprintf(buf, cap, "%s=%.17g%s", n, a->s.v.f,
                     a->s.v.f == floor(a->s.v.f) && fabs(a->s.v.f) < 1e15 ? ".0" : "");
        break;
    case CLOPS_V_INT:
    case CLOPS_V_ENUM:
        snprintf(buf, cap, "%s=%lld", n, (long long)a->i);
        break;
    case CLOPS_V_FLOAT:
        snprintf(buf, cap, "%s=%g", n, a->f);
        break;
    case CLOPS_V_BOOL:
        snprintf(buf, cap, "%s=%s", n, a->b ? "True" : "False");
        break;
    case CLOPS_V_STRING:
        snprintf(buf, cap, "%s=%s", n, a->str);
        break;
    case CLOPS_V_DTYPE:
        snprintf(buf, cap, "%s=%s", n, clops_dtype_name(a->dtype));
        break;
    case CLOPS_V_BOOL_LIST: {
        size_t len = (size_t)snprintf(buf, cap, "%s=[", n);
        for (int k = 0; k < a->nints && len < cap; k++)
            len += (size_t)snprintf(buf + len, cap - len, "%s%s", k ? ", " : "",
                                    a->bools[k] ? "True" : "False");
        if (len < cap)
            snprintf(buf + len, cap - len, "]");
        break;
    }
    case CLOPS_V_INT_LIST: {
        char shape[CLOPS_MAX_DIMS * 22 + 4];
        snprintf(buf, cap, "%s=%s", n, clops__fmt_shape(shape, sizeof shape, a->nints, a->ints));
        break;
    }
    default:
        snprintf(buf, cap, "%s=?", n);
        break;
    }
}
