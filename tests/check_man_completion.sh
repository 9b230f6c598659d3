#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/check_man_completion.sh CLOPS MANPAGE COMPLETION: the generated
# clops(1) page renders without a groff warning and shows every command's
# section, and the bash completion offers commands, a command's options
# (from its --help), op names (from `clops ops`) and device selectors.
set -eu
clops=$1 page=$2 completion=$3
fail() {
    echo "FAIL: $*" >&2
    exit 1
}
err=$(mktemp)
trap 'rm -f "$err"' EXIT
# groff comes from tools/setup-debian.sh (groff-base); a machine without it
# (the GPU machine's image) checks the page's source and the completion only.
if command -v groff >/dev/null 2>&1; then
    out=$(groff -man -Tutf8 -P-cbou -ww "$page" 2>"$err") || fail "groff failed on $page"
    if [ -s "$err" ]; then cat "$err" >&2; fail "groff warned about $page"; fi
    for s in NAME SYNOPSIS 'CLOPS OPS' 'CLOPS COMPARE' 'EXIT STATUS' ENVIRONMENT; do
        echo "$out" | grep -q "^$s" || fail "the man page has no section '$s'"
    done
    if command -v man >/dev/null 2>&1; then
        MANWIDTH=80 man -l "$page" 2>/dev/null | grep -q 'clops COMMAND \[OPTIONS\]' ||
            fail "man -l does not render the synopsis"
    fi
else
    echo "groff not installed: checking the page's source only"
    for s in NAME SYNOPSIS 'CLOPS OPS' 'CLOPS COMPARE' 'EXIT STATUS' ENVIRONMENT; do
        grep -q "^\.SH \"*$s" "$page" || fail "the man page has no section '$s'"
    done
fi
complete_words() {
    bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _clops
             printf "%s\n" "${COMPREPLY[@]}"' _ "$completion" "$clops" "$@"
}
complete_words ch | grep -qx check || fail "completion of 'ch' lacks check"
complete_words check --op ad | grep -qx add.Tensor || fail "no op names for --op"
complete_words run rel | grep -qx relu || fail "no op names after run"
complete_words bench --dt | grep -qx -- --dtype || fail "no options for bench"
complete_words check --device "" | grep -qx cpu || fail "no device selectors"
echo "man page and completion OK"
