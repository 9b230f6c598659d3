#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""tools/check_links.py: fails when a library object references a symbol
defined in a layer above its own.

tools/check_layers.py checks the includes; this checks what the objects
actually call.  A kernel that includes clops/ops.h (public API, layer 0)
and calls clops_add passes the include check, yet re-enters the dispatcher
through the generated registration (layer 6); so does core calling a host
function that a header declares in core.  Here every object of the library
is read with `nm`: its defined and its undefined global symbols.  Each
object gets the layer of its source file (the layer map of
check_layers.py: ops/kit/ is the kit, ops/<family>/, codegen_pointwise/,
ref/ the families; an object built from the generated folder is generated
registration, or the layer of its folder there), and each undefined symbol
that another object of the library defines is an edge from the one object
to the other.  An edge to a higher layer is an error:

    ops/norm/norm_batch.c.o: references clops_add defined in
    generated/ops_generated.c.o (layer 6, generated registration) from
    layer 5 (families)

The one kind of upward edge allowed is a lower layer reading a data table
that the build generates and the lower layer declares: the registration
table the dispatcher walks (dispatch_builtin_ops, docs/architecture.md)
and the embedded cl_kernels/ sources host/cl_source.c serves
(clops_cl_files).  It is a rule, not a list: the symbol must be data (nm
types D, R, B, G, S, V, C) and defined by an object built from the
generated folder.  A function above is never reachable from below; where a
lower layer needs one it declares a hook (core/hooks.h).

With the reference rule on (check_layers.REF_RULE or --ref-rule), objects
of ref/ may reference only symbols that core/ and ref/ define, as their
includes may name only include/clops/, core/ and ref/ headers.

Usage: check_links.py [--nm NM] [--ref-rule] SOURCE...
  SOURCE is a folder searched for *.o (an object's source path is its path
  below the folder, less ".o"), or @FILE naming one object per line (its
  source path is the part after the last "<target>.dir/" folder, as CMake
  lays objects out).  Exit status 0 when clean, 1 with one line per
  upward edge, 2 on usage errors or when nm fails.  Python 3 standard
  library and nm (binutils) only.
"""
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_layers  # noqa: E402  (the layer map is shared)

DATA_TYPES = set("DdRrBbGgSsVvC")
GENERATED_DIR = "generated"


def source_of(obj, base):
    """Source path (relative, '/'-separated) of an object file: its path
    below base when given, else below the last '<target>.dir' folder."""
    if base is not None:
        rel = os.path.relpath(obj, base).replace(os.sep, "/")
    else:
        parts = os.path.abspath(obj).replace(os.sep, "/").split("/")
        cut = max((i for i, p in enumerate(parts) if p.endswith(".dir")), default=-1)
        rel = "/".join(parts[cut + 1:])
    return rel[:-2] if rel.endswith(".o") else rel


def layer_of_source(rel):
    """Layer of an object from its source path, or None."""
    parts = rel.split("/")
    if parts[0] == GENERATED_DIR and len(parts) > 1:
        return check_layers.layer_of_generated("/".join(parts[1:]))
    return check_layers.layer_of_path(rel)


def collect(sources):
    """[(object path, shown name)] from the SOURCE arguments."""
    objs = []
    for src in sources:
        if src.startswith("@"):
            with open(src[1:], encoding="utf-8") as f:
                for line in f:
                    line = line.strip()
                    if line:
                        objs.append((line, source_of(line, None) + ".o"))
        elif os.path.isdir(src):
            for dirpath, dirnames, filenames in os.walk(src):
                dirnames.sort()
                for name in sorted(filenames):
                    if name.endswith(".o"):
                        p = os.path.join(dirpath, name)
                        objs.append((p, source_of(p, src) + ".o"))
        else:
            raise FileNotFoundError("no such folder or object list: %s" % src)
    missing = [p for p, _ in objs if not os.path.isfile(p)]
    if missing:
        raise FileNotFoundError("%d object(s) not built, e.g. %s: build the library first "
                                "(cmake --build)" % (len(missing), missing[0]))
    return objs


def read_symbols(nm, objs):
    """{object path: (defined {name: type}, undefined set)} via one nm run."""
    table = {p: ({}, set()) for p, _ in objs}
    if not objs:
        return table
    out = subprocess.run([nm, "-P", "-g", "-A"] + [p for p, _ in objs], check=True,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         universal_newlines=True).stdout
    for line in out.splitlines():
        head, sep, rest = line.partition(": ")
        if not sep or head not in table:
            continue
        fields = rest.split()
        if len(fields) < 2:
            continue
        name, kind = fields[0], fields[1]
        if kind in ("U", "w", "v"):
            table[head][1].add(name)
        else:
            table[head][0][name] = kind
    return table


def check(objs, table, ref_rule):
    """Error lines for the objects."""
    layers = {}
    for p, shown in objs:
        layers[p] = layer_of_source(shown[:-2])
    definer = {}
    for p, shown in objs:
        for name, kind in table[p][0].items():
            # a strong definition wins over a weak one
            if name not in definer or definer[name][2] in "WwVv":
                definer[name] = (p, shown, kind)
    names = dict(objs)
    errors = []
    L = check_layers.LAYERS
    for p, shown in objs:
        here = layers[p]
        if here is None:
            errors.append("%s: cannot place the object in a layer" % shown)
            continue
        ref = ref_rule and shown.split("/")[0] == "ref"
        for name in sorted(table[p][1]):
            if name not in definer:
                continue  # the C library, OpenCL, CLBlast, ...
            dp, dshown, kind = definer[name]
            there = layers[dp]
            if there is None or dp == p:
                continue
            if there > here:
                if kind in DATA_TYPES and dshown.split("/")[0] == GENERATED_DIR:
                    continue  # a generated table the lower layer declares
                errors.append("%s: references %s defined in %s (layer %d, %s) from layer %d (%s)"
                              % (shown, name, names[dp], there, L[there], here, L[here]))
            elif ref and there > 1 and dshown.split("/")[0] != "ref":
                errors.append("%s: references %s defined in %s (layer %d, %s) from ref/ (the "
                              "oracle: core and ref only)"
                              % (shown, name, names[dp], there, L[there]))
    return errors


def main(argv):
    nm = "nm"
    ref_rule = check_layers.REF_RULE
    sources = []
    i = 1
    while i < len(argv):
        a = argv[i]
        if a == "--nm" and i + 1 < len(argv):
            nm = argv[i + 1]
            i += 2
        elif a == "--ref-rule":
            ref_rule = True
            i += 1
        elif a.startswith("-"):
            sys.stderr.write(__doc__)
            return 2
        else:
            sources.append(a)
            i += 1
    if not sources:
        sys.stderr.write(__doc__)
        return 2
    try:
        objs = collect(sources)
        table = read_symbols(nm, objs)
    except (OSError, subprocess.CalledProcessError) as e:
        sys.stderr.write("check_links: %s\n" % e)
        return 2
    if not objs:
        sys.stderr.write("check_links: no object files in %s\n" % " ".join(sources))
        return 2
    errors = check(objs, table, ref_rule)
    for e in errors:
        print(e)
    if errors:
        print("check_links: %d reference(s) point up a layer (docs/architecture.md)" % len(errors))
        return 1
    print("check_links: %d objects, every reference points to its own layer or below"
          % len(objs))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
