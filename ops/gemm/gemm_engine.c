/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ops/gemm/gemm_engine.c: clops' own matrix engine (ops/gemm/gemm.h,
 * cl_kernels/gemm.cl, docs/gemm.md), the GEMM engine of OpenCL devices for
 * float32, float16 and bfloat16.
 *
 * A call C[b] = alpha * A[b] @ B[b] + beta * C[b] over 3-D views becomes one
 * launch of one kernel of cl_kernels/gemm.cl that reads every operand
 * through its offset and strides (transposed, sliced, step-sliced and
 * broadcast views need no copies) and loads float16/bfloat16 natively:
 *
 *   gemm_wgmma float16 and bfloat16 on NVIDIA devices of compute capability
 *              9.0 (Hopper): warpgroup products (wgmma) from __local tiles,
 *              built through the program layer's PTX route (sm_90a), once
 *              the configuration passed its known-answer check, unless
 *              CLOPS_GEMM_WGMMA=0; where it fails, gemm_mma;
 *   gemm_mma   float16 and bfloat16 on NVIDIA devices of compute capability
 *              >= 8.0 (and float32 as TF32 under the "high" and "medium"
 *              precision modes), once the (dtype, layout, staging) configuration has
 *              passed its known-answer check on the device: operands with
 *              16-byte aligned rows, offsets and batch strides are staged
 *              with cp.async, others with plain loads through their strides
 *              (gemm_wgmma stages the same way);
 *   gemm_cpu   float32, float16 and bfloat16 on CPU devices (POCL): packed
 *              panels, float16-vector register tiles, no barriers;
 *   gemm_fma   float16 and bfloat16 on other GPUs, and where a known-answer
 *              check failed: the portable FMA atom.
 *
 * What the engine does not take goes to CLBlast (blas_gemm_opencl): float32
 * on GPUs under "highest" (CLBlast's tuned SGEMM is faster than the FMA atom
 * there), float64
 * (and integer dtypes, which CLBlast refuses), matrix dimensions beyond
 * 2^31 - 1 - 256, grids beyond 2^31 work-groups, and every call while the
 * engine is switched off (CLOPS_GEMM_ENGINE=clblast, gemm_engine_set_enabled).
 *
 * The program of each (kind, dtype[, layout], tile configuration) is a
 * kit_program (gemm_defines, then cl_kernels/gemm.cl) built and cached by
 * kit_kernel; the atom follows the kit's device kind (KIT_CPU: the CPU
 * atom, KIT_GPU: the FMA atom, KIT_MMA: wgmma on compute capability 9.0,
 * else or where its check failed mma.sync, after its known-answer check,
 * the FMA atom otherwise).
 */
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clops/matmul.h"
#include "core/debug.h"
#include "host/host.h"
#include "ops/gemm/gemm.h"
#include "ops/gemm/gemm_tma.h"
#include "ops/kit/kit.h"
#include "ops/kit/lines.h"

/* Kernel-cache family tag of the engine ('G'). */
#define GEMM_KEY_FAMILY (0x47ull << 56)
/* Largest M, N or K a kernel indexes with int (tiles past the edge
 * included). */
#define GEMM_DIM_MAX (INT_MAX - 256)

/* --- settings ------------------------------------------------------------- */

static const char *const precision_names[] = {"highest", "high", "medium"};
static atomic_int precision_mode = -1; /* -1: not read from the environment yet */
/* -2: not read from the environment yet, -1: follow precision_mode */
static atomic_int conv_precision_mode = -2;
static atomic_int engine_enabled = -1; /* -1: not read from the environment yet */
static atomic_int wgmma_enabled = -1;  /* -1: not read from the environment yet */

/* Index of a precision name, or -1. */
static int precision_index(const char *s)
{
    for (int i = 0; s && i < 3; i++)
        if (strcmp(s, precision_names[i]) == 0)
            return i;
    return -1;
}

static int precision_now(void)
{
    int m = atomic_load(&precision_mode);
    if (m < 0) {
        int e = precision_index(host_env("CLOPS_FLOAT32_MATMUL_PRECISION"));
        int expect = -1;
        atomic_compare_exchange_strong(&precision_mode, &expect, e < 0 ? 0 : e);
        m = atomic_load(&precision_mode);
    }
    return m;
}

clops_status clops_set_float32_matmul_precision(const char *precision)
{
    int i = precision_index(precision);
    if (i < 0)
        return clops__fail(CLOPS_INVALID_ARGUMENT,
                           "set_float32_matmul_precision: Invalid precision \"%s\": expected "
                           "\"highest\", \"high\" or \"medium\"",
                           precision ? precision : "(null)");
    atomic_store(&precision_mode, i);
    return CLOPS_OK;
}

const char *clops_get_float32_matmul_precision(void)
{
    return precision_names[precision_now()];
}

clops_status clops_set_float32_conv_precision(const char *precision)
{
    int i = precision ? precision_index(precision) : -1;
    if (precision && i < 0)
        return clops__fail(CLOPS_INVALID_ARGUMENT,
                           "set_float32_conv_precision: Invalid precision \"%s\": expected "
                           "\"highest\", \"high\", \"medium\" or NULL (follow the matmul "
                           "precision)",
                           precision);
    atomic_store(&conv_precision_mode, i);
    return CLOPS_OK;
}

/* The convolutions' mode (index into precision_names). */
static int conv_precision_now(void)
{
    int m = atomic_load(&conv_precision_mode);
    if (m == -2) {
        int expect = -2;
        atomic_compare_exchange_strong(&conv_precision_mode, &expect,
                                       precision_index(host_env("CLOPS_FLOAT32_CONV_PRECISION")));
        m = atomic_load(&conv_precision_mode);
    }
    return m < 0 ? precision_now() : m;
}

const char *clops_get_float32_conv_precision(void)
{
    return precision_names[conv_precision_now()];
}

/* A switch read from the environment once: *cell -1 until then; the value
 * is 1 unless var is set to off_value (off_value NULL: 0 unless var is set
 * to on_value). */
static bool env_switch(atomic_int *cell, const char *var, const char *off_value,
                       const char *on_value)
{
    int e = atomic_load(cell);
    if (e < 0) {
        const char *v = host_env(var);
        int want = off_value ? !(v && strcmp(v, off_value) == 0) : (v && strcmp(v, on_value) == 0);
        int expect = -1;
        atomic_compare_exchange_strong(cell, &expect, want);
        e = atomic_load(cell);
    }
    return e == 1;
}

/* A switch of several modes: var's value (read once, at the first call,
 * into cell) among names[0..n) gives values[i], anything else (unset
 * included) dflt. */
static int env_mode(atomic_int *cell, const char *var, const char *const *names,
                    const int *values, int n, int dflt)
{
    int e = atomic_load(cell);
    if (e < 0) {
        const char *v = host_env(var);
        int want = dflt;
        for (int i = 0; v && i < n; i++)
            if (strcmp(v, names[i]) == 0)
                want = values[i];
        int expect = -1;
        atomic_compare_exchange_strong(cell, &expect, want);
        e = atomic_load(cell);
    }
    return e;
}

/* An on/off switch whose default is dflt: var=0 turns a default-on switch
 * off, var=1 a default-off one on (env_switch). */
static bool env_switch_default(atomic_int *cell, const char *var, bool dflt)
{
    return dflt ? env_switch(cell, var, "0", NULL) : env_switch(cell, var, NULL, "1");
}

static bool engine_on(void)
{
    return env_switch(&engine_enabled, "CLOPS_GEMM_ENGINE", "clblast", NULL);
}

void gemm_engine_set_enabled(bool on)
{
    atomic_store(&engine_enabled, on ? 1 : 0);
}

bool gemm_engine_enabled(void)
{
    return engine_on();
}

static bool wgmma_on(void)
{
    return env_switch(&wgmma_enabled, "CLOPS_GEMM_WGMMA", "0", NULL);
}

void gemm_engine_set_wgmma(bool on)
{
    atomic_store(&wgmma_enabled, on ? 1 : 0);
}

/* The wgmma programs that store C through __local ("-cs", the defaults)
 * call the epilogue's activation as a function (GEMM_ACT_CALL in
 * cl_kernels/gemm.cl: one copy of it instead of one per unrolled element,
 * a sixth of the PTX, a fifteenth of ptxas's time); on unless
 * CLOPS_GEMM_ACT_CALL=0 at start, and switched off for the rest of the
 * process if a driver fails to build a program so (gemm_kernel builds it
 * again inline). */
static atomic_int act_call_enabled = -1;

static bool act_call_on(void)
{
    return env_switch(&act_call_enabled, "CLOPS_GEMM_ACT_CALL", "0", NULL);
}

/* Fragment-storing programs without the activations for products without
 * one (GEMM_ACT_ANY 0, gemm_run); on unless CLOPS_GEMM_ACT_TRIM=0 at start
 * (every program then carries them, as before engine9). */
static atomic_int act_trim_enabled = -1;

static bool act_trim_on(void)
{
    return env_switch(&act_trim_enabled, "CLOPS_GEMM_ACT_TRIM", "0", NULL);
}

/* TF32 through wgmma (products with both operands K-major): on unless
 * CLOPS_GEMM_WGMMA_TF32=0 at start (tf32-11's job, H200: 134-139 TFLOP/s
 * against mma.sync's 107-112 at 4096^3 to 8192^3, its test passed;
 * docs/gemm.md). */
static atomic_int wgmma_tf32_enabled = -1;

static bool wgmma_tf32_on(void)
{
    return env_switch(&wgmma_tf32_enabled, "CLOPS_GEMM_WGMMA_TF32", "0", NULL);
}

void gemm_engine_set_wgmma_tf32(bool on)
{
    atomic_store(&wgmma_tf32_enabled, on ? 1 : 0);
}

/* TF32 through wgmma for every layout (CLOPS_GEMM_WGMMA_TF32_ALL=1 at
 * start: M-major A and N-major B staged K-major with plain loads); off
 * otherwise: GPT-2's products with B N-major lost on four of five against
 * mma.sync (tf32-11's job, docs/gemm.md). */
static atomic_int wgmma_tf32_all_enabled = -1;

static bool wgmma_tf32_all_on(void)
{
    return env_switch(&wgmma_tf32_all_enabled, "CLOPS_GEMM_WGMMA_TF32_ALL", NULL, "1");
}

/* How wgmma's float32 operands become TF32 (engine13; gemm.h's
 * GEMM_TF32_*; WG_TF32_TRUNC in cl_kernels/gemm.cl): a pass that rounds
 * each staged tile to nearest, ties away (cvt.rna), none (the tensor cores
 * truncate: 1.5x faster, 2.5x / 13x less accurate than cuBLAS TF32 on N(0,
 * 1) / uniform(0, 1) operands, engine13's job), or the TMA copy converting
 * float32 to TF32 in the TMA configurations (CUTLASS's Hopper way), the
 * pass in the others: the default since engine14's job (H200): as fast as
 * truncation (247.3 / 263.3 TFLOP/s at 4096^3 / 8192^3 against the pass's
 * 164.2 / 170.6), rounding to nearest with ties to even, and cuBLAS TF32's
 * error to four digits on both operand classes.
 * CLOPS_GEMM_TF32_CONVERT=pass|trunc|tma at start,
 * gemm_engine_set_tf32_convert.  Every wgmma TF32 program, the
 * convolutions' too (mma_config); docs/gemm.md "Hopper: TF32 without the
 * rounding pass, transposed tiles (engine13)" and "The TMA copy's TF32
 * conversion as the default (engine14)". */
#define GEMM_TF32_CONVERT_DEFAULT GEMM_TF32_TMA
static atomic_int tf32_convert_mode = -1;

int gemm_engine_tf32_convert(void)
{
    static const char *const names[] = {"pass", "trunc", "tma"};
    static const int modes[] = {GEMM_TF32_PASS, GEMM_TF32_TRUNC, GEMM_TF32_TMA};
    return env_mode(&tf32_convert_mode, "CLOPS_GEMM_TF32_CONVERT", names, modes, 3,
                    GEMM_TF32_CONVERT_DEFAULT);
}

void gemm_engine_set_tf32_convert(int mode)
{
    atomic_store(&tf32_convert_mode, mode >= GEMM_TF32_PASS && mode <= GEMM_TF32_TMA
                                         ? mode
                                         : GEMM_TF32_CONVERT_DEFAULT);
}

/* float32 as TF32 on wgmma for an M-major A or an N-major B (GPT-2's
 * Conv1D weights, row-major mm) through landing tiles that each K tile
 * transposes into K-major ones (engine13; WG_XT in cl_kernels/gemm.cl):
 * GEMM_TF32_XT_DEFAULT, CLOPS_GEMM_WGMMA_TF32_XT=0|1 at start,
 * gemm_engine_set_wgmma_tf32_xt. */
#define GEMM_TF32_XT_DEFAULT 0
static atomic_int tf32_xt_enabled = -1;

bool gemm_engine_wgmma_tf32_xt(void)
{
    return env_switch_default(&tf32_xt_enabled, "CLOPS_GEMM_WGMMA_TF32_XT", GEMM_TF32_XT_DEFAULT);
}

void gemm_engine_set_wgmma_tf32_xt(bool on)
{
    atomic_store(&tf32_xt_enabled, on ? 1 : 0);
}

/* 3xTF32 for float32 "highest" on Hopper (docs/gemm.md "Hopper: 3xTF32"):
 * X3_FORCED for every product it can take (CLOPS_GEMM_3XTF32=1 at start,
 * gemm_engine_set_3xtf32(true)), X3_OFF (=0), else X3_RULE: the products
 * of gemm_engine_3xtf32_rule only, where x3-13's job measured it faster than CLBlast's
 * SGEMM and more accurate (GEMM_3XTF32_RULE; 0 would make "unset" off as
 * before x3-13). */
enum { X3_OFF = 0, X3_FORCED = 1, X3_RULE = 2 };
#define GEMM_3XTF32_RULE 1
static atomic_int x3_enabled = -1;

static int x3_state(void)
{
    static const char *const names[] = {"1", "0"};
    static const int states[] = {X3_FORCED, X3_OFF};
    return env_mode(&x3_enabled, "CLOPS_GEMM_3XTF32", names, states, 2,
                    GEMM_3XTF32_RULE ? X3_RULE : X3_OFF);
}

static bool x3_on(void)
{
    return x3_state() != X3_OFF;
}

void gemm_engine_set_3xtf32(bool on)
{
    atomic_store(&x3_enabled, on ? X3_FORCED : X3_OFF);
}

void gemm_engine_reset_3xtf32(void)
{
    atomic_store(&x3_enabled, -1);
}

int gemm_engine_3xtf32_state(void)
{
    return x3_state();
}

/* 3xTF32's promotion period when CLOPS_GEMM_3XTF32_PROMOTE does not name
 * one (0: none), forced (the recorded measurements' meaning); under the
 * rule GEMM_3XTF32_RULE_PERIOD.  engine12's job (H200) measured P 1, 2, 4
 * and 8: every P >= 2 more accurate than P 1 and 3.6-4.5x more accurate
 * than CLBlast's SGEMM (P 4: 4.3-4.5x), but at most 0.87x its speed (P 8
 * with "-o2", the full-width set).  x3-13: P 2 in two column passes
 * (below) with two work-groups a unit, 3.9x / 3.6x more accurate than the
 * SGEMM on N(0, 1) / uniform(0, 1) operands, 0.97-0.99x its speed at
 * 4096^3, 8192^3 and the MLP, 1.27-1.44x on GPT-2's products
 * (docs/gemm.md). */
#define GEMM_3XTF32_PERIOD 0
#define GEMM_3XTF32_RULE_PERIOD 2

/* (read per call on purpose: tests/test_gemm_engine.c and
 * bench/gemm_accuracy.c switch it between products of one process) */
static int x3_period_or(int dflt)
{
    const char *p = host_env("CLOPS_GEMM_3XTF32_PROMOTE");
    if (p && p[0] && strchr("01248", p[0]) && !p[1])
        return p[0] - '0';
    return dflt;
}

int gemm_engine_3xtf32_period(void)
{
    return x3_period_or(GEMM_3XTF32_PERIOD);
}

/* 3xTF32's column passes of the promotion set (x3-13) when
 * CLOPS_GEMM_3XTF32_PASSES does not name them (0: the full-width set; 5:
 * "4o", four overlapped), forced; under the rule GEMM_3XTF32_RULE_PASSES.
 * H200, P 2, TFLOP/s at 4096^3: 2 passes 41.9 with "-o2" (128 registers,
 * 48-52 bytes of spills; 29.5 without, 138-144 registers: one work-group a
 * unit), 4 passes 40.2, 4 overlapped 39.3, the full-width set at P 4 34.2
 * (x3-13's job). */
#define GEMM_3XTF32_PASSES 0
#define GEMM_3XTF32_RULE_PASSES 2

/* (read per call, as the period) */
static int x3_passes_or(int dflt)
{
    const char *p = host_env("CLOPS_GEMM_3XTF32_PASSES");
    if (p && (strcmp(p, "0") == 0 || strcmp(p, "2") == 0 || strcmp(p, "4") == 0))
        return p[0] - '0';
    if (p && strcmp(p, "4o") == 0)
        return 5;
    return dflt;
}

int gemm_engine_3xtf32_passes(void)
{
    return x3_passes_or(GEMM_3XTF32_PASSES);
}

/* float32 as TF32 through TMA tiles where the wgmma default rule picks
 * them (engine12): on unless CLOPS_GEMM_TF32_TMA=0 at start.  H200, B
 * K-major, TFLOP/s against the cp.async defaults in one job: 4096^3 164.5
 * / 135.6, 8192^3 171.1 / 139.1, GPT-2's mlp c_proj 126.8 / 99.8, c_attn
 * 106.6 / 104.3 (docs/gemm.md, "Hopper: float32 at speed"). */
static atomic_int tf32_tma_enabled = -1;

bool gemm_engine_tf32_tma(void)
{
    return env_switch(&tf32_tma_enabled, "CLOPS_GEMM_TF32_TMA", "0", NULL);
}

void gemm_engine_set_tf32_tma(bool on)
{
    atomic_store(&tf32_tma_enabled, on ? 1 : 0);
}

/* --- counters --------------------------------------------------------------- */

static atomic_uint_fast64_t n_fma, n_cpu, n_mma, n_wgmma, n_clblast, n_canary_runs, n_canary_fails,
    n_skinny, n_split;

void gemm_engine_get_stats(gemm_engine_stats *out)
{
    out->fma_calls = atomic_load(&n_fma);
    out->cpu_calls = atomic_load(&n_cpu);
    out->mma_calls = atomic_load(&n_mma);
    out->wgmma_calls = atomic_load(&n_wgmma);
    out->clblast_calls = atomic_load(&n_clblast);
    out->canary_runs = atomic_load(&n_canary_runs);
    out->canary_failures = atomic_load(&n_canary_fails);
    out->skinny_calls = atomic_load(&n_skinny);
    out->split_calls = atomic_load(&n_split);
}

/* --- configurations and programs --------------------------------------------- */

typedef enum gemm_kind { GK_FMA, GK_CPU, GK_MMA, GK_SKINNY, GK_REDUCE } gemm_kind;

typedef struct gemm_cfg {
    gemm_kind kind;
    clops_dtype dt;
    int a_uk, b_uk;      /* mma: the operands' unit-stride directions (1: along K) */
    int a_cp, b_cp;      /* mma: staged with cp.async (aligned), else plain loads */
    int bm, bn;          /* C block of one work-group */
    int bk, tm, tn;      /* fma */
    int rm, nv, mb, nb, kc; /* cpu */
    int wm, wn, stages;  /* mma */
    int wgs, depth;      /* wgmma: warpgroups (0: the mma.sync atom), product groups left
                            pending across a K tile */
    int ws;              /* wgmma: warp-specialised (a producer warpgroup, named barriers) */
    int regs;            /* ws: the consumers' registers after setmaxnreg (0: none) */
    int persist;         /* ws: persistent, one work-group per compute unit (not split) */
    int cstage;          /* wgmma: C stored through __local in 16-byte rows (WG_CSTAGE) */
    int probe;           /* wgmma: CLOPS_GEMM_PROBE's bits (WG_PROBE; bench only) */
    int act_call;        /* wgmma -cs: the activation called, not inlined (GEMM_ACT_CALL) */
    int act_any;         /* mma: the program carries the activations (GEMM_ACT_ANY); 0 for
                            fragment-storing products without one (gemm_run, the epilogue) */
    int bkc, frag_db, late, raster, shape; /* mma: K chunks, fragment double-buffering, copies
                                              after the first step, raster, mma_shapes index */
    int ms, vec;         /* skinny: rows of A (<= 16), vector width of B's loads (1: none) */
    int split;           /* the program of split launches (GEMM_SPLIT) */
    int wg;              /* work items per group */
    int conv;            /* 0 a plain product; 1, 2: A is an im2col view, 3: its transpose
                            and B a small image (a weight gradient; GEMM_CONV) */
    int tma;             /* wgmma: tiles through the tensor-memory accelerator (WG_TMA) */
    int tma_zero, tma_m1; /* tma: maps made from zeros (TMA_ZERO), sizes less one (TMA_M1) */
    int occ;             /* wgmma, block-barrier: work-groups a unit asked of ptxas through the
                            entry's .minnctapersm (the name's "-oN"; 0: the driver's entry) */
    int trunc;           /* wgmma, float32 (not 3xTF32): no rounding pass (WG_TF32_TRUNC):
                            the tensor cores truncate, or the TMA copy converted */
    int tma_tf32;        /* tma, float32: the maps convert to TF32 (TFLOAT32) */
    int x3;              /* wgmma, float32: 3xTF32 (WG_X3: 1, 2 a product left out, tests only;
                            | code << 2 with promotion every 1 << (code - 1) K tiles of 8
                            deep, code 1..4: WG_X3P, x3_period; | n << 5 with the promotion
                            set in column passes, n 1: 2, 2: 4, 3: 4 overlapped: WG_X3H,
                            WG_X3OV, x3_passes) */
} gemm_cfg;

/* 3xTF32's promotion period of c in 8-deep K steps (1, 2, 4, 8; 0 none). */
static int x3_period(const gemm_cfg *c)
{
    return c->x3 >> 2 & 7 ? 1 << ((c->x3 >> 2 & 7) - 1) : 0;
}

/* 3xTF32's column passes of the promotion set of c (WG_X3H: 2, 4; 0 the
 * full width, x3-13; *ov: 4 passes overlapped, WG_X3OV).  With passes the
 * period is one K tile of 8 x the period steps (BK 8 or 16, x3_config),
 * WG_X3P 1. */
static int x3_passes(const gemm_cfg *c, bool *ov)
{
    int n = c->x3 >> 5 & 3;
    if (ov)
        *ov = n == 3;
    return n == 1 ? 2 : n ? 4 : 0;
}

/* The lo slots of a 3xTF32 configuration (WG_X3LO): one beside two stages
 * of BK 16 (48 KiB at 128 x 128), else two. */
static int x3_lo(const gemm_cfg *c)
{
    return c->bkc == 4 ? 1 : 2;
}

static const char *const kind_names[] = {"fma", "cpu", "mma", "skinny", "reduce"};

/*
 * The mma.sync tile configurations: the C block (bm x bn) of a work-group,
 * the warp tile (wm x wn), pipeline stages (fewer where 48 KiB of __local
 * memory cannot hold them), K chunks of 16 bytes per stage (bkc 4: BK 32
 * in 16-bit dtypes; 8: BK 64), fragment double-buffering ("-db": no gain
 * measured), the next stage's copies issued after the first step's
 * products ("-late") and the raster (block rows grouped for L2 reuse).  The first
 * two are the defaults (large products, and those with fewer 128 x 128
 * blocks than compute units), picked by the H100 sweep in docs/gemm.md; the
 * others are for the sweep (gemm.config, bench_gemm --sweep).
 */
typedef struct mma_shape {
    const char *name;
    int bm, bn, wm, wn, stages, bkc, frag_db, late, raster;
    int wgs, depth; /* wgmma (gemm_wgmma): warpgroups, WG_DEPTH; 0: mma.sync */
    int ws;         /* wgmma: warp-specialised (WG_WS): a producer warpgroup besides */
    int regs;       /* ws: setmaxnreg, the consumers' registers (WG_REGS; 0: none) */
    int persist;    /* ws: persistent (WG_PERSIST) */
    int cstage;     /* wgmma: C through __local, 16-byte stores (WG_CSTAGE) */
    int tma;        /* wgmma: tiles through TMA (WG_TMA) */
} mma_shape;

static const mma_shape mma_shapes[] = {
    {"128x128-w64x64-s3", 128, 128, 64, 64, 3, 4, 0, 0, 8, 0, 0, 0, 0, 0, 0, 0},
    {"64x64-w32x32-s4", 64, 64, 32, 32, 4, 4, 0, 0, 8, 0, 0, 0, 0, 0, 0, 0},
    {"128x128-w64x64-s3-late", 128, 128, 64, 64, 3, 4, 0, 1, 8, 0, 0, 0, 0, 0, 0, 0},
    {"64x64-w32x32-s4-late", 64, 64, 32, 32, 4, 4, 0, 1, 8, 0, 0, 0, 0, 0, 0, 0},
    {"128x128-w64x64-s3-db", 128, 128, 64, 64, 3, 4, 1, 0, 8, 0, 0, 0, 0, 0, 0, 0},
    {"128x128-w64x64-s3-db-late", 128, 128, 64, 64, 3, 4, 1, 1, 8, 0, 0, 0, 0, 0, 0, 0},
    {"64x128-w32x64-s4", 64, 128, 32, 64, 4, 4, 0, 0, 8, 0, 0, 0, 0, 0, 0, 0},
    {"64x128-w32x64-s4-late", 64, 128, 32, 64, 4, 4, 0, 1, 8, 0, 0, 0, 0, 0, 0, 0},
    {"128x256-w64x64-s2-late", 128, 256, 64, 64, 2, 4, 0, 1, 8, 0, 0, 0, 0, 0, 0, 0},
    {"256x128-w64x64-s2-late", 256, 128, 64, 64, 2, 4, 0, 1, 8, 0, 0, 0, 0, 0, 0, 0},
    {"128x128-w64x32-s3-late", 128, 128, 64, 32, 3, 4, 0, 1, 8, 0, 0, 0, 0, 0, 0, 0},
    {"64x128-w32x64-bk64-s2-late", 64, 128, 32, 64, 2, 8, 0, 1, 8, 0, 0, 0, 0, 0, 0, 0},
    {"64x64-w32x32-bk64-s3-late", 64, 64, 32, 32, 3, 8, 0, 1, 8, 0, 0, 0, 0, 0, 0, 0},
    /* wgmma (Hopper, cl_kernels/gemm.cl GEMM_WGMMA): warpgroups (wgs) each
     * of BM / wgs rows (wm) and all BN columns, BK 32 (bkc 4) or 16
     * ("-k16"); "-cs": C staged through __local after the K loop and
     * written in 16-byte rows (WG_CSTAGE), the epilogue unchanged.  The
     * first is the default of products with at least twice as many 128 x
     * 128 blocks as compute units, the second of those with fewer (WG_FEW;
     * 64 x 128 blocks, up to four a unit).  H200, bfloat16, TFLOP/s (bench/
     * gemm_store_job.sh, docs/gemm.md): the staged store against the
     * fragments' own stores, 4096^3 383 / 356, GPT-2's 4096 x 2304 x 768
     * 249 / 177, 4096 x 3072 x 768 286 / 203; with 64 x 128 blocks 4096 x
     * 768 x 768 190 / 136 and 4096 x 768 x 3072 288 / 259.  (H100, before:
     * 128 x 256 with BK 16 and 4 stages 225-238 at 4096^3.) */
    {"wg128x128-s3-cs", 128, 128, 64, 128, 3, 4, 0, 0, 8, 2, 0, 0, 0, 0, 1, 0},
    {"wg64x128-s4-cs", 64, 128, 64, 128, 4, 4, 0, 0, 8, 1, 0, 0, 0, 0, 1, 0},
    {"wg128x128-s3", 128, 128, 64, 128, 3, 4, 0, 0, 8, 2, 0, 0, 0, 0, 0, 0},
    {"wg64x128-s4", 64, 128, 64, 128, 4, 4, 0, 0, 8, 1, 0, 0, 0, 0, 0, 0},
    {"wg128x256-k16-s4", 128, 256, 64, 256, 4, 2, 0, 0, 8, 2, 0, 0, 0, 0, 0, 0},
    /* Warp-specialised ("ws", WG_WS): a producer warpgroup stages, the wgs
     * consumer warpgroups multiply, slots handed over through named
     * barriers instead of a work-group barrier per K tile; "-d1": one
     * product group left pending.  They run and pass the check on the H100
     * but are slower than the default (4096^3 bfloat16 238-250 TFLOP/s
     * against 357: one work-group of 384 items per unit, docs/gemm.md). */
    {"ws128x256-k16-s4", 128, 256, 64, 256, 4, 2, 0, 0, 8, 2, 0, 1, 0, 0, 0, 0},
    {"ws128x256-k16-s4-d1", 128, 256, 64, 256, 4, 2, 0, 0, 8, 2, 1, 1, 0, 0, 0, 0},
    {"ws128x128-s3", 128, 128, 64, 128, 3, 4, 0, 0, 8, 2, 0, 1, 0, 0, 0, 0},
    /* "-r": registers moved from the producer to the consumers with
     * setmaxnreg (104 / 200 of the 168 a item the cap of 384 items gives:
     * CUTLASS's 40 / 232 spill this producer, which keeps its chunks'
     * offsets in registers). */
    {"ws128x256-k16-s4-r", 128, 256, 64, 256, 4, 2, 0, 0, 8, 2, 0, 1, 200, 0, 0, 0},
    /* "-p": persistent (WG_PERSIST): one work-group per compute unit takes
     * tiles g, g + units, ..., their K tiles one stream through the slots,
     * so that a tile's prologue and store overlap the products of the next
     * (not for split products). */
    {"ws128x256-k16-s4-p", 128, 256, 64, 256, 4, 2, 0, 0, 8, 2, 0, 1, 0, 1, 0, 0},
    {"ws128x128-s3-p", 128, 128, 64, 128, 3, 4, 0, 0, 8, 2, 0, 1, 0, 1, 0, 0},
    /* "-tma" (WG_TMA, engine10): the block-barrier kernel with its tiles
     * copied by the tensor-memory accelerator, issued by one item, instead
     * of every item's cp.async (engine9: the cp.async copies and the
     * products barely overlap).  The mbarriers leave no room for 3 stages
     * of BK 32 in 48 KiB: BK 16 in 5 stages, C through __local ("-d1":
     * one product group pending).  Forced only (gemm.config, bench_gemm
     * --sweep-prefix), for 16-bit operands with 16-byte aligned rows
     * (cp.async's condition); others take the default.  H200, bfloat16,
     * against the default in one job: equal at 4096^3 and 8192^3, +28-35%
     * for 4096 x 768 x 3072 with B N-major, -17-31% with both operands
     * K-major (BK 32 in 2 stages, from the fragments, lost everywhere and
     * was removed); docs/gemm.md, "Hopper: TMA through NVIDIA's OpenCL". */
    {"wg128x128-k16-s5-tma-cs", 128, 128, 64, 128, 5, 2, 0, 0, 8, 2, 0, 0, 0, 0, 1, 1},
    {"wg128x128-k16-s5-d1-tma-cs", 128, 128, 64, 128, 5, 2, 0, 0, 8, 2, 1, 0, 0, 0, 1, 1},
    /* engine11 (issue 29: more bytes in flight per unit; docs/gemm.md,
     * "Hopper: more bytes in flight (engine11)").  "-k64-s1": TMA boxes of
     * BK 64, 128-byte rows for K-major operands too (the copy engine's
     * fastest rows: 785 TFLOP/s of copies alone at 3 groups a unit,
     * engine10), in one stage (32 KiB at 128 x 128, 24 KiB at 64 x 128)
     * refilled once its products are done, the overlap coming from the
     * unit's other work-groups (the -cs staging area padded to 18 KiB).
     * "-oN": the entry asks ptxas for N work-groups a unit (.maxntid,
     * .minnctapersm N: wg_occupancy); 64 x 128 blocks of one warpgroup fit
     * 5 (96 registers an item), 128 x 128 blocks no more than 2 (3 caps
     * them at 80, and ptxas refuses wgmma's 64 accumulators below 90).
     * H200, bfloat16, against the cp.async default in one job: 4096^3 463
     * (64 x 128) / 436 (128 x 128) against 377 in a plain mm, 474 / 480
     * against 392 as a linear layer; the rule (gemm_engine_wgmma_default)
     * makes three of them the defaults where TMA tiles can run. */
    {"wg128x128-k64-s1-tma-cs", 128, 128, 64, 128, 1, 8, 0, 0, 8, 2, 0, 0, 0, 0, 1, 1},
    {"wg64x128-k64-s1-tma-cs", 64, 128, 64, 128, 1, 8, 0, 0, 8, 1, 0, 0, 0, 0, 1, 1},
    {"wg64x128-k64-s1-tma-cs-o5", 64, 128, 64, 128, 1, 8, 0, 0, 8, 1, 0, 0, 0, 0, 1, 1},
    {"wg64x128-s3-tma-cs-o5", 64, 128, 64, 128, 3, 4, 0, 0, 8, 1, 0, 0, 0, 0, 1, 1},
    /* engine12 (float32 on Hopper's tensor cores; docs/gemm.md, "Hopper:
     * float32 at speed (engine12)"), forced only: "-s2-tma": two TMA stages
     * of 4 16-byte chunks a row (BK 16 floats as TF32, 64-byte rows, 16
     * KiB a stage at 128 x 128; BK 32 in 16-bit types), one tile copied
     * while the other's products run; "-cs-o2": the cp.async default with
     * two work-groups a unit asked of ptxas (a cap of 128 registers an item:
     * 3xTF32 with promotion, 158-163 registers in clang's build, otherwise
     * runs one a unit).  H200, float32, B K-major: "-s2-tma" as TF32 124.8
     * TFLOP/s at 4096^3 against the cp.async default's 135.6 and the
     * rule's BK 32 TMA pick's 164.5; 3xTF32 promoted every 8 tiles 35.4
     * with "-o2" against 30.2 without (CLBlast 40.9). */
    {"wg128x128-s2-tma-cs", 128, 128, 64, 128, 2, 4, 0, 0, 8, 2, 0, 0, 0, 0, 1, 1},
    {"wg128x128-s3-cs-o2", 128, 128, 64, 128, 3, 4, 0, 0, 8, 2, 0, 0, 0, 0, 1, 0},
    /* conv15 (issue 31): 64-wide blocks (wgmma m64n64), asked for by a
     * convolution's forward or input-gradient product of 64 or fewer
     * destination channels (ops/conv/conv_gemm.c conv_wgmma_rule; ResNet's
     * first stage and stem), where the 128-wide blocks computed half of
     * every block in vain: 128 x 64 in 3 stages (4 would exceed 48 KiB
     * with the -cs staging area), 64 x 64 where those are fewer than twice
     * the compute units. */
    {"wg128x64-s3-cs", 128, 64, 64, 64, 3, 4, 0, 0, 8, 2, 0, 0, 0, 0, 1, 0},
    {"wg64x64-s4-cs", 64, 64, 64, 64, 4, 4, 0, 0, 8, 1, 0, 0, 0, 0, 1, 0},
};
/* The first wgmma configuration, the default one; the next, the default of
 * products with fewer than two 128 x 128 blocks per compute unit. */
#define WG_FIRST 13
#define WG_FEW (WG_FIRST + 1)
#define MMA_SHAPES ((int)(sizeof mma_shapes / sizeof mma_shapes[0]))

int gemm_engine_config_count(void)
{
    return MMA_SHAPES;
}

/* The work-groups a unit a configuration's name asks of ptxas ("-oN" at
 * its end, N 2..9; 0: none). */
static int wg_occupancy(const char *name)
{
    size_t l = strlen(name);
    return l > 3 && name[l - 3] == '-' && name[l - 2] == 'o' && name[l - 1] >= '2' &&
                   name[l - 1] <= '9'
               ? name[l - 1] - '0'
               : 0;
}

const char *gemm_engine_config_name(int i)
{
    return i >= 0 && i < MMA_SHAPES ? mma_shapes[i].name : NULL;
}

static int dt_code(clops_dtype dt)
{
    return dt == CLOPS_FLOAT16 ? 1 : dt == CLOPS_BFLOAT16 ? 2 : 0;
}

/* The defines of a configuration's program (cl_kernels/gemm.cl after them). */
static clops_status gemm_defines(const void *ctx, const clops_device *d, strbuf *defs)
{
    (void)d;
    const gemm_cfg *c = ctx;
    sb_printf(defs, "#define GEMM_DT %d\n#define GEMM_SPLIT %d\n#define GEMM_CONV %d\n",
              dt_code(c->dt), c->split, c->conv);
    switch (c->kind) {
    case GK_FMA:
        sb_printf(defs, "#define GEMM_FMA 1\n#define BM %d\n#define BN %d\n#define BK %d\n"
                         "#define TM %d\n#define TN %d\n",
                  c->bm, c->bn, c->bk, c->tm, c->tn);
        break;
    case GK_CPU:
        sb_printf(defs, "#define GEMM_CPU 1\n#define RM %d\n#define NV %d\n#define MB %d\n"
                         "#define NB %d\n#define KC %d\n",
                  c->rm, c->nv, c->mb, c->nb, c->kc);
        break;
    case GK_MMA:
        if (c->wgs)
            sb_printf(defs, "#define GEMM_WGMMA 1\n#define WGS %d\n#define WG_DEPTH %d\n"
                            "#define WG_WS %d\n#define WG_REGS %d\n#define WG_PERSIST %d\n"
                            "#define WG_CSTAGE %d\n#define WG_PROBE %d\n#define WG_TMA %d\n"
                            "#define TMA_ZERO %d\n#define TMA_M1 %d\n",
                      c->wgs, c->depth, c->ws, c->regs, c->persist, c->cstage, c->probe, c->tma,
                      c->tma_zero, c->tma_m1);
        sb_printf(defs, "#define GEMM_ACT_CALL %d\n#define GEMM_ACT_ANY %d\n", c->act_call,
                  c->act_any);
        sb_printf(defs, "#define GEMM_MMA 1\n#define BM %d\n#define BN %d\n#define WM %d\n"
                         "#define WN %d\n#define STAGES %d\n#define WAIT_GROUPS %d\n"
                         "#define A_UK %d\n#define B_UK %d\n#define A_CP %d\n#define B_CP %d\n"
                         "#define BKC %d\n#define FRAG_DB %d\n#define COPY_LATE %d\n"
                         "#define GEMM_RASTER %d\n",
                  c->bm, c->bn, c->wm, c->wn, c->stages, c->stages - 2, c->a_uk, c->b_uk,
                  c->a_cp, c->b_cp, c->bkc, c->frag_db, c->late, c->raster);
        if (c->x3) {
            bool ov;
            int h = x3_passes(c, &ov);
            sb_printf(defs, "#define WG_X3 %d\n#define WG_X3P %d\n#define WG_X3H %d\n"
                            "#define WG_X3OV %d\n#define WG_X3LO %d\n",
                      c->x3 & 3, h ? 1 : x3_period(c), h, ov, x3_lo(c));
        }
        if (c->trunc && !c->x3)
            sb_printf(defs, "#define WG_TF32_TRUNC 1\n");
        break;
    case GK_SKINNY:
        sb_printf(defs,
                  "#define GEMM_SKINNY 1\n#define MS %d\n#define SK_BUK %d\n#define SK_VEC %d\n"
                  "#define SK_AVEC %d\n",
                  c->ms, c->b_uk, c->vec, c->a_uk);
        break;
    case GK_REDUCE:
        sb_printf(defs, "#define GEMM_REDUCE 1\n");
        break;
    }
    return defs->failed ? CLOPS__HOST_OOM("GEMM program defines") : CLOPS_OK;
}

static clops_status gemm_kernel(clops_device *d, const gemm_cfg *c, host_kernel **out)
{
    /* (word 0: x3 >> 2 takes bits 24-28, the period's code and, since
     * x3-13, the column passes; WG_TF32_TRUNC bit 29 of its own) */
    host_kkey key = {{GEMM_KEY_FAMILY | ((uint64_t)c->kind << 48) | ((uint64_t)c->dt << 40) |
                          ((uint64_t)c->act_any << 37) | ((uint64_t)c->act_call << 36) |
                          ((uint64_t)c->a_cp << 35) | ((uint64_t)c->b_cp << 34) |
                          ((uint64_t)c->a_uk << 33) | ((uint64_t)c->b_uk << 32) |
                          ((uint64_t)(c->x3 & 3) << 38) | ((uint64_t)(c->x3 >> 2 & 31) << 24) |
                          ((uint64_t)(c->trunc && !c->x3) << 29) |
                          ((uint64_t)c->tma_m1 << 23) | ((uint64_t)c->tma_zero << 22) |
                          ((uint64_t)c->conv << 20) | ((uint64_t)c->split << 16) |
                          ((uint64_t)c->ms << 8) | (uint64_t)c->vec,
                      ((uint64_t)c->bm << 48) | ((uint64_t)c->bn << 32) | ((uint64_t)c->bk << 24) |
                          ((uint64_t)c->tm << 16) | ((uint64_t)c->tn << 8) | (uint64_t)c->stages,
                      ((uint64_t)(c->probe & 3) << 62) | ((uint64_t)c->cstage << 61) |
                          ((uint64_t)c->tma << 59) |
                          ((uint64_t)(c->probe >> 2) << 56) |
                          ((uint64_t)c->persist << 60) | ((uint64_t)c->rm << 48) |
                          ((uint64_t)c->nv << 40) | ((uint64_t)c->mb << 32) |
                          ((uint64_t)c->nb << 24) | (uint64_t)c->kc,
                      ((uint64_t)c->ws << 60) | ((uint64_t)(c->regs / 8) << 54) |
                          ((uint64_t)c->wgs << 52) |
                          ((uint64_t)c->depth << 48) |
                          ((uint64_t)c->occ << 44) |
                          ((uint64_t)c->bkc << 40) | ((uint64_t)c->frag_db << 36) |
                          ((uint64_t)c->late << 32) |
                          ((uint64_t)c->raster << 24) | ((uint64_t)c->wm << 12) | (uint64_t)c->wn}};
    char pname[128];
    bool mma = c->kind == GK_MMA;
    /* (an mma program's name holds its configuration and variants; the
     * reports read them: tools/cli/report_perf.c gemm_words) */
    if (mma) {
        snprintf(pname, sizeof pname, "gemm/%s/%s/a-%s%s/b-%s%s/%s%s", c->wgs ? "wgmma" : "mma",
                 clops_dtype_name(c->dt),
                 c->a_uk ? "k" : "m", c->a_cp ? "" : "-plain", c->b_uk ? "k" : "n",
                 c->b_cp ? "" : "-plain", mma_shapes[c->shape].name, c->split ? "/split" : "");
        size_t l = strlen(pname);
        if (c->x3) {
            bool ov;
            int h = x3_passes(c, &ov);
            snprintf(pname + l, sizeof pname - l, "/3xtf32-s%d%s%.0d%s%.0d%s%s", c->stages,
                     x3_period(c) ? "-promote" : "", x3_period(c), h ? "-h" : "", h,
                     ov ? "o" : "", (c->x3 & 3) == 2 ? "-drop" : "");
        }
        l = strlen(pname);
        if (c->trunc && !c->x3)
            snprintf(pname + l, sizeof pname - l, "/trunc");
        l = strlen(pname);
        if (c->probe)
            snprintf(pname + l, sizeof pname - l, "/probe%d", c->probe);
        l = strlen(pname);
        if (c->tma && (c->tma_zero || c->tma_m1))
            snprintf(pname + l, sizeof pname - l, "/maps-%s%s", c->tma_zero ? "zero" : "template",
                     c->tma_m1 ? "-m1" : "");
    }
    else if (c->kind == GK_SKINNY)
        snprintf(pname, sizeof pname, "gemm/skinny/%s/m%d/b-%s/v%d%s%s", clops_dtype_name(c->dt),
                 c->ms, c->b_uk ? "k" : "n", c->vec, c->a_uk ? "/a-vec" : "",
                 c->split ? "/split" : "");
    else
        snprintf(pname, sizeof pname, "gemm/%s/%s%s", kind_names[c->kind], clops_dtype_name(c->dt),
                 c->split ? "/split" : "");
    if (c->conv) {
        size_t l = strlen(pname);
        snprintf(pname + l, sizeof pname - l, "%s",
                 c->conv == 1 ? "/conv" : c->conv == 2 ? "/conv-t" : "/conv-w");
    }
    static const char *const knames[] = {"gemm_fma", "gemm_cpu", "gemm_mma", "gemm_skinny",
                                         "gemm_reduce"};
    /* The epilogue's activations (act.clh) in every program; the
     * matrix-unit atoms (inline PTX) only in the mma programs; wgmma's
     * (sm_90a) through the PTX route. */
    bool wg = mma && c->wgs;
    /* The warp-specialised kernel's entry in the routed PTX: the driver
     * writes .reqntid for reqd_work_group_size; a cap for the whole
     * work-group at one per SM (.maxntid, .minnctapersm 1, as CUDA's
     * __launch_bounds__(384, 1) writes) makes ptxas fit the registers of
     * 384 items and honour setmaxnreg.  CLOPS_GEMM_WS_ENTRY=driver keeps the
     * driver's directives, =maxnreg adds .maxnreg to them (a diagnostic). */
    char entry[96];
    const char *ws_entry = c->ws ? host_env("CLOPS_GEMM_WS_ENTRY") : NULL;
    bool driver_entry = (!c->ws && !c->occ) || (ws_entry && strcmp(ws_entry, "driver") == 0);
    if (driver_entry)
        entry[0] = '\0';
    else if (!c->ws) /* "-oN": N work-groups a unit (engine11) */
        snprintf(entry, sizeof entry, ".maxntid %d, 1, 1\n.minnctapersm %d\n", c->wg, c->occ);
    else if (ws_entry && strcmp(ws_entry, "maxnreg") == 0)
        snprintf(entry, sizeof entry, ".reqntid %d, 1, 1\n.maxnreg %d\n", c->wg,
                 65536 / c->wg / 8 * 8);
    else
        snprintf(entry, sizeof entry, ".maxntid %d, 1, 1\n.minnctapersm 1\n", c->wg);
    kit_program prog = {.name = pname,
                        .headers = {"act.clh", mma ? "mma.clh" : NULL, wg ? "wgmma.clh" : NULL,
                                    wg && c->x3 ? "tf32_split.clh" : NULL},
                        .write = gemm_defines,
                        .file = "gemm.cl",
                        .ctx = c,
                        .ptx_target = wg ? "sm_90a" : NULL,
                        .ptx_entry_directives = wg && !driver_entry ? entry : NULL};
    clops_status st =
        kit_kernel(d, &key, &prog, wg ? "gemm_wgmma" : knames[c->kind], 0, NULL, out);
    if (st == CLOPS_BUILD_FAILURE && c->act_call) {
        /* A driver that cannot build the called activation: every later
         * program inline, this one again now (a program that fails inline
         * too fails as before). */
        atomic_store(&act_call_enabled, 0);
        gemm_cfg inl = *c;
        inl.act_call = 0;
        return gemm_kernel(d, &inl, out);
    }
    /* Work-groups of one always run; the GPU atoms need their whole group.
     * The kernel's wg_size is its default launch width, at most 256; the
     * warp-specialised wgmma's 384 items are beyond it, and NVIDIA's driver
     * answered 256 for CL_KERNEL_WORK_GROUP_SIZE there (engine5's job) even
     * for a kernel whose registers fit 384 items: those launch with their
     * width and the driver's launch is the judge (the known-answer check
     * sees a refusal).  CLOPS_PTX_VERBOSE prints what the driver says. */
    if (st == CLOPS_OK && c->wg > 1 && c->wg <= 256 && (*out)->wg_size < (size_t)c->wg)
        return clops__fail(CLOPS_UNSUPPORTED, "%s needs work-groups of %d items; %s allows %zu",
                           wg ? "gemm_wgmma" : knames[c->kind], c->wg, d->label,
                           (*out)->wg_size);
    if (st == CLOPS_OK && c->wg > 256 && host_env("CLOPS_PTX_VERBOSE")) {
        size_t most = 0, priv = 0, lmem = 0, req[3] = {0, 0, 0};
        cl_int e1 = clGetKernelWorkGroupInfo((*out)->kernel, d->id, CL_KERNEL_WORK_GROUP_SIZE,
                                             sizeof most, &most, NULL);
        cl_int e2 = clGetKernelWorkGroupInfo((*out)->kernel, d->id,
                                             CL_KERNEL_COMPILE_WORK_GROUP_SIZE, sizeof req, req,
                                             NULL);
        cl_ulong pm = 0, lm = 0;
        cl_int e3 = clGetKernelWorkGroupInfo((*out)->kernel, d->id, CL_KERNEL_PRIVATE_MEM_SIZE,
                                             sizeof pm, &pm, NULL);
        cl_int e4 = clGetKernelWorkGroupInfo((*out)->kernel, d->id, CL_KERNEL_LOCAL_MEM_SIZE,
                                             sizeof lm, &lm, NULL);
        priv = (size_t)pm, lmem = (size_t)lm;
        fprintf(stderr,
                "clops: %s (%d items): CL_KERNEL_WORK_GROUP_SIZE %zu (status %d), "
                "CL_KERNEL_COMPILE_WORK_GROUP_SIZE %zu,%zu,%zu (%d), PRIVATE_MEM %zu (%d), "
                "LOCAL_MEM %zu (%d)\n",
                pname, c->wg, most, (int)e1, req[0], req[1], req[2], (int)e2, priv, (int)e3, lmem,
                (int)e4);
    }
    return st;
}

/* How the "-tma" programs make their tensor maps: from templates that
 * libcuda encodes on the host (ops/gemm/gemm_tma.c), the address set on
 * the device; or, with CLOPS_GEMM_TMA_MAP=zeros (=zeros-m1: the sizes
 * written less one), from zeros, every field set on the device (the
 * probe's question: such maps fault on the H200).  False when neither is
 * asked for and libcuda cannot encode: then the configuration is not
 * taken (maps from zeros take the process's device down; the cp.async
 * default runs).  Read at each choice of a "-tma" configuration: since
 * engine11's rule, every aligned 16-bit product it sends to TMA tiles on
 * Hopper (a getenv and one encoder call besides the launch's two; the
 * encoder is loaded once, and asked on the calling thread, whose CUDA
 * context gemm_tma_encode makes current). */
static bool tma_maps(int *zero, int *m1)
{
    const char *v = host_env("CLOPS_GEMM_TMA_MAP");
    gemm_tma_map2d m;
    unsigned char t[128] __attribute__((aligned(64)));
    bool lib = !gemm_tma_map2d_plan(&m, 0x10000, 64, 64, 64, 2, 32, 64, 1) &&
               gemm_tma_encode(&m, 0, t);
    bool asked = v && strncmp(v, "zeros", 5) == 0;
    *zero = asked;
    *m1 = v && strcmp(v, "zeros-m1") == 0;
    return asked || lib;
}

/* The index of the configuration named name (-1: none), looked up once
 * into *cell (-2 before: the table is constant, and the rule below runs
 * for every 16-bit product on Hopper). */
static int config_index(atomic_int *cell, const char *name)
{
    int i = atomic_load(cell);
    if (i == -2) {
        i = -1;
        for (int j = 0; j < MMA_SHAPES && i < 0; j++)
            if (strcmp(mma_shapes[j].name, name) == 0)
                i = j;
        atomic_store(cell, i);
    }
    return i;
}

/* Whether the wgmma defaults take TMA tiles where the rule below says so
 * (CLOPS_GEMM_TMA_RULE=0 at start: never). */
static atomic_int tma_rule_enabled = -1;

static bool tma_rule_on(void)
{
    return env_switch(&tma_rule_enabled, "CLOPS_GEMM_TMA_RULE", "0", NULL);
}

/*
 * The wgmma default of a 16-bit product (engine11's rule; host logic,
 * tests/test_gemm_engine.c checks it on every device): `batch` products of
 * m x n x k on `units` compute units, A and B unit-stride along K or not,
 * tma whether TMA tiles can run (16-byte aligned rows; mma_config also
 * asks for a libcuda that encodes maps, else the cp.async defaults run).
 * Unbatched products at least 768 deep with at least as many 128 x 128
 * blocks as units (fewer split K on the cp.async default; TMA programs do
 * not split) take TMA tiles of BK 64 (128-byte box rows, one stage,
 * "-k64-s1"): 64 x 128 blocks (four work-groups a unit), 128 x 128 ones
 * where both operands are K-major (a linear layer's weight); products with fewer than two 128 x 128 blocks a unit and one
 * M- or N-major operand (GPT-2's Conv1D) at least 1536 deep take 64 x 128
 * blocks of BK 32 in 3 TMA stages at five work-groups a unit.  H200,
 * bfloat16, TFLOP/s against each shape's cp.async default in one job:
 * 4096^3 463 / 377 (mm), 480 / 392 (linear); GPT-2's mlp c_proj 407 / 291;
 * docs/gemm.md, "Hopper: more bytes in flight (engine11)".  float32 as
 * TF32 takes the same rule where gemm_engine_tf32_tma allows (its
 * operands are both K-major: the BK 32 float boxes of the "-k64-s1"
 * configurations; engine12, H200: 164.5 against 135.6 at 4096^3).
 */
int gemm_engine_wgmma_default(int64_t batch, int64_t m, int64_t n, int64_t k, int64_t units,
                              bool a_uk, bool b_uk, bool tma)
{
    int64_t blocks = batch * ((m + 127) / 128) * ((n + 127) / 128);
    bool few = blocks < 2 * units;
    static atomic_int o5 = -2, k64_128 = -2, k64_64 = -2;
    int i = -1;
    if (tma && tma_rule_on() && batch == 1 && k >= 768 && blocks >= units)
        i = few && !(a_uk && b_uk) && k >= 1536 ? config_index(&o5, "wg64x128-s3-tma-cs-o5")
            : !few && a_uk && b_uk ? config_index(&k64_128, "wg128x128-k64-s1-tma-cs")
                                   : config_index(&k64_64, "wg64x128-k64-s1-tma-cs");
    return i >= 0 ? i : few ? WG_FEW : WG_FIRST;
}

/* The __local bytes of c's slots and, float32 M/N-major operands on
 * wgmma (WG_XT), of their K-major tiles (xt_bytes, 0: none), as
 * cl_kernels/gemm.cl lays them out: the -cs programs' slots padded to the
 * 64 x 72 float staging area (WG_CS_MIN: A's only with two warpgroups),
 * with or without WG_XT (conv15's 64-wide blocks: 128 x 64 in 3 stages
 * takes 24 + 18 KiB, not the slots' 36). */
static uint64_t xt_local(const gemm_cfg *c, uint64_t xt_bytes)
{
    const uint64_t cs_min = c->cstage ? 64 * 72 * 4 : 0;
    uint64_t a = (uint64_t)c->bm * c->bkc * 16 * c->stages,
             b = (uint64_t)c->bn * c->bkc * 16 * c->stages;
    if (c->wgs == 2 && a < cs_min)
        a = cs_min;
    if (b < cs_min)
        b = cs_min;
    return a + b + xt_bytes;
}

int gemm_engine_wgmma_want(clops_dtype dt, int64_t batch, int64_t m, int64_t n, int64_t k,
                           int64_t units, bool a_uk, bool b_uk)
{
    /* (float32's TMA boxes: K-major operands only, as mma_config holds) */
    return gemm_engine_wgmma_default(batch, m, n, k, units, a_uk, b_uk,
                                     dt != CLOPS_FLOAT32 ||
                                         (gemm_engine_tf32_tma() && a_uk && b_uk));
}

/* float32 on wgmma: the TF32 conversion switched on (every wgmma TF32
 * program, convolutions' included; 3xTF32's x3_fit clears it): the TMA's
 * only where the tiles come through TMA, else the rounding pass. */
static void tf32_conversion(gemm_cfg *c)
{
    int conv = c->dt == CLOPS_FLOAT32 && c->wgs ? gemm_engine_tf32_convert() : GEMM_TF32_PASS;
    c->tma_tf32 = conv == GEMM_TF32_TMA && c->tma;
    c->trunc = conv == GEMM_TF32_TRUNC || c->tma_tf32;
}

/* The mma configuration of a device and dtype (small: fewer 128 x 128
 * blocks than compute units; few, for wgmma: fewer than twice as many);
 * false when __local memory cannot hold two stages or the device runs
 * smaller work-groups. */
static bool mma_config(const clops_device *d, clops_dtype dt, int a_uk, int b_uk, int a_cp,
                       int b_cp, bool small, bool few, bool wgmma, int want, bool tma_ok,
                       gemm_cfg *c)
{
    memset(c, 0, sizeof *c);
    c->kind = GK_MMA;
    c->dt = dt;
    c->a_uk = a_uk;
    c->b_uk = b_uk;
    c->a_cp = a_cp;
    c->b_cp = b_cp;
    /* Products with fewer 128 x 128 blocks than compute units take 64 x 64
     * blocks (4 warps of 32 x 32): square 1024 in bfloat16 82 TFLOP/s on
     * the H100 (132 units) against 52 with 128 x 128 and 60 with 64 x 128
     * (bench_gemm --sweep, docs/gemm.md). */
    /* A forced configuration of the other atom is ignored. */
    int forced = (int)clops_debug_get(CLOPS_DEBUG_GEMM_CONFIG);
    if (forced > 0 && forced <= MMA_SHAPES && (mma_shapes[forced - 1].wgs != 0) == wgmma)
        c->shape = forced - 1;
    else if (want > 0 && want <= MMA_SHAPES && (mma_shapes[want - 1].wgs != 0) == wgmma)
        c->shape = want - 1; /* the caller's (a convolution's gemm_conv.tile) */
    else
        c->shape = wgmma ? (few ? WG_FEW : WG_FIRST) : small ? 1 : 0;
    /* TMA tiles: operands whose rows are 16-byte aligned (what a tensor map
     * needs of the address and the strides; the rest of its limits are
     * checked at launch), float32 (TF32, engine12) K-major with the host's
     * templates, else the default. */
    if (mma_shapes[c->shape].tma &&
        (!tma_ok || !a_cp || !b_cp || !tma_maps(&c->tma_zero, &c->tma_m1) ||
         (dt == CLOPS_FLOAT32 && (!a_uk || !b_uk || c->tma_zero)))) {
        c->shape = few ? WG_FEW : WG_FIRST;
        c->tma_zero = c->tma_m1 = 0;
    }
    const mma_shape *sh = &mma_shapes[c->shape];
    c->bm = sh->bm, c->bn = sh->bn, c->wm = sh->wm, c->wn = sh->wn, c->stages = sh->stages;
    c->bkc = sh->bkc, c->frag_db = sh->frag_db, c->late = sh->late, c->raster = sh->raster;
    c->wgs = sh->wgs, c->depth = sh->depth, c->ws = sh->ws, c->regs = sh->regs;
    c->persist = sh->persist;
    c->cstage = sh->cstage;
    c->tma = sh->tma;
    c->occ = sh->wgs && !sh->ws ? wg_occupancy(sh->name) : 0;
    tf32_conversion(c);
    /* (only where C goes out through __local: elsewhere the accumulators
     * are live across the calls, and ptxas, on clang's PTX, gave the
     * fragment-storing wgmma program 140 registers instead of 110, or
     * spills under a cap) */
    c->act_call = c->wgs && c->cstage && act_call_on();
    c->act_any = 1; /* (gemm_run drops them for fragment-storing products without one) */
    /* CLOPS_GEMM_PROBE=1..31 (bench only, the block-barrier wgmma kernel):
     * WG_PROBE's bits, one K tile (1), no store (2), no copies into the
     * slots (4), no products (8), no barrier per K tile (16); wrong results
     * by design, so the known-answer check passes such programs unrun. */
    if (c->wgs && !c->ws && !c->tma) {
        const char *pr = host_env("CLOPS_GEMM_PROBE"), *q = pr;
        int pv = 0;
        while (q && *q >= '0' && *q <= '9' && pv <= 31)
            pv = pv * 10 + (*q++ - '0');
        if (q && q != pr && !*q && pv >= 1 && pv <= 31)
            c->probe = pv;
    }
    /* A stage: bkc 16-byte chunks of every row of A's and B's tiles
     * (xt_local); float32 M/N-major operands on wgmma (WG_XT) one K-major
     * tile each besides, no products pending across a K tile, not
     * warp-specialised. */
    bool xt = dt == CLOPS_FLOAT32 && c->wgs && (!a_uk || !b_uk);
    uint64_t xt_bytes = xt ? (uint64_t)((a_uk ? 0 : c->bm) + (b_uk ? 0 : c->bn)) * c->bkc * 16 : 0;
    if (xt && (c->ws || c->tma))
        return false;
    if (xt)
        c->depth = 0;
    while (c->stages > 2 && xt_local(c, xt_bytes) > d->info.local_mem_bytes)
        c->stages--;
    /* wgmma: at least one stage prefetched beyond the pending products. */
    if (c->wgs && c->stages - 1 - c->depth < 1)
        c->depth = 0;
    c->wg = c->wgs ? (c->wgs + c->ws) * 128 : (c->bm / c->wm) * (c->bn / c->wn) * 32;
    /* The staging gives every item that stages (the producer warpgroup
     * where warp-specialised) whole 16-byte chunks of both tiles. */
    int stagers = c->ws ? 128 : c->wg;
    return (c->bm * c->bkc) % stagers == 0 && (c->bn * c->bkc) % stagers == 0 &&
           xt_local(c, xt_bytes) <= d->info.local_mem_bytes &&
           (size_t)c->wg <= d->info.max_work_group_size;
}

/*
 * 3xTF32 (x3 1; 2: CLOPS_GEMM_3XTF32_DROP's planted bug) on top of the wgmma
 * configuration c that mma_config chose (few: fewer than two 128 x 128
 * blocks per unit): the block-barrier kernel of the default's blocks (a
 * forced warp-specialised or TMA configuration gives way to the default),
 * BK 8 floats (32-byte rows; 16 would leave one stage), no products pending
 * across a K tile, C stored from the fragments, and stages (3, or
 * CLOPS_GEMM_3XTF32_STAGES 2..6 for measurements) as many as 48 KiB of
 * __local memory hold beside the two lo slots (cl_kernels/gemm.cl WG_X3).
 * With column passes (x3_passes, x3-13; BN 128 only, else the full-width
 * set) the promotion period is one tile: BK 8 for a period of one step,
 * BK 16 (64-byte rows) for two, in 2 stages beside one lo slot.
 * False when they do not fit.
 */
static bool x3_fit(uint64_t local_mem, size_t max_wg, int x3, bool few, gemm_cfg *c)
{
    const mma_shape *sh = &mma_shapes[c->shape];
    if (sh->ws || sh->tma) {
        c->shape = few ? WG_FEW : WG_FIRST;
        sh = &mma_shapes[c->shape];
        c->bm = sh->bm, c->bn = sh->bn, c->wm = sh->wm, c->wn = sh->wn, c->wgs = sh->wgs;
    }
    c->x3 = c->bn == 128 ? x3 : x3 & 31;
    c->bkc = x3_passes(c, NULL) && x3_period(c) == 2 ? 4 : 2;
    c->depth = c->ws = c->regs = c->persist = c->cstage = c->act_call = c->probe = 0;
    c->tma = c->tma_zero = c->tma_m1 = 0;
    /* (engine13's TF32 conversion is not 3xTF32's: the split rounds its
     * parts itself) */
    c->trunc = c->tma_tf32 = 0;
    const char *v = host_env("CLOPS_GEMM_3XTF32_STAGES");
    c->stages = v && v[0] >= '2' && v[0] <= '6' && !v[1] ? v[0] - '0' : 3;
    uint64_t stage = (uint64_t)(c->bm + c->bn) * c->bkc * 16;
    int lo = x3_lo(c);
    while (c->stages > 2 && stage * (uint64_t)(c->stages + lo) > local_mem)
        c->stages--;
    c->wg = c->wgs * 128;
    return c->wgs > 0 && (c->bm * c->bkc) % c->wg == 0 && (c->bn * c->bkc) % c->wg == 0 &&
           stage * (uint64_t)(c->stages + lo) <= local_mem && (size_t)c->wg <= max_wg;
}

static bool x3_config(const clops_device *d, int x3, bool few, gemm_cfg *c)
{
    return x3_fit(d->info.local_mem_bytes, d->info.max_work_group_size, x3, few, c);
}

/* The FMA configuration of a device (GPU or CPU kind). */
static void fma_config(const clops_device *d, clops_dtype dt, gemm_cfg *c)
{
    memset(c, 0, sizeof *c);
    c->dt = dt;
    if (kit_is_cpu(d)) {
        /* 6 rows of one (AVX2) or two (AVX-512) float16 vectors: 12
         * accumulator registers either way. */
        cl_uint vw = 0;
        clGetDeviceInfo(d->id, CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT, sizeof vw, &vw, NULL);
        c->kind = GK_CPU;
        c->rm = 6;
        c->nv = vw >= 16 ? 2 : 1;
        c->mb = 16;
        c->nb = 4 / c->nv;
        c->kc = 256;
        c->bm = c->rm * c->mb;
        c->bn = 16 * c->nv * c->nb;
        /* __local: B's panels and the block's sums; convolutions' A rows
         * (RM x KC floats) and per-slice column tables (28 bytes a
         * column at most, cl_kernels/gemm.cl). */
        while (c->kc > 16 && (uint64_t)(c->bn * c->kc + c->bm * c->bn + c->rm * c->kc) * 4 +
                                     (uint64_t)c->kc * 28 >
                                 d->info.local_mem_bytes)
            c->kc /= 2;
        c->wg = 1;
        return;
    }
    c->kind = GK_FMA;
    c->bk = 16;
    if (d->info.max_work_group_size >= 256)
        c->bm = 128, c->bn = 128, c->tm = 8, c->tn = 8;
    else
        c->bm = 32, c->bn = 32, c->tm = 4, c->tn = 4;
    c->wg = (c->bm / c->tm) * (c->bn / c->tn);
}

/* --- launching ------------------------------------------------------------------ */

/* One product's operands as the kernels take them. */
typedef struct gemm_geom {
    cl_mem mem[3];
    cl_long off[3], sb[3], s1[3], s2[3]; /* A: (m, k), B: (k, n), C: (m, n) */
    cl_int m, n, k;
    int64_t batch;
    /* the epilogue (bits: cl_kernels/gemm.cl), its bias E and residual R
     * (unused: C's buffer) */
    cl_int epi;
    cl_mem emem, rmem;
    cl_long e_off, e_sm, e_sn, e_sb, r_off, r_sb, r_sm, r_sn;
    cl_float e_scale;
    /* GEMM_CONV: the image's strides (sample, channel, 3 spatial), the
     * geometry (cg, taps 3, out 3, in 3, stride 3, pad 3, dilation 3) and
     * the sample strides of C and R (GEMM_CONV 3: C's tap stride) and of
     * B (GEMM_CONV 3) */
    cl_long x_s[5];
    cl_int cv[19];
    cl_long c_img, r_img, b_img;
    int tile; /* the caller's mma.sync configuration, mma_shapes index + 1 (0: none) */
} gemm_geom;

/* No epilogue, no convolution: harmless values for the unused arguments. */
static void geom_plain(gemm_geom *g)
{
    g->epi = 0;
    g->emem = g->rmem = g->mem[2];
    g->e_off = g->e_sm = g->e_sn = g->e_sb = g->r_off = g->r_sb = g->r_sm = g->r_sn = 0;
    g->e_scale = 0.0f;
    for (int i = 0; i < 5; i++)
        g->x_s[i] = 0;
    for (int i = 0; i < 19; i++)
        g->cv[i] = 1;
    g->c_img = g->r_img = g->b_img = 0;
    g->tile = 0;
}


static void geom_of(const clops_tensor *a, const clops_tensor *b, const clops_tensor *c,
                    gemm_geom *g)
{
    const clops_tensor *t[3] = {a, b, c};
    for (int i = 0; i < 3; i++) {
        /* An empty A or B (K == 0) has no buffer and is never read. */
        const host_block *blk = t[i]->storage->block ? t[i]->storage->block : c->storage->block;
        g->mem[i] = blk->mem;
        g->off[i] = t[i]->offset;
        g->sb[i] = t[i]->sizes[0] > 1 ? t[i]->strides[0] : 0;
        g->s1[i] = t[i]->strides[1];
        g->s2[i] = t[i]->strides[2];
    }
    /* idx32: M, N, K <= GEMM_DIM_MAX < 2^31, checked in
     * ops/gemm/gemm_engine.c (gemm_engine_epi) */
    g->m = (cl_int)c->sizes[1];
    g->n = (cl_int)c->sizes[2];
    g->k = (cl_int)a->sizes[2];
    g->batch = c->sizes[0];
    geom_plain(g);
}

/* Rows of A per block of the CPU atom: RM * mb, mb the largest of MB,
 * MB / 2, ... (at least 2) that still gives every core two blocks. */
static int cpu_rows(const clops_device *d, const gemm_cfg *cfg, const gemm_geom *g)
{
    int64_t want = 2 * (int64_t)(d->info.compute_units ? d->info.compute_units : 1);
    int64_t cols = g->batch * ops_cdiv(g->n, cfg->bn);
    int mb = cfg->mb;
    while (mb > 2 && cols * ops_cdiv(g->m, (int64_t)cfg->rm * mb) < want)
        mb /= 2;
    return mb;
}

/* Launches configuration cfg's kernel k over the product g, split along K
 * into `splits` parts of kper (partial sums into w), or whole (splits 1,
 * w any buffer). */
/*
 * The two tensor-map templates of a "-tma" launch (A's, B's: each operand
 * as its unit-stride rows, boxes of the block's tile or of 64 x BK for M-
 * or N-major operands), encoded with a stand-in address the work-groups
 * replace (cl_kernels/gemm.cl WG_TMA); zeros for programs that make their
 * maps from zeros.  CLOPS_UNSUPPORTED where no tensor map describes an
 * operand (a dimension above 2^32 elements, say): the product goes to
 * CLBlast, as for a refused work-group size.
 */
static clops_status tma_templates(const gemm_cfg *c, const gemm_geom *g,
                                  unsigned char tmpl[2][128])
{
    /* (elements of 2 bytes, or 4 for float32: BK is bkc 16-byte chunks) */
    uint32_t eb = c->dt == CLOPS_FLOAT32 ? 4 : 2, bk = (uint32_t)c->bkc * 16 / eb;
    gemm_tma_map2d ma, mb;
    const char *why =
        c->a_uk ? gemm_tma_map2d_plan(&ma, 0x10000, (uint64_t)g->k, (uint64_t)g->m,
                                      (uint64_t)g->s1[0], eb, bk, (uint32_t)c->bm, 1)
                : gemm_tma_map2d_plan(&ma, 0x10000, (uint64_t)g->m, (uint64_t)g->k,
                                      (uint64_t)g->s2[0], eb, 64, bk, 1);
    if (!why)
        why = c->b_uk ? gemm_tma_map2d_plan(&mb, 0x10000, (uint64_t)g->k, (uint64_t)g->n,
                                            (uint64_t)g->s2[1], eb, bk, (uint32_t)c->bn, 1)
                      : gemm_tma_map2d_plan(&mb, 0x10000, (uint64_t)g->n, (uint64_t)g->k,
                                            (uint64_t)g->s1[1], eb, 64, bk, 1);
    if (why)
        return clops__fail(CLOPS_UNSUPPORTED, "GEMM tensor map: %s", why);
    memset(tmpl, 0, 2 * 128);
    if (c->tma_zero)
        return CLOPS_OK;
    ma.tf32 = mb.tf32 = (uint32_t)c->tma_tf32;
    /* (L2 promotion of 256 bytes, CUTLASS's for GEMM operands) */
    if (!gemm_tma_encode(&ma, 3, tmpl[0]) || !gemm_tma_encode(&mb, 3, tmpl[1]))
        return clops__fail(CLOPS_UNSUPPORTED, "GEMM tensor map: libcuda's encoder refused it");
    return CLOPS_OK;
}

static clops_status gemm_launch_split(clops_device *d, host_kernel *k, const gemm_cfg *cfg,
                                      const gemm_geom *g, float alpha, float beta, cl_mem w,
                                      cl_int splits, cl_int kper)
{
    cl_int mb = cfg->kind == GK_CPU ? cpu_rows(d, cfg, g) : 0;
    int bm = cfg->kind == GK_CPU ? cfg->rm * mb : cfg->kind == GK_SKINNY ? g->m : cfg->bm;
    /* idx32: tiles and batch <= work-groups <= INT32_MAX / 16, checked in
     * ops/gemm/gemm_engine.c (engine_launch) and, skinny, (gemm_engine_epi) */
    cl_int tiles_m = (cl_int)ops_cdiv(g->m, bm), tiles_n = (cl_int)ops_cdiv(g->n, cfg->bn);
    uint64_t groups =
        (uint64_t)splits * (uint64_t)g->batch * (uint64_t)tiles_m * (uint64_t)tiles_n;
    /* Persistent: one work-group per compute unit, each taking every
     * units-th tile (never split: gemm_run). */
    uint64_t units = d->info.compute_units ? d->info.compute_units : 1;
    if (cfg->persist && groups > units)
        groups = units;
    cl_int beta_zero = beta == 0.0f;
    /* K == 0: C = beta * C; a zero alpha keeps a non-finite alpha out. */
    cl_float al = g->k == 0 ? 0.0f : alpha, be = beta;
    cl_int nbatch = (cl_int)g->batch;
    /* Unit-stride directions for the FMA atoms' tile loads. */
    cl_int a_uk = g->s2[0] == 1 || (g->s1[0] != 1 && llabs(g->s2[0]) < llabs(g->s1[0]));
    cl_int b_uk = g->s1[1] == 1 && g->s2[1] != 1;
#define A(x) {sizeof(x), &(x)}
    host_arg args[] = {A(g->mem[0]), A(g->off[0]), A(g->sb[0]), A(g->s1[0]), A(g->s2[0]),
                       A(g->mem[1]), A(g->off[1]), A(g->sb[1]), A(g->s1[1]), A(g->s2[1]),
                       A(g->mem[2]), A(g->off[2]), A(g->sb[2]), A(g->s1[2]), A(g->s2[2]),
                       A(g->m),      A(g->n),      A(g->k),     A(al),       A(be),
                       A(beta_zero), A(tiles_m),   A(tiles_n),  A(w),        A(nbatch),
                       A(splits),    A(kper),      A(g->epi), A(g->emem), A(g->e_off), A(g->e_sm), A(g->e_sn), A(g->e_sb), A(g->e_scale),
        A(g->rmem), A(g->r_off), A(g->r_sb), A(g->r_sm), A(g->r_sn), A(g->x_s[0]), A(g->x_s[1]),
        A(g->x_s[2]), A(g->x_s[3]), A(g->x_s[4]), A(g->cv[0]), A(g->cv[1]), A(g->cv[2]),
        A(g->cv[3]), A(g->cv[4]), A(g->cv[5]), A(g->cv[6]), A(g->cv[7]), A(g->cv[8]),
        A(g->cv[9]), A(g->cv[10]), A(g->cv[11]), A(g->cv[12]), A(g->cv[13]), A(g->cv[14]),
        A(g->cv[15]), A(g->cv[16]), A(g->cv[17]), A(g->cv[18]), A(g->c_img), A(g->r_img),
                       A(g->b_img),  A(a_uk),      A(b_uk),     A(mb)};
#undef A
    /* 66 common arguments (GEMM_ARGS), then the atoms' own. */
    int nargs = cfg->kind == GK_FMA ? 68 : cfg->kind == GK_CPU ? 69 : 66;
    if (!cfg->tma)
        return host_launch_local(d, k, nargs, args, (size_t)groups * (size_t)cfg->wg,
                                 (size_t)cfg->wg);
    /* TMA: the templates (or zeros) and W, each work-group's 256 bytes for
     * its two published maps (never a split launch: gemm_run). */
    unsigned char tmpl[2][128] __attribute__((aligned(64)));
    clops_status st = tma_templates(cfg, g, tmpl);
    host_block *scratch = NULL;
    if (st == CLOPS_OK && groups > SIZE_MAX / 256)
        st = CLOPS__HOST_OOM("GEMM tensor maps");
    if (st == CLOPS_OK)
        st = host_alloc(d, (size_t)groups * 256, &scratch);
    if (st)
        return st;
    host_arg targs[68];
    memcpy(targs, args, 66 * sizeof targs[0]);
    targs[23].size = sizeof scratch->mem;
    targs[23].value = &scratch->mem;
    targs[66].size = 128;
    targs[66].value = tmpl[0];
    targs[67].size = 128;
    targs[67].value = tmpl[1];
    st = host_launch_local(d, k, 68, targs, (size_t)groups * (size_t)cfg->wg, (size_t)cfg->wg);
    host_free(scratch);
    return st;
}

static clops_status gemm_launch(clops_device *d, host_kernel *k, const gemm_cfg *cfg,
                                const gemm_geom *g, float alpha, float beta)
{
    return gemm_launch_split(d, k, cfg, g, alpha, beta, g->mem[2], 1, g->k);
}

/* --- the known-answer check of the matrix-unit atoms -------------------------------- */

/*
 * Per device: the state of each mma configuration, 0 unchecked, 1 passed,
 * 2 failed.  Read without a lock on every product (a slot is found by the
 * device's address; its device, generation and states are atomics); the
 * first use of a configuration takes canary_lock, runs the check and
 * publishes the state.  A slot is claimed (or reclaimed from an earlier
 * host generation) under the lock, its states zeroed before its device is
 * published.
 */
/* (canary_index: 14 "dtypes", the 3 float32 dtypes' and 3xTF32's modes;
 * 2 x 2 x 2 x 2 layouts and stagings; the shapes; 3 TF32 conversions) */
#define CANARY_DTS 14
#define CANARY_CONVS 3
#define CANARY_STATES (CANARY_CONVS * CANARY_DTS * 2 * 2 * 2 * 2 * MMA_SHAPES)
typedef struct canary_slot {
    _Atomic(const clops_device *) d;
    atomic_uint generation;
    atomic_uchar state[CANARY_STATES];
} canary_slot;

#define CANARY_SLOTS 64
static canary_slot canary_slots[CANARY_SLOTS];
static pthread_mutex_t canary_lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_llong canary_forced_seen;

static int canary_index(const gemm_cfg *c)
{
    /* (3xTF32: a fourth "dtype", with promotion every 1, 2, 4, 8 K tiles
     * the fifth to eighth; promotion every 1 or 2 in 2, 4 or 4 overlapped
     * column passes the ninth to fourteenth) */
    int code = c->x3 >> 2 & 7;
    int dt = !c->x3 ? dt_code(c->dt)
             : c->x3 >> 5 ? 7 + 2 * ((c->x3 >> 5 & 3) - 1) + code
                          : 3 + code;
    /* (TF32 without the rounding pass: a program of its own, the second
     * third; with the TMA's conversion, its maps too, the third) */
    int conv = c->x3 ? 0 : c->tma_tf32 ? 2 : c->trunc ? 1 : 0;
    if (dt < 0 || dt >= CANARY_DTS)
        return -1;
    return ((((dt * 2 + c->a_uk) * 2 + c->b_uk) * 2 + c->a_cp) * 2 + c->b_cp) *
               MMA_SHAPES +
           c->shape + conv * (CANARY_STATES / CANARY_CONVS);
}

static int canary_home(const clops_device *d)
{
    return (int)(((uintptr_t)d >> 6) % CANARY_SLOTS);
}

/* The slot of device d in this host generation, or NULL (no lock). */
static canary_slot *canary_find(const clops_device *d, unsigned gen)
{
    for (int i = 0, h = canary_home(d); i < CANARY_SLOTS; i++) {
        canary_slot *s = &canary_slots[(h + i) % CANARY_SLOTS];
        const clops_device *sd = atomic_load_explicit(&s->d, memory_order_acquire);
        if (sd == d && atomic_load_explicit(&s->generation, memory_order_acquire) == gen)
            return s;
        if (!sd)
            return NULL;
    }
    return NULL;
}

/* The slot of device d, claimed if needed (canary_lock held); NULL when
 * the table is full. */
static canary_slot *canary_claim(const clops_device *d, unsigned gen)
{
    canary_slot *s = canary_find(d, gen);
    if (s)
        return s;
    for (int i = 0, h = canary_home(d); i < CANARY_SLOTS; i++) {
        s = &canary_slots[(h + i) % CANARY_SLOTS];
        const clops_device *sd = atomic_load(&s->d);
        if (sd && atomic_load(&s->generation) == gen)
            continue;
        /* Free, or left from an earlier generation (its device is gone). */
        atomic_store(&s->d, NULL);
        for (int k = 0; k < CANARY_STATES; k++)
            atomic_store(&s->state[k], 0);
        atomic_store(&s->generation, gen);
        atomic_store_explicit(&s->d, d, memory_order_release);
        return s;
    }
    return NULL;
}

/* Forgets every check when the debug setting gemm.canary_fail changed. */
static void canary_follow_setting(void)
{
    long long forced = (long long)clops_debug_get(CLOPS_DEBUG_GEMM_CANARY_FAIL);
    if (atomic_load(&canary_forced_seen) == forced)
        return;
    pthread_mutex_lock(&canary_lock);
    if (atomic_load(&canary_forced_seen) != forced) {
        for (int i = 0; i < CANARY_SLOTS; i++)
            for (int k = 0; k < CANARY_STATES; k++)
                atomic_store(&canary_slots[i].state[k], 0);
        atomic_store(&canary_forced_seen, forced);
    }
    pthread_mutex_unlock(&canary_lock);
}

/* Small exact values: products and sums of these are integers that float32
 * holds exactly, so the atom's result is the host's, bit for bit. */
static float canary_value(int i, int j, int salt)
{
    return (float)((i * 7 + j * 3 + salt) % 5 - 2);
}

/* 3xTF32's check (c->x3): A's even and B's odd columns of K carry a low
 * part (a multiple of 2^-12 below TF32's 10 mantissa bits), so every
 * product but lo * lo, which is zero, is exact and so are the sums
 * (multiples of 2^-12 below 2^9: 21 bits); a kernel that drops a low part
 * (1xTF32, or one of the three products) differs. */
static float canary_x3(const gemm_cfg *c, int row, int kk, int col)
{
    if (!c->x3)
        return 0.0f;
    if (row >= 0)
        return kk & 1 ? 0.0f : canary_value(kk, row, 3) * 0x1p-12f;
    return kk & 1 ? canary_value(col, kk, 4) * 0x1p-12f : 0.0f;
}

/* v in dtype dt as element i of buf. */
static void put_value(void *buf, size_t i, clops_dtype dt, float v)
{
    if (dt == CLOPS_FLOAT32)
        ((float *)buf)[i] = v;
    else
        ((uint16_t *)buf)[i] =
            dt == CLOPS_FLOAT16 ? clops_float_to_half(v) : clops_float_to_bfloat16(v);
}

/*
 * Runs config c's kernel on a 136 x 72 x 80 product (two M tiles, a
 * partial K tile, every pipeline stage used) whose operands are laid out as
 * c's layouts say and compares the result with the host's bit for bit.
 * *why says what failed.
 */
static bool canary_run(clops_device *d, const gemm_cfg *c, char *why, size_t cap)
{
    enum { CM = 136, CN = 72, CK = 80 };
    if (clops_debug_get(CLOPS_DEBUG_GEMM_CANARY_FAIL)) {
        snprintf(why, cap, "failure forced by the debug setting gemm.canary_fail");
        return false;
    }
    host_kernel *k = NULL;
    clops_status st = gemm_kernel(d, c, &k);
    if (st) {
        snprintf(why, cap, "the kernel did not build: %s", clops_last_error());
        return false;
    }
    size_t na = (size_t)CM * CK, nb = (size_t)CK * CN, nc = (size_t)CM * CN;
    size_t es = clops_dtype_size(c->dt);
    void *ha = malloc(na * es), *hb = malloc(nb * es), *hc = malloc(nc * es), *hw = malloc(nc * es);
    host_block *ba = NULL, *bb = NULL, *bc = NULL;
    bool ok = false;
    if (!ha || !hb || !hc || !hw) {
        snprintf(why, cap, "out of host memory");
        goto done;
    }
    gemm_geom g;
    memset(&g, 0, sizeof g);
    g.m = CM, g.n = CN, g.k = CK, g.batch = 1;
    g.s1[0] = c->a_uk ? CK : 1, g.s2[0] = c->a_uk ? 1 : CM;
    g.s1[1] = c->b_uk ? 1 : CN, g.s2[1] = c->b_uk ? CK : 1;
    g.s1[2] = CN, g.s2[2] = 1;
    for (int i = 0; i < CM; i++)
        for (int kk = 0; kk < CK; kk++)
            put_value(ha, (size_t)(i * g.s1[0] + kk * g.s2[0]), c->dt,
                      canary_value(i, kk, 1) + canary_x3(c, i, kk, -1));
    for (int kk = 0; kk < CK; kk++)
        for (int j = 0; j < CN; j++)
            put_value(hb, (size_t)(kk * g.s1[1] + j * g.s2[1]), c->dt,
                      canary_value(kk, j, 2) + canary_x3(c, -1, kk, j));
    if ((st = host_alloc(d, na * es, &ba)) || (st = host_alloc(d, nb * es, &bb)) ||
        (st = host_alloc(d, nc * es, &bc)) || (st = host_write(d, ba->mem, 0, ha, na * es)) ||
        (st = host_write(d, bb->mem, 0, hb, nb * es))) {
        snprintf(why, cap, "%s", clops_last_error());
        goto done;
    }
    g.mem[0] = ba->mem, g.mem[1] = bb->mem, g.mem[2] = bc->mem;
    geom_plain(&g);
    if ((st = gemm_launch(d, k, c, &g, 1.0f, 0.0f)) ||
        (st = host_read(d, bc->mem, 0, hc, nc * es))) {
        snprintf(why, cap, "the kernel did not run: %s", clops_last_error());
        goto done;
    }
    const char *force = host_env("CLOPS_GEMM_CANARY_FAIL");
    bool forced = force && strcmp(force, "0") != 0;
    int bad = 0, first = -1;
    for (int i = 0; i < CM; i++)
        for (int j = 0; j < CN; j++) {
            double s = 0.0;
            for (int kk = 0; kk < CK; kk++)
                s += ((double)canary_value(i, kk, 1) + canary_x3(c, i, kk, -1)) *
                     ((double)canary_value(kk, j, 2) + canary_x3(c, -1, kk, j));
            put_value(hw, (size_t)(i * CN + j), c->dt, (float)s);
        }
    if (forced)
        ((unsigned char *)hw)[0] ^= 1;
    for (int i = 0; i < CM * CN; i++)
        if (memcmp((char *)hc + (size_t)i * es, (char *)hw + (size_t)i * es, es) != 0) {
            if (first < 0)
                first = i;
            bad++;
        }
    if (bad)
        snprintf(why, cap, "%d of %d results differ from the host's (first at row %d, column %d)%s",
                 bad, CM * CN, first / CN, first % CN,
                 forced ? "; forced by CLOPS_GEMM_CANARY_FAIL" : "");
    ok = bad == 0;
done:
    free(ha);
    free(hb);
    free(hc);
    free(hw);
    host_free(ba);
    host_free(bb);
    host_free(bc);
    return ok;
}

/* Whether config c may run on d: checked once per device and config; a
 * failure warns once and leaves the FMA atom in charge.  After the first
 * check, a few atomic loads and no lock. */
static bool mma_checked(clops_device *d, const gemm_cfg *cfg)
{
    /* (CLOPS_GEMM_PROBE's programs are wrong by design: bench only; so is
     * CLOPS_GEMM_3XTF32_DROP's, which the tests' tolerance must catch) */
    if (cfg->probe || (cfg->x3 & 3) == 2)
        return true;
    /* Convolution programs share the atom and staging of the plain
     * configuration, which is what the check runs. */
    gemm_cfg plain = *cfg;
    plain.conv = 0;
    /* (the program without activations where products without one take
     * it, as the check's product has none; the -cs programs always carry
     * them) */
    plain.act_any = plain.cstage || !act_trim_on();
    const gemm_cfg *c = &plain;
    canary_follow_setting();
    unsigned gen = host_generation();
    int idx = canary_index(c);
    /* (a configuration the index does not cover, after a change to gemm_cfg
     * that canary_index missed, is not run unchecked: not taken) */
    if (idx < 0 || idx >= CANARY_STATES)
        return false;
    canary_slot *s = canary_find(d, gen);
    if (s) {
        unsigned char st = atomic_load_explicit(&s->state[idx], memory_order_acquire);
        if (st)
            return st == 1;
    }
    pthread_mutex_lock(&canary_lock);
    s = canary_claim(d, gen);
    bool ok = false;
    if (s) {
        unsigned char st = atomic_load(&s->state[idx]);
        if (st == 0) {
            char why[512];
            atomic_fetch_add(&n_canary_runs, 1);
            bool pass = canary_run(d, c, why, sizeof why);
            st = pass ? 1 : 2;
            atomic_store_explicit(&s->state[idx], st, memory_order_release);
            if (!pass) {
                atomic_fetch_add(&n_canary_fails, 1);
                fprintf(stderr,
                        "clops: warning: the GEMM engine's %s%s atom failed its known-answer "
                        "check on %s (%s) for %s with A %s-major%s and B %s-major%s, tiles %s: "
                        "%s; using the %s there\n",
                        c->x3 ? "3xTF32 " : "", c->wgs ? "wgmma" : "mma.sync", d->label,
                        d->info.name,
                        clops_dtype_name(c->dt), c->a_uk ? "K" : "M",
                        c->a_cp ? "" : " (plain loads)", c->b_uk ? "K" : "N",
                        c->b_cp ? "" : " (plain loads)", mma_shapes[c->shape].name, why,
                        c->x3    ? "CLBlast SGEMM"
                        : c->tma ? "cp.async copies of the default tiles"
                        : c->wgs ? "mma.sync atom" : "FMA atom");
            }
        }
        ok = st == 1;
    }
    pthread_mutex_unlock(&canary_lock);
    return ok;
}

/* --- choosing the path --------------------------------------------------------------- */

/* Whether the device has NVIDIA's mma.sync (or a test pretends so). */
static bool has_mma(const clops_device *d)
{
    return kit_kind_of(d) == KIT_MMA ||
           clops_debug_get(CLOPS_DEBUG_GEMM_CANARY_FAIL) != 0;
}

/* wgmma needs sm_90a: NVIDIA's compute capability 9.0 exactly (later
 * architectures do not run sm_90a code). */
bool gemm_engine_wgmma_candidate(const clops_device *d, clops_dtype dt)
{
    return (dt == CLOPS_FLOAT16 || dt == CLOPS_BFLOAT16) && engine_on() && wgmma_on() &&
           kit_kind_of(d) == KIT_MMA && d->info.vendor == CLOPS_VENDOR_NVIDIA &&
           d->nv_cc_major == 9 && d->nv_cc_minor == 0;
}

/*
 * How the mma atom stages an operand of r x c matrices (strides sr, sc,
 * batch stride sb, offset off) in 16-byte chunks of ce elements: *unit_c
 * says along which dimension the chunks run (1: columns), *cp whether they
 * are 16-byte aligned for cp.async (a unit stride there, the other stride,
 * the batch stride and the offset multiples of ce elements; a dimension of
 * size 1 takes any stride); otherwise plain loads through the strides.
 */
static void staging_of(int64_t r, int64_t cc, int64_t sr, int64_t sc, int64_t sb, int64_t batch,
                       int64_t off, int64_t ce, int *unit_c, int *cp)
{
    bool base_ok = off % ce == 0 && (batch <= 1 || sb % ce == 0);
    if ((sc == 1 || cc == 1) && (r == 1 || sr % ce == 0) && base_ok) {
        *unit_c = 1, *cp = 1;
    } else if ((sr == 1 || r == 1) && (cc == 1 || sc % ce == 0) && base_ok) {
        *unit_c = 0, *cp = 1;
    } else {
        int64_t ar = sr < 0 ? -sr : sr, ac = sc < 0 ? -sc : sc;
        *unit_c = cc > 1 && (r == 1 || ac <= ar);
        *cp = 0;
    }
}

/* Largest workspace of partial sums a split product may take. */
#define SPLIT_WORKSPACE_MAX ((uint64_t)256 << 20)

/*
 * How many parts K of product g is split into (its partial sums added in
 * split order by gemm_reduce), with *kper the length of each but the last:
 * the debug setting gemm.splits when set; otherwise only the mma and
 * skinny paths and weight gradients (GEMM_CONV 3, every atom: K is the
 * batch times the positions) split, when their groups (`groups` for the
 * whole K) fill fewer than the device's compute units twice over and K is
 * deep: parts of at least 512, at most 16 of them.  1: not split.
 */
static int split_count(const clops_device *d, const gemm_cfg *cfg, const gemm_geom *g,
                       int64_t groups, cl_int *kper)
{
    int64_t k = g->k, want = 1;
    int64_t forced = clops_debug_get(CLOPS_DEBUG_GEMM_SPLITS);
    int64_t cu = d->info.compute_units ? d->info.compute_units : 1;
    if (forced > 0)
        want = forced;
    else if ((cfg->kind == GK_MMA || cfg->kind == GK_SKINNY || cfg->conv == 3) &&
             groups < cu && k >= 1024)
        want = ops_cdiv(2 * cu, groups);
    if (want > k / 256)
        want = k / 256;
    if (want > 16)
        want = 16;
    if (want < 2)
        return 1;
    /* Parts of whole 256s (the mma atom's K tiles, the skinny path's
     * chunks), none empty. */
    int64_t per = ops_cdiv(ops_cdiv(k, want), 256) * 256;
    int64_t n = ops_cdiv(k, per);
    uint64_t bytes = (uint64_t)n * (uint64_t)g->batch * (uint64_t)g->m * (uint64_t)g->n * 4;
    if (n < 2 || (uint64_t)g->batch * (uint64_t)g->m * (uint64_t)g->n > SPLIT_WORKSPACE_MAX / 4 ||
        bytes > SPLIT_WORKSPACE_MAX)
        return 1;
    *kper = (cl_int)per;
    return (int)n;
}

/* Runs configuration cfg over g: one launch, or a split launch into a
 * workspace of partial sums and gemm_reduce's launch after it. */
static clops_status gemm_run(clops_device *d, const gemm_cfg *cfg, const gemm_geom *g,
                             int64_t groups, float alpha, float beta)
{
    host_kernel *kern = NULL;
    cl_int kper = g->k;
    int splits = g->k > 0 && (!cfg->conv || cfg->conv == 3) && !cfg->tma
                     ? split_count(d, cfg, g, groups, &kper)
                     : 1;
    gemm_cfg sc = *cfg;
    sc.split = splits > 1;
    /* (a split product is not persistent) */
    if (sc.split)
        sc.persist = 0;
    /* The programs that store C from the fragments (mma.sync, wgmma
     * without -cs) leave the activations out for products without one:
     * inlined into every element of the unrolled stores they were most of
     * such a program's PTX and of its build (engine9, docs/gemm.md).  (The
     * -cs wgmma programs, the defaults, keep them and call one copy,
     * GEMM_ACT_CALL: clang's PTX of the -cs program without them took 128
     * registers against 110, the edge of two work-groups a unit.  Split
     * programs store no epilogue.) */
    sc.act_any = !(sc.kind == GK_MMA && !sc.cstage && !sc.split && (g->epi >> 3) == 0 &&
                   act_trim_on());
    clops_status st = gemm_kernel(d, &sc, &kern);
    if (st)
        return st;
    if (splits == 1)
        return gemm_launch(d, kern, &sc, g, alpha, beta);
    gemm_cfg rc;
    memset(&rc, 0, sizeof rc);
    rc.kind = GK_REDUCE;
    rc.dt = cfg->dt;
    rc.conv = cfg->conv; /* the rows of C of a weight gradient */
    host_kernel *red = NULL;
    if ((st = gemm_kernel(d, &rc, &red)))
        return st;
    size_t items = (size_t)g->batch * (size_t)g->m * (size_t)g->n;
    host_block *w = NULL;
    if ((st = host_alloc(d, (size_t)splits * items * sizeof(float), &w)))
        return st;
    atomic_fetch_add(&n_split, 1);
    st = gemm_launch_split(d, kern, &sc, g, alpha, beta, w->mem, splits, kper);
    if (st == CLOPS_OK) {
        /* gemm_reduce: one item per element of C. */
        size_t wg = red->wg_size < 256 ? red->wg_size : 256;
        cl_int tiles = 1;
        /* idx32: batch <= work-groups <= INT32_MAX / 16, checked in
         * ops/gemm/gemm_engine.c (engine_launch) */
        cl_int beta_zero = beta == 0.0f, nb = (cl_int)g->batch, sp = splits;
        cl_float al = alpha, be = beta;
#define A(x) {sizeof(x), &(x)}
        host_arg args[] = {A(g->mem[0]), A(g->off[0]), A(g->sb[0]), A(g->s1[0]), A(g->s2[0]),
                           A(g->mem[1]), A(g->off[1]), A(g->sb[1]), A(g->s1[1]), A(g->s2[1]),
                           A(g->mem[2]), A(g->off[2]), A(g->sb[2]), A(g->s1[2]), A(g->s2[2]),
                           A(g->m),      A(g->n),      A(g->k),     A(al),       A(be),
                           A(beta_zero), A(tiles),     A(tiles),    A(w->mem),   A(nb),
                           A(sp),        A(kper),      A(g->epi), A(g->emem), A(g->e_off), A(g->e_sm), A(g->e_sn), A(g->e_sb), A(g->e_scale),
        A(g->rmem), A(g->r_off), A(g->r_sb), A(g->r_sm), A(g->r_sn), A(g->x_s[0]), A(g->x_s[1]),
        A(g->x_s[2]), A(g->x_s[3]), A(g->x_s[4]), A(g->cv[0]), A(g->cv[1]), A(g->cv[2]),
        A(g->cv[3]), A(g->cv[4]), A(g->cv[5]), A(g->cv[6]), A(g->cv[7]), A(g->cv[8]),
        A(g->cv[9]), A(g->cv[10]), A(g->cv[11]), A(g->cv[12]), A(g->cv[13]), A(g->cv[14]),
        A(g->cv[15]), A(g->cv[16]), A(g->cv[17]), A(g->cv[18]), A(g->c_img), A(g->r_img),
        A(g->b_img)};
#undef A
        st = host_launch_local(d, red, 66, args, ops_cdiv((int64_t)items, (int64_t)wg) * wg, wg);
    }
    host_free(w);
    return st;
}

/*
 * Whether the skinny path takes a product of m x n on d, and whether it is
 * computed transposed (*tr: n is the small side): M or N <= 16 on GPUs,
 * <= 4 where the mma atom takes the dtype (mma.sync reads B once too there
 * and does the arithmetic on tensor cores: on the H100, 8 x 4096 x 4096 in
 * bfloat16 ran at 0.47 TFLOP/s on the skinny path's FMA lanes); on every
 * OpenCL device up to 16 with the debug setting gemm.skinny 1.
 */
static bool skinny_for(const clops_device *d, bool mma_dtype, int64_t m, int64_t n, int64_t k,
                       bool *tr)
{
    int64_t mode = clops_debug_get(CLOPS_DEBUG_GEMM_SKINNY);
    if (mode == 2 || k == 0 || (mode != 1 && kit_is_cpu(d)))
        return false;
    int64_t lim = mode != 1 && mma_dtype && has_mma(d) ? 4 : 16;
    *tr = m > lim;
    return m <= lim || n <= lim;
}

/* The skinny configuration of product g (M <= 16 after skinny_transpose). */
static void skinny_config(const gemm_geom *g, clops_dtype dt, gemm_cfg *c)
{
    memset(c, 0, sizeof *c);
    c->kind = GK_SKINNY;
    c->dt = dt;
    c->ms = 1;
    while (c->ms < g->m)
        c->ms *= 2;
    /* B's unit stride along K: 32 lanes along K per column; else along N. */
    int64_t sk = g->s1[1], sn = g->s2[1];
    c->b_uk = sk == 1 || (sn != 1 && llabs(sk) < llabs(sn));
    int64_t v = 16 / (int64_t)clops_dtype_size(dt);
    bool base_ok = g->off[1] % v == 0 && (g->batch <= 1 || g->sb[1] % v == 0);
    /* 16-byte vectors along K (b_uk), or along N for M <= 4 (more would
     * not fit the lanes' sums in 32 KiB of __local memory). */
    bool vk = c->b_uk && sk == 1 && (g->n == 1 || sn % v == 0) && base_ok;
    bool vn = !c->b_uk && sn == 1 && (g->k == 1 || sk % v == 0) && base_ok && c->ms <= 4;
    c->vec = vk || vn ? (int)v : 1;
    /* A read in chunks too when its rows are aligned the same way. */
    c->a_uk = vk && g->s2[0] == 1 && (g->m == 1 || g->s1[0] % v == 0) &&
              g->off[0] % v == 0 && (g->batch <= 1 || g->sb[0] % v == 0);
    c->bn = c->b_uk ? 256 / 32 : vn ? 32 * (int)v : 256 / 8;
    c->wg = 256;
}

/* C^T = B^T A^T: the product with A and B swapped and every operand
 * transposed (a product with N <= 16 < M becomes one with M <= 16). */
static void skinny_transpose(gemm_geom *g)
{
    gemm_geom t = *g;
    g->mem[0] = t.mem[1], g->off[0] = t.off[1], g->sb[0] = t.sb[1];
    g->s1[0] = t.s2[1], g->s2[0] = t.s1[1]; /* A' (n, k) */
    g->mem[1] = t.mem[0], g->off[1] = t.off[0], g->sb[1] = t.sb[0];
    g->s1[1] = t.s2[0], g->s2[1] = t.s1[0]; /* B' (k, m) */
    g->s1[2] = t.s2[2], g->s2[2] = t.s1[2];
    g->e_sm = t.e_sn, g->e_sn = t.e_sm; /* a bias along N runs along M now */
    g->r_sm = t.r_sn, g->r_sn = t.r_sm;
    g->m = t.n, g->n = t.m;
}

bool gemm_engine_3xtf32_candidate(const clops_device *d)
{
    /* (the canary pretence for forced 3xTF32 only, so that the other
     * devices' float32 keeps its path under the tests' gemm.canary_fail) */
    return x3_on() && (gemm_engine_wgmma_candidate(d, CLOPS_BFLOAT16) ||
                       (x3_state() == X3_FORCED && engine_on() && !kit_is_host(d) &&
                        clops_debug_get(CLOPS_DEBUG_GEMM_CANARY_FAIL) != 0));
}

/* 3xTF32's mode for a product of dt on d under the float32 precision mode
 * `mode`: 0 not taken, 1, or 2 with CLOPS_GEMM_3XTF32_DROP=1 (tests), plus
 * code << 2 with promotion every P = 1 << (code - 1) K tiles
 * (gemm_engine_3xtf32_period; P 1 in tf32-11's second job, H200: 2.6x more
 * accurate than CLBlast's SGEMM but 0.73-0.81x its speed; docs/gemm.md),
 * plus n << 5 with the promotion set in 2^n column passes
 * (gemm_engine_3xtf32_passes, P 1 or 2; x3-13). */
static int x3_code(int p, int h, bool drop)
{
    int code = p == 8 ? 4 : p == 4 ? 3 : p;
    /* column passes (x3-13) for periods of one or two 8-deep steps only */
    if (p != 1 && p != 2)
        h = 0;
    return (drop ? 2 : 1) | code << 2 | (h == 5 ? 3 : h == 4 ? 2 : h == 2 ? 1 : 0) << 5;
}

static int x3_takes(const clops_device *d, clops_dtype dt, int mode)
{
    static atomic_int drop = -1;
    if (dt != CLOPS_FLOAT32 || mode != 0 || !gemm_engine_3xtf32_candidate(d))
        return 0;
    /* (DROP read once, set only from outside by the jobs; the rule's own
     * period and passes unless the environment names them) */
    bool rule = x3_state() == X3_RULE;
    return x3_code(x3_period_or(rule ? GEMM_3XTF32_RULE_PERIOD : GEMM_3XTF32_PERIOD),
                   x3_passes_or(rule ? GEMM_3XTF32_RULE_PASSES : GEMM_3XTF32_PASSES),
                   env_switch(&drop, "CLOPS_GEMM_3XTF32_DROP", NULL, "1"));
}

clops_status gemm_engine_3xtf32_defines(int period, int passes, bool few, char *buf, size_t size)
{
    gemm_cfg c;
    memset(&c, 0, sizeof c);
    c.kind = GK_MMA;
    c.dt = CLOPS_FLOAT32;
    c.a_uk = c.b_uk = c.a_cp = c.b_cp = 1;
    c.shape = few ? WG_FEW : WG_FIRST;
    const mma_shape *sh = &mma_shapes[c.shape];
    c.bm = sh->bm, c.bn = sh->bn, c.wm = sh->wm, c.wn = sh->wn, c.wgs = sh->wgs;
    c.raster = sh->raster;
    /* (the TF32 conversion as mma_config leaves it, which x3_fit clears) */
    tf32_conversion(&c);
    /* (NVIDIA's 48 KiB of __local memory, 1024 items) */
    if (!x3_fit(48 * 1024, 1024, x3_code(period, passes, false), few, &c))
        return clops__fail(CLOPS_INVALID_ARGUMENT,
                           "gemm_engine_3xtf32_defines: no 3xTF32 configuration of period %d, "
                           "passes %d on the %s geometry fits 48 KiB",
                           period, passes, few ? "64 x 128" : "128 x 128");
    strbuf sb = STRBUF_INIT;
    clops_status st = gemm_defines(&c, NULL, &sb);
    if (st == CLOPS_OK)
        snprintf(buf, size, "%s", sb.data ? sb.data : "");
    sb_free(&sb);
    return st;
}

/* Whether the engine's kernels take dtype dt on d (else CLBlast) under
 * float32 precision mode `mode`; *tf32: float32 as TF32 on matrix units. */
static bool engine_takes(const clops_device *d, clops_dtype dt, int mode, bool *tf32)
{
    /* float32 on GPUs stays with CLBlast (its tuned kernels beat the FMA
     * atom there: H200, 43 against 24 TFLOP/s at 4096^3, docs/gemm.md)
     * unless the precision mode allows TF32 on matrix units. */
    *tf32 = dt == CLOPS_FLOAT32 && !kit_is_cpu(d) && mode > 0 && has_mma(d);
    return engine_on() && !kit_is_host(d) &&
           ((dt == CLOPS_FLOAT32 && (kit_is_cpu(d) || *tf32)) || dt == CLOPS_FLOAT16 ||
            dt == CLOPS_BFLOAT16);
}

bool gemm_engine_fuses(const clops_device *d, clops_dtype dt)
{
    bool tf32;
    int mode = precision_now();
    /* (3xTF32 under its rule takes some shapes only: their epilogues run
     * after CLBlast's products as before, the rule's products, a linear
     * layer's bias seeded into C, still on 3xTF32) */
    return (x3_state() == X3_FORCED && x3_takes(d, dt, mode)) ||
           engine_takes(d, dt, mode, &tf32);
}

bool gemm_engine_convolves(const clops_device *d, clops_dtype dt)
{
    bool tf32;
    return engine_takes(d, dt, conv_precision_now(), &tf32);
}

/* The buffer of a non-empty tensor. */
static cl_mem mem_of(const clops_tensor *t)
{
    return t->storage->block ? t->storage->block->mem : NULL;
}

/* The epilogue's part of g; CLOPS_INTERNAL for a malformed one. */
static clops_status epi_setup(const char *op, const gemm_epilogue *epi, const clops_tensor *c,
                              int64_t m, int64_t n, gemm_geom *g)
{
    if (!epi)
        return CLOPS_OK;
    if (epi->act < 0 || epi->act >= GEMM_ACT_COUNT)
        return clops__fail(CLOPS_INTERNAL, "%s: unknown epilogue activation %d", op,
                           (int)epi->act);
    g->epi = (cl_int)epi->act << 3;
    if (epi->bias) {
        const clops_tensor *e = epi->bias;
        if (e->ndim != 1 || e->dtype != c->dtype || e->sizes[0] != (epi->bias_rows ? m : n))
            return clops__fail(CLOPS_INTERNAL, "%s: the epilogue's bias does not match C", op);
        g->epi |= 1;
        g->emem = mem_of(e);
        g->e_off = e->offset;
        g->e_sm = epi->bias_rows ? e->strides[0] : 0;
        g->e_sn = epi->bias_rows ? 0 : e->strides[0];
        g->e_scale = (cl_float)epi->bias_scale;
    }
    if (epi->residual) {
        if (epi->residual->dtype != c->dtype)
            return clops__fail(CLOPS_INTERNAL, "%s: the epilogue's residual does not match C",
                               op);
        g->epi |= (epi->residual_after ? 2 : 1) << 1;
        g->rmem = mem_of(epi->residual);
    }
    return CLOPS_OK;
}

/*
 * Runs the chosen configuration cfg over g (gemm_run), counted by its atom
 * (and as wgmma); *done false, uncounted, where the groups exceed what a
 * split launch indexes or the device runs smaller work-groups of the
 * kernel than it needs: CLBlast takes the product.  (engine_launch and
 * x3_launch.)
 */
static clops_status run_counted(const char *op, clops_device *d, const gemm_cfg *cfg,
                                const gemm_geom *g, float alpha, float beta, bool *done)
{
    int64_t groups = g->batch * ops_cdiv(g->m, cfg->kind == GK_CPU ? cfg->rm * 2 : cfg->bm) *
                     ops_cdiv(g->n, cfg->bn);
    /* Split launches multiply the groups by at most 16. */
    if (groups > INT32_MAX / 16)
        return CLOPS_OK;
    atomic_uint_fast64_t *ctr = cfg->kind == GK_MMA   ? &n_mma
                                : cfg->kind == GK_CPU ? &n_cpu
                                                      : &n_fma;
    atomic_fetch_add(ctr, 1);
    if (cfg->wgs)
        atomic_fetch_add(&n_wgmma, 1);
    clops_status st = gemm_run(d, cfg, g, groups, alpha, beta);
    if (st == CLOPS_UNSUPPORTED) {
        /* The device runs smaller work-groups of this kernel than it
         * needs (registers): CLBlast takes the product. */
        atomic_fetch_sub(ctr, 1);
        if (cfg->wgs)
            atomic_fetch_sub(&n_wgmma, 1);
        return CLOPS_OK;
    }
    *done = true;
    return st ? clops__error_prefix(st, "%s", op) : CLOPS_OK;
}

/*
 * Chooses the atom for a product of dt on d with A staged (a_uk, a_cp) and
 * B (b_un, b_cp) as staging_of says, and runs it (gemm_run: split along K
 * where that pays, never for a convolution's im2col view, but for a weight
 * gradient's).  *done false: the engine leaves the product to CLBlast.
 */
static clops_status engine_launch(const char *op, clops_device *d, clops_dtype dt, bool tf32,
                                  int conv, gemm_geom *g, int a_uk, int a_cp, int b_un,
                                  int b_cp, float alpha, float beta, bool *done)
{
    gemm_cfg cfg;
    bool mma = (dt == CLOPS_FLOAT16 || dt == CLOPS_BFLOAT16 || tf32) && g->k > 0 && has_mma(d);
    if (mma) {
        /* Deep products keep 128 x 128 blocks and split K instead (H100:
         * 1024 x 768 x 16384, 149 against 106 TFLOP/s), unless even 16
         * parts would not fill the device (256 x 256 x 16384: 61 with
         * 128 x 128 blocks, 77 with 64 x 128); convolutions do not split,
         * but for weight gradients (conv 3). */
        int64_t blocks = g->batch * ops_cdiv(g->m, 128) * ops_cdiv(g->n, 128);
        int64_t units = d->info.compute_units ? d->info.compute_units : 1;
        bool small =
            blocks < units && (g->k < 4096 || blocks * 8 < units || (conv && conv != 3));
        /* wgmma with fewer than two 128 x 128 blocks per unit (less than
         * one wave at two work-groups a unit): 64 x 128 blocks, up to four
         * a unit, spread evenly (H100, bfloat16, GPT-2's 4096 x 768 x 3072:
         * 255 TFLOP/s against 233, 4096 x 768 x 768 139 either way;
         * docs/gemm.md). */
        bool few = blocks < 2 * units;
        /* Hopper: wgmma for plain products that fill the device with
         * 128 x 128 blocks (H100, bfloat16: 4096^3 350-362 TFLOP/s against
         * mma.sync's 223; square 1024, fewer blocks, 71-73 with wgmma's 64 x
         * 128 blocks against mma.sync's 82-83 with 64 x 64), or a forced
         * wgmma configuration; mma.sync where its check failed. */
        int forced = (int)clops_debug_get(CLOPS_DEBUG_GEMM_CONFIG);
        bool wg_forced = forced > 0 && forced <= MMA_SHAPES && mma_shapes[forced - 1].wgs;
        /* A convolution that asks for a wgmma configuration (gemm_conv.tile:
         * ops/conv/conv_gemm.c conv_wgmma_tile, since conv16 also
         * conv_wgrad_tile for weight gradients) takes it as a forced one;
         * other convolutions keep mma.sync. */
        bool wg_want = conv && g->tile > 0 && g->tile <= MMA_SHAPES &&
                       mma_shapes[g->tile - 1].wgs;
        /* (float32 as TF32: both operands K-major, where switched on or
         * asked for; with CLOPS_GEMM_WGMMA_TF32_ALL=1 every layout, the
         * others staged into K-major tiles with plain loads, as 3xTF32 does;
         * so is a weight gradient's (conv16: GEMM_CONV 3's K-major staging
         * reads through the images' strides, plain loads whatever their
         * layout)) */
        bool tf32_all = tf32 && (wgmma_tf32_all_on() || (conv == 3 && wg_want));
        int wa_uk = tf32_all ? 1 : a_uk, wb_uk = tf32_all ? 1 : !b_un;
        int wa_cp = tf32_all ? a_uk && a_cp : a_cp, wb_cp = tf32_all ? !b_un && b_cp : b_cp;
        /* (and, where switched on, M/N-major operands of plain products
         * transposed into K-major tiles per K tile: WG_XT, engine13) */
        bool tf32_xt = tf32 && !conv && gemm_engine_wgmma_tf32_xt();
        bool wg_dt = gemm_engine_wgmma_candidate(d, dt) ||
                     (tf32 && ((wa_uk && wb_uk) || tf32_xt) && (wgmma_tf32_on() || wg_want) &&
                      gemm_engine_wgmma_candidate(d, CLOPS_BFLOAT16));
        /* (the wgmma default by engine11's rule: TMA tiles for some
         * shapes, where their maps can be made) */
        int want = g->tile ? g->tile
                           : 1 + gemm_engine_wgmma_want(dt, g->batch, g->m, g->n, g->k, units,
                                                        a_uk, !b_un);
        bool wg = (!conv || wg_want) && (!small || wg_forced || wg_want) && wg_dt &&
                  mma_config(d, dt, wa_uk, wb_uk, wa_cp, wb_cp, small, few, true, want, true,
                             &cfg);
        /* A "-tma" configuration that failed its check (warned once):
         * the same product with the cp.async kernel's default. */
        if (wg && !mma_checked(d, &cfg))
            wg = cfg.tma &&
                 mma_config(d, dt, wa_uk, wb_uk, wa_cp, wb_cp, small, few, true, g->tile, false,
                            &cfg) &&
                 mma_checked(d, &cfg);
        if (!wg)
            mma = mma_config(d, dt, a_uk, !b_un, a_cp, b_cp, small, few, false, g->tile, true,
                             &cfg) &&
                  mma_checked(d, &cfg);
    }
    /* TF32 not possible here (K == 0, or its check failed): CLBlast's
     * float32, as "highest". */
    if (!mma && tf32)
        return CLOPS_OK;
    if (!mma)
        fma_config(d, dt, &cfg);
    cfg.conv = conv;
    return run_counted(op, d, &cfg, g, alpha, beta, done);
}

/*
 * 3xTF32 (x3: x3_takes) for a float32 product g under "highest" (not
 * forced: only the products of gemm_engine_3xtf32_rule): gemm_wgmma
 * with K-major tiles whatever the operands' layouts (an M-major A, or a
 * misaligned K-major operand, staged with plain loads through its strides
 * in K-major order: wgmma's tf32 takes no transposed tiles; an N-major B
 * since x3xt14 in landing tiles of its own layout that each K tile's split
 * transposes, gemm_engine_3xtf32_nt, where switched on), for
 * products that fill the device with 128 x 128 blocks (or a forced wgmma
 * configuration), once the configuration passed its own known-answer
 * check; *done false otherwise: CLBlast's SGEMM, as without it.
 */
bool gemm_engine_3xtf32_rule(int64_t batch, int64_t m, int64_t n, int64_t k, bool a_kmajor,
                              bool b_kmajor, int64_t units)
{
    int64_t blocks = ops_cdiv(m, 128) * ops_cdiv(n, 128);
    return batch == 1 && a_kmajor && b_kmajor && k >= 768 && k <= 3072 && n <= 3072 &&
           n * k <= 768 * 3072 && blocks >= units;
}

/* 3xTF32's N-major B staging (x3xt14; gemm.h): GEMM_3XTF32_NT_DEFAULT
 * unless CLOPS_GEMM_3XTF32_NT=0|1 at start or switched. */
#define GEMM_3XTF32_NT_DEFAULT 1
static atomic_int x3_nt_enabled = -1;

bool gemm_engine_3xtf32_nt(void)
{
    return env_switch_default(&x3_nt_enabled, "CLOPS_GEMM_3XTF32_NT", GEMM_3XTF32_NT_DEFAULT);
}

void gemm_engine_set_3xtf32_nt(bool on)
{
    atomic_store(&x3_nt_enabled, on ? 1 : 0);
}

void gemm_engine_reset_3xtf32_nt(void)
{
    atomic_store(&x3_nt_enabled, -1);
}

/* (the widest N-major B the rule takes: x3xt14's job, H200, TFLOP/s
 * against CLBlast's SGEMM with the same B: c_attn N 2304 31.9 / 24.6,
 * c_proj 29.0 / 23.7, MLP c_proj 31.7 / 26.5, c_fc N 3072 36.7 / 36.8) */
#define GEMM_3XTF32_NMAJOR_N_MAX 2304

bool gemm_engine_3xtf32_b_fits(bool b_nmajor, bool b_aligned, int64_t n)
{
    return b_aligned &&
           (!b_nmajor || (gemm_engine_3xtf32_nt() && n <= GEMM_3XTF32_NMAJOR_N_MAX));
}

/* The "-o2" form of the default 128 x 128 geometry (x3_launch's rule). */
static int x3_o2_shape(void)
{
    static atomic_int idx = -1;
    int i = atomic_load(&idx);
    if (i < 0) {
        for (i = 0; i < MMA_SHAPES && strcmp(mma_shapes[i].name, "wg128x128-s3-cs-o2") != 0; i++)
            ;
        atomic_store(&idx, i);
    }
    return i;
}

static clops_status x3_launch(const char *op, clops_device *d, int x3, gemm_geom *g, int a_cp,
                              int b_un, int b_cp, float alpha, float beta, bool *done)
{
    /* (an N-major B in its own layout, transposed by the split, x3xt14; else
     * K-major tiles, through cp.async where B is K-major and aligned) */
    bool nt = b_un && gemm_engine_3xtf32_nt();
    int b_uk = !nt, b_kcp = nt ? b_cp : !b_un && b_cp;
    int64_t blocks = g->batch * ops_cdiv(g->m, 128) * ops_cdiv(g->n, 128);
    int64_t units = d->info.compute_units ? d->info.compute_units : 1;
    int forced = (int)clops_debug_get(CLOPS_DEBUG_GEMM_CONFIG);
    bool wg_forced = forced > 0 && forced <= MMA_SHAPES && mma_shapes[forced - 1].wgs;
    bool small = blocks < units, few = blocks < 2 * units;
    /* Not forced: the rule's products only (x3-13), the rest CLBlast's. */
    bool rule = x3_state() == X3_RULE;
    if (rule && !gemm_engine_3xtf32_rule(g->batch, g->m, g->n, g->k, a_cp,
                                         gemm_engine_3xtf32_b_fits(b_un, b_cp, g->n), units))
        return CLOPS_OK;
    gemm_cfg cfg;
    if (g->k == 0 || (small && !wg_forced) ||
        !mma_config(d, CLOPS_FLOAT32, 1, b_uk, a_cp, b_kcp, small, few, true, 0, false, &cfg))
        return CLOPS_OK;
    if (rule && cfg.shape == WG_FIRST && x3_o2_shape() < MMA_SHAPES) {
        /* two work-groups a unit asked of ptxas, as measured (P 2 in two
         * passes: 41.9 TFLOP/s at 4096^3 against 29.5 without) */
        cfg.shape = x3_o2_shape();
        cfg.occ = wg_occupancy(mma_shapes[cfg.shape].name);
    }
    if (!x3_config(d, x3, few, &cfg) || !mma_checked(d, &cfg))
        return CLOPS_OK;
    return run_counted(op, d, &cfg, g, alpha, beta, done);
}

clops_status gemm_engine_epi(const char *op, const clops_tensor *a, const clops_tensor *b,
                             clops_tensor *c, clops_scalar alpha, clops_scalar beta,
                             const gemm_epilogue *epi, bool *done)
{
    *done = false;
    clops_device *d = c->storage->device;
    clops_dtype dt = c->dtype;
    bool tf32 = false;
    int mode = precision_now(), x3 = x3_takes(d, dt, mode);
    if (!x3 && !engine_takes(d, dt, mode, &tf32))
        return CLOPS_OK;
    if (a->ndim != 3 || b->ndim != 3 || c->ndim != 3 || a->dtype != dt || b->dtype != dt)
        return clops__fail(CLOPS_INTERNAL, "%s: the GEMM engine needs 3-D views of one dtype",
                           op);
    int64_t m = c->sizes[1], n = c->sizes[2], k = a->sizes[2];
    if (m > GEMM_DIM_MAX || n > GEMM_DIM_MAX || k > GEMM_DIM_MAX)
        return CLOPS_OK;
    clops_status st = blas_check_dtype(gemm_engine_cl, op, dt, d);
    if (st)
        return st;
    int64_t batch = c->sizes[0];
    if (batch == 0 || m == 0 || n == 0) {
        *done = true;
        return CLOPS_OK;
    }
    gemm_geom g;
    geom_of(a, b, c, &g);
    if ((st = epi_setup(op, epi, c, m, n, &g)))
        return st;
    if (epi && epi->residual) {
        const clops_tensor *r = epi->residual;
        if (r->ndim != 3 || r->sizes[0] != batch || r->sizes[1] != m || r->sizes[2] != n)
            return clops__fail(CLOPS_INTERNAL, "%s: the epilogue's residual is not C-shaped",
                               op);
        g.r_off = r->offset;
        g.r_sb = batch > 1 ? r->strides[0] : 0;
        g.r_sm = r->strides[1];
        g.r_sn = r->strides[2];
    }
    float al = (float)clops_scalar_to_double(alpha), be = (float)clops_scalar_to_double(beta);
    bool tr = false;
    if (!x3 && skinny_for(d, dt != CLOPS_FLOAT32 || tf32, m, n, k, &tr) &&
        batch * ops_cdiv(m > n ? m : n, 8) <= INT32_MAX) {
        /* One pass over the wide operand at memory bandwidth. */
        gemm_geom g0 = g;
        gemm_cfg cfg;
        if (tr)
            skinny_transpose(&g);
        skinny_config(&g, dt, &cfg);
        if (cfg.wg <= (int)d->info.max_work_group_size) {
            int64_t groups = batch * ops_cdiv(g.n, cfg.bn);
            atomic_fetch_add(&n_skinny, 1);
            st = gemm_run(d, &cfg, &g, groups, al, be);
            if (st != CLOPS_UNSUPPORTED) {
                *done = true;
                return st ? clops__error_prefix(st, "%s", op) : CLOPS_OK;
            }
            atomic_fetch_sub(&n_skinny, 1);
        }
        g = g0;
    }
    int a_uk = 0, a_cp = 0, b_un = 0, b_cp = 0;
    int64_t ce = 16 / (int64_t)clops_dtype_size(dt);
    staging_of(m, k, a->strides[1], a->strides[2], a->strides[0], batch, a->offset, ce, &a_uk,
               &a_cp);
    staging_of(k, n, b->strides[1], b->strides[2], b->strides[0], batch, b->offset, ce, &b_un,
               &b_cp);
    if (x3)
        return x3_launch(op, d, x3, &g, a_uk && a_cp, b_un, b_cp, al, be, done);
    return engine_launch(op, d, dt, tf32, 0, &g, a_uk, a_cp, b_un, b_cp, al, be, done);
}

clops_status gemm_engine_cl(const char *op, const clops_tensor *a, const clops_tensor *b,
                            clops_tensor *c, clops_scalar alpha, clops_scalar beta)
{
    bool done = false;
    clops_status st = gemm_engine_epi(op, a, b, c, alpha, beta, NULL, &done);
    if (st || done)
        return st;
    atomic_fetch_add(&n_clblast, 1);
    return blas_gemm_opencl(op, a, b, c, alpha, beta);
}

bool gemm_merged_stride(const clops_tensor *t, int64_t *pix)
{
    int64_t expect = -1;
    *pix = 1;
    for (int i = t->ndim - 1; i >= 2; i--) {
        if (t->sizes[i] == 1)
            continue;
        if (expect >= 0 && t->strides[i] != expect)
            return false;
        if (expect < 0)
            *pix = t->strides[i];
        expect = t->strides[i] * t->sizes[i];
    }
    return true;
}

/* Whether v and everything the kernel derives from it stays far from
 * int's limits. */
static bool small_int(int64_t v)
{
    return v >= 0 && v <= (1 << 28);
}

/* Whether cv's geometry (nsp spatial dims) keeps every index the kernels
 * derive in int; *taps and *ls: the kernel taps and the rows' positions. */
static bool conv_fits(const gemm_conv *cv, int nsp, int64_t *taps, int64_t *ls)
{
    bool fits = nsp >= 1 && nsp <= 3 && small_int(cv->cg);
    *taps = 1, *ls = 1;
    for (int i = 0; i < 3 && fits; i++) {
        fits = small_int(cv->k[i]) && small_int(cv->out[i]) && small_int(cv->in[i]) &&
               small_int(cv->s[i]) && small_int(cv->p[i]) && small_int(cv->d[i]) &&
               cv->out[i] * cv->s[i] + cv->p[i] + cv->k[i] * cv->d[i] < (1 << 29) &&
               cv->in[i] * cv->s[i] + cv->p[i] + cv->k[i] * cv->d[i] < (1 << 29);
        *taps *= cv->k[i];
        *ls *= cv->out[i];
    }
    return fits;
}

/*
 * The image cv->x of g's im2col view (A): its offset, strides (spatial
 * dims padded in front with stride 0), group stride and the geometry.
 * Returns whether its channels are its unit-stride direction
 * (channels-last), and in *cp whether a tap's channels of a group are
 * 16-byte chunks of ce elements there (cp.async staging: unit channel
 * stride, channels per group, offset and the other strides multiples of
 * ce).
 */
static bool conv_image(const gemm_conv *cv, int64_t ce, gemm_geom *g, int *cp)
{
    const clops_tensor *x = cv->x;
    int nsp = x->ndim - 2;
    g->x_s[0] = x->strides[0];
    g->x_s[1] = x->strides[1];
    for (int i = 0; i < 3; i++)
        g->x_s[2 + i] = i < 3 - nsp ? 0 : x->strides[2 + i - (3 - nsp)];
    g->off[0] = x->offset;
    g->sb[0] = cv->groups > 1 ? cv->cg * x->strides[1] : 0;
    const int64_t *geo[6] = {cv->k, cv->out, cv->in, cv->s, cv->p, cv->d};
    /* idx32: every geometry value <= 2^28, checked in ops/gemm/gemm_engine.c (conv_fits) */
    g->cv[0] = (cl_int)cv->cg;
    for (int a = 0; a < 6; a++)
        for (int i = 0; i < 3; i++)
            g->cv[1 + 3 * a + i] = (cl_int)geo[a][i];
    int64_t csx = llabs(x->strides[1]), smin = INT64_MAX;
    for (int i = 2; i < x->ndim; i++)
        if (x->sizes[i] > 1 && llabs(x->strides[i]) < smin)
            smin = llabs(x->strides[i]);
    bool cl = x->sizes[1] > 1 && csx <= smin;
    bool aligned = x->strides[1] == 1 && cv->cg % ce == 0 && x->offset % ce == 0;
    for (int i = 0; i < x->ndim && aligned; i++)
        aligned = x->sizes[i] == 1 || x->strides[i] % ce == 0 || i == 1;
    *cp = cl && aligned;
    return cl;
}

/*
 * The common start of a convolution product, m x cv->n x k per group, A
 * the view of cv->x, B in b's buffer, C in c's: the dtype check; *done
 * when there is nothing to compute; else g set up for it (A by conv_image:
 * *cl whether the image is channels-last, *a_cp its cp.async staging).
 */
static clops_status conv_start(const char *op, const gemm_conv *cv, const clops_tensor *b,
                               const clops_tensor *c, int64_t m, int64_t k, gemm_geom *g,
                               bool *cl, int *a_cp, bool *done)
{
    clops_device *d = c->storage->device;
    clops_status st = blas_check_dtype(gemm_engine_cl, op, c->dtype, d);
    if (st)
        return st;
    if (cv->groups == 0 || m == 0 || cv->n == 0) {
        *done = true;
        return CLOPS_OK;
    }
    memset(g, 0, sizeof *g);
    g->mem[0] = k ? mem_of(cv->x) : mem_of(c);
    g->mem[1] = k ? mem_of(b) : mem_of(c);
    g->mem[2] = mem_of(c);
    geom_plain(g);
    /* idx32: m, n, k <= GEMM_DIM_MAX < 2^31, checked in
     * ops/gemm/gemm_engine.c (gemm_engine_conv) */
    g->m = (cl_int)m, g->n = (cl_int)cv->n, g->k = (cl_int)k;
    g->batch = cv->groups;
    *cl = conv_image(cv, 16 / (int64_t)clops_dtype_size(c->dtype), g, a_cp);
    return CLOPS_OK;
}

clops_status gemm_engine_conv(const char *op, const gemm_conv *cv, const gemm_epilogue *epi,
                              bool *done)
{
    *done = false;
    const clops_tensor *x = cv->x, *w = cv->w, *y = cv->y;
    clops_device *d = y->storage->device;
    clops_dtype dt = y->dtype;
    bool tf32 = false;
    if (!engine_takes(d, dt, conv_precision_now(), &tf32) || x->dtype != dt || w->dtype != dt)
        return CLOPS_OK;
    int64_t taps, ls;
    bool fits = x->ndim == y->ndim && conv_fits(cv, y->ndim - 2, &taps, &ls);
    int64_t m = 0, k = 0, pix = 0, rpix = 0;
    fits = fits && geom_mul(cv->samples, ls, &m);
    fits = fits && geom_mul(taps, cv->cg, &k) && m <= GEMM_DIM_MAX && k <= GEMM_DIM_MAX &&
           cv->n <= GEMM_DIM_MAX && gemm_merged_stride(y, &pix);
    const clops_tensor *r = epi ? epi->residual : NULL;
    if (r)
        fits = fits && r->ndim == y->ndim && gemm_merged_stride(r, &rpix) &&
               memcmp(r->sizes, y->sizes, sizeof(int64_t) * (size_t)y->ndim) == 0;
    if (!fits)
        return CLOPS_OK;
    gemm_geom g;
    bool cl = false;
    int a_cp = 0;
    clops_status st = conv_start(op, cv, w, y, m, k, &g, &cl, &a_cp, done);
    if (st || *done)
        return st;
    int64_t ce = 16 / (int64_t)clops_dtype_size(dt);
    /* Which way A's elements run: along K (channels) in channels-last
     * images, else along M; the FMA atoms read the hints from A's
     * "strides". */
    int a_uk = cl;
    g.s1[0] = a_uk ? 2 : 1;
    g.s2[0] = a_uk ? 1 : 2;
    g.off[1] = w->offset;
    g.sb[1] = cv->groups > 1 ? cv->w_sg : 0;
    g.s1[1] = cv->w_sk;
    g.s2[1] = cv->w_sn;
    g.off[2] = y->offset;
    g.sb[2] = cv->groups > 1 ? cv->n * y->strides[1] : 0;
    g.s1[2] = pix;
    g.s2[2] = y->strides[1];
    g.c_img = y->strides[0];
    if ((st = epi_setup(op, epi, y, m, cv->n * cv->groups, &g)))
        return st;
    if (epi && epi->bias) {
        /* One bias over every group: group b's columns start at b * n. */
        if (epi->bias_rows)
            return clops__fail(CLOPS_INTERNAL, "%s: a convolution's bias runs along N", op);
        g.e_sb = cv->n * g.e_sn;
    }
    if (r) {
        g.r_off = r->offset;
        g.r_sb = cv->groups > 1 ? cv->n * r->strides[1] : 0;
        g.r_sm = rpix;
        g.r_sn = r->strides[1];
        g.r_img = r->strides[0];
    }
    g.tile = cv->tile;
    int b_un = 0, b_cp = 0;
    staging_of(k, cv->n, cv->w_sk, cv->w_sn, cv->w_sg, cv->groups, w->offset, ce, &b_un, &b_cp);
    return engine_launch(op, d, dt, tf32, cv->transposed ? 2 : 1, &g, a_uk, a_cp, b_un, b_cp, 1.0f,
                         0.0f, done);
}

clops_status gemm_engine_conv_weight(const char *op, const gemm_conv *cv, clops_tensor *dw,
                                     bool *done)
{
    *done = false;
    const clops_tensor *x = cv->x, *y = cv->y;
    clops_device *d = dw->storage->device;
    clops_dtype dt = dw->dtype;
    bool tf32 = false;
    if (!engine_takes(d, dt, conv_precision_now(), &tf32) || x->dtype != dt || y->dtype != dt)
        return CLOPS_OK;
    int64_t taps, ls;
    bool fits = y->ndim == x->ndim && dw->ndim == x->ndim &&
                conv_fits(cv, x->ndim - 2, &taps, &ls);
    /* M = (tap, channel), N = the small image's channels of a group, K =
     * (sample, position): the small image's and the weight's spatial dims
     * must merge into one stride each. */
    int64_t m = 0, k = 0, ypix = 0, wpix = 0;
    fits = fits && geom_mul(taps, cv->cg, &m) && geom_mul(cv->samples, ls, &k) &&
           m <= GEMM_DIM_MAX && k <= GEMM_DIM_MAX && cv->n <= GEMM_DIM_MAX &&
           gemm_merged_stride(y, &ypix) && gemm_merged_stride(dw, &wpix);
    if (!fits)
        return CLOPS_OK;
    gemm_geom g;
    bool cl = false;
    int a_cp = 0;
    clops_status st = conv_start(op, cv, y, dw, m, k, &g, &cl, &a_cp, done);
    if (st || *done)
        return st;
    int64_t ce = 16 / (int64_t)clops_dtype_size(dt);
    /* A's elements run along M (channels) in channels-last images, else
     * along K (positions); the FMA atoms read the hint from A's "strides". */
    g.s1[0] = cl ? 1 : 2;
    g.s2[0] = cl ? 2 : 1;
    /* B: the small image, row k = (sample, position), column = channel. */
    g.off[1] = y->offset;
    g.sb[1] = cv->groups > 1 ? cv->n * y->strides[1] : 0;
    g.s1[1] = ypix;
    g.s2[1] = y->strides[1];
    g.b_img = y->strides[0];
    /* C: the weight [Cs, Cb/groups, k...], row m = (tap, channel). */
    g.off[2] = dw->offset;
    g.sb[2] = cv->groups > 1 ? cv->n * dw->strides[0] : 0;
    g.s1[2] = dw->strides[1];
    g.s2[2] = dw->strides[0];
    g.c_img = wpix;
    /* The mma atom's staging (cl_kernels/gemm.cl GEMM_CONV 3): A M-major
     * in channels-last images, with cp.async when a tap's channels are
     * 16-byte chunks (as the forward's); B N-major when the small image's
     * channels are its unit stride, with cp.async when its rows (sample
     * and position strides) are aligned too; K-major tiles use plain
     * loads. */
    int b_un = 0, b_cp = 0;
    staging_of(k, cv->n, ypix, y->strides[1], g.sb[1], cv->groups, y->offset, ce, &b_un, &b_cp);
    b_cp = b_cp && b_un && (cv->samples <= 1 || g.b_img % ce == 0);
    /* the caller's block (ops/conv/conv_gemm.c weight_samples), 0 the rule */
    g.tile = cv->tile;
    return engine_launch(op, d, dt, tf32, 3, &g, !cl, a_cp, b_un, b_cp, 1.0f, 0.0f, done);
}

const char *gemm_engine_path(const clops_device *d, clops_dtype dt)
{
    if (!engine_on() || kit_is_host(d) || dt == CLOPS_FLOAT64 || !clops_dtype_is_floating(dt))
        return "clblast";
    if (kit_is_cpu(d))
        return "cpu";
    if (dt == CLOPS_FLOAT32)
        return precision_now() > 0 && has_mma(d) ? "mma" : "clblast";
    return has_mma(d) ? "mma" : "fma";
}
