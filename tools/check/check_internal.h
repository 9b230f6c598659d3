/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tools/check/check_internal.h: what the files of the check engine share
 * with each other and nobody else.
 */
#ifndef CLOPS_TOOLS_CHECK_INTERNAL_H
#define CLOPS_TOOLS_CHECK_INTERNAL_H

#include "dispatch/dispatch.h"
#include "tools/check/check.h"

/* Built-in hints (JSON text) for an op without inventory hints, by base
 * name; NULL when there are none (check_known.c). */
const char *chk_known_hints(const char *op_name);

/* Whether a number node of info's hints was written as a float ("1.0"). */
bool chk_hint_is_float(const chk_opinfo *info, const cJSON *node);

/* The hint object member `key`, or NULL. */
const cJSON *chk_hint(const chk_opinfo *info, const char *key);

/* The values listed for argument `name` in the hints' "args", or NULL. */
const cJSON *chk_hint_arg_values(const chk_opinfo *info, const char *name);

/*
 * Fills a VALUE argument from a hint value (a JSON number, string, bool,
 * null or array of ints) according to the schema type of argument i.
 * false with a reason when the value does not fit the type.
 */
bool chk_value_from_hint(const chk_opinfo *info, int i, const cJSON *v, chk_argval *out,
                         char *why, size_t cap);

/*
 * The value a VALUE argument takes when neither a hint nor a default gives
 * one (check_args.c): by name and type, relative to the case's first
 * tensor input (`self`, may be NULL) and dtype.  false with a reason when
 * the engine has no sensible value (the op then needs a hint).
 */
bool chk_value_generic(const chk_opinfo *info, int i, const chk_tspec *self, clops_dtype dt,
                       bool factory, chk_argval *out, char *why, size_t cap);

/* The schema default of argument i as a VALUE (false when it has none). */
bool chk_value_default(const chk_opinfo *info, int i, chk_argval *out);

/* "exponent=0.5", "rounding_mode=None" into buf, for case names. */
void chk_value_text(const chk_opinfo *info, int i, const chk_argval *a, char *buf, size_t cap);


/* A case materialised on one device for repeated calls (check_run.c). */
typedef struct chk_prepared chk_prepared;
/* out= shapes come from the functional op run on the device itself when
 * resolve_on_device (benchmarks: large inputs), else on the CPU. */
clops_status chk_prepare(const chk_opinfo *info, const chk_case *c, clops_device *dev,
                         bool resolve_on_device, chk_prepared **out);
/* One call (results released); *out_bytes (may be NULL) receives the bytes
 * of the outputs. */
clops_status chk_prepared_call(chk_prepared *p, bool sync, double *out_bytes);
/* Bytes of the case's tensor inputs (an expanded input counts its base; an
 * input the `unread` hint names counts nothing). */
double chk_prepared_input_bytes(const chk_prepared *p);
void chk_prepared_free(chk_prepared *p);
/* The call p makes, as the object of one case of the torch-cases document
 * (docs/json-format.md#torch-cases): per schema argument its name and
 * kind, a tensor's dtype, sizes, strides, role and value domain as
 * materialised on the device, a value's contents.  NULL when out of
 * memory. */
cJSON *chk_prepared_json(const chk_prepared *p);

/* --- runs and verdicts (check_run.c, check_verdict.c) --------------------------- */

#define CHK_MAX_OUTPUTS (CHK_MAX_ARGS + 8)
/* Random values per tensor; larger tensors repeat them. */
#define CHK_FILL_BLOCK 65536

/* One output of a run, on the host. */
typedef struct chk_output {
    char what[64];          /* "result 0", "self (in place)", "out" */
    bool is_tensor;
    bool check_strides;     /* a fresh result: its layout must match */
    clops_dtype dtype;
    int ndim;
    int64_t sizes[CLOPS_MAX_DIMS];
    int64_t strides[CLOPS_MAX_DIMS];
    void *data;             /* row-major values (malloc'd) */
    clops_value scalar;     /* non-tensor result */
} chk_output;

typedef struct chk_outputs {
    int n;
    chk_output o[CHK_MAX_OUTPUTS];
    bool guards_ok;
    char guard_msg[640];
} chk_outputs;

/* What a run produced. */
typedef struct chk_run_result {
    clops_status op_status;  /* the op's own status */
    char op_msg[768];        /* its error message */
    chk_outputs outs;
    chk_kernel kernel;
    char kernel_name[96];
    double seconds;
} chk_run_result;

/* Judges a device run (dev) against the reference run of the same case
 * (its outputs and status), filling res (status, errors, message,
 * kernel). */
void chk_verdict(const chk_opinfo *info, const chk_case *c, const chk_outputs *ref_outs,
                 clops_status ref_status, const char *ref_msg, const chk_run_result *dev,
                 chk_result *res);

#endif /* CLOPS_TOOLS_CHECK_INTERNAL_H */
