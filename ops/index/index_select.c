/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ops/index/index_select.c: the selecting ops of the indexing family, each a
 * gather plan (ops/index/index.h): index_select, gather, take, take_along_dim,
 * embedding, index.Tensor (advanced indexing), and the strided copies flip,
 * tril and triu.
 *
 * Every op is a structured family function (docs/operator-inventory.md):
 * the meta step checks arguments with PyTorch's rules and computes the
 * result shape, structured_begin gives the tensor to write, and the plan
 * reads the inputs through their own strides, so any view is a valid input.
 * Which ops wrap negative indices follows PyTorch: take, take_along_dim and
 * index.Tensor do; gather, index_select and embedding report them.
 */
#include <string.h>

#include "codegen_pointwise/pw.h"
#include "ops/index/index.h"
#include "ops/kernels_generated.h"

/* Runs a plan built by `build` into a structured destination. */
typedef clops_status (*plan_builder)(ix_plan *p, clops_tensor *target, void *ctx);

static clops_status run_structured(const char *op, pw_variant variant, clops_tensor *dst,
                                   const clops_tensor *self, int ndim, const int64_t *sizes,
                                   clops_tensor *const *inputs, int n, plan_builder build,
                                   void *ctx, clops_tensor **out)
{
    structured_call call;
    clops_status st = structured_begin(&call, op, variant, dst, self->storage->device, self->dtype,
                                       ndim, sizes, inputs, n);
    if (st)
        return st;
    ix_plan p;
    st = build(&p, call.target, ctx);
    if (st == CLOPS_OK)
        st = ix_gather_run(&p);
    return structured_finish(&call, st, out);
}

/* ---- index_select ---------------------------------------------------------- */

typedef struct sel_ctx {
    const char *op;
    const clops_tensor *self, *index;
    int dim;
} sel_ctx;

static clops_status build_index_select(ix_plan *p, clops_tensor *t, void *vctx)
{
    const sel_ctx *c = vctx;
    int64_t src_st[CLOPS_MAX_DIMS] = {0}, idx_st[CLOPS_MAX_DIMS] = {0};
    for (int d = 0; d < t->ndim; d++)
        src_st[d] = d == c->dim ? 0 : c->self->strides[d];
    if (t->ndim)
        idx_st[c->dim] = c->index->ndim ? c->index->strides[0] : 0;
    ix_plan_init(p, c->op, t, c->self, src_st, c->self->offset);
    int64_t size = c->self->ndim ? c->self->sizes[c->dim] : 1;
    int64_t stride = c->self->ndim ? c->self->strides[c->dim] : 0;
    return ix_plan_add_index(p, c->index, idx_st, c->dim, size, stride);
}

/* index_select(self, dim, index): rows of self along dim picked by a 1-D
 * int32/int64 index. */
clops_status ix_fn_index_select(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                                int64_t dim, clops_tensor *index, clops_tensor **out)
{
    const char *op = "index_select";
    int d = 0;
    clops_status st = wrap_dim(op, dim, self->ndim, &d);
    if (st == CLOPS_OK)
        st = ix_check_index_dtype(op, "index", index, false);
    if (st == CLOPS_OK && index->ndim > 1)
        st = clops__fail(CLOPS_INVALID_SHAPE, "%s: index is supposed to be a vector, got %d dims",
                         op, index->ndim);
    if (st)
        return st;
    int64_t sizes[CLOPS_MAX_DIMS];
    memcpy(sizes, self->sizes, sizeof(int64_t) * (size_t)self->ndim);
    int64_t n = tensor_numel(index);
    if (self->ndim)
        sizes[d] = n;
    else if (n != 1)
        return clops__fail(CLOPS_INVALID_SHAPE,
                           "%s: index_select(): Index to scalar can have only 1 value, got %lld",
                           op, (long long)n);
    sel_ctx c = {op, self, index, d};
    clops_tensor *const in[2] = {self, index};
    return run_structured(op, variant, dst, self, self->ndim, sizes, in, 2, build_index_select, &c,
                          out);
}

/* ---- gather / take_along_dim ----------------------------------------------- */

typedef struct gat_ctx {
    const char *op;
    const clops_tensor *self, *index;
    int dim;
    bool wrap;
} gat_ctx;

/* Reads self at index's coordinates, index's value along dim; self's dims
 * of size 1 broadcast (take_along_dim); 0-dim tensors act as 1-D. */
static clops_status build_gather(ix_plan *p, clops_tensor *t, void *vctx)
{
    const gat_ctx *c = vctx;
    int64_t src_st[CLOPS_MAX_DIMS] = {0}, idx_st[CLOPS_MAX_DIMS] = {0};
    for (int d = 0; d < t->ndim; d++) {
        bool bcast_s = c->self->sizes[d] == 1 && t->sizes[d] != 1;
        bool bcast_i = c->index->sizes[d] == 1 && t->sizes[d] != 1;
        src_st[d] = (d == c->dim || bcast_s) ? 0 : c->self->strides[d];
        idx_st[d] = bcast_i ? 0 : c->index->strides[d];
    }
    ix_plan_init(p, c->op, t, c->self, src_st, c->self->offset);
    p->wrap = c->wrap;
    int64_t size = c->self->ndim ? c->self->sizes[c->dim] : 1;
    int64_t stride = c->self->ndim ? c->self->strides[c->dim] : 0;
    return ix_plan_add_index(p, c->index, idx_st, c->dim, size, stride);
}

/* gather(self, dim, index): out[i][j] = self[index[i][j]][j] (dim 0). */
clops_status ix_fn_gather(pw_variant variant, clops_tensor *dst, clops_tensor *self, int64_t dim,
                          clops_tensor *index, bool sparse_grad, clops_tensor **out)
{
    (void)sparse_grad;
    const char *op = "gather";
    int d = 0;
    bool empty = tensor_numel(index) == 0; /* PyTorch checks neither dtype nor shape then */
    clops_status st = wrap_dim(op, dim, self->ndim, &d);
    if (st == CLOPS_OK && !empty)
        st = ix_check_index_dtype(op, "index", index, false);
    if (st)
        return st;
    int sn = self->ndim ? self->ndim : 1, in = index->ndim ? index->ndim : 1;
    if (sn != in && !empty)
        return clops__fail(CLOPS_INVALID_SHAPE,
                           "%s: Index tensor must have the same number of dimensions as input "
                           "tensor (%d vs %d)",
                           op, index->ndim, self->ndim);
    for (int i = 0; i < self->ndim && index->ndim && !empty; i++)
        if (i != d && index->sizes[i] > self->sizes[i])
            return clops__fail(CLOPS_INVALID_SHAPE,
                               "%s: Size does not match at dimension %d expected index [%lld] to be "
                               "smaller than self [%lld] apart from dimension %d",
                               op, i, (long long)index->sizes[i], (long long)self->sizes[i], d);
    /* A 0-dim self acts as 1-D of size 1; a 0-dim index gives a 0-dim
     * result (the plan walks the index's shape). */
    clops_tensor *s1 = NULL;
    if (self->ndim == 0) {
        const int64_t one = 1;
        st = core_reshape(self, &one, 1, &s1);
        if (st)
            return st;
    }
    gat_ctx c = {op, s1 ? s1 : self, index, d, false};
    clops_tensor *const inputs[2] = {self, index};
    st = run_structured(op, variant, dst, self, index->ndim, index->sizes, inputs, 2, build_gather,
                        &c, out);
    clops_tensor_release(s1);
    return st;
}

/* take_along_dim(self, indices, dim=None): gather along dim with self and
 * indices broadcast against each other in every other dim; negative
 * indices wrap.  Without dim, both are flattened (and negative indices are
 * errors, as in PyTorch). */
clops_status ix_fn_take_along_dim(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                                  clops_tensor *indices, const int64_t *dim, clops_tensor **out)
{
    const char *op = "take_along_dim";
    clops_status st = ix_check_index_dtype(op, "indices", indices, true);
    if (st)
        return st;
    clops_tensor *s = NULL, *ix = NULL;
    int d = 0;
    int64_t sizes[CLOPS_MAX_DIMS];
    int ndim = 0;
    if (!dim) {
        const int64_t m1 = -1;
        st = core_reshape(self, &m1, 1, &s);
        if (st == CLOPS_OK)
            st = core_reshape(indices, &m1, 1, &ix);
        ndim = 1;
        if (st == CLOPS_OK)
            sizes[0] = ix->sizes[0];
    } else {
        st = wrap_dim(op, *dim, self->ndim, &d);
        if (st == CLOPS_OK && self->ndim != indices->ndim)
            st = clops__fail(CLOPS_INVALID_SHAPE,
                             "%s: input and indices should have the same number of dimensions, "
                             "but got %d dimensions for input, and %d dimensions for indices",
                             op, self->ndim, indices->ndim);
        ndim = self->ndim;
        for (int i = 0; i < ndim && st == CLOPS_OK; i++) {
            int64_t a = self->sizes[i], b = indices->sizes[i];
            if (i == d)
                sizes[i] = b;
            else if (a == b || b == 1)
                sizes[i] = a;
            else if (a == 1)
                sizes[i] = b;
            else
                st = clops__fail(CLOPS_INVALID_SHAPE,
                                 "%s: shapes of input and indices cannot be broadcast at "
                                 "dimension %d (%lld vs %lld)",
                                 op, i, (long long)a, (long long)b);
        }
        if (st == CLOPS_OK && ndim == 0) {
            const int64_t one = 1;
            st = core_reshape(self, &one, 1, &s);
            if (st == CLOPS_OK)
                st = core_reshape(indices, &one, 1, &ix);
        } else if (st == CLOPS_OK) {
            s = clops_tensor_retain(self);
            ix = clops_tensor_retain(indices);
        }
    }
    if (st == CLOPS_OK) {
        /* PyTorch wraps negative indices along a dim, not in the flattened
         * form (a gather of the flattened tensor). */
        gat_ctx c = {op, s, ix, d, dim != NULL};
        clops_tensor *const inputs[2] = {self, indices};
        st = run_structured(op, variant, dst, self, ndim, sizes, inputs, 2, build_gather, &c, out);
    }
    clops_tensor_release(s);
    clops_tensor_release(ix);
    return st;
}

/* ---- take --------------------------------------------------------------------- */

typedef struct take_ctx {
    const clops_tensor *flat, *index;
} take_ctx;

static clops_status build_take(ix_plan *p, clops_tensor *t, void *vctx)
{
    const take_ctx *c = vctx;
    int64_t zero[CLOPS_MAX_DIMS] = {0};
    ix_plan_init(p, "take", t, c->flat, zero, c->flat->offset);
    p->wrap = true;
    return ix_plan_add_index(p, c->index, c->index->strides, 0, tensor_numel(c->flat), 1);
}

/* take(self, index): self read as a flat row-major array; negative indices
 * wrap.  A non-contiguous self is made contiguous first (one copy). */
clops_status ix_fn_take(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                        clops_tensor *index, clops_tensor **out)
{
    clops_status st = ix_check_index_dtype("take", "index", index, true);
    if (st)
        return st;
    clops_tensor *flat = NULL;
    st = core_contiguous(self, &flat);
    if (st == CLOPS_OK) {
        take_ctx c = {flat, index};
        clops_tensor *const inputs[2] = {self, index};
        st = run_structured("take", variant, dst, self, index->ndim, index->sizes, inputs, 2,
                            build_take, &c, out);
    }
    clops_tensor_release(flat);
    return st;
}

/* ---- embedding ------------------------------------------------------------------ */

typedef struct emb_ctx {
    const clops_tensor *weight, *indices;
} emb_ctx;

static clops_status build_embedding(ix_plan *p, clops_tensor *t, void *vctx)
{
    const emb_ctx *c = vctx;
    int n = c->indices->ndim;
    int64_t src_st[CLOPS_MAX_DIMS] = {0}, idx_st[CLOPS_MAX_DIMS] = {0};
    src_st[n] = c->weight->strides[1];
    for (int d = 0; d < n; d++)
        idx_st[d] = c->indices->strides[d];
    ix_plan_init(p, "embedding", t, c->weight, src_st, c->weight->offset);
    return ix_plan_add_index(p, c->indices, idx_st, 0, c->weight->sizes[0], c->weight->strides[0]);
}

/* embedding(weight, indices, ...): rows of the 2-D weight; the result has
 * indices' shape plus weight's row length.  padding_idx and the gradient
 * flags only matter for the backward. */
clops_status ix_fn_embedding(pw_variant variant, clops_tensor *dst, clops_tensor *weight,
                             clops_tensor *indices, int64_t padding_idx, bool scale_grad_by_freq,
                             bool sparse, clops_tensor **out)
{
    (void)padding_idx;
    (void)scale_grad_by_freq;
    (void)sparse;
    const char *op = "embedding";
    if (weight->ndim != 2)
        return clops__fail(CLOPS_INVALID_SHAPE, "%s: 'weight' must be 2-D, got %d dims", op,
                           weight->ndim);
    clops_status st = ix_check_index_dtype(op, "indices", indices, false);
    if (st)
        return st;
    if (indices->ndim + 1 > CLOPS_MAX_DIMS)
        return clops__fail(CLOPS_INVALID_SHAPE, "%s: indices have too many dims", op);
    int64_t sizes[CLOPS_MAX_DIMS];
    memcpy(sizes, indices->sizes, sizeof(int64_t) * (size_t)indices->ndim);
    sizes[indices->ndim] = weight->sizes[1];
    emb_ctx c = {weight, indices};
    clops_tensor *const inputs[2] = {weight, indices};
    return run_structured(op, variant, dst, weight, indices->ndim + 1, sizes, inputs, 2,
                          build_embedding, &c, out);
}

/* ---- flip, tril, triu --------------------------------------------------------- */

typedef struct copy_ctx {
    const char *op;
    const clops_tensor *self;
    int64_t src_st[CLOPS_MAX_DIMS];
    int64_t src_off;
    ix_tri tri;
    int64_t tri_k;
} copy_ctx;

static clops_status build_copy(ix_plan *p, clops_tensor *t, void *vctx)
{
    const copy_ctx *c = vctx;
    ix_plan_init(p, c->op, t, c->self, c->src_st, c->src_off);
    p->tri = c->tri;
    p->tri_k = c->tri_k;
    return CLOPS_OK;
}

/* flip(self, dims): reverses the listed dims (negative source strides). */
clops_status ix_fn_flip(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                        const int64_t *dims, int dims_len, clops_tensor **out)
{
    copy_ctx c = {"flip", self, {0}, self->offset, IX_TRI_NONE, 0};
    memcpy(c.src_st, self->strides, sizeof(int64_t) * (size_t)self->ndim);
    bool seen[CLOPS_MAX_DIMS] = {false};
    for (int i = 0; i < dims_len; i++) {
        int d = 0;
        clops_status st = wrap_dim("flip", dims[i], self->ndim, &d);
        if (st)
            return st;
        if (seen[d])
            return clops__fail(CLOPS_INVALID_ARGUMENT, "flip: dim %d appears multiple times in the "
                                                       "list of dims", d);
        seen[d] = true;
        if (self->ndim == 0)
            continue;
        if (self->sizes[d] > 0)
            c.src_off += (self->sizes[d] - 1) * self->strides[d];
        c.src_st[d] = -self->strides[d];
    }
    clops_tensor *const inputs[1] = {self};
    return run_structured("flip", variant, dst, self, self->ndim, self->sizes, inputs, 1,
                          build_copy, &c, out);
}

/* tril/triu: the triangle on or below (above) diagonal k of the last two
 * dims; the rest is zero. */
static clops_status tri_common(const char *op, ix_tri tri, pw_variant variant, clops_tensor *dst,
                               clops_tensor *self, int64_t diagonal, clops_tensor **out)
{
    if (self->ndim < 2)
        return clops__fail(CLOPS_INVALID_SHAPE, "%s: input tensor must have at least 2 dimensions",
                           op);
    copy_ctx c = {op, self, {0}, self->offset, tri, diagonal};
    memcpy(c.src_st, self->strides, sizeof(int64_t) * (size_t)self->ndim);
    clops_tensor *const inputs[1] = {self};
    return run_structured(op, variant, dst, self, self->ndim, self->sizes, inputs, 1, build_copy,
                          &c, out);
}

clops_status ix_fn_tril(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                        int64_t diagonal, clops_tensor **out)
{
    return tri_common("tril", IX_TRI_LOWER, variant, dst, self, diagonal, out);
}

clops_status ix_fn_triu(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                        int64_t diagonal, clops_tensor **out)
{
    return tri_common("triu", IX_TRI_UPPER, variant, dst, self, diagonal, out);
}
