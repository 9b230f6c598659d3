#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""bench/torch_scan.py: `torch_family.py --family scan`, PyTorch on the rows of
bench/cases/scan.yaml (what bench_scan times on clops); the options are
torch_family.py's."""
import sys

from torch_family import main

if __name__ == "__main__":
    sys.exit(main(["--family", "scan"] + sys.argv[1:]))
