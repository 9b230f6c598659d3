/* SPDX-License-Identifier: Apache-2.0 */
/*
 * dispatch/dispatch.h: the dispatcher's internals, shared by its modules and
 * by the code clops-opgen generates (ops_generated.c).
 *
 * An operator (struct clops_op) holds its parsed schema, its kernel slots
 * (one stack per dispatch key: the registered kernel with overrides on top)
 * and, per call target (the CPU, or the vendor family of an OpenCL device),
 * the kernel a call resolves to.  The resolved kernel is recomputed whenever
 * a slot changes, so a call costs one array index and one atomic load.
 *
 * The generated typed wrapper of an op does:
 *     dispatch_begin(op id, tensor args, device arg, &call)  -> kernel
 *     call the kernel's typed function, or box the arguments and call
 *     dispatch_invoke_boxed (user kernels, the CPU fallback)
 *     dispatch_end(&call)
 */
#ifndef CLOPS_DISPATCH_DISPATCH_H
#define CLOPS_DISPATCH_DISPATCH_H

#include <pthread.h>
#include <stdatomic.h>

#include "clops/dispatch.h"
#include "core/tensor_impl.h"
#include "dispatch/schema.h"

/* Any typed kernel, stored untyped and cast back by generated code. */
typedef void (*dispatch_fnptr)(void);

/* Unboxes args, calls the typed kernel fn, boxes the returns. */
typedef clops_status (*dispatch_adapter)(dispatch_fnptr fn, clops_value *args, int nargs,
                                         clops_value *rets, int nrets);

/* A kernel of the generated inventory. */
typedef struct dispatch_builtin_kernel {
    clops_dispatch_key key;
    dispatch_fnptr typed;
    const char *name;
    clops_provenance provenance;
} dispatch_builtin_kernel;

/* An operator of the generated inventory. */
typedef struct dispatch_builtin_op {
    const char *schema;
    const char *tags;
    const char *cname;
    dispatch_adapter adapter;
    const dispatch_builtin_kernel *kernels;
    int nkernels;
    const char *check; /* `check:` hints of the inventory as JSON, or NULL */
    bool no_device_check; /* device_check: NoCheck: the first tensor decides */
    const char *family;   /* its inventory file: dispatch/inventory/<family>.yaml */
} dispatch_builtin_op;

extern const dispatch_builtin_op dispatch_builtin_ops[];
extern const int dispatch_builtin_op_count;

/* One kernel in a key's slot.  Never freed while the library is up (a
 * thread may still be running a kernel that was just removed). */
typedef struct dispatch_kernel {
    dispatch_fnptr typed;     /* NULL for boxed-only kernels */
    clops_boxed_kernel boxed; /* user kernels and the fallback */
    void *data;
    const char *name;
    clops_provenance provenance;
    unsigned flags;
    clops_dispatch_key key;
    struct dispatch_kernel *below; /* the kernel this one overrides */
    struct clops_op *op;
    bool removed;
    bool owns_name;
} dispatch_kernel;

/* Call targets: the CPU and each vendor family (their vendor keys). */
#define DISPATCH_NTARGETS (CLOPS_KEY_OTHER + 1)

struct clops_op {
    int id;
    op_schema *schema;
    char *name;   /* "add.Tensor" */
    char *text;   /* canonical schema */
    char *tags;
    const char *check;        /* inventory check hints (JSON) or NULL */
    const char *family;       /* inventory family ("tensor", ...); NULL for user ops */
    dispatch_adapter adapter; /* NULL for user-defined ops */
    /* device_check: NoCheck (copies): the call's device is the first tensor
     * argument's; the others may be anywhere. */
    bool no_device_check;
    /* Takes complex tensors and dtypes: tagged `complex` in the inventory
     * (copies, factories, fills, the FFT family) or a view (a return in an
     * argument's alias set, not written).  Every other op refuses them in
     * dispatch (dispatch_refuse_complex). */
    bool takes_complex;
    dispatch_kernel *slots[CLOPS_KEY_COUNT];
    _Atomic(dispatch_kernel *) resolved[DISPATCH_NTARGETS];
    /* Defaults per argument, built once from the schema (NONE tag = no
     * default) and storage for list defaults. */
    clops_value *defaults;
    bool *has_default;
    int64_t *default_ints;
    /* CPU fallback bookkeeping. */
    atomic_bool fallback_denied;
    atomic_bool fallback_warned;
    atomic_uint_fast64_t fallback_count;
};

/* Everything a call carries from dispatch_begin to dispatch_end. */
typedef struct dispatch_call {
    struct clops_op *op;
    dispatch_kernel *kernel;
    clops_device *device;
    int target;
    bool traced;
} dispatch_call;

/* Makes sure the registry exists (first call builds it). */
clops_status dispatch_ensure_init(void);
extern atomic_bool dispatch_ready;
/* The op with a generated id (valid after init). */
struct clops_op *dispatch_op(int id);
void dispatch_shutdown(void);
/* The op's `check:` hints from the inventory (JSON text), or NULL. */
const char *dispatch_op_check_hints(const clops_op *op);
int dispatch_op_id(const clops_op *op);
/* The op's family: the name of its inventory file
 * (dispatch/inventory/<family>.yaml), or NULL for a user-defined op. */
const char *dispatch_op_family(const clops_op *op);

/* Resolves the kernel for a call.  ts: tensor arguments (NULL entries
 * skipped), list: a Tensor[] argument; device_arg: a Device argument (or
 * NULL).  On failure nothing needs ending. */
/* CLOPS_NOT_IMPLEMENTED naming the op and the dtype when a tensor (or a
 * list's tensor, or dtype, CLOPS_DTYPE_NONE for none) is complex and the op
 * does not take complex tensors (clops_op.takes_complex); CLOPS_OK
 * otherwise. */
clops_status dispatch_refuse_complex(const struct clops_op *op, clops_tensor *const *ts, int nts,
                                     clops_tensor *const *list, int nlist, clops_dtype dtype);
/* The same for one ScalarType argument of a typed call (generated
 * wrappers). */
clops_status dispatch_dtype_arg(int op_id, clops_dtype dtype);

clops_status dispatch_begin(int op_id, clops_tensor *const *ts, int nts, clops_tensor *const *list,
                            int nlist, clops_device *device_arg, dispatch_call *call);
/* Runs the call's kernel boxed (args already complete and typed as the
 * schema says). */
clops_status dispatch_invoke_boxed(dispatch_call *call, clops_value *args, int nargs,
                                   clops_value *rets, int nrets);
/* Trace bookkeeping at the end of a call. */
void dispatch_trace_pop(void);
static inline void dispatch_end(dispatch_call *call)
{
    if (call->traced)
        dispatch_trace_pop();
}

/* Runs a kernel boxed with a context (used by invoke and fallback calls). */
clops_status dispatch_run_kernel(struct clops_op *op, dispatch_kernel *k, clops_device *device,
                                 int target, clops_value *args, int nargs, clops_value *rets,
                                 int nrets);

/* The target index of a device. */
int dispatch_target_of(const clops_device *d);
/* Recomputes an op's resolved kernels (registry lock held). */
void dispatch_resolve_op(struct clops_op *op);
/* Keys that have a kernel, as text ("CPU, OpenCL") for messages. */
void dispatch_keys_with_kernels(const struct clops_op *op, char *buf, size_t cap);

/* Argument checking (dispatch/boxed.c): validates args against the schema
 * and writes the complete argument list into full (schema nargs entries),
 * filling defaults and normalising tags (an int where a float is expected
 * becomes a float, an int/float/bool where a Scalar is expected becomes a
 * Scalar).  scratch holds converted int lists (size given in scratch_len). */
clops_status dispatch_check_args(const struct clops_op *op, const clops_value *args, int nargs,
                                 clops_value *full, int64_t *scratch, int scratch_len);
/* Builds an op's default values from its schema. */
clops_status dispatch_build_defaults(struct clops_op *op);

/* Trace (dispatch/trace.c). */
extern atomic_bool dispatch_tracing;
void dispatch_trace_call(const char *kind, const struct clops_op *op, const dispatch_kernel *k,
                         const clops_device *d);

/* The CPU fallback (dispatch/fallback.c). */
extern dispatch_kernel dispatch_fallback_kernel;
/* Reads CLOPS_FALLBACK_DENY once the registry exists (op names resolve). */
void dispatch_fallback_after_init(void);
/* Applies CLOPS_FALLBACK_DENY to an operator defined after start (user
 * ops; registry lock held). */
void dispatch_fallback_on_define(struct clops_op *op);
/* The kernel an override's fallback call reaches (NULL: none). */
dispatch_kernel *dispatch_next_kernel(const struct clops_op *op, const dispatch_kernel *k,
                                      int target);

/* The context passed to boxed kernels. */
struct clops_kernel_ctx {
    struct clops_op *op;
    dispatch_kernel *kernel;
    clops_device *device;
    int target;
};

#endif /* CLOPS_DISPATCH_DISPATCH_H */
