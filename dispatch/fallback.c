/* SPDX-License-Identifier: Apache-2.0 */
/*
 * dispatch/fallback.c: the boxed CPU fallback and its policy.
 *
 * When an op has no kernel for an OpenCL device but has a CPU kernel, a call
 * on that device runs here: the tensor arguments are copied to the host, the
 * CPU kernel runs, every argument the schema marks as written (`Tensor(a!)`)
 * is copied back into the caller's device tensor (resized first if the CPU
 * kernel resized it), and fresh results are moved to the device.  Results
 * that alias a written argument are returned as that argument.
 *
 * Silent fallbacks are the top complaint of users of other OpenCL backends,
 * so every fallback is counted per op (clops_fallback_count), `warn` prints
 * each op once, and `error` (or a per-op deny list) refuses them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "dispatch/dispatch.h"
#include "host/host.h"

static atomic_int policy = -1; /* -1: not read from the environment yet */

/* Reads CLOPS_FALLBACK once. */
static clops_fallback_policy current_policy(void)
{
    int p = atomic_load_explicit(&policy, memory_order_relaxed);
    if (p >= 0)
        return (clops_fallback_policy)p;
    const char *env = host_env("CLOPS_FALLBACK");
    p = CLOPS_FALLBACK_ALLOW;
    if (env && strcasecmp(env, "warn") == 0)
        p = CLOPS_FALLBACK_WARN;
    else if (env && strcasecmp(env, "error") == 0)
        p = CLOPS_FALLBACK_ERROR;
    else if (env && strcasecmp(env, "allow") != 0)
        fprintf(stderr, "clops: warning: CLOPS_FALLBACK=%s is not allow, warn or error; using "
                        "allow\n",
                env);
    int expected = -1;
    atomic_compare_exchange_strong(&policy, &expected, p);
    return (clops_fallback_policy)atomic_load(&policy);
}

void clops_set_fallback_policy(clops_fallback_policy p)
{
    atomic_store(&policy, (int)p);
}

clops_fallback_policy clops_get_fallback_policy(void)
{
    return current_policy();
}

clops_status clops_fallback_deny(const clops_op *op, bool deny)
{
    if (!op)
        return clops__fail(CLOPS_INVALID_ARGUMENT, "clops_fallback_deny: op is NULL");
    atomic_store(&((struct clops_op *)op)->fallback_denied, deny);
    return CLOPS_OK;
}

uint64_t clops_fallback_count(const clops_op *op)
{
    return op ? atomic_load(&((struct clops_op *)op)->fallback_count) : 0;
}

void clops_fallback_reset_counts(void)
{
    int n = clops_op_count();
    for (int i = 0; i < n; i++) {
        struct clops_op *op = (struct clops_op *)clops_op_at(i);
        atomic_store(&op->fallback_count, 0);
        atomic_store(&op->fallback_warned, false);
    }
}

/* True when the comma/space separated list holds name. */
static bool list_has(const char *list, const char *name)
{
    size_t len = strlen(name);
    for (const char *p = list; *p;) {
        size_t n = strcspn(p, ", ");
        if (n == len && strncmp(p, name, n) == 0)
            return true;
        p += n;
        while (*p == ',' || *p == ' ')
            p++;
    }
    return false;
}

/* Applies CLOPS_FALLBACK_DENY="op1,op2" once the registry exists.  Names
 * that are not builtin operators are not an error: they may name user
 * operators, which dispatch_fallback_on_define checks when they are
 * defined. */
static void apply_deny_env(void)
{
    const char *env = host_env("CLOPS_FALLBACK_DENY");
    if (!env)
        return;
    int n = clops_op_count();
    for (int i = 0; i < n; i++) {
        struct clops_op *op = (struct clops_op *)clops_op_at(i);
        if (op && list_has(env, op->name))
            atomic_store(&op->fallback_denied, true);
    }
}

/* Marks a newly defined operator denied when CLOPS_FALLBACK_DENY names it. */
void dispatch_fallback_on_define(struct clops_op *op)
{
    const char *env = host_env("CLOPS_FALLBACK_DENY");
    if (env && list_has(env, op->name))
        atomic_store(&op->fallback_denied, true);
}

/* Copies every device tensor of v to the CPU into cpu (new references). */
static clops_status to_cpu(clops_device *cpu, const clops_value *v, clops_value *c,
                           clops_tensor **list_store, int *list_used, int list_cap)
{
    *c = *v;
    /* tensor_to_copy keeps the tensor's layout, so a kernel sees a transposed
     * input as transposed and lays its result out the same way. */
    if (v->tag == CLOPS_V_TENSOR && !host_is_cpu(v->v.t->storage->device))
        return tensor_to_copy(v->v.t, CLOPS_DTYPE_NONE, cpu, &c->v.t);
    if (v->tag == CLOPS_V_TENSOR)
        c->v.t = clops_tensor_retain(v->v.t);
    if (v->tag == CLOPS_V_TENSOR_LIST) {
        int n = v->v.tensors.len;
        if (*list_used + n > list_cap)
            return clops__fail(CLOPS_INVALID_ARGUMENT, "CPU fallback: too many list tensors");
        clops_tensor **dst = list_store + *list_used;
        *list_used += n;
        /* All entries are released by the caller, also after a failure
         * part-way through the list. */
        for (int i = 0; i < n; i++)
            dst[i] = NULL;
        c->v.tensors.data = dst;
        for (int i = 0; i < n; i++) {
            clops_tensor *t = v->v.tensors.data[i];
            if (!t)
                continue;
            clops_status st = host_is_cpu(t->storage->device)
                                  ? (dst[i] = clops_tensor_retain(t), CLOPS_OK)
                                  : tensor_to_copy(t, CLOPS_DTYPE_NONE, cpu, &dst[i]);
            if (st)
                return st;
        }
    }
    return CLOPS_OK;
}

/* Copies a CPU result back into the caller's tensor (resizing it to the
 * CPU tensor's shape if the kernel resized it). */
static clops_status write_back(clops_tensor *orig, clops_tensor *cpu)
{
    if (orig == cpu)
        return CLOPS_OK;
    bool same = orig->ndim == cpu->ndim &&
                memcmp(orig->sizes, cpu->sizes, sizeof(int64_t) * (size_t)cpu->ndim) == 0;
    if (!same) {
        clops_status st = tensor_resize(orig, cpu->ndim, cpu->sizes);
        if (st)
            return st;
    }
    return tensor_copy(orig, cpu);
}

/* The fallback kernel. */
static clops_status fallback(const clops_kernel_ctx *ctx, clops_value *args, int nargs,
                             clops_value *rets, int nrets)
{
    struct clops_op *op = ctx->op;
    const op_schema *s = op->schema;
    clops_device *dev = ctx->device;
    char keys[256];
    clops_fallback_policy p = current_policy();
    if (p == CLOPS_FALLBACK_ERROR || atomic_load(&op->fallback_denied)) {
        dispatch_keys_with_kernels(op, keys, sizeof keys);
        return clops__fail(CLOPS_FALLBACK_DENIED,
                           "%s: no kernel for device %s (%s) and the CPU fallback is refused (%s); "
                           "keys with kernels: %s",
                           op->name, dev->label, dev->info.name,
                           p == CLOPS_FALLBACK_ERROR ? "CLOPS_FALLBACK=error" : "deny list", keys);
    }
    atomic_fetch_add(&op->fallback_count, 1);
    if (p == CLOPS_FALLBACK_WARN && !atomic_exchange(&op->fallback_warned, true))
        fprintf(stderr, "clops: warning: %s has no kernel for %s (%s); running it on the CPU "
                        "(CLOPS_FALLBACK=warn)\n",
                op->name, dev->label, dev->info.name);
    clops_device *cpu = NULL;
    clops_status st = clops_device_get(0, &cpu);
    if (st)
        return st;
    dispatch_kernel *k = atomic_load(&op->resolved[CLOPS_KEY_CPU]);
    if (!k)
        return clops__fail(CLOPS_NOT_IMPLEMENTED, "%s: no CPU kernel to fall back to", op->name);
    if (nargs > 64 || nrets > 16)
        return clops__fail(CLOPS_INVALID_ARGUMENT, "%s: too many arguments for the fallback",
                           op->name);
    clops_value cargs[64];
    clops_value crets[16];
    clops_tensor *lists[256];
    int list_used = 0;
    int ncopied = 0;
    for (; ncopied < nargs && st == CLOPS_OK; ncopied++) {
        st = to_cpu(cpu, &args[ncopied], &cargs[ncopied], lists, &list_used, 256);
        if (st)
            cargs[ncopied] = clops_value_none();
    }
    bool traced = atomic_load_explicit(&dispatch_tracing, memory_order_relaxed);
    for (int i = 0; i < nrets; i++)
        crets[i] = clops_value_none();
    if (st == CLOPS_OK) {
        if (traced)
            dispatch_trace_call("fallback", op, k, cpu);
        st = dispatch_run_kernel(op, k, cpu, CLOPS_KEY_CPU, cargs, nargs, crets, nrets);
        if (traced)
            dispatch_trace_pop();
    }
    /* Write back every argument the schema marks as written. */
    for (int i = 0; i < nargs && st == CLOPS_OK; i++) {
        if (i >= s->nargs || !schema_arg_is_mutable(&s->args[i]))
            continue;
        if (args[i].tag == CLOPS_V_TENSOR)
            st = write_back(args[i].v.t, cargs[i].v.t);
        else if (args[i].tag == CLOPS_V_TENSOR_LIST)
            for (int j = 0; j < args[i].v.tensors.len && st == CLOPS_OK; j++)
                if (args[i].v.tensors.data[j])
                    st = write_back(args[i].v.tensors.data[j], cargs[i].v.tensors.data[j]);
    }
    /* Results: aliases of written arguments are those arguments; fresh
     * tensors move to the device. */
    for (int r = 0; r < nrets && st == CLOPS_OK; r++) {
        const schema_ret *sr = &s->rets[r];
        if (crets[r].tag == CLOPS_V_TENSOR_LIST) {
            /* A Tensor[] result: each tensor moves to the device (the CPU
             * list is freed below with crets). */
            int n = crets[r].v.tensors.len;
            clops_tensor **moved = calloc(n ? (size_t)n : 1, sizeof *moved);
            if (!moved) {
                st = clops__fail(CLOPS_HOST_OUT_OF_MEMORY, "CPU fallback: out of host memory");
                break;
            }
            rets[r] = (clops_value){.tag = CLOPS_V_TENSOR_LIST, .v.tensors = {moved, n}};
            for (int j = 0; j < n && st == CLOPS_OK; j++)
                if (crets[r].v.tensors.data[j])
                    st = tensor_to_copy(crets[r].v.tensors.data[j], CLOPS_DTYPE_NONE, dev, &moved[j]);
            continue;
        }
        if (crets[r].tag != CLOPS_V_TENSOR) {
            rets[r] = crets[r];
            crets[r] = clops_value_none();
            continue;
        }
        int alias = -1;
        if (sr->alias.present && sr->alias.is_write)
            for (int i = 0; i < nargs && i < s->nargs; i++)
                if (s->args[i].alias.present && strcmp(s->args[i].alias.set, sr->alias.set) == 0)
                    alias = i;
        if (alias >= 0 && args[alias].tag == CLOPS_V_TENSOR) {
            rets[r] = clops_value_tensor(clops_tensor_retain(args[alias].v.t));
        } else {
            clops_tensor *t = NULL;
            st = tensor_to_copy(crets[r].v.t, CLOPS_DTYPE_NONE, dev, &t);
            rets[r] = clops_value_tensor(t);
        }
    }
    for (int r = 0; r < nrets; r++) {
        clops_value_clear(&crets[r]);
        if (st)
            clops_value_clear(&rets[r]);
    }
    for (int i = 0; i < ncopied; i++)
        if (cargs[i].tag == CLOPS_V_TENSOR)
            clops_tensor_release(cargs[i].v.t);
    for (int i = 0; i < list_used; i++)
        clops_tensor_release(lists[i]);
    if (st)
        return clops__error_prefix(st, "%s (CPU fallback from %s)", op->name, dev->label);
    return CLOPS_OK;
}

dispatch_kernel dispatch_fallback_kernel = {
    .boxed = fallback,
    .name = "cpu-fallback",
    .provenance = CLOPS_PROV_FALLBACK,
    .key = CLOPS_KEY_FALLBACK,
};

void dispatch_fallback_after_init(void)
{
    apply_deny_env();
}
