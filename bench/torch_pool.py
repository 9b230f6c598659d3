#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""bench/torch_pool.py: `torch_family.py --family pool`, PyTorch on the rows of
bench/cases/pool.yaml (what bench_pool times on clops); the options are
torch_family.py's."""
import sys

from torch_family import main

if __name__ == "__main__":
    sys.exit(main(["--family", "pool"] + sys.argv[1:]))
