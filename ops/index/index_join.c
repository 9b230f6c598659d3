/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ops/index/index_join.c: joining, splitting and layout ops of the indexing
 * family, built from views and the copy kernel: cat, stack, the splitting
 * views (split, split_with_sizes, chunk, unbind, tensor_split), repeat,
 * roll and constant_pad_nd.
 *
 * cat writes each input into its slice of the result with one strided copy
 * (the pointwise copy kernel, which converts to the promoted dtype), so a
 * concatenation costs one read and one write of every element.  The
 * splitting ops return views (clops_tensor_list, docs/operator-inventory.md)
 * and never copy.
 */
#include <stdlib.h>
#include <string.h>

#include "codegen_pointwise/promote.h"
#include "ops/index/index.h"
#include "ops/kernels_generated.h"

/* ---- cat / stack ------------------------------------------------------------- */

/* PyTorch's legacy rule: a 1-D tensor of size 0 is skipped by cat. */
static bool cat_skipped(const clops_tensor *t)
{
    return t->ndim == 1 && t->sizes[0] == 0;
}

/* cat(tensors, dim): the inputs' dims must match except dim; the result
 * dtype is their promoted type. */
clops_status ix_fn_cat(pw_variant variant, clops_tensor *dst, clops_tensor *const *tensors,
                       int tensors_len, int64_t dim, clops_tensor **out)
{
    const char *op = "cat";
    if (tensors_len <= 0)
        return clops__fail(CLOPS_INVALID_ARGUMENT, "%s: expected a non-empty list of Tensors", op);
    const clops_tensor *ref = NULL;
    int refi = 0;
    clops_dtype dt = tensors[0]->dtype;
    for (int i = 0; i < tensors_len; i++) {
        if (!tensors[i])
            return clops__fail(CLOPS_INVALID_ARGUMENT, "%s: tensor %d is NULL", op, i);
        if (tensors[i]->ndim == 0)
            return clops__fail(CLOPS_INVALID_SHAPE,
                               "%s: zero-dimensional tensor (at position %d) cannot be "
                               "concatenated",
                               op, i);
        clops_status st = ix_check_same_device(op, tensors[0], tensors[i]);
        if (st)
            return st;
        if (i)
            dt = pw_promote_types(dt, tensors[i]->dtype);
        if (!ref && !cat_skipped(tensors[i])) {
            ref = tensors[i];
            refi = i;
        }
    }
    if (!ref) { /* every input is a legacy empty: the result is one too */
        ref = tensors[0];
        refi = 0;
    }
    int d = 0;
    clops_status st = wrap_dim(op, dim, ref->ndim, &d);
    if (st)
        return st;
    int64_t sizes[CLOPS_MAX_DIMS];
    memcpy(sizes, ref->sizes, sizeof(int64_t) * (size_t)ref->ndim);
    sizes[d] = 0;
    for (int i = 0; i < tensors_len; i++) {
        const clops_tensor *t = tensors[i];
        if (cat_skipped(t) && t != ref)
            continue;
        if (t->ndim != ref->ndim)
            return clops__fail(CLOPS_INVALID_SHAPE,
                               "%s: Tensors must have same number of dimensions: got %d and %d",
                               op, ref->ndim, t->ndim);
        for (int j = 0; j < t->ndim; j++)
            if (j != d && t->sizes[j] != ref->sizes[j])
                return clops__fail(CLOPS_INVALID_SHAPE,
                                   "%s: Sizes of tensors must match except in dimension %d. "
                                   "Expected size %lld but got size %lld for tensor number %d in "
                                   "the list.",
                                   op, d, (long long)ref->sizes[j], (long long)t->sizes[j], i);
        sizes[d] += t->sizes[d];
    }
    (void)refi;
    structured_call call;
    st = structured_begin(&call, op, variant, dst, ref->storage->device, dt, ref->ndim, sizes,
                          tensors, tensors_len);
    if (st)
        return st;
    int64_t off = 0;
    for (int i = 0; i < tensors_len && st == CLOPS_OK; i++) {
        clops_tensor *t = tensors[i];
        if ((cat_skipped(t) && t != ref) || t->sizes[d] == 0)
            continue;
        clops_tensor *slot = NULL;
        st = core_narrow(call.target, d, off, t->sizes[d], &slot);
        if (st == CLOPS_OK)
            st = core_copy_(slot, t, false);
        clops_tensor_release(slot);
        off += t->sizes[d];
    }
    return structured_finish(&call, st, out);
}

/* stack(tensors, dim): cat of the inputs unsqueezed at dim; they must have
 * equal shapes. */
clops_status ix_fn_stack(pw_variant variant, clops_tensor *dst, clops_tensor *const *tensors,
                         int tensors_len, int64_t dim, clops_tensor **out)
{
    const char *op = "stack";
    if (tensors_len <= 0)
        return clops__fail(CLOPS_INVALID_ARGUMENT, "%s: expects a non-empty TensorList", op);
    for (int i = 0; i < tensors_len; i++) {
        if (!tensors[i])
            return clops__fail(CLOPS_INVALID_ARGUMENT, "%s: tensor %d is NULL", op, i);
        const clops_tensor *a = tensors[0], *b = tensors[i];
        if (a->ndim != b->ndim ||
            memcmp(a->sizes, b->sizes, sizeof(int64_t) * (size_t)a->ndim) != 0) {
            char sa[128], sb[128];
            return clops__fail(CLOPS_INVALID_SHAPE,
                               "%s: stack expects each tensor to be equal size, but got %s at "
                               "entry 0 and %s at entry %d",
                               op, clops__fmt_shape(sa, sizeof sa, a->ndim, a->sizes),
                               clops__fmt_shape(sb, sizeof sb, b->ndim, b->sizes), i);
        }
    }
    int d = 0;
    clops_status st = wrap_dim(op, dim, tensors[0]->ndim + 1, &d);
    if (st)
        return st;
    clops_tensor **u = calloc((size_t)tensors_len, sizeof *u);
    if (!u)
        return clops__fail(CLOPS_HOST_OUT_OF_MEMORY, "%s: out of host memory", op);
    for (int i = 0; i < tensors_len && st == CLOPS_OK; i++)
        st = core_unsqueeze(tensors[i], d, &u[i]);
    if (st == CLOPS_OK)
        st = ix_fn_cat(variant, dst, u, tensors_len, d, out);
    if (st)
        clops__error_prefix(st, "%s", op);
    for (int i = 0; i < tensors_len; i++)
        clops_tensor_release(u[i]);
    free(u);
    return st;
}

/* ---- splitting views ------------------------------------------------------------- */

/* Views of self along dim at the given starts and lengths, as a list. */
static clops_status split_views(const char *op, clops_tensor *self, int dim, int n,
                                const int64_t *starts, const int64_t *lens,
                                clops_tensor_list *out)
{
    clops_tensor **v = calloc(n ? (size_t)n : 1, sizeof *v);
    if (!v)
        return clops__fail(CLOPS_HOST_OUT_OF_MEMORY, "%s: out of host memory", op);
    clops_status st = CLOPS_OK;
    for (int i = 0; i < n && st == CLOPS_OK; i++)
        st = core_narrow(self, dim, starts[i], lens[i], &v[i]);
    clops_tensor_list l = {v, n};
    if (st) {
        clops_tensor_list_free(&l);
        return clops__error_prefix(st, "%s", op);
    }
    *out = l;
    return CLOPS_OK;
}

/* Splits dim into pieces of the given lengths (n of them). */
static clops_status split_lengths(const char *op, clops_tensor *self, int dim, int n,
                                  const int64_t *lens, clops_tensor_list *out)
{
    if (n < 0)
        return clops__fail(CLOPS_INVALID_ARGUMENT, "%s: negative number of pieces (%d)", op, n);
    int64_t *starts = malloc((n ? (size_t)n : 1) * sizeof *starts);
    if (!starts)
        return clops__fail(CLOPS_HOST_OUT_OF_MEMORY, "%s: out of host memory", op);
    int64_t off = 0;
    for (int i = 0; i < n; i++) {
        starts[i] = off;
        off += lens[i];
    }
    clops_status st = split_views(op, self, dim, n, starts, lens, out);
    free(starts);
    return st;
}

/* The dim argument of a splitting op (self must have a dim). */
static clops_status split_dim(const char *op, const clops_tensor *self, int64_t dim, int *d)
{
    if (self->ndim == 0)
        return clops__fail(CLOPS_INVALID_SHAPE, "%s: expects at least a 1-dimensional tensor", op);
    return wrap_dim(op, dim, self->ndim, d);
}

/* Pieces of split_size along dim, the last one shorter (split.Tensor). */
static clops_status split_by_size(const char *op, clops_tensor *self, int64_t split_size, int d,
                                  clops_tensor_list *out)
{
    int64_t size = self->sizes[d];
    if (split_size < 0)
        return clops__fail(CLOPS_INVALID_ARGUMENT,
                           "%s: split expects split_size be non-negative, but got split_size=%lld",
                           op, (long long)split_size);
    if (split_size == 0 && size != 0)
        return clops__fail(CLOPS_INVALID_ARGUMENT,
                           "%s: split_size can only be 0 if dimension size is 0, but got "
                           "dimension size of %lld",
                           op, (long long)size);
    /* ceil(size / split_size), without size + split_size - 1 overflowing */
    int64_t n = split_size ? size / split_size + (size % split_size != 0) : 1;
    if (n < 1)
        n = 1;
    if (n > 1 << 30)
        return clops__fail(CLOPS_INVALID_ARGUMENT, "%s: too many pieces (%lld)", op, (long long)n);
    int64_t *lens = malloc((size_t)n * sizeof *lens);
    if (!lens)
        return clops__fail(CLOPS_HOST_OUT_OF_MEMORY, "%s: out of host memory", op);
    for (int64_t i = 0; i < n; i++)
        lens[i] = (i + 1) * split_size <= size ? split_size : size - i * split_size;
    clops_status st = split_lengths(op, self, d, (int)n, lens, out);
    free(lens);
    return st;
}

clops_status ix_split(clops_tensor *self, int64_t split_size, int64_t dim, clops_tensor_list *out)
{
    int d = 0;
    clops_status st = split_dim("split", self, dim, &d);
    return st ? st : split_by_size("split", self, split_size, d, out);
}

clops_status ix_split_with_sizes(clops_tensor *self, const int64_t *split_sizes,
                                 int split_sizes_len, int64_t dim, clops_tensor_list *out)
{
    const char *op = "split_with_sizes";
    int d = 0;
    clops_status st = split_dim(op, self, dim, &d);
    if (st)
        return st;
    int64_t sum = 0;
    for (int i = 0; i < split_sizes_len; i++) {
        if (split_sizes[i] < 0)
            return clops__fail(CLOPS_INVALID_ARGUMENT,
                               "%s: expects split_sizes have only non-negative entries, but got "
                               "split_sizes=%lld at %d",
                               op, (long long)split_sizes[i], i);
        if (!geom_add(sum, split_sizes[i], &sum))
            return clops__fail(CLOPS_INVALID_ARGUMENT,
                               "%s: expects split_sizes to sum exactly to %lld (input tensor's "
                               "size at dimension %d), but their sum overflows int64",
                               op, (long long)self->sizes[d], d);
    }
    if (sum != self->sizes[d])
        return clops__fail(CLOPS_INVALID_ARGUMENT,
                           "%s: expects split_sizes to sum exactly to %lld (input tensor's size at "
                           "dimension %d), but got a sum of %lld",
                           op, (long long)self->sizes[d], d, (long long)sum);
    return split_lengths(op, self, d, split_sizes_len, split_sizes, out);
}

clops_status ix_chunk(clops_tensor *self, int64_t chunks, int64_t dim, clops_tensor_list *out)
{
    const char *op = "chunk";
    int d = 0;
    clops_status st = split_dim(op, self, dim, &d);
    if (st)
        return st;
    if (chunks <= 0)
        return clops__fail(CLOPS_INVALID_ARGUMENT, "%s: chunk expects `chunks` to be greater than "
                                                   "0, got: %lld",
                           op, (long long)chunks);
    int64_t size = self->sizes[d];
    int64_t split_size = size / chunks + (size % chunks != 0); /* no size + chunks - 1 */
    if (split_size == 0 && size == 0) {
        /* PyTorch returns `chunks` empty pieces here. */
        if (chunks > 1 << 30)
            return clops__fail(CLOPS_INVALID_ARGUMENT, "%s: too many chunks", op);
        int64_t *lens = calloc((size_t)chunks, sizeof *lens);
        if (!lens)
            return clops__fail(CLOPS_HOST_OUT_OF_MEMORY, "%s: out of host memory", op);
        st = split_lengths(op, self, d, (int)chunks, lens, out);
        free(lens);
        return st;
    }
    return split_by_size(op, self, split_size, d, out);
}

clops_status ix_unbind(clops_tensor *self, int64_t dim, clops_tensor_list *out)
{
    const char *op = "unbind";
    int d = 0;
    clops_status st = split_dim(op, self, dim, &d);
    if (st)
        return st;
    if (self->sizes[d] > 1 << 30)
        return clops__fail(CLOPS_INVALID_ARGUMENT, "%s: too many pieces (%lld)", op,
                           (long long)self->sizes[d]);
    int n = (int)self->sizes[d];
    clops_tensor **v = calloc(n ? (size_t)n : 1, sizeof *v);
    if (!v)
        return clops__fail(CLOPS_HOST_OUT_OF_MEMORY, "%s: out of host memory", op);
    for (int i = 0; i < n && st == CLOPS_OK; i++)
        st = core_select(self, d, i, &v[i]);
    clops_tensor_list l = {v, n};
    if (st) {
        clops_tensor_list_free(&l);
        return st;
    }
    *out = l;
    return CLOPS_OK;
}

/* tensor_split at boundaries (slice semantics: negative wraps, clamped). */
static clops_status tsplit_indices(const char *op, clops_tensor *self, const int64_t *idx, int n,
                                   int d, clops_tensor_list *out)
{
    int64_t size = self->sizes[d];
    int64_t *starts = malloc((size_t)(n + 1) * sizeof *starts);
    int64_t *lens = malloc((size_t)(n + 1) * sizeof *lens);
    clops_status st = CLOPS_OK;
    if (!starts || !lens)
        st = clops__fail(CLOPS_HOST_OUT_OF_MEMORY, "%s: out of host memory", op);
    int64_t prev = 0;
    for (int i = 0; i <= n && st == CLOPS_OK; i++) {
        int64_t s = prev, e = i < n ? idx[i] : size;
        if (s < 0)
            s += size;
        if (e < 0)
            e += size;
        s = s < 0 ? 0 : s > size ? size : s;
        e = e < 0 ? 0 : e > size ? size : e;
        if (e < s)
            e = s;
        starts[i] = s;
        lens[i] = e - s;
        if (i < n)
            prev = idx[i];
    }
    if (st == CLOPS_OK)
        st = split_views(op, self, d, n + 1, starts, lens, out);
    free(starts);
    free(lens);
    return st;
}

/* tensor_split into `sections` nearly equal pieces (the first size %
 * sections ones one longer). */
static clops_status tsplit_sections(const char *op, clops_tensor *self, int64_t sections, int d,
                                    clops_tensor_list *out)
{
    if (sections <= 0 || sections > 1 << 30)
        return clops__fail(CLOPS_INVALID_ARGUMENT,
                           "%s: number of sections must be larger than 0, got %lld", op,
                           (long long)sections);
    int64_t size = self->sizes[d], base = size / sections, extra = size % sections;
    int64_t *lens = malloc((size_t)sections * sizeof *lens);
    if (!lens)
        return clops__fail(CLOPS_HOST_OUT_OF_MEMORY, "%s: out of host memory", op);
    for (int64_t i = 0; i < sections; i++)
        lens[i] = base + (i < extra);
    clops_status st = split_lengths(op, self, d, (int)sections, lens, out);
    free(lens);
    return st;
}

clops_status ix_tensor_split_sections(clops_tensor *self, int64_t sections, int64_t dim,
                                      clops_tensor_list *out)
{
    int d = 0;
    clops_status st = split_dim("tensor_split", self, dim, &d);
    return st ? st : tsplit_sections("tensor_split", self, sections, d, out);
}

clops_status ix_tensor_split_indices(clops_tensor *self, const int64_t *indices, int indices_len,
                                     int64_t dim, clops_tensor_list *out)
{
    int d = 0;
    clops_status st = split_dim("tensor_split", self, dim, &d);
    return st ? st : tsplit_indices("tensor_split", self, indices, indices_len, d, out);
}

clops_status ix_tensor_split_tensor(clops_tensor *self, clops_tensor *tensor_indices_or_sections,
                                    int64_t dim, clops_tensor_list *out)
{
    const char *op = "tensor_split";
    const clops_tensor *t = tensor_indices_or_sections;
    if (t->dtype != CLOPS_INT64)
        return clops__fail(CLOPS_INVALID_DTYPE,
                           "%s: expected tensor_indices_or_sections to have int64 dtype, but got "
                           "%s",
                           op, clops_dtype_name(t->dtype));
    if (t->ndim > 1)
        return clops__fail(CLOPS_INVALID_SHAPE,
                           "%s: expected tensor_indices_or_sections to be a zero-dimensional or "
                           "one-dimensional tensor, but got a tensor with %d dims",
                           op, t->ndim);
    int d = 0;
    clops_status st = split_dim(op, self, dim, &d);
    int64_t *v = NULL, n = 0;
    if (st == CLOPS_OK)
        st = ix_read_int_elems(t, &v, &n);
    if (st == CLOPS_OK)
        st = t->ndim == 0 ? tsplit_sections(op, self, v[0], d, out)
                          : tsplit_indices(op, self, v, (int)n, d, out);
    free(v);
    return st;
}
