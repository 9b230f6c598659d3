/* SPDX-License-Identifier: Apache-2.0 */
/*
 * host/versions.c: which OpenCL stack the process runs with, for
 * `clops --version` and bug reports: the ICD loader's name and version
 * (ocl-icd answers clGetICDLoaderInfoOCLICD, found through
 * clGetExtensionFunctionAddress; other loaders do not) and the file a
 * symbol of a shared library was loaded from (dladdr, resolved through its
 * symlinks, so "libclblast.so.1" shows as "libclblast.so.1.5.3").
 */
#define _GNU_SOURCE /* dladdr */
/* clGetExtensionFunctionAddress (OpenCL 1.1) is how ocl-icd hands out its
 * loader query. */
#define CL_USE_DEPRECATED_OPENCL_1_1_APIS
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/host.h"

/* ocl-icd's loader-information query (its ocl_icd.h, not installed by
 * Debian's -dev packages). */
#define HOST_ICDL_OCL_VERSION 1
#define HOST_ICDL_VERSION 2
#define HOST_ICDL_NAME 3
typedef cl_int (*icdl_info_fn)(cl_uint param, size_t size, void *value, size_t *ret);

bool host_icd_loader_info(char *buf, size_t cap)
{
    buf[0] = '\0';
    icdl_info_fn fn = (icdl_info_fn)(uintptr_t)clGetExtensionFunctionAddress(
        "clGetICDLoaderInfoOCLICD");
    char name[128] = "", version[64] = "", cl[64] = "";
    if (fn) {
        fn(HOST_ICDL_NAME, sizeof name, name, NULL);
        fn(HOST_ICDL_VERSION, sizeof version, version, NULL);
        fn(HOST_ICDL_OCL_VERSION, sizeof cl, cl, NULL);
        name[sizeof name - 1] = version[sizeof version - 1] = cl[sizeof cl - 1] = '\0';
    }
    char path[PATH_MAX];
    bool have_path = host_library_path((const void *)(uintptr_t)clGetPlatformIDs, path,
                                       sizeof path);
    if (!fn && !have_path)
        return false;
    snprintf(buf, cap, "%s%s%s%s%s%s%s%s", fn ? name : "unknown loader", fn ? " " : "",
             fn ? version : "", fn && cl[0] ? " (" : "", fn ? cl : "", fn && cl[0] ? ")" : "",
             have_path ? ", " : "", have_path ? path : "");
    return true;
}

bool host_library_path(const void *symbol, char *buf, size_t cap)
{
    Dl_info info;
    if (!symbol || !dladdr(symbol, &info) || !info.dli_fname || !info.dli_fname[0])
        return false;
    char *real = realpath(info.dli_fname, NULL);
    snprintf(buf, cap, "%s", real ? real : info.dli_fname);
    free(real);
    return true;
}
