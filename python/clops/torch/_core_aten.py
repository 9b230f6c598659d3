# SPDX-License-Identifier: Apache-2.0
"""Core ATen ops the device "clops" runs as compositions of its own kernels.

PyTorch gives these core-tagged overloads no decomposition a new backend
inherits (only CPU/CUDA kernels, or a CompositeExplicitAutogradNonFunctional
kernel that PrivateUse1 does not get), and clops has no kernel of the same
name.  Each is written here as PyTorch writes it, over ops clops binds, so
nothing reaches the CPU fallback; docs/torch.md ("Core ATen") lists them and
python/tools/core_aten_coverage.py counts what is still missing.

- copy, select_scatter, slice_scatter: PyTorch's own formulation (a copy of
  self with src copied into the view).
- _adaptive_avg_pool3d and its backward: per dim, a 0/1 matrix of the
  adaptive windows (start = floor(i*n/m), end = ceil((i+1)*n/m)) contracts
  that dim by a GEMM; the sums are divided by the window volumes.  Half and
  bfloat16 are computed in float32 and rounded once, as PyTorch's CPU kernel
  accumulates them.
- _cdist_forward: p=2 through PyTorch's GEMM formulation (_euclidean_dist)
  where PyTorch uses it (compute_mode 1, or 0 with more than 25 rows on
  either side), other p from the differences directly; _pdist_forward: the
  differences of the pairs i < j.
- _embedding_bag: sum/mean/max bags from embedding rows gathered by
  index_select and reduced by index_add / scatter_reduce over offset2bag,
  with per_sample_weights, include_last_offset and padding_idx; it returns
  offset2bag, bag_size and max_indices as PyTorch's CPU kernel does, and
  its weight gradient (_embedding_bag_backward / _dense_backward) is an
  index_add_ (scatter_add_ at max_indices for max).
- grid_sampler_2d: PyTorch's unnormalize / padding (zeros, border,
  reflection) / interpolation (bilinear, nearest, bicubic) formulas, the
  taps fetched by gather.
- reflection/replication_pad{1,2,3}d_backward (not core, but CPU-only in
  PyTorch): one index_add_ per padded dim with the forward's map.
- The backwards of cdist, pdist, grid_sampler_2d and embedding_bag's
  per_sample_weights (not core, CPU/CUDA-only in PyTorch): PyTorch's
  formulas, the scatters by index_add_ / scatter_add_ (clops' deterministic
  segment plans); _embedding_bag_forward_only is _embedding_bag.

These are registered for PrivateUse1 only where clops binds no kernel of its
own, so an op that later gets a clops kernel takes over silently.
"""
import math

import torch

_LIB = None


def _window_matrix(n, m, device):
    """The (m, n) 0/1 matrix of adaptive pooling's windows of a dim of size n
    pooled to m, and the (m,) window lengths, on device (built on the host:
    it is data, like the index vectors of reflection padding)."""
    mat = torch.zeros(m, n, dtype=torch.float32)
    lens = torch.empty(m, dtype=torch.float32)
    for i in range(m):
        s = (i * n) // m
        e = -((-(i + 1) * n) // m)
        mat[i, s:e] = 1
        lens[i] = e - s
    return mat.to(device), lens.to(device)


def _adaptive_check(self, output_size, op):
    if self.dim() not in (4, 5):
        raise RuntimeError(f"{op}(): Expected 4D or 5D tensor, but got {list(self.shape)}")
    if len(output_size) != 3:
        raise RuntimeError(f"{op}: output_size must be 3")
    for i in range(1, self.dim()):
        if self.shape[i] == 0:
            raise RuntimeError(
                f"{op}(): Expected input to have non-zero size for non-batch dimensions, "
                f"but input has sizes {list(self.shape)} with dimension {i} being empty")
    if any(s < 0 for s in output_size):
        raise RuntimeError(f"{op}: elements of output_size must be greater than or equal to 0 "
                           f"but received {{{', '.join(str(s) for s in output_size)}}}")
    if not self.dtype.is_floating_point:
        raise RuntimeError(f'"{op}_cpu" not implemented for \'{_dtype_name(self)}\'')


def _adaptive_avg_pool3d(self, output_size):
    output_size = [int(s) for s in output_size]
    _adaptive_check(self, output_size, "adaptive_avg_pool3d")
    x = self.to(torch.float32) if self.dtype in (torch.float16, torch.bfloat16) else self
    cnt = None
    for k, m in enumerate(output_size):
        d = x.dim() - 3 + k
        mat, lens = _window_matrix(x.shape[d], m, x.device)
        mat, lens = mat.to(x.dtype), lens.to(x.dtype)
        x = torch.matmul(x.movedim(d, -1), mat.t()).movedim(-1, d)
        shape = [1, 1, 1]
        shape[k] = m
        cnt = lens.view(shape) if cnt is None else cnt * lens.view(shape)
    out = x / cnt
    return out.to(self.dtype).contiguous()


def _adaptive_avg_pool3d_backward(grad_output, self):
    _adaptive_check(self, [grad_output.shape[-3], grad_output.shape[-2], grad_output.shape[-1]],
                    "adaptive_avg_pool3d_backward")
    g = grad_output.to(torch.float32) if self.dtype in (torch.float16, torch.bfloat16) \
        else grad_output.to(self.dtype)
    cnt = None
    mats = []
    for k in range(3):
        d = g.dim() - 3 + k
        mat, lens = _window_matrix(self.shape[d], g.shape[d], g.device)
        mats.append(mat.to(g.dtype))
        shape = [1, 1, 1]
        shape[k] = g.shape[d]
        lens = lens.to(g.dtype).view(shape)
        cnt = lens if cnt is None else cnt * lens
    g = g / cnt
    for k in range(3):
        d = g.dim() - 3 + k
        g = torch.matmul(g.movedim(d, -1), mats[k]).movedim(-1, d)
    return g.to(self.dtype).contiguous()


def _empty_preserving_strides(self):
    """An uninitialized tensor like self with self's strides where they
    overlap nowhere (PyTorch's clone_preserve_strides), else contiguous."""
    if torch._debug_has_internal_overlap(self) == 0:
        return torch.empty_strided(self.shape, self.stride(), dtype=self.dtype,
                                   device=self.device)
    return torch.empty(self.shape, dtype=self.dtype, device=self.device)


def _copy(self, src, non_blocking=False):
    out = _empty_preserving_strides(self)
    out.copy_(src, non_blocking=non_blocking)
    return out


def _scatter_into(self, src, view_of):
    out = _empty_preserving_strides(self)
    out.copy_(self)
    view = view_of(out)
    if view.shape != src.shape:
        raise RuntimeError("expected src to have a size equal to the slice of self. "
                           f"src size = {list(src.shape)}, slice size = {list(view.shape)}")
    view.copy_(src)
    return out


def _select_scatter(self, src, dim, index):
    return _scatter_into(self, src, lambda t: torch.ops.aten.select.int(t, dim, index))


def _slice_scatter(self, src, dim=0, start=None, end=None, step=1):
    return _scatter_into(self, src,
                         lambda t: torch.ops.aten.slice.Tensor(t, dim, start, end, step))


_C10_NAMES = {torch.int64: "Long", torch.int32: "Int", torch.int16: "Short", torch.int8: "Char",
              torch.uint8: "Byte", torch.bool: "Bool", torch.float32: "Float",
              torch.float64: "Double", torch.float16: "Half", torch.bfloat16: "BFloat16"}


def _dtype_name(t):
    """The dtype's name in PyTorch's messages (c10's ScalarType name)."""
    return _C10_NAMES.get(t.dtype, str(t.dtype).replace("torch.", ""))


def _pnorm_of_diffs(diff, p):
    """The p-norm over the last dim of the absolute differences diff."""
    if p == 0:
        return (diff != 0).sum(-1).to(diff.dtype)
    if math.isinf(p):
        return diff.amax(-1)
    if p == 1:
        return diff.sum(-1)
    if p == 2:
        return diff.mul(diff).sum(-1).sqrt()
    return diff.pow(p).sum(-1).pow(1.0 / p)


def _euclidean_dist(x1, x2):
    """PyTorch's _euclidean_dist: |a|^2 - 2ab + |b|^2 by one GEMM."""
    x1_norm = x1.pow(2).sum(-1, keepdim=True)
    x2_norm = x2.pow(2).sum(-1, keepdim=True)
    x1_ = torch.cat([x1.mul(-2), x1_norm, torch.ones_like(x1_norm)], -1)
    x2_ = torch.cat([x2, torch.ones_like(x2_norm), x2_norm], -1)
    return torch.matmul(x1_, x2_.mT).clamp_min_(0).sqrt_()


def _cdist_forward(x1, x2, p, compute_mode=None):
    if x1.dim() < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X1 got: {x1.dim()}D")
    if x2.dim() < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X2 got: {x2.dim()}D")
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError("X1 and X2 must have the same number of columns. "
                           f"X1: {x1.shape[-1]} X2: {x2.shape[-1]}")
    if not x1.dtype.is_floating_point:
        raise RuntimeError(f"cdist only supports floating-point dtypes, X1 got: {_dtype_name(x1)}")
    if not x2.dtype.is_floating_point:
        raise RuntimeError(f"cdist only supports floating-point dtypes, X2 got: {_dtype_name(x2)}")
    if x1.dtype != x2.dtype:
        raise RuntimeError("expected scalar type " + _dtype_name(x1) + " but found " +
                           _dtype_name(x2))
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    mode = 0 if compute_mode is None else compute_mode
    if mode not in (0, 1, 2):
        raise RuntimeError(f"possible modes: 0, 1, 2, but was: {mode}")
    r1, r2, c = x1.shape[-2], x2.shape[-2], x1.shape[-1]
    batch = torch.broadcast_shapes(x1.shape[:-2], x2.shape[:-2])
    a = x1.expand(*batch, r1, c)
    b = x2.expand(*batch, r2, c)
    if r1 == 0 or r2 == 0:
        return torch.empty(*batch, r1, r2, dtype=x1.dtype, device=x1.device)
    if c == 0:
        return torch.zeros(*batch, r1, r2, dtype=x1.dtype, device=x1.device)
    if p == 2 and (mode == 1 or (mode == 0 and (r1 > 25 or r2 > 25))):
        return _euclidean_dist(a, b).contiguous()
    diff = (a.unsqueeze(-2) - b.unsqueeze(-3)).abs()
    return _pnorm_of_diffs(diff, p).contiguous()


def _pdist_forward(self, p=2):
    if not self.is_contiguous():
        raise RuntimeError("_pdist_forward requires contiguous input")
    if self.dim() != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {self.dim()}D")
    if not self.dtype.is_floating_point:
        raise RuntimeError(f'"pdist" not implemented for \'{_dtype_name(self)}\'')
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    n, m = self.shape
    count = n * (n - 1) // 2 if n > 1 else 0
    if count == 0:
        return torch.empty(0, dtype=self.dtype, device=self.device)
    if m == 0:
        return torch.zeros(count, dtype=self.dtype, device=self.device)
    ij = torch.triu_indices(n, n, 1).to(self.device)
    diff = (self.index_select(0, ij[0]) - self.index_select(0, ij[1])).abs()
    return _pnorm_of_diffs(diff, p).contiguous()


def _dist_backward_terms(diff, grad, dist, p):
    """d dist / d x_i times grad for each pair, from diff = x_i - x_j
    (..., c) and the pair's grad and dist (..., 1): PyTorch's Distance
    kernels' backward cases (p = 0, 1, < 2, 2, inf, general), zero where the
    distance is zero."""
    dt, dev = diff.dtype, diff.device
    zero = torch.zeros((), dtype=dt, device=dev)
    if p == 0:
        return torch.zeros_like(diff)
    sign = (diff > 0).to(dt) - (diff < 0).to(dt)
    if p == 1:
        return grad * sign
    if math.isinf(p):
        # 1 where |diff| is the distance: 1 - min(1, ceil(||diff| - dist|))
        hit = 1 - ((diff.abs() - dist).abs().ceil()).clamp_max(1)
        return grad * sign * hit
    if p == 2:
        r = grad * diff / dist
    elif p < 2:
        r = sign * diff.abs().pow(p - 1) * grad / dist.pow(p - 1)
    else:
        r = diff * diff.abs().pow(p - 2) * grad / dist.pow(p - 1)
    r = torch.where(dist == 0, zero, r)
    if p < 1:
        r = torch.where(diff == 0, zero, r)
    return r


def _cdist_backward(grad, x1, x2, p, cdist):
    """The gradient of _cdist_forward with respect to x1 (autograd asks again
    with the operands swapped for x2): per pair (i, j) the distance's
    derivative, summed over j.  Shaped as x1 broadcast to the batch."""
    r1, r2, c = x1.shape[-2], x2.shape[-2], x1.shape[-1]
    batch = torch.broadcast_shapes(x1.shape[:-2], x2.shape[:-2])
    a = x1.expand(*batch, r1, c)
    b = x2.expand(*batch, r2, c)
    if r1 == 0 or r2 == 0 or c == 0 or a.numel() == 0:
        return torch.zeros_like(x1)
    if p == 0:
        return torch.zeros(*batch, r1, c, dtype=x1.dtype, device=x1.device)
    diff = a.unsqueeze(-2) - b.unsqueeze(-3)                     # (*, r1, r2, c)
    terms = _dist_backward_terms(diff, grad.unsqueeze(-1), cdist.unsqueeze(-1), p)
    return terms.sum(-2).contiguous()


def _pdist_backward(grad, self, p, pdist):
    """The gradient of _pdist_forward: each pair's derivative added to its
    first row and subtracted from its second, by one index_add_ (clops'
    segment plan: deterministic)."""
    if not self.is_contiguous():
        raise RuntimeError("_pdist_backward requires self to be contiguous")
    if not pdist.is_contiguous():
        raise RuntimeError("_pdist_backward requires pdist to be contiguous")
    n, m = self.shape
    out = torch.zeros(n, m, dtype=self.dtype, device=self.device)
    if n <= 1 or m == 0 or p == 0:
        return out
    ij = torch.triu_indices(n, n, 1).to(self.device)
    diff = self.index_select(0, ij[0]) - self.index_select(0, ij[1])
    terms = _dist_backward_terms(diff, grad.unsqueeze(-1), pdist.unsqueeze(-1), p)
    return out.index_add_(0, torch.cat([ij[0], ij[1]]), torch.cat([terms, -terms]))


def _offset2bag(off, n, nb):
    """offset2bag[i], the bag of index i of n: a 1 at each of the nb bags'
    starts (offsets, int64), summed cumulatively."""
    starts = torch.zeros(n + 1, dtype=torch.int64, device=off.device)
    if nb > 1:
        starts.index_add_(0, off[1:nb].clamp(max=n),
                          torch.ones(nb - 1, dtype=torch.int64, device=off.device))
    return starts[:n].cumsum(0)


def _embedding_bag(weight, indices, offsets, scale_grad_by_freq=False, mode=0, sparse=False,
                   per_sample_weights=None, include_last_offset=False, padding_idx=-1):
    for name, t in (("indices", indices), ("offsets", offsets)):
        if t.dtype not in (torch.int32, torch.int64):
            raise RuntimeError(
                f"Expected tensor for argument #1 '{name}' to have one of the following scalar "
                f"types: Long, Int; but got {t.type()} instead (while checking arguments for "
                "embedding_bag)")
    if weight.dim() != 2:
        raise RuntimeError(f"embedding_bag: weight has to be a 2D Tensor, but got Tensor of "
                           f"dimension {weight.dim()}")
    if indices.dim() != 1 or offsets.dim() != 1:
        raise RuntimeError("embedding_bag: input has to be a 1D or 2D Tensor, and offsets a 1D "
                           f"Tensor, but got input {indices.dim()}D and offsets {offsets.dim()}D")
    if mode not in (0, 1, 2):
        raise RuntimeError(f"embedding_bag: mode {mode} is not 0 (sum), 1 (mean) or 2 (max)")
    if per_sample_weights is not None:
        if mode != 0:
            raise RuntimeError("embedding_bag: per_sample_weights only supported with mode='sum'")
        if per_sample_weights.dtype != weight.dtype:
            raise RuntimeError(f"expected scalar type {_dtype_name(weight)} but found "
                               f"{_dtype_name(per_sample_weights)}")
        if per_sample_weights.shape != indices.shape:
            raise RuntimeError("embedding_bag: per_sample_weights must have the shape of the "
                               f"indices {list(indices.shape)}, got "
                               f"{list(per_sample_weights.shape)}")
    n, rows = indices.shape[0], weight.shape[0]
    idx = indices.to(torch.int64)
    off = offsets.to(torch.int64)
    nb = off.shape[0] - 1 if include_last_offset else off.shape[0]
    if include_last_offset and nb < 0:
        raise RuntimeError("include_last_offset: numBags should be at least 1")
    if off.shape[0] > 0:
        first = int(off[0].item())
        if first != 0:
            raise RuntimeError("offsets[0] has to be 0, i.e., the first sequence in the "
                               f"mini-batch has to start from position 0. However, got {first}")
    if n > 0:
        lo, hi = int(idx.min().item()), int(idx.max().item())
        if lo < 0 or hi >= rows:
            bad = lo if lo < 0 else hi
            pos = int((idx == bad).nonzero()[0, 0].item())
            raise RuntimeError(f"Index {pos} of input takes value {bad} which is not in the "
                               f"valid range [0, {rows})")
    dev, d = weight.device, weight.shape[1]
    offset2bag = _offset2bag(off, n, nb)
    valid = idx != padding_idx if padding_idx >= 0 else torch.ones(n, dtype=torch.bool,
                                                                   device=dev)
    vals = weight.index_select(0, idx)
    if per_sample_weights is not None:
        vals = vals * per_sample_weights.unsqueeze(1)
    counts = torch.zeros(nb, dtype=torch.int64, device=dev).index_add_(0, offset2bag,
                                                                      valid.to(torch.int64))
    if mode == 2:
        neg = torch.full((), float("-inf"), dtype=weight.dtype, device=dev)
        masked = torch.where(valid.unsqueeze(1), vals, neg)
        bag_idx = offset2bag.unsqueeze(1).expand(n, d)
        out = torch.full((nb, d), float("-inf"), dtype=weight.dtype, device=dev)
        out.scatter_reduce_(0, bag_idx, masked, "amax", include_self=True)
        # The first index of each bag holding its maximum, as PyTorch's CPU kernel keeps.
        hit = (masked == out.index_select(0, offset2bag)) & valid.unsqueeze(1)
        pos = torch.arange(n, dtype=torch.int64, device=dev).unsqueeze(1).expand(n, d)
        pos = torch.where(hit, pos, torch.full((), n, dtype=torch.int64, device=dev))
        first = torch.full((nb, d), n, dtype=torch.int64, device=dev)
        first.scatter_reduce_(0, bag_idx, pos, "amin", include_self=True)
        empty = (counts == 0).unsqueeze(1)
        out = torch.where(empty, torch.zeros((), dtype=weight.dtype, device=dev), out)
        idx_pad = torch.cat([idx, torch.zeros(1, dtype=torch.int64, device=dev)])
        max_indices = idx_pad.index_select(0, first.reshape(-1)).view(nb, d)
        return out, offset2bag, counts, max_indices
    vals = torch.where(valid.unsqueeze(1), vals, torch.zeros((), dtype=vals.dtype, device=dev))
    out = torch.zeros(nb, d, dtype=weight.dtype, device=dev).index_add_(0, offset2bag, vals)
    if mode == 1:
        out = out / counts.clamp(min=1).to(weight.dtype).unsqueeze(1)
        return out, offset2bag, counts, counts.clone()
    # mode sum: PyTorch's CPU kernel returns an empty offset2bag and zero bag sizes
    # unless padding_idx is set (its backward recomputes them).
    zeros = torch.zeros(nb, dtype=torch.int64, device=dev)
    o2b = offset2bag if padding_idx >= 0 else torch.empty(0, dtype=torch.int64, device=dev)
    return out, o2b, zeros, zeros.clone()


def _index_counts(idx, num_weights, dtype):
    """How often each of num_weights rows occurs in idx (scale_grad_by_freq)."""
    ones = torch.ones(idx.shape[0], dtype=dtype, device=idx.device)
    return torch.zeros(num_weights, dtype=dtype, device=idx.device).index_add_(0, idx, ones)


def _embedding_bag_dense_backward(grad, indices, offset2bag, bag_size, maximum_indices,
                                  num_weights, scale_grad_by_freq, mode, per_sample_weights,
                                  padding_idx=-1):
    """The weight gradient of _embedding_bag (PyTorch's _embedding_bag_backward
    has recomputed an empty offset2bag from the offsets before it calls this)."""
    dev, d = grad.device, grad.shape[1]
    idx = indices.to(torch.int64)
    n = idx.shape[0]
    out = torch.zeros(num_weights, d, dtype=grad.dtype, device=dev)
    if n == 0:
        return out
    if mode == 2:
        nb = grad.shape[0]
        sel = maximum_indices.to(torch.int64).reshape(nb, d)
        keep = (bag_size > 0).unsqueeze(1)
        if padding_idx >= 0:
            keep = keep & (sel != padding_idx)
        g = torch.where(keep, grad, torch.zeros((), dtype=grad.dtype, device=dev))
        if scale_grad_by_freq:
            counts = _index_counts(idx, num_weights, grad.dtype)
            g = g / counts.index_select(0, sel.reshape(-1)).clamp(min=1).view(nb, d)
        return out.scatter_add_(0, sel, g)
    o2b = offset2bag.to(torch.int64)
    rows = grad.index_select(0, o2b)
    if mode == 1:
        rows = rows / bag_size.index_select(0, o2b).clamp(min=1).to(grad.dtype).unsqueeze(1)
    if per_sample_weights is not None:
        rows = rows * per_sample_weights.unsqueeze(1)
    if scale_grad_by_freq:
        rows = rows / _index_counts(idx, num_weights, grad.dtype).index_select(0, idx).unsqueeze(1)
    if padding_idx >= 0:
        rows = torch.where((idx != padding_idx).unsqueeze(1), rows,
                           torch.zeros((), dtype=rows.dtype, device=dev))
    return out.index_add_(0, idx, rows)


def _embedding_bag_backward(grad, indices, offsets, offset2bag, bag_size, maximum_indices,
                            num_weights, scale_grad_by_freq, mode, sparse, per_sample_weights,
                            padding_idx=-1):
    if sparse:
        raise NotImplementedError("clops: embedding_bag(sparse=True) needs a sparse gradient, "
                                  "which the clops device does not have: use sparse=False")
    if offset2bag.numel() == 0 and indices.numel() > 0:
        # PyTorch's CPU forward leaves it empty for mode sum; recompute it
        offset2bag = _offset2bag(offsets.to(torch.int64), indices.shape[0], grad.shape[0])
    return _embedding_bag_dense_backward(grad, indices, offset2bag, bag_size, maximum_indices,
                                         num_weights, scale_grad_by_freq, mode,
                                         per_sample_weights, padding_idx)


def _embedding_bag_per_sample_weights_backward(grad, weight, indices, offsets, offset2bag, mode,
                                               padding_idx=-1):
    """The gradient of per_sample_weights: for index i, the dot product of
    its bag's output gradient and its embedding row (zero at padding_idx)."""
    if mode != 0:
        raise RuntimeError("embedding_bag_backward: per_sample_weights only supported for "
                           "mode='sum'")
    idx = indices.to(torch.int64)
    n = idx.shape[0]
    if n == 0:
        return torch.zeros(0, dtype=grad.dtype, device=grad.device)
    if offset2bag.numel() == 0:
        offset2bag = _offset2bag(offsets.to(torch.int64), n, grad.shape[0])
    rows = grad.index_select(0, offset2bag.to(torch.int64))
    out = (rows * weight.index_select(0, idx)).sum(1)
    if padding_idx >= 0:
        out = torch.where(idx != padding_idx, out,
                          torch.zeros((), dtype=out.dtype, device=out.device))
    return out


def _embedding_bag_forward_only(weight, indices, offsets, scale_grad_by_freq=False, mode=0,
                                sparse=False, per_sample_weights=None, include_last_offset=False,
                                padding_idx=-1):
    return _embedding_bag(weight, indices, offsets, scale_grad_by_freq, mode, sparse,
                          per_sample_weights, include_last_offset, padding_idx)


def _grid_check(input, grid, interpolation_mode, padding_mode):
    if input.dim() != 4 or grid.dim() != 4:
        raise RuntimeError("grid_sampler(): expected 4D input and grid with same number of "
                           f"dimensions, but got input with sizes {list(input.shape)} and grid "
                           f"with sizes {list(grid.shape)}")
    if input.dtype != grid.dtype:
        raise RuntimeError("grid_sampler(): expected input and grid to have same dtype, but "
                           f"input has {input.dtype} and grid has {grid.dtype}")
    if input.shape[0] != grid.shape[0]:
        raise RuntimeError("grid_sampler(): expected grid and input to have same batch size, "
                           f"but got input with sizes {list(input.shape)} and grid with sizes "
                           f"{list(grid.shape)}")
    if grid.shape[-1] != 2:
        raise RuntimeError("grid_sampler(): expected grid to have size 2 in last dimension, but "
                           f"got grid with sizes {list(grid.shape)}")
    if input.shape[2] == 0 or input.shape[3] == 0:
        raise RuntimeError("grid_sampler(): expected input to have non-empty spatial "
                           f"dimensions, but input has sizes {list(input.shape)} with dimension "
                           f"{2 if input.shape[2] == 0 else 3} being empty")
    if interpolation_mode not in (0, 1, 2) or padding_mode not in (0, 1, 2):
        raise RuntimeError(f"grid_sampler(): interpolation mode {interpolation_mode} or padding "
                           f"mode {padding_mode} is not 0, 1 or 2")
    if not input.dtype.is_floating_point:
        raise RuntimeError('"grid_sampler_2d_cpu_kernel_impl" not implemented for '
                           f"'{_dtype_name(input)}'")


def _unnormalize(g, size, align_corners):
    """PyTorch's grid_sampler_unnormalize, and its derivative (a number)."""
    if align_corners:
        return (g + 1) / 2 * (size - 1), (size - 1) / 2
    return ((g + 1) * size - 1) / 2, size / 2


def _clip_set_grad(coord, size):
    """PyTorch's clip_coordinates_set_grad: the clipped coord and its
    derivative, 0 at and beyond the ends (NaN passes with derivative 1)."""
    inside = ~((coord <= 0) | (coord >= size - 1))
    return coord.clamp(0, size - 1), inside.to(coord.dtype)


def _reflect_set_grad(coord, twice_low, twice_high):
    """PyTorch's reflect_coordinates_set_grad: the reflected coord and its
    derivative (+1 or -1)."""
    if twice_low == twice_high:
        return torch.zeros_like(coord), torch.zeros_like(coord)
    lo = twice_low / 2
    span = (twice_high - twice_low) / 2
    c = coord - lo
    neg = c < 0
    sign = torch.where(neg, torch.full((), -1.0, dtype=c.dtype, device=c.device),
                       torch.ones((), dtype=c.dtype, device=c.device))
    c = torch.where(neg, -c, c)
    extra = torch.fmod(c, span)
    even = torch.remainder(torch.floor(c / span), 2) == 0
    return torch.where(even, extra + lo, span - extra + lo), torch.where(even, sign, -sign)


def _pad_set_grad(coord, size, padding_mode, align_corners):
    """PyTorch's compute_coordinates (padding applied to an unnormalized
    coord) with its derivative: (coord, d coord / d input), the derivative
    None for zeros padding (1)."""
    if padding_mode == 0:
        return coord, None
    grad = None
    if padding_mode == 2:
        if align_corners:
            coord, grad = _reflect_set_grad(coord, 0, 2 * (size - 1))
        else:
            coord, grad = _reflect_set_grad(coord, -1, 2 * size - 1)
    coord, clip = _clip_set_grad(coord, size)
    return coord, clip if grad is None else grad * clip


def _grid_coord(coord, size, padding_mode, align_corners):
    """PyTorch's compute_coordinates: padding applied to an unnormalized coord."""
    return _pad_set_grad(coord, size, padding_mode, align_corners)[0]


def _source_index_set_grad(g, size, padding_mode, align_corners):
    """PyTorch's grid_sampler_compute_source_index_set_grad: the source
    coordinate of normalized g and d(coordinate)/dg."""
    coord, mult = _unnormalize(g, size, align_corners)
    coord, grad = _pad_set_grad(coord, size, padding_mode, align_corners)
    if grad is None:
        return coord, torch.full((), mult, dtype=g.dtype, device=g.device)
    return coord, grad * mult


def _tap_index(ix, iy, h, w, bounded, padding_mode, align_corners):
    """The flat index (y*w + x, int64) of integer coords (ix, iy) and where
    they lie inside the (h, w) input (bounded: padded first, bicubic's
    get_value_bounded); out-of-bounds indices are clamped into range."""
    if bounded:
        ix = _grid_coord(ix, w, padding_mode, align_corners)
        iy = _grid_coord(iy, h, padding_mode, align_corners)
    ok = (ix >= 0) & (ix <= w - 1) & (iy >= 0) & (iy <= h - 1)
    xi = ix.clamp(0, w - 1).to(torch.int64)
    yi = iy.clamp(0, h - 1).to(torch.int64)
    return yi * w + xi, ok


def _tap_values(flat, lin, ok):
    """flat (n, c, h*w) at the flat indices lin (n, ho, wo): (n, c, ho, wo),
    zero where ok is false."""
    n, c = flat.shape[0], flat.shape[1]
    ho, wo = lin.shape[1], lin.shape[2]
    v = torch.gather(flat, 2, lin.reshape(n, 1, ho * wo).expand(n, c, ho * wo))
    v = v.reshape(n, c, ho, wo)
    return torch.where(ok.unsqueeze(1), v, torch.zeros((), dtype=v.dtype, device=v.device))


def _cubic(t):
    """PyTorch's get_cubic_upsample_coefficients (A = -0.75) at offset t."""
    a = -0.75
    t1, t2, t3 = t + 1, 1 - t, 2 - t
    return [((a * t1 - 5 * a) * t1 + 8 * a) * t1 - 4 * a,
            ((a + 2) * t - (a + 3)) * t * t + 1,
            ((a + 2) * t2 - (a + 3)) * t2 * t2 + 1,
            ((a * t3 - 5 * a) * t3 + 8 * a) * t3 - 4 * a]


def _cubic_grad(t):
    """PyTorch's get_cubic_coefficients_grad at offset t."""
    a = -0.75
    x0, x1, x2, x3 = -1 - t, -t, 1 - t, 2 - t
    return [(-3 * a * x0 - 10 * a) * x0 - 8 * a,
            (-3 * (a + 2) * x1 - 2 * (a + 3)) * x1,
            (3 * (a + 2) * x2 - 2 * (a + 3)) * x2,
            (3 * a * x3 - 10 * a) * x3 + 8 * a]


def _grid_sampler_2d(input, grid, interpolation_mode, padding_mode, align_corners):
    _grid_check(input, grid, interpolation_mode, padding_mode)
    n, c, h, w = input.shape
    flat = input.reshape(n, c, h * w)

    def tap(ix, iy, bounded):
        return _tap_values(flat, *_tap_index(ix, iy, h, w, bounded, padding_mode, align_corners))

    gx = _unnormalize(grid[..., 0], w, align_corners)[0]
    gy = _unnormalize(grid[..., 1], h, align_corners)[0]
    if interpolation_mode == 2:
        x0, y0 = torch.floor(gx), torch.floor(gy)
        wx, wy = _cubic(gx - x0), _cubic(gy - y0)
        out = None
        for j in range(4):
            row = None
            for i in range(4):
                term = tap(x0 - 1 + i, y0 - 1 + j, True) * wx[i].unsqueeze(1)
                row = term if row is None else row + term
            term = row * wy[j].unsqueeze(1)
            out = term if out is None else out + term
        return out
    gx = _grid_coord(gx, w, padding_mode, align_corners)
    gy = _grid_coord(gy, h, padding_mode, align_corners)
    if interpolation_mode == 1:
        return tap(torch.round(gx), torch.round(gy), False)
    x0, y0 = torch.floor(gx), torch.floor(gy)
    x1, y1 = x0 + 1, y0 + 1
    wnw = ((x1 - gx) * (y1 - gy)).unsqueeze(1)
    wne = ((gx - x0) * (y1 - gy)).unsqueeze(1)
    wsw = ((x1 - gx) * (gy - y0)).unsqueeze(1)
    wse = ((gx - x0) * (gy - y0)).unsqueeze(1)
    return (tap(x0, y0, False) * wnw + tap(x1, y0, False) * wne +
            tap(x0, y1, False) * wsw + tap(x1, y1, False) * wse)


def _grid_sampler_2d_backward(grad_output, input, grid, interpolation_mode, padding_mode,
                              align_corners, output_mask):
    """PyTorch's grid_sampler_2d_backward formulas: the input gradient is
    grad_output times each tap's weight, added into the taps' input positions
    by one scatter_add_ (clops' segment plan: deterministic); the grid
    gradient is the sum over channels of each tap's value times its weight's
    derivative, times the coordinate's derivative (unnormalize, clip,
    reflect).  Nearest interpolation has a zero grid gradient, as in
    PyTorch."""
    _grid_check(input, grid, interpolation_mode, padding_mode)
    n, c, h, w = input.shape
    ho, wo = grid.shape[1], grid.shape[2]
    want_input, want_grid = bool(output_mask[0]), bool(output_mask[1])
    g = grad_output
    flat = input.reshape(n, c, h * w)
    zero = torch.zeros((), dtype=input.dtype, device=input.device)
    taps = []      # (flat index, in-bounds mask, weight (n, ho, wo)) per tap
    gix = giy = None

    def add_grid(vx, vy):
        nonlocal gix, giy
        gix = vx if gix is None else gix + vx
        giy = vy if giy is None else giy + vy

    if interpolation_mode == 2:
        ix, mx = _unnormalize(grid[..., 0], w, align_corners)
        iy, my = _unnormalize(grid[..., 1], h, align_corners)
        x0, y0 = torch.floor(ix), torch.floor(iy)
        tx, ty = ix - x0, iy - y0
        wx, wy, dwx, dwy = _cubic(tx), _cubic(ty), _cubic_grad(tx), _cubic_grad(ty)
        for j in range(4):
            for i in range(4):
                lin, ok = _tap_index(x0 - 1 + i, y0 - 1 + j, h, w, True, padding_mode,
                                     align_corners)
                taps.append((lin, ok, wx[i] * wy[j]))
                if want_grid:
                    vg = (_tap_values(flat, lin, ok) * g).sum(1)
                    add_grid(-(vg * (dwx[i] * wy[j])), -(vg * (dwy[j] * wx[i])))
    else:
        ix, mx = _source_index_set_grad(grid[..., 0], w, padding_mode, align_corners)
        iy, my = _source_index_set_grad(grid[..., 1], h, padding_mode, align_corners)
        if interpolation_mode == 1:
            lin, ok = _tap_index(torch.round(ix), torch.round(iy), h, w, False, padding_mode,
                                 align_corners)
            taps.append((lin, ok, None))
        else:
            x0, y0 = torch.floor(ix), torch.floor(iy)
            x1, y1 = x0 + 1, y0 + 1
            dx0, dx1, dy0, dy1 = ix - x0, x1 - ix, iy - y0, y1 - iy
            for xs, ys, wgt, sx, sy in ((x0, y0, dx1 * dy1, -dy1, -dx1),
                                        (x1, y0, dx0 * dy1, dy1, -dx0),
                                        (x0, y1, dx1 * dy0, -dy0, dx1),
                                        (x1, y1, dx0 * dy0, dy0, dx0)):
                lin, ok = _tap_index(xs, ys, h, w, False, padding_mode, align_corners)
                taps.append((lin, ok, wgt))
                if want_grid:
                    vg = (_tap_values(flat, lin, ok) * g).sum(1)
                    add_grid(vg * sx, vg * sy)
    grad_input = grad_grid = None
    if want_input:
        idx, vals = [], []
        for lin, ok, wgt in taps:
            v = g if wgt is None else g * wgt.unsqueeze(1)
            vals.append(torch.where(ok.unsqueeze(1), v, zero).reshape(n, c, ho * wo))
            idx.append(lin.reshape(n, 1, ho * wo).expand(n, c, ho * wo))
        grad_input = torch.zeros(n, c, h * w, dtype=input.dtype, device=input.device)
        grad_input.scatter_add_(2, torch.cat(idx, 2), torch.cat(vals, 2))
        grad_input = grad_input.view(n, c, h, w)
    if want_grid:
        if gix is None:    # nearest
            grad_grid = torch.zeros_like(grid, memory_format=torch.contiguous_format)
        else:
            grad_grid = torch.stack([gix * mx, giy * my], -1)
    return grad_input, grad_grid


def _pad_backward(reflect, npad):
    """reflection_padNd_backward / replication_padNd_backward: the padding is a
    gather per padded dim (output position -> input position, the map clops'
    forward uses), so its gradient is an index_add_ per dim, last dim first."""
    def backward(grad_output, self, padding):
        padding = [int(p) for p in padding]
        g = grad_output
        for k in reversed(range(npad)):
            d = self.dim() - npad + k
            lo = padding[2 * (npad - 1 - k)]
            n = self.shape[d]
            src = []
            for o in range(g.shape[d]):
                i = o - lo
                if reflect:
                    i = -i if i < 0 else i
                    i = 2 * (n - 1) - i if i >= n else i
                else:
                    i = min(max(i, 0), n - 1)
                src.append(i)
            shape = list(g.shape)
            shape[d] = n
            idx = torch.tensor(src, dtype=torch.int64).to(g.device)
            g = torch.zeros(shape, dtype=g.dtype, device=g.device).index_add_(d, idx, g)
        return g
    return backward


_OPS = {
    "copy": _copy,
    "select_scatter": _select_scatter,
    "slice_scatter": _slice_scatter,
    "_adaptive_avg_pool3d": _adaptive_avg_pool3d,
    "_adaptive_avg_pool3d_backward": _adaptive_avg_pool3d_backward,
    "_cdist_forward": _cdist_forward,
    "_pdist_forward": _pdist_forward,
    "_embedding_bag": _embedding_bag,
    "_embedding_bag_backward": _embedding_bag_backward,
    "_embedding_bag_dense_backward": _embedding_bag_dense_backward,
    "grid_sampler_2d": _grid_sampler_2d,
    "grid_sampler_2d_backward": _grid_sampler_2d_backward,
    "_cdist_backward": _cdist_backward,
    "_pdist_backward": _pdist_backward,
    "_embedding_bag_per_sample_weights_backward": _embedding_bag_per_sample_weights_backward,
    "_embedding_bag_forward_only": _embedding_bag_forward_only,
}
for _nd in (1, 2, 3):
    _OPS[f"reflection_pad{_nd}d_backward"] = _pad_backward(True, _nd)
    _OPS[f"replication_pad{_nd}d_backward"] = _pad_backward(False, _nd)


def register():
    """Registers the compositions for PrivateUse1 where clops binds nothing."""
    global _LIB
    if _LIB is not None:
        return
    _LIB = torch.library.Library("aten", "IMPL")
    for name, fn in _OPS.items():
        if torch._C._dispatch_has_kernel_for_dispatch_key("aten::" + name, "PrivateUse1"):
            continue
        _LIB.impl(name, fn, "PrivateUse1")


def registered():
    """The op names this module implements."""
    return sorted(_OPS)
