# SPDX-License-Identifier: Apache-2.0
"""Ops clops lacks run on the CPU through PyTorch's CPU fallback: counted per
op, and refused in strict mode; views never go there."""
import pytest
import torch

import clops.torch
from conftest import assert_close

# An op no clops family plans to provide: Cholesky factorisation.
def lacking(x):
    return torch.linalg.cholesky(x @ x.mT + torch.eye(x.shape[-1], device=x.device))


def test_missing_op_runs_on_cpu_and_is_counted(dev):
    torch.clops.reset_fallback_counts()
    c = torch.randn(4, 4)
    r = lacking(c.to(dev))
    assert r.device == dev
    assert_close(r, lacking(c), rtol=1e-4, atol=1e-5)
    counts = torch.clops.fallback_counts()
    assert any(k.startswith("linalg_cholesky_ex") for k in counts), counts
    assert sum(counts.values()) >= 1
    torch.clops.reset_fallback_counts()
    assert torch.clops.fallback_counts() == {}


def test_strict_mode_refuses(dev):
    x = torch.randn(4, 4, device=dev)
    torch.clops.set_fallback_policy("error")
    try:
        with pytest.raises(NotImplementedError, match="CLOPS_FALLBACK=error"):
            lacking(x)
        # Device ops and views still work in strict mode.
        assert_close((x * 2).t()[1], (x.cpu() * 2).t()[1])
    finally:
        torch.clops.set_fallback_policy("allow")


def test_warn_mode_warns_once(dev):
    x = torch.randn(3, 3, device=dev)
    torch.clops.set_fallback_policy("warn")
    try:
        with pytest.warns(UserWarning, match="runs on the CPU"):
            torch.linalg.matrix_exp(x)
    finally:
        torch.clops.set_fallback_policy("allow")


def test_policy_rejects_unknown_value():
    with pytest.raises(ValueError):
        torch.clops.set_fallback_policy("sometimes")


def test_views_are_never_sent_to_the_cpu(dev):
    torch.clops.reset_fallback_counts()
    x = torch.randn(4, 6, device=dev)
    v = x.unfold(1, 2, 2)          # a view op clops does not list: computed on Meta
    assert v.untyped_storage().data_ptr() == x.untyped_storage().data_ptr()
    assert_close(v, x.cpu().unfold(1, 2, 2))
    r = torch.view_as_real(torch.zeros(2, dtype=torch.complex64)) if False else None
    assert not any(k.startswith("unfold") for k in torch.clops.fallback_counts())


def test_schema_listing_and_registration():
    reg = torch.clops.registered_ops()
    assert "add.Tensor" in reg and "mm" in reg
    for line in torch.clops.schema_mismatches():
        assert ": " in line
    # Ops PyTorch decomposes itself are not bound (their autograd stays PyTorch's).
    assert "matmul" not in reg and "linear" not in reg


def test_differing_schemas_are_detected():
    cmp = clops.torch._C.compare_schemas
    add = "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor"
    assert cmp(add, add) == ""
    # SymInt and int are the same to a boxed call; defaults may differ.
    assert cmp("view(Tensor(a) self, SymInt[] size) -> Tensor(a)",
               "view(Tensor(a) self, int[] size) -> Tensor(a)") == ""
    assert "keyword-only" in cmp(add, "add.Tensor(Tensor self, Tensor other, Scalar alpha=1) -> Tensor")
    assert "'other'" in cmp(add, "add.Tensor(Tensor self, Tensor x, *, Scalar alpha=1) -> Tensor")
    assert "type" in cmp(add, "add.Tensor(Tensor self, Tensor other, *, float alpha=1) -> Tensor")
    assert "alias" in cmp("abs_(Tensor(a!) self) -> Tensor(a!)", "abs_(Tensor self) -> Tensor")
    assert "count" in cmp(add, "add.Tensor(Tensor self, Tensor other) -> Tensor")
    assert "[2]" in cmp("f(int[2] k) -> Tensor", "f(int[] k) -> Tensor")
