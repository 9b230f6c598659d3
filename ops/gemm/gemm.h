/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ops/gemm/gemm.h: the matrix-multiplication engines and the CLBlast glue.
 *
 * The GEMM operator family (mm, bmm, addmm, addmv, mv, dot, outer/ger, addr,
 * baddbmm, addbmm, matmul, linear; ops/gemm/gemm.c and ops/gemm/gemm_matmul.c) checks
 * arguments, computes result shapes and maps every op onto one primitive,
 * the batched GEMM of three 3-D views:
 *
 *     for b in [0, B):  C[b] = alpha * A[b] @ B[b] + beta * C[b]
 *
 * with A [B, M, K], B [B, K, N] and C [B, M, N] of any strides (A and B may
 * repeat one matrix with batch stride 0).  Two engines implement it:
 *
 *   blas_gemm_opencl   CLBlast on an OpenCL device (ops/gemm/gemm_blas.c): views map
 *                      to CLBlast's layouts, transpose flags, leading
 *                      dimensions, offsets and batch strides without copies
 *                      wherever CLBlast can express them; float16/bfloat16
 *                      go through float32; integer dtypes are refused.
 *   ref_gemm           the C reference on the CPU device (ref/gemm.c):
 *                      every dtype but bool, cache-blocked, accumulating in
 *                      double (floats) or wrapping int64 (integers).
 *
 * Both follow the same contract: zero-size B, M or N do nothing; K == 0
 * gives beta * C (zeros when beta == 0); beta == 0 ignores C's contents, NaN
 * and Inf included, as PyTorch does.  C must not overlap A or B, and no two
 * elements of C may share memory (the op layer guarantees both).
 *
 * The tuning half (ops/gemm/gemm_tune.c) searches CLBlast's Xgemm kernel
 * parameters for a device, stores the winners in the clops cache folder and
 * applies them, through CLBlast's override API, the first time a GEMM runs
 * on the device.  `clops tune gemm` drives it (docs/gemm.md).
 *
 * Threading: the engines may run on several threads at once.  Applying or
 * searching tuning parameters changes CLBlast's process-wide state for a
 * device and must not race with GEMMs on that device.
 */
#ifndef CLOPS_OPS_GEMM_H
#define CLOPS_OPS_GEMM_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "clops/device.h"
#include "clops/dtype.h"
#include "clops/status.h"
#include "codegen_pointwise/pw.h"
#include "core/tensor_impl.h"
#include "ref/ref_gemm.h" /* ref_gemm: the reference engine (CPU device) */

/* --- engines ------------------------------------------------------------ */

/*
 * One engine call: C[b] = alpha * A[b] @ B[b] + beta * C[b] over 3-D views
 * of one dtype on one device (see the contract above).  `op` names the
 * calling operator in messages.  The engines borrow every tensor.
 */
typedef clops_status (*blas_gemm_fn)(const char *op, const clops_tensor *a, const clops_tensor *b,
                                     clops_tensor *c, clops_scalar alpha, clops_scalar beta);

/* The CLBlast engine (OpenCL devices).  float32, float64 (with fp64),
 * float16 and bfloat16 (converted to float32 and back). */
clops_status blas_gemm_opencl(const char *op, const clops_tensor *a, const clops_tensor *b,
                              clops_tensor *c, clops_scalar alpha, clops_scalar beta);

/* clops' own engine (ops/gemm/gemm_engine.c, cl_kernels/gemm.cl): the
 * engine of OpenCL devices.  float32, float16 and bfloat16 run its kernels
 * (NVIDIA mma.sync for float16/bfloat16 on compute capability >= 8.0, an
 * FMA atom elsewhere) on the views as they are; float64, integer dtypes and
 * whatever it does not take (docs/gemm.md) go to blas_gemm_opencl. */
clops_status gemm_engine_cl(const char *op, const clops_tensor *a, const clops_tensor *b,
                            clops_tensor *c, clops_scalar alpha, clops_scalar beta);

/* The activations of the fused epilogue (cl_kernels/act.clh: gemm.cl's
 * gemm_act, conv.cl's conv_act). */
typedef enum gemm_act {
    GEMM_ACT_NONE,
    GEMM_ACT_RELU,
    GEMM_ACT_RELU6,     /* hardtanh(0, 6) */
    GEMM_ACT_HARDSWISH,
    GEMM_ACT_SILU,
    GEMM_ACT_GELU,      /* exact (erf) */
    GEMM_ACT_GELU_TANH, /* approximate='tanh' */
    GEMM_ACT_SIGMOID,
    GEMM_ACT_HARDSIGMOID, /* relu6(x + 3) / 6 */
    GEMM_ACT_COUNT
} gemm_act;

/*
 * A fused epilogue, applied to each element of C in the engine's float32
 * accumulator before its one rounding:
 *     r = alpha * A @ B + beta * C
 *     r += bias_scale * bias[n]  (bias[m] when bias_rows)
 *     r += residual              (unless residual_after)
 *     r = act(r)
 *     r += residual              (when residual_after)
 * bias: 1-D of C's dtype (any stride), NULL for none; residual: a view of
 * C's shape and dtype (3-D like C for gemm_engine_epi; the convolution's
 * output shape for gemm_engine_conv), NULL for none.  It must not overlap C
 * unless it is C itself.
 */
typedef struct gemm_epilogue {
    const clops_tensor *bias;
    bool bias_rows;
    double bias_scale;
    const clops_tensor *residual;
    bool residual_after;
    gemm_act act;
} gemm_epilogue;

/* Whether the engine would run a product of dtype dt on c's device with a
 * fused epilogue (its own kernels rather than CLBlast: float16/bfloat16 on
 * every OpenCL device, float32 on CPU devices and under TF32). */
bool gemm_engine_fuses(const clops_device *d, clops_dtype dt);

/* The same for convolutions (gemm_engine_conv), whose float32 follows
 * clops_get_float32_conv_precision. */
bool gemm_engine_convolves(const clops_device *d, clops_dtype dt);

/* gemm_engine_cl with a fused epilogue (NULL: none).  *done (set) is false
 * when the engine left the product to CLBlast: nothing was written and the
 * caller runs the product and the epilogue by other means. */
clops_status gemm_engine_epi(const char *op, const clops_tensor *a, const clops_tensor *b,
                             clops_tensor *c, clops_scalar alpha, clops_scalar beta,
                             const gemm_epilogue *epi, bool *done);

/*
 * An implicit-GEMM convolution product for gemm_engine_conv, per group g
 * (the engine's batch):  Y[g] = X~[g] @ W[g], where
 *   X~[g] [M, K]: the im2col view of image x read on the fly, row m =
 *       (sample n, position o of y's spatial grid `out`), column k = (tap
 *       j of the kernel `k`, channel c < cg of the group) with c fastest;
 *       element x[n, g * cg + c, pos] where pos = o * s - p + j * d
 *       (transposed false) or (o + p - j * d) / s where s divides it
 *       (transposed true), zero outside x's spatial grid `in`;
 *   W[g] [K, N]: rows k, columns n at w_off + g * w_sg + k * w_sk + n * w_sn;
 *   Y[g] [M, N]: y[n, g * N + col, o] through y's strides (its spatial dims
 *       must merge into one stride, pix).
 * Spatial lists are 3-D, missing dims of size 1 in front.
 */
typedef struct gemm_conv {
    const clops_tensor *x, *w, *y;
    bool transposed;
    int64_t groups, samples, cg, n; /* n: output channels per group */
    int64_t k[3], out[3], in[3], s[3], p[3], d[3];
    int64_t w_sg, w_sk, w_sn; /* the weight matrix in w's storage (elements) */
    int tile; /* the caller's mma.sync configuration (gemm_engine_config_name(tile - 1)),
                 or a wgmma one (forward / input gradient); 0: the engine's choice */
} gemm_conv;

/* The stride that merges the spatial dims (2 onwards) of image t into one
 * (*pix; 1 when all have size 1), false when they do not merge. */
bool gemm_merged_stride(const clops_tensor *t, int64_t *pix);

/* Runs a convolution product through the engine with an epilogue (NULL:
 * none; bias along N, residual of y's shape).  *done is false when the
 * engine does not take it (CLBlast's dtypes, sizes past int, a y whose
 * spatial dims do not merge): nothing was written. */
clops_status gemm_engine_conv(const char *op, const gemm_conv *cv, const gemm_epilogue *epi,
                              bool *done);

/*
 * The weight gradient of a convolution through the engine (GEMM_CONV 3):
 * dw [Cs, Cb/groups, k...] (any strides whose spatial dims merge) =
 * sum over (sample, position) of the small image cv->y [N, Cs, small...]
 * times the big image cv->x [N, Cb, big...] at position o * s - p + j * d
 * (a plain convolution's grad_output and input; a transposed one's input
 * and grad_output), without a column buffer; the long reduction is split
 * along K where the device would otherwise idle (partials summed in a
 * fixed order).  cv->cg = Cb/groups, cv->n = Cs/groups, cv->out the small
 * sizes, cv->in the big ones; cv->w, the weight strides and transposed
 * are not read.  *done false: the engine does not take it (nothing was
 * written).
 */
clops_status gemm_engine_conv_weight(const char *op, const gemm_conv *cv, clops_tensor *dw,
                                     bool *done);

/* What gemm_engine_cl did since the process started (all devices). */
typedef struct gemm_engine_stats {
    uint64_t fma_calls;       /* the GPU FMA atom */
    uint64_t cpu_calls;       /* the CPU-device FMA atom */
    uint64_t mma_calls;       /* the matrix-unit atoms (mma.sync and wgmma) */
    uint64_t wgmma_calls;     /* ... of which Hopper's wgmma (also in mma_calls) */
    uint64_t clblast_calls;   /* handed to CLBlast */
    uint64_t canary_runs;     /* known-answer checks of matrix-unit configs */
    uint64_t canary_failures; /* ... that failed (the FMA atom took over) */
    uint64_t skinny_calls;    /* the skinny path (M or N <= 16), not in the above */
    uint64_t split_calls;     /* products split along K (also counted by their atom) */
} gemm_engine_stats;

void gemm_engine_get_stats(gemm_engine_stats *out);

/* Switches the engine off (every call goes to CLBlast, as with
 * CLOPS_GEMM_ENGINE=clblast at start) or on; for tests and benchmarks that
 * measure CLBlast. */
void gemm_engine_set_enabled(bool on);
bool gemm_engine_enabled(void);

/* Hopper's wgmma atom (float16 / bfloat16 on NVIDIA devices of compute
 * capability 9.0, through the PTX route): on unless CLOPS_GEMM_WGMMA=0 at
 * start or switched off here (tests, benchmarks).  _candidate: whether a
 * product of dt on d would try it (before its known-answer check). */
void gemm_engine_set_wgmma(bool on);
bool gemm_engine_wgmma_candidate(const clops_device *d, clops_dtype dt);
/* float32 as TF32 ("high"/"medium") through wgmma too, for products whose
 * operands are both K-major, on the same devices: on unless
 * CLOPS_GEMM_WGMMA_TF32=0 at start or switched off here. */
void gemm_engine_set_wgmma_tf32(bool on);
/* 3xTF32 for float32 under "highest" (each operand split into TF32 hi and
 * lo parts, a_hi b_lo + a_lo b_hi + a_hi b_hi in float32 on wgmma; docs/
 * gemm.md "Hopper: 3xTF32"): forced onto every product it can take with
 * CLOPS_GEMM_3XTF32=1 at start or switched on here, off with =0 or
 * switched off here, otherwise (x3-13) the products of
 * gemm_engine_3xtf32_rule below.  _candidate: whether a float32 "highest"
 * product on d would try it (Hopper, or, forced only, any device while the
 * debug setting gemm.canary_fail pretends, whose check then fails:
 * CLBlast). */
void gemm_engine_set_3xtf32(bool on);
/* Back to the environment's choice (CLOPS_GEMM_3XTF32: 1 forced, 0 off,
 * unset: the products of gemm_engine_3xtf32_rule, x3-13). */
void gemm_engine_reset_3xtf32(void);
/* The state those give (host logic): 0 off, 1 forced, 2 the products of
 * gemm_engine_3xtf32_rule (the default). */
int gemm_engine_3xtf32_state(void);
/* x3-13's rule (host logic): 3xTF32 takes a float32 "highest" product on
 * Hopper by default where x3-13's job (H200) measured it faster than
 * CLBlast's SGEMM and more accurate: unbatched, both operands K-major with
 * 16-byte aligned rows (a linear layer's x @ W^T), 768 <= K <= 3072,
 * N <= 3072 and N * K <= 768 * 3072 (GPT-2's and BERT-base's layers), at
 * least as many 128 x 128 blocks as compute units (`units`).  Squares,
 * the MLP and GPT-2's LM head (CLBlast as fast or faster) and batched
 * products (attention's 32 x 512 x 512 x 64: 0.72x) are not taken.
 * b_kmajor: since x3xt14, whether gemm_engine_3xtf32_b_fits admits B (so
 * also GPT-2's Conv1D weights, N-major, but c_fc's). */
bool gemm_engine_3xtf32_rule(int64_t batch, int64_t m, int64_t n, int64_t k, bool a_kmajor,
                              bool b_kmajor, int64_t units);
bool gemm_engine_3xtf32_candidate(const clops_device *d);
/* 3xTF32's staging of an N-major B (x3xt14; GPT-2's Conv1D weights,
 * addmm(bias, x, W) with W [K, N]): on, it lands in its own layout
 * (cp.async of 16-byte rows along N where aligned, else plain loads along
 * N) and each K tile's split transposes it into K-major hi and lo tiles
 * (WG_X3T in cl_kernels/gemm.cl); off, plain loads in K-major order
 * (x3-13).  CLOPS_GEMM_3XTF32_NT=0|1 at start, or as switched here;
 * _reset: back to the environment's choice. */
void gemm_engine_set_3xtf32_nt(bool on);
void gemm_engine_reset_3xtf32_nt(void);
bool gemm_engine_3xtf32_nt(void);
/* Whether a B of that layout (b_nmajor: unit stride along N), alignment
 * (b_aligned: 16-byte rows and offset) and width n is one that
 * gemm_engine_3xtf32_rule's b_kmajor admits: K-major and aligned, or,
 * with the N-major staging on, N-major, aligned and N <= 2304 (x3xt14's
 * H200 job: GPT-2's c_attn, c_proj and MLP c_proj 1.20-1.30x CLBlast with
 * that B; c_fc, N 3072, 0.997x: left to CLBlast).  Host logic. */
bool gemm_engine_3xtf32_b_fits(bool b_nmajor, bool b_aligned, int64_t n);
/* 3xTF32's promotion period (engine12): every P K tiles of 8 the tile sums
 * are added to the running sums in float32 outside the tensor cores; P 1,
 * 2, 4 or 8 from CLOPS_GEMM_3XTF32_PROMOTE=P (read per call), 0 with =0
 * (no promotion), the built-in default (GEMM_3XTF32_PERIOD) when unset or
 * any other value.  Host logic, any device. */
int gemm_engine_3xtf32_period(void);
/* 3xTF32's promotion set in column passes (x3-13): 2 or 4 passes of 64 or
 * 32 columns into one narrower set of temporary accumulators, promotion
 * every K tile of 8 P deep (P 1 or 2 only; other periods keep the
 * full-width set), from CLOPS_GEMM_3XTF32_PASSES=2|4 (read per call; 5
 * for "4o": four passes in two sets, each pass's additions overlapping the
 * next pass's products), 0 with =0 (the full-width set), the built-in
 * default when unset or any other value.  Host logic, any device. */
int gemm_engine_3xtf32_passes(void);
/* For tests (host logic): the program defines of 3xTF32 with promotion
 * period `period` (0, 1, 2, 4, 8) and `passes` (gemm_engine_3xtf32_passes'
 * values) on the default geometry (few: the 64 x 128 one) with 48 KiB of
 * __local memory, as the engine writes them, into buf. */
clops_status gemm_engine_3xtf32_defines(int period, int passes, bool few, char *buf, size_t size);
/* float32 as TF32 through TMA tiles ("-tma" configurations) where the
 * wgmma default rule below picks them: on unless CLOPS_GEMM_TF32_TMA=0 at
 * start or switched off here (engine12). */
void gemm_engine_set_tf32_tma(bool on);
bool gemm_engine_tf32_tma(void);
/* How float32 operands become TF32 on wgmma (engine13): GEMM_TF32_PASS,
 * each staged tile rounded to nearest (ties away) by a pass; _TRUNC, read
 * as staged (the tensor cores truncate); _TMA (the default since engine14),
 * converted by the TMA copy in the TMA configurations
 * (CU_TENSOR_MAP_DATA_TYPE_TFLOAT32: to nearest, ties to even, as cuBLAS
 * TF32), the pass in the others.  CLOPS_GEMM_TF32_CONVERT=pass|trunc|tma
 * at start, or as switched here. */
enum { GEMM_TF32_PASS = 0, GEMM_TF32_TRUNC = 1, GEMM_TF32_TMA = 2 };
void gemm_engine_set_tf32_convert(int mode);
int gemm_engine_tf32_convert(void);
/* float32 as TF32 on wgmma for M-major A / N-major B operands, transposed
 * into K-major tiles per K tile: the built-in default unless
 * CLOPS_GEMM_WGMMA_TF32_XT=0|1 at start, or as switched here (engine13). */
void gemm_engine_set_wgmma_tf32_xt(bool on);
bool gemm_engine_wgmma_tf32_xt(void);

/* The path a dtype takes on a device, in words: "mma", "fma", "cpu" or
 * "clblast" (before layout and known-answer checks). */
const char *gemm_engine_path(const clops_device *d, clops_dtype dt);

/* The matrix-unit tile configurations, mma.sync's and then wgmma's ("wg"
 * names; forced only where wgmma is a candidate) (the debug setting gemm.config = i + 1
 * forces configuration i): how many, and the name of one (NULL out of
 * range), e.g. "128x128-w64x64-s3". */
int gemm_engine_config_count(void);
const char *gemm_engine_config_name(int i);

/* The wgmma default configuration (an index as above) of `batch`
 * float16 / bfloat16 products (and float32 as TF32 where
 * gemm_engine_tf32_tma says so) of m x n x k on `units` compute units, A and
 * B unit-stride along K (a_uk, b_uk) or not; tma: rows aligned for TMA
 * tiles (the product takes them only where libcuda encodes tensor maps;
 * CLOPS_GEMM_TMA_RULE=0 at start: never).  Host logic, any device. */
int gemm_engine_wgmma_default(int64_t batch, int64_t m, int64_t n, int64_t k, int64_t units,
                              bool a_uk, bool b_uk, bool tma);
/* The wgmma configuration a plain product of dt asks for (the index above,
 * before mma_config's checks of alignment and tensor maps): the rule with
 * TMA tiles allowed, for float32 (TF32) only where gemm_engine_tf32_tma
 * says so and both operands are K-major.  Host logic, any device. */
int gemm_engine_wgmma_want(clops_dtype dt, int64_t batch, int64_t m, int64_t n, int64_t k,
                           int64_t units, bool a_uk, bool b_uk);

/* The engine for a tensor's device: ref_gemm on the CPU device,
 * gemm_engine_cl on OpenCL devices (t may be NULL: the op's device check
 * reports that). */
blas_gemm_fn gemm_engine_of(const clops_tensor *t);

/* Whether an engine takes dtype on device: CLOPS_INVALID_DTYPE (integer or
 * bool dtypes on OpenCL, bool on the CPU) or CLOPS_UNSUPPORTED (float64
 * without fp64), with a message naming op, dtype and device. */
clops_status blas_check_dtype(blas_gemm_fn engine, const char *op, clops_dtype dtype,
                              const clops_device *device);

/* What the CLBlast engine did since the process started (all devices), for
 * tests and benchmarks: that views reach CLBlast without copies, and how
 * often each workaround ran. */
typedef struct blas_stats {
    uint64_t gemm_calls;       /* CLBlastXgemm calls */
    uint64_t batched_calls;    /* CLBlastXgemmStridedBatched calls */
    uint64_t operand_copies;   /* A or B copied: a layout CLBlast cannot take */
    uint64_t result_temps;     /* C computed aside: a layout CLBlast cannot write */
    uint64_t half_conversions; /* float16/bfloat16 products run in float32 */
    uint64_t per_batch_splits; /* batched calls run one entry at a time (1.5.3 bug) */
    uint64_t sub_buffers;      /* operands rebased past the 32-bit index limit */
} blas_stats;

void blas_get_stats(blas_stats *out);

/* --- the shared op-level helpers (ops/gemm/gemm.c) ---------------------------- */

/*
 * Runs the engine on views with any number of batch dimensions:
 * a [..., M, K], b [..., K, N] and c [..., M, N], whose batch dimensions
 * (nbatch of them, leading) have equal sizes (a and b may have stride 0
 * there).  Folds the batch into M when b repeats one matrix and a and c can
 * be viewed so, coalesces batch dimensions and loops over those that CLBlast
 * cannot take as one batch stride.  Takes care of c overlapping a or b (a
 * temporary result).
 */
clops_status gemm_run_nd(blas_gemm_fn engine, const char *op, int nbatch, const clops_tensor *a,
                         const clops_tensor *b, clops_tensor *c, clops_scalar alpha,
                         clops_scalar beta);

/*
 * The common checks of every op: non-NULL tensors (names[i] for tensors[i];
 * NULL entries of tensors are allowed where optional[i]), all on one device
 * (PyTorch's "Expected all tensors to be on the same device" message).
 * Writes the device into *device.
 */
clops_status gemm_check_devices(const char *op, clops_tensor *const *tensors, const bool *optional,
                                int n, clops_device **device);

/* PyTorch's names for dtypes: TypeMeta names ("float", "double",
 * "c10::Half", "long int") and ScalarType names ("Float", "Double",
 * "Half", "Long"), for messages worded as PyTorch words them. */
const char *gemm_typemeta_name(clops_dtype dt);
const char *gemm_scalartype_name(clops_dtype dt);

/* For out= and in-place forms of ops whose result dtype is fixed: dst must
 * have exactly that dtype ("Expected out tensor to have dtype float, but got
 * double instead"). */
clops_status gemm_check_out_dtype(const char *op, pw_variant variant, const clops_tensor *dst,
                                  clops_dtype dtype);

/* Records "op: <PyTorch's wording> (self: float32[2, 3], mat2: float64[4, 5]
 * on opencl:0)" with the arguments ts[0..n) named names[] (NULL tensors are
 * left out) and returns st. */
clops_status gemm_failf(clops_status st, const char *op, clops_tensor *const *ts,
                        const char *const *names, int n, const char *fmt, ...) CLOPS__PRINTF(6, 7);

/* Whether two tensors are the same view (storage, offset, dtype, geometry). */
bool gemm_same_view(const clops_tensor *a, const clops_tensor *b);
/* Whether a Scalar is zero (false for bool). */
bool gemm_scalar_is_zero(clops_scalar s);
/* A view of t's storage with new geometry (tensor_make_view). */
clops_status gemm_view(const clops_tensor *t, int ndim, const int64_t *sizes,
                       const int64_t *strides, int64_t offset, clops_tensor **out);
/* Seeds a result with self (broadcast, converted) for a beta * self term:
 * nothing when beta is zero or target already is self. */
clops_status gemm_seed(clops_tensor *target, clops_tensor *self, clops_scalar beta);

/* The matmul core shared by matmul and linear (ops/gemm/gemm_matmul.c): the
 * product of a and b with PyTorch's matmul rules, plus `addend` broadcast
 * to the result (NULL: none) times beta. */
clops_status gemm_matmul_impl(blas_gemm_fn engine, const char *op, pw_variant variant,
                              clops_tensor *dst, clops_tensor *a, clops_tensor *b,
                              clops_tensor *addend, clops_tensor **out);

/* --- CLBlast status codes (ops/gemm/gemm_blas.c) ------------------------------------- */

/* "CLBlastInvalidLeadDimA" for -1016; "CLBlastUnknownStatus" when unknown. */
const char *blas_status_name(int code);
/* Records "<what> failed: CLBlastX (code): <meaning> on <device>" and returns
 * the clops status for the code (out-of-memory codes -> CLOPS_OUT_OF_MEMORY,
 * build failures -> CLOPS_BUILD_FAILURE, missing fp64/fp16 ->
 * CLOPS_UNSUPPORTED, not implemented -> CLOPS_NOT_IMPLEMENTED, everything
 * else -> CLOPS_BLAS_ERROR). */
clops_status blas_fail(int code, const char *what, const clops_device *d);
/* The CLBlast version the library was built against ("1.5.3"). */
const char *blas_clblast_version(void);
/* The file CLBlast was loaded from ("/usr/lib/.../libclblast.so.1.5.3": its
 * real name carries the version it runs with); false when unknown. */
bool blas_clblast_library(char *buf, size_t cap);
/* Drops CLBlast's in-memory programs, which keep the devices' OpenCL
 * contexts alive; for clops_shutdown, before the contexts are released.
 * Parameter overrides stay in force: CLBlast keeps them per device for the
 * life of the process. */
void blas_shutdown(void);

/* --- tuning (ops/gemm/gemm_tune.c) ------------------------------------------------ */

/* Knobs of a search; NULL options mean the defaults noted here. */
typedef struct blas_tune_options {
    bool skip_float32;   /* default false: float32 is tuned */
    bool skip_float64;   /* default false: float64 too where the device has fp64 */
    int max_candidates;  /* per kernel and precision; 0: as the budget allows */
    bool skip_direct;    /* do not search the direct kernel (XgemmDirect) */
    bool skip_crossover; /* do not measure the direct/indirect crossover */
    bool dry_run;        /* search but do not write the cache file */
    uint64_t seed;       /* candidate order; 0: a fixed default */
} blas_tune_options;

/*
 * Searches the parameters of CLBlast's two GEMM kernels for device d within
 * about budget_seconds of wall time (program builds included): Xgemm (the
 * indirect kernel of large products, timed at 2048 and 4096 on GPUs, 256
 * and 512 elsewhere), then XgemmDirect (small and batched products; 512 and
 * 1024, or 128 and 256).  Keeps, per kernel, the fastest candidate that
 * computes correctly and beats CLBlast's default for the device, measures
 * where the indirect kernel overtakes the direct one, writes the winners to
 * the cache folder (unless dry_run) and leaves them applied in this process.
 * Progress lines go to log (NULL: silent).  CLBlast cannot restore its own
 * defaults once parameters were overridden, so after a search this process
 * keeps the best candidate even when the default won (the file then records
 * no Xgemm entry and other processes keep the default).  Never called by a
 * GEMM: only `clops tune gemm`, benchmarks and tests run it.
 */
clops_status blas_tune_gemm(clops_device *d, double budget_seconds, FILE *log,
                            const blas_tune_options *opts);

/* Path of the device's tuning file into buf; false when the cache is off
 * (CLOPS_CACHE=0) or no cache folder is known. */
bool blas_tune_file_path(const clops_device *d, char *buf, size_t cap);

/*
 * Reads the device's tuning file and applies its entries through CLBlast's
 * override API; without a file, applies the parameters clops ships for the
 * device (ops/gemm/gemm_tune_builtin.c), if any.  *applied (may be NULL) says
 * whether parameters were applied.  A missing file is not an error; a
 * malformed, truncated or foreign file is ignored (CLOPS_OK, *applied
 * false) and reported once on stderr.  CLOPS_GEMM_TUNING=0 in the
 * environment disables both.
 */
clops_status blas_tune_apply(clops_device *d, bool *applied);

/* Called by the engine before each GEMM: applies the tuning file the first
 * time a device runs a GEMM (one cheap file read), never tunes.  Does
 * nothing while automatic application is switched off. */
void blas_tune_autoload(clops_device *d);

/* Switches the automatic application on first use on (the default) or off
 * (benchmarks that measure CLBlast's defaults first). */
void blas_tune_set_autoload(bool on);

/* Prints the device's tuning file in words (what is tuned, the measured
 * gain) to f; "no tuning file" when absent. */
clops_status blas_tune_describe(const clops_device *d, FILE *f);

/* --- shipped parameters (ops/gemm/gemm_tune_builtin.c) ------------------------------ */

/* The "param ..." lines clops ships for a device name and CLBlast version,
 * or NULL; *source (may be NULL) says where they were measured. */
const char *blas_tune_builtin(const char *device_name, const char *clblast_version,
                              const char **source);
/* Number of shipped entries, and entry i's lines and device name (tests). */
int blas_tune_builtin_count(void);
const char *blas_tune_builtin_at(int i, const char **device_name);
/* Parses "param ..." lines as a tuning file's; false on a malformed line
 * (tests check every shipped entry with it). */
bool blas_tune_parse_params(const char *lines, int *nentries);

#endif /* CLOPS_OPS_GEMM_H */
