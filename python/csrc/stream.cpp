/* SPDX-License-Identifier: Apache-2.0 */
/*
 * python/csrc/stream.cpp: streams and events of the device "clops"
 * (torch.Stream / torch.Event / torch.clops.Stream / torch.clops.Event, and
 * what autograd's engine and torch.accelerator ask of the device guard).
 *
 * Each clops device has one in-order OpenCL queue, and every stream of the
 * device runs on it: a stream made by torch.Stream(device="clops") gets an
 * id of its own (so streams compare and hash as PyTorch expects, and the
 * current stream of a thread can be set and restored), but its work is
 * ordered with every other stream's of the device.  That is a valid
 * implementation of PyTorch's stream contract, which allows streams to run
 * concurrently and never requires it.
 *
 * An event is a marker enqueued on the device's queue (clEnqueueMarkerWith-
 * WaitList; for a timing event a 1-byte fill, whose timestamps every driver
 * reports): it completes when everything enqueued before it has, so
 * query/synchronize/wait mean what they mean for CUDA.  Waiting on an event
 * of the same device needs no command (one in-order queue); an event of
 * another device (another OpenCL context, whose events a queue cannot wait
 * on) is waited for on the host.  Timing events (enable_timing=True) read
 * their commands' CL_PROFILING_COMMAND_END: clops creates its queues with
 * CL_QUEUE_PROFILING_ENABLE (host/device.c; CLOPS_QUEUE_PROFILING=0 turns it
 * off, and elapsed_time then says so).
 */
#include <torch/extension.h>

#include <c10/core/impl/DeviceGuardImplInterface.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <new>
#include <thread>
#include <utility>
#include <vector>

#define CL_TARGET_OPENCL_VERSION 120
#include "bridge.h"
#include "clops/opencl.h"

namespace clops_torch {

static const char *cl_status_name(cl_int err)
{
    switch (err) {
    case CL_SUCCESS: return "CL_SUCCESS";
    case CL_PROFILING_INFO_NOT_AVAILABLE: return "CL_PROFILING_INFO_NOT_AVAILABLE";
    case CL_INVALID_EVENT: return "CL_INVALID_EVENT";
    case CL_INVALID_COMMAND_QUEUE: return "CL_INVALID_COMMAND_QUEUE";
    case CL_OUT_OF_RESOURCES: return "CL_OUT_OF_RESOURCES";
    case CL_OUT_OF_HOST_MEMORY: return "CL_OUT_OF_HOST_MEMORY";
    case CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST:
        return "CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST";
    default: return "OpenCL error";
    }
}

static void cl_check(cl_int err, const char *what)
{
    TORCH_CHECK(err == CL_SUCCESS, "clops: ", what, ": ", cl_status_name(err), " (", num(err),
                ")");
}

/* The device's queue (borrowed from clops, valid until clops_shutdown). */
static cl_command_queue queue_of(c10::DeviceIndex index)
{
    cl_command_queue q = nullptr;
    check(clops_opencl_device_objects(clops_dev(index), nullptr, nullptr, &q), "device queue");
    return q;
}

/* ---- streams ---------------------------------------------------------------- */

/* Stream ids: 0 is each device's default stream; torch.Stream(device=...)
 * takes the next id of a process-wide counter. */
static std::atomic<c10::StreamId> g_next_stream{1};

/* This thread's current stream per device index. */
static thread_local std::vector<c10::StreamId> tls_stream;

static c10::StreamId &current_id(c10::DeviceIndex index)
{
    TORCH_CHECK(index >= 0, "clops: stream of device index ", num(index));
    if ((size_t)index >= tls_stream.size())
        tls_stream.resize((size_t)index + 1, 0);
    return tls_stream[(size_t)index];
}

c10::Stream stream_current(c10::Device d)
{
    c10::DeviceIndex i = d.index() < 0 ? current_device() : d.index();
    return c10::Stream(c10::Stream::UNSAFE, c10::Device(d.type(), i), current_id(i));
}

c10::Stream stream_exchange(c10::Stream s)
{
    c10::DeviceIndex i = s.device_index() < 0 ? current_device() : s.device_index();
    TORCH_CHECK(i < device_count(), "clops: stream on device index ", num(i), ": ",
                num(device_count()), " device(s)");
    c10::StreamId &cur = current_id(i);
    c10::Stream old(c10::Stream::UNSAFE, c10::Device(s.device_type(), i), cur);
    cur = s.id();
    return old;
}

c10::Stream stream_new(c10::Device d)
{
    c10::DeviceIndex i = d.index() < 0 ? current_device() : d.index();
    TORCH_CHECK(i < device_count(), "clops: stream on device index ", num(i), ": ",
                num(device_count()), " device(s)");
    return c10::Stream(c10::Stream::UNSAFE, c10::Device(d.type(), i), g_next_stream++);
}

/* Whether everything enqueued on the device so far has finished: a marker
 * and its status (the queue is flushed so the marker can complete).  Even
 * on an idle queue the driver needs a moment to complete the new marker (a
 * worker thread of POCL's has to run), so its status is polled for up to
 * 10 ms: an idle queue answers true, a busy one false after at most that. */
bool stream_query(const c10::Stream &s)
{
    cl_command_queue q = queue_of(s.device_index());
    cl_event ev = nullptr;
    cl_check(clEnqueueMarkerWithWaitList(q, 0, nullptr, &ev), "stream query: marker");
    cl_int st = CL_QUEUED;
    cl_int err = clFlush(q);
    auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(10);
    while (err == CL_SUCCESS) {
        err = clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st, &st, nullptr);
        if (err != CL_SUCCESS || st <= CL_COMPLETE || std::chrono::steady_clock::now() > deadline)
            break;
        std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
    clReleaseEvent(ev);
    cl_check(err, "stream query");
    TORCH_CHECK(st >= 0, "clops: stream query: the device's queue failed (", num(st), ")");
    return st == CL_COMPLETE;
}

/* ---- events ------------------------------------------------------------------- */

struct ClopsEvent {
    cl_event marker = nullptr;     /* the last record's marker, null before one */
    cl_command_queue queue = nullptr; /* retained with the marker */
    c10::DeviceIndex device = -1;
    bool timing = false;
};

static void event_clear(ClopsEvent *e)
{
    if (e->marker)
        clReleaseEvent(e->marker);
    if (e->queue)
        clReleaseCommandQueue(e->queue);
    e->marker = nullptr;
    e->queue = nullptr;
}

/* A 1-byte buffer per OpenCL context (never released: it retains its
 * context, so the key cannot be reused by another one), for the commands of
 * timing events. */
static cl_mem stamp_buffer(cl_command_queue q)
{
    static std::mutex lock;
    static std::vector<std::pair<cl_context, cl_mem>> buffers;
    cl_context ctx = nullptr;
    cl_check(clGetCommandQueueInfo(q, CL_QUEUE_CONTEXT, sizeof ctx, &ctx, nullptr),
             "event record: queue context");
    std::lock_guard<std::mutex> g(lock);
    for (auto &b : buffers)
        if (b.first == ctx)
            return b.second;
    cl_int err = CL_SUCCESS;
    cl_mem m = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 1, nullptr, &err);
    cl_check(err, "event record: timing buffer");
    buffers.emplace_back(ctx, m);
    return m;
}

/* The command an event records: a marker, or for a timing event a 1-byte
 * fill, a real command whose timestamps every driver reports (some give
 * markers none or zeros: AMD's and Intel's older runtimes); on an in-order
 * queue both complete after everything enqueued before them. */
static cl_event enqueue_stamp(cl_command_queue q, bool timing)
{
    cl_event ev = nullptr;
    if (!timing) {
        cl_check(clEnqueueMarkerWithWaitList(q, 0, nullptr, &ev), "event record: marker");
        return ev;
    }
    const cl_uchar zero = 0;
    cl_check(clEnqueueFillBuffer(q, stamp_buffer(q), &zero, 1, 0, 1, 0, nullptr, &ev),
             "event record: timing command");
    return ev;
}

void event_record(void **event, const c10::Stream &s, c10::DeviceIndex index,
                  c10::EventFlag flag)
{
    TORCH_CHECK(index == -1 || index == s.device_index(), "clops: event of device index ",
                num(index), " recorded on a stream of device index ", num(s.device_index()));
    cl_command_queue q = queue_of(s.device_index());
    auto *e = static_cast<ClopsEvent *>(*event);
    bool timing = e ? e->timing : flag == c10::EventFlag::BACKEND_DEFAULT;
    cl_event ev = enqueue_stamp(q, timing);
    if (!e) {
        e = new (std::nothrow) ClopsEvent();
        if (!e) {
            clReleaseEvent(ev);
            TORCH_CHECK(false, "clops: event record: out of host memory");
        }
        e->timing = timing;
        *event = e;
    }
    event_clear(e);
    clRetainCommandQueue(q);
    e->marker = ev;
    e->queue = q;
    e->device = s.device_index();
}

/* Makes `s` wait for the event: nothing on the same device (one in-order
 * queue); the host waits for an event of another device. */
void event_block(void *event, const c10::Stream &s)
{
    auto *e = static_cast<ClopsEvent *>(event);
    if (!e || !e->marker || e->device == s.device_index())
        return;
    cl_check(clWaitForEvents(1, &e->marker), "event wait");
}

bool event_query(void *event)
{
    auto *e = static_cast<ClopsEvent *>(event);
    if (!e || !e->marker)
        return true; /* never recorded */
    cl_check(clFlush(e->queue), "event query: flush");
    cl_int st = CL_QUEUED;
    cl_check(clGetEventInfo(e->marker, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st, &st,
                            nullptr),
             "event query");
    TORCH_CHECK(st >= 0, "clops: event query: the device's queue failed (", num(st), ")");
    return st == CL_COMPLETE;
}

void event_synchronize(void *event)
{
    auto *e = static_cast<ClopsEvent *>(event);
    if (!e || !e->marker)
        return;
    cl_check(clWaitForEvents(1, &e->marker), "event synchronize");
}

void event_destroy(void *event) noexcept
{
    auto *e = static_cast<ClopsEvent *>(event);
    if (!e)
        return;
    event_clear(e);
    delete e;
}

static cl_ulong event_end_ns(ClopsEvent *e, const char *which)
{
    TORCH_CHECK(e && e->marker, "clops: elapsed_time: the ", which, " event was not recorded");
    TORCH_CHECK(e->timing, "clops: elapsed_time: the ", which,
                " event was created without timing (enable_timing=True)");
    cl_command_queue_properties props = 0;
    cl_check(clGetCommandQueueInfo(e->queue, CL_QUEUE_PROPERTIES, sizeof props, &props, nullptr),
             "elapsed_time: queue properties");
    TORCH_CHECK(props & CL_QUEUE_PROFILING_ENABLE,
                "clops: elapsed_time: the device's queue was created without profiling "
                "(CLOPS_QUEUE_PROFILING=0 in the environment)");
    cl_check(clWaitForEvents(1, &e->marker), "elapsed_time: wait");
    cl_ulong t = 0;
    cl_check(clGetEventProfilingInfo(e->marker, CL_PROFILING_COMMAND_END, sizeof t, &t, nullptr),
             "elapsed_time: the event's profiling end");
    TORCH_CHECK(t != 0, "clops: elapsed_time: the driver gave the ", which,
                " event's command no timestamp");
    return t;
}

/* Milliseconds between the two events' markers, as CUDA's elapsed_time. */
double event_elapsed(void *start, void *end)
{
    auto *a = static_cast<ClopsEvent *>(start), *b = static_cast<ClopsEvent *>(end);
    TORCH_CHECK(!(a && b && a->marker && b->marker) || a->device == b->device,
                "clops: elapsed_time: events of different devices (", num(a ? a->device : -1),
                " and ", num(b ? b->device : -1), ")");
    cl_ulong t0 = event_end_ns(a, "start"), t1 = event_end_ns(b, "end");
    return ((double)t1 - (double)t0) / 1.0e6;
}

} // namespace clops_torch
