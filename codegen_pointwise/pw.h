/* SPDX-License-Identifier: Apache-2.0 */
/*
 * codegen_pointwise/pw.h: the pointwise engine.
 *
 * Every elementwise operation (casts and copies included) goes through this
 * engine.  A pointwise op is described once, by a pw_op record: its operands,
 * its scalar parameters, how the result dtype is promoted, which dtypes it
 * accepts and an OpenCL C expression per dtype class (its C reference is
 * ref's own, found by the op's name: ref/ref_pw.h).  pw_run then does
 * TensorIterator's work:
 *
 *   plan.c   broadcast the operands, compute the result dtype, allocate (or
 *            check) the output in the inputs' stride order, reorder and
 *            coalesce dimensions, choose 32- or 64-bit indexing and the
 *            contiguous fast path;
 *   emit.c   write OpenCL C for a kernel specialised on (op, dtypes, compute
 *            dtype, rank, index width, fast path), grouped with its siblings
 *            in one program per op (see grouping below);
 *   run.c    find the kernel by its packed specialisation key and launch it
 *            with sizes, strides and scalars as arguments, so a new shape or
 *            scalar value never compiles anything; on the CPU device hand
 *            the call to the reference (ref/pointwise.c), which walks the
 *            tensors itself, not the plan.
 */
#ifndef CLOPS_PW_H
#define CLOPS_PW_H

#include <stdbool.h>
#include <stdint.h>

#include "clops/tensor.h"
#include "codegen_pointwise/promote.h"
#include "core/strbuf.h"
#include "core/tensor_impl.h"
#include "dispatch/structured.h"
#include "ref/ref_pw.h"

#define PW_MAX_IN REF_PW_MAX_IN         /* operands (tensor or scalar) */
#define PW_MAX_PARAMS REF_PW_MAX_PARAMS /* scalar parameters */
#define PW_MAX_OPERANDS (PW_MAX_IN + 1)

/* How an operand takes part in the op. */
typedef enum pw_role {
    PW_ROLE_COMMON, /* promoted with the others; converted to the compute dtype */
    PW_ROLE_BOOL,   /* a condition or mask: read as bool, not promoted */
    PW_ROLE_OWN     /* kept in its own dtype's compute type, not promoted
                       (e.g. an int exponent); the expression sees it as
                       `b` of type `Tb` (see emit.c) */
} pw_role;

/* How a scalar parameter is passed to the kernel. */
typedef enum pw_param_kind {
    PW_PARAM_COMPUTE, /* converted to the compute dtype (alpha, clamp bounds) */
    PW_PARAM_FLOAT,   /* float in a float compute, double in a double one
                         (negative_slope, beta); an int compute uses float */
    PW_PARAM_INT      /* a 64-bit integer (round's decimals) */
} pw_param_kind;

/* The dtype classes an expression can be written for. */
typedef enum pw_class {
    PW_CLASS_BOOL,
    PW_CLASS_UINT, /* uint8 */
    PW_CLASS_SINT, /* int8..int64 */
    PW_CLASS_FLOAT,
    PW_CLASS_COUNT
} pw_class;

/* Accepted-dtype masks for pw_op.dtypes (bit per common dtype). */
#define PW_DT(d) (1u << (d))
#define PW_DT_FLOATS (PW_DT(CLOPS_FLOAT16) | PW_DT(CLOPS_BFLOAT16) | PW_DT(CLOPS_FLOAT32) | PW_DT(CLOPS_FLOAT64))
#define PW_DT_INTS (PW_DT(CLOPS_UINT8) | PW_DT(CLOPS_INT8) | PW_DT(CLOPS_INT16) | PW_DT(CLOPS_INT32) | PW_DT(CLOPS_INT64))
#define PW_DT_BOOL PW_DT(CLOPS_BOOL)
#define PW_DT_NOBOOL (PW_DT_INTS | PW_DT_FLOATS)
#define PW_DT_ALL (PW_DT_BOOL | PW_DT_INTS | PW_DT_FLOATS)

/* Input values the test-case generator uses for an op (its mathematical
 * domain), so checks exercise the interesting range. */
typedef enum pw_domain {
    PW_DOMAIN_ANY,      /* [-10, 10] plus 0, -0, +-inf, nan and integer extremes */
    PW_DOMAIN_POSITIVE, /* (0, 10] */
    PW_DOMAIN_UNIT,     /* (-1, 1) */
    PW_DOMAIN_GE1,      /* [1, 10] */
    PW_DOMAIN_SMALL,    /* [-3, 3] (exp-like growth, pow) */
    PW_DOMAIN_PROB,     /* (0, 1) */
    PW_DOMAIN_INDEX,    /* [0, 2]: index tensors of the checks (every dim has size >= 3) */
    PW_DOMAIN_NEGINDEX, /* [-3, -1]: indices counted from the end (Python wrap-around) */
    PW_DOMAIN_BEYOND    /* [1000, 1002]: indices past every check shape (error cases) */
} pw_domain;

/* A value handed to a reference function: the operand converted to the
 * reference compute type (double for floating computes, int64 for integer
 * and bool computes; ref/ref.h). */
typedef ref_value pw_value;

/* What a reference function knows about the call (ref/ref_pw.h). */
typedef ref_pw_ctx pw_ref_ctx;

/* Computes one element (ref/ref_pw.h's ref_pw_fn).  For a floating compute
 * the inputs and result are .f; for integer/bool computes .i, and the
 * reference wraps the result to the result dtype on store.  Results for
 * ALWAYS_BOOL ops are .i = 0/1. */
typedef ref_pw_fn pw_ref_fn;

typedef struct pw_op {
    const char *name;   /* "add"; also names the program on devices */
    int id;             /* dense index among registered pointwise ops */
    int n_in;
    int n_params;
    pw_role roles[PW_MAX_IN];
    pw_param_kind params[PW_MAX_PARAMS];
    const char *param_names[PW_MAX_PARAMS];
    pw_promotion promotion;
    uint32_t dtypes;    /* bit (1u << dtype) per accepted common dtype */
    /* OpenCL C expressions over a, b, c, d (operands, in their compute
     * type), p0..p3 (params) and the type macros of emit.c; one per dtype
     * class, NULL where `expr` (the default) applies. */
    const char *expr[PW_CLASS_COUNT];
    const char *expr_default;
    /* Extra OpenCL C helper functions the expressions call (may be NULL);
     * emitted once per program. */
    const char *helpers;
    /* The C reference of a user-registered op (clops_pointwise_register);
     * NULL for built-in ops, whose references ref/ owns (ref_pw_lookup). */
    pw_ref_fn ref;
    /* Reference computes floating ops in double unless set: then in the
     * compute dtype's own precision (for ops with discontinuities such as
     * floor_divide, where double and float legitimately differ). */
    bool ref_same_precision;
    /* Result-dtype override: when not CLOPS_DTYPE_NONE the result is this
     * dtype whatever the promotion says (e.g. signbit -> bool). */
    clops_dtype fixed_result;
    /* A scalar operand (a Python-style scalar, or a zero-dim tensor on the
     * CPU) joins in the compute dtype without being rounded to a
     * float16/bfloat16 common dtype first: PyTorch's CPU kernels of mul and
     * div (every rounding mode) read it with original_scalar_value, so
     * float16 x * 0.1 multiplies by float32 0.1 while x + 0.1 adds
     * float16 0.1 (tests/data/golden_binary.json, CONVERT_PAIRS). */
    bool scalar_opmath;
    /* The expression is one OpenCL built-in applied to `a` (exp(a)), which
     * OpenCL overloads for vectors: the CPU devices' contiguous path
     * evaluates it on a whole vector at once, so POCL calls its vectorised
     * math library instead of the scalar one per lane (emit.c). */
    bool lanewise;
    /* The floating-class expression is arithmetic on the operands, params
     * and literals only (+ - * / and casts of constants: "a + p0 * b"), so
     * it means the same on OpenCL vectors, lane by lane, bit for bit: the
     * CPU devices' contiguous path evaluates it on whole vectors, which
     * LLVM's SLP vectoriser failed to rebuild from the lanes on POCL 5.0
     * (emit.c). */
    bool vector_expr;
    /* A cast op (copy_, _to_copy): the output dtype is free and the compute
     * dtype is the output's; every (input, output) dtype pair is standard. */
    bool is_cast;
    /* Data of a user-registered op (clops_pointwise_register). */
    const void *user;
    /* For the case generator and checks. */
    pw_domain domain;
    /* Largest error allowed for a float32 compute against the double
     * reference, in float32 ULPs of the reference value (0 means 2).  Float16
     * and bfloat16 results allow 1 ULP of their own type plus this. */
    int ulp;
} pw_op;

/* One operand of a call: a tensor, or a scalar (a Python number, or a
 * zero-dim CPU tensor joining a device op, passed by value). */
typedef struct pw_operand {
    const clops_tensor *tensor; /* NULL for a scalar */
    clops_scalar scalar;
    bool is_cpu_scalar; /* scalar came from a zero-dim tensor: it promotes as a
                           zero-dim tensor of dtype scalar_dtype */
    clops_dtype scalar_dtype;
} pw_operand;

static inline pw_operand pw_tensor(const clops_tensor *t)
{
    pw_operand o = {0};
    o.tensor = t;
    o.scalar_dtype = CLOPS_DTYPE_NONE;
    return o;
}

static inline pw_operand pw_scalar(clops_scalar s)
{
    pw_operand o = {0};
    o.scalar = s;
    o.scalar_dtype = CLOPS_DTYPE_NONE;
    return o;
}

/* Optional knobs of a call. */
typedef struct pw_options {
    /* Force the compute/result dtype (casts): the result is `result` and
     * operands are converted to `compute`. CLOPS_DTYPE_NONE: promote. */
    clops_dtype result;
    clops_dtype compute;
    /* Name in messages ("add.Tensor"); defaults to op->name. */
    const char *opname;
    /* The destination's shape is the iteration shape and the operands must
     * broadcast to it (copy_, fill_), instead of out= resizing rules. */
    bool dst_defines_shape;
} pw_options;

/*
 * Runs op over operands.  For PW_FUNCTIONAL a new tensor is returned in
 * *out; for PW_INPLACE operand 0 is the destination (and *out receives a new
 * reference to it when out is not NULL); for PW_OUT `dst` is the destination.
 * params holds n_params scalars.  opts may be NULL.
 */
clops_status pw_run(const pw_op *op, pw_variant variant, const pw_operand *operands,
                    const clops_scalar *params, clops_tensor *dst, const pw_options *opts,
                    clops_tensor **out);

/* Frees the records of ops made by clops_pointwise_register (shutdown). */
void pw_user_ops_free(void);

/* The built-in identity op used for copies and casts (one COMMON operand,
 * every dtype). */
extern const pw_op pw_op_copy;

/* --- planning (plan.c) ---------------------------------------------------- */

/* The iteration space after broadcasting, reordering and coalescing. */
typedef struct pw_plan {
    int ndim;                         /* after coalescing (0 for one element) */
    int64_t numel;
    int64_t sizes[CLOPS_MAX_DIMS];    /* innermost dimension first */
    int n_tensors;                    /* output + tensor inputs */
    int64_t strides[PW_MAX_OPERANDS][CLOPS_MAX_DIMS]; /* per tensor, in elements */
    int64_t offsets[PW_MAX_OPERANDS];
    bool index64;                     /* some offset does not fit in int32 */
    bool contiguous;                  /* every tensor operand is contiguous over
                                         numel or uniform (all strides 0) */
    bool uniform[PW_MAX_OPERANDS];    /* operand reads one element (all strides 0) */
} pw_plan;

/* Broadcast shape of the tensor operands (PyTorch's rules and errors). */
clops_status pw_broadcast_shape(const char *opname, const clops_tensor *const *tensors, int n,
                                int *ndim, int64_t *sizes);

/* Strides for a new output of the given shape following the layout of the
 * inputs (PyTorch's stride-order rule: a transposed or channels-last input
 * gives an output laid out the same way). */
void pw_output_strides(const clops_tensor *const *inputs, int n_inputs, int ndim,
                       const int64_t *sizes, int64_t *strides);
/* The same for the result of a call that also has n_scalars scalar operands
 * (they are zero-dim operands of PyTorch's TensorIterator).  As there, an
 * empty result is contiguous when every operand has its shape; otherwise its
 * strides follow the inputs' order and may be 0 after a size-0 dim, exactly
 * as PyTorch's (`empty(2, 0, 1) + 1.0` has strides (0, 1, 0)). */
void pw_result_strides(const clops_tensor *const *inputs, int n_inputs, int n_scalars, int ndim,
                       const int64_t *sizes, int64_t *strides);

/* Builds the iteration plan over tensors[0] (the output) and the others, all
 * already broadcast-compatible with shape (ndim, sizes). */
clops_status pw_make_plan(const char *opname, const clops_tensor *const *tensors, int n, int ndim,
                          const int64_t *sizes, pw_plan *plan);

/* --- emission (emit.c) ---------------------------------------------------- */

/* Everything a device kernel is specialised on. */
typedef struct pw_spec {
    const pw_op *op;
    clops_dtype out_dtype;
    clops_dtype compute;
    /* The common dtype of the call.  Every COMMON operand is converted to it
     * before computing, as PyTorch does: when it is float16 or bfloat16 and
     * an operand has another dtype, the loaded value is rounded to it
     * (int16 2049 becomes 2048) before widening to the float compute. */
    clops_dtype common;
    clops_dtype in_dtype[PW_MAX_IN];   /* storage dtype of each operand */
    bool in_is_scalar[PW_MAX_IN];      /* passed by value */
    bool in_uniform[PW_MAX_IN];        /* tensor read at one element */
    int rank;                          /* 0 = contiguous fast path; 1..PW_SPEC_RANKS
                                          unrolled; PW_GENERIC_RANK = loop */
    bool index64;
} pw_spec;

#define PW_SPEC_RANKS 4
#define PW_GENERIC_RANK 15

/* Kernel entry-point name for a spec ("pw_add_f32_f32_f32__r2_i32"). */
void pw_kernel_name(const pw_spec *spec, char *buf, size_t cap);
/* Elements per work item of the contiguous fast path on device d (4, or 8
 * on CPU devices when every array has a 1- or 2-byte dtype). */
int pw_emit_vec_width(const pw_spec *spec, const clops_device *d);
/* The rank of the kernel for a plan: on GPUs 0 (the contiguous fast path),
 * the coalesced ndim up to PW_SPEC_RANKS (unrolled) or PW_GENERIC_RANK
 * beyond; PW_GENERIC_RANK for everything on CPU devices, whose one kernel
 * per signature has the fast path inside (emit.c says why). */
int pw_kernel_rank(const clops_device *d, bool contiguous, int ndim);
/* Appends the source of one kernel. */
clops_status pw_emit_kernel(const pw_spec *spec, const clops_device *d, strbuf *sb);
/* Appends the source of the program that holds spec's kernel, as the kit's
 * assembler writes it (ops/kit/kit.h): the shared prelude, the op's
 * helpers, and every kernel of spec's group. */
clops_status pw_emit_program(const pw_spec *spec, const clops_device *d, strbuf *sb);
/* Builds (or loads) the program of spec's kernel through the kit and
 * returns the kernel under key (errors prefixed with op). */
struct host_kkey;
struct host_kernel;
clops_status pw_build_kernel(clops_device *d, const struct host_kkey *key, const pw_spec *spec,
                             const char *op, struct host_kernel **out);
/* The "standard" spec of an op for one common dtype (all COMMON operands
 * of that dtype, the promoted output); false when the op refuses it. */
bool pw_standard_spec(const pw_op *op, clops_dtype common, int rank, bool index64, pw_spec *out);
bool pw_spec_is_standard(const pw_spec *s);
/* Whether this device groups all standard kernels of an op in one program
 * (devices with a large fixed cost per program build). */
bool pw_group_by_op(const clops_device *d);
/* Name of the program that holds spec's kernel on device d. */
void pw_program_name(const pw_spec *s, const clops_device *d, char *buf, size_t cap);
/* The reduced-precision float (float16 or bfloat16) operand j of spec s must
 * be rounded to after loading, or CLOPS_DTYPE_NONE: set for a COMMON operand
 * whose storage dtype differs from a float16/bfloat16 common dtype. */
clops_dtype pw_operand_rounding(const pw_spec *s, int j);
/* Dtype class of a dtype. */
pw_class pw_dtype_class(clops_dtype dt);

/* --- CPU reference values ------------------------------------------------ */

/* ref_load / ref_store (ref/ref.h) under the pointwise engine's names. */
static inline pw_value pw_ref_load(const void *base, int64_t index, clops_dtype dt,
                                   clops_dtype compute)
{
    return ref_load(base, index, dt, compute);
}
static inline void pw_ref_store(void *base, int64_t index, clops_dtype dt, clops_dtype compute,
                                pw_value v)
{
    ref_store(base, index, dt, compute, v);
}

#endif /* CLOPS_PW_H */
