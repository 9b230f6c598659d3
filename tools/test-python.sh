#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Runs the Python tests of the PyTorch device "clops" (python/tests) on the
# default clops device (POCL on a machine without a GPU), after the C suite.
#
# PyTorch, torchvision and transformers come from PyPI into a virtual
# environment that is reused between runs on the same machine
# (CLOPS_VENV, default ~/.cache/clops-venv): the first run downloads ~5 GB
# (PyTorch's wheel with its CUDA libraries, ~4 minutes), later runs only check
# the pins.  The extension is built against that PyTorch and links the
# libclops.a of CLOPS_BUILD_DIR (default build/, the C suite's build).
# pytest's exit status is the script's: 5 ("no tests collected") fails too.
set -eu
cd "$(dirname "$0")/.."
VENV="${CLOPS_VENV:-$HOME/.cache/clops-venv}"
export CLOPS_BUILD_DIR="${CLOPS_BUILD_DIR:-$PWD/build}"
start=$(date +%s)
if [ ! -x "$VENV/bin/python" ]; then
    python3 -m venv "$VENV"
fi
"$VENV/bin/python" -m pip install -q --disable-pip-version-check -r python/requirements-test.txt
"$VENV/bin/python" -m pip install -q --disable-pip-version-check --no-build-isolation ./python
echo "clops: python environment ready in $(( $(date +%s) - start )) s"
cd python/tests
"$VENV/bin/python" -m pytest -q -p no:cacheprovider -s -W ignore::DeprecationWarning .
echo "clops: python tests done in $(( $(date +%s) - start )) s"
