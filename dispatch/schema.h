/* SPDX-License-Identifier: Apache-2.0 */
/*
 * dispatch/schema.h: operator schemas in the grammar of PyTorch's
 * native_functions.yaml, parsed into a plain struct and printed back.
 *
 *     add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
 *     max.dim_max(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) max,
 *                 Tensor(b!) max_values) -> (Tensor(a!) values, Tensor(b!) indices)
 *
 * Two programs use it: the library's dispatcher at run time (boxed argument
 * checking, the CPU fallback's write-back of mutated arguments) and the
 * build-time generator clops-opgen, which compiles schema.c with only
 * core/status.c and core/strbuf.c.  So schema.c depends on libc and those two
 * files and nothing else.
 *
 * A type is one level deep, which is all the grammar uses: a base type, an
 * optional alias annotation (Tensor only), then `?` on the element, `[]` or
 * `[N]`, and `?` on the whole type: `Tensor(a!)[]`, `Tensor?[]`, `int[1]?`.
 * Nested lists (`int[][]`) are rejected.
 *
 * Printing gives the canonical text: single spaces as in native_functions.yaml,
 * no spaces inside default lists, defaults otherwise exactly as written.  For
 * every schema that parses, parse(print(s)) succeeds and prints the same text.
 *
 * Ownership: schema_parse hands out an op_schema that the caller frees with
 * schema_free; every string and array inside it belongs to it.  Nothing here
 * keeps global state, so all functions are thread-safe (the error message is
 * thread-local).
 */
#ifndef CLOPS_DISPATCH_SCHEMA_H
#define CLOPS_DISPATCH_SCHEMA_H

#include <stdbool.h>
#include <stdint.h>

#include "clops/status.h"
#include "core/strbuf.h"

/* Longest schema text schema_parse accepts, in bytes. */
#define SCHEMA_MAX_TEXT (1 << 20)
/* Most arguments, and most returns, one schema may have. */
#define SCHEMA_MAX_ITEMS 4096
/* Largest N in a fixed-size list type `T[N]`. */
#define SCHEMA_MAX_LIST_SIZE 65535

/*
 * X(ENUM_SUFFIX, "spelling"): the base types, written once and expanded into
 * schema_base and the name table.  The first seventeen are the ones the
 * dispatcher was designed around; SymBool and DeviceIndex follow because
 * native_functions.yaml uses them too.
 */
#define SCHEMA_BASE_LIST(X)                                                                        \
    X(TENSOR, "Tensor")                                                                            \
    X(SCALAR, "Scalar")                                                                            \
    X(INT, "int")                                                                                  \
    X(SYMINT, "SymInt")                                                                            \
    X(FLOAT, "float")                                                                              \
    X(BOOL, "bool")                                                                                \
    X(STR, "str")                                                                                  \
    X(SCALAR_TYPE, "ScalarType")                                                                   \
    X(LAYOUT, "Layout")                                                                            \
    X(DEVICE, "Device")                                                                            \
    X(MEMORY_FORMAT, "MemoryFormat")                                                               \
    X(GENERATOR, "Generator")                                                                      \
    X(DIMNAME, "Dimname")                                                                          \
    X(STORAGE, "Storage")                                                                          \
    X(STREAM, "Stream")                                                                            \
    X(QSCHEME, "QScheme")                                                                          \
    X(ANY, "Any")                                                                                  \
    X(SYMBOOL, "SymBool")                                                                          \
    X(DEVICE_INDEX, "DeviceIndex")

/* clang-format off */
typedef enum schema_base {
#define SCHEMA__BASE_ENUM(name, spelling) SCHEMA_##name,
    SCHEMA_BASE_LIST(SCHEMA__BASE_ENUM)
#undef SCHEMA__BASE_ENUM
    SCHEMA_BASE_COUNT
} schema_base;
/* clang-format on */

/*
 * A type.  `int` is {INT, false, false, -1, false}; `Tensor?[]` is
 * {TENSOR, elem_optional, is_list, -1, false}; `int[1]?` is
 * {INT, false, is_list, 1, optional}.  list_size is -1 unless the type is a
 * list with a written size; elem_optional is only set on lists.
 */
typedef struct schema_type {
    schema_base base;
    bool elem_optional; /* Tensor?[]: each element may be None */
    bool is_list;
    int list_size; /* N of T[N]; -1 when no [N] */
    bool optional; /* trailing ? on the whole type */
} schema_type;

/*
 * An alias annotation, only on Tensor types: `(a)` reads alias set a,
 * `(a!)` writes it, `(a -> *)` puts the result into the wildcard set,
 * `(a|b)` may alias either, `(a -> a|b)` moves a into a|b.  set and after
 * hold the names joined by '|' ("a", "a|b"); each name is one lowercase
 * letter.  after is "" unless an arrow to named sets was written.
 */
typedef struct schema_alias {
    bool present;
    char set[16];
    bool is_write;
    bool to_wildcard; /* "-> *" */
    char after[16];   /* "-> a|b" (without the arrow); "" when none */
} schema_alias;

typedef enum schema_default_kind {
    SCHEMA_DEFAULT_NONE_GIVEN, /* no "=..." */
    SCHEMA_DEFAULT_NONE,       /* =None */
    SCHEMA_DEFAULT_INT,        /* =1, =-100 (i; f holds the same value) */
    SCHEMA_DEFAULT_FLOAT,      /* =1e-05, =0.5, =inf, =-inf, =nan (f) */
    SCHEMA_DEFAULT_BOOL,       /* =True, =False (b) */
    SCHEMA_DEFAULT_STRING,     /* ="none", ='mean' (s, escapes resolved) */
    SCHEMA_DEFAULT_INT_LIST,   /* =[0,1], =[] (ints, n_ints) */
    SCHEMA_DEFAULT_IDENT,      /* =Mean, =contiguous_format, =long (s) */
    SCHEMA_DEFAULT_KIND_COUNT
} schema_default_kind;

/*
 * A default value: its kind, its parsed value in the field the kind names,
 * and its text exactly as written (NULL when kind is NONE_GIVEN).  Printing
 * uses text when it is not NULL (with whitespace outside quotes removed), so
 * `1e-05` stays `1e-05`; a hand-built default may leave text NULL and is
 * then printed from its value.
 */
typedef struct schema_default {
    schema_default_kind kind;
    int64_t i;
    double f;
    bool b;
    char *s;
    int64_t *ints;
    int n_ints;
    char *text;
} schema_default;

typedef struct schema_arg {
    char *name;
    schema_type type;
    schema_alias alias;
    bool kwarg_only; /* after the bare `*` */
    schema_default def;
} schema_arg;

typedef struct schema_ret {
    char *name; /* NULL when the return is unnamed */
    schema_type type;
    schema_alias alias;
} schema_ret;

/*
 * A whole schema.  rets_parenthesized records whether the returns were
 * written in parentheses; it is always true when nrets != 1 (`-> ()`,
 * `-> (Tensor, Tensor)`), and printing adds the parentheses then anyway.
 */
typedef struct op_schema {
    char *name;     /* "add_", "__and__" */
    char *overload; /* "Tensor"; "" when none */
    schema_arg *args;
    int nargs;
    schema_ret *rets;
    int nrets;
    bool rets_parenthesized;
} op_schema;

/*
 * Parses one schema.  On success *out is a new op_schema (free it with
 * schema_free) that has passed schema_validate.  On failure *out is NULL and
 * the status is CLOPS_SCHEMA_ERROR for malformed text, with a thread-local
 * message naming the 1-based column (counted in bytes) of the offending token
 * and showing the text with a caret under it:
 *
 *     schema error at column 24: expected ')' or ',' after argument, got 'Tensor'
 *       add.Tensor(Tensor self Tensor x) -> Tensor
 *                              ^
 *
 * (semantic errors found by schema_validate point at the argument's name,
 * type, alias or default the same way); CLOPS_HOST_OUT_OF_MEMORY when an
 * allocation failed; CLOPS_INVALID_ARGUMENT when text or out is NULL.
 */
clops_status schema_parse(const char *text, op_schema **out);

/* Frees a schema and everything in it.  NULL is a no-op. */
void schema_free(op_schema *s);

/*
 * Semantic checks on a parsed or hand-built schema: well-formed names and
 * types, no duplicate argument (or return) names, keyword-only arguments
 * last, every default fits its type (`int x=True` and `Tensor x=1` do not),
 * alias annotations only on Tensor types.  CLOPS_OK or CLOPS_SCHEMA_ERROR
 * with a message; CLOPS_INVALID_ARGUMENT for NULL.
 */
clops_status schema_validate(const op_schema *s);

/* Appends the canonical text of s to sb.  Appends nothing for NULL. */
void schema_print(strbuf *sb, const op_schema *s);

/* The canonical text as a new string (free it); NULL for NULL or on OOM. */
char *schema_to_string(const op_schema *s);

/* "Tensor", "SymInt", ...; "?" for a value out of range.  Never NULL. */
const char *schema_base_name(schema_base b);

/* Looks a base type up by its spelling (n bytes of name); false if unknown. */
bool schema_base_from_name(const char *name, size_t n, schema_base *out);

/* Appends a type with its alias annotation: `Tensor(a!)[]`.  a may be NULL. */
void schema_type_print(strbuf *sb, const schema_type *t, const schema_alias *a);

/* True when the argument's alias annotation writes (`Tensor(a!)`). */
bool schema_arg_is_mutable(const schema_arg *a);

/*
 * True for an out= variant: it has at least one keyword-only mutable Tensor
 * argument, and each of them is returned (a return carries the same alias
 * set with `!`) or the schema returns nothing (`-> ()`, as the _foreach_
 * out variants do).
 */
bool schema_is_out_variant(const op_schema *s);

/* True for an in-place variant: the name ends in '_' (`add_`) or is an
 * in-place dunder (`__iand__`), and it is not an out variant. */
bool schema_is_inplace(const op_schema *s);

/* Whether two parsed schemas have the same structure: names, overload,
 * arguments (types, aliases, kwarg-only, defaults; NaN equals NaN) and
 * returns. */
bool schema_equal(const op_schema *a, const op_schema *b);

/* Index of the argument called name, or -1 (also for NULL arguments). */
int schema_find_arg(const op_schema *s, const char *name);

/* "add.Tensor", or "relu" without an overload; new string (free it), NULL
 * for NULL or on OOM. */
char *schema_qualified_name(const op_schema *s);

/* ---- variants (dispatch/schema_variants.c) ---- */

/* The usual overload of an out variant: "out" for an empty or "Tensor"
 * overload, else "<overload>_out". */
void schema_out_overload(const op_schema *f, char *buf, size_t cap);

/* Appends the schema text of the in-place (inplace=true) or out variant of
 * the functional schema f; out_overload NULL means schema_out_overload. */
void schema_derive_variant(strbuf *sb, const op_schema *f, bool inplace, const char *out_overload);

#endif /* CLOPS_DISPATCH_SCHEMA_H */
