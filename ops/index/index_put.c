/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ops/index/index_put.c: index_put_ (advanced-indexing assignment, with
 * accumulate) and put_ (flat indices), as segment plans (ops/index/index.h).
 *
 * index_put_ resolves its indices as index.Tensor does (masks become long
 * indices, the index tensors broadcast to one shape B, which sits where the
 * indexed dims were when they are adjacent and first otherwise), broadcasts
 * values to the indexed result's shape, and makes one entry per element of
 * B: the self element its index tuple names (negative values wrap) and the
 * matching values row; the dims that are not indexed are the inner dims
 * every entry walks.  With accumulate, duplicate tuples sum in order;
 * without, the last one wins.  (masked_scatter is a compaction:
 * ops/index/index_nonzero.c.)
 */
#include <stdlib.h>
#include <string.h>

#include "codegen_pointwise/pw.h"
#include "ops/index/index.h"
#include "ops/kernels_generated.h"

/* Broadcast strides of a tensor of shape (ndim, sizes) with contiguous
 * strides over a shape of rank nb (aligned right, 0 where it broadcasts). */
static void bcast_contig(int ndim, const int64_t *sizes, int nb, int64_t *st)
{
    int64_t cst[CLOPS_MAX_DIMS];
    contiguous_strides(ndim, sizes, cst);
    for (int j = 0; j < nb; j++) {
        int td = j - (nb - ndim);
        st[j] = (td >= 0 && sizes[td] != 1) ? cst[td] : 0;
    }
}

clops_status ix_fn_index_put(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                             clops_tensor *const *indices, int indices_len, clops_tensor *values,
                             bool accumulate, clops_tensor **out)
{
    const char *op = "index_put";
    if (values->dtype != self->dtype)
        return clops__fail(CLOPS_INVALID_DTYPE,
                           "%s: Index put requires the source and destination dtypes match, got "
                           "%s for the destination and %s for the source.",
                           op, clops_dtype_name(self->dtype), clops_dtype_name(values->dtype));
    ix_layout L;
    clops_status st = ix_layout_make(op, self, indices, indices_len, false, &L);
    if (st)
        return st;
    /* values must broadcast to the indexed result's shape R. */
    int64_t vst[CLOPS_MAX_DIMS] = {0};
    if (values->ndim > L.nr)
        st = clops__fail(CLOPS_INVALID_SHAPE,
                         "%s: value tensor has more dims than the indexing result", op);
    for (int r = 0; st == CLOPS_OK && r < L.nr; r++) {
        int vd = r - (L.nr - values->ndim);
        if (vd < 0)
            continue;
        if (values->sizes[vd] != L.rs[r] && values->sizes[vd] != 1) {
            char a[96], b[96];
            st = clops__fail(CLOPS_INVALID_SHAPE,
                             "%s: shape mismatch: value tensor of shape %s cannot be broadcast "
                             "to indexing result of shape %s",
                             op, clops__fmt_shape(a, sizeof a, values->ndim, values->sizes),
                             clops__fmt_shape(b, sizeof b, L.nr, L.rs));
            break;
        }
        vst[r] = values->sizes[vd] == 1 ? 0 : values->strides[vd];
    }
    if (st == CLOPS_OK && L.nr - L.nb > IX_MAXD)
        st = clops__fail(CLOPS_UNSUPPORTED, "%s: at most %d unindexed dims", op, IX_MAXD);
    structured_call call;
    bool begun = false;
    if (st == CLOPS_OK) {
        clops_tensor *inputs[2 + CLOPS_MAX_DIMS];
        int ni = 0;
        inputs[ni++] = self;
        inputs[ni++] = values;
        for (int i = 0; i < indices_len; i++)
            if (indices[i])
                inputs[ni++] = indices[i];
        st = structured_begin(&call, op, variant, dst, self->storage->device, self->dtype,
                              self->ndim, self->sizes, inputs, ni);
        begun = st == CLOPS_OK;
    }
    if (begun && call.target != self)
        st = core_copy_(call.target, self, false);
    clops_tensor *t = begun ? call.target : NULL;
    ix_seg s = {.op = op, .self = t, .src = values, .mode = accumulate ? IX_SEG_SUM : IX_SEG_COPY,
                .include_self = true, .alpha = clops_scalar_int(1)};
    for (int r = 0; st == CLOPS_OK && r < L.nr; r++)
        if (L.rmap[r] >= 0) {
            s.sizes[s.ndim] = L.rs[r];
            s.self_st[s.ndim] = t->strides[L.rmap[r]];
            s.src_st[s.ndim++] = vst[r];
        }
    int64_t nbn = 1;
    for (int j = 0; j < L.nb; j++)
        nbn *= L.bshape[j];
    /* Index values on the host, with their broadcast strides over B. */
    int64_t *vals[CLOPS_MAX_DIMS] = {NULL};
    int64_t ist[CLOPS_MAX_DIMS][CLOPS_MAX_DIMS];
    for (int d = 0; d < self->ndim && st == CLOPS_OK; d++) {
        if (!L.idx[d])
            continue;
        int64_t cnt = 0;
        st = ix_read_int_elems(L.idx[d], &vals[d], &cnt);
        bcast_contig(L.idx[d]->ndim, L.idx[d]->sizes, L.nb, ist[d]);
    }
    if (st == CLOPS_OK)
        st = ix_seg_alloc(&s, L.nidx ? nbn : 1);
    int64_t coord[CLOPS_MAX_DIMS] = {0};
    for (int64_t b = 0; b < s.n && st == CLOPS_OK; b++) {
        int64_t to = t->offset, so = values->offset;
        for (int d = 0; d < self->ndim && st == CLOPS_OK; d++) {
            if (!L.idx[d])
                continue;
            int64_t e = 0;
            for (int j = 0; j < L.nb; j++)
                e += coord[j] * ist[d][j];
            int64_t v = vals[d][e], n = self->sizes[d], w = v < 0 ? v + n : v;
            if (w < 0 || w >= n) {
                /* Nothing is computed from a bad index (INT64_MAX times a
                 * stride would overflow). */
                st = clops__fail(CLOPS_INDEX_OUT_OF_RANGE,
                                 "%s: index %lld is out of bounds for dimension %d with size %lld",
                                 op, (long long)v, d, (long long)n);
                break;
            }
            to += w * t->strides[d];
        }
        for (int j = 0; j < L.nb; j++)
            so += coord[j] * vst[L.bstart + j];
        s.target[b] = to;
        s.srcoff[b] = so;
        for (int j = L.nb - 1; j >= 0; j--) {
            if (++coord[j] < L.bshape[j])
                break;
            coord[j] = 0;
        }
    }
    if (st == CLOPS_OK && nbn > 0)
        st = ix_segment_run(&s);
    free(s.target);
    free(s.srcoff);
    for (int d = 0; d < CLOPS_MAX_DIMS; d++)
        free(vals[d]);
    ix_layout_free(&L);
    return begun ? structured_finish(&call, st, out) : st;
}

/* put(self, index, source, accumulate): self[flat index[i]] = (or +=)
 * source's i-th element (row-major); negative indices wrap. */
clops_status ix_fn_put(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                       clops_tensor *index, clops_tensor *source, bool accumulate,
                       clops_tensor **out)
{
    const char *op = "put";
    clops_status st = ix_check_index_dtype(op, "index", index, true);
    if (st)
        return st;
    if (source->dtype != self->dtype)
        return clops__fail(CLOPS_INVALID_DTYPE,
                           "%s: self (%s) and source (%s) must have the same scalar type", op,
                           clops_dtype_name(self->dtype), clops_dtype_name(source->dtype));
    int64_t n = tensor_numel(index), numel = tensor_numel(self);
    if (tensor_numel(source) != n)
        return clops__fail(CLOPS_INVALID_SHAPE,
                           "%s: Expected source and index to have the same number of elements, "
                           "but got source.numel() = %lld, index.numel() = %lld",
                           op, (long long)tensor_numel(source), (long long)n);
    structured_call call;
    clops_tensor *const inputs[3] = {self, index, source};
    st = structured_begin(&call, op, variant, dst, self->storage->device, self->dtype, self->ndim,
                          self->sizes, inputs, 3);
    if (st)
        return st;
    clops_tensor *t = call.target;
    if (t != self)
        st = core_copy_(t, self, false);
    ix_seg s = {.op = op, .self = t, .src = source, .mode = accumulate ? IX_SEG_SUM : IX_SEG_COPY,
                .include_self = true, .alpha = clops_scalar_int(1)};
    int64_t *iv = NULL;
    if (st == CLOPS_OK)
        st = ix_read_int_elems(index, &iv, &n);
    if (st == CLOPS_OK)
        st = ix_seg_alloc(&s, n);
    for (int64_t i = 0; i < n && st == CLOPS_OK; i++) {
        int64_t v = iv[i], w = v < 0 ? v + numel : v;
        if (w < 0 || w >= numel) {
            st = clops__fail(CLOPS_INDEX_OUT_OF_RANGE,
                             "%s: out of range: tried to access index %lld on a tensor of %lld "
                             "elements",
                             op, (long long)v, (long long)numel);
            break;
        }
        int64_t to = t->offset, so = source->offset, rt = w, rs = i;
        for (int k = self->ndim - 1; k >= 0; k--) {
            to += (rt % self->sizes[k]) * t->strides[k];
            rt /= self->sizes[k];
        }
        for (int k = source->ndim - 1; k >= 0; k--) {
            so += (rs % source->sizes[k]) * source->strides[k];
            rs /= source->sizes[k];
        }
        s.target[i] = to;
        s.srcoff[i] = so;
    }
    free(iv);
    if (st == CLOPS_OK)
        st = ix_segment_run(&s);
    free(s.target);
    free(s.srcoff);
    return structured_finish(&call, st, out);
}
