/* SPDX-License-Identifier: Apache-2.0 */
/*
 * python/csrc/attention.cpp: scaled-dot-product attention and the
 * multi-head attention fast path on the clops device.
 *
 * torch.nn.functional.scaled_dot_product_attention asks the device's
 * _fused_sdp_choice_stub which backend runs a call.  clops answers
 * "overrideable" when its fused kernel (clops' _fused_attention,
 * ops/attention/) covers the call — float32/float16/bfloat16, ranks 2 to
 * 4, head dims up to 256, key/value heads equal to or (enable_gqa)
 * dividing the query heads, a bool or same-dtype additive mask that
 * broadcasts (its gradient, when it needs one, comes from the fused
 * backward), not is_causal together with a mask —
 * and "math" otherwise (PyTorch's composite of matmuls and softmax, also
 * on the device).  The overrideable path is
 * _scaled_dot_product_fused_attention_overrideable and its backward,
 * registered here on clops' forward and backward: the output, the float32
 * logsumexp, and the dropout stream's (seed, offset) as philox_seed.
 * _efficient_attention_forward and its backward (custom_mask_type: the
 * causal alignment) run on the same kernels: bottom-right causal attention
 * (causal_lower_right) reaches them (clops/torch/_attention.py).
 *
 * _native_multi_head_attention (nn.MultiheadAttention and
 * nn.TransformerEncoderLayer in eval mode under no_grad) runs its
 * in-projection and out-projection as linear layers on the device and the
 * attention through the fused kernel (need_weights=False) or, when the
 * weights are asked for, as matmul + softmax + matmul, all on the device.
 * _transformer_encoder_layer_fwd (nn.TransformerEncoderLayer's fast path)
 * composes it with the layer norms and the feed-forward block.
 */
#include <ATen/ATen.h>
#include <ATen/SDPBackend.h>
#include <ATen/native/DispatchStub.h>
#include <ATen/native/transformers/attention.h>
#include <torch/library.h>

#include <cmath>

#include "bridge.h"

namespace clops_torch {

namespace {

/* Owns a clops tensor view for one call. */
struct Ref {
    clops_tensor *t = nullptr;
    Ref() = default;
    explicit Ref(clops_tensor *x) : t(x) {}
    Ref(const Ref &) = delete;
    Ref &operator=(const Ref &) = delete;
    ~Ref() { clops_tensor_release(t); }
};

clops_tensor *opt_clops(const std::optional<at::Tensor> &t)
{
    return t && t->defined() ? to_clops(*t) : nullptr;
}

/* Whether clops' fused kernel takes the call (ops/attention/attention.c). */
bool fused_covers(const at::Tensor &q, const at::Tensor &k, const at::Tensor &v,
                  const std::optional<at::Tensor> &mask, bool is_causal, bool enable_gqa)
{
    auto st = q.scalar_type();
    if (st != at::kFloat && st != at::kHalf && st != at::kBFloat16)
        return false;
    if (k.scalar_type() != st || v.scalar_type() != st)
        return false;
    if (q.is_nested() || k.is_nested() || v.is_nested())
        return false;
    int64_t nd = q.dim();
    if (nd < 2 || nd > 4 || k.dim() != nd || v.dim() != nd)
        return false;
    for (const at::Tensor *t : {&q, &k, &v})
        if (!t->device().is_privateuseone())
            return false;
    if (q.size(-1) > 256 || v.size(-1) > 256 || k.size(-1) != q.size(-1) ||
        v.size(-2) != k.size(-2))
        return false;
    for (int64_t i = 0; i < nd - 3; i++)
        if (k.size(i) != q.size(i) || v.size(i) != q.size(i))
            return false;
    if (nd >= 3) {
        int64_t hq = q.size(-3), hk = k.size(-3);
        if (v.size(-3) != hk)
            return false;
        if (hq != hk && !(enable_gqa && hk > 0 && hq % hk == 0))
            return false;
    }
    if (mask && mask->defined()) {
        if (is_causal || !mask->device().is_privateuseone())
            return false;
        if (mask->scalar_type() != at::kBool && mask->scalar_type() != st)
            return false;
        if (mask->dim() > 4)
            return false;
        int64_t want[4] = {1, 1, q.size(-2), k.size(-2)};
        if (nd >= 3)
            want[1] = q.size(-3);
        if (nd == 4)
            want[0] = q.size(0);
        for (int64_t i = 0; i < mask->dim(); i++) {
            int64_t s = mask->size(mask->dim() - 1 - i), w = want[3 - i];
            if (s != 1 && s != w)
                return false;
        }
    }
    return true;
}

int64_t fused_sdp_choice(const at::Tensor &q, const at::Tensor &k, const at::Tensor &v,
                         const std::optional<at::Tensor> &mask, double dropout_p, bool is_causal,
                         std::optional<double> scale, bool enable_gqa)
{
    (void)dropout_p;
    (void)scale;
    return static_cast<int64_t>(fused_covers(q, k, v, mask, is_causal, enable_gqa)
                                    ? at::SDPBackend::overrideable
                                    : at::SDPBackend::math);
}

std::tuple<at::Tensor, at::Tensor, at::Tensor, at::Tensor, c10::SymInt, c10::SymInt, at::Tensor,
           at::Tensor, at::Tensor>
sdpa_overrideable(const at::Tensor &query, const at::Tensor &key, const at::Tensor &value,
                  const std::optional<at::Tensor> &attn_bias, double dropout_p, bool is_causal,
                  bool return_debug_mask, std::optional<double> scale)
{
    TORCH_CHECK(!return_debug_mask, "clops: scaled_dot_product_attention cannot return the "
                                    "debug attention mask");
    Ref q(to_clops(query)), k(to_clops(key)), v(to_clops(value)), m(opt_clops(attn_bias));
    clops_tensor *o = nullptr, *l = nullptr, *r = nullptr;
    double sc = scale ? *scale : 0.0;
    check(clops__fused_attention(q.t, k.t, v.t, m.t, dropout_p, is_causal, scale ? &sc : nullptr,
                                 nullptr, false, &o, &l, &r),
          "_fused_attention");
    Ref ro(o), rl(l), rr(r);
    at::Tensor out = from_clops(o), lse = from_clops(l), rng = from_clops(r);
    /* PyTorch's meta function gives a 3-D query's logsumexp a batch dim of
     * 1 ([1, H, L]); the output is laid out like query by clops' op, as
     * the meta function lays it out (alloc_with_matching_layout). */
    if (query.dim() == 3)
        lse = lse.unsqueeze(0);
    at::Tensor none = at::empty({0}, query.options().dtype(at::kLong));
    return {out,
            lse,
            none,
            none,
            c10::SymInt(query.size(-2)),
            c10::SymInt(key.size(-2)),
            rng,
            none,
            at::empty({0}, query.options())};
}

/* clops' fused backward: dQ, dK, dV, and the additive mask's gradient when
 * mask_grad (undefined otherwise). */
std::tuple<at::Tensor, at::Tensor, at::Tensor, at::Tensor>
fused_backward(const at::Tensor &grad_out, const at::Tensor &query, const at::Tensor &key,
               const at::Tensor &value, const at::Tensor &attn_bias, bool mask_grad,
               const at::Tensor &out, const at::Tensor &logsumexp, double dropout_p,
               bool is_causal, bool lower_right, const at::Tensor &rng_state,
               std::optional<double> scale)
{
    mask_grad = mask_grad && attn_bias.defined() && attn_bias.is_floating_point();
    /* grad_out is read through its strides; the logsumexp of a 3-D query
     * comes back as the forward gave it to PyTorch, [1, H, L]. */
    at::Tensor lse = logsumexp;
    if (lse.dim() == query.dim() && query.dim() == 3 && lse.size(0) == 1)
        lse = lse.squeeze(0);
    Ref g(to_clops(grad_out)), q(to_clops(query)), k(to_clops(key)), v(to_clops(value)),
        o(to_clops(out)), l(to_clops(lse)), r(to_clops(rng_state)),
        m(attn_bias.defined() ? to_clops(attn_bias) : nullptr);
    clops_tensor *gq = nullptr, *gk = nullptr, *gv = nullptr, *gm = nullptr;
    double sc = scale ? *scale : 0.0;
    check(clops__fused_attention_backward(g.t, q.t, k.t, v.t, o.t, l.t, r.t, m.t, dropout_p,
                                          is_causal, scale ? &sc : nullptr, lower_right,
                                          mask_grad, &gq, &gk, &gv, &gm),
          "_fused_attention_backward");
    Ref a(gq), b(gk), c(gv), d(gm);
    return {from_clops(gq), from_clops(gk), from_clops(gv), gm ? from_clops(gm) : at::Tensor()};
}

/* What clops' fused kernel does not take of the efficient-attention ops. */
void efficient_checks(const at::Tensor &query, const std::optional<at::Tensor> &cu_seqlens_q,
                      const std::optional<at::Tensor> &cu_seqlens_k,
                      const std::optional<at::Tensor> &seqlen_k,
                      std::optional<int64_t> window_size, int64_t custom_mask_type)
{
    TORCH_CHECK(query.dim() == 4, "clops: _efficient_attention_forward expects 4-D [B, M, H, K] "
                                  "inputs, got query ",
                query.sizes());
    TORCH_CHECK(!(cu_seqlens_q && cu_seqlens_q->defined()) &&
                    !(cu_seqlens_k && cu_seqlens_k->defined()) &&
                    !(seqlen_k && seqlen_k->defined()) && !window_size,
                "clops: _efficient_attention_forward takes no variable-length batches "
                "(cu_seqlens_q/cu_seqlens_k/seqlen_k) or window_size");
    TORCH_CHECK(custom_mask_type >= 0 && custom_mask_type <= 2,
                "clops: _efficient_attention_forward: custom_mask_type must be 0 (none), 1 "
                "(causal, top-left) or 2 (causal, bottom-right), got ",
                custom_mask_type);
}

std::tuple<at::Tensor, at::Tensor, at::Tensor, at::Tensor>
sdpa_overrideable_backward(const at::Tensor &grad_out, const at::Tensor &query,
                           const at::Tensor &key, const at::Tensor &value,
                           const at::Tensor &attn_bias, std::array<bool, 4> grad_input_mask,
                           const at::Tensor &out, const at::Tensor &logsumexp,
                           const at::Tensor &cum_seq_q, const at::Tensor &cum_seq_k,
                           c10::SymInt max_q, c10::SymInt max_k, double dropout_p, bool is_causal,
                           const at::Tensor &philox_seed, const at::Tensor &philox_offset,
                           std::optional<double> scale)
{
    (void)cum_seq_q;
    (void)cum_seq_k;
    (void)max_q;
    (void)max_k;
    (void)philox_offset;
    return fused_backward(grad_out, query, key, value, attn_bias, grad_input_mask[3], out,
                          logsumexp, dropout_p, is_causal, false, philox_seed, scale);
}

/* PyTorch's memory-efficient attention ops, on clops' fused kernel: the
 * interface that carries the causal alignment (custom_mask_type 1:
 * top-left, 2: bottom-right), which the CausalBias of
 * torch.nn.attention.bias.causal_lower_right reaches on the device
 * (clops/torch/_attention.py).  Inputs and outputs are [B, M, H, K]; no
 * variable-length batches or sliding windows. */
std::tuple<at::Tensor, at::Tensor, at::Tensor, at::Tensor, c10::SymInt, c10::SymInt>
efficient_attention(const at::Tensor &query, const at::Tensor &key, const at::Tensor &value,
                    const std::optional<at::Tensor> &bias,
                    const std::optional<at::Tensor> &cu_seqlens_q,
                    const std::optional<at::Tensor> &cu_seqlens_k,
                    std::optional<c10::SymInt> max_seqlen_q,
                    std::optional<c10::SymInt> max_seqlen_k, double dropout_p,
                    int64_t custom_mask_type, bool compute_log_sumexp,
                    std::optional<double> scale, const std::optional<at::Tensor> &seqlen_k,
                    std::optional<int64_t> window_size)
{
    (void)max_seqlen_q;
    (void)max_seqlen_k;
    (void)compute_log_sumexp;
    efficient_checks(query, cu_seqlens_q, cu_seqlens_k, seqlen_k, window_size, custom_mask_type);
    at::Tensor qt = query.transpose(1, 2), kt = key.transpose(1, 2), vt = value.transpose(1, 2);
    TORCH_CHECK(fused_covers(qt, kt, vt, bias, false, true),
                "clops: _efficient_attention_forward: the fused kernel does not take query ",
                query.sizes(), " key ", key.sizes(), " value ", value.sizes(), " of ",
                query.scalar_type(), " with this bias (docs/attention.md)");
    Ref q(to_clops(qt)), k(to_clops(kt)), v(to_clops(vt)), m(opt_clops(bias));
    clops_tensor *o = nullptr, *l = nullptr, *r = nullptr;
    double sc = scale ? *scale : 0.0;
    check(clops__fused_attention(q.t, k.t, v.t, m.t, dropout_p, custom_mask_type != 0,
                                 scale ? &sc : nullptr, nullptr, custom_mask_type == 2, &o, &l, &r),
          "_fused_attention");
    Ref ro(o), rl(l), rr(r);
    return {from_clops(o).transpose(1, 2),
            from_clops(l),
            from_clops(r),
            at::empty({0}, query.options().dtype(at::kLong)),
            c10::SymInt(query.size(1)),
            c10::SymInt(key.size(1))};
}

std::tuple<at::Tensor, at::Tensor, at::Tensor, at::Tensor> efficient_attention_backward(
    const at::Tensor &grad_out, const at::Tensor &query, const at::Tensor &key,
    const at::Tensor &value, const std::optional<at::Tensor> &bias, const at::Tensor &out,
    const std::optional<at::Tensor> &cu_seqlens_q, const std::optional<at::Tensor> &cu_seqlens_k,
    c10::SymInt max_seqlen_q, c10::SymInt max_seqlen_k, const at::Tensor &logsumexp,
    double dropout_p, const at::Tensor &philox_seed, const at::Tensor &philox_offset,
    int64_t custom_mask_type, bool bias_requires_grad, std::optional<double> scale,
    std::optional<int64_t> num_splits_key, std::optional<int64_t> window_size,
    bool shared_storage_dqdkdv)
{
    (void)max_seqlen_q;
    (void)max_seqlen_k;
    (void)philox_offset;
    (void)num_splits_key;
    (void)shared_storage_dqdkdv;
    efficient_checks(query, cu_seqlens_q, cu_seqlens_k, std::nullopt, window_size,
                     custom_mask_type);
    at::Tensor b = bias ? *bias : at::Tensor();
    auto g = fused_backward(grad_out.transpose(1, 2), query.transpose(1, 2), key.transpose(1, 2),
                            value.transpose(1, 2), b, bias_requires_grad, out.transpose(1, 2),
                            logsumexp, dropout_p, custom_mask_type != 0, custom_mask_type == 2,
                            philox_seed, scale);
    return {std::get<0>(g).transpose(1, 2), std::get<1>(g).transpose(1, 2),
            std::get<2>(g).transpose(1, 2), std::get<3>(g)};
}

/* The native multi-head attention mask (true: masked out) as an SDPA
 * mask (true: attend) of [B, nh, T, S] broadcast shape; float masks are
 * additive as they are. */
at::Tensor mha_mask(const at::Tensor &mask, std::optional<int64_t> mask_type, int64_t B,
                    int64_t T, int64_t S)
{
    at::Tensor m = mask.scalar_type() == at::kBool ? mask.logical_not() : mask;
    if (mask_type && *mask_type == 1)
        return m.view({B, 1, 1, S});
    if (m.dim() == 2 && m.size(0) == B && m.size(1) == S && !(B == T))
        return m.view({B, 1, 1, S});
    if (m.dim() == 3)
        return m.view({B, -1, T, S});
    return m;
}

std::tuple<at::Tensor, at::Tensor>
native_mha(const at::Tensor &query, const at::Tensor &key, const at::Tensor &value,
           int64_t embed_dim, int64_t num_head, const at::Tensor &qkv_weight,
           const at::Tensor &qkv_bias, const at::Tensor &proj_weight, const at::Tensor &proj_bias,
           const std::optional<at::Tensor> &mask, bool need_weights, bool average_attn_weights,
           std::optional<int64_t> mask_type)
{
    TORCH_CHECK(query.dim() == 3 && key.dim() == 3 && value.dim() == 3,
                "clops: _native_multi_head_attention expects batched 3-D query, key and value");
    TORCH_CHECK(embed_dim % num_head == 0, "clops: embed_dim must be divisible by num_head");
    int64_t B = query.size(0), T = query.size(1), S = key.size(1), dh = embed_dim / num_head;
    at::Tensor q, k, v;
    if (query.is_same(key) && key.is_same(value)) {
        auto qkv = at::linear(query, qkv_weight, qkv_bias).chunk(3, -1);
        q = qkv[0], k = qkv[1], v = qkv[2];
    } else {
        auto w = qkv_weight.chunk(3, 0);
        auto b = qkv_bias.chunk(3, 0);
        q = at::linear(query, w[0], b[0]);
        k = at::linear(key, w[1], b[1]);
        v = at::linear(value, w[2], b[2]);
    }
    q = q.view({B, T, num_head, dh}).transpose(1, 2);
    k = k.view({B, S, num_head, dh}).transpose(1, 2);
    v = v.view({B, S, num_head, dh}).transpose(1, 2);
    std::optional<at::Tensor> m;
    if (mask && mask->defined())
        m = mha_mask(*mask, mask_type, B, T, S);
    at::Tensor ctx, weights;
    if (!need_weights) {
        ctx = at::scaled_dot_product_attention(q, k, v, m, 0.0, false);
    } else {
        at::Tensor s = at::matmul(q, k.transpose(-2, -1)).mul_(1.0 / std::sqrt((double)dh));
        if (m) {
            if (m->scalar_type() == at::kBool)
                s = s.masked_fill(m->logical_not(), -std::numeric_limits<double>::infinity());
            else
                s = s + *m;
        }
        at::Tensor p = at::_safe_softmax(s, -1);
        ctx = at::matmul(p, v);
        weights = average_attn_weights ? p.mean(1) : p;
    }
    ctx = ctx.transpose(1, 2).reshape({B, T, embed_dim});
    return {at::linear(ctx, proj_weight, proj_bias), weights};
}

/* _transformer_encoder_layer_fwd (nn.TransformerEncoderLayer in eval mode
 * under no_grad): self-attention through native_mha, the feed-forward
 * block as two linear layers, layer norms before (norm_first) or after
 * each residual add, as PyTorch's CPU kernel computes it. */
at::Tensor encoder_layer_fwd(const at::Tensor &src, int64_t embed_dim, int64_t num_heads,
                             const at::Tensor &qkv_weight, const at::Tensor &qkv_bias,
                             const at::Tensor &proj_weight, const at::Tensor &proj_bias,
                             bool use_gelu, bool norm_first, double eps,
                             const at::Tensor &norm_weight_1, const at::Tensor &norm_bias_1,
                             const at::Tensor &norm_weight_2, const at::Tensor &norm_bias_2,
                             const at::Tensor &ffn_weight_1, const at::Tensor &ffn_bias_1,
                             const at::Tensor &ffn_weight_2, const at::Tensor &ffn_bias_2,
                             const std::optional<at::Tensor> &mask,
                             std::optional<int64_t> mask_type)
{
    TORCH_CHECK(src.dim() == 3, "clops: _transformer_encoder_layer_fwd expects a batched 3-D src");
    std::vector<int64_t> shape{embed_dim};
    auto norm1 = [&](const at::Tensor &x) {
        return at::layer_norm(x, shape, norm_weight_1, norm_bias_1, eps);
    };
    auto norm2 = [&](const at::Tensor &x) {
        return at::layer_norm(x, shape, norm_weight_2, norm_bias_2, eps);
    };
    auto attn = [&](const at::Tensor &x) {
        return std::get<0>(native_mha(x, x, x, embed_dim, num_heads, qkv_weight, qkv_bias,
                                      proj_weight, proj_bias, mask, false, true, mask_type));
    };
    auto ffn = [&](const at::Tensor &x) {
        at::Tensor h = at::linear(x, ffn_weight_1, ffn_bias_1);
        h = use_gelu ? at::gelu(h) : at::relu(h);
        return at::linear(h, ffn_weight_2, ffn_bias_2);
    };
    at::Tensor x = src;
    if (norm_first) {
        x = x + attn(norm1(x));
        return x + ffn(norm2(x));
    }
    x = norm1(x + attn(x));
    return norm2(x + ffn(x));
}

} // namespace

/* Registers the three kernels (called once from device.cpp's init).  The
 * library object is never destroyed: no deregistration runs at interpreter
 * exit, while autograd's device threads may still be starting. */
void register_attention()
{
    auto *m = new torch::Library(torch::Library::IMPL, "aten",
                                 std::make_optional(c10::DispatchKey::PrivateUse1), __FILE__,
                                 __LINE__);
    m->impl("_scaled_dot_product_fused_attention_overrideable", TORCH_FN(sdpa_overrideable));
    m->impl("_scaled_dot_product_fused_attention_overrideable_backward",
            TORCH_FN(sdpa_overrideable_backward));
    m->impl("_efficient_attention_forward", TORCH_FN(efficient_attention));
    m->impl("_efficient_attention_backward", TORCH_FN(efficient_attention_backward));
    m->impl("_native_multi_head_attention", TORCH_FN(native_mha));
    m->impl("_transformer_encoder_layer_fwd", TORCH_FN(encoder_layer_fwd));
}

} // namespace clops_torch

namespace at::native {
REGISTER_PRIVATEUSE1_DISPATCH(_fused_sdp_choice_stub, &clops_torch::fused_sdp_choice);
} // namespace at::native
