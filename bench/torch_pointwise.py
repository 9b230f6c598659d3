#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""bench/torch_pointwise.py: `torch_family.py --family pointwise`, PyTorch on the rows of
bench/cases/pointwise.yaml (what bench_pointwise times on clops); the options are
torch_family.py's."""
import sys

from torch_family import main

if __name__ == "__main__":
    sys.exit(main(["--family", "pointwise"] + sys.argv[1:]))
