#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""bench/torch_sort.py: `torch_family.py --family sort`, PyTorch on the rows of
bench/cases/sort.yaml (what bench_sort times on clops); the options are
torch_family.py's."""
import sys

from torch_family import main

if __name__ == "__main__":
    sys.exit(main(["--family", "sort"] + sys.argv[1:]))
