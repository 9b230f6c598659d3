/* SPDX-License-Identifier: Apache-2.0 */
/*
 * dispatch/schema.c: the parser, validator and printer of dispatch/schema.h.
 *
 * A hand-written recursive-descent parser without recursion: the grammar is
 * flat (a name, an argument list, a return list; types are one level deep),
 * so every construct is read by a loop and hostile input cannot exhaust the
 * stack.  The parser walks a NUL-terminated string and never looks past the
 * NUL.  Positions of every argument's type, alias, name and default are kept
 * on the side, so that the semantic checks of schema_validate, run on a
 * freshly parsed schema, can point at a column as the syntax errors do.
 *
 * Every function that can fail returns a clops_status and has one cleanup
 * path; the schema under construction owns everything allocated so far, so
 * freeing it is the whole cleanup.  This file depends on libc,
 * core/status.c and core/strbuf.c only: clops-opgen links nothing else.
 */
#include "dispatch/schema.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"

static const char *const base_names[] = {
#define SCHEMA__BASE_NAME(name, spelling) spelling,
    SCHEMA_BASE_LIST(SCHEMA__BASE_NAME)
#undef SCHEMA__BASE_NAME
};

_Static_assert(sizeof base_names / sizeof base_names[0] == SCHEMA_BASE_COUNT,
               "base_names must list every schema_base");

/* Source positions (byte offsets) of the parts of one argument or return. */
typedef struct item_marks {
    size_t type, alias, name, def;
} item_marks;

/* State of one schema_parse call. */
typedef struct parser {
    const char *text;
    size_t pos;
    op_schema *s;
    int args_cap, rets_cap;
    item_marks *arg_marks; /* args_cap entries */
    item_marks *ret_marks; /* rets_cap entries */
} parser;

/* Character classes, independent of the locale and of char's signedness. */
static bool is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* True for '0'..'9'. */
static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* True for a character that may start an identifier. */
static bool is_ident_start(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

/* True for a character that may continue an identifier. */
static bool is_ident_char(char c)
{
    return is_ident_start(c) || is_digit(c);
}

/* True when s is a non-empty identifier. */
static bool is_identifier(const char *s)
{
    if (!s || !is_ident_start(s[0]))
        return false;
    for (const char *c = s; *c; c++)
        if (!is_ident_char(*c))
            return false;
    return true;
}

/* Words that are default values of their own, not identifiers. */
static bool is_reserved_word(const char *s)
{
    static const char *const words[] = {"None", "True", "False", "inf", "nan"};
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (strcmp(s, words[i]) == 0)
            return true;
    return false;
}

/* A new NUL-terminated copy of n bytes of s; NULL on OOM. */
static char *copy_range(const char *s, size_t n)
{
    char *p = malloc(n + 1);
    if (p) {
        memcpy(p, s, n);
        p[n] = '\0';
    }
    return p;
}

/* ---------------------------------------------------------------- errors -- */

/* Writes a short description of the text at pos ("'Tensor'", "end of
 * input", "byte 0x07") into buf. */
static void describe_at(const char *text, size_t pos, char *buf, size_t cap)
{
    char c = text[pos];
    if (c == '\0') {
        snprintf(buf, cap, "end of input");
    } else if (is_ident_char(c)) {
        size_t n = 0;
        while (n < 41 && is_ident_char(text[pos + n]))
            n++;
        snprintf(buf, cap, "'%.*s%s'", (int)(n > 40 ? 40 : n), text + pos, n > 40 ? "..." : "");
    } else if (c > ' ' && c < 0x7f) {
        snprintf(buf, cap, "'%c'", c);
    } else if (is_space(c)) {
        snprintf(buf, cap, "%s", c == ' ' ? "a space" : c == '\t' ? "a tab" : "a line break");
    } else {
        snprintf(buf, cap, "byte 0x%02x", (unsigned)(unsigned char)c);
    }
}

/* How a byte of the schema is shown in a message: control bytes as spaces,
 * non-ASCII bytes as '?', so a message is always printable ASCII. */
static char shown_char(char ch)
{
    unsigned char c = (unsigned char)ch;
    return c >= 0x80 ? '?' : (c < ' ' || c == 0x7f) ? ' ' : ch;
}

/* Copies at most cap-1 bytes of src into dst for a message: control bytes
 * become spaces, non-ASCII bytes '?', and a cut is marked with "...". */
static const char *sanitize(char *dst, size_t cap, const char *src)
{
    size_t n = 0;
    for (; src[n] && n + 4 < cap; n++)
        dst[n] = shown_char(src[n]);
    if (src[n] && cap >= 4) {
        memcpy(dst + n, "...", 3);
        n += 3;
    }
    if (cap > 0)
        dst[n] = '\0';
    return dst;
}

/*
 * Records "schema error at column N: detail", the schema text (a window of it
 * when long, control bytes shown as spaces and non-ASCII bytes as '?') and a
 * caret under column N.  Allocates nothing, so it can report any failure.
 */
static clops_status vfail_at(const char *text, size_t pos, const char *fmt, va_list ap)
{
    enum { WINDOW = 120, BEFORE = 60 };
    char detail[512];
    char shown[WINDOW + 1];
    vsnprintf(detail, sizeof detail, fmt, ap);

    size_t len = 0;
    while (len < pos + WINDOW && text[len])
        len++;
    size_t start = pos > BEFORE ? pos - BEFORE : 0;
    if (start > len)
        start = len;
    size_t n = len - start < WINDOW ? len - start : WINDOW;
    for (size_t i = 0; i < n; i++)
        shown[i] = shown_char(text[start + i]);
    shown[n] = '\0';
    const char *lead = start > 0 ? "..." : "";
    const char *tail = text[start + n] ? "..." : "";
    int caret = (int)(pos - start + strlen(lead));
    return clops__fail(CLOPS_SCHEMA_ERROR, "schema error at column %zu: %s\n  %s%s%s\n  %*s^",
                       pos + 1, detail, lead, shown, tail, caret, "");
}

/* vfail_at with a variable argument list. */
static clops_status fail_at(const char *text, size_t pos, const char *fmt, ...) CLOPS__PRINTF(3, 4);
static clops_status fail_at(const char *text, size_t pos, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    clops_status st = vfail_at(text, pos, fmt, ap);
    va_end(ap);
    return st;
}

/* "expected <what>, got <what is there>" at the parser's position. */
static clops_status fail_expected(const parser *p, const char *what)
{
    char got[64];
    describe_at(p->text, p->pos, got, sizeof got);
    return fail_at(p->text, p->pos, "expected %s, got %s", what, got);
}

/*
 * A semantic error: with the source text (during schema_parse) it points at
 * pos like a syntax error; without (a hand-built schema) it names the schema.
 */
static clops_status report(const op_schema *s, const char *text, size_t pos, const char *fmt, ...)
    CLOPS__PRINTF(4, 5);
static clops_status report(const op_schema *s, const char *text, size_t pos, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    clops_status st;
    if (text) {
        st = vfail_at(text, pos, fmt, ap);
    } else {
        char detail[512], name[104], overload[104];
        vsnprintf(detail, sizeof detail, fmt, ap);
        sanitize(name, sizeof name, s->name ? s->name : "");
        sanitize(overload, sizeof overload, s->overload ? s->overload : "");
        st = clops__fail(CLOPS_SCHEMA_ERROR, "schema error in '%s%s%s': %s", name,
                         overload[0] ? "." : "", overload, detail);
    }
    va_end(ap);
    return st;
}

/* -------------------------------------------------------------- printing -- */

/* Writes a type with its alias annotation into buf (96 bytes suffice). */
static void type_to_buf(char *buf, size_t cap, const schema_type *t, const schema_alias *a)
{
    char alias[48] = "";
    char size[16] = "";
    if (a && a->present) {
        const char *arrow = a->to_wildcard ? " -> *" : a->after[0] ? " -> " : "";
        snprintf(alias, sizeof alias, "(%.15s%s%s%.15s)", a->set, a->is_write ? "!" : "", arrow,
                 a->to_wildcard ? "" : a->after);
    }
    if (t->is_list && t->list_size >= 0)
        snprintf(size, sizeof size, "%d", t->list_size);
    snprintf(buf, cap, "%s%s%s%s%s%s%s", schema_base_name(t->base), alias,
             t->is_list && t->elem_optional ? "?" : "", t->is_list ? "[" : "", size,
             t->is_list ? "]" : "", t->optional ? "?" : "");
}

/* Appends a float so that it reads back as the same double and as a float. */
static void print_float(strbuf *sb, double f)
{
    char buf[40];
    if (isnan(f)) {
        sb_append(sb, "nan");
        return;
    }
    if (isinf(f)) {
        sb_append(sb, f < 0 ? "-inf" : "inf");
        return;
    }
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(buf, sizeof buf, "%.*g", prec, f);
        if (strtod(buf, NULL) == f)
            break;
    }
    sb_append(sb, buf);
    if (!strpbrk(buf, ".e"))
        sb_append(sb, ".0");
}

/* Appends a string default in double quotes with escapes. */
static void print_string(strbuf *sb, const char *s)
{
    sb_putc(sb, '"');
    for (; *s; s++) {
        switch (*s) {
        case '"': sb_append(sb, "\\\""); break;
        case '\\': sb_append(sb, "\\\\"); break;
        case '\n': sb_append(sb, "\\n"); break;
        case '\t': sb_append(sb, "\\t"); break;
        case '\r': sb_append(sb, "\\r"); break;
        default: sb_putc(sb, *s); break;
        }
    }
    sb_putc(sb, '"');
}

/* Appends a default: its text without whitespace outside quotes, or, for a
 * hand-built default without text, its value. */
static void print_default(strbuf *sb, const schema_default *d)
{
    if (d->text) {
        char quote = 0;
        for (const char *c = d->text; *c; c++) {
            if (quote) {
                sb_putc(sb, *c);
                if (*c == '\\' && c[1])
                    sb_putc(sb, *++c);
                else if (*c == quote)
                    quote = 0;
            } else if (*c == '"' || *c == '\'') {
                quote = *c;
                sb_putc(sb, *c);
            } else if (!is_space(*c)) {
                sb_putc(sb, *c);
            }
        }
        return;
    }
    switch (d->kind) {
    case SCHEMA_DEFAULT_NONE: sb_append(sb, "None"); break;
    case SCHEMA_DEFAULT_INT: sb_printf(sb, "%lld", (long long)d->i); break;
    case SCHEMA_DEFAULT_FLOAT: print_float(sb, d->f); break;
    case SCHEMA_DEFAULT_BOOL: sb_append(sb, d->b ? "True" : "False"); break;
    case SCHEMA_DEFAULT_STRING: print_string(sb, d->s ? d->s : ""); break;
    case SCHEMA_DEFAULT_IDENT: sb_append(sb, d->s ? d->s : ""); break;
    case SCHEMA_DEFAULT_INT_LIST:
        sb_putc(sb, '[');
        for (int k = 0; k < d->n_ints && d->ints; k++)
            sb_printf(sb, "%s%lld", k ? "," : "", (long long)d->ints[k]);
        sb_putc(sb, ']');
        break;
    default: break;
    }
}

const char *schema_base_name(schema_base b)
{
    if ((int)b < 0 || (int)b >= SCHEMA_BASE_COUNT)
        return "?";
    return base_names[b];
}

bool schema_base_from_name(const char *name, size_t n, schema_base *out)
{
    if (!name)
        return false;
    for (int b = 0; b < SCHEMA_BASE_COUNT; b++) {
        if (strlen(base_names[b]) == n && memcmp(base_names[b], name, n) == 0) {
            if (out)
                *out = (schema_base)b;
            return true;
        }
    }
    return false;
}

void schema_type_print(strbuf *sb, const schema_type *t, const schema_alias *a)
{
    char buf[96];
    if (!sb || !t)
        return;
    type_to_buf(buf, sizeof buf, t, a);
    sb_append(sb, buf);
}

void schema_print(strbuf *sb, const op_schema *s)
{
    if (!sb || !s)
        return;
    sb_append(sb, s->name ? s->name : "");
    if (s->overload && s->overload[0]) {
        sb_putc(sb, '.');
        sb_append(sb, s->overload);
    }
    sb_putc(sb, '(');
    for (int i = 0; i < s->nargs && s->args; i++) {
        const schema_arg *a = &s->args[i];
        if (i > 0)
            sb_append(sb, ", ");
        if (a->kwarg_only && (i == 0 || !s->args[i - 1].kwarg_only))
            sb_append(sb, "*, ");
        schema_type_print(sb, &a->type, &a->alias);
        sb_putc(sb, ' ');
        sb_append(sb, a->name ? a->name : "");
        if (a->def.kind != SCHEMA_DEFAULT_NONE_GIVEN) {
            sb_putc(sb, '=');
            print_default(sb, &a->def);
        }
    }
    sb_append(sb, ") -> ");
    bool paren = s->rets_parenthesized || s->nrets != 1;
    if (paren)
        sb_putc(sb, '(');
    for (int i = 0; i < s->nrets && s->rets; i++) {
        const schema_ret *r = &s->rets[i];
        if (i > 0)
            sb_append(sb, ", ");
        schema_type_print(sb, &r->type, &r->alias);
        if (r->name) {
            sb_putc(sb, ' ');
            sb_append(sb, r->name);
        }
    }
    if (paren)
        sb_putc(sb, ')');
}

char *schema_to_string(const op_schema *s)
{
    strbuf sb = STRBUF_INIT;
    if (!s)
        return NULL;
    schema_print(&sb, s);
    return sb_take(&sb);
}

/* ------------------------------------------------------------ validation -- */

/* Checks an alias set string: names of one lowercase letter joined by '|'. */
static bool alias_set_ok(const char *set, bool may_be_empty)
{
    if (!memchr(set, '\0', 16))
        return false;
    if (set[0] == '\0')
        return may_be_empty;
    for (size_t i = 0; set[i]; i++) {
        bool letter_here = i % 2 == 0;
        if (letter_here ? !(set[i] >= 'a' && set[i] <= 'z') : set[i] != '|')
            return false;
        if (letter_here && set[i + 1] == '\0')
            return true;
    }
    return false; /* ends with '|' */
}

/* True when the default's kind can be the value of a type. */
static bool default_fits(const schema_type *t, const schema_default *d)
{
    schema_base b = t->base;
    if (b == SCHEMA_ANY)
        return true;
    switch (d->kind) {
    case SCHEMA_DEFAULT_NONE_GIVEN: return true;
    case SCHEMA_DEFAULT_NONE: return t->optional;
    case SCHEMA_DEFAULT_INT:
        if (t->is_list) /* int[2] padding=0 repeats the value */
            return t->list_size > 0 && (b == SCHEMA_INT || b == SCHEMA_SYMINT);
        return b == SCHEMA_INT || b == SCHEMA_SYMINT || b == SCHEMA_FLOAT || b == SCHEMA_SCALAR ||
               b == SCHEMA_DEVICE_INDEX;
    case SCHEMA_DEFAULT_FLOAT: return !t->is_list && (b == SCHEMA_FLOAT || b == SCHEMA_SCALAR);
    case SCHEMA_DEFAULT_BOOL:
        return !t->is_list && (b == SCHEMA_BOOL || b == SCHEMA_SYMBOOL || b == SCHEMA_SCALAR);
    case SCHEMA_DEFAULT_STRING: return !t->is_list && b == SCHEMA_STR;
    case SCHEMA_DEFAULT_INT_LIST:
        if (!t->is_list)
            return false;
        return d->n_ints == 0 || b == SCHEMA_INT || b == SCHEMA_SYMINT || b == SCHEMA_FLOAT;
    case SCHEMA_DEFAULT_IDENT: /* reduction=Mean, dtype=long, memory_format=contiguous_format */
        return !t->is_list &&
               (b == SCHEMA_INT || b == SCHEMA_SCALAR_TYPE || b == SCHEMA_LAYOUT ||
                b == SCHEMA_DEVICE || b == SCHEMA_MEMORY_FORMAT || b == SCHEMA_QSCHEME);
    default: return false;
    }
}

/* Checks a type and its alias; what names the item ("argument 'x'"). */
static clops_status check_type(const op_schema *s, const char *text, const item_marks *m,
                               const schema_type *t, const schema_alias *a, const char *what)
{
    size_t tpos = m ? m->type : 0, apos = m ? m->alias : 0;
    if ((int)t->base < 0 || t->base >= SCHEMA_BASE_COUNT)
        return report(s, text, tpos, "%s has an invalid base type %d", what, (int)t->base);
    if (t->is_list ? t->list_size == 0 || t->list_size < -1 || t->list_size > SCHEMA_MAX_LIST_SIZE
                   : t->list_size != -1)
        return report(s, text, tpos, "%s has an invalid list size %d", what, t->list_size);
    if (t->elem_optional && !t->is_list)
        return report(s, text, tpos, "%s has an optional element but is not a list", what);
    if (!a->present)
        return CLOPS_OK;
    if (t->base != SCHEMA_TENSOR)
        return report(s, text, apos, "alias annotation on non-Tensor type '%s' of %s",
                      schema_base_name(t->base), what);
    if (!alias_set_ok(a->set, false) || !alias_set_ok(a->after, true))
        return report(s, text, apos, "%s has a malformed alias annotation", what);
    if (a->is_write && strlen(a->set) > 1)
        return report(s, text, apos, "%s: a written alias annotation names exactly one alias set",
                      what);
    if (strlen(a->set) > 1 && strlen(a->after) > 1)
        return report(s, text, apos, "%s: alias sets before and after '->' cannot both be unions",
                      what);
    if (a->to_wildcard && a->after[0])
        return report(s, text, apos, "%s: alias annotation goes to '*' and to named sets", what);
    return CLOPS_OK;
}

/* Checks a default's fields and that it fits the argument's type. */
static clops_status check_default(const op_schema *s, const char *text, const item_marks *m,
                                  const schema_arg *a)
{
    const schema_default *d = &a->def;
    size_t pos = m ? m->def : 0;
    char tbuf[96];
    if ((int)d->kind < 0 || d->kind >= SCHEMA_DEFAULT_KIND_COUNT)
        return report(s, text, pos, "argument '%s' has an invalid default kind %d", a->name,
                      (int)d->kind);
    bool needs_s = d->kind == SCHEMA_DEFAULT_STRING || d->kind == SCHEMA_DEFAULT_IDENT;
    if ((needs_s && !d->s) || d->n_ints < 0 || (d->n_ints > 0 && !d->ints) ||
        (d->kind == SCHEMA_DEFAULT_IDENT && (!is_identifier(d->s) || is_reserved_word(d->s))))
        return report(s, text, pos, "argument '%s' has a malformed default", a->name);
    if (default_fits(&a->type, d))
        return CLOPS_OK;
    type_to_buf(tbuf, sizeof tbuf, &a->type, NULL);
    static const char *const kinds[] = {"",       "None",     "an integer",      "a float",
                                        "a bool", "a string", "an integer list", "an identifier"};
    _Static_assert(sizeof kinds / sizeof kinds[0] == SCHEMA_DEFAULT_KIND_COUNT,
                   "kinds must name every schema_default_kind");
    char shown[48];
    if (d->text)
        return report(s, text, pos, "default %s (%s) does not fit type '%s' of argument '%s'",
                      sanitize(shown, sizeof shown, d->text), kinds[d->kind], tbuf, a->name);
    return report(s, text, pos, "a default of %s does not fit type '%s' of argument '%s'",
                  kinds[d->kind], tbuf, a->name);
}

/*
 * The checks of schema_validate.  With text and marks (from schema_parse)
 * errors point at columns; without, they name the schema.
 */
static clops_status validate(const op_schema *s, const char *text, const item_marks *am,
                             const item_marks *rm)
{
    clops_status st = CLOPS_OK;
    char what[160];
    if (!is_identifier(s->name))
        return report(s, text, 0, "the operator name is not an identifier");
    for (const char *c = s->overload; c && *c; c++)
        if (!is_ident_char(*c))
            return report(s, text, 0, "the overload name has a character other than [A-Za-z0-9_]");
    if (s->nargs < 0 || s->nargs > SCHEMA_MAX_ITEMS || (s->nargs > 0 && !s->args) || s->nrets < 0 ||
        s->nrets > SCHEMA_MAX_ITEMS || (s->nrets > 0 && !s->rets))
        return report(s, text, 0, "argument or return counts are out of range");
    for (int i = 0; i < s->nargs; i++) {
        const schema_arg *a = &s->args[i];
        const item_marks *m = am ? &am[i] : NULL;
        if (!is_identifier(a->name))
            return report(s, text, m ? m->name : 0, "argument %d has no valid name", i);
        for (int j = 0; j < i; j++)
            if (strcmp(s->args[j].name, a->name) == 0)
                return report(s, text, m ? m->name : 0, "duplicate argument name '%s'", a->name);
        if (i > 0 && s->args[i - 1].kwarg_only && !a->kwarg_only)
            return report(s, text, m ? m->name : 0,
                          "positional argument '%s' follows keyword-only arguments", a->name);
        snprintf(what, sizeof what, "argument '%.100s'", a->name);
        if ((st = check_type(s, text, m, &a->type, &a->alias, what)) != CLOPS_OK)
            return st;
        if ((st = check_default(s, text, m, a)) != CLOPS_OK)
            return st;
    }
    for (int i = 0; i < s->nrets; i++) {
        const schema_ret *r = &s->rets[i];
        const item_marks *m = rm ? &rm[i] : NULL;
        if (r->name && !is_identifier(r->name))
            return report(s, text, m ? m->name : 0, "return %d has an invalid name", i);
        for (int j = 0; r->name && j < i; j++)
            if (s->rets[j].name && strcmp(s->rets[j].name, r->name) == 0)
                return report(s, text, m ? m->name : 0, "duplicate return name '%s'", r->name);
        snprintf(what, sizeof what, "return %d", i);
        if ((st = check_type(s, text, m, &r->type, &r->alias, what)) != CLOPS_OK)
            return st;
    }
    return CLOPS_OK;
}

clops_status schema_validate(const op_schema *s)
{
    if (!s)
        return clops__fail(CLOPS_INVALID_ARGUMENT, "schema_validate: NULL schema");
    return validate(s, NULL, NULL, NULL);
}

/* --------------------------------------------------------------- parsing -- */

/* Skips spaces, tabs and line breaks. */
static void skip_ws(parser *p)
{
    while (is_space(p->text[p->pos]))
        p->pos++;
}

/* The next capacity of the argument or return array, up to the limit. */
static int next_cap(int cap)
{
    int ncap = cap ? cap * 2 : 8;
    return ncap > SCHEMA_MAX_ITEMS ? SCHEMA_MAX_ITEMS : ncap;
}

/* Makes room for one more argument (and its marks). */
static clops_status reserve_arg(parser *p)
{
    if (p->s->nargs < p->args_cap)
        return CLOPS_OK;
    int ncap = next_cap(p->args_cap);
    schema_arg *na = realloc(p->s->args, (size_t)ncap * sizeof *na);
    if (!na)
        return CLOPS__HOST_OOM("schema");
    p->s->args = na;
    item_marks *nm = realloc(p->arg_marks, (size_t)ncap * sizeof *nm);
    if (!nm)
        return CLOPS__HOST_OOM("schema");
    p->arg_marks = nm;
    p->args_cap = ncap;
    return CLOPS_OK;
}

/* Makes room for one more return (and its marks). */
static clops_status reserve_ret(parser *p)
{
    if (p->s->nrets < p->rets_cap)
        return CLOPS_OK;
    int ncap = next_cap(p->rets_cap);
    schema_ret *nr = realloc(p->s->rets, (size_t)ncap * sizeof *nr);
    if (!nr)
        return CLOPS__HOST_OOM("schema");
    p->s->rets = nr;
    item_marks *nm = realloc(p->ret_marks, (size_t)ncap * sizeof *nm);
    if (!nm)
        return CLOPS__HOST_OOM("schema");
    p->ret_marks = nm;
    p->rets_cap = ncap;
    return CLOPS_OK;
}

/* Reads an identifier into a new string; what names it for errors. */
static clops_status parse_ident(parser *p, char **out, const char *what)
{
    size_t start = p->pos;
    if (!is_ident_start(p->text[start]))
        return fail_expected(p, what);
    while (is_ident_char(p->text[p->pos]))
        p->pos++;
    *out = copy_range(p->text + start, p->pos - start);
    return *out ? CLOPS_OK : CLOPS__HOST_OOM("schema");
}

/* Reads `name` or `name.overload`. */
static clops_status parse_op_name(parser *p)
{
    clops_status st = parse_ident(p, &p->s->name, "an operator name");
    if (st != CLOPS_OK)
        return st;
    size_t start = p->pos;
    if (p->text[p->pos] == '.') {
        start = ++p->pos;
        while (is_ident_char(p->text[p->pos]))
            p->pos++;
        if (p->pos == start)
            return fail_expected(p, "an overload name after '.'");
    }
    p->s->overload = copy_range(p->text + start, p->pos - start);
    return p->s->overload ? CLOPS_OK : CLOPS__HOST_OOM("schema");
}

/* Reads alias set names (one lowercase letter each) joined by '|' into
 * set[16]. */
static clops_status parse_alias_set(parser *p, char set[16])
{
    size_t n = 0;
    for (;;) {
        char c = p->text[p->pos];
        if (!(c >= 'a' && c <= 'z'))
            return fail_expected(p, "an alias set name (a lowercase letter)");
        if (n + 1 >= 16)
            return fail_at(p->text, p->pos, "too many alias sets in one annotation");
        if (n > 0)
            set[n++] = '|';
        set[n++] = c;
        set[n] = '\0';
        p->pos++;
        if (is_ident_char(p->text[p->pos]))
            return fail_at(p->text, p->pos, "alias set names are single lowercase letters");
        skip_ws(p);
        if (p->text[p->pos] != '|')
            return CLOPS_OK;
        p->pos++;
        skip_ws(p);
    }
}

/* Reads `(a)`, `(a!)`, `(a -> *)`, `(a|b)`, `(a -> a|b)`; at '('. */
static clops_status parse_alias(parser *p, schema_alias *a)
{
    clops_status st;
    a->present = true;
    p->pos++;
    skip_ws(p);
    if ((st = parse_alias_set(p, a->set)) != CLOPS_OK)
        return st;
    if (p->text[p->pos] == '!') {
        a->is_write = true;
        p->pos++;
        skip_ws(p);
    }
    if (p->text[p->pos] == '-' && p->text[p->pos + 1] == '>') {
        p->pos += 2;
        skip_ws(p);
        if (p->text[p->pos] == '*') {
            a->to_wildcard = true;
            p->pos++;
            skip_ws(p);
        } else if ((st = parse_alias_set(p, a->after)) != CLOPS_OK) {
            return st;
        }
    }
    if (p->text[p->pos] != ')')
        return fail_expected(p, "')' closing the alias annotation");
    p->pos++;
    return CLOPS_OK;
}

/* Reads a type: Base, then optionally (alias), ?, [N] or [], ?. */
static clops_status parse_type(parser *p, schema_type *t, schema_alias *a, item_marks *m)
{
    clops_status st;
    size_t start = p->pos;
    m->type = start;
    if (!is_ident_start(p->text[start]))
        return fail_expected(p, "a type");
    while (is_ident_char(p->text[p->pos]))
        p->pos++;
    if (!schema_base_from_name(p->text + start, p->pos - start, &t->base))
        return fail_at(p->text, start, "unknown type '%.*s'",
                       (int)(p->pos - start > 40 ? 40 : p->pos - start), p->text + start);
    t->list_size = -1;
    if (p->text[p->pos] == '(') {
        m->alias = p->pos;
        if ((st = parse_alias(p, a)) != CLOPS_OK)
            return st;
    }
    bool question = p->text[p->pos] == '?';
    if (question)
        p->pos++;
    if (p->text[p->pos] == '[') {
        t->is_list = true;
        t->elem_optional = question;
        size_t digits = ++p->pos;
        long size = 0;
        while (is_digit(p->text[p->pos])) {
            if (size <= SCHEMA_MAX_LIST_SIZE)
                size = size * 10 + (p->text[p->pos] - '0');
            p->pos++;
        }
        if (p->pos > digits) {
            if (size < 1 || size > SCHEMA_MAX_LIST_SIZE)
                return fail_at(p->text, digits, "list size must be between 1 and %d",
                               SCHEMA_MAX_LIST_SIZE);
            t->list_size = (int)size;
        }
        if (p->text[p->pos] != ']')
            return fail_expected(p, "a list size or ']'");
        p->pos++;
        question = p->text[p->pos] == '?';
        if (question)
            p->pos++;
    }
    t->optional = question;
    char c = p->text[p->pos];
    if (c == '?' || c == '[' || c == '(')
        return fail_at(p->text, p->pos,
                       "'%c' cannot follow this type (nested types are not "
                       "supported; an alias annotation comes right after the base type)",
                       c);
    return CLOPS_OK;
}

/* Reads an integer (optional '-', digits) into *v; not followed by a
 * character that would make it a float or a word. */
static clops_status parse_int(parser *p, int64_t *v)
{
    size_t start = p->pos;
    bool neg = p->text[p->pos] == '-';
    if (neg)
        p->pos++;
    if (!is_digit(p->text[p->pos]))
        return fail_expected(p, "an integer");
    int64_t acc = 0; /* accumulated negatively so that INT64_MIN fits */
    for (; is_digit(p->text[p->pos]); p->pos++) {
        int d = p->text[p->pos] - '0';
        if (acc < (INT64_MIN + d) / 10)
            return fail_at(p->text, start, "integer default out of range");
        acc = acc * 10 - d;
    }
    if (!neg && acc == INT64_MIN)
        return fail_at(p->text, start, "integer default out of range");
    if (is_ident_char(p->text[p->pos]) || p->text[p->pos] == '.')
        return fail_at(p->text, p->pos, "unexpected character in an integer");
    *v = neg ? acc : -acc;
    return CLOPS_OK;
}

/* Reads a number default: an integer, or a float with '.' or an exponent,
 * or -inf. */
static clops_status parse_number(parser *p, schema_default *d)
{
    const char *t = p->text;
    size_t start = p->pos, q = p->pos;
    if (t[q] == '-')
        q++;
    if (t[q] == 'i' && t[q + 1] == 'n' && t[q + 2] == 'f' && !is_ident_char(t[q + 3])) {
        d->kind = SCHEMA_DEFAULT_FLOAT;
        d->f = t[start] == '-' ? -HUGE_VAL : HUGE_VAL;
        p->pos = q + 3;
        return CLOPS_OK;
    }
    size_t ndigits = 0;
    bool is_float = false;
    for (; is_digit(t[q]); q++)
        ndigits++;
    if (t[q] == '.') {
        is_float = true;
        for (q++; is_digit(t[q]); q++)
            ndigits++;
    }
    if (ndigits == 0) {
        p->pos = q;
        return fail_expected(p, "a digit");
    }
    if (t[q] == 'e' || t[q] == 'E') {
        is_float = true;
        q++;
        if (t[q] == '+' || t[q] == '-')
            q++;
        if (!is_digit(t[q])) {
            p->pos = q;
            return fail_expected(p, "exponent digits");
        }
        while (is_digit(t[q]))
            q++;
    }
    if (!is_float) {
        d->kind = SCHEMA_DEFAULT_INT;
        clops_status st = parse_int(p, &d->i);
        d->f = (double)d->i;
        return st;
    }
    if (is_ident_char(t[q]) || t[q] == '.')
        return fail_at(t, q, "unexpected character in a number");
    /* The token is validated above, so strtod reads exactly it; under a
     * locale whose decimal point is not '.', it stops early and the check
     * below reports that instead of reading a wrong value. */
    char *end = NULL;
    d->kind = SCHEMA_DEFAULT_FLOAT;
    d->f = strtod(t + start, &end);
    if (end != t + q)
        return fail_at(t, start, "float default could not be converted");
    if (isinf(d->f))
        return fail_at(t, start, "float default out of range");
    p->pos = q;
    return CLOPS_OK;
}

/* Reads a quoted string default with \\ \" \' \n \t \r escapes. */
static clops_status parse_string(parser *p, schema_default *d)
{
    const char *t = p->text;
    size_t start = p->pos, q = p->pos + 1;
    char quote = t[start];
    for (; t[q] != quote; q++) {
        if (t[q] == '\0')
            return fail_at(t, start, "unterminated string default");
        if (t[q] == '\\') {
            q++;
            if (t[q] == '\0')
                return fail_at(t, start, "unterminated string default");
            if (!strchr("\\\"'ntr", t[q]))
                return fail_at(t, q - 1, "unknown escape '\\%c' in a string default",
                               t[q] > ' ' && t[q] < 0x7f ? t[q] : '?');
        }
    }
    char *s = malloc(q - start);
    if (!s)
        return CLOPS__HOST_OOM("schema");
    size_t n = 0;
    for (size_t i = start + 1; i < q; i++) {
        char c = t[i];
        if (c == '\\') {
            c = t[++i];
            c = c == 'n' ? '\n' : c == 't' ? '\t' : c == 'r' ? '\r' : c;
        }
        s[n++] = c;
    }
    s[n] = '\0';
    d->kind = SCHEMA_DEFAULT_STRING;
    d->s = s;
    p->pos = q + 1;
    return CLOPS_OK;
}

/* Reads an integer list default `[0,1]`, `[-2, -1]` or `[]`. */
static clops_status parse_int_list(parser *p, schema_default *d)
{
    clops_status st = CLOPS_OK;
    int cap = 0;
    d->kind = SCHEMA_DEFAULT_INT_LIST;
    p->pos++;
    skip_ws(p);
    if (p->text[p->pos] == ']') {
        p->pos++;
        return CLOPS_OK;
    }
    for (;;) {
        if (d->n_ints == cap) {
            if (cap >= SCHEMA_MAX_ITEMS)
                return fail_at(p->text, p->pos, "too many elements in a list default");
            int ncap = cap ? cap * 2 : 4;
            int64_t *ni = realloc(d->ints, (size_t)ncap * sizeof *ni);
            if (!ni)
                return CLOPS__HOST_OOM("schema");
            d->ints = ni;
            cap = ncap;
        }
        if (p->text[p->pos] != '-' && !is_digit(p->text[p->pos]))
            return fail_expected(p, "an integer in the list default");
        if ((st = parse_int(p, &d->ints[d->n_ints])) != CLOPS_OK)
            return st;
        d->n_ints++;
        skip_ws(p);
        if (p->text[p->pos] == ']') {
            p->pos++;
            return CLOPS_OK;
        }
        if (p->text[p->pos] != ',')
            return fail_expected(p, "',' or ']' in the list default");
        p->pos++;
        skip_ws(p);
    }
}

/* Reads a default value after '=' and keeps its text. */
static clops_status parse_default(parser *p, schema_default *d)
{
    clops_status st;
    size_t start = p->pos;
    char c = p->text[start];
    if (c == '"' || c == '\'') {
        st = parse_string(p, d);
    } else if (c == '[') {
        st = parse_int_list(p, d);
    } else if (c == '-' || c == '.' || is_digit(c)) {
        st = parse_number(p, d);
    } else if (is_ident_start(c)) {
        char *word = NULL;
        if ((st = parse_ident(p, &word, "a default value")) != CLOPS_OK)
            return st;
        if (strcmp(word, "None") == 0) {
            d->kind = SCHEMA_DEFAULT_NONE;
        } else if (strcmp(word, "True") == 0 || strcmp(word, "False") == 0) {
            d->kind = SCHEMA_DEFAULT_BOOL;
            d->b = word[0] == 'T';
            d->i = d->b;
        } else if (strcmp(word, "inf") == 0 || strcmp(word, "nan") == 0) {
            d->kind = SCHEMA_DEFAULT_FLOAT;
            d->f = word[0] == 'i' ? HUGE_VAL : NAN;
        } else {
            d->kind = SCHEMA_DEFAULT_IDENT;
            d->s = word;
            word = NULL;
        }
        free(word);
    } else {
        return fail_expected(p, "a default value");
    }
    if (st != CLOPS_OK)
        return st;
    d->text = copy_range(p->text + start, p->pos - start);
    return d->text ? CLOPS_OK : CLOPS__HOST_OOM("schema");
}

/* Reads one argument `Type name[=default]` and appends it. */
static clops_status parse_arg(parser *p, bool kwarg_only)
{
    clops_status st;
    op_schema *s = p->s;
    if (s->nargs >= SCHEMA_MAX_ITEMS)
        return fail_at(p->text, p->pos, "more than %d arguments", SCHEMA_MAX_ITEMS);
    if ((st = reserve_arg(p)) != CLOPS_OK)
        return st;
    schema_arg *a = &s->args[s->nargs];
    item_marks *m = &p->arg_marks[s->nargs];
    memset(a, 0, sizeof *a);
    memset(m, 0, sizeof *m);
    s->nargs++;
    a->kwarg_only = kwarg_only;
    if ((st = parse_type(p, &a->type, &a->alias, m)) != CLOPS_OK)
        return st;
    if (!is_space(p->text[p->pos]))
        return fail_expected(p, "a space and the argument name after the type");
    skip_ws(p);
    m->name = p->pos;
    if ((st = parse_ident(p, &a->name, "an argument name")) != CLOPS_OK)
        return st;
    skip_ws(p);
    if (p->text[p->pos] != '=')
        return CLOPS_OK;
    p->pos++;
    skip_ws(p);
    m->def = p->pos;
    return parse_default(p, &a->def);
}

/* Reads the parenthesised argument list, `*` included. */
static clops_status parse_args(parser *p)
{
    clops_status st;
    bool kwarg_only = false;
    if (p->text[p->pos] != '(')
        return fail_expected(p, "'(' after the operator name");
    p->pos++;
    skip_ws(p);
    if (p->text[p->pos] == ')') {
        p->pos++;
        return CLOPS_OK;
    }
    for (;;) {
        if (p->text[p->pos] == '*') {
            if (kwarg_only)
                return fail_at(p->text, p->pos, "a second '*' in the argument list");
            size_t star = p->pos++;
            kwarg_only = true;
            skip_ws(p);
            if (p->text[p->pos] == ')')
                return fail_at(p->text, star, "'*' must be followed by keyword-only arguments");
            if (p->text[p->pos] != ',')
                return fail_expected(p, "',' after '*'");
            p->pos++;
            skip_ws(p);
            continue;
        }
        if ((st = parse_arg(p, kwarg_only)) != CLOPS_OK)
            return st;
        skip_ws(p);
        if (p->text[p->pos] == ')') {
            p->pos++;
            return CLOPS_OK;
        }
        if (p->text[p->pos] != ',')
            return fail_expected(p, "')' or ',' after argument");
        p->pos++;
        skip_ws(p);
    }
}

/* Reads one return `Type [name]` and appends it. */
static clops_status parse_ret(parser *p)
{
    clops_status st;
    op_schema *s = p->s;
    if (s->nrets >= SCHEMA_MAX_ITEMS)
        return fail_at(p->text, p->pos, "more than %d returns", SCHEMA_MAX_ITEMS);
    if ((st = reserve_ret(p)) != CLOPS_OK)
        return st;
    schema_ret *r = &s->rets[s->nrets];
    item_marks *m = &p->ret_marks[s->nrets];
    memset(r, 0, sizeof *r);
    memset(m, 0, sizeof *m);
    s->nrets++;
    if ((st = parse_type(p, &r->type, &r->alias, m)) != CLOPS_OK)
        return st;
    size_t after_type = p->pos;
    skip_ws(p);
    if (p->pos == after_type || !is_ident_start(p->text[p->pos]))
        return CLOPS_OK;
    m->name = p->pos;
    return parse_ident(p, &r->name, "a return name");
}

/* Reads `-> Type [name]` or `-> (Type [name], ...)` or `-> ()`. */
static clops_status parse_returns(parser *p)
{
    clops_status st;
    if (p->text[p->pos] != '-' || p->text[p->pos + 1] != '>')
        return fail_expected(p, "'->' and the returns after the arguments");
    p->pos += 2;
    skip_ws(p);
    if (p->text[p->pos] != '(') {
        p->s->rets_parenthesized = false;
        return parse_ret(p);
    }
    p->s->rets_parenthesized = true;
    p->pos++;
    skip_ws(p);
    if (p->text[p->pos] == ')') {
        p->pos++;
        return CLOPS_OK;
    }
    for (;;) {
        if ((st = parse_ret(p)) != CLOPS_OK)
            return st;
        skip_ws(p);
        if (p->text[p->pos] == ')') {
            p->pos++;
            return CLOPS_OK;
        }
        if (p->text[p->pos] != ',')
            return fail_expected(p, "')' or ',' after return");
        p->pos++;
        skip_ws(p);
    }
}

clops_status schema_parse(const char *text, op_schema **out)
{
    clops_status st = CLOPS_OK;
    parser p = {text, 0, NULL, 0, 0, NULL, NULL};
    if (!out)
        return clops__fail(CLOPS_INVALID_ARGUMENT, "schema_parse: NULL out");
    *out = NULL;
    if (!text)
        return clops__fail(CLOPS_INVALID_ARGUMENT, "schema_parse: NULL text");
    size_t len = 0;
    while (len <= SCHEMA_MAX_TEXT && text[len])
        len++;
    if (len > SCHEMA_MAX_TEXT)
        return fail_at(text, 0, "schema text longer than %d bytes", SCHEMA_MAX_TEXT);

    p.s = calloc(1, sizeof *p.s);
    if (!p.s) {
        st = CLOPS__HOST_OOM("schema");
        goto cleanup;
    }
    skip_ws(&p);
    if ((st = parse_op_name(&p)) != CLOPS_OK)
        goto cleanup;
    skip_ws(&p);
    if ((st = parse_args(&p)) != CLOPS_OK)
        goto cleanup;
    skip_ws(&p);
    if ((st = parse_returns(&p)) != CLOPS_OK)
        goto cleanup;
    skip_ws(&p);
    if (p.text[p.pos] != '\0') {
        st = fail_expected(&p, "the end of the schema");
        goto cleanup;
    }
    if ((st = validate(p.s, text, p.arg_marks, p.ret_marks)) != CLOPS_OK)
        goto cleanup;
    *out = p.s;
    p.s = NULL;
cleanup:
    free(p.arg_marks);
    free(p.ret_marks);
    schema_free(p.s);
    return st;
}

void schema_free(op_schema *s)
{
    if (!s)
        return;
    for (int i = 0; i < s->nargs && s->args; i++) {
        free(s->args[i].name);
        free(s->args[i].def.s);
        free(s->args[i].def.ints);
        free(s->args[i].def.text);
    }
    for (int i = 0; i < s->nrets && s->rets; i++)
        free(s->rets[i].name);
    free(s->args);
    free(s->rets);
    free(s->name);
    free(s->overload);
    free(s);
}

/* ---------------------------------------------------------------- queries -- */

bool schema_arg_is_mutable(const schema_arg *a)
{
    return a && a->alias.present && a->alias.is_write;
}

bool schema_is_out_variant(const op_schema *s)
{
    bool any = false;
    if (!s || !s->args)
        return false;
    for (int i = 0; i < s->nargs; i++) {
        const schema_arg *a = &s->args[i];
        if (!a->kwarg_only || a->type.base != SCHEMA_TENSOR || !schema_arg_is_mutable(a))
            continue;
        any = true;
        bool returned = s->nrets == 0;
        for (int j = 0; j < s->nrets && s->rets && !returned; j++) {
            const schema_alias *r = &s->rets[j].alias;
            returned = r->present && r->is_write && strcmp(r->set, a->alias.set) == 0;
        }
        if (!returned)
            return false;
    }
    return any;
}

bool schema_is_inplace(const op_schema *s)
{
    if (!s || !s->name)
        return false;
    size_t n = strlen(s->name);
    bool dunder = n > 4 && strncmp(s->name, "__", 2) == 0 && strcmp(s->name + n - 2, "__") == 0;
    bool inplace = dunder ? n > 5 && s->name[2] == 'i' : n > 0 && s->name[n - 1] == '_';
    return inplace && !schema_is_out_variant(s);
}

/* True when two types and aliases are the same. */
static bool same_type(const schema_type *a, const schema_alias *aa, const schema_type *b,
                      const schema_alias *ba)
{
    return a->base == b->base && a->elem_optional == b->elem_optional && a->is_list == b->is_list &&
           a->list_size == b->list_size && a->optional == b->optional &&
           aa->present == ba->present && strcmp(aa->set, ba->set) == 0 &&
           aa->is_write == ba->is_write && aa->to_wildcard == ba->to_wildcard &&
           strcmp(aa->after, ba->after) == 0;
}

/* True when two defaults have the same kind and value (NaN equals NaN). */
static bool same_default(const schema_default *a, const schema_default *b)
{
    if (a->kind != b->kind)
        return false;
    switch (a->kind) {
    case SCHEMA_DEFAULT_INT: return a->i == b->i;
    case SCHEMA_DEFAULT_FLOAT: return a->f == b->f || (a->f != a->f && b->f != b->f);
    case SCHEMA_DEFAULT_BOOL: return a->b == b->b;
    case SCHEMA_DEFAULT_STRING:
    case SCHEMA_DEFAULT_IDENT: return strcmp(a->s, b->s) == 0;
    case SCHEMA_DEFAULT_INT_LIST:
        return a->n_ints == b->n_ints &&
               (a->n_ints == 0 ||
                memcmp(a->ints, b->ints, (size_t)a->n_ints * sizeof *a->ints) == 0);
    default: return true;
    }
}

/* True when two schemas have the same structure. */
bool schema_equal(const op_schema *a, const op_schema *b)
{
    if (strcmp(a->name, b->name) != 0 || strcmp(a->overload, b->overload) != 0 ||
        a->nargs != b->nargs || a->nrets != b->nrets ||
        a->rets_parenthesized != b->rets_parenthesized)
        return false;
    for (int i = 0; i < a->nargs; i++) {
        const schema_arg *x = &a->args[i], *y = &b->args[i];
        if (strcmp(x->name, y->name) != 0 || x->kwarg_only != y->kwarg_only ||
            !same_type(&x->type, &x->alias, &y->type, &y->alias) || !same_default(&x->def, &y->def))
            return false;
    }
    for (int i = 0; i < a->nrets; i++) {
        const schema_ret *x = &a->rets[i], *y = &b->rets[i];
        if ((x->name == NULL) != (y->name == NULL) || (x->name && strcmp(x->name, y->name) != 0) ||
            !same_type(&x->type, &x->alias, &y->type, &y->alias))
            return false;
    }
    return true;
}

int schema_find_arg(const op_schema *s, const char *name)
{
    if (!s || !name || !s->args)
        return -1;
    for (int i = 0; i < s->nargs; i++)
        if (s->args[i].name && strcmp(s->args[i].name, name) == 0)
            return i;
    return -1;
}

char *schema_qualified_name(const op_schema *s)
{
    if (!s || !s->name)
        return NULL;
    const char *ov = s->overload ? s->overload : "";
    size_t n = strlen(s->name), m = strlen(ov);
    char *q = malloc(n + m + 2);
    if (!q)
        return NULL;
    memcpy(q, s->name, n);
    q[n] = '\0';
    if (m) {
        q[n] = '.';
        memcpy(q + n + 1, ov, m + 1);
    }
    return q;
}
