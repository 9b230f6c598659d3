/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ops/index/index_factory.c: the factories of the indexing family: the *_like
 * factories, scalar_tensor, eye, arange's short overloads, linspace,
 * logspace, tril_indices/triu_indices, and repeat_interleave and
 * diag_embed (which build their results from index_select and a diagonal
 * view).
 *
 * Values that follow from a few scalars (linspace, logspace, the triangle
 * indices) are computed on the host in double precision, as PyTorch's CPU
 * kernels do, and uploaded once; the rest run on the device through the
 * fill and copy kernels.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "codegen_pointwise/pw.h"
#include "ops/index/index.h"
#include "ops/kernels_generated.h"

#define IX_LAYOUT_STRIDED 0
#define IX_MF_CONTIGUOUS 1
#define IX_MF_PRESERVE 0

/* Only the strided layout exists in clops. */
static clops_status check_strided(const char *op, int64_t layout)
{
    if (layout >= 0 && layout != IX_LAYOUT_STRIDED)
        return clops__fail(CLOPS_UNSUPPORTED, "%s: only the strided layout is supported (got %lld)",
                           op, (long long)layout);
    return CLOPS_OK;
}

/* An uninitialised tensor like self: dtype and device overridable, laid
 * out as self (memory_format preserve, PyTorch's default) or contiguous. */
static clops_status new_like(const char *op, clops_tensor *self, clops_dtype dtype, int64_t layout,
                             clops_device *device, int64_t memory_format, clops_tensor **out)
{
    clops_status st = check_strided(op, layout);
    if (st)
        return st;
    int64_t strides[CLOPS_MAX_DIMS];
    const clops_tensor *in[1] = {self};
    if (memory_format == IX_MF_CONTIGUOUS)
        contiguous_strides(self->ndim, self->sizes, strides);
    else
        pw_output_strides(in, 1, self->ndim, self->sizes, strides);
    st = tensor_new(device ? device : self->storage->device,
                    dtype == CLOPS_DTYPE_NONE ? self->dtype : dtype, self->ndim, self->sizes,
                    strides, out);
    return st ? clops__error_prefix(st, "%s", op) : CLOPS_OK;
}

clops_status ix_empty_like(clops_tensor *self, clops_dtype dtype, int64_t layout,
                           clops_device *device, const bool *pin_memory, int64_t memory_format,
                           clops_tensor **out)
{
    (void)pin_memory;
    return new_like("empty_like", self, dtype, layout, device, memory_format, out);
}

/* A like-factory filled with value. */
static clops_status filled_like(const char *op, clops_tensor *self, clops_scalar value,
                                clops_dtype dtype, int64_t layout, clops_device *device,
                                int64_t memory_format, clops_tensor **out)
{
    clops_tensor *t = NULL;
    clops_status st = new_like(op, self, dtype, layout, device, memory_format, &t);
    if (st == CLOPS_OK)
        st = tensor_fill(t, value);
    if (st) {
        clops_tensor_release(t);
        return st;
    }
    *out = t;
    return CLOPS_OK;
}

clops_status ix_zeros_like(clops_tensor *self, clops_dtype dtype, int64_t layout,
                           clops_device *device, const bool *pin_memory, int64_t memory_format,
                           clops_tensor **out)
{
    (void)pin_memory;
    return filled_like("zeros_like", self, clops_scalar_int(0), dtype, layout, device,
                       memory_format, out);
}

clops_status ix_ones_like(clops_tensor *self, clops_dtype dtype, int64_t layout,
                          clops_device *device, const bool *pin_memory, int64_t memory_format,
                          clops_tensor **out)
{
    (void)pin_memory;
    return filled_like("ones_like", self, clops_scalar_int(1), dtype, layout, device,
                       memory_format, out);
}

clops_status ix_full_like(clops_tensor *self, clops_scalar fill_value, clops_dtype dtype,
                          int64_t layout, clops_device *device, const bool *pin_memory,
                          int64_t memory_format, clops_tensor **out)
{
    (void)pin_memory;
    return filled_like("full_like", self, fill_value, dtype, layout, device, memory_format, out);
}

/* scalar_tensor(s): a 0-dim tensor (float32 unless dtype says). */
clops_status ix_scalar_tensor(clops_scalar s, clops_dtype dtype, int64_t layout,
                              clops_device *device, const bool *pin_memory, clops_tensor **out)
{
    (void)pin_memory;
    clops_status st = check_strided("scalar_tensor", layout);
    return st ? st
              : clops_full(device, dtype == CLOPS_DTYPE_NONE ? CLOPS_FLOAT32 : dtype, 0, NULL, s,
                           out);
}

/* eye(n, m): ones on the main diagonal of an [n, m] zero matrix. */
clops_status ix_eye_m(int64_t n, int64_t m, clops_dtype dtype, int64_t layout,
                      clops_device *device, const bool *pin_memory, clops_tensor **out)
{
    (void)pin_memory;
    const char *op = "eye";
    clops_status st = check_strided(op, layout);
    if (st)
        return st;
    if (n < 0 || m < 0)
        return clops__fail(CLOPS_INVALID_ARGUMENT, "%s: n and m must be non-negative, got %lld, %lld",
                           op, (long long)n, (long long)m);
    int64_t sizes[2] = {n, m};
    clops_tensor *t = NULL, *diag = NULL;
    st = clops_zeros(device, dtype == CLOPS_DTYPE_NONE ? CLOPS_FLOAT32 : dtype, 2, sizes, &t);
    if (st == CLOPS_OK)
        st = core_diagonal(t, 0, 0, 1, &diag);
    if (st == CLOPS_OK)
        st = tensor_fill(diag, clops_scalar_int(1));
    clops_tensor_release(diag);
    if (st) {
        clops_tensor_release(t);
        return clops__error_prefix(st, "%s", op);
    }
    *out = t;
    return CLOPS_OK;
}

clops_status ix_eye(int64_t n, clops_dtype dtype, int64_t layout, clops_device *device,
                    const bool *pin_memory, clops_tensor **out)
{
    return ix_eye_m(n, n, dtype, layout, device, pin_memory, out);
}

/* arange(end) and arange(start, end): step 1. */
clops_status ix_arange_end(clops_scalar end, clops_dtype dtype, int64_t layout,
                           clops_device *device, const bool *pin_memory, clops_tensor **out)
{
    (void)pin_memory;
    clops_status st = check_strided("arange", layout);
    return st ? st
              : clops_arange(device, dtype, clops_scalar_int(0), end, clops_scalar_int(1), out);
}

clops_status ix_arange_start(clops_scalar start, clops_scalar end, clops_dtype dtype,
                             int64_t layout, clops_device *device, const bool *pin_memory,
                             clops_tensor **out)
{
    (void)pin_memory;
    clops_status st = check_strided("arange", layout);
    return st ? st : clops_arange(device, dtype, start, end, clops_scalar_int(1), out);
}

static double scalar_as_double(clops_scalar s)
{
    return s.kind == CLOPS_SCALAR_FLOAT ? s.v.f : s.kind == CLOPS_SCALAR_INT ? (double)s.v.i
                                                                             : (double)s.v.b;
}

/* linspace/logspace values: symmetric from both ends, as PyTorch computes
 * them (the first half from start, the second half from end). */
static clops_status spaced(const char *op, clops_scalar start, clops_scalar end, int64_t steps,
                           const double *base, clops_dtype dtype, int64_t layout,
                           clops_device *device, clops_tensor **out)
{
    clops_status st = check_strided(op, layout);
    if (st)
        return st;
    if (steps < 0)
        return clops__fail(CLOPS_INVALID_ARGUMENT, "%s: number of steps must be non-negative", op);
    double a = scalar_as_double(start), b = scalar_as_double(end);
    if (dtype == CLOPS_DTYPE_NONE)
        dtype = CLOPS_FLOAT32;
    /* The result first: a length the device cannot hold is refused before
     * the host computes that many values (and steps * 8 cannot wrap). */
    clops_device *cpu = NULL;
    clops_tensor *res = NULL;
    st = clops_device_get(0, &cpu);
    if (st == CLOPS_OK)
        st = clops_empty(device ? device : cpu, dtype, 1, &steps, &res);
    if (st)
        return clops__error_prefix(st, "%s", op);
    double *v = malloc((size_t)(steps ? steps : 1) * sizeof *v);
    if (!v) {
        clops_tensor_release(res);
        return clops__fail(CLOPS_HOST_OUT_OF_MEMORY, "%s: out of host memory", op);
    }
    /* PyTorch steps in float for the narrow float dtypes, else in double. */
    bool narrow = dtype == CLOPS_FLOAT32 || dtype == CLOPS_FLOAT16 || dtype == CLOPS_BFLOAT16;
    double step = steps > 1 ? (b - a) / (double)(steps - 1) : 0;
    float fa = (float)a, fb = (float)b, fstep = steps > 1 ? (fb - fa) / (float)(steps - 1) : 0;
    int64_t half = steps / 2;
    for (int64_t i = 0; i < steps; i++) {
        double x;
        if (narrow)
            x = steps == 1 ? fa : i < half ? fa + fstep * (float)i
                                           : fb - fstep * (float)(steps - 1 - i);
        else
            x = steps == 1 ? a : i < half ? a + step * (double)i
                                          : b - step * (double)(steps - 1 - i);
        v[i] = base ? (narrow ? (double)powf((float)*base, (float)x) : pow(*base, x)) : x;
    }
    clops_tensor *h = NULL;
    static const double zero = 0;
    st = clops_from_host(cpu, CLOPS_FLOAT64, 1, &steps, steps ? v : &zero,
                         (size_t)steps * sizeof *v, &h);
    free(v);
    if (st == CLOPS_OK)
        st = tensor_copy(res, h);
    clops_tensor_release(h);
    if (st) {
        clops_tensor_release(res);
        return st;
    }
    *out = res;
    return CLOPS_OK;
}

clops_status ix_linspace(clops_scalar start, clops_scalar end, int64_t steps, clops_dtype dtype,
                         int64_t layout, clops_device *device, const bool *pin_memory,
                         clops_tensor **out)
{
    (void)pin_memory;
    return spaced("linspace", start, end, steps, NULL, dtype, layout, device, out);
}

clops_status ix_logspace(clops_scalar start, clops_scalar end, int64_t steps, double base,
                         clops_dtype dtype, int64_t layout, clops_device *device,
                         const bool *pin_memory, clops_tensor **out)
{
    (void)pin_memory;
    return spaced("logspace", start, end, steps, &base, dtype, layout, device, out);
}

/*
 * Size of the lower triangle {(r, c): c - r <= offset} of a row x col
 * matrix, in closed form (PyTorch's get_tril_size, without its overflow):
 * rows below r0 hold nothing, rows r0..r1-1 hold r + offset + 1 elements
 * (a trapezoid), rows from r1 on are full.  False when the count overflows
 * int64.
 */
static bool tril_count(int64_t row, int64_t col, int64_t offset, int64_t *out)
{
    /* Offsets past -row or col change nothing: clamp them, so that every
     * sum below stays within [-row, row + col]. */
    int64_t o = offset < -row ? -row : offset > col ? col : offset;
    int64_t r0 = o < 0 ? -o : 0; /* first row with an element */
    int64_t r1 = row;            /* first full row: r + o + 1 >= col */
    if (geom_sub(col - 1, o, &r1))
        r1 = r1 < r0 ? r0 : r1 > row ? row : r1;
    else
        r1 = row;
    int64_t n = r1 - r0, a = r0 + o + 1, b = r1 - 1 + o + 1, ends, trap = 0, rect = 0;
    if (n > 0) {
        /* n terms from a to b = a + n - 1: (a + b) and n are never both odd. */
        if (!geom_add(a, b, &ends) ||
            !geom_mul(ends % 2 == 0 ? ends / 2 : ends, ends % 2 == 0 ? n : n / 2, &trap))
            return false;
    }
    return geom_mul(row - r1, col, &rect) && geom_add(trap, rect, out);
}

/* tril_indices/triu_indices: the [2, N] coordinates of the triangle of a
 * row x col matrix, row-major.  The count is closed-form; the coordinates
 * are written once, as int64 on the host, then converted and moved. */
static clops_status tri_indices(const char *op, bool lower, int64_t row, int64_t col,
                                int64_t offset, clops_dtype dtype, int64_t layout,
                                clops_device *device, clops_tensor **out)
{
    clops_status st = check_strided(op, layout);
    if (st)
        return st;
    if (row < 0 || col < 0)
        return clops__fail(CLOPS_INVALID_ARGUMENT,
                           "%s: row and col must be non-negative, got row %lld and col %lld", op,
                           (long long)row, (long long)col);
    /* (r, c) is in the upper triangle with offset o when (c, r) is in the
     * lower triangle of the col x row matrix with offset -o. */
    int64_t n = 0, bytes = 0;
    bool fits = lower ? tril_count(row, col, offset, &n)
                      : tril_count(col, row, offset == INT64_MIN ? INT64_MAX : -offset, &n);
    if (!fits || !geom_mul(n, 2 * (int64_t)sizeof(int64_t), &bytes))
        return clops__fail(CLOPS_INVALID_SHAPE,
                           "%s: the triangle of a %lld x %lld matrix with offset %lld has more "
                           "elements than int64 can count",
                           op, (long long)row, (long long)col, (long long)offset);
    clops_device *cpu = NULL;
    clops_tensor *h = NULL;
    int64_t shape[2] = {2, n};
    st = clops_device_get(0, &cpu);
    if (st == CLOPS_OK)
        st = tensor_new(cpu, CLOPS_INT64, 2, shape, NULL, &h);
    if (st) {
        clops_tensor_release(h);
        return clops__error_prefix(st, "%s (%lld x %lld, offset %lld: %lld bytes of coordinates)",
                                   op, (long long)row, (long long)col, (long long)offset,
                                   (long long)bytes);
    }
    /* Row r holds the columns [c0, c1): [0, min(r + o + 1, col)) of the
     * lower triangle, [max(r + o, 0), col) of the upper one, o the offset
     * clamped to [-row, col] (which changes no row); the lower triangle's
     * rows before -o are empty, the upper one's empty rows come last. */
    int64_t *v = h->storage->host_ptr;
    int64_t o = offset < -row ? -row : offset > col ? col : offset;
    int64_t k = 0;
    for (int64_t r = lower && o < 0 ? -o : 0; r < row && k < n; r++) {
        int64_t c0 = 0, c1 = col;
        if (lower && o < col - r)
            c1 = r + o + 1;
        else if (!lower)
            c0 = o >= col - r ? col : r + o > 0 ? r + o : 0;
        for (int64_t c = c0; c < c1; c++) {
            v[k] = r;
            v[n + k++] = c;
        }
    }
    if (dtype == CLOPS_DTYPE_NONE)
        dtype = CLOPS_INT64;
    if (dtype == CLOPS_INT64 && (!device || device == cpu)) {
        *out = h;
        return CLOPS_OK;
    }
    st = core_to_copy(h, dtype, device ? device : cpu, out);
    clops_tensor_release(h);
    return st;
}

clops_status ix_tril_indices(int64_t row, int64_t col, int64_t offset, clops_dtype dtype,
                             int64_t layout, clops_device *device, const bool *pin_memory,
                             clops_tensor **out)
{
    (void)pin_memory;
    return tri_indices("tril_indices", true, row, col, offset, dtype, layout, device, out);
}

clops_status ix_triu_indices(int64_t row, int64_t col, int64_t offset, clops_dtype dtype,
                             int64_t layout, clops_device *device, const bool *pin_memory,
                             clops_tensor **out)
{
    (void)pin_memory;
    return tri_indices("triu_indices", false, row, col, offset, dtype, layout, device, out);
}

/* ---- repeat_interleave ---------------------------------------------------- */

/* The index [0]*r0 + [1]*r1 + ... of repeat counts (n of them) on device. */
static clops_status repeat_index(const char *op, const int64_t *reps, int64_t n,
                                 clops_device *device, const int64_t *output_size,
                                 clops_tensor **out)
{
    int64_t total = 0;
    for (int64_t i = 0; i < n; i++) {
        if (reps[i] < 0)
            return clops__fail(CLOPS_INVALID_ARGUMENT, "%s: repeats can not be negative", op);
        if (!geom_add(total, reps[i], &total))
            return clops__fail(CLOPS_INVALID_SHAPE,
                               "%s: the repeats add up to more than int64 holds", op);
    }
    if (output_size && *output_size != total)
        return clops__fail(CLOPS_INVALID_ARGUMENT,
                           "%s: allocated size %lld does not match required size %lld", op,
                           (long long)*output_size, (long long)total);
    /* The index on the device first: a length it cannot hold is refused
     * before the host writes that many entries (and total * 8 cannot
     * wrap). */
    clops_tensor *idx = NULL;
    clops_status st = clops_empty(device, CLOPS_INT64, 1, &total, &idx);
    if (st)
        return clops__error_prefix(st, "%s", op);
    int64_t *v = malloc((size_t)(total ? total : 1) * sizeof *v);
    if (!v) {
        clops_tensor_release(idx);
        return clops__fail(CLOPS_HOST_OUT_OF_MEMORY, "%s: out of host memory", op);
    }
    int64_t k = 0;
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = 0; j < reps[i]; j++)
            v[k++] = i;
    st = total ? clops_tensor_from_host(idx, v, (size_t)total * sizeof *v) : CLOPS_OK;
    free(v);
    if (st) {
        clops_tensor_release(idx);
        return st;
    }
    *out = idx;
    return CLOPS_OK;
}

/* repeat_interleave.Tensor(repeats): [0]*repeats[0] + [1]*repeats[1] + ... */
clops_status ix_repeat_interleave_tensor(clops_tensor *repeats, const int64_t *output_size,
                                         clops_tensor **out)
{
    const char *op = "repeat_interleave";
    if (repeats->ndim > 1)
        return clops__fail(CLOPS_INVALID_SHAPE, "%s: repeats must be 0-dim or 1-dim tensor", op);
    clops_status st = ix_check_index_dtype(op, "repeats", repeats, false);
    int64_t *r = NULL, n = 0;
    if (st == CLOPS_OK)
        st = ix_read_int_elems(repeats, &r, &n);
    if (st == CLOPS_OK)
        st = repeat_index(op, r, n, repeats->storage->device, output_size, out);
    free(r);
    return st;
}

/* self's elements (along dim, or flattened) each repeated reps[i] times. */
static clops_status interleave(clops_tensor *self, const int64_t *reps, int64_t nreps,
                               const int64_t *dim, const int64_t *output_size,
                               clops_tensor **out)
{
    const char *op = "repeat_interleave";
    clops_tensor *src = NULL, *idx = NULL;
    clops_status st = CLOPS_OK;
    int d = 0;
    if (!dim) {
        const int64_t m1 = -1;
        st = core_reshape(self, &m1, 1, &src);
    } else {
        st = wrap_dim(op, *dim, self->ndim, &d);
        if (st == CLOPS_OK)
            src = clops_tensor_retain(self);
    }
    int64_t len = st == CLOPS_OK ? (src->ndim ? src->sizes[d] : 1) : 0;
    int64_t *full = NULL;
    if (st == CLOPS_OK && nreps != 1 && nreps != len)
        st = clops__fail(CLOPS_INVALID_ARGUMENT,
                         "%s: repeats must have the same size as input along dim, but got "
                         "repeats.size(0) = %lld and input.size(%d) = %lld",
                         op, (long long)nreps, d, (long long)len);
    if (st == CLOPS_OK) {
        full = malloc((size_t)(len ? len : 1) * sizeof *full);
        if (!full)
            st = clops__fail(CLOPS_HOST_OUT_OF_MEMORY, "%s: out of host memory", op);
        for (int64_t i = 0; full && i < len; i++)
            full[i] = reps[nreps == 1 ? 0 : i];
    }
    if (st == CLOPS_OK)
        st = repeat_index(op, full, len, self->storage->device, output_size, &idx);
    if (st == CLOPS_OK)
        st = ix_fn_index_select(PW_FUNCTIONAL, NULL, src, d, idx, out);
    free(full);
    clops_tensor_release(src);
    clops_tensor_release(idx);
    return st;
}

clops_status ix_repeat_interleave_self_int(clops_tensor *self, const int64_t *repeats,
                                           const int64_t *dim, const int64_t *output_size,
                                           clops_tensor **out)
{
    if (!repeats)
        return clops__fail(CLOPS_INVALID_ARGUMENT, "repeat_interleave: repeats is None");
    return interleave(self, repeats, 1, dim, output_size, out);
}

clops_status ix_repeat_interleave_self_tensor(clops_tensor *self, clops_tensor *repeats,
                                              const int64_t *dim, const int64_t *output_size,
                                              clops_tensor **out)
{
    int64_t *r = NULL, n = 0;
    clops_status st = ix_check_index_dtype("repeat_interleave", "repeats", repeats, false);
    if (st == CLOPS_OK)
        st = ix_read_int_elems(repeats, &r, &n);
    if (st == CLOPS_OK)
        st = interleave(self, r, n, dim, output_size, out);
    free(r);
    return st;
}

/* ---- diag_embed ------------------------------------------------------------ */

/* diag_embed(self, offset, dim1, dim2): the last dim of self laid on
 * diagonal `offset` of new dims dim1, dim2 of a zero tensor. */
clops_status ix_fn_diag_embed(pw_variant variant, clops_tensor *dst, clops_tensor *self,
                              int64_t offset, int64_t dim1, int64_t dim2, clops_tensor **out)
{
    const char *op = "diag_embed";
    int nd = self->ndim + 1, d1 = 0, d2 = 0;
    if (self->ndim == 0 || nd > CLOPS_MAX_DIMS)
        return clops__fail(CLOPS_INVALID_SHAPE, "%s: input must have 1 to %d dims", op,
                           CLOPS_MAX_DIMS - 1);
    clops_status st = wrap_dim(op, dim1, nd, &d1);
    if (st == CLOPS_OK)
        st = wrap_dim(op, dim2, nd, &d2);
    if (st == CLOPS_OK && d1 == d2)
        st = clops__fail(CLOPS_INVALID_ARGUMENT,
                         "%s: diagonal dimensions cannot be identical %lld, %lld", op,
                         (long long)dim1, (long long)dim2);
    if (st)
        return st;
    int64_t n = 0;
    if (offset == INT64_MIN ||
        !geom_add(self->sizes[self->ndim - 1], offset < 0 ? -offset : offset, &n))
        return clops__fail(CLOPS_INVALID_SHAPE,
                           "%s: a diagonal of %lld elements at offset %lld needs a size that "
                           "overflows int64",
                           op, (long long)self->sizes[self->ndim - 1], (long long)offset);
    int64_t sizes[CLOPS_MAX_DIMS];
    for (int i = 0, j = 0; i < nd; i++)
        sizes[i] = (i == d1 || i == d2) ? n : self->sizes[j++];
    structured_call call;
    clops_tensor *const inputs[1] = {self};
    st = structured_begin(&call, op, variant, dst, self->storage->device, self->dtype, nd, sizes,
                          inputs, 1);
    if (st)
        return st;
    clops_tensor *diag = NULL;
    st = tensor_fill(call.target, clops_scalar_int(0));
    if (st == CLOPS_OK)
        st = core_diagonal(call.target, offset, d1, d2, &diag);
    if (st == CLOPS_OK)
        st = core_copy_(diag, self, false);
    clops_tensor_release(diag);
    return structured_finish(&call, st, out);
}
