/*
 * ops/index_advanced.c: index.Tensor, PyTorch's advanced indexing
 * (`self[i0, None, i2]` with index tensors), as one gather plan.
 *
 * The defined index tensors broadcast to one shape B.  When they address
 * adjacent dims, B replaces those dims in place; when None entries separate
 * them, B comes first and the unindexed dims follow (NumPy's rule, which
 * PyTorch follows).  int32 and int64 indices wrap negative values; a bool
 * (or uint8) mask of k dims stands for the k long index tensors of its
 * nonzero coordinates, which are found on the host here (one read of the
 * mask: a synchronisation; docs/index.md).
 */
#include <stdlib.h>
#include <string.h>

#include "codegen_pointwise/pw.h"
#include "ops/index.h"
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
    int64_t *m = NULL, n = 0;
    clops_status st = ix_read_int_elems(mask, &m, &n);
    if (st)
        return st;
    int64_t count = 0;
    for (int64_t i = 0; i < n; i++)
        count += m[i] != 0;
    int64_t *coords = malloc((size_t)(count * (k ? k : 1) + 1) * sizeof *coords);
    if (!coords) {
        free(m);
        return clops__fail(CLOPS_HOST_OUT_OF_MEMORY, "index: out of host memory");
    }
    int64_t w = 0;
    for (int64_t i = 0; i < n; i++) {
        if (!m[i])
            continue;
        int64_t rem = i;
        for (int j = k - 1; j >= 0; j--) {
            coords[(int64_t)j * count + w] = rem % mask->sizes[j];
            rem /= mask->sizes[j];
        }
        w++;
    }
    free(m);
    for (int j = 0; j < k && st == CLOPS_OK; j++)
        st = clops_from_host(self->storage->device, CLOPS_INT64, 1, &count, coords + (int64_t)j * count,
                             (size_t)count * sizeof(int64_t), &outs[j]);
    free(coords);
    return st;
}

/* index.Tensor(self, indices): advanced indexing. */
clops_status ix_fn_index(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                         clops_tensor *const *indices, int indices_len, clops_tensor **out)
{
    const char *op = "index";
    clops_tensor *owned[CLOPS_MAX_DIMS] = {NULL};
    clops_tensor *idx[CLOPS_MAX_DIMS] = {NULL}; /* per self dim, NULL = not indexed */
    int nown = 0, dim = 0, nidx = 0, first = -1, last = -1;
    bool any64 = false, any32 = false;
    clops_status st = CLOPS_OK;
    if (indices_len > self->ndim)
        return clops__fail(CLOPS_INDEX_OUT_OF_RANGE,
                           "%s: too many indices for tensor of dimension %d (got %d)", op,
                           self->ndim, indices_len);
    for (int i = 0; i < indices_len && st == CLOPS_OK; i++) {
        clops_tensor *t = indices[i];
        if (!t) {
            dim++;
            continue;
        }
        if (t->dtype == CLOPS_BOOL || t->dtype == CLOPS_UINT8) {
            if (dim + t->ndim > self->ndim) {
                st = clops__fail(CLOPS_INDEX_OUT_OF_RANGE,
                                 "%s: too many indices for tensor of dimension %d", op,
                                 self->ndim);
                break;
            }
            st = ix_mask_to_indices(self, t, dim, owned + nown);
            for (int j = 0; j < t->ndim && st == CLOPS_OK; j++) {
                idx[dim] = owned[nown++];
                if (first < 0)
                    first = dim;
                last = dim++;
                nidx++;
                any64 = true;
            }
            if (st)
                nown += t->ndim; /* release whatever was made */
            continue;
        }
        if (t->dtype != CLOPS_INT64 && t->dtype != CLOPS_INT32) {
            st = clops__fail(CLOPS_INDEX_OUT_OF_RANGE,
                             "%s: tensors used as indices must be long, int, byte or bool "
                             "tensors, got %s",
                             op, clops_dtype_name(t->dtype));
            break;
        }
        st = ix_check_same_device(op, self, t);
        any64 |= t->dtype == CLOPS_INT64;
        any32 |= t->dtype == CLOPS_INT32;
        idx[dim] = t;
        if (first < 0)
            first = dim;
        last = dim++;
        nidx++;
    }
    if (st == CLOPS_OK && nidx > IX_MAXK)
        st = clops__fail(CLOPS_UNSUPPORTED, "%s: at most %d indexed dims are supported, got %d",
                         op, IX_MAXK, nidx);
    /* Mixed widths: widen the int32 ones. */
    for (int d = 0; d < self->ndim && st == CLOPS_OK && any64 && any32; d++)
        if (idx[d] && idx[d]->dtype == CLOPS_INT32) {
            st = core_to_copy(idx[d], CLOPS_INT64, NULL, &owned[nown]);
            if (st == CLOPS_OK)
                idx[d] = owned[nown++];
        }
    /* Broadcast shape of the indices. */
    const clops_tensor *list[CLOPS_MAX_DIMS];
    int nl = 0, nb = 0;
    int64_t bshape[CLOPS_MAX_DIMS];
    for (int d = 0; d < self->ndim; d++)
        if (idx[d])
            list[nl++] = idx[d];
    if (st == CLOPS_OK && nl)
        st = pw_broadcast_shape(op, list, nl, &nb, bshape);
    if (st == CLOPS_OK && nidx == 0) {
        /* x[None, ...] style: a view-like copy of self. */
        nb = 0;
    }
    bool adjacent = true;
    for (int d = first; d >= 0 && d <= last; d++)
        if (!idx[d])
            adjacent = false;
    /* Result shape and where B sits in it. */
    int64_t sizes[CLOPS_MAX_DIMS];
    int rmap[CLOPS_MAX_DIMS]; /* result dim -> self dim, or -1 inside B */
    int ndim = 0;
    if (st == CLOPS_OK && self->ndim - nidx + nb > CLOPS_MAX_DIMS)
        st = clops__fail(CLOPS_INVALID_SHAPE, "%s: result has too many dims", op);
    if (st == CLOPS_OK) {
        if (nidx && !adjacent) {
            for (int j = 0; j < nb; j++, ndim++) {
                sizes[ndim] = bshape[j];
                rmap[ndim] = -1;
            }
            for (int d = 0; d < self->ndim; d++)
                if (!idx[d]) {
                    sizes[ndim] = self->sizes[d];
                    rmap[ndim++] = d;
                }
        } else {
            for (int d = 0; d < self->ndim; d++) {
                if (d == first)
                    for (int j = 0; j < nb; j++, ndim++) {
                        sizes[ndim] = bshape[j];
                        rmap[ndim] = -1;
                    }
                if (!idx[d]) {
                    sizes[ndim] = self->sizes[d];
                    rmap[ndim++] = d;
                }
            }
        }
    }
    structured_call call;
    bool begun = false;
    if (st == CLOPS_OK) {
        clops_tensor *inputs[1 + CLOPS_MAX_DIMS];
        int ni = 0;
        inputs[ni++] = self;
        for (int i = 0; i < indices_len; i++)
            if (indices[i])
                inputs[ni++] = indices[i];
        st = structured_begin(&call, op, variant, dst, self->storage->device, self->dtype, ndim,
                              sizes, inputs, ni);
        begun = st == CLOPS_OK;
    }
    if (st == CLOPS_OK) {
        ix_plan p;
        int64_t src_st[CLOPS_MAX_DIMS] = {0};
        for (int r = 0; r < ndim; r++)
            src_st[r] = rmap[r] >= 0 ? self->strides[rmap[r]] : 0;
        ix_plan_init(&p, op, call.target, self, src_st, self->offset);
        p.wrap = true;
        for (int d = 0; d < self->ndim && st == CLOPS_OK; d++) {
            if (!idx[d])
                continue;
            const clops_tensor *t = idx[d];
            int64_t ist[CLOPS_MAX_DIMS] = {0};
            for (int r = 0, j = 0; r < ndim; r++) {
                if (rmap[r] >= 0)
                    continue;
                int td = j - (nb - t->ndim);
                if (td >= 0 && t->sizes[td] != 1)
                    ist[r] = t->strides[td];
                j++;
            }
            st = ix_plan_add_index(&p, t, ist, d, self->sizes[d], self->strides[d]);
        }
        if (st == CLOPS_OK)
            st = ix_gather_run(&p);
    }
    if (begun)
        st = structured_finish(&call, st, out);
    for (int i = 0; i < nown; i++)
        clops_tensor_release(owned[i]);
    return st;
}
