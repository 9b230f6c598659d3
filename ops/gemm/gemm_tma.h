/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ops/gemm/gemm_tma.h: the fields of a two-dimensional tiled tensor map
 * (Hopper's tensor-memory accelerator: CUDA's CUtensorMap as
 * cuTensorMapEncodeTiled encodes it, PTX's `tensormap.replace` fields) for
 * one GEMM operand, and the conditions under which one exists.
 *
 * An operand tile of a wgmma kernel is a box of `box_inner` elements along
 * the operand's unit-stride dimension by `box_outer` along the other; the
 * box's inner bytes pick the swizzle that writes wgmma's canonical layout
 * (docs/gemm.md, "Hopper: gemm_wgmma"): 32 bytes the 32-byte swizzle, 64
 * bytes the 64-byte swizzle (chunk c of row r at c ^ ((r >> 1) & 3)), 128
 * bytes the 128-byte swizzle (chunk c of row r at c ^ (r & 7)).  Elements
 * past the tensor's edges arrive as zeros.
 *
 * Host logic (no OpenCL): ops/gemm/gemm_engine.c plans the maps of its
 * "-tma" configurations with it and encodes their templates, bench/
 * probe_tma.c its probes' maps; tests/test_gemm_engine.c checks the fields
 * on every device.
 */
#ifndef CLOPS_OPS_GEMM_TMA_H
#define CLOPS_OPS_GEMM_TMA_H

#include <stdbool.h>
#include <stdint.h>

/* The swizzle modes, numbered as CU_TENSOR_MAP_SWIZZLE_* and PTX's
 * tensormap swizzle_mode field. */
enum { GEMM_TMA_SWIZZLE_NONE = 0, GEMM_TMA_SWIZZLE_32B = 1, GEMM_TMA_SWIZZLE_64B = 2, GEMM_TMA_SWIZZLE_128B = 3 };

typedef struct gemm_tma_map2d {
    uint64_t addr;        /* the device address of element (0, 0) */
    uint64_t gdim[2];     /* elements: [0] along the unit stride, [1] the other */
    uint64_t gstride;     /* bytes from one index of dimension 1 to the next */
    uint32_t box[2];      /* the box, elements, in the same order */
    uint32_t elem_bytes;  /* 1, 2, 4 or 8 */
    uint32_t swizzle;     /* GEMM_TMA_SWIZZLE_* */
    uint32_t box_bytes;   /* one box's bytes in __local memory */
    uint32_t smem_align;  /* the alignment the box's __local destination needs */
    uint32_t tf32;        /* 4-byte elements: float32 the copy converts to TF32 (set after
                             planning; engine13, the "high" default since engine14) */
} gemm_tma_map2d;

/*
 * Fills *m for a matrix of `outer` rows of `inner` elements of elem_bytes
 * each, row r starting stride_elems elements after row r - 1, at device
 * address addr, read in boxes of box_inner x box_outer elements with the
 * swizzle that box_inner's bytes select (32, 64 or 128 bytes; `swizzle`
 * false: none, inner bytes a multiple of 16).  Returns NULL, or why no
 * tensor map can describe it (a sentence naming the value): an address not
 * 16-byte aligned, a row stride not a multiple of 16 bytes or of 2^40 bytes
 * or more, a dimension of 0 or above 2^32, a box dimension of 0 or above
 * 256, inner bytes no swizzle takes.  The caller falls back to cp.async.
 */
const char *gemm_tma_map2d_plan(gemm_tma_map2d *m, uint64_t addr, uint64_t inner, uint64_t outer,
                                uint64_t stride_elems, uint32_t elem_bytes, uint32_t box_inner,
                                uint32_t box_outer, int swizzle);

/* The byte offset, in a box's __local copy, of the 16-byte chunk `chunk`
 * of box row `row` (the swizzle's permutation; the layout the wgmma
 * descriptors of docs/gemm.md read). */
uint32_t gemm_tma_chunk_offset(const gemm_tma_map2d *m, uint32_t row, uint32_t chunk);

/*
 * Encodes m as a CUtensorMap of unsigned elements of m->elem_bytes (the
 * copy engine moves bits; with m->tf32, CU_TENSOR_MAP_DATA_TYPE_TFLOAT32:
 * float32 converted to TF32 on the copy, to nearest with ties to even on
 * the H200 (engine14), as CUTLASS's Hopper TF32 kernels load float32) into
 * out (128 bytes, 64-byte aligned) with libcuda's
 * host-only cuTensorMapEncodeTiled, loaded once with dlopen("libcuda.so.1");
 * where it asks for a CUDA context (it does), the primary context of CUDA's
 * device 0 is retained once and made current on the calling thread (a
 * process with several GPUs would need the OpenCL device's own: since
 * engine11's rule the "-tma" configurations are defaults, not forced only,
 * so that limit is the default path's on such hosts); l2 the L2 promotion
 * (0 none, 3 256 bytes).  False, with nothing written, where there is no
 * libcuda or it refuses (no NVIDIA driver: every POCL machine).
 */
bool gemm_tma_encode(const gemm_tma_map2d *m, int l2, void *out);

#endif
