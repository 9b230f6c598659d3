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
"""
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


def install():
    _bias.CausalBias._dispatch = staticmethod(_dispatch)
