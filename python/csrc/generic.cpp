/* SPDX-License-Identifier: Apache-2.0 */
/*
 * python/csrc/generic.cpp: every clops operator on the PyTorch device,
 * bound from its schema, and PyTorch's CPU fallback for the rest.
 *
 * At import, register_generic_ops() walks clops' operator registry.  For
 * each op it finds PyTorch's operator of the same name, parses clops'
 * schema text with PyTorch's own parser and compares the two (argument
 * names, types, keyword-only markers, alias annotations, returns).  An op
 * whose schemas agree gets one boxed kernel for the PrivateUse1 key, a
 * GenericKernel holding the clops op handle and a per-argument conversion
 * plan; one that differs is listed by schema_mismatches() and never bound.
 * Ops PyTorch implements as CompositeImplicitAutograd are left to their
 * decomposition (binding them would hide their autograd formula), and the
 * ops device.cpp implements by hand are skipped.
 *
 * A call converts PyTorch's IValue stack to clops values (tensors become
 * clops views of the same storage), calls the op's handle boxed, and
 * converts the results back: a result sharing an input's storage becomes a
 * view of that input's PyTorch storage, an in-place or out= argument is
 * returned as the same PyTorch tensor with its geometry updated.
 *
 * Matrix products and convolutions (clops' GEMM engine) first give clops
 * PyTorch's float32 matmul precision when it changed.
 *
 * Ops clops lacks go through at::native::cpu_fallback, counted per op and
 * subject to clops' fallback policy (CLOPS_FALLBACK=allow|warn|error).
 * View ops never go there: their geometry is computed on the Meta device
 * and applied to the same storage.
 */
#include <ATen/ATen.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/native/CPUFallback.h>
#include <torch/csrc/jit/frontend/function_schema_parser.h>
#include <torch/library.h>
#include <torch/version.h>

#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>

#include "bridge.h"
#include "clops/matmul.h"

namespace clops_torch {

/* ---- per-op argument plans --------------------------------------------------- */

enum class Kind {
    Tensor, TensorList, OptTensorList, Scalar, Int, Float, Bool, IntList, FloatList, BoolList,
    Dtype, Layout, MemoryFormat, Device, Generator, String, None, Unsupported
};

struct Slot {
    Kind kind = Kind::Unsupported;
    bool optional = false;
    bool write = false;   /* Tensor(a!) */
    std::string alias;    /* alias set "a", "" when none */
};

/* The conversion kind of one PyTorch schema type. */
static Slot slot_of(const c10::TypePtr &type, const c10::AliasInfo *alias)
{
    Slot s;
    c10::TypePtr t = type;
    if (auto opt = t->cast<c10::OptionalType>()) {
        s.optional = true;
        t = opt->getElementType();
    }
    if (alias) {
        s.write = alias->isWrite();
        if (!alias->beforeSets().empty())
            s.alias = alias->beforeSets().begin()->toUnqualString();
    }
    switch (t->kind()) {
    case c10::TypeKind::TensorType: s.kind = Kind::Tensor; break;
    case c10::TypeKind::NumberType: s.kind = Kind::Scalar; break;
    case c10::TypeKind::IntType:
    case c10::TypeKind::SymIntType: s.kind = Kind::Int; break;
    case c10::TypeKind::FloatType: s.kind = Kind::Float; break;
    case c10::TypeKind::BoolType:
    case c10::TypeKind::SymBoolType: s.kind = Kind::Bool; break;
    case c10::TypeKind::StringType: s.kind = Kind::String; break;
    case c10::TypeKind::ScalarTypeType: s.kind = Kind::Dtype; break;
    case c10::TypeKind::LayoutType: s.kind = Kind::Layout; break;
    case c10::TypeKind::MemoryFormatType: s.kind = Kind::MemoryFormat; break;
    case c10::TypeKind::DeviceObjType: s.kind = Kind::Device; break;
    case c10::TypeKind::GeneratorType: s.kind = Kind::Generator; break;
    case c10::TypeKind::NoneType: s.kind = Kind::None; break;
    case c10::TypeKind::ListType: {
        c10::TypePtr e = t->castRaw<c10::ListType>()->getElementType();
        if (e->kind() == c10::TypeKind::TensorType)
            s.kind = Kind::TensorList;
        else if (auto eo = e->cast<c10::OptionalType>())
            s.kind = eo->getElementType()->kind() == c10::TypeKind::TensorType
                         ? Kind::OptTensorList
                         : Kind::Unsupported;
        else if (e->kind() == c10::TypeKind::IntType || e->kind() == c10::TypeKind::SymIntType)
            s.kind = Kind::IntList;
        else if (e->kind() == c10::TypeKind::FloatType)
            s.kind = Kind::FloatList;
        else if (e->kind() == c10::TypeKind::BoolType)
            s.kind = Kind::BoolList;
        break;
    }
    default: break;
    }
    return s;
}

/* Why two schemas differ, "" when PyTorch's arguments can be handed to the
 * clops op one to one. */
static std::string compare_schemas(const c10::FunctionSchema &th, const c10::FunctionSchema &cl)
{
    auto type_str = [](const c10::Argument &a) {
        std::string s = a.type()->annotation_str();
        if (a.N())
            s += "[" + std::to_string(*a.N()) + "]";
        return s;
    };
    auto alias_str = [](const c10::Argument &a) {
        const c10::AliasInfo *ai = a.alias_info();
        if (!ai)
            return std::string();
        return std::string(ai->isWrite() ? "!" : "") +
               (ai->beforeSets().empty() ? "" : ai->beforeSets().begin()->toUnqualString());
    };
    if (th.arguments().size() != cl.arguments().size())
        return "argument count " + std::to_string(cl.arguments().size()) + " vs PyTorch's " +
               std::to_string(th.arguments().size());
    if (th.returns().size() != cl.returns().size())
        return "return count " + std::to_string(cl.returns().size()) + " vs PyTorch's " +
               std::to_string(th.returns().size());
    for (size_t i = 0; i < th.arguments().size(); i++) {
        const c10::Argument &a = th.arguments()[i], &b = cl.arguments()[i];
        if (a.name() != b.name())
            return "argument " + std::to_string(i) + " is '" + b.name() + "', PyTorch's is '" +
                   a.name() + "'";
        if (type_str(a) != type_str(b))
            return "argument '" + a.name() + "' has type " + type_str(b) + ", PyTorch's " +
                   type_str(a);
        if (a.kwarg_only() != b.kwarg_only())
            return "argument '" + a.name() + "' keyword-only differs";
        if (alias_str(a) != alias_str(b))
            return "argument '" + a.name() + "' alias annotation differs";
    }
    for (size_t i = 0; i < th.returns().size(); i++) {
        const c10::Argument &a = th.returns()[i], &b = cl.returns()[i];
        if (type_str(a) != type_str(b))
            return "return " + std::to_string(i) + " has type " + type_str(b) + ", PyTorch's " +
                   type_str(a);
        if (alias_str(a) != alias_str(b))
            return "return " + std::to_string(i) + " alias annotation differs";
    }
    return "";
}

std::string compare_schema_texts(const std::string &torch_schema, const std::string &clops_schema)
{
    return compare_schemas(torch::jit::parseSchema(torch_schema), torch::jit::parseSchema(clops_schema));
}

/* ---- float32 matmul precision ------------------------------------------------------ */

/* The per-backend API's CUDA setting of an op class as a clops precision
 * (torch.backends.cuda.matmul.fp32_precision, torch.backends.cudnn.conv.
 * fp32_precision), for states the legacy queries refuse to report. */
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 9)
#define MATMUL_OP at::Float32Op::MATMUL
#define CONV_OP at::Float32Op::CONV
static const char *per_backend_precision(at::Float32Op op)
{
    return at::globalContext().float32Precision(at::Float32Backend::CUDA, op) ==
                   at::Float32Precision::TF32
               ? "high"
               : "highest";
}
#else
#define MATMUL_OP 0
#define CONV_OP 1
[[noreturn]] static const char *per_backend_precision(int)
{
    throw;
}
#endif

/* PyTorch's float32 matmul precision as clops names it.  The legacy query
 * (torch.get_float32_matmul_precision; torch.backends.cuda.matmul.allow_tf32
 * = True is "high", False "highest") answers unless the newer per-backend
 * API (torch.backends.cuda.matmul.fp32_precision) was mixed with it into a
 * state the legacy one cannot represent; PyTorch's CUDA matmul then follows
 * the per-backend setting, and so does clops. */
static const char *torch_matmul_precision()
{
    try {
        switch (at::globalContext().float32MatmulPrecision()) {
        case at::Float32MatmulPrecision::HIGH: return "high";
        case at::Float32MatmulPrecision::MEDIUM: return "medium";
        default: return "highest";
        }
    } catch (const c10::Error &) {
        return per_backend_precision(MATMUL_OP);
    }
}

/* PyTorch's float32 precision of convolutions as clops names it:
 * torch.backends.cudnn.allow_tf32 (True by default) is "high", False
 * "highest" (or the per-backend API's cuDNN convolution setting where the
 * legacy flag cannot say). */
static const char *torch_conv_precision()
{
    try {
        return at::globalContext().allowTF32CuDNN() ? "high" : "highest";
    } catch (const c10::Error &) {
        return per_backend_precision(CONV_OP);
    }
}

/* Gives clops' GEMM engine PyTorch's current float32 matmul precision,
 * before every matrix product and convolution, and for convolutions also
 * the convolution precision (cuDNN's allow_tf32): a read of PyTorch's
 * setting, and a write to clops only when the two differ. */
void sync_matmul_precision(bool conv)
{
    const char *want = torch_matmul_precision();
    if (strcmp(clops_get_float32_matmul_precision(), want) != 0)
        check(clops_set_float32_matmul_precision(want), "set_float32_matmul_precision");
    if (conv) {
        want = torch_conv_precision();
        if (strcmp(clops_get_float32_conv_precision(), want) != 0)
            check(clops_set_float32_conv_precision(want), "set_float32_conv_precision");
    }
}

/* ---- fallback counters --------------------------------------------------------- */

static std::mutex g_mu;
static std::map<std::string, uint64_t> g_fallbacks;
static std::set<std::string> g_warned;
static std::vector<std::string> g_mismatches, g_registered;
static std::vector<const clops_op *> g_clops_ops;

std::vector<std::pair<std::string, uint64_t>> fallback_counts()
{
    std::vector<std::pair<std::string, uint64_t>> out;
    std::lock_guard<std::mutex> lock(g_mu);
    for (auto &kv : g_fallbacks)
        out.emplace_back(kv.first, kv.second);
    for (int i = 0; i < clops_op_count(); i++) {
        const clops_op *op = clops_op_at(i);
        if (uint64_t n = clops_fallback_count(op))
            out.emplace_back(std::string(clops_op_name(op)) + " [clops reference]", n);
    }
    return out;
}

void reset_fallback_counts()
{
    std::lock_guard<std::mutex> lock(g_mu);
    g_fallbacks.clear();
    clops_fallback_reset_counts();
}

std::vector<std::string> schema_mismatches()
{
    std::lock_guard<std::mutex> lock(g_mu);
    return g_mismatches;
}

std::vector<std::string> registered_ops()
{
    std::lock_guard<std::mutex> lock(g_mu);
    return g_registered;
}

static std::string op_label(const c10::OperatorHandle &op)
{
    const c10::OperatorName &n = op.schema().operator_name();
    std::string s = n.name.rfind("aten::", 0) == 0 ? n.name.substr(6) : n.name;
    return n.overload_name.empty() ? s : s + "." + n.overload_name;
}

/* ---- views without the CPU fallback ---------------------------------------------- */

/* A Meta tensor with t's geometry over a storage of t's size. */
static at::Tensor meta_like(const at::Tensor &t)
{
    int64_t elems = (int64_t)(t.storage().nbytes() / t.dtype().itemsize());
    at::Tensor base = at::empty({elems}, t.options().device(at::kMeta));
    return base.as_strided(t.sizes(), t.strides(), t.storage_offset());
}

/* Whether op returns views of its inputs or changes an input's geometry. */
static bool is_view_op(const c10::OperatorHandle &op)
{
    if (op.hasTag(at::Tag::inplace_view))
        return true;
    const auto &rets = op.schema().returns();
    if (rets.empty())
        return false;
    for (const auto &r : rets)
        if (!r.alias_info() || r.alias_info()->isWrite())
            return false;
    return true;
}

/* Runs a view op on Meta copies of its arguments and applies the resulting
 * geometry to the real storage: the result shares the input's storage, as
 * a view must. */
static void meta_view(const c10::OperatorHandle &op, torch::jit::Stack *stack)
{
    const auto &schema = op.schema();
    size_t n = schema.arguments().size();
    auto args = torch::jit::last(*stack, n);
    torch::jit::Stack meta;
    at::Tensor self;
    for (const auto &a : args) {
        if (a.isTensor() && a.toTensor().defined() && a.toTensor().device().is_privateuseone()) {
            if (!self.defined())
                self = a.toTensor();
            meta.emplace_back(meta_like(a.toTensor()));
        } else {
            meta.push_back(a);
        }
    }
    TORCH_CHECK(self.defined(), "clops: view op ", op_label(op), " has no clops tensor argument");
    op.redispatchBoxed(c10::DispatchKeySet(c10::DispatchKey::Meta), &meta);
    auto to_real = [&](const at::Tensor &m) {
        at::Tensor r = at::detail::make_tensor<c10::TensorImpl>(
            c10::TensorImpl::VIEW, c10::Storage(self.storage()), self.key_set(), m.dtype());
        r.unsafeGetTensorImpl()->set_sizes_and_strides(m.sizes(), m.strides(), m.storage_offset());
        return r;
    };
    torch::jit::drop(*stack, n);
    bool inplace = op.hasTag(at::Tag::inplace_view);
    for (auto &r : meta) {
        if (inplace && r.isTensor()) {
            const at::Tensor &m = r.toTensor();
            self.unsafeGetTensorImpl()->set_sizes_and_strides(m.sizes(), m.strides(),
                                                              m.storage_offset());
            stack->emplace_back(self);
        } else if (r.isTensor()) {
            stack->emplace_back(to_real(r.toTensor()));
        } else if (r.isTensorList()) {
            std::vector<at::Tensor> out;
            for (const at::Tensor &m : r.toTensorVector())
                out.push_back(to_real(m));
            stack->emplace_back(out);
        } else {
            stack->push_back(r);
        }
    }
}

/* Applies the fallback policy to one op about to run on the CPU, and counts
 * it: raises in strict mode, warns once per op in warn mode. */
static void enter_fallback(const std::string &name)
{
    clops_fallback_policy policy = clops_get_fallback_policy();
    TORCH_CHECK_NOT_IMPLEMENTED(policy != CLOPS_FALLBACK_ERROR, "clops: ", name,
                                " has no kernel on the clops device and CLOPS_FALLBACK=error "
                                "forbids running it on the CPU");
    std::lock_guard<std::mutex> lock(g_mu);
    g_fallbacks[name]++;
    if (policy == CLOPS_FALLBACK_WARN && g_warned.insert(name).second)
        TORCH_WARN("clops: ", name, " runs on the CPU (no kernel on the clops device)");
}

/* Raises PyTorch's "Expected all tensors to be on the same device" when an
 * op on the clops device is given a tensor on another device.  As on
 * PyTorch's own devices, a zero-dim CPU tensor may mix (it is a scalar), and
 * so may the `Tensor?[]` index lists of index and index_put_, which PyTorch
 * moves to the device.  Without this check the CPU fallback would copy
 * every argument to the CPU and run the op there, returning CPU tensors. */
static void check_same_device(const std::string &op,
                              const std::vector<std::pair<std::string, at::Tensor>> &tensors)
{
    std::optional<c10::Device> dev;
    const std::pair<std::string, at::Tensor> *other = nullptr;
    for (const auto &nt : tensors) {
        const at::Tensor &t = nt.second;
        if (!t.defined())
            continue;
        if (t.device().is_privateuseone()) {
            if (!dev)
                dev = t.device();
        } else if (!other && !(t.device().is_cpu() && t.dim() == 0)) {
            other = &nt;
        }
    }
    if (!dev || !other)
        return;
    TORCH_CHECK(false, "Expected all tensors to be on the same device, but got ", other->first,
                " is on ", other->second.device().str(), ", different from other tensors on ",
                dev->str(), " (when checking argument in method ", op, ")");
}

static void check_same_device(const c10::OperatorHandle &op, c10::ArrayRef<c10::IValue> in)
{
    const auto &schema = op.schema().arguments();
    std::vector<std::pair<std::string, at::Tensor>> tensors;
    for (size_t i = 0; i < in.size() && i < schema.size(); i++) {
        if (in[i].isTensor())
            tensors.emplace_back(schema[i].name(), in[i].toTensor());
        else if (in[i].isTensorList())
            for (const at::Tensor &t : in[i].toTensorList().vec())
                tensors.emplace_back(schema[i].name(), t);
    }
    check_same_device(op_label(op), tensors);
}

/* The PrivateUse1 fallback: views on Meta, everything else on the CPU
 * (counted, subject to the policy). */
static void cpu_fallback(const c10::OperatorHandle &op, torch::jit::Stack *stack)
{
    if (is_view_op(op)) {
        meta_view(op, stack);
        return;
    }
    check_same_device(op, torch::jit::last(*stack, op.schema().arguments().size()));
    enter_fallback(op_label(op));
    at::native::cpu_fallback(op, stack);
}

/* PyTorch routes convolutions of other backends to these two ops, whose
 * only implementation raises; their CPU fallback runs PyTorch's own
 * convolution on the CPU and moves the results back. */
static at::Tensor conv_fallback(const at::Tensor &input, const at::Tensor &weight,
                                const std::optional<at::Tensor> &bias, c10::IntArrayRef stride,
                                c10::IntArrayRef padding, c10::IntArrayRef dilation,
                                bool transposed, c10::IntArrayRef output_padding, int64_t groups)
{
    check_same_device("convolution_overrideable",
                      {{"input", input}, {"weight", weight}, {"bias", bias ? *bias : at::Tensor()}});
    enter_fallback("convolution_overrideable");
    std::optional<at::Tensor> b;
    if (bias && bias->defined())
        b = bias->cpu();
    return at::convolution(input.cpu(), weight.cpu(), b, stride, padding, dilation, transposed,
                           output_padding, groups)
        .to(input.device());
}

static std::tuple<at::Tensor, at::Tensor, at::Tensor>
conv_backward_fallback(const at::Tensor &grad_output, const at::Tensor &input,
                       const at::Tensor &weight, c10::IntArrayRef stride,
                       c10::IntArrayRef padding, c10::IntArrayRef dilation, bool transposed,
                       c10::IntArrayRef output_padding, int64_t groups,
                       std::array<bool, 3> output_mask)
{
    check_same_device("convolution_backward_overrideable",
                      {{"grad_output", grad_output}, {"input", input}, {"weight", weight}});
    enter_fallback("convolution_backward_overrideable");
    int64_t out_channels = transposed ? weight.size(1) * groups : weight.size(0);
    std::vector<int64_t> bias_sizes{out_channels};
    auto r = at::convolution_backward(grad_output.cpu(), input.cpu(), weight.cpu(),
                                      c10::IntArrayRef(bias_sizes), stride, padding, dilation,
                                      transposed, output_padding, groups, output_mask);
    auto back = [&](const at::Tensor &t) { return t.defined() ? t.to(input.device()) : t; };
    return {back(std::get<0>(r)), back(std::get<1>(r)), back(std::get<2>(r))};
}

/* native_batch_norm updates running_mean and running_var in training mode
 * although its schema does not mark them mutable, so the generic fallback
 * would not copy them back: this one does. */
static std::tuple<at::Tensor, at::Tensor, at::Tensor>
batch_norm_fallback(const at::Tensor &input, const std::optional<at::Tensor> &weight,
                    const std::optional<at::Tensor> &bias,
                    const std::optional<at::Tensor> &running_mean,
                    const std::optional<at::Tensor> &running_var, bool training,
                    double momentum, double eps)
{
    auto opt = [](const std::optional<at::Tensor> &t) { return t ? *t : at::Tensor(); };
    check_same_device("native_batch_norm", {{"input", input},
                                            {"weight", opt(weight)},
                                            {"bias", opt(bias)},
                                            {"running_mean", opt(running_mean)},
                                            {"running_var", opt(running_var)}});
    enter_fallback("native_batch_norm");
    auto cpu = [](const std::optional<at::Tensor> &t) -> std::optional<at::Tensor> {
        if (t && t->defined())
            return t->cpu();
        return std::nullopt;
    };
    std::optional<at::Tensor> rm = cpu(running_mean), rv = cpu(running_var);
    auto r = at::native_batch_norm(input.cpu(), cpu(weight), cpu(bias), rm, rv, training,
                                   momentum, eps);
    if (training && rm)
        running_mean->copy_(*rm);
    if (training && rv)
        running_var->copy_(*rv);
    return {std::get<0>(r).to(input.device()), std::get<1>(r).to(input.device()),
            std::get<2>(r).to(input.device())};
}

static void fallback_boxed(const c10::OperatorHandle &op, torch::jit::Stack *stack)
{
    cpu_fallback(op, stack);
}

TORCH_LIBRARY_IMPL(_, PrivateUse1, m)
{
    m.fallback(torch::CppFunction::makeFromBoxedFunction<&fallback_boxed>());
}

/* ---- the generic kernel ------------------------------------------------------------ */

/* Thrown while converting an argument clops cannot take (a dtype it lacks,
 * a complex scalar, a CPU tensor that is not a zero-dim scalar): the call
 * goes to the CPU fallback instead. */
struct NotConvertible {
    std::string why;
};

/* Everything one call owns: clops views, list storage, uploaded scalars. */
struct CallState {
    std::vector<clops_tensor *> owned;
    std::deque<std::vector<int64_t>> ints;
    std::deque<std::vector<double>> floats;
    std::deque<std::unique_ptr<bool[]>> bools;
    std::deque<std::vector<clops_tensor *>> lists;
    std::vector<clops_tensor *> arg_tensor; /* clops view per argument (Tensor kinds) */
    std::vector<at::Tensor> resolved;       /* inputs whose math bits were resolved */
    bool view_op = false;                   /* bits pass through views */
    clops_device *device = nullptr;
    bool has_double = false; /* a float64 tensor argument (wrapped-number precision) */
    ~CallState()
    {
        for (clops_tensor *t : owned)
            clops_tensor_release(t);
    }
};

struct GenericKernel final : c10::OperatorKernel {
    const clops_op *op;
    std::vector<Slot> args, rets;
    std::string name;
    /* A matrix product or a convolution: both run clops' GEMM engine,
     * whose float32 precision follows PyTorch's setting. */
    bool gemm;

    /* mul/div (functional and in-place) by a real scalar: on a complex
     * tensor they scale both parts, which clops runs on the real view
     * (scale_complex); clops' pointwise ops refuse complex operands. */
    bool complex_scale;
    /* add, mul, abs, exp, fill_, full, constant_pad_nd, ...: complex
     * operands run as real kernels over their parts (complex.cpp). */
    bool complex_known;

    GenericKernel(const clops_op *op_, std::vector<Slot> a, std::vector<Slot> r)
        : op(op_), args(std::move(a)), rets(std::move(r)), name(clops_op_name(op_)),
          gemm(clops_op_has_tag(op_, "blas") || name.rfind("convolution", 0) == 0),
          complex_scale(name == "mul.Tensor" || name == "mul_.Tensor" || name == "mul.Scalar" ||
                        name == "mul_.Scalar" || name == "div.Tensor" || name == "div_.Tensor" ||
                        name == "div.Scalar" || name == "div_.Scalar"),
          complex_known(complex_op_known(name))
    {
    }

    /* A complex clops self times (or over) a real number: the real view
     * times it, viewed as complex again.  False (stack untouched) when the
     * call is not of that form. */
    bool scale_complex(const c10::OperatorHandle &h, torch::jit::Stack *stack)
    {
        auto in = torch::jit::last(*stack, 2);
        if (!in[0].isTensor())
            return false;
        const at::Tensor &self = in[0].toTensor();
        if (!self.defined() || !self.is_complex() || !self.device().is_privateuseone() ||
            self.is_conj() || self.is_neg())
            return false;
        c10::Scalar k;
        if (in[1].isScalar()) {
            k = in[1].toScalar();
        } else if (in[1].isTensor()) {
            const at::Tensor &o = in[1].toTensor();
            if (!o.defined() || o.dim() != 0 || !o.device().is_cpu())
                return false;
            k = o.item();
        } else {
            return false;
        }
        if (k.isComplex())
            return false;
        bool div = name[0] == 'd', inplace = name.find("_.") != std::string::npos;
        at::Tensor rv = at::view_as_real(self);
        c10::IValue result;
        if (inplace) {
            if (div)
                rv.div_(k);
            else
                rv.mul_(k);
            result = self;
        } else {
            at::Tensor r = div ? at::div(rv, k) : at::mul(rv, k);
            if (r.stride(-1) != 1)
                r = r.contiguous();
            result = at::view_as_complex(r);
        }
        torch::jit::drop(*stack, 2);
        stack->push_back(std::move(result));
        (void)h;
        return true;
    }

    /* A clops view of one tensor argument; zero-dim CPU tensors are copied
     * to the call's device (PyTorch lets them mix with device tensors). */
    clops_tensor *tensor(CallState &cs, const at::Tensor &t0, bool written = false)
    {
        if (to_clops_dtype(t0.scalar_type()) == CLOPS_DTYPE_NONE)
            throw NotConvertible{"dtype " + std::string(c10::toString(t0.scalar_type()))};
        at::Tensor t = t0;
        /* PyTorch's lazy conjugate and negative bits (torch.conj,
         * _neg_view): clops views carry them (the result keeps the input's
         * key set); any other op gets the values resolved on the device,
         * or, for a tensor it writes, the CPU fallback. */
        if ((t.is_conj() || t.is_neg()) && !cs.view_op) {
            if (written)
                throw NotConvertible{"a written tensor with a conjugate or negative bit"};
            if (!t.device().is_privateuseone())
                throw NotConvertible{"a host tensor with a conjugate or negative bit"};
            t = resolve_bits(t);
            cs.resolved.push_back(t);
        }
        if (t.device().is_privateuseone()) {
            clops_tensor *ct = to_clops(t);
            cs.owned.push_back(ct);
            return ct;
        }
        if (!t.device().is_cpu() || t.dim() != 0)
            throw NotConvertible{"a tensor on " + t.device().str()};
        clops_tensor *ct = nullptr;
        at::Tensor c = t.contiguous();
        if (t.unsafeGetTensorImpl()->is_wrapped_number() && c.is_floating_point() &&
            !cs.has_double)
            /* A Python float promotes like a scalar: only its category
             * counts, so it enters at the default dtype unless a float64
             * operand needs its full precision. */
            c = c.to(at::get_default_dtype_as_scalartype());
        check(clops_from_host(cs.device, to_clops_dtype(c.scalar_type()), 0, nullptr,
                              c.data_ptr(), c.nbytes(), &ct),
              "scalar upload");
        cs.owned.push_back(ct);
        return ct;
    }

    clops_value convert(CallState &cs, const Slot &s, const c10::IValue &v, size_t idx)
    {
        if (v.isNone())
            return clops_value_none();
        switch (s.kind) {
        case Kind::Tensor: {
            const at::Tensor &t = v.toTensor();
            if (!t.defined())
                return clops_value_none();
            clops_tensor *ct = tensor(cs, t, s.write);
            cs.arg_tensor[idx] = ct;
            return clops_value_tensor(ct);
        }
        case Kind::TensorList:
        case Kind::OptTensorList: {
            std::vector<clops_tensor *> l;
            if (s.kind == Kind::TensorList)
                for (const at::Tensor &t : v.toTensorVector())
                    l.push_back(tensor(cs, t));
            else
                for (const auto &e : v.toOptionalTensorList()) {
                    std::optional<at::Tensor> t = e;
                    l.push_back(t.has_value() && t->defined() ? tensor(cs, *t) : nullptr);
                }
            cs.lists.push_back(std::move(l));
            clops_value r;
            r.tag = CLOPS_V_TENSOR_LIST;
            r.v.tensors.data = cs.lists.back().data();
            r.v.tensors.len = (int)cs.lists.back().size();
            return r;
        }
        case Kind::Scalar: {
            c10::Scalar sc = v.toScalar();
            if (sc.isBoolean())
                return clops_value_scalar(clops_scalar_bool(sc.toBool()));
            if (sc.isIntegral(false))
                return clops_value_scalar(clops_scalar_int(sc.toLong()));
            if (sc.isFloatingPoint())
                return clops_value_scalar(clops_scalar_float(sc.toDouble()));
            throw NotConvertible{"a complex scalar"};
        }
        case Kind::Int: return clops_value_int(v.toInt());
        case Kind::Float: return clops_value_float(v.toDouble());
        case Kind::Bool: return clops_value_bool(v.toBool());
        case Kind::String: {
            return clops_value_string(v.toStringRef().c_str());
        }
        case Kind::IntList: {
            cs.ints.push_back(v.toIntVector());
            return clops_value_ints(cs.ints.back().data(), (int)cs.ints.back().size());
        }
        case Kind::FloatList: {
            cs.floats.push_back(v.toDoubleVector());
            clops_value r;
            r.tag = CLOPS_V_FLOAT_LIST;
            r.v.floats.data = cs.floats.back().data();
            r.v.floats.len = (int)cs.floats.back().size();
            return r;
        }
        case Kind::BoolList: {
            auto bl = v.toBoolList();
            cs.bools.emplace_back(new bool[bl.size() ? bl.size() : 1]);
            for (size_t i = 0; i < bl.size(); i++)
                cs.bools.back()[i] = bl.get(i);
            clops_value r;
            r.tag = CLOPS_V_BOOL_LIST;
            r.v.bools.data = cs.bools.back().get();
            r.v.bools.len = (int)bl.size();
            return r;
        }
        case Kind::Dtype: {
            clops_dtype dt = to_clops_dtype(v.toScalarType());
            if (dt == CLOPS_DTYPE_NONE)
                throw NotConvertible{"dtype " + std::string(c10::toString(v.toScalarType()))};
            return clops_value_dtype(dt);
        }
        case Kind::Layout:
        case Kind::MemoryFormat: {
            clops_value r;
            r.tag = CLOPS_V_ENUM;
            r.v.i = v.toInt();
            return r;
        }
        case Kind::Device: {
            c10::Device d = v.toDevice();
            clops_device *cd = nullptr;
            if (d.is_privateuseone())
                cd = clops_dev(d.has_index() ? d.index() : current_device());
            else if (d.is_cpu())
                check(clops_device_get(0, &cd), "device lookup");
            else
                throw NotConvertible{"device " + d.str()};
            return clops_value_device(cd);
        }
        case Kind::Generator:
            /* A clops generator (torch.Generator(device="clops") or a
             * device's default one) drives the op's Philox stream; None
             * (above) draws from the call device's default generator,
             * which is the PyTorch default generator's own state. */
            return clops_value_generator(generator_of(v.toGenerator()));
        default: throw NotConvertible{"an argument type the bridge cannot convert"};
        }
    }

    /* The device of the call: the first clops tensor argument's, else a
     * Device argument's, else the current one. */
    clops_device *call_device(c10::ArrayRef<c10::IValue> in)
    {
        for (size_t i = 0; i < in.size(); i++) {
            const c10::IValue &v = in[i];
            if (v.isTensor() && v.toTensor().defined() && v.toTensor().device().is_privateuseone())
                return clops_dev(v.toTensor().device().index());
            if (v.isTensorList())
                for (const at::Tensor &t : v.toTensorVector())
                    if (t.device().is_privateuseone())
                        return clops_dev(t.device().index());
            if (v.isDevice() && v.toDevice().is_privateuseone())
                return clops_dev(v.toDevice().has_index() ? v.toDevice().index()
                                                          : current_device());
        }
        return clops_dev(current_device());
    }

    /* The input tensor whose storage a result may share: the argument in
     * the result's alias set, else any input on the same clops storage. */
    at::Tensor alias_for(c10::ArrayRef<c10::IValue> in, const Slot &r, clops_tensor *res)
    {
        clops_storage *s = clops_tensor_storage(res);
        for (size_t i = 0; i < in.size(); i++)
            if (args[i].kind == Kind::Tensor && in[i].isTensor() && in[i].toTensor().defined() &&
                in[i].toTensor().device().is_privateuseone() &&
                storage_of(in[i].toTensor()) == s)
                return in[i].toTensor();
        (void)r;
        return at::Tensor();
    }

    /* empty_like, zeros_like, ones_like, full_like of a clops-device tensor
     * whose storage clops did not allocate: a FakeTensor (meta storage,
     * device clops:K).  These ops read self's geometry alone, and PyTorch's
     * fake-tensor fallback (run_fallback_kernel: an op without a meta
     * function, PyTorch 2.11's torch.compile of clops' fused attention)
     * makes its real inputs with zeros_like(fake, device=fake.device)
     * under no_dispatch.  The result: empty_like's layout (computed on a
     * meta tensor of self's geometry), allocated on the device, filled.
     * False (stack untouched) for any other call. */
    bool like_without_storage(torch::jit::Stack *stack, size_t n)
    {
        bool full = name == "full_like";
        if (!(name == "empty_like" || name == "zeros_like" || name == "ones_like" || full) ||
            n != (full ? 7u : 6u))
            return false;
        auto in = torch::jit::last(*stack, n);
        if (!in[0].isTensor())
            return false;
        const at::Tensor &self = in[0].toTensor();
        if (!self.defined() || !self.device().is_privateuseone() || self.is_nested() ||
            self.layout() != at::kStrided)
            return false;
        const c10::DataPtr &dp = self.storage().data_ptr();
        if (dp.get_deleter() == &storage_deleter && dp.get_context())
            return false; /* a clops tensor: the ordinary path */
        size_t k = full ? 2 : 1; /* dtype, layout, device, pin_memory, memory_format */
        if ((!in[k + 1].isNone() && in[k + 1].toLayout() != at::kStrided) ||
            (!in[k + 3].isNone() && in[k + 3].toBool()))
            return false;
        c10::ScalarType dt = in[k].isNone() ? self.scalar_type() : in[k].toScalarType();
        c10::Device dev = in[k + 2].isNone() ? self.device() : in[k + 2].toDevice();
        if (!dev.is_privateuseone())
            return false;
        if (!dev.has_index())
            dev = c10::Device(c10::DeviceType::PrivateUse1, current_device());
        std::optional<c10::MemoryFormat> mf;
        if (!in[k + 4].isNone())
            mf = in[k + 4].toMemoryFormat();
        at::Tensor shape = at::empty_strided(self.sizes(), self.strides(),
                                             at::TensorOptions().dtype(dt).device(at::kMeta));
        at::Tensor lay = at::empty_like(shape, at::TensorOptions().dtype(dt).device(at::kMeta), mf);
        at::Tensor r = at::empty_strided(lay.sizes(), lay.strides(),
                                         at::TensorOptions().dtype(dt).device(dev));
        if (name == "zeros_like")
            r.zero_();
        else if (name == "ones_like")
            r.fill_(1);
        else if (full)
            r.fill_(in[1].toScalar());
        torch::jit::drop(*stack, n);
        stack->push_back(std::move(r));
        return true;
    }

    void operator()(const c10::OperatorHandle &h, c10::DispatchKeySet ks, torch::jit::Stack *stack)
    {
        size_t n = args.size();
        auto in = torch::jit::last(*stack, n);
        std::vector<clops_value> vals(n), outs(rets.size());
        for (auto &o : outs)
            o = clops_value_none();
        clops_status st;
        {
            if (complex_scale && scale_complex(h, stack))
                return;
            if (complex_known && complex_call(name, stack, n))
                return;
            if (like_without_storage(stack, n))
                return;
            CallState cs;
            cs.arg_tensor.assign(n, nullptr);
            cs.view_op = is_view_op(h);
            for (const auto &v : in)
                if (v.isTensor() && v.toTensor().defined() &&
                    !v.toTensor().unsafeGetTensorImpl()->is_wrapped_number() &&
                    v.toTensor().scalar_type() == at::kDouble)
                    cs.has_double = true;
            try {
                cs.device = call_device(in);
                for (size_t i = 0; i < n; i++)
                    vals[i] = convert(cs, args[i], in[i], i);
            } catch (const NotConvertible &) {
                cpu_fallback(h, stack);
                return;
            }
            if (gemm)
                sync_matmul_precision(name.rfind("convolution", 0) == 0);
            st = clops_call_boxed(op, vals.data(), (int)n, outs.data(), (int)outs.size());
            if (st == CLOPS_NOT_IMPLEMENTED) {
                cpu_fallback(h, stack);
                return;
            }
            check(st, name.c_str());
            /* In-place and out= arguments: clops may have resized them. */
            for (size_t i = 0; i < n; i++)
                if (args[i].write && cs.arg_tensor[i])
                    sync_geometry(in[i].toTensor(), cs.arg_tensor[i]);
            std::vector<c10::IValue> results;
            try {
                for (size_t j = 0; j < rets.size(); j++)
                    results.push_back(result(in, rets[j], outs[j]));
            } catch (...) {
                for (auto &o : outs)
                    clops_value_clear(&o);
                throw;
            }
            for (auto &o : outs)
                clops_value_clear(&o);
            torch::jit::drop(*stack, n);
            for (auto &r : results)
                stack->push_back(std::move(r));
        }
    }

    c10::IValue result(c10::ArrayRef<c10::IValue> in, const Slot &r, const clops_value &v)
    {
        switch (v.tag) {
        case CLOPS_V_NONE:
            /* A result an output_mask did not ask for: PyTorch's kernels
             * return an undefined tensor for a (non-optional) Tensor. */
            if (r.kind == Kind::Tensor && !r.optional)
                return at::Tensor();
            return c10::IValue();
        case CLOPS_V_TENSOR: {
            if (r.write)
                for (size_t i = 0; i < args.size(); i++)
                    if (args[i].write && args[i].alias == r.alias)
                        return in[i];
            return from_clops(v.v.t, alias_for(in, r, v.v.t));
        }
        case CLOPS_V_TENSOR_LIST: {
            std::vector<at::Tensor> l;
            for (int k = 0; k < v.v.tensors.len; k++)
                l.push_back(from_clops(v.v.tensors.data[k], alias_for(in, r, v.v.tensors.data[k])));
            return l;
        }
        case CLOPS_V_SCALAR:
            if (v.v.s.kind == CLOPS_SCALAR_BOOL)
                return c10::Scalar(v.v.s.v.b);
            if (v.v.s.kind == CLOPS_SCALAR_INT)
                return c10::Scalar(v.v.s.v.i);
            return c10::Scalar(v.v.s.v.f);
        case CLOPS_V_INT: return v.v.i;
        case CLOPS_V_FLOAT: return v.v.f;
        case CLOPS_V_BOOL: return v.v.b;
        case CLOPS_V_DTYPE: return to_torch_dtype(v.v.dtype);
        default: TORCH_CHECK(false, "clops: ", name, " returned a value the bridge cannot convert");
        }
    }
};

/* Ops whose PyTorch implementation must stay in charge: device.cpp's own
 * kernels, and copies whose PyTorch composite calls _copy_from. */
static bool bridge_owned(const std::string &name)
{
    static const std::set<std::string> names = {"copy_", "_to_copy"};
    return names.count(name) > 0;
}

void register_generic_ops()
{
    static std::unique_ptr<torch::Library> lib;
    lib = std::make_unique<torch::Library>(torch::Library::IMPL, "aten",
                                           std::make_optional(c10::DispatchKey::PrivateUse1),
                                           __FILE__, __LINE__);
    auto &dispatcher = c10::Dispatcher::singleton();
    std::lock_guard<std::mutex> lock(g_mu);
    for (int i = 0; i < clops_op_count(); i++) {
        const clops_op *op = clops_op_at(i);
        std::string name = clops_op_name(op);
        size_t dot = name.find('.');
        std::string base = name.substr(0, dot), overload = dot == std::string::npos ? "" : name.substr(dot + 1);
        auto handle = dispatcher.findSchema({"aten::" + base, overload});
        if (!handle) {
            g_mismatches.push_back(name + ": not a PyTorch operator");
            continue;
        }
        if (bridge_owned(name) || handle->hasKernelForDispatchKey(c10::DispatchKey::PrivateUse1))
            continue; /* implemented by device.cpp, or left to PyTorch's composite */
        if (handle->hasKernelForDispatchKey(c10::DispatchKey::CompositeImplicitAutograd))
            continue; /* PyTorch decomposes it into ops that are bound */
        const c10::FunctionSchema &th = handle->schema();
        std::string why;
        try {
            c10::FunctionSchema cl = torch::jit::parseSchema(clops_op_schema(op));
            why = compare_schemas(th, cl);
        } catch (const std::exception &e) {
            why = std::string("PyTorch cannot parse clops' schema: ") + e.what();
        }
        std::vector<Slot> a, r;
        for (const auto &arg : th.arguments()) {
            a.push_back(slot_of(arg.real_type(), arg.alias_info()));
            if (why.empty() && a.back().kind == Kind::Unsupported)
                why = "argument '" + arg.name() + "' has a type the bridge cannot convert (" +
                      arg.real_type()->str() + ")";
        }
        for (const auto &ret : th.returns()) {
            r.push_back(slot_of(ret.real_type(), ret.alias_info()));
            if (why.empty() && r.back().kind == Kind::Unsupported)
                why = "a return has a type the bridge cannot convert";
        }
        if (!why.empty()) {
            g_mismatches.push_back(name + ": " + why);
            continue;
        }
        lib->impl(name.c_str(), torch::CppFunction::makeFromBoxedFunctor(
                                    std::make_unique<GenericKernel>(op, std::move(a), std::move(r))));
        g_registered.push_back(name);
    }
    /* Fallbacks the generic one cannot do, unless clops binds the op:
     * PyTorch gives the two convolution ops a CompositeExplicitAutograd
     * kernel that only raises for other backends (so the backend fallback
     * never runs), and native_batch_norm mutates arguments its schema does
     * not mark. */
    auto unbound = [&](const char *name) {
        auto h = dispatcher.findSchema({std::string("aten::") + name, ""});
        return h && !h->hasKernelForDispatchKey(c10::DispatchKey::PrivateUse1);
    };
    if (unbound("convolution_overrideable"))
        lib->impl("convolution_overrideable", TORCH_FN(conv_fallback));
    if (unbound("native_batch_norm"))
        lib->impl("native_batch_norm", TORCH_FN(batch_norm_fallback));
    if (unbound("convolution_backward_overrideable"))
        lib->impl("convolution_backward_overrideable", TORCH_FN(conv_backward_fallback));
}

} // namespace clops_torch
