/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/test_hardening.c: inputs that once crashed the process or were
 * accepted when they should have been refused.
 *
 * Each test is the regression test of one defect: user-op expressions long
 * or deep enough to overflow an OpenCL compiler's stack are refused at
 * registration (and no generated source that deep reaches a driver), while
 * expressions at the documented limits still compile and run; releasing
 * tensors after clops_shutdown() is safe (checked in a child process whose
 * freed memory glibc overwrites, so a use-after-free crashes there); arange
 * ranges whose size overflows give PyTorch's error; an empty device
 * selector is an error; a negative argument count to clops_call_boxed says
 * so.
 */
#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "clops/ops.h"
#include "clops/pointwise.h"
#include "dispatch/dispatch.h"
#include "host/host.h"
#include "support/clops_test.h"

extern char **environ;

/* A malloc'd "a+a+...+a" of exactly `len` characters (len odd). */
static char *sum_chain(size_t len)
{
    char *e = malloc(len + 1);
    CT_ASSERT(e != NULL);
    for (size_t i = 0; i < len; i++)
        e[i] = (i % 2) ? '+' : 'a';
    e[len] = '\0';
    return e;
}

/* A malloc'd "((...(a)...))" with `depth` bracket pairs. */
static char *nested(int depth)
{
    char *e = malloc((size_t)depth * 2 + 2);
    CT_ASSERT(e != NULL);
    int n = 0;
    for (int i = 0; i < depth; i++)
        e[n++] = '(';
    e[n++] = 'a';
    for (int i = 0; i < depth; i++)
        e[n++] = ')';
    e[n] = '\0';
    return e;
}

/* Registers name(Tensor self) -> Tensor with expr; returns the status. */
static clops_status register_unary(const char *name, const char *expr, const clops_op **op)
{
    char schema[128];
    snprintf(schema, sizeof schema, "%s(Tensor self) -> Tensor", name);
    clops_pointwise_def def = {.schema = schema, .expr = expr};
    return clops_pointwise_register(&def, op);
}

/* --- user-op expressions --------------------------------------------------------- */

static void test_a_70000_character_expression_is_refused_at_registration(void **state)
{
    (void)state;
    char *e = sum_chain(70001);
    const clops_op *op = NULL;
    clops_status st = register_unary("hard_long_sum", e, &op);
    free(e);
    CT_STATUS(st, CLOPS_INVALID_ARGUMENT);
    CT_ERROR_CONTAINS("hard_long_sum");
    CT_ERROR_CONTAINS("70001 bytes");
    CT_ERROR_CONTAINS("4096");
    CT_STATUS(clops_op_find("hard_long_sum", &op), CLOPS_UNKNOWN_OP);
}

static void test_brackets_nested_deeper_than_the_limit_are_refused(void **state)
{
    (void)state;
    char *e = nested(CLOPS_POINTWISE_MAX_NESTING + 1);
    const clops_op *op = NULL;
    CT_STATUS(register_unary("hard_deep", e, &op), CLOPS_INVALID_ARGUMENT);
    CT_ERROR_CONTAINS("nests brackets more than 32 deep");
    free(e);
    clops_pointwise_def def = {.schema = "hard_deep_helpers(Tensor self) -> Tensor",
                               .expr = "a",
                               .helpers = NULL};
    char *h = nested(CLOPS_POINTWISE_MAX_NESTING + 5);
    def.helpers = h;
    CT_STATUS(clops_pointwise_register(&def, &op), CLOPS_INVALID_ARGUMENT);
    CT_ERROR_CONTAINS("helpers");
    free(h);
}

/* The limits themselves are safe: the longest and the deepest expression
 * allowed compile and compute the right values on every device. */
static void test_expressions_at_the_limits_compile_and_run(void **state)
{
    (void)state;
    char *longest = sum_chain(CLOPS_POINTWISE_MAX_EXPR_LEN - 1); /* 2048 terms */
    char *deepest = nested(CLOPS_POINTWISE_MAX_NESTING);
    const clops_op *op_long = NULL, *op_deep = NULL;
    CT_OK(register_unary("hard_sum_at_limit", longest, &op_long));
    CT_OK(register_unary("hard_deep_at_limit", deepest, &op_deep));
    free(longest);
    free(deepest);
    clops_device *devs[CT_MAX_DEVICES];
    int n = ct_opencl_devices(devs, CT_MAX_DEVICES);
    for (int k = 0; k < n; k++) {
        ct_set_device(devs[k]);
        const float x[4] = {1.0f, -0.5f, 0.25f, 3.0f};
        clops_tensor *t = ct_from_values(devs[k], CLOPS_FLOAT32, 1, CT_I64(4), CT_CONTIGUOUS, x);
        for (int which = 0; which < 2; which++) {
            clops_value args[1] = {clops_value_tensor(t)};
            clops_value ret[1];
            CT_OK(clops_call_boxed(which ? op_deep : op_long, args, 1, ret, 1));
            float *got = ct_to_host(ret[0].v.t);
            for (int i = 0; i < 4; i++) {
                float want = which ? x[i] : x[i] * 2048.0f;
                CT_ASSERT_MSG(got[i] == want, "%s: element %d is %g, want %g",
                              which ? "deep" : "long", i, got[i], want);
            }
            free(got);
            clops_tensor_release(ret[0].v.t);
        }
        clops_tensor_release(t);
    }
    ct_clear_context();
}

/* A program source that nests deeper than the driver can take. */
static clops_status gen_deep_source(void *ctx, const clops_device *d, strbuf *sb)
{
    (void)ctx;
    (void)d;
    sb_append(sb, "/* brackets (in a comment) do not count: ((((( */\n"
                  "__kernel void deep(__global int *p) { p[0] = ");
    for (int i = 0; i < 300; i++)
        sb_putc(sb, '(');
    sb_putc(sb, '1');
    for (int i = 0; i < 300; i++)
        sb_putc(sb, ')');
    sb_append(sb, "; }\n");
    return CLOPS_OK;
}

/* A program with one statement longer than the driver can take. */
static clops_status gen_long_source(void *ctx, const clops_device *d, strbuf *sb)
{
    (void)ctx;
    (void)d;
    sb_append(sb, "__kernel void longsum(__global int *p) { p[0] = 1");
    for (int i = 0; i < 20000; i++)
        sb_append(sb, "+1");
    sb_append(sb, "; }\n");
    return CLOPS_OK;
}

static void test_no_source_deeper_than_the_limits_reaches_a_driver(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int n = ct_opencl_devices(devs, CT_MAX_DEVICES);
    for (int k = 0; k < n; k++) {
        ct_set_device(devs[k]);
        host_kcache_stats before;
        host_kcache_get_stats(devs[k], &before);
        host_kernel *kern = NULL;
        host_kernel_request deep = {
            .program_name = "test/deep", .kernel_name = "deep", .gen_source = gen_deep_source};
        host_kkey key = {{0xDEE9u, 1, 2, 3}};
        CT_STATUS(host_kernel_get(devs[k], &key, &deep, &kern), CLOPS_BUILD_FAILURE);
        CT_ERROR_CONTAINS("test/deep");
        CT_ERROR_CONTAINS("nested 301 deep at line 2");
        host_kernel_request longer = {
            .program_name = "test/long", .kernel_name = "longsum", .gen_source = gen_long_source};
        host_kkey key2 = {{0x1096u, 1, 2, 3}};
        CT_STATUS(host_kernel_get(devs[k], &key2, &longer, &kern), CLOPS_BUILD_FAILURE);
        CT_ERROR_CONTAINS("a statement of");
        host_kcache_stats after;
        host_kcache_get_stats(devs[k], &after);
        CT_ASSERT(after.programs_built == before.programs_built);
    }
    /* Comments and literals are skipped; balanced ordinary code passes. */
    CT_OK(host_source_check("ok", "/* ) ( */ __kernel void f(__global int *p) { p[0] = ')'; }"));
    ct_clear_context();
}

/* --- release after shutdown ------------------------------------------------------ */

/* The child's side: makes tensors (and a view) on every device, shuts clops
 * down, releases them, initialises again and releases a tensor made before
 * that second shutdown too.  Exits 0 when it got through. */
static int release_after_shutdown_child(void)
{
    int count = 0;
    if (clops_device_count(&count))
        return 2;
    clops_tensor *ts[2 * CT_MAX_DEVICES];
    int nt = 0;
    for (int i = 0; i < count && i < CT_MAX_DEVICES; i++) {
        clops_device *d = NULL;
        if (clops_device_get(i, &d) || clops_zeros(d, CLOPS_FLOAT32, 1, CT_I64(1000), &ts[nt]))
            return 3;
        if (clops_narrow(ts[nt], 0, 10, 10, &ts[nt + 1]))
            return 4;
        nt += 2;
    }
    clops_shutdown();
    for (int i = 0; i < nt; i++)
        clops_tensor_release(ts[i]);
    /* Again across a re-initialisation. */
    clops_device *d = NULL;
    clops_tensor *t = NULL;
    if (clops_device_default(&d) || clops_ones(d, CLOPS_FLOAT32, 1, CT_I64(64), &t))
        return 5;
    clops_shutdown();
    if (clops_device_default(&d))
        return 6;
    clops_tensor_release(t);
    clops_tensor *u = NULL;
    if (clops_ones(d, CLOPS_FLOAT32, 1, CT_I64(64), &u))
        return 7;
    clops_tensor_release(u);
    clops_shutdown();
    return 0;
}

static void test_releasing_tensors_after_shutdown_is_safe(void **state)
{
    (void)state;
    /* glibc overwrites freed memory with MALLOC_PERTURB_'s byte, so a
     * release that reads the freed device record crashes the child. */
    char *argv[] = {"test_hardening", "--release-after-shutdown", NULL};
    size_t n = 0;
    while (environ[n])
        n++;
    char **env = calloc(n + 2, sizeof *env);
    CT_ASSERT(env != NULL);
    memcpy(env, environ, n * sizeof *env);
    env[n] = "MALLOC_PERTURB_=165";
    pid_t pid;
    int rc = posix_spawn(&pid, "/proc/self/exe", NULL, NULL, argv, env);
    free(env);
    CT_ASSERT_MSG(rc == 0, "posix_spawn: %s", strerror(rc));
    int status = 0;
    CT_ASSERT(waitpid(pid, &status, 0) == pid);
    CT_ASSERT_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0,
                  "the child %s %d", WIFEXITED(status) ? "exited" : "died of signal",
                  WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
}

/* --- smaller defects --------------------------------------------------------------- */

static void test_arange_sizes_that_overflow_give_pytorchs_error(void **state)
{
    (void)state;
    clops_tensor *t = NULL;
    clops_device *cpu = ct_cpu();
    CT_STATUS(clops_arange(cpu, CLOPS_DTYPE_NONE, clops_scalar_float(0), clops_scalar_float(1e300),
                           clops_scalar_float(1e-300), &t),
              CLOPS_INVALID_ARGUMENT);
    CT_ERROR_CONTAINS("arange: invalid size, possible overflow?");
    CT_STATUS(clops_arange(cpu, CLOPS_DTYPE_NONE, clops_scalar_int(INT64_MIN),
                           clops_scalar_int(INT64_MAX), clops_scalar_int(1), &t),
              CLOPS_INVALID_ARGUMENT);
    CT_ERROR_CONTAINS("invalid size, possible overflow?");
    CT_STATUS(clops_arange(cpu, CLOPS_DTYPE_NONE, clops_scalar_int(INT64_MAX),
                           clops_scalar_int(INT64_MIN), clops_scalar_int(-3), &t),
              CLOPS_INVALID_ARGUMENT);
    CT_ASSERT(t == NULL);
    /* Near the edge but representable: fine. */
    CT_OK(clops_arange(cpu, CLOPS_DTYPE_NONE, clops_scalar_int(INT64_MAX - 3),
                       clops_scalar_int(INT64_MAX), clops_scalar_int(1), &t));
    CT_ASSERT(clops_tensor_numel(t) == 3);
    clops_tensor_release(t);
}

static void test_an_empty_device_selector_is_an_error(void **state)
{
    (void)state;
    clops_device *d = NULL;
    CT_STATUS(clops_device_find("", &d), CLOPS_INVALID_ARGUMENT);
    CT_ERROR_CONTAINS("empty");
    CT_ASSERT(d == NULL);
}

static void test_a_negative_argument_count_is_named_as_such(void **state)
{
    (void)state;
    const clops_op *op = NULL;
    CT_OK(clops_op_find("relu", &op));
    clops_value args[1] = {clops_value_none()}, rets[1];
    CT_STATUS(clops_call_boxed(op, args, -1, rets, 1), CLOPS_INVALID_ARGUMENT);
    CT_ERROR_CONTAINS("negative argument count -1");
    CT_STATUS(clops_call_boxed(op, NULL, -2, rets, 1), CLOPS_INVALID_ARGUMENT);
    CT_ERROR_CONTAINS("negative argument count -2");
    CT_STATUS(clops_call_boxed(op, args, 1, rets, -1), CLOPS_INVALID_ARGUMENT);
    CT_ERROR_CONTAINS("negative result count -1");
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "--release-after-shutdown") == 0)
        return release_after_shutdown_child();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_70000_character_expression_is_refused_at_registration),
        cmocka_unit_test(test_brackets_nested_deeper_than_the_limit_are_refused),
        cmocka_unit_test(test_expressions_at_the_limits_compile_and_run),
        cmocka_unit_test(test_no_source_deeper_than_the_limits_reaches_a_driver),
        cmocka_unit_test(test_releasing_tensors_after_shutdown_is_safe),
        cmocka_unit_test(test_arange_sizes_that_overflow_give_pytorchs_error),
        cmocka_unit_test(test_an_empty_device_selector_is_an_error),
        cmocka_unit_test(test_a_negative_argument_count_is_named_as_such),
    };
    return cmocka_run_group_tests(tests, NULL, ct_teardown_group);
}
