/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ref/ref_pw.h: the CPU reference of the pointwise ops (ref/pointwise.c):
 * the CPU device runs it (codegen_pointwise/run.c hands it the call) and
 * the tests use it as the oracle of the generated OpenCL kernels.
 *
 * It knows nothing of the pointwise engine's plan or op records.  A call
 * names its scalar function (ref_pw_lookup: ref's own table, keyed by the
 * op's name) and gives the output tensor and each operand, a tensor or a
 * scalar value, with the dtypes the promotion chose; ref_pointwise walks
 * the output's index space in row-major order, broadcasting every operand
 * from its own sizes and strides, converts operands to the compute type
 * (ref/ref.h), calls the function and stores the result with PyTorch's
 * conversion rules.
 */
#ifndef CLOPS_REF_REF_PW_H
#define CLOPS_REF_REF_PW_H

#include <stdbool.h>

#include "core/tensor_impl.h"
#include "ref/ref.h"

#define REF_PW_MAX_IN 4     /* operands of one op */
#define REF_PW_MAX_PARAMS 4 /* scalar parameters of one op */

/* What a scalar function knows about the call. */
typedef struct ref_pw_ctx {
    clops_dtype compute;                    /* the compute dtype of the call */
    clops_dtype in_dtype[REF_PW_MAX_IN];    /* storage dtype of each operand */
    ref_value params[REF_PW_MAX_PARAMS];    /* converted like the operands (integer
                                               parameters: .i) */
    bool params_float;                      /* params hold .f (floating compute) */
    const void *user;                       /* a user-registered op's data */
} ref_pw_ctx;

/* Computes one element.  For a floating compute the inputs and the result
 * are .f (double, inputs already rounded to float32 when the compute is
 * not float64); for integer and bool computes .i, wrapped to the result
 * dtype on store.  Predicates return .i = 0 or 1. */
typedef ref_value (*ref_pw_fn)(const ref_pw_ctx *ctx, const ref_value *in);

/* The scalar function of the built-in pointwise op named name ("add",
 * "sqrt", "copy", ...), or NULL when ref has none. */
ref_pw_fn ref_pw_lookup(const char *name);

/* One operand of a call. */
typedef struct ref_pw_operand {
    const clops_tensor *t; /* host tensor broadcast to the output, or NULL */
    ref_value scalar;      /* t == NULL: the value, already in `compute` */
    clops_dtype compute;   /* the dtype t's elements are loaded in */
    clops_dtype round;     /* CLOPS_FLOAT16 or CLOPS_BFLOAT16: a loaded value
                              is rounded to it (the operand's conversion to a
                              reduced-precision common dtype); else
                              CLOPS_DTYPE_NONE */
} ref_pw_operand;

/* A call: out (host tensor, any strides) = fn(operands) element by
 * element.  result is the dtype fn's result is in: floating results are
 * rounded to float32 first unless it is float64, integer ones wrapped to
 * it, before the store converts to out's dtype. */
typedef struct ref_pw_call {
    const char *op; /* names the op in errors */
    ref_pw_fn fn;
    const ref_pw_ctx *ctx;
    clops_tensor *out;
    clops_dtype result;
    int n_in;
    ref_pw_operand in[REF_PW_MAX_IN];
} ref_pw_call;

/* Runs c.  CLOPS_INTERNAL when an operand does not broadcast to out's
 * shape (a caller's bug: the engine's shapes disagree with the op's). */
clops_status ref_pointwise(const ref_pw_call *c);

#endif /* CLOPS_REF_REF_PW_H */
