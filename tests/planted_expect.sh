# SPDX-License-Identifier: Apache-2.0
# tests/planted_expect.sh: sourced by the planted-violation tests
# (check_layers_planted.sh, check_links_planted.sh,
# check_index_width_planted.sh, check_host_narrowing_planted.sh).
#
# planted_copy SRC DIR...: makes a temporary folder $tmp (removed when the
# script exits) holding a copy of each DIR of the source tree SRC, where the
# test then plants its violations.
planted_copy() {
    planted_src=$1
    shift
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT INT TERM
    for d in "$@"; do
        cp -R "$planted_src/$d" "$tmp/$d"
    done
}

# expect_clean WHAT CMD...: CMD (the check, run before anything is planted)
# must pass; its output goes to $tmp/clean.txt, printed with a FAIL line
# naming WHAT (exit 1) otherwise.
expect_clean() {
    what=$1
    shift
    if ! "$@" >"$tmp/clean.txt"; then
        cat "$tmp/clean.txt"
        echo "FAIL: $what should pass"
        exit 1
    fi
}
#
# expect_report STATUS FILE PATTERN N LINE...: the check run on the planted
# violations exited with STATUS, which must be 1; its output FILE (printed
# here) must hold every LINE and exactly N lines containing PATTERN (so the
# planted violations are reported and nothing else).  Exits 1 otherwise.
expect_report() {
    status=$1
    out=$2
    pattern=$3
    n=$4
    shift 4
    cat "$out"
    if [ "$status" -ne 1 ]; then
        echo "FAIL: the check exited $status on planted violations (expected 1)"
        exit 1
    fi
    for want in "$@"; do
        if ! grep -qF -- "$want" "$out"; then
            echo "FAIL: expected the line: $want"
            exit 1
        fi
    done
    if [ "$(grep -c -- "$pattern" "$out")" -ne "$n" ]; then
        echo "FAIL: expected exactly the $n planted violations"
        exit 1
    fi
}

# expect_line STATUS FILE LINE: the check exited with STATUS, which must be
# 1, and its output FILE holds LINE (other lines may be there too: the rule
# may still be off on the real tree).  Exits 1, printing FILE, otherwise.
expect_line() {
    if [ "$1" -ne 1 ] || ! grep -qF -- "$3" "$2"; then
        cat "$2"
        echo "FAIL: the check exited $1; expected 1 and the line: $3"
        exit 1
    fi
}
