# SPDX-License-Identifier: Apache-2.0
"""Copies host to device, device to host and device to device, with dtype
conversion, broadcasting and any strides."""
import pytest
import torch

from conftest import assert_close

DTYPES = [torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64,
          torch.float16, torch.bfloat16, torch.float32]


@pytest.mark.parametrize("dtype", DTYPES)
def test_round_trip_every_dtype(dev, dtype):
    c = (torch.arange(-7, 28).reshape(5, 7) % 5).to(dtype)
    x = c.to(dev)
    assert x.dtype == dtype and x.device == dev
    assert torch.equal(x.cpu(), c)


def test_noncontiguous_host_to_device_and_back(dev):
    c = torch.randn(6, 8)
    x = c.t().to(dev)
    assert_close(x, c.t())
    y = torch.empty(8, 6, device=dev)
    y[:, ::2] = c.t()[:, ::2]
    assert_close(y[:, ::2], c.t()[:, ::2])
    z = torch.empty(6, 8)
    z.copy_(x.t())
    assert_close(z, c)


def test_device_to_device_with_conversion_and_broadcast(dev):
    c = torch.randn(1, 5)
    x = c.to(dev)
    y = torch.empty(3, 5, dtype=torch.float16, device=dev)
    y.copy_(x)
    assert_close(y, c.expand(3, 5).half())
    assert_close(x.to(torch.int32), c.to(torch.int32))
    assert_close(x.double() if False else x.bfloat16(), c.bfloat16())


def test_clone_and_to_same_device(dev):
    x = torch.randn(4, 4, device=dev)
    y = x.clone()
    assert y.untyped_storage().data_ptr() != x.untyped_storage().data_ptr()
    assert_close(x, y)
    assert x.to(dev) is x
