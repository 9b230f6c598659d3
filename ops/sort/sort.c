/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ops/sort/sort.c: the sort machinery (sort_run, ops/sort/sort.h): planning and
 * launching cl_kernels/sort.cl, and the CPU device's path to the reference
 * (ref/sort.c).
 *
 * Every line along `dim` is sorted as pairs (key, position), a total order,
 * so the result is the stable sort on every device (PyTorch's unstable
 * sort may order equal keys any way; the stable order is one of them).
 * A line of at most LMAX elements is one work-group's bitonic sort in local
 * memory, reading the input through its strides and writing values and
 * indices through theirs (no copies, any dim).  Longer lines are sorted in
 * blocks of LMAX, then merged by log2(n / LMAX) merge launches over
 * temporary (key, position) arrays, then written out.  Each phase is its
 * own launch; no work-group waits on another.
 */
#include <stdio.h>
#include <string.h>

#include "core/debug.h"
#include "host/host.h"
#include "ops/tensor/tensor.h"
#include "ops/kit/kit.h"
#include "ops/kit/lines.h"
#include "ops/sort/sort.h"

/* Kernel-cache family tag (pointwise 1, scan 2). */
#define SORT_KEY_FAMILY (3ull << 56)
/* Block length of sort_block (a power of two; LMAX pairs fit in 24 KiB),
 * halved with 64-bit positions. */
#define SORT_LMAX 2048
/* Longest block of sort_block_cpu (CPU devices; a power of two), and the
 * shortest worth its own kernel (below it the device's local memory is too
 * small and the work-group kernels run). */
#define SORT_LMAXC_MAX 8192
#define SORT_LMAXC_MIN 512
/* Outputs per unit of sort_merge_cpu. */
#define SORT_MCHUNK 8192

/* Block length of sort_block_cpu on device d for keys of ks bytes (dtype
 * of `size` bytes): the longest power of two whose two key/position arrays
 * and histograms fill at most half the local memory; 0 when not a CPU
 * device or below SORT_LMAXC_MIN.  Any block length gives the same result
 * (the stable order is unique). */
static int64_t sort_cpu_block(const clops_device *d, size_t size, bool wide)
{
    if (!kit_is_cpu(d))
        return 0;
    size_t ks = size == 8 ? 8 : 4, ps = wide ? 8 : 4;
    int64_t l = SORT_LMAXC_MAX;
    while (l >= SORT_LMAXC_MIN &&
           (uint64_t)(2 * l * (int64_t)(ks + ps)) + 256 * 4 * size > d->info.local_mem_bytes / 2)
        l /= 2;
    return l >= SORT_LMAXC_MIN ? l : 0;
}

/* wide: positions in a line are 64-bit (POS long), for lines of more than
 * 2^31-1 elements (or every line, with the sort.wide_positions setting). */
typedef struct sort_spec {
    clops_dtype dt;
    int wg;
    bool wide;
} sort_spec;

/* Whether lines of n elements need 64-bit positions. */
static bool sort_wide(int64_t n)
{
    return n > INT32_MAX || clops_debug_get(CLOPS_DEBUG_SORT_WIDE_POSITIONS);
}

/* Block length of sort_block. */
static int64_t sort_lmax(bool wide)
{
    return wide ? SORT_LMAX / 2 : SORT_LMAX;
}

/* The key expression of a dtype's storage value v (ascending order). */
static const char *key_expr(clops_dtype dt)
{
    switch (dt) {
    case CLOPS_BOOL:
    case CLOPS_UINT8:
        return "((uint)(v))";
    case CLOPS_INT8:
        return "((uint)((int)(v) + 128))";
    case CLOPS_INT16:
        return "((uint)((int)(v) + 32768))";
    case CLOPS_INT32:
        return "(as_uint(v) ^ 0x80000000u)";
    case CLOPS_INT64:
        return "(as_ulong(v) ^ 0x8000000000000000UL)";
    case CLOPS_FLOAT16:
        return "sort_key_f16((uint)(v), 0x7c00u)";
    case CLOPS_BFLOAT16:
        return "sort_key_f16((uint)(v), 0x7f80u)";
    case CLOPS_FLOAT32:
        return "sort_key_f32(as_uint(v))";
    default:
        return "sort_key_f64(as_ulong(v))";
    }
}

/* The defines of one dtype's program (sort.cl's header). */
static clops_status write_defines(const void *ctx, const clops_device *d, strbuf *sb)
{
    const sort_spec *s = ctx;
    /* float16 moves as its bits (no cl_khr_fp16 needed). */
    const char *t = kit_cl_bits(s->dt);
    sb_printf(sb, "#define T %s\n#define KEY %s\n#define TOKEY(v) %s\n#define WG %d\n", t,
              clops_dtype_size(s->dt) == 8 ? "ulong" : "uint", key_expr(s->dt), s->wg);
    sb_printf(sb, "#define LMAX %d\n#define POS %s\n#define POS_MAX %s\n", (int)sort_lmax(s->wide),
              s->wide ? "long" : "int", s->wide ? "0x7fffffffffffffffL" : "0x7fffffff");
    int64_t lc = sort_cpu_block(d, clops_dtype_size(s->dt), s->wide);
    if (lc)
        sb_printf(sb,
                  "#define LMAXC %lld\n#define KBYTES %d\n#define TKC_KMAX %d\n"
                  "#define MCHUNK %d\n",
                  (long long)lc, (int)clops_dtype_size(s->dt), SORT_TOPK_CPU_KMAX, SORT_MCHUNK);
    /* The NaN key of each float dtype (integers have none). */
    const char *nan_key = s->dt == CLOPS_FLOAT32                                   ? "0xffffffffu"
                          : s->dt == CLOPS_FLOAT64                                 ? "0xffffffffffffffffUL"
                          : s->dt == CLOPS_FLOAT16 || s->dt == CLOPS_BFLOAT16 ? "0xffffu"
                                                                                   : NULL;
    /* Values as numbers (searchsorted). */
    if (s->dt == CLOPS_FLOAT16)
        sb_append(sb, "#define VT float\n"
                        "#define LOADV(p, i) CLOPS_LD(1, VT, (__global const half *)(p), i)\n");
    else
        sb_printf(sb, "#define VT %s\n#define LOADV(p, i) CLOPS_LD(%d, VT, p, i)\n",
                  kit_cl_compute(s->dt), (int)kit_load_store(s->dt));
    /* Rounding to the storage type after each operation (histc). */
    sb_printf(sb, "#define RND(x) %s\n",
              s->dt == CLOPS_FLOAT16    ? "clops_round_half(x)"
              : s->dt == CLOPS_BFLOAT16 ? "clops_round_bf16(x)"
                                        : "(x)");
    if (nan_key)
        sb_printf(sb, "#define IS_NAN_KEY(k) ((k) == %s)\n", nan_key);
    else
        sb_append(sb, "#define IS_NAN_KEY(k) 0\n");
    return CLOPS_OK;
}

/* One of the program's kernels (sort_kid). */
static clops_status get_kernel(clops_device *d, const sort_spec *s, int which, host_kernel **out)
{
    static const char *const names[SORT_K_COUNT] = {
        "sort_block",    "sort_merge",   "sort_write",   "sort_pick",     "sort_search",
        "sort_mode",     "sort_uflags",  "sort_ucompact", "sort_ucounts", "sort_ugather",
        "sort_ucompose", "sort_bincount", "sort_histc",    "sort_topk",     "sort_block_cpu",
        "sort_topk_cpu", "sort_merge_cpu", "sort_histc_sum"};
    host_kkey key = {{SORT_KEY_FAMILY | ((uint64_t)s->wide << 32) | ((uint64_t)s->dt << 24) |
                          ((uint64_t)which << 16) | (uint64_t)s->wg,
                      0, 0, 0}};
    char pname[64];
    snprintf(pname, sizeof pname, "sort/%s%s", kit_dtype_tag(s->dt), s->wide ? "-pos64" : "");
    bool fixed_wg = which == SORT_K_BLOCK || which == SORT_K_MODE || which == SORT_K_TOPK;
    kit_program p = {.name = pname, .write = write_defines, .file = "sort.cl", .ctx = s};
    return kit_kernel(d, &key, &p, names[which], fixed_wg ? s->wg : 0, NULL, out);
}

clops_status sort_kernel(clops_device *d, clops_dtype dt, sort_kid which, host_kernel **out,
                         int *wg)
{
    sort_spec spec = {dt, ops_wg_pow2(d, 256), false};
    if (wg)
        *wg = spec.wg;
    return get_kernel(d, &spec, (int)which, out);
}

/* Sorts on an OpenCL device; geometries already checked. */
static clops_status run_cl(clops_tensor *src, const ops_lines *gs, bool desc, clops_tensor *vals,
                           const ops_lines *gv, clops_tensor *idx, const ops_lines *gx)
{
    clops_device *d = src->storage->device;
    int64_t n = gs->n, lines = gs->outer * gs->inner;
    sort_spec spec = {src->dtype, ops_wg_pow2(d, 256), sort_wide(n)};
    /* CPU devices: radix-sorted blocks of lc, one work item per run of
     * blocks. */
    int64_t lc = sort_cpu_block(d, clops_dtype_size(src->dtype), spec.wide);
    int64_t blk = lc ? lc : sort_lmax(spec.wide);
    int64_t nblk = ops_cdiv(n, blk);
    host_kernel *kb = NULL, *km = NULL, *kw = NULL;
    clops_status st = get_kernel(d, &spec, lc ? SORT_K_BLOCK_CPU : SORT_K_BLOCK, &kb);
    if (st == CLOPS_OK && nblk > 1)
        st = get_kernel(d, &spec, lc ? SORT_K_MERGE_CPU : SORT_K_MERGE, &km);
    if (st == CLOPS_OK && nblk > 1)
        st = get_kernel(d, &spec, 2, &kw);
    if (st)
        return st;
    size_t ks = clops_dtype_size(src->dtype) == 8 ? 8 : 4, ps = spec.wide ? 8 : 4;
    size_t cnt = (size_t)(lines * n);
    host_block *k0 = NULL, *k1 = NULL, *i0 = NULL, *i1 = NULL;
    if (nblk > 1) {
        if ((st = host_alloc(d, cnt * ks, &k0)) || (st = host_alloc(d, cnt * ks, &k1)) ||
            (st = host_alloc(d, cnt * ps, &i0)) || (st = host_alloc(d, cnt * ps, &i1)))
            goto done;
    }
    cl_mem msrc = src->storage->block->mem;
    cl_mem mval = vals ? vals->storage->block->mem : msrc;
    cl_mem midx = idx ? idx->storage->block->mem : msrc;
    cl_mem mk0 = k0 ? k0->mem : msrc, mi0 = i0 ? i0->mem : msrc;
    cl_long soff = gs->offset, s_o = gs->s_o, s_n = gs->s_n, s_i = gs->s_i;
    cl_long a_n = n, inner = gs->inner, a_nblk = nblk, a_lines = lines;
    cl_long voff = vals ? gv->offset : 0, v_o = vals ? gv->s_o : 0, v_n = vals ? gv->s_n : 0,
            v_i = vals ? gv->s_i : 0;
    cl_long xoff = idx ? gx->offset : 0, x_o = idx ? gx->s_o : 0, x_n = idx ? gx->s_n : 0,
            x_i = idx ? gx->s_i : 0;
    cl_int a_desc = desc, want_v = vals != NULL, want_x = idx != NULL;
    cl_long units = lines * nblk, per = ops_cpu_units_per_item(d, units);
#define A(x) {sizeof(x), &(x)}
    host_arg bargs[] = {A(msrc), A(soff), A(s_o),  A(s_n),  A(s_i),  A(a_n),    A(inner),
                        A(a_nblk), A(a_desc), A(mk0), A(mi0), A(mval), A(voff), A(v_o),
                        A(v_n),  A(v_i),  A(midx),  A(xoff), A(x_o), A(x_n),  A(x_i),
                        A(want_v), A(want_x), A(units), A(per)};
    int nb = (int)(sizeof bargs / sizeof bargs[0]);
    if (lc)
        st = host_launch_local(d, kb, nb, bargs, (size_t)ops_cdiv(units, per), 1);
    else
        st = host_launch(d, kb, nb - 2, bargs, (size_t)units * (size_t)spec.wg);
    /* Merge runs of blk, 2 blk, ... ping-ponging the arrays. */
    cl_mem kin = mk0, iin = mi0, kout = k1 ? k1->mem : msrc, iout = i1 ? i1->mem : msrc;
    for (cl_long w = blk; st == CLOPS_OK && nblk > 1 && w < n; w *= 2) {
        if (lc) {
            cl_long runs = ops_cdiv(n, 2 * w), cpr = ops_cdiv(2 * w, SORT_MCHUNK);
            cl_long mu = lines * runs * cpr, mper = ops_cpu_units_per_item(d, mu);
            host_arg margs[] = {A(kin), A(iin), A(kout), A(iout), A(a_n),
                                A(w),   A(runs), A(cpr),  A(mu),   A(mper)};
            st = host_launch_local(d, km, 10, margs, (size_t)ops_cdiv(mu, mper), 1);
        } else {
            host_arg margs[] = {A(kin), A(iin), A(kout), A(iout), A(a_n), A(a_lines), A(w)};
            st = host_launch(d, km, 7, margs, cnt);
        }
        cl_mem t = kin;
        kin = kout;
        kout = t;
        t = iin;
        iin = iout;
        iout = t;
    }
    if (st == CLOPS_OK && nblk > 1) {
        host_arg wargs[] = {A(iin),  A(msrc), A(soff), A(s_o),  A(s_n),  A(s_i),  A(a_n),
                            A(inner), A(a_lines), A(mval), A(voff), A(v_o), A(v_n),  A(v_i),
                            A(midx), A(xoff), A(x_o),  A(x_n),  A(x_i),  A(want_v), A(want_x)};
        st = host_launch(d, kw, (int)(sizeof wargs / sizeof wargs[0]), wargs, cnt);
    }
#undef A
done:
    host_free(k0);
    host_free(k1);
    host_free(i0);
    host_free(i1);
    return st;
}

clops_status sort_run(const char *op, clops_tensor *src, int dim, bool descending,
                      clops_tensor *vals, clops_tensor *idx)
{
    int64_t numel = tensor_numel(src);
    if (numel == 0)
        return CLOPS_OK;
    clops_device *d = src->storage->device;
    if (kit_is_host(d))
        return ref_sort(src, dim, descending, vals, idx);
    clops_status st = check_dtype_on_device(op, src->dtype, d);
    if (st)
        return st;
    clops_tensor *s = NULL, *tv = NULL, *tx = NULL;
    ops_lines gs, gv, gx;
    if (!ops_lines_of(src, dim, &gs)) {
        if ((st = core_contiguous(src, &s)))
            return st;
        ops_lines_of(s, dim, &gs);
    }
    clops_tensor *v = vals, *x = idx;
    if (v && !ops_lines_of(v, dim, &gv)) {
        if ((st = tensor_new(d, v->dtype, v->ndim, v->sizes, NULL, &tv)))
            goto done;
        v = tv;
        ops_lines_of(v, dim, &gv);
    }
    if (x && !ops_lines_of(x, dim, &gx)) {
        if ((st = tensor_new(d, CLOPS_INT64, x->ndim, x->sizes, NULL, &tx)))
            goto done;
        x = tx;
        ops_lines_of(x, dim, &gx);
    }
    st = run_cl(s ? s : src, &gs, descending, v, &gv, x, &gx);
    if (st == CLOPS_OK && tv)
        st = core_copy_(vals, tv, false);
    if (st == CLOPS_OK && tx)
        st = core_copy_(idx, tx, false);
done:
    clops_tensor_release(s);
    clops_tensor_release(tv);
    clops_tensor_release(tx);
    if (st)
        return clops__error_prefix(st, "%s", op);
    return CLOPS_OK;
}

clops_status sort_topk_select(clops_tensor *src, int dim, int64_t k, bool largest,
                              clops_tensor *vals, clops_tensor *idx, bool *done)
{
    *done = false;
    clops_device *d = src->storage->device;
    int64_t n = src->ndim ? src->sizes[dim] : 1;
    ops_lines gs, gv, gx;
    if (kit_is_host(d) && k >= 1) {
        /* The CPU device selects with a k-element heap per line: O(k)
         * extra memory where sorting the lines took 24 bytes an element. */
        clops_status st = ref_topk(src, dim, k, largest, vals, idx);
        *done = st == CLOPS_OK;
        return st;
    }
    /* CPU devices select with a heap per line: lines past 2^31-1 elements
     * take 64-bit positions (O(k) memory where the sort would take 24
     * bytes an element). */
    const bool wide = sort_wide(n);
    bool cpu = !kit_is_host(d) && sort_cpu_block(d, clops_dtype_size(src->dtype), wide) > 0;
    if (kit_is_host(d) || k < 1 || !ops_lines_of(src, dim, &gs) ||
        !ops_lines_of(vals, dim, &gv) || !ops_lines_of(idx, dim, &gx))
        return CLOPS_OK;
    if (cpu ? k > SORT_TOPK_CPU_KMAX
            : clops_dtype_size(src->dtype) > 4 || n > SORT_TOPK_NMAX || k > SORT_TOPK_KMAX)
        return CLOPS_OK;
    host_kernel *kt = NULL;
    sort_spec spec = {src->dtype, ops_wg_pow2(d, 256), cpu && wide};
    int wg = spec.wg;
    clops_status st = get_kernel(d, &spec, cpu ? SORT_K_TOPK_CPU : SORT_K_TOPK, &kt);
    if (st)
        return st;
    cl_mem msrc = sort_mem(src), mval = sort_mem(vals), midx = sort_mem(idx);
    cl_long soff = gs.offset, s_o = gs.s_o, s_n = gs.s_n, s_i = gs.s_i, a_n = n,
            inner = gs.inner;
    cl_long voff = gv.offset, v_o = gv.s_o, v_n = gv.s_n, v_i = gv.s_i;
    cl_long xoff = gx.offset, x_o = gx.s_o, x_n = gx.s_n, x_i = gx.s_i;
    cl_int a_k = (cl_int)k, a_desc = largest;
    cl_long lines = gs.outer * gs.inner, per = ops_cpu_units_per_item(d, lines);
#define A(x) {sizeof(x), &(x)}
    host_arg args[] = {A(msrc), A(soff), A(s_o), A(s_n), A(s_i), A(a_n),  A(inner),
                       A(a_k),  A(a_desc), A(mval), A(voff), A(v_o), A(v_n), A(v_i),
                       A(midx), A(xoff), A(x_o), A(x_n), A(x_i), A(lines), A(per)};
#undef A
    int na = (int)(sizeof args / sizeof args[0]);
    if (cpu)
        st = host_launch_local(d, kt, na, args, (size_t)ops_cdiv(lines, per), 1);
    else
        st = host_launch(d, kt, na - 2, args, (size_t)lines * (size_t)wg);
    *done = st == CLOPS_OK;
    return st;
}

clops_status sort_pick_median(const char *op, clops_tensor *sv, clops_tensor *si, int dim,
                              bool nan_median, clops_tensor *ov, clops_tensor *oi)
{
    ops_lines g;
    if (!ops_lines_of(sv, dim, &g))
        return clops__fail(CLOPS_INTERNAL, "%s: sorted temporary is not dense", op);
    int64_t lines = g.outer * g.inner, n = g.n;
    clops_device *d = sv->storage->device;
    if (kit_is_host(d)) {
        /* The same selection on the host. */
        size_t es = clops_dtype_size(sv->dtype);
        const char *vb = sv->storage->host_ptr;
        const int64_t *ib = si->storage->host_ptr;
        for (int64_t l = 0; l < lines; l++) {
            int64_t base = (l / g.inner) * g.s_o + (l % g.inner) * g.s_i, m = 0;
            bool fl = clops_dtype_is_floating(sv->dtype);
            while (m < n && !(fl && ref_sort_key(vb, base + m * g.s_n, sv->dtype) == UINT64_MAX))
                m++;
            int64_t pos = !nan_median ? (m < n ? m : (n - 1) / 2) : (m > 0 ? (m - 1) / 2 : 0);
            memcpy((char *)ov->storage->host_ptr + (size_t)l * es,
                   vb + (size_t)(base + pos * g.s_n) * es, es);
            ((int64_t *)oi->storage->host_ptr)[l] = ib[base + pos * g.s_n];
        }
        return CLOPS_OK;
    }
    sort_spec spec = {sv->dtype, ops_wg_pow2(d, 256), false};
    host_kernel *k = NULL;
    clops_status st = get_kernel(d, &spec, 3, &k);
    if (st)
        return st;
    cl_mem mv = sv->storage->block->mem, mi = si->storage->block->mem;
    cl_mem mo = ov->storage->block->mem, mx = oi->storage->block->mem;
    cl_long a_n = n, inner = g.inner, s_o = g.s_o, s_n = g.s_n, s_i = g.s_i, a_lines = lines;
    cl_int mode = nan_median;
#define A(x) {sizeof(x), &(x)}
    host_arg args[] = {A(mv), A(mi), A(a_n), A(inner), A(s_o), A(s_n), A(s_i), A(a_lines),
                       A(mode), A(mo), A(mx)};
#undef A
    return host_launch(d, k, 11, args, (size_t)lines);
}

clops_status sort_pick_mode(const char *op, clops_tensor *sv, clops_tensor *si, int dim,
                            clops_tensor *ov, clops_tensor *oi)
{
    ops_lines g;
    if (!ops_lines_of(sv, dim, &g))
        return clops__fail(CLOPS_INTERNAL, "%s: sorted temporary is not dense", op);
    int64_t lines = g.outer * g.inner;
    clops_device *d = sv->storage->device;
    if (kit_is_host(d)) {
        ref_sort_mode(sv->storage->host_ptr, si->storage->host_ptr, sv->dtype, g.n, g.inner, g.s_o,
                      g.s_n, g.s_i, lines, ov->storage->host_ptr, oi->storage->host_ptr);
        return CLOPS_OK;
    }
    host_kernel *k = NULL;
    int wg = 0;
    clops_status st = sort_kernel(d, sv->dtype, SORT_K_MODE, &k, &wg);
    if (st)
        return st;
    cl_mem mv = sv->storage->block->mem, mi = si->storage->block->mem;
    cl_mem mo = ov->storage->block->mem, mx = oi->storage->block->mem;
    cl_long a_n = g.n, inner = g.inner, s_o = g.s_o, s_n = g.s_n, s_i = g.s_i;
#define A(x) {sizeof(x), &(x)}
    host_arg args[] = {A(mv), A(mi), A(a_n), A(inner), A(s_o), A(s_n), A(s_i), A(mo), A(mx)};
#undef A
    return host_launch(d, k, 9, args, (size_t)lines * (size_t)wg);
}

clops_status sort_search_run(clops_tensor *bd, clops_tensor *v, clops_tensor *sorter, bool right,
                             clops_tensor *out)
{
    int64_t total = tensor_numel(v);
    if (total == 0)
        return CLOPS_OK;
    int64_t nb = bd->ndim ? bd->sizes[bd->ndim - 1] : 1;
    int64_t brows = nb ? tensor_numel(bd) / nb : 1;
    if (brows < 1)
        brows = 1;
    int64_t vrow = v->ndim ? v->sizes[v->ndim - 1] : 1;
    clops_device *d = v->storage->device;
    if (kit_is_host(d)) {
        ref_searchsorted(bd->storage->host_ptr, v->storage->host_ptr,
                         sorter ? sorter->storage->host_ptr : NULL, v->dtype, nb, brows, vrow,
                         total, right, out->storage->host_ptr);
        return CLOPS_OK;
    }
    sort_spec spec = {v->dtype, ops_wg_pow2(d, 256), false};
    host_kernel *k = NULL;
    clops_status st = get_kernel(d, &spec, 4, &k);
    if (st)
        return st;
    cl_mem mb = bd->storage->block ? bd->storage->block->mem : v->storage->block->mem;
    cl_mem mv = v->storage->block->mem, mo = out->storage->block->mem;
    cl_mem ms = sorter && sorter->storage->block ? sorter->storage->block->mem : mv;
    cl_int has = sorter != NULL, a_right = right;
    cl_long a_nb = nb, a_brows = brows, a_vrow = vrow, a_total = total;
#define A(x) {sizeof(x), &(x)}
    host_arg args[] = {A(mb), A(mv), A(ms), A(has), A(a_nb), A(a_brows), A(a_vrow), A(a_total),
                       A(a_right), A(mo)};
#undef A
    return host_launch(d, k, 10, args, (size_t)total);
}
