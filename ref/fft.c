/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ref/fft.c: the FFT family's reference (ref/ref_fft.h), from the
 * definition of the discrete Fourier transform:
 *
 *   X[k] = sum_j x[j] exp(-+ 2 pi i j k / n)
 *
 * one line at a time along each transformed dim, in long double, with the
 * exponent's angle reduced exactly (j k mod n) before the sine and cosine.
 * r2c transforms the real input as complex numbers with imaginary part 0 and
 * keeps the first n/2 + 1 outputs of the last dim when one-sided; c2r runs
 * the backward c2c over every dim but the last, then along the last dim
 * reads the first n/2 + 1 values as the half of a Hermitian sequence (the
 * imaginary parts of the zero-frequency term, and of the n/2 term for even
 * n, do not contribute), as PyTorch's CPU (pocketfft) does.  O(n^2) per
 * line: the reference and the CPU device, not a fast path.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "ref/ref_fft.h"

typedef struct cplx {
    long double re, im;
} cplx;

static const long double two_pi = 6.283185307179586476925286766559005768L;

/* The element at storage offset off of t, as a complex number. */
static cplx load(const clops_tensor *t, int64_t off)
{
    const char *base = t->storage->host_ptr;
    cplx v = {0, 0};
    switch (t->dtype) {
    case CLOPS_FLOAT32:
        v.re = ((const float *)base)[off];
        break;
    case CLOPS_FLOAT64:
        v.re = ((const double *)base)[off];
        break;
    case CLOPS_COMPLEX64:
        v.re = ((const float *)base)[2 * off];
        v.im = ((const float *)base)[2 * off + 1];
        break;
    default: /* CLOPS_COMPLEX128 (the family checked the dtype) */
        v.re = ((const double *)base)[2 * off];
        v.im = ((const double *)base)[2 * off + 1];
        break;
    }
    return v;
}

static void store(clops_tensor *t, int64_t off, cplx v)
{
    char *base = t->storage->host_ptr;
    switch (t->dtype) {
    case CLOPS_FLOAT32:
        ((float *)base)[off] = (float)v.re;
        break;
    case CLOPS_FLOAT64:
        ((double *)base)[off] = (double)v.re;
        break;
    case CLOPS_COMPLEX64:
        ((float *)base)[2 * off] = (float)v.re;
        ((float *)base)[2 * off + 1] = (float)v.im;
        break;
    default:
        ((double *)base)[2 * off] = (double)v.re;
        ((double *)base)[2 * off + 1] = (double)v.im;
        break;
    }
}

/* Storage offset of t at multi-index pos. */
static int64_t offset_of(const clops_tensor *t, const int64_t *pos)
{
    int64_t o = t->offset;
    for (int i = 0; i < t->ndim; i++)
        o += pos[i] * t->strides[i];
    return o;
}

/* Advances a row-major multi-index over sizes (nd dims). */
static void next_index(int64_t *pos, const int64_t *sizes, int nd)
{
    for (int i = nd - 1; i >= 0; i--) {
        if (++pos[i] < sizes[i])
            return;
        pos[i] = 0;
    }
}

/* cos and sin of 2 pi t / n for t in [0, n), into tw (2 n values). */
static void twiddles(long double *tw, int64_t n)
{
    for (int64_t t = 0; t < n; t++) {
        long double a = two_pi * (long double)t / (long double)n;
        tw[2 * t] = cosl(a);
        tw[2 * t + 1] = sinl(a);
    }
}

/* The DFT of every line along dim d of the row-major array w (sizes nd
 * dims), in place; sign -1 forward, +1 backward. */
static clops_status dft_dim(cplx *w, const int64_t *sizes, int nd, int d, int sign)
{
    int64_t n = sizes[d], inner = 1, outer = 1;
    for (int i = d + 1; i < nd; i++)
        inner *= sizes[i];
    for (int i = 0; i < d; i++)
        outer *= sizes[i];
    if (n <= 1)
        return CLOPS_OK;
    long double *tw = malloc(sizeof(long double) * 2 * (size_t)n);
    cplx *line = malloc(sizeof(cplx) * (size_t)n);
    if (!tw || !line) {
        free(tw);
        free(line);
        return CLOPS__HOST_OOM("fft reference line");
    }
    twiddles(tw, n);
    for (int64_t o = 0; o < outer; o++)
        for (int64_t i = 0; i < inner; i++) {
            cplx *x = w + o * n * inner + i;
            for (int64_t j = 0; j < n; j++)
                line[j] = x[j * inner];
            for (int64_t k = 0; k < n; k++) {
                long double re = 0, im = 0;
                int64_t t = 0; /* j k mod n */
                for (int64_t j = 0; j < n; j++) {
                    long double c = tw[2 * t], s = sign * tw[2 * t + 1];
                    re += line[j].re * c - line[j].im * s;
                    im += line[j].re * s + line[j].im * c;
                    t += k;
                    if (t >= n)
                        t -= n;
                }
                x[k * inner].re = re;
                x[k * inner].im = im;
            }
        }
    free(tw);
    free(line);
    return CLOPS_OK;
}

/* c2r along the last transformed dim: reads the first n/2 + 1 values of
 * each line of w (sizes of `in`, dim d) and writes out. */
static clops_status c2r_last(const cplx *w, const int64_t *sizes, int nd, int d, int64_t n,
                             long double scale, clops_tensor *out)
{
    int64_t m = sizes[d], inner = 1, outer = 1;
    for (int i = d + 1; i < nd; i++)
        inner *= sizes[i];
    for (int i = 0; i < d; i++)
        outer *= sizes[i];
    long double *tw = malloc(sizeof(long double) * 2 * (size_t)n);
    if (!tw)
        return CLOPS__HOST_OOM("fft reference twiddles");
    twiddles(tw, n);
    int64_t pos[CLOPS_MAX_DIMS] = {0};
    for (int64_t o = 0; o < outer; o++)
        for (int64_t i = 0; i < inner; i++) {
            const cplx *v = w + o * m * inner + i;
            /* The output's multi-index of this line: o and i decoded. */
            int64_t r = o;
            for (int a = d - 1; a >= 0; a--) {
                pos[a] = r % sizes[a];
                r /= sizes[a];
            }
            r = i;
            for (int a = nd - 1; a > d; a--) {
                pos[a] = r % sizes[a];
                r /= sizes[a];
            }
            for (int64_t j = 0; j < n; j++) {
                long double x = v[0].re;
                int64_t t = 0;
                for (int64_t k = 1; 2 * k < n; k++) {
                    t += j;
                    t %= n;
                    x += 2 * (v[k * inner].re * tw[2 * t] - v[k * inner].im * tw[2 * t + 1]);
                }
                if (n % 2 == 0)
                    x += (j % 2 ? -1 : 1) * v[(n / 2) * inner].re;
                pos[d] = j;
                cplx y = {x * scale, 0};
                store(out, offset_of(out, pos), y);
            }
        }
    free(tw);
    return CLOPS_OK;
}

clops_status ref_fft(const ref_fft_problem *p)
{
    const clops_tensor *in = p->in;
    int nd = in->ndim;
    int64_t numel = 1;
    for (int i = 0; i < nd; i++)
        numel *= in->sizes[i]; /* fits: in is a tensor */
    if ((uint64_t)numel > SIZE_MAX / sizeof(cplx))
        return CLOPS__HOST_OOM("fft reference work array");
    int last = p->dims[p->ndims - 1];
    /* The number of points the normalization divides by. */
    long double points = 1;
    for (int i = 0; i < p->ndims; i++)
        points *= (long double)(p->kind == REF_FFT_C2R && i == p->ndims - 1 ? p->last_dim_size
                                                                              : in->sizes[p->dims[i]]);
    long double scale = p->normalization == 1   ? 1.0L / sqrtl(points)
                        : p->normalization == 2 ? 1.0L / points
                                                : 1.0L;
    if (numel == 0 || tensor_numel(p->out) == 0)
        return CLOPS_OK;
    cplx *w = malloc(sizeof(cplx) * (size_t)numel);
    if (!w)
        return CLOPS__HOST_OOM("fft reference work array");
    int64_t pos[CLOPS_MAX_DIMS] = {0};
    for (int64_t e = 0; e < numel; e++) {
        w[e] = load(in, offset_of(in, pos));
        next_index(pos, in->sizes, nd);
    }
    int sign = p->kind == REF_FFT_R2C || (p->kind == REF_FFT_C2C && p->forward) ? -1 : 1;
    int nc2c = p->kind == REF_FFT_C2R ? p->ndims - 1 : p->ndims;
    clops_status st = CLOPS_OK;
    for (int i = 0; i < nc2c && st == CLOPS_OK; i++)
        st = dft_dim(w, in->sizes, nd, p->dims[i], sign);
    if (st == CLOPS_OK && p->kind == REF_FFT_C2R)
        st = c2r_last(w, in->sizes, nd, last, p->last_dim_size, scale, p->out);
    else if (st == CLOPS_OK) {
        /* out's shape is in's, with the last dim cut to n/2 + 1 when
         * one-sided: walk out and read w at the same multi-index. */
        const clops_tensor *out = p->out;
        int64_t on = tensor_numel(out);
        memset(pos, 0, sizeof pos);
        for (int64_t e = 0; e < on; e++) {
            int64_t wi = 0;
            for (int a = 0; a < nd; a++)
                wi = wi * in->sizes[a] + pos[a];
            cplx v = {w[wi].re * scale, w[wi].im * scale};
            store(p->out, offset_of(out, pos), v);
            next_index(pos, out->sizes, nd);
        }
    }
    free(w);
    return st;
}
