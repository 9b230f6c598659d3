/* SPDX-License-Identifier: Apache-2.0 */
/*
 * codegen_pointwise/pw_bind.c: running an inventory operator through its pw_op.
 *
 * An entry `pointwise: NAME` binds a schema to pw_op_NAME: arguments whose
 * names are among the pw_op's parameter names are its scalar parameters, the
 * other Tensor/Scalar arguments its operands, in schema order.  The split is
 * worked out on the first call (string compares happen once per op, never
 * per call) and checked against the pw_op's operand and parameter counts.
 */
#include <string.h>

#include "codegen_pointwise/pw_bind.h"

clops_status pw_binding_resolve(pw_binding *b)
{
    if (atomic_load_explicit(&b->ready, memory_order_acquire) && b->status == CLOPS_OK)
        return CLOPS_OK;
    bool detailed = false; /* this call recorded the detailed message */
    pthread_mutex_lock(&b->lock);
    if (!atomic_load_explicit(&b->ready, memory_order_relaxed)) {
        const pw_op *op = b->op;
        int nin = 0, np = 0;
        clops_status st = CLOPS_OK;
        for (int i = 0; i < b->nargs && st == CLOPS_OK; i++) {
            int param = -1;
            for (int k = 0; k < op->n_params; k++)
                if (op->param_names[k] && strcmp(op->param_names[k], b->argnames[i]) == 0)
                    param = k;
            if (param >= 0) {
                b->map[i] = -(param + 1);
                np++;
            } else if (nin < PW_MAX_IN) {
                b->map[i] = nin++;
            } else {
                st = CLOPS_INTERNAL;
            }
        }
        if (st == CLOPS_OK && (nin != op->n_in || np != op->n_params))
            st = CLOPS_INTERNAL;
        if (st) {
            clops__fail(st, "%s: schema does not match pw_op_%s (%d operands and %d parameters in "
                            "the schema, %d and %d in the op)",
                        b->opname, op->name, nin, np, op->n_in, op->n_params);
            detailed = true;
        }
        b->status = st;
        atomic_store_explicit(&b->ready, true, memory_order_release);
    }
    pthread_mutex_unlock(&b->lock);
    /* Later calls of a broken binding fail with a message too (the
     * detailed one was recorded on the first call's thread). */
    if (b->status && !detailed)
        return clops__fail(b->status, "%s: schema does not match pw_op_%s (operands %d, "
                                      "parameters %d)",
                           b->opname, b->op->name, b->op->n_in, b->op->n_params);
    return b->status;
}

clops_status pw_bound_run(pw_binding *b, pw_variant variant, clops_tensor *dst, const pw_arg *args,
                          int nargs, clops_tensor **out)
{
    clops_status st = pw_binding_resolve(b);
    if (st)
        return st;
    pw_operand operands[PW_MAX_IN];
    clops_scalar params[PW_MAX_PARAMS];
    for (int i = 0; i < nargs; i++) {
        int m = b->map[i];
        if (m >= 0)
            operands[m] = args[i].t ? pw_tensor(args[i].t) : pw_scalar(args[i].s);
        else
            params[-m - 1] = args[i].s;
    }
    pw_options opts = {.result = CLOPS_DTYPE_NONE, .compute = CLOPS_DTYPE_NONE,
                       .opname = b->opname};
    return pw_run(b->op, variant, operands, params, dst, &opts, out);
}
