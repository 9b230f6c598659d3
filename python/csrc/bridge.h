/* SPDX-License-Identifier: Apache-2.0 */
/*
 * python/csrc/bridge.h: what the translation units of the PyTorch
 * device bridge share.
 *
 * device.cpp owns the device (index mapping, guard, hooks, generator), the
 * allocator and the minimal op set of PyTorch's PrivateUse1 guide, and the
 * Python module.  generic.cpp registers every clops operator from its schema
 * through one boxed kernel and runs PyTorch's CPU fallback for the rest;
 * autocast.cpp registers PyTorch's autocast op lists for the device;
 * memory.cpp holds the memory statistics and the pinned host allocator.
 *
 * The one convention both rely on: the DataPtr of every clops storage in
 * PyTorch has data == context == a clops_storage* holding one reference,
 * released by storage_deleter.  So a PyTorch tensor (storage, sizes,
 * strides, storage offset) maps one-to-one onto a clops tensor over the
 * same clops storage, and a clops result maps back without a copy.
 */
#pragma once

#include <ATen/ATen.h>
#include <ATen/core/stack.h>
#include <c10/core/Allocator.h>

#include <string>
#include <vector>

#include "clops/dispatch.h"
#include "clops/ops.h"
#include "clops/tensor.h"

namespace clops_torch {

/* A number for an error message.  The bridge's messages are built from
 * strings only: an integer formatted through std::ostream (TORCH_CHECK's
 * c10::str) inside this extension crashed the process with PyTorch 2.11 on
 * the H100 machine (Ubuntu 24.04, gcc 13), while string pieces were fine. */
inline std::string num(long long v)
{
    return std::to_string(v);
}

/* Raises a PyTorch error carrying clops' last error message when st fails. */
void check(clops_status st, const char *what);

/* Number of clops OpenCL devices (the PyTorch device indices 0..n-1). */
int device_count();
/* The clops device behind PyTorch's clops:index. */
clops_device *clops_dev(c10::DeviceIndex index);
/* The PyTorch device index of a clops OpenCL device; -1 for the CPU. */
c10::DeviceIndex torch_index(const clops_device *dev);
/* This thread's current device index. */
c10::DeviceIndex current_device();
void set_current_device(c10::DeviceIndex index);

/* The clops generator behind a PyTorch clops generator (borrowed): the
 * device's default one or the generator's own.  Raises PyTorch's "Expected
 * a 'clops' device type for generator" for a generator of another device. */
clops_generator *generator_of(const at::Generator &g);

/* The allocator whose DataPtrs carry clops storages. */
c10::Allocator *allocator();
/* Deleter of those DataPtrs: drops the storage reference. */
void storage_deleter(void *ctx);
/* The clops storage of a PyTorch clops tensor (borrowed).  Raises for a
 * storage that clops did not allocate. */
clops_storage *storage_of(const at::Tensor &t);
/* A PyTorch storage wrapping s (takes a new reference). */
c10::Storage wrap_storage(clops_storage *s);

/* dtype mapping; CLOPS_DTYPE_NONE / Undefined when clops has no such type. */
clops_dtype to_clops_dtype(c10::ScalarType st);
c10::ScalarType to_torch_dtype(clops_dtype dt);

/* A clops view (new reference) of a PyTorch clops tensor: same storage,
 * sizes, strides and offset.  Raises for a dtype clops lacks. */
clops_tensor *to_clops(const at::Tensor &t);
/* A PyTorch tensor over the storage of clops tensor ct.  When `alias` is
 * defined and uses the same clops storage, the result shares alias's
 * PyTorch storage (a view); otherwise the clops storage gets a new PyTorch
 * storage.  A tensor on clops' CPU device is copied into a CPU tensor. */
at::Tensor from_clops(clops_tensor *ct, const at::Tensor &alias = at::Tensor());
/* A new clops tensor holding t's logical values: its conjugate and negative
 * bits applied on the device, without dispatching (device.cpp). */
at::Tensor resolve_bits(const at::Tensor &t);
/* Gives t the sizes, strides and offset of ct (after clops resized an out=
 * or in-place argument), and its storage the byte size of ct's storage. */
void sync_geometry(const at::Tensor &t, clops_tensor *ct);

/* torch.compile(backend="clops") (compile.cpp): registers (once per name)
 * a fused pointwise op over n_in Tensor operands, each read in its own
 * dtype, whose value is `expr` converted to dtype `result`; returns its id. */
int fused_register(const std::string &name, int n_in, const std::string &expr,
                   const std::string &helpers, const std::string &result);
/* Registers (once per name) a pointwise op over n_in Tensor operands and
 * n_params Scalar parameters p0.. (clops_pointwise_register, PyTorch's
 * default promotion: the operands' common dtype, computed in its compute
 * type), floating dtypes only; returns its id, called with fused_call
 * (the fused AdamW, clops/torch/_optim.py). */
int params_register(const std::string &name, int n_in, int n_params, const std::string &expr,
                    const std::string &helpers);
/* Runs fused op `id` on clops tensors: into `out` when given (its .out
 * variant), else into a new tensor of the broadcast shape; `params` are
 * the op's Scalar parameters (none for fused_register's ops). */
at::Tensor fused_call(int id, const std::vector<at::Tensor> &inputs,
                      const std::optional<at::Tensor> &out, const std::vector<double> &params = {});
/* _clops_addmm_epilogue (dispatch/inventory/gemm.yaml) on clops tensors:
 * act(beta * self + alpha * mat1 @ mat2 [+ residual]) [+ residual after],
 * the matrix engine's fused epilogue where it takes the dtype. */
at::Tensor addmm_epilogue(const std::optional<at::Tensor> &self, const at::Tensor &mat1,
                          const at::Tensor &mat2, const std::optional<at::Tensor> &residual,
                          double beta, double alpha, int64_t activation, bool residual_after);
/* _clops_conv_epilogue (dispatch/inventory/conv.yaml) on clops tensors:
 * act(bn(conv(input, weight) + bias) [+ residual]) [+ residual after],
 * the batch norm folded into the matrix engine's convolution where it
 * takes the call (docs/conv.md). */
at::Tensor conv_epilogue(const at::Tensor &input, const at::Tensor &weight,
                         const std::optional<at::Tensor> &bias, const std::vector<int64_t> &stride,
                         const std::vector<int64_t> &padding,
                         const std::vector<int64_t> &dilation, bool transposed,
                         const std::vector<int64_t> &output_padding, int64_t groups,
                         const std::optional<at::Tensor> &scale,
                         const std::optional<at::Tensor> &shift,
                         const std::optional<at::Tensor> &mean,
                         const std::optional<at::Tensor> &var, double eps,
                         const std::optional<at::Tensor> &residual, int64_t activation,
                         bool residual_after);
/* Gives clops' GEMM engine PyTorch's float32 matmul precision (and, with
 * conv, the convolution precision) before a product (generic.cpp). */
void sync_matmul_precision(bool conv);
/* [launches, programs built, programs loaded from disk, build seconds] of a
 * clops device since the process started (clops_device_get_counters). */
std::vector<double> device_counters(int index);
/* Whether device `index` is a GPU (CL_DEVICE_TYPE_GPU). */
/* _fused_rms_norm (dispatch/inventory/norm.yaml) on clops tensors: clops'
 * fused row kernel, (y, rstd).  PyTorch implements the op as
 * CompositeImplicitAutograd for PrivateUse1, so the bridge does not bind it
 * (docs/torch.md, "Every clops op"): the compiler's RMSNorm lowering calls
 * it here. */
std::tuple<at::Tensor, at::Tensor> rms_norm_fused(const at::Tensor &input,
                                                  const std::vector<int64_t> &normalized_shape,
                                                  const std::optional<at::Tensor> &weight,
                                                  double eps);
bool device_is_gpu(int index);

/* Memory of one clops device (memory.cpp): bytes handed out to storages,
 * bytes in the allocator's cache, the most handed out at once since the
 * start or the last reset (reset_peak: reset after reading), and the
 * device's memory. */
struct MemoryFigures {
    int64_t allocated = 0, cached = 0, peak = 0, total = 0;
};
MemoryFigures memory_figures(int index, bool reset_peak = false);
/* The allocator of tensor.pin_memory() (memory.cpp: host memory it keeps
 * track of), and whether p lies in a block it handed out. */
c10::Allocator *pinned_allocator();
bool is_pinned_ptr(const void *p);

/* Streams and events (stream.cpp): every stream of a device runs on its
 * one in-order queue; events are markers on it, timed by the queue's
 * profiling. */
c10::Stream stream_current(c10::Device d);
c10::Stream stream_exchange(c10::Stream s);
c10::Stream stream_new(c10::Device d);
bool stream_query(const c10::Stream &s);
void event_record(void **event, const c10::Stream &s, c10::DeviceIndex index, c10::EventFlag flag);
void event_block(void *event, const c10::Stream &s);
bool event_query(void *event);
void event_synchronize(void *event);
void event_destroy(void *event) noexcept;
double event_elapsed(void *start, void *end);

/* The complex pointwise basics (complex.cpp): whether `name` (a clops op
 * name, "add.Tensor") is one of them, and running one on the last n values
 * of the stack when an operand is complex.  False, stack untouched, when
 * the call is not one complex.cpp computes (the caller falls back). */
bool complex_op_known(const std::string &name);
bool complex_call(const std::string &name, torch::jit::Stack *stack, size_t n);

/* Generic registration (generic.cpp), called once at import. */
void register_generic_ops();
/* PyTorch's autocast op lists for the AutocastPrivateUse1 key (autocast.cpp),
 * called once at import. */
void register_autocast();
/* The attention kernels (attention.cpp), called once at import. */
void register_attention();
/* "name.overload -> reason" for every clops op not bound to PyTorch. */
std::vector<std::string> schema_mismatches();
std::vector<std::string> registered_ops();
/* The rule register_generic_ops applies, on two schema texts: "" when a
 * call with the first schema's stack can go to an op with the second. */
std::string compare_schema_texts(const std::string &torch_schema, const std::string &clops_schema);
/* Ops that ran through PyTorch's CPU fallback, and through clops' own
 * reference fallback, with their counts. */
std::vector<std::pair<std::string, uint64_t>> fallback_counts();
void reset_fallback_counts();

} // namespace clops_torch
