#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes tests/data/golden_index.json: PyTorch's answers for the indexing
family (result shapes of advanced indexing, negative indices, duplicate
indices, empty index tensors, zero-size inputs, errors), read by
tests/test_index_golden.c.  Run with the PyTorch venv:

    /work/torchenv/bin/python tests/data/gen_golden_index.py

Each case: {"op": schema name, "args": [boxed args], "result": tensor |
{"list": [tensors]} | {"error": true}}.  Tensor values are row-major lists;
float inputs hold small integers so JSON is exact.
"""
import json
import os

import torch

DT = {torch.float32: "float32", torch.float64: "float64", torch.int64: "int64",
      torch.int32: "int32", torch.bool: "bool", torch.uint8: "uint8", torch.int8: "int8",
      torch.float16: "float16", torch.int16: "int16", torch.bfloat16: "bfloat16"}


def jv(v):
    """JSON has no NaN or infinities: they travel as strings."""
    if isinstance(v, float) and (v != v or v in (float("inf"), float("-inf"))):
        return str(v)
    return v


def T(x):
    vals = x.reshape(-1).tolist() if x.dtype != torch.bfloat16 else x.float().reshape(-1).tolist()
    return {"t": {"dtype": DT[x.dtype], "shape": list(x.shape), "values": [jv(v) for v in vals]}}


def TL(xs):
    return {"tl": [T(x)["t"] if x is not None else None for x in xs]}


def I(v):
    return {"i": v}


def IL(v):
    return {"ints": list(v)}


def S(v):
    return {"s": v}


def B(v):
    return {"b": v}


NONE = {"none": True}
cases = []


def case(op, args, fn):
    try:
        r = fn()
    except Exception as e:  # noqa: BLE001 - every PyTorch error is an expected error here
        cases.append({"op": op, "args": args, "result": {"error": True}, "why": str(e)[:120]})
        return
    if isinstance(r, (tuple, list)):
        cases.append({"op": op, "args": args, "result": {"list": [T(t)["t"] for t in r]}})
    else:
        cases.append({"op": op, "args": args, "result": T(r)})


def ar(*shape, dtype=torch.float32, start=0):
    n = 1
    for s in shape:
        n *= s
    return (torch.arange(n) + start).to(dtype).reshape(shape)


x = ar(4, 5)
x3 = ar(3, 4, 5)
L = torch.int64

# index_select
for dim, idx in [(0, [3, 0, 3]), (1, [4, 4, 0, 2]), (1, []), (-1, [1])]:
    it = torch.tensor(idx, dtype=L)
    case("index_select", [T(x), I(dim), T(it)], lambda: torch.index_select(x, dim, it))
i32 = torch.tensor([2, 1], dtype=torch.int32)
case("index_select", [T(x3), I(2), T(i32)], lambda: torch.index_select(x3, 2, i32))
for bad in ([4], [-1]):
    it = torch.tensor(bad)
    case("index_select", [T(x), I(0), T(it)], lambda: torch.index_select(x, 0, it))
z = ar(0, 3)
case("index_select", [T(z), I(1), T(torch.tensor([2, 0]))], lambda: torch.index_select(z, 1, torch.tensor([2, 0])))
s0 = torch.tensor(7.)
case("index_select", [T(s0), I(0), T(torch.tensor([0]))], lambda: torch.index_select(s0, 0, torch.tensor([0])))

# gather
g = torch.tensor([[0, 0, 3], [1, 2, 2]])
case("gather", [T(x), I(0), T(g)], lambda: torch.gather(x, 0, g))
g1 = torch.tensor([[4, 4], [0, 1], [2, 2], [3, 0]])
case("gather", [T(x), I(1), T(g1)], lambda: torch.gather(x, 1, g1))
case("gather", [T(x), I(1), T(torch.tensor([[5]]))], lambda: torch.gather(x, 1, torch.tensor([[5]])))
case("gather", [T(x), I(1), T(torch.tensor([[-1]]))], lambda: torch.gather(x, 1, torch.tensor([[-1]])))
ge = torch.zeros(4, 0, dtype=L)
case("gather", [T(x), I(1), T(ge)], lambda: torch.gather(x, 1, ge))
g3 = torch.tensor([[[1, 0], [2, 2]], [[0, 0], [1, 1]]])
case("gather", [T(x3), I(0), T(g3)], lambda: torch.gather(x3, 0, g3))

# take / take_along_dim
tk = torch.tensor([[0, -1], [19, -20]])
case("take", [T(x), T(tk)], lambda: torch.take(x, tk))
case("take", [T(x), T(torch.tensor([20]))], lambda: torch.take(x, torch.tensor([20])))
case("take", [T(x), T(torch.tensor([-21]))], lambda: torch.take(x, torch.tensor([-21])))
ta = torch.tensor([[0], [-1], [2], [4]])
case("take_along_dim", [T(x), T(ta), I(1)], lambda: torch.take_along_dim(x, ta, 1))
tb = torch.tensor([[1, 3, 0, -1, 2]])
case("take_along_dim", [T(x), T(tb), I(0)], lambda: torch.take_along_dim(x, tb, 0))
tc = torch.tensor([3, -2, 19])
case("take_along_dim", [T(x), T(tc), NONE], lambda: torch.take_along_dim(x, tc))

# embedding
w = ar(6, 3)
ei = torch.tensor([[5, 0, 5], [2, 2, 1]])
case("embedding", [T(w), T(ei)], lambda: torch.nn.functional.embedding(ei, w))
ei32 = torch.tensor([1, 4], dtype=torch.int32)
case("embedding", [T(w), T(ei32)], lambda: torch.nn.functional.embedding(ei32, w))
case("embedding", [T(w), T(torch.tensor([6]))], lambda: torch.nn.functional.embedding(torch.tensor([6]), w))
case("embedding", [T(w), T(torch.tensor([-1]))], lambda: torch.nn.functional.embedding(torch.tensor([-1]), w))
case("embedding", [T(w), T(torch.zeros(0, dtype=L))], lambda: torch.nn.functional.embedding(torch.zeros(0, dtype=L), w))

# index.Tensor
a = torch.tensor([2, -1, 0])
b = torch.tensor([[1], [3]])
c = torch.tensor([0, 4, -5])
m = torch.tensor([True, False, True, False])
m2 = (x.remainder(3) == 0)
adv = [
    ("x[a]", x, [a]),
    ("x[:, c]", x, [None, c]),
    ("x[b, c]", x, [b, c]),
    ("x3[a, :, c]", x3, [a, None, c]),
    ("x3[:, b, c]", x3, [None, b, torch.tensor([1, 2, 3])]),
    ("x3[b]", x3, [b]),
    ("x[m]", x, [m]),
    ("x[m2]", x, [m2]),
    ("x3[:, m]", x3, [None, m]),
    ("x3[m3]", x3, [x3.remainder(4) == 1]),
    ("x3[:, m2']", x3, [None, x3[0, :, :].remainder(3) == 1]),
    ("x[none true]", x, [torch.zeros(4, dtype=torch.bool)]),
    ("x[m, c]", x, [m, torch.tensor([1, -1])]),
    ("x[empty]", x, [torch.zeros(0, dtype=L)]),
    ("x[i32]", x, [torch.tensor([3, 1], dtype=torch.int32)]),
    ("x[oob]", x, [torch.tensor([4])]),
    ("x[neg oob]", x, [None, torch.tensor([-6])]),
    ("z[idx]", ar(0, 3), [None, torch.tensor([1, 1])]),
]
for name, src, idx in adv:
    case("index.Tensor", [T(src), TL(idx)], lambda: src[tuple(slice(None) if i is None else i for i in idx)])

# cat / stack
xi = ar(2, 5, dtype=torch.int32)
case("cat", [TL([x, xi]), I(0)], lambda: torch.cat([x, xi], 0))
case("cat", [TL([x, ar(4, 2), ar(4, 0)]), I(-1)], lambda: torch.cat([x, ar(4, 2), ar(4, 0)], -1))
case("cat", [TL([torch.zeros(0), x]), I(0)], lambda: torch.cat([torch.zeros(0), x], 0))
case("cat", [TL([x, ar(3, 4)]), I(0)], lambda: torch.cat([x, ar(3, 4)], 0))
case("cat", [TL([ar(2, dtype=torch.bool), ar(3, dtype=torch.uint8)]), I(0)],
     lambda: torch.cat([ar(2, dtype=torch.bool), ar(3, dtype=torch.uint8)], 0))
case("stack", [TL([x, x + 1]), I(1)], lambda: torch.stack([x, x + 1], 1))
case("stack", [TL([x, x + 1]), I(-1)], lambda: torch.stack([x, x + 1], -1))
case("stack", [TL([x, ar(5, 4)]), I(0)], lambda: torch.stack([x, ar(5, 4)], 0))

# splitting
case("split.Tensor", [T(x), I(3), I(1)], lambda: torch.split(x, 3, 1))
case("split.Tensor", [T(ar(0, 2)), I(0), I(0)], lambda: torch.split(ar(0, 2), 0, 0))
case("split_with_sizes", [T(x), IL([1, 0, 3]), I(0)], lambda: torch.split(x, [1, 0, 3], 0))
case("split_with_sizes", [T(x), IL([1, 2]), I(0)], lambda: torch.split(x, [1, 2], 0))
case("chunk", [T(x), I(3), I(1)], lambda: torch.chunk(x, 3, 1))
case("chunk", [T(ar(0, 2)), I(3), I(0)], lambda: torch.chunk(ar(0, 2), 3, 0))
case("chunk", [T(ar(6)), I(4), I(0)], lambda: torch.chunk(ar(6), 4, 0))
case("unbind.int", [T(x3), I(1)], lambda: torch.unbind(x3, 1))
case("tensor_split.sections", [T(ar(7)), I(3), I(0)], lambda: torch.tensor_split(ar(7), 3, 0))
case("tensor_split.indices", [T(x), IL([1, -1, 9]), I(1)], lambda: torch.tensor_split(x, [1, -1, 9], 1))
case("tensor_split.tensor_indices_or_sections", [T(x), T(torch.tensor(2)), I(0)],
     lambda: torch.tensor_split(x, torch.tensor(2), 0))
case("tensor_split.tensor_indices_or_sections", [T(x), T(torch.tensor([1, 3])), I(1)],
     lambda: torch.tensor_split(x, torch.tensor([1, 3]), 1))

# layout
case("flip", [T(x3), IL([0, 2])], lambda: torch.flip(x3, [0, 2]))
case("flip", [T(x), IL([0, 0])], lambda: torch.flip(x, [0, 0]))
case("roll", [T(x), IL([2]), IL([])], lambda: torch.roll(x, 2))
case("roll", [T(x3), IL([1, -7]), IL([0, 2])], lambda: torch.roll(x3, [1, -7], [0, 2]))
case("repeat", [T(ar(2, 3)), IL([2, 1, 3])], lambda: ar(2, 3).repeat(2, 1, 3))
case("repeat", [T(ar(2, 3)), IL([0, 2])], lambda: ar(2, 3).repeat(0, 2))
case("repeat", [T(ar(2, 3)), IL([2])], lambda: ar(2, 3).repeat(2))
for k in (0, 1, -2, 9):
    case("tril", [T(x3), I(k)], lambda: torch.tril(x3, k))
    case("triu", [T(x3), I(k)], lambda: torch.triu(x3, k))
case("tril", [T(ar(5)), I(0)], lambda: torch.tril(ar(5)))
case("constant_pad_nd", [T(x), IL([1, 2]), S(7)], lambda: torch.constant_pad_nd(x, [1, 2], 7))
case("constant_pad_nd", [T(x3), IL([-1, 2, 0, -3]), S(-1)], lambda: torch.constant_pad_nd(x3, [-1, 2, 0, -3], -1))
case("constant_pad_nd", [T(x), IL([-3, -3]), S(0)], lambda: torch.constant_pad_nd(x, [-3, -3]))


# writing ops: duplicates accumulate in order, negative indices, errors
xs = ar(3, 5)
si = torch.tensor([[0, 1, 2, 0, 0], [2, 0, 0, 1, 2]])
src = ar(2, 5, start=1)
case("scatter.src", [T(xs), I(0), T(si), T(src)], lambda: xs.scatter(0, si, src))
case("scatter.value", [T(xs), I(1), T(torch.tensor([[4], [0]])), S(-2)],
     lambda: xs.scatter(1, torch.tensor([[4], [0]]), -2))
case("scatter.reduce", [T(xs), I(0), T(si), T(src), {"str": "multiply"}],
     lambda: xs.scatter(0, si, src, reduce="multiply"))
case("scatter_add", [T(xs), I(0), T(si), T(src)], lambda: xs.scatter_add(0, si, src))
dup = torch.tensor([[0, 0, 0, 0, 0, 3, 3, 1]])
dsrc = ar(1, 8, start=1)
case("scatter_add", [T(ar(1, 5)), I(1), T(dup), T(dsrc)], lambda: ar(1, 5).scatter_add(1, dup, dsrc))
case("scatter_add", [T(xs), I(1), T(torch.tensor([[5]])), T(src)], lambda: xs.scatter_add(1, torch.tensor([[5]]), src))
case("scatter_add", [T(xs), I(1), T(torch.tensor([[-1]])), T(src)], lambda: xs.scatter_add(1, torch.tensor([[-1]]), src))
case("scatter_add", [T(xs), I(1), T(torch.zeros(0, dtype=L).reshape(0, 0)), T(src)],
     lambda: xs.scatter_add(1, torch.zeros(0, dtype=L).reshape(0, 0), src))
for red in ("sum", "prod", "mean", "amax", "amin"):
    for inc in (True, False):
        case("scatter_reduce.two", [T(ar(1, 5)), I(1), T(dup), T(dsrc), {"str": red}, B(inc)],
             lambda: ar(1, 5).scatter_reduce(1, dup, dsrc, red, include_self=inc))
xi64 = ar(1, 5, dtype=torch.int64, start=-2)
case("scatter_reduce.two", [T(xi64), I(1), T(dup), T(ar(1, 8, dtype=torch.int64, start=-3)), {"str": "mean"}, B(True)],
     lambda: xi64.scatter_reduce(1, dup, ar(1, 8, dtype=torch.int64, start=-3), "mean", include_self=True))
ia = torch.tensor([1, 3, 1, 1])
case("index_add", [T(ar(4, 3)), I(0), T(ia), T(ar(4, 3, start=5)), S(2)],
     lambda: ar(4, 3).index_add(0, ia, ar(4, 3, start=5), alpha=2))
case("index_add", [T(ar(4, 3)), I(1), T(torch.tensor([2, 2], dtype=torch.int32)), T(ar(4, 2)), S(1)],
     lambda: ar(4, 3).index_add(1, torch.tensor([2, 2], dtype=torch.int32), ar(4, 2)))
case("index_add", [T(ar(4, 3)), I(0), T(torch.tensor([4])), T(ar(1, 3)), S(1)],
     lambda: ar(4, 3).index_add(0, torch.tensor([4]), ar(1, 3)))
case("index_copy", [T(ar(4, 3)), I(0), T(torch.tensor([3, 0])), T(ar(2, 3, start=50))],
     lambda: ar(4, 3).index_copy(0, torch.tensor([3, 0]), ar(2, 3, start=50)))
case("index_fill.int_Scalar", [T(ar(4, 3)), I(1), T(torch.tensor([-1, 0])), S(9)],
     lambda: ar(4, 3).index_fill(1, torch.tensor([-1, 0]), 9))
case("index_fill.int_Tensor", [T(ar(4, 3)), I(0), T(torch.tensor([2])), T(torch.tensor(-4.))],
     lambda: ar(4, 3).index_fill(0, torch.tensor([2]), torch.tensor(-4.)))
pv = ar(3, start=100)
for name, idx, vals, acc in [
    ("x[a] = v acc", [torch.tensor([0, 2, 0])], ar(3, 5), True),
    ("x[a] = v", [torch.tensor([1, -1])], ar(2, 5, start=30), False),
    ("x[:, c] += v", [None, torch.tensor([4, 4, 0])], ar(3), True),
    ("x[b, c] += s", [torch.tensor([[0], [1]]), torch.tensor([1, 1, 2])], torch.tensor(5.), True),
    ("x[m] = v", [torch.tensor([True, False, True])], ar(5), False),
    ("x[m2] += v", [ar(3, 5, dtype=torch.int64).remainder(3) == 2], ar(5, start=7), True),
    ("x[oob]", [torch.tensor([3])], ar(5), False),
]:
    base = ar(3, 5)
    case("index_put", [T(base), TL(idx), T(vals), B(acc)],
         lambda: torch.ops.aten.index_put(base, idx, vals, acc))
case("put", [T(ar(3, 4)), T(torch.tensor([0, -1, 0, 5])), T(ar(4, start=10)), B(True)],
     lambda: ar(3, 4).put(torch.tensor([0, -1, 0, 5]), ar(4, start=10), accumulate=True))
case("put", [T(ar(3, 4)), T(torch.tensor([[1, 12]])), T(ar(1, 2)), B(False)],
     lambda: ar(3, 4).put(torch.tensor([[1, 12]]), ar(1, 2)))
go = ar(2, 3, 4, start=1)
ei2 = torch.tensor([[0, 2, 0], [4, 2, 0]])
for pad, sc in [(-1, False), (2, False), (-1, True)]:
    case("embedding_dense_backward", [T(go), T(ei2), I(5), I(pad), B(sc)],
         lambda: torch.ops.aten.embedding_dense_backward(go, ei2, 5, pad, sc))
case("one_hot", [T(torch.tensor([[0, 3], [1, 1]])), I(-1)],
     lambda: torch.nn.functional.one_hot(torch.tensor([[0, 3], [1, 1]])))
case("one_hot", [T(torch.tensor([0, 3])), I(3)], lambda: torch.nn.functional.one_hot(torch.tensor([0, 3]), 3))


# padding, diagonals, repeats, factories
DEV = {"dev": True}
p1 = ar(2, 5)
case("reflection_pad1d", [T(p1), IL([2, 4])], lambda: torch.ops.aten.reflection_pad1d(p1, [2, 4]))
case("reflection_pad1d", [T(p1), IL([5, 0])], lambda: torch.ops.aten.reflection_pad1d(p1, [5, 0]))
p2 = ar(2, 3, 4)
case("reflection_pad2d", [T(p2), IL([1, 3, 2, 0])], lambda: torch.ops.aten.reflection_pad2d(p2, [1, 3, 2, 0]))
case("replication_pad1d", [T(p1), IL([3, -1])], lambda: torch.ops.aten.replication_pad1d(p1, [3, -1]))
case("replication_pad2d", [T(ar(1, 2, 3, 4)), IL([2, 1, 0, 3])],
     lambda: torch.ops.aten.replication_pad2d(ar(1, 2, 3, 4), [2, 1, 0, 3]))
for off, d1, d2 in [(0, -2, -1), (1, 0, 2), (-2, 1, 0)]:
    case("diag_embed", [T(ar(2, 3)), I(off), I(d1), I(d2)], lambda: torch.diag_embed(ar(2, 3), off, d1, d2))
case("repeat_interleave.self_int", [T(ar(2, 3)), I(2), NONE, NONE],
     lambda: torch.repeat_interleave(ar(2, 3), 2))
case("repeat_interleave.self_int", [T(ar(2, 3)), I(3), I(1), NONE],
     lambda: torch.repeat_interleave(ar(2, 3), 3, dim=1))
rt = torch.tensor([1, 0, 2])
case("repeat_interleave.self_Tensor", [T(ar(3, 2)), T(rt), I(0), NONE],
     lambda: torch.repeat_interleave(ar(3, 2), rt, dim=0))
case("repeat_interleave.Tensor", [T(rt), NONE], lambda: torch.repeat_interleave(rt))
case("repeat_interleave.self_Tensor", [T(ar(3, 2)), T(torch.tensor([1, -1, 2])), I(0), NONE],
     lambda: torch.repeat_interleave(ar(3, 2), torch.tensor([1, -1, 2]), dim=0))
xl = ar(2, 3, dtype=torch.int32)
case("zeros_like", [T(xl), NONE, NONE, NONE, NONE, NONE], lambda: torch.zeros_like(xl))
case("ones_like", [T(xl), {"dtype": "float64"}, NONE, NONE, NONE, NONE], lambda: torch.ones_like(xl, dtype=torch.float64))
case("full_like", [T(x), S(-2.5), NONE, NONE, NONE, NONE, NONE], lambda: torch.full_like(x, -2.5))
case("scalar_tensor", [S(3), NONE, NONE, DEV, NONE], lambda: torch.scalar_tensor(3))
case("eye", [I(3), NONE, NONE, DEV, NONE], lambda: torch.eye(3))
case("eye.m", [I(2), I(4), {"dtype": "int64"}, NONE, DEV, NONE], lambda: torch.eye(2, 4, dtype=torch.int64))
case("arange", [S(5), NONE, NONE, DEV, NONE], lambda: torch.arange(5))
case("arange.start", [S(-2), S(2.5), NONE, NONE, DEV, NONE], lambda: torch.arange(-2, 2.5))
for a, b, n in [(0, 1, 5), (-3, 7, 4), (2, 2, 1), (0, 1, 0)]:
    case("linspace", [S(a), S(b), I(n), NONE, NONE, DEV, NONE], lambda: torch.linspace(a, b, n))
case("linspace", [S(0), S(10), I(6), {"dtype": "float64"}, NONE, DEV, NONE],
     lambda: torch.linspace(0, 10, 6, dtype=torch.float64))
case("logspace", [S(0), S(3), I(4), {"f": 10.0}, NONE, NONE, DEV, NONE], lambda: torch.logspace(0, 3, 4))
case("logspace", [S(-1), S(2), I(4), {"f": 2.0}, {"dtype": "float64"}, NONE, DEV, NONE],
     lambda: torch.logspace(-1, 2, 4, 2.0, dtype=torch.float64))
for r, c, o in [(3, 4, 0), (4, 3, -1), (3, 3, 1)]:
    case("tril_indices", [I(r), I(c), I(o), NONE, NONE, DEV, NONE], lambda: torch.tril_indices(r, c, o))
    case("triu_indices", [I(r), I(c), I(o), NONE, NONE, DEV, NONE], lambda: torch.triu_indices(r, c, o))


# isin
ie = torch.tensor([[1., float("nan"), -0.0], [3., 2., 7.]])
it = torch.tensor([0, 2, 7], dtype=torch.int32)
case("isin.Tensor_Tensor", [T(ie), T(it), B(False), B(False)], lambda: torch.isin(ie, it))
case("isin.Tensor_Tensor", [T(ie), T(it), B(False), B(True)], lambda: torch.isin(ie, it, invert=True))
case("isin.Tensor_Tensor", [T(ar(2, 2, dtype=torch.int64)), T(torch.zeros(0, dtype=torch.int64)), B(False), B(False)],
     lambda: torch.isin(ar(2, 2, dtype=torch.int64), torch.zeros(0, dtype=torch.int64)))
case("isin.Tensor_Scalar", [T(ar(5, dtype=torch.int64)), S(3), B(False), B(False)],
     lambda: torch.isin(ar(5, dtype=torch.int64), 3))
case("isin.Scalar_Tensor", [S(2.5), T(torch.tensor([1.0, 2.5])), B(False), B(False)],
     lambda: torch.isin(2.5, torch.tensor([1.0, 2.5])))


# masked_scatter
msk = torch.tensor([[True, False, True, False, False], [False, True, True, True, False]])
case("masked_scatter", [T(ar(2, 5)), T(msk), T(ar(2, 4, start=100))], lambda: ar(2, 5).masked_scatter(msk, ar(2, 4, start=100)))
mrow = torch.tensor([False, True, False, False, True])
case("masked_scatter", [T(ar(3, 5)), T(mrow), T(ar(7, start=50))], lambda: ar(3, 5).masked_scatter(mrow, ar(7, start=50)))
case("masked_scatter", [T(ar(2, 5)), T(msk), T(ar(3))], lambda: ar(2, 5).masked_scatter(msk, ar(3)))

# nonzero, nonzero_static, argwhere, where(condition), masked_select
nzf = torch.tensor([float("nan"), -0.0, 0.0, 1.0, -2.5, 0.0])
nzi = (ar(3, 4, dtype=torch.int64) % 3)
nzb = (ar(2, 3, 2, dtype=torch.int64) % 4 == 1)
nz_inputs = [nzf, nzi, nzb, nzi.to(torch.uint8), nzi.to(torch.int8) - 1,
             torch.tensor([[0.0, 1.5], [-0.0, 2.0]], dtype=torch.float16),
             torch.tensor([0.0, 1.5, -0.0, 3.0], dtype=torch.bfloat16),
             torch.tensor(3.0), torch.tensor(0, dtype=torch.int32), torch.zeros(0, 3), torch.zeros(2, 0),
             torch.zeros(2, 3)]
for t in nz_inputs:
    case("nonzero", [T(t)], lambda: torch.nonzero(t))
    case("argwhere", [T(t)], lambda: torch.argwhere(t))
    case("where", [T(t)], lambda: torch.where(t))
for t, size, fill in [(nzi, 3, -1), (nzi, 12, -7), (nzb, 0, -1), (nzf, 4, 9), (torch.tensor(1), 3, -1),
                      (torch.zeros(0, 2), 2, 5), (nzi, -1, -1)]:
    case("nonzero_static", [T(t), I(size), I(fill)], lambda: torch.nonzero_static(t, size=size, fill_value=fill))
msv = ar(3, 4)
msm = nzi == 1
for s_, m_ in [(msv, msm), (msv, msm[1]), (torch.tensor(2.0), torch.tensor([True, False, True])),
               (msv, torch.zeros(3, 4, dtype=torch.bool)), (nzb, nzb), (msv.half(), msm),
               (ar(2, 1, 4, dtype=torch.int32), ar(3, 1, dtype=torch.int64) != 1), (torch.zeros(0, 4), msm[0]),
               (msv, msm.to(torch.uint8)), (msv, torch.ones(2, 4, dtype=torch.bool))]:
    case("masked_select", [T(s_), T(m_)], lambda: torch.masked_select(s_, m_))

out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "golden_index.json")
with open(out, "w") as f:
    json.dump({"torch": torch.__version__, "cases": cases}, f, indent=0)
print(f"{len(cases)} cases -> {out}")
