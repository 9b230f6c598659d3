/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ops/sort/sort_search.c: searchsorted and bucketize (dispatch/inventory/sort.yaml) on
 * sort_search_run (ops/sort/sort.c): argument checks with PyTorch's messages,
 * dtype promotion of values and boundaries, contiguous operands, and the
 * int64 or int32 result.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen_pointwise/promote.h"
#include "dispatch/structured.h"
#include "ops/tensor/tensor.h"
#include "ops/kernels_generated.h"
#include "ops/sort/sort.h"

/* Records "op: message (boundaries: ..., values: ...)". */
static clops_status search_fail(clops_status st, const char *op, const clops_tensor *bd,
                                const clops_tensor *v, const char *msg)
{
    char a[256], b[256];
    return clops__fail(st, "%s: %s (boundaries: %s, values: %s)", op, msg,
                       tensor_describe(bd, a, sizeof a), tensor_describe(v, b, sizeof b));
}

/* PyTorch's check of the sorter's values: every one in [0, nb), read on
 * the host (the kernels index the boundaries with them). */
static clops_status check_sorter(const char *op, clops_tensor *bd, clops_tensor *v,
                                 clops_tensor *cs)
{
    int64_t n = tensor_numel(cs), nb = bd->sizes[bd->ndim - 1];
    if (n == 0)
        return CLOPS_OK;
    int64_t *h = malloc((size_t)n * sizeof *h);
    if (!h)
        return CLOPS__HOST_OOM("searchsorted sorter");
    clops_status st = clops_tensor_to_host(cs, h, (size_t)n * sizeof *h);
    for (int64_t i = 0; st == CLOPS_OK && i < n; i++)
        if (h[i] < 0 || h[i] >= nb) {
            char msg[160];
            snprintf(msg, sizeof msg,
                     "sorter index out of range (sorter value %lld at %lld, %lld boundaries "
                     "per row)",
                     (long long)h[i], (long long)i, (long long)nb);
            st = search_fail(CLOPS_INDEX_OUT_OF_RANGE, op, bd, v, msg);
        }
    free(h);
    return st;
}

/* The checks and the search into dst (resized, of the result dtype). */
static clops_status search_into(const char *op, clops_tensor *bd, clops_tensor *v, bool out_int32,
                                bool right, const char *side, clops_tensor *sorter,
                                clops_tensor *dst)
{
    if (side && strcmp(side, "left") != 0 && strcmp(side, "right") != 0)
        return search_fail(CLOPS_INVALID_ARGUMENT, op, bd, v,
                           "side can only be 'left' or 'right'");
    if (side && strcmp(side, "left") == 0 && right)
        return search_fail(CLOPS_INVALID_ARGUMENT, op, bd, v,
                           "side and right can't be set to opposites, got side of left while "
                           "right was True");
    right = right || (side && strcmp(side, "right") == 0);
    bool ok = bd->ndim >= 1 && (bd->ndim == 1 || bd->ndim == v->ndim);
    for (int i = 0; ok && bd->ndim > 1 && i < bd->ndim - 1; i++)
        ok = bd->sizes[i] == v->sizes[i];
    if (!ok)
        return search_fail(CLOPS_INVALID_SHAPE, op, bd, v,
                           "boundaries tensor should be 1 dimension or the first N-1 dimensions "
                           "of boundaries tensor and input value tensor must match");
    if (sorter) {
        bool same = sorter->ndim == bd->ndim && sorter->dtype == CLOPS_INT64;
        for (int i = 0; same && i < bd->ndim; i++)
            same = sorter->sizes[i] == bd->sizes[i];
        if (!same)
            return search_fail(CLOPS_INVALID_ARGUMENT, op, bd, v,
                               "sorter must be an int64 tensor of the boundaries' shape");
    }
    clops_dtype rdt = out_int32 ? CLOPS_INT32 : CLOPS_INT64;
    if (dst->dtype != rdt) {
        char msg[160];
        snprintf(msg, sizeof msg,
                 "output tensor's dtype is wrong, it can only be Int(int32) or Long(int64) "
                 "depending on whether out_int32 flag is True (got %s)",
                 clops_dtype_name(dst->dtype));
        return search_fail(CLOPS_INVALID_DTYPE, op, bd, v, msg);
    }
    clops_status st = tensor_resize(dst, v->ndim, v->sizes);
    clops_tensor *ins[3] = {bd, v, sorter};
    if (st == CLOPS_OK)
        st = structured_check_overlap(op, dst, ins, 3);
    if (st)
        return st;
    if (tensor_numel(v) == 0)
        return CLOPS_OK;
    clops_dtype ct = pw_promote_types(bd->dtype, v->dtype);
    clops_tensor *cb = NULL, *cv = NULL, *cs = NULL, *res = NULL;
    clops_device *dev = v->storage->device;
    /* sort_search_run reads every operand in row-major memory order from
     * storage offset 0. */
    st = core_contiguous_as(bd, ct, &cb);
    if (st == CLOPS_OK)
        st = core_contiguous_as(v, ct, &cv);
    if (st == CLOPS_OK && sorter)
        st = core_contiguous_as(sorter, CLOPS_INT64, &cs);
    if (st == CLOPS_OK && cs)
        st = check_sorter(op, bd, v, cs);
    if (st == CLOPS_OK)
        st = tensor_new(dev, CLOPS_INT64, v->ndim, v->sizes, NULL, &res);
    if (st == CLOPS_OK)
        st = sort_search_run(cb, cv, cs, right, res);
    if (st == CLOPS_OK)
        st = core_copy_(dst, res, false);
    clops_tensor_release(cb);
    clops_tensor_release(cv);
    clops_tensor_release(cs);
    clops_tensor_release(res);
    return st;
}

/* A fresh result of the right dtype, then search_into. */
static clops_status search_fresh(const char *op, clops_tensor *bd, clops_tensor *v, bool out_int32,
                                 bool right, const char *side, clops_tensor *sorter,
                                 clops_tensor **out)
{
    clops_tensor *t = NULL;
    clops_status st = tensor_new(v->storage->device, out_int32 ? CLOPS_INT32 : CLOPS_INT64,
                                 v->ndim, v->sizes, NULL, &t);
    if (st == CLOPS_OK)
        st = search_into(op, bd, v, out_int32, right, side, sorter, t);
    if (st) {
        clops_tensor_release(t);
        return st;
    }
    *out = t;
    return CLOPS_OK;
}

/* A 0-dim tensor holding a Scalar on dev, in the dtype it takes next to a
 * tensor of dtype `with` (PyTorch's scalar promotion). */
static clops_status scalar_tensor(clops_device *dev, clops_scalar s, clops_dtype with,
                                  clops_tensor **out)
{
    clops_dtype dt = with;
    if (s.kind == CLOPS_SCALAR_FLOAT && !clops_dtype_is_floating(with))
        dt = CLOPS_FLOAT32;
    else if (s.kind == CLOPS_SCALAR_INT && with == CLOPS_BOOL)
        dt = CLOPS_INT64;
    clops_tensor *t = NULL;
    clops_status st = tensor_new(dev, dt, 0, NULL, NULL, &t);
    if (st == CLOPS_OK)
        st = tensor_fill(t, s);
    if (st) {
        clops_tensor_release(t);
        return st;
    }
    *out = t;
    return CLOPS_OK;
}

clops_status sort_searchsorted(clops_tensor *sorted_sequence, clops_tensor *self, bool out_int32,
                               bool right, const char *side, clops_tensor *sorter,
                               clops_tensor **out)
{
    return search_fresh("searchsorted", sorted_sequence, self, out_int32, right, side, sorter,
                        out);
}

clops_status sort_searchsorted_out(clops_tensor *sorted_sequence, clops_tensor *self,
                                   bool out_int32, bool right, const char *side,
                                   clops_tensor *sorter, clops_tensor *out)
{
    return search_into("searchsorted", sorted_sequence, self, out_int32, right, side, sorter,
                       out);
}

clops_status sort_searchsorted_scalar(clops_tensor *sorted_sequence, clops_scalar self,
                                      bool out_int32, bool right, const char *side,
                                      clops_tensor *sorter, clops_tensor **out)
{
    clops_tensor *v = NULL;
    clops_status st =
        scalar_tensor(sorted_sequence->storage->device, self, sorted_sequence->dtype, &v);
    if (st == CLOPS_OK && sorted_sequence->ndim != 1)
        st = search_fail(CLOPS_INVALID_SHAPE, "searchsorted", sorted_sequence, v,
                         "boundaries tensor must be 1 dimension for a scalar value");
    if (st == CLOPS_OK)
        st = search_fresh("searchsorted", sorted_sequence, v, out_int32, right, side, sorter, out);
    clops_tensor_release(v);
    return st;
}

clops_status sort_bucketize(clops_tensor *self, clops_tensor *boundaries, bool out_int32,
                            bool right, clops_tensor **out)
{
    if (boundaries->ndim != 1)
        return search_fail(CLOPS_INVALID_SHAPE, "bucketize", boundaries, self,
                           "boundaries tensor must be 1 dimension");
    return search_fresh("bucketize", boundaries, self, out_int32, right, NULL, NULL, out);
}

clops_status sort_bucketize_out(clops_tensor *self, clops_tensor *boundaries, bool out_int32,
                                bool right, clops_tensor *out)
{
    if (boundaries->ndim != 1)
        return search_fail(CLOPS_INVALID_SHAPE, "bucketize", boundaries, self,
                           "boundaries tensor must be 1 dimension");
    return search_into("bucketize", boundaries, self, out_int32, right, NULL, NULL, out);
}

clops_status sort_bucketize_scalar(clops_scalar self, clops_tensor *boundaries, bool out_int32,
                                   bool right, clops_tensor **out)
{
    clops_tensor *v = NULL;
    clops_status st = scalar_tensor(boundaries->storage->device, self, boundaries->dtype, &v);
    if (st == CLOPS_OK)
        st = sort_bucketize(v, boundaries, out_int32, right, out);
    clops_tensor_release(v);
    return st;
}
