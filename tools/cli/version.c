/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tools/cli/version.c: `clops --version` -- the clops version and the
 * stack it runs with: CLBlast (the version built against and the library
 * file loaded, whose name carries the version it runs with), the OpenCL ICD
 * loader (ocl-icd's own name and version where the loader answers, and its
 * file), and every OpenCL platform's version string (POCL's says which POCL
 * and LLVM).  Platforms need device discovery; CLOPS_NO_OPENCL=1 skips it.
 */
#include <limits.h>
#include <string.h>

#include "host/host.h"
#include "ops/gemm/gemm.h"
#include "tools/cli/cli.h"

void cli_print_version(FILE *f)
{
    fprintf(f, "clops %s\n", clops_version());
    char path[PATH_MAX + 200];
    fprintf(f, "CLBlast %s (built against)", blas_clblast_version());
    if (blas_clblast_library(path, sizeof path))
        fprintf(f, ", running %s", path);
    fprintf(f, "\n");
    if (host_env("CLOPS_NO_OPENCL")) {
        fprintf(f, "OpenCL: not loaded (CLOPS_NO_OPENCL is set)\n");
        return;
    }
    fprintf(f, "OpenCL ICD loader: %s\n",
            host_icd_loader_info(path, sizeof path) ? path : "unknown");
    int n = 0;
    if (clops_device_count(&n) != CLOPS_OK)
        n = 0;
    int shown = 0;
    for (int i = 1; i < n; i++) {
        clops_device *d = NULL;
        if (clops_device_get(i, &d) != CLOPS_OK)
            continue;
        const clops_device_info *in = clops_device_get_info(d);
        /* One line per platform (its devices follow one another). */
        bool seen = false;
        for (int j = 1; j < i && !seen; j++) {
            clops_device *e = NULL;
            seen = clops_device_get(j, &e) == CLOPS_OK &&
                   strcmp(clops_device_get_info(e)->platform_name, in->platform_name) == 0 &&
                   strcmp(clops_device_get_info(e)->platform_version, in->platform_version) == 0;
        }
        if (seen)
            continue;
        fprintf(f, "OpenCL platform: %s: %s%s\n", in->platform_name, in->platform_version,
                in->vendor == CLOPS_VENDOR_POCL ? " (POCL)" : "");
        shown++;
    }
    if (!shown) {
        const char *note = clops_device_discovery_note();
        fprintf(f, "OpenCL platforms: none%s%s\n", note[0] ? ": " : "", note);
    }
}
