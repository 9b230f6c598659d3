#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
#
# bench/cold_start.sh: where a cold start's time goes on POCL.  Runs ctest
# (the README's test command, or the tests matching -R REGEX) with an empty
# POCL kernel cache, then counts what POCL compiled into that cache: programs
# (one folder with program.bc per distinct program source) and kernel
# binaries (one .so per kernel and launch geometry: POCL specialises each
# kernel on its local size, a zero global offset and small grids).
#
#     bench/cold_start.sh BUILD_DIR [POLICY] [ctest arguments...]
#
# POLICY is "chunked" (default: the CPU launch policy of issue 19) or
# "gridstride" (CLOPS_CPU_LAUNCH=gridstride: the GPU policy on the CPU, as
# before issue 19), so the two can be timed on one build.  Example:
#
#     bench/cold_start.sh build chunked -j2
#     bench/cold_start.sh build gridstride -j2
set -eu
build=${1:?usage: bench/cold_start.sh BUILD_DIR [chunked|gridstride] [ctest args...]}
shift
policy=${1:-chunked}
[ $# -gt 0 ] && shift
cache=$(mktemp -d "${TMPDIR:-/tmp}/clops-cold.XXXXXX")
trap 'rm -rf "$cache"' EXIT
start=$(date +%s.%N)
status=0
CLOPS_CPU_LAUNCH=$policy POCL_CACHE_DIR=$cache ctest --test-dir "$build" --output-on-failure "$@" \
    >"$cache.log" 2>&1 || status=$?
end=$(date +%s.%N)
tail -n 4 "$cache.log"
rm -f "$cache.log"
programs=$(find "$cache" -name program.bc | wc -l)
kernels=$(find "$cache" -name '*.so' | wc -l)
variants_1=$(find "$cache" -type d -name '1-1-1-*' | wc -l)
echo "policy $policy: $(echo "$end - $start" | bc) s wall, ctest status $status," \
     "POCL compiled $programs programs, $kernels kernel binaries ($variants_1 with local size 1)," \
     "load average $(cut -d' ' -f1-3 /proc/loadavg)"
exit $status
