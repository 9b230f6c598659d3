# SPDX-License-Identifier: Apache-2.0
"""CUDA and clops in one process (issue 32): CUDA forward passes work beside
clops; a CUDA backward either runs (a PyTorch whose engine serves CUDA nodes
while another backend is the accelerator) or stops with the bridge's clear
error, never PyTorch's internal assert; clops backward passes keep working in
a process that uses CUDA; and the recipe the error gives (the CUDA training in
a process without clops) reproduces clops' gradients.  The CUDA cases are
skipped without CUDA and run in fresh interpreters; the graph walk of the
check runs everywhere, over stand-in nodes.  On the GPU host:
    python -m pytest -q python/tests/test_cuda_beside_clops.py -rs
"""
import json
import subprocess
import sys
import textwrap

import pytest
import torch

needs_cuda = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")


def run(code, env_clops=True):
    prefix = "import torch\n" + ("import clops.torch\n" if env_clops else "")
    r = subprocess.run([sys.executable, "-c", prefix + textwrap.dedent(code)],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "INTERNAL ASSERT" not in r.stdout + r.stderr, r.stdout + r.stderr
    return json.loads(r.stdout.strip().splitlines()[-1])


# Runs `body` (which sets `grads`: name -> tensor) and prints either the
# gradients or the error message, as JSON.
OUTCOME = """
import json
try:
{body}
    print(json.dumps({{"ok": True, "grads": {{k: v.cpu().tolist() for k, v in grads.items()}}}}))
except RuntimeError as e:
    print(json.dumps({{"ok": False, "error": str(e)}}))
"""


def outcome(body):
    return run(OUTCOME.format(body=textwrap.indent(textwrap.dedent(body), "    ")))


def check_clear_error(res):
    assert res["error"].startswith("clops: this backward pass reaches tensors on cuda"), res
    assert "INTERNAL ASSERT" not in res["error"] and "multiprocessing" in res["error"]


@needs_cuda
def test_cuda_backward_after_import():
    res = outcome("""
        x = torch.arange(6.0, device="cuda").reshape(2, 3).requires_grad_()
        (x * x).sum().backward()
        grads = {"x": x.grad}
    """)
    if res["ok"]:
        assert res["grads"]["x"] == [[0.0, 2.0, 4.0], [6.0, 8.0, 10.0]]
    else:
        check_clear_error(res)


@needs_cuda
@pytest.mark.parametrize("order", ["clops_then_cuda", "cuda_then_clops"])
def test_mixed_graph(order):
    first, second = ("clops", "cuda") if order == "clops_then_cuda" else ("cuda", "clops")
    res = outcome(f"""
        x = torch.arange(4.0, device="{first}").requires_grad_()
        y = (x * 3).to("{second}")
        (y * y).sum().backward()
        grads = {{"x": x.grad}}
    """)
    if res["ok"]:
        assert res["grads"]["x"] == [0.0, 18.0, 36.0, 54.0]
    else:
        check_clear_error(res)


@needs_cuda
def test_cuda_forward_and_clops_training_in_one_process():
    """The comparison that works in one process: CUDA forward, clops training."""
    res = run("""
        import json
        torch.manual_seed(0)
        net = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.Tanh(), torch.nn.Linear(16, 2))
        x = torch.randn(5, 8)
        with torch.no_grad():
            ref = net(x).double()
            on_cuda = net.to("cuda")(x.cuda()).cpu().double()
        net = net.to("clops")
        loss = net(x.to("clops")).square().sum()
        loss.backward()
        g = net[0].weight.grad.cpu()
        with torch.no_grad():
            on_clops = net(x.to("clops")).cpu().double()
        print(json.dumps({"cuda": (on_cuda - ref).abs().max().item(),
                          "clops": (on_clops - ref).abs().max().item(),
                          "grad_finite": bool(torch.isfinite(g).all())}))
    """)
    assert res["cuda"] < 1e-3 and res["clops"] < 1e-4 and res["grad_finite"], res


@needs_cuda
def test_cuda_training_in_a_subprocess_matches_clops():
    """The recipe of the error: CUDA training where clops is not imported."""
    body = """
        import json
        torch.manual_seed(0)
        net = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.Tanh(), torch.nn.Linear(16, 2))
        x = torch.randn(5, 8)
        net = net.to(DEV)
        net(x.to(DEV)).square().sum().backward()
        print(json.dumps([p.grad.cpu().double().flatten().tolist() for p in net.parameters()]))
    """
    cuda = run("DEV = 'cuda'\n" + textwrap.dedent(body), env_clops=False)
    clops = run("DEV = 'clops'\n" + textwrap.dedent(body))
    for a, b in zip(cuda, clops):
        assert torch.allclose(torch.tensor(a), torch.tensor(b), rtol=1e-3, atol=1e-4)


class FakeMeta:
    def __init__(self, device):
        self.device = torch.device(device)


class FakeNode:
    def __init__(self, device, *nexts):
        self._input_metadata = (FakeMeta(device),)
        self.next_functions = tuple((n, 0) for n in nexts)


def test_graph_walk_finds_cuda_nodes():
    import clops.torch  # noqa: F401
    from clops.torch import _cuda_backward as cb

    assert torch.autograd._engine_run_backward.__wrapped__ is not None
    assert torch.autograd.graph._engine_run_backward is torch.autograd._engine_run_backward
    class Edge:  # a GradientEdge stand-in
        def __init__(self, node):
            self.node = node

    leaf = FakeNode("cpu")
    shared = FakeNode("clops", leaf)
    clops_only = FakeNode("clops", shared, shared, None)
    assert cb._graph_device([Edge(clops_only)]) is None
    deep_cuda = FakeNode("clops", FakeNode("clops", shared, FakeNode("cuda:1", leaf)))
    assert cb._graph_device([Edge(clops_only), Edge(deep_cuda)]) == torch.device("cuda:1")
    # A real clops graph with CPU parts has no CUDA node.
    x = torch.ones(3, device="clops", requires_grad=True)
    w = torch.ones(3, requires_grad=True)
    assert cb._graph_device([(x * w.to("clops")).sum()]) is None
