# SPDX-License-Identifier: Apache-2.0
"""The device itself: indices, current device, memory statistics, seeding."""
import pytest
import torch

import clops.torch  # noqa: F401


def test_backend_is_named_clops(dev):
    x = torch.ones(3, device=dev)
    assert x.device.type == "clops"
    assert x.is_clops
    assert str(x.device) == f"clops:{dev.index}"


def test_device_count_matches_clops_opencl_devices():
    n = torch.clops.device_count()
    assert n >= 1
    labels = [clops.torch._C.device_label(i) for i in range(n)]
    assert labels == [f"opencl:{i}" for i in range(n)]


def test_set_device_and_invalid_index():
    cur = torch.clops.current_device()
    torch.clops.set_device(cur)
    assert torch.clops.current_device() == cur
    with pytest.raises(RuntimeError, match="invalid device index"):
        torch.clops.set_device(torch.clops.device_count())


def test_tensor_on_explicit_index_lives_there(dev):
    x = torch.arange(6, device=dev)
    assert x.device == dev
    assert torch.clops.get_device_name(dev)


def test_memory_allocated_tracks_live_tensors(dev):
    torch.clops.synchronize()
    before = torch.clops.memory_allocated()
    x = torch.empty(1 << 20, device=dev)
    assert torch.clops.memory_allocated() >= before + (4 << 20)
    del x
    assert torch.clops.memory_allocated() == before
    torch.clops.empty_cache()
    assert torch.clops.memory_reserved() >= torch.clops.memory_allocated()


def test_manual_seed_sets_the_device_generator():
    torch.clops.manual_seed(1234)
    assert torch.clops.initial_seed() == 1234
    state = torch.clops.get_rng_state()
    torch.manual_seed(99)  # seeds every device module, clops included
    assert torch.clops.initial_seed() == 99
    torch.clops.set_rng_state(state)
    assert torch.clops.initial_seed() == 1234


def test_synchronize_and_item(dev):
    x = torch.full((2, 2), 2.5, device=dev)
    torch.clops.synchronize(dev)
    assert x[1, 1].item() == 2.5
    assert torch.tensor(7, device=dev).item() == 7
    assert torch.tensor(True, device=dev).item() is True


def test_printing_numpy_and_save_load(dev, tmp_path):
    x = torch.arange(6, dtype=torch.float32).reshape(2, 3).to(dev)
    assert "clops:" in repr(x) and "5." in repr(x)
    assert (x.cpu().numpy() == torch.arange(6).reshape(2, 3).numpy()).all()
    path = tmp_path / "t.pt"
    torch.save({"x": x, "v": x[:, 1]}, path)
    back = torch.load(path)
    assert back["x"].device == x.device
    assert torch.equal(back["x"].cpu(), x.cpu())
    assert torch.equal(back["v"].cpu(), x[:, 1].cpu())
    cpu = torch.load(path, map_location="cpu")
    assert cpu["x"].device.type == "cpu"


def test_module_to_clops(dev):
    m = torch.nn.Linear(4, 3).to(dev)
    assert m.weight.device == dev
    m2 = torch.nn.Linear(4, 3).clops()
    assert m2.weight.is_clops


def test_unsupported_dtype_falls_back_clearly(dev):
    # complex64/complex128 are clops dtypes (docs/fft.md); complex32 is not
    x = torch.ones(3, dtype=torch.complex32)
    with pytest.raises((TypeError, RuntimeError, NotImplementedError)):
        x.to(dev)
