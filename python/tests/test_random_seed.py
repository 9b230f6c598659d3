# SPDX-License-Identifier: Apache-2.0
"""PyTorch's seeding API drives clops' Philox streams: torch.manual_seed,
torch.clops.manual_seed, get/set_rng_state, fork_rng and
torch.Generator(device="clops") passed to a random op, with PyTorch's
semantics (same seed, same values; different seeds, different values;
a saved state replays)."""
import pytest
import torch
import torch.nn.functional as F

import clops.torch  # noqa: F401
from conftest import assert_close


def draws(dev, generator=None):
    """One draw of several random ops, as CPU tensors."""
    kw = {} if generator is None else {"generator": generator}
    out = [torch.randn(7, device=dev, **kw),
           torch.rand(5, device=dev, **kw),
           torch.empty(6, device=dev).normal_(2.0, 3.0, **kw),
           torch.empty(6, device=dev).uniform_(-1.0, 1.0, **kw),
           torch.randint(0, 1000, (8,), device=dev, **kw),
           torch.randperm(20, device=dev, **kw),
           torch.empty(16, device=dev).bernoulli_(0.5, **kw)]
    return [t.cpu() for t in out]


def assert_same(a, b):
    assert len(a) == len(b)
    for x, y in zip(a, b):
        assert torch.equal(x, y), (x, y)


def assert_differ(a, b):
    # Floating draws of different seeds agree with probability ~0.
    assert not torch.equal(a[0], b[0])
    assert not torch.equal(a[1], b[1])


def test_torch_manual_seed_replays(dev, no_fallback):
    torch.manual_seed(0)
    a = draws(dev)
    torch.manual_seed(0)
    b = draws(dev)
    assert_same(a, b)
    torch.manual_seed(1)
    assert_differ(a, draws(dev))


def test_issue_example(dev):
    torch.manual_seed(0)
    a = torch.randn(3, device="clops")
    torch.manual_seed(0)
    b = torch.randn(3, device="clops")
    assert torch.equal(a.cpu(), b.cpu())


def test_clops_manual_seed_and_initial_seed(dev, no_fallback):
    torch.clops.manual_seed(1234)
    assert torch.clops.initial_seed() == 1234
    a = draws(dev)
    torch.clops.manual_seed_all(1234)
    b = draws(dev)
    assert_same(a, b)
    torch.clops.manual_seed(4321)
    assert_differ(a, draws(dev))


def test_consecutive_draws_differ_and_advance_offset(dev):
    torch.clops.manual_seed(5)
    g = torch.clops.default_generator()
    assert g.get_offset() == 0
    a = torch.randn(8, device=dev).cpu()
    off = g.get_offset()
    assert off > 0  # the op advanced the default generator
    b = torch.randn(8, device=dev).cpu()
    assert g.get_offset() > off
    assert not torch.equal(a, b)


def test_rng_state_save_restore_replays(dev, no_fallback):
    torch.clops.manual_seed(7)
    torch.randn(3, device=dev)
    state = torch.clops.get_rng_state()
    assert state.dtype == torch.uint8 and state.numel() == 16
    a = draws(dev)
    torch.clops.set_rng_state(state)
    b = draws(dev)
    assert_same(a, b)
    assert torch.equal(torch.clops.get_rng_state(), torch.clops.get_rng_state())


def test_fork_rng_restores(dev):
    torch.clops.manual_seed(11)
    with torch.random.fork_rng(device_type="clops"):
        torch.manual_seed(99)
        torch.randn(4, device=dev)
    a = torch.randn(4, device=dev).cpu()
    torch.clops.manual_seed(11)
    b = torch.randn(4, device=dev).cpu()
    assert torch.equal(a, b)


def test_dropout_follows_seed(dev, no_fallback):
    x = torch.ones(64, device=dev)
    torch.manual_seed(3)
    a = F.dropout(x, 0.5, training=True).cpu()
    torch.manual_seed(3)
    b = F.dropout(x, 0.5, training=True).cpu()
    assert torch.equal(a, b)
    torch.manual_seed(4)
    c = F.dropout(x, 0.5, training=True).cpu()
    assert not torch.equal(a, c)


def test_randperm_follows_seed(dev):
    torch.manual_seed(3)
    a = torch.randperm(50, device=dev).cpu()
    torch.manual_seed(3)
    b = torch.randperm(50, device=dev).cpu()
    assert torch.equal(a, b)
    torch.manual_seed(4)
    assert not torch.equal(a, torch.randperm(50, device=dev).cpu())
    assert torch.equal(a.sort().values, torch.arange(50))


def test_explicit_generator(dev, no_fallback):
    g = torch.Generator(device="clops")
    assert g.device.type == "clops"
    g.manual_seed(42)
    a = draws(dev, g)
    assert g.get_offset() > 0
    g.manual_seed(42)
    b = draws(dev, g)
    assert_same(a, b)
    g.manual_seed(43)
    assert_differ(a, draws(dev, g))


def test_explicit_generator_is_independent_of_default(dev):
    g = torch.Generator(device="clops").manual_seed(42)
    torch.clops.manual_seed(42)
    before = torch.clops.get_rng_state()
    a = torch.randn(5, generator=g, device=dev).cpu()
    # The default generator did not move; both streams start alike.
    assert torch.equal(torch.clops.get_rng_state(), before)
    assert torch.equal(a, torch.randn(5, device=dev).cpu())


def test_generator_state_and_clone(dev):
    g = torch.Generator(device="clops").manual_seed(9)
    torch.randn(3, generator=g, device=dev)
    state = g.get_state()
    a = torch.randn(6, generator=g, device=dev).cpu()
    g2 = torch.Generator(device="clops")
    g2.set_state(state)
    assert torch.equal(a, torch.randn(6, generator=g2, device=dev).cpu())
    g.set_state(state)
    g3 = g.clone_state()
    assert torch.equal(torch.randn(6, generator=g, device=dev).cpu(),
                       torch.randn(6, generator=g3, device=dev).cpu())


def test_generator_set_offset(dev):
    g = torch.Generator(device="clops").manual_seed(21)
    a = torch.randn(8, generator=g, device=dev).cpu()
    off = g.get_offset()
    b = torch.randn(8, generator=g, device=dev).cpu()
    g.set_offset(off)
    assert g.initial_seed() == 21
    assert torch.equal(torch.randn(8, generator=g, device=dev).cpu(), b)
    assert not torch.equal(a, b)


def test_cpu_generator_on_clops_op_is_refused(dev):
    g = torch.Generator().manual_seed(0)
    with pytest.raises(RuntimeError, match="Expected a 'clops' device type for generator"):
        torch.empty(3, device=dev).normal_(generator=g)


def test_default_generator_is_torch_default():
    g = torch.clops.default_generator(0)
    assert g.device == torch.device("clops", 0)
    torch.manual_seed(17)
    assert g.initial_seed() == 17
