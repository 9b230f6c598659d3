/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ops/gemm/gemm_blas.c: the CLBlast engine of the GEMM family (see ops/gemm/gemm.h).
 *
 * A call C[b] = alpha * A[b] @ B[b] + beta * C[b] over 3-D views becomes one
 * CLBlast call whenever the views can be described to CLBlast as they are:
 *
 *   - C picks the call's layout: column-major when its rows are adjacent
 *     (unit row stride); a row-major C (unit column stride) is handed over
 *     as the column-major C^T = B^T A^T, because CLBlast's indirect kernel
 *     would transpose a row-major C (and A) through temporaries; C's other
 *     stride is the leading dimension.
 *   - A and B are passed untransposed when they share C's orientation and
 *     with the transpose flag when they have the other one, again with their
 *     other stride as leading dimension.
 *   - storage offsets are buffer offsets, batch strides are the strides of
 *     CLBlastXgemmStridedBatched (0 for a matrix repeated over the batch);
 *     one batch calls CLBlastXgemm.
 *
 * Only what CLBlast cannot express is copied: a matrix with neither a unit
 * row nor a unit column stride, a leading dimension smaller than the matrix
 * (rows that overlap, as in an expanded matrix), negative strides; C is then
 * computed into a temporary and copied back.  float16 and bfloat16 are
 * converted to float32 with the pointwise engine's cast (copy_ into a row-major
 * float32 tensor, as core_to_copy does but never keeping an odd layout),
 * multiplied with float32 accumulation and converted back.
 *
 * Two limits of CLBlast 1.5.3 are worked around here:
 *   - its kernels index with 32-bit ints, so an operand reaching past element
 *     2^31 - 1 is rebased on an aligned sub-buffer and very large batches are
 *     split in chunks;
 *   - its strided-batched indirect path (m*n*k >= 64^3 on some devices)
 *     ignores the offset and the batch stride of a matrix whose rows are
 *     packed (leading dimension == row length) and whose size is a multiple
 *     of the kernel's tiles; such calls run as one CLBlastXgemm per batch
 *     entry instead (docs/gemm.md).
 */
#include <clblast_c.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "host/host.h"
#include "ops/tensor/tensor.h"
#include "ops/gemm/gemm.h"
#include "ops/kit/kit.h"

/* X(name, value, meaning): every CLBlastStatusCode of clblast_c.h 1.5.3. */
/* clang-format off */
#define BLAS_STATUS_LIST(X)                                                                  \
    X(CLBlastSuccess, 0, "success")                                                          \
    X(CLBlastOpenCLCompilerNotAvailable, -3, "OpenCL compiler not available")                \
    X(CLBlastTempBufferAllocFailure, -4, "could not allocate a temporary buffer")            \
    X(CLBlastOpenCLOutOfResources, -5, "OpenCL out of resources")                            \
    X(CLBlastOpenCLOutOfHostMemory, -6, "OpenCL out of host memory")                         \
    X(CLBlastOpenCLBuildProgramFailure, -11, "OpenCL compilation error")                     \
    X(CLBlastInvalidValue, -30, "CL_INVALID_VALUE")                                          \
    X(CLBlastInvalidCommandQueue, -36, "CL_INVALID_COMMAND_QUEUE")                           \
    X(CLBlastInvalidMemObject, -38, "CL_INVALID_MEM_OBJECT")                                 \
    X(CLBlastInvalidBinary, -42, "CL_INVALID_BINARY")                                        \
    X(CLBlastInvalidBuildOptions, -43, "CL_INVALID_BUILD_OPTIONS")                           \
    X(CLBlastInvalidProgram, -44, "CL_INVALID_PROGRAM")                                      \
    X(CLBlastInvalidProgramExecutable, -45, "CL_INVALID_PROGRAM_EXECUTABLE")                 \
    X(CLBlastInvalidKernelName, -46, "CL_INVALID_KERNEL_NAME")                               \
    X(CLBlastInvalidKernelDefinition, -47, "CL_INVALID_KERNEL_DEFINITION")                   \
    X(CLBlastInvalidKernel, -48, "CL_INVALID_KERNEL")                                        \
    X(CLBlastInvalidArgIndex, -49, "CL_INVALID_ARG_INDEX")                                   \
    X(CLBlastInvalidArgValue, -50, "CL_INVALID_ARG_VALUE")                                   \
    X(CLBlastInvalidArgSize, -51, "CL_INVALID_ARG_SIZE")                                     \
    X(CLBlastInvalidKernelArgs, -52, "CL_INVALID_KERNEL_ARGS")                               \
    X(CLBlastInvalidLocalNumDimensions, -53, "too many thread dimensions")                   \
    X(CLBlastInvalidLocalThreadsTotal, -54, "too many threads in a work-group")              \
    X(CLBlastInvalidLocalThreadsDim, -55, "too many threads in a work-group dimension")      \
    X(CLBlastInvalidGlobalOffset, -56, "CL_INVALID_GLOBAL_OFFSET")                           \
    X(CLBlastInvalidEventWaitList, -57, "CL_INVALID_EVENT_WAIT_LIST")                        \
    X(CLBlastInvalidEvent, -58, "CL_INVALID_EVENT")                                          \
    X(CLBlastInvalidOperation, -59, "CL_INVALID_OPERATION")                                  \
    X(CLBlastInvalidBufferSize, -61, "CL_INVALID_BUFFER_SIZE")                               \
    X(CLBlastInvalidGlobalWorkSize, -63, "CL_INVALID_GLOBAL_WORK_SIZE")                      \
    X(CLBlastNotImplemented, -1024, "routine or functionality not implemented")              \
    X(CLBlastInvalidMatrixA, -1022, "matrix A is not a valid OpenCL buffer")                 \
    X(CLBlastInvalidMatrixB, -1021, "matrix B is not a valid OpenCL buffer")                 \
    X(CLBlastInvalidMatrixC, -1020, "matrix C is not a valid OpenCL buffer")                 \
    X(CLBlastInvalidVectorX, -1019, "vector X is not a valid OpenCL buffer")                 \
    X(CLBlastInvalidVectorY, -1018, "vector Y is not a valid OpenCL buffer")                 \
    X(CLBlastInvalidDimension, -1017, "dimensions M, N and K must be larger than zero")      \
    X(CLBlastInvalidLeadDimA, -1016, "leading dimension of A smaller than its first dimension") \
    X(CLBlastInvalidLeadDimB, -1015, "leading dimension of B smaller than its first dimension") \
    X(CLBlastInvalidLeadDimC, -1014, "leading dimension of C smaller than its first dimension") \
    X(CLBlastInvalidIncrementX, -1013, "increment of vector X cannot be zero")               \
    X(CLBlastInvalidIncrementY, -1012, "increment of vector Y cannot be zero")               \
    X(CLBlastInsufficientMemoryA, -1011, "the buffer of matrix A is too small")              \
    X(CLBlastInsufficientMemoryB, -1010, "the buffer of matrix B is too small")              \
    X(CLBlastInsufficientMemoryC, -1009, "the buffer of matrix C is too small")              \
    X(CLBlastInsufficientMemoryX, -1008, "the buffer of vector X is too small")              \
    X(CLBlastInsufficientMemoryY, -1007, "the buffer of vector Y is too small")              \
    X(CLBlastInsufficientMemoryTemp, -2050, "the temporary GEMM buffer is too small")        \
    X(CLBlastInvalidBatchCount, -2049, "the batch count must be positive")                   \
    X(CLBlastInvalidOverrideKernel, -2048, "parameters overridden for an unknown kernel")    \
    X(CLBlastMissingOverrideParameter, -2047, "override parameters missing for the kernel")  \
    X(CLBlastInvalidLocalMemUsage, -2046, "not enough local memory on the device")           \
    X(CLBlastNoHalfPrecision, -2045, "the device has no half precision (cl_khr_fp16)")       \
    X(CLBlastNoDoublePrecision, -2044, "the device has no double precision (cl_khr_fp64)")   \
    X(CLBlastInvalidVectorScalar, -2043, "the unit-sized vector is not a valid buffer")      \
    X(CLBlastInsufficientMemoryScalar, -2042, "the unit-sized vector's buffer is too small") \
    X(CLBlastDatabaseError, -2041, "no database entry for the device")                       \
    X(CLBlastUnknownError, -2040, "unspecified error")                                       \
    X(CLBlastUnexpectedError, -2039, "unexpected error")
/* clang-format on */

typedef struct blas_status_entry {
    int code;
    const char *name;
    const char *meaning;
} blas_status_entry;

static const blas_status_entry blas_status_table[] = {
#define BLAS_STATUS_ROW(name, value, meaning) {value, #name, meaning},
    BLAS_STATUS_LIST(BLAS_STATUS_ROW)
#undef BLAS_STATUS_ROW
};

/* Checks at compile time that the table's names are clblast_c.h's. */
#define BLAS_STATUS_CHECK(name, value, meaning) \
    _Static_assert((int)name == (value), #name " changed value in clblast_c.h");
BLAS_STATUS_LIST(BLAS_STATUS_CHECK)
#undef BLAS_STATUS_CHECK

/* The table row of a code, or NULL. */
static const blas_status_entry *blas_status_lookup(int code)
{
    for (size_t i = 0; i < sizeof blas_status_table / sizeof blas_status_table[0]; i++)
        if (blas_status_table[i].code == code)
            return &blas_status_table[i];
    return NULL;
}

const char *blas_status_name(int code)
{
    const blas_status_entry *e = blas_status_lookup(code);
    return e ? e->name : "CLBlastUnknownStatus";
}

/* The clops status a CLBlast code stands for. */
static clops_status blas_status_class(int code)
{
    switch (code) {
    case CLBlastSuccess: return CLOPS_OK;
    case CLBlastTempBufferAllocFailure:
    case CLBlastOpenCLOutOfResources:
    case CLBlastInvalidBufferSize: return CLOPS_OUT_OF_MEMORY;
    case CLBlastOpenCLOutOfHostMemory: return CLOPS_HOST_OUT_OF_MEMORY;
    case CLBlastOpenCLCompilerNotAvailable:
    case CLBlastOpenCLBuildProgramFailure:
    case CLBlastInvalidBuildOptions: return CLOPS_BUILD_FAILURE;
    case CLBlastNoHalfPrecision:
    case CLBlastNoDoublePrecision: return CLOPS_UNSUPPORTED;
    case CLBlastNotImplemented: return CLOPS_NOT_IMPLEMENTED;
    default: return CLOPS_BLAS_ERROR;
    }
}

clops_status blas_fail(int code, const char *what, const clops_device *d)
{
    const blas_status_entry *e = blas_status_lookup(code);
    const char *name = e ? e->name : "CLBlastUnknownStatus";
    const char *meaning = e ? e->meaning : "a status clops does not know";
    clops_status st = blas_status_class(code);
    if (st == CLOPS_OK)
        st = CLOPS_INTERNAL;
    if (d)
        return clops__fail(st, "%s failed: %s (%d): %s on %s (%s)", what, name, code, meaning,
                           d->label, d->info.name);
    return clops__fail(st, "%s failed: %s (%d): %s", what, name, code, meaning);
}

const char *blas_clblast_version(void)
{
#define BLAS_STR2(x) #x
#define BLAS_STR(x) BLAS_STR2(x)
    return BLAS_STR(CLBLAST_VERSION_MAJOR) "." BLAS_STR(CLBLAST_VERSION_MINOR) "." BLAS_STR(
        CLBLAST_VERSION_PATCH);
#undef BLAS_STR
#undef BLAS_STR2
}

bool blas_clblast_library(char *buf, size_t cap)
{
    return host_library_path((const void *)(uintptr_t)CLBlastClearCache, buf, cap);
}

void blas_shutdown(void)
{
    CLBlastClearCache();
}

clops_status blas_check_dtype(blas_gemm_fn engine, const char *op, clops_dtype dtype,
                              const clops_device *device)
{
    if (engine == ref_gemm)
        return ref_gemm_check_dtype(op, dtype);
    if (!clops_dtype_is_floating(dtype))
        return clops__fail(CLOPS_INVALID_DTYPE,
                           "%s: OpenCL devices support floating dtypes only for matrix products "
                           "(float32, float64 where the device has fp64, float16 and bfloat16), "
                           "got %s on %s (%s); integer matrix products run on "
                           "the CPU device",
                           op, clops_dtype_name(dtype), device->label, device->info.name);
    return check_dtype_on_device(op, dtype, device);
}

/* --- counters ------------------------------------------------------------ */

static atomic_uint_fast64_t n_gemm, n_batched, n_copies, n_temps, n_half, n_splits, n_subbuf;

void blas_get_stats(blas_stats *out)
{
    out->gemm_calls = atomic_load(&n_gemm);
    out->batched_calls = atomic_load(&n_batched);
    out->operand_copies = atomic_load(&n_copies);
    out->result_temps = atomic_load(&n_temps);
    out->half_conversions = atomic_load(&n_half);
    out->per_batch_splits = atomic_load(&n_splits);
    out->sub_buffers = atomic_load(&n_subbuf);
}

/* --- layouts ------------------------------------------------------------- */

/* Whether a rows x cols matrix with strides (rs, cs) is a row-major matrix
 * with a leading dimension CLBlast accepts; writes that leading dimension. */
static bool row_major_ld(int64_t rows, int64_t cols, int64_t rs, int64_t cs, int64_t *ld)
{
    int64_t minld = cols > 1 ? cols : 1;
    if (cols > 1 && cs != 1)
        return false;
    if (rows <= 1) {
        *ld = minld;
        return true;
    }
    if (rs < minld)
        return false;
    *ld = rs;
    return true;
}

/* The column-major counterpart of row_major_ld. */
static bool col_major_ld(int64_t rows, int64_t cols, int64_t rs, int64_t cs, int64_t *ld)
{
    return row_major_ld(cols, rows, cs, rs, ld);
}

/* How one operand is handed to CLBlast. */
typedef struct cl_operand {
    cl_mem mem;       /* the tensor's buffer */
    size_t mem_bytes; /* its size */
    int64_t off;      /* element offset of batch entry 0 */
    int64_t bs;       /* batch stride */
    int64_t ld;
    int64_t one, two; /* CLBlast's dimensions: along the leading dimension, across */
    int64_t span;     /* elements one batch entry covers: ld * (two - 1) + one */
    CLBlastTranspose trans;
} cl_operand;

/* Describes 3-D view t (a [B, rows, cols] matrix) to CLBlast in a call of the
 * given layout (row-major when row_layout).  False when CLBlast cannot take
 * it as it is. */
static bool describe(const clops_tensor *t, bool row_layout, cl_operand *o)
{
    int64_t rows = t->sizes[1], cols = t->sizes[2], rs = t->strides[1], cs = t->strides[2];
    int64_t ldr = 0, ldc = 0;
    bool r = row_major_ld(rows, cols, rs, cs, &ldr);
    bool c = col_major_ld(rows, cols, rs, cs, &ldc);
    if ((!r && !c) || (t->sizes[0] > 1 && t->strides[0] < 0))
        return false;
    /* Same orientation as the call: untransposed. */
    bool as_row = row_layout ? r : !c;
    o->trans = (as_row == row_layout) ? CLBlastTransposeNo : CLBlastTransposeYes;
    o->ld = as_row ? ldr : ldc;
    o->one = as_row ? cols : rows;
    o->two = as_row ? rows : cols;
    o->span = o->ld * (o->two - 1) + o->one;
    o->off = t->offset;
    o->bs = t->sizes[0] > 1 ? t->strides[0] : 0;
    o->mem = t->storage->block->mem;
    o->mem_bytes = t->storage->block->size;
    return true;
}

/* --- running CLBlast ---------------------------------------------------------- */

/* The largest element index CLBlast's 32-bit kernels can reach.  Tests lower
 * it with CLOPS_GEMM_INDEX_LIMIT to exercise the rebasing and chunking. */
static int64_t index_limit(void)
{
    const char *v = host_env("CLOPS_GEMM_INDEX_LIMIT");
    if (v) {
        long long x = atoll(v);
        if (x > 0 && x < INT_MAX)
            return x;
    }
    return INT_MAX;
}

/* One CLBlast problem: the operands as they reach CLBlast (buffer, offset
 * already rebased). */
typedef struct cl_problem {
    clops_device *d;
    const char *op;
    bool f64;
    CLBlastLayout layout;
    int64_t m, n, k;
    double alpha, beta;
    cl_operand x[3]; /* A, B, C */
} cl_problem;

/* CLBlastXgemm on the problem with per-operand offsets. */
static clops_status call_gemm(const cl_problem *p, const cl_mem *mem, const int64_t *off)
{
    CLBlastStatusCode s;
    const cl_operand *a = &p->x[0], *b = &p->x[1], *c = &p->x[2];
    cl_command_queue q = p->d->queue;
    atomic_fetch_add(&n_gemm, 1);
    if (p->f64)
        s = CLBlastDgemm(p->layout, a->trans, b->trans, (size_t)p->m, (size_t)p->n, (size_t)p->k,
                         p->alpha, mem[0], (size_t)off[0], (size_t)a->ld, mem[1], (size_t)off[1],
                         (size_t)b->ld, p->beta, mem[2], (size_t)off[2], (size_t)c->ld, &q, NULL);
    else
        s = CLBlastSgemm(p->layout, a->trans, b->trans, (size_t)p->m, (size_t)p->n, (size_t)p->k,
                         (float)p->alpha, mem[0], (size_t)off[0], (size_t)a->ld, mem[1],
                         (size_t)off[1], (size_t)b->ld, (float)p->beta, mem[2], (size_t)off[2],
                         (size_t)c->ld, &q, NULL);
    if (s != CLBlastSuccess)
        return clops__error_prefix(blas_fail(s, p->f64 ? "CLBlastDgemm" : "CLBlastSgemm", p->d),
                                   "%s", p->op);
    /* (the device's launch counter: one per routine CLBlast ran) */
    host_count_launches(p->d, 1);
    return CLOPS_OK;
}

/* CLBlastXgemmStridedBatched over count batch entries. */
static clops_status call_batched(const cl_problem *p, const cl_mem *mem, const int64_t *off,
                                 int64_t count)
{
    CLBlastStatusCode s;
    const cl_operand *a = &p->x[0], *b = &p->x[1], *c = &p->x[2];
    cl_command_queue q = p->d->queue;
    atomic_fetch_add(&n_batched, 1);
    if (p->f64)
        s = CLBlastDgemmStridedBatched(
            p->layout, a->trans, b->trans, (size_t)p->m, (size_t)p->n, (size_t)p->k, p->alpha,
            mem[0], (size_t)off[0], (size_t)a->ld, (size_t)a->bs, mem[1], (size_t)off[1],
            (size_t)b->ld, (size_t)b->bs, p->beta, mem[2], (size_t)off[2], (size_t)c->ld,
            (size_t)c->bs, (size_t)count, &q, NULL);
    else
        s = CLBlastSgemmStridedBatched(
            p->layout, a->trans, b->trans, (size_t)p->m, (size_t)p->n, (size_t)p->k,
            (float)p->alpha, mem[0], (size_t)off[0], (size_t)a->ld, (size_t)a->bs, mem[1],
            (size_t)off[1], (size_t)b->ld, (size_t)b->bs, (float)p->beta, mem[2], (size_t)off[2],
            (size_t)c->ld, (size_t)c->bs, (size_t)count, &q, NULL);
    if (s != CLBlastSuccess)
        return clops__error_prefix(
            blas_fail(s, p->f64 ? "CLBlastDgemmStridedBatched" : "CLBlastSgemmStridedBatched",
                      p->d),
            "%s", p->op);
    host_count_launches(p->d, 1);
    return CLOPS_OK;
}

/* Below this m*n*k CLBlast always runs its direct kernel (the smallest
 * XGEMM_MIN_INDIRECT_SIZE in its database is 64; tuning never sets less). */
#define DIRECT_ONLY_MNK (64 * 64 * 64)

/* Whether CLBlast 1.5.3's strided-batched indirect path could drop this
 * operand's offset or batch stride (see the file comment). */
static bool batched_bug_risk(const cl_operand *o, int64_t off)
{
    return o->ld == o->one && (off != 0 || o->bs != o->one * o->two);
}

/* Runs batch entries [0, count) at the given (rebased) buffers and offsets. */
static clops_status run_chunk(const cl_problem *p, const cl_mem *mem, const int64_t *off,
                              int64_t count)
{
    if (count == 1)
        return call_gemm(p, mem, off);
    bool risk = false;
    if (p->m * p->n * p->k >= DIRECT_ONLY_MNK)
        for (int i = 0; i < 3; i++)
            risk = risk || batched_bug_risk(&p->x[i], off[i]);
    if (!risk)
        return call_batched(p, mem, off, count);
    atomic_fetch_add(&n_splits, 1);
    clops_status st = CLOPS_OK;
    for (int64_t bi = 0; bi < count && st == CLOPS_OK; bi++) {
        int64_t o[3];
        for (int i = 0; i < 3; i++)
            o[i] = off[i] + bi * p->x[i].bs;
        st = call_gemm(p, mem, o);
    }
    return st;
}

/* Runs the whole batch: splits it so that every operand's indices stay
 * under the 32-bit limit, rebasing operands on sub-buffers where their
 * offset alone would pass it. */
static clops_status run_problem(const cl_problem *p, int64_t batch, size_t elsize)
{
    int64_t limit = index_limit();
    int64_t align = p->d->info.mem_base_addr_align / 8;
    if (align < (int64_t)elsize)
        align = (int64_t)elsize;
    int64_t slack = align / (int64_t)elsize;
    int64_t chunk = batch;
    for (int i = 0; i < 3; i++) {
        const cl_operand *o = &p->x[i];
        if (o->span + slack > limit)
            return clops__fail(CLOPS_UNSUPPORTED,
                               "%s: a matrix spanning %lld elements exceeds the 32-bit indexing of "
                               "CLBlast's kernels on %s (limit %lld)",
                               p->op, (long long)o->span, p->d->label, (long long)limit);
        if (o->bs > 0) {
            int64_t fit = (limit - o->span - slack) / o->bs + 1;
            if (fit < chunk)
                chunk = fit;
        }
    }
    clops_status st = CLOPS_OK;
    for (int64_t b0 = 0; b0 < batch && st == CLOPS_OK; b0 += chunk) {
        int64_t count = batch - b0 < chunk ? batch - b0 : chunk;
        cl_mem mem[3], sub[3] = {NULL, NULL, NULL};
        int64_t off[3];
        for (int i = 0; i < 3 && st == CLOPS_OK; i++) {
            const cl_operand *o = &p->x[i];
            int64_t start = o->off + b0 * o->bs;
            int64_t end = start + (count - 1) * o->bs + o->span;
            mem[i] = o->mem;
            off[i] = start;
            if (end <= limit)
                continue;
            size_t origin = (size_t)(start * (int64_t)elsize / align * align);
            size_t stop = (size_t)end * elsize;
            if (stop > o->mem_bytes)
                stop = o->mem_bytes;
            cl_buffer_region region = {origin, stop - origin};
            cl_int err = CL_SUCCESS;
            sub[i] = clCreateSubBuffer(o->mem, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION,
                                       &region, &err);
            if (err != CL_SUCCESS || !sub[i]) {
                sub[i] = NULL;
                st = clops__error_prefix(host_cl_fail(err, "clCreateSubBuffer", p->d), "%s", p->op);
                break;
            }
            mem[i] = sub[i];
            off[i] = start - (int64_t)(origin / elsize);
            atomic_fetch_add(&n_subbuf, 1);
        }
        if (st == CLOPS_OK)
            st = run_chunk(p, mem, off, count);
        for (int i = 0; i < 3; i++)
            if (sub[i])
                clReleaseMemObject(sub[i]);
    }
    return st;
}

/* --- copies for what CLBlast cannot express --------------------------------------- */

/* A view of t with new geometry (3-D). */
static clops_status view3(const clops_tensor *t, const int64_t *sizes, const int64_t *strides,
                          int64_t offset, clops_tensor **out)
{
    return tensor_make_view("gemm", t, 3, sizes, strides, offset, out);
}

/* A row-major contiguous copy of t in dtype dt. */
static clops_status dense_copy(const clops_tensor *t, clops_dtype dt, clops_tensor **out)
{
    clops_tensor *c = NULL;
    clops_status st = tensor_new(t->storage->device, dt, t->ndim, t->sizes, NULL, &c);
    if (st == CLOPS_OK)
        st = core_copy_(c, (clops_tensor *)t, false);
    if (st) {
        clops_tensor_release(c);
        return st;
    }
    *out = c;
    return CLOPS_OK;
}

/*
 * A copy of operand t in dtype `dt` that CLBlast can take: a row-major
 * copy, or for a matrix repeated over the batch (batch stride 0) a copy of
 * the one matrix, viewed again with batch stride 0.
 */
static clops_status copy_operand(const clops_tensor *t, clops_dtype dt, clops_tensor **out)
{
    clops_tensor *one = NULL, *conv = NULL;
    clops_status st;
    if (t->sizes[0] > 1 && t->strides[0] == 0) {
        int64_t sz[3] = {1, t->sizes[1], t->sizes[2]};
        st = view3(t, sz, t->strides, t->offset, &one);
        if (st == CLOPS_OK)
            st = dense_copy(one, dt, &conv);
        if (st == CLOPS_OK) {
            int64_t str[3] = {0, conv->strides[1], conv->strides[2]};
            st = view3(conv, t->sizes, str, conv->offset, out);
        }
    } else {
        st = dense_copy(t, dt, &conv);
        if (st == CLOPS_OK) {
            *out = conv;
            conv = NULL;
        }
    }
    clops_tensor_release(one);
    clops_tensor_release(conv);
    return st;
}

/* Whether beta is zero (C is then not read). */
static bool scalar_is_zero(clops_scalar s)
{
    return clops_scalar_to_double(s) == 0.0;
}

static clops_status gemm_native(const char *op, const clops_tensor *a, const clops_tensor *b,
                                clops_tensor *c, clops_scalar alpha, clops_scalar beta);

/* C = beta * C for K == 0: a fill for beta 0, else a one-deep GEMM of zero
 * operands, which CLBlast scales C with. */
static clops_status scale_c(const char *op, clops_tensor *c, clops_scalar beta)
{
    double bv = clops_scalar_to_double(beta);
    if (bv == 1.0)
        return CLOPS_OK;
    if (bv == 0.0)
        return tensor_fill(c, clops_scalar_int(0));
    int64_t m = c->sizes[1], n = c->sizes[2];
    int64_t len = m > n ? m : n;
    clops_tensor *z = NULL, *za = NULL, *zb = NULL;
    clops_status st = clops_zeros(c->storage->device, c->dtype, 1, &len, &z);
    if (st == CLOPS_OK) {
        int64_t sa[3] = {c->sizes[0], m, 1}, sb[3] = {c->sizes[0], 1, n}, str[3] = {0, 1, 1};
        st = view3(z, sa, str, 0, &za);
        if (st == CLOPS_OK)
            st = view3(z, sb, str, 0, &zb);
    }
    if (st == CLOPS_OK)
        st = gemm_native(op, za, zb, c, clops_scalar_int(1), beta);
    clops_tensor_release(za);
    clops_tensor_release(zb);
    clops_tensor_release(z);
    return st;
}

/* The transposed view of a [B, r, c] view. */
static clops_status transposed3(const clops_tensor *t, clops_tensor **out)
{
    int64_t sz[3] = {t->sizes[0], t->sizes[2], t->sizes[1]};
    int64_t str[3] = {t->strides[0], t->strides[2], t->strides[1]};
    return view3(t, sz, str, t->offset, out);
}

/* Runs C = A B as C^T = B^T A^T. */
static clops_status gemm_swapped(const char *op, const clops_tensor *a, const clops_tensor *b,
                                 clops_tensor *c, clops_scalar alpha, clops_scalar beta)
{
    clops_tensor *at = NULL, *bt = NULL, *ct = NULL;
    clops_status st = transposed3(a, &at);
    if (st == CLOPS_OK)
        st = transposed3(b, &bt);
    if (st == CLOPS_OK)
        st = transposed3(c, &ct);
    if (st == CLOPS_OK)
        st = gemm_native(op, bt, at, ct, alpha, beta);
    clops_tensor_release(at);
    clops_tensor_release(bt);
    clops_tensor_release(ct);
    return st;
}

/* float32/float64 GEMM with K >= 1: describes the operands, copies what
 * CLBlast cannot express, and runs. */
static clops_status gemm_native(const char *op, const clops_tensor *a, const clops_tensor *b,
                                clops_tensor *c, clops_scalar alpha, clops_scalar beta)
{
    clops_device *d = c->storage->device;
    int64_t batch = c->sizes[0];
    clops_tensor *tmp_c = NULL, *tmp_a = NULL, *tmp_b = NULL;
    clops_status st = CLOPS_OK;
    cl_problem p;
    memset(&p, 0, sizeof p);
    p.d = d;
    p.op = op;
    p.f64 = c->dtype == CLOPS_FLOAT64;
    p.m = c->sizes[1];
    p.n = c->sizes[2];
    p.k = a->sizes[2];
    p.alpha = clops_scalar_to_double(alpha);
    p.beta = clops_scalar_to_double(beta);

    /* C decides the layout; a C CLBlast cannot write is computed aside. */
    int64_t ld;
    bool c_row = row_major_ld(p.m, p.n, c->strides[1], c->strides[2], &ld);
    bool c_col = col_major_ld(p.m, p.n, c->strides[1], c->strides[2], &ld);
    bool c_ok = (c_row || c_col) && (batch == 1 || c->strides[0] > 0);
    if (!c_ok) {
        atomic_fetch_add(&n_temps, 1);
        st = scalar_is_zero(beta) ? tensor_new(d, c->dtype, 3, c->sizes, NULL, &tmp_c)
                                  : core_contiguous_copy(c, &tmp_c);
        if (st == CLOPS_OK)
            st = gemm_native(op, a, b, tmp_c, alpha, beta);
        if (st == CLOPS_OK)
            st = core_copy_(c, tmp_c, false);
        clops_tensor_release(tmp_c);
        return st;
    }
    /* A row-major C goes to CLBlast as the column-major C^T = B^T A^T: its
     * indirect kernel wants column-major A and C, so this spares the
     * transposition of C (and of A) that a row-major call costs. */
    if (c_row && !c_col)
        return gemm_swapped(op, a, b, c, alpha, beta);
    /* Prefer the layout that leaves A untransposed when C allows both. */
    bool row = c_row;
    if (c_row && c_col) {
        int64_t l2;
        row = row_major_ld(p.m, p.k, a->strides[1], a->strides[2], &l2);
    }
    p.layout = row ? CLBlastLayoutRowMajor : CLBlastLayoutColMajor;
    if (!describe(a, row, &p.x[0])) {
        atomic_fetch_add(&n_copies, 1);
        st = copy_operand(a, a->dtype, &tmp_a);
        if (st == CLOPS_OK && !describe(tmp_a, row, &p.x[0]))
            st = clops__fail(CLOPS_INTERNAL, "%s: copied operand A still not expressible", op);
    }
    if (st == CLOPS_OK && !describe(b, row, &p.x[1])) {
        atomic_fetch_add(&n_copies, 1);
        st = copy_operand(b, b->dtype, &tmp_b);
        if (st == CLOPS_OK && !describe(tmp_b, row, &p.x[1]))
            st = clops__fail(CLOPS_INTERNAL, "%s: copied operand B still not expressible", op);
    }
    if (st == CLOPS_OK && !describe(c, row, &p.x[2]))
        st = clops__fail(CLOPS_INTERNAL, "%s: operand C not expressible", op);
    if (st == CLOPS_OK) {
        /* A single batch entry needs no batch stride; CLBlast wants C's
         * to be nonzero. */
        if (batch == 1)
            for (int i = 0; i < 3; i++)
                p.x[i].bs = 0;
        blas_tune_autoload(d);
        st = run_problem(&p, batch, clops_dtype_size(c->dtype));
    }
    clops_tensor_release(tmp_a);
    clops_tensor_release(tmp_b);
    return st;
}

/* float16/bfloat16: convert to float32, multiply, convert back into c. */
static clops_status gemm_via_f32(const char *op, const clops_tensor *a, const clops_tensor *b,
                                 clops_tensor *c, clops_scalar alpha, clops_scalar beta)
{
    clops_tensor *a32 = NULL, *b32 = NULL, *c32 = NULL;
    atomic_fetch_add(&n_half, 1);
    clops_status st = copy_operand(a, CLOPS_FLOAT32, &a32);
    if (st == CLOPS_OK)
        st = copy_operand(b, CLOPS_FLOAT32, &b32);
    if (st == CLOPS_OK)
        st = scalar_is_zero(beta)
                 ? tensor_new(c->storage->device, CLOPS_FLOAT32, 3, c->sizes, NULL, &c32)
                 : dense_copy(c, CLOPS_FLOAT32, &c32);
    if (st == CLOPS_OK)
        st = blas_gemm_opencl(op, a32, b32, c32, alpha, beta);
    if (st == CLOPS_OK)
        st = core_copy_(c, c32, false);
    clops_tensor_release(a32);
    clops_tensor_release(b32);
    clops_tensor_release(c32);
    return st;
}

clops_status blas_gemm_opencl(const char *op, const clops_tensor *a, const clops_tensor *b,
                              clops_tensor *c, clops_scalar alpha, clops_scalar beta)
{
    clops_device *d = c->storage->device;
    if (kit_is_host(d))
        return clops__fail(CLOPS_INTERNAL, "%s: the CLBlast engine got CPU tensors", op);
    if (a->ndim != 3 || b->ndim != 3 || c->ndim != 3 || a->dtype != c->dtype ||
        b->dtype != c->dtype)
        return clops__fail(CLOPS_INTERNAL, "%s: the CLBlast engine needs 3-D views of one dtype",
                           op);
    clops_status st = blas_check_dtype(blas_gemm_opencl, op, c->dtype, d);
    if (st)
        return st;
    if (c->sizes[0] == 0 || c->sizes[1] == 0 || c->sizes[2] == 0)
        return CLOPS_OK;
    if (c->dtype == CLOPS_FLOAT16 || c->dtype == CLOPS_BFLOAT16)
        return gemm_via_f32(op, a, b, c, alpha, beta);
    if (a->sizes[2] == 0)
        return scale_c(op, c, beta);
    return gemm_native(op, a, b, c, alpha, beta);
}
