#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Runs GPT-2, a Llama-style decoder or BERT (transformers), or ViT-B/16,
ResNet-18, ResNet-50 or MobileNetV3-Large (torchvision) on a device and
prints the time per step and which ops ran on the CPU for lack of a clops
kernel.

    python python/examples/run_model.py --model gpt2 --device clops
    python python/examples/run_model.py --model resnet18 --device cpu --train
    python python/examples/run_model.py --model gpt2 --size 124m --batch 8 --seq 512 --device cuda
    python python/examples/run_model.py --model gpt2 --device clops --profile prof.json
    python python/examples/run_model.py --model gpt2 --attn eager --compile
    python python/examples/run_model.py --model llama --compile --train
    python python/examples/run_model.py --model vit --autocast --train --compare cpu

--tf32 off switches TF32 off for convolutions and matmuls on both sides
(cuDNN's and clops' exact float32); by default both follow PyTorch's defaults
(TF32 allowed for convolutions, not for matmuls).  A CUDA training step
cannot run in a process that imported clops.torch (docs/torch.md): compare
training steps with bench/conv_models.py, one process per device.

--autocast runs the steps under torch.autocast(device, dtype=bfloat16) with
float32 weights (--dtype stays float32).

--compare DEVICE (cpu, cuda) runs the same steps with the same weights and
inputs on that PyTorch device too, in the same process, and prints its time
per step and the largest difference of the outputs (relative to the largest
output element).

--compile runs the same steps eagerly and through torch.compile (backend
"clops" on the clops device, Inductor elsewhere, or the backend named:
--compile aot_eager) in one process, alternating eager and compiled steps,
and prints both times and, on clops, the kernel launches per step of each
(torch.clops.device_counters()).

--profile times one more step op by op (the device synchronised around every
ATen op, so the sum exceeds the step time by the synchronisation cost) and
writes {op: [calls, seconds]}; python/tools/profile_compare.py sets two such
files side by side (clops against cuda, say).  With --compile on clops it
also times one compiled step node by node (its fused kernels by kind, the
ops it left eager by name; clops.torch._compile.profile) under
"compiled_ops".

--summary FILE appends one JSON line per timed step kind (model, size, dtype,
mode, device, label, ms, launches, first call seconds) for a table of runs.

Random weights with a fixed seed (no download).  --size small (default) is the
test configuration (2 layers, 64 wide; for vit 2 layers, 64 wide, 16-pixel
patches; the CNNs with 10 classes); 124m is GPT-2's smallest published
size, a Llama-style decoder of that size, BERT-base, ViT-B/16 (give
--image 224) or the CNNs with 1000 classes.
"""
import argparse
import json
import os
import time

import torch
from torch.utils._python_dispatch import TorchDispatchMode


def config(model, size):
    """The transformers config of a model: `small` (2 layers, 64 wide, the
    tests' size) or `124m` (GPT-2's smallest published size; for llama a
    Llama-style decoder of the same width and depth with grouped-query
    attention, RoPE, RMSNorm and SwiGLU; for bert BERT-base).  Dropout off."""
    import transformers
    small = size == "small"
    if model == "gpt2":
        if not small:
            return transformers.GPT2Config(resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0)
        return transformers.GPT2Config(n_layer=2, n_head=2, n_embd=64, vocab_size=1000,
                                       n_positions=128, resid_pdrop=0.0, embd_pdrop=0.0,
                                       attn_pdrop=0.0)
    if model == "llama":
        return transformers.LlamaConfig(
            vocab_size=1000 if small else 32000, hidden_size=64 if small else 768,
            intermediate_size=128 if small else 2048, num_hidden_layers=2 if small else 12,
            num_attention_heads=4 if small else 12, num_key_value_heads=2 if small else 4,
            max_position_embeddings=128 if small else 1024)
    return transformers.BertConfig(
        vocab_size=1000 if small else 30522, hidden_size=64 if small else 768,
        intermediate_size=128 if small else 3072, num_hidden_layers=2 if small else 12,
        num_attention_heads=4 if small else 12, max_position_embeddings=128 if small else 512,
        hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0)


TRANSFORMERS = ("gpt2", "llama", "bert")
VISION = ("vit", "resnet18", "resnet50", "mobilenet_v3_large")


def build(args):
    if args.model in TRANSFORMERS:
        import transformers
        cfg = config(args.model, args.size)
        cfg._attn_implementation = args.attn
        torch.manual_seed(0)
        cls = {"gpt2": transformers.GPT2LMHeadModel, "llama": transformers.LlamaForCausalLM,
               "bert": transformers.BertForMaskedLM}[args.model]
        model = cls(cfg)
        g = torch.Generator().manual_seed(1)
        x = torch.randint(0, cfg.vocab_size, (args.batch, args.seq), generator=g)
        return model, x, lambda m, x: m(x, labels=x).loss if args.train else m(x).logits
    import torchvision
    torch.manual_seed(0)
    classes = 1000 if args.size == "124m" else 10
    if args.model == "vit":
        if args.size == "124m":
            model = torchvision.models.vit_b_16(image_size=args.image, num_classes=classes)
        else:
            model = torchvision.models.VisionTransformer(
                image_size=args.image, patch_size=16, num_layers=2, num_heads=2, hidden_dim=64,
                mlp_dim=128, num_classes=classes)
        # torchvision zero-initialises the classifier, which would make every
        # output 0 and the --compare difference meaningless
        torch.nn.init.normal_(model.heads.head.weight, std=0.02)
    else:
        model = getattr(torchvision.models, args.model)(num_classes=classes)
    g = torch.Generator().manual_seed(2)
    x = torch.randn(args.batch, 3, args.image, args.image, generator=g)
    y = torch.zeros(args.batch, dtype=torch.long)

    def run(m, x):
        out = m(x)
        return torch.nn.functional.cross_entropy(out, y.to(out.device)) if args.train else out
    return model, x, run



def make_step(model, x, fn, opt, *, train, autocast, device_type):
    """One step of model on x through fn(model, x): a training step with
    opt (zero_grad, the loss fn returns, backward, step) when train, else
    the output under no_grad; under bfloat16 autocast on device_type when
    autocast.  run_model.py's steps and bench/conv_models.py's."""
    def call():
        if not autocast:
            return fn(model, x)
        with torch.autocast(device_type, dtype=torch.bfloat16):
            return fn(model, x)

    def step():
        if train:
            opt.zero_grad()
            loss = call()
            loss.backward()
            opt.step()
            return loss
        with torch.no_grad():
            return call()
    return step


def sync(device):
    if device.type == "clops":
        torch.clops.synchronize()
    elif device.type == "cuda":
        torch.cuda.synchronize()


class OpTimes(TorchDispatchMode):
    """Times every ATen op that reaches the backends, by overload name; the
    device is synchronised before and after each op so each time is its own."""

    def __init__(self, device):
        super().__init__()
        self.device = device
        self.times = {}

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        sync(self.device)
        t0 = time.perf_counter()
        out = func(*args, **(kwargs or {}))
        sync(self.device)
        calls, secs = self.times.get(str(func), (0, 0.0))
        self.times[str(func)] = (calls + 1, secs + time.perf_counter() - t0)
        return out


def print_profile(times, step_s, top=15):
    total = sum(s for _, s in times.values())
    print(f"op profile of one step ({total * 1e3:.1f} ms op time, synchronised; "
          f"step {step_s * 1e3:.1f} ms unsynchronised):")
    for op, (calls, secs) in sorted(times.items(), key=lambda kv: -kv[1][1])[:top]:
        print(f"  {op:48s} {calls:5d} calls {secs * 1e3:9.2f} ms {100 * secs / total:5.1f}%")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--model", choices=list(TRANSFORMERS) + list(VISION), default="gpt2")
    p.add_argument("--device", default="clops", help="clops, clops:K, cpu, cuda")
    p.add_argument("--size", choices=["small", "124m"], default="small")
    p.add_argument("--batch", type=int, default=2)
    p.add_argument("--seq", type=int, default=32, help="sequence length (transformers models)")
    p.add_argument("--image", type=int, default=64, help="image side (vision models)")
    p.add_argument("--autocast", action="store_true",
                   help="run under torch.autocast(device, dtype=bfloat16), float32 weights")
    p.add_argument("--compare", metavar="DEVICE",
                   help="also run PyTorch on DEVICE (cpu, cuda) from the same weights and "
                        "print its time and the largest output difference")
    p.add_argument("--dtype", choices=["float32", "bfloat16"], default="float32")
    p.add_argument("--attn", choices=["sdpa", "eager"], default="sdpa",
                   help="the transformers model's attention: F.scaled_dot_product_attention "
                        "(transformers' default) or written out as matmul, softmax, matmul")
    p.add_argument("--tf32", choices=["default", "off"], default="default",
                   help="default: PyTorch's defaults (cuDNN convolutions may use TF32, "
                        "matmuls not; the clops bridge follows torch.backends.cudnn.allow_tf32 "
                        "for its convolutions); off: TF32 off for both, on CUDA and clops")
    p.add_argument("--train", action="store_true", help="time a training step (AdamW/SGD)")
    p.add_argument("--fused-adamw", action="store_true",
                   help="the training step's AdamW with fused=True (on clops: "
                        "clops/torch/_optim.py; default: torch.optim's foreach step)")
    p.add_argument("--steps", type=int, default=3)
    p.add_argument("--warmup", type=int, default=1)
    p.add_argument("--profile", metavar="JSON", help="time one more step op by op, write JSON")
    p.add_argument("--compile", nargs="?", const="default", metavar="BACKEND",
                   help="also time torch.compile(backend=BACKEND): clops on the clops device, "
                        "inductor elsewhere")
    p.add_argument("--summary", metavar="FILE", help="append one JSON line per step kind")
    p.add_argument("--clock", choices=["wall", "cpu"], default="wall",
                   help="time steps by the wall clock, or by the process's CPU time (every "
                        "thread, POCL's workers included: on a CPU device beside other load "
                        "the work done, not the waiting)")
    args = p.parse_args()

    if args.device.startswith("clops") or (args.compare or "").startswith("clops"):
        import clops.torch  # noqa: F401
    if args.tf32 == "off":
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False
    device = torch.device(args.device)
    dtype = getattr(torch, args.dtype)
    model0, x0, run = build(args)
    clock = time.process_time if args.clock == "cpu" else time.perf_counter

    def on(dev, model):
        """The model (a copy when it is needed again), its input and its
        step function on device dev."""
        model = model.to(device=dev, dtype=dtype)
        model.train(args.train)
        x = x0.to(dev)
        if x.is_floating_point():
            x = x.to(dtype)
        fused = {"fused": True} if args.fused_adamw else {}
        opt = torch.optim.AdamW(model.parameters(), lr=1e-4, **fused) if args.train else None

        def stepper(fn):
            return make_step(model, x, fn, opt, train=args.train, autocast=args.autocast,
                             device_type=dev.type)
        return stepper

    def measure(steps, device):
        """Times each (label, step) of `steps`, alternating them step by step
        (so a busy machine slows all of them alike); prints one line each and
        returns the best times and the last outputs."""
        firsts, times, launches = [], [[] for _ in steps], [0] * len(steps)
        sums, shapes, outs = [0.0] * len(steps), [()] * len(steps), [None] * len(steps)
        for _, step in steps:
            t0 = time.perf_counter()
            for _ in range(args.warmup):
                step()
            sync(device)
            firsts.append(time.perf_counter() - t0)
        if device.type == "clops":
            torch.clops.reset_fallback_counts()
        for _ in range(args.steps):
            for i, (_, step) in enumerate(steps):
                if device.type == "clops":
                    launches0 = torch.clops.device_counters(device)["launches"]
                t0 = clock()
                out = step()
                sync(device)
                times[i].append(clock() - t0)
                if device.type == "clops":
                    launches[i] += torch.clops.device_counters(device)["launches"] - launches0
                sums[i], shapes[i] = out.float().sum().item(), tuple(out.shape)
                outs[i] = out.detach().float().cpu()
        what = "training step" if args.train else "forward"
        for i, (label, _) in enumerate(steps):
            t = times[i]
            attn = f", {args.attn} attention" if args.model in TRANSFORMERS else ""
            amp = ", bfloat16 autocast" if args.autocast else ""
            cpu = " CPU time" if args.clock == "cpu" else ""
            line = (f"{args.model} ({args.size}, batch {args.batch}, {args.dtype}{amp}{attn}) "
                    f"{what} on {device}{label}: {min(t) * 1e3:.1f} ms{cpu}/step (best of "
                    f"{args.steps}), mean {sum(t) / len(t) * 1e3:.1f} ms; output {shapes[i]} "
                    f"sum {sums[i]:.6g}")
            if device.type == "clops":
                line += f"; {launches[i] / args.steps:.0f} kernel launches/step"
            if label:
                line += f"; warmup (compiling) {firsts[i]:.1f} s"
            print(line)
            if args.summary:
                with open(args.summary, "a") as f:
                    f.write(json.dumps({
                        "model": args.model, "size": args.size, "batch": args.batch,
                        "seq": args.seq, "dtype": args.dtype, "attn": args.attn,
                        "autocast": args.autocast,
                        "mode": ("train, fused AdamW" if args.fused_adamw else "train")
                        if args.train else "forward",
                        "device": device.type, "label": label.strip(" ()") or "eager",
                        "ms": min(t) * 1e3, "clock": args.clock, "first_s": firsts[i],
                        "launches": launches[i] / args.steps if device.type == "clops" else None,
                        "switches": {k: v for k, v in os.environ.items()
                                     if k.startswith("CLOPS_COMPILE_")},
                    }) + "\n")
        return [min(t) for t in times], outs

    def backend_for(dev):
        if args.compile == "default":
            return "clops" if dev.type == "clops" else "inductor"
        return args.compile

    ref = None
    if args.compare:
        import copy
        ref = (torch.device(args.compare), copy.deepcopy(model0))
    stepper = on(device, model0)
    step = stepper(run)
    steps = [("", step)]
    if args.compile:
        steps.append((f" (compiled, {backend_for(device)})",
                      stepper(torch.compile(run, backend=backend_for(device)))))
    times, outs = measure(steps, device)
    if args.compile:
        print(f"compiled/eager speed: {times[0] / times[1]:.2f}x (steps alternated)")
        scale = outs[0].abs().max().item() or 1.0
        print(f"compiled against eager: largest output difference "
              f"{(outs[1] - outs[0]).abs().max().item() / scale:.2e} of the largest output "
              f"(last of {args.steps} steps{', weights updated each step' if args.train else ''})")
    if device.type == "clops":
        counts = torch.clops.fallback_counts()
        calls = sum(counts.values())
        print(f"CPU fallbacks per step: {calls / args.steps:.1f} calls, {len(counts)} ops")
        if counts:
            print(torch.clops.fallback_table({k: v // args.steps for k, v in counts.items()}))
    if ref:
        rdev, rmodel = ref
        rstepper = on(rdev, rmodel)
        rsteps = [("", rstepper(run))]
        if args.compile:
            rsteps.append((f" (compiled, {backend_for(rdev)})",
                           rstepper(torch.compile(run, backend=backend_for(rdev)))))
        rtimes, routs = measure(rsteps, rdev)
        for i, (label, _) in enumerate(steps):
            scale = routs[i].abs().max().item() or 1.0
            diff = (outs[i] - routs[i]).abs().max().item() / scale
            print(f"{device}{label} against {rdev}{rsteps[i][0]}: speed "
                  f"{rtimes[i] / times[i]:.2f}x of PyTorch's, largest output difference "
                  f"{diff:.2e} of the largest output (last of {args.steps} steps"
                  f"{', weights updated each step' if args.train else ''})")
    if args.profile:
        with OpTimes(device) as prof:
            step()
            sync(device)
        print_profile(prof.times, times[0])
        record = {"model": args.model, "size": args.size, "batch": args.batch,
                  "device": str(device), "train": args.train, "step_s": times[0],
                  "ops": prof.times}
        if args.compile and backend_for(device) == "clops":
            # the compiled step node by node: its fused kernels by kind and
            # each op it left eager (clops.torch._compile.profile)
            from clops.torch._compile import profile
            claunches = {}
            with profile(launches=claunches) as ctimes:
                steps[1][1]()
                sync(device)
            print("compiled step, node by node:")
            print_profile(ctimes, times[1])
            print("compiled step, kernel launches by node kind: " + ", ".join(
                f"{k} {v}" for k, v in sorted(claunches.items(), key=lambda kv: -kv[1]) if v))
            record["compiled_step_s"] = times[1]
            record["compiled_ops"] = {k: tuple(v) for k, v in ctimes.items()}
            record["compiled_launches"] = claunches
        with open(args.profile, "w") as f:
            json.dump(record, f, indent=1)


if __name__ == "__main__":
    main()
