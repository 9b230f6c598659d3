# SPDX-License-Identifier: Apache-2.0
"""The PyTorch column of `clops compare --torch`: bench/torch_cases.py, the
helper the C tool runs, on a few hand-written cases of the torch-cases
document (docs/json-format.md), and the whole path once through the clops
program of CLOPS_BUILD_DIR when it is there."""
import json
import os
import subprocess
import sys

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
HELPER = os.path.join(ROOT, "bench", "torch_cases.py")


def tensor(name, sizes, strides, dtype="float32", role="input", domain="any"):
    return {"name": name, "kind": "tensor", "role": role, "dtype": dtype, "sizes": sizes,
            "strides": strides, "domain": domain, "on_cpu": False}


CASES = [
    # add.Tensor with a transposed and an expanded (stride 0) operand
    {"op": "add.Tensor", "dtype": "float32", "case": "[64, 32] transposed", "family": "pointwise",
     "bytes": 3 * 64 * 32 * 4, "flop": None,
     "args": [tensor("self", [64, 32], [1, 64]), tensor("other", [64, 32], [0, 1]),
              {"name": "alpha", "kind": "scalar", "scalar_type": "int", "value": 1}]},
    # mm.out with its out= tensor
    {"op": "mm.out", "dtype": "float32", "case": "[32, 32] contiguous", "family": "matrix",
     "bytes": 3 * 32 * 32 * 4, "flop": 2 * 32 ** 3,
     "args": [tensor("self", [32, 32], [32, 1], domain="small"),
              tensor("mat2", [32, 32], [32, 1], domain="small"),
              tensor("out", [32, 32], [32, 1], role="out")]},
    # sum over an int list with a dtype and a None
    {"op": "sum.dim_IntList", "dtype": "float32", "case": "[16, 8]", "family": "reduction",
     "bytes": 0, "flop": None,
     "args": [tensor("self", [16, 8], [8, 1]),
              {"name": "dim", "kind": "int_list", "value": [1]},
              {"name": "keepdim", "kind": "bool", "value": False},
              {"name": "dtype", "kind": "none", "value": None}]},
    # index_select with an index tensor from the index domain
    {"op": "index_select", "dtype": "float32", "case": "[8, 4]", "family": "index",
     "bytes": 0, "flop": None,
     "args": [tensor("self", [8, 4], [4, 1]), {"name": "dim", "kind": "int", "value": 0},
              tensor("index", [5], [1], dtype="int64", domain="index")]},
    # an op aten does not have, and an argument the overload does not take
    {"op": "no_such_op_clops", "dtype": "float32", "case": "-", "family": "other",
     "bytes": 0, "flop": None, "args": []},
    {"op": "abs", "dtype": "float32", "case": "-", "family": "pointwise", "bytes": 0,
     "flop": None, "args": [tensor("self", [4], [1]), {"name": "bogus", "kind": "int",
                                                       "value": 1}]},
]


def run_helper(tmp_path, cases, **doc):
    src = tmp_path / "cases.json"
    dst = tmp_path / "results.json"
    d = {"format": "clops-torch-cases", "version": 1, "device": "cpu", "threads": 1, "reps": 3,
         "float32_matmul_precision": "highest", "cases": cases}
    d.update(doc)
    src.write_text(json.dumps(d))
    p = subprocess.run([sys.executable, HELPER, str(src), str(dst)], capture_output=True,
                       text=True, timeout=300)
    assert p.returncode == 0, p.stdout + p.stderr
    return json.loads(dst.read_text())


def test_helper_times_each_case_the_way_clops_does(tmp_path):
    import torch
    res = run_helper(tmp_path, CASES)
    assert res["format"] == "clops-torch-results" and res["version"] == 1
    st = res["settings"]
    assert st["torch"] == torch.__version__ and st["device"] == "cpu"
    # the threads of the CPU device, and clops' numerics
    assert st["threads"] == 1 and st["float32_matmul_precision"] == "highest"
    assert st["tf32_cudnn"] is False
    by = {r["index"]: r for r in res["results"]}
    assert len(by) == len(CASES)
    for i in range(4):
        r = by[i]
        assert r["status"] == "pass", r
        assert r["us_per_call"] > 0 and r["reps"] == 3 and 1 <= r["batch"] <= 64
    assert by[4]["status"] == "skip" and "no_such_op_clops" in by[4]["message"]
    assert by[5]["status"] == "error" and "bogus" in by[5]["message"]


def test_helper_settings_clops_precision_or_pytorch_defaults(tmp_path):
    """--torch holds PyTorch at clops' precision (cuDNN TF32 off with
    "highest"); --torch-defaults leaves PyTorch's defaults (cuDNN TF32 on,
    every SDPA backend); each result says which."""
    clops = run_helper(tmp_path, CASES[:1])["settings"]
    assert clops["mode"] == "clops" and clops["tf32_cudnn"] is False
    assert clops["float32_matmul_precision"] == "highest"
    # clops' precision when it is not PyTorch's: PyTorch follows it
    high = run_helper(tmp_path, CASES[:1], float32_matmul_precision="high")["settings"]
    assert high["float32_matmul_precision"] == "high" and high["tf32_cudnn"] is True
    d = run_helper(tmp_path, CASES[:1], settings="defaults", float32_matmul_precision="high")
    st = d["settings"]
    assert st["mode"] == "defaults" and d["results"][0]["status"] == "pass"
    # PyTorch's documented defaults (a fresh process: this one's conftest
    # may have changed them)
    assert st["float32_matmul_precision"] == "highest" and st["tf32_cudnn"] is True
    assert "flash" in st["sdpa_backends"] and "math" in st["sdpa_backends"]


def test_helper_model_table_has_gpt2_and_resnet18(tmp_path):
    """The model table's models on the peer: GPT-2 and ResNet-18 (the test
    sizes), each a time per step (skipped with the reason when transformers
    or torchvision is missing)."""
    specs = [{"model": "gpt2", "size": "small", "batch": 1, "seq": 16, "peer_index": 1000,
              "clops_devices": []},
             {"model": "resnet18", "size": "small", "batch": 1, "image": 32, "peer_index": 1000,
              "clops_devices": []}]
    res = run_helper(tmp_path, CASES[:1], models=specs, reps=2)
    rows = {r["model"].split(" ")[0]: r for r in res["models"]}
    assert set(rows) == {"GPT-2", "ResNet-18"}, rows
    r = rows["ResNet-18"]
    assert r["model"] == "ResNet-18 forward, batch 1, 32x32, float32" and r["device"] == 1000
    try:
        import torchvision  # noqa: F401
    except ImportError:
        assert r["status"] == "skip" and "torchvision" in r["message"]
        return
    assert r["status"] == "pass" and r["ms_per_step"] > 0, r


def test_helper_builds_the_described_tensors():
    """The tensors have the sizes, strides, dtypes and value domains of the
    description (what makes the PyTorch row the same call as the clops row)."""
    sys.path.insert(0, os.path.dirname(HELPER))
    import torch
    import torch_cases
    gen = torch.Generator().manual_seed(1)
    t = torch_cases.make_tensor(torch, tensor("x", [64, 32], [0, 1]), "cpu", gen)
    assert t.shape == (64, 32) and t.stride() == (0, 1) and t.dtype == torch.float32
    t = torch_cases.make_tensor(torch, tensor("x", [3, 5], [1, 3], domain="positive"), "cpu",
                                gen)
    assert t.stride() == (1, 3) and bool((t > 0).all()) and bool((t <= 10).all())
    i = torch_cases.make_tensor(torch, tensor("i", [100], [1], "int64", domain="index"), "cpu",
                                gen)
    assert i.dtype == torch.int64 and int(i.min()) >= 0 and int(i.max()) <= 2
    a = torch_cases.make_tensor(torch, tensor("a", [4096], [1]), "cpu", gen)
    assert bool(a.isnan().any()) and bool(a.isinf().any())  # one in 16 special, as chk_fill
    b = torch_cases.make_tensor(torch, tensor("b", [64], [1], "bool"), "cpu", gen)
    assert b.dtype == torch.bool


def test_helper_repeats_a_block_in_large_tensors():
    """A tensor over FILL_BLOCK elements repeats one drawn block (as clops'
    bench inputs do), within its domain and with its strides; the storage
    behind a strided view reaches every element."""
    sys.path.insert(0, os.path.dirname(HELPER))
    import torch
    import torch_cases
    B = torch_cases.FILL_BLOCK
    gen = torch.Generator().manual_seed(3)
    n = 2 * B + 1000  # a partial last block
    t = torch_cases.make_tensor(torch, tensor("x", [n], [1], domain="small"), "cpu", gen)
    assert t.shape == (n,) and t.is_contiguous()
    assert torch.equal(t[:B], t[B:2 * B]) and torch.equal(t[:1000], t[2 * B:])
    assert bool((t >= -3).all()) and bool((t <= 3).all())
    assert int(torch.unique(t[:B]).numel()) > B // 2  # drawn, not constant
    w = torch_cases.make_tensor(torch, tensor("w", [B, 3], [1, B], domain="positive"), "cpu",
                                gen)
    assert w.stride() == (1, B) and bool((w > 0).all()) and torch.equal(w[:, 0], w[:, 1])


def test_helper_wraps_the_fft_primitives_dims():
    """aten::_fft_r2c takes wrapped dims (torch.fft.rfft wraps them; -1
    trips an internal assertion): the helper calls it as users reach it."""
    sys.path.insert(0, os.path.dirname(HELPER))
    import torch
    import torch_cases
    case = {"op": "_fft_r2c", "args": [tensor("self", [4, 8], [8, 1]),
                                       {"name": "dim", "kind": "int_list", "value": [-1]},
                                       {"name": "normalization", "kind": "int", "value": 2},
                                       {"name": "onesided", "kind": "bool", "value": True}]}
    call = torch_cases.Call(torch, case, "cpu", 1)
    assert call.kw["dim"] == [1] and call().shape == (4, 5)


def test_helper_says_why_without_a_cases_document(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"format": "something-else"}))
    p = subprocess.run([sys.executable, HELPER, str(bad), str(tmp_path / "out.json")],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 2 and "not a clops-torch-cases document" in p.stdout
    assert not (tmp_path / "out.json").exists()


def test_compare_has_a_torch_column(tmp_path):
    """`clops compare --torch` end to end with the real helper."""
    exe = os.path.join(os.environ.get("CLOPS_BUILD_DIR", os.path.join(ROOT, "build")), "clops")
    if not os.access(exe, os.X_OK):
        pytest.skip(f"no clops program at {exe}")
    env = dict(os.environ, CLOPS_PYTHON=sys.executable, CLOPS_PROGRESS="off",
               CLOPS_TORCH_MODEL="small")
    env.pop("CLOPS_TORCH_HELPER", None)
    out = tmp_path / "report"
    p = subprocess.run([exe, "compare", "--torch", "--no-check", "--op", "mm,neg",
                        "--reps", "2", "--out", str(out)],
                       capture_output=True, text=True, timeout=600, env=env)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "faster than PyTorch" in p.stdout, p.stdout
    doc = json.loads((out / "report.json").read_text())
    torch_devs = [d for d in doc["devices"] if d["type"] == "torch"]
    assert len(torch_devs) == 1 and "PyTorch" in torch_devs[0]["settings"]
    idx = torch_devs[0]["index"]
    rows = [r for r in doc["results"] if r["device"] == idx]
    clops_rows = {(r["op"], r["dtype"], r["case"]) for r in doc["results"]
                  if r["device"] != idx and r["status"] == "pass"}
    assert {(r["op"], r["dtype"], r["case"]) for r in rows} == clops_rows
    assert all(r["status"] == "pass" and r["device_us_per_call"] > 0 for r in rows), rows
    mm = [r for r in rows if r["op"] == "mm"]
    assert mm and mm[0]["gflops"] > 0 and mm[0]["flop_per_call"] > 0
    assert "PyTorch column" in (out / "report.md").read_text()
    # The model table: GPT-2 (the 2-layer test size) on PyTorch and, through
    # the clops PyTorch device, on the compared OpenCL device.
    models = {m["device"]: m for m in doc["models"] if m["model"].startswith("GPT-2")}
    assert models[idx]["status"] == "pass" and models[idx]["ms_per_step"] > 0
    ocl = [d["index"] for d in doc["devices"] if d["type"] == "opencl"]
    for i in ocl:
        assert models[i]["status"] == "pass", models[i]
        assert models[i]["fallbacks_per_step"] >= 0
    # ResNet-18 (32x32 images at the test size) beside GPT-2, on each column
    resnet = [m for m in doc["models"] if m["model"].startswith("ResNet-18")]
    assert {m["device"] for m in resnet} == {idx} | set(ocl), resnet
    assert all(m["status"] in ("pass", "skip") for m in resnet), resnet
    assert "## Models" in (out / "report.md").read_text()


def test_clops_own_attention_op_is_timed_as_pytorch_sdpa(tmp_path):
    """_fused_attention (clops' own op, no aten overload of that name) is
    timed as torch.nn.functional.scaled_dot_product_attention, with
    grouped-query heads and the lower-right causal bias as the case has
    them; the call the helper makes gives PyTorch's SDPA result."""
    def attn(causal, lower_right):
        return {"op": "_fused_attention", "dtype": "float32", "case": "gqa", "family": "attention",
                "bytes": 0, "flop": None,
                "args": [tensor("query", [1, 4, 5, 8], [160, 40, 8, 1], domain="small"),
                         tensor("key", [1, 2, 7, 8], [112, 56, 8, 1], domain="small"),
                         tensor("value", [1, 2, 7, 8], [112, 56, 8, 1], domain="small"),
                         {"name": "attn_mask", "kind": "none", "value": None},
                         {"name": "dropout_p", "kind": "float", "value": 0.0},
                         {"name": "is_causal", "kind": "bool", "value": causal},
                         {"name": "scale", "kind": "none", "value": None},
                         {"name": "generator", "kind": "none", "value": None},
                         {"name": "causal_lower_right", "kind": "bool", "value": lower_right}]}
    res = run_helper(tmp_path, [attn(False, False), attn(True, True)])
    for r in res["results"]:
        assert r["status"] == "pass", r
    import torch
    sys.path.insert(0, os.path.dirname(HELPER))
    import torch_cases
    call = torch_cases.Call(torch, attn(True, True), "cpu", 7)
    q, k, v = call.kw["query"], call.kw["key"], call.kw["value"]
    k2, v2 = k.repeat_interleave(2, dim=1), v.repeat_interleave(2, dim=1)
    s = (q @ k2.transpose(-1, -2)) / 8 ** 0.5
    # lower-right: query row i sees keys j <= i + (S - L)
    keep = torch.ones(5, 7, dtype=torch.bool).tril(diagonal=7 - 5)
    want = torch.softmax(s.masked_fill(~keep, float("-inf")), -1) @ v2
    torch.testing.assert_close(call(), want)
