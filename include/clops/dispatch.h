/* SPDX-License-Identifier: Apache-2.0 */
/*
 * clops/dispatch.h: the operator registry and dispatcher.
 *
 * Every operator has a schema in PyTorch's native_functions.yaml grammar
 * ("add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor") and
 * a table of kernels, one slot per dispatch key.  A call's key comes from its
 * tensor arguments' device: host tensors use CPU; tensors on an OpenCL device
 * try, in order, the vendor override key of that device (NVIDIA, AMD, INTEL,
 * POCL, OTHER), the generic OPENCL key, and the FALLBACK key (the boxed CPU
 * fallback, subject to the fallback policy).
 *
 * Operators are looked up by name once (clops_op_find) and called through
 * the handle; the typed wrappers in clops/ops.h do this for you.  Every
 * kernel can be called boxed: arguments travel as a stack of tagged values
 * (clops_value) in schema order, checked against the schema, with defaults
 * filled in.
 *
 * Threading: calls may run concurrently from any threads.  Registering or
 * removing kernels while other threads call the same operator is safe (the
 * tables are swapped under a lock), but a removed user kernel must not be
 * running any more when its data is freed.
 */
#ifndef CLOPS_DISPATCH_H
#define CLOPS_DISPATCH_H

#include <stdbool.h>
#include <stdint.h>

#include "clops/device.h"
#include "clops/dtype.h"
#include "clops/generator.h"
#include "clops/status.h"
#include "clops/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* X(ENUM, name) in priority order within the OpenCL family. */
#define CLOPS_DISPATCH_KEY_LIST(X)                                                  \
    X(CPU, "CPU")                                                                   \
    X(NVIDIA, "NVIDIA")                                                             \
    X(AMD, "AMD")                                                                   \
    X(INTEL, "Intel")                                                               \
    X(POCL, "POCL")                                                                 \
    X(OTHER, "OtherVendor")                                                         \
    X(OPENCL, "OpenCL")                                                             \
    X(FALLBACK, "Fallback")

typedef enum clops_dispatch_key {
#define CLOPS__KEY_ENUM(e, name) CLOPS_KEY_##e,
    CLOPS_DISPATCH_KEY_LIST(CLOPS__KEY_ENUM)
#undef CLOPS__KEY_ENUM
    CLOPS_KEY_COUNT
} clops_dispatch_key;

/* A set of keys, bit (1u << key). */
typedef uint32_t clops_keyset;

CLOPS_API const char *clops_dispatch_key_name(clops_dispatch_key key);
/* Parses "OpenCL", "nvidia", "CPU", ... (case-insensitive). */
CLOPS_API clops_status clops_dispatch_key_from_name(const char *name, clops_dispatch_key *out);

/* --- boxed values ------------------------------------------------------- */

typedef enum clops_value_tag {
    CLOPS_V_NONE,
    CLOPS_V_TENSOR,
    CLOPS_V_SCALAR,
    CLOPS_V_INT,
    CLOPS_V_FLOAT,
    CLOPS_V_BOOL,
    CLOPS_V_INT_LIST,
    CLOPS_V_FLOAT_LIST,
    CLOPS_V_BOOL_LIST,
    CLOPS_V_TENSOR_LIST, /* entries may be NULL for Tensor?[] */
    CLOPS_V_DTYPE,
    CLOPS_V_STRING,
    CLOPS_V_DEVICE,
    CLOPS_V_ENUM, /* Layout, MemoryFormat: an integer code */
    CLOPS_V_GENERATOR /* Generator: a borrowed clops_generator * */
} clops_value_tag;

/*
 * One argument or result.  Arguments are borrowed: tensors, lists and
 * strings belong to the caller for the duration of the call.  Tensor
 * results are new references the caller releases (clops_value_clear); a
 * `Tensor[]` result is a CLOPS_V_TENSOR_LIST that owns its malloc'd array
 * and the references in it (clops_value_clear frees both).
 */
typedef struct clops_value {
    clops_value_tag tag;
    union {
        clops_tensor *t;
        clops_scalar s;
        int64_t i;
        double f;
        bool b;
        struct {
            const int64_t *data;
            int len;
        } ints;
        struct {
            const double *data;
            int len;
        } floats;
        struct {
            const bool *data;
            int len;
        } bools;
        struct {
            clops_tensor *const *data;
            int len;
        } tensors;
        clops_dtype dtype;
        const char *str;
        clops_device *device;
        clops_generator *gen;
    } v;
} clops_value;

static inline clops_value clops_value_tensor(clops_tensor *t)
{
    clops_value v;
    v.tag = t ? CLOPS_V_TENSOR : CLOPS_V_NONE;
    v.v.t = t;
    return v;
}

static inline clops_value clops_value_scalar(clops_scalar s)
{
    clops_value v;
    v.tag = CLOPS_V_SCALAR;
    v.v.s = s;
    return v;
}

static inline clops_value clops_value_int(int64_t i)
{
    clops_value v;
    v.tag = CLOPS_V_INT;
    v.v.i = i;
    return v;
}

static inline clops_value clops_value_float(double f)
{
    clops_value v;
    v.tag = CLOPS_V_FLOAT;
    v.v.f = f;
    return v;
}

static inline clops_value clops_value_bool(bool b)
{
    clops_value v;
    v.tag = CLOPS_V_BOOL;
    v.v.b = b;
    return v;
}

static inline clops_value clops_value_none(void)
{
    clops_value v;
    v.tag = CLOPS_V_NONE;
    v.v.i = 0;
    return v;
}

static inline clops_value clops_value_ints(const int64_t *data, int len)
{
    clops_value v;
    v.tag = CLOPS_V_INT_LIST;
    v.v.ints.data = data;
    v.v.ints.len = len;
    return v;
}

static inline clops_value clops_value_dtype(clops_dtype dtype)
{
    clops_value v;
    v.tag = dtype == CLOPS_DTYPE_NONE ? CLOPS_V_NONE : CLOPS_V_DTYPE;
    v.v.dtype = dtype;
    return v;
}

static inline clops_value clops_value_string(const char *s)
{
    clops_value v;
    v.tag = s ? CLOPS_V_STRING : CLOPS_V_NONE;
    v.v.str = s;
    return v;
}

static inline clops_value clops_value_device(clops_device *d)
{
    clops_value v;
    v.tag = d ? CLOPS_V_DEVICE : CLOPS_V_NONE;
    v.v.device = d;
    return v;
}

/* A generator value; NULL gives None (the device's default generator). */
static inline clops_value clops_value_generator(clops_generator *g)
{
    clops_value v;
    v.tag = g ? CLOPS_V_GENERATOR : CLOPS_V_NONE;
    v.v.gen = g;
    return v;
}

/* Releases a result value's tensor or tensor list (if any) and sets it to
 * none.  Only for results: argument lists are borrowed. */
CLOPS_API void clops_value_clear(clops_value *v);

/* --- operators ------------------------------------------------------------ */

typedef struct clops_op clops_op;

/* The operator named "add.Tensor" (or "relu" for an empty overload).
 * CLOPS_UNKNOWN_OP with close matches in the message. */
CLOPS_API clops_status clops_op_find(const char *qualified_name, const clops_op **op);
CLOPS_API int clops_op_count(void);
/* Operator by index, 0 <= index < clops_op_count(); NULL outside. */
CLOPS_API const clops_op *clops_op_at(int index);
/* "add.Tensor" */
CLOPS_API const char *clops_op_name(const clops_op *op);
/* The schema, printed canonically. */
CLOPS_API const char *clops_op_schema(const clops_op *op);
/* Comma-separated tags ("pointwise,core"); "" when none. */
CLOPS_API const char *clops_op_tags(const clops_op *op);
CLOPS_API bool clops_op_has_tag(const clops_op *op, const char *tag);
/* Number of arguments and returns in the schema. */
CLOPS_API int clops_op_num_args(const clops_op *op);
CLOPS_API int clops_op_num_returns(const clops_op *op);

/* Defines a new operator from its schema (user ops).  tags may be NULL.
 * CLOPS_SCHEMA_ERROR for a malformed schema (the message points at the
 * position), CLOPS_ALREADY_REGISTERED when the name exists. */
CLOPS_API clops_status clops_op_define(const char *schema, const char *tags, const clops_op **op);

/*
 * Calls op boxed: args[0..nargs) in schema order (trailing arguments with
 * defaults may be left out, keyword-only ones included), results in
 * rets[0..nrets) (nrets must equal the schema's return count).  Checks every
 * argument against the schema.
 */
CLOPS_API clops_status clops_call_boxed(const clops_op *op, clops_value *args, int nargs,
                                        clops_value *rets, int nrets);

/* --- kernels and overrides ----------------------------------------------- */

/* What a boxed kernel sees besides its arguments. */
typedef struct clops_kernel_ctx clops_kernel_ctx;

/*
 * A boxed kernel.  args hold every schema argument (defaults filled in);
 * it writes the schema's returns into rets (new tensor references).
 * Called on the thread that made the call.
 */
typedef clops_status (*clops_boxed_kernel)(const clops_kernel_ctx *ctx, clops_value *args,
                                           int nargs, clops_value *rets, int nrets);

/* The operator being called. */
CLOPS_API const clops_op *clops_kernel_ctx_op(const clops_kernel_ctx *ctx);
/* The keys of this call, highest priority first as bits. */
CLOPS_API clops_keyset clops_kernel_ctx_keys(const clops_kernel_ctx *ctx);
/* The device the call runs on. */
CLOPS_API clops_device *clops_kernel_ctx_device(const clops_kernel_ctx *ctx);
/* The data pointer given at registration. */
CLOPS_API void *clops_kernel_ctx_data(const clops_kernel_ctx *ctx);
/*
 * For an override: calls the kernel it replaced (or, if the override's key
 * had none, the kernel the next key resolves to), with the same or modified
 * arguments.  CLOPS_NOT_IMPLEMENTED when there is none (unconditional
 * overrides have none).
 */
CLOPS_API clops_status clops_kernel_call_fallback(const clops_kernel_ctx *ctx, clops_value *args,
                                                  int nargs, clops_value *rets, int nrets);

/* Registration flags. */
#define CLOPS_OVERRIDE_UNCONDITIONAL 1u  /* replaces; no fallback kernel */
#define CLOPS_OVERRIDE_ALLOW_MULTIPLE 2u /* stack on top of an existing override */

/* Handle of an override, for removing it. */
typedef struct clops_override clops_override;

/*
 * Registers a kernel for (op, key).  If a kernel is already there the call
 * is an override: conditional by default (it receives the previous kernel
 * as its fallback), refused with CLOPS_ALREADY_REGISTERED when an override
 * is already in place unless CLOPS_OVERRIDE_ALLOW_MULTIPLE is given.
 * `name` labels the kernel in traces and tables (copied).  *handle (may be
 * NULL) identifies the registration for clops_kernel_remove.
 */
CLOPS_API clops_status clops_kernel_register(const clops_op *op, clops_dispatch_key key,
                                             clops_boxed_kernel fn, void *data, const char *name,
                                             unsigned flags, clops_override **handle);

/* Removes a registration; the kernel it replaced serves again.  The handle
 * is freed. */
CLOPS_API clops_status clops_kernel_remove(clops_override *handle);

/* --- CPU fallback policy ---------------------------------------------------- */

typedef enum clops_fallback_policy {
    CLOPS_FALLBACK_ALLOW, /* run on the CPU silently (counted) */
    CLOPS_FALLBACK_WARN,  /* run on the CPU and print each op once on stderr */
    CLOPS_FALLBACK_ERROR  /* refuse: CLOPS_FALLBACK_DENIED */
} clops_fallback_policy;

/* The policy starts from CLOPS_FALLBACK=allow|warn|error (default allow). */
CLOPS_API void clops_set_fallback_policy(clops_fallback_policy policy);
CLOPS_API clops_fallback_policy clops_get_fallback_policy(void);
/* Refuses (deny=true) or re-allows fallback for one op whatever the
 * policy.  CLOPS_FALLBACK_DENY="op1,op2" sets the initial list. */
CLOPS_API clops_status clops_fallback_deny(const clops_op *op, bool deny);
/* How many times op ran through the CPU fallback since start or reset. */
CLOPS_API uint64_t clops_fallback_count(const clops_op *op);
CLOPS_API void clops_fallback_reset_counts(void);

/* --- introspection ------------------------------------------------------------ */

/* Switches the call trace (CLOPS_TRACE=1 at start) on or off. */
CLOPS_API void clops_set_trace(bool on);

/* Where a key's kernel came from. */
typedef enum clops_provenance {
    CLOPS_PROV_MISSING,
    CLOPS_PROV_KERNEL,     /* registered from the operator inventory */
    CLOPS_PROV_STRUCTURED, /* derived from a structured family's functional form */
    CLOPS_PROV_OVERRIDE,   /* registered at run time on top of another */
    CLOPS_PROV_FALLBACK    /* the boxed CPU fallback */
} clops_provenance;

CLOPS_API const char *clops_provenance_name(clops_provenance p);

/* One key's entry of an op's table. */
typedef struct clops_kernel_info {
    clops_dispatch_key key;
    clops_provenance provenance;
    const char *name; /* kernel label, NULL when missing */
    int depth;        /* number of kernels stacked at this key */
} clops_kernel_info;

/* The op's table entry for one key. */
CLOPS_API clops_status clops_op_kernel_info(const clops_op *op, clops_dispatch_key key,
                                            clops_kernel_info *out);

/* Which kernel a call on `device` would run: its key and provenance. */
CLOPS_API clops_status clops_op_resolve(const clops_op *op, const clops_device *device,
                                        clops_kernel_info *out);

#ifdef __cplusplus
}
#endif

#endif /* CLOPS_DISPATCH_H */
