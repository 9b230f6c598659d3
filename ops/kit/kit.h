/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ops/kit/kit.h: the family kit, what every op family (ops/<family>/ and
 * the pointwise generator) plugs into instead of rebuilding its glue to
 * host/ (docs/architecture.md, "The family contract"):
 *
 *   - the dtype table (ops/kit/dtypes.def): each dtype's OpenCL storage,
 *     bit-moving and compute types, its tag and its load/store spelling;
 *   - the program assembler: prelude (cl_kernels/pw_prelude.clh) + headers
 *     + the family's #defines + its cl_kernels/ source -> a cached kernel;
 *   - the device-kind seam: which kind of device runs a call (clops' own
 *     CPU device, a CPU-like OpenCL device, a GPU; matrix-unit kinds
 *     later), and the family's launch for that kind.
 *
 * Layer 4: includes core/ and host/ only; families (layer 5) include it.
 */
#ifndef CLOPS_OPS_KIT_H
#define CLOPS_OPS_KIT_H

#include <stdbool.h>
#include <stdint.h>

#include "core/tensor_impl.h"
#include "host/host.h"

/* ---- the dtype table (ops/kit/dtype.c) ---------------------------------- */

/* How an element is loaded and stored (the last column of dtypes.def);
 * the numbers are the `ls` argument of CLOPS_LD/CLOPS_ST in
 * cl_kernels/pw_prelude.clh. */
typedef enum kit_ls {
    KIT_LS_PLAIN = 0, /* p[i], p[i] = v */
    KIT_LS_HALF = 1,  /* vload_half, vstore_half_rte */
    KIT_LS_BF16 = 2,  /* clops_bf16_to_float, clops_float_to_bf16 */
} kit_ls;

/* The table itself is ops/kit/dtypes.def: define
 *   KIT_DTYPE(dt, tag, c_type, storage, bits, compute, uns, compute_dt, ls)
 * and include it for one expansion per dtype (columns described there). */

/* Short tag in kernel and program names: "f32" ("xx" outside the table). */
const char *kit_dtype_tag(clops_dtype dt);
/* OpenCL type of a stored element as a number: "half" for float16,
 * "ushort" for bfloat16 ("void" outside the table). */
const char *kit_cl_storage(clops_dtype dt);
/* OpenCL type moving a stored element bit for bit: "ushort" for float16
 * (no cl_khr_fp16 needed), kit_cl_storage otherwise. */
const char *kit_cl_bits(clops_dtype dt);
/* OpenCL type a pointwise op computes in: "float" for the 16-bit floats. */
const char *kit_cl_compute(clops_dtype dt);
/* Unsigned counterpart of kit_cl_compute (floats: the type itself). */
const char *kit_cl_unsigned(clops_dtype dt);
/* The dtype of kit_cl_compute (float32 for the 16-bit floats). */
clops_dtype kit_compute_dtype(clops_dtype dt);
/* How dt is loaded and stored. */
kit_ls kit_load_store(clops_dtype dt);

/* Appends the load of element idx of ptr as a number (compute type):
 * vload_half(0, ptr + idx), clops_bf16_to_float(ptr[idx]) or ptr[idx]. */
void kit_cl_load(strbuf *sb, clops_dtype dt, const char *ptr, const char *idx);
/* Appends the store of val into element idx of ptr (no semicolon). */
void kit_cl_store(strbuf *sb, clops_dtype dt, const char *ptr, const char *idx, const char *val);
/* Appends an n-wide load at address `at` as compute-type lanes (float##n
 * for the 16-bit floats, storage##n otherwise). */
void kit_cl_vload(strbuf *sb, clops_dtype dt, int n, const char *at);

/* ---- the program assembler (ops/kit/program.c) --------------------------- */

/*
 * A family program, assembled in this order:
 *   the title (a comment line), the prelude (cl_kernels/pw_prelude.clh:
 *   dtype helpers, CLOPS_LD/CLOPS_ST) unless bare, the headers, what
 *   write() appends (the family's #defines, or a generated family's whole
 *   body), then the family's cl_kernels/ file: once, or with copies > 0
 *   once per i < copies for which copy() appended that copy's #defines
 *   and returned true (reduce: one copy of reduce.cl per kind).
 * Each cl_kernels/ text starts with a #line marker naming it, so compiler
 * messages point into the right file.  Kernels that share a program name
 * are built together; its source must be the same whichever kernel asked
 * first (the disk cache sees one program).
 */
typedef struct kit_program {
    const char *name;        /* "reduce/float32": dumps, errors, cache */
    const char *title;       /* NULL: none */
    bool bare;               /* without the prelude */
    const char *headers[4];  /* cl_kernels/ headers, NULL-terminated */
    clops_status (*write)(const void *ctx, const clops_device *d, strbuf *sb);
    const char *file;        /* cl_kernels/<file>; NULL: none */
    int copies;
    bool (*copy)(const void *ctx, int i, strbuf *sb);
    const void *ctx;
    const char *build_options; /* after host_build_options' defaults */
    const char *ptx_target;    /* NULL, or the PTX route's target (host_kernel_request) */
    /* NULL, or the routed entry's performance directives (with ptx_target
     * only; host_kernel_request.ptx_entry_directives) */
    const char *ptx_entry_directives;
} kit_program;

/* The whole source of p for device d into sb. */
clops_status kit_program_source(const kit_program *p, const clops_device *d, strbuf *sb);

/* The cached kernel of key (NULL on a miss: describe the program and call
 * kit_build; names are only formatted on a miss). */
static inline host_kernel *kit_find(clops_device *d, const host_kkey *key)
{
    return host_kernel_lookup(d, key);
}
/* Builds (or loads from the disk cache) program p and returns its kernel
 * `kernel` under key.  Errors are prefixed with op when op is not NULL.
 * Two different kernels must never share a key. */
clops_status kit_build(clops_device *d, const host_kkey *key, const kit_program *p,
                       const char *kernel, const char *op, host_kernel **out);
/* CLOPS_UNSUPPORTED naming op, kernel and device when k cannot run
 * work-groups of exactly wg items (kernels with reqd_work_group_size or
 * local arrays sized by it); CLOPS_OK when it can or wg <= 0. */
clops_status kit_need_wg(const host_kernel *k, int64_t wg, const clops_device *d,
                         const char *op);
/* kit_find, kit_build on a miss, then kit_need_wg(wg). */
clops_status kit_kernel(clops_device *d, const host_kkey *key, const kit_program *p,
                        const char *kernel, int64_t wg, const char *op, host_kernel **out);

/* ---- the device-kind seam (ops/kit/kind.c) ------------------------------- */

/*
 * The kind of device a call runs on; a family's plan and launch differ by
 * kind, and only the kit tells kinds apart:
 *   KIT_HOST  clops' own CPU device: buffers in host memory, the C loops
 *             of the family's reference path;
 *   KIT_CPU   a CPU-like OpenCL device (POCL, CPU drivers: d->chunked):
 *             work items of one walking contiguous chunks, the _cpu
 *             kernels, few programs (every build costs a compile per
 *             kernel);
 *   KIT_GPU   any other OpenCL device: work-groups, local memory,
 *             grid-stride loops;
 *   KIT_MMA   a GPU with matrix units a family may target: NVIDIA with
 *             compute capability >= 8.0 (mma.sync; later Intel DPAS, AMD
 *             MFMA behind their own probes); a family without a launch for
 *             it runs its KIT_GPU launch.
 */
typedef enum kit_kind { KIT_HOST, KIT_CPU, KIT_GPU, KIT_MMA, KIT_KIND_COUNT } kit_kind;

static inline kit_kind kit_kind_of(const clops_device *d)
{
    if (host_is_cpu(d))
        return KIT_HOST;
    if (d->chunked)
        return KIT_CPU;
    /* NVIDIA's mma.sync needs compute capability 8.0 (host/device.c reads
     * it through cl_nv_device_attribute_query); a family still checks its
     * own matrix-unit kernels once (the GEMM engine's known-answer check). */
    return d->info.vendor == CLOPS_VENDOR_NVIDIA && d->nv_cc_major >= 8 ? KIT_MMA : KIT_GPU;
}

/* Whether d runs OpenCL C of the CPU-like kind (the _cpu kernels). */
static inline bool kit_is_cpu(const clops_device *d)
{
    return kit_kind_of(d) == KIT_CPU;
}
/* Whether d is clops' own CPU device (no OpenCL). */
static inline bool kit_is_host(const clops_device *d)
{
    return kit_kind_of(d) == KIT_HOST;
}

/*
 * A family's launches, one per device kind, over its plan (the family's
 * own struct).  kit_run picks the launch of d's kind; a missing one falls
 * back KIT_MMA -> KIT_GPU and KIT_CPU -> KIT_GPU (the GPU kernels run on
 * every OpenCL device); a missing KIT_HOST or KIT_GPU launch is an error
 * naming the family and the device.
 */
typedef clops_status (*kit_launch)(void *plan);
typedef struct kit_launches {
    const char *family;
    kit_launch by_kind[KIT_KIND_COUNT];
} kit_launches;

/* The launch kit_run would pick for d (NULL when there is none). */
kit_launch kit_pick(const kit_launches *l, const clops_device *d);
clops_status kit_run(const kit_launches *l, clops_device *d, void *plan);

#endif /* CLOPS_OPS_KIT_H */
