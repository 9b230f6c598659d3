#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tests/fuzz/run_schema_fuzz.sh: a short, deterministic fuzz run of the
# schema parser for CI, with gcc and no libFuzzer.
#
# Builds tests/fuzz/fuzz_schema.c as a standalone driver under AddressSanitizer
# (with LeakSanitizer) and UndefinedBehaviorSanitizer, then:
#   1. replays the seed corpus (tests/fuzz/corpus/schema/*) and every line of
#      tests/data/schemas_corpus.txt and tests/data/schemas_malformed.txt;
#   2. reruns each of those with the 1st, 2nd, ... allocation failing, so
#      every out-of-memory path is exercised (malloc/calloc/realloc are
#      wrapped at link time);
#   3. mutates the inputs randomly from a fixed seed for SECONDS seconds.
# Any crash, sanitizer report, leak, or broken property (a print that does not
# parse back to itself, a bad error message) aborts the driver and fails the
# script.
#
# usage: tests/fuzz/run_schema_fuzz.sh [SECONDS]      (default 20)
# environment: CC (default gcc), CLOPS_FUZZ_SEED (default 20240601),
#              CLOPS_FUZZ_BUILD_DIR (default: a temporary directory)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
seconds="${1:-20}"
seed="${CLOPS_FUZZ_SEED:-20240601}"
cc="${CC:-gcc}"

if [[ -n "${CLOPS_FUZZ_BUILD_DIR:-}" ]]; then
    out="$CLOPS_FUZZ_BUILD_DIR"
    mkdir -p "$out"
else
    out="$(mktemp -d)"
    trap 'rm -rf "$out"' EXIT
fi

"$cc" -std=c11 -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
    -Wno-unused-parameter -Wvla -g -O1 -fno-omit-frame-pointer \
    -fsanitize=address,undefined -fno-sanitize-recover=all \
    -DCLOPS_FUZZ_STANDALONE -DCLOPS_FUZZ_WRAP_MALLOC \
    -I"$root" -I"$root/include" \
    "$here/fuzz_schema.c" "$root/dispatch/schema.c" "$root/core/status.c" "$root/core/strbuf.c" \
    -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc \
    -o "$out/fuzz_schema"

export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:${ASAN_OPTIONS:-}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:${UBSAN_OPTIONS:-}"

"$out/fuzz_schema" -s "$seed" -t "$seconds" -m \
    -l "$root/tests/data/schemas_corpus.txt" \
    -l "$root/tests/data/schemas_malformed.txt" \
    "$here"/corpus/schema/*
echo "run_schema_fuzz: no crash, leak or property violation (seed $seed, ${seconds}s)"
