#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes tests/data/golden_unary.json: PyTorch's CPU results for the unary,
activation and activation-backward ops of clops (codegen_pointwise/ops_unary.h).

For every op, every overload or parameter set listed below and every dtype
(bool, uint8, int8, int16, int32, int64, float16, bfloat16, float32, float64),
the op is called through torch.ops.aten on fixed inputs that include the
special values (0, -0.0, +-inf, NaN, exact halves for rounding, integer
extremes), and the row records the outputs or the exception PyTorch raised.
tests/test_golden_unary.c replays every row against clops' CPU reference.

Format: a JSON array, one case per line, keys sorted:
  {"args": {name: value, ...},          # non-tensor arguments by schema name
   "dtype": "float32",                  # dtype of every tensor input
   "error": "RuntimeError",             # only when PyTorch raised
   "func": "leaky_relu_backward",       # aten name, ".overload" if not default
   "inputs": [{"name": "grad_output", "values": [...]}, ...],  # schema order
   "out_dtype": "float32", "output": [...]}
Tensor values are strings: repr() of the Python float ("nan", "inf",
"-0.0", exact for every float32/float16/bfloat16 value) or the decimal
integer ("0"/"1" for bool).

Usage: python3 gen_golden_unary.py [OUT.json]   (needs torch; CPU only)
"""
import json
import math
import os
import sys

import torch

DTYPES = [
    ("bool", torch.bool), ("uint8", torch.uint8), ("int8", torch.int8),
    ("int16", torch.int16), ("int32", torch.int32), ("int64", torch.int64),
    ("float16", torch.float16), ("bfloat16", torch.bfloat16),
    ("float32", torch.float32), ("float64", torch.float64),
]
NAMES = {dt: name for name, dt in DTYPES}

FLOATS = [0.0, -0.0, math.inf, -math.inf, math.nan, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5,
          1.0, -1.0, 3.0, -3.0, 0.25, 0.75, 0.1, 0.9, 2.0, -2.0, 6.5, -10.0, 10.0,
          1e-3, 5.75, -7.3, 0.3]
# Extra values for ops with a narrow domain.
EXTRA = {
    "unit": [0.999, -0.999, 0.9999, 0.6, -0.3, 0.01],
    "prob": [0.001, 0.999, 0.2, 0.6, 0.05, 0.95],
    "ge1": [1.25, 4.0, 7.5, 100.0],
    "pos": [100.0, 1e-5, 0.01, 3.3],
    "digamma": [-0.5, -1.5, -2.25, 1.4616321449683622, -5.0, 25.5],
    "lgamma": [-0.5, -1.5, -2.25, 1e-4, 30.0, -5.0],
}
GRADS = [1.0, -2.0, 0.5, 3.0, -0.25, 1.5, 2.0, -1.0]


def int_values(name):
    if name == "bool":
        return [True, False, True, True, False]
    if name == "uint8":
        return [0, 1, 2, 3, 7, 10, 100, 128, 200, 255]
    info = torch.iinfo(dict(DTYPES)[name])
    return [0, 1, -1, 2, -2, 3, 7, -7, 10, -10, info.min, info.max]


# (func, overload, [(arg name, "tensor" | value)...] in schema order, domain)
def ops():
    unary = ("abs neg sign sgn signbit square reciprocal floor ceil round trunc frac isnan "
             "isinf isposinf isneginf isfinite deg2rad rad2deg sqrt rsqrt exp exp2 expm1 log "
             "log2 log10 log1p sin cos tan asin acos atan sinh cosh tanh asinh acosh atanh erf "
             "erfc erfinv lgamma digamma sinc relu relu6 selu silu mish hardsigmoid hardswish "
             "sigmoid log_sigmoid").split()
    domains = {"asin": "unit", "acos": "unit", "atanh": "unit", "erfinv": "unit",
               "acosh": "ge1", "sqrt": "pos", "rsqrt": "pos", "log": "pos", "log2": "pos",
               "log10": "pos", "digamma": "digamma", "lgamma": "lgamma"}
    out = []
    for f in unary:
        out.append((f, "default", [("self", "tensor")], domains.get(f)))
    T = ("self", "tensor")
    for d in (1, 2, -1, 0):
        out.append(("round", "decimals", [T, ("decimals", d)], None))
    out.append(("nan_to_num", "default", [T, ("nan", None), ("posinf", None), ("neginf", None)], None))
    out.append(("nan_to_num", "default", [T, ("nan", 1.5), ("posinf", 100.0), ("neginf", -100.0)], None))
    out.append(("hardtanh", "default", [T, ("min_val", -1), ("max_val", 1)], None))
    out.append(("hardtanh", "default", [T, ("min_val", -2.5), ("max_val", 3.5)], None))
    out.append(("hardtanh", "default", [T, ("min_val", 0), ("max_val", 6)], None))
    out.append(("leaky_relu", "default", [T, ("negative_slope", 0.01)], None))
    out.append(("leaky_relu", "default", [T, ("negative_slope", 0.2)], None))
    out.append(("elu", "default", [T, ("alpha", 1), ("scale", 1), ("input_scale", 1)], None))
    out.append(("elu", "default", [T, ("alpha", 0.5), ("scale", 2.0), ("input_scale", 1.5)], None))
    out.append(("celu", "default", [T, ("alpha", 1.0)], None))
    out.append(("celu", "default", [T, ("alpha", 2.0)], None))
    out.append(("gelu", "default", [T, ("approximate", "none")], None))
    out.append(("gelu", "default", [T, ("approximate", "tanh")], None))
    out.append(("softplus", "default", [T, ("beta", 1), ("threshold", 20)], None))
    out.append(("softplus", "default", [T, ("beta", 2), ("threshold", 5)], None))
    out.append(("softshrink", "default", [T, ("lambd", 0.5)], None))
    out.append(("softshrink", "default", [T, ("lambd", 1.0)], None))
    out.append(("hardshrink", "default", [T, ("lambd", 0.5)], None))
    out.append(("logit", "default", [T, ("eps", None)], "prob"))
    out.append(("logit", "default", [T, ("eps", 0.1)], "prob"))
    out.append(("threshold", "default", [T, ("threshold", 0.5), ("value", -2.0)], None))
    out.append(("threshold", "default", [T, ("threshold", 1), ("value", 5)], None))
    # Parameters that round differently in float16/bfloat16 than in float32.
    out.append(("threshold", "default", [T, ("threshold", 0.3), ("value", 0.7)], None))
    out.append(("hardtanh", "default", [T, ("min_val", -0.3), ("max_val", 0.3)], None))
    out.append(("hardshrink", "default", [T, ("lambd", 0.3)], None))
    out.append(("softshrink", "default", [T, ("lambd", 0.3)], None))
    out.append(("leaky_relu", "default", [T, ("negative_slope", 0.3)], None))
    out.append(("logit", "default", [T, ("eps", 0.3)], "prob"))
    G = ("grad_output", "tensor")
    out.append(("threshold_backward", "default", [G, T, ("threshold", 0.5)], None))
    out.append(("threshold_backward", "default", [G, T, ("threshold", 0.3)], None))
    out.append(("gelu_backward", "default", [G, T, ("approximate", "none")], None))
    out.append(("gelu_backward", "default", [G, T, ("approximate", "tanh")], None))
    out.append(("silu_backward", "default", [G, T], None))
    out.append(("sigmoid_backward", "default", [G, ("output", "tensor")], None))
    out.append(("tanh_backward", "default", [G, ("output", "tensor")], None))
    out.append(("hardsigmoid_backward", "default", [G, T], None))
    out.append(("hardswish_backward", "default", [G, T], None))
    out.append(("leaky_relu_backward", "default",
                [G, T, ("negative_slope", 0.01), ("self_is_result", False)], None))
    out.append(("leaky_relu_backward", "default",
                [G, T, ("negative_slope", 0.2), ("self_is_result", True)], None))
    out.append(("elu_backward", "default",
                [G, ("alpha", 1), ("scale", 1), ("input_scale", 1), ("is_result", False),
                 ("self_or_result", "tensor")], None))
    out.append(("elu_backward", "default",
                [G, ("alpha", 0.5), ("scale", 2.0), ("input_scale", 1.5), ("is_result", True),
                 ("self_or_result", "tensor")], None))
    out.append(("softplus_backward", "default", [G, T, ("beta", 1), ("threshold", 20)], None))
    out.append(("softplus_backward", "default", [G, T, ("beta", 2), ("threshold", 5)], None))
    out.append(("logit_backward", "default", [G, T, ("eps", None)], "prob"))
    out.append(("logit_backward", "default", [G, T, ("eps", 0.1)], "prob"))
    out.append(("logit_backward", "default", [G, T, ("eps", 0.3)], "prob"))
    return out


def encode(t):
    """Tensor values as strings (see the module docstring); a NaN with its
    sign bit set is written "-nan" (signbit sees it)."""
    if t.dtype.is_floating_point:
        out = []
        for v in t.double().tolist():
            if math.isnan(v) and math.copysign(1.0, v) < 0:
                out.append("-nan")
            else:
                out.append(repr(float(v)))
        return out
    return [str(int(v)) for v in t.to(torch.int64).tolist()]


def make_rows():
    rows = []
    for func, overload, spec, domain in ops():
        fn = getattr(getattr(torch.ops.aten, func), overload)
        kwarg_only = {a.name for a in fn._schema.arguments if a.kwarg_only}
        for dname, dt in DTYPES:
            if dt.is_floating_point:
                base = FLOATS + EXTRA.get(domain, [])
            else:
                base = int_values(dname)
            inputs = []
            args = []
            kwargs = {}
            for name, v in spec:
                if isinstance(v, str) and v == "tensor":
                    if name == "grad_output":
                        vals = [GRADS[i % len(GRADS)] for i in range(len(base))]
                        if not dt.is_floating_point:
                            vals = [int(x) if dt != torch.bool else bool(int(x) % 2)
                                    for x in vals]
                    else:
                        vals = base
                    t = torch.tensor(vals, dtype=torch.float64 if dt.is_floating_point
                                     else torch.int64).to(dt)
                    inputs.append({"name": name, "values": encode(t)})
                    args.append(t)
                elif name in kwarg_only:
                    kwargs[name] = v
                else:
                    args.append(v)
            row = {
                "func": func if overload == "default" else func + "." + overload,
                "dtype": dname,
                "args": {n: v for n, v in spec if not (isinstance(v, str) and v == "tensor")},
                "inputs": inputs,
            }
            try:
                y = fn(*args, **kwargs)
                row["out_dtype"] = NAMES[y.dtype]
                row["output"] = encode(y)
            except Exception as e:  # the refusal is part of the semantics
                row["error"] = type(e).__name__
            rows.append(row)
    return rows


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "golden_unary.json")
    torch.set_num_threads(1)
    rows = make_rows()
    with open(path, "w") as f:
        f.write("[\n")
        f.write(",\n".join(json.dumps(r, sort_keys=True) for r in rows))
        f.write("\n]\n")
    print(f"wrote {len(rows)} cases to {path} (torch {torch.__version__})")


if __name__ == "__main__":
    main()
