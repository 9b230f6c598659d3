/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/test_errors.c: what clops does when a call cannot succeed.
 *
 * Every failure is a status plus a message on the calling thread that says
 * which op failed and why, with the figures that explain it (sizes, limits,
 * the device): an absurd allocation is CLOPS_OUT_OF_MEMORY naming the
 * request and the device's limits, bad shapes are CLOPS_INVALID_SHAPE naming
 * the shape, float64 on a device without fp64 is CLOPS_UNSUPPORTED naming
 * the device, an unknown CLOPS_DEVICE is CLOPS_NO_DEVICE listing the
 * devices.  Nothing is left allocated by a failed call and the caller's
 * out pointer is untouched.  The message is per thread.
 *
 * Tests that change process state (capabilities, CLOPS_DEVICE,
 * CLOPS_NO_OPENCL) restore it in their teardown, so a failure in one does
 * not leak into the next.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/host.h"
#include "ops/tensor/tensor.h"
#include "support/clops_test.h"

#if defined(__SANITIZE_ADDRESS__)
/* Under AddressSanitizer (CLOPS_SANITIZE) an absurd malloc aborts unless the
 * allocator may return NULL, which is what the tests below are about. */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
    return "allocator_may_return_null=1";
}
#endif

/* 2^60 bytes: more than any device has. */
#define ABSURD_BYTES ((int64_t)1 << 60)

/* A tensor pointer no call may write on failure. */
#define UNTOUCHED ((clops_tensor *)(uintptr_t)0x5a5a)

/* --- teardowns ----------------------------------------------------------------- */

/* Gives every device back the capabilities its hardware has. */
static int restore_capabilities(void **state)
{
    (void)state;
    int n = 0;
    if (clops_device_count(&n))
        return 0;
    for (int i = 0; i < n; i++) {
        clops_device *d = NULL;
        clops_device_get(i, &d);
        clops_device_set_capability(d, CLOPS_CAP_FP64, d->hw_fp64);
        clops_device_set_capability(d, CLOPS_CAP_FP16, d->hw_fp16);
    }
    return 0;
}

/* Unsets the environment variables the device-selection tests set and
 * starts clops afresh on the next call. */
static int restore_environment(void **state)
{
    (void)state;
    unsetenv("CLOPS_DEVICE");
    if (getenv("CLOPS_NO_OPENCL")) {
        unsetenv("CLOPS_NO_OPENCL");
        clops_shutdown();
    }
    return 0;
}

/* --- memory -------------------------------------------------------------------- */

static void test_an_absurd_allocation_fails_with_out_of_memory_naming_the_sizes(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_devices(devs, CT_MAX_DEVICES);
    for (int k = 0; k < nd; k++) {
        ct_set_device(devs[k]);
        clops_tensor *t = UNTOUCHED;
        size_t used_before = 0, used_after = 0;
        if (!host_is_cpu(devs[k]))
            host_alloc_stats(devs[k], &used_before, NULL);
        clops_status st = clops_empty(devs[k], CLOPS_UINT8, 1, CT_I64(ABSURD_BYTES), &t);
        if (host_is_cpu(devs[k])) {
            /* The CPU device's memory is the host's. */
            CT_STATUS(st, CLOPS_HOST_OUT_OF_MEMORY);
        } else {
            CT_STATUS(st, CLOPS_OUT_OF_MEMORY);
            CT_ERROR_CONTAINS("largest single buffer");
            host_alloc_stats(devs[k], &used_after, NULL);
            CT_ASSERT(used_after == used_before);
        }
        CT_ERROR_CONTAINS("1152921504606846976");
        CT_ERROR_CONTAINS("empty");
        CT_ERROR_CONTAINS(clops_device_label(devs[k]));
        CT_ASSERT(t == UNTOUCHED);
        /* The same request as float64 elements (2^57 of them). */
        CT_ASSERT(clops_empty(devs[k], CLOPS_FLOAT64, 1, CT_I64(ABSURD_BYTES / 8), &t) != CLOPS_OK);
        CT_ERROR_CONTAINS("1152921504606846976");
        CT_ASSERT(t == UNTOUCHED);
    }
    ct_clear_context();
}

/* clops_memory_peak: the most bytes in use at once, reset to the bytes in use
 * now (PyTorch's max_memory_allocated and reset_peak_memory_stats). */
static void test_the_memory_peak_is_the_most_in_use_and_resets_to_the_bytes_in_use(void **state)
{
    (void)state;
    const int64_t mib4 = (int64_t)4 << 20; /* a multiple of every allocation class */
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_devices(devs, CT_MAX_DEVICES);
    for (int k = 0; k < nd; k++) {
        ct_set_device(devs[k]);
        size_t peak = 1, in_use = 0;
        CT_STATUS(clops_memory_peak(NULL, false, &peak), CLOPS_INVALID_ARGUMENT);
        CT_ERROR_CONTAINS("clops_memory_peak");
        CT_STATUS(clops_memory_peak(devs[k], false, NULL), CLOPS_INVALID_ARGUMENT);
        if (host_is_cpu(devs[k])) {
            CT_OK(clops_memory_peak(devs[k], true, &peak));
            CT_ASSERT(peak == 0);
            continue;
        }
        CT_OK(clops_memory_stats(devs[k], &in_use, NULL));
        CT_OK(clops_memory_peak(devs[k], true, &peak));
        CT_ASSERT(peak >= in_use);
        CT_OK(clops_memory_peak(devs[k], false, &peak));
        CT_ASSERT(peak == in_use);
        clops_tensor *a = NULL, *b = NULL;
        CT_OK(clops_empty(devs[k], CLOPS_UINT8, 1, CT_I64(mib4), &a));
        CT_OK(clops_empty(devs[k], CLOPS_UINT8, 1, CT_I64(mib4), &b));
        clops_tensor_release(b);
        CT_OK(clops_empty(devs[k], CLOPS_UINT8, 1, CT_I64(mib4), &b)); /* from the cache */
        clops_tensor_release(a);
        clops_tensor_release(b);
        /* two at once, then none: the peak stays, a reset brings it down */
        CT_OK(clops_memory_peak(devs[k], false, &peak));
        CT_ASSERT(peak == in_use + 2 * (size_t)mib4);
        CT_OK(clops_memory_peak(devs[k], true, &peak));
        CT_ASSERT(peak == in_use + 2 * (size_t)mib4);
        CT_OK(clops_memory_peak(devs[k], false, &peak));
        CT_ASSERT(peak == in_use);
    }
    ct_clear_context();
}

static void test_a_shape_whose_size_overflows_is_an_invalid_shape(void **state)
{
    (void)state;
    clops_device *cpu = ct_cpu();
    clops_tensor *t = UNTOUCHED;
    int64_t big = (int64_t)1 << 32;
    CT_STATUS(clops_empty(cpu, CLOPS_FLOAT32, 2, CT_I64(big, big), &t), CLOPS_INVALID_SHAPE);
    CT_ERROR_CONTAINS("overflows");
    CT_ERROR_CONTAINS("4294967296");
    /* numel fits in int64 but its bytes do not fit the address space. */
    CT_STATUS(clops_empty(cpu, CLOPS_FLOAT64, 1, CT_I64((int64_t)1 << 62), &t),
              CLOPS_INVALID_SHAPE);
    CT_ERROR_CONTAINS("empty");
    CT_ASSERT(t == UNTOUCHED);
}

/* --- shapes -------------------------------------------------------------------- */

static void test_a_negative_size_is_an_invalid_shape_naming_the_size(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_devices(devs, CT_MAX_DEVICES);
    for (int k = 0; k < nd; k++) {
        ct_set_device(devs[k]);
        clops_tensor *t = UNTOUCHED;
        CT_STATUS(clops_empty(devs[k], CLOPS_FLOAT32, 2, CT_I64(3, -1), &t), CLOPS_INVALID_SHAPE);
        CT_ERROR_CONTAINS("negative dimension -1");
        CT_ERROR_CONTAINS("[3, -1]");
        CT_STATUS(clops_empty_strided(devs[k], CLOPS_FLOAT32, 1, CT_I64(-4), CT_I64(1), &t),
                  CLOPS_INVALID_SHAPE);
        CT_ERROR_CONTAINS("-4");
        CT_ASSERT(t == UNTOUCHED);
    }
    ct_clear_context();
}

static void test_more_dims_than_clops_max_dims_are_refused(void **state)
{
    (void)state;
    int64_t sizes[CLOPS_MAX_DIMS + 1];
    for (int i = 0; i <= CLOPS_MAX_DIMS; i++)
        sizes[i] = 1;
    clops_tensor *t = UNTOUCHED, *u = UNTOUCHED;
    CT_STATUS(clops_empty(ct_cpu(), CLOPS_INT8, CLOPS_MAX_DIMS + 1, sizes, &t),
              CLOPS_INVALID_SHAPE);
    CT_ERROR_CONTAINS("17");
    CT_ERROR_CONTAINS("16");
    CT_ASSERT(t == UNTOUCHED);
    CT_OK(clops_empty(ct_cpu(), CLOPS_INT8, CLOPS_MAX_DIMS, sizes, &t));
    CT_ASSERT(core_unsqueeze(t, 0, &u) != CLOPS_OK);
    CT_ERROR_CONTAINS("unsqueeze");
    CT_ASSERT(u == NULL || u == UNTOUCHED);
    clops_tensor_release(t);
}

static void test_null_arguments_are_invalid_arguments_not_crashes(void **state)
{
    (void)state;
    clops_tensor *t = UNTOUCHED;
    char buf[8];
    CT_STATUS(clops_empty(ct_cpu(), CLOPS_FLOAT32, 2, NULL, &t), CLOPS_INVALID_ARGUMENT);
    CT_STATUS(clops_empty(ct_cpu(), CLOPS_FLOAT32, 1, CT_I64(2), NULL), CLOPS_INVALID_ARGUMENT);
    CT_STATUS(clops_tensor_to_host(NULL, buf, sizeof buf), CLOPS_INVALID_ARGUMENT);
    CT_STATUS(clops_tensor_item(NULL, NULL), CLOPS_INVALID_ARGUMENT);
    CT_STATUS(clops_device_count(NULL), CLOPS_INVALID_ARGUMENT);
    CT_STATUS(clops_device_set_capability(NULL, CLOPS_CAP_FP64, false), CLOPS_INVALID_ARGUMENT);
    CT_STATUS(clops_empty(ct_cpu(), (clops_dtype)42, 1, CT_I64(2), &t), CLOPS_INVALID_DTYPE);
    CT_ASSERT(t == UNTOUCHED);
    clops_tensor_release(NULL);
}

static void test_factories_refuse_a_null_out_pointer(void **state)
{
    (void)state;
    clops_device *cpu = ct_cpu();
    float vals[2] = {1, 2};
    CT_STATUS(clops_from_host(cpu, CLOPS_FLOAT32, 1, CT_I64(2), vals, sizeof vals, NULL),
              CLOPS_INVALID_ARGUMENT);
    CT_STATUS(clops_full(cpu, CLOPS_FLOAT32, 1, CT_I64(2), clops_scalar_int(1), NULL),
              CLOPS_INVALID_ARGUMENT);
    CT_STATUS(clops_zeros(cpu, CLOPS_FLOAT32, 1, CT_I64(2), NULL), CLOPS_INVALID_ARGUMENT);
    CT_STATUS(clops_ones(cpu, CLOPS_FLOAT32, 1, CT_I64(2), NULL), CLOPS_INVALID_ARGUMENT);
    CT_STATUS(clops_arange(cpu, CLOPS_DTYPE_NONE, clops_scalar_int(0), clops_scalar_int(2),
                           clops_scalar_int(1), NULL),
              CLOPS_INVALID_ARGUMENT);
    CT_STATUS(clops_tensor_to_device(NULL, cpu, NULL), CLOPS_INVALID_ARGUMENT);
}

/* --- capabilities -------------------------------------------------------------------- */

static void test_float64_on_a_device_without_fp64_is_unsupported_naming_the_device(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_devices(devs, CT_MAX_DEVICES);
    for (int k = 0; k < nd; k++) {
        if (!devs[k]->hw_fp64)
            continue;
        ct_set_device(devs[k]);
        clops_tensor *src = ct_random(devs[k], CLOPS_FLOAT32, 1, CT_I64(8), CT_CONTIGUOUS,
                                      PW_DOMAIN_ANY, 1);
        clops_tensor *cpu64 = ct_random(ct_cpu(), CLOPS_FLOAT64, 1, CT_I64(8), CT_CONTIGUOUS,
                                        PW_DOMAIN_ANY, 2);
        clops_tensor *t = UNTOUCHED;
        CT_OK(clops_device_set_capability(devs[k], CLOPS_CAP_FP64, false));
        CT_ASSERT(!clops_device_get_info(devs[k])->fp64);

        CT_STATUS(core_to_copy(src, CLOPS_FLOAT64, NULL, &t), CLOPS_UNSUPPORTED);
        CT_ERROR_CONTAINS("_to_copy");
        CT_ERROR_CONTAINS("float64");
        CT_ERROR_CONTAINS(clops_device_label(devs[k]));
        CT_ERROR_CONTAINS(clops_device_get_info(devs[k])->name);
        CT_STATUS(clops_full(devs[k], CLOPS_FLOAT64, 1, CT_I64(4), clops_scalar_float(1), &t),
                  CLOPS_UNSUPPORTED);
        CT_ERROR_CONTAINS("float64");
        CT_STATUS(clops_tensor_to_device(cpu64, devs[k], &t), CLOPS_UNSUPPORTED);
        CT_ERROR_CONTAINS("to_device");
        CT_ASSERT(t == UNTOUCHED);

        /* Restored, the check passes again (an empty tensor: no kernel to
         * compile, which keeps this test fast under valgrind). */
        CT_OK(clops_device_set_capability(devs[k], CLOPS_CAP_FP64, true));
        clops_tensor *empty = ct_empty_layout(devs[k], CLOPS_FLOAT32, 1, CT_I64(0), CT_CONTIGUOUS);
        CT_OK(core_to_copy(empty, CLOPS_FLOAT64, NULL, &t));
        CT_ASSERT(clops_tensor_dtype(t) == CLOPS_FLOAT64);
        clops_tensor_release(t);
        clops_tensor_release(empty);
        clops_tensor_release(src);
        clops_tensor_release(cpu64);
    }
    ct_clear_context();
}

static void test_enabling_a_capability_the_hardware_lacks_is_refused(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_devices(devs, CT_MAX_DEVICES);
    int tested = 0;
    for (int k = 0; k < nd; k++) {
        ct_set_device(devs[k]);
        const struct {
            clops_capability cap;
            bool hw;
            const char *name;
        } caps[] = {{CLOPS_CAP_FP64, devs[k]->hw_fp64, "fp64"},
                    {CLOPS_CAP_FP16, devs[k]->hw_fp16, "fp16"}};
        for (size_t c = 0; c < CT_COUNT(caps); c++) {
            if (caps[c].hw)
                continue;
            CT_STATUS(clops_device_set_capability(devs[k], caps[c].cap, true), CLOPS_UNSUPPORTED);
            CT_ERROR_CONTAINS(caps[c].name);
            CT_ERROR_CONTAINS(clops_device_label(devs[k]));
            CT_OK(clops_device_set_capability(devs[k], caps[c].cap, false)); /* a no-op */
            tested++;
        }
        CT_STATUS(clops_device_set_capability(devs[k], (clops_capability)99, false),
                  CLOPS_INVALID_ARGUMENT);
    }
    ct_clear_context();
    CT_ASSERT_MSG(tested > 0, "no device lacks a capability (the CPU device has no fp16)");
}

/* --- device selection ----------------------------------------------------------------- */

static void test_an_unknown_clops_device_is_no_device_listing_the_devices(void **state)
{
    (void)state;
    setenv("CLOPS_DEVICE", "no-such-device-xyz", 1);
    clops_device *d = NULL;
    CT_STATUS(clops_device_default(&d), CLOPS_NO_DEVICE);
    CT_ERROR_CONTAINS("CLOPS_DEVICE");
    CT_ERROR_CONTAINS("no-such-device-xyz");
    int n = 0;
    CT_OK(clops_device_count(&n));
    for (int i = 0; i < n; i++) {
        clops_device *di = NULL;
        CT_OK(clops_device_get(i, &di));
        CT_STATUS(clops_device_default(&d), CLOPS_NO_DEVICE);
        CT_ERROR_CONTAINS(clops_device_label(di));
    }
    CT_ASSERT(d == NULL);
    /* Factories given no device use the default, so they fail the same way. */
    clops_tensor *t = UNTOUCHED;
    CT_STATUS(clops_empty(NULL, CLOPS_FLOAT32, 1, CT_I64(3), &t), CLOPS_NO_DEVICE);
    CT_ERROR_CONTAINS("no-such-device-xyz");
    CT_ASSERT(t == UNTOUCHED);
}

static void test_clops_device_selects_by_label_index_and_name(void **state)
{
    (void)state;
    clops_device *d = NULL;
    setenv("CLOPS_DEVICE", "cpu", 1);
    CT_OK(clops_device_default(&d));
    CT_ASSERT(d == ct_cpu());
    setenv("CLOPS_DEVICE", "0", 1);
    CT_OK(clops_device_default(&d));
    CT_ASSERT(d == ct_cpu());
    clops_device *devs[CT_MAX_DEVICES];
    int n = ct_opencl_devices(devs, CT_MAX_DEVICES);
    for (int k = 0; k < n; k++) {
        ct_set_device(devs[k]);
        setenv("CLOPS_DEVICE", clops_device_label(devs[k]), 1);
        CT_OK(clops_device_default(&d));
        CT_ASSERT(d == devs[k]);
    }
    ct_clear_context();
    CT_STATUS(clops_device_find("opencl:99", &d), CLOPS_NO_DEVICE);
    CT_ERROR_CONTAINS("opencl:99");
    CT_STATUS(clops_device_get(-1, &d), CLOPS_NO_DEVICE);
    CT_ERROR_CONTAINS("-1");
}

static void test_clops_no_opencl_leaves_only_the_cpu_device_with_a_note(void **state)
{
    (void)state;
    clops_shutdown();
    setenv("CLOPS_NO_OPENCL", "1", 1);
    int n = 0;
    CT_OK(clops_device_count(&n));
    CT_ASSERT_MSG(n == 1, "%d devices", n);
    clops_device *d = NULL;
    CT_OK(clops_device_get(0, &d));
    CT_ASSERT(clops_device_get_info(d)->type == CLOPS_DEVICE_CPU);
    CT_ASSERT(strstr(clops_device_discovery_note(), "CLOPS_NO_OPENCL") != NULL);
    CT_OK(clops_device_default(&d));
    CT_ASSERT(clops_device_get_info(d)->type == CLOPS_DEVICE_CPU);
    CT_STATUS(clops_device_find("opencl:0", &d), CLOPS_NO_DEVICE);
    CT_ERROR_CONTAINS("CLOPS_NO_OPENCL");
}

/* --- messages ----------------------------------------------------------------------- */

static void test_every_error_message_names_the_failing_op(void **state)
{
    (void)state;
    clops_device *cpu = ct_cpu();
    clops_tensor *a = ct_random(cpu, CLOPS_FLOAT32, 2, CT_I64(3, 4), CT_CONTIGUOUS,
                                PW_DOMAIN_ANY, 1);
    clops_tensor *b = ct_random(cpu, CLOPS_FLOAT32, 1, CT_I64(5), CT_CONTIGUOUS, PW_DOMAIN_ANY, 2);
    clops_tensor *t = UNTOUCHED;
    clops_scalar s;
    char buf[64];
    const int64_t start = 0, end = 2;
    /* Each message is checked right after its call; all are reported. */
    char missing[2048] = "";
#define EXPECT_OP(op, call)                                                               \
    do {                                                                                  \
        clops_status st_ = (call);                                                        \
        if (st_ == CLOPS_OK || !strstr(clops_last_error(), op)) {                         \
            size_t len_ = strlen(missing);                                                \
            snprintf(missing + len_, sizeof missing - len_, "\n  %s: %s \"%s\"", op,        \
                     clops_status_name(st_), clops_last_error());                         \
        }                                                                                 \
    } while (0)
    EXPECT_OP("empty", clops_empty(cpu, CLOPS_FLOAT32, 1, CT_I64(-2), &t));
    EXPECT_OP("empty_strided",
              clops_empty_strided(cpu, CLOPS_FLOAT32, 1, CT_I64(3), CT_I64(-1), &t));
    EXPECT_OP("full", clops_full(cpu, CLOPS_FLOAT32, 1, CT_I64(-2), clops_scalar_int(0), &t));
    EXPECT_OP("zeros", clops_zeros(cpu, CLOPS_FLOAT32, 1, CT_I64(-2), &t));
    EXPECT_OP("ones", clops_ones(cpu, CLOPS_FLOAT32, 1, CT_I64(-2), &t));
    EXPECT_OP("arange", clops_arange(cpu, CLOPS_DTYPE_NONE, clops_scalar_int(0),
                                     clops_scalar_int(1), clops_scalar_int(0), &t));
    EXPECT_OP("from_host", clops_from_host(cpu, CLOPS_FLOAT32, 1, CT_I64(2), buf, 3, &t));
    EXPECT_OP("to_host", clops_tensor_to_host(a, buf, 3));
    EXPECT_OP("item", clops_tensor_item(a, &s));
    EXPECT_OP("copy_", core_copy_(a, b, false));
    EXPECT_OP("view", core_view(a, CT_I64(5, 5), 2, &t));
    EXPECT_OP("permute", core_permute(a, CT_I64(0, 0), 2, &t));
    EXPECT_OP("expand", core_expand(a, CT_I64(5, 4), 2, false, &t));
    EXPECT_OP("slice", core_slice(a, 0, &start, &end, 0, &t));
    EXPECT_OP("select", core_select(a, 1, 9, &t));
    EXPECT_OP("transpose", core_transpose(a, 0, 5, &t));
    EXPECT_OP("to_device", clops_tensor_to_device(a, NULL, &t));
#undef EXPECT_OP
    clops_tensor_release(a);
    clops_tensor_release(b);
    CT_ASSERT(t == UNTOUCHED || t == NULL); /* views clear *out on failure */
    CT_ASSERT_MSG(missing[0] == '\0', "messages that do not name their op:%s", missing);
}

/* Thread body: fails a call of its own and records what it saw. */
typedef struct thread_probe {
    char before[64];  /* the thread's message before its failure */
    char after[512];  /* its message after */
} thread_probe;

static void *probe_thread(void *arg)
{
    thread_probe *p = arg;
    snprintf(p->before, sizeof p->before, "%s", clops_last_error());
    clops_tensor *t = NULL;
    clops_empty(NULL, CLOPS_FLOAT32, 1, (const int64_t[]){-77}, &t);
    snprintf(p->after, sizeof p->after, "%s", clops_last_error());
    return NULL;
}

static void test_the_last_error_message_belongs_to_the_calling_thread(void **state)
{
    (void)state;
    clops_tensor *t = NULL;
    CT_STATUS(clops_empty(ct_cpu(), CLOPS_FLOAT32, 1, CT_I64(-55), &t), CLOPS_INVALID_SHAPE);
    CT_ERROR_CONTAINS("-55");
    thread_probe p;
    memset(&p, 0, sizeof p);
    pthread_t th;
    CT_ASSERT(pthread_create(&th, NULL, probe_thread, &p) == 0);
    CT_ASSERT(pthread_join(th, NULL) == 0);
    CT_ASSERT_MSG(p.before[0] == '\0', "a new thread starts with \"%s\"", p.before);
    CT_ASSERT_MSG(strstr(p.after, "-77") != NULL, "the thread saw \"%s\"", p.after);
    CT_ERROR_CONTAINS("-55"); /* ours is unchanged */
    clops_clear_error();
    CT_ASSERT(clops_last_error()[0] == '\0');
}

static void test_every_status_has_a_name_and_a_message(void **state)
{
    (void)state;
    for (int i = 0; i < CLOPS_STATUS_COUNT; i++) {
        clops_status st = (clops_status)-i;
        CT_ASSERT(strcmp(clops_status_name(st), "UNKNOWN") != 0);
        CT_ASSERT(strcmp(clops_status_string(st), "unknown status") != 0);
    }
    assert_string_equal(clops_status_name(CLOPS_OUT_OF_MEMORY), "OUT_OF_MEMORY");
    assert_string_equal(clops_status_name(CLOPS_OK), "OK");
    assert_string_equal(clops_status_name((clops_status)-CLOPS_STATUS_COUNT), "UNKNOWN");
    assert_string_equal(clops_status_string((clops_status)5), "unknown status");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_an_absurd_allocation_fails_with_out_of_memory_naming_the_sizes),
        cmocka_unit_test(test_the_memory_peak_is_the_most_in_use_and_resets_to_the_bytes_in_use),
        cmocka_unit_test(test_a_shape_whose_size_overflows_is_an_invalid_shape),
        cmocka_unit_test(test_a_negative_size_is_an_invalid_shape_naming_the_size),
        cmocka_unit_test(test_more_dims_than_clops_max_dims_are_refused),
        cmocka_unit_test(test_null_arguments_are_invalid_arguments_not_crashes),
        cmocka_unit_test(test_factories_refuse_a_null_out_pointer),
        cmocka_unit_test_teardown(
            test_float64_on_a_device_without_fp64_is_unsupported_naming_the_device,
            restore_capabilities),
        cmocka_unit_test_teardown(test_enabling_a_capability_the_hardware_lacks_is_refused,
                                  restore_capabilities),
        cmocka_unit_test_teardown(test_an_unknown_clops_device_is_no_device_listing_the_devices,
                                  restore_environment),
        cmocka_unit_test_teardown(test_clops_device_selects_by_label_index_and_name,
                                  restore_environment),
        cmocka_unit_test_teardown(test_clops_no_opencl_leaves_only_the_cpu_device_with_a_note,
                                  restore_environment),
        cmocka_unit_test(test_every_error_message_names_the_failing_op),
        cmocka_unit_test(test_the_last_error_message_belongs_to_the_calling_thread),
        cmocka_unit_test(test_every_status_has_a_name_and_a_message),
    };
    return cmocka_run_group_tests(tests, NULL, ct_teardown_group);
}
