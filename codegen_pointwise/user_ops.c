/* SPDX-License-Identifier: Apache-2.0 */
/*
 * codegen_pointwise/user_ops.c: clops_pointwise_register, pointwise
 * operators defined at run time from a schema and an OpenCL C expression.
 *
 * A registered op becomes a pw_op like the built-in ones (so it shares the
 * planner, the emitter, the kernel cache and the CPU executor) plus boxed
 * kernels at the OpenCL key (and at the CPU key when a C version is given)
 * that map the schema's arguments onto the pw_op's operands and parameters
 * and call pw_run with the variant they serve.  The variants' schemas are
 * derived with the same code the build-time generator uses.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "clops/pointwise.h"
#include "codegen_pointwise/pw.h"
#include "dispatch/dispatch.h"

/* One registered op and everything it owns. */
typedef struct user_pw {
    pw_op op;
    char *strings[8]; /* owned copies: name, exprs, helpers, param names */
    int nstrings;
    clops_pointwise_ref_fn ref;
    void *user;
    int nargs;                         /* functional schema arguments */
    int map[PW_MAX_IN + PW_MAX_PARAMS]; /* arg -> operand j or param -(k+1) */
    struct user_variant {
        struct user_pw *owner;
        pw_variant variant;
    } variants[3];
    struct user_pw *next;
} user_pw;

static pthread_mutex_t user_lock = PTHREAD_MUTEX_INITIALIZER;
static user_pw *user_ops;

/* Keeps a copy of s (NULL stays NULL); false when out of memory. */
static bool keep(user_pw *u, const char *s, const char **dst)
{
    if (!s) {
        *dst = NULL;
        return true;
    }
    char *c = malloc(strlen(s) + 1);
    if (!c || u->nstrings == (int)(sizeof u->strings / sizeof u->strings[0])) {
        free(c);
        return false;
    }
    strcpy(c, s);
    u->strings[u->nstrings++] = c;
    *dst = c;
    return true;
}

/* Frees one record. */
static void free_user(user_pw *u)
{
    if (!u)
        return;
    for (int i = 0; i < u->nstrings; i++)
        free(u->strings[i]);
    free(u);
}

/* Frees every registered op's record (at clops_shutdown). */
void pw_user_ops_free(void)
{
    pthread_mutex_lock(&user_lock);
    while (user_ops) {
        user_pw *next = user_ops->next;
        free_user(user_ops);
        user_ops = next;
    }
    pthread_mutex_unlock(&user_lock);
}

/* The CPU version: converts to doubles, calls the user's function.  An
 * operand of its own dtype (promotion "none") is floating or not by that
 * dtype, and so is the fixed result. */
static pw_value user_ref(const pw_ref_ctx *ctx, const pw_value *in)
{
    const user_pw *u = ctx->user;
    bool fl = clops_dtype_is_floating(ctx->compute);
    double x[PW_MAX_IN], p[PW_MAX_PARAMS];
    for (int j = 0; j < u->op.n_in; j++) {
        bool fj = u->op.roles[j] == PW_ROLE_OWN ? clops_dtype_is_floating(ctx->in_dtype[j]) : fl;
        x[j] = fj ? in[j].f : (double)in[j].i;
    }
    if (u->op.fixed_result != CLOPS_DTYPE_NONE)
        fl = clops_dtype_is_floating(u->op.fixed_result);
    for (int k = 0; k < u->op.n_params; k++)
        p[k] = ctx->params_float ? ctx->params[k].f : (double)ctx->params[k].i;
    double r = u->ref(x, p, u->user);
    pw_value v;
    if (u->op.promotion == PW_PROMOTE_ALWAYS_BOOL)
        v.i = r != 0.0;
    else if (u->op.fixed_result == CLOPS_BOOL)
        v.i = r != 0.0;
    else if (fl)
        v.f = r;
    else
        v.i = isnan(r) ? 0 : (int64_t)r;
    return v;
}

/* The boxed kernel of every variant. */
static clops_status user_kernel(const clops_kernel_ctx *ctx, clops_value *args, int nargs,
                                clops_value *rets, int nrets)
{
    const struct user_variant *v = clops_kernel_ctx_data(ctx);
    const user_pw *u = v->owner;
    pw_operand operands[PW_MAX_IN];
    clops_scalar params[PW_MAX_PARAMS];
    for (int i = 0; i < u->nargs && i < nargs; i++) {
        int m = u->map[i];
        const clops_value *a = &args[i];
        if (m >= 0)
            operands[m] = a->tag == CLOPS_V_TENSOR ? pw_tensor(a->v.t) : pw_scalar(a->v.s);
        else
            params[-m - 1] = a->v.s;
    }
    clops_tensor *dst = v->variant == PW_INPLACE ? args[0].v.t
                        : v->variant == PW_OUT   ? args[nargs - 1].v.t
                                                 : NULL;
    pw_options opts = {.result = CLOPS_DTYPE_NONE,
                       .compute = CLOPS_DTYPE_NONE,
                       .opname = clops_op_name(clops_kernel_ctx_op(ctx))};
    clops_tensor *res = NULL;
    clops_status st = pw_run(&u->op, v->variant, operands, params, dst, &opts, &res);
    if (st)
        return st;
    if (nrets > 0)
        rets[0] = clops_value_tensor(v->variant == PW_FUNCTIONAL ? res : clops_tensor_retain(dst));
    if (v->variant != PW_FUNCTIONAL)
        clops_tensor_release(res);
    return CLOPS_OK;
}

/* Checks the schema and maps its arguments onto operands and params;
 * `own`: promotion "none", every operand in its own dtype (Tensors only). */
static clops_status map_arguments(user_pw *u, const op_schema *s, const char *params, bool own)
{
    const char *name = s->name;
    if (s->nrets != 1 || s->rets[0].type.base != SCHEMA_TENSOR || s->rets[0].type.is_list)
        return clops__fail(CLOPS_INVALID_ARGUMENT, "%s: a pointwise op returns one Tensor", name);
    u->nargs = s->nargs;
    int nin = 0, np = 0;
    char pnames[PW_MAX_PARAMS][64];
    int npn = 0;
    for (const char *p = params ? params : ""; *p;) {
        while (*p == ',' || *p == ' ')
            p++;
        size_t n = strcspn(p, ", ");
        if (!n)
            break;
        if (npn == PW_MAX_PARAMS || n >= sizeof pnames[0])
            return clops__fail(CLOPS_INVALID_ARGUMENT, "%s: at most %d parameters", name,
                               PW_MAX_PARAMS);
        if (own)
            return clops__fail(CLOPS_INVALID_ARGUMENT,
                               "%s: an op with promotion 'none' takes no parameters", name);
        memcpy(pnames[npn], p, n);
        pnames[npn++][n] = '\0';
        p += n;
    }
    for (int k = 0; k < npn; k++)
        if (schema_find_arg(s, pnames[k]) < 0)
            return clops__fail(CLOPS_INVALID_ARGUMENT, "%s: parameter '%s' is not in the schema",
                               name, pnames[k]);
    for (int i = 0; i < s->nargs; i++) {
        const schema_arg *a = &s->args[i];
        bool ok = !a->type.is_list && !a->type.optional &&
                  (a->type.base == SCHEMA_TENSOR || a->type.base == SCHEMA_SCALAR);
        if (!ok)
            return clops__fail(CLOPS_INVALID_ARGUMENT,
                               "%s: argument '%s' must be a Tensor or a Scalar for a pointwise op",
                               name, a->name);
        int param = -1;
        for (int k = 0; k < npn; k++)
            if (strcmp(pnames[k], a->name) == 0)
                param = k;
        if (param >= 0) {
            if (a->type.base != SCHEMA_SCALAR)
                return clops__fail(CLOPS_INVALID_ARGUMENT, "%s: parameter '%s' must be a Scalar",
                                   name, a->name);
            u->map[i] = -(param + 1);
            if (!keep(u, a->name, &u->op.param_names[param]))
                return CLOPS__HOST_OOM("pointwise op");
            u->op.params[param] = PW_PARAM_COMPUTE;
            np++;
        } else {
            if (nin == PW_MAX_IN)
                return clops__fail(CLOPS_INVALID_ARGUMENT, "%s: at most %d operands", name,
                                   PW_MAX_IN);
            if (own && a->type.base != SCHEMA_TENSOR)
                return clops__fail(CLOPS_INVALID_ARGUMENT,
                                   "%s: argument '%s' must be a Tensor (promotion 'none')", name,
                                   a->name);
            u->op.roles[nin] = own ? PW_ROLE_OWN : PW_ROLE_COMMON;
            u->map[i] = nin++;
        }
    }
    u->op.n_in = nin;
    u->op.n_params = np;
    return CLOPS_OK;
}

/* Defines one op and registers its kernels. */
static clops_status define_variant(user_pw *u, const char *schema, const char *tags, int slot,
                                   pw_variant variant, bool cpu, const clops_op **out)
{
    const clops_op *op = NULL;
    clops_status st = clops_op_define(schema, tags, &op);
    if (st)
        return st;
    u->variants[slot].owner = u;
    u->variants[slot].variant = variant;
    st = clops_kernel_register(op, CLOPS_KEY_OPENCL, user_kernel, &u->variants[slot],
                               "pointwise:user", 0, NULL);
    if (st == CLOPS_OK && cpu)
        st = clops_kernel_register(op, CLOPS_KEY_CPU, user_kernel, &u->variants[slot],
                                   "pointwise:user", 0, NULL);
    if (st == CLOPS_OK && out)
        *out = op;
    return st;
}

/* Refuses an expression (or helpers) longer than max bytes, or nesting
 * deeper than CLOPS_POINTWISE_MAX_NESTING: brackets, plus a run of prefix
 * operators (`!`, `~`, `-`, `+`, spaces between them allowed), each of
 * which a compiler's parser recurses into as it does into a bracket
 * (3,000 `!` before an operand overflowed clang's stack inside POCL).
 * Comments are skipped. */
static clops_status check_text(const char *schema, const char *field, const char *text, size_t max)
{
    if (!text)
        return CLOPS_OK;
    size_t len = strlen(text);
    if (len > max)
        return clops__fail(CLOPS_INVALID_ARGUMENT,
                           "clops_pointwise_register: %s of '%.80s' is %zu bytes long; the limit "
                           "is %zu (OpenCL compilers crash on very long expressions)",
                           field, schema, len, max);
    int depth = 0, run = 0;
    for (const char *p = text; *p; p++) {
        if (p[0] == '/' && (p[1] == '/' || p[1] == '*')) {
            const char *end = p[1] == '/' ? strchr(p + 2, '\n') : strstr(p + 2, "*/");
            if (!end)
                break;
            p = p[1] == '/' ? end : end + 1;
            continue;
        }
        if (*p == '(' || *p == '[' || *p == '{')
            depth++;
        else if (*p == ')' || *p == ']' || *p == '}')
            depth--;
        if (*p == '!' || *p == '~' || *p == '-' || *p == '+')
            run++;
        else if (*p != ' ' && *p != '\t' && *p != '\n' && *p != '\r')
            run = 0;
        if (depth > CLOPS_POINTWISE_MAX_NESTING)
            return clops__fail(CLOPS_INVALID_ARGUMENT,
                               "clops_pointwise_register: %s of '%.80s' nests brackets more than "
                               "%d deep (at byte %td); OpenCL compilers crash on very deep "
                               "expressions",
                               field, schema, CLOPS_POINTWISE_MAX_NESTING, p - text);
        if (depth + run > CLOPS_POINTWISE_MAX_NESTING)
            return clops__fail(CLOPS_INVALID_ARGUMENT,
                               "clops_pointwise_register: %s of '%.80s' chains %d prefix "
                               "operators at bracket depth %d (at byte %td), more than %d levels "
                               "of nesting; OpenCL compilers crash on very deep expressions",
                               field, schema, run, depth, p - text, CLOPS_POINTWISE_MAX_NESTING);
    }
    return CLOPS_OK;
}

clops_status clops_pointwise_register(const clops_pointwise_def *def, const clops_op **out)
{
    if (!def || !def->schema || !def->expr)
        return clops__fail(CLOPS_INVALID_ARGUMENT,
                           "clops_pointwise_register: schema and expr are required");
    clops_status lim = check_text(def->schema, "expr", def->expr, CLOPS_POINTWISE_MAX_EXPR_LEN);
    if (lim == CLOPS_OK)
        lim = check_text(def->schema, "expr_int", def->expr_int, CLOPS_POINTWISE_MAX_EXPR_LEN);
    if (lim == CLOPS_OK)
        lim = check_text(def->schema, "expr_bool", def->expr_bool, CLOPS_POINTWISE_MAX_EXPR_LEN);
    if (lim == CLOPS_OK)
        lim = check_text(def->schema, "helpers", def->helpers, CLOPS_POINTWISE_MAX_HELPERS_LEN);
    if (lim)
        return lim;
    op_schema *s = NULL;
    clops_status st = schema_parse(def->schema, &s);
    if (st)
        return clops__error_prefix(st, "clops_pointwise_register");
    user_pw *u = calloc(1, sizeof *u);
    strbuf tags = STRBUF_INIT, text = STRBUF_INIT;
    if (!u) {
        st = CLOPS__HOST_OOM("pointwise op");
        goto fail;
    }
    pw_promotion prom = PW_PROMOTE_DEFAULT;
    bool own = def->promotion && strcmp(def->promotion, "none") == 0;
    if (def->promotion && !own &&
        (st = pw_promotion_from_name(def->promotion, &prom)) != CLOPS_OK)
        goto fail;
    clops_dtype result = CLOPS_DTYPE_NONE;
    if (def->result && (st = clops_dtype_from_name(def->result, &result)) != CLOPS_OK) {
        st = clops__error_prefix(st, "clops_pointwise_register: result of '%.80s'", def->schema);
        goto fail;
    }
    if (own && result == CLOPS_DTYPE_NONE) {
        st = clops__fail(CLOPS_INVALID_ARGUMENT,
                         "clops_pointwise_register: '%.80s' has promotion 'none' and needs a "
                         "result dtype",
                         def->schema);
        goto fail;
    }
    st = map_arguments(u, s, def->params, own);
    if (st)
        goto fail;
    char *name = schema_qualified_name(s);
    bool ok = name && keep(u, name, &u->op.name) && keep(u, def->expr, &u->op.expr_default) &&
              keep(u, def->expr_int, &u->op.expr[PW_CLASS_SINT]) &&
              keep(u, def->helpers, &u->op.helpers);
    free(name);
    if (!ok) {
        st = CLOPS__HOST_OOM("pointwise op");
        goto fail;
    }
    u->op.expr[PW_CLASS_UINT] = u->op.expr[PW_CLASS_SINT];
    if (def->expr_bool && !keep(u, def->expr_bool, &u->op.expr[PW_CLASS_BOOL])) {
        st = CLOPS__HOST_OOM("pointwise op");
        goto fail;
    }
    u->op.promotion = prom;
    /* Without COMMON operands the call's common dtype is bool (run.c). */
    u->op.dtypes = own ? PW_DT_ALL : def->dtypes ? def->dtypes : PW_DT_FLOATS;
    u->op.fixed_result = result;
    u->op.ref = def->ref ? user_ref : NULL;
    u->op.user = u;
    u->ref = def->ref;
    u->user = def->user;
    sb_append(&tags, "pointwise");
    if (def->tags && def->tags[0])
        sb_printf(&tags, ",%s", def->tags);
    if ((st = sb_finish(&tags, "tags")) != CLOPS_OK)
        goto fail;
    bool cpu = def->ref != NULL;
    st = define_variant(u, def->schema, sb_str(&tags), 0, PW_FUNCTIONAL, cpu, out);
    for (int v = 0; v < 2 && def->variants && st == CLOPS_OK; v++) {
        sb_clear(&text);
        schema_derive_variant(&text, s, v == 0, NULL);
        st = sb_finish(&text, "schema");
        if (st == CLOPS_OK)
            st = define_variant(u, sb_str(&text), sb_str(&tags), 1 + v,
                                v == 0 ? PW_INPLACE : PW_OUT, cpu, NULL);
    }
    if (st) {
        /* Ops already defined stay (without kernels on failure paths they
         * cannot be half-registered: the first failing step is the op
         * definition itself, before its kernels). */
        goto fail_registered;
    }
    pthread_mutex_lock(&user_lock);
    u->next = user_ops;
    user_ops = u;
    pthread_mutex_unlock(&user_lock);
    schema_free(s);
    sb_free(&tags);
    sb_free(&text);
    return CLOPS_OK;

fail_registered:
    /* Kernels may already point at u: keep it alive until shutdown. */
    pthread_mutex_lock(&user_lock);
    u->next = user_ops;
    user_ops = u;
    pthread_mutex_unlock(&user_lock);
    u = NULL;
fail:
    free_user(u);
    schema_free(s);
    sb_free(&tags);
    sb_free(&text);
    return st;
}
