/*
 * core/lifetime.c: library version and shutdown.
 *
 * Initialisation is implicit (host_init runs on first use); shutdown frees
 * every device resource after writing pending kernel binaries to the disk
 * cache, so a process that calls it leaves nothing behind for leak checkers.
 */
#include "clops/tensor.h"
#include "core/generator_impl.h"
#include "dispatch/dispatch.h"
#include "host/host.h"

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
    host_shutdown();
    generator_shutdown();
}
