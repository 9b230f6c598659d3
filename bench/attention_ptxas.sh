#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# bench/attention_ptxas.sh: registers and spills of attention's tensor-core
# kernels without a GPU: clang (OpenCL C -> NVPTX, with libclc's builtins)
# and CUDA's ptxas for sm_90, for each program (ATTN_MMA 1 forward, 2
# dK/dV + fold, 3 dQ) and padded head dim, with the driver's directives
# and with the PTX route's occupancy requests (.minnctapersm c, as
# ops/attention/attention.c writes them).  Clang's PTX is not NVIDIA's
# driver's: on 2026-11-28 it gave the forward 156 registers at head dim 64
# (the driver's build: 160-168) and 52 bytes of spills under a cap of 128
# (the driver's routed build: 12), 264 at 128 (the driver's: 392) — a
# guide for where registers go, not the figure.  Run from the repository
# root on a machine with clang, llvm-link/opt/llc of one LLVM version,
# libclc's nvptx64--nvidiacl.bc ($CLC, default: unpacked from Debian's
# libclc-14 into /tmp/attn-ptxas/clc by `apt-get download`) and ptxas
# ($PTXAS, default: on PATH or /usr/local/cuda/bin).  Arguments: the
# programs (default "1 2 3") and head dims (default "64 128") as
# PROGS=... DIMS=... in the environment; bfloat16.  XM=0 (the default)
# compiles the lean programs (ATTN_XM 0: no boolean/additive mask or
# dropout, what GPT-2 and Llama run), XM=1 the general ones (main's
# kernels before the lean programs); W=... a work folder of one's own
# (default /tmp/attn-ptxas); TY=f16 the float16 products (default bf16).
# PROGS=4: the wgmma forward (attn_fwd_wg, 256 items; WBK=... its key tile,
# default 64 at head dim 64, 48 at 128), assembled as the PTX route does:
# "//@" removed, target sm_90a (c = 1: the driver's directives kept).
# WGN=...: attn_fwd_wg's warpgroups a work-group (CLOPS_ATTN_WG_N; default 2).
# PROGS=5: the wgmma dK/dV (attn_bwd_dkv_wg, 128 items), the same way;
# PROGS=6 the wgmma dQ (attn_bwd_dq_wg, 128 items; EXTRA='#define WK 64'
# its key tile, default 32).
set -eu
W=${W:-/tmp/attn-ptxas}
mkdir -p "$W"
PTXAS=${PTXAS:-$(command -v ptxas || echo /usr/local/cuda/bin/ptxas)}
CLC=${CLC:-$W/clc/usr/lib/clc/nvptx64--nvidiacl.bc}
if [ ! -f "$CLC" ]; then
    (cd "$W" && apt-get download libclc-14 >/dev/null 2>&1 && dpkg -x libclc-14_*.deb clc)
fi
# the occupancy requests of each program's kernel: work items, then c
declare -A NT=([1]=${FWD_NT:-256} [2]=${DKV_NT:-128} [3]=${DQ_NT:-256} [4]=$((128 * ${WGN:-2})) [5]=128 [6]=128 [7]=128) ENTRY=([1]=attn_fwd_mma [2]=attn_bwd_dkv_mma [3]=attn_bwd_dq_mma [4]=attn_fwd_wg [5]=attn_bwd_dkv_wg [6]=attn_bwd_dq_wg [7]=attn_fwd_tf32)
for m in ${PROGS:-1 2 3}; do
    for d in ${DIMS:-64 128}; do
        s=$W/src_${m}_$d.cl
        {
            cat cl_kernels/pw_prelude.clh ref/random_math.clh cl_kernels/mma.clh
            [ "$m" -ge 4 ] && cat cl_kernels/wgmma.clh cl_kernels/wgmma_attn.clh
            [ "$m" = 4 ] && printf '#define WBK %d\n#define WGN %d\n' "${WBK:-$([ "$d" = 64 ] && echo 64 || echo 48)}" "${WGN:-2}"
            printf '#define T ushort\n#define KIND 2\n#define D %d\n#define BQ 16\n' "$d"
            printf '#define BK 16\n#define BT 16\n#define NT 128\n#define ATTN_MMA %d\n' "$m"
            printf '#define MMA_TY "%s"\n#define MR %d\n' "${TY:-bf16}" "${MR:-1}"
            # further defines, e.g. EXTRA='#define MW 4' (with FWD_NT=128)
            [ -n "${EXTRA:-}" ] && printf '%s\n' "$EXTRA"
            # native_exp2 as ex2.approx (libclc lowers it to an exp2f call)
            printf 'static inline float attn_ex2(float x) { float r; '
            printf '__asm__("ex2.approx.f32 %%0, %%1;" : "=f"(r) : "f"(x)); return r; }\n'
            printf '#define native_exp2 attn_ex2\n'
            printf "#define ATTN_XM %d\n" "$([ "$m" -ge 4 ] && echo 0 || echo "${XM:-0}")"
            cat cl_kernels/attention_vis.clh cl_kernels/attention.cl
        } >"$s"
        # __OPENCL_VERSION__, asm and the half conversions of the prelude
        # (unused by these kernels) as clang 14's NVPTX OpenCL needs them
        clang -x cl -cl-std=CL1.2 -target nvptx64-nvidia-nvcl -Xclang -finclude-default-header \
            -D__OPENCL_VERSION__=120 -Dasm=__asm__ \
            "-Dvstore_half_rte(f,o,p)=(*(__private ushort*)(p)=as_uint(f)>>16)" \
            "-Dvload_half(o,p)=as_float((uint)*(__private const ushort*)(p)<<16)" \
            -O3 -march=sm_80 -emit-llvm -c -o "$W/k.bc" "$s"
        llvm-link "$W/k.bc" "$CLC" -o "$W/kl.bc" 2>/dev/null
        opt -O3 "$W/kl.bc" -o "$W/klo.bc"
        llc -march=nvptx64 -mcpu=sm_80 -O3 "$W/klo.bc" -o "$W/k.ptx"
        for c in 1 2 3 4; do
            dir=".reqntid ${NT[$m]}, 1, 1"
            [ $c -gt 1 ] && dir="$dir
.minnctapersm $c"
            python3 - "$W/k.ptx" "${ENTRY[$m]}" "$dir" >"$W/p.ptx" <<'PY'
import sys
f, k, d = sys.argv[1:4]
t = open(f).read().replace(".version 7.0", ".version 8.0")
t = t.replace(".target sm_80", ".target sm_90a" if k.endswith("_wg") else ".target sm_90").replace("//@", "")
i = t.index(".entry " + k + "(")
j = t.index("\n)", i) + 1
j = t.index("\n", j) + 1
print(t[:j] + d + "\n" + t[j:])
PY
            arch=sm_90
            [ "$m" -ge 4 ] && arch=sm_90a
            [ "$m" -ge 4 ] && [ $c -gt ${WG_CMAX:-2} ] && continue
            cp "$W/p.ptx" "$W/p_${m}_${d}_$c.ptx"
            r=$("$PTXAS" -arch=$arch -v "$W/p.ptx" -o "$W/p.cubin" 2>&1 |
                grep -A3 "entry function '${ENTRY[$m]}'" | grep -oE "[0-9]+ bytes spill stores|Used [0-9]+ registers" |
                tr '\n' ' ')
            echo "${ENTRY[$m]} d$d ${c} per SM: $r"
        done
    done
done
