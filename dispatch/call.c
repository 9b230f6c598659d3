/* SPDX-License-Identifier: Apache-2.0 */
/*
 * dispatch/call.c: making a call: picking the device and the kernel, running
 * it typed or boxed, and the context boxed kernels receive.
 *
 * The device of a call is the device of its tensor arguments.  They must all
 * be on one device, except that a zero-dim tensor on the CPU may join a call
 * on another device as a scalar (PyTorch's rule); a call without tensor
 * arguments uses its Device argument or the default device.
 */
#include <stdio.h>
#include <string.h>

#include "dispatch/dispatch.h"
#include "host/host.h"

/* Folds one tensor into the call's device; error on a mismatch. */
static clops_status fold_device(const struct clops_op *op, const clops_tensor *t,
                                clops_device **dev, clops_device **cpu_scalar)
{
    clops_device *d = t->storage->device;
    if (t->ndim == 0 && host_is_cpu(d)) {
        *cpu_scalar = d;
        return CLOPS_OK;
    }
    if (!*dev) {
        *dev = d;
        return CLOPS_OK;
    }
    if (*dev != d)
        return clops__fail(CLOPS_DEVICE_MISMATCH,
                           "%s: expected all tensors to be on the same device, but found at least "
                           "two devices, %s (%s) and %s (%s)",
                           op->name, (*dev)->label, (*dev)->info.name, d->label, d->info.name);
    return CLOPS_OK;
}

/* The call's device from its tensors, lists and Device argument. */
static clops_status call_device(const struct clops_op *op, clops_tensor *const *ts, int nts,
                                clops_tensor *const *list, int nlist, clops_device *device_arg,
                                clops_device **out)
{
    clops_device *dev = NULL, *cpu_scalar = NULL;
    clops_status st;
    for (int i = 0; i < nts; i++)
        if (ts[i] && (st = fold_device(op, ts[i], &dev, &cpu_scalar)) != CLOPS_OK)
            return st;
    for (int i = 0; i < nlist; i++)
        if (list[i] && (st = fold_device(op, list[i], &dev, &cpu_scalar)) != CLOPS_OK)
            return st;
    if (!dev)
        dev = cpu_scalar ? cpu_scalar : device_arg;
    if (!dev) {
        st = clops_device_default(&dev);
        if (st)
            return st;
    }
    *out = dev;
    return CLOPS_OK;
}

/* Error for a call that has no kernel on its device. */
static clops_status no_kernel(const struct clops_op *op, const clops_device *dev)
{
    char keys[256];
    dispatch_keys_with_kernels(op, keys, sizeof keys);
    return clops__fail(CLOPS_NOT_IMPLEMENTED,
                       "%s: no kernel for device %s (%s, %s key %s) and no CPU kernel to fall back "
                       "to; keys with kernels: %s",
                       op->name, dev->label, dev->info.name, clops_vendor_name(dev->info.vendor),
                       clops_dispatch_key_name((clops_dispatch_key)dispatch_target_of(dev)), keys);
}

clops_status dispatch_refuse_complex(const struct clops_op *op, clops_tensor *const *ts, int nts,
                                     clops_tensor *const *list, int nlist, clops_dtype dtype)
{
    if (op->takes_complex)
        return CLOPS_OK;
    const clops_tensor *c = NULL;
    for (int i = 0; i < nts && !c; i++)
        if (ts[i] && clops_dtype_is_complex(ts[i]->dtype))
            c = ts[i];
    for (int i = 0; i < nlist && !c; i++)
        if (list[i] && clops_dtype_is_complex(list[i]->dtype))
            c = list[i];
    if (c)
        dtype = c->dtype;
    if (!clops_dtype_is_complex(dtype))
        return CLOPS_OK;
    return clops__fail(CLOPS_NOT_IMPLEMENTED,
                       "%s: dtype %s is not supported by this op on clops (complex tensors have "
                       "creation, copies, views and the FFT family only; docs/fft.md)",
                       op->name, clops_dtype_name(dtype));
}

clops_status dispatch_dtype_arg(int op_id, clops_dtype dtype)
{
    return dispatch_refuse_complex(dispatch_op(op_id), NULL, 0, NULL, 0, dtype);
}

clops_status dispatch_begin(int op_id, clops_tensor *const *ts, int nts, clops_tensor *const *list,
                            int nlist, clops_device *device_arg, dispatch_call *call)
{
    if (!atomic_load_explicit(&dispatch_ready, memory_order_acquire)) {
        clops_status st = dispatch_ensure_init();
        if (st)
            return st;
    }
    struct clops_op *op = dispatch_op(op_id);
    clops_device *dev = NULL;
    clops_status st = call_device(op, ts, nts, list, nlist, device_arg, &dev);
    if (st == CLOPS_OK)
        st = dispatch_refuse_complex(op, ts, nts, list, nlist, CLOPS_DTYPE_NONE);
    if (st)
        return st;
    int target = dispatch_target_of(dev);
    dispatch_kernel *k = atomic_load_explicit(&op->resolved[target], memory_order_acquire);
    if (!k)
        return no_kernel(op, dev);
    call->op = op;
    call->kernel = k;
    call->device = dev;
    call->target = target;
    call->traced = atomic_load_explicit(&dispatch_tracing, memory_order_relaxed);
    if (call->traced)
        dispatch_trace_call("call", op, k, dev);
    return CLOPS_OK;
}

clops_status dispatch_run_kernel(struct clops_op *op, dispatch_kernel *k, clops_device *device,
                                 int target, clops_value *args, int nargs, clops_value *rets,
                                 int nrets)
{
    for (int i = 0; i < nrets; i++)
        rets[i] = clops_value_none();
    if (k->boxed) {
        struct clops_kernel_ctx ctx = {op, k, device, target};
        return k->boxed(&ctx, args, nargs, rets, nrets);
    }
    if (!op->adapter)
        return clops__fail(CLOPS_INTERNAL, "%s: typed kernel without an adapter", op->name);
    return op->adapter(k->typed, args, nargs, rets, nrets);
}

clops_status dispatch_invoke_boxed(dispatch_call *call, clops_value *args, int nargs,
                                   clops_value *rets, int nrets)
{
    return dispatch_run_kernel(call->op, call->kernel, call->device, call->target, args, nargs,
                               rets, nrets);
}

void clops_value_clear(clops_value *v)
{
    if (!v)
        return;
    if (v->tag == CLOPS_V_TENSOR)
        clops_tensor_release(v->v.t);
    if (v->tag == CLOPS_V_TENSOR_LIST) { /* a result list owns its array */
        clops_tensor_list l = {(clops_tensor **)v->v.tensors.data, v->v.tensors.len};
        clops_tensor_list_free(&l);
    }
    *v = clops_value_none();
}

clops_status clops_call_boxed(const clops_op *cop, clops_value *args, int nargs, clops_value *rets,
                              int nrets)
{
    if (nargs < 0 || nrets < 0)
        return clops__fail(CLOPS_INVALID_ARGUMENT,
                           "clops_call_boxed%s%s: negative %s count %d", cop ? " " : "",
                           cop ? cop->name : "", nargs < 0 ? "argument" : "result",
                           nargs < 0 ? nargs : nrets);
    if (!cop || (nargs && !args) || (nrets && !rets))
        return clops__fail(CLOPS_INVALID_ARGUMENT, "clops_call_boxed: %s is NULL",
                           !cop ? "op" : (nargs && !args) ? "args" : "rets");
    struct clops_op *op = (struct clops_op *)cop;
    const op_schema *s = op->schema;
    if (nrets != s->nrets)
        return clops__fail(CLOPS_INVALID_ARGUMENT, "%s: returns %d values, %d result slots given",
                           op->name, s->nrets, nrets);
    if (s->nargs > 64)
        return clops__fail(CLOPS_INVALID_ARGUMENT, "%s: too many arguments", op->name);
    clops_value full[64];
    int64_t scratch[256];
    clops_status st = dispatch_check_args(op, args, nargs, full, scratch, 256);
    if (st)
        return st;
    /* Collect tensors for the device decision. */
    clops_tensor *ts[64];
    int nts = 0;
    clops_tensor *const *list = NULL;
    int nlist = 0;
    clops_device *device_arg = NULL;
    for (int i = 0; i < s->nargs; i++) {
        /* Copies (device_check: NoCheck) take the device of their first
         * tensor, as their typed wrappers do. */
        if (full[i].tag == CLOPS_V_TENSOR && !(op->no_device_check && nts))
            ts[nts++] = full[i].v.t;
        else if (full[i].tag == CLOPS_V_TENSOR_LIST && !list) {
            list = full[i].v.tensors.data;
            nlist = full[i].v.tensors.len;
        } else if (full[i].tag == CLOPS_V_DEVICE && !device_arg)
            device_arg = full[i].v.device;
    }
    clops_device *dev = NULL;
    st = call_device(op, ts, nts, list, nlist, device_arg, &dev);
    for (int i = 0; st == CLOPS_OK && i < s->nargs; i++) {
        if (full[i].tag == CLOPS_V_TENSOR)
            st = dispatch_refuse_complex(op, &full[i].v.t, 1, NULL, 0, CLOPS_DTYPE_NONE);
        else if (full[i].tag == CLOPS_V_TENSOR_LIST)
            st = dispatch_refuse_complex(op, NULL, 0, full[i].v.tensors.data,
                                         full[i].v.tensors.len, CLOPS_DTYPE_NONE);
        else if (full[i].tag == CLOPS_V_DTYPE)
            st = dispatch_refuse_complex(op, NULL, 0, NULL, 0, full[i].v.dtype);
    }
    if (st)
        return st;
    int target = dispatch_target_of(dev);
    dispatch_kernel *k = atomic_load_explicit(&op->resolved[target], memory_order_acquire);
    if (!k)
        return no_kernel(op, dev);
    bool traced = atomic_load_explicit(&dispatch_tracing, memory_order_relaxed);
    if (traced)
        dispatch_trace_call("call", op, k, dev);
    st = dispatch_run_kernel(op, k, dev, target, full, s->nargs, rets, nrets);
    if (traced)
        dispatch_trace_pop();
    return st;
}

/* ---- kernel context --------------------------------------------------------- */

const clops_op *clops_kernel_ctx_op(const clops_kernel_ctx *ctx)
{
    return ctx ? ctx->op : NULL;
}

clops_keyset clops_kernel_ctx_keys(const clops_kernel_ctx *ctx)
{
    if (!ctx)
        return 0;
    if (ctx->target == CLOPS_KEY_CPU)
        return 1u << CLOPS_KEY_CPU;
    return (1u << ctx->target) | (1u << CLOPS_KEY_OPENCL) | (1u << CLOPS_KEY_FALLBACK);
}

clops_device *clops_kernel_ctx_device(const clops_kernel_ctx *ctx)
{
    return ctx ? ctx->device : NULL;
}

void *clops_kernel_ctx_data(const clops_kernel_ctx *ctx)
{
    return ctx ? ctx->kernel->data : NULL;
}

clops_status clops_kernel_call_fallback(const clops_kernel_ctx *ctx, clops_value *args, int nargs,
                                        clops_value *rets, int nrets)
{
    if (!ctx)
        return clops__fail(CLOPS_INVALID_ARGUMENT, "clops_kernel_call_fallback: NULL context");
    dispatch_kernel *next = dispatch_next_kernel(ctx->op, ctx->kernel, ctx->target);
    if (!next)
        return clops__fail(CLOPS_NOT_IMPLEMENTED, "%s: kernel '%s' has no fallback kernel%s",
                           ctx->op->name, ctx->kernel->name,
                           (ctx->kernel->flags & CLOPS_OVERRIDE_UNCONDITIONAL)
                               ? " (it was registered as an unconditional override)"
                               : "");
    bool traced = atomic_load_explicit(&dispatch_tracing, memory_order_relaxed);
    if (traced)
        dispatch_trace_call("redispatch", ctx->op, next, ctx->device);
    clops_status st = dispatch_run_kernel(ctx->op, next, ctx->device, ctx->target, args, nargs,
                                          rets, nrets);
    if (traced)
        dispatch_trace_pop();
    return st;
}
