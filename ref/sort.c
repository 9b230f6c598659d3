/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ref/sort.c: the CPU reference of the sort family: a stable sort of every
 * line along one dim on pairs (key, position), the same total order the
 * OpenCL kernels (cl_kernels/sort.cl) use, so both give identical results.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "ref/ref.h"
#include "ref/ref_sort.h"

typedef struct sort_pair {
    uint64_t key;
    int64_t pos;
} sort_pair;

uint64_t ref_sort_key(const void *base, int64_t index, clops_dtype dt)
{
    if (clops_dtype_is_floating(dt)) {
        double f = ref_load(base, index, dt, CLOPS_FLOAT64).f;
        uint64_t u;
        if (f != f)
            return UINT64_MAX;
        if (f == 0)
            f = 0.0;
        memcpy(&u, &f, sizeof u);
        return (u >> 63) ? ~u : (u | (1ull << 63));
    }
    int64_t i = ref_load(base, index, dt, CLOPS_INT64).i;
    return (uint64_t)i ^ (1ull << 63);
}

/* Orders pairs by key, then position. */
static int cmp_pair(const void *pa, const void *pb)
{
    const sort_pair *a = pa, *b = pb;
    if (a->key != b->key)
        return a->key < b->key ? -1 : 1;
    return (a->pos > b->pos) - (a->pos < b->pos);
}

clops_status ref_sort(const clops_tensor *src, int dim, bool descending, clops_tensor *vals,
                      clops_tensor *idx)
{
    int64_t numel = tensor_numel(src);
    if (numel == 0)
        return CLOPS_OK;
    int nd = src->ndim;
    int64_t n = nd ? src->sizes[dim] : 1;
    int64_t sn = nd ? src->strides[dim] : 0;
    sort_pair *pairs = malloc(sizeof(sort_pair) * (size_t)n);
    if (!pairs)
        return CLOPS__HOST_OOM("sort");
    size_t es = clops_dtype_size(src->dtype);
    const char *sb = src->storage->host_ptr;
    int64_t pos[CLOPS_MAX_DIMS];
    memset(pos, 0, sizeof pos);
    for (int64_t line = 0, lines = numel / n; line < lines; line++) {
        int64_t so = ref_line_offset(src, pos), vo = ref_line_offset(vals, pos),
                xo = ref_line_offset(idx, pos);
        for (int64_t k = 0; k < n; k++) {
            uint64_t key = ref_sort_key(sb, so + k * sn, src->dtype);
            pairs[k] = (sort_pair){descending ? ~key : key, k};
        }
        qsort(pairs, (size_t)n, sizeof *pairs, cmp_pair);
        for (int64_t k = 0; k < n; k++) {
            if (vals)
                memcpy((char *)vals->storage->host_ptr + (size_t)(vo + k * (nd ? vals->strides[dim] : 0)) * es,
                       sb + (size_t)(so + pairs[k].pos * sn) * es, es);
            if (idx)
                ((int64_t *)idx->storage->host_ptr)[xo + k * (nd ? idx->strides[dim] : 0)] =
                    pairs[k].pos;
        }
        ref_next_line(pos, src->sizes, nd, dim);
    }
    free(pairs);
    return CLOPS_OK;
}

/* Whether pair a comes before pair b in the sort's order (cmp_pair). */
static bool pair_before(sort_pair a, sort_pair b)
{
    return a.key != b.key ? a.key < b.key : a.pos < b.pos;
}

/* Restores the heap (the pair that comes last at the root) below i. */
static void heap_down(sort_pair *h, int64_t n, int64_t i)
{
    for (;;) {
        int64_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < n && pair_before(h[m], h[l]))
            m = l;
        if (r < n && pair_before(h[m], h[r]))
            m = r;
        if (m == i)
            return;
        sort_pair t = h[i];
        h[i] = h[m];
        h[m] = t;
        i = m;
    }
}

/* Restores the heap above i. */
static void heap_up(sort_pair *h, int64_t i)
{
    while (i > 0) {
        int64_t parent = (i - 1) / 2;
        if (!pair_before(h[parent], h[i]))
            return;
        sort_pair t = h[i];
        h[i] = h[parent];
        h[parent] = t;
        i = parent;
    }
}

clops_status ref_topk(const clops_tensor *src, int dim, int64_t k, bool largest, clops_tensor *vals,
                      clops_tensor *idx)
{
    int64_t numel = tensor_numel(src);
    int nd = src->ndim;
    int64_t n = nd ? src->sizes[dim] : 1;
    if (numel == 0 || k <= 0 || k > n)
        return CLOPS_OK;
    int64_t sn = nd ? src->strides[dim] : 0;
    int64_t vn = nd ? vals->strides[dim] : 0, xn = nd ? idx->strides[dim] : 0;
    sort_pair *heap = malloc(sizeof(sort_pair) * (size_t)k);
    if (!heap)
        return CLOPS__HOST_OOM("topk");
    size_t es = clops_dtype_size(src->dtype);
    const char *sb = src->storage->host_ptr;
    int64_t pos[CLOPS_MAX_DIMS];
    memset(pos, 0, sizeof pos);
    for (int64_t line = 0, lines = numel / n; line < lines; line++) {
        int64_t so = ref_line_offset(src, pos), vo = ref_line_offset(vals, pos),
                xo = ref_line_offset(idx, pos);
        int64_t m = 0;
        for (int64_t j = 0; j < n; j++) {
            uint64_t key = ref_sort_key(sb, so + j * sn, src->dtype);
            sort_pair p = {largest ? ~key : key, j};
            if (m < k) {
                heap[m] = p;
                heap_up(heap, m++);
            } else if (pair_before(p, heap[0])) {
                heap[0] = p;
                heap_down(heap, k, 0);
            }
        }
        qsort(heap, (size_t)k, sizeof *heap, cmp_pair);
        for (int64_t t = 0; t < k; t++) {
            memcpy((char *)vals->storage->host_ptr + (size_t)(vo + t * vn) * es,
                   sb + (size_t)(so + heap[t].pos * sn) * es, es);
            ((int64_t *)idx->storage->host_ptr)[xo + t * xn] = heap[t].pos;
        }
        ref_next_line(pos, src->sizes, nd, dim);
    }
    free(heap);
    return CLOPS_OK;
}

void ref_searchsorted(const void *bd, const void *v, const int64_t *sorter, clops_dtype dt,
                      int64_t nb, int64_t brows, int64_t vrow, int64_t total, bool right,
                      int64_t *out)
{
    bool fl = clops_dtype_is_floating(dt);
    clops_dtype ct = fl ? CLOPS_FLOAT64 : CLOPS_INT64;
    for (int64_t g = 0; g < total; g++) {
        int64_t base = (brows == 1 ? 0 : g / vrow) * nb, lo = 0, hi = nb;
        ref_value val = ref_load(v, g, dt, ct);
        while (lo < hi) {
            int64_t mid = lo + ((hi - lo) >> 1);
            int64_t at = sorter ? sorter[base + mid] + base : base + mid;
            ref_value b = ref_load(bd, at, dt, ct);
            bool go_right = fl ? (right ? !(b.f > val.f) : !(b.f >= val.f))
                               : (right ? !(b.i > val.i) : !(b.i >= val.i));
            if (go_right)
                lo = mid + 1;
            else
                hi = mid;
        }
        out[g] = lo;
    }
}
