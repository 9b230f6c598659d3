# SPDX-License-Identifier: Apache-2.0
"""Issue 33's cases through PyTorch: each gives PyTorch's result or error on
the clops device (the C API tests are tests/test_reliability.c; the seeding
cases are test_random_seed.py, mixed devices test_mixed_devices.py).  The
searchsorted sorter once killed the Python process (SIGSEGV in the kernel);
the others returned garbage or unwritten memory.

Errors: every refusal raises PyTorch's exception class, the one its CPU
raises for the same call (RuntimeError for most, IndexError for dims and
indexing, ValueError and NotImplementedError for a few), with PyTorch's
words in the message: test_refusals_raise_pytorchs_class_and_words runs
each case on both (the bridge's mapping is check() in
python/csrc/device.cpp)."""
import pytest
import torch
import torch.nn.functional as F

import clops.torch  # noqa: F401
from conftest import assert_close

aten = torch.ops.aten
T = torch.tensor


def _f(d):
    return torch.arange(12.).reshape(3, 4).to(d)


def _conv(pad, transposed=False):
    def call(d):
        w = torch.ones(3, 6, 3, 3) if transposed else torch.ones(6, 3, 3, 3)
        return aten.convolution(torch.ones(1, 3, 4, 4).to(d), w.to(d), None, [1, 1], [pad, pad],
                                [1, 1], transposed, [0, 0], 1)
    return call


# (case, call(device), words both messages hold, or None where clops words
# it otherwise).  The first rows are issue 33's cases, the rest one or more
# per kind of refusal and family.
REFUSALS = [
    ("searchsorted sorter 9", lambda d: torch.searchsorted(
        T([7, 1, 5, 3]).to(d), T([8, 6, 8, 0, 8]).to(d), sorter=T([1, 3, 2, 9]).to(d)),
     "sorter index out of range"),
    ("searchsorted sorter -1", lambda d: torch.searchsorted(
        T([7, 1, 5, 3]).to(d), T([8, 6, 8, 0, 8]).to(d), sorter=T([1, 3, 2, -1]).to(d)),
     "sorter index out of range"),
    ("constant_pad_nd crop", lambda d: torch.constant_pad_nd(
        T([7], dtype=torch.int32).to(d), [2, -2]), "narrow(): length must be non-negative"),
    ("binary_cross_entropy target 1.5", lambda d: F.binary_cross_entropy(
        T([.2, .7]).to(d), T([1.5, 0.]).to(d)),
     "all elements of target should be between 0 and 1"),
    ("binary_cross_entropy target -0.5", lambda d: F.binary_cross_entropy(
        T([.2, .7]).to(d), T([-.5, 1.]).to(d)),
     "all elements of target should be between 0 and 1"),
    ("binary_cross_entropy input", lambda d: F.binary_cross_entropy(
        T([1.2, .7]).to(d), T([1., 0.]).to(d)),
     "all elements of input should be between 0 and 1"),
    ("conv padding 2^62", _conv(2 ** 62),
     "Given padding=4611686018427387904 at dimension 0 , expected padding to be at most "
     "4611686018427387903"),
    ("conv padding INT64_MAX", _conv(2 ** 63 - 1), "expected padding to be at most"),
    ("transposed conv padding 2^62", _conv(2 ** 62, True), "expected padding to be at most"),
    ("conv negative padding", lambda d: F.conv2d(torch.ones(1, 3, 4, 4).to(d),
                                                 torch.ones(6, 3, 3, 3).to(d), padding=-1),
     "negative padding is not supported"),
    ("conv channels", lambda d: F.conv2d(torch.ones(1, 2, 4, 4).to(d),
                                         torch.ones(6, 3, 3, 3).to(d)),
     "expected input[1, 2, 4, 4] to have 3 channels"),
    ("index_put_ INT64_MAX", lambda d: torch.zeros(4).to(d).index_put_(
        (T([2 ** 63 - 1]).to(d),), T([1.]).to(d)),
     "index 9223372036854775807 is out of bounds for dimension 0 with size 4"),
    ("index_put_ INT64_MIN", lambda d: torch.zeros(4).to(d).index_put_(
        (T([-2 ** 63]).to(d),), T([1.]).to(d)), "is out of bounds for dimension 0 with size 4"),
    ("pixel_shuffle 2^32", lambda d: F.pixel_shuffle(torch.ones(1, 4, 2, 2).to(d), 2 ** 32),
     "upscale factor is too large, (upscale_factor)^2 overflowed: upscale_factor=4294967296"),
    ("pixel_shuffle 3", lambda d: F.pixel_shuffle(torch.ones(1, 4, 2, 2).to(d), 3),
     "'channel' dimension to be divisible by the square of upscale_factor"),
    ("topk of a 0-dim tensor, k=2", lambda d: torch.topk(T(3.5).to(d), 2),
     "selected index k out of range"),
    ("native_layer_norm shape", lambda d: torch.native_layer_norm(
        torch.zeros(3, 4).to(d), [5], None, None, 1e-5),
     "Given normalized_shape=[5], expected input with shape [*, 5]"),
    # dims: IndexError
    ("sum dim", lambda d: _f(d).sum(2), "Dimension out of range"),
    ("softmax dim", lambda d: _f(d).softmax(-3), "Dimension out of range"),
    ("cumsum dim", lambda d: _f(d).cumsum(5), "Dimension out of range"),
    ("sort dim", lambda d: _f(d).sort(dim=3), "Dimension out of range"),
    ("topk dim", lambda d: torch.topk(_f(d), 1, dim=2), "Dimension out of range"),
    ("transpose dim", lambda d: _f(d).transpose(0, 3), "Dimension out of range"),
    ("argmax dim", lambda d: _f(d).argmax(3), "Dimension out of range"),
    # index arguments: IndexError, but RuntimeError in gather/scatter/index_add
    ("index.Tensor 5", lambda d: torch.zeros(4).to(d)[T([5]).to(d)],
     "index 5 is out of bounds for dimension 0 with size 4"),
    ("index_select", lambda d: _f(d).index_select(0, T([3]).to(d)), None),
    ("embedding", lambda d: F.embedding(T([7]).to(d), _f(d)), None),
    ("take", lambda d: _f(d).take(T([12]).to(d)),
     None),  # clops: "index 12 is out of bounds for dimension 0 with size 12"
    ("select", lambda d: _f(d).select(0, 5), "index 5 out of range for tensor of size [3, 4]"),
    ("narrow start", lambda d: _f(d).narrow(0, 5, 1), "start out of range"),
    ("nll_loss target", lambda d: F.nll_loss(torch.zeros(2, 3).to(d), T([0, 5]).to(d)), None),
    ("gather", lambda d: _f(d).gather(1, T([[5]]).to(d)),
     "index 5 is out of bounds for dimension 1 with size 4"),
    ("scatter", lambda d: _f(d).scatter(1, T([[5]]).to(d), 1.0),
     "index 5 is out of bounds for dimension 1 with size 4"),
    ("scatter_add", lambda d: _f(d).scatter_add(1, T([[5]]).to(d), torch.ones(1, 1).to(d)),
     "index 5 is out of bounds for dimension 1 with size 4"),
    ("index_add", lambda d: _f(d).index_add(0, T([3]).to(d), torch.ones(1, 4).to(d)),
     "index 3 is out of bounds for dimension 0 with size 3"),
    ("topk k", lambda d: torch.topk(_f(d), 5), "selected index k out of range"),
    ("kthvalue k", lambda d: _f(d).kthvalue(5), "selected number k out of range"),
    # empty reductions: IndexError, but RuntimeError for max()
    ("amax of an empty dim", lambda d: torch.zeros(0, 3).to(d).amax(0),
     "Expected reduction dim 0 to have non-zero size"),
    ("argmax of nothing", lambda d: torch.zeros(0).to(d).argmax(),
     "Expected reduction dim to be specified for input.numel() == 0"),
    ("max of nothing", lambda d: torch.zeros(0).to(d).max(),
     "Expected reduction dim to be specified for input.numel() == 0"),
    # shapes, dtypes, arguments: RuntimeError
    ("mm shapes", lambda d: _f(d) @ _f(d),
     "mat1 and mat2 shapes cannot be multiplied (3x4 and 3x4)"),
    ("mm dtypes", lambda d: torch.mm(_f(d), _f(d).t().double()),
     "expected m1 and m2 to have the same dtype"),
    ("broadcast", lambda d: _f(d) + torch.ones(5).to(d), None),
    ("cat shapes", lambda d: torch.cat([_f(d), torch.ones(2, 3).to(d)]),
     "Sizes of tensors must match except in dimension 0"),
    ("expand", lambda d: _f(d).expand(2, 5), "The expanded size of the tensor (5) must match"),
    ("view", lambda d: _f(d).view(5, 3), None),
    ("split 0", lambda d: _f(d).split(0), "split_size can only be 0 if dimension size is 0"),
    ("where condition dtype", lambda d: torch.where(_f(d), _f(d), _f(d)),
     "where expected condition to be a boolean tensor"),
    ("masked_fill mask dtype", lambda d: _f(d).masked_fill(torch.ones(3, 4).to(d), 1.),
     "only supports boolean masks"),
    ("lerp dtypes", lambda d: torch.lerp(_f(d), _f(d).double(), 0.5), None),
    ("index_put_ shape", lambda d: torch.zeros(4).to(d).index_put_(
        (T([1, 2]).to(d),), T([1., 2., 3.]).to(d)), "shape mismatch"),
    ("masked_scatter", lambda d: torch.zeros(4).to(d).masked_scatter(
        T([True] * 4).to(d), T([1.]).to(d)), "Number of elements of source"),
    ("max_pool2d padding", lambda d: F.max_pool2d(torch.ones(1, 1, 4, 4).to(d), 2, padding=2),
     "pad should be at most half of effective kernel size"),
    ("avg_pool2d divisor 0", lambda d: F.avg_pool2d(torch.ones(1, 1, 4, 4).to(d), 2,
                                                    divisor_override=0),
     "divisor must be not zero"),
    ("reflection_pad2d", lambda d: F.pad(torch.ones(1, 1, 4, 4).to(d), (4, 4, 4, 4),
                                         mode="reflect"),
     "Padding size should be less than the corresponding input dimension"),
    ("upsample size 0", lambda d: aten.upsample_nearest2d(torch.ones(1, 1, 4, 4).to(d), [0, 2]),
     "Input and output sizes should be greater than 0"),
    ("arange step 0", lambda d: torch.arange(0, 5, 0, device=d), "step must be nonzero"),
    ("arange step sign", lambda d: torch.arange(0, 5, -1, device=d),
     "upper bound and lower bound inconsistent with step sign"),
    ("linspace steps", lambda d: torch.linspace(0, 1, -1, device=d),
     "number of steps must be non-negative"),
    ("full negative", lambda d: torch.full((-1,), 1., device=d),
     "Trying to create tensor with negative dimension -1"),
    ("histc min > max", lambda d: torch.histc(_f(d), 4, 3, 1), "max must be larger than min"),
    ("bincount negative", lambda d: torch.bincount(T([0, -1]).to(d)),
     "bincount only supports 1-d non-negative integral inputs"),
    ("multinomial negative", lambda d: torch.multinomial(T([-1., 1.]).to(d), 1),
     "probability tensor contains either `inf`, `nan` or element < 0"),
    ("normal std", lambda d: torch.normal(0., -1., (3,), device=d), "normal expects std >= 0.0"),
    ("uniform_ from > to", lambda d: torch.empty(3).to(d).uniform_(2, 1),
     "uniform_ expects to return a [from, to) range"),
    ("nonzero_static size", lambda d: torch.nonzero_static(_f(d), size=-1),
     "'size' must be an non-negative integer"),
    ("repeat_interleave negative", lambda d: torch.repeat_interleave(
        _f(d), T([-1, 1, 1]).to(d), dim=0), "repeats can not be negative"),
    ("diagonal dims", lambda d: _f(d).diagonal(dim1=0, dim2=0),
     "diagonal dimensions cannot be identical 0, 0"),
    # no kernel for the dtype: NotImplementedError
    ("topk bool", lambda d: torch.topk(T([True, False]).to(d), 1), "does not support bool"),
    ("neg bool", lambda d: -T([True]).to(d), None),  # clops: "not implemented for dtype bool"
    ("bitwise_and float", lambda d: _f(d) & _f(d), None),
    ("lshift float", lambda d: _f(d) << 1, None),
]


@pytest.mark.parametrize("case,call,words", REFUSALS, ids=[r[0] for r in REFUSALS])
def test_refusals_raise_pytorchs_class_and_words(dev, case, call, words):
    with pytest.raises(Exception) as want:
        call("cpu")
    with pytest.raises(Exception) as got:
        call(dev)
    assert type(got.value) is type(want.value), (
        f"{case}: clops raised {type(got.value).__name__} ({got.value}), PyTorch's CPU "
        f"{type(want.value).__name__} ({want.value})")
    if words:
        assert words in str(want.value), f"PyTorch's own message changed: {want.value}"
        assert words in str(got.value), f"{case}: {got.value}"


@pytest.mark.parametrize("bad", [100000000, 9, -1])
def test_searchsorted_refuses_a_sorter_out_of_range(dev, bad):
    seq = torch.tensor([7, 1, 5, 3])
    values = torch.tensor([8, 6, 8, 0, 8])
    sorter = torch.tensor([1, 3, 2, bad])
    with pytest.raises(RuntimeError, match="sorter index out of range"):
        torch.searchsorted(seq, values, sorter=sorter)
    with pytest.raises(RuntimeError, match="sorter index out of range"):
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
    with pytest.raises(RuntimeError, match="narrow\\(\\): length must be non-negative"):
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
        with pytest.raises(RuntimeError, match=msg):
            F.binary_cross_entropy(p.to(dev), t.to(dev))


def test_histc_counts_every_element(dev):
    x = (torch.arange(10007, dtype=torch.float32) * 7) % 113 - 5
    assert_close(torch.histc(x.to(dev), bins=13, min=0, max=100),
                 torch.histc(x, bins=13, min=0, max=100))
