#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""bench/torch_conv.py: PyTorch on the cases of bench_conv.c (ResNet-18 and
ResNet-50 layer shapes, depthwise 3x3; forward and backward; float32), so a
run on the GPU machine compares clops with PyTorch on the same GPU in one
job (and, with --cpu, PyTorch's oneDNN convolution on the host CPU against
POCL).  cuDNN and TF32 are off, as the issue asks: PyTorch then runs its own
CUDA im2col + cuBLAS convolution.

    python3 bench/torch_conv.py [--scale S] [--reps N] [--cpu] [--threads T]
                                [--json FILE] [--resnet18] [--clops]

Case names, FLOP counts and the timing (bench/torch_common.py's time_call:
median of batches of back-to-back calls) are those of bench_conv.c;
bench/compare_family.py joins the two JSON files.  --resnet18 adds
"resnet18_fwd": torchvision's ResNet-18 forward (eval, batch B, 224x224);
with --clops that case (alone) runs on the clops device through the
PyTorch bridge (python/, docs/torch.md) instead, for the whole-model ratio.
"""
import json

import torch

from torch_common import bench_parser, time_call

SPECS = [
    # name, cin, hw, cout, k, stride, pad, groups, grad_input
    ("r18_stem_7x7s2", 3, 224, 64, 7, 2, 3, 1, False),
    ("r18_l1_3x3", 64, 56, 64, 3, 1, 1, 1, True),
    ("r18_l2_3x3s2", 64, 56, 128, 3, 2, 1, 1, True),
    ("r18_l2_down_1x1s2", 64, 56, 128, 1, 2, 0, 1, True),
    ("r18_l2_3x3", 128, 28, 128, 3, 1, 1, 1, True),
    ("r18_l3_3x3", 256, 14, 256, 3, 1, 1, 1, True),
    ("r18_l4_3x3", 512, 7, 512, 3, 1, 1, 1, True),
    ("r50_l1_1x1_reduce", 256, 56, 64, 1, 1, 0, 1, True),
    ("r50_l1_1x1_expand", 64, 56, 256, 1, 1, 0, 1, True),
    ("r50_l2_3x3s2", 128, 56, 128, 3, 2, 1, 1, True),
    ("r50_l3_1x1", 1024, 14, 256, 1, 1, 0, 1, True),
    ("r50_l4_1x1_expand", 512, 7, 2048, 1, 1, 0, 1, True),
    ("dw_3x3", 128, 56, 128, 3, 1, 1, 128, True),
    ("dw_3x3s2", 256, 28, 256, 3, 2, 1, 256, True),
]


def main():
    ap = bench_parser()
    ap.add_argument("--resnet18", action="store_true", help="add the whole-model case")
    ap.add_argument("--clops", action="store_true",
                    help="run only resnet18_fwd, on the clops device (the bridge)")
    args = ap.parse_args()
    torch.backends.cudnn.enabled = False
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    cuda = torch.cuda.is_available() and not args.cpu and not args.clops
    dev = "cuda" if cuda else "cpu"
    if args.clops:
        import clops.torch  # noqa: F401
        dev = torch.device("clops", torch.clops.current_device())
    if not cuda and args.threads > 0:
        torch.set_num_threads(args.threads)
    batch = max(1, int(32 / max(args.scale, 1.0)))
    results = []

    def sync():
        if args.clops:
            torch.clops.synchronize()

    def case(name, fn, flops):
        def timed():
            fn()
            sync()
        t = time_call(timed if args.clops else fn, args.reps, cuda)
        results.append({"torch_case": name, "gflops": flops / t / 1e9, "us_per_call": t * 1e6})

    for (name, cin, hw, cout, k, s, p, g, gi) in ([] if args.clops else SPECS):
        o = (hw + 2 * p - k) // s + 1
        x = torch.full((batch, cin, hw, hw), 0.5, device=dev)
        w = torch.full((cout, cin // g, k, k), 0.25, device=dev)
        y = torch.empty(batch, cout, o, o, device=dev)
        go = torch.ones(batch, cout, o, o, device=dev)
        fwd = 2.0 * batch * cout * o * o * (cin // g) * k * k
        case(f"{name}_fwd", lambda x=x, w=w, y=y, s=s, p=p, g=g: torch.ops.aten.convolution.out(
            x, w, None, [s, s], [p, p], [1, 1], False, [0, 0], g, out=y), fwd)
        mask = [gi, True, False]
        case(f"{name}_bwd", lambda go=go, x=x, w=w, s=s, p=p, g=g, mask=mask:
             torch.ops.aten.convolution_backward(go, x, w, None, [s, s], [p, p], [1, 1], False,
                                                 [0, 0], g, mask), fwd * (2 if gi else 1))
        del x, w, y, go
    if args.resnet18 or args.clops:
        import torchvision
        torch.manual_seed(0)
        model = torchvision.models.resnet18().eval().to(dev)
        x = torch.randn(batch, 3, 224, 224).to(dev)
        # 1.82 GFLOP per 224x224 image (multiply-adds counted twice)
        with torch.no_grad():
            case("resnet18_fwd", lambda: model(x), 2 * 1.814e9 * batch)
    name = (torch.cuda.get_device_name() if cuda else
            f"clops {dev}" if args.clops else f"cpu ({torch.get_num_threads()} threads)")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"device": name, "torch": torch.__version__, "batch": batch,
                       "results": results}, f, indent=1)
    print(f"torch {torch.__version__} on {name}, batch {batch}, cuDNN off, TF32 off")
    for r in results:
        print(f"  {r['torch_case']:26s} {r['gflops']:10.1f} GFLOP/s {r['us_per_call']:10.1f} us")


if __name__ == "__main__":
    main()
