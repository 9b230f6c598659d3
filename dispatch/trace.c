/* SPDX-License-Identifier: Apache-2.0 */
/*
 * dispatch/trace.c: the call trace (CLOPS_TRACE=1 or clops_set_trace).
 *
 * Each dispatched call prints one line on stderr,
 *     [call] op=add.Tensor key=OpenCL kernel=pointwise:add device=opencl:0 (pthread-...)
 * indented two spaces per nesting level (a kernel that calls other ops, an
 * override calling its fallback: [redispatch], the CPU fallback running the
 * CPU kernel: [fallback]).  The nesting depth is per thread.
 */
#include <stdio.h>

#include "dispatch/dispatch.h"
#include "host/host.h"

atomic_bool dispatch_tracing;
static _Thread_local int depth;

void clops_set_trace(bool on)
{
    atomic_store(&dispatch_tracing, on);
}

void dispatch_trace_call(const char *kind, const struct clops_op *op, const dispatch_kernel *k,
                         const clops_device *d)
{
    fprintf(stderr, "%*s[%s] op=%s key=%s kernel=%s device=%s (%s)\n", depth * 2, "", kind,
            op->name, clops_dispatch_key_name(k->key), k->name, d->label, d->info.name);
    depth++;
}

void dispatch_trace_pop(void)
{
    if (depth > 0)
        depth--;
}
