/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/test_dispatch.c: how a call reaches a kernel (dispatch/call.c,
 * dispatch/registry.c).
 *
 * The specification, one behaviour per test:
 *   - key selection: CPU tensors use the CPU key; OpenCL tensors try their
 *     vendor key, then OpenCL, then the fallback, checked with
 *     clops_op_resolve on every device and by which user kernel runs;
 *   - overrides: conditional (calling the kernel it replaced), unconditional,
 *     refusal of a second one, stacking, removal;
 *   - devices of a call: cross-device errors, zero-dim CPU tensors;
 *   - calls from several threads while another thread registers kernels.
 * Boxed calls, the typed wrappers and the trace are in test_dispatch_calls.c,
 * the CPU fallback in test_dispatch_fallback.c.
 *
 * User operators are defined with names unique to each test; kernels are
 * registered through reg() so that a failing test cannot leave one behind
 * (remove_leftovers runs after every test).
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clops/ops.h"
#include "dispatch/dispatch.h"
#include "host/host.h"
#include "support/clops_test.h"

/* --- helpers ------------------------------------------------------------- */

static clops_override *live[64];
static int nlive;

/* Registers a kernel and remembers the handle for remove_leftovers. */
static clops_status reg(const clops_op *op, clops_dispatch_key key, clops_boxed_kernel fn,
                        void *data, const char *name, unsigned flags, clops_override **h)
{
    clops_override *tmp = NULL;
    clops_status st = clops_kernel_register(op, key, fn, data, name, flags, &tmp);
    if (st == CLOPS_OK) {
        live[nlive++] = tmp;
        if (h)
            *h = tmp;
    }
    return st;
}

/* Removes a registration made with reg(). */
static void unreg(clops_override *h)
{
    for (int i = 0; i < nlive; i++)
        if (live[i] == h) {
            live[i] = live[--nlive];
            break;
        }
    CT_OK(clops_kernel_remove(h));
}

/* Test teardown: removes what a failed test left registered (newest
 * first, so stacks unwind in order). */
static int remove_leftovers(void **state)
{
    (void)state;
    while (nlive > 0)
        clops_kernel_remove(live[--nlive]);
    return 0;
}

/* The op called name (fails the test when missing). */
static const clops_op *find_op(const char *name)
{
    const clops_op *op = NULL;
    CT_OK(clops_op_find(name, &op));
    return op;
}

/* Defines a user op (fails the test on error). */
static const clops_op *define(const char *schema)
{
    const clops_op *op = NULL;
    CT_OK(clops_op_define(schema, "test", &op));
    return op;
}

/* A float32 tensor on dev holding 0, 1, 2, ... */
static clops_tensor *iota(clops_device *dev, int ndim, const int64_t *sizes)
{
    int64_t n = ct_numel(ndim, sizes);
    float *v = malloc((size_t)(n ? n : 1) * sizeof *v);
    CT_ASSERT(v != NULL);
    for (int64_t i = 0; i < n; i++)
        v[i] = (float)i;
    clops_tensor *t = ct_from_values(dev, CLOPS_FLOAT32, ndim, sizes, CT_CONTIGUOUS, v);
    free(v);
    return t;
}

/* The dispatch key a device's calls try first. */
static clops_dispatch_key vendor_key(const clops_device *d)
{
    return (clops_dispatch_key)dispatch_target_of(d);
}

/* What a probe kernel saw on its last call. */
typedef struct probe {
    const char *label;
    atomic_int calls;
    clops_device *device;
    clops_keyset keys;
    const clops_op *op;
} probe;

/* Trail of kernel labels in call order ("B,A,"), for stacks. */
static char trail[256];

/* A boxed kernel that records its call and returns self (new reference)
 * for every return slot. */
static clops_status probe_kernel(const clops_kernel_ctx *ctx, clops_value *args, int nargs,
                                 clops_value *rets, int nrets)
{
    probe *p = clops_kernel_ctx_data(ctx);
    atomic_fetch_add(&p->calls, 1);
    p->device = clops_kernel_ctx_device(ctx);
    p->keys = clops_kernel_ctx_keys(ctx);
    p->op = clops_kernel_ctx_op(ctx);
    strncat(trail, p->label, sizeof trail - strlen(trail) - 2);
    strcat(trail, ",");
    for (int r = 0; r < nrets; r++)
        if (nargs > 0 && args[0].tag == CLOPS_V_TENSOR)
            rets[r] = clops_value_tensor(clops_tensor_retain(args[0].v.t));
    return CLOPS_OK;
}

/* An override that records itself and calls the kernel below it. */
static clops_status passthrough_kernel(const clops_kernel_ctx *ctx, clops_value *args, int nargs,
                                       clops_value *rets, int nrets)
{
    probe *p = clops_kernel_ctx_data(ctx);
    atomic_fetch_add(&p->calls, 1);
    strncat(trail, p->label, sizeof trail - strlen(trail) - 2);
    strcat(trail, ",");
    return clops_kernel_call_fallback(ctx, args, nargs, rets, nrets);
}

/* Calls a one-tensor, one-return op boxed on t; returns the status. */
static clops_status call1(const clops_op *op, clops_tensor *t)
{
    clops_value a[1] = {clops_value_tensor(t)};
    clops_value r[1];
    clops_status st = clops_call_boxed(op, a, 1, r, 1);
    if (st == CLOPS_OK)
        clops_value_clear(&r[0]);
    return st;
}

/* --- key selection ------------------------------------------------------- */

static void a_cpu_tensor_resolves_to_the_cpu_key_and_runs_the_cpu_kernel(void **state)
{
    (void)state;
    const clops_op *op = define("ks_cpu(Tensor self) -> Tensor");
    probe cpu = {.label = "cpu"}, cl = {.label = "cl"};
    CT_OK(reg(op, CLOPS_KEY_CPU, probe_kernel, &cpu, "cpu-k", 0, NULL));
    CT_OK(reg(op, CLOPS_KEY_OPENCL, probe_kernel, &cl, "cl-k", 0, NULL));
    clops_kernel_info info;
    CT_OK(clops_op_resolve(op, ct_cpu(), &info));
    assert_int_equal(info.key, CLOPS_KEY_CPU);
    assert_string_equal(info.name, "cpu-k");
    clops_tensor *t = iota(ct_cpu(), 1, CT_I64(3));
    CT_OK(call1(op, t));
    assert_int_equal(cpu.calls, 1);
    assert_int_equal(cl.calls, 0);
    assert_true(cpu.device == ct_cpu());
    assert_int_equal(cpu.keys, 1u << CLOPS_KEY_CPU);
    assert_true(cpu.op == op);
    clops_tensor_release(t);
}

static void an_opencl_tensor_runs_its_vendor_key_before_opencl_and_opencl_before_fallback(
    void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int n = ct_opencl_devices(devs, CT_MAX_DEVICES);
    if (n == 0)
        skip();
    const clops_op *op = define("ks_order(Tensor self) -> Tensor");
    probe cpu = {.label = "cpu"}, cl = {.label = "cl"}, ven = {.label = "vendor"};
    clops_override *hc = NULL, *hv = NULL;
    CT_OK(reg(op, CLOPS_KEY_CPU, probe_kernel, &cpu, "cpu-k", 0, NULL));
    for (int i = 0; i < n; i++) {
        clops_device *d = devs[i];
        clops_dispatch_key vk = vendor_key(d);
        clops_kernel_info info;
        clops_tensor *t = iota(d, 1, CT_I64(4));
        ct_set_device(d);
        /* Only a CPU kernel: the fallback. */
        CT_OK(clops_op_resolve(op, d, &info));
        assert_int_equal(info.key, CLOPS_KEY_FALLBACK);
        assert_int_equal(info.provenance, CLOPS_PROV_FALLBACK);
        /* An OpenCL kernel beats the fallback... */
        CT_OK(reg(op, CLOPS_KEY_OPENCL, probe_kernel, &cl, "cl-k", 0, &hc));
        CT_OK(clops_op_resolve(op, d, &info));
        assert_int_equal(info.key, CLOPS_KEY_OPENCL);
        CT_OK(call1(op, t));
        assert_int_equal(cl.calls, 1);
        assert_true(cl.device == d);
        assert_int_equal(cl.keys,
                         (1u << vk) | (1u << CLOPS_KEY_OPENCL) | (1u << CLOPS_KEY_FALLBACK));
        /* ...and the vendor key beats OpenCL. */
        CT_OK(reg(op, vk, probe_kernel, &ven, "vendor-k", 0, &hv));
        CT_OK(clops_op_resolve(op, d, &info));
        assert_int_equal(info.key, vk);
        assert_string_equal(info.name, "vendor-k");
        CT_OK(call1(op, t));
        assert_int_equal(ven.calls, 1);
        assert_int_equal(cl.calls, 1);
        /* The CPU device is unaffected by device keys. */
        CT_OK(clops_op_resolve(op, ct_cpu(), &info));
        assert_int_equal(info.key, CLOPS_KEY_CPU);
        unreg(hv);
        unreg(hc);
        atomic_store(&cl.calls, 0);
        atomic_store(&ven.calls, 0);
        assert_int_equal(cpu.calls, 0);
        clops_tensor_release(t);
    }
    ct_clear_context();
}

static void a_kernel_at_another_vendors_key_does_not_serve_this_device(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int n = ct_opencl_devices(devs, CT_MAX_DEVICES);
    if (n == 0)
        skip();
    const clops_op *op = define("ks_other_vendor(Tensor self) -> Tensor");
    probe cl = {.label = "cl"};
    CT_OK(reg(op, CLOPS_KEY_OPENCL, probe_kernel, &cl, "cl-k", 0, NULL));
    for (int i = 0; i < n; i++) {
        ct_set_device(devs[i]);
        for (int k = CLOPS_KEY_NVIDIA; k <= CLOPS_KEY_OTHER; k++) {
            if (k == (int)vendor_key(devs[i]))
                continue;
            probe other = {.label = "other"};
            clops_override *h = NULL;
            CT_OK(reg(op, (clops_dispatch_key)k, probe_kernel, &other, "other-k", 0, &h));
            clops_kernel_info info;
            CT_OK(clops_op_resolve(op, devs[i], &info));
            assert_int_equal(info.key, CLOPS_KEY_OPENCL);
            unreg(h);
        }
    }
    ct_clear_context();
}

static void the_vendor_key_of_a_device_follows_its_vendor(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int n = ct_devices(devs, CT_MAX_DEVICES);
    for (int i = 0; i < n; i++) {
        const clops_device_info *info = clops_device_get_info(devs[i]);
        clops_dispatch_key expect = CLOPS_KEY_OTHER;
        switch (info->vendor) {
        case CLOPS_VENDOR_HOST:
            expect = CLOPS_KEY_CPU;
            break;
        case CLOPS_VENDOR_NVIDIA:
            expect = CLOPS_KEY_NVIDIA;
            break;
        case CLOPS_VENDOR_AMD:
            expect = CLOPS_KEY_AMD;
            break;
        case CLOPS_VENDOR_INTEL:
            expect = CLOPS_KEY_INTEL;
            break;
        case CLOPS_VENDOR_POCL:
            expect = CLOPS_KEY_POCL;
            break;
        default:
            break;
        }
        ct_set_device(devs[i]);
        CT_ASSERT(vendor_key(devs[i]) == expect);
    }
    ct_clear_context();
}

static void builtin_ops_resolve_to_their_inventory_kernels_on_every_device(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int n = ct_devices(devs, CT_MAX_DEVICES);
    const clops_op *op = find_op("clone");
    for (int i = 0; i < n; i++) {
        clops_kernel_info info;
        ct_set_device(devs[i]);
        CT_OK(clops_op_resolve(op, devs[i], &info));
        CT_ASSERT(info.key == (host_is_cpu(devs[i]) ? CLOPS_KEY_CPU : CLOPS_KEY_OPENCL));
        CT_ASSERT(info.provenance == CLOPS_PROV_KERNEL);
        CT_ASSERT(strcmp(info.name, "core_op_clone") == 0);
    }
    ct_clear_context();
}

static void an_op_without_any_kernel_resolves_to_missing(void **state)
{
    (void)state;
    const clops_op *op = define("ks_nothing(Tensor self) -> Tensor");
    clops_device *devs[CT_MAX_DEVICES];
    int n = ct_devices(devs, CT_MAX_DEVICES);
    for (int i = 0; i < n; i++) {
        clops_kernel_info info;
        CT_OK(clops_op_resolve(op, devs[i], &info));
        assert_int_equal(info.provenance, CLOPS_PROV_MISSING);
        assert_null(info.name);
    }
}

static void a_call_without_tensor_arguments_runs_on_its_device_argument(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int n = ct_devices(devs, CT_MAX_DEVICES);
    const clops_op *op = find_op("empty.memory_format");
    for (int i = 0; i < n; i++) {
        ct_set_device(devs[i]);
        int64_t size[2] = {2, 3};
        clops_value a[4] = {clops_value_ints(size, 2), clops_value_dtype(CLOPS_INT16),
                            clops_value_none(), clops_value_device(devs[i])};
        clops_value r[1];
        CT_OK(clops_call_boxed(op, a, 4, r, 1));
        CT_ASSERT(r[0].tag == CLOPS_V_TENSOR);
        CT_ASSERT(clops_tensor_device(r[0].v.t) == devs[i]);
        CT_ASSERT(clops_tensor_dtype(r[0].v.t) == CLOPS_INT16);
        clops_value_clear(&r[0]);
        clops_tensor *t = NULL;
        CT_OK(clops_op_empty(size, 2, CLOPS_DTYPE_NONE, -1, devs[i], NULL, -1, &t));
        CT_ASSERT(clops_tensor_device(t) == devs[i]);
        CT_ASSERT(clops_tensor_numel(t) == 6);
        clops_tensor_release(t);
    }
    ct_clear_context();
}

/* --- overrides --------------------------------------------------------------- */

/* A conditional override of clone: small tensors go to the kernel it
 * replaced; larger ones get a tensor of sevens (so the test can tell). */
typedef struct small_clone {
    atomic_int calls, fallbacks;
} small_clone;

static clops_status small_clone_kernel(const clops_kernel_ctx *ctx, clops_value *args, int nargs,
                                       clops_value *rets, int nrets)
{
    small_clone *p = clops_kernel_ctx_data(ctx);
    atomic_fetch_add(&p->calls, 1);
    clops_tensor *self = args[0].v.t;
    if (clops_tensor_numel(self) <= 4) {
        atomic_fetch_add(&p->fallbacks, 1);
        return clops_kernel_call_fallback(ctx, args, nargs, rets, nrets);
    }
    clops_tensor *t = NULL;
    clops_status st = clops_full(clops_kernel_ctx_device(ctx), clops_tensor_dtype(self),
                                 clops_tensor_ndim(self), clops_tensor_sizes(self),
                                 clops_scalar_int(7), &t);
    if (st == CLOPS_OK)
        rets[0] = clops_value_tensor(t);
    return st;
}

static void conditional_override_at_the_vendor_key_can_call_the_kernel_it_replaced(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int n = ct_devices(devs, CT_MAX_DEVICES);
    const clops_op *clone = find_op("clone");
    for (int i = 0; i < n; i++) {
        clops_device *d = devs[i];
        ct_set_device(d);
        clops_tensor *small = iota(d, 1, CT_I64(4)), *big = iota(d, 2, CT_I64(3, 3));
        clops_tensor *base = NULL, *got = NULL;
        CT_OK(clops_clone(small, -1, &base)); /* before the override */
        small_clone p = {0};
        clops_override *h = NULL;
        CT_OK(reg(clone, vendor_key(d), small_clone_kernel, &p, "small-clone", 0, &h));
        clops_kernel_info info;
        CT_OK(clops_op_resolve(clone, d, &info));
        CT_ASSERT(info.key == vendor_key(d) && strcmp(info.name, "small-clone") == 0);
        /* Small: the fallback runs the inventory kernel; same result. */
        CT_OK(clops_clone(small, -1, &got));
        CT_ASSERT(p.calls == 1 && p.fallbacks == 1);
        CT_ASSERT(clops_tensor_device(got) == d && !clops_tensor_shares_storage(got, small));
        CT_ASSERT_CLOSE(got, base, CT_TOL_EXACT);
        clops_tensor_release(got);
        /* Large: the override's own result. */
        CT_OK(clops_clone(big, -1, &got));
        CT_ASSERT(p.calls == 2 && p.fallbacks == 1);
        float *h7 = ct_to_host(got);
        CT_ASSERT(h7[0] == 7.0f && h7[8] == 7.0f);
        free(h7);
        clops_tensor_release(got);
        /* Boxed calls take the same route. */
        CT_OK(call1(clone, small));
        CT_ASSERT(p.calls == 3 && p.fallbacks == 2);
        unreg(h);
        clops_tensor_release(base);
        clops_tensor_release(small);
        clops_tensor_release(big);
    }
    ct_clear_context();
}

static void unconditional_override_has_no_fallback_to_call(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int n = ct_devices(devs, CT_MAX_DEVICES);
    const clops_op *op = find_op("alias");
    for (int i = 0; i < n; i++) {
        ct_set_device(devs[i]);
        probe p = {.label = "u"};
        clops_override *h = NULL;
        CT_OK(reg(op, vendor_key(devs[i]), passthrough_kernel, &p, "unconditional",
                  CLOPS_OVERRIDE_UNCONDITIONAL, &h));
        clops_tensor *t = iota(devs[i], 1, CT_I64(2)), *out = NULL;
        CT_STATUS(clops_alias(t, &out), CLOPS_NOT_IMPLEMENTED);
        CT_ERROR_CONTAINS("alias: kernel 'unconditional' has no fallback kernel");
        CT_ERROR_CONTAINS("unconditional override");
        CT_ASSERT(p.calls == 1 && out == NULL);
        unreg(h);
        /* Without it, alias works again. */
        CT_OK(clops_alias(t, &out));
        clops_tensor_release(out);
        clops_tensor_release(t);
    }
    ct_clear_context();
}

static void a_second_override_for_the_same_op_and_key_is_refused(void **state)
{
    (void)state;
    const clops_op *op = find_op("alias");
    probe a = {.label = "A"}, b = {.label = "B"};
    clops_override *ha = NULL, *hb = NULL;
    CT_OK(reg(op, CLOPS_KEY_NVIDIA, passthrough_kernel, &a, "first", 0, &ha));
    CT_STATUS(reg(op, CLOPS_KEY_NVIDIA, passthrough_kernel, &b, "second", 0, &hb),
              CLOPS_ALREADY_REGISTERED);
    CT_ERROR_CONTAINS("alias: an override ('first') is already registered for key NVIDIA");
    CT_ERROR_CONTAINS("CLOPS_OVERRIDE_ALLOW_MULTIPLE");
    CT_ASSERT(hb == NULL);
    clops_kernel_info info;
    CT_OK(clops_op_kernel_info(op, CLOPS_KEY_NVIDIA, &info));
    CT_ASSERT(info.depth == 1 && strcmp(info.name, "first") == 0);
    /* Also over an inventory kernel: the first override is fine, the
     * second is refused. */
    CT_OK(reg(op, CLOPS_KEY_CPU, passthrough_kernel, &a, "cpu-first", 0, NULL));
    CT_STATUS(reg(op, CLOPS_KEY_CPU, passthrough_kernel, &b, "cpu-second", 0, NULL),
              CLOPS_ALREADY_REGISTERED);
    remove_leftovers(NULL);
}

static void stacked_overrides_call_through_to_the_inventory_kernel(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int n = ct_devices(devs, CT_MAX_DEVICES);
    const clops_op *op = find_op("alias");
    for (int i = 0; i < n; i++) {
        ct_set_device(devs[i]);
        clops_dispatch_key key = vendor_key(devs[i]);
        probe a = {.label = "A"}, b = {.label = "B"};
        clops_override *ha = NULL, *hb = NULL;
        CT_OK(reg(op, key, passthrough_kernel, &a, "A", 0, &ha));
        CT_OK(reg(op, key, passthrough_kernel, &b, "B", CLOPS_OVERRIDE_ALLOW_MULTIPLE, &hb));
        clops_kernel_info info;
        CT_OK(clops_op_kernel_info(op, key, &info));
        CT_ASSERT(info.provenance == CLOPS_PROV_OVERRIDE && strcmp(info.name, "B") == 0);
        CT_ASSERT(info.depth == (key == CLOPS_KEY_CPU ? 3 : 2));
        clops_tensor *t = iota(devs[i], 1, CT_I64(2)), *out = NULL;
        trail[0] = '\0';
        CT_OK(clops_alias(t, &out));
        CT_ASSERT_MSG(strcmp(trail, "B,A,") == 0, "trail %s", trail);
        CT_ASSERT(clops_tensor_shares_storage(out, t) && out != t);
        clops_tensor_release(out);
        /* Removing the lower one: B now calls the inventory kernel. */
        unreg(ha);
        trail[0] = '\0';
        CT_OK(clops_alias(t, &out));
        CT_ASSERT_MSG(strcmp(trail, "B,") == 0, "trail %s", trail);
        clops_tensor_release(out);
        unreg(hb);
        clops_tensor_release(t);
    }
    ct_clear_context();
}

static void removing_an_override_restores_the_previous_kernel_and_resolution(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int n = ct_devices(devs, CT_MAX_DEVICES);
    const clops_op *op = find_op("alias");
    for (int i = 0; i < n; i++) {
        ct_set_device(devs[i]);
        clops_dispatch_key key = vendor_key(devs[i]);
        clops_kernel_info before, during, after, slot;
        CT_OK(clops_op_resolve(op, devs[i], &before));
        probe p = {.label = "P"};
        clops_override *h = NULL;
        CT_OK(reg(op, key, probe_kernel, &p, "replacement", CLOPS_OVERRIDE_UNCONDITIONAL, &h));
        CT_OK(clops_op_resolve(op, devs[i], &during));
        CT_ASSERT(during.key == key && during.provenance == CLOPS_PROV_OVERRIDE);
        unreg(h);
        CT_OK(clops_op_resolve(op, devs[i], &after));
        CT_ASSERT(after.key == before.key && after.provenance == before.provenance);
        CT_ASSERT(strcmp(after.name, before.name) == 0);
        CT_OK(clops_op_kernel_info(op, key, &slot));
        CT_ASSERT(slot.depth == (key == CLOPS_KEY_CPU ? 1 : 0));
        /* And calls run the previous kernel again. */
        clops_tensor *t = iota(devs[i], 1, CT_I64(2)), *out = NULL;
        CT_OK(clops_alias(t, &out));
        CT_ASSERT(p.calls == 0);
        clops_tensor_release(out);
        clops_tensor_release(t);
    }
    ct_clear_context();
}

/* --- devices of a call ------------------------------------------------------- */

static void tensors_on_two_devices_are_an_error_naming_both_devices(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int n = ct_opencl_devices(devs, CT_MAX_DEVICES);
    if (n == 0)
        skip();
    const clops_op *op = define("xdev(Tensor a, Tensor b) -> Tensor");
    probe p = {.label = "x"};
    CT_OK(reg(op, CLOPS_KEY_CPU, probe_kernel, &p, "x", 0, NULL));
    CT_OK(reg(op, CLOPS_KEY_OPENCL, probe_kernel, &p, "x", 0, NULL));
    /* A CPU tensor of ndim >= 1 does not join a device call; every pair of
     * distinct devices is refused (CPU first, then OpenCL pairs). */
    clops_device *all[CT_MAX_DEVICES + 1] = {ct_cpu()};
    for (int i = 0; i < n; i++)
        all[i + 1] = devs[i];
    for (int i = 0; i <= n; i++)
        for (int j = 0; j <= n; j++) {
            if (i == j)
                continue;
            ct_set_case("%s with %s", clops_device_label(all[i]), clops_device_label(all[j]));
            clops_tensor *a = iota(all[i], 1, CT_I64(2)), *b = iota(all[j], 1, CT_I64(2));
            clops_value v[2] = {clops_value_tensor(a), clops_value_tensor(b)};
            clops_value r[1];
            CT_STATUS(clops_call_boxed(op, v, 2, r, 1), CLOPS_DEVICE_MISMATCH);
            CT_ERROR_CONTAINS("xdev: expected all tensors to be on the same device");
            CT_ERROR_CONTAINS(clops_device_label(all[i]));
            CT_ERROR_CONTAINS(clops_device_label(all[j]));
            /* The typed wrappers check the same way. */
            CT_STATUS(clops_set__source_tensor(a, b), CLOPS_DEVICE_MISMATCH);
            CT_ERROR_CONTAINS("set_.source_Tensor");
            clops_tensor_release(a);
            clops_tensor_release(b);
        }
    CT_ASSERT(p.calls == 0);
    ct_clear_context();
}

static void copies_take_the_device_of_their_first_tensor_typed_and_boxed(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int n = ct_opencl_devices(devs, CT_MAX_DEVICES);
    if (n == 0)
        skip();
    const clops_op *copy = find_op("copy_");
    for (int i = 0; i < n; i++) {
        ct_set_device(devs[i]);
        /* copy_ is `device_check: NoCheck`: a device self and a CPU src of
         * ndim 1 is a copy between devices, not a device mismatch. */
        clops_tensor *dst = iota(devs[i], 1, CT_I64(3)), *src = iota(ct_cpu(), 1, CT_I64(3));
        clops_tensor *ten = NULL;
        CT_OK(clops_full(ct_cpu(), CLOPS_FLOAT32, 1, CT_I64(3), clops_scalar_int(10), &ten));
        CT_OK(clops_copy_(dst, ten, false));
        CT_ASSERT_CLOSE(dst, ten, CT_TOL_EXACT);
        clops_value v[2] = {clops_value_tensor(dst), clops_value_tensor(src)};
        clops_value r[1];
        CT_OK(clops_call_boxed(copy, v, 2, r, 1));
        CT_ASSERT(r[0].tag == CLOPS_V_TENSOR && r[0].v.t == dst);
        CT_ASSERT_CLOSE(dst, src, CT_TOL_EXACT);
        CT_ASSERT(clops_tensor_device(dst) == devs[i]);
        clops_value_clear(&r[0]);
        clops_tensor_release(ten);
        clops_tensor_release(src);
        clops_tensor_release(dst);
    }
    ct_clear_context();
}

static void a_zero_dim_cpu_tensor_may_join_a_device_call(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int n = ct_opencl_devices(devs, CT_MAX_DEVICES);
    if (n == 0)
        skip();
    const clops_op *op = define("zdim(Tensor a, Tensor b) -> Tensor");
    probe cpu = {.label = "cpu"}, cl = {.label = "cl"};
    CT_OK(reg(op, CLOPS_KEY_CPU, probe_kernel, &cpu, "cpu", 0, NULL));
    CT_OK(reg(op, CLOPS_KEY_OPENCL, probe_kernel, &cl, "cl", 0, NULL));
    clops_tensor *s = iota(ct_cpu(), 0, NULL);
    for (int i = 0; i < n; i++) {
        ct_set_device(devs[i]);
        clops_tensor *t = iota(devs[i], 1, CT_I64(3));
        clops_value r[1];
        /* Either order: the device tensor decides. */
        clops_value v1[2] = {clops_value_tensor(t), clops_value_tensor(s)};
        CT_OK(clops_call_boxed(op, v1, 2, r, 1));
        clops_value_clear(&r[0]);
        CT_ASSERT(cl.device == devs[i]);
        clops_value v2[2] = {clops_value_tensor(s), clops_value_tensor(t)};
        CT_OK(clops_call_boxed(op, v2, 2, r, 1));
        clops_value_clear(&r[0]);
        CT_ASSERT(cl.device == devs[i]);
        clops_tensor_release(t);
    }
    CT_ASSERT(cpu.calls == 0 && cl.calls == 2 * n);
    /* Only zero-dim CPU tensors: the call runs on the CPU. */
    clops_value v3[2] = {clops_value_tensor(s), clops_value_tensor(s)};
    clops_value r[1];
    CT_OK(clops_call_boxed(op, v3, 2, r, 1));
    clops_value_clear(&r[0]);
    CT_ASSERT(cpu.calls == 1 && cpu.device == ct_cpu());
    clops_tensor_release(s);
    ct_clear_context();
}

/* --- threads ------------------------------------------------------------------------ */

typedef struct worker {
    clops_tensor *t; /* 2x3x4 iota on some device */
    atomic_int *stop;
    int failures;
    long calls;
} worker;

/* Calls views and clones in a loop, checking every result. */
static void *call_loop(void *arg)
{
    worker *w = arg;
    while (!atomic_load(w->stop) || w->calls < 200) {
        clops_tensor *v = NULL, *c = NULL;
        if (clops_permute(w->t, CT_I64(2, 0, 1), 3, &v) != CLOPS_OK || v->sizes[0] != 4 ||
            v->strides[1] != 12)
            w->failures++;
        clops_tensor_release(v);
        v = NULL;
        if (clops_view(w->t, CT_I64(6, 4), 2, &v) != CLOPS_OK || v->sizes[0] != 6)
            w->failures++;
        if (v && (clops_clone(v, -1, &c) != CLOPS_OK || clops_tensor_numel(c) != 24))
            w->failures++;
        clops_tensor_release(c);
        clops_tensor_release(v);
        w->calls++;
    }
    return NULL;
}

static void calls_from_many_threads_run_while_another_thread_registers_on_another_op(
    void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_devices(devs, CT_MAX_DEVICES);
    enum { NT = 4 };
    atomic_int stop = 0;
    worker w[NT];
    pthread_t th[NT];
    for (int i = 0; i < NT; i++) {
        w[i] = (worker){iota(devs[i % nd], 3, CT_I64(2, 3, 4)), &stop, 0, 0};
        assert_int_equal(pthread_create(&th[i], NULL, call_loop, &w[i]), 0);
    }
    /* Meanwhile: register and remove overrides on ops the workers do not
     * call, at every key, and define new ops. */
    const clops_op *other = find_op("alias");
    probe p = {.label = "bg"};
    int reg_failures = 0;
    for (int round = 0; round < 300; round++) {
        clops_override *h = NULL;
        clops_dispatch_key key = (clops_dispatch_key)(round % CLOPS_KEY_FALLBACK);
        if (clops_kernel_register(other, key, probe_kernel, &p, "bg", 0, &h) != CLOPS_OK ||
            clops_kernel_remove(h) != CLOPS_OK)
            reg_failures++;
        if (round % 50 == 0) {
            char schema[64];
            snprintf(schema, sizeof schema, "conc_defined_%d(Tensor self) -> Tensor", round);
            if (clops_op_define(schema, NULL, NULL) != CLOPS_OK)
                reg_failures++;
        }
    }
    atomic_store(&stop, 1);
    long total = 0;
    int failures = 0;
    for (int i = 0; i < NT; i++) {
        pthread_join(th[i], NULL);
        total += w[i].calls;
        failures += w[i].failures;
        clops_tensor_release(w[i].t);
    }
    CT_ASSERT_MSG(failures == 0, "%d failed calls out of %ld", failures, total);
    CT_ASSERT(reg_failures == 0);
    CT_ASSERT(p.calls == 0);
}

/* A thread-safe override that counts and calls the kernel below it. */
static clops_status counting_passthrough(const clops_kernel_ctx *ctx, clops_value *args,
                                         int nargs, clops_value *rets, int nrets)
{
    atomic_fetch_add((atomic_int *)clops_kernel_ctx_data(ctx), 1);
    return clops_kernel_call_fallback(ctx, args, nargs, rets, nrets);
}

typedef struct alias_worker {
    clops_tensor *t;
    atomic_int *stop;
    int failures;
    long calls;
} alias_worker;

/* Calls alias in a loop, checking every result. */
static void *alias_loop(void *arg)
{
    alias_worker *w = arg;
    while (!atomic_load(w->stop) || w->calls < 200) {
        clops_tensor *v = NULL;
        if (clops_alias(w->t, &v) != CLOPS_OK || !clops_tensor_shares_storage(v, w->t))
            w->failures++;
        clops_tensor_release(v);
        w->calls++;
    }
    return NULL;
}

static void calls_through_an_override_run_while_another_thread_stacks_on_the_same_op(
    void **state)
{
    (void)state;
    const clops_op *op = find_op("alias");
    atomic_int base_calls = 0, top_calls = 0;
    CT_OK(reg(op, CLOPS_KEY_CPU, counting_passthrough, &base_calls, "base", 0, NULL));
    enum { NT = 3 };
    atomic_int stop = 0;
    alias_worker w[NT];
    pthread_t th[NT];
    for (int i = 0; i < NT; i++) {
        w[i] = (alias_worker){iota(ct_cpu(), 1, CT_I64(3)), &stop, 0, 0};
        assert_int_equal(pthread_create(&th[i], NULL, alias_loop, &w[i]), 0);
    }
    int reg_failures = 0;
    for (int round = 0; round < 2000; round++) {
        clops_override *h = NULL;
        if (clops_kernel_register(op, CLOPS_KEY_CPU, counting_passthrough, &top_calls, "top",
                                  CLOPS_OVERRIDE_ALLOW_MULTIPLE, &h) != CLOPS_OK ||
            clops_kernel_remove(h) != CLOPS_OK)
            reg_failures++;
    }
    atomic_store(&stop, 1);
    long total = 0;
    int failures = 0;
    for (int i = 0; i < NT; i++) {
        pthread_join(th[i], NULL);
        total += w[i].calls;
        failures += w[i].failures;
        clops_tensor_release(w[i].t);
    }
    CT_ASSERT_MSG(failures == 0, "%d failed calls out of %ld", failures, total);
    CT_ASSERT(reg_failures == 0);
    /* Every call went through the base override exactly once. */
    CT_ASSERT_MSG(base_calls == total, "base override ran %d times for %ld calls",
                  (int)base_calls, total);
}

#define T(name) cmocka_unit_test_teardown(name, remove_leftovers)

int main(void)
{
    const struct CMUnitTest tests[] = {
        T(a_cpu_tensor_resolves_to_the_cpu_key_and_runs_the_cpu_kernel),
        T(an_opencl_tensor_runs_its_vendor_key_before_opencl_and_opencl_before_fallback),
        T(a_kernel_at_another_vendors_key_does_not_serve_this_device),
        T(the_vendor_key_of_a_device_follows_its_vendor),
        T(builtin_ops_resolve_to_their_inventory_kernels_on_every_device),
        T(an_op_without_any_kernel_resolves_to_missing),
        T(a_call_without_tensor_arguments_runs_on_its_device_argument),
        T(conditional_override_at_the_vendor_key_can_call_the_kernel_it_replaced),
        T(unconditional_override_has_no_fallback_to_call),
        T(a_second_override_for_the_same_op_and_key_is_refused),
        T(stacked_overrides_call_through_to_the_inventory_kernel),
        T(removing_an_override_restores_the_previous_kernel_and_resolution),
        T(tensors_on_two_devices_are_an_error_naming_both_devices),
        T(copies_take_the_device_of_their_first_tensor_typed_and_boxed),
        T(a_zero_dim_cpu_tensor_may_join_a_device_call),
        T(calls_from_many_threads_run_while_another_thread_registers_on_another_op),
        T(calls_through_an_override_run_while_another_thread_stacks_on_the_same_op),
    };
    return cmocka_run_group_tests(tests, NULL, ct_teardown_group);
}
