/* SPDX-License-Identifier: Apache-2.0 */
/*
 * python/csrc/autocast.cpp: torch.autocast("clops") with PyTorch's op lists.
 *
 * Autocast runs at the AutocastPrivateUse1 dispatch key, above autograd: a
 * kernel there casts the arguments of an op on its list and redispatches
 * below the key.  PyTorch registers the lists for CUDA, CPU, XPU, MPS, ...
 * but none for PrivateUse1; the backend brings them.  The bridge registers
 * the lists PyTorch's CUDA autocast uses (autocast_mode.h's AT_FORALL_*
 * macros, so they follow the installed PyTorch): lower-precision ops (matrix
 * products, convolutions, linear, attention) run in the autocast dtype,
 * precision-sensitive ones (exp, log, norms, softmax, losses, sums, ...) in
 * float32, and ops with several inputs (cat-like, addcmul, index_put, ...)
 * at their widest input type; binary_cross_entropy is refused as on CUDA.
 * Every other op passes through (a fallthrough for the key).  Registration
 * is skipped when the PyTorch in use already has kernels for the key.
 */
#include <ATen/autocast_mode.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <torch/library.h>

#include <memory>

#include "bridge.h"

namespace clops_torch {

static at::Tensor binary_cross_entropy_banned(const at::Tensor &, const at::Tensor &,
                                              const std::optional<at::Tensor> &, int64_t)
{
    TORCH_CHECK(false,
                "torch.nn.functional.binary_cross_entropy and torch.nn.BCELoss are unsafe to "
                "autocast.\nMany models use a sigmoid layer right before the binary cross "
                "entropy layer.\nIn this case, combine the two layers using "
                "torch.nn.functional.binary_cross_entropy_with_logits\nor "
                "torch.nn.BCEWithLogitsLoss.  binary_cross_entropy_with_logits and "
                "BCEWithLogits are\nsafe to autocast.");
}

void register_autocast()
{
    static std::unique_ptr<torch::Library> fallthrough, lists;
    const c10::DispatchKey key = c10::DispatchKey::AutocastPrivateUse1;
    auto &dispatcher = c10::Dispatcher::singleton();
    if (!dispatcher.hasBackendFallbackForDispatchKey(key)) {
        fallthrough = std::make_unique<torch::Library>(torch::Library::IMPL, "_",
                                                       std::make_optional(key), __FILE__,
                                                       __LINE__);
        fallthrough->fallback(torch::CppFunction::makeFallthrough());
    }
    auto mm = dispatcher.findSchema({"aten::mm", ""});
    if (mm && mm->hasKernelForDispatchKey(key))
        return; /* this PyTorch brings its own lists for the key */
    lists = std::make_unique<torch::Library>(torch::Library::IMPL, "aten", std::make_optional(key),
                                             __FILE__, __LINE__);
    torch::Library &m = *lists; /* the name the KERNEL macros use */
    /* the unqualified type names of AT_FORALL_DIFFERENT_REDISPATCH_SIGNATURE */
    using namespace at; /* DimnameList: PyTorch 2.11's list has it, 2.15 has not */
    using at::IntArrayRef;
    using at::Scalar;
    using at::ScalarType;
    using at::Tensor;
#define CLOPS_AUTOCAST_LOWER(...) KERNEL_PRIVATEUSEONE(__VA_ARGS__, lower_precision_fp)
#define CLOPS_AUTOCAST_FP32(...) KERNEL_PRIVATEUSEONE(__VA_ARGS__, fp32)
#define CLOPS_AUTOCAST_FP32_OPT(...) KERNEL_PRIVATEUSEONE(__VA_ARGS__, fp32_set_opt_dtype)
#define CLOPS_AUTOCAST_PROMOTE(...) KERNEL_PRIVATEUSEONE(__VA_ARGS__, promote)
    AT_FORALL_LOWER_PRECISION_FP(CLOPS_AUTOCAST_LOWER)
    AT_FORALL_FP32(CLOPS_AUTOCAST_FP32)
    AT_FORALL_FP32_SET_OPT_DTYPE(CLOPS_AUTOCAST_FP32_OPT)
    AT_FORALL_DIFFERENT_REDISPATCH_SIGNATURE(KERNEL_DIFFERENT_REDISPATCH_SIGNATURE_PRIVATEUSEONE)
    AT_FORALL_PROMOTE(CLOPS_AUTOCAST_PROMOTE)
#undef CLOPS_AUTOCAST_LOWER
#undef CLOPS_AUTOCAST_FP32
#undef CLOPS_AUTOCAST_FP32_OPT
#undef CLOPS_AUTOCAST_PROMOTE
    m.impl(TORCH_SELECTIVE_NAME("aten::binary_cross_entropy"),
           TORCH_FN(binary_cross_entropy_banned));
}

} // namespace clops_torch
