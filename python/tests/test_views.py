# SPDX-License-Identifier: Apache-2.0
"""PyTorch views map one-to-one onto clops views: shared storage, no copies,
never through the CPU fallback."""
import torch

from conftest import assert_close


def base(dev):
    return torch.arange(60, dtype=torch.float32).reshape(3, 4, 5).to(dev)


def test_view_ops_share_storage(dev, no_fallback):
    x = base(dev)
    views = [x.view(12, 5), x.reshape(60), x.permute(2, 0, 1), x.transpose(0, 2), x[1],
             x[:, 1:3], x[..., ::2], x.unsqueeze(1), x[:1].squeeze(0), x.expand(2, 3, 4, 5),
             x.as_strided((2, 2), (5, 1), 7), x.narrow(1, 1, 2), x.select(2, 3),
             x.flatten(), x.unflatten(2, (5, 1)), x.diagonal(0, 1, 2), x.t_() if False else x.mT]
    for v in views:
        assert v.untyped_storage().data_ptr() == x.untyped_storage().data_ptr()
        assert v.device == dev


def test_view_geometry_matches_cpu(dev, no_fallback):
    x, c = base(dev), base("cpu")
    for f in [lambda t: t.permute(2, 0, 1), lambda t: t[:, 1:3, ::2], lambda t: t.transpose(0, 1)[1:],
              lambda t: t.as_strided((3, 3), (7, 2), 4), lambda t: t.split(2, dim=1)[1],
              lambda t: t.unbind(0)[2], lambda t: t.chunk(2, dim=2)[0]]:
        v, w = f(x), f(c)
        assert v.shape == w.shape and v.stride() == w.stride()
        assert v.storage_offset() == w.storage_offset()
        assert_close(v, w)


def test_write_through_a_view(dev, no_fallback):
    x = torch.zeros(4, 6, device=dev)
    x[:, 2].fill_(3.0)
    x.t()[1:3] += 1
    c = torch.zeros(4, 6)
    c[:, 2].fill_(3.0)
    c.t()[1:3] += 1
    assert_close(x, c)


def test_inplace_metadata_ops(dev):
    x = base(dev)
    x.transpose_(0, 2)
    assert x.shape == (5, 4, 3) and x.stride() == (1, 5, 20)
    x.unsqueeze_(0)
    assert x.shape == (1, 5, 4, 3)
    assert_close(x, base("cpu").transpose(0, 2).unsqueeze(0))


def test_contiguous_of_a_view_copies_on_the_device(dev, no_fallback):
    x = base(dev).permute(2, 0, 1)
    y = x.contiguous()
    assert y.is_contiguous() and not x.is_contiguous()
    assert y.untyped_storage().data_ptr() != x.untyped_storage().data_ptr()
    assert_close(y, base("cpu").permute(2, 0, 1))


def test_resize_and_set(dev):
    x = torch.arange(4.0, device=dev)
    x.resize_(10)
    assert x.shape == (10,)
    assert_close(x[:4], torch.arange(4.0))
    y = torch.empty(0, device=dev)
    y.set_(x.untyped_storage(), 2, (2, 2), (2, 1))
    assert_close(y, torch.tensor([[2.0, 3.0], [4.0, 5.0]]) if False else x.cpu()[2:6].view(2, 2))
    z = torch.empty(0, device=dev).set_(x)
    assert z.shape == x.shape
