# SPDX-License-Identifier: Apache-2.0
"""Bottom-right causal attention on the clops device.

``torch.nn.attention.bias.causal_lower_right(L, S)`` passed as the ``attn_mask``
of ``F.scaled_dot_product_attention`` is a ``CausalBias``, whose
``__torch_function__`` decides how to run the call (``CausalBias._dispatch``):
on CUDA it calls the flash or memory-efficient kernel with the alignment
(``_efficient_attention_forward``'s ``custom_mask_type`` 2), elsewhere it
materializes the ``L x S`` boolean mask.  On the clops device this sends the
call to ``_efficient_attention_forward``, which the bridge runs on clops' fused
kernel with the diagonal at the bottom-right corner (python/csrc/attention.cpp,
docs/attention.md), for the inputs the kernel takes; anything else keeps
PyTorch's own dispatch.

It also gives the fused attention ops PyTorch declares for PrivateUse1
backends the meta functions that PyTorch lacks on some versions (below).
"""
import math

import torch
from torch.nn.attention import bias as _bias

_torch_dispatch = _bias.CausalBias._dispatch
_DTYPES = (torch.float32, torch.float16, torch.bfloat16)


def _fused_takes(query, key, value, enable_gqa):
    """Whether clops' fused kernel takes 4-D query/key/value (docs/attention.md)."""
    if not all(t.device.type == "clops" and t.dim() == 4 and t.dtype == query.dtype
               for t in (query, key, value)):
        return False
    if query.dtype not in _DTYPES or query.size(-1) > 256 or value.size(-1) > 256:
        return False
    hq, hk = query.size(1), key.size(1)
    return hq == hk or (enable_gqa and hk > 0 and hq % hk == 0)


def _dispatch(query, key, value, attn_mask, dropout_p=0.0, is_causal=False, scale=None,
              enable_gqa=False):
    if (not is_causal and attn_mask.variant == _bias.CausalVariant.LOWER_RIGHT
            and attn_mask.seq_len_q != attn_mask.seq_len_kv
            and _fused_takes(query, key, value, enable_gqa)):
        return torch.ops.aten._efficient_attention_forward(
            query.transpose(1, 2), key.transpose(1, 2), value.transpose(1, 2), None, None, None,
            None, None, dropout_p, int(attn_mask.variant), True, scale=scale)[0].transpose(1, 2)
    return _torch_dispatch(query, key, value, attn_mask, dropout_p, is_causal, scale, enable_gqa)


def _like_query(query, shape):
    """An empty tensor of shape in query's dimension order (PyTorch 2.15's
    alloc_with_matching_layout): query's layout when the shapes agree, else
    dimensions filled from query's smallest stride up, zero strides last."""
    if tuple(query.shape) == tuple(shape):
        return torch.empty_like(query)
    order = sorted(range(query.dim()), key=lambda i: query.stride(i) or math.inf)
    strides, step = [0] * len(order), 1
    for i in order:
        strides[i] = step
        step *= shape[i]
    return torch.empty_strided(shape, strides, dtype=query.dtype, device=query.device)


def sdpa_overrideable_meta(query, key, value, attn_bias=None, dropout_p=0.0, is_causal=False,
                           return_debug_mask=False, scale=None):
    """_scaled_dot_product_fused_attention_overrideable's results as
    PyTorch 2.15's meta function gives them, for 3-D [H, L, E] and 4-D
    [B, H, L, E] inputs: the output in query's dimension order,
    logsumexp [B, H, L] float32 (B 1 for 3-D), the sequence lengths, and a
    scalar seed and offset."""
    if query.dim() not in (3, 4):
        raise RuntimeError("clops: _scaled_dot_product_fused_attention_overrideable: query must "
                           f"be 3-D or 4-D, got {query.dim()}-D")
    b, h, lq = (1, *query.shape[:2]) if query.dim() == 3 else tuple(query.shape[:3])
    out = _like_query(query, (*query.shape[:-1], value.size(-1)))
    lse = torch.empty((b, h, lq), dtype=torch.float, device=query.device)
    seed = torch.empty((), dtype=torch.long, device="meta")
    offset = torch.empty((), dtype=torch.long, device="meta")
    return out, lse, None, None, lq, key.size(-2), seed, offset, None


def sdpa_overrideable_backward_meta(grad_out, query, key, value, attn_bias, grad_input_mask,
                                    out, logsumexp, cum_seq_q, cum_seq_k, max_q, max_k,
                                    dropout_p, is_causal, philox_seed, philox_offset,
                                    scale=None):
    """The shapes and strides of _scaled_dot_product_fused_attention_
    overrideable_backward's gradients, as PyTorch's own meta function gives
    them where it has one (torch/_meta_registrations.py, 2.15): each
    gradient laid out like its input (empty_like), none for an absent bias."""
    return (torch.empty_like(query), torch.empty_like(key), torch.empty_like(value),
            torch.empty_like(attn_bias) if attn_bias is not None else None)


def _takes_3d(name):
    """Whether PyTorch's meta function of the fused forward takes 3-D inputs
    (2.11's indexes four dimensions: IndexError)."""
    m = torch.empty(4, 11, 16, device="meta")
    try:
        getattr(torch.ops.aten, name)(m, m, m, None, 0.0, True)
        return True
    except Exception:  # noqa: BLE001  (whatever PyTorch's meta raises)
        return False


# Meta functions of the fused attention ops PyTorch declares for PrivateUse1
# backends, with the probe that says whether PyTorch's own does the job.
# Where it does not, fake tensors cannot trace the op, and torch.compile and
# calls on meta tensors fail: PyTorch 2.11 has no meta function of the
# backward (its only kernel, CompositeExplicitAutograd, raises "This is an
# operator for privateuse1 backends"), and its forward's takes 4-D inputs
# only.  clops registers its own for the Meta key there.
def _has_meta(name):
    return torch._C._dispatch_has_kernel_for_dispatch_key("aten::" + name, "Meta")


_META = {
    "_scaled_dot_product_fused_attention_overrideable":
        (sdpa_overrideable_meta, lambda n: _has_meta(n) and _takes_3d(n)),
    "_scaled_dot_product_fused_attention_overrideable_backward":
        (sdpa_overrideable_backward_meta, _has_meta),
}
_META_LIB = None
REPLACED_META = []  # the ops whose Meta kernel is clops'


def _register_meta():
    global _META_LIB
    if _META_LIB is not None:
        return
    missing = [name for name, (_, pytorch_does) in _META.items() if not pytorch_does(name)]
    if not missing:
        return
    _META_LIB = torch.library.Library("aten", "IMPL")
    for name in missing:
        # over PyTorch's own Python meta function where there is one
        _META_LIB.impl(name, _META[name][0], "Meta", allow_override=True)
        REPLACED_META.append(name)


def install():
    _bias.CausalBias._dispatch = staticmethod(_dispatch)
    _register_meta()
