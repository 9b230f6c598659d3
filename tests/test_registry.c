/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/test_registry.c: the operator registry of dispatch/registry.c.
 *
 * What is checked here needs no kernel to run: looking operators up by name
 * (and the suggestions an unknown name gets), defining user operators
 * (positioned schema errors, duplicates), the metadata an op reports (its
 * canonical schema, tags, argument counts, the per-key kernel table), the
 * dispatch-key and provenance names, and three guards over the whole
 * generated inventory: every builtin schema round-trips through the
 * registry, every C name is unique (in the table and in docs/ops.md), and
 * every pointwise binding matches its pw_op (engineers add pointwise YAML
 * entries all the time; this is the test that catches a schema whose
 * arguments do not fit the op).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen_pointwise/pw_bind.h"
#include "dispatch/dispatch.h"
#include "support/clops_test.h"

#define OPS_DOC CLOPS_SOURCE_DIR "/docs/ops.md"

/* The op called name; fails the test when it is missing. */
static const clops_op *find_op(const char *name)
{
    const clops_op *op = NULL;
    CT_OK(clops_op_find(name, &op));
    assert_non_null(op);
    return op;
}

/* A boxed kernel that does nothing (registrations only). */
static clops_status noop_kernel(const clops_kernel_ctx *ctx, clops_value *args, int nargs,
                                clops_value *rets, int nrets)
{
    (void)ctx;
    (void)args;
    (void)nargs;
    (void)rets;
    (void)nrets;
    return CLOPS_OK;
}

/* --- lookup ------------------------------------------------------------- */

static void find_returns_the_op_with_that_qualified_name(void **state)
{
    (void)state;
    const clops_op *op = find_op("transpose.int");
    assert_string_equal(clops_op_name(op), "transpose.int");
    assert_string_equal(clops_op_schema(op),
                        "transpose.int(Tensor(a) self, int dim0, int dim1) -> Tensor(a)");
    op = find_op("view");
    assert_string_equal(clops_op_name(op), "view");
}

static void find_of_a_base_name_without_its_overload_suggests_the_overloads(void **state)
{
    (void)state;
    const clops_op *op = NULL;
    CT_STATUS(clops_op_find("transpose", &op), CLOPS_UNKNOWN_OP);
    assert_null(op);
    CT_ERROR_CONTAINS("unknown operator 'transpose'");
    CT_ERROR_CONTAINS("did you mean: transpose.int");
}

static void find_of_a_wrong_overload_lists_every_overload_of_the_name(void **state)
{
    (void)state;
    const clops_op *op = NULL;
    CT_STATUS(clops_op_find("squeeze.nope", &op), CLOPS_UNKNOWN_OP);
    CT_ERROR_CONTAINS("squeeze.dim");
    CT_ERROR_CONTAINS("squeeze.dims");
    /* The bare name is an overload too. */
    CT_ERROR_CONTAINS("did you mean: squeeze,");
}

static void find_of_a_name_nobody_registered_suggests_nothing(void **state)
{
    (void)state;
    const clops_op *op = NULL;
    CT_STATUS(clops_op_find("no_such_operator_anywhere.x", &op), CLOPS_UNKNOWN_OP);
    CT_ERROR_CONTAINS("unknown operator 'no_such_operator_anywhere.x'");
    assert_null(strstr(clops_last_error(), "did you mean"));
}

static void find_with_null_arguments_is_an_invalid_argument(void **state)
{
    (void)state;
    const clops_op *op = NULL;
    CT_STATUS(clops_op_find(NULL, &op), CLOPS_INVALID_ARGUMENT);
    CT_STATUS(clops_op_find("view", NULL), CLOPS_INVALID_ARGUMENT);
}

static void op_at_covers_every_op_and_is_null_outside(void **state)
{
    (void)state;
    int n = clops_op_count();
    assert_true(n >= dispatch_builtin_op_count);
    for (int i = 0; i < n; i++)
        assert_non_null(clops_op_at(i));
    assert_null(clops_op_at(-1));
    assert_null(clops_op_at(n));
}

/* --- the inventory ------------------------------------------------------ */

static void every_builtin_schema_round_trips_through_the_registry(void **state)
{
    (void)state;
    for (int i = 0; i < dispatch_builtin_op_count; i++) {
        const dispatch_builtin_op *b = &dispatch_builtin_ops[i];
        const clops_op *op = clops_op_at(i);
        ct_set_case("builtin op %d: %s", i, b->schema);
        assert_non_null(op);
        CT_ASSERT_MSG(strcmp(clops_op_schema(op), b->schema) == 0, "registry prints '%s'",
                      clops_op_schema(op));
        CT_ASSERT(strcmp(clops_op_tags(op), b->tags) == 0);
        /* Lookup by its name finds this very op. */
        const clops_op *again = NULL;
        CT_OK(clops_op_find(clops_op_name(op), &again));
        CT_ASSERT(again == op);
    }
    ct_clear_context();
}

static void every_builtin_c_name_is_unique(void **state)
{
    (void)state;
    for (int i = 0; i < dispatch_builtin_op_count; i++)
        for (int j = 0; j < i; j++)
            CT_ASSERT_MSG(strcmp(dispatch_builtin_ops[i].cname, dispatch_builtin_ops[j].cname) != 0,
                          "C name %s is used by '%s' and '%s'", dispatch_builtin_ops[i].cname,
                          dispatch_builtin_ops[i].schema, dispatch_builtin_ops[j].schema);
}

/* Reads the C-name column of docs/ops.md into names (malloc'd strings);
 * returns their number, or -1 when the file does not exist. */
static int read_doc_cnames(char **names, int cap)
{
    FILE *f = fopen(OPS_DOC, "r");
    if (!f)
        return -1;
    char line[8192];
    int n = 0;
    while (fgets(line, sizeof line, f)) {
        /* Rows look like: | `schema` | `clops_name` | tags | kernels | */
        if (strncmp(line, "| `", 3) != 0)
            continue;
        char *p = strstr(line + 3, "` | `");
        if (!p)
            continue;
        p += 5;
        char *end = strchr(p, '`');
        if (!end || n == cap)
            continue;
        names[n] = strndup(p, (size_t)(end - p));
        n++;
    }
    fclose(f);
    return n;
}

static void every_c_name_in_the_op_reference_is_unique(void **state)
{
    (void)state;
    enum { CAP = 8192 };
    char **names = calloc(CAP, sizeof *names);
    assert_non_null(names);
    int n = read_doc_cnames(names, CAP);
    if (n < 0) {
        free(names);
        print_message("%s does not exist yet; nothing to check\n", OPS_DOC);
        skip();
        return;
    }
    CT_ASSERT_MSG(n > 0, "%s lists no operator rows", OPS_DOC);
    int dups = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < i; j++)
            if (strcmp(names[i], names[j]) == 0) {
                print_error("%s: C name %s appears twice\n", OPS_DOC, names[i]);
                dups++;
            }
    for (int i = 0; i < n; i++)
        free(names[i]);
    free(names);
    CT_ASSERT_MSG(dups == 0, "%d duplicate C names in %s", dups, OPS_DOC);
}

static void every_pointwise_binding_of_the_inventory_resolves(void **state)
{
    (void)state;
    int failures = 0;
    for (int i = 0; i < dispatch_pw_binding_count; i++) {
        pw_binding *b = &dispatch_pw_bindings[i];
        clops_status st = pw_binding_resolve(b);
        if (st) {
            print_error("binding %d (%s -> pw_op_%s): %s\n", i, b->opname, b->op->name,
                        clops_last_error());
            failures++;
            continue;
        }
        /* Every schema argument became an operand or a parameter, each
         * operand and parameter slot exactly once. */
        int seen_in = 0, seen_par = 0;
        for (int a = 0; a < b->nargs; a++) {
            int m = b->map[a];
            if (m >= 0)
                seen_in |= 1 << m;
            else
                seen_par |= 1 << (-m - 1);
        }
        if (seen_in != (1 << b->op->n_in) - 1 || seen_par != (1 << b->op->n_params) - 1) {
            print_error("binding %d (%s): operands or parameters left unbound\n", i, b->opname);
            failures++;
        }
        /* The binding names an op the registry knows. */
        const clops_op *op = NULL;
        if (clops_op_find(b->opname, &op) != CLOPS_OK) {
            print_error("binding %d names unknown op %s\n", i, b->opname);
            failures++;
        }
    }
    CT_ASSERT_MSG(failures == 0, "%d of %d pointwise bindings are broken", failures,
                  dispatch_pw_binding_count);
}

static void a_binding_whose_schema_does_not_fit_its_pw_op_fails_with_the_counts(void **state)
{
    (void)state;
    /* pw_op_copy has one operand; this schema gives it two. */
    static const char *const names[] = {"self", "other"};
    pw_binding b = {.op = &pw_op_copy,
                    .opname = "fake.Tensor",
                    .nargs = 2,
                    .argnames = names,
                    .lock = PTHREAD_MUTEX_INITIALIZER};
    CT_STATUS(pw_binding_resolve(&b), CLOPS_INTERNAL);
    CT_ERROR_CONTAINS("fake.Tensor: schema does not match pw_op_copy (2 operands and 0 "
                      "parameters in the schema, 1 and 0 in the op)");
    /* Later calls fail the same way, with a message of their own. */
    clops_clear_error();
    CT_STATUS(pw_binding_resolve(&b), CLOPS_INTERNAL);
    CT_ERROR_CONTAINS("fake.Tensor: schema does not match pw_op_copy");
}

static void builtin_ops_have_kernels_for_the_cpu_and_opencl_keys(void **state)
{
    (void)state;
    /* The minimal op set a backend needs serves every device. */
    const char *core[] = {"empty.memory_format", "empty_strided", "as_strided", "view",
                          "_reshape_alias", "resize_", "copy_", "_copy_from",
                          "_copy_from_and_resize", "_local_scalar_dense", "set_", "clone",
                          "contiguous", "_to_copy"};
    for (size_t i = 0; i < CT_COUNT(core); i++) {
        const clops_op *op = find_op(core[i]);
        clops_kernel_info info;
        ct_set_case("%s", core[i]);
        CT_OK(clops_op_kernel_info(op, CLOPS_KEY_CPU, &info));
        CT_ASSERT(info.provenance == CLOPS_PROV_KERNEL);
        CT_OK(clops_op_kernel_info(op, CLOPS_KEY_OPENCL, &info));
        CT_ASSERT(info.provenance == CLOPS_PROV_KERNEL);
    }
    ct_clear_context();
}

/* --- metadata ------------------------------------------------------------ */

static void tags_are_listed_and_matched_whole(void **state)
{
    (void)state;
    const clops_op *op = find_op("view");
    assert_string_equal(clops_op_tags(op), "view,core");
    assert_true(clops_op_has_tag(op, "view"));
    assert_true(clops_op_has_tag(op, "core"));
    assert_false(clops_op_has_tag(op, "vie"));
    assert_false(clops_op_has_tag(op, "pointwise"));
    assert_false(clops_op_has_tag(op, NULL));
    assert_false(clops_op_has_tag(NULL, "view"));
}

static void argument_and_return_counts_come_from_the_schema(void **state)
{
    (void)state;
    const clops_op *op = find_op("_to_copy");
    assert_int_equal(clops_op_num_args(op), 7);
    assert_int_equal(clops_op_num_returns(op), 1);
    op = find_op("_local_scalar_dense");
    assert_int_equal(clops_op_num_args(op), 1);
    assert_int_equal(clops_op_num_returns(op), 1);
}

static void kernel_info_reports_name_provenance_and_depth_per_key(void **state)
{
    (void)state;
    const clops_op *op = find_op("view");
    clops_kernel_info info;
    CT_OK(clops_op_kernel_info(op, CLOPS_KEY_CPU, &info));
    assert_int_equal(info.key, CLOPS_KEY_CPU);
    assert_int_equal(info.provenance, CLOPS_PROV_KERNEL);
    assert_string_equal(info.name, "core_view");
    assert_int_equal(info.depth, 1);
    CT_OK(clops_op_kernel_info(op, CLOPS_KEY_NVIDIA, &info));
    assert_int_equal(info.provenance, CLOPS_PROV_MISSING);
    assert_null(info.name);
    assert_int_equal(info.depth, 0);
    /* An op with a CPU kernel can always fall back. */
    CT_OK(clops_op_kernel_info(op, CLOPS_KEY_FALLBACK, &info));
    assert_int_equal(info.provenance, CLOPS_PROV_FALLBACK);
    assert_string_equal(info.name, "cpu-fallback");
    CT_STATUS(clops_op_kernel_info(op, CLOPS_KEY_COUNT, &info), CLOPS_INVALID_ARGUMENT);
    CT_STATUS(clops_op_kernel_info(NULL, CLOPS_KEY_CPU, &info), CLOPS_INVALID_ARGUMENT);
}

static void dispatch_key_names_round_trip_case_insensitively(void **state)
{
    (void)state;
    for (int k = 0; k < CLOPS_KEY_COUNT; k++) {
        const char *name = clops_dispatch_key_name((clops_dispatch_key)k);
        clops_dispatch_key back = CLOPS_KEY_COUNT;
        CT_OK(clops_dispatch_key_from_name(name, &back));
        assert_int_equal(back, k);
    }
    clops_dispatch_key key;
    CT_OK(clops_dispatch_key_from_name("nvidia", &key));
    assert_int_equal(key, CLOPS_KEY_NVIDIA);
    CT_OK(clops_dispatch_key_from_name("opencl", &key));
    assert_int_equal(key, CLOPS_KEY_OPENCL);
    CT_OK(clops_dispatch_key_from_name("other", &key));
    assert_int_equal(key, CLOPS_KEY_OTHER);
    CT_STATUS(clops_dispatch_key_from_name("cuda", &key), CLOPS_INVALID_ARGUMENT);
    CT_ERROR_CONTAINS("unknown dispatch key 'cuda'");
    assert_string_equal(clops_dispatch_key_name(CLOPS_KEY_COUNT), "invalid");
}

static void provenance_names_are_fixed_words(void **state)
{
    (void)state;
    assert_string_equal(clops_provenance_name(CLOPS_PROV_MISSING), "missing");
    assert_string_equal(clops_provenance_name(CLOPS_PROV_KERNEL), "kernel");
    assert_string_equal(clops_provenance_name(CLOPS_PROV_STRUCTURED), "structured");
    assert_string_equal(clops_provenance_name(CLOPS_PROV_OVERRIDE), "override");
    assert_string_equal(clops_provenance_name(CLOPS_PROV_FALLBACK), "fallback");
    assert_string_equal(clops_provenance_name((clops_provenance)99), "invalid");
}

/* --- user operators ---------------------------------------------------- */

static void define_registers_a_user_op_that_find_returns(void **state)
{
    (void)state;
    const clops_op *op = NULL;
    CT_OK(clops_op_define("reg_test.scaled(Tensor  self,Scalar s = 2, *, bool flag=False) "
                          "-> Tensor",
                          "custom,pointwise", &op));
    assert_non_null(op);
    assert_string_equal(clops_op_name(op), "reg_test.scaled");
    /* The schema is kept in canonical form. */
    assert_string_equal(clops_op_schema(op),
                        "reg_test.scaled(Tensor self, Scalar s=2, *, bool flag=False) -> Tensor");
    assert_true(clops_op_has_tag(op, "custom"));
    assert_int_equal(clops_op_num_args(op), 3);
    assert_true(find_op("reg_test.scaled") == op);
    /* It has no kernels until some are registered. */
    clops_kernel_info info;
    for (int k = 0; k < CLOPS_KEY_COUNT; k++) {
        CT_OK(clops_op_kernel_info(op, (clops_dispatch_key)k, &info));
        assert_int_equal(info.provenance, CLOPS_PROV_MISSING);
    }
}

static void define_with_null_tags_gives_an_empty_tag_list(void **state)
{
    (void)state;
    const clops_op *op = NULL;
    CT_OK(clops_op_define("reg_test_untagged(Tensor self) -> Tensor", NULL, &op));
    assert_string_equal(clops_op_tags(op), "");
    assert_false(clops_op_has_tag(op, ""));
}

static void define_of_a_malformed_schema_points_at_the_offending_column(void **state)
{
    (void)state;
    const clops_op *op = NULL;
    CT_STATUS(clops_op_define("reg_bad(Tensor self Tensor other) -> Tensor", NULL, &op),
              CLOPS_SCHEMA_ERROR);
    assert_null(op);
    CT_ERROR_CONTAINS("schema error at column 21");
    CT_ERROR_CONTAINS("reg_bad(Tensor self Tensor other) -> Tensor\n");
    /* The caret sits under column 21. */
    const char *msg = clops_last_error();
    const char *caret_line = strrchr(msg, '\n');
    assert_non_null(caret_line);
    assert_int_equal((int)(strchr(caret_line, '^') - caret_line - 1), 2 + 20);
    /* Nothing was registered. */
    CT_STATUS(clops_op_find("reg_bad", &op), CLOPS_UNKNOWN_OP);
}

static void define_of_an_unknown_type_points_at_the_type(void **state)
{
    (void)state;
    const clops_op *op = NULL;
    CT_STATUS(clops_op_define("reg_bad2(Tensor self, Tenser other) -> Tensor", NULL, &op),
              CLOPS_SCHEMA_ERROR);
    CT_ERROR_CONTAINS("column 23");
}

static void define_of_an_existing_name_is_refused(void **state)
{
    (void)state;
    const clops_op *op = NULL, *again = NULL;
    int before = clops_op_count();
    CT_OK(clops_op_define("reg_test.dup(Tensor self) -> Tensor", NULL, &op));
    CT_STATUS(clops_op_define("reg_test.dup(Tensor self, int k) -> Tensor", NULL, &again),
              CLOPS_ALREADY_REGISTERED);
    CT_ERROR_CONTAINS("reg_test.dup");
    assert_null(again);
    assert_int_equal(clops_op_count(), before + 1);
    /* The first definition is untouched. */
    assert_int_equal(clops_op_num_args(find_op("reg_test.dup")), 1);
}

static void define_of_a_builtin_name_is_refused(void **state)
{
    (void)state;
    const clops_op *op = NULL;
    CT_STATUS(clops_op_define("view(Tensor self, int[] size) -> Tensor", NULL, &op),
              CLOPS_ALREADY_REGISTERED);
    CT_ERROR_CONTAINS("operator view exists");
}

static void define_refuses_an_identifier_default_the_dispatcher_cannot_box(void **state)
{
    (void)state;
    const clops_op *op = NULL;
    CT_STATUS(clops_op_define("reg_bad3(Tensor self, int mode=Bogus) -> Tensor", NULL, &op),
              CLOPS_SCHEMA_ERROR);
    CT_ERROR_CONTAINS("unknown default 'Bogus'");
    CT_ERROR_CONTAINS("'mode'");
}

static void define_with_a_null_schema_is_an_invalid_argument(void **state)
{
    (void)state;
    const clops_op *op = NULL;
    CT_STATUS(clops_op_define(NULL, NULL, &op), CLOPS_INVALID_ARGUMENT);
}

static void kernel_registration_rejects_bad_arguments(void **state)
{
    (void)state;
    const clops_op *op = NULL;
    CT_OK(clops_op_define("reg_test.badreg(Tensor self) -> Tensor", NULL, &op));
    CT_STATUS(clops_kernel_register(NULL, CLOPS_KEY_CPU, noop_kernel, NULL, "k", 0, NULL),
              CLOPS_INVALID_ARGUMENT);
    CT_STATUS(clops_kernel_register(op, CLOPS_KEY_CPU, NULL, NULL, "k", 0, NULL),
              CLOPS_INVALID_ARGUMENT);
    CT_STATUS(clops_kernel_register(op, CLOPS_KEY_COUNT, noop_kernel, NULL, "k", 0, NULL),
              CLOPS_INVALID_ARGUMENT);
    CT_STATUS(clops_kernel_remove(NULL), CLOPS_INVALID_ARGUMENT);
}

static void first_kernel_at_cpu_or_opencl_is_a_kernel_and_at_a_vendor_key_an_override(void **state)
{
    (void)state;
    const clops_op *op = NULL;
    CT_OK(clops_op_define("reg_test.prov(Tensor self) -> Tensor", NULL, &op));
    clops_override *h_cpu = NULL, *h_cl = NULL, *h_amd = NULL;
    CT_OK(clops_kernel_register(op, CLOPS_KEY_CPU, noop_kernel, NULL, "cpu-k", 0, &h_cpu));
    CT_OK(clops_kernel_register(op, CLOPS_KEY_OPENCL, noop_kernel, NULL, "cl-k", 0, &h_cl));
    CT_OK(clops_kernel_register(op, CLOPS_KEY_AMD, noop_kernel, NULL, NULL, 0, &h_amd));
    clops_kernel_info info;
    CT_OK(clops_op_kernel_info(op, CLOPS_KEY_CPU, &info));
    assert_int_equal(info.provenance, CLOPS_PROV_KERNEL);
    assert_string_equal(info.name, "cpu-k");
    CT_OK(clops_op_kernel_info(op, CLOPS_KEY_OPENCL, &info));
    assert_int_equal(info.provenance, CLOPS_PROV_KERNEL);
    CT_OK(clops_op_kernel_info(op, CLOPS_KEY_AMD, &info));
    assert_int_equal(info.provenance, CLOPS_PROV_OVERRIDE);
    assert_string_equal(info.name, "user kernel"); /* the default label */
    CT_OK(clops_kernel_remove(h_amd));
    CT_OK(clops_kernel_remove(h_cl));
    CT_OK(clops_kernel_remove(h_cpu));
    CT_OK(clops_op_kernel_info(op, CLOPS_KEY_CPU, &info));
    assert_int_equal(info.provenance, CLOPS_PROV_MISSING);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(find_returns_the_op_with_that_qualified_name),
        cmocka_unit_test(find_of_a_base_name_without_its_overload_suggests_the_overloads),
        cmocka_unit_test(find_of_a_wrong_overload_lists_every_overload_of_the_name),
        cmocka_unit_test(find_of_a_name_nobody_registered_suggests_nothing),
        cmocka_unit_test(find_with_null_arguments_is_an_invalid_argument),
        cmocka_unit_test(op_at_covers_every_op_and_is_null_outside),
        cmocka_unit_test(every_builtin_schema_round_trips_through_the_registry),
        cmocka_unit_test(every_builtin_c_name_is_unique),
        cmocka_unit_test(every_c_name_in_the_op_reference_is_unique),
        cmocka_unit_test(every_pointwise_binding_of_the_inventory_resolves),
        cmocka_unit_test(a_binding_whose_schema_does_not_fit_its_pw_op_fails_with_the_counts),
        cmocka_unit_test(builtin_ops_have_kernels_for_the_cpu_and_opencl_keys),
        cmocka_unit_test(tags_are_listed_and_matched_whole),
        cmocka_unit_test(argument_and_return_counts_come_from_the_schema),
        cmocka_unit_test(kernel_info_reports_name_provenance_and_depth_per_key),
        cmocka_unit_test(dispatch_key_names_round_trip_case_insensitively),
        cmocka_unit_test(provenance_names_are_fixed_words),
        cmocka_unit_test(define_registers_a_user_op_that_find_returns),
        cmocka_unit_test(define_with_null_tags_gives_an_empty_tag_list),
        cmocka_unit_test(define_of_a_malformed_schema_points_at_the_offending_column),
        cmocka_unit_test(define_of_an_unknown_type_points_at_the_type),
        cmocka_unit_test(define_of_an_existing_name_is_refused),
        cmocka_unit_test(define_of_a_builtin_name_is_refused),
        cmocka_unit_test(define_refuses_an_identifier_default_the_dispatcher_cannot_box),
        cmocka_unit_test(define_with_a_null_schema_is_an_invalid_argument),
        cmocka_unit_test(kernel_registration_rejects_bad_arguments),
        cmocka_unit_test(first_kernel_at_cpu_or_opencl_is_a_kernel_and_at_a_vendor_key_an_override),
    };
    return cmocka_run_group_tests(tests, NULL, ct_teardown_group);
}
