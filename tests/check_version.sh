#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/check_version.sh CLOPS: `clops --version` names clops, CLBlast (the
# version built against and the library loaded), the OpenCL ICD loader and
# every OpenCL platform (POCL's version string where POCL is installed);
# with CLOPS_NO_OPENCL=1 it says OpenCL was not loaded.
set -eu
clops=$1
fail() {
    echo "FAIL: $*" >&2
    exit 1
}
out=$("$clops" --version) || fail "clops --version failed"
echo "$out"
echo "$out" | grep -Eq '^clops [0-9]+\.[0-9]+\.[0-9]+$' || fail "no clops version line"
echo "$out" | grep -Eq '^CLBlast [0-9]+\.[0-9]+\.[0-9]+ \(built against\), running .*libclblast' ||
    fail "no CLBlast line naming the library loaded"
echo "$out" | grep -q '^OpenCL ICD loader: ' || fail "no ICD loader line"
echo "$out" | grep -q '^OpenCL platform' || fail "no OpenCL platform line"
if [ -n "$(ls /etc/OpenCL/vendors/*pocl* 2>/dev/null)" ]; then
    echo "$out" | grep -Eq '^OpenCL platform: .*(PoCL|pocl) [0-9]' || fail "no POCL version"
fi
CLOPS_NO_OPENCL=1 "$clops" --version | grep -q '^OpenCL: not loaded' ||
    fail "CLOPS_NO_OPENCL=1 still loads OpenCL"
