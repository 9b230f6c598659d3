/* SPDX-License-Identifier: Apache-2.0 */
/*
 * python/csrc/compile.cpp: what torch.compile(backend="clops")
 * (clops/torch/_compile.py) needs from the bridge: registering the fused
 * pointwise ops it generates (clops_pointwise_register with promotion
 * "none": each operand in its own dtype, the expression converts, the
 * result dtype fixed) and calling them on PyTorch tensors without going
 * through PyTorch's dispatcher (a compiled graph has done autograd and
 * functionalization already), the matrix product with a fused epilogue
 * it lowers a product and its pointwise consumers onto
 * (_clops_addmm_epilogue), the convolution with its bias, eval batch norm,
 * activation and residual (_clops_conv_epilogue), the device counters
 * (kernel launches, program builds) the model runner and the cache test
 * read, and whether a device is a GPU (where attention lowering pays).
 */
#include <climits>
#include <map>
#include <mutex>

#include "bridge.h"
#include "clops/pointwise.h"

namespace clops_torch {

static std::mutex g_fused_mu;
static std::map<std::string, int> g_fused_ids;   /* op name -> index */
static std::vector<const clops_op *> g_fused_ops; /* index -> op */
static std::vector<const clops_op *> g_fused_outs; /* index -> its .out variant */

/* Registers (once per name) a pointwise op over n_in Tensor operands a..
 * and n_params Scalar parameters p0.. with the promotion given (and the
 * result dtype, for promotion "none"), and its .out variant; returns its
 * index in g_fused_ops. */
static int register_pointwise(const std::string &name, int n_in, int n_params,
                              const std::string &expr, const std::string &helpers,
                              const char *promotion, const char *result)
{
    TORCH_CHECK(n_in >= 1 && n_in <= 4, "clops: pointwise op ", name, " has ", num(n_in),
                " operands; clops_pointwise_register takes 1 to 4");
    TORCH_CHECK(n_params >= 0 && n_params <= 4, "clops: pointwise op ", name, " has ",
                num(n_params), " parameters; clops_pointwise_register takes 0 to 4");
    std::lock_guard<std::mutex> lock(g_fused_mu);
    auto it = g_fused_ids.find(name);
    if (it != g_fused_ids.end())
        return it->second;
    std::string schema = name + "(", params;
    for (int j = 0; j < n_in; j++)
        schema += std::string(j ? ", " : "") + "Tensor " + (char)('a' + j);
    for (int k = 0; k < n_params; k++) {
        schema += ", Scalar p" + std::to_string(k);
        params += std::string(k ? "," : "") + "p" + std::to_string(k);
    }
    schema += ") -> Tensor";
    clops_pointwise_def def = {};
    def.schema = schema.c_str();
    def.expr = expr.c_str();
    def.helpers = helpers.empty() ? nullptr : helpers.c_str();
    def.params = n_params ? params.c_str() : nullptr;
    def.promotion = promotion;
    def.result = result;
    def.variants = true; /* name.out: writes a given destination (eager's layout, in place) */
    const clops_op *op = nullptr, *out = nullptr;
    check(clops_pointwise_register(&def, &op), "registering a pointwise op");
    check(clops_op_find((name + ".out").c_str(), &out), "finding a pointwise op's out variant");
    g_fused_ops.push_back(op);
    g_fused_outs.push_back(out);
    int id = (int)g_fused_ops.size() - 1;
    g_fused_ids[name] = id;
    return id;
}

int fused_register(const std::string &name, int n_in, const std::string &expr,
                   const std::string &helpers, const std::string &result)
{
    return register_pointwise(name, n_in, 0, expr, helpers, "none", result.c_str());
}

int params_register(const std::string &name, int n_in, int n_params, const std::string &expr,
                    const std::string &helpers)
{
    return register_pointwise(name, n_in, n_params, expr, helpers, "default", nullptr);
}

/* The clops tensors of one call (views of its PyTorch tensors, and its
 * result), released when the call returns or throws. */
struct Owned {
    std::vector<clops_tensor *> v;
    Owned() = default;
    Owned(const Owned &) = delete;
    Owned &operator=(const Owned &) = delete;
    ~Owned()
    {
        for (clops_tensor *t : v)
            clops_tensor_release(t);
    }
    /* A boxed argument viewing t. */
    clops_value arg(const at::Tensor &t)
    {
        v.push_back(to_clops(t));
        return clops_value_tensor(v.back());
    }
};

at::Tensor fused_call(int id, const std::vector<at::Tensor> &inputs,
                      const std::optional<at::Tensor> &out, const std::vector<double> &params)
{
    const clops_op *op = nullptr;
    {
        std::lock_guard<std::mutex> lock(g_fused_mu);
        TORCH_CHECK(id >= 0 && id < (int)g_fused_ops.size(), "clops: no fused op ", num(id));
        op = out ? g_fused_outs[(size_t)id] : g_fused_ops[(size_t)id];
    }
    std::vector<clops_value> args;
    Owned owned;
    for (const at::Tensor &t : inputs)
        args.push_back(owned.arg(t));
    for (double p : params)
        args.push_back(clops_value_scalar(clops_scalar_float(p)));
    if (out)
        args.push_back(owned.arg(*out));
    clops_value ret = clops_value_none();
    check(clops_call_boxed(op, args.data(), (int)args.size(), &ret, 1), clops_op_name(op));
    owned.v.push_back(ret.v.t); /* released with the views */
    if (out) {
        sync_geometry(*out, owned.v[owned.v.size() - 2]);
        return *out;
    }
    return from_clops(ret.v.t);
}

at::Tensor addmm_epilogue(const std::optional<at::Tensor> &self, const at::Tensor &mat1,
                          const at::Tensor &mat2, const std::optional<at::Tensor> &residual,
                          double beta, double alpha, int64_t activation, bool residual_after)
{
    static const clops_op *op = [] {
        const clops_op *o = nullptr;
        check(clops_op_find("_clops_addmm_epilogue", &o), "finding _clops_addmm_epilogue");
        return o;
    }();
    sync_matmul_precision(false);
    Owned owned;
    clops_value args[8] = {self ? owned.arg(*self) : clops_value_none(),
                           owned.arg(mat1),
                           owned.arg(mat2),
                           residual ? owned.arg(*residual) : clops_value_none(),
                           clops_value_scalar(clops_scalar_float(beta)),
                           clops_value_scalar(clops_scalar_float(alpha)),
                           clops_value_int(activation),
                           clops_value_bool(residual_after)};
    clops_value ret = clops_value_none();
    check(clops_call_boxed(op, args, 8, &ret, 1), "_clops_addmm_epilogue");
    owned.v.push_back(ret.v.t); /* from_clops takes its own reference */
    return from_clops(ret.v.t);
}

std::tuple<at::Tensor, at::Tensor> rms_norm_fused(const at::Tensor &input,
                                                  const std::vector<int64_t> &normalized_shape,
                                                  const std::optional<at::Tensor> &weight,
                                                  double eps)
{
    static const clops_op *op = [] {
        const clops_op *o = nullptr;
        check(clops_op_find("_fused_rms_norm", &o), "finding _fused_rms_norm");
        return o;
    }();
    if (normalized_shape.size() > (size_t)INT_MAX)
        throw std::invalid_argument("_fused_rms_norm: normalized_shape too long");
    Owned owned;
    clops_value args[4] = {owned.arg(input),
                           clops_value_ints(normalized_shape.data(), (int)normalized_shape.size()),
                           weight ? owned.arg(*weight) : clops_value_none(),
                           clops_value_float(eps)};
    clops_value ret[2] = {clops_value_none(), clops_value_none()};
    check(clops_call_boxed(op, args, 4, ret, 2), "_fused_rms_norm");
    owned.v.push_back(ret[0].v.t); /* from_clops takes its own references */
    owned.v.push_back(ret[1].v.t);
    return {from_clops(ret[0].v.t), from_clops(ret[1].v.t)};
}

bool device_is_gpu(int index)
{
    return clops_device_get_info(clops_dev((c10::DeviceIndex)index))->is_gpu;
}

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
                         bool residual_after)
{
    static const clops_op *op = [] {
        const clops_op *o = nullptr;
        check(clops_op_find("_clops_conv_epilogue", &o), "finding _clops_conv_epilogue");
        return o;
    }();
    sync_matmul_precision(true);
    Owned owned;
    auto opt = [&](const std::optional<at::Tensor> &t) {
        return t ? owned.arg(*t) : clops_value_none();
    };
    auto ints = [](const std::vector<int64_t> &v) {
        return clops_value_ints(v.data(), (int)v.size());
    };
    clops_value args[17] = {owned.arg(input),
                            owned.arg(weight),
                            opt(bias),
                            ints(stride),
                            ints(padding),
                            ints(dilation),
                            clops_value_bool(transposed),
                            ints(output_padding),
                            clops_value_int(groups),
                            opt(scale),
                            opt(shift),
                            opt(mean),
                            opt(var),
                            clops_value_float(eps),
                            opt(residual),
                            clops_value_int(activation),
                            clops_value_bool(residual_after)};
    clops_value ret = clops_value_none();
    check(clops_call_boxed(op, args, 17, &ret, 1), "_clops_conv_epilogue");
    owned.v.push_back(ret.v.t); /* from_clops takes its own reference */
    return from_clops(ret.v.t);
}

std::vector<double> device_counters(int index)
{
    clops_device_counters c;
    check(clops_device_get_counters(clops_dev((c10::DeviceIndex)index), &c), "device counters");
    return {(double)c.launches, (double)c.programs_built, (double)c.programs_loaded,
            c.build_seconds};
}

} // namespace clops_torch
