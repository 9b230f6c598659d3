#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/check_links_planted.sh: proves that tools/check_links.py fails on a
# reference against the layers.  The library's objects (OBJECT_LIST, one
# path a line) must pass; then three objects compiled into a temporary
# folder, at the source paths of their layers, plant upward references --
# core/ calling the default device of host/, the kit calling the pointwise
# engine (a family), a family calling a generated public wrapper -- and
# the check must exit 1 naming each of them, and nothing else.  Last a
# ref/ object calling host/'s default device must be reported by the
# reference rule (--ref-rule).
# Usage: check_links_planted.sh SOURCE_DIR OBJECT_LIST [PYTHON [CC [NM]]]
set -eu
. "$(dirname "$0")/planted_expect.sh"
src=$1
list=$2
py=${3:-python3}
cc=${4:-cc}
nm=${5:-nm}
planted_copy "$src"
check() {
    "$py" "$src/tools/check_links.py" --nm "$nm" "$@"
}
expect_clean "the library's own objects" check "@$list"
# plant FOLDER NAME SYMBOL: an object at FOLDER/NAME.c.o whose function calls SYMBOL
plant() {
    mkdir -p "$tmp/objs/$1"
    printf 'extern int %s(void);\nint planted_%s(void) { return %s(); }\n' "$3" "$2" "$3" \
        >"$tmp/$2.c"
    "$cc" -c "$tmp/$2.c" -o "$tmp/objs/$1/$2.c.o"
}
plant core planted_core clops_device_default
plant ops/kit planted_kit pw_run
plant ops/norm planted_family clops_add
status=0
check "@$list" "$tmp/objs" >"$tmp/out.txt" || status=$?
expect_report "$status" "$tmp/out.txt" ': references ' 3 \
    'core/planted_core.c.o: references clops_device_default defined in host/device.c.o (layer 2, host) from layer 1 (core)' \
    'ops/kit/planted_kit.c.o: references pw_run defined in codegen_pointwise/run.c.o (layer 5, families) from layer 4 (kit)' \
    'ops/norm/planted_family.c.o: references clops_add defined in generated/ops_generated.c.o (layer 6, generated registration) from layer 5 (families)'
# The reference rule: ref/ uses only core and ref symbols.
rm -rf "$tmp/objs"
plant ref planted_ref clops_device_default
status=0
check --ref-rule "@$list" "$tmp/objs" >"$tmp/ref.txt" || status=$?
want='ref/planted_ref.c.o: references clops_device_default defined in host/device.c.o (layer 2, host) from ref/ (the oracle: core and ref only)'
expect_line "$status" "$tmp/ref.txt" "$want"
echo "PASS: planted references against the layers are reported"
