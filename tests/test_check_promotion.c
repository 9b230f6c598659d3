/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/test_check_promotion.c: PyTorch's result dtypes through the real
 * registry.
 *
 * tests/data/type_promotion.jsonl holds PyTorch 2.11's answer for 4,290
 * (op, operands) combinations: operand kinds tensor (1-D), zerodim, and the
 * Python scalars pyint, pyfloat, pybool, with the result dtype or "error".
 * tests/test_promote.c replays them through the promotion functions; this
 * test replays them through the operators themselves on the CPU device, the
 * way a user's call goes: the overload is chosen from the operand kinds as
 * PyTorch's Python binding chooses it (a tensor or zero-dim tensor binds to
 * a Tensor parameter, a Python number to a Scalar parameter: add.Tensor or
 * add.Scalar, pow.Tensor_Tensor, pow.Tensor_Scalar or pow.Scalar; an op
 * without a Scalar overload, such as atan2 or maximum, has no overload for
 * a Python number and refuses it), the other arguments keep their
 * defaults, and the result's dtype must be PyTorch's, or the call must fail
 * where PyTorch refuses.  Every row must match.
 *
 * Python scalars are 2 (pyint), 2.5 (pyfloat) and True (pybool); tensors
 * hold ones.  The values matter only for pow's short cut (a bool tensor to
 * the power True stays bool), which PyTorch's data reflects.
 */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dispatch/dispatch.h"
#include "support/clops_test.h"

#define PROMOTION_FILE CLOPS_TEST_DATA_DIR "/type_promotion.jsonl"
#define PROMOTION_ROWS 4290

/* One operand of a row. */
typedef struct operand {
    enum { OP_TENSOR, OP_ZERODIM, OP_PYINT, OP_PYFLOAT, OP_PYBOOL } kind;
    clops_dtype dtype;
} operand;

/* Parses ["tensor", "int32"] / ["pyint", null]; false if malformed. */
static bool parse_operand(const cJSON *o, operand *out)
{
    const cJSON *k = cJSON_GetArrayItem(o, 0), *d = cJSON_GetArrayItem(o, 1);
    if (!cJSON_IsString(k))
        return false;
    out->dtype = CLOPS_DTYPE_NONE;
    if (strcmp(k->valuestring, "tensor") == 0 || strcmp(k->valuestring, "zerodim") == 0) {
        out->kind = k->valuestring[0] == 't' ? OP_TENSOR : OP_ZERODIM;
        return cJSON_IsString(d) && clops_dtype_from_name(d->valuestring, &out->dtype) == CLOPS_OK;
    }
    if (strcmp(k->valuestring, "pyint") == 0)
        out->kind = OP_PYINT;
    else if (strcmp(k->valuestring, "pyfloat") == 0)
        out->kind = OP_PYFLOAT;
    else if (strcmp(k->valuestring, "pybool") == 0)
        out->kind = OP_PYBOOL;
    else
        return false;
    return true;
}

/* "tensor int32", "pyfloat" for messages. */
static void operand_text(const operand *o, char *buf, size_t cap)
{
    static const char *const kinds[] = {"tensor", "zerodim", "pyint", "pyfloat", "pybool"};
    snprintf(buf, cap, "%s%s%s", kinds[o->kind], o->dtype == CLOPS_DTYPE_NONE ? "" : " ",
             o->dtype == CLOPS_DTYPE_NONE ? "" : clops_dtype_name(o->dtype));
}

/* Whether an operand binds to schema argument a (Tensor or Scalar). */
static bool binds(const operand *o, const schema_arg *a)
{
    bool is_tensor = o->kind == OP_TENSOR || o->kind == OP_ZERODIM;
    if (a->type.is_list || a->alias.present)
        return false;
    return is_tensor ? a->type.base == SCHEMA_TENSOR : a->type.base == SCHEMA_SCALAR;
}

/*
 * The overload of `name` PyTorch's binding would call with these operands:
 * a functional op (no in-place, no out=) whose first n positional arguments
 * take the operands and whose other arguments all have defaults; the one
 * with the fewest arguments when several fit.  NULL when none fits.
 */
static const clops_op *pick_overload(const char *name, const operand *ops, int n)
{
    const clops_op *best = NULL;
    size_t len = strlen(name);
    for (int i = 0; i < clops_op_count(); i++) {
        const clops_op *op = clops_op_at(i);
        const char *q = clops_op_name(op);
        if (strncmp(q, name, len) != 0 || (q[len] != '\0' && q[len] != '.'))
            continue;
        const op_schema *s = op->schema;
        bool ok = s->nargs >= n;
        for (int k = 0; ok && k < s->nargs; k++) {
            const schema_arg *a = &s->args[k];
            if (a->alias.present && a->alias.is_write)
                ok = false;
            else if (k < n)
                ok = !a->kwarg_only && binds(&ops[k], a);
            else
                ok = a->def.kind != SCHEMA_DEFAULT_NONE_GIVEN;
        }
        if (ok && (!best || s->nargs < best->schema->nargs))
            best = op;
    }
    return best;
}

/* A boxed operand (tensors are created on the CPU holding ones). */
static clops_value make_value(const operand *o, clops_tensor **owned)
{
    switch (o->kind) {
    case OP_PYINT:
        return clops_value_scalar(clops_scalar_int(2));
    case OP_PYFLOAT:
        return clops_value_scalar(clops_scalar_float(2.5));
    case OP_PYBOOL:
        return clops_value_scalar(clops_scalar_bool(true));
    default:
        break;
    }
    int64_t sizes[1] = {2};
    CT_OK(clops_ones(ct_cpu(), o->dtype, o->kind == OP_TENSOR ? 1 : 0, sizes, owned));
    return clops_value_tensor(*owned);
}

/* Every row of the file gives PyTorch's dtype (or refusal) through the
 * operators on the CPU device. */
static void test_every_row_matches_pytorch_through_the_registry(void **state)
{
    (void)state;
    FILE *f = fopen(PROMOTION_FILE, "r");
    CT_ASSERT_MSG(f != NULL, "cannot open %s", PROMOTION_FILE);
    char line[1024];
    int rows = 0, mismatches = 0;
    bool header = true;
    while (fgets(line, sizeof line, f)) {
        cJSON *row = cJSON_Parse(line);
        CT_ASSERT_MSG(row != NULL, "malformed line: %s", line);
        if (header) {
            header = false;
            cJSON_Delete(row);
            continue;
        }
        const cJSON *jop = cJSON_GetObjectItemCaseSensitive(row, "op");
        const cJSON *jres = cJSON_GetObjectItemCaseSensitive(row, "result");
        operand ops[2];
        int n = 0;
        const char *keys[2] = {"a", "b"};
        for (int k = 0; k < 2; k++) {
            const cJSON *o = cJSON_GetObjectItemCaseSensitive(row, keys[k]);
            if (!o)
                continue;
            CT_ASSERT_MSG(parse_operand(o, &ops[n]), "malformed operand in %s", line);
            n++;
        }
        CT_ASSERT(cJSON_IsString(jop) && cJSON_IsString(jres) && n > 0);
        const char *expected = jres->valuestring;
        const clops_op *op = pick_overload(jop->valuestring, ops, n);
        const char *got = "error";
        char detail[600] = "no overload takes these operands";
        if (op) {
            clops_tensor *owned[2] = {NULL, NULL};
            clops_value args[2];
            for (int k = 0; k < n; k++)
                args[k] = make_value(&ops[k], &owned[k]);
            clops_value ret = clops_value_none();
            clops_status st = clops_call_boxed(op, args, n, &ret, 1);
            if (st == CLOPS_OK && ret.tag == CLOPS_V_TENSOR) {
                got = clops_dtype_name(clops_tensor_dtype(ret.v.t));
                snprintf(detail, sizeof detail, "%s", clops_op_name(op));
            } else {
                snprintf(detail, sizeof detail, "%s: %s", clops_op_name(op),
                         st ? clops_last_error() : "no tensor result");
            }
            clops_value_clear(&ret);
            for (int k = 0; k < n; k++)
                clops_tensor_release(owned[k]);
        }
        if (strcmp(got, expected) != 0) {
            if (mismatches < 40) {
                char a[48], b[48] = "";
                operand_text(&ops[0], a, sizeof a);
                if (n > 1)
                    operand_text(&ops[1], b, sizeof b);
                print_error("row %d: %s(%s%s%s): PyTorch gives %s, clops %s (%s)\n", rows + 1,
                            jop->valuestring, a, n > 1 ? ", " : "", b, expected, got, detail);
            }
            mismatches++;
        }
        clops_clear_error();
        rows++;
        cJSON_Delete(row);
    }
    fclose(f);
    CT_ASSERT_MSG(rows == PROMOTION_ROWS, "%s has %d rows, expected %d", PROMOTION_FILE, rows,
                  PROMOTION_ROWS);
    CT_ASSERT_MSG(mismatches == 0, "%d of %d rows differ from PyTorch (the first 40 are listed)",
                  mismatches, rows);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_row_matches_pytorch_through_the_registry),
    };
    return cmocka_run_group_tests(tests, NULL, ct_teardown_group);
}
