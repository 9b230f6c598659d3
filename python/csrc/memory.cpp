/* SPDX-License-Identifier: Apache-2.0 */
/*
 * python/csrc/memory.cpp: memory statistics of the clops device and the
 * "pinned" host memory of tensor.pin_memory().
 *
 * Statistics: clops' caching allocator counts the bytes it has handed out to
 * storages, the bytes in its cache, and the most bytes handed out at once
 * since the start or the last reset (clops_memory_stats, clops_memory_peak).
 * They are PyTorch's allocated_bytes (current, peak) and reserved_bytes
 * (handed out plus cached); clops counts no allocation events, so the
 * accumulated figures (allocated/freed totals, allocation counts) are zero.
 *
 * Pinned memory: OpenCL gives a host pointer no page-locked status a driver
 * would honour (pinned transfers need a buffer created with
 * CL_MEM_ALLOC_HOST_PTR and mapped, and clops' host copies take any host
 * pointer), so the pinned allocator hands out ordinary host memory from
 * PyTorch's CPU allocator and remembers it: tensor.pin_memory(),
 * tensor.is_pinned() and DataLoader(pin_memory=True) work as on CUDA, and an
 * upload from pinned memory costs what an upload from any host memory costs
 * (docs/torch.md measures both).
 */
#include <ATen/ATen.h>
#include <c10/core/impl/alloc_cpu.h>

#include <map>
#include <mutex>

#include "bridge.h"

namespace clops_torch {

/* ---- statistics ------------------------------------------------------------ */

MemoryFigures memory_figures(int index, bool reset_peak)
{
    clops_device *dev = clops_dev((c10::DeviceIndex)index);
    MemoryFigures f;
    size_t in_use = 0, cached = 0, peak = 0;
    check(clops_memory_stats(dev, &in_use, &cached), "memory statistics");
    check(clops_memory_peak(dev, reset_peak, &peak), "memory peak");
    f.allocated = (int64_t)in_use;
    f.cached = (int64_t)cached;
    f.peak = (int64_t)peak;
    f.total = (int64_t)clops_device_get_info(dev)->global_mem_bytes;
    return f;
}

/* ---- pinned host memory -------------------------------------------------------- */

static std::mutex g_pinned_mu;
static std::map<uintptr_t, size_t> g_pinned; /* start -> bytes of each live block */

static void pinned_free(void *p)
{
    {
        std::lock_guard<std::mutex> lock(g_pinned_mu);
        g_pinned.erase((uintptr_t)p);
    }
    c10::free_cpu(p);
}

struct PinnedAllocator final : c10::Allocator {
    c10::DataPtr allocate(size_t nbytes) override
    {
        if (nbytes == 0)
            return {nullptr, nullptr, &pinned_free, c10::Device(c10::kCPU)};
        void *p = c10::alloc_cpu(nbytes); /* raises PyTorch's out-of-memory error */
        try {
            std::lock_guard<std::mutex> lock(g_pinned_mu);
            g_pinned[(uintptr_t)p] = nbytes;
        } catch (...) {
            c10::free_cpu(p);
            throw;
        }
        return {p, p, &pinned_free, c10::Device(c10::kCPU)};
    }
    c10::DeleterFnPtr raw_deleter() const override { return &pinned_free; }
    void copy_data(void *dest, const void *src, std::size_t count) const override
    {
        default_copy_data(dest, src, count);
    }
};

static PinnedAllocator g_pinned_allocator;

c10::Allocator *pinned_allocator() { return &g_pinned_allocator; }

bool is_pinned_ptr(const void *p)
{
    uintptr_t a = (uintptr_t)p;
    std::lock_guard<std::mutex> lock(g_pinned_mu);
    auto it = g_pinned.upper_bound(a);
    if (it == g_pinned.begin())
        return false;
    --it;
    return a - it->first < it->second;
}

} // namespace clops_torch
