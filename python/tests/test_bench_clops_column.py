# SPDX-License-Identifier: Apache-2.0
"""bench/torch_family.py --clops: PyTorch and clops' bench_family on the
same descriptor rows in one command, both columns and their ratio, with
the settings each side ran under (docs/conv.md "Benchmarks: against cuDNN
as users run it").  On the CPU here (PyTorch's CPU, POCL), one small
float32 row."""
import os
import re
import subprocess
import sys

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SCRIPT = os.path.join(ROOT, "bench", "torch_family.py")


def bench_family():
    exe = os.path.join(os.environ.get("CLOPS_BUILD_DIR", os.path.join(ROOT, "build")),
                       "bench", "bench_family")
    if not os.access(exe, os.X_OK):
        pytest.skip(f"no bench_family at {exe}")
    return exe


def run(tmp_path, *extra):
    env = dict(os.environ, CLOPS_PROGRESS="off")
    for k in ("CLOPS_FLOAT32_CONV_PRECISION", "CLOPS_FLOAT32_MATMUL_PRECISION"):
        env.pop(k, None)
    p = subprocess.run([sys.executable, SCRIPT, "--cpu", "--cases",
                        os.path.join(ROOT, "bench", "cases", "conv_layers.yaml"),
                        "--case", "mb3_pw_160to960_f32*", "--scale", "32", "--reps", "1",
                        "--clops", bench_family(), "--clops-device", "opencl:0",
                        "--clops-json", str(tmp_path / "clops.json"), *extra],
                       capture_output=True, text=True, timeout=600, env=env)
    assert p.returncode == 0, p.stdout + p.stderr
    return p.stdout


def test_both_columns_and_their_ratio(tmp_path):
    out = run(tmp_path)
    rows = [line for line in out.splitlines() if re.match(r"\| .* \| mb3_pw_160to960_", line)]
    assert len(rows) == 1, out
    for line in rows:
        cells = [c.strip() for c in line.strip("|").split("|")]
        clops_us, torch_us, ratio = (float(c) for c in cells[2:5])
        assert clops_us > 0 and torch_us > 0, line
        assert abs(ratio - torch_us / clops_us) <= 0.01 + 0.01 * ratio, line
    assert "PyTorch: cudnn.enabled=True, cudnn.allow_tf32=True" in out, out
    # clops' float32 convolutions as the bridge sets them from allow_tf32
    assert "CLOPS_FLOAT32_CONV_PRECISION=high," in out, out

