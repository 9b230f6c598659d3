/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ops/norm/norm.h: the normalization family (softmax, log_softmax and their
 * backward ops; layer and rms norm in ops/norm/norm_layer.c) inside clops:
 * ops/norm/norm.c plans rows and launches
 * cl_kernels/norm.cl; the CPU device and the tests use the reference
 * below (ref/norm.c).
 */
#ifndef CLOPS_OPS_NORM_H
#define CLOPS_OPS_NORM_H

#include "codegen_pointwise/pw.h"
#include "core/tensor_impl.h"
#include "dispatch/structured.h"
#include "host/host.h"
#include "ops/kit/kit.h"
#include "ref/ref_norm.h"

/* Row residency of cl_kernels/norm.cl (RES): the local-memory slots per
 * work-item that hold a row between the statistics and the output pass of
 * softmax/log_softmax (up to 32 KiB a work-group, within the device's
 * local memory; 0 for 2-byte inputs); longer rows are read twice. */
int norm_residency(const clops_device *d, clops_dtype in, clops_dtype out);

/* Kernel flag allowing the resident path: 0 while the test setting
 * norm.streaming (core/debug.h) forces the streaming path. */
int norm_resident_flag(void);

/* The kernels of cl_kernels/norm.cl; the _CPU ones exist only in the
 * programs of CPU-like devices (KIT_CPU, ops/kit/kit.h) and run in work items of one. */
enum {
    NORM_K_SOFTMAX,
    NORM_K_SOFTMAX_BACKWARD,
    NORM_K_LAYER,
    NORM_K_SOFTMAX_CPU,
    NORM_K_LAYER_CPU,
    NORM_K_SOFTMAX_BACKWARD_CPU,
    NORM_K_AFFINE_CPU,
    NORM_K_LAYER_BACKWARD,
    NORM_K_LAYER_BACKWARD_CPU,
    NORM_K_LAYER_WGRAD,
    NORM_K_LAYER_WGRAD_CPU,
    NORM_K_CHAN_PARTIAL,
    NORM_K_CHAN_PARTIAL_CPU,
    NORM_K_CHAN_FOLD_FWD,
    NORM_K_CHAN_FOLD_BWD,
    NORM_K_CHAN_APPLY,
    NORM_K_CHAN_APPLY_CPU,
    NORM_K_LAYER_RR,
    NORM_K_GROUP_AFFINE_CPU,
    NORM_K_GROUP_WGRAD_CPU,
    NORM_K_GROUP_CPU,
    NORM_K_COUNT
};

/* Kernel `which` (NORM_K_*) of the program for input dtype `in` and output
 * dtype `out` on device d (ops/norm/norm.c); CLOPS_UNSUPPORTED when d cannot run
 * a work-group kernel with the family's work-group size. */
clops_status norm_get_kernel(clops_device *d, int which, clops_dtype in, clops_dtype out,
                             const char *op, host_kernel **k);

/* The CPU references (norm_ref_softmax, norm_ref_layer, ...) are declared
 * in ref/ref_norm.h. */

/* --- composite norm ops (ops/norm/norm_backward.c, ops/norm/norm_batch.c,
 * ops/norm/norm_group.c) ------------------------------------------------------- */

/* The temporaries of one composite call, released together. */
#define NORM_TMPS 48
typedef struct norm_tmps {
    clops_tensor *t[NORM_TMPS];
    int n;
} norm_tmps;

/* Hands three results over: on st == CLOPS_OK *o0..*o2 get r0..r2 (o2 may
 * be NULL when r2 is NULL), else r0..r2 are released; returns st. */
clops_status norm_hand3(clops_status st, clops_tensor *r0, clops_tensor *r1, clops_tensor *r2,
                        clops_tensor **o0, clops_tensor **o1, clops_tensor **o2);

/* Keeps t in c for norm_release; returns t. */
clops_tensor *norm_keep(norm_tmps *c, clops_tensor *t);
/* Releases every tensor kept in c. */
void norm_release(norm_tmps *c);
/* st, keeping *out in c when st is CLOPS_OK (wraps an operator call). */
clops_status norm_kept(norm_tmps *c, clops_status st, clops_tensor **out);
/* t cast to dt; a * b; a - b; a view (or contiguous copy) of t as shape
 * sizes: each result kept in c. */
clops_status norm_as(norm_tmps *c, const char *op, clops_tensor *t, clops_dtype dt,
                     clops_tensor **out);
clops_status norm_mul(norm_tmps *c, clops_tensor *a, clops_tensor *b, clops_tensor **out);
clops_status norm_sub(norm_tmps *c, clops_tensor *a, clops_tensor *b, clops_tensor **out);
clops_status norm_view(norm_tmps *c, clops_tensor *t, int ndim, const int64_t *sizes,
                       clops_tensor **out);

/*
 * The composite ops' steps call the families' own entry points, never the
 * generated public wrappers (clops/ops.h), so no step re-enters the
 * dispatcher (docs/architecture.md, Layers).  norm_pw runs op over
 * operands (params: the op's n_params scalars) through the pointwise engine
 * (codegen_pointwise/pw.h): into dst (out=, nothing kept) when dst is not
 * NULL, else a new tensor into *out, kept in c.  The others: a * v, a +
 * alpha * b, a + v, a one-operand op (rsqrt, neg), self + t1 * t2 (into
 * dst like norm_pw), and the sum over dims (the reductions' structured
 * function); each new result kept in c.
 */
clops_status norm_pw(norm_tmps *c, const pw_op *op, const pw_operand *operands,
                     const clops_scalar *params, clops_tensor *dst, clops_tensor **out);
clops_status norm_mul_scalar(norm_tmps *c, clops_tensor *a, double v, clops_tensor **out);
clops_status norm_add(norm_tmps *c, clops_tensor *a, clops_tensor *b, double alpha,
                      clops_tensor **out);
clops_status norm_add_scalar(norm_tmps *c, clops_tensor *a, double v, clops_tensor **out);
clops_status norm_unary(norm_tmps *c, const pw_op *op, clops_tensor *a, clops_tensor **out);
clops_status norm_addcmul(norm_tmps *c, clops_tensor *self, clops_tensor *t1, clops_tensor *t2,
                          clops_tensor *dst, clops_tensor **out);
clops_status norm_sum(norm_tmps *c, clops_tensor *t, const int64_t *dims, int ndims,
                      clops_tensor **out);

/*
 * Batch and group norm's normalization: dst = shift3 + x3 * scale3 with x3
 * and dst [A, C, S] and shift3, scale3 [A or 1, C, 1] (norm_addcmul into
 * dst).  CPU-like devices run it as one pass over planes
 * (norm_affine_cpu, ops/norm/norm_affine.c) when the tensors allow, the
 * same bits as the addcmul; other devices and layouts take the addcmul.
 */
clops_status norm_affine(norm_tmps *c, clops_tensor *shift3, clops_tensor *x3,
                         clops_tensor *scale3, clops_tensor *dst);
/* The elements per work item of the chunked CPU passes over total elements
 * (norm_affine_cpu, norm_group_affine_cpu, norm_chan_apply_cpu): whole
 * 16-element vectors, at least HOST_MIN_CHUNK, at most d->max_chunks items;
 * launch ops_cdiv(total, chunk) items of one. */
int64_t norm_cpu_chunk(const clops_device *d, int64_t total);

/*
 * The backward of a row normalization over the last nsl dims of input
 * (layer norm, or rms norm when rms): dx, dweight, dbias into *o0, *o1,
 * *o2 (NULL when mask does not ask for them; o2 may be NULL).  mean and
 * rstd broadcast against input; weight broadcasts against it too (dweight
 * sums over the leading dims and needs weight of the normalized shape).
 */
clops_status norm_rows_backward(const char *op, bool rms, clops_tensor *grad,
                                clops_tensor *input, int nsl, clops_tensor *mean,
                                clops_tensor *rstd, clops_tensor *weight, clops_tensor *bias,
                                const bool *mask, clops_tensor **o0, clops_tensor **o1,
                                clops_tensor **o2);

/*
 * The fused row backward on an OpenCL device (ops/norm/norm_backward.c):
 * grad and input of one dtype seen as M rows of N contiguous elements,
 * mean (NULL for rms) and rstd of M elements, weight of G * (N / D)
 * elements (entry (r % G) * (N / D) + j / D for element j of row r; 1, 1
 * for layer norm) or NULL.  *dx (when dx is not NULL): the input gradient,
 * the input's dtype and shape, one kernel; *sw, *sb (when not NULL): the
 * column sums of grad * xhat and of grad over the rows ([N], compute
 * type), per-block partials folded in a fixed order.
 */
clops_status norm_rows_backward_fused(const char *op, bool rms, clops_tensor *grad,
                                      clops_tensor *input, int64_t M, int64_t N,
                                      clops_tensor *mean, clops_tensor *rstd,
                                      clops_tensor *weight, int64_t G, int64_t D,
                                      clops_tensor **dx, clops_tensor **sw, clops_tensor **sb);

/*
 * The per-channel kernels (ops/norm/norm_chan.c; OpenCL devices only), x
 * seen as [A, C, S] from its offset, contiguous.
 *
 * norm_chan_partials: stage 1 over P parts of each channel's A * S
 * elements (P <= 0: chosen from the shape and device), into *o1, *o2 [C, P]
 * of the compute type (kept in T): mode 0 the parts' mean and sum of
 * squared deviations (Welford); mode 1 the sums of g and of
 * g * (x - mu[c / mdiv]) (mu contiguous, compute type).  *Pout gets P.
 */
clops_status norm_chan_partials(norm_tmps *T, const char *op, int mode, clops_tensor *x,
                                clops_tensor *g, clops_tensor *mu, int64_t mdiv, int64_t A,
                                int64_t C, int64_t S, int64_t P, clops_tensor **o1,
                                clops_tensor **o2, int64_t *Pout);
/* Stage 2 of batch norm's forward: training folds the partials (AS
 * elements a channel) into mean and invstd ([C]) and, with update,
 * updates rm and rv in place; evaluation reads rm and rv.  scale = invstd *
 * w, shift = b - mean * scale.  Every tensor of the compute type, the
 * outputs contiguous from offset 0; w, b, rm, rv contiguous (offsets
 * allowed), w and b may be NULL. */
clops_status norm_chan_fold_fwd(const char *op, clops_tensor *o1, clops_tensor *o2, int64_t P,
                                int64_t AS, int64_t C, bool training, double eps,
                                double momentum, clops_tensor *w, clops_tensor *b,
                                clops_tensor *rm, clops_tensor *rv, bool update,
                                clops_tensor *mean, clops_tensor *invstd, clops_tensor *scale,
                                clops_tensor *shift);
/* Stage 2 of batch norm's backward: sum_dy and dot from the mode-1
 * partials; invstd = sd (train) or 1 / sqrt(sd + eps); iw = invstd * w;
 * dw = dot * invstd, db = sum_dy; c0 and q the coefficients of dx (0 in
 * evaluation).  n: the elements of a channel. */
clops_status norm_chan_fold_bwd(const char *op, clops_tensor *o1, clops_tensor *o2, int64_t P,
                                int64_t C, bool train, double n, double eps, clops_tensor *w,
                                clops_tensor *sd, clops_tensor *iw, clops_tensor *c0,
                                clops_tensor *q, clops_tensor *dw, clops_tensor *db);
/* out = k0[c] + a * k1[c] (+ (b - mu[c]) * k2[c] when b is given) over
 * [A, C, S] contiguous a, b, out; the [C] operands contiguous from offset
 * 0 in the compute type. */
clops_status norm_chan_apply(const char *op, clops_tensor *a, clops_tensor *b, clops_tensor *k0,
                             clops_tensor *k1, clops_tensor *k2, clops_tensor *mu,
                             clops_tensor *out, int64_t C, int64_t S);

/* --- shared by the forward ops (ops/norm/norm_layer.c) ------------------------ */

/* True when t is row-major contiguous (size-1 dims aside). */
bool norm_dense(const clops_tensor *t);

/*
 * Layer (or rms) normalization of x seen as M rows of N contiguous
 * elements, without weight and bias when w, b are NULL, into target y (any
 * shape of M * N elements) and the row statistics mean_t, rstd_t (any
 * dtype and shape of M elements, may be NULL).  y NULL on CPU-like
 * devices: the statistics alone (group norm's affine path there).
 */
clops_status norm_layer_rows(const char *op, clops_tensor *x, clops_tensor *w, clops_tensor *b,
                             int64_t M, int64_t N, double eps, bool rms, clops_tensor *y,
                             clops_tensor *mean_t, clops_tensor *rstd_t);

/*
 * norm_layer_rows with weight and bias per channel (group norm on GPUs): w
 * and b hold G * (N / D) elements, element j of row r takes entry
 * (r % G) * (N / D) + j / D (G = group, D = HxW; 1 and 1 is
 * norm_layer_rows).  Not for the CPU device or CPU-like devices with D > 1.
 */
clops_status norm_layer_rows_grouped(const char *op, clops_tensor *x, clops_tensor *w,
                                     clops_tensor *b, int64_t M, int64_t N, int64_t G, int64_t D,
                                     double eps, bool rms, clops_tensor *y, clops_tensor *mean_t,
                                     clops_tensor *rstd_t);

/*
 * The destinations of a three-result op (functional: new tensors; out=: the
 * given d[i]), result i of dtype dt[i] and shape (nd[i], sz[i]); ins are
 * checked for overlap.  norm_finish3 hands the results over (releasing all
 * on failure) and returns the first error.
 */
clops_status norm_begin3(structured_call *c, const char *op, pw_variant variant,
                         clops_tensor *const *d, clops_device *dev, const clops_dtype *dt,
                         const int *nd, const int64_t *const *sz, clops_tensor *const *ins,
                         int nins);
clops_status norm_finish3(structured_call *c, clops_status st, clops_tensor **o0,
                          clops_tensor **o1, clops_tensor **o2);
/* The out= form of a three-result op computed functionally: copies res[i]
 * (NULL: not asked for, d[i] left alone) into d[i] (resized, dtype and
 * overlap checked against ins) and releases every res[i]. */
clops_status norm_store3(const char *op, clops_tensor **res, clops_tensor *const *d,
                         clops_tensor *const *ins, int nins);

#endif /* CLOPS_OPS_NORM_H */
