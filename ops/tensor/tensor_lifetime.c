/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ops/tensor/tensor_lifetime.c: library version and shutdown.
 *
 * Initialisation is implicit (host_init runs on first use); shutdown frees
 * every device resource after writing pending kernel binaries to the disk
 * cache, so a process that calls it leaves nothing behind for leak checkers.
 * Shutdown tears the layers down from the top: the registry, the kernels'
 * own state (user pointwise ops, CLBlast's program cache and the FFT
 * family's VkFFT plans, which keep the devices' contexts alive), then the runtime.  It lives in the kernel layer
 * because it is the lowest layer that may call all of them.
 */
#include "clops/tensor.h"
#include "codegen_pointwise/pw.h"
#include "dispatch/dispatch.h"
#include "host/host.h"
#include "ops/fft/fft.h"
#include "ops/gemm/gemm.h"
#include "ops/random/random.h"

#ifndef CLOPS_VERSION_STRING
#define CLOPS_VERSION_STRING "0.0.0"
#endif

const char *clops_version(void)
{
    return CLOPS_VERSION_STRING;
}

void clops_shutdown(void)
{
    dispatch_shutdown();
    pw_user_ops_free();
    /* CLBlast caches programs per context: drop them before the contexts
     * go (only when the runtime was started: CLBlast is not loaded before). */
    if (host_device_count() > 0)
        blas_shutdown();
    /* VkFFT's plans hold programs and buffers of the contexts too. */
    fft_shutdown();
    host_shutdown();
    generator_shutdown();
}
