# SPDX-License-Identifier: Apache-2.0
"""A CPU tensor given to an op on the clops device raises PyTorch's "Expected
all tensors to be on the same device", as on PyTorch's own devices, whether
clops has a kernel for the op or it would run through the CPU fallback; only
zero-dim CPU tensors (scalars) and index lists may mix."""
import pytest
import torch

import clops.torch  # noqa: F401
from conftest import assert_close

SAME = "Expected all tensors to be on the same device"


def lacking(a, b):
    # An op no clops family provides (it would run through the CPU fallback).
    return torch.linalg.solve_triangular(a, b, upper=False)


def test_cpu_plus_clops_raises(dev):
    with pytest.raises(RuntimeError, match=SAME):
        torch.ones(3) + torch.ones(3, device=dev)
    with pytest.raises(RuntimeError, match=SAME):
        torch.ones(3, device=dev) + torch.ones(3)
    with pytest.raises(RuntimeError, match=SAME):
        torch.ones(3, device=dev).add_(torch.ones(3))
    with pytest.raises(RuntimeError, match=SAME):
        torch.mm(torch.ones(2, 2, device=dev), torch.ones(2, 2))


def test_tensor_list_and_fallback_ops_raise(dev):
    with pytest.raises(RuntimeError, match=SAME):
        torch.cat([torch.ones(2, device=dev), torch.ones(2)])
    a = torch.eye(3)
    with pytest.raises(RuntimeError, match=SAME):
        lacking(a.to(dev), torch.ones(3, 2))


def test_error_names_argument_and_devices(dev):
    with pytest.raises(RuntimeError) as e:
        torch.ones(3, device=dev) + torch.ones(3)
    msg = str(e.value)
    assert "other is on cpu" in msg and str(dev) in msg, msg


def test_zero_dim_cpu_tensor_mixes(dev):
    x = torch.arange(4.0, device=dev)
    r = x + torch.tensor(2.0)
    assert r.device == dev
    assert_close(r, torch.arange(4.0) + 2.0)
    r = torch.tensor(3.0) * x
    assert r.device == dev
    assert_close(r, torch.arange(4.0) * 3.0)
    r = torch.where(x > 1, x, torch.tensor(0.0))
    assert r.device == dev
    assert_close(r, torch.where(torch.arange(4.0) > 1, torch.arange(4.0), torch.tensor(0.0)))


def test_cpu_indices_mix(dev):
    # PyTorch's devices accept CPU index tensors in indexing.
    x = torch.arange(10.0, device=dev)
    r = x[torch.tensor([1, 3, 5])]
    assert r.device == dev
    assert_close(r, torch.tensor([1.0, 3.0, 5.0]))


def test_convolution_and_batch_norm_raise(dev):
    x = torch.randn(1, 2, 5, 5)
    w = torch.randn(3, 2, 3, 3)
    with pytest.raises(RuntimeError, match=SAME + "|should be the same"):
        torch.nn.functional.conv2d(x, w.to(dev))
    with pytest.raises(RuntimeError, match=SAME + "|should be the same"):
        torch.nn.functional.conv2d(x.to(dev), w)
    with pytest.raises(RuntimeError, match=SAME):
        torch.nn.functional.batch_norm(x.to(dev), torch.zeros(2), torch.ones(2), training=True)
