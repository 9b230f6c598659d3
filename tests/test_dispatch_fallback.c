/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/test_dispatch_fallback.c: the boxed CPU fallback (dispatch/fallback.c)
 * and the errors of calls that have no kernel at all.
 *
 * An operator with a CPU kernel but no kernel for an OpenCL device runs on
 * the CPU: its tensor arguments are copied to the host, the CPU kernel runs,
 * every argument the schema marks `Tensor(a!)` is written back into the
 * caller's device tensor, and fresh results come back on the device.  The
 * policy (allow / warn / error, from CLOPS_FALLBACK or
 * clops_set_fallback_policy) and the per-op deny list (clops_fallback_deny,
 * CLOPS_FALLBACK_DENY) decide whether that may happen; every fallback is
 * counted.  The environment variables are read once per process, so the
 * tests of them run this executable again as a child process with the
 * variables set (see child_main).
 *
 * The user operators here have only boxed CPU kernels that read and write
 * host memory, so a device tensor reaching them directly would be a bug;
 * they fail loudly if that happens.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "clops/ops.h"
#include "dispatch/dispatch.h"
#include "host/host.h"
#include "ops/tensor/tensor.h"
#include "support/clops_test.h"

extern char **environ;

/* --- helpers --------------------------------------------------------------- */

/* The first OpenCL device under test; skips the test when there is none. */
#define NEED_OPENCL(d)                                                                    \
    clops_device *d = first_opencl();                                                     \
    if (!d) {                                                                             \
        skip();                                                                           \
        return;                                                                           \
    }

static clops_device *first_opencl(void)
{
    clops_device *devs[CT_MAX_DEVICES];
    return ct_opencl_devices(devs, CT_MAX_DEVICES) > 0 ? devs[0] : NULL;
}

/* A float32 tensor on dev holding start, start+1, ... */
static clops_tensor *iota_from(clops_device *dev, int ndim, const int64_t *sizes, float start)
{
    int64_t n = ct_numel(ndim, sizes);
    float *v = malloc((size_t)(n ? n : 1) * sizeof *v);
    CT_ASSERT(v != NULL);
    for (int64_t i = 0; i < n; i++)
        v[i] = start + (float)i;
    clops_tensor *t = ct_from_values(dev, CLOPS_FLOAT32, ndim, sizes, CT_CONTIGUOUS, v);
    free(v);
    return t;
}

/* How many times the CPU kernels ran, and on which device they saw their
 * tensors. */
static int cpu_kernel_calls;
static bool cpu_kernel_saw_device_tensor;

/*
 * CPU kernel of `acc_op(Tensor(a!) acc, Tensor x) -> Tensor`: acc += x,
 * returns a fresh tensor 2 * acc.  float32 only.
 */
static clops_status accumulate_cpu(const clops_kernel_ctx *ctx, clops_value *args, int nargs,
                                   clops_value *rets, int nrets)
{
    (void)nargs;
    (void)nrets;
    cpu_kernel_calls++;
    clops_tensor *acc = args[0].v.t, *x = args[1].v.t;
    if (!host_is_cpu(clops_tensor_device(acc)) || !host_is_cpu(clops_tensor_device(x)) ||
        !host_is_cpu(clops_kernel_ctx_device(ctx))) {
        cpu_kernel_saw_device_tensor = true;
        return clops__fail(CLOPS_INTERNAL, "accumulate_cpu: got a device tensor");
    }
    int64_t n = clops_tensor_numel(acc);
    size_t bytes = (size_t)n * sizeof(float);
    float *a = malloc(bytes + 4), *b = malloc(bytes + 4);
    clops_status st = (a && b) ? CLOPS_OK : CLOPS_HOST_OUT_OF_MEMORY;
    if (st == CLOPS_OK)
        st = clops_tensor_to_host(acc, a, bytes);
    if (st == CLOPS_OK)
        st = clops_tensor_to_host(x, b, bytes);
    for (int64_t i = 0; st == CLOPS_OK && i < n; i++)
        a[i] += b[i];
    if (st == CLOPS_OK)
        st = clops_tensor_from_host(acc, a, bytes);
    for (int64_t i = 0; st == CLOPS_OK && i < n; i++)
        a[i] *= 2.0f;
    clops_tensor *r = NULL;
    if (st == CLOPS_OK)
        st = clops_from_host(clops_kernel_ctx_device(ctx), CLOPS_FLOAT32, clops_tensor_ndim(acc),
                             clops_tensor_sizes(acc), a, bytes, &r);
    if (st == CLOPS_OK)
        rets[0] = clops_value_tensor(r);
    free(a);
    free(b);
    return st;
}

/* Defines `name(Tensor(a!) acc, Tensor x) -> Tensor` with accumulate_cpu
 * as its only kernel. */
static const clops_op *define_accumulate(const char *name)
{
    char schema[256];
    snprintf(schema, sizeof schema, "%s(Tensor(a!) acc, Tensor x) -> Tensor", name);
    const clops_op *op = NULL;
    CT_OK(clops_op_define(schema, "test", &op));
    CT_OK(clops_kernel_register(op, CLOPS_KEY_CPU, accumulate_cpu, NULL, "accumulate_cpu", 0,
                                NULL));
    return op;
}

/* Calls acc_op(acc, x) boxed; *out gets the result (may be NULL). */
static clops_status call_accumulate(const clops_op *op, clops_tensor *acc, clops_tensor *x,
                                    clops_tensor **out)
{
    clops_value a[2] = {clops_value_tensor(acc), clops_value_tensor(x)};
    clops_value r[1];
    clops_status st = clops_call_boxed(op, a, 2, r, 1);
    if (st == CLOPS_OK) {
        if (out)
            *out = r[0].v.t;
        else
            clops_value_clear(&r[0]);
    }
    return st;
}

/* Reads a float32 tensor's element i. */
static float elem(const clops_tensor *t, int64_t i)
{
    float *h = ct_to_host(t);
    float v = h[i];
    free(h);
    return v;
}

/* stderr capture into a temporary file. */
static int saved_stderr = -1;
static char capture_path[64];

static void capture_begin(void)
{
    snprintf(capture_path, sizeof capture_path, "/tmp/clops-test-stderr-XXXXXX");
    int fd = mkstemp(capture_path);
    CT_ASSERT(fd >= 0);
    fflush(stderr);
    saved_stderr = dup(2);
    dup2(fd, 2);
    close(fd);
}

/* Reads a whole small file into a new string (free it). */
static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    CT_ASSERT(f != NULL);
    char *text = calloc(1, 65536);
    CT_ASSERT(text != NULL);
    size_t n = fread(text, 1, 65535, f);
    text[n] = '\0';
    fclose(f);
    return text;
}

static char *capture_end(void)
{
    fflush(stderr);
    dup2(saved_stderr, 2);
    close(saved_stderr);
    saved_stderr = -1;
    char *text = slurp(capture_path);
    unlink(capture_path);
    return text;
}

/* Number of non-overlapping occurrences of needle in text. */
static int count_of(const char *text, const char *needle)
{
    int n = 0;
    for (const char *p = strstr(text, needle); p; p = strstr(p + strlen(needle), needle))
        n++;
    return n;
}

/* Per-test teardown: default policy, no capture, no trace. */
static int restore_defaults(void **state)
{
    (void)state;
    if (saved_stderr >= 0) {
        fflush(stderr);
        dup2(saved_stderr, 2);
        close(saved_stderr);
        saved_stderr = -1;
    }
    clops_set_trace(false);
    clops_set_fallback_policy(CLOPS_FALLBACK_ALLOW);
    return 0;
}

/* --- the fallback ------------------------------------------------------------- */

static void a_device_call_of_an_op_with_only_a_cpu_kernel_runs_on_the_cpu(void **state)
{
    (void)state;
    NEED_OPENCL(d);
    const clops_op *op = define_accumulate("fb_basic");
    clops_kernel_info info;
    CT_OK(clops_op_resolve(op, d, &info));
    CT_ASSERT(info.key == CLOPS_KEY_FALLBACK && info.provenance == CLOPS_PROV_FALLBACK);
    clops_tensor *acc = iota_from(d, 2, CT_I64(2, 3), 0.0f);
    clops_tensor *x = iota_from(d, 2, CT_I64(2, 3), 10.0f);
    clops_tensor *out = NULL;
    cpu_kernel_calls = 0;
    CT_OK(call_accumulate(op, acc, x, &out));
    CT_ASSERT(cpu_kernel_calls == 1 && !cpu_kernel_saw_device_tensor);
    /* The fresh result lives on the caller's device... */
    CT_ASSERT(clops_tensor_device(out) == d);
    CT_ASSERT(clops_tensor_ndim(out) == 2 && clops_tensor_size(out, 1) == 3);
    CT_ASSERT(elem(out, 5) == 2.0f * (5.0f + 15.0f));
    /* ...and the mutated argument was written back into the device tensor. */
    CT_ASSERT(clops_tensor_device(acc) == d);
    CT_ASSERT(elem(acc, 0) == 10.0f && elem(acc, 5) == 20.0f);
    /* The read-only argument is untouched. */
    CT_ASSERT(elem(x, 5) == 15.0f);
    clops_tensor_release(out);
    clops_tensor_release(x);
    clops_tensor_release(acc);
}

static void fallback_writes_back_into_a_strided_device_argument(void **state)
{
    (void)state;
    NEED_OPENCL(d);
    const clops_op *op = define_accumulate("fb_strided");
    clops_tensor *base = iota_from(d, 2, CT_I64(3, 2), 0.0f); /* rows 0 1 / 2 3 / 4 5 */
    clops_tensor *acc = NULL;
    CT_OK(clops_t(base, &acc)); /* 2x3 view: 0 2 4 / 1 3 5 */
    clops_tensor *x = iota_from(d, 2, CT_I64(2, 3), 100.0f);
    CT_OK(call_accumulate(op, acc, x, NULL));
    /* acc[i][j] += 100 + 3i + j, seen through the base's storage. */
    float *h = ct_to_host(base);
    CT_ASSERT(h[0] == 100.0f);         /* acc[0][0] = 0 + 100 */
    CT_ASSERT(h[1] == 1.0f + 103.0f);  /* acc[1][0] = 1 + 103 */
    CT_ASSERT(h[4] == 4.0f + 102.0f);  /* acc[0][2] = 4 + 102 */
    CT_ASSERT(h[5] == 5.0f + 105.0f);  /* acc[1][2] = 5 + 105 */
    free(h);
    CT_ASSERT(clops_tensor_stride(acc, 0) == 1); /* still the same view */
    clops_tensor_release(x);
    clops_tensor_release(acc);
    clops_tensor_release(base);
}

/* CPU kernel of `fb_scale_(Tensor(a!) self, float f) -> Tensor(a!)`. */
static clops_status scale_inplace_cpu(const clops_kernel_ctx *ctx, clops_value *args, int nargs,
                                      clops_value *rets, int nrets)
{
    (void)ctx;
    (void)nargs;
    (void)nrets;
    cpu_kernel_calls++;
    clops_tensor *t = args[0].v.t;
    int64_t n = clops_tensor_numel(t);
    float buf[64];
    if (n > 64 || !host_is_cpu(clops_tensor_device(t)))
        return clops__fail(CLOPS_INTERNAL, "scale_inplace_cpu: unexpected tensor");
    clops_status st = clops_tensor_to_host(t, buf, (size_t)n * sizeof(float));
    for (int64_t i = 0; i < n; i++)
        buf[i] *= (float)args[1].v.f;
    if (st == CLOPS_OK)
        st = clops_tensor_from_host(t, buf, (size_t)n * sizeof(float));
    if (st == CLOPS_OK)
        rets[0] = clops_value_tensor(clops_tensor_retain(t));
    return st;
}

static void a_result_aliasing_a_written_argument_is_that_device_argument(void **state)
{
    (void)state;
    NEED_OPENCL(d);
    const clops_op *op = NULL;
    CT_OK(clops_op_define("fb_scale_(Tensor(a!) self, float f) -> Tensor(a!)", NULL, &op));
    CT_OK(clops_kernel_register(op, CLOPS_KEY_CPU, scale_inplace_cpu, NULL, "scale", 0, NULL));
    clops_tensor *t = iota_from(d, 1, CT_I64(4), 1.0f);
    clops_value a[2] = {clops_value_tensor(t), clops_value_int(3)};
    clops_value r[1];
    CT_OK(clops_call_boxed(op, a, 2, r, 1));
    CT_ASSERT(r[0].tag == CLOPS_V_TENSOR && r[0].v.t == t);
    CT_ASSERT(elem(t, 3) == 12.0f);
    clops_value_clear(&r[0]);
    clops_tensor_release(t);
}

/* CPU kernel of `fb_fill_all(Tensor(a!)[] ts, float v) -> ()`. */
static clops_status fill_list_cpu(const clops_kernel_ctx *ctx, clops_value *args, int nargs,
                                  clops_value *rets, int nrets)
{
    (void)ctx;
    (void)nargs;
    (void)rets;
    (void)nrets;
    cpu_kernel_calls++;
    for (int i = 0; i < args[0].v.tensors.len; i++) {
        clops_tensor *t = args[0].v.tensors.data[i];
        if (!host_is_cpu(clops_tensor_device(t)))
            return clops__fail(CLOPS_INTERNAL, "fill_list_cpu: device tensor");
        clops_status st = tensor_fill(t, clops_scalar_float(args[1].v.f));
        if (st)
            return st;
    }
    return CLOPS_OK;
}

static void fallback_writes_back_every_tensor_of_a_written_list(void **state)
{
    (void)state;
    NEED_OPENCL(d);
    const clops_op *op = NULL;
    CT_OK(clops_op_define("fb_fill_all(Tensor(a!)[] ts, float v) -> ()", NULL, &op));
    CT_OK(clops_kernel_register(op, CLOPS_KEY_CPU, fill_list_cpu, NULL, "fill", 0, NULL));
    clops_tensor *ts[2] = {iota_from(d, 1, CT_I64(3), 0.0f), iota_from(d, 2, CT_I64(2, 2), 0.0f)};
    clops_value a[2] = {{.tag = CLOPS_V_TENSOR_LIST, .v.tensors = {ts, 2}},
                        clops_value_float(4.5)};
    CT_OK(clops_call_boxed(op, a, 2, NULL, 0));
    CT_ASSERT(elem(ts[0], 2) == 4.5f && elem(ts[1], 3) == 4.5f);
    CT_ASSERT(clops_tensor_device(ts[1]) == d);
    clops_tensor_release(ts[0]);
    clops_tensor_release(ts[1]);
}

/* A CPU kernel that fails after touching its argument. */
static clops_status failing_cpu(const clops_kernel_ctx *ctx, clops_value *args, int nargs,
                                clops_value *rets, int nrets)
{
    (void)ctx;
    (void)nargs;
    (void)rets;
    (void)nrets;
    tensor_fill(args[0].v.t, clops_scalar_int(-1));
    return clops__fail(CLOPS_INVALID_SHAPE, "failing_cpu: refused");
}

static void a_failing_cpu_kernel_fails_the_call_and_writes_nothing_back(void **state)
{
    (void)state;
    NEED_OPENCL(d);
    const clops_op *op = NULL;
    CT_OK(clops_op_define("fb_failing(Tensor(a!) acc, Tensor x) -> Tensor", NULL, &op));
    CT_OK(clops_kernel_register(op, CLOPS_KEY_CPU, failing_cpu, NULL, "failing", 0, NULL));
    clops_tensor *acc = iota_from(d, 1, CT_I64(3), 1.0f), *x = iota_from(d, 1, CT_I64(3), 0.0f);
    clops_tensor *out = NULL;
    CT_STATUS(call_accumulate(op, acc, x, &out), CLOPS_INVALID_SHAPE);
    CT_ERROR_CONTAINS("fb_failing (CPU fallback from ");
    CT_ERROR_CONTAINS("failing_cpu: refused");
    CT_ASSERT(out == NULL);
    CT_ASSERT(elem(acc, 0) == 1.0f);
    clops_tensor_release(acc);
    clops_tensor_release(x);
}

static void an_override_of_an_op_without_device_kernels_falls_back_to_the_cpu(void **state)
{
    (void)state;
    NEED_OPENCL(d);
    const clops_op *op = define_accumulate("fb_under_override");
    clops_override *h = NULL;
    /* The vendor key's override calls "the kernel below", which is the CPU
     * fallback here. */
    CT_OK(clops_kernel_register(op, (clops_dispatch_key)dispatch_target_of(d),
                                (clops_boxed_kernel)clops_kernel_call_fallback, NULL, "forward", 0,
                                &h));
    clops_tensor *acc = iota_from(d, 1, CT_I64(2), 0.0f), *x = iota_from(d, 1, CT_I64(2), 1.0f);
    uint64_t before = clops_fallback_count(op);
    cpu_kernel_calls = 0;
    CT_OK(call_accumulate(op, acc, x, NULL));
    CT_ASSERT(cpu_kernel_calls == 1 && clops_fallback_count(op) == before + 1);
    CT_ASSERT(elem(acc, 1) == 3.0f);
    CT_OK(clops_kernel_remove(h));
    clops_tensor_release(acc);
    clops_tensor_release(x);
}

/* --- counters and policies ------------------------------------------------------ */

static void every_fallback_is_counted_per_op_until_reset(void **state)
{
    (void)state;
    NEED_OPENCL(d);
    const clops_op *a = define_accumulate("fb_count_a"), *b = define_accumulate("fb_count_b");
    clops_tensor *acc = iota_from(d, 1, CT_I64(2), 0.0f), *x = iota_from(d, 1, CT_I64(2), 0.0f);
    CT_ASSERT(clops_fallback_count(a) == 0 && clops_fallback_count(b) == 0);
    for (int i = 0; i < 3; i++)
        CT_OK(call_accumulate(a, acc, x, NULL));
    CT_OK(call_accumulate(b, acc, x, NULL));
    CT_ASSERT(clops_fallback_count(a) == 3 && clops_fallback_count(b) == 1);
    /* CPU calls are not fallbacks. */
    clops_tensor *ca = iota_from(ct_cpu(), 1, CT_I64(2), 0.0f);
    CT_OK(call_accumulate(a, ca, ca, NULL));
    CT_ASSERT(clops_fallback_count(a) == 3);
    clops_fallback_reset_counts();
    CT_ASSERT(clops_fallback_count(a) == 0 && clops_fallback_count(b) == 0);
    CT_ASSERT(clops_fallback_count(NULL) == 0);
    clops_tensor_release(ca);
    clops_tensor_release(acc);
    clops_tensor_release(x);
}

static void allow_policy_falls_back_silently(void **state)
{
    (void)state;
    NEED_OPENCL(d);
    const clops_op *op = define_accumulate("fb_allow");
    clops_set_fallback_policy(CLOPS_FALLBACK_ALLOW);
    CT_ASSERT(clops_get_fallback_policy() == CLOPS_FALLBACK_ALLOW);
    clops_tensor *acc = iota_from(d, 1, CT_I64(2), 0.0f), *x = iota_from(d, 1, CT_I64(2), 0.0f);
    capture_begin();
    clops_status st = call_accumulate(op, acc, x, NULL);
    char *text = capture_end();
    CT_OK(st);
    CT_ASSERT_MSG(text[0] == '\0', "stderr was '%s'", text);
    free(text);
    clops_tensor_release(acc);
    clops_tensor_release(x);
}

static void warn_policy_prints_each_op_once_until_the_counts_are_reset(void **state)
{
    (void)state;
    NEED_OPENCL(d);
    const clops_op *a = define_accumulate("fb_warn_a"), *b = define_accumulate("fb_warn_b");
    clops_tensor *acc = iota_from(d, 1, CT_I64(2), 0.0f), *x = iota_from(d, 1, CT_I64(2), 0.0f);
    clops_set_fallback_policy(CLOPS_FALLBACK_WARN);
    capture_begin();
    clops_status st = CLOPS_OK;
    for (int i = 0; i < 3 && st == CLOPS_OK; i++)
        st = call_accumulate(a, acc, x, NULL);
    if (st == CLOPS_OK)
        st = call_accumulate(b, acc, x, NULL);
    char *text = capture_end();
    CT_OK(st);
    CT_ASSERT_MSG(count_of(text, "fb_warn_a has no kernel for ") == 1, "stderr was '%s'", text);
    CT_ASSERT_MSG(count_of(text, "fb_warn_b has no kernel for ") == 1, "stderr was '%s'", text);
    CT_ASSERT(strstr(text, clops_device_label(d)) && strstr(text, "CLOPS_FALLBACK=warn"));
    CT_ASSERT(count_of(text, "\n") == 2);
    CT_ASSERT(clops_fallback_count(a) == 3);
    free(text);
    /* A reset re-arms the warning. */
    clops_fallback_reset_counts();
    capture_begin();
    st = call_accumulate(a, acc, x, NULL);
    text = capture_end();
    CT_OK(st);
    CT_ASSERT_MSG(count_of(text, "fb_warn_a has no kernel") == 1, "stderr was '%s'", text);
    free(text);
    clops_tensor_release(acc);
    clops_tensor_release(x);
}

static void error_policy_refuses_naming_op_device_and_keys_and_changes_nothing(void **state)
{
    (void)state;
    NEED_OPENCL(d);
    const clops_op *op = define_accumulate("fb_error");
    clops_tensor *acc = iota_from(d, 1, CT_I64(2), 1.0f), *x = iota_from(d, 1, CT_I64(2), 1.0f);
    clops_set_fallback_policy(CLOPS_FALLBACK_ERROR);
    CT_ASSERT(clops_get_fallback_policy() == CLOPS_FALLBACK_ERROR);
    cpu_kernel_calls = 0;
    clops_tensor *out = NULL;
    CT_STATUS(call_accumulate(op, acc, x, &out), CLOPS_FALLBACK_DENIED);
    CT_ERROR_CONTAINS("fb_error: no kernel for device ");
    CT_ERROR_CONTAINS(clops_device_label(d));
    CT_ERROR_CONTAINS("CLOPS_FALLBACK=error");
    CT_ERROR_CONTAINS("keys with kernels: CPU");
    CT_ASSERT(out == NULL && cpu_kernel_calls == 0 && clops_fallback_count(op) == 0);
    CT_ASSERT(elem(acc, 1) == 2.0f);
    /* CPU calls are not fallbacks and still run. */
    clops_tensor *ca = iota_from(ct_cpu(), 1, CT_I64(2), 0.0f);
    CT_OK(call_accumulate(op, ca, ca, NULL));
    clops_tensor_release(ca);
    clops_tensor_release(acc);
    clops_tensor_release(x);
}

static void the_deny_list_refuses_one_op_whatever_the_policy(void **state)
{
    (void)state;
    NEED_OPENCL(d);
    const clops_op *denied = define_accumulate("fb_denied"), *other = define_accumulate("fb_ok");
    clops_tensor *acc = iota_from(d, 1, CT_I64(2), 0.0f), *x = iota_from(d, 1, CT_I64(2), 0.0f);
    CT_OK(clops_fallback_deny(denied, true));
    CT_STATUS(call_accumulate(denied, acc, x, NULL), CLOPS_FALLBACK_DENIED);
    CT_ERROR_CONTAINS("fb_denied: no kernel for device");
    CT_ERROR_CONTAINS("deny list");
    CT_OK(call_accumulate(other, acc, x, NULL));
    /* Allowed again. */
    CT_OK(clops_fallback_deny(denied, false));
    CT_OK(call_accumulate(denied, acc, x, NULL));
    CT_STATUS(clops_fallback_deny(NULL, true), CLOPS_INVALID_ARGUMENT);
    clops_tensor_release(acc);
    clops_tensor_release(x);
}

/* --- no kernel at all ------------------------------------------------------------- */

static void a_device_call_without_device_or_cpu_kernel_names_op_device_and_keys(void **state)
{
    (void)state;
    NEED_OPENCL(d);
    const clops_op *op = NULL;
    CT_OK(clops_op_define("fb_nowhere(Tensor(a!) acc, Tensor x) -> Tensor", NULL, &op));
    clops_tensor *acc = iota_from(d, 1, CT_I64(2), 0.0f), *x = iota_from(d, 1, CT_I64(2), 0.0f);
    CT_STATUS(call_accumulate(op, acc, x, NULL), CLOPS_NOT_IMPLEMENTED);
    CT_ERROR_CONTAINS("fb_nowhere: no kernel for device ");
    CT_ERROR_CONTAINS(clops_device_label(d));
    CT_ERROR_CONTAINS(clops_device_get_info(d)->name);
    CT_ERROR_CONTAINS("keys with kernels: none");
    /* A kernel at another vendor's key is listed but does not help. */
    clops_dispatch_key other =
        dispatch_target_of(d) == CLOPS_KEY_NVIDIA ? CLOPS_KEY_AMD : CLOPS_KEY_NVIDIA;
    CT_OK(clops_kernel_register(op, other, accumulate_cpu, NULL, "elsewhere", 0, NULL));
    CT_STATUS(call_accumulate(op, acc, x, NULL), CLOPS_NOT_IMPLEMENTED);
    CT_ERROR_CONTAINS("keys with kernels: ");
    CT_ERROR_CONTAINS(clops_dispatch_key_name(other));
    CT_ERROR_CONTAINS(clops_dispatch_key_name((clops_dispatch_key)dispatch_target_of(d)));
    clops_tensor_release(acc);
    clops_tensor_release(x);
}

static void a_cpu_call_of_an_op_with_only_device_kernels_is_not_implemented(void **state)
{
    (void)state;
    const clops_op *op = NULL;
    CT_OK(clops_op_define("fb_device_only(Tensor(a!) acc, Tensor x) -> Tensor", NULL, &op));
    CT_OK(clops_kernel_register(op, CLOPS_KEY_OPENCL, accumulate_cpu, NULL, "cl", 0, NULL));
    clops_tensor *t = iota_from(ct_cpu(), 1, CT_I64(2), 0.0f);
    CT_STATUS(call_accumulate(op, t, t, NULL), CLOPS_NOT_IMPLEMENTED);
    CT_ERROR_CONTAINS("fb_device_only: no kernel for device cpu");
    CT_ERROR_CONTAINS("keys with kernels: OpenCL");
    clops_tensor_release(t);
}

/* --- trace ------------------------------------------------------------------------- */

static void trace_shows_the_fallback_running_the_cpu_kernel(void **state)
{
    (void)state;
    NEED_OPENCL(d);
    const clops_op *op = define_accumulate("fb_traced");
    clops_tensor *acc = iota_from(d, 1, CT_I64(2), 0.0f), *x = iota_from(d, 1, CT_I64(2), 0.0f);
    capture_begin();
    clops_set_trace(true);
    clops_status st = call_accumulate(op, acc, x, NULL);
    clops_set_trace(false);
    char *text = capture_end();
    CT_OK(st);
    char l1[128];
    snprintf(l1, sizeof l1, "[call] op=fb_traced key=Fallback kernel=cpu-fallback device=%s",
             clops_device_label(d));
    const char *l2 = "\n  [fallback] op=fb_traced key=CPU kernel=accumulate_cpu device=cpu";
    CT_ASSERT_MSG(strncmp(text, l1, strlen(l1)) == 0, "trace was '%s'", text);
    CT_ASSERT_MSG(strstr(text, l2) != NULL, "trace was '%s'", text);
    free(text);
    clops_tensor_release(acc);
    clops_tensor_release(x);
}

/* --- the environment (child processes) ---------------------------------------------- */

/* Runs this executable again with CLOPS_TEST_CHILD=scenario and the extra
 * NAME=value assignments; its stderr goes to *err (free it).  Returns its
 * exit status (-1 if it did not exit normally). */
static int run_child(const char *scenario, const char *const *assign, int nassign, char **err)
{
    char scen[128];
    snprintf(scen, sizeof scen, "CLOPS_TEST_CHILD=%s", scenario);
    int nenv = 0;
    while (environ[nenv])
        nenv++;
    char **envp = calloc((size_t)(nenv + nassign + 2), sizeof *envp);
    CT_ASSERT(envp != NULL);
    int k = 0;
    for (int i = 0; i < nenv; i++) {
        /* Drop inherited values of the variables under test. */
        if (strncmp(environ[i], "CLOPS_FALLBACK", 14) == 0 ||
            strncmp(environ[i], "CLOPS_TEST_CHILD=", 17) == 0)
            continue;
        envp[k++] = environ[i];
    }
    for (int i = 0; i < nassign; i++)
        envp[k++] = (char *)assign[i];
    envp[k++] = scen;
    envp[k] = NULL;
    char errpath[64];
    snprintf(errpath, sizeof errpath, "/tmp/clops-test-child-XXXXXX");
    int fd = mkstemp(errpath);
    CT_ASSERT(fd >= 0);
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    CT_ASSERT(n > 0);
    self[n] = '\0';
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    CT_ASSERT(pid >= 0);
    if (pid == 0) {
        dup2(fd, 2);
        char *argv[] = {self, NULL};
        execve(self, argv, envp);
        _exit(127);
    }
    close(fd);
    int status = 0;
    CT_ASSERT(waitpid(pid, &status, 0) == pid);
    free(envp);
    *err = slurp(errpath);
    unlink(errpath);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Child failure: prints why on stderr and exits with 1. */
#define CHILD_CHECK(cond)                                                                 \
    do {                                                                                  \
        if (!(cond)) {                                                                    \
            fprintf(stderr, "child check failed at line %d: %s (last error: %s)\n",       \
                    __LINE__, #cond, clops_last_error());                                 \
            return 1;                                                                     \
        }                                                                                 \
    } while (0)

/* Calls a fresh accumulate op on the device: returns the call's status. */
static clops_status child_call(const clops_op *op, clops_device *d)
{
    float v[2] = {1.0f, 2.0f};
    clops_tensor *acc = NULL, *x = NULL;
    clops_status st = clops_from_host(d, CLOPS_FLOAT32, 1, CT_I64(2), v, sizeof v, &acc);
    if (st == CLOPS_OK)
        st = clops_from_host(d, CLOPS_FLOAT32, 1, CT_I64(2), v, sizeof v, &x);
    if (st == CLOPS_OK)
        st = call_accumulate(op, acc, x, NULL);
    clops_tensor_release(acc);
    clops_tensor_release(x);
    return st;
}

/* Defines an accumulate op without cmocka (child processes). */
static const clops_op *child_define(const char *name)
{
    char schema[256];
    snprintf(schema, sizeof schema, "%s(Tensor(a!) acc, Tensor x) -> Tensor", name);
    const clops_op *op = NULL;
    if (clops_op_define(schema, NULL, &op) != CLOPS_OK ||
        clops_kernel_register(op, CLOPS_KEY_CPU, accumulate_cpu, NULL, "acc", 0, NULL) != CLOPS_OK)
        return NULL;
    return op;
}

/* The scenarios a child process runs; returns its exit status. */
static int child_main(const char *scenario)
{
    clops_device *d = NULL;
    int count = 0;
    CHILD_CHECK(clops_device_count(&count) == CLOPS_OK && count > 1);
    CHILD_CHECK(clops_device_get(1, &d) == CLOPS_OK);
    if (strcmp(scenario, "deny") == 0) {
        /* CLOPS_FALLBACK_DENY=fb_env_denied,alias: user ops defined after
         * start are denied too. */
        const clops_op *denied = child_define("fb_env_denied");
        const clops_op *allowed = child_define("fb_env_allowed");
        CHILD_CHECK(denied && allowed);
        CHILD_CHECK(child_call(denied, d) == CLOPS_FALLBACK_DENIED);
        CHILD_CHECK(strstr(clops_last_error(), "deny list") != NULL);
        CHILD_CHECK(child_call(allowed, d) == CLOPS_OK);
        CHILD_CHECK(clops_fallback_count(allowed) == 1);
        CHILD_CHECK(clops_fallback_deny(denied, false) == CLOPS_OK);
        CHILD_CHECK(child_call(denied, d) == CLOPS_OK);
        clops_shutdown();
        return 0;
    }
    if (strcmp(scenario, "policy-error") == 0 || strcmp(scenario, "policy-warn") == 0 ||
        strcmp(scenario, "policy-bogus") == 0) {
        const clops_op *op = child_define("fb_env_policy");
        CHILD_CHECK(op != NULL);
        clops_fallback_policy p = clops_get_fallback_policy();
        clops_status st = child_call(op, d);
        if (strcmp(scenario, "policy-error") == 0)
            CHILD_CHECK(p == CLOPS_FALLBACK_ERROR && st == CLOPS_FALLBACK_DENIED);
        else if (strcmp(scenario, "policy-warn") == 0)
            CHILD_CHECK(p == CLOPS_FALLBACK_WARN && st == CLOPS_OK);
        else
            CHILD_CHECK(p == CLOPS_FALLBACK_ALLOW && st == CLOPS_OK);
        clops_shutdown();
        return 0;
    }
    fprintf(stderr, "unknown child scenario '%s'\n", scenario);
    return 2;
}

static void the_deny_list_is_read_from_clops_fallback_deny_and_covers_later_user_ops(
    void **state)
{
    (void)state;
    NEED_OPENCL(d);
    (void)d;
    const char *env[] = {"CLOPS_FALLBACK_DENY=alias, fb_env_denied"};
    char *err = NULL;
    int rc = run_child("deny", env, 1, &err);
    CT_ASSERT_MSG(rc == 0, "child exited %d: %s", rc, err);
    free(err);
}

static void the_policy_is_read_from_clops_fallback(void **state)
{
    (void)state;
    NEED_OPENCL(d);
    (void)d;
    char *err = NULL;
    const char *e1[] = {"CLOPS_FALLBACK=error"};
    int rc = run_child("policy-error", e1, 1, &err);
    CT_ASSERT_MSG(rc == 0, "child exited %d: %s", rc, err);
    free(err);
    const char *e2[] = {"CLOPS_FALLBACK=warn"};
    rc = run_child("policy-warn", e2, 1, &err);
    CT_ASSERT_MSG(rc == 0, "child exited %d: %s", rc, err);
    CT_ASSERT_MSG(count_of(err, "fb_env_policy has no kernel") == 1, "stderr was '%s'", err);
    free(err);
    /* An unknown value warns and allows. */
    const char *e3[] = {"CLOPS_FALLBACK=sometimes"};
    rc = run_child("policy-bogus", e3, 1, &err);
    CT_ASSERT_MSG(rc == 0, "child exited %d: %s", rc, err);
    CT_ASSERT_MSG(strstr(err, "CLOPS_FALLBACK=sometimes is not allow, warn or error") != NULL,
                  "stderr was '%s'", err);
    free(err);
}

#define T(name) cmocka_unit_test_teardown(name, restore_defaults)

int main(void)
{
    const char *child = getenv("CLOPS_TEST_CHILD");
    if (child && *child)
        return child_main(child);
    const struct CMUnitTest tests[] = {
        T(a_device_call_of_an_op_with_only_a_cpu_kernel_runs_on_the_cpu),
        T(fallback_writes_back_into_a_strided_device_argument),
        T(a_result_aliasing_a_written_argument_is_that_device_argument),
        T(fallback_writes_back_every_tensor_of_a_written_list),
        T(a_failing_cpu_kernel_fails_the_call_and_writes_nothing_back),
        T(an_override_of_an_op_without_device_kernels_falls_back_to_the_cpu),
        T(every_fallback_is_counted_per_op_until_reset),
        T(allow_policy_falls_back_silently),
        T(warn_policy_prints_each_op_once_until_the_counts_are_reset),
        T(error_policy_refuses_naming_op_device_and_keys_and_changes_nothing),
        T(the_deny_list_refuses_one_op_whatever_the_policy),
        T(a_device_call_without_device_or_cpu_kernel_names_op_device_and_keys),
        T(a_cpu_call_of_an_op_with_only_device_kernels_is_not_implemented),
        T(trace_shows_the_fallback_running_the_cpu_kernel),
        T(the_deny_list_is_read_from_clops_fallback_deny_and_covers_later_user_ops),
        T(the_policy_is_read_from_clops_fallback),
    };
    return cmocka_run_group_tests(tests, NULL, ct_teardown_group);
}
