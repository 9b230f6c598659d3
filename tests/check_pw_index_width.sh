#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/check_pw_index_width.sh: the index-width audit
# (tools/check_index_width.py) over the pointwise programs the engine
# generates at run time.  pw_emit_sources writes the 64-bit-index programs
# of every pointwise op, dtype, rank class and cast pair, as a CPU device
# and as a GPU builds them, into a temporary cl_kernels/; the audit must
# find nothing there (those kernels index tensors of any size).  The 32-bit
# ones are taken only when every offset fits (pw_make_plan's index64), so
# their 32-bit ids and offsets are the host's choice: they are written and
# audited too, and the audit must report them (it would not, were it
# unable to read the generated code: then the clean 64-bit result would
# mean nothing); their count is printed (docs/reliability.md).
# Usage: check_pw_index_width.sh PW_EMIT_SOURCES SOURCE_DIR [PYTHON]
set -eu
emit=$1
src=$2
py=${3:-python3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
mkdir -p "$tmp/w64" "$tmp/w32"
"$emit" "$tmp/w64" i64
if ! "$py" "$src/tools/check_index_width.py" "$tmp/w64" >"$tmp/out64.txt"; then
    cat "$tmp/out64.txt"
    echo "FAIL: 32-bit index arithmetic in the 64-bit-index pointwise programs"
    exit 1
fi
tail -n 1 "$tmp/out64.txt"
"$emit" "$tmp/w32" i32
st=0
"$py" "$src/tools/check_index_width.py" "$tmp/w32" >"$tmp/out32.txt" || st=$?
echo "32-bit-index programs (host-chosen, every offset < 2^31): $(tail -n 1 "$tmp/out32.txt")"
if [ "$st" -ne 1 ] || ! grep -q 'gid32: 32-bit i holds a global id' "$tmp/out32.txt"; then
    echo "FAIL: the audit reported nothing in the 32-bit-index programs (exit $st): it does" \
        "not read the generated code"
    exit 1
fi
echo "PASS: the 64-bit-index pointwise programs index in 64 bits"
