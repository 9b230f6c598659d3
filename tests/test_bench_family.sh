#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/test_bench_family.sh BENCH_FAMILY SOURCE_DIR PYTHON3
#
# The op-family benchmark descriptors (bench/cases/*.yaml):
#  1. each one parses and lists its rows, and the PyTorch side
#     (bench/torch_family.py --list, which needs PyYAML but not torch)
#     lists exactly the same text at two scales: both sides time the same
#     ops, shapes, dtypes, layouts, arguments and models;
#  2. every row of every family runs on the first OpenCL device at a small
#     --scale without an error (conv: two of its layers, the others are
#     the same rows with other numbers), and the JSON holds one row per
#     descriptor row with a time (and GB/s where it has bytes).
# Part 1 is skipped without PyYAML, part 2 without an OpenCL device;
# exit 77 (skipped) when neither could run.
set -eu
exe=$1 src=$2 py=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
ran=0

if "$py" -c 'import yaml' 2>/dev/null; then
    for f in "$src"/bench/cases/*.yaml; do
        fam=$(basename "$f" .yaml)
        for s in 1 16; do
            "$exe" --family "$fam" --list --scale $s > "$tmp/c.txt" || fail "$fam: --list"
            [ "$(wc -l < "$tmp/c.txt")" -ge 2 ] || fail "$fam: no rows"
            "$py" "$src/bench/torch_family.py" --family "$fam" --list --scale $s > "$tmp/p.txt" ||
                fail "$fam: torch_family.py --list"
            diff -u "$tmp/c.txt" "$tmp/p.txt" || fail "$fam: the C and PyTorch lists differ"
        done
    done
    echo "descriptors: the C and PyTorch case lists agree"
    ran=1
else
    echo "note: no PyYAML for $py: the PyTorch side's lists are not compared"
fi

if "$exe" --family reduce --device opencl:0 --case sum_rows_f32 --scale 4096 --reps 1 |
        grep -q '^device opencl:0'; then
    for f in "$src"/bench/cases/*.yaml; do
        fam=$(basename "$f" .yaml)
        only='*'
        [ "$fam" = conv ] && only='*_l4_*'
        rc=0
        "$exe" --family "$fam" --device opencl:0 --scale 4096 --reps 1 --case "$only" \
            --json "$tmp/$fam.json" > "$tmp/$fam.txt" || rc=$?
        if grep ' error: ' "$tmp/$fam.txt"; then
            fail "$fam: a row failed"
        fi
        [ $rc = 0 ] || fail "$fam: exit status $rc"
        nrows=$("$exe" --family "$fam" --list --case "$only" | tail -n +2 | wc -l)
        "$py" - "$tmp/$fam.json" "$nrows" <<'PY' || fail "$fam: the JSON rows"
import json, math, sys
rows = json.load(open(sys.argv[1]))
assert len(rows) == int(sys.argv[2]), f"{len(rows)} rows, the descriptor has {sys.argv[2]}"
for r in rows:
    for k in ("device", "device_name", "case", "torch_case", "op", "dtype"):
        assert isinstance(r[k], str), k
    assert r["us_per_call"] > 0
    if "bytes" in r:
        assert r["gbs"] > 0 and math.isfinite(r["gbs"])
PY
        echo "$fam: $nrows rows ran"
    done
    ran=1
else
    echo "note: no OpenCL device: the rows are not run"
fi
[ $ran = 1 ] || exit 77
