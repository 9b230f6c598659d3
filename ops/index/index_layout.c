/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ops/index/index_layout.c: layout ops of the indexing family built from views
 * and strided copies: repeat, roll, constant_pad_nd, and reflection and
 * replication padding of 1 to 3 trailing dims.
 *
 * repeat views its result as [r0, s0, r1, s1, ...] and copies self,
 * expanded along the r dims, into it (PyTorch's own formulation); roll
 * writes the two halves of each rolled dim with one copy each; constant
 * padding fills the result and copies self (narrowed where pads are
 * negative) into the interior; reflection and replication padding are
 * gather plans whose index vectors (output position -> input position of
 * each padded dim) are computed on the host and uploaded.  Each is one read
 * and one write per element.
 */
#include <stdlib.h>
#include <string.h>

#include "ops/index/index.h"
#include "ops/kernels_generated.h"

/* repeat(self, repeats): self tiled repeats[i] times along dim i (leading
 * repeats add dims). */
clops_status ix_fn_repeat(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                          const int64_t *repeats, int repeats_len, clops_tensor **out)
{
    const char *op = "repeat";
    if (repeats_len < self->ndim)
        return clops__fail(CLOPS_INVALID_ARGUMENT,
                           "%s: Number of dimensions of repeat dims can not be smaller than number "
                           "of dimensions of tensor (%d < %d)",
                           op, repeats_len, self->ndim);
    if (repeats_len > CLOPS_MAX_DIMS)
        return clops__fail(CLOPS_INVALID_ARGUMENT, "%s: %d repeat dims, at most %d", op,
                           repeats_len, CLOPS_MAX_DIMS);
    int n = repeats_len, lead = n - self->ndim;
    int64_t sizes[CLOPS_MAX_DIMS], ssz[CLOPS_MAX_DIMS], sst[CLOPS_MAX_DIMS];
    for (int i = 0; i < n; i++) {
        if (repeats[i] < 0)
            return clops__fail(CLOPS_INVALID_ARGUMENT,
                               "%s: Trying to create tensor with negative dimension %lld", op,
                               (long long)repeats[i]);
        ssz[i] = i < lead ? 1 : self->sizes[i - lead];
        sst[i] = i < lead ? 0 : self->strides[i - lead];
        if (!geom_mul(ssz[i], repeats[i], &sizes[i]))
            return clops__fail(CLOPS_INVALID_SHAPE,
                               "%s: size %lld repeated %lld times at dim %d overflows int64", op,
                               (long long)ssz[i], (long long)repeats[i], i);
    }
    structured_call call;
    clops_tensor *const inputs[1] = {self};
    clops_status st = structured_begin(&call, op, variant, dst, self->storage->device,
                                       self->dtype, n, sizes, inputs, 1);
    if (st)
        return st;
    /* Unfolded geometry: a dim with r > 1 and s > 1 becomes (r, s). */
    int64_t usz[CLOPS_MAX_DIMS], ust[CLOPS_MAX_DIMS], xsz[CLOPS_MAX_DIMS], xst[CLOPS_MAX_DIMS];
    int m = 0;
    clops_tensor *t = call.target;
    for (int i = 0; i < n && st == CLOPS_OK; i++) {
        if (repeats[i] > 1 && ssz[i] > 1) {
            if (m + 2 > CLOPS_MAX_DIMS) {
                st = clops__fail(CLOPS_UNSUPPORTED, "%s: too many repeated dims", op);
                break;
            }
            usz[m] = repeats[i];
            ust[m] = t->strides[i] * ssz[i];
            xsz[m] = repeats[i];
            xst[m++] = 0;
            usz[m] = ssz[i];
            ust[m] = t->strides[i];
            xsz[m] = ssz[i];
            xst[m++] = sst[i];
        } else {
            usz[m] = sizes[i];
            ust[m] = t->strides[i];
            xsz[m] = sizes[i];
            xst[m++] = ssz[i] == 1 ? 0 : sst[i];
        }
    }
    if (st == CLOPS_OK && tensor_numel(t) > 0) {
        clops_tensor *uv = NULL, *xv = NULL;
        st = tensor_make_view(op, t, m, usz, ust, t->offset, &uv);
        if (st == CLOPS_OK)
            st = tensor_make_view(op, self, m, xsz, xst, self->offset, &xv);
        if (st == CLOPS_OK)
            st = core_copy_(uv, xv, false);
        clops_tensor_release(uv);
        clops_tensor_release(xv);
    }
    return structured_finish(&call, st, out);
}

/* Writes src rolled by shift along dim into dst (same shape). */
static clops_status roll_one(clops_tensor *dst, clops_tensor *src, int64_t shift, int dim)
{
    int64_t n = src->sizes[dim];
    if (n == 0)
        return CLOPS_OK;
    int64_t s = ((shift % n) + n) % n;
    if (s == 0)
        return core_copy_(dst, src, false);
    clops_tensor *a = NULL, *b = NULL;
    clops_status st = core_narrow(dst, dim, s, n - s, &a);
    if (st == CLOPS_OK)
        st = core_narrow(src, dim, 0, n - s, &b);
    if (st == CLOPS_OK)
        st = core_copy_(a, b, false);
    clops_tensor_release(a);
    clops_tensor_release(b);
    a = b = NULL;
    if (st == CLOPS_OK)
        st = core_narrow(dst, dim, 0, s, &a);
    if (st == CLOPS_OK)
        st = core_narrow(src, dim, n - s, s, &b);
    if (st == CLOPS_OK)
        st = core_copy_(a, b, false);
    clops_tensor_release(a);
    clops_tensor_release(b);
    return st;
}

/* roll(self, shifts, dims): elements shifted cyclically along each dim;
 * without dims, along the flattened tensor. */
clops_status ix_fn_roll(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                        const int64_t *shifts, int shifts_len, const int64_t *dims, int dims_len,
                        clops_tensor **out)
{
    const char *op = "roll";
    if (dims_len == 0 && shifts_len != 1)
        return clops__fail(CLOPS_INVALID_ARGUMENT,
                           "%s: shifts and dimensions must align. shifts: %d, dims: %d", op,
                           shifts_len, dims_len);
    if (dims_len && shifts_len != dims_len)
        return clops__fail(CLOPS_INVALID_ARGUMENT,
                           "%s: shifts and dimensions must align. shifts: %d, dims: %d", op,
                           shifts_len, dims_len);
    int dd[CLOPS_MAX_DIMS];
    for (int i = 0; i < dims_len; i++) {
        clops_status st = wrap_dim(op, dims[i], self->ndim, &dd[i]);
        if (st)
            return st;
    }
    if (dims_len > CLOPS_MAX_DIMS)
        return clops__fail(CLOPS_INVALID_ARGUMENT, "%s: too many dims", op);
    structured_call call;
    clops_tensor *const inputs[1] = {self};
    clops_status st = structured_begin(&call, op, variant, dst, self->storage->device,
                                       self->dtype, self->ndim, self->sizes, inputs, 1);
    if (st)
        return st;
    if (dims_len == 0) {
        /* Flattened: roll a contiguous 1-D copy into the result's 1-D view. */
        clops_tensor *flat = NULL, *tflat = NULL, *tmp = NULL;
        const int64_t m1 = -1;
        int64_t n = tensor_numel(self);
        st = core_reshape(self, &m1, 1, &flat);
        if (st == CLOPS_OK)
            st = tensor_new(self->storage->device, self->dtype, 1, &n, NULL, &tmp);
        if (st == CLOPS_OK)
            st = roll_one(tmp, flat, shifts[0], 0);
        if (st == CLOPS_OK)
            st = core_reshape(tmp, self->sizes, self->ndim, &tflat);
        if (st == CLOPS_OK)
            st = core_copy_(call.target, tflat, false);
        clops_tensor_release(flat);
        clops_tensor_release(tflat);
        clops_tensor_release(tmp);
        return structured_finish(&call, st, out);
    }
    /* One dim at a time, through temporaries; the last writes the target. */
    clops_tensor *cur = clops_tensor_retain(self);
    for (int i = 0; i < dims_len && st == CLOPS_OK; i++) {
        clops_tensor *next = NULL;
        if (i == dims_len - 1)
            next = clops_tensor_retain(call.target);
        else
            st = tensor_new(self->storage->device, self->dtype, self->ndim, self->sizes, NULL,
                            &next);
        if (st == CLOPS_OK)
            st = roll_one(next, cur, shifts[i], dd[i]);
        clops_tensor_release(cur);
        cur = next;
    }
    clops_tensor_release(cur);
    return structured_finish(&call, st, out);
}

/* constant_pad_nd(self, pad, value): pad[2i], pad[2i+1] elements before and
 * after dim ndim-1-i; negative pads crop. */
clops_status ix_fn_constant_pad_nd(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                                   const int64_t *pad, int pad_len, clops_scalar value,
                                   clops_tensor **out)
{
    const char *op = "constant_pad_nd";
    if (pad_len % 2)
        return clops__fail(CLOPS_INVALID_ARGUMENT,
                           "%s: Length of pad must be even but instead it equals %d", op, pad_len);
    if (pad_len / 2 > self->ndim)
        return clops__fail(CLOPS_INVALID_ARGUMENT,
                           "%s: Length of pad should be no more than twice the number of "
                           "dimensions of the input. Pad length is %d while the input has %d "
                           "dimensions.",
                           op, pad_len, self->ndim);
    int64_t sizes[CLOPS_MAX_DIMS], lo[CLOPS_MAX_DIMS] = {0}, hi[CLOPS_MAX_DIMS] = {0};
    memcpy(sizes, self->sizes, sizeof(int64_t) * (size_t)self->ndim);
    for (int i = 0; i < pad_len / 2; i++) {
        int d = self->ndim - 1 - i;
        lo[d] = pad[2 * i];
        hi[d] = pad[2 * i + 1];
        /* Negative pads narrow the input first, the front then the back (as
         * PyTorch does): neither crop may take more than what is left. */
        int64_t left = self->sizes[d];
        if ((lo[d] < 0 && !geom_add(left, lo[d], &left)) || left < 0 ||
            (hi[d] < 0 && (!geom_add(left, hi[d], &left) || left < 0)))
            return clops__fail(CLOPS_INVALID_ARGUMENT,
                               "%s: narrow(): length must be non-negative (the padding %lld and "
                               "%lld of dimension %d crop more than its size %lld)",
                               op, (long long)lo[d], (long long)hi[d], d,
                               (long long)self->sizes[d]);
        if (!geom_add(self->sizes[d], lo[d], &sizes[d]) ||
            !geom_add(sizes[d], hi[d], &sizes[d]))
            return clops__fail(CLOPS_INVALID_SHAPE,
                               "%s: the input size %lld plus padding %lld and %lld of dimension "
                               "%d overflows int64",
                               op, (long long)self->sizes[d], (long long)lo[d], (long long)hi[d],
                               d);
        if (sizes[d] < 0)
            return clops__fail(CLOPS_INVALID_ARGUMENT,
                               "%s: The input size %lld, plus negative padding %lld and %lld "
                               "resulted in a negative output size, which is invalid. Check "
                               "dimension %d of your input.",
                               op, (long long)self->sizes[d], (long long)lo[d], (long long)hi[d],
                               d);
    }
    structured_call call;
    clops_tensor *const inputs[1] = {self};
    clops_status st = structured_begin(&call, op, variant, dst, self->storage->device,
                                       self->dtype, self->ndim, sizes, inputs, 1);
    if (st)
        return st;
    st = tensor_fill(call.target, value);
    clops_tensor *src = clops_tensor_retain(self), *to = clops_tensor_retain(call.target);
    bool empty = false;
    for (int d = 0; d < self->ndim && st == CLOPS_OK; d++) {
        int64_t s0 = lo[d] < 0 ? -lo[d] : 0, t0 = lo[d] > 0 ? lo[d] : 0;
        int64_t len = self->sizes[d] - s0 - (hi[d] < 0 ? -hi[d] : 0);
        if (len <= 0) {
            empty = true;
            break;
        }
        clops_tensor *a = NULL, *b = NULL;
        st = core_narrow(src, d, s0, len, &a);
        if (st == CLOPS_OK)
            st = core_narrow(to, d, t0, len, &b);
        clops_tensor_release(src);
        clops_tensor_release(to);
        src = a;
        to = b;
    }
    if (st == CLOPS_OK && !empty && src && to)
        st = core_copy_(to, src, false);
    clops_tensor_release(src);
    clops_tensor_release(to);
    return structured_finish(&call, st, out);
}

/* ---- reflection and replication padding ------------------------------------ */

typedef struct pad_ctx {
    const char *op;
    const clops_tensor *self;
    int npad;                 /* padded trailing dims: 1 to 3 */
    clops_tensor *idx[3];     /* per padded dim: output position -> input position */
} pad_ctx;

/* Source position of output position o of a padded dim (pads lo, size n). */
static int64_t pad_source(bool reflect, int64_t o, int64_t lo, int64_t n)
{
    int64_t i = o - lo;
    if (reflect) {
        if (i < 0)
            i = -i;
        if (i >= n)
            i = 2 * (n - 1) - i;
        return i;
    }
    return i < 0 ? 0 : i >= n ? n - 1 : i;
}

static clops_status build_pad(ix_plan *p, clops_tensor *t, void *vctx)
{
    const pad_ctx *c = vctx;
    int nd = t->ndim;
    int64_t src_st[CLOPS_MAX_DIMS];
    memcpy(src_st, c->self->strides, sizeof(int64_t) * (size_t)nd);
    for (int k = 0; k < c->npad; k++)
        src_st[nd - c->npad + k] = 0;
    ix_plan_init(p, c->op, t, c->self, src_st, c->self->offset);
    clops_status st = CLOPS_OK;
    for (int k = 0; k < c->npad && st == CLOPS_OK; k++) {
        int d = nd - c->npad + k;
        int64_t ist[CLOPS_MAX_DIMS] = {0};
        ist[d] = 1;
        st = ix_plan_add_index(p, c->idx[k], ist, d, c->self->sizes[d], c->self->strides[d]);
    }
    return st;
}

/* reflection_pad / replication_pad over the last npad dims (pad holds
 * (left, right) pairs from the last dim backwards). */
static clops_status pad_common(const char *op, bool reflect, int npad, pw_variant variant,
                               clops_tensor *dst, clops_tensor *self, const int64_t *pad,
                               int pad_len, clops_tensor **out)
{
    if (pad_len != 2 * npad)
        return clops__fail(CLOPS_INVALID_ARGUMENT, "%s: padding size is expected to be %d", op,
                           2 * npad);
    if (self->ndim != npad + 1 && self->ndim != npad + 2)
        return clops__fail(CLOPS_INVALID_SHAPE,
                           "%s: expected %dD or %dD (batch mode) tensor with possibly 0 batch size "
                           "and other non-zero dimensions for input, but got: %dD",
                           op, npad + 1, npad + 2, self->ndim);
    int64_t sizes[CLOPS_MAX_DIMS], lo[3], n[3];
    memcpy(sizes, self->sizes, sizeof(int64_t) * (size_t)self->ndim);
    pad_ctx c = {op, self, npad, {NULL, NULL, NULL}};
    for (int k = 0; k < npad; k++) {
        int d = self->ndim - npad + k;
        int64_t hi = pad[2 * (npad - 1 - k) + 1];
        lo[k] = pad[2 * (npad - 1 - k)];
        n[k] = self->sizes[d];
        if (reflect && (lo[k] >= n[k] || hi >= n[k]))
            return clops__fail(CLOPS_INVALID_ARGUMENT,
                               "%s: Padding size should be less than the corresponding input "
                               "dimension, but got: padding (%lld, %lld) at dimension %d of input "
                               "of size %lld",
                               op, (long long)lo[k], (long long)hi, d, (long long)n[k]);
        if (!geom_add(n[k], lo[k], &sizes[d]) || !geom_add(sizes[d], hi, &sizes[d]))
            return clops__fail(CLOPS_INVALID_SHAPE,
                               "%s: input size %lld at dimension %d with padding (%lld, %lld) "
                               "gives an output size that overflows int64",
                               op, (long long)n[k], d, (long long)lo[k], (long long)hi);
        if (sizes[d] < 1 || n[k] < 1)
            return clops__fail(CLOPS_INVALID_SHAPE,
                               "%s: input size %lld at dimension %d with padding (%lld, %lld) "
                               "gives output size %lld, which is invalid",
                               op, (long long)n[k], d, (long long)lo[k], (long long)hi,
                               (long long)sizes[d]);
    }
    /* The result first: a size the device cannot hold is refused before
     * the host builds index vectors of that length. */
    structured_call call;
    clops_tensor *const inputs[1] = {self};
    clops_status st = structured_begin(&call, op, variant, dst, self->storage->device,
                                       self->dtype, self->ndim, sizes, inputs, 1);
    if (st)
        return st;
    for (int k = 0; k < npad && st == CLOPS_OK; k++) {
        int d = self->ndim - npad + k;
        int64_t *v = malloc((size_t)sizes[d] * sizeof *v);
        if (!v)
            st = clops__fail(CLOPS_HOST_OUT_OF_MEMORY, "%s: out of host memory", op);
        for (int64_t o = 0; v && o < sizes[d]; o++)
            v[o] = pad_source(reflect, o, lo[k], n[k]);
        if (st == CLOPS_OK)
            st = clops_from_host(self->storage->device, CLOPS_INT64, 1, &sizes[d], v,
                                 (size_t)sizes[d] * sizeof *v, &c.idx[k]);
        free(v);
    }
    if (st == CLOPS_OK) {
        ix_plan p;
        st = build_pad(&p, call.target, &c);
        if (st == CLOPS_OK)
            st = ix_gather_run(&p);
    }
    st = structured_finish(&call, st, out);
    for (int k = 0; k < 3; k++)
        clops_tensor_release(c.idx[k]);
    return st;
}

clops_status ix_fn_reflection_pad1d(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                                    const int64_t *padding, int padding_len, clops_tensor **out)
{
    return pad_common("reflection_pad1d", true, 1, variant, dst, self, padding, padding_len, out);
}

clops_status ix_fn_reflection_pad2d(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                                    const int64_t *padding, int padding_len, clops_tensor **out)
{
    return pad_common("reflection_pad2d", true, 2, variant, dst, self, padding, padding_len, out);
}

clops_status ix_fn_replication_pad1d(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                                     const int64_t *padding, int padding_len, clops_tensor **out)
{
    return pad_common("replication_pad1d", false, 1, variant, dst, self, padding, padding_len,
                      out);
}

clops_status ix_fn_replication_pad2d(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                                     const int64_t *padding, int padding_len, clops_tensor **out)
{
    return pad_common("replication_pad2d", false, 2, variant, dst, self, padding, padding_len,
                      out);
}

clops_status ix_fn_reflection_pad3d(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                                    const int64_t *padding, int padding_len, clops_tensor **out)
{
    return pad_common("reflection_pad3d", true, 3, variant, dst, self, padding, padding_len, out);
}

clops_status ix_fn_replication_pad3d(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                                     const int64_t *padding, int padding_len, clops_tensor **out)
{
    return pad_common("replication_pad3d", false, 3, variant, dst, self, padding, padding_len,
                      out);
}
