#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""bench/torch_norm.py: `torch_family.py --family norm`, PyTorch on the rows of
bench/cases/norm.yaml (what bench_norm times on clops); the options are
torch_family.py's."""
import sys

from torch_family import main

if __name__ == "__main__":
    sys.exit(main(["--family", "norm"] + sys.argv[1:]))
