/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tools/check/check_verdict.c: judging a device run against the reference
 * run of the same case (chk_verdict): which refusals are skips and which are
 * failures, and the comparison of every output (count, dtype, shape, the
 * strides of fresh results, values within the tolerance, guard bytes).  The
 * rules are listed in check_run.c's header and in docs/cli.md.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tools/check/check_internal.h"

/* The reduction length of case c (0: the op is not a reduction). */
static int64_t reduce_len(const chk_opinfo *info, const chk_case *c)
{
    if (info->reduce_arg < 0 || info->reduce_arg >= c->nargs)
        return 0;
    const chk_tspec *t = &c->args[info->reduce_arg].t;
    if (info->reduce_dim == CHK_REDUCE_ALL)
        return chk_numel(t->ndim, t->sizes);
    int d = info->reduce_dim < 0 ? t->ndim + info->reduce_dim : info->reduce_dim;
    if (d < 0 || d >= t->ndim)
        return 0;
    return t->sizes[d] > 0 ? t->sizes[d] : 0;
}

/* The largest value bound of the case's floating inputs. */
static double input_bound(const chk_opinfo *info, const chk_case *c)
{
    double b = 0;
    for (int i = 0; i < c->nargs; i++)
        if (c->args[i].role == CHK_ROLE_INPUT || c->args[i].role == CHK_ROLE_MUTATED)
            b = fmax(b, chk_domain_bound(c->args[i].t.domain));
    (void)info;
    return b > 0 ? b : 1;
}

/* Whether two outputs of one shape have the same strides in every dim of
 * size > 1 (what a layout is; size-1 dims may have any stride). */
static bool same_layout(const chk_output *a, const chk_output *b)
{
    int64_t n = chk_numel(a->ndim, a->sizes);
    if (n <= 1)
        return true;
    for (int i = 0; i < a->ndim; i++)
        if (a->sizes[i] > 1 && a->strides[i] != b->strides[i])
            return false;
    return true;
}

/* Appends text to a result's message. */
static void msg_append(chk_result *res, const char *fmt, const char *a, const char *b)
{
    size_t len = strlen(res->message);
    snprintf(res->message + len, sizeof res->message - len, fmt, a, b);
}

/* Compares a device run's outputs with the reference's; fills res. */
static void judge(const chk_opinfo *info, const chk_case *c, const chk_outputs *ref,
                  const chk_outputs *dev, chk_result *res)
{
    res->status = CHK_PASS;
    res->max_abs_err = 0;
    res->max_ulp_err = NAN;
    if (!dev->guards_ok) {
        res->status = CHK_FAIL;
        snprintf(res->message, sizeof res->message, "%s", dev->guard_msg);
    }
    if (!ref->guards_ok) {
        res->status = CHK_FAIL;
        msg_append(res, "%sthe reference %s", res->message[0] ? "; " : "", ref->guard_msg);
    }
    if (ref->n != dev->n) {
        res->status = CHK_FAIL;
        size_t len = strlen(res->message);
        snprintf(res->message + len, sizeof res->message - len,
                 "%sthe device produced %d outputs, the reference %d", len ? "; " : "", dev->n,
                 ref->n);
        return;
    }
    int64_t k = reduce_len(info, c);
    double bound = input_bound(info, c);
    for (int i = 0; i < ref->n; i++) {
        const chk_output *r = &ref->o[i], *d = &dev->o[i];
        char rs[600], ds[600];
        if (r->is_tensor != d->is_tensor) {
            res->status = CHK_FAIL;
            msg_append(res, "%s%s: a tensor on one side only", res->message[0] ? "; " : "",
                       r->what);
            continue;
        }
        if (!r->is_tensor) {
            double a = 0, e = 0;
            bool fl = r->scalar.tag == CLOPS_V_SCALAR && r->scalar.v.s.kind == CLOPS_SCALAR_FLOAT;
            if (r->scalar.tag == CLOPS_V_SCALAR && d->scalar.tag == CLOPS_V_SCALAR) {
                e = clops_scalar_to_double(r->scalar.v.s);
                a = clops_scalar_to_double(d->scalar.v.s);
            } else if (r->scalar.tag == CLOPS_V_INT && d->scalar.tag == CLOPS_V_INT) {
                e = (double)r->scalar.v.i, a = (double)d->scalar.v.i;
            } else if (r->scalar.tag == CLOPS_V_FLOAT && d->scalar.tag == CLOPS_V_FLOAT) {
                e = r->scalar.v.f, a = d->scalar.v.f, fl = true;
            } else if (r->scalar.tag == CLOPS_V_BOOL && d->scalar.tag == CLOPS_V_BOOL) {
                e = r->scalar.v.b, a = d->scalar.v.b;
            } else if (r->scalar.tag != d->scalar.tag) {
                res->status = CHK_FAIL;
                msg_append(res, "%s%s: values of different kinds", res->message[0] ? "; " : "",
                           r->what);
                continue;
            }
            ulp_tol tol = chk_tolerance(c->dtype, info->ulp, info->atol, 0, 1);
            bool ok = fl ? ulp_close(CLOPS_FLOAT64, a, e, &tol) || ulp_close(c->dtype, a, e, &tol)
                         : a == e || (isnan(a) && isnan(e));
            if (isfinite(a) && isfinite(e))
                res->max_abs_err = fmax(res->max_abs_err, fabs(a - e));
            if (!ok) {
                res->status = CHK_FAIL;
                snprintf(rs, sizeof rs, "%.17g", e);
                snprintf(ds, sizeof ds, "%.17g", a);
                size_t len = strlen(res->message);
                snprintf(res->message + len, sizeof res->message - len,
                         "%s%s: got %s, the reference %s", len ? "; " : "", r->what, ds, rs);
            }
            continue;
        }
        bool same_shape = r->ndim == d->ndim &&
                          (r->ndim == 0 || memcmp(r->sizes, d->sizes,
                                                  sizeof(int64_t) * (size_t)r->ndim) == 0);
        if (r->dtype != d->dtype || !same_shape) {
            res->status = CHK_FAIL;
            size_t len = strlen(res->message);
            clops__fmt_shape(rs, sizeof rs, r->ndim, r->sizes);
            clops__fmt_shape(ds, sizeof ds, d->ndim, d->sizes);
            snprintf(res->message + len, sizeof res->message - len,
                     "%s%s: the device gave %s%s, the reference %s%s", len ? "; " : "", r->what,
                     clops_dtype_name(d->dtype), ds, clops_dtype_name(r->dtype), rs);
            continue;
        }
        if (r->check_strides && d->check_strides && !same_layout(r, d)) {
            res->status = CHK_FAIL;
            size_t len = strlen(res->message);
            clops__fmt_shape(rs, sizeof rs, r->ndim, r->strides);
            clops__fmt_shape(ds, sizeof ds, d->ndim, d->strides);
            snprintf(res->message + len, sizeof res->message - len,
                     "%s%s: strides %s differ from the reference's %s", len ? "; " : "", r->what,
                     ds, rs);
        }
        ulp_tol tol = chk_tolerance(r->dtype, info->ulp, info->atol, k, bound);
        chk_cmp cmp;
        bool ok = chk_compare_host(d->data, r->data, r->dtype, r->ndim, r->sizes, &tol, &cmp);
        res->max_abs_err = fmax(res->max_abs_err, cmp.max_abs_err);
        if (clops_dtype_is_floating(r->dtype))
            res->max_ulp_err = isnan(res->max_ulp_err) ? cmp.max_ulp_err
                                                       : fmax(res->max_ulp_err, cmp.max_ulp_err);
        if (!ok) {
            res->status = CHK_FAIL;
            size_t len = strlen(res->message);
            char shape[CLOPS_MAX_DIMS * 22 + 4];
            clops__fmt_shape(shape, sizeof shape, r->ndim, r->sizes);
            if (clops_dtype_is_floating(r->dtype))
                snprintf(res->message + len, sizeof res->message - len,
                         "%s%s: %lld of %lld elements of %s%s differ (tolerance %.3g ULP, atol "
                         "%.3g); max abs error %.3g, max ULP error %.3g:%s",
                         len ? "; " : "", r->what, (long long)cmp.mismatches,
                         (long long)cmp.numel, clops_dtype_name(r->dtype), shape, tol.ulp,
                         tol.atol, cmp.max_abs_err, cmp.max_ulp_err, cmp.detail);
            else
                snprintf(res->message + len, sizeof res->message - len,
                         "%s%s: %lld of %lld elements of %s%s differ (exact comparison):%s",
                         len ? "; " : "", r->what, (long long)cmp.mismatches,
                         (long long)cmp.numel, clops_dtype_name(r->dtype), shape, cmp.detail);
        }
    }
}

/* Whether a status means "the device lacks what this needs". */
static bool is_capability(clops_status st)
{
    return st == CLOPS_UNSUPPORTED;
}

/* The verdict of one device run (see the file comment). */
void chk_verdict(const chk_opinfo *info, const chk_case *c, const chk_outputs *ref_outs,
                 clops_status ref_status, const char *ref_msg, const chk_run_result *dev,
                 chk_result *res)
{
    res->kernel = dev->kernel;
    snprintf(res->kernel_name, sizeof res->kernel_name, "%s", dev->kernel_name);
    res->seconds = dev->seconds;
    if (ref_status == CLOPS_INVALID_DTYPE) {
        res->dtype_refused = true;
        if (dev->op_status == CLOPS_OK) {
            res->status = CHK_FAIL;
            snprintf(res->message, sizeof res->message,
                     "the device accepted dtype %s, which the reference refuses (%s)",
                     c->dtype_label, ref_msg);
        } else {
            res->status = CHK_SKIP;
            res->kernel = CHK_KERNEL_NONE;
            snprintf(res->message, sizeof res->message, "not supported for dtype %s: %s",
                     c->dtype_label, ref_msg);
        }
        return;
    }
    if (c->expect_refusal) {
        bool same = ref_status != CLOPS_OK && dev->op_status == ref_status;
        res->status = same ? CHK_PASS : CHK_FAIL;
        res->kernel = CHK_KERNEL_NONE;
        if (same)
            snprintf(res->message, sizeof res->message, "refused as it must be: %s", dev->op_msg);
        else if (ref_status == CLOPS_OK)
            snprintf(res->message, sizeof res->message,
                     "the reference accepted an out-of-range case (a check bug)");
        else
            snprintf(res->message, sizeof res->message,
                     "an out-of-range case must be refused with %s (%s), the device gave %s%s%s",
                     clops_status_name(ref_status), ref_msg, clops_status_name(dev->op_status),
                     dev->op_status ? ": " : "", dev->op_status ? dev->op_msg : "");
        return;
    }
    if (ref_status != CLOPS_OK) {
        if (dev->op_status == CLOPS_OK) {
            res->status = CHK_FAIL;
            snprintf(res->message, sizeof res->message,
                     "the device accepted a call the reference refuses (%s: %s)",
                     clops_status_name(ref_status), ref_msg);
        } else {
            res->status = CHK_SKIP;
            res->kernel = CHK_KERNEL_NONE;
            snprintf(res->message, sizeof res->message, "refused by the reference%s: %s",
                     dev->op_status == ref_status ? " and the device" : "", ref_msg);
        }
        return;
    }
    if (is_capability(dev->op_status)) {
        res->status = CHK_SKIP;
        snprintf(res->message, sizeof res->message, "%s", dev->op_msg);
        return;
    }
    if (dev->op_status == CLOPS_INVALID_DTYPE) {
        res->status = CHK_FAIL;
        snprintf(res->message, sizeof res->message,
                 "the device refuses dtype %s, which the reference accepts: %s", c->dtype_label,
                 dev->op_msg);
        return;
    }
    if (dev->op_status != CLOPS_OK) {
        res->status = CHK_ERROR;
        snprintf(res->message, sizeof res->message, "%s: %s", clops_status_name(dev->op_status),
                 dev->op_msg);
        return;
    }
    judge(info, c, ref_outs, &dev->outs, res);
}
