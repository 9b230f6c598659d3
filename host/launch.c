/* SPDX-License-Identifier: Apache-2.0 */
/*
 * host/launch.c: kernel launches and transfers on a device's queue.
 *
 * Every command of a device goes to its one in-order queue, so commands run
 * in the order they were issued and a buffer returned to the allocator can be
 * reused by the next command without waiting.  Launches do not wait; reads to
 * host memory do.
 */
#include <stdio.h>
#include <string.h>

#include "host/host.h"

/* The open launch log of this thread (host_launch_log_open), or NULL. */
static _Thread_local host_launch_log *launch_log;

void host_launch_log_open(host_launch_log *log)
{
    memset(log, 0, sizeof *log);
    launch_log = log;
}

void host_launch_log_close(void)
{
    launch_log = NULL;
}

/* Records k in the open log (once per name). */
static void log_launch(host_launch_log *log, const host_kernel *k)
{
    char name[sizeof log->names[0]];
    snprintf(name, sizeof name, "%.95s:%.63s", host_kernel_program_name(k), k->name);
    for (int i = 0; i < log->n; i++)
        if (strcmp(log->names[i], name) == 0)
            return;
    if (log->n == HOST_LOG_MAX) {
        log->more++;
        return;
    }
    memcpy(log->names[log->n++], name, sizeof name);
}

size_t host_grid_size(const clops_device *d, const host_kernel *k, uint64_t n)
{
    size_t wg = k->wg_size;
    uint64_t groups = (n + wg - 1) / wg;
    if (groups > d->max_groups)
        groups = d->max_groups;
    if (groups == 0)
        groups = 1;
    return (size_t)groups * wg;
}

size_t host_chunk_grid(const clops_device *d, uint64_t n)
{
    uint64_t items = (n + HOST_MIN_CHUNK - 1) / HOST_MIN_CHUNK;
    if (items > d->max_chunks)
        items = d->max_chunks;
    return items ? (size_t)items : 1;
}

clops_status host_launch_chunked(clops_device *d, host_kernel *k, int nargs, const host_arg *args,
                                 uint64_t n)
{
    return host_launch_local(d, k, nargs, args, host_chunk_grid(d, n), 1);
}

clops_status host_launch_items(clops_device *d, host_kernel *k, int nargs, const host_arg *args,
                               uint64_t n)
{
    if (d->chunked)
        return host_launch_chunked(d, k, nargs, args, n);
    return host_launch(d, k, nargs, args, host_grid_size(d, k, n));
}

clops_status host_launch(clops_device *d, host_kernel *k, int nargs, const host_arg *args,
                         size_t global)
{
    return host_launch_local(d, k, nargs, args, global, k->wg_size);
}

clops_status host_launch_local(clops_device *d, host_kernel *k, int nargs, const host_arg *args,
                               size_t global, size_t local)
{
    global = (global + local - 1) / local * local;
    cl_int err = CL_SUCCESS;
    pthread_mutex_lock(&k->lock);
    for (int i = 0; i < nargs && err == CL_SUCCESS; i++)
        err = clSetKernelArg(k->kernel, (cl_uint)i, args[i].size, args[i].value);
    if (err == CL_SUCCESS)
        err = clEnqueueNDRangeKernel(d->queue, k->kernel, 1, NULL, &global, &local, 0, NULL, NULL);
    pthread_mutex_unlock(&k->lock);
    if (err != CL_SUCCESS) {
        clops_status st = host_cl_fail(err, "launching kernel", d);
        return clops__error_prefix(st, "%s", k->name);
    }
    atomic_fetch_add_explicit(&d->launches, 1, memory_order_relaxed);
    if (launch_log)
        log_launch(launch_log, k);
    return CLOPS_OK;
}

void host_count_launches(clops_device *d, uint64_t n)
{
    atomic_fetch_add_explicit(&d->launches, n, memory_order_relaxed);
}

clops_status host_write(clops_device *d, cl_mem dst, size_t offset, const void *src, size_t n)
{
    if (n == 0)
        return CLOPS_OK;
    cl_int err = clEnqueueWriteBuffer(d->queue, dst, CL_TRUE, offset, n, src, 0, NULL, NULL);
    if (err != CL_SUCCESS)
        return host_cl_fail(err, "clEnqueueWriteBuffer", d);
    return CLOPS_OK;
}

clops_status host_read(clops_device *d, cl_mem src, size_t offset, void *dst, size_t n)
{
    if (n == 0)
        return CLOPS_OK;
    cl_int err = clEnqueueReadBuffer(d->queue, src, CL_TRUE, offset, n, dst, 0, NULL, NULL);
    if (err != CL_SUCCESS)
        return host_cl_fail(err, "clEnqueueReadBuffer", d);
    return CLOPS_OK;
}

clops_status host_copy_buffer(clops_device *d, cl_mem src, size_t src_off, cl_mem dst,
                              size_t dst_off, size_t n)
{
    if (n == 0)
        return CLOPS_OK;
    cl_int err = clEnqueueCopyBuffer(d->queue, src, dst, src_off, dst_off, n, 0, NULL, NULL);
    if (err != CL_SUCCESS)
        return host_cl_fail(err, "clEnqueueCopyBuffer", d);
    return CLOPS_OK;
}

clops_status host_fill_zero(clops_device *d, cl_mem dst, size_t offset, size_t n)
{
    static const cl_uchar zero = 0;
    if (n == 0)
        return CLOPS_OK;
    cl_int err = clEnqueueFillBuffer(d->queue, dst, &zero, 1, offset, n, 0, NULL, NULL);
    if (err != CL_SUCCESS)
        return host_cl_fail(err, "clEnqueueFillBuffer", d);
    return CLOPS_OK;
}

clops_status host_finish(clops_device *d)
{
    if (!d->queue)
        return CLOPS_OK;
    cl_int err = clFinish(d->queue);
    if (err != CL_SUCCESS)
        return host_cl_fail(err, "clFinish", d);
    return CLOPS_OK;
}
