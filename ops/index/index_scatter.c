/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ops/index/index_scatter.c: the writing ops of the indexing family, each a
 * segment plan (ops/index/index.h, ops/index/index_segment.c): scatter (src, value,
 * reduce=), scatter_add, scatter_reduce, index_add, index_copy, index_fill,
 * embedding_dense_backward and one_hot.  index_put_ and put_ are in
 * ops/index/index_put.c.
 *
 * On OpenCL devices scatter, scatter_add and scatter_reduce into a short
 * dim (ix_scatter_lines) scan the index on the device instead.  Otherwise
 * each op reads its index tensor to the host (a wait for the queue),
 * checks every value with PyTorch's rule (negative values wrap for
 * index_fill, index_put_ and put_, and are errors elsewhere) and turns
 * each index element into an entry: the element of self it writes and the
 * element of the source it reads.  Duplicate targets fold in source order,
 * deterministically; an overwriting op with duplicates keeps the last one.
 */
#include <stdlib.h>
#include <string.h>

#include "ops/index/index.h"
#include "ops/kernels_generated.h"

/* Begins an op that writes into a copy of self (functional, out=) or into
 * self (in place): call->target holds self's values.  When *src is NULL
 * the Scalar value becomes a 0-dim source tensor, handed out in *vt (the
 * caller releases it).  On failure nothing is held. */
static clops_status begin_write(structured_call *call, const char *op, pw_variant variant,
                                clops_tensor *dst, clops_tensor *self, clops_tensor *index,
                                clops_tensor **src, const clops_scalar *value, clops_tensor **vt)
{
    *vt = NULL;
    clops_status st = CLOPS_OK;
    if (!*src) {
        st = clops_full(self->storage->device, self->dtype, 0, NULL, *value, vt);
        if (st)
            return st;
        *src = *vt;
    }
    clops_tensor *const inputs[3] = {self, index, *src};
    st = structured_begin(call, op, variant, dst, self->storage->device, self->dtype, self->ndim,
                          self->sizes, inputs, *vt ? 2 : 3);
    if (st == CLOPS_OK && call->target != self) {
        st = core_copy_(call->target, self, false);
        if (st)
            st = structured_finish(call, st, NULL);
    }
    if (st) {
        clops_tensor_release(*vt);
        *vt = NULL;
    }
    return st;
}

/* The dim argument wrapped and the index dtype checked (int64, or also
 * int32 unless long_only). */
static clops_status dim_and_index(const char *op, const clops_tensor *self, int64_t dim,
                                  const clops_tensor *index, bool long_only, int *d)
{
    clops_status st = wrap_dim(op, dim, self->ndim, d);
    return st ? st : ix_check_index_dtype(op, "index", index, long_only);
}

/* The error of a bad index value. */
static clops_status bad_index(const char *op, int64_t v, int dim, int64_t size)
{
    return clops__fail(CLOPS_INDEX_OUT_OF_RANGE,
                       "%s: index %lld is out of bounds for dimension %d with size %lld", op,
                       (long long)v, dim, (long long)size);
}

/* The fold a reduce string names (scatter_reduce's, or scatter's legacy
 * add/multiply); false when unknown. */
static bool reduce_mode(const char *reduce, bool legacy, ix_seg_mode *mode)
{
    static const char *const names[] = {"sum", "prod", "mean", "amax", "amin"};
    static const ix_seg_mode modes[] = {IX_SEG_SUM, IX_SEG_PROD, IX_SEG_MEAN, IX_SEG_AMAX,
                                        IX_SEG_AMIN};
    if (!reduce)
        return false;
    if (legacy) {
        if (strcmp(reduce, "add") == 0)
            *mode = IX_SEG_SUM;
        else if (strcmp(reduce, "multiply") == 0)
            *mode = IX_SEG_PROD;
        else
            return false;
        return true;
    }
    for (int i = 0; i < 5; i++)
        if (strcmp(reduce, names[i]) == 0) {
            *mode = modes[i];
            return true;
        }
    return false;
}

/* ---- scatter family (index of self's rank, per element) ------------------------ */

/* scatter/scatter_add/scatter_reduce: self[..., index[i][j], ...] op= src[i][j]
 * along dim; src NULL means the Scalar value. */
static clops_status scatter_core(const char *op, pw_variant variant, clops_tensor *dst,
                                 clops_tensor *self, int64_t dim, clops_tensor *index,
                                 clops_tensor *src, const clops_scalar *value, ix_seg_mode mode,
                                 bool include_self, clops_tensor **out)
{
    /* PyTorch checks an empty index's dtype and shape not at all. */
    int64_t inumel = tensor_numel(index);
    int d = 0;
    clops_status st = inumel ? dim_and_index(op, self, dim, index, false, &d)
                             : wrap_dim(op, dim, self->ndim, &d);
    if (st)
        return st;
    int sn = self->ndim ? self->ndim : 1;
    if (inumel && (index->ndim ? index->ndim : 1) != sn)
        return clops__fail(CLOPS_INVALID_SHAPE,
                           "%s: Index tensor must have the same number of dimensions as self "
                           "tensor (%d vs %d)",
                           op, index->ndim, self->ndim);
    if (src && src->dtype != self->dtype)
        return clops__fail(CLOPS_INVALID_DTYPE,
                           "%s: Expected self.dtype to be equal to src.dtype (%s vs %s)", op,
                           clops_dtype_name(self->dtype), clops_dtype_name(src->dtype));
    if (src && inumel && (src->ndim ? src->ndim : 1) != sn)
        return clops__fail(CLOPS_INVALID_SHAPE,
                           "%s: Index tensor must have the same number of dimensions as src "
                           "tensor",
                           op);
    for (int i = 0; i < index->ndim && inumel; i++) {
        int64_t ss = self->ndim ? self->sizes[i] : 1, rs = src && src->ndim ? src->sizes[i] : 1;
        if ((i != d && index->sizes[i] > ss) || (src && index->sizes[i] > rs)) {
            char a[96], b[96];
            return clops__fail(CLOPS_INVALID_SHAPE,
                               "%s: Expected index %s to be smaller than self %s apart from "
                               "dimension %d%s",
                               op, clops__fmt_shape(a, sizeof a, index->ndim, index->sizes),
                               clops__fmt_shape(b, sizeof b, self->ndim, self->sizes), d,
                               src ? " and to be smaller size than src" : "");
        }
    }
    clops_tensor *vt = NULL;
    structured_call call;
    st = begin_write(&call, op, variant, dst, self, index, &src, value, &vt);
    if (st)
        return st;
    clops_tensor *t = call.target;
    bool done = false;
    if (inumel)
        st = ix_scatter_lines(op, t, d, index, src, mode, include_self, &done);
    if (st || done) {
        st = structured_finish(&call, st, out);
        clops_tensor_release(vt);
        return st;
    }
    int64_t *iv = NULL, n = 0;
    ix_seg s = {.op = op, .self = t, .src = src, .mode = mode, .include_self = include_self,
                .alpha = clops_scalar_int(1)};
    st = ix_read_int_elems(index, &iv, &n);
    if (st == CLOPS_OK)
        st = ix_seg_alloc(&s, n);
    int64_t size = self->ndim ? self->sizes[d] : 1;
    int64_t coord[CLOPS_MAX_DIMS] = {0};
    for (int64_t i = 0; i < n && st == CLOPS_OK; i++) {
        int64_t v = iv[i];
        if (v < 0 || v >= size) {
            st = bad_index(op, v, d, size);
            break;
        }
        int64_t to = t->offset, so = src->offset;
        if (index->ndim == 0 && self->ndim)
            to += v * t->strides[d];
        for (int k = 0; k < index->ndim; k++) {
            int64_t c = k == d ? v : coord[k];
            to += self->ndim ? c * t->strides[k] : 0;
            so += src->ndim ? coord[k] * src->strides[k] : 0;
        }
        s.target[i] = to;
        s.srcoff[i] = so;
        for (int k = index->ndim - 1; k >= 0; k--) {
            if (++coord[k] < index->sizes[k])
                break;
            coord[k] = 0;
        }
    }
    free(iv);
    if (st == CLOPS_OK)
        st = ix_segment_run(&s);
    free(s.target);
    free(s.srcoff);
    st = structured_finish(&call, st, out);
    clops_tensor_release(vt);
    return st;
}

clops_status ix_fn_scatter_src(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                               int64_t dim, clops_tensor *index, clops_tensor *src,
                               clops_tensor **out)
{
    return scatter_core("scatter", variant, dst, self, dim, index, src, NULL, IX_SEG_COPY, false,
                        out);
}

clops_status ix_fn_scatter_value(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                                 int64_t dim, clops_tensor *index, clops_scalar value,
                                 clops_tensor **out)
{
    return scatter_core("scatter", variant, dst, self, dim, index, NULL, &value, IX_SEG_COPY,
                        false, out);
}

clops_status ix_fn_scatter_reduce_legacy(pw_variant variant, clops_tensor *dst,
                                         clops_tensor *self, int64_t dim, clops_tensor *index,
                                         clops_tensor *src, const char *reduce,
                                         clops_tensor **out)
{
    ix_seg_mode m;
    if (!reduce_mode(reduce, true, &m))
        return clops__fail(CLOPS_INVALID_ARGUMENT,
                           "scatter: reduce argument must be either add or multiply, got '%s'",
                           reduce ? reduce : "None");
    return scatter_core("scatter", variant, dst, self, dim, index, src, NULL, m, true, out);
}

clops_status ix_fn_scatter_value_reduce(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                                        int64_t dim, clops_tensor *index, clops_scalar value,
                                        const char *reduce, clops_tensor **out)
{
    ix_seg_mode m;
    if (!reduce_mode(reduce, true, &m))
        return clops__fail(CLOPS_INVALID_ARGUMENT,
                           "scatter: reduce argument must be either add or multiply, got '%s'",
                           reduce ? reduce : "None");
    return scatter_core("scatter", variant, dst, self, dim, index, NULL, &value, m, true, out);
}

clops_status ix_fn_scatter_add(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                               int64_t dim, clops_tensor *index, clops_tensor *src,
                               clops_tensor **out)
{
    return scatter_core("scatter_add", variant, dst, self, dim, index, src, NULL, IX_SEG_SUM,
                        true, out);
}

clops_status ix_fn_scatter_reduce(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                                  int64_t dim, clops_tensor *index, clops_tensor *src,
                                  const char *reduce, bool include_self, clops_tensor **out)
{
    ix_seg_mode m;
    if (!reduce_mode(reduce, false, &m))
        return clops__fail(CLOPS_INVALID_ARGUMENT,
                           "scatter_reduce: reduce argument must be either sum, prod, mean, amax "
                           "or amin, got '%s'",
                           reduce ? reduce : "None");
    return scatter_core("scatter_reduce", variant, dst, self, dim, index, src, NULL, m,
                        include_self, out);
}

/* ---- index_add / index_copy / index_fill (a 1-D index along dim) ------------- */

static clops_status index_dim_core(const char *op, pw_variant variant, clops_tensor *dst,
                                   clops_tensor *self, int64_t dim, clops_tensor *index,
                                   clops_tensor *source, const clops_scalar *value,
                                   ix_seg_mode mode, clops_scalar alpha, bool wrap,
                                   bool long_only, clops_tensor **out)
{
    int d = 0;
    clops_status st = dim_and_index(op, self, dim, index, long_only, &d);
    if (st)
        return st;
    if (index->ndim > 1)
        return clops__fail(CLOPS_INVALID_SHAPE, "%s: Index is supposed to be a vector, got %d dims",
                           op, index->ndim);
    int64_t n = tensor_numel(index);
    if (source) {
        if (source->dtype != self->dtype)
            return clops__fail(CLOPS_INVALID_DTYPE,
                               "%s: self (%s) and source (%s) must have the same scalar type", op,
                               clops_dtype_name(self->dtype), clops_dtype_name(source->dtype));
        int sn = source->ndim ? source->ndim : 1, tn = self->ndim ? self->ndim : 1;
        bool ok = sn == tn && (source->ndim ? source->sizes[d] : 1) == n;
        for (int i = 0; ok && i < self->ndim && source->ndim; i++)
            ok = i == d || source->sizes[i] == self->sizes[i];
        if (!ok) {
            char a[96], b[96];
            return clops__fail(CLOPS_INVALID_SHAPE,
                               "%s: source %s does not match self %s with %lld indices along "
                               "dimension %d",
                               op, clops__fmt_shape(a, sizeof a, source->ndim, source->sizes),
                               clops__fmt_shape(b, sizeof b, self->ndim, self->sizes),
                               (long long)n, d);
        }
    }
    if (self->ndim > IX_MAXD + 1)
        return clops__fail(CLOPS_UNSUPPORTED, "%s: at most %d dims are supported", op,
                           IX_MAXD + 1);
    clops_tensor *vt = NULL;
    structured_call call;
    st = begin_write(&call, op, variant, dst, self, index, &source, value, &vt);
    if (st)
        return st;
    clops_tensor *t = call.target;
    ix_seg s = {.op = op, .self = t, .src = source, .mode = mode, .include_self = true,
                .alpha = alpha};
    for (int i = 0; i < self->ndim; i++) {
        if (i == d)
            continue;
        s.sizes[s.ndim] = self->sizes[i];
        s.self_st[s.ndim] = t->strides[i];
        s.src_st[s.ndim++] = source->ndim ? source->strides[i] : 0;
    }
    int64_t *iv = NULL;
    st = ix_read_int_elems(index, &iv, &n);
    if (st == CLOPS_OK)
        st = ix_seg_alloc(&s, n);
    int64_t size = self->ndim ? self->sizes[d] : 1, tst = self->ndim ? t->strides[d] : 0;
    int64_t sst = source->ndim ? source->strides[d] : 0;
    for (int64_t i = 0; i < n && st == CLOPS_OK; i++) {
        int64_t v = iv[i], w = (v < 0 && wrap) ? v + size : v;
        if (w < 0 || w >= size) {
            st = bad_index(op, v, d, size);
            break;
        }
        s.target[i] = t->offset + w * tst;
        s.srcoff[i] = source->offset + i * sst;
    }
    free(iv);
    if (st == CLOPS_OK)
        st = ix_segment_run(&s);
    free(s.target);
    free(s.srcoff);
    st = structured_finish(&call, st, out);
    clops_tensor_release(vt);
    return st;
}

clops_status ix_fn_index_add(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                             int64_t dim, clops_tensor *index, clops_tensor *source,
                             clops_scalar alpha, clops_tensor **out)
{
    return index_dim_core("index_add", variant, dst, self, dim, index, source, NULL, IX_SEG_SUM,
                          alpha, false, false, out);
}

clops_status ix_fn_index_copy(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                              int64_t dim, clops_tensor *index, clops_tensor *source,
                              clops_tensor **out)
{
    return index_dim_core("index_copy", variant, dst, self, dim, index, source, NULL,
                          IX_SEG_COPY, clops_scalar_int(1), false, true, out);
}

clops_status ix_fn_index_fill_scalar(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                                     int64_t dim, clops_tensor *index, clops_scalar value,
                                     clops_tensor **out)
{
    return index_dim_core("index_fill", variant, dst, self, dim, index, NULL, &value,
                          IX_SEG_COPY, clops_scalar_int(1), true, true, out);
}

clops_status ix_fn_index_fill_tensor(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                                     int64_t dim, clops_tensor *index, clops_tensor *value,
                                     clops_tensor **out)
{
    if (value->ndim != 0)
        return clops__fail(CLOPS_INVALID_SHAPE,
                           "index_fill: Only supports 0-dimensional value tensor. Got a tensor "
                           "with %d dimensions.",
                           value->ndim);
    clops_scalar v;
    clops_status st = clops_tensor_item(value, &v);
    if (st)
        return st;
    return ix_fn_index_fill_scalar(variant, dst, self, dim, index, v, out);
}

/* ---- embedding_dense_backward, one_hot ------------------------------------------ */

/* The gradient of embedding: rows of grad_output summed into the rows of a
 * [num_weights, D] zero tensor that their indices name, in order;
 * padding_idx's rows stay zero; scale_grad_by_freq divides each row's sum
 * by how often its index occurs. */
clops_status ix_fn_embedding_dense_backward(pw_variant variant, clops_tensor *dst,
                                            clops_tensor *grad_output, clops_tensor *indices,
                                            int64_t num_weights, int64_t padding_idx,
                                            bool scale_grad_by_freq, clops_tensor **out)
{
    const char *op = "embedding_dense_backward";
    clops_status st = ix_check_index_dtype(op, "indices", indices, false);
    if (st)
        return st;
    int nd = indices->ndim;
    if (grad_output->ndim != nd + 1 ||
        memcmp(grad_output->sizes, indices->sizes, sizeof(int64_t) * (size_t)nd) != 0)
        return clops__fail(CLOPS_INVALID_SHAPE,
                           "%s: grad_output must have the shape of indices plus one dim", op);
    if (num_weights < 0)
        return clops__fail(CLOPS_INVALID_ARGUMENT, "%s: num_weights must be non-negative", op);
    int64_t D = grad_output->sizes[nd], sizes[2] = {num_weights, D};
    structured_call call;
    clops_tensor *const inputs[2] = {grad_output, indices};
    st = structured_begin(&call, op, variant, dst, grad_output->storage->device,
                          grad_output->dtype, 2, sizes, inputs, 2);
    if (st)
        return st;
    clops_tensor *t = call.target;
    st = tensor_fill(t, clops_scalar_int(0));
    ix_seg s = {.op = op, .self = t, .src = grad_output, .mode = IX_SEG_SUM,
                .include_self = true, .scale_count = scale_grad_by_freq,
                .alpha = clops_scalar_int(1), .ndim = 1};
    s.sizes[0] = D;
    s.self_st[0] = t->strides[1];
    s.src_st[0] = grad_output->strides[nd];
    int64_t *iv = NULL, n = 0;
    if (st == CLOPS_OK)
        st = ix_read_int_elems(indices, &iv, &n);
    if (st == CLOPS_OK)
        st = ix_seg_alloc(&s, n);
    int64_t coord[CLOPS_MAX_DIMS] = {0};
    for (int64_t i = 0; i < n && st == CLOPS_OK; i++) {
        int64_t v = iv[i];
        if (v != padding_idx && (v < 0 || v >= num_weights)) {
            st = bad_index(op, v, 0, num_weights);
            break;
        }
        int64_t so = grad_output->offset;
        for (int k = 0; k < nd; k++)
            so += coord[k] * grad_output->strides[k];
        s.target[i] = v == padding_idx ? -1 : t->offset + v * t->strides[0];
        s.srcoff[i] = so;
        for (int k = nd - 1; k >= 0; k--) {
            if (++coord[k] < indices->sizes[k])
                break;
            coord[k] = 0;
        }
    }
    free(iv);
    if (st == CLOPS_OK)
        st = ix_segment_run(&s);
    free(s.target);
    free(s.srcoff);
    return structured_finish(&call, st, out);
}

/* one_hot(self, num_classes): int64 [..., C] with a 1 at each value;
 * num_classes -1 takes max + 1 (reading self, as PyTorch does). */
clops_status ix_fn_one_hot(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                           int64_t num_classes, clops_tensor **out)
{
    const char *op = "one_hot";
    if (self->dtype != CLOPS_INT64)
        return clops__fail(CLOPS_INVALID_DTYPE,
                           "%s: one_hot is only applicable to index tensor of type LongTensor, "
                           "got %s",
                           op, clops_dtype_name(self->dtype));
    if (self->ndim + 1 > CLOPS_MAX_DIMS)
        return clops__fail(CLOPS_INVALID_SHAPE, "%s: too many dims", op);
    int64_t *iv = NULL, n = 0;
    clops_status st = ix_read_int_elems(self, &iv, &n);
    if (st)
        return st;
    int64_t mx = -1;
    for (int64_t i = 0; i < n && st == CLOPS_OK; i++) {
        if (iv[i] < 0)
            st = clops__fail(CLOPS_INVALID_ARGUMENT, "%s: Class values must be non-negative.",
                             op);
        mx = iv[i] > mx ? iv[i] : mx;
    }
    if (st == CLOPS_OK && num_classes == -1) {
        if (n == 0)
            st = clops__fail(CLOPS_INVALID_ARGUMENT,
                             "%s: Can not infer total number of classes from empty tensor.", op);
        num_classes = mx + 1;
    } else if (st == CLOPS_OK && (num_classes < -1 || mx >= num_classes)) {
        st = clops__fail(CLOPS_INVALID_ARGUMENT,
                         "%s: Class values must be smaller than num_classes (%lld).", op,
                         (long long)num_classes);
    }
    if (st) {
        free(iv);
        return st;
    }
    int64_t sizes[CLOPS_MAX_DIMS];
    memcpy(sizes, self->sizes, sizeof(int64_t) * (size_t)self->ndim);
    sizes[self->ndim] = num_classes;
    structured_call call;
    clops_tensor *const inputs[1] = {self};
    st = structured_begin(&call, op, variant, dst, self->storage->device, CLOPS_INT64,
                          self->ndim + 1, sizes, inputs, 1);
    if (st) {
        free(iv);
        return st;
    }
    clops_tensor *t = call.target, *one = NULL;
    st = tensor_fill(t, clops_scalar_int(0));
    if (st == CLOPS_OK)
        st = clops_full(self->storage->device, CLOPS_INT64, 0, NULL, clops_scalar_int(1), &one);
    ix_seg s = {.op = op, .self = t, .src = one, .mode = IX_SEG_COPY,
                .alpha = clops_scalar_int(1)};
    if (st == CLOPS_OK)
        st = ix_seg_alloc(&s, n);
    int64_t coord[CLOPS_MAX_DIMS] = {0};
    for (int64_t i = 0; i < n && st == CLOPS_OK; i++) {
        int64_t to = t->offset + iv[i] * t->strides[self->ndim];
        for (int k = 0; k < self->ndim; k++)
            to += coord[k] * t->strides[k];
        s.target[i] = to;
        s.srcoff[i] = one->offset;
        for (int k = self->ndim - 1; k >= 0; k--) {
            if (++coord[k] < self->sizes[k])
                break;
            coord[k] = 0;
        }
    }
    free(iv);
    if (st == CLOPS_OK)
        st = ix_segment_run(&s);
    free(s.target);
    free(s.srcoff);
    clops_tensor_release(one);
    return structured_finish(&call, st, out);
}
