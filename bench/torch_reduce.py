#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""bench/torch_reduce.py: `torch_family.py --family reduce`, PyTorch on the rows of
bench/cases/reduce.yaml (what bench_reduce times on clops); the options are
torch_family.py's."""
import sys

from torch_family import main

if __name__ == "__main__":
    sys.exit(main(["--family", "reduce"] + sys.argv[1:]))
