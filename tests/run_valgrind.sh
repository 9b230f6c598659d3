#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/run_valgrind.sh BUILD_DIR: runs the foundation tests under valgrind's
# memcheck and fails on any test failure, memory error or definite leak.
#
# The tests end with clops_shutdown(), so nothing of clops' is left at exit;
# what POCL and the OpenCL ICD loader keep or misreport is suppressed by
# tests/valgrind.supp (their frames only, never clops').  Which devices each
# test uses is chosen to keep the run to a minute or so on a 2-core machine:
# compiling OpenCL kernels under valgrind means running LLVM under valgrind
# (minutes per program), so the tests that launch kernels run on the CPU
# device, and test_errors, which reaches the OpenCL paths of device
# discovery, allocation and shutdown without compiling anything, runs on
# every device, as does test_interop's error test (wrapping a context,
# queue and buffers of its own, every refusal, the buffer's reference
# count), which fills its buffers without a kernel.
# CLOPS_VALGRIND_DEVICES=all runs every test on every device (expect ten
# minutes or more with a cold kernel cache).
#
# Usage: tests/run_valgrind.sh BUILD_DIR [TEST...]
#   BUILD_DIR  the CMake build folder (test binaries in BUILD_DIR/tests or
#              BUILD_DIR itself)
#   TEST       names to run instead of the default list
# Exit status: 0 when every test passed clean, 1 otherwise, 2 on bad usage.
set -u

if [ $# -lt 1 ] || [ ! -d "$1" ]; then
    echo "usage: $0 BUILD_DIR [TEST...]" >&2
    exit 2
fi
build=$1
shift
here=$(cd "$(dirname "$0")" && pwd)
supp=$here/valgrind.supp
if ! command -v valgrind >/dev/null 2>&1; then
    echo "$0: valgrind is not installed" >&2
    exit 2
fi

# A private kernel cache: a run neither reads nor pollutes the user's.
cache=$(mktemp -d "${TMPDIR:-/tmp}/clops-valgrind-XXXXXX") || exit 2
logs=$cache/logs
mkdir -p "$logs"
trap 'rm -rf "$cache"' EXIT INT TERM

# Devices per test: "cpu" (kernels only on the CPU device), "all", or
# "none" (no OpenCL at all: tests that never touch a device).
devices_of() {
    if [ "${CLOPS_VALGRIND_DEVICES:-}" = all ]; then
        echo all
        return
    fi
    case $1 in
    test_errors | test_interop) echo all ;;
    test_views | test_schema) echo none ;;
    *) echo cpu ;;
    esac
}

# Finds a test binary in the build tree.
binary_of() {
    for candidate in "$build/tests/$1" "$build/$1"; do
        if [ -x "$candidate" ]; then
            echo "$candidate"
            return 0
        fi
    done
    return 1
}

if [ $# -gt 0 ]; then
    tests=$*
else
    tests="test_dtype test_copy test_errors test_views test_schema test_interop"
fi

failed=0
for name in $tests; do
    bin=$(binary_of "$name") || {
        echo "FAIL $name: no binary under $build"
        failed=1
        continue
    }
    devices=$(devices_of "$name")
    case $devices in
    all) env_devices="" ;;
    none) env_devices="CLOPS_NO_OPENCL=1" ;;
    *) env_devices="CLOPS_TEST_DEVICES=$devices" ;;
    esac
    # test_interop: only its error test, which compiles no kernel.
    filter=""
    [ "$name" != test_interop ] || filter="CLOPS_TEST_FILTER=test_interop_errors*"
    log=$logs/$name.log
    start=$(date +%s)
    # shellcheck disable=SC2086 # env_devices and filter: one assignment or empty
    env $env_devices $filter CLOPS_CACHE_DIR="$cache" \
        valgrind --quiet --num-callers=40 --suppressions="$supp" \
        --leak-check=full --errors-for-leak-kinds=definite --error-exitcode=99 \
        "$bin" >"$log" 2>&1
    rc=$?
    secs=$(($(date +%s) - start))
    if [ $rc -eq 0 ]; then
        echo "ok   $name (devices: $devices, ${secs}s)"
        continue
    fi
    failed=1
    if [ $rc -eq 99 ]; then
        echo "FAIL $name: valgrind found memory errors or definite leaks" \
            "(devices: $devices, ${secs}s)"
    else
        echo "FAIL $name: the test failed with status $rc (devices: $devices, ${secs}s)"
    fi
    echo "---- $log"
    cat "$log"
    echo "----"
done
exit $failed
