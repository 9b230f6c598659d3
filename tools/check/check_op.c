/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tools/check/check_op.c: what the check engine knows about one operator
 * (chk_opinfo): argument roles from the schema, the functional counterpart
 * of in-place and out= variants, the kernel family, the bound pw_op, and
 * the check hints (inventory first, then the built-in table of
 * check_known.c).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen_pointwise/pw_bind.h"
#include "tools/check/check_internal.h"

/* --- functional counterparts ---------------------------------------------- */

/* Whether argument a is an out= tensor (keyword-only and written). */
static bool is_out_arg(const schema_arg *a)
{
    return a->type.base == SCHEMA_TENSOR && a->alias.present && a->alias.is_write &&
           a->kwarg_only;
}

/*
 * A signature that in-place, out= and functional forms of one op share:
 * the base name without PyTorch's trailing underscore, then every argument
 * but the out= ones as (type, name), alias annotations ignored.
 */
static void op_signature(const op_schema *s, char *buf, size_t cap)
{
    size_t len = strlen(s->name);
    int n = snprintf(buf, cap, "%.*s(", (int)len, s->name);
    if (len > 1 && s->name[len - 1] == '_' && s->name[len - 2] != '_')
        n = snprintf(buf, cap, "%.*s(", (int)len - 1, s->name);
    for (int i = 0; i < s->nargs && n > 0 && (size_t)n < cap; i++) {
        const schema_arg *a = &s->args[i];
        if (is_out_arg(a))
            continue;
        n += snprintf(buf + n, cap - (size_t)n, "%d%c%c%c%d %s,", (int)a->type.base,
                      a->type.is_list ? 'L' : '-', a->type.optional ? '?' : '-',
                      a->type.elem_optional ? 'e' : '-', a->type.list_size, a->name);
    }
}

/* Whether nothing in the schema is written. */
static bool schema_is_functional(const op_schema *s)
{
    for (int i = 0; i < s->nargs; i++)
        if (s->args[i].alias.present && s->args[i].alias.is_write)
            return false;
    return true;
}

/* Index of the registry's functional ops by signature, rebuilt when the
 * op count changes (user ops).  The engine runs on one thread. */
static struct {
    int count;
    int n;
    char (*sig)[512];
    const clops_op **op;
} fidx;

/* (Re)builds the index; false on out-of-memory. */
static bool build_index(void)
{
    int count = clops_op_count();
    if (fidx.sig && fidx.count == count)
        return true;
    free(fidx.sig);
    free(fidx.op);
    fidx.sig = calloc((size_t)count + 1, sizeof *fidx.sig);
    fidx.op = calloc((size_t)count + 1, sizeof *fidx.op);
    fidx.n = 0;
    fidx.count = count;
    if (!fidx.sig || !fidx.op)
        return false;
    for (int i = 0; i < count; i++) {
        const clops_op *op = clops_op_at(i);
        if (!op || !schema_is_functional(op->schema))
            continue;
        op_signature(op->schema, fidx.sig[fidx.n], sizeof fidx.sig[0]);
        fidx.op[fidx.n++] = op;
    }
    return true;
}

const clops_op *chk_functional_of(const clops_op *op)
{
    if (schema_is_functional(op->schema))
        return op;
    if (!build_index())
        return NULL;
    char sig[512];
    op_signature(op->schema, sig, sizeof sig);
    for (int i = 0; i < fidx.n; i++)
        if (strcmp(fidx.sig[i], sig) == 0)
            return fidx.op[i];
    return NULL;
}

/* --- hints -------------------------------------------------------------------- */

/* Flags, in document order, whether each number token of a JSON text has a
 * fraction or an exponent; returns the number of tokens seen. */
static int scan_float_tokens(const char *text, bool *flags, int cap)
{
    int k = 0;
    bool in_str = false;
    for (const char *p = text; *p; p++) {
        if (in_str) {
            if (*p == '\\' && p[1])
                p++;
            else if (*p == '"')
                in_str = false;
            continue;
        }
        if (*p == '"') {
            in_str = true;
            continue;
        }
        if (*p == '-' || isdigit((unsigned char)*p)) {
            bool fl = false;
            while (*p && strchr("-+0123456789.eE", *p)) {
                if (*p == '.' || *p == 'e' || *p == 'E')
                    fl = true;
                p++;
            }
            if (k < cap)
                flags[k] = fl;
            k++;
            p--;
        }
    }
    return k;
}

/* Appends the number nodes under n in document order. */
static void collect_numbers(const cJSON *n, const cJSON **out, int *k, int cap)
{
    for (; n; n = n->next) {
        if (cJSON_IsNumber(n)) {
            if (*k < cap)
                out[*k] = n;
            (*k)++;
        }
        if (n->child)
            collect_numbers(n->child, out, k, cap);
    }
}

bool chk_hint_is_float(const chk_opinfo *info, const cJSON *node)
{
    for (int i = 0; i < info->nfloat_nodes; i++)
        if (info->float_nodes[i] == node)
            return true;
    return false;
}

const cJSON *chk_hint(const chk_opinfo *info, const char *key)
{
    return info->hints ? cJSON_GetObjectItemCaseSensitive(info->hints, key) : NULL;
}

const cJSON *chk_hint_arg_values(const chk_opinfo *info, const char *name)
{
    const cJSON *args = chk_hint(info, "args");
    const cJSON *v = cJSON_IsObject(args) ? cJSON_GetObjectItemCaseSensitive(args, name) : NULL;
    return cJSON_IsArray(v) && cJSON_GetArraySize(v) > 0 ? v : NULL;
}

/* Index of the schema argument called name, or -1. */
static int arg_index(const chk_opinfo *info, const char *name)
{
    for (int i = 0; i < info->nargs; i++)
        if (strcmp(info->schema->args[i].name, name) == 0)
            return i;
    return -1;
}

/* The schema index of the k-th tensor input (INPUT or MUTATED), or -1. */
static int tensor_input_index(const chk_opinfo *info, int k)
{
    for (int i = 0; i < info->nargs; i++)
        if (info->roles[i] == CHK_ROLE_INPUT || info->roles[i] == CHK_ROLE_MUTATED)
            if (k-- == 0)
                return i;
    return -1;
}

/* Reads the hints of info (text) into its fields. */
static clops_status apply_hints(chk_opinfo *info, const char *text)
{
    const char *name = info->name;
    info->hints = cJSON_Parse(text);
    if (!cJSON_IsObject(info->hints))
        return clops__fail(CLOPS_INVALID_ARGUMENT, "%s: check hints are not a JSON object: %s",
                           name, text);
    bool flags[64];
    const cJSON *nodes[64];
    int nflags = scan_float_tokens(text, flags, 64), nnodes = 0;
    collect_numbers(info->hints->child, nodes, &nnodes, 64);
    for (int i = 0; i < nflags && i < nnodes && i < 64; i++)
        if (flags[i])
            info->float_nodes[info->nfloat_nodes++] = nodes[i];

    const cJSON *it = chk_hint(info, "domain");
    if (it && !(cJSON_IsString(it) && chk_domain_from_name(it->valuestring, &info->domain)))
        return clops__fail(CLOPS_INVALID_ARGUMENT, "%s: check hint 'domain' is not a domain name",
                           name);
    for (int i = 0; i < info->nargs; i++)
        info->arg_domain[i] = info->domain;
    it = chk_hint(info, "domains");
    for (const cJSON *d = cJSON_IsObject(it) ? it->child : NULL; d; d = d->next) {
        int i = arg_index(info, d->string);
        pw_domain dom;
        if (i < 0 || !cJSON_IsString(d) || !chk_domain_from_name(d->valuestring, &dom))
            return clops__fail(CLOPS_INVALID_ARGUMENT,
                               "%s: check hint 'domains': '%s' is not an argument with a domain "
                               "name",
                               name, d->string);
        info->arg_domain[i] = dom;
    }
    it = chk_hint(info, "arg_dtypes");
    for (const cJSON *d = cJSON_IsObject(it) ? it->child : NULL; d; d = d->next) {
        int i = arg_index(info, d->string);
        clops_dtype dt;
        if (i < 0 || !cJSON_IsString(d) || clops_dtype_from_name(d->valuestring, &dt) != CLOPS_OK)
            return clops__fail(CLOPS_INVALID_ARGUMENT,
                               "%s: check hint 'arg_dtypes': '%s' is not an argument with a dtype "
                               "name",
                               name, d->string);
        info->arg_dtype[i] = dt;
    }
    it = chk_hint(info, "ulp");
    if (cJSON_IsNumber(it))
        info->ulp = it->valuedouble;
    it = chk_hint(info, "atol");
    if (cJSON_IsNumber(it))
        info->atol = it->valuedouble;
    it = chk_hint(info, "dtypes");
    if (cJSON_IsArray(it)) {
        info->dtypes = 0;
        for (const cJSON *d = it->child; d; d = d->next) {
            clops_dtype dt;
            if (!cJSON_IsString(d) || clops_dtype_from_name(d->valuestring, &dt) != CLOPS_OK)
                return clops__fail(CLOPS_INVALID_ARGUMENT, "%s: check hint 'dtypes' has a bad "
                                   "entry", name);
            info->dtypes |= 1u << dt;
        }
    }
    it = chk_hint(info, "reduction");
    if (cJSON_IsString(it) && strcmp(it->valuestring, "all") == 0) {
        info->reduce_arg = tensor_input_index(info, 0);
        info->reduce_dim = CHK_REDUCE_ALL;
    } else if (cJSON_IsNumber(it)) {
        info->reduce_arg = tensor_input_index(info, 0);
        info->reduce_dim = it->valueint;
    } else if (cJSON_IsArray(it) && cJSON_GetArraySize(it) == 2) {
        const cJSON *a = cJSON_GetArrayItem(it, 0), *d = cJSON_GetArrayItem(it, 1);
        info->reduce_arg = cJSON_IsString(a)   ? arg_index(info, a->valuestring)
                           : cJSON_IsNumber(a) ? tensor_input_index(info, a->valueint)
                                               : -1;
        info->reduce_dim = cJSON_IsNumber(d) ? d->valueint : 0;
        if (info->reduce_arg < 0)
            return clops__fail(CLOPS_INVALID_ARGUMENT, "%s: check hint 'reduction' names no "
                               "tensor argument", name);
    }
    it = chk_hint(info, "skip");
    if (cJSON_IsString(it))
        snprintf(info->skip, sizeof info->skip, "%s", it->valuestring);
    return CLOPS_OK;
}

/* --- opinfo ---------------------------------------------------------------------- */

/* The role of schema argument a. */
static chk_role role_of(const schema_arg *a)
{
    if (a->type.base == SCHEMA_TENSOR && a->type.is_list)
        return CHK_ROLE_LIST;
    if (a->type.base == SCHEMA_TENSOR) {
        if (a->alias.present && a->alias.is_write)
            return a->kwarg_only ? CHK_ROLE_OUT : CHK_ROLE_MUTATED;
        return CHK_ROLE_INPUT;
    }
    if (a->type.base == SCHEMA_DEVICE)
        return CHK_ROLE_DEVICE;
    return CHK_ROLE_VALUE;
}

/* The pw_op bound to the op called name, or NULL. */
static const pw_op *bound_pw_op(const char *name)
{
    for (int i = 0; i < dispatch_pw_binding_count; i++)
        if (strcmp(dispatch_pw_bindings[i].opname, name) == 0)
            return dispatch_pw_bindings[i].op;
    return NULL;
}

clops_status chk_opinfo_init(const clops_op *op, chk_opinfo *info)
{
    memset(info, 0, sizeof *info);
    info->op = op;
    info->name = clops_op_name(op);
    info->schema = op->schema;
    info->reduce_arg = info->reduce_dim = -1;
    info->dtypes = (1u << CLOPS_DTYPE_COUNT) - 1;
    for (int i = 0; i < CHK_MAX_ARGS; i++)
        info->arg_dtype[i] = CLOPS_DTYPE_NONE;
    info->hint_source = "";
    const op_schema *s = op->schema;
    if (s->nargs > CHK_MAX_ARGS) {
        snprintf(info->skip, sizeof info->skip, "more than %d arguments", CHK_MAX_ARGS);
        info->nargs = 0;
        return CLOPS_OK;
    }
    info->nargs = s->nargs;
    info->is_functional = true;
    for (int i = 0; i < s->nargs; i++) {
        info->roles[i] = role_of(&s->args[i]);
        if (info->roles[i] == CHK_ROLE_INPUT || info->roles[i] == CHK_ROLE_MUTATED)
            info->ninputs++;
        if (info->roles[i] == CHK_ROLE_OUT)
            info->nouts++;
        if (info->roles[i] == CHK_ROLE_MUTATED)
            info->inplace = true;
        if (info->roles[i] == CHK_ROLE_MUTATED || info->roles[i] == CHK_ROLE_OUT)
            info->is_functional = false;
        if (info->roles[i] == CHK_ROLE_LIST && s->args[i].alias.present &&
            s->args[i].alias.is_write)
            snprintf(info->skip, sizeof info->skip, "writes a Tensor[] argument");
    }
    for (int r = 0; r < s->nrets; r++)
        if (s->rets[r].type.is_list && s->rets[r].type.base != SCHEMA_TENSOR)
            snprintf(info->skip, sizeof info->skip, "returns a list of non-tensors");
    info->functional = chk_functional_of(op);

    clops_kernel_info ki;
    if (clops_op_kernel_info(op, CLOPS_KEY_OPENCL, &ki) == CLOPS_OK && ki.name)
        snprintf(info->family, sizeof info->family, "%s", ki.name);
    else if (clops_op_kernel_info(op, CLOPS_KEY_CPU, &ki) == CLOPS_OK && ki.name)
        snprintf(info->family, sizeof info->family, "%s", ki.name);
    else
        snprintf(info->family, sizeof info->family, "%s", info->name);

    info->pw = bound_pw_op(info->name);
    if (!info->pw && info->functional)
        info->pw = bound_pw_op(clops_op_name(info->functional));
    info->domain = info->pw ? info->pw->domain : PW_DOMAIN_ANY;
    for (int i = 0; i < info->nargs; i++)
        info->arg_domain[i] = info->domain;
    info->ulp = info->pw ? (info->pw->ulp ? info->pw->ulp : 2) : 4;

    const char *text = dispatch_op_check_hints(op);
    info->hint_source = "inventory";
    if (!text && info->functional && info->functional != op) {
        text = dispatch_op_check_hints(info->functional);
    }
    if (!text) {
        text = chk_known_hints(info->name);
        info->hint_source = text ? "built-in" : "";
    }
    if (!text)
        return CLOPS_OK;
    clops_status st = apply_hints(info, text);
    if (st)
        chk_opinfo_free(info);
    return st;
}

void chk_opinfo_free(chk_opinfo *info)
{
    cJSON_Delete(info->hints);
    info->hints = NULL;
    info->nfloat_nodes = 0;
}
