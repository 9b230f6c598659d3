#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Times torchvision CNNs (ResNet-18, ResNet-50, MobileNetV3-Large) as users
run them -- NCHW float32 with PyTorch's defaults (cuDNN's TF32 allowed for
convolutions, which the clops bridge maps onto its convolution precision)
or under bfloat16 autocast -- forward and training steps, on one device per
process, several configurations in one process (imports and program builds
paid once).  The models, inputs and step functions are run_model.py's
(python/examples/run_model.py: random weights, seed 0, 1000 classes, AdamW
for training).

    python3 bench/conv_models.py --device cuda --json cuda.jsonl
    python3 bench/conv_models.py --device clops --ab CLOPS_CONV_NHWC_COPY=0,1 \\
        --json clops.jsonl --profile r18_train_f32:prof.json
    python3 bench/conv_models.py --table cuda.jsonl clops.jsonl

A CUDA training step cannot run in a process that imported clops.torch
(docs/torch.md, "CUDA beside clops"), so PyTorch's column comes from its own
process.  --ab NAME=V1,V2,... runs each clops step under each value of the
environment variable NAME in turn (alternated step by step, one model: a
busy machine slows each alike); clops reads such switches per call.
--table prints the ratios (PyTorch's time / clops' best time) of the
JSON lines of both runs.
"""
import argparse
import copy
import json
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
# name -> (model, training, autocast)
CONFIGS = {
    "r18_fwd_f32": ("resnet18", False, False),
    "r18_train_f32": ("resnet18", True, False),
    "r18_fwd_bf16": ("resnet18", False, True),
    "r18_train_bf16": ("resnet18", True, True),
    "r50_fwd_bf16": ("resnet50", False, True),
    "mb3_fwd_f32": ("mobilenet_v3_large", False, False),
    "mb3_train_f32": ("mobilenet_v3_large", True, False),
    "mb3_fwd_bf16": ("mobilenet_v3_large", False, True),
    "r50_fwd_f32": ("resnet50", False, False),
}


def layer_key(func, args):
    """(op, the shapes of its tensor arguments, "cl" where one is
    channels-last): one convolution layer per key."""
    import torch
    shapes, cl = [], False
    for a in args:
        for t in (a if isinstance(a, (list, tuple)) else [a]):
            if isinstance(t, torch.Tensor):
                shapes.append("x".join(map(str, t.shape)) + ("" if t.dtype == torch.float32
                                                             else f":{str(t.dtype)[6:]}"))
                cl = cl or (t.dim() == 4 and t.numel() > 0 and not t.is_contiguous() and
                            t.is_contiguous(memory_format=torch.channels_last))
    return (str(func), " ".join(shapes) + (" cl" if cl else ""))


def LayerTimes(device):
    """run_model.OpTimes keyed by layer_key instead of the op alone."""
    import run_model

    class _Layers(run_model.OpTimes):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            run_model.sync(self.device)
            t0 = time.perf_counter()
            out = func(*args, **(kwargs or {}))
            run_model.sync(self.device)
            key = layer_key(func, args)
            calls, secs = self.times.get(key, (0, 0.0))
            self.times[key] = (calls + 1, secs + time.perf_counter() - t0)
            return out
    return _Layers(device)


def print_layers(times, step_s, top=25):
    """The profile by op (summed over shapes), then the top layers."""
    total = sum(s for _, s in times.values()) or 1.0
    by_op = {}
    for (op, _), (calls, secs) in times.items():
        c, s = by_op.get(op, (0, 0.0))
        by_op[op] = (c + calls, s + secs)
    print(f"op profile of one step ({total * 1e3:.1f} ms op time, synchronised; step "
          f"{step_s * 1e3:.1f} ms unsynchronised):")
    for op, (calls, secs) in sorted(by_op.items(), key=lambda kv: -kv[1][1])[:15]:
        print(f"  {op:48s} {calls:5d} calls {secs * 1e3:9.2f} ms {100 * secs / total:5.1f}%")
    print("top layers (op, argument shapes):")
    for (op, shp), (calls, secs) in sorted(times.items(), key=lambda kv: -kv[1][1])[:top]:
        print(f"  {op[5:] if op.startswith('aten.') else op:40s} {shp[:70]:70s} {calls:3d} "
              f"{secs * 1e3:8.2f} ms {100 * secs / total:5.1f}%")


def conv_layers_alone(model, x, dev, dtype, part):
    """Calls each distinct convolution layer of model (the shapes of its
    forward on x, found on the meta device) on dev with random tensors of
    dtype: its forward (part "fwd", last layer first, so that a process
    running the model's step from the first layer meets this one halfway
    through the program builds), or its convolution_backward, the input
    gradient alone (part "dgrad"; not the first layer's, whose input needs
    none) or the weight and bias gradients (part "wgrad"), as a training
    step's backward computes them.  Returns the number of layers called."""
    import torch
    m = copy.deepcopy(model).to("meta")
    layers = {}

    def hook(mod, inp, out):
        key = (tuple(inp[0].shape), tuple(mod.weight.shape), mod.stride, mod.padding,
               mod.dilation, mod.groups, mod.bias is not None, not layers)
        layers.setdefault(key, tuple(out.shape))
    hooks = [c.register_forward_hook(hook) for c in m.modules()
             if isinstance(c, torch.nn.Conv2d)]
    with torch.no_grad():
        m(x.to("meta"))
    for h in hooks:
        h.remove()
    n = 0
    if part == "fwd":
        with torch.no_grad():
            for (xs, ws, st, pd, dl, gr, bias, _), _ in reversed(list(layers.items())):
                torch.ops.aten.convolution(torch.randn(xs, dtype=dtype, device=dev),
                                           torch.randn(ws, dtype=dtype, device=dev),
                                           torch.randn(ws[0], dtype=dtype, device=dev)
                                           if bias else None, list(st), list(pd), list(dl),
                                           False, [0, 0], gr)
                n += 1
        return n
    for (xs, ws, st, pd, dl, gr, bias, first), ys in layers.items():
        mask = [part == "dgrad" and not first, part == "wgrad", part == "wgrad" and bias]
        if not any(mask):
            continue
        xi = torch.randn(xs, dtype=dtype, device=dev)
        w = torch.randn(ws, dtype=dtype, device=dev)
        go = torch.randn(ys, dtype=dtype, device=dev)
        torch.ops.aten.convolution_backward(go, xi, w, [ws[0]] if bias else None, list(st),
                                            list(pd), list(dl), False, [0, 0], gr, mask)
        n += 1
    return n


def table(files):
    rows = {}
    for f in files:
        if not os.path.exists(f):
            print(f"{f}: missing (that run wrote nothing)")
            continue
        with open(f) as fh:
            for line in fh:
                r = json.loads(line)
                rows.setdefault(r["config"], {})[r["device"] + (
                    f" {r['ab']}" if r.get("ab") else "")] = r["best_ms"]
    for cfg, cols in rows.items():
        ref = cols.get("cuda")
        parts = []
        for k, v in cols.items():
            ratio = f" ({ref / v:.2f}x)" if ref and k != "cuda" else ""
            parts.append(f"{k} {v:.1f} ms{ratio}")
        print(f"{cfg:16s} " + "; ".join(parts))


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--device", default="clops")
    p.add_argument("--configs", default=",".join(list(CONFIGS)[:8]),
                   help="comma-separated: " + ", ".join(CONFIGS))
    p.add_argument("--batch", type=int, default=64)
    p.add_argument("--image", type=int, default=224)
    p.add_argument("--steps", type=int, default=3)
    p.add_argument("--ab", metavar="NAME=V1,V2",
                   help="clops: each step under each value of environment variable NAME; "
                        "NAME1+NAME2=A1+A2,B1+B2 sets several variables per variant")
    p.add_argument("--json", help="append one JSON line per (config, variant)")
    p.add_argument("--profile", metavar="CONFIG:FILE[,CONFIG:FILE]",
                   help="time one more step of CONFIG op by op (the device synchronised "
                        "around each op; keyed by op and the shapes and layout of its "
                        "tensor arguments, so that a convolution is one layer) into FILE")
    p.add_argument("--warm", action="store_true",
                   help="run one step of each configuration (under each --ab value) and "
                        "nothing else: fills the program cache (CLOPS_CACHE_DIR) for a "
                        "timing run in another process")
    p.add_argument("--warm-part", choices=["step", "fwd", "dgrad", "wgrad"], default="step",
                   help="with --warm: the whole step, or only the model's convolutions "
                        "each called alone with the step's shapes and dtype: forwards "
                        "(fwd, last layer first), input gradients (dgrad) or weight "
                        "gradients (wgrad) with the step's output_mask; so that several "
                        "processes build a step's programs at once")
    p.add_argument("--outputs", metavar="DIR",
                   help="forward configurations: save the output of the first variant as "
                        "DIR/CONFIG.pt, or where that file exists (another device's run) print "
                        "the largest difference from it; each further variant is compared "
                        "with the first too")
    p.add_argument("--budget", type=float, default=0,
                   help="stop starting configurations after this many seconds (0: none)")
    p.add_argument("--table", nargs="+", metavar="JSONL", help="print the ratios and exit")
    args = p.parse_args()
    if args.table:
        table(args.table)
        return
    t_start = time.perf_counter()
    import torch
    # run_model.py, and clops from this tree's python/ (the extension built
    # in place there)
    sys.path.insert(0, os.path.join(HERE, "..", "python", "examples"))
    sys.path.insert(0, os.path.join(HERE, "..", "python"))
    import run_model
    if args.device.startswith("clops"):
        import clops.torch  # noqa: F401
    dev = torch.device(args.device)
    env_name, env_vals = None, [None]
    if args.ab:
        env_name, vals = args.ab.split("=", 1)
        env_vals = vals.split(",")
    profiles = dict(pf.split(":", 1) for pf in args.profile.split(",")) if args.profile else {}
    dname = torch.cuda.get_device_name() if dev.type == "cuda" else str(dev)
    print(f"device {dev} ({dname}), torch {torch.__version__}, cudnn.allow_tf32 "
          f"{torch.backends.cudnn.allow_tf32}, matmul allow_tf32 "
          f"{torch.backends.cuda.matmul.allow_tf32}, batch {args.batch}, image {args.image}",
          flush=True)

    def set_env(v):
        if env_name is None:
            return
        names = env_name.split("+")
        vals = v.split("+") if v is not None else [None] * len(names)
        if len(vals) != len(names):
            raise SystemExit(f"--ab: {v!r} does not give one value for each of {names}")
        for name, val in zip(names, vals):
            if val is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = val

    def one(name):
        if args.budget and time.perf_counter() - t_start > args.budget:
            print(f"{name}: skipped (past --budget {args.budget:.0f} s)", flush=True)
            return
        model_name, train, amp = CONFIGS[name]
        ns = argparse.Namespace(model=model_name, size="124m", batch=args.batch,
                                image=args.image, train=train, attn="sdpa")
        model0, x0, run = run_model.build(ns)
        if args.warm and args.warm_part != "step":
            t1 = time.perf_counter()
            for v in env_vals:
                set_env(v)
                n = conv_layers_alone(model0, x0, dev, torch.bfloat16 if amp else torch.float32,
                               args.warm_part)
            run_model.sync(dev)
            print(f"{name}: warm-up {args.warm_part} of {n} convolution layers "
                  f"{time.perf_counter() - t1:.1f} s ({time.perf_counter() - t_start:.0f} s "
                  f"so far)", flush=True)
            return
        model = copy.deepcopy(model0).to(dev)
        model.train(train)
        x = x0.to(dev)
        opt = torch.optim.AdamW(model.parameters(), lr=1e-4) if train else None

        step = run_model.make_step(model, x, run, opt, train=train, autocast=amp,
                                   device_type=dev.type)

        t0 = time.perf_counter()
        first = []
        for v in env_vals:
            set_env(v)
            t1 = time.perf_counter()
            step()
            run_model.sync(dev)
            first.append(time.perf_counter() - t1)
        if args.warm:
            print(f"{name}: warm-up step(s) " + ", ".join(f"{f:.1f} s" for f in first) +
                  f" ({time.perf_counter() - t_start:.0f} s so far)", flush=True)
            return
        times = [[] for _ in env_vals]
        for _ in range(args.steps):
            for i, v in enumerate(env_vals):
                set_env(v)
                t1 = time.perf_counter()
                step()
                run_model.sync(dev)
                times[i].append(time.perf_counter() - t1)
        diffs = {}
        if not train and args.outputs:
            outs = []
            for v in env_vals:
                set_env(v)
                outs.append(step().float().cpu())
            path = os.path.join(args.outputs, name + ".pt")
            if os.path.exists(path):
                ref = torch.load(path)
                scale = ref.abs().max().item() or 1.0
                for i, o in enumerate(outs):
                    diffs[i] = (o - ref).abs().max().item() / scale
                    print(f"  {name} {env_vals[i] or dev.type}: largest difference from {path} "
                          f"{diffs[i]:.2e} of the largest output", flush=True)
            else:
                torch.save(outs[0], path)
            for i, o in enumerate(outs[1:], 1):
                scale = outs[0].abs().max().item() or 1.0
                print(f"  {name} {env_vals[i]} against {env_vals[0]}: largest difference "
                      f"{(o - outs[0]).abs().max().item() / scale:.2e}", flush=True)
        for i, v in enumerate(env_vals):
            t = [s * 1e3 for s in times[i]]
            ab = f"{env_name}={v}" if env_name else ""
            print(f"{name:16s} {dev.type} {ab:24s} best {min(t):8.1f} ms, median "
                  f"{statistics.median(t):8.1f} ms (of {len(t)}), first {first[i]:.1f} s",
                  flush=True)
            if args.json:
                with open(args.json, "a") as f:
                    f.write(json.dumps({"config": name, "device": dev.type, "name": dname,
                                        "ab": ab, "best_ms": min(t),
                                        "median_ms": statistics.median(t), "ms": t,
                                        "first_s": first[i], "batch": args.batch,
                                        "diff_from_saved": diffs.get(i),
                                        "image": args.image}) + "\n")
        if name in profiles:
            set_env(env_vals[-1])
            with LayerTimes(dev) as prof:
                step()
                run_model.sync(dev)
            print_layers(prof.times, min(times[-1]))
            with open(profiles[name], "w") as f:
                json.dump({"config": name, "device": str(dev), "ab": env_vals[-1],
                           "step_ms": min(times[-1]) * 1e3,
                           "layers": {" ".join(k): v for k, v in prof.times.items()}},
                          f, indent=1)
        print(f"  ({time.perf_counter() - t0:.1f} s for {name}; "
              f"{time.perf_counter() - t_start:.0f} s so far)", flush=True)

    for name in args.configs.split(","):
        try:
            one(name)
        except Exception as e:  # noqa: BLE001 (the next configuration still runs)
            print(f"{name}: failed: {type(e).__name__}: {str(e)[:400]}", flush=True)


if __name__ == "__main__":
    main()
