# SPDX-License-Identifier: Apache-2.0
"""Forward time of torchvision ResNet-18 and MobileNetV3-Large (eval,
float32) on the clops device: eager, torch.compile(backend="clops") without
the convolution-epilogue rewrite (CLOPS_COMPILE_CONV_EPILOGUES=0) and with
it (docs/conv.md, "Through torch.compile").  Median of --reps calls after
two warm-ups, synchronised.

    python bench/conv_epilogue_models.py --batch 4 --size 128 --reps 5
"""
import argparse
import os
import statistics
import time

import torch
import torchvision

import clops.torch  # noqa: F401


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--batch", type=int, default=1)
    ap.add_argument("--size", type=int, default=64)
    ap.add_argument("--reps", type=int, default=7)
    a = ap.parse_args()
    dev = torch.device("clops", torch.clops.current_device())
    torch.backends.cudnn.allow_tf32 = False   # exact float32 on both sides
    for name in ("resnet18", "mobilenet_v3_large"):
        torch.manual_seed(0)
        m = getattr(torchvision.models, name)().eval().to(dev)
        x = torch.randn(a.batch, 3, a.size, a.size).to(dev)
        res = {}
        for mode in ("eager", "compiled, no conv epilogues", "compiled"):
            os.environ["CLOPS_COMPILE_CONV_EPILOGUES"] = "0" if "no conv" in mode else "1"
            f = m if mode == "eager" else torch.compile(m, backend="clops", dynamic=False)
            with torch.no_grad():
                for _ in range(2):
                    f(x)
                torch.clops.synchronize()
                ts = []
                for _ in range(a.reps):
                    t0 = time.perf_counter()
                    f(x)
                    torch.clops.synchronize()
                    ts.append(time.perf_counter() - t0)
            res[mode] = statistics.median(ts) * 1e3
            torch._dynamo.reset()
        print(f"{name} batch {a.batch} {a.size}x{a.size} on {torch.clops.get_device_name()}: "
              + ", ".join(f"{k} {v:.1f} ms" for k, v in res.items())
              + f" (load {os.getloadavg()[0]:.1f})", flush=True)


if __name__ == "__main__":
    main()
