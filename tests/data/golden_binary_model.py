#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes tests/data/golden_binary.json from a pure-Python model of PyTorch's
rules, for the cases of gen_golden_binary.py, where torch is not installed.

The model is written from PyTorch's documented semantics, independently of
clops' C references: type promotion over dimensioned tensors, zero-dim
tensors and Python scalars; each op's promotion method and accepted dtypes;
its errors (bool subtraction, integers to negative integer powers, bitwise
ops on floats, clamp without bounds, c10's checked scalar conversions, ...);
integer wrap-around; float16/bfloat16 operands computed in float32 and
rounded to nearest-even on store; PyTorch's step-by-step float formulas
(floor division from fmod, lerp, addcmul); pow's specialised exponents.
Elementary functions (pow, atan2, hypot, exp, log1p, nextafter, ...) come
from the C library through ctypes, so they have C99's special values.

When torch is available, gen_golden_binary.py's output replaces this file;
any difference between the two is a bug in the model or in clops.

Usage:  python3 tests/data/golden_binary_model.py [OUTPUT]
"""

import ctypes
import ctypes.util
import math
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_golden_binary as g  # noqa: E402

LIBM = ctypes.CDLL(ctypes.util.find_library("m"))
for _fn in ["pow", "atan2", "hypot", "exp", "exp2", "log", "log1p", "fmod", "nextafter", "sqrt",
            "fmax", "fmin"]:
    getattr(LIBM, _fn).restype = ctypes.c_double
    getattr(LIBM, _fn).argtypes = [ctypes.c_double] * (1 if _fn in (
        "exp", "exp2", "log", "log1p", "sqrt") else 2)
LIBM.nextafterf.restype = ctypes.c_float
LIBM.nextafterf.argtypes = [ctypes.c_float, ctypes.c_float]

INF, NAN = math.inf, math.nan
FLOATS = ["float16", "bfloat16", "float32", "float64"]
INTS = ["uint8", "int8", "int16", "int32", "int64"]


class TorchError(Exception):
    """The model's stand-in for the RuntimeError PyTorch raises."""


class ZeroDivision(TorchError):
    """PyTorch's CPU "ZeroDivisionError" for an integer divisor of 0."""


def check_divisor(b):
    if b == 0:
        raise ZeroDivision("ZeroDivisionError")
    return b


# ---- rounding and wrapping --------------------------------------------------

def f32(x):
    return ctypes.c_float(x).value


def f32_bits(x):
    return struct.unpack("<I", struct.pack("<f", f32(x)))[0]


def bits_f32(b):
    return struct.unpack("<f", struct.pack("<I", b & 0xFFFFFFFF))[0]


def f16(x):
    """Round to the nearest float16 value, ties to even."""
    if math.isnan(x) or math.isinf(x):
        return x
    a = abs(x)
    if a == 0.0:
        return x
    e = math.frexp(a)[1] - 1
    spacing = 2.0 ** -24 if e < -14 else 2.0 ** (e - 10)
    r = round(a / spacing) * spacing
    if r > 65504.0:
        r = INF
    return math.copysign(r, x)


def bf16(x):
    """Round (through float32, as c10 does) to bfloat16, ties to even."""
    if math.isnan(x):
        return x
    b = f32_bits(x)
    b = (b + 0x7FFF + ((b >> 16) & 1)) & 0xFFFF0000
    return bits_f32(b)


def round_float(x, dt):
    return {"float16": f16, "bfloat16": bf16, "float32": f32, "float64": float}[dt](x)


def wrap(v, dt):
    if dt == "bool":
        return bool(v)
    lo, hi = g.INT_RANGE[dt]
    m = hi - lo + 1
    return (v - lo) % m + lo


def opmath(dt):
    return "float32" if dt in ("float16", "bfloat16") else dt


def is_float(dt):
    return dt in FLOATS


def kind(dt):
    return 0 if dt == "bool" else 2 if is_float(dt) else 1


def convert(v, dt):
    """A value of any dtype as dtype dt holds it (PyTorch's casts)."""
    if dt == "bool":
        return v != 0 if not (isinstance(v, float) and math.isnan(v)) else True
    if is_float(dt):
        return round_float(float(v), dt)
    if isinstance(v, float):
        v = int(v)  # truncation; the cases never convert non-finite floats
    return wrap(int(v), dt)


# ---- type promotion -----------------------------------------------------------

def promote_types(a, b):
    if a == b:
        return a
    if a == "bool":
        return b
    if b == "bool":
        return a
    if is_float(a) and is_float(b):
        if {a, b} == {"float16", "bfloat16"}:
            return "float32"
        return max(a, b, key=FLOATS.index)
    if is_float(a):
        return a
    if is_float(b):
        return b
    if {a, b} == {"uint8", "int8"}:
        return "int16"
    return max(a, b, key=INTS.index)


def result_type(operands):
    """operands: (category, dtype) with category 0 tensor, 1 zero-dim, 2 scalar."""
    per = [None, None, None]
    for cat, dt in operands:
        if cat == 2:
            dt = {0: "bool", 1: "int64", 2: "float32"}[kind(dt)]
        per[cat] = dt if per[cat] is None else promote_types(per[cat], dt)
    out = None
    for dt in per:
        if dt is None:
            continue
        if out is None or kind(dt) > kind(out):
            out = dt
    return out


# ---- arguments ------------------------------------------------------------------

def decode(v, dt):
    """A JSON value of dtype dt back to a Python number."""
    if dt == "bool":
        return bool(v)
    if is_float(dt):
        return float(v)
    return int(v)


class Arg:
    """A decoded argument: tensor (values, dtype, shape), scalar, str or None."""

    def __init__(self, a):
        self.name = a["name"]
        self.tensor = "tensor" in a
        self.none = "none" in a
        self.str = a.get("str")
        if self.tensor:
            t = a["tensor"]
            self.dtype, self.shape = t["dtype"], t["shape"]
            self.values = [convert(decode(v, self.dtype), self.dtype) for v in t["values"]]
        elif "scalar" in a:
            s = a["scalar"]
            self.value = decode(s["value"], {"bool": "bool", "int": "int64"}.get(s["kind"],
                                                                                 "float64"))
            self.dtype = {"bool": "bool", "int": "int64", "float": "float64"}[s["kind"]]
            self.shape = []

    def category(self):
        return (0 if self.shape else 1) if self.tensor else 2

    def at(self, i):
        if self.tensor:
            return self.values[i if len(self.values) > 1 else 0]
        return self.value


def common(*args):
    return result_type([(a.category(), a.dtype) for a in args if a is not None])


def fits(value, dt):
    """c10::checked_convert's overflow rule for a Python scalar into dt."""
    if dt in ("bool", "float64") or isinstance(value, bool):
        return True
    if isinstance(value, int):
        if dt == "uint8":
            return -255 <= value <= 255
        if dt in g.INT_RANGE:
            lo, hi = g.INT_RANGE[dt]
            return lo <= value <= hi
        return abs(value) <= {"float16": 65504.0, "bfloat16": 3.3895313892515355e38,
                              "float32": 3.4028234663852886e38}[dt]
    if is_float(dt):
        fmax = {"float16": 65504.0, "bfloat16": 3.3895313892515355e38,
                "float32": 3.4028234663852886e38}[dt]
        return math.isinf(value) or math.isnan(value) or abs(value) <= fmax
    lo, hi = g.INT_RANGE[dt]
    return not math.isnan(value) and lo <= value <= hi


# ---- elementwise functions -------------------------------------------------------

def fdiv(a, b):
    """IEEE division in double."""
    if b == 0.0:
        if a == 0.0 or math.isnan(a):
            return NAN
        neg = (math.copysign(1, a) < 0) != (math.copysign(1, b) < 0)
        return -INF if neg else INF
    return a / b


def cfmod(a, b):
    return LIBM.fmod(a, b)


def tdiv(a, b):
    check_divisor(b)
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def trunc_keep(x):
    if math.isnan(x) or math.isinf(x):
        return x
    return math.copysign(float(math.trunc(x)), x)


def floordiv_float(a, b, r):
    """c10::div_floor_floating with rounding r after each step."""
    if b == 0.0:
        return r(fdiv(a, b))
    mod = cfmod(a, b)
    div = r(fdiv(r(a - mod), b))
    if mod != 0 and (b < 0) != (mod < 0):
        div = r(div - 1.0)
    if div == 0.0:
        return math.copysign(0.0, fdiv(a, b))
    fl = float(math.floor(div)) if math.isfinite(div) else div
    if div - fl > 0.5:
        fl += 1.0
    return r(fl)


def powi(a, b):
    if b < 0:
        return 1 if a == 1 else ((-1 if b % 2 else 1) if a == -1 else 0)
    return pow(a, b)


def nextafter16(a, b, to_bits, from_bits):
    if math.isnan(a) or math.isnan(b):
        return NAN
    if a == b:
        return b
    fa, fb = to_bits(a), to_bits(b)
    if fa & 0x7FFF == 0:
        return from_bits((fb & 0x8000) | 1)
    if (fa & 0x7FFF) > (fb & 0x7FFF) or ((fa ^ fb) & 0x8000):
        return from_bits(fa - 1)
    return from_bits(fa + 1)


def half_bits(x):
    return struct.unpack("<H", struct.pack("<e", x))[0]


def bits_half(b):
    return struct.unpack("<e", struct.pack("<H", b))[0]


def bf_bits(x):
    return f32_bits(x) >> 16


def bits_bf(b):
    return bits_f32(b << 16)


def std_max(a, b):
    return b if a < b else a


def std_min(a, b):
    return b if b < a else a


def nan_any(*v):
    return any(isinstance(x, float) and math.isnan(x) for x in v)


# ---- ops ---------------------------------------------------------------------

NOBOOL = lambda dt: dt != "bool"  # noqa: E731
FLOAT_ONLY = is_float
BITS = lambda dt: not is_float(dt)  # noqa: E731
INT_ONLY = lambda dt: dt in INTS  # noqa: E731


def length_and_shape(args):
    ts = [a for a in args if a is not None and a.tensor]
    n = max([len(a.values) for a in ts] + [1])
    shape = [n] if any(a.shape for a in ts) else []
    return n, shape


def run(args, fn, method="default", accept=None, result=None):
    """Evaluates fn elementwise over args (tensors and scalars) with
    PyTorch's promotion; fn(xs, compute, rnd) gets values in the compute
    dtype and returns one in it (or a bool for predicates)."""
    cd = common(*args)
    if accept is not None and not accept(cd):
        raise TorchError("not implemented for %s" % cd)
    if method == "int_to_float" and not is_float(cd):
        cd = "float32"
    compute = opmath(cd)
    out_dt = result or ("bool" if method == "always_bool" else cd)
    rnd = f32 if compute == "float32" else (lambda x: x)
    n, shape = length_and_shape(args)
    vals = []
    for i in range(n):
        xs = [convert(convert(a.at(i), cd), compute) for a in args]
        vals.append(convert(fn(xs, compute, rnd), out_dt))
    return out_dt, shape, vals


def check_alpha(alpha, args):
    cd = common(*args)
    if isinstance(alpha, float) and not is_float(cd):
        raise TorchError("alpha must not be a float")
    if isinstance(alpha, bool) and cd != "bool":
        raise TorchError("boolean alpha only supported for Boolean results")


def bool_operand(a):
    return a.dtype == "bool"


def add_like(self, other, alpha, sign):
    check_alpha(alpha, [self, other])

    def fn(xs, compute, rnd):
        a, b = xs
        if compute == "bool":
            return a or (bool(alpha) and b) if sign > 0 else None
        al = convert(alpha, compute)
        if is_float(compute):
            return rnd(a + sign * al * b)
        return a + sign * al * b
    return run([self, other], fn)


def sub_like(self, other, alpha):
    if bool_operand(self) or bool_operand(other):
        raise TorchError("Subtraction with bool")
    return add_like(self, other, alpha, -1)


def div_mode(a, b, mode):
    if mode is None:
        return run([a, b], lambda x, c, r: r(fdiv(x[0], x[1])), "int_to_float")
    if mode == "trunc":
        return run([a, b], lambda x, c, r: tdiv(x[0], x[1]) if not is_float(c)
                   else trunc_keep(r(fdiv(x[0], x[1]))), accept=NOBOOL)
    return run([a, b], lambda x, c, r: x[0] // check_divisor(x[1]) if not is_float(c)
               else floordiv_float(x[0], x[1], r), accept=NOBOOL)


def remainder(a, b):
    def fn(x, c, r):
        if not is_float(c):
            return x[0] % check_divisor(x[1])
        m = cfmod(x[0], x[1])
        if m != 0 and (x[1] < 0) != (m < 0):
            m = r(m + x[1])
        return m
    return run([a, b], fn, accept=NOBOOL)


def fmod(a, b):
    return run([a, b], lambda x, c, r: x[0] - x[1] * tdiv(x[0], x[1]) if not is_float(c)
               else cfmod(x[0], x[1]), accept=NOBOOL)


def pow_tt(a, b, f64=False):
    if f64:
        return run([a, b], lambda x, c, r: LIBM.pow(float(x[0]), float(x[1])),
                   result="float64")
    return run([a, b], lambda x, c, r: powi(x[0], x[1]) if not is_float(c)
               else r(LIBM.pow(x[0], x[1])), accept=NOBOOL)


def ones_like(arg, dt):
    n, shape = length_and_shape([arg])
    return dt, shape, [convert(1, dt)] * n


def copy_as(arg, dt):
    n, shape = length_and_shape([arg])
    return dt, shape, [convert(arg.at(i), dt) for i in range(n)]


class ScalarArg:
    """A synthetic scalar argument."""

    def __init__(self, value):
        self.name, self.tensor, self.none, self.value = "s", False, False, value
        self.dtype = ("bool" if isinstance(value, bool) else "int64" if isinstance(value, int)
                      else "float64")
        self.shape = []

    def category(self):
        return 2

    def at(self, i):
        return self.value


def pow_special(x, e, dt):
    """pow_tensor_scalar_kernel on one element of floating common dtype dt."""
    r = {"bfloat16": bf16, "float16": f16, "float32": f32}.get(dt, lambda v: v)
    c = f32 if dt != "float64" else (lambda v: v)
    if dt != "float16":
        if e == 0.5:
            return c(LIBM.sqrt(x))
        if e == -0.5:
            return c(fdiv(1.0, LIBM.sqrt(x)))
        if e == -1.0:
            return c(fdiv(1.0, x))
    if dt == "float16":
        return c(LIBM.pow(x, f16(e)))
    if dt == "bfloat16":
        e = bf16(e)
    if e == 2.0:
        return r(x * x)
    if e == 3.0:
        return r(r(x * x) * x)
    if e == -2.0:
        return r(fdiv(1.0, r(x * x)))
    return c(LIBM.pow(x, e))


def pow_ts(self, exp, f64=False):
    v = exp.value
    if f64:
        v = float(v)
    elif kind(self.dtype) < 2 and isinstance(v, int) and not isinstance(v, bool) and v < 0:
        raise TorchError("Integers to negative integer powers are not allowed.")
    e = ScalarArg(v)
    cd = "float64" if f64 else common(self, e)
    if (v is False) or (not isinstance(v, bool) and v == 0):
        return ones_like(self, cd)
    if (v is True) or (not isinstance(v, bool) and v == 1):
        return copy_as(self, cd)
    if cd == "bool":
        raise TorchError("pow not implemented for Bool")
    if not is_float(cd):
        if not fits(v, cd):
            raise TorchError("value cannot be converted")
        return run([self, e], lambda x, c, r: powi(x[0], x[1]))
    n, shape = length_and_shape([self])
    return cd, shape, [convert(pow_special(convert(self.at(i), cd), float(v), cd), cd)
                       for i in range(n)]


def pow_st(base, exp, f64=False):
    v = base.value
    if f64:
        v = float(v)
    b = ScalarArg(v)
    cd = "float64" if f64 else common(b, exp)
    if not isinstance(v, bool) and v == 1:
        return ones_like(exp, cd)
    return pow_tt(b, exp, f64)


def nextafter(a, b):
    def fn(x, c, r):
        dt = common(a, b)
        if dt == "float64":
            return LIBM.nextafter(x[0], x[1])
        if dt == "float32":
            return LIBM.nextafterf(x[0], x[1])
        if dt == "float16":
            return nextafter16(x[0], x[1], half_bits, bits_half)
        return nextafter16(x[0], x[1], bf_bits, bits_bf)
    return run([a, b], fn, accept=FLOAT_ONLY)


def xlogy(a, b):
    def fn(x, c, r):
        if math.isnan(x[1]):
            return NAN
        if x[0] == 0:
            return 0.0
        return r(x[0] * LIBM.log(x[1]))
    return run([a, b], fn, "int_to_float")


def logaddexp(a, b, base2):
    def fn(x, c, r):
        p, q = x
        if math.isinf(p) and p == q:
            return p
        m = std_max(p, q)
        d = -abs(p - q) if not nan_any(p, q) else NAN
        if base2:
            return r(m + LIBM.log1p(LIBM.exp2(d)) / math.log(2.0))
        return r(m + LIBM.log1p(LIBM.exp(d)))
    return run([a, b], fn, accept=FLOAT_ONLY)


def maximum(a, b, is_min=False, ignore_nan=False):
    def fn(x, c, r):
        p, q = x
        if c == "bool":
            return (p and q) if is_min else (p or q)
        if is_float(c) and nan_any(p, q):
            if not ignore_nan or (math.isnan(p) and math.isnan(q)):
                return NAN
            return q if math.isnan(p) else p
        return std_min(p, q) if is_min else std_max(p, q)
    return run([a, b], fn)


def clamp_scalars(self, lo, hi):
    if lo is None and hi is None:
        raise TorchError("At least one of 'min' or 'max' must not be None")
    args = [self] + [x for x in (lo, hi) if x is not None]
    cd = common(*args)
    if cd == "bool":
        raise TorchError("clamp not implemented for Bool")
    for x in (lo, hi):
        if x is not None and not fits(x.value, cd):
            raise TorchError("value cannot be converted")
    if lo is not None and hi is not None:
        if nan_any(float(lo.value), float(hi.value)):
            n, shape = length_and_shape([self])
            return cd, shape, [NAN] * n
        return run([self, lo, hi], lambda x, c, r: std_min(std_max(x[0], x[1]), x[2]))
    if lo is not None:
        return run([self, lo], lambda x, c, r: std_max(x[0], x[1]))
    return run([self, hi], lambda x, c, r: std_min(x[0], x[1]))


def clamp_tensors(self, lo, hi):
    if lo is None and hi is None:
        raise TorchError("At least one of 'min' or 'max' must not be None")
    if lo is None or hi is None:
        return maximum(self, lo) if hi is None else maximum(self, hi, is_min=True)

    def fn(x, c, r):
        if is_float(c) and nan_any(x[1], x[2]):
            return NAN
        return std_min(std_max(x[0], x[1]), x[2])
    return run([self, lo, hi], fn, accept=NOBOOL)


def shift(a, b, left):
    def fn(x, c, r):
        lo, hi = g.INT_RANGE[c]
        w = (hi - lo + 1).bit_length() - 1
        n = wrap(x[1], "int%d" % w) if c != "uint8" else wrap(x[1], "int8")
        if left:
            return 0 if n < 0 or n >= w else x[0] << n
        mx = w if c == "uint8" else w - 1
        return x[0] >> (mx if n < 0 or n >= mx else n)
    return run([a, b], fn, accept=INT_ONLY)


def bitwise(a, b, f):
    return run([a, b], lambda x, c, r: f(x[0], x[1]) if c != "bool" else bool(f(x[0], x[1])),
               accept=BITS)


def where(cond, a, b):
    if cond.dtype not in ("bool", "uint8"):
        raise TorchError("where expected condition to be a boolean tensor")
    cd = common(a, b)
    n, shape = length_and_shape([cond, a, b])
    return cd, shape, [convert(a.at(i) if cond.at(i) else b.at(i), cd) for i in range(n)]


def masked_fill(self, mask, value):
    if mask.dtype != "bool":
        raise TorchError("masked_fill_ only supports boolean masks")
    if not fits(value, self.dtype):
        raise TorchError("value cannot be converted")
    n, shape = length_and_shape([self, mask])
    v = convert(value, self.dtype)
    return self.dtype, shape, [v if mask.at(i) else self.at(i) for i in range(n)]


def lerp(self, end, w_arg):
    for t in [end] + ([w_arg] if w_arg.tensor else []):
        if t.dtype != self.dtype:
            raise TorchError("expected dtype")

    def fn(x, c, r):
        s, e = x[0], x[1]
        w = x[2] if w_arg.tensor else convert(w_arg.value, c)
        if abs(w) < 0.5:
            return r(s + r(w * r(e - s)))
        return r(e - r(r(e - s) * r(1.0 - w)))
    args = [self, end] + ([w_arg] if w_arg.tensor else [])
    return run(args, fn, accept=FLOAT_ONLY)


def addc(self, t1, t2, value, divide):
    if divide and kind(t1.dtype) < 2 and kind(t2.dtype) < 2:
        raise TorchError("Integer division with addcdiv is no longer supported")

    def fn(x, c, r):
        v = convert(value, c)
        if not is_float(c):
            return x[0] + v * x[1] * x[2]
        p = r(v * x[1])
        p = r(fdiv(p, x[2])) if divide else r(p * x[2])
        return r(x[0] + p)
    return run([self, t1, t2], fn, accept=NOBOOL)


def evaluate(op, raw_args):
    """PyTorch's answer for a case in the model: (dtype, shape, values)."""
    args = [Arg(a) for a in raw_args]
    A = {a.name: a for a in args}
    s, o = A.get("self"), A.get("other")
    base = op.split(".")[0]
    sc = (lambda name: A[name].value)
    cmp = {"eq": lambda p, q: p == q, "ne": lambda p, q: p != q, "lt": lambda p, q: p < q,
           "le": lambda p, q: p <= q, "gt": lambda p, q: p > q, "ge": lambda p, q: p >= q}
    if base == "add":
        return add_like(s, o, sc("alpha"), 1)
    if base == "sub":
        return sub_like(s, o, sc("alpha"))
    if base == "rsub":
        return sub_like(o, s, sc("alpha"))
    if base == "mul":
        return run([s, o], lambda x, c, r: (x[0] and x[1]) if c == "bool" else r(x[0] * x[1]))
    if base in ("div", "true_divide"):
        return div_mode(s, o, A["rounding_mode"].str if "rounding_mode" in A else None)
    if base == "floor_divide":
        return div_mode(s, o, "floor")
    if base == "remainder":
        return remainder(s, o)
    if base == "fmod":
        return fmod(s, o)
    if base in ("pow", "float_power"):
        e = A["exponent"]
        f64 = base == "float_power"
        if op.endswith("Tensor_Tensor"):
            return pow_tt(s, e, f64)
        if op.endswith("Tensor_Scalar"):
            return pow_ts(s, e, f64)
        return pow_st(s, e, f64)
    if base == "atan2":
        return run([s, o], lambda x, c, r: r(LIBM.atan2(x[0], x[1])), "int_to_float")
    if base == "hypot":
        return run([s, o], lambda x, c, r: r(LIBM.hypot(x[0], x[1])), accept=FLOAT_ONLY)
    if base == "copysign":
        return run([s, o], lambda x, c, r: math.copysign(x[0], x[1]), "int_to_float")
    if base == "nextafter":
        return nextafter(s, o)
    if base == "xlogy":
        return xlogy(s, o)
    if base in ("logaddexp", "logaddexp2"):
        return logaddexp(s, o, base == "logaddexp2")
    if base == "heaviside":
        v = A["values"]
        if s.dtype != v.dtype:
            raise TorchError("heaviside is not yet implemented for tensors with different dtypes")
        return run([s, v], lambda x, c, r: x[1] if x[0] == 0 else (1 if x[0] > 0 else 0))
    if base in ("maximum", "minimum", "fmax", "fmin"):
        return maximum(s, o, base in ("minimum", "fmin"), base.startswith("f"))
    if base in ("clamp_min", "clamp_max"):
        b = A[base[6:]]
        if b.tensor:
            return maximum(s, b, base == "clamp_max")
        return clamp_scalars(s, b if base == "clamp_min" else None,
                             b if base == "clamp_max" else None)
    if base == "clamp":
        lo = None if A["min"].none else A["min"]
        hi = None if A["max"].none else A["max"]
        if op == "clamp.Tensor":
            return clamp_tensors(s, lo, hi)
        return clamp_scalars(s, lo, hi)
    if base in cmp:
        return run([s, o], lambda x, c, r: cmp[base](x[0], x[1]), "always_bool")
    if base.startswith("logical_"):
        f = {"logical_and": lambda p, q: p and q, "logical_or": lambda p, q: p or q,
             "logical_xor": lambda p, q: p != q}
        if base == "logical_not":
            return run([s], lambda x, c, r: not bool(x[0]), "always_bool")
        return run([s, o], lambda x, c, r: f[base](bool(x[0]), bool(x[1])), "always_bool")
    if base == "bitwise_not":
        return run([s], lambda x, c, r: (not x[0]) if c == "bool" else ~x[0], accept=BITS)
    if base in ("bitwise_and", "bitwise_or", "bitwise_xor"):
        f = {"bitwise_and": lambda p, q: p & q, "bitwise_or": lambda p, q: p | q,
             "bitwise_xor": lambda p, q: p ^ q}[base]
        return bitwise(s, o, f)
    if base in ("bitwise_left_shift", "bitwise_right_shift"):
        return shift(s, o, base == "bitwise_left_shift")
    if base == "where":
        return where(A["condition"], s, o)
    if base == "masked_fill":
        v = A["value"]
        val = v.values[0] if v.tensor else v.value
        if v.tensor and v.shape:
            raise TorchError("masked_fill_ only supports a 0-dimensional value tensor")
        return masked_fill(s, A["mask"], val)
    if base == "fill":
        v = A["value"]
        if v.tensor:
            return copy_as(type("V", (), {"tensor": True, "shape": s.shape, "values": s.values,
                                          "at": lambda self_, i: v.values[0]})(), s.dtype)
        if not fits(v.value, s.dtype):
            raise TorchError("value cannot be converted")
        n, shape = length_and_shape([s])
        return s.dtype, shape, [convert(v.value, s.dtype)] * n
    if base == "lerp":
        return lerp(s, A["end"], A["weight"])
    if base in ("addcmul", "addcdiv"):
        return addc(s, A["tensor1"], A["tensor2"], sc("value"), base == "addcdiv")
    raise KeyError(op)


def expect(op, raw_args):
    try:
        dt, shape, vals = evaluate(op, raw_args)
    except ZeroDivision:
        return {"error": "RuntimeError", "zero_division": True}
    except TorchError:
        return {"error": "RuntimeError"}
    return {"dtype": dt, "shape": shape, "values": [g.encode_value(v, dt) for v in vals]}


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "golden_binary.json")
    rows = []
    for c in g.build_cases():
        args = g.encode_args(c["args"])
        rows.append({"op": c["op"], "args": args, "expect": expect(c["op"], args)})
    g.dump_rows(rows, out)
    print("wrote %d cases to %s (model)" % (len(rows), out))


if __name__ == "__main__":
    main()
