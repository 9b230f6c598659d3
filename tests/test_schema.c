/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/test_schema.c: the operator-schema parser of dispatch/schema.h.
 *
 * Three data files drive the broad checks: tests/data/schemas_corpus.txt (real
 * schemas from native_functions.yaml plus synthetic ones; each must print back
 * exactly and be a fixed point of parse-then-print) and
 * tests/data/schemas_malformed.txt (each must fail at the column written next
 * to it).  The other tests pin one behaviour each: how a construct is parsed,
 * what the semantic checks reject, what the helpers answer, and that NULL and
 * hostile input are handled.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "dispatch/schema.h"

#ifndef CLOPS_TEST_DATA_DIR
#error "CLOPS_TEST_DATA_DIR must name the tests/data directory"
#endif

#define CORPUS_FILE CLOPS_TEST_DATA_DIR "/schemas_corpus.txt"
#define MALFORMED_FILE CLOPS_TEST_DATA_DIR "/schemas_malformed.txt"

/* ---------------------------------------------------------------- helpers -- */

/* Parses text, failing the test with the parser's message if it does not. */
static op_schema *parse_ok(const char *text)
{
    op_schema *s = NULL;
    clops_status st = schema_parse(text, &s);
    if (st != CLOPS_OK)
        fail_msg("schema_parse(\"%s\") = %s: %s", text, clops_status_name(st), clops_last_error());
    assert_non_null(s);
    return s;
}

/* Parses text that must fail with CLOPS_SCHEMA_ERROR; returns the message. */
static const char *parse_fails(const char *text)
{
    op_schema *s = (op_schema *)&s; /* must be reset to NULL */
    clops_status st = schema_parse(text, &s);
    if (st != CLOPS_SCHEMA_ERROR)
        fail_msg("schema_parse(\"%s\") = %s, expected SCHEMA_ERROR", text, clops_status_name(st));
    assert_null(s);
    return clops_last_error();
}

/* The column named by a "schema error at column N:" message, or -1. */
static int error_column(const char *msg)
{
    int col = -1;
    if (sscanf(msg, "schema error at column %d:", &col) != 1)
        return -1;
    return col;
}

/* Prints s canonically into a new string (free it). */
static char *print_new(const op_schema *s)
{
    char *t = schema_to_string(s);
    assert_non_null(t);
    return t;
}

/* Asserts that two schemas have the same structure, printing both. */
static void assert_same_schema(const op_schema *a, const op_schema *b)
{
    if (!schema_equal(a, b)) {
        char *ta = schema_to_string(a), *tb = schema_to_string(b);
        print_error("schemas differ:\n  %s\n  %s\n", ta ? ta : "?", tb ? tb : "?");
        free(ta);
        free(tb);
        fail();
    }
}

/* schema_equal tells schemas apart by every part of their structure and
 * treats NaN defaults as equal. */
static void schema_equal_compares_structure(void **state)
{
    (void)state;
    static const char *const texts[] = {
        "f(Tensor self, float x=nan) -> Tensor",
        "f(Tensor other, float x=nan) -> Tensor",
        "f(Tensor(a!) self, float x=nan) -> Tensor",
        "f(Tensor self, *, float x=nan) -> Tensor",
        "f(Tensor self, float x=1.5) -> Tensor",
        "f(Tensor? self, float x=nan) -> Tensor",
        "f(Tensor self, float x=nan) -> (Tensor)",
        "f(Tensor self, float x=nan) -> Tensor[]",
        "f.o(Tensor self, float x=nan) -> Tensor",
        "g(Tensor self, float x=nan) -> Tensor",
    };
    enum { N = sizeof texts / sizeof texts[0] };
    op_schema *s[N];
    for (int i = 0; i < N; i++)
        s[i] = parse_ok(texts[i]);
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            if (schema_equal(s[i], s[j]) != (i == j))
                fail_msg("schema_equal(%s, %s) should be %s", texts[i], texts[j],
                         i == j ? "true" : "false");
    op_schema *again = parse_ok(texts[0]);
    assert_true(schema_equal(s[0], again));
    schema_free(again);
    for (int i = 0; i < N; i++)
        schema_free(s[i]);
}

/* Calls fn(line, ctx) for each non-comment, non-blank line of a data file;
 * returns the number of lines given. */
static int for_each_line(const char *path, void (*fn)(char *line, void *ctx), void *ctx)
{
    char line[8192];
    int n = 0;
    FILE *f = fopen(path, "r");
    if (!f)
        fail_msg("cannot open %s", path);
    while (fgets(line, sizeof line, f)) {
        size_t len = strlen(line);
        if (len + 1 == sizeof line)
            fail_msg("line too long in %s", path);
        while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
            line[--len] = '\0';
        if (len == 0 || line[0] == '#')
            continue;
        fn(line, ctx);
        n++;
    }
    fclose(f);
    return n;
}

/* ------------------------------------------------------ corpus-wide tests -- */

/* Does nothing: used to count lines. */
static void count_line(char *line, void *ctx)
{
    (void)line;
    (void)ctx;
}

static void corpus_holds_at_least_150_schemas(void **state)
{
    (void)state;
    assert_true(for_each_line(CORPUS_FILE, count_line, NULL) >= 150);
}

/* Checks that one corpus line prints back exactly. */
static void check_round_trip(char *line, void *ctx)
{
    (void)ctx;
    op_schema *s = parse_ok(line);
    char *text = print_new(s);
    if (strcmp(text, line) != 0)
        fail_msg("printed\n  %s\nexpected\n  %s", text, line);
    free(text);
    schema_free(s);
}

static void every_corpus_schema_prints_back_exactly(void **state)
{
    (void)state;
    for_each_line(CORPUS_FILE, check_round_trip, NULL);
}

/* Checks that parse(print(parse(line))) has the same structure and text. */
static void check_fixed_point(char *line, void *ctx)
{
    (void)ctx;
    op_schema *a = parse_ok(line);
    char *ta = print_new(a);
    op_schema *b = parse_ok(ta);
    char *tb = print_new(b);
    assert_string_equal(ta, tb);
    assert_same_schema(a, b);
    assert_int_equal(schema_validate(a), CLOPS_OK);
    free(ta);
    free(tb);
    schema_free(a);
    schema_free(b);
}

static void every_corpus_schema_is_a_fixed_point_of_parse_and_print(void **state)
{
    (void)state;
    for_each_line(CORPUS_FILE, check_fixed_point, NULL);
}

/* Checks one "COLUMN<TAB>schema" line of the malformed file. */
static void check_malformed(char *line, void *ctx)
{
    (void)ctx;
    char *tab = strchr(line, '\t');
    if (!tab)
        fail_msg("no TAB in malformed line: %s", line);
    *tab = '\0';
    int want = atoi(line);
    const char *msg = parse_fails(tab + 1);
    int got = error_column(msg);
    if (got != want)
        fail_msg("schema \"%s\": expected column %d, got message\n%s", tab + 1, want, msg);
}

static void every_malformed_schema_fails_at_its_column(void **state)
{
    (void)state;
    assert_true(for_each_line(MALFORMED_FILE, check_malformed, NULL) >= 50);
}

/* ------------------------------------------------------- names and shape -- */

static void name_without_overload_has_empty_overload(void **state)
{
    (void)state;
    op_schema *s = parse_ok("relu(Tensor self) -> Tensor");
    assert_string_equal(s->name, "relu");
    assert_string_equal(s->overload, "");
    assert_int_equal(s->nargs, 1);
    assert_int_equal(s->nrets, 1);
    assert_false(s->rets_parenthesized);
    schema_free(s);
}

static void overload_is_split_from_name(void **state)
{
    (void)state;
    op_schema *s = parse_ok("add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor");
    assert_string_equal(s->name, "add");
    assert_string_equal(s->overload, "Tensor");
    schema_free(s);
}

static void inplace_name_keeps_trailing_underscore(void **state)
{
    (void)state;
    op_schema *s = parse_ok("add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> "
                            "Tensor(a!)");
    assert_string_equal(s->name, "add_");
    assert_true(schema_is_inplace(s));
    assert_false(schema_is_out_variant(s));
    schema_free(s);
}

static void dunder_names_parse_and_only_the_i_ones_are_inplace(void **state)
{
    (void)state;
    op_schema *a = parse_ok("__and__.Tensor(Tensor self, Tensor other) -> Tensor");
    op_schema *b = parse_ok("__iand__.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)");
    assert_string_equal(a->name, "__and__");
    assert_false(schema_is_inplace(a));
    assert_true(schema_is_inplace(b));
    schema_free(a);
    schema_free(b);
}

static void star_makes_the_following_arguments_keyword_only(void **state)
{
    (void)state;
    op_schema *s = parse_ok("div.Tensor_mode(Tensor self, Tensor other, *, str? rounding_mode) -> "
                            "Tensor");
    assert_int_equal(s->nargs, 3);
    assert_false(s->args[0].kwarg_only);
    assert_false(s->args[1].kwarg_only);
    assert_true(s->args[2].kwarg_only);
    assert_int_equal(s->args[2].type.base, SCHEMA_STR);
    assert_true(s->args[2].type.optional);
    assert_int_equal(s->args[2].def.kind, SCHEMA_DEFAULT_NONE_GIVEN);
    assert_null(s->args[2].def.text);
    schema_free(s);
}

static void empty_argument_list_and_leading_star_parse(void **state)
{
    (void)state;
    op_schema *a = parse_ok("_use_cudnn_rnn_flatten_weight() -> bool");
    op_schema *b = parse_ok("f(*, Tensor(a!) out) -> Tensor(a!)");
    assert_int_equal(a->nargs, 0);
    assert_int_equal(b->nargs, 1);
    assert_true(b->args[0].kwarg_only);
    schema_free(a);
    schema_free(b);
}

/* ------------------------------------------------------------------ types -- */

static void question_mark_makes_the_whole_type_optional(void **state)
{
    (void)state;
    op_schema *s = parse_ok("clamp.Tensor(Tensor self, Tensor? min=None, Tensor? max=None) -> "
                            "Tensor");
    assert_int_equal(s->args[1].type.base, SCHEMA_TENSOR);
    assert_true(s->args[1].type.optional);
    assert_false(s->args[1].type.is_list);
    assert_false(s->args[1].type.elem_optional);
    assert_int_equal(s->args[1].type.list_size, -1);
    assert_int_equal(s->args[1].def.kind, SCHEMA_DEFAULT_NONE);
    schema_free(s);
}

static void fixed_size_list_records_its_size(void **state)
{
    (void)state;
    op_schema *s = parse_ok("upsample_nearest2d(Tensor self, SymInt[2] output_size, float? "
                            "scales_h=None, float? scales_w=None) -> Tensor");
    const schema_type *t = &s->args[1].type;
    assert_int_equal(t->base, SCHEMA_SYMINT);
    assert_true(t->is_list);
    assert_int_equal(t->list_size, 2);
    assert_false(t->optional);
    assert_int_equal(s->args[2].type.base, SCHEMA_FLOAT);
    assert_true(s->args[2].type.optional);
    schema_free(s);
}

static void unsized_list_has_size_minus_one(void **state)
{
    (void)state;
    op_schema *s = parse_ok("view(Tensor(a) self, SymInt[] size) -> Tensor(a)");
    assert_true(s->args[1].type.is_list);
    assert_int_equal(s->args[1].type.list_size, -1);
    schema_free(s);
}

static void optional_list_differs_from_list_of_optionals(void **state)
{
    (void)state;
    op_schema *a = parse_ok("var.correction(Tensor self, int[1]? dim=None, *, Scalar? "
                            "correction=None, bool keepdim=False) -> Tensor");
    op_schema *b = parse_ok("index.Tensor(Tensor self, Tensor?[] indices) -> Tensor");
    const schema_type *dim = &a->args[1].type, *idx = &b->args[1].type;
    assert_true(dim->is_list && dim->optional && !dim->elem_optional);
    assert_int_equal(dim->list_size, 1);
    assert_true(idx->is_list && idx->elem_optional && !idx->optional);
    assert_int_equal(idx->base, SCHEMA_TENSOR);
    assert_true(a->args[2].kwarg_only && a->args[2].type.base == SCHEMA_SCALAR);
    schema_free(a);
    schema_free(b);
}

/* Parses "f(<T> x) -> ()" for every base name and checks the base. */
static void every_base_type_name_parses_as_that_type(void **state)
{
    (void)state;
    for (int b = 0; b < SCHEMA_BASE_COUNT; b++) {
        char text[128];
        snprintf(text, sizeof text, "f(%s x) -> %s", schema_base_name((schema_base)b),
                 schema_base_name((schema_base)b));
        op_schema *s = parse_ok(text);
        assert_int_equal(s->args[0].type.base, b);
        assert_int_equal(s->rets[0].type.base, b);
        schema_base found;
        const char *name = schema_base_name((schema_base)b);
        assert_true(schema_base_from_name(name, strlen(name), &found));
        assert_int_equal(found, b);
        schema_free(s);
    }
}

static void base_names_are_case_sensitive_and_out_of_range_is_question_mark(void **state)
{
    (void)state;
    schema_base b;
    assert_false(schema_base_from_name("tensor", 6, &b));
    assert_false(schema_base_from_name("Tensors", 7, &b));
    assert_false(schema_base_from_name("Tensor", 5, &b));
    assert_string_equal(schema_base_name(SCHEMA_BASE_COUNT), "?");
    assert_string_equal(schema_base_name((schema_base)-1), "?");
    parse_fails("f(tensor x) -> ()");
}

static void type_print_puts_the_alias_after_the_base(void **state)
{
    (void)state;
    strbuf sb = STRBUF_INIT;
    schema_type t = {SCHEMA_TENSOR, true, true, -1, false};
    schema_alias a = {true, "a", true, false, ""};
    schema_type_print(&sb, &t, &a);
    assert_string_equal(sb_str(&sb), "Tensor(a!)?[]");
    sb_clear(&sb);
    schema_type u = {SCHEMA_INT, false, true, 2, true};
    schema_type_print(&sb, &u, NULL);
    assert_string_equal(sb_str(&sb), "int[2]?");
    sb_free(&sb);
}

/* -------------------------------------------------------------- aliases -- */

static void alias_annotations_record_set_write_and_wildcard(void **state)
{
    (void)state;
    op_schema *v = parse_ok("view(Tensor(a) self, SymInt[] size) -> Tensor(a)");
    op_schema *sp = parse_ok("split.Tensor(Tensor(a -> *) self, SymInt split_size, int dim=0) -> "
                             "Tensor(a)[]");
    op_schema *ip = parse_ok("add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> "
                             "Tensor(a!)");
    assert_true(v->args[0].alias.present);
    assert_string_equal(v->args[0].alias.set, "a");
    assert_false(v->args[0].alias.is_write);
    assert_false(v->args[1].alias.present);
    assert_true(v->rets[0].alias.present);
    assert_true(sp->args[0].alias.to_wildcard);
    assert_false(sp->args[0].alias.is_write);
    assert_true(sp->rets[0].type.is_list);
    assert_string_equal(sp->rets[0].alias.set, "a");
    assert_true(ip->args[0].alias.is_write);
    assert_true(schema_arg_is_mutable(&ip->args[0]));
    assert_false(schema_arg_is_mutable(&ip->args[1]));
    assert_false(schema_arg_is_mutable(&v->args[0]));
    schema_free(v);
    schema_free(sp);
    schema_free(ip);
}

static void alias_annotation_on_tensor_list_precedes_brackets(void **state)
{
    (void)state;
    op_schema *s = parse_ok("_foreach_add_.List(Tensor(a!)[] self, Tensor[] other, *, Scalar "
                            "alpha=1) -> ()");
    assert_true(s->args[0].type.is_list);
    assert_true(s->args[0].alias.is_write);
    assert_int_equal(s->nrets, 0);
    assert_true(s->rets_parenthesized);
    assert_int_equal(s->args[2].def.kind, SCHEMA_DEFAULT_INT);
    assert_int_equal(s->args[2].def.i, 1);
    schema_free(s);
}

static void alias_unions_and_arrows_to_named_sets_parse(void **state)
{
    (void)state;
    op_schema *s = parse_ok("f(Tensor(a|b) x, Tensor(c! -> c|d) y) -> Tensor(a|b)");
    assert_string_equal(s->args[0].alias.set, "a|b");
    assert_string_equal(s->args[1].alias.set, "c");
    assert_true(s->args[1].alias.is_write);
    assert_string_equal(s->args[1].alias.after, "c|d");
    assert_false(s->args[1].alias.to_wildcard);
    schema_free(s);
}

/* ------------------------------------------------------------- defaults -- */

static void integer_defaults_keep_sign_and_text(void **state)
{
    (void)state;
    op_schema *s = parse_ok("nll_loss(Tensor self, Tensor target, Tensor? weight=None, int "
                            "reduction=Mean, SymInt ignore_index=-100) -> Tensor");
    const schema_default *d = &s->args[4].def;
    assert_int_equal(d->kind, SCHEMA_DEFAULT_INT);
    assert_int_equal(d->i, -100);
    assert_true(d->f == -100.0);
    assert_string_equal(d->text, "-100");
    schema_free(s);
}

static void float_defaults_keep_their_exact_text(void **state)
{
    (void)state;
    op_schema *s = parse_ok("f(float eps=1e-05, Scalar negative_slope=0.01, float p=.5) -> ()");
    assert_int_equal(s->args[0].def.kind, SCHEMA_DEFAULT_FLOAT);
    assert_true(s->args[0].def.f == 1e-05);
    assert_string_equal(s->args[0].def.text, "1e-05");
    assert_true(s->args[1].def.f == 0.01);
    assert_true(s->args[2].def.f == 0.5);
    char *t = print_new(s);
    assert_string_equal(t, "f(float eps=1e-05, Scalar negative_slope=0.01, float p=.5) -> ()");
    free(t);
    schema_free(s);
}

static void infinities_and_nan_are_float_defaults(void **state)
{
    (void)state;
    op_schema *s = parse_ok("f(float a=inf, float b=-inf, float c=nan) -> ()");
    assert_int_equal(s->args[0].def.kind, SCHEMA_DEFAULT_FLOAT);
    assert_true(s->args[0].def.f > 1e308);
    assert_true(s->args[1].def.f < -1e308);
    assert_true(s->args[2].def.f != s->args[2].def.f);
    schema_free(s);
}

static void int64_extremes_parse_and_one_past_fails(void **state)
{
    (void)state;
    op_schema *s = parse_ok("f(int a=-9223372036854775808, int b=9223372036854775807) -> ()");
    assert_true(s->args[0].def.i == INT64_MIN);
    assert_true(s->args[1].def.i == INT64_MAX);
    schema_free(s);
    assert_int_equal(error_column(parse_fails("f(int a=9223372036854775808) -> ()")), 9);
    assert_int_equal(error_column(parse_fails("f(int a=-9223372036854775809) -> ()")), 9);
}

static void bool_and_none_defaults_parse(void **state)
{
    (void)state;
    op_schema *s = parse_ok("max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, "
                            "Tensor indices)");
    assert_int_equal(s->args[2].def.kind, SCHEMA_DEFAULT_BOOL);
    assert_false(s->args[2].def.b);
    schema_free(s);
    s = parse_ok("f(bool a=True, Generator? g=None) -> ()");
    assert_true(s->args[0].def.b);
    assert_int_equal(s->args[1].def.kind, SCHEMA_DEFAULT_NONE);
    assert_string_equal(s->args[1].def.text, "None");
    schema_free(s);
}

static void int_list_defaults_parse_their_elements(void **state)
{
    (void)state;
    op_schema *s =
        parse_ok("f(int[] a=[-2,-1], int[2] b=[], SymInt[2] c=[0, 1], int[2] d=0) -> ()");
    assert_int_equal(s->args[0].def.kind, SCHEMA_DEFAULT_INT_LIST);
    assert_int_equal(s->args[0].def.n_ints, 2);
    assert_int_equal(s->args[0].def.ints[0], -2);
    assert_int_equal(s->args[0].def.ints[1], -1);
    assert_int_equal(s->args[1].def.n_ints, 0);
    assert_int_equal(s->args[2].def.n_ints, 2);
    assert_int_equal(s->args[2].def.ints[1], 1);
    assert_string_equal(s->args[2].def.text, "[0, 1]");
    assert_int_equal(s->args[3].def.kind, SCHEMA_DEFAULT_INT);
    char *t = print_new(s);
    assert_string_equal(t, "f(int[] a=[-2,-1], int[2] b=[], SymInt[2] c=[0,1], int[2] d=0) -> ()");
    free(t);
    schema_free(s);
}

static void string_defaults_resolve_escapes_in_both_quote_styles(void **state)
{
    (void)state;
    const char *text = "_test_string_default(Tensor dummy, str a=\"\\\"'\\\\\", "
                       "str b='\"\\'\\\\') -> Tensor";
    op_schema *s = parse_ok(text);
    assert_int_equal(s->args[1].def.kind, SCHEMA_DEFAULT_STRING);
    assert_string_equal(s->args[1].def.s, "\"'\\");
    assert_string_equal(s->args[2].def.s, "\"'\\");
    assert_string_equal(s->args[1].def.text, "\"\\\"'\\\\\"");
    char *t = print_new(s);
    assert_string_equal(t, text);
    free(t);
    schema_free(s);
    s = parse_ok("gelu(Tensor self, *, str approximate='none') -> Tensor");
    assert_string_equal(s->args[1].def.s, "none");
    schema_free(s);
}

static void identifier_defaults_keep_the_word(void **state)
{
    (void)state;
    op_schema *s = parse_ok("f(int reduction=Mean, ScalarType dtype=long, MemoryFormat "
                            "memory_format=contiguous_format) -> ()");
    assert_int_equal(s->args[0].def.kind, SCHEMA_DEFAULT_IDENT);
    assert_string_equal(s->args[0].def.s, "Mean");
    assert_string_equal(s->args[1].def.s, "long");
    assert_string_equal(s->args[2].def.s, "contiguous_format");
    schema_free(s);
}

/* ---------------------------------------------------------------- returns -- */

static void multiple_returns_keep_names_and_aliases(void **state)
{
    (void)state;
    op_schema *s = parse_ok("max.dim_max(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) "
                            "max, Tensor(b!) max_values) -> (Tensor(a!) values, Tensor(b!) "
                            "indices)");
    assert_int_equal(s->nrets, 2);
    assert_true(s->rets_parenthesized);
    assert_string_equal(s->rets[0].name, "values");
    assert_string_equal(s->rets[1].name, "indices");
    assert_string_equal(s->rets[0].alias.set, "a");
    assert_string_equal(s->rets[1].alias.set, "b");
    assert_true(s->rets[1].alias.is_write);
    assert_true(s->args[3].kwarg_only && s->args[4].kwarg_only);
    schema_free(s);
}

static void unnamed_returns_have_null_names(void **state)
{
    (void)state;
    op_schema *s = parse_ok("_fused_dropout(Tensor self, float p, Generator? generator=None) -> "
                            "(Tensor, Tensor)");
    assert_int_equal(s->nrets, 2);
    assert_null(s->rets[0].name);
    assert_null(s->rets[1].name);
    schema_free(s);
}

static void non_tensor_and_list_returns_parse(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        schema_base base;
        bool is_list;
    } cases[] = {
        {"is_nonzero(Tensor self) -> bool", SCHEMA_BOOL, false},
        {"_local_scalar_dense(Tensor self) -> Scalar", SCHEMA_SCALAR, false},
        {"q_per_channel_axis(Tensor self) -> int", SCHEMA_INT, false},
        {"q_scale(Tensor self) -> float", SCHEMA_FLOAT, false},
        {"unbind.int(Tensor(a -> *) self, int dim=0) -> Tensor(a)[]", SCHEMA_TENSOR, true},
        {"broadcast_tensors(Tensor[] tensors) -> Tensor[]", SCHEMA_TENSOR, true},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        op_schema *s = parse_ok(cases[i].text);
        assert_int_equal(s->nrets, 1);
        assert_int_equal(s->rets[0].type.base, cases[i].base);
        assert_int_equal(s->rets[0].type.is_list, cases[i].is_list);
        schema_free(s);
    }
}

static void single_named_return_needs_no_parentheses(void **state)
{
    (void)state;
    op_schema *s = parse_ok("f(Tensor self) -> Tensor output");
    assert_false(s->rets_parenthesized);
    assert_string_equal(s->rets[0].name, "output");
    schema_free(s);
    s = parse_ok("f(Tensor self) -> (Tensor)");
    assert_true(s->rets_parenthesized);
    char *t = print_new(s);
    assert_string_equal(t, "f(Tensor self) -> (Tensor)");
    free(t);
    schema_free(s);
}

/* ------------------------------------------------------------- whitespace -- */

static void extra_whitespace_is_tolerated_and_printed_canonically(void **state)
{
    (void)state;
    op_schema *s = parse_ok("  max.dim_max (\tTensor self ,int dim,bool keepdim = False ,* ,"
                            "Tensor( a! ) max ,  Tensor(b!)  max_values )->( Tensor(a!) values,"
                            "Tensor(b!)\nindices )  ");
    char *t = print_new(s);
    assert_string_equal(t, "max.dim_max(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) "
                           "max, Tensor(b!) max_values) -> (Tensor(a!) values, Tensor(b!) "
                           "indices)");
    free(t);
    schema_free(s);
}

static void whitespace_only_schema_fails_at_its_end(void **state)
{
    (void)state;
    assert_int_equal(error_column(parse_fails("   ")), 4);
    assert_int_equal(error_column(parse_fails("")), 1);
}

/* ---------------------------------------------------------- error messages -- */

static void error_message_shows_the_text_and_a_caret_under_the_column(void **state)
{
    (void)state;
    const char *msg = parse_fails("add.Tensor(Tensor self Tensor x) -> Tensor");
    assert_string_equal(msg, "schema error at column 24: expected ')' or ',' after argument, got "
                             "'Tensor'\n"
                             "  add.Tensor(Tensor self Tensor x) -> Tensor\n"
                             "                         ^");
}

static void error_message_for_a_long_schema_shows_a_window_around_the_column(void **state)
{
    (void)state;
    char text[600];
    snprintf(text, sizeof text, "f(%s, Tensr x) -> ()",
             "Tensor a0, Tensor a1, Tensor a2, Tensor a3, Tensor a4, Tensor a5, Tensor a6, "
             "Tensor a7, Tensor a8, Tensor a9, Tensor b0, Tensor b1, Tensor b2, Tensor b3");
    const char *msg = parse_fails(text);
    size_t col = (size_t)(strstr(text, "Tensr") - text) + 1;
    assert_int_equal(error_column(msg), (int)col);
    const char *line = strchr(msg, '\n') + 3;
    const char *caret = strchr(line, '\n') + 3;
    assert_memory_equal(line, "...", 3);
    assert_memory_equal(line + (strchr(caret, '^') - caret), "Tensr", 5);
    assert_true(strlen(msg) < 600);
}

static void error_message_shows_control_and_non_ascii_bytes_safely(void **state)
{
    (void)state;
    const char *msg = parse_fails("f(Tensor s\001\xc3\xa9) -> ()");
    assert_int_equal(error_column(msg), 11);
    assert_non_null(strstr(msg, "got byte 0x01"));
    assert_non_null(strstr(msg, "  f(Tensor s ?\?) -> ()\n"));
    for (const char *c = msg; *c; c++)
        assert_true(*c == '\n' || (*c >= ' ' && *c < 0x7f));
}

/* ------------------------------------------------------ semantic checks -- */

static void duplicate_argument_names_are_rejected_at_the_second(void **state)
{
    (void)state;
    const char *msg = parse_fails("f(Tensor self, *, Tensor(a!) self) -> ()");
    assert_int_equal(error_column(msg), 30);
    assert_non_null(strstr(msg, "duplicate argument name 'self'"));
}

static void default_that_does_not_fit_its_type_is_rejected(void **state)
{
    (void)state;
    assert_int_equal(error_column(parse_fails("f(int x=True) -> ()")), 9);
    assert_int_equal(error_column(parse_fails("f(Tensor x=1) -> ()")), 12);
    assert_int_equal(error_column(parse_fails("f(Tensor x=None) -> ()")), 12);
    assert_int_equal(error_column(parse_fails("f(bool x=0) -> ()")), 10);
    assert_int_equal(error_column(parse_fails("f(str x=Mean) -> ()")), 9);
    assert_int_equal(error_column(parse_fails("f(int[] x=1) -> ()")), 11);
    assert_int_equal(error_column(parse_fails("f(float x='a') -> ()")), 11);
}

static void alias_annotation_on_a_non_tensor_type_is_rejected(void **state)
{
    (void)state;
    const char *msg = parse_fails("f(Scalar(a!) x) -> ()");
    assert_int_equal(error_column(msg), 9);
    assert_non_null(strstr(msg, "non-Tensor type 'Scalar'"));
    assert_int_equal(error_column(parse_fails("f(Tensor x) -> int(a)")), 19);
}

/* A hand-built schema "f(int x, int y) -> ()" for the validate tests. */
typedef struct built {
    op_schema s;
    schema_arg args[2];
    char name[8], overload[8], arg0[8], arg1[8];
} built;

/* Fills b with f(int x, int y) -> (). */
static void build(built *b)
{
    memset(b, 0, sizeof *b);
    strcpy(b->name, "f");
    strcpy(b->arg0, "x");
    strcpy(b->arg1, "y");
    b->s.name = b->name;
    b->s.overload = b->overload;
    b->s.args = b->args;
    b->s.nargs = 2;
    b->s.rets_parenthesized = true;
    for (int i = 0; i < 2; i++) {
        b->args[i].type = (schema_type){SCHEMA_INT, false, false, -1, false};
        b->args[i].name = i ? b->arg1 : b->arg0;
    }
}

static void validate_accepts_a_well_formed_hand_built_schema(void **state)
{
    (void)state;
    built b;
    build(&b);
    assert_int_equal(schema_validate(&b.s), CLOPS_OK);
}

static void validate_rejects_positional_after_keyword_only(void **state)
{
    (void)state;
    built b;
    build(&b);
    b.args[0].kwarg_only = true;
    assert_int_equal(schema_validate(&b.s), CLOPS_SCHEMA_ERROR);
    assert_non_null(strstr(clops_last_error(), "schema error in 'f': positional argument 'y'"));
}

static void validate_rejects_malformed_hand_built_fields(void **state)
{
    (void)state;
    built b;
    build(&b);
    b.s.name = NULL;
    assert_int_equal(schema_validate(&b.s), CLOPS_SCHEMA_ERROR);
    build(&b);
    b.args[1].name = b.arg0;
    assert_int_equal(schema_validate(&b.s), CLOPS_SCHEMA_ERROR);
    build(&b);
    b.args[0].type.base = SCHEMA_BASE_COUNT;
    assert_int_equal(schema_validate(&b.s), CLOPS_SCHEMA_ERROR);
    build(&b);
    b.args[0].type.list_size = 3; /* not a list */
    assert_int_equal(schema_validate(&b.s), CLOPS_SCHEMA_ERROR);
    build(&b);
    b.args[0].type.elem_optional = true;
    assert_int_equal(schema_validate(&b.s), CLOPS_SCHEMA_ERROR);
    build(&b);
    b.args[0].def.kind = SCHEMA_DEFAULT_IDENT; /* no s */
    assert_int_equal(schema_validate(&b.s), CLOPS_SCHEMA_ERROR);
    build(&b);
    b.args[0].def.kind = SCHEMA_DEFAULT_IDENT;
    b.args[0].def.s = b.name;
    strcpy(b.name, "None");
    assert_int_equal(schema_validate(&b.s), CLOPS_SCHEMA_ERROR);
    build(&b);
    b.args[0].type.base = SCHEMA_TENSOR;
    b.args[0].alias = (schema_alias){true, "A", false, false, ""};
    assert_int_equal(schema_validate(&b.s), CLOPS_SCHEMA_ERROR);
    build(&b);
    b.s.nargs = -1;
    assert_int_equal(schema_validate(&b.s), CLOPS_SCHEMA_ERROR);
    build(&b);
    b.s.overload = b.overload;
    strcpy(b.overload, "a.b");
    assert_int_equal(schema_validate(&b.s), CLOPS_SCHEMA_ERROR);
    build(&b);
    b.args[1].name = NULL;
    assert_int_equal(schema_validate(&b.s), CLOPS_SCHEMA_ERROR);
    build(&b);
    b.args[0].def.kind = SCHEMA_DEFAULT_KIND_COUNT;
    assert_int_equal(schema_validate(&b.s), CLOPS_SCHEMA_ERROR);
    build(&b);
    b.args[0].def.kind = SCHEMA_DEFAULT_FLOAT; /* no text: named by kind */
    assert_int_equal(schema_validate(&b.s), CLOPS_SCHEMA_ERROR);
    assert_non_null(strstr(clops_last_error(), "a default of a float does not fit type 'int'"));
    build(&b);
    b.args[0].type.base = SCHEMA_TENSOR;
    b.args[0].alias = (schema_alias){true, "a", false, true, "b"};
    assert_int_equal(schema_validate(&b.s), CLOPS_SCHEMA_ERROR);
    build(&b);
    schema_ret ret = {
        b.arg0, {SCHEMA_TENSOR, false, false, -1, false}, {false, "", false, false, ""}};
    b.s.rets = &ret;
    b.s.nrets = 1;
    assert_int_equal(schema_validate(&b.s), CLOPS_OK);
    strcpy(b.arg0, "1x");
    assert_int_equal(schema_validate(&b.s), CLOPS_SCHEMA_ERROR);
}

static void hand_built_special_values_print_so_that_they_parse_back(void **state)
{
    (void)state;
    static const struct {
        schema_base base;
        bool optional;
        schema_default def;
        const char *printed;
    } cases[] = {
        {SCHEMA_FLOAT, false, {.kind = SCHEMA_DEFAULT_FLOAT, .f = 3.0}, "3.0"},
        {SCHEMA_FLOAT, false, {.kind = SCHEMA_DEFAULT_FLOAT, .f = 1e300}, "1e+300"},
        {SCHEMA_FLOAT, false, {.kind = SCHEMA_DEFAULT_FLOAT, .f = -INFINITY}, "-inf"},
        {SCHEMA_FLOAT, false, {.kind = SCHEMA_DEFAULT_FLOAT, .f = INFINITY}, "inf"},
        {SCHEMA_FLOAT, false, {.kind = SCHEMA_DEFAULT_FLOAT, .f = NAN}, "nan"},
        {SCHEMA_BOOL, false, {.kind = SCHEMA_DEFAULT_BOOL, .b = true}, "True"},
        {SCHEMA_TENSOR, true, {.kind = SCHEMA_DEFAULT_NONE}, "None"},
        {SCHEMA_INT, false, {.kind = SCHEMA_DEFAULT_IDENT, .s = (char *)"Mean"}, "Mean"},
        {SCHEMA_STR, false, {.kind = SCHEMA_DEFAULT_STRING, .s = (char *)"\t\r"}, "\"\\t\\r\""},
        {SCHEMA_STR, false, {.kind = SCHEMA_DEFAULT_STRING, .s = (char *)"\t\r'"}, "\"\\t\\r'\""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        built b;
        char want[64];
        build(&b);
        b.s.nargs = 1;
        b.args[0].type = (schema_type){cases[i].base, false, false, -1, cases[i].optional};
        b.args[0].def = cases[i].def;
        assert_int_equal(schema_validate(&b.s), CLOPS_OK);
        char *t = print_new(&b.s);
        snprintf(want, sizeof want, "f(%s%s x=%s) -> ()", schema_base_name(cases[i].base),
                 cases[i].optional ? "?" : "", cases[i].printed);
        assert_string_equal(t, want);
        op_schema *back = parse_ok(t);
        assert_same_schema(&b.s, back);
        free(t);
        schema_free(back);
    }
}

static void hand_built_defaults_without_text_print_from_their_values(void **state)
{
    (void)state;
    built b;
    build(&b);
    int64_t ints[2] = {3, -4};
    b.args[0].type = (schema_type){SCHEMA_INT, false, true, 2, false};
    b.args[0].def = (schema_default){.kind = SCHEMA_DEFAULT_INT_LIST, .ints = ints, .n_ints = 2};
    b.args[1].type = (schema_type){SCHEMA_FLOAT, false, false, -1, false};
    b.args[1].def = (schema_default){.kind = SCHEMA_DEFAULT_FLOAT, .f = 0.1};
    b.args[1].kwarg_only = true;
    assert_int_equal(schema_validate(&b.s), CLOPS_OK);
    char *t = print_new(&b.s);
    assert_string_equal(t, "f(int[2] x=[3,-4], *, float y=0.1) -> ()");
    op_schema *back = parse_ok(t);
    assert_same_schema(&b.s, back);
    free(t);
    schema_free(back);

    char str[] = "a\"b\\c\n";
    build(&b);
    b.args[0].type = (schema_type){SCHEMA_STR, false, false, -1, false};
    b.args[0].def = (schema_default){.kind = SCHEMA_DEFAULT_STRING, .s = str};
    b.args[1].def = (schema_default){.kind = SCHEMA_DEFAULT_INT, .i = -7};
    t = print_new(&b.s);
    assert_string_equal(t, "f(str x=\"a\\\"b\\\\c\\n\", int y=-7) -> ()");
    back = parse_ok(t);
    assert_string_equal(back->args[0].def.s, str);
    free(t);
    schema_free(back);
}

/* ---------------------------------------------------------------- helpers -- */

static void out_variants_are_recognised(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        bool out;
    } cases[] = {
        {"add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)",
         true},
        {"max.dim_max(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) max, Tensor(b!) "
         "max_values) -> (Tensor(a!) values, Tensor(b!) indices)",
         true},
        {"unbind_copy.int_out(Tensor self, int dim=0, *, Tensor(a!)[] out) -> ()", true},
        {"add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor", false},
        {"add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)", false},
        {"_foreach_add_.List(Tensor(a!)[] self, Tensor[] other, *, Scalar alpha=1) -> ()", false},
        {"f(Tensor self, *, Tensor(a!) out) -> Tensor", false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        op_schema *s = parse_ok(cases[i].text);
        if (schema_is_out_variant(s) != cases[i].out)
            fail_msg("schema_is_out_variant(%s) != %d", cases[i].text, cases[i].out);
        schema_free(s);
    }
}

static void find_arg_returns_the_index_or_minus_one(void **state)
{
    (void)state;
    op_schema *s = parse_ok("add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor");
    assert_int_equal(schema_find_arg(s, "self"), 0);
    assert_int_equal(schema_find_arg(s, "alpha"), 2);
    assert_int_equal(schema_find_arg(s, "beta"), -1);
    assert_int_equal(schema_find_arg(s, NULL), -1);
    schema_free(s);
}

static void qualified_name_joins_name_and_overload(void **state)
{
    (void)state;
    op_schema *a = parse_ok("add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor");
    op_schema *b = parse_ok("relu(Tensor self) -> Tensor");
    char *qa = schema_qualified_name(a), *qb = schema_qualified_name(b);
    assert_string_equal(qa, "add.Tensor");
    assert_string_equal(qb, "relu");
    free(qa);
    free(qb);
    schema_free(a);
    schema_free(b);
}

static void null_arguments_are_harmless(void **state)
{
    (void)state;
    op_schema *s = (op_schema *)&s;
    strbuf sb = STRBUF_INIT;
    schema_free(NULL);
    schema_print(&sb, NULL);
    schema_print(NULL, NULL);
    schema_type_print(&sb, NULL, NULL);
    assert_int_equal(sb.len, 0);
    assert_null(schema_to_string(NULL));
    assert_null(schema_qualified_name(NULL));
    assert_int_equal(schema_find_arg(NULL, "x"), -1);
    assert_false(schema_is_out_variant(NULL));
    assert_false(schema_is_inplace(NULL));
    assert_false(schema_arg_is_mutable(NULL));
    assert_false(schema_base_from_name(NULL, 0, NULL));
    assert_int_equal(schema_validate(NULL), CLOPS_INVALID_ARGUMENT);
    assert_int_equal(schema_parse(NULL, &s), CLOPS_INVALID_ARGUMENT);
    assert_null(s);
    assert_int_equal(schema_parse("relu(Tensor self) -> Tensor", NULL), CLOPS_INVALID_ARGUMENT);
}

/* ------------------------------------------------------------ hostile input -- */

/* A new string of n copies of unit after prefix and before suffix. */
static char *repeat(const char *prefix, const char *unit, size_t n, const char *suffix)
{
    size_t lp = strlen(prefix), lu = strlen(unit), ls = strlen(suffix);
    char *t = malloc(lp + lu * n + ls + 1);
    assert_non_null(t);
    memcpy(t, prefix, lp);
    for (size_t i = 0; i < n; i++)
        memcpy(t + lp + i * lu, unit, lu);
    memcpy(t + lp + lu * n, suffix, ls + 1);
    return t;
}

static void deeply_nested_brackets_fail_without_recursion(void **state)
{
    (void)state;
    char *t = repeat("f(Tensor", "(", 200000, "");
    assert_int_equal(error_column(parse_fails(t)), 10);
    free(t);
    t = repeat("f(int", "[", 200000, "");
    assert_int_equal(error_column(parse_fails(t)), 7);
    free(t);
    t = repeat("f(int x=", "[", 200000, "");
    assert_int_equal(error_column(parse_fails(t)), 10);
    free(t);
}

static void argument_count_limit_is_enforced(void **state)
{
    (void)state;
    char *t = repeat("f(int a", ", int a", SCHEMA_MAX_ITEMS - 1, ") -> ()");
    parse_fails(t); /* duplicate names, but reached the end without hitting the limit */
    assert_non_null(strstr(clops_last_error(), "duplicate argument name"));
    free(t);
    t = repeat("f(int a", ", int a", SCHEMA_MAX_ITEMS, ") -> ()");
    parse_fails(t);
    assert_non_null(strstr(clops_last_error(), "more than 4096 arguments"));
    free(t);
    t = repeat("f() -> (int", ", int", SCHEMA_MAX_ITEMS - 1, ")");
    op_schema *s = parse_ok(t);
    assert_int_equal(s->nrets, SCHEMA_MAX_ITEMS);
    schema_free(s);
    free(t);
}

static void list_default_and_return_count_limits_are_enforced(void **state)
{
    (void)state;
    char *t = repeat("f(int[] x=[0", ",0", SCHEMA_MAX_ITEMS, "]) -> ()");
    parse_fails(t);
    assert_non_null(strstr(clops_last_error(), "too many elements in a list default"));
    free(t);
    t = repeat("f() -> (int", ", int", SCHEMA_MAX_ITEMS, ")");
    parse_fails(t);
    assert_non_null(strstr(clops_last_error(), "more than 4096 returns"));
    free(t);
}

static void string_default_ending_in_a_backslash_is_unterminated(void **state)
{
    (void)state;
    const char *msg = parse_fails("f(str x=\"abc\\");
    assert_int_equal(error_column(msg), 9);
    assert_non_null(strstr(msg, "unterminated string default"));
}

static void long_default_text_is_shortened_in_messages(void **state)
{
    (void)state;
    char *t = repeat("f(int x=\"", "a\n", 500, "\") -> ()");
    const char *msg = parse_fails(t);
    assert_non_null(strstr(msg, "default \"a a a "));
    assert_non_null(strstr(msg, "... (a string) does not fit type 'int'"));
    assert_true(strlen(msg) < 600);
    free(t);
}

static void overlong_text_is_rejected(void **state)
{
    (void)state;
    char *t = repeat("f(Tensor x) -> ()", " ", SCHEMA_MAX_TEXT, "");
    assert_int_equal(error_column(parse_fails(t)), 1);
    free(t);
}

static void long_identifiers_are_accepted_and_shortened_in_messages(void **state)
{
    (void)state;
    char *t = repeat("f(Tensor ", "x", 100000, "!) -> ()");
    const char *msg = parse_fails(t);
    assert_int_equal(error_column(msg), 100010);
    assert_true(strlen(msg) < 600);
    free(t);
    t = repeat("f(", "Q", 1000, " x) -> ()");
    msg = parse_fails(t);
    assert_non_null(strstr(msg, "unknown type 'QQQQ"));
    assert_true(strlen(msg) < 600);
    free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(corpus_holds_at_least_150_schemas),
        cmocka_unit_test(schema_equal_compares_structure),
        cmocka_unit_test(every_corpus_schema_prints_back_exactly),
        cmocka_unit_test(every_corpus_schema_is_a_fixed_point_of_parse_and_print),
        cmocka_unit_test(every_malformed_schema_fails_at_its_column),
        cmocka_unit_test(name_without_overload_has_empty_overload),
        cmocka_unit_test(overload_is_split_from_name),
        cmocka_unit_test(inplace_name_keeps_trailing_underscore),
        cmocka_unit_test(dunder_names_parse_and_only_the_i_ones_are_inplace),
        cmocka_unit_test(star_makes_the_following_arguments_keyword_only),
        cmocka_unit_test(empty_argument_list_and_leading_star_parse),
        cmocka_unit_test(question_mark_makes_the_whole_type_optional),
        cmocka_unit_test(fixed_size_list_records_its_size),
        cmocka_unit_test(unsized_list_has_size_minus_one),
        cmocka_unit_test(optional_list_differs_from_list_of_optionals),
        cmocka_unit_test(every_base_type_name_parses_as_that_type),
        cmocka_unit_test(base_names_are_case_sensitive_and_out_of_range_is_question_mark),
        cmocka_unit_test(type_print_puts_the_alias_after_the_base),
        cmocka_unit_test(alias_annotations_record_set_write_and_wildcard),
        cmocka_unit_test(alias_annotation_on_tensor_list_precedes_brackets),
        cmocka_unit_test(alias_unions_and_arrows_to_named_sets_parse),
        cmocka_unit_test(integer_defaults_keep_sign_and_text),
        cmocka_unit_test(float_defaults_keep_their_exact_text),
        cmocka_unit_test(infinities_and_nan_are_float_defaults),
        cmocka_unit_test(int64_extremes_parse_and_one_past_fails),
        cmocka_unit_test(bool_and_none_defaults_parse),
        cmocka_unit_test(int_list_defaults_parse_their_elements),
        cmocka_unit_test(string_defaults_resolve_escapes_in_both_quote_styles),
        cmocka_unit_test(identifier_defaults_keep_the_word),
        cmocka_unit_test(multiple_returns_keep_names_and_aliases),
        cmocka_unit_test(unnamed_returns_have_null_names),
        cmocka_unit_test(non_tensor_and_list_returns_parse),
        cmocka_unit_test(single_named_return_needs_no_parentheses),
        cmocka_unit_test(extra_whitespace_is_tolerated_and_printed_canonically),
        cmocka_unit_test(whitespace_only_schema_fails_at_its_end),
        cmocka_unit_test(error_message_shows_the_text_and_a_caret_under_the_column),
        cmocka_unit_test(error_message_for_a_long_schema_shows_a_window_around_the_column),
        cmocka_unit_test(error_message_shows_control_and_non_ascii_bytes_safely),
        cmocka_unit_test(duplicate_argument_names_are_rejected_at_the_second),
        cmocka_unit_test(default_that_does_not_fit_its_type_is_rejected),
        cmocka_unit_test(alias_annotation_on_a_non_tensor_type_is_rejected),
        cmocka_unit_test(validate_accepts_a_well_formed_hand_built_schema),
        cmocka_unit_test(validate_rejects_positional_after_keyword_only),
        cmocka_unit_test(validate_rejects_malformed_hand_built_fields),
        cmocka_unit_test(hand_built_defaults_without_text_print_from_their_values),
        cmocka_unit_test(hand_built_special_values_print_so_that_they_parse_back),
        cmocka_unit_test(out_variants_are_recognised),
        cmocka_unit_test(find_arg_returns_the_index_or_minus_one),
        cmocka_unit_test(qualified_name_joins_name_and_overload),
        cmocka_unit_test(null_arguments_are_harmless),
        cmocka_unit_test(deeply_nested_brackets_fail_without_recursion),
        cmocka_unit_test(argument_count_limit_is_enforced),
        cmocka_unit_test(list_default_and_return_count_limits_are_enforced),
        cmocka_unit_test(string_default_ending_in_a_backslash_is_unterminated),
        cmocka_unit_test(long_default_text_is_shortened_in_messages),
        cmocka_unit_test(overlong_text_is_rejected),
        cmocka_unit_test(long_identifiers_are_accepted_and_shortened_in_messages),
    };
    return cmocka_run_group_tests_name("schema", tests, NULL, NULL);
}
