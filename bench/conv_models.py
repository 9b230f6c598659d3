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
    p.add_argument("--ab", metavar="NAME=V1,V2", help="clops: each step under each value")
    p.add_argument("--json", help="append one JSON line per (config, variant)")
    p.add_argument("--profile", metavar="CONFIG:FILE",
                   help="time one more step of CONFIG op by op (run_model.py's OpTimes; "
                        "the device synchronised around each op) into FILE")
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
    prof_cfg, prof_file = (args.profile.split(":", 1) if args.profile else (None, None))
    dname = torch.cuda.get_device_name() if dev.type == "cuda" else str(dev)
    print(f"device {dev} ({dname}), torch {torch.__version__}, cudnn.allow_tf32 "
          f"{torch.backends.cudnn.allow_tf32}, matmul allow_tf32 "
          f"{torch.backends.cuda.matmul.allow_tf32}, batch {args.batch}, image {args.image}",
          flush=True)

    def one(name):
        if args.budget and time.perf_counter() - t_start > args.budget:
            print(f"{name}: skipped (past --budget {args.budget:.0f} s)", flush=True)
            return
        model_name, train, amp = CONFIGS[name]
        ns = argparse.Namespace(model=model_name, size="124m", batch=args.batch,
                                image=args.image, train=train, attn="sdpa")
        model0, x0, run = run_model.build(ns)
        model = copy.deepcopy(model0).to(dev)
        model.train(train)
        x = x0.to(dev)
        opt = torch.optim.AdamW(model.parameters(), lr=1e-4) if train else None

        step = run_model.make_step(model, x, run, opt, train=train, autocast=amp,
                                   device_type=dev.type)

        def set_env(v):
            if env_name is None:
                return
            if v is None:
                os.environ.pop(env_name, None)
            else:
                os.environ[env_name] = v

        t0 = time.perf_counter()
        first = []
        for v in env_vals:
            set_env(v)
            t1 = time.perf_counter()
            step()
            run_model.sync(dev)
            first.append(time.perf_counter() - t1)
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
                    print(f"  {name} {env_vals[i]}: largest difference from {path} "
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
        if name == prof_cfg:
            set_env(env_vals[-1])
            with run_model.OpTimes(dev) as prof:
                step()
                run_model.sync(dev)
            run_model.print_profile(prof.times, min(times[-1]), top=20)
            with open(prof_file, "w") as f:
                json.dump({"config": name, "device": str(dev), "ab": env_vals[-1],
                           "ops": prof.times}, f, indent=1)
        print(f"  ({time.perf_counter() - t0:.1f} s for {name}; "
              f"{time.perf_counter() - t_start:.0f} s so far)", flush=True)

    for name in args.configs.split(","):
        try:
            one(name)
        except Exception as e:  # noqa: BLE001 (the next configuration still runs)
            print(f"{name}: failed: {type(e).__name__}: {str(e)[:400]}", flush=True)


if __name__ == "__main__":
    main()
