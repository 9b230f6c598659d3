/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tools/check/check_suite.c: which ops a case set covers, and running all
 * cases of one op over dtypes and devices (chk_select_ops, chk_run_op).
 *
 * The representative set is a curated list of ops, one per kernel family
 * worth showing (each line says which), plus, for every tag that none of
 * them carries, the first op with that tag: an op family that lands later
 * (reductions, norms, indexing) is represented without editing this file.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/check/check_internal.h"

/* The curated part of the representative set. */
static const char *const representative_ops[] = {
    "add.Tensor",                /* binary arithmetic, pointwise engine */
    "add_.Tensor",               /* in-place variant machinery */
    "add.out",                   /* out= variant machinery */
    "mul.Scalar",                /* Scalar operand overloads */
    "div.Tensor_mode",           /* rounding modes (structured glue) */
    "remainder.Tensor",          /* integer semantics, sign rules */
    "pow.Tensor_Scalar",         /* value-dependent short cuts */
    "maximum",                   /* NaN propagation */
    "clamp",                     /* optional Scalar bounds */
    "lerp.Scalar",               /* ternary with a parameter */
    "addcmul",                   /* ternary pointwise */
    "where.self",                /* bool condition operand */
    "eq.Tensor",                 /* comparisons (always-bool results) */
    "logical_and",               /* logical ops */
    "bitwise_and.Tensor",        /* integer-only ops */
    "bitwise_left_shift.Tensor", /* shifts */
    "abs",                       /* unary, every dtype */
    "exp",                       /* transcendental, int-to-float */
    "log",                       /* positive domain */
    "sin",                       /* argument reduction */
    "sqrt",                      /* positive domain */
    "erf",                       /* special functions */
    "floor",                     /* rounding */
    "round.decimals",            /* rounding with a parameter */
    "isnan",                     /* classification (bool results) */
    "nan_to_num",                /* optional float parameters */
    "sigmoid",                   /* activations */
    "relu",
    "gelu",                      /* approximate= string modes */
    "silu",
    "softplus",
    "hardswish",
    "leaky_relu",
    "threshold_backward",        /* pointwise backward ops */
    "gelu_backward",
    "_to_copy",                  /* casts and copies */
    "clone",
    "copy_",
    "mm",                        /* matrix products: the GEMM engine (CLBlast for float64) */
    "addmm",
    "bmm",
    "linear",
    "convolution",               /* convolution: im2col/implicit GEMM, depthwise */
    "_fused_attention",          /* fused attention: FMA or tensor-core tiles */
    "max_pool2d_with_indices",   /* pooling with indices */
    "avg_pool2d",                /* window averages, ceil_mode/padding rules */
    "_adaptive_avg_pool2d",      /* adaptive windows */
    "upsample_bilinear2d",       /* resampling */
    "_softmax",                  /* row reductions fused with pointwise */
    "_log_softmax",
    "native_layer_norm",         /* normalisation: statistics + affine */
    "native_group_norm",
    "native_batch_norm",
    "rms_norm",
    "mean.dim",                  /* reductions over chosen dims */
    "amax",                      /* NaN-propagating reductions */
    "argmax",                    /* index-valued reductions, tie rules */
    "var.correction",            /* two-pass statistics */
    "topk",                      /* selection */
    "gather",                    /* indexing: gathers and scatters */
    "index_select",
    "scatter_add",
    "embedding",
    "index.Tensor",              /* advanced indexing with index lists */
    "index_put",
    "cat",                       /* concatenation of tensor lists */
    "masked_select",             /* data-dependent output sizes */
    "nll_loss_forward",          /* losses */
    "mse_loss",
    "transpose.int",             /* views */
    "zeros",                     /* factories */
    "arange.start_step",
};

/* Appends op to the list unless it is there; false on out-of-memory. */
static bool add_op(const clops_op ***ops, int *n, int *cap, const clops_op *op)
{
    for (int i = 0; i < *n; i++)
        if ((*ops)[i] == op)
            return true;
    if (*n == *cap) {
        int c = *cap ? 2 * *cap : 64;
        const clops_op **v = realloc(*ops, sizeof *v * (size_t)c);
        if (!v)
            return false;
        *ops = v;
        *cap = c;
    }
    (*ops)[(*n)++] = op;
    return true;
}

/* Whether a comma-separated tag list contains tag. */
static bool has_tag_in(const char *tags, const char *tag, size_t len)
{
    for (const char *p = tags; *p;) {
        size_t l = strcspn(p, ",");
        if (l == len && strncmp(p, tag, len) == 0)
            return true;
        p += l;
        if (*p == ',')
            p++;
    }
    return false;
}

/* Position of op in the registry (for sorting). */
static int op_position(const clops_op *op)
{
    return dispatch_op_id(op);
}

/* qsort order of ops by registry position. */
static int cmp_ops(const void *a, const void *b)
{
    int x = op_position(*(const clops_op *const *)a), y = op_position(*(const clops_op *const *)b);
    return (x > y) - (x < y);
}

clops_status chk_select_ops(const chk_selection *sel, const clops_op ***ops, int *n)
{
    clops_status st = dispatch_ensure_init();
    *ops = NULL;
    *n = 0;
    if (st)
        return st;
    int cap = 0, count = clops_op_count();
    bool ok = true;
    if (sel->set != CHK_SET_REPRESENTATIVE) {
        for (int i = 0; i < count && ok; i++) {
            const clops_op *op = clops_op_at(i);
            if (!sel->filter || sel->filter(op, sel->filter_ctx))
                ok = add_op(ops, n, &cap, op);
        }
    } else {
        for (size_t k = 0; k < sizeof representative_ops / sizeof representative_ops[0] && ok;
             k++) {
            const clops_op *op = NULL;
            if (clops_op_find(representative_ops[k], &op) == CLOPS_OK)
                ok = add_op(ops, n, &cap, op);
        }
        clops_clear_error();
        /* Every tag carried by some op gets one op. */
        for (int i = 0; i < count && ok; i++) {
            const char *tags = clops_op_tags(clops_op_at(i));
            for (const char *p = tags; *p && ok;) {
                size_t len = strcspn(p, ",");
                bool covered = false;
                for (int j = 0; j < *n && !covered; j++)
                    covered = has_tag_in(clops_op_tags((*ops)[j]), p, len);
                if (!covered)
                    ok = add_op(ops, n, &cap, clops_op_at(i));
                p += len;
                if (*p == ',')
                    p++;
            }
        }
        /* The predicate applies on top. */
        int m = 0;
        for (int i = 0; i < *n; i++)
            if (!sel->filter || sel->filter((*ops)[i], sel->filter_ctx))
                (*ops)[m++] = (*ops)[i];
        *n = m;
        if (*n > 1)
            qsort(*ops, (size_t)*n, sizeof **ops, cmp_ops);
    }
    if (!ok) {
        free(*ops);
        *ops = NULL;
        *n = 0;
        return clops__fail(CLOPS_HOST_OUT_OF_MEMORY, "check: op selection");
    }
    return CLOPS_OK;
}

/* Reports one result: through the callback and into the totals. */
static void report(const chk_callbacks *cb, chk_totals *totals, const chk_result *r)
{
    if (totals) {
        switch (r->status) {
        case CHK_PASS:
            totals->passed++;
            break;
        case CHK_FAIL:
            totals->failed++;
            break;
        case CHK_SKIP:
            totals->skipped++;
            break;
        default:
            totals->errors++;
            break;
        }
    }
    if (cb && cb->result)
        cb->result(cb->ctx, r);
}

/* Reports a skip of every case of a dtype (or of the op, dt NONE) on each
 * device. */
static void report_skip_all(const chk_opinfo *info, const char *dtype, clops_device *const *devs,
                            int ndev, const char *why, const chk_callbacks *cb,
                            chk_totals *totals)
{
    for (int k = 0; k < ndev; k++) {
        chk_result r;
        chk_result_init(&r, info->name, dtype, "(all cases)",
                        clops_device_get_info(devs[k])->index);
        r.status = CHK_SKIP;
        snprintf(r.message, sizeof r.message, "%s", why);
        report(cb, totals, &r);
    }
}

clops_status chk_run_op(const clops_op *op, chk_set set, uint32_t dtypes,
                        clops_device *const *devs, int ndev, const chk_callbacks *cb,
                        chk_totals *totals)
{
    chk_opinfo info;
    clops_status st = chk_opinfo_init(op, &info);
    if (st)
        return st;
    chk_result *res = calloc((size_t)(ndev > 0 ? ndev : 1), sizeof *res);
    if (!res) {
        chk_opinfo_free(&info);
        return clops__fail(CLOPS_HOST_OUT_OF_MEMORY, "check: results");
    }
    if (info.skip[0]) {
        report_skip_all(&info, "", devs, ndev, info.skip, cb, totals);
        goto done;
    }
    uint32_t mask = (dtypes ? dtypes : chk_set_dtypes(set)) & info.dtypes;
    for (int dt = 0; dt < CLOPS_DTYPE_COUNT && st == CLOPS_OK; dt++) {
        if (!(mask & (1u << dt)))
            continue;
        chk_case *cases = NULL;
        int n = 0;
        char why[256];
        st = chk_cases(&info, set, (clops_dtype)dt, &cases, &n, why, sizeof why);
        if (st)
            break;
        if (n == 0 && why[0])
            report_skip_all(&info, clops_dtype_name((clops_dtype)dt), devs, ndev, why, cb,
                            totals);
        for (int i = 0; i < n && st == CLOPS_OK; i++) {
            st = chk_run_case(&info, &cases[i], devs, ndev, res);
            if (st)
                break;
            bool refused = true;
            for (int k = 0; k < ndev; k++)
                refused &= res[k].dtype_refused;
            if (i == 0 && refused && ndev > 0) {
                /* The reference refuses the dtype: one line per device for
                 * every case, and the device must have refused it too. */
                for (int k = 0; k < ndev; k++) {
                    snprintf(res[k].case_name, sizeof res[k].case_name, "(all cases)");
                    report(cb, totals, &res[k]);
                }
                break;
            }
            for (int k = 0; k < ndev; k++)
                report(cb, totals, &res[k]);
        }
        free(cases);
        if (st == CLOPS_HOST_OUT_OF_MEMORY)
            break;
        if (st) {
            /* An engine failure on one dtype (a device lost, a read failed)
             * is recorded as an error of that dtype; the run goes on. */
            for (int k = 0; k < ndev; k++) {
                chk_result r;
                chk_result_init(&r, info.name, clops_dtype_name((clops_dtype)dt), "(engine)",
                                clops_device_get_info(devs[k])->index);
                r.status = CHK_ERROR;
                snprintf(r.message, sizeof r.message, "the check itself failed: %s: %s",
                         clops_status_name(st), clops_last_error());
                report(cb, totals, &r);
            }
            st = CLOPS_OK;
        }
    }
done:
    free(res);
    chk_opinfo_free(&info);
    return st;
}

void chk_print_result(FILE *f, const chk_result *r)
{
    clops_device *d = NULL;
    const char *label = "?";
    if (clops_device_get(r->device, &d) == CLOPS_OK)
        label = clops_device_label(d);
    fprintf(f, "%s %s %s [%s] on %s", r->status == CHK_PASS   ? "PASS"
                                      : r->status == CHK_FAIL ? "FAIL"
                                      : r->status == CHK_SKIP ? "SKIP"
                                                              : "ERROR",
            r->op, r->dtype, r->case_name, label);
    if (r->kernel != CHK_KERNEL_NONE)
        fprintf(f, " (%s %s)", chk_kernel_name(r->kernel), r->kernel_name);
    if (r->status == CHK_FAIL || r->status == CHK_ERROR)
        fprintf(f, ": max abs error %.3g, max ULP error %.3g", r->max_abs_err, r->max_ulp_err);
    if (r->message[0])
        fprintf(f, ": %s", r->message);
    fputc('\n', f);
}
