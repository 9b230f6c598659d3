#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/check_layers_planted.sh: proves that tools/check_layers.py fails on a
# back-edge.  It copies the layered folders of the source tree into a
# temporary folder, checks that the copy passes, then plants three includes
# that point up a layer (a core/ header including the dispatcher, the kit
# including a family, a family including the generated registration) and
# requires the check to exit 1 naming each planted file, line and both
# layers, and nothing else.  Last it plants a ref/ file including the kit
# and requires the reference rule (--ref-rule) to report it.
# Usage: check_layers_planted.sh SOURCE_DIR [PYTHON]
set -eu
. "$(dirname "$0")/planted_expect.sh"
src=$1
py=${2:-python3}
planted_copy "$src" include core host dispatch codegen_pointwise ops ref tools
expect_clean "the unmodified copy of the tree" "$py" "$src/tools/check_layers.py" "$tmp"
printf '/* planted */\n#include "clops/status.h"\n#include "dispatch/dispatch.h"\n' \
    >"$tmp/core/planted_backedge.h"
mkdir -p "$tmp/ops/kit" "$tmp/ops/norm"
printf '#include "ops/kit/lines.h"\n#include "ops/norm/norm.h"\n' >"$tmp/ops/kit/planted_backedge.c"
printf '#include "ops_generated.h"\n' >"$tmp/ops/norm/planted_backedge.c"
status=0
"$py" "$src/tools/check_layers.py" "$tmp" >"$tmp/out.txt" || status=$?
expect_report "$status" "$tmp/out.txt" 'includes' 3 \
    'core/planted_backedge.h:3: includes "dispatch/dispatch.h" (layer 3, dispatch) from layer 1 (core)' \
    'ops/kit/planted_backedge.c:2: includes "ops/norm/norm.h" (layer 5, families) from layer 4 (kit)' \
    'ops/norm/planted_backedge.c:1: includes "ops_generated.h" (layer 6, generated registration) from layer 5 (families)'
# The reference rule: ref/ includes only include/clops/, core/ and ref/.
printf '#include "core/tensor_impl.h"\n#include "ops/kit/lines.h"\n' >"$tmp/ref/planted_oracle.c"
status=0
"$py" "$src/tools/check_layers.py" --ref-rule "$tmp" >"$tmp/ref.txt" || status=$?
want='ref/planted_oracle.c:2: includes "ops/kit/lines.h" (layer 4, kit) from ref/ (the oracle: include/clops, core and ref only)'
expect_line "$status" "$tmp/ref.txt" "$want"
if grep -qF 'ref/planted_oracle.c:1:' "$tmp/ref.txt"; then
    echo "FAIL: the reference rule reported ref/ including core/"
    exit 1
fi
echo "PASS: planted back-edges and the planted ref/ include are reported"
