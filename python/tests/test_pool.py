# SPDX-License-Identifier: Apache-2.0
"""The pooling and resampling family on the clops device: F.max_pool1d/2d,
avg_pool2d, adaptive average and max pooling, F.interpolate (nearest,
bilinear, bicubic) and pixel_shuffle, forward and backward, run with no CPU
fallback and match PyTorch's CPU results (dispatch/inventory/pool.yaml)."""
import pytest
import torch
import torch.nn.functional as F

from conftest import assert_close


def run_both(dev, fn, *shapes, channels_last=False):
    """fn on CPU tensors and on their clops copies, with the gradients of
    sum(out * w) for every input."""
    torch.manual_seed(0)
    xs = [torch.randn(*s, dtype=torch.float32) for s in shapes]
    results = []
    for where in ("cpu", dev):
        leaves, ins = [], []
        for x in xs:
            if channels_last and x.dim() == 4:
                # NHWC storage seen as NCHW (a permuted view, no layout copy)
                leaf = x.permute(0, 2, 3, 1).contiguous().to(where).detach().requires_grad_(True)
                ins.append(leaf.permute(0, 3, 1, 2))
            else:
                leaf = x.to(where).detach().requires_grad_(True)
                ins.append(leaf)
            leaves.append(leaf)
        out = fn(*ins)
        out = out[0] if isinstance(out, tuple) else out
        w = torch.linspace(-1, 1, out.numel()).reshape(out.shape).to(where)
        (out * w).sum().backward()
        results.append((out, [lf.grad for lf in leaves]))
    return results


CASES = [
    ("max_pool2d", lambda x: F.max_pool2d(x, 3, 2, 1), (2, 3, 11, 10)),
    ("max_pool2d_ceil_dil", lambda x: F.max_pool2d(x, 3, 2, 1, dilation=2, ceil_mode=True),
     (2, 3, 11, 10)),
    ("max_pool1d", lambda x: F.max_pool1d(x, 3, 2, 1, ceil_mode=True), (2, 3, 13)),
    ("max_pool3d", lambda x: F.max_pool3d(x, 2, 2, 1), (1, 2, 5, 6, 7)),
    ("avg_pool2d", lambda x: F.avg_pool2d(x, 3, 2, 1, ceil_mode=True, count_include_pad=False),
     (2, 3, 11, 10)),
    ("avg_pool2d_div", lambda x: F.avg_pool2d(x, 2, 2, divisor_override=3), (2, 3, 8, 6)),
    ("adaptive_avg_pool2d", lambda x: F.adaptive_avg_pool2d(x, (4, 3)), (2, 3, 9, 7)),
    ("adaptive_avg_pool2d_1x1", lambda x: F.adaptive_avg_pool2d(x, 1), (2, 8, 7, 7)),
    ("adaptive_max_pool2d", lambda x: F.adaptive_max_pool2d(x, (4, 3)), (2, 3, 9, 7)),
    ("nearest", lambda x: F.interpolate(x, scale_factor=2, mode="nearest"), (2, 3, 5, 4)),
    ("nearest_size", lambda x: F.interpolate(x, size=(7, 9), mode="nearest"), (2, 3, 5, 4)),
    ("bilinear", lambda x: F.interpolate(x, scale_factor=2, mode="bilinear"), (2, 3, 5, 4)),
    ("bilinear_ac", lambda x: F.interpolate(x, size=(7, 9), mode="bilinear", align_corners=True),
     (2, 3, 5, 4)),
    ("bicubic", lambda x: F.interpolate(x, size=(7, 9), mode="bicubic"), (2, 3, 5, 4)),
    ("pixel_shuffle", lambda x: F.pixel_shuffle(x, 2), (2, 8, 3, 4)),
    ("pixel_unshuffle", lambda x: F.pixel_unshuffle(x, 2), (2, 2, 6, 4)),
]


@pytest.mark.parametrize("name,fn,shape", CASES, ids=[c[0] for c in CASES])
@pytest.mark.parametrize("channels_last", [False, True], ids=["nchw", "nhwc"])
def test_matches_cpu_without_fallback(dev, no_fallback, name, fn, shape, channels_last):
    (ref, rgrads), (out, grads) = run_both(dev, fn, shape, channels_last=channels_last)
    assert out.device == dev
    assert_close(out, ref, rtol=1e-5, atol=1e-5)
    for g, rg in zip(grads, rgrads):
        assert_close(g, rg, rtol=1e-4, atol=1e-5)
