/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench/probe_tma_ptx.h: the PTX kernels of bench/probe_tma.c, one program
 * each (a kernel the driver refuses leaves the others), for `.target
 * sm_90a`, loaded by NVIDIA's OpenCL with clCreateProgramWithBinary (the
 * PTX route of host/program.c, written by hand here: OpenCL C cannot spell
 * a cluster, an mbarrier's transaction count or a tensor map).
 *
 * A kernel parameter for a cl_mem is the buffer's address as OpenCL's own
 * PTX receives it (`.ptr .global`); `cvta.to.global` makes it a global
 * address for st.global and tensormap.cp_fenceproxy, and it is used as it
 * is where PTX wants a generic address (the tensor map of
 * cp.async.bulk.tensor, fence.proxy.tensormap).  Each is checked in
 * assembly by `probe_tma --dump-ptx DIR` and ptxas -arch=sm_90a.
 */
#ifndef CLOPS_BENCH_PROBE_TMA_PTX_H
#define CLOPS_BENCH_PROBE_TMA_PTX_H

#define PTX_HEAD ".version 8.3\n.target sm_90a\n.address_size 64\n"

/* out[0] = a as received, out[1] = b, out[2] = cvta.to.global(a),
 * out[3] = cvta.global(a); out[4] = the 64-bit word at the address `raw`
 * (a scalar, not a buffer) read with ld.global. */
static const char ptx_addr[] = PTX_HEAD
    ".visible .entry probe_addr(\n"
    "  .param .u64 .ptr .global .align 8 out,\n"
    "  .param .u64 .ptr .global .align 8 a,\n"
    "  .param .u64 .ptr .global .align 8 b,\n"
    "  .param .u64 raw)\n"
    ".reqntid 1, 1, 1\n"
    "{\n"
    "  .reg .pred %p<2>;\n"
    "  .reg .b64 %rd<12>;\n"
    "  ld.param.u64 %rd1, [out];\n"
    "  ld.param.u64 %rd2, [a];\n"
    "  ld.param.u64 %rd3, [b];\n"
    "  ld.param.u64 %rd4, [raw];\n"
    "  cvta.to.global.u64 %rd5, %rd1;\n"
    "  cvta.to.global.u64 %rd6, %rd2;\n"
    "  cvta.global.u64 %rd7, %rd2;\n"
    "  st.global.u64 [%rd5], %rd2;\n"
    "  st.global.u64 [%rd5+8], %rd3;\n"
    "  st.global.u64 [%rd5+16], %rd6;\n"
    "  st.global.u64 [%rd5+24], %rd7;\n"
    "  setp.eq.u64 %p1, %rd4, 0;\n"
    "  @%p1 bra DONE;\n"
    "  ld.global.u64 %rd8, [%rd4];\n"
    "  st.global.u64 [%rd5+32], %rd8;\n"
    "DONE:\n"
    "  ret;\n"
    "}\n";

/* The copy-out tail shared by the tile kernels: every item copies 16-byte
 * pieces of `tile` (%r5: its __local address, %r4: bytes) to out (%rd2,
 * generic) + %rd9 (bytes), item %r1, %r30 items. */
#define PTX_COPY_OUT                                                                        \
    "  cvta.to.global.u64 %rd2, %rd2;\n"                                                    \
    "  add.u64 %rd2, %rd2, %rd9;\n"                                                         \
    "  shl.b32 %r7, %r1, 4;\n"                                                              \
    "  shl.b32 %r31, %r30, 4;\n"                                                            \
    "COPY:\n"                                                                               \
    "  setp.ge.u32 %p3, %r7, %r4;\n"                                                        \
    "  @%p3 bra COPIED;\n"                                                                  \
    "  add.u32 %r8, %r5, %r7;\n"                                                            \
    "  ld.shared.v4.u32 {%r10, %r11, %r12, %r13}, [%r8];\n"                                 \
    "  cvt.u64.u32 %rd4, %r7;\n"                                                            \
    "  add.u64 %rd5, %rd2, %rd4;\n"                                                         \
    "  st.global.v4.u32 [%rd5], {%r10, %r11, %r12, %r13};\n"                                \
    "  add.u32 %r7, %r7, %r31;\n"                                                           \
    "  bra COPY;\n"                                                                         \
    "COPIED:\n"

/* The box kernels' parameters (the map, out, the box's coordinates and
 * bytes) and the start of their body: __local tile and mbarrier,
 * registers, %r1 the item, %r30 the items, %rd1 map, %rd2 out, %r2 / %r3
 * the coordinates, %r4 the bytes. */
#define PTX_BOX_PARAMS                                                                      \
    "  .param .u64 .ptr .global .align 64 map,\n"                                           \
    "  .param .u64 .ptr .global .align 16 out,\n"                                           \
    "  .param .u32 c0, .param .u32 c1, .param .u32 nbytes)\n"
#define PTX_BOX_HEAD                                                                        \
    "{\n"                                                                                   \
    "  .shared .align 1024 .b8 tile[16384];\n"                                              \
    "  .shared .align 8 .b64 bar;\n"                                                        \
    "  .reg .pred %p<8>;\n"                                                                 \
    "  .reg .b16 %rs<4>;\n"                                                                 \
    "  .reg .b32 %r<40>;\n"                                                                 \
    "  .reg .b64 %rd<20>;\n"                                                                \
    "  mov.u32 %r1, %tid.x;\n"                                                              \
    "  mov.u32 %r30, %ntid.x;\n"                                                            \
    "  ld.param.u64 %rd1, [map];\n"                                                         \
    "  ld.param.u64 %rd2, [out];\n"                                                         \
    "  ld.param.u32 %r2, [c0];\n"                                                           \
    "  ld.param.u32 %r3, [c1];\n"                                                           \
    "  ld.param.u32 %r4, [nbytes];\n"

/* %r5 / %r6: the tile's and the mbarrier's __local addresses; item 0
 * initialises the mbarrier (one arrival) and jumps to INITED, the others
 * jump there at once (%p1: not item 0). */
#define PTX_BOX_BAR                                                                         \
    "  mov.u32 %r5, tile;\n"                                                                \
    "  mov.u32 %r6, bar;\n"                                                                 \
    "  setp.ne.u32 %p1, %r1, 0;\n"                                                          \
    "  @%p1 bra INITED;\n"                                                                  \
    "  mbarrier.init.shared::cta.b64 [%r6], 1;\n"                                           \
    "  fence.mbarrier_init.release.cluster;\n"

/* One box through the tensor map at `map` (a buffer the host wrote) into
 * __local memory, waited for on an mbarrier, copied out as it lies. */
static const char ptx_load[] = PTX_HEAD
    ".visible .entry probe_tma_load(\n"
    PTX_BOX_PARAMS
    ".reqntid 128, 1, 1\n"
    PTX_BOX_HEAD
    "  mov.u64 %rd9, 0;\n"
    PTX_BOX_BAR
    "INITED:\n"
    "  bar.sync 0;\n"
    "  @%p1 bra WAIT;\n"
    "  fence.proxy.tensormap::generic.acquire.gpu [%rd1], 128;\n"
    "  mbarrier.arrive.expect_tx.shared::cta.b64 %rd3, [%r6], %r4;\n"
    "  cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
    " [%r5], [%rd1, {%r2, %r3}], [%r6];\n"
    "WAIT:\n"
    "  mbarrier.try_wait.parity.shared::cta.b64 %p2, [%r6], 0;\n"
    "  @!%p2 bra WAIT;\n" PTX_COPY_OUT "  ret;\n"
    "}\n";

/*
 * The tensor map made on the device: 32 items copy a 128-byte object into
 * __local memory (mode & 1 clear: the host's template; set: zeros), item 0
 * rewrites fields with tensormap.replace (mode 0: global_address only;
 * mode 1: every field, values from fields[]: rank, box 0, box 1, dim 0,
 * dim 1, stride 1 (bytes), element strides 0 and 1, swizzle mode), the
 * warp copies it to dst with tensormap.cp_fenceproxy (release, gpu), and
 * item 0 acquires it (fence.proxy.tensormap) and loads one box through it
 * as probe_tma_load does (mode & 4: not; the map only).
 */
static const char ptx_patch[] = PTX_HEAD
    ".visible .entry probe_tma_patch(\n"
    "  .param .u64 .ptr .global .align 16 tmpl,\n"
    "  .param .u64 .ptr .global .align 64 dst,\n"
    "  .param .u64 .ptr .global .align 16 out,\n"
    "  .param .u64 .ptr .global .align 8 fields,\n"
    "  .param .u64 newaddr,\n"
    "  .param .u32 c0, .param .u32 c1, .param .u32 nbytes, .param .u32 mode)\n"
    ".reqntid 32, 1, 1\n"
    "{\n"
    "  .shared .align 1024 .b8 tile[16384];\n"
    "  .shared .align 128 .b8 tm[128];\n"
    "  .shared .align 8 .b64 bar;\n"
    "  .reg .pred %p<12>;\n"
    "  .reg .b32 %r<48>;\n"
    "  .reg .b64 %rd<24>;\n"
    "  mov.u32 %r1, %tid.x;\n"
    "  mov.u32 %r30, %ntid.x;\n"
    "  ld.param.u64 %rd10, [tmpl];\n"
    "  ld.param.u64 %rd1, [dst];\n"
    "  ld.param.u64 %rd2, [out];\n"
    "  ld.param.u64 %rd11, [fields];\n"
    "  ld.param.u64 %rd12, [newaddr];\n"
    "  ld.param.u32 %r2, [c0];\n"
    "  ld.param.u32 %r3, [c1];\n"
    "  ld.param.u32 %r4, [nbytes];\n"
    "  ld.param.u32 %r20, [mode];\n"
    "  mov.u64 %rd9, 0;\n"
    "  mov.u32 %r5, tile;\n"
    "  mov.u32 %r6, bar;\n"
    "  mov.u32 %r21, tm;\n"
    "  cvta.to.global.u64 %rd10, %rd10;\n"
    "  cvta.to.global.u64 %rd11, %rd11;\n"
    "  cvta.to.global.u64 %rd13, %rd1;\n"
    "  setp.ne.u32 %p1, %r1, 0;\n"
    "  setp.ge.u32 %p4, %r1, 8;\n"
    "  @%p4 bra STAGED;\n"
    "  mov.u32 %r10, 0;\n"
    "  mov.u32 %r11, 0;\n"
    "  mov.u32 %r12, 0;\n"
    "  mov.u32 %r13, 0;\n"
    "  and.b32 %r24, %r20, 1;\n"
    "  setp.ne.u32 %p5, %r24, 0;\n"
    "  mul.wide.u32 %rd14, %r1, 16;\n"
    "  add.u64 %rd15, %rd10, %rd14;\n"
    "  @!%p5 ld.global.v4.u32 {%r10, %r11, %r12, %r13}, [%rd15];\n"
    "  shl.b32 %r22, %r1, 4;\n"
    "  add.u32 %r22, %r21, %r22;\n"
    "  st.shared.v4.u32 [%r22], {%r10, %r11, %r12, %r13};\n"
    "STAGED:\n"
    "  bar.sync 0;\n"
    "  @%p1 bra REPLACED;\n"
    "  and.b32 %r24, %r20, 1;\n"
    "  setp.eq.u32 %p5, %r24, 0;\n"
    "  @%p5 bra ADDRESS;\n"
    "  ld.global.u32 %r23, [%rd11];\n"
    "  tensormap.replace.tile.rank.shared::cta.b1024.b32 [%r21], %r23;\n"
    "  ld.global.u32 %r23, [%rd11+8];\n"
    "  tensormap.replace.tile.box_dim.shared::cta.b1024.b32 [%r21], 0, %r23;\n"
    "  ld.global.u32 %r23, [%rd11+16];\n"
    "  tensormap.replace.tile.box_dim.shared::cta.b1024.b32 [%r21], 1, %r23;\n"
    "  ld.global.u32 %r23, [%rd11+24];\n"
    "  tensormap.replace.tile.global_dim.shared::cta.b1024.b32 [%r21], 0, %r23;\n"
    "  ld.global.u32 %r23, [%rd11+32];\n"
    "  tensormap.replace.tile.global_dim.shared::cta.b1024.b32 [%r21], 1, %r23;\n"
    "  ld.global.u64 %rd16, [%rd11+40];\n"
    "  tensormap.replace.tile.global_stride.shared::cta.b1024.b64 [%r21], 0, %rd16;\n"
    "  ld.global.u32 %r23, [%rd11+48];\n"
    "  tensormap.replace.tile.element_stride.shared::cta.b1024.b32 [%r21], 0, %r23;\n"
    "  ld.global.u32 %r23, [%rd11+56];\n"
    "  tensormap.replace.tile.element_stride.shared::cta.b1024.b32 [%r21], 1, %r23;\n"
    "  tensormap.replace.tile.elemtype.shared::cta.b1024.b32 [%r21], 1;\n"
    "  tensormap.replace.tile.interleave_layout.shared::cta.b1024.b32 [%r21], 0;\n"
    "  tensormap.replace.tile.fill_mode.shared::cta.b1024.b32 [%r21], 0;\n"
    "  ld.global.u32 %r23, [%rd11+64];\n"
    "  setp.eq.u32 %p6, %r23, 1;\n"
    "  setp.eq.u32 %p7, %r23, 2;\n"
    "  setp.eq.u32 %p8, %r23, 3;\n"
    "  @%p6 tensormap.replace.tile.swizzle_mode.shared::cta.b1024.b32 [%r21], 1;\n"
    "  @%p7 tensormap.replace.tile.swizzle_mode.shared::cta.b1024.b32 [%r21], 2;\n"
    "  @%p8 tensormap.replace.tile.swizzle_mode.shared::cta.b1024.b32 [%r21], 3;\n"
    "ADDRESS:\n"
    "  tensormap.replace.tile.global_address.shared::cta.b1024.b64 [%r21], %rd12;\n"
    "REPLACED:\n"
    "  bar.sync 0;\n"
    "  tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned"
    " [%rd13], [%r21], 128;\n"
    "  and.b32 %r24, %r20, 4;\n"
    "  setp.ne.u32 %p9, %r24, 0;\n"
    "  @%p9 bra DONE;\n"
    "  @%p1 bra WAIT;\n"
    "  mbarrier.init.shared::cta.b64 [%r6], 1;\n"
    "  fence.mbarrier_init.release.cluster;\n"
    "  fence.proxy.tensormap::generic.acquire.gpu [%rd1], 128;\n"
    "  mbarrier.arrive.expect_tx.shared::cta.b64 %rd3, [%r6], %r4;\n"
    "  cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
    " [%r5], [%rd1, {%r2, %r3}], [%r6];\n"
    "WAIT:\n"
    "  bar.sync 0;\n"
    "WAIT1:\n"
    "  mbarrier.try_wait.parity.shared::cta.b64 %p2, [%r6], 0;\n"
    "  @!%p2 bra WAIT1;\n" PTX_COPY_OUT "DONE:\n  ret;\n"
    "}\n";

/* A cluster of two work-groups asked for in the PTX: out[8 * group ..] =
 * %ctaid.x, %cluster_ctarank, %cluster_nctarank, %clusterid.x,
 * %nclusterid.x, %cluster_ctaid.x, %is_explicit_cluster, 0x600d. */
static const char ptx_cluster[] = PTX_HEAD
    ".visible .entry probe_cluster(\n"
    "  .param .u64 .ptr .global .align 16 out)\n"
    ".reqntid 32, 1, 1\n"
    ".reqnctapercluster 2, 1, 1\n"
    "{\n"
    "  .reg .pred %p<4>;\n"
    "  .reg .b32 %r<16>;\n"
    "  .reg .b64 %rd<8>;\n"
    "  mov.u32 %r1, %tid.x;\n"
    "  setp.ne.u32 %p1, %r1, 0;\n"
    "  @%p1 bra DONE;\n"
    "  ld.param.u64 %rd1, [out];\n"
    "  cvta.to.global.u64 %rd1, %rd1;\n"
    "  mov.u32 %r2, %ctaid.x;\n"
    "  mul.wide.u32 %rd2, %r2, 32;\n"
    "  add.u64 %rd1, %rd1, %rd2;\n"
    "  mov.u32 %r3, %cluster_ctarank;\n"
    "  mov.u32 %r4, %cluster_nctarank;\n"
    "  mov.u32 %r5, %clusterid.x;\n"
    "  mov.u32 %r6, %nclusterid.x;\n"
    "  mov.u32 %r7, %cluster_ctaid.x;\n"
    "  mov.pred %p2, %is_explicit_cluster;\n"
    "  selp.u32 %r8, 1, 0, %p2;\n"
    "  mov.u32 %r9, 0x600d;\n"
    "  st.global.v4.u32 [%rd1], {%r2, %r3, %r4, %r5};\n"
    "  st.global.v4.u32 [%rd1+16], {%r6, %r7, %r8, %r9};\n"
    "DONE:\n"
    "  ret;\n"
    "}\n";

/* TMA multicast in a cluster of two: rank 0 loads one box into both
 * work-groups' __local memory (each signals its own mbarrier); each
 * group copies its copy out at out + group * nbytes. */
static const char ptx_mcast[] = PTX_HEAD
    ".visible .entry probe_tma_mcast(\n"
    PTX_BOX_PARAMS
    ".reqntid 32, 1, 1\n"
    ".reqnctapercluster 2, 1, 1\n"
    PTX_BOX_HEAD
    "  mov.u32 %r14, %ctaid.x;\n"
    "  mul.wide.u32 %rd9, %r14, %r4;\n"
    PTX_BOX_BAR
    "  mbarrier.arrive.expect_tx.shared::cta.b64 %rd3, [%r6], %r4;\n"
    "INITED:\n"
    "  barrier.cluster.arrive.release.aligned;\n"
    "  barrier.cluster.wait.acquire.aligned;\n"
    "  mov.u32 %r15, %cluster_ctarank;\n"
    "  setp.ne.or.u32 %p4, %r15, 0, %p1;\n"
    "  @%p4 bra WAIT;\n"
    "  fence.proxy.tensormap::generic.acquire.gpu [%rd1], 128;\n"
    "  mov.u16 %rs1, 3;\n"
    "  cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster"
    " [%r5], [%rd1, {%r2, %r3}], [%r6], %rs1;\n"
    "WAIT:\n"
    "  mbarrier.try_wait.parity.shared::cta.b64 %p2, [%r6], 0;\n"
    "  @!%p2 bra WAIT;\n" PTX_COPY_OUT
    "  barrier.cluster.arrive.release.aligned;\n"
    "  barrier.cluster.wait.acquire.aligned;\n"
    "  ret;\n"
    "}\n";

/*
 * The copy engine alone: the A and B tiles of a GEMM's K loop through TMA,
 * no products.  Work-group g (32 items, item 0 working) takes the 128 x
 * 128 blocks g, g + groups, ... (persistent: groups = units x a factor);
 * each K tile of depth bk is one box of A (bk x 128, map a) and one of B
 * (map b) into a ring of `stages` slots of 512 * bk bytes, one mbarrier a
 * slot; a slot is refilled once its last load has landed.  out[g]: the
 * first word of slot 0 (the data arrived).
 */
static const char ptx_stream[] = PTX_HEAD
    ".visible .entry probe_tma_stream(\n"
    "  .param .u64 .ptr .global .align 64 mapa,\n"
    "  .param .u64 .ptr .global .align 64 mapb,\n"
    "  .param .u64 .ptr .global .align 4 out,\n"
    "  .param .u32 mblocks, .param .u32 nblocks, .param .u32 ktiles,\n"
    "  .param .u32 bk, .param .u32 stages)\n"
    ".reqntid 32, 1, 1\n"
    "{\n"
    "  .shared .align 1024 .b8 buf[40960];\n"
    "  .shared .align 8 .b64 bars[8];\n"
    "  .reg .pred %p<8>;\n"
    "  .reg .b32 %r<40>;\n"
    "  .reg .b64 %rd<20>;\n"
    "  mov.u32 %r1, %tid.x;\n"
    "  setp.ne.u32 %p1, %r1, 0;\n"
    "  @%p1 bra END;\n"
    "  ld.param.u64 %rd1, [mapa];\n"
    "  ld.param.u64 %rd2, [mapb];\n"
    "  ld.param.u32 %r2, [mblocks];\n"
    "  ld.param.u32 %r3, [nblocks];\n"
    "  ld.param.u32 %r4, [ktiles];\n"
    "  ld.param.u32 %r5, [bk];\n"
    "  ld.param.u32 %r6, [stages];\n"
    "  mov.u32 %r7, buf;\n"
    "  mov.u32 %r8, bars;\n"
    "  shl.b32 %r9, %r5, 8;\n"
    "  shl.b32 %r10, %r5, 9;\n"
    "  mov.u32 %r11, 0;\n"
    "INIT:\n"
    "  setp.ge.u32 %p2, %r11, %r6;\n"
    "  @%p2 bra INITD;\n"
    "  shl.b32 %r12, %r11, 3;\n"
    "  add.u32 %r12, %r8, %r12;\n"
    "  mbarrier.init.shared::cta.b64 [%r12], 1;\n"
    "  add.u32 %r11, %r11, 1;\n"
    "  bra INIT;\n"
    "INITD:\n"
    "  fence.mbarrier_init.release.cluster;\n"
    "  fence.proxy.tensormap::generic.acquire.gpu [%rd1], 128;\n"
    "  fence.proxy.tensormap::generic.acquire.gpu [%rd2], 128;\n"
    "  mul.lo.u32 %r13, %r2, %r3;\n"
    "  mov.u32 %r14, %ctaid.x;\n"
    "  mov.u32 %r15, 0;\n"
    "BLK:\n"
    "  setp.ge.u32 %p3, %r14, %r13;\n"
    "  @%p3 bra DRAIN;\n"
    "  rem.u32 %r16, %r14, %r2;\n"
    "  shl.b32 %r16, %r16, 7;\n"
    "  div.u32 %r17, %r14, %r2;\n"
    "  shl.b32 %r17, %r17, 7;\n"
    "  mov.u32 %r18, 0;\n"
    "KT:\n"
    "  setp.ge.u32 %p4, %r18, %r4;\n"
    "  @%p4 bra KTD;\n"
    "  rem.u32 %r19, %r15, %r6;\n"
    "  shl.b32 %r20, %r19, 3;\n"
    "  add.u32 %r20, %r8, %r20;\n"
    "  setp.lt.u32 %p5, %r15, %r6;\n"
    "  @%p5 bra ISSUE;\n"
    "  div.u32 %r21, %r15, %r6;\n"
    "  sub.u32 %r21, %r21, 1;\n"
    "  and.b32 %r21, %r21, 1;\n"
    "W1:\n"
    "  mbarrier.try_wait.parity.shared::cta.b64 %p6, [%r20], %r21;\n"
    "  @!%p6 bra W1;\n"
    "ISSUE:\n"
    "  mbarrier.arrive.expect_tx.shared::cta.b64 %rd3, [%r20], %r10;\n"
    "  mul.lo.u32 %r22, %r19, %r10;\n"
    "  add.u32 %r22, %r7, %r22;\n"
    "  add.u32 %r23, %r22, %r9;\n"
    "  mul.lo.u32 %r24, %r18, %r5;\n"
    "  cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
    " [%r22], [%rd1, {%r24, %r16}], [%r20];\n"
    "  cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
    " [%r23], [%rd2, {%r24, %r17}], [%r20];\n"
    "  add.u32 %r15, %r15, 1;\n"
    "  add.u32 %r18, %r18, 1;\n"
    "  bra KT;\n"
    "KTD:\n"
    "  mov.u32 %r25, %nctaid.x;\n"
    "  add.u32 %r14, %r14, %r25;\n"
    "  bra BLK;\n"
    "DRAIN:\n"
    "  sub.u32 %r26, %r15, %r6;\n"
    "  setp.lt.u32 %p7, %r15, %r6;\n"
    "  selp.u32 %r26, 0, %r26, %p7;\n"
    "DL:\n"
    "  setp.ge.u32 %p2, %r26, %r15;\n"
    "  @%p2 bra DD;\n"
    "  rem.u32 %r19, %r26, %r6;\n"
    "  shl.b32 %r20, %r19, 3;\n"
    "  add.u32 %r20, %r8, %r20;\n"
    "  div.u32 %r21, %r26, %r6;\n"
    "  and.b32 %r21, %r21, 1;\n"
    "W2:\n"
    "  mbarrier.try_wait.parity.shared::cta.b64 %p6, [%r20], %r21;\n"
    "  @!%p6 bra W2;\n"
    "  add.u32 %r26, %r26, 1;\n"
    "  bra DL;\n"
    "DD:\n"
    "  ld.param.u64 %rd4, [out];\n"
    "  cvta.to.global.u64 %rd4, %rd4;\n"
    "  mov.u32 %r27, %ctaid.x;\n"
    "  mul.wide.u32 %rd5, %r27, 4;\n"
    "  add.u64 %rd4, %rd4, %rd5;\n"
    "  ld.shared.u32 %r28, [%r7];\n"
    "  st.global.u32 [%rd4], %r28;\n"
    "END:\n"
    "  ret;\n"
    "}\n";

#endif
