/* SPDX-License-Identifier: Apache-2.0 */
/*
 * python/csrc/complex.cpp: the complex pointwise basics on the device.
 *
 * clops' pointwise engine computes in real dtypes only, and its operators
 * refuse complex operands.  PyTorch's complex64/complex128 tensors are
 * interleaved pairs, so each part of one is a real strided view
 * (view_as_real(t).select(-1, k)), and every complex op here is real
 * kernels over those views:
 *
 *  - add, sub (complex alpha aside), neg: the real views added, negated
 *    (the pair dimension broadcasts like any other);
 *  - mul, div: one generated pointwise kernel per part over the four part
 *    views (fused_register / fused_call of compile.cpp: clops' pointwise
 *    engine with the expression below; broadcasting and strides its own),
 *    with c10/util/complex.h's formulas (the division scaled by the larger
 *    part of the divisor, as PyTorch's and numpy's);
 *  - abs: hypot of the parts; exp: exp(re) * (cos(im), sin(im)), the
 *    imaginary part exactly im when im is 0 (as std::exp);
 *  - fill_ / fill / full / full_like with a complex value, and
 *    empty_like / zeros_like / ones_like of a complex dtype: each part
 *    filled (clops' own creation kernels refuse complex);
 *  - constant_pad_nd: the real view padded (value 0) or each part padded
 *    with its part of the value.
 *
 * Operands are first brought to the result dtype (PyTorch's promotion,
 * at::result_type: a real operand becomes complex with a zero imaginary
 * part, a Python number keeps the tensor's dtype), conjugate and negative
 * bits resolved, zero-dim CPU tensors uploaded, then computed into a new
 * tensor; in-place and out= variants copy it into their destination.  Calls
 * this file does not take (a complex alpha, a destination PyTorch would
 * refuse, a written tensor with a conjugate bit) go back to the caller,
 * which sends them to the CPU fallback, whose PyTorch kernel computes or
 * raises PyTorch's error.
 */
#include <ATen/ExpandUtils.h>
#include <ATen/native/Resize.h>
#include <torch/library.h>

#include <map>
#include <mutex>

#include "bridge.h"

namespace clops_torch {

namespace {

/* Thrown when a call is not one this file computes. */
struct Decline {};

enum class Op { Add, Sub, Mul, Div, Neg, Abs, Exp, Fill, FillFn, Full, FullLike, EmptyLike, ZerosLike, OnesLike, Pad };
enum class Form { Functional, Inplace, Out };

struct Entry {
    Op op;
    Form form;
};

const std::map<std::string, Entry> &entries()
{
    static const std::map<std::string, Entry> m = [] {
        std::map<std::string, Entry> e;
        const std::pair<const char *, Op> bin[] = {
            {"add", Op::Add}, {"sub", Op::Sub}, {"mul", Op::Mul}, {"div", Op::Div}};
        for (const auto &b : bin) {
            std::string n = b.first;
            e[n + ".Tensor"] = {b.second, Form::Functional};
            e[n + ".Scalar"] = {b.second, Form::Functional};
            e[n + "_.Tensor"] = {b.second, Form::Inplace};
            e[n + "_.Scalar"] = {b.second, Form::Inplace};
            e[n + ".out"] = {b.second, Form::Out};
            e[n + ".Scalar_out"] = {b.second, Form::Out};
        }
        const std::pair<const char *, Op> un[] = {{"neg", Op::Neg}, {"abs", Op::Abs}, {"exp", Op::Exp}};
        for (const auto &u : un) {
            std::string n = u.first;
            e[n] = {u.second, Form::Functional};
            e[n + ".out"] = {u.second, Form::Out};
            if (u.second != Op::Abs) /* abs_ of a complex tensor is PyTorch's error */
                e[n + "_"] = {u.second, Form::Inplace};
        }
        e["fill_.Scalar"] = {Op::Fill, Form::Inplace};
        e["fill_.Tensor"] = {Op::Fill, Form::Inplace};
        e["fill.Scalar"] = {Op::FillFn, Form::Functional};
        e["fill.Tensor"] = {Op::FillFn, Form::Functional};
        e["full"] = {Op::Full, Form::Functional};
        e["full_like"] = {Op::FullLike, Form::Functional};
        e["empty_like"] = {Op::EmptyLike, Form::Functional};
        e["zeros_like"] = {Op::ZerosLike, Form::Functional};
        e["ones_like"] = {Op::OnesLike, Form::Functional};
        e["constant_pad_nd"] = {Op::Pad, Form::Functional};
        return e;
    }();
    return m;
}

/* ---- the generated kernels ----------------------------------------------------------- */

/* Each expression reads its operands in their own dtype (promotion "none")
 * and converts them to the part type P; the kernel's value is part `k` of
 * the complex result.  a, b: the first operand's parts; c, d: the second's. */
const char *const kMulRe = "((P)a) * ((P)c) - ((P)b) * ((P)d)";
const char *const kMulIm = "((P)a) * ((P)d) + ((P)b) * ((P)c)";
/* c10::complex<T>::operator/= (c10/util/complex.h), which follows numpy. */
const char *const kDivHelpers =
    "P2 clops_cdiv(P a, P b, P c, P d)\n"
    "{\n"
    "    P ac = fabs(c), ad = fabs(d);\n"
    "    if (ac >= ad) {\n"
    "        if (ac == (P)0 && ad == (P)0)\n"
    "            return (P2)(a / ac, b / ad);\n"
    "        P rat = d / c, scl = (P)1 / (c + d * rat);\n"
    "        return (P2)((a + b * rat) * scl, (b - a * rat) * scl);\n"
    "    }\n"
    "    P rat = c / d, scl = (P)1 / (d + c * rat);\n"
    "    return (P2)((a * rat + b) * scl, (b * rat - a) * scl);\n"
    "}\n";
const char *const kDivRe = "clops_cdiv((P)a, (P)b, (P)c, (P)d).x";
const char *const kDivIm = "clops_cdiv((P)a, (P)b, (P)c, (P)d).y";
/* std::exp of a complex: exp(re) (cos im, sin im); im == 0 gives
 * (exp(re), im) exactly (no inf * 0 for a large re). */
const char *const kExpHelpers =
    "P2 clops_cexp(P a, P b)\n"
    "{\n"
    "    P e = exp(a);\n"
    "    if (b == (P)0)\n"
    "        return (P2)(e, b);\n"
    "    return (P2)(e * cos(b), e * sin(b));\n"
    "}\n";
const char *const kExpRe = "clops_cexp((P)a, (P)b).x";
const char *const kExpIm = "clops_cexp((P)a, (P)b).y";
const char *const kAbs = "hypot((P)a, (P)b)";

/* The text with P and P2 spelled for the part dtype. */
std::string spell(const std::string &text, bool dbl)
{
    std::string out;
    for (size_t i = 0; i < text.size(); i++) {
        bool word_start = i == 0 || !(isalnum((unsigned char)text[i - 1]) || text[i - 1] == '_');
        if (word_start && text[i] == 'P') {
            bool two = i + 1 < text.size() && text[i + 1] == '2';
            size_t end = i + (two ? 2 : 1);
            bool word_end =
                end >= text.size() || !(isalnum((unsigned char)text[end]) || text[end] == '_');
            if (word_end) {
                out += dbl ? "double" : "float";
                if (two)
                    out += "2";
                i = end - 1;
                continue;
            }
        }
        out += text[i];
    }
    return out;
}

/* The id of the generated kernel `what` for part dtype float or double. */
int kernel(const char *what, const char *expr, const char *helpers, int n_in, bool dbl)
{
    static std::mutex mu;
    static std::map<std::string, int> ids;
    std::string name = std::string("_clops_complex_") + what + (dbl ? "_f64" : "_f32");
    std::lock_guard<std::mutex> lock(mu);
    auto it = ids.find(name);
    if (it != ids.end())
        return it->second;
    std::string h = helpers ? spell(helpers, dbl) : std::string();
    if (dbl)
        h = "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n" + h;
    int id = fused_register(name, n_in, spell(expr, dbl), h, dbl ? "float64" : "float32");
    ids[name] = id;
    return id;
}

/* ---- operands ------------------------------------------------------------------------ */

at::Tensor plain(const at::Tensor &t)
{
    return t.is_conj() || t.is_neg() ? resolve_bits(t) : t;
}

/* Operand t as a clops tensor of dtype rt on device dev: conjugate and
 * negative bits resolved, a zero-dim CPU tensor uploaded, the dtype
 * converted (a real tensor becomes complex with a zero imaginary part). */
at::Tensor operand(const at::Tensor &t, c10::ScalarType rt, c10::Device dev)
{
    if (!t.defined())
        throw Decline{};
    if (t.device() != dev) {
        if (!t.device().is_cpu() || t.dim() != 0)
            throw Decline{}; /* the fallback raises PyTorch's device error */
        return t.to(dev, rt);
    }
    at::Tensor p = plain(t);
    return p.scalar_type() == rt ? p : p.to(rt);
}

at::Tensor part(const at::Tensor &c, int64_t k)
{
    return at::view_as_real(c).select(-1, k);
}

/* A complex tensor over r, the real view of one (pairs in the last dim). */
at::Tensor as_complex(at::Tensor r)
{
    bool ok = r.stride(-1) == 1 && r.storage_offset() % 2 == 0;
    for (int64_t d = 0; ok && d + 1 < r.dim(); d++)
        ok = r.stride(d) % 2 == 0;
    if (!ok)
        r = r.contiguous();
    return at::view_as_complex(r);
}

/* The complex result of a two-part kernel pair over the part views `in`. */
at::Tensor two_kernels(int re, int im, const std::vector<at::Tensor> &in,
                       c10::IntArrayRef shape, const at::TensorOptions &opts)
{
    at::Tensor r = at::empty(shape, opts);
    fused_call(re, in, part(r, 0));
    fused_call(im, in, part(r, 1));
    return r;
}

at::Tensor binary(Op op, const at::Tensor &a0, const at::Tensor &b0, const c10::Scalar &alpha,
                  c10::ScalarType rt, c10::Device dev)
{
    at::Tensor a = operand(a0, rt, dev), b = operand(b0, rt, dev);
    bool dbl = rt == at::kComplexDouble;
    if (op == Op::Add || op == Op::Sub) {
        c10::Scalar k = op == Op::Sub ? -alpha : alpha;
        return as_complex(at::add(at::view_as_real(a), at::view_as_real(b), k));
    }
    std::vector<int64_t> shape = at::infer_size(a.sizes(), b.sizes());
    std::vector<at::Tensor> in = {part(a, 0), part(a, 1), part(b, 0), part(b, 1)};
    if (op == Op::Mul)
        return two_kernels(kernel("mul_re", kMulRe, nullptr, 4, dbl),
                           kernel("mul_im", kMulIm, nullptr, 4, dbl), in, shape, a.options());
    return two_kernels(kernel("div_re", kDivRe, kDivHelpers, 4, dbl),
                       kernel("div_im", kDivIm, kDivHelpers, 4, dbl), in, shape, a.options());
}

at::Tensor unary(Op op, const at::Tensor &self)
{
    at::Tensor a = plain(self);
    bool dbl = a.scalar_type() == at::kComplexDouble;
    if (op == Op::Neg)
        return as_complex(at::neg(at::view_as_real(a)));
    std::vector<at::Tensor> in = {part(a, 0), part(a, 1)};
    if (op == Op::Abs)
        return fused_call(kernel("abs", kAbs, nullptr, 2, dbl), in, std::nullopt);
    return two_kernels(kernel("exp_re", kExpRe, kExpHelpers, 2, dbl),
                       kernel("exp_im", kExpIm, kExpHelpers, 2, dbl), in, a.sizes(), a.options());
}

void fill_parts(const at::Tensor &self, const c10::Scalar &v)
{
    c10::complex<double> z = v.toComplexDouble();
    part(self, 0).fill_(z.real());
    part(self, 1).fill_(z.imag());
}

at::Tensor pad(const at::Tensor &self, c10::IntArrayRef padding, const c10::Scalar &v)
{
    at::Tensor a = plain(self);
    c10::complex<double> z = v.toComplexDouble();
    if (z.real() == 0 && z.imag() == 0 && !std::signbit(z.real()) && !std::signbit(z.imag())) {
        std::vector<int64_t> p = {0, 0};
        p.insert(p.end(), padding.begin(), padding.end());
        return as_complex(at::constant_pad_nd(at::view_as_real(a), p, 0));
    }
    at::Tensor re = at::constant_pad_nd(part(a, 0), padding, z.real());
    at::Tensor im = at::constant_pad_nd(part(a, 1), padding, z.imag());
    at::Tensor r = at::empty(re.sizes(), a.options());
    part(r, 0).copy_(re);
    part(r, 1).copy_(im);
    return r;
}

/* The value written by an in-place or out= variant: result r into dst,
 * when PyTorch would accept the destination. */
void write(const at::Tensor &dst, const at::Tensor &r, bool resize)
{
    if (!dst.device().is_privateuseone() || dst.is_conj() || dst.is_neg() ||
        !c10::canCast(r.scalar_type(), dst.scalar_type()))
        throw Decline{};
    if (resize)
        at::native::resize_output(dst, r.sizes());
    else if (dst.sizes() != r.sizes())
        throw Decline{}; /* PyTorch's broadcast error, from the fallback */
    dst.copy_(r);
}

/* empty_like(self, options, memory_format) for a complex dtype (clops'
 * empty_like refuses complex): self's strides where PyTorch's
 * preserve_format keeps them (dense, non-overlapping), else the format's. */
at::Tensor like(const at::Tensor &self, const at::TensorOptions &o, const c10::IValue &fmt)
{
    auto mf = fmt.isNone() ? c10::MemoryFormat::Preserve : fmt.toMemoryFormat();
    if (mf == c10::MemoryFormat::Preserve) {
        if (self.is_non_overlapping_and_dense())
            return at::empty_strided(self.sizes(), self.strides(), o);
        mf = self.suggest_memory_format();
    }
    return at::empty(self.sizes(), o.memory_format(mf));
}

/* The value of a call of form f computing r: r itself, or r written into
 * self (in place) or into the out= argument (last). */
c10::IValue deliver(Form f, c10::ArrayRef<c10::IValue> in, const at::Tensor &r)
{
    if (f == Form::Functional)
        return r;
    const c10::IValue &dst = f == Form::Inplace ? in[0] : in.back();
    write(dst.toTensor(), r, f == Form::Out);
    return dst;
}

bool has_complex(c10::ArrayRef<c10::IValue> in)
{
    for (const c10::IValue &v : in) {
        if (v.isTensor() && v.toTensor().defined() && v.toTensor().is_complex())
            return true;
        if (v.isScalar() && v.toScalar().isComplex())
            return true;
    }
    return false;
}

c10::IValue run(const Entry &e, c10::ArrayRef<c10::IValue> in)
{
    switch (e.op) {
    case Op::Add:
    case Op::Sub:
    case Op::Mul:
    case Op::Div: {
        if (!in[0].isTensor() || !in[0].toTensor().device().is_privateuseone())
            throw Decline{};
        const at::Tensor &self = in[0].toTensor();
        bool alpha = e.op == Op::Add || e.op == Op::Sub;
        c10::Scalar k = alpha ? in[2].toScalar() : c10::Scalar(1);
        if (k.isComplex())
            throw Decline{};
        at::Tensor other;
        c10::ScalarType rt;
        if (in[1].isScalar()) {
            rt = at::result_type(self, in[1].toScalar());
            if (c10::isComplexType(rt))
                other = at::scalar_tensor(in[1].toScalar(), at::TensorOptions().dtype(
                                                               in[1].toScalar().isComplex()
                                                                   ? at::kComplexDouble
                                                                   : at::kDouble));
        } else {
            other = in[1].toTensor();
            rt = at::result_type(self, other);
        }
        if (!c10::isComplexType(rt))
            throw Decline{};
        at::Tensor r = binary(e.op, self, other, k, rt, self.device());
        return deliver(e.form, in, r);
    }
    case Op::Neg:
    case Op::Abs:
    case Op::Exp: {
        const at::Tensor &self = in[0].toTensor();
        if (!self.is_complex() || !self.device().is_privateuseone())
            throw Decline{};
        at::Tensor r = unary(e.op, self);
        return deliver(e.form, in, r);
    }
    case Op::Fill:
    case Op::FillFn: {
        const at::Tensor &self = in[0].toTensor();
        if (!self.is_complex() || !self.device().is_privateuseone() ||
            (e.op == Op::Fill && (self.is_conj() || self.is_neg())))
            throw Decline{};
        c10::Scalar v;
        if (in[1].isScalar()) {
            v = in[1].toScalar();
        } else {
            const at::Tensor &t = in[1].toTensor();
            if (t.dim() != 0)
                throw Decline{}; /* PyTorch's error, from the fallback */
            v = t.item();
        }
        at::Tensor dst = e.op == Op::Fill ? self : like(self, self.options(), c10::IValue());
        fill_parts(dst, v);
        return dst;
    }
    case Op::Full: {
        /* full(size, fill_value, *, dtype, layout, device, pin_memory) */
        c10::Scalar v = in[1].toScalar();
        c10::ScalarType dt = at::kFloat;
        if (!in[2].isNone())
            dt = in[2].toScalarType();
        else if (v.isComplex())
            dt = c10::toComplexType(at::get_default_dtype_as_scalartype());
        else
            throw Decline{};
        if (!c10::isComplexType(dt) || (!in[3].isNone() && in[3].toLayout() != at::kStrided) ||
            (!in[5].isNone() && in[5].toBool()))
            throw Decline{};
        c10::Device dev = in[4].isNone() ? c10::Device(c10::DeviceType::PrivateUse1, current_device())
                                         : in[4].toDevice();
        if (!dev.is_privateuseone())
            throw Decline{};
        if (!dev.has_index())
            dev = c10::Device(c10::DeviceType::PrivateUse1, current_device());
        at::Tensor r = at::empty(in[0].toIntVector(), at::TensorOptions().dtype(dt).device(dev));
        fill_parts(r, v);
        return r;
    }
    case Op::EmptyLike:
    case Op::ZerosLike:
    case Op::OnesLike:
    case Op::FullLike: {
        /* full_like(self, fill_value, *, dtype, layout, device, pin_memory,
         * memory_format); empty_like, zeros_like, ones_like the same
         * without fill_value */
        const at::Tensor &self = in[0].toTensor();
        if (e.op != Op::FullLike) {
            std::vector<c10::IValue> args(in.begin(), in.end());
            args.insert(args.begin() + 1, e.op == Op::EmptyLike  ? c10::IValue()
                                          : e.op == Op::ZerosLike ? c10::IValue(c10::Scalar(0))
                                                                  : c10::IValue(c10::Scalar(1)));
            return run({Op::FullLike, e.form}, args);
        }
        c10::ScalarType dt = in[2].isNone() ? self.scalar_type() : in[2].toScalarType();
        c10::Device dev = in[4].isNone() ? self.device() : in[4].toDevice();
        if (!c10::isComplexType(dt) || !dev.is_privateuseone() ||
            (!in[3].isNone() && in[3].toLayout() != at::kStrided) ||
            (!in[5].isNone() && in[5].toBool()))
            throw Decline{};
        at::TensorOptions o = at::TensorOptions().dtype(dt).device(dev);
        at::Tensor r = like(self, o, in[6]);
        if (!in[1].isNone())
            fill_parts(r, in[1].toScalar());
        return r;
    }
    case Op::Pad: {
        const at::Tensor &self = in[0].toTensor();
        if (!self.is_complex() || !self.device().is_privateuseone())
            throw Decline{};
        return pad(self, in[1].toIntVector(), in[2].toScalar());
    }
    }
    throw Decline{};
}

} // namespace

bool complex_op_known(const std::string &name)
{
    return entries().count(name) > 0;
}

bool complex_call(const std::string &name, torch::jit::Stack *stack, size_t n)
{
    auto it = entries().find(name);
    if (it == entries().end())
        return false;
    auto in = torch::jit::last(*stack, n);
    /* full, full_like, empty_like: the dtype argument (an int on the
     * stack) decides, in run() */
    Op op = it->second.op;
    bool creation = op == Op::Full || op == Op::FullLike || op == Op::EmptyLike ||
                    op == Op::ZerosLike || op == Op::OnesLike;
    if (creation) {
        /* the common real case returns here, without run()'s exception */
        size_t d = op == Op::Full || op == Op::FullLike ? 2 : 1;
        bool cx = in[d].isNone() ? has_complex(in.slice(0, d)) /* self, fill_value */
                                 : c10::isComplexType(in[d].toScalarType());
        if (!cx)
            return false;
    } else if (!has_complex(in)) {
        return false;
    }
    c10::IValue r;
    try {
        r = run(it->second, in);
    } catch (const Decline &) {
        return false;
    }
    torch::jit::drop(*stack, n);
    stack->push_back(std::move(r));
    return true;
}

} // namespace clops_torch
