#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Generates tests/data/view_cases.json: PyTorch's answers for clops' view ops.

Each case runs one view operator of ATen on a float32 CPU tensor with a given
geometry and records what PyTorch gives back: the sizes, strides and storage
offset of the result and whether it shares the input's storage (reshape and
flatten copy when no view exists), or the type of the exception PyTorch
raised.  tests/test_views.c replays every case against core/view.c.

Inputs are described by sizes, strides, storage offset and storage length
(in elements): the tensor is built as
    torch.empty(storage).as_strided(sizes, strides, offset)
and the storage is as small as the geometry allows (offset + furthest
reachable element + 1, or 0 for an empty tensor), so as_strided's bounds
check is exercised too.

The operators are called through torch.ops.aten with the overloads whose
schemas clops' typed kernels implement.  The script is deterministic: the
case list is fixed, and the output has one case per line with sorted keys so
that a diff against the committed file is readable.

Usage (needs torch):  python3 tests/data/gen_view_cases.py [OUTPUT]
The default OUTPUT is view_cases.json next to this script.
"""

import json
import os
import sys

# name: (sizes, strides, storage offset)
INPUTS = {
    "c3": ([3], [1], 0),
    "c23": ([2, 3], [3, 1], 0),
    "c34": ([3, 4], [4, 1], 0),
    "c234": ([2, 3, 4], [12, 4, 1], 0),
    "c2345": ([2, 3, 4, 5], [60, 20, 5, 1], 0),
    # empty(3, 4).t() and empty(4, 3).t()
    "t43": ([4, 3], [1, 4], 0),
    "t34": ([3, 4], [1, 3], 0),
    # empty(2, 3, 4).permute(2, 0, 1): dims 1 and 2 still merge
    "perm": ([4, 2, 3], [1, 12, 4], 0),
    # empty(3, 8)[:, 1::2]: every other column, rows still merge
    "step": ([3, 4], [8, 2], 1),
    # empty(3, 10)[:, 1:9:2]: rows no longer merge
    "step_gap": ([3, 4], [10, 2], 1),
    "step1d": ([5], [2], 1),
    # empty(3, 4)[1:] and empty(6)[2:]
    "rows": ([2, 4], [4, 1], 4),
    "vec_off": ([4], [1], 2),
    # empty(4).expand(3, 4) and empty(4, 1).expand(4, 3)
    "exp34": ([3, 4], [0, 1], 0),
    "exp43": ([4, 3], [1, 0], 0),
    "scalar": ([], [], 0),
    "scalar_off": ([], [], 5),
    "empty": ([0], [1], 0),
    "e203": ([2, 0, 3], [3, 3, 1], 0),
    # empty(0, 3).t()
    "e30t": ([3, 0], [1, 3], 0),
    "e04": ([0, 4], [4, 1], 0),
    "one": ([1], [1], 0),
    "ones": ([1, 1], [1, 1], 0),
    "c13": ([1, 3], [3, 1], 0),
    "c31": ([3, 1], [1, 1], 0),
    "c314": ([3, 1, 4], [4, 4, 1], 0),
    "c1314": ([1, 3, 1, 4], [12, 4, 4, 1], 0),
    # a size-1 dim whose stride is arbitrary (PyTorch allows any)
    "odd1": ([2, 1, 3], [3, 100, 1], 0),
    "odd13": ([1, 3], [7, 1], 0),
}

# (op, input, args).  Argument names follow the schemas in core/tensor_impl.h;
# None is JSON null (an omitted optional argument).
CASES = [
    # --- view ---------------------------------------------------------------
    ("view", "c34", {"shape": [12]}),
    ("view", "c34", {"shape": [-1]}),
    ("view", "c34", {"shape": [2, 6]}),
    ("view", "c34", {"shape": [2, -1, 2]}),
    ("view", "c34", {"shape": [4, 3]}),
    ("view", "c34", {"shape": [12, 1]}),
    ("view", "c34", {"shape": [1, -1, 1]}),
    ("view", "c34", {"shape": [3, 2, 2]}),
    ("view", "c34", {"shape": []}),
    ("view", "c34", {"shape": [2, -1, -1]}),
    ("view", "c34", {"shape": [5, -1]}),
    ("view", "c34", {"shape": [-2, 6]}),
    ("view", "c34", {"shape": [0, -1]}),
    ("view", "c34", {"shape": [13]}),
    ("view", "t43", {"shape": [12]}),
    ("view", "t43", {"shape": [4, 3]}),
    ("view", "t43", {"shape": [4, 3, 1]}),
    ("view", "t43", {"shape": [1, 4, 3]}),
    ("view", "t43", {"shape": [2, 2, 3]}),
    ("view", "t43", {"shape": [4, 1, 3]}),
    ("view", "t43", {"shape": [3, 4]}),
    ("view", "t34", {"shape": [12]}),
    ("view", "t34", {"shape": [3, 2, 2]}),
    ("view", "perm", {"shape": [4, 6]}),
    ("view", "perm", {"shape": [24]}),
    ("view", "perm", {"shape": [8, 3]}),
    ("view", "perm", {"shape": [2, 2, 2, 3]}),
    ("view", "step", {"shape": [12]}),
    ("view", "step", {"shape": [6, 2]}),
    ("view", "step_gap", {"shape": [12]}),
    ("view", "step_gap", {"shape": [3, 2, 2]}),
    ("view", "step1d", {"shape": [5, 1]}),
    ("view", "step1d", {"shape": [1, 5]}),
    ("view", "rows", {"shape": [8]}),
    ("view", "exp34", {"shape": [12]}),
    ("view", "exp34", {"shape": [3, 2, 2]}),
    ("view", "exp34", {"shape": [1, 3, 4]}),
    ("view", "scalar", {"shape": []}),
    ("view", "scalar", {"shape": [1]}),
    ("view", "scalar", {"shape": [-1]}),
    ("view", "scalar", {"shape": [1, 1]}),
    ("view", "scalar", {"shape": [2]}),
    ("view", "scalar_off", {"shape": [1, 1, 1]}),
    ("view", "one", {"shape": []}),
    ("view", "e203", {"shape": [0]}),
    ("view", "e203", {"shape": [-1]}),
    ("view", "e203", {"shape": [3, 0, 2]}),
    ("view", "e203", {"shape": [2, 0, 3]}),
    ("view", "e203", {"shape": [-1, 0]}),
    ("view", "e203", {"shape": [0, -1]}),
    ("view", "e203", {"shape": [1, 0]}),
    ("view", "e30t", {"shape": [3, 0]}),
    ("view", "e30t", {"shape": [0, 3]}),
    ("view", "e30t", {"shape": [5, 0]}),
    ("view", "odd1", {"shape": [6]}),
    ("view", "odd1", {"shape": [2, 3]}),
    ("view", "odd1", {"shape": [2, 3, 1]}),
    ("view", "odd13", {"shape": [3]}),
    ("view", "c1314", {"shape": [3, 4]}),
    ("view", "c1314", {"shape": [1, 12, 1]}),
    # --- reshape ------------------------------------------------------------
    ("reshape", "c34", {"shape": [2, 6]}),
    ("reshape", "c34", {"shape": [-1]}),
    ("reshape", "c34", {"shape": [5, -1]}),
    ("reshape", "c34", {"shape": [-1, -1]}),
    ("reshape", "t43", {"shape": [12]}),
    ("reshape", "t43", {"shape": [3, 4]}),
    ("reshape", "t43", {"shape": [4, 3, 1]}),
    ("reshape", "t43", {"shape": [2, 2, 3]}),
    ("reshape", "t34", {"shape": [-1]}),
    ("reshape", "t34", {"shape": [1, 12, 1]}),
    ("reshape", "perm", {"shape": [24]}),
    ("reshape", "perm", {"shape": [4, 6]}),
    ("reshape", "step", {"shape": [12]}),
    ("reshape", "step_gap", {"shape": [12]}),
    ("reshape", "step_gap", {"shape": [2, 6]}),
    ("reshape", "exp34", {"shape": [12]}),
    ("reshape", "exp34", {"shape": [2, 6]}),
    ("reshape", "exp43", {"shape": [12]}),
    ("reshape", "scalar", {"shape": [1]}),
    ("reshape", "scalar_off", {"shape": []}),
    ("reshape", "scalar", {"shape": [2]}),
    ("reshape", "e30t", {"shape": [0, 3]}),
    ("reshape", "e203", {"shape": [-1, 0]}),
    ("reshape", "e203", {"shape": [6, 0]}),
    ("reshape", "rows", {"shape": [4, 2]}),
    ("reshape", "step1d", {"shape": [5, 1]}),
    # --- as_strided ---------------------------------------------------------
    ("as_strided", "c34", {"size": [2, 2], "stride": [1, 2], "storage_offset": None}),
    ("as_strided", "c34", {"size": [2, 2], "stride": [1, 2], "storage_offset": 3}),
    ("as_strided", "c34", {"size": [12], "stride": [1], "storage_offset": 0}),
    ("as_strided", "c34", {"size": [13], "stride": [1], "storage_offset": 0}),
    ("as_strided", "c34", {"size": [2], "stride": [1], "storage_offset": 11}),
    ("as_strided", "c34", {"size": [3], "stride": [-1], "storage_offset": 2}),
    ("as_strided", "c34", {"size": [2, 2], "stride": [1], "storage_offset": None}),
    ("as_strided", "c34", {"size": [], "stride": [], "storage_offset": 11}),
    ("as_strided", "c34", {"size": [0], "stride": [1], "storage_offset": 100}),
    ("as_strided", "c34", {"size": [4, 3], "stride": [0, 1], "storage_offset": None}),
    ("as_strided", "c34", {"size": [2], "stride": [1], "storage_offset": -1}),
    ("as_strided", "rows", {"size": [2], "stride": [3], "storage_offset": None}),
    ("as_strided", "rows", {"size": [3], "stride": [3], "storage_offset": None}),
    ("as_strided", "scalar_off", {"size": [], "stride": [], "storage_offset": None}),
    ("as_strided", "scalar_off", {"size": [1, 1], "stride": [5, 7], "storage_offset": None}),
    ("as_strided", "empty", {"size": [1], "stride": [1], "storage_offset": 0}),
    # --- permute ------------------------------------------------------------
    ("permute", "c234", {"dims": [2, 0, 1]}),
    ("permute", "c234", {"dims": [-1, 0, 1]}),
    ("permute", "c234", {"dims": [0, 1, 2]}),
    ("permute", "c2345", {"dims": [3, 1, 0, 2]}),
    ("permute", "perm", {"dims": [1, 2, 0]}),
    ("permute", "e203", {"dims": [1, 2, 0]}),
    ("permute", "scalar", {"dims": []}),
    ("permute", "scalar", {"dims": [0]}),
    ("permute", "c234", {"dims": [0, 0, 1]}),
    ("permute", "c234", {"dims": [0, -3, 1]}),
    ("permute", "c234", {"dims": [0, 1, 3]}),
    ("permute", "c234", {"dims": [0, 1]}),
    # --- transpose ----------------------------------------------------------
    ("transpose", "c34", {"dim0": 0, "dim1": 1}),
    ("transpose", "c34", {"dim0": 1, "dim1": 0}),
    ("transpose", "c34", {"dim0": -1, "dim1": -2}),
    ("transpose", "c34", {"dim0": 0, "dim1": 0}),
    ("transpose", "c234", {"dim0": 0, "dim1": 2}),
    ("transpose", "c234", {"dim0": -3, "dim1": -1}),
    ("transpose", "step", {"dim0": 0, "dim1": 1}),
    ("transpose", "e203", {"dim0": 0, "dim1": 1}),
    ("transpose", "scalar", {"dim0": 0, "dim1": -1}),
    ("transpose", "scalar", {"dim0": 0, "dim1": 1}),
    ("transpose", "c34", {"dim0": 0, "dim1": 2}),
    ("transpose", "c34", {"dim0": -3, "dim1": 0}),
    # --- t ------------------------------------------------------------------
    ("t", "c34", {}),
    ("t", "t43", {}),
    ("t", "step1d", {}),
    ("t", "scalar_off", {}),
    ("t", "e04", {}),
    ("t", "c234", {}),
    # --- expand -------------------------------------------------------------
    ("expand", "c34", {"size": [2, 3, 4]}),
    ("expand", "c34", {"size": [-1, 4]}),
    ("expand", "c34", {"size": [3, -1]}),
    ("expand", "c34", {"size": [2, -1, -1]}),
    ("expand", "c34", {"size": [1, 1, 3, 4]}),
    ("expand", "c34", {"size": [3, 4]}),
    ("expand", "c31", {"size": [3, 5]}),
    ("expand", "c31", {"size": [3, -1]}),
    ("expand", "c31", {"size": [2, 3, 0]}),
    ("expand", "c13", {"size": [0, 3]}),
    ("expand", "c3", {"size": [1, 3]}),
    ("expand", "c3", {"size": [2, 1, 3]}),
    ("expand", "exp34", {"size": [2, 3, 4]}),
    ("expand", "odd13", {"size": [1, 3]}),
    ("expand", "odd13", {"size": [2, 3]}),
    ("expand", "scalar", {"size": [2, 3]}),
    ("expand", "scalar", {"size": [1]}),
    ("expand", "scalar_off", {"size": []}),
    ("expand", "empty", {"size": [2, 0]}),
    ("expand", "one", {"size": [0]}),
    ("expand", "c34", {"size": [4]}),
    ("expand", "c34", {"size": [3, 5]}),
    ("expand", "c23", {"size": [2, 4]}),
    ("expand", "c34", {"size": [-1, 3, 4]}),
    ("expand", "empty", {"size": [3]}),
    # --- narrow -------------------------------------------------------------
    ("narrow", "c34", {"dim": 0, "start": 1, "length": 2}),
    ("narrow", "c34", {"dim": 1, "start": -2, "length": 2}),
    ("narrow", "c34", {"dim": 1, "start": 4, "length": 0}),
    ("narrow", "c34", {"dim": -1, "start": 0, "length": 4}),
    ("narrow", "c34", {"dim": 1, "start": -4, "length": 1}),
    ("narrow", "step", {"dim": 1, "start": 1, "length": 2}),
    ("narrow", "e203", {"dim": 1, "start": 0, "length": 0}),
    ("narrow", "c34", {"dim": 1, "start": 5, "length": 0}),
    ("narrow", "c34", {"dim": 1, "start": -5, "length": 1}),
    ("narrow", "c34", {"dim": 1, "start": 2, "length": 3}),
    ("narrow", "c34", {"dim": 1, "start": 0, "length": -1}),
    ("narrow", "c34", {"dim": 2, "start": 0, "length": 1}),
    ("narrow", "scalar", {"dim": 0, "start": 0, "length": 1}),
    # --- slice --------------------------------------------------------------
    ("slice", "c34", {"dim": 1, "start": 1, "end": 3, "step": 1}),
    ("slice", "c34", {"dim": 1, "start": None, "end": None, "step": 2}),
    ("slice", "c34", {"dim": 1, "start": -3, "end": None, "step": 2}),
    ("slice", "c34", {"dim": -1, "start": None, "end": -1, "step": 1}),
    ("slice", "c34", {"dim": 1, "start": 10, "end": 20, "step": 1}),
    ("slice", "c34", {"dim": 1, "start": -10, "end": -20, "step": 1}),
    ("slice", "c34", {"dim": 1, "start": 3, "end": 1, "step": 1}),
    ("slice", "c34", {"dim": 1, "start": -10, "end": 10, "step": 3}),
    ("slice", "c34", {"dim": 0, "start": 1, "end": None, "step": 5}),
    ("slice", "c34", {"dim": 0, "start": 2, "end": 3, "step": 2}),
    ("slice", "step", {"dim": 0, "start": None, "end": None, "step": 2}),
    ("slice", "step1d", {"dim": 0, "start": 1, "end": -1, "step": 3}),
    ("slice", "exp34", {"dim": 0, "start": 1, "end": None, "step": 1}),
    ("slice", "e203", {"dim": 1, "start": 0, "end": 5, "step": 1}),
    ("slice", "e203", {"dim": 2, "start": 1, "end": None, "step": 1}),
    ("slice", "c34", {"dim": 1, "start": None, "end": None, "step": 0}),
    ("slice", "c34", {"dim": 1, "start": None, "end": None, "step": -1}),
    ("slice", "c34", {"dim": 2, "start": None, "end": None, "step": 1}),
    ("slice", "scalar", {"dim": 0, "start": None, "end": None, "step": 1}),
    # --- select -------------------------------------------------------------
    ("select", "c34", {"dim": 0, "index": 1}),
    ("select", "c34", {"dim": 1, "index": -1}),
    ("select", "c34", {"dim": 0, "index": -3}),
    ("select", "t43", {"dim": 1, "index": 2}),
    ("select", "step1d", {"dim": 0, "index": 4}),
    ("select", "e203", {"dim": 0, "index": 1}),
    ("select", "c234", {"dim": -2, "index": 2}),
    ("select", "c34", {"dim": 0, "index": 3}),
    ("select", "c34", {"dim": 0, "index": -4}),
    ("select", "c34", {"dim": 2, "index": 0}),
    ("select", "e203", {"dim": 1, "index": 0}),
    ("select", "scalar", {"dim": 0, "index": 0}),
    # --- squeeze ------------------------------------------------------------
    ("squeeze", "c314", {}),
    ("squeeze", "ones", {}),
    ("squeeze", "scalar_off", {}),
    ("squeeze", "odd1", {}),
    ("squeeze", "c1314", {}),
    ("squeeze", "c34", {}),
    ("squeeze_dim", "c314", {"dim": 1}),
    ("squeeze_dim", "c314", {"dim": 0}),
    ("squeeze_dim", "c314", {"dim": -2}),
    ("squeeze_dim", "scalar", {"dim": 0}),
    ("squeeze_dim", "scalar", {"dim": -1}),
    ("squeeze_dim", "one", {"dim": 0}),
    ("squeeze_dim", "scalar", {"dim": 1}),
    ("squeeze_dim", "c314", {"dim": 3}),
    ("squeeze_dims", "c1314", {"dims": [0, 2]}),
    ("squeeze_dims", "c1314", {"dims": [0, 1]}),
    ("squeeze_dims", "c1314", {"dims": [-2, -4]}),
    ("squeeze_dims", "c1314", {"dims": []}),
    ("squeeze_dims", "scalar", {"dims": [0]}),
    ("squeeze_dims", "c1314", {"dims": [0, -4]}),
    ("squeeze_dims", "c1314", {"dims": [4]}),
    # --- unsqueeze ----------------------------------------------------------
    ("unsqueeze", "c34", {"dim": 0}),
    ("unsqueeze", "c34", {"dim": 1}),
    ("unsqueeze", "c34", {"dim": 2}),
    ("unsqueeze", "c34", {"dim": -1}),
    ("unsqueeze", "c34", {"dim": -3}),
    ("unsqueeze", "t43", {"dim": 1}),
    ("unsqueeze", "e203", {"dim": 1}),
    ("unsqueeze", "exp34", {"dim": 0}),
    ("unsqueeze", "scalar", {"dim": 0}),
    ("unsqueeze", "scalar_off", {"dim": -1}),
    ("unsqueeze", "c34", {"dim": 3}),
    ("unsqueeze", "c34", {"dim": -4}),
    ("unsqueeze", "scalar", {"dim": 1}),
    # --- flatten ------------------------------------------------------------
    ("flatten", "c234", {"start_dim": 0, "end_dim": -1}),
    ("flatten", "c234", {"start_dim": 1, "end_dim": 2}),
    ("flatten", "c234", {"start_dim": 0, "end_dim": 1}),
    ("flatten", "c234", {"start_dim": 1, "end_dim": 1}),
    ("flatten", "perm", {"start_dim": 0, "end_dim": -1}),
    ("flatten", "perm", {"start_dim": 1, "end_dim": 2}),
    ("flatten", "t43", {"start_dim": 0, "end_dim": 1}),
    ("flatten", "exp34", {"start_dim": 0, "end_dim": 1}),
    ("flatten", "step", {"start_dim": 0, "end_dim": 1}),
    ("flatten", "step_gap", {"start_dim": 0, "end_dim": 1}),
    ("flatten", "e203", {"start_dim": 0, "end_dim": 1}),
    ("flatten", "scalar", {"start_dim": 0, "end_dim": -1}),
    ("flatten", "scalar_off", {"start_dim": 0, "end_dim": 0}),
    ("flatten", "one", {"start_dim": 0, "end_dim": 0}),
    ("flatten", "c234", {"start_dim": -1, "end_dim": 0}),
    ("flatten", "c234", {"start_dim": 0, "end_dim": 3}),
    # --- unflatten ----------------------------------------------------------
    ("unflatten", "c34", {"dim": 1, "sizes": [2, 2]}),
    ("unflatten", "c34", {"dim": -1, "sizes": [2, -1]}),
    ("unflatten", "c34", {"dim": 0, "sizes": [3, 1]}),
    ("unflatten", "c34", {"dim": 0, "sizes": [-1]}),
    ("unflatten", "t43", {"dim": 0, "sizes": [2, 2]}),
    ("unflatten", "step1d", {"dim": 0, "sizes": [1, 5, 1]}),
    ("unflatten", "exp34", {"dim": 0, "sizes": [3, 1]}),
    ("unflatten", "e203", {"dim": 1, "sizes": [0, 5]}),
    ("unflatten", "e203", {"dim": 0, "sizes": [2, 1]}),
    ("unflatten", "c34", {"dim": 1, "sizes": [2, 3]}),
    ("unflatten", "c34", {"dim": 1, "sizes": [-1, -1]}),
    ("unflatten", "c34", {"dim": 1, "sizes": [3, -1]}),
    ("unflatten", "c34", {"dim": 1, "sizes": []}),
    ("unflatten", "c34", {"dim": 2, "sizes": [2, 2]}),
    ("unflatten", "e203", {"dim": 1, "sizes": [-1, 0]}),
    ("unflatten", "scalar", {"dim": 0, "sizes": [1]}),
    # --- diagonal -----------------------------------------------------------
    ("diagonal", "c34", {"offset": 0, "dim1": 0, "dim2": 1}),
    ("diagonal", "c34", {"offset": 1, "dim1": 0, "dim2": 1}),
    ("diagonal", "c34", {"offset": -1, "dim1": 0, "dim2": 1}),
    ("diagonal", "c34", {"offset": 2, "dim1": 1, "dim2": 0}),
    ("diagonal", "c34", {"offset": 10, "dim1": 0, "dim2": 1}),
    ("diagonal", "c34", {"offset": -10, "dim1": 0, "dim2": 1}),
    ("diagonal", "c34", {"offset": 4, "dim1": 0, "dim2": 1}),
    ("diagonal", "c234", {"offset": 0, "dim1": 0, "dim2": 2}),
    ("diagonal", "c234", {"offset": -1, "dim1": -1, "dim2": 1}),
    ("diagonal", "t43", {"offset": 0, "dim1": 0, "dim2": 1}),
    ("diagonal", "e203", {"offset": 0, "dim1": 0, "dim2": 2}),
    ("diagonal", "e203", {"offset": 1, "dim1": 2, "dim2": 0}),
    ("diagonal", "exp34", {"offset": 1, "dim1": 0, "dim2": 1}),
    ("diagonal", "c34", {"offset": 0, "dim1": 0, "dim2": -2}),
    ("diagonal", "c34", {"offset": 0, "dim1": 0, "dim2": 2}),
    ("diagonal", "c3", {"offset": 0, "dim1": 0, "dim2": 1}),
    ("diagonal", "scalar", {"offset": 0, "dim1": 0, "dim2": -1}),
    # --- alias --------------------------------------------------------------
    ("alias", "c34", {}),
    ("alias", "scalar_off", {}),
    ("alias", "e30t", {}),
]


def storage_numel(sizes, strides, offset):
    """Elements a geometry needs from index 0 (0 when it has no element)."""
    if any(s == 0 for s in sizes):
        return 0
    return offset + sum((n - 1) * st for n, st in zip(sizes, strides)) + 1


def input_record(name):
    sizes, strides, offset = INPUTS[name]
    return {
        "sizes": list(sizes),
        "strides": list(strides),
        "offset": offset,
        "storage": storage_numel(sizes, strides, offset),
    }


def format_cases(cases):
    """The file's text: a JSON list, one case per line, keys sorted."""
    lines = [json.dumps(c, sort_keys=True) for c in cases]
    return "[\n" + ",\n".join(lines) + "\n]\n"


def build_cases(expect_fn):
    """Runs expect_fn(op, input_record, args) over CASES; it returns the
    "expect" object of each case."""
    out = []
    for op, name, args in CASES:
        inp = input_record(name)
        out.append({"op": op, "input": inp, "args": args, "expect": expect_fn(op, inp, args)})
    return out


def torch_call(torch, op, x, a):
    """Runs one case through the ATen overload clops implements."""
    aten = torch.ops.aten
    if op == "view":
        return aten.view.default(x, a["shape"])
    if op == "reshape":
        return aten.reshape.default(x, a["shape"])
    if op == "as_strided":
        return aten.as_strided.default(x, a["size"], a["stride"], a["storage_offset"])
    if op == "permute":
        return aten.permute.default(x, a["dims"])
    if op == "transpose":
        return aten.transpose.int(x, a["dim0"], a["dim1"])
    if op == "t":
        return aten.t.default(x)
    if op == "expand":
        return aten.expand.default(x, a["size"])
    if op == "narrow":
        return aten.narrow.default(x, a["dim"], a["start"], a["length"])
    if op == "slice":
        return aten.slice.Tensor(x, a["dim"], a["start"], a["end"], a["step"])
    if op == "select":
        return aten.select.int(x, a["dim"], a["index"])
    if op == "squeeze":
        return aten.squeeze.default(x)
    if op == "squeeze_dim":
        return aten.squeeze.dim(x, a["dim"])
    if op == "squeeze_dims":
        return aten.squeeze.dims(x, a["dims"])
    if op == "unsqueeze":
        return aten.unsqueeze.default(x, a["dim"])
    if op == "flatten":
        return aten.flatten.using_ints(x, a["start_dim"], a["end_dim"])
    if op == "unflatten":
        return aten.unflatten.int(x, a["dim"], a["sizes"])
    if op == "diagonal":
        return aten.diagonal.default(x, a["offset"], a["dim1"], a["dim2"])
    if op == "alias":
        return aten.alias.default(x)
    raise ValueError("unknown op " + op)


def torch_expect(torch):
    """The expect_fn that asks PyTorch."""

    def expect(op, inp, args):
        base = torch.empty(inp["storage"], dtype=torch.float32)
        x = base.as_strided(inp["sizes"], inp["strides"], inp["offset"])
        try:
            out = torch_call(torch, op, x, args)
        except Exception as e:  # the exception type is the expected outcome
            return {"error": type(e).__name__}
        # A view shares base's storage (its _base is base, or it is x
        # itself); a copy has a storage of its own.
        shares = out is x or out._base is base
        return {
            "sizes": list(out.shape),
            "strides": list(out.stride()),
            "offset": out.storage_offset(),
            "is_view": bool(shares),
        }

    return expect


def main(argv):
    import torch

    path = argv[1] if len(argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                      "view_cases.json")
    text = format_cases(build_cases(torch_expect(torch)))
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    print("wrote %d cases to %s (torch %s)" % (len(CASES), path, torch.__version__))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
