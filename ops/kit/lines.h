/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ops/kit/lines.h: a tensor seen as lines along one dim, for the families that
 * work along a dim (scan, sort): the dims before `dim` coalesced into one
 * (outer), the dims after it into another (inner), so line l = (o, i) with
 * o = l / inner, i = l % inner has element k at
 *     offset + o * s_o + k * s_n + i * s_i.
 * Dense tensors and the usual views (transposed, step-sliced with an
 * offset, expanded) have such a geometry; a tensor that has none (a
 * permuted view with gaps) is copied by the caller.
 */
#ifndef CLOPS_OPS_LINES_H
#define CLOPS_OPS_LINES_H

#include <stdbool.h>

#include "core/tensor_impl.h"
#include "host/host.h"

typedef struct ops_lines {
    int64_t outer, n, inner;
    int64_t s_o, s_n, s_i;
    int64_t offset;
} ops_lines;

/* The line geometry of t along dim (0 for a 0-dim tensor: one line of one
 * element); false when the dims before or after dim do not coalesce. */
bool ops_lines_of(const clops_tensor *t, int dim, ops_lines *g);

/* The largest power of two <= cap that d runs as a work-group (kernels
 * with a fixed reqd_work_group_size and local arrays sized by it). */
int ops_wg_pow2(const clops_device *d, int cap);

/* Ceiling division of non-negative numbers. */
static inline int64_t ops_cdiv(int64_t a, int64_t b)
{
    return (a + b - 1) / b;
}

/* Units (rows, lines, blocks, planes) per work item of a CPU device's
 * serial kernels: d->max_chunks items at most (a few per core); units are
 * independent, so this changes no result.  Launch ops_cdiv(units, per)
 * items of one. */
static inline int64_t ops_cpu_units_per_item(const clops_device *d, int64_t units)
{
    int64_t items = d->max_chunks ? (int64_t)d->max_chunks : 1;
    return units > items ? ops_cdiv(units, items) : 1;
}

#endif /* CLOPS_OPS_LINES_H */
