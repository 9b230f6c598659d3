/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ops/attention/attention.c: fused scaled-dot-product attention
 * (dispatch/inventory/attention.yaml): _fused_attention (output, row
 * logsumexp and the dropout stream's (seed, offset)), its backward, and
 * scaled_dot_product_attention composed on it.
 *
 * A call is checked with PyTorch's rules, then described as the problem of
 * ref/ref_attention.h: every tensor seen as [B, H, rows, cols] through its
 * own strides (ranks 2 to 4; missing leading dims and broadcast mask dims
 * have stride 0), so no input is copied.  The CPU device runs the
 * reference (ref/attention.c); OpenCL devices run cl_kernels/attention.cl
 * (one program per dtype and padded head dimension), through the kit's
 * device-kind seam.  Dropout reserves ceil(B * Hq * L * S / 4) counters of
 * the generator (docs/random.md); the backward replays them from
 * rng_state.  docs/attention.md.
 */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "codegen_pointwise/pw.h"
#include "core/debug.h"
#include "dispatch/structured.h"
#include "host/host.h"
#include "ops/attention/attention.h"
#include "ops/kernels_generated.h"
#include "ops/kit/kit.h"
#include "ops/random/random.h"
#include "ops/tensor/tensor.h"
#include "ref/ref.h"

static void view4(attn_view *v, clops_tensor *t);
/* The launches' kernel choice (`mma`): the FMA kernels, the tensor-core
 * kernels of the driver's build, or those through the PTX route with
 * attn_ctas' occupancy (the driver's build where that asks for 1); for
 * the forward also attn_fwd_wg (Hopper's wgmma, ATTN_WG). */
enum { ATTN_FMA, ATTN_MMA_PLAIN, ATTN_MMA_ROUTED, ATTN_WG, ATTN_TF32 };
/* The backward's modes (ATTN_FMA, ATTN_MMA_PLAIN, ATTN_MMA_ROUTED: dQ and
 * by default dK/dV) with ATTN_WGB or'ed in: dK/dV on attn_bwd_dkv_wg
 * (Hopper's wgmma, its program's attn_bwd_fold after it); with ATTN_WGQ:
 * dQ on attn_bwd_dq_wg (attn12). */
#define ATTN_WGB 8
#define ATTN_WGQ 16
/* ATTN_CPUB (with ATTN_FMA): dK/dV and dQ on attn_bwd_dkv_cpu and
 * attn_bwd_dq_cpu (CPU devices, bwd_cpu). */
#define ATTN_CPUB 32
static clops_status bwd_launch(const attn_problem *p, int mma, int64_t *nsp_out);

/* ---- kernels ------------------------------------------------------------------------ */

enum {
    ATTN_K_FWD,
    ATTN_K_PRE,
    ATTN_K_DKV,
    ATTN_K_DQ,
    ATTN_K_FWD_MMA,
    ATTN_K_COMBINE,
    ATTN_K_DMASK,
    ATTN_K_DKV_MMA,
    ATTN_K_DQ_MMA,
    ATTN_K_FWD_CPU,
    ATTN_K_FOLD,
    ATTN_K_DKV_CPU,
    ATTN_K_DQ_CPU
};

#define ATTN_NT 128
#define ATTN_BQ 16
#define ATTN_BK 16
#define ATTN_SPLIT_MIN 256 /* the fewest keys of one split-KV chunk */
#define ATTN_DEC_MAXL 4    /* query lengths up to this run attn_fwd's decoding tiles */

/* attn_fwd_mma's 16-row atoms per warp (MR): 1 (8 warps of 16 rows).
 * CLOPS_ATTN_MMA_MR=2 (read once per process) gives 4 warps of 32 rows,
 * each key/value fragment read from __local serving two mma.sync:
 * measured slower on the H100 in one job (GPT-2 bf16 266 against 188 us,
 * Llama 771 against 596 us; docs/benchmarks.md). */
static int attn_mma_mr(void)
{
    static atomic_int env = -1;
    int e = atomic_load_explicit(&env, memory_order_relaxed);
    if (e < 0) {
        const char *v = host_env("CLOPS_ATTN_MMA_MR");
        e = v && strcmp(v, "1") == 0 ? 1 : v && strcmp(v, "2") == 0 ? 2 : 0;
        atomic_store_explicit(&env, e, memory_order_relaxed);
    }
    return e ? e : 1;
}

/*
 * The tensor-core kernels' work-group shapes: `warps` 16-row (or 16-key)
 * slices per work-group — attn_fwd_mma's MW (query rows 16 MW, MW / MR
 * warps), attn_bwd_dkv_mma's BKW (keys 16 BKW, BKW warps),
 * attn_bwd_dq_mma's QBW (query rows 16 QBW, QBW warps) — per kernel
 * (ATTN_R_FWD, ATTN_R_DKV, ATTN_R_DQ) and padded head dim (32, 64, 128).
 * CLOPS_ATTN_WARPS="fwd=4,dkv=8,dq=4" (read once per process; any
 * subset; 4 or 8, and 16 for the forward: 256 query rows, 512 items,
 * built through the PTX route) sets a kernel's count at every head dim,
 * for benchmarks (bench/attention_mask_job.sh).  Measured on an H200
 * (docs/attention.md, "Work-group shapes"): the defaults won.
 */
enum { ATTN_R_FWD, ATTN_R_DKV, ATTN_R_DQ };
static const int attn_warps_default[3][3] = {
    /* d32 d64 d128 */
    {8, 8, 8}, /* attn_fwd_mma */
    {4, 4, 4}, /* attn_bwd_dkv_mma */
    {8, 8, 8}, /* attn_bwd_dq_mma */
};

/* The value of `name`=N in a comma-separated environment variable read
 * once into env[3] (-1 before; 0 where absent or outside lo..hi). */
static int attn_env_kern(atomic_int env[3], const char *var, int kern, int lo, int hi)
{
    if (atomic_load_explicit(&env[0], memory_order_relaxed) < 0) {
        const char *v = host_env(var);
        static const char *const names[3] = {"fwd=", "dkv=", "dq="};
        for (int i = 0; i < 3; i++) {
            const char *s = v ? strstr(v, names[i]) : NULL;
            int c = s ? atoi(s + strlen(names[i])) : 0;
            atomic_store_explicit(&env[i], c >= lo && c <= hi ? c : 0, memory_order_relaxed);
        }
    }
    return atomic_load_explicit(&env[kern], memory_order_relaxed);
}

static int attn_dclass(int dp)
{
    return dp <= 32 ? 0 : dp <= 64 ? 1 : 2;
}

static int attn_warps(int kern, int dp)
{
    static atomic_int env[3] = {-1, -1, -1};
    int e = attn_env_kern(env, "CLOPS_ATTN_WARPS", kern, 4, 16);
    return e == 4 || e == 8 || (e == 16 && kern == ATTN_R_FWD)
               ? e
               : attn_warps_default[kern][attn_dclass(dp)];
}

/* attn_fwd_mma's query rows per work-group (MBQ: 16 MW) and work items
 * (MNT: MW / MR warps). */
static int attn_fwd_rows(int dp)
{
    return 16 * attn_warps(ATTN_R_FWD, dp);
}

static int attn_mma_nt(int dp)
{
    return 32 * attn_warps(ATTN_R_FWD, dp) / attn_mma_mr();
}

/* The padded head dimension of a problem: 32, 64, 128 or 256. */
static int attn_dpad(const attn_problem *p)
{
    int64_t m = p->E > p->Ev ? p->E : p->Ev;
    int dp = 32;
    while (dp < m)
        dp *= 2;
    return dp;
}

/* attn_fwd's query tile for query length L: 16 rows, or for decoding
 * (L <= ATTN_DEC_MAXL) L rounded up to 1, 2 or 4. */
static int attn_fwd_bq(int64_t L)
{
    return L > ATTN_DEC_MAXL ? ATTN_BQ : L <= 1 ? 1 : L <= 2 ? 2 : 4;
}

/* attn_fwd's key tile for query tile bq and padded head dimension dp: 16,
 * or with decoding tiles 8192 / dp keys, at most 128 (about 33 KiB of
 * __local memory). */
static int attn_fwd_bk(int bq, int dp)
{
    return bq == ATTN_BQ ? ATTN_BK : 8192 / dp < 128 ? 8192 / dp : 128;
}

/* The backward tile for padded head dimension dp (local memory: four
 * tiles of dp floats a row). */
static int attn_bt(int dp)
{
    return dp <= 128 ? 16 : 8;
}

typedef struct attn_prog {
    clops_dtype dt;
    int dp, bq; /* attn_fwd's query tile (attn_fwd_bq) */
    /* KIT_MMA devices' tensor-core programs: 1 attn_fwd_mma, 2
     * attn_bwd_dkv_mma and attn_bwd_fold, 3 attn_bwd_dq_mma; Hopper's: 4
     * attn_fwd_wg, 5 attn_bwd_dkv_wg and attn_bwd_fold */
    int mma;
    int xm; /* the tensor-core programs: 1 general, 0 lean (attn_xm) */
    int wbk; /* attn_fwd_wg's key tile (mma 4), attn_bwd_dkv_wg's query step (5),
              * attn_bwd_dq_wg's key step (6) */
    int wks; /* attn_bwd_dkv_wg: K and V in __local (WKS) */
    int wgn; /* attn_fwd_wg's warpgroups of 64 query rows (WGN, attn_wg_n) */
    int late; /* attn_fwd_wg: tile copies after the products (WG_LATE, attn_wg_late) */
    int t3f; /* attn_fwd_tf32 (mma 7): bit 0 its query fragments split once (TQPRE), bits
              * 1-2 where its products are promoted (TPROMO 0-3); wgn its warps (TW), wbk
              * its key tile (TBK) */
} attn_prog;

/*
 * The tensor-core kernels' occupancy: work-groups per SM that ptxas is
 * asked to fit (1: the driver's own build).  Above 1 the program goes
 * through the PTX route (host_kernel_request.ptx_target: the device's own
 * sm_<major><minor>) with the entry's directives
 * (ptx_entry_directives) `.reqntid n, 1, 1` (what reqd_work_group_size
 * writes) and
 * `.minnctapersm c`: ptxas then caps the registers at 65536 / (c n) an
 * item (128 for two 256-item forward work-groups), spilling what does not
 * fit.  Per kernel (attn_fwd_mma, attn_bwd_dkv_mma, attn_bwd_dq_mma) and
 * padded head dim (32, 64, 128): measured on an H200 (docs/attention.md).
 * CLOPS_ATTN_CTAS="fwd=2,dkv=1,dq=1" (read once per process; any subset)
 * sets a kernel's count for every head dim, for benchmarks.
 */
/* bench/attention_job.sh on an H200 (2026-11-28, bfloat16, causal; µs,
 * the driver's build -> routed): the forward GPT-2 (d64) 163.0 -> 123.7,
 * Llama (d128, 392 bytes of spills) 504.9 -> 487.3; the backward GPT-2
 * 1264.9 -> 1157.6 with dK/dV at 3 (168 registers) and -> 1167.8 with dQ
 * at 2, Llama 3313.6 -> 4593.9 and 3583.8 (spills of 1-2 KiB an item).
 * d32 takes d64's (fewer registers; not timed). */
static const int attn_ctas_default[3][3] = {
    /* d32 d64 d128 */
    {2, 2, 2}, /* attn_fwd_mma */
    {3, 3, 1}, /* attn_bwd_dkv_mma */
    {2, 2, 1}, /* attn_bwd_dq_mma */
};

static int attn_ctas(int kern, int dp)
{
    static atomic_int env[3] = {-1, -1, -1};
    int e = attn_env_kern(env, "CLOPS_ATTN_CTAS", kern, 1, 8);
    return e ? e : attn_ctas_default[kern][attn_dclass(dp)];
}

/* Whether kernel kern at padded head dim dp is built through the PTX
 * route: attn_ctas asks for more than one work-group per SM, or the
 * forward's work-groups exceed 256 items (CLOPS_ATTN_WARPS=fwd=16: the
 * entry's `.reqntid 512` has ptxas fit 128 registers an item). */
static bool attn_routes(int kern, int dp)
{
    return attn_ctas(kern, dp) > 1 || (kern == ATTN_R_FWD && attn_mma_nt(dp) > 256);
}

/* The tensor-core kernels' lean programs (ATTN_XM 0: no boolean or
 * additive mask, no dropout; masked tiles test bounds and causality
 * through attention_vis.clh's column ranges, in fewer registers) for the
 * problems without those: on by default; CLOPS_ATTN_MASK_SPLIT=0 (read
 * once per process) gives every problem the general program (ATTN_XM 1,
 * attn_score per element), for benchmarks (bench/attention_mask_job.sh). */
static bool attn_env_off(atomic_int *cache, const char *name);
static bool attn_env_is(atomic_int *cache, const char *name, const char *val);
static atomic_int attn_general_forced;
static int attn_msplit(void)
{
    static atomic_int off = -1;
    return !attn_env_off(&off, "CLOPS_ATTN_MASK_SPLIT") &&
           !atomic_load_explicit(&attn_general_forced, memory_order_relaxed);
}

void attention_force_general(bool on)
{
    atomic_store_explicit(&attn_general_forced, on ? 1 : 0, memory_order_relaxed);
}

static clops_status write_defines(const void *vctx, const clops_device *d, strbuf *sb)
{
    const attn_prog *c = vctx;
    sb_printf(sb, "#define T %s\n#define KIND %d\n#define D %d\n#define BQ %d\n#define BK %d\n"
                  "#define BT %d\n#define NT %d\n",
              kit_cl_storage(c->dt), (int)kit_load_store(c->dt), c->dp, c->bq,
              attn_fwd_bk(c->bq, c->dp), attn_bt(c->dp), ATTN_NT);
    if (c->mma == 7) {
        sb_printf(sb,
                  "#define ATTN_MMA 7\n#define MMA_TY \"bf16\"\n#define MR 1\n#define ATTN_XM 0\n"
                  "#define TW %d\n#define TBK %d\n#define TQPRE %d\n#define TPROMO %d\n",
                  c->wgn, c->wbk, c->t3f & 1, c->t3f >> 1 & 3);
    } else if (c->mma >= 4) {
        /* attn_fwd_wg (4), attn_bwd_dkv_wg (5), attn_bwd_dq_wg (6): the lean programs only;
         * their products' atoms (wgmma_attn.clh) after the kit's headers */
        const char *wga = NULL;
        clops_status st = host_cl_source("wgmma_attn.clh", &wga);
        if (st)
            return st;
        sb_printf(sb,
                  "#define ATTN_MMA %d\n#define MMA_TY \"%s\"\n#define MR 1\n#define ATTN_XM 0\n"
                  "#define WBK %d\n#define WGN %d\n",
                  c->mma, c->dt == CLOPS_FLOAT16 ? "f16" : "bf16", c->wbk, c->wgn ? c->wgn : 2);
        if (c->mma == 4)
            sb_printf(sb, "#define WG_LATE %d\n", c->late);
        if (c->mma == 6)
            sb_printf(sb, "#define WK %d\n", c->wbk);
        if (c->mma == 5)
            sb_printf(sb, "#define WQ %d\n#define WKS %d\n", c->wbk, c->wks);
        sb_append(sb, "#line 1 \"wgmma_attn.clh\"\n");
        sb_append(sb, wga);
        sb_append(sb, "\n");
    } else if (c->mma) {
        static const char *const wname[3] = {"MW", "BKW", "QBW"};
        sb_printf(sb,
                  "#define ATTN_MMA %d\n#define MMA_TY \"%s\"\n#define MR %d\n"
                  "#define ATTN_XM %d\n#define %s %d\n",
                  c->mma, c->dt == CLOPS_FLOAT16 ? "f16" : "bf16", attn_mma_mr(), c->xm,
                  wname[c->mma - 1], attn_warps(c->mma - 1, c->dp));
    }
    /* CPU devices only (GPU programs are unchanged): attn_fwd_cpu,
     * attn_bwd_dkv_cpu, attn_bwd_dq_cpu. */
    if (kit_is_cpu(d))
        sb_append(sb, "#define ATTN_CPU 1\n");
    return CLOPS_OK;
}

static clops_status attn_kernel_route(clops_device *d, int which, clops_dtype dt, int dp, int bq,
                                      bool routed, int xm, const char *op, host_kernel **k);

/* Kernel `which` of the program of (dt, dp, bq: the forward's query tile,
 * ATTN_BQ but for the decoding programs). */
static clops_status attn_kernel(clops_device *d, int which, clops_dtype dt, int dp, int bq,
                                const char *op, host_kernel **k)
{
    return attn_kernel_route(d, which, dt, dp, bq, false, 1, op, k);
}

/* attn_kernel, the tensor-core kernels through the PTX route when routed
 * and attn_ctas asks for more than one work-group per SM, from their lean
 * program (ATTN_XM 0) when !xm. */
static clops_status attn_kernel_route(clops_device *d, int which, clops_dtype dt, int dp, int bq,
                                      bool routed, int xm, const char *op, host_kernel **k)
{
    static const char *const names[] = {"attn_fwd",         "attn_bwd_pre",     "attn_bwd_dkv",
                                        "attn_bwd_dq",      "attn_fwd_mma",     "attn_fwd_combine",
                                        "attn_bwd_dmask",   "attn_bwd_dkv_mma", "attn_bwd_dq_mma",
                                        "attn_fwd_cpu",     "attn_bwd_fold",    "attn_bwd_dkv_cpu",
                                        "attn_bwd_dq_cpu"};
    bool mma = which == ATTN_K_FWD_MMA || which == ATTN_K_DKV_MMA || which == ATTN_K_DQ_MMA ||
               which == ATTN_K_FOLD;
    /* the tensor-core programs: 1 the forward, 2 dK/dV and the fold, 3 dQ */
    int prog = !mma ? 0 : which == ATTN_K_FWD_MMA ? 1 : which == ATTN_K_DQ_MMA ? 3 : 2;
    /* The work-group kernels are launched with exactly ATTN_NT items
     * (attn_mma_nt for attn_fwd_mma, 32 attn_warps for the
     * tensor-core backward: reqd_work_group_size); the device must allow
     * that many.  attn_fwd_cpu, attn_bwd_dkv_cpu and attn_bwd_dq_cpu are
     * launched with work-groups of one item. */
    int warps = prog ? attn_warps(prog - 1, dp) : 0;
    int nt = which == ATTN_K_FWD_MMA   ? attn_mma_nt(dp)
             : which == ATTN_K_DKV_MMA || which == ATTN_K_DQ_MMA ? 32 * warps
                                       : ATTN_NT;
    /* the routed program's work-groups per SM (1: the driver's build); the
     * fold shares attn_bwd_dkv_mma's program */
    int ctas = routed && prog ? attn_ctas(prog - 1, dp) : 1;
    bool route = routed && prog && attn_routes(prog - 1, dp);
    char target[16] = "", entry[64] = "";
    if (route) {
        snprintf(target, sizeof target, "sm_%d%d", d->nv_cc_major, d->nv_cc_minor);
        if (ctas > 1)
            snprintf(entry, sizeof entry, ".reqntid %d, 1, 1\n.minnctapersm %d\n",
                     prog == 1 ? attn_mma_nt(dp) : 32 * warps, ctas);
        else
            snprintf(entry, sizeof entry, ".reqntid %d, 1, 1\n", nt);
    }
    host_kkey key = {{(0x41ull << 56) | ((uint64_t)which << 16) | (uint64_t)dt, (uint64_t)dp,
                      (uint64_t)bq, mma ? (uint64_t)attn_mma_mr() | (uint64_t)ctas << 8 | (uint64_t)(xm != 0) << 16 |
                                (uint64_t)route << 17 | (uint64_t)warps << 20
                          : 0}};
    /* The entry's directives are attn_bwd_dkv_mma's in the program it
     * shares with attn_bwd_fold: that kernel asks first (the route patches
     * the entry of the kernel that builds the program). */
    if (which == ATTN_K_FOLD && route) {
        clops_status st = attn_kernel_route(d, ATTN_K_DKV_MMA, dt, dp, bq, routed, xm, op, k);
        if (st)
            return st;
    }
    char pname[96], title[96], cta[16] = "", wtag[8] = "";
    const char *kind = !mma ? "" : attn_mma_mr() == 2 ? "-mma2" : "-mma";
    static const char *const pnames[4] = {"", "/fwd", "/bwd-dkv", "/bwd-dq"};
    if (route)
        snprintf(cta, sizeof cta, "/cta%d", ctas);
    /* the work-group's warps where they are not the first shapes' (8, 4, 8) */
    if (prog && warps != (prog == 2 ? 4 : 8))
        snprintf(wtag, sizeof wtag, "/w%d", warps);
    snprintf(pname, sizeof pname, "attention%s/%s/d%d%s%s%s%s%s", kind, clops_dtype_name(dt), dp,
             bq == ATTN_BQ ? "" : bq == 1 ? "/q1" : bq == 2 ? "/q2" : "/q4", pnames[prog], wtag,
             cta, mma && !xm ? "/lean" : "");
    snprintf(title, sizeof title, "clops attention program %s, head dim %d (ops/attention/attention.c)",
             clops_dtype_name(dt), dp);
    attn_prog ctx = {dt, dp, bq, prog, mma ? xm != 0 : 1, 0, 0, 0, 0, 0};
    kit_program p = {.name = pname,
                     .title = title,
                     .headers = {"random_math.clh", mma ? "mma.clh" : NULL, mma ? "attention_vis.clh" : NULL,
                                 NULL},
                     .write = write_defines,
                     .file = "attention.cl",
                     .ctx = &ctx,
                     .ptx_target = route ? target : NULL,
                     .ptx_entry_directives = route ? entry : NULL};
    clops_status st = kit_kernel(d, &key, &p, names[which], 0, op, k);
    if (!st && which != ATTN_K_COMBINE && which != ATTN_K_FWD_CPU &&
        which != ATTN_K_FOLD && which != ATTN_K_DKV_CPU && which != ATTN_K_DQ_CPU &&
        (*k)->wg_size < (size_t)nt)
        st = clops__fail(CLOPS_UNSUPPORTED, "%s: kernel %s needs work-groups of %d items; %s allows %zu",
                         op, names[which], nt, d->label, (*k)->wg_size);
    return st;
}

/*
 * The wgmma forward's settings (read once per process): where it runs
 * (CLOPS_ATTN_WGMMA=1: head dims 64 and 128, =0: nowhere; by default head
 * dim 128 only: the H200 job of 2026-11-28 found it correct at both and
 * faster at 128, Llama's forward 423.2 -> 373.0 us, while GPT-2's (64)
 * tied, 111.0 -> 109.0; docs/attention.md), its key tile WBK per padded head dim
 * (CLOPS_ATTN_WG_BK: 32, 48, 64 or 96 keys; the four __local slots must
 * fit 48 KiB: at head dim 128 32 or 48), and the work-groups per SM its
 * PTX route asks ptxas to fit (CLOPS_ATTN_WG_CTAS, 1-4; 1: the driver's
 * entry directives).
 */
static atomic_int attn_wg_set = -1; /* attention_set_wgmma: -1 the environment's */
static atomic_int attn_wg_fake;     /* attention_wgmma_pretend */

void attention_set_wgmma(int on)
{
    atomic_store_explicit(&attn_wg_set, on < 0 ? -1 : on ? 1 : 0, memory_order_relaxed);
}

void attention_wgmma_pretend(bool on)
{
    atomic_store_explicit(&attn_wg_fake, on ? 1 : 0, memory_order_relaxed);
}

static bool attn_wg_on(int dp)
{
    static atomic_int on = -1, off = -1;
    int set = atomic_load_explicit(&attn_wg_set, memory_order_relaxed);
    if (set >= 0)
        return set == 1;
    return attn_env_is(&on, "CLOPS_ATTN_WGMMA", "1") ||
           (dp == 128 && !attn_env_off(&off, "CLOPS_ATTN_WGMMA"));
}

/* An integer environment setting read once into *cache (-1 before; 0
 * when absent or outside lo..hi). */
static int attn_env_int(atomic_int *cache, const char *name, int lo, int hi)
{
    int e = atomic_load_explicit(cache, memory_order_relaxed);
    if (e < 0) {
        const char *v = host_env(name);
        int x = v ? atoi(v) : 0;
        e = x >= lo && x <= hi ? x : 0;
        atomic_store_explicit(cache, e, memory_order_relaxed);
    }
    return e;
}

static int attn_wg_bk(int dp)
{
    static atomic_int env = -1;
    int e = attn_env_int(&env, "CLOPS_ATTN_WG_BK", 32, 96);
    bool fits = (e == 32 || e == 48 || e == 64 || e == 96) && 4 * e * dp * 2 <= 49152;
    return fits ? e : dp <= 64 ? 64 : 48;
}

/* Default: two work-groups per SM at head dim 64 (clang's PTX: 127
 * registers unasked, 128 and 4 bytes of spills under the cap), one at 128
 * (180 registers; two would spill 488 bytes). */
/* attn_fwd_wg's warpgroups a work-group (CLOPS_ATTN_WG_N, 1 or 2; default
 * 2: 128 query rows a work-group, each K/V tile read once per 128 rows),
 * for benchmarks.  On the H200 (attn12) one warpgroup at 2-4 work-groups
 * an SM lost at both head dims (GPT-2 126.7-147.2 us against 108.7,
 * Llama 444.7-537.8 against 372.9); three (384 items) the driver refused:
 * at 168 registers its kernel allows 256 items. */
static int attn_wg_n(void)
{
    static atomic_int env = -1;
    int e = attn_env_int(&env, "CLOPS_ATTN_WG_N", 1, 2);
    return e ? e : 2;
}

/* attn_fwd_wg's tile copies issued after each step's products
 * (CLOPS_ATTN_WG_LATE=1; default before them), for benchmarks: on the
 * H200 (attn12) they lost a little (GPT-2 112.2 us against 108.7, Llama
 * 377.4 against 372.9; 254 registers at head dim 128 against 240). */
static int attn_wg_late(void)
{
    static atomic_int env = -1;
    return attn_env_int(&env, "CLOPS_ATTN_WG_LATE", 1, 1);
}

static int attn_wg_ctas(int dp)
{
    static atomic_int env = -1;
    int e = attn_env_int(&env, "CLOPS_ATTN_WG_CTAS", 1, 4);
    return e ? e : dp <= 64 ? 2 : 1;
}

/* Whether d can run attn_fwd_wg: wgmma needs sm_90a, NVIDIA's compute
 * capability 9.0 exactly (later architectures do not run sm_90a code),
 * or a test pretends so. */
static bool wg_device(const clops_device *d)
{
    if (atomic_load_explicit(&attn_wg_fake, memory_order_relaxed))
        return !kit_is_host(d);
    return kit_kind_of(d) == KIT_MMA && d->info.vendor == CLOPS_VENDOR_NVIDIA &&
           d->nv_cc_major == 9 && d->nv_cc_minor == 0;
}

/* Kernel kname of the wgmma program ctx (mma 4 or 5) under key, named
 * "attention-wgmma/<dtype>/d<dp>/<tag>[/cta<c>]": always through the PTX
 * route to sm_90a (the wgmma instructions behind "//@"), with `.reqntid
 * nt, 1, 1` and `.minnctapersm ctas` where ctas > 1; nt > 0: the
 * work-group the kernel needs (0: none, attn_bwd_fold). */
static clops_status wg_program_kernel(clops_device *d, const host_kkey *key, attn_prog *ctx,
                                      const char *tag, int ctas, const char *kname, int nt,
                                      const char *op, host_kernel **k)
{
    char pname[128], title[96], entry[64] = "", cta[16] = "";
    const char *dn = clops_dtype_name(ctx->dt);
    if (ctas > 1) {
        snprintf(entry, sizeof entry, ".reqntid %d, 1, 1\n.minnctapersm %d\n",
                 ctx->mma == 4 ? 128 * ctx->wgn : 128, ctas);
        snprintf(cta, sizeof cta, "/cta%d", ctas);
    }
    snprintf(pname, sizeof pname, "attention-wgmma/%s/d%d/%s%s", dn, ctx->dp, tag, cta);
    snprintf(title, sizeof title,
             "clops attention wgmma program %s, head dim %d (ops/attention/attention.c)", dn,
             ctx->dp);
    kit_program p = {.name = pname,
                     .title = title,
                     .headers = {"random_math.clh", "mma.clh", "wgmma.clh", "attention_vis.clh"},
                     .write = write_defines,
                     .file = "attention.cl",
                     .ctx = ctx,
                     .ptx_target = "sm_90a",
                     .ptx_entry_directives = ctas > 1 ? entry : NULL};
    clops_status st = kit_kernel(d, key, &p, kname, 0, op, k);
    if (!st && nt > 0 && (*k)->wg_size < (size_t)nt)
        st = clops__fail(CLOPS_UNSUPPORTED,
                         "%s: kernel %s needs work-groups of %d items; %s allows %zu", op, kname,
                         nt, d->label, (*k)->wg_size);
    return st;
}

/* attn_fwd_wg of (dt, dp): its own program (ATTN_MMA 4, lean), always
 * through the PTX route to sm_90a (the wgmma instructions behind "//@"),
 * with `.reqntid 256, 1, 1` and `.minnctapersm c` when attn_wg_ctas asks
 * for more than one work-group per SM. */
static clops_status wg_kernel(clops_device *d, clops_dtype dt, int dp, const char *op,
                              host_kernel **k)
{
    int wbk = attn_wg_bk(dp), ctas = attn_wg_ctas(dp), wgn = attn_wg_n(), late = attn_wg_late();
    host_kkey key = {{(0x41ull << 56) | (0x57ull << 40) | (uint64_t)dt, (uint64_t)dp,
                      (uint64_t)wbk, (uint64_t)ctas << 8 | (uint64_t)wgn | (uint64_t)late << 16}};
    char tag[32];
    /* the defaults (two warpgroups, copies first) keep attn10's names */
    snprintf(tag, sizeof tag, "fwd/k%d", wbk);
    if (wgn != 2)
        snprintf(tag + strlen(tag), sizeof tag - strlen(tag), "/g%d", wgn);
    if (late)
        snprintf(tag + strlen(tag), sizeof tag - strlen(tag), "/late");
    attn_prog ctx = {dt, dp, ATTN_BQ, 4, 0, wbk, 0, wgn, late, 0};
    return wg_program_kernel(d, &key, &ctx, tag, ctas, "attn_fwd_wg", 128 * wgn, op, k);
}

/*
 * The float32 forward on the tensor cores (attn_fwd_tf32, attn14; 3xTF32
 * on mma.sync m16n8k8, docs/attention.md "The float32 forward on the
 * tensor cores").  Where it runs: CLOPS_ATTN_TF32=1 on, =0 off (read once
 * per process; attention_set_tf32 for tests), by default ATTN_TF32_DEFAULT.
 * Its shape, each read once per process, for benchmarks:
 * CLOPS_ATTN_TF32_W warps of 16 query rows a work-group (2, 4 or 8;
 * default 4), CLOPS_ATTN_TF32_BK keys a tile (8 to 64, a multiple of 8
 * whose four float32 tiles fit 48 KiB; default 32 at head dim 64, 16 at
 * 128), CLOPS_ATTN_TF32_QPRE=1/2 the query fragments split once and kept
 * (1) or split at each use (2; default: kept at head dim 64, split at
 * 128: registers), CLOPS_ATTN_TF32_PROMOTE=0-3 where the products' sums
 * leave the tensor cores (TPROMO; default 3: S's every k step, O's every
 * key tile — attn15's H200 job: 0.4-0.6x the efficient kernel's error
 * where 0, attn14's kernel, had 2.3-9.8x).
 */
#define ATTN_TF32_DEFAULT 1
#define ATTN_TF32_PROMOTE_DEFAULT 3
static atomic_int attn_t3_set = -1; /* attention_set_tf32: -1 the environment's */

void attention_set_tf32(int on)
{
    atomic_store_explicit(&attn_t3_set, on < 0 ? -1 : on ? 1 : 0, memory_order_relaxed);
}

static bool attn_t3_on(void)
{
    static atomic_int on = -1, off = -1;
    int s = atomic_load_explicit(&attn_t3_set, memory_order_relaxed);
    if (s >= 0)
        return s == 1;
    return attn_env_is(&on, "CLOPS_ATTN_TF32", "1") ||
           (ATTN_TF32_DEFAULT && !attn_env_off(&off, "CLOPS_ATTN_TF32"));
}

static int attn_t3_w(void)
{
    static atomic_int env = -1;
    int e = attn_env_int(&env, "CLOPS_ATTN_TF32_W", 2, 8);
    return e == 2 || e == 4 || e == 8 ? e : 4;
}

static int attn_t3_bk(int dp)
{
    static atomic_int env = -1;
    int e = attn_env_int(&env, "CLOPS_ATTN_TF32_BK", 8, 64);
    return e % 8 == 0 && e && 4 * e * (dp + 4) * 4 <= 49152 ? e : dp <= 64 ? 32 : 16;
}

static int attn_t3_qpre(int dp)
{
    static atomic_int env = -1;
    int e = attn_env_int(&env, "CLOPS_ATTN_TF32_QPRE", 1, 2);
    return e ? e == 1 : dp <= 64;
}

static int attn_t3_promote(void)
{
    static atomic_int env = -1;
    int e = atomic_load_explicit(&env, memory_order_relaxed);
    if (e < 0) {
        /* one digit 0-3 exactly: anything else (atoi would read "x" as 0,
         * the least accurate form) keeps the default */
        const char *v = host_env("CLOPS_ATTN_TF32_PROMOTE");
        bool one = v && v[0] >= '0' && v[0] <= '3' && v[1] == '\0';
        e = one ? v[0] - '0' : ATTN_TF32_PROMOTE_DEFAULT;
        atomic_store_explicit(&env, e, memory_order_relaxed);
    }
    return e;
}

bool attention_tf32_on(void)
{
    return attn_t3_on();
}

int attention_tf32_promote(void)
{
    return attn_t3_promote();
}

/* Whether d can run attn_fwd_tf32: an NVIDIA device of compute
 * capability 8.0 or later (mma.sync's tf32 atom, cp.async) whose kernels
 * take the tensor-core programs (KIT_MMA). */
static bool t3_device(const clops_device *d)
{
    return kit_kind_of(d) == KIT_MMA && d->info.vendor == CLOPS_VENDOR_NVIDIA &&
           d->nv_cc_major >= 8;
}

/* attn_fwd_tf32 of padded head dim dp: its own program (ATTN_MMA 7, lean),
 * the driver's build. */
static clops_status t3_kernel(clops_device *d, int dp, const char *op, host_kernel **k)
{
    int w = attn_t3_w(), bk = attn_t3_bk(dp), f = attn_t3_qpre(dp) | attn_t3_promote() << 1;
    host_kkey key = {{(0x41ull << 56) | (0x54ull << 40) | (uint64_t)CLOPS_FLOAT32, (uint64_t)dp,
                      (uint64_t)bk, (uint64_t)w | (uint64_t)f << 8}};
    char pname[96];
    /* every define in the name (TPROMO is f's bits 1-2: 0-3) */
    snprintf(pname, sizeof pname, "attention-tf32/float32/d%d/fwd/w%d/k%d%s/p%d", dp, w, bk,
             f & 1 ? "" : "/qs", f >> 1 & 3);
    attn_prog ctx = {CLOPS_FLOAT32, dp, ATTN_BQ, 7, 0, bk, 0, w, 0, f};
    kit_program p = {.name = pname,
                     .title = "clops attention float32 tensor-core program (ops/attention/attention.c)",
                     .headers = {"random_math.clh", "mma.clh", "attention_vis.clh", NULL},
                     .write = write_defines,
                     .file = "attention.cl",
                     .ctx = &ctx};
    clops_status st = kit_kernel(d, &key, &p, "attn_fwd_tf32", 0, op, k);
    if (!st && (*k)->wg_size < (size_t)(32 * w))
        st = clops__fail(CLOPS_UNSUPPORTED,
                         "%s: kernel attn_fwd_tf32 needs work-groups of %d items; %s allows %zu",
                         op, 32 * w, d->label, (*k)->wg_size);
    return st;
}

/*
 * The wgmma dK/dV (attn_bwd_dkv_wg, docs/attention.md "Hopper's wgmma"):
 * off by default; CLOPS_ATTN_WGMMA_BWD=1 (read once per process) runs it
 * at head dims 64 and 128 on a Hopper after its known-answer check;
 * attention_set_wgmma_bwd for tests.  Its shape (each setting read once
 * per process; for benchmarks): K and V in __local or registers
 * (CLOPS_ATTN_WG_BWD_KV=1 / 0), the query rows per step
 * (CLOPS_ATTN_WG_BWD_Q) and the work-groups per SM its PTX route asks
 * ptxas to fit (CLOPS_ATTN_WG_BWD_CTAS, 1-4; 1: `.reqntid 128` alone).
 * The defaults are the fastest of the H200 job of 2026-11-28 (fifth
 * stop, docs/benchmarks.md): at head dim 64 K and V in __local, 32-row
 * steps, 3 per SM (GPT-2's backward 486.3 us, attn_bwd_dkv_mma's 503.3);
 * at 128 K and V in registers, 32-row steps, 1 per SM (Llama's 2035.2;
 * 16-row steps 2283.3, K and V in __local 2118.0).
 */
static atomic_int attn_wgb_set = -1; /* attention_set_wgmma_bwd: -1 the environment's */

/* A test's setting (*set: -1 none, 0 off, 1 on), else the environment's
 * name=1 (read once into *env): the wgmma backward kernels' switches. */
static void attn_set_switch(atomic_int *set, int on)
{
    atomic_store_explicit(set, on < 0 ? -1 : on ? 1 : 0, memory_order_relaxed);
}

static bool attn_switch_on(atomic_int *set, atomic_int *env, const char *name)
{
    int s = atomic_load_explicit(set, memory_order_relaxed);
    return s >= 0 ? s == 1 : attn_env_is(env, name, "1");
}

void attention_set_wgmma_bwd(int on)
{
    attn_set_switch(&attn_wgb_set, on);
}

static bool attn_wgb_on(void)
{
    static atomic_int env = -1;
    return attn_switch_on(&attn_wgb_set, &env, "CLOPS_ATTN_WGMMA_BWD");
}

/* Whether attn_bwd_dkv_wg keeps the block's K and V in __local (WKS 1)
 * rather than in registers: CLOPS_ATTN_WG_BWD_KV=1 / 0, by default at
 * head dim 64. */
static bool attn_wgb_kv(int dp)
{
    static atomic_int on = -1, off = -1;
    return attn_env_is(&on, "CLOPS_ATTN_WG_BWD_KV", "1") ||
           (dp == 64 && !attn_env_off(&off, "CLOPS_ATTN_WG_BWD_KV"));
}

/* attn_bwd_dkv_wg's query rows per step (CLOPS_ATTN_WG_BWD_Q: 16, 32,
 * or at head dim 64 also 64): by default 32; with K and V in __local 16
 * at head dim 128 (what fits 48 KiB).  At head dim 128 with K and V in
 * registers 32-row steps take 255 registers and the products are
 * serialised (ptxas C7512: CUDA 13 with clang's PTX, 48 bytes spilled;
 * the driver's, 8), 16-row steps 245 (the driver's: 255) without — and
 * were slower on the H200. */
static int attn_wgb_q(int dp)
{
    static atomic_int env = -1;
    int e = attn_env_int(&env, "CLOPS_ATTN_WG_BWD_Q", 16, 64);
    if (attn_wgb_kv(dp) && dp == 128)
        return 16;
    return e == 16 || e == 32 || (e == 64 && dp == 64) ? e : 32;
}

/* By default 3 at head dim 64 with K and V in __local (the driver's
 * ptxas: 160 registers, no spills), else 1. */
static int attn_wgb_ctas(int dp)
{
    static atomic_int env = -1;
    int e = attn_env_int(&env, "CLOPS_ATTN_WG_BWD_CTAS", 1, 4);
    return e ? e : dp == 64 && attn_wgb_kv(dp) ? 3 : 1;
}

/* attn_bwd_dkv_wg of (dt, dp) (fold: the same program's attn_bwd_fold):
 * its own program (ATTN_MMA 5, lean), always through the PTX route to
 * sm_90a, `.reqntid 128, 1, 1` and `.minnctapersm c` where
 * attn_wgb_ctas asks for more than one work-group per SM. */
static clops_status wgb_kernel(clops_device *d, clops_dtype dt, int dp, bool fold,
                               const char *op, host_kernel **k)
{
    int ctas = attn_wgb_ctas(dp), wq = attn_wgb_q(dp), kv = attn_wgb_kv(dp);
    host_kkey key = {{(0x41ull << 56) | (0x58ull << 40) | (uint64_t)fold << 32 | (uint64_t)dt,
                      (uint64_t)dp, (uint64_t)wq, (uint64_t)ctas | (uint64_t)kv << 8}};
    char tag[32];
    snprintf(tag, sizeof tag, "bwd-dkv/q%d%s", wq, kv ? "/kvs" : "");
    attn_prog ctx = {dt, dp, ATTN_BQ, 5, 0, wq, kv, 0, 0, 0};
    return wg_program_kernel(d, &key, &ctx, tag, ctas, fold ? "attn_bwd_fold" : "attn_bwd_dkv_wg",
                             fold ? 0 : 128, op, k);
}

/*
 * The wgmma dQ (attn_bwd_dq_wg, attn12; docs/attention.md "Hopper's
 * wgmma: the dQ"): off by default (attn13 on the H200: its checks
 * passed, slower than attn_bwd_dq_mma on both rows); CLOPS_ATTN_WGMMA_DQ=1 (read once per process) runs it at head dims 64
 * and 128 on a Hopper after its known-answer check;
 * attention_set_wgmma_dq for tests.  Its shape (each read once per
 * process; for benchmarks): the keys per step (CLOPS_ATTN_WG_DQ_K: 16,
 * 32, 48 or 64, what fits four tiles in 48 KiB; default 64 at head dim
 * 64, 32 at 128) and the work-groups per SM its PTX route asks ptxas to
 * fit (CLOPS_ATTN_WG_DQ_CTAS, 1-4; default 2: clang's PTX with CUDA 13's
 * ptxas takes 198 registers at head dim 64, 215 at 128, no spills).
 */
static atomic_int attn_wgq_set = -1; /* attention_set_wgmma_dq: -1 the environment's */

void attention_set_wgmma_dq(int on)
{
    attn_set_switch(&attn_wgq_set, on);
}

static bool attn_wgq_on(void)
{
    static atomic_int env = -1;
    return attn_switch_on(&attn_wgq_set, &env, "CLOPS_ATTN_WGMMA_DQ");
}

static int attn_wgq_k(int dp)
{
    static atomic_int env = -1;
    int e = attn_env_int(&env, "CLOPS_ATTN_WG_DQ_K", 16, 64);
    bool fits = e % 16 == 0 && 4 * e * dp * 2 <= 49152;
    return e && fits ? e : dp <= 64 ? 64 : 32;
}

static int attn_wgq_ctas(void)
{
    static atomic_int env = -1;
    int e = attn_env_int(&env, "CLOPS_ATTN_WG_DQ_CTAS", 1, 4);
    return e ? e : 2;
}

/* attn_bwd_dq_wg of (dt, dp): its own program (ATTN_MMA 6, lean), always
 * through the PTX route to sm_90a, `.reqntid 128, 1, 1` and
 * `.minnctapersm c` where attn_wgq_ctas asks for more than one. */
static clops_status wgq_kernel(clops_device *d, clops_dtype dt, int dp, const char *op,
                               host_kernel **k)
{
    int ctas = attn_wgq_ctas(), wk = attn_wgq_k(dp);
    host_kkey key = {{(0x41ull << 56) | (0x59ull << 40) | (uint64_t)dt, (uint64_t)dp,
                      (uint64_t)wk, (uint64_t)ctas}};
    char tag[32];
    snprintf(tag, sizeof tag, "bwd-dq/k%d", wk);
    attn_prog ctx = {dt, dp, ATTN_BQ, 6, 0, wk, 0, 0, 0, 0};
    return wg_program_kernel(d, &key, &ctx, tag, ctas, "attn_bwd_dq_wg", 128, op, k);
}

/* Kernel arguments, kept alive until the launch. */
typedef struct attn_args {
    host_arg a[96];
    union {
        cl_long l;
        cl_ulong u;
        cl_int i;
        cl_uint ui;
        cl_float f;
        cl_mem m;
    } v[96];
    int n;
} attn_args;

/* arg_mem, arg_long, ...: appends one argument of that type. */
#define ATTN_ARG_SETTER(name, ctype, field)                                                     \
    static void name(attn_args *g, ctype x)                                                     \
    {                                                                                           \
        g->v[g->n].field = x;                                                                   \
        g->a[g->n] = (host_arg){sizeof(ctype), &g->v[g->n].field};                              \
        g->n++;                                                                                 \
    }
ATTN_ARG_SETTER(arg_mem, cl_mem, m)
ATTN_ARG_SETTER(arg_long, cl_long, l)
ATTN_ARG_SETTER(arg_ulong, cl_ulong, u)
ATTN_ARG_SETTER(arg_int, cl_int, i)
ATTN_ARG_SETTER(arg_uint, cl_uint, ui)
ATTN_ARG_SETTER(arg_float, cl_float, f)

static cl_mem mem_of(const clops_tensor *t)
{
    return t && t->storage->block ? t->storage->block->mem : NULL;
}

/* A view's buffer, offset and strides; `dflt` stands in for an absent one. */
static void arg_view(attn_args *g, const attn_view *v, cl_mem dflt)
{
    cl_mem m = v->t ? mem_of(v->t) : NULL;
    arg_mem(g, m ? m : dflt);
    arg_long(g, v->t ? v->t->offset : 0);
    for (int i = 0; i < 4; i++)
        arg_long(g, v->t ? v->st[i] : 0);
}

/* The mask arguments: bool buffer, additive buffer, then its geometry. */
static void arg_mask(attn_args *g, const attn_problem *p, cl_mem dflt)
{
    cl_mem m = p->mask.t ? mem_of(p->mask.t) : NULL;
    arg_mem(g, p->mask_kind == ATTN_MASK_BOOL && m ? m : dflt);
    arg_mem(g, p->mask_kind == ATTN_MASK_ADD && m ? m : dflt);
    attn_view geo = p->mask;
    geo.t = p->mask.t;
    arg_long(g, geo.t ? geo.t->offset : 0);
    for (int i = 0; i < 4; i++)
        arg_long(g, geo.t ? geo.st[i] : 0);
}

static void arg_tail(attn_args *g, const attn_problem *p)
{
    arg_float(g, (float)p->scale);
    arg_int(g, p->causal);
    arg_long(g, p->causal_off);
    arg_int(g, (int)p->mask_kind);
    arg_ulong(g, p->dropout_p > 0 ? (p->thr ? p->thr : 0) : 0);
    arg_float(g, p->drop_scale);
    arg_uint(g, (uint32_t)p->seed);
    arg_uint(g, (uint32_t)(p->seed >> 32));
    arg_ulong(g, p->offset);
}

/* Whether a problem needs the tensor-core kernels' general program
 * (ATTN_XM 1): a boolean or additive mask, dropout, a mask's gradient, or
 * CLOPS_ATTN_MASK_SPLIT=0; the lean program (which reads those arguments
 * as 0) otherwise. */
static int attn_xm(const attn_problem *p)
{
    return !attn_msplit() || p->mask_kind != ATTN_MASK_NONE || (p->dropout_p > 0 && p->thr) ||
           p->ds != NULL;
}

/* Work items of a x b x c work-groups of nt items, checked. */
static clops_status attn_global(const attn_problem *p, int64_t a, int64_t b, int64_t c, int nt,
                                size_t *out)
{
    int64_t n;
    if (!geom_mul(a, b, &n) || !geom_mul(n, c, &n) || !geom_mul(n, nt, &n) ||
        (uint64_t)n > SIZE_MAX)
        return clops__fail(CLOPS_INVALID_SHAPE, "%s: too many work-groups (%lld x %lld x %lld)",
                           p->op, (long long)a, (long long)b, (long long)c);
    *out = (size_t)n;
    return CLOPS_OK;
}

/* ---- the forward ----------------------------------------------------------------------- */

static clops_status fwd_host(void *vp)
{
    return ref_attention_forward(vp);
}

/*
 * How many split-KV chunks the FMA forward runs per query tile: 1 unless
 * the query fits one tile (decoding) and its (batch, head) tiles alone
 * would leave the device idle (fewer than 2 work-groups per compute unit
 * on a CPU device, 8 on a GPU), then enough chunks of at least
 * ATTN_SPLIT_MIN keys to reach that.  CLOPS_ATTN_SPLIT=0 (read once per
 * process) keeps one chunk, for benchmarks that compare the two.
 */
static int64_t attn_nsplit(const attn_problem *p, const clops_device *d)
{
    static atomic_int off = -1;
    int o = atomic_load_explicit(&off, memory_order_relaxed);
    if (o < 0) {
        const char *env = host_env("CLOPS_ATTN_SPLIT");
        o = env && strcmp(env, "0") == 0;
        atomic_store_explicit(&off, o, memory_order_relaxed);
    }
    if (o || p->L > ATTN_BQ)
        return 1;
    int64_t cu = d->info.compute_units > 0 ? (int64_t)d->info.compute_units : 1;
    int64_t want = cu * (kit_kind_of(d) == KIT_CPU ? 2 : 8), groups = p->B * p->Hq;
    if (groups >= want)
        return 1;
    int64_t n = (want + groups - 1) / groups, most = p->S / ATTN_SPLIT_MIN;
    return n < most ? n : most > 1 ? most : 1;
}

/* Whether attn_fwd_mma may load view v's rows by 16-byte cp.async copies:
 * unit column stride, and every row of every (batch, head) plane starting
 * on a multiple of 8 elements (16 bytes of 16-bit values). */
static bool mma_vec(const attn_view *v)
{
    return v->st[3] == 1 && v->t->offset % 8 == 0 && v->st[0] % 8 == 0 && v->st[1] % 8 == 0 &&
           v->st[2] % 8 == 0;
}

/* Whether attn_fwd_tf32 may load view v's float32 rows by 16-byte
 * cp.async copies: unit column stride, every row starting on a multiple
 * of 4 elements. */
static bool t3_vec(const attn_view *v)
{
    return v->st[3] == 1 && v->t->offset % 4 == 0 && v->st[0] % 4 == 0 && v->st[1] % 4 == 0 &&
           v->st[2] % 4 == 0;
}

/* Whether attn_fwd_mma may store view v's (output) elements in pairs of
 * 32 bits: unit column stride, every row of every plane starting on an
 * even element. */
static bool out_pairs(const attn_view *v)
{
    return v->st[3] == 1 && v->t->offset % 2 == 0 && v->st[0] % 2 == 0 && v->st[1] % 2 == 0 &&
           v->st[2] % 2 == 0;
}

/* The arguments the forward kernels share (ATTN_FWD_ARGS), nqt query tiles
 * per (batch, head). */
/* The leading arguments every forward and backward kernel takes: q, k, v
 * and the mask, from the start of g; returns q's buffer (the stand-in for
 * absent tensors). */
static cl_mem qkv_mask_args(attn_args *g, const attn_problem *p)
{
    cl_mem q = mem_of(p->q.t);
    g->n = 0;
    arg_view(g, &p->q, q);
    arg_view(g, &p->k, q);
    arg_view(g, &p->v, q);
    arg_mask(g, p, q);
    return q;
}

static void fwd_args(attn_args *g, const attn_problem *p, int64_t nqt)
{
    cl_mem q = qkv_mask_args(g, p);
    arg_view(g, &p->out, q);
    arg_mem(g, mem_of(p->lse));
    arg_long(g, p->Hq);
    arg_long(g, p->Hq / p->Hkv);
    arg_long(g, p->L);
    arg_long(g, p->S);
    arg_long(g, p->E);
    arg_long(g, p->Ev);
    arg_long(g, nqt);
    arg_tail(g, p);
}

/* The forward on an OpenCL device: attn_fwd (FMA; split-KV with
 * attn_fwd_combine after it), or attn_fwd_mma. */
static clops_status fwd_launch(const attn_problem *p, int mma)
{
    clops_device *d = p->q.t->storage->device;
    if (p->B * p->Hq * p->L == 0)
        return CLOPS_OK;
    bool wg = mma == ATTN_WG, t3 = mma == ATTN_TF32;
    int dp = attn_dpad(p), pq = attn_fwd_bq(p->L);
    int bq = t3 ? 16 * attn_t3_w() : wg ? 64 * attn_wg_n() : mma ? attn_fwd_rows(dp) : pq;
    int nt = t3 ? 32 * attn_t3_w() : wg ? 128 * attn_wg_n() : mma ? attn_mma_nt(dp) : ATTN_NT;
    int64_t nsplit = mma ? 1 : attn_nsplit(p, d), kchunk = p->S > 0 ? p->S : 1;
    if (nsplit > 1) {
        int64_t bk = attn_fwd_bk(pq, dp);
        kchunk = (p->S + nsplit - 1) / nsplit;
        kchunk = (kchunk + bk - 1) / bk * bk;
        nsplit = (p->S + kchunk - 1) / kchunk;
    }
    host_kernel *k = NULL;
    clops_status st = t3   ? t3_kernel(d, dp, p->op, &k)
                      : wg ? wg_kernel(d, p->q.t->dtype, dp, p->op, &k)
                         : attn_kernel_route(d, mma ? ATTN_K_FWD_MMA : ATTN_K_FWD, p->q.t->dtype,
                                             dp, mma ? ATTN_BQ : pq, mma == ATTN_MMA_ROUTED,
                                             attn_xm(p), p->op, &k);
    int64_t nqt = (p->L + bq - 1) / bq, rows = p->B * p->Hq * p->L, pn;
    size_t global = 0;
    if (!st)
        st = attn_global(p, nqt * nsplit, p->B, p->Hq, nt, &global);
    if (!st && nsplit > 1 &&
        (!geom_mul(rows, p->Ev + 2, &pn) || !geom_mul(pn, nsplit, &pn)))
        st = clops__fail(CLOPS_INVALID_SHAPE, "%s: %lld split-KV partial results of %lld rows "
                                              "are too many",
                         p->op, (long long)nsplit, (long long)rows);
    clops_tensor *part = NULL;
    if (!st && nsplit > 1)
        st = tensor_new(d, CLOPS_FLOAT32, 1, &pn, NULL, &part);
    if (st)
        return st;
    cl_mem q = mem_of(p->q.t);
    attn_args g;
    fwd_args(&g, p, nqt);
    if (!mma) {
        arg_long(&g, nsplit);
        arg_long(&g, kchunk);
        arg_mem(&g, part ? mem_of(part) : mem_of(p->lse));
    } else if (t3) {
        /* bit 0: key and value rows by cp.async (float32: rows on 16-byte
         * boundaries, 4 elements) */
        arg_int(&g, t3_vec(&p->k) && t3_vec(&p->v) ? 1 : 0);
    } else {
        /* bit 0: query, key and value rows by cp.async; bit 1: the
         * output's column pairs as 32-bit stores */
        arg_int(&g, (mma_vec(&p->q) && mma_vec(&p->k) && mma_vec(&p->v) ? 1 : 0) |
                        (out_pairs(&p->out) ? 2 : 0));
    }
    st = host_launch_local(d, k, g.n, g.a, global, nt);
    if (!st && nsplit > 1)
        st = attn_kernel(d, ATTN_K_COMBINE, p->q.t->dtype, dp, pq, p->op, &k);
    if (!st && nsplit > 1) {
        g.n = 0;
        arg_mem(&g, mem_of(part));
        arg_view(&g, &p->out, q);
        arg_mem(&g, mem_of(p->lse));
        arg_long(&g, p->Hq);
        arg_long(&g, p->L);
        arg_long(&g, p->Ev);
        arg_long(&g, nsplit);
        arg_long(&g, rows);
        st = host_launch(d, k, g.n, g.a,
                         host_grid_size(d, k, (uint64_t)rows * (uint64_t)(p->Ev > 0 ? p->Ev : 1)));
    }
    clops_tensor_release(part);
    return st;
}

static clops_status fwd_cl(void *vp)
{
    return fwd_launch(vp, ATTN_FMA);
}

/* Query rows of an attn_fwd_cpu work item (CRQ in cl_kernels/attention.cl). */
#define ATTN_CPU_RQ 8
/* The most bytes of the CPU backward's dS scratch (bwd_launch). */
#define ATTN_CPU_DS_MAX ((int64_t)64 << 20)

/*
 * The forward on a CPU device (KIT_CPU): attn_fwd_cpu, one work item per
 * (batch, query head, ATTN_CPU_RQ query rows), launched as single items.
 * Head dims above 128 (private tiles of 32 x 256 floats) take attn_fwd.
 */
static clops_status fwd_cpu(void *vp)
{
    const attn_problem *p = vp;
    clops_device *d = p->q.t->storage->device;
    int dp = attn_dpad(p);
    if (dp > 128)
        return fwd_launch(p, ATTN_FMA);
    if (p->B * p->Hq * p->L == 0)
        return CLOPS_OK;
    int64_t nqt = (p->L + ATTN_CPU_RQ - 1) / ATTN_CPU_RQ;
    size_t global = 0;
    host_kernel *k = NULL;
    clops_status st = attn_kernel(d, ATTN_K_FWD_CPU, p->q.t->dtype, dp, attn_fwd_bq(p->L), p->op, &k);
    if (!st)
        st = attn_global(p, nqt, p->B, p->Hq, 1, &global);
    if (st)
        return st;
    attn_args g;
    fwd_args(&g, p, nqt);
    return host_launch_local(d, k, g.n, g.a, global, 1);
}

/* ---- the tensor-core forward (KIT_MMA) and its known-answer check ----------------------- */

/* attention_stats' counters */
static atomic_ullong stat_bwd_mma, stat_bwd_fma, stat_fwd_mma, stat_bwd_split, stat_fwd_routed,
    stat_bwd_routed, stat_fwd_wg, stat_wg_checks, stat_wg_fails, stat_bwd_wg, stat_wgb_checks,
    stat_wgb_fails, stat_bwd_wgq, stat_wgq_checks, stat_wgq_fails, stat_fwd_tf32, stat_tf32_checks,
    stat_tf32_fails, stat_bwd_cpu, stat_bwd_cpu_ds;

/* Whether attn_fwd_mma takes p: 16-bit inputs, no dropout, head dims up
 * to 128 (fwd_mma leaves decoding and split-KV to attn_fwd). */
static bool mma_fits(const attn_problem *p)
{
    clops_dtype dt = p->q.t->dtype;
    return (dt == CLOPS_FLOAT16 || dt == CLOPS_BFLOAT16) && !(p->dropout_p > 0) &&
           attn_dpad(p) <= 128;
}

/* A [n] tensor of dtype dt on d holding f(i) (rounded by ref_store). */
static clops_status canary_tensor(clops_device *d, clops_dtype dt, int ndim, const int64_t *sz,
                                  int salt, clops_tensor **out)
{
    int64_t n = 1;
    for (int i = 0; i < ndim; i++)
        n *= sz[i];
    size_t es = clops_dtype_size(dt);
    void *buf = malloc((size_t)n * es);
    if (!buf)
        return clops__fail(CLOPS_OUT_OF_MEMORY, "attention: no host memory for a check");
    for (int64_t i = 0; i < n; i++) {
        ref_value x = {.f = (double)((i * 37 + salt * 11) % 101 - 50) / 40.0};
        ref_store(buf, i, dt, CLOPS_FLOAT64, x);
    }
    clops_status st = tensor_new(d, dt, ndim, sz, NULL, out);
    if (!st)
        st = host_write(d, mem_of(*out), 0, buf, (size_t)n * es);
    free(buf);
    return st;
}

/* The known-answer checks' problem: causal, two query heads on one
 * key/value head, query rows L, keys S, head dim dp, on q, k, v. */
static void canary_problem(attn_problem *p, const char *op, int64_t L, int64_t S, int dp,
                           clops_tensor *q, clops_tensor *k, clops_tensor *v)
{
    memset(p, 0, sizeof *p);
    p->op = op;
    p->B = 1, p->Hq = 2, p->Hkv = 1, p->L = L, p->S = S, p->E = p->Ev = dp;
    p->causal = true;
    p->scale = 1.0 / sqrt((double)dp);
    view4(&p->q, q);
    view4(&p->k, k);
    view4(&p->v, v);
}

/* The known-answer checks' boolean mask: [L, S] (broadcast over the
 * heads), a few positions false; masks p with it when on (m: NULL), else
 * takes it off. */
static clops_status canary_mask(clops_device *d, attn_problem *p, bool on, clops_tensor **m)
{
    int64_t ms[4] = {1, 1, p->L, p->S};
    clops_status st = on && !*m ? canary_tensor(d, CLOPS_BOOL, 4, ms, 5, m) : CLOPS_OK;
    if (!st && on) {
        view4(&p->mask, *m);
        p->mask.st[0] = p->mask.st[1] = 0;
    } else {
        p->mask = (attn_view){0};
    }
    p->mask_kind = on ? ATTN_MASK_BOOL : ATTN_MASK_NONE;
    return st;
}

/* Runs one causal problem through attn_fwd and attn_fwd_mma on d and
 * compares: without a mask (masked 0) or with canary_mask's (*m: made on
 * first use); why says what differed. */
static bool mma_canary_one(clops_device *d, clops_dtype dt, int dp, int mode, int masked,
                           clops_tensor **m, char *why, size_t cap)
{
    const int64_t L = 150, S = 140; /* two query tiles, several key tiles */
    int64_t qs[4] = {1, 2, L, dp}, ks[4] = {1, 1, S, dp}, ls[3] = {1, 2, L};
    clops_tensor *q = NULL, *k = NULL, *v = NULL, *o[2] = {NULL, NULL}, *l[2] = {NULL, NULL};
    clops_status st = canary_tensor(d, dt, 4, qs, 1, &q);
    if (!st)
        st = canary_tensor(d, dt, 4, ks, 2, &k);
    if (!st)
        st = canary_tensor(d, dt, 4, ks, 3, &v);
    for (int i = 0; !st && i < 2; i++) {
        st = tensor_new(d, dt, 4, qs, NULL, &o[i]);
        if (!st)
            st = tensor_new(d, CLOPS_FLOAT32, 3, ls, NULL, &l[i]);
    }
    attn_problem p;
    bool ok = false;
    size_t on = (size_t)(2 * L * dp), es = clops_dtype_size(dt);
    char *ho = NULL;
    float *hl = NULL;
    if (!st) {
        canary_problem(&p, "attention known-answer check", L, S, dp, q, k, v);
        st = canary_mask(d, &p, masked, m);
    }
    for (int i = 0; !st && i < 2; i++) {
        view4(&p.out, o[i]);
        p.lse = l[i];
        st = fwd_launch(&p, i == 1 ? mode : ATTN_FMA);
    }
    ho = malloc(2 * on * es);
    hl = malloc(2 * (size_t)(2 * L) * sizeof(float));
    for (int i = 0; !st && ho && hl && i < 2; i++) {
        st = host_read(d, mem_of(o[i]), 0, ho + i * on * es, on * es);
        if (!st)
            st = host_read(d, mem_of(l[i]), 0, hl + i * 2 * L, (size_t)(2 * L) * sizeof(float));
    }
    if (st || !ho || !hl) {
        snprintf(why, cap, "%s", st ? clops_last_error() : "out of host memory");
    } else {
        int bad = 0;
        size_t first = 0;
        /* 16-bit inputs: the rounding of P to the input type; 3xTF32
         * (float32, attn_fwd_tf32): float32's accuracy, ~1e-6 here */
        double tol = mode == ATTN_TF32 ? 5e-5 : 2e-2, ltol = mode == ATTN_TF32 ? 5e-5 : 1e-2;
        for (size_t i = 0; i < on; i++) {
            double a = ref_load(ho, (int64_t)i, dt, CLOPS_FLOAT64).f;
            double b = ref_load(ho + on * es, (int64_t)i, dt, CLOPS_FLOAT64).f;
            if (!(fabs(a - b) <= tol + tol * fabs(a)) && bad++ == 0)
                first = i;
        }
        for (int64_t i = 0; i < 2 * L; i++)
            if (!(fabs(hl[i] - hl[2 * L + i]) <= ltol * (1 + fabs(hl[i]))) && bad++ == 0)
                first = on + (size_t)i;
        ok = bad == 0;
        if (!ok)
            snprintf(why, cap, "%d results differ from the FMA kernel's (first at %zu%s)", bad,
                     first, masked ? ", boolean mask" : "");
    }
    free(ho);
    free(hl);
    clops_tensor *rel[] = {q, k, v, o[0], o[1], l[0], l[1]};
    for (size_t i = 0; i < sizeof rel / sizeof rel[0]; i++)
        clops_tensor_release(rel[i]);
    return ok;
}


/* Reads t (contiguous, dtype dt) into a new host array of float64 values;
 * NULL with *st set (or out of memory) on failure. */
static double *canary_read(clops_tensor *t, clops_status *st)
{
    int64_t n = tensor_numel(t);
    size_t es = clops_dtype_size(t->dtype);
    char *raw = malloc((size_t)n * es);
    double *x = malloc((size_t)n * sizeof(double));
    if (!raw || !x)
        *st = clops__fail(CLOPS_OUT_OF_MEMORY, "attention: no host memory for a check");
    else
        *st = host_read(t->storage->device, mem_of(t), 0, raw, (size_t)n * es);
    for (int64_t i = 0; !*st && i < n; i++)
        x[i] = ref_load(raw, i, t->dtype, CLOPS_FLOAT64).f;
    free(raw);
    if (*st) {
        free(x);
        return NULL;
    }
    return x;
}

/* Runs one causal grouped-query problem (L 150, S 140: two dQ tiles, three
 * key blocks, three query steps each) through the FMA backward and the
 * tensor-core backward on d and compares dQ, dK, dV: each within 3e-2 of
 * the FMA result's largest magnitude (at least 1) — the rounding of P and
 * dS to 16 bits stays well inside, a fragment or tile addressed wrong does
 * not.  masked: with canary_mask's mask as mma_canary_one.  why says what
 * differed. */
static bool mma_bwd_canary_one(clops_device *d, clops_dtype dt, int dp, int mode, int masked,
                               clops_tensor **m, char *why, size_t cap)
{
    const int64_t L = 150, S = 140;
    int64_t qs[4] = {1, 2, L, dp}, ks[4] = {1, 1, S, dp}, ls[3] = {1, 2, L};
    clops_tensor *q = NULL, *k = NULL, *v = NULL, *go = NULL, *o = NULL, *l = NULL;
    clops_tensor *gr[2][3] = {{NULL, NULL, NULL}, {NULL, NULL, NULL}};
    clops_status st = canary_tensor(d, dt, 4, qs, 1, &q);
    if (!st)
        st = canary_tensor(d, dt, 4, ks, 2, &k);
    if (!st)
        st = canary_tensor(d, dt, 4, ks, 3, &v);
    if (!st)
        st = canary_tensor(d, dt, 4, qs, 4, &go);
    if (!st)
        st = tensor_new(d, dt, 4, qs, NULL, &o);
    if (!st)
        st = tensor_new(d, CLOPS_FLOAT32, 3, ls, NULL, &l);
    for (int i = 0; !st && i < 2; i++)
        for (int w = 0; !st && w < 3; w++)
            st = tensor_new(d, dt, 4, w == 0 ? qs : ks, NULL, &gr[i][w]);
    attn_problem p;
    if (!st) {
        canary_problem(&p, "attention backward known-answer check", L, S, dp, q, k, v);
        view4(&p.out, o);
        view4(&p.go, go);
        p.lse = l;
        st = canary_mask(d, &p, masked, m);
    }
    if (!st)
        st = fwd_launch(&p, ATTN_FMA);
    for (int i = 0; !st && i < 2; i++) {
        view4(&p.gq, gr[i][0]);
        view4(&p.gk, gr[i][1]);
        view4(&p.gv, gr[i][2]);
        st = bwd_launch(&p, i == 1 ? mode : ATTN_FMA, NULL);
    }
    bool ok = false;
    if (!st) {
        static const char *const what[3] = {"dQ", "dK", "dV"};
        ok = true;
        for (int w = 0; !st && ok && w < 3; w++) {
            double *a = canary_read(gr[0][w], &st), *b = a ? canary_read(gr[1][w], &st) : NULL;
            int64_t n = tensor_numel(gr[0][w]);
            double mx = 1.0;
            for (int64_t i = 0; b && i < n; i++)
                mx = fabs(a[i]) > mx ? fabs(a[i]) : mx;
            for (int64_t i = 0; b && ok && i < n; i++)
                if (!(fabs(a[i] - b[i]) <= 3e-2 * mx)) {
                    ok = false;
                    snprintf(why, cap,
                             "%s element %lld is %g, the FMA kernel's %g (largest %g%s)",
                             what[w], (long long)i, b[i], a[i], mx, masked ? ", boolean mask" : "");
                }
            free(a);
            free(b);
        }
    }
    if (st) {
        ok = false;
        snprintf(why, cap, "%s", clops_last_error());
    }
    clops_tensor *rel[] = {q,        k,        v,        go,       o,        l,
                           gr[0][0], gr[0][1], gr[0][2], gr[1][0], gr[1][1], gr[1][2]};
    for (size_t i = 0; i < sizeof rel / sizeof rel[0]; i++)
        clops_tensor_release(rel[i]);
    return ok;
}

/* A known-answer check (mma_canary_one or mma_bwd_canary_one) without a
 * mask (the lean programs), then with canary_mask's boolean mask (the
 * general ones). */
typedef bool (*canary_fn)(clops_device *d, clops_dtype dt, int dp, int mode, int masked,
                          clops_tensor **m, char *why, size_t cap);
static bool mma_canary(canary_fn one, clops_device *d, clops_dtype dt, int dp, int mode,
                       char *why, size_t cap)
{
    bool ok = true;
    clops_tensor *m = NULL;
    for (int masked = 0; ok && masked < 2; masked++)
        ok = one(d, dt, dp, mode, masked, &m, why, cap);
    clops_tensor_release(m);
    return ok;
}

/* Per device: the check state of each (forward/backward, float16/bfloat16,
 * head dim 32/64/128): 0 unchecked, else 1 + the kernels' mode (ATTN_FMA:
 * both builds failed). */
typedef struct mma_slot {
    const clops_device *d;
    unsigned char state[2][2][3];
    /* attn_fwd_wg's check per (float16/bfloat16, head dim 64/128): 0
     * unchecked, 1 passed, 2 failed */
    unsigned char wg[2][2];
    /* attn_bwd_dkv_wg's and attn_bwd_dq_wg's, the same way */
    unsigned char wgb[2][2], wgq[2][2];
    /* attn_fwd_tf32's per head dim 64/128, the same way */
    unsigned char t3[2];
} mma_slot;
static mma_slot mma_slots[64];
static pthread_mutex_t mma_lock = PTHREAD_MUTEX_INITIALIZER;

/* The slot of device d (NULL when the table is full); mma_lock held. */
static mma_slot *mma_slot_of(const clops_device *d)
{
    for (size_t i = 0; i < sizeof mma_slots / sizeof mma_slots[0]; i++)
        if (mma_slots[i].d == d || !mma_slots[i].d) {
            mma_slots[i].d = d;
            return &mma_slots[i];
        }
    return NULL;
}


/* Whether the program of a check of (dp, bwd) goes through the PTX route:
 * attn_routes for one of its kernels. */
static bool mma_wants_route(int dp, bool bwd)
{
    return bwd ? attn_routes(ATTN_R_DKV, dp) || attn_routes(ATTN_R_DQ, dp)
               : attn_routes(ATTN_R_FWD, dp);
}

/* Which kernels (ATTN_FMA, ATTN_MMA_PLAIN, ATTN_MMA_ROUTED) run the forward
 * (bwd: the backward) for (dt, dp) on d: the tensor-core kernels after
 * their known-answer check, once per device, dtype and head-dim class —
 * through the PTX route first where attn_ctas asks for it; a routed build
 * that fails to build or to pass warns once and the driver's build is
 * checked; if that fails too, a warning and the FMA kernels. */
static int mma_checked(clops_device *d, clops_dtype dt, int dp, bool bwd)
{
    pthread_mutex_lock(&mma_lock);
    mma_slot *s = mma_slot_of(d);
    int mode = ATTN_FMA;
    if (s) {
        unsigned char *state =
            &s->state[bwd][dt == CLOPS_BFLOAT16][dp <= 32 ? 0 : dp <= 64 ? 1 : 2];
        if (*state == 0) {
            char why[512];
            const char *what = bwd ? "backward" : "forward";
            mode = mma_wants_route(dp, bwd) ? ATTN_MMA_ROUTED : ATTN_MMA_PLAIN;
            while (mode != ATTN_FMA) {
                bool pass = mma_canary(bwd ? mma_bwd_canary_one : mma_canary_one, d, dt, dp,
                                       mode, why, sizeof why);
                if (pass)
                    break;
                fprintf(stderr,
                        "clops: warning: the attention %s's mma.sync kernels (%s) failed their "
                        "known-answer check on %s (%s) for %s, head dim %d: %s; using %s "
                        "there\n",
                        what, mode == ATTN_MMA_ROUTED ? "PTX route" : "the driver's build",
                        d->label, d->info.name, clops_dtype_name(dt), dp, why,
                        mode == ATTN_MMA_ROUTED ? "the driver's build" : "the FMA kernels");
                mode = mode == ATTN_MMA_ROUTED ? ATTN_MMA_PLAIN : ATTN_FMA;
            }
            *state = (unsigned char)(1 + mode);
        }
        mode = *state - 1;
    }
    pthread_mutex_unlock(&mma_lock);
    return mode;
}

/* Whether d, dt and dp allow the wgmma kernels: a Hopper (wg_device),
 * 16-bit inputs, padded head dims 64 and 128. */
static bool wg_fits(const clops_device *d, clops_dtype dt, int dp)
{
    return wg_device(d) && (dt == CLOPS_FLOAT16 || dt == CLOPS_BFLOAT16) && (dp == 64 || dp == 128);
}

/* The wgmma kernels a known-answer check is for (wg_check_once). */
enum { WGK_FWD, WGK_DKV, WGK_DQ };

/* The known-answer check of attn_fwd_wg (WGK_FWD), attn_bwd_dkv_wg
 * (WGK_DKV: dQ on the kernels of mode base) or attn_bwd_dq_wg (WGK_DQ:
 * dK/dV on the kernels of mode base) for (d, dt, dp), run once; whether
 * it passed.  A failure warns once. */
static bool wg_check_once(clops_device *d, clops_dtype dt, int dp, int kind, int base)
{
    static const char *const kname[3] = {"attn_fwd_wg", "attn_bwd_dkv_wg", "attn_bwd_dq_wg"},
                             *const other[3] = {"attn_fwd_mma", "attn_bwd_dkv_mma",
                                                "attn_bwd_dq_mma"};
    atomic_ullong *checks[3] = {&stat_wg_checks, &stat_wgb_checks, &stat_wgq_checks},
                  *fails[3] = {&stat_wg_fails, &stat_wgb_fails, &stat_wgq_fails};
    pthread_mutex_lock(&mma_lock);
    mma_slot *s = mma_slot_of(d);
    bool ok = false;
    if (s) {
        int bf = dt == CLOPS_BFLOAT16, big = dp == 128;
        unsigned char *state = kind == WGK_DKV  ? &s->wgb[bf][big]
                               : kind == WGK_DQ ? &s->wgq[bf][big]
                                                : &s->wg[bf][big];
        if (*state == 0) {
            char why[512] = "";
            clops_tensor *m = NULL;
            atomic_fetch_add(checks[kind], 1);
            bool pass = kind == WGK_FWD
                            ? mma_canary_one(d, dt, dp, ATTN_WG, 0, &m, why, sizeof why)
                            : mma_bwd_canary_one(d, dt, dp,
                                                 base | (kind == WGK_DKV ? ATTN_WGB : ATTN_WGQ),
                                                 0, &m, why, sizeof why);
            clops_tensor_release(m);
            if (!pass) {
                atomic_fetch_add(fails[kind], 1);
                fprintf(stderr,
                        "clops: warning: the attention %s's wgmma kernel (%s) failed its "
                        "known-answer check on %s (%s) for %s, head dim %d: %s; using %s there\n",
                        kind == WGK_FWD ? "forward" : "backward", kname[kind], d->label,
                        d->info.name, clops_dtype_name(dt), dp, why, other[kind]);
            }
            *state = pass ? 1 : 2;
        }
        ok = *state == 1;
    }
    pthread_mutex_unlock(&mma_lock);
    return ok;
}

/*
 * Whether attn_fwd_wg runs the lean forwards of (dt, dp: 64 or 128) on d:
 * switched on for dp (attn_wg_on), a Hopper (wg_device), and its known-answer
 * check passed — once per device, dtype and head dim: mma_canary_one's
 * causal problem without a mask (L 150, S 140: two query tiles of 128
 * rows, the second partial; three key tiles of 48 or 64, the last
 * partial; two query heads on one key/value head) through attn_fwd and
 * attn_fwd_wg, within 2e-2 (output) and 1e-2 (logsumexp).  A failure (a
 * build the driver refuses included) warns once and leaves attn_fwd_mma
 * in charge.
 */
static bool wg_checked(clops_device *d, clops_dtype dt, int dp)
{
    return attn_wg_on(dp) && wg_fits(d, dt, dp) && wg_check_once(d, dt, dp, WGK_FWD, 0);
}

bool attention_wgmma_chosen(clops_device *d, clops_dtype dt, int dp)
{
    return wg_checked(d, dt, dp);
}

/*
 * Whether the wgmma backward kernel of kind (WGK_DKV or WGK_DQ) takes its
 * part of the lean 16-bit backwards of (dt, dp: 64 or 128) on d, the other
 * part on the kernels of mode base: switched on (attn_wgb_on, attn_wgq_on),
 * a Hopper (wg_device), and its known-answer check passed — once per
 * device, dtype and head dim, through the FMA backward and the one with
 * that part on the wgmma kernel, dQ, dK, dV within 3e-2 of the largest
 * magnitude: mma_bwd_canary_one's causal grouped-query problem without a
 * mask (L 150, S 140).  For attn_bwd_dkv_wg: three key blocks of 64, the
 * last partial; two query heads split over two work-groups on a large
 * device (attn_bwd_fold after it).  For attn_bwd_dq_wg: three query tiles
 * of 64, the last partial; keys in tiles of attn_wgq_k, the last partial;
 * two query heads on one key/value head.  A failure (a build the driver
 * refuses included) warns once and leaves attn_bwd_dkv_mma or
 * attn_bwd_dq_mma in charge.
 */
static bool wg_bwd_on(int kind)
{
    return kind == WGK_DQ ? attn_wgq_on() : attn_wgb_on();
}

static bool wg_bwd_checked(clops_device *d, clops_dtype dt, int dp, int kind, int base)
{
    return wg_bwd_on(kind) && wg_fits(d, dt, dp) && wg_check_once(d, dt, dp, kind, base);
}

/* attention_wgmma_bwd_chosen and attention_wgmma_dq_chosen */
static bool wg_bwd_chosen(clops_device *d, clops_dtype dt, int dp, int kind)
{
    /* (the tests before mma_checked: a float32 check would fail and take
     * float16's tensor-core backward slot, as it did on the H200) */
    if (!wg_bwd_on(kind) || !wg_fits(d, dt, dp))
        return false;
    int base = kit_kind_of(d) == KIT_MMA ? mma_checked(d, dt, dp, true) : ATTN_FMA;
    return wg_bwd_checked(d, dt, dp, kind, base);
}

bool attention_wgmma_dq_chosen(clops_device *d, clops_dtype dt, int dp)
{
    return wg_bwd_chosen(d, dt, dp, WGK_DQ);
}

bool attention_wgmma_bwd_chosen(clops_device *d, clops_dtype dt, int dp)
{
    return wg_bwd_chosen(d, dt, dp, WGK_DKV);
}

/* Whether attn_fwd_tf32 takes p on d: float32, padded head dim 64 or
 * 128, no mask, dropout or mask gradient (the lean problems), more than
 * ATTN_DEC_MAXL query rows, switched on. */
static bool t3_fits(const attn_problem *p, clops_device *d)
{
    int dp = attn_dpad(p);
    return p->q.t->dtype == CLOPS_FLOAT32 && (dp == 64 || dp == 128) && !(p->dropout_p > 0) &&
           !attn_xm(p) && p->L > ATTN_DEC_MAXL && t3_device(d) && attn_t3_on();
}

/* Whether attn_fwd_tf32 runs (dp) on d: its known-answer check
 * (mma_canary_one against attn_fwd, within 5e-5) passed, once per device
 * and head dim; a failure (a build the driver refuses included) warns
 * once and leaves attn_fwd in charge. */
static bool t3_checked(clops_device *d, int dp)
{
    pthread_mutex_lock(&mma_lock);
    mma_slot *s = mma_slot_of(d);
    bool ok = false;
    if (s) {
        unsigned char *state = &s->t3[dp == 128];
        if (*state == 0) {
            char why[512];
            clops_tensor *m = NULL;
            atomic_fetch_add(&stat_tf32_checks, 1);
            bool pass = mma_canary_one(d, CLOPS_FLOAT32, dp, ATTN_TF32, 0, &m, why, sizeof why);
            clops_tensor_release(m);
            if (!pass) {
                atomic_fetch_add(&stat_tf32_fails, 1);
                fprintf(stderr,
                        "clops: warning: the attention forward's float32 tensor-core kernel "
                        "(attn_fwd_tf32) failed its known-answer check on %s (%s), head dim %d: "
                        "%s; using the FMA kernel there\n",
                        d->label, d->info.name, dp, why);
            }
            *state = pass ? 1 : 2;
        }
        ok = *state == 1;
    }
    pthread_mutex_unlock(&mma_lock);
    return ok;
}

bool attention_tf32_chosen(clops_device *d, int dp)
{
    return (dp == 64 || dp == 128) && t3_device(d) && attn_t3_on() && t3_checked(d, dp);
}

static clops_status fwd_mma(void *vp)
{
    attn_problem *p = vp;
    clops_device *d = p->q.t->storage->device;
    if (t3_fits(p, d) && t3_checked(d, attn_dpad(p))) {
        atomic_fetch_add(&stat_fwd_tf32, 1);
        return fwd_launch(p, ATTN_TF32);
    }
    int mode = mma_fits(p) && p->L > ATTN_DEC_MAXL && attn_nsplit(p, d) == 1
                   ? mma_checked(d, p->q.t->dtype, attn_dpad(p), false)
                   : ATTN_FMA;
    /* Hopper: the lean problems (no mask, no dropout) on attn_fwd_wg where
     * it is switched on and passed its check */
    if (mode != ATTN_FMA && !attn_xm(p) && wg_checked(d, p->q.t->dtype, attn_dpad(p)))
        mode = ATTN_WG;
    if (mode != ATTN_FMA)
        atomic_fetch_add(&stat_fwd_mma, 1);
    if (mode == ATTN_MMA_ROUTED || mode == ATTN_WG)
        atomic_fetch_add(&stat_fwd_routed, 1);
    if (mode == ATTN_WG)
        atomic_fetch_add(&stat_fwd_wg, 1);
    return fwd_launch(p, mode);
}

/* ---- the backward ---------------------------------------------------------------------- */

static clops_status bwd_host(void *vp)
{
    return ref_attention_backward(vp);
}

/* Whether p's mask-gradient buffer is the whole [B, Hq, L, S] dS (the
 * mask broadcasts over nothing): attn_bwd_dkv writes it then, else
 * attn_bwd_dmask reduces into it. */
static bool ds_full(const attn_problem *p)
{
    const int64_t *z = p->ds->sizes;
    return z[0] == p->B && z[1] == p->Hq && z[2] == p->L && z[3] == p->S;
}

/* The common arguments of attn_bwd_dkv and attn_bwd_dq; dsc (not NULL):
 * the CPU backward's dS scratch (dsg, wds 2). */
static void bwd_args_ds(attn_args *g, const attn_problem *p, cl_mem dv, const attn_view *r,
                        const attn_view *s, int64_t ntile, cl_mem dsc)
{
    cl_mem q = qkv_mask_args(g, p);
    arg_view(g, &p->go, q);
    arg_mem(g, mem_of(p->lse));
    arg_mem(g, dv);
    arg_view(g, r, q);
    arg_view(g, s, q);
    arg_mem(g, dsc ? dsc : p->ds ? mem_of(p->ds) : dv);
    arg_int(g, dsc ? 2 : p->ds && ds_full(p));
    arg_long(g, p->Hq);
    arg_long(g, p->Hq / p->Hkv);
    arg_long(g, p->L);
    arg_long(g, p->S);
    arg_long(g, p->E);
    arg_long(g, p->Ev);
    arg_long(g, ntile);
    arg_tail(g, p);
}

static void bwd_args(attn_args *g, const attn_problem *p, cl_mem dv, const attn_view *r,
                     const attn_view *s, int64_t ntile)
{
    bwd_args_ds(g, p, dv, r, s, ntile, NULL);
}

/* attn_bwd_dmask: a broadcast mask's gradient into p->ds, one work-group
 * per tile of it. */
static clops_status dmask_launch(const attn_problem *p, cl_mem dv)
{
    clops_device *d = p->q.t->storage->device;
    int dp = attn_dpad(p), bt = attn_bt(dp);
    const int64_t *z = p->ds->sizes;
    int64_t nit = z[2] == 1 ? 1 : (p->L + bt - 1) / bt, njt = z[3] == 1 ? 1 : (p->S + bt - 1) / bt;
    host_kernel *k = NULL;
    size_t global = 0;
    clops_status st = attn_kernel(d, ATTN_K_DMASK, p->q.t->dtype, dp, ATTN_BQ, p->op, &k);
    if (!st)
        st = attn_global(p, z[0] * z[1], nit, njt, ATTN_NT, &global);
    if (st)
        return st;
    attn_args g;
    bwd_args(&g, p, dv, &p->gq, &p->gq, 0);
    arg_long(&g, p->B);
    for (int i = 0; i < 4; i++)
        arg_long(&g, z[i]);
    return host_launch_local(d, k, g.n, g.a, global, ATTN_NT);
}

/* Whether the environment variable `name` is `val`, read once per
 * process into *cache (-1 before).  attn_nsplit reads CLOPS_ATTN_SPLIT
 * the same way inline (the FMA forward's launch, left as it is while the
 * CPU launch shape is built beside it). */
static bool attn_env_is(atomic_int *cache, const char *name, const char *val)
{
    int o = atomic_load_explicit(cache, memory_order_relaxed);
    if (o < 0) {
        const char *env = host_env(name);
        o = env && strcmp(env, val) == 0;
        atomic_store_explicit(cache, o, memory_order_relaxed);
    }
    return o;
}

/* Whether the switch `name` is turned off ("0"). */
static bool attn_env_off(atomic_int *cache, const char *name)
{
    return attn_env_is(cache, name, "0");
}

/*
 * How many work-groups attn_bwd_dkv_mma splits a grouped-query group's G
 * query heads over (each then sums G / nsp heads, attn_bwd_fold adds the
 * partial sums in split order): 1 unless the nkv (batch, key/value head,
 * key block) work-groups would leave the device short of 8 per compute
 * unit, then the smallest divisor of G that reaches it (or G).
 * CLOPS_ATTN_BWD_SPLIT=0 (read once per process) keeps 1, for benchmarks.
 */
static int64_t attn_bwd_nsp(const attn_problem *p, const clops_device *d, int64_t nkv,
                            int warps)
{
    static atomic_int off = -1;
    int64_t G = p->Hq / p->Hkv;
    if (G <= 1 || attn_env_off(&off, "CLOPS_ATTN_BWD_SPLIT"))
        return 1;
    /* 32 warps per compute unit: 8 work-groups of 4 warps (or 4 of 8) */
    int64_t cu = d->info.compute_units > 0 ? (int64_t)d->info.compute_units : 1,
            want = 32 * cu / warps;
    int64_t all;
    for (int64_t n = 1; n <= G; n++)
        if (G % n == 0 && (!geom_mul(nkv, n, &all) || all >= want || n == G))
            return n;
    return 1;
}

/*
 * CLOPS_ATTN_TIMES=1 (read once per process; for benchmarks): the
 * backward waits for each of its kernels (host_finish) and prints their
 * wall times on stderr, one line per call ("clops: attention backward
 * us: pre P dkv K fold F dq Q") — where the backward's time goes, at the
 * cost of the launches' overlap.  attn_tick(d, t, i) waits and adds the
 * time since the last tick to t[i].
 */
static bool attn_times(void)
{
    static atomic_int on = -1;
    return attn_env_is(&on, "CLOPS_ATTN_TIMES", "1");
}

static double attn_now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec * 1e-3;
}

static void attn_tick(clops_device *d, double t[5], int i)
{
    if (host_finish(d) == CLOPS_OK) {
        double now = attn_now_us();
        if (i >= 0)
            t[i] += now - t[4];
        t[4] = now;
    }
}

/* attn_bwd_pre's items per row: 16 (coalesced row reads), or 1
 * (CLOPS_ATTN_PRE_W=1, read once per process: the kernel before attn12,
 * for benchmarks). */
static int attn_pre_w(void)
{
    static atomic_int one = -1;
    return attn_env_is(&one, "CLOPS_ATTN_PRE_W", "1") ? 1 : 16;
}

/* The backward on an OpenCL device: attn_bwd_pre, then attn_bwd_dkv and
 * attn_bwd_dq (FMA) or attn_bwd_dkv_mma and attn_bwd_dq_mma (tensor
 * cores), and attn_bwd_dmask for a broadcast mask's gradient. */
/* *nsp_out (when not NULL): the head split attn_bwd_dkv_mma ran with. */
static clops_status bwd_launch(const attn_problem *p, int mma, int64_t *nsp_out)
{
    /* wgb: dK/dV on attn_bwd_dkv_wg (and its program's fold); wgq: dQ on
     * attn_bwd_dq_wg */
    bool wgb = (mma & ATTN_WGB) != 0, wgq = (mma & ATTN_WGQ) != 0;
    bool cpu = (mma & ATTN_CPUB) != 0; /* single items of ATTN_CPU_RQ rows */
    mma &= ~(ATTN_WGB | ATTN_WGQ | ATTN_CPUB);
    clops_device *d = p->q.t->storage->device;
    int dp = attn_dpad(p), bt = attn_bt(dp);
    clops_dtype dt = p->q.t->dtype;
    int64_t rows = p->B * p->Hq * p->L;
    clops_tensor *Dt = NULL;
    host_kernel *k = NULL;
    /* CLOPS_ATTN_TIMES: pre, dK/dV, fold, dQ, then the last tick */
    bool timed = attn_times();
    double tt[5] = {0};
    if (timed)
        attn_tick(d, tt, -1);
    clops_status st = tensor_new(d, CLOPS_FLOAT32, 1, &rows, NULL, &Dt);
    cl_mem dv = Dt ? mem_of(Dt) : NULL, q = mem_of(p->q.t);
    if (!st && rows > 0)
        st = attn_kernel(d, ATTN_K_PRE, dt, dp, ATTN_BQ, p->op, &k);
    if (!st && rows > 0) {
        attn_args g;
        g.n = 0;
        arg_view(&g, &p->go, q);
        arg_view(&g, &p->out, q);
        arg_mem(&g, dv);
        arg_long(&g, p->Hq);
        arg_long(&g, p->L);
        arg_long(&g, p->Ev);
        arg_long(&g, rows);
        int pw = attn_pre_w();
        arg_int(&g, pw);
        /* work-groups of ATTN_NT items, ATTN_NT / pw rows each,
         * grid-stride past max_groups */
        uint64_t groups = ((uint64_t)rows + ATTN_NT / pw - 1) / (uint64_t)(ATTN_NT / pw);
        if (groups > d->max_groups)
            groups = d->max_groups ? d->max_groups : 1;
        st = host_launch_local(d, k, g.n, g.a, (size_t)groups * ATTN_NT, ATTN_NT);
    }
    if (timed && !st)
        attn_tick(d, tt, 0);
    int kw = attn_warps(ATTN_R_DKV, dp), qw = attn_warps(ATTN_R_DQ, dp);
    if (wgb)
        kw = 4; /* one warpgroup of 64 keys */
    bool kmma = mma || wgb; /* dK/dV on the tensor cores */
    int kb = kmma ? 16 * kw : cpu ? ATTN_CPU_RQ : bt;
    int qb = wgq ? 64 : mma ? 16 * qw : cpu ? ATTN_CPU_RQ : bt;
    int knt = kmma ? 32 * kw : cpu ? 1 : ATTN_NT, qnt = wgq ? 128 : mma ? 32 * qw : cpu ? 1 : ATTN_NT;
    int vec = (kmma || wgq) && mma_vec(&p->q) && mma_vec(&p->k) && mma_vec(&p->v) &&
              mma_vec(&p->go);
    int64_t nkt = (p->S + kb - 1) / kb, nqt = (p->L + qb - 1) / qb;
    size_t global = 0;
    /* the tensor-core dK/dV's head split and its partial sums (float32,
     * [nsp][B * Hkv][S][dp] for dK, then dV) */
    int64_t nsp = 1, pn = 0;
    clops_tensor *part = NULL;
    /* the CPU backward's dS ([B * Hq][L][S] float32, up to
     * ATTN_CPU_DS_MAX bytes; not with a full mask's gradient, which dK/dV
     * writes itself): attn_bwd_dkv_cpu writes it, attn_bwd_dq_cpu reads it
     * instead of computing the scores and dP again */
    clops_tensor *dsc = NULL;
    int64_t dsn, dbg = clops_debug_get(CLOPS_DEBUG_ATTENTION_CPU_BWD);
    if (!st && cpu && !(p->ds && ds_full(p)) && rows > 0 && geom_mul(rows, p->S, &dsn) &&
        dsn > 0 && dsn <= ATTN_CPU_DS_MAX / 4 && (dbg == 0 || dbg == 3)) {
        /* the scratch is an optimisation: where it cannot be had, dQ
         * recomputes the scores and dP (the same bits), and the caller's
         * last error message stays as it was */
        static _Thread_local char keep[CLOPS__ERROR_CAP];
        snprintf(keep, sizeof keep, "%s", clops_last_error());
        clops_status ds_st =
            dbg == 3 ? clops__fail(CLOPS_OUT_OF_MEMORY, "%s: the dS scratch (attention.cpu_bwd 3)",
                                   p->op)
                     : tensor_new(d, CLOPS_FLOAT32, 1, &dsn, NULL, &dsc);
        if (ds_st == CLOPS_OK)
            atomic_fetch_add(&stat_bwd_cpu_ds, 1);
        else if (ds_st == CLOPS_OUT_OF_MEMORY || ds_st == CLOPS_HOST_OUT_OF_MEMORY)
            clops__fail(CLOPS_OK, "%s", keep);
        else
            st = ds_st;
    }
    int64_t nkv;
    if (!st && kmma && nkt > 0 && p->B * p->Hkv > 0 && geom_mul(nkt, p->B * p->Hkv, &nkv))
        nsp = attn_bwd_nsp(p, d, nkv, kw);
    if (!st && nsp > 1) {
        int64_t all;
        if (!geom_mul(p->B * p->Hkv, p->S, &pn) || !geom_mul(pn, dp, &pn) ||
            !geom_mul(pn, 2 * nsp, &all))
            st = clops__fail(CLOPS_INVALID_SHAPE, "%s: %lld partial dK/dV sums of [%lld, %lld, "
                                                  "%d] are too many",
                             p->op, (long long)nsp, (long long)(p->B * p->Hkv),
                             (long long)p->S, dp);
        else
            st = tensor_new(d, CLOPS_FLOAT32, 1, &all, NULL, &part);
    }
    if (!st && nkt > 0)
        st = wgb ? wgb_kernel(d, dt, dp, false, p->op, &k)
                 : attn_kernel_route(d, mma ? ATTN_K_DKV_MMA : cpu ? ATTN_K_DKV_CPU : ATTN_K_DKV, dt, dp, ATTN_BQ,
                                     mma == ATTN_MMA_ROUTED, attn_xm(p), p->op, &k);
    if (!st && nkt > 0)
        st = attn_global(p, nkt, nsp, p->B * p->Hkv, knt, &global);
    if (!st && nkt > 0 && p->B * p->Hkv > 0) {
        attn_args g;
        bwd_args_ds(&g, p, dv ? dv : q, &p->gk, &p->gv, nkt, dsc ? mem_of(dsc) : NULL);
        if (kmma) {
            arg_int(&g, vec);
            arg_long(&g, nsp);
            arg_mem(&g, part ? mem_of(part) : dv ? dv : q);
        }
        st = host_launch_local(d, k, g.n, g.a, global, knt);
    }
    if (timed && !st)
        attn_tick(d, tt, 1);
    if (nsp_out)
        *nsp_out = nsp;
    if (!st && nsp > 1)
        st = wgb ? wgb_kernel(d, dt, dp, true, p->op, &k)
                 : attn_kernel_route(d, ATTN_K_FOLD, dt, dp, ATTN_BQ, mma == ATTN_MMA_ROUTED,
                                     attn_xm(p), p->op, &k);
    if (!st && nsp > 1) {
        attn_args g;
        g.n = 0;
        arg_mem(&g, mem_of(part));
        arg_view(&g, &p->gk, q);
        arg_view(&g, &p->gv, q);
        arg_long(&g, p->Hkv);
        arg_long(&g, p->S);
        arg_long(&g, p->E);
        arg_long(&g, p->Ev);
        arg_long(&g, nsp);
        arg_long(&g, pn);
        arg_float(&g, (float)p->scale);
        /* four columns an item (pn: a multiple of dp, itself of 4) */
        st = host_launch(d, k, g.n, g.a, host_grid_size(d, k, (uint64_t)pn / 4));
    }
    if (timed && !st)
        attn_tick(d, tt, 2);
    clops_tensor_release(part);
    if (!st && p->ds && !ds_full(p) && tensor_numel(p->ds) > 0)
        st = dmask_launch(p, dv ? dv : q);
    if (!st && rows > 0)
        st = wgq ? wgq_kernel(d, dt, dp, p->op, &k)
                 : attn_kernel_route(d, mma ? ATTN_K_DQ_MMA : cpu ? ATTN_K_DQ_CPU : ATTN_K_DQ, dt, dp, ATTN_BQ,
                                     mma == ATTN_MMA_ROUTED, attn_xm(p), p->op, &k);
    if (!st && rows > 0)
        st = attn_global(p, nqt, p->B, p->Hq, qnt, &global);
    if (!st && rows > 0) {
        attn_args g;
        bwd_args_ds(&g, p, dv, &p->gq, &p->gq, nqt, dsc ? mem_of(dsc) : NULL);
        if (mma || wgq)
            arg_int(&g, vec);
        st = host_launch_local(d, k, g.n, g.a, global, qnt);
    }
    if (timed && !st) {
        attn_tick(d, tt, 3);
        fprintf(stderr, "clops: attention backward us: pre %.1f dkv %.1f fold %.1f dq %.1f\n",
                tt[0], tt[1], tt[2], tt[3]);
    }
    clops_tensor_release(dsc);
    clops_tensor_release(Dt);
    return st;
}

void attention_stats(attn_stats *out)
{
    out->bwd_mma = atomic_load(&stat_bwd_mma);
    out->bwd_fma = atomic_load(&stat_bwd_fma);
    out->fwd_mma = atomic_load(&stat_fwd_mma);
    out->bwd_split = atomic_load(&stat_bwd_split);
    out->fwd_routed = atomic_load(&stat_fwd_routed);
    out->bwd_routed = atomic_load(&stat_bwd_routed);
    out->fwd_wg = atomic_load(&stat_fwd_wg);
    out->wg_checks = atomic_load(&stat_wg_checks);
    out->wg_fails = atomic_load(&stat_wg_fails);
    out->bwd_wg = atomic_load(&stat_bwd_wg);
    out->wgb_checks = atomic_load(&stat_wgb_checks);
    out->wgb_fails = atomic_load(&stat_wgb_fails);
    out->bwd_wgq = atomic_load(&stat_bwd_wgq);
    out->wgq_checks = atomic_load(&stat_wgq_checks);
    out->wgq_fails = atomic_load(&stat_wgq_fails);
    out->fwd_tf32 = atomic_load(&stat_fwd_tf32);
    out->tf32_checks = atomic_load(&stat_tf32_checks);
    out->tf32_fails = atomic_load(&stat_tf32_fails);
    out->bwd_cpu = atomic_load(&stat_bwd_cpu);
    out->bwd_cpu_ds = atomic_load(&stat_bwd_cpu_ds);
}

static clops_status bwd_cl(void *vp)
{
    atomic_fetch_add(&stat_bwd_fma, 1);
    return bwd_launch(vp, ATTN_FMA, NULL);
}

/* The backward on a CPU device (KIT_CPU): attn_bwd_pre, then
 * attn_bwd_dkv_cpu and attn_bwd_dq_cpu as single items of ATTN_CPU_RQ
 * keys or query rows (and attn_bwd_dmask for a broadcast mask's
 * gradient).  Head dims above 128 take the work-group kernels, as the
 * forward does.  CLOPS_ATTN_CPU_BWD=0 (read once per process) keeps the
 * work-group kernels, for benchmarks that compare the two. */
static clops_status bwd_cpu(void *vp)
{
    static atomic_int off = -1;
    const attn_problem *p = vp;
    atomic_fetch_add(&stat_bwd_fma, 1);
    bool cpu = attn_dpad(p) <= 128 && !attn_env_off(&off, "CLOPS_ATTN_CPU_BWD") &&
               clops_debug_get(CLOPS_DEBUG_ATTENTION_CPU_BWD) != 2;
    if (cpu)
        atomic_fetch_add(&stat_bwd_cpu, 1);
    return bwd_launch(p, ATTN_FMA | (cpu ? ATTN_CPUB : 0), NULL);
}

/* Whether attn_bwd_dkv_mma and attn_bwd_dq_mma take p: 16-bit inputs,
 * head dims up to 128 (masks, causality, dropout, GQA and the mask's
 * gradient all are theirs), and CLOPS_ATTN_MMA_BWD is not 0 (read once
 * per process). */
static bool mma_bwd_fits(const attn_problem *p)
{
    static atomic_int off = -1;
    clops_dtype dt = p->q.t->dtype;
    return !attn_env_off(&off, "CLOPS_ATTN_MMA_BWD") &&
           (dt == CLOPS_FLOAT16 || dt == CLOPS_BFLOAT16) && attn_dpad(p) <= 128;
}

static clops_status bwd_mma(void *vp)
{
    const attn_problem *p = vp;
    clops_device *d = p->q.t->storage->device;
    int mma = mma_bwd_fits(p) ? mma_checked(d, p->q.t->dtype, attn_dpad(p), true) : ATTN_FMA;
    atomic_fetch_add(mma ? &stat_bwd_mma : &stat_bwd_fma, 1);
    if (mma == ATTN_MMA_ROUTED)
        atomic_fetch_add(&stat_bwd_routed, 1);
    /* Hopper: the lean problems' dK/dV on attn_bwd_dkv_wg and their dQ on
     * attn_bwd_dq_wg where each is switched on and passed its check (each
     * check with the other on the kernels of mode base) */
    int base = mma;
    if (mma != ATTN_FMA && !attn_xm(p) &&
        wg_bwd_checked(d, p->q.t->dtype, attn_dpad(p), WGK_DKV, base)) {
        mma |= ATTN_WGB;
        atomic_fetch_add(&stat_bwd_wg, 1);
    }
    if (base != ATTN_FMA && !attn_xm(p) &&
        wg_bwd_checked(d, p->q.t->dtype, attn_dpad(p), WGK_DQ, base)) {
        mma |= ATTN_WGQ;
        atomic_fetch_add(&stat_bwd_wgq, 1);
    }
    int64_t nsp = 1;
    clops_status st = bwd_launch(p, mma, &nsp);
    if (!st && nsp > 1)
        atomic_fetch_add(&stat_bwd_split, 1);
    return st;
}

static const kit_launches fwd_launches = {
    "attention",
    {[KIT_HOST] = fwd_host, [KIT_CPU] = fwd_cpu, [KIT_GPU] = fwd_cl, [KIT_MMA] = fwd_mma}};
static const kit_launches bwd_launches = {
    "attention",
    {[KIT_HOST] = bwd_host, [KIT_CPU] = bwd_cpu, [KIT_GPU] = bwd_cl, [KIT_MMA] = bwd_mma}};

/* ---- checks and the problem ------------------------------------------------------------ */

/* t seen as [B, H, rows, cols]: leading missing dims get stride 0. */
static void view4(attn_view *v, clops_tensor *t)
{
    v->t = t;
    for (int i = 0; i < 4; i++)
        v->st[i] = 0;
    for (int i = 0; i < t->ndim; i++)
        v->st[4 - t->ndim + i] = t->strides[i];
}

/* Size of dim i of the [B, H, rows, cols] view of t (1 for a missing one). */
static int64_t size4(const clops_tensor *t, int i)
{
    int j = i - (4 - t->ndim);
    return j >= 0 ? t->sizes[j] : 1;
}

static clops_status same_device(const char *op, const char *name, const clops_tensor *t,
                                const clops_tensor *q)
{
    if (t && t->storage->device != q->storage->device)
        return clops__fail(CLOPS_DEVICE_MISMATCH, "%s: %s is on %s, query on %s", op, name,
                           t->storage->device->label, q->storage->device->label);
    return CLOPS_OK;
}

/*
 * Checks query, key, value, the mask and dropout_p and fills p's geometry
 * (q, k, v, mask views; B, Hq, Hkv, L, S, E, Ev), scale and causality
 * (the diagonal at the top-left corner, or at the bottom-right one with
 * lower_right: PyTorch's causal_lower_right).
 */
static clops_status check_problem(attn_problem *p, clops_tensor *q, clops_tensor *k,
                                  clops_tensor *v, clops_tensor *mask, double dropout_p,
                                  bool causal, bool lower_right, const double *scale)
{
    const char *op = p->op;
    char a[200], b[200], c[200];
    clops_status st = same_device(op, "key", k, q);
    if (!st)
        st = same_device(op, "value", v, q);
    if (!st)
        st = same_device(op, "attn_mask", mask, q);
    if (st)
        return st;
    if (q->dtype != k->dtype || q->dtype != v->dtype)
        return clops__fail(CLOPS_INVALID_DTYPE,
                           "%s: Expected query, key, and value to have the same dtype, but got "
                           "query.dtype: %s key.dtype: %s and value.dtype: %s instead.",
                           op, clops_dtype_name(q->dtype), clops_dtype_name(k->dtype),
                           clops_dtype_name(v->dtype));
    if (q->dtype != CLOPS_FLOAT32 && q->dtype != CLOPS_FLOAT16 && q->dtype != CLOPS_BFLOAT16)
        return clops__fail(CLOPS_UNSUPPORTED,
                           "%s: the fused kernel takes float32, float16 and bfloat16, got %s "
                           "(on %s)",
                           op, clops_dtype_name(q->dtype), q->storage->device->label);
    if (q->ndim < 2 || q->ndim > 4 || k->ndim != q->ndim || v->ndim != q->ndim)
        return clops__fail(CLOPS_UNSUPPORTED,
                           "%s: the fused kernel takes query, key and value of one rank from 2 "
                           "to 4, got query %s, key %s, value %s",
                           op, clops__fmt_shape(a, sizeof a, q->ndim, q->sizes),
                           clops__fmt_shape(b, sizeof b, k->ndim, k->sizes),
                           clops__fmt_shape(c, sizeof c, v->ndim, v->sizes));
    p->B = size4(q, 0);
    p->Hq = size4(q, 1);
    p->Hkv = size4(k, 1);
    p->L = size4(q, 2);
    p->E = size4(q, 3);
    p->S = size4(k, 2);
    p->Ev = size4(v, 3);
    if (size4(k, 0) != p->B || size4(v, 0) != p->B || size4(v, 1) != p->Hkv ||
        size4(v, 2) != p->S || size4(k, 3) != p->E)
        return clops__fail(CLOPS_INVALID_SHAPE,
                           "%s: query %s, key %s and value %s do not fit: expected query (..., "
                           "Hq, L, E), key (..., Hkv, S, E), value (..., Hkv, S, Ev) with equal "
                           "batch sizes",
                           op, clops__fmt_shape(a, sizeof a, q->ndim, q->sizes),
                           clops__fmt_shape(b, sizeof b, k->ndim, k->sizes),
                           clops__fmt_shape(c, sizeof c, v->ndim, v->sizes));
    if (p->Hkv == 0 ? p->Hq != 0 : p->Hq % p->Hkv != 0)
        return clops__fail(CLOPS_INVALID_SHAPE,
                           "%s: number of heads in key and value (%lld) must divide the number "
                           "of heads in query (%lld)",
                           op, (long long)p->Hkv, (long long)p->Hq);
    if (p->Hkv == 0)
        p->Hkv = 1; /* no heads: nothing to compute */
    if (p->E > ATTN_MAX_HEAD_DIM || p->Ev > ATTN_MAX_HEAD_DIM)
        return clops__fail(CLOPS_UNSUPPORTED,
                           "%s: the fused kernel takes head dimensions up to %d, got %lld "
                           "(query/key) and %lld (value)",
                           op, ATTN_MAX_HEAD_DIM, (long long)p->E, (long long)p->Ev);
    view4(&p->q, q);
    view4(&p->k, k);
    view4(&p->v, v);
    p->mask_kind = ATTN_MASK_NONE;
    memset(&p->mask, 0, sizeof p->mask);
    if (mask) {
        if (mask->dtype != CLOPS_BOOL && mask->dtype != q->dtype)
            return clops__fail(CLOPS_INVALID_DTYPE,
                               "%s: Expected attn_mask dtype to be bool or to match query "
                               "dtype, but got attn_mask.dtype: %s and query.dtype: %s instead.",
                               op, clops_dtype_name(mask->dtype), clops_dtype_name(q->dtype));
        int64_t want[4] = {p->B, p->Hq, p->L, p->S};
        bool ok = mask->ndim <= 4;
        for (int i = 0; ok && i < 4; i++) {
            int64_t s = size4(mask, i);
            ok = s == want[i] || s == 1;
        }
        if (!ok)
            return clops__fail(CLOPS_INVALID_SHAPE,
                               "%s: attn_mask %s does not broadcast to the attention weights %s",
                               op, clops__fmt_shape(a, sizeof a, mask->ndim, mask->sizes),
                               clops__fmt_shape(b, sizeof b, 4, want));
        view4(&p->mask, mask);
        for (int i = 0; i < 4; i++)
            if (size4(mask, i) == 1)
                p->mask.st[i] = 0;
        p->mask_kind = mask->dtype == CLOPS_BOOL ? ATTN_MASK_BOOL : ATTN_MASK_ADD;
    }
    if (!(dropout_p >= 0.0 && dropout_p <= 1.0))
        return clops__fail(CLOPS_INVALID_ARGUMENT,
                           "%s: dropout probability has to be between 0 and 1, but got %g", op,
                           dropout_p);
    if (lower_right && !causal)
        return clops__fail(CLOPS_INVALID_ARGUMENT,
                           "%s: causal_lower_right aligns the causal mask of is_causal=True; "
                           "is_causal is False",
                           op);
    p->causal = causal;
    p->causal_off = lower_right ? p->S - p->L : 0;
    p->scale = scale ? *scale : 1.0 / sqrt((double)p->E);
    p->dropout_p = dropout_p;
    p->thr = (uint64_t)floor(dropout_p * 4294967296.0);
    p->drop_scale = dropout_p == 1.0 ? 0.0f : (float)(1.0 / (1.0 - dropout_p));
    return CLOPS_OK;
}

/* A new contiguous tensor of t's leading dims plus `last` (last < 0: none). */
static clops_status new_like_rows(clops_device *d, const clops_tensor *t, clops_dtype dt,
                                  int64_t last, clops_tensor **out)
{
    int64_t sz[4];
    int n = t->ndim - 1;
    memcpy(sz, t->sizes, sizeof(int64_t) * (size_t)n);
    if (last >= 0)
        sz[n++] = last;
    return tensor_new(d, dt, n, sz, NULL, out);
}

/*
 * A new tensor of dtype dt with t's sizes but the last one `last`, laid
 * out as PyTorch lays out the results of the attention ops "like" t (so
 * the kernels, which write through strides, give PyTorch's strides and a
 * compiled graph's traced layout): with t's own sizes, empty_like's
 * preserve_format (t's strides when t is non-overlapping and dense, else
 * dense strides in t's dimension order: the meta functions' grad_query,
 * grad_key, grad_value and, for Ev == E, the output); with another last
 * size, alloc_with_matching_layout of the meta function of
 * _scaled_dot_product_fused_attention_overrideable (PyTorch 2.15: dims
 * innermost-first by ascending stride, a stride 0 outermost, ties in dim
 * order).  A query [B, H, L, E] viewed from [B, L, H, E] memory (every
 * transformer that splits heads with a transpose) gives an output of
 * [B, L, H, Ev] memory order, as CUDA's flash kernel writes it.
 */
static clops_status new_like(clops_device *d, const clops_tensor *t, clops_dtype dt, int64_t last,
                             clops_tensor **out)
{
    int n = t->ndim;
    int64_t sz[4], st[4];
    memcpy(sz, t->sizes, sizeof(int64_t) * (size_t)n);
    sz[n - 1] = last;
    if (last == t->sizes[n - 1] && structured_non_overlapping_dense(t))
        return tensor_new(d, dt, n, sz, t->strides, out);
    if (last == t->sizes[n - 1]) {
        const clops_tensor *in[1] = {t};
        pw_output_strides(in, 1, n, sz, st);
        return tensor_new(d, dt, n, sz, st, out);
    }
    int perm[4];
    for (int i = 0; i < n; i++)
        perm[i] = i;
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0; j--) {
            uint64_t a = t->strides[perm[j]] ? (uint64_t)t->strides[perm[j]] : UINT64_MAX;
            uint64_t b = t->strides[perm[j - 1]] ? (uint64_t)t->strides[perm[j - 1]] : UINT64_MAX;
            if (a >= b)
                break;
            int x = perm[j];
            perm[j] = perm[j - 1];
            perm[j - 1] = x;
        }
    int64_t run = 1;
    for (int i = 0; i < n; i++) {
        st[perm[i]] = run;
        if (!geom_mul(run, sz[perm[i]] > 0 ? sz[perm[i]] : 1, &run)) {
            char a[200];
            return clops__fail(CLOPS_INVALID_SHAPE, "attention: a result of shape %s is too large",
                               clops__fmt_shape(a, sizeof a, n, sz));
        }
    }
    return tensor_new(d, dt, n, sz, st, out);
}

/* Writes (seed, offset) into a new int64 [2] tensor on d. */
static clops_status rng_state_new(clops_device *d, uint64_t seed, uint64_t offset,
                                  clops_tensor **out)
{
    int64_t two = 2, val[2] = {(int64_t)seed, (int64_t)offset};
    clops_status st = tensor_new(d, CLOPS_INT64, 1, &two, NULL, out);
    if (st)
        return st;
    if ((*out)->storage->host_ptr)
        memcpy((int64_t *)(*out)->storage->host_ptr + (*out)->offset, val, sizeof val);
    else
        st = host_write(d, mem_of(*out), (size_t)(*out)->offset * 8, val, sizeof val);
    if (st) {
        clops_tensor_release(*out);
        *out = NULL;
    }
    return st;
}

/* Reads (seed, offset) back from an rng_state tensor. */
static clops_status rng_state_read(const char *op, clops_tensor *t, uint64_t *seed,
                                   uint64_t *offset)
{
    if (t->dtype != CLOPS_INT64 || tensor_numel(t) != 2)
        return clops__fail(CLOPS_INVALID_ARGUMENT,
                           "%s: rng_state must be the int64 [2] tensor of the forward, got %s "
                           "with %lld elements",
                           op, clops_dtype_name(t->dtype), (long long)tensor_numel(t));
    clops_tensor *c = NULL;
    clops_status st = core_contiguous(t, &c);
    int64_t val[2] = {0, 0};
    if (!st && c->storage->host_ptr)
        memcpy(val, (int64_t *)c->storage->host_ptr + c->offset, sizeof val);
    else if (!st)
        st = host_read(c->storage->device, mem_of(c), (size_t)c->offset * 8, val, sizeof val);
    clops_tensor_release(c);
    *seed = (uint64_t)val[0];
    *offset = (uint64_t)val[1];
    return st;
}

clops_status attention_fused_forward(clops_tensor *query, clops_tensor *key, clops_tensor *value,
                                     clops_tensor *attn_mask, double dropout_p, bool is_causal,
                                     const double *scale, clops_generator *generator,
                                     bool causal_lower_right, clops_tensor **output,
                                     clops_tensor **logsumexp, clops_tensor **rng_state)
{
    attn_problem p;
    memset(&p, 0, sizeof p);
    p.op = "_fused_attention";
    clops_status st = check_problem(&p, query, key, value, attn_mask, dropout_p, is_causal,
                                    causal_lower_right, scale);
    if (st)
        return st;
    clops_device *d = query->storage->device;
    clops_tensor *out = NULL, *lse = NULL, *rs = NULL;
    st = new_like(d, query, query->dtype, p.Ev, &out);
    if (!st)
        st = new_like_rows(d, query, CLOPS_FLOAT32, -1, &lse);
    if (!st && dropout_p > 0 && p.B * p.Hq * p.L * p.S > 0)
        st = generator_reserve(generator, d, attn_dropout_counters(&p), &p.seed, &p.offset);
    if (!st)
        st = rng_state_new(d, p.seed, p.offset, &rs);
    if (!st) {
        view4(&p.out, out);
        p.lse = lse;
        st = kit_run(&fwd_launches, d, &p);
    }
    if (st) {
        clops_tensor_release(out);
        clops_tensor_release(lse);
        clops_tensor_release(rs);
        return st;
    }
    *output = out;
    *logsumexp = lse;
    *rng_state = rs;
    return CLOPS_OK;
}

/* p's mask-gradient buffer: float32 contiguous [mB, mH, mL, mS], each the
 * problem's size (B, Hq, L, S) or 1 where the mask broadcasts (size 1);
 * zero when it is the whole dS (causal tiles the kernels skip stay zero). */
static clops_status ds_new(attn_problem *p, clops_device *d, const clops_tensor *mask)
{
    int64_t full[4] = {p->B, p->Hq, p->L, p->S}, sz[4];
    for (int i = 0; i < 4; i++)
        sz[i] = size4(mask, i) == 1 ? 1 : full[i];
    clops_status st = tensor_new(d, CLOPS_FLOAT32, 4, sz, NULL, &p->ds);
    if (!st && ds_full(p))
        st = tensor_fill(p->ds, clops_scalar_float(0.0));
    return st;
}

/* The gradient of the additive mask from p's buffer (already summed over
 * the broadcast dims, in a fixed order): in the mask's dtype and shape,
 * laid out like the mask (PyTorch's empty_like(attn_bias)). */
static clops_status mask_grad(const attn_problem *p, const clops_tensor *mask,
                              clops_tensor **out)
{
    clops_tensor *r = NULL, *g = NULL;
    clops_status st = core_reshape(p->ds, mask->sizes, mask->ndim, &r);
    if (!st && mask->ndim == 0)
        st = tensor_new(r->storage->device, mask->dtype, 0, NULL, NULL, &g);
    else if (!st)
        st = new_like(r->storage->device, mask, mask->dtype, mask->sizes[mask->ndim - 1], &g);
    if (!st)
        st = core_copy_(g, r, false);
    clops_tensor_release(r);
    if (st) {
        clops_tensor_release(g);
        return st;
    }
    *out = g;
    return CLOPS_OK;
}

clops_status attention_fused_backward(clops_tensor *grad_out, clops_tensor *query,
                                      clops_tensor *key, clops_tensor *value, clops_tensor *out,
                                      clops_tensor *logsumexp, clops_tensor *rng_state,
                                      clops_tensor *attn_mask, double dropout_p, bool is_causal,
                                      const double *scale, bool causal_lower_right,
                                      bool attn_mask_grad, clops_tensor **grad_query,
                                      clops_tensor **grad_key, clops_tensor **grad_value,
                                      clops_tensor **grad_attn_mask)
{
    attn_problem p;
    memset(&p, 0, sizeof p);
    p.op = "_fused_attention_backward";
    char a[200], b[200];
    *grad_attn_mask = NULL;
    clops_status st = check_problem(&p, query, key, value, attn_mask, dropout_p, is_causal,
                                    causal_lower_right, scale);
    if (!st && attn_mask_grad && p.mask_kind != ATTN_MASK_ADD)
        st = clops__fail(CLOPS_INVALID_ARGUMENT,
                         "%s: attn_mask_grad needs an additive (floating-point) attn_mask, got "
                         "%s",
                         p.op, attn_mask ? clops_dtype_name(attn_mask->dtype) : "None");
    if (!st)
        st = same_device(p.op, "grad_out", grad_out, query);
    if (!st)
        st = same_device(p.op, "out", out, query);
    if (!st)
        st = same_device(p.op, "logsumexp", logsumexp, query);
    if (st)
        return st;
    int64_t osz[4];
    memcpy(osz, query->sizes, sizeof(int64_t) * (size_t)query->ndim);
    osz[query->ndim - 1] = p.Ev;
    if (grad_out->ndim != query->ndim || out->ndim != query->ndim ||
        memcmp(grad_out->sizes, osz, sizeof(int64_t) * (size_t)query->ndim) != 0 ||
        memcmp(out->sizes, osz, sizeof(int64_t) * (size_t)query->ndim) != 0 ||
        grad_out->dtype != query->dtype || out->dtype != query->dtype)
        return clops__fail(CLOPS_INVALID_SHAPE,
                           "%s: grad_out %s (%s) and out %s (%s) must have the output's shape "
                           "and query's dtype %s",
                           p.op, clops__fmt_shape(a, sizeof a, grad_out->ndim, grad_out->sizes),
                           clops_dtype_name(grad_out->dtype),
                           clops__fmt_shape(b, sizeof b, out->ndim, out->sizes),
                           clops_dtype_name(out->dtype), clops_dtype_name(query->dtype));
    if (logsumexp->dtype != CLOPS_FLOAT32 || logsumexp->ndim != query->ndim - 1 ||
        memcmp(logsumexp->sizes, query->sizes, sizeof(int64_t) * (size_t)logsumexp->ndim) != 0)
        return clops__fail(CLOPS_INVALID_SHAPE,
                           "%s: logsumexp %s (%s) must be the float32 rows of query %s", p.op,
                           clops__fmt_shape(a, sizeof a, logsumexp->ndim, logsumexp->sizes),
                           clops_dtype_name(logsumexp->dtype),
                           clops__fmt_shape(b, sizeof b, query->ndim, query->sizes));
    if (dropout_p > 0)
        st = rng_state_read(p.op, rng_state, &p.seed, &p.offset);
    if (st)
        return st;
    clops_device *d = query->storage->device;
    clops_tensor *lse = NULL, *gq = NULL, *gk = NULL, *gv = NULL, *gm = NULL;
    st = core_contiguous(logsumexp, &lse);
    if (!st)
        st = new_like(d, query, query->dtype, p.E, &gq);
    if (!st)
        st = new_like(d, key, key->dtype, p.E, &gk);
    if (!st)
        st = new_like(d, value, value->dtype, p.Ev, &gv);
    if (!st && attn_mask_grad)
        st = ds_new(&p, d, attn_mask);
    if (!st) {
        p.lse = lse;
        view4(&p.out, out);
        view4(&p.go, grad_out);
        view4(&p.gq, gq);
        view4(&p.gk, gk);
        view4(&p.gv, gv);
        st = kit_run(&bwd_launches, d, &p);
    }
    if (!st && attn_mask_grad)
        st = mask_grad(&p, attn_mask, &gm);
    clops_tensor_release(lse);
    clops_tensor_release(p.ds);
    if (st) {
        clops_tensor_release(gq);
        clops_tensor_release(gk);
        clops_tensor_release(gv);
        return st;
    }
    *grad_query = gq;
    *grad_key = gk;
    *grad_value = gv;
    *grad_attn_mask = gm;
    return CLOPS_OK;
}

clops_status attention_sdpa(clops_tensor *query, clops_tensor *key, clops_tensor *value,
                            clops_tensor *attn_mask, double dropout_p, bool is_causal,
                            const double *scale, bool enable_gqa, clops_tensor **out)
{
    const char *op = "scaled_dot_product_attention";
    if (is_causal && attn_mask)
        return clops__fail(CLOPS_INVALID_ARGUMENT,
                           "%s: Explicit attn_mask should not be set when is_causal=True", op);
    if (query->ndim >= 3 && key->ndim >= 3 && !enable_gqa &&
        query->sizes[query->ndim - 3] != key->sizes[key->ndim - 3])
        return clops__fail(CLOPS_INVALID_SHAPE,
                           "%s: query has %lld heads and key %lld: pass enable_gqa=True for "
                           "grouped-query attention",
                           op, (long long)query->sizes[query->ndim - 3],
                           (long long)key->sizes[key->ndim - 3]);
    clops_tensor *lse = NULL, *rs = NULL;
    clops_status st = attention_fused_forward(query, key, value, attn_mask, dropout_p, is_causal,
                                              scale, NULL, false, out, &lse, &rs);
    clops_tensor_release(lse);
    clops_tensor_release(rs);
    return st;
}
