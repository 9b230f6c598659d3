#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Installs what clops needs to build, test and run on Debian 12 (or a
# derivative), from Debian's own packages.  docs/dependencies.md says why
# each package is there.  Uses sudo when not run as root.
set -eu
PACKAGES="build-essential cmake pkg-config git
 ocl-icd-opencl-dev opencl-c-headers pocl-opencl-icd clinfo
 libclblast-dev libvkfft-dev libcmocka-dev libxxhash-dev libcjson-dev libyaml-dev
 valgrind oclgrind python3 python3-venv python3-dev groff-base"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
    SUDO="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $PACKAGES >/dev/null
# Headless Chromium renders report.html in test_report_browser (about 80 MB
# to download; the test is skipped without it): CLOPS_SETUP_NO_BROWSER=1
# leaves it out.
if [ "${CLOPS_SETUP_NO_BROWSER:-0}" != 1 ]; then
    $SUDO apt-get install -y -qq --no-install-recommends chromium >/dev/null
fi
echo "clops: build dependencies installed; OpenCL platforms:"
clinfo -l || true
