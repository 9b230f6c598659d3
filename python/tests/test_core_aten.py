# SPDX-License-Identifier: Apache-2.0
"""Core ATen overloads that had no clops kernel and no decomposition
(python/tools/core_aten_coverage.py): copy, select_scatter, slice_scatter,
reflection_pad3d, replication_pad3d, _adaptive_avg_pool3d, _cdist_forward,
_pdist_forward, _embedding_bag and grid_sampler_2d run on the device with no
CPU fallback and match PyTorch's CPU results, errors included (docs/torch.md,
"Core ATen")."""
import math

import pytest
import torch
import torch.nn.functional as F

from conftest import assert_close

aten = torch.ops.aten


def both(dev, fn, *xs):
    """fn on the CPU tensors xs and on their clops copies."""
    return fn(*xs), fn(*[x.to(dev) if isinstance(x, torch.Tensor) else x for x in xs])


def test_copy(dev, no_fallback):
    torch.manual_seed(0)
    a = torch.randn(3, 4)
    src = torch.randn(4, 1)            # broadcast
    # self's strides are kept (preserve_format): a transposed self gives a transposed result
    want, got = both(dev, lambda x, s: aten.copy(x.t(), s), a, src)
    assert got.stride() == want.stride() == (1, 4)
    assert_close(got, want)
    want, got = both(dev, lambda x, s: aten.copy(x, s), torch.zeros(2, 3), torch.arange(3))
    assert got.dtype == torch.float32
    assert_close(got, want)


@pytest.mark.parametrize("dim,index", [(0, 1), (1, -1), (2, 0)])
def test_select_scatter(dev, no_fallback, dim, index):
    torch.manual_seed(0)
    x = torch.randn(3, 4, 5)
    src = torch.randn(*x.select(dim, index).shape)
    want, got = both(dev, lambda a, b: torch.select_scatter(a, b, dim, index), x, src)
    assert_close(got, want)


@pytest.mark.parametrize("dim,start,end,step", [(0, None, None, 1), (1, 1, 4, 2),
                                                (2, -3, None, 1), (1, 2, 2, 1)])
def test_slice_scatter(dev, no_fallback, dim, start, end, step):
    torch.manual_seed(0)
    x = torch.randn(3, 5, 6)
    src = torch.randn(*x[(slice(None),) * dim + (slice(start, end, step),)].shape)
    want, got = both(dev, lambda a, b: torch.slice_scatter(a, b, dim, start, end, step), x, src)
    assert_close(got, want)


def test_scatter_errors(dev):
    x, src = torch.zeros(3, 4, device=dev), torch.zeros(3, device=dev)
    with pytest.raises(RuntimeError, match="expected src to have a size equal to the slice"):
        torch.select_scatter(x, src, 0, 0)
    with pytest.raises(RuntimeError, match="expected src to have a size equal to the slice"):
        torch.slice_scatter(x, torch.zeros(2, 4, device=dev), 0, 0, 3)


def test_scatter_backward(dev, no_fallback):
    torch.manual_seed(0)
    x, src = torch.randn(4, 5), torch.randn(4, 2)
    grads = []
    for where in ("cpu", dev):
        a = x.to(where).detach().requires_grad_(True)
        b = src.to(where).detach().requires_grad_(True)
        (torch.slice_scatter(a, b, 1, 1, 5, 2) * 3).sum().backward()
        grads.append((a.grad, b.grad))
    assert_close(grads[1][0], grads[0][0])
    assert_close(grads[1][1], grads[0][1])


PAD_CASES = [(m, (2, 3, 4, 5), (1, 2, 0, 3, 2, 1)) for m in ("reflect", "replicate")] + \
    [(m, (1, 2, 3, 4, 5), (4, 0, 1, 3, 2, 2)) for m in ("reflect", "replicate")] + \
    [("replicate", (2, 3, 4, 5), (-1, 2, 1, 0, 2, -1))]    # negative pads crop


@pytest.mark.parametrize("mode,shape,pad", PAD_CASES)
def test_pad3d(dev, no_fallback, mode, shape, pad):
    torch.manual_seed(0)
    x = torch.randn(*shape)
    want, got = both(dev, lambda a: F.pad(a, pad, mode=mode), x)
    assert_close(got, want)
    for dtype in (torch.float64, torch.int64):
        xd = (x * 10).to(dtype)
        want, got = both(dev, lambda a: F.pad(a, pad, mode=mode), xd)
        assert_close(got, want)


def test_pad3d_errors(dev):
    # PyTorch's class (RuntimeError, as its CPU raises), PyTorch's words
    x = torch.zeros(1, 2, 3, 3, device=dev)
    with pytest.raises(RuntimeError, match="Padding size should be less than"):
        aten.reflection_pad3d(x, [3, 0, 0, 0, 0, 0])
    with pytest.raises(RuntimeError, match="expected 4D or 5D"):
        aten.replication_pad3d(torch.zeros(2, 3, 3, device=dev), [1, 1, 1, 1, 1, 1])


@pytest.mark.parametrize("shape,out", [((2, 3, 7, 9, 10), (3, 4, 5)), ((3, 8, 8, 8), (2, 2, 2)),
                                       ((1, 2, 5, 6, 7), (5, 1, 9))])
def test_adaptive_avg_pool3d(dev, no_fallback, shape, out):
    torch.manual_seed(0)
    x = torch.randn(*shape, dtype=torch.float64)
    res = []
    for where in ("cpu", dev):
        a = x.to(where).detach().requires_grad_(True)
        y = F.adaptive_avg_pool3d(a, out)
        w = torch.linspace(-1, 1, y.numel(), dtype=torch.float64).reshape(y.shape).to(where)
        (y * w).sum().backward()
        res.append((y, a.grad))
    assert_close(res[1][0], res[0][0])
    assert_close(res[1][1], res[0][1])
    xf = x.to(torch.bfloat16)
    want, got = both(dev, lambda a: F.adaptive_avg_pool3d(a, out), xf)
    assert got.dtype == torch.bfloat16
    assert_close(got, want, atol=1e-2, rtol=1e-2)


def test_adaptive_avg_pool3d_errors(dev):
    with pytest.raises(RuntimeError, match="Expected 4D or 5D tensor"):
        aten._adaptive_avg_pool3d(torch.zeros(2, 3, 4, device=dev), [1, 1, 1])
    with pytest.raises(RuntimeError, match="non-zero size for non-batch dimensions"):
        aten._adaptive_avg_pool3d(torch.zeros(1, 0, 3, 4, 5, device=dev), [1, 1, 1])


@pytest.mark.parametrize("p", [0.0, 1.0, 2.0, 3.5, math.inf])
@pytest.mark.parametrize("rows", [(5, 7), (30, 4)])
def test_cdist(dev, no_fallback, p, rows):
    torch.manual_seed(0)
    x1 = torch.randn(2, rows[0], 6, dtype=torch.float64)
    x2 = torch.randn(1, rows[1], 6, dtype=torch.float64)
    x2[0, 0] = x1[0, 1]                 # a zero distance
    want, got = both(dev, lambda a, b: torch.cdist(a, b, p), x1, x2)
    assert_close(got, want)
    for mode in ("use_mm_for_euclid_dist", "donot_use_mm_for_euclid_dist"):
        want, got = both(dev, lambda a, b: torch.cdist(a, b, p, compute_mode=mode), x1, x2)
        assert_close(got, want)


def test_cdist_errors(dev):
    a = torch.zeros(3, 4, device=dev)
    with pytest.raises(RuntimeError, match="same number of columns"):
        aten._cdist_forward(a, torch.zeros(3, 5, device=dev), 2.0, None)
    with pytest.raises(RuntimeError, match="only supports floating-point dtypes"):
        aten._cdist_forward(a.long(), a.long(), 2.0, None)
    with pytest.raises(RuntimeError, match="non-negative p"):
        aten._cdist_forward(a, a, -1.0, None)


@pytest.mark.parametrize("p", [0.0, 1.0, 2.0, 0.5, math.inf])
def test_pdist(dev, no_fallback, p):
    torch.manual_seed(0)
    x = torch.randn(7, 5, dtype=torch.float64)
    x[3] = x[1]
    want, got = both(dev, lambda a: F.pdist(a, p), x)
    assert_close(got, want)
    want, got = both(dev, lambda a: F.pdist(a, p), x[:1])
    assert got.shape == want.shape == (0,)


EB_CASES = [
    dict(mode="sum"), dict(mode="mean"), dict(mode="max"),
    dict(mode="sum", padding_idx=2), dict(mode="mean", padding_idx=2),
    dict(mode="max", padding_idx=2), dict(mode="sum", per_sample_weights=True),
    dict(mode="sum", include_last_offset=True), dict(mode="mean", include_last_offset=True),
]


@pytest.mark.parametrize("kw", EB_CASES, ids=lambda kw: "-".join(f"{k}={v}" for k, v in kw.items()))
def test_embedding_bag(dev, no_fallback, kw):
    torch.manual_seed(0)
    w = torch.randn(10, 3)
    idx = torch.tensor([1, 2, 4, 5, 4, 3, 2, 9, 0])
    off = torch.tensor([0, 4, 4, 7])    # bag 1 is empty
    if kw.get("include_last_offset"):
        off = torch.tensor([0, 4, 4, 9])
    psw = torch.rand(9) if kw.pop("per_sample_weights", False) else None
    mode = {"sum": 0, "mean": 1, "max": 2}[kw.pop("mode")]
    args = (False, mode, False)
    want, got = both(dev, lambda a, i, o, s: aten._embedding_bag(
        a, i, o, *args, s, kw.get("include_last_offset", False), kw.get("padding_idx", -1)),
        w, idx, off, psw)
    for g, e in zip(got, want):
        assert g.shape == e.shape and g.dtype == e.dtype
        assert_close(g, e)


def test_embedding_bag_module(dev, no_fallback):
    torch.manual_seed(0)
    bag = torch.nn.EmbeddingBag(20, 4, mode="mean")
    x = torch.randint(0, 20, (3, 5))
    want = bag(x)
    got = bag.to(dev)(x.to(dev))
    assert_close(got, want)


def test_embedding_bag_errors(dev):
    w = torch.zeros(10, 3, device=dev)
    idx = torch.tensor([1, 2], device=dev)
    with pytest.raises(RuntimeError, match="offsets\\[0\\] has to be 0"):
        aten._embedding_bag(w, idx, torch.tensor([1], device=dev), False, 0)
    with pytest.raises(RuntimeError, match="per_sample_weights only supported with mode='sum'"):
        aten._embedding_bag(w, idx, torch.tensor([0], device=dev), False, 1, False,
                            torch.ones(2, device=dev))
    with pytest.raises(RuntimeError, match="not in the valid range"):
        aten._embedding_bag(w, idx + 9, torch.tensor([0], device=dev), False, 0)


# every interpolation x padding x align_corners of grid_sample
GRID_CASES = pytest.mark.parametrize("mode,padding_mode,align_corners", [
    (m, p, a) for m in ("bilinear", "nearest", "bicubic")
    for p in ("zeros", "border", "reflection") for a in (False, True)])


@GRID_CASES
def test_grid_sample(dev, no_fallback, mode, padding_mode, align_corners):
    torch.manual_seed(0)
    x = torch.randn(2, 3, 5, 7, dtype=torch.float64)
    grid = torch.rand(2, 4, 6, 2, dtype=torch.float64) * 3 - 1.5   # some outside [-1, 1]
    want, got = both(dev, lambda a, g: F.grid_sample(a, g, mode=mode, padding_mode=padding_mode,
                                                     align_corners=align_corners), x, grid)
    assert_close(got, want)


def test_grid_sample_errors(dev):
    x = torch.zeros(1, 1, 3, 3, device=dev)
    with pytest.raises(RuntimeError, match="same batch size"):
        aten.grid_sampler_2d(x, torch.zeros(2, 2, 2, 2, device=dev), 0, 0, False)
    with pytest.raises(RuntimeError, match="same dtype"):
        aten.grid_sampler_2d(x, torch.zeros(1, 2, 2, 2, device=dev, dtype=torch.float64), 0, 0,
                             False)


def test_integer_dtypes_refused_as_on_the_cpu(dev):
    i = torch.zeros(1, 2, 2, 2, dtype=torch.long)
    for fn in (lambda x: aten._adaptive_avg_pool3d(x, [1, 1, 1]),
               lambda x: aten._pdist_forward(x.view(2, 4), 2.0),
               lambda x: aten.grid_sampler_2d(x[0:1, 0:1], torch.zeros(1, 1, 1, 2).to(x), 0, 0,
                                              False)):
        with pytest.raises(RuntimeError) as want:
            fn(i)
        with pytest.raises(RuntimeError) as got:
            fn(i.to(dev))
        assert str(got.value) == str(want.value)


@pytest.mark.parametrize("mode,padding_idx,freq", [
    (m, p, f) for m in ("sum", "mean", "max") for p, f in ((None, False), (2, False), (None, True))
    if not (m == "max" and f)])   # F.embedding_bag refuses max with scale_grad_by_freq
def test_embedding_bag_backward(dev, no_fallback, mode, padding_idx, freq):
    torch.manual_seed(0)
    w = torch.randn(10, 3, dtype=torch.float64)
    idx = torch.tensor([1, 2, 4, 5, 4, 3, 2, 9, 0, 2])
    off = torch.tensor([0, 4, 4, 7])
    grads = []
    for where in ("cpu", dev):
        leaf = w.to(where).detach().requires_grad_(True)
        y = F.embedding_bag(idx.to(where), leaf, off.to(where), mode=mode,
                            padding_idx=padding_idx, scale_grad_by_freq=freq)
        g = torch.linspace(-1, 1, y.numel(), dtype=torch.float64).reshape(y.shape).to(where)
        (y * g).sum().backward()
        grads.append(leaf.grad)
    if freq:
        # PyTorch's CPU embedding_bag divided a row by the count of another
        # index up to 2.14 (pytorch/pytorch#190063, fixed by #190264; CUDA was
        # right): the reference is the unscaled CPU gradient over each row's count.
        leaf = w.detach().requires_grad_(True)
        y = F.embedding_bag(idx, leaf, off, mode=mode, padding_idx=padding_idx)
        (y * torch.linspace(-1, 1, y.numel(), dtype=torch.float64).reshape(y.shape)).sum().backward()
        counts = torch.bincount(idx, minlength=w.shape[0]).clamp(min=1).to(w.dtype)
        grads[0] = leaf.grad / counts.unsqueeze(1)
    assert_close(grads[1], grads[0])


@pytest.mark.parametrize("mode", ["reflect", "replicate"])
@pytest.mark.parametrize("shape,pad", [((2, 3, 7), (2, 3)), ((2, 3, 5, 6), (1, 2, 4, 0)),
                                       ((1, 2, 3, 4, 5), (1, 2, 0, 2, 2, 1))])
def test_pad_backward(dev, no_fallback, mode, shape, pad):
    torch.manual_seed(0)
    x = torch.randn(*shape, dtype=torch.float64)
    grads = []
    for where in ("cpu", dev):
        leaf = x.to(where).detach().requires_grad_(True)
        y = F.pad(leaf, pad, mode=mode)
        g = torch.linspace(-1, 1, y.numel(), dtype=torch.float64).reshape(y.shape).to(where)
        (y * g).sum().backward()
        grads.append(leaf.grad)
    assert_close(grads[1], grads[0])


def grads_on(dev, fn, *xs):
    """The gradients of (fn(*xs) * a fixed weight).sum() for the floating
    tensors xs, on the CPU and on the device."""
    out = []
    for where in ("cpu", dev):
        leaves = [x.to(where).detach().requires_grad_(x.dtype.is_floating_point)
                  if isinstance(x, torch.Tensor) else x for x in xs]
        y = fn(*leaves)
        g = torch.linspace(-1, 1, y.numel(), dtype=y.dtype).reshape(y.shape).to(where)
        (y * g).sum().backward()
        out.append([t.grad for t in leaves
                    if isinstance(t, torch.Tensor) and t.dtype.is_floating_point])
    return out


@pytest.mark.parametrize("p", [0.0, 0.5, 1.0, 2.0, 3.5, math.inf])
def test_cdist_backward(dev, no_fallback, p):
    torch.manual_seed(0)
    x1 = torch.randn(2, 5, 6, dtype=torch.float64)
    x2 = torch.randn(1, 7, 6, dtype=torch.float64)      # broadcast over the batch
    x2[0, 0] = x1[0, 1]                                   # a zero distance
    x2[0, 1, :3] = x1[1, 2, :3]                           # zero differences
    want, got = grads_on(dev, lambda a, b: torch.cdist(
        a, b, p, compute_mode="donot_use_mm_for_euclid_dist"), x1, x2)
    for g, e in zip(got, want):
        assert g.shape == e.shape
        assert_close(g, e)


def test_cdist_backward_gradcheck(dev, no_fallback):
    torch.manual_seed(0)
    for p in (1.5, 2.0, 3.0):
        a = torch.randn(3, 4, dtype=torch.float64, device=dev, requires_grad=True)
        b = torch.randn(5, 4, dtype=torch.float64, device=dev, requires_grad=True)
        assert torch.autograd.gradcheck(
            lambda x, y: torch.cdist(x, y, p, compute_mode="donot_use_mm_for_euclid_dist"),
            (a, b))


@pytest.mark.parametrize("p", [0.0, 0.5, 1.0, 2.0, 3.5, math.inf])
def test_pdist_backward(dev, no_fallback, p):
    torch.manual_seed(0)
    x = torch.randn(7, 5, dtype=torch.float64)
    x[3] = x[1]                                           # a zero distance
    x[5, :2] = x[0, :2]
    want, got = grads_on(dev, lambda a: F.pdist(a, p), x)
    assert_close(got[0], want[0])
    a = torch.randn(4, 3, dtype=torch.float64, device=dev, requires_grad=True)
    if p not in (0.0, 0.5, math.inf):                     # smooth at random points
        assert torch.autograd.gradcheck(lambda t: F.pdist(t, p), (a,))


@GRID_CASES
def test_grid_sample_backward(dev, no_fallback, mode, padding_mode, align_corners):
    torch.manual_seed(0)
    x = torch.randn(2, 3, 5, 7, dtype=torch.float64)
    grid = torch.rand(2, 4, 6, 2, dtype=torch.float64) * 3 - 1.5   # some outside [-1, 1]

    def fn(a, g):
        return F.grid_sample(a, g, mode=mode, padding_mode=padding_mode,
                             align_corners=align_corners)
    want, got = grads_on(dev, fn, x, grid)
    for g, e in zip(got, want):
        assert g.shape == e.shape
        assert_close(g, e)
    # only one of the two gradients asked for (output_mask)
    for needs in ((True, False), (False, True)):
        grads = []
        for where in ("cpu", dev):
            a = x.to(where).requires_grad_(needs[0])
            g = grid.to(where).requires_grad_(needs[1])
            grads.append(torch.autograd.grad(fn(a, g).sum(), a if needs[0] else g)[0])
        assert_close(grads[1], grads[0])


def test_grid_sample_backward_float32(dev, no_fallback):
    torch.manual_seed(0)
    x = torch.randn(1, 2, 6, 6)
    grid = torch.rand(1, 5, 5, 2) * 2.2 - 1.1
    want, got = grads_on(dev, lambda a, g: F.grid_sample(a, g, align_corners=False), x, grid)
    for g, e in zip(got, want):
        assert_close(g, e, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("padding_idx,last", [(None, False), (2, False), (None, True)])
def test_embedding_bag_per_sample_weights_backward(dev, no_fallback, padding_idx, last):
    torch.manual_seed(0)
    w = torch.randn(10, 3, dtype=torch.float64)
    idx = torch.tensor([1, 2, 4, 5, 4, 3, 2, 9, 0, 2])
    off = torch.tensor([0, 4, 4, 7, 10] if last else [0, 4, 4, 7])
    psw = torch.rand(10, dtype=torch.float64)
    want, got = grads_on(dev, lambda a, i, o, s: F.embedding_bag(
        i, a, o, mode="sum", per_sample_weights=s, padding_idx=padding_idx,
        include_last_offset=last), w, idx, off, psw)
    for g, e in zip(got, want):
        assert_close(g, e)


def test_embedding_bag_forward_only(dev, no_fallback):
    torch.manual_seed(0)
    w = torch.randn(10, 3)
    idx = torch.tensor([1, 2, 4, 5, 4, 3])
    off = torch.tensor([0, 2, 2])
    for mode in ("sum", "mean", "max"):
        want, got = both(dev, lambda a, i, o: F.embedding_bag(i, a, o, mode=mode), w, idx, off)
        assert_close(got, want)
