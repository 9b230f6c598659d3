/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tools/check/check_family.c: the runner of the family benchmark
 * descriptors (check_family.h).  bench/torch_family.py is its PyTorch twin:
 * a change to the descriptor vocabulary goes into both.
 *
 * A descriptor, as JSON (bench/cases/<family>.yaml read by the caller):
 *
 *   family: reduce
 *   sizes: {N: {value: 8192, scale: sqrt}, B: {value: 32, scale: linear, min: 2}}
 *   peak: N*N                          elements of the copy-peak copy
 *   rows:
 *     - id: sum_rows_f32               the JSON rows' `case`
 *       torch_case: sum_rows           (optional) the PyTorch side's name
 *       op: sum.IntList_out            a registry name (aten overload)
 *       dtype: float32                 default dtype of tensors and outs
 *       inputs: {self: [N, N]}         tensor arguments: a shape, or
 *                                      {shape, dtype, fill, permute, step}
 *       args: {dim: [1], keepdim: false}
 *       outs: {out: int64}             out= dtypes (or {shape, dtype})
 *       unread: [self]                 inputs the op does not read
 *       bytes: 4*N*N + 4*N             models (expressions), optional
 *       flop: ...   keys: ...
 *
 * scale rules of a size symbol: sqrt (value / sqrt(S)), linear (value / S),
 * none; then `min`, and `multiple` (rounded down to a multiple).  fill:
 * ones (default), zeros, a number, uniform (values in (-1, 1)),
 * {randint: [lo, hi]} (integers in [lo, hi)), {bernoulli: p} (bool),
 * {result: OP, index: K} (result K of OP called with this row's arguments
 * of the same names: the indices of a max pooling for its backward).
 * permute: dims of a permuted view of the allocated shape (a channels-last
 * input is shape [B, H, W, C] with permute [0, 3, 1, 2]); step: [dim, k],
 * every k-th element of dim.  out= tensors start empty and the first
 * (untimed) call resizes them, as PyTorch's out= does.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clops/ops.h"
#include "core/tensor_impl.h"
#include "tools/check/check_family.h"
#include "tools/check/check_internal.h"

#define FAM_MAX_SIZES 32

struct chk_fam {
    cJSON *doc;
    const cJSON *rows;
    int nrows;
    int nsizes;
    char names[FAM_MAX_SIZES][24];
    double values[FAM_MAX_SIZES];
};

/* --- expressions ------------------------------------------------------------------ */

typedef struct expr_ctx {
    const chk_fam *f;
    const char *s, *p;
    char err[160];
} expr_ctx;

static double expr_sum(expr_ctx *c);

static void skip_space(expr_ctx *c)
{
    while (isspace((unsigned char)*c->p))
        c->p++;
}

/* A number, a symbol, min/max(a, b), a parenthesised expression or a
 * negated factor. */
static double expr_factor(expr_ctx *c)
{
    skip_space(c);
    if (*c->p == '(') {
        c->p++;
        double v = expr_sum(c);
        skip_space(c);
        if (*c->p != ')' && !c->err[0])
            snprintf(c->err, sizeof c->err, "')' expected at '%s'", c->p);
        else
            c->p++;
        return v;
    }
    if (*c->p == '-') {
        c->p++;
        return -expr_factor(c);
    }
    if (isdigit((unsigned char)*c->p) || *c->p == '.') {
        char *end = NULL;
        double v = strtod(c->p, &end);
        c->p = end;
        return v;
    }
    if (isalpha((unsigned char)*c->p) || *c->p == '_') {
        char name[24];
        size_t n = 0;
        while ((isalnum((unsigned char)*c->p) || *c->p == '_') && n + 1 < sizeof name)
            name[n++] = *c->p++;
        name[n] = '\0';
        skip_space(c);
        if ((strcmp(name, "min") == 0 || strcmp(name, "max") == 0) && *c->p == '(') {
            c->p++;
            double a = expr_sum(c);
            skip_space(c);
            if (*c->p != ',' && !c->err[0])
                snprintf(c->err, sizeof c->err, "',' expected in %s()", name);
            c->p++;
            double b = expr_sum(c);
            skip_space(c);
            if (*c->p != ')' && !c->err[0])
                snprintf(c->err, sizeof c->err, "')' expected after %s(a, b", name);
            c->p++;
            return name[1] == 'i' ? (a < b ? a : b) : (a > b ? a : b);
        }
        for (int i = 0; i < c->f->nsizes; i++)
            if (strcmp(c->f->names[i], name) == 0)
                return c->f->values[i];
        if (!c->err[0])
            snprintf(c->err, sizeof c->err, "unknown size symbol '%s'", name);
        return NAN;
    }
    if (!c->err[0])
        snprintf(c->err, sizeof c->err, "unexpected '%s'", c->p);
    return NAN;
}

static double expr_product(expr_ctx *c)
{
    double v = expr_factor(c);
    for (;;) {
        skip_space(c);
        if (*c->p == '*') {
            c->p++;
            v *= expr_factor(c);
        } else if (*c->p == '/') {
            c->p++;
            v /= expr_factor(c);
        } else {
            return v;
        }
    }
}

static double expr_sum(expr_ctx *c)
{
    double v = expr_product(c);
    for (;;) {
        skip_space(c);
        if (*c->p == '+') {
            c->p++;
            v += expr_product(c);
        } else if (*c->p == '-') {
            c->p++;
            v -= expr_product(c);
        } else {
            return v;
        }
    }
}

clops_status chk_fam_eval(const chk_fam *f, const cJSON *node, double *out)
{
    *out = NAN;
    if (cJSON_IsNumber(node)) {
        *out = node->valuedouble;
        return CLOPS_OK;
    }
    if (!cJSON_IsString(node))
        return clops__fail(CLOPS_INVALID_ARGUMENT, "bench descriptor: a number or an expression "
                           "expected");
    expr_ctx c = {f, node->valuestring, node->valuestring, ""};
    double v = expr_sum(&c);
    skip_space(&c);
    if (!c.err[0] && *c.p)
        snprintf(c.err, sizeof c.err, "unexpected '%s'", c.p);
    if (c.err[0])
        return clops__fail(CLOPS_INVALID_ARGUMENT, "bench descriptor: expression '%s': %s", c.s,
                           c.err);
    *out = v;
    return CLOPS_OK;
}

/* An expression as a size (truncated; negative is an error). */
static clops_status eval_size(const chk_fam *f, const cJSON *node, int64_t *out)
{
    double v = NAN;
    clops_status st = chk_fam_eval(f, node, &v);
    if (st)
        return st;
    if (!(v >= 0 && v < 9e18))
        return clops__fail(CLOPS_INVALID_ARGUMENT, "bench descriptor: size %g out of range", v);
    *out = (int64_t)v;
    return CLOPS_OK;
}

/* --- the descriptor ------------------------------------------------------------------ */

static const cJSON *member(const cJSON *o, const char *key)
{
    return cJSON_IsObject(o) ? cJSON_GetObjectItemCaseSensitive(o, key) : NULL;
}

static const char *member_str(const cJSON *o, const char *key)
{
    const cJSON *v = member(o, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

clops_status chk_fam_open(cJSON *doc, double scale, chk_fam **out)
{
    *out = NULL;
    chk_fam *f = calloc(1, sizeof *f);
    if (!f) {
        cJSON_Delete(doc);
        return clops__fail(CLOPS_HOST_OUT_OF_MEMORY, "bench descriptor");
    }
    f->doc = doc;
    if (scale < 1)
        scale = 1;
    clops_status st = CLOPS_OK;
    const char *fam = member_str(doc, "family");
    f->rows = member(doc, "rows");
    if (!fam || !cJSON_IsArray(f->rows))
        st = clops__fail(CLOPS_INVALID_ARGUMENT,
                         "bench descriptor: needs `family` (a name) and `rows` (a list)");
    const cJSON *sizes = member(doc, "sizes");
    for (const cJSON *s = sizes ? sizes->child : NULL; s && st == CLOPS_OK; s = s->next) {
        if (f->nsizes == FAM_MAX_SIZES || strlen(s->string) >= sizeof f->names[0]) {
            st = clops__fail(CLOPS_INVALID_ARGUMENT, "bench descriptor %s: too many sizes or "
                             "too long a name ('%s')", fam, s->string);
            break;
        }
        const char *rule = member_str(s, "scale");
        double v = NAN, div = 1, lo = 0, mult = 1;
        st = chk_fam_eval(f, member(s, "value"), &v);
        if (st == CLOPS_OK && member(s, "min"))
            st = chk_fam_eval(f, member(s, "min"), &lo);
        if (st == CLOPS_OK && member(s, "multiple"))
            st = chk_fam_eval(f, member(s, "multiple"), &mult);
        if (st)
            break;
        if (rule && strcmp(rule, "sqrt") == 0)
            div = sqrt(scale);
        else if (rule && strcmp(rule, "linear") == 0)
            div = scale;
        else if (rule && strcmp(rule, "none") != 0)
            st = clops__fail(CLOPS_INVALID_ARGUMENT, "bench descriptor %s: size %s: scale is "
                             "sqrt, linear or none, not '%s'", fam, s->string, rule);
        double x = floor(v / div);
        if (x < lo)
            x = lo;
        if (mult >= 1)
            x -= fmod(x, floor(mult));
        snprintf(f->names[f->nsizes], sizeof f->names[0], "%s", s->string);
        f->values[f->nsizes++] = x;
    }
    int i = 0;
    for (const cJSON *r = f->rows ? f->rows->child : NULL; r && st == CLOPS_OK; r = r->next, i++) {
        clops_dtype dt;
        if (!member_str(r, "id") || !member_str(r, "op") || !member_str(r, "dtype") ||
            clops_dtype_from_name(member_str(r, "dtype"), &dt) != CLOPS_OK)
            st = clops__fail(CLOPS_INVALID_ARGUMENT, "bench descriptor %s: row %d needs an `id`, "
                             "an `op` and a known `dtype`", fam, i);
    }
    f->nrows = i;
    if (st) {
        chk_fam_free(f);
        return st;
    }
    *out = f;
    return CLOPS_OK;
}

void chk_fam_free(chk_fam *f)
{
    if (!f)
        return;
    cJSON_Delete(f->doc);
    free(f);
}

const char *chk_fam_name(const chk_fam *f)
{
    return member_str(f->doc, "family");
}

int chk_fam_nrows(const chk_fam *f)
{
    return f->nrows;
}

static const cJSON *row_node(const chk_fam *f, int row)
{
    return cJSON_GetArrayItem(f->rows, row);
}

const char *chk_fam_row_id(const chk_fam *f, int row)
{
    return member_str(row_node(f, row), "id");
}

const char *chk_fam_row_torch_case(const chk_fam *f, int row)
{
    const char *t = member_str(row_node(f, row), "torch_case");
    return t ? t : chk_fam_row_id(f, row);
}

const char *chk_fam_row_op(const chk_fam *f, int row)
{
    return member_str(row_node(f, row), "op");
}

const char *chk_fam_row_dtype(const chk_fam *f, int row)
{
    return member_str(row_node(f, row), "dtype");
}

void chk_fam_sizes_text(const chk_fam *f, char *buf, size_t cap)
{
    size_t n = 0;
    buf[0] = '\0';
    for (int i = 0; i < f->nsizes && n < cap; i++)
        n += (size_t)snprintf(buf + n, cap - n, "%s%s = %lld", i ? ", " : "", f->names[i],
                              (long long)f->values[i]);
}

int64_t chk_fam_peak_elems(const chk_fam *f)
{
    int64_t n = 1 << 24;
    const cJSON *p = member(f->doc, "peak");
    if (p && eval_size(f, p, &n) != CLOPS_OK)
        n = 1 << 24;
    n -= n % 4;
    return n < 4 ? 4 : n;
}

/* --- --list text ------------------------------------------------------------------ */

/* Appends a JSON value as bench/torch_family.py's value_text writes it:
 * numbers with %g, strings bare, lists in brackets. */
static void value_text(strbuf *sb, const cJSON *v)
{
    if (cJSON_IsNumber(v)) {
        sb_printf(sb, "%g", v->valuedouble);
    } else if (cJSON_IsString(v)) {
        sb_append(sb, v->valuestring);
    } else if (cJSON_IsBool(v)) {
        sb_append(sb, cJSON_IsTrue(v) ? "true" : "false");
    } else if (cJSON_IsArray(v)) {
        sb_putc(sb, '[');
        for (const cJSON *e = v->child; e; e = e->next) {
            if (e != v->child)
                sb_putc(sb, ',');
            value_text(sb, e);
        }
        sb_putc(sb, ']');
    } else {
        sb_append(sb, "null");
    }
}

/* The shape node of a tensor spec (a list, or a map's `shape`). */
static const cJSON *spec_shape(const cJSON *spec)
{
    return cJSON_IsArray(spec) ? spec : member(spec, "shape");
}

/* Appends one tensor spec: [4096,4096]:float32.permute(..)~fill. */
static clops_status spec_text(const chk_fam *f, strbuf *sb, const cJSON *spec, const char *dt)
{
    const cJSON *shape = spec_shape(spec);
    if (!cJSON_IsArray(shape))
        return clops__fail(CLOPS_INVALID_ARGUMENT, "bench descriptor: a tensor needs a shape");
    sb_putc(sb, '[');
    for (const cJSON *d = shape->child; d; d = d->next) {
        int64_t v = 0;
        clops_status st = eval_size(f, d, &v);
        if (st)
            return st;
        sb_printf(sb, "%s%lld", d == shape->child ? "" : ",", (long long)v);
    }
    sb_putc(sb, ']');
    const char *sdt = member_str(spec, "dtype");
    sb_printf(sb, ":%s", sdt ? sdt : dt);
    if (member(spec, "permute")) {
        sb_append(sb, ".permute");
        value_text(sb, member(spec, "permute"));
    }
    if (member(spec, "step")) {
        sb_append(sb, ".step");
        value_text(sb, member(spec, "step"));
    }
    const cJSON *fill = member(spec, "fill");
    if (fill) {
        sb_putc(sb, '~');
        if (cJSON_IsObject(fill)) {
            for (const cJSON *k = fill->child; k; k = k->next) {
                sb_printf(sb, "%s%s=", k == fill->child ? "" : ",", k->string);
                /* bounds are expressions: their values */
                double v;
                if (cJSON_IsArray(k)) {
                    sb_putc(sb, '[');
                    for (const cJSON *e = k->child; e; e = e->next) {
                        clops_status st = chk_fam_eval(f, e, &v);
                        if (st)
                            return st;
                        sb_printf(sb, "%s%g", e == k->child ? "" : ",", v);
                    }
                    sb_putc(sb, ']');
                } else {
                    value_text(sb, k);
                }
            }
        } else {
            value_text(sb, fill);
        }
    }
    return CLOPS_OK;
}

clops_status chk_fam_row_text(const chk_fam *f, int row, char *buf, size_t cap)
{
    const cJSON *r = row_node(f, row);
    strbuf sb = STRBUF_INIT;
    const char *dt = member_str(r, "dtype");
    sb_printf(&sb, "%s op=%s dtype=%s", member_str(r, "id"), member_str(r, "op"), dt);
    clops_status st = CLOPS_OK;
    const cJSON *inputs = member(r, "inputs");
    for (const cJSON *in = inputs ? inputs->child : NULL; in && st == CLOPS_OK; in = in->next) {
        sb_printf(&sb, " %s=", in->string);
        /* a list of tensors: its elements are specs (shape lists or
         * maps), where a tensor's own spec is a list of sizes */
        bool list = cJSON_IsArray(in) && (cJSON_IsArray(in->child) || cJSON_IsObject(in->child));
        if (list) {
            sb_putc(&sb, '{');
            for (const cJSON *e = in->child; e && st == CLOPS_OK; e = e->next) {
                if (e != in->child)
                    sb_putc(&sb, ';');
                st = spec_text(f, &sb, e, dt);
            }
            sb_putc(&sb, '}');
        } else {
            st = spec_text(f, &sb, in, dt);
        }
    }
    const cJSON *args = member(r, "args");
    for (const cJSON *a = args ? args->child : NULL; a; a = a->next) {
        sb_printf(&sb, " %s=", a->string);
        value_text(&sb, a);
    }
    const cJSON *outs = member(r, "outs");
    for (const cJSON *o = outs ? outs->child : NULL; o && st == CLOPS_OK; o = o->next) {
        sb_printf(&sb, " out:%s=", o->string);
        if (cJSON_IsString(o))
            sb_append(&sb, o->valuestring);
        else
            st = spec_text(f, &sb, o, dt);
    }
    static const char *const models[] = {"bytes", "flop", "keys"};
    for (int m = 0; m < 3 && st == CLOPS_OK; m++) {
        const cJSON *e = member(r, models[m]);
        double v;
        if (e && (st = chk_fam_eval(f, e, &v)) == CLOPS_OK)
            sb_printf(&sb, " %s=%.12g", models[m], v);
    }
    if (st == CLOPS_OK)
        st = sb_finish(&sb, "bench descriptor: row text");
    if (st == CLOPS_OK)
        snprintf(buf, cap, "%s", sb_str(&sb));
    sb_free(&sb);
    if (st)
        return clops__error_prefix(st, "bench descriptor %s row %s", chk_fam_name(f),
                                   member_str(r, "id"));
    return CLOPS_OK;
}

/* --- materialised rows ---------------------------------------------------------------- */

struct chk_fam_row {
    const chk_fam *f;
    const cJSON *node;
    chk_opinfo info;
    clops_device *dev;
    clops_dtype dtype;
    chk_argval argv[CHK_MAX_ARGS];
    clops_value vals[CHK_MAX_ARGS];
    clops_tensor *tensors[CHK_MAX_ARGS];
    clops_tensor *lists[CHK_MAX_ARGS][CHK_MAX_LIST];
    double out_bytes;
};

/* Host values for a fill that is not a constant. */
static clops_status host_fill(const chk_fam *f, const cJSON *fill, clops_dtype dt, int64_t n,
                              uint64_t seed, void **out)
{
    size_t es = clops_dtype_size(dt);
    if (n > 0 && (uint64_t)n > SIZE_MAX / es)
        return clops__fail(CLOPS_INVALID_ARGUMENT, "bench: %lld elements overflow",
                           (long long)n);
    void *buf = malloc(n ? (size_t)n * es : 1);
    if (!buf)
        return clops__fail(CLOPS_HOST_OUT_OF_MEMORY, "bench: %lld elements", (long long)n);
    chk_rng r = chk_rng_seeded(seed);
    clops_status st = CLOPS_OK;
    const cJSON *ri = member(fill, "randint"), *be = member(fill, "bernoulli");
    if (cJSON_IsString(fill) && strcmp(fill->valuestring, "uniform") == 0) {
        chk_fill(buf, n, dt, PW_DOMAIN_UNIT, &r);
    } else if (cJSON_GetArraySize(ri) == 2 && (dt == CLOPS_INT64 || dt == CLOPS_INT32)) {
        double lo, hi;
        st = chk_fam_eval(f, cJSON_GetArrayItem(ri, 0), &lo);
        if (st == CLOPS_OK)
            st = chk_fam_eval(f, cJSON_GetArrayItem(ri, 1), &hi);
        if (st == CLOPS_OK && !(hi > lo))
            st = clops__fail(CLOPS_INVALID_ARGUMENT, "bench: randint needs lo < hi");
        for (int64_t i = 0; st == CLOPS_OK && i < n; i++) {
            int64_t v = chk_rng_range(&r, (int64_t)lo, (int64_t)hi - 1);
            if (dt == CLOPS_INT64)
                ((int64_t *)buf)[i] = v;
            else
                ((int32_t *)buf)[i] = (int32_t)v;
        }
    } else if (cJSON_IsNumber(be) && dt == CLOPS_BOOL) {
        for (int64_t i = 0; i < n; i++)
            ((uint8_t *)buf)[i] = chk_rng_uniform(&r) < be->valuedouble;
    } else {
        char *t = cJSON_PrintUnformatted(fill);
        st = clops__fail(CLOPS_INVALID_ARGUMENT, "bench: fill %s does not fit dtype %s",
                         t ? t : "?", clops_dtype_name(dt));
        free(t);
    }
    if (st) {
        free(buf);
        return st;
    }
    *out = buf;
    return CLOPS_OK;
}

/* Makes the tensor of one spec on the row's device (fills other than
 * `result`). */
static clops_status make_tensor(chk_fam_row *r, const cJSON *spec, const char *what,
                                clops_tensor **out)
{
    *out = NULL;
    const cJSON *shape = spec_shape(spec);
    int64_t sizes[CLOPS_MAX_DIMS];
    int nd = 0;
    clops_status st = CLOPS_OK;
    if (!cJSON_IsArray(shape) || cJSON_GetArraySize(shape) > CLOPS_MAX_DIMS)
        return clops__fail(CLOPS_INVALID_ARGUMENT, "%s: needs a shape", what);
    for (const cJSON *d = shape->child; d && st == CLOPS_OK; d = d->next)
        st = eval_size(r->f, d, &sizes[nd++]);
    if (st)
        return st;
    clops_dtype dt = r->dtype;
    const char *sdt = member_str(spec, "dtype");
    if (sdt && clops_dtype_from_name(sdt, &dt) != CLOPS_OK)
        return clops__fail(CLOPS_INVALID_ARGUMENT, "%s: unknown dtype '%s'", what, sdt);
    const cJSON *fill = member(spec, "fill");
    clops_tensor *t = NULL;
    if (!fill || cJSON_IsNumber(fill) ||
        (cJSON_IsString(fill) && (strcmp(fill->valuestring, "ones") == 0 ||
                                  strcmp(fill->valuestring, "zeros") == 0))) {
        double v = cJSON_IsNumber(fill) ? fill->valuedouble
                   : fill && strcmp(fill->valuestring, "zeros") == 0 ? 0.0
                                                                     : 1.0;
        clops_scalar s = clops_dtype_is_floating(dt) || v != floor(v) ? clops_scalar_float(v)
                                                                      : clops_scalar_int((int64_t)v);
        st = clops_full(r->dev, dt, nd, sizes, s, &t);
    } else if ((st = check_sizes(what, nd, sizes)) == CLOPS_OK) {
        int64_t n = chk_numel(nd, sizes); /* check_sizes: no overflow */
        void *buf = NULL;
        uint64_t seed = chk_hash_str(chk_hash_str(CHK_HASH_INIT, member_str(r->node, "id")), what);
        st = host_fill(r->f, fill, dt, n, seed, &buf);
        if (st == CLOPS_OK)
            st = clops_from_host(r->dev, dt, nd, sizes, buf, (size_t)n * clops_dtype_size(dt), &t);
        free(buf);
    }
    const cJSON *perm = member(spec, "permute"), *step = member(spec, "step");
    if (st == CLOPS_OK && perm) {
        int64_t dims[CLOPS_MAX_DIMS];
        int k = 0;
        for (const cJSON *e = cJSON_IsArray(perm) ? perm->child : NULL; e && k < CLOPS_MAX_DIMS;
             e = e->next)
            dims[k++] = (int64_t)e->valuedouble;
        clops_tensor *v = NULL;
        st = clops_permute(t, dims, k, &v);
        clops_tensor_release(t);
        t = v;
    }
    if (st == CLOPS_OK && step) {
        if (cJSON_GetArraySize(step) != 2) {
            st = clops__fail(CLOPS_INVALID_ARGUMENT, "%s: step is [dim, k]", what);
        } else {
            clops_tensor *v = NULL;
            st = clops_slice(t, (int64_t)cJSON_GetArrayItem(step, 0)->valuedouble, NULL, NULL,
                             (int64_t)cJSON_GetArrayItem(step, 1)->valuedouble, &v);
            clops_tensor_release(t);
            t = v;
        }
    }
    if (st) {
        clops_tensor_release(t);
        return clops__error_prefix(st, "%s", what);
    }
    *out = t;
    return CLOPS_OK;
}

/* Fills an input from a result of another op called with the row's
 * arguments of the same names ({result: OP, index: K}). */
static clops_status result_fill(chk_fam_row *r, const cJSON *fill, const char *what,
                                clops_tensor **out)
{
    *out = NULL;
    const clops_op *op = NULL;
    const char *name = member_str(fill, "result");
    const cJSON *idx = member(fill, "index");
    int k = cJSON_IsNumber(idx) ? (int)idx->valuedouble : 0;
    if (!name || clops_op_find(name, &op) != CLOPS_OK)
        return clops__fail(CLOPS_INVALID_ARGUMENT, "%s: fill result: no op '%s'", what,
                           name ? name : "?");
    chk_opinfo hi;
    clops_status st = chk_opinfo_init(op, &hi);
    clops_value args[CHK_MAX_ARGS], rets[CHK_MAX_OUTPUTS];
    chk_argval defs[CHK_MAX_ARGS];
    int nrets = op->schema->nrets;
    if (st == CLOPS_OK && (hi.nargs > CHK_MAX_ARGS || nrets > CHK_MAX_OUTPUTS || k >= nrets))
        st = clops__fail(CLOPS_INVALID_ARGUMENT, "%s: fill result: %s has no result %d", what,
                         name, k);
    for (int j = 0; st == CLOPS_OK && j < hi.nargs; j++) {
        int found = -1;
        for (int i = 0; i < r->info.nargs; i++)
            if (strcmp(r->info.schema->args[i].name, hi.schema->args[j].name) == 0 &&
                (r->info.roles[i] != CHK_ROLE_INPUT || r->tensors[i]))
                found = i;
        if (found >= 0)
            args[j] = r->vals[found];
        else if (hi.roles[j] == CHK_ROLE_DEVICE)
            args[j] = clops_value_device(r->dev);
        else if (chk_value_default(&hi, j, &defs[j]))
            args[j] = chk_arg_value(&defs[j]);
        else
            st = clops__fail(CLOPS_INVALID_ARGUMENT, "%s: fill result: %s needs '%s'", what,
                             name, hi.schema->args[j].name);
    }
    for (int i = 0; i < nrets && i < CHK_MAX_OUTPUTS; i++)
        rets[i] = clops_value_none();
    if (st == CLOPS_OK)
        st = clops_call_boxed(op, args, hi.nargs, rets, nrets);
    if (st == CLOPS_OK && rets[k].tag == CLOPS_V_TENSOR) {
        *out = rets[k].v.t;
        rets[k] = clops_value_none();
    } else if (st == CLOPS_OK) {
        st = clops__fail(CLOPS_INVALID_ARGUMENT, "%s: result %d of %s is not a tensor", what, k,
                         name);
    }
    for (int i = 0; i < nrets && i < CHK_MAX_OUTPUTS; i++)
        clops_value_clear(&rets[i]);
    chk_opinfo_free(&hi);
    return st;
}

/* Whether a JSON list of names holds name. */
static bool names_hold(const cJSON *list, const char *name)
{
    const cJSON *e = NULL;
    cJSON_ArrayForEach(e, list)
    {
        if (cJSON_IsString(e) && strcmp(e->valuestring, name) == 0)
            return true;
    }
    return false;
}

/* Every key of a map member must name a schema argument. */
static clops_status check_names(const chk_fam_row *r, const char *field)
{
    const cJSON *m = member(r->node, field);
    for (const cJSON *k = m ? m->child : NULL; k; k = k->next) {
        bool found = false;
        for (int i = 0; i < r->info.nargs; i++)
            found |= strcmp(r->info.schema->args[i].name, k->string) == 0;
        if (!found)
            return clops__fail(CLOPS_INVALID_ARGUMENT, "%s: %s: '%s' is no argument of %s",
                               member_str(r->node, "id"), field, k->string, r->info.name);
    }
    return CLOPS_OK;
}

/* A copy of an int or float argument's value with its expressions (strings
 * other than inf, -inf, nan) evaluated, lists element by element. */
static clops_status eval_numbers(const chk_fam *f, const cJSON *v, cJSON **out)
{
    *out = NULL;
    clops_status st = CLOPS_OK;
    if (cJSON_IsArray(v)) {
        cJSON *a = cJSON_CreateArray();
        for (const cJSON *e = v->child; e && a && st == CLOPS_OK; e = e->next) {
            cJSON *x = NULL;
            st = eval_numbers(f, e, &x);
            if (x)
                cJSON_AddItemToArray(a, x);
        }
        *out = a;
    } else if (cJSON_IsString(v) && strcmp(v->valuestring, "inf") != 0 &&
               strcmp(v->valuestring, "-inf") != 0 && strcmp(v->valuestring, "nan") != 0) {
        double x = NAN;
        st = chk_fam_eval(f, v, &x);
        *out = cJSON_CreateNumber(x);
    } else {
        *out = cJSON_Duplicate(v, true);
    }
    if (st == CLOPS_OK && !*out)
        st = clops__fail(CLOPS_HOST_OUT_OF_MEMORY, "bench: an argument value");
    if (st) {
        cJSON_Delete(*out);
        *out = NULL;
    }
    return st;
}

/* Builds argument i (pass 0: all but `result` fills; pass 1: those). */
static clops_status build_arg(chk_fam_row *r, int i, int pass)
{
    const char *name = r->info.schema->args[i].name;
    const char *id = member_str(r->node, "id");
    char what[160];
    snprintf(what, sizeof what, "%s: %s", id, name);
    const cJSON *spec = member(member(r->node, "inputs"), name);
    chk_role role = r->info.roles[i];
    bool later = member(member(spec, "fill"), "result") != NULL;
    if ((pass == 1) != later && (role == CHK_ROLE_INPUT || role == CHK_ROLE_MUTATED))
        return CLOPS_OK;
    if (pass == 1 && role != CHK_ROLE_INPUT && role != CHK_ROLE_MUTATED)
        return CLOPS_OK;
    clops_status st = CLOPS_OK;
    switch (role) {
    case CHK_ROLE_INPUT:
    case CHK_ROLE_MUTATED:
        if (!spec) {
            if (r->info.schema->args[i].type.optional) {
                r->vals[i] = clops_value_none();
                return CLOPS_OK;
            }
            return clops__fail(CLOPS_INVALID_ARGUMENT, "%s: no input given", what);
        }
        st = later ? result_fill(r, member(spec, "fill"), what, &r->tensors[i])
                   : make_tensor(r, spec, what, &r->tensors[i]);
        r->vals[i] = clops_value_tensor(r->tensors[i]);
        return st;
    case CHK_ROLE_LIST: {
        int n = 0;
        const cJSON *e = NULL;
        cJSON_ArrayForEach(e, spec)
        {
            if (n == CHK_MAX_LIST)
                return clops__fail(CLOPS_INVALID_ARGUMENT, "%s: more than %d tensors", what,
                                   CHK_MAX_LIST);
            if ((st = make_tensor(r, e, what, &r->lists[i][n])) != CLOPS_OK)
                return st;
            n++;
        }
        if (n == 0)
            return clops__fail(CLOPS_INVALID_ARGUMENT, "%s: needs a list of tensors", what);
        r->vals[i].tag = CLOPS_V_TENSOR_LIST;
        r->vals[i].v.tensors.data = r->lists[i];
        r->vals[i].v.tensors.len = n;
        return CLOPS_OK;
    }
    case CHK_ROLE_OUT: {
        const cJSON *o = member(member(r->node, "outs"), name);
        if (cJSON_IsObject(o)) {
            st = make_tensor(r, o, what, &r->tensors[i]);
        } else {
            clops_dtype dt = r->dtype;
            if (cJSON_IsString(o) && clops_dtype_from_name(o->valuestring, &dt) != CLOPS_OK)
                return clops__fail(CLOPS_INVALID_ARGUMENT, "%s: unknown dtype '%s'", what,
                                   o->valuestring);
            int64_t zero = 0;
            st = clops_empty(r->dev, dt, 1, &zero, &r->tensors[i]);
        }
        r->vals[i] = clops_value_tensor(r->tensors[i]);
        return st;
    }
    case CHK_ROLE_DEVICE:
        r->vals[i] = clops_value_device(r->dev);
        return CLOPS_OK;
    default: {
        const cJSON *v = member(member(r->node, "args"), name);
        schema_base base = r->info.schema->args[i].type.base;
        cJSON *evaluated = NULL;
        if (v && (base == SCHEMA_INT || base == SCHEMA_SYMINT || base == SCHEMA_FLOAT)) {
            st = eval_numbers(r->f, v, &evaluated);
            if (st)
                return clops__error_prefix(st, "%s", what);
            v = evaluated;
        }
        char why[256] = "";
        bool ok = v ? chk_value_from_hint(&r->info, i, v, &r->argv[i], why, sizeof why)
                    : chk_value_default(&r->info, i, &r->argv[i]);
        cJSON_Delete(evaluated);
        if (!ok)
            return clops__fail(CLOPS_INVALID_ARGUMENT, "%s: %s", what,
                               v ? why : "no value given and no schema default");
        r->vals[i] = chk_arg_value(&r->argv[i]);
        return CLOPS_OK;
    }
    }
}

clops_status chk_fam_prepare(const chk_fam *f, int row, clops_device *dev, chk_fam_row **out)
{
    *out = NULL;
    if (row < 0 || row >= f->nrows)
        return clops__fail(CLOPS_INVALID_ARGUMENT, "bench descriptor: no row %d", row);
    chk_fam_row *r = calloc(1, sizeof *r);
    if (!r)
        return clops__fail(CLOPS_HOST_OUT_OF_MEMORY, "bench: a row");
    r->f = f;
    r->node = row_node(f, row);
    r->dev = dev;
    clops_dtype_from_name(member_str(r->node, "dtype"), &r->dtype);
    const clops_op *op = NULL;
    clops_status st = clops_op_find(member_str(r->node, "op"), &op);
    if (st == CLOPS_OK)
        st = chk_opinfo_init(op, &r->info);
    if (st == CLOPS_OK && r->info.nargs > CHK_MAX_ARGS)
        st = clops__fail(CLOPS_INVALID_ARGUMENT, "%s: too many arguments", r->info.name);
    static const char *const fields[] = {"inputs", "args", "outs"};
    for (int k = 0; k < 3 && st == CLOPS_OK; k++)
        st = check_names(r, fields[k]);
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; st == CLOPS_OK && i < r->info.nargs; i++)
            st = build_arg(r, i, pass);
    if (st) {
        clops_status s2 = clops__error_prefix(st, "bench %s", member_str(r->node, "id"));
        chk_fam_row_free(r);
        return s2;
    }
    *out = r;
    return CLOPS_OK;
}

clops_status chk_fam_call(chk_fam_row *r)
{
    int nrets = r->info.schema->nrets;
    clops_value rets[CHK_MAX_OUTPUTS];
    if (nrets > CHK_MAX_OUTPUTS)
        return clops__fail(CLOPS_INVALID_ARGUMENT, "%s: too many returns", r->info.name);
    for (int i = 0; i < nrets; i++)
        rets[i] = clops_value_none();
    clops_status st = clops_call_boxed(r->info.op, r->vals, r->info.nargs, rets, nrets);
    double b = 0;
    for (int i = 0; st == CLOPS_OK && i < nrets; i++)
        if (rets[i].tag == CLOPS_V_TENSOR && !r->info.schema->rets[i].alias.present)
            b += (double)clops_tensor_numel(rets[i].v.t) *
                 (double)clops_dtype_size(clops_tensor_dtype(rets[i].v.t));
    for (int i = 0; i < r->info.nargs; i++)
        if ((r->info.roles[i] == CHK_ROLE_OUT || r->info.roles[i] == CHK_ROLE_MUTATED) &&
            r->tensors[i])
            b += (double)clops_tensor_numel(r->tensors[i]) *
                 (double)clops_dtype_size(clops_tensor_dtype(r->tensors[i]));
    if (st == CLOPS_OK)
        r->out_bytes = b;
    for (int i = 0; i < nrets; i++)
        clops_value_clear(&rets[i]);
    return st;
}

void chk_fam_model(const chk_fam_row *r, double *bytes, double *flop, double *keys)
{
    double v[3] = {NAN, NAN, NAN};
    static const char *const models[] = {"bytes", "flop", "keys"};
    for (int m = 0; m < 3; m++) {
        const cJSON *e = member(r->node, models[m]);
        if (e && chk_fam_eval(r->f, e, &v[m]) != CLOPS_OK)
            v[m] = NAN;
    }
    if (!member(r->node, "bytes")) {
        const cJSON *unread = member(r->node, "unread");
        double b = r->out_bytes;
        for (int i = 0; i < r->info.nargs; i++) {
            const char *name = r->info.schema->args[i].name;
            chk_role role = r->info.roles[i];
            if (names_hold(unread, name))
                continue;
            if ((role == CHK_ROLE_INPUT || role == CHK_ROLE_MUTATED) && r->tensors[i])
                b += (double)clops_tensor_numel(r->tensors[i]) *
                     (double)clops_dtype_size(clops_tensor_dtype(r->tensors[i]));
            for (int k = 0; role == CHK_ROLE_LIST && k < CHK_MAX_LIST && r->lists[i][k]; k++)
                b += (double)clops_tensor_numel(r->lists[i][k]) *
                     (double)clops_dtype_size(clops_tensor_dtype(r->lists[i][k]));
        }
        v[0] = b;
    }
    *bytes = v[0];
    *flop = v[1];
    *keys = v[2];
}

void chk_fam_row_free(chk_fam_row *r)
{
    if (!r)
        return;
    for (int i = 0; i < CHK_MAX_ARGS; i++) {
        clops_tensor_release(r->tensors[i]);
        for (int k = 0; k < CHK_MAX_LIST; k++)
            clops_tensor_release(r->lists[i][k]);
    }
    chk_opinfo_free(&r->info);
    free(r);
}
