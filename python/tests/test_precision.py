# SPDX-License-Identifier: Apache-2.0
"""The float32 matmul precision: PyTorch's setting (torch.set_float32_matmul_
precision, torch.backends.cuda.matmul.allow_tf32, and the per-backend
fp32_precision API) reaches clops' GEMM engine at each matrix product and
convolution (clops_get_float32_matmul_precision, exposed by the bridge)."""
import pytest
import torch

import clops.torch  # noqa: F401
from conftest import assert_close

_C = clops.torch._C


@pytest.fixture(autouse=True)
def restore_precision():
    prev = torch.get_float32_matmul_precision()
    yield
    torch.backends.cuda.matmul.fp32_precision = "ieee"
    torch.set_float32_matmul_precision(prev)


def test_set_float32_matmul_precision_reaches_clops(dev):
    a = torch.randn(8, 8)
    ad = a.to(dev)
    for mode in ("high", "medium", "highest", "medium", "high"):
        torch.set_float32_matmul_precision(mode)
        out = ad @ ad
        assert _C.float32_matmul_precision() == mode
        # "high" and "medium" only allow faster paths (POCL computes them as
        # "highest"); the product stays a float32 product here.
        assert_close(out, a @ a, rtol=1e-2, atol=1e-2)


def test_allow_tf32_is_high(dev):
    a = torch.randn(8, 8, device=dev)
    torch.set_float32_matmul_precision("highest")
    torch.backends.cuda.matmul.allow_tf32 = True
    torch.mm(a, a)
    assert _C.float32_matmul_precision() == "high"
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.addmm(a, a, a)
    assert _C.float32_matmul_precision() == "highest"


def test_every_product_and_convolution_follows(dev):
    a = torch.randn(2, 4, 4, device=dev)
    conv = torch.nn.Conv2d(2, 3, 3).to(dev)
    products = [lambda: torch.bmm(a, a), lambda: torch.baddbmm(a, a, a),
                lambda: torch.addbmm(a[0], a, a), lambda: torch.mv(a[0], a[0, 0]),
                lambda: torch.dot(a[0, 0], a[0, 1]), lambda: torch.nn.functional.linear(a, a[0]),
                lambda: conv(a[None])]
    for i, run in enumerate(products):
        mode = ("high", "highest")[i % 2]
        torch.set_float32_matmul_precision(mode)
        run()
        assert _C.float32_matmul_precision() == mode, i


def test_the_setting_applies_at_the_next_product(dev):
    a = torch.randn(4, 4, device=dev)
    torch.set_float32_matmul_precision("highest")
    a @ a
    torch.set_float32_matmul_precision("high")
    (a + 1).relu()  # not a matrix product: clops keeps its mode
    assert _C.float32_matmul_precision() == "highest"
    a @ a
    assert _C.float32_matmul_precision() == "high"


def test_per_backend_api_alone(dev):
    """torch.backends.cuda.matmul.fp32_precision = "tf32" with the legacy
    setting at "highest" is a state torch.get_float32_matmul_precision()
    refuses to report; PyTorch's CUDA matmul then uses TF32, and so does
    clops."""
    a = torch.randn(4, 4, device=dev)
    torch.set_float32_matmul_precision("highest")
    torch.backends.cuda.matmul.fp32_precision = "tf32"
    a @ a
    assert _C.float32_matmul_precision() == "high"
    torch.backends.cuda.matmul.fp32_precision = "ieee"
    a @ a
    assert _C.float32_matmul_precision() == "highest"


def test_cudnn_allow_tf32_sets_the_convolution_precision(dev):
    """torch.backends.cudnn.allow_tf32 (True by default) is clops' float32
    convolution precision: "high" (TF32 on matrix units) or "highest"."""
    x = torch.randn(1, 2, 5, 5, device=dev)
    w = torch.randn(3, 2, 3, 3, device=dev)
    prev = torch.backends.cudnn.allow_tf32
    try:
        torch.set_float32_matmul_precision("highest")
        for flag in (True, False, True):
            torch.backends.cudnn.allow_tf32 = flag
            torch.nn.functional.conv2d(x, w)
            assert _C.float32_conv_precision() == ("high" if flag else "highest")
            assert _C.float32_matmul_precision() == "highest"
    finally:
        torch.backends.cudnn.allow_tf32 = prev
