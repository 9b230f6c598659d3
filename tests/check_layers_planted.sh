#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/check_layers_planted.sh: proves that tools/check_layers.py fails on a
# back-edge.  It copies the layered folders of the source tree into a
# temporary folder, checks that the copy passes, then plants two includes
# that point up a layer (a core/ header including the dispatcher, a kernel
# including the generated registration) and requires the check to exit 1
# naming each planted file, line and both layers.
# Usage: check_layers_planted.sh SOURCE_DIR [PYTHON]
set -eu
src=$1
py=${2:-python3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
for d in include core host dispatch codegen_pointwise ops ref tools; do
    cp -R "$src/$d" "$tmp/$d"
done
if ! "$py" "$src/tools/check_layers.py" "$tmp" >"$tmp/clean.txt"; then
    cat "$tmp/clean.txt"
    echo "FAIL: the unmodified copy of the tree should pass"
    exit 1
fi
printf '/* planted */\n#include "clops/status.h"\n#include "dispatch/dispatch.h"\n' \
    >"$tmp/core/planted_backedge.h"
printf '#include "ops_generated.h"\n' >"$tmp/ops/planted_backedge.c"
status=0
"$py" "$src/tools/check_layers.py" "$tmp" >"$tmp/out.txt" || status=$?
cat "$tmp/out.txt"
if [ "$status" -ne 1 ]; then
    echo "FAIL: the check exited $status on planted back-edges (expected 1)"
    exit 1
fi
for want in \
    'core/planted_backedge.h:3: includes "dispatch/dispatch.h" (layer 3, dispatch) from layer 1 (core)' \
    'ops/planted_backedge.c:1: includes "ops_generated.h" (layer 5, generated registration) from layer 4 (kernels)'; do
    if ! grep -qF "$want" "$tmp/out.txt"; then
        echo "FAIL: expected the line: $want"
        exit 1
    fi
done
if [ "$(grep -c 'includes' "$tmp/out.txt")" -ne 2 ]; then
    echo "FAIL: expected exactly the two planted back-edges"
    exit 1
fi
echo "PASS: planted back-edges are reported"
