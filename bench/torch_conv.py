#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""bench/torch_conv.py: `torch_family.py --family conv` (PyTorch with cuDNN
and TF32 off on the rows of bench/cases/conv.yaml, what bench_conv times on
clops), plus a whole-model case that is not an op row:

    python3 bench/torch_conv.py [torch_family.py's options] [--resnet18] [--clops]

--resnet18 adds "resnet18_fwd": torchvision's ResNet-18 forward (eval,
batch B = 32 / --scale, 224x224), GFLOP/s at 1.814 GFLOP (multiply-adds
counted twice) per image.  --clops runs only that case, on the clops
device through the PyTorch bridge (python/), for the same model on clops.
"""
import sys

from torch_family import main


class ResNet18:
    """The whole-model case (torch_family.main's hook)."""

    @staticmethod
    def add_arguments(ap):
        ap.add_argument("--resnet18", action="store_true", help="add the whole-model case")
        ap.add_argument("--clops", action="store_true",
                        help="run only resnet18_fwd, on the clops device (the bridge)")

    @staticmethod
    def rows_wanted(args):
        return not args.clops

    @staticmethod
    def device(args, torch, cuda, dev):
        if not args.clops:
            return cuda, dev
        import clops.torch  # noqa: F401
        return False, torch.device("clops", torch.clops.current_device())

    @staticmethod
    def run(args, torch, dev, cuda, record):
        if not (args.resnet18 or args.clops):
            return
        import torchvision
        from torch_common import time_call
        batch = max(1, int(32 / max(args.scale, 1.0)))
        torch.manual_seed(0)
        model = torchvision.models.resnet18().eval().to(dev)
        x = torch.randn(batch, 3, 224, 224).to(dev)

        def fwd():
            model(x)
            if args.clops:
                torch.clops.synchronize()
        with torch.no_grad():
            t = time_call(fwd, args.reps, cuda)
        record("resnet18_fwd", "resnet18_fwd", t, 0, 2 * 1.814e9 * batch, float("nan"))


if __name__ == "__main__":
    sys.exit(main(["--family", "conv"] + sys.argv[1:], hook=ResNet18))
