/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tools/opgen/opgen_pw.c: the pointwise op records of the inventory.
 *
 * An inventory entry `pointwise_op: NAME` describes the pw_op record
 * pw_op_NAME of the pointwise engine (codegen_pointwise/pw.h) as data: its
 * operands, parameters, promotion, accepted dtypes, an OpenCL C expression
 * (`expr:`, and `expr_<class>:` where a dtype class needs another), helper
 * source and the checks' domain and tolerance.  Its C reference is not
 * named here: ref/ keys its own scalar functions by the op's name
 * (ref_pw_lookup, ref/ref_pw.h), so the oracle shares no table with the
 * engine.
 * gen_pw_load reads and checks one entry into C initialiser text;
 * gen_pw_emit writes every record into codegen_pointwise/pw_ops_generated.c
 * of the generated folder, which the library compiles with the engine.  The
 * keys are listed in docs/operator-inventory.md.
 */
#include <stdlib.h>
#include <string.h>

#include "codegen_pointwise/promote.h"
#include "tools/opgen/opgen.h"

/* Index of s in a NULL-terminated list, or -1. */
static int index_of(const char *const *list, const char *s)
{
    for (int i = 0; s && list[i]; i++)
        if (strcmp(list[i], s) == 0)
            return i;
    return -1;
}

/* The spellings of the record's enums, in the order of their C enums. */
static const char *const role_names[] = {"common", "bool", "own", NULL};
static const char *const role_enums[] = {"PW_ROLE_COMMON", "PW_ROLE_BOOL", "PW_ROLE_OWN"};
static const char *const kind_names[] = {"compute", "float", "int", NULL};
static const char *const kind_enums[] = {"PW_PARAM_COMPUTE", "PW_PARAM_FLOAT", "PW_PARAM_INT"};
static const char *const class_keys[] = {"expr_bool", "expr_uint", "expr_sint", "expr_float",
                                         NULL};
static const char *const class_enums[] = {"PW_CLASS_BOOL", "PW_CLASS_UINT", "PW_CLASS_SINT",
                                          "PW_CLASS_FLOAT"};
static const char *const domain_names[] = {"any", "positive", "unit", "ge1",
                                           "small", "prob", "index", "negindex", "beyond", NULL};
static const char *const domain_enums[] = {
    "PW_DOMAIN_ANY",   "PW_DOMAIN_POSITIVE", "PW_DOMAIN_UNIT", "PW_DOMAIN_GE1",
    "PW_DOMAIN_SMALL", "PW_DOMAIN_PROB",     "PW_DOMAIN_INDEX", "PW_DOMAIN_NEGINDEX",
    "PW_DOMAIN_BEYOND"};
#define GEN_PW_NAME(e, name) name,
#define GEN_PW_ENUM(e, name) "PW_PROMOTE_" #e,
static const char *const promotion_names[] = {PW_PROMOTION_LIST(GEN_PW_NAME) NULL};
static const char *const promotion_enums[] = {PW_PROMOTION_LIST(GEN_PW_ENUM)};
#define GEN_DT_NAME(e, name, size) name,
#define GEN_DT_ENUM(e, name, size) "CLOPS_" #e,
static const char *const dtype_names[] = {CLOPS_DTYPE_LIST(GEN_DT_NAME) NULL};
static const char *const dtype_enums[] = {CLOPS_DTYPE_LIST(GEN_DT_ENUM)};
/* Named dtype sets of `dtypes:` (pw.h's masks). */
static const char *const set_names[] = {"all", "nobool", "ints", "floats", "bool", NULL};
static const char *const set_masks[] = {"PW_DT_ALL", "PW_DT_NOBOOL", "PW_DT_INTS",
                                        "PW_DT_FLOATS", "PW_DT_BOOL"};

static const char *const pw_keys[] = {
    "pointwise_op", "inputs",        "params",       "promotion", "dtypes",  "expr",
    "expr_bool",    "expr_uint",     "expr_sint",    "expr_float", "helpers",
    "ref_same_precision", "fixed_result", "scalar_opmath", "lanewise", "vector_expr",
    "domain",       "ulp",           NULL};

/* Appends s as a C string literal, one literal per source line. */
static void c_literal(strbuf *sb, const char *s, const char *indent)
{
    sb_putc(sb, '"');
    for (const char *p = s; *p; p++) {
        if (*p == '"' || *p == '\\')
            sb_printf(sb, "\\%c", *p);
        else if (*p == '\n')
            sb_printf(sb, p[1] ? "\\n\"\n%s\"" : "\\n", indent);
        else if (*p == '\t')
            sb_append(sb, "\\t");
        else
            sb_putc(sb, *p);
    }
    sb_putc(sb, '"');
}

/* A C identifier (the reference function's name). */
static bool is_ident(const char *s)
{
    if (!s || !*s || !(*s == '_' || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z')))
        return false;
    for (; *s; s++)
        if (!(*s == '_' || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
              (*s >= '0' && *s <= '9')))
            return false;
    return true;
}

/* `true` / `false` into *out; 1 for anything else. */
static int read_bool(yaml_document_t *doc, yaml_node_t *n, bool *out)
{
    const char *v = gen_scalar(doc, n);
    if (!n) {
        *out = false;
        return 0;
    }
    if (v && strcmp(v, "true") == 0)
        *out = true;
    else if (v && strcmp(v, "false") == 0)
        *out = false;
    else
        return 1;
    return 0;
}

/* `dtypes:` as a C mask expression: a set name or dtype name, or a list of
 * them (united). */
static int read_dtypes(yaml_document_t *doc, yaml_node_t *n, strbuf *mask)
{
    yaml_node_t *one[1] = {n};
    yaml_node_t **items = one;
    size_t count = 1;
    yaml_node_t *list[16];
    if (n && n->type == YAML_SEQUENCE_NODE) {
        count = 0;
        for (yaml_node_item_t *it = n->data.sequence.items.start;
             it < n->data.sequence.items.top; it++) {
            if (count == sizeof list / sizeof list[0])
                return 1;
            list[count++] = yaml_document_get_node(doc, *it);
        }
        items = list;
    }
    if (count == 0)
        return 1;
    for (size_t i = 0; i < count; i++) {
        const char *v = gen_scalar(doc, items[i]);
        int s = index_of(set_names, v), d = index_of(dtype_names, v);
        if (s < 0 && d < 0)
            return 1;
        if (i)
            sb_append(mask, " | ");
        if (s >= 0)
            sb_append(mask, set_masks[s]);
        else
            sb_printf(mask, "PW_DT(%s)", dtype_enums[d]);
    }
    return 0;
}

/* `helpers:` text: one string, or a list of strings joined in order. */
static int read_helpers(yaml_document_t *doc, yaml_node_t *n, strbuf *out)
{
    const char *one = gen_scalar(doc, n);
    if (one) {
        sb_append(out, one);
        return 0;
    }
    if (!n || n->type != YAML_SEQUENCE_NODE)
        return 1;
    for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top;
         it++) {
        const char *v = gen_scalar(doc, yaml_document_get_node(doc, *it));
        if (!v)
            return 1;
        sb_append(out, v);
    }
    return 0;
}

/* Prints a positioned error about record `name`; returns 1. */
#define PW_FAIL(...) gen_fail(file, line, "pointwise_op " __VA_ARGS__)

int gen_pw_load(gen_model *m, const char *file, yaml_document_t *doc, yaml_node_t *e)
{
    int line = (int)e->start_mark.line + 1;
    const char *name = gen_scalar(doc, gen_map_get(doc, e, "pointwise_op"));
    if (!is_ident(name))
        return PW_FAIL("'%s': the name must be a C identifier", name ? name : "?");
    for (yaml_node_pair_t *p = e->data.mapping.pairs.start; p < e->data.mapping.pairs.top; p++) {
        const char *k = gen_scalar(doc, yaml_document_get_node(doc, p->key));
        if (index_of(pw_keys, k) < 0)
            return PW_FAIL("%s: unknown key '%s'", name, k ? k : "?");
    }
    for (int i = 0; i < m->npws; i++)
        if (strcmp(m->pws[i].name, name) == 0)
            return PW_FAIL("%s is already defined at %s:%d", name, m->pws[i].file,
                           m->pws[i].line);

    strbuf sb = STRBUF_INIT;
    int rc = 0;
    sb_printf(&sb, "const pw_op pw_op_%s = {\n    .name = \"%s\",\n", name, name);

    /* inputs: the operands' roles (n_in is their count). */
    yaml_node_t *in = gen_map_get(doc, e, "inputs");
    if (!in || in->type != YAML_SEQUENCE_NODE)
        rc = PW_FAIL("%s: `inputs` must be a list of roles (common, bool, own)", name);
    int n_in = 0;
    strbuf roles = STRBUF_INIT;
    for (yaml_node_item_t *it = rc ? NULL : in->data.sequence.items.start;
         it && it < in->data.sequence.items.top && !rc; it++, n_in++) {
        const char *v = gen_scalar(doc, yaml_document_get_node(doc, *it));
        int r = index_of(role_names, v);
        if (r < 0 || n_in == GEN_PW_MAX_IN)
            rc = PW_FAIL("%s: bad input '%s' (common, bool or own; at most %d)", name,
                         v ? v : "?", GEN_PW_MAX_IN);
        else
            sb_printf(&roles, "%s%s", n_in ? ", " : "", role_enums[r]);
    }
    if (!rc && n_in == 0)
        rc = PW_FAIL("%s: needs at least one input", name);
    if (!rc)
        sb_printf(&sb, "    .n_in = %d,\n    .roles = {%s},\n", n_in, sb_str(&roles));
    sb_free(&roles);

    /* params: an ordered map name -> kind. */
    yaml_node_t *pn = gen_map_get(doc, e, "params");
    if (!rc && pn) {
        if (pn->type != YAML_MAPPING_NODE)
            rc = PW_FAIL("%s: `params` must map names to kinds (compute, float, int)", name);
        strbuf kinds = STRBUF_INIT, names = STRBUF_INIT;
        int np = 0;
        for (yaml_node_pair_t *p = rc ? NULL : pn->data.mapping.pairs.start;
             p && p < pn->data.mapping.pairs.top && !rc; p++, np++) {
            const char *k = gen_scalar(doc, yaml_document_get_node(doc, p->key));
            const char *v = gen_scalar(doc, yaml_document_get_node(doc, p->value));
            int kind = index_of(kind_names, v);
            if (!is_ident(k) || kind < 0 || np == GEN_PW_MAX_PARAMS)
                rc = PW_FAIL("%s: bad parameter '%s' (name: compute, float or int; at most %d)",
                             name, k ? k : "?", GEN_PW_MAX_PARAMS);
            else {
                sb_printf(&kinds, "%s%s", np ? ", " : "", kind_enums[kind]);
                sb_printf(&names, "%s\"%s\"", np ? ", " : "", k);
            }
        }
        if (!rc && np)
            sb_printf(&sb, "    .n_params = %d,\n    .params = {%s},\n    .param_names = {%s},\n",
                      np, sb_str(&kinds), sb_str(&names));
        sb_free(&kinds);
        sb_free(&names);
    }

    const char *promo = gen_scalar(doc, gen_map_get(doc, e, "promotion"));
    int pr = index_of(promotion_names, promo);
    if (!rc && pr < 0)
        rc = PW_FAIL("%s: bad promotion '%s' (default, int_to_float, always_bool, no_opmath, "
                     "bool_to_long)", name, promo ? promo : "?");
    if (!rc)
        sb_printf(&sb, "    .promotion = %s,\n", promotion_enums[pr]);

    strbuf mask = STRBUF_INIT;
    if (!rc && read_dtypes(doc, gen_map_get(doc, e, "dtypes"), &mask))
        rc = PW_FAIL("%s: bad `dtypes` (all, nobool, ints, floats, bool, dtype names, or a list "
                     "of them)", name);
    if (!rc)
        sb_printf(&sb, "    .dtypes = %s,\n", sb_str(&mask));
    sb_free(&mask);

    /* expressions: `expr` the default, `expr_<class>` per dtype class. */
    bool any_expr = false;
    for (int c = 0; class_keys[c] && !rc; c++) {
        yaml_node_t *x = gen_map_get(doc, e, class_keys[c]);
        if (!x)
            continue;
        const char *text = gen_scalar(doc, x);
        if (!text || !*text) {
            rc = PW_FAIL("%s: `%s` must be an OpenCL C expression", name, class_keys[c]);
            break;
        }
        sb_append(&sb, any_expr ? ",\n             " : "    .expr = {");
        sb_printf(&sb, "[%s] = ", class_enums[c]);
        c_literal(&sb, text, "             ");
        any_expr = true;
    }
    if (any_expr)
        sb_append(&sb, "},\n");
    yaml_node_t *xd = gen_map_get(doc, e, "expr");
    if (!rc && xd) {
        const char *text = gen_scalar(doc, xd);
        if (!text || !*text)
            rc = PW_FAIL("%s: `expr` must be an OpenCL C expression", name);
        else {
            sb_append(&sb, "    .expr_default = ");
            c_literal(&sb, text, "        ");
            sb_append(&sb, ",\n");
        }
    }
    if (!rc && !xd && !any_expr)
        rc = PW_FAIL("%s: needs `expr` (or `expr_<class>` for bool, uint, sint, float)", name);

    yaml_node_t *hn = gen_map_get(doc, e, "helpers");
    if (!rc && hn) {
        strbuf h = STRBUF_INIT;
        if (read_helpers(doc, hn, &h))
            rc = PW_FAIL("%s: `helpers` must be OpenCL C text or a list of texts", name);
        else {
            sb_append(&sb, "    .helpers =\n        ");
            c_literal(&sb, sb_str(&h), "        ");
            sb_append(&sb, ",\n");
        }
        sb_free(&h);
    }

    static const char *const flags[] = {"ref_same_precision", "scalar_opmath", "lanewise",
                                        "vector_expr", NULL};
    for (int f = 0; flags[f] && !rc; f++) {
        bool on;
        if (read_bool(doc, gen_map_get(doc, e, flags[f]), &on))
            rc = PW_FAIL("%s: `%s` takes true or false", name, flags[f]);
        else if (on)
            sb_printf(&sb, "    .%s = true,\n", flags[f]);
    }

    yaml_node_t *fr = gen_map_get(doc, e, "fixed_result");
    const char *frv = gen_scalar(doc, fr);
    int fd = fr ? index_of(dtype_names, frv) : -1;
    if (!rc && fr && fd < 0)
        rc = PW_FAIL("%s: `fixed_result` must be a dtype name (got '%s')", name,
                     frv ? frv : "?");
    if (!rc)
        sb_printf(&sb, "    .fixed_result = %s,\n",
                  fd >= 0 ? dtype_enums[fd] : "CLOPS_DTYPE_NONE");

    const char *dom = gen_scalar(doc, gen_map_get(doc, e, "domain"));
    int di = dom ? index_of(domain_names, dom) : 0;
    if (!rc && di < 0)
        rc = PW_FAIL("%s: bad domain '%s' (any, positive, unit, ge1, small, prob, index)", name,
                     dom);
    if (!rc)
        sb_printf(&sb, "    .domain = %s,\n", domain_enums[di]);

    yaml_node_t *un = gen_map_get(doc, e, "ulp");
    if (!rc && un) {
        const char *u = gen_scalar(doc, un);
        char *end = NULL;
        long ulp = u ? strtol(u, &end, 10) : -1;
        if (!u || !*u || *end || ulp < 1 || ulp > 1000000)
            rc = PW_FAIL("%s: `ulp` must be a positive integer (got '%s')", name, u ? u : "?");
        else
            sb_printf(&sb, "    .ulp = %ld,\n", ulp);
    }
    sb_append(&sb, "};\n");
    if (rc || sb.failed) {
        sb_free(&sb);
        return rc ? rc : PW_FAIL("%s: out of memory", name);
    }

    if (m->npws == m->pwcap) {
        m->pwcap = m->pwcap ? m->pwcap * 2 : 128;
        m->pws = realloc(m->pws, (size_t)m->pwcap * sizeof *m->pws);
        if (!m->pws) {
            fprintf(stderr, "clops-opgen: out of memory\n");
            exit(1);
        }
    }
    gen_pw *pw = &m->pws[m->npws++];
    pw->name = gen_xstrdup(name);
    pw->init = sb_take(&sb);
    pw->file = file;
    pw->line = line;
    return 0;
}

void gen_pw_free(gen_model *m)
{
    for (int i = 0; i < m->npws; i++) {
        free(m->pws[i].name);
        free(m->pws[i].init);
    }
    free(m->pws);
    m->pws = NULL;
    m->npws = m->pwcap = 0;
}

void gen_pw_emit(strbuf *sb, const gen_model *m)
{
    sb_append(sb, "/*\n * codegen_pointwise/pw_ops_generated.c: the pointwise op records "
                  "(pw_op, codegen_pointwise/pw.h)\n * of the `pointwise_op:` entries of "
                  "the inventory (their C references are\n * ref/'s own, found by name: "
                  "ref/ref_pw.h).\n */\n#include \"codegen_pointwise/pw.h\"\n");
    for (int i = 0; i < m->npws; i++) {
        const char *base = strrchr(m->pws[i].file, '/');
        sb_printf(sb, "\n/* %s:%d */\n", base ? base + 1 : m->pws[i].file, m->pws[i].line);
        sb_append(sb, m->pws[i].init);
    }
}
