# SPDX-License-Identifier: Apache-2.0
"""Shared fixtures of the clops PyTorch device tests.

The tests need a clops OpenCL device (POCL on the CPU is enough); without one
they fail rather than skip, so a CI machine that lost its OpenCL platform does
not pass silently.
"""
import pytest
import torch

import clops.torch  # noqa: F401  (registers the device)


@pytest.fixture(scope="session", autouse=True)
def clops_device_present():
    assert torch.clops.is_available(), (
        "no clops OpenCL device: " + clops.torch._C.discovery_note())


# Exact float32 convolutions, as the values are compared with PyTorch's CPU:
# cudnn.allow_tf32 (True by default) is clops' convolution precision, and
# would put float32 convolutions on TF32 on NVIDIA devices (docs/torch.md).
# test_precision.py sets it where it tests the mapping.
torch.backends.cudnn.allow_tf32 = False


@pytest.fixture
def dev():
    return torch.device("clops", torch.clops.current_device())


@pytest.fixture
def no_fallback():
    """Asserts that the test body ran nothing through a CPU fallback."""
    torch.clops.reset_fallback_counts()
    yield
    assert torch.clops.fallback_counts() == {}


def assert_close(actual, expected, **kw):
    """torch.testing.assert_close with the device part of the check off."""
    torch.testing.assert_close(actual.cpu(), expected.cpu(), check_device=False, **kw)
