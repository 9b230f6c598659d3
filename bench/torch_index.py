#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""bench/torch_index.py: `torch_family.py --family index`, PyTorch on the rows of
bench/cases/index.yaml (what bench_index times on clops); the options are
torch_family.py's."""
import sys

from torch_family import main

if __name__ == "__main__":
    sys.exit(main(["--family", "index"] + sys.argv[1:]))
