# SPDX-License-Identifier: Apache-2.0
"""compile10 (issue 35): one LlamaRMSNorm [rows, 768] on the clops device: eager (written out),
compiled with the RMSNorm lowering off (pow, mean, fused rest) and on (one
_fused_rms_norm); best of 30, process CPU time or wall time (--wall), and
the launches of one compiled call.  From the repository root, with the
extension built:  python bench/compile_rms_norm.py [ROWS] [DTYPE] [--wall]
(docs/benchmarks.md, "compile10")."""
import os
import sys
import time

import torch

import clops.torch
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python", "tests"))
from test_compile_norm import RMSNorm
rows = int(sys.argv[1]) if len(sys.argv) > 1 else 128
dt = getattr(torch, sys.argv[2]) if len(sys.argv) > 2 else torch.float32
wall = "--wall" in sys.argv
clk = time.perf_counter if wall else time.process_time
m = RMSNorm(768, dt).to("clops")
x = torch.randn(rows, 768).to(dt).to("clops")
def best(f, n=30):
    f(); torch.clops.synchronize()
    ts = []
    for _ in range(n):
        t = clk(); f(); torch.clops.synchronize(); ts.append(clk() - t)
    return min(ts) * 1e6
res = {}
with torch.no_grad():
    res["eager"] = best(lambda: m(x))
    for flag in ("0", "1"):
        os.environ["CLOPS_COMPILE_RMS_NORM"] = flag
        torch._dynamo.reset()
        f = torch.compile(m, backend="clops")
        f(x)
        b = torch.clops.device_counters()["launches"]; f(x)
        res["launches rms=" + flag] = torch.clops.device_counters()["launches"] - b
        res["compiled rms=" + flag] = best(lambda: f(x))
print(clops.torch._C.device_name(0), rows, dt,
      "wall" if wall else "cpu", {k: round(v, 1) for k, v in res.items()})
