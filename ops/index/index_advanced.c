/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ops/index/index_advanced.c: index.Tensor, PyTorch's advanced indexing
 * (`self[i0, None, i2]` with index tensors), as one gather plan.
 *
 * The defined index tensors broadcast to one shape B.  When they address
 * adjacent dims, B replaces those dims in place; when None entries separate
 * them, B comes first and the unindexed dims follow (NumPy's rule, which
 * PyTorch follows).  int32 and int64 indices wrap negative values; a bool
 * (or uint8) mask of k dims stands for the k long index tensors of its
 * nonzero coordinates, the columns of nonzero(mask) (a device-side scan
 * and one read-back of the count: a synchronisation; docs/index.md).
 */
#include <stdlib.h>
#include <string.h>

#include "codegen_pointwise/pw.h"
#include "ops/index/index.h"
#include "ops/kernels_generated.h"

/* The k index tensors of a mask's true coordinates (mask addresses self's
 * dims first..first+mask->ndim-1, whose sizes it must match). */
clops_status ix_mask_to_indices(const clops_tensor *self, const clops_tensor *mask, int first,
                                clops_tensor **outs)
{
    int k = mask->ndim;
    for (int j = 0; j < k; j++)
        if (first + j >= self->ndim || mask->sizes[j] != self->sizes[first + j])
            return clops__fail(CLOPS_INDEX_OUT_OF_RANGE,
                               "index: The shape of the mask [%lld] at index %d does not match "
                               "the shape of the indexed tensor [%lld] at index %d",
                               (long long)mask->sizes[j], j,
                               first + j < self->ndim ? (long long)self->sizes[first + j] : 0LL,
                               first + j);
    clops_tensor *nz = NULL;
    clops_status st = ix_nonzero("index", (clops_tensor *)mask, &nz);
    for (int j = 0; j < k && st == CLOPS_OK; j++)
        st = core_select(nz, 1, j, &outs[j]);
    clops_tensor_release(nz);
    return st;
}

void ix_layout_free(ix_layout *L)
{
    for (int i = 0; i < L->nown; i++)
        clops_tensor_release(L->owned[i]);
    L->nown = 0;
}

clops_status ix_layout_make(const char *op, const clops_tensor *self, clops_tensor *const *indices,
                            int n, bool widen, ix_layout *L)
{
    memset(L, 0, sizeof *L);
    int dim = 0, first = -1, last = -1;
    bool any64 = false, any32 = false;
    clops_status st = CLOPS_OK;
    if (n > self->ndim)
        return clops__fail(CLOPS_INDEX_OUT_OF_RANGE,
                           "%s: too many indices for tensor of dimension %d (got %d)", op,
                           self->ndim, n);
    for (int i = 0; i < n && st == CLOPS_OK; i++) {
        clops_tensor *t = indices[i];
        if (!t) {
            dim++;
            continue;
        }
        st = ix_check_same_device(op, self, t);
        if (st == CLOPS_OK && (t->dtype == CLOPS_BOOL || t->dtype == CLOPS_UINT8)) {
            if (dim + t->ndim > self->ndim) {
                st = clops__fail(CLOPS_INDEX_OUT_OF_RANGE,
                                 "%s: too many indices for tensor of dimension %d", op,
                                 self->ndim);
                break;
            }
            st = ix_mask_to_indices(self, t, dim, L->owned + L->nown);
            if (st) {
                L->nown += t->ndim; /* release whatever was made */
                break;
            }
            for (int j = 0; j < t->ndim; j++) {
                L->idx[dim] = L->owned[L->nown++];
                first = first < 0 ? dim : first;
                last = dim++;
                L->nidx++;
            }
            any64 = true;
            continue;
        }
        if (st == CLOPS_OK && t->dtype != CLOPS_INT64 && t->dtype != CLOPS_INT32)
            st = clops__fail(CLOPS_INDEX_OUT_OF_RANGE,
                             "%s: tensors used as indices must be long, int, byte or bool "
                             "tensors, got %s",
                             op, clops_dtype_name(t->dtype));
        any64 |= t->dtype == CLOPS_INT64;
        any32 |= t->dtype == CLOPS_INT32;
        L->idx[dim] = t;
        first = first < 0 ? dim : first;
        last = dim++;
        L->nidx++;
    }
    /* Mixed widths: widen the int32 ones (the kernels take one index type). */
    for (int d = 0; d < self->ndim && st == CLOPS_OK && widen && any64 && any32; d++)
        if (L->idx[d] && L->idx[d]->dtype == CLOPS_INT32) {
            st = core_to_copy((clops_tensor *)L->idx[d], CLOPS_INT64, NULL, &L->owned[L->nown]);
            if (st == CLOPS_OK)
                L->idx[d] = L->owned[L->nown++];
        }
    const clops_tensor *list[CLOPS_MAX_DIMS];
    int nl = 0;
    for (int d = 0; d < self->ndim; d++)
        if (L->idx[d])
            list[nl++] = L->idx[d];
    if (st == CLOPS_OK && nl)
        st = pw_broadcast_shape(op, list, nl, &L->nb, L->bshape);
    bool adjacent = true;
    for (int d = first; d >= 0 && d <= last; d++)
        adjacent &= L->idx[d] != NULL;
    if (st == CLOPS_OK && self->ndim - L->nidx + L->nb > CLOPS_MAX_DIMS)
        st = clops__fail(CLOPS_INVALID_SHAPE, "%s: result has too many dims", op);
    if (st) {
        ix_layout_free(L);
        return st;
    }
    /* B first when separated; else where the indexed dims were. */
    L->bstart = (L->nidx && !adjacent) || first < 0 ? 0 : -1;
    for (int d = 0; d <= self->ndim; d++) {
        bool put_b = L->nidx && (adjacent ? d == first : d == 0);
        if (put_b) {
            L->bstart = L->nr;
            for (int j = 0; j < L->nb; j++, L->nr++) {
                L->rs[L->nr] = L->bshape[j];
                L->rmap[L->nr] = -1;
            }
        }
        if (d < self->ndim && !L->idx[d]) {
            L->rs[L->nr] = self->sizes[d];
            L->rmap[L->nr++] = d;
        }
    }
    return CLOPS_OK;
}

/* index.Tensor(self, indices): advanced indexing. */
clops_status ix_fn_index(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                         clops_tensor *const *indices, int indices_len, clops_tensor **out)
{
    const char *op = "index";
    ix_layout L;
    clops_status st = ix_layout_make(op, self, indices, indices_len, true, &L);
    if (st)
        return st;
    if (L.nidx > IX_MAXK)
        st = clops__fail(CLOPS_UNSUPPORTED, "%s: at most %d indexed dims are supported, got %d",
                         op, IX_MAXK, L.nidx);
    structured_call call;
    bool begun = false;
    if (st == CLOPS_OK) {
        clops_tensor *inputs[1 + CLOPS_MAX_DIMS];
        int ni = 0;
        inputs[ni++] = self;
        for (int i = 0; i < indices_len; i++)
            if (indices[i])
                inputs[ni++] = indices[i];
        st = structured_begin(&call, op, variant, dst, self->storage->device, self->dtype, L.nr,
                              L.rs, inputs, ni);
        begun = st == CLOPS_OK;
    }
    if (st == CLOPS_OK) {
        ix_plan p;
        int64_t src_st[CLOPS_MAX_DIMS] = {0};
        for (int r = 0; r < L.nr; r++)
            src_st[r] = L.rmap[r] >= 0 ? self->strides[L.rmap[r]] : 0;
        ix_plan_init(&p, op, call.target, self, src_st, self->offset);
        p.wrap = true;
        for (int d = 0; d < self->ndim && st == CLOPS_OK; d++) {
            const clops_tensor *t = L.idx[d];
            if (!t)
                continue;
            int64_t ist[CLOPS_MAX_DIMS] = {0};
            for (int j = 0; j < L.nb; j++) {
                int td = j - (L.nb - t->ndim);
                if (td >= 0 && t->sizes[td] != 1)
                    ist[L.bstart + j] = t->strides[td];
            }
            st = ix_plan_add_index(&p, t, ist, d, self->sizes[d], self->strides[d]);
        }
        if (st == CLOPS_OK)
            st = ix_gather_run(&p);
    }
    if (begun)
        st = structured_finish(&call, st, out);
    ix_layout_free(&L);
    return st;
}
