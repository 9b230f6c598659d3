/* SPDX-License-Identifier: Apache-2.0 */
/*
 * python/csrc/device.cpp: the PyTorch device "clops" (PrivateUse1).
 *
 * Device indices are clops' OpenCL devices in `clops devices` order
 * (PyTorch clops:K is clops opencl:K, clops device K+1).  This file holds
 * the device side of the bridge: the allocator whose DataPtrs carry clops
 * storages, the device guard and the PrivateUse1 hooks (so autograd's
 * engine can switch devices), the per-device generator, the minimal op set
 * of PyTorch's PrivateUse1 guide (empty, empty_strided, as_strided, view,
 * _reshape_alias, resize_, _copy_from, _copy_from_and_resize,
 * _local_scalar_dense, set_), the conversions between PyTorch and clops
 * tensors, the autograd engine's queues for the device when a backward ran
 * before the import, and the Python module clops.torch._C.  Every other op is bound
 * from its clops schema by generic.cpp.
 */
#include <torch/extension.h>

#include <ATen/EmptyTensor.h>
#include <ATen/InferSize.h>
#include <ATen/Operators.h>
#include <ATen/TensorUtils.h>
#include <ATen/core/GeneratorForPrivateuseone.h>
#include <ATen/detail/PrivateUse1HooksInterface.h>
#include <ATen/native/Resize.h>
#include <c10/core/impl/DeviceGuardImplInterface.h>
#include <c10/core/impl/alloc_cpu.h>
#include <torch/csrc/autograd/autograd.h>
#include <torch/csrc/autograd/engine.h>
#include <torch/library.h>
#include <torch/version.h>
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 15)
#include <c10/core/CachingDeviceAllocator.h>
#endif

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "bridge.h"
#include "clops/matmul.h"

namespace clops_torch {

/*
 * PyTorch's exception class for a refusal clops reports with status st and
 * message msg ("gather: index 5 is out of bounds ...": the op first, then
 * PyTorch's own words).  PyTorch's class belongs to the check that fails,
 * so it follows the message, with the op where one message has two classes:
 *   - RuntimeError (TORCH_CHECK) for argument, shape, dtype, device and
 *     memory-overlap errors: almost every refusal;
 *   - IndexError (TORCH_CHECK_INDEX) where PyTorch wraps a dim, indexes, or
 *     checks a reduction dim's size (the phrases below), and for clops'
 *     index-out-of-range status, except in the ops that check their index
 *     arguments with TORCH_CHECK (runtime_index_op: gather, scatter,
 *     index_add, searchsorted's sorter, topk's k, ...);
 *   - ValueError (TORCH_CHECK_VALUE) for pixel_shuffle's overflowing square;
 *   - NotImplementedError for an op, dtype or policy clops has no kernel
 *     for (PyTorch: "not implemented for 'Bool'", ...; integer matrix
 *     products on OpenCL devices, as on PyTorch's CUDA);
 *   - for bool topk, negation and subtraction, whatever the installed
 *     PyTorch's CPU raises (RuntimeError in 2.11, NotImplementedError in
 *     2.15): pytorch_cpu_class asks it once.
 * python/tests/test_reliability.py checks each class against PyTorch's CPU.
 */
enum class torch_error { runtime, index, value, not_implemented };

static bool contains_any(const std::string &msg, std::initializer_list<const char *> phrases)
{
    for (const char *p : phrases)
        if (msg.find(p) != std::string::npos)
            return true;
    return false;
}

/* The class the installed PyTorch's CPU raises for call(): refusals whose
 * class changed between PyTorch releases (topk and negation of bool:
 * RuntimeError in 2.11, NotImplementedError in 2.15) follow the PyTorch
 * clops runs with, asked once per refusal. */
template <typename F> static torch_error pytorch_cpu_class(F call)
{
    try {
        call();
    } catch (const c10::NotImplementedError &) {
        return torch_error::not_implemented;
    } catch (const c10::IndexError &) {
        return torch_error::index;
    } catch (const c10::ValueError &) {
        return torch_error::value;
    } catch (const std::exception &) {
        return torch_error::runtime;
    }
    return torch_error::not_implemented;   /* no refusal: clops has no kernel */
}

/* Two bools on the CPU and the CPU kernels themselves (redispatch): no
 * dispatch mode or autograd of the failing call sees the probe. */
static at::Tensor cpu_bools() { return at::detail::empty_cpu({2}, at::kBool, false); }
static const c10::DispatchKeySet cpu_keys{c10::DispatchKey::CPU};

static torch_error torch_error_class(clops_status st, const std::string &msg)
{
    /* The op, as the message names it ("scatter_add", "index_put_"). */
    std::string op = msg.substr(0, msg.find_first_of(":. ("));
    while (!op.empty() && op.back() == '_')
        op.pop_back();
    if (op == "topk" && contains_any(msg, {"does not support bool"})) {
        static const torch_error cls = pytorch_cpu_class([] { at::_ops::topk::redispatch(cpu_keys, cpu_bools(), 1, -1, true, true); });
        return cls;
    }
    if ((op == "neg" || op == "negative") &&
        contains_any(msg, {"not implemented for dtype bool", "the `-` operator, on a bool tensor"})) {
        static const torch_error cls = pytorch_cpu_class([] { at::_ops::neg::redispatch(cpu_keys, cpu_bools()); });
        return cls;
    }
    if (contains_any(msg, {"the `-` operator, with two bool tensors"})) {
        static const torch_error cls =
            pytorch_cpu_class(
                [] { at::_ops::sub_Tensor::redispatch(cpu_keys, cpu_bools(), cpu_bools(), 1); });
        return cls;
    }
    if (st == CLOPS_NOT_IMPLEMENTED || st == CLOPS_FALLBACK_DENIED ||
        contains_any(msg, {"not implemented for '", "not implemented for dtype",
                           "does not support bool", "OpenCL devices support floating dtypes only"}))
        return torch_error::not_implemented;
    if (contains_any(msg, {"upscale factor is too large"}))
        return torch_error::value;
    const bool runtime_index_op =
        op == "gather" || op == "scatter" || op == "scatter_add" || op == "scatter_reduce" ||
        op == "index_add" || op == "searchsorted" || op == "bucketize" || op == "topk" ||
        op == "kthvalue" || op == "one_hot" || op == "max" || op == "min";
    if (contains_any(msg, {"Dimension out of range", "Dimension specified as 0 but tensor has no",
                           "cannot be applied to a 0-dim tensor", "index out of range in self",
                           "out of range: tried to access index", "tensors used as indices must",
                           "too many indices for tensor", "does not match the shape of the indexed",
                           "start out of range", "to have non-zero size"}) ||
        (st == CLOPS_INDEX_OUT_OF_RANGE && !runtime_index_op) ||
        (!runtime_index_op &&
         msg.find("Expected reduction dim to be specified for input.numel() == 0") !=
             std::string::npos))
        return torch_error::index;
    return torch_error::runtime;
}

void check(clops_status st, const char *what)
{
    if (st == CLOPS_OK)
        return;
    const std::string detail = clops_last_error();
    const std::string msg = std::string("clops: ") + what + ": " + detail;
    switch (torch_error_class(st, detail)) {
    case torch_error::not_implemented:
        TORCH_CHECK_NOT_IMPLEMENTED(false, msg);
    case torch_error::index:
        TORCH_CHECK_INDEX(false, msg);
    case torch_error::value:
        TORCH_CHECK_VALUE(false, msg);
    case torch_error::runtime:
        break;
    }
    TORCH_CHECK(false, msg);
}

/* ---- devices ------------------------------------------------------------ */

int device_count()
{
    int n = 0;
    if (clops_device_count(&n) != CLOPS_OK)
        return 0;
    return n - 1; /* device 0 is clops' host CPU device */
}

clops_device *clops_dev(c10::DeviceIndex index)
{
    int n = device_count();
    TORCH_CHECK(n > 0, "clops: no OpenCL device found (", clops_device_discovery_note(), ")");
    if (index < 0)
        index = current_device();
    TORCH_CHECK(index < n, "clops: device index ", num(index), " out of range: ", num(n),
                " OpenCL device(s) (see `clops devices`)");
    clops_device *dev = nullptr;
    check(clops_device_get(index + 1, &dev), "device lookup");
    return dev;
}

c10::DeviceIndex torch_index(const clops_device *dev)
{
    return (c10::DeviceIndex)(clops_device_get_info(dev)->index - 1);
}

/* The default device: CLOPS_DEVICE when it names an OpenCL device, else the
 * first GPU, else the first OpenCL device (clops_device_default's rule). */
static c10::DeviceIndex default_device()
{
    clops_device *dev = nullptr;
    if (clops_device_default(&dev) != CLOPS_OK || !dev)
        return 0;
    c10::DeviceIndex i = torch_index(dev);
    return i < 0 ? 0 : i;
}

static thread_local int tls_current = -1;

c10::DeviceIndex current_device()
{
    if (tls_current < 0)
        tls_current = default_device();
    return (c10::DeviceIndex)tls_current;
}

void set_current_device(c10::DeviceIndex index)
{
    TORCH_CHECK(index >= 0 && index < device_count(), "clops: invalid device index ", num(index),
                " (", num(device_count()), " device(s))");
    tls_current = index;
}

/* ---- allocator ------------------------------------------------------------ */

void storage_deleter(void *ctx)
{
    clops_storage_release(static_cast<clops_storage *>(ctx));
}

/* Copies nbytes between the starts of two clops storages, on the device. */
static void copy_storage_bytes(clops_storage *dst, clops_storage *src, size_t nbytes)
{
    if (nbytes == 0)
        return;
    int64_t n = (int64_t)nbytes, one = 1;
    clops_tensor *d = nullptr, *s = nullptr;
    clops_status st = clops_tensor_from_storage(dst, CLOPS_UINT8, 1, &n, &one, 0, &d);
    if (st == CLOPS_OK)
        st = clops_tensor_from_storage(src, CLOPS_UINT8, 1, &n, &one, 0, &s);
    if (st == CLOPS_OK)
        st = clops_copy_(d, s, false);
    clops_tensor_release(d);
    clops_tensor_release(s);
    check(st, "storage copy");
}

/* PyTorch 2.15's DeviceAllocator (torch.accelerator.memory_stats,
 * max_memory_allocated, empty_cache, ...); older ones get the plain
 * Allocator (torch.clops.* reports the same figures). */
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 15)
#define CLOPS_DEVICE_ALLOCATOR 1
using AllocatorBase = c10::DeviceAllocator;
#else
#define CLOPS_DEVICE_ALLOCATOR 0
using AllocatorBase = c10::Allocator;
#endif

struct ClopsAllocator final : AllocatorBase {
    c10::DataPtr allocate(size_t nbytes) override
    {
        c10::DeviceIndex idx = current_device();
        clops_storage *s = nullptr;
        check(clops_storage_new(clops_dev(idx), nbytes, &s), "allocate");
        return {s, s, &storage_deleter, c10::Device(c10::DeviceType::PrivateUse1, idx)};
    }
    c10::DeleterFnPtr raw_deleter() const override { return &storage_deleter; }
    void copy_data(void *dest, const void *src, std::size_t count) const override
    {
        copy_storage_bytes(static_cast<clops_storage *>(dest),
                           const_cast<clops_storage *>(static_cast<const clops_storage *>(src)),
                           count);
    }
#if CLOPS_DEVICE_ALLOCATOR
    bool initialized() override { return true; }
    void emptyCache(c10::MempoolId_t) override { check(clops_empty_cache(nullptr), "empty_cache"); }
    /* One in-order queue per device: a buffer is never reused while a
     * kernel enqueued before its release can still touch it. */
    void recordStream(const c10::DataPtr &, c10::Stream) override {}
    /* The aggregate figures (memory.cpp says which clops counts); the
     * reserve's peak is not counted, so it is given as at least the
     * allocation peak and the current reserve. */
    c10::CachingDeviceAllocator::DeviceStats getDeviceStats(c10::DeviceIndex index) override
    {
        MemoryFigures f = memory_figures(index);
        c10::CachingDeviceAllocator::DeviceStats st;
        const size_t all = (size_t)c10::CachingDeviceAllocator::StatType::AGGREGATE;
        st.allocated_bytes[all].current = st.active_bytes[all].current = f.allocated;
        st.allocated_bytes[all].peak = st.active_bytes[all].peak = f.peak;
        st.reserved_bytes[all].current = f.allocated + f.cached;
        st.reserved_bytes[all].peak = std::max(f.peak, f.allocated + f.cached);
        return st;
    }
    void resetAccumulatedStats(c10::DeviceIndex) override {} /* none are counted */
    void resetPeakStats(c10::DeviceIndex index) override { memory_figures(index, true); }
    /* clops' view: the device's memory less what clops holds (OpenCL has no
     * query for the memory other processes use). */
    std::pair<size_t, size_t> getMemoryInfo(c10::DeviceIndex index) override
    {
        MemoryFigures f = memory_figures(index);
        int64_t held = f.allocated + f.cached;
        return {(size_t)std::max<int64_t>(f.total - held, 0), (size_t)f.total};
    }
#endif
};

static ClopsAllocator g_allocator;
REGISTER_ALLOCATOR(c10::DeviceType::PrivateUse1, &g_allocator);

c10::Allocator *allocator() { return &g_allocator; }

clops_storage *storage_of(const at::Tensor &t)
{
    const c10::DataPtr &dp = t.storage().data_ptr();
    TORCH_CHECK(dp.get_deleter() == &storage_deleter && dp.get_context(),
                "clops: tensor on ", t.device(), " has a storage clops did not allocate");
    return static_cast<clops_storage *>(dp.get_context());
}

c10::Storage wrap_storage(clops_storage *s)
{
    clops_storage_retain(s);
    c10::DeviceIndex idx = torch_index(clops_storage_device(s));
    c10::DataPtr dp(s, s, &storage_deleter, c10::Device(c10::DeviceType::PrivateUse1, idx));
    return c10::Storage(c10::Storage::use_byte_size_t(), clops_storage_nbytes(s), std::move(dp),
                        &g_allocator, /*resizable=*/true);
}

/* Gives a PyTorch storage of the clops device at least newsize bytes,
 * keeping its contents (resize_, the hooks' resizePrivateUse1Bytes). */
static void resize_storage_bytes(const c10::Storage &storage, size_t newsize)
{
    c10::StorageImpl *impl = storage.unsafeGetStorageImpl();
    TORCH_CHECK(impl->resizable(), "clops: trying to resize a storage that is not resizable");
    c10::DeviceGuard guard(storage.device());
    c10::DataPtr fresh = g_allocator.allocate(newsize);
    size_t keep = std::min(newsize, impl->nbytes());
    if (keep)
        copy_storage_bytes(static_cast<clops_storage *>(fresh.get_context()),
                           static_cast<clops_storage *>(impl->data_ptr().get_context()), keep);
    impl->set_data_ptr_noswap(std::move(fresh));
    impl->set_nbytes(newsize);
}

/* ---- dtypes and tensor conversion ------------------------------------------- */

clops_dtype to_clops_dtype(c10::ScalarType st)
{
    switch (st) {
    case c10::kBool: return CLOPS_BOOL;
    case c10::kByte: return CLOPS_UINT8;
    case c10::kChar: return CLOPS_INT8;
    case c10::kShort: return CLOPS_INT16;
    case c10::kInt: return CLOPS_INT32;
    case c10::kLong: return CLOPS_INT64;
    case c10::kHalf: return CLOPS_FLOAT16;
    case c10::kBFloat16: return CLOPS_BFLOAT16;
    case c10::kFloat: return CLOPS_FLOAT32;
    case c10::kDouble: return CLOPS_FLOAT64;
    case c10::kComplexFloat: return CLOPS_COMPLEX64;
    case c10::kComplexDouble: return CLOPS_COMPLEX128;
    default: return CLOPS_DTYPE_NONE;
    }
}

c10::ScalarType to_torch_dtype(clops_dtype dt)
{
    static const c10::ScalarType map[] = {c10::kBool,    c10::kByte,         c10::kChar,
                                          c10::kShort,   c10::kInt,          c10::kLong,
                                          c10::kHalf,    c10::kBFloat16,     c10::kFloat,
                                          c10::kDouble,  c10::kComplexFloat, c10::kComplexDouble};
    static_assert(sizeof map / sizeof map[0] == CLOPS_DTYPE_COUNT_ALL, "a dtype per clops dtype");
    TORCH_CHECK((int)dt >= 0 && dt < CLOPS_DTYPE_COUNT_ALL, "clops: invalid dtype ", num(dt));
    return map[dt];
}

clops_tensor *to_clops(const at::Tensor &t)
{
    clops_dtype dt = to_clops_dtype(t.scalar_type());
    TORCH_CHECK_TYPE(dt != CLOPS_DTYPE_NONE, "clops: dtype ", t.scalar_type(),
                     " is not supported on the clops device");
    TORCH_CHECK(t.device().type() == c10::DeviceType::PrivateUse1,
                "clops: expected a tensor on the clops device, got one on ", t.device());
    clops_tensor *ct = nullptr;
    check(clops_tensor_from_storage(storage_of(t), dt, (int)t.dim(), t.sizes().data(),
                                    t.strides().data(), t.storage_offset(), &ct),
          "tensor view");
    return ct;
}

at::Tensor from_clops(clops_tensor *ct, const at::Tensor &alias)
{
    c10::ScalarType dtype = to_torch_dtype(clops_tensor_dtype(ct));
    int nd = clops_tensor_ndim(ct);
    c10::IntArrayRef sizes(clops_tensor_sizes(ct), nd), strides(clops_tensor_strides(ct), nd);
    clops_storage *s = clops_tensor_storage(ct);
    if (clops_device_get_info(clops_storage_device(s))->type == CLOPS_DEVICE_CPU) {
        at::Tensor host = at::empty(sizes, at::TensorOptions().dtype(dtype));
        check(clops_tensor_to_host(ct, host.data_ptr(), host.nbytes()), "copy to host");
        return host;
    }
    at::Tensor out;
    if (alias.defined() && alias.device().is_privateuseone() && storage_of(alias) == s)
        out = at::detail::make_tensor<c10::TensorImpl>(c10::TensorImpl::VIEW,
                                                       c10::Storage(alias.storage()),
                                                       alias.key_set(), c10::scalarTypeToTypeMeta(dtype));
    else
        out = at::detail::make_tensor<c10::TensorImpl>(
            wrap_storage(s), c10::DispatchKeySet(c10::DispatchKey::PrivateUse1),
            c10::scalarTypeToTypeMeta(dtype));
    out.unsafeGetTensorImpl()->set_sizes_and_strides(sizes, strides,
                                                     clops_tensor_storage_offset(ct));
    return out;
}

void sync_geometry(const at::Tensor &t, clops_tensor *ct)
{
    int nd = clops_tensor_ndim(ct);
    c10::IntArrayRef sizes(clops_tensor_sizes(ct), nd), strides(clops_tensor_strides(ct), nd);
    int64_t off = clops_tensor_storage_offset(ct);
    c10::StorageImpl *si = t.storage().unsafeGetStorageImpl();
    size_t nbytes = clops_storage_nbytes(clops_tensor_storage(ct));
    if (si->nbytes() != nbytes)
        si->set_nbytes(nbytes);
    if (t.sizes() != sizes || t.strides() != strides || t.storage_offset() != off)
        t.unsafeGetTensorImpl()->set_sizes_and_strides(sizes, strides, off);
}

/* ---- device guard ------------------------------------------------------------- */

struct ClopsGuardImpl final : c10::impl::DeviceGuardImplInterface {
    static constexpr c10::DeviceType T = c10::DeviceType::PrivateUse1;
    c10::DeviceType type() const override { return T; }
    c10::Device exchangeDevice(c10::Device d) const override
    {
        c10::Device old(T, current_device());
        if (d.index() >= 0 && d.index() != old.index())
            set_current_device(d.index());
        return old;
    }
    c10::Device getDevice() const override { return c10::Device(T, current_device()); }
    void setDevice(c10::Device d) const override
    {
        if (d.index() >= 0)
            set_current_device(d.index());
    }
    void uncheckedSetDevice(c10::Device d) const noexcept override
    {
        if (d.index() >= 0)
            tls_current = d.index();
    }
    /* Streams and events: stream.cpp (every stream of a device runs on its
     * one in-order queue; events are markers, timed by its profiling). */
    c10::Stream getStream(c10::Device d) const override { return stream_current(d); }
    c10::Stream getDefaultStream(c10::Device d) const override
    {
        return c10::Stream(c10::Stream::DEFAULT, d);
    }
    c10::Stream getStreamFromGlobalPool(c10::Device d, bool) const override
    {
        return stream_new(d);
    }
    c10::Stream getNewStream(c10::Device d, int) const override { return stream_new(d); }
    c10::Stream exchangeStream(c10::Stream s) const override { return stream_exchange(s); }
    c10::DeviceIndex deviceCount() const noexcept override
    {
        return (c10::DeviceIndex)device_count();
    }
    void record(void **event, const c10::Stream &s, const c10::DeviceIndex index,
                const c10::EventFlag flag) const override
    {
        event_record(event, s, index, flag);
    }
    void block(void *event, const c10::Stream &s) const override { event_block(event, s); }
    bool queryEvent(void *event) const override { return event_query(event); }
    void synchronizeEvent(void *event) const override { event_synchronize(event); }
    double elapsedTime(void *start, void *end, const c10::DeviceIndex) const override
    {
        return event_elapsed(start, end);
    }
    void destroyEvent(void *event, const c10::DeviceIndex) const noexcept override
    {
        event_destroy(event);
    }
    bool queryStream(const c10::Stream &s) const override { return stream_query(s); }
    void synchronizeStream(const c10::Stream &s) const override
    {
        check(clops_device_synchronize(clops_dev(s.device_index())), "synchronize");
    }
    void synchronizeDevice(const c10::DeviceIndex index) const override
    {
        check(clops_device_synchronize(clops_dev(index)), "synchronize");
    }
};

C10_REGISTER_GUARD_IMPL(PrivateUse1, ClopsGuardImpl);

/* ---- generator ------------------------------------------------------------------ */

/* PyTorch's generator over a clops_generator: the device's default one
 * (clops_generator_default, what a random op given no generator draws
 * from) or one of its own (clops_generator_create, for
 * torch.Generator(device="clops")).  Seed, offset and state live in the
 * clops generator only, so every random op, given this generator or
 * drawing from the default one, reads the seed and offset PyTorch set and
 * advances the offset as clops documents (docs/random.md).  The default one
 * is looked up at each use: clops_shutdown frees the default generators and
 * the next use re-creates them. */
struct ClopsGenerator final : c10::GeneratorImpl {
    clops_generator *own_ = nullptr; /* null for the device's default generator */
    ClopsGenerator(c10::DeviceIndex idx, bool is_default)
        : c10::GeneratorImpl(c10::Device(c10::DeviceType::PrivateUse1, idx),
                             c10::DispatchKeySet(c10::DispatchKey::PrivateUse1))
    {
        if (!is_default)
            check(clops_generator_create(clops_dev(idx), &own_), "torch.Generator");
    }
    ~ClopsGenerator() override { clops_generator_release(own_); }
    clops_generator *gen() const
    {
        if (own_)
            return own_;
        clops_generator *g = nullptr;
        check(clops_generator_default(clops_dev(device().index()), &g), "default generator");
        return g;
    }
    void set_current_seed(uint64_t s) override
    {
        check(clops_generator_manual_seed(gen(), s), "manual_seed");
    }
    void set_offset(uint64_t o) override
    {
        uint64_t st[2] = {current_seed(), o};
        unsigned char buf[CLOPS_GENERATOR_STATE_SIZE];
        for (int i = 0; i < CLOPS_GENERATOR_STATE_SIZE; i++)
            buf[i] = (unsigned char)(st[i / 8] >> (8 * (i % 8)));
        check(clops_generator_set_state(gen(), buf, sizeof buf), "set_offset");
    }
    uint64_t get_offset() const override { return clops_generator_offset(gen()); }
    uint64_t current_seed() const override { return clops_generator_initial_seed(gen()); }
    uint64_t seed() override
    {
        uint64_t s = 0;
        check(clops_generator_seed(gen(), &s), "seed");
        return s;
    }
    void set_state(const c10::TensorImpl &st) override
    {
        TORCH_CHECK(st.numel() == CLOPS_GENERATOR_STATE_SIZE && st.dtype() == at::kByte &&
                        st.device().is_cpu() && st.is_contiguous(),
                    "clops: generator state must be a contiguous CPU uint8 tensor of 16 bytes "
                    "(seed, offset)");
        check(clops_generator_set_state(gen(), st.data(), CLOPS_GENERATOR_STATE_SIZE),
              "set_state");
    }
    c10::intrusive_ptr<c10::TensorImpl> get_state() const override
    {
        at::Tensor st = at::empty({CLOPS_GENERATOR_STATE_SIZE}, at::kByte);
        check(clops_generator_get_state(gen(), st.data_ptr(), CLOPS_GENERATOR_STATE_SIZE),
              "get_state");
        return st.getIntrusivePtr();
    }
    ClopsGenerator *clone_impl() const override
    {
        auto *g = new ClopsGenerator(device().index(), false);
        unsigned char buf[CLOPS_GENERATOR_STATE_SIZE];
        try {
            check(clops_generator_get_state(gen(), buf, sizeof buf), "clone");
            check(clops_generator_set_state(g->own_, buf, sizeof buf), "clone");
        } catch (...) {
            delete g;
            throw;
        }
        return g;
    }
};

clops_generator *generator_of(const at::Generator &g)
{
    TORCH_CHECK(g.defined() && g.device().is_privateuseone(), "Expected a '",
                c10::DeviceTypeName(c10::DeviceType::PrivateUse1, true),
                "' device type for generator but found '",
                g.defined() ? c10::DeviceTypeName(g.device().type(), true) : std::string("none"),
                "'");
    return static_cast<const ClopsGenerator *>(g.unsafeGetGeneratorImpl())->gen();
}

static at::Generator make_generator(c10::DeviceIndex idx, bool is_default = false)
{
    return at::make_generator<ClopsGenerator>(idx < 0 ? current_device() : idx, is_default);
}

static const at::Generator &default_generator(c10::DeviceIndex idx)
{
    static std::mutex mu;
    static std::vector<at::Generator> gens;
    std::lock_guard<std::mutex> lock(mu);
    if (gens.empty())
        for (int i = 0; i < std::max(device_count(), 1); i++)
            gens.push_back(make_generator(i, true));
    if (idx < 0)
        idx = current_device();
    TORCH_CHECK(idx < (int)gens.size(), "clops: no device ", num(idx));
    return gens[idx];
}



/* ---- hooks ---------------------------------------------------------------------- */

struct ClopsHooks final : at::PrivateUse1HooksInterface {
    bool isBuilt() const override { return true; }
    bool isAvailable() const override { return device_count() > 0; }
    const at::Generator &getDefaultGenerator(c10::DeviceIndex idx) const override
    {
        return default_generator(idx);
    }
    at::Generator getNewGenerator(c10::DeviceIndex idx) const override
    {
        return make_generator(idx);
    }
    at::Device getDeviceFromPtr(void *data) const override
    {
        auto *s = static_cast<clops_storage *>(data);
        return at::Device(c10::DeviceType::PrivateUse1, torch_index(clops_storage_device(s)));
    }
    bool hasPrimaryContext(c10::DeviceIndex) const override { return true; }
    void resizePrivateUse1Bytes(const c10::Storage &storage, size_t newsize) const override
    {
        resize_storage_bytes(storage, newsize);
    }
    bool isPinnedPtr(const void *data) const override { return is_pinned_ptr(data); }
    c10::Allocator *getPinnedMemoryAllocator() const override { return pinned_allocator(); }
};

/* ---- the minimal op set ------------------------------------------------------------ */

static at::Tensor op_empty(c10::IntArrayRef size, std::optional<at::ScalarType> dtype,
                           std::optional<at::Layout> layout, std::optional<at::Device> device,
                           std::optional<bool> pin, std::optional<at::MemoryFormat> mf)
{
    c10::OptionalDeviceGuard guard(device);
    return at::detail::empty_generic(size, &g_allocator,
                                     c10::DispatchKeySet(c10::DispatchKey::PrivateUse1),
                                     c10::dtype_or_default(dtype), mf);
}

static at::Tensor op_empty_strided(c10::IntArrayRef size, c10::IntArrayRef stride,
                                   std::optional<at::ScalarType> dtype,
                                   std::optional<at::Layout> layout,
                                   std::optional<at::Device> device, std::optional<bool> pin)
{
    c10::OptionalDeviceGuard guard(device);
    return at::detail::empty_strided_generic(size, stride, &g_allocator,
                                             c10::DispatchKeySet(c10::DispatchKey::PrivateUse1),
                                             c10::dtype_or_default(dtype));
}

static at::Tensor op_as_strided(const at::Tensor &self, c10::IntArrayRef size,
                                c10::IntArrayRef stride, std::optional<int64_t> offset)
{
    return at::native::as_strided_tensorimpl(self, size, stride, offset);
}

static at::Tensor op_view(const at::Tensor &self, c10::IntArrayRef size)
{
    return at::native::view(self, size);
}

static at::Tensor op_reshape_alias(const at::Tensor &self, c10::IntArrayRef size,
                                   c10::IntArrayRef stride)
{
    return at::native::_reshape_alias(self, size, stride);
}

static const at::Tensor &op_resize_(const at::Tensor &self, c10::IntArrayRef size,
                                    std::optional<at::MemoryFormat> mf)
{
    if (self.sizes() == size && (!mf || *mf == at::MemoryFormat::Preserve))
        return self;
    at::MemoryFormat fmt = mf.value_or(at::MemoryFormat::Contiguous);
    if (fmt == at::MemoryFormat::Preserve)
        fmt = at::MemoryFormat::Contiguous;
    std::vector<int64_t> strides;
    if (fmt == at::MemoryFormat::ChannelsLast)
        strides = c10::get_channels_last_strides_2d(size);
    else if (fmt == at::MemoryFormat::ChannelsLast3d)
        strides = c10::get_channels_last_strides_3d(size);
    else
    {
        auto c = c10::contiguous_strides(size);
        strides.assign(c.begin(), c.end());
    }
    size_t need = at::detail::computeStorageNbytes(size, strides, self.dtype().itemsize(),
                                                   self.storage_offset());
    if (need > self.storage().nbytes())
        resize_storage_bytes(self.storage(), need);
    self.unsafeGetTensorImpl()->set_sizes_and_strides(size, strides);
    return self;
}

/* Applies the physical conjugation (complex dst) and negation a copy owes
 * dst when its conjugate / negative bits differ from src's; dst holds src's
 * physical values.  On clops, over the (imaginary part of the) real view. */
static void fix_bits(const at::Tensor &dst, bool conj, bool neg)
{
    conj = conj && dst.is_complex();
    if (!conj && !neg)
        return;
    if (!dst.device().is_privateuseone()) {
        at::Tensor plain = dst.is_conj() || dst.is_neg() ? at::Tensor() : dst;
        TORCH_CHECK(plain.defined(), "clops: copy_ into a host tensor with conjugate bits");
        if (conj)
            plain.conj_physical_();
        if (neg)
            plain.neg_();
        return;
    }
    clops_tensor *d = to_clops(dst), *rv = nullptr, *part = nullptr;
    clops_status st = CLOPS_OK;
    if (dst.is_complex())
        st = clops_view_as_real(d, &rv);
    else
        rv = clops_tensor_retain(d);
    if (st == CLOPS_OK && neg)
        st = clops_neg_(rv);
    if (st == CLOPS_OK && conj) {
        st = clops_select(rv, -1, 1, &part);
        if (st == CLOPS_OK)
            st = clops_neg_(part);
    }
    clops_tensor_release(part);
    clops_tensor_release(rv);
    clops_tensor_release(d);
    check(st, "copy_ (conjugate / negative bit)");
}

static at::Tensor copy_physical(const at::Tensor &src, const at::Tensor &dst, bool non_blocking);

at::Tensor resolve_bits(const at::Tensor &t)
{
    /* A plain tensor, the stored values copied by clops, the bits applied
     * by clops: no dispatch (PyTorch's conjugate fallback materialises an
     * input by clone(), whose clops kernel comes here). */
    at::Tensor r = at::empty(t.sizes(), t.options());
    if (t.numel() == 0)
        return r;
    clops_tensor *d = to_clops(r), *s = to_clops(t);
    clops_status st = clops_copy_(d, s, false);
    clops_tensor_release(d);
    clops_tensor_release(s);
    check(st, "resolve_conj");
    fix_bits(r, t.is_conj(), t.is_neg());
    return r;
}

/* copy_ between any of CPU and clops devices, any dtypes, broadcasting src;
 * PyTorch's conjugate and negative bits (torch.conj, _neg_view) are
 * honoured as its own copy_ does: the values copied are src's logical ones
 * and dst's bits are applied. */
static at::Tensor op_copy_from(const at::Tensor &src, const at::Tensor &dst, bool non_blocking)
{
    if (dst.numel() == 0)
        return dst;
    if (!src.device().is_privateuseone() && (src.is_conj() || src.is_neg())) {
        at::Tensor plain = at::empty(src.sizes(), src.options());
        plain.copy_(src); /* the host's copy_ applies the bits */
        return op_copy_from(plain, dst, non_blocking);
    }
    if (!dst.device().is_privateuseone() && (dst.is_conj() || dst.is_neg())) {
        /* A host dst with bits: a plain one, then the host's own copy_. */
        at::Tensor tmp = at::empty(dst.sizes(), dst.options());
        op_copy_from(src, tmp, non_blocking);
        dst.copy_(tmp);
        return dst;
    }
    bool conj = src.is_conj() != dst.is_conj(), neg = src.is_neg() != dst.is_neg();
    copy_physical(src, dst, non_blocking);
    fix_bits(dst, conj, neg);
    return dst;
}

/* The copy of src's stored values into dst's storage, bits ignored. */
static at::Tensor copy_physical(const at::Tensor &src, const at::Tensor &dst, bool non_blocking)
{
    bool src_dev = src.device().is_privateuseone(), dst_dev = dst.device().is_privateuseone();
    if (src_dev && dst_dev) {
        clops_tensor *d = to_clops(dst), *s = nullptr;
        clops_status st = CLOPS_OK;
        try {
            s = to_clops(src);
        } catch (...) {
            clops_tensor_release(d);
            throw;
        }
        st = clops_copy_(d, s, non_blocking);
        clops_tensor_release(d);
        clops_tensor_release(s);
        check(st, "copy_");
        return dst;
    }
    if (dst_dev) {
        /* From another device (cuda:0, ...): through the host, by that
         * device's own copy (the vendor comparison moves models and inputs
         * between CUDA and clops in one process). */
        at::Tensor from = src.device().is_cpu() ? src : src.to(at::kCPU);
        at::Tensor host = from.to(dst.scalar_type()).expand(dst.sizes()).contiguous();
        clops_tensor *d = to_clops(dst);
        clops_status st = clops_tensor_from_host(d, host.data_ptr(), host.nbytes());
        clops_tensor_release(d);
        check(st, "copy to device");
        return dst;
    }
    /* Straight into a contiguous CPU tensor of the same dtype and sizes
     * (t.cpu(), the staging of torch.distributed): no temporary, whose
     * fresh pages cost as much as the read itself. */
    if (dst.device().is_cpu() && dst.scalar_type() == src.scalar_type() &&
        dst.sizes() == src.sizes() && dst.is_contiguous()) {
        clops_tensor *s = to_clops(src);
        clops_status st = clops_tensor_to_host(s, dst.data_ptr(), dst.nbytes());
        clops_tensor_release(s);
        check(st, "copy to host");
        return dst;
    }
    /* To the host, then (for another device) by that device's own copy. */
    at::Tensor host = at::empty(src.sizes(), src.options().device(at::kCPU));
    clops_tensor *s = to_clops(src);
    clops_status st = clops_tensor_to_host(s, host.data_ptr(), host.nbytes());
    clops_tensor_release(s);
    check(st, "copy to host");
    dst.copy_(host);
    return dst;
}

static at::Tensor op_copy_from_and_resize(const at::Tensor &self, const at::Tensor &dst)
{
    at::native::resize_output(dst, self.sizes());
    return op_copy_from(self, dst, false);
}

static c10::Scalar op_local_scalar_dense(const at::Tensor &self)
{
    if (self.is_complex()) /* a clops_scalar is real: read the pair on the host */
        return at::_local_scalar_dense(self.cpu());
    clops_tensor *ct = to_clops(self);
    clops_scalar s;
    clops_status st = clops_tensor_item(ct, &s);
    clops_tensor_release(ct);
    check(st, "item");
    if (s.kind == CLOPS_SCALAR_BOOL)
        return c10::Scalar(s.v.b);
    if (s.kind == CLOPS_SCALAR_INT)
        return c10::Scalar(s.v.i);
    return c10::Scalar(s.v.f);
}

/* set_ onto a storage with the given geometry (empty stride: contiguous). */
static at::Tensor &op_set_storage_offset(at::Tensor &self, c10::Storage source, int64_t offset,
                                         c10::IntArrayRef size, c10::IntArrayRef stride)
{
    TORCH_CHECK(source.device() == self.device() || source.device().type() == self.device().type(),
                "clops: set_: storage on ", source.device(), " for a tensor on ", self.device());
    auto *impl = self.unsafeGetTensorImpl();
    if (!self.storage().is_alias_of(source))
        impl->set_storage_keep_dtype(std::move(source));
    std::vector<int64_t> st = stride.vec();
    if (stride.empty()) {
        auto c = c10::contiguous_strides(size);
        st.assign(c.begin(), c.end());
    }
    at::native::checkInBoundsForStorage(size, c10::IntArrayRef(st), offset, self.dtype(),
                                        self.storage());
    impl->set_sizes_and_strides(size, st, offset);
    return self;
}

static at::Tensor &op_set_storage(at::Tensor &self, c10::Storage source)
{
    int64_t n = (int64_t)(source.nbytes() / self.dtype().itemsize());
    return op_set_storage_offset(self, std::move(source), 0, {n}, {});
}

static at::Tensor &op_set_tensor(at::Tensor &self, const at::Tensor &src)
{
    if (self.is_same(src))
        return self;
    return op_set_storage_offset(self, src.storage(), src.storage_offset(), src.sizes(),
                                 src.strides());
}

static at::Tensor &op_set_empty(at::Tensor &self)
{
    c10::DeviceGuard guard(self.device());
    c10::Storage empty(c10::Storage::use_byte_size_t(), 0, g_allocator.allocate(0), &g_allocator,
                       true);
    return op_set_storage_offset(self, std::move(empty), 0, {0}, {});
}

/* view_as_real / view_as_complex: views over the same storage (clops'
 * geometry and checks, core/view.c), with PyTorch's own checks first. */
static at::Tensor clops_view_of(const at::Tensor &self,
                                clops_status (*view)(clops_tensor *, clops_tensor **),
                                const char *what)
{
    clops_tensor *ct = to_clops(self), *v = nullptr;
    clops_status st = view(ct, &v);
    clops_tensor_release(ct);
    check(st, what);
    at::Tensor out = from_clops(v, self);
    clops_tensor_release(v);
    return out;
}

static at::Tensor op_view_as_real(const at::Tensor &self)
{
    TORCH_CHECK(!self.is_conj(),
                "view_as_real doesn't work on unresolved conjugated tensors.  To resolve the "
                "conjugate tensor so you can view it as real, use self.resolve_conj()");
    TORCH_CHECK(self.is_complex(), "view_as_real is only supported for complex tensors");
    return clops_view_of(self, clops_view_as_real, "view_as_real");
}

static at::Tensor op_view_as_complex(const at::Tensor &self)
{
    TORCH_CHECK(self.scalar_type() == at::kFloat || self.scalar_type() == at::kDouble,
                "view_as_complex is only supported for float and double tensors, but got a "
                "tensor of scalar type: ",
                self.scalar_type());
    return clops_view_of(self, clops_view_as_complex, "view_as_complex");
}

/* conj_physical_ and _conj_physical: the imaginary parts negated on the
 * device (PyTorch's CompositeExplicitAutograd versions call a CPU/CUDA
 * stub).  A conjugate bit on self leaves the physical operation the same. */
static at::Tensor &op_conj_physical_(at::Tensor &self)
{
    if (self.is_complex() && self.numel() > 0)
        fix_bits(self, true, false);
    return self;
}

static at::Tensor op_conj_physical(const at::Tensor &self)
{
    at::Tensor r = resolve_bits(self); /* the logical values */
    return op_conj_physical_(r);
}

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m)
{
    m.impl("conj_physical_", TORCH_FN(op_conj_physical_));
    m.impl("_conj_physical", TORCH_FN(op_conj_physical));
    m.impl("view_as_real", TORCH_FN(op_view_as_real));
    m.impl("view_as_complex", TORCH_FN(op_view_as_complex));
    m.impl("empty.memory_format", TORCH_FN(op_empty));
    m.impl("empty_strided", TORCH_FN(op_empty_strided));
    m.impl("as_strided", TORCH_FN(op_as_strided));
    m.impl("view", TORCH_FN(op_view));
    m.impl("_reshape_alias", TORCH_FN(op_reshape_alias));
    m.impl("resize_", TORCH_FN(op_resize_));
    m.impl("_copy_from", TORCH_FN(op_copy_from));
    m.impl("_copy_from_and_resize", TORCH_FN(op_copy_from_and_resize));
    m.impl("_local_scalar_dense", TORCH_FN(op_local_scalar_dense));
    m.impl("set_.source_Storage", TORCH_FN(op_set_storage));
    m.impl("set_.source_Storage_storage_offset", TORCH_FN(op_set_storage_offset));
    m.impl("set_.source_Tensor", TORCH_FN(op_set_tensor));
    m.impl("set_", TORCH_FN(op_set_empty));
}

/* ---- autograd's device queues ----------------------------------------------------- */

/* PyTorch's autograd engine gives every device index a ready queue served by
 * one worker thread.  It sizes them once, at the first backward pass of the
 * process (Engine::start_device_threads, under a call_once), from the device
 * counts of the device guards registered at that moment.  A backward that
 * ran before `import clops.torch` registered clops' guard therefore left no
 * queue for clops:K (none at all on a machine without CUDA), and the first
 * backward on the device failed an internal assert in Engine::ready_queue.
 * PyTorch offers no call to size them again, so the bridge adds the missing
 * queues and their threads as start_device_threads makes them, each thread
 * counted among the engine's device threads before it starts (the engine's
 * shutdown waits for the counted ones: a thread still starting at exit
 * would otherwise run on an engine being destroyed).  The queue vector and
 * the counters are protected members, reached through a derived class (a
 * pointer to member formed in the derived class applies to the engine
 * object).  This runs at import, under the GIL, before any backward can use
 * the new indices; the one case it cannot cover is a backward on another
 * device running in another thread during the import (the vector may move
 * while that backward reads it). */
struct EngineDeviceQueues : torch::autograd::Engine {
    using Engine = torch::autograd::Engine;
    static std::vector<std::shared_ptr<torch::autograd::ReadyQueue>> &queues(Engine &engine)
    {
        return engine.*(&EngineDeviceQueues::device_ready_queues_);
    }

    static bool started(Engine &engine)
    {
        return (bool)(engine.*(&EngineDeviceQueues::thread_pool_shared_));
    }

    static void extend(Engine &engine, int count)
    {
        if (!started(engine))
            return; /* no backward yet: the first one counts clops' devices */
        auto &qs = queues(engine);
        auto up = &EngineDeviceQueues::increment_non_reentrant_thread_count;
        auto down = &EngineDeviceQueues::decrement_non_reentrant_thread_count;
        for (int i = (int)qs.size(); i < count; i++) {
            auto queue = std::make_shared<torch::autograd::ReadyQueue>();
            qs.push_back(queue);
            /* Counted before the thread starts, so the engine's shutdown
             * (Engine::stop at exit) waits for it even when it has not
             * started yet; the thread counts itself out when it ends. */
            (engine.*up)();
            /* The base class's thread_init, not the Python engine's
             * override: that one takes the GIL first to keep a Python
             * thread state for the thread's life, and the import holds the
             * GIL.  Python autograd functions run on this thread still take
             * the GIL (pybind11 makes a thread state per call). */
            std::thread([&engine, i, queue, down] {
                engine.Engine::thread_init(i, queue, false);
                (engine.*down)();
            }).detach();
        }
    }
};

/* The number of autograd device queues (for the tests). */
static int autograd_device_queues()
{
    return (int)EngineDeviceQueues::queues(torch::autograd::Engine::get_default_engine()).size();
}

/* Quiesces the engine's worker threads of the clops devices before the
 * interpreter finalizes (clops.torch registers it with atexit).  A worker
 * finishes a graph task after waking the thread that called backward: it
 * still drops its last reference to the task a moment later, and the task
 * can own Python objects (in PyTorch 2.15 always: the copy of the caller's
 * thread-local state holds the contextvars context that
 * torch.autograd.graph._engine_run_backward stashes there).  Under load
 * that moment can fall after the main thread returned from the script and
 * began finalizing; the worker then asks for the GIL to release a Python
 * object, and Python ends a thread that asks for the GIL during
 * finalization with a forced unwind, which through PyTorch's noexcept
 * destructors aborts the process ("terminate called without an active
 * exception").  A worker runs its tasks in turn, so a graph task that runs
 * on each clops device's worker and completes proves that the worker has
 * dropped everything of the tasks before it; this one is a view of an empty
 * tensor and its gradient, made here, so what the worker drops after it
 * holds no Python object.  The GIL is released meanwhile (the workers may
 * need it to release objects, and PyTorch's engine refuses to run under it).
 * It runs on a helper thread and is given up after 10 s (a worker busy with
 * a backward that another thread left running), like the engine's own
 * shutdown wait.  Errors are ignored: this runs at exit. */
static void quiesce_autograd_workers()
{
    auto &engine = torch::autograd::Engine::get_default_engine();
    if (!EngineDeviceQueues::started(engine))
        return; /* no backward ran: no worker holds anything */
    int n = std::min((int)EngineDeviceQueues::queues(engine).size(), device_count());
    if (n <= 0)
        return;
    struct Done {
        std::mutex m;
        std::condition_variable cv;
        bool done = false;
    };
    auto state = std::make_shared<Done>();
    pybind11::gil_scoped_release no_gil;
    std::thread([state, n] {
        for (int d = 0; d < n; d++) {
            try {
                auto opts = at::TensorOptions()
                                .dtype(at::kFloat)
                                .device(c10::Device(c10::DeviceType::PrivateUse1,
                                                    (c10::DeviceIndex)d));
                at::Tensor x = at::empty({0}, opts).requires_grad_(true);
                at::Tensor y = x.view({0});
                torch::autograd::grad({y}, {x}, {at::empty({0}, opts)}, false, false, true);
            } catch (...) {
            }
        }
        std::lock_guard<std::mutex> lk(state->m);
        state->done = true;
        state->cv.notify_all();
    }).detach();
    std::unique_lock<std::mutex> lk(state->m);
    state->cv.wait_for(lk, std::chrono::seconds(10), [&] { return state->done; });
}

/* ---- the Python module ------------------------------------------------------------- */

static void init()
{
    static std::once_flag once;
    std::call_once(once, [] {
        at::RegisterPrivateUse1HooksInterface(new ClopsHooks());
        register_attention();
        register_generic_ops();
        register_autocast();
        EngineDeviceQueues::extend(torch::autograd::Engine::get_default_engine(), device_count());
    });
}

static std::string device_name(int idx)
{
    return clops_device_get_info(clops_dev(idx))->name;
}

static int64_t memory_stat(int idx, bool cached)
{
    size_t in_use = 0, cache = 0;
    check(clops_memory_stats(clops_dev(idx), &in_use, &cache), "memory statistics");
    return (int64_t)(cached ? cache : in_use);
}

static void set_fallback_policy(const std::string &p)
{
    if (p == "allow")
        clops_set_fallback_policy(CLOPS_FALLBACK_ALLOW);
    else if (p == "warn")
        clops_set_fallback_policy(CLOPS_FALLBACK_WARN);
    else if (p == "error")
        clops_set_fallback_policy(CLOPS_FALLBACK_ERROR);
    else
        TORCH_CHECK_VALUE(false, "clops: fallback policy must be allow, warn or error, not '", p,
                          "'");
}

static std::string get_fallback_policy()
{
    switch (clops_get_fallback_policy()) {
    case CLOPS_FALLBACK_WARN: return "warn";
    case CLOPS_FALLBACK_ERROR: return "error";
    default: return "allow";
    }
}

} // namespace clops_torch

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m)
{
    using namespace clops_torch;
    m.def("_init", &init);
    m.def("device_count", &device_count);
    m.def("current_device", [] { return (int)current_device(); });
    m.def("set_device", [](int i) { set_current_device((c10::DeviceIndex)i); });
    m.def("synchronize", [](int i) {
        check(clops_device_synchronize(clops_dev((c10::DeviceIndex)i)), "synchronize");
    });
    m.def("current_stream", [](int i) {
        return (int64_t)stream_current(c10::Device(c10::DeviceType::PrivateUse1, i)).id();
    });
    /* makes stream `id` current on device i; returns the previous id */
    m.def("set_stream", [](int64_t id, int i) {
        c10::Device d(c10::DeviceType::PrivateUse1, (c10::DeviceIndex)i);
        return (int64_t)stream_exchange(c10::Stream(c10::Stream::UNSAFE, d, id)).id();
    });
    m.def("device_name", &device_name);
    m.def("device_label", [](int i) { return std::string(clops_device_label(clops_dev(i))); });
    m.def("discovery_note", [] { return std::string(clops_device_discovery_note()); });
    m.def("memory_allocated", [](int i) { return memory_stat(i, false); });
    m.def("memory_cached", [](int i) { return memory_stat(i, true); });
    /* whether torch.accelerator's memory functions reach clops' allocator */
    m.def("device_allocator", [] { return (bool)CLOPS_DEVICE_ALLOCATOR; });
    m.def("memory_figures", [](int i, bool reset_peak) {
        MemoryFigures f = memory_figures(i, reset_peak);
        return std::vector<int64_t>{f.allocated, f.cached, f.peak, f.total};
    });
    m.def("empty_cache", [] { check(clops_empty_cache(nullptr), "empty_cache"); });
    m.def("default_generator", [](int i) { return default_generator((c10::DeviceIndex)i); });
    m.def("schema_mismatches", &schema_mismatches);
    m.def("registered_ops", &registered_ops);
    m.def("compare_schemas", &compare_schema_texts);
    m.def("fallback_counts", &fallback_counts);
    m.def("reset_fallback_counts", &reset_fallback_counts);
    m.def("set_fallback_policy", &set_fallback_policy);
    m.def("get_fallback_policy", &get_fallback_policy);
    m.def("version", [] { return std::string(clops_version()); });
    m.def("float32_matmul_precision",
          [] { return std::string(clops_get_float32_matmul_precision()); });
    m.def("float32_conv_precision",
          [] { return std::string(clops_get_float32_conv_precision()); });
    m.def("autograd_device_queues", &autograd_device_queues);
    m.def("fused_register", &fused_register);
    m.def("params_register", &params_register);
    m.def("fused_call", &fused_call, pybind11::arg("id"), pybind11::arg("inputs"),
          pybind11::arg("out") = pybind11::none(),
          pybind11::arg("params") = std::vector<double>());
    m.def("addmm_epilogue", &addmm_epilogue);
    m.def("conv_epilogue", &conv_epilogue);
    m.def("rms_norm_fused", &rms_norm_fused);
    m.def("device_counters", &device_counters);
    m.def("device_is_gpu", &device_is_gpu);
    m.def("_quiesce_autograd_workers", &quiesce_autograd_workers);
}
