/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ops/scan/scan.c: the scan machinery (scan_run, ops/scan/scan.h): planning and
 * launching the reduce-then-scan kernels of cl_kernels/scan.cl, and the CPU
 * device's path to the reference (ref/scan.c).
 *
 * A scan along `dim` sees the tensor as lines: the dims before `dim`
 * coalesced into one (outer), the dims after it into another (inner).  A
 * tensor whose dims do not coalesce so (a permuted, non-dense view) is read
 * through a contiguous copy and written through a contiguous temporary;
 * every ordinary view (transposed, sliced with steps and offsets, expanded)
 * is scanned in place of its strides.
 *
 * Two kernel shapes, chosen by which direction is adjacent in memory:
 *   rows  the scanned dim has the smaller stride (a row of a row-major
 *         matrix): a work-group per (line, block), tiles of WG*VT elements
 *         staged through local memory;
 *   cols  the lines are adjacent (a column scan of a row-major matrix): a
 *         work-item per (line, chunk), coalesced across lines.
 * Both split a line into blocks only when there are too few lines to fill
 * the device: then a reduce launch, a scan of the block sums and a
 * downsweep launch (three launches, no inter-group waiting).  Block counts
 * depend on the shape only (not on the device), so one device gives the
 * same bits on every run.  CPU-like devices (KIT_CPU) run every scan with
 * the cols kernel, longer chunks and fewer of them (SCAN_CPU_*):
 * POCL runs the rows kernel's barriers and local-memory tiles as loops per
 * region.  Where the lines are adjacent in memory (column scans) their
 * cols kernel is scan_cols_cpu (cummax/cummin: scan_cols): 16 lanes per
 * work item side by side as one vector run, the same chunks and order per
 * lane as scan_cols (same bits).  Lines apart in memory (rows, a 1-D
 * tensor's chunks) take scan_chains_cpu: 4 lanes per work item as
 * independent scalar chains (scan_cols ran one serial chain per item,
 * bound by the add's latency), the same order per lane (same bits);
 * logsumexp of float/double takes scan_lines_cpu (8 lanes as vectors).
 */
#include <stdio.h>
#include <string.h>

#include "dispatch/structured.h"
#include "host/host.h"
#include "ops/tensor/tensor.h"
#include "ops/kit/kit.h"
#include "ops/kit/lines.h"
#include "ops/scan/scan.h"

/* Kernel-cache family tag of the scan kernels (pointwise uses 1). */
#define SCAN_KEY_FAMILY (2ull << 56)
/* Blocks are added until lines * blocks reaches this (rows kernel) ... */
#define SCAN_TARGET_GROUPS 1024
/* ... or lines * chunks reaches this (cols kernel). */
#define SCAN_TARGET_ITEMS 65536
/* At most this many blocks per line (the sums scan is sequential). */
#define SCAN_MAX_BLOCKS 1024
/* A cols chunk is at least this long. */
#define SCAN_MIN_CHUNK 64
/* CPU devices: every scan takes the cols kernel (a serial loop per line
 * and chunk, no local memory or barriers), with chunks added until
 * lines * chunks reaches SCAN_CPU_TARGET_ITEMS, each at least
 * SCAN_CPU_MIN_CHUNK long. */
#define SCAN_CPU_TARGET_ITEMS 256
#define SCAN_CPU_MIN_CHUNK 4096
/* Lanes of a scan_cols_cpu work item (SCAN_SL in cl_kernels/scan.cl). */
#define SCAN_CPU_LANES 16
/* Lanes of a scan_chains_cpu work item (SCAN_CL in cl_kernels/scan.cl). */
#define SCAN_CPU_CHAINS 4

/* CPU devices: work-groups of the CPU scan kernels of at least this many
 * items.  Each item's lanes are independent of the group (same bits for
 * every group size), but POCL 3.1's default work-group method (loopvec)
 * miscompiles scan_chains_cpu's four named chains in groups of 1 or 2
 * items: an item's lanes start from another lane's running total
 * (test_scan fails with groups of 1 or 2 under loopvec, passes under
 * POCL_WORK_GROUP_METHOD=cbs or repl, and passes with the named chains
 * taken out; groups of 4 and more pass). */
#define SCAN_CPU_MIN_LOCAL 4

/* --- kernel source --------------------------------------------------------- */

typedef struct scan_spec {
    scan_op kind;
    clops_dtype in, out;
    int wg, vt;
} scan_spec;

/* OpenCL expression of the smallest / largest value of an integer type. */
static const char *int_limit(clops_dtype dt, bool largest)
{
    switch (dt) {
    case CLOPS_BOOL:
        return largest ? "1" : "0";
    case CLOPS_UINT8:
        return largest ? "UCHAR_MAX" : "0";
    case CLOPS_INT8:
        return largest ? "CHAR_MAX" : "CHAR_MIN";
    case CLOPS_INT16:
        return largest ? "SHRT_MAX" : "SHRT_MIN";
    case CLOPS_INT32:
        return largest ? "INT_MAX" : "INT_MIN";
    default:
        return largest ? "LONG_MAX" : "LONG_MIN";
    }
}

/* Writes LOAD and STORE for the storage dtypes (CLOPS_LD/CLOPS_ST of the
 * prelude; bool reads and writes 0/1). */
static void io_macros(strbuf *sb, clops_dtype in, clops_dtype out)
{
    if (in == CLOPS_BOOL)
        sb_append(sb, "#define LOAD(p, k) ((ACC)((p)[k] != 0))\n");
    else
        sb_printf(sb, "#define LOAD(p, k) CLOPS_LD(%d, ACC, p, k)\n", (int)kit_load_store(in));
    if (out == CLOPS_BOOL)
        sb_append(sb, "#define STORE(p, k, v) ((p)[k] = (uchar)((v) != 0))\n");
    else
        sb_printf(sb, "#define STORE(p, k, v) CLOPS_ST(%d, T_OUT, ACC, p, k, v)\n",
                  (int)kit_load_store(out));
}

/* Whether CPU programs of s have scan_lines_cpu: float32/float64
 * logsumexp into the same dtype (its exp and log1p per element dominate:
 * 8 lanes per vector make it 8x cheaper on POCL 3.1).  Sums and products
 * keep scan_cols there: memory-bound, they measured 20-25% slower with
 * the transposes (cumsum rows [2048, 2048] 4.4 -> 5.5 ms, 1-D unchanged). */
static bool scan_lines_v8(const scan_spec *s)
{
    return s->in == s->out && (s->out == CLOPS_FLOAT32 || s->out == CLOPS_FLOAT64) &&
           s->kind == SCAN_LOGSUMEXP;
}

/* The defines of scan.cl's header for one (op, input dtype, result
 * dtype). */
static clops_status write_defines(const void *ctx, const clops_device *d, strbuf *sb)
{
    const scan_spec *s = ctx;
    bool fl = clops_dtype_is_floating(s->out);
    const char *acc = kit_cl_compute(s->out);
    sb_printf(sb, "#define T_IN %s\n#define T_OUT %s\n#define ACC %s\n",
              kit_cl_storage(s->in), kit_cl_storage(s->out), acc);
    sb_printf(sb, "#define WG %d\n#define VT %d\n", s->wg, s->vt);
    io_macros(sb, s->in, s->out);
    bool idx = s->kind == SCAN_MAX || s->kind == SCAN_MIN;
    sb_printf(sb, "#define SCAN_IDX %d\n", idx ? 1 : 0);
    /* CPU devices only (GPU programs are unchanged): scan_cols_cpu, and its
     * vector run for float/double sums and products. */
    if (kit_is_cpu(d)) {
        sb_append(sb, "#define SCAN_CPU 1\n");
        if (s->in == s->out && (s->out == CLOPS_FLOAT32 || s->out == CLOPS_FLOAT64) &&
            (s->kind == SCAN_SUM || s->kind == SCAN_PROD))
            sb_printf(sb, "#define SCAN_V16 %s16\n", acc);
    }
    switch (s->kind) {
    case SCAN_SUM:
        sb_append(sb, "#define IDENT ((ACC)0)\n#define COMBINE(a, b) ((a) + (b))\n");
        break;
    case SCAN_PROD:
        sb_append(sb, "#define IDENT ((ACC)1)\n#define COMBINE(a, b) ((a) * (b))\n");
        break;
    case SCAN_LOGSUMEXP:
        /* PyTorch's _log_add_exp_helper. */
        sb_printf(sb,
                  "#define IDENT ((ACC)-INFINITY)\n"
                  "ACC scan_lse(ACC x, ACC y)\n{\n"
                  "    ACC mn = isnan(y) ? y : fmin(x, y), mx = isnan(y) ? y : fmax(x, y);\n"
                  "    if (isnan(x))\n        mn = mx = x;\n"
                  "    if (mn != mx || isfinite(mn))\n"
                  "        return mx + log1p(exp(mn - mx));\n"
                  "    return x;\n}\n"
                  "#define COMBINE(a, b) scan_lse((a), (b))\n");
        break;
    default: {
        bool mx = s->kind == SCAN_MAX;
        if (fl)
            sb_printf(sb, "#define IDENT ((ACC)%sINFINITY)\n", mx ? "-" : "");
        else
            sb_printf(sb, "#define IDENT ((ACC)%s)\n", int_limit(s->out, !mx));
        if (fl)
            sb_printf(sb, "#define PICK_LATER(a, b) (isnan(b) || (!isnan(a) && (b) %s (a)))\n",
                      mx ? ">=" : "<=");
        else
            sb_printf(sb, "#define PICK_LATER(a, b) ((b) %s (a))\n", mx ? ">=" : "<=");
        break;
    }
    }
    /* CPU devices: scan_lines_cpu (logsumexp), 8 contiguous lanes as 8-wide
     * vectors. */
    if (kit_is_cpu(d) && scan_lines_v8(s)) {
        sb_printf(sb, "#define SCAN_V8 %s8\n#define SCAN_M8(m) %s\n", acc,
                  s->out == CLOPS_FLOAT64 ? "convert_ulong8(m)" : "(m)");
        sb_printf(sb, "%s8 scan_lse8(%s8 x, %s8 y)\n{\n"
                      "    %s8 mn = select(fmin(x, y), y, isnan(y)), mx = select(fmax(x, y), y, isnan(y));\n"
                      "    mn = select(mn, x, isnan(x));\n    mx = select(mx, x, isnan(x));\n"
                      "    return select(x, mx + log1p(exp(mn - mx)), mn != mx || isfinite(mn));\n}\n"
                      "#define COMBINE8(a, b) scan_lse8((a), (b))\n"
                      /* every CPU kernel's scalar steps through the same
                       * vector exp/log1p (POCL's scalar ones differ from
                       * its vector ones in the last bit): rows, columns
                       * and remainders give the same bits */
                      "#undef COMBINE\n"
                      "#define COMBINE(a, b) scan_lse8((%s8)(a), (%s8)(b)).s0\n",
                  acc, acc, acc, acc, acc, acc);
    }
    return CLOPS_OK;
}

static const char *const kind_names[SCAN_NOPS] = {"sum", "prod", "max", "min", "logsumexp"};

/* One of the program's kernels (scan_cols_cpu, scan_lines_cpu: CPU programs
 * only). */
static clops_status get_kernel(clops_device *d, const scan_spec *s, int which, host_kernel **out)
{
    static const char *const names[6] = {"scan_rows",     "scan_cols",      "scan_sums",
                                          "scan_cols_cpu", "scan_lines_cpu", "scan_chains_cpu"};
    host_kkey key = {{SCAN_KEY_FAMILY | ((uint64_t)s->kind << 40) | ((uint64_t)s->in << 32) |
                          ((uint64_t)s->out << 24) | ((uint64_t)which << 16) | (uint64_t)s->wg,
                      0, 0, 0}};
    char pname[96];
    snprintf(pname, sizeof pname, "scan/%s_%s_%s", kind_names[s->kind], kit_dtype_tag(s->in),
             kit_dtype_tag(s->out));
    kit_program p = {.name = pname, .write = write_defines, .file = "scan.cl", .ctx = s};
    return kit_kernel(d, &key, &p, names[which], which == 0 ? s->wg : 0, NULL, out);
}

static int64_t abs64(int64_t v)
{
    return v < 0 ? -v : v;
}

/* The work-group size of a CPU scan launch of `global` items: the largest
 * power of two, at least SCAN_CPU_MIN_LOCAL and at most k's default, that
 * gives every compute unit two groups (the default, 256, gave cumsum rows
 * [2048, 2048] two groups and logcumsumexp rows one: 2 and 1 of 16 cores
 * worked). */
static size_t scan_cpu_local(const clops_device *d, const host_kernel *k, size_t global)
{
    size_t cu = d->info.compute_units ? d->info.compute_units : 1;
    size_t local = SCAN_CPU_MIN_LOCAL;
    while (local * 2 <= k->wg_size && local * 2 * 2 * cu <= global)
        local *= 2;
    return local <= k->wg_size ? local : k->wg_size;
}

/* Runs the kernels over geometry-compatible src/dst(/idx) on an OpenCL
 * device. */
static clops_status run_cl(scan_op kind, clops_tensor *src, const ops_lines *gs,
                           clops_tensor *dst, const ops_lines *gd, clops_tensor *idx)
{
    clops_device *d = dst->storage->device;
    bool with_idx = kind == SCAN_MAX || kind == SCAN_MIN;
    scan_spec spec = {kind, src->dtype, dst->dtype, ops_wg_pow2(d, 256), 8};
    if (with_idx || clops_dtype_size(dst->dtype) == 8 || kind == SCAN_LOGSUMEXP)
        spec.vt = with_idx ? 4 : 8;
    int64_t lines = gs->outer * gs->inner, n = gs->n;
    /* Rows when the scanned dim is the closer one in memory. */
    int64_t line_stride = gs->inner > 1 ? gs->s_i : gs->s_o;
    bool cpu = kit_is_cpu(d);
    bool rows = !cpu && (lines == 1 || abs64(gs->s_n) <= abs64(line_stride));
    int64_t nblk = 1, tpb = 1, chunk = n;
    if (rows) {
        int64_t ntiles = ops_cdiv(n, (int64_t)spec.wg * spec.vt);
        if (lines < SCAN_TARGET_GROUPS)
            nblk = ops_cdiv(SCAN_TARGET_GROUPS, lines);
        if (nblk > SCAN_MAX_BLOCKS)
            nblk = SCAN_MAX_BLOCKS;
        if (nblk > ntiles)
            nblk = ntiles;
        tpb = ops_cdiv(ntiles, nblk);
        nblk = ops_cdiv(ntiles, tpb);
    } else {
        int64_t target = cpu ? SCAN_CPU_TARGET_ITEMS : SCAN_TARGET_ITEMS;
        int64_t min_chunk = cpu ? SCAN_CPU_MIN_CHUNK : SCAN_MIN_CHUNK;
        if (lines < target)
            nblk = ops_cdiv(target, lines);
        if (nblk > SCAN_MAX_BLOCKS)
            nblk = SCAN_MAX_BLOCKS;
        if (nblk > ops_cdiv(n, min_chunk))
            nblk = ops_cdiv(n, min_chunk);
        chunk = ops_cdiv(n, nblk);
        nblk = ops_cdiv(n, chunk);
    }
    /* CPU devices, lines adjacent in memory (a column scan of a row-major
     * matrix): SCAN_CPU_LANES lanes (line, chunk) per work item, side by
     * side, as vector runs (scan_cols_cpu; cummax/cummin keep scan_cols).
     * Lines apart in memory (rows, one line) keep scan_cols, one line's
     * chunk walked contiguously per item: interleaving 16 such lines or
     * chunks measured 6-8x slower on POCL 3.1. */
    bool lanes = cpu && !with_idx && lines >= SCAN_CPU_LANES &&
                 (gs->inner > 1 ? gs->s_i == 1 && gd->s_i == 1 : gs->s_o == 1 && gd->s_o == 1);
    /* CPU devices, each line contiguous (rows, a 1-D tensor), logsumexp: 8
     * lanes per item as vectors, transposed in registers (scan_lines_cpu). */
    bool lines8 = cpu && !lanes && scan_lines_v8(&spec) && gs->s_n == 1 && gd->s_n == 1 &&
                  lines * nblk >= 8;
    /* CPU devices, the other scans but cummax/cummin: SCAN_CPU_CHAINS
     * lanes per item as independent chains (scan_chains_cpu). */
    bool chains = cpu && !lanes && !lines8 && !with_idx && lines * nblk >= SCAN_CPU_CHAINS;
    host_kernel *k = NULL, *ks = NULL;
    clops_status st =
        get_kernel(d, &spec, rows ? 0 : lanes ? 3 : lines8 ? 4 : chains ? 5 : 1, &k);
    if (st == CLOPS_OK && nblk > 1)
        st = get_kernel(d, &spec, 2, &ks);
    if (st)
        return st;
    host_block *sums = NULL, *sidx = NULL;
    if (nblk > 1) {
        size_t cnt = (size_t)(lines * nblk);
        st = host_alloc(d, cnt * clops_dtype_size(clops_dtype_is_floating(dst->dtype) &&
                                                          clops_dtype_size(dst->dtype) < 8
                                                      ? CLOPS_FLOAT32
                                                      : dst->dtype),
                        &sums);
        if (st == CLOPS_OK && with_idx)
            st = host_alloc(d, cnt * sizeof(int64_t), &sidx);
        if (st)
            goto done;
    }
    cl_mem msrc = src->storage->block->mem, mdst = dst->storage->block->mem;
    cl_mem midx = with_idx ? idx->storage->block->mem : mdst;
    cl_mem msum = sums ? sums->mem : mdst, msidx = sidx ? sidx->mem : msum;
    int64_t xoff = with_idx ? idx->offset : 0;
    cl_long a_soff = gs->offset, a_so = gs->s_o, a_sn = gs->s_n, a_si = gs->s_i;
    cl_long a_doff = gd->offset, a_do = gd->s_o, a_dn = gd->s_n, a_di = gd->s_i;
    cl_long a_xoff = xoff, a_n = n, a_inner = gs->inner, a_lines = lines;
    cl_long a_third = rows ? tpb : chunk, a_nblk = nblk;
    cl_int mode = 0;
    host_arg args[] = {
        {sizeof(cl_mem), &msrc},  {sizeof a_soff, &a_soff}, {sizeof a_so, &a_so},
        {sizeof a_sn, &a_sn},     {sizeof a_si, &a_si},     {sizeof(cl_mem), &mdst},
        {sizeof a_doff, &a_doff}, {sizeof a_do, &a_do},     {sizeof a_dn, &a_dn},
        {sizeof a_di, &a_di},     {sizeof(cl_mem), &midx},  {sizeof a_xoff, &a_xoff},
        {sizeof a_n, &a_n},       {sizeof a_inner, &a_inner}, {sizeof a_third, &a_third},
        {sizeof a_nblk, &a_nblk}, {sizeof mode, &mode},     {sizeof(cl_mem), &msum},
        {sizeof(cl_mem), &msidx}};
    /* scan_cols takes `lines` before chunk: insert it. */
    host_arg cargs[20];
    const host_arg *use = args;
    int nargs = 19;
    if (!rows) {
        memcpy(cargs, args, sizeof(host_arg) * 14);
        cargs[14] = (host_arg){sizeof a_lines, &a_lines};
        memcpy(cargs + 15, args + 14, sizeof(host_arg) * 5);
        use = cargs;
        nargs = 20;
    }
    size_t global = rows    ? (size_t)(lines * nblk) * (size_t)spec.wg
                    : lanes  ? (size_t)ops_cdiv(lines * nblk, SCAN_CPU_LANES)
                    : lines8 ? (size_t)ops_cdiv(lines * nblk, 8)
                    : chains ? (size_t)ops_cdiv(lines * nblk, SCAN_CPU_CHAINS)
                             : (size_t)(lines * nblk);
    size_t local = cpu && !rows ? scan_cpu_local(d, k, global) : k->wg_size;
    if (nblk > 1) {
        mode = 0;
        st = host_launch_local(d, k, nargs, use, global, local);
        if (st == CLOPS_OK) {
            host_arg sargs[] = {{sizeof(cl_mem), &msum},
                                {sizeof(cl_mem), &msidx},
                                {sizeof a_lines, &a_lines},
                                {sizeof a_nblk, &a_nblk}};
            st = host_launch(d, ks, 4, sargs, (size_t)lines);
        }
    }
    if (st == CLOPS_OK) {
        mode = 1;
        st = host_launch_local(d, k, nargs, use, global, local);
    }
done:
    host_free(sums);
    host_free(sidx);
    return st;
}

clops_status scan_run(const char *op, scan_op kind, clops_tensor *src, int dim, clops_tensor *dst,
                      clops_tensor *idx)
{
    if (tensor_numel(src) == 0)
        return CLOPS_OK;
    clops_device *d = dst->storage->device;
    bool with_idx = kind == SCAN_MAX || kind == SCAN_MIN;
    if (kit_is_host(d))
        return ref_scan(kind, src, dim, dst, with_idx ? idx : NULL);
    clops_status st = check_dtype_on_device(op, dst->dtype, d);
    if (st == CLOPS_OK)
        st = check_dtype_on_device(op, src->dtype, d);
    if (st)
        return st;
    clops_tensor *s = NULL, *t = NULL, *ti = NULL;
    ops_lines gs, gd, gx;
    if (!ops_lines_of(src, dim, &gs)) {
        if ((st = core_contiguous(src, &s)))
            return st;
        ops_lines_of(s, dim, &gs);
    }
    clops_tensor *dd = dst, *xx = with_idx ? idx : NULL;
    bool dense_dst = ops_lines_of(dst, dim, &gd);
    /* The kernels address idx with dst's strides. */
    if (dense_dst && xx) {
        dense_dst = ops_lines_of(xx, dim, &gx) && gx.s_o == gd.s_o && gx.s_n == gd.s_n &&
                    gx.s_i == gd.s_i;
    }
    if (!dense_dst) {
        st = tensor_new(d, dst->dtype, dst->ndim, dst->sizes, NULL, &t);
        if (st == CLOPS_OK && xx)
            st = tensor_new(d, CLOPS_INT64, dst->ndim, dst->sizes, NULL, &ti);
        if (st)
            goto done;
        dd = t;
        xx = ti;
        ops_lines_of(t, dim, &gd);
    }
    st = run_cl(kind, s ? s : src, &gs, dd, &gd, xx);
    if (st == CLOPS_OK && t)
        st = core_copy_(dst, t, false);
    if (st == CLOPS_OK && ti)
        st = core_copy_(idx, ti, false);
done:
    clops_tensor_release(s);
    clops_tensor_release(t);
    clops_tensor_release(ti);
    if (st)
        return clops__error_prefix(st, "%s", op);
    return CLOPS_OK;
}
