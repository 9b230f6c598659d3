#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""tools/check_host_narrowing.py: the host side of the index-width audit.

tools/check_index_width.py reads the kernels; it cannot see a host that cuts
a 64-bit value (a size, a count, an offset, a stride) to 32 bits before a
kernel gets it.  This tool reads every ops/**/*.c and reports each place
where a 64-bit value is narrowed to a 32-bit type and then

  arg        passed as a kernel argument: the narrowed variable's address
             goes into a host_arg array or a kernel-argument macro
             ({sizeof v, &v}, A(v), (host_arg){4, &v}, clSetKernelArg), or
             the narrowing sits in such an initializer itself;
  size       used as a size: an argument of malloc, calloc, realloc,
             alloca, memcpy, memset, memmove, or of a launch's global size
             (host_launch, host_launch_items, kit_run, kit_launches),

unless a bound was checked first: an earlier statement of the same function
that compares one of the narrowed expression's 64-bit names with INT32_MAX,
INT_MAX, UINT32_MAX, UINT_MAX, CL_INT_MAX, a `*_MAX` of the family's own
(GEMM_DIM_MAX, ...) or calls a `*fits*` helper on it.  A narrowing is:

  - an explicit cast to int, unsigned, short, cl_int, cl_uint, cl_short,
    cl_ushort, int32_t, uint32_t, int16_t or uint16_t of a 64-bit
    expression;
  - an implicit conversion: a variable or struct field of one of those
    types declared with, or assigned, a 64-bit expression.

A 64-bit expression holds a name declared int64_t, uint64_t, size_t,
ssize_t, ptrdiff_t, cl_long, cl_ulong, long or long long (locals,
parameters, struct fields declared only with such types anywhere in the
tree), a call of a function returning one, or an L/LL literal or one above
2^31 - 1; a truth value (a comparison, !, && or ||), a sizeof, a remainder
or mask by a literal, and the two halves of a 64-bit value cast side by
side ((uint32_t)x and (uint32_t)(x >> 32), a seed's key words) are not
narrowings of a size.

An audited exception is the kernel audit's marker, on the line or in a
comment-only block right above the statement:

    idx32: <bound> ... <file> (<function>)

naming the bound (it holds "<", "<=" or "fits") and the host file and
function that check it; a marker that covers no finding (stale), or lacks
the bound, the file or the function, is reported.

Usage: check_host_narrowing.py [--list] [ROOT]   (ROOT defaults to the
repository this script is in; --list prints the audited exceptions too).
Exit status 0 when clean, 1 with findings, 2 on usage errors.
Dependency-free (Python 3 standard library); docs/reliability.md says what
it reads and what it cannot see.
"""
import importlib.util
import os
import re
import sys

_spec = importlib.util.spec_from_file_location(
    "check_index_width", os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                      "check_index_width.py"))
ciw = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(ciw)

WIDE = {"int64_t", "uint64_t", "size_t", "ssize_t", "ptrdiff_t", "cl_long", "cl_ulong",
        "intptr_t", "uintptr_t", "off_t"}
NARROW = {"int", "unsigned", "short", "cl_int", "cl_uint", "cl_short", "cl_ushort", "int32_t",
          "uint32_t", "int16_t", "uint16_t"}
OTHER_TYPES = {"char", "float", "double", "bool", "void", "cl_float", "cl_double", "cl_mem",
               "uint8_t", "int8_t", "cl_char", "cl_uchar", "cl_half", "uint16_t"}
QUAL = {"const", "static", "volatile", "register", "inline", "signed", "struct", "enum",
        "CLOPS_API", "restrict"}
BOUND_RE = re.compile(r"^(?:U?INT(?:8|16|32)?_M(?:AX|IN)|CL_U?INT_M(?:AX|IN)|SHRT_MAX|"
                      r"[A-Z][A-Z0-9_]*MAX|\w*fits\w*)$")
SMALL_FUNCS = {"clops_dtype_size", "kit_dtype_size"}   # at most 16
SIZE_CALLS = {"malloc", "calloc", "realloc", "alloca", "memcpy", "memset", "memmove",
              "host_launch", "host_launch_items", "kit_run", "kit_launches"}
ARG_CALLS = {"clSetKernelArg"}
ASSIGN_OPS = {"=", "+=", "-=", "*=", "/=", "<<=", "|="}
TRUTH_OPS = {"==", "!=", "<", ">", "<=", ">=", "&&", "||", "!"}


def strip_comments(text):
    return re.sub(r"//[^\n]*|/\*.*?\*/", lambda m: re.sub(r"[^\n]", " ", m.group()), text,
                  flags=re.S)


def type_kind(words):
    """'w', 'n' or 'o' of a declaration's type words."""
    ws = [w for w in words if w not in QUAL]
    if not ws:
        return None
    if any(w in WIDE for w in ws) or ws.count("long") >= 1 and "double" not in ws:
        return "w"
    if any(w in NARROW for w in ws):
        return "n"
    return "o"


DECL_RE = re.compile(
    r"(?:^|[;{}(,])\s*((?:(?:const|static|volatile|unsigned|signed|struct|enum|long|short)\s+)*"
    r"(?:[A-Za-z_]\w*))\s+((?:\**\s*[A-Za-z_]\w*\s*(?:\[[^\]]*\]\s*)*(?:,\s*)?)+)\s*[;)=,]")


def struct_fields(body):
    """{field: kind} of a struct body's declarations."""
    out = {}
    for st in body.split(";"):
        st = " ".join(st.split())
        if not st or "(" in st or "{" in st or "}" in st:
            continue
        mm = re.match(r"((?:\w+\s+)*?\w+)\s+((?:\**\s*\w+\s*(?:\[[^\]]*\])*"
                      r"\s*(?::\s*\d+)?\s*,?\s*)+)$", st)
        if not mm:
            continue
        k = type_kind(mm.group(1).split())
        if k is None:
            continue
        for d in mm.group(2).split(","):
            nm = re.search(r"(\w+)\s*(?:\[|:|$)", d.strip())
            if nm:
                out[nm.group(1)] = k
    return out


def tree_tables(root):
    """The tree's struct fields ({field: set of kinds} over every struct, and
    {struct or typedef name: {field: kind}}) and {function: kind} of every
    function's return type, over its C sources and headers."""
    fields, structs, funcs = {}, {}, {}
    for top in ("core", "host", "ops", "codegen_pointwise", "dispatch", "ref", "include",
                "tools/check"):
        base = os.path.join(root, top)
        for dp, _, fs in os.walk(base):
            for f in fs:
                if not f.endswith((".c", ".h")):
                    continue
                text = strip_comments(open(os.path.join(dp, f), encoding="utf-8",
                                           errors="replace").read())
                for m in re.finditer(r"\b(typedef\s+)?struct\s*(\w*)\s*\{", text):
                    depth, i = 1, m.end()
                    while i < len(text) and depth:
                        depth += text[i] == "{"
                        depth -= text[i] == "}"
                        i += 1
                    fl = struct_fields(text[m.end():i - 1])
                    names = [m.group(2)] if m.group(2) else []
                    if m.group(1):
                        td = re.match(r"\s*(\w+)\s*;", text[i:])
                        if td:
                            names.append(td.group(1))
                    for nm in names:
                        structs[nm] = fl
                    for k, v in fl.items():
                        fields.setdefault(k, set()).add(v)
                for m in re.finditer(r"^\s*((?:(?:static|inline|const|CLOPS_API|unsigned|"
                                     r"long|signed)\s+)*)(\w+)\s+(\w+)\s*\(", text, re.M):
                    k = type_kind((m.group(1) + " " + m.group(2)).split())
                    if k and m.group(3) not in ciw.KEYWORDS:
                        funcs.setdefault(m.group(3), k)
    return fields, structs, funcs


def split_statements(toks):
    """A function body's statements: token lists split at ; { and }, every
    keyword kept (an `if (...) return` is one statement)."""
    out, cur = [], []
    for t in toks:
        if t.t in ("{", "}", ";"):
            if cur:
                out.append(cur)
            cur = []
        else:
            cur.append(t)
    if cur:
        out.append(cur)
    return out


def split_top(toks):
    """A token list split at its top-level commas."""
    parts, cur, d = [], [], 0
    for tk in toks:
        d += tk.t in "([{"
        d -= tk.t in ")]}"
        if tk.t == "," and d == 0:
            parts.append(cur)
            cur = []
        else:
            cur.append(tk)
    parts.append(cur)
    return parts


class Finder:
    def __init__(self, rel, fields, structs, funcs):
        self.rel, self.fields, self.structs, self.funcs = rel, fields, structs, funcs
        self.findings = []
        self.arg_fields = set()   # (struct, field or "*") passed as kernel arguments

    # ---- names and types ----
    def field_kind(self, toks, i, ltype):
        """Kind of the field toks[i] (after . or ->): from its struct's
        declaration when the base is a name of a known struct type, else
        from every struct's (when they agree)."""
        base = toks[i - 2].t if i >= 2 and toks[i - 2].kind == "id" else None
        st = self.structs.get(ltype.get(base)) if base else None
        if st is not None and toks[i].t in st:
            return st[toks[i].t], ltype.get(base)
        kinds = self.fields.get(toks[i].t, set())
        return (next(iter(kinds)) if len(kinds) == 1 else None), None

    def wide_names(self, toks, local, ltype):
        """The 64-bit names of an expression (empty: not 64-bit)."""
        out = []
        for i, tk in enumerate(toks):
            prev = toks[i - 1].t if i else ""
            nxt = toks[i + 1].t if i + 1 < len(toks) else ""
            if tk.kind == "num":
                v = tk.t.rstrip("uUlL")
                if re.search(r"[lL]", tk.t) or (re.fullmatch(r"\d+|0[xX][0-9a-fA-F]+", v) and
                                                 int(v, 0) > 0x7fffffff):
                    out.append(tk.t)
            elif tk.kind != "id":
                continue
            elif prev in (".", "->"):
                if self.field_kind(toks, i, ltype)[0] == "w":
                    out.append(tk.t)
            elif nxt == "(":
                if self.funcs.get(tk.t) == "w" and tk.t not in SMALL_FUNCS:
                    out.append(tk.t)
            elif local.get(tk.t) == "w":
                out.append(tk.t)
        return out

    @staticmethod
    def top_ops(toks):
        depth, ops = 0, []
        for k, tk in enumerate(toks):
            if tk.t in "([{":
                depth += 1
            elif tk.t in ")]}":
                depth -= 1
            elif depth == 0 and tk.kind == "op":
                ops.append((k, tk.t))
        return ops

    def benign(self, toks):
        """A truth value, a sizeof, a remainder or mask by a literal."""
        if not toks:
            return True
        if toks[0].t == "sizeof":
            return True
        ops = self.top_ops(toks)
        if toks[0].t == "!" or any(o in TRUTH_OPS for _, o in ops):
            return True
        for k, o in ops:
            if o in ("%", "&") and k + 1 < len(toks) and toks[k + 1].kind == "num" and \
                    k + 2 == len(toks):
                return True
        if len(toks) >= 2 and toks[0].t == "(" and toks[-1].t == ")":
            d = 0
            for j, tk in enumerate(toks[:-1]):
                d += tk.t == "("
                d -= tk.t == ")"
                if d == 0:
                    return False
            return self.benign(toks[1:-1])
        return False

    # ---- functions ----
    def scope(self, params, body):
        local, ltype = {}, {}
        self.declare(params, local, ltype, split_commas=True)
        stmts = split_statements(body)
        for st in stmts:
            self.declare(st, local, ltype)
        # a 64-bit local initialised as `LITERAL / x` (16 / element size)
        # holds a small value
        for st in stmts:
            for j in range(1, len(st) - 3):
                if st[j].t == "=" and st[j - 1].kind == "id" and local.get(st[j - 1].t) == "w" \
                        and st[j + 1].kind == "num" and st[j + 2].t == "/":
                    local[st[j - 1].t] = "s"
        return local, ltype, stmts

    def collect_args(self, params, body):
        """First pass: the struct fields (and whole structs) this file passes
        to kernels by address."""
        _, ltype, stmts = self.scope(params, body)
        for st in stmts:
            for a in range(len(st) - 1):
                if st[a].t != "&":
                    continue
                b = a + 1 + (st[a + 1].t == "(")
                if b >= len(st) or st[b].kind != "id":
                    continue
                t = ltype.get(st[b].t)
                if b + 2 < len(st) and st[b + 1].t in (".", "->"):
                    self.arg_fields.add((t, st[b + 2].t))
                elif t in self.structs:
                    self.arg_fields.add((t, "*"))

    def run(self, name, params, body):
        local, ltype, stmts = self.scope(params, body)
        for si, st in enumerate(stmts):
            for site in self.sites(st, local, ltype):
                self.judge(site, stmts, si, local, ltype)

    def declare(self, st, local, ltype, split_commas=False):
        for g in split_top(st) if split_commas else [st]:
            k = 0
            while k < len(g) and g[k].t in ("for", "(", "else", "do"):
                k += 1
            words = []
            while k < len(g) and g[k].kind == "id" and g[k].t not in ciw.KEYWORDS:
                if k + 1 < len(g) and (g[k + 1].kind == "id" or g[k + 1].t == "*") or \
                        g[k].t in QUAL or g[k].t in ("long", "short", "unsigned"):
                    words.append(g[k].t)
                    k += 1
                    continue
                if words and g[k].t in ("int", "long"):
                    words.append(g[k].t)
                    k += 1
                break
            while k < len(g) and g[k].t == "*":
                k += 1
            if not words or k >= len(g) or g[k].kind != "id":
                continue
            kind = type_kind(words)
            tname = [w for w in words if w not in QUAL][-1] if \
                [w for w in words if w not in QUAL] else None
            d, expect_name = 0, True
            while k < len(g):
                tk = g[k]
                if tk.t in "([{":
                    d += 1
                elif tk.t in ")]}":
                    d -= 1
                elif d == 0 and tk.t == ",":
                    expect_name = True
                elif d == 0 and tk.t == "=":
                    expect_name = False
                elif expect_name and d == 0 and tk.kind == "id":
                    local[tk.t] = kind if tk.t not in local or local[tk.t] == kind else "o"
                    ltype[tk.t] = tname
                    expect_name = False
                k += 1

    def sites(self, st, local, ltype):
        """(line, lhs, expression tokens, how, statement, cast index) of each
        narrowing in a statement; lhs is a name, ("field", struct, field),
        or None."""
        out = []
        d = 0
        for j, tk in enumerate(st):     # the rest of a for header: drop it
            d += tk.t in "([{"
            d -= tk.t in ")]}"
            if d < 0:
                st, d = st[j + 1:], 0
                break
        k = 0
        while k < len(st) and st[k].t in ("for", "(", "else", "do"):
            k += 1
        words = []
        while k < len(st) and st[k].kind == "id" and (st[k].t in QUAL or st[k].t in NARROW or
                                                      st[k].t in WIDE or st[k].t in OTHER_TYPES
                                                      or st[k].t in ("long", "short")):
            words.append(st[k].t)
            k += 1
        decl_kind = type_kind(words) if words and k < len(st) and st[k].kind == "id" else None
        whole = set()
        for p in split_top(st[k:] if decl_kind else st):
            d = 0
            for j, tk in enumerate(p):
                if tk.t in "([{":
                    d += 1
                elif tk.t in ")]}":
                    d -= 1
                elif d == 0 and tk.t in ASSIGN_OPS:
                    lhs, rhs = p[:j], p[j + 1:]
                    lk, lname = self.lhs_kind(lhs, local, ltype, decl_kind)
                    if lk == "n":
                        e, how = self.uncast(rhs)
                        if e:
                            whole.add(id(e[0]))
                        if not self.benign(e) and self.wide_names(e, local, ltype) and \
                                not self.split_half(st, e):
                            out.append((tk.line, lname, e, how, st, None))
                    break
        for j in range(len(st) - 2):
            if st[j].t == "(" and st[j + 1].t in NARROW and st[j + 2].t == ")" and \
                    (j == 0 or st[j - 1].kind != "id" or st[j - 1].t in ciw.KEYWORDS):
                e = self.operand(st, j + 3)
                if e and id(e[0]) not in whole and not self.benign(e) and \
                        self.wide_names(e, local, ltype) and not self.split_half(st, e):
                    out.append((st[j].line, None, e, "cast to " + st[j + 1].t, st, j))
        return out

    def lhs_kind(self, lhs, local, ltype, decl_kind):
        while lhs and lhs[-1].t == "]":          # x[i] = ..., g->cv[i] = ...
            d, j = 0, len(lhs) - 1
            while j >= 0:
                d += lhs[j].t == "]"
                d -= lhs[j].t == "["
                if d == 0:
                    break
                j -= 1
            lhs = lhs[:j]
        if not lhs or lhs[-1].kind != "id":
            return None, None
        last = lhs[-1]
        if decl_kind:
            return decl_kind, last.t
        i = len(lhs) - 1
        if i > 0 and lhs[i - 1].t in (".", "->"):
            kind, stype = self.field_kind(lhs, i, ltype)
            return kind, ("field", stype, last.t)
        return local.get(last.t), last.t

    def uncast(self, rhs):
        if len(rhs) > 3 and rhs[0].t == "(" and rhs[1].t in NARROW and rhs[2].t == ")":
            e = self.operand(rhs, 3)
            if e and len(e) == len(rhs) - 3:
                return e, "cast to " + rhs[1].t
        return rhs, "implicit"

    @staticmethod
    def operand(toks, i):
        """The unary operand starting at toks[i] (a parenthesised group, or a
        name with its postfix chain)."""
        if i >= len(toks):
            return []
        j = i
        while j < len(toks) and toks[j].t in ("-", "+", "~", "*", "&"):
            j += 1
        if j < len(toks) and toks[j].t == "(":
            _, e = ciw.split_args(toks, j)
        elif j < len(toks) and toks[j].kind in ("id", "num"):
            e = j + 1
        else:
            return []
        while e < len(toks):
            if toks[e].t in ("(", "["):
                _, e = ciw.split_args(toks, e)
            elif toks[e].t in (".", "->") and e + 1 < len(toks):
                e += 2
            else:
                break
        return toks[i:e]

    @staticmethod
    def split_half(st, e):
        """(uint32_t)x beside (uint32_t)(x >> 32): a 64-bit value's halves."""
        text = " ".join(t.t for t in e)
        whole = " ".join(t.t for t in st)
        core = text[2:-2] if text.startswith("( ") and text.endswith(" )") else text
        if ">> 32" in core:
            return True
        return ("( " + core + " >> 32 )") in whole

    # ---- sinks and bounds ----
    @staticmethod
    def clamped(names, before):
        """`if (n > wg) n = wg;` for every name: bounded by a work-group size."""
        if not names:
            return False
        for nm in names:
            ok = False
            for st in before:
                t = [x.t for x in st]
                if len(t) >= 9 and t[:3] == ["if", "(", nm] and t[3] in (">", ">=") and \
                        t[5] == ")" and t[6] == nm and t[7] == "=" and t[8] == t[4] and \
                        "wg" in t[4].lower():
                    ok = True
            if not ok:
                return False
        return True

    def judge(self, site, stmts, si, local, ltype):
        line, lname, e, how, st, j = site
        sink = None
        if isinstance(lname, tuple):
            _, stype, f = lname
            if (stype, f) in self.arg_fields or (stype, "*") in self.arg_fields or \
                    (stype is None and any(a[1] == f for a in self.arg_fields)):
                sink = "kernel argument (field %s%s)" % (stype + "." if stype else "", f)
        elif lname:
            for later in stmts[si:]:
                ts = later
                for a in range(len(ts) - 1):
                    if ts[a].t == "&" and (ts[a + 1].t == lname or
                                           (ts[a + 1].t == "(" and a + 2 < len(ts)
                                            and ts[a + 2].t == lname and a + 3 < len(ts)
                                            and ts[a + 3].t == ")")):
                        sink = "kernel argument %s" % lname
                        break
                    if ts[a].kind == "id" and ts[a].t in SIZE_CALLS and ts[a + 1].t == "(":
                        args, _ = ciw.split_args(ts, a + 1)
                        if any(t.t == lname for arg in args for t in arg):
                            sink = "size (%s of %s)" % (lname, ts[a].t)
                            break
                if sink:
                    break
        else:
            for a in range(j - 1, -1, -1):
                if st[a].t == "(" and a > 0 and st[a - 1].kind == "id" and \
                        st[a - 1].t in SIZE_CALLS | ARG_CALLS:
                    args, end = ciw.split_args(st, a)
                    if end > j:
                        sink = ("size (%s)" % st[a - 1].t if st[a - 1].t in SIZE_CALLS
                                else "kernel argument")
                        break
        names = set(self.wide_names(e, local, ltype))
        if ALL:
            print("%s:%d: site %s [%s] -> %s" % (self.rel, line, " ".join(t.t for t in e),
                                                 ",".join(sorted(names)), sink))
        if not sink:
            return
        if self.clamped(names, stmts[:si]):
            return
        for prev in stmts[:si + 1]:
            toks = prev if prev is not stmts[si] else prev[:max(0, (j or 0))]
            ids = {t.t for t in toks if t.kind == "id"}
            lit = any(t.t == "<<" for t in toks) or any(
                t.kind == "num" and re.fullmatch(r"\d+", t.t.rstrip("uUlL")) and
                int(t.t.rstrip("uUlL")) >= 65536 for t in toks)
            if ids & names and (lit or any(BOUND_RE.match(t) for t in ids)) and \
                    ({"if", "while", "return"} & ids or any(t.t == "?" for t in toks)):
                return
        text = " ".join(t.t for t in e)
        if len(text) > 60:
            text = text[:57] + "..."
        self.findings.append((self.rel, line, "narrow: 64-bit %s (%s) narrowed (%s) into a %s "
                              "without a checked bound" % (text, ", ".join(sorted(names)),
                                                          how, sink)))


ALL = False


def host_markers(root, rel):
    """The kernel audit's markers of a host file; a comment-only marker
    covers the statements below it up to the next blank line (a host fills
    a geometry in a run of assignments, each one statement)."""
    marks = ciw.markers_of(root, rel)
    if not marks:
        return marks
    lines = open(os.path.join(root, rel), encoding="utf-8").read().split("\n")
    out = {}
    for start, (text, cover) in marks.items():
        if not lines[start - 1].lstrip().startswith(("/*", "//")):
            out[start] = (text, cover)      # a comment after code: its line
            continue
        end = max(cover)
        k = end
        while k < len(lines) and lines[k].strip():
            k += 1
        out[start] = (text, set(cover) | set(range(end, k + 1)))
    return out


class KeepMacros(dict):
    def pop(self, key, default=None):
        return self.get(key, default)



def main(argv):
    global ALL
    args = list(argv[1:])
    ALL = "--all" in args
    args = [a for a in args if a != "--all"]
    listing = "--list" in args
    args = [a for a in args if a != "--list"]
    if len(args) > 1 or any(a.startswith("-") for a in args):
        print(next(p for p in __doc__.split("\n\n") if p.startswith("Usage:")))
        return 2
    root = args[0] if args else os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    if not os.path.isdir(os.path.join(root, "ops")):
        print("check_host_narrowing: no ops/ under %s" % root)
        return 2
    fields, structs, funcs = tree_tables(root)
    files = []
    for dp, _, fs in os.walk(os.path.join(root, "ops")):
        files += [os.path.relpath(os.path.join(dp, f), root) for f in fs if f.endswith(".c")]
    files.sort()
    findings, nfunc = [], 0
    for rel in files:
        toks, _, _ = ciw.tokenize(os.path.join(root, rel), rel)
        macros = KeepMacros()   # a macro #undef'd after its use is still expanded
        code = ciw.preprocess(toks, macros, False)
        code = ciw.expand(code, macros)
        fd = Finder(rel, fields, structs, funcs)
        fns = list(ciw.find_functions(ciw.Ctx(), code))
        for _, _, params, body in fns:
            fd.collect_args(params, body)
        for name, words, params, body in fns:
            nfunc += 1
            fd.run(name, params, body)
        findings += fd.findings
    marks = {f: host_markers(root, f) for f in files}
    problems, audited = ciw.apply_markers(root, findings, marks, "no narrowing here")
    ciw.print_sorted(problems, audited if listing else [])
    print("check_host_narrowing: %d host files, %d functions; %d finding(s), %d audited "
          "exception(s)" % (len(files), nfunc, len(set(problems)), len(set(audited))))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
