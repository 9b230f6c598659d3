/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ops/gemm/gemm_tune_builtin.c: GEMM parameters that `clops tune gemm` found on
 * the GPUs we have measured, shipped with the library so those devices are
 * fast without a search of their own.
 *
 * CLBlast 1.5.3's database has no entry for Hopper GPUs, which then run its
 * generic NVIDIA parameters at about 0.6x PyTorch's float32 GEMM.  A device
 * listed here gets these parameters on its first GEMM unless the user's own
 * tuning file for it exists (that one wins) or CLOPS_GEMM_TUNING=0.  Entries
 * are matched on the exact device name and CLBlast's major.minor version:
 * parameters only change speed, and every set here was checked against a
 * double-precision host product by the search that produced it.  The lines
 * are those of the tuning file the search wrote (see docs/gemm.md).
 */
#include <string.h>

#include "ops/gemm/gemm.h"

typedef struct builtin_entry {
    const char *device;  /* CL_DEVICE_NAME, exact */
    const char *clblast; /* "major.minor" */
    const char *params;  /* "param ..." lines */
    const char *source;  /* where and how they were found */
} builtin_entry;

static const builtin_entry builtins[] = {
    {"NVIDIA H100 80GB HBM3", "1.5",
     "param 32 Xgemm GEMMK=0 KREG=1 KWG=32 KWI=8 MDIMA=32 MDIMC=16 MWG=128 NDIMB=16 NDIMC=16 "
     "NWG=128 SA=1 SB=1 STRM=1 STRN=1 VWM=4 VWN=4\n"
     "param 32 XgemmDirect KWID=8 MDIMAD=16 MDIMCD=8 NDIMBD=16 NDIMCD=8 PADA=1 PADB=1 VWMD=2 "
     "VWND=2 WGD=32\n"
     "param 32 GemmRoutine XGEMM_MIN_INDIRECT_SIZE=1280\n",
     "clops tune gemm (330 s) on an H100, driver 580.159.04, CLBlast 1.5.3; the "
     "direct/indirect switch moved from 2048 to 1280 by bench_gemm --gpt2 "
     "(docs/gemm.md)"},
    {"NVIDIA H200", "1.5",
     "param 32 Xgemm GEMMK=0 KREG=1 KWG=32 KWI=8 MDIMA=16 MDIMC=16 MWG=128 NDIMB=16 NDIMC=16 "
     "NWG=128 SA=1 SB=1 STRM=1 STRN=1 VWM=4 VWN=2\n"
     "param 32 XgemmDirect KWID=8 MDIMAD=16 MDIMCD=16 NDIMBD=32 NDIMCD=8 PADA=1 PADB=1 VWMD=4 "
     "VWND=2 WGD=64\n"
     "param 32 GemmRoutine XGEMM_MIN_INDIRECT_SIZE=2048\n",
     "clops tune gemm (330 s) on an H200, driver 580.159.04, CLBlast 1.5.3"},
};

/* True when version starts with "major.minor" followed by '.' or its end. */
static bool same_minor(const char *version, const char *minor)
{
    size_t n = strlen(minor);
    return strncmp(version, minor, n) == 0 && (version[n] == '.' || version[n] == '\0');
}

const char *blas_tune_builtin(const char *device_name, const char *clblast_version,
                              const char **source)
{
    for (size_t i = 0; i < sizeof builtins / sizeof builtins[0]; i++)
        if (strcmp(device_name, builtins[i].device) == 0 &&
            same_minor(clblast_version, builtins[i].clblast)) {
            if (source)
                *source = builtins[i].source;
            return builtins[i].params;
        }
    return NULL;
}

int blas_tune_builtin_count(void)
{
    return (int)(sizeof builtins / sizeof builtins[0]);
}

const char *blas_tune_builtin_at(int i, const char **device_name)
{
    if (i < 0 || i >= blas_tune_builtin_count())
        return NULL;
    if (device_name)
        *device_name = builtins[i].device;
    return builtins[i].params;
}
