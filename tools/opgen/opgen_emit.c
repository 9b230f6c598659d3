/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tools/opgen/opgen_emit.c: writes the C and Markdown that the operator
 * inventory generates.
 *
 *   include/clops/ops.h   public typed wrappers, one per operator
 *   ops/kernels_generated.h  op ids, typed-kernel typedefs, prototypes of
 *                         every kernel and structured function the inventory
 *                         names (kernel layer: what ops/ includes)
 *   ops_generated.h       the registration layer's header (includes the above)
 *   ops_generated.c       the wrappers, the boxed adapters, the kernels
 *                         derived for pointwise and structured families, the
 *                         pointwise bindings and the registration table
 *   ops.md                the operator reference (copied to docs/ops.md)
 *   codegen_pointwise/pw_ops_generated.c  the pointwise op records
 *                         (`pointwise_op:` entries, opgen_pw.c)
 *
 * Files are written only when their content changes, so an unchanged
 * inventory does not rebuild the library.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tools/opgen/opgen.h"

/* ---- C types of schema arguments -------------------------------------- */

/* Base type of ints-like scalars. */
static bool is_int_base(schema_base b)
{
    return b == SCHEMA_INT || b == SCHEMA_SYMINT;
}

/* Appends the C parameter(s) for one schema argument. */
static void c_param(strbuf *sb, const schema_arg *a)
{
    const schema_type *t = &a->type;
    const char *n = a->name;
    if (t->base == SCHEMA_TENSOR) {
        if (t->is_list)
            sb_printf(sb, "clops_tensor *const *%s, int %s_len", n, n);
        else
            sb_printf(sb, "clops_tensor *%s", n);
        return;
    }
    if (t->is_list) {
        const char *ct = is_int_base(t->base) ? "int64_t"
                         : t->base == SCHEMA_FLOAT ? "double"
                         : t->base == SCHEMA_BOOL ? "bool"
                                                  : "int64_t";
        sb_printf(sb, "const %s *%s, int %s_len", ct, n, n);
        return;
    }
    bool opt = t->optional;
    switch (t->base) {
    case SCHEMA_SCALAR:
        sb_printf(sb, opt ? "const clops_scalar *%s" : "clops_scalar %s", n);
        return;
    case SCHEMA_INT:
    case SCHEMA_SYMINT:
        sb_printf(sb, opt ? "const int64_t *%s" : "int64_t %s", n);
        return;
    case SCHEMA_FLOAT:
        sb_printf(sb, opt ? "const double *%s" : "double %s", n);
        return;
    case SCHEMA_BOOL:
    case SCHEMA_SYMBOOL:
        sb_printf(sb, opt ? "const bool *%s" : "bool %s", n);
        return;
    case SCHEMA_STR:
        sb_printf(sb, "const char *%s", n);
        return;
    case SCHEMA_SCALAR_TYPE:
        sb_printf(sb, "clops_dtype %s", n);
        return;
    case SCHEMA_DEVICE:
        sb_printf(sb, "clops_device *%s", n);
        return;
    case SCHEMA_GENERATOR:
        sb_printf(sb, "clops_generator *%s", n);
        return;
    default:
        sb_printf(sb, "int64_t %s", n);
        return;
    }
}

/* Names of the C parameters of one argument, for calls. */
static void c_arg_names(strbuf *sb, const schema_arg *a)
{
    if (a->type.is_list)
        sb_printf(sb, "%s, %s_len", a->name, a->name);
    else
        sb_append(sb, a->name);
}

/* What a return becomes in C. */
typedef enum ret_kind { RET_FRESH, RET_ALIAS, RET_SCALAR, RET_LIST, RET_BAD } ret_kind;

static ret_kind ret_kind_of(const schema_ret *r)
{
    if (r->type.base == SCHEMA_TENSOR && r->type.is_list)
        return RET_LIST; /* a clops_tensor_list of new references */
    if (r->type.base == SCHEMA_TENSOR && !r->type.is_list)
        return (r->alias.present && r->alias.is_write) ? RET_ALIAS : RET_FRESH;
    if (!r->type.is_list && (r->type.base == SCHEMA_SCALAR || r->type.base == SCHEMA_INT ||
                             r->type.base == SCHEMA_SYMINT || r->type.base == SCHEMA_FLOAT ||
                             r->type.base == SCHEMA_BOOL))
        return RET_SCALAR;
    return RET_BAD;
}

/* Index of the argument a write-aliased return refers to. */
static int ret_alias_arg(const op_schema *s, const schema_ret *r)
{
    for (int i = 0; i < s->nargs; i++)
        if (s->args[i].alias.present && strcmp(s->args[i].alias.set, r->alias.set) == 0)
            return i;
    return -1;
}

/* C name of return k. */
static void ret_name(const op_schema *s, int k, char *buf, size_t cap)
{
    const schema_ret *r = &s->rets[k];
    int nfresh = 0;
    for (int i = 0; i < s->nrets; i++)
        if (ret_kind_of(&s->rets[i]) != RET_ALIAS)
            nfresh++;
    if (r->name)
        snprintf(buf, cap, "%s", r->name);
    else if (nfresh == 1)
        snprintf(buf, cap, "out");
    else
        snprintf(buf, cap, "out%d", k);
    if (schema_find_arg(s, buf) >= 0)
        strncat(buf, "_ret", cap - strlen(buf) - 1);
}

int gen_fresh_returns(const gen_op *op)
{
    int n = 0;
    for (int i = 0; i < op->schema->nrets; i++)
        if (ret_kind_of(&op->schema->rets[i]) != RET_ALIAS)
            n++;
    return n;
}

/* Parameters of the op's own typed signature. */
static void op_params(strbuf *sb, const op_schema *s)
{
    int n = 0;
    for (int i = 0; i < s->nargs; i++, n++) {
        if (n)
            sb_append(sb, ", ");
        c_param(sb, &s->args[i]);
    }
    for (int k = 0; k < s->nrets; k++) {
        ret_kind rk = ret_kind_of(&s->rets[k]);
        if (rk == RET_ALIAS)
            continue;
        char name[64];
        ret_name(s, k, name, sizeof name);
        if (n++)
            sb_append(sb, ", ");
        sb_printf(sb, rk == RET_SCALAR ? "clops_scalar *%s"
                      : rk == RET_LIST ? "clops_tensor_list *%s"
                                       : "clops_tensor **%s",
                  name);
    }
    if (n == 0)
        sb_append(sb, "void");
}

/* Argument names in the order of op_params. */
static void op_call_args(strbuf *sb, const op_schema *s)
{
    int n = 0;
    for (int i = 0; i < s->nargs; i++, n++) {
        if (n)
            sb_append(sb, ", ");
        c_arg_names(sb, &s->args[i]);
    }
    for (int k = 0; k < s->nrets; k++) {
        if (ret_kind_of(&s->rets[k]) == RET_ALIAS)
            continue;
        char name[64];
        ret_name(s, k, name, sizeof name);
        if (n++)
            sb_append(sb, ", ");
        sb_append(sb, name);
    }
}

void gen_c_params(strbuf *sb, const gen_op *op)
{
    op_params(sb, op->schema);
}

void gen_c_call_args(strbuf *sb, const gen_op *op)
{
    op_call_args(sb, op->schema);
}

/* Parameters of a structured family function for this op:
 * (pw_variant variant, clops_tensor *dst, family args..., clops_tensor **out). */
static void family_params(strbuf *sb, const gen_op *op)
{
    const op_schema *s = op->schema;
    sb_append(sb, "pw_variant variant, clops_tensor *dst");
    for (int i = 0; i < s->nargs; i++) {
        if (op->variant == GEN_OUT && i == op->dst_arg)
            continue;
        sb_append(sb, ", ");
        c_param(sb, &s->args[i]);
    }
    sb_append(sb, ", clops_tensor **out");
}

/* ---- output helpers ----------------------------------------------------- */

/* Writes sb to path unless the file already holds exactly that. */
static int write_if_changed(const char *path, const strbuf *sb)
{
    FILE *f = fopen(path, "rb");
    if (f) {
        char *old = malloc(sb->len + 2);
        size_t n = old ? fread(old, 1, sb->len + 1, f) : 0;
        fclose(f);
        bool same = old && n == sb->len && memcmp(old, sb_str(sb), sb->len) == 0;
        free(old);
        if (same)
            return 0;
    }
    f = fopen(path, "wb");
    if (!f) {
        fprintf(stderr, "clops-opgen: cannot write %s\n", path);
        return 1;
    }
    fwrite(sb_str(sb), 1, sb->len, f);
    return fclose(f) == 0 ? 0 : 1;
}

static const char banner[] =
    "/* Generated by clops-opgen from the YAML files of dispatch/inventory/. Do not edit. */\n";

/* ---- ops.h ---------------------------------------------------------------- */

static void emit_public(strbuf *sb, const gen_model *m)
{
    sb_append(sb, banner);
    sb_append(sb, "/*\n * clops/ops.h: one typed C function per operator.\n *\n"
                  " * Each function dispatches on its tensor arguments' device (see\n"
                  " * clops/dispatch.h) and follows docs/operator-inventory.md: fresh results\n"
                  " * come back through trailing `out` pointers as new references; in-place\n"
                  " * and out= variants return nothing but the status, their tensor argument\n"
                  " * being the result.\n */\n");
    sb_append(sb, "#ifndef CLOPS_OPS_H\n#define CLOPS_OPS_H\n\n#include \"clops/dispatch.h\"\n"
                  "#include \"clops/tensor.h\"\n\n#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n");
    for (int i = 0; i < m->nops; i++) {
        const gen_op *op = &m->ops[i];
        sb_printf(sb, "/* %s */\nCLOPS_API clops_status %s(", op->schema_text, op->cname);
        op_params(sb, op->schema);
        sb_append(sb, ");\n\n");
    }
    sb_append(sb, "#ifdef __cplusplus\n}\n#endif\n\n#endif /* CLOPS_OPS_H */\n");
}

/* ---- ops/kernels_generated.h and ops_generated.h ------------------------- */

/* True if fn was already declared by an earlier op. */
static bool declared_before(const gen_model *m, int upto, const char *fn)
{
    for (int i = 0; i < upto; i++)
        for (int k = 0; k < GEN_NKEYS; k++)
            if (m->ops[i].fns[k] && m->ops[i].impl != GEN_IMPL_POINTWISE &&
                strcmp(m->ops[i].fns[k], fn) == 0)
                return true;
    return false;
}

static void emit_internal_header(strbuf *sb, const gen_model *m)
{
    sb_append(sb, banner);
    sb_append(sb, "/*\n * ops/kernels_generated.h: operator ids, typed kernel types and the\n"
                  " * prototypes of every kernel and structured family function the inventory\n"
                  " * names.  A file that implements one includes this header, so a signature\n"
                  " * that does not match the schema fails to compile.  It belongs to the\n"
                  " * kernel layer (ops/), below the generated registration (ops_generated.h).\n"
                  " */\n");
    sb_append(sb, "#ifndef CLOPS_OPS_KERNELS_GENERATED_H\n#define CLOPS_OPS_KERNELS_GENERATED_H\n\n"
                  "#include \"clops/ops.h\"\n#include \"codegen_pointwise/pw.h\"\n\n");
    sb_append(sb, "enum {\n");
    for (int i = 0; i < m->nops; i++)
        sb_printf(sb, "    CLOPS_OPID_%s = %d,\n", m->ops[i].ident, i);
    sb_printf(sb, "    CLOPS_OPID_COUNT = %d\n};\n\n", m->nops);
    for (int i = 0; i < m->nops; i++) {
        const gen_op *op = &m->ops[i];
        sb_printf(sb, "typedef clops_status (*clops__fn_%s)(", op->ident);
        op_params(sb, op->schema);
        sb_append(sb, ");\n");
    }
    sb_append(sb, "\n/* Kernels and structured family functions named by the inventory. */\n");
    for (int i = 0; i < m->nops; i++) {
        const gen_op *op = &m->ops[i];
        if (op->impl != GEN_IMPL_KERNELS && op->impl != GEN_IMPL_STRUCTURED)
            continue;
        if (op->impl == GEN_IMPL_STRUCTURED && op->derived)
            continue;
        for (int k = 0; k < GEN_NKEYS; k++) {
            const char *fn = op->fns[k];
            if (!fn || declared_before(m, i, fn))
                continue;
            bool dup = false;
            for (int k2 = 0; k2 < k; k2++)
                if (op->fns[k2] && strcmp(op->fns[k2], fn) == 0)
                    dup = true;
            if (dup)
                continue;
            sb_printf(sb, "clops_status %s(", fn);
            if (op->impl == GEN_IMPL_STRUCTURED)
                family_params(sb, op);
            else
                op_params(sb, op->schema);
            sb_append(sb, ");\n");
        }
    }
    sb_append(sb, "\n/* Pointwise ops named by the inventory. */\n");
    for (int i = 0; i < m->nops; i++) {
        const gen_op *op = &m->ops[i];
        if (op->impl != GEN_IMPL_POINTWISE || op->derived)
            continue;
        bool seen = false;
        for (int j = 0; j < i; j++)
            if (m->ops[j].pw_name && strcmp(m->ops[j].pw_name, op->pw_name) == 0)
                seen = true;
        if (!seen)
            sb_printf(sb, "extern const pw_op pw_op_%s;\n", op->pw_name);
    }
    sb_append(sb, "\n#endif /* CLOPS_OPS_KERNELS_GENERATED_H */\n");
}

/* ops_generated.h: the registration layer's header (the kernels' contract
 * plus the dispatcher and the pointwise bindings it registers). */
static void emit_registration_header(strbuf *sb)
{
    sb_append(sb, banner);
    sb_append(sb, "/*\n * ops_generated.h: what the generated registration (ops_generated.c)\n"
                  " * needs.  Only generated code, tools/, tests/ and bench/ include it; kernels\n"
                  " * include ops/kernels_generated.h.\n */\n");
    sb_append(sb, "#ifndef CLOPS_OPS_GENERATED_H\n#define CLOPS_OPS_GENERATED_H\n\n"
                  "#include \"codegen_pointwise/pw_bind.h\"\n#include \"dispatch/dispatch.h\"\n"
                  "#include \"ops/kernels_generated.h\"\n\n#endif /* CLOPS_OPS_GENERATED_H */\n");
}

/* ---- ops_generated.c ------------------------------------------------------ */

/* Appends the boxing of argument i into a clops_value. */
static void box_arg(strbuf *sb, const schema_arg *a)
{
    const schema_type *t = &a->type;
    const char *n = a->name;
    if (t->base == SCHEMA_TENSOR && t->is_list) {
        sb_printf(sb, "{.tag = CLOPS_V_TENSOR_LIST, .v.tensors = {%s, %s_len}}", n, n);
    } else if (t->base == SCHEMA_TENSOR) {
        sb_printf(sb, "clops_value_tensor(%s)", n);
    } else if (t->is_list) {
        const char *tag = is_int_base(t->base) ? "CLOPS_V_INT_LIST"
                          : t->base == SCHEMA_FLOAT ? "CLOPS_V_FLOAT_LIST"
                          : t->base == SCHEMA_BOOL ? "CLOPS_V_BOOL_LIST"
                                                   : "CLOPS_V_INT_LIST";
        const char *field = t->base == SCHEMA_FLOAT ? "floats"
                            : t->base == SCHEMA_BOOL ? "bools"
                                                     : "ints";
        sb_printf(sb, "%s ? (clops_value){.tag = %s, .v.%s = {%s, %s_len}} : clops_value_none()", n,
                  tag, field, n, n);
    } else {
        bool opt = t->optional;
        switch (t->base) {
        case SCHEMA_SCALAR:
            sb_printf(sb, opt ? "%s ? clops_value_scalar(*%s) : clops_value_none()"
                              : "clops_value_scalar(%s)",
                      n, n);
            break;
        case SCHEMA_INT:
        case SCHEMA_SYMINT:
            sb_printf(sb, opt ? "%s ? clops_value_int(*%s) : clops_value_none()"
                              : "clops_value_int(%s)",
                      n, n);
            break;
        case SCHEMA_FLOAT:
            sb_printf(sb, opt ? "%s ? clops_value_float(*%s) : clops_value_none()"
                              : "clops_value_float(%s)",
                      n, n);
            break;
        case SCHEMA_BOOL:
        case SCHEMA_SYMBOOL:
            sb_printf(sb, opt ? "%s ? clops_value_bool(*%s) : clops_value_none()"
                              : "clops_value_bool(%s)",
                      n, n);
            break;
        case SCHEMA_STR:
            sb_printf(sb, "clops_value_string(%s)", n);
            break;
        case SCHEMA_SCALAR_TYPE:
            sb_printf(sb, "clops_value_dtype(%s)", n);
            break;
        case SCHEMA_DEVICE:
            sb_printf(sb, "clops_value_device(%s)", n);
            break;
        case SCHEMA_GENERATOR:
            sb_printf(sb, "clops_value_generator(%s)", n);
            break;
        default:
            sb_printf(sb, "%s < 0 ? clops_value_none() : (clops_value){.tag = CLOPS_V_ENUM, .v.i = %s}",
                      n, n);
        }
    }
}

/* Appends the unboxing of value v (an lvalue like "a[2]") for argument a. */
static void unbox_arg(strbuf *sb, const schema_arg *a, const char *v)
{
    const schema_type *t = &a->type;
    if (t->base == SCHEMA_TENSOR && t->is_list) {
        sb_printf(sb, "%s.v.tensors.data, %s.v.tensors.len", v, v);
    } else if (t->base == SCHEMA_TENSOR) {
        sb_printf(sb, "%s.tag == CLOPS_V_TENSOR ? %s.v.t : NULL", v, v);
    } else if (t->is_list) {
        const char *field = t->base == SCHEMA_FLOAT ? "floats"
                            : t->base == SCHEMA_BOOL ? "bools"
                                                     : "ints";
        sb_printf(sb, "%s.tag == CLOPS_V_NONE ? NULL : %s.v.%s.data, %s.tag == CLOPS_V_NONE ? 0 : %s.v.%s.len",
                  v, v, field, v, v, field);
    } else {
        bool opt = t->optional;
        switch (t->base) {
        case SCHEMA_SCALAR:
            sb_printf(sb, opt ? "%s.tag == CLOPS_V_NONE ? NULL : &%s.v.s" : "%s.v.s", v, v);
            break;
        case SCHEMA_INT:
        case SCHEMA_SYMINT:
            sb_printf(sb, opt ? "%s.tag == CLOPS_V_NONE ? NULL : &%s.v.i" : "%s.v.i", v, v);
            break;
        case SCHEMA_FLOAT:
            sb_printf(sb, opt ? "%s.tag == CLOPS_V_NONE ? NULL : &%s.v.f" : "%s.v.f", v, v);
            break;
        case SCHEMA_BOOL:
        case SCHEMA_SYMBOOL:
            sb_printf(sb, opt ? "%s.tag == CLOPS_V_NONE ? NULL : &%s.v.b" : "%s.v.b", v, v);
            break;
        case SCHEMA_STR:
            sb_printf(sb, "%s.tag == CLOPS_V_NONE ? NULL : %s.v.str", v, v);
            break;
        case SCHEMA_SCALAR_TYPE:
            sb_printf(sb, "%s.tag == CLOPS_V_NONE ? CLOPS_DTYPE_NONE : %s.v.dtype", v, v);
            break;
        case SCHEMA_DEVICE:
            sb_printf(sb, "%s.tag == CLOPS_V_NONE ? NULL : %s.v.device", v, v);
            break;
        case SCHEMA_GENERATOR:
            sb_printf(sb, "%s.tag == CLOPS_V_NONE ? NULL : %s.v.gen", v, v);
            break;
        default:
            sb_printf(sb, "%s.tag == CLOPS_V_NONE ? -1 : %s.v.i", v, v);
        }
    }
}

/* The boxed adapter of an op. */
static void emit_adapter(strbuf *sb, const gen_op *op)
{
    const op_schema *s = op->schema;
    sb_printf(sb, "/* Boxed adapter of %s. */\n", op->qname);
    sb_printf(sb, "static clops_status ad_%s(dispatch_fnptr fn, clops_value *a, int na, "
                  "clops_value *r, int nr)\n{\n    (void)na;\n    (void)nr;\n    (void)a;\n",
              op->ident);
    for (int k = 0; k < s->nrets; k++) {
        ret_kind rk = ret_kind_of(&s->rets[k]);
        if (rk == RET_FRESH)
            sb_printf(sb, "    clops_tensor *r%d = NULL;\n", k);
        else if (rk == RET_SCALAR)
            sb_printf(sb, "    clops_scalar r%d = clops_scalar_int(0);\n", k);
        else if (rk == RET_LIST)
            sb_printf(sb, "    clops_tensor_list r%d = {NULL, 0};\n", k);
    }
    sb_printf(sb, "    clops_status st = ((clops__fn_%s)fn)(", op->ident);
    int n = 0;
    for (int i = 0; i < s->nargs; i++, n++) {
        char v[32];
        snprintf(v, sizeof v, "a[%d]", i);
        if (n)
            sb_append(sb, ", ");
        unbox_arg(sb, &s->args[i], v);
    }
    for (int k = 0; k < s->nrets; k++) {
        if (ret_kind_of(&s->rets[k]) == RET_ALIAS)
            continue;
        if (n++)
            sb_append(sb, ", ");
        sb_printf(sb, "&r%d", k);
    }
    sb_append(sb, ");\n    if (st)\n        return st;\n");
    for (int k = 0; k < s->nrets; k++) {
        ret_kind rk = ret_kind_of(&s->rets[k]);
        if (rk == RET_FRESH)
            sb_printf(sb, "    r[%d] = clops_value_tensor(r%d);\n", k, k);
        else if (rk == RET_SCALAR)
            sb_printf(sb, "    r[%d] = clops_value_scalar(r%d);\n", k, k);
        else if (rk == RET_LIST)
            sb_printf(sb, "    r[%d] = (clops_value){.tag = CLOPS_V_TENSOR_LIST, "
                          ".v.tensors = {r%d.data, r%d.len}};\n", k, k, k);
        else
            sb_printf(sb, "    r[%d] = clops_value_tensor(clops_tensor_retain(a[%d].v.t));\n", k,
                      ret_alias_arg(s, &s->rets[k]));
    }
    sb_append(sb, "    return CLOPS_OK;\n}\n\n");
}

/* The public wrapper of an op. */
static void emit_wrapper(strbuf *sb, const gen_op *op)
{
    const op_schema *s = op->schema;
    sb_printf(sb, "clops_status %s(", op->cname);
    op_params(sb, s);
    sb_append(sb, ")\n{\n");
    /* Argument checks the wrapper can make without dispatching. */
    for (int i = 0; i < s->nargs; i++) {
        const schema_arg *a = &s->args[i];
        if (a->type.base == SCHEMA_TENSOR && !a->type.is_list && !a->type.optional)
            sb_printf(sb, "    if (!%s)\n        return clops__fail(CLOPS_INVALID_ARGUMENT, "
                          "\"%s: argument '%s' is NULL\");\n",
                      a->name, op->qname, a->name);
    }
    for (int k = 0; k < s->nrets; k++) {
        if (ret_kind_of(&s->rets[k]) == RET_ALIAS)
            continue;
        char name[64];
        ret_name(s, k, name, sizeof name);
        sb_printf(sb, "    if (!%s)\n        return clops__fail(CLOPS_INVALID_ARGUMENT, "
                      "\"%s: result pointer '%s' is NULL\");\n",
                  name, op->qname, name);
    }
    int nts = 0;
    const char *list = NULL;
    const char *device = NULL;
    for (int i = 0; i < s->nargs; i++) {
        const schema_arg *a = &s->args[i];
        if (a->type.base == SCHEMA_TENSOR && !a->type.is_list && !(op->no_device_check && nts))
            nts++;
        else if (a->type.base == SCHEMA_TENSOR && a->type.is_list && !list)
            list = a->name;
        else if (a->type.base == SCHEMA_DEVICE && !device)
            device = a->name;
    }
    if (nts) {
        sb_append(sb, "    clops_tensor *const ts_[] = {");
        int n = 0;
        for (int i = 0; i < s->nargs && n < nts; i++) {
            const schema_arg *a = &s->args[i];
            if (a->type.base == SCHEMA_TENSOR && !a->type.is_list)
                sb_printf(sb, "%s%s", n++ ? ", " : "", a->name);
        }
        sb_append(sb, "};\n");
    }
    sb_append(sb, "    dispatch_call call_;\n");
    sb_printf(sb, "    clops_status st_ = dispatch_begin(CLOPS_OPID_%s, %s, %d, ", op->ident,
              nts ? "ts_" : "NULL", nts);
    if (list)
        sb_printf(sb, "%s, %s_len, ", list, list);
    else
        sb_append(sb, "NULL, 0, ");
    sb_printf(sb, "%s, &call_);\n", device ? device : "NULL");
    /* A complex dtype argument: refused unless the op takes complex. */
    for (int i = 0; i < s->nargs; i++)
        if (s->args[i].type.base == SCHEMA_SCALAR_TYPE && !s->args[i].type.is_list)
            sb_printf(sb, "    if (st_ == CLOPS_OK && (st_ = dispatch_dtype_arg(CLOPS_OPID_%s, %s)) "
                          "!= CLOPS_OK) {\n        dispatch_end(&call_);\n        return st_;\n    }\n",
                      op->ident, s->args[i].name);
    sb_append(sb, "    if (st_)\n        return st_;\n");
    sb_printf(sb, "    if (call_.kernel->typed) {\n        st_ = ((clops__fn_%s)call_.kernel->typed)(",
              op->ident);
    op_call_args(sb, s);
    sb_append(sb, ");\n    } else {\n");
    if (s->nargs) {
        sb_printf(sb, "        clops_value a_[%d] = {", s->nargs);
        for (int i = 0; i < s->nargs; i++) {
            if (i)
                sb_append(sb, ", ");
            box_arg(sb, &s->args[i]);
        }
        sb_append(sb, "};\n");
    }
    sb_printf(sb, "        clops_value r_[%d];\n", s->nrets ? s->nrets : 1);
    sb_printf(sb, "        st_ = dispatch_invoke_boxed(&call_, %s, %d, r_, %d);\n",
              s->nargs ? "a_" : "NULL", s->nargs, s->nrets);
    sb_append(sb, "        if (st_ == CLOPS_OK) {\n");
    for (int k = 0; k < s->nrets; k++) {
        ret_kind rk = ret_kind_of(&s->rets[k]);
        char name[64];
        ret_name(s, k, name, sizeof name);
        if (rk == RET_FRESH)
            sb_printf(sb, "            *%s = r_[%d].v.t;\n", name, k);
        else if (rk == RET_SCALAR)
            sb_printf(sb, "            *%s = r_[%d].v.s;\n", name, k);
        else if (rk == RET_LIST)
            sb_printf(sb, "            *%s = (clops_tensor_list){(clops_tensor **)r_[%d].v.tensors.data, "
                          "r_[%d].v.tensors.len};\n", name, k, k);
        else
            sb_printf(sb, "            clops_value_clear(&r_[%d]);\n", k);
    }
    sb_append(sb, "        }\n    }\n    dispatch_end(&call_);\n    return st_;\n}\n\n");
}

/* Appends "PW_FUNCTIONAL" etc. */
static const char *variant_enum(gen_variant v)
{
    return v == GEN_INPLACE ? "PW_INPLACE" : v == GEN_OUT ? "PW_OUT" : "PW_FUNCTIONAL";
}

/* The typed kernel of a pointwise-bound op. */
static void emit_pointwise_kernel(strbuf *sb, const gen_op *op)
{
    const op_schema *s = op->schema;
    sb_printf(sb, "/* %s through pw_op_%s. */\nstatic clops_status pk_%s(", op->qname, op->pw_name,
              op->ident);
    op_params(sb, s);
    sb_append(sb, ")\n{\n");
    int n = 0;
    strbuf args = STRBUF_INIT;
    for (int i = 0; i < s->nargs; i++) {
        if (op->variant == GEN_OUT && i == op->dst_arg)
            continue;
        const schema_arg *a = &s->args[i];
        if (n++)
            sb_append(&args, ", ");
        sb_printf(&args, a->type.base == SCHEMA_TENSOR ? "pw_arg_t(%s)" : "pw_arg_s(%s)", a->name);
    }
    sb_printf(sb, "    const pw_arg args[%d] = {%s};\n", n ? n : 1, n ? sb_str(&args) : "{0}");
    sb_free(&args);
    const char *dst = op->variant == GEN_FUNCTIONAL ? "NULL" : s->args[op->dst_arg].name;
    char outname[64] = "NULL";
    if (op->variant == GEN_FUNCTIONAL)
        ret_name(s, 0, outname, sizeof outname);
    sb_printf(sb, "    return pw_bound_run(&dispatch_pw_bindings[%d], %s, %s, args, %d, %s);\n}\n\n",
              op->binding, variant_enum(op->variant), dst, n, outname);
}

/* The typed kernel that calls a structured family function. */
static void emit_structured_kernel(strbuf *sb, const gen_op *op, const char *fn, int key)
{
    const op_schema *s = op->schema;
    sb_printf(sb, "/* %s (%s) through %s. */\nstatic clops_status sk_%s_%d(", op->qname,
              gen_key_names[key], fn, op->ident, key);
    op_params(sb, s);
    sb_append(sb, ")\n{\n");
    const char *dst = op->variant == GEN_FUNCTIONAL ? "NULL" : s->args[op->dst_arg].name;
    sb_printf(sb, "    return %s(%s, %s", fn, variant_enum(op->variant), dst);
    for (int i = 0; i < s->nargs; i++) {
        if (op->variant == GEN_OUT && i == op->dst_arg)
            continue;
        sb_append(sb, ", ");
        c_arg_names(sb, &s->args[i]);
    }
    char outname[64] = "NULL";
    if (op->variant == GEN_FUNCTIONAL)
        ret_name(s, 0, outname, sizeof outname);
    sb_printf(sb, ", %s);\n}\n\n", outname);
}

/* The registration table entries of one op. */
static void emit_kernel_table(strbuf *sb, const gen_op *op)
{
    int n = 0;
    for (int k = 0; k < GEN_NKEYS; k++)
        if (op->fns[k])
            n++;
    if (!n)
        return;
    sb_printf(sb, "static const dispatch_builtin_kernel kt_%s[] = {\n", op->ident);
    const char *prov = (op->derived || (op->impl == GEN_IMPL_STRUCTURED &&
                                        op->variant != GEN_FUNCTIONAL))
                           ? "CLOPS_PROV_STRUCTURED"
                           : "CLOPS_PROV_KERNEL";
    for (int k = 0; k < GEN_NKEYS; k++) {
        const char *fn = op->fns[k];
        if (!fn)
            continue;
        char name[160];
        switch (op->impl) {
        case GEN_IMPL_POINTWISE:
            snprintf(name, sizeof name, "pointwise:%s", fn);
            sb_printf(sb, "    {%s, (dispatch_fnptr)pk_%s, \"%s\", %s},\n", gen_key_enums[k],
                      op->ident, name, prov);
            break;
        case GEN_IMPL_STRUCTURED: {
            int first = k;
            for (int k2 = 0; k2 < k; k2++)
                if (op->fns[k2] && strcmp(op->fns[k2], fn) == 0) {
                    first = k2;
                    break;
                }
            snprintf(name, sizeof name, "structured:%s", fn);
            sb_printf(sb, "    {%s, (dispatch_fnptr)sk_%s_%d, \"%s\", %s},\n", gen_key_enums[k],
                      op->ident, first, name, prov);
            break;
        }
        default:
            sb_printf(sb, "    {%s, (dispatch_fnptr)%s, \"%s\", %s},\n", gen_key_enums[k], fn, fn,
                      prov);
        }
    }
    sb_append(sb, "};\n\n");
}

/* Escapes a string for a C literal. */
static void c_string(strbuf *sb, const char *s)
{
    sb_putc(sb, '"');
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            sb_putc(sb, '\\');
        sb_putc(sb, *s);
    }
    sb_putc(sb, '"');
}

/* The op's family as a C string: its inventory file's name without the
 * folder and the ".yaml" (dispatch/inventory/tensor.yaml -> "tensor"). */
static void c_family(strbuf *sb, const char *file)
{
    const char *base = strrchr(file, '/');
    base = base ? base + 1 : file;
    size_t len = strlen(base);
    if (len > 5 && strcmp(base + len - 5, ".yaml") == 0)
        len -= 5;
    sb_printf(sb, "\"%.*s\"", (int)len, base);
}

static void emit_source(strbuf *sb, const gen_model *m)
{
    sb_append(sb, banner);
    sb_append(sb, "/*\n * ops_generated.c: wrappers, boxed adapters, derived kernels, pointwise\n"
                  " * bindings and the registration table of every operator in the inventory.\n"
                  " */\n#include \"ops_generated.h\"\n#include \"core/error.h\"\n"
                  "#include \"dispatch/dispatch.h\"\n\n");
    /* Pointwise bindings. */
    sb_append(sb, "/* ---- pointwise bindings ---- */\n");
    for (int i = 0; i < m->nops; i++) {
        const gen_op *op = &m->ops[i];
        if (op->impl != GEN_IMPL_POINTWISE || op->derived)
            continue;
        sb_printf(sb, "static const char *const bn_%d[] = {", op->binding);
        int n = 0;
        for (int a = 0; a < op->schema->nargs; a++) {
            if (op->variant == GEN_OUT && a == op->dst_arg)
                continue;
            sb_printf(sb, "%s\"%s\"", n++ ? ", " : "", op->schema->args[a].name);
        }
        if (!n)
            sb_append(sb, "NULL");
        sb_append(sb, "};\n");
    }
    sb_printf(sb, "pw_binding dispatch_pw_bindings[%d] = {\n", m->nbindings ? m->nbindings : 1);
    for (int b = 0; b < m->nbindings; b++)
        for (int i = 0; i < m->nops; i++) {
            const gen_op *op = &m->ops[i];
            if (op->impl != GEN_IMPL_POINTWISE || op->derived || op->binding != b)
                continue;
            int n = op->schema->nargs - (op->variant == GEN_OUT ? 1 : 0);
            sb_printf(sb, "    {.op = &pw_op_%s, .opname = \"%s\", .nargs = %d, .argnames = bn_%d, "
                          ".lock = PTHREAD_MUTEX_INITIALIZER},\n",
                      op->pw_name, op->qname, n, b);
        }
    sb_printf(sb, "};\nconst int dispatch_pw_binding_count = %d;\n\n", m->nbindings);

    sb_append(sb, "/* ---- derived kernels and adapters ---- */\n");
    for (int i = 0; i < m->nops; i++) {
        const gen_op *op = &m->ops[i];
        if (op->impl == GEN_IMPL_POINTWISE)
            emit_pointwise_kernel(sb, op);
        if (op->impl == GEN_IMPL_STRUCTURED)
            for (int k = 0; k < GEN_NKEYS; k++) {
                if (!op->fns[k])
                    continue;
                bool dup = false;
                for (int k2 = 0; k2 < k; k2++)
                    if (op->fns[k2] && strcmp(op->fns[k2], op->fns[k]) == 0)
                        dup = true;
                if (!dup)
                    emit_structured_kernel(sb, op, op->fns[k], k);
            }
        emit_adapter(sb, op);
        emit_kernel_table(sb, op);
    }
    sb_append(sb, "/* ---- registration table ---- */\n");
    sb_printf(sb, "const dispatch_builtin_op dispatch_builtin_ops[%d] = {\n", m->nops ? m->nops : 1);
    for (int i = 0; i < m->nops; i++) {
        const gen_op *op = &m->ops[i];
        int n = 0;
        for (int k = 0; k < GEN_NKEYS; k++)
            if (op->fns[k])
                n++;
        sb_append(sb, "    {");
        c_string(sb, op->schema_text);
        sb_append(sb, ", ");
        c_string(sb, op->tags ? op->tags : "");
        sb_printf(sb, ", \"%s\", ad_%s, %s%s, %d, ", op->cname, op->ident, n ? "kt_" : "NULL",
                  n ? op->ident : "", n);
        if (op->check)
            c_string(sb, op->check);
        else
            sb_append(sb, "NULL");
        sb_printf(sb, ", %s, ", op->no_device_check ? "true" : "false");
        c_family(sb, op->file);
        sb_append(sb, "},\n");
    }
    sb_printf(sb, "};\nconst int dispatch_builtin_op_count = %d;\n\n", m->nops);
    sb_append(sb, "/* ---- public wrappers ---- */\n");
    for (int i = 0; i < m->nops; i++)
        emit_wrapper(sb, &m->ops[i]);
}

/* ---- ops.md --------------------------------------------------------------- */

static void emit_docs(strbuf *sb, const gen_model *m)
{
    sb_append(sb, "<!-- Generated by clops-opgen from dispatch/inventory/. Do not edit; rebuild "
                  "and run `cmake --build build --target clops-docs`. -->\n");
    sb_append(sb, "# Operator reference\n\n");
    sb_printf(sb, "clops registers %d operators. Each has a typed C function in `clops/ops.h`, "
                  "can be called boxed by name (`clops_op_find` + `clops_call_boxed`), and "
                  "dispatches as described in `docs/dispatcher.md`. The *kernels* column says "
                  "which dispatch keys have a kernel from the inventory: `pointwise` runs the "
                  "generated OpenCL kernels on every OpenCL device and the C reference on the "
                  "CPU; `structured` marks in-place and out variants derived from a family's "
                  "functional form. Devices without a kernel for an op use the CPU fallback "
                  "(`CLOPS_FALLBACK`).\n\n",
              m->nops);
    sb_append(sb, "| operator | C function | tags | kernels |\n| --- | --- | --- | --- |\n");
    for (int i = 0; i < m->nops; i++) {
        const gen_op *op = &m->ops[i];
        sb_printf(sb, "| `%s` | `%s` | %s | ", op->schema_text, op->cname,
                  op->tags && op->tags[0] ? op->tags : "");
        int n = 0;
        for (int k = 0; k < GEN_NKEYS; k++) {
            if (!op->fns[k])
                continue;
            const char *how = op->impl == GEN_IMPL_POINTWISE ? "pointwise"
                              : op->derived || (op->impl == GEN_IMPL_STRUCTURED &&
                                                op->variant != GEN_FUNCTIONAL)
                                  ? "structured"
                                  : "kernel";
            sb_printf(sb, "%s%s (%s)", n++ ? ", " : "", gen_key_names[k], how);
        }
        if (!n)
            sb_append(sb, "none (fallback only)");
        sb_append(sb, " |\n");
    }
}

int gen_emit(const gen_model *m, const char *dir)
{
    char path[1024];
    int rc = 0;
    strbuf sb = STRBUF_INIT;
    const char *sub[] = {"", "/include", "/include/clops", "/ops", "/codegen_pointwise"};
    for (int i = 0; i < 5; i++) {
        snprintf(path, sizeof path, "%s%s", dir, sub[i]);
        if (mkdir(path, 0755) != 0 && errno != EEXIST) {
            fprintf(stderr, "clops-opgen: cannot create %s\n", path);
            return 1;
        }
    }
    emit_public(&sb, m);
    snprintf(path, sizeof path, "%s/include/clops/ops.h", dir);
    rc |= write_if_changed(path, &sb);
    sb_clear(&sb);
    emit_internal_header(&sb, m);
    snprintf(path, sizeof path, "%s/ops/kernels_generated.h", dir);
    rc |= write_if_changed(path, &sb);
    sb_clear(&sb);
    emit_registration_header(&sb);
    snprintf(path, sizeof path, "%s/ops_generated.h", dir);
    rc |= write_if_changed(path, &sb);
    sb_clear(&sb);
    emit_source(&sb, m);
    snprintf(path, sizeof path, "%s/ops_generated.c", dir);
    rc |= write_if_changed(path, &sb);
    sb_clear(&sb);
    emit_docs(&sb, m);
    snprintf(path, sizeof path, "%s/ops.md", dir);
    rc |= write_if_changed(path, &sb);
    sb_clear(&sb);
    sb_append(&sb, banner);
    gen_pw_emit(&sb, m);
    snprintf(path, sizeof path, "%s/codegen_pointwise/pw_ops_generated.c", dir);
    rc |= write_if_changed(path, &sb);
    if (sb.failed) {
        fprintf(stderr, "clops-opgen: out of memory\n");
        rc = 1;
    }
    sb_free(&sb);
    return rc;
}
