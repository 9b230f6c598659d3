/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tools/opgen/opgen.c: reads the operator inventory and builds the model.
 *
 *     clops-opgen OUTDIR FILE.yaml...
 *
 * Each YAML file is a sequence of entries (docs/operator-inventory.md).  An
 * entry's schema is parsed with the library's own parser, so a schema the
 * dispatcher could not parse stops the build with the parser's positioned
 * message.  Entries with `variants` expand into their in-place and out forms
 * here, so the emitter sees one flat list of operators.  Duplicate operator
 * names, C-name clashes and malformed entries are build errors naming the
 * file and line.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <yaml.h>

#include "tools/opgen/opgen.h"
#include "tools/opgen/yaml_json.h"

const char *const gen_key_names[GEN_NKEYS] = {"CPU",  "NVIDIA",      "AMD",    "Intel",
                                              "POCL", "OtherVendor", "OpenCL", "Fallback"};
const char *const gen_key_enums[GEN_NKEYS] = {"CLOPS_KEY_CPU",   "CLOPS_KEY_NVIDIA",
                                              "CLOPS_KEY_AMD",   "CLOPS_KEY_INTEL",
                                              "CLOPS_KEY_POCL",  "CLOPS_KEY_OTHER",
                                              "CLOPS_KEY_OPENCL", "CLOPS_KEY_FALLBACK"};

/* Prints a build error located at file:line. */
int gen_fail(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "%s:%d: error: ", file, line);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return 1;
}

char *gen_xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = malloc(n);
    if (!p) {
        fprintf(stderr, "clops-opgen: out of memory\n");
        exit(1);
    }
    memcpy(p, s, n);
    return p;
}

/* Appends a zeroed op to the model. */
static gen_op *new_op(gen_model *m)
{
    if (m->nops == m->cap) {
        m->cap = m->cap ? m->cap * 2 : 256;
        m->ops = realloc(m->ops, (size_t)m->cap * sizeof *m->ops);
        if (!m->ops) {
            fprintf(stderr, "clops-opgen: out of memory\n");
            exit(1);
        }
    }
    gen_op *op = &m->ops[m->nops++];
    memset(op, 0, sizeof *op);
    op->dst_arg = -1;
    op->binding = -1;
    return op;
}

/* Scalar text of a node, or NULL when it is not a scalar. */
const char *gen_scalar(yaml_document_t *doc, yaml_node_t *n)
{
    (void)doc;
    if (!n || n->type != YAML_SCALAR_NODE)
        return NULL;
    return (const char *)n->data.scalar.value;
}

/* Looks a key up in a mapping node. */
yaml_node_t *gen_map_get(yaml_document_t *doc, yaml_node_t *map, const char *key)
{
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
        const char *k = gen_scalar(doc, yaml_document_get_node(doc, p->key));
        if (k && strcmp(k, key) == 0)
            return yaml_document_get_node(doc, p->value);
    }
    return NULL;
}

static const char *const known_keys[] = {"func",      "tags",       "variants", "out_overload",
                                         "cname",     "kernel",     "kernels",  "pointwise",
                                         "structured", "variant",   "device_check", "check", "out_arg",
                                         NULL};

/* Index of a dispatch key name, or -1. */
static int key_index(const char *name)
{
    for (int k = 0; k < GEN_NKEYS; k++)
        if (strcasecmp(name, gen_key_names[k]) == 0)
            return k;
    return -1;
}

/* Default C name of a schema ("clops_add_scalar_", "clops_div_out_mode"). */
static char *default_cname(const op_schema *s, gen_variant v)
{
    strbuf sb = STRBUF_INIT;
    sb_append(&sb, "clops_");
    const char *name = s->name;
    size_t nlen = strlen(name);
    /* Dunder names: __and__ -> and_op, __iand__ -> iand_op. */
    if (nlen > 4 && strncmp(name, "__", 2) == 0 && strcmp(name + nlen - 2, "__") == 0) {
        sb_append_n(&sb, name + 2, nlen - 4);
        sb_append(&sb, "_op");
    } else {
        sb_append(&sb, name);
    }
    const char *ov = s->overload;
    if (v == GEN_OUT) {
        /* out variants: drop "out" / "_out" from the overload, add "_out". */
        char tmp[128];
        snprintf(tmp, sizeof tmp, "%s", ov);
        size_t tl = strlen(tmp);
        if (strcmp(tmp, "out") == 0)
            tmp[0] = '\0';
        else if (tl > 4 && strcmp(tmp + tl - 4, "_out") == 0)
            tmp[tl - 4] = '\0';
        else if (strncmp(tmp, "out_", 4) == 0)
            memmove(tmp, tmp + 4, strlen(tmp + 4) + 1);
        if (tmp[0] && strcmp(tmp, "Tensor") != 0) {
            sb_putc(&sb, '_');
            for (char *c = tmp; *c; c++)
                sb_putc(&sb, (char)tolower((unsigned char)*c));
        }
        sb_append(&sb, "_out");
    } else if (ov[0] && strcmp(ov, "Tensor") != 0 && strcmp(ov, "default") != 0) {
        /* In-place names end in '_' already: clops_add_ + _scalar reads
         * badly, so put the overload before the underscore. */
        bool inplace = v == GEN_INPLACE && sb.len && sb.data[sb.len - 1] == '_';
        if (inplace)
            sb.len--;
        sb_putc(&sb, '_');
        for (const char *c = ov; *c; c++)
            sb_putc(&sb, (char)tolower((unsigned char)*c));
        if (inplace)
            sb_putc(&sb, '_');
    }
    return sb_take(&sb);
}

/* "add.Tensor" -> "add_Tensor"; dunder names keep their underscores. */
static char *make_ident(const op_schema *s)
{
    strbuf sb = STRBUF_INIT;
    sb_append(&sb, s->name);
    if (s->overload[0]) {
        sb_append(&sb, "__");
        sb_append(&sb, s->overload);
    }
    return sb_take(&sb);
}

/* Fills the derived fields of an op from its schema. */
static int finish_op(gen_op *op, const char *cname)
{
    op->qname = schema_qualified_name(op->schema);
    op->schema_text = schema_to_string(op->schema);
    op->ident = make_ident(op->schema);
    op->cname = cname ? gen_xstrdup(cname) : default_cname(op->schema, op->variant);
    return op->qname && op->schema_text && op->ident && op->cname ? 0 : 1;
}

/* Parses schema text; prints the parser's message on failure. */
static op_schema *parse_schema(const char *file, int line, const char *text)
{
    op_schema *s = NULL;
    if (schema_parse(text, &s) != CLOPS_OK) {
        gen_fail(file, line, "%s", clops_last_error());
        return NULL;
    }
    return s;
}

/* Builds the schema text of a derived variant of a functional schema;
 * out_arg (NULL: "out") names the out variant's written argument. */
static char *derive_schema(const op_schema *f, gen_variant v, const char *out_overload,
                           const char *out_arg)
{
    strbuf sb = STRBUF_INIT;
    schema_derive_variant(&sb, f, v == GEN_INPLACE, out_overload);
    char *text = sb_take(&sb);
    const char *mark = "Tensor(a!) out)";
    char *at = text && v == GEN_OUT && out_arg ? strstr(text, mark) : NULL;
    if (!at)
        return text;
    strbuf r = STRBUF_INIT;
    sb_printf(&r, "%.*sTensor(a!) %s)%s", (int)(at - text), text, out_arg, at + strlen(mark));
    free(text);
    return sb_take(&r);
}

/* Index of the written argument of an in-place/out schema. */
static int find_dst(const op_schema *s, gen_variant v)
{
    if (v == GEN_INPLACE)
        return 0;
    for (int i = s->nargs - 1; i >= 0; i--)
        if (s->args[i].kwarg_only && schema_arg_is_mutable(&s->args[i]))
            return i;
    return -1;
}

/* Reads a sequence of scalars as a comma-joined string. */
static char *join_seq(yaml_document_t *doc, yaml_node_t *n)
{
    strbuf sb = STRBUF_INIT;
    if (n && n->type == YAML_SEQUENCE_NODE) {
        for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top;
             it++) {
            const char *v = gen_scalar(doc, yaml_document_get_node(doc, *it));
            if (!v)
                continue;
            if (sb.len)
                sb_putc(&sb, ',');
            sb_append(&sb, v);
        }
    }
    return sb_take(&sb);
}

/* Reads `kernels:` / `structured:` into fns: a scalar serves CPU and OpenCL,
 * a mapping names keys. */
static int read_fns(const char *file, int line, yaml_document_t *doc, yaml_node_t *n,
                    char **fns)
{
    const char *one = gen_scalar(doc, n);
    if (one) {
        fns[GEN_KEY_CPU] = gen_xstrdup(one);
        fns[GEN_KEY_OPENCL] = gen_xstrdup(one);
        return 0;
    }
    if (!n || n->type != YAML_MAPPING_NODE)
        return gen_fail(file, line, "expected a function name or a map of key: function");
    for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
        const char *k = gen_scalar(doc, yaml_document_get_node(doc, p->key));
        const char *v = gen_scalar(doc, yaml_document_get_node(doc, p->value));
        int ki = k ? key_index(k) : -1;
        if (ki < 0 || ki == GEN_NKEYS - 1 || !v)
            return gen_fail(file, line, "unknown dispatch key '%s' (use CPU, OpenCL, NVIDIA, AMD, "
                                        "Intel, POCL, OtherVendor)",
                            k ? k : "?");
        fns[ki] = gen_xstrdup(v);
    }
    return 0;
}

/* Frees what an op owns (its schema and strings). */
static void free_op(gen_op *op)
{
    schema_free(op->schema);
    free(op->qname);
    free(op->schema_text);
    free(op->cname);
    free(op->ident);
    free(op->tags);
    for (int k = 0; k < GEN_NKEYS; k++)
        free(op->fns[k]);
    free(op->pw_name);
    free(op->check);
    memset(op, 0, sizeof *op);
}

/* Frees an entry that never made it into the model and passes rc on. */
static int drop_proto(gen_op *proto, op_schema *s, int rc)
{
    proto->schema = s;
    free_op(proto);
    return rc;
}

void gen_model_free(gen_model *m)
{
    for (int i = 0; i < m->nops; i++)
        free_op(&m->ops[i]);
    free(m->ops);
    gen_pw_free(m);
    memset(m, 0, sizeof *m);
}

/* Adds one YAML entry (and its derived variants) to the model. */
static int load_entry(gen_model *m, const char *file, yaml_document_t *doc, yaml_node_t *e)
{
    int line = (int)e->start_mark.line + 1;
    if (e->type != YAML_MAPPING_NODE)
        return gen_fail(file, line, "an entry must be a mapping with a `func` key");
    if (gen_map_get(doc, e, "pointwise_op"))
        return gen_pw_load(m, file, doc, e);
    for (yaml_node_pair_t *p = e->data.mapping.pairs.start; p < e->data.mapping.pairs.top; p++) {
        const char *k = gen_scalar(doc, yaml_document_get_node(doc, p->key));
        bool ok = false;
        for (int i = 0; known_keys[i]; i++)
            if (k && strcmp(k, known_keys[i]) == 0)
                ok = true;
        if (!ok)
            return gen_fail(file, line, "unknown key '%s'", k ? k : "?");
    }
    const char *func = gen_scalar(doc, gen_map_get(doc, e, "func"));
    if (!func)
        return gen_fail(file, line, "entry without `func`");
    op_schema *s = parse_schema(file, line, func);
    if (!s)
        return 1;

    gen_op proto;
    memset(&proto, 0, sizeof proto);
    proto.file = file;
    proto.line = line;
    proto.dst_arg = -1;
    proto.binding = -1;
    proto.tags = join_seq(doc, gen_map_get(doc, e, "tags"));
    const char *variant = gen_scalar(doc, gen_map_get(doc, e, "variant"));
    if (variant && strcmp(variant, "inplace") == 0)
        proto.variant = GEN_INPLACE;
    else if (variant && strcmp(variant, "out") == 0)
        proto.variant = GEN_OUT;
    else if (variant && strcmp(variant, "functional") != 0)
        return drop_proto(&proto, s,
                          gen_fail(file, line, "variant must be functional, inplace or out"));

    int nimpl = 0;
    yaml_node_t *n;
    if ((n = gen_map_get(doc, e, "kernel")) != NULL) {
        nimpl++;
        proto.impl = GEN_IMPL_KERNELS;
        if (!gen_scalar(doc, n))
            return drop_proto(&proto, s, gen_fail(file, line, "`kernel` takes one function name"));
        read_fns(file, line, doc, n, proto.fns);
    }
    if ((n = gen_map_get(doc, e, "kernels")) != NULL) {
        nimpl++;
        proto.impl = GEN_IMPL_KERNELS;
        if (read_fns(file, line, doc, n, proto.fns))
            return drop_proto(&proto, s, 1);
    }
    if ((n = gen_map_get(doc, e, "structured")) != NULL) {
        nimpl++;
        proto.impl = GEN_IMPL_STRUCTURED;
        if (read_fns(file, line, doc, n, proto.fns))
            return drop_proto(&proto, s, 1);
    }
    if ((n = gen_map_get(doc, e, "pointwise")) != NULL) {
        nimpl++;
        proto.impl = GEN_IMPL_POINTWISE;
        if (!gen_scalar(doc, n))
            return drop_proto(&proto, s, gen_fail(file, line, "`pointwise` takes a pw_op name"));
        proto.pw_name = gen_xstrdup(gen_scalar(doc, n));
        proto.binding = m->nbindings++;
        for (int i = 0; i < s->nargs; i++) {
            const schema_type *t = &s->args[i].type;
            bool okarg = !t->is_list && !t->optional &&
                         (t->base == SCHEMA_TENSOR || t->base == SCHEMA_SCALAR);
            if (!okarg)
                return drop_proto(&proto, s, gen_fail(file, line,
                            "pointwise op '%s' has argument '%s' that is not a Tensor or Scalar; "
                            "use a `structured` function",
                            func, s->args[i].name));
        }
        /* Pointwise entries serve every device through pw_run. */
        proto.fns[GEN_KEY_CPU] = gen_xstrdup(proto.pw_name);
        proto.fns[GEN_KEY_OPENCL] = gen_xstrdup(proto.pw_name);
    }
    if (nimpl > 1)
        return drop_proto(&proto, s, gen_fail(file, line, "give only one of kernel, kernels, "
                                                          "structured, pointwise"));
    const char *cname = gen_scalar(doc, gen_map_get(doc, e, "cname"));
    const char *dc = gen_scalar(doc, gen_map_get(doc, e, "device_check"));
    if (dc && strcmp(dc, "NoCheck") != 0)
        return drop_proto(&proto, s, gen_fail(file, line, "device_check takes NoCheck"));
    proto.no_device_check = dc != NULL;
    yaml_node_t *chk = gen_map_get(doc, e, "check");
    if (chk) {
        strbuf js = STRBUF_INIT;
        yaml_to_json(&js, doc, chk);
        proto.check = sb_take(&js);
    }

    gen_op *op = new_op(m);
    *op = proto;
    op->schema = s;
    int fi = m->nops - 1; /* new_op may move the array: keep the index */
    if (op->variant != GEN_FUNCTIONAL) {
        op->dst_arg = find_dst(s, op->variant);
        if (op->dst_arg < 0)
            return gen_fail(file, line, "%s variant without a written Tensor argument",
                        op->variant == GEN_OUT ? "out" : "inplace");
        if (op->impl == GEN_IMPL_STRUCTURED || op->impl == GEN_IMPL_POINTWISE)
            if (s->nrets != 1)
                return gen_fail(file, line, "structured in-place/out variants return one tensor");
    }
    if (finish_op(op, cname))
        return gen_fail(file, line, "out of memory");

    yaml_node_t *vars = gen_map_get(doc, e, "variants");
    if (!vars)
        return 0;
    if (proto.impl != GEN_IMPL_POINTWISE && proto.impl != GEN_IMPL_STRUCTURED)
        return gen_fail(file, line, "`variants` needs `pointwise` or `structured`");
    if (proto.variant != GEN_FUNCTIONAL || s->nrets != 1 || s->rets[0].type.base != SCHEMA_TENSOR)
        return gen_fail(file, line, "`variants` needs a functional schema returning one Tensor");
    const char *out_ov = gen_scalar(doc, gen_map_get(doc, e, "out_overload"));
    const char *out_arg = gen_scalar(doc, gen_map_get(doc, e, "out_arg"));
    for (yaml_node_item_t *it = vars->data.sequence.items.start;
         vars->type == YAML_SEQUENCE_NODE && it < vars->data.sequence.items.top; it++) {
        const char *v = gen_scalar(doc, yaml_document_get_node(doc, *it));
        gen_variant gv;
        if (v && strcmp(v, "inplace") == 0)
            gv = GEN_INPLACE;
        else if (v && strcmp(v, "out") == 0)
            gv = GEN_OUT;
        else
            return gen_fail(file, line, "unknown variant '%s' (inplace, out)", v ? v : "?");
        char *text = derive_schema(s, gv, out_ov, out_arg);
        op_schema *ds = text ? parse_schema(file, line, text) : NULL;
        free(text);
        if (!ds)
            return 1;
        gen_op *d = new_op(m);
        const gen_op *f = &m->ops[fi];
        d->schema = ds;
        d->file = file;
        d->line = line;
        d->tags = gen_xstrdup(f->tags);
        d->impl = f->impl;
        for (int k = 0; k < GEN_NKEYS; k++)
            d->fns[k] = f->fns[k] ? gen_xstrdup(f->fns[k]) : NULL;
        d->pw_name = f->pw_name ? gen_xstrdup(f->pw_name) : NULL;
        d->binding = f->binding;
        d->no_device_check = f->no_device_check;
        d->check = f->check ? gen_xstrdup(f->check) : NULL;
        d->variant = gv;
        d->derived = true;
        d->dst_arg = find_dst(ds, gv);
        if (finish_op(d, NULL))
            return gen_fail(file, line, "out of memory");
    }
    return 0;
}

/* Loads one YAML file. */
static int load_file(gen_model *m, const char *file)
{
    FILE *f = fopen(file, "rb");
    if (!f)
        return gen_fail(file, 0, "cannot open");
    yaml_parser_t parser;
    yaml_document_t doc;
    yaml_parser_initialize(&parser);
    yaml_parser_set_input_file(&parser, f);
    int rc = 0;
    if (!yaml_parser_load(&parser, &doc)) {
        rc = gen_fail(file, (int)parser.problem_mark.line + 1, "YAML: %s",
                  parser.problem ? parser.problem : "parse error");
        yaml_parser_delete(&parser);
        fclose(f);
        return rc;
    }
    yaml_node_t *root = yaml_document_get_root_node(&doc);
    if (root && root->type == YAML_SEQUENCE_NODE) {
        for (yaml_node_item_t *it = root->data.sequence.items.start;
             it < root->data.sequence.items.top && rc == 0; it++)
            rc = load_entry(m, file, &doc, yaml_document_get_node(&doc, *it));
    } else if (root) {
        rc = gen_fail(file, 1, "the file must be a YAML sequence of entries");
    }
    yaml_document_delete(&doc);
    yaml_parser_delete(&parser);
    fclose(f);
    return rc;
}

static const char *const c_keywords[] = {
    "auto",   "break",   "case",     "char",   "const",    "continue", "default",  "do",
    "double", "else",    "enum",     "extern", "float",    "for",      "goto",     "if",
    "inline", "int",     "long",     "register", "restrict", "return", "short",    "signed",
    "sizeof", "static",  "struct",   "switch", "typedef",  "union",    "unsigned", "void",
    "volatile", "while", "bool",     "true",   "false",    "st",       "call",     NULL};

/* Checks names across the model. */
static int check_model(gen_model *m)
{
    int rc = 0;
    for (int i = 0; i < m->nops; i++) {
        gen_op *a = &m->ops[i];
        for (int j = 0; j < i; j++) {
            gen_op *b = &m->ops[j];
            if (strcmp(a->qname, b->qname) == 0)
                rc |= gen_fail(a->file, a->line, "operator %s is already defined at %s:%d",
                               a->qname, b->file, b->line);
            else if (strcmp(a->cname, b->cname) == 0)
                rc |= gen_fail(a->file, a->line,
                               "C name %s of %s clashes with %s (%s:%d); give one a `cname`",
                               a->cname, a->qname, b->qname, b->file, b->line);
        }
        for (int k = 0; k < a->schema->nargs; k++)
            for (int w = 0; c_keywords[w]; w++)
                if (strcmp(a->schema->args[k].name, c_keywords[w]) == 0)
                    rc |= gen_fail(a->file, a->line, "argument name '%s' of %s is reserved in C",
                                   c_keywords[w], a->qname);
    }
    return rc;
}

int gen_load(gen_model *m, char **files, int nfiles)
{
    memset(m, 0, sizeof *m);
    for (int i = 0; i < nfiles; i++)
        if (load_file(m, files[i]))
            return 1;
    return check_model(m);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: clops-opgen OUTDIR FILE.yaml...\n");
        return 2;
    }
    gen_model m;
    int rc = gen_load(&m, argv + 2, argc - 2);
    if (rc == 0)
        rc = gen_emit(&m, argv[1]);
    gen_model_free(&m);
    return rc;
}
