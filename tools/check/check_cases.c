/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tools/check/check_cases.c: the standard cases of an operator (chk_cases).
 *
 * Without shape hints, every tensor argument takes part in one of these
 * layout cases (k is the position among the op's tensor inputs):
 *
 *   contig    all [5, 7, 11, 13] contiguous (odd sizes: the vector tail runs)
 *   transp    [5, 7, 11]; the first input transposed, the others contiguous
 *   sliced    [5, 7, 11] step-2 slices at a storage offset, every input
 *   expanded  [5, 7, 11] with stride 0 in dims 0 and 2 (read-only inputs)
 *   bcast     [5, 7, 11] with the others [7, 1] (broadcast one way)
 *   bcast2    [5, 1, 11] with the others [7, 1] (both ways; not in place)
 *   zerodim   all zero-dim
 *   zdmix     [5, 7] with the others zero-dim (the zero-dim promotion category)
 *   zerosize  all [5, 0, 7]
 *   out_t     [5, 7, 11] inputs and out= into a transposed view
 *   offset    [5, 7, 11] contiguous at a storage offset of 3 elements, every
 *             input and output (aligned to no vector width)
 *   convert   pointwise ops (no casts): [5, 7, 11] with the others in a
 *             dtype converted to its dtype:
 *             float: int16 tensors (rounded to float16/bfloat16), integer:
 *             zero-dim int64 (wrapped to a narrower dtype); the ci set runs
 *             it for float16 and int8 only (one extra kernel each)
 *   cpuscal   [5, 7] with the others zero-dim tensors left on the CPU (full)
 *   mixed     [5, 7, 11] with the others in a second dtype (full)
 *   rank5     [3, 2, 3, 2, 3] sliced: the generic-rank kernel (full)
 *   noneopt   optional tensors given as None (full)
 *
 * The strided cases all have rank 3, so a set without rank5 compiles at
 * most two pointwise kernels per (op, dtype): the contiguous fast path and
 * one rank-3 kernel.  With shape hints, each listed shape set is combined
 * with the layouts contiguous and transposed (plus sliced and expanded in
 * the full set).  out= tensors get the reference's result shape and dtype
 * inside guard regions; tensors named `condition` or `mask` are bool.
 *
 * Non-tensor arguments take every value their hint lists (one case per
 * combination, or one argument varied at a time when there are more than
 * eight combinations); the ci and representative sets combine all values
 * with the first layout case only, the full set with every layout.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/check/check_internal.h"

typedef enum kind {
    K_CONTIG,
    K_TRANSP,
    K_SLICED,
    K_EXPANDED,
    K_BCAST,
    K_BCAST2,
    K_ZERODIM,
    K_ZDMIX,
    K_ZEROSIZE,
    K_OUT_T,
    K_OFFSET,
    K_CONVERT,
    K_CPUSCAL,
    K_MIXED,
    K_RANK5,
    K_NONEOPT,
    K_COUNT
} kind;

static const char *const kind_names[K_COUNT] = {
    "5x7x11x13 contiguous",      "5x7x11 transposed",
    "5x7x11 step-sliced+offset", "5x7x11 expanded (stride 0)",
    "5x7x11 + 7x1 broadcast",    "5x1x11 + 7x1 broadcast both ways",
    "zero-dim",                  "5x7 + zero-dim",
    "5x0x7 zero-size",           "5x7x11 out= transposed",
    "5x7x11 at storage offset 3", "5x7x11 + others converted to its dtype",
    "5x7 + zero-dim on the CPU", "5x7x11 mixed dtypes",
    "3x2x3x2x3 sliced (rank 5)", "5x7x11x13 optional tensors None",
};

/* Which kinds each set runs for dtype dt. */
static bool set_has_kind(chk_set set, kind k, clops_dtype dt)
{
    switch (set) {
    case CHK_SET_FULL:
        return k != K_CONVERT || dt != CLOPS_BOOL;
    case CHK_SET_REPRESENTATIVE:
        return k == K_CONTIG || k == K_TRANSP || k == K_BCAST || k == K_ZERODIM || k == K_OUT_T;
    default:
        if (k == K_CONVERT)
            return dt == CLOPS_FLOAT16 || dt == CLOPS_INT8;
        return k <= K_OFFSET;
    }
}

const char *chk_set_name(chk_set set)
{
    switch (set) {
    case CHK_SET_CI:
        return "ci";
    case CHK_SET_REPRESENTATIVE:
        return "representative";
    case CHK_SET_FULL:
        return "full";
    default:
        return "?";
    }
}

bool chk_set_from_name(const char *name, chk_set *out)
{
    for (int s = 0; s < CHK_SET_COUNT; s++)
        if (name && strcmp(name, chk_set_name((chk_set)s)) == 0) {
            *out = (chk_set)s;
            return true;
        }
    return false;
}

uint32_t chk_set_dtypes(chk_set set)
{
    if (set == CHK_SET_REPRESENTATIVE)
        return (1u << CLOPS_FLOAT32) | (1u << CLOPS_FLOAT16) | (1u << CLOPS_INT32) |
               (1u << CLOPS_BOOL);
    return (1u << CLOPS_DTYPE_COUNT) - 1;
}

/* A second dtype for mixed-dtype cases. */
static clops_dtype partner_dtype(clops_dtype dt)
{
    switch (dt) {
    case CLOPS_FLOAT32:
        return CLOPS_FLOAT16;
    case CLOPS_FLOAT16:
    case CLOPS_BFLOAT16:
    case CLOPS_FLOAT64:
        return CLOPS_FLOAT32;
    case CLOPS_INT64:
        return CLOPS_INT32;
    default:
        return CLOPS_INT64;
    }
}

/* --- building blocks ------------------------------------------------------------ */

/* Sets a spec's shape. */
static void set_shape(chk_tspec *t, int ndim, const int64_t *sizes)
{
    t->ndim = ndim;
    for (int i = 0; i < ndim; i++)
        t->sizes[i] = sizes[i];
}

/* Whether schema argument i is an optional tensor. */
static bool is_optional_tensor(const chk_opinfo *info, int i)
{
    const schema_type *ty = &info->schema->args[i].type;
    return ty->base == SCHEMA_TENSOR && ty->optional;
}

/* The dtype of tensor argument i in a case of dtype dt: bool for
 * conditions and masks (by name, or the pw_op's BOOL role). */
static clops_dtype tensor_dtype(const chk_opinfo *info, int i, clops_dtype dt)
{
    const char *n = info->schema->args[i].name;
    if (info->arg_dtype[i] != CLOPS_DTYPE_NONE)
        return info->arg_dtype[i];
    if (strcmp(n, "condition") == 0 || strcmp(n, "mask") == 0)
        return CLOPS_BOOL;
    if (info->pw) {
        int operand = 0;
        for (int j = 0; j < i; j++) {
            const schema_arg *a = &info->schema->args[j];
            bool param = false;
            for (int p = 0; p < info->pw->n_params; p++)
                if (info->pw->param_names[p] && strcmp(info->pw->param_names[p], a->name) == 0)
                    param = true;
            if ((a->type.base == SCHEMA_TENSOR || a->type.base == SCHEMA_SCALAR) && !param &&
                info->roles[j] != CHK_ROLE_OUT)
                operand++;
        }
        if (operand < PW_MAX_IN && operand < info->pw->n_in &&
            info->pw->roles[operand] == PW_ROLE_BOOL)
            return CLOPS_BOOL;
    }
    return dt;
}

/* Seeds the tensors of a case from the op, dtype and case name. */
static void seed_case(const chk_opinfo *info, chk_case *c)
{
    uint64_t h = chk_hash_str(CHK_HASH_INIT, info->name);
    h = chk_hash_str(h, c->dtype_label);
    h = chk_hash_str(h, c->name);
    for (int i = 0; i < c->nargs; i++) {
        c->args[i].t.seed = chk_hash_u64(h, (uint64_t)i);
        for (int k = 0; k < c->args[i].nlist; k++)
            c->args[i].list[k].seed = chk_hash_u64(h, (uint64_t)(i * 16 + k + 1000));
    }
}

/* Formats a shape as "5x7x11" ("zero-dim" for rank 0). */
static void shape_text(char *buf, size_t cap, int ndim, const int64_t *sizes)
{
    if (ndim == 0) {
        snprintf(buf, cap, "0-d");
        return;
    }
    size_t n = 0;
    buf[0] = '\0';
    for (int i = 0; i < ndim && n < cap; i++)
        n += (size_t)snprintf(buf + n, cap - n, "%s%lld", i ? "x" : "", (long long)sizes[i]);
}

/* --- tensor specs per layout case ------------------------------------------------ */

/* Whether a default-layout kind applies to the op. */
static bool kind_applies(const chk_opinfo *info, kind k)
{
    int ninputs = info->ninputs;
    bool has_input = false, has_opt = false;
    for (int i = 0; i < info->nargs; i++) {
        has_input |= info->roles[i] == CHK_ROLE_INPUT;
        has_opt |= info->roles[i] == CHK_ROLE_INPUT && is_optional_tensor(info, i);
    }
    switch (k) {
    case K_BCAST:
    case K_ZDMIX:
    case K_CPUSCAL:
    case K_MIXED:
        return ninputs >= 2;
    case K_CONVERT:
        /* Pointwise ops (casts and copies convert anything to anything, out
         * of range is undefined there). */
        return ninputs >= 2 && info->pw && !info->pw->is_cast;
    case K_BCAST2:
        return ninputs >= 2 && !info->inplace;
    case K_EXPANDED:
        return has_input;
    case K_OUT_T:
        return info->nouts > 0;
    case K_NONEOPT:
        return has_opt;
    default:
        return true;
    }
}

/* Fills the tensor arguments of c for a default-layout kind. */
static void default_tensors(const chk_opinfo *info, kind k, clops_dtype dt, chk_case *c)
{
    static const int64_t s4[] = {5, 7, 11, 13}, s3[] = {5, 7, 11}, s71[] = {7, 1},
                         s5111[] = {5, 1, 11}, s57[] = {5, 7}, s507[] = {5, 0, 7},
                         s5d[] = {3, 2, 3, 2, 3};
    int pos = 0;
    for (int i = 0; i < info->nargs; i++) {
        chk_argval *a = &c->args[i];
        chk_role r = info->roles[i];
        a->role = r;
        if (r != CHK_ROLE_INPUT && r != CHK_ROLE_MUTATED && r != CHK_ROLE_OUT &&
            r != CHK_ROLE_LIST)
            continue;
        chk_tspec *t = &a->t;
        t->dtype = tensor_dtype(info, i, dt);
        t->domain = info->arg_domain[i];
        t->layout = CHK_CONTIGUOUS;
        if (r == CHK_ROLE_OUT) {
            t->from_result = info->functional != NULL;
            t->layout = k == K_OUT_T    ? CHK_TRANSPOSED
                        : k == K_OFFSET ? CHK_OFFSET
                                        : CHK_CONTIGUOUS;
            if (!t->from_result)
                set_shape(t, 1, (const int64_t[]){0});
            int idx = 0;
            for (int j = 0; j < i; j++)
                idx += info->roles[j] == CHK_ROLE_OUT;
            t->result_index = idx;
            continue;
        }
        bool first = pos++ == 0;
        switch (k) {
        case K_CONTIG:
        case K_NONEOPT:
            set_shape(t, 4, s4);
            if (k == K_NONEOPT && is_optional_tensor(info, i))
                t->none = true;
            break;
        case K_TRANSP:
            set_shape(t, 3, s3);
            t->layout = first ? CHK_TRANSPOSED : CHK_CONTIGUOUS;
            break;
        case K_SLICED:
            set_shape(t, 3, s3);
            t->layout = CHK_SLICED;
            break;
        case K_EXPANDED:
            set_shape(t, 3, s3);
            t->layout = r == CHK_ROLE_MUTATED ? CHK_CONTIGUOUS : CHK_EXPANDED;
            break;
        case K_BCAST:
            if (first)
                set_shape(t, 3, s3);
            else
                set_shape(t, 2, s71);
            break;
        case K_BCAST2:
            if (first)
                set_shape(t, 3, s5111);
            else
                set_shape(t, 2, s71);
            break;
        case K_ZERODIM:
            set_shape(t, 0, NULL);
            break;
        case K_ZDMIX:
        case K_CPUSCAL:
            if (first) {
                set_shape(t, 2, s57);
            } else {
                set_shape(t, 0, NULL);
                t->on_cpu = k == K_CPUSCAL;
            }
            break;
        case K_ZEROSIZE:
            set_shape(t, 3, s507);
            break;
        case K_OUT_T:
            set_shape(t, 3, s3);
            break;
        case K_MIXED:
            set_shape(t, 3, s3);
            if (!first && t->dtype == dt)
                t->dtype = partner_dtype(dt);
            break;
        case K_OFFSET:
            set_shape(t, 3, s3);
            t->layout = CHK_OFFSET;
            break;
        case K_CONVERT:
            set_shape(t, 3, s3);
            if (!first && t->dtype == dt && clops_dtype_is_floating(dt)) {
                t->dtype = CLOPS_INT16;
            } else if (!first && t->dtype == dt && dt != CLOPS_INT64) {
                t->dtype = CLOPS_INT64;
                set_shape(t, 0, NULL);
            }
            break;
        case K_RANK5:
            set_shape(t, 5, s5d);
            t->layout = CHK_SLICED;
            break;
        default:
            break;
        }
        if (r == CHK_ROLE_LIST) {
            a->nlist = 2;
            a->list[0] = a->list[1] = *t;
        }
    }
}

/* t's shape from a hint shape (an array of sizes); false if malformed. */
static bool hinted_shape(const cJSON *s, chk_tspec *t)
{
    if (!cJSON_IsArray(s) || cJSON_GetArraySize(s) > CLOPS_MAX_DIMS)
        return false;
    t->ndim = 0;
    for (const cJSON *d = s->child; d; d = d->next) {
        if (!cJSON_IsNumber(d) || d->valuedouble < 0)
            return false;
        t->sizes[t->ndim++] = (int64_t)d->valuedouble;
    }
    return true;
}

/* A tensor list spelled element by element (`Tensor?[]` index lists): each
 * element a shape, null (a None entry) or {"shape": [...], "dtype": "bool",
 * "domain": "beyond"} overriding the argument's dtype and domain; elements
 * start from proto (the argument's dtype, domain and layout). */
static bool hinted_list(const cJSON *s, const chk_tspec *proto, chk_argval *a)
{
    if (cJSON_GetArraySize(s) > CHK_MAX_LIST)
        return false;
    a->nlist = 0;
    for (const cJSON *e = s->child; e; e = e->next) {
        chk_tspec *lt = &a->list[a->nlist++];
        *lt = *proto;
        if (cJSON_IsNull(e)) {
            lt->none = true;
            continue;
        }
        const cJSON *shape = e;
        if (cJSON_IsObject(e)) {
            shape = cJSON_GetObjectItemCaseSensitive(e, "shape");
            const cJSON *dt = cJSON_GetObjectItemCaseSensitive(e, "dtype");
            const cJSON *dom = cJSON_GetObjectItemCaseSensitive(e, "domain");
            if (dt && !(cJSON_IsString(dt) &&
                        clops_dtype_from_name(dt->valuestring, &lt->dtype) == CLOPS_OK))
                return false;
            if (dom && !(cJSON_IsString(dom) && chk_domain_from_name(dom->valuestring, &lt->domain)))
                return false;
        }
        if (!hinted_shape(shape, lt))
            return false;
    }
    return a->nlist > 0;
}

/* Fills the tensor arguments of c from shape hint set `shapes` (an array of
 * per-input shapes, null for None; a tensor list's entry may list its
 * elements, see hinted_list) in a layout; false if malformed. */
static bool hinted_tensors(const chk_opinfo *info, const cJSON *shapes, chk_layout layout,
                           bool out_transposed, clops_dtype dt, chk_case *c)
{
    int pos = 0;
    for (int i = 0; i < info->nargs; i++) {
        chk_argval *a = &c->args[i];
        chk_role r = info->roles[i];
        a->role = r;
        chk_tspec *t = &a->t;
        if (r == CHK_ROLE_OUT) {
            t->dtype = dt;
            t->domain = info->arg_domain[i];
            t->from_result = info->functional != NULL;
            t->layout = out_transposed ? CHK_TRANSPOSED : CHK_CONTIGUOUS;
            if (!t->from_result)
                set_shape(t, 1, (const int64_t[]){0});
            int idx = 0;
            for (int j = 0; j < i; j++)
                idx += info->roles[j] == CHK_ROLE_OUT;
            t->result_index = idx;
            continue;
        }
        if (r != CHK_ROLE_INPUT && r != CHK_ROLE_MUTATED && r != CHK_ROLE_LIST)
            continue;
        const cJSON *s = cJSON_GetArrayItem(shapes, pos++);
        t->dtype = tensor_dtype(info, i, dt);
        t->domain = info->arg_domain[i];
        t->layout = layout;
        if (layout == CHK_EXPANDED && r != CHK_ROLE_INPUT)
            t->layout = CHK_CONTIGUOUS;
        if (!s || cJSON_IsNull(s)) {
            t->none = true;
            continue;
        }
        if (r == CHK_ROLE_LIST && cJSON_IsArray(s) && s->child && !cJSON_IsNumber(s->child)) {
            if (!hinted_list(s, t, a))
                return false;
            for (int k = 0; k < a->nlist; k++)
                c->expect_refusal |= !a->list[k].none && a->list[k].domain == PW_DOMAIN_BEYOND;
            continue;
        }
        c->expect_refusal |= t->domain == PW_DOMAIN_BEYOND;
        if (!hinted_shape(s, t))
            return false;
        if (r == CHK_ROLE_LIST) {
            a->nlist = 2;
            a->list[0] = a->list[1] = *t;
        }
    }
    return true;
}

/* The case name's shape part for hinted shapes: "5x7, 7x3". */
static void hinted_name(const chk_case *c, char *buf, size_t cap)
{
    size_t n = 0;
    buf[0] = '\0';
    for (int i = 0; i < c->nargs && n < cap; i++) {
        const chk_argval *a = &c->args[i];
        if (a->role == CHK_ROLE_LIST) {
            n += (size_t)snprintf(buf + n, cap - n, "%s[", n ? ", " : "");
            for (int k = 0; k < a->nlist && n < cap; k++) {
                const chk_tspec *lt = &a->list[k];
                char s[96];
                if (lt->none)
                    snprintf(s, sizeof s, "None");
                else
                    shape_text(s, sizeof s, lt->ndim, lt->sizes);
                n += (size_t)snprintf(buf + n, cap - n, "%s%s%s%s%s", k ? ", " : "", s,
                                      lt->dtype == CLOPS_BOOL && lt->dtype != a->t.dtype ? " bool"
                                                                                         : "",
                                      lt->domain != a->t.domain ? " " : "",
                                      lt->domain != a->t.domain ? chk_domain_name(lt->domain)
                                                                : "");
            }
            if (n < cap)
                n += (size_t)snprintf(buf + n, cap - n, "]");
            continue;
        }
        if (a->role != CHK_ROLE_INPUT && a->role != CHK_ROLE_MUTATED)
            continue;
        char s[96];
        if (a->t.none)
            snprintf(s, sizeof s, "None");
        else
            shape_text(s, sizeof s, a->t.ndim, a->t.sizes);
        n += (size_t)snprintf(buf + n, cap - n, "%s%s", n ? ", " : "", s);
    }
}

/* --- values ----------------------------------------------------------------------- */

/* The candidate values of every VALUE argument (hint lists), or one. */
typedef struct value_plan {
    const cJSON *lists[CHK_MAX_ARGS]; /* hint list or NULL */
    int counts[CHK_MAX_ARGS];
    int nvaried;                      /* arguments with more than one value */
} value_plan;

/* Collects the hint lists of the op's VALUE arguments. */
static void plan_values(const chk_opinfo *info, bool factory, value_plan *p)
{
    memset(p, 0, sizeof *p);
    for (int i = 0; i < info->nargs; i++) {
        p->counts[i] = 1;
        if (info->roles[i] != CHK_ROLE_VALUE)
            continue;
        if (factory && info->schema->args[i].type.base == SCHEMA_SCALAR_TYPE)
            continue;
        p->lists[i] = chk_hint_arg_values(info, info->schema->args[i].name);
        if (p->lists[i]) {
            p->counts[i] = cJSON_GetArraySize(p->lists[i]);
            if (p->counts[i] > 1)
                p->nvaried++;
        }
    }
}

/* The value choices of combination `combo`: choice[i] per argument.
 * Returns false when combo is past the last combination. */
static bool combination(const chk_opinfo *info, const value_plan *p, int combo, int *choice)
{
    long product = 1;
    for (int i = 0; i < info->nargs; i++) {
        choice[i] = 0;
        product *= p->counts[i];
    }
    if (product <= 8) {
        if (combo >= product)
            return false;
        for (int i = info->nargs - 1; i >= 0; i--) {
            choice[i] = combo % p->counts[i];
            combo /= p->counts[i];
        }
        return true;
    }
    /* One argument at a time: combination 0 is all first values; then each
     * argument's further values with the others at their first. */
    if (combo == 0)
        return true;
    combo--;
    for (int i = 0; i < info->nargs; i++) {
        if (combo < p->counts[i] - 1) {
            choice[i] = combo + 1;
            return true;
        }
        combo -= p->counts[i] - 1;
    }
    return false;
}

/* Fills the VALUE and DEVICE arguments of c; appends "name=value" of
 * varied arguments to the case name.  false (with why) when an argument
 * has no value. */
static bool fill_values(const chk_opinfo *info, const value_plan *p, const int *choice,
                        clops_dtype dt, bool factory, const chk_tspec *self, chk_case *c,
                        char *why, size_t cap)
{
    for (int i = 0; i < info->nargs; i++) {
        chk_argval *a = &c->args[i];
        if (info->roles[i] == CHK_ROLE_DEVICE) {
            a->role = CHK_ROLE_DEVICE;
            continue;
        }
        if (info->roles[i] != CHK_ROLE_VALUE)
            continue;
        bool ok;
        if (p->lists[i])
            ok = chk_value_from_hint(info, i, cJSON_GetArrayItem(p->lists[i], choice[i]), a, why,
                                     cap);
        else if (factory && info->schema->args[i].type.base == SCHEMA_SCALAR_TYPE)
            ok = chk_value_generic(info, i, self, dt, factory, a, why, cap);
        else
            ok = chk_value_default(info, i, a) ||
                 chk_value_generic(info, i, self, dt, factory, a, why, cap);
        if (!ok)
            return false;
        if (p->lists[i] && p->counts[i] > 1) {
            char text[96];
            chk_value_text(info, i, a, text, sizeof text);
            size_t len = strlen(c->name);
            snprintf(c->name + len, sizeof c->name - len, ", %s", text);
        }
    }
    return true;
}

/* The first tensor input's spec (what `size`-like values follow), or for a
 * factory a pseudo-spec of the factory's shape. */
static const chk_tspec *first_input(const chk_opinfo *info, const chk_case *c)
{
    for (int i = 0; i < info->nargs; i++)
        if ((info->roles[i] == CHK_ROLE_INPUT || info->roles[i] == CHK_ROLE_MUTATED) &&
            !c->args[i].t.none)
            return &c->args[i].t;
    return NULL;
}

/* The dtype label of a case: the distinct dtypes of its tensor inputs in
 * order ("float32", "float32,float16"), or the case dtype. */
static void dtype_label(const chk_opinfo *info, chk_case *c)
{
    snprintf(c->dtype_label, sizeof c->dtype_label, "%s", clops_dtype_name(c->dtype));
    bool mixed = false;
    for (int i = 0; i < info->nargs; i++)
        if ((info->roles[i] == CHK_ROLE_INPUT || info->roles[i] == CHK_ROLE_MUTATED) &&
            !c->args[i].t.none && c->args[i].t.dtype != c->dtype &&
            c->args[i].t.dtype != CLOPS_BOOL)
            mixed = true;
    if (!mixed)
        return;
    size_t n = 0;
    c->dtype_label[0] = '\0';
    uint32_t seen = 0;
    for (int i = 0; i < info->nargs && n < sizeof c->dtype_label; i++) {
        if (info->roles[i] != CHK_ROLE_INPUT && info->roles[i] != CHK_ROLE_MUTATED)
            continue;
        clops_dtype d = c->args[i].t.dtype;
        if (c->args[i].t.none || (seen & (1u << d)))
            continue;
        seen |= 1u << d;
        n += (size_t)snprintf(c->dtype_label + n, sizeof c->dtype_label - n, "%s%s",
                              n ? "," : "", clops_dtype_name(d));
    }
}

/* --- the case list ------------------------------------------------------------------ */

typedef struct case_list {
    chk_case *v;
    int n, cap;
} case_list;

/* Appends a zeroed case; NULL on out-of-memory. */
static chk_case *push_case(case_list *l)
{
    if (l->n == l->cap) {
        int cap = l->cap ? 2 * l->cap : 16;
        chk_case *v = realloc(l->v, sizeof *v * (size_t)cap);
        if (!v)
            return NULL;
        l->v = v;
        l->cap = cap;
    }
    chk_case *c = &l->v[l->n++];
    memset(c, 0, sizeof *c);
    return c;
}

/* Adds the cases of one layout (already in *proto) for the value
 * combinations: all of them when `all_values`, else the first only. */
static clops_status add_layout_cases(const chk_opinfo *info, const value_plan *p, bool all_values,
                                     bool factory, const chk_case *proto, case_list *l,
                                     char *why, size_t cap, bool *unfit)
{
    int choice[CHK_MAX_ARGS];
    for (int combo = 0; combination(info, p, combo, choice); combo++) {
        if (combo > 0 && !all_values)
            break;
        chk_case *c = push_case(l);
        if (!c)
            return clops__fail(CLOPS_HOST_OUT_OF_MEMORY, "check cases of %s", info->name);
        *c = *proto;
        const chk_tspec *self = first_input(info, c);
        if (!fill_values(info, p, choice, c->dtype, factory, self, c, why, cap)) {
            l->n--;
            *unfit = true;
            return CLOPS_OK;
        }
        dtype_label(info, c);
        seed_case(info, c);
    }
    return CLOPS_OK;
}

/* Cases of an op without tensor inputs (factories): the shape comes from
 * the `size` argument, taken from this list. */
static clops_status factory_cases(const chk_opinfo *info, chk_set set, clops_dtype dt,
                                  const value_plan *p, case_list *l, char *why, size_t cap,
                                  bool *unfit)
{
    static const int64_t s57[] = {5, 7}, s507[] = {5, 0, 7};
    const struct {
        int ndim;
        const int64_t *sizes;
        const char *name;
    } shapes[] = {{2, s57, "5x7"}, {0, NULL, "zero-dim"}, {3, s507, "5x0x7 zero-size"}};
    bool has_size = false;
    for (int i = 0; i < info->nargs; i++)
        has_size |= info->roles[i] == CHK_ROLE_VALUE && info->schema->args[i].type.is_list &&
                    strcmp(info->schema->args[i].name, "size") == 0;
    int nshapes = !has_size || set == CHK_SET_REPRESENTATIVE ? 1 : 3;
    for (int s = 0; s < nshapes && !*unfit; s++) {
        chk_case proto;
        memset(&proto, 0, sizeof proto);
        proto.dtype = dt;
        proto.nargs = info->nargs;
        snprintf(proto.name, sizeof proto.name, "%s", has_size ? shapes[s].name : "default");
        chk_tspec shape;
        memset(&shape, 0, sizeof shape);
        set_shape(&shape, shapes[s].ndim, shapes[s].sizes);
        for (int i = 0; i < info->nargs; i++)
            proto.args[i].role = info->roles[i];
        int choice[CHK_MAX_ARGS];
        for (int combo = 0; combination(info, p, combo, choice); combo++) {
            if (combo > 0 && s > 0 && set != CHK_SET_FULL)
                break;
            chk_case *c = push_case(l);
            if (!c)
                return clops__fail(CLOPS_HOST_OUT_OF_MEMORY, "check cases of %s", info->name);
            *c = proto;
            if (!fill_values(info, p, choice, dt, true, &shape, c, why, cap)) {
                l->n--;
                *unfit = true;
                break;
            }
            dtype_label(info, c);
            seed_case(info, c);
        }
    }
    return CLOPS_OK;
}

clops_status chk_cases(const chk_opinfo *info, chk_set set, clops_dtype dt, chk_case **cases,
                       int *n, char *why, size_t why_cap)
{
    *cases = NULL;
    *n = 0;
    char local[256];
    if (!why) {
        why = local;
        why_cap = sizeof local;
    }
    why[0] = '\0';
    if (info->skip[0]) {
        snprintf(why, why_cap, "%s", info->skip);
        return CLOPS_OK;
    }
    if (!(info->dtypes & (1u << dt)))
        return CLOPS_OK;
    bool factory = info->ninputs == 0;
    for (int i = 0; i < info->nargs; i++)
        factory &= info->roles[i] != CHK_ROLE_LIST;
    value_plan p;
    plan_values(info, factory, &p);
    case_list l = {NULL, 0, 0};
    clops_status st = CLOPS_OK;
    bool unfit = false;
    const cJSON *shapes = chk_hint(info, "shapes");
    if (factory) {
        st = factory_cases(info, set, dt, &p, &l, why, why_cap, &unfit);
    } else if (cJSON_IsArray(shapes) && cJSON_GetArraySize(shapes) > 0) {
        chk_layout layouts[] = {CHK_CONTIGUOUS, CHK_TRANSPOSED, CHK_SLICED, CHK_EXPANDED};
        int nl = set == CHK_SET_FULL ? 4 : 2;
        int ns = cJSON_GetArraySize(shapes);
        for (int li = 0; li <= nl && st == CLOPS_OK && !unfit; li++) {
            bool out_t = li == nl;
            if (out_t && info->nouts == 0)
                break;
            for (int s = 0; s < ns && st == CLOPS_OK && !unfit; s++) {
                if (out_t && s > 0)
                    break;
                chk_case proto;
                memset(&proto, 0, sizeof proto);
                proto.dtype = dt;
                proto.nargs = info->nargs;
                if (!hinted_tensors(info, cJSON_GetArrayItem(shapes, s),
                                    out_t ? CHK_CONTIGUOUS : layouts[li], out_t, dt, &proto)) {
                    st = clops__fail(CLOPS_INVALID_ARGUMENT, "%s: check hint 'shapes' entry %d is "
                                     "not a list of shapes", info->name, s);
                    break;
                }
                char sn[96];
                hinted_name(&proto, sn, sizeof sn);
                snprintf(proto.name, sizeof proto.name, "%s %s", sn,
                         out_t ? "out= transposed" : chk_layout_name(layouts[li]));
                st = add_layout_cases(info, &p, li == 0 || set == CHK_SET_FULL, false, &proto, &l,
                                      why, why_cap, &unfit);
            }
        }
    } else {
        bool first = true;
        for (int k = 0; k < K_COUNT && st == CLOPS_OK && !unfit; k++) {
            if (!set_has_kind(set, (kind)k, dt) || !kind_applies(info, (kind)k))
                continue;
            chk_case proto;
            memset(&proto, 0, sizeof proto);
            proto.dtype = dt;
            proto.nargs = info->nargs;
            snprintf(proto.name, sizeof proto.name, "%s", kind_names[k]);
            if (k == K_TRANSP && info->ninputs > 1)
                snprintf(proto.name, sizeof proto.name, "5x7x11 transposed + contiguous");
            default_tensors(info, (kind)k, dt, &proto);
            st = add_layout_cases(info, &p, first || set == CHK_SET_FULL, false, &proto, &l, why,
                                  why_cap, &unfit);
            first = false;
        }
    }
    if (st || unfit) {
        free(l.v);
        return st;
    }
    *cases = l.v;
    *n = l.n;
    return CLOPS_OK;
}
