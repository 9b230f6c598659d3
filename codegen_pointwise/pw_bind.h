/* SPDX-License-Identifier: Apache-2.0 */
/*
 * codegen_pointwise/pw_bind.h: inventory operators bound to a pw_op.
 *
 * An entry `pointwise: NAME` of an inventory file
 * (dispatch/inventory/<family>.yaml) binds a schema to pw_op_NAME; the
 * generated registration (ops_generated.c) holds one pw_binding per such
 * schema and its wrappers run them with pw_bound_run
 * (codegen_pointwise/pw_bind.c).  This is kernel-layer code: it moved here
 * from dispatch/dispatch.h so the dispatcher includes nothing above it.
 */
#ifndef CLOPS_CODEGEN_POINTWISE_PW_BIND_H
#define CLOPS_CODEGEN_POINTWISE_PW_BIND_H

#include <pthread.h>
#include <stdatomic.h>

#include "codegen_pointwise/pw.h"

/* A Tensor or Scalar argument of a pointwise op, in schema order. */
typedef struct pw_arg {
    clops_tensor *t; /* NULL for a Scalar */
    clops_scalar s;
} pw_arg;

static inline pw_arg pw_arg_t(clops_tensor *t)
{
    pw_arg a;
    a.t = t;
    a.s = clops_scalar_int(0);
    return a;
}

static inline pw_arg pw_arg_s(clops_scalar s)
{
    pw_arg a;
    a.t = NULL;
    a.s = s;
    return a;
}

/* Which schema arguments are operands and which are parameters of the
 * pw_op, worked out once from the names. */
typedef struct pw_binding {
    const pw_op *op;
    const char *opname;
    int nargs;
    const char *const *argnames;
    /* Filled on first use: */
    atomic_bool ready;
    pthread_mutex_t lock;
    clops_status status;
    int map[PW_MAX_IN + PW_MAX_PARAMS]; /* arg i -> operand j (>= 0) or param -(k+1) */
} pw_binding;

extern pw_binding dispatch_pw_bindings[];
extern const int dispatch_pw_binding_count;

/* Runs the bound op: args are the op's Tensor/Scalar arguments in schema
 * order (the out argument excluded). */
clops_status pw_bound_run(pw_binding *b, pw_variant variant, clops_tensor *dst, const pw_arg *args,
                          int nargs, clops_tensor **out);
/* Resolves a binding now (tests check every binding of the inventory). */
clops_status pw_binding_resolve(pw_binding *b);

#endif /* CLOPS_CODEGEN_POINTWISE_PW_BIND_H */
