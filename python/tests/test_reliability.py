# SPDX-License-Identifier: Apache-2.0
"""Issue 33's cases through PyTorch: each gives PyTorch's result or error on
the clops device (the C API tests are tests/test_reliability.c; the seeding
cases are test_random_seed.py, mixed devices test_mixed_devices.py).  The
searchsorted sorter once killed the Python process (SIGSEGV in the kernel);
the others returned garbage or unwritten memory.

Errors: PyTorch raises RuntimeError for each refusal here; the bridge
raises clops' invalid-argument and index statuses as ValueError and
IndexError (python/csrc/device.cpp, docs/torch.md), so the tests accept
those classes and check PyTorch's message (docs/reliability.md lists the
class difference as open)."""
import pytest
import torch
import torch.nn.functional as F

import clops.torch  # noqa: F401
from conftest import assert_close

# PyTorch's class is RuntimeError; the bridge's, for clops' argument and
# index statuses, ValueError and IndexError.
REFUSED = (RuntimeError, ValueError, IndexError)


@pytest.mark.parametrize("bad", [100000000, 9, -1])
def test_searchsorted_refuses_a_sorter_out_of_range(dev, bad):
    seq = torch.tensor([7, 1, 5, 3])
    values = torch.tensor([8, 6, 8, 0, 8])
    sorter = torch.tensor([1, 3, 2, bad])
    with pytest.raises(RuntimeError, match="sorter index out of range"):
        torch.searchsorted(seq, values, sorter=sorter)
    with pytest.raises(REFUSED, match="sorter index out of range"):
        torch.searchsorted(seq.to(dev), values.to(dev), sorter=sorter.to(dev))
    good = torch.tensor([1, 3, 2, 0])
    assert_close(torch.searchsorted(seq.to(dev), values.to(dev), sorter=good.to(dev)),
                 torch.searchsorted(seq, values, sorter=good))


def test_searchsorted_of_a_transposed_self(dev):
    b = torch.tensor([0, 10, 20])
    v = torch.tensor([[0, 5, 10], [15, 20, 25]]).t()
    want = torch.searchsorted(b, v)
    assert_close(torch.searchsorted(b.to(dev), v.to(dev)), want)


def test_layer_norm_of_empty_rows(dev):
    x = torch.zeros(3, 0)
    y, mean, rstd = torch.native_layer_norm(x.to(dev), [0], None, None, 1e-5)
    ey, emean, erstd = torch.native_layer_norm(x, [0], None, None, 1e-5)
    assert y.shape == ey.shape
    assert_close(mean, emean)
    assert torch.isnan(rstd.cpu()).all() and torch.isnan(erstd).all()


def test_max_pool_half_channels_last(dev):
    x = torch.arange(2 * 3 * 6 * 6, dtype=torch.float32).reshape(2, 3, 6, 6) % 17
    for dt in (torch.float16, torch.bfloat16):
        xd = x.to(dt).to(memory_format=torch.channels_last)
        y, i = F.max_pool2d(xd.to(dev), 2, return_indices=True)
        ey, ei = F.max_pool2d(xd.float(), 2, return_indices=True)
        assert_close(y.float(), ey)
        assert torch.equal(i.cpu(), ei)


def test_transposed_conv1d_output_padding_columns(dev):
    x, w, b = torch.ones(2, 3, 4), torch.ones(3, 4, 1), torch.tensor([0.5, -1.0, 2.0, 0.0])
    for bias in (None, b):
        want = F.conv_transpose1d(x, w, bias, stride=1, padding=0, output_padding=1,
                                  dilation=2)
        got = F.conv_transpose1d(x.to(dev), w.to(dev), None if bias is None else bias.to(dev),
                                 stride=1, padding=0, output_padding=1, dilation=2)
        assert_close(got, want)


def test_constant_pad_refuses_crops_past_the_dimension(dev):
    x = torch.tensor([7], dtype=torch.int32)
    with pytest.raises(RuntimeError, match="narrow"):
        torch.constant_pad_nd(x, [2, -2])
    with pytest.raises(REFUSED, match="narrow\\(\\): length must be non-negative"):
        torch.constant_pad_nd(x.to(dev), [2, -2])


def test_topk_of_a_0_dim_tensor(dev):
    x = torch.tensor(3.5)
    for k in (0, 1):
        v, i = torch.topk(x.to(dev), k)
        ev, ei = torch.topk(x, k)
        assert v.shape == ev.shape and i.shape == ei.shape
        assert torch.equal(v.cpu(), ev) and torch.equal(i.cpu(), ei)


def test_binary_cross_entropy_refuses_targets_outside_0_1(dev):
    p = torch.tensor([0.2, 0.7])
    for t in (torch.tensor([1.5, 0.0]), torch.tensor([-0.5, 1.0])):
        msg = "all elements of target should be between 0 and 1"
        with pytest.raises(RuntimeError, match=msg):
            F.binary_cross_entropy(p, t)
        with pytest.raises(REFUSED, match=msg):
            F.binary_cross_entropy(p.to(dev), t.to(dev))


def test_absurd_conv_padding_is_an_error(dev):
    x, w = torch.ones(1, 3, 4, 4), torch.ones(6, 3, 3, 3)
    # PyTorch: "expected padding to be at most 2^62 - 1"; clops: the output
    # size overflows int64 (another message, the same refusal)
    for pad in (2 ** 62, 2 ** 63 - 1):
        with pytest.raises(REFUSED, match="padding"):
            torch.ops.aten.convolution(x.to(dev), w.to(dev), None, [1, 1], [pad, pad], [1, 1],
                                       False, [0, 0], 1)


def test_histc_counts_every_element(dev):
    x = (torch.arange(10007, dtype=torch.float32) * 7) % 113 - 5
    assert_close(torch.histc(x.to(dev), bins=13, min=0, max=100),
                 torch.histc(x, bins=13, min=0, max=100))
