/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tools/check/check_family.h: the family benchmark descriptors
 * (bench/cases/<family>.yaml, docs/benchmarks.md "Family benchmark
 * descriptors") and the one runner that materialises and calls their rows.
 *
 * A descriptor is data: per family its size symbols (how --scale shrinks
 * them), the size of the copy that gives the copy peak, and its rows; per
 * row an id, the op (a registry name: `sum.IntList_out`), a dtype, the
 * tensor arguments (shape, dtype, how to fill them, a view taken of them),
 * the other arguments by schema name, and optionally the byte, flop or key
 * model.  The same file is read by bench/torch_family.py, which calls the
 * same aten overloads with the same shapes, so both sides time one case
 * list (`--list` prints it on both sides; tests/test_bench_family.sh
 * compares them).
 *
 * The runner reuses the check engine's knowledge of every op (chk_opinfo:
 * argument roles, schema defaults; chk_value_from_hint for
 * the non-tensor arguments) and calls the op boxed through the dispatcher,
 * as `clops check` does.  Expressions (shapes, fill bounds, models) are
 * arithmetic over numbers and the size symbols: + - * / ( ), min(a, b),
 * max(a, b); sizes are the value truncated to an integer.
 */
#ifndef CLOPS_TOOLS_CHECK_FAMILY_H
#define CLOPS_TOOLS_CHECK_FAMILY_H

#include <stdbool.h>
#include <stddef.h>

#include "tools/check/check.h"

/* A family descriptor with its size symbols evaluated at one --scale. */
typedef struct chk_fam chk_fam;

/* Takes ownership of doc (the descriptor as JSON: YAML read by the
 * caller), checks its shape and evaluates the size symbols at `scale`
 * (below 1 is 1).  A malformed descriptor is CLOPS_INVALID_ARGUMENT naming
 * the row and field. */
clops_status chk_fam_open(cJSON *doc, double scale, chk_fam **out);
void chk_fam_free(chk_fam *f);

const char *chk_fam_name(const chk_fam *f);
int chk_fam_nrows(const chk_fam *f);
/* The row's id (the `case` of the JSON rows), its PyTorch-side name (the
 * id unless the row names another), its op and dtype names. */
const char *chk_fam_row_id(const chk_fam *f, int row);
const char *chk_fam_row_torch_case(const chk_fam *f, int row);
const char *chk_fam_row_op(const chk_fam *f, int row);
const char *chk_fam_row_dtype(const chk_fam *f, int row);
/* The size symbols "N=4096 M=262144" into buf. */
void chk_fam_sizes_text(const chk_fam *f, char *buf, size_t cap);
/* Elements of the float4 copy behind the copy peak (a multiple of 4). */
int64_t chk_fam_peak_elems(const chk_fam *f);

/* Evaluates an expression node (a number or a string) with the size
 * symbols. */
clops_status chk_fam_eval(const chk_fam *f, const cJSON *node, double *out);

/* The row as one line of `--list`: id, op, dtype, every tensor argument
 * with its evaluated shape and view, every other argument, the models;
 * the line bench/torch_family.py --list prints for the same row. */
clops_status chk_fam_row_text(const chk_fam *f, int row, char *buf, size_t cap);

/* A row materialised on one device, ready to be called repeatedly. */
typedef struct chk_fam_row chk_fam_row;

clops_status chk_fam_prepare(const chk_fam *f, int row, clops_device *dev, chk_fam_row **out);
/* One call; results are released (out= tensors keep what they got). */
clops_status chk_fam_call(chk_fam_row *r);
/* After at least one call: bytes, flop and keys per call from the row's
 * models (NAN where it has none).  Without a `bytes` model: every tensor
 * input read once (the logical elements of its view; an argument the row
 * names in `unread` counts nothing) and every output written
 * once (out= and in-place tensors, returned tensors of the last call). */
void chk_fam_model(const chk_fam_row *r, double *bytes, double *flop, double *keys);
void chk_fam_row_free(chk_fam_row *r);

#endif /* CLOPS_TOOLS_CHECK_FAMILY_H */
