#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""tools/check_layers.py: fails when a C file includes from a layer above its own.

The library's layers point one way, lowest first (docs/architecture.md):

    0 include/clops/           public API
    1 core/                    dtypes, tensors, views, status, hooks
    2 host/                    the OpenCL runtime
    3 dispatch/                schemas, registry, keys, structured rules, fallback
    4 ops/kit/                 the family kit: what every family shares
    5 families                 ops/<family>/, codegen_pointwise/, cl_kernels/,
                               ref/, the generated ops/kernels_generated.h
    6 generated registration   ops_generated.h/.c (in the build folder)
    7 tools/ tests/ bench/     programs on top of the library

A file may include only from its own layer or below.  Every `#include "..."`
line of every .c and .h file is read; the included file is resolved next to
the including file first, then from the repository root, then from the
generated folder (--generated), and its layer is the layer of the folder it
lives in (a generated header's folder inside the generated tree counts:
ops/kernels_generated.h is family layer, clops/ops.h is public API, a header
at the top of the generated folder is generated registration).  An include
that cannot be placed is an error too.  There is no exceptions list: what
must cross goes through a hook in the lower layer (core/hooks.h).

The reference rule: ref/ is the oracle the tests compare the families
against, so it may include only include/clops/, core/ and ref/ itself -- no
host/, dispatch/, kit or family header.  It is on when REF_RULE is True or
with --ref-rule; REF_RULE stays False until ref/ has been made independent
of the families (issue 28), then the lead switches it on here.

Usage: check_layers.py [--generated DIR] [--ref-rule] [ROOT]   (ROOT
defaults to the repository this script is in).  Exit status 0 when clean,
1 with one line per back-edge ("file:line: includes X (layer A) from layer
B"), 2 on usage errors.  Dependency-free (Python 3 standard library);
tools/check_links.py imports its layer map.
"""
import os
import re
import sys

LAYERS = ["public API", "core", "host", "dispatch", "kit", "families",
          "generated registration", "tools"]
KIT = 4
FAMILIES = 5
GENERATED = 6

# The reference rule (see the docstring): switched on once ref/ includes
# nothing but include/clops/, core/ and ref/.
REF_RULE = True
REF_MAY_INCLUDE = ("include", "core", "ref")

# Top-level folder -> layer number (ops/ is split: ops/kit/ is the kit,
# every other file under ops/ a family's).
FOLDER_LAYER = {
    "include": 0,
    "clops": 0,  # include/clops/... and the generated include/clops/ops.h as included
    "core": 1,
    "host": 2,
    "dispatch": 3,
    "codegen_pointwise": FAMILIES,
    "ops": FAMILIES,
    "ref": FAMILIES,
    "cl_kernels": FAMILIES,
    "tools": 7,
    "tests": 7,
    "bench": 7,
}
SKIP_DIRS = {".git", "build"}
INCLUDE_RE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def folder_layer(parts):
    """Layer of a path given as its folder parts (file name last), or None."""
    if len(parts) > 2 and parts[0] == "ops" and parts[1] == "kit":
        return KIT
    return FOLDER_LAYER.get(parts[0])


def layer_of_path(rel):
    """Layer of a file from its path relative to the repository root (or to
    the generated folder); None when its folder is not a layer."""
    parts = rel.replace(os.sep, "/").split("/")
    if len(parts) == 1:
        return None
    return folder_layer(parts)


def layer_of_generated(rel):
    """Layer of a file inside the generated folder: its folder's layer
    (include/clops -> public API, ops/ -> families), else generated."""
    parts = rel.replace(os.sep, "/").split("/")
    if len(parts) > 1 and parts[0] in FOLDER_LAYER:
        return folder_layer(parts)
    return GENERATED


def is_ref(rel):
    """Whether a path (relative to the repository root) is in ref/."""
    return rel.replace(os.sep, "/").split("/")[0] == "ref"


def ref_may_include(where):
    """Whether ref/ may include the file at `where` (a path relative to the
    root, or "<generated>/..."): include/clops/, core/ and ref/ only."""
    if where is None:
        return False
    parts = where.replace(os.sep, "/").split("/")
    if parts[0] == "<generated>":
        return parts[1:3] == ["include", "clops"]
    return parts[0] in REF_MAY_INCLUDE or parts[0] == "clops"


def source_files(root):
    """Every .c and .h below root (relative paths), build folders skipped."""
    out = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames
                             if d not in SKIP_DIRS and not d.startswith("build"))
        for name in sorted(filenames):
            if name.endswith((".c", ".h")):
                out.append(os.path.relpath(os.path.join(dirpath, name), root))
    return out


def resolve(root, gen, including_rel, target):
    """(layer, where) of an included name, or (None, None)."""
    here = os.path.dirname(os.path.join(root, including_rel))
    cand = os.path.normpath(os.path.join(here, target))
    if os.path.isfile(cand):
        return layer_of_path(os.path.relpath(cand, root)), os.path.relpath(cand, root)
    if os.path.isfile(os.path.join(root, target)):
        return layer_of_path(target), target
    if os.path.isfile(os.path.join(root, "include", target)):
        return 0, os.path.join("include", target)
    if gen:
        for base in (gen, os.path.join(gen, "include")):
            if os.path.isfile(os.path.join(base, target)):
                return layer_of_generated(os.path.relpath(os.path.join(base, target), gen)), \
                    "<generated>/" + os.path.relpath(os.path.join(base, target), gen)
    # Not built yet (no --generated): place a generated name by its folder,
    # a bare name at the top of the generated folder.
    if "/" in target:
        first = target.split("/")[0]
        if first in FOLDER_LAYER:
            return folder_layer(target.split("/")), target
        return None, None
    if target.endswith("_generated.h") or target.endswith("_generated.c"):
        return GENERATED, target
    return None, None


def check(root, gen, ref_rule=REF_RULE):
    """List of error lines for the tree at root."""
    errors = []
    files = [(rel, layer_of_path(rel), False) for rel in source_files(root)]
    if gen:
        files += [(os.path.join(gen, rel), layer_of_generated(rel), True)
                  for rel in source_files(gen)]
    for rel, layer, generated in files:
        path = rel if generated else os.path.join(root, rel)
        shown = ("<generated>/" + os.path.relpath(rel, gen)) if generated else rel
        if layer is None:
            continue  # not part of a layered folder (e.g. cmake/)
        with open(path, encoding="utf-8", errors="replace") as f:
            for lineno, line in enumerate(f, 1):
                m = INCLUDE_RE.match(line)
                if not m:
                    continue
                target = m.group(1)
                if generated:
                    here = os.path.dirname(path)
                    if os.path.isfile(os.path.join(here, target)):
                        tl = layer_of_generated(os.path.relpath(os.path.join(here, target), gen))
                    else:
                        tl, _ = resolve(root, gen, "include/x.h", target)
                    where = None
                else:
                    tl, where = resolve(root, gen, rel, target)
                if tl is None:
                    errors.append("%s:%d: cannot place \"%s\" in a layer" % (shown, lineno, target))
                elif tl > layer:
                    errors.append("%s:%d: includes \"%s\" (layer %d, %s) from layer %d (%s)"
                                  % (shown, lineno, target, tl, LAYERS[tl], layer, LAYERS[layer]))
                elif ref_rule and not generated and is_ref(rel) and not ref_may_include(where):
                    errors.append("%s:%d: includes \"%s\" (layer %d, %s) from ref/ (the oracle: "
                                  "include/clops, core and ref only)"
                                  % (shown, lineno, target, tl, LAYERS[tl]))
    return errors


def main(argv):
    gen = None
    ref_rule = REF_RULE
    args = []
    i = 1
    while i < len(argv):
        if argv[i] == "--generated" and i + 1 < len(argv):
            gen = argv[i + 1]
            i += 2
        elif argv[i] == "--ref-rule":
            ref_rule = True
            i += 1
        elif argv[i].startswith("-"):
            sys.stderr.write(__doc__)
            return 2
        else:
            args.append(argv[i])
            i += 1
    if len(args) > 1:
        sys.stderr.write(__doc__)
        return 2
    root = args[0] if args else os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    if not os.path.isdir(root) or (gen and not os.path.isdir(gen)):
        sys.stderr.write("check_layers: no such folder: %s\n" % (gen if os.path.isdir(root) else root))
        return 2
    errors = check(root, gen, ref_rule)
    for e in errors:
        print(e)
    if errors:
        print("check_layers: %d include(s) point up a layer or out of ref/'s bounds "
              "(docs/architecture.md)" % len(errors))
        return 1
    print("check_layers: every include points to its own layer or below")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
