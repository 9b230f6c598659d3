# SPDX-License-Identifier: Apache-2.0
"""Autograd whatever the import order: PyTorch's engine sizes its per-device
queues at the first backward of the process; a backward before
`import clops.torch` must not leave the clops device without them.  Each
case runs in a fresh interpreter."""
import subprocess
import sys
import textwrap


def run(*parts):
    code = "\n".join(textwrap.dedent(p) for p in parts)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True,
                       text=True, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    return r.stdout


CLOPS_BACKWARD = """
    y = torch.randn(4, 4, device="clops", requires_grad=True)
    (y * 2).sum().backward()
    assert torch.equal(y.grad.cpu(), torch.full((4, 4), 2.0))
    z = torch.randn(3, 5, device="clops", requires_grad=True)
    w = torch.randn(5, 2, requires_grad=True)
    loss = (z @ w.to("clops")).tanh().sum()
    loss.backward()
    assert z.grad.device.type == "clops" and w.grad.device.type == "cpu"

    class Cube(torch.autograd.Function):  # a Python backward on the device's thread
        @staticmethod
        def forward(ctx, t):
            ctx.save_for_backward(t)
            return t ** 3

        @staticmethod
        def backward(ctx, g):
            (t,) = ctx.saved_tensors
            return 3 * t * t * g

    u = torch.tensor([1.0, 2.0], device="clops", requires_grad=True)
    seen = []
    u.register_hook(lambda g: seen.append(g.cpu()))
    Cube.apply(u).sum().backward()
    assert torch.equal(u.grad.cpu(), torch.tensor([3.0, 12.0])) and len(seen) == 1
    print("queues", clops.torch._C.autograd_device_queues(), torch.clops.device_count())
"""


def check_queues(out):
    queues, count = map(int, out.split("queues")[1].split())
    assert queues >= count >= 1


def test_cpu_backward_before_import():
    out = run("""
        import torch
        x = torch.randn(4, 4, requires_grad=True)
        (x * 2).sum().backward()
        import clops.torch
    """, CLOPS_BACKWARD, """
        (x * 3).sum().backward()  # the CPU side still works
        assert torch.equal(x.grad, torch.full((4, 4), 5.0))
    """)
    check_queues(out)


def test_import_before_any_backward():
    out = run("""
        import torch
        import clops.torch
    """, CLOPS_BACKWARD)
    check_queues(out)
