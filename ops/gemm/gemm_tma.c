/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ops/gemm/gemm_tma.c: a GEMM operand's two-dimensional tensor map, its
 * fields and their limits (ops/gemm/gemm_tma.h).  The limits are those
 * cuTensorMapEncodeTiled documents for a tiled map without interleave.
 */
#include "ops/gemm/gemm_tma.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include <string.h>

const char *gemm_tma_map2d_plan(gemm_tma_map2d *m, uint64_t addr, uint64_t inner, uint64_t outer,
                                uint64_t stride_elems, uint32_t elem_bytes, uint32_t box_inner,
                                uint32_t box_outer, int swizzle)
{
    *m = (gemm_tma_map2d){0};
    if (elem_bytes != 1 && elem_bytes != 2 && elem_bytes != 4 && elem_bytes != 8)
        return "the element size is not 1, 2, 4 or 8 bytes";
    if (addr % 16)
        return "the operand's device address is not a multiple of 16 bytes";
    if (inner == 0 || outer == 0 || inner > (1ull << 32) || outer > (1ull << 32))
        return "a dimension is 0 or above 2^32 elements";
    if (stride_elems < inner)
        return "the row stride is shorter than a row";
    if (stride_elems > (1ull << 40) / elem_bytes)
        return "the row stride is 2^40 bytes or more";
    uint64_t stride = stride_elems * elem_bytes;
    if (stride % 16)
        return "the row stride is not a multiple of 16 bytes";
    if (box_inner == 0 || box_outer == 0 || box_inner > 256 || box_outer > 256)
        return "a box dimension is 0 or above 256";
    uint32_t ib = box_inner * elem_bytes;
    uint32_t sw = GEMM_TMA_SWIZZLE_NONE;
    if (swizzle) {
        if (ib == 32)
            sw = GEMM_TMA_SWIZZLE_32B;
        else if (ib == 64)
            sw = GEMM_TMA_SWIZZLE_64B;
        else if (ib == 128)
            sw = GEMM_TMA_SWIZZLE_128B;
        else
            return "the box's inner bytes are not 32, 64 or 128 (no swizzle takes them)";
    } else if (ib % 16) {
        return "the box's inner bytes are not a multiple of 16";
    }
    m->addr = addr;
    m->gdim[0] = inner;
    m->gdim[1] = outer;
    m->gstride = stride;
    m->box[0] = box_inner;
    m->box[1] = box_outer;
    m->elem_bytes = elem_bytes;
    m->swizzle = sw;
    m->box_bytes = ib * box_outer;
    /* The swizzle permutes address bits 4-6 by bits 7-9 of the absolute
     * __local address: the box must start at a multiple of its repeat
     * (256, 512, 1024 bytes); unswizzled boxes need 128 bytes. */
    m->smem_align = sw == GEMM_TMA_SWIZZLE_NONE ? 128u : 128u << sw;
    return NULL;
}

uint32_t gemm_tma_chunk_offset(const gemm_tma_map2d *m, uint32_t row, uint32_t chunk)
{
    uint32_t ib = m->box[0] * m->elem_bytes;
    uint32_t off = row * ib + chunk * 16;
    if (m->swizzle == GEMM_TMA_SWIZZLE_NONE)
        return off;
    /* Bits 4 .. 3 + sw of the offset XOR'd with bits 7 .. 6 + sw
     * (CUTLASS's Swizzle<sw, 4, 3>): 64-byte rows put chunk c of row r at
     * c ^ ((r >> 1) & 3), 128-byte rows at c ^ (r & 7). */
    uint32_t mask = (1u << m->swizzle) - 1u;
    return off ^ (((off >> 7) & mask) << 4);
}

/* libcuda's entry points (CUDA's driver API, cuda.h: CUresult is an int,
 * the enums ints, cuuint64_t/cuuint32_t the fixed-width types). */
typedef int (*tma_encode_fn)(void *map, int dtype, uint32_t rank, void *addr, const uint64_t *dims,
                             const uint64_t *strides, const uint32_t *box,
                             const uint32_t *estrides, int interleave, int swizzle, int l2,
                             int oobfill);
typedef int (*tma_init_fn)(unsigned flags);
typedef int (*tma_devget_fn)(int *dev, int ordinal);
typedef int (*tma_retain_fn)(void **ctx, int dev);
typedef int (*tma_setcur_fn)(void *ctx);
static tma_encode_fn tma_encode_p;
static tma_init_fn tma_init_p;
static tma_devget_fn tma_devget_p;
static tma_retain_fn tma_retain_p;
static tma_setcur_fn tma_setcur_p;
static pthread_once_t tma_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t tma_lock = PTHREAD_MUTEX_INITIALIZER;
static void *tma_ctx; /* the primary context retained, under tma_lock */

static void tma_load_libcuda(void)
{
    /* (kept loaded for the process: the encoder is called per launch) */
    void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h)
        return;
    tma_encode_p = (tma_encode_fn)(uintptr_t)dlsym(h, "cuTensorMapEncodeTiled");
    tma_init_p = (tma_init_fn)(uintptr_t)dlsym(h, "cuInit");
    tma_devget_p = (tma_devget_fn)(uintptr_t)dlsym(h, "cuDeviceGet");
    tma_retain_p = (tma_retain_fn)(uintptr_t)dlsym(h, "cuDevicePrimaryCtxRetain");
    tma_setcur_p = (tma_setcur_fn)(uintptr_t)dlsym(h, "cuCtxSetCurrent");
}

/* The encoder wants an initialised driver and a current context (engine10's
 * job on the H200: 3, then 201 after cuInit alone): the primary context of
 * CUDA's device 0, retained once, made current on the calling thread. */
static bool tma_context(void)
{
    void *c = NULL;
    pthread_mutex_lock(&tma_lock);
    if (!tma_ctx && tma_init_p && tma_devget_p && tma_retain_p && tma_init_p(0) == 0) {
        int dev = -1;
        if (tma_devget_p(&dev, 0) == 0 && tma_retain_p(&c, dev) == 0)
            tma_ctx = c;
    }
    c = tma_ctx;
    pthread_mutex_unlock(&tma_lock);
    return c && tma_setcur_p && tma_setcur_p(c) == 0;
}

bool gemm_tma_encode(const gemm_tma_map2d *m, int l2, void *out)
{
    pthread_once(&tma_once, tma_load_libcuda);
    if (!tma_encode_p)
        return false;
    uint64_t dims[2] = {m->gdim[0], m->gdim[1]}, strides[1] = {m->gstride};
    uint32_t box[2] = {m->box[0], m->box[1]}, es[2] = {1, 1};
    unsigned char tmp[128] __attribute__((aligned(64)));
    memset(tmp, 0, sizeof tmp);
    /* CU_TENSOR_MAP_DATA_TYPE_UINT8, _UINT16, _UINT32, _UINT64 (0, 1, 2, 4:
     * the copy engine moves bits; float32 as TF32 is rounded in __local
     * memory by the kernel), or _TFLOAT32 (11: the copy converts float32
     * to TF32, m->tf32); 0: no interleave; 0: zeros past the edges
     * (CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE). */
    int ty = m->elem_bytes == 1   ? 0
             : m->elem_bytes == 2 ? 1
             : m->elem_bytes == 4 ? (m->tf32 ? 11 : 2)
                                  : 4;
    int e = tma_encode_p(tmp, ty, 2, (void *)(uintptr_t)m->addr, dims, strides, box, es, 0,
                         (int)m->swizzle, l2, 0);
    /* 3: CUDA_ERROR_NOT_INITIALIZED, 201: CUDA_ERROR_INVALID_CONTEXT */
    if ((e == 3 || e == 201) && tma_context())
        e = tma_encode_p(tmp, ty, 2, (void *)(uintptr_t)m->addr, dims, strides, box, es, 0,
                         (int)m->swizzle, l2, 0);
    if (e != 0)
        return false;
    memcpy(out, tmp, sizeof tmp);
    return true;
}
