# SPDX-License-Identifier: Apache-2.0
"""The accelerator API of the clops device: torch.accelerator, memory
statistics (python/csrc/memory.cpp, clops_memory_peak), pin_memory and
DataLoader(pin_memory=True)."""
import warnings

import pytest
import torch

import clops.torch  # noqa: F401

from conftest import assert_close

MIB4 = 4 << 20  # a whole number of clops' allocation classes: counted exactly


def test_torch_accelerator_is_clops(dev):
    assert torch.accelerator.is_available()
    assert torch.accelerator.current_accelerator() == torch.device("clops")
    assert torch.accelerator.device_count() == torch.clops.device_count()
    assert torch.accelerator.current_device_index() == torch.clops.current_device()
    x = torch.arange(6.0, device=dev) * 2
    torch.accelerator.synchronize()
    assert x.cpu().tolist() == [0.0, 2.0, 4.0, 6.0, 8.0, 10.0]


def test_peak_memory_counts_the_most_held_at_once(dev):
    torch.clops.reset_peak_memory_stats()
    base = torch.clops.memory_allocated()
    assert torch.clops.max_memory_allocated() == base
    a = torch.empty(MIB4 // 4, device=dev)
    b = torch.empty(MIB4 // 4, device=dev)
    assert torch.clops.memory_allocated() == base + 2 * MIB4
    del b
    c = torch.empty(MIB4 // 4, device=dev)  # from the cache: held again
    del a, c
    assert torch.clops.memory_allocated() == base
    assert torch.clops.max_memory_allocated() == base + 2 * MIB4
    torch.clops.reset_peak_memory_stats()
    assert torch.clops.max_memory_allocated() == base


def test_memory_stats_and_the_accelerator_agree(dev):
    x = torch.ones(MIB4 // 4, device=dev)
    s = torch.clops.memory_stats()
    assert s["allocated_bytes.all.current"] == torch.clops.memory_allocated() >= MIB4
    assert s["reserved_bytes.all.current"] == torch.clops.memory_reserved()
    assert s["allocated_bytes.all.peak"] == torch.clops.max_memory_allocated()
    assert torch.clops.max_memory_reserved() >= torch.clops.memory_reserved()
    if clops.torch._C.device_allocator():  # PyTorch 2.15 and later
        assert torch.accelerator.memory_allocated() == torch.clops.memory_allocated()
        assert torch.accelerator.max_memory_allocated() == torch.clops.max_memory_allocated()
        assert torch.accelerator.memory_reserved() == torch.clops.memory_reserved()
        acc = torch.accelerator.memory_stats()
        for k in ("allocated_bytes.all.current", "allocated_bytes.all.peak",
                  "reserved_bytes.all.current"):
            assert acc[k] == s[k], k
        torch.accelerator.reset_peak_memory_stats()
        assert torch.clops.max_memory_allocated() == torch.clops.memory_allocated()
    del x


def test_empty_cache_returns_the_cache(dev):
    x = torch.empty(MIB4 // 4, device=dev)
    del x
    assert torch.clops.memory_reserved() >= torch.clops.memory_allocated() + MIB4
    (torch.accelerator.empty_cache if clops.torch._C.device_allocator()
     else torch.clops.empty_cache)()
    assert torch.clops.memory_reserved() == torch.clops.memory_allocated()


def test_mem_get_info(dev):
    free, total = torch.clops.mem_get_info()
    assert 0 < total and 0 <= free <= total
    assert total - free == torch.clops.memory_reserved()
    if clops.torch._C.device_allocator():
        assert torch.accelerator.get_memory_info() == (free, total)


def test_pin_memory(dev):
    t = torch.randn(1000)
    p = t.pin_memory()
    assert p.is_pinned() and not t.is_pinned()
    assert p.device.type == "cpu" and torch.equal(p, t)
    assert p[10:].is_pinned()  # a view of pinned memory
    e = torch.empty(5, pin_memory=True)
    if torch.cuda.is_available():
        # PyTorch's factories take CUDA's pinned allocator whenever CUDA is
        # present, before the current accelerator (GetCPUAllocatorMaybePinned,
        # aten/src/ATen/EmptyTensor.cpp, "for backward compatibility"), while
        # is_pinned() asks the current accelerator, clops: CUDA pinned this
        # block, and clops does not claim memory it did not hand out.
        with warnings.catch_warnings():  # is_pinned's device argument is deprecated
            warnings.simplefilter("ignore", DeprecationWarning)
            assert e.is_pinned(device="cuda") and not e.is_pinned()
    else:
        assert e.is_pinned()
    assert p.pin_memory().data_ptr() == p.data_ptr()  # already pinned: itself
    assert_close(p.to(dev, non_blocking=True), t)
    del p  # its block is forgotten
    assert not torch.empty(1000).is_pinned()


def test_dataloader_pin_memory(dev):
    x = torch.randn(10, 3)
    y = torch.arange(10)
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x, y), batch_size=4,
                                         pin_memory=True)
    seen = []
    for bx, by in loader:
        assert bx.is_pinned() and by.is_pinned()
        seen.append(by.to(dev, non_blocking=True).cpu())
        assert_close(bx.to(dev, non_blocking=True), x[by])
    assert torch.equal(torch.cat(seen), y)


@pytest.mark.parametrize("n", [0, 1])
def test_pin_memory_of_tiny_tensors(n):
    assert torch.equal(torch.ones(n).pin_memory(), torch.ones(n))
