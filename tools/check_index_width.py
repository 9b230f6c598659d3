#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""tools/check_index_width.py: a static audit of the index width of every kernel.

Reads every cl_kernels/*.cl and *.clh and reports index arithmetic that can
overflow 32 bits (issue 33).  Tensors of more than 2^31 elements are legal
(tests/test_big.c), so every offset into a __global buffer must be computed
in 64 bits, or be bounded by a check the host makes before the launch.

What it reports (one line per finding, "file:line: message"):

  gid32      a 32-bit variable (int, uint, short, ...) declared or assigned
             from get_global_id, get_group_id, get_global_size,
             get_num_groups or get_global_offset (get_local_id and
             get_local_size are bounded by the work-group size and allowed).
  widened    a 32-bit product or shift (`a * b`, `a << b`, at least one
             operand not a constant) whose result is then widened: an
             operand of 64-bit arithmetic, cast to a 64-bit type, assigned
             to a 64-bit variable.  `long off = i * n` with int i and n
             overflows before the widening.
  index32    the index of a __global buffer (a subscript p[e], pointer
             arithmetic p + e, the offset of vloadN/vstoreN/vload_half/
             vstore_half) computed in 32-bit arithmetic: a product, a shift,
             or a sum/difference of two non-constant terms, all 32-bit.
  tainted    a __global index that uses a 32-bit variable whose value was
             computed by a 32-bit product or shift (the finding names the
             variable), as a term of the offset (a variable multiplied by a
             64-bit stride is a coordinate, and passes).
  arg32      a 32-bit parameter of a __kernel that is a term of a __global
             offset: the host must not cut a 64-bit offset to fit it.

A finding is an audited exception when a comment on its line, or a
comment-only block right above that line, holds

    idx32: <bound> ... <where the host checks it>

where <bound> names the bound that makes the 32-bit arithmetic safe (it must
contain "<" or "<=" or "fits") and <where> is a source path under core/,
host/, dispatch/, ops/ or cl_kernels/ that exists (e.g.
`/* idx32: every extent < 2^31, checked in ops/pool/pool.c (pool_geom) */`).
A marker that covers no finding is itself reported (stale), as is a marker
without a bound or a path.

How it reads the kernels: comments and strings are dropped; the file's own
#define macros (and those of items.clh and pw_prelude.clh, which the host
prepends) are expanded, so code in macro bodies is checked where it is used
(a finding in a macro body is reported at the body's line); the file is read
twice, once taking every #if/#ifdef branch and once every #else branch, so
both sides of CLOPS_CHUNKED are seen.  Types come from declarations
(parameters, locals, typedef'd struct fields, vector components); literals
are 32-bit unless suffixed L or above 2^31-1; an undeclared upper-case name
is a host-defined constant (32-bit); an undeclared lower-case name and the
host-defined types (T, CT, KEY, IDX, ...) are of unknown width and never
reported: IDX (conv.cl) and ixt (index.cl) are chosen by the host per
launch (int only when every offset fits).  docs/reliability.md lists what
the audit cannot see.

Usage: check_index_width.py [--list] [--trunc] [ROOT]   (ROOT defaults to the
repository this script is in; --list also prints every audited exception,
--trunc every explicit cast of a 64-bit value to 32 bits, as notes: most
are quotients bounded by the checked geometry, so they do not fail).
Exit status 0 when clean, 1 with findings, 2 on usage errors.
Dependency-free (Python 3 standard library).
"""
import os
import re
import sys

NARROW_TYPES = {"char", "uchar", "short", "ushort", "int", "uint", "bool", "unsigned", "signed"}
WIDE_TYPES = {"long", "ulong", "size_t", "ptrdiff_t", "intptr_t", "uintptr_t"}
FLOAT_TYPES = {"float", "double", "half"}
QUALIFIERS = {"const", "volatile", "restrict", "__global", "global", "__local", "local",
              "__private", "private", "__constant", "constant", "static", "inline", "__kernel",
              "kernel", "__attribute__", "register", "struct", "__read_only", "__write_only"}
KEYWORDS = {"if", "else", "for", "while", "do", "return", "break", "continue", "switch", "case",
            "default", "goto", "sizeof", "typedef"}
GID_CALLS = {"get_global_id", "get_group_id", "get_global_size", "get_num_groups",
             "get_global_offset"}
LID_CALLS = {"get_local_id", "get_local_size", "get_enqueued_local_size", "get_work_dim",
             "get_sub_group_size", "get_sub_group_local_id", "get_sub_group_id"}
VECTOR_RE = re.compile(r"^(u?char|u?short|u?int|u?long|float|double|half)(2|3|4|8|16)$")
MARKER_RE = re.compile(r"idx32:(.*)", re.S)
MARKER_PATH_RE = re.compile(r"\b((?:core|host|dispatch|ops|cl_kernels)/[\w./-]+\.(?:c|h|cl|clh))")

TOKEN_RE = re.compile(r"""
    (?P<ws>[ \t\r\f\v]+|\\\n)
  | (?P<nl>\n)
  | (?P<lc>//[^\n]*)
  | (?P<bc>/\*.*?\*/)
  | (?P<str>"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*')
  | (?P<num>(?:0[xX][0-9a-fA-F]+|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)[uUlLfFhH]*)
  | (?P<id>[A-Za-z_]\w*)
  | (?P<op><<=|>>=|\.\.\.|->|\+\+|--|<<|>>|<=|>=|==|!=|&&|\|\||[-+*/%&|^]=|\#\#|[-+*/%&|^~!<>=?:;,.(){}\[\]\#])
""", re.X | re.S)


class Tok:
    __slots__ = ("t", "kind", "file", "line", "bol", "hide")

    def __init__(self, t, kind, file, line, bol=False, hide=frozenset()):
        self.t, self.kind, self.file, self.line, self.bol, self.hide = t, kind, file, line, bol, hide

    def __repr__(self):
        return "%s@%d" % (self.t, self.line)


def tokenize(path, rel):
    """Tokens of a file and its comments: (tokens, {line: comment text}, comment-only lines)."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    toks, comments, code_lines = [], {}, set()
    line, bol, pos = 1, True, 0
    while pos < len(text):
        m = TOKEN_RE.match(text, pos)
        if not m:
            raise SystemExit("%s:%d: cannot read %r" % (rel, line, text[pos:pos + 20]))
        kind, s = m.lastgroup, m.group()
        pos = m.end()
        if kind == "nl":
            line += 1
            bol = True
        elif kind == "ws":
            line += s.count("\n")
        elif kind in ("lc", "bc"):
            for k in range(s.count("\n") + 1):
                comments.setdefault(line + k, []).append(s)
            line += s.count("\n")
            if re.search(r"(?<!\\)\n", s):      # a newline not spliced
                bol = True
        else:
            toks.append(Tok(s, kind, rel, line, bol))
            code_lines.add(line)
            bol = False
    return toks, comments, code_lines


class Macro:
    def __init__(self, name, params, body):
        self.name, self.params, self.body = name, params, body


def split_args(toks, i):
    """toks[i] is '('; returns (list of argument token lists, index after ')')."""
    depth, args, cur = 0, [], []
    j = i
    while j < len(toks):
        t = toks[j].t
        if t in "([{":
            depth += 1
            if depth > 1:
                cur.append(toks[j])
        elif t in ")]}":
            depth -= 1
            if depth == 0:
                args.append(cur)
                return args, j + 1
            cur.append(toks[j])
        elif t == "," and depth == 1:
            args.append(cur)
            cur = []
        else:
            cur.append(toks[j])
        j += 1
    return args, j


def expand(toks, macros, depth=0):
    """Expands the file's macros in a token list (function-like and object-like)."""
    out, i = [], 0
    while i < len(toks):
        tk = toks[i]
        m = macros.get(tk.t) if tk.kind == "id" and tk.t not in tk.hide else None
        if m is None or depth > 12:
            out.append(tk)
            i += 1
            continue
        if m.params is None:
            body = [Tok(b.t, b.kind, b.file, b.line, False, tk.hide | {m.name}) for b in m.body]
            out.extend(expand(body, macros, depth + 1))
            i += 1
            continue
        if i + 1 >= len(toks) or toks[i + 1].t != "(":
            out.append(tk)
            i += 1
            continue
        args, nxt = split_args(toks, i + 1)
        if args == [[]] and not m.params:
            args = []
        pmap = {}
        for k, p in enumerate(m.params):
            if p == "...":
                pmap["__VA_ARGS__"] = [x for a in args[k:] for x in a + [Tok(",", "op", tk.file, tk.line)]][:-1]
            else:
                pmap[p] = args[k] if k < len(args) else []
        body = []
        b = m.body
        j = 0
        while j < len(b):
            bt = b[j]
            if bt.t == "#" and j + 1 < len(b) and b[j + 1].t in pmap:   # stringify
                body.append(Tok('""', "str", bt.file, bt.line))
                j += 2
                continue
            if bt.t == "##" and body and j + 1 < len(b):                 # paste
                right = pmap.get(b[j + 1].t, [b[j + 1]])
                left = body.pop()
                if right:
                    body.append(Tok(left.t + right[0].t, left.kind if left.kind == "id" else right[0].kind,
                                    left.file, left.line))
                    body.extend(right[1:])
                else:
                    body.append(left)
                j += 2
                continue
            if bt.kind == "id" and bt.t in pmap:
                if j + 1 < len(b) and b[j + 1].t == "##":
                    body.extend(pmap[bt.t])       # unexpanded before a paste
                else:
                    body.extend(expand(pmap[bt.t], macros, depth + 1))
            else:
                body.append(Tok(bt.t, bt.kind, bt.file, bt.line, False, tk.hide | {m.name}))
            j += 1
        body = [Tok(x.t, x.kind, x.file, x.line, False, x.hide | tk.hide | {m.name}) for x in body]
        out.extend(expand(body, macros, depth + 1))
        i = nxt
    return out


def preprocess(toks, macros, take_else):
    """Runs the directives: returns the code tokens, filling `macros`.  Every
    #if-like branch is taken (take_else False) or every #else branch."""
    code, stack, i = [], [], 0
    active = lambda: all(stack)
    while i < len(toks):
        tk = toks[i]
        if tk.t == "#" and tk.bol:
            j = i + 1
            while j < len(toks) and not toks[j].bol:
                j += 1
            d = toks[i + 1:j]
            i = j
            if not d:
                continue
            name = d[0].t
            if name in ("if", "ifdef", "ifndef"):
                stack.append(not take_else)
            elif name == "elif":
                if stack:
                    stack[-1] = False
            elif name == "else":
                if stack:
                    stack[-1] = take_else
            elif name == "endif":
                if stack:
                    stack.pop()
            elif name == "define" and active() and len(d) > 1:
                mname = d[1].t
                params = None
                k = 2
                if len(d) > 2 and d[2].t == "(" and d[2].line == d[1].line and \
                        toks.index(d[2]) == toks.index(d[1]) + 1:
                    args, k = split_args(d, 2)
                    params = [a[0].t for a in args if a]
                macros[mname] = Macro(mname, params, d[k:])
            elif name == "undef" and active() and len(d) > 1:
                macros.pop(d[1].t, None)
            continue
        if active():
            code.append(tk)
        i += 1
    return code


# ---- types ----
# A type is a tuple (kind, const): kind 'n' 32-bit or narrower integer, 'w'
# 64-bit integer, 'f' floating, 'u' unknown, 'pg' pointer to __global,
# 'po' other pointer, 'vn'/'vw' vector of narrow/wide integers, 'b' a
# truth value.

def base_kind(words, host_types):
    """The kind of a declaration's type words (no declarator)."""
    ws = [w for w in words if w not in QUALIFIERS]
    if any(w in WIDE_TYPES for w in ws):
        return "w"
    if any(w in FLOAT_TYPES for w in ws):
        return "f"
    for w in ws:
        m = VECTOR_RE.match(w)
        if m:
            base = m.group(1)
            return "vw" if base in ("long", "ulong") else "vn" if base not in FLOAT_TYPES else "f"
    if any(w in NARROW_TYPES for w in ws):
        return "n"
    return "u"


def is_type_word(w, ctx):
    return (w in NARROW_TYPES or w in WIDE_TYPES or w in FLOAT_TYPES or w in QUALIFIERS
            or VECTOR_RE.match(w) is not None or w in ctx.typedefs or w in ctx.host_types
            or w == "void")


class Node:
    __slots__ = ("kind", "const", "op", "kids", "tok", "gid", "name", "narrow_prod", "small")

    def __init__(self, kind, const=False, op=None, kids=(), tok=None, gid=False, name=None,
                 small=None):
        self.kind, self.const, self.op, self.kids, self.tok = kind, const, op, list(kids), tok
        self.gid, self.name = gid, name
        self.narrow_prod = False
        # small: bounded by compile-time constants and the work-group size
        # (literals, host constants, local ids, masks, remainders)
        self.small = const if small is None else small


BINARY_PREC = {"*": 10, "/": 10, "%": 10, "+": 9, "-": 9, "<<": 8, ">>": 8, "<": 7, ">": 7,
               "<=": 7, ">=": 7, "==": 6, "!=": 6, "&": 5, "^": 4, "|": 3, "&&": 2, "||": 1}
ASSIGN_OPS = {"=", "+=", "-=", "*=", "/=", "%=", "<<=", ">>=", "&=", "|=", "^="}


def widest(a, b):
    if "f" in (a, b):
        return "f"
    if "u" in (a, b):
        return "u"
    if "vw" in (a, b):
        return "vw"
    if "vn" in (a, b):
        return "vn"
    if "w" in (a, b):
        return "w"
    return "n"


class Ctx:
    def __init__(self):
        self.typedefs = {}       # name -> {field: kind}
        self.fields = {}         # field name -> kind (any struct)
        self.funcs = {}          # function name -> return kind
        self.host_types = set()
        self.findings = {}       # (file, line, msg) -> None (ordered)
        self.notes = {}          # the same, for --trunc
        self.stats = {"functions": 0, "global accesses": 0, "unknown width": 0}

    def report(self, tok, msg):
        self.findings[(tok.file, tok.line, msg)] = None


class Func:
    def __init__(self, ctx, name):
        self.ctx, self.name = ctx, name
        self.vars = {}           # name -> kind
        self.taint = {}          # 32-bit variable -> line of a 32-bit product defining it
        self.small = set()       # variables bounded by constants and the work-group size
        self.params = set()      # a kernel's 32-bit parameters


class Parser:
    """A precedence parser over one expression's tokens, typing as it goes
    and reporting the findings of the docstring."""

    def __init__(self, fn, toks):
        self.fn, self.ctx, self.toks, self.i = fn, fn.ctx, toks, 0

    def peek(self, k=0):
        j = self.i + k
        return self.toks[j] if j < len(self.toks) else None

    def take(self):
        tk = self.toks[self.i]
        self.i += 1
        return tk

    def parse(self):
        if not self.toks:
            return None
        n = self.expr()
        return n

    def expr(self):
        n = self.assign()
        while self.peek() is not None and self.peek().t == ",":
            self.take()
            n = self.assign()
        return n

    def assign(self):
        lhs = self.ternary()
        tk = self.peek()
        if tk is not None and tk.t in ASSIGN_OPS:
            self.take()
            rhs = self.assign()
            self.store(lhs, rhs, tk)
            return lhs
        return lhs

    def store(self, lhs, rhs, optok, decl=False):
        """An assignment lhs op= rhs (or, decl, a declaration's initialiser)."""
        if lhs is None or rhs is None:
            return
        op = "=" if decl else optok.t
        if lhs.op == "var" and lhs.name:
            if op == "=" and rhs.small:
                self.fn.small.add(lhs.name)
            elif not (op in ("&=", "%=", ">>=", "/=") or (op in ("|=", "^=") and rhs.small)):
                self.fn.small.discard(lhs.name)
        if lhs.kind == "n" and rhs.gid:
            self.ctx.report(optok, "gid32: 32-bit %s holds a global id or group id (%s)"
                            % (lhs.name or "value", "use long"))
        if lhs.kind in ("w",) and op in ("=", "+=", "-=", "*="):
            self.widened(rhs)
        if lhs.kind == "n" and lhs.name and lhs.op == "var":
            if op == "=" or lhs.name not in self.fn.taint:
                if has_narrow_prod(rhs):
                    self.fn.taint[lhs.name] = optok.line
                elif op == "=":
                    self.fn.taint.pop(lhs.name, None)
            elif has_narrow_prod(rhs):
                self.fn.taint[lhs.name] = optok.line

    def widened(self, n):
        """n's value goes into 64-bit arithmetic: report its 32-bit products."""
        if n is None:
            return
        if n.narrow_prod and n.op in ("*", "<<"):
            self.ctx.report(n.tok, "widened: 32-bit %s widened after it may have overflowed"
                            % ("product" if n.op == "*" else "shift"))
        elif n.op in ("+", "-", "?:", "()") and n.kind == "n":
            for k in n.kids[1:] if n.op == "?:" else n.kids:
                self.widened(k)

    def ternary(self):
        c = self.binary(1)
        tk = self.peek()
        if tk is not None and tk.t == "?":
            self.take()
            a = self.assign()
            if self.peek() is not None and self.peek().t == ":":
                self.take()
            b = self.ternary()
            if a is None or b is None:
                return Node("u")
            n = Node(widest(a.kind, b.kind), a.const and b.const, "?:", [c, a, b], tk,
                     gid=a.gid or b.gid, small=a.small and b.small)
            if n.kind == "w":
                self.widened(a)
                self.widened(b)
            return n
        return c

    def binary(self, minprec):
        lhs = self.unary()
        while True:
            tk = self.peek()
            if tk is None or tk.t not in BINARY_PREC or BINARY_PREC[tk.t] < minprec:
                return lhs
            self.take()
            rhs = self.binary(BINARY_PREC[tk.t] + 1)
            lhs = self.combine(tk, lhs, rhs)

    def combine(self, tk, a, b):
        if a is None or b is None:
            return Node("u", tok=tk)
        op = tk.t
        gid = a.gid or b.gid
        if op in ("<", ">", "<=", ">=", "==", "!=", "&&", "||"):
            if a.kind == "w" or b.kind == "w":
                self.widened(a)
                self.widened(b)
            return Node("b", a.const and b.const, op, [a, b], tk, small=True)
        if a.kind in ("pg", "po") or b.kind in ("pg", "po"):
            p, e = (a, b) if a.kind in ("pg", "po") else (b, a)
            if p.kind == "pg" and op in ("+", "-"):
                self.sink(e, tk, p.name)
            return Node(p.kind, False, op, [a, b], tk, name=p.name)
        if op in (">>", "<<"):
            kind = a.kind
        else:
            kind = widest(a.kind, b.kind)
        if op == "&":
            small = a.small or b.small
        elif op == "%":
            small = b.small
        elif op in ("/", ">>"):
            small = a.small
        else:
            small = a.small and b.small
        n = Node(kind, a.const and b.const, op, [a, b], tk, gid=gid, small=small)
        if kind == "n" and op in ("*", "<<") and not n.small:
            n.narrow_prod = True
        if kind in ("w", "vw"):
            self.widened(a)
            self.widened(b)
        return n

    def sink(self, e, tk, pname):
        """e is an offset into the __global buffer pname."""
        if e is None:
            return
        self.ctx.stats["global accesses"] += 1
        if e.kind == "u":
            self.ctx.stats["unknown width"] += 1
        if e.kind in ("n",):
            bad = narrow_arith(e)
            if bad is not None:
                self.ctx.report(bad.tok, "index32: 32-bit index arithmetic (%s) into __global %s"
                                % (bad.op, pname or "buffer"))
                return
        for v, use in additive_vars(e, self.fn.params):
            self.ctx.report(use, "arg32: 32-bit kernel argument %s is an offset into __global %s "
                            "(the host must not cut a 64-bit offset to it)" % (v, pname or "buffer"))
        for v, use in tainted_vars(e, self.fn.taint):
            self.ctx.report(use, "tainted: index into __global %s uses 32-bit %s, computed by a "
                            "32-bit product or shift" % (pname or "buffer", v))

    def unary(self):
        tk = self.peek()
        if tk is None:
            return None
        if tk.t in ("-", "+", "~", "!", "*", "&", "++", "--"):
            self.take()
            n = self.unary()
            if n is None:
                return None
            if tk.t == "!":
                return Node("b", n.const, "!", [n], tk, small=True)
            if tk.t == "*":
                return Node("u", False, "deref", [n], tk)
            if tk.t == "&":
                return Node("po", False, "addr", [n], tk)
            r = Node(n.kind, n.const, "u" + tk.t, [n], tk, gid=n.gid, name=n.name, small=n.small)
            if tk.t in ("++", "--"):
                r.op = "var" if n.op == "var" else r.op
                if n.op == "var":
                    self.fn.small.discard(n.name)
            return r
        if tk.t == "sizeof":
            self.take()
            if self.peek() is not None and self.peek().t == "(":
                self.skip_parens()
            else:
                self.unary()
            return Node("w", True, "sizeof", tok=tk)
        if tk.t == "(" and self.is_cast():
            self.take()
            words = []
            while self.peek() is not None and self.peek().t != ")":
                words.append(self.take().t)
            self.take()
            kind = base_kind(words, self.ctx.host_types)
            ptr = "*" in words
            if ptr:
                kind = "pg" if ("__global" in words or "global" in words) else "po"
            # a vector literal (int2)(a, b)
            if self.peek() is not None and self.peek().t == "(" and VECTOR_RE.match(words[-1]):
                self.take()
                self.i -= 1
                args = self.call_args()
                if kind == "vw":
                    for a in args:
                        self.widened(a)
                return Node(kind, all(a.const for a in args if a), "vec", tok=tk)
            n = self.unary()
            if n is None:
                return Node(kind, tok=tk)
            if kind in ("w", "vw"):
                self.widened(n)
            if kind == "n" and n.kind == "w" and not n.small and not ptr:
                self.ctx.notes[(tk.file, tk.line, "trunc: a 64-bit value cast to 32 bits")] = None
            r = Node(kind, n.const, "cast", [n], tk, gid=n.gid, name=n.name, small=n.small)
            if ptr:
                r.name = n.name
            return r
        return self.postfix(self.primary())

    def is_cast(self):
        j = self.i + 1
        words = []
        while j < len(self.toks) and self.toks[j].t != ")":
            t = self.toks[j]
            if t.kind != "id" and t.t != "*":
                return False
            words.append(t.t)
            j += 1
        if not words or j >= len(self.toks):
            return False
        return all(w == "*" or is_type_word(w, self.ctx) for w in words) and \
            any(w != "*" and w not in QUALIFIERS for w in words)

    def skip_parens(self):
        depth = 0
        while self.peek() is not None:
            t = self.take().t
            if t == "(":
                depth += 1
            elif t == ")":
                depth -= 1
                if depth == 0:
                    return

    def call_args(self):
        """At '(': the parsed arguments of a call."""
        self.take()
        args = []
        if self.peek() is not None and self.peek().t == ")":
            self.take()
            return args
        while self.peek() is not None:
            args.append(self.assign())
            tk = self.peek()
            if tk is None:
                break
            self.take()
            if tk.t == ")":
                break
        return args

    def primary(self):
        tk = self.peek()
        if tk is None:
            return None
        if tk.t == "(":
            self.take()
            n = self.expr()
            if self.peek() is not None and self.peek().t == ")":
                self.take()
            if n is None:
                return Node("u", tok=tk)
            r = Node(n.kind, n.const, "()", [n], n.tok, gid=n.gid, name=n.name, small=n.small)
            r.narrow_prod = n.narrow_prod
            if n.narrow_prod:
                r.op = n.op
                r.kids = n.kids
            return r
        self.take()
        if tk.kind == "num":
            s = tk.t.lower()
            if "." in s or ("e" in s and not s.startswith("0x")) or s.endswith("f") or s.endswith("h"):
                return Node("f", True, tok=tk)
            digits = s.rstrip("ul")
            try:
                v = int(digits, 16) if digits.startswith("0x") else int(digits, 8) \
                    if len(digits) > 1 and digits.startswith("0") else int(digits)
            except ValueError:
                v = 0
            wide = "l" in s[len(digits):] or v > 0xFFFFFFFF or ("u" not in s[len(digits):] and v > 0x7FFFFFFF)
            return Node("w" if wide else "n", True, "lit", tok=tk)
        if tk.kind == "str":
            return Node("po", True, tok=tk)
        if tk.kind != "id":
            return Node("u", tok=tk)
        name = tk.t
        nxt = self.peek()
        if nxt is not None and nxt.t == "(":
            args = self.call_args()
            return self.call(tk, name, args)
        if name in self.fn.vars:
            return Node(self.fn.vars[name], False, "var", tok=tk, name=name,
                        small=name in self.fn.small)
        if name in ("true", "false", "NULL"):
            return Node("n", True, "lit", tok=tk)
        if name.isupper() or re.match(r"^[A-Z][A-Z0-9_]*$", name) or name.startswith("CLK_") or \
                name.startswith("CL_"):
            return Node("n", True, "lit", tok=tk, name=name)
        return Node("u", False, "var", tok=tk, name=name)

    def call(self, tk, name, args):
        if name in GID_CALLS:
            return Node("w", False, "call", tok=tk, gid=True)
        if name in LID_CALLS:
            return Node("w", False, "call", tok=tk, small=True)
        m = re.match(r"^v(load|store)(_half|a_half)?(\d*)(_rt[ezpn])?$", name)
        if m:
            off, ptr = (args[0], args[1]) if m.group(1) == "load" else \
                (args[1] if len(args) > 1 else None, args[2] if len(args) > 2 else None)
            if ptr is not None and ptr.kind == "pg":
                self.sink(off, tk, ptr.name)
            return Node("f" if m.group(2) else "u", False, "call", tok=tk)
        if name in ("min", "max", "clamp", "abs", "mad24", "mul24", "mad_sat", "add_sat",
                    "sub_sat", "hadd", "rotate", "select", "abs_diff"):
            kinds = [a.kind for a in args if a is not None]
            k = kinds[0] if kinds else "u"
            for x in kinds[1:]:
                k = widest(k, x)
            if k in ("w",):
                for a in args:
                    self.widened(a)
            sm = [a is not None and a.small for a in args]
            return Node(k, all(a is not None and a.const for a in args), "call", tok=tk,
                        gid=any(a is not None and a.gid for a in args),
                        small=any(sm) if name == "min" else all(sm))
        m = re.match(r"^(convert|as)_(\w+?)(_sat)?(_rt[ezpn])?$", name)
        if m:
            k = base_kind([m.group(2)], self.ctx.host_types)
            if k in ("w", "vw"):
                for a in args:
                    self.widened(a)
            return Node(k, False, "call", tok=tk)
        if name.startswith("atomic_") or name.startswith("atom_"):
            return Node("n", False, "call", tok=tk)
        return Node(self.ctx.funcs.get(name, "u"), False, "call", tok=tk)

    def postfix(self, n):
        while n is not None and self.peek() is not None:
            tk = self.peek()
            if tk.t == "[":
                self.take()
                start = self.i
                depth = 1
                while self.i < len(self.toks):
                    t = self.toks[self.i].t
                    depth += t == "["
                    depth -= t == "]"
                    if depth == 0:
                        break
                    self.i += 1
                inner = Parser(self.fn, self.toks[start:self.i])
                e = inner.expr()
                self.i += 1
                if n.kind == "pg":
                    self.sink(e, tk, n.name)
                elem = self.fn.vars.get(("elem", n.name), "u")
                n = Node(elem, False, "index", [n, e] if e else [n], tk, name=None)
            elif tk.t in (".", "->"):
                self.take()
                f = self.take()
                if n.kind in ("vn", "vw"):
                    n = Node("n" if n.kind == "vn" else "w", False, "member", [n], f)
                else:
                    n = Node(self.ctx.fields.get(f.t, "u"), False, "member", [n], f, name=f.t)
            elif tk.t in ("++", "--"):
                self.take()
                if n.op == "var":
                    self.fn.small.discard(n.name)
            elif tk.t == "(":
                self.call_args()
                n = Node("u", tok=tk)
            else:
                break
        return n


def has_narrow_prod(n):
    if n is None:
        return False
    if n.narrow_prod:
        return True
    if n.kind != "n" or n.op in ("index", "call", "member", "cast"):
        return False
    return any(has_narrow_prod(k) for k in n.kids)


def narrow_arith(n):
    """The first 32-bit arithmetic node of an index expression that can
    overflow: a product/shift with a non-constant operand, or a sum or
    difference of two non-constant terms."""
    if n is None or n.kind != "n" or n.op in ("index", "call", "member", "cast", "?:"):
        if n is not None and n.op == "?:":
            for k in n.kids[1:]:
                r = narrow_arith(k)
                if r is not None:
                    return r
        return None
    if n.narrow_prod:
        return n
    if n.op in ("+", "-") and not n.kids[0].const and not n.kids[1].const:
        return n
    for k in n.kids:
        r = narrow_arith(k)
        if r is not None:
            return r
    return None


def vars_in(n, names, kids_of, out=None):
    """The 32-bit variables of `names` in n, walking the children kids_of(node)
    gives: [(name, token)]."""
    out = [] if out is None else out
    if n is None:
        return out
    if n.op == "var" and n.kind == "n" and n.name in names:
        out.append((n.name, n.tok))
    for k in kids_of(n):
        vars_in(k, names, kids_of, out)
    return out


def tainted_vars(n, taint):
    """Every use in n but inside subscripts and calls, and but as a factor of
    a 64-bit product (a variable scaled by a 64-bit stride is a coordinate,
    not an offset)."""
    return vars_in(n, taint, lambda m: [] if m.op in ("index", "call") or
                   (m.op == "*" and m.kind == "w") else m.kids)


def additive_vars(n, names):
    """The uses in n that are terms of its sums (not factors)."""
    return vars_in(n, names, lambda m: m.kids if m.op in ("+", "-", "()", "cast")
                   else m.kids[1:] if m.op == "?:" else [])


# ---- statements ----

def split_statements(toks):
    """Splits a function body into statements: lists of tokens, control
    headers split into their parts."""
    out, cur, i = [], [], 0
    while i < len(toks):
        t = toks[i]
        if t.t in ("{", "}", ";"):
            if cur:
                out.append(cur)
            cur = []
            if t.t != ";":
                out.append([t])
            i += 1
            continue
        if not cur and t.t in ("if", "while", "switch") and i + 1 < len(toks) and toks[i + 1].t == "(":
            args, nxt = split_args(toks, i + 1)
            out.append([x for k, a in enumerate(args) for x in (a if k == 0 else [Tok(",", "op", t.file, t.line)] + a)])
            i = nxt
            continue
        if not cur and t.t == "for" and i + 1 < len(toks) and toks[i + 1].t == "(":
            j, depth, part, parts = i + 2, 1, [], []
            while j < len(toks):
                x = toks[j]
                depth += x.t == "("
                depth -= x.t == ")"
                if depth == 0:
                    break
                if x.t == ";" and depth == 1:
                    parts.append(part)
                    part = []
                else:
                    part.append(x)
                j += 1
            parts.append(part)
            while len(parts) < 3:
                parts.append([])
            out.append(("for", parts[0], parts[1], parts[2]))
            i = j + 1
            continue
        if not cur and t.t in ("else", "do", "return", "case", "default"):
            i += 1
            if t.t in ("case", "default"):
                while i < len(toks) and toks[i].t != ":":
                    i += 1
                i += 1
            continue
        cur.append(t)
        i += 1
    if cur:
        out.append(cur)
    return out


def declaration(fn, st):
    """If st is a declaration, registers its names and returns the list of
    (name token, kind, initialiser tokens); else None."""
    ctx = fn.ctx
    i, words = 0, []
    while i < len(st) and st[i].kind == "id" and is_type_word(st[i].t, ctx):
        if st[i].t == "__attribute__":
            _, i = split_args(st, i + 1)
            continue
        words.append(st[i].t)
        i += 1
    if not words or all(w in QUALIFIERS for w in words):
        return None
    if i >= len(st) or (st[i].kind != "id" and st[i].t != "*"):
        return None
    kind0 = base_kind(words, ctx.host_types)
    glob = "__global" in words or "global" in words
    decls = []
    while i < len(st):
        ptr = False
        while i < len(st) and st[i].t in ("*", "const", "restrict"):
            ptr = ptr or st[i].t == "*"
            i += 1
        if i >= len(st) or st[i].kind != "id":
            return decls or None
        name = st[i]
        i += 1
        arr = False
        while i < len(st) and st[i].t == "[":
            _, i = split_args(st, i)
            arr = True
        kind = ("pg" if glob else "po") if ptr else kind0
        if arr and not ptr:
            fn.vars[("elem", name.t)] = kind0
            kind = "po"
        elif ptr:
            fn.vars[("elem", name.t)] = kind0
        init = []
        if i < len(st) and st[i].t == "=":
            i += 1
            depth = 0
            while i < len(st):
                t = st[i].t
                if t in "([{":
                    depth += 1
                elif t in ")]}":
                    depth -= 1
                elif t == "," and depth == 0:
                    break
                init.append(st[i])
                i += 1
        fn.vars[name.t] = kind
        decls.append((name, kind, init))
        if i < len(st) and st[i].t == ",":
            i += 1
            continue
        break
    return decls


def for_header(fn, init, cond, step):
    """A for loop's header: a counter that starts small stays small when the
    condition bounds it by a small value (or it only decreases)."""
    check_statement(fn, init)
    names = [t.t for t in init if t.kind == "id" and t.t in fn.small]
    c = Parser(fn, cond).parse() if cond else None
    keep = set()
    if c is not None and c.op in ("<", "<=", ">", ">=") and len(c.kids) == 2:
        v, e = c.kids
        if v.op in ("var", "()") and v.name in names:
            if c.op in ("<", "<=") and e.small:
                keep.add(v.name)
            elif c.op in (">", ">=") and all(t.t not in ("++", "+=", "*=", "<<=") for t in step):
                keep.add(v.name)
    check_statement(fn, step)
    fn.small.update(keep)


def check_body(fn, toks):
    for st in split_statements(toks):
        if isinstance(st, tuple):
            for_header(fn, *st[1:])
        else:
            check_statement(fn, st)


def check_statement(fn, st):
    if st:
        if len(st) == 1 and st[0].t in "{}":
            return
        decls = declaration(fn, st)
        if decls is None:
            Parser(fn, st).parse()
            return
        for name, kind, init in decls:
            if not init:
                fn.small.discard(name.t)
                continue
            p = Parser(fn, init)
            rhs = p.parse()
            lhs = Node(kind, False, "var", tok=name, name=name.t)
            p.store(lhs, rhs, name, decl=True)


def params_of(fn, toks):
    """Registers a parameter list's names (toks between the parentheses)."""
    args, _ = split_args([Tok("(", "op", "", 0)] + toks + [Tok(")", "op", "", 0)], 0)
    for a in args:
        if a and a[-1].kind == "id":
            declaration(fn, a)


def find_functions(ctx, code):
    """Yields (name, return words, params tokens, body tokens) of each function
    definition at file level; records struct typedefs."""
    i, depth = 0, 0
    while i < len(code):
        t = code[i]
        if t.t == "typedef" and i + 2 < len(code) and code[i + 1].t == "struct":
            j = i + 2
            while j < len(code) and code[j].t != "{":
                j += 1
            k, d = j, 0
            while k < len(code):
                d += code[k].t == "{"
                d -= code[k].t == "}"
                if d == 0:
                    break
                k += 1
            body = code[j + 1:k]
            fields = {}
            fn = Func(ctx, "struct")
            for st in split_statements(body):
                for name, kind, _ in declaration(fn, st) or []:
                    fields[name.t] = kind
            tname = code[k + 1].t if k + 1 < len(code) else ""
            ctx.typedefs[tname] = fields
            ctx.fields.update(fields)
            i = k + 2
            continue
        if t.t == "(" and i > 0 and code[i - 1].kind == "id" and code[i - 1].t not in KEYWORDS:
            _, j = split_args(code, i)
            # skip attributes between ) and {
            k = j
            while k < len(code) and code[k].t == "__attribute__":
                _, k = split_args(code, k + 1)
            if k < len(code) and code[k].t == "{":
                d, e = 0, k
                while e < len(code):
                    d += code[e].t == "{"
                    d -= code[e].t == "}"
                    if d == 0:
                        break
                    e += 1
                s = i - 2
                words = []
                while s >= 0 and code[s].kind == "id" and code[s].t not in KEYWORDS:
                    words.insert(0, code[s].t)
                    s -= 1
                yield code[i - 1].t, words, code[i + 1:j - 1], code[k + 1:e]
                i = e + 1
                continue
            i = j
            continue
        i += 1


HOST_TYPE_RE = re.compile(r"^(?:[A-Z][A-Z0-9_]*|[a-z]+_t|ixt)$")


def analyse(root, rel, prelude_macros, ctx, take_else):
    toks, _, _ = tokenize(os.path.join(root, rel), rel)
    macros = dict(prelude_macros)
    code = preprocess(toks, macros, take_else)
    code = expand(code, macros)
    # Host-defined type names: an identifier followed by a declarator.
    for a, b in zip(code, code[1:]):
        if a.kind == "id" and b.kind == "id" and HOST_TYPE_RE.match(a.t) and a.t not in KEYWORDS:
            ctx.host_types.add(a.t)
    funcs = list(find_functions(ctx, code))
    for name, words, _, _ in funcs:
        ctx.funcs[name] = base_kind(words, ctx.host_types)
    for name, words, params, body in funcs:
        fn = Func(ctx, name)
        params_of(fn, params)
        if "__kernel" in words or "kernel" in words:
            fn.params = {k for k, v in fn.vars.items() if isinstance(k, str) and v == "n"}
        ctx.stats["functions"] += 1
        check_body(fn, body)


def markers_of(root, rel):
    """{line: marker text} of a file's idx32 comments, and the lines each covers."""
    toks, comments, code_lines = tokenize(os.path.join(root, rel), rel)
    ends = sorted(t.line for t in toks if t.t in (";", "{", "}"))
    out = {}
    seen = set()
    for line in sorted(comments):
        for c in comments[line]:
            m = MARKER_RE.search(c)
            if not m or (c, id(c)) in seen:
                continue
            seen.add((c, id(c)))
            start = line
            end = line + c.count("\n")
            cover = {start, end}
            if end not in code_lines and start not in code_lines:
                # a comment-only block: the statement below it
                last = next((e for e in ends if e > end), end + 1)
                cover.update(range(end + 1, last + 1))
            body = re.sub(r"\n\s*\*(?!/)", "\n", m.group(1))   # a block's continuation stars
            text = " ".join(body.replace("*/", "").replace("\\\n", " ").replace("\\", " ").split())
            out[start] = (text, cover)
    return out


def missing_function(root, text):
    """The first `path (function)` of a marker whose file does not define
    or call the function, else None."""
    for path, fn in re.findall(r"((?:core|host|dispatch|ops|cl_kernels)/[\w./-]+)\s*\((\w+)\)", text):
        with open(os.path.join(root, path), encoding="utf-8") as f:
            if not re.search(r"\b%s\s*\(" % re.escape(fn), f.read()):
                return fn
    return None


def apply_markers(root, findings, marks, stale_why):
    """Sorts findings [(file, line, msg)] into problems and audited
    exceptions by the markers {file: {line: (text, covered lines)}}, and
    reports each marker without a bound, naming a missing file or
    function, or covering no finding (stale_why says what is absent)."""
    problems, audited, used = [], [], set()
    for (file, line, msg) in findings:
        mk = marks.get(file, {})
        hit = [s for s, (_, cover) in mk.items() if line in cover]
        if hit:
            used.add((file, hit[0]))
            audited.append("%s:%d: %s [audited: %s]" % (file, line, msg, mk[hit[0]][0]))
        else:
            problems.append("%s:%d: %s" % (file, line, msg))
    for rel, mk in marks.items():
        for s, (text, _) in mk.items():
            paths = MARKER_PATH_RE.findall(text)
            if not re.search(r"<|<=|\u2264|\bfits?\b", text) or not paths:
                problems.append("%s:%d: idx32 marker without a bound and the file that checks "
                                "it: %r" % (rel, s, text))
            elif not all(os.path.exists(os.path.join(root, p)) for p in paths):
                problems.append("%s:%d: idx32 marker names a missing file: %r" % (rel, s, text))
            elif missing_function(root, text):
                problems.append("%s:%d: idx32 marker names a function its file lacks (%s): %r"
                                % (rel, s, missing_function(root, text), text))
            elif (rel, s) not in used:
                problems.append("%s:%d: stale idx32 marker (%s): %r" % (rel, s, stale_why, text))
    return problems, audited


def print_sorted(problems, audited):
    """Prints the problems, then the audited exceptions, each by file and line."""
    key = lambda s: (s.split(":")[0], int(s.split(":")[1]))
    for p in sorted(set(problems), key=key) + sorted(set(audited), key=key):
        print(p)


def main(argv):
    args = list(argv[1:])
    listing = "--list" in args
    trunc = "--trunc" in args
    args = [a for a in args if a not in ("--list", "--trunc")]
    if len(args) > 1 or any(a.startswith("-") for a in args):
        print(next(p for p in __doc__.split("\n\n") if p.startswith("Usage:")))
        return 2
    root = args[0] if args else os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    kdir = os.path.join(root, "cl_kernels")
    if not os.path.isdir(kdir):
        print("check_index_width: no cl_kernels/ under %s" % root)
        return 2
    files = sorted(f for f in os.listdir(kdir) if f.endswith((".cl", ".clh")))
    ctx = Ctx()
    for take_else in (False, True):
        prelude = {}
        for h in ("pw_prelude.clh", "items.clh"):
            if h in files:
                htoks, _, _ = tokenize(os.path.join(kdir, h), "cl_kernels/" + h)
                preprocess(htoks, prelude, take_else)
        for f in files:
            analyse(root, "cl_kernels/" + f, prelude, ctx, take_else)
    marks = {"cl_kernels/" + f: markers_of(root, "cl_kernels/" + f) for f in files}
    problems, audited = apply_markers(root, ctx.findings, marks,
                                      "no 32-bit index arithmetic here")
    print_sorted(problems, audited if listing else [])
    if trunc:
        for (file, line, msg) in sorted(ctx.notes):
            print("%s:%d: note: %s" % (file, line, msg))
    print("check_index_width: %d kernel files, %d functions, %d __global accesses (both "
          "#if sides; %d of a host-chosen or unknown width); %d finding(s), %d audited "
          "exception(s)" % (len(files), ctx.stats["functions"], ctx.stats["global accesses"],
                            ctx.stats["unknown width"], len(set(problems)), len(set(audited))))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
