#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""bench/torch_cases.py: the PyTorch column of `clops compare --torch`.

    python3 torch_cases.py CASES.json RESULTS.json

`clops compare` runs it (installed as share/clops/torch_cases.py, next to
torch_common.py) with the calls its benchmarks measured, in the torch-cases
document of docs/json-format.md: per case the aten overload (`add.Tensor`),
and per schema argument its kind and, for tensors, dtype, sizes, strides,
role (input, mutated, out) and value domain exactly as the clops call had
them; the document also says on which device PyTorch runs ("cuda" beside an
NVIDIA OpenCL device, else "cpu"), with how many CPU threads, how many
repetitions, the float32 matmul precision, and the column's settings:
"clops" (PyTorch held at clops' precision: that matmul precision, TF32 in
cuDNN only when it allows TF32) or "defaults" (PyTorch as users run it:
nothing set, so cuDNN's TF32 convolutions, the default matmul precision and
every SDPA backend, flash included).  Each case becomes
torch.ops.aten.<op>.<overload> called with every argument by name, its
tensors made with the same sizes and strides (torch.as_strided over a
storage of the right extent, so expanded and transposed layouts are the
same too) and values drawn from the same domain; it is timed as the C side
times it (torch_common.time_like_clops: two untimed calls, a batch sized to
about 2 ms, the median of `reps` batches, one synchronisation per batch).

RESULTS.json gets the settings (PyTorch version, device, threads, the
mode, matmul precision, TF32 and cuDNN flags, the SDPA backends allowed)
and one result per case: us_per_call, or a status and a
message (an op aten does not have, an argument PyTorch refuses).  With
"models" in the document (a list) it also times models' forward steps
(GPT-2 with random weights through transformers, ResNet-18 through
torchvision) on the peer and, through the clops PyTorch
device (`import clops.torch`) when it is installed, on the compared clops
devices, with clops' CPU fallbacks per step: the model table.  When torch
cannot be imported the script prints one line saying why and exits with
status 3, writing nothing: `clops compare` then leaves the column out.
"""
import json
import math
import os
import sys
import time
import warnings

T_START = time.perf_counter()

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from torch_common import time_like_clops  # noqa: E402

FORMAT_IN = "clops-torch-cases"
FORMAT_OUT = "clops-torch-results"

# tools/check/check_random.c's domains: (low, high) of the ordinary values.
DOMAINS = {
    "any": (-10.0, 10.0), "positive": (1e-3, 10.0), "unit": (-0.999, 0.999),
    "ge1": (1.0, 10.0), "small": (-3.0, 3.0), "prob": (1e-3, 0.999),
    "index": (0, 2), "negindex": (-3, -1), "beyond": (1000, 1002),
}
INT_DOMAINS = ("index", "negindex", "beyond")
MEMORY_FORMATS = ("contiguous_format", "preserve_format", "channels_last", "channels_last_3d")


def storage_extent(sizes, strides):
    """Elements a strided view over one storage reaches."""
    if any(s == 0 for s in sizes):
        return 0
    return 1 + sum((n - 1) * abs(st) for n, st in zip(sizes, strides))


def fill(torch, n, dtype, domain, gen):
    """n values of dtype from domain (as chk_fill draws them: ordinary values
    in the range, one in 16 of the `any` floats special)."""
    lo, hi = DOMAINS.get(domain, DOMAINS["any"])
    if dtype == torch.bool:
        return torch.rand(n, generator=gen) < 0.5
    if domain in INT_DOMAINS or not dtype.is_floating_point:
        v = torch.randint(int(math.floor(lo)), int(math.floor(hi)) + 1, (n,), generator=gen)
        if dtype == torch.uint8:
            v = v.abs()
        return v.to(dtype)
    v = torch.rand(n, generator=gen, dtype=torch.float64) * (hi - lo) + lo
    if domain == "any" and n >= 16:
        special = torch.tensor([0.0, -0.0, math.inf, -math.inf, math.nan], dtype=torch.float64)
        idx = torch.arange(0, n, 16)
        v[idx] = special[torch.arange(idx.numel()) % special.numel()]
    return v.to(dtype)


# Values drawn one by one up to this many; larger tensors repeat the block,
# as tools/check/check_run.c's make_values repeats CHK_FILL_BLOCK (drawing
# 64 Mi float64 values on the host and moving them cost more than timing
# the op).
FILL_BLOCK = 65536


def make_tensor(torch, spec, dev, gen):
    dtype = getattr(torch, spec["dtype"])
    sizes, strides = spec["sizes"], spec["strides"]
    where = "cpu" if spec.get("on_cpu") else dev
    n = storage_extent(sizes, strides)
    if spec.get("role") == "out":
        base = torch.zeros(n, dtype=dtype, device=where)
    else:
        block = fill(torch, min(n, FILL_BLOCK), dtype, spec.get("domain", "any"), gen).to(where)
        base = block.repeat(-(-n // FILL_BLOCK))[:n] if n > FILL_BLOCK else block
    return torch.as_strided(base, sizes, strides)


def scalar_value(v, kind=None):
    if isinstance(v, str) and v in ("inf", "-inf", "nan"):
        return float(v)
    if kind == "float" and not isinstance(v, bool):
        return float(v)
    if kind == "int" and not isinstance(v, bool):
        return int(v)
    return v


def arg_value(torch, arg, schema_arg, dev, gen):
    kind, v = arg["kind"], arg.get("value")
    ty = str(schema_arg.type) if schema_arg is not None else ""
    if kind == "tensor":
        return make_tensor(torch, arg, dev, gen)
    if kind == "tensor_list":
        return [None if e.get("kind") == "none" else make_tensor(torch, e, dev, gen) for e in v]
    if kind == "scalar":
        return scalar_value(v, arg.get("scalar_type"))
    if kind in ("int", "bool", "string"):
        return v
    if kind == "float":
        return scalar_value(v, "float")
    if kind == "int_list":
        return [int(x) for x in v]
    if kind == "float_list":
        return [float(x) for x in v]
    if kind == "bool_list":
        return [bool(x) for x in v]
    if kind == "dtype":
        return getattr(torch, v)
    if kind == "device":
        return torch.device(dev)
    if kind == "enum":
        if "MemoryFormat" in ty:
            return getattr(torch, MEMORY_FORMATS[int(v)])
        if "Layout" in ty:
            return torch.strided
        return int(v)
    return None  # none, generator (the default generator, as clops' run)


def aten_op(torch, name):
    base, _, overload = name.partition(".")
    packet = getattr(torch.ops.aten, base)
    return getattr(packet, overload or "default")


def sdpa(torch):
    """clops' _fused_attention as a PyTorch user runs it: the public
    torch.nn.functional.scaled_dot_product_attention (PyTorch picks its
    kernel: flash, cuDNN, memory-efficient or math), grouped-query attention
    when the key/value heads are fewer, PyTorch's lower-right causal bias for
    causal_lower_right.  clops' op also returns the logsumexp (saved for
    backward); PyTorch under no_grad does not compute it."""
    def call(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None,
             generator=None, causal_lower_right=False):
        del generator  # PyTorch draws dropout from the device's default generator
        if causal_lower_right:
            from torch.nn.attention.bias import causal_lower_right as lower_right
            attn_mask, is_causal = lower_right(query.shape[-2], key.shape[-2]), False
        return torch.nn.functional.scaled_dot_product_attention(
            query, key, value, attn_mask=attn_mask, dropout_p=dropout_p, is_causal=is_causal,
            scale=scale, enable_gqa=query.shape[-3] != key.shape[-3])
    return call


# clops' own ops (no aten overload of that name) and the PyTorch call users
# run for them.
CLOPS_OWN = {"_fused_attention": sdpa}


class Call:
    """One case's aten call (or, for an op of clops' own, the PyTorch call
    of CLOPS_OWN) with its arguments made on dev."""

    def __init__(self, torch, case, dev, seed):
        own = CLOPS_OWN.get(case["op"])
        self.op = own(torch) if own else aten_op(torch, case["op"])
        schema = None if own else {a.name: a for a in self.op._schema.arguments}
        gen = torch.Generator(device="cpu").manual_seed(seed)
        self.kw = {}
        for arg in case["args"]:
            name = arg["name"]
            if schema is not None and name not in schema:
                raise ValueError(f"'{name}' is no argument of aten::{case['op']}")
            self.kw[name] = arg_value(torch, arg, schema[name] if schema else None, dev, gen)

        # ATen's FFT primitives take their dims wrapped (torch.fft's functions
        # wrap them first; -1 trips an internal assertion): as users reach
        # them.
        if case["op"].startswith("_fft_") and isinstance(self.kw.get("dim"), list):
            nd = self.kw["self"].dim()
            self.kw["dim"] = [d % nd if nd else d for d in self.kw["dim"]]

    def __call__(self):
        return self.op(**self.kw)


# GPT-2's smallest published size (124M parameters, random weights: no
# download), and the 2-layer configuration of python/examples/run_model.py
# for tests.
GPT2_SIZES = {"124m": {}, "small": {"n_layer": 2, "n_head": 2, "n_embd": 64, "vocab_size": 1000,
                                   "n_positions": 128, "bos_token_id": 0, "eos_token_id": 0}}


def gpt2_model(torch, spec):
    """GPT-2 of spec["size"] with random weights and its token batch."""
    size = spec.get("size", "124m")
    batch, seq = int(spec.get("batch", 1)), int(spec.get("seq", 128))
    name = f"GPT-2 {size} forward, batch {batch}, sequence {seq}, float32"
    try:
        import transformers
        transformers.logging.set_verbosity_error()
        cfg = transformers.GPT2Config(resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0,
                                      **GPT2_SIZES[size])
        torch.manual_seed(0)
        model = transformers.GPT2LMHeadModel(cfg).eval()
        x = torch.randint(0, cfg.vocab_size, (batch, seq),
                          generator=torch.Generator().manual_seed(1))
    except Exception as e:  # no transformers, or a version that refuses the config
        return name, None, None, f"transformers: {type(e).__name__}: {e}"
    return name, model, x, None


def resnet18_model(torch, spec):
    """torchvision's ResNet-18 with random weights (eval: batch norm from
    its running statistics) and an image batch of spec["image"] pixels
    (python/examples/run_model.py's resnet18)."""
    batch, image = int(spec.get("batch", 1)), int(spec.get("image", 224))
    name = f"ResNet-18 forward, batch {batch}, {image}x{image}, float32"
    try:
        import torchvision
        torch.manual_seed(0)
        model = torchvision.models.resnet18(num_classes=1000).eval()
        x = torch.randn(batch, 3, image, image, generator=torch.Generator().manual_seed(2))
    except Exception as e:  # no torchvision
        return name, None, None, f"torchvision: {type(e).__name__}: {e}"
    return name, model, x, None


MODELS = {"gpt2": gpt2_model, "resnet18": resnet18_model}


def model_rows(torch, spec, peer, cuda, reps):
    """One model of the model table: spec["model"] (gpt2 of spec["size"],
    resnet18) on the peer (cpu or cuda) and on each clops device of
    spec["clops_devices"] (clops:K through the clops PyTorch device, when it
    is importable): time per forward step (the median of `reps` steps after
    one untimed step), and on clops the CPU fallback calls per step and
    their ops."""
    import statistics
    import time
    rows = []
    make = MODELS.get(spec.get("model", "gpt2"))
    if make is None:
        return [{"model": str(spec.get("model")), "device": spec["peer_index"],
                 "status": "skip", "message": f"no model '{spec.get('model')}' here"}]
    name, model, x, why = make(torch, spec)
    if model is None:
        return [{"model": name, "device": d["index"], "status": "skip",
                 "message": why.splitlines()[0][:300]}
                for d in [{"index": spec["peer_index"]}] + spec.get("clops_devices", [])]
    targets = [(spec["peer_index"], peer)]
    clops_err = None
    if spec.get("clops_devices"):
        try:
            import clops.torch  # noqa: F401  (registers the clops device)
        except Exception as e:
            clops_err = f"the clops PyTorch device is not importable ({type(e).__name__}: {e})"
        for d in spec["clops_devices"]:
            targets.append((d["index"], None if clops_err else d["torch"]))
    for index, where in targets:
        row = {"model": name, "device": index}
        if where is None:
            row.update(status="skip", message=clops_err)
            rows.append(row)
            continue
        dev = torch.device(where)
        if dev.type == "clops":
            def sync():
                torch.clops.synchronize()
        elif dev.type == "cuda":
            sync = torch.cuda.synchronize
        else:
            def sync():
                return None
        try:
            m = model.to(dev)
            xd = x.to(dev)
            with torch.no_grad():
                m(xd)
                sync()
                if dev.type == "clops":
                    torch.clops.reset_fallback_counts()
                times = []
                for _ in range(max(1, reps)):
                    t0 = time.perf_counter()
                    m(xd)
                    sync()
                    times.append(time.perf_counter() - t0)
            row.update(status="pass", ms_per_step=statistics.median(times) * 1e3,
                       steps=len(times))
            if dev.type == "clops":
                counts = torch.clops.fallback_counts()
                row["fallbacks_per_step"] = sum(counts.values()) / len(times)
                row["fallback_ops"] = sorted(counts)
            model.to("cpu")
        except Exception as e:
            row.update(status="error",
                       message=f"{type(e).__name__}: {e}".splitlines()[0][:300])
        rows.append(row)
    return rows


def sdpa_backends(torch):
    """The scaled_dot_product_attention backends PyTorch may pick."""
    b = torch.backends.cuda
    names = [("flash", "flash_sdp_enabled"), ("memory-efficient", "mem_efficient_sdp_enabled"),
             ("math", "math_sdp_enabled"), ("cuDNN", "cudnn_sdp_enabled")]
    return [n for n, f in names if hasattr(b, f) and getattr(b, f)()]


def apply_settings(torch, mode, precision):
    """The column's numerics.  "clops": PyTorch held at clops' float32
    matmul precision (`precision`), TF32 in cuDNN's convolutions only when
    that precision allows it in matrix products.  "defaults": PyTorch as
    users run it, nothing set (cuDNN TF32 on, matmul precision "highest"
    unless the environment changed it, every SDPA backend allowed)."""
    if mode == "defaults":
        return
    torch.set_float32_matmul_precision(precision)
    torch.backends.cudnn.allow_tf32 = precision != "highest"


def settings(torch, cuda, mode):
    """What the column was measured with, for the report."""
    s = {"torch": torch.__version__, "device": "cuda" if cuda else "cpu", "mode": mode,
         "threads": torch.get_num_threads(),
         "float32_matmul_precision": torch.get_float32_matmul_precision(),
         "tf32_matmul": bool(torch.backends.cuda.matmul.allow_tf32),
         "tf32_cudnn": bool(torch.backends.cudnn.allow_tf32),
         "cudnn": bool(torch.backends.cudnn.enabled),
         "cudnn_benchmark": bool(torch.backends.cudnn.benchmark),
         "sdpa_backends": sdpa_backends(torch),
         "deterministic": bool(torch.are_deterministic_algorithms_enabled())}
    if cuda:
        s["device_name"] = torch.cuda.get_device_name()
        s["cuda"] = torch.version.cuda or ""
    else:
        s["device_name"] = "CPU"
    return s


def main(argv):
    if len(argv) != 3:
        print("usage: torch_cases.py CASES.json RESULTS.json")
        return 2
    with open(argv[1]) as f:
        doc = json.load(f)
    if doc.get("format") != FORMAT_IN:
        print(f"{argv[1]}: not a {FORMAT_IN} document")
        return 2
    warnings.filterwarnings("ignore")
    try:
        import torch
    except Exception as e:  # ImportError, or a broken installation
        print(f"PyTorch is not importable with {sys.executable} ({type(e).__name__}: {e})")
        return 3
    want = doc.get("device", "cpu")
    cuda = want == "cuda" and torch.cuda.is_available()
    note = ""
    if want == "cuda" and not cuda:
        note = "torch.cuda is not available: PyTorch ran on the CPU"
    dev = "cuda" if cuda else "cpu"
    threads = int(doc.get("threads") or 0)
    if not cuda and threads > 0:
        torch.set_num_threads(threads)
    mode = doc.get("settings", "clops")
    if mode not in ("clops", "defaults"):
        print(f"{argv[1]}: settings '{mode}' is neither 'clops' nor 'defaults'")
        return 2
    apply_settings(torch, mode, doc.get("float32_matmul_precision", "highest"))
    reps = int(doc.get("reps") or 10)
    sync = torch.cuda.synchronize if cuda else (lambda: None)
    results = []
    cases = doc.get("cases", [])
    progress = bool(doc.get("progress"))
    t_cases = time.perf_counter()
    for i, case in enumerate(cases):
        r = {"index": i, "op": case.get("op"), "dtype": case.get("dtype"),
             "case": case.get("case")}
        try:
            call = Call(torch, case, dev, 20261124 + i)
            with torch.no_grad():
                t, batch = time_like_clops(call, reps, sync)
            r.update(status="pass", us_per_call=t * 1e6, reps=reps, batch=batch)
            del call
        except (AttributeError, NotImplementedError) as e:
            r.update(status="skip", message=f"PyTorch has no aten::{case.get('op')}: {e}")
        except (RuntimeError, ValueError, TypeError, IndexError, KeyError) as e:
            r.update(status="error", message=f"{type(e).__name__}: {e}".splitlines()[0][:400])
        results.append(r)
        if progress:
            what = (f"ok ({r['us_per_call']:.1f} us/call)" if r["status"] == "pass" else
                    f"{r['status']}: {r.get('message', '')[:120]}")
            print(f"torch: [{i + 1}/{len(cases)}] {case.get('op')} {what}", file=sys.stderr,
                  flush=True)
        if cuda:
            torch.cuda.empty_cache()
    out = {"format": FORMAT_OUT, "version": 1, "settings": settings(torch, cuda, mode),
           "note": note, "results": results}
    t_models = time.perf_counter()
    if progress:
        print(f"torch: {len(cases)} cases in {t_models - t_cases:.1f} s (torch imported and "
              f"{dev} started in {t_cases - T_START:.1f} s)", file=sys.stderr, flush=True)
    models = doc.get("models") or []
    if isinstance(models, dict):  # one model (the document's first version)
        models = [models]
    if models:
        out["models"] = []
    for spec in models:
        if progress:
            print(f"torch: the model table ({spec.get('model')} {spec.get('size', '')})",
                  file=sys.stderr, flush=True)
        out["models"] += model_rows(torch, spec, dev, cuda, min(reps, 5))
    if progress and models:
        print(f"torch: the model table in {time.perf_counter() - t_models:.1f} s",
              file=sys.stderr, flush=True)
    tmp = argv[2] + ".tmp"
    with open(tmp, "w") as f:
        json.dump(out, f, indent=1)
    os.replace(tmp, argv[2])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
